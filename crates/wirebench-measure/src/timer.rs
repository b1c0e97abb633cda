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
