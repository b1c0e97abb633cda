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
    let mut agreement = Agreement::default();
    for n in &new.cases {
        let Some(o) = old.cases.iter().find(|o| key(o) == key(n)) else { continue };
        let change = n.ns_per_op.median / o.ns_per_op.median - 1.0;
        let ci = ratio_ci(&n.samples_ns, &o.samples_ns, 7);
        let ci = (ci.0 - 1.0, ci.1 - 1.0);
        let v = verdict(change, ci, threshold);
        counts[["faster", "slower", "no change", "unclear"].iter().position(|x| *x == v).unwrap_or(3)] += 1;
        agreement.add(o, n, change, threshold);
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
    let mut summary = format!(
        "\n{} faster, {} slower, {} no change, {} unclear (of {} cases)\n",
        counts[0], counts[1], counts[2], counts[3], t.rows.len()
    );
    let host = match (&old.host_reference, &new.host_reference) {
        (Some(a), Some(b)) if a.ns_per_op.median > 0.0 => Some(b.ns_per_op.median / a.ns_per_op.median - 1.0),
        _ => None,
    };
    summary.push_str(&agreement.summary(args.threshold, host));
    write_stdout((out + &summary).as_bytes())
}

/// Cases at or above this median (both runs) count for the agreement figure; shorter ones sit
/// close to the clock's resolution.
const AGREEMENT_MIN_NS: f64 = 100.0;

/// How far two runs agree: medians within the threshold, identical instruction counts, and
/// the median change over all cases (a shift of every case alike is the host, not the code).
#[derive(Default)]
struct Agreement {
    timed: usize,
    within: usize,
    changes: Vec<f64>,
    counted: usize,
    identical: usize,
    differing: Vec<String>,
}

impl Agreement {
    fn add(&mut self, o: &SpeedCase, n: &SpeedCase, change: f64, threshold: f64) {
        if o.ns_per_op.median.min(n.ns_per_op.median) >= AGREEMENT_MIN_NS {
            self.timed += 1;
            self.within += usize::from(change.abs() <= threshold);
            self.changes.push(change);
        }
        if let (Some(a), Some(b)) = (o.instructions_per_op, n.instructions_per_op) {
            self.counted += 1;
            if a == b {
                self.identical += 1;
            } else {
                self.differing.push(format!(
                    "{}/{}/{} {:.2} -> {:.2}",
                    n.payload, n.codec, n.op, a, b
                ));
            }
        }
    }

    /// `host`: the change of the host reference between the runs, when both have one.
    fn summary(&self, threshold: f64, host: Option<f64>) -> String {
        let mut s = String::new();
        if self.timed > 0 {
            let mut c = self.changes.clone();
            c.sort_by(f64::total_cmp);
            let mid = c[c.len() / 2];
            s.push_str(&format!(
                "Medians within ±{threshold}%, cases of {AGREEMENT_MIN_NS} ns or more: {} of {} ({:.1}%); median change {:+.1}%\n",
                self.within,
                self.timed,
                100.0 * self.within as f64 / self.timed as f64,
                mid * 100.0
            ));
            if let Some(h) = host {
                s.push_str(&format!("Host reference change: {:+.1}%", h * 100.0));
                if h.abs() > threshold / 100.0 / 2.0 {
                    s.push_str(" (the host ran at another speed: other load or frequency; rerun both on an idle machine, or compare instruction counts)");
                }
                s.push('\n');
            } else if mid.abs() > threshold / 100.0 / 2.0 {
                s.push_str("  Most cases moved alike by about that much, which points at the host (other load, frequency) rather than the code; rerun both on an idle machine, or compare instruction counts.\n");
            }
        }
        if self.counted > 0 {
            s.push_str(&format!("Instruction counts identical: {} of {}\n", self.identical, self.counted));
            for d in self.differing.iter().take(8) {
                s.push_str(&format!("  differs: {d}\n"));
            }
            if self.differing.len() > 8 {
                s.push_str(&format!("  ... and {} more\n", self.differing.len() - 8));
            }
        }
        s
    }
}
