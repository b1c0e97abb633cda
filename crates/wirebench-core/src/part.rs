//! One shape for every part of a study (size, speed, link, mqtt, http, tcp, dds, and the parts
//! later measurements add): options read from the study file's table of the part's name (or
//! from the command line), checked completely before any part of the study runs, then run into
//! a typed, serde-serializable results section of the same name. The study runner's registry
//! (`crates/wirebench/src/parts.rs`) lists every part, in run order, with its section view.

/// Why a part could not be checked or run.
#[derive(Debug, thiserror::Error)]
pub enum PartError {
    /// The user's options or input are wrong (the CLI exits with code 2).
    #[error("{0}")]
    BadInput(String),
    /// The environment failed the run: a tool missing, a socket or a file that failed (exit 1).
    #[error("{0}")]
    Failed(String),
}

impl PartError {
    pub fn bad(msg: impl Into<String>) -> PartError {
        PartError::BadInput(msg.into())
    }

    pub fn failed(msg: impl Into<String>) -> PartError {
        PartError::Failed(msg.into())
    }
}

/// A part of a study.
pub trait Part {
    /// The part's table in a study file and its section in the results file.
    const NAME: &'static str;
    /// The options (every field has a default, so an empty table is valid where the part allows).
    type Options;
    /// The results section the part writes.
    type Section;
    /// Check every option (formats, corpora, paths, numeric ranges, the tools the run needs)
    /// without measuring anything.
    fn validate(opts: &Self::Options) -> Result<(), PartError>;
    /// Measure. Progress goes to stderr; the section is the result.
    fn run(opts: &Self::Options) -> Result<Self::Section, PartError>;
}
