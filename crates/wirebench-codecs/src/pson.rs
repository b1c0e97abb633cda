//! PSON v2 and the legacy Protoson v1 encoding, on our own `pson` crate (spec-exact; see
//! `crates/pson` and docs/formats/pson.md).
//!
//! PSON encodes straight from a [`Value`] through the `pson` crate's serde serializer and
//! decodes through the pull decoder; Protoson encodes through its streaming writer. Neither
//! builds an intermediate tree, and encoding into a reused buffer allocates nothing.

use pson::{Decoder, Item};
use wirebench_core::value::max_depth;
use wirebench_core::{Schema, Value};

use crate::{Codec, CodecError, CodecInfo, SchemaUse};

pub struct Pson;
pub struct Protoson;

static PSON_INFO: CodecInfo = CodecInfo {
    id: "pson",
    format: "PSON v2 (Thinger.io, Sensors 2021 / draft-bustamante-pson)",
    library: "wirebench",
    schema: SchemaUse::None,
    media_type: "application/pson",
    fidelity_notes: &[
        "whole floats (1.0, -0.0) are written as integers and read back as integers",
        "float64 values exactly representable in float32 are written as float32 (same value)",
        "NaN is written as the canonical quiet NaN",
    ],
};

static PROTOSON_INFO: CodecInfo = CodecInfo {
    id: "protoson",
    format: "Protoson v1 (legacy Thinger.io device encoding)",
    library: "wirebench",
    schema: SchemaUse::None,
    media_type: "application/x-protoson",
    fidelity_notes: &[
        "lossy floats: a float64 within 1e-5 of a float32 is sent as float32 (2.3 reads back as 2.299999952)",
        "whole floats are written as integers",
    ],
};

fn pson_err(e: pson::Error) -> CodecError {
    CodecError::decode_kind(format!("invalid PSON: {}", e.kind.description()), e.kind.name(), e.offset)
}

/// Encode a [`Value`] with the PSON streaming encoder (the reference the codec's serde path is
/// tested against).
#[cfg(test)]
fn encode_value<W: pson::Write>(enc: &mut pson::Encoder<W>, v: &Value) -> Result<(), pson::Error> {
    match v {
        Value::Null => enc.null()?,
        Value::Bool(b) => enc.bool(*b)?,
        Value::Int(i) => enc.i64(*i)?,
        Value::UInt(u) => enc.u64(*u)?,
        Value::F32(f) => enc.f32(*f)?,
        Value::F64(f) => enc.f64(*f)?,
        Value::String(s) => enc.str(s)?,
        Value::Bytes(b) => enc.bytes(b)?,
        Value::Array(items) => {
            enc.array(items.len() as u64)?;
            for it in items {
                encode_value(enc, it)?;
            }
            return Ok(());
        }
        Value::Map(pairs) => {
            enc.map(pairs.len() as u64)?;
            for (k, it) in pairs {
                enc.str(k)?;
                encode_value(enc, it)?;
            }
            return Ok(());
        }
    };
    Ok(())
}

fn read_value(dec: &mut Decoder<'_>, depth: usize) -> Result<Value, CodecError> {
    let at = dec.position();
    let item = dec.next().map_err(pson_err)?;
    Ok(match item {
        Item::Uint(u) => Value::UInt(u),
        Item::Int(i) => Value::Int(i),
        Item::F32(f) => Value::F32(f),
        Item::F64(f) => Value::F64(f),
        Item::Bool(b) => Value::Bool(b),
        Item::Null => Value::Null,
        Item::Str(s) => Value::String(s.to_owned()),
        Item::Bytes(b) => Value::Bytes(b.to_vec()),
        Item::Array(n) | Item::Map(n) if depth >= max_depth() => {
            let _ = n;
            return Err(CodecError::decode(
                format!("invalid PSON: {}", wirebench_core::value::too_deep(max_depth())),
                Some(at),
            ));
        }
        Item::Array(n) => {
            // The decoder has checked n against the remaining input, so this is bounded.
            let mut items = Vec::with_capacity(n as usize);
            for _ in 0..n {
                items.push(read_value(dec, depth + 1)?);
            }
            Value::Array(items)
        }
        Item::Map(n) => {
            let mut pairs = Vec::with_capacity(n as usize);
            for _ in 0..n {
                let k = dec.key().map_err(pson_err)?.to_owned();
                pairs.push((k, read_value(dec, depth + 1)?));
            }
            Value::Map(pairs)
        }
    })
}

/// Decode exactly one PSON item covering all of `bytes`.
pub fn decode_value(bytes: &[u8]) -> Result<Value, CodecError> {
    let mut dec = Decoder::new(bytes);
    let v = read_value(&mut dec, 0)?;
    if dec.remaining() != 0 {
        return Err(CodecError::decode("trailing bytes after the PSON item", Some(dec.position())));
    }
    Ok(v)
}

impl Codec for Pson {
    fn info(&self) -> &'static CodecInfo {
        &PSON_INFO
    }

    fn encode(&self, value: &Value, _: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // Through the serde serializer: the same bytes as the streaming encoder
        // ([`encode_value`], a test checks it), with headers, varints and floats assembled in
        // registers and written with one fixed-length store each.
        pson::serde::to_writer(out, value).map_err(|e| CodecError::Encode(e.to_string()))
    }

    fn decode(&self, bytes: &[u8], _: Option<&Schema>) -> Result<Value, CodecError> {
        decode_value(bytes)
    }
}

fn protoson_write(enc: &mut pson::protoson::StreamEncoder<'_>, v: &Value) {
    match v {
        Value::Null => enc.null(),
        Value::Bool(b) => enc.bool(*b),
        Value::Int(i) => enc.int(*i),
        Value::UInt(u) => enc.uint(*u),
        Value::F32(f) => enc.f32(*f),
        Value::F64(f) => enc.f64(*f),
        Value::String(s) => enc.str(s),
        Value::Bytes(b) => enc.bytes(b),
        Value::Array(items) => {
            let open = enc.begin_array();
            for it in items {
                protoson_write(enc, it);
            }
            enc.end(open);
        }
        Value::Map(pairs) => {
            let open = enc.begin_map();
            for (k, it) in pairs {
                enc.key(k);
                protoson_write(enc, it);
            }
            enc.end(open);
        }
    }
}

/// Borrow a [`Value`] as the `pson` crate's tree (the reference the streaming Protoson
/// writer is tested against).
#[cfg(test)]
fn to_pson(v: &Value) -> pson::Value<'_> {
    match v {
        Value::Null => pson::Value::Null,
        Value::Bool(b) => pson::Value::Bool(*b),
        Value::Int(i) if *i >= 0 => pson::Value::Uint(*i as u64),
        Value::Int(i) => pson::Value::Int(*i),
        Value::UInt(u) => pson::Value::Uint(*u),
        Value::F32(f) => pson::Value::F32(*f),
        Value::F64(f) => pson::Value::F64(*f),
        Value::String(s) => pson::Value::Str(s),
        Value::Bytes(b) => pson::Value::Bytes(b),
        Value::Array(items) => pson::Value::Array(items.iter().map(to_pson).collect()),
        Value::Map(pairs) => pson::Value::Map(pairs.iter().map(|(k, v)| (k.as_str(), to_pson(v))).collect()),
    }
}

fn from_pson(v: &pson::Value<'_>) -> Value {
    match v {
        pson::Value::Uint(u) => Value::UInt(*u),
        pson::Value::Int(i) => Value::Int(*i),
        pson::Value::F32(f) => Value::F32(*f),
        pson::Value::F64(f) => Value::F64(*f),
        pson::Value::Bool(b) => Value::Bool(*b),
        pson::Value::Null => Value::Null,
        pson::Value::Str(s) => Value::String((*s).to_owned()),
        pson::Value::Bytes(b) => Value::Bytes(b.to_vec()),
        pson::Value::Array(items) => Value::Array(items.iter().map(from_pson).collect()),
        pson::Value::Map(pairs) => Value::Map(pairs.iter().map(|(k, v)| ((*k).to_owned(), from_pson(v))).collect()),
    }
}

impl Codec for Protoson {
    fn info(&self) -> &'static CodecInfo {
        &PROTOSON_INFO
    }

    fn encode(&self, value: &Value, _: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // Straight from the value into the buffer (no tree, no size pass): the bytes of
        // `pson::protoson::encode` on the same value (a test checks it).
        protoson_write(&mut pson::protoson::StreamEncoder::new(out), value);
        Ok(())
    }

    fn decode(&self, bytes: &[u8], _: Option<&Schema>) -> Result<Value, CodecError> {
        let limits = pson::Limits { max_depth: max_depth() };
        let (v, used) = pson::protoson::decode_with(bytes, &limits).map_err(|e| {
            let what = match e.kind {
                pson::ErrorKind::DepthLimit => wirebench_core::value::too_deep(max_depth()),
                kind => kind.description().to_string(),
            };
            CodecError::decode_kind(format!("invalid Protoson: {what}"), e.kind.name(), e.offset)
        })?;
        if used != bytes.len() {
            return Err(CodecError::decode("trailing bytes after the Protoson item", Some(used)));
        }
        Ok(from_pson(&v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codec's encoder (serde serializer) and the streaming encoder give the same bytes
    /// for every kind of value, at every header and varint boundary and float class.
    #[test]
    fn serde_path_equals_streaming_encoder() {
        let mut values =
            vec![Value::Null, Value::Bool(true), Value::Bool(false), Value::Bytes(vec![]), Value::Bytes(vec![7; 40])];
        for shift in 0..64u32 {
            for d in [0u64, 1, 2] {
                let u = (1u64 << shift).wrapping_sub(d);
                values.push(Value::UInt(u));
                values.push(Value::Int((u as i64).wrapping_neg()));
                values.push(Value::Int(u as i64));
                values.push(Value::F64(u as f64));
                values.push(Value::F64(-(u as f64)));
            }
        }
        for f in [
            0.0,
            -0.0,
            0.5,
            -1.5,
            2.3,
            1e300,
            -1e-300,
            16_777_216.5,
            9_223_372_036_854_775_808.0,
            -9_223_372_036_854_775_808.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            3.4028234663852886e38,
            1.17549435e-38,
        ] {
            values.push(Value::F64(f));
            values.push(Value::F32(f as f32));
        }
        for n in [0usize, 1, 30, 31, 127, 128, 16_383, 16_384, 70_000] {
            values.push(Value::String("x".repeat(n)));
        }
        let nested = Value::Map(vec![
            ("a".into(), Value::Array(values.clone())),
            ("".into(), Value::Map(vec![("k".repeat(40), Value::Array(vec![]))])),
        ]);
        values.push(nested);
        let long = Value::Array(
            (0..3000)
                .map(|i| {
                    Value::Map(vec![
                        ("k".into(), Value::UInt(i)),
                        ("s".into(), Value::String("y".repeat(i as usize % 200))),
                    ])
                })
                .collect(),
        );
        values.push(Value::Map(vec![(
            "deep".into(),
            Value::Array(vec![long.clone(), Value::Map(vec![("x".into(), long)])]),
        )]));
        for v in &values {
            let mut a = Vec::new();
            encode_value(&mut pson::Encoder::new(&mut a), v).unwrap();
            let mut b = vec![0xaa; 3]; // appends after what the buffer holds
            Pson.encode(v, None, &mut b).unwrap();
            assert_eq!(&b[3..], &a[..], "{v:?}");
            // Protoson: the streaming writer gives the tree encoder's bytes.
            let mut want = Vec::new();
            pson::protoson::encode(&to_pson(v), &mut want).unwrap();
            let mut got = vec![0xbb; 2];
            Protoson.encode(v, None, &mut got).unwrap();
            assert!(got[2..] == want[..], "protoson {v:?}");
        }
    }
}
