//! Throughput: a publisher writes N samples flat out on DATA_TOPIC (reliable, KEEP_ALL,
//! writes batched and flushed at the end unless told otherwise); we take them (into the
//! reader's reused loan, up to 256 per take, again only after a full take), unmarshal each one
//! into one reused sample (ddsperf's reader reuses its samples the same way) and count.
//!
//! Samples are taken by a data-available listener on Cyclone's receive thread (ddsperf sub's
//! default triggering).
//!
//! The clock runs from `go` (both ends matched) to the last sample taken and unmarshalled, like
//! the seed's "time until the reader has all N". Delivery accounting: received, lost (never
//! seen), duplicated, out of order.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::config::loopback_xml;
use crate::marshal::{Codec, KeyedOctets, Marshal};
use crate::peer::{Peer, PeerMode, PeerOpts, PeerReport, Role};
use crate::{DdsError, Participant, DATA_TOPIC, KEYEDSEQ_FIXED};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThroughputOpts {
    pub domain: u32,
    pub size: usize,
    pub marshal: Marshal,
    pub samples: u64,
    pub instances: u32,
    pub batch: bool,
    /// Give up when no sample arrives for this long (seconds).
    pub stall_secs: f64,
    pub count_allocs: bool,
}

impl ThroughputOpts {
    pub fn new(domain: u32, size: usize, marshal: Marshal, samples: u64) -> ThroughputOpts {
        ThroughputOpts {
            domain,
            size,
            marshal,
            samples,
            instances: 1,
            batch: true,
            stall_secs: 10.0,
            count_allocs: false,
        }
    }

    /// The publishing peer of this run.
    fn publisher(&self, count_allocs: bool) -> PeerOpts {
        PeerOpts {
            role: Role::Pub,
            domain: self.domain,
            marshal: self.marshal,
            size: self.size,
            samples: self.samples,
            instances: self.instances.max(1),
            batch: self.batch,
            count_allocs,
        }
    }
}

/// One pub/sub run (results data, in `wirebench-core`).
pub use wirebench_core::sections::dds::ThroughputResult;

struct SubState {
    d: Delivery,
    /// When the first tenth of the samples had arrived (start of the steady-state stretch).
    warm_at: Option<(u64, Instant)>,
    baggage_bytes: usize,
    last_arrival: Instant,
    error: Option<DdsError>,
    /// Every sample is unmarshalled into this one (buffer policy: reused).
    sample: KeyedOctets,
    /// (samples received, when) each time another [`MARKS`]th of the run had arrived.
    marks: Vec<(u64, Instant)>,
    next_mark: u64,
}

/// Arrival marks per run: the steady stretch is cut into batches at these for its CI.
const MARKS: u64 = 100;
/// Batches of the steady stretch for the CI (fewer when the run has fewer marks).
const CI_BATCHES: usize = 15;

/// How one run's steady-state CI was formed (printed with the run; the CI itself is the
/// result's `steady_ci95`: a bootstrap over consecutive batches of the steady stretch, batch
/// means of each batch's time per sample resampled, when there are at least three batches).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunStats {
    /// Batches of the steady stretch behind the CI.
    pub batches: usize,
}

/// Batches of the steady stretch from the arrival marks: from the first mark at or after `warm`
/// samples to the last mark, cut into at most `k` runs of consecutive marks; (samples, seconds)
/// each.
pub fn batches(marks: &[(u64, f64)], warm: u64, k: usize) -> Vec<(u64, f64)> {
    let Some(first) = marks.iter().position(|&(n, _)| n >= warm) else { return vec![] };
    let m = &marks[first..];
    let gaps = m.len().saturating_sub(1);
    if gaps == 0 || k == 0 {
        return vec![];
    }
    let k = k.min(gaps);
    (0..k)
        .map(|b| {
            let (i, j) = (b * gaps / k, (b + 1) * gaps / k);
            (m[j].0 - m[i].0, m[j].1 - m[i].1)
        })
        .collect()
}

/// Bootstrap 95 % CI of samples ÷ time over `batches` (the batches resampled with their time
/// per sample, the rate of a resample being 1 ÷ its mean time per sample, weighted by samples).
/// `None` below three batches or with a batch without samples or time.
pub fn rate_ci(batches: &[(u64, f64)], seed: u64) -> Option<(f64, f64)> {
    // `!(t > 0.0)` also refuses a NaN.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if batches.len() < 3 || batches.iter().any(|&(n, t)| n == 0 || !(t > 0.0)) {
        return None;
    }
    let mean_n = batches.iter().map(|b| b.0 as f64).sum::<f64>() / batches.len() as f64;
    // Per batch: seconds it would take for the mean batch size at its own rate.
    let per: Vec<f64> = batches.iter().map(|&(n, t)| t / n as f64 * mean_n).collect();
    let (lo, hi) =
        wirebench_measure::stats::bootstrap_ci(&per, |x| mean_n * x.len() as f64 / x.iter().sum::<f64>(), seed);
    Some((lo, hi))
}

/// Counts delivery of sequence numbers 0..n.
#[derive(Debug)]
pub struct Delivery {
    seen: Vec<bool>,
    pub received: u64,
    pub duplicated: u64,
    pub reordered: u64,
    pub foreign: u64,
    last: Option<u32>,
}

impl Delivery {
    pub fn new(n: u64) -> Delivery {
        Delivery { seen: vec![false; n as usize], received: 0, duplicated: 0, reordered: 0, foreign: 0, last: None }
    }

    pub fn note(&mut self, seq: u32) {
        match self.seen.get_mut(seq as usize) {
            Some(true) => self.duplicated += 1,
            Some(s) => {
                *s = true;
                self.received += 1;
                if self.last.is_some_and(|l| seq < l) {
                    self.reordered += 1;
                }
                self.last = Some(seq);
            }
            None => self.foreign += 1,
        }
    }

    pub fn complete(&self) -> bool {
        self.received == self.seen.len() as u64
    }
}

/// Receive from a publisher started in `mode`.
pub fn run(opts: &ThroughputOpts, mode: PeerMode) -> Result<ThroughputResult, DdsError> {
    run_with_stats(opts, mode).map(|(r, _)| r)
}

/// [`run`], with the spread of its steady-state rate.
pub fn run_with_stats(opts: &ThroughputOpts, mode: PeerMode) -> Result<(ThroughputResult, RunStats), DdsError> {
    if opts.samples == 0 || opts.samples > 1_000_000_000 {
        return Err(DdsError::Config(format!("samples must be 1..=10^9, not {}", opts.samples)));
    }
    let pp = Participant::new(opts.domain, &loopback_xml())?;
    // Samples are taken and unmarshalled by a data-available listener on Cyclone's receive
    // thread (ddsperf sub's default), not by a thread woken through a waitset.
    let shared = Arc::new((
        Mutex::new(SubState {
            d: Delivery::new(opts.samples),
            warm_at: None,
            baggage_bytes: 0,
            last_arrival: Instant::now(),
            error: None,
            sample: KeyedOctets::new(opts.size, 0),
            marks: Vec::with_capacity(MARKS as usize + 2),
            next_mark: 0,
        }),
        Condvar::new(),
    ));
    let sh = Arc::clone(&shared);
    let (marshal, size) = (opts.marshal, opts.size);
    let warm_count = (opts.samples / 10).max(1);
    let mark_every = (opts.samples / MARKS).max(1);
    let handler = Box::new(move |t: &mut crate::Taker| {
        let (lock, cvar) = &*sh;
        let Ok(mut g) = lock.lock() else { return };
        let st = &mut *g;
        let r = t.drain(|s| {
            marshal.decode_into(s.baggage, &mut st.sample)?;
            if st.sample.value_field.len() != size {
                return Err(DdsError::Marshal(format!(
                    "sample {}: {} octets, expected {size}",
                    s.seq,
                    st.sample.value_field.len()
                )));
            }
            st.baggage_bytes = s.baggage.len();
            st.d.note(s.seq);
            Ok(())
        });
        match r {
            Ok(0) => {}
            Ok(_) => {
                st.last_arrival = Instant::now();
                if st.warm_at.is_none() && st.d.received >= warm_count {
                    st.warm_at = Some((st.d.received, st.last_arrival));
                }
                if st.d.received >= st.next_mark {
                    st.marks.push((st.d.received, st.last_arrival));
                    st.next_mark = st.d.received + mark_every;
                }
            }
            Err(e) => {
                st.error.get_or_insert(e.into());
            }
        }
        if st.error.is_some() || st.d.complete() {
            cvar.notify_all();
        }
    });
    let reader = pp.listened_reader(DATA_TOPIC, true, 0, handler)?;
    let count_in_peer = opts.count_allocs && matches!(mode, PeerMode::Process(_));
    let peer_opts = opts.publisher(count_in_peer);
    let mut peer = Peer::start(&peer_opts, mode)?;
    peer.wait_ready(Duration::from_secs(25))?;
    let deadline = Instant::now() + Duration::from_secs(20);
    while reader.matched()? == 0 {
        if Instant::now() > deadline {
            return Err(DdsError::Timeout("the reader matched no writer within 20 s".into()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let stall = Duration::from_secs_f64(opts.stall_secs.max(0.1));
    let (lock, cvar) = &*shared;
    let lock_err = || DdsError::Peer("subscriber state poisoned".into());
    let t0 = Instant::now();
    lock.lock().map_err(|_| lock_err())?.last_arrival = t0;
    peer.go()?;
    let mut stalled = false;
    let mut body = || -> Result<(), DdsError> {
        let mut g = lock.lock().map_err(|_| lock_err())?;
        loop {
            if g.error.is_some() || g.d.complete() {
                return Ok(());
            }
            if g.last_arrival.elapsed() > stall {
                stalled = true;
                return Ok(());
            }
            g = cvar.wait_timeout(g, Duration::from_millis(100)).map_err(|_| lock_err())?.0;
        }
    };
    let mut outcome = Ok(());
    let allocs = if opts.count_allocs {
        wirebench_measure::alloc::measure(1, || outcome = body())
    } else {
        outcome = body();
        None
    };
    outcome?;
    // Stop the listener, then read the counts.
    drop(reader);
    let mut g = lock.lock().map_err(|_| lock_err())?;
    if let Some(e) = g.error.take() {
        return Err(e);
    }
    let (last_arrival, baggage_bytes, warm_at) = (g.last_arrival, g.baggage_bytes, g.warm_at);
    let mut marks: Vec<(u64, f64)> = g.marks.iter().map(|&(n, t)| (n, (t - t0).as_secs_f64())).collect();
    if marks.last().is_some_and(|&(n, _)| n < g.d.received) {
        marks.push((g.d.received, (last_arrival - t0).as_secs_f64()));
    }
    let d = std::mem::replace(&mut g.d, Delivery::new(0));
    drop(g);
    let secs = (last_arrival - t0).as_secs_f64().max(1e-9);
    let peer_report = peer.wait_done(Duration::from_secs(30))?;
    drop(peer.stop(Duration::from_secs(10)));
    let n = d.received.max(1) as f64;
    let ours = allocs.map(|a| (a.allocs_per_op / n, a.bytes_per_op / n));
    let (allocs_per_sample, alloc_bytes_per_sample) = match ours {
        Some((a, b)) if count_in_peer => match (peer_report.allocs_per_sample, peer_report.alloc_bytes_per_sample) {
            (Some(pa), Some(pb)) => (Some(a + pa), Some(b + pb)),
            _ => (None, None),
        },
        // Thread mode: both ends were counted in this process already.
        Some((a, b)) => (Some(a), Some(b)),
        None => (None, None),
    };
    let received = d.received;
    let b = batches(&marks, warm_at.map_or(u64::MAX, |(n, _)| n), CI_BATCHES);
    let stats = RunStats { batches: b.len() };
    let result = ThroughputResult {
        domain: Some(opts.domain),
        size: opts.size,
        marshal: opts.marshal,
        batch: opts.batch,
        baggage_bytes,
        wire_bytes: baggage_bytes + KEYEDSEQ_FIXED,
        sent: opts.samples,
        received,
        lost: opts.samples - received,
        duplicated: d.duplicated,
        reordered: d.reordered,
        round: 0,
        secs,
        samples_per_s: received as f64 / secs,
        steady_samples_per_s: warm_at.and_then(|(n, t)| {
            let dt = (last_arrival - t).as_secs_f64();
            (received > n && dt > 0.0).then(|| (received - n) as f64 / dt)
        }),
        steady_ci95: rate_ci(&b, u64::from(opts.domain)),
        mb_per_s: received as f64 * opts.size as f64 / secs / 1e6,
        wire_mb_per_s: received as f64 * (baggage_bytes + KEYEDSEQ_FIXED) as f64 / secs / 1e6,
        allocs_per_sample,
        alloc_bytes_per_sample,
        stalled,
        peer: peer_report,
    };
    Ok((result, stats))
}

/// What [`receive_any`] saw.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Received {
    pub samples: u64,
    /// Distinct baggage lengths seen.
    pub baggage_lengths: Vec<usize>,
    pub max_keyval: u32,
    pub secs: f64,
}

/// Take from DATA_TOPIC whatever any writer (e.g. `ddsperf pub`) sends, until `want` samples
/// or `timeout`.
pub fn receive_any(domain: u32, want: u64, timeout: Duration) -> Result<Received, DdsError> {
    let pp = Participant::new(domain, &loopback_xml())?;
    let mut reader = pp.reader(DATA_TOPIC, true, 0)?;
    let start = Instant::now();
    let mut got = Received::default();
    while got.samples < want && start.elapsed() < timeout {
        if !reader.wait(Duration::from_millis(100))? {
            continue;
        }
        reader.drain(|s| {
            got.samples += 1;
            if !got.baggage_lengths.contains(&s.baggage.len()) {
                got.baggage_lengths.push(s.baggage.len());
            }
            got.max_keyval = got.max_keyval.max(s.keyval);
            Ok::<(), DdsError>(())
        })?;
    }
    got.secs = start.elapsed().as_secs_f64();
    Ok(got)
}

/// Publish `opts.samples` samples on DATA_TOPIC from a thread of this process to whatever
/// reader matches first (e.g. `ddsperf sub`), then keep the writer for `linger` so a reliable
/// reader can catch up.
pub fn publish(opts: &ThroughputOpts, linger: Duration) -> Result<PeerReport, DdsError> {
    let peer_opts = opts.publisher(false);
    let mut peer = Peer::start(&peer_opts, PeerMode::Thread)?;
    peer.wait_ready(Duration::from_secs(25))?;
    peer.go()?;
    let r = peer.wait_done(Duration::from_secs(120))?;
    std::thread::sleep(linger);
    drop(peer.stop(Duration::from_secs(10)));
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::Delivery;

    /// Batches follow the marks of the steady stretch; the CI brackets the rate of the
    /// stretch and widens when the batches disagree.
    #[test]
    fn batches_and_their_ci() {
        use super::{batches, rate_ci};
        // 10 samples a mark, 0.1 s each, but the 4th gap took 0.3 s; warm at 20.
        let mut marks = vec![(0u64, 0.0f64)];
        let mut t = 0.0;
        for i in 1..=10u64 {
            t += if i == 4 { 0.3 } else { 0.1 };
            marks.push((i * 10, t));
        }
        let b = batches(&marks, 20, 4);
        assert_eq!(b.len(), 4);
        assert_eq!(b.iter().map(|x| x.0).sum::<u64>(), 80, "from the mark at 20 to the last");
        assert!((b.iter().map(|x| x.1).sum::<f64>() - (t - 0.2)).abs() < 1e-9);
        assert_eq!(batches(&marks, 20, 100).len(), 8, "at most one batch per gap");
        assert!(batches(&marks, 1000, 4).is_empty() && batches(&marks[..1], 0, 4).is_empty());
        let rate = 80.0 / (t - 0.2);
        let (lo, hi) = rate_ci(&b, 1).unwrap();
        assert!(lo <= rate && rate <= hi && lo < hi, "{lo} {rate} {hi}");
        let even: Vec<(u64, f64)> = (0..6).map(|_| (10, 0.1)).collect();
        let (lo, hi) = rate_ci(&even, 1).unwrap();
        assert!((lo - 100.0).abs() < 1e-9 && (hi - 100.0).abs() < 1e-9, "identical batches: no spread");
        assert!(rate_ci(&even[..2], 1).is_none() && rate_ci(&[(10, 0.1), (0, 0.1), (10, 0.1)], 1).is_none());
    }

    #[test]
    fn delivery_accounting() {
        let mut d = Delivery::new(4);
        for s in [0, 2, 1, 1, 9, 3] {
            d.note(s);
        }
        assert_eq!((d.received, d.duplicated, d.reordered, d.foreign), (4, 1, 1, 1));
        assert!(d.complete());
    }
}
