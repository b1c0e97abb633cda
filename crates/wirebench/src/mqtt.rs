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
//! Every command writes the same typed `mqtt` results section (wirebench-report renders it)
//! and, with `--out`, a results file (atomically). The measurements, and the `[mqtt]` part of a
//! study, are `wirebench_mqtt::study`; this module parses the arguments and writes the results.
//! Bad input — an unknown format, a malformed NetworkMessage file or broker URL, a missing or
//! unparsable certificate or key, an invalid topic — is one line and exit code 2; what the
//! environment did — a broker that cannot be reached or refuses the credentials, a failed TLS
//! handshake — is one line and exit code 1.
//!
//! Credentials: `--username`, and the password from `mqtt://user:password@…`, `--password` or
//! (preferred: not visible in the process list) `WIREBENCH_MQTT_PASSWORD`. The password is
//! never written: the results file's command line and configuration show it as `***`.

use std::path::PathBuf;

use anyhow::Result;
use serde_json::{json, Value};
use wirebench_core::results::Results;
use wirebench_core::sections::mqtt::MqttSection;
use wirebench_mqtt::opcua::FIELD_COUNTS;
use wirebench_mqtt::study::{EchoOpts, TransportOpts};
use wirebench_mqtt::{redact_url, Credentials, Password, TlsFiles, REDACTED};
use wirebench_report::Output;

use crate::common::*;

/// The options of the `[mqtt]` part of a study file.

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
    /// `embedded` (rumqttd in this process), `mosquitto` (a child on a free loopback port),
    /// `mqtt://[user[:password]@]host[:port]` or `mqtts://…` (TLS; needs --ca-file).
    #[arg(long, default_value = "embedded")]
    broker: String,
    /// User name for a broker given by URL.
    #[arg(long)]
    username: Option<String>,
    /// Password for a broker given by URL (visible in the process list: prefer the
    /// WIREBENCH_MQTT_PASSWORD environment variable). Never written to results.
    #[arg(long)]
    password: Option<String>,
    /// PEM file of the CA that signed the broker's certificate (mqtts:// only; the system's
    /// CAs are not used).
    #[arg(long, value_name = "PEM")]
    ca_file: Option<PathBuf>,
    /// PEM client certificate for mutual TLS (with --client-key).
    #[arg(long, value_name = "PEM")]
    client_cert: Option<PathBuf>,
    /// PEM private key of --client-cert (PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "PEM")]
    client_key: Option<PathBuf>,
    /// MQTT QoS: 0 or 1.
    #[arg(long, default_value = "0")]
    qos: String,
    /// The payload: a study format (uadp, uadp-min, uadp-raw, uadp-json-rev, uadp-json, uadp-json-dv),
    /// `bytes:N` (N synthetic bytes), or any codec of `wirebench codecs` (json, pson, protobuf,
    /// ...), which encodes --samples or --corpus (default: the pson-paper corpus).
    #[arg(long, default_value = "uadp")]
    format: String,
    /// Sample files or directories (.json, .ndjson, .jsonl) that a codec (`--format pson`, ...)
    /// encodes: throughput sends them in turn, RTT the median-sized one.
    #[arg(long, num_args = 1.., conflicts_with_all = ["message", "corpus"])]
    samples: Vec<PathBuf>,
    /// A built-in corpus for a codec (`--format json`): pson-paper (default), ev-telemetry, ...
    #[arg(long, conflicts_with = "message")]
    corpus: Option<String>,
    /// The schema the codec encodes --samples or --corpus with (default: inferred).
    #[command(flatten)]
    schema: wirebench_measure::study::inputs::SchemaArgs,
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
    /// Repetitions (ours and bare alternate: A B B A ...). From 6 on each throughput figure
    /// gets a 95 % interval of its median (order statistics); fewer give none.
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
    /// Drain period, seconds: once sending ends (every message sent, or --timeout reached),
    /// deliveries and PUBACKs still count until everything is accounted for, nothing has
    /// arrived for this long, or this long after --timeout (0..=3600).
    #[arg(long, default_value_t = 2.0)]
    drain: f64,
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
            let _out_lock = claim_output(a.out.out.as_deref())?;
            let section =
                wirebench_mqtt::study::sizes_section(&a.format, &a.fields, !a.no_speed).map_err(part_error)?;
            finish(section, &a.out, json!({"command": "mqtt sizes", "formats": a.format, "fields": a.fields}))
        }
        Cmd::Throughput(a) => transport(&a.t, None, Some(a.drain)),
        Cmd::Rtt(a) => transport(&a.t, Some(EchoOpts { warmup: a.warmup, rate: a.rate }), None),
    }
}

/// The environment variable a password is best given in (not visible in the process list).
pub use wirebench_mqtt::study::PASSWORD_ENV;

fn transport(t: &TransportArgs, rtt: Option<EchoOpts>, drain: Option<f64>) -> Result<()> {
    let _out_lock = claim_output(t.out.out.as_deref())?;
    let env_password = match std::env::var(PASSWORD_ENV) {
        Ok(p) if !p.is_empty() => Some(Password::new(p)),
        Ok(_) | Err(std::env::VarError::NotPresent) => None,
        Err(std::env::VarError::NotUnicode(_)) => return Err(bad(format!("{PASSWORD_ENV} is not valid UTF-8"))),
    };
    let credentials = Credentials {
        username: t.username.clone(),
        password: t.password.clone().map(Password::new),
        env_password,
        tls: TlsFiles {
            ca_file: t.ca_file.clone(),
            client_cert: t.client_cert.clone(),
            client_key: t.client_key.clone(),
        },
    };
    let payloads = zoo_payloads(t)?;
    let plan = TransportOpts {
        payloads,
        broker: t.broker.clone(),
        credentials: credentials.clone(),
        drain_s: drain.unwrap_or(2.0),
        qos: t.qos.clone(),
        format: t.format.clone(),
        fields: t.fields,
        message: t.message.clone(),
        count: t.count,
        timeout_s: t.timeout,
        baseline: t.baseline,
        reps: t.reps,
        topic: t.topic.clone(),
        rtt,
    }
    .plan()
    .map_err(part_error)?;
    let section = plan.run().map_err(part_error)?;
    let what = if rtt.is_some() { "mqtt rtt" } else { "mqtt throughput" };
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let has_password = credentials.password.is_some()
        || credentials.env_password.is_some()
        || wirebench_mqtt::parse_broker_url(&t.broker).is_ok_and(|u| u.password.is_some());
    let mut config = json!({
        "command": what, "broker": redact_url(&t.broker), "qos": plan.qos.level(), "payload": plan.payload.label,
        "count": t.count, "timeout_s": t.timeout, "baseline": t.baseline, "reps": t.reps, "topic": t.topic,
        "username": t.username, "password": has_password.then_some(REDACTED),
        "ca_file": path(&t.ca_file), "client_cert": path(&t.client_cert), "client_key": path(&t.client_key),
    });
    if let Some(d) = drain {
        config["drain_s"] = json!(d);
    }
    finish(section, &t.out, config)
}

/// The payloads of a run on a codec of the zoo: its encodings of the samples or corpus. `None`
/// for the study formats and `bytes:N` (which take no samples).
fn zoo_payloads(t: &TransportArgs) -> Result<Option<wirebench_mqtt::study::PayloadSpec>> {
    let study_format =
        t.format.starts_with("bytes:") || wirebench_mqtt::study::parse_formats(std::slice::from_ref(&t.format)).is_ok();
    let given = !t.samples.is_empty() || t.corpus.is_some();
    if t.message.is_some() || (study_format && !given) {
        return Ok(None);
    }
    let codec = match wirebench_codecs::find(&t.format) {
        Some(c) => c.info().id,
        None if study_format => {
            return Err(bad(format!(
                "--format {}: --samples and --corpus go with a codec of `wirebench codecs` (json, pson, protobuf, ...), not a study format",
                t.format
            )))
        }
        None => {
            let mut known: Vec<&str> = wirebench_mqtt::opcua::StudyFormat::ALL.iter().map(|f| f.id()).collect();
            known.extend(wirebench_codecs::registry().iter().map(|c| c.info().id));
            known.push("bytes:N");
            return Err(bad(format!("--format: {}", wirebench_core::names::unknown("format", &t.format, &known))));
        }
    };
    let w = wirebench_measure::workload::Workload::pick(
        &t.samples,
        Some(t.corpus.as_deref().unwrap_or("pson-paper")),
        100,
        1,
        &t.schema,
    )
    .map_err(|e| bad(e.to_string()))?;
    let items = w.encode_all(codec).map_err(|e| bad(e.to_string()))?;
    let source = if t.samples.is_empty() { w.name.clone() } else { "sample".into() };
    wirebench_mqtt::study::PayloadSpec::encoded(codec, &source, items).map(Some).map_err(part_error)
}

/// Render (and optionally write) a section as a results file.
fn finish(section: MqttSection, out: &OutArgs, config: Value) -> Result<()> {
    let mut results = Results::new(provenance(0), config);
    results.mqtt = Some(section);
    if let Some(p) = &out.out {
        write_results(&results, p)?;
    }
    let output: Output = out.output.into();
    let text = if output == Output::Json {
        serde_json::to_string_pretty(&results)? + "\n"
    } else {
        wirebench_report::mqtt::render(&results, output)
    };
    write_stdout(text.as_bytes())?;
    // A broker that went away mid-run is the environment's failure: the repetitions made are
    // written and printed above, and the exit is 1.
    match results.mqtt.as_ref().and_then(|m| m.first_failure()) {
        None => Ok(()),
        Some((n, first)) => anyhow::bail!("mqtt: {n} failed side(s) (their figures kept); the first: {first}"),
    }
}
