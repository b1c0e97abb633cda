//! Ping-pong latency: half of each round trip, pooled over the whole run.
//!
//! One round trip: set the key (instance `i % instances`), marshal the sample, write it on
//! PING_TOPIC; the pong takes it, unmarshals, marshals again and writes it on PONG_TOPIC; we
//! take it and unmarshal it. The clock runs from before our marshal to after our unmarshal, so
//! each half round trip holds one marshal, one DDS write → read over RTPS, one unmarshal: the
//! DataWriter → DataReader latency of the seed with marshalling on both sides. Pings go back to
//! back (the next one when the pong is in), like `ddsperf ping` without a rate.
//!
//! Reliable, KEEP_LAST 1 per instance on both topics. A ping with no pong within
//! `resend_after` is sent again and not recorded (counted as a retry; after `max_retries` the
//! run fails): so a lost first ping during discovery can never hang the run.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::config::loopback_xml;
use crate::marshal::{KeyedOctets, Marshal};
use crate::peer::{Peer, PeerMode, PeerOpts, PeerReport, Role};
use crate::stats::{cdf, Summary};
use crate::{DdsError, Participant, KEYEDSEQ_FIXED, PING_TOPIC, PONG_TOPIC};

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

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LatencyResult {
    pub size: usize,
    pub marshal: Marshal,
    pub instances: u32,
    pub samples: u32,
    pub iterations: u32,
    /// Marshalled bytes per sample (the baggage) and KeyedSeq payload bytes on the wire.
    pub baggage_bytes: usize,
    pub wire_bytes: usize,
    /// Round trips recorded.
    pub round_trips: u64,
    /// Pings sent again after `resend_after` without a pong (not recorded).
    pub retries: u64,
    /// Half round trip, µs, pooled.
    pub half_rtt_us: Summary,
    /// (µs, cumulative fraction), at most 200 points.
    pub cdf: Vec<(f64, f64)>,
    /// Rust heap allocations per sample (a sample = one marshal at the writer + one unmarshal at
    /// the reader; both ends counted, Cyclone's own C allocations are not).
    pub allocs_per_sample: Option<f64>,
    pub alloc_bytes_per_sample: Option<f64>,
    pub secs: f64,
    pub peer: PeerReport,
}

/// Run a ping-pong against a pong started in `mode`.
pub fn run(opts: &LatencyOpts, mode: PeerMode) -> Result<LatencyResult, DdsError> {
    let pp = Participant::new(opts.domain, &loopback_xml())?;
    let writer = pp.writer(PING_TOPIC, true, 1)?;
    let mut reader = pp.reader(PONG_TOPIC, true, 1)?;
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

    let instances = opts.instances.max(1);
    let mut sample = KeyedOctets::new(opts.size, 0x5eed);
    let mut buf = Vec::with_capacity(opts.size * 4 + 64);
    opts.marshal.encode(&sample, &mut buf)?;
    let baggage_bytes = buf.len();
    let total = opts.round_trips();
    let mut half = Vec::with_capacity(total as usize);
    let mut retries = 0u64;
    let mut seq: u32 = 0;

    // One round trip; Ok(Some(µs)) when it went through without a resend.
    let mut round_trip = |seq: u32, retries: &mut u64| -> Result<Option<f64>, DdsError> {
        let key = seq % instances;
        sample.set_key(key);
        let mut first = true;
        loop {
            let t0 = Instant::now();
            opts.marshal.encode(&sample, &mut buf)?;
            writer.write(seq, key, &buf)?;
            writer.flush()?;
            let resend_at = t0 + opts.resend_after;
            loop {
                let now = Instant::now();
                if now >= resend_at {
                    break;
                }
                if !reader.wait(resend_at - now)? {
                    continue;
                }
                let mut got = false;
                reader.take(|s| {
                    if s.seq != seq {
                        return Ok(()); // a late pong of an earlier, resent ping
                    }
                    let v = opts.marshal.decode(s.baggage)?;
                    if v.value_field.len() != opts.size || s.keyval != key {
                        return Err(DdsError::Marshal(format!(
                            "pong {seq}: {} octets for key {}, expected {} for key {key}",
                            v.value_field.len(),
                            s.keyval,
                            opts.size
                        )));
                    }
                    got = true;
                    Ok(())
                })?;
                if got {
                    let us = t0.elapsed().as_secs_f64() * 1e6 / 2.0;
                    return Ok(if first { Some(us) } else { None });
                }
            }
            *retries += 1;
            first = false;
            if *retries > u64::from(opts.max_retries) {
                return Err(DdsError::Timeout(format!(
                    "no pong for ping {seq} after {} resends of {:?}",
                    opts.max_retries, opts.resend_after
                )));
            }
        }
    };

    for _ in 0..opts.warmup {
        round_trip(seq, &mut retries)?;
        seq = seq.wrapping_add(1);
    }
    let warm_retries = retries;
    let start = Instant::now();
    let mut failure = None;
    let mut body = || {
        while (half.len() as u64) < total {
            match round_trip(seq, &mut retries) {
                Ok(Some(us)) => half.push(us),
                Ok(None) => {}
                Err(e) => {
                    failure = Some(e);
                    return;
                }
            }
            seq = seq.wrapping_add(1);
        }
    };
    let allocs = if opts.count_allocs { wirebench_measure::alloc::measure(1, &mut body) } else {
        body();
        None
    };
    let secs = start.elapsed().as_secs_f64();
    if let Some(e) = failure {
        return Err(e);
    }
    let peer_report = peer.stop(Duration::from_secs(10))?;
    let n = half.len().max(1) as f64;
    let mut half_sorted = half;
    let summary = Summary::of(&mut half_sorted);
    // Per sample: our side did one marshal + one unmarshal per round trip, so did the pong.
    let ours = allocs.map(|a| (a.allocs_per_op / n, a.bytes_per_op / n));
    let (allocs_per_sample, alloc_bytes_per_sample) = match (ours, mode_counted(count_in_peer, &peer_report)) {
        (Some((a, b)), Some((pa, pb))) => (Some((a + pa) / 2.0), Some((b + pb) / 2.0)),
        (Some((a, b)), None) if !count_in_peer => (Some(a / 2.0), Some(b / 2.0)),
        _ => (None, None),
    };
    Ok(LatencyResult {
        size: opts.size,
        marshal: opts.marshal,
        instances,
        samples: opts.samples,
        iterations: opts.iterations,
        baggage_bytes,
        wire_bytes: baggage_bytes + KEYEDSEQ_FIXED,
        round_trips: summary.count,
        retries: retries - warm_retries,
        cdf: cdf(&half_sorted, 200),
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
