//! The `mqtt` results section (seed 000: OPC UA PubSub over MQTT).
//!
//! Written by `wirebench mqtt sizes|throughput|rtt` and the `[mqtt]` study part (the code that
//! fills it is `wirebench_mqtt::study`); rendered by `wirebench_report::mqtt`. Every part is
//! optional in practice: `mqtt sizes` leaves the transport lists empty, a throughput run leaves
//! the sizes empty and `layout` / `published` absent (`null`).
//!
//! The JSON is the one results files have always had: the section used to be written through a
//! `serde_json::Value`, whose maps sort their keys, so the fields of every type here are in
//! alphabetical (byte) order, which serde keeps; absent values are `null` (no key is ever left
//! out). A new field goes in at its place in that order.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Version of the `mqtt` section layout.
pub const MQTT_SECTION_VERSION: u32 = 1;

/// The whole `mqtt` section.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MqttSection {
    /// The brokers the transport runs went through (or were meant to: see `skipped`).
    pub brokers: Vec<BrokerInfo>,
    /// Encode/decode cost per format × field count (empty without codec speed).
    pub codec: Vec<CodecCost>,
    /// The thesis's figures beside ours, one row per figure.
    pub comparison: Vec<ComparisonRow>,
    /// The study formats of the size table, in its order.
    pub formats: Vec<FormatInfo>,
    /// The seed layout's byte arithmetic (present when the `uadp` format was measured).
    pub layout: Option<Layout>,
    pub notes: Vec<String>,
    /// The thesis's published figures, with their citation.
    pub published: Option<Published>,
    pub rtt: Vec<RttRow>,
    /// One row per format × field count.
    pub sizes: Vec<MessageSize>,
    pub throughput: Vec<ThroughputRow>,
    /// [`MQTT_SECTION_VERSION`] when written.
    pub version: u32,
}

impl MqttSection {
    /// An empty section of the current version.
    pub fn new() -> MqttSection {
        MqttSection {
            version: MQTT_SECTION_VERSION,
            brokers: Vec::new(),
            formats: Vec::new(),
            sizes: Vec::new(),
            layout: None,
            codec: Vec::new(),
            throughput: Vec::new(),
            rtt: Vec::new(),
            published: None,
            comparison: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// How many sides of the throughput and RTT rows failed (a connection lost: the broker
    /// went away) and the first one's reason, if any. A run with such a side exits 1, its
    /// figures kept.
    pub fn first_failure(&self) -> Option<(usize, String)> {
        let mut failed = Vec::new();
        for r in &self.throughput {
            for (who, s) in [("ours", Some(&r.ours)), ("bare", r.bare.as_ref())] {
                if let Some(f) = s.and_then(|s| s.failure.as_ref()) {
                    failed.push(format!("throughput {} {}, {who}: {f}", r.broker, r.payload));
                }
            }
        }
        for r in &self.rtt {
            for (who, s) in [("ours", Some(&r.ours)), ("bare", r.bare.as_ref())] {
                if let Some(f) = s.and_then(|s| s.failure.as_ref()) {
                    failed.push(format!("rtt {} {}, {who}: {f}", r.broker, r.payload));
                }
            }
        }
        let n = failed.len();
        failed.into_iter().next().map(|f| (n, f))
    }
}

impl Default for MqttSection {
    fn default() -> MqttSection {
        MqttSection::new()
    }
}

/// A broker of the run.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct BrokerInfo {
    /// `--client-cert`: the client certificate the clients presented (mutual TLS), as given;
    /// absent without one.
    pub client_cert: Option<String>,
    /// `embedded-rumqttd`, `mosquitto` or `external`.
    pub kind: String,
    /// `rumqttd 0.20 (embedded)`, `mosquitto 2.0.11`, or the URL of an external broker.
    pub name: String,
    /// Why this broker was not measured (e.g. mosquitto not installed).
    pub skipped: Option<String>,
    /// Whether the clients connected over TLS (`mqtts://`, trusting the CA of `--ca-file`);
    /// absent in files written before TLS was supported.
    pub tls: Option<bool>,
    /// `mqtt://host:port` or `mqtts://host:port`, without credentials (empty when skipped).
    pub url: String,
    /// The user name the clients connected with; absent when anonymous. The password is never
    /// written.
    pub username: Option<String>,
}

/// A study format of the size table.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct FormatInfo {
    pub description: String,
    /// `uadp`, `uadp-min`, `uadp-raw`, `uadp-json-rev`, `uadp-json` or `uadp-json-dv`.
    pub id: String,
    /// The JSON mapping (text) rather than UADP (binary).
    pub json: bool,
}

/// The size of one NetworkMessage.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MessageSize {
    /// The NetworkMessage, i.e. the MQTT payload of the thesis (no framing of ours).
    pub bytes: usize,
    pub fields: usize,
    pub format: String,
    /// The bytes in hex (binary formats only).
    pub hex: Option<String>,
    /// Encoded by our uadp crate and decoded back to the same message.
    pub round_trip: bool,
}

/// Encode/decode cost of one NetworkMessage.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct CodecCost {
    pub bytes: usize,
    pub decode_alloc_bytes: Option<f64>,
    pub decode_allocs: Option<f64>,
    pub decode_ns: f64,
    pub encode_alloc_bytes: Option<f64>,
    /// Allocations and bytes requested per operation (counting global allocator; absent when
    /// the process does not count).
    pub encode_allocs: Option<f64>,
    /// Median ns per encode (NetworkMessage in memory → bytes) and decode (bytes → NetworkMessage).
    pub encode_ns: f64,
    pub fields: usize,
    pub format: String,
}

/// Why a transport run stopped.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum EndReason {
    /// Everything sent was accounted for.
    Complete,
    /// The publisher was done and nothing more arrived within the drain/reply timeout.
    DrainTimeout,
    /// The run's deadline passed.
    Deadline,
    /// A client lost its connection (e.g. the broker went away).
    ConnectionLost,
}

impl EndReason {
    /// The name a results file uses (`complete`, `drain-timeout`, `deadline`, `connection-lost`).
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Complete => "complete",
            EndReason::DrainTimeout => "drain-timeout",
            EndReason::Deadline => "deadline",
            EndReason::ConnectionLost => "connection-lost",
        }
    }
}

/// One side (ours or the bare rumqttc pair) of a throughput case, over its repetitions.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ThroughputSide {
    /// QoS ≥ 1: PUBACKs the publisher received by the end of the drain period, summed over the
    /// repetitions (`sent = acked + unacked`); absent at QoS 0 (nothing is acknowledged).
    pub acked: Option<u64>,
    /// Allocations per message in the whole process while the run went (our clients, and
    /// rumqttd when it is embedded); median over repetitions.
    pub allocs_per_msg: Option<f64>,
    /// Lowest delivery ratio of the repetitions: received ÷ scheduled (the messages a
    /// repetition meant to publish, sent or not).
    pub delivery_ratio: f64,
    /// Why this side's repetitions failed: a connection lost (the broker went away) or a
    /// repetition that could not start after others finished; the figures are those of the
    /// repetitions made, and the run exits 1. Absent when none failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Deliveries of a sequence number already received (absent for the bare pair, which
    /// cannot tell).
    pub duplicates: Option<u64>,
    /// How each repetition ended, in run order.
    pub ended_by: Vec<EndReason>,
    pub errors: Vec<String>,
    /// Whether a repetition was bound by our own client threads.
    pub harness_bound: bool,
    /// Most cores our own client threads kept busy in a repetition.
    pub harness_cores_max: f64,
    pub lost: u64,
    /// Median over repetitions, codec payload bytes at the subscriber, 10^6 bytes/s; absent
    /// (as the other medians) when no repetition of this side finished.
    pub mb_per_s: Option<f64>,
    /// 95 % confidence interval of `mb_per_s` (as `msgs_per_s_ci95`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mb_per_s_ci95: Option<(f64, f64)>,
    /// Median over repetitions, subscriber side (distinct messages received / time to the
    /// last).
    pub msgs_per_s: Option<f64>,
    /// 95 % confidence interval of the median `msgs_per_s`: order statistics of the
    /// repetitions (distribution-free; `wirebench_measure::stats::median_ci_order`). Absent
    /// with fewer than 6 repetitions (no 95 % interval exists) and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msgs_per_s_ci95: Option<(f64, f64)>,
    /// Subscriber msgs/s of each repetition, in run order.
    pub per_rep_msgs_per_s: Vec<f64>,
    /// Median over repetitions, publisher side.
    pub publisher_msgs_per_s: Option<f64>,
    /// 95 % confidence interval of `publisher_msgs_per_s` (as `msgs_per_s_ci95`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher_msgs_per_s_ci95: Option<(f64, f64)>,
    pub received: u64,
    pub reordered: Option<u64>,
    /// Messages the repetitions meant to publish, summed (`messages` × repetitions made);
    /// absent in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled: Option<u64>,
    pub sent: u64,
    /// QoS ≥ 1: messages sent whose PUBACK had not arrived by the end of the drain period,
    /// summed over the repetitions; absent at QoS 0.
    pub unacked: Option<u64>,
    pub warnings: Vec<String>,
}

/// One throughput case: a broker, a payload, a QoS; ours beside the bare pair.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ThroughputRow {
    /// Absent when the bare pair was not run.
    pub bare: Option<ThroughputSide>,
    pub broker: String,
    /// Whether every 95 % interval of the row (each side's msgs/s, the ratio) is within
    /// ± `ci_target` of its median; absent when no target was set or no interval exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_met: Option<bool>,
    /// The bound asked for: half the width of a 95 % interval, relative to its median;
    /// repetitions were added (up to the study's limit of repetitions and time) until it held.
    /// Absent when none was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_target: Option<f64>,
    /// The drain period, seconds: once sending ended (every message sent, or the run's limit
    /// reached), deliveries and PUBACKs still counted until everything was accounted for,
    /// nothing had arrived for this long, or this long after the limit. Absent in files
    /// written before it was recorded.
    pub drain_s: Option<f64>,
    /// Fields per NetworkMessage (study formats only).
    pub fields: Option<usize>,
    /// The study format, `synthetic`, `uadp-file` or `json-file`.
    pub format: String,
    /// The goal of `ratio` (ours at least this fraction of bare).
    pub goal: f64,
    pub meets_goal: Option<bool>,
    /// Messages per repetition (both sides alike).
    pub messages: u64,
    /// The shortest repetition asked for, seconds: `messages` was raised from calibration
    /// runs of each side (not counted) so that a repetition at the fastest rate they saw lasts
    /// at least this long (`run_s` says how long they took). Absent when `messages` was taken
    /// as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_run_s: Option<f64>,
    /// Our 8-byte sequence header + the payload (the bare pair sends the same size).
    pub mqtt_payload_bytes: usize,
    pub ours: ThroughputSide,
    /// `uadp, 3 fields`, `bytes:50`, or the NetworkMessage file's name.
    pub payload: String,
    pub payload_bytes: usize,
    pub qos: u8,
    /// Median of per-pair ratios ours / bare (subscriber msgs/s), and their range. A pair is
    /// the two sides' runs of one repetition, back to back, ours first in odd repetitions and
    /// bare first in even ones (A B B A …).
    pub ratio: Option<f64>,
    /// 95 % confidence interval of `ratio`: order statistics of the per-pair ratios (as
    /// `ThroughputSide::msgs_per_s_ci95`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_ci95: Option<(f64, f64)>,
    pub ratio_max: Option<f64>,
    pub ratio_min: Option<f64>,
    /// Repetitions of each side.
    pub reps: usize,
    /// Median duration of a repetition (first publish to the last delivery), seconds, over
    /// both sides; absent in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_s: Option<f64>,
}

/// Percentiles and moments of a set of latencies, in microseconds (from an HDR histogram:
/// relative error ≤ 0.1 %). All zero when there were no samples.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct LatencyStats {
    pub count: u64,
    pub max_us: f64,
    pub mean_us: f64,
    pub min_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p999_us: f64,
    pub p99_us: f64,
    pub stddev_us: f64,
}

/// One side (ours or the bare echo pair) of an RTT case, over its repetitions.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct RttSide {
    /// The pooled CDF: (µs, % of samples ≤ it) at 0, 1, …, 100 % and 99.5, 99.9 %.
    pub cdf: Vec<(f64, f64)>,
    /// Lowest delivery ratio of the repetitions.
    pub delivery_ratio: f64,
    pub ended_by: Vec<EndReason>,
    pub errors: Vec<String>,
    /// Why this side's repetitions failed (a connection lost: the broker went away); the
    /// figures are those of the repetitions made, and the run exits 1. Absent when none failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Replies that arrived after their request was declared lost.
    pub late: u64,
    pub lost: u64,
    /// p50 of each repetition, in run order.
    pub per_rep_p50_us: Vec<f64>,
    pub received: u64,
    /// Pooled over every repetition's samples.
    pub rtt: LatencyStats,
    pub sent: u64,
    /// A Nagle/delayed-ACK stall mode found in the pooled samples.
    pub stall: Option<String>,
    pub warnings: Vec<String>,
}

/// One echo round-trip case: a broker, a payload, a QoS; ours beside the bare pair.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct RttRow {
    pub bare: Option<RttSide>,
    pub broker: String,
    pub fields: Option<usize>,
    pub format: String,
    /// The goal of `ratio` (ours at most this multiple of bare).
    pub goal: f64,
    pub meets_goal: Option<bool>,
    /// Measured round trips per repetition (after `warmup` unmeasured ones).
    pub messages: u64,
    /// `closed-loop` or `open-loop`.
    pub mode: String,
    pub ours: RttSide,
    pub payload: String,
    pub payload_bytes: usize,
    pub qos: u8,
    /// Pooled p50 ours / bare.
    pub ratio: Option<f64>,
    /// Repetitions of each side.
    pub reps: usize,
    /// Unmeasured round trips before the measured ones, per repetition.
    pub warmup: u64,
}

/// The seed layout's bytes before the fields, and why the thesis's sizes cannot be right.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct Layout {
    /// (fields, thesis − ours) per field count.
    pub difference: Vec<(usize, i64)>,
    /// The arithmetic in sentences.
    pub explanation: Vec<String>,
    /// `39 + 5·N`.
    pub formula: String,
    pub header_bytes: usize,
    /// (fields, bytes) of the layout for each measured field count.
    pub ours: Vec<(usize, usize)>,
    pub parts: Vec<LayoutPart>,
    pub per_field_bytes: usize,
    /// (fields, bytes) of the thesis's size table.
    pub thesis: Vec<(usize, u64)>,
}

/// One part of the seed layout.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct LayoutPart {
    pub bytes: usize,
    pub note: String,
    pub offset: usize,
    pub part: String,
}

/// The thesis's published figures (not measured here).
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct Published {
    pub citation: String,
    pub memory: PublishedMemory,
    pub rtt: PublishedRtt,
    pub sizes: PublishedSizes,
    pub throughput: PublishedThroughput,
}

/// The thesis's size table.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PublishedSizes {
    pub rows: Vec<PublishedSize>,
    pub source: String,
}

/// One row of the thesis's size table.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PublishedSize {
    pub fields: usize,
    pub json_bytes: u64,
    pub uadp_bytes: u64,
}

/// The thesis's throughput table.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PublishedThroughput {
    pub delivery: f64,
    pub fields: usize,
    pub json_bytes: u64,
    pub json_msgs_per_s: f64,
    pub messages: u64,
    pub source: String,
    pub uadp_bytes: u64,
    pub uadp_msgs_per_s: f64,
}

/// The thesis's echo RTT table.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PublishedRtt {
    pub json_ms: MeanMinMax,
    pub samples: u64,
    pub source: String,
    pub uadp_ms: MeanMinMax,
}

/// Mean, minimum and maximum of a published set of samples.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MeanMinMax {
    pub max: f64,
    pub mean: f64,
    pub min: f64,
}

/// The thesis's memory table.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PublishedMemory {
    pub fields: usize,
    pub json: PublishedFootprint,
    pub source: String,
    pub uadp: PublishedFootprint,
}

/// RAM and wire bytes of one encoding in the thesis's memory table.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PublishedFootprint {
    pub ram_bytes: u64,
    pub wire_bytes: u64,
}

/// One figure of the thesis beside ours.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ComparisonRow {
    pub note: String,
    /// Absent when our run has no such figure.
    pub ours: Option<Figure>,
    /// 95 % confidence interval of `ours` when it is a measured rate or a ratio of rates (see
    /// `note` for how it was taken); absent otherwise and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ours_ci95: Option<(f64, f64)>,
    /// Where in the thesis the figure is.
    pub source: String,
    pub thesis: Figure,
    /// `B`, `msgs/s`, `ms` or `×`.
    pub unit: String,
    pub what: String,
}

/// A number of the comparison: a count (written as an integer) or a measured value (written
/// as a float), so a figure keeps the form it was written in.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq)]
#[serde(untagged)]
pub enum Figure {
    Count(u64),
    Value(f64),
}

impl From<Figure> for f64 {
    /// The figure as a float.
    fn from(f: Figure) -> f64 {
        match f {
            Figure::Count(n) => n as f64,
            Figure::Value(x) => x,
        }
    }
}

impl From<u64> for Figure {
    fn from(n: u64) -> Figure {
        Figure::Count(n)
    }
}

impl From<usize> for Figure {
    fn from(n: usize) -> Figure {
        Figure::Count(n as u64)
    }
}

impl From<f64> for Figure {
    fn from(x: f64) -> Figure {
        Figure::Value(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_keep_their_form() {
        let rows: Vec<Option<Figure>> = serde_json::from_str("[38, 299.4, 2.0, null]").unwrap();
        assert_eq!(rows, vec![Some(Figure::Count(38)), Some(Figure::Value(299.4)), Some(Figure::Value(2.0)), None]);
        assert_eq!(serde_json::to_string(&rows).unwrap(), "[38,299.4,2.0,null]");
        assert_eq!(f64::from(Figure::Count(38)), 38.0);
    }

    #[test]
    fn end_reasons_are_named_as_written() {
        for e in [EndReason::Complete, EndReason::DrainTimeout, EndReason::Deadline, EndReason::ConnectionLost] {
            assert_eq!(serde_json::to_value(e).unwrap(), e.name());
        }
    }

    /// A section with every part present, as a results file has it.
    const FULL: &str = r#"{"version": 1,
        "brokers": [{"name": "mosquitto 2.0.11", "url": "mqtt://127.0.0.1:1883", "kind": "mosquitto", "skipped": null,
                     "tls": false, "username": null, "client_cert": null},
                    {"name": "mqtts://b:8883", "url": "mqtts://b:8883", "kind": "external", "skipped": null,
                     "tls": true, "username": "meter", "client_cert": "client.pem"}],
        "formats": [{"id": "uadp", "description": "UADP", "json": false}],
        "sizes": [{"format": "uadp", "fields": 3, "bytes": 54, "round_trip": true, "hex": "d10c"}],
        "layout": {"parts": [{"part": "UADPFlags", "bytes": 1, "offset": 0, "note": "0xD1"}], "header_bytes": 39,
                   "per_field_bytes": 5, "formula": "39 + 5·N", "ours": [[3, 54]], "thesis": [[3, 48]], "difference": [[3, -6]],
                   "explanation": ["six bytes"]},
        "codec": [{"format": "uadp", "fields": 3, "bytes": 54, "encode_ns": 120.5, "decode_ns": 200.0, "encode_allocs": 1.0,
                   "encode_alloc_bytes": 64.0, "decode_allocs": null, "decode_alloc_bytes": null}],
        "throughput": [{"broker": "b", "payload": "uadp, 3 fields", "format": "uadp", "fields": 3, "payload_bytes": 54,
            "mqtt_payload_bytes": 62, "qos": 1, "messages": 100, "reps": 2, "drain_s": 2.0,
            "ours": {"msgs_per_s": 9000.0, "publisher_msgs_per_s": 9100.0, "mb_per_s": 0.5, "per_rep_msgs_per_s": [9000.0, 9001.5],
                     "sent": 200, "acked": 199, "unacked": 1, "received": 200, "lost": 0, "duplicates": 0, "reordered": 0, "delivery_ratio": 1.0,
                     "ended_by": ["complete", "connection-lost"], "allocs_per_msg": 3.5, "harness_cores_max": 0.4,
                     "harness_bound": false, "errors": [], "warnings": ["w"]},
            "bare": {"msgs_per_s": null, "publisher_msgs_per_s": null, "mb_per_s": null, "per_rep_msgs_per_s": [],
                     "sent": 0, "acked": null, "unacked": null, "received": 0, "lost": 0, "duplicates": null, "reordered": null, "delivery_ratio": 1.0,
                     "ended_by": [], "allocs_per_msg": null, "harness_cores_max": 0.0, "harness_bound": false,
                     "errors": ["bare rumqttc pair: refused"], "warnings": []},
            "ratio": null, "ratio_min": null, "ratio_max": null, "goal": 0.8, "meets_goal": null}],
        "rtt": [{"broker": "b", "payload": "bytes:50", "format": "synthetic", "fields": null, "payload_bytes": 50, "qos": 0,
            "mode": "closed-loop", "messages": 10, "warmup": 2, "reps": 1,
            "ours": {"rtt": {"count": 10, "min_us": 50.0, "p50_us": 60.0, "p90_us": 70.0, "p99_us": 80.0, "p999_us": 80.0,
                             "max_us": 80.0, "mean_us": 61.25, "stddev_us": 5.0},
                     "per_rep_p50_us": [60.0], "sent": 10, "received": 10, "lost": 0, "late": 0, "delivery_ratio": 1.0,
                     "ended_by": ["drain-timeout"], "cdf": [[50.0, 0.0], [80.0, 100.0]], "stall": null, "errors": [], "warnings": []},
            "bare": null, "ratio": null, "goal": 1.5, "meets_goal": null}],
        "published": {"citation": "F. Braz",
            "sizes": {"source": "s1", "rows": [{"fields": 3, "json_bytes": 341, "uadp_bytes": 48}]},
            "throughput": {"source": "s2", "messages": 50, "fields": 3, "json_msgs_per_s": 126.9, "uadp_msgs_per_s": 299.4,
                           "json_bytes": 370, "uadp_bytes": 54, "delivery": 1.0},
            "rtt": {"source": "s3", "samples": 30, "json_ms": {"mean": 120.79, "min": 70.15, "max": 220.3},
                    "uadp_ms": {"mean": 125.49, "min": 66.6, "max": 383.86}},
            "memory": {"source": "s4", "fields": 5, "json": {"ram_bytes": 1424, "wire_bytes": 472},
                       "uadp": {"ram_bytes": 336, "wire_bytes": 58}}},
        "comparison": [{"what": "UADP size, 3 fields", "unit": "B", "thesis": 48, "ours": 54, "source": "s1", "note": "n"},
                       {"what": "UADP msgs/s", "unit": "msgs/s", "thesis": 299.4, "ours": 9000.0, "source": "s2", "note": "n"},
                       {"what": "memory", "unit": "B", "thesis": 336, "ours": null, "source": "s4", "note": "n"}],
        "notes": ["a note"]}"#;

    #[test]
    fn serializes_as_results_files_have_it() {
        let s: MqttSection = serde_json::from_str(FULL).unwrap();
        // This crate's serde_json sorts the keys of a Value, as the section was written before
        // it had types: serializing the types directly must give the same text.
        let direct = serde_json::to_string_pretty(&s).unwrap();
        let via_value = serde_json::to_string_pretty(&serde_json::to_value(&s).unwrap()).unwrap();
        assert_eq!(direct, via_value);
        // Nothing lost or changed: the same Value as the text read.
        assert_eq!(serde_json::to_value(&s).unwrap(), serde_json::from_str::<serde_json::Value>(FULL).unwrap());
        assert_eq!(s.comparison[0].thesis, Figure::Count(48));
        assert_eq!(s.comparison[1].ours, Some(Figure::Value(9000.0)));
        let ours = &s.throughput[0].ours;
        assert_eq!((ours.acked, ours.unacked), (Some(199), Some(1)));
        assert_eq!(s.brokers[1].username.as_deref(), Some("meter"));
    }

    #[test]
    fn files_from_before_tls_and_drain_still_read() {
        // A broker and a throughput side as written before these fields existed.
        let b: BrokerInfo =
            serde_json::from_str(r#"{"name": "x", "url": "mqtt://h:1", "kind": "external", "skipped": null}"#).unwrap();
        assert_eq!((b.tls, b.username, b.client_cert), (None, None, None));
        let v: serde_json::Value = serde_json::from_str(FULL).unwrap();
        let mut side = v["throughput"][0]["ours"].clone();
        side.as_object_mut().unwrap().retain(|k, _| k != "acked" && k != "unacked");
        let side: ThroughputSide = serde_json::from_value(side).unwrap();
        assert_eq!((side.acked, side.unacked), (None, None));
    }

    #[test]
    fn has_a_json_schema() {
        let schema = serde_json::to_value(schemars::schema_for!(MqttSection)).unwrap();
        let props = schema["properties"].as_object().unwrap();
        assert_eq!(props.len(), 11);
        assert!(schema["required"].as_array().unwrap().iter().any(|k| k == "version"));
        assert!(schema["$defs"]["Figure"]["anyOf"].is_array(), "{schema}");
    }

    #[test]
    fn absent_parts_are_null() {
        let v = serde_json::to_value(MqttSection::new()).unwrap();
        assert_eq!(v["version"], MQTT_SECTION_VERSION);
        assert!(v["layout"].is_null() && v["published"].is_null());
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 11);
    }
}
