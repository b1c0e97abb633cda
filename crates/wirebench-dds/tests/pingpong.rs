//! A real ping-pong and a real pub/sub through libddsc over RTPS on loopback, the peer in a child
//! process (this crate's `wirebench-dds-peer`), plus pub/sub with the publisher in a thread
//! (Cyclone's local delivery). No timing assertions: delivery and content only.

use std::time::Duration;

use wirebench_dds::latency::{self, LatencyOpts};
use wirebench_dds::peer::PeerMode;
use wirebench_dds::throughput::{self, ThroughputOpts};
use wirebench_dds::Marshal;

/// A domain id of this test process (tests of one binary run in parallel: `k` separates them).
fn domain(k: u32) -> u32 {
    10 + (std::process::id() % 40) * 5 + k
}

#[test]
fn ping_pong_cdr_and_json_every_round_trip_recorded() {
    if let Err(why) = wirebench_dds::available() {
        eprintln!("skipped: {why}");
        return;
    }
    for (k, marshal) in [(0, Marshal::Cdr), (0, Marshal::Json)] {
        let mut o = LatencyOpts::new(domain(k), 2048, marshal);
        o.instances = 5;
        o.samples = 4;
        o.iterations = 2;
        o.warmup = 5;
        let r = latency::run(&o, peer_process()).unwrap();
        assert_eq!(r.round_trips, 40, "{marshal:?}");
        assert_eq!(r.peer.handled, 45 + r.retries, "{marshal:?}: the pong answered every ping");
        let s = &r.half_rtt_us;
        assert!(s.min > 0.0 && s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.max, "{s:?}");
        assert_eq!(r.cdf.last().map(|p| p.1), Some(1.0));
        match marshal {
            Marshal::Cdr => assert_eq!(r.baggage_bytes, 4 + 4 + 2 + 2 + 4 + 2048), // header, key "0", count
            _ => assert!(r.baggage_bytes > 2 * 2048, "JSON octets as numbers: {}", r.baggage_bytes),
        }
        assert_eq!(r.wire_bytes, r.baggage_bytes + 12);
    }
}

#[test]
fn a_latency_run_goes_on_for_its_minimum_time() {
    if let Err(why) = wirebench_dds::available() {
        eprintln!("skipped: {why}");
        return;
    }
    let mut o = LatencyOpts::new(domain(3), 64, Marshal::Cdr);
    o.instances = 2;
    o.samples = 5;
    o.warmup = 5;
    o.min_secs = 0.5;
    let r = latency::run(&o, peer_process()).unwrap();
    assert!(r.secs >= 0.5, "ran {} s", r.secs);
    // Far more than the 10 round trips asked (a round trip takes well under 50 ms); all pooled.
    assert!(r.round_trips > 10, "{} round trips", r.round_trips);
    assert_eq!(r.peer.handled, r.round_trips + 5 + r.retries);
}

fn peer_process() -> PeerMode {
    PeerMode::Process(std::process::Command::new(env!("CARGO_BIN_EXE_wirebench-dds-peer")))
}

#[test]
fn pub_sub_delivers_every_sample_in_order() {
    if let Err(why) = wirebench_dds::available() {
        eprintln!("skipped: {why}");
        return;
    }
    for (marshal, batch, process) in
        [(Marshal::Cdr, true, true), (Marshal::Json, false, true), (Marshal::Cdr, true, false)]
    {
        let mut o = ThroughputOpts::new(domain(1), 8192, marshal, 3000);
        o.instances = 10;
        o.batch = batch;
        let r = throughput::run(&o, if process { peer_process() } else { PeerMode::Thread }).unwrap();
        assert_eq!((r.sent, r.received, r.lost, r.duplicated), (3000, 3000, 0, 0), "{marshal:?} process {process}");
        assert!(!r.stalled);
        assert_eq!(r.peer.handled, 3000);
        assert!(r.samples_per_s > 0.0 && r.mb_per_s > 0.0);
    }
}

#[test]
fn bad_options_are_errors_not_hangs() {
    if let Err(why) = wirebench_dds::available() {
        eprintln!("skipped: {why}");
        return;
    }
    let o = ThroughputOpts::new(domain(2), 16, Marshal::Cdr, 0);
    assert!(throughput::run(&o, PeerMode::Thread).is_err());
    // A pong in this process would deadlock with Cyclone's synchronous local delivery: refused.
    let l = LatencyOpts::new(domain(2), 16, Marshal::Cdr);
    let e = latency::run(&l, PeerMode::Thread).unwrap_err();
    assert!(e.to_string().contains("another process"), "{e}");
    // A peer that cannot start is an error, not a hang.
    let bad = PeerMode::Process(std::process::Command::new("/nonexistent/wirebench-dds-peer"));
    assert!(latency::run(&l, bad).is_err());
    // A domain id Cyclone rejects.
    assert!(wirebench_dds::Participant::new(100_000, &wirebench_dds::config::loopback_xml()).is_err());
    // Nothing publishes: receive_any returns what it has when the time is up.
    let got = throughput::receive_any(domain(3), 1, Duration::from_millis(300)).unwrap();
    assert_eq!(got.samples, 0);
}

/// The reader's loan is reused from take to take (ddsperf's way): every sample still comes out
/// with its own content, when a take is full (more than `MAX_TAKE` waiting, so `drain` must take
/// again) and when baggage lengths go up and down (Cyclone grows the reused buffers).
#[test]
fn reused_loans_give_every_sample_its_own_baggage() {
    if let Err(why) = wirebench_dds::available() {
        eprintln!("skipped: {why}");
        return;
    }
    use wirebench_dds::{config::loopback_xml, Participant, MAX_TAKE};
    let d = domain(4);
    let (a, b) = (Participant::new(d, &loopback_xml()).unwrap(), Participant::new(d, &loopback_xml()).unwrap());
    let mut reader = b.reader("WirebenchLoanTest", true, 0).unwrap();
    let writer = a.writer("WirebenchLoanTest", true, 0).unwrap();
    let baggage = |seq: u32| -> Vec<u8> {
        let len = [0usize, 3000, 17, 2048, 1][(seq % 5) as usize];
        (0..len).map(|i| (seq as usize * 31 + i) as u8).collect()
    };
    let total = (2 * MAX_TAKE + 77) as u32;
    // Taken instance by instance (three keys), so not in write order: each one once.
    let mut got = vec![false; total as usize];
    let mut seen = 0u32;
    // Two bursts: the first one is all waiting before anything is taken.
    for burst in [0..total / 2, total / 2..total] {
        for seq in burst.clone() {
            writer.write(seq, seq % 3, &baggage(seq)).unwrap();
        }
        writer.flush().unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while seen < burst.end && std::time::Instant::now() < deadline {
            reader.wait(Duration::from_millis(100)).unwrap();
            reader
                .drain(|s| {
                    assert!(s.seq < burst.end && !got[s.seq as usize], "sample {} once, in its burst", s.seq);
                    got[s.seq as usize] = true;
                    assert_eq!(s.keyval, s.seq % 3);
                    assert_eq!(s.baggage, &baggage(s.seq)[..], "sample {}", s.seq);
                    seen += 1;
                    Ok::<(), ()>(())
                })
                .unwrap();
        }
        assert_eq!(seen, burst.end);
    }
}
