//! Loopback tests of the MQTT transport: embedded rumqttd and a mosquitto child process
//! (Debian's `mosquitto`, `apt-get install -y mosquitto`). Every run is bounded in count and
//! time; brokers are stopped on drop, also when an assertion fails.
//!
//! `cargo test --release -p wirebench-mqtt -- --ignored --nocapture` prints ours vs bare
//! rumqttc side by side (a few minutes).

use std::time::{Duration, Instant};

use wirebench_mqtt::*;

fn thr(messages: u64, qos: Qos) -> ThroughputConfig {
    ThroughputConfig { messages, qos, deadline_ms: 20_000, drain_timeout_ms: 1_000, ..Default::default() }
}

fn echo(messages: u64, warmup: u64, qos: Qos) -> EchoConfig {
    EchoConfig { messages, warmup, qos, deadline_ms: 20_000, ..Default::default() }
}

#[cfg(feature = "embedded-broker")]
fn exact(r: &ThroughputResult) {
    let d = &r.delivery;
    assert_eq!(d.received + d.lost, d.sent, "{d:?}");
    assert_eq!(d.sent, d.attempted, "{d:?} {:?}", r.errors);
    // QoS 1: every message acknowledged; QoS 0: nothing to acknowledge.
    match r.config.qos {
        Qos::AtLeastOnce => assert_eq!((d.acked, d.unacked), (Some(d.sent), Some(0)), "{d:?}"),
        Qos::AtMostOnce => assert_eq!((d.acked, d.unacked), (None, None), "{d:?}"),
    }
    assert_eq!((d.lost, d.duplicates, d.unexpected), (0, Some(0), 0), "{d:?} {:?}", r.errors);
    assert_eq!(r.ended_by, EndReason::Complete, "{:?}", r.errors);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(d.delivery_ratio, 1.0);
    assert!(r.subscriber.msgs_per_s > 0.0 && r.publisher.msgs_per_s > 0.0, "{r:?}");
    assert!(r.cpu.wall_seconds > 0.0 && r.cpu.harness_cpu_seconds > 0.0, "{:?}", r.cpu);
}

#[test]
#[cfg(feature = "embedded-broker")]
fn embedded_throughput_qos0_and_qos1_account_exactly() {
    let broker = EmbeddedBroker::start(BrokerConfig::default()).unwrap();
    let payloads = Payloads::synthetic(50);
    let r0 = throughput(&broker, &payloads, &thr(20_000, Qos::AtMostOnce)).unwrap();
    exact(&r0);
    assert_eq!(r0.delivery.acked, None);
    assert_eq!(r0.delivery.written, 20_000);
    assert_eq!(r0.broker.kind, BrokerKind::EmbeddedRumqttd);
    let r1 = throughput(&broker, &payloads, &thr(10_000, Qos::AtLeastOnce)).unwrap();
    exact(&r1);
    assert_eq!(r1.delivery.acked, Some(10_000));
    // Varying payloads (a corpus): bytes are counted per message.
    let corpus = Payloads::cycle(vec![vec![1; 10], vec![2; 300]]).unwrap();
    let r = throughput(&broker, &corpus, &thr(1_000, Qos::AtLeastOnce)).unwrap();
    exact(&r);
    assert!((r.subscriber.mb_per_s * 1e6 * r.subscriber.seconds - 155_000.0).abs() < 1.0, "{:?}", r.subscriber);
    // The result is serde data with the config echoed.
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["config"]["qos"], 1);
    assert_eq!(json["harness"], "wirebench");
    // The bare pair through the same broker.
    let b = baseline_throughput(&broker, &payloads, &thr(10_000, Qos::AtMostOnce)).unwrap();
    assert_eq!(b.harness, Harness::BareRumqttc);
    assert_eq!(b.delivery.received + b.delivery.lost, b.delivery.sent);
    assert_eq!(b.delivery.received, 10_000, "{:?}", b.delivery);
}

#[test]
#[cfg(feature = "embedded-broker")]
fn embedded_broker_sets_nodelay_and_shuts_down() {
    let mut broker = EmbeddedBroker::start(BrokerConfig::default()).unwrap();
    let addr = broker.addr();
    let conn = std::net::TcpStream::connect(addr).unwrap();
    let t = Instant::now();
    while broker.connection_nodelay().is_empty() && t.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(broker.connection_nodelay(), vec![true]);
    broker.shutdown();
    // The port is released and nobody answers on it any more.
    std::net::TcpListener::bind(addr).expect("port released after shutdown");
    drop(conn);
    let err = throughput(&broker, &Payloads::synthetic(8), &thr(10, Qos::AtMostOnce)).unwrap_err().to_string();
    assert_eq!(err, format!("cannot connect to mqtt://{addr}: connection refused"));

    let bad = BrokerConfig { max_segment_size: 100, ..Default::default() };
    let e = EmbeddedBroker::start(bad).err().unwrap().to_string();
    assert!(e.contains("max_segment_size"), "{e}");

    let plain = EmbeddedBroker::start(BrokerConfig { tcp_nodelay: false, ..Default::default() }).unwrap();
    let _c = std::net::TcpStream::connect(plain.addr()).unwrap();
    let t = Instant::now();
    while plain.connection_nodelay().is_empty() && t.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(plain.connection_nodelay(), vec![false]);
}

#[test]
fn unreachable_broker_and_bad_inputs_are_errors_not_panics() {
    let dead = ExternalBroker::new("mqtt://127.0.0.1:1").unwrap();
    let e = throughput(&dead, &Payloads::synthetic(50), &thr(10, Qos::AtMostOnce)).unwrap_err();
    assert_eq!(e.to_string(), "cannot connect to mqtt://127.0.0.1:1: connection refused");
    let e = echo_rtt(&dead, b"x", &echo(10, 0, Qos::AtLeastOnce)).unwrap_err();
    assert!(matches!(e, MqttError::Connect { .. }), "{e}");
    let e = baseline_throughput(&dead, &Payloads::synthetic(50), &thr(10, Qos::AtMostOnce)).unwrap_err();
    assert!(e.to_string().contains("connection refused"), "{e}");

    assert!(ExternalBroker::new("http://127.0.0.1:1883").unwrap_err().to_string().contains("unsupported scheme"));
    assert!(ExternalBroker::new("mqtt://127.0.0.1:99999").unwrap_err().to_string().contains("out of range"));

    // Invalid topics are rejected before anything connects.
    let cfg = ThroughputConfig { topic: Some("plant/+/temp".into()), ..thr(10, Qos::AtMostOnce) };
    let e = throughput(&dead, &Payloads::synthetic(50), &cfg).unwrap_err();
    assert!(matches!(e, MqttError::InvalidTopic { .. }));
    assert!(e.to_string().starts_with("invalid topic \"plant/+/temp\": wildcard \"+\" at byte 6"), "{e}");
    let cfg = EchoConfig { req_topic: Some("a\0b".into()), ..echo(10, 0, Qos::AtMostOnce) };
    assert!(echo_rtt(&dead, b"x", &cfg).unwrap_err().to_string().contains("NUL"));
    // Out-of-range numbers are configuration errors, not overflow panics.
    let cfg = ThroughputConfig { deadline_ms: u64::MAX, ..thr(10, Qos::AtMostOnce) };
    let e = throughput(&dead, &Payloads::synthetic(8), &cfg).unwrap_err();
    assert!(matches!(e, MqttError::Config(_)), "{e}");
    for rate in [0.0, -1.0, f64::NAN, 1e-300] {
        let cfg = EchoConfig { rate: Some(rate), ..echo(10, 0, Qos::AtMostOnce) };
        let e = echo_rtt(&dead, b"x", &cfg).unwrap_err();
        assert!(e.to_string().contains("rate must be"), "{e}");
    }
    // A payload that does not fit the packet limit.
    let cfg = ThroughputConfig { max_packet_size: 100, ..thr(10, Qos::AtMostOnce) };
    assert!(throughput(&dead, &Payloads::synthetic(200), &cfg).unwrap_err().to_string().contains("max_packet_size"));
}

#[test]
fn mosquitto_throughput_and_echo() {
    let m = Mosquitto::start().expect("mosquitto (apt-get install -y mosquitto)");
    let payloads = Payloads::synthetic(50);
    let r = throughput(&m, &payloads, &thr(10_000, Qos::AtLeastOnce)).unwrap();
    let d = &r.delivery;
    // mosquitto may drop to a slow subscriber (its queue limits): accounting stays exact.
    assert_eq!(d.received + d.lost, d.sent, "{d:?}");
    assert_eq!(d.sent, 10_000);
    assert!(d.delivery_ratio > 0.9, "{d:?}");
    assert_eq!(r.broker.kind, BrokerKind::Mosquitto);

    let e = echo_rtt(&m, &[7u8; 50], &echo(200, 20, Qos::AtLeastOnce)).unwrap();
    assert_eq!(e.delivery.received + e.delivery.lost, e.delivery.sent, "{:?}", e.delivery);
    assert_eq!(e.delivery.received, 200, "{:?} {:?}", e.delivery, e.errors);
    assert_eq!(e.rtt.count, 200);
    assert_eq!(e.samples_ns.len(), 200);
    // NODELAY on both sides: no 40/44/88 ms stall, sub-millisecond on loopback.
    assert!(e.stall.is_none(), "{:?}", e.stall);
    assert!(e.rtt.p50_us < 20_000.0, "{:?}", e.rtt);
    assert!(e.rtt.p50_us <= e.rtt.p99_us && e.rtt.p99_us <= e.rtt.max_us);

    // Open loop at 2,000 requests/s: latency from the scheduled send times.
    let cfg = EchoConfig { rate: Some(2_000.0), ..echo(400, 40, Qos::AtMostOnce) };
    let o = echo_rtt(&m, &[1u8; 50], &cfg).unwrap();
    assert_eq!(o.mode, "open-loop");
    assert_eq!(o.delivery.received + o.delivery.lost, o.delivery.sent);
    assert!(o.delivery.received >= 390, "{:?}", o.delivery);
    assert!(o.elapsed_seconds >= 0.2 - 0.01, "paced: {}", o.elapsed_seconds);
}

#[test]
fn broker_killed_mid_run_ends_within_timeout_with_losses() {
    let m = Mosquitto::start().expect("mosquitto (apt-get install -y mosquitto)");
    let cfg = ThroughputConfig {
        messages: 5_000_000,
        qos: Qos::AtLeastOnce,
        deadline_ms: 15_000,
        drain_timeout_ms: 1_000,
        ..Default::default()
    };
    let t = Instant::now();
    let r = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(400));
            m.kill();
        });
        throughput(&m, &Payloads::synthetic(50), &cfg).unwrap()
    });
    let took = t.elapsed();
    assert!(took < Duration::from_secs(8), "took {took:?}");
    let d = &r.delivery;
    assert_eq!(r.ended_by, EndReason::ConnectionLost, "{:?}", r.errors);
    assert!(d.sent < d.attempted && d.received > 0, "{d:?}");
    assert!(d.lost > 0, "{d:?}");
    assert_eq!(d.received + d.lost, d.sent, "{d:?}");
    assert!(!r.errors.is_empty());

    // The same for an echo run.
    let m = Mosquitto::start().unwrap();
    let t = Instant::now();
    let e = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            m.kill();
        });
        echo_rtt(&m, b"ping", &echo(1_000_000, 0, Qos::AtLeastOnce)).unwrap()
    });
    assert!(t.elapsed() < Duration::from_secs(8), "took {:?}", t.elapsed());
    assert_eq!(e.ended_by, EndReason::ConnectionLost, "{:?}", e.errors);
    assert!(e.delivery.received > 0 && e.delivery.sent < 1_000_000, "{:?}", e.delivery);
}

#[test]
#[cfg(feature = "embedded-broker")]
fn stall_detector_fires_on_a_real_nagle_path() {
    // rumqttd without NODELAY on its sockets, clients without NODELAY: QoS 1 echo stalls.
    let plain = EmbeddedBroker::start(BrokerConfig { tcp_nodelay: false, ..Default::default() }).unwrap();
    let cfg = EchoConfig { tcp_nodelay: false, reply_timeout_ms: 2_000, ..echo(25, 2, Qos::AtLeastOnce) };
    let r = echo_rtt(&plain, &[0u8; 50], &cfg).unwrap();
    let w = r.stall.as_ref().unwrap_or_else(|| panic!("no stall flagged: {:?}", r.rtt));
    assert!(w.mode_ms == 44.0 || w.mode_ms == 88.0 || w.mode_ms == 40.0, "{w:?}");
    assert!(w.message.contains("TCP_NODELAY"), "{}", w.message);
    assert!(r.warnings.iter().any(|m| m.starts_with("RTT mode near")), "{:?}", r.warnings);
    eprintln!("no NODELAY anywhere: p50 {:.1} ms → {}", r.rtt.p50_us / 1e3, w.message);

    // The same path with NODELAY everywhere: quiet.
    let fast = EmbeddedBroker::start(BrokerConfig::default()).unwrap();
    let r = echo_rtt(&fast, &[0u8; 50], &echo(200, 20, Qos::AtLeastOnce)).unwrap();
    assert!(r.stall.is_none(), "{:?} {:?}", r.stall, r.rtt);
    assert!(r.rtt.p50_us < 20_000.0, "{:?}", r.rtt);
}

/// Ours vs bare rumqttc, side by side (release mode; a few minutes):
/// `cargo test --release -p wirebench-mqtt -- --ignored --nocapture`
#[test]
#[ignore]
#[cfg(feature = "embedded-broker")]
fn side_by_side_ours_vs_bare() {
    let embedded = EmbeddedBroker::start(BrokerConfig::default()).unwrap();
    let mosq = Mosquitto::start().unwrap();
    let payloads = Payloads::synthetic(50);
    let reps: usize = std::env::var("WB_MQTT_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("\nload average at start: {}", load().trim());
    println!("wirebench-mqtt vs bare rumqttc, 50-byte payloads, 1 publisher + 1 subscriber, medians of {reps} interleaved pairs");
    println!(
        "{:<22} {:>4} {:>9} {:>12} {:>12} {:>7} {:>11} {:>10} {:>10} {:>8}",
        "broker", "qos", "messages", "ours msg/s", "bare msg/s", "ratio", "range", "ours dlv", "bare dlv", "harness"
    );
    let brokers: [(&str, &dyn Fn() -> Endpoint); 2] =
        [("rumqttd 0.20 embedded", &|| embedded.endpoint()), (mosq.version(), &|| mosq.endpoint())];
    for (name, ep) in &brokers {
        for (qos, n) in [(Qos::AtMostOnce, 200_000u64), (Qos::AtLeastOnce, 100_000)] {
            let cfg = ThroughputConfig { messages: n, qos, ..Default::default() };
            let c = compare_throughput(&ep(), &payloads, &cfg, reps).unwrap();
            let hb = c.ours.iter().map(|r| r.cpu.harness_cores).fold(0.0, f64::max);
            println!(
                "{:<22} {:>4} {:>9} {:>12.0} {:>12.0} {:>7.2} {:>11} {:>9.2}% {:>9.2}% {:>6.2}c",
                name,
                qos.level(),
                n,
                c.ours_msgs_per_s,
                c.bare_msgs_per_s,
                c.ratio,
                format!("{:.2}–{:.2}", c.ratio_min, c.ratio_max),
                100.0 * c.ours_delivery_min,
                100.0 * c.bare_delivery_min,
                hb
            );
        }
    }
    println!("\necho RTT (pinger → broker → echo client → broker → pinger), 50 B, closed loop, 2,000 samples after 200 warm-up");
    println!(
        "{:<22} {:>4} {:>12} {:>12} {:>7} {:>12} {:>12}",
        "broker", "qos", "ours p50 µs", "bare p50 µs", "ratio", "ours p99 µs", "bare p99 µs"
    );
    for (name, ep) in &brokers {
        for qos in [Qos::AtMostOnce, Qos::AtLeastOnce] {
            let cfg = EchoConfig { messages: 2_000, warmup: 200, qos, ..Default::default() };
            let c = compare_echo_rtt(&ep(), &[0u8; 50], &cfg, reps).unwrap();
            let p99 = |v: &Vec<EchoResult>| wirebench_mqtt_median(v.iter().map(|r| r.rtt.p99_us).collect());
            println!(
                "{:<22} {:>4} {:>12.1} {:>12.1} {:>7.2} {:>12.1} {:>12.1}",
                name,
                qos.level(),
                c.ours_p50_us,
                c.bare_p50_us,
                c.ratio,
                p99(&c.ours),
                p99(&c.bare)
            );
        }
    }
    println!("\nNagle/delayed-ACK stalls, QoS 1 echo, 50 B, 100 samples (closed loop)");
    let plain = EmbeddedBroker::start(BrokerConfig { tcp_nodelay: false, ..Default::default() }).unwrap();
    let mosq_plain = Mosquitto::start_with(&MosquittoOptions { tcp_nodelay: false, ..Default::default() }).unwrap();
    let cases: [(&str, &dyn MqttBroker, bool); 5] = [
        ("rumqttd, no NODELAY anywhere", &plain, false),
        ("rumqttd, client NODELAY only", &plain, true),
        ("rumqttd, NODELAY everywhere", &embedded, true),
        ("mosquitto defaults, client off", &mosq_plain, false),
        ("mosquitto defaults, client on", &mosq_plain, true),
    ];
    for (name, b, nodelay) in cases {
        let cfg =
            EchoConfig { messages: 100, warmup: 5, qos: Qos::AtLeastOnce, tcp_nodelay: nodelay, ..Default::default() };
        let r = echo_rtt(&b.endpoint(), &[0u8; 50], &cfg).unwrap();
        println!(
            "{:<34} p50 {:>9.1} µs  p99 {:>9.1} µs  stall: {}",
            name,
            r.rtt.p50_us,
            r.rtt.p99_us,
            r.stall.as_ref().map_or("none".to_string(), |s| format!(
                "mode near {} ms ({:.0} %)",
                s.mode_ms,
                100.0 * s.fraction
            ))
        );
    }
    println!("load average at end: {}", load().trim());
}

#[cfg(feature = "embedded-broker")]
fn wirebench_mqtt_median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

#[cfg(feature = "embedded-broker")]
fn transport(count: Option<u64>, reps: usize) -> study::TransportOpts {
    study::TransportOpts {
        broker: "embedded".into(),
        credentials: Credentials::default(),
        drain_s: 1.0,
        qos: "1".into(),
        format: "bytes:50".into(),
        fields: 3,
        message: None,
        count,
        timeout_s: 20.0,
        baseline: true,
        reps,
        topic: None,
        rtt: None,
        payloads: None,
    }
}

/// Six repetitions of each side give every msgs/s and the paired ratio a 95 % interval around
/// the median; a count given is sent exactly (no calibration).
#[test]
#[cfg(feature = "embedded-broker")]
fn six_repetitions_carry_intervals_around_their_medians() {
    let s = transport(Some(300), 6).plan().unwrap().run().unwrap();
    let r = &s.throughput[0];
    assert_eq!((r.reps, r.messages, r.min_run_s), (6, 300, None));
    for side in [&r.ours, r.bare.as_ref().unwrap()] {
        assert_eq!((side.sent, side.received, side.per_rep_msgs_per_s.len()), (1800, 1800, 6), "{side:?}");
        let (m, (lo, hi)) = (side.msgs_per_s.unwrap(), side.msgs_per_s_ci95.unwrap());
        let reps = &side.per_rep_msgs_per_s;
        // Six repetitions: the interval is [min, max].
        assert_eq!(lo, reps.iter().copied().fold(f64::INFINITY, f64::min));
        assert_eq!(hi, reps.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        assert!(lo <= m && m <= hi, "{m} {lo} {hi}");
        assert!(side.publisher_msgs_per_s_ci95.is_some() && side.mb_per_s_ci95.is_some());
    }
    let (ratio, (lo, hi)) = (r.ratio.unwrap(), r.ratio_ci95.unwrap());
    assert!(lo <= ratio && ratio <= hi && (r.ratio_min, r.ratio_max) == (Some(lo), Some(hi)), "{r:?}");
    assert!(r.run_s.is_some_and(|s| s > 0.0));
    // Two repetitions: no 95 % interval.
    let s = transport(Some(100), 2).plan().unwrap().run().unwrap();
    assert_eq!((s.throughput[0].ours.msgs_per_s_ci95, s.throughput[0].ratio_ci95), (None, None));
}

/// Without a count, a calibration run of each side sets the messages for repetitions of at
/// least a second at the faster side's rate (never fewer than the default 10,000).
#[test]
#[cfg(feature = "embedded-broker")]
fn without_a_count_the_messages_are_calibrated() {
    let s = transport(None, 1).plan().unwrap().run().unwrap();
    let r = &s.throughput[0];
    assert_eq!(r.min_run_s, Some(study::DEFAULT_MIN_RUN_S));
    assert!(r.messages >= 10_000, "{}", r.messages);
    assert_eq!((r.ours.sent, r.ours.received), (r.messages, r.messages), "{:?}", r.ours);
    assert_eq!(r.bare.as_ref().unwrap().sent, r.messages, "both sides send the same count");
}
