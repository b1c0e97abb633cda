//! The HTTP/1.1 load generator.
//!
//! - **Closed loop** (like wrk / go-wrk): `connections` keep-alive connections, each sending
//!   the next request as soon as the previous response is complete. Latency is measured from
//!   the send.
//! - **Open loop** (like wrk2): requests are scheduled at a constant total rate
//!   (`start + i / rate`); a connection takes the next slot when it is free, and latency is
//!   measured from the **scheduled** time, so a stalled server shows up as latency instead of
//!   silently lowering the offered load (no coordinated omission). The time between the
//!   scheduled and the actual send is reported separately (`send_lag`).
//!
//! Requests are pre-built byte strings (`POST path`, `Host`, `Content-Type`, `Content-Length`:
//! 102 B of headers for `http://10.250.0.2:8080/ingest` with `application/json` and a 4-digit
//! length — the same as wrk's), responses are parsed with `httparse` (status, Content-Length or
//! chunked, `Connection: close`). Each generator thread runs a current-thread tokio runtime; one
//! thread (the default) is wrk's `-t1`. Sockets have `TCP_NODELAY`.
//!
//! Every run ends by itself: no request is sent after `duration`, each request has
//! `request_timeout`, and the whole run is cut at `duration + request_timeout + 2 s`.
//!
//! The report says whether the run was **link-bound** (≥ 90 % of the link's request ceiling,
//! when a link rate is given), **harness-bound** (a generator thread used ≥ 90 % of a core while
//! the link, if known, was < 90 % used — the seed's failure mode) or **peer-bound** (neither:
//! the server or the round trip limits it).

use std::cell::{Cell, RefCell};
use std::net::{SocketAddr, ToSocketAddrs};
use std::rc::Rc;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::cpu::thread_cpu_seconds;
use crate::hist::Histogram;
use crate::lab::spawn_in;
use crate::wire::http_request_ceiling;
use crate::NetError;

pub use wirebench_core::sections::net::LoadMode;

/// A load run.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// `http://host:port/path` (an IP address or `localhost`).
    pub url: String,
    /// Request bodies, used in turn (at least one).
    pub bodies: Vec<Vec<u8>>,
    /// The media type (`CodecInfo::media_type`, optionally with `; codec=<id>`).
    pub content_type: String,
    pub connections: usize,
    pub threads: usize,
    pub duration: Duration,
    pub mode: LoadMode,
    pub request_timeout: Duration,
    /// Run inside this network namespace.
    pub netns: Option<String>,
    /// The link rate in bit/s, to report the request ceiling and link use (spec §1.2).
    pub link_rate_bps: Option<u64>,
}

impl LoadConfig {
    /// Closed loop, 100 connections, 1 thread, 10 s, 5 s request timeout.
    pub fn new(url: &str, body: Vec<u8>, content_type: &str) -> LoadConfig {
        LoadConfig {
            url: url.to_string(),
            bodies: vec![body],
            content_type: content_type.to_string(),
            connections: 100,
            threads: 1,
            duration: Duration::from_secs(10),
            mode: LoadMode::Closed,
            request_timeout: Duration::from_secs(5),
            netns: None,
            link_rate_bps: None,
        }
    }
}

pub use wirebench_core::sections::net::{Bound, CpuUse, ErrorCounts, LinkUse, LoadReport};

/// Add the counts of `o` to `to`.
fn add_errors(to: &mut ErrorCounts, o: &ErrorCounts) {
    to.connect += o.connect;
    to.read += o.read;
    to.write += o.write;
    to.timeout += o.timeout;
    to.protocol += o.protocol;
    to.status += o.status;
}

struct Target {
    addr: SocketAddr,
    host: String,
    path: String,
}

fn parse_url(url: &str) -> Result<Target, NetError> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| NetError::invalid("url", format!("{url:?}: only http:// URLs are supported")))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if host.is_empty() {
        return Err(NetError::invalid("url", format!("{url:?} has no host")));
    }
    let with_port = if host.rsplit_once(':').is_some_and(|(_, p)| p.parse::<u16>().is_ok()) && !host.ends_with(']') {
        host.to_string()
    } else {
        format!("{host}:80")
    };
    let addr = with_port
        .to_socket_addrs()
        .map_err(|e| NetError::invalid("url", format!("{url:?}: {e}")))?
        .next()
        .ok_or_else(|| NetError::invalid("url", format!("{url:?} resolves to no address")))?;
    Ok(Target { addr, host: host.to_string(), path: path.to_string() })
}

/// The bytes of one POST request.
pub fn build_request(host: &str, path: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

#[derive(Default)]
struct Shared {
    hist: Histogram,
    /// Completed requests and timed-out ones (at the time they were given up: a lower bound).
    hist_all: Histogram,
    /// Connections that completed no request in the whole run.
    starved: u64,
    lag: Histogram,
    errors: ErrorCounts,
    requests: u64,
    req_bytes: u64,
    body_bytes: u64,
    resp_bytes: u64,
}

struct ThreadOut {
    shared: Shared,
    cpu_s: f64,
}

enum Failure {
    Read,
    Write,
    Protocol,
    Closed,
}

/// Read one response into `buf` (which may hold bytes already). Returns (status, bytes of the
/// response, keep-alive).
async fn read_response(
    s: &mut TcpStream,
    buf: &mut Vec<u8>,
    filled: &mut usize,
) -> Result<(u16, usize, bool), Failure> {
    async fn more(s: &mut TcpStream, buf: &mut Vec<u8>, filled: &mut usize) -> Result<(), Failure> {
        if *filled == buf.len() {
            if buf.len() >= 64 << 20 {
                return Err(Failure::Protocol);
            }
            buf.resize(buf.len() * 2, 0);
        }
        match s.read(&mut buf[*filled..]).await {
            Ok(0) => Err(Failure::Closed),
            Ok(n) => {
                *filled += n;
                Ok(())
            }
            Err(_) => Err(Failure::Read),
        }
    }
    // Head.
    let (status, head_len, length, chunked, close) = loop {
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut resp = httparse::Response::new(&mut headers);
        match resp.parse(&buf[..*filled]) {
            Ok(httparse::Status::Complete(n)) => {
                let status = resp.code.unwrap_or(0);
                let mut length = None;
                let mut chunked = false;
                let mut close = resp.version == Some(0);
                for h in resp.headers.iter() {
                    if h.name.eq_ignore_ascii_case("content-length") {
                        length = std::str::from_utf8(h.value).ok().and_then(|v| v.trim().parse::<usize>().ok());
                    } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                        chunked = h.value.windows(7).any(|w| w.eq_ignore_ascii_case(b"chunked"));
                    } else if h.name.eq_ignore_ascii_case("connection") {
                        let v = h.value.to_ascii_lowercase();
                        close = v.windows(5).any(|w| w == b"close");
                    }
                }
                break (status, n, length, chunked, close);
            }
            Ok(httparse::Status::Partial) => more(s, buf, filled).await?,
            Err(_) => return Err(Failure::Protocol),
        }
    };
    let no_body = status == 204 || status == 304 || (100..200).contains(&status);
    let end = if no_body {
        head_len
    } else if chunked {
        let mut pos = head_len;
        loop {
            match httparse::parse_chunk_size(&buf[pos..*filled]) {
                Ok(httparse::Status::Complete((n, size))) => {
                    let size = size as usize;
                    let need = pos + n + size + 2;
                    while *filled < need {
                        more(s, buf, filled).await?;
                    }
                    pos = need;
                    if size == 0 {
                        // Trailers (rare): we sent none and accept only an empty trailer section.
                        break pos;
                    }
                }
                Ok(httparse::Status::Partial) => more(s, buf, filled).await?,
                Err(_) => return Err(Failure::Protocol),
            }
        }
    } else if let Some(len) = length {
        while *filled < head_len + len {
            more(s, buf, filled).await?;
        }
        head_len + len
    } else {
        // No length: the body runs to the end of the connection.
        loop {
            match more(s, buf, filled).await {
                Ok(()) => {}
                Err(Failure::Closed) => break *filled,
                Err(e) => return Err(e),
            }
        }
    };
    // Keep pipelined leftovers (none expected) at the front.
    buf.copy_within(end..*filled, 0);
    *filled -= end;
    Ok((status, end, !close && (length.is_some() || chunked || no_body)))
}

/// A Linux `timerfd` registered with tokio: microsecond-precise sleeps inside the runtime.
struct PreciseTimer {
    fd: tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>,
}

impl PreciseTimer {
    fn new() -> std::io::Result<PreciseTimer> {
        use std::os::fd::FromRawFd;
        // SAFETY: timerfd_create has no memory preconditions; the fd is owned from here on.
        let raw = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if raw < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh, valid fd nobody else owns.
        let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(raw) };
        // SAFETY: the OwnedFd stays open and refers to the same timerfd for as long as the
        // AsyncFd owns it, and `as_raw_fd` always returns that fd.
        let fd = unsafe { tokio::io::unix::AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE) }
            .map_err(|e| e.into_parts().1)?;
        Ok(PreciseTimer { fd })
    }

    async fn sleep_until(&self, at: Instant) {
        use std::os::fd::AsRawFd;
        let d = at.saturating_duration_since(Instant::now());
        if d.is_zero() {
            return;
        }
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec { tv_sec: d.as_secs() as libc::time_t, tv_nsec: d.subsec_nanos() as libc::c_long },
        };
        // SAFETY: valid timerfd and a valid itimerspec; relative, one-shot.
        if unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) } != 0 {
            return tokio::time::sleep_until(at.into()).await;
        }
        loop {
            let Ok(mut guard) = self.fd.readable().await else {
                return tokio::time::sleep_until(at.into()).await;
            };
            let mut expirations = 0u64;
            // SAFETY: reading 8 bytes into a u64 from a timerfd.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), &mut expirations as *mut u64 as *mut libc::c_void, 8) };
            if n == 8 {
                return;
            }
            guard.clear_ready();
        }
    }
}

async fn connect(addr: SocketAddr, timeout: Duration) -> Option<TcpStream> {
    match tokio::time::timeout(timeout, TcpStream::connect(addr)).await {
        Ok(Ok(s)) => {
            let _ = s.set_nodelay(true);
            Some(s)
        }
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)]
async fn connection(
    addr: SocketAddr,
    mut stream: Option<TcpStream>,
    reqs: Rc<Vec<(Vec<u8>, usize)>>,
    first: usize,
    shared: Rc<RefCell<Shared>>,
    slot: Rc<Cell<u64>>,
    start: Instant,
    deadline: Instant,
    mode: LoadMode,
    interval_ns: f64,
    slot_stride: u64,
    slot_offset: u64,
    timeout: Duration,
) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut filled = 0usize;
    let mut k = first;
    // Counted as starved when the connection ends without a completed request.
    let completed = Cell::new(0u64);
    let _starved = StarvedGuard { shared: &shared, completed: &completed };
    // Open loop: a timerfd per connection wakes it within tens of µs of its slot (tokio's own
    // timer rounds up to whole milliseconds, which would show up as latency).
    let timer = match mode {
        LoadMode::Open { .. } => PreciseTimer::new().ok(),
        LoadMode::Closed => None,
    };
    loop {
        // When does the next request count from?
        let scheduled = match mode {
            LoadMode::Closed => {
                let now = Instant::now();
                if now >= deadline {
                    return;
                }
                now
            }
            LoadMode::Open { .. } => {
                let i = slot.get();
                slot.set(i + 1);
                let at = start + Duration::from_nanos(((i * slot_stride + slot_offset) as f64 * interval_ns) as u64);
                if at >= deadline {
                    return;
                }
                if at > Instant::now() {
                    match timer.as_ref() {
                        Some(t) => t.sleep_until(at).await,
                        None => tokio::time::sleep_until(at.into()).await,
                    }
                }
                at
            }
        };
        if stream.is_none() {
            stream = connect(addr, timeout).await;
            if stream.is_none() {
                shared.borrow_mut().errors.connect += 1;
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            filled = 0;
        }
        let s = stream.as_mut().expect("connected above");
        let (req, body_len) = &reqs[k % reqs.len()];
        k += 1;
        let sent = Instant::now();
        let exchange = async {
            s.write_all(req).await.map_err(|_| Failure::Write)?;
            read_response(s, &mut buf, &mut filled).await
        };
        let result = tokio::time::timeout(timeout, exchange).await;
        let done = Instant::now();
        let mut sh = shared.borrow_mut();
        match result {
            Ok(Ok((status, resp_len, keep))) => {
                if done <= deadline {
                    completed.set(completed.get() + 1);
                    sh.hist_all.record_duration(done - scheduled);
                    sh.requests += 1;
                    sh.req_bytes += req.len() as u64;
                    sh.body_bytes += *body_len as u64;
                    sh.resp_bytes += resp_len as u64;
                    sh.hist.record_duration(done - scheduled);
                    if matches!(mode, LoadMode::Open { .. }) {
                        sh.lag.record_duration(sent.saturating_duration_since(scheduled));
                    }
                    if !(200..400).contains(&status) {
                        sh.errors.status += 1;
                    }
                }
                if !keep {
                    stream = None;
                }
            }
            Ok(Err(f)) => {
                match f {
                    Failure::Read | Failure::Closed => sh.errors.read += 1,
                    Failure::Write => sh.errors.write += 1,
                    Failure::Protocol => sh.errors.protocol += 1,
                }
                stream = None;
            }
            Err(_) => {
                sh.errors.timeout += 1;
                sh.hist_all.record_duration(done - scheduled);
                stream = None;
            }
        }
    }
}

/// Counts a connection as starved when its task ends (or is cancelled) without one completed
/// request.
struct StarvedGuard<'a> {
    shared: &'a Rc<RefCell<Shared>>,
    completed: &'a Cell<u64>,
}

impl Drop for StarvedGuard<'_> {
    fn drop(&mut self) {
        if self.completed.get() == 0 {
            if let Ok(mut sh) = self.shared.try_borrow_mut() {
                sh.starved += 1;
            }
        }
    }
}

/// Run a load test and report.
pub fn run(cfg: &LoadConfig) -> Result<LoadReport, NetError> {
    if cfg.bodies.is_empty() {
        return Err(NetError::invalid("bodies", "at least one request body is needed"));
    }
    if cfg.connections == 0 || cfg.connections > 10_000 {
        return Err(NetError::invalid("connections", format!("{} (use 1-10000)", cfg.connections)));
    }
    if cfg.threads == 0 || cfg.threads > 64 || cfg.threads > cfg.connections {
        return Err(NetError::invalid("threads", format!("{} (use 1-64, at most one per connection)", cfg.threads)));
    }
    if cfg.duration.is_zero() || cfg.duration > Duration::from_secs(3600) {
        return Err(NetError::invalid("duration", format!("{:?} (use up to 1 h)", cfg.duration)));
    }
    if let LoadMode::Open { rate } = cfg.mode {
        if !(rate > 0.0 && rate <= 10_000_000.0) {
            return Err(NetError::invalid("rate", format!("{rate} requests/s (use 0 < rate <= 1e7)")));
        }
    }
    let target = parse_url(&cfg.url)?;
    let reqs: Vec<(Vec<u8>, usize)> =
        cfg.bodies.iter().map(|b| (build_request(&target.host, &target.path, &cfg.content_type, b), b.len())).collect();

    // Reachability first: a clear error instead of a run full of connect errors.
    let addr = target.addr;
    spawn_in(cfg.netns.as_deref(), "wb-load-probe", move || {
        std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(3))
            .map(|_| ())
            .map_err(|e| NetError::Connect { addr: addr.to_string(), source: e })
    })?
    .join()??;

    let threads = cfg.threads;
    let barrier = Arc::new(Barrier::new(threads));
    let reqs = Arc::new(reqs);
    let mut handles = Vec::new();
    for t in 0..threads {
        let conns = cfg.connections / threads + usize::from(t < cfg.connections % threads);
        let (barrier, reqs) = (barrier.clone(), reqs.clone());
        let (duration, mode, timeout) = (cfg.duration, cfg.mode, cfg.request_timeout);
        handles.push(spawn_in(
            cfg.netns.as_deref(),
            &format!("wb-load-{t}"),
            move || -> Result<ThreadOut, NetError> {
                crate::emu::precise_timers();
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| NetError::io("starting a generator runtime", e))?;
                let local = tokio::task::LocalSet::new();
                let shared = Rc::new(RefCell::new(Shared::default()));
                let reqs: Rc<Vec<(Vec<u8>, usize)>> = Rc::new((*reqs).clone());
                let out = local.block_on(&rt, async {
                    // Connect everything before the clock starts (like wrk).
                    let mut streams = Vec::with_capacity(conns);
                    for _ in 0..conns {
                        streams.push(connect(addr, timeout).await);
                    }
                    let c0 = thread_cpu_seconds();
                    barrier.wait();
                    let start = Instant::now();
                    let deadline = start + duration;
                    let slot = Rc::new(Cell::new(0u64));
                    let interval_ns = match mode {
                        LoadMode::Open { rate } => 1e9 / rate,
                        LoadMode::Closed => 0.0,
                    };
                    let mut tasks = Vec::with_capacity(conns);
                    for (i, s) in streams.into_iter().enumerate() {
                        if s.is_none() {
                            shared.borrow_mut().errors.connect += 1;
                        }
                        tasks.push(tokio::task::spawn_local(connection(
                            addr,
                            s,
                            reqs.clone(),
                            i,
                            shared.clone(),
                            slot.clone(),
                            start,
                            deadline,
                            mode,
                            interval_ns,
                            threads as u64,
                            t as u64,
                            timeout,
                        )));
                    }
                    let hard_stop = deadline + timeout + Duration::from_secs(2);
                    for task in tasks {
                        let left = hard_stop.saturating_duration_since(Instant::now());
                        let _ = tokio::time::timeout(left, task).await;
                    }
                    thread_cpu_seconds() - c0
                });
                drop(local); // cancels tasks cut by the hard stop
                let shared = Rc::try_unwrap(shared)
                    .map(RefCell::into_inner)
                    .unwrap_or_else(|rc| std::mem::take(&mut *rc.borrow_mut()));
                Ok(ThreadOut { shared, cpu_s: out })
            },
        )?);
    }
    let mut total = Shared::default();
    let mut cpu = 0.0;
    for h in handles {
        let o = h.join()??;
        total.hist.merge(&o.shared.hist)?;
        total.hist_all.merge(&o.shared.hist_all)?;
        total.starved += o.shared.starved;
        total.lag.merge(&o.shared.lag)?;
        add_errors(&mut total.errors, &o.shared.errors);
        total.requests += o.shared.requests;
        total.req_bytes += o.shared.req_bytes;
        total.body_bytes += o.shared.body_bytes;
        total.resp_bytes += o.shared.resp_bytes;
        cpu += o.cpu_s;
    }
    Ok(report("wirebench", cfg, &target, total, cpu))
}

fn report(tool: &str, cfg: &LoadConfig, target: &Target, t: Shared, cpu_s: f64) -> LoadReport {
    let secs = cfg.duration.as_secs_f64();
    let n = t.requests.max(1) as f64;
    let rps = t.requests as f64 / secs;
    let mean_body = if t.requests > 0 {
        t.body_bytes as f64 / n
    } else {
        cfg.bodies.iter().map(Vec::len).sum::<usize>() as f64 / cfg.bodies.len() as f64
    };
    let header_bytes = build_request(&target.host, &target.path, &cfg.content_type, &[]).len()
        + cfg.bodies[0].len().to_string().len()
        - 1;
    let link = cfg.link_rate_bps.map(|rate| {
        let ceiling = http_request_ceiling(rate, mean_body.round() as usize, header_bytes);
        LinkUse { rate_bps: rate, header_bytes, ceiling_rps: ceiling, ratio: rps / ceiling }
    });
    let cores = cpu_s / secs;
    let per_thread = cores / cfg.threads as f64;
    let cpu = CpuUse { generator_cpu_s: cpu_s, wall_s: secs, cores, per_thread };
    let (bound, bound_detail) = classify(per_thread, link.as_ref().map(|l| l.ratio));
    let mut warnings = Vec::new();
    if t.errors.total() > 0 {
        warnings.push(format!("{} errors: {:?}", t.errors.total(), t.errors));
    }
    if t.requests == 0 {
        warnings.push("no request completed".into());
    }
    let send_lag = matches!(cfg.mode, LoadMode::Open { .. }).then(|| t.lag.summary_us());
    if let (LoadMode::Open { rate }, Some(lag)) = (cfg.mode, &send_lag) {
        if rps < 0.99 * rate {
            warnings.push(format!("achieved {rps:.0} of {rate:.0} requests/s scheduled"));
        }
        if lag.p99_us.unwrap_or(0.0) > 1_000.0 {
            warnings.push(format!(
                "p99 send lag {:.0} µs: connections were busy or the generator was late",
                lag.p99_us.unwrap_or(0.0)
            ));
        }
    }
    // Little's law for a closed loop: C connections, each always waiting for one request,
    // give a mean latency of C ÷ throughput. When the completed requests' mean is far below
    // it, the percentiles describe only the connections that progressed.
    let latency = t.hist.summary_us();
    if let (LoadMode::Closed, Some(mean)) = (cfg.mode, latency.mean_us) {
        let little_s = cfg.connections as f64 / rps.max(1e-9);
        if t.requests > 0 && mean / 1e6 < 0.5 * little_s {
            warnings.push(format!(
                "Little's law: {} connections at {rps:.1} requests/s imply a mean latency of {little_s:.2} s, but the completed requests averaged {:.3} s: {} requests timed out and {} connections completed none; the latency percentiles describe the connections that progressed (see the percentiles with timeouts)",
                cfg.connections,
                mean / 1e6,
                t.errors.timeout,
                t.starved,
            ));
        }
    }
    let p50 = t.hist.quantile(0.5).map(|v| v as f64 / 1e6);
    if let Some(p50) = p50 {
        if [40.0, 44.0, 88.0].iter().any(|m| (p50 - m).abs() < 2.0) {
            warnings.push(format!("median latency {p50:.1} ms is near 40/44/88 ms: a Nagle + delayed-ACK stall?"));
        }
    }
    LoadReport {
        tool: tool.into(),
        url: cfg.url.clone(),
        content_type: cfg.content_type.clone(),
        mode: cfg.mode,
        connections: cfg.connections,
        threads: cfg.threads,
        body_bytes: mean_body,
        request_bytes: if t.requests > 0 { t.req_bytes as f64 / n } else { mean_body + header_bytes as f64 },
        duration_s: secs,
        requests: t.requests,
        requests_per_sec: rps,
        body_mb_per_sec: t.body_bytes as f64 / secs / 1e6,
        request_mb_per_sec: t.req_bytes as f64 / secs / 1e6,
        response_mb_per_sec: t.resp_bytes as f64 / secs / 1e6,
        latency_with_timeouts: (t.errors.timeout > 0).then(|| t.hist_all.summary_us()),
        errors: t.errors,
        latency,
        starved_connections: t.starved,
        send_lag,
        cpu,
        link,
        bound,
        bound_detail,
        warnings,
    }
}

/// Decide what limited a run from the generator's per-thread CPU use and the link use.
pub fn classify(per_thread_cpu: f64, link_ratio: Option<f64>) -> (Bound, String) {
    let cpu_pct = per_thread_cpu * 100.0;
    match link_ratio {
        Some(r) if r >= 0.9 => (
            Bound::Link,
            format!("link-bound: {:.1} % of the link's request ceiling; generator at {cpu_pct:.0} % of a core", r * 100.0),
        ),
        Some(r) if per_thread_cpu >= 0.9 => (
            Bound::Harness,
            format!(
                "harness-bound: generator at {cpu_pct:.0} % of a core ({:.0} points over the 90 % threshold) while the link \
                 carried only {:.1} % of its ceiling",
                cpu_pct - 90.0,
                r * 100.0
            ),
        ),
        None if per_thread_cpu >= 0.9 => (
            Bound::Harness,
            format!("harness-bound: generator at {cpu_pct:.0} % of a core ({:.0} points over the 90 % threshold)", cpu_pct - 90.0),
        ),
        Some(r) => (
            Bound::Peer,
            format!(
                "peer-bound: link at {:.1} % of its ceiling and generator at {cpu_pct:.0} % of a core: the server or the \
                 round trip limits it",
                r * 100.0
            ),
        ),
        None => (
            Bound::Peer,
            format!("not harness-bound: generator at {cpu_pct:.0} % of a core; the server or the round trip limits it"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_header_is_wrk_sized() {
        // spec §1.2: wrk's POST header for this URL is 102 B.
        let r = build_request("10.250.0.2:8080", "/ingest", "application/json", &[b'x'; 1024]);
        assert_eq!(r.len() - 1024, 102);
    }

    /// 100 connections, 10 requests/s completed at 50 ms each, 90 timed out at 5 s: the
    /// completed requests' percentiles hide the starved connections; the report says so with
    /// Little's law and gives the percentiles with the timeouts.
    #[test]
    fn starved_connections_are_counted_and_said() {
        let mut cfg = LoadConfig::new("http://127.0.0.1:9/x", vec![b'x'; 10], "application/json");
        cfg.connections = 100;
        cfg.duration = Duration::from_secs(10);
        let target = parse_url(&cfg.url).unwrap();
        let mut t = Shared::default();
        for _ in 0..100 {
            t.hist.record_duration(Duration::from_millis(50));
            t.hist_all.record_duration(Duration::from_millis(50));
        }
        for _ in 0..90 {
            t.hist_all.record_duration(Duration::from_secs(5));
        }
        t.requests = 100;
        t.errors.timeout = 90;
        t.starved = 90;
        let r = report("wirebench", &cfg, &target, t, 0.1);
        let little = r.warnings.iter().find(|w| w.starts_with("Little's law")).expect("a Little's law warning");
        assert!(
            little.contains("100 connections at 10.0 requests/s imply a mean latency of 10.00 s")
                && little.contains("90 connections completed none"),
            "{little}"
        );
        let all = r.latency_with_timeouts.expect("percentiles with the timeouts");
        assert!(all.p90_us.unwrap() > 4.9e6 && all.count == 190, "{all:?}");
        assert!(r.latency.p50_us.unwrap() < 0.06e6);
        assert_eq!(r.starved_connections, 90);
    }

    #[test]
    fn urls() {
        let t = parse_url("http://127.0.0.1:8080/ingest").unwrap();
        assert_eq!((t.addr.port(), t.host.as_str(), t.path.as_str()), (8080, "127.0.0.1:8080", "/ingest"));
        assert_eq!(parse_url("http://127.0.0.1").unwrap().addr.port(), 80);
        assert!(parse_url("https://x").is_err());
        assert!(parse_url("http:///x").is_err());
    }

    #[test]
    fn verdicts() {
        assert_eq!(classify(0.5, Some(0.97)).0, Bound::Link);
        assert_eq!(classify(0.98, Some(0.97)).0, Bound::Link);
        let (b, d) = classify(0.98, Some(0.4));
        assert_eq!(b, Bound::Harness);
        assert!(d.contains("98 %") && d.contains("8 points"), "{d}");
        assert_eq!(classify(0.95, None).0, Bound::Harness);
        assert_eq!(classify(0.3, Some(0.5)).0, Bound::Peer);
        assert_eq!(classify(0.3, None).0, Bound::Peer);
    }

    #[test]
    fn unreachable_collector_is_a_clear_error() {
        // Port 9 on loopback: nothing listens there in the test environment (discard).
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        drop(l);
        let mut cfg = LoadConfig::new(&format!("http://127.0.0.1:{port}/ingest"), b"{}".to_vec(), "application/json");
        cfg.duration = Duration::from_millis(200);
        let e = run(&cfg).unwrap_err();
        assert!(matches!(e, NetError::Connect { .. }), "{e}");
        assert!(e.to_string().contains("cannot connect"), "{e}");
    }
}
