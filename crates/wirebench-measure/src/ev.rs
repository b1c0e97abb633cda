//! The EV telemetry message of seed 003 ("Flutter Protobuf vs. JSON", packets every 50 ms
//! between EV subsystems; 995 B as JSON, 277 B as Protobuf). The seed does not publish its
//! `ev_data.proto`, so we designed a message of the same kind and size: vehicle state, battery
//! pack (with 8 cell temperatures), motor, thermal loop, position, tyres and fault codes —
//! **≈ 1 KB as compact JSON and ≈ 280 B as Protobuf** (checked by a test).
//!
//! [`EV_TELEMETRY_JSON`] is the message as a JSON value (the lead adds it as a built-in
//! corpus); [`ev_series`] makes a deterministic stream of varied messages (sequence number and
//! timestamp advance by 50 ms, readings drift by ≤ 1 %), so sizes vary a little as in the seed.

use wirebench_core::{Schema, Value};

use crate::rng::SplitMix64;

/// The message, pretty-printed JSON (key order is the field order).
pub use wirebench_core::corpus::EV_TELEMETRY_JSON;

/// The message as a value.
pub fn ev_telemetry() -> Value {
    Value::from_json_str(EV_TELEMETRY_JSON).expect("the EV telemetry message is valid JSON")
}

fn decimals(f: f64) -> i32 {
    let s = format!("{f}");
    s.split_once('.').map_or(0, |(_, d)| d.len() as i32)
}

fn drift(v: &mut Value, key: &str, rng: &mut SplitMix64) {
    match v {
        Value::F64(f) => {
            let d = decimals(*f).max(1);
            let p = 10f64.powi(d);
            let mut x = ((*f * (1.0 + 0.01 * rng.symmetric())) * p).round() / p;
            if x == x.trunc() {
                // Keep it visibly a float with its decimals (31.0 would print as 31.0 anyway).
                x += 1.0 / p;
            }
            *f = x;
        }
        Value::UInt(u) if key != "seq" && key != "timestamp_ms" => {
            let span = (*u / 100).max(1) as f64;
            *u = (*u as f64 + (rng.symmetric() * span).round()).max(0.0) as u64;
        }
        Value::Int(i) => {
            let span = (i.unsigned_abs() / 100).max(1) as f64;
            *i += (rng.symmetric() * span).round() as i64;
        }
        Value::Array(items) => items.iter_mut().for_each(|it| drift(it, key, rng)),
        Value::Map(pairs) => pairs.iter_mut().for_each(|(k, v)| drift(v, k, rng)),
        _ => {}
    }
}

/// `n` messages: `seq` = 1…n, `timestamp_ms` advancing by 50 ms, readings drifting (seeded).
pub fn ev_series(n: usize, seed: u64) -> Vec<Value> {
    let base = ev_telemetry();
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|i| {
            // Each message drifts from the base, not from the previous one.
            let mut m = base.clone();
            drift(&mut m, "", &mut rng);
            if let Value::Map(pairs) = &mut m {
                for (k, v) in pairs.iter_mut() {
                    match (k.as_str(), v) {
                        ("seq", Value::UInt(s)) => *s = i as u64 + 1,
                        ("timestamp_ms", Value::UInt(t)) => *t += 50 * i as u64,
                        _ => {}
                    }
                }
            }
            m
        })
        .collect()
}

/// The schema the schema-driven codecs use for the message (inferred from a series).
pub fn ev_schema() -> Schema {
    Schema::infer(ev_series(16, 1).iter())
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirebench_codecs::find;

    #[test]
    fn sizes_match_the_seed() {
        let schema = ev_schema();
        let series = ev_series(100, 7);
        let (mut json, mut pb) = (0usize, 0usize);
        for m in &series {
            let mut out = Vec::new();
            find("json").unwrap().encode(m, None, &mut out).unwrap();
            json += out.len();
            out.clear();
            find("protobuf").unwrap().encode(m, Some(&schema), &mut out).unwrap();
            pb += out.len();
            let back = find("protobuf").unwrap().decode(&out, Some(&schema)).unwrap();
            assert_eq!(&back, m, "protobuf round trip");
        }
        let (json, pb) = (json as f64 / 100.0, pb as f64 / 100.0);
        eprintln!("EV telemetry: JSON {json} B, Protobuf {pb} B (mean of 100)");
        assert!((950.0..=1050.0).contains(&json), "JSON mean {json} B (seed: 995)");
        assert!((250.0..=310.0).contains(&pb), "Protobuf mean {pb} B (seed: 277)");
        // Reproducible and varied.
        assert_eq!(ev_series(3, 7), ev_series(3, 7));
        assert_ne!(series[0], series[1]);
    }
}
