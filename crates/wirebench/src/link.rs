//! Analytic link models (LPWAN airtime, protocol overhead): `wirebench link ...` and the [link]
//! study part.
//!
//! For every radio × protocol × format (or raw payload size): the application bytes after the
//! protocol's overhead, the frames and bytes on air, the airtime, and how many such messages a
//! day the link allows (duty cycle / quota / capacity); for IP protocols also the bytes at the
//! IP layer (TCP or UDP over IPv4 or IPv6). LoRa rows of a raw payload the spec's table lists
//! carry the table's figure and our deviation from it.

use std::path::PathBuf;

use anyhow::Result;
use serde_json::{json, Value as Json};
use wirebench_core::results::Results;
use wirebench_net::airtime::{airtime_with, Radio, RADIO_NAMES};
use wirebench_net::published;
use wirebench_net::wire::{message_bytes, Protocol, Transport};
use wirebench_net::workload::{codec_ids, Workload};

use crate::common::*;
use crate::OutputArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub opts: StudyOpts,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    pub output: OutputArg,
    /// Also write the results file (JSON) here, atomically.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The options of this part in a study file (and of the command).
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(default, deny_unknown_fields)]
pub struct StudyOpts {
    /// Radio profiles, comma-separated (default: lora-sf7..sf12, nb-iot, lte-m1, sigfox, ble-dle, 802.15.4).
    #[arg(long, value_delimiter = ',')]
    pub radios: Vec<String>,
    /// Protocols around the payload: raw, mqtt (3.1.1 QoS 1), mqtt0, mqtt5, mqtt-sn, coap, http (default: raw).
    #[arg(long, value_delimiter = ',')]
    pub protocols: Vec<String>,
    /// Formats whose encoded size of the messages is used (default: json, cbor, msgpack, protobuf, pson); `all` = the zoo.
    #[arg(long, short = 'f', value_delimiter = ',')]
    pub formats: Vec<String>,
    /// Raw payload sizes in bytes instead of formats (e.g. 0,12,51 as in the spec's LoRa table).
    #[arg(long, value_delimiter = ',', conflicts_with = "formats")]
    pub payload_bytes: Vec<usize>,
    /// A built-in corpus for the message sizes (default: the EV telemetry message).
    #[arg(long, conflicts_with = "samples")]
    pub corpus: Option<String>,
    /// Sample files (.json / .ndjson) for the message sizes.
    #[arg(long, num_args = 1..)]
    pub samples: Vec<PathBuf>,
    /// MQTT topic length in bytes (default 4, as `t/ev`).
    #[arg(long)]
    pub topic_bytes: Option<usize>,
    /// Count IP headers as IPv6 instead of IPv4.
    #[arg(long)]
    pub ipv6: bool,
}

const DEFAULT_RADIOS: &[&str] = &[
    "lora-sf7", "lora-sf8", "lora-sf9", "lora-sf10", "lora-sf11", "lora-sf12", "sigfox", "nb-iot", "lte-m1",
    "ble-dle", "802.15.4",
];
const DEFAULT_FORMATS: &[&str] = &["json", "cbor", "msgpack", "protobuf", "pson"];

/// A protocol by name, with its natural transport.
fn protocol(name: &str, topic: usize) -> Result<(Protocol, Option<Transport>, String)> {
    let (p, t) = match name.trim().to_ascii_lowercase().as_str() {
        "raw" | "none" => (Protocol::Raw, None),
        "mqtt" | "mqtt1" | "mqtt-qos1" => (Protocol::Mqtt311 { topic_len: topic, qos: 1 }, Some(Transport::TcpIpv4)),
        "mqtt0" | "mqtt-qos0" => (Protocol::Mqtt311 { topic_len: topic, qos: 0 }, Some(Transport::TcpIpv4)),
        "mqtt5" => (Protocol::Mqtt5 { topic_len: topic, qos: 1, properties_len: 0 }, Some(Transport::TcpIpv4)),
        "mqtt-sn" | "mqttsn" => (Protocol::MqttSn, Some(Transport::UdpIpv4)),
        // CON/NON with a 2-byte token, Uri-Path "t" (2 B) and Content-Format (2 B).
        "coap" => (Protocol::Coap { token_len: 2, options_len: 4 }, Some(Transport::UdpIpv4)),
        "http" | "http11" | "http/1.1" => (
            Protocol::Http11 { header_bytes: wirebench_net::wire::WRK_REQUEST_HEADER },
            Some(Transport::TcpIpv4),
        ),
        other => {
            return Err(bad(format!(
                "unknown protocol {other:?} (known: raw, mqtt, mqtt0, mqtt5, mqtt-sn, coap, http)"
            )))
        }
    };
    let label = match &p {
        Protocol::Raw => "raw".to_string(),
        Protocol::Mqtt311 { qos, .. } => format!("mqtt-3.1.1-qos{qos}"),
        Protocol::Mqtt5 { .. } => "mqtt-5-qos1".into(),
        Protocol::MqttSn => "mqtt-sn".into(),
        Protocol::Coap { .. } => "coap".into(),
        Protocol::Http11 { .. } => "http/1.1".into(),
    };
    Ok((p, t, label))
}

fn v6(t: Transport) -> Transport {
    match t {
        Transport::TcpIpv4 => Transport::TcpIpv6,
        Transport::UdpIpv4 => Transport::UdpIpv6,
        other => other,
    }
}

/// (label, format id or "", payload sizes).
fn payload_sets(opts: &StudyOpts) -> Result<(String, Vec<(String, String, Vec<usize>)>)> {
    if !opts.payload_bytes.is_empty() {
        if opts.payload_bytes.iter().any(|b| *b > 1 << 20) {
            return Err(bad("payload sizes above 1 MiB are not link messages"));
        }
        let sets = opts.payload_bytes.iter().map(|b| (format!("{b} B"), String::new(), vec![*b])).collect();
        return Ok(("raw sizes".into(), sets));
    }
    let formats: Vec<String> = if opts.formats.is_empty() {
        DEFAULT_FORMATS.iter().map(|s| s.to_string()).collect()
    } else {
        opts.formats.clone()
    };
    let ids = codec_ids(&formats).map_err(|e| bad(e.to_string()))?;
    let w = Workload::pick(&opts.samples, opts.corpus.as_deref(), 1, 1).map_err(|e| bad(e.to_string()))?;
    let mut sets = Vec::new();
    for id in ids {
        match w.encode_all(&id) {
            Ok(bodies) => sets.push((id.clone(), id, bodies.iter().map(Vec::len).collect())),
            Err(e) => sets.push((id.clone(), format!("!{e}"), Vec::new())),
        }
    }
    Ok((w.name, sets))
}

/// Run the models; the value becomes the `link` results section.
/// Check the options before anything runs (also the `[link]` part of a study).
pub fn validate(opts: &StudyOpts) -> Result<()> {
    for r in &opts.radios {
        Radio::parse(r).map_err(|e| bad(e.to_string()))?;
    }
    let topic = opts.topic_bytes.unwrap_or(4);
    if topic > 65_535 {
        return Err(bad("an MQTT topic is at most 65,535 bytes"));
    }
    for p in &opts.protocols {
        protocol(p, topic)?;
    }
    if opts.payload_bytes.iter().any(|b| *b > 1 << 20) {
        return Err(bad("payload sizes above 1 MiB are not link messages"));
    }
    codec_ids(&opts.formats).map_err(|e| bad(e.to_string()))?;
    check_payloads(opts.corpus.as_deref(), &opts.samples, None)
}

pub fn measure(opts: &StudyOpts) -> Result<Json> {
    validate(opts)?;
    let radio_names: Vec<String> = if opts.radios.is_empty() {
        DEFAULT_RADIOS.iter().map(|s| s.to_string()).collect()
    } else {
        opts.radios.clone()
    };
    let radios: Vec<Radio> =
        radio_names.iter().map(|r| Radio::parse(r).map_err(|e| bad(e.to_string()))).collect::<Result<_>>()?;
    let protos = if opts.protocols.is_empty() { vec!["raw".to_string()] } else { opts.protocols.clone() };
    let topic = opts.topic_bytes.unwrap_or(4);
    if topic > 65_535 {
        return Err(bad("an MQTT topic is at most 65,535 bytes"));
    }
    let protos: Vec<_> = protos.iter().map(|p| protocol(p, topic)).collect::<Result<_>>()?;
    let (source, sets) = payload_sets(opts)?;
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for (label, format, sizes) in &sets {
        if let Some(reason) = format.strip_prefix('!') {
            failed.push(json!({"format": label, "error": reason}));
            continue;
        }
        for radio in &radios {
            for (p, transport, plabel) in &protos {
                let each: Vec<_> = sizes.iter().map(|&s| airtime_with(radio, p, s)).collect();
                let n = each.len().max(1) as f64;
                let mean = |f: &dyn Fn(&wirebench_net::Airtime) -> f64| each.iter().map(f).sum::<f64>() / n;
                let seconds = mean(&|a| a.seconds);
                let a0 = &each[0];
                // The link's rule per day scales with airtime (duty cycle, capacity) except
                // Sigfox's message quota: recompute from the mean where the rule is time-based.
                let per_day = mean(&|a| a.msgs_per_day * a.seconds) / seconds.max(1e-12);
                let fair = a0.msgs_per_day_fair_use.map(|_| {
                    mean(&|a| a.msgs_per_day_fair_use.unwrap_or(0.0) * a.seconds) / seconds.max(1e-12)
                });
                let payload = sizes.iter().sum::<usize>() as f64 / n;
                let app = mean(&|a| a.payload_bytes as f64);
                let ip = transport.map(|t| {
                    let t = if opts.ipv6 { v6(t) } else { t };
                    let b = sizes.iter().map(|&s| message_bytes(p, t, s, 1500).ip_bytes).sum::<usize>() as f64 / n;
                    (format!("{t:?}").to_ascii_lowercase(), b)
                });
                let mut row = json!({
                    "radio": radio.name(),
                    "protocol": plabel,
                    "format": label,
                    "messages": sizes.len(),
                    "payload_bytes": payload,
                    "app_bytes": app,
                    "protocol_overhead_bytes": app - payload,
                    "frames": mean(&|a| a.frames as f64),
                    "bytes_on_air": mean(&|a| a.bytes_on_air as f64),
                    "airtime_ms": seconds * 1e3,
                    "msgs_per_day": per_day,
                    "msgs_per_day_fair_use": fair,
                    "fits": each.iter().all(|a| a.fits),
                    "max_payload": radio.max_payload(),
                    "note": a0.note.split(" (payload ").next().unwrap_or(""),
                });
                if let Some((t, b)) = ip {
                    row["transport"] = json!(t);
                    row["ip_bytes"] = json!(b);
                }
                if let (Radio::LoRa { sf }, Protocol::Raw, true) = (radio, p, format.is_empty()) {
                    if let Some(spec) = published::spec_lora(sizes[0], *sf) {
                        row["spec_airtime_ms"] = json!(spec.airtime_ms);
                        row["spec_msgs_per_day"] = json!(spec.per_day_1pct);
                        row["spec_msgs_per_day_ttn"] = json!(spec.per_day_ttn);
                        row["spec_deviation_pct"] = json!((seconds * 1e3 / spec.airtime_ms - 1.0) * 100.0);
                    }
                }
                rows.push(row);
            }
        }
    }
    Ok(json!({
        "source": source,
        "radios": radios.iter().map(Radio::name).collect::<Vec<_>>(),
        "protocols": protos.iter().map(|p| p.2.clone()).collect::<Vec<_>>(),
        "ipv6": opts.ipv6,
        "rows": rows,
        "failed": failed,
        "spec_source": published::SPEC_LORA_SOURCE,
        "known_radios": RADIO_NAMES,
    }))
}

pub fn run(args: Args) -> Result<()> {
    if let Some(out) = &args.out {
        check_writable(out)?;
    }
    let section = measure(&args.opts)?;
    let mut results = Results::new(provenance(0), json!({"measurement": "link", "options": &args.opts}));
    results.link = Some(section);
    if let Some(out) = &args.out {
        results.write_atomic(out).map_err(|e| bad(e.to_string()))?;
    }
    write_stdout(render(&results, args.output).as_bytes())
}

fn render(results: &Results, output: OutputArg) -> String {
    match output {
        OutputArg::Json => serde_json::to_string_pretty(results).expect("results serialize") + "\n",
        o => wirebench_report::net::render_link(results, o.into()),
    }
}
