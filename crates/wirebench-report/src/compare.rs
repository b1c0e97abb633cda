//! The comparison of two speed runs (`wirebench compare`): a row per common case, the verdict
//! counts, and the agreement lines.

use wirebench_core::sections::compare::{Agreement, Comparison};

use crate::table::Table;
use crate::Output;

/// The comparison in one output kind; `old` and `new` name the two files in the title.
pub fn render(c: &Comparison, old: &str, new: &str, output: Output) -> String {
    let mut t = Table::new(
        &format!("Change from {old} to {new} (noise threshold {}%)", c.threshold_pct),
        &["payload", "codec", "op", "old ns", "new ns", "change", "95% CI", "verdict", "instr change"],
    )
    .numeric_from(3);
    for r in &c.cases {
        t.push(vec![
            r.payload.clone(),
            r.codec.clone(),
            r.op.clone(),
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
        Output::Csv | Output::Json => crate::csv::table(&t),
        Output::Table => t.to_text(),
    };
    let refused = match c.not_comparable {
        0 => String::new(),
        k => format!(", {k} not comparable (short samples in either run)"),
    };
    let summary = format!(
        "\n{} faster, {} slower, {} no change, {} unclear{refused} (of {} cases)\n",
        c.faster,
        c.slower,
        c.no_change,
        c.unclear,
        c.cases.len()
    );
    out + &summary + &agreement(&c.agreement, c.threshold_pct)
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
