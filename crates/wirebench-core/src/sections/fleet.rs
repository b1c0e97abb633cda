//! The `fleet` results section: many simulated devices publishing over MQTT, one run per
//! format × fleet size, with delivery accounting, latency from the scheduled send time, the
//! bytes a fleet puts on the uplink and what it costs the broker.
//!
//! Written by `wirebench fleet` and the `[fleet]` study part (the engine is
//! `wirebench_mqtt::fleet`), combined across shards by `wirebench merge` ([`merge`]), rendered by
//! `wirebench_report::fleet`.
//!
//! Histograms are kept as their non-empty buckets (`[value, count]`, value = the highest value
//! the bucket holds, 3 significant digits), so that shards merge exactly: adding the counts of
//! equal buckets gives the histogram one process would have recorded, and the percentiles of a
//! merged file are computed from it the same way as those of a single run.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Version of the `fleet` section layout.
pub const FLEET_SECTION_VERSION: u32 = 1;

/// The whole `fleet` section.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct FleetSection {
    /// [`FLEET_SECTION_VERSION`] when written.
    pub version: u32,
    /// The run id every shard of one fleet shares (it names the topics).
    pub run_id: String,
    /// The processes that measured this section: one entry for a single process or a shard
    /// file, one per shard for a merged file.
    pub shards: Vec<ShardInfo>,
    /// The shards' clocks against each other (merged files of two or more shards).
    pub clock: Option<ClockSkew>,
    /// One row per format × fleet size, in run order.
    pub runs: Vec<FleetRun>,
    pub notes: Vec<String>,
}

impl FleetSection {
    /// How many runs recorded errors (devices that could not connect, connections lost: a
    /// broker that went away) and the first run's first error, if any. A fleet with such a
    /// run exits 1, its figures kept.
    pub fn first_failure(&self) -> Option<(usize, String)> {
        let failed: Vec<&FleetRun> = self.runs.iter().filter(|r| !r.errors.is_empty()).collect();
        let r = failed.first()?;
        Some((failed.len(), format!("{}, {} devices: {}", r.format, r.devices, r.errors[0])))
    }
}

/// One process of a fleet measurement.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ShardInfo {
    /// 0-based shard index and the number of shards (`0` of `1` for an unsharded run).
    pub index: u32,
    pub count: u32,
    pub host: String,
    pub pid: u32,
    /// Wall-clock start and end of the process's measurement, Unix ms (its own clock).
    pub started_unix_ms: u64,
    pub ended_unix_ms: u64,
    /// The open-file limit the run needed, and what it was before and after raising it.
    pub fd_limit: FdLimit,
    /// Clock probes this shard received from every shard (itself included), through the broker.
    pub probes: Vec<ClockProbe>,
}

/// The process's open-file limit (`RLIMIT_NOFILE`).
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
pub struct FdLimit {
    pub needed: u64,
    pub soft_before: u64,
    pub hard_before: u64,
    pub soft: u64,
    pub hard: u64,
}

/// The smallest `receive time − send time` of the clock probes one shard received from another
/// (each on its own clock): a bound on their clocks' skew together with the reverse direction.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ClockProbe {
    pub from_shard: u32,
    pub received: u64,
    pub min_delay_us: i64,
}

/// How far the shards' clocks can be apart, from the probes each shard published through the
/// broker. For shards i and j, with d(i→j) the smallest `receive(j) − send(i)`: the offset of
/// j's clock against i's lies in `[−d(j→i), d(i→j)]` (a message cannot arrive before it was
/// sent). Latencies do not depend on it (every message is timed on the clock of the process
/// that scheduled and received it); the fleet's time window does.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ClockSkew {
    /// The largest bound over all pairs of shards, µs (absent when some pair has no probes).
    pub max_skew_bound_us: Option<u64>,
    /// Pairs of shards without probes both ways (they did not run at the same time).
    pub unbounded_pairs: Vec<[u32; 2]>,
}

/// One fleet run: one format, one fleet size.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct FleetRun {
    pub format: String,
    /// Devices of the whole fleet (all shards).
    pub devices: u64,
    /// Devices this row covers (this shard's slice; equal to `devices` when merged).
    pub devices_here: u64,
    /// `embedded-rumqttd`, `mosquitto` or `external`, and its name or URL.
    pub broker_kind: String,
    pub broker: String,
    pub qos: u8,
    /// Each device publishes every `period_ms`, each interval stretched by a uniform factor in
    /// `[1 − jitter, 1 + jitter]`; `burst`: every device starts at the same instant.
    pub period_ms: u64,
    pub jitter: f64,
    pub burst: bool,
    /// How long the devices publish, seconds.
    pub duration_s: f64,
    pub subscribers: u32,
    /// The codec payloads the devices send in turn.
    pub payload: PayloadStats,
    pub connect: ConnectStats,
    pub delivery: FleetDelivery,
    pub traffic: Traffic,
    /// From the scheduled send time to the subscriber's receipt, µs.
    pub latency_us: Hist,
    /// From the scheduled send time to the moment the device handed the message to its client,
    /// µs: how late the harness was (timer granularity, or an overloaded harness).
    pub send_lag_us: Hist,
    pub cpu: FleetCpu,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
}

/// The payloads of a run.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PayloadStats {
    /// Where they come from: a corpus name or `samples`.
    pub source: String,
    pub distinct: u64,
    pub min_bytes: u64,
    pub max_bytes: u64,
    pub mean_bytes: f64,
    /// Bytes of our header in front of each payload (device id, sequence, scheduled time).
    pub header_bytes: u64,
}

/// Connection setup of the devices.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ConnectStats {
    pub attempted: u64,
    pub connected: u64,
    pub failed: u64,
    /// Attempts that timed out or were refused and were tried again (up to 2 per device).
    pub retries: u64,
    /// Connections set up per second over the connect phase.
    pub rate_per_s: f64,
    pub phase_s: f64,
    /// TCP connect + CONNECT → CONNACK, µs.
    pub setup_us: Hist,
    /// The first few distinct failures.
    pub first_errors: Vec<String>,
    /// Connections the kernel dropped during the connect phase because a listener's accept
    /// queue was full (`TcpExtListenOverflows` of this machine; a SYN retried after 1 s each):
    /// the broker did not accept as fast as the fleet connected. Absent for a broker elsewhere.
    pub listen_overflows: Option<u64>,
}

/// Delivery accounting over the whole run; per-device figures as counts of devices.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct FleetDelivery {
    /// Messages the schedule called for: every device of the shard, connected or not.
    pub scheduled: u64,
    /// Messages handed to the MQTT client.
    pub sent: u64,
    /// QoS 1: PUBACKs received by the devices.
    pub acked: Option<u64>,
    /// Distinct messages the subscribers received.
    pub received: u64,
    /// `sent − received` (what was scheduled and never sent is `scheduled − sent`).
    pub lost: u64,
    pub duplicated: u64,
    /// Deliveries whose sequence number is below one already received from the same device.
    pub reordered: u64,
    /// Deliveries without our header or from a device or sequence never sent.
    pub unexpected: u64,
    /// `received / scheduled`: what arrived of what the schedule called for (a broker that
    /// died mid-run leaves the rest unsent, and that is not delivery).
    pub delivery_ratio: f64,
    pub devices_with_loss: u64,
    pub devices_with_duplicates: u64,
    pub devices_with_reordering: u64,
    /// The devices that lost the most (at most 10): device id and messages lost.
    pub worst_devices: Vec<[u64; 2]>,
}

/// What the fleet puts on the uplink (devices → broker), per second of the publishing window.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct Traffic {
    /// The publishing window the rates are over: first scheduled send to the last receipt, s.
    pub window_s: f64,
    pub msgs_per_s: f64,
    /// Codec payload bytes per second.
    pub app_bytes_per_s: f64,
    /// MQTT PUBLISH packets (fixed header, topic, packet id, our header, payload) per second.
    pub mqtt_bytes_per_s: f64,
    /// PUBLISH packets plus TCP/IPv4 headers ([`TCP_IP_OVERHEAD`] bytes per packet), one
    /// segment per message (TCP_NODELAY, one message per period).
    pub wire_bytes_per_s: f64,
    /// Broker → devices: PUBACKs (QoS 1) with their TCP/IP headers, per second.
    pub downlink_wire_bytes_per_s: f64,
    /// Per message, uplink: MQTT PUBLISH bytes and wire bytes (mean).
    pub mqtt_bytes_per_msg: f64,
    pub wire_bytes_per_msg: f64,
}

/// TCP/IPv4 header bytes per segment in [`Traffic`]: IPv4 20 + TCP 20 + timestamps option 12.
pub const TCP_IP_OVERHEAD: u64 = 52;

/// CPU and memory of the harness and the broker over the publishing window.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct FleetCpu {
    pub wall_s: f64,
    pub machine_cores: u32,
    /// The harness's threads (devices and subscribers).
    pub harness_cpu_s: f64,
    pub harness_cores: f64,
    pub harness_threads: u32,
    /// The broker's CPU when it runs on this machine (the embedded broker: the process's CPU
    /// minus the harness's; mosquitto: its process), absent for a broker elsewhere.
    pub broker_cpu_s: Option<f64>,
    pub broker_cores: Option<f64>,
    /// Resident memory of the broker process at the end and at its peak (mosquitto only: the
    /// embedded broker shares our process, see `process_rss_bytes`).
    pub broker_rss_bytes: Option<u64>,
    pub broker_rss_peak_bytes: Option<u64>,
    /// Resident memory of this process at the end of the run.
    pub process_rss_bytes: u64,
    /// `harness`, `broker` or `none`, and why.
    pub bottleneck: String,
    pub bottleneck_reason: String,
}

/// A latency histogram: exact count, sum, extremes; bucketed percentiles.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
pub struct Hist {
    pub count: u64,
    pub min: u64,
    pub max: u64,
    pub sum: u128,
    pub mean: f64,
    pub p50: Option<Quantile>,
    pub p90: Option<Quantile>,
    pub p99: Option<Quantile>,
    pub p999: Option<Quantile>,
    /// Non-empty buckets, `[highest value of the bucket, count]`, ascending.
    pub buckets: Vec<[u64; 2]>,
}

/// A percentile with its 95 % confidence interval (distribution-free: the order statistics at
/// the ranks `n·q ± 1.96·√(n·q·(1−q))`).
#[derive(Serialize, Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq)]
pub struct Quantile {
    pub value: u64,
    pub lo: u64,
    pub hi: u64,
}

impl Hist {
    /// A histogram from its buckets (any order, equal values added) and exact extremes and sum;
    /// fills the mean and the percentiles.
    pub fn from_buckets(mut buckets: Vec<[u64; 2]>, min: u64, max: u64, sum: u128) -> Hist {
        buckets.retain(|b| b[1] > 0);
        buckets.sort_unstable_by_key(|b| b[0]);
        let mut merged: Vec<[u64; 2]> = Vec::with_capacity(buckets.len());
        for b in buckets {
            match merged.last_mut() {
                Some(last) if last[0] == b[0] => last[1] += b[1],
                _ => merged.push(b),
            }
        }
        let count: u64 = merged.iter().map(|b| b[1]).sum();
        let mut h = Hist {
            count,
            min: if count == 0 { 0 } else { min },
            max: if count == 0 { 0 } else { max },
            sum,
            mean: if count == 0 { 0.0 } else { sum as f64 / count as f64 },
            p50: None,
            p90: None,
            p99: None,
            p999: None,
            buckets: merged,
        };
        h.p50 = h.quantile(0.5);
        h.p90 = h.quantile(0.9);
        h.p99 = h.quantile(0.99);
        h.p999 = h.quantile(0.999);
        h
    }

    /// The value at 1-based rank `r` (clamped to `1..=count`), capped by the exact maximum.
    fn at_rank(&self, r: u64) -> u64 {
        let r = r.clamp(1, self.count.max(1));
        let mut seen = 0;
        for b in &self.buckets {
            seen += b[1];
            if seen >= r {
                return b[0].min(self.max).max(self.min);
            }
        }
        self.max
    }

    /// The `q` quantile (0 < q < 1) and its 95 % confidence interval; `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<Quantile> {
        if self.count == 0 {
            return None;
        }
        let n = self.count as f64;
        let rank = (n * q).ceil().max(1.0);
        let half = 1.96 * (n * q * (1.0 - q)).sqrt();
        Some(Quantile {
            value: self.at_rank(rank as u64),
            lo: self.at_rank((n * q - half).floor().max(1.0) as u64),
            hi: self.at_rank((n * q + half).ceil() as u64 + 1),
        })
    }

    /// Both histograms' samples in one.
    pub fn merged(&self, other: &Hist) -> Hist {
        let (min, max) = match (self.count, other.count) {
            (0, _) => (other.min, other.max),
            (_, 0) => (self.min, self.max),
            _ => (self.min.min(other.min), self.max.max(other.max)),
        };
        let mut b = self.buckets.clone();
        b.extend_from_slice(&other.buckets);
        Hist::from_buckets(b, min, max, self.sum + other.sum)
    }
}

impl Quantile {
    /// Whether two estimates' confidence intervals overlap.
    pub fn overlaps(&self, other: &Quantile) -> bool {
        self.lo <= other.hi && other.lo <= self.hi
    }
}

/// Why shard files cannot be merged.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct MergeError(pub String);

/// Combine the `fleet` sections of the shards of one fleet (any order): every shard `0..N` once,
/// the same run id and the same runs. Counts are summed, histograms merged bucket by bucket,
/// CPU summed over the shards' harnesses; the clocks' skew is bounded from the probes.
pub fn merge(parts: &[(&str, &FleetSection)]) -> Result<FleetSection, MergeError> {
    let err = |m: String| Err(MergeError(m));
    let Some((first_name, first)) = parts.first() else {
        return err("no shard files to merge".into());
    };
    let mut shards: Vec<ShardInfo> = Vec::new();
    let count = first.shards.first().map_or(0, |s| s.count);
    for (name, s) in parts {
        if s.version != FLEET_SECTION_VERSION {
            return err(format!(
                "{name}: fleet section version {} (this wirebench reads {FLEET_SECTION_VERSION})",
                s.version
            ));
        }
        if s.run_id != first.run_id {
            return err(format!(
                "{name}: run id {:?}, but {first_name} has {:?}: not shards of one fleet",
                s.run_id, first.run_id
            ));
        }
        if s.shards.len() != 1 {
            return err(format!("{name}: holds {} shards already (merge the shard files themselves)", s.shards.len()));
        }
        let sh = &s.shards[0];
        if sh.count != count {
            return err(format!("{name}: shard {}/{}, but {first_name} is one of {count}", sh.index, sh.count));
        }
        if let Some(dup) = shards.iter().find(|o| o.index == sh.index) {
            let _ = dup;
            return err(format!("{name}: shard {} appears twice", sh.index));
        }
        if s.runs.len() != first.runs.len()
            || s.runs.iter().zip(&first.runs).any(|(a, b)| a.format != b.format || a.devices != b.devices)
        {
            return err(format!("{name}: its runs (format × fleet size) differ from {first_name}'s"));
        }
        shards.push(sh.clone());
    }
    if shards.len() as u32 != count {
        let mut missing: Vec<u32> = (0..count).filter(|i| !shards.iter().any(|s| s.index == *i)).collect();
        missing.truncate(10);
        return err(format!(
            "{} shard files for a fleet of {count} shards: missing shard(s) {missing:?}",
            shards.len()
        ));
    }
    shards.sort_by_key(|s| s.index);
    let mut runs = Vec::with_capacity(first.runs.len());
    for (i, r0) in first.runs.iter().enumerate() {
        let mut r = r0.clone();
        for (name, s) in &parts[1..] {
            let o = &s.runs[i];
            if o.broker != r.broker
                || o.qos != r.qos
                || o.period_ms != r.period_ms
                || o.jitter != r.jitter
                || o.burst != r.burst
            {
                return err(format!(
                    "{name}: run {} ({}, {} devices) was measured with another broker, QoS or schedule",
                    i + 1,
                    o.format,
                    o.devices
                ));
            }
            merge_run(&mut r, o);
        }
        finish_run(&mut r);
        runs.push(r);
    }
    let mut notes = first.notes.clone();
    for (_, s) in &parts[1..] {
        for n in &s.notes {
            if !notes.contains(n) {
                notes.push(n.clone());
            }
        }
    }
    Ok(FleetSection {
        version: FLEET_SECTION_VERSION,
        run_id: first.run_id.clone(),
        clock: Some(skew(&shards)),
        shards,
        runs,
        notes,
    })
}

fn merge_run(r: &mut FleetRun, o: &FleetRun) {
    r.devices_here += o.devices_here;
    r.subscribers += o.subscribers;
    let (c, oc) = (&mut r.connect, &o.connect);
    c.attempted += oc.attempted;
    c.connected += oc.connected;
    c.failed += oc.failed;
    c.retries += oc.retries;
    c.listen_overflows = match (c.listen_overflows, oc.listen_overflows) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    c.phase_s = c.phase_s.max(oc.phase_s);
    c.rate_per_s += oc.rate_per_s;
    c.setup_us = c.setup_us.merged(&oc.setup_us);
    for e in &oc.first_errors {
        if c.first_errors.len() < 10 && !c.first_errors.contains(e) {
            c.first_errors.push(e.clone());
        }
    }
    let (d, od) = (&mut r.delivery, &o.delivery);
    d.scheduled += od.scheduled;
    d.sent += od.sent;
    d.acked = match (d.acked, od.acked) {
        (Some(a), Some(b)) => Some(a + b),
        _ => None,
    };
    d.received += od.received;
    d.lost += od.lost;
    d.duplicated += od.duplicated;
    d.reordered += od.reordered;
    d.unexpected += od.unexpected;
    d.devices_with_loss += od.devices_with_loss;
    d.devices_with_duplicates += od.devices_with_duplicates;
    d.devices_with_reordering += od.devices_with_reordering;
    d.worst_devices.extend_from_slice(&od.worst_devices);
    // Rates add up (the shards publish at the same time); the window is the longest.
    let (t, ot) = (&mut r.traffic, &o.traffic);
    t.window_s = t.window_s.max(ot.window_s);
    t.msgs_per_s += ot.msgs_per_s;
    t.app_bytes_per_s += ot.app_bytes_per_s;
    t.mqtt_bytes_per_s += ot.mqtt_bytes_per_s;
    t.wire_bytes_per_s += ot.wire_bytes_per_s;
    t.downlink_wire_bytes_per_s += ot.downlink_wire_bytes_per_s;
    r.latency_us = r.latency_us.merged(&o.latency_us);
    r.send_lag_us = r.send_lag_us.merged(&o.send_lag_us);
    let (u, ou) = (&mut r.cpu, &o.cpu);
    u.wall_s = u.wall_s.max(ou.wall_s);
    u.harness_cpu_s += ou.harness_cpu_s;
    u.harness_cores += ou.harness_cores;
    u.harness_threads += ou.harness_threads;
    u.machine_cores += ou.machine_cores;
    u.process_rss_bytes += ou.process_rss_bytes;
    // A broker on the shards' machines is measured by each of them the same: keep the largest.
    u.broker_cpu_s = max_opt(u.broker_cpu_s, ou.broker_cpu_s);
    u.broker_cores = max_opt(u.broker_cores, ou.broker_cores);
    u.broker_rss_bytes = u.broker_rss_bytes.max(ou.broker_rss_bytes);
    u.broker_rss_peak_bytes = u.broker_rss_peak_bytes.max(ou.broker_rss_peak_bytes);
    if ou.bottleneck != "none" && u.bottleneck == "none" {
        u.bottleneck = ou.bottleneck.clone();
        u.bottleneck_reason = ou.bottleneck_reason.clone();
    }
    r.errors.extend(o.errors.iter().cloned());
    for w in &o.warnings {
        if !r.warnings.contains(w) {
            r.warnings.push(w.clone());
        }
    }
    r.payload.distinct = r.payload.distinct.max(o.payload.distinct);
}

fn max_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

fn finish_run(r: &mut FleetRun) {
    let d = &mut r.delivery;
    d.delivery_ratio = if d.scheduled == 0 { 0.0 } else { d.received as f64 / d.scheduled as f64 };
    d.worst_devices.sort_by(|a, b| b[1].cmp(&a[1]).then(a[0].cmp(&b[0])));
    d.worst_devices.truncate(10);
    let t = &mut r.traffic;
    if t.msgs_per_s > 0.0 {
        t.mqtt_bytes_per_msg = t.mqtt_bytes_per_s / t.msgs_per_s;
        t.wire_bytes_per_msg = t.wire_bytes_per_s / t.msgs_per_s;
    }
}

/// The bound on the shards' clock skew from their probes.
pub fn skew(shards: &[ShardInfo]) -> ClockSkew {
    let delay = |from: u32, to: &ShardInfo| {
        to.probes.iter().find(|p| p.from_shard == from && p.received > 0).map(|p| p.min_delay_us)
    };
    let mut max_bound: Option<u64> = Some(0);
    let mut unbounded = Vec::new();
    for (a, i) in shards.iter().enumerate() {
        for j in &shards[a + 1..] {
            match (delay(i.index, j), delay(j.index, i)) {
                (Some(ij), Some(ji)) => {
                    // offset(j − i) ∈ [−ji, ij]
                    let b = ij.max(-ij).max(ji).max(-ji).max(0) as u64;
                    max_bound = max_bound.map(|m| m.max(b));
                }
                _ => unbounded.push([i.index, j.index]),
            }
        }
    }
    ClockSkew { max_skew_bound_us: if unbounded.is_empty() { max_bound } else { None }, unbounded_pairs: unbounded }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(values: &[u64]) -> Hist {
        let b: Vec<[u64; 2]> = values.iter().map(|&v| [v, 1]).collect();
        Hist::from_buckets(
            b,
            *values.iter().min().unwrap(),
            *values.iter().max().unwrap(),
            values.iter().map(|&v| v as u128).sum(),
        )
    }

    #[test]
    fn quantiles_and_their_intervals() {
        let v: Vec<u64> = (1..=1000).collect();
        let h = hist(&v);
        assert_eq!(h.count, 1000);
        let p50 = h.p50.unwrap();
        assert_eq!(p50.value, 500);
        // 1.96·√(250) ≈ 31
        assert!(p50.lo >= 465 && p50.lo < 500 && p50.hi > 500 && p50.hi <= 535, "{p50:?}");
        assert_eq!(h.p99.unwrap().value, 990);
        assert_eq!(h.p999.unwrap().value, 999);
        assert_eq!(h.mean, 500.5);
        assert!(Hist::from_buckets(vec![], 0, 0, 0).p50.is_none());
    }

    #[test]
    fn merging_buckets_is_exact() {
        let all: Vec<u64> = (0..500).map(|i| (i * 37 % 211) as u64 + 3).collect();
        let (a, b) = all.split_at(173);
        let m = hist(a).merged(&hist(b));
        assert_eq!(m, hist(&all));
    }

    #[test]
    fn skew_is_bounded_by_probes_both_ways() {
        let sh = |index, probes: Vec<(u32, i64)>| ShardInfo {
            index,
            count: 2,
            host: "h".into(),
            pid: 1,
            started_unix_ms: 0,
            ended_unix_ms: 0,
            fd_limit: FdLimit::default(),
            probes: probes
                .into_iter()
                .map(|(f, d)| ClockProbe { from_shard: f, received: 3, min_delay_us: d })
                .collect(),
        };
        // j's clock 400 µs ahead of i's, delays 100 µs: i→j shows 500, j→i shows −300.
        let s = skew(&[sh(0, vec![(1, -300)]), sh(1, vec![(0, 500)])]);
        assert_eq!(s.max_skew_bound_us, Some(500));
        let s = skew(&[sh(0, vec![]), sh(1, vec![(0, 500)])]);
        assert_eq!(s.max_skew_bound_us, None);
        assert_eq!(s.unbounded_pairs, vec![[0, 1]]);
    }
}
