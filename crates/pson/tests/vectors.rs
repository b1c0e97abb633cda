//! Table-driven test over `vectors/pson.json` (public subset of the reference
//! vectors; the hidden full set has the same structure).
//!
//! Every failing check is collected with the vector name, and the test fails
//! at the end listing all of them.

use pson::{protoson, Value};
use serde_json::Value as J;

const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/pson.json");

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!("odd-length hex {s:?}"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| format!("bad hex {s:?}: {e}")))
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// The `{"$bytes":"hex"}` / `{"$f64":"NaN"|"Infinity"|"-Infinity"}` markers.
fn marker(m: &serde_json::Map<String, J>) -> Option<Result<Value<'static>, String>> {
    if m.len() != 1 {
        return None;
    }
    if let Some(J::String(h)) = m.get("$bytes") {
        return Some(unhex(h).map(|b| Value::Bytes(Box::leak(b.into_boxed_slice()))));
    }
    if let Some(J::String(s)) = m.get("$f64") {
        return Some(match s.as_str() {
            "NaN" => Ok(Value::F64(f64::NAN)),
            "Infinity" => Ok(Value::F64(f64::INFINITY)),
            "-Infinity" => Ok(Value::F64(f64::NEG_INFINITY)),
            other => Err(format!("unknown $f64 marker {other:?}")),
        });
    }
    None
}

/// JSON → Value, keeping key order. Numbers written with '.', 'e' or as
/// `-0.0` (serde_json: `is_f64`) are floats, others integers.
fn to_value(j: &J) -> Result<Value<'static>, String> {
    Ok(match j {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => {
            if let Some(u) = n.as_u64() {
                Value::Uint(u)
            } else if let Some(i) = n.as_i64() {
                Value::Int(i)
            } else {
                Value::F64(n.as_f64().ok_or("number")?)
            }
        }
        J::String(s) => Value::Str(leak_str(s)),
        J::Array(a) => Value::Array(a.iter().map(to_value).collect::<Result<_, _>>()?),
        J::Object(m) => {
            if let Some(v) = marker(m) {
                return v;
            }
            Value::Map(m.iter().map(|(k, v)| Ok((leak_str(k), to_value(v)?))).collect::<Result<_, String>>()?)
        }
    })
}

/// Numeric value of a decoded number, for comparison by value.
enum Num {
    I(i128),
    F(f64),
    F32(f32),
}

fn num_of(v: &Value<'_>) -> Option<Num> {
    Some(match v {
        Value::Uint(u) => Num::I(*u as i128),
        Value::Int(i) => Num::I(*i as i128),
        Value::F32(f) => Num::F32(*f),
        Value::F64(f) => Num::F(*f),
        _ => return None,
    })
}

fn nums_equal(a: &Num, b: &Num) -> bool {
    let feq = |x: f64, y: f64| (x.is_nan() && y.is_nan()) || x == y;
    match (a, b) {
        (Num::I(x), Num::I(y)) => x == y,
        (Num::I(x), Num::F(y)) | (Num::F(y), Num::I(x)) => feq(*x as f64, *y) && y.fract() == 0.0,
        (Num::F(x), Num::F(y)) => feq(*x, *y),
        // A decoded f32 equals a JSON number if it is that number, or if the
        // JSON text is a shortened print of the f32 (lossy protoson vectors).
        (Num::F32(x), Num::F(y)) | (Num::F(y), Num::F32(x)) => feq(*x as f64, *y) || (y.is_finite() && *y as f32 == *x),
        (Num::F32(x), Num::I(y)) | (Num::I(y), Num::F32(x)) => *x as f64 == *y as f64,
        (Num::F32(x), Num::F32(y)) => feq(*x as f64, *y as f64),
    }
}

/// Compare a decoded value with the expected one (both as Values built by
/// the decoder / `to_value`). Maps: ordered, unless `unordered`, or the
/// decoded map has duplicate keys (then last wins, by key lookup).
fn same(got: &Value<'_>, want: &Value<'_>, unordered: bool) -> bool {
    if let (Some(a), Some(b)) = (num_of(got), num_of(want)) {
        return nums_equal(&a, &b);
    }
    match (got, want) {
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y, unordered)),
        (Value::Map(a), Value::Map(b)) => {
            let mut keys: Vec<&str> = a.iter().map(|(k, _)| *k).collect();
            keys.sort_unstable();
            keys.dedup();
            let dups = keys.len() != a.len();
            if !unordered && !dups {
                a.len() == b.len() && a.iter().zip(b).all(|((ka, va), (kb, vb))| ka == kb && same(va, vb, unordered))
            } else {
                keys.len() == b.len()
                    && b.iter().all(|(kb, vb)| match a.iter().rev().find(|(ka, _)| ka == kb) {
                        Some((_, va)) => same(va, vb, unordered),
                        None => false,
                    })
            }
        }
        (Value::Bytes(a), Value::Bytes(b)) => a == b,
        (Value::Str(a), Value::Str(b)) => a == b,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

fn contains_nul(v: &Value<'_>) -> bool {
    match v {
        Value::Str(s) => s.contains('\0'),
        Value::Map(m) => m.iter().any(|(k, v)| k.contains('\0') || contains_nul(v)),
        Value::Array(a) => a.iter().any(contains_nul),
        _ => false,
    }
}

/// Field that holds JSON text (a string) or, leniently, an inline JSON value.
fn json_field(e: &J, key: &str) -> Result<Option<Value<'static>>, String> {
    match e.get(key) {
        None | Some(J::Null) => Ok(None),
        Some(J::String(text)) => {
            let j: J = serde_json::from_str(text).map_err(|err| format!("{key}: {err}"))?;
            to_value(&j).map(Some)
        }
        Some(other) => to_value(other).map(Some),
    }
}

#[derive(Default)]
struct Counts {
    roundtrip: usize,
    decode_ok: usize,
    decode_err: usize,
    protoson: usize,
}

fn check_roundtrip(e: &J, c: &mut Counts) -> Result<(), String> {
    let want_hex = e["hex"].as_str().ok_or("missing hex")?;
    let want = unhex(want_hex)?;
    let json = json_field(e, "json")?.ok_or("missing json")?;

    // encode
    let enc = json.to_vec();
    if hex(&enc) != want_hex {
        return Err(format!("encode: got {} want {want_hex}", hex(&enc)));
    }
    if json.encoded_len() != want.len() {
        return Err(format!("encoded_len {} != {}", json.encoded_len(), want.len()));
    }
    if let Some(size) = e.get("size").and_then(J::as_u64) {
        if size as usize != want.len() {
            return Err(format!("size field {size} != hex length {}", want.len()));
        }
    }

    // decode
    let (dec, used) = pson::decode(&want).map_err(|err| format!("decode: {err}"))?;
    if used != want.len() {
        return Err(format!("decode consumed {used} of {}", want.len()));
    }
    let expect = json_field(e, "decoded_json")?.unwrap_or_else(|| json.clone());
    if !same(&dec, &expect, false) {
        return Err(format!("decode: got {dec:?} want {expect:?}"));
    }
    pson::decode_exact(&want).map_err(|err| format!("decode_exact: {err}"))?;

    // re-encode the decoded value
    let again = dec.to_vec();
    if again != want {
        return Err(format!("re-encode: got {} want {want_hex}", hex(&again)));
    }
    if dec.encoded_len() != want.len() {
        return Err("encoded_len of decoded value".into());
    }
    c.roundtrip += 1;

    // Protoson v1
    if let Some(phex) = e.get("hex_protoson_v1").and_then(J::as_str) {
        let pwant = unhex(phex)?;
        let mut out = Vec::new();
        protoson::encode(&json, &mut out).map_err(|err| format!("protoson encode: {err}"))?;
        let mut len = protoson::encoded_len(&json);
        if out != pwant && contains_nul(&json) {
            // Documented difference: we keep whole strings by default; the
            // reference truncates at NUL, reproduced by `c_strings`.
            let opts = protoson::EncodeOptions { c_strings: true };
            out.clear();
            protoson::encode_with(&json, &mut out, &opts).map_err(|err| format!("{err}"))?;
            len = protoson::encoded_len_with(&json, &opts);
        }
        if out != pwant {
            return Err(format!("protoson encode: got {} want {phex}", hex(&out)));
        }
        if len != pwant.len() {
            return Err(format!("protoson encoded_len {len} != {}", pwant.len()));
        }
        if let Some(size) = e.get("size_protoson_v1").and_then(J::as_u64) {
            if size as usize != pwant.len() {
                return Err("size_protoson_v1 != hex_protoson_v1 length".into());
            }
        }
        let (pdec, pused) = protoson::decode(&pwant).map_err(|err| format!("protoson decode: {err}"))?;
        if pused != pwant.len() {
            return Err(format!("protoson decode consumed {pused} of {}", pwant.len()));
        }
        if let Some(pexp) = json_field(e, "decoded_protoson_v1")? {
            if !same(&pdec, &pexp, false) {
                return Err(format!("protoson decode: got {pdec:?} want {pexp:?}"));
            }
        }
        // (No byte-exact re-encode check: the lossy float rule is not
        // idempotent, e.g. 1e-300 → `1d 00000000` → F32(0.0) → `38`.)
        c.protoson += 1;
    }
    Ok(())
}

fn check_decode_only(e: &J, c: &mut Counts) -> Result<(), String> {
    let input = unhex(e["hex"].as_str().ok_or("missing hex")?)?;
    let json = json_field(e, "json")?;
    let expect_ok = match e.get("expect").and_then(J::as_str) {
        Some("ok") => true,
        Some("error") => false,
        Some(other) => return Err(format!("unknown expect {other:?}")),
        None => json.is_some(),
    };
    let r = pson::decode(&input);
    if expect_ok {
        let (v, used) = r.map_err(|err| format!("expected ok, got error: {err}"))?;
        if let Some(want) = json {
            if !same(&v, &want, true) {
                return Err(format!("got {v:?} want {want:?}"));
            }
        }
        if let Some(consumed) = e.get("consumed").and_then(J::as_u64) {
            if used as u64 != consumed {
                return Err(format!("consumed {used}, want {consumed}"));
            }
        }
        c.decode_ok += 1;
    } else {
        match r {
            Ok((v, used)) => return Err(format!("expected error, got {v:?} ({used} bytes)")),
            Err(err) => {
                let msg = err.to_string();
                if !msg.contains("at byte") {
                    return Err(format!("error message without offset: {msg}"));
                }
                if err.offset > input.len() {
                    return Err(format!("error offset {} beyond input", err.offset));
                }
            }
        }
        c.decode_err += 1;
    }
    Ok(())
}

#[test]
fn reference_vectors() {
    let text = std::fs::read_to_string(VECTORS).expect("read vectors/pson.json");
    let all: Vec<J> = serde_json::from_str(&text).expect("parse vectors/pson.json");
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    for e in &all {
        let name = e.get("name").and_then(J::as_str).unwrap_or("<unnamed>");
        let kind = e.get("kind").and_then(J::as_str).unwrap_or("");
        let r = match kind {
            "roundtrip" => check_roundtrip(e, &mut counts),
            "decode_only" => check_decode_only(e, &mut counts),
            other => Err(format!("unknown kind {other:?}")),
        };
        if let Err(msg) = r {
            failures.push(format!("{name} ({kind}): {msg}"));
        }
    }
    eprintln!(
        "pson vectors: {} roundtrip ({} with protoson v1), {} decode ok, {} decode error",
        counts.roundtrip, counts.protoson, counts.decode_ok, counts.decode_err
    );
    assert!(failures.is_empty(), "{} vector(s) failed:\n{}", failures.len(), failures.join("\n"));
    let checked = counts.roundtrip + counts.decode_ok + counts.decode_err;
    assert!(checked > 0, "no vectors checked");
    assert_eq!(checked, all.len(), "every vector must be checked");
}
