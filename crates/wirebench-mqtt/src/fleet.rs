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
//!
//! One run and its phases are in `run.rs`; the `[fleet]` part of a study (its options, their
//! checks, the runs of every fleet size and format) is [`part`].

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use wirebench_core::sections::fleet::{ClockProbe, FdLimit};

use crate::client::Qos;
use crate::endpoint::{Endpoint, MqttBroker};
use crate::error::MqttError;

pub mod part;
mod run;

pub use run::{run, Progress};

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

#[cfg(test)]
mod tests;
