//! The comparison of two speed runs (`wirebench compare`): a row per common case, the verdict
//! counts, and the agreement lines.

use wirebench_core::sections::compare::{Agreement, Comparison};

use crate::table::Table;
use crate::Output;

/// The comparison in one output kind; `old` and `new` name the two files in the title. CSV is
/// the table alone, one row per case with numbers as numbers (the summary is [`summary`]); JSON
/// is the whole comparison with the two files' names.
pub fn render(c: &Comparison, old: &str, new: &str, output: Output) -> String {
    match output {
        Output::Csv => return crate::csv::text(&[csv(c)]),
        Output::Json => {
            let doc = serde_json::json!({ "old": old, "new": new, "comparison": c });
            return serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
        }
        _ => {}
    }
    let mut t = Table::new(
        &format!("Change from {old} to {new} (noise threshold {}%)", c.threshold_pct),
        &["payload", "codec", "op", "path", "old ns", "new ns", "change", "95% CI", "verdict", "instr change"],
    )
    .numeric_from(4);
    for r in &c.cases {
        t.push(vec![
            r.payload.clone(),
            r.codec.clone(),
            r.op.clone(),
            r.path.clone(),
            crate::speed::ns(r.old_ns),
            crate::speed::ns(r.new_ns),
            format!("{:+.1}%", r.change * 100.0),
            format!("[{:+.1}%, {:+.1}%]", r.ci.0 * 100.0, r.ci.1 * 100.0),
            r.verdict.clone(),
            r.instructions_change.map(|x| format!("{:+.2}%", x * 100.0)).unwrap_or_else(|| "-".into()),
        ]);
    }
    let out = match output {
        Output::Markdown => t.to_markdown(),
        _ => t.to_text(),
    };
    out + "\n" + &summary(c)
}

/// The verdict counts and the agreement lines (printed after the table, or on stderr with CSV).
pub fn summary(c: &Comparison) -> String {
    let refused = match c.not_comparable {
        0 => String::new(),
        k => format!(", {k} not comparable (short samples in either run)"),
    };
    format!(
        "{} faster, {} slower, {} no change, {} unclear{refused} (of {} cases)\n",
        c.faster,
        c.slower,
        c.no_change,
        c.unclear,
        c.cases.len()
    ) + &agreement(&c.agreement, c.threshold_pct)
}

/// One row per case, snake_case columns with their units, numbers as numbers (empty when absent).
fn csv(c: &Comparison) -> crate::csv::CsvTable {
    let num = |x: f64| if x.is_finite() { format!("{x}") } else { String::new() };
    let mut out = crate::csv::CsvTable::with_header(&[
        "payload",
        "codec",
        "op",
        "path",
        "old_ns",
        "new_ns",
        "change_ratio",
        "ci_low_ratio",
        "ci_high_ratio",
        "verdict",
        "instructions_change_ratio",
    ]);
    for r in &c.cases {
        out.row(&[
            r.payload.clone(),
            r.codec.clone(),
            r.op.clone(),
            r.path.clone(),
            num(r.old_ns),
            num(r.new_ns),
            num(r.change),
            num(r.ci.0),
            num(r.ci.1),
            r.verdict.clone(),
            r.instructions_change.map(num).unwrap_or_default(),
        ]);
    }
    out
}

/// The agreement lines: medians within the threshold, the host reference, instruction counts.
fn agreement(a: &Agreement, threshold: f64) -> String {
    let mut s = String::new();
    if let (true, Some(mid)) = (a.timed > 0, a.median_change) {
        s.push_str(&format!(
            "Medians within ±{threshold}%, cases of {} ns or more: {} of {} ({:.1}%); median change {:+.1}%\n",
            a.min_ns,
            a.within,
            a.timed,
            100.0 * a.within as f64 / a.timed as f64,
            mid * 100.0
        ));
        if let Some(h) = a.host_change {
            s.push_str(&format!("Host reference change: {:+.1}%", h * 100.0));
            if h.abs() > threshold / 100.0 / 2.0 {
                s.push_str(" (the host ran at another speed: other load or frequency; rerun both on an idle machine, or compare instruction counts)");
            }
            s.push('\n');
        } else if mid.abs() > threshold / 100.0 / 2.0 {
            s.push_str("  Most cases moved alike by about that much, which points at the host (other load, frequency) rather than the code; rerun both on an idle machine, or compare instruction counts.\n");
        }
    }
    if a.counted > 0 {
        s.push_str(&format!("Instruction counts identical: {} of {}\n", a.identical, a.counted));
        for d in a.differing.iter().take(8) {
            s.push_str(&format!("  differs: {d}\n"));
        }
        if a.differing.len() > 8 {
            s.push_str(&format!("  ... and {} more\n", a.differing.len() - 8));
        }
    }
    s
}
