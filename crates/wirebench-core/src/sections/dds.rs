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

use std::borrow::Cow;

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
    /// Count Rust heap allocations.
    pub count_allocs: bool,
    /// Run Cyclone's ddsperf beside ours.
    pub ddsperf: bool,
    /// Seconds per ddsperf run.
    pub ddsperf_secs: u32,
    /// Domain ids used: domain_base .. domain_base + 40, one fresh id per run.
    pub domain_base: u32,
    pub latency: bool,
    pub marshal_bench: bool,
    pub marshals: Vec<Marshal>,
    /// Everything is repeated this many times.
    pub rounds: u32,
    pub throughput: bool,
    /// Latency: round trips before recording.
    pub warmup: u32,
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
    /// ddsperf's `size` (payload + 12).
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
    /// ddsperf's `size` (payload + 12).
    pub size: usize,
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
    /// Heap allocations per encode (into a reused buffer).
    pub encode_allocs: Option<f64>,
    /// Median ns per operation over the batches.
    pub encode_ns: f64,
    /// (fastest, slowest) batch, ns per operation.
    pub encode_ns_range: (f64, f64),
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
    /// Ours with CDR ÷ ddsperf (throughput in steady state where measured).
    pub cdr_over_ddsperf: Relative,
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
    /// The figures per payload size: as stored by the part, or — for a file written before they
    /// were stored — derived from its rows the same way ([`DdsSection::derive_per_size`]).
    pub fn figures(&self) -> Cow<'_, [SizeFigures]> {
        match &self.per_size {
            Some(v) => Cow::Borrowed(v.as_slice()),
            None => Cow::Owned(self.derive_per_size()),
        }
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

    /// Compute the figures per payload size from the rows: for each size of
    /// [`DdsSection::payload_sizes`], medians over rounds (non-finite values left out; of an even
    /// count, the mean of the middle two), ratios, and the seed's published rows in µs, 10⁶ B/s
    /// and samples/s. The part stores the result in `per_size` at measure time.
    pub fn derive_per_size(&self) -> Vec<SizeFigures> {
        let marshals = self.run_marshals();
        self.payload_sizes().into_iter().map(|size| self.figures_at(size, &marshals)).collect()
    }

    fn figures_at(&self, size: usize, marshals: &[Marshal]) -> SizeFigures {
        let lat = |m: Marshal| rounds_median(self.latency.iter().filter(|r| r.size == size && r.marshal == m).map(|r| r.half_rtt_us.p50));
        let thr = |m: Marshal, f: &dyn Fn(&ThroughputResult) -> Option<f64>| {
            rounds_median(self.throughput.iter().filter(|r| r.size == size && r.marshal == m).filter_map(f))
        };
        let sps = |m: Marshal| thr(m, &|r| r.steady_samples_per_s).or_else(|| thr(m, &|r| Some(r.samples_per_s)));
        let ours: Vec<OursFigures> = marshals
            .iter()
            .map(|&m| OursFigures { marshal: m, latency_p50_us: lat(m), mb_per_s: thr(m, &|r| Some(r.mb_per_s)), samples_per_s: sps(m) })
            .collect();
        let native_sps = rounds_median(self.ddsperf_throughput.iter().filter(|r| r.payload_size() == size).map(|r| r.samples_per_s));
        let ddsperf = DdsperfFigures {
            latency_p50_us: rounds_median(self.ddsperf_latency.iter().filter(|r| r.payload_size() == size).map(|r| r.p50)),
            samples_per_s: native_sps,
            mb_per_s: native_sps.map(|x| payload_mb(x, size)),
        };
        let cdr_over_ddsperf = Relative {
            latency_p50: ratio(lat(Marshal::Cdr), ddsperf.latency_p50_us),
            throughput: ratio(sps(Marshal::Cdr), ddsperf.samples_per_s),
        };
        let seed = SeedFigures {
            latency: self.published.latency_ms.iter().filter(|r| r.size == size).map(seed_latency).collect(),
            throughput: self.published.throughput.iter().filter(|r| r.size == size).map(seed_throughput).collect(),
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
        SizeFigures { size, ours, ddsperf, cdr_over_ddsperf, seed, seed_cdr_over_native, seed_json_over_cdr }
    }
}

/// `a ÷ b` when both are there.
fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    a.zip(b).map(|(a, b)| a / b)
}

/// The median over rounds of one figure: finite values only, `None` when there is none; of an
/// even count, the mean of the middle two as `(a + b) / 2` (the arithmetic the report has always
/// used, so figures derived from older files are the same bits).
fn rounds_median(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
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

    fn lat(round: u32, size: usize, marshal: Marshal, p50: f64) -> LatencyResult {
        LatencyResult {
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
            round,
            samples_per_s: sps,
            size,
            total: 1,
            windows: vec![],
            windows_used: 1,
        }
    }

    #[test]
    fn medians_over_rounds_skip_non_finite_and_average_the_middle_two() {
        assert_eq!(rounds_median([3.0, 1.0, 2.0].into_iter()), Some(2.0));
        assert_eq!(rounds_median([4.0, 1.0, f64::NAN].into_iter()), Some(2.5));
        assert_eq!(rounds_median([f64::INFINITY].into_iter()), None);
        assert_eq!(rounds_median(std::iter::empty()), None);
    }

    #[test]
    fn figures_per_size_match_ddsperf_by_payload() {
        let s = DdsSection {
            latency: vec![lat(1, 2048, Marshal::Cdr, 20.0), lat(2, 2048, Marshal::Cdr, 30.0), lat(1, 2048, Marshal::Json, 60.0)],
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
        let f = s.figures();
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
        let f: Failure = serde_json::from_str(r#"{"error":"e","marshal":null,"round":1,"size":2048,"what":"latency"}"#).unwrap();
        assert!(f.marshal.is_none());
        assert_eq!(serde_json::to_string(&Marshal::Json).unwrap(), "\"json\"");
        assert_eq!(Marshal::parse(" XCDR1 "), Some(Marshal::Cdr));
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
        let window = PingWindow { cnt: 1, max: 1.0, mean: 1.0, min: 1.0, p50: 1.0, p90: 1.0, p99: 1.0, size: 2060, t: 1.0 };
        let sub = SubWindow { delta: 1, ksps: 1.0, lost: 0, mbit_per_s: 1.0, size: 2060, t: 1.0, total: 1 };
        let mut s = DdsSection {
            checks: vec![Check { ddsperf: 1.0, limit: 2.0, name: "c".into(), ours: 1.0, pass: true, ratio: 1.0, round: 1, size: 2048, unit: "us".into() }],
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
            ddsperf_throughput: vec![DdsperfThroughput { payload: Some(2048), payload_mb_per_s: Some(1.0), windows: vec![sub], ..ddsperf_thr(1, 2060, 1.0) }],
            failures: vec![Failure { error: "e".into(), marshal: Some(Marshal::Cdr), round: 1, size: 2048, what: "latency".into() }],
            latency: vec![LatencyResult { cdf: vec![(1.0, 1.0)], ..lat(1, 2048, Marshal::Cdr, 1.0) }],
            marshal: vec![MarshalBench {
                bytes: 1,
                decode_allocs: None,
                decode_ns: 1.0,
                decode_ns_range: (1.0, 1.0),
                encode_allocs: None,
                encode_ns: 1.0,
                encode_ns_range: (1.0, 1.0),
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
                steady_samples_per_s: None,
                wire_bytes: 1,
                wire_mb_per_s: 1.0,
            }],
            ..Default::default()
        };
        s.per_size = Some(s.derive_per_size());
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
        // The schema names the section's fields, null allowed where non-finite numbers can be.
        let schema = serde_json::to_value(schemars::schema_for!(DdsSection)).unwrap();
        let check = &schema["$defs"]["Check"]["properties"]["ratio"]["type"];
        assert_eq!(check, &serde_json::json!(["number", "null"]), "{schema}");
        assert!(schema["properties"]["per_size"].is_object(), "{schema}");
    }
}
