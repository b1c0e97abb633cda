//! Protocol Buffers (proto3 wire format) on prost.
//!
//! Dynamic path: schema-directed, written with prost's wire primitives (`prost::encoding`).
//! Typed path: prost-derived message types for the built-in corpus (`crate::typed`); a test
//! checks that both paths produce the same bytes.
//!
//! Schema → proto3 mapping (field numbers 1..n in schema order):
//!
//! | schema            | proto3                  | wire                          |
//! |-------------------|-------------------------|-------------------------------|
//! | bool              | `bool`                  | varint                        |
//! | uint8..uint64     | `uint32` / `uint64`     | varint                        |
//! | int8..int64       | `sint32` / `sint64`     | zigzag varint                 |
//! | float32 / float64 | `float` / `double`      | fixed32 / fixed64, LE         |
//! | string / bytes    | `string` / `bytes`      | length-delimited              |
//! | record            | message                 | length-delimited              |
//! | array of numbers  | `repeated`, packed      | one length-delimited field    |
//! | array of others   | `repeated`              | one field per item            |
//! | optional field    | proto3 `optional`       | written when present          |
//!
//! Non-optional scalars follow proto3 implicit presence: zero, false, "" and empty arrays are
//! not written and read back as those defaults.
//!
//! With a schema read from a .proto file ([`crate::proto_schema`]) the codec encodes and decodes
//! through the compiler's descriptor instead: `prost-reflect` dynamic messages, so the bytes are
//! protoc's for that .proto (every field type, oneofs, maps, recursion, well-known types), and
//! values follow the canonical proto3 JSON mapping (see [`dynamic`]).

use prost::bytes::Buf;
use prost::encoding::{decode_key, decode_varint, encode_key, encode_varint, WireType};
use wirebench_core::value::max_depth;
use wirebench_core::{Field, Schema, Type, Value};

use crate::{need_schema, root_record, Codec, CodecError, CodecInfo, SchemaUse};

pub mod dynamic;

pub struct Protobuf;

static INFO: CodecInfo = CodecInfo {
    id: "protobuf",
    format: "Protocol Buffers (proto3)",
    library: "prost",
    schema: SchemaUse::Required,
    media_type: "application/x-protobuf",
    fidelity_notes: &[
        "proto3 implicit presence: a non-optional field holding 0, false, \"\" or [] is not sent and reads back as that default",
        "arrays of arrays and mixed-type arrays have no proto3 mapping",
        "null is only representable for optional fields (as absence)",
    ],
};

impl Codec for Protobuf {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        if let Some(d) = schema.and_then(|s| s.proto.as_ref()) {
            return dynamic::encode(value, &dynamic::descriptor(d)?, out);
        }
        write(value, schema, true, out)
    }

    fn encode_fitted(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        if let Some(d) = schema.and_then(|s| s.proto.as_ref()) {
            return dynamic::encode(value, &dynamic::descriptor(d)?, out);
        }
        write(value, schema, false, out)
    }

    fn decode(&self, bytes: &[u8], schema: Option<&Schema>) -> Result<Value, CodecError> {
        if let Some(d) = schema.and_then(|s| s.proto.as_ref()) {
            return dynamic::decode(bytes, &dynamic::descriptor(d)?);
        }
        let schema = need_schema(schema, "protobuf")?;
        let fields = root_record(schema, "protobuf")?;
        let mut buf = bytes;
        decode_message(fields, &mut buf, bytes.len(), 0)
    }

    fn prepare(&self, schema: Option<&Schema>) -> Result<Box<dyn crate::Prepared + '_>, CodecError> {
        match schema.and_then(|s| s.proto.as_ref()) {
            Some(d) => Ok(Box::new(dynamic::Bound(dynamic::descriptor(d)?))),
            None => Ok(Box::new(crate::Bound { codec: self, schema: schema.cloned() })),
        }
    }
}

/// Write `value` as a Protobuf message of `schema`'s root record, checking first (`check`)
/// that the value fits the schema; the schema and its root are refused before the check.
fn write(value: &Value, schema: Option<&Schema>, check: bool, out: &mut Vec<u8>) -> Result<(), CodecError> {
    let schema = need_schema(schema, "protobuf")?;
    let fields = root_record(schema, "protobuf")?;
    if check {
        schema.check(value)?;
    }
    let Value::Map(pairs) = value else {
        return Err(CodecError::Unsupported("protobuf messages are records".into()));
    };
    encode_message(fields, pairs, out)
}

// ---------------------------------------------------------------------------------------------
// Encoding

/// How an integer field is written: the default (zigzag for signed, varint for unsigned), or
/// the form a .proto file declared (`int32`/`int64`/`enum`: two's complement varint;
/// `sint*`: zigzag; `fixed*`/`sfixed*`: little-endian fixed width).
#[derive(Clone, Copy, PartialEq)]
enum Form {
    Default,
    Varint,
    ZigZag,
    Fixed,
}

impl Form {
    fn of(f: &Field) -> Form {
        match f.proto.as_ref().map(|p| p.kind.as_str()) {
            Some("int32" | "int64" | "uint32" | "uint64" | "enum") => Form::Varint,
            Some("sint32" | "sint64") => Form::ZigZag,
            Some("fixed32" | "fixed64" | "sfixed32" | "sfixed64") => Form::Fixed,
            _ => Form::Default,
        }
    }
}

/// A field's number: the .proto's, else its position from 1.
fn number(f: &Field, i: usize) -> u32 {
    f.proto.as_ref().map_or((i + 1) as u32, |p| p.number)
}

fn encode_message(fields: &[Field], pairs: &[(String, Value)], out: &mut Vec<u8>) -> Result<(), CodecError> {
    let mut given = wirebench_core::value::pairs_lookup(pairs);
    for (i, f) in fields.iter().enumerate() {
        let tag = number(f, i);
        let Some((_, v)) = given.get(&f.name) else { continue };
        if matches!(v, Value::Null) {
            continue; // absence (schema check allowed it only for optional fields)
        }
        encode_field(tag, &f.ty, Form::of(f), v, f.optional, out)?;
    }
    Ok(())
}

fn is_default(v: &Value) -> bool {
    match v {
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::UInt(u) => *u == 0,
        Value::F32(f) => *f == 0.0 && f.is_sign_positive(),
        Value::F64(f) => *f == 0.0 && f.is_sign_positive(),
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

fn encode_field(
    tag: u32,
    ty: &Type,
    form: Form,
    v: &Value,
    explicit: bool,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    if !explicit && !matches!(ty, Type::Record { .. }) && is_default(v) {
        return Ok(());
    }
    match (ty, v) {
        (Type::Array { items }, Value::Array(vs)) => match scalar_wire(items, form) {
            Some(WireType::Varint) | Some(WireType::SixtyFourBit) | Some(WireType::ThirtyTwoBit) => {
                let mut body = Vec::with_capacity(vs.len() * 8);
                for it in vs {
                    encode_scalar(items, form, it, &mut body)?;
                }
                encode_key(tag, WireType::LengthDelimited, out);
                encode_varint(body.len() as u64, out);
                out.extend_from_slice(&body);
                Ok(())
            }
            _ => {
                if matches!(**items, Type::Array { .. } | Type::Any | Type::Null) {
                    return Err(CodecError::Unsupported(format!("protobuf has no mapping for {}", ty.describe())));
                }
                for it in vs {
                    encode_field(tag, items, form, it, true, out)?;
                }
                Ok(())
            }
        },
        (Type::Record { fields, .. }, Value::Map(pairs)) => {
            let mut body = Vec::new();
            encode_message(fields, pairs, &mut body)?;
            encode_key(tag, WireType::LengthDelimited, out);
            encode_varint(body.len() as u64, out);
            out.extend_from_slice(&body);
            Ok(())
        }
        (Type::String, Value::String(s)) => {
            encode_key(tag, WireType::LengthDelimited, out);
            encode_varint(s.len() as u64, out);
            out.extend_from_slice(s.as_bytes());
            Ok(())
        }
        (Type::Bytes, Value::Bytes(b)) => {
            encode_key(tag, WireType::LengthDelimited, out);
            encode_varint(b.len() as u64, out);
            out.extend_from_slice(b);
            Ok(())
        }
        _ => match scalar_wire(ty, form) {
            Some(w) => {
                encode_key(tag, w, out);
                encode_scalar(ty, form, v, out)
            }
            None => Err(CodecError::Unsupported(format!("protobuf has no mapping for {}", ty.describe()))),
        },
    }
}

/// The wire type of a packable scalar type, `None` for the others.
fn scalar_wire(ty: &Type, form: Form) -> Option<WireType> {
    match ty {
        Type::Int { bits, .. } if form == Form::Fixed => {
            Some(if *bits <= 32 { WireType::ThirtyTwoBit } else { WireType::SixtyFourBit })
        }
        Type::Bool | Type::Int { .. } => Some(WireType::Varint),
        Type::Float { bits: 32 } => Some(WireType::ThirtyTwoBit),
        Type::Float { .. } => Some(WireType::SixtyFourBit),
        _ => None,
    }
}

fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

fn encode_scalar(ty: &Type, form: Form, v: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
    match ty {
        Type::Bool => encode_varint(matches!(v, Value::Bool(true)) as u64, out),
        Type::Int { bits, .. } if form == Form::Fixed => {
            let n = v.as_i128().unwrap_or(0);
            if *bits <= 32 {
                out.extend_from_slice(&(n as u32).to_le_bytes());
            } else {
                out.extend_from_slice(&(n as u64).to_le_bytes());
            }
        }
        Type::Int { signed: true, .. } if form == Form::Varint => {
            encode_varint(v.as_i128().unwrap_or(0) as i64 as u64, out)
        }
        Type::Int { signed: false, .. } => encode_varint(v.as_i128().unwrap_or(0) as u64, out),
        Type::Int { signed: true, .. } => encode_varint(zigzag(v.as_i128().unwrap_or(0) as i64), out),
        Type::Float { bits: 32 } => {
            let f = v.as_float().or_else(|| v.as_i128().map(|i| i as f64)).unwrap_or(0.0);
            out.extend_from_slice(&(f as f32).to_le_bytes());
        }
        Type::Float { .. } => {
            let f = v.as_float().or_else(|| v.as_i128().map(|i| i as f64)).unwrap_or(0.0);
            out.extend_from_slice(&f.to_le_bytes());
        }
        other => return Err(CodecError::Unsupported(format!("{} is not a protobuf scalar", other.describe()))),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Decoding

fn derr(msg: impl Into<String>, total: usize, rest: &[u8]) -> CodecError {
    CodecError::decode(msg, Some(total - rest.len()))
}

fn decode_message(fields: &[Field], buf: &mut &[u8], total: usize, depth: usize) -> Result<Value, CodecError> {
    if depth > max_depth() {
        return Err(derr(wirebench_core::value::too_deep(max_depth()), total, buf));
    }
    let mut slots: Vec<Option<Value>> = vec![None; fields.len()];
    let numbered = fields.iter().any(|f| f.proto.is_some());
    // Fields usually arrive in declaration order (a repeated one several times in a row): the
    // field after the last one found, and that one again, are tried before a search.
    let mut last = usize::MAX;
    while buf.has_remaining() {
        let at = *buf;
        let (tag, wire) = decode_key(buf).map_err(|e| derr(format!("invalid field key: {e}"), total, at))?;
        let found = if numbered {
            let is = |i: usize| i < fields.len() && number(&fields[i], i) == tag;
            let next = last.wrapping_add(1);
            if is(next) {
                Some(next)
            } else if is(last) {
                Some(last)
            } else {
                fields.iter().enumerate().position(|(i, f)| number(f, i) == tag)
            }
        } else {
            Some((tag as usize).wrapping_sub(1)).filter(|&i| i < fields.len())
        };
        if let Some(i) = found {
            last = i;
        }
        let Some((idx, f)) = found.map(|i| (i, &fields[i])) else {
            prost::encoding::skip_field(wire, tag, buf, prost::encoding::DecodeContext::default())
                .map_err(|e| derr(format!("cannot skip unknown field {tag}: {e}"), total, at))?;
            continue;
        };
        decode_field(&f.ty, Form::of(f), wire, &mut slots[idx], buf, total, depth, at)?;
    }
    let mut pairs = Vec::with_capacity(fields.len());
    for (f, slot) in fields.iter().zip(slots) {
        match slot {
            Some(v) => pairs.push((f.name.clone(), v)),
            None if f.optional => {}
            None => {
                if let Some(d) = default_of(&f.ty) {
                    pairs.push((f.name.clone(), d));
                }
            }
        }
    }
    Ok(Value::Map(pairs))
}

fn default_of(ty: &Type) -> Option<Value> {
    Some(match ty {
        Type::Bool => Value::Bool(false),
        Type::Int { signed: true, .. } => Value::Int(0),
        Type::Int { signed: false, .. } => Value::UInt(0),
        Type::Float { bits: 32 } => Value::F32(0.0),
        Type::Float { .. } => Value::F64(0.0),
        Type::String => Value::String(String::new()),
        Type::Bytes => Value::Bytes(Vec::new()),
        Type::Array { .. } => Value::Array(Vec::new()),
        _ => return None,
    })
}

fn take_len<'b>(buf: &mut &'b [u8], total: usize, at: &[u8]) -> Result<&'b [u8], CodecError> {
    let len = decode_varint(buf).map_err(|e| derr(format!("invalid length: {e}"), total, at))?;
    if len > buf.len() as u64 {
        return Err(derr(format!("length {len} runs past the end of the input"), total, at));
    }
    let (body, rest) = buf.split_at(len as usize);
    *buf = rest;
    Ok(body)
}

#[allow(clippy::too_many_arguments)]
fn decode_field(
    ty: &Type,
    form: Form,
    wire: WireType,
    slot: &mut Option<Value>,
    buf: &mut &[u8],
    total: usize,
    depth: usize,
    at: &[u8],
) -> Result<(), CodecError> {
    let mismatch = || derr(format!("wire type {wire:?} does not match schema type {}", ty.describe()), total, at);
    match ty {
        Type::Array { items } => {
            let mut list = match slot.take() {
                Some(Value::Array(v)) => v,
                _ => Vec::new(),
            };
            let packable = scalar_wire(items, form);
            if wire == WireType::LengthDelimited && packable.is_some() {
                let mut body = take_len(buf, total, at)?;
                while !body.is_empty() {
                    let here = total - buf.len() - body.len();
                    let v = decode_scalar(items, form, &mut body).map_err(|m| CodecError::decode(m, Some(here)))?;
                    list.push(v);
                }
            } else {
                let mut one = None;
                decode_field(items, form, wire, &mut one, buf, total, depth, at)?;
                list.extend(one);
            }
            *slot = Some(Value::Array(list));
        }
        Type::Record { fields, .. } => {
            if wire != WireType::LengthDelimited {
                return Err(mismatch());
            }
            let body = take_len(buf, total, at)?;
            let consumed_before = total - buf.len() - body.len();
            let mut b = body;
            // Offsets inside the nested message are reported relative to the whole input.
            let v = decode_message(fields, &mut b, consumed_before + body.len(), depth + 1)?;
            *slot = Some(v);
        }
        Type::String | Type::Bytes => {
            if wire != WireType::LengthDelimited {
                return Err(mismatch());
            }
            let body = take_len(buf, total, at)?;
            *slot = Some(if matches!(ty, Type::String) {
                Value::String(
                    std::str::from_utf8(body)
                        .map_err(|_| derr("string field is not valid UTF-8", total, at))?
                        .to_owned(),
                )
            } else {
                Value::Bytes(body.to_vec())
            });
        }
        _ => {
            if scalar_wire(ty, form) != Some(wire) {
                return Err(mismatch());
            }
            *slot = Some(decode_scalar(ty, form, buf).map_err(|m| derr(m, total, at))?);
        }
    }
    Ok(())
}

fn decode_scalar(ty: &Type, form: Form, buf: &mut &[u8]) -> Result<Value, String> {
    let fixed = |buf: &mut &[u8], n: usize| -> Result<u64, String> {
        if buf.len() < n {
            return Err(format!("truncated {}-byte value", n));
        }
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&buf[..n]);
        *buf = &buf[n..];
        Ok(u64::from_le_bytes(b))
    };
    Ok(match ty {
        Type::Bool => Value::Bool(decode_varint(buf).map_err(|e| e.to_string())? != 0),
        Type::Int { bits, signed } => {
            let width = if *bits <= 32 { 4 } else { 8 };
            let raw =
                if form == Form::Fixed { fixed(buf, width)? } else { decode_varint(buf).map_err(|e| e.to_string())? };
            let (lo, hi) = wirebench_core::schema::int_range(*bits, *signed);
            let n: i128 = match (form, signed) {
                (_, false) => raw as i128,
                (Form::Fixed, true) if width == 4 => raw as u32 as i32 as i128,
                (Form::Fixed | Form::Varint, true) => raw as i64 as i128,
                (_, true) => ((raw >> 1) as i64 ^ -((raw & 1) as i64)) as i128,
            };
            if n < lo || n > hi {
                return Err(format!("integer {n} out of range for {}", ty.describe()));
            }
            if *signed {
                Value::Int(n as i64)
            } else {
                Value::UInt(n as u64)
            }
        }
        Type::Float { bits: 32 } => Value::F32(f32::from_bits(fixed(buf, 4)? as u32)),
        Type::Float { .. } => Value::F64(f64::from_bits(fixed(buf, 8)?)),
        other => return Err(format!("{} is not a protobuf scalar", other.describe())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_bytes_by_hand() {
        // {"neg":-2} with neg: sint32 → key (1<<3|0)=08, zigzag(-2)=3.
        let v = Value::from_json_str(r#"{"neg":-2}"#).unwrap();
        let schema = Schema::infer([&v]);
        let mut out = Vec::new();
        Protobuf.encode(&v, Some(&schema), &mut out).unwrap();
        assert_eq!(out, [0x08, 0x03]);
        // Test01: 0a 03 "gps" | 10 f8e5cc8405 | 1a 10 <48.75 LE f64> <2.3 LE f64> = 29 bytes.
        let v = Value::from_json_str(r#"{"sensor":"gps","time":1351824120,"data":[48.75,2.3]}"#).unwrap();
        let schema = Schema::infer([&v]);
        out.clear();
        Protobuf.encode(&v, Some(&schema), &mut out).unwrap();
        assert_eq!(out.len(), 29);
        assert_eq!(&out[..5], &[0x0a, 0x03, b'g', b'p', b's']);
        assert_eq!(out[11], 0x1a);
    }

    #[test]
    fn optional_nested_and_errors() {
        let a = Value::from_json_str(r#"{"id":0,"pos":{"lat":1.5},"tags":["a","b"],"n":null}"#).unwrap();
        let b = Value::from_json_str(r#"{"id":7,"pos":{"lat":-2.5},"tags":[],"n":3}"#).unwrap();
        let schema = Schema::infer([&a, &b]);
        for v in [&a, &b] {
            let mut out = Vec::new();
            Protobuf.encode(v, Some(&schema), &mut out).unwrap();
            let back = Protobuf.decode(&out, Some(&schema)).unwrap();
            let losses = wirebench_core::fidelity::compare(v, &back);
            // `n: null` reads back absent: that is the one documented loss.
            assert!(losses.iter().all(|l| l.contains("$.n")), "{losses:?}");
            for cut in 0..out.len() {
                let _ = Protobuf.decode(&out[..cut], Some(&schema));
            }
        }
        let e = Protobuf.decode(&[0x0a, 0x05, b'a'], Some(&schema)).unwrap_err().to_string();
        assert!(e.contains("at byte 0"), "{e}");
        assert!(matches!(Protobuf.encode(&a, None, &mut Vec::new()), Err(CodecError::SchemaRequired(_))));
    }
}
