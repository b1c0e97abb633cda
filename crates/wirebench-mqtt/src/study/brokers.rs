//! Brokers and payloads: the broker a run goes through (embedded, mosquitto or given by URL),
//! and what a transport run sends.

use std::path::Path;

use wirebench_core::part::PartError;
use wirebench_core::sections::mqtt::BrokerInfo;

use super::common::{check_fields, mqtt_err};
use crate::opcua::StudyFormat;
use crate::{Credentials, Endpoint, ExternalBroker, Mosquitto, MqttBroker, MqttError, Payloads};

/// `max_queued_messages` of the mosquitto a run starts: more than one run's messages (a
/// throughput run sends at most a few hundred thousand), so the broker queues what its
/// subscriber has not taken yet instead of dropping it.
pub const MOSQUITTO_QUEUE: u64 = 10_000_000;

/// A broker a run goes through, kept alive (and, for the ones we started, stopped on drop).
pub(super) enum Broker {
    #[cfg(feature = "embedded-broker")]
    Embedded(crate::EmbeddedBroker),
    Mosquitto(Mosquitto),
    External(ExternalBroker),
}

impl Broker {
    /// Check a broker spec with its credentials without starting or contacting anything.
    pub(super) fn check(spec: &str, c: &Credentials) -> Result<(), PartError> {
        if spec.contains("://") {
            ExternalBroker::with_credentials(spec, c).map(drop).map_err(broker_err)
        } else if c.any() {
            Err(PartError::bad(format!(
                "--broker {spec}: --username, --password, --ca-file, --client-cert and --client-key need a broker URL (mqtt:// or mqtts://)"
            )))
        } else {
            Ok(())
        }
    }

    pub(super) fn open(spec: &str, c: &Credentials) -> Result<Broker, PartError> {
        Broker::check(spec, c)?;
        match spec {
            #[cfg(feature = "embedded-broker")]
            "embedded" => {
                Ok(Broker::Embedded(crate::EmbeddedBroker::start(crate::BrokerConfig::default()).map_err(mqtt_err)?))
            }
            #[cfg(not(feature = "embedded-broker"))]
            "embedded" => Err(PartError::bad(
                "--broker embedded: this build has no embedded broker (cargo feature embedded-broker)",
            )),
            // Mosquitto's default queue of 1,000 QoS 1 messages per client drops what a
            // subscriber has not taken yet when a run publishes flat out (6,226 of 120,000 on a
            // busy host): the queue is set for the load a run offers (MOSQUITTO_QUEUE).
            "mosquitto" => Ok(Broker::Mosquitto(
                Mosquitto::start_with(&crate::MosquittoOptions {
                    extra_config: vec![format!("max_queued_messages {MOSQUITTO_QUEUE}")],
                    ..crate::MosquittoOptions::default()
                })
                .map_err(|e| PartError::bad(format!("--broker mosquitto: {e}")))?,
            )),
            url if url.contains("://") => {
                Ok(Broker::External(ExternalBroker::with_credentials(url, c).map_err(broker_err)?))
            }
            other => {
                Err(PartError::bad(format!("--broker {other:?}: expected embedded, mosquitto or mqtt://host[:port]")))
            }
        }
    }

    /// The broker's name in results: product and version, or the URL.
    pub(super) fn name(&self) -> String {
        match self {
            #[cfg(feature = "embedded-broker")]
            Broker::Embedded(_) => "rumqttd 0.20 (embedded)".into(),
            Broker::Mosquitto(m) => m.version().trim().replace("mosquitto version", "mosquitto"),
            Broker::External(e) => e.url().to_string(),
        }
    }

    pub(super) fn info(&self, c: &Credentials) -> BrokerInfo {
        let ep = self.endpoint();
        BrokerInfo {
            name: self.name(),
            kind: ep.kind.name().into(),
            url: ep.url,
            skipped: None,
            tls: Some(ep.tls),
            username: ep.username,
            client_cert: c.tls.client_cert.as_ref().filter(|_| ep.tls).map(|p| p.display().to_string()),
        }
    }
}

/// A broker URL or credentials error: the URL's (already named `--broker`) or an option's.
fn broker_err(e: MqttError) -> PartError {
    match e {
        MqttError::InvalidUrl { .. } => PartError::bad(format!("--broker: {e}")),
        other => mqtt_err(other),
    }
}

impl MqttBroker for Broker {
    fn endpoint(&self) -> Endpoint {
        match self {
            #[cfg(feature = "embedded-broker")]
            Broker::Embedded(b) => b.endpoint(),
            Broker::Mosquitto(b) => b.endpoint(),
            Broker::External(b) => b.endpoint(),
        }
    }
}

/// What a transport run sends.
#[derive(Clone, Debug)]
pub struct PayloadSpec {
    /// `uadp, 3 fields`, `bytes:50`, or the file name.
    pub label: String,
    /// The study format, `synthetic`, `uadp-file` or `json-file`.
    pub format: String,
    /// Fields per NetworkMessage (study formats only).
    pub fields: Option<usize>,
    /// The payload of RTT runs and the size rows: the only one, or the median-sized one of
    /// `items`.
    pub bytes: Vec<u8>,
    /// Every payload, sent in turn by throughput runs (one for study formats and files; the
    /// encoded samples or corpus for zoo codecs).
    pub items: Vec<Vec<u8>>,
}

impl PayloadSpec {
    /// A study format with `fields` fields (encoded and checked to decode back), or `bytes:N`.
    pub fn parse(format: &str, fields: usize) -> Result<PayloadSpec, PartError> {
        if let Some(n) = format.strip_prefix("bytes:") {
            let n: usize = n
                .parse()
                .ok()
                .filter(|n| (1..=1 << 20).contains(n))
                .ok_or_else(|| PartError::bad(format!("--format {format:?}: bytes:N needs N in 1..=1048576")))?;
            return Ok(PayloadSpec {
                label: format.into(),
                format: "synthetic".into(),
                fields: None,
                bytes: Payloads::synthetic(n).get(0).to_vec(),
                items: vec![Payloads::synthetic(n).get(0).to_vec()],
            });
        }
        let f = StudyFormat::parse(format).ok_or_else(|| {
            PartError::bad(format!("--format {format:?}: unknown format (known: {}, bytes:N)", StudyFormat::ids()))
        })?;
        check_fields(&[fields])?;
        let bytes = f.encode(fields).map_err(PartError::bad)?;
        f.decode_check(&bytes, fields).map_err(PartError::failed)?;
        Ok(PayloadSpec {
            label: format!("{format}, {fields} fields"),
            format: f.id().into(),
            fields: Some(fields),
            items: vec![bytes.clone()],
            bytes,
        })
    }

    /// A NetworkMessage file: JSON when its first non-blank byte is `{` or `[`, else UADP; it
    /// must decode.
    pub fn file(path: &Path) -> Result<PayloadSpec, PartError> {
        let bytes = std::fs::read(path).map_err(|e| PartError::bad(format!("{}: {e}", path.display())))?;
        let name = path.display().to_string();
        if bytes.is_empty() {
            return Err(PartError::bad(format!("{name}: empty file, not a NetworkMessage")));
        }
        let is_json = bytes.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|b| *b == b'{' || *b == b'[');
        let format = if is_json {
            let text = std::str::from_utf8(&bytes)
                .map_err(|e| PartError::bad(format!("{name}: not UTF-8 text (at byte {})", e.valid_up_to())))?;
            uadp::json::from_json(text, &Default::default())
                .map_err(|e| PartError::bad(format!("{name}: JSON NetworkMessage: {e}")))?;
            "json-file"
        } else {
            uadp::decode_exact(&bytes, &uadp::DecodeOptions::default())
                .map_err(|e| PartError::bad(format!("{name}: UADP NetworkMessage: {e}")))?;
            "uadp-file"
        };
        Ok(PayloadSpec { label: name, format: format.into(), fields: None, items: vec![bytes.clone()], bytes })
    }

    /// A zoo codec's encodings of samples or a corpus (`source` names them): throughput sends
    /// them in turn, RTT runs send the median-sized one.
    pub fn encoded(format: &str, source: &str, items: Vec<Vec<u8>>) -> Result<PayloadSpec, PartError> {
        let mut sizes: Vec<(usize, usize)> = items.iter().enumerate().map(|(i, b)| (b.len(), i)).collect();
        sizes.sort_unstable();
        let &(median, at) =
            sizes.get(sizes.len() / 2).ok_or_else(|| PartError::bad(format!("{source}: no message to send")))?;
        let (lo, hi) = (sizes[0].0, sizes[sizes.len() - 1].0);
        Ok(PayloadSpec {
            label: format!("{format}: {} {source} messages, {lo}–{hi} B (median {median} B)", items.len()),
            format: format.into(),
            fields: None,
            bytes: items[at].clone(),
            items,
        })
    }

    /// Mean payload bytes over `items`, rounded.
    pub(super) fn mean_len(&self) -> usize {
        let n = self.items.len().max(1);
        (self.items.iter().map(Vec::len).sum::<usize>() + n / 2) / n
    }
}
