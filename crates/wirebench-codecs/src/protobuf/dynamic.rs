//! Protobuf through a .proto file's descriptor: `prost-reflect` dynamic messages.
//!
//! Values are read with the canonical proto3 JSON mapping (`DeserializeOptions`): field names
//! as written in the .proto or in lowerCamelCase, 64-bit integers as numbers or strings, enums
//! by name or number, well-known types in their JSON form (`Timestamp` as RFC 3339), a oneof
//! with two members set refused, a field the message does not have refused. Decoding prints
//! the mapping's form with the .proto's field names, defaults left out, enums by name and
//! 64-bit integers as numbers (wirebench values hold them exactly); float fields read back as
//! float32.
//!
//! Messages are written by [`write`], which walks the dynamic message as protoc's serializer
//! does (prost-reflect's own encoder leaves out two things protoc writes: a `-0.0` in a field
//! with implicit presence, and a map entry's key or value when it is the default). Map entries
//! are written in key order, as protoc's deterministic serialization writes them.

use std::sync::{Arc, Mutex};

use prost::encoding::{encode_key, encode_varint, WireType};
use prost_reflect::{
    DescriptorPool, DeserializeOptions, DynamicMessage, FieldDescriptor, Kind, MapKey, MessageDescriptor,
    ReflectMessage, SerializeOptions, Value as PValue,
};
use serde::ser::{self, Serialize};
use wirebench_core::{ProtoDescriptor, Schema, Value};

use crate::CodecError;

/// Descriptors already decoded, by their descriptor set (a schema's clones share it).
static POOLS: Mutex<Vec<(Arc<Vec<u8>>, DescriptorPool)>> = Mutex::new(Vec::new());

/// The root message descriptor of a schema read from a .proto file.
pub fn descriptor(d: &ProtoDescriptor) -> Result<MessageDescriptor, CodecError> {
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    let found = pools.iter().find(|(k, _)| Arc::ptr_eq(k, &d.file_descriptor_set) || **k == *d.file_descriptor_set);
    let pool = match found {
        Some((_, p)) => p.clone(),
        None => {
            let pool = DescriptorPool::decode(d.file_descriptor_set.as_slice())
                .map_err(|e| CodecError::Unsupported(format!("invalid descriptor set: {e}")))?;
            if pools.len() >= 16 {
                pools.remove(0);
            }
            pools.push((d.file_descriptor_set.clone(), pool.clone()));
            pool
        }
    };
    pool.get_message_by_name(&d.message)
        .ok_or_else(|| CodecError::Unsupported(format!("message {} is not in the descriptor set", d.message)))
}

/// The root message descriptor of `schema`, when it was read from a .proto file.
pub fn of_schema(schema: &Schema) -> Result<Option<MessageDescriptor>, CodecError> {
    schema.proto.as_ref().map(descriptor).transpose()
}

/// How the JSON mapping reads values: unknown fields refused unless `ignore_unknown`.
fn read_options(ignore_unknown: bool) -> DeserializeOptions {
    DeserializeOptions::new().deny_unknown_fields(!ignore_unknown)
}

/// Append the message `value` (the JSON mapping's form) to `out`.
pub fn encode(value: &Value, desc: &MessageDescriptor, out: &mut Vec<u8>) -> Result<(), CodecError> {
    let msg = DynamicMessage::deserialize_with_options(desc.clone(), to_serde(value), &read_options(false))
        .map_err(|e| CodecError::Unsupported(format!("value does not fit message {}: {e}", desc.full_name())))?;
    write(&msg, out);
    Ok(())
}

/// Encode JSON text (the proto3 JSON mapping) as a message; errors name the line and column.
pub fn encode_json_text(text: &str, desc: &MessageDescriptor, ignore_unknown: bool) -> Result<Vec<u8>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut de = serde_json::Deserializer::from_str(text);
    let msg = DynamicMessage::deserialize_with_options(desc.clone(), &mut de, &read_options(ignore_unknown))
        .and_then(|m| de.end().map(|_| m))
        .map_err(|e| {
            let m = e.to_string();
            let m = m.split(" at line ").next().unwrap_or(&m).to_string();
            format!("{}:{}: {m} (message {})", e.line(), e.column(), desc.full_name())
        })?;
    let mut out = Vec::new();
    write(&msg, &mut out);
    Ok(out)
}

/// Decode a message of `desc` from all of `bytes` into its JSON mapping's form.
pub fn decode(bytes: &[u8], desc: &MessageDescriptor) -> Result<Value, CodecError> {
    let msg = DynamicMessage::decode(desc.clone(), bytes)
        .map_err(|e| CodecError::decode(format!("invalid protobuf: {e}"), None))?;
    let mut v = msg.serialize_with_options(ValueSer, &write_options()).map_err(|e| CodecError::decode(e.0, None))?;
    negative_zeros(&msg, &mut v);
    Ok(v)
}

/// Put back the `-0.0` of implicit-presence fields that prost-reflect's printer leaves out
/// (it compares with `==`; protoc's printer, like its serializer, looks at the bits).
fn negative_zeros(msg: &DynamicMessage, v: &mut Value) {
    let Value::Map(pairs) = v else { return };
    let desc = msg.descriptor();
    if desc.full_name().starts_with("google.protobuf.") {
        return; // well-known types print in their own JSON forms
    }
    for f in desc.fields() {
        let fv = msg.get_field(&f);
        let missing = match &*fv {
            PValue::F64(x) if !f.supports_presence() && x.to_bits() == 1 << 63 => Some(Value::F64(*x)),
            PValue::F32(x) if !f.supports_presence() && x.to_bits() == 1 << 31 => Some(Value::F32(*x)),
            _ => None,
        };
        if let Some(z) = missing {
            // In field-number order, as the printer writes the others.
            let at = pairs
                .iter()
                .position(|(k, _)| desc.get_field_by_name(k).is_some_and(|g| g.number() > f.number()))
                .unwrap_or(pairs.len());
            pairs.insert(at, (f.name().to_string(), z));
            continue;
        }
        let Some((_, sub)) = pairs.iter_mut().find(|(k, _)| k == f.name()) else { continue };
        match (&*fv, sub) {
            (PValue::Message(m), sub) => negative_zeros(m, sub),
            (PValue::List(items), Value::Array(subs)) => {
                for (it, sub) in items.iter().zip(subs) {
                    if let PValue::Message(m) = it {
                        negative_zeros(m, sub);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Decode a message of `desc` from all of `bytes` as JSON text in the mapping (the form of
/// [`decode`], float fields printed with their shortest float32 digits).
pub fn decode_json_text(bytes: &[u8], desc: &MessageDescriptor) -> Result<String, String> {
    let v = decode(bytes, desc).map_err(|e| e.to_string())?;
    serde_json::to_string(&Plain(&v)).map_err(|e| e.to_string())
}

/// A decoded value as plain JSON: float32 values with their shortest float32 digits.
struct Plain<'a>(&'a Value);

impl Serialize for Plain<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::{SerializeMap, SerializeSeq};
        match self.0 {
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for it in items {
                    seq.serialize_element(&Plain(it))?;
                }
                seq.end()
            }
            Value::Map(pairs) => {
                let mut map = s.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, &Plain(v))?;
                }
                map.end()
            }
            other => other.serialize(s),
        }
    }
}

/// How decoding prints: the .proto's names, defaults left out, enums by name, 64-bit integers
/// as numbers.
fn write_options() -> SerializeOptions {
    SerializeOptions::new().stringify_64_bit_integers(false).use_proto_field_name(true)
}

/// A codec bound to a message descriptor (see [`crate::Codec::prepare`]).
pub(crate) struct Bound(pub(crate) MessageDescriptor);

impl crate::Prepared for Bound {
    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        encode(value, &self.0, out)
    }
    fn decode(&self, bytes: &[u8]) -> Result<Value, CodecError> {
        decode(bytes, &self.0)
    }
}

// ---------------------------------------------------------------------------------------------
// protoc's serializer

/// Append `msg` as protoc writes it: fields in number order; implicit presence leaves out the
/// values whose bits are zero (so `-0.0` is written); repeated scalars packed where the field
/// is; map entries with their key and value always, in key order; unknown fields last.
pub fn write(msg: &DynamicMessage, out: &mut Vec<u8>) {
    let desc = msg.descriptor();
    let mut fields: Vec<FieldDescriptor> = desc.fields().collect();
    fields.sort_by_key(FieldDescriptor::number);
    for f in &fields {
        let n = f.number();
        let v = msg.get_field(f);
        match &*v {
            PValue::Map(map) if f.is_map() => {
                let Kind::Message(entry) = f.kind() else { continue };
                let (kk, vk) = (entry.map_entry_key_field().kind(), entry.map_entry_value_field().kind());
                let mut entries: Vec<(&MapKey, &PValue)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                for (k, val) in entries {
                    let mut body = Vec::new();
                    write_field(&kk, 1, &key_value(k), false, &mut body);
                    write_field(&vk, 2, val, false, &mut body);
                    delimited(n, &body, out);
                }
            }
            PValue::List(items) => {
                if items.is_empty() {
                    continue;
                }
                let kind = f.kind();
                if f.is_packed() {
                    let mut body = Vec::new();
                    for it in items {
                        write_raw(&kind, it, &mut body);
                    }
                    delimited(n, &body, out);
                } else {
                    for it in items {
                        write_field(&kind, n, it, f.is_group(), out);
                    }
                }
            }
            v => {
                let present = if f.supports_presence() { msg.has_field(f) } else { !zero_bits(v) };
                if present {
                    write_field(&f.kind(), n, v, f.is_group(), out);
                }
            }
        }
    }
    for u in msg.unknown_fields() {
        u.encode(out);
    }
}

/// Whether an implicit-presence value is the default protoc leaves out (bits all zero).
fn zero_bits(v: &PValue) -> bool {
    match v {
        PValue::Bool(b) => !b,
        PValue::I32(x) | PValue::EnumNumber(x) => *x == 0,
        PValue::I64(x) => *x == 0,
        PValue::U32(x) => *x == 0,
        PValue::U64(x) => *x == 0,
        PValue::F32(x) => x.to_bits() == 0,
        PValue::F64(x) => x.to_bits() == 0,
        PValue::String(s) => s.is_empty(),
        PValue::Bytes(b) => b.is_empty(),
        _ => false,
    }
}

fn key_value(k: &MapKey) -> PValue {
    match k {
        MapKey::Bool(b) => PValue::Bool(*b),
        MapKey::I32(x) => PValue::I32(*x),
        MapKey::I64(x) => PValue::I64(*x),
        MapKey::U32(x) => PValue::U32(*x),
        MapKey::U64(x) => PValue::U64(*x),
        MapKey::String(s) => PValue::String(s.clone()),
    }
}

fn delimited(n: u32, body: &[u8], out: &mut Vec<u8>) {
    encode_key(n, WireType::LengthDelimited, out);
    encode_varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// One field: key and value (a message length-delimited, or as a group).
fn write_field(kind: &Kind, n: u32, v: &PValue, group: bool, out: &mut Vec<u8>) {
    match (kind, v) {
        (Kind::Message(_), PValue::Message(m)) if group => {
            encode_key(n, WireType::StartGroup, out);
            write(m, out);
            encode_key(n, WireType::EndGroup, out);
        }
        (Kind::Message(_), PValue::Message(m)) => {
            let mut body = Vec::new();
            write(m, &mut body);
            delimited(n, &body, out);
        }
        _ => {
            let wire = match kind {
                Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => WireType::SixtyFourBit,
                Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => WireType::ThirtyTwoBit,
                Kind::String | Kind::Bytes | Kind::Message(_) => WireType::LengthDelimited,
                _ => WireType::Varint,
            };
            encode_key(n, wire, out);
            write_raw(kind, v, out);
        }
    }
}

/// A scalar's value without its key.
fn write_raw(kind: &Kind, v: &PValue, out: &mut Vec<u8>) {
    match (kind, v) {
        (Kind::Double, PValue::F64(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Kind::Float, PValue::F32(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Kind::Int32, PValue::I32(x)) | (Kind::Enum(_), PValue::EnumNumber(x)) => encode_varint(*x as i64 as u64, out),
        (Kind::Int64, PValue::I64(x)) => encode_varint(*x as u64, out),
        (Kind::Uint32, PValue::U32(x)) => encode_varint(*x as u64, out),
        (Kind::Uint64, PValue::U64(x)) => encode_varint(*x, out),
        (Kind::Sint32, PValue::I32(x)) => encode_varint(((x << 1) ^ (x >> 31)) as u32 as u64, out),
        (Kind::Sint64, PValue::I64(x)) => encode_varint(((x << 1) ^ (x >> 63)) as u64, out),
        (Kind::Fixed32, PValue::U32(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Kind::Fixed64, PValue::U64(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Kind::Sfixed32, PValue::I32(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Kind::Sfixed64, PValue::I64(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Kind::Bool, PValue::Bool(b)) => encode_varint(*b as u64, out),
        (Kind::String, PValue::String(s)) => {
            encode_varint(s.len() as u64, out);
            out.extend_from_slice(s.as_bytes());
        }
        (Kind::Bytes, PValue::Bytes(b)) => {
            encode_varint(b.len() as u64, out);
            out.extend_from_slice(b);
        }
        (Kind::Message(_), PValue::Message(m)) => {
            let mut body = Vec::new();
            write(m, &mut body);
            encode_varint(body.len() as u64, out);
            out.extend_from_slice(&body);
        }
        // prost-reflect's reader gives every kind its one value variant.
        (kind, v) => unreachable!("value {v:?} for a field of kind {kind:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Value → the mapping's reader (bytes as base64, as the mapping writes them)

fn to_serde(v: &Value) -> serde_value::Value {
    use serde_value::Value as S;
    match v {
        Value::Null => S::Unit,
        Value::Bool(b) => S::Bool(*b),
        Value::Int(i) => S::I64(*i),
        Value::UInt(u) => S::U64(*u),
        Value::F32(f) => S::F32(*f),
        Value::F64(f) => S::F64(*f),
        Value::String(s) => S::String(s.clone()),
        Value::Bytes(b) => S::String(base64(b)),
        Value::Array(items) => S::Seq(items.iter().map(to_serde).collect()),
        Value::Map(pairs) => S::Map(pairs.iter().map(|(k, v)| (S::String(k.clone()), to_serde(v))).collect()),
    }
}

/// Standard base64 with padding (RFC 4648), the mapping's form of `bytes`.
fn base64(b: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4);
    for c in b.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            out.push(if i <= c.len() { A[(n >> shift & 63) as usize] as char } else { '=' });
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The mapping's writer → Value (keys in the order written: field number order)

#[derive(Debug)]
struct SerError(String);

impl std::fmt::Display for SerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SerError {}

impl ser::Error for SerError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        SerError(msg.to_string())
    }
}

/// Serializes into a [`Value`] (integers as JSON reading gives them: non-negative → UInt).
struct ValueSer;

struct SeqSer(Vec<Value>);

struct MapSer {
    pairs: Vec<(String, Value)>,
    key: Option<String>,
}

fn int(i: i64) -> Value {
    if i >= 0 {
        Value::UInt(i as u64)
    } else {
        Value::Int(i)
    }
}

impl ser::Serializer for ValueSer {
    type Ok = Value;
    type Error = SerError;
    type SerializeSeq = SeqSer;
    type SerializeTuple = SeqSer;
    type SerializeTupleStruct = SeqSer;
    type SerializeTupleVariant = SeqSer;
    type SerializeMap = MapSer;
    type SerializeStruct = MapSer;
    type SerializeStructVariant = MapSer;

    fn serialize_bool(self, v: bool) -> Result<Value, SerError> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, SerError> {
        Ok(int(v as i64))
    }
    fn serialize_i16(self, v: i16) -> Result<Value, SerError> {
        Ok(int(v as i64))
    }
    fn serialize_i32(self, v: i32) -> Result<Value, SerError> {
        Ok(int(v as i64))
    }
    fn serialize_i64(self, v: i64) -> Result<Value, SerError> {
        Ok(int(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Value, SerError> {
        Ok(Value::UInt(v as u64))
    }
    fn serialize_u16(self, v: u16) -> Result<Value, SerError> {
        Ok(Value::UInt(v as u64))
    }
    fn serialize_u32(self, v: u32) -> Result<Value, SerError> {
        Ok(Value::UInt(v as u64))
    }
    fn serialize_u64(self, v: u64) -> Result<Value, SerError> {
        Ok(Value::UInt(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Value, SerError> {
        Ok(Value::F32(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, SerError> {
        Ok(Value::F64(v))
    }
    fn serialize_char(self, v: char) -> Result<Value, SerError> {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Value, SerError> {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, SerError> {
        Ok(Value::Bytes(v.to_vec()))
    }
    fn serialize_none(self) -> Result<Value, SerError> {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Value, SerError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, SerError> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value, SerError> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<Value, SerError> {
        Ok(Value::String(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<Value, SerError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Value, SerError> {
        Ok(Value::Map(vec![(variant.to_string(), v.serialize(ValueSer)?)]))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer, SerError> {
        Ok(SeqSer(Vec::with_capacity(len.unwrap_or(0).min(4096))))
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSer, SerError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<SeqSer, SerError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, len: usize) -> Result<SeqSer, SerError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapSer, SerError> {
        Ok(MapSer { pairs: Vec::with_capacity(len.unwrap_or(0).min(4096)), key: None })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<MapSer, SerError> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        len: usize,
    ) -> Result<MapSer, SerError> {
        self.serialize_map(Some(len))
    }
}

impl ser::SerializeSeq for SeqSer {
    type Ok = Value;
    type Error = SerError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), SerError> {
        self.0.push(v.serialize(ValueSer)?);
        Ok(())
    }
    fn end(self) -> Result<Value, SerError> {
        Ok(Value::Array(self.0))
    }
}

impl ser::SerializeTuple for SeqSer {
    type Ok = Value;
    type Error = SerError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), SerError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Value, SerError> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for SeqSer {
    type Ok = Value;
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), SerError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Value, SerError> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleVariant for SeqSer {
    type Ok = Value;
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), SerError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Value, SerError> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeMap for MapSer {
    type Ok = Value;
    type Error = SerError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), SerError> {
        self.key = Some(match k.serialize(ValueSer)? {
            Value::String(s) => s,
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::UInt(u) => u.to_string(),
            other => return Err(SerError(format!("a map key cannot be {}", other.kind()))),
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), SerError> {
        let key = self.key.take().ok_or_else(|| SerError("a map value without its key".into()))?;
        self.pairs.push((key, v.serialize(ValueSer)?));
        Ok(())
    }
    fn end(self) -> Result<Value, SerError> {
        Ok(Value::Map(self.pairs))
    }
}

impl ser::SerializeStruct for MapSer {
    type Ok = Value;
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), SerError> {
        self.pairs.push((key.to_string(), v.serialize(ValueSer)?));
        Ok(())
    }
    fn end(self) -> Result<Value, SerError> {
        Ok(Value::Map(self.pairs))
    }
}

impl ser::SerializeStructVariant for MapSer {
    type Ok = Value;
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), SerError> {
        ser::SerializeStruct::serialize_field(self, key, v)
    }
    fn end(self) -> Result<Value, SerError> {
        Ok(Value::Map(self.pairs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648() {
        // RFC 4648 section 10 test vectors.
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, enc) in cases {
            assert_eq!(base64(plain.as_bytes()), enc);
        }
    }
}
