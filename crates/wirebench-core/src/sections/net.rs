//! The `http` and `tcp` results sections (seeds 002 and 003), written by the `http` and `tcp`
//! parts of `wirebench-net`, with the reports they carry: our load generator's, wrk's, the
//! collector's counts, the link emulator's counters, RTT statistics. `wirebench-net` uses these
//! types for its own reports too (re-exported where they were defined before), so a run's figures
//! go into the section unchanged.
//!
//! Fields are in alphabetical order, the order results files have always had (the sections were
//! JSON maps with sorted keys): a results file written before the types existed serializes back
//! byte for byte.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use super::link::FailedFormat;

// ---------------------------------------------------------------------------------------------
// HTTP (seed 002)

/// The `http` section: every run of every sweep (rates × formats), the collector's totals and
/// the seed's published figures.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
pub struct HttpSection {
    pub burst: Burst,
    /// The collector's counts over the whole part (absent with an external collector).
    pub collector_total: Option<CollectorStats>,
    pub connections: usize,
    pub duration_s: f64,
    /// Formats that could not encode the workload.
    pub failed: Vec<FailedFormat>,
    /// The id of the netns lab the runs used.
    pub lab_id: Option<String>,
    pub mode: LoadMode,
    /// Why the path is what it is (e.g. the lab was not available).
    pub notes: Vec<String>,
    /// Where the runs went: `loopback`, `lab-tbf`, `lab-htb`, `emulator` or `external`.
    pub path: String,
    pub published: Seed002Published,
    pub runs: Vec<HttpRun>,
    pub shaper: Shaper,
    pub threads: usize,
    /// Whether the collector decoded and validated every body (else a sink).
    pub validate: bool,
    pub workload: WorkloadInfo,
}

/// The messages a run sends: their source and how many distinct ones.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct WorkloadInfo {
    pub messages: usize,
    pub name: String,
}

/// One rate × format run.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
pub struct HttpRun {
    /// What the collector counted during our run (absent with an external collector).
    pub collector: Option<CollectorDelta>,
    pub content_type: String,
    /// The emulator's counters, on the last run through an emulated link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulator: Option<EmuStats>,
    pub format: String,
    /// The whole harness's CPU and the verdict on what limited the run.
    pub harness: HarnessUse,
    /// The rate as written (`1mbit`) or `loopback`.
    pub link: String,
    /// Our load generator's report.
    pub ours: LoadReport,
    /// Our requests/s ÷ the seed's.
    pub ours_vs_seed: Option<f64>,
    /// Our requests/s ÷ wrk's.
    pub ours_vs_wrk: Option<f64>,
    /// The path of this run (`loopback` for an unshaped run of a lab or emulator part).
    pub path: String,
    pub rate_bps: Option<u64>,
    /// The seed's published row for this rate and format.
    pub seed: Option<Seed002Row>,
    pub warnings: Vec<String>,
    /// wrk against the same server with the same body, when asked for.
    pub wrk: Option<WrkReport>,
    /// The link's request ceiling for wrk's (single) body.
    pub wrk_ceiling_rps: Option<f64>,
    /// What the collector counted during wrk's run.
    pub wrk_collector: Option<CollectorDelta>,
}

/// The whole harness's CPU during a run (generator, collector, emulator: all in one process)
/// and the verdict that names the side that limited the run, with numbers.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct HarnessUse {
    /// The generator threads' cores.
    pub generator_cores: f64,
    /// Busy cores of the whole machine (`/proc/stat`), when readable.
    pub machine_busy_cores: Option<f64>,
    /// Cores of the machine.
    pub machine_cores: f64,
    /// `machine_busy_cores - process_cores`.
    pub other_processes_cores: Option<f64>,
    /// CPU seconds of this process ÷ wall seconds.
    pub process_cores: f64,
    /// What the rest of the process is (`collector`, `collector + link emulator`, ...).
    pub server_side: String,
    /// The rest of the process (collector, emulator).
    pub server_side_cores: f64,
    /// One line: link-, harness-, host- or peer-bound, with numbers.
    pub verdict: String,
}

/// What the collector counted for one format during one run.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct CollectorDelta {
    /// The first reason a body of the format was invalid (over the collector's life).
    pub first_error: Option<String>,
    pub invalid: u64,
    pub requests: u64,
    pub unsupported_media_type: u64,
    pub valid: u64,
    pub validated: bool,
}

/// Seed 002's published figures with their source and what they can and cannot say.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct Seed002Published {
    pub notes: Vec<String>,
    pub rows: Vec<Seed002Row>,
    pub source: String,
}

/// One row of seed 002's "Results Summary".
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct Seed002Row {
    pub format: String,
    pub rate_bps: u64,
    pub requests_per_sec: f64,
    /// The seed's "Throughput (Mbps)": Transfer/sec × 8 / 1000.
    pub throughput_mbps: f64,
    /// go-wrk's Transfer/sec in KB (response bytes only).
    pub transfer_kb_per_sec: f64,
}

/// How the TBF bucket is sized.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Copy, Debug, PartialEq)]
#[serde(rename_all = "lowercase", tag = "kind", content = "bytes")]
pub enum Burst {
    /// max(rate / 8 / HZ, 4,000 B): reaches the rate at every speed (spec §1.3: 99–100 %).
    Sized,
    /// The seed's fixed 32 kbit (4,000 B): costs 10 % at 500 Mbit and 21–28 % at 1 Gbit.
    Seed,
    /// A fixed number of bytes.
    Bytes(u64),
}

/// The qdisc that shapes the rate.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Shaper {
    /// `tbf rate R burst B latency 50ms` (spec §1.2).
    #[default]
    Tbf,
    /// `htb` root with one default class `rate R ceil R burst B` (same bucket size).
    Htb,
}

/// Closed or open loop.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Copy, Debug, PartialEq)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum LoadMode {
    Closed,
    /// Constant total rate in requests per second.
    Open {
        rate: f64,
    },
}

/// Errors counted during a load run (a run with errors still reports).
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct ErrorCounts {
    pub connect: u64,
    /// Unparseable responses.
    pub protocol: u64,
    pub read: u64,
    /// Responses other than 2xx/3xx (like wrk's "Non-2xx or 3xx responses").
    pub status: u64,
    pub timeout: u64,
    pub write: u64,
}

impl ErrorCounts {
    /// All errors of every kind.
    pub fn total(&self) -> u64 {
        self.connect + self.read + self.write + self.timeout + self.protocol + self.status
    }
}

/// What limited a load run.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Bound {
    /// ≥ 90 % of the link's request ceiling.
    Link,
    /// A generator thread at ≥ 90 % of a core, link (if known) < 90 % used.
    Harness,
    /// Neither: the server, the round trip or the connection count limited it.
    Peer,
}

impl Bound {
    /// The name the results file uses (`link`, `harness`, `peer`).
    pub fn name(self) -> &'static str {
        match self {
            Bound::Link => "link",
            Bound::Harness => "harness",
            Bound::Peer => "peer",
        }
    }
}

/// CPU use of the load generator.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct CpuUse {
    /// generator_cpu_s / wall_s: cores used.
    pub cores: f64,
    /// CPU seconds of the generator threads (not the rest of the process).
    pub generator_cpu_s: f64,
    /// cores / threads: how busy each generator thread was (1.0 = a full core).
    pub per_thread: f64,
    pub wall_s: f64,
}

/// The request ceiling of the link and how much of it a run used.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
pub struct LinkUse {
    pub ceiling_rps: f64,
    /// Request header bytes counted in the ceiling.
    pub header_bytes: usize,
    pub rate_bps: u64,
    /// requests_per_sec / ceiling_rps.
    pub ratio: f64,
}

/// Latency percentiles in microseconds (`None` when nothing was recorded).
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct LatencySummary {
    pub count: u64,
    pub max_us: Option<f64>,
    pub mean_us: Option<f64>,
    pub min_us: Option<f64>,
    pub p50_us: Option<f64>,
    pub p90_us: Option<f64>,
    pub p999_us: Option<f64>,
    pub p99_us: Option<f64>,
    pub stddev_us: Option<f64>,
}

/// The report of a run of our HTTP load generator.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
pub struct LoadReport {
    /// Mean body bytes per request.
    pub body_bytes: f64,
    /// Body bytes per second, in MB (10^6 B).
    pub body_mb_per_sec: f64,
    pub bound: Bound,
    /// One line explaining `bound`, with numbers.
    pub bound_detail: String,
    pub connections: usize,
    pub content_type: String,
    pub cpu: CpuUse,
    pub duration_s: f64,
    pub errors: ErrorCounts,
    /// Closed loop: from send. Open loop: from the scheduled send time. Completed requests
    /// only (as wrk).
    pub latency: LatencySummary,
    /// With timeouts: the completed requests and the timed-out ones, each timed-out request at
    /// the time it was given up (a lower bound of its latency). Present when a request timed
    /// out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_with_timeouts: Option<LatencySummary>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkUse>,
    #[serde(flatten)]
    pub mode: LoadMode,
    /// Mean request bytes incl. request line and headers.
    pub request_bytes: f64,
    /// Request bytes (headers + body) per second, in MB.
    pub request_mb_per_sec: f64,
    /// Responses completed within the duration.
    pub requests: u64,
    pub requests_per_sec: f64,
    /// Response bytes read per second, in MB (wrk's "Transfer/sec").
    pub response_mb_per_sec: f64,
    /// Open loop only: scheduled → actual send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_lag: Option<LatencySummary>,
    /// Connections that completed no request in the whole run (absent: none, or a file written
    /// before they were counted).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub starved_connections: u64,
    pub threads: usize,
    pub tool: String,
    pub url: String,
    pub warnings: Vec<String>,
}

/// wrk's figures.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct WrkReport {
    pub body_bytes: usize,
    pub connections: usize,
    /// CPU seconds of finished child processes during the run (wrk itself; approximate if other
    /// children finished at the same time).
    pub cpu_s: f64,
    pub duration_s: f64,
    pub errors_connect: u64,
    pub errors_read: u64,
    pub errors_timeout: u64,
    pub errors_write: u64,
    pub latency_avg_us: f64,
    pub latency_max_us: f64,
    pub latency_stdev_us: f64,
    pub non_2xx_3xx: u64,
    pub p50_us: Option<f64>,
    pub p75_us: Option<f64>,
    pub p90_us: Option<f64>,
    pub p99_us: Option<f64>,
    pub requests: u64,
    pub requests_per_sec: f64,
    /// Response bytes per second ("Transfer/sec"), in MB (10^6 B).
    pub response_mb_per_sec: f64,
    pub threads: usize,
    pub tool: String,
    pub url: String,
}

/// Counters of one direction of the link emulator.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct DirStats {
    pub dropped_loss: u64,
    pub dropped_queue: u64,
    pub packets_delivered: u64,
    /// Packets (TCP segments after slicing, UDP datagrams) that entered the link.
    pub packets_in: u64,
    pub payload_bytes_delivered: u64,
    /// Payload + overhead bytes the serializer accounted for.
    pub wire_bytes: u64,
}

/// Counters of the whole link emulator.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct EmuStats {
    pub connections: u64,
    pub down: DirStats,
    pub refused: u64,
    pub up: DirStats,
}

/// The collector's counts for one codec.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct CodecCounts {
    pub bytes: u64,
    /// The first reason a body was invalid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    pub invalid: u64,
    pub ok: u64,
    pub requests: u64,
}

/// What the collector has seen.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct CollectorStats {
    pub body_bytes: u64,
    /// Per codec id.
    pub codecs: BTreeMap<String, CodecCounts>,
    pub connections: u64,
    pub invalid: u64,
    pub ok: u64,
    pub requests: u64,
    pub too_large: u64,
    pub unsupported_media_type: u64,
    pub validated: bool,
}

// ---------------------------------------------------------------------------------------------
// TCP request/response (seed 003)

/// The `tcp` section: every link × format run at the cadence, the ones that failed or were
/// skipped, and the seed's published figures.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
pub struct TcpSection {
    pub cadence_ms: f64,
    /// One-way propagation delay the emulator added.
    pub delay_ms: f64,
    pub failed: Vec<TcpFailed>,
    pub notes: Vec<String>,
    pub published: Seed003Published,
    pub runs: Vec<TcpRun>,
    pub skipped: Vec<TcpSkipped>,
    /// Messages sent before measuring.
    pub warmup: usize,
    pub workload: WorkloadInfo,
}

/// One link × format run: encoded messages, or raw bytes echoed (`--echo-bytes`).
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum TcpRun {
    Codec(TcpCodecRun),
    Echo(TcpEchoRun),
}

impl TcpRun {
    /// The link label (`loopback`, `1mbit`, `tbf:1mbit`).
    pub fn link(&self) -> &str {
        match self {
            TcpRun::Codec(r) => &r.link,
            TcpRun::Echo(r) => &r.link,
        }
    }

    /// The format id (`echo-<n>B` for an echo run).
    pub fn format(&self) -> &str {
        match self {
            TcpRun::Codec(r) => &r.format,
            TcpRun::Echo(r) => &r.format,
        }
    }

    /// The path: `loopback`, `emulator` or `lab-tbf`.
    pub fn path(&self) -> &str {
        match self {
            TcpRun::Codec(r) => &r.path,
            TcpRun::Echo(r) => &r.path,
        }
    }

    /// The RTT statistics of the run.
    pub fn rtt(&self) -> &RttStats {
        match self {
            TcpRun::Codec(r) => &r.rtt,
            TcpRun::Echo(r) => &r.rtt,
        }
    }

    /// The RTT the serialization model predicts for a rated link.
    pub fn model_rtt_us(&self) -> Option<f64> {
        match self {
            TcpRun::Codec(r) => r.model_rtt_us,
            TcpRun::Echo(r) => r.model_rtt_us,
        }
    }

    /// The note on a TBF run.
    pub fn note(&self) -> Option<&str> {
        match self {
            TcpRun::Codec(r) => r.note.as_deref(),
            TcpRun::Echo(r) => r.note.as_deref(),
        }
    }

    /// What the run warned about (e.g. a Nagle + delayed-ACK stall).
    pub fn warnings(&self) -> &[String] {
        match self {
            TcpRun::Codec(r) => &r.warnings,
            TcpRun::Echo(r) => &r.warnings,
        }
    }

    /// Mean bytes per message.
    pub fn bytes_mean(&self) -> f64 {
        match self {
            TcpRun::Codec(r) => r.bytes.mean,
            TcpRun::Echo(r) => r.bytes.mean as f64,
        }
    }

    /// The codec run, if this is one.
    pub fn codec(&self) -> Option<&TcpCodecRun> {
        match self {
            TcpRun::Codec(r) => Some(r),
            TcpRun::Echo(_) => None,
        }
    }
}

/// Encoded messages at the cadence: sizes, RTT, codec times, the server's decode counts.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
pub struct TcpCodecRun {
    /// Encoded payload bytes (without the 4-byte frame header).
    pub bytes: Spread,
    pub cadence_ms: f64,
    pub client_decode_us: Spread,
    pub codec: String,
    /// Messages measured.
    pub count: usize,
    pub decode_failures: u64,
    pub encode_us: Spread,
    pub format: String,
    pub link: String,
    pub media_type: String,
    /// The RTT the serialization model predicts for a rated link.
    pub model_rtt_us: Option<f64>,
    /// On a TBF link: why the model's serialization time does not show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub path: String,
    /// Payload bytes per second sent (the seed's "throughput").
    pub payload_bytes_per_sec: f64,
    pub rate_bps: Option<u64>,
    /// Whether decode(encode(v)) == v for the first message (checked before timing).
    pub round_trip_exact: bool,
    pub rtt: RttStats,
    /// The RTT distribution: (ms, % of messages with an RTT at or below it), at most 400 points
    /// at evenly spaced ranks, minimum and maximum included.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rtt_cdf_ms: Vec<(f64, f64)>,
    /// Every RTT in µs, rounded to 0.1 µs, in send order.
    pub rtt_samples_us: Vec<f64>,
    pub server_decode_us: Spread,
    /// Messages the server decoded, and failed to decode.
    pub server_decoded: u64,
    pub server_failed: u64,
    pub warnings: Vec<String>,
}

/// Raw bytes echoed at the cadence.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
pub struct TcpEchoRun {
    pub bytes: EchoBytes,
    pub count: usize,
    pub format: String,
    pub link: String,
    pub media_type: String,
    pub model_rtt_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub path: String,
    pub rate_bps: Option<u64>,
    pub rtt: RttStats,
    pub warnings: Vec<String>,
}

/// The size of an echoed message (every one the same).
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct EchoBytes {
    pub max: usize,
    pub mean: usize,
    pub min: usize,
}

/// RTT statistics over samples in microseconds (exact nearest-rank percentiles).
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct RttStats {
    /// Mean |RTT_i − RTT_{i−1}| (inter-packet delay variation, RFC 3393 style).
    pub ipdv_mean_us: f64,
    /// RFC 3550 §6.4.1 interarrival jitter estimator applied to the RTT series.
    pub jitter_rfc3550_us: f64,
    pub max_us: f64,
    pub mean_us: f64,
    pub min_us: f64,
    pub n: usize,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub stddev_us: f64,
}

/// Mean/min/max of a series.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct Spread {
    pub max: f64,
    pub mean: f64,
    pub min: f64,
}

/// A link × format that failed (a codec that cannot run the workload).
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct TcpFailed {
    pub error: String,
    pub format: String,
    pub link: String,
}

/// A link that was not run (the netns lab was not available).
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct TcpSkipped {
    pub link: String,
    pub reason: String,
}

/// Seed 003's published tables with their source and notes.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct Seed003Published {
    /// §4 "Final Benchmark (Extended Metrics)".
    #[serde(rename = "final")]
    pub final_: Vec<Seed003Metric>,
    /// §4 "Initial Benchmark (Core Metrics)".
    pub initial: Vec<Seed003Metric>,
    pub notes: Vec<String>,
    pub source: String,
}

/// One metric of seed 003 for one platform: JSON and Protobuf.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct Seed003Metric {
    pub json: f64,
    pub metric: String,
    pub platform: String,
    pub protobuf: f64,
    pub unit: String,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load_report(mode: serde_json::Value) -> serde_json::Value {
        let mut v = json!({
            "body_bytes": 1004.0, "body_mb_per_sec": 0.1, "bound": "link", "bound_detail": "link-bound",
            "connections": 100, "content_type": "application/json",
            "cpu": {"cores": 0.1, "generator_cpu_s": 0.3, "per_thread": 0.1, "wall_s": 3.0},
            "duration_s": 3.0, "errors": {"connect": 0, "protocol": 0, "read": 1, "status": 0, "timeout": 0, "write": 0},
            "latency": {"count": 0, "max_us": null, "mean_us": null, "min_us": null, "p50_us": null, "p90_us": null,
                        "p999_us": null, "p99_us": null, "stddev_us": null},
            "link": {"ceiling_rps": 104.4, "header_bytes": 102, "rate_bps": 1000000, "ratio": 0.99},
            "request_bytes": 1106.0, "request_mb_per_sec": 0.1, "requests": 312, "requests_per_sec": 104.0,
            "response_mb_per_sec": 0.01, "threads": 1, "tool": "wirebench", "url": "http://x/", "warnings": []
        });
        for (k, x) in mode.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    }

    /// Serialize a value as a results file would, with its keys sorted (how sections were
    /// written before they had types).
    fn sorted_text(v: &serde_json::Value) -> String {
        fn sort(v: &serde_json::Value) -> serde_json::Value {
            match v {
                serde_json::Value::Object(m) => {
                    let mut keys: Vec<&String> = m.keys().collect();
                    keys.sort();
                    let mut out = serde_json::Map::new();
                    for k in keys {
                        out.insert(k.clone(), sort(&m[k]));
                    }
                    serde_json::Value::Object(out)
                }
                serde_json::Value::Array(a) => serde_json::Value::Array(a.iter().map(sort).collect()),
                other => other.clone(),
            }
        }
        serde_json::to_string(&sort(v)).unwrap()
    }

    #[test]
    fn load_reports_read_and_write_back_unchanged() {
        for mode in [json!({"mode": "closed"}), json!({"mode": "open", "rate": 200.0})] {
            let v = load_report(mode);
            let r: LoadReport = serde_json::from_value(v.clone()).unwrap();
            assert_eq!(serde_json::to_string(&r).unwrap(), sorted_text(&v));
        }
        let r: LoadReport = serde_json::from_value(load_report(json!({"mode": "open", "rate": 5.0}))).unwrap();
        assert_eq!((r.mode, r.bound, r.errors.total()), (LoadMode::Open { rate: 5.0 }, Bound::Link, 1));
        assert_eq!(serde_json::to_value(Burst::Bytes(4000)).unwrap(), json!({"kind": "bytes", "bytes": 4000}));
        assert_eq!(serde_json::to_value(Burst::Sized).unwrap(), json!({"kind": "sized"}));
    }

    #[test]
    fn tcp_runs_are_codec_or_echo_runs() {
        let rtt = json!({"ipdv_mean_us": 1.0, "jitter_rfc3550_us": 1.0, "max_us": 9.0, "mean_us": 5.0, "min_us": 1.0,
                         "n": 3, "p50_us": 5.0, "p90_us": 9.0, "p99_us": 9.0, "stddev_us": 2.0});
        let echo = json!({"bytes": {"max": 400, "mean": 400, "min": 400}, "count": 3, "format": "echo-400B",
                          "link": "tbf:1mbit", "media_type": "application/octet-stream", "model_rtt_us": 7456.0,
                          "note": "TBF: ...", "path": "lab-tbf", "rate_bps": 1000000, "rtt": rtt, "warnings": []});
        let r: TcpRun = serde_json::from_value(echo.clone()).unwrap();
        assert!(matches!(r, TcpRun::Echo(_)) && r.note() == Some("TBF: ...") && r.bytes_mean() == 400.0);
        assert_eq!(serde_json::to_string(&r).unwrap(), sorted_text(&echo));
        let spread = json!({"max": 2.0, "mean": 1.5, "min": 1.0});
        let codec = json!({"bytes": spread, "cadence_ms": 50.0, "client_decode_us": spread, "codec": "json", "count": 3,
                           "decode_failures": 0, "encode_us": spread, "format": "json", "link": "loopback",
                           "media_type": "application/json", "model_rtt_us": null, "path": "loopback",
                           "payload_bytes_per_sec": 20.0, "rate_bps": null, "round_trip_exact": true, "rtt": rtt,
                           "rtt_samples_us": [1.0, 5.0, 9.0], "server_decode_us": spread, "server_decoded": 5,
                           "server_failed": 0, "warnings": []});
        let r: TcpRun = serde_json::from_value(codec.clone()).unwrap();
        assert!(r.codec().is_some_and(|c| c.rtt_samples_us.len() == 3) && r.note().is_none());
        assert_eq!(serde_json::to_string(&r).unwrap(), sorted_text(&codec));
    }

    #[test]
    fn the_sections_have_a_json_schema() {
        let http = serde_json::to_value(schemars::schema_for!(HttpSection)).unwrap();
        assert!(http["properties"]["runs"].is_object(), "{http}");
        let tcp = serde_json::to_value(schemars::schema_for!(TcpSection)).unwrap();
        assert!(tcp["properties"]["published"].is_object(), "{tcp}");
        let link = serde_json::to_value(schemars::schema_for!(super::super::link::LinkSection)).unwrap();
        assert!(link["properties"]["rows"].is_object(), "{link}");
    }
}
