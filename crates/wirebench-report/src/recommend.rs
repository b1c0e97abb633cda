//! The recommendation (`wirebench recommend`): ranked formats, exclusions, notes.

use wirebench_core::sections::recommend::Recommendation;

use crate::blocks::{Block, List};
use crate::table::Table;

/// The ranked formats as a table (`title` may be empty).
pub fn table(rec: &Recommendation, title: &str) -> Table {
    let link = rec.ranked.iter().any(|r| r.airtime_ms.is_some());
    let mut head = vec!["rank", "codec", "mean B", "max B"];
    if link {
        head.extend(["airtime ms", "frames", "msgs/day"]);
    }
    head.extend(["schema", "fidelity", "why"]);
    let mut t = Table::new(title, &head);
    for r in &rec.ranked {
        let mut row =
            vec![r.rank.to_string(), r.codec.clone(), format!("{:.1}", r.mean_bytes), r.max_bytes.to_string()];
        if link {
            row.push(r.airtime_ms.map(|v| format!("{v:.1}")).unwrap_or_default());
            row.push(r.frames.map(|v| v.to_string()).unwrap_or_default());
            row.push(r.msgs_per_day.map(|v| format!("{v:.0}")).unwrap_or_default());
        }
        row.push(r.schema.to_string());
        row.push(r.fidelity.clone());
        row.push(r.reasons.join("; "));
        t.push(row);
    }
    t
}

/// The answer of a run (`run --budget/--link`), first in its reports.
pub fn render_answer(r: &wirebench_core::results::Results, output: crate::Output) -> String {
    let Some(rec) = &r.answer else { return String::new() };
    match output {
        crate::Output::Table | crate::Output::Markdown => {
            crate::blocks::render(&blocks(rec, Some("The answer")), output)
        }
        _ => String::new(),
    }
}

/// The answer as the first section of the HTML report: the same blocks as report.md's.
pub fn html_section(r: &wirebench_core::results::Results, _: &crate::html::Ctx) -> Option<crate::html::Section> {
    let rec = r.answer.as_ref()?;
    let summary = match rec.ranked.first() {
        Some(b) => format!("best fit {} ({} B at most)", b.codec, b.max_bytes),
        None => "no format meets every constraint".into(),
    };
    Some(crate::html::from_blocks(&blocks(rec, Some("The answer")), summary))
}

/// The recommendation as blocks: the ranked table (under `heading`, else titled "Recommended
/// formats"), the best fit, the excluded formats and the notes.
fn blocks(rec: &Recommendation, heading: Option<&str>) -> Vec<Block> {
    let mut out =
        vec![Block::LeadTable { heading: heading.map(String::from), table: table(rec, "Recommended formats") }];
    match rec.ranked.first() {
        Some(best) => out.push(Block::KeyLine(format!(
            "Best fit: {} (device classes {}): largest message {} B, mean {:.1} B.",
            best.codec, best.mcu, best.max_bytes, best.mean_bytes
        ))),
        None => out.push(Block::KeyLine("No format meets every constraint.".into())),
    }
    if !rec.excluded.is_empty() {
        let items = rec.excluded.iter().map(|e| format!("{}: {}", e.codec, e.why)).collect();
        out.push(List::new("Excluded", items).heading().bullet(" - ").into());
    }
    out.push(List::new("Notes", rec.notes.clone()).heading().bullet(" - ").into());
    out
}

/// The recommendation as a terminal table or Markdown.
pub fn render(rec: &Recommendation, md: bool) -> String {
    crate::blocks::render(&blocks(rec, None), crate::blocks::text_kind(md))
}
