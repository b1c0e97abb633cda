//! What a speed section says as a whole, computed once where it is measured: per codec the
//! geometric means over payloads, and seed 001's ESP32 ratios beside ours. [`complete`] adds
//! them to results files written before they were part of the section.

use wirebench_core::published::PSON_PAPER_ESP32;
use wirebench_core::results::{CodecSpeed, OpSpeed, Seed001Row, SpeedCase, SpeedSection};

use crate::stats::{geomean_positive, mean_finite};

/// The codecs of the section, in the order its cases first name them.
fn codecs(s: &SpeedSection) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in &s.cases {
        if !out.contains(&c.codec.as_str()) {
            out.push(&c.codec);
        }
    }
    out
}

fn op_speed<'a>(cases: impl Iterator<Item = &'a SpeedCase> + Clone) -> OpSpeed {
    OpSpeed {
        geomean_ns: geomean_positive(cases.clone().map(|x| x.ns_per_op.median)),
        geomean_ratio: geomean_positive(cases.clone().filter_map(|x| x.ratio_to_baseline)),
        mean_allocs: mean_finite(cases.clone().filter_map(|x| x.allocs_per_op)),
        mean_alloc_bytes: mean_finite(cases.clone().filter_map(|x| x.alloc_bytes_per_op)),
        geomean_instructions: geomean_positive(cases.filter_map(|x| x.instructions_per_op)),
    }
}

pub use wirebench_core::results::base_path;

/// Per codec and path over its payloads (a codec measured on both paths has two entries).
pub fn per_codec(s: &SpeedSection) -> Vec<CodecSpeed> {
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for c in codecs(s) {
        for x in s.cases.iter().filter(|x| x.codec == c) {
            let k = (c, base_path(&x.path));
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    keys.into_iter()
        .map(|(c, path)| {
            let of = move |op: &'static str| {
                s.cases.iter().filter(move |x| x.codec == c && x.op == op && base_path(&x.path) == path)
            };
            CodecSpeed {
                codec: c.to_string(),
                path: of("encode").next().map(|x| x.path.clone()).unwrap_or_else(|| path.to_string()),
                encode: op_speed(of("encode")),
                decode: op_speed(of("decode")),
            }
        })
        .collect()
}

/// The case of `codec` and the baseline's case of the same payload and op on the same path,
/// the typed path first: a ratio never divides a typed time by a dynamic one.
pub fn same_path_pair<'a>(
    s: &'a SpeedSection,
    payload: &str,
    codec: &str,
    base: &str,
    op: &str,
) -> Option<(&'a SpeedCase, &'a SpeedCase)> {
    let of = |c: &str, path: &str| {
        s.cases.iter().find(|x| x.payload == payload && x.codec == c && x.op == op && base_path(&x.path) == path)
    };
    ["typed", "dynamic"].iter().find_map(|p| of(codec, p).zip(of(base, p)))
}

/// Seed 001's ESP32 series beside ours (time relative to JSON), for the pson-paper corpus.
pub fn seed001(s: &SpeedSection) -> Vec<Seed001Row> {
    if s.corpus != "pson-paper" {
        return Vec::new();
    }
    let p = &PSON_PAPER_ESP32;
    p.series
        .iter()
        .map(|series| {
            let (codec, op) = (series.codec, series.op);
            let per_payload: Vec<(Option<f64>, Option<f64>)> = p
                .payloads
                .iter()
                .map(|payload| {
                    let ours = same_path_pair(s, payload, codec, "json", op)
                        .map(|(a, b)| a.ns_per_op.median / b.ns_per_op.median);
                    let theirs = p.get(codec, op, payload).zip(p.get("json", op, payload)).map(|(a, b)| a / b);
                    (ours, theirs)
                })
                .collect();
            let paired = || per_payload.iter().filter_map(|(o, t)| o.zip(*t));
            Seed001Row {
                codec: codec.into(),
                op: op.into(),
                ours_geomean: geomean_positive(paired().map(|(o, _)| o)),
                published_geomean: geomean_positive(paired().map(|(_, t)| t)),
                published_geomean_all: geomean_positive(per_payload.iter().filter_map(|(_, t)| *t)),
                per_payload,
            }
        })
        .collect()
}

/// Fill the summaries of a speed section (a run does this as it ends).
pub fn summarize(s: &mut SpeedSection) {
    s.per_codec = per_codec(s);
    s.seed001 = seed001(s);
}

/// Add what results files written before the summaries lack.
pub fn complete(s: &mut SpeedSection) {
    if s.per_codec.is_empty() && !s.cases.is_empty() {
        summarize(s);
    }
}
