//! Latency statistics from an HDR histogram (hdrhistogram crate: 3 significant digits,
//! 1 ns .. 120 s), and the CDF of raw samples.

use hdrhistogram::Histogram;

/// Percentiles and moments of a set of latencies (the type the `mqtt` results section holds).
pub use wirebench_core::sections::mqtt::LatencyStats;

/// Highest latency the histogram tracks; larger values are clamped to it.
pub const MAX_TRACKED_NS: u64 = 120_000_000_000;

/// A new histogram for latencies in nanoseconds.
pub(crate) fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_TRACKED_NS, 3).expect("valid static histogram bounds")
}

/// Percentiles and moments of the latencies in a histogram (relative error ≤ 0.1 %); all zero
/// for an empty one.
pub(crate) fn latency_of_histogram(h: &Histogram<u64>) -> LatencyStats {
    if h.is_empty() {
        return LatencyStats::default();
    }
    let us = |ns: u64| ns as f64 / 1e3;
    LatencyStats {
        count: h.len(),
        min_us: us(h.min()),
        p50_us: us(h.value_at_quantile(0.5)),
        p90_us: us(h.value_at_quantile(0.9)),
        p99_us: us(h.value_at_quantile(0.99)),
        p999_us: us(h.value_at_quantile(0.999)),
        max_us: us(h.max()),
        mean_us: h.mean() / 1e3,
        stddev_us: h.stdev() / 1e3,
    }
}

/// Statistics of raw latency samples (ns), through the same histogram as every run's.
pub fn latency_stats(samples_ns: &[u64]) -> LatencyStats {
    let mut h = new_histogram();
    for &s in samples_ns {
        h.saturating_record(s.max(1));
    }
    latency_of_histogram(&h)
}

/// The CDF of latency samples (ns) in µs, rounded to 1 ns: (µs, % of samples ≤ it) at 0, 1,
/// …, 100 % and at 99.5 and 99.9 %, each point the nearest-rank sample (the smallest sample
/// with at least that share of the samples at or below it; 0 % is the minimum). Empty for no
/// samples.
pub fn cdf_us(samples_ns: &[u64]) -> Vec<(f64, f64)> {
    let us: Vec<f64> = samples_ns.iter().map(|&s| s as f64 / 1e3).collect();
    wirebench_measure::stats::cdf_percentiles(&us).into_iter().map(|(x, p)| (round3(x), p)).collect()
}

fn round3(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}

/// Median of a slice (mean of the two middle values for even lengths; non-finite values left
/// out); `NaN` when empty. `wirebench_measure::stats::median_finite`.
pub(crate) fn median(values: &[f64]) -> f64 {
    wirebench_measure::stats::median_finite(values.iter().copied()).unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_known_samples() {
        let samples: Vec<u64> = (1..=1000).map(|i| i * 1000).collect(); // 1..1000 µs
        let s = latency_stats(&samples);
        assert_eq!(s.count, 1000);
        assert!((s.p50_us - 500.0).abs() <= 0.5, "{s:?}");
        assert!((s.p99_us - 990.0).abs() <= 1.0, "{s:?}");
        assert!((s.max_us - 1000.0).abs() <= 1.0, "{s:?}");
        assert!((s.mean_us - 500.5).abs() <= 0.5, "{s:?}");
        assert_eq!(latency_stats(&[]), LatencyStats::default());
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn cdf_has_ends_and_tail() {
        let s: Vec<u64> = (1..=1000).map(|i| i * 1000).collect();
        let c = cdf_us(&s);
        assert_eq!(c.len(), 103);
        assert_eq!(c.first(), Some(&(1.0, 0.0)));
        assert_eq!(c.last(), Some(&(1000.0, 100.0)));
        assert!(c.contains(&(999.0, 99.9)));
        assert!(c.contains(&(500.0, 50.0)));
        assert!(cdf_us(&[]).is_empty());
        // Rounded to the nanosecond; one sample is every point.
        let one = cdf_us(&[1234]);
        assert_eq!(one.len(), 103);
        assert!(one.iter().all(|&(us, _)| us == 1.234));
    }
}
