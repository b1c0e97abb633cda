//! Round trip through an echo client (the seed's method): a pinger publishes to `req`, an echo
//! client subscribed to `req` republishes each message unchanged to `resp`, the pinger, subscribed
//! to `resp`, takes the time. Closed loop (next request when the reply arrives) or open loop
//! (requests at a constant rate; latency from the *scheduled* send time, so a stall delays the
//! measurement of every request scheduled behind it — no coordinated omission).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use rumqttc::{AsyncClient, Event, EventLoop, Packet};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::client::{
    check_common, publish_packet_len, run_id, ClientSettings, EndReason, Harness, Qos, MAX_DEADLINE_MS, MAX_TIMEOUT_MS,
};
use crate::cpu::{self, CpuStart, CpuUsage, ThreadClocks};
use crate::endpoint::{Endpoint, MqttBroker};
use crate::error::{describe_conn, MqttError};
use crate::framing::{frame, parse_seq, HEADER_LEN};
use crate::stall::{detect_nagle_stall, StallWarning};
use crate::stats::{latency_of_histogram, latency_stats, new_histogram, LatencyStats};
use crate::topic::validate_topic;

/// Configuration of an echo RTT run (echoed in the result).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EchoConfig {
    /// Measured round trips.
    pub messages: u64,
    /// Round trips before those, not measured.
    pub warmup: u64,
    pub qos: Qos,
    /// Requests per second (open loop); `None` = closed loop.
    pub rate: Option<f64>,
    /// Topics; `None` = fresh `wirebench/<run id>/req` and `/resp`.
    pub req_topic: Option<String>,
    pub resp_topic: Option<String>,
    /// A request without a reply after this long is lost (ms).
    pub reply_timeout_ms: u64,
    /// Hard limit on the measured part of the run.
    pub deadline_ms: u64,
    pub connect_timeout_ms: u64,
    /// TCP_NODELAY on the client sockets (default true; `false` to demonstrate stalls).
    pub tcp_nodelay: bool,
    pub channel_capacity: usize,
    pub inflight: u16,
    pub worker_threads: usize,
    pub max_packet_size: usize,
    /// Keep every RTT sample (ns) in the result.
    pub keep_samples: bool,
}

impl Default for EchoConfig {
    fn default() -> Self {
        EchoConfig {
            messages: 5_000,
            warmup: 500,
            qos: Qos::AtMostOnce,
            rate: None,
            req_topic: None,
            resp_topic: None,
            reply_timeout_ms: 1_000,
            deadline_ms: 60_000,
            connect_timeout_ms: 5_000,
            tcp_nodelay: true,
            channel_capacity: 1_000,
            inflight: 100,
            worker_threads: 2,
            max_packet_size: 1 << 20,
            keep_samples: true,
        }
    }
}

/// Delivery of the measured requests (warm-up excluded).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EchoDelivery {
    pub sent: u64,
    /// Replies that arrived in time (one RTT sample each).
    pub received: u64,
    /// Requests without a reply within `reply_timeout_ms` (or when the run ended).
    pub lost: u64,
    /// Replies that arrived after their request was declared lost.
    pub late: u64,
    /// Second replies to the same request (`None` for the bare baseline).
    pub duplicates: Option<u64>,
    /// Replies without a sequence number of this run.
    pub unexpected: u64,
    pub delivery_ratio: f64,
}

/// The result of one echo RTT run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EchoResult {
    pub harness: Harness,
    pub broker: Endpoint,
    pub config: EchoConfig,
    pub req_topic: String,
    pub resp_topic: String,
    /// Codec payload bytes (each request also carries our 8-byte header).
    pub payload_bytes: usize,
    /// `closed-loop` or `open-loop`.
    pub mode: String,
    pub delivery: EchoDelivery,
    /// Round-trip time of the measured requests.
    pub rtt: LatencyStats,
    /// Measured replies per second over the measured interval.
    pub achieved_rate: f64,
    /// A Nagle/delayed-ACK stall mode in the samples, if any.
    pub stall: Option<StallWarning>,
    pub elapsed_seconds: f64,
    pub cpu: CpuUsage,
    pub ended_by: EndReason,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    /// RTT samples in ns, in send order of the replies received (if `keep_samples`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_ns: Vec<u64>,
}

impl EchoConfig {
    fn topics(&self) -> (String, String) {
        let id = run_id();
        (
            self.req_topic.clone().unwrap_or_else(|| format!("wirebench/{id}/req")),
            self.resp_topic.clone().unwrap_or_else(|| format!("wirebench/{id}/resp")),
        )
    }

    fn settings(&self) -> ClientSettings {
        ClientSettings {
            tcp_nodelay: self.tcp_nodelay,
            channel_capacity: self.channel_capacity,
            inflight: self.inflight,
            max_packet_size: self.max_packet_size,
            connect_timeout: Duration::from_millis(self.connect_timeout_ms),
        }
    }

    fn validate(&self, payload: &[u8], req: &str, resp: &str) -> Result<(), MqttError> {
        validate_topic(req)?;
        validate_topic(resp)?;
        if req == resp {
            return Err(MqttError::Config(format!("req and resp topics must differ (both {req:?})")));
        }
        check_common(
            self.channel_capacity,
            self.inflight,
            self.worker_threads,
            self.deadline_ms,
            self.connect_timeout_ms,
        )?;
        let total = self.messages.saturating_add(self.warmup);
        if self.messages == 0 || total > 10_000_000 {
            return Err(MqttError::Config("messages must be ≥ 1 and messages + warmup ≤ 1e7".into()));
        }
        if let Some(r) = self.rate {
            if !(r.is_finite() && r > 0.0 && r <= 1e7 && total as f64 / r <= MAX_DEADLINE_MS as f64 / 1e3) {
                return Err(MqttError::Config(format!(
                    "rate must be a positive number of messages/s, at most 1e7, that fits the run in 7 days, not {r:?}"
                )));
            }
        }
        if self.reply_timeout_ms == 0 || self.reply_timeout_ms > MAX_TIMEOUT_MS {
            return Err(MqttError::Config("reply_timeout_ms must be in 1..=3600000".into()));
        }
        let need = publish_packet_len(if req.len() >= resp.len() { req } else { resp }, HEADER_LEN + payload.len());
        if need > self.max_packet_size {
            return Err(MqttError::Config(format!(
                "a {}-byte payload makes a {need}-byte PUBLISH packet, above max_packet_size {}",
                payload.len(),
                self.max_packet_size
            )));
        }
        Ok(())
    }
}

/// Echo RTT with wirebench's measuring clients. Every request carries our 8-byte sequence
/// header before `payload`; replies are matched by sequence number, so duplicates, late and
/// lost replies are told apart. Bounded by `connect_timeout_ms`, `reply_timeout_ms` per request
/// and `deadline_ms` overall.
pub fn echo_rtt(broker: &impl MqttBroker, payload: &[u8], cfg: &EchoConfig) -> Result<EchoResult, MqttError> {
    let ep = broker.endpoint();
    let (req, resp) = cfg.topics();
    cfg.validate(payload, &req, &resp)?;
    let (rt, clocks) = cpu::runtime(cfg.worker_threads)?;
    let out = rt.block_on(ours(ep, req, resp, payload.to_vec(), cfg.clone(), clocks));
    rt.shutdown_timeout(Duration::from_millis(500));
    out
}

/// The same with the minimal rumqttc code a user would write: a closed loop that publishes,
/// polls until a reply arrives (or `reply_timeout_ms` passes) and takes `Instant::elapsed()`;
/// an echo loop that republishes what it receives. Same runtime, socket options and message
/// size. `rate` is ignored (the bare pair is closed-loop only; a warning says so).
pub fn baseline_echo_rtt(broker: &impl MqttBroker, payload: &[u8], cfg: &EchoConfig) -> Result<EchoResult, MqttError> {
    let ep = broker.endpoint();
    let (req, resp) = cfg.topics();
    cfg.validate(payload, &req, &resp)?;
    let (rt, clocks) = cpu::runtime(cfg.worker_threads)?;
    let out = rt.block_on(bare(ep, req, resp, payload.to_vec(), cfg.clone(), clocks));
    rt.shutdown_timeout(Duration::from_millis(500));
    out
}

#[derive(Default)]
struct EchoSide {
    echoed: u64,
    overflow: u64,
    error: Option<String>,
}

/// The echo client: republish every request to `resp`. `try_publish` never blocks its own
/// event loop; a full request channel drops the reply and counts it.
async fn echo_loop(
    client: AsyncClient,
    mut el: EventLoop,
    resp: String,
    qos: Qos,
    mut stop: oneshot::Receiver<()>,
) -> EchoSide {
    let mut o = EchoSide::default();
    let q = qos.rumqttc();
    loop {
        tokio::select! {
            biased;
            ev = el.poll() => match ev {
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    match client.try_publish(resp.as_str(), q, false, p.payload.to_vec()) {
                        Ok(()) => o.echoed += 1,
                        Err(_) => o.overflow += 1,
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    o.error = Some(format!("echo client connection: {}", describe_conn(&e)));
                    break;
                }
            },
            _ = &mut stop => break,
        }
    }
    o
}

#[derive(Clone, Copy, PartialEq)]
enum St {
    Unsent,
    Out,
    Got,
    Lost,
}

struct PingOut {
    d: EchoDelivery,
    samples: Vec<u64>,
    hist: hdrhistogram::Histogram<u64>,
    first_send: Option<Instant>,
    last_reply: Option<Instant>,
    end: EndReason,
    error: Option<String>,
}

#[allow(clippy::too_many_arguments)]
async fn pinger(
    client: AsyncClient,
    mut el: EventLoop,
    req: String,
    payload: Vec<u8>,
    cfg: EchoConfig,
    deadline: Instant,
) -> PingOut {
    let total = cfg.warmup + cfg.messages;
    let warm = cfg.warmup;
    let q = cfg.qos.rumqttc();
    let reply_to = Duration::from_millis(cfg.reply_timeout_ms);
    let mut st = vec![St::Unsent; total as usize];
    // Send (closed loop) or scheduled (open loop) time of each request, ns after `start`.
    let mut sent_at: Vec<u64> = vec![0; total as usize];
    let mut pending: VecDeque<u64> = VecDeque::new(); // due, not yet accepted by the client
    let mut fifo: VecDeque<(u64, Instant)> = VecDeque::new(); // outstanding, with expiry
    let mut o = PingOut {
        d: EchoDelivery { duplicates: Some(0), ..Default::default() },
        samples: Vec::with_capacity(if cfg.keep_samples { cfg.messages.min(1 << 20) as usize } else { 0 }),
        hist: new_histogram(),
        first_send: None,
        last_reply: None,
        end: EndReason::Complete,
        error: None,
    };
    let mut next = 0u64;
    let mut outstanding = 0u64;
    let start = Instant::now();
    let sched = |i: u64, r: f64| start + Duration::from_secs_f64(i as f64 / r);
    let at = |ns: u64| start + Duration::from_nanos(ns);
    let ns = |t: Instant| t.duration_since(start).as_nanos() as u64;
    let sleep = tokio::time::sleep_until(tokio::time::Instant::from_std(deadline));
    tokio::pin!(sleep);
    let mut armed = deadline;
    loop {
        let now = Instant::now();
        // 1. Requests that are due.
        match cfg.rate {
            Some(r) => {
                while next < total && sched(next, r) <= now {
                    sent_at[next as usize] = ns(sched(next, r));
                    pending.push_back(next);
                    next += 1;
                }
            }
            None => {
                if outstanding == 0 && pending.is_empty() && next < total {
                    sent_at[next as usize] = ns(now);
                    pending.push_back(next);
                    next += 1;
                }
            }
        }
        // 2. Hand them to the client (never blocking our own event loop).
        while let Some(&seq) = pending.front() {
            if client.try_publish(req.as_str(), q, false, frame(seq, &payload)).is_err() {
                break; // channel full: the event loop drains it below
            }
            pending.pop_front();
            st[seq as usize] = St::Out;
            outstanding += 1;
            fifo.push_back((seq, now + reply_to));
            if seq >= warm {
                o.d.sent += 1;
                o.first_send.get_or_insert(at(sent_at[seq as usize]));
            }
        }
        // 3. Requests whose reply is overdue.
        while let Some(&(seq, exp)) = fifo.front() {
            if st[seq as usize] != St::Out {
                fifo.pop_front();
            } else if now >= exp {
                st[seq as usize] = St::Lost;
                outstanding -= 1;
                if seq >= warm {
                    o.d.lost += 1;
                }
                fifo.pop_front();
            } else {
                break;
            }
        }
        if next == total && pending.is_empty() && outstanding == 0 {
            break;
        }
        if now >= deadline {
            o.end = EndReason::Deadline;
            break;
        }
        // 4. Sleep until the next event: a reply, the next send, an expiry or the deadline.
        let mut wake = deadline;
        if let Some(&(_, exp)) = fifo.front() {
            wake = wake.min(exp);
        }
        if let (Some(r), true) = (cfg.rate, next < total) {
            wake = wake.min(sched(next, r));
        }
        if wake != armed {
            sleep.as_mut().reset(tokio::time::Instant::from_std(wake));
            armed = wake;
        }
        tokio::select! {
            biased;
            ev = el.poll() => match ev {
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    let t = Instant::now();
                    match parse_seq(&p.payload) {
                        Some(s) if s < total => match st[s as usize] {
                            St::Out => {
                                st[s as usize] = St::Got;
                                outstanding -= 1;
                                if s >= warm {
                                    let rtt = ns(t).saturating_sub(sent_at[s as usize]);
                                    o.hist.saturating_record(rtt.max(1));
                                    if cfg.keep_samples {
                                        o.samples.push(rtt);
                                    }
                                    o.d.received += 1;
                                    o.last_reply = Some(t);
                                }
                            }
                            St::Got => *o.d.duplicates.get_or_insert(0) += (s >= warm) as u64,
                            St::Lost => o.d.late += (s >= warm) as u64,
                            St::Unsent => o.d.unexpected += 1,
                        },
                        _ => o.d.unexpected += 1,
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    o.error = Some(format!("pinger connection: {}", describe_conn(&e)));
                    o.end = EndReason::ConnectionLost;
                    break;
                }
            },
            // A fired Sleep must be re-armed: forget what it was set to.
            _ = &mut sleep => { armed = Instant::now() + Duration::from_secs(86_400); }
        }
    }
    // Whatever is still outstanding when the run ends is lost.
    for (seq, _) in fifo {
        if st[seq as usize] == St::Out && seq >= warm {
            o.d.lost += 1;
        }
    }
    o.d.delivery_ratio = if o.d.sent == 0 { 0.0 } else { o.d.received as f64 / o.d.sent as f64 };
    o
}

async fn ours(
    ep: Endpoint,
    req: String,
    resp: String,
    payload: Vec<u8>,
    cfg: EchoConfig,
    clocks: ThreadClocks,
) -> Result<EchoResult, MqttError> {
    let s = cfg.settings();
    let id = run_id();
    let (echo_c, mut echo_el) = s.connect(&ep, &format!("wb{id}-echo")).await?;
    s.subscribe(&ep, &echo_c, &mut echo_el, &req, cfg.qos).await?;
    let (ping_c, mut ping_el) = s.connect(&ep, &format!("wb{id}-ping")).await?;
    s.subscribe(&ep, &ping_c, &mut ping_el, &resp, cfg.qos).await?;

    let (stop, stop_rx) = oneshot::channel();
    let cpu0 = CpuStart::take(&clocks);
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_millis(cfg.deadline_ms);
    let echo = tokio::spawn(echo_loop(echo_c, echo_el, resp.clone(), cfg.qos, stop_rx));
    let ping = tokio::spawn(pinger(ping_c, ping_el, req.clone(), payload.clone(), cfg.clone(), deadline));
    let mut errors = Vec::new();
    let p = ping.await.map_err(|e| MqttError::Config(format!("pinger task failed: {e}")))?;
    let end_at = Instant::now();
    let cpu = cpu0.finish(&clocks);
    let _ = stop.send(());
    let e = tokio::time::timeout(Duration::from_millis(500), echo).await.ok().and_then(Result::ok).unwrap_or_default();
    let mut ended_by = p.end;
    for err in [&p.error, &e.error].into_iter().flatten() {
        errors.push(err.clone());
        ended_by = EndReason::ConnectionLost;
    }
    if ended_by == EndReason::Complete && p.d.lost > 0 {
        ended_by = EndReason::DrainTimeout;
    }
    let mut warnings = Vec::new();
    if e.overflow > 0 {
        warnings.push(format!(
            "the echo client dropped {} replies: its request channel ({}) was full",
            e.overflow, cfg.channel_capacity
        ));
    }
    let measured = match (p.first_send, p.last_reply) {
        (Some(a), Some(b)) if b > a => b.duration_since(a).as_secs_f64(),
        _ => 0.0,
    };
    let stall = detect_nagle_stall(&p.samples).or_else(|| stall_from_hist(&p.hist));
    let mut r = EchoResult {
        harness: Harness::Wirebench,
        broker: ep,
        req_topic: req,
        resp_topic: resp,
        payload_bytes: payload.len(),
        mode: if cfg.rate.is_some() { "open-loop" } else { "closed-loop" }.into(),
        rtt: latency_of_histogram(&p.hist),
        achieved_rate: if measured > 0.0 { p.d.received as f64 / measured } else { 0.0 },
        delivery: p.d,
        stall,
        elapsed_seconds: end_at.duration_since(t0).as_secs_f64(),
        cpu,
        ended_by,
        errors,
        warnings,
        samples_ns: p.samples,
        config: cfg,
    };
    add_warnings(&mut r);
    Ok(r)
}

/// Without raw samples, run the detector on the histogram's recorded values.
fn stall_from_hist(h: &hdrhistogram::Histogram<u64>) -> Option<StallWarning> {
    if h.is_empty() {
        return None;
    }
    let mut v = Vec::new();
    for it in h.iter_recorded() {
        let n = it.count_at_value().min(1_000_000);
        v.extend(std::iter::repeat_n(it.value_iterated_to(), n as usize));
    }
    detect_nagle_stall(&v)
}

async fn bare(
    ep: Endpoint,
    req: String,
    resp: String,
    payload: Vec<u8>,
    cfg: EchoConfig,
    clocks: ThreadClocks,
) -> Result<EchoResult, MqttError> {
    let s = cfg.settings();
    let id = run_id();
    let q = cfg.qos.rumqttc();
    let total = cfg.warmup + cfg.messages;
    let warm = cfg.warmup;
    let reply_to = Duration::from_millis(cfg.reply_timeout_ms);
    let msg = frame(0, &payload);

    // --- the bare pair: what a user would write ---------------------------------------------
    let (echo_c, mut echo_el) = s.client(&ep, &format!("wb{id}-becho"));
    let (ping_c, mut ping_el) = s.client(&ep, &format!("wb{id}-bping"));
    echo_c
        .subscribe(req.as_str(), q)
        .await
        .map_err(|e| MqttError::InvalidTopic { topic: req.clone(), reason: e.to_string() })?;
    ping_c
        .subscribe(resp.as_str(), q)
        .await
        .map_err(|e| MqttError::InvalidTopic { topic: resp.clone(), reason: e.to_string() })?;
    wait_suback(&ep, &mut echo_el, &s).await?;
    wait_suback(&ep, &mut ping_el, &s).await?;

    let cpu0 = CpuStart::take(&clocks);
    let t0 = Instant::now();
    let echo = tokio::spawn({
        let resp = resp.clone();
        async move {
            loop {
                match echo_el.poll().await {
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        let _ = echo_c.try_publish(resp.as_str(), q, false, p.payload.to_vec());
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        }
    });
    let ping = tokio::spawn({
        let req = req.clone();
        async move {
            let mut samples = Vec::with_capacity(total as usize);
            let (mut sent, mut lost, mut error) = (0u64, 0u64, None);
            'outer: for i in 0..total {
                let t = Instant::now();
                if ping_c.publish(req.as_str(), q, false, msg.clone()).await.is_err() {
                    break;
                }
                sent += (i >= warm) as u64;
                loop {
                    match tokio::time::timeout(reply_to, ping_el.poll()).await {
                        Ok(Ok(Event::Incoming(Packet::Publish(_)))) => {
                            if i >= warm {
                                samples.push(t.elapsed().as_nanos() as u64);
                            }
                            break;
                        }
                        Ok(Ok(_)) => {}
                        Ok(Err(e)) => {
                            lost += (i >= warm) as u64;
                            error = Some(format!("bare pinger connection: {}", describe_conn(&e)));
                            break 'outer;
                        }
                        Err(_) => {
                            lost += (i >= warm) as u64;
                            break;
                        }
                    }
                }
            }
            (samples, sent, lost, error)
        }
    });
    // ------------------------------------------------------------------------------------------

    let deadline = tokio::time::Instant::from_std(t0 + Duration::from_millis(cfg.deadline_ms));
    let mut errors = Vec::new();
    let mut ended_by = EndReason::Complete;
    let (samples, sent, lost) = match tokio::time::timeout_at(deadline, ping).await {
        Ok(Ok((s, sent, lost, err))) => {
            if let Some(e) = err {
                errors.push(e);
                ended_by = EndReason::ConnectionLost;
            }
            (s, sent, lost)
        }
        Ok(Err(e)) => return Err(MqttError::Config(format!("bare pinger task failed: {e}"))),
        Err(_) => {
            ended_by = EndReason::Deadline;
            (Vec::new(), 0, 0)
        }
    };
    let end_at = Instant::now();
    let cpu = cpu0.finish(&clocks);
    echo.abort();
    if ended_by == EndReason::Complete && lost > 0 {
        ended_by = EndReason::DrainTimeout;
    }
    let received = samples.len() as u64;
    let elapsed = end_at.duration_since(t0).as_secs_f64();
    let mut r = EchoResult {
        harness: Harness::BareRumqttc,
        broker: ep,
        req_topic: req,
        resp_topic: resp,
        payload_bytes: payload.len(),
        mode: "closed-loop".into(),
        delivery: EchoDelivery {
            sent,
            received,
            lost,
            late: 0,
            duplicates: None,
            unexpected: 0,
            delivery_ratio: if sent == 0 { 0.0 } else { received as f64 / sent as f64 },
        },
        rtt: latency_stats(&samples),
        achieved_rate: if elapsed > 0.0 { received as f64 / elapsed } else { 0.0 },
        stall: detect_nagle_stall(&samples),
        elapsed_seconds: elapsed,
        cpu,
        ended_by,
        errors,
        warnings: Vec::new(),
        samples_ns: if cfg.keep_samples { samples } else { Vec::new() },
        config: cfg,
    };
    if r.config.rate.is_some() {
        r.warnings.push("the bare baseline is closed-loop only: `rate` was ignored".into());
    }
    add_warnings(&mut r);
    Ok(r)
}

async fn wait_suback(ep: &Endpoint, el: &mut EventLoop, s: &ClientSettings) -> Result<(), MqttError> {
    let ms = s.connect_timeout.as_millis() as u64;
    let fut = async {
        loop {
            match el.poll().await {
                Ok(Event::Incoming(Packet::SubAck(_))) => return Ok(()),
                Ok(_) => {}
                Err(e) => return Err(MqttError::Connect { url: ep.url.clone(), reason: describe_conn(&e) }),
            }
        }
    };
    tokio::time::timeout(s.connect_timeout, fut).await.map_err(|_| MqttError::Timeout {
        what: "connect/subscribe".into(),
        url: ep.url.clone(),
        ms,
    })?
}

fn add_warnings(r: &mut EchoResult) {
    if let Some(s) = &r.stall {
        r.warnings.push(s.message.clone());
    }
    let d = &r.delivery;
    if d.lost > 0 {
        r.warnings
            .push(format!("{} of {} requests got no reply within {} ms", d.lost, d.sent, r.config.reply_timeout_ms));
    }
    if r.cpu.harness_bound {
        r.warnings.push(format!(
            "harness-bound: our client threads used {:.2} cores; latencies include our own queueing",
            r.cpu.harness_cores
        ));
    }
}
