//! TCP request/response at a fixed cadence (seed 003: an EV message every 50 ms, RTT, jitter,
//! encode/decode time).
//!
//! Framing: every message is a 4-byte big-endian length followed by the encoded payload,
//! written with one `write` on a `TCP_NODELAY` socket. The server decodes it with the same
//! codec and answers with a 17-byte ack frame:
//!
//! | bytes | field |
//! |---|---|
//! | 0–3 | length = 13 (u32 BE) |
//! | 4–11 | sequence number (u64 BE) |
//! | 12–15 | server decode time, ns (u32 BE, saturating) |
//! | 16 | status: 0 decoded, 1 decode failed |
//!
//! Per message the client records: encoded size, RTT (write → ack read), encode time (client),
//! decode time (server, from the ack) and decode time of the same bytes on the client (after
//! the exchange, outside the RTT). The summary gives p50/p90/p99, stddev, RFC 3550 jitter
//! (J += (|D| − J) / 16 over consecutive RTTs) and the mean inter-packet delay variation
//! |RTT_i − RTT_{i−1}|.
//!
//! Pacing uses `nanosleep` with 1 ns timer slack and a short spin (see [`crate::emu`]), so the
//! 50 ms cadence is kept to microseconds. A plain echo ([`EchoServer`], [`echo`]) measures raw
//! RTT of fixed-size messages (spec §1.6 and §5 goal 5).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use wirebench_core::{Schema, Value};

use crate::emu::{precise_timers, sleep_until};
use crate::lab::spawn_in;
use crate::NetError;

const ACK_LEN: usize = 13;
const MAX_FRAME: usize = 16 << 20;
const POLL: Duration = Duration::from_millis(20);

/// The most connections the rr and echo servers serve at once (one thread each, 2 MiB
/// stacks): a connection past this is closed at once, and the server says so on stderr (the
/// first time; 3,000 connections started 3,004 threads before).
pub const MAX_CONNECTIONS: usize = 256;

/// Whether the server `what` may take one more connection, given its threads: finished ones
/// are dropped; a refusal is reported on stderr once per server.
fn room_for_one(what: &str, threads: &Mutex<Vec<JoinHandle<()>>>, warned: &mut bool) -> bool {
    let mut t = threads.lock().unwrap_or_else(|e| e.into_inner());
    t.retain(|h| !h.is_finished());
    if t.len() < MAX_CONNECTIONS {
        return true;
    }
    if !*warned {
        *warned = true;
        eprintln!("{what}: refusing connections past {MAX_CONNECTIONS} at once (the connection limit): closed");
    }
    false
}

pub use wirebench_core::sections::net::{RttStats, Spread};

/// RTT statistics over samples in microseconds: mean, population standard deviation, exact
/// nearest-rank percentiles, the RFC 3550 jitter estimator and the mean IPDV.
pub fn rtt_stats(us: &[f64]) -> RttStats {
    if us.is_empty() {
        return RttStats::default();
    }
    let n = us.len();
    let mean = us.iter().sum::<f64>() / n as f64;
    let var = us.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
    let mut sorted = us.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| sorted[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
    let mut j = 0.0;
    let mut ipdv = 0.0;
    for w in us.windows(2) {
        let d = (w[1] - w[0]).abs();
        j += (d - j) / 16.0;
        ipdv += d;
    }
    RttStats {
        n,
        mean_us: mean,
        stddev_us: var.sqrt(),
        min_us: sorted[0],
        p50_us: q(0.50),
        p90_us: q(0.90),
        p99_us: q(0.99),
        max_us: sorted[n - 1],
        jitter_rfc3550_us: j,
        ipdv_mean_us: if n > 1 { ipdv / (n - 1) as f64 } else { 0.0 },
    }
}

/// Mean/min/max of a series (zeros when empty).
fn spread(v: &[f64]) -> Spread {
    if v.is_empty() {
        return Spread::default();
    }
    Spread {
        mean: v.iter().sum::<f64>() / v.len() as f64,
        min: v.iter().copied().fold(f64::INFINITY, f64::min),
        max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

/// Warnings for RTTs that look like Nagle + delayed-ACK stalls (spec §2.3).
pub fn nagle_warnings(stats: &RttStats, configured_delay: Duration) -> Vec<String> {
    let p50_ms = stats.p50_us / 1e3;
    let expected_ms = configured_delay.as_secs_f64() * 2e3;
    [40.0, 44.0, 88.0]
        .iter()
        .filter(|m| (p50_ms - *m).abs() < 2.0 && (p50_ms - expected_ms).abs() > 2.0)
        .map(|m| {
            format!(
                "RTT p50 {p50_ms:.1} ms is near {m} ms: a Nagle + delayed-ACK stall (TCP_NODELAY missing somewhere?)"
            )
        })
        .collect()
}

// ---- the codec server ------------------------------------------------------------------

/// A server that decodes framed messages with one codec and acks each.
pub struct RrServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Arc<Mutex<Vec<JoinHandle<()>>>>,
    accept: Option<crate::lab::NsThread<()>>,
    decoded: Arc<AtomicU64>,
    failed: Arc<AtomicU64>,
}

impl RrServer {
    /// Listen on `listen` (inside `netns` if given) and decode with `codec` (+ `schema`).
    pub fn start(
        listen: SocketAddr,
        codec: &str,
        schema: Option<Schema>,
        netns: Option<&str>,
    ) -> Result<RrServer, NetError> {
        let c = wirebench_codecs::find(codec)
            .ok_or_else(|| NetError::UnknownCodec(codec.into(), wirebench_codecs::ids()))?;
        let prepared: Arc<dyn wirebench_codecs::Prepared> = Arc::from(
            c.prepare(schema.as_ref()).map_err(|e| NetError::Codec { codec: codec.into(), msg: e.to_string() })?,
        );
        let stop = Arc::new(AtomicBool::new(false));
        let threads: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::new(Mutex::new(Vec::new()));
        let (decoded, failed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let (tx, rx) = std::sync::mpsc::channel();
        let (st, th, dc, fl) = (stop.clone(), threads.clone(), decoded.clone(), failed.clone());
        let accept = spawn_in(netns, "wb-rr-accept", move || {
            let l = match TcpListener::bind(listen).and_then(|l| l.set_nonblocking(true).map(|_| l)) {
                Ok(l) => l,
                Err(e) => {
                    let _ = tx.send(Err(NetError::io(format!("binding the rr server on {listen}"), e)));
                    return;
                }
            };
            let _ = tx.send(l.local_addr().map_err(|e| NetError::io("rr address", e)));
            let mut warned = false;
            while !st.load(Ordering::Relaxed) {
                match l.accept() {
                    Ok((s, _)) if !room_for_one("rr server", &th, &mut warned) => drop(s),
                    Ok((s, _)) => {
                        let (st, p, dc, fl) = (st.clone(), prepared.clone(), dc.clone(), fl.clone());
                        if let Ok(h) = std::thread::Builder::new().name("wb-rr-conn".into()).spawn(move || {
                            let _ = serve(s, &st, &*p, &dc, &fl);
                        }) {
                            let mut t = th.lock().unwrap_or_else(|e| e.into_inner());
                            t.retain(|h| !h.is_finished());
                            t.push(h);
                        }
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        })?;
        let addr = rx
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| NetError::Timeout { what: "rr server start".into(), after: Duration::from_secs(10) })??;
        Ok(RrServer { addr, stop, threads, accept: Some(accept), decoded, failed })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// (decoded, failed) so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.decoded.load(Ordering::Relaxed), self.failed.load(Ordering::Relaxed))
    }
}

impl Drop for RrServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(a) = self.accept.take() {
            let _ = a.join();
        }
        for h in std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner())) {
            let _ = h.join();
        }
    }
}

/// Read exactly `buf.len()` bytes, polling `stop` on read timeouts. `Ok(false)` on clean EOF
/// before the first byte.
fn read_full(s: &mut TcpStream, buf: &mut [u8], stop: &AtomicBool) -> std::io::Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        if stop.load(Ordering::Relaxed) {
            return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "stopped"));
        }
        match s.read(&mut buf[got..]) {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

fn serve(
    mut s: TcpStream,
    stop: &AtomicBool,
    codec: &dyn wirebench_codecs::Prepared,
    decoded: &AtomicU64,
    failed: &AtomicU64,
) -> std::io::Result<()> {
    s.set_nonblocking(false)?;
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(POLL))?;
    let mut head = [0u8; 4];
    let mut body = Vec::new();
    let mut seq = 0u64;
    loop {
        if !read_full(&mut s, &mut head, stop)? {
            return Ok(());
        }
        let len = u32::from_be_bytes(head) as usize;
        if len > MAX_FRAME {
            return Err(std::io::Error::other("frame too large"));
        }
        body.resize(len, 0);
        read_full(&mut s, &mut body, stop)?;
        let t0 = Instant::now();
        let ok = codec.decode(&body).is_ok();
        let ns = t0.elapsed().as_nanos().min(u32::MAX as u128) as u32;
        if ok {
            decoded.fetch_add(1, Ordering::Relaxed);
        } else {
            failed.fetch_add(1, Ordering::Relaxed);
        }
        seq += 1;
        let mut ack = [0u8; 4 + ACK_LEN];
        ack[..4].copy_from_slice(&(ACK_LEN as u32).to_be_bytes());
        ack[4..12].copy_from_slice(&seq.to_be_bytes());
        ack[12..16].copy_from_slice(&ns.to_be_bytes());
        ack[16] = u8::from(!ok);
        s.write_all(&ack)?;
    }
}

// ---- the client ------------------------------------------------------------------------

/// A request/response run.
#[derive(Clone, Debug)]
pub struct RrConfig {
    /// Server (or emulator) address.
    pub addr: SocketAddr,
    pub codec: String,
    pub schema: Option<Schema>,
    /// Messages, sent in turn.
    pub messages: Vec<Value>,
    /// Messages measured (after `warmup`).
    pub count: usize,
    pub warmup: usize,
    /// Time between sends (`ZERO` = back to back).
    pub cadence: Duration,
    /// Per-message timeout.
    pub timeout: Duration,
    /// Run inside this network namespace.
    pub netns: Option<String>,
    /// One-way delay configured on the path (to tell a Nagle stall from a configured delay).
    pub configured_delay: Duration,
    /// Keep every sample in the report.
    pub keep_samples: bool,
}

impl RrConfig {
    /// 50 ms cadence, 200 messages + 10 warm-up, 5 s timeout.
    pub fn new(addr: SocketAddr, codec: &str, schema: Option<Schema>, messages: Vec<Value>) -> RrConfig {
        RrConfig {
            addr,
            codec: codec.into(),
            schema,
            messages,
            count: 200,
            warmup: 10,
            cadence: Duration::from_millis(50),
            timeout: Duration::from_secs(5),
            netns: None,
            configured_delay: Duration::ZERO,
            keep_samples: false,
        }
    }
}

/// One measured message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RrSample {
    pub seq: u64,
    pub bytes: usize,
    pub rtt_us: f64,
    pub encode_us: f64,
    pub server_decode_us: f64,
    pub client_decode_us: f64,
}

/// The result of a run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RrReport {
    pub codec: String,
    pub media_type: String,
    pub count: usize,
    pub cadence_ms: f64,
    /// Encoded payload bytes (without the 4-byte frame header).
    pub bytes: Spread,
    pub rtt: RttStats,
    pub encode_us: Spread,
    pub server_decode_us: Spread,
    pub client_decode_us: Spread,
    /// Payload bytes per second sent (the seed's "throughput").
    pub payload_bytes_per_sec: f64,
    pub decode_failures: u64,
    /// Whether decode(encode(v)) == v for the first message (checked before timing).
    pub round_trip_exact: bool,
    pub warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<RrSample>,
}

fn connect(addr: SocketAddr, timeout: Duration) -> Result<TcpStream, NetError> {
    let s = TcpStream::connect_timeout(&addr, timeout)
        .map_err(|e| NetError::Connect { addr: addr.to_string(), source: e })?;
    s.set_nodelay(true).map_err(|e| NetError::io("TCP_NODELAY", e))?;
    s.set_read_timeout(Some(timeout)).map_err(|e| NetError::io("read timeout", e))?;
    s.set_write_timeout(Some(timeout)).map_err(|e| NetError::io("write timeout", e))?;
    Ok(s)
}

fn read_exact_timeout(s: &mut TcpStream, buf: &mut [u8], addr: SocketAddr, timeout: Duration) -> Result<(), NetError> {
    s.read_exact(buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            NetError::Timeout { what: format!("reply from {addr}"), after: timeout }
        }
        _ => NetError::io(format!("reading from {addr}"), e),
    })
}

/// Run request/response and report.
pub fn run(cfg: &RrConfig) -> Result<RrReport, NetError> {
    let cfg = cfg.clone();
    spawn_in(cfg.netns.clone().as_deref(), "wb-rr-client", move || run_here(&cfg))?.join()?
}

fn run_here(cfg: &RrConfig) -> Result<RrReport, NetError> {
    if cfg.messages.is_empty() || cfg.count == 0 {
        return Err(NetError::invalid("messages", "need at least one message and count >= 1"));
    }
    if cfg.count + cfg.warmup > 1_000_000 || cfg.cadence > Duration::from_secs(60) {
        return Err(NetError::invalid("count/cadence", "at most 1,000,000 messages and 60 s cadence"));
    }
    let codec = wirebench_codecs::find(&cfg.codec)
        .ok_or_else(|| NetError::UnknownCodec(cfg.codec.clone(), wirebench_codecs::ids()))?;
    let cerr = |e: wirebench_codecs::CodecError| NetError::Codec { codec: cfg.codec.clone(), msg: e.to_string() };
    let p = codec.prepare(cfg.schema.as_ref()).map_err(cerr)?;
    // Round trip before timing.
    let mut buf = Vec::new();
    p.encode(&cfg.messages[0], &mut buf).map_err(cerr)?;
    let back = p.decode(&buf).map_err(cerr)?;
    let round_trip_exact = back == cfg.messages[0];
    let mut warnings = Vec::new();
    if !round_trip_exact {
        warnings.push(format!("{} does not round-trip the message exactly (lossy codec)", cfg.codec));
    }

    precise_timers();
    let mut s = connect(cfg.addr, cfg.timeout)?;
    let mut samples = Vec::with_capacity(cfg.count);
    let mut frame = Vec::with_capacity(4096);
    let mut ack = [0u8; 4 + ACK_LEN];
    let mut failures = 0;
    let total = cfg.count + cfg.warmup;
    let start = Instant::now();
    let hard_deadline = start + cfg.cadence * total as u32 + cfg.timeout + Duration::from_secs(10);
    for i in 0..total {
        if !cfg.cadence.is_zero() {
            sleep_until(start + cfg.cadence * i as u32);
        }
        if Instant::now() > hard_deadline {
            return Err(NetError::Timeout { what: "request/response run".into(), after: hard_deadline - start });
        }
        let v = &cfg.messages[i % cfg.messages.len()];
        frame.clear();
        frame.extend_from_slice(&[0; 4]);
        let t0 = Instant::now();
        p.encode(v, &mut frame).map_err(cerr)?;
        let encode = t0.elapsed();
        let len = frame.len() - 4;
        frame[..4].copy_from_slice(&(len as u32).to_be_bytes());
        let sent = Instant::now();
        s.write_all(&frame).map_err(|e| NetError::io(format!("sending to {}", cfg.addr), e))?;
        read_exact_timeout(&mut s, &mut ack, cfg.addr, cfg.timeout)?;
        let rtt = sent.elapsed();
        if u32::from_be_bytes(ack[..4].try_into().unwrap()) as usize != ACK_LEN {
            return Err(NetError::Protocol {
                peer: cfg.addr.to_string(),
                msg: "ack frame of unexpected length".into(),
            });
        }
        let server_ns = u32::from_be_bytes(ack[12..16].try_into().unwrap());
        if ack[16] != 0 {
            failures += 1;
        }
        let t1 = Instant::now();
        let decoded = p.decode(&frame[4..]);
        let client_decode = t1.elapsed();
        std::hint::black_box(&decoded);
        if i >= cfg.warmup {
            samples.push(RrSample {
                seq: u64::from_be_bytes(ack[4..12].try_into().unwrap()),
                bytes: len,
                rtt_us: rtt.as_secs_f64() * 1e6,
                encode_us: encode.as_secs_f64() * 1e6,
                server_decode_us: server_ns as f64 / 1e3,
                client_decode_us: client_decode.as_secs_f64() * 1e6,
            });
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let col = |f: fn(&RrSample) -> f64| samples.iter().map(f).collect::<Vec<f64>>();
    let rtt = rtt_stats(&col(|s| s.rtt_us));
    warnings.extend(nagle_warnings(&rtt, cfg.configured_delay));
    if failures > 0 {
        warnings.push(format!("the server failed to decode {failures} messages"));
    }
    let bytes = col(|s| s.bytes as f64);
    Ok(RrReport {
        codec: codec.info().id.into(),
        media_type: codec.info().media_type.into(),
        count: samples.len(),
        cadence_ms: cfg.cadence.as_secs_f64() * 1e3,
        payload_bytes_per_sec: bytes.iter().sum::<f64>() / (elapsed * samples.len() as f64 / total as f64).max(1e-9),
        bytes: spread(&bytes),
        rtt,
        encode_us: spread(&col(|s| s.encode_us)),
        server_decode_us: spread(&col(|s| s.server_decode_us)),
        client_decode_us: spread(&col(|s| s.client_decode_us)),
        decode_failures: failures,
        round_trip_exact,
        warnings,
        samples: if cfg.keep_samples { samples } else { Vec::new() },
    })
}

// ---- plain echo ------------------------------------------------------------------------

/// A server that echoes every byte back (NODELAY), one thread per connection.
pub struct EchoServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Arc<Mutex<Vec<JoinHandle<()>>>>,
    accept: Option<crate::lab::NsThread<()>>,
}

impl EchoServer {
    pub fn start(listen: SocketAddr, netns: Option<&str>) -> Result<EchoServer, NetError> {
        let stop = Arc::new(AtomicBool::new(false));
        let threads: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let (st, th) = (stop.clone(), threads.clone());
        let accept = spawn_in(netns, "wb-echo-accept", move || {
            let l = match TcpListener::bind(listen).and_then(|l| l.set_nonblocking(true).map(|_| l)) {
                Ok(l) => l,
                Err(e) => {
                    let _ = tx.send(Err(NetError::io(format!("binding the echo server on {listen}"), e)));
                    return;
                }
            };
            let _ = tx.send(l.local_addr().map_err(|e| NetError::io("echo address", e)));
            let mut warned = false;
            while !st.load(Ordering::Relaxed) {
                match l.accept() {
                    Ok((s, _)) if !room_for_one("echo server", &th, &mut warned) => drop(s),
                    Ok((mut s, _)) => {
                        let st = st.clone();
                        if let Ok(h) = std::thread::Builder::new().name("wb-echo-conn".into()).spawn(move || {
                            let _ = s.set_nonblocking(false);
                            let _ = s.set_nodelay(true);
                            let _ = s.set_read_timeout(Some(POLL));
                            let mut buf = vec![0u8; 65_536];
                            while !st.load(Ordering::Relaxed) {
                                match s.read(&mut buf) {
                                    Ok(0) => return,
                                    Ok(n) => {
                                        if s.write_all(&buf[..n]).is_err() {
                                            return;
                                        }
                                    }
                                    Err(e)
                                        if matches!(
                                            e.kind(),
                                            std::io::ErrorKind::WouldBlock
                                                | std::io::ErrorKind::TimedOut
                                                | std::io::ErrorKind::Interrupted
                                        ) => {}
                                    Err(_) => return,
                                }
                            }
                        }) {
                            let mut t = th.lock().unwrap_or_else(|e| e.into_inner());
                            t.retain(|h| !h.is_finished());
                            t.push(h);
                        }
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        })?;
        let addr = rx
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| NetError::Timeout { what: "echo server start".into(), after: Duration::from_secs(10) })??;
        Ok(EchoServer { addr, stop, threads, accept: Some(accept) })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for EchoServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(a) = self.accept.take() {
            let _ = a.join();
        }
        for h in std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner())) {
            let _ = h.join();
        }
    }
}

/// An echo run: `count` messages of `size` bytes, one every `cadence` (ZERO = back to back).
#[derive(Clone, Debug)]
pub struct EchoConfig {
    pub addr: SocketAddr,
    pub size: usize,
    pub count: usize,
    pub warmup: usize,
    pub cadence: Duration,
    pub timeout: Duration,
    pub netns: Option<String>,
    pub configured_delay: Duration,
}

/// The result of an echo run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EchoReport {
    pub size: usize,
    pub cadence_ms: f64,
    pub rtt: RttStats,
    pub warnings: Vec<String>,
}

/// Send fixed-size messages and time each echo.
pub fn echo(cfg: &EchoConfig) -> Result<EchoReport, NetError> {
    let cfg = cfg.clone();
    spawn_in(cfg.netns.clone().as_deref(), "wb-echo-client", move || -> Result<EchoReport, NetError> {
        if cfg.size == 0 || cfg.size > MAX_FRAME || cfg.count == 0 || cfg.count + cfg.warmup > 1_000_000 {
            return Err(NetError::invalid("echo", "size 1..16 MiB, count 1..1,000,000"));
        }
        precise_timers();
        let mut s = connect(cfg.addr, cfg.timeout)?;
        let msg: Vec<u8> = (0..cfg.size).map(|i| (i % 251) as u8).collect();
        let mut back = vec![0u8; cfg.size];
        let mut rtts = Vec::with_capacity(cfg.count);
        let start = Instant::now();
        for i in 0..cfg.count + cfg.warmup {
            if !cfg.cadence.is_zero() {
                sleep_until(start + cfg.cadence * i as u32);
            }
            let t0 = Instant::now();
            s.write_all(&msg).map_err(|e| NetError::io(format!("sending to {}", cfg.addr), e))?;
            read_exact_timeout(&mut s, &mut back, cfg.addr, cfg.timeout)?;
            let rtt = t0.elapsed();
            if back != msg {
                return Err(NetError::Protocol {
                    peer: cfg.addr.to_string(),
                    msg: "echo differs from what was sent".into(),
                });
            }
            if i >= cfg.warmup {
                rtts.push(rtt.as_secs_f64() * 1e6);
            }
        }
        let rtt = rtt_stats(&rtts);
        let warnings = nagle_warnings(&rtt, cfg.configured_delay);
        Ok(EchoReport { size: cfg.size, cadence_ms: cfg.cadence.as_secs_f64() * 1e3, rtt, warnings })
    })?
    .join()?
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 300 connections at once to the echo server (loopback): the first MAX_CONNECTIONS are
    /// served (each echoes a byte), the rest are closed (EOF), and the server's threads stay
    /// at the limit; all sockets close when the test ends.
    #[test]
    fn the_echo_server_serves_at_most_max_connections_at_once() {
        use std::io::{Read, Write};
        let server = EchoServer::start("127.0.0.1:0".parse().unwrap(), None).unwrap();
        let mut conns = Vec::new();
        for _ in 0..300 {
            conns.push(std::net::TcpStream::connect(server.addr()).unwrap());
        }
        let (mut served, mut closed) = (0, 0);
        for c in &mut conns {
            c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut b = [0u8; 1];
            match c.write_all(b"x").and_then(|_| c.read(&mut b)) {
                Ok(1) => served += 1,
                _ => closed += 1,
            }
        }
        assert_eq!((served, closed), (MAX_CONNECTIONS, 300 - MAX_CONNECTIONS));
        assert!(server.threads.lock().unwrap().len() <= MAX_CONNECTIONS);
    }

    #[test]
    fn rtt_statistics() {
        let s = rtt_stats(&[100.0, 110.0, 90.0, 100.0]);
        assert_eq!(s.n, 4);
        assert_eq!(s.p50_us, 100.0);
        assert_eq!(s.max_us, 110.0);
        assert!((s.ipdv_mean_us - (10.0 + 20.0 + 10.0) / 3.0).abs() < 1e-9);
        // RFC 3550: J1 = 10/16, J2 = J1 + (20 − J1)/16, J3 = J2 + (10 − J2)/16.
        let j1 = 10.0 / 16.0;
        let j2 = j1 + (20.0 - j1) / 16.0;
        let j3 = j2 + (10.0 - j2) / 16.0;
        assert!((s.jitter_rfc3550_us - j3).abs() < 1e-9);
        assert_eq!(rtt_stats(&[]).n, 0);
        let nagle = RttStats { p50_us: 44_000.0, ..Default::default() };
        assert_eq!(nagle_warnings(&nagle, Duration::ZERO).len(), 1);
        assert!(nagle_warnings(&nagle, Duration::from_millis(22)).is_empty());
    }
}
