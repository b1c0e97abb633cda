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

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wirebench_core::part::{Part, PartError};
use wirebench_core::sections::mqtt::{
    BrokerInfo, CodecCost, ComparisonRow, FormatInfo, Layout, LayoutPart, MeanMinMax, MessageSize, MqttSection,
    Published, PublishedFootprint, PublishedMemory, PublishedRtt, PublishedSize, PublishedSizes, PublishedThroughput,
    RttRow, RttSide, ThroughputRow, ThroughputSide,
};
use wirebench_measure::stats::median;

use wirebench_core::published::seed000 as thesis;

use crate::opcua::{self, StudyFormat, FIELD_COUNTS};
use crate::{
    baseline_echo_rtt, baseline_throughput, cdf_us, detect_nagle_stall, echo_rtt, latency_stats, throughput,
    Credentials, EchoConfig, EchoResult, Endpoint, ExternalBroker, Mosquitto, MqttBroker, MqttError, Payloads, Qos,
    ThroughputConfig, ThroughputResult, ECHO_P50_RATIO_GOAL, HEADER_LEN, THROUGHPUT_RATIO_GOAL,
};

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

/// `max_queued_messages` of the mosquitto a run starts: more than one run's messages (a
/// throughput run sends at most a few hundred thousand), so the broker queues what its
/// subscriber has not taken yet instead of dropping it.
pub const MOSQUITTO_QUEUE: u64 = 10_000_000;

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
    if !(opts.timeout_s.is_finite() && opts.timeout_s > 0.0 && opts.timeout_s <= 86_400.0) {
        return Err(PartError::bad(format!("[mqtt] timeout_s = {}: expected seconds in (0, 86400]", opts.timeout_s)));
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

// =============================================================================================
// Standalone runs (`wirebench mqtt sizes|throughput|rtt`)

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
        if !(self.timeout_s.is_finite() && self.timeout_s > 0.0 && self.timeout_s <= 86_400.0) {
            return Err(PartError::bad(format!("--timeout {}: expected seconds in (0, 86400]", self.timeout_s)));
        }
        if self.reps == 0 || self.reps > 100 {
            return Err(PartError::bad(format!("--reps {}: expected 1..=100", self.reps)));
        }
        if !(self.drain_s.is_finite() && (0.0..=3_600.0).contains(&self.drain_s)) {
            return Err(PartError::bad(format!("--drain {}: expected seconds in [0, 3600]", self.drain_s)));
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

/// The study formats of a list (all of them when it is empty).
pub fn parse_formats(list: &[String]) -> Result<Vec<StudyFormat>, PartError> {
    if list.is_empty() {
        return Ok(StudyFormat::ALL.to_vec());
    }
    list.iter()
        .map(|s| {
            StudyFormat::parse(s.trim()).ok_or_else(|| {
                PartError::bad(format!("--format {s:?}: unknown format (known: {})", StudyFormat::ids()))
            })
        })
        .collect()
}

/// Field counts: at least one, each in 1..=1000.
pub fn check_fields(fields: &[usize]) -> Result<(), PartError> {
    if fields.is_empty() {
        return Err(PartError::bad("fields: give at least one field count"));
    }
    for &n in fields {
        if n == 0 || n > 1000 {
            return Err(PartError::bad(format!("fields: {n} is out of range (1..=1000)")));
        }
    }
    Ok(())
}

/// MQTT errors from the user's input (URL, options, files, topic, configuration) are bad
/// input (exit 2); what the environment did (a broker that refuses or cannot be reached, a
/// failed TLS handshake, a timeout, a socket error) is a failure (exit 1).
fn mqtt_err(e: MqttError) -> PartError {
    match e {
        MqttError::InvalidUrl { .. } | MqttError::InvalidTopic { .. } | MqttError::Option(_) | MqttError::Config(_) => {
            PartError::bad(e.to_string())
        }
        MqttError::Connect { .. }
        | MqttError::SubscribeRefused { .. }
        | MqttError::Timeout { .. }
        | MqttError::Embedded(_)
        | MqttError::Mosquitto(_)
        | MqttError::Io { .. } => PartError::failed(e.to_string()),
    }
}

// =============================================================================================
// Brokers and payloads

/// A broker a run goes through, kept alive (and, for the ones we started, stopped on drop).
enum Broker {
    #[cfg(feature = "embedded-broker")]
    Embedded(crate::EmbeddedBroker),
    Mosquitto(Mosquitto),
    External(ExternalBroker),
}

impl Broker {
    /// Check a broker spec with its credentials without starting or contacting anything.
    fn check(spec: &str, c: &Credentials) -> Result<(), PartError> {
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

    fn open(spec: &str, c: &Credentials) -> Result<Broker, PartError> {
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
    fn name(&self) -> String {
        match self {
            #[cfg(feature = "embedded-broker")]
            Broker::Embedded(_) => "rumqttd 0.20 (embedded)".into(),
            Broker::Mosquitto(m) => m.version().trim().replace("mosquitto version", "mosquitto"),
            Broker::External(e) => e.url().to_string(),
        }
    }

    fn info(&self, c: &Credentials) -> BrokerInfo {
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
    fn mean_len(&self) -> usize {
        let n = self.items.len().max(1);
        (self.items.iter().map(Vec::len).sum::<usize>() + n / 2) / n
    }
}

// =============================================================================================
// Sizes, layout, codec cost

/// Sizes (every format × field count, each checked to decode), the layout arithmetic, and
/// (with `speed`) encode/decode time and allocations.
fn add_sizes(s: &mut MqttSection, formats: &[StudyFormat], fields: &[usize], speed: bool) -> Result<(), PartError> {
    for &f in formats {
        s.formats.push(FormatInfo { id: f.id().into(), description: f.describe().into(), json: f.is_json() });
        for &n in fields {
            let bytes = f.encode(n).map_err(PartError::failed)?;
            f.decode_check(&bytes, n).map_err(PartError::failed)?;
            s.sizes.push(MessageSize {
                format: f.id().into(),
                fields: n,
                bytes: bytes.len(),
                round_trip: true,
                hex: (!f.is_json()).then(|| hex(&bytes)),
            });
            if speed {
                let cost = codec_cost(f, n, &bytes, &mut s.notes);
                s.codec.push(cost);
            }
        }
    }
    if formats.contains(&StudyFormat::Uadp) {
        s.layout = Some(layout(fields));
    }
    Ok(())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The seed layout part by part, 39 + 5N for `fields`, and why the thesis's sizes are 6 bytes
/// short of it.
fn layout(fields: &[usize]) -> Layout {
    let mut offset = 0;
    let parts: Vec<LayoutPart> = opcua::seed_layout()
        .into_iter()
        .map(|p| {
            let o = offset;
            offset += p.bytes;
            LayoutPart { part: p.part.into(), bytes: p.bytes, offset: o, note: p.note.into() }
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

/// Median ns/op (the speed engine's [`time_op`](wirebench_measure::speed::time_op): warm-up,
/// robust calibration, 31 samples of at least 1 ms), and allocations per op; a figure whose
/// samples ran short even after re-calibrating is named in `notes` as unreliable.
fn codec_cost(f: StudyFormat, n: usize, bytes: &[u8], notes: &mut Vec<String>) -> CodecCost {
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
    let mut timed = |op: &str, g: &mut dyn FnMut(u64)| {
        let e = time_per_op(g);
        if e.short {
            notes.push(format!(
                "codec cost {} {n} fields {op}: unreliable ({:.0} ns per op; samples lasted {:.0}% of the target even after re-calibrating: the host was busy)",
                f.id(),
                e.ns_per_op.median,
                e.calibration.fill * 100.0
            ));
        }
        e.ns_per_op.median
    };
    let encode_ns = timed("encode", &mut enc);
    let decode_ns = timed("decode", &mut dec);
    let ea = wirebench_measure::alloc::measure(1_000, || enc(1));
    let da = wirebench_measure::alloc::measure(1_000, || dec(1));
    CodecCost {
        format: f.id().into(),
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

fn time_per_op(f: &mut dyn FnMut(u64)) -> wirebench_measure::speed::Estimate {
    wirebench_measure::speed::time_op(f, &wirebench_measure::speed::Plan::for_op(31, 1e6))
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

/// The median of `xs`, or `None` for none.
fn median_of(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| median(xs))
}

/// One side of a throughput case over its repetitions (each with its allocations per message).
fn throughput_side(runs: &[(ThroughputResult, Option<f64>)]) -> ThroughputSide {
    let rates: Vec<f64> = runs.iter().map(|(r, _)| r.subscriber.msgs_per_s).collect();
    let allocs: Vec<f64> = runs.iter().filter_map(|(_, a)| *a).collect();
    let qos1 = runs.iter().any(|(r, _)| r.delivery.acked.is_some());
    let publisher: Vec<f64> = runs.iter().map(|(r, _)| r.publisher.msgs_per_s).collect();
    let mb: Vec<f64> = runs.iter().map(|(r, _)| r.subscriber.mb_per_s).collect();
    let mut s = ThroughputSide {
        acked: qos1.then_some(0),
        unacked: qos1.then_some(0),
        msgs_per_s: median_of(&rates),
        msgs_per_s_ci95: ci95(&rates),
        publisher_msgs_per_s: median_of(&publisher),
        publisher_msgs_per_s_ci95: ci95(&publisher),
        mb_per_s: median_of(&mb),
        mb_per_s_ci95: ci95(&mb),
        per_rep_msgs_per_s: rates,
        sent: 0,
        received: 0,
        lost: 0,
        duplicates: None,
        reordered: None,
        delivery_ratio: 1.0,
        ended_by: Vec::new(),
        allocs_per_msg: median_of(&allocs),
        harness_cores_max: 0.0,
        harness_bound: false,
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    for (r, _) in runs {
        let d = &r.delivery;
        s.sent += d.sent;
        s.received += d.received;
        s.lost += d.lost;
        s.acked = s.acked.map(|x| x + d.acked.unwrap_or(0));
        s.unacked = s.unacked.map(|x| x + d.unacked.unwrap_or(0));
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

/// The shortest throughput repetition of `wirebench mqtt throughput` without `--count`, seconds.
pub const DEFAULT_MIN_RUN_S: f64 = 1.0;

/// The confidence of the intervals of throughput figures.
pub const CI_LEVEL: f64 = 0.95;

/// How many repetitions the throughput cases get, and how long each lasts.
#[derive(Clone, Debug, PartialEq)]
struct Rounds {
    /// At least this many rounds.
    reps: usize,
    /// At most this many (≥ `reps`).
    max_reps: usize,
    /// Calibrate `messages` so that a repetition lasts at least this long, seconds.
    min_run_s: Option<f64>,
    /// Add rounds while a 95 % interval's half width exceeds this fraction of its median.
    ci_target: Option<f64>,
    /// No round beyond `reps` starts when it would end after this many seconds.
    budget_s: Option<f64>,
}

impl Rounds {
    fn of_study(o: &StudyOpts) -> Rounds {
        let pos = |x: f64| (x > 0.0).then_some(x);
        Rounds {
            reps: o.reps,
            max_reps: if o.max_reps == 0 { o.reps } else { o.max_reps.max(o.reps) },
            min_run_s: pos(o.min_run_s),
            ci_target: pos(o.ci_target),
            budget_s: pos(o.budget_s),
        }
    }

    /// `6–12 rounds until ±5 %, ≥ 0.5 s each, ≤ 60 s`.
    fn describe(&self) -> String {
        let mut out = if self.max_reps > self.reps {
            format!("{}–{} rounds", self.reps, self.max_reps)
        } else {
            format!("{} round{}", self.reps, if self.reps == 1 { "" } else { "s" })
        };
        if let (Some(t), true) = (self.ci_target, self.max_reps > self.reps) {
            let _ = write!(out, " until each 95 % interval is within ±{} %", fmt_pct(t));
        }
        if let Some(m) = self.min_run_s {
            let _ = write!(out, ", each repetition ≥ {m} s");
        }
        if let (Some(b), true) = (self.budget_s, self.max_reps > self.reps) {
            let _ = write!(out, ", rounds beyond {} within {b} s", self.reps);
        }
        out
    }

    /// Whether another round should run after `done` rounds that took `elapsed_s` (the last
    /// one `last_s`), given whether every interval is within the target.
    fn more(&self, done: usize, elapsed_s: f64, last_s: f64, within_target: bool) -> bool {
        if done < self.reps {
            return true;
        }
        if done >= self.max_reps || within_target || self.ci_target.is_none() {
            return false;
        }
        self.budget_s.map_or(true, |b| elapsed_s + last_s <= b)
    }
}

/// A percentage without trailing zeros: 0.05 → `5`, 0.025 → `2.5`.
fn fmt_pct(f: f64) -> String {
    let s = format!("{:.2}", 100.0 * f);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The 95 % interval of the median of `xs` (order statistics), or `None` with too few.
fn ci95(xs: &[f64]) -> Option<(f64, f64)> {
    wirebench_measure::stats::median_ci_order(xs, CI_LEVEL).map(|(lo, hi, _)| (lo, hi))
}

/// Whether an interval is within ± `target` of `median` (half its width relative to it).
fn within(ci: Option<(f64, f64)>, median: Option<f64>, target: f64) -> bool {
    match (ci, median) {
        (Some((lo, hi)), Some(m)) if m > 0.0 => (hi - lo) / 2.0 <= target * m,
        _ => false,
    }
}

/// Messages for a repetition of at least `min_run_s` at `rate` msgs/s (with a 20 % margin
/// for a calibration run that happened to be fast or slow), never fewer than `given`.
fn calibrated_messages(given: u64, rate: f64, min_run_s: f64) -> u64 {
    if !(rate.is_finite() && rate > 0.0) {
        return given;
    }
    let n = (rate * min_run_s * 1.2).ceil();
    given.max(n.min(1e9) as u64)
}

/// Whether a calibration pass whose shortest run took `shortest_s` is good enough: it lasted
/// at least half the minimum, or the count it gives (`n`) is the count it ran with.
fn calibration_settled(shortest_s: f64, min_s: f64, n: u64, ran: u64) -> bool {
    shortest_s >= min_s / 2.0 || n == ran
}

/// One throughput case while its rounds run.
struct Case<'a> {
    broker: &'a Broker,
    payload: &'a PayloadSpec,
    payloads: Payloads,
    cfg: ThroughputConfig,
    ours: Vec<(ThroughputResult, Option<f64>)>,
    bare: Vec<(ThroughputResult, Option<f64>)>,
    bare_error: Option<String>,
}

impl Case<'_> {
    fn run_ours(&mut self) -> Result<(ThroughputResult, Option<f64>), PartError> {
        let (r, a) = counted(self.cfg.messages, || throughput(self.broker, &self.payloads, &self.cfg));
        Ok((r.map_err(mqtt_err)?, a))
    }

    /// A run of the bare pair; its error is recorded and ends the bare pair's runs.
    fn run_bare(&mut self) -> Option<(ThroughputResult, Option<f64>)> {
        if self.bare_error.is_some() {
            return None;
        }
        let (r, a) = counted(self.cfg.messages, || baseline_throughput(self.broker, &self.payloads, &self.cfg));
        match r {
            Ok(r) => Some((r, a)),
            Err(e) => {
                self.bare_error = Some(format!("bare rumqttc pair: {e}"));
                None
            }
        }
    }

    /// Per-pair ratios ours / bare of the rounds both sides ran.
    fn ratios(&self) -> Vec<f64> {
        self.ours
            .iter()
            .zip(&self.bare)
            .filter(|(_, (b, _))| b.subscriber.msgs_per_s > 0.0)
            .map(|((o, _), (b, _))| o.subscriber.msgs_per_s / b.subscriber.msgs_per_s)
            .collect()
    }

    /// Whether each side's msgs/s and the ratio have a 95 % interval within ± `target`.
    fn within_target(&self, target: f64) -> bool {
        let side = |runs: &[(ThroughputResult, Option<f64>)]| {
            let r: Vec<f64> = runs.iter().map(|(x, _)| x.subscriber.msgs_per_s).collect();
            within(ci95(&r), median_of(&r), target)
        };
        let ratios = self.ratios();
        side(&self.ours)
            && (self.bare.is_empty() || (side(&self.bare) && within(ci95(&ratios), median_of(&ratios), target)))
    }
}

/// The throughput `cases` (each through its broker), in rounds: each round runs one repetition
/// of every case (ours and, with `baseline`, the bare pair back to back), in the listed order in even
/// rounds and in the reverse order in odd ones, so that each pair of runs — ours and bare of a
/// case, and neighbouring cases — alternates A B B A … and a drift of a shared machine touches
/// both alike. With `min_run_s`, each case first runs each side once (not counted) to set its
/// message count. Rounds continue from `reps` up to `max_reps` while an interval is wider than
/// `ci_target` and the time allows. An error of ours ends the study; one of the bare pair is
/// recorded and ends its runs. Rows come back in the order of `cases`.
fn throughput_rounds(
    cases: &[(&Broker, &PayloadSpec, ThroughputConfig)],
    rounds: &Rounds,
    baseline: bool,
    progress: bool,
) -> Result<Vec<ThroughputRow>, PartError> {
    let mut cs: Vec<Case> = Vec::with_capacity(cases.len());
    for (broker, payload, cfg) in cases {
        let payloads = Payloads::cycle(payload.items.clone()).map_err(mqtt_err)?;
        cs.push(Case {
            broker,
            payload,
            payloads,
            cfg: cfg.clone(),
            ours: Vec::new(),
            bare: Vec::new(),
            bare_error: None,
        });
    }
    if let Some(min_s) = rounds.min_run_s {
        for c in &mut cs {
            // A calibration run much shorter than the minimum is mostly start-up and a poor
            // estimate of the rate: then once more with the count it gave, and the fastest
            // rate seen sets the count.
            let mut fastest = 0.0f64;
            for pass in 0..2 {
                let o = c.run_ours()?.0;
                let mut shortest = o.subscriber.seconds;
                fastest = fastest.max(o.subscriber.msgs_per_s);
                if let Some((b, _)) = baseline.then(|| c.run_bare()).flatten() {
                    shortest = shortest.min(b.subscriber.seconds);
                    fastest = fastest.max(b.subscriber.msgs_per_s);
                }
                let n = calibrated_messages(c.cfg.messages, fastest, min_s);
                let settled = calibration_settled(shortest, min_s, n, c.cfg.messages);
                c.cfg.messages = n;
                if settled || pass == 1 {
                    break;
                }
            }
            if progress {
                eprintln!(
                    "  throughput {} qos {}: {} messages per repetition",
                    c.payload.label,
                    c.cfg.qos.level(),
                    c.cfg.messages
                );
            }
        }
    }
    let started = Instant::now();
    let mut done = 0;
    loop {
        let round_start = Instant::now();
        for (i, ours) in round_order(cs.len(), done) {
            let c = &mut cs[i];
            if ours {
                let o = c.run_ours()?;
                c.ours.push(o);
            } else if baseline {
                if let Some(b) = c.run_bare() {
                    c.bare.push(b);
                }
            }
        }
        done += 1;
        let target_met = rounds.ci_target.is_some_and(|t| cs.iter().all(|c| c.within_target(t)));
        if progress {
            eprintln!("  throughput round {done} (at least {}, at most {})", rounds.reps, rounds.max_reps);
        }
        let (elapsed, last) = (started.elapsed().as_secs_f64(), round_start.elapsed().as_secs_f64());
        if !rounds.more(done, elapsed, last, target_met) {
            break;
        }
    }
    Ok(cs.iter().map(|c| throughput_row(c.broker.name(), c, baseline, rounds)).collect())
}

/// The runs of round `round` (from 0) over `cases` cases: (case, ours?) — in even rounds case
/// by case, ours then bare; odd rounds are the same list reversed.
fn round_order(cases: usize, round: usize) -> Vec<(usize, bool)> {
    let mut v: Vec<(usize, bool)> = (0..cases).flat_map(|i| [(i, true), (i, false)]).collect();
    if round % 2 == 1 {
        v.reverse();
    }
    v
}

/// The row of a case whose rounds have run.
fn throughput_row(broker: String, c: &Case, baseline: bool, rounds: &Rounds) -> ThroughputRow {
    let ours_side = throughput_side(&c.ours);
    let mut bare_side = baseline.then(|| throughput_side(&c.bare));
    if let (Some(b), Some(e)) = (bare_side.as_mut(), &c.bare_error) {
        b.errors.push(e.clone());
    }
    let ratios = c.ratios();
    let ratio = median_of(&ratios);
    let ratio_ci95 = ci95(&ratios);
    let durations: Vec<f64> = c.ours.iter().chain(&c.bare).map(|(r, _)| r.subscriber.seconds).collect();
    let ci_met = rounds.ci_target.map(|t| c.within_target(t)).filter(|_| ours_side.msgs_per_s_ci95.is_some());
    let (payload, cfg) = (c.payload, &c.cfg);
    ThroughputRow {
        broker,
        ci_met,
        ci_target: rounds.ci_target,
        drain_s: Some(cfg.drain_timeout_ms as f64 / 1e3),
        payload: payload.label.clone(),
        format: payload.format.clone(),
        fields: payload.fields,
        payload_bytes: payload.mean_len(),
        mqtt_payload_bytes: payload.mean_len() + HEADER_LEN,
        qos: cfg.qos.level(),
        messages: cfg.messages,
        min_run_s: rounds.min_run_s,
        reps: c.ours.len(),
        run_s: median_of(&durations),
        ours: ours_side,
        bare: bare_side,
        ratio,
        ratio_ci95,
        ratio_min: (!ratios.is_empty()).then(|| ratios.iter().copied().fold(f64::INFINITY, f64::min)),
        ratio_max: (!ratios.is_empty()).then(|| ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        goal: THROUGHPUT_RATIO_GOAL,
        meets_goal: ratio.map(|r| r >= THROUGHPUT_RATIO_GOAL),
    }
}

/// One side of an RTT case: every repetition's samples pooled (percentiles, CDF, stall check).
fn rtt_side(runs: &[EchoResult]) -> RttSide {
    let pooled: Vec<u64> = runs.iter().flat_map(|r| r.samples_ns.iter().copied()).collect();
    let mut s = RttSide {
        rtt: latency_stats(&pooled),
        per_rep_p50_us: Vec::new(),
        sent: 0,
        received: 0,
        lost: 0,
        late: 0,
        delivery_ratio: 1.0,
        ended_by: Vec::new(),
        cdf: cdf_us(&pooled),
        stall: detect_nagle_stall(&pooled).map(|w| w.message),
        errors: Vec::new(),
        warnings: Vec::new(),
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

/// `reps` echo runs of ours (samples kept), with the bare pair interleaved when `baseline`.
fn rtt_case(
    broker: &Broker,
    payload: &PayloadSpec,
    cfg: &EchoConfig,
    reps: usize,
    baseline: bool,
    progress: bool,
) -> Result<RttRow, PartError> {
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
    let ours_side = rtt_side(&ours);
    let mut bare_side = baseline.then(|| rtt_side(&bare));
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
// The thesis beside ours

/// The thesis's published figures, as data with their citation.
pub fn published() -> Published {
    let mmm = |(mean, min, max): (f64, f64, f64)| MeanMinMax { mean, min, max };
    let footprint = |(ram_bytes, wire_bytes): (u64, u64)| PublishedFootprint { ram_bytes, wire_bytes };
    Published {
        citation: thesis::CITATION.into(),
        sizes: PublishedSizes {
            source: thesis::SIZES_SOURCE.into(),
            rows: thesis::SIZES
                .iter()
                .map(|&(fields, json_bytes, uadp_bytes)| PublishedSize { fields, json_bytes, uadp_bytes })
                .collect(),
        },
        throughput: PublishedThroughput {
            source: thesis::THROUGHPUT_SOURCE.into(),
            messages: thesis::THROUGHPUT_MESSAGES,
            fields: thesis::THROUGHPUT_FIELDS,
            json_msgs_per_s: thesis::THROUGHPUT_JSON_MSGS_PER_S,
            uadp_msgs_per_s: thesis::THROUGHPUT_UADP_MSGS_PER_S,
            json_bytes: thesis::THROUGHPUT_JSON_BYTES,
            uadp_bytes: thesis::THROUGHPUT_UADP_BYTES,
            delivery: thesis::THROUGHPUT_DELIVERY,
        },
        rtt: PublishedRtt {
            source: thesis::RTT_SOURCE.into(),
            samples: thesis::RTT_SAMPLES,
            json_ms: mmm(thesis::RTT_JSON_MS),
            uadp_ms: mmm(thesis::RTT_UADP_MS),
        },
        memory: PublishedMemory {
            source: thesis::MEMORY_SOURCE.into(),
            fields: 5,
            json: footprint(thesis::MEMORY_JSON),
            uadp: footprint(thesis::MEMORY_UADP),
        },
    }
}

/// A ratio: its median, its 95 % interval, and how it was taken.
type PairedRatio = (f64, Option<(f64, f64)>, String);

/// UADP ÷ JSON msgs/s from paired runs: the i-th repetitions of the two cases ran in the same
/// round, next to each other, in alternating order (A B B A …). The median of the per-round
/// ratios, its 95 % interval (order statistics) and a sentence saying how it was taken and
/// what it shows.
fn paired_ratio(uadp: &[f64], json: &[f64], run_s: Option<f64>) -> Option<PairedRatio> {
    let ratios: Vec<f64> = uadp.iter().zip(json).filter(|(_, j)| **j > 0.0).map(|(u, j)| u / j).collect();
    let m = median_of(&ratios)?;
    let ci = ci95(&ratios);
    let how = format!(
        "median of {} per-round ratios (the UADP and JSON runs of a round ran next to each other, order alternating A B B A …{})",
        ratios.len(),
        run_s.map_or(String::new(), |s| format!("; a run lasted about {s:.2} s"))
    );
    let says = match ci {
        Some((lo, hi)) if lo > 1.0 || hi < 1.0 => format!("95 % CI {lo:.2}–{hi:.2}: a difference this run shows"),
        Some((lo, hi)) => format!("95 % CI {lo:.2}–{hi:.2} includes 1: no difference this run shows"),
        None => format!("no 95 % interval: {} pairs (6 are needed)", ratios.len()),
    };
    Some((m, ci, format!("{how}; {says}.")))
}

/// Rows "what · thesis · ours · note" for the side-by-side table.
fn comparison(s: &MqttSection) -> Vec<ComparisonRow> {
    let mut rows = Vec::new();
    let row = |what: String, unit: &str, thesis: f64, ours: Option<f64>, source: &str, note: String| ComparisonRow {
        what,
        unit: unit.into(),
        thesis: thesis.into(),
        ours: ours.map(Into::into),
        ours_ci95: None,
        source: source.into(),
        note,
    };
    // Sizes are counts: written as integers.
    let count_row = |what: String, thesis: u64, ours: Option<usize>, source: &str, note: &str| ComparisonRow {
        what,
        unit: "B".into(),
        thesis: thesis.into(),
        ours: ours.map(Into::into),
        ours_ci95: None,
        source: source.into(),
        note: note.into(),
    };
    let size = |f: &str, n: usize| s.sizes.iter().find(|r| r.format == f && r.fields == n).map(|r| r.bytes);
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    for &(n, j, u) in &thesis::SIZES {
        rows.push(count_row(
            format!("UADP size, {n} field{}", plural(n)),
            u,
            size("uadp", n),
            thesis::SIZES_SOURCE,
            "ours = 39 + 5N with the stated layout; the thesis's figure is 6 B short (see the layout note)",
        ));
        rows.push(count_row(
            format!("JSON size, {n} field{}", plural(n)),
            j,
            size("uadp-json-dv", n),
            thesis::SIZES_SOURCE,
            "ours = uadp-json-dv (the thesis's JSON shape); MessageId, field names and value text are not given in the thesis, so sizes differ",
        ));
    }
    rows.push(count_row(
        "UADP bytes/message, 3 fields (throughput table)".into(),
        thesis::THROUGHPUT_UADP_BYTES,
        size("uadp", 3),
        thesis::THROUGHPUT_SOURCE,
        "agrees with 39 + 5·3 (and not with the size table's 48)",
    ));
    rows.push(count_row(
        "JSON bytes/message, 3 fields (throughput table)".into(),
        thesis::THROUGHPUT_JSON_BYTES,
        size("uadp-json-dv", 3),
        thesis::THROUGHPUT_SOURCE,
        "ours = uadp-json-dv",
    ));
    // Throughput: the first broker that measured uadp and uadp-json-dv at 3 fields, QoS 0.
    let thr = |f: &str| {
        s.throughput.iter().find(|r| r.format == f && r.fields == Some(thesis::THROUGHPUT_FIELDS) && r.qos == 0)
    };
    let ci_text = |ci: Option<(f64, f64)>, reps: usize| match ci {
        Some((lo, hi)) => format!("95 % CI {lo:.0}–{hi:.0} (median of {reps} repetitions, order statistics)"),
        None => format!("no 95 % interval ({reps} repetitions; 6 are needed)"),
    };
    let run = |r: &ThroughputRow| match r.run_s {
        Some(s) => format!("{} messages × {} reps of about {s:.2} s", r.messages, r.reps),
        None => format!("{} messages × {} reps", r.messages, r.reps),
    };
    if let Some(r) = thr("uadp") {
        rows.push(ComparisonRow {
            ours_ci95: r.ours.msgs_per_s_ci95,
            ..row(
                format!("UADP msgs/s, 3 fields ({}, QoS 0)", r.broker),
                "msgs/s",
                thesis::THROUGHPUT_UADP_MSGS_PER_S,
                r.ours.msgs_per_s,
                thesis::THROUGHPUT_SOURCE,
                format!(
                    "thesis: ESP32 → Wi-Fi → Mosquitto, 50 messages; ours: loopback, {}; {}; delivery {:.1} %",
                    run(r),
                    ci_text(r.ours.msgs_per_s_ci95, r.reps),
                    100.0 * r.ours.delivery_ratio
                ),
            )
        });
    }
    if let Some(r) = thr("uadp-json-dv") {
        rows.push(ComparisonRow {
            ours_ci95: r.ours.msgs_per_s_ci95,
            ..row(
                format!("JSON msgs/s, 3 fields ({}, QoS 0)", r.broker),
                "msgs/s",
                thesis::THROUGHPUT_JSON_MSGS_PER_S,
                r.ours.msgs_per_s,
                thesis::THROUGHPUT_SOURCE,
                format!(
                    "{}; {}; delivery {:.1} %",
                    run(r),
                    ci_text(r.ours.msgs_per_s_ci95, r.reps),
                    100.0 * r.ours.delivery_ratio
                ),
            )
        });
    }
    if let (Some(ru), Some(rj)) = (thr("uadp"), thr("uadp-json-dv")) {
        let run_s = median_of(&[ru.run_s, rj.run_s].into_iter().flatten().collect::<Vec<_>>());
        if let Some((m, ci, how)) = paired_ratio(&ru.ours.per_rep_msgs_per_s, &rj.ours.per_rep_msgs_per_s, run_s) {
            rows.push(ComparisonRow {
                ours_ci95: ci,
                ..row(
                    "UADP / JSON msgs/s, 3 fields".into(),
                    "×",
                    thesis::THROUGHPUT_UADP_MSGS_PER_S / thesis::THROUGHPUT_JSON_MSGS_PER_S,
                    Some(m),
                    thesis::THROUGHPUT_SOURCE,
                    format!(
                        "on a PC the encoding costs little next to the broker; on the ESP32 it dominated. Ours: {how}"
                    ),
                )
            });
        }
    }
    let rtt = |f: &str| s.rtt.iter().find(|r| r.format == f && r.qos == 0);
    for (f, what, t) in [("uadp", "UADP", thesis::RTT_UADP_MS), ("uadp-json-dv", "JSON", thesis::RTT_JSON_MS)] {
        if let Some(r) = rtt(f) {
            rows.push(row(
                format!("{what} echo RTT mean ({}, QoS 0)", r.broker),
                "ms",
                t.0,
                Some(r.ours.rtt.mean_us / 1e3),
                thesis::RTT_SOURCE,
                format!(
                    "thesis: 30 samples over Wi-Fi; ours: {} samples on loopback (p50 {:.3} ms, max {:.3} ms)",
                    r.ours.rtt.count,
                    r.ours.rtt.p50_us / 1e3,
                    r.ours.rtt.max_us / 1e3
                ),
            ));
        }
    }
    let enc = |f: &str| s.codec.iter().find(|r| r.format == f && r.fields == 5);
    for (f, what, t) in [("uadp", "UADP", thesis::MEMORY_UADP), ("uadp-json-dv", "JSON", thesis::MEMORY_JSON)] {
        if let Some(r) = enc(f) {
            rows.push(ComparisonRow {
                what: format!("{what} encode memory, 5 fields"),
                unit: "B".into(),
                thesis: t.0.into(),
                ours: r.encode_alloc_bytes.map(Into::into),
                ours_ci95: None,
                source: thesis::MEMORY_SOURCE.into(),
                note: format!(
                    "thesis: MicroPython heap; ours: bytes requested per encode in Rust ({} allocations)",
                    r.encode_allocs.map_or("-".into(), |a| format!("{a:.1}"))
                ),
            });
        }
    }
    rows
}

/// What the figures are and how they were taken, and the brokers that were not measured.
fn notes(s: &MqttSection) -> Vec<String> {
    let mut out = vec![
        "Sizes are NetworkMessage bytes (the thesis's MQTT payload). Our transport runs put an 8-byte sequence header in front of each payload for delivery accounting; the bare rumqttc pair sends the same number of bytes.".to_string(),
        "Throughput: one publisher and one subscriber, msgs/s at the subscriber (distinct messages received / time to the last one), median of the repetitions with its 95 % confidence interval from order statistics (distribution-free; [min, max] of 6–8 repetitions, narrower from 9); ours and the bare rumqttc pair through the same broker (goal: ours ≥ 80 % of bare).".into(),
        "Pairing: all throughput cases (of every broker) run in rounds of one repetition each, ours and bare of a case back to back, the order reversed every other round (A B B A …); the ratios ours/bare and UADP/JSON are medians of the per-round ratios of such paired runs, with their 95 % intervals. A case with a minimum duration first runs each side once, not counted, to set its message count.".into(),
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
    use wirebench_core::sections::mqtt::Figure;

    #[test]
    fn paired_ratio_says_whether_its_interval_includes_one() {
        // Six rounds: the ratios are 0.9, 1.0, 1.1, 1.0, 0.95, 1.05 → median 1.0, CI [0.9, 1.1].
        let u = [90.0, 100.0, 110.0, 100.0, 95.0, 105.0];
        let j = [100.0; 6];
        let (m, ci, note) = paired_ratio(&u, &j, Some(0.61)).unwrap();
        assert_eq!((m, ci), (1.0, Some((0.9, 1.1))));
        assert!(note.contains("median of 6 per-round ratios") && note.contains("about 0.61 s"), "{note}");
        assert!(note.ends_with("95 % CI 0.90–1.10 includes 1: no difference this run shows."), "{note}");
        let (m, ci, note) = paired_ratio(&[300.0; 6], &[100.0, 120.0, 150.0, 100.0, 120.0, 150.0], None).unwrap();
        assert_eq!((m, ci), (2.5, Some((2.0, 3.0))));
        assert!(note.ends_with("95 % CI 2.00–3.00: a difference this run shows."), "{note}");
        // Three pairs give no 95 % interval, and say so; no pairs, no row.
        let (_, ci, note) = paired_ratio(&[1.0, 2.0, 3.0], &[1.0, 1.0, 1.0], None).unwrap();
        assert_eq!(ci, None);
        assert!(note.ends_with("no 95 % interval: 3 pairs (6 are needed)."), "{note}");
        assert!(paired_ratio(&[], &[1.0], None).is_none());
    }

    #[test]
    fn rounds_alternate_their_order_and_stop_by_count_target_or_budget() {
        // A B B A: the second round is the first reversed, so every neighbouring pair of runs
        // (ours/bare of a case, and neighbouring cases) swaps order.
        assert_eq!(round_order(2, 0), vec![(0, true), (0, false), (1, true), (1, false)]);
        assert_eq!(round_order(2, 1), vec![(1, false), (1, true), (0, false), (0, true)]);
        assert_eq!(round_order(2, 2), round_order(2, 0));
        let r = Rounds { reps: 6, max_reps: 10, min_run_s: Some(0.5), ci_target: Some(0.05), budget_s: Some(60.0) };
        assert!(r.more(5, 100.0, 10.0, true), "the minimum always runs");
        assert!(!r.more(6, 10.0, 5.0, true), "target met");
        assert!(r.more(6, 10.0, 5.0, false), "target not met, time left");
        assert!(!r.more(6, 50.0, 15.0, false), "the next round would end past the budget");
        assert!(!r.more(10, 10.0, 1.0, false), "max_reps");
        let fixed = Rounds { ci_target: None, ..r.clone() };
        assert!(!fixed.more(6, 0.0, 0.0, false), "no target: exactly reps");
        assert_eq!(
            r.describe(),
            "6–10 rounds until each 95 % interval is within ±5 %, each repetition ≥ 0.5 s, rounds beyond 6 within 60 s"
        );
        let o = StudyOpts { reps: 3, ..StudyOpts::default() };
        assert_eq!(
            Rounds::of_study(&o),
            Rounds { reps: 3, max_reps: 3, min_run_s: None, ci_target: None, budget_s: None }
        );
        assert_eq!(Rounds::of_study(&o).describe(), "3 rounds");
        assert_eq!(fmt_pct(0.025), "2.5");
    }

    #[test]
    fn a_row_pairs_the_rounds_for_its_ratio_and_interval() {
        let payload = PayloadSpec::parse("bytes:50", 3).unwrap();
        let mk = |rates: &[f64], secs: f64| rates.iter().map(|&r| (run_for(r, 10, 10, secs), None)).collect::<Vec<_>>();
        let broker = Broker::open("mqtt://127.0.0.1:1", &Credentials::default()).unwrap();
        let c = Case {
            broker: &broker,
            payload: &payload,
            payloads: Payloads::cycle(payload.items.clone()).unwrap(),
            cfg: ThroughputConfig { messages: 120_000, ..ThroughputConfig::default() },
            ours: mk(&[90.0, 100.0, 110.0, 100.0, 95.0, 105.0], 0.6),
            bare: mk(&[100.0, 100.0, 100.0, 125.0, 100.0, 100.0], 0.5),
            bare_error: None,
        };
        let rounds = Rounds { reps: 6, max_reps: 6, min_run_s: Some(0.5), ci_target: Some(0.1), budget_s: None };
        let row = throughput_row("b".into(), &c, true, &rounds);
        // Round by round: 0.9, 1.0, 1.1, 0.8, 0.95, 1.05 (not the ratio of the medians, 1.0).
        assert_eq!(row.ratio, Some(0.975));
        assert_eq!(row.ratio_ci95, Some((0.8, 1.1)));
        assert_eq!((row.ratio_min, row.ratio_max), (Some(0.8), Some(1.1)));
        assert_eq!((row.reps, row.messages, row.min_run_s, row.run_s), (6, 120_000, Some(0.5), Some(0.55)));
        assert_eq!(row.ours.msgs_per_s_ci95, Some((90.0, 110.0)));
        // The ratio's interval (±0.15 of 0.975) is wider than ±10 %.
        assert_eq!((row.ci_target, row.ci_met), (Some(0.1), Some(false)));
        assert!(c.within_target(0.2));
        // Without the bare pair there is no ratio, and the target is about ours only.
        let row = throughput_row("b".into(), &Case { bare: Vec::new(), ..c }, false, &rounds);
        assert_eq!((row.ratio, row.ratio_ci95, row.ci_met), (None, None, Some(true)));
        assert!(row.bare.is_none());
    }

    #[test]
    fn calibration_makes_a_repetition_last_the_minimum() {
        // 200,000 msgs/s for ≥ 0.5 s, with a 20 % margin: 120,000 messages.
        assert_eq!(calibrated_messages(20_000, 200_000.0, 0.5), 120_000);
        // Never fewer than given; a failed calibration (no rate) keeps the count.
        assert_eq!(calibrated_messages(20_000, 1_000.0, 0.5), 20_000);
        assert_eq!(calibrated_messages(20_000, 0.0, 0.5), 20_000);
        assert_eq!(calibrated_messages(20_000, f64::NAN, 0.5), 20_000);
        assert_eq!(calibrated_messages(1, 1e12, 600.0), 1_000_000_000, "capped at the run's limit of 1e9");
        // A 70 ms calibration run for a 0.5 s minimum is run again at its count; 0.3 s is enough.
        assert!(!calibration_settled(0.07, 0.5, 120_000, 20_000));
        assert!(calibration_settled(0.3, 0.5, 120_000, 20_000));
        assert!(calibration_settled(0.07, 0.5, 20_000, 20_000), "the count did not change");
        assert!(within(Some((95.0, 105.0)), Some(100.0), 0.05));
        assert!(!within(Some((94.0, 105.0)), Some(100.0), 0.05));
        assert!(!within(None, Some(100.0), 0.5));
    }

    #[test]
    fn layout_explains_the_six_missing_bytes() {
        let l = layout(&FIELD_COUNTS);
        assert_eq!(l.header_bytes, 39);
        assert_eq!(l.formula, "39 + 5·N");
        assert_eq!(l.ours, vec![(1, 44), (3, 54), (5, 64), (10, 89)]);
        assert_eq!(l.difference, vec![(1, -6), (3, -6), (5, -6), (10, -6)]);
        assert!(l.explanation[0].contains("1 UADPFlags + 1 ExtendedFlags1 + 4 PublisherId length + 11 PublisherId text + 16 DataSetClassId + 1 PayloadHeader Count + 2 DataSetWriterId + 1 DataSetFlags1 + 2 FieldCount = 39"), "{}", l.explanation[0]);
        assert_eq!(l.parts.last().map(|p| p.offset), Some(37));
        // Only the field counts measured are compared.
        assert_eq!(layout(&[3]).difference, vec![(3, -6)]);
    }

    #[test]
    fn study_opts_default_and_unknown_keys() {
        let o: StudyOpts = serde_json::from_str(r#"{"messages": 10}"#).unwrap();
        assert_eq!(o.messages, 10);
        assert_eq!(o.fields, FIELD_COUNTS.to_vec());
        assert!(serde_json::from_str::<StudyOpts>(r#"{"mesages": 10}"#).is_err());
    }

    fn bad(r: Result<impl std::fmt::Debug, PartError>) -> String {
        match r {
            Err(PartError::BadInput(m)) => m,
            other => panic!("expected bad input, got {other:?}"),
        }
    }

    #[test]
    fn validation_names_the_option() {
        let ok = StudyOpts::default();
        assert!(MqttPart::validate(&ok).is_ok());
        let m = bad(MqttPart::validate(&StudyOpts { reps: 0, ..ok.clone() }));
        assert_eq!(m, "[mqtt] reps = 0: expected 1..=100");
        let m = bad(MqttPart::validate(&StudyOpts { rtt_reps: 101, ..ok.clone() }));
        assert_eq!(m, "[mqtt] rtt_reps = 101: expected 0 (= reps) or 1..=100");
        let m = bad(MqttPart::validate(&StudyOpts { max_reps: 2, ..ok.clone() }));
        assert_eq!(m, "[mqtt] max_reps = 2: expected 0 or reps..=100 (3..=100)");
        let m = bad(MqttPart::validate(&StudyOpts { min_run_s: 60.0, ..ok.clone() }));
        assert!(m.starts_with("[mqtt] min_run_s = 60 must be below timeout_s = 60"), "{m}");
        let m = bad(MqttPart::validate(&StudyOpts { min_run_s: -1.0, ..ok.clone() }));
        assert_eq!(m, "[mqtt] min_run_s = -1: expected seconds in [0, 600]");
        let m = bad(MqttPart::validate(&StudyOpts { ci_target: 1.0, ..ok.clone() }));
        assert_eq!(m, "[mqtt] ci_target = 1: expected a fraction in [0, 1)");
        let m = bad(MqttPart::validate(&StudyOpts { budget_s: f64::INFINITY, ..ok.clone() }));
        assert_eq!(m, "[mqtt] budget_s = inf: expected seconds in [0, 86400]");
        assert!(MqttPart::validate(&StudyOpts {
            reps: 6,
            max_reps: 12,
            min_run_s: 0.5,
            ci_target: 0.05,
            budget_s: 60.0,
            ..ok.clone()
        })
        .is_ok());
        let m = bad(MqttPart::validate(&StudyOpts { timeout_s: f64::NAN, ..ok.clone() }));
        assert!(m.starts_with("[mqtt] timeout_s = NaN"), "{m}");
        let m = bad(MqttPart::validate(&StudyOpts { qos: vec![2], ..ok.clone() }));
        assert!(m.starts_with("[mqtt] qos: "), "{m}");
        let m = bad(MqttPart::validate(&StudyOpts { transport_formats: vec!["bytes:0".into()], ..ok.clone() }));
        assert_eq!(m, "[mqtt] transport_formats: --format \"bytes:0\": bytes:N needs N in 1..=1048576");
        let m = bad(MqttPart::validate(&StudyOpts { size_formats: vec!["xml".into()], ..ok.clone() }));
        assert!(m.starts_with("--format \"xml\": unknown format (known: uadp, "), "{m}");
        let m = bad(MqttPart::validate(&StudyOpts { fields: vec![], ..ok.clone() }));
        assert_eq!(m, "fields: give at least one field count");
        let m = bad(MqttPart::validate(&StudyOpts { transport_fields: 1001, ..ok.clone() }));
        assert_eq!(m, "fields: 1001 is out of range (1..=1000)");
        for d in [-1.0, f64::NAN, 3600.5] {
            let m = bad(MqttPart::validate(&StudyOpts { drain_s: d, ..ok.clone() }));
            assert!(m.starts_with(&format!("[mqtt] drain_s = {d}: expected seconds in [0, 3600]")), "{m}");
        }
        // Credentials and TLS files need a broker given by URL; the TLS files must exist.
        let m = bad(MqttPart::validate(&StudyOpts { username: Some("u".into()), ..ok.clone() }));
        assert!(
            m.starts_with("[mqtt] username, ca_file, client_cert and client_key apply to brokers given by URL"),
            "{m}"
        );
        let url = StudyOpts { brokers: vec!["embedded".into(), "mqtts://127.0.0.1:8883".into()], ..ok.clone() };
        let m = bad(MqttPart::validate(&StudyOpts { ca_file: Some("/nonexistent/ca.pem".into()), ..url.clone() }));
        assert!(m.starts_with("[mqtt] brokers: ") && m.contains("/nonexistent/ca.pem"), "{m}");
        let plain = StudyOpts { brokers: vec!["embedded".into(), "mqtt://127.0.0.1:1883".into()], ..ok.clone() };
        assert!(MqttPart::validate(&StudyOpts { username: Some("u".into()), ..plain }).is_ok());
        let m = bad(MqttPart::validate(&url));
        assert!(m.contains("ca-file"), "{m}");
    }

    #[test]
    fn study_files_name_credentials_and_drain() {
        let o: StudyOpts = toml::from_str(
            "brokers = [\"mqtts://broker.example:8883\"]\nusername = \"meter\"\nca_file = \"ca.pem\"\nclient_cert = \"c.pem\"\nclient_key = \"k.pem\"\ndrain_s = 5.0\n",
        )
        .unwrap();
        assert_eq!((o.username.as_deref(), o.drain_s), (Some("meter"), 5.0));
        assert_eq!(
            o.credentials_for("mqtts://broker.example:8883").tls.client_key.as_deref(),
            Some(Path::new("k.pem"))
        );
        assert!(!o.credentials_for("embedded").any());
        // A password is not a study key (it would be shared with the file).
        assert!(toml::from_str::<StudyOpts>("password = \"x\"")
            .unwrap_err()
            .to_string()
            .contains("unknown field `password`"));
    }

    #[test]
    fn transport_options_are_checked_before_connecting() {
        let ok = TransportOpts {
            broker: "mqtt://127.0.0.1:1".into(),
            qos: "1".into(),
            format: "uadp".into(),
            fields: 3,
            message: None,
            count: None,
            timeout_s: 60.0,
            baseline: false,
            reps: 1,
            topic: None,
            rtt: None,
            credentials: Credentials::default(),
            drain_s: 2.0,
            payloads: None,
        };
        let plan = ok.plan().unwrap();
        assert_eq!(
            (plan.payload.label.as_str(), plan.payload.bytes.len(), plan.qos),
            ("uadp, 3 fields", 54, Qos::AtLeastOnce)
        );
        let synthetic = TransportOpts { format: "bytes:50".into(), ..ok.clone() }.plan().unwrap();
        assert_eq!(
            (synthetic.payload.format.as_str(), synthetic.payload.fields, synthetic.payload.bytes.len()),
            ("synthetic", None, 50)
        );
        assert!(bad(TransportOpts { qos: "2".into(), ..ok.clone() }.plan()).starts_with("--qos \"2\""));
        assert!(bad(TransportOpts { timeout_s: 0.0, ..ok.clone() }.plan()).starts_with("--timeout 0"));
        assert!(bad(TransportOpts { reps: 101, ..ok.clone() }.plan()).starts_with("--reps 101"));
        assert!(
            bad(TransportOpts { topic: Some("a/#".into()), ..ok.clone() }.plan()).starts_with("invalid topic \"a/#\"")
        );
        let missing = std::env::temp_dir().join(format!("wb-mqtt-missing-{}.uadp", std::process::id()));
        assert!(bad(TransportOpts { message: Some(missing), ..ok.clone() }.plan()).contains("wb-mqtt-missing-"));
        for drain in [-1.0, f64::NAN, f64::INFINITY, 3600.5] {
            assert!(bad(TransportOpts { drain_s: drain, ..ok.clone() }.plan()).starts_with(&format!("--drain {drain}")));
        }
        assert!(TransportOpts { drain_s: 0.0, ..ok.clone() }.plan().is_ok());
        // Credentials and TLS files are checked before connecting, and name the option.
        let creds =
            |c: Credentials, broker: &str| TransportOpts { credentials: c, broker: broker.into(), ..ok.clone() }.plan();
        let user = Credentials { username: Some("u".into()), ..Credentials::default() };
        assert!(bad(creds(user.clone(), "embedded")).contains("need a broker URL"));
        assert!(bad(creds(user.clone(), "mqtt://a@127.0.0.1:1")).contains("either in --broker or with --username"));
        assert!(bad(creds(Credentials::default(), "mqtts://127.0.0.1:1")).contains("--ca-file"));
        let m = bad(creds(Credentials::default(), "mqtt://u:s3cret@127.0.0.1:x"));
        assert!(
            m.starts_with("--broker: invalid broker URL \"mqtt://u:***@127.0.0.1:x\"") && !m.contains("s3cret"),
            "{m}"
        );
        let missing = Credentials {
            tls: crate::TlsFiles { ca_file: Some("/nonexistent/ca.pem".into()), ..Default::default() },
            ..Default::default()
        };
        assert_eq!(
            bad(creds(missing, "mqtts://127.0.0.1:1")),
            "--ca-file /nonexistent/ca.pem: no such file or directory"
        );
        // Connecting is the run's business (exit 1, not bad input); nothing listens on port 1.
        match plan.run() {
            Err(PartError::Failed(m)) => assert!(m.starts_with("cannot connect to mqtt://127.0.0.1:1"), "{m}"),
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn sizes_beside_the_thesis() {
        let s = sizes_section(&["uadp".into(), "uadp-json-dv".into()], &[3, 5], false).unwrap();
        assert_eq!(
            s.sizes
                .iter()
                .map(|r| (r.format.as_str(), r.fields, r.bytes))
                .filter(|r| r.0 == "uadp")
                .collect::<Vec<_>>(),
            vec![("uadp", 3, 54), ("uadp", 5, 64)]
        );
        assert!(s.codec.is_empty() && s.layout.is_some());
        assert!(s.sizes.iter().all(|r| r.round_trip && r.hex.is_some() == (r.format == "uadp")));
        let row = |what: &str| s.comparison.iter().find(|r| r.what == what).unwrap_or_else(|| panic!("no {what}"));
        // Counts stay counts; a field count not measured has no figure of ours.
        assert_eq!(
            (row("UADP size, 3 fields").thesis, row("UADP size, 3 fields").ours),
            (Figure::Count(48), Some(Figure::Count(54)))
        );
        assert_eq!(row("UADP size, 1 field").ours, None);
        assert_eq!(row("UADP bytes/message, 3 fields (throughput table)").ours, Some(Figure::Count(54)));
        assert_eq!(s.published.as_ref().map(|p| p.sizes.rows.len()), Some(4));
        // Written as results files have it: keys sorted, counts as integers, absent as null
        // (an interval that does not exist is left out, as in files written before them).
        let v = serde_json::to_string(&s.comparison[0]).unwrap();
        assert!(
            v.contains(r#","ours":null,"source":"#)
                && v.ends_with(r#","thesis":38,"unit":"B","what":"UADP size, 1 field"}"#),
            "{v}"
        );
        assert!(bad(sizes_section(&["xml".into()], &[3], false)).contains("unknown format"));
        assert_eq!(bad(sizes_section(&[], &[0], false)), "fields: 0 is out of range (1..=1000)");
    }

    fn run(rate: f64, sent: u64, received: u64) -> ThroughputResult {
        run_for(rate, sent, received, 1.0)
    }

    fn run_for(rate: f64, sent: u64, received: u64, seconds: f64) -> ThroughputResult {
        use crate::{BrokerKind, CpuUsage, Delivery, Harness, PayloadInfo, Rate};
        ThroughputResult {
            harness: Harness::Wirebench,
            broker: Endpoint::new("127.0.0.1", 1883, BrokerKind::External),
            config: ThroughputConfig::default(),
            topic: "t".into(),
            payloads: PayloadInfo {
                distinct: 1,
                min_bytes: 1,
                max_bytes: 1,
                mean_bytes: 1.0,
                header_bytes: HEADER_LEN,
            },
            delivery: Delivery {
                sent,
                received,
                lost: sent - received,
                duplicates: Some(0),
                reordered: Some(1),
                delivery_ratio: received as f64 / sent as f64,
                ..Delivery::default()
            },
            publisher: Rate { msgs_per_s: rate * 2.0, ..Rate::default() },
            subscriber: Rate { msgs_per_s: rate, mb_per_s: 0.5, seconds, ..Rate::default() },
            elapsed_seconds: 1.0,
            cpu: CpuUsage { harness_cores: 0.5, ..CpuUsage::default() },
            ended_by: crate::EndReason::Complete,
            errors: vec!["e".into()],
            warnings: Vec::new(),
        }
    }

    #[test]
    fn throughput_sides_take_medians_and_sum_deliveries() {
        let s = throughput_side(&[
            (run(100.0, 10, 10), Some(3.0)),
            (run(300.0, 10, 9), None),
            (run(200.0, 10, 10), Some(5.0)),
        ]);
        assert_eq!((s.msgs_per_s, s.publisher_msgs_per_s, s.mb_per_s), (Some(200.0), Some(400.0), Some(0.5)));
        assert_eq!(s.per_rep_msgs_per_s, vec![100.0, 300.0, 200.0]);
        assert_eq!((s.sent, s.received, s.lost, s.duplicates, s.reordered), (30, 29, 1, Some(0), Some(3)));
        assert_eq!(s.delivery_ratio, 0.9);
        assert_eq!(s.allocs_per_msg, Some(4.0));
        assert_eq!(s.errors, vec!["e".to_string()], "errors are listed once");
        // Three repetitions give no 95 % interval; six give [min, max].
        assert_eq!((s.msgs_per_s_ci95, s.publisher_msgs_per_s_ci95, s.mb_per_s_ci95), (None, None, None));
        let six: Vec<_> = [100.0, 600.0, 300.0, 200.0, 500.0, 400.0].iter().map(|&r| (run(r, 10, 10), None)).collect();
        let s = throughput_side(&six);
        assert_eq!((s.msgs_per_s, s.msgs_per_s_ci95), (Some(350.0), Some((100.0, 600.0))));
        assert_eq!((s.publisher_msgs_per_s_ci95, s.mb_per_s_ci95), (Some((200.0, 1200.0)), Some((0.5, 0.5))));
        // A side none of whose runs finished has no rates (written as null, as always) and no
        // intervals (left out, as in files written before them, which read back the same).
        let none = throughput_side(&[]);
        assert_eq!((none.msgs_per_s, none.allocs_per_msg, none.delivery_ratio), (None, None, 1.0));
        let text = serde_json::to_string(&none).unwrap();
        assert!(
            text.contains(r#""mb_per_s":null,"msgs_per_s":null,"per_rep_msgs_per_s":[],"publisher_msgs_per_s":null,"#),
            "{text}"
        );
        assert!(!text.contains("ci95"), "{text}");
        assert_eq!(serde_json::from_str::<ThroughputSide>(&text).unwrap(), none);
        let with = serde_json::to_string(&s).unwrap();
        assert!(with.contains(r#""msgs_per_s_ci95":[100.0,600.0]"#), "{with}");
    }
}
