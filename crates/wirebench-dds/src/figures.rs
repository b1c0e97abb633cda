//! The figures per payload size of a DDS section: medians over rounds, ddsperf's figures for
//! the same payload, our CDR against ddsperf, and the seed's published rows in our units.
//! Computed when the part ends and stored in the section; [`complete`] adds them to files
//! written before they were stored.

use wirebench_core::sections::dds::*;
use wirebench_measure::stats::median_finite;

/// Compute the figures per payload size from the rows: for each size of
/// [`DdsSection::payload_sizes`], medians over rounds (non-finite values left out; of an even
/// count, the mean of the middle two), ratios, and the seed's published rows in µs, 10⁶ B/s and
/// samples/s. The part stores the result in `per_size` at measure time.
pub fn per_size(d: &DdsSection) -> Vec<SizeFigures> {
    let marshals = d.run_marshals();
    d.payload_sizes().into_iter().map(|size| figures_at(d, size, &marshals)).collect()
}

/// Add the figures to a section written before they were stored.
pub fn complete(d: &mut DdsSection) {
    if d.per_size.is_none() {
        d.per_size = Some(per_size(d));
    }
}

fn figures_at(d: &DdsSection, size: usize, marshals: &[Marshal]) -> SizeFigures {
    let lat = |m: Marshal| {
        median_finite(d.latency.iter().filter(|r| r.size == size && r.marshal == m).map(|r| r.half_rtt_us.p50))
    };
    let thr = |m: Marshal, f: &dyn Fn(&ThroughputResult) -> Option<f64>| {
        median_finite(d.throughput.iter().filter(|r| r.size == size && r.marshal == m).filter_map(f))
    };
    let sps = |m: Marshal| thr(m, &|r| r.steady_samples_per_s).or_else(|| thr(m, &|r| Some(r.samples_per_s)));
    let ours: Vec<OursFigures> = marshals
        .iter()
        .map(|&m| OursFigures {
            marshal: m,
            latency_p50_us: lat(m),
            mb_per_s: thr(m, &|r| Some(r.mb_per_s)),
            samples_per_s: sps(m),
        })
        .collect();
    let native_sps =
        median_finite(d.ddsperf_throughput.iter().filter(|r| r.payload_size() == size).map(|r| r.samples_per_s));
    let ddsperf = DdsperfFigures {
        latency_p50_us: median_finite(d.ddsperf_latency.iter().filter(|r| r.payload_size() == size).map(|r| r.p50)),
        samples_per_s: native_sps,
        mb_per_s: native_sps.map(|x| payload_mb(x, size)),
    };
    // Paired: each round ran ddsperf and ours side by side (in alternating order), so the
    // ratio is the median of the rounds' ratios, not a ratio of two medians (a host that
    // switches between latency modes would pair a fast run with a slow one).
    let (lat_pairs, thr_pairs) = paired_ratios(d, size, Marshal::Cdr);
    let ddsperf_steady = median_finite(
        d.ddsperf_throughput.iter().filter(|r| r.payload_size() == size).map(crate::ddsperf::steady_samples_per_s),
    );
    let cdr_over_ddsperf = Relative {
        latency_p50: median_finite(lat_pairs.iter().copied())
            .or_else(|| ratio(lat(Marshal::Cdr), ddsperf.latency_p50_us)),
        throughput: median_finite(thr_pairs.iter().copied()).or_else(|| ratio(sps(Marshal::Cdr), ddsperf_steady)),
    };
    let seed = SeedFigures {
        latency: d.published.latency_ms.iter().filter(|r| r.size == size).map(seed_latency).collect(),
        throughput: d.published.throughput.iter().filter(|r| r.size == size).map(seed_throughput).collect(),
    };
    let seed_lat = |m: &str| seed.latency_of(m).map(|r| r.p50_us);
    let seed_mb = |m: &str| seed.throughput_of(m).map(|r| r.mb_per_s);
    let seed_cdr_over_native = Relative {
        latency_p50: ratio(seed_lat(SEED_CDR), seed_lat(SEED_NATIVE)),
        throughput: ratio(seed_mb(SEED_CDR), seed_mb(SEED_NATIVE)),
    };
    let seed_json_over_cdr = Relative {
        latency_p50: ratio(seed_lat(SEED_JSON), seed_lat(SEED_CDR)),
        throughput: ratio(seed_mb(SEED_JSON), seed_mb(SEED_CDR)),
    };
    let interval = |v: &[f64]| {
        median_ci(v).map(|(_, lo, hi, coverage)| Interval {
            coverage,
            hi,
            lo,
            n: v.iter().filter(|x| x.is_finite()).count(),
        })
    };
    let cdr_over_ddsperf_interval =
        Some(RelativeInterval { latency_p50: interval(&lat_pairs), throughput: interval(&thr_pairs) })
            .filter(|i| i.latency_p50.is_some() || i.throughput.is_some());
    SizeFigures {
        size,
        ours,
        ddsperf,
        cdr_over_ddsperf,
        cdr_over_ddsperf_interval,
        seed,
        seed_cdr_over_native,
        seed_json_over_cdr,
    }
}

/// Ours with `marshal` ÷ ddsperf per round at one payload size, for the rounds that ran both,
/// in round order: (latency p50 ratios, steady-state throughput ratios). With CDR their medians
/// are [`SizeFigures::cdr_over_ddsperf`]; [`median_ci`] gives their spread. (With `raw` our
/// baggage is ddsperf's byte for byte: the same traffic, our code path alone.)
pub fn paired_ratios(d: &DdsSection, size: usize, marshal: Marshal) -> (Vec<f64>, Vec<f64>) {
    let mut rounds: Vec<u32> = d.latency.iter().map(|x| x.round).chain(d.throughput.iter().map(|x| x.round)).collect();
    rounds.sort_unstable();
    rounds.dedup();
    let lat = rounds.iter().filter_map(|&r| {
        let ours = d.latency.iter().find(|x| x.size == size && x.marshal == marshal && x.round == r)?;
        let theirs = d.ddsperf_latency.iter().find(|x| x.payload_size() == size && x.round == r)?;
        Some(ours.half_rtt_us.p50 / theirs.p50).filter(|x| x.is_finite())
    });
    let thr = rounds.iter().filter_map(|&r| {
        let ours = d.throughput.iter().find(|x| x.size == size && x.marshal == marshal && x.round == r)?;
        let theirs = d.ddsperf_throughput.iter().find(|x| x.payload_size() == size && x.round == r)?;
        Some(ours.steady_samples_per_s.unwrap_or(ours.samples_per_s) / crate::ddsperf::steady_samples_per_s(theirs))
            .filter(|x| x.is_finite())
    });
    (lat.collect(), thr.collect())
}

/// The median of a few paired ratios with a distribution-free interval: the order-statistic
/// interval with at least 95 % coverage when there are enough values (6 or more), else
/// `[min, max]` with the coverage it has (e.g. 93.75 % of 5). `(median, lo, hi, coverage)`.
pub fn median_ci(values: &[f64]) -> Option<(f64, f64, f64, f64)> {
    let med = median_finite(values.iter().copied())?;
    if let Some((lo, hi, cov)) = wirebench_measure::stats::median_ci_order(values, 0.95) {
        return Some((med, lo, hi, cov));
    }
    let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((med, lo, hi, 1.0 - 2.0 * 0.5f64.powi(finite.len() as i32)))
}

/// `a ÷ b` when both are there.
fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    a.zip(b).map(|(a, b)| a / b)
}

fn seed_latency(r: &PublishedLatency) -> SeedLatency {
    let us = |ms: f64| ms * 1000.0;
    SeedLatency {
        method: r.method.clone(),
        avg_us: us(r.avg_ms),
        std_us: us(r.std_ms),
        min_us: us(r.min_ms),
        max_us: us(r.max_ms),
        p50_us: us(r.p50_ms),
        p90_us: us(r.p90_ms),
        p99_us: us(r.p99_ms),
    }
}

fn seed_throughput(r: &PublishedThroughput) -> SeedThroughput {
    SeedThroughput {
        method: r.method.clone(),
        samples: r.samples,
        samples_per_s: r.samples as f64 / (r.mean_ms / 1e3),
        mb_per_s: r.mib_per_s * 1_048_576.0 / 1e6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lat(round: u32, size: usize, marshal: Marshal, p50: f64) -> LatencyResult {
        LatencyResult {
            domain: None,
            alloc_bytes_per_sample: None,
            allocs_per_sample: None,
            baggage_bytes: size,
            cdf: vec![],
            half_rtt_us: PooledSummary { count: 1, p50, ..Default::default() },
            instances: 1,
            iterations: 1,
            marshal,
            peer: PeerReport::default(),
            retries: 0,
            round,
            round_trips: 1,
            samples: 1,
            secs: 1.0,
            size,
            wire_bytes: size + KEYEDSEQ_FIXED,
        }
    }

    fn ddsperf_thr(round: u32, size: usize, sps: f64) -> DdsperfThroughput {
        DdsperfThroughput {
            lost: 0,
            max_samples_per_s: sps,
            mb_per_s: 0.0,
            min_samples_per_s: sps,
            payload: None,
            payload_mb_per_s: None,
            steady_samples_per_s: None,
            round,
            samples_per_s: sps,
            size,
            total: 1,
            windows: vec![],
            windows_used: 1,
        }
    }

    #[test]
    fn figures_per_size_match_ddsperf_by_payload() {
        let s = DdsSection {
            latency: vec![
                lat(1, 2048, Marshal::Cdr, 20.0),
                lat(2, 2048, Marshal::Cdr, 30.0),
                lat(1, 2048, Marshal::Json, 60.0),
            ],
            ddsperf_throughput: vec![ddsperf_thr(1, 2060, 100_000.0)],
            published: Published {
                throughput: vec![PublishedThroughput {
                    table: "t".into(),
                    method: SEED_NATIVE.into(),
                    samples: 10000,
                    size: 2048,
                    mean_ms: 400.0,
                    ratio: 1.0,
                    mib_per_s: 1.0,
                    allocated_bytes: 0,
                }],
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(s.payload_sizes(), vec![2048]);
        assert_eq!(s.run_marshals(), vec![Marshal::Cdr, Marshal::Json]);
        let f = per_size(&s);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].ours_of(Marshal::Cdr).unwrap().latency_p50_us, Some(25.0));
        assert_eq!(f[0].ours_of(Marshal::Json).unwrap().latency_p50_us, Some(60.0));
        assert_eq!(f[0].ddsperf.samples_per_s, Some(100_000.0));
        assert_eq!(f[0].ddsperf.mb_per_s, Some(100_000.0 * 2048.0 / 1e6));
        assert_eq!(f[0].cdr_over_ddsperf.latency_p50, None, "no ddsperf latency");
        let seed = f[0].seed.throughput_of(SEED_NATIVE).unwrap();
        assert_eq!((seed.samples_per_s, seed.mb_per_s), (25_000.0, 1.048576));
        // Stored figures are used as they are.
        let mut stored = s.clone();
        stored.per_size = Some(vec![]);
        assert!(stored.figures().is_empty());
    }

    fn ddsperf_lat(round: u32, size: usize, p50: f64) -> DdsperfLatency {
        DdsperfLatency {
            max: p50,
            mean: p50,
            min: p50,
            p50,
            p90: p50,
            p99: p50,
            payload: None,
            round,
            round_trips: 1,
            size,
            windows: vec![],
            windows_used: 1,
        }
    }

    /// A host with two latency modes (about 10 µs and 100 µs): ours lands in the fast mode in
    /// two rounds of three, ddsperf in one. Paired by round, ours is 1.1× ddsperf in most
    /// rounds; the ratio of the two medians would say 0.11×.
    #[test]
    fn the_ddsperf_ratio_pairs_the_rounds() {
        let s = DdsSection {
            latency: vec![
                lat(1, 2048, Marshal::Cdr, 11.0),
                lat(2, 2048, Marshal::Cdr, 110.0),
                lat(3, 2048, Marshal::Cdr, 11.0),
            ],
            ddsperf_latency: vec![ddsperf_lat(1, 2060, 10.0), ddsperf_lat(2, 2060, 100.0), ddsperf_lat(3, 2060, 100.0)],
            ..Default::default()
        };
        let f = per_size(&s);
        // Per round: 1.1, 1.1, 0.11; the median of the pairs is 1.1, where the ratio of the
        // medians (11 ÷ 100) would be 0.11.
        let r = f[0].cdr_over_ddsperf.latency_p50.unwrap();
        assert!((r - 1.1).abs() < 1e-9, "{r}");
    }

    #[test]
    fn paired_ratios_and_their_interval() {
        let s = DdsSection {
            latency: vec![
                lat(1, 2048, Marshal::Cdr, 11.0),
                lat(2, 2048, Marshal::Cdr, 110.0),
                lat(3, 2048, Marshal::Cdr, 11.0),
            ],
            ddsperf_latency: vec![ddsperf_lat(1, 2060, 10.0), ddsperf_lat(2, 2060, 100.0), ddsperf_lat(3, 2060, 100.0)],
            ..Default::default()
        };
        let (l, t) = paired_ratios(&s, 2048, Marshal::Cdr);
        assert!(paired_ratios(&s, 2048, Marshal::Json).0.is_empty());
        assert_eq!(l.len(), 3);
        assert!((l[0] - 1.1).abs() < 1e-9 && (l[2] - 0.11).abs() < 1e-9);
        assert!(t.is_empty());
        // Three values: [min, max] covers 1 − 2 × 2⁻³ = 75 %.
        let (m, lo, hi, cov) = median_ci(&l).unwrap();
        assert!((m - 1.1).abs() < 1e-9 && (lo - 0.11).abs() < 1e-9 && (hi - 1.1).abs() < 1e-9 && cov == 0.75);
        // Ten values: (x(2), x(9)) covers 1 − 2 × 11/1024 ≈ 97.9 % (x(3), x(8) only 89 %).
        let v = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        let (m, lo, hi, cov) = median_ci(&v).unwrap();
        assert_eq!((m, lo, hi), (5.5, 2.0, 9.0));
        assert!((cov - (1.0 - 22.0 / 1024.0)).abs() < 1e-9, "{cov}");
        assert!(median_ci(&[]).is_none());
    }

    /// Checks that every object's keys come in ascending order, as it reads them.
    struct SortedKeys;

    impl<'de> serde::de::DeserializeSeed<'de> for SortedKeys {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> serde::de::Visitor<'de> for SortedKeys {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
            let mut last: Option<String> = None;
            while let Some(k) = m.next_key::<String>()? {
                if last.as_ref().is_some_and(|l| *l >= k) {
                    return Err(serde::de::Error::custom(format!("key {k:?} after {last:?}")));
                }
                m.next_value_seed(SortedKeys)?;
                last = Some(k);
            }
            Ok(())
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
            while s.next_element_seed(SortedKeys)?.is_some() {}
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    }

    #[test]
    fn every_object_is_written_with_sorted_keys() {
        let window =
            PingWindow { cnt: 1, max: 1.0, mean: 1.0, min: 1.0, p50: 1.0, p90: 1.0, p99: 1.0, size: 2060, t: 1.0 };
        let sub = SubWindow { delta: 1, ksps: 1.0, lost: 0, mbit_per_s: 1.0, size: 2060, t: 1.0, total: 1 };
        let mut s = DdsSection {
            checks: vec![Check {
                ddsperf: 1.0,
                limit: 2.0,
                name: "c".into(),
                ours: 1.0,
                pass: true,
                ratio: 1.0,
                round: 1,
                size: 2048,
                unit: "us".into(),
            }],
            ddsperf_latency: vec![DdsperfLatency {
                max: 1.0,
                mean: 1.0,
                min: 1.0,
                p50: 1.0,
                p90: 1.0,
                p99: 1.0,
                payload: Some(2048),
                round: 1,
                round_trips: 1,
                size: 2060,
                windows: vec![window],
                windows_used: 1,
            }],
            ddsperf_throughput: vec![DdsperfThroughput {
                payload: Some(2048),
                payload_mb_per_s: Some(1.0),
                windows: vec![sub],
                ..ddsperf_thr(1, 2060, 1.0)
            }],
            failures: vec![Failure {
                error: "e".into(),
                marshal: Some(Marshal::Cdr),
                round: 1,
                size: 2048,
                what: "latency".into(),
            }],
            latency: vec![LatencyResult { cdf: vec![(1.0, 1.0)], ..lat(1, 2048, Marshal::Cdr, 1.0) }],
            marshal: vec![MarshalBench {
                bytes: 1,
                decode_allocs: None,
                decode_ns: 1.0,
                decode_ns_range: (1.0, 1.0),
                decode_short: false,
                encode_allocs: None,
                encode_ns: 1.0,
                encode_ns_range: (1.0, 1.0),
                encode_short: false,
                marshal: Marshal::Json,
                size: 2048,
            }],
            plan: Plan { cases: vec![Case::default()], marshals: vec![Marshal::Cdr], ..Default::default() },
            published: Published {
                latency_ms: vec![PublishedLatency {
                    avg_ms: 1.0,
                    instances: 1,
                    max_ms: 1.0,
                    method: SEED_CDR.into(),
                    min_ms: 1.0,
                    p50_ms: 1.0,
                    p90_ms: 1.0,
                    p99_ms: 1.0,
                    samples: 1,
                    size: 2048,
                    std_ms: 1.0,
                    table: "t".into(),
                }],
                notes: vec!["n".into()],
                source: "s".into(),
                throughput: vec![PublishedThroughput {
                    allocated_bytes: 1,
                    mean_ms: 1.0,
                    method: SEED_CDR.into(),
                    mib_per_s: 1.0,
                    ratio: 1.0,
                    samples: 1,
                    size: 2048,
                    table: "t".into(),
                }],
            },
            ratios: vec![Ratio {
                latency_p50: None,
                marshal_bytes: None,
                marshal_decode: None,
                marshal_encode: None,
                marshal_round_trip: None,
                size: 2048,
                throughput: None,
            }],
            throughput: vec![ThroughputResult {
                domain: None,
                alloc_bytes_per_sample: None,
                allocs_per_sample: None,
                baggage_bytes: 1,
                batch: true,
                duplicated: 0,
                lost: 0,
                marshal: Marshal::Cdr,
                mb_per_s: 1.0,
                peer: PeerReport::default(),
                received: 1,
                reordered: 0,
                round: 1,
                samples_per_s: 1.0,
                secs: 1.0,
                sent: 1,
                size: 2048,
                stalled: false,
                steady_ci95: None,
                steady_samples_per_s: None,
                wire_bytes: 1,
                wire_mb_per_s: 1.0,
            }],
            ..Default::default()
        };
        s.per_size = Some(per_size(&s));
        let f = &s.per_size.as_ref().unwrap()[0];
        assert!(!f.ours.is_empty() && !f.seed.latency.is_empty() && !f.seed.throughput.is_empty());
        let text = serde_json::to_string(&s).unwrap();
        let mut d = serde_json::Deserializer::from_str(&text);
        serde::de::DeserializeSeed::deserialize(SortedKeys, &mut d).unwrap();
        let mut unsorted = serde_json::Deserializer::from_str(r#"[{"a":{"b":1,"a":2}}]"#);
        assert!(serde::de::DeserializeSeed::deserialize(SortedKeys, &mut unsorted).is_err());
        // And it reads back to the same JSON.
        let back: DdsSection = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
    }
}
