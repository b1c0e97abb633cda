//! Comparing two speed runs: the change of every common case with a bootstrap CI and a verdict
//! against a noise threshold, and how far the runs agree as a whole (medians within the
//! threshold, the host reference, identical instruction counts).

use wirebench_core::results::{SpeedCase, SpeedSection};
use wirebench_core::sections::compare::{Agreement, CaseChange, Comparison};

use crate::stats::ratio_ci;

/// Cases at or above this median (both runs) count for the agreement figure; shorter ones sit
/// close to the clock's resolution.
pub const AGREEMENT_MIN_NS: f64 = 100.0;

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

/// Compare `new` with `old`; `threshold_pct` is the noise threshold in percent.
pub fn compare(old: &SpeedSection, new: &SpeedSection, threshold_pct: f64) -> Comparison {
    let threshold = threshold_pct / 100.0;
    let mut cmp = Comparison {
        threshold_pct,
        cases: Vec::new(),
        faster: 0,
        slower: 0,
        no_change: 0,
        unclear: 0,
        agreement: Agreement { min_ns: AGREEMENT_MIN_NS, ..Default::default() },
    };
    let mut changes = Vec::new();
    let a = &mut cmp.agreement;
    for n in &new.cases {
        let Some(o) = old.cases.iter().find(|o| key(o) == key(n)) else { continue };
        let change = n.ns_per_op.median / o.ns_per_op.median - 1.0;
        let ci = ratio_ci(&n.samples_ns, &o.samples_ns, 7);
        let ci = (ci.0 - 1.0, ci.1 - 1.0);
        let v = verdict(change, ci, threshold);
        match v {
            "faster" => cmp.faster += 1,
            "slower" => cmp.slower += 1,
            "no change" => cmp.no_change += 1,
            _ => cmp.unclear += 1,
        }
        if o.ns_per_op.median.min(n.ns_per_op.median) >= AGREEMENT_MIN_NS {
            a.timed += 1;
            a.within += usize::from(change.abs() <= threshold);
            changes.push(change);
        }
        if let (Some(x), Some(y)) = (o.instructions_per_op, n.instructions_per_op) {
            a.counted += 1;
            if x == y {
                a.identical += 1;
            } else {
                a.differing.push(format!("{}/{}/{} {:.2} -> {:.2}", n.payload, n.codec, n.op, x, y));
            }
        }
        let instructions_change = match (o.instructions_per_op, n.instructions_per_op) {
            (Some(x), Some(y)) if x > 0.0 => Some(y / x - 1.0),
            _ => None,
        };
        cmp.cases.push(CaseChange {
            payload: n.payload.clone(),
            codec: n.codec.clone(),
            op: n.op.clone(),
            path: key(n).3.to_string(),
            old_ns: o.ns_per_op.median,
            new_ns: n.ns_per_op.median,
            change,
            ci,
            verdict: v.into(),
            instructions_change,
        });
    }
    if !changes.is_empty() {
        // The upper median: with an even count, the larger of the two middle changes.
        changes.sort_by(f64::total_cmp);
        a.median_change = Some(changes[changes.len() / 2]);
    }
    a.host_change = match (&old.host_reference, &new.host_reference) {
        (Some(x), Some(y)) if x.ns_per_op.median > 0.0 => Some(y.ns_per_op.median / x.ns_per_op.median - 1.0),
        _ => None,
    };
    cmp
}
