//! Pooled latency statistics: every half round trip of a run in one sorted sample set (not
//! per-window percentiles averaged, which is what makes the seed's percentiles non-monotonic).
//!
//! Not `wirebench_measure::stats`: its quantile interpolates between closest ranks and its
//! summary is median/MAD/bootstrap; these percentiles are nearest-rank (every value reported is
//! a measured round trip, like ddsperf's), with the mean and sample standard deviation the seed
//! printed, and a CDF for the charts.

pub use wirebench_core::sections::dds::PooledSummary;

/// Nearest-rank percentile of sorted data (`q` in 0..=1).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Nearest-rank median of unsorted data (NaN when empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    percentile(&v, 0.5)
}

/// Summarize `values` (sorted in place).
pub fn summarize(values: &mut [f64]) -> PooledSummary {
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    if n == 0 {
        return PooledSummary::default();
    }
    let avg = values.iter().sum::<f64>() / n as f64;
    let var = if n > 1 { values.iter().map(|v| (v - avg) * (v - avg)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
    PooledSummary {
        count: n as u64,
        avg,
        stddev: var.sqrt(),
        min: values[0],
        p50: percentile(values, 0.50),
        p90: percentile(values, 0.90),
        p99: percentile(values, 0.99),
        max: values[n - 1],
    }
}

/// At most `points` (value, cumulative fraction) pairs of sorted data: evenly spaced quantiles
/// plus the minimum and maximum, for a CDF chart.
pub fn cdf(sorted: &[f64], points: usize) -> Vec<(f64, f64)> {
    let n = sorted.len();
    if n == 0 || points < 2 {
        return Vec::new();
    }
    let k = points.min(n);
    let mut out = Vec::with_capacity(k);
    for i in 0..k {
        let idx = if k == 1 { n - 1 } else { i * (n - 1) / (k - 1) };
        out.push((sorted[idx], (idx + 1) as f64 / n as f64));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_pooled_and_monotonic() {
        let mut v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let s = summarize(&mut v);
        assert_eq!(s.count, 100);
        assert_eq!((s.min, s.p50, s.p90, s.p99, s.max), (1.0, 50.0, 90.0, 99.0, 100.0));
        assert!((s.avg - 50.5).abs() < 1e-12);
        assert!((s.stddev - 29.011_491_975_882_016).abs() < 1e-9);
        assert!(s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.max);
        assert_eq!(summarize(&mut []).count, 0);
    }

    #[test]
    fn median_is_nearest_rank() {
        // Of an even count the lower middle value (a measured one), not the mean of the two.
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.0);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert!(median(vec![]).is_nan());
    }

    #[test]
    fn cdf_ends_at_one() {
        let v: Vec<f64> = (0..1000).map(f64::from).collect();
        let c = cdf(&v, 50);
        assert_eq!(c.len(), 50);
        assert_eq!(c[0], (0.0, 0.001));
        assert_eq!(*c.last().unwrap(), (999.0, 1.0));
        assert!(c.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
    }
}
