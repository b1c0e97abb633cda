//! Samples: deterministic values of a schema for the writer to encode.

use wirebench_core::Value;

use super::{EvoSchema, Kind};

/// `n` deterministic samples of `schema`. Integers of 64 bits go beyond int32 on odd samples,
/// floats have fractions, an optional field is left out on every fourth sample, an enum cycles
/// through all its symbols (a new symbol appears), a list has two items on odd samples.
pub fn samples(schema: &EvoSchema, n: usize) -> Vec<Value> {
    const TEST01_DATA: [f64; 2] = [48.75, 2.3];
    (0..n)
        .map(|i| {
            let mut pairs = Vec::new();
            for f in &schema.fields {
                if f.optional && i % 4 == 3 {
                    continue;
                }
                pairs.push((f.name.clone(), value_of(&f.kind, f.tag, i, &TEST01_DATA)));
            }
            Value::Map(pairs)
        })
        .collect()
}

fn value_of(k: &Kind, tag: u32, i: usize, data: &[f64; 2]) -> Value {
    let t = tag as i64;
    match k {
        Kind::Bool => Value::Bool(i.is_multiple_of(2)),
        Kind::Int { bits: 64, signed } => {
            let base: i64 = 1_351_824_120 + (if i % 2 == 1 { 3_000_000_000 } else { 0 });
            let v = base + t * 1000 + i as i64;
            if *signed {
                Value::Int(v)
            } else {
                Value::UInt(v as u64)
            }
        }
        Kind::Int { bits, signed } => {
            let top = if *bits >= 32 { 3_700 } else { (1i64 << (bits - 2)) - 1 };
            let v = (top + t * 7 + i as i64 * 3).min((1i64 << (bits - if *signed { 1 } else { 0 })) - 1);
            if *signed {
                Value::Int(v)
            } else {
                Value::UInt(v as u64)
            }
        }
        Kind::Float { bits } => {
            let v = match tag {
                3 => data[0] + i as f64 * 0.125,
                4 => data[1] + i as f64 * 0.125,
                _ => 10.0 * t as f64 + 0.5 + i as f64 * 0.25,
            };
            if *bits == 32 {
                Value::F32(v as f32)
            } else {
                Value::F64(v)
            }
        }
        Kind::String => Value::String(["gps", "imu", "baro"][i % 3].to_string()),
        Kind::Bytes => Value::Bytes(vec![i as u8, tag as u8, 0xfe]),
        Kind::Enum { symbols, .. } => {
            // The last symbol first, so that a few samples show a newly added one.
            let n = symbols.len().max(1);
            Value::String(symbols.get((n - 1 + i) % n).cloned().unwrap_or_default())
        }
        Kind::List { items } => {
            let mut v = vec![value_of(items, tag, i, data)];
            if i % 2 == 1 {
                v.push(value_of(items, tag + 1, i + 1, data));
            }
            Value::Array(v)
        }
    }
}
