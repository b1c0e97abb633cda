//! The `[mqtt]` part of a study (seed 000: OPC UA PubSub over MQTT), and the measurements of
//! `wirebench mqtt sizes|throughput|rtt`, each into the typed `mqtt` results section
//! ([`MqttSection`]).
//!
//! - Sizes: the study's NetworkMessages (UADP with the thesis's header options, the smallest
//!   UADP options, RawData, JSON reversible / non-reversible / DataValue) for each field count,
//!   each encoded by our `uadp` crate and checked to decode back; the seed layout's byte
//!   arithmetic (39 + 5N) beside the thesis's 38/48/58/83; encode/decode time and allocations
//!   per message.
//! - Throughput: N messages from one publisher to one subscriber through a broker, with
//!   delivery accounting, repeated; the bare rumqttc pair interleaved with ours (A B B A …).
//! - RTT: echo round trips, pooled over the repetitions into percentiles and a CDF, with the
//!   bare echo pair interleaved.
//! - The thesis's published figures as data, and the rows that put them beside ours.
//!
//! Errors: what the user got wrong (an unknown format, a malformed NetworkMessage file, a
//! malformed broker URL, a missing or unparsable certificate or key file, an invalid topic, an
//! option out of range) is [`PartError::BadInput`] (exit code 2); what the environment did (a
//! broker that refuses the connection or the credentials, a failed TLS handshake, a timeout,
//! the embedded broker failing to start, a socket error) is [`PartError::Failed`] (exit 1).

use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wirebench_core::part::{Part, PartError};
use wirebench_core::sections::mqtt::{BrokerInfo, MqttSection};

use crate::opcua::{self, StudyFormat, FIELD_COUNTS};
use crate::{Credentials, EchoConfig, Mosquitto, Qos, ThroughputConfig};

mod brokers;
mod common;
mod sizes;
mod standalone;
#[cfg(test)]
mod tests;
mod thesis;
mod transport;

pub use brokers::{PayloadSpec, MOSQUITTO_QUEUE};
pub use common::{check_fields, parse_formats, CI_LEVEL};
pub use standalone::{sizes_section, EchoOpts, TransportOpts, TransportPlan};
pub use thesis::published;
pub use transport::DEFAULT_MIN_RUN_S;

use brokers::Broker;
use sizes::add_sizes;
use thesis::{comparison, notes};
use transport::{rtt_case, throughput_rounds, Rounds};

/// The `[mqtt]` part of a study.
pub struct MqttPart;

impl Part for MqttPart {
    const NAME: &'static str = "mqtt";
    type Options = StudyOpts;
    type Section = MqttSection;

    fn validate(opts: &StudyOpts) -> Result<(), PartError> {
        plan(opts).map(|_| ())
    }

    fn run(opts: &StudyOpts) -> Result<MqttSection, PartError> {
        measure(opts)
    }
}

/// The options of the `[mqtt]` part of a study file (every key optional).
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
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
    /// Messages per throughput run (the starting count when `min_run_s` is set).
    pub messages: u64,
    /// Throughput: the shortest repetition, seconds (0..=600). Each case first runs each side
    /// once with `messages` (not counted: calibration and warm-up; once more with the count it
    /// gave when that run lasted under half the minimum), then sends enough messages that a
    /// repetition at the fastest rate seen lasts at least this long. 0 (the default): `messages`
    /// as given.
    pub min_run_s: f64,
    /// Throughput: the most repetitions (`reps`..=100) when a 95 % interval is still wider
    /// than `ci_target`; 0 (the default): exactly `reps`.
    pub max_reps: usize,
    /// Throughput: the bound on each 95 % interval (each side's msgs/s and the ours/bare ratio),
    /// half its width relative to its median, in [0, 1); repetitions are added while one is
    /// wider. 0: none.
    pub ci_target: f64,
    /// Throughput: a limit on the rounds (every case of every broker), seconds (0..=86400): no
    /// round beyond `reps` starts when the last one would end past it. 0: none.
    pub budget_s: f64,
    /// Measured round trips per RTT run, and warm-up before them.
    pub rtt_messages: u64,
    pub rtt_warmup: u64,
    /// Repetitions, ours and the bare pair interleaved (throughput: at least this many; a
    /// 95 % interval needs 6).
    pub reps: usize,
    /// RTT repetitions (1..=100; their samples are pooled); 0 (the default): `reps`.
    pub rtt_reps: usize,
    /// Run the bare rumqttc pair beside ours.
    pub baseline: bool,
    /// Limit per run, seconds.
    pub timeout_s: f64,
    /// Throughput at QoS ≥ 1: the drain period after sending ends, seconds (0..=3600), during
    /// which deliveries and acknowledgements still count.
    pub drain_s: f64,
    /// For brokers given by URL: the user name (the password comes from the URL or, better,
    /// the `WIREBENCH_MQTT_PASSWORD` environment variable, so a study file holds no secret).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// For `mqtts://` brokers: the CA certificate(s) that signed the broker's certificate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<PathBuf>,
    /// For `mqtts://` brokers: a client certificate chain and its key (mutual TLS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_cert: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_key: Option<PathBuf>,
}

impl StudyOpts {
    /// The credentials for brokers given by URL (the password from the environment).
    fn credentials(&self) -> Credentials {
        Credentials {
            username: self.username.clone(),
            password: None,
            env_password: std::env::var(PASSWORD_ENV)
                .ok()
                .filter(|p| !p.is_empty())
                .map(crate::endpoint::Password::new),
            tls: crate::TlsFiles {
                ca_file: self.ca_file.clone(),
                client_cert: self.client_cert.clone(),
                client_key: self.client_key.clone(),
            },
        }
    }

    /// The credentials for one broker: those of the study for a URL, none for the brokers
    /// wirebench starts itself.
    fn credentials_for(&self, spec: &str) -> Credentials {
        if spec.contains("://") {
            self.credentials()
        } else {
            Credentials::default()
        }
    }
}

/// The environment variable a broker password is read from (never from a study file).
pub const PASSWORD_ENV: &str = "WIREBENCH_MQTT_PASSWORD";

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
            min_run_s: 0.0,
            max_reps: 0,
            ci_target: 0.0,
            budget_s: 0.0,
            rtt_messages: 2_000,
            rtt_warmup: 200,
            reps: 3,
            rtt_reps: 0,
            baseline: true,
            timeout_s: 60.0,
            drain_s: 2.0,
            username: None,
            ca_file: None,
            client_cert: None,
            client_key: None,
        }
    }
}

/// The checked options of the `[mqtt]` part.
struct Plan {
    formats: Vec<StudyFormat>,
    qos: Vec<Qos>,
    payloads: Vec<PayloadSpec>,
}

/// Check the options of the `[mqtt]` part: size formats, field counts, ranges, QoS levels,
/// transport payloads (each encoded and checked to decode).
fn plan(opts: &StudyOpts) -> Result<Plan, PartError> {
    let formats = parse_formats(&opts.size_formats)?;
    check_fields(&opts.fields)?;
    check_fields(&[opts.transport_fields])?;
    if opts.reps == 0 || opts.reps > 100 {
        return Err(PartError::bad(format!("[mqtt] reps = {}: expected 1..=100", opts.reps)));
    }
    if !(opts.timeout_s.is_finite() && (0.001..=86_400.0).contains(&opts.timeout_s)) {
        return Err(PartError::bad(format!(
            "[mqtt] timeout_s = {:?}: expected seconds in [0.001, 86400]",
            opts.timeout_s
        )));
    }
    if !(opts.drain_s.is_finite() && (0.0..=3_600.0).contains(&opts.drain_s)) {
        return Err(PartError::bad(format!("[mqtt] drain_s = {}: expected seconds in [0, 3600]", opts.drain_s)));
    }
    if !(opts.min_run_s.is_finite() && (0.0..=600.0).contains(&opts.min_run_s)) {
        return Err(PartError::bad(format!("[mqtt] min_run_s = {}: expected seconds in [0, 600]", opts.min_run_s)));
    }
    if opts.min_run_s >= opts.timeout_s {
        return Err(PartError::bad(format!(
            "[mqtt] min_run_s = {} must be below timeout_s = {} (a repetition must fit in its limit)",
            opts.min_run_s, opts.timeout_s
        )));
    }
    if opts.rtt_reps > 100 {
        return Err(PartError::bad(format!("[mqtt] rtt_reps = {}: expected 0 (= reps) or 1..=100", opts.rtt_reps)));
    }
    if opts.max_reps != 0 && !(opts.reps..=100).contains(&opts.max_reps) {
        return Err(PartError::bad(format!(
            "[mqtt] max_reps = {}: expected 0 or reps..=100 ({}..=100)",
            opts.max_reps, opts.reps
        )));
    }
    if !(opts.ci_target.is_finite() && (0.0..1.0).contains(&opts.ci_target)) {
        return Err(PartError::bad(format!("[mqtt] ci_target = {}: expected a fraction in [0, 1)", opts.ci_target)));
    }
    if !(opts.budget_s.is_finite() && (0.0..=86_400.0).contains(&opts.budget_s)) {
        return Err(PartError::bad(format!("[mqtt] budget_s = {}: expected seconds in [0, 86400]", opts.budget_s)));
    }
    let creds = opts.credentials();
    if creds.any() && !opts.brokers.iter().any(|b| b.contains("://")) {
        return Err(PartError::bad(
            "[mqtt] username, ca_file, client_cert and client_key apply to brokers given by URL (mqtt:// or mqtts://); brokers names none",
        ));
    }
    for spec in &opts.brokers {
        Broker::check(spec, &opts.credentials_for(spec)).map_err(|e| PartError::bad(format!("[mqtt] brokers: {e}")))?;
    }
    let qos: Vec<Qos> = opts
        .qos
        .iter()
        .map(|&q| Qos::try_from(q).map_err(|e| PartError::bad(format!("[mqtt] qos: {e}"))))
        .collect::<Result<_, _>>()?;
    let payloads: Vec<PayloadSpec> = opts
        .transport_formats
        .iter()
        .map(|f| {
            PayloadSpec::parse(f, opts.transport_fields)
                .map_err(|e| PartError::bad(format!("[mqtt] transport_formats: {e}")))
        })
        .collect::<Result<_, _>>()?;
    Ok(Plan { formats, qos, payloads })
}

/// Run the `[mqtt]` part: sizes, then throughput and RTT per broker × payload × QoS, then the
/// thesis's figures beside ours. Progress goes to stderr.
fn measure(opts: &StudyOpts) -> Result<MqttSection, PartError> {
    let Plan { formats, qos, payloads } = plan(opts)?;
    let started = Instant::now();
    let mut section = MqttSection::new();
    eprintln!("  sizes: {} formats × {} field counts", formats.len(), opts.fields.len());
    add_sizes(&mut section, &formats, &opts.fields, opts.codec_speed)?;
    let timeout_ms = (opts.timeout_s * 1e3).round() as u64;
    // Every broker is open for the whole part, so that the throughput rounds can span them all.
    let mut open: Vec<Broker> = Vec::new();
    for spec in &opts.brokers {
        let creds = opts.credentials_for(spec);
        match Broker::open(spec, &creds) {
            Ok(b) => {
                section.brokers.push(b.info(&creds));
                open.push(b);
            }
            Err(e) if spec == "mosquitto" && Mosquitto::binary().is_err() => {
                eprintln!("  mosquitto skipped: {e}");
                section.brokers.push(BrokerInfo {
                    name: "mosquitto".into(),
                    url: String::new(),
                    kind: "mosquitto".into(),
                    skipped: Some(e.to_string()),
                    tls: None,
                    username: None,
                    client_cert: None,
                });
            }
            Err(e) => return Err(e),
        }
    }
    // Throughput: every case of every broker in rounds of one repetition each, so that the
    // repetitions of a case are spread over the whole part (a busy spell of the machine then
    // touches some repetitions of every case, and shows in the intervals, instead of all
    // repetitions of a few); broker by broker and QoS by QoS, so that payloads compared with
    // each other run next to each other.
    let mut cases = Vec::new();
    // One topic for every throughput run of the part (runs go one after the other, and a
    // subscription starts at the end of a topic's log): the embedded broker keeps each topic's
    // log for its lifetime, up to max_segment_count × max_segment_size (160 MB), so a fresh
    // topic per run grew its memory by every run's messages (3+ GB for seed 000).
    let topic = format!("wirebench/{}/thr", crate::client::run_id());
    for broker in &open {
        for &q in &qos {
            for p in &payloads {
                let cfg = ThroughputConfig {
                    messages: opts.messages,
                    qos: q,
                    topic: Some(topic.clone()),
                    deadline_ms: timeout_ms,
                    connect_timeout_ms: timeout_ms.min(5_000),
                    drain_timeout_ms: (opts.drain_s * 1e3).round() as u64,
                    ..ThroughputConfig::default()
                };
                cases.push((broker, p, cfg));
            }
        }
    }
    if !cases.is_empty() {
        let rounds = Rounds::of_study(opts);
        eprintln!(
            "  throughput: {} cases of {} broker{} in rounds of one repetition each ({}{})",
            cases.len(),
            open.len(),
            if open.len() == 1 { "" } else { "s" },
            rounds.describe(),
            if opts.baseline { ", ours and bare" } else { "" }
        );
        let rows = throughput_rounds(&cases, &rounds, opts.baseline, false)?;
        // In the results, broker by broker and payload by payload as before.
        let (np, nq) = (payloads.len(), qos.len());
        for b in 0..open.len() {
            for p in 0..np {
                for q in 0..nq {
                    section.throughput.push(rows[b * nq * np + q * np + p].clone());
                }
            }
        }
    }
    for broker in &open {
        for p in &payloads {
            for &q in &qos {
                eprintln!("  {} · {} · QoS {}: RTT", broker.name(), p.label, q.level());
                let ecfg = EchoConfig {
                    messages: opts.rtt_messages,
                    warmup: opts.rtt_warmup,
                    qos: q,
                    deadline_ms: timeout_ms,
                    connect_timeout_ms: timeout_ms.min(5_000),
                    reply_timeout_ms: timeout_ms.min(1_000),
                    ..EchoConfig::default()
                };
                let rtt_reps = if opts.rtt_reps == 0 { opts.reps } else { opts.rtt_reps };
                section.rtt.push(rtt_case(broker, p, &ecfg, rtt_reps, opts.baseline, false)?);
            }
        }
    }
    section.published = Some(published());
    section.comparison = comparison(&section);
    section.notes = notes(&section);
    section.notes.push(format!("The mqtt part took {:.1} s.", started.elapsed().as_secs_f64()));
    Ok(section)
}
