//! wirebench reports: every exporter reads results (never measures).
//!
//! - [`table`]: a small table model rendered as aligned terminal text or Markdown.
//! - [`csv`]: RFC 4180 CSV.
//! - [`size`]: the encoded-size report in each output kind.

pub mod blocks;
pub mod compare;
pub mod csv;
pub mod dds;
pub mod device;
pub mod energy;
pub mod evolve;
pub mod failed;
pub mod fleet;
pub mod html;
pub mod micropython;
pub mod mqtt;
pub mod net;
pub mod recommend;
pub mod size;
pub mod size_held_out;
pub mod speed;
pub mod studies;
pub mod svg;
pub mod table;

/// One section of every report kind: its key in the results file, whether a results file has
/// it, its text (terminal, Markdown, CSV, JSON) and its HTML view. The study runner's registry
/// pairs each part with its view; [`FRAME`] are the sections every report opens with.
#[derive(Clone, Copy)]
pub struct View {
    pub key: &'static str,
    pub has: fn(&wirebench_core::results::Results) -> bool,
    pub text: fn(&wirebench_core::results::Results, Output) -> String,
    /// Its tables as data: the CSV text and the tidy CSV are written from them.
    pub csv: fn(&wirebench_core::results::Results) -> Vec<csv::CsvTable>,
    pub html: html::SectionFn,
}

/// The sections before the parts': the answer (`--budget`, `--link`, `--samples`) and the
/// parts that did not finish.
pub const FRAME: [View; 2] = [
    View {
        key: "answer",
        has: |r| r.answer.is_some(),
        text: recommend::render_answer,
        csv: |_| Vec::new(),
        html: recommend::html_section,
    },
    View {
        key: "failed_parts",
        has: |r| !r.failed_parts.is_empty(),
        text: failed::render,
        csv: failed::csv_tables,
        html: failed::html_section,
    },
];

/// The output kinds every report offers. A section's renderer gives, for `Json`, that section
/// alone; every command's `-o json` prints the whole results file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    Table,
    Markdown,
    Csv,
    Json,
}
