//! `report -o bmf`: the speed, size and device figures of a results file in Bencher Metric
//! Format (a JSON object: benchmark name → measure → `value`, `lower_value`, `upper_value`), so
//! CI dashboards can track them run after run.
//!
//! Benchmark names are the figure's row, `/`-separated: `speed/PAYLOAD/CODEC/OP[/PATH/BUFFER]`,
//! `size/PAYLOAD/CODEC[/PATH]` (or `size/CODEC` for a run that kept no rows),
//! `device/TARGET/LIB/PAYLOAD`. Measures: `latency` (median ns per operation, bounds the 95 %
//! interval of the median), `instructions` and `allocations` per operation, `file-size` (bytes of
//! one message; with `zstd-size` and `deflate-size`), and the device lab's `encode-cycles`,
//! `decode-cycles`, `flash`, `ram`, `stack-encode`, `stack-decode` (bytes and cycles).

use serde_json::{json, Map, Value};
use wirebench_core::results::Results;

/// A benchmark name from its parts, `/`-separated (a `/` inside a part, as in `n/a`, becomes `-`).
fn name(parts: &[&str]) -> String {
    parts.iter().map(|p| p.replace('/', "-")).collect::<Vec<_>>().join("/")
}

fn measure(value: f64, bounds: Option<(f64, f64)>) -> Value {
    match bounds {
        Some((lo, hi)) => json!({ "value": value, "lower_value": lo, "upper_value": hi }),
        None => json!({ "value": value }),
    }
}

/// Adds `measure` to the benchmark `name`.
fn put(out: &mut Map<String, Value>, name: String, measure_name: &str, m: Value) {
    let entry = out.entry(name).or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(o) = entry {
        o.insert(measure_name.to_string(), m);
    }
}

pub fn bmf(r: &Results) -> Value {
    let mut out = Map::new();
    if let Some(s) = &r.speed {
        // The path and buffer name the case only where the run measured more than one.
        let several = |f: fn(&wirebench_core::results::SpeedCase) -> &str| {
            s.cases.iter().map(f).collect::<std::collections::BTreeSet<_>>().len() > 1
        };
        let (paths, buffers) = (several(|c| &c.path), several(|c| &c.buffer));
        for c in &s.cases {
            let mut parts = vec!["speed", &c.payload, &c.codec, &c.op];
            if paths {
                parts.push(&c.path);
            }
            if buffers {
                parts.push(&c.buffer);
            }
            let name = name(&parts);
            let ns = &c.ns_per_op;
            put(&mut out, name.clone(), "latency", measure(ns.median, Some(ns.median_ci95)));
            if let Some(i) = c.instructions_per_op {
                put(&mut out, name.clone(), "instructions", measure(i, None));
            }
            if let Some(a) = c.allocs_per_op {
                put(&mut out, name, "allocations", measure(a, None));
            }
        }
    }
    if let Some(s) = &r.size {
        let paths = s.rows.iter().map(|r| &r.path).collect::<std::collections::BTreeSet<_>>().len() > 1;
        for row in &s.rows {
            let Some(bytes) = row.bytes else { continue };
            let mut parts = vec!["size", &row.payload, &row.codec];
            if paths {
                parts.push(&row.path);
            }
            let name = name(&parts);
            put(&mut out, name.clone(), "file-size", measure(bytes as f64, None));
            if let Some(z) = row.zstd_bytes {
                put(&mut out, name.clone(), "zstd-size", measure(z as f64, None));
            }
            if let Some(d) = row.deflate_bytes {
                put(&mut out, name, "deflate-size", measure(d as f64, None));
            }
        }
        if s.rows.is_empty() {
            for a in &s.aggregates {
                if let Some(mean) = a.bytes_mean {
                    let bounds = a.bytes_p50.zip(a.bytes_max).map(|(lo, hi)| (lo as f64, hi as f64));
                    let bounds = bounds.filter(|(lo, hi)| *lo <= mean && mean <= *hi);
                    put(&mut out, name(&["size", &a.codec]), "file-size", measure(mean, bounds));
                }
            }
        }
    }
    if let Some(lab) = r.device.as_ref().and_then(|d| d.lab.as_ref()) {
        for row in &lab.rows {
            let name = name(&["device", &row.target, &row.lib, &row.payload]);
            let figures = [
                ("encode-cycles", row.encode_cycles),
                ("decode-cycles", row.decode_cycles),
                ("flash", row.flash),
                ("ram", row.ram),
                ("stack-encode", row.stack_encode),
                ("stack-decode", row.stack_decode),
            ];
            for (m, v) in figures {
                if let Some(v) = v {
                    put(&mut out, name.clone(), m, measure(v as f64, None));
                }
            }
        }
    }
    Value::Object(out)
}
