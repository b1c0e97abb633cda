//! The `[fleet]` part of a study, and the measurement of `wirebench fleet`: many simulated
//! devices over MQTT, per format and fleet size, into the typed `fleet` results section
//! (`wirebench_core::sections::fleet`).
//!
//! The engine is [`super::run`]; the payloads are the zoo codecs' encodings of a built-in
//! corpus or the user's samples (`wirebench_measure::workload`).

use std::io::IsTerminal;
use std::path::PathBuf;

use wirebench_core::part::{Part, PartError};
use wirebench_core::sections::fleet::{self, FleetSection, ShardInfo};
use wirebench_measure::workload::{codec_ids, Workload};

use super::{files_needed, raise_fd_limit, FleetBroker, FleetConfig, ProbeLog};
use crate::study::PASSWORD_ENV;
use crate::{Credentials, Password, Payloads, Qos, TlsFiles};

/// The options of a fleet measurement (command line, or a study's `[fleet]` table).
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Clone, Debug)]
#[serde(default, deny_unknown_fields)]
pub struct FleetOpts {
    /// Fleet sizes: devices in the whole fleet (all shards); several sizes are run in turn.
    #[arg(long, value_delimiter = ',', default_value = "1000")]
    pub devices: Vec<u64>,
    /// Each device publishes once per period: `10s`, `500ms`, `1m`.
    #[arg(long, default_value = "10s")]
    pub every: String,
    /// Each interval varies uniformly by up to this much: `20%` or `0.2`.
    #[arg(long, default_value = "20%")]
    pub jitter: String,
    /// Every device starts at the same instant (synchronized bursts) instead of spread over
    /// the period.
    #[arg(long)]
    pub burst: bool,
    /// Comma-separated codec ids (default: json,pson,protobuf). See `wirebench codecs`.
    #[arg(long, short = 'f', value_delimiter = ',')]
    pub formats: Vec<String>,
    /// The messages (`--corpus`, `--samples`) and their schema (`--schema`, `--type`, `-I`).
    #[command(flatten)]
    #[serde(flatten)]
    pub inputs: wirebench_measure::study::inputs::Inputs,
    /// `embedded` (rumqttd in this process), `mosquitto` (a child on a free loopback port),
    /// `mqtt://[user[:password]@]host[:port]` or `mqtts://…` (needs --ca-file).
    #[arg(long, default_value = "embedded")]
    pub broker: String,
    /// MQTT QoS of the devices and subscribers: 0 or 1.
    #[arg(long, default_value_t = 1)]
    pub qos: u8,
    /// How long the devices publish: `60s`, `5m`.
    #[arg(long, default_value = "60s")]
    pub duration: String,
    /// After the last scheduled send, how long to wait for messages still on their way.
    #[arg(long, default_value = "5s")]
    pub drain: String,
    /// Subscribers per process (each takes a share of the devices).
    #[arg(long, default_value_t = 1)]
    pub subscribers: u32,
    /// Connections opened per second while the fleet connects.
    #[arg(long, default_value_t = 1000.0)]
    pub connect_rate: f64,
    /// This process's shard of the fleet, `I/N` (default: `$JOB_COMPLETION_INDEX/$JOB_COMPLETIONS`
    /// when a Kubernetes Indexed Job sets them, else the whole fleet).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Names the topics: give every shard of one fleet the same (default: derived from the
    /// options, so shards started with the same options agree).
    #[arg(long)]
    pub run_id: Option<String>,
    /// Loopback addresses a broker started here listens on, the devices spread over them
    /// (default: one per 25,000 connections, each address pair having 28,232 client ports).
    #[arg(long, value_name = "N")]
    pub broker_addresses: Option<u8>,
    /// Worker threads carrying the devices (default: the machine's cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seeds the devices' phases and jitter.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// User name for a broker given by URL (the password: the URL or WIREBENCH_MQTT_PASSWORD).
    #[arg(long)]
    pub username: Option<String>,
    /// PEM file of the CA that signed the broker's certificate (mqtts:// only).
    #[arg(long, value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
    /// PEM client certificate and key for mutual TLS.
    #[arg(long, value_name = "PEM")]
    pub client_cert: Option<PathBuf>,
    #[arg(long, value_name = "PEM")]
    pub client_key: Option<PathBuf>,
}

impl Default for FleetOpts {
    fn default() -> FleetOpts {
        FleetOpts {
            devices: vec![1000],
            every: "10s".into(),
            jitter: "20%".into(),
            burst: false,
            formats: Vec::new(),
            inputs: Default::default(),
            broker: "embedded".into(),
            qos: 1,
            duration: "60s".into(),
            drain: "5s".into(),
            subscribers: 1,
            connect_rate: 1000.0,
            shard: None,
            run_id: None,
            broker_addresses: None,
            threads: None,
            seed: 1,
            username: None,
            ca_file: None,
            client_cert: None,
            client_key: None,
        }
    }
}

/// The default formats: text, our compact dynamic format, a schema-driven binary one.
const DEFAULT_FORMATS: [&str; 3] = ["json", "pson", "protobuf"];

/// `10s`, `500ms`, `2m`, `1h` (or a bare number of seconds) in ms.
fn parse_ms(option: &str, text: &str) -> Result<u64, PartError> {
    let t = text.trim();
    let err = || PartError::bad(format!("--{option} {text:?}: expected a duration such as 500ms, 10s, 5m or 1h"));
    let (num, mult) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1e3)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60e3)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600e3)
    } else {
        (t, 1e3)
    };
    let v: f64 = num.trim().parse().map_err(|_| err())?;
    if !(v.is_finite() && v >= 0.0) {
        return Err(err());
    }
    let ms = v * mult;
    // Whole milliseconds: a positive value that rounds to 0 ms (1e-320s) or one past any run
    // (1e300s) is refused here with the text given, not as the 0 or 2^64 − 1 ms it becomes.
    if ms > 0.0 && ms < 0.5 {
        return Err(PartError::bad(format!("--{option} {text:?}: below 1 ms, the step of a schedule")));
    }
    if ms > 1e12 {
        return Err(PartError::bad(format!("--{option} {text:?}: over 1e12 ms (about 32 years)")));
    }
    Ok(ms.round() as u64)
}

/// `20%` or `0.2`.
fn parse_fraction(option: &str, text: &str) -> Result<f64, PartError> {
    let t = text.trim();
    let v = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
        None => t.parse::<f64>(),
    };
    v.ok()
        .filter(|v| v.is_finite() && (0.0..1.0).contains(v))
        .ok_or_else(|| PartError::bad(format!("--{option} {text:?}: expected a fraction in [0, 1) such as 20% or 0.2")))
}

/// `I/N`, or the Indexed Job's environment, or the whole fleet.
fn shard_of(opts: &FleetOpts) -> Result<(u32, u32), PartError> {
    let parse = |what: &str, i: &str, n: &str| -> Result<(u32, u32), PartError> {
        match (i.trim().parse::<u32>(), n.trim().parse::<u32>()) {
            (Ok(i), Ok(n)) if n > 0 && i < n => Ok((i, n)),
            _ => Err(PartError::bad(format!("{what}: expected I/N with 0 ≤ I < N"))),
        }
    };
    if let Some(s) = &opts.shard {
        let (i, n) =
            s.split_once('/').ok_or_else(|| PartError::bad(format!("--shard {s:?}: expected I/N, e.g. 0/4")))?;
        return parse(&format!("--shard {s:?}"), i, n);
    }
    match (std::env::var("JOB_COMPLETION_INDEX"), std::env::var("JOB_COMPLETIONS")) {
        (Ok(i), Ok(n)) => parse(&format!("JOB_COMPLETION_INDEX={i}, JOB_COMPLETIONS={n}"), &i, &n),
        (Ok(i), Err(_)) => Err(PartError::bad(format!(
            "JOB_COMPLETION_INDEX={i} is set but JOB_COMPLETIONS is not: pass the shard count (see deploy/kubernetes/fleet-job.yaml) or --shard I/N"
        ))),
        _ => Ok((0, 1)),
    }
}

/// A checked fleet measurement.
pub struct Plan {
    pub configs: Vec<FleetConfig>,
    pub formats: Vec<String>,
    pub workload: Workload,
    pub credentials: Credentials,
    pub shard: (u32, u32),
    pub run_id: String,
}

/// The options checked: the fleet sizes as run configurations, the formats, the payloads, the
/// broker's credentials, this process's shard and the run id.
pub fn plan(opts: &FleetOpts) -> Result<Plan, PartError> {
    let period_ms = parse_ms("every", &opts.every)?;
    let duration_ms = parse_ms("duration", &opts.duration)?;
    let drain_ms = parse_ms("drain", &opts.drain)?;
    let jitter = parse_fraction("jitter", &opts.jitter)?;
    let qos = Qos::try_from(opts.qos).map_err(|e| PartError::bad(format!("--qos: {e}")))?;
    if opts.devices.is_empty() {
        return Err(PartError::bad("--devices: give at least one fleet size"));
    }
    let list: Vec<String> = if opts.formats.is_empty() {
        DEFAULT_FORMATS.iter().map(|s| s.to_string()).collect()
    } else {
        opts.formats.clone()
    };
    let formats = codec_ids(&list).map_err(|e| PartError::bad(format!("--formats: {e}")))?;
    let workload = Workload::pick(
        &opts.inputs.samples,
        Some(opts.inputs.corpus.as_deref().unwrap_or("pson-paper")),
        100,
        opts.seed,
        &opts.inputs.schema,
    )
    .map_err(|e| PartError::bad(e.to_string()))?;
    let shard = shard_of(opts)?;
    let env_password = std::env::var(PASSWORD_ENV).ok().filter(|p| !p.is_empty()).map(Password::new);
    let credentials = Credentials {
        username: opts.username.clone(),
        password: None,
        env_password,
        tls: TlsFiles {
            ca_file: opts.ca_file.clone(),
            client_cert: opts.client_cert.clone(),
            client_key: opts.client_key.clone(),
        },
    };
    if opts.broker.contains("://") {
        crate::ExternalBroker::with_credentials(&opts.broker, &credentials)
            .map_err(|e| PartError::bad(format!("--broker: {e}")))?;
    } else if !matches!(opts.broker.as_str(), "embedded" | "mosquitto") {
        return Err(PartError::bad(format!(
            "--broker {:?}: expected embedded, mosquitto or mqtt://host[:port]",
            opts.broker
        )));
    } else if credentials.any() {
        return Err(PartError::bad(format!(
            "--broker {}: --username, --ca-file, --client-cert and --client-key need a broker URL",
            opts.broker
        )));
    }
    match opts.broker_addresses {
        Some(0) => return Err(PartError::bad("--broker-addresses 0: expected 1..=200")),
        Some(n) if n > 200 => return Err(PartError::bad(format!("--broker-addresses {n}: expected 1..=200"))),
        Some(n) if n > 1 && opts.broker.contains("://") => {
            return Err(PartError::bad(format!(
                "--broker-addresses {n}: only for a broker wirebench starts (embedded, mosquitto), not {}",
                opts.broker
            )))
        }
        _ => {}
    }
    if shard.1 > 1 && !opts.broker.contains("://") {
        return Err(PartError::bad(format!(
            "--shard {}/{}: the shards of one fleet must share a broker: give its URL (--broker mqtt://host:port), not {:?}",
            shard.0, shard.1, opts.broker
        )));
    }
    let run_id = match &opts.run_id {
        Some(r) => r.clone(),
        None => default_run_id(opts),
    };
    let threads = opts.threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2));
    let mut configs = Vec::new();
    for &devices in &opts.devices {
        let c = FleetConfig {
            devices,
            shard_index: shard.0,
            shard_count: shard.1,
            period_ms,
            jitter,
            burst: opts.burst,
            qos,
            duration_ms,
            drain_ms,
            subscribers: opts.subscribers,
            connect_rate: opts.connect_rate,
            worker_threads: threads,
            run_id: run_id.clone(),
            seed: opts.seed,
            ..FleetConfig::default()
        };
        c.check().map_err(|e| PartError::bad(e.to_string()))?;
        configs.push(c);
    }
    Ok(Plan { configs, formats, workload, credentials, shard, run_id })
}

/// The same for every shard started with the same options: a hash of what defines the fleet.
fn default_run_id(opts: &FleetOpts) -> String {
    let key = format!(
        "{:?}|{}|{}|{}|{:?}|{:?}|{:?}|{:?}|{}|{}|{}",
        opts.devices,
        opts.every,
        opts.jitter,
        opts.burst,
        opts.formats,
        opts.inputs.corpus,
        opts.inputs.samples,
        opts.inputs.schema,
        opts.qos,
        opts.duration,
        opts.seed
    );
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    format!("f{:08x}", h as u32)
}

/// The `[fleet]` part.
pub struct FleetPart;

impl Part for FleetPart {
    const NAME: &'static str = "fleet";
    type Options = FleetOpts;
    type Section = FleetSection;

    fn validate(opts: &FleetOpts) -> Result<(), PartError> {
        let p = plan(opts)?;
        for f in &p.formats {
            p.workload.encode_all(f).map_err(|e| PartError::bad(e.to_string()))?;
        }
        Ok(())
    }

    fn run(opts: &FleetOpts) -> Result<FleetSection, PartError> {
        measure(opts, &|_| {})
    }
}

/// Measures every fleet size × format in turn; `finished` sees the section after each run (the
/// runs so far), so that a signal can still write them.
pub fn measure(opts: &FleetOpts, finished: &dyn Fn(&FleetSection)) -> Result<FleetSection, PartError> {
    let p = plan(opts)?;
    let mut payloads = Vec::new();
    for f in &p.formats {
        let bodies = p.workload.encode_all(f).map_err(|e| PartError::bad(e.to_string()))?;
        payloads.push((f.clone(), Payloads::cycle(bodies).map_err(|e| PartError::bad(e.to_string()))?));
    }
    let largest = p.configs.iter().map(|c| c.device_range().end - c.device_range().start).max().unwrap_or(0);
    let fd_limit = raise_fd_limit(files_needed(largest + opts.subscribers as u64 + 1))
        .map_err(|e| PartError::failed(e.to_string()))?;
    let mut notes = Vec::new();
    if fd_limit.soft != fd_limit.soft_before {
        notes.push(format!(
            "The open-file limit was raised from {} (hard {}) to {} (hard {}) for {} connections{}.",
            fd_limit.soft_before,
            fd_limit.hard_before,
            fd_limit.soft,
            fd_limit.hard,
            largest + opts.subscribers as u64,
            ""
        ));
    }
    notes.push(format!(
        "Each message is the codec payload behind a {}-byte header (device, sequence, scheduled time); wire bytes add {} bytes of TCP/IPv4 headers per PUBLISH (one segment per message) and, at QoS 1, a 4-byte PUBACK with its headers downlink.",
        super::FLEET_HEADER_LEN,
        fleet::TCP_IP_OVERHEAD
    ));
    let connections = largest + opts.subscribers as u64;
    let addresses = opts.broker_addresses.unwrap_or_else(|| super::addresses_for(connections));
    if addresses > 1 {
        notes.push(format!(
            "The broker listened on {addresses} loopback addresses (127.0.0.1–127.0.0.{addresses}) and the devices connected to them in turn: each address pair has its own {} client ports.",
            super::EPHEMERAL_PORTS
        ));
    }
    let exe = std::env::current_exe().map_err(|e| PartError::failed(format!("locating the wirebench binary: {e}")))?;
    // A broker wirebench starts is started afresh for every run, so that its CPU and memory are
    // those of one format at one fleet size (rumqttd keeps what earlier runs left behind).
    let open = || {
        FleetBroker::open(&opts.broker, &p.credentials, connections, addresses, &exe).map_err(|e| match e {
            crate::MqttError::Option(_) | crate::MqttError::InvalidUrl { .. } => PartError::bad(e.to_string()),
            other => PartError::failed(other.to_string()),
        })
    };
    let mut broker = open()?;
    let mut first = true;
    let probes = ProbeLog::default();
    let started = unix_ms();
    let verbose = std::io::stderr().is_terminal() || std::env::var_os("WIREBENCH_PROGRESS").is_some();
    let progress = |m: &str| {
        if verbose {
            eprintln!("{m}");
        }
    };
    let section = |runs: &[wirebench_core::sections::fleet::FleetRun], notes: &[String]| FleetSection {
        version: fleet::FLEET_SECTION_VERSION,
        run_id: p.run_id.clone(),
        shards: vec![ShardInfo {
            index: p.shard.0,
            count: p.shard.1,
            host: hostname(),
            pid: std::process::id(),
            started_unix_ms: started,
            ended_unix_ms: unix_ms(),
            fd_limit: fd_limit.clone(),
            probes: probes.probes(),
        }],
        clock: None,
        runs: runs.to_vec(),
        notes: notes.to_vec(),
    };
    let mut runs = Vec::new();
    // Time left: each run's planned length, scaled by how the finished runs compared with theirs.
    let planned: Vec<f64> = p.configs.iter().flat_map(|c| payloads.iter().map(move |_| planned_run_s(c))).collect();
    let mut clock = Eta { planned: planned.clone(), took: Vec::new() };
    let (total, mut k) = (planned.len(), 0usize);
    'runs: for c in &p.configs {
        for (f, pl) in &payloads {
            k += 1;
            let run_start = std::time::Instant::now();
            progress(&format!("fleet run {k}/{total}: {f}, {} devices, {}", c.devices, clock.left_text()));
            if !first && !opts.broker.contains("://") {
                drop(broker);
                broker = open()?;
            }
            first = false;
            let r = super::run(&broker, c, f, &p.workload.name, pl, &probes, &progress)
                .map_err(|e| PartError::failed(format!("fleet of {} devices, {f}: {e}", c.devices)))?;
            progress(&format!(
                "fleet {f}, {} devices: {}/{} scheduled delivered ({} sent), latency p50 {} µs p99 {} µs, {:.0} wire B/s, harness {:.2} cores, broker {}",
                c.devices,
                r.delivery.received,
                r.delivery.scheduled,
                r.delivery.sent,
                r.latency_us.p50.map_or(0, |q| q.value),
                r.latency_us.p99.map_or(0, |q| q.value),
                r.traffic.wire_bytes_per_s,
                r.cpu.harness_cores,
                r.cpu.broker_cores.map_or("—".to_string(), |c| format!("{c:.2} cores")),
            ));
            let failed = r.errors.first().cloned();
            runs.push(r);
            clock.took.push(run_start.elapsed().as_secs_f64());
            // A run with errors (the broker went away, devices could not connect) ends the
            // fleet: the runs after it would measure a broker that is not there.
            if let Some(e) = failed {
                if k < total {
                    notes.push(format!(
                        "The fleet stopped after run {k} of {total} ({f}, {} devices: {e}); the {} run(s) after it were not made.",
                        c.devices,
                        total - k
                    ));
                }
                finished(&section(&runs, &notes));
                break 'runs;
            }
            finished(&section(&runs, &notes));
        }
    }
    drop(broker);
    Ok(section(&runs, &notes))
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or_default()
}

/// The planned length of one run in seconds: connecting at the pacing rate, publishing, and the
/// drain (which ends after 2 s of quiet), plus a second for the broker and the subscribers.
fn planned_run_s(c: &FleetConfig) -> f64 {
    let r = c.device_range();
    (r.end - r.start) as f64 / c.connect_rate.max(1.0) + (c.duration_ms + c.drain_ms.min(2_000)) as f64 / 1e3 + 1.0
}

/// The time left in a fleet: the planned length of the runs not yet done, scaled by how long the
/// finished ones took against their plan.
struct Eta {
    planned: Vec<f64>,
    took: Vec<f64>,
}

impl Eta {
    fn left_s(&self) -> f64 {
        let done = self.took.len().min(self.planned.len());
        let planned_done: f64 = self.planned[..done].iter().sum();
        let scale = if done == 0 || planned_done <= 0.0 { 1.0 } else { self.took.iter().sum::<f64>() / planned_done };
        self.planned[done..].iter().sum::<f64>() * scale
    }

    fn left_text(&self) -> String {
        let how = if self.took.is_empty() { "planned" } else { "estimated" };
        format!("{} in all ({how})", wirebench_measure::progress::left_text(self.left_s()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_fractions_and_shards() {
        assert_eq!(parse_ms("every", "10s").unwrap(), 10_000);
        assert_eq!(parse_ms("every", "250ms").unwrap(), 250);
        assert_eq!(parse_ms("every", "2m").unwrap(), 120_000);
        assert_eq!(parse_ms("every", "3").unwrap(), 3_000);
        assert!(parse_ms("every", "soon").unwrap_err().to_string().contains("--every"));
        assert!(parse_ms("every", "1e-320s").unwrap_err().to_string().contains("\"1e-320s\": below 1 ms"));
        assert!(parse_ms("duration", "1e300s").unwrap_err().to_string().contains("\"1e300s\": over 1e12 ms"));
        assert_eq!(parse_ms("drain", "0s").unwrap(), 0);
        assert_eq!(parse_fraction("jitter", "20%").unwrap(), 0.2);
        assert_eq!(parse_fraction("jitter", "0.5").unwrap(), 0.5);
        assert!(parse_fraction("jitter", "100%").is_err());
        let o = FleetOpts { shard: Some("2/4".into()), ..FleetOpts::default() };
        assert_eq!(shard_of(&o).unwrap(), (2, 4));
        let o = FleetOpts { shard: Some("4/4".into()), ..FleetOpts::default() };
        assert!(shard_of(&o).unwrap_err().to_string().contains("--shard"));
        assert_eq!(default_run_id(&FleetOpts::default()), default_run_id(&FleetOpts::default()));
    }
}

#[cfg(test)]
mod eta_tests {
    use super::Eta;

    #[test]
    fn time_left_is_the_plan_scaled_by_the_runs_done() {
        let mut e = Eta { planned: vec![10.0, 10.0, 20.0], took: vec![] };
        assert_eq!(e.left_s(), 40.0);
        assert!(e.left_text().contains("~40 s left in all (planned)"), "{}", e.left_text());
        // The first run took twice its plan: the rest is expected to as well.
        e.took.push(20.0);
        assert_eq!(e.left_s(), 60.0);
        e.took.push(10.0);
        assert_eq!(e.left_s(), 30.0);
        e.took.push(25.0);
        assert_eq!(e.left_s(), 0.0);
        let long = Eta { planned: vec![3725.0], took: vec![] };
        assert_eq!(long.left_text(), "~62 min 05 s left in all (planned)");
    }
}
