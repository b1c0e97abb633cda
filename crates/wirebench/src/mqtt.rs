//! `wirebench mqtt ...` and the `[mqtt]` study part: OPC UA PubSub over MQTT (seed 000).
//!
//! - `mqtt sizes`: the study's NetworkMessages (UADP with the thesis's header options, the
//!   smallest UADP options, RawData, JSON reversible / non-reversible / DataValue) for 1, 3, 5
//!   and 10 fields, each encoded by our `uadp` crate and checked to decode back; the seed
//!   layout's byte arithmetic (39 + 5N) beside the thesis's 38/48/58/83; encode/decode time and
//!   allocations per message.
//! - `mqtt throughput`: N messages from one publisher to one subscriber through a broker, with
//!   delivery accounting; `--baseline` runs the bare rumqttc pair beside ours, interleaved.
//! - `mqtt rtt`: echo round trip (pinger → broker → echo client → broker → pinger), pooled
//!   histogram p50/p90/p99/max, with `--baseline` the bare echo pair beside it.
//!
//! Every command writes the same `mqtt` results section (wirebench-report renders it) and,
//! with `--out`, a results file (atomically). Bad input — an unknown format, a malformed
//! NetworkMessage file, an unreachable broker, an invalid topic — is one line and exit code 2.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use serde::Serialize;
use serde_json::{json, Value};
use wirebench_core::results::Results;
use wirebench_mqtt::opcua::{self, thesis, StudyFormat, FIELD_COUNTS};
use wirebench_mqtt::{
    baseline_echo_rtt, baseline_throughput, echo_rtt, throughput, EchoConfig, EchoResult, EmbeddedBroker,
    Endpoint, EndReason, ExternalBroker, LatencyStats, Mosquitto, MqttBroker, MqttError, Payloads, Qos,
    ThroughputConfig, ThroughputResult, ECHO_P50_RATIO_GOAL, THROUGHPUT_RATIO_GOAL,
};
use wirebench_report::Output;

use crate::common::*;

/// Version of the `mqtt` results section layout.
pub const SECTION_VERSION: u32 = 1;

// =============================================================================================
// Command line

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Subcommand)]
enum Cmd {
    /// Size of each study NetworkMessage (1/3/5/10 fields), checked to decode; the 39 + 5N
    /// arithmetic beside the thesis's sizes; encode/decode time and allocations.
    Sizes(SizesArgs),
    /// Publish N messages to one subscriber: msgs/s with delivery (received/lost/duplicated/reordered).
    Throughput(ThroughputArgs),
    /// Echo round trip through the broker: p50/p90/p99/max.
    Rtt(RttArgs),
}

#[derive(clap::Args)]
struct SizesArgs {
    /// Formats, comma-separated (default: all of uadp, uadp-min, uadp-raw, uadp-json-rev, uadp-json, uadp-json-dv).
    #[arg(long, value_delimiter = ',')]
    format: Vec<String>,
    /// Field counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = FIELD_COUNTS.to_vec())]
    fields: Vec<usize>,
    /// Skip the encode/decode timing and allocation counts.
    #[arg(long)]
    no_speed: bool,
    #[command(flatten)]
    out: OutArgs,
}

#[derive(clap::Args)]
struct OutArgs {
    #[arg(long, short = 'o', value_enum, default_value_t = crate::OutputArg::Table)]
    output: crate::OutputArg,
    /// Also write the results file here (atomically).
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
struct TransportArgs {
    /// `embedded` (rumqttd in this process), `mosquitto` (a child on a free loopback port) or `mqtt://host[:port]`.
    #[arg(long, default_value = "embedded")]
    broker: String,
    /// MQTT QoS: 0 or 1.
    #[arg(long, default_value = "0")]
    qos: String,
    /// The payload: a study format (uadp, uadp-min, uadp-raw, uadp-json-rev, uadp-json, uadp-json-dv)
    /// or `bytes:N` (N synthetic bytes).
    #[arg(long, default_value = "uadp")]
    format: String,
    /// Fields per NetworkMessage (study formats).
    #[arg(long, default_value_t = 3)]
    fields: usize,
    /// Send this NetworkMessage file instead (UADP binary, or JSON text starting with `{`/`[`);
    /// it must decode.
    #[arg(long, conflicts_with_all = ["format", "fields"])]
    message: Option<PathBuf>,
    /// Measured messages.
    #[arg(long)]
    count: Option<u64>,
    /// Limit on each run, seconds (the run ends with its losses counted).
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    /// Run the bare rumqttc pair beside ours (interleaved) through the same broker.
    #[arg(long)]
    baseline: bool,
    /// Repetitions (ours and bare alternate: A B B A ...).
    #[arg(long, default_value_t = 1)]
    reps: usize,
    /// Topic to publish on (default: a fresh `wirebench/<run>/...` per run); no wildcards.
    #[arg(long)]
    topic: Option<String>,
    #[command(flatten)]
    out: OutArgs,
}

#[derive(clap::Args)]
struct ThroughputArgs {
    #[command(flatten)]
    t: TransportArgs,
}

#[derive(clap::Args)]
struct RttArgs {
    #[command(flatten)]
    t: TransportArgs,
    /// Round trips before the measured ones.
    #[arg(long, default_value_t = 200)]
    warmup: u64,
    /// Requests per second (open loop, latency from the scheduled send time); default closed loop.
    #[arg(long)]
    rate: Option<f64>,
}

pub fn run(args: Args) -> Result<()> {
    match args.cmd {
        Cmd::Sizes(a) => {
            if let Some(p) = &a.out.out {
                check_writable(p)?;
            }
            let formats = parse_formats(&a.format)?;
            check_fields(&a.fields)?;
            let mut section = Section::new();
            section.sizes(&formats, &a.fields, !a.no_speed)?;
            section.published = Some(published());
            section.comparison = comparison(&section);
            finish(section, &a.out, json!({"command": "mqtt sizes", "formats": a.format, "fields": a.fields}))
        }
        Cmd::Throughput(a) => transport(&a.t, None),
        Cmd::Rtt(a) => transport(&a.t, Some((a.warmup, a.rate))),
    }
}

fn transport(t: &TransportArgs, rtt: Option<(u64, Option<f64>)>) -> Result<()> {
    if let Some(p) = &t.out.out {
        check_writable(p)?;
    }
    if !(t.timeout.is_finite() && t.timeout > 0.0 && t.timeout <= 86_400.0) {
        return Err(bad(format!("--timeout {}: expected seconds in (0, 86400]", t.timeout)));
    }
    if t.reps == 0 || t.reps > 100 {
        return Err(bad(format!("--reps {}: expected 1..=100", t.reps)));
    }
    let payload = match &t.message {
        Some(path) => PayloadSpec::file(path)?,
        None => PayloadSpec::parse(&t.format, t.fields)?,
    };
    if let Some(topic) = &t.topic {
        wirebench_mqtt::validate_topic(topic).map_err(mqtt_err)?;
    }
    let qos = match t.qos.as_str() {
        "0" => Qos::AtMostOnce,
        "1" => Qos::AtLeastOnce,
        other => return Err(bad(format!("--qos {other:?}: expected 0 or 1 (QoS 2 is not measured)"))),
    };
    let broker = Broker::open(&t.broker)?;
    let timeout_ms = (t.timeout * 1e3).round() as u64;
    let progress = std::io::stderr().is_terminal();
    let mut section = Section::new();
    section.brokers.push(broker.info());
    match rtt {
        None => {
            let cfg = ThroughputConfig {
                messages: t.count.unwrap_or(10_000),
                qos,
                topic: t.topic.clone(),
                deadline_ms: timeout_ms,
                connect_timeout_ms: timeout_ms.min(5_000),
                drain_timeout_ms: timeout_ms.min(2_000),
                ..ThroughputConfig::default()
            };
            let row = throughput_case(&broker, &payload, &cfg, t.reps, t.baseline, progress)?;
            section.throughput.push(row);
        }
        Some((warmup, rate)) => {
            let (req_topic, resp_topic) = match &t.topic {
                Some(s) => (Some(s.clone()), Some(format!("{s}/echo"))),
                None => (None, None),
            };
            let cfg = EchoConfig {
                messages: t.count.unwrap_or(2_000),
                warmup,
                qos,
                rate,
                req_topic,
                resp_topic,
                deadline_ms: timeout_ms,
                connect_timeout_ms: timeout_ms.min(5_000),
                reply_timeout_ms: timeout_ms.min(1_000),
                ..EchoConfig::default()
            };
            let row = rtt_case(&broker, &payload, &cfg, t.reps, t.baseline, progress)?;
            section.rtt.push(row);
        }
    }
    let what = if rtt.is_some() { "mqtt rtt" } else { "mqtt throughput" };
    let config = json!({
        "command": what, "broker": t.broker, "qos": qos.level(), "payload": payload.label,
        "count": t.count, "timeout_s": t.timeout, "baseline": t.baseline, "reps": t.reps, "topic": t.topic,
    });
    finish(section, &t.out, config)
}

/// Render (and optionally write) a section as a results file.
fn finish(section: Section, out: &OutArgs, config: Value) -> Result<()> {
    let mut results = Results::new(provenance(0), config);
    results.mqtt = Some(section.into_value());
    if let Some(p) = &out.out {
        results.write_atomic(p).map_err(|e| bad(e.to_string()))?;
    }
    let output: Output = out.output.into();
    let text = if output == Output::Json {
        serde_json::to_string_pretty(&results)? + "\n"
    } else {
        wirebench_report::mqtt::render(&results, output)
    };
    write_stdout(text.as_bytes())
}

fn parse_formats(list: &[String]) -> Result<Vec<StudyFormat>> {
    if list.is_empty() {
        return Ok(StudyFormat::ALL.to_vec());
    }
    list.iter()
        .map(|s| {
            StudyFormat::parse(s.trim())
                .ok_or_else(|| bad(format!("--format {s:?}: unknown format (known: {})", StudyFormat::ids())))
        })
        .collect()
}

fn check_fields(fields: &[usize]) -> Result<()> {
    if fields.is_empty() {
        return Err(bad("fields: give at least one field count"));
    }
    for &n in fields {
        if n == 0 || n > 1000 {
            return Err(bad(format!("fields: {n} is out of range (1..=1000)")));
        }
    }
    Ok(())
}

/// MQTT errors from the user's input (URL, topic, configuration, unreachable broker) are bad
/// input (exit 2); the rest are failures of the tool (exit 1).
fn mqtt_err(e: MqttError) -> anyhow::Error {
    match e {
        MqttError::Embedded(_) | MqttError::Io { .. } => anyhow::anyhow!("{e}"),
        other => bad(other.to_string()),
    }
}

// =============================================================================================
// Brokers and payloads

enum Broker {
    Embedded(EmbeddedBroker),
    Mosquitto(Mosquitto),
    External(ExternalBroker),
}

impl Broker {
    fn open(spec: &str) -> Result<Broker> {
        match spec {
            "embedded" => Ok(Broker::Embedded(
                EmbeddedBroker::start(wirebench_mqtt::BrokerConfig::default()).map_err(mqtt_err)?,
            )),
            "mosquitto" => Ok(Broker::Mosquitto(Mosquitto::start().map_err(|e| bad(format!("--broker mosquitto: {e}")))?)),
            url if url.contains("://") => {
                Ok(Broker::External(ExternalBroker::new(url).map_err(|e| bad(format!("--broker: {e}")))?))
            }
            other => Err(bad(format!("--broker {other:?}: expected embedded, mosquitto or mqtt://host[:port]"))),
        }
    }

    fn name(&self) -> String {
        match self {
            Broker::Embedded(_) => "rumqttd 0.20 (embedded)".into(),
            Broker::Mosquitto(m) => m.version().trim().replace("mosquitto version", "mosquitto"),
            Broker::External(e) => e.url().to_string(),
        }
    }

    fn info(&self) -> BrokerInfo {
        let ep = self.endpoint();
        BrokerInfo { name: self.name(), kind: kind_name(&ep), url: ep.url, skipped: None }
    }
}

impl MqttBroker for Broker {
    fn endpoint(&self) -> Endpoint {
        match self {
            Broker::Embedded(b) => b.endpoint(),
            Broker::Mosquitto(b) => b.endpoint(),
            Broker::External(b) => b.endpoint(),
        }
    }
}

fn kind_name(ep: &Endpoint) -> String {
    serde_json::to_value(ep.kind).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

/// What a transport run sends.
struct PayloadSpec {
    /// `uadp`, `bytes:50`, or the file name.
    label: String,
    format: String,
    fields: Option<usize>,
    bytes: Vec<u8>,
}

impl PayloadSpec {
    fn parse(format: &str, fields: usize) -> Result<PayloadSpec> {
        if let Some(n) = format.strip_prefix("bytes:") {
            let n: usize = n
                .parse()
                .ok()
                .filter(|n| (1..=1 << 20).contains(n))
                .ok_or_else(|| bad(format!("--format {format:?}: bytes:N needs N in 1..=1048576")))?;
            return Ok(PayloadSpec {
                label: format.into(),
                format: "synthetic".into(),
                fields: None,
                bytes: Payloads::synthetic(n).get(0).to_vec(),
            });
        }
        let f = StudyFormat::parse(format).ok_or_else(|| {
            bad(format!("--format {format:?}: unknown format (known: {}, bytes:N)", StudyFormat::ids()))
        })?;
        check_fields(&[fields])?;
        let bytes = f.encode(fields).map_err(bad)?;
        f.decode_check(&bytes, fields).map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(PayloadSpec { label: format!("{format}, {fields} fields"), format: f.id().into(), fields: Some(fields), bytes })
    }

    /// A NetworkMessage file: JSON when its first non-blank byte is `{` or `[`, else UADP.
    fn file(path: &Path) -> Result<PayloadSpec> {
        let bytes = std::fs::read(path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
        let name = path.display().to_string();
        if bytes.is_empty() {
            return Err(bad(format!("{name}: empty file, not a NetworkMessage")));
        }
        let is_json = bytes.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|b| *b == b'{' || *b == b'[');
        let format = if is_json {
            let text = std::str::from_utf8(&bytes)
                .map_err(|e| bad(format!("{name}: not UTF-8 text (at byte {})", e.valid_up_to())))?;
            uadp::json::from_json(text, &Default::default())
                .map_err(|e| bad(format!("{name}: JSON NetworkMessage: {e}")))?;
            "json-file"
        } else {
            uadp::decode_exact(&bytes, &uadp::DecodeOptions::default())
                .map_err(|e| bad(format!("{name}: UADP NetworkMessage: {e}")))?;
            "uadp-file"
        };
        Ok(PayloadSpec { label: name, format: format.into(), fields: None, bytes })
    }
}

// =============================================================================================
// The section (serialized as results["mqtt"])

#[derive(Serialize)]
struct BrokerInfo {
    name: String,
    url: String,
    kind: String,
    /// Why this broker was not measured (e.g. mosquitto not installed).
    skipped: Option<String>,
}

#[derive(Serialize)]
struct FormatInfo {
    id: &'static str,
    description: &'static str,
    json: bool,
}

#[derive(Serialize)]
struct SizeRow {
    format: &'static str,
    fields: usize,
    /// The NetworkMessage, i.e. the MQTT payload of the thesis (no framing of ours).
    bytes: usize,
    /// Encoded by our uadp crate and decoded back to the same message.
    round_trip: bool,
    hex: Option<String>,
}

#[derive(Serialize)]
struct CodecRow {
    format: &'static str,
    fields: usize,
    bytes: usize,
    /// Median ns per encode (NetworkMessage in memory → bytes) and decode (bytes → NetworkMessage).
    encode_ns: f64,
    decode_ns: f64,
    /// Allocations and bytes requested per operation (counting global allocator).
    encode_allocs: Option<f64>,
    encode_alloc_bytes: Option<f64>,
    decode_allocs: Option<f64>,
    decode_alloc_bytes: Option<f64>,
}

#[derive(Serialize, Default)]
struct SideThroughput {
    /// Median over repetitions, subscriber side (distinct messages received / time to the last).
    msgs_per_s: f64,
    publisher_msgs_per_s: f64,
    mb_per_s: f64,
    per_rep_msgs_per_s: Vec<f64>,
    sent: u64,
    received: u64,
    lost: u64,
    duplicates: Option<u64>,
    reordered: Option<u64>,
    /// Lowest delivery ratio of the repetitions.
    delivery_ratio: f64,
    ended_by: Vec<EndReason>,
    /// Allocations per message in the whole process while the run went (our clients, and
    /// rumqttd when it is embedded).
    allocs_per_msg: Option<f64>,
    harness_cores_max: f64,
    harness_bound: bool,
    errors: Vec<String>,
    warnings: Vec<String>,
}

#[derive(Serialize)]
struct ThroughputRow {
    broker: String,
    payload: String,
    format: String,
    fields: Option<usize>,
    payload_bytes: usize,
    /// Our 8-byte sequence header + the payload (the bare pair sends the same size).
    mqtt_payload_bytes: usize,
    qos: u8,
    messages: u64,
    reps: usize,
    ours: SideThroughput,
    bare: Option<SideThroughput>,
    /// Median of per-pair ratios ours / bare (subscriber msgs/s), and their range.
    ratio: Option<f64>,
    ratio_min: Option<f64>,
    ratio_max: Option<f64>,
    goal: f64,
    meets_goal: Option<bool>,
}

#[derive(Serialize, Default)]
struct SideRtt {
    /// Pooled over every repetition's samples (HDR histogram, µs).
    rtt: LatencyStats,
    per_rep_p50_us: Vec<f64>,
    sent: u64,
    received: u64,
    lost: u64,
    late: u64,
    delivery_ratio: f64,
    ended_by: Vec<EndReason>,
    /// (µs, % of samples ≤ it) at 0, 1, …, 100 % and 99.5, 99.9 %.
    cdf: Vec<(f64, f64)>,
    stall: Option<String>,
    errors: Vec<String>,
    warnings: Vec<String>,
}

#[derive(Serialize)]
struct RttRow {
    broker: String,
    payload: String,
    format: String,
    fields: Option<usize>,
    payload_bytes: usize,
    qos: u8,
    mode: String,
    messages: u64,
    warmup: u64,
    reps: usize,
    ours: SideRtt,
    bare: Option<SideRtt>,
    /// Pooled p50 ours / bare.
    ratio: Option<f64>,
    goal: f64,
    meets_goal: Option<bool>,
}

#[derive(Serialize)]
struct Layout {
    parts: Vec<LayoutPart>,
    header_bytes: usize,
    per_field_bytes: usize,
    formula: String,
    ours: Vec<(usize, usize)>,
    thesis: Vec<(usize, u64)>,
    /// thesis − ours per field count.
    difference: Vec<(usize, i64)>,
    explanation: Vec<String>,
}

#[derive(Serialize)]
struct LayoutPart {
    part: &'static str,
    bytes: usize,
    offset: usize,
    note: &'static str,
}

#[derive(Serialize, Default)]
struct Section {
    version: u32,
    brokers: Vec<BrokerInfo>,
    formats: Vec<FormatInfo>,
    sizes: Vec<SizeRow>,
    layout: Option<Layout>,
    codec: Vec<CodecRow>,
    throughput: Vec<ThroughputRow>,
    rtt: Vec<RttRow>,
    published: Option<Value>,
    comparison: Vec<Value>,
    notes: Vec<String>,
}

impl Section {
    fn new() -> Section {
        Section { version: SECTION_VERSION, ..Section::default() }
    }

    fn into_value(self) -> Value {
        serde_json::to_value(self).expect("section serializes")
    }

    /// Sizes (every format × field count, each checked to decode), the layout arithmetic,
    /// and (with `speed`) encode/decode time and allocations.
    fn sizes(&mut self, formats: &[StudyFormat], fields: &[usize], speed: bool) -> Result<()> {
        for &f in formats {
            self.formats.push(FormatInfo { id: f.id(), description: f.describe(), json: f.is_json() });
            for &n in fields {
                let bytes = f.encode(n).map_err(|e| anyhow::anyhow!("{e}"))?;
                f.decode_check(&bytes, n).map_err(|e| anyhow::anyhow!("{e}"))?;
                self.sizes.push(SizeRow {
                    format: f.id(),
                    fields: n,
                    bytes: bytes.len(),
                    round_trip: true,
                    hex: (!f.is_json()).then(|| hex(&bytes)),
                });
                if speed {
                    self.codec.push(codec_row(f, n, &bytes));
                }
            }
        }
        if formats.contains(&StudyFormat::Uadp) {
            self.layout = Some(layout(fields));
        }
        Ok(())
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn layout(fields: &[usize]) -> Layout {
    let mut offset = 0;
    let parts: Vec<LayoutPart> = opcua::seed_layout()
        .into_iter()
        .map(|p| {
            let o = offset;
            offset += p.bytes;
            LayoutPart { part: p.part, bytes: p.bytes, offset: o, note: p.note }
        })
        .collect();
    let header = offset;
    let per = opcua::VARIANT_FIELD_BYTES;
    let ours: Vec<(usize, usize)> = fields.iter().map(|&n| (n, header + per * n)).collect();
    let thesis: Vec<(usize, u64)> = thesis::SIZES.iter().map(|&(n, _, u)| (n, u)).collect();
    let difference = thesis
        .iter()
        .filter_map(|&(n, t)| ours.iter().find(|(m, _)| *m == n).map(|&(_, o)| (n, t as i64 - o as i64)))
        .collect();
    let sum: Vec<String> = parts.iter().map(|p| format!("{} {}", p.bytes, p.part)).collect();
    let explanation = vec![
        format!("The layout the thesis states (UADPFlags 0xD1, ExtendedFlags1 0x0C, String PublisherId \"ESP32-Bench\", DataSetClassId, PayloadHeader with writer 1000, one Variant key frame) has {header} bytes before the fields: {} = {header}.", sum.join(" + ")),
        format!("Each Float or Int32 Variant field adds {per} bytes (1 type byte + 4 value bytes), so N fields take {header} + {per}·N: 44, 54, 64, 89 bytes for 1, 3, 5, 10 fields. open62541 and our decoder agree on these bytes."),
        "The thesis's 38/48/58/83 are 33 + 5·N: 6 bytes fewer at every N. 33 is exactly the NetworkMessage header (1 + 1 + 4 + 11 + 16); the missing 6 are the PayloadHeader (Count 1 + DataSetWriterId 2), DataSetFlags1 (1) and FieldCount (2), which the stated layout requires. With every part the thesis lists, 38/48/58/83 cannot be produced.".into(),
        format!("The thesis's own throughput table gives {} bytes per 3-field UADP message — the 39 + 5·3 = 54 of this layout, not the 48 of its size table.", thesis::THROUGHPUT_UADP_BYTES),
        "Two readings fit 33 + 5N: a 5-character PublisherId (\"ESP32\"; a valid message) or a count of the header plus fields only. Either way, measure the MQTT payload on the wire; do not reuse 38/48/58/83.".into(),
    ];
    Layout {
        parts,
        header_bytes: header,
        per_field_bytes: per,
        formula: format!("{header} + {per}·N"),
        ours,
        thesis,
        difference,
        explanation,
    }
}

/// Median ns/op over 21 samples of at least ~1 ms each, and allocations per op.
fn codec_row(f: StudyFormat, n: usize, bytes: &[u8]) -> CodecRow {
    use std::hint::black_box;
    let msg = f.message(n);
    let meta = opcua::metadata(n);
    let mut enc = |iters: u64| {
        for _ in 0..iters {
            black_box(f.encode_message(black_box(&msg), &meta).ok());
        }
    };
    let mut dec = |iters: u64| {
        for _ in 0..iters {
            black_box(f.decode(black_box(bytes), &meta).ok());
        }
    };
    let encode_ns = time_per_op(&mut enc);
    let decode_ns = time_per_op(&mut dec);
    let ea = wirebench_measure::alloc::measure(1_000, || enc(1));
    let da = wirebench_measure::alloc::measure(1_000, || dec(1));
    CodecRow {
        format: f.id(),
        fields: n,
        bytes: bytes.len(),
        encode_ns,
        decode_ns,
        encode_allocs: ea.map(|a| a.allocs_per_op),
        encode_alloc_bytes: ea.map(|a| a.bytes_per_op),
        decode_allocs: da.map(|a| a.allocs_per_op),
        decode_alloc_bytes: da.map(|a| a.bytes_per_op),
    }
}

fn time_per_op(f: &mut dyn FnMut(u64)) -> f64 {
    // Calibrate: double the iterations until one sample takes ≥ 1 ms.
    let mut iters = 1u64;
    loop {
        let ns = wirebench_measure::timer::time(f, iters);
        if ns >= 1e6 || iters >= 1 << 24 {
            break;
        }
        iters *= 2;
    }
    let samples: Vec<f64> = (0..21).map(|_| wirebench_measure::timer::time(f, iters) / iters as f64).collect();
    wirebench_measure::stats::median(&samples)
}

// =============================================================================================
// Transport runs

fn dedup_push(into: &mut Vec<String>, from: &[String]) {
    for e in from {
        if !into.contains(e) {
            into.push(e.clone());
        }
    }
}

/// Run `f` with the counting allocator on; its result and allocations per `messages`.
fn counted<T>(messages: u64, f: impl FnOnce() -> T) -> (T, Option<f64>) {
    let mut f = Some(f);
    let mut out = None;
    let stats = wirebench_measure::alloc::measure(1, || {
        if let Some(f) = f.take() {
            out = Some(f());
        }
    });
    let out = match out {
        Some(o) => o,
        // Not installed: measure() did not call us.
        None => (f.take().expect("not run yet"))(),
    };
    (out, stats.map(|s| s.allocs_per_op / messages.max(1) as f64))
}

fn side_throughput(runs: &[(ThroughputResult, Option<f64>)]) -> SideThroughput {
    let mut s = SideThroughput { delivery_ratio: 1.0, ..SideThroughput::default() };
    let rates: Vec<f64> = runs.iter().map(|(r, _)| r.subscriber.msgs_per_s).collect();
    s.msgs_per_s = wirebench_measure::stats::median(&rates);
    s.publisher_msgs_per_s =
        wirebench_measure::stats::median(&runs.iter().map(|(r, _)| r.publisher.msgs_per_s).collect::<Vec<_>>());
    s.mb_per_s = wirebench_measure::stats::median(&runs.iter().map(|(r, _)| r.subscriber.mb_per_s).collect::<Vec<_>>());
    s.per_rep_msgs_per_s = rates;
    let allocs: Vec<f64> = runs.iter().filter_map(|(_, a)| *a).collect();
    s.allocs_per_msg = (!allocs.is_empty()).then(|| wirebench_measure::stats::median(&allocs));
    for (r, _) in runs {
        let d = &r.delivery;
        s.sent += d.sent;
        s.received += d.received;
        s.lost += d.lost;
        s.duplicates = d.duplicates.map(|x| x + s.duplicates.unwrap_or(0));
        s.reordered = d.reordered.map(|x| x + s.reordered.unwrap_or(0));
        s.delivery_ratio = s.delivery_ratio.min(d.delivery_ratio);
        s.ended_by.push(r.ended_by);
        s.harness_cores_max = s.harness_cores_max.max(r.cpu.harness_cores);
        s.harness_bound |= r.cpu.harness_bound;
        dedup_push(&mut s.errors, &r.errors);
        dedup_push(&mut s.warnings, &r.warnings);
    }
    s
}

fn throughput_case(
    broker: &Broker,
    payload: &PayloadSpec,
    cfg: &ThroughputConfig,
    reps: usize,
    baseline: bool,
    progress: bool,
) -> Result<ThroughputRow> {
    let payloads = Payloads::fixed(payload.bytes.clone());
    let n = cfg.messages;
    let (mut ours, mut bare) = (Vec::new(), Vec::new());
    let mut bare_error: Option<String> = None;
    for i in 0..reps {
        let run_ours = |ours: &mut Vec<(ThroughputResult, Option<f64>)>| -> Result<()> {
            let (r, a) = counted(n, || throughput(broker, &payloads, cfg));
            ours.push((r.map_err(mqtt_err)?, a));
            Ok(())
        };
        let mut run_bare = |bare: &mut Vec<(ThroughputResult, Option<f64>)>| {
            if !baseline || bare_error.is_some() {
                return;
            }
            let (r, a) = counted(n, || baseline_throughput(broker, &payloads, cfg));
            match r {
                Ok(r) => bare.push((r, a)),
                Err(e) => bare_error = Some(format!("bare rumqttc pair: {e}")),
            }
        };
        if i % 2 == 0 {
            run_ours(&mut ours)?;
            run_bare(&mut bare);
        } else {
            run_bare(&mut bare);
            run_ours(&mut ours)?;
        }
        if progress {
            eprintln!("  throughput {} qos {} rep {}/{reps}", payload.label, cfg.qos.level(), i + 1);
        }
    }
    let ours_side = side_throughput(&ours);
    let mut bare_side = baseline.then(|| side_throughput(&bare));
    if let (Some(b), Some(e)) = (bare_side.as_mut(), bare_error) {
        b.errors.push(e);
    }
    let ratios: Vec<f64> = ours
        .iter()
        .zip(&bare)
        .filter(|(_, (b, _))| b.subscriber.msgs_per_s > 0.0)
        .map(|((o, _), (b, _))| o.subscriber.msgs_per_s / b.subscriber.msgs_per_s)
        .collect();
    let ratio = (!ratios.is_empty()).then(|| wirebench_measure::stats::median(&ratios));
    Ok(ThroughputRow {
        broker: broker.name(),
        payload: payload.label.clone(),
        format: payload.format.clone(),
        fields: payload.fields,
        payload_bytes: payload.bytes.len(),
        mqtt_payload_bytes: payload.bytes.len() + wirebench_mqtt::HEADER_LEN,
        qos: cfg.qos.level(),
        messages: n,
        reps,
        ours: ours_side,
        bare: bare_side,
        ratio,
        ratio_min: (!ratios.is_empty()).then(|| ratios.iter().copied().fold(f64::INFINITY, f64::min)),
        ratio_max: (!ratios.is_empty()).then(|| ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        goal: THROUGHPUT_RATIO_GOAL,
        meets_goal: ratio.map(|r| r >= THROUGHPUT_RATIO_GOAL),
    })
}

fn cdf_us(samples_ns: &[u64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = samples_ns.iter().map(|&s| s as f64 / 1e3).collect();
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
            (round3(v[rank.min(v.len()) - 1]), p)
        })
        .collect()
}

fn round3(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}

fn side_rtt(runs: &[EchoResult]) -> SideRtt {
    let pooled: Vec<u64> = runs.iter().flat_map(|r| r.samples_ns.iter().copied()).collect();
    let mut s = SideRtt {
        rtt: LatencyStats::from_samples_ns(&pooled),
        cdf: cdf_us(&pooled),
        stall: wirebench_mqtt::detect_nagle_stall(&pooled).map(|w| w.message),
        delivery_ratio: 1.0,
        ..SideRtt::default()
    };
    for r in runs {
        s.per_rep_p50_us.push(r.rtt.p50_us);
        s.sent += r.delivery.sent;
        s.received += r.delivery.received;
        s.lost += r.delivery.lost;
        s.late += r.delivery.late;
        s.delivery_ratio = s.delivery_ratio.min(r.delivery.delivery_ratio);
        s.ended_by.push(r.ended_by);
        dedup_push(&mut s.errors, &r.errors);
        dedup_push(&mut s.warnings, &r.warnings);
    }
    s
}

fn rtt_case(
    broker: &Broker,
    payload: &PayloadSpec,
    cfg: &EchoConfig,
    reps: usize,
    baseline: bool,
    progress: bool,
) -> Result<RttRow> {
    let cfg = EchoConfig { keep_samples: true, ..cfg.clone() };
    let (mut ours, mut bare) = (Vec::new(), Vec::new());
    let mut bare_error: Option<String> = None;
    for i in 0..reps {
        let mut run_bare = |bare: &mut Vec<EchoResult>| {
            if !baseline || bare_error.is_some() {
                return;
            }
            match baseline_echo_rtt(broker, &payload.bytes, &cfg) {
                Ok(r) => bare.push(r),
                Err(e) => bare_error = Some(format!("bare rumqttc pair: {e}")),
            }
        };
        if i % 2 == 0 {
            ours.push(echo_rtt(broker, &payload.bytes, &cfg).map_err(mqtt_err)?);
            run_bare(&mut bare);
        } else {
            run_bare(&mut bare);
            ours.push(echo_rtt(broker, &payload.bytes, &cfg).map_err(mqtt_err)?);
        }
        if progress {
            eprintln!("  rtt {} qos {} rep {}/{reps}", payload.label, cfg.qos.level(), i + 1);
        }
    }
    let ours_side = side_rtt(&ours);
    let mut bare_side = baseline.then(|| side_rtt(&bare));
    if let (Some(b), Some(e)) = (bare_side.as_mut(), bare_error) {
        b.errors.push(e);
    }
    let ratio = bare_side
        .as_ref()
        .filter(|b| b.rtt.count > 0 && b.rtt.p50_us > 0.0 && ours_side.rtt.count > 0)
        .map(|b| ours_side.rtt.p50_us / b.rtt.p50_us);
    Ok(RttRow {
        broker: broker.name(),
        payload: payload.label.clone(),
        format: payload.format.clone(),
        fields: payload.fields,
        payload_bytes: payload.bytes.len(),
        qos: cfg.qos.level(),
        mode: ours.first().map(|r| r.mode.clone()).unwrap_or_default(),
        messages: cfg.messages,
        warmup: cfg.warmup,
        reps,
        ours: ours_side,
        bare: bare_side,
        ratio,
        goal: ECHO_P50_RATIO_GOAL,
        meets_goal: ratio.map(|r| r <= ECHO_P50_RATIO_GOAL),
    })
}

// =============================================================================================
// The study part

/// The options of the `[mqtt]` part of a study file (every key optional).
#[derive(serde::Deserialize, serde::Serialize, Debug)]
#[serde(deny_unknown_fields, default)]
pub struct StudyOpts {
    /// Brokers to measure through: `embedded`, `mosquitto`, `mqtt://host:port`. A mosquitto
    /// that is not installed is recorded as skipped (with the reason), not an error.
    pub brokers: Vec<String>,
    /// Field counts for the size table.
    pub fields: Vec<usize>,
    /// Formats for the size table.
    pub size_formats: Vec<String>,
    /// Time encode/decode and count their allocations.
    pub codec_speed: bool,
    /// Payloads for throughput and RTT: study formats or `bytes:N`.
    pub transport_formats: Vec<String>,
    /// Fields per message in throughput and RTT runs (the thesis: 3).
    pub transport_fields: usize,
    pub qos: Vec<u8>,
    /// Messages per throughput run.
    pub messages: u64,
    /// Measured round trips per RTT run, and warm-up before them.
    pub rtt_messages: u64,
    pub rtt_warmup: u64,
    /// Repetitions, ours and the bare pair interleaved.
    pub reps: usize,
    /// Run the bare rumqttc pair beside ours.
    pub baseline: bool,
    /// Limit per run, seconds.
    pub timeout_s: f64,
}

impl Default for StudyOpts {
    fn default() -> Self {
        StudyOpts {
            brokers: vec!["embedded".into(), "mosquitto".into()],
            fields: FIELD_COUNTS.to_vec(),
            size_formats: StudyFormat::ALL.iter().map(|f| f.id().to_string()).collect(),
            codec_speed: true,
            transport_formats: vec!["uadp".into(), "uadp-json-dv".into()],
            transport_fields: opcua::FIELD_COUNTS[1],
            qos: vec![0, 1],
            messages: 20_000,
            rtt_messages: 2_000,
            rtt_warmup: 200,
            reps: 3,
            baseline: true,
            timeout_s: 60.0,
        }
    }
}

/// Run the `[mqtt]` part of a study; the value becomes `results["mqtt"]`.
/// The checked options of the `[mqtt]` part: size formats, QoS levels, transport payloads.
fn plan(opts: &StudyOpts) -> Result<(Vec<StudyFormat>, Vec<Qos>, Vec<PayloadSpec>)> {
    let formats = parse_formats(&opts.size_formats)?;
    check_fields(&opts.fields)?;
    check_fields(&[opts.transport_fields])?;
    if opts.reps == 0 || opts.reps > 100 {
        return Err(bad(format!("[mqtt] reps = {}: expected 1..=100", opts.reps)));
    }
    if !(opts.timeout_s.is_finite() && opts.timeout_s > 0.0 && opts.timeout_s <= 86_400.0) {
        return Err(bad(format!("[mqtt] timeout_s = {}: expected seconds in (0, 86400]", opts.timeout_s)));
    }
    let qos: Vec<Qos> = opts.qos.iter().map(|&q| Qos::try_from(q).map_err(|e| bad(format!("[mqtt] qos: {e}")))).collect::<Result<_>>()?;
    let payloads: Vec<PayloadSpec> = opts
        .transport_formats
        .iter()
        .map(|f| PayloadSpec::parse(f, opts.transport_fields).map_err(|e| bad(format!("[mqtt] transport_formats: {e}"))))
        .collect::<Result<_>>()?;
    Ok((formats, qos, payloads))
}

/// Check the `[mqtt]` part of a study before anything runs.
pub fn validate(opts: &StudyOpts) -> Result<()> {
    plan(opts).map(|_| ())
}

pub fn measure(opts: &StudyOpts) -> Result<Value> {
    let (formats, qos, payloads) = plan(opts)?;
    let started = Instant::now();
    let mut section = Section::new();
    eprintln!("  sizes: {} formats × {} field counts", formats.len(), opts.fields.len());
    section.sizes(&formats, &opts.fields, opts.codec_speed)?;
    let timeout_ms = (opts.timeout_s * 1e3).round() as u64;
    for spec in &opts.brokers {
        let broker = match Broker::open(spec) {
            Ok(b) => b,
            Err(e) if spec == "mosquitto" && Mosquitto::binary().is_err() => {
                eprintln!("  mosquitto skipped: {e}");
                section.brokers.push(BrokerInfo {
                    name: "mosquitto".into(),
                    url: String::new(),
                    kind: "mosquitto".into(),
                    skipped: Some(e.to_string()),
                });
                continue;
            }
            Err(e) => return Err(e),
        };
        section.brokers.push(broker.info());
        for p in &payloads {
            for &q in &qos {
                eprintln!("  {} · {} · QoS {}: throughput, then RTT", broker.name(), p.label, q.level());
                let cfg = ThroughputConfig {
                    messages: opts.messages,
                    qos: q,
                    deadline_ms: timeout_ms,
                    connect_timeout_ms: timeout_ms.min(5_000),
                    drain_timeout_ms: timeout_ms.min(2_000),
                    ..ThroughputConfig::default()
                };
                section.throughput.push(throughput_case(&broker, p, &cfg, opts.reps, opts.baseline, false)?);
                let ecfg = EchoConfig {
                    messages: opts.rtt_messages,
                    warmup: opts.rtt_warmup,
                    qos: q,
                    deadline_ms: timeout_ms,
                    connect_timeout_ms: timeout_ms.min(5_000),
                    reply_timeout_ms: timeout_ms.min(1_000),
                    ..EchoConfig::default()
                };
                section.rtt.push(rtt_case(&broker, p, &ecfg, opts.reps, opts.baseline, false)?);
            }
        }
    }
    section.published = Some(published());
    section.comparison = comparison(&section);
    section.notes = notes(&section);
    section.notes.push(format!("The mqtt part took {:.1} s.", started.elapsed().as_secs_f64()));
    Ok(section.into_value())
}

/// The thesis's published figures, as data with their citation.
fn published() -> Value {
    json!({
        "citation": thesis::CITATION,
        "sizes": {
            "source": thesis::SIZES_SOURCE,
            "rows": thesis::SIZES.iter().map(|&(n, j, u)| json!({"fields": n, "json_bytes": j, "uadp_bytes": u})).collect::<Vec<_>>(),
        },
        "throughput": {
            "source": thesis::THROUGHPUT_SOURCE,
            "messages": thesis::THROUGHPUT_MESSAGES,
            "fields": thesis::THROUGHPUT_FIELDS,
            "json_msgs_per_s": thesis::THROUGHPUT_JSON_MSGS_PER_S,
            "uadp_msgs_per_s": thesis::THROUGHPUT_UADP_MSGS_PER_S,
            "json_bytes": thesis::THROUGHPUT_JSON_BYTES,
            "uadp_bytes": thesis::THROUGHPUT_UADP_BYTES,
            "delivery": thesis::THROUGHPUT_DELIVERY,
        },
        "rtt": {
            "source": thesis::RTT_SOURCE,
            "samples": thesis::RTT_SAMPLES,
            "json_ms": {"mean": thesis::RTT_JSON_MS.0, "min": thesis::RTT_JSON_MS.1, "max": thesis::RTT_JSON_MS.2},
            "uadp_ms": {"mean": thesis::RTT_UADP_MS.0, "min": thesis::RTT_UADP_MS.1, "max": thesis::RTT_UADP_MS.2},
        },
        "memory": {
            "source": thesis::MEMORY_SOURCE,
            "fields": 5,
            "json": {"ram_bytes": thesis::MEMORY_JSON.0, "wire_bytes": thesis::MEMORY_JSON.1},
            "uadp": {"ram_bytes": thesis::MEMORY_UADP.0, "wire_bytes": thesis::MEMORY_UADP.1},
        },
    })
}

/// Rows "what · thesis · ours · note" for the side-by-side table.
fn comparison(s: &Section) -> Vec<Value> {
    let mut rows = Vec::new();
    let size = |f: &str, n: usize| s.sizes.iter().find(|r| r.format == f && r.fields == n).map(|r| r.bytes);
    for &(n, j, u) in &thesis::SIZES {
        rows.push(json!({
            "what": format!("UADP size, {n} field{}", if n == 1 { "" } else { "s" }),
            "unit": "B", "thesis": u, "ours": size("uadp", n),
            "source": thesis::SIZES_SOURCE,
            "note": "ours = 39 + 5N with the stated layout; the thesis's figure is 6 B short (see the layout note)",
        }));
        rows.push(json!({
            "what": format!("JSON size, {n} field{}", if n == 1 { "" } else { "s" }),
            "unit": "B", "thesis": j, "ours": size("uadp-json-dv", n),
            "source": thesis::SIZES_SOURCE,
            "note": "ours = uadp-json-dv (the thesis's JSON shape); MessageId, field names and value text are not given in the thesis, so sizes differ",
        }));
    }
    rows.push(json!({
        "what": "UADP bytes/message, 3 fields (throughput table)", "unit": "B",
        "thesis": thesis::THROUGHPUT_UADP_BYTES, "ours": size("uadp", 3), "source": thesis::THROUGHPUT_SOURCE,
        "note": "agrees with 39 + 5·3 (and not with the size table's 48)",
    }));
    rows.push(json!({
        "what": "JSON bytes/message, 3 fields (throughput table)", "unit": "B",
        "thesis": thesis::THROUGHPUT_JSON_BYTES, "ours": size("uadp-json-dv", 3), "source": thesis::THROUGHPUT_SOURCE,
        "note": "ours = uadp-json-dv",
    }));
    // Throughput: the first broker that measured uadp and uadp-json-dv at 3 fields, QoS 0.
    let thr = |f: &str| {
        s.throughput.iter().find(|r| r.format == f && r.fields == Some(thesis::THROUGHPUT_FIELDS) && r.qos == 0)
    };
    if let Some(r) = thr("uadp") {
        rows.push(json!({
            "what": format!("UADP msgs/s, 3 fields ({}, QoS 0)", r.broker), "unit": "msgs/s",
            "thesis": thesis::THROUGHPUT_UADP_MSGS_PER_S, "ours": r.ours.msgs_per_s, "source": thesis::THROUGHPUT_SOURCE,
            "note": format!("thesis: ESP32 → Wi-Fi → Mosquitto, 50 messages; ours: loopback, {} messages × {} reps; delivery {:.1} %", r.messages, r.reps, 100.0 * r.ours.delivery_ratio),
        }));
    }
    if let Some(r) = thr("uadp-json-dv") {
        rows.push(json!({
            "what": format!("JSON msgs/s, 3 fields ({}, QoS 0)", r.broker), "unit": "msgs/s",
            "thesis": thesis::THROUGHPUT_JSON_MSGS_PER_S, "ours": r.ours.msgs_per_s, "source": thesis::THROUGHPUT_SOURCE,
            "note": format!("delivery {:.1} %", 100.0 * r.ours.delivery_ratio),
        }));
    }
    if let (Some(u), Some(j)) = (thr("uadp"), thr("uadp-json-dv")) {
        if j.ours.msgs_per_s > 0.0 {
            rows.push(json!({
                "what": "UADP / JSON msgs/s, 3 fields", "unit": "×",
                "thesis": thesis::THROUGHPUT_UADP_MSGS_PER_S / thesis::THROUGHPUT_JSON_MSGS_PER_S,
                "ours": u.ours.msgs_per_s / j.ours.msgs_per_s, "source": thesis::THROUGHPUT_SOURCE,
                "note": "on a PC the encoding costs little next to the broker; on the ESP32 it dominated",
            }));
        }
    }
    let rtt = |f: &str| s.rtt.iter().find(|r| r.format == f && r.qos == 0);
    for (f, what, t) in [("uadp", "UADP", thesis::RTT_UADP_MS), ("uadp-json-dv", "JSON", thesis::RTT_JSON_MS)] {
        if let Some(r) = rtt(f) {
            rows.push(json!({
                "what": format!("{what} echo RTT mean ({}, QoS 0)", r.broker), "unit": "ms",
                "thesis": t.0, "ours": r.ours.rtt.mean_us / 1e3, "source": thesis::RTT_SOURCE,
                "note": format!("thesis: 30 samples over Wi-Fi; ours: {} samples on loopback (p50 {:.3} ms, max {:.3} ms)", r.ours.rtt.count, r.ours.rtt.p50_us / 1e3, r.ours.rtt.max_us / 1e3),
            }));
        }
    }
    let enc = |f: &str| s.codec.iter().find(|r| r.format == f && r.fields == 5);
    for (f, what, t) in [("uadp", "UADP", thesis::MEMORY_UADP), ("uadp-json-dv", "JSON", thesis::MEMORY_JSON)] {
        if let Some(r) = enc(f) {
            rows.push(json!({
                "what": format!("{what} encode memory, 5 fields"), "unit": "B",
                "thesis": t.0, "ours": r.encode_alloc_bytes, "source": thesis::MEMORY_SOURCE,
                "note": format!("thesis: MicroPython heap; ours: bytes requested per encode in Rust ({} allocations)", r.encode_allocs.map_or("-".into(), |a| format!("{a:.1}"))),
            }));
        }
    }
    rows
}

fn notes(s: &Section) -> Vec<String> {
    let mut out = vec![
        "Sizes are NetworkMessage bytes (the thesis's MQTT payload). Our transport runs put an 8-byte sequence header in front of each payload for delivery accounting; the bare rumqttc pair sends the same number of bytes.".to_string(),
        "Throughput: one publisher and one subscriber, msgs/s at the subscriber (distinct messages received / time to the last one), median of the repetitions; ours and the bare rumqttc pair interleaved through the same broker (goal: ours ≥ 80 % of bare).".into(),
        "RTT: closed-loop echo (pinger → broker → echo client → broker → pinger), percentiles from a pooled HDR histogram of every repetition (goal: ours p50 ≤ 1.5 × bare). TCP_NODELAY is set on every socket we own; modes near 40/44/88 ms would be flagged as Nagle/delayed-ACK stalls.".into(),
        "The thesis measured an ESP32 over Wi-Fi; this study runs on one PC over loopback. Sizes are comparable; rates and times are not, and are shown beside each other for context only.".into(),
    ];
    for b in &s.brokers {
        if let Some(why) = &b.skipped {
            out.push(format!("{} was not measured: {why}", b.name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_explains_the_six_missing_bytes() {
        let l = layout(&FIELD_COUNTS);
        assert_eq!(l.header_bytes, 39);
        assert_eq!(l.ours, vec![(1, 44), (3, 54), (5, 64), (10, 89)]);
        assert_eq!(l.difference, vec![(1, -6), (3, -6), (5, -6), (10, -6)]);
        assert!(l.explanation[0].contains("1 UADPFlags + 1 ExtendedFlags1 + 4 PublisherId length + 11 PublisherId text + 16 DataSetClassId + 1 PayloadHeader Count + 2 DataSetWriterId + 1 DataSetFlags1 + 2 FieldCount = 39"), "{}", l.explanation[0]);
        assert_eq!(l.parts.last().map(|p| p.offset), Some(37));
    }

    #[test]
    fn cdf_has_ends_and_tail() {
        let s: Vec<u64> = (1..=1000).map(|i| i * 1000).collect();
        let c = cdf_us(&s);
        assert_eq!(c.first(), Some(&(1.0, 0.0)));
        assert_eq!(c.last(), Some(&(1000.0, 100.0)));
        assert!(c.contains(&(999.0, 99.9)));
        assert!(cdf_us(&[]).is_empty());
    }

    #[test]
    fn study_opts_default_and_unknown_keys() {
        let o: StudyOpts = toml::from_str("messages = 10").unwrap();
        assert_eq!(o.messages, 10);
        assert_eq!(o.fields, FIELD_COUNTS.to_vec());
        assert!(toml::from_str::<StudyOpts>("mesages = 10").is_err());
    }
}
