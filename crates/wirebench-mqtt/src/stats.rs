//! Latency statistics from an HDR histogram (hdrhistogram crate: 3 significant digits,
//! 1 ns .. 120 s).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Highest latency the histogram tracks; larger values are clamped to it.
pub const MAX_TRACKED_NS: u64 = 120_000_000_000;

/// A new histogram for latencies in nanoseconds.
pub(crate) fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_TRACKED_NS, 3).expect("valid static histogram bounds")
}

/// Percentiles and moments of a set of latencies, in microseconds. Percentiles come from the
/// histogram (relative error ≤ 0.1 %).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    pub count: u64,
    pub min_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
    pub mean_us: f64,
    pub stddev_us: f64,
}

impl LatencyStats {
    pub(crate) fn from_histogram(h: &Histogram<u64>) -> LatencyStats {
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

    /// Statistics of raw samples (ns), through the same histogram.
    pub fn from_samples_ns(samples: &[u64]) -> LatencyStats {
        let mut h = new_histogram();
        for &s in samples {
            h.saturating_record(s.max(1));
        }
        LatencyStats::from_histogram(&h)
    }
}

/// Median of a slice (mean of the two middle values for even lengths); `NaN` when empty.
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_known_samples() {
        let samples: Vec<u64> = (1..=1000).map(|i| i * 1000).collect(); // 1..1000 µs
        let s = LatencyStats::from_samples_ns(&samples);
        assert_eq!(s.count, 1000);
        assert!((s.p50_us - 500.0).abs() <= 0.5, "{s:?}");
        assert!((s.p99_us - 990.0).abs() <= 1.0, "{s:?}");
        assert!((s.max_us - 1000.0).abs() <= 1.0, "{s:?}");
        assert!((s.mean_us - 500.5).abs() <= 0.5, "{s:?}");
        assert_eq!(LatencyStats::from_samples_ns(&[]), LatencyStats::default());
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
