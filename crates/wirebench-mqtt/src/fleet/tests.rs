//! Tests of the fleet engine: shards, schedules, per-device accounting, PUBLISH lengths and
//! the checks of a fleet's options.

use super::run::DeviceRx;
use super::*;

#[test]
fn shards_cover_the_fleet_once() {
    for n in 1..=7u32 {
        let mut next = 0;
        for i in 0..n {
            let c = FleetConfig { devices: 1003, shard_index: i, shard_count: n, ..FleetConfig::default() };
            let r = c.device_range();
            assert_eq!(r.start, next);
            next = r.end;
        }
        assert_eq!(next, 1003);
    }
}

#[test]
fn schedules_are_spread_jittered_and_reproducible() {
    let c = FleetConfig { period_ms: 1000, duration_ms: 10_000, jitter: 0.2, ..FleetConfig::default() };
    let a: Vec<u64> = schedule(&c, 7).collect();
    assert_eq!(a, schedule(&c, 7).collect::<Vec<_>>());
    assert!((8..=13).contains(&a.len()), "{a:?}");
    for w in a.windows(2) {
        let gap = w[1] - w[0];
        assert!((799_000_000..=1_201_000_000).contains(&gap), "{gap}");
    }
    // First sends spread over the period: 1000 devices, every 100 ms slot holds some.
    let mut slots = [0u32; 10];
    for d in 0..1000 {
        slots[(schedule(&c, d).next().unwrap() / 100_000_000) as usize] += 1;
    }
    assert!(slots.iter().all(|&s| (80..=120).contains(&s)), "{slots:?}");
    let burst = FleetConfig { burst: true, jitter: 0.0, ..c };
    assert_eq!(schedule(&burst, 3).next(), Some(0));
    assert_eq!(schedule(&burst, 3).count(), 10);
}

#[test]
fn device_accounting() {
    let mut d = DeviceRx::default();
    assert!(d.add(0) && d.add(2) && d.add(1));
    assert!(!d.add(2));
    assert!(d.add(200));
    assert_eq!((d.received, d.duplicated, d.reordered), (4, 1, 1));
}

#[test]
fn publish_lengths() {
    // 1 + 1 + (2 + 5 + 2 + 10) for a 5-byte topic and 10 bytes at QoS 1
    assert_eq!(publish_len(5, 10, Qos::AtLeastOnce), 21);
    assert_eq!(publish_len(5, 10, Qos::AtMostOnce), 19);
    assert_eq!(publish_len(10, 200, Qos::AtMostOnce), 1 + 2 + 212);
}

#[test]
fn bad_configs_name_their_option() {
    let c = |f: fn(&mut FleetConfig)| {
        let mut c = FleetConfig::default();
        f(&mut c);
        c.check().unwrap_err().to_string()
    };
    assert!(c(|c| c.devices = 0).contains("--devices"));
    assert!(c(|c| {
        c.shard_index = 4;
        c.shard_count = 4
    })
    .contains("--shard 4/4"));
    assert!(c(|c| c.jitter = 1.5).contains("--jitter"));
    assert!(c(|c| c.run_id = "a/b".into()).contains("--run-id"));
}
