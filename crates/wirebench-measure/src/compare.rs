//! Comparing two speed runs: the change of every common case with a bootstrap CI and a verdict
//! against a noise threshold, and how far the runs agree as a whole (medians within the
//! threshold, the host reference, identical instruction counts).

use wirebench_core::results::{SpeedCase, SpeedSection};
use wirebench_core::sections::compare::{Agreement, CaseChange, Comparison};

use crate::stats::ratio_ci;

/// Cases at or above this median (both runs) count for the agreement figure; shorter ones sit
/// close to the clock's resolution.
pub const AGREEMENT_MIN_NS: f64 = 100.0;

/// The verdict of a case either run marked short.
pub const NOT_COMPARABLE: &str = "not comparable";

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
        not_comparable: 0,
        agreement: Agreement { min_ns: AGREEMENT_MIN_NS, ..Default::default() },
    };
    let mut changes = Vec::new();
    let a = &mut cmp.agreement;
    for n in &new.cases {
        let Some(o) = old.cases.iter().find(|o| key(o) == key(n)) else { continue };
        let change = n.ns_per_op.median / o.ns_per_op.median - 1.0;
        let ci = ratio_ci(&n.samples_ns, &o.samples_ns, 7);
        let ci = (ci.0 - 1.0, ci.1 - 1.0);
        // A short case timed the clock and a cold call as much as the operation: no verdict.
        let comparable = !(o.short || n.short);
        let v = if comparable { verdict(change, ci, threshold) } else { NOT_COMPARABLE };
        match v {
            "faster" => cmp.faster += 1,
            "slower" => cmp.slower += 1,
            "no change" => cmp.no_change += 1,
            NOT_COMPARABLE => cmp.not_comparable += 1,
            _ => cmp.unclear += 1,
        }
        if comparable && o.ns_per_op.median.min(n.ns_per_op.median) >= AGREEMENT_MIN_NS {
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

#[cfg(test)]
mod tests {
    use super::*;
    use wirebench_core::results::TimerInfo;

    fn case(codec: &str, ns: f64, short: bool) -> SpeedCase {
        let samples: Vec<f64> = (0..30).map(|i| ns * (1.0 + 0.001 * i as f64)).collect();
        SpeedCase {
            payload: "p".into(),
            codec: codec.into(),
            op: "encode".into(),
            path: "typed".into(),
            buffer: "reused".into(),
            bytes: 10,
            iters_per_sample: 1000,
            ns_per_op: crate::stats::summarize(&samples, 1),
            samples_ns: samples,
            ratio_to_baseline: None,
            ratio_ci95: None,
            allocs_per_op: None,
            alloc_bytes_per_op: None,
            instructions_per_op: None,
            warnings: Vec::new(),
            short,
            calibration: None,
        }
    }

    fn section(cases: Vec<SpeedCase>) -> SpeedSection {
        SpeedSection {
            corpus: "t".into(),
            baseline: "a".into(),
            timer: TimerInfo::default(),
            samples: 30,
            target_sample_ns: 500_000.0,
            warmup_ms: 1.0,
            seed: 1,
            cases,
            warnings: Vec::new(),
            instructions: false,
            host_reference: None,
            per_codec: Vec::new(),
            seed001: Vec::new(),
        }
    }

    #[test]
    fn a_short_case_gets_no_verdict() {
        let old = section(vec![case("a", 200.0, false), case("b", 200.0, false), case("c", 200.0, false)]);
        // b ran short in the new run and looks 20x slower (a cold call and the clock); c is
        // really 2x slower.
        let new = section(vec![case("a", 200.0, false), case("b", 4_000.0, true), case("c", 400.0, false)]);
        let c = compare(&old, &new, 5.0);
        let v = |codec: &str| c.cases.iter().find(|k| k.codec == codec).unwrap().verdict.clone();
        assert_eq!((v("a").as_str(), v("b").as_str(), v("c").as_str()), ("no change", NOT_COMPARABLE, "slower"));
        assert_eq!((c.no_change, c.not_comparable, c.slower, c.faster, c.unclear), (1, 1, 1, 0, 0));
        // Short in the old run is as bad; the agreement leaves short cases out.
        let c = compare(&new, &old, 5.0);
        assert_eq!(c.not_comparable, 1);
        assert_eq!(c.agreement.timed, 2);
    }
}
