//! Seed 004's study: for each payload size, side by side in one run, Cyclone's `ddsperf` (the
//! native anchor) and our transport with CDR and with JSON marshalling — latency and
//! throughput — plus marshalling alone; repeated `rounds` times, because this 2-core machine is
//! shared and noisy (runs differ up to ×2.4, shared/specs/cdr-dds.md §2.2). Failures are
//! recorded with their reason and the run goes on.
//!
//! The result is the `dds` section of a results file (JSON); the report renders it alone.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::bench::{self, MarshalBench};
use crate::ddsperf::{self, DdsperfLatency, DdsperfThroughput};
use crate::latency::{self, LatencyOpts, LatencyResult};
use crate::peer::PeerMode;
use crate::throughput::{self, ThroughputOpts, ThroughputResult};
use crate::{Marshal, KEYEDSEQ_FIXED};

/// A group of sizes measured with the same counts (the seed's configurations).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Case {
    /// Payload octets.
    pub sizes: Vec<usize>,
    /// Latency: instances × samples round trips per iteration (the seed's TotalInstances and
    /// TotalSamples).
    pub instances: u32,
    pub samples: u32,
    pub iterations: u32,
    /// Throughput: samples per run (the seed's TotalSamples).
    pub throughput_samples: u64,
    /// Throughput with JSON, when it must be scaled down (JSON of large payloads is slow).
    pub json_throughput_samples: Option<u64>,
}

/// What to run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    pub cases: Vec<Case>,
    pub marshals: Vec<Marshal>,
    pub rounds: u32,
    /// Domain ids used: domain_base .. domain_base + 40, one fresh id per run.
    pub domain_base: u32,
    pub latency: bool,
    pub throughput: bool,
    pub marshal_bench: bool,
    pub ddsperf: bool,
    pub ddsperf_secs: u32,
    pub batch: bool,
    pub warmup: u32,
    pub count_allocs: bool,
}

#[derive(Serialize)]
struct Tagged<T: Serialize> {
    round: u32,
    #[serde(flatten)]
    inner: T,
}

#[derive(Serialize)]
struct Failure {
    round: u32,
    what: String,
    size: usize,
    marshal: Option<Marshal>,
    error: String,
}

#[derive(Default)]
struct Collected {
    latency: Vec<Tagged<LatencyResult>>,
    throughput: Vec<Tagged<ThroughputResult>>,
    ddsperf_latency: Vec<Tagged<DdsperfLatency>>,
    ddsperf_throughput: Vec<Tagged<DdsperfThroughput>>,
    marshal: Vec<MarshalBench>,
    failures: Vec<Failure>,
}

/// Run the plan; `peer` makes the peer of each run (a child process for measurements).
pub fn run(plan: &Plan, peer: &dyn Fn() -> PeerMode, progress: &mut dyn FnMut(&str)) -> Value {
    let mut c = Collected::default();
    let mut next = 0u32;
    let mut domain = || {
        next += 1;
        plan.domain_base + (next % 40)
    };
    let have_ddsperf = plan.ddsperf && ddsperf::available();
    if plan.ddsperf && !have_ddsperf {
        c.failures.push(Failure {
            round: 0,
            what: "ddsperf".into(),
            size: 0,
            marshal: None,
            error: format!("{} not found (apt-get install cyclonedds-tools)", ddsperf::program()),
        });
    }
    if plan.marshal_bench {
        for case in &plan.cases {
            for &size in &case.sizes {
                for &m in &plan.marshals {
                    progress(&format!("marshal {} {}", crate::size_label(size), m.name()));
                    match bench::run(size, m, 15) {
                        Ok(b) => c.marshal.push(b),
                        Err(e) => c.failures.push(Failure {
                            round: 0,
                            what: "marshal".into(),
                            size,
                            marshal: Some(m),
                            error: e.to_string(),
                        }),
                    }
                }
            }
        }
    }
    for round in 1..=plan.rounds.max(1) {
        for case in &plan.cases {
            for &size in &case.sizes {
                let label = crate::size_label(size);
                if plan.latency {
                    if have_ddsperf {
                        progress(&format!("round {round}: latency {label} ddsperf"));
                        match ddsperf::latency(domain(), size + KEYEDSEQ_FIXED, plan.ddsperf_secs) {
                            Ok(r) => c.ddsperf_latency.push(Tagged { round, inner: r }),
                            Err(e) => c.failures.push(fail(round, "ddsperf latency", size, None, e)),
                        }
                    }
                    for &m in &plan.marshals {
                        progress(&format!("round {round}: latency {label} {}", m.name()));
                        let mut o = LatencyOpts::new(domain(), size, m);
                        o.instances = case.instances;
                        o.samples = case.samples;
                        o.iterations = case.iterations;
                        o.warmup = plan.warmup;
                        o.count_allocs = plan.count_allocs;
                        match latency::run(&o, peer()) {
                            Ok(r) => c.latency.push(Tagged { round, inner: r }),
                            Err(e) => c.failures.push(fail(round, "latency", size, Some(m), e)),
                        }
                    }
                }
                if plan.throughput {
                    if have_ddsperf {
                        progress(&format!("round {round}: throughput {label} ddsperf"));
                        match ddsperf::throughput(domain(), size + KEYEDSEQ_FIXED, plan.ddsperf_secs) {
                            Ok(r) => c.ddsperf_throughput.push(Tagged { round, inner: r }),
                            Err(e) => c.failures.push(fail(round, "ddsperf throughput", size, None, e)),
                        }
                    }
                    for &m in &plan.marshals {
                        progress(&format!("round {round}: throughput {label} {}", m.name()));
                        let n = match m {
                            Marshal::Json => case.json_throughput_samples.unwrap_or(case.throughput_samples),
                            _ => case.throughput_samples,
                        };
                        let mut o = ThroughputOpts::new(domain(), size, m, n);
                        o.instances = 1; // the seed's throughput runs name no instance count; ddsperf pub uses one key
                        o.batch = plan.batch;
                        o.count_allocs = plan.count_allocs;
                        match throughput::run(&o, peer()) {
                            Ok(r) => c.throughput.push(Tagged { round, inner: r }),
                            Err(e) => c.failures.push(fail(round, "throughput", size, Some(m), e)),
                        }
                    }
                }
            }
        }
    }
    let checks = checks(&c);
    let ratios = ratios(&c);
    json!({
        "transport": format!("Cyclone DDS {} (libddsc via a C shim), RTPS/UDP on loopback, unicast discovery", crate::cyclone_version()),
        "cyclone_version": crate::cyclone_version(),
        "topic": "KeyedSeq {seq, @key keyval, sequence<octet> baggage} (ddsperf's KS); the marshalled KeyedOctets sample is the baggage",
        "method": {
            "latency": "back-to-back ping-pong between two processes; half round trip from before marshal to after unmarshal; reliable KEEP_LAST 1; all round trips of a run pooled",
            "throughput": "publisher process writes N samples flat out (reliable KEEP_ALL, batching as configured); samples_per_s: time from go to the last sample unmarshalled at the reader (the seed's definition); steady_samples_per_s: after the first tenth arrived (compared with ddsperf's steady-state windows in the checks)",
            "ddsperf": "ddsperf 0.10.2 ping/pong and pub/sub with size = payload + 12, same loopback configuration; median over 1-second windows",
            "allocations": "Rust heap allocations per sample, writer marshal + reader unmarshal (Cyclone's C allocations not counted)",
            "mb": "MB = 1e6 bytes of payload",
        },
        "plan": plan,
        "latency": c.latency,
        "throughput": c.throughput,
        "ddsperf_latency": c.ddsperf_latency,
        "ddsperf_throughput": c.ddsperf_throughput,
        "marshal": c.marshal,
        "checks": checks,
        "ratios": ratios,
        "failures": c.failures,
        "published": crate::published::to_json(),
    })
}

fn fail(round: u32, what: &str, size: usize, marshal: Option<Marshal>, e: crate::DdsError) -> Failure {
    Failure { round, what: what.into(), size, marshal, error: e.to_string() }
}

/// The must-hold comparisons with ddsperf, per round: CDR latency p50 within 2× of ddsperf's and
/// CDR throughput at least 0.5× of ddsperf's, at 2 KB and 8 KB.
fn checks(c: &Collected) -> Vec<Value> {
    let mut out = Vec::new();
    for size in [2048usize, 8192] {
        for l in c.latency.iter().filter(|l| l.inner.size == size && l.inner.marshal == Marshal::Cdr) {
            if let Some(d) = c.ddsperf_latency.iter().find(|d| d.round == l.round && d.inner.size == size + KEYEDSEQ_FIXED) {
                let ratio = l.inner.half_rtt_us.p50 / d.inner.p50;
                out.push(json!({
                    "name": format!("latency p50 within 2x of ddsperf at {}", crate::size_label(size)),
                    "round": l.round, "size": size, "ours": l.inner.half_rtt_us.p50, "ddsperf": d.inner.p50,
                    "unit": "us", "ratio": ratio, "limit": 2.0, "pass": ratio <= 2.0,
                }));
            }
        }
        for t in c.throughput.iter().filter(|t| t.inner.size == size && t.inner.marshal == Marshal::Cdr) {
            if let Some(d) = c.ddsperf_throughput.iter().find(|d| d.round == t.round && d.inner.size == size + KEYEDSEQ_FIXED) {
                // Steady state against ddsperf's steady-state windows (whole run if unavailable).
                let ours = t.inner.steady_samples_per_s.unwrap_or(t.inner.samples_per_s);
                let ratio = ours / d.inner.samples_per_s;
                out.push(json!({
                    "name": format!("throughput at least 0.5x of ddsperf at {}", crate::size_label(size)),
                    "round": t.round, "size": size, "ours": ours, "ddsperf": d.inner.samples_per_s,
                    "unit": "samples/s", "ratio": ratio, "limit": 0.5, "pass": ratio >= 0.5,
                }));
            }
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    Some(crate::stats::percentile(&v, 0.5))
}

/// JSON relative to CDR per size: marshalling alone and in the transport (medians over rounds;
/// throughput in steady state).
fn ratios(c: &Collected) -> Vec<Value> {
    let mut sizes: Vec<usize> = c.marshal.iter().map(|m| m.size).collect();
    sizes.extend(c.latency.iter().map(|l| l.inner.size));
    sizes.extend(c.throughput.iter().map(|t| t.inner.size));
    sizes.sort_unstable();
    sizes.dedup();
    let mut out = Vec::new();
    for size in sizes {
        let mb = |m: Marshal| c.marshal.iter().find(|b| b.size == size && b.marshal == m);
        let lat = |m: Marshal| {
            median(c.latency.iter().filter(|l| l.inner.size == size && l.inner.marshal == m).map(|l| l.inner.half_rtt_us.p50).collect())
        };
        let thr = |m: Marshal| {
            median(
                c.throughput
                    .iter()
                    .filter(|t| t.inner.size == size && t.inner.marshal == m)
                    .map(|t| t.inner.steady_samples_per_s.unwrap_or(t.inner.samples_per_s))
                    .collect(),
            )
        };
        let (cj, cc) = (mb(Marshal::Json), mb(Marshal::Cdr));
        out.push(json!({
            "size": size,
            "marshal_bytes": cj.zip(cc).map(|(j, c)| j.bytes as f64 / c.bytes as f64),
            "marshal_encode": cj.zip(cc).map(|(j, c)| j.encode_ns / c.encode_ns),
            "marshal_decode": cj.zip(cc).map(|(j, c)| j.decode_ns / c.decode_ns),
            "marshal_round_trip": cj.zip(cc).map(|(j, c)| (j.encode_ns + j.decode_ns) / (c.encode_ns + c.decode_ns)),
            "latency_p50": lat(Marshal::Json).zip(lat(Marshal::Cdr)).map(|(j, c)| j / c),
            "throughput": thr(Marshal::Json).zip(thr(Marshal::Cdr)).map(|(j, c)| j / c),
        }));
    }
    out
}
