//! Shared helpers for the integration tests: hex, the vector file, and a view of a
//! decoded message in the shape of the vectors' `decoded` objects (open62541's decode).
#![allow(dead_code)]

use serde_json::{Map, Value as J};
use uadp::*;

#[allow(unused_imports)]
pub use uadp::model_json::{datetime_view, dsm_view, field_view, message_view, scalar_view, variant_view};

pub const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/uadp.json");

pub fn vectors() -> Vec<J> {
    let text = std::fs::read_to_string(VECTORS).unwrap_or_else(|e| panic!("{VECTORS}: {e}"));
    match serde_json::from_str(&text) {
        Ok(J::Array(a)) => a,
        other => panic!("{VECTORS}: not a JSON array: {other:?}"),
    }
}

pub fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd-length hex {s:?}");
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The seed's DataSetClassId.
pub fn seed_class() -> Guid {
    Guid::parse("eae79794-1af7-4f96-8401-4096cd1d8908").unwrap()
}

/// The seed's field values, in order (Float 25.5, Float 1013.25, Int32 42, then the spec's
/// chosen values).
pub fn seed_fields(n: usize) -> Vec<Variant> {
    let all = [
        Scalar::Float(25.5),
        Scalar::Float(1013.25),
        Scalar::Int32(42),
        Scalar::Float(60.5),
        Scalar::Int32(-7),
        Scalar::Float(3.25),
        Scalar::Float(-40.0),
        Scalar::Int32(100000),
        Scalar::Float(0.125),
        Scalar::Int32(0),
    ];
    all.iter().cycle().take(n).cloned().map(Variant::Scalar).collect()
}

/// The seed layout: 0xD1 / 0x0C, String PublisherId "ESP32-Bench", DataSetClassId,
/// PayloadHeader with writer 1000, one key frame of Variant fields.
pub fn seed_message(n: usize) -> NetworkMessage {
    NetworkMessage {
        publisher_id: Some(PublisherId::String("ESP32-Bench".into())),
        data_set_class_id: Some(seed_class()),
        data_set_writer_ids: Some(vec![1000]),
        messages: vec![DataSetMessage::variant_key_frame(seed_fields(n))],
        ..NetworkMessage::default()
    }
}

/// The smallest sensible options (spec `minimal_raw_3f`): Byte PublisherId 1 (no
/// ExtendedFlags1), PayloadHeader with writer 1000, no DataSetClassId.
pub fn minimal_message(n: usize, encoding: FieldEncoding) -> NetworkMessage {
    let mut dsm = DataSetMessage::variant_key_frame(seed_fields(n));
    dsm.field_encoding = encoding;
    NetworkMessage {
        publisher_id: Some(PublisherId::Byte(1)),
        data_set_writer_ids: Some(vec![1000]),
        messages: vec![dsm],
        ..NetworkMessage::default()
    }
}

// ---------------------------------------------------------------------------------------
// The `decoded` view.

// ---------------------------------------------------------------------------------------
// Comparison of an expected `decoded` object with the view.

/// Result of comparing: mismatches fail the test, unchecked keys are only reported.
#[derive(Default, Debug)]
pub struct Diff {
    pub mismatches: Vec<String>,
    pub unchecked: Vec<String>,
}

fn norm_key(k: &str) -> String {
    let k: String = k.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase();
    match k.as_str() {
        "datasetmessagesequencenr" | "datasetmessagesequencenumber" | "seqnr" => "sequencenumber".into(),
        "configversionmajorversion" | "majorversion" => "configversionmajor".into(),
        "configversionminorversion" | "minorversion" => "configversionminor".into(),
        "statuscode" => "status".into(),
        "fieldindex" => "index".into(),
        "datasetmessagevalid" => "valid".into(),
        "datasetmessagetype" => "messagetype".into(),
        "typename" => "type".into(),
        _ => k,
    }
}

fn find_key<'a>(m: &'a Map<String, J>, k: &str) -> Option<&'a J> {
    if let Some(v) = m.get(k) {
        return Some(v);
    }
    let nk = norm_key(k);
    m.iter().find(|(mk, _)| norm_key(mk) == nk).map(|(_, v)| v)
}

fn num_eq(a: f64, b: f64) -> bool {
    a == b || (a as f32 == b as f32) || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

fn msgtype_alias(s: &str) -> &str {
    match s.to_ascii_lowercase().as_str() {
        "datakeyframe" | "keyframe" | "ua-keyframe" => "DataKeyFrame",
        "datadeltaframe" | "deltaframe" | "ua-deltaframe" => "DataDeltaFrame",
        "keepalive" | "ua-keepalive" => "KeepAlive",
        "dataevent" | "event" | "ua-event" => "Event",
        _ => "?",
    }
}

/// Compare `expected` (from the vector file) with `mine` (the view); `path` for messages.
pub fn compare(expected: &J, mine: &J, path: &str, diff: &mut Diff) {
    match (expected, mine) {
        // Marker objects in the view.
        (_, J::Object(m)) if m.contains_key("$ticks") => {
            let ticks = m["$ticks"].as_i64().unwrap_or(0);
            let iso = m["$iso"].as_str().unwrap_or("");
            let ok = match expected {
                J::Number(n) => n.as_i64() == Some(ticks),
                J::String(s) => s == iso || uadp::time::parse_iso8601(s).map(|t| t.0) == Some(ticks),
                _ => false,
            };
            if !ok {
                diff.mismatches.push(format!("{path}: expected {expected}, got DateTime {iso} ({ticks} ticks)"));
            }
        }
        (_, J::Object(m)) if m.contains_key("$f32") => {
            let f = m["$f32"].as_f64().unwrap_or(f64::NAN);
            let ok = expected.as_f64().is_some_and(|e| num_eq(e, f) || (e as f32) == (f as f32));
            if !ok {
                diff.mismatches.push(format!("{path}: expected {expected}, got Float {f}"));
            }
        }
        (_, J::Object(m)) if m.contains_key("$bytes") => {
            let ok = match expected {
                J::String(s) => {
                    s.eq_ignore_ascii_case(m["$bytes"].as_str().unwrap_or("")) || s == m["$b64"].as_str().unwrap_or("")
                }
                J::Array(a) => {
                    let bytes: Vec<u64> = a.iter().filter_map(J::as_u64).collect();
                    hex(&bytes.iter().map(|&b| b as u8).collect::<Vec<_>>()) == m["$bytes"].as_str().unwrap_or("")
                }
                _ => false,
            };
            if !ok {
                diff.mismatches.push(format!("{path}: expected {expected}, got bytes {}", m["$bytes"]));
            }
        }
        (J::Object(e), J::Object(m)) => {
            // A JSON-decoded field: open62541 says DataValue {value: {...}}, we may hold the Variant.
            if e.contains_key("value") && e["value"].is_object() && m.contains_key("type") {
                compare(&e["value"], mine, &format!("{path}.value"), diff);
                for (k, v) in e {
                    if k != "value" && !v.is_null() {
                        diff.mismatches.push(format!("{path}.{k}: expected {v}, we hold a plain Variant"));
                    }
                }
                return;
            }
            for (k, ev) in e {
                let p = format!("{path}.{k}");
                match find_key(m, k) {
                    Some(mv) => {
                        if norm_key(k) == "messagetype" {
                            let (a, b) = (ev.as_str().unwrap_or(""), mv.as_str().unwrap_or(""));
                            if msgtype_alias(a) != msgtype_alias(b) {
                                diff.mismatches.push(format!("{p}: expected {ev}, got {mv}"));
                            }
                        } else {
                            compare(ev, mv, &p, diff);
                        }
                    }
                    None if ev.is_null() => {}
                    None if ev == &J::Bool(false) => {}
                    None => diff.unchecked.push(format!("{p} = {ev}")),
                }
            }
        }
        (J::Array(e), J::Array(m)) => {
            if e.len() != m.len() {
                diff.mismatches.push(format!("{path}: expected {} items, got {}", e.len(), m.len()));
                return;
            }
            for (i, (ev, mv)) in e.iter().zip(m).enumerate() {
                compare(ev, mv, &format!("{path}[{i}]"), diff);
            }
        }
        (J::Number(a), J::Number(b)) => {
            let ok = match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => num_eq(a.as_f64().unwrap_or(f64::NAN), b.as_f64().unwrap_or(f64::NAN)),
            };
            if !ok {
                diff.mismatches.push(format!("{path}: expected {a}, got {b}"));
            }
        }
        // 64-bit integers written as strings, Guids in either case.
        (J::String(a), J::Number(b))
            if a.parse::<f64>().ok().is_some_and(|x| num_eq(x, b.as_f64().unwrap_or(f64::NAN))) => {}
        (J::String(a), J::String(b)) if a.eq_ignore_ascii_case(b) && a.len() == 36 => {}
        (a, b) => {
            if a != b {
                diff.mismatches.push(format!("{path}: expected {a}, got {b}"));
            }
        }
    }
}

/// Metadata for RawData vectors, from the expected `decoded` (field types per message,
/// writer ids) or else from the `decode_options` text ("fields Float, Float, Int32 for
/// DataSetWriterId 1000").
pub fn raw_metadata(v: &J) -> Vec<DataSetMetaData> {
    let mut out = Vec::new();
    if let Some(d) = v.get("decoded").filter(|d| !d.is_null()) {
        let ids: Vec<Option<u16>> = d["dataSetWriterIds"]
            .as_array()
            .map(|a| a.iter().map(|x| x.as_u64().map(|x| x as u16)).collect())
            .unwrap_or_default();
        for (i, dsm) in d["dataSetMessages"].as_array().into_iter().flatten().enumerate() {
            if dsm["fieldEncoding"] != "RawData" {
                continue;
            }
            let fields = dsm["fields"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| {
                    let ty = BuiltInType::from_name(f["type"].as_str()?)?;
                    Some(FieldMetaData { name: String::new(), built_in_type: ty, array: f["value"].is_array() })
                })
                .collect();
            out.push(DataSetMetaData { data_set_writer_id: ids.get(i).copied().flatten(), fields });
        }
    }
    if out.is_empty() {
        if let Some(text) = v.get("decode_options").and_then(J::as_str) {
            if let Some(rest) = text.split("fields ").nth(1) {
                let (types, writer) = match rest.split_once(" for DataSetWriterId ") {
                    Some((t, w)) => (t, w.trim().parse::<u16>().ok()),
                    None => (rest, None),
                };
                let fields = types
                    .split(',')
                    .filter_map(|t| BuiltInType::from_name(t.trim()))
                    .map(|t| FieldMetaData::scalar("", t))
                    .collect();
                out.push(DataSetMetaData { data_set_writer_id: writer, fields });
            }
        }
    }
    out
}
