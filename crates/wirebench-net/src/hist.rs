//! A latency histogram: an HDR histogram (the `hdrhistogram` crate, 3 significant digits:
//! values below 2,048 are kept exactly, larger ones in buckets at most 1/1024 of their value
//! wide, up to 2^44 ns ≈ 4.9 h; larger values are clamped), plus the exact count, sum, sum of
//! squares, minimum and maximum, so that the mean, the standard deviation and the extremes are
//! exact and only percentiles are bucketed. Mergeable: per-connection or per-thread histograms
//! are pooled by [`Histogram::merge`].

use crate::NetError;

/// The highest value the buckets track (2^44 ns ≈ 4.9 h); larger values count in the top one.
const MAX_TRACKED: u64 = 1 << 44;

/// A histogram of non-negative integer values (nanoseconds, in this crate).
#[derive(Clone)]
pub struct Histogram {
    hdr: hdrhistogram::Histogram<u64>,
    n: u64,
    min: u64,
    max: u64,
    sum: u128,
    sum_sq: f64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Histogram {{ n: {}, min: {}, max: {} }}", self.n, self.min, self.max)
    }
}

impl Histogram {
    pub fn new() -> Histogram {
        Histogram {
            // Static, valid bounds (1 ≤ low, 2·low ≤ high, sigfig ≤ 5): this cannot fail.
            hdr: hdrhistogram::Histogram::new_with_bounds(1, MAX_TRACKED, 3).expect("valid static histogram bounds"),
            n: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            sum_sq: 0.0,
        }
    }

    pub fn record(&mut self, v: u64) {
        self.hdr.saturating_record(v);
        self.n += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.sum += v as u128;
        self.sum_sq += (v as f64) * (v as f64);
    }

    pub fn record_duration(&mut self, d: std::time::Duration) {
        self.record(d.as_nanos().min(u64::MAX as u128) as u64);
    }

    /// Pool `other` into this histogram.
    pub fn merge(&mut self, other: &Histogram) -> Result<(), NetError> {
        self.hdr
            .add(&other.hdr)
            .map_err(|e| NetError::invalid("histogram", format!("cannot merge histograms: {e:?}")))?;
        self.n += other.n;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
        Ok(())
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn min(&self) -> Option<u64> {
        (self.n > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<u64> {
        (self.n > 0).then_some(self.max)
    }

    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / self.n as f64)
    }

    /// Population standard deviation.
    pub fn stddev(&self) -> Option<f64> {
        let m = self.mean()?;
        Some((self.sum_sq / self.n as f64 - m * m).max(0.0).sqrt())
    }

    /// The value at quantile `q` in [0, 1]: the midpoint of the bucket holding the
    /// ⌈q·n⌉-th smallest value, clamped to the recorded min and max.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.n == 0 {
            return None;
        }
        let q = q.clamp(0.0, 1.0);
        // The bucket's highest value for q > 0 (its lowest for q = 0); its midpoint either way.
        let at = self.hdr.value_at_quantile(q);
        Some(self.hdr.median_equivalent(at).clamp(self.min, self.max))
    }

    /// The usual summary, converted from nanoseconds to microseconds.
    pub fn summary_us(&self) -> LatencySummary {
        let us = |v: Option<u64>| v.map(|v| v as f64 / 1e3);
        LatencySummary {
            count: self.n,
            mean_us: self.mean().map(|m| m / 1e3),
            stddev_us: self.stddev().map(|s| s / 1e3),
            min_us: us(self.min()),
            p50_us: us(self.quantile(0.50)),
            p90_us: us(self.quantile(0.90)),
            p99_us: us(self.quantile(0.99)),
            p999_us: us(self.quantile(0.999)),
            max_us: us(self.max()),
        }
    }
}

pub use wirebench_core::sections::net::LatencySummary;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::new();
        for v in [0u64, 1, 7, 255, 2047] {
            h.record(v);
        }
        assert_eq!(h.quantile(0.0), Some(0));
        assert_eq!(h.quantile(0.4), Some(1));
        assert_eq!(h.quantile(0.6), Some(7));
        assert_eq!(h.quantile(0.8), Some(255));
        assert_eq!(h.quantile(1.0), Some(2047));
    }

    #[test]
    fn quantiles_within_one_percent() {
        let mut h = Histogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for (q, want) in [(0.5, 50_000_000.0), (0.9, 90_000_000.0), (0.99, 99_000_000.0)] {
            let got = h.quantile(q).unwrap() as f64;
            assert!((got / want - 1.0).abs() < 0.001, "q{q}: {got} vs {want}");
        }
        assert_eq!(h.min(), Some(1000));
        assert_eq!(h.max(), Some(100_000_000));
        assert!((h.mean().unwrap() - 50_000_500.0).abs() < 1e-6);
        let mut g = Histogram::new();
        g.record(5);
        g.merge(&h).unwrap();
        assert_eq!(g.count(), 100_001);
        assert_eq!(g.min(), Some(5));
        assert_eq!(g.quantile(0.0), Some(5));
        assert_eq!(Histogram::new().quantile(0.5), None);
        let mut big = Histogram::new();
        big.record(u64::MAX);
        assert_eq!(big.quantile(1.0), Some(u64::MAX));
        assert_eq!(big.quantile(0.5), Some(u64::MAX));
    }
}
