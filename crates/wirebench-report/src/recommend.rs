//! The recommendation (`wirebench recommend`): ranked formats, exclusions, notes.

use wirebench_core::sections::recommend::Recommendation;

use crate::table::Table;

/// The recommendation as a terminal table or Markdown.
pub fn render(rec: &Recommendation, md: bool) -> String {
    let link = rec.ranked.iter().any(|r| r.airtime_ms.is_some());
    let mut head = vec!["rank", "codec", "mean B", "max B"];
    if link {
        head.extend(["airtime ms", "frames", "msgs/day"]);
    }
    head.extend(["schema", "fidelity", "why"]);
    let mut t = Table::new(if md { "" } else { "Recommended formats" }, &head);
    for r in &rec.ranked {
        let mut row = vec![r.rank.to_string(), r.codec.clone(), format!("{:.1}", r.mean_bytes), r.max_bytes.to_string()];
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
    let mut out = String::new();
    if md {
        out.push_str("## Recommended formats\n\n");
    }
    out.push_str(&if md { t.to_markdown() } else { t.to_text() });
    if let Some(best) = rec.ranked.first() {
        out.push_str(&format!("\nBest fit: {} (device classes {}).\n", best.codec, best.mcu));
    }
    if !rec.excluded.is_empty() {
        out.push_str(if md { "\n## Excluded\n\n" } else { "\nExcluded\n" });
        for e in &rec.excluded {
            out.push_str(&format!("{} {}: {}\n", if md { "-" } else { " -" }, e.codec, e.why));
        }
    }
    out.push_str(if md { "\n## Notes\n\n" } else { "\nNotes\n" });
    for n in &rec.notes {
        out.push_str(&format!("{} {n}\n", if md { "-" } else { " -" }));
    }
    out
}
