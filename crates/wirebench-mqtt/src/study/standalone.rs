//! Standalone runs (`wirebench mqtt sizes|throughput|rtt`): the size table, and one throughput
//! or RTT case through one broker with the options as given on the command line.

use std::io::IsTerminal;
use std::path::PathBuf;

use wirebench_core::part::PartError;
use wirebench_core::sections::mqtt::MqttSection;

use super::brokers::{Broker, PayloadSpec};
use super::common::{check_fields, mqtt_err, parse_formats};
use super::sizes::add_sizes;
use super::thesis::{comparison, published};
use super::transport::{rtt_case, throughput_rounds, Rounds, DEFAULT_MIN_RUN_S};
use crate::{Credentials, EchoConfig, Qos, ThroughputConfig};

/// `wirebench mqtt sizes`: the size table of `formats` (all when empty) × `fields`, with the
/// layout arithmetic, encode/decode cost when `speed`, and the thesis's figures beside ours.
pub fn sizes_section(formats: &[String], fields: &[usize], speed: bool) -> Result<MqttSection, PartError> {
    let formats = parse_formats(formats)?;
    check_fields(fields)?;
    let mut section = MqttSection::new();
    add_sizes(&mut section, &formats, fields, speed)?;
    section.published = Some(published());
    section.comparison = comparison(&section);
    Ok(section)
}

/// The options of one standalone transport run (`wirebench mqtt throughput|rtt`), as given on
/// the command line; error messages name the flags.
#[derive(Clone, Debug)]
pub struct TransportOpts {
    /// `embedded`, `mosquitto`, `mqtt://[user[:password]@]host[:port]` or `mqtts://…`.
    pub broker: String,
    /// User name, password and TLS files for a broker given by URL (the password's `Debug`
    /// is `***`).
    pub credentials: Credentials,
    /// Throughput: the drain period after sending ends, seconds (0..=3600).
    pub drain_s: f64,
    /// `0` or `1`.
    pub qos: String,
    /// A study format or `bytes:N`.
    pub format: String,
    /// Fields per NetworkMessage (study formats).
    pub fields: usize,
    /// A NetworkMessage file to send instead of `format`.
    pub message: Option<PathBuf>,
    /// Measured messages (RTT: default 2,000; throughput: default 10,000 at first, raised from
    /// a calibration run of each side so that a repetition lasts at least
    /// [`DEFAULT_MIN_RUN_S`]; a count given is taken as is).
    pub count: Option<u64>,
    /// Limit on each run, seconds.
    pub timeout_s: f64,
    /// Run the bare rumqttc pair beside ours.
    pub baseline: bool,
    pub reps: usize,
    /// The topic (default: a fresh one per run).
    pub topic: Option<String>,
    /// `Some` for an echo RTT run, `None` for throughput.
    pub rtt: Option<EchoOpts>,
    /// Payloads made by the caller (a zoo codec's encodings of samples or a corpus), instead
    /// of `format` / `message`.
    pub payloads: Option<PayloadSpec>,
}

/// The RTT options of a standalone transport run.
#[derive(Clone, Copy, Debug)]
pub struct EchoOpts {
    /// Round trips before the measured ones.
    pub warmup: u64,
    /// Requests per second (open loop); `None` is closed loop.
    pub rate: Option<f64>,
}

/// A checked standalone transport run: what it sends, at which QoS.
#[derive(Clone, Debug)]
pub struct TransportPlan {
    opts: TransportOpts,
    pub payload: PayloadSpec,
    pub qos: Qos,
}

impl TransportOpts {
    /// Check every option (the NetworkMessage file must decode) without connecting anywhere.
    pub fn plan(&self) -> Result<TransportPlan, PartError> {
        if !(self.timeout_s.is_finite() && (0.001..=86_400.0).contains(&self.timeout_s)) {
            return Err(PartError::bad(format!("--timeout {:?}: expected seconds in [0.001, 86400]", self.timeout_s)));
        }
        if self.reps == 0 || self.reps > 100 {
            return Err(PartError::bad(format!("--reps {}: expected 1..=100", self.reps)));
        }
        if !(self.drain_s.is_finite() && (0.0..=3_600.0).contains(&self.drain_s)) {
            return Err(PartError::bad(format!("--drain {:?}: expected seconds in [0, 3600]", self.drain_s)));
        }
        // The URL, credentials and TLS files are checked here, before anything runs.
        Broker::check(&self.broker, &self.credentials)?;
        let payload = match (&self.payloads, &self.message) {
            (Some(p), _) => p.clone(),
            (None, Some(path)) => PayloadSpec::file(path)?,
            (None, None) => PayloadSpec::parse(&self.format, self.fields)?,
        };
        if let Some(topic) = &self.topic {
            crate::validate_topic(topic).map_err(mqtt_err)?;
        }
        let qos = match self.qos.as_str() {
            "0" => Qos::AtMostOnce,
            "1" => Qos::AtLeastOnce,
            other => return Err(PartError::bad(format!("--qos {other:?}: expected 0 or 1 (QoS 2 is not measured)"))),
        };
        Ok(TransportPlan { opts: self.clone(), payload, qos })
    }
}

impl TransportPlan {
    /// Open the broker and measure: a section with the broker and one throughput or RTT row.
    /// Per-repetition progress goes to stderr when it is a terminal.
    pub fn run(&self) -> Result<MqttSection, PartError> {
        let t = &self.opts;
        let broker = Broker::open(&t.broker, &t.credentials)?;
        let timeout_ms = (t.timeout_s * 1e3).round() as u64;
        let progress = std::io::stderr().is_terminal();
        let mut section = MqttSection::new();
        section.brokers.push(broker.info(&t.credentials));
        match t.rtt {
            None => {
                let cfg = ThroughputConfig {
                    messages: t.count.unwrap_or(10_000),
                    qos: self.qos,
                    topic: t.topic.clone(),
                    deadline_ms: timeout_ms,
                    connect_timeout_ms: timeout_ms.min(5_000),
                    drain_timeout_ms: (t.drain_s * 1e3).round() as u64,
                    ..ThroughputConfig::default()
                };
                // Without --count, repetitions last at least a second (10,000 messages are
                // ~50 ms on loopback); with it, exactly that many messages.
                let rounds = Rounds {
                    reps: t.reps,
                    max_reps: t.reps,
                    min_run_s: t.count.is_none().then_some(DEFAULT_MIN_RUN_S),
                    ci_target: None,
                    budget_s: None,
                };
                let mut rows = throughput_rounds(&[(&broker, &self.payload, cfg)], &rounds, t.baseline, progress)?;
                section.throughput.push(rows.remove(0));
            }
            Some(EchoOpts { warmup, rate }) => {
                let (req_topic, resp_topic) = match &t.topic {
                    Some(s) => (Some(s.clone()), Some(format!("{s}/echo"))),
                    None => (None, None),
                };
                let cfg = EchoConfig {
                    messages: t.count.unwrap_or(2_000),
                    warmup,
                    qos: self.qos,
                    rate,
                    req_topic,
                    resp_topic,
                    deadline_ms: timeout_ms,
                    connect_timeout_ms: timeout_ms.min(5_000),
                    reply_timeout_ms: timeout_ms.min(1_000),
                    ..EchoConfig::default()
                };
                let row = rtt_case(&broker, &self.payload, &cfg, t.reps, t.baseline, progress)?;
                section.rtt.push(row);
            }
        }
        Ok(section)
    }
}
