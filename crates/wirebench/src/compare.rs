//! `compare OLD NEW`: the change of every speed case, with a bootstrap CI and a noise threshold.

use anyhow::Result;
use wirebench_core::results::{Results, SpeedCase};
use wirebench_measure::stats::ratio_ci;
use wirebench_report::table::Table;
use wirebench_report::Output;

use crate::common::*;
use crate::CompareArgs;

/// The verdict for one case.
fn verdict(change: f64, ci: (f64, f64), threshold: f64) -> &'static str {
    if ci.0 > threshold {
        "slower"
    } else if ci.1 < -threshold {
        "faster"
    } else if change.abs() < threshold || (ci.0 <= 0.0 && ci.1 >= 0.0) {
        "no change"
    } else {
        "unclear"
    }
}

fn key(c: &SpeedCase) -> (&str, &str, &str, &str) {
    (&c.payload, &c.codec, &c.op, c.path.trim_end_matches(" (lossy)"))
}

pub fn compare(args: CompareArgs) -> Result<()> {
    let read = |p: &std::path::Path| -> Result<Results> {
        let r = Results::read(p).map_err(|e| bad(e.to_string()))?;
        if r.speed.is_none() {
            return Err(bad(format!("{}: no speed section (make one with `wirebench speed --out FILE`)", p.display())));
        }
        Ok(r)
    };
    let (old, new) = (read(&args.old)?, read(&args.new)?);
    let (old, new) = (old.speed.unwrap(), new.speed.unwrap());
    let threshold = args.threshold / 100.0;
    let mut t = Table::new(
        &format!("Change from {} to {} (noise threshold {}%)", args.old.display(), args.new.display(), args.threshold),
        &["payload", "codec", "op", "old ns", "new ns", "change", "95% CI", "verdict", "instr change"],
    )
    .numeric_from(3);
    let mut counts = [0usize; 4];
    for n in &new.cases {
        let Some(o) = old.cases.iter().find(|o| key(o) == key(n)) else { continue };
        let change = n.ns_per_op.median / o.ns_per_op.median - 1.0;
        let ci = ratio_ci(&n.samples_ns, &o.samples_ns, 7);
        let ci = (ci.0 - 1.0, ci.1 - 1.0);
        let v = verdict(change, ci, threshold);
        counts[["faster", "slower", "no change", "unclear"].iter().position(|x| *x == v).unwrap_or(3)] += 1;
        let instr = match (o.instructions_per_op, n.instructions_per_op) {
            (Some(a), Some(b)) if a > 0.0 => format!("{:+.2}%", (b / a - 1.0) * 100.0),
            _ => "-".into(),
        };
        t.push(vec![
            n.payload.clone(),
            n.codec.clone(),
            n.op.clone(),
            wirebench_report::speed::ns(o.ns_per_op.median),
            wirebench_report::speed::ns(n.ns_per_op.median),
            format!("{:+.1}%", change * 100.0),
            format!("[{:+.1}%, {:+.1}%]", ci.0 * 100.0, ci.1 * 100.0),
            v.into(),
            instr,
        ]);
    }
    if t.rows.is_empty() {
        return Err(bad("the two results files have no case in common"));
    }
    let out = match Output::from(args.output) {
        Output::Markdown => t.to_markdown(),
        Output::Csv | Output::Json => {
            let mut s = wirebench_report::csv::record(&t.headers);
            for r in &t.rows {
                s.push_str(&wirebench_report::csv::record(r));
            }
            s
        }
        Output::Table => t.to_text(),
    };
    let summary = format!(
        "\n{} faster, {} slower, {} no change, {} unclear (of {} cases)\n",
        counts[0], counts[1], counts[2], counts[3], t.rows.len()
    );
    write_stdout((out + &summary).as_bytes())
}
