//! The `evolve` results section: schema evolution, every format × change × direction encoded
//! with the writer's schema and decoded with the reader's (the engine is
//! `wirebench_codecs::evolve`; docs/evolve.md).

use serde::{Deserialize, Serialize};

/// The outcome of one format × change × direction, the dangerous one first (the order of the
/// matrix's cells).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The reader accepted and produced other values than the writer meant.
    SilentlyWrong,
    /// The reader refused (some or all samples).
    Refused,
    /// Values changed by the reader's type (rounded, truncated, one item of a list kept).
    Lossy,
    /// Fields the writer does not have took the reader's defaults.
    OkWithDefaults,
    Ok,
    /// The format cannot express one of the two schemas.
    NotApplicable,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::SilentlyWrong => "silently wrong",
            Verdict::Refused => "refused by the reader",
            Verdict::Lossy => "lossy",
            Verdict::OkWithDefaults => "ok with defaults",
            Verdict::Ok => "ok",
            Verdict::NotApplicable => "n/a",
        }
    }

    /// The short form in the matrix.
    pub fn short(self) -> &'static str {
        match self {
            Verdict::SilentlyWrong => "WRONG",
            Verdict::Refused => "refused",
            Verdict::Lossy => "lossy",
            Verdict::OkWithDefaults => "defaults",
            Verdict::Ok => "ok",
            Verdict::NotApplicable => "n/a",
        }
    }
}

/// What happened to one field in one sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Note {
    pub sample: usize,
    pub field: String,
    /// What the writer meant (absent: the writer has no such field or left it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meant: Option<String>,
    /// What the reader produced (absent: nothing, it took the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub got: Option<String>,
}

/// A change found between the two schemas of a case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FoundChange {
    /// `add-optional`, `add-required`, `remove`, `rename`, `reorder`, `widen`, `narrow`,
    /// `int-float`, `add-enum-value`, `make-repeated`, `presence` (optional ↔ required) or
    /// `other-type-change`.
    pub change: String,
    pub field: String,
    pub detail: String,
}

/// A case: a named pair of schemas (v1, v2) and the changes it contains.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Case {
    pub name: String,
    pub changes: Vec<FoundChange>,
}

/// One cell of the matrix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cell {
    /// The row: the codec id, with the extensibility for CDR (`cdr-xcdr2 @mutable`).
    pub format: String,
    /// The case's name.
    pub change: String,
    /// `old→new` (v1 writer, v2 reader) or `new→old`.
    pub direction: String,
    pub verdict: Verdict,
    pub samples: usize,
    pub refused: usize,
    pub wrong: usize,
    pub lossy: usize,
    pub defaulted: usize,
    /// The reader's first error (refused), or why the format does not apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The fields that were wrong, lossy or defaulted (first sample each).
    #[serde(default)]
    pub fields_wrong: Vec<Note>,
    #[serde(default)]
    pub fields_lossy: Vec<Note>,
    #[serde(default)]
    pub fields_defaulted: Vec<String>,
    /// When the reader's rule refused the pair before reading (XTypes assignability, a UADP
    /// MajorVersion): what the bytes alone would have read as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_alone: Option<Verdict>,
    /// The cell in one line (what went wrong, was refused, lost or defaulted).
    #[serde(default)]
    pub detail: String,
}

/// The byte cost of evolvability of one format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cost {
    pub format: String,
    /// Mean bytes per v1 message as written.
    pub with: f64,
    /// Mean bytes per v1 message without the evolution metadata.
    pub without: f64,
    /// What that metadata is.
    pub what: String,
}

/// The `evolve` section.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EvolveSection {
    /// Samples per cell.
    pub samples: usize,
    /// The rows, in matrix order.
    #[serde(default)]
    pub formats: Vec<String>,
    pub cases: Vec<Case>,
    /// Every cell, the dangerous ones first (silently wrong, refused, lossy, with defaults, ok).
    pub cells: Vec<Cell>,
    pub costs: Vec<Cost>,
    /// The format that keeps old and new talking best here, and the changes to keep behind a
    /// version field.
    pub recommendation: String,
}
