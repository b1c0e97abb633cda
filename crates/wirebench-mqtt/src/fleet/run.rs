//! One fleet run, in its phases: this shard's subscribers connected, the devices connected
//! (paced), every device publishing on its schedule, the drain, the stop, and the accounting
//! into the run's row ([`FleetRun`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rumqttc::{AsyncClient, Event, EventLoop, Outgoing, Packet};
use tokio::sync::Semaphore;

use wirebench_core::sections::fleet::{
    ConnectStats, FleetCpu, FleetDelivery, FleetRun, Hist, PayloadStats, Traffic, TCP_IP_OVERHEAD,
};

use super::{publish_len, schedule, FleetBroker, FleetConfig, ProbeLog, FLEET_HEADER_LEN};
use crate::client::{ClientSettings, Qos};
use crate::cpu::{self, CpuUsage};
use crate::endpoint::{Endpoint, MqttBroker};
use crate::error::{describe_conn, MqttError};
use crate::framing::Payloads;

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
pub(super) struct DeviceRx {
    pub(super) received: u32,
    pub(super) duplicated: u32,
    pub(super) reordered: u32,
    highest: Option<u32>,
    seen: Vec<u64>,
}

impl DeviceRx {
    /// Count a delivery of `seq`; true when it is new.
    pub(super) fn add(&mut self, seq: u32) -> bool {
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
    let (rt, clocks) = cpu::runtime(cfg.worker_threads)?;
    let run = Run::new(broker, cfg, format, ep, range, payloads);

    // 1. Subscribers (each with its group's filter; subscriber 0 also carries the clock probes).
    let subs = run.start_subscribers(&rt, probes)?;

    // 2. Devices connect, paced and bounded.
    let (clients, connected) = run.connect_devices(&rt, progress);

    // 3. Publish: every device on its schedule from t0; then drain.
    let published = run.publish(&rt, &clocks, clients, payloads);
    run.drain();
    let usage = run.usage(&clocks, &published);

    // 4. Stop: disconnect everything, collect the subscribers' accounts.
    let results = run.stop(&rt, &published.device_clients, subs);
    rt.shutdown_timeout(Duration::from_secs(2));

    // 5. Account.
    Ok(run.account(source, payloads, &connected, &published, &usage, results))
}

/// What every phase of one run works with.
struct Run<'a> {
    broker: &'a FleetBroker,
    cfg: &'a FleetConfig,
    format: &'a str,
    ep: Endpoint,
    range: std::ops::Range<u64>,
    devices_here: u64,
    settings: ClientSettings,
    topic_root: String,
    shared: Arc<Shared>,
}

/// The tallies of the devices' connection attempts, shared by their tasks.
#[derive(Clone)]
struct ConnectTally {
    setup: Arc<Mutex<Rec>>,
    first_errors: Arc<Mutex<Vec<String>>>,
    failed: Arc<AtomicU64>,
    retries: Arc<AtomicU64>,
}

/// A connected device: its global id, its client and its event loop.
type DeviceClient = (u64, AsyncClient, EventLoop);

/// How the devices connected (phase 2).
struct Connected {
    tally: ConnectTally,
    phase_s: f64,
    overflows: Option<u64>,
    connected: u64,
    /// Per device of the shard, in order: whether it connected.
    ids: Vec<bool>,
}

/// The publishing phase (3): when it started, what the schedules called for, and the devices'
/// clients (kept until the run stops).
struct Published {
    t0: Instant,
    cpu_start: cpu::CpuStart,
    broker_cpu0: Option<f64>,
    /// Messages each device's schedule calls for (its sends, and what its subscriber must see).
    due: Vec<u64>,
    scheduled: u64,
    device_clients: Vec<AsyncClient>,
}

/// CPU and memory at the end of the drain.
struct Usage {
    end: Instant,
    cpu: CpuUsage,
    broker_cpu1: Option<f64>,
    broker_rss: Option<u64>,
    broker_peak: Option<u64>,
    process_rss: u64,
}

impl<'a> Run<'a> {
    fn new(
        broker: &'a FleetBroker,
        cfg: &'a FleetConfig,
        format: &'a str,
        ep: Endpoint,
        range: std::ops::Range<u64>,
        payloads: &Payloads,
    ) -> Run<'a> {
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
        let devices_here = range.end - range.start;
        Run { broker, cfg, format, ep, range, devices_here, settings, topic_root, shared }
    }

    /// Phase 1: the subscribers connected and subscribed, their tasks running.
    fn start_subscribers(
        &self,
        rt: &tokio::runtime::Runtime,
        probes: &ProbeLog,
    ) -> Result<Vec<tokio::task::JoinHandle<SubResult>>, MqttError> {
        let (cfg, settings, ep, shared) = (self.cfg, &self.settings, &self.ep, &self.shared);
        let mut subs = Vec::new();
        for k in 0..cfg.subscribers {
            let id = format!("wb-{}-s{}-{}-{k}", cfg.run_id, cfg.shard_index, short(self.format));
            let (client, mut el) = rt.block_on(settings.connect(ep, &id))?;
            let filter = format!("{}/{k}/+", self.topic_root);
            rt.block_on(settings.subscribe(ep, &client, &mut el, &filter, cfg.qos))?;
            let clock = format!("wbf/{}/clock", cfg.run_id);
            if k == 0 {
                rt.block_on(settings.subscribe(ep, &client, &mut el, &clock, Qos::AtMostOnce))?;
            }
            subs.push(rt.spawn(subscriber(el, Arc::clone(shared), self.range.clone(), probes.clone())));
            if k == 0 {
                rt.spawn(prober(client, clock, cfg.shard_index, Arc::clone(shared)));
            } else {
                // Keep the handle alive until the run ends (dropping it would end the event loop).
                let s = Arc::clone(shared);
                rt.spawn(async move {
                    while !s.stop.load(Ordering::Relaxed) {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    let _ = client.try_disconnect();
                });
            }
        }
        Ok(subs)
    }

    /// Phase 2: every device of the shard connects, paced at the connect rate and at most
    /// `connect_concurrency` at once; per device in order, its client when it connected.
    fn connect_devices(
        &self,
        rt: &tokio::runtime::Runtime,
        progress: Progress,
    ) -> (Vec<Option<DeviceClient>>, Connected) {
        let (cfg, format, devices_here) = (self.cfg, self.format, self.devices_here);
        progress(&format!("fleet {format}: connecting {devices_here} devices to {}", self.ep.url));
        let overflows0 = listen_overflows();
        let connect_start = Instant::now();
        let tally = ConnectTally {
            setup: Arc::new(Mutex::new(Rec::new())),
            first_errors: Arc::new(Mutex::new(Vec::<String>::new())),
            failed: Arc::new(AtomicU64::new(0)),
            retries: Arc::new(AtomicU64::new(0)),
        };
        let clients: Vec<Option<DeviceClient>> = rt.block_on(async {
            let sem = Arc::new(Semaphore::new(cfg.connect_concurrency));
            let gap = Duration::from_secs_f64(1.0 / cfg.connect_rate);
            let mut handles = Vec::with_capacity(devices_here as usize);
            let mut next = tokio::time::Instant::now();
            for d in self.range.clone() {
                tokio::time::sleep_until(next).await;
                next += gap;
                let permit = Arc::clone(&sem).acquire_owned().await.expect("semaphore open");
                let (settings, ep) = (self.settings.clone(), self.broker.device_endpoint(d));
                let id = format!("wb-{}-{}-{d}", cfg.run_id, short(format));
                handles.push(tokio::spawn(connect_device(settings, ep, id, d, permit, tally.clone())));
            }
            let mut out = Vec::with_capacity(handles.len());
            for h in handles {
                out.push(h.await.ok().flatten());
            }
            out
        });
        let phase_s = connect_start.elapsed().as_secs_f64();
        let overflows = match (self.broker.pid(), overflows0, listen_overflows()) {
            (Some(_), Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        let connected = clients.iter().filter(|c| c.is_some()).count() as u64;
        let ids: Vec<bool> = clients.iter().map(|c| c.is_some()).collect();
        progress(&format!(
            "fleet {format}: {connected} of {devices_here} devices connected in {phase_s:.1} s; publishing for {:.0} s",
            cfg.duration_ms as f64 / 1e3
        ));
        (clients, Connected { tally, phase_s, overflows, connected, ids })
    }

    /// Phase 3: every connected device publishes on its schedule from t0; returns when the
    /// schedule is over and every device's task has ended.
    fn publish(
        &self,
        rt: &tokio::runtime::Runtime,
        clocks: &cpu::ThreadClocks,
        clients: Vec<Option<DeviceClient>>,
        payloads: &Payloads,
    ) -> Published {
        let (cfg, range, shared) = (self.cfg, &self.range, &self.shared);
        let cpu_start = cpu::CpuStart::take(clocks);
        let broker_cpu0 = self.broker.pid().and_then(proc_cpu_s);
        let t0 = Instant::now() + Duration::from_millis(50);
        let t0_tokio = tokio::time::Instant::from_std(t0);
        let _ = shared.t0.set(t0);
        let due: Vec<u64> = range.clone().map(|d| schedule(cfg, d).count() as u64).collect();
        // What the schedule calls for: every device of the shard, connected or not.
        let scheduled: u64 = due.iter().sum();
        let items: Arc<Vec<Vec<u8>>> = Arc::new((0..payloads.len()).map(|i| payloads.get(i as u64).to_vec()).collect());
        let mut device_tasks = Vec::with_capacity(clients.len());
        for (d, client, el) in clients.into_iter().flatten() {
            let topic = format!("{}/{}/{d}", self.topic_root, d % cfg.subscribers as u64);
            rt.spawn(drive(el, Arc::clone(shared), d));
            device_tasks.push(rt.spawn(device(
                client,
                topic,
                d,
                cfg.clone(),
                t0,
                t0_tokio,
                Arc::clone(&items),
                Arc::clone(shared),
            )));
        }
        // Wait out the schedule.
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
        Published { t0, cpu_start, broker_cpu0, due, scheduled, device_clients }
    }

    /// Wait for the messages still on their way (and, at QoS 1, their acknowledgements): until
    /// all arrived, nothing arrived for `min(drain, 2 s)`, or the drain period is over.
    fn drain(&self) {
        let (cfg, shared) = (self.cfg, &self.shared);
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
    }

    /// The harness's and the broker's CPU since publishing started, and their memory, now.
    fn usage(&self, clocks: &cpu::ThreadClocks, published: &Published) -> Usage {
        let end = Instant::now();
        let cpu = published.cpu_start.finish(clocks);
        let broker_cpu1 = self.broker.pid().and_then(proc_cpu_s);
        let (broker_rss, broker_peak) = self.broker.pid().map(proc_rss).unwrap_or((None, None));
        let process_rss = proc_rss(std::process::id()).0.unwrap_or(0);
        Usage { end, cpu, broker_cpu1, broker_rss, broker_peak, process_rss }
    }

    /// Phase 4: every client disconnected, the subscribers' accounts collected.
    fn stop(
        &self,
        rt: &tokio::runtime::Runtime,
        device_clients: &[AsyncClient],
        subs: Vec<tokio::task::JoinHandle<SubResult>>,
    ) -> Vec<SubResult> {
        for c in device_clients {
            let _ = c.try_disconnect();
        }
        self.shared.stop.store(true, Ordering::Relaxed);
        rt.block_on(async {
            let mut v = Vec::new();
            for s in subs {
                if let Ok(r) = s.await {
                    v.push(r);
                }
            }
            v
        })
    }

    /// Phase 5: the subscribers' accounts, the counters and the CPU into the run's row.
    fn account(
        &self,
        source: &str,
        payloads: &Payloads,
        connected: &Connected,
        published: &Published,
        usage: &Usage,
        results: Vec<SubResult>,
    ) -> FleetRun {
        let cfg = self.cfg;
        let (per, latency) = merge_subscribers(self.devices_here as usize, results);
        let received: u64 = per.iter().map(|p| p.received as u64).sum();
        let (with_loss, worst) = losses(&self.range, &connected.ids, &per, &published.due);
        let sent = self.shared.sent.load(Ordering::Relaxed);
        let acked = self.shared.acked.load(Ordering::Relaxed);
        let duration_s = cfg.duration_ms as f64 / 1e3;
        let lag = self.shared.lag.lock().map(|l| l.hist()).unwrap_or_default();
        let wall = (usage.end - published.t0).as_secs_f64().max(1e-9);
        let broker_cpu = match (published.broker_cpu0, usage.broker_cpu1) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        };
        let broker_cores = broker_cpu.map(|c| c / wall);
        let lag_p99_ms = lag.p99.map_or(0.0, |q| q.value as f64 / 1e3);
        let (bottleneck, reason) = bottleneck(cfg, &usage.cpu, broker_cores, lag_p99_ms);
        let (errors, warnings) = self.problems(connected.connected);
        let (kind, name) = self.broker.describe();
        FleetRun {
            format: self.format.to_string(),
            devices: cfg.devices,
            devices_here: self.devices_here,
            broker_kind: kind,
            broker: name,
            qos: cfg.qos.level(),
            period_ms: cfg.period_ms,
            jitter: cfg.jitter,
            burst: cfg.burst,
            duration_s,
            subscribers: cfg.subscribers,
            payload: payload_stats(source, payloads),
            connect: connected.stats(self.devices_here),
            delivery: self.delivery(published.scheduled, sent, acked, received, &per, with_loss, worst),
            traffic: self.traffic(sent, acked, received),
            latency_us: latency.hist(),
            send_lag_us: lag,
            cpu: FleetCpu {
                wall_s: wall,
                machine_cores: usage.cpu.machine_cores as u32,
                harness_cpu_s: usage.cpu.harness_cpu_seconds,
                harness_cores: usage.cpu.harness_cpu_seconds / wall,
                harness_threads: cfg.worker_threads as u32,
                broker_cpu_s: broker_cpu,
                broker_cores,
                broker_rss_bytes: usage.broker_rss,
                broker_rss_peak_bytes: usage.broker_peak,
                process_rss_bytes: usage.process_rss,
                bottleneck: bottleneck.into(),
                bottleneck_reason: reason,
            },
            errors,
            warnings,
        }
    }

    /// The delivery accounting of the run.
    #[allow(clippy::too_many_arguments)]
    fn delivery(
        &self,
        scheduled: u64,
        sent: u64,
        acked: u64,
        received: u64,
        per: &[DeviceRx],
        with_loss: u64,
        worst: Vec<[u64; 2]>,
    ) -> FleetDelivery {
        FleetDelivery {
            scheduled,
            sent,
            acked: (self.cfg.qos == Qos::AtLeastOnce).then_some(acked),
            received,
            lost: sent.saturating_sub(received),
            duplicated: per.iter().map(|p| p.duplicated as u64).sum(),
            reordered: per.iter().map(|p| p.reordered as u64).sum(),
            unexpected: self.shared.unexpected.load(Ordering::Relaxed),
            delivery_ratio: if scheduled == 0 { 0.0 } else { received as f64 / scheduled as f64 },
            devices_with_loss: with_loss,
            devices_with_duplicates: per.iter().filter(|p| p.duplicated > 0).count() as u64,
            devices_with_reordering: per.iter().filter(|p| p.reordered > 0).count() as u64,
            worst_devices: worst,
        }
    }

    /// Messages and bytes per second over the publishing window, up- and downlink.
    fn traffic(&self, sent: u64, acked: u64, received: u64) -> Traffic {
        let duration_s = self.cfg.duration_ms as f64 / 1e3;
        let per_s = |x: f64| x / duration_s;
        let mqtt_bytes = self.shared.mqtt_bytes.load(Ordering::Relaxed) as f64;
        let app_bytes = self.shared.app_bytes.load(Ordering::Relaxed) as f64;
        let wire = mqtt_bytes + sent as f64 * TCP_IP_OVERHEAD as f64;
        let down = if self.cfg.qos == Qos::AtLeastOnce { acked as f64 * (4 + TCP_IP_OVERHEAD) as f64 } else { 0.0 };
        Traffic {
            window_s: duration_s,
            msgs_per_s: per_s(received as f64),
            app_bytes_per_s: per_s(app_bytes),
            mqtt_bytes_per_s: per_s(mqtt_bytes),
            wire_bytes_per_s: per_s(wire),
            downlink_wire_bytes_per_s: per_s(down),
            mqtt_bytes_per_msg: if sent > 0 { mqtt_bytes / sent as f64 } else { 0.0 },
            wire_bytes_per_msg: if sent > 0 { wire / sent as f64 } else { 0.0 },
        }
    }

    /// The run's errors (devices that could not connect first) and warnings.
    fn problems(&self, connected: u64) -> (Vec<String>, Vec<String>) {
        let (shared, devices_here) = (&self.shared, self.devices_here);
        let mut warnings = Vec::new();
        let sf = shared.send_failed.load(Ordering::Relaxed);
        if sf > 0 {
            warnings.push(format!(
                "{sf} messages could not be handed to their client (its request queue was full or closed)"
            ));
        }
        let dis = shared.disconnected.load(Ordering::Relaxed);
        if dis > 0 {
            warnings.push(format!("{dis} devices lost their connection during the run"));
        }
        let mut errors = shared.errors.lock().map(|v| v.clone()).unwrap_or_default();
        if connected < devices_here {
            errors.insert(0, format!("{} of {devices_here} devices could not connect", devices_here - connected));
        }
        (errors, warnings)
    }
}

impl Connected {
    /// The connection accounting of the run.
    fn stats(&self, devices_here: u64) -> ConnectStats {
        let t = &self.tally;
        ConnectStats {
            attempted: devices_here,
            connected: self.connected,
            failed: t.failed.load(Ordering::Relaxed),
            retries: t.retries.load(Ordering::Relaxed),
            rate_per_s: if self.phase_s > 0.0 { self.connected as f64 / self.phase_s } else { 0.0 },
            phase_s: self.phase_s,
            setup_us: t.setup.lock().map(|s| s.hist()).unwrap_or_default(),
            first_errors: t.first_errors.lock().map(|v| v.clone()).unwrap_or_default(),
            listen_overflows: self.overflows,
        }
    }
}

/// One device's connection, as a device would make it: tried again (after 0.5 s, then 1 s)
/// when the broker does not answer; the setup time counts from the first attempt. The permit
/// is given back when the attempts end.
async fn connect_device(
    settings: ClientSettings,
    ep: Endpoint,
    id: String,
    d: u64,
    permit: tokio::sync::OwnedSemaphorePermit,
    tally: ConnectTally,
) -> Option<DeviceClient> {
    let t = Instant::now();
    // Each attempt has its own client id: a broker that takes the abandoned attempt's
    // CONNECT late must not take over (close) the live connection.
    let mut r = settings.connect(&ep, &id).await;
    for (attempt, backoff) in [500, 1000].into_iter().enumerate() {
        if r.is_ok() {
            break;
        }
        tally.retries.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(backoff)).await;
        r = settings.connect(&ep, &format!("{id}-r{}", attempt + 1)).await;
    }
    drop(permit);
    match r {
        Ok((c, el)) => {
            if let Ok(mut s) = tally.setup.lock() {
                s.record(t.elapsed().as_micros() as u64);
            }
            Some((d, c, el))
        }
        Err(e) => {
            tally.failed.fetch_add(1, Ordering::Relaxed);
            if let Ok(mut v) = tally.first_errors.lock() {
                let m = e.to_string();
                if v.len() < 5 && !v.contains(&m) {
                    v.push(m);
                }
            }
            None
        }
    }
}

/// The subscribers' accounts merged: per device of the shard, and the latency histogram.
fn merge_subscribers(n: usize, results: Vec<SubResult>) -> (Vec<DeviceRx>, Rec) {
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
    (per, latency)
}

/// Devices with a loss, and the ten that lost most (`[device, lost]`). Per device, loss is what
/// its schedule called for minus what arrived (devices that never connected are left out: they
/// sent nothing).
fn losses(range: &std::ops::Range<u64>, connected: &[bool], per: &[DeviceRx], due: &[u64]) -> (u64, Vec<[u64; 2]>) {
    let mut worst: Vec<[u64; 2]> = Vec::new();
    let mut with_loss = 0;
    for (i, d) in range.clone().enumerate() {
        if !connected[i] {
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
    (with_loss, worst)
}

/// What set the pace: `harness`, `broker` or `none`, and why.
fn bottleneck(
    cfg: &FleetConfig,
    cpu_usage: &CpuUsage,
    broker_cores: Option<f64>,
    lag_p99_ms: f64,
) -> (&'static str, String) {
    let usable = (cfg.worker_threads.min(cpu_usage.machine_cores)) as f64;
    if cpu_usage.harness_cores >= 0.9 * usable {
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
    }
}

/// The payloads' sizes.
fn payload_stats(source: &str, payloads: &Payloads) -> PayloadStats {
    let lens: Vec<u64> = (0..payloads.len()).map(|i| payloads.get(i as u64).len() as u64).collect();
    PayloadStats {
        source: source.to_string(),
        distinct: lens.len() as u64,
        min_bytes: lens.iter().copied().min().unwrap_or(0),
        max_bytes: lens.iter().copied().max().unwrap_or(0),
        mean_bytes: lens.iter().sum::<u64>() as f64 / lens.len().max(1) as f64,
        header_bytes: FLEET_HEADER_LEN as u64,
    }
}

/// A format id as it goes into client ids (short, no separators).
fn short(format: &str) -> String {
    format.chars().filter(|c| c.is_ascii_alphanumeric()).take(12).collect()
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
