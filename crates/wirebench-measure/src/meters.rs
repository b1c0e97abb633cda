//! Generated NB-IoT electricity-meter readings, for the held-out dictionary and delta
//! measurements (`size --dict-split`, `--delta-key`) and their tests: deterministic (SplitMix64
//! from a seed), one JSON object of 11 fields per reading, devices interleaved in time order as
//! a collector would log them. `cargo run --release -p wirebench-measure --example meters`
//! writes them as NDJSON.

use crate::rng::SplitMix64;

/// One reading per device every this many seconds.
const PERIOD_S: u64 = 900;

/// `devices` × `readings` readings as NDJSON lines (no trailing newlines), in time order.
pub fn ndjson(devices: usize, readings: usize, seed: u64) -> Vec<String> {
    let mut rng = SplitMix64::new(seed);
    // Per device: what stays (its ID, firmware, nominal voltage, a load profile) and what runs
    // on (the energy counter, the battery).
    struct Meter {
        id: String,
        fw: &'static str,
        base_w: f64,
        energy_wh: u64,
        batt_mv: u64,
        rssi: i64,
        temp: f64,
    }
    const FW: [&str; 3] = ["2.4.1", "2.4.3", "2.5.0"];
    let mut meters: Vec<Meter> = (0..devices)
        .map(|i| Meter {
            id: format!("nbm-{:05}", 10_000 + 137 * i as u64 % 90_000),
            fw: FW[(rng.next_u64() % 3) as usize],
            base_w: 150.0 + rng.next_f64() * 1_850.0,
            energy_wh: 1_000_000 + rng.next_u64() % 9_000_000,
            batt_mv: 3_550 + rng.next_u64() % 100,
            rssi: -70 - (rng.next_u64() % 40) as i64,
            temp: 12.0 + rng.next_f64() * 14.0,
        })
        .collect();
    let t0 = 1_764_547_200u64; // 2025-12-01T00:00:00Z
    let mut out = Vec::with_capacity(devices * readings);
    for r in 0..readings {
        for (i, m) in meters.iter_mut().enumerate() {
            // A daily load curve, noise, and an occasional idle reading.
            let hour = ((r as u64 * PERIOD_S) / 3600 % 24) as f64;
            let curve = 0.6 + 0.4 * ((hour - 6.0) / 24.0 * std::f64::consts::TAU).sin().abs();
            let power = if rng.chance(0.05) { 0.0 } else { (m.base_w * curve * (0.9 + 0.2 * rng.next_f64())).round() };
            m.energy_wh += (power * PERIOD_S as f64 / 3600.0).round() as u64;
            let voltage = ((229.0 + rng.next_f64() * 4.0 - 2.0) * 10.0).round() / 10.0;
            let current = (power / voltage * 100.0).round() / 100.0;
            let pf = ((0.90 + rng.next_f64() * 0.09) * 100.0).round() / 100.0;
            m.temp = ((m.temp + rng.next_f64() - 0.5) * 10.0).round() / 10.0;
            if rng.chance(0.1) {
                m.batt_mv -= 1;
            }
            let rssi = m.rssi + (rng.next_u64() % 5) as i64 - 2;
            let ts = t0 + r as u64 * PERIOD_S + (i as u64 * 7) % 60;
            out.push(format!(
                r#"{{"device_id":"{}","ts":{},"energy_wh":{},"power_w":{},"voltage":{:.1},"current":{:.2},"pf":{:.2},"temp":{:.1},"rssi":{},"batt_mv":{},"fw":"{}"}}"#,
                m.id, ts, m.energy_wh, power as u64, voltage, current, pf, m.temp, rssi, m.batt_mv, m.fw
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn readings_are_deterministic_json_with_the_meter_fields() {
        let a = super::ndjson(40, 30, 7);
        assert_eq!(a, super::ndjson(40, 30, 7));
        assert_eq!(a.len(), 1200);
        let v: serde_json::Value = serde_json::from_str(&a[41]).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 11);
        assert!(keys.contains(&"device_id") && keys.contains(&"energy_wh"));
        let ids: std::collections::BTreeSet<_> =
            a.iter().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["device_id"].to_string()).collect();
        assert_eq!(ids.len(), 40);
    }
}
