//! The userspace link emulator: a TCP or UDP proxy placed in the path (on loopback, or inside
//! a lab namespace) that gives every message what TBF cannot (spec §1.6, §3):
//!
//! - **serialization delay** at the link rate, per packet: `(payload + overhead) · 8 / rate`,
//!   through one serializer per direction shared by all connections, so back-to-back packets
//!   queue behind each other (`start = max(arrival, link_free_at)`);
//! - **propagation delay** and **jitter** (uniform in ±jitter, seeded), added after
//!   serialization; delivery stays FIFO (a packet never overtakes the one before it, as in
//!   toxiproxy's latency toxic);
//! - **loss** (seeded, i.i.d.): UDP datagrams are dropped. *TCP: not applicable* — the proxy
//!   terminates TCP on both sides, so a dropped segment would simply be missing bytes; real TCP
//!   would retransmit it, which shows up as delay. Use the lab's nftables loss
//!   ([`crate::lab`]) for loss under real TCP; a TCP proxy with `loss > 0` is refused;
//! - **MTU slicing**: TCP data is cut into segments of at most `mtu − 52` bytes (IPv4 20 +
//!   TCP 20 + timestamps 12: 1,448 B at MTU 1,500), each paying the per-packet overhead; a UDP
//!   datagram larger than `mtu − 28` counts as ⌈len / (mtu − 28)⌉ IP fragments (overhead each;
//!   lost if any fragment is lost) and is delivered whole.
//!
//! The per-packet `overhead_bytes` default to what the kernel would put on a veth for the same
//! payload (spec §1.7): 66 B per TCP segment (Ethernet 14 + IPv4 20 + TCP 20 + TS 12) and 42 B
//! per UDP datagram (14 + 20 + 8). Example: a 400 B message on 1 Mbit/s serializes in
//! (400 + 66) · 8 / 1e6 = 3.728 ms per direction.
//!
//! Timing runs on OS threads with `nanosleep` (timer slack set to 1 ns) plus a short spin
//! before each deadline, so delays are accurate to tens of microseconds, not tokio's 1 ms.
//! Every socket the proxy owns has `TCP_NODELAY`. Each proxy is bounded: at most
//! `max_connections` (TCP) or `max_flows` (UDP), a queue limit per direction, and it stops when
//! dropped.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::profile::check_rate;
use crate::NetError;
use wirebench_measure::rng::SplitMix64;

/// Per-packet bytes a TCP/IPv4 segment carries on a veth besides its payload (spec §1.7).
pub const TCP_OVERHEAD: usize = 66;
/// Per-packet bytes of a UDP/IPv4 datagram on Ethernet (14 + 20 + 8).
pub const UDP_OVERHEAD: usize = 42;

/// One direction of the emulated link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkParams {
    /// Link rate in bit/s; `None` = no serialization delay.
    pub rate_bps: Option<u64>,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Uniform jitter: each packet's delay is `delay ± U(jitter)` (never below zero).
    pub jitter: Duration,
    /// I.i.d. loss probability, 0.0–1.0 (UDP only).
    pub loss: f64,
    /// IP MTU in bytes (≥ 128).
    pub mtu: usize,
    /// Per-packet overhead counted for serialization; `None` = 66 (TCP) or 42 (UDP).
    pub overhead_bytes: Option<usize>,
}

impl Default for LinkParams {
    fn default() -> Self {
        LinkParams {
            rate_bps: None,
            delay: Duration::ZERO,
            jitter: Duration::ZERO,
            loss: 0.0,
            mtu: 1500,
            overhead_bytes: None,
        }
    }
}

impl LinkParams {
    /// A link of `rate_bps`, nothing else.
    pub fn rate(rate_bps: u64) -> LinkParams {
        LinkParams { rate_bps: Some(rate_bps), ..Default::default() }
    }

    fn check(&self, dir: &str) -> Result<(), NetError> {
        if let Some(r) = self.rate_bps {
            check_rate(r as f64, &format!("{r} bit/s ({dir})"))?;
        }
        if !(0.0..=1.0).contains(&self.loss) || self.loss.is_nan() {
            return Err(NetError::invalid("loss", format!("{} ({dir}) is not a probability in 0..=1", self.loss)));
        }
        if self.mtu < 128 || self.mtu > 65_535 {
            return Err(NetError::invalid("mtu", format!("{} ({dir}) is outside 128..=65535", self.mtu)));
        }
        if self.delay > Duration::from_secs(60) || self.jitter > Duration::from_secs(60) {
            return Err(NetError::invalid("delay", format!("delay/jitter above 60 s ({dir})")));
        }
        Ok(())
    }

    /// Serialization time of `wire_bytes` (payload + overhead) at this rate.
    pub fn serialization(&self, wire_bytes: usize) -> Duration {
        match self.rate_bps {
            Some(r) => Duration::from_nanos((wire_bytes as u128 * 8 * 1_000_000_000 / r as u128) as u64),
            None => Duration::ZERO,
        }
    }
}

/// A whole emulated link: both directions and the bounds of the proxy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmuConfig {
    /// Client → upstream.
    pub up: LinkParams,
    /// Upstream → client.
    pub down: LinkParams,
    /// Seed of the loss and jitter decisions (reported in results).
    pub seed: u64,
    /// Packets queued per direction before back-pressure (TCP) or tail drop (UDP).
    pub queue_limit: usize,
    /// TCP connections served at once.
    pub max_connections: usize,
    /// UDP client addresses served at once.
    pub max_flows: usize,
    /// Timeout for connecting to the upstream.
    pub connect_timeout: Duration,
}

impl Default for EmuConfig {
    fn default() -> Self {
        EmuConfig {
            up: LinkParams::default(),
            down: LinkParams::default(),
            seed: 1,
            queue_limit: 4096,
            max_connections: 256,
            max_flows: 64,
            connect_timeout: Duration::from_secs(5),
        }
    }
}

impl EmuConfig {
    /// The same parameters both ways.
    pub fn symmetric(p: LinkParams) -> EmuConfig {
        EmuConfig { up: p.clone(), down: p, ..Default::default() }
    }
}

pub use wirebench_core::sections::net::{DirStats, EmuStats};

#[derive(Default)]
struct DirCounters {
    packets_in: AtomicU64,
    delivered: AtomicU64,
    dropped_loss: AtomicU64,
    dropped_queue: AtomicU64,
    payload: AtomicU64,
    wire: AtomicU64,
}

impl DirCounters {
    fn snapshot(&self) -> DirStats {
        DirStats {
            packets_in: self.packets_in.load(Ordering::Relaxed),
            packets_delivered: self.delivered.load(Ordering::Relaxed),
            dropped_loss: self.dropped_loss.load(Ordering::Relaxed),
            dropped_queue: self.dropped_queue.load(Ordering::Relaxed),
            payload_bytes_delivered: self.payload.load(Ordering::Relaxed),
            wire_bytes: self.wire.load(Ordering::Relaxed),
        }
    }
}

/// One direction's shared state: the serializer clock and the random stream.
struct Direction {
    params: LinkParams,
    overhead: usize,
    state: Mutex<DirState>,
    counters: DirCounters,
}

struct DirState {
    link_free_at: Instant,
    last_delivery: Instant,
    rng: SplitMix64,
}

impl Direction {
    fn new(params: LinkParams, default_overhead: usize, seed: u64) -> Direction {
        let now = Instant::now();
        Direction {
            overhead: params.overhead_bytes.unwrap_or(default_overhead),
            params,
            state: Mutex::new(DirState { link_free_at: now, last_delivery: now, rng: SplitMix64::new(seed) }),
            counters: DirCounters::default(),
        }
    }

    /// Schedule `packets` wire packets (sizes in payload bytes) that arrived at `arrival`;
    /// returns the delivery time of the last one, or `None` when loss hit one of them.
    fn schedule(&self, arrival: Instant, payload_sizes: &[usize], lossy: bool) -> Option<Vec<Instant>> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let p = &self.params;
        self.counters.packets_in.fetch_add(payload_sizes.len() as u64, Ordering::Relaxed);
        if lossy && p.loss > 0.0 {
            let mut lost = false;
            for _ in payload_sizes {
                lost |= st.rng.chance(p.loss);
            }
            if lost {
                self.counters.dropped_loss.fetch_add(1, Ordering::Relaxed);
                return None;
            }
        }
        let mut out = Vec::with_capacity(payload_sizes.len());
        for &len in payload_sizes {
            let wire = len + self.overhead;
            self.counters.wire.fetch_add(wire as u64, Ordering::Relaxed);
            let start = st.link_free_at.max(arrival);
            st.link_free_at = start + p.serialization(wire);
            let mut prop = p.delay.as_nanos() as f64;
            if !p.jitter.is_zero() {
                prop += st.rng.symmetric() * p.jitter.as_nanos() as f64;
            }
            let deliver = (st.link_free_at + Duration::from_nanos(prop.max(0.0) as u64)).max(st.last_delivery);
            st.last_delivery = deliver;
            out.push(deliver);
        }
        Some(out)
    }
}

/// Sleep until `deadline` precisely: nanosleep to ~80 µs before it, then spin.
pub(crate) fn sleep_until(deadline: Instant) {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        let rem = deadline - now;
        if rem > Duration::from_micros(150) {
            std::thread::sleep(rem - Duration::from_micros(80));
        } else {
            std::hint::spin_loop();
            std::thread::yield_now();
        }
    }
}

/// Make this thread's sleeps precise (Linux timer slack 1 ns instead of 50 µs).
pub(crate) fn precise_timers() {
    // SAFETY: PR_SET_TIMERSLACK with a plain integer argument only affects this thread.
    unsafe {
        libc::prctl(
            libc::PR_SET_TIMERSLACK,
            1 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        );
    }
}

const POLL: Duration = Duration::from_millis(20);

/// A running proxy. Dropping it stops every thread and closes every socket.
pub struct Emulator {
    local: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Arc<Mutex<Vec<JoinHandle<()>>>>,
    up: Arc<Direction>,
    down: Arc<Direction>,
    connections: Arc<AtomicU64>,
    refused: Arc<AtomicU64>,
    kind: &'static str,
}

impl std::fmt::Debug for Emulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Emulator({} on {})", self.kind, self.local)
    }
}

impl Emulator {
    /// The address clients connect (TCP) or send (UDP) to.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    pub fn stats(&self) -> EmuStats {
        EmuStats {
            up: self.up.counters.snapshot(),
            down: self.down.counters.snapshot(),
            connections: self.connections.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
        }
    }

    /// Stop and return the final counters.
    pub fn stop(self) -> EmuStats {
        let s = self.stats();
        drop(self);
        s
    }

    /// A TCP proxy on `listen` (port 0 = any) forwarding to `upstream` through the link.
    pub fn tcp(listen: SocketAddr, upstream: SocketAddr, cfg: EmuConfig) -> Result<Emulator, NetError> {
        cfg.up.check("up")?;
        cfg.down.check("down")?;
        if cfg.up.loss > 0.0 || cfg.down.loss > 0.0 {
            return Err(NetError::invalid(
                "loss",
                "a TCP proxy cannot emulate loss (TCP would retransmit what the link drops); use the UDP proxy or the lab's nftables loss",
            ));
        }
        let listener =
            TcpListener::bind(listen).map_err(|e| NetError::io(format!("binding the emulator on {listen}"), e))?;
        listener.set_nonblocking(true).map_err(|e| NetError::io("listener nonblocking", e))?;
        let local = listener.local_addr().map_err(|e| NetError::io("listener address", e))?;
        let emu = Emulator::parts(local, &cfg, TCP_OVERHEAD, "tcp");
        let (stop, threads, up, down) = (emu.stop.clone(), emu.threads.clone(), emu.up.clone(), emu.down.clone());
        let (conns, refused) = (emu.connections.clone(), emu.refused.clone());
        let live = Arc::new(AtomicUsize::new(0));
        let accept = std::thread::Builder::new()
            .name("wb-emu-accept".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match listener.accept() {
                        Ok((client, _)) => {
                            if live.load(Ordering::Relaxed) >= cfg.max_connections {
                                refused.fetch_add(1, Ordering::Relaxed);
                                continue; // dropping `client` closes it
                            }
                            let server = match TcpStream::connect_timeout(&upstream, cfg.connect_timeout) {
                                Ok(s) => s,
                                Err(_) => {
                                    refused.fetch_add(1, Ordering::Relaxed);
                                    continue;
                                }
                            };
                            conns.fetch_add(1, Ordering::Relaxed);
                            live.fetch_add(1, Ordering::Relaxed);
                            let hs = tcp_connection(client, server, &up, &down, &stop, &cfg, &live);
                            if let Ok(mut t) = threads.lock() {
                                t.retain(|h| !h.is_finished());
                                t.extend(hs);
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            std::thread::sleep(Duration::from_millis(2))
                        }
                        Err(_) => std::thread::sleep(POLL),
                    }
                }
            })
            .map_err(|e| NetError::io("spawning the emulator", e))?;
        emu.threads.lock().unwrap_or_else(|e| e.into_inner()).push(accept);
        Ok(emu)
    }

    /// A UDP proxy on `listen` forwarding datagrams to `upstream` and replies back.
    pub fn udp(listen: SocketAddr, upstream: SocketAddr, cfg: EmuConfig) -> Result<Emulator, NetError> {
        cfg.up.check("up")?;
        cfg.down.check("down")?;
        let front =
            UdpSocket::bind(listen).map_err(|e| NetError::io(format!("binding the emulator on {listen}"), e))?;
        front.set_read_timeout(Some(POLL)).map_err(|e| NetError::io("udp timeout", e))?;
        set_buffers(&front);
        let local = front.local_addr().map_err(|e| NetError::io("udp address", e))?;
        let front = Arc::new(front);
        let emu = Emulator::parts(local, &cfg, UDP_OVERHEAD, "udp");
        let (stop, threads, up, down) = (emu.stop.clone(), emu.threads.clone(), emu.up.clone(), emu.down.clone());
        let conns = emu.connections.clone();
        let refused = emu.refused.clone();

        // Writers: one per direction, each fed by a bounded queue in delivery order.
        let (up_tx, up_rx) = mpsc::sync_channel::<(Instant, Arc<UdpSocket>, Vec<u8>)>(cfg.queue_limit);
        let (down_tx, down_rx) = mpsc::sync_channel::<(Instant, SocketAddr, Vec<u8>)>(cfg.queue_limit);
        let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new().name(name.into()).spawn(f).map_err(|e| NetError::io("spawning the emulator", e))
        };
        {
            let (stop, up) = (stop.clone(), up.clone());
            let h = spawn(
                "wb-emu-udp-up-w",
                Box::new(move || {
                    precise_timers();
                    while !stop.load(Ordering::Relaxed) {
                        match up_rx.recv_timeout(POLL) {
                            Ok((at, sock, data)) => {
                                sleep_until(at);
                                if sock.send(&data).is_ok() {
                                    up.counters.delivered.fetch_add(1, Ordering::Relaxed);
                                    up.counters.payload.fetch_add(data.len() as u64, Ordering::Relaxed);
                                }
                            }
                            Err(RecvTimeoutError::Timeout) => {}
                            Err(RecvTimeoutError::Disconnected) => return,
                        }
                    }
                }),
            )?;
            threads.lock().unwrap_or_else(|e| e.into_inner()).push(h);
        }
        {
            let (stop, down, front) = (stop.clone(), down.clone(), front.clone());
            let h = spawn(
                "wb-emu-udp-down-w",
                Box::new(move || {
                    precise_timers();
                    while !stop.load(Ordering::Relaxed) {
                        match down_rx.recv_timeout(POLL) {
                            Ok((at, to, data)) => {
                                sleep_until(at);
                                if front.send_to(&data, to).is_ok() {
                                    down.counters.delivered.fetch_add(1, Ordering::Relaxed);
                                    down.counters.payload.fetch_add(data.len() as u64, Ordering::Relaxed);
                                }
                            }
                            Err(RecvTimeoutError::Timeout) => {}
                            Err(RecvTimeoutError::Disconnected) => return,
                        }
                    }
                }),
            )?;
            threads.lock().unwrap_or_else(|e| e.into_inner()).push(h);
        }
        // Front reader: client datagrams → up link; a back socket per client flow.
        let threads2 = threads.clone();
        let h = spawn(
            "wb-emu-udp-front",
            Box::new(move || {
                let mut flows: Vec<(SocketAddr, Arc<UdpSocket>)> = Vec::new();
                let mut buf = vec![0u8; 65_536];
                let frag = cfg.up.mtu - 28;
                while !stop.load(Ordering::Relaxed) {
                    let (n, from) = match front.recv_from(&mut buf) {
                        Ok(x) => x,
                        Err(_) => continue, // timeout: check `stop`
                    };
                    let arrival = Instant::now();
                    let back = match flows.iter().find(|(a, _)| *a == from) {
                        Some((_, s)) => s.clone(),
                        None => {
                            if flows.len() >= cfg.max_flows {
                                refused.fetch_add(1, Ordering::Relaxed);
                                continue;
                            }
                            let bind: SocketAddr =
                                if upstream.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" }.parse().unwrap();
                            let Ok(s) = UdpSocket::bind(bind) else {
                                continue;
                            };
                            if s.connect(upstream).is_err() || s.set_read_timeout(Some(POLL)).is_err() {
                                continue;
                            }
                            set_buffers(&s);
                            let s = Arc::new(s);
                            conns.fetch_add(1, Ordering::Relaxed);
                            flows.push((from, s.clone()));
                            // Back reader: upstream replies → down link → this client.
                            let (stop, down, down_tx, s2) = (stop.clone(), down.clone(), down_tx.clone(), s.clone());
                            let dfrag = cfg.down.mtu - 28;
                            if let Ok(h) = std::thread::Builder::new().name("wb-emu-udp-back".into()).spawn(move || {
                                let mut buf = vec![0u8; 65_536];
                                while !stop.load(Ordering::Relaxed) {
                                    let Ok(n) = s2.recv(&mut buf) else { continue };
                                    let arrival = Instant::now();
                                    let sizes = fragments(n, dfrag);
                                    if let Some(at) = down.schedule(arrival, &sizes, true) {
                                        let at = *at.last().unwrap_or(&arrival);
                                        if let Err(TrySendError::Full(_)) =
                                            down_tx.try_send((at, from, buf[..n].to_vec()))
                                        {
                                            down.counters.dropped_queue.fetch_add(1, Ordering::Relaxed);
                                        }
                                    }
                                }
                            }) {
                                threads2.lock().unwrap_or_else(|e| e.into_inner()).push(h);
                            }
                            s
                        }
                    };
                    let sizes = fragments(n, frag);
                    if let Some(at) = up.schedule(arrival, &sizes, true) {
                        let at = *at.last().unwrap_or(&arrival);
                        if let Err(TrySendError::Full(_)) = up_tx.try_send((at, back, buf[..n].to_vec())) {
                            up.counters.dropped_queue.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            }),
        )?;
        threads.lock().unwrap_or_else(|e| e.into_inner()).push(h);
        Ok(emu)
    }

    fn parts(local: SocketAddr, cfg: &EmuConfig, overhead: usize, kind: &'static str) -> Emulator {
        Emulator {
            local,
            stop: Arc::new(AtomicBool::new(false)),
            threads: Arc::new(Mutex::new(Vec::new())),
            up: Arc::new(Direction::new(cfg.up.clone(), overhead, cfg.seed)),
            down: Arc::new(Direction::new(cfg.down.clone(), overhead, cfg.seed ^ 0x5EED_D0E5_u64)),
            connections: Arc::new(AtomicU64::new(0)),
            refused: Arc::new(AtomicU64::new(0)),
            kind,
        }
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Join until no thread is left (the accept loop may add some while we join).
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let batch: Vec<JoinHandle<()>> =
                std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
            if batch.is_empty() || Instant::now() > deadline {
                break;
            }
            for h in batch {
                let _ = h.join();
            }
        }
    }
}

/// Sizes of the IP fragments of a UDP datagram of `len` bytes with `per` payload bytes each.
fn fragments(len: usize, per: usize) -> Vec<usize> {
    if len <= per {
        return vec![len];
    }
    let full = len / per;
    let mut v = vec![per; full];
    if len > full * per {
        v.push(len - full * per);
    }
    v
}

fn set_buffers(s: &UdpSocket) {
    use std::os::fd::AsRawFd;
    let size: libc::c_int = 4 << 20;
    for opt in [libc::SO_RCVBUF, libc::SO_SNDBUF] {
        // SAFETY: setsockopt on a valid fd with a c_int option value.
        unsafe {
            libc::setsockopt(
                s.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                &size as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
}

enum Chunk {
    Data(Instant, Vec<u8>),
    Eof,
}

fn tcp_connection(
    client: TcpStream,
    server: TcpStream,
    up: &Arc<Direction>,
    down: &Arc<Direction>,
    stop: &Arc<AtomicBool>,
    cfg: &EmuConfig,
    live: &Arc<AtomicUsize>,
) -> Vec<JoinHandle<()>> {
    let mut hs = Vec::new();
    for s in [&client, &server] {
        let _ = s.set_nonblocking(false);
        let _ = s.set_nodelay(true);
        let _ = s.set_read_timeout(Some(POLL));
    }
    let pairs = [
        (client.try_clone(), server.try_clone(), up.clone(), cfg.up.mtu),
        (server.try_clone(), client.try_clone(), down.clone(), cfg.down.mtu),
    ];
    let done = Arc::new(AtomicUsize::new(0));
    for (i, (from, to, dir, mtu)) in pairs.into_iter().enumerate() {
        let (Ok(mut from), Ok(mut to)) = (from, to) else {
            continue;
        };
        let (tx, rx) = mpsc::sync_channel::<Chunk>(cfg.queue_limit);
        let (stop_r, stop_w) = (stop.clone(), stop.clone());
        let dir_r = dir.clone();
        let mss = mtu - 52;
        let name = if i == 0 { "wb-emu-tcp-up" } else { "wb-emu-tcp-down" };
        let reader = std::thread::Builder::new().name(format!("{name}-r")).spawn(move || {
            let mut buf = vec![0u8; 65_536];
            loop {
                if stop_r.load(Ordering::Relaxed) {
                    return;
                }
                match from.read(&mut buf) {
                    Ok(0) => {
                        let _ = tx.send(Chunk::Eof);
                        return;
                    }
                    Ok(n) => {
                        let arrival = Instant::now();
                        let sizes: Vec<usize> = buf[..n].chunks(mss).map(|c| c.len()).collect();
                        let times = dir_r.schedule(arrival, &sizes, false).unwrap_or_default();
                        let mut off = 0;
                        for (len, at) in sizes.into_iter().zip(times) {
                            if tx.send(Chunk::Data(at, buf[off..off + len].to_vec())).is_err() {
                                return;
                            }
                            off += len;
                        }
                    }
                    Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => {
                        let _ = tx.send(Chunk::Eof);
                        return;
                    }
                }
            }
        });
        let (done_w, live_w) = (done.clone(), live.clone());
        let writer = std::thread::Builder::new().name(format!("{name}-w")).spawn(move || {
            precise_timers();
            loop {
                if stop_w.load(Ordering::Relaxed) {
                    let _ = to.shutdown(Shutdown::Both);
                    break;
                }
                match rx.recv_timeout(POLL) {
                    Ok(Chunk::Data(at, data)) => {
                        sleep_until(at);
                        if to.write_all(&data).is_err() {
                            let _ = to.shutdown(Shutdown::Both);
                            break;
                        }
                        dir.counters.delivered.fetch_add(1, Ordering::Relaxed);
                        dir.counters.payload.fetch_add(data.len() as u64, Ordering::Relaxed);
                    }
                    Ok(Chunk::Eof) | Err(RecvTimeoutError::Disconnected) => {
                        let _ = to.shutdown(Shutdown::Write);
                        break;
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                }
            }
            if done_w.fetch_add(1, Ordering::Relaxed) == 1 {
                live_w.fetch_sub(1, Ordering::Relaxed);
            }
        });
        hs.extend(reader);
        hs.extend(writer);
    }
    hs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_arithmetic() {
        // spec §5 goal 5: 400 B + 66 B at 1 Mbit/s = 3.728 ms per direction.
        let p = LinkParams::rate(1_000_000);
        assert_eq!(p.serialization(466), Duration::from_micros(3_728));
        assert_eq!(LinkParams::default().serialization(466), Duration::ZERO);
        assert_eq!(fragments(3000, 1472), vec![1472, 1472, 56]);
        assert_eq!(fragments(100, 1472), vec![100]);
    }

    #[test]
    fn serializer_queues_back_to_back_packets() {
        let d = Direction::new(LinkParams::rate(1_000_000), 0, 1);
        let t0 = Instant::now();
        let a = d.schedule(t0, &[125], false).unwrap()[0]; // 1 ms
        let b = d.schedule(t0, &[125], false).unwrap()[0]; // queued behind: 2 ms
        assert_eq!(a - t0, Duration::from_millis(1));
        assert_eq!(b - t0, Duration::from_millis(2));
    }

    #[test]
    fn bad_settings_are_refused() {
        let lo: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let mut c = EmuConfig::symmetric(LinkParams::rate(0));
        assert!(matches!(Emulator::tcp(lo, lo, c.clone()), Err(NetError::RateOutOfRange { .. })));
        c.up.rate_bps = Some(1_000_000);
        c.down.rate_bps = None;
        c.up.loss = 0.1;
        assert!(Emulator::tcp(lo, lo, c.clone()).unwrap_err().to_string().contains("cannot emulate loss"));
        c.up.loss = 1.5;
        assert!(Emulator::udp(lo, lo, c).is_err());
    }
}
