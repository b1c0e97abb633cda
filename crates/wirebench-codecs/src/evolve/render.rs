//! A cell's details in one line, and the run as its results section (the report renders it:
//! `wirebench_report::evolve`).

use wirebench_core::sections::evolve::{self as S, EvolveSection};

use super::{Cell, Evolution, Format, Note, Verdict};

fn notes(ns: &[Note]) -> String {
    ns.iter()
        .map(|n| {
            format!(
                "{} (sample {}: writer meant {}, reader got {})",
                n.field,
                n.sample,
                n.meant.as_deref().unwrap_or("nothing"),
                n.got.as_deref().unwrap_or("nothing, i.e. its default")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The cell's details in one line.
pub fn detail(c: &Cell) -> String {
    if let Some(b) = c.bytes_alone {
        return format!(
            "{} (read without that rule, the bytes alone give: {})",
            c.error.as_deref().unwrap_or(""),
            b.label()
        );
    }
    let mut parts = Vec::new();
    if !c.fields_wrong.is_empty() {
        parts.push(format!("{}/{} samples wrong: {}", c.wrong, c.samples, notes(&c.fields_wrong)));
    }
    if c.refused > 0 || c.verdict == Verdict::NotApplicable {
        let e = c.error.as_deref().unwrap_or("");
        parts.push(if c.verdict == Verdict::NotApplicable {
            e.to_string()
        } else {
            format!("{}/{} samples refused: {e}", c.refused, c.samples)
        });
    }
    if !c.fields_lossy.is_empty() {
        parts.push(format!("{}/{} samples lossy: {}", c.lossy, c.samples, notes(&c.fields_lossy)));
    }
    if !c.fields_defaulted.is_empty() {
        parts.push(format!("defaults taken: {}", c.fields_defaulted.join(", ")));
    }
    parts.join(" | ")
}

/// The run as its results section (`evolve`): the cells in the same order, each with its
/// details in one line.
pub fn section(e: &Evolution) -> EvolveSection {
    let mut formats: Vec<Format> = Vec::new();
    for c in &e.cells {
        if !formats.contains(&c.format) {
            formats.push(c.format);
        }
    }
    formats.sort_by_key(|f| Format::ALL.iter().position(|x| x == f));
    EvolveSection {
        samples: e.samples,
        formats: formats.iter().map(|f| f.id().to_string()).collect(),
        cases: e
            .cases
            .iter()
            .map(|c| S::Case {
                name: c.name.clone(),
                changes: c
                    .changes
                    .iter()
                    .map(|f| S::FoundChange {
                        change: f.change.id().into(),
                        field: f.field.clone(),
                        detail: f.detail.clone(),
                    })
                    .collect(),
            })
            .collect(),
        cells: e
            .cells
            .iter()
            .map(|c| S::Cell {
                format: c.format.id().into(),
                change: c.change.clone(),
                direction: c.direction.clone(),
                verdict: c.verdict,
                samples: c.samples,
                refused: c.refused,
                wrong: c.wrong,
                lossy: c.lossy,
                defaulted: c.defaulted,
                error: c.error.clone(),
                fields_wrong: c.fields_wrong.clone(),
                fields_lossy: c.fields_lossy.clone(),
                fields_defaulted: c.fields_defaulted.clone(),
                bytes_alone: c.bytes_alone,
                detail: detail(c),
            })
            .collect(),
        costs: e
            .costs
            .iter()
            .map(|c| S::Cost { format: c.format.id().into(), with: c.with, without: c.without, what: c.what.clone() })
            .collect(),
        recommendation: e.recommendation.clone(),
    }
}
