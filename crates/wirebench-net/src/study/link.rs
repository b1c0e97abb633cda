//! The `link` part: analytic link models (LPWAN airtime, protocol overhead).
//!
//! For every radio × protocol × format (or raw payload size): the application bytes after the
//! protocol's overhead, the frames and bytes on air, the airtime, and how many such messages a
//! day the link allows (duty cycle / quota / capacity); for IP protocols also the bytes at the
//! IP layer (TCP or UDP over IPv4 or IPv6). LoRa rows of a raw payload the spec's table lists
//! carry the table's figure and our deviation from it.

use wirebench_core::part::{Part, PartError};
use wirebench_core::sections::link::{FailedFormat, LinkRow, LinkSection};
use wirebench_measure::workload::{codec_ids, Workload};

use super::check_payloads;
use crate::airtime::{airtime_with, Airtime, Radio, RADIO_NAMES};
use crate::published;
use crate::wire::{message_bytes, Protocol, Transport, WRK_REQUEST_HEADER};

/// The options of this part in a study file (and of the command).
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(default, deny_unknown_fields)]
pub struct LinkOpts {
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
    /// The messages (`--corpus`, `--samples`) and their schema (`--schema`, `--type`, `-I`).
    #[command(flatten)]
    #[serde(flatten)]
    pub inputs: wirebench_measure::study::inputs::Inputs,
    /// MQTT topic length in bytes (default 4, as `t/ev`).
    #[arg(long)]
    pub topic_bytes: Option<usize>,
    /// Count IP headers as IPv6 instead of IPv4.
    #[arg(long)]
    pub ipv6: bool,
}

/// The `[link]` part.
pub struct LinkPart;

impl Part for LinkPart {
    const NAME: &'static str = "link";
    type Options = LinkOpts;
    type Section = LinkSection;

    fn validate(opts: &LinkOpts) -> Result<(), PartError> {
        for r in &opts.radios {
            Radio::parse(r).map_err(|e| PartError::bad(e.to_string()))?;
        }
        let topic = topic_bytes(opts)?;
        for p in &opts.protocols {
            protocol(p, topic)?;
        }
        check_sizes(&opts.payload_bytes)?;
        codec_ids(&opts.formats).map_err(|e| PartError::bad(e.to_string()))?;
        check_payloads(opts.inputs.corpus.as_deref(), &opts.inputs.samples, &opts.inputs.schema)
    }

    fn run(opts: &LinkOpts) -> Result<LinkSection, PartError> {
        Self::validate(opts)?;
        measure(opts)
    }
}

const DEFAULT_RADIOS: &[&str] = &[
    "lora-sf7",
    "lora-sf8",
    "lora-sf9",
    "lora-sf10",
    "lora-sf11",
    "lora-sf12",
    "sigfox",
    "nb-iot",
    "lte-m1",
    "ble-dle",
    "802.15.4",
];
const DEFAULT_FORMATS: &[&str] = &["json", "cbor", "msgpack", "protobuf", "pson"];

/// Messages above this are not link messages.
const MAX_PAYLOAD: usize = 1 << 20;

fn topic_bytes(opts: &LinkOpts) -> Result<usize, PartError> {
    let topic = opts.topic_bytes.unwrap_or(4);
    if topic > 65_535 {
        return Err(PartError::bad("an MQTT topic is at most 65,535 bytes"));
    }
    Ok(topic)
}

fn check_sizes(sizes: &[usize]) -> Result<(), PartError> {
    if sizes.iter().any(|b| *b > MAX_PAYLOAD) {
        return Err(PartError::bad("payload sizes above 1 MiB are not link messages"));
    }
    Ok(())
}

/// A protocol by name, with its natural transport and its label in the results.
fn protocol(name: &str, topic: usize) -> Result<(Protocol, Option<Transport>, String), PartError> {
    let (p, t) = match name.trim().to_ascii_lowercase().as_str() {
        "raw" | "none" => (Protocol::Raw, None),
        "mqtt" | "mqtt1" | "mqtt-qos1" => (Protocol::Mqtt311 { topic_len: topic, qos: 1 }, Some(Transport::TcpIpv4)),
        "mqtt0" | "mqtt-qos0" => (Protocol::Mqtt311 { topic_len: topic, qos: 0 }, Some(Transport::TcpIpv4)),
        "mqtt5" => (Protocol::Mqtt5 { topic_len: topic, qos: 1, properties_len: 0 }, Some(Transport::TcpIpv4)),
        "mqtt-sn" | "mqttsn" => (Protocol::MqttSn, Some(Transport::UdpIpv4)),
        // CON/NON with a 2-byte token, Uri-Path "t" (2 B) and Content-Format (2 B).
        "coap" => (Protocol::Coap { token_len: 2, options_len: 4 }, Some(Transport::UdpIpv4)),
        "http" | "http11" | "http/1.1" => {
            (Protocol::Http11 { header_bytes: WRK_REQUEST_HEADER }, Some(Transport::TcpIpv4))
        }
        other => {
            return Err(PartError::bad(format!(
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

/// The payloads to model: one set per format (its encoded sizes of the messages) or per raw
/// size.
enum Payloads {
    /// A raw payload size (label `"<n> B"`).
    Raw(usize),
    /// A format's encoded sizes of every message.
    Format(String, Vec<usize>),
    /// A format that could not encode the messages.
    Failed(String, String),
}

/// The source's name and the payload sets.
fn payload_sets(opts: &LinkOpts) -> Result<(String, Vec<Payloads>), PartError> {
    if !opts.payload_bytes.is_empty() {
        check_sizes(&opts.payload_bytes)?;
        return Ok(("raw sizes".into(), opts.payload_bytes.iter().map(|b| Payloads::Raw(*b)).collect()));
    }
    let formats: Vec<String> = if opts.formats.is_empty() {
        DEFAULT_FORMATS.iter().map(|s| s.to_string()).collect()
    } else {
        opts.formats.clone()
    };
    let ids = codec_ids(&formats).map_err(|e| PartError::bad(e.to_string()))?;
    let w = Workload::pick(&opts.inputs.samples, opts.inputs.corpus.as_deref(), 1, 1, &opts.inputs.schema)
        .map_err(|e| PartError::bad(e.to_string()))?;
    let sets = ids
        .into_iter()
        .map(|id| match w.encode_all(&id) {
            Ok(bodies) => Payloads::Format(id, bodies.iter().map(Vec::len).collect()),
            Err(e) => Payloads::Failed(id, e.to_string()),
        })
        .collect();
    Ok((w.name, sets))
}

/// One radio × protocol over a set of payload sizes: the means of the models (`None` for no
/// sizes).
fn row(
    radio: &Radio,
    proto: &(Protocol, Option<Transport>, String),
    format: &str,
    sizes: &[usize],
    ipv6: bool,
) -> Option<LinkRow> {
    let (p, transport, plabel) = proto;
    let each: Vec<Airtime> = sizes.iter().map(|&s| airtime_with(radio, p, s)).collect();
    let a0 = each.first()?;
    let n = each.len() as f64;
    let mean = |f: &dyn Fn(&Airtime) -> f64| each.iter().map(f).sum::<f64>() / n;
    let seconds = mean(&|a| a.seconds);
    // The link's rule per day scales with airtime (duty cycle, capacity) except Sigfox's
    // message quota: recompute from the mean where the rule is time-based.
    let per_day = mean(&|a| a.msgs_per_day * a.seconds) / seconds.max(1e-12);
    let fair = a0
        .msgs_per_day_fair_use
        .map(|_| mean(&|a| a.msgs_per_day_fair_use.unwrap_or(0.0) * a.seconds) / seconds.max(1e-12));
    let payload = sizes.iter().sum::<usize>() as f64 / n;
    let app = mean(&|a| a.payload_bytes as f64);
    let ip = transport.map(|t| {
        let t = if ipv6 { v6(t) } else { t };
        let b = sizes.iter().map(|&s| message_bytes(p, t, s, 1500).ip_bytes).sum::<usize>() as f64 / n;
        (format!("{t:?}").to_ascii_lowercase(), b)
    });
    Some(LinkRow {
        radio: radio.name(),
        protocol: plabel.clone(),
        format: format.to_string(),
        messages: sizes.len(),
        payload_bytes: payload,
        app_bytes: app,
        protocol_overhead_bytes: app - payload,
        frames: mean(&|a| a.frames as f64),
        bytes_on_air: mean(&|a| a.bytes_on_air as f64),
        airtime_ms: seconds * 1e3,
        msgs_per_day: per_day,
        msgs_per_day_fair_use: fair,
        fits: each.iter().all(|a| a.fits),
        max_payload: radio.max_payload(),
        note: a0.note.split(" (payload ").next().unwrap_or("").to_string(),
        transport: ip.as_ref().map(|(t, _)| t.clone()),
        ip_bytes: ip.map(|(_, b)| b),
        ..LinkRow::default()
    })
}

/// Run the models into the `link` section (the options are checked).
fn measure(opts: &LinkOpts) -> Result<LinkSection, PartError> {
    let radio_names: Vec<String> = if opts.radios.is_empty() {
        DEFAULT_RADIOS.iter().map(|s| s.to_string()).collect()
    } else {
        opts.radios.clone()
    };
    let radios: Vec<Radio> = radio_names
        .iter()
        .map(|r| Radio::parse(r).map_err(|e| PartError::bad(e.to_string())))
        .collect::<Result<_, _>>()?;
    let protos = if opts.protocols.is_empty() { vec!["raw".to_string()] } else { opts.protocols.clone() };
    let topic = topic_bytes(opts)?;
    let protos: Vec<_> = protos.iter().map(|p| protocol(p, topic)).collect::<Result<_, _>>()?;
    let (source, sets) = payload_sets(opts)?;
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for set in &sets {
        let (label, sizes, raw) = match set {
            Payloads::Failed(format, error) => {
                failed.push(FailedFormat { format: format.clone(), error: error.clone() });
                continue;
            }
            Payloads::Raw(b) => (format!("{b} B"), vec![*b], true),
            Payloads::Format(id, sizes) => (id.clone(), sizes.clone(), false),
        };
        for radio in &radios {
            for proto in &protos {
                let Some(mut r) = row(radio, proto, &label, &sizes, opts.ipv6) else { continue };
                if let (Radio::LoRa { sf }, Protocol::Raw, true) = (radio, &proto.0, raw) {
                    if let Some(spec) = published::spec_lora(sizes[0], *sf) {
                        r.spec_airtime_ms = Some(spec.airtime_ms);
                        r.spec_msgs_per_day = Some(spec.per_day_1pct);
                        r.spec_msgs_per_day_ttn = Some(spec.per_day_ttn);
                        r.spec_deviation_pct = Some((r.airtime_ms / spec.airtime_ms - 1.0) * 100.0);
                    }
                }
                rows.push(r);
            }
        }
    }
    Ok(LinkSection {
        source,
        radios: radios.iter().map(Radio::name).collect(),
        protocols: protos.iter().map(|p| p.2.clone()).collect(),
        ipv6: opts.ipv6,
        rows,
        failed,
        spec_source: published::SPEC_LORA_SOURCE.into(),
        known_radios: RADIO_NAMES.iter().map(|s| s.to_string()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_lora_rows_carry_the_spec_table_and_ip_rows_their_transport() {
        let opts = LinkOpts {
            radios: vec!["lora-sf7".into()],
            protocols: vec!["raw".into(), "mqtt-sn".into()],
            payload_bytes: vec![12, 13],
            ipv6: true,
            ..Default::default()
        };
        let s = LinkPart::run(&opts).unwrap();
        assert_eq!((s.source.as_str(), s.protocols.clone()), ("raw sizes", vec!["raw".to_string(), "mqtt-sn".into()]));
        assert_eq!(s.rows.len(), 4);
        let raw12 = &s.rows[0];
        assert_eq!((raw12.format.as_str(), raw12.protocol.as_str(), raw12.messages), ("12 B", "raw", 1));
        let spec = published::spec_lora(12, 7).unwrap();
        assert_eq!(raw12.spec_airtime_ms, Some(spec.airtime_ms));
        assert!((raw12.spec_deviation_pct.unwrap() - (raw12.airtime_ms / spec.airtime_ms - 1.0) * 100.0).abs() < 1e-12);
        assert!(raw12.transport.is_none() && raw12.ip_bytes.is_none());
        // 13 B is not in the spec's table; MQTT-SN rows are over UDP/IPv6 and have no spec figure.
        assert!(s.rows[2].spec_airtime_ms.is_none());
        let sn = &s.rows[1];
        assert_eq!(sn.transport.as_deref(), Some("udpipv6"));
        assert!(sn.ip_bytes.unwrap() > sn.app_bytes && sn.app_bytes > sn.payload_bytes && sn.spec_airtime_ms.is_none());
        assert_eq!(sn.protocol_overhead_bytes, sn.app_bytes - sn.payload_bytes);
    }

    #[test]
    fn bad_options_are_bad_input() {
        let bad = |o: LinkOpts| match LinkPart::validate(&o) {
            Err(PartError::BadInput(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(
            bad(LinkOpts { radios: vec!["lora-sf6".into()], ..Default::default() }).contains("unknown radio profile")
        );
        assert!(bad(LinkOpts { protocols: vec!["smtp".into()], ..Default::default() }).starts_with("unknown protocol"));
        assert!(bad(LinkOpts { topic_bytes: Some(70_000), ..Default::default() }).contains("65,535"));
        assert!(bad(LinkOpts { payload_bytes: vec![2 << 20], ..Default::default() }).contains("1 MiB"));
        assert!(bad(LinkOpts {
            inputs: wirebench_measure::study::inputs::Inputs { corpus: Some("nope".into()), ..Default::default() },
            ..Default::default()
        })
        .starts_with("unknown corpus"));
    }

    #[test]
    fn formats_use_the_encoded_sizes_of_the_messages() {
        let opts = LinkOpts {
            radios: vec!["nb-iot".into()],
            formats: vec!["json".into(), "cbor".into()],
            ..Default::default()
        };
        let s = LinkPart::run(&opts).unwrap();
        assert_eq!(s.rows.len(), 2);
        assert!(s.rows[0].payload_bytes > s.rows[1].payload_bytes, "JSON is larger than CBOR");
        assert!(s.failed.is_empty() && s.known_radios.len() >= 11);
    }
}
