//! Fleets: many simulated devices, each its own MQTT connection and client id, publishing
//! open-loop on its own schedule, and subscribers that account for every message.
//!
//! One tokio runtime carries every device (a task for its schedule, a task for its rumqttc
//! event loop: no thread per device). A device's schedule is a pure function of its global id,
//! the seed and the configuration ([`schedule`]), so a fleet split into shards (`--shard i/N`:
//! the devices `[N·i/n, N·(i+1)/n)`) sends exactly the messages one process would have sent.
//!
//! Every message is the codec payload behind a 16-byte header of ours:
//!
//! | bytes | field | encoding |
//! |---|---|---|
//! | 0..4 | device id (global) | u32, big-endian |
//! | 4..8 | sequence number of the device, 0-based | u32, big-endian |
//! | 8..16 | scheduled send time, ns after the run's start | u64, big-endian |
//!
//! Latency is measured from the *scheduled* send time (a late harness counts against the
//! latency, it is not hidden), on the clock of this process: each shard's subscribers receive
//! only that shard's devices (topic `wbf/<run>/<format>/<shard>/<group>/<device>`, short as device topics are).
//! Shards publish clock probes to each other through the broker (`wbf/<run>/clock`)
//! so that a merge can bound their clocks' skew.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rumqttc::{AsyncClient, Event, EventLoop, Outgoing, Packet};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use wirebench_core::sections::fleet::{
    ClockProbe, ConnectStats, FdLimit, FleetCpu, FleetDelivery, FleetRun, Hist, PayloadStats, Traffic, TCP_IP_OVERHEAD,
};

use crate::client::{ClientSettings, Qos};
use crate::cpu;
use crate::endpoint::{Endpoint, MqttBroker};
use crate::error::{describe_conn, MqttError};
use crate::framing::Payloads;

/// Bytes of the fleet header in front of every payload.
pub const FLEET_HEADER_LEN: usize = 16;

/// Most devices one run takes (the header's device id is 32 bits; far beyond one machine).
pub const MAX_DEVICES: u64 = 10_000_000;

/// Configuration of one fleet run (echoed in results).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetConfig {
    /// Devices of the whole fleet (all shards).
    pub devices: u64,
    /// This process's shard: index `0..count`.
    pub shard_index: u32,
    pub shard_count: u32,
    /// Every device publishes once per period.
    pub period_ms: u64,
    /// Each interval is the period times a uniform factor in `[1 − jitter, 1 + jitter]`.
    pub jitter: f64,
    /// Every device starts at the same instant (synchronized bursts) instead of spread over
    /// the period.
    pub burst: bool,
    pub qos: Qos,
    /// How long the devices publish.
    pub duration_ms: u64,
    /// After the last scheduled send: how long to wait for what is still on its way.
    pub drain_ms: u64,
    /// Subscribers of this shard (each takes the devices `id % subscribers == k`).
    pub subscribers: u32,
    /// Connections opened per second while the fleet connects, and at most this many at once.
    pub connect_rate: f64,
    pub connect_concurrency: usize,
    pub connect_timeout_ms: u64,
    /// Worker threads of the runtime that carries the devices and subscribers.
    pub worker_threads: usize,
    /// Names the topics; the same in every shard of one fleet.
    pub run_id: String,
    pub seed: u64,
}

impl Default for FleetConfig {
    fn default() -> Self {
        FleetConfig {
            devices: 1000,
            shard_index: 0,
            shard_count: 1,
            period_ms: 10_000,
            jitter: 0.2,
            burst: false,
            qos: Qos::AtLeastOnce,
            duration_ms: 60_000,
            drain_ms: 5_000,
            subscribers: 1,
            connect_rate: 1_000.0,
            connect_concurrency: 200,
            connect_timeout_ms: 10_000,
            worker_threads: 2,
            run_id: "fleet".into(),
            seed: 1,
        }
    }
}

impl FleetConfig {
    /// Check ranges; the message names the command-line option.
    pub fn check(&self) -> Result<(), MqttError> {
        let bad = |s: String| Err(MqttError::Config(s));
        if self.devices == 0 || self.devices > MAX_DEVICES {
            return bad(format!("--devices {}: expected 1..={MAX_DEVICES}", self.devices));
        }
        if self.shard_count == 0 || self.shard_index >= self.shard_count || self.shard_count as u64 > self.devices {
            return bad(format!(
                "--shard {}/{}: expected I/N with 0 ≤ I < N ≤ devices ({})",
                self.shard_index, self.shard_count, self.devices
            ));
        }
        if self.period_ms == 0 || self.period_ms > 86_400_000 {
            return bad(format!("--every {} ms: expected 1 ms ..= 1 day", self.period_ms));
        }
        if !(self.jitter.is_finite() && (0.0..1.0).contains(&self.jitter)) {
            return bad(format!("--jitter {}: expected a fraction in [0, 1) (e.g. 20%)", self.jitter));
        }
        if self.duration_ms == 0 || self.duration_ms > 7 * 86_400_000 {
            return bad(format!("--duration {} ms: expected > 0 and ≤ 7 days", self.duration_ms));
        }
        if self.drain_ms > 3_600_000 {
            return bad(format!("--drain {} ms: expected ≤ 1 hour", self.drain_ms));
        }
        if self.subscribers == 0 || self.subscribers > 1000 {
            return bad(format!("--subscribers {}: expected 1..=1000", self.subscribers));
        }
        if !(self.connect_rate.is_finite() && self.connect_rate > 0.0) || self.connect_concurrency == 0 {
            return bad(format!("--connect-rate {}: expected > 0 connections per second", self.connect_rate));
        }
        if self.worker_threads == 0 || self.worker_threads > 1024 {
            return bad(format!("--threads {}: expected 1..=1024", self.worker_threads));
        }
        if self.connect_timeout_ms == 0 || self.connect_timeout_ms > 3_600_000 {
            return bad("connect timeout: expected 1 ms ..= 1 hour".into());
        }
        if self.run_id.is_empty()
            || self.run_id.len() > 64
            || !self.run_id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        {
            return bad(format!("--run-id {:?}: expected 1 to 64 letters, digits, '-', '_' or '.'", self.run_id));
        }
        Ok(())
    }

    /// The global ids of this shard's devices.
    pub fn device_range(&self) -> std::ops::Range<u64> {
        let n = self.shard_count as u64;
        let i = self.shard_index as u64;
        (self.devices * i / n)..(self.devices * (i + 1) / n)
    }
}

/// The scheduled send times of device `d`, ns after the run's start, in order.
pub fn schedule(cfg: &FleetConfig, d: u64) -> impl Iterator<Item = u64> {
    let period = cfg.period_ms as f64 * 1e6;
    let duration = cfg.duration_ms * 1_000_000;
    // Spread over the period by a low-discrepancy sequence (no two neighbours together).
    let phase = if cfg.burst {
        0.0
    } else {
        ((d as f64 + 0.5) * 0.618_033_988_749_894_9 + unit(mix(cfg.seed))).fract() * period
    };
    let (seed, jitter) = (cfg.seed, cfg.jitter);
    let mut t = phase;
    let mut k = 0u64;
    std::iter::from_fn(move || {
        let now = t.round() as u64;
        if now >= duration {
            return None;
        }
        let u =
            unit(mix(seed ^ d.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ k.wrapping_mul(0xD1B5_4A32_D192_ED03))) * 2.0 - 1.0;
        t += period * (1.0 + jitter * u);
        k += 1;
        Some(now)
    })
}

/// One SplitMix64 step from `x` (the project's generator, `wirebench_measure::rng`).
fn mix(x: u64) -> u64 {
    wirebench_measure::rng::mix(x.wrapping_add(wirebench_measure::rng::GAMMA))
}

fn unit(x: u64) -> f64 {
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// A broker a fleet runs against: one wirebench starts (sized for the fleet) or one by URL.
pub enum FleetBroker {
    /// rumqttd in a child process of ours (the wirebench binary run with [`BROKER_CHILD_COMMAND`]):
    /// its own open-file limit, and its CPU and memory measured apart from the harness's.
    Embedded(ChildBroker),
    /// mosquitto and the number of loopback addresses it listens on.
    Mosquitto(crate::Mosquitto, u8),
    External(crate::ExternalBroker),
}

/// Client ports one address pair offers (Linux's default ephemeral range, 32768–60999), and the
/// share of them a fleet uses per broker address.
pub const EPHEMERAL_PORTS: u64 = 28_232;
const PORTS_PER_ADDRESS: u64 = 25_000;

/// The loopback addresses a broker started here needs for `connections` clients: one per
/// 25,000 (each broker address has its own ephemeral ports on the client side).
pub fn addresses_for(connections: u64) -> u8 {
    connections.div_ceil(PORTS_PER_ADDRESS).clamp(1, 200) as u8
}

/// 127.0.0.2 .. 127.0.0.n.
fn extra_addresses(n: u8) -> Vec<std::net::Ipv4Addr> {
    (2..=n).map(|i| std::net::Ipv4Addr::new(127, 0, 0, i)).collect()
}

impl FleetBroker {
    /// `embedded` (rumqttd in a child process: `exe` run with [`BROKER_CHILD_COMMAND`]),
    /// `mosquitto` (started here, for `connections` clients) or a URL. The brokers started here
    /// listen on `addresses` loopback addresses (127.0.0.1, 127.0.0.2, ...; see
    /// [`addresses_for`]), the devices spread over them.
    pub fn open(
        spec: &str,
        credentials: &crate::Credentials,
        connections: u64,
        addresses: u8,
        exe: &std::path::Path,
    ) -> Result<FleetBroker, MqttError> {
        if spec.contains("://") {
            return Ok(FleetBroker::External(crate::ExternalBroker::with_credentials(spec, credentials)?));
        }
        if credentials.any() {
            return Err(MqttError::Option(format!(
                "--broker {spec}: --username, --ca-file, --client-cert and --client-key need a broker URL (mqtt:// or mqtts://)"
            )));
        }
        match spec {
            "embedded" => Ok(FleetBroker::Embedded(ChildBroker::start(exe, connections, addresses)?)),
            "mosquitto" => Ok(FleetBroker::Mosquitto(
                crate::Mosquitto::start_with(&crate::MosquittoOptions {
                    extra_config: vec!["max_connections -1".into(), "max_queued_messages 100000".into()],
                    extra_addresses: extra_addresses(addresses),
                    ..crate::MosquittoOptions::default()
                })?,
                addresses,
            )),
            other => Err(MqttError::Option(format!(
                "--broker {other:?}: expected embedded, mosquitto or mqtt://host[:port]"
            ))),
        }
    }

    /// `(kind, name)`: `embedded-rumqttd` / `rumqttd 0.20 (embedded)`, `mosquitto` / its
    /// version, `external` / the URL.
    pub fn describe(&self) -> (String, String) {
        let ep = self.endpoint();
        let name = match self {
            FleetBroker::Embedded(_) => "rumqttd 0.20 (wirebench child process)".to_string(),
            FleetBroker::Mosquitto(m, _) => m.version().trim().replace("mosquitto version", "mosquitto"),
            FleetBroker::External(e) => e.url().to_string(),
        };
        (ep.kind.name().to_string(), name)
    }

    /// Loopback addresses the broker listens on (1 for a broker elsewhere).
    pub fn addresses(&self) -> u8 {
        match self {
            FleetBroker::Embedded(c) => c.addresses,
            FleetBroker::Mosquitto(_, n) => *n,
            FleetBroker::External(_) => 1,
        }
    }

    /// The address device `d` connects to: the broker's addresses in turn.
    fn device_endpoint(&self, d: u64) -> Endpoint {
        let mut ep = self.endpoint();
        let n = self.addresses() as u64;
        if n > 1 {
            let i = (d % n) as u8;
            if i > 0 {
                let host = std::net::Ipv4Addr::new(127, 0, 0, 1 + i).to_string();
                ep = Endpoint::new(&host, ep.port, ep.kind);
            }
        }
        ep
    }

    fn pid(&self) -> Option<u32> {
        match self {
            FleetBroker::Mosquitto(m, _) => Some(m.pid()),
            FleetBroker::Embedded(c) => Some(c.pid),
            FleetBroker::External(_) => None,
        }
    }
}

impl MqttBroker for FleetBroker {
    fn endpoint(&self) -> Endpoint {
        match self {
            FleetBroker::Embedded(b) => b.endpoint.clone(),
            FleetBroker::Mosquitto(b, _) => b.endpoint(),
            FleetBroker::External(b) => b.endpoint(),
        }
    }
}

/// The hidden subcommand of the wirebench binary that serves rumqttd for a fleet
/// ([`serve_child_broker`]).
pub const BROKER_CHILD_COMMAND: &str = "fleet-broker";

/// rumqttd in a child process, for as long as this value lives.
pub struct ChildBroker {
    child: Mutex<std::process::Child>,
    pid: u32,
    endpoint: Endpoint,
    addresses: u8,
}

impl ChildBroker {
    fn start(exe: &std::path::Path, connections: u64, addresses: u8) -> Result<ChildBroker, MqttError> {
        use std::io::BufRead;
        use std::os::unix::process::CommandExt;
        use std::process::{Command, Stdio};
        let mut cmd = Command::new(exe);
        cmd.args([
            BROKER_CHILD_COMMAND,
            "--max-connections",
            &connections.to_string(),
            "--addresses",
            &addresses.to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
        // SAFETY: prctl is async-signal-safe; it runs in the child between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let mut child =
            cmd.spawn().map_err(|e| MqttError::io(format!("starting the broker process {}", exe.display()), e))?;
        let pid = child.id();
        let out = child.stdout.take().ok_or_else(|| MqttError::Embedded("the broker process has no stdout".into()))?;
        // Its first line is the address it listens on (or nothing, when it failed: its error is
        // on our stderr).
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(out).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(10)).unwrap_or_default();
        let addr: Option<std::net::SocketAddrV4> = line.trim().parse().ok();
        let Some(addr) = addr else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(MqttError::Embedded(format!("the broker process did not start (it said {:?})", line.trim())));
        };
        Ok(ChildBroker {
            child: Mutex::new(child),
            pid,
            endpoint: Endpoint::new(&addr.ip().to_string(), addr.port(), crate::endpoint::BrokerKind::EmbeddedRumqttd),
            addresses,
        })
    }
}

impl Drop for ChildBroker {
    fn drop(&mut self) {
        if let Ok(mut c) = self.child.lock() {
            // Closing its stdin asks it to stop; it is killed if it has not within a second.
            drop(c.stdin.take());
            let until = Instant::now() + Duration::from_secs(1);
            while Instant::now() < until {
                if let Ok(Some(_)) = c.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The broker process's side: rumqttd for `connections` clients on 127.0.0.1 and a free port,
/// the address on stdout, until stdin closes (the parent dropped its [`ChildBroker`] or died).
#[cfg(feature = "embedded-broker")]
pub fn serve_child_broker(connections: u64, addresses: u8) -> Result<(), MqttError> {
    use std::io::{Read, Write};
    raise_fd_limit(files_needed(connections))?;
    let broker = crate::EmbeddedBroker::start(crate::BrokerConfig {
        max_connections: (connections as usize).saturating_add(64),
        // The subscribers read every device's topic through one filter; keep the log small.
        max_segment_size: 4 << 20,
        max_segment_count: 4,
        accept_delay_ms: 0,
        extra_addresses: extra_addresses(addresses),
        ..crate::BrokerConfig::default()
    })?;
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{}", broker.addr());
    let _ = out.flush();
    let mut buf = [0u8; 64];
    let mut stdin = std::io::stdin();
    while let Ok(n) = stdin.read(&mut buf) {
        if n == 0 {
            break;
        }
    }
    drop(broker);
    Ok(())
}

/// Open files a process needs for `connections` sockets, plus headroom (files, the runtime).
pub fn files_needed(connections: u64) -> u64 {
    connections + 256
}

/// Raise `RLIMIT_NOFILE` to at least `needed` (the soft limit up to the hard one; the hard
/// one too when the process may, e.g. as root). Fails, naming the limits, when it cannot.
pub fn raise_fd_limit(needed: u64) -> Result<FdLimit, MqttError> {
    let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: r is a valid out-pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } != 0 {
        return Err(MqttError::io("reading the open-file limit", std::io::Error::last_os_error()));
    }
    let mut lim =
        FdLimit { needed, soft_before: r.rlim_cur, hard_before: r.rlim_max, soft: r.rlim_cur, hard: r.rlim_max };
    if r.rlim_cur >= needed {
        return Ok(lim);
    }
    let want = libc::rlimit { rlim_cur: needed, rlim_max: r.rlim_max.max(needed) };
    // SAFETY: want is a valid rlimit.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &want) } != 0 {
        return Err(MqttError::Option(format!(
            "this fleet needs {needed} open files per process, the limit is {} (hard {}) and this process may not raise it \
             (raise the hard limit: `ulimit -Hn {needed}` with CAP_SYS_RESOURCE; or split the fleet: --shard I/N, one process each)",
            r.rlim_cur, r.rlim_max
        )));
    }
    lim.soft = want.rlim_cur;
    lim.hard = want.rlim_max;
    Ok(lim)
}

/// Clock probes a shard received, by sending shard: (count, smallest delay µs).
#[derive(Clone, Default)]
pub struct ProbeLog(Arc<Mutex<BTreeMap<u32, (u64, i64)>>>);

impl ProbeLog {
    fn add(&self, from: u32, delay_us: i64) {
        if let Ok(mut m) = self.0.lock() {
            let e = m.entry(from).or_insert((0, i64::MAX));
            e.0 += 1;
            e.1 = e.1.min(delay_us);
        }
    }

    pub fn probes(&self) -> Vec<ClockProbe> {
        self.0
            .lock()
            .map(|m| m.iter().map(|(&f, &(n, d))| ClockProbe { from_shard: f, received: n, min_delay_us: d }).collect())
            .unwrap_or_default()
    }
}

fn unix_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

/// A histogram recorder in µs (3 significant digits, up to ~2^36 µs ≈ 19 h).
struct Rec {
    h: hdrhistogram::Histogram<u64>,
    min: u64,
    max: u64,
    sum: u128,
}

impl Rec {
    fn new() -> Rec {
        Rec {
            // Static, valid bounds: cannot fail.
            h: hdrhistogram::Histogram::new_with_bounds(1, 1 << 36, 3).expect("valid histogram bounds"),
            min: u64::MAX,
            max: 0,
            sum: 0,
        }
    }

    fn record(&mut self, v: u64) {
        self.h.saturating_record(v.max(1));
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.sum += v as u128;
    }

    fn hist(&self) -> Hist {
        let buckets: Vec<[u64; 2]> = self
            .h
            .iter_recorded()
            .map(|b| [self.h.highest_equivalent(b.value_iterated_to()), b.count_at_value()])
            .collect();
        Hist::from_buckets(buckets, self.min, self.max, self.sum)
    }
}

/// What a subscriber knows of one device.
#[derive(Clone, Default)]
struct DeviceRx {
    received: u32,
    duplicated: u32,
    reordered: u32,
    highest: Option<u32>,
    seen: Vec<u64>,
}

impl DeviceRx {
    /// Count a delivery of `seq`; true when it is new.
    fn add(&mut self, seq: u32) -> bool {
        let (w, b) = ((seq / 64) as usize, seq % 64);
        if self.seen.len() <= w {
            self.seen.resize(w + 1, 0);
        }
        if self.seen[w] & (1 << b) != 0 {
            self.duplicated += 1;
            return false;
        }
        self.seen[w] |= 1 << b;
        if self.highest.is_some_and(|h| seq < h) {
            self.reordered += 1;
        }
        self.highest = Some(self.highest.map_or(seq, |h| h.max(seq)));
        self.received += 1;
        true
    }
}

/// State shared by the tasks of one run.
struct Shared {
    /// When the schedules start (set before any device publishes).
    t0: std::sync::OnceLock<Instant>,
    sent: AtomicU64,
    send_failed: AtomicU64,
    acked: AtomicU64,
    received: AtomicU64,
    unexpected: AtomicU64,
    mqtt_bytes: AtomicU64,
    app_bytes: AtomicU64,
    publishing_done: AtomicBool,
    stop: AtomicBool,
    lag: Mutex<Rec>,
    errors: Mutex<Vec<String>>,
    disconnected: AtomicU64,
}

impl Shared {
    fn error(&self, e: String) {
        if let Ok(mut v) = self.errors.lock() {
            if v.len() < 10 && !v.contains(&e) {
                v.push(e);
            }
        }
    }
}

/// Per-subscriber results.
struct SubResult {
    devices: Vec<DeviceRx>,
    latency: Rec,
}

/// Progress lines go here (stderr when the caller wants them).
pub type Progress<'a> = &'a dyn Fn(&str);

/// One fleet run: connect this shard's devices and subscribers, publish for the duration,
/// drain, account. `format` and `source` label the payloads.
#[allow(clippy::too_many_arguments)]
pub fn run(
    broker: &FleetBroker,
    cfg: &FleetConfig,
    format: &str,
    source: &str,
    payloads: &Payloads,
    probes: &ProbeLog,
    progress: Progress,
) -> Result<FleetRun, MqttError> {
    cfg.check()?;
    let ep = broker.endpoint();
    let range = cfg.device_range();
    let devices_here = range.end - range.start;
    let (rt, clocks) = cpu::runtime(cfg.worker_threads)?;
    let settings = ClientSettings {
        tcp_nodelay: true,
        channel_capacity: 4,
        inflight: 4,
        max_packet_size: (payloads.max_len() + FLEET_HEADER_LEN + 1024).max(4096),
        connect_timeout: Duration::from_millis(cfg.connect_timeout_ms),
    };
    let topic_root = format!("wbf/{}/{}/{}", cfg.run_id, format, cfg.shard_index);
    let shared = Arc::new(Shared {
        t0: std::sync::OnceLock::new(),
        sent: AtomicU64::new(0),
        send_failed: AtomicU64::new(0),
        acked: AtomicU64::new(0),
        received: AtomicU64::new(0),
        unexpected: AtomicU64::new(0),
        mqtt_bytes: AtomicU64::new(0),
        app_bytes: AtomicU64::new(0),
        publishing_done: AtomicBool::new(false),
        stop: AtomicBool::new(false),
        lag: Mutex::new(Rec::new()),
        errors: Mutex::new(Vec::new()),
        disconnected: AtomicU64::new(0),
    });

    // 1. Subscribers (each with its group's filter; subscriber 0 also carries the clock probes).
    let mut subs = Vec::new();
    for k in 0..cfg.subscribers {
        let id = format!("wb-{}-s{}-{}-{k}", cfg.run_id, cfg.shard_index, short(format));
        let (client, mut el) = rt.block_on(settings.connect(&ep, &id))?;
        let filter = format!("{topic_root}/{k}/+");
        rt.block_on(settings.subscribe(&ep, &client, &mut el, &filter, cfg.qos))?;
        let clock = format!("wbf/{}/clock", cfg.run_id);
        if k == 0 {
            rt.block_on(settings.subscribe(&ep, &client, &mut el, &clock, Qos::AtMostOnce))?;
        }
        subs.push(rt.spawn(subscriber(el, Arc::clone(&shared), range.clone(), probes.clone())));
        if k == 0 {
            rt.spawn(prober(client, clock, cfg.shard_index, Arc::clone(&shared)));
        } else {
            // Keep the handle alive until the run ends (dropping it would end the event loop).
            let s = Arc::clone(&shared);
            rt.spawn(async move {
                while !s.stop.load(Ordering::Relaxed) {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                let _ = client.try_disconnect();
            });
        }
    }

    // 2. Devices connect, paced and bounded.
    progress(&format!("fleet {format}: connecting {devices_here} devices to {}", ep.url));
    let overflows0 = listen_overflows();
    let connect_start = Instant::now();
    let setup = Arc::new(Mutex::new(Rec::new()));
    let first_errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let failed = Arc::new(AtomicU64::new(0));
    let retries = Arc::new(AtomicU64::new(0));
    let clients: Vec<Option<(u64, AsyncClient, EventLoop)>> = rt.block_on(async {
        let sem = Arc::new(Semaphore::new(cfg.connect_concurrency));
        let gap = Duration::from_secs_f64(1.0 / cfg.connect_rate);
        let mut handles = Vec::with_capacity(devices_here as usize);
        let mut next = tokio::time::Instant::now();
        for d in range.clone() {
            tokio::time::sleep_until(next).await;
            next += gap;
            let permit = Arc::clone(&sem).acquire_owned().await.expect("semaphore open");
            let (settings, ep, setup, first_errors, failed) = (
                settings.clone(),
                broker.device_endpoint(d),
                Arc::clone(&setup),
                Arc::clone(&first_errors),
                Arc::clone(&failed),
            );
            let id = format!("wb-{}-{}-{d}", cfg.run_id, short(format));
            let retries = Arc::clone(&retries);
            handles.push(tokio::spawn(async move {
                let t = Instant::now();
                // As a device would: try again (after 0.5 s, then 1 s) when the broker does not
                // answer; the setup time counts from the first attempt.
                // Each attempt has its own client id: a broker that takes the abandoned attempt's
                // CONNECT late must not take over (close) the live connection.
                let mut r = settings.connect(&ep, &id).await;
                for (attempt, backoff) in [500, 1000].into_iter().enumerate() {
                    if r.is_ok() {
                        break;
                    }
                    retries.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(backoff)).await;
                    r = settings.connect(&ep, &format!("{id}-r{}", attempt + 1)).await;
                }
                drop(permit);
                match r {
                    Ok((c, el)) => {
                        if let Ok(mut s) = setup.lock() {
                            s.record(t.elapsed().as_micros() as u64);
                        }
                        Some((d, c, el))
                    }
                    Err(e) => {
                        failed.fetch_add(1, Ordering::Relaxed);
                        if let Ok(mut v) = first_errors.lock() {
                            let m = e.to_string();
                            if v.len() < 5 && !v.contains(&m) {
                                v.push(m);
                            }
                        }
                        None
                    }
                }
            }));
        }
        let mut out = Vec::with_capacity(handles.len());
        for h in handles {
            out.push(h.await.ok().flatten());
        }
        out
    });
    let connect_phase = connect_start.elapsed().as_secs_f64();
    let overflows = match (broker.pid(), overflows0, listen_overflows()) {
        (Some(_), Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    let connected = clients.iter().filter(|c| c.is_some()).count() as u64;
    let connected_ids: Vec<bool> = clients.iter().map(|c| c.is_some()).collect();
    progress(&format!(
        "fleet {format}: {connected} of {devices_here} devices connected in {connect_phase:.1} s; publishing for {:.0} s",
        cfg.duration_ms as f64 / 1e3
    ));

    // 3. Publish: every device on its schedule from t0.
    let cpu_start = cpu::CpuStart::take(&clocks);
    let broker_cpu0 = broker.pid().and_then(proc_cpu_s);
    let t0 = Instant::now() + Duration::from_millis(50);
    let t0_tokio = tokio::time::Instant::from_std(t0);
    let _ = shared.t0.set(t0);
    // Messages each device's schedule calls for (its sends, and what its subscriber must see).
    let due: Vec<u64> = range.clone().map(|d| schedule(cfg, d).count() as u64).collect();
    let mut scheduled = 0u64;
    let items: Arc<Vec<Vec<u8>>> = Arc::new((0..payloads.len()).map(|i| payloads.get(i as u64).to_vec()).collect());
    let mut device_tasks = Vec::with_capacity(connected as usize);
    for (d, client, el) in clients.into_iter().flatten() {
        scheduled += due[(d - range.start) as usize];
        let topic = format!("{topic_root}/{}/{d}", d % cfg.subscribers as u64);
        rt.spawn(drive(el, Arc::clone(&shared), d));
        device_tasks.push(rt.spawn(device(
            client,
            topic,
            d,
            cfg.clone(),
            t0,
            t0_tokio,
            Arc::clone(&items),
            Arc::clone(&shared),
        )));
    }
    // Wait out the schedule, then drain.
    std::thread::sleep((t0 + Duration::from_millis(cfg.duration_ms)).saturating_duration_since(Instant::now()));
    let device_clients: Vec<AsyncClient> = rt.block_on(async {
        let mut v = Vec::with_capacity(device_tasks.len());
        for t in device_tasks {
            if let Ok(c) = t.await {
                v.push(c);
            }
        }
        v
    });
    shared.publishing_done.store(true, Ordering::Relaxed);
    let sent = shared.sent.load(Ordering::Relaxed);
    let drain_deadline = Instant::now() + Duration::from_millis(cfg.drain_ms);
    let mut last = (u64::MAX, u64::MAX);
    let mut quiet_since = Instant::now();
    while Instant::now() < drain_deadline {
        let (rx, ack) = (shared.received.load(Ordering::Relaxed), shared.acked.load(Ordering::Relaxed));
        if rx >= sent && (cfg.qos == Qos::AtMostOnce || ack >= sent) {
            break;
        }
        if (rx, ack) != last {
            last = (rx, ack);
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() > Duration::from_millis(cfg.drain_ms.min(2_000)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let end = Instant::now();
    let cpu_usage = cpu_start.finish(&clocks);
    let broker_cpu1 = broker.pid().and_then(proc_cpu_s);
    let (broker_rss, broker_peak) = broker.pid().map(proc_rss).unwrap_or((None, None));
    let process_rss = proc_rss(std::process::id()).0.unwrap_or(0);

    // 4. Stop: disconnect everything, collect the subscribers' accounts.
    for c in &device_clients {
        let _ = c.try_disconnect();
    }
    shared.stop.store(true, Ordering::Relaxed);
    let results: Vec<SubResult> = rt.block_on(async {
        let mut v = Vec::new();
        for s in subs {
            if let Ok(r) = s.await {
                v.push(r);
            }
        }
        v
    });
    rt.shutdown_timeout(Duration::from_secs(2));

    // 5. Account.
    let n = devices_here as usize;
    let mut per = vec![DeviceRx::default(); n];
    let mut latency = Rec::new();
    for r in results {
        for (i, dv) in r.devices.into_iter().enumerate() {
            if dv.received > 0 || dv.duplicated > 0 {
                per[i].received += dv.received;
                per[i].duplicated += dv.duplicated;
                per[i].reordered += dv.reordered;
            }
        }
        latency.h.add(&r.latency.h).ok();
        latency.min = latency.min.min(r.latency.min);
        latency.max = latency.max.max(r.latency.max);
        latency.sum += r.latency.sum;
    }
    // Per device, loss is what its schedule called for minus what arrived (devices that never
    // connected are left out: they sent nothing).
    let received: u64 = per.iter().map(|p| p.received as u64).sum();
    let mut worst: Vec<[u64; 2]> = Vec::new();
    let mut with_loss = 0;
    for (i, d) in range.clone().enumerate() {
        if !connected_ids[i] {
            continue;
        }
        let got = per[i].received as u64;
        if got < due[i] {
            with_loss += 1;
            worst.push([d, due[i] - got]);
        }
    }
    worst.sort_by(|a, b| b[1].cmp(&a[1]).then(a[0].cmp(&b[0])));
    worst.truncate(10);
    let sent = shared.sent.load(Ordering::Relaxed);
    let acked = shared.acked.load(Ordering::Relaxed);
    let duration_s = cfg.duration_ms as f64 / 1e3;
    let per_s = |x: f64| x / duration_s;
    let mqtt_bytes = shared.mqtt_bytes.load(Ordering::Relaxed) as f64;
    let app_bytes = shared.app_bytes.load(Ordering::Relaxed) as f64;
    let wire = mqtt_bytes + sent as f64 * TCP_IP_OVERHEAD as f64;
    let down = if cfg.qos == Qos::AtLeastOnce { acked as f64 * (4 + TCP_IP_OVERHEAD) as f64 } else { 0.0 };
    let lag = shared.lag.lock().map(|l| l.hist()).unwrap_or_default();
    let latency = latency.hist();
    let wall = (end - t0).as_secs_f64().max(1e-9);
    let broker_cpu = match (broker_cpu0, broker_cpu1) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let broker_cores = broker_cpu.map(|c| c / wall);
    let usable = (cfg.worker_threads.min(cpu_usage.machine_cores)) as f64;
    let lag_p99_ms = lag.p99.map_or(0.0, |q| q.value as f64 / 1e3);
    let (bottleneck, reason) = if cpu_usage.harness_cores >= 0.9 * usable {
        ("harness", format!("the harness kept {:.2} of its {usable} cores busy", cpu_usage.harness_cores))
    } else if broker_cores.is_some_and(|c| c >= 0.9) {
        ("broker", format!("the broker used {:.2} cores (its event loop is one thread)", broker_cores.unwrap_or(0.0)))
    } else if lag_p99_ms > cfg.period_ms as f64 / 10.0 {
        ("harness", format!("sends ran late: p99 {lag_p99_ms:.1} ms behind schedule"))
    } else {
        (
            "none",
            format!(
                "schedule kept (send lag p99 {lag_p99_ms:.2} ms); harness {:.2} cores{}",
                cpu_usage.harness_cores,
                broker_cores.map(|c| format!(", broker {c:.2} cores")).unwrap_or_default()
            ),
        )
    };
    let lost = sent.saturating_sub(received);
    let mut warnings = Vec::new();
    let sf = shared.send_failed.load(Ordering::Relaxed);
    if sf > 0 {
        warnings
            .push(format!("{sf} messages could not be handed to their client (its request queue was full or closed)"));
    }
    let dis = shared.disconnected.load(Ordering::Relaxed);
    if dis > 0 {
        warnings.push(format!("{dis} devices lost their connection during the run"));
    }
    let mut errors = shared.errors.lock().map(|v| v.clone()).unwrap_or_default();
    if connected < devices_here {
        errors.insert(0, format!("{} of {devices_here} devices could not connect", devices_here - connected));
    }
    let lens: Vec<u64> = (0..payloads.len()).map(|i| payloads.get(i as u64).len() as u64).collect();
    let (kind, name) = broker.describe();
    Ok(FleetRun {
        format: format.to_string(),
        devices: cfg.devices,
        devices_here,
        broker_kind: kind,
        broker: name,
        qos: cfg.qos.level(),
        period_ms: cfg.period_ms,
        jitter: cfg.jitter,
        burst: cfg.burst,
        duration_s,
        subscribers: cfg.subscribers,
        payload: PayloadStats {
            source: source.to_string(),
            distinct: lens.len() as u64,
            min_bytes: lens.iter().copied().min().unwrap_or(0),
            max_bytes: lens.iter().copied().max().unwrap_or(0),
            mean_bytes: lens.iter().sum::<u64>() as f64 / lens.len().max(1) as f64,
            header_bytes: FLEET_HEADER_LEN as u64,
        },
        connect: ConnectStats {
            attempted: devices_here,
            connected,
            failed: failed.load(Ordering::Relaxed),
            retries: retries.load(Ordering::Relaxed),
            rate_per_s: if connect_phase > 0.0 { connected as f64 / connect_phase } else { 0.0 },
            phase_s: connect_phase,
            setup_us: setup.lock().map(|s| s.hist()).unwrap_or_default(),
            first_errors: first_errors.lock().map(|v| v.clone()).unwrap_or_default(),
            listen_overflows: overflows,
        },
        delivery: FleetDelivery {
            scheduled,
            sent,
            acked: (cfg.qos == Qos::AtLeastOnce).then_some(acked),
            received,
            lost,
            duplicated: per.iter().map(|p| p.duplicated as u64).sum(),
            reordered: per.iter().map(|p| p.reordered as u64).sum(),
            unexpected: shared.unexpected.load(Ordering::Relaxed),
            delivery_ratio: if sent == 0 { 0.0 } else { received as f64 / sent as f64 },
            devices_with_loss: with_loss,
            devices_with_duplicates: per.iter().filter(|p| p.duplicated > 0).count() as u64,
            devices_with_reordering: per.iter().filter(|p| p.reordered > 0).count() as u64,
            worst_devices: worst,
        },
        traffic: Traffic {
            window_s: duration_s,
            msgs_per_s: per_s(received as f64),
            app_bytes_per_s: per_s(app_bytes),
            mqtt_bytes_per_s: per_s(mqtt_bytes),
            wire_bytes_per_s: per_s(wire),
            downlink_wire_bytes_per_s: per_s(down),
            mqtt_bytes_per_msg: if sent > 0 { mqtt_bytes / sent as f64 } else { 0.0 },
            wire_bytes_per_msg: if sent > 0 { wire / sent as f64 } else { 0.0 },
        },
        latency_us: latency,
        send_lag_us: lag,
        cpu: FleetCpu {
            wall_s: wall,
            machine_cores: cpu_usage.machine_cores as u32,
            harness_cpu_s: cpu_usage.harness_cpu_seconds,
            harness_cores: cpu_usage.harness_cpu_seconds / wall,
            harness_threads: cfg.worker_threads as u32,
            broker_cpu_s: broker_cpu,
            broker_cores,
            broker_rss_bytes: broker_rss,
            broker_rss_peak_bytes: broker_peak,
            process_rss_bytes: process_rss,
            bottleneck: bottleneck.into(),
            bottleneck_reason: reason,
        },
        errors,
        warnings,
    })
}

/// A format id as it goes into client ids (short, no separators).
fn short(format: &str) -> String {
    format.chars().filter(|c| c.is_ascii_alphanumeric()).take(12).collect()
}

/// Bytes of an MQTT 3.1.1 PUBLISH packet with this topic and payload.
pub fn publish_len(topic: usize, payload: usize, qos: Qos) -> u64 {
    let rem = 2 + topic + if qos == Qos::AtLeastOnce { 2 } else { 0 } + payload;
    let varint = match rem {
        0..=127 => 1,
        128..=16_383 => 2,
        16_384..=2_097_151 => 3,
        _ => 4,
    };
    (1 + varint + rem) as u64
}

#[allow(clippy::too_many_arguments)]
async fn device(
    client: AsyncClient,
    topic: String,
    d: u64,
    cfg: FleetConfig,
    t0: Instant,
    t0_tokio: tokio::time::Instant,
    items: Arc<Vec<Vec<u8>>>,
    s: Arc<Shared>,
) -> AsyncClient {
    for (k, at) in schedule(&cfg, d).enumerate() {
        tokio::time::sleep_until(t0_tokio + Duration::from_nanos(at)).await;
        let lag = Instant::now().saturating_duration_since(t0 + Duration::from_nanos(at));
        let body = &items[(d as usize + k) % items.len()];
        let mut msg = Vec::with_capacity(FLEET_HEADER_LEN + body.len());
        msg.extend_from_slice(&(d as u32).to_be_bytes());
        msg.extend_from_slice(&(k as u32).to_be_bytes());
        msg.extend_from_slice(&at.to_be_bytes());
        msg.extend_from_slice(body);
        let len = publish_len(topic.len(), msg.len(), cfg.qos);
        match client.try_publish(topic.clone(), cfg.qos.rumqttc(), false, msg) {
            Ok(()) => {
                s.sent.fetch_add(1, Ordering::Relaxed);
                s.mqtt_bytes.fetch_add(len, Ordering::Relaxed);
                s.app_bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
            }
            Err(e) => {
                s.send_failed.fetch_add(1, Ordering::Relaxed);
                s.error(format!("device {d}: publish refused by its client: {e}"));
            }
        }
        if let Ok(mut l) = s.lag.lock() {
            l.record(lag.as_micros() as u64);
        }
    }
    // The caller keeps the client (and so the event loop's channel) until the run stops.
    client
}

/// A device's event loop: PUBACKs counted; a lost connection ends it (no reconnection: what
/// it would have sent counts as lost).
async fn drive(mut el: EventLoop, s: Arc<Shared>, d: u64) {
    loop {
        let ev = tokio::select! {
            ev = el.poll() => ev,
            _ = tokio::time::sleep(Duration::from_millis(200)) => {
                if s.stop.load(Ordering::Relaxed) { return } else { continue }
            }
        };
        match ev {
            Ok(Event::Incoming(Packet::PubAck(_))) => {
                s.acked.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Event::Outgoing(Outgoing::Disconnect)) => return,
            Ok(_) => {}
            Err(e) => {
                if !s.stop.load(Ordering::Relaxed) {
                    s.disconnected.fetch_add(1, Ordering::Relaxed);
                    s.error(format!("device {d}: connection lost: {}", describe_conn(&e)));
                }
                return;
            }
        }
    }
}

async fn subscriber(mut el: EventLoop, s: Arc<Shared>, range: std::ops::Range<u64>, probes: ProbeLog) -> SubResult {
    let mut devices = vec![DeviceRx::default(); (range.end - range.start) as usize];
    let mut latency = Rec::new();
    loop {
        let ev = tokio::select! {
            ev = el.poll() => ev,
            _ = tokio::time::sleep(Duration::from_millis(100)) => {
                if s.stop.load(Ordering::Relaxed) { break } else { continue }
            }
        };
        match ev {
            Ok(Event::Incoming(Packet::Publish(p))) => {
                let now = Instant::now();
                if p.topic.ends_with("/clock") {
                    if p.payload.len() == 12 {
                        let from = u32::from_be_bytes(p.payload[0..4].try_into().unwrap_or([0; 4]));
                        let sent = u64::from_be_bytes(p.payload[4..12].try_into().unwrap_or([0; 8]));
                        probes.add(from, (unix_ns() as i64 - sent as i64) / 1000);
                    }
                    continue;
                }
                let b = &p.payload;
                if b.len() < FLEET_HEADER_LEN {
                    s.unexpected.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                let d = u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as u64;
                let seq = u32::from_be_bytes([b[4], b[5], b[6], b[7]]);
                let at = u64::from_be_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
                if !range.contains(&d) {
                    s.unexpected.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                if devices[(d - range.start) as usize].add(seq) {
                    s.received.fetch_add(1, Ordering::Relaxed);
                    if let Some(t0) = s.t0.get() {
                        latency
                            .record(now.saturating_duration_since(*t0 + Duration::from_nanos(at)).as_micros() as u64);
                    }
                }
            }
            Ok(_) => {}
            Err(e) => {
                if !s.stop.load(Ordering::Relaxed) {
                    s.error(format!("subscriber: connection lost: {}", describe_conn(&e)));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    if s.stop.load(Ordering::Relaxed) {
                        break;
                    }
                    continue;
                }
                break;
            }
        }
    }
    SubResult { devices, latency }
}

/// Every second, subscriber 0 publishes this shard's wall clock on the clock topic.
async fn prober(client: AsyncClient, topic: String, shard: u32, s: Arc<Shared>) {
    while !s.stop.load(Ordering::Relaxed) {
        let mut b = Vec::with_capacity(12);
        b.extend_from_slice(&shard.to_be_bytes());
        b.extend_from_slice(&unix_ns().to_be_bytes());
        let _ = client.try_publish(topic.clone(), rumqttc::QoS::AtMostOnce, false, b);
        tokio::time::sleep(Duration::from_millis(1000)).await;
    }
    let _ = client.try_disconnect();
}

/// The machine's `TcpExt: ListenOverflows` counter (`/proc/net/netstat`).
fn listen_overflows() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/net/netstat").ok()?;
    let mut lines = text.lines().filter(|l| l.starts_with("TcpExt:"));
    let (names, values) = (lines.next()?, lines.next()?);
    let i = names.split_whitespace().position(|n| n == "ListenOverflows")?;
    values.split_whitespace().nth(i)?.parse().ok()
}

/// CPU seconds (user + system) of a process, from /proc.
fn proc_cpu_s(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    // After the comm: state is field 3, utime 14, stime 15 (1-based in proc(5)).
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    Some(ticks / if hz > 0.0 { hz } else { 100.0 })
}

/// Resident and peak resident bytes of a process, from /proc.
fn proc_rss(pid: u32) -> (Option<u64>, Option<u64>) {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { return (None, None) };
    let kb = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map(|k| k * 1024)
    };
    (kb("VmRSS:"), kb("VmHWM:"))
}

#[cfg(test)]
mod tests;
