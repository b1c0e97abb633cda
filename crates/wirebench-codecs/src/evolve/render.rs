//! Rendering: verdicts' short forms, a cell's details and the Markdown report section.

use super::{Cell, Evolution, Format, Note, Verdict};

impl Verdict {
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
            "{} (the bytes alone, without type matching, read as: {})",
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

/// The report section (Markdown; also what the terminal shows): the dangerous cells first,
/// then the matrix, the byte cost of evolvability and the recommendation.
pub fn render(e: &Evolution) -> String {
    let mut formats: Vec<Format> = Vec::new();
    for c in &e.cells {
        if !formats.contains(&c.format) {
            formats.push(c.format);
        }
    }
    formats.sort_by_key(|f| Format::ALL.iter().position(|x| x == f));
    let mut s = String::new();
    s.push_str(&format!(
        "## Schema evolution\n\n{} case(s) × {} format(s) × 2 directions, {} sample(s) per cell: encoded with the writer's schema, decoded with the reader's.\n\n",
        e.cases.len(),
        formats.len(),
        e.samples
    ));
    for case in &e.cases {
        let what: Vec<String> = case.changes.iter().map(|c| format!("{} ({})", c.change.id(), c.detail)).collect();
        s.push_str(&format!(
            "- **{}**: {}\n",
            case.name,
            if what.is_empty() { "no change found".into() } else { what.join("; ") }
        ));
    }
    for (v, title) in [
        (Verdict::SilentlyWrong, "Silently wrong (the reader accepted and produced other values)"),
        (Verdict::Refused, "Refused by the reader"),
        (Verdict::Lossy, "Lossy"),
    ] {
        let cells: Vec<&Cell> = e.cells.iter().filter(|c| c.verdict == v).collect();
        s.push_str(&format!("\n### {title}: {} cell(s)\n\n", cells.len()));
        for c in cells {
            s.push_str(&format!("- {} · {} · {}: {}\n", c.format.id(), c.change, c.direction, detail(c)));
        }
    }
    s.push_str("\n### Matrix\n\n| change | direction |");
    for f in &formats {
        s.push_str(&format!(" {} |", f.id()));
    }
    s.push_str("\n|---|---|");
    for _ in &formats {
        s.push_str("---|");
    }
    s.push('\n');
    for case in &e.cases {
        for dir in ["old→new", "new→old"] {
            s.push_str(&format!("| {} | {dir} |", case.name));
            for f in &formats {
                let v = e
                    .cells
                    .iter()
                    .find(|c| c.format == *f && c.change == case.name && c.direction == dir)
                    .map_or("", |c| c.verdict.short());
                s.push_str(&format!(" {v} |"));
            }
            s.push('\n');
        }
    }
    s.push_str("\nWRONG: silently wrong · refused: refused by the reader · lossy · defaults: ok with defaults · ok\n");
    s.push_str("\n### Byte cost of evolvability (v1 messages, mean per message)\n\n| format | with | without | overhead | what |\n|---|---:|---:|---:|---|\n");
    for c in &e.costs {
        let pct = if c.without > 0.0 { (c.with - c.without) / c.without * 100.0 } else { 0.0 };
        s.push_str(&format!(
            "| {} | {:.1} B | {:.1} B | {:+.0} % | {} |\n",
            c.format.id(),
            c.with,
            c.without,
            pct,
            c.what
        ));
    }
    s.push_str(&format!("\n**Recommendation**: {}\n", e.recommendation));
    s
}
