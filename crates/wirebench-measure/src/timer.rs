//! The clock: its precision and the cost of reading it, measured rather than assumed.

use std::hint::black_box;
use std::time::Instant;

use wirebench_core::results::TimerInfo;

/// Smallest non-zero step of `Instant` and the cost of one reading, in ns.
pub fn clock() -> (f64, f64) {
    let mut min_step = f64::INFINITY;
    for _ in 0..10_000 {
        let a = Instant::now();
        let mut b = Instant::now();
        while b == a {
            b = Instant::now();
        }
        min_step = min_step.min((b - a).as_nanos() as f64);
    }
    const READS: u32 = 100_000;
    let start = Instant::now();
    for _ in 0..READS {
        black_box(Instant::now());
    }
    let overhead = start.elapsed().as_nanos() as f64 / READS as f64;
    (min_step, overhead)
}

/// Time `iters` calls of `f` (one sample), in ns.
#[inline(never)]
pub fn time(f: &mut dyn FnMut(u64), iters: u64) -> f64 {
    let start = Instant::now();
    f(iters);
    start.elapsed().as_nanos() as f64
}

/// Stack depths one sample is spread over (see [`time_spread`]).
pub const STACK_SPREAD: usize = 8;

/// Stack bytes one level of spreading takes (plus the frame's own): not a multiple of a
/// cache line, so the eight depths fall at different offsets within a page.
const LEVEL_PAD: usize = 472;

/// Time `iters` calls of `f` as one sample spread over [`STACK_SPREAD`] stack depths: the
/// calls are split into equal parts, each run below another depth of padding. The same code
/// can run at clearly different speeds depending on where its stack frames sit relative to
/// the data it touches (the address bits a load shares with a recent store decide whether the
/// CPU must wait), and ASLR draws those addresses anew in every process: a sample that
/// averages over eight depths gives the same median from one process to the next.
#[inline(never)]
pub fn time_spread(f: &mut dyn FnMut(u64), iters: u64) -> f64 {
    let parts = STACK_SPREAD as u64;
    let start = Instant::now();
    for k in 0..STACK_SPREAD {
        let n = iters / parts + u64::from((k as u64) < iters % parts);
        if n > 0 {
            at_depth(k, f, n);
        }
    }
    start.elapsed().as_nanos() as f64
}

/// Run `f(n)` `k` levels of padding further down the stack.
#[inline(never)]
fn at_depth(k: usize, f: &mut dyn FnMut(u64), n: u64) {
    let pad = [0u8; LEVEL_PAD];
    black_box(&pad);
    if k == 0 {
        f(n);
    } else {
        at_depth(k - 1, f, n);
    }
    // Used after the call too: the frame stays (no tail call turning the depth into a loop).
    black_box(&pad);
}

/// Clock facts plus the harness overhead per operation (an empty operation, timed like any case).
pub fn measure_timer() -> TimerInfo {
    let (precision_ns, now_overhead_ns) = clock();
    let mut empty = |iters: u64| {
        for i in 0..iters {
            black_box(i);
        }
    };
    let iters = 1_000_000;
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        best = best.min(time(&mut empty, iters) / iters as f64);
    }
    TimerInfo { precision_ns, now_overhead_ns, harness_overhead_ns_per_op: best }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_sample_runs_every_call_at_eight_stack_depths() {
        for iters in [1u64, 7, 8, 9, 1000] {
            let mut calls: Vec<(u64, usize)> = Vec::new();
            let mut f = |n: u64| {
                let here = 0u8;
                calls.push((n, black_box(&here) as *const u8 as usize));
            };
            time_spread(&mut f, iters);
            assert_eq!(calls.iter().map(|c| c.0).sum::<u64>(), iters, "{calls:?}");
            assert_eq!(calls.len() as u64, iters.min(STACK_SPREAD as u64));
            // Each part runs deeper than the one before, by at least the padding.
            for w in calls.windows(2) {
                assert!(w[0].1 >= w[1].1 + LEVEL_PAD, "{calls:x?}");
            }
        }
    }
}
