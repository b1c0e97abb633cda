//! Ping-pong latency: half of each round trip, pooled over the whole run.
//!
//! One round trip: set the key (instance `i % instances`), marshal the sample, write it on
//! PING_TOPIC; the pong takes it, unmarshals, marshals again and writes it on PONG_TOPIC; we
//! take it and unmarshal it. The clock runs from before our marshal to after our unmarshal, so
//! each half round trip holds one marshal, one DDS write → read over RTPS, one unmarshal: the
//! DataWriter → DataReader latency of the seed with marshalling on both sides. Pings go back to
//! back (the next one when the pong is in), like `ddsperf ping` without a rate.
//!
//! Both ends take in a data-available listener on Cyclone's receive thread and answer from
//! there, like ddsperf (which uses listeners by default).
//!
//! Reliable, KEEP_LAST 1 per instance on both topics. A ping with no pong within
//! `resend_after` is sent again and not recorded (counted as a retry; after `max_retries` the
//! run fails): so a lost first ping during discovery can never hang the run.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::config::loopback_xml;
use crate::marshal::{Codec, KeyedOctets, Marshal};
use crate::peer::{Peer, PeerMode, PeerOpts, PeerReport, Role};
use crate::{DdsError, Participant, Taker, Writer, KEYEDSEQ_FIXED, PING_TOPIC, PONG_TOPIC};
use wirebench_core::sections::dds::PooledSummary;
use wirebench_measure::stats::{cdf_points, percentile_nearest_rank};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LatencyOpts {
    pub domain: u32,
    /// Payload octets of the sample.
    pub size: usize,
    pub marshal: Marshal,
    /// Key values cycle over this many instances.
    pub instances: u32,
    /// Samples per instance per iteration.
    pub samples: u32,
    /// Iterations of instances × samples round trips (all pooled).
    pub iterations: u32,
    /// Round trips before recording.
    pub warmup: u32,
    /// Recording goes on until the round trips are done and at least this many seconds passed.
    #[serde(default)]
    pub min_secs: f64,
    /// Count Rust heap allocations (needs the counting global allocator in this process).
    pub count_allocs: bool,
    #[serde(with = "secs")]
    pub resend_after: Duration,
    pub max_retries: u32,
}

impl LatencyOpts {
    pub fn new(domain: u32, size: usize, marshal: Marshal) -> LatencyOpts {
        LatencyOpts {
            domain,
            size,
            marshal,
            instances: 100,
            samples: 20,
            iterations: 1,
            warmup: 200,
            min_secs: 0.0,
            count_allocs: false,
            resend_after: Duration::from_secs(1),
            max_retries: 20,
        }
    }

    pub fn round_trips(&self) -> u64 {
        u64::from(self.instances.max(1)) * u64::from(self.samples) * u64::from(self.iterations)
    }
}

mod secs {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let v = f64::deserialize(d)?;
        Duration::try_from_secs_f64(v).map_err(serde::de::Error::custom)
    }
}

/// One ping-pong run (results data, in `wirebench-core`).
pub use wirebench_core::sections::dds::LatencyResult;

/// The ping side's state, shared by the main thread and the pong listener.
struct PingState {
    seq: u32,
    key: u32,
    t0: Instant,
    /// The current ping was sent more than once: not recorded.
    resent: bool,
    warmup_left: u32,
    half: Vec<f64>,
    total: u64,
    /// Recording ends no sooner than this many seconds after its first round trip.
    min_run: Duration,
    recording_since: Option<Instant>,
    /// Seconds from the first recorded round trip to the last.
    recorded_secs: f64,
    sample: KeyedOctets,
    buf: Vec<u8>,
    error: Option<DdsError>,
    done: bool,
}

impl PingState {
    fn send(&mut self, writer: &Writer, marshal: Marshal) -> Result<(), DdsError> {
        self.t0 = Instant::now();
        marshal.encode(&self.sample, &mut self.buf)?;
        writer.write(self.seq, self.key, &self.buf)?;
        writer.flush()
    }

    fn next(&mut self, instances: u32) {
        self.seq = self.seq.wrapping_add(1);
        self.key = self.seq % instances;
        self.sample.set_key(self.key);
        self.resent = false;
    }
}

/// Run a ping-pong against a pong started in `mode`.
///
/// Pongs are taken by a data-available listener on Cyclone's receive thread, which records the
/// round trip and sends the next ping right there (ddsperf's default triggering); the main
/// thread only starts the run, resends a ping lost during discovery, and waits for the end.
pub fn run(opts: &LatencyOpts, mode: PeerMode) -> Result<LatencyResult, DdsError> {
    let total = opts.round_trips();
    if total == 0 || total > 100_000_000 {
        return Err(DdsError::Config(format!("round trips must be 1..=10^8, not {total}")));
    }
    let pp = Participant::new(opts.domain, &loopback_xml())?;
    let writer = pp.writer(PING_TOPIC, true, 1)?;
    let instances = opts.instances.max(1);
    let mut sample = KeyedOctets::new(opts.size, 0x5eed);
    sample.set_key(0);
    let mut buf = Vec::with_capacity(opts.size * 4 + 64);
    opts.marshal.encode(&sample, &mut buf)?;
    let baggage_bytes = buf.len();
    let shared = Arc::new((
        Mutex::new(PingState {
            seq: 0,
            key: 0,
            t0: Instant::now(),
            resent: false,
            warmup_left: opts.warmup,
            half: Vec::with_capacity(total as usize),
            total,
            min_run: Duration::from_secs_f64(opts.min_secs.clamp(0.0, 600.0)),
            recording_since: None,
            recorded_secs: 0.0,
            sample,
            buf,
            error: None,
            done: false,
        }),
        Condvar::new(),
    ));
    let (marshal, size) = (opts.marshal, opts.size);
    let sh = Arc::clone(&shared);
    let handler = Box::new(move |t: &mut Taker| {
        let (lock, cvar) = &*sh;
        let Ok(mut st) = lock.lock() else { return };
        if st.done {
            let _ = t.take(|_| Ok::<(), DdsError>(()));
            return;
        }
        let (seq, key) = (st.seq, st.key);
        let mut got = false;
        let r = t.take(|s| {
            if s.seq != seq {
                return Ok(()); // a late pong of an earlier, resent ping
            }
            let v = marshal.decode(s.baggage)?;
            if v.value_field.len() != size || s.keyval != key {
                return Err(DdsError::Marshal(format!(
                    "pong {seq}: {} octets for key {}, expected {size} for key {key}",
                    v.value_field.len(),
                    s.keyval
                )));
            }
            got = true;
            Ok(())
        });
        if let Err(e) = r {
            st.error = Some(e.into());
            st.done = true;
            cvar.notify_all();
            return;
        }
        if !got {
            return;
        }
        let us = st.t0.elapsed().as_secs_f64() * 1e6 / 2.0;
        if st.warmup_left > 0 {
            st.warmup_left -= 1;
            if st.warmup_left == 0 {
                // The first recorded ping goes out now.
                st.recording_since = Some(Instant::now());
            }
        } else {
            if !st.resent {
                st.half.push(us);
            }
            st.recording_since.get_or_insert_with(Instant::now);
        }
        let recorded = st.recording_since.map_or(Duration::ZERO, |t| t.elapsed());
        if st.half.len() as u64 >= st.total && recorded >= st.min_run {
            st.recorded_secs = recorded.as_secs_f64();
            st.done = true;
            cvar.notify_all();
            return;
        }
        st.next(instances);
        if let Err(e) = st.send(&writer, marshal) {
            st.error = Some(e);
            st.done = true;
            cvar.notify_all();
        }
    });
    let reader = pp.listened_reader(PONG_TOPIC, true, 1, handler)?;
    let count_in_peer = opts.count_allocs && matches!(mode, PeerMode::Process(_));
    let peer_opts = PeerOpts {
        role: Role::Pong,
        domain: opts.domain,
        marshal: opts.marshal,
        size: opts.size,
        samples: 0,
        instances: opts.instances,
        batch: false,
        count_allocs: count_in_peer,
    };
    let mut peer = Peer::start(&peer_opts, mode)?;
    peer.wait_ready(Duration::from_secs(20))?;
    let deadline = Instant::now() + Duration::from_secs(20);
    while writer.matched()? == 0 || reader.matched()? == 0 {
        if Instant::now() > deadline {
            return Err(DdsError::Timeout("ping and pong did not match within 20 s".into()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }

    let (lock, cvar) = &*shared;
    let lock_err = || DdsError::Peer("ping state poisoned".into());
    let mut retries = 0u64;
    let mut warm_retries = 0u64;
    let mut body = || -> Result<(), DdsError> {
        let mut st = lock.lock().map_err(|_| lock_err())?;
        st.send(&writer, marshal)?;
        let mut warm = st.warmup_left > 0;
        let mut last = (st.seq, st.warmup_left);
        loop {
            let (g, _) = cvar.wait_timeout(st, opts.resend_after / 4).map_err(|_| lock_err())?;
            st = g;
            if st.done {
                return Ok(());
            }
            if warm && st.warmup_left == 0 {
                warm = false;
                warm_retries = retries;
            }
            if (st.seq, st.warmup_left) != last {
                last = (st.seq, st.warmup_left);
                continue;
            }
            if st.t0.elapsed() >= opts.resend_after {
                retries += 1;
                if retries > u64::from(opts.max_retries) {
                    return Err(DdsError::Timeout(format!(
                        "no pong for ping {} after {} resends of {:?}",
                        st.seq, opts.max_retries, opts.resend_after
                    )));
                }
                st.resent = true;
                st.send(&writer, marshal)?;
            }
        }
    };
    let mut outcome = Ok(());
    let allocs = if opts.count_allocs {
        wirebench_measure::alloc::measure(1, || outcome = body())
    } else {
        outcome = body();
        None
    };
    // Stop the listener before reading the results.
    drop(reader);
    outcome?;
    let mut st = lock.lock().map_err(|_| lock_err())?;
    if let Some(e) = st.error.take() {
        return Err(e);
    }
    let mut half_sorted = std::mem::take(&mut st.half);
    let secs = st.recorded_secs;
    drop(st);
    let peer_report = peer.stop(Duration::from_secs(10))?;
    let n = (half_sorted.len() as f64 + f64::from(opts.warmup)).max(1.0);
    let summary = summarize(&mut half_sorted);
    // Per sample: our side did one marshal + one unmarshal per round trip, so did the pong.
    // (Counting covers the warm-up round trips too, hence n includes them.)
    let ours = allocs.map(|a| (a.allocs_per_op / n, a.bytes_per_op / n));
    let (allocs_per_sample, alloc_bytes_per_sample) = match (ours, mode_counted(count_in_peer, &peer_report)) {
        (Some((a, b)), Some((pa, pb))) => (Some((a + pa) / 2.0), Some((b + pb) / 2.0)),
        (Some((a, b)), None) if !count_in_peer => (Some(a / 2.0), Some(b / 2.0)),
        _ => (None, None),
    };
    Ok(LatencyResult {
        domain: Some(opts.domain),
        size: opts.size,
        marshal: opts.marshal,
        instances,
        samples: opts.samples,
        iterations: opts.iterations,
        baggage_bytes,
        wire_bytes: baggage_bytes + KEYEDSEQ_FIXED,
        round_trips: summary.count,
        retries: retries - warm_retries,
        round: 0,
        cdf: cdf_points(&half_sorted, 200).into_iter().map(|(x, pct)| (x, pct / 100.0)).collect(),
        half_rtt_us: summary,
        allocs_per_sample,
        alloc_bytes_per_sample,
        secs,
        peer: peer_report,
    })
}

fn mode_counted(counted: bool, r: &PeerReport) -> Option<(f64, f64)> {
    if !counted {
        return None;
    }
    Some((r.allocs_per_sample?, r.alloc_bytes_per_sample?))
}

/// Pool every half round trip of a run (sorted in place): count, mean, sample standard
/// deviation, and nearest-rank percentiles (every value reported is a measured round trip, as
/// ddsperf reports them).
pub fn summarize(values: &mut [f64]) -> PooledSummary {
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    if n == 0 {
        return PooledSummary::default();
    }
    let avg = values.iter().sum::<f64>() / n as f64;
    let var = if n > 1 { values.iter().map(|v| (v - avg) * (v - avg)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
    PooledSummary {
        count: n as u64,
        avg,
        stddev: var.sqrt(),
        min: values[0],
        p50: percentile_nearest_rank(values, 0.50),
        p90: percentile_nearest_rank(values, 0.90),
        p99: percentile_nearest_rank(values, 0.99),
        max: values[n - 1],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_pooled_and_monotonic() {
        let mut v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let s = summarize(&mut v);
        assert_eq!(s.count, 100);
        assert_eq!((s.min, s.p50, s.p90, s.p99, s.max), (1.0, 50.0, 90.0, 99.0, 100.0));
        assert!((s.avg - 50.5).abs() < 1e-12);
        assert!((s.stddev - 29.011_491_975_882_016).abs() < 1e-9);
        assert!(s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.max);
        assert_eq!(summarize(&mut []).count, 0);
    }
}
