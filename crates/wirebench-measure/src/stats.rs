//! Sample statistics: location, spread, bootstrap confidence intervals and Tukey outliers.
//!
//! Everything here is deterministic for a given seed (the bootstrap draws from [`crate::rng::Rng`]).

pub use crate::rng::Rng;

pub use wirebench_core::results::{Outliers, Summary};

/// The `q` quantile (0..=1) of sorted data, linear interpolation between closest ranks.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = pos.floor() as usize;
            let hi = pos.ceil() as usize;
            sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
        }
    }
}

fn sorted(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v
}

pub fn median(xs: &[f64]) -> f64 {
    quantile_sorted(&sorted(xs), 0.5)
}

/// Number of bootstrap resamples.
pub const BOOTSTRAP_RESAMPLES: usize = 1000;

/// Bootstrap 95 % CI of a statistic of one sample set.
pub fn bootstrap_ci(xs: &[f64], stat: impl Fn(&mut [f64]) -> f64, seed: u64) -> (f64, f64) {
    if xs.len() < 2 {
        let v = xs.first().copied().unwrap_or(f64::NAN);
        return (v, v);
    }
    let mut rng = Rng::new(seed);
    let mut buf = vec![0.0; xs.len()];
    let mut stats = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        for b in buf.iter_mut() {
            *b = xs[rng.below(xs.len())];
        }
        stats.push(stat(&mut buf));
    }
    stats.sort_by(|a, b| a.total_cmp(b));
    (quantile_sorted(&stats, 0.025), quantile_sorted(&stats, 0.975))
}

fn median_in_place(buf: &mut [f64]) -> f64 {
    buf.sort_unstable_by(|a, b| a.total_cmp(b));
    quantile_sorted(buf, 0.5)
}

/// Bootstrap 95 % CI of the ratio of medians `a / b` (both resampled independently).
pub fn ratio_ci(a: &[f64], b: &[f64], seed: u64) -> (f64, f64) {
    if a.is_empty() || b.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mut rng = Rng::new(seed);
    let (mut ba, mut bb) = (vec![0.0; a.len()], vec![0.0; b.len()]);
    let mut stats = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        for x in ba.iter_mut() {
            *x = a[rng.below(a.len())];
        }
        for x in bb.iter_mut() {
            *x = b[rng.below(b.len())];
        }
        stats.push(median_in_place(&mut ba) / median_in_place(&mut bb));
    }
    stats.sort_by(|x, y| x.total_cmp(y));
    (quantile_sorted(&stats, 0.025), quantile_sorted(&stats, 0.975))
}

/// A distribution-free confidence interval for the median of a few values (repetitions of a
/// run): `[x(k), x(n+1−k)]` of the sorted finite values, with the largest `k` whose coverage
/// `1 − 2·P(Bin(n, ½) < k)` is at least `level` (exact for independent draws of any continuous
/// distribution; the bootstrap's percentile interval is too narrow at such small n).
/// `Some((lo, hi, coverage))`, or `None` when even `[min, max]` covers less than `level`
/// (fewer than 6 values for 95 %).
pub fn median_ci_order(values: &[f64], level: f64) -> Option<(f64, f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        return None;
    }
    // below[j] = P(Bin(n, ½) ≤ j), from the terms C(n, i)·2^−n computed in log space.
    let mut ln_term = -(n as f64) * std::f64::consts::LN_2;
    let mut below = Vec::with_capacity(n / 2 + 1);
    let mut acc = 0.0;
    for i in 0..=n / 2 {
        acc += ln_term.exp();
        below.push(acc);
        ln_term += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
    }
    // k = 1 is [min, max]; a larger k is narrower, covering 1 − 2·P(X ≤ k − 1).
    let mut best = None;
    for k in 1..=n.div_ceil(2) {
        let coverage = 1.0 - 2.0 * below[k - 1];
        if coverage + 1e-12 < level {
            break;
        }
        best = Some((v[k - 1], v[n - k], coverage));
    }
    best
}

/// Summarize samples; `seed` drives the bootstrap.
pub fn summarize(xs: &[f64], seed: u64) -> Summary {
    let n = xs.len();
    if n == 0 {
        return Summary::default();
    }
    let s = sorted(xs);
    let mean = s.iter().sum::<f64>() / n as f64;
    let var = if n > 1 { s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
    let med = quantile_sorted(&s, 0.5);
    let mut dev: Vec<f64> = s.iter().map(|x| (x - med).abs()).collect();
    dev.sort_by(|a, b| a.total_cmp(b));
    let (q1, q3) = (quantile_sorted(&s, 0.25), quantile_sorted(&s, 0.75));
    let iqr = q3 - q1;
    let mut outliers = Outliers::default();
    for &x in &s {
        if x < q1 - 3.0 * iqr {
            outliers.low_severe += 1;
        } else if x < q1 - 1.5 * iqr {
            outliers.low_mild += 1;
        } else if x > q3 + 3.0 * iqr {
            outliers.high_severe += 1;
        } else if x > q3 + 1.5 * iqr {
            outliers.high_mild += 1;
        }
    }
    Summary {
        n,
        median: med,
        mean,
        stddev: var.sqrt(),
        mad: quantile_sorted(&dev, 0.5),
        min: s[0],
        max: s[n - 1],
        median_ci95: bootstrap_ci(xs, median_in_place, seed),
        outliers,
    }
}

/// Points of an empirical CDF in percent (at most `max_points` of them, taken at evenly spaced
/// ranks so that the shape is kept; the minimum and maximum are always included): (value, % of
/// samples at or below it). Non-finite samples are left out.
pub fn cdf_points(samples: &[f64], max_points: usize) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        return Vec::new();
    }
    let m = max_points.max(2).min(n);
    let mut out = Vec::with_capacity(m);
    for k in 0..m {
        let i = if m == n { k } else { (k * (n - 1)) / (m - 1) };
        out.push((v[i], (i + 1) as f64 * 100.0 / n as f64));
    }
    out
}

/// Nearest-rank percentile of sorted data (`q` in 0..=1): always a measured value, never an
/// interpolation (the convention of ddsperf and of the DDS seed); NaN for no data.
pub fn percentile_nearest_rank(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Nearest-rank median of unsorted data: of an even count the lower middle value (a measured
/// one), not the mean of the two; NaN for no data.
pub fn median_nearest_rank(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    percentile_nearest_rank(&v, 0.5)
}

/// The CDF at fixed percentiles (0, 1, …, 100 % and 99.5, 99.9 %): (value, percent), each
/// point the nearest-rank sample (the smallest sample with at least that share of the samples
/// at or below it; 0 % is the minimum). Values are taken as given; empty for no samples.
pub fn cdf_percentiles(samples: &[f64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = samples.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return Vec::new();
    }
    let mut pcts: Vec<f64> = (0..=100).map(f64::from).collect();
    pcts.extend([99.5, 99.9]);
    pcts.sort_by(|a, b| a.total_cmp(b));
    pcts.iter()
        .map(|&p| {
            let rank = ((p / 100.0) * v.len() as f64 - 1e-9).ceil().max(1.0) as usize;
            (v[rank.min(v.len()) - 1], p)
        })
        .collect()
}

/// Geometric mean of the positive finite values; `None` when there is none.
pub fn geomean_positive(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let v: Vec<f64> = xs.filter(|x| *x > 0.0 && x.is_finite()).collect();
    (!v.is_empty()).then(|| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
}

/// The median of the finite values, `None` when there is none; of an even count, the mean of
/// the middle two as `(a + b) / 2` (the arithmetic the DDS figures have always used, so figures
/// derived again from older files are the same bits).
pub fn median_finite(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// Arithmetic mean of the finite values; `None` when there is none.
pub fn mean_finite(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let v: Vec<f64> = xs.filter(|x| x.is_finite()).collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Geometric mean of positive values (NaN if any is not positive).
pub fn geomean(xs: &[f64]) -> f64 {
    if xs.is_empty() || xs.iter().any(|x| *x <= 0.0 || !x.is_finite()) {
        return f64::NAN;
    }
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_finite_skips_non_finite_and_averages_the_middle_two() {
        assert_eq!(median_finite([3.0, 1.0, 2.0].into_iter()), Some(2.0));
        assert_eq!(median_finite([4.0, 1.0, f64::NAN].into_iter()), Some(2.5));
        assert_eq!(median_finite([f64::INFINITY].into_iter()), None);
        assert_eq!(median_finite(std::iter::empty()), None);
    }

    #[test]
    fn nearest_rank_median_and_percentiles_are_measured_values() {
        assert_eq!(median_nearest_rank(vec![4.0, 1.0, 3.0, 2.0]), 2.0);
        assert_eq!(median_nearest_rank(vec![3.0, 1.0, 2.0]), 2.0);
        assert!(median_nearest_rank(vec![]).is_nan());
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile_nearest_rank(&v, 0.9), 90.0);
        assert_eq!(percentile_nearest_rank(&v, 0.0), 1.0);
    }

    #[test]
    fn cdf_points_keep_ends() {
        let s: Vec<f64> = (0..1000).rev().map(|i| i as f64).collect();
        let p = cdf_points(&s, 11);
        assert_eq!(p.len(), 11);
        assert_eq!(p[0], (0.0, 0.1));
        assert_eq!(p[10], (999.0, 100.0));
    }

    #[test]
    fn cdf_percentiles_are_nearest_rank() {
        let s: Vec<f64> = (1..=200).map(f64::from).collect();
        let p = cdf_percentiles(&s);
        assert_eq!(p.len(), 103);
        assert_eq!(p[0], (1.0, 0.0));
        assert_eq!(p[50], (100.0, 50.0));
        assert!(p.contains(&(199.0, 99.5)) && p.contains(&(200.0, 99.9)));
        assert_eq!(*p.last().unwrap(), (200.0, 100.0));
        assert!(cdf_percentiles(&[]).is_empty());
    }

    #[test]
    fn summary_of_known_data() {
        let xs = [1.0, 2.0, 3.0, 4.0, 100.0];
        let s = summarize(&xs, 1);
        assert_eq!((s.n, s.median, s.min, s.max), (5, 3.0, 1.0, 100.0));
        assert_eq!(s.mean, 22.0);
        assert_eq!(s.mad, 1.0);
        // q1 = 2, q3 = 4, iqr = 2: 100 is beyond q3 + 3·iqr.
        assert_eq!(s.outliers, Outliers { high_severe: 1, ..Default::default() });
        assert!((s.stddev - 43.617_656_975).abs() < 1e-6, "{}", s.stddev);
        assert!(s.median_ci95.0 <= 3.0 && s.median_ci95.1 >= 3.0);
    }

    #[test]
    fn bootstrap_is_deterministic_and_covers() {
        let xs: Vec<f64> = (0..50).map(|i| 100.0 + (i % 7) as f64).collect();
        let a = bootstrap_ci(&xs, median_in_place, 7);
        assert_eq!(a, bootstrap_ci(&xs, median_in_place, 7));
        assert!(a.0 <= median(&xs) && median(&xs) <= a.1);
        let r = ratio_ci(&xs, &xs.iter().map(|x| x * 2.0).collect::<Vec<_>>(), 3);
        assert!(r.0 <= 0.5 && 0.5 <= r.1, "{r:?}");
    }

    #[test]
    fn median_ci_order_takes_the_widest_needed_order_statistics() {
        // Fewer than 6 values cannot give 95 %: [min, max] of 5 covers 1 − 2/32 = 93.75 %.
        assert_eq!(median_ci_order(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95), None);
        let (lo, hi, c) = median_ci_order(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.9).unwrap();
        assert_eq!((lo, hi), (1.0, 5.0));
        assert!((c - 0.9375).abs() < 1e-12, "{c}");
        // 6..8 values: [min, max]; 9: [x(2), x(8)], covering 1 − 2·10/512.
        let six = [6.0, 1.0, 5.0, 2.0, 4.0, 3.0];
        let (lo, hi, c) = median_ci_order(&six, 0.95).unwrap();
        assert_eq!((lo, hi), (1.0, 6.0));
        assert!((c - (1.0 - 2.0 / 64.0)).abs() < 1e-12, "{c}");
        let nine: Vec<f64> = (1..=9).map(f64::from).collect();
        let (lo, hi, c) = median_ci_order(&nine, 0.95).unwrap();
        assert_eq!((lo, hi), (2.0, 8.0));
        assert!((c - (1.0 - 20.0 / 512.0)).abs() < 1e-12, "{c}");
        // Non-finite values are left out; 20 values: [x(6), x(15)] (coverage 95.86 %).
        let mut twenty: Vec<f64> = (1..=20).map(f64::from).collect();
        twenty.push(f64::NAN);
        let (lo, hi, c) = median_ci_order(&twenty, 0.95).unwrap();
        assert_eq!((lo, hi), (6.0, 15.0));
        assert!((0.95..0.97).contains(&c), "{c}");
        assert_eq!(median_ci_order(&[], 0.95), None);
    }

    #[test]
    fn shuffle_and_geomean() {
        let mut v: Vec<usize> = (0..100).collect();
        Rng::new(5).shuffle(&mut v);
        assert_ne!(v, (0..100).collect::<Vec<_>>());
        v.sort();
        assert_eq!(v, (0..100).collect::<Vec<_>>());
        assert!((geomean(&[1.0, 4.0]) - 2.0).abs() < 1e-12);
        assert!(geomean(&[1.0, 0.0]).is_nan());
    }
}
