//! The timing engine: warm-up, calibration, interleaved shuffled samples, statistics, ratios,
//! allocation counts and warnings.
//!
//! Method (the same for every case):
//! 1. The clock's precision and the harness overhead are measured first and recorded.
//! 2. Each case is warmed up and calibrated: iterations per sample double until one sample
//!    takes at least the target time (and at least 100× the clock precision).
//! 3. Samples are taken in rounds; each round runs every case once, in a freshly shuffled
//!    order, so slow drifts of the machine spread over all cases instead of biasing some.
//! 4. Per case: median, mean, stddev, MAD, min/max, a bootstrap 95 % CI of the median, Tukey
//!    outliers (counted, not dropped); the ratio to the baseline codec with its bootstrap CI.
//! 5. Allocations per operation are counted apart from the timed samples.

use wirebench_core::results::{HostReference, SpeedCase, SpeedSection, TimerInfo};

use crate::stats::{ratio_ci, summarize, Rng};
use crate::timer::{time, time_spread};

/// One case to time: what it is, and a closure that runs the operation `n` times.
pub struct CaseSpec<'a> {
    pub payload: String,
    pub codec: String,
    pub op: &'static str,
    pub path: &'static str,
    pub buffer: &'static str,
    pub bytes: usize,
    pub run: Box<dyn FnMut(u64) + 'a>,
}

/// How hard to measure.
#[derive(Clone, Debug)]
pub struct SpeedConfig {
    pub samples: usize,
    /// Minimum duration of one sample, ns.
    pub target_sample_ns: f64,
    /// Minimum warm-up per case, ms.
    pub warmup_ms: f64,
    pub seed: u64,
    pub baseline: String,
}

impl Default for SpeedConfig {
    fn default() -> Self {
        SpeedConfig { samples: 60, target_sample_ns: 500_000.0, warmup_ms: 20.0, seed: 1, baseline: "json".into() }
    }
}

/// Robust relative spread (1.4826 × MAD / median, the standard deviation a normal
/// distribution with that MAD would have) above which a case is flagged as noisy. Robust, so
/// that a few interrupted samples (counted as outliers) do not mark a steady case noisy.
pub const NOISY_CV: f64 = 0.10;

/// 1.4826 × MAD / median ([`Summary::robust_cv`](wirebench_core::results::Summary::robust_cv)).
pub fn robust_cv(s: &wirebench_core::results::Summary) -> f64 {
    s.robust_cv()
}

/// Run every case; `progress(done, total)` is called after each round.
pub fn run(
    mut cases: Vec<CaseSpec<'_>>,
    cfg: &SpeedConfig,
    timer: TimerInfo,
    corpus: &str,
    progress: &mut dyn FnMut(usize, usize),
) -> SpeedSection {
    let target = cfg.target_sample_ns.max(100.0 * timer.precision_ns);
    // The host reference runs as one more case, last, and is taken out again below.
    cases.push(host_reference_case());
    // Warm-up and calibration.
    let mut iters: Vec<u64> = Vec::with_capacity(cases.len());
    for c in cases.iter_mut() {
        let started = std::time::Instant::now();
        let mut n = 1u64;
        loop {
            let t = time(&mut c.run, n);
            if t >= target || n >= 1 << 40 {
                // Scale to the target from this measurement.
                let per = t / n as f64;
                n = ((target / per.max(0.01)).ceil() as u64).max(1);
                break;
            }
            n *= 2;
        }
        while started.elapsed().as_secs_f64() * 1e3 < cfg.warmup_ms {
            time(&mut c.run, n);
        }
        iters.push(n);
    }
    // Interleaved, shuffled rounds.
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(cfg.samples); cases.len()];
    let mut order: Vec<usize> = (0..cases.len()).collect();
    let mut rng = Rng::new(cfg.seed);
    for round in 0..cfg.samples {
        rng.shuffle(&mut order);
        for &i in &order {
            let t = time_spread(&mut cases[i].run, iters[i]);
            samples[i].push(t / iters[i] as f64);
        }
        progress(round + 1, cfg.samples);
    }
    let reference_samples = samples.pop().unwrap_or_default();
    let reference_iters = iters.pop().unwrap_or(1);
    cases.pop();
    let host_reference = HostReference {
        workload: HOST_REFERENCE_WORKLOAD.into(),
        iters_per_sample: reference_iters,
        ns_per_op: summarize(&reference_samples, cfg.seed ^ 0x4f57),
        samples_ns: reference_samples,
    };
    // Allocations, apart from timing.
    let allocs: Vec<_> = cases.iter_mut().map(|c| crate::alloc::measure(200, || (c.run)(1))).collect();

    let mut out: Vec<SpeedCase> = Vec::with_capacity(cases.len());
    for (i, c) in cases.iter().enumerate() {
        let summary = summarize(&samples[i], cfg.seed ^ i as u64);
        let mut warnings = Vec::new();
        if robust_cv(&summary) > NOISY_CV {
            warnings.push(format!(
                "noisy: robust spread {:.0}% of the median; rerun on an idle machine, take more --rounds, or compare --instructions",
                robust_cv(&summary) * 100.0
            ));
        }
        let severe = summary.outliers.low_severe + summary.outliers.high_severe;
        if severe * 20 > summary.n {
            warnings.push(format!("{severe} severe outliers in {} samples: something else ran during the measurement; rerun on an idle machine, or compare --instructions", summary.n));
        }
        if summary.median < 10.0 * timer.harness_overhead_ns_per_op {
            warnings.push(format!(
                "within 10x of the harness overhead ({:.1} ns/op): compare instruction counts instead",
                timer.harness_overhead_ns_per_op
            ));
        }
        out.push(SpeedCase {
            payload: c.payload.clone(),
            codec: c.codec.clone(),
            op: c.op.into(),
            path: c.path.into(),
            buffer: c.buffer.into(),
            bytes: c.bytes,
            iters_per_sample: iters[i],
            ns_per_op: summary,
            samples_ns: samples[i].clone(),
            ratio_to_baseline: None,
            ratio_ci95: None,
            allocs_per_op: allocs[i].map(|a| a.allocs_per_op),
            alloc_bytes_per_op: allocs[i].map(|a| a.bytes_per_op),
            instructions_per_op: None,
            warnings,
        });
    }
    // Ratios to the baseline codec (same payload and operation; same path when it has one).
    for i in 0..out.len() {
        let base = out
            .iter()
            .position(|b| b.codec == cfg.baseline && b.payload == out[i].payload && b.op == out[i].op && b.path == out[i].path)
            .or_else(|| out.iter().position(|b| b.codec == cfg.baseline && b.payload == out[i].payload && b.op == out[i].op));
        if let Some(b) = base {
            let r = out[i].ns_per_op.median / out[b].ns_per_op.median;
            let ci = ratio_ci(&samples[i], &samples[b], cfg.seed.wrapping_add(i as u64));
            out[i].ratio_to_baseline = Some(r);
            out[i].ratio_ci95 = Some(ci);
        }
    }
    let mut warnings = Vec::new();
    if timer.precision_ns > 100.0 {
        warnings.push(format!("coarse clock: {:.0} ns steps; samples were lengthened to compensate", timer.precision_ns));
    }
    let noisy = out.iter().filter(|c| robust_cv(&c.ns_per_op) > NOISY_CV).count();
    if noisy * 10 > out.len() {
        warnings.push(format!(
            "{noisy} of {} cases are noisy (robust spread > {:.0}%): the machine is busy; figures may shift between runs",
            out.len(),
            NOISY_CV * 100.0
        ));
    }
    if !crate::alloc::installed() {
        warnings.push("allocation counts unavailable: the counting allocator is not installed in this binary".into());
    }
    SpeedSection {
        corpus: corpus.into(),
        baseline: cfg.baseline.clone(),
        timer,
        samples: cfg.samples,
        target_sample_ns: target,
        warmup_ms: cfg.warmup_ms,
        seed: cfg.seed,
        cases: out,
        warnings,
        instructions: false,
        host_reference: Some(host_reference),
        per_codec: Vec::new(),
        seed001: Vec::new(),
    }
}

/// What [`host_reference_case`] does, as recorded in the results.
pub const HOST_REFERENCE_WORKLOAD: &str =
    "512 steps of a 64-bit LCG indexing a 4 KiB table (multiply, load, rotate, xor): integer and L1 work only";

/// The host reference: fixed integer and L1-cache work, no allocation and no system call,
/// so its time changes only when the host does (frequency, other load, a busy sibling core).
fn host_reference_case() -> CaseSpec<'static> {
    let table: Vec<u32> = (0..1024u32).map(|i| i.wrapping_mul(0x9e37_79b9).rotate_left(7)).collect();
    CaseSpec {
        payload: String::new(),
        codec: "host reference".into(),
        op: "reference",
        path: "",
        buffer: "",
        bytes: 0,
        run: Box::new(move |n| {
            for i in 0..n {
                let mut x = std::hint::black_box(i);
                let mut acc = 0u64;
                for _ in 0..512 {
                    x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    acc = acc.rotate_left(5) ^ u64::from(table[(x >> 54) as usize]);
                }
                std::hint::black_box(acc);
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;

    fn spin(work: u64) -> impl FnMut(u64) {
        move |n| {
            for i in 0..n {
                let mut x = i;
                for _ in 0..work {
                    x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
                black_box(x);
            }
        }
    }

    #[test]
    fn ratios_follow_the_work() {
        let case = |codec: &str, work: u64| CaseSpec {
            payload: "p".into(),
            codec: codec.into(),
            op: "encode",
            path: "dynamic",
            buffer: "reused",
            bytes: 1,
            run: Box::new(spin(work)),
        };
        let cfg = SpeedConfig { samples: 30, target_sample_ns: 200_000.0, warmup_ms: 1.0, seed: 3, baseline: "a".into() };
        let timer = crate::timer::measure_timer();
        let s = run(vec![case("a", 200), case("b", 800)], &cfg, timer, "t", &mut |_, _| {});
        assert_eq!(s.cases.len(), 2);
        assert_eq!(s.cases[0].samples_ns.len(), 30);
        assert_eq!(s.cases[0].ratio_to_baseline, Some(1.0));
        // 4x the work: the ratio is near 4 (wide bounds: this machine is shared).
        let r = s.cases[1].ratio_to_baseline.unwrap();
        assert!((2.0..8.0).contains(&r), "ratio {r}");
        let (lo, hi) = s.cases[1].ratio_ci95.unwrap();
        assert!(lo <= r && r <= hi);
        assert!(s.cases[0].iters_per_sample >= 1);
        assert!(s.target_sample_ns >= 100.0 * s.timer.precision_ns);
    }
}
