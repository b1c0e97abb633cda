//! The `dds` results section (seed 004: DDS latency and throughput, CDR vs JSON marshalling).
//!
//! Written by `wirebench dds latency|throughput|marshal` and the `[dds]` study part (crate
//! `wirebench-dds`, module `study`); rendered by `wirebench_report::dds`. Data only: the runs of
//! every round as measured, Cyclone's `ddsperf` beside them, marshalling alone, the must-hold
//! checks, JSON ÷ CDR ratios, failures, the seed's published figures and, per payload size, the
//! figures the report shows (medians over rounds, ratios, the seed's figures in our units).
//!
//! The JSON of this section is the one the study has always written: the same field names,
//! `null` for absent values, and every object's keys in sorted order (the section used to be
//! built as a `serde_json::Value`, whose maps sort their keys), so the fields of every type here
//! are declared in that order. Fields added later are additive (in the same order) and absent
//! from older files. A number that was not finite is written as `null` by serde_json: the fields
//! where that can happen read `null` back as NaN ([`nullable`]), so such a file still loads.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// ddsperf's `size` includes the fixed part of KeyedSeq (seq, keyval, baggage length): 12 bytes
/// more than the payload (our baggage).
pub const KEYEDSEQ_FIXED: usize = 12;

/// The whole section.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct DdsSection {
    /// The must-hold comparisons of ours (CDR) with ddsperf, per round.
    pub checks: Vec<Check>,
    pub cyclone_version: String,
    /// Cyclone's ddsperf ping/pong in the same rounds (its `size` is payload + 12).
    pub ddsperf_latency: Vec<DdsperfLatency>,
    /// Cyclone's ddsperf pub/sub in the same rounds.
    pub ddsperf_throughput: Vec<DdsperfThroughput>,
    /// Runs that failed, with their reason (the study goes on).
    pub failures: Vec<Failure>,
    /// Ours: one ping-pong run per round × size × marshalling.
    pub latency: Vec<LatencyResult>,
    /// Marshalling alone (no DDS), once per size × marshalling.
    pub marshal: Vec<MarshalBench>,
    /// How each figure was measured.
    pub method: Method,
    /// Per payload size (ascending): the figures the charts and the native table show. Written
    /// by the part at measure time; absent from files written before it was (see
    /// [`DdsSection::figures`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_size: Option<Vec<SizeFigures>>,
    /// What was run.
    pub plan: Plan,
    /// The seed's published figures, with notes on what cannot be right in them.
    pub published: Published,
    /// JSON ÷ CDR per size.
    pub ratios: Vec<Ratio>,
    /// Ours: one pub/sub run per round × size × marshalling.
    pub throughput: Vec<ThroughputResult>,
    /// The topic type and what travels in it.
    pub topic: String,
    /// The transport as run: Cyclone's version, the C shim, loopback.
    pub transport: String,
}

/// How each figure was measured (prose, one entry per kind of figure).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct Method {
    pub allocations: String,
    pub ddsperf: String,
    pub latency: String,
    pub mb: String,
    pub throughput: String,
}

/// How the sample is put into the baggage of the KeyedSeq topic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Marshal {
    /// XCDR1 (the `cdr` crate).
    Cdr,
    /// serde_json of the same struct.
    Json,
    /// The payload octets alone (no key, no framing).
    Raw,
}

impl Marshal {
    /// The name in options and results: `cdr`, `json`, `raw`.
    pub fn name(self) -> &'static str {
        match self {
            Marshal::Cdr => "cdr",
            Marshal::Json => "json",
            Marshal::Raw => "raw",
        }
    }

    /// Read a name (`xcdr1` is CDR); `None` for anything else.
    pub fn parse(s: &str) -> Option<Marshal> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cdr" | "xcdr1" => Some(Marshal::Cdr),
            "json" => Some(Marshal::Json),
            "raw" => Some(Marshal::Raw),
            _ => None,
        }
    }
}

/// A group of sizes measured with the same counts (the seed's configurations).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct Case {
    /// Latency: instances × samples round trips per iteration (the seed's TotalInstances and
    /// TotalSamples).
    pub instances: u32,
    pub iterations: u32,
    /// Throughput with JSON, when it must be scaled down (JSON of large payloads is slow).
    pub json_throughput_samples: Option<u64>,
    /// Rounds of this group when not the plan's (e.g. more rounds where a paired comparison
    /// must be stable); absent: the plan's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    pub samples: u32,
    /// Payload octets.
    pub sizes: Vec<usize>,
    /// Throughput: samples per run (the seed's TotalSamples).
    pub throughput_samples: u64,
}

/// What a run measures.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct Plan {
    /// Batch writes in throughput runs.
    pub batch: bool,
    pub cases: Vec<Case>,
    /// The must-hold bar of the latency checks: ours ÷ ddsperf p50 at most this (absent: 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_latency_within: Option<f64>,
    /// The must-hold bar of the throughput checks: ours ÷ ddsperf at least this (absent: 0.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_throughput_at_least: Option<f64>,
    /// Count Rust heap allocations.
    pub count_allocs: bool,
    /// Run Cyclone's ddsperf beside ours.
    pub ddsperf: bool,
    /// Seconds per ddsperf run.
    pub ddsperf_secs: u32,
    /// What ddsperf's samples carry: the bytes on the wire of our CDR sample (like with like;
    /// the default) or the payload alone. Absent from files written before it was stored
    /// (they ran ddsperf at the payload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ddsperf_size: Option<DdsperfSize>,
    /// Domain ids used: domain_base .. domain_base + 40, one fresh id per run.
    pub domain_base: u32,
    pub latency: bool,
    /// Latency runs (ours and ddsperf: every process and thread of a run) on this one CPU, so
    /// that both pay the same hand-off between the ends; absent: wherever the scheduler puts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_cpu: Option<u32>,
    pub marshal_bench: bool,
    pub marshals: Vec<Marshal>,
    /// A throughput run shorter than this many seconds was run again with more samples (0 or
    /// absent: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_throughput_secs: Option<f64>,
    /// A latency run of ours ping-ponged at least this many seconds after its warm-up (besides
    /// its round trips): with ddsperf in the plan, as long as a ddsperf run, so that both sides
    /// sample the host over the same span. Absent: the round trips alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_latency_secs: Option<f64>,
    /// Everything is repeated this many times (a case may set its own).
    pub rounds: u32,
    pub throughput: bool,
    /// Latency: round trips before recording.
    pub warmup: u32,
}

/// The size ddsperf runs at, for one payload size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DdsperfSize {
    /// KeyedSeq with the bytes our CDR sample puts on the wire (payload + CDR's 16 bytes of
    /// header, key and length): ours ÷ ddsperf compares the same traffic.
    Wire,
    /// KeyedSeq with the payload alone: the format's own bytes count against ours.
    Payload,
}

impl Plan {
    /// The rounds of a case: its own, else the plan's (at least 1).
    pub fn rounds_of(&self, case: &Case) -> u32 {
        case.rounds.unwrap_or(self.rounds).max(1)
    }
}

/// Summary of the pooled half round trips of one run, µs: every round trip in one sorted set,
/// nearest-rank percentiles (monotonic by construction).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PooledSummary {
    pub avg: f64,
    pub count: u64,
    pub max: f64,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    /// Sample standard deviation (n − 1).
    pub stddev: f64,
}

/// What the peer of a run reports when it is done.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PeerReport {
    pub alloc_bytes_per_sample: Option<f64>,
    /// Rust heap allocations per handled sample (marshal + unmarshal on this side), when counted.
    pub allocs_per_sample: Option<f64>,
    /// Pongs answered or samples written.
    pub handled: u64,
    /// Seconds from `go` to the last write (pub) or of serving (pong).
    pub secs: f64,
}

/// One ping-pong run of ours.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct LatencyResult {
    pub alloc_bytes_per_sample: Option<f64>,
    /// The DDS domain id the run used (leased host-wide for the run; absent from files written
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<u32>,
    /// Rust heap allocations per sample (a sample = one marshal at the writer + one unmarshal at
    /// the reader; both ends counted, Cyclone's own C allocations are not).
    pub allocs_per_sample: Option<f64>,
    /// Marshalled bytes per sample (the baggage).
    pub baggage_bytes: usize,
    /// (µs, cumulative fraction), at most 200 points.
    pub cdf: Vec<(f64, f64)>,
    /// Half round trip, µs, pooled.
    pub half_rtt_us: PooledSummary,
    pub instances: u32,
    pub iterations: u32,
    pub marshal: Marshal,
    pub peer: PeerReport,
    /// Pings sent again after `resend_after` without a pong (not recorded).
    pub retries: u64,
    /// The study's round, from 1 (0 for a run outside a study).
    pub round: u32,
    /// Round trips recorded.
    pub round_trips: u64,
    pub samples: u32,
    pub secs: f64,
    /// Payload octets.
    pub size: usize,
    /// KeyedSeq payload bytes on the wire (baggage + 12).
    pub wire_bytes: usize,
}

/// One pub/sub run of ours.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct ThroughputResult {
    /// The DDS domain id the run used (leased host-wide for the run; absent from files written
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<u32>,
    pub alloc_bytes_per_sample: Option<f64>,
    /// Rust heap allocations per sample, writer marshal + reader unmarshal.
    pub allocs_per_sample: Option<f64>,
    pub baggage_bytes: usize,
    pub batch: bool,
    pub duplicated: u64,
    pub lost: u64,
    pub marshal: Marshal,
    /// Payload octets per second, 10⁶.
    pub mb_per_s: f64,
    pub peer: PeerReport,
    pub received: u64,
    pub reordered: u64,
    /// The study's round, from 1 (0 for a run outside a study).
    pub round: u32,
    pub samples_per_s: f64,
    /// From `go` to the last sample unmarshalled.
    pub secs: f64,
    pub sent: u64,
    /// Payload octets.
    pub size: usize,
    /// True when the run stopped on a stall (`lost` > 0).
    pub stalled: bool,
    /// Bootstrap 95 % interval of `steady_samples_per_s` over consecutive batches of the steady
    /// stretch; absent when the run had too few, or from files written before it was stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_ci95: Option<(f64, f64)>,
    /// Steady state: samples after the first tenth arrived ÷ the time since (the start of a
    /// short run is a ramp-up; ddsperf's windows drop it too).
    pub steady_samples_per_s: Option<f64>,
    pub wire_bytes: usize,
    /// KeyedSeq payload bytes (baggage + 12) per second, 10⁶.
    pub wire_mb_per_s: f64,
}

/// One per-second latency line of `ddsperf ping`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PingWindow {
    pub cnt: u64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub max: f64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub mean: f64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub min: f64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub p50: f64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub p90: f64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub p99: f64,
    pub size: usize,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub t: f64,
}

/// One per-second line of `ddsperf sub`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SubWindow {
    pub delta: u64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub ksps: f64,
    pub lost: u64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub mbit_per_s: f64,
    pub size: usize,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub t: f64,
    pub total: u64,
}

/// ddsperf latency over a run, µs (half round trip).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct DdsperfLatency {
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub max: f64,
    /// Count-weighted mean.
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub mean: f64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub min: f64,
    /// Medians over windows of the per-window percentiles.
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub p50: f64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub p90: f64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub p99: f64,
    /// Payload octets (`size` − 12); absent from files written before it was stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<usize>,
    /// The study's round, from 1 (0 for a run outside a study).
    pub round: u32,
    pub round_trips: u64,
    /// ddsperf's `size` (KeyedSeq's 12 fixed bytes + its baggage).
    pub size: usize,
    pub windows: Vec<PingWindow>,
    pub windows_used: usize,
}

impl DdsperfLatency {
    /// Payload octets of the run: as stored, else `size` − 12.
    pub fn payload_size(&self) -> usize {
        self.payload.unwrap_or(self.size.saturating_sub(KEYEDSEQ_FIXED))
    }
}

/// ddsperf throughput over a run.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct DdsperfThroughput {
    pub lost: u64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub max_samples_per_s: f64,
    /// samples/s × size, 10⁶ bytes/s (ddsperf's Mb/s ÷ 8).
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub mb_per_s: f64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub min_samples_per_s: f64,
    /// Payload octets (`size` − 12); absent from files written before it was stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<usize>,
    /// samples/s × payload, 10⁶ bytes/s (comparable with ours); absent from files written
    /// before it was stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_mb_per_s: Option<f64>,
    /// The study's round, from 1 (0 for a run outside a study).
    pub round: u32,
    /// Median over the windows used.
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub samples_per_s: f64,
    /// ddsperf's `size` (KeyedSeq's 12 fixed bytes + its baggage).
    pub size: usize,
    /// Steady state by the estimator of ours: the samples of its whole 1-s windows (all with
    /// data but the first and the last) ÷ their time; absent when fewer than three windows had
    /// data, or from files written before it was stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_samples_per_s: Option<f64>,
    pub total: u64,
    pub windows: Vec<SubWindow>,
    pub windows_used: usize,
}

impl DdsperfThroughput {
    /// Payload octets of the run: as stored, else `size` − 12.
    pub fn payload_size(&self) -> usize {
        self.payload.unwrap_or(self.size.saturating_sub(KEYEDSEQ_FIXED))
    }

    /// MB/s of payload (10⁶ B/s): as stored, else samples/s × payload.
    pub fn payload_mb(&self) -> f64 {
        self.payload_mb_per_s.unwrap_or_else(|| payload_mb(self.samples_per_s, self.payload_size()))
    }
}

/// samples/s × payload octets in 10⁶ B/s.
pub fn payload_mb(samples_per_s: f64, payload: usize) -> f64 {
    samples_per_s * payload as f64 / 1e6
}

/// Marshalling alone: time, bytes and allocations per sample.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct MarshalBench {
    /// Marshalled bytes.
    pub bytes: usize,
    /// Heap allocations per decode (a fresh value).
    pub decode_allocs: Option<f64>,
    pub decode_ns: f64,
    pub decode_ns_range: (f64, f64),
    /// The decode batches stayed shorter than half the target even after re-calibrating (a
    /// busy host): `decode_ns` is unreliable.
    #[serde(default)]
    pub decode_short: bool,
    /// Heap allocations per encode (into a reused buffer).
    pub encode_allocs: Option<f64>,
    /// Median ns per operation over the batches.
    pub encode_ns: f64,
    /// (fastest, slowest) batch, ns per operation.
    pub encode_ns_range: (f64, f64),
    /// As `decode_short`, for `encode_ns`.
    #[serde(default)]
    pub encode_short: bool,
    pub marshal: Marshal,
    /// Payload octets.
    pub size: usize,
}

/// A must-hold comparison of ours with ddsperf in one round.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Check {
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub ddsperf: f64,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub limit: f64,
    pub name: String,
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub ours: f64,
    pub pass: bool,
    /// ours ÷ ddsperf.
    #[serde(deserialize_with = "nullable::f64")]
    #[schemars(with = "Option<f64>")]
    pub ratio: f64,
    pub round: u32,
    /// Payload octets.
    pub size: usize,
    /// `us` or `samples/s`.
    pub unit: String,
}

/// JSON ÷ CDR at one payload size: marshalling alone and in the transport (medians over rounds,
/// nearest rank; throughput in steady state).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Ratio {
    pub latency_p50: Option<f64>,
    pub marshal_bytes: Option<f64>,
    pub marshal_decode: Option<f64>,
    pub marshal_encode: Option<f64>,
    pub marshal_round_trip: Option<f64>,
    pub size: usize,
    pub throughput: Option<f64>,
}

/// A run that failed.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Failure {
    pub error: String,
    pub marshal: Option<Marshal>,
    /// 0 for what runs once (the marshalling bench, the ddsperf check).
    pub round: u32,
    /// Payload octets (0 when not about one size).
    pub size: usize,
    /// `latency`, `throughput`, `ddsperf latency`, `marshal`, ...
    pub what: String,
}

/// The seed's published figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct Published {
    pub latency_ms: Vec<PublishedLatency>,
    /// What cannot be right in them as labelled.
    pub notes: Vec<String>,
    /// Where they were printed.
    pub source: String,
    pub throughput: Vec<PublishedThroughput>,
}

/// One published latency row (milliseconds, as published).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct PublishedLatency {
    pub avg_ms: f64,
    pub instances: u32,
    pub max_ms: f64,
    pub method: String,
    pub min_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub samples: u32,
    pub size: usize,
    pub std_ms: f64,
    pub table: String,
}

/// One published throughput row.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct PublishedThroughput {
    /// Managed-heap bytes allocated per run, as published.
    pub allocated_bytes: u64,
    /// Mean time to write N and have the reader get all N, ms.
    pub mean_ms: f64,
    pub method: String,
    /// As published ("MB/sec", which is 2²⁰ B/s).
    pub mib_per_s: f64,
    pub ratio: f64,
    pub samples: u64,
    pub size: usize,
    pub table: String,
}

/// The seed's methods, as its tables name them.
pub const SEED_NATIVE: &str = "OpenDDS Native";
pub const SEED_CDR: &str = "OpenDDSharp CDR";
pub const SEED_JSON: &str = "OpenDDSharp JSON";

/// The figures shown per payload size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SizeFigures {
    /// Ours with CDR ÷ ddsperf (throughput in steady state where measured): the median of the
    /// rounds' paired ratios (each round runs both, in alternating order); a ratio of the two
    /// medians only when no round has both.
    pub cdr_over_ddsperf: Relative,
    /// The spread of `cdr_over_ddsperf`: an order-statistic interval of the paired ratios'
    /// median. Absent when no round had both, or from files written before it was stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cdr_over_ddsperf_interval: Option<RelativeInterval>,
    /// ddsperf, medians over rounds.
    pub ddsperf: DdsperfFigures,
    /// Ours per marshalling (every marshalling of the latency and throughput runs, in the order
    /// they first appear), medians over rounds.
    pub ours: Vec<OursFigures>,
    /// The seed's published figures at this size, in our units.
    pub seed: SeedFigures,
    /// The seed's OpenDDSharp CDR ÷ OpenDDS native.
    pub seed_cdr_over_native: Relative,
    /// The seed's OpenDDSharp JSON ÷ CDR.
    pub seed_json_over_cdr: Relative,
    /// Payload octets.
    pub size: usize,
}

/// Ours at one size and marshalling: medians over rounds (non-finite values left out).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OursFigures {
    /// Of each run's pooled half-round-trip p50, µs.
    pub latency_p50_us: Option<f64>,
    pub marshal: Marshal,
    /// Payload MB/s (10⁶ B/s) from go to the last sample.
    pub mb_per_s: Option<f64>,
    /// Samples/s in steady state where any run measured it, else from go to the last sample.
    pub samples_per_s: Option<f64>,
}

/// ddsperf at one size: medians over rounds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DdsperfFigures {
    /// Of the runs' p50 (itself a median over 1-s windows), µs.
    pub latency_p50_us: Option<f64>,
    /// `samples_per_s` × payload, 10⁶ B/s.
    pub mb_per_s: Option<f64>,
    /// Of the runs' samples/s.
    pub samples_per_s: Option<f64>,
}

/// One figure relative to another: latency p50 and throughput.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Relative {
    pub latency_p50: Option<f64>,
    pub throughput: Option<f64>,
}

/// Intervals of the medians of [`Relative`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RelativeInterval {
    pub latency_p50: Option<Interval>,
    pub throughput: Option<Interval>,
}

/// A distribution-free interval of a median of paired ratios: order statistics with at least
/// 95 % coverage from 6 values on, `[min, max]` with the coverage it has below.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Interval {
    /// The coverage of the interval (0.95 means 95 %).
    pub coverage: f64,
    /// Upper end.
    pub hi: f64,
    /// Lower end.
    pub lo: f64,
    /// Paired values (rounds) behind it.
    pub n: usize,
}

/// The seed's published rows at one size.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SeedFigures {
    /// In the published order.
    pub latency: Vec<SeedLatency>,
    /// In the published order.
    pub throughput: Vec<SeedThroughput>,
}

/// A published latency row in µs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SeedLatency {
    pub avg_us: f64,
    pub max_us: f64,
    pub method: String,
    pub min_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub std_us: f64,
}

/// A published throughput row in our units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SeedThroughput {
    /// The published MiB/s in 10⁶ B/s.
    pub mb_per_s: f64,
    pub method: String,
    /// Samples per run.
    pub samples: u64,
    /// samples ÷ mean time.
    pub samples_per_s: f64,
}

impl SeedFigures {
    /// The first latency row of `method`.
    pub fn latency_of(&self, method: &str) -> Option<&SeedLatency> {
        self.latency.iter().find(|r| r.method == method)
    }

    /// The first throughput row of `method`.
    pub fn throughput_of(&self, method: &str) -> Option<&SeedThroughput> {
        self.throughput.iter().find(|r| r.method == method)
    }
}

impl SizeFigures {
    /// Ours with `marshal`, if it was run.
    pub fn ours_of(&self, marshal: Marshal) -> Option<&OursFigures> {
        self.ours.iter().find(|o| o.marshal == marshal)
    }
}

impl DdsSection {
    /// How many failures the run recorded and the first one's error, if any (a run with
    /// failures exits 1).
    pub fn first_failure(&self) -> Option<(usize, &str)> {
        self.failures.first().map(|f| (self.failures.len(), f.error.as_str()))
    }

    /// The figures per payload size the part stored (`wirebench_dds::figures` computes them;
    /// `complete` adds them to files written before they were stored).
    pub fn figures(&self) -> &[SizeFigures] {
        self.per_size.as_deref().unwrap_or(&[])
    }

    /// Payload sizes present in any row (ddsperf's less its 12 fixed bytes), ascending.
    pub fn payload_sizes(&self) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        out.extend(self.latency.iter().map(|r| r.size));
        out.extend(self.throughput.iter().map(|r| r.size));
        out.extend(self.marshal.iter().map(|r| r.size));
        out.extend(self.ddsperf_latency.iter().map(|r| r.payload_size()));
        out.extend(self.ddsperf_throughput.iter().map(|r| r.payload_size()));
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The marshallings of our latency and throughput runs, in the order they first appear.
    pub fn run_marshals(&self) -> Vec<Marshal> {
        let mut out: Vec<Marshal> = Vec::new();
        let all = self.latency.iter().map(|r| r.marshal).chain(self.throughput.iter().map(|r| r.marshal));
        for m in all {
            if !out.contains(&m) {
                out.push(m);
            }
        }
        out
    }
}

/// Reading numbers that may have been written as `null` (serde_json writes NaN and infinities
/// so).
pub mod nullable {
    use serde::{Deserialize, Deserializer};

    /// An `f64`, `null` read as NaN.
    pub fn f64<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn json_is_the_shape_results_files_have_and_null_numbers_load() {
        let r = ddsperf_thr(2, 2060, f64::NAN);
        let text = serde_json::to_string(&r).unwrap();
        // Keys in the order results files have (sorted), absent stored figures not written.
        assert_eq!(
            text,
            r#"{"lost":0,"max_samples_per_s":null,"mb_per_s":0.0,"min_samples_per_s":null,"round":2,"samples_per_s":null,"size":2060,"total":1,"windows":[],"windows_used":1}"#
        );
        let back: DdsperfThroughput = serde_json::from_str(&text).unwrap();
        assert!(back.samples_per_s.is_nan());
        assert_eq!(back.payload_size(), 2048);
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
        let f: Failure =
            serde_json::from_str(r#"{"error":"e","marshal":null,"round":1,"size":2048,"what":"latency"}"#).unwrap();
        assert!(f.marshal.is_none());
        assert_eq!(serde_json::to_string(&Marshal::Json).unwrap(), "\"json\"");
        assert_eq!(Marshal::parse(" XCDR1 "), Some(Marshal::Cdr));
    }

    #[test]
    fn the_schema_allows_null_where_numbers_may_not_be_finite() {
        // The schema names the section's fields, null allowed where non-finite numbers can be.
        let schema = serde_json::to_value(schemars::schema_for!(DdsSection)).unwrap();
        let check = &schema["$defs"]["Check"]["properties"]["ratio"]["type"];
        assert_eq!(check, &serde_json::json!(["number", "null"]), "{schema}");
        assert!(schema["properties"]["per_size"].is_object(), "{schema}");
    }
}
