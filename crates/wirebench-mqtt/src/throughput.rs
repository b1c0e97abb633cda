//! Throughput: one publisher, one subscriber on one topic, delivery accounted per sequence
//! number; and the same with a bare rumqttc pair for the ratio.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rumqttc::{AsyncClient, Event, EventLoop, Outgoing, Packet};
use serde::{Deserialize, Serialize};
use tokio::sync::{oneshot, Notify};

use crate::client::{
    check_common, publish_packet_len, run_id, ClientSettings, EndReason, Harness, Qos, MAX_TIMEOUT_MS,
};
use crate::cpu::{self, CpuStart, CpuUsage, ThreadClocks};
use crate::endpoint::{Endpoint, MqttBroker};
use crate::error::{describe_conn, MqttError};
use crate::framing::{frame, parse_seq, PayloadInfo, Payloads, HEADER_LEN};
use crate::topic::validate_topic;

/// How the subscriber checks whether the run is over when no message arrives.
const TICK: Duration = Duration::from_millis(20);

/// Configuration of a throughput run (echoed in the result).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ThroughputConfig {
    /// Messages to publish.
    pub messages: u64,
    pub qos: Qos,
    /// Topic; `None` = a fresh `wirebench/<run id>/thr` per run.
    pub topic: Option<String>,
    /// Capacity of each client's request channel (rumqttc `AsyncClient::new(_, cap)`).
    pub channel_capacity: usize,
    /// QoS 1 messages in flight per client.
    pub inflight: u16,
    /// TCP_NODELAY on the client sockets (default true).
    pub tcp_nodelay: bool,
    /// Worker threads of the client runtime (ours and bare alike).
    pub worker_threads: usize,
    /// Largest MQTT packet the clients send or accept, bytes.
    pub max_packet_size: usize,
    pub connect_timeout_ms: u64,
    /// The drain period: once sending has ended (every message sent, or the deadline reached),
    /// deliveries and PUBACKs still count until everything sent is received (and acknowledged
    /// at QoS 1), nothing has arrived for this long, or this long has passed since the
    /// deadline. What has not arrived by then is lost (and, at QoS 1, unacknowledged).
    pub drain_timeout_ms: u64,
    /// Limit on the sending part of the run; the drain period may follow it.
    pub deadline_ms: u64,
}

impl Default for ThroughputConfig {
    fn default() -> Self {
        ThroughputConfig {
            messages: 100_000,
            qos: Qos::AtMostOnce,
            topic: None,
            channel_capacity: 100,
            inflight: 100,
            tcp_nodelay: true,
            worker_threads: 2,
            max_packet_size: 1 << 20,
            connect_timeout_ms: 5_000,
            drain_timeout_ms: 2_000,
            deadline_ms: 60_000,
        }
    }
}

/// Delivery accounting. For our harness `received + lost == sent` exactly.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    /// Messages the run meant to publish (`config.messages`).
    pub attempted: u64,
    /// Messages the client accepted for sending.
    pub sent: u64,
    /// Messages the client wrote to its socket.
    pub written: u64,
    /// QoS 1: PUBACKs received by the publisher by the end of the drain period.
    pub acked: Option<u64>,
    /// QoS 1: `sent - acked`, the messages whose PUBACK had not arrived by then.
    pub unacked: Option<u64>,
    /// Distinct messages the subscriber received (bare baseline: every delivery).
    pub received: u64,
    /// `sent - received`.
    pub lost: u64,
    /// Deliveries of a sequence number already received (`None` for the bare baseline).
    pub duplicates: Option<u64>,
    /// Deliveries whose sequence number is below the highest received before them.
    pub reordered: Option<u64>,
    /// Deliveries without our header or with a sequence number never sent.
    pub unexpected: u64,
    /// `received / attempted`: what arrived of what the run meant to publish (a broker that
    /// died mid-run leaves the rest unsent, and that is not delivery).
    pub delivery_ratio: f64,
}

/// A rate over part of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    pub messages: u64,
    /// From the first publish to the last message counted here.
    pub seconds: f64,
    pub msgs_per_s: f64,
    /// Codec payload bytes (without our 8-byte header) per second, in 10^6 bytes.
    pub mb_per_s: f64,
}

impl Rate {
    fn new(messages: u64, bytes: u64, seconds: f64) -> Rate {
        let per = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
        Rate { messages, seconds, msgs_per_s: per(messages as f64), mb_per_s: per(bytes as f64) / 1e6 }
    }
}

/// The result of one throughput run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThroughputResult {
    pub harness: Harness,
    pub broker: Endpoint,
    pub config: ThroughputConfig,
    pub topic: String,
    pub payloads: PayloadInfo,
    pub delivery: Delivery,
    /// Publisher side: messages written (QoS 0) or acknowledged (QoS 1).
    pub publisher: Rate,
    /// Subscriber side: distinct messages received, up to the last one.
    pub subscriber: Rate,
    /// First publish to the end of the run (including the drain period).
    pub elapsed_seconds: f64,
    pub cpu: CpuUsage,
    pub ended_by: EndReason,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
}

impl ThroughputConfig {
    fn topic_or_default(&self) -> String {
        self.topic.clone().unwrap_or_else(|| format!("wirebench/{}/thr", run_id()))
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

    fn validate(&self, payloads: &Payloads, topic: &str) -> Result<(), MqttError> {
        validate_topic(topic)?;
        check_common(
            self.channel_capacity,
            self.inflight,
            self.worker_threads,
            self.deadline_ms,
            self.connect_timeout_ms,
        )?;
        if self.drain_timeout_ms > MAX_TIMEOUT_MS {
            return Err(MqttError::Config(format!("drain_timeout_ms must be ≤ {MAX_TIMEOUT_MS}")));
        }
        if self.messages == 0 || self.messages > 1_000_000_000 {
            return Err(MqttError::Config(format!("messages must be in 1..=1e9, not {}", self.messages)));
        }
        let need = publish_packet_len(topic, HEADER_LEN + payloads.max_len());
        if need > self.max_packet_size {
            return Err(MqttError::Config(format!(
                "a {}-byte payload makes a {need}-byte PUBLISH packet, above max_packet_size {}",
                payloads.max_len(),
                self.max_packet_size
            )));
        }
        Ok(())
    }
}

/// Throughput of wirebench's measuring clients: messages `0..messages` carry our 8-byte
/// sequence header followed by `payloads.get(seq)`; the subscriber counts distinct, duplicate,
/// reordered and missing sequence numbers, the publisher written messages and PUBACKs. Every
/// step is bounded: connect and subscribe by `connect_timeout_ms`, sending by `deadline_ms`,
/// the wait for deliveries and PUBACKs still in flight by `drain_timeout_ms` (a run takes at
/// most `deadline_ms + drain_timeout_ms` once connected); a broker that disappears ends the run
/// with the losses counted.
pub fn throughput(
    broker: &impl MqttBroker,
    payloads: &Payloads,
    cfg: &ThroughputConfig,
) -> Result<ThroughputResult, MqttError> {
    let ep = broker.endpoint();
    let topic = cfg.topic_or_default();
    cfg.validate(payloads, &topic)?;
    let (rt, clocks) = cpu::runtime(cfg.worker_threads)?;
    let out = rt.block_on(ours(ep, topic, payloads.clone(), cfg.clone(), clocks));
    rt.shutdown_timeout(Duration::from_millis(500));
    out
}

/// The same run with the minimal rumqttc code a user would write (same runtime, same socket
/// options and channel sizes, messages of the same size: 8 zero bytes + the payload), for the
/// ratio. It counts deliveries, not sequence numbers.
pub fn baseline_throughput(
    broker: &impl MqttBroker,
    payloads: &Payloads,
    cfg: &ThroughputConfig,
) -> Result<ThroughputResult, MqttError> {
    let ep = broker.endpoint();
    let topic = cfg.topic_or_default();
    cfg.validate(payloads, &topic)?;
    let (rt, clocks) = cpu::runtime(cfg.worker_threads)?;
    let out = rt.block_on(bare(ep, topic, payloads.clone(), cfg.clone(), clocks));
    rt.shutdown_timeout(Duration::from_millis(500));
    out
}

#[derive(Default)]
struct Shared {
    /// Final count of messages the publisher handed to the client (valid once `pub_done`).
    sent: AtomicU64,
    pub_done: AtomicBool,
    /// Nanoseconds from t0 to the publisher's end.
    pub_done_ns: AtomicU64,
    /// Fired once by the publisher's event loop when everything sent is written (QoS 0) or
    /// acknowledged (QoS 1), or when its connection fails.
    pel_done: Notify,
}

#[derive(Default)]
struct PelOut {
    written: u64,
    acked: u64,
    done_at: Option<Instant>,
    error: Option<String>,
}

/// Polls the publisher's event loop until told to stop (a oneshot: polling it is lock-free)
/// or its connection fails; counts writes and PUBACKs.
async fn publisher_eventloop(
    mut el: EventLoop,
    qos: Qos,
    n: u64,
    sh: Arc<Shared>,
    mut stop: oneshot::Receiver<()>,
) -> PelOut {
    let mut o = PelOut::default();
    let complete =
        |c: u64, sh: &Shared| c == n || (sh.pub_done.load(Ordering::Acquire) && c >= sh.sent.load(Ordering::Acquire));
    loop {
        tokio::select! {
            biased;
            ev = el.poll() => match ev {
                Ok(Event::Outgoing(Outgoing::Publish(_))) => {
                    o.written += 1;
                    if qos == Qos::AtMostOnce && o.done_at.is_none() && complete(o.written, &sh) {
                        o.done_at = Some(Instant::now());
                        sh.pel_done.notify_one();
                    }
                }
                Ok(Event::Incoming(Packet::PubAck(_))) => {
                    o.acked += 1;
                    if qos == Qos::AtLeastOnce && o.done_at.is_none() && complete(o.acked, &sh) {
                        o.done_at = Some(Instant::now());
                        sh.pel_done.notify_one();
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    o.error = Some(format!("publisher connection: {}", describe_conn(&e)));
                    sh.pel_done.notify_one();
                    break;
                }
            },
            _ = &mut stop => break,
        }
    }
    // Dropping the event loop closes the request channel: a publisher blocked on it returns.
    drop(el);
    o
}

#[derive(Default)]
struct PubOut {
    sent: u64,
    error: Option<String>,
}

#[allow(clippy::too_many_arguments)]
async fn publish_loop(
    client: AsyncClient,
    topic: String,
    qos: Qos,
    payloads: Payloads,
    n: u64,
    sh: Arc<Shared>,
    t0: Instant,
    deadline: tokio::time::Instant,
) -> PubOut {
    let mut o = PubOut::default();
    let dl = tokio::time::sleep_until(deadline);
    tokio::pin!(dl);
    let q = qos.rumqttc();
    while o.sent < n {
        let msg = frame(o.sent, payloads.get(o.sent));
        tokio::select! {
            biased;
            r = client.publish(topic.as_str(), q, false, msg) => match r {
                Ok(()) => o.sent += 1,
                Err(_) => {
                    o.error = Some(format!("publisher stopped after {} of {n} messages: its connection is gone", o.sent));
                    break;
                }
            },
            _ = &mut dl => {
                o.error = Some(format!("deadline reached after {} of {n} messages were sent", o.sent));
                break;
            }
        }
    }
    sh.sent.store(o.sent, Ordering::Release);
    sh.pub_done_ns.store(t0.elapsed().as_nanos() as u64, Ordering::Release);
    sh.pub_done.store(true, Ordering::Release);
    o
}

struct SubOut {
    received: u64,
    bytes: u64,
    duplicates: u64,
    reordered: u64,
    unexpected: u64,
    last_at: Option<Instant>,
    end: EndReason,
    error: Option<String>,
}

async fn subscribe_loop(
    mut el: EventLoop,
    n: u64,
    sh: Arc<Shared>,
    t0: Instant,
    deadline: Instant,
    drain: Duration,
) -> SubOut {
    let mut seen = vec![0u64; n.div_ceil(64) as usize];
    let mut o = SubOut {
        received: 0,
        bytes: 0,
        duplicates: 0,
        reordered: 0,
        unexpected: 0,
        last_at: None,
        end: EndReason::Complete,
        error: None,
    };
    let mut high = 0u64; // highest sequence number received + 1
    let tick = tokio::time::sleep(TICK);
    tokio::pin!(tick);
    loop {
        tokio::select! {
            biased;
            ev = el.poll() => match ev {
                Ok(Event::Incoming(Packet::Publish(p))) => match parse_seq(&p.payload) {
                    Some(s) if s < n => {
                        let (w, b) = ((s / 64) as usize, 1u64 << (s % 64));
                        if seen[w] & b != 0 {
                            o.duplicates += 1;
                        } else {
                            seen[w] |= b;
                            o.received += 1;
                            o.bytes += (p.payload.len() - HEADER_LEN) as u64;
                            if s < high {
                                o.reordered += 1;
                            } else {
                                high = s + 1;
                            }
                            o.last_at = Some(Instant::now());
                            if o.received == n {
                                break;
                            }
                        }
                    }
                    _ => o.unexpected += 1,
                },
                Ok(_) => {}
                Err(e) => {
                    o.error = Some(format!("subscriber connection: {}", describe_conn(&e)));
                    o.end = EndReason::ConnectionLost;
                    break;
                }
            },
            _ = &mut tick => {
                let now = Instant::now();
                // Sending stops at the deadline; deliveries still count for the drain period.
                if now >= deadline + drain {
                    o.end = EndReason::Deadline;
                    break;
                }
                if sh.pub_done.load(Ordering::Acquire) {
                    if o.received >= sh.sent.load(Ordering::Acquire) {
                        break;
                    }
                    let done = t0 + Duration::from_nanos(sh.pub_done_ns.load(Ordering::Acquire));
                    let since = o.last_at.map_or(done, |l| l.max(done));
                    if now.duration_since(since) >= drain {
                        o.end = EndReason::DrainTimeout;
                        break;
                    }
                }
                tick.as_mut().reset(tokio::time::Instant::from_std(now + TICK));
            }
        }
    }
    o
}

async fn ours(
    ep: Endpoint,
    topic: String,
    payloads: Payloads,
    cfg: ThroughputConfig,
    clocks: ThreadClocks,
) -> Result<ThroughputResult, MqttError> {
    let s = cfg.settings();
    let id = run_id();
    let (sub_c, mut sub_el) = s.connect(&ep, &format!("wb{id}-sub")).await?;
    s.subscribe(&ep, &sub_c, &mut sub_el, &topic, cfg.qos).await?;
    let (pub_c, pub_el) = s.connect(&ep, &format!("wb{id}-pub")).await?;

    let n = cfg.messages;
    let sh = Arc::new(Shared::default());
    let cpu0 = CpuStart::take(&clocks);
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_millis(cfg.deadline_ms);
    let (stop_pel, pel_stop_rx) = oneshot::channel();
    let pel = tokio::spawn(publisher_eventloop(pub_el, cfg.qos, n, sh.clone(), pel_stop_rx));
    let sub =
        tokio::spawn(subscribe_loop(sub_el, n, sh.clone(), t0, deadline, Duration::from_millis(cfg.drain_timeout_ms)));
    let publ = tokio::spawn(publish_loop(
        pub_c,
        topic.clone(),
        cfg.qos,
        payloads.clone(),
        n,
        sh.clone(),
        t0,
        tokio::time::Instant::from_std(deadline),
    ));

    let mut errors = Vec::new();
    let sub_out = match sub.await {
        Ok(o) => o,
        Err(e) => {
            errors.push(format!("subscriber task failed: {e}"));
            SubOut {
                received: 0,
                bytes: 0,
                duplicates: 0,
                reordered: 0,
                unexpected: 0,
                last_at: None,
                end: EndReason::ConnectionLost,
                error: None,
            }
        }
    };
    let sub_end = Instant::now();
    let cpu = cpu0.finish(&clocks);
    if sub_out.end != EndReason::ConnectionLost && sh.pub_done.load(Ordering::Acquire) {
        // The drain period for the publisher's last writes and PUBACKs: until the drain after
        // the end of sending, and at least a moment after the subscriber's end (its last
        // delivery may have overtaken the PUBACK), never past the deadline + drain.
        let drain = Duration::from_millis(cfg.drain_timeout_ms);
        let pub_end = t0 + Duration::from_nanos(sh.pub_done_ns.load(Ordering::Acquire));
        let until = (pub_end + drain).max(sub_end + drain.min(Duration::from_secs(1))).min(deadline + drain);
        let left = until.saturating_duration_since(Instant::now());
        let _ = tokio::time::timeout(left, sh.pel_done.notified()).await;
    }
    let end_at = Instant::now();
    // Stopping the publisher's event loop drops it, which also ends a publisher still blocked
    // on a full request channel (after a lost subscriber or the deadline).
    let _ = stop_pel.send(());
    let pub_out = publ.await.unwrap_or_else(|e| PubOut { sent: 0, error: Some(format!("publisher task failed: {e}")) });
    let pel_out = pel
        .await
        .unwrap_or_else(|e| PelOut { error: Some(format!("publisher task failed: {e}")), ..Default::default() });
    drop(sub_c);

    let mut ended_by = sub_out.end;
    for e in [&sub_out.error, &pel_out.error].into_iter().flatten() {
        errors.push(e.clone());
        ended_by = EndReason::ConnectionLost;
    }
    if let Some(e) = pub_out.error {
        if matches!(ended_by, EndReason::Complete | EndReason::DrainTimeout) && e.starts_with("deadline") {
            ended_by = EndReason::Deadline;
        }
        errors.push(e);
    }
    let sent = pub_out.sent;
    let qos1 = cfg.qos == Qos::AtLeastOnce;
    if qos1 && pel_out.acked > sent {
        errors.push(format!("accounting: {} PUBACKs for {sent} messages sent", pel_out.acked));
    }
    let delivery = Delivery {
        attempted: n,
        sent,
        written: pel_out.written,
        acked: qos1.then_some(pel_out.acked),
        unacked: qos1.then(|| sent.saturating_sub(pel_out.acked)),
        received: sub_out.received,
        lost: sent.saturating_sub(sub_out.received),
        duplicates: Some(sub_out.duplicates),
        reordered: Some(sub_out.reordered),
        unexpected: sub_out.unexpected,
        delivery_ratio: ratio(sub_out.received, n),
    };
    let pub_count = if cfg.qos == Qos::AtMostOnce { pel_out.written } else { pel_out.acked };
    let pub_secs = pel_out.done_at.unwrap_or(end_at).duration_since(t0).as_secs_f64();
    let sub_secs = sub_out.last_at.unwrap_or(end_at).duration_since(t0).as_secs_f64();
    let mut r = ThroughputResult {
        harness: Harness::Wirebench,
        broker: ep,
        config: cfg,
        topic,
        payloads: payloads.info(),
        delivery,
        publisher: Rate::new(pub_count, payloads.total_bytes(pub_count), pub_secs),
        subscriber: Rate::new(sub_out.received, sub_out.bytes, sub_secs),
        elapsed_seconds: end_at.duration_since(t0).as_secs_f64(),
        cpu,
        ended_by,
        errors,
        warnings: Vec::new(),
    };
    r.warnings = warnings(&r);
    Ok(r)
}

async fn bare(
    ep: Endpoint,
    topic: String,
    payloads: Payloads,
    cfg: ThroughputConfig,
    clocks: ThreadClocks,
) -> Result<ThroughputResult, MqttError> {
    let s = cfg.settings();
    let id = run_id();
    let n = cfg.messages;
    let qos = cfg.qos.rumqttc();
    // Same sizes as ours: 8 bytes where our header goes, then the payload.
    let msgs: Vec<Vec<u8>> = (0..payloads.len() as u64).map(|i| frame(0, payloads.get(i))).collect();

    // --- the bare pair: what a user would write ---------------------------------------------
    let (sub, mut sub_el) = s.client(&ep, &format!("wb{id}-bsub"));
    let (publ, mut pub_el) = s.client(&ep, &format!("wb{id}-bpub"));
    sub.subscribe(topic.as_str(), qos)
        .await
        .map_err(|e| MqttError::InvalidTopic { topic: topic.clone(), reason: e.to_string() })?;
    wait_for(&ep, &mut sub_el, &s, |p| matches!(p, Packet::SubAck(_))).await?;
    wait_for(&ep, &mut pub_el, &s, |p| matches!(p, Packet::ConnAck(_))).await?;

    let received = Arc::new(AtomicU64::new(0));
    let written = Arc::new(AtomicU64::new(0));
    let acked = Arc::new(AtomicU64::new(0));
    let cpu0 = CpuStart::take(&clocks);
    let t0 = Instant::now();
    let is_qos0 = cfg.qos == Qos::AtMostOnce;
    let pel = tokio::spawn({
        let (written, acked) = (written.clone(), acked.clone());
        async move {
            let (mut w, mut a) = (0u64, 0u64);
            loop {
                match pub_el.poll().await {
                    Ok(Event::Outgoing(Outgoing::Publish(_))) => {
                        w += 1;
                        written.store(w, Ordering::Relaxed);
                        if is_qos0 && w == n {
                            return Some(Instant::now());
                        }
                    }
                    Ok(Event::Incoming(Packet::PubAck(_))) => {
                        a += 1;
                        acked.store(a, Ordering::Relaxed);
                        if !is_qos0 && a == n {
                            return Some(Instant::now());
                        }
                    }
                    Ok(_) => {}
                    Err(_) => return None,
                }
            }
        }
    });
    let subt = tokio::spawn({
        let received = received.clone();
        let idle = Duration::from_millis(cfg.drain_timeout_ms);
        async move {
            let (mut count, mut bytes, mut last) = (0u64, 0u64, None);
            loop {
                match tokio::time::timeout(idle, sub_el.poll()).await {
                    Ok(Ok(Event::Incoming(Packet::Publish(p)))) => {
                        count += 1;
                        bytes += p.payload.len() as u64;
                        last = Some(Instant::now());
                        received.store(count, Ordering::Relaxed);
                        if count == n {
                            break;
                        }
                    }
                    Ok(Ok(_)) => {}
                    Ok(Err(_)) | Err(_) => break,
                }
            }
            (bytes, last)
        }
    });
    let pubt = tokio::spawn({
        let topic = topic.clone();
        async move {
            let mut sent = 0u64;
            for i in 0..n {
                let msg = msgs[(i % msgs.len() as u64) as usize].clone();
                if publ.publish(topic.as_str(), qos, false, msg).await.is_err() {
                    break;
                }
                sent += 1;
            }
            sent
        }
    });
    // ------------------------------------------------------------------------------------------

    let deadline = tokio::time::Instant::from_std(t0 + Duration::from_millis(cfg.deadline_ms));
    let mut errors = Vec::new();
    let mut ended_by = EndReason::Complete;
    let sub_res = match tokio::time::timeout_at(deadline, subt).await {
        Ok(Ok(r)) => Some(r),
        Ok(Err(e)) => {
            errors.push(format!("bare subscriber task failed: {e}"));
            None
        }
        Err(_) => {
            ended_by = EndReason::Deadline;
            None
        }
    };
    let end_at = Instant::now();
    let cpu = cpu0.finish(&clocks);
    let sent = match tokio::time::timeout(Duration::from_millis(500), pubt).await {
        Ok(Ok(r)) => r,
        _ => written.load(Ordering::Relaxed),
    };
    let pel_done = match tokio::time::timeout(Duration::from_millis(500), pel).await {
        Ok(Ok(d)) => d,
        _ => None,
    };
    let rec = received.load(Ordering::Relaxed);
    let (bytes, last) = sub_res.unwrap_or((0, None));
    let bytes = bytes.saturating_sub(rec * HEADER_LEN as u64);
    if ended_by == EndReason::Complete && rec < sent {
        ended_by = EndReason::DrainTimeout;
    }
    let w = written.load(Ordering::Relaxed);
    let a = acked.load(Ordering::Relaxed);
    let pub_count = if is_qos0 { w } else { a };
    let mut r = ThroughputResult {
        harness: Harness::BareRumqttc,
        broker: ep,
        topic,
        payloads: payloads.info(),
        delivery: Delivery {
            attempted: n,
            sent,
            written: w,
            acked: (!is_qos0).then_some(a),
            unacked: (!is_qos0).then(|| sent.saturating_sub(a)),
            received: rec,
            lost: sent.saturating_sub(rec),
            duplicates: None,
            reordered: None,
            unexpected: 0,
            delivery_ratio: ratio(rec, n),
        },
        publisher: Rate::new(
            pub_count,
            payloads.total_bytes(pub_count),
            pel_done.unwrap_or(end_at).duration_since(t0).as_secs_f64(),
        ),
        subscriber: Rate::new(rec, bytes, last.unwrap_or(end_at).duration_since(t0).as_secs_f64()),
        elapsed_seconds: end_at.duration_since(t0).as_secs_f64(),
        config: cfg,
        cpu,
        ended_by,
        errors,
        warnings: Vec::new(),
    };
    r.warnings = warnings(&r);
    Ok(r)
}

/// Poll until a packet matches (CONNACK/SUBACK), within the connect timeout.
async fn wait_for(
    ep: &Endpoint,
    el: &mut EventLoop,
    s: &ClientSettings,
    want: impl Fn(&Packet) -> bool,
) -> Result<(), MqttError> {
    let ms = s.connect_timeout.as_millis() as u64;
    let fut = async {
        loop {
            match el.poll().await {
                Ok(Event::Incoming(p)) if want(&p) => return Ok(()),
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

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn warnings(r: &ThroughputResult) -> Vec<String> {
    let mut w = Vec::new();
    let d = &r.delivery;
    if d.lost > 0 {
        w.push(format!(
            "{} of {} messages lost ({:.2} % delivered); rates count delivered messages only",
            d.lost,
            d.sent,
            100.0 * d.delivery_ratio
        ));
    }
    if d.unexpected > 0 {
        w.push(format!(
            "{} deliveries carried no sequence number of this run (another publisher on {:?}?)",
            d.unexpected, r.topic
        ));
    }
    if r.cpu.harness_bound {
        w.push(format!(
            "harness-bound: our client threads used {:.2} cores ({:.2} s CPU over {:.2} s); the broker or link may be faster than measured",
            r.cpu.harness_cores, r.cpu.harness_cpu_seconds, r.cpu.wall_seconds
        ));
    }
    if r.cpu.process_cores >= 0.9 * r.cpu.machine_cores as f64 {
        w.push(format!(
            "machine-bound: the process used {:.2} of {} cores (clients and any embedded broker share the CPU)",
            r.cpu.process_cores, r.cpu.machine_cores
        ));
    }
    w
}
