//! The timing engine: warm-up, calibration, interleaved shuffled samples, statistics, ratios,
//! allocation counts and warnings.
//!
//! Method (the same for every case):
//! 1. The clock's precision and the harness overhead are measured first and recorded.
//! 2. Each case is warmed up and calibrated: iterations per sample double until a timing takes
//!    at least the target time (and at least 100× the clock precision), and the batch size comes
//!    from the fastest of [`CALIBRATION_CROSSINGS`] consecutive timings that cross it, so a
//!    preempted timing can neither end the search early nor set the size ([`calibrate`]).
//! 3. Samples are taken in rounds; each round runs every case once, in a freshly shuffled
//!    order, so slow drifts of the machine spread over all cases instead of biasing some.
//!    After the rounds, a case whose iterations × median fell below half the target is
//!    re-calibrated and re-sampled (up to [`MAX_RECALIBRATIONS`] times); one still short is
//!    marked `short`, named in the warnings and refused by `compare` ([`measure`]).
//! 4. Per case: median, mean, stddev, MAD, min/max, a bootstrap 95 % CI of the median, Tukey
//!    outliers (counted, not dropped); the ratio to the baseline codec with its bootstrap CI.
//! 5. Allocations per operation are counted apart from the timed samples.

use wirebench_core::results::{Calibration, HostReference, SpeedCase, SpeedSection, Summary, TimerInfo};

use crate::stats::{median, ratio_ci, summarize, Rng};
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

/// Consecutive timings that must cross the target before the batch size is derived from them.
pub const CALIBRATION_CROSSINGS: usize = 3;

/// Samples must last at least this share of the target (iterations × median), or the case is
/// re-calibrated and re-sampled.
pub const MIN_FILL: f64 = 0.5;

/// Re-calibrations (each followed by a full re-sampling of the case) before a case is marked short.
pub const MAX_RECALIBRATIONS: u32 = 2;

/// Most iterations one timing runs (an operation the compiler removed takes no time at all).
const MAX_ITERS: u64 = 1 << 40;

/// Which kind of timing the engine asks a timing source for: calibration and warm-up timings
/// run the calls plainly, samples spread them over stack depths ([`time_spread`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Calibrate,
    Sample,
}

/// The batch size [`calibrate`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibrated {
    /// Iterations per sample.
    pub iters: u64,
    /// The time per operation it came from, ns.
    pub per_op_ns: f64,
    /// Timings taken.
    pub timings: u32,
}

/// Iterations per sample so that one sample lasts `target_ns`, from a timing source
/// (`time(n)`: run the operation n times, return the ns it took). n doubles until a timing
/// crosses the target; then timings at that n continue until [`CALIBRATION_CROSSINGS`]
/// consecutive ones have crossed it, and the batch size comes from the smallest time per
/// operation among them. A timing below the target clears the count and doubles n again (the
/// crossing before it was preempted, or n only just sufficed). So one long timing can neither
/// stop the search at a small n nor set the size: it would take [`CALIBRATION_CROSSINGS`]
/// preempted timings in a row.
pub fn calibrate(time: &mut dyn FnMut(u64) -> f64, target_ns: f64) -> Calibrated {
    let mut n = 1u64;
    let mut timings = 0u32;
    let mut crossed: Vec<f64> = Vec::with_capacity(CALIBRATION_CROSSINGS);
    loop {
        let t = time(n);
        timings += 1;
        if t >= target_ns || n >= MAX_ITERS {
            crossed.push(t / n as f64);
            if crossed.len() >= CALIBRATION_CROSSINGS {
                break;
            }
        } else {
            crossed.clear();
            n *= 2;
        }
    }
    let per = crossed.iter().copied().fold(f64::INFINITY, f64::min);
    let iters = ((target_ns / per.max(0.01)).ceil() as u64).clamp(1, MAX_ITERS);
    Calibrated { iters, per_op_ns: per, timings }
}

/// How to measure, independent of what is timed.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Samples per case.
    pub samples: usize,
    /// Minimum duration of one sample, ns.
    pub target_ns: f64,
    /// Warm-up per case before calibrating, ns (summed over the warm-up timings).
    pub warmup_ns: f64,
    /// Seeds the shuffled order of the rounds.
    pub seed: u64,
}

/// One case as [`measure`] found it.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Iterations per sample of the samples kept.
    pub iters: u64,
    /// The samples, ns per operation, in the order taken.
    pub samples_ns: Vec<f64>,
    pub calibration: Calibration,
    /// Iterations × median stayed below [`MIN_FILL`] × target after every re-calibration.
    pub short: bool,
}

/// iterations × median ÷ target.
fn fill(iters: u64, samples: &[f64], target_ns: f64) -> f64 {
    iters as f64 * median(samples) / target_ns
}

/// The measuring core over a timing source, `time(case, n, phase)` (run case `case` n times,
/// return the ns it took): warm-up and [`calibrate`] each case, take `plan.samples` interleaved
/// rounds in shuffled order, then re-calibrate and re-sample, in rounds of their own, the cases
/// whose samples ran shorter than [`MIN_FILL`] of the target, up to [`MAX_RECALIBRATIONS`]
/// times; those still short are marked. `progress(done, total)` follows the first rounds.
pub fn measure(
    cases: usize,
    time: &mut dyn FnMut(usize, u64, Phase) -> f64,
    plan: &Plan,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<Measured> {
    let target = plan.target_ns;
    let mut cal: Vec<Calibrated> = Vec::with_capacity(cases);
    for i in 0..cases {
        // Warm-up: doubling batches (capped at the target's length) until the warm-up time is
        // spent (a bounded number of timings, should the source report no time at all).
        let (mut spent, mut n) = (0.0, 1u64);
        for _ in 0..100_000 {
            if spent >= plan.warmup_ns {
                break;
            }
            let t = time(i, n, Phase::Calibrate);
            spent += t;
            if t < target && n < MAX_ITERS {
                n *= 2;
            }
        }
        cal.push(calibrate(&mut |n| time(i, n, Phase::Calibrate), target));
    }
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(plan.samples); cases];
    let mut rng = Rng::new(plan.seed);
    let all: Vec<usize> = (0..cases).collect();
    rounds(time, &all, &cal, &mut samples, plan.samples, &mut rng, progress);
    let mut recalibrations = vec![0u32; cases];
    for _ in 0..MAX_RECALIBRATIONS {
        let short: Vec<usize> =
            all.iter().copied().filter(|&i| fill(cal[i].iters, &samples[i], target) < MIN_FILL).collect();
        if short.is_empty() {
            break;
        }
        for &i in &short {
            recalibrations[i] += 1;
            samples[i].clear();
            cal[i] = calibrate(&mut |n| time(i, n, Phase::Calibrate), target);
        }
        rounds(time, &short, &cal, &mut samples, plan.samples, &mut rng, &mut |_, _| {});
    }
    (0..cases)
        .map(|i| {
            let f = fill(cal[i].iters, &samples[i], target);
            Measured {
                iters: cal[i].iters,
                calibration: Calibration {
                    timings: cal[i].timings,
                    per_op_ns: cal[i].per_op_ns,
                    recalibrations: recalibrations[i],
                    fill: f,
                },
                short: f < MIN_FILL,
                samples_ns: std::mem::take(&mut samples[i]),
            }
        })
        .collect()
}

/// `count` rounds over the cases `which`, each in a freshly shuffled order.
fn rounds(
    time: &mut dyn FnMut(usize, u64, Phase) -> f64,
    which: &[usize],
    cal: &[Calibrated],
    samples: &mut [Vec<f64>],
    count: usize,
    rng: &mut Rng,
    progress: &mut dyn FnMut(usize, usize),
) {
    let mut order = which.to_vec();
    for round in 0..count {
        rng.shuffle(&mut order);
        for &i in &order {
            let t = time(i, cal[i].iters, Phase::Sample);
            samples[i].push(t / cal[i].iters as f64);
        }
        progress(round + 1, count);
    }
}

/// One operation timed on its own, the way [`run`] times a case.
#[derive(Clone, Debug)]
pub struct Estimate {
    pub iters_per_sample: u64,
    /// Time per operation, ns: median, bootstrap 95 % CI of the median, spread, outliers.
    pub ns_per_op: Summary,
    pub samples_ns: Vec<f64>,
    pub calibration: Calibration,
    /// The samples stayed shorter than half the target even after re-calibrating: the figure is unreliable.
    pub short: bool,
}

impl Plan {
    /// A plan for [`time_op`]: `samples` samples of at least `target_ns` (and at least 100×
    /// the clock's step), 10 ms warm-up.
    pub fn for_op(samples: usize, target_ns: f64) -> Plan {
        static STEP: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
        let step = *STEP.get_or_init(|| crate::timer::clock().0);
        Plan { samples, target_ns: target_ns.max(100.0 * step), warmup_ns: 10e6, seed: 1 }
    }
}

/// Time one operation (`f(n)` runs it n times) with the speed engine: warm-up, robust
/// calibration, `plan.samples` samples spread over stack depths, the re-check and re-sampling
/// of short samples, and the statistics.
pub fn time_op(f: &mut dyn FnMut(u64), plan: &Plan) -> Estimate {
    let mut source = |_: usize, n: u64, phase: Phase| match phase {
        Phase::Calibrate => time(f, n),
        Phase::Sample => time_spread(f, n),
    };
    let m = measure(1, &mut source, plan, &mut |_, _| {}).pop().expect("one case measured");
    Estimate {
        iters_per_sample: m.iters,
        ns_per_op: summarize(&m.samples_ns, plan.seed),
        samples_ns: m.samples_ns,
        calibration: m.calibration,
        short: m.short,
    }
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
    let plan = Plan { samples: cfg.samples, target_ns: target, warmup_ns: cfg.warmup_ms * 1e6, seed: cfg.seed };
    let count = cases.len();
    let mut source = |i: usize, n: u64, phase: Phase| match phase {
        Phase::Calibrate => time(&mut cases[i].run, n),
        Phase::Sample => time_spread(&mut cases[i].run, n),
    };
    let mut measured = measure(count, &mut source, &plan, progress);
    let reference = measured.pop().expect("the host reference was measured");
    let samples: Vec<Vec<f64>> = measured.iter_mut().map(|m| std::mem::take(&mut m.samples_ns)).collect();
    cases.pop();
    let host_reference = HostReference {
        workload: HOST_REFERENCE_WORKLOAD.into(),
        iters_per_sample: reference.iters,
        ns_per_op: summarize(&reference.samples_ns, cfg.seed ^ 0x4f57),
        samples_ns: reference.samples_ns,
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
        let m = &measured[i];
        if m.short {
            warnings.push(format!(
                "short: {} iterations x median {:.0} ns = {:.0}% of the {:.0} µs target sample after {} re-calibrations; \
                 the figure times the clock and a cold call too, and compare does not judge it; rerun on an idle machine, or compare --instructions",
                m.iters,
                summary.median,
                m.calibration.fill * 100.0,
                target / 1000.0,
                m.calibration.recalibrations
            ));
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
            iters_per_sample: m.iters,
            ns_per_op: summary,
            samples_ns: samples[i].clone(),
            ratio_to_baseline: None,
            ratio_ci95: None,
            allocs_per_op: allocs[i].map(|a| a.allocs_per_op),
            alloc_bytes_per_op: allocs[i].map(|a| a.bytes_per_op),
            instructions_per_op: None,
            warnings,
            short: m.short,
            calibration: Some(m.calibration.clone()),
        });
    }
    // Ratios to the baseline codec (same payload and operation; same path when it has one).
    for i in 0..out.len() {
        let base = out
            .iter()
            .position(|b| {
                b.codec == cfg.baseline && b.payload == out[i].payload && b.op == out[i].op && b.path == out[i].path
            })
            .or_else(|| {
                out.iter().position(|b| b.codec == cfg.baseline && b.payload == out[i].payload && b.op == out[i].op)
            });
        if let Some(b) = base {
            let r = out[i].ns_per_op.median / out[b].ns_per_op.median;
            let ci = ratio_ci(&samples[i], &samples[b], cfg.seed.wrapping_add(i as u64));
            out[i].ratio_to_baseline = Some(r);
            out[i].ratio_ci95 = Some(ci);
        }
    }
    let mut warnings = Vec::new();
    if timer.precision_ns > 100.0 {
        warnings
            .push(format!("coarse clock: {:.0} ns steps; samples were lengthened to compensate", timer.precision_ns));
    }
    let noisy = out.iter().filter(|c| robust_cv(&c.ns_per_op) > NOISY_CV).count();
    if noisy * 10 > out.len() {
        warnings.push(format!(
            "{noisy} of {} cases are noisy (robust spread > {:.0}%): the machine is busy; figures may shift between runs",
            out.len(),
            NOISY_CV * 100.0
        ));
    }
    let short: Vec<String> =
        out.iter().filter(|c| c.short).map(|c| format!("{} / {} / {}", c.payload, c.codec, c.op)).collect();
    if !short.is_empty() {
        warnings.push(format!(
            "{} of {} cases ran short (iterations x median below half the target sample) even after re-calibrating: marked ! in the tables, unreliable, not judged by compare: {}{}",
            short.len(),
            out.len(),
            short.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
            if short.len() > 5 { ", …" } else { "" }
        ));
    }
    if reference.short {
        warnings.push(format!(
            "the host reference ran short ({:.0}% of the target sample): its figure does not tell this host's speed",
            reference.calibration.fill * 100.0
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

    /// A fake clock: `per_op` ns per operation, plus `spike` ns on the timings whose (0-based)
    /// index is in `spikes`; it records every n it was asked for.
    struct FakeClock {
        per_op: f64,
        spike: f64,
        spikes: Vec<usize>,
        calls: usize,
        asked: Vec<u64>,
    }

    impl FakeClock {
        fn new(per_op: f64, spike: f64, spikes: &[usize]) -> FakeClock {
            FakeClock { per_op, spike, spikes: spikes.to_vec(), calls: 0, asked: Vec::new() }
        }
        fn time(&mut self, n: u64) -> f64 {
            let t = n as f64 * self.per_op + if self.spikes.contains(&self.calls) { self.spike } else { 0.0 };
            self.calls += 1;
            self.asked.push(n);
            t
        }
    }

    #[test]
    fn one_long_timing_does_not_change_the_batch_size() {
        let target = 500_000.0;
        for per_op in [3.0, 225.0, 4_702.0, 90_000.0] {
            let mut quiet = FakeClock::new(per_op, 0.0, &[]);
            let want = calibrate(&mut |n| quiet.time(n), target);
            assert_eq!(want.iters, (target / per_op).ceil() as u64, "per_op {per_op}: {want:?}");
            assert_eq!(want.per_op_ns, per_op);
            // A preempted timing (10 ms) at every position the quiet calibration went through,
            // and one more past its end.
            for at in 0..=quiet.calls {
                let mut noisy = FakeClock::new(per_op, 10e6, &[at]);
                let got = calibrate(&mut |n| noisy.time(n), target);
                assert_eq!(
                    got.iters, want.iters,
                    "per_op {per_op}, long timing #{at}: {got:?} (asked {:?})",
                    noisy.asked
                );
                assert_eq!(got.per_op_ns, per_op, "per_op {per_op}, long timing #{at}");
            }
            // Two long timings in a row do not either (three would: that is the rule's limit).
            for at in 0..quiet.calls {
                let mut noisy = FakeClock::new(per_op, 10e6, &[at, at + 1]);
                assert_eq!(
                    calibrate(&mut |n| noisy.time(n), target).iters,
                    want.iters,
                    "per_op {per_op}, #{at}, #{}",
                    at + 1
                );
            }
        }
    }

    #[test]
    fn the_batch_size_comes_from_timings_that_crossed_the_target() {
        // The first timing of 1 operation is preempted past the target: the old rule (scale from
        // the first timing that crosses) would run 1 iteration per sample.
        let mut c = FakeClock::new(225.0, 600_000.0, &[0]);
        let got = calibrate(&mut |n| c.time(n), 500_000.0);
        assert_eq!(got.iters, 2223);
        // It needed three crossings in a row at the final n.
        let last = *c.asked.last().unwrap();
        assert!(c.asked.iter().rev().take(CALIBRATION_CROSSINGS).all(|&n| n == last), "{:?}", c.asked);
        assert!(last as f64 * 225.0 >= 500_000.0);
        assert_eq!(got.timings as usize, c.calls);
    }

    /// Runs `time(i, n, phase)` for [`measure`]: case i costs `per_op[i]` ns per operation;
    /// calibration timings of case 0 cost `calibration_factor` times as much while `slow_calibrations`
    /// calibrations remain (a machine busy exactly while that case calibrated).
    fn measured(per_op: &[f64], calibration_factor: f64, slow_calibrations: usize) -> Vec<Measured> {
        let plan = Plan { samples: 31, target_ns: 100_000.0, warmup_ns: 1e6, seed: 9 };
        // Calibration timings of case 0 by calibration: count the Calibrate->Sample switches.
        let mut calibrations_of_0 = 0usize;
        let mut last_phase_of_0 = Phase::Sample;
        let mut time = |i: usize, n: u64, phase: Phase| {
            let mut per = per_op[i];
            if i == 0 {
                if phase == Phase::Calibrate && last_phase_of_0 == Phase::Sample {
                    calibrations_of_0 += 1;
                }
                last_phase_of_0 = phase;
                if phase == Phase::Calibrate && calibrations_of_0 <= slow_calibrations {
                    per *= calibration_factor;
                }
            }
            n as f64 * per
        };
        measure(per_op.len(), &mut time, &plan, &mut |_, _| {})
    }

    #[test]
    fn a_case_whose_samples_ran_short_is_recalibrated_and_resampled() {
        // Case 0's calibration ran 10x slow (every timing, so no rule could see it): its samples
        // last a tenth of the target. The re-check finds it; the second calibration is quiet.
        let m = measured(&[200.0, 300.0], 10.0, 1);
        assert_eq!(m[0].calibration.recalibrations, 1, "{:?}", m[0]);
        assert!(!m[0].short);
        assert_eq!(m[0].iters, 500);
        assert_eq!(m[0].samples_ns.len(), 31, "the short samples are replaced, not kept");
        assert!(m[0].samples_ns.iter().all(|&x| x == 200.0));
        assert!((m[0].calibration.fill - 1.0).abs() < 1e-9, "{:?}", m[0].calibration);
        // The other case was left alone.
        assert_eq!(m[1].calibration.recalibrations, 0);
        assert_eq!(m[1].iters, 334);
    }

    #[test]
    fn a_case_still_short_after_recalibrating_is_marked() {
        let m = measured(&[200.0, 300.0], 10.0, 1 + MAX_RECALIBRATIONS as usize);
        assert!(m[0].short, "{:?}", m[0]);
        assert_eq!(m[0].calibration.recalibrations, MAX_RECALIBRATIONS);
        assert!((m[0].calibration.fill - 0.1).abs() < 1e-3, "{:?}", m[0].calibration);
        assert!(!m[1].short);
        // A calibration only 1.5x slow leaves samples at 2/3 of the target: long enough.
        let m = measured(&[200.0], 1.5, 10);
        assert!(!m[0].short && m[0].calibration.recalibrations == 0, "{:?}", m[0]);
    }

    #[test]
    fn time_op_estimates_one_operation() {
        let mut f = spin(300);
        let e = time_op(&mut f, &Plan { samples: 30, target_ns: 200_000.0, warmup_ns: 1e6, seed: 5 });
        assert_eq!(e.samples_ns.len(), 30);
        assert_eq!(e.ns_per_op.n, 30);
        assert!(e.iters_per_sample >= 1);
        assert!(e.ns_per_op.median > 0.0);
        assert!(e.ns_per_op.median_ci95.0 <= e.ns_per_op.median && e.ns_per_op.median <= e.ns_per_op.median_ci95.1);
        assert_eq!(e.short, e.calibration.fill < MIN_FILL);
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
        let cfg =
            SpeedConfig { samples: 30, target_sample_ns: 200_000.0, warmup_ms: 1.0, seed: 3, baseline: "a".into() };
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
        let cal = s.cases[0].calibration.as_ref().expect("calibration recorded");
        assert_eq!(s.cases[0].short, cal.fill < MIN_FILL);
        assert!(cal.timings >= CALIBRATION_CROSSINGS as u32 && cal.per_op_ns > 0.0, "{cal:?}");
    }
}
