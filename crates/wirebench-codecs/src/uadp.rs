//! OPC UA PubSub NetworkMessages on our own `uadp` crate (OPC 10000-14; see `crates/uadp`):
//! `uadp` (UADP binary), `uadp-json` (the JSON mapping, untyped form — the shape the seed
//! thesis published) and `uadp-json-rev` (the JSON mapping, typed 1.05 form with `UaType`).
//!
//! A record becomes one NetworkMessage with one key-frame DataSetMessage whose fields are
//! the record's leaf fields in schema order, each a Variant of the type the schema gives
//! (integers by width and sign, float32/float64, bool, string, bytes, one-dimensional
//! arrays of those). Nested records are flattened in schema order (JSON names are dotted
//! paths, `gps.lat`) and rebuilt on decoding. Header options are the smallest UADP allows:
//! UADPFlags 0x01 only (no PublisherId, no PayloadHeader, no ExtendedFlags), DataSetFlags1
//! 0x01 (valid, Variant), FieldCount — 4 bytes + the fields.
//!
//! UADP carries no field names: decoding takes them (and the Value types) from the schema.

use uadp::json::{from_json, to_json, JsonDecodeOptions, JsonForm, JsonOptions};
use uadp::{
    BuiltInType, DataSetMessage, DataSetMetaData, DecodeOptions, Field, FieldMetaData, NetworkMessage, Payload, Scalar,
    Variant,
};
use wirebench_core::value::max_depth;
use wirebench_core::{Field as SchemaField, Schema, Type, Value};

use crate::{need_schema, root_record, Codec, CodecError, CodecInfo, SchemaUse};

pub struct Uadp;
pub struct UadpJson;
pub struct UadpJsonRev;

const COMMON_NOTES: [&str; 5] = [
    "the root must be a record; each leaf field is one Variant of a DataSetMessage key frame, in schema order \
     (names come from the schema: UADP carries none)",
    "nested records are flattened in schema order and rebuilt on decoding (JSON field names are dotted paths)",
    "arrays of records, arrays of arrays and 'any' types are unsupported",
    "an explicit null in an optional field reads back as an absent field (a null Variant on the wire); \
     an absent optional nested record reads back as absent",
    "smallest header options: no PublisherId, no PayloadHeader, no DataSetClassId, no timestamps",
];

static UADP_INFO: CodecInfo = CodecInfo {
    id: "uadp",
    format: "OPC UA PubSub UADP NetworkMessage (OPC 10000-14 §7.2.4)",
    library: "wirebench",
    schema: SchemaUse::Required,
    media_type: "application/opcua+uadp",
    fidelity_notes: &[
        COMMON_NOTES[0],
        COMMON_NOTES[1],
        COMMON_NOTES[2],
        COMMON_NOTES[3],
        COMMON_NOTES[4],
        "integers and floats keep the width and sign the schema gives (int8…uint64 → SByte…UInt64, \
         float32 → Float, float64 → Double)",
    ],
};

static UADP_JSON_INFO: CodecInfo = CodecInfo {
    id: "uadp-json",
    format: "OPC UA PubSub JSON NetworkMessage, untyped field values (OPC 10000-14 §7.2.5; the seed thesis's form)",
    library: "wirebench",
    schema: SchemaUse::Required,
    media_type: "application/json",
    fidelity_notes: &[
        COMMON_NOTES[0],
        COMMON_NOTES[1],
        COMMON_NOTES[2],
        COMMON_NOTES[3],
        COMMON_NOTES[4],
        "field values are bare JSON values (no UaType): decoding takes the types from the schema",
        "64-bit integers are JSON strings, bytes are base64, NaN/Infinity are strings (Part 6 §5.4.2)",
        "header: {\"MessageId\":\"1\",\"MessageType\":\"ua-data\",\"Messages\":[{\"Payload\":{…}}]}",
    ],
};

static UADP_JSON_REV_INFO: CodecInfo = CodecInfo {
    id: "uadp-json-rev",
    format:
        "OPC UA PubSub JSON NetworkMessage, typed field values {\"UaType\":n,\"Value\":v} (OPC 10000-14 §7.2.5, v1.05)",
    library: "wirebench",
    schema: SchemaUse::Required,
    media_type: "application/json",
    fidelity_notes: &[
        COMMON_NOTES[0],
        COMMON_NOTES[1],
        COMMON_NOTES[2],
        COMMON_NOTES[3],
        COMMON_NOTES[4],
        "field values carry their built-in type (UaType), as open62541 v1.5 writes them",
        "64-bit integers are JSON strings, bytes are base64, NaN/Infinity are strings (Part 6 §5.4.2)",
    ],
};

/// The MessageId of every JSON message (Part 14 wants a unique string; a benchmark uses one).
const MESSAGE_ID: &str = "1";

/// One leaf of the flattened record: its path, type and built-in type, computed once per
/// schema (a prepared codec keeps them).
struct Leaf {
    path: Vec<String>,
    /// The dotted path (the JSON field name; error messages).
    name: String,
    ty: Type,
    /// The Variant's built-in type and whether it is an array (`None`: the null type).
    built: Option<(BuiltInType, bool)>,
    /// This leaf or a record above it is optional.
    optional: bool,
    /// Index of the outermost optional record above it (None when not inside one).
    optional_record: Option<usize>,
    /// What an absent leaf is sent as under implicit presence (a proto3 field: its default).
    implicit: Option<Value>,
}

/// Flatten the root record's fields (nested records depth-first, schema order).
fn leaves(fields: &[SchemaField]) -> Result<Vec<Leaf>, CodecError> {
    fn walk<'s>(
        fields: &'s [SchemaField],
        prefix: &mut Vec<&'s str>,
        optional: bool,
        opt_rec: Option<usize>,
        depth: usize,
        out: &mut Vec<Leaf>,
    ) -> Result<(), CodecError> {
        if depth > max_depth() {
            return Err(CodecError::Unsupported(format!("records nested deeper than {}", max_depth())));
        }
        for f in fields {
            prefix.push(&f.name);
            match &f.ty {
                Type::Record { fields: inner, .. } => {
                    let rec = if opt_rec.is_none() && f.optional { Some(out.len()) } else { opt_rec };
                    walk(inner, prefix, optional || f.optional, rec, depth + 1, out)?;
                }
                ty => {
                    let name = prefix.join(".");
                    let built = built_in(ty, &name)?;
                    out.push(Leaf {
                        path: prefix.iter().map(|p| (*p).to_string()).collect(),
                        name,
                        ty: ty.clone(),
                        built,
                        optional: optional || f.optional,
                        optional_record: opt_rec,
                        // Inside an optional record a leaf may be null anyway (absent record).
                        implicit: if optional || f.optional { None } else { f.implicit_default() },
                    });
                }
            }
            prefix.pop();
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(fields, &mut Vec::new(), false, None, 0, &mut out)?;
    Ok(out)
}

/// The built-in type of a scalar schema type (and whether it is an array). `None` for
/// the null type (always a null Variant).
fn built_in(ty: &Type, path: &str) -> Result<Option<(BuiltInType, bool)>, CodecError> {
    let scalar = |t: &Type| -> Option<BuiltInType> {
        Some(match t {
            Type::Bool => BuiltInType::Boolean,
            Type::Int { bits: 8, signed: true } => BuiltInType::SByte,
            Type::Int { bits: 8, signed: false } => BuiltInType::Byte,
            Type::Int { bits: 16, signed: true } => BuiltInType::Int16,
            Type::Int { bits: 16, signed: false } => BuiltInType::UInt16,
            Type::Int { bits: 32, signed: true } => BuiltInType::Int32,
            Type::Int { bits: 32, signed: false } => BuiltInType::UInt32,
            Type::Int { signed: true, .. } => BuiltInType::Int64,
            Type::Int { signed: false, .. } => BuiltInType::UInt64,
            Type::Float { bits: 32 } => BuiltInType::Float,
            Type::Float { .. } => BuiltInType::Double,
            Type::String => BuiltInType::String,
            Type::Bytes => BuiltInType::ByteString,
            _ => return None,
        })
    };
    match ty {
        Type::Null => Ok(None),
        Type::Array { items } => match scalar(items) {
            Some(t) => Ok(Some((t, true))),
            // An array only ever seen empty or null: an array of Double.
            None if **items == Type::Null => Ok(Some((BuiltInType::Double, true))),
            None => Err(CodecError::Unsupported(format!(
                "UADP fields are scalars or arrays of scalars; {path} is {}",
                ty.describe()
            ))),
        },
        t => match scalar(t) {
            Some(b) => Ok(Some((b, false))),
            None => Err(CodecError::Unsupported(format!("UADP cannot carry {path} of type {}", ty.describe()))),
        },
    }
}

/// Each leaf's value in a record: the root's fields through a Lookup (linear when the keys
/// come in schema order), nested records (a few fields each) by search; null where absent.
struct LeafValues<'v> {
    value: &'v Value,
    root: Option<wirebench_core::value::Lookup<'v, (String, Value)>>,
}

impl<'v> LeafValues<'v> {
    fn new(value: &'v Value) -> LeafValues<'v> {
        let root = match value {
            Value::Map(pairs) => Some(wirebench_core::value::pairs_lookup(pairs)),
            _ => None,
        };
        LeafValues { value, root }
    }

    /// The leaf's value (null when absent; see [`Leaf::implicit`] for what absent means).
    fn get(&mut self, leaf: &Leaf) -> &'v Value {
        match (&leaf.path[..], self.root.as_mut()) {
            ([k], Some(root)) => root.get(k).map_or(&Value::Null, |(_, v)| v),
            _ => lookup(self.value, &leaf.path).unwrap_or(&Value::Null),
        }
    }
}

fn lookup<'v, S: AsRef<str>>(root: &'v Value, path: &[S]) -> Option<&'v Value> {
    let mut v = root;
    for k in path {
        match v {
            Value::Map(pairs) => v = &pairs.iter().find(|(name, _)| name == k.as_ref())?.1,
            _ => return None,
        }
    }
    Some(v)
}

fn scalar_of(t: BuiltInType, v: &Value, path: &str) -> Result<Scalar, CodecError> {
    let int = v.as_i128();
    let bad = || CodecError::Unsupported(format!("{path}: {} does not fit {}", v.kind(), t.name()));
    let fit = |lo: i128, hi: i128| int.filter(|i| (lo..=hi).contains(i)).ok_or_else(bad);
    Ok(match t {
        BuiltInType::Boolean => match v {
            Value::Bool(b) => Scalar::Boolean(*b),
            _ => return Err(bad()),
        },
        BuiltInType::SByte => Scalar::SByte(fit(i8::MIN as i128, i8::MAX as i128)? as i8),
        BuiltInType::Byte => Scalar::Byte(fit(0, u8::MAX as i128)? as u8),
        BuiltInType::Int16 => Scalar::Int16(fit(i16::MIN as i128, i16::MAX as i128)? as i16),
        BuiltInType::UInt16 => Scalar::UInt16(fit(0, u16::MAX as i128)? as u16),
        BuiltInType::Int32 => Scalar::Int32(fit(i32::MIN as i128, i32::MAX as i128)? as i32),
        BuiltInType::UInt32 => Scalar::UInt32(fit(0, u32::MAX as i128)? as u32),
        BuiltInType::Int64 => Scalar::Int64(fit(i64::MIN as i128, i64::MAX as i128)? as i64),
        BuiltInType::UInt64 => Scalar::UInt64(fit(0, u64::MAX as i128)? as u64),
        BuiltInType::Float => Scalar::Float(match v {
            Value::F32(f) => *f,
            Value::F64(f) => *f as f32,
            _ => int.ok_or_else(bad)? as f32,
        }),
        BuiltInType::Double => Scalar::Double(match v {
            Value::F32(f) => *f as f64,
            Value::F64(f) => *f,
            _ => int.ok_or_else(bad)? as f64,
        }),
        BuiltInType::String => match v {
            Value::String(s) => Scalar::String(Some(s.clone())),
            _ => return Err(bad()),
        },
        BuiltInType::ByteString => match v {
            Value::Bytes(b) => Scalar::ByteString(Some(b.clone())),
            _ => return Err(bad()),
        },
        _ => return Err(bad()),
    })
}

/// UADP bound to a schema: the leaves computed once; encoding writes straight into the
/// caller's buffer without building a NetworkMessage (no allocation).
struct PreparedUadp {
    schema: Option<Schema>,
    layout: Layout,
}

impl crate::Prepared for PreparedUadp {
    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let start = out.len();
        if encode_flat(value, &self.layout.leaves, out) {
            return Ok(());
        }
        out.truncate(start);
        if let Some(s) = &self.schema {
            s.check(value)?;
        }
        encode_direct(value, &self.layout.leaves, out)
    }
    fn decode(&self, bytes: &[u8]) -> Result<Value, CodecError> {
        binary_decode(bytes, &self.layout)
    }
}

/// The record as one UADP NetworkMessage written straight into `out`, the same bytes as
/// `uadp::encode(&to_message(value, leaves))`: UADPFlags 0x01 (version 1), DataSetFlags1 0x01
/// (valid, Variant fields), the field count, then each leaf as a Variant (type byte, 0x80 for
/// arrays with an Int32 length, little-endian values, strings and bytes length-prefixed).
fn encode_direct(value: &Value, leaves: &[Leaf], out: &mut Vec<u8>) -> Result<(), CodecError> {
    let start = out.len();
    let r = encode_direct_inner(value, leaves, out);
    if r.is_err() {
        out.truncate(start);
    }
    r
}

fn encode_direct_inner(value: &Value, leaves: &[Leaf], out: &mut Vec<u8>) -> Result<(), CodecError> {
    out.extend_from_slice(&[0x01, 0x01]);
    out.extend_from_slice(&(leaves.len() as u16).to_le_bytes());
    let mut values = LeafValues::new(value);
    for leaf in leaves {
        let v = match (values.get(leaf), &leaf.implicit) {
            (Value::Null, Some(d)) => d,
            (v, _) => v,
        };
        write_leaf(leaf, v, out)?;
    }
    Ok(())
}

/// The common case without the schema check: a flat record (no nested records) whose pairs
/// are exactly the schema's fields in schema order, no required one null. Then the schema
/// check cannot fail (writing checks every value's type and range), so the bytes are those of
/// the checked path. Anything else returns false (`out` possibly half written) and the
/// caller truncates and takes the checked path, which gives the same bytes or the same error.
fn encode_flat(value: &Value, leaves: &[Leaf], out: &mut Vec<u8>) -> bool {
    let Value::Map(pairs) = value else { return false };
    if pairs.len() != leaves.len() {
        return false;
    }
    out.extend_from_slice(&[0x01, 0x01]);
    out.extend_from_slice(&(leaves.len() as u16).to_le_bytes());
    for (leaf, (k, v)) in leaves.iter().zip(pairs) {
        if leaf.path.len() != 1 || leaf.path[0] != *k || (matches!(v, Value::Null) && !leaf.optional) {
            return false;
        }
        if write_leaf(leaf, v, out).is_err() {
            return false;
        }
    }
    true
}

/// One leaf's Variant (a null Variant for null).
fn write_leaf(leaf: &Leaf, v: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
    match (leaf.built, v) {
        (_, Value::Null) => out.push(0),
        (None, other) => {
            return Err(CodecError::Unsupported(format!("{}: {} in a null field", leaf.name, other.kind())))
        }
        (Some((t, false)), v) => {
            out.push(t.id());
            write_scalar(t, v, || leaf.name.clone(), out)?;
        }
        (Some((t, true)), Value::Array(items)) => {
            out.push(t.id() | 0x80);
            let n = i32::try_from(items.len())
                .map_err(|_| CodecError::Unsupported(format!("{}: an array of {} items", leaf.name, items.len())))?;
            out.extend_from_slice(&n.to_le_bytes());
            for (i, it) in items.iter().enumerate() {
                write_scalar(t, it, || format!("{}[{i}]", leaf.name), out)?;
            }
        }
        (Some(_), other) => {
            return Err(CodecError::Unsupported(format!("{}: {} is not an array", leaf.name, other.kind())))
        }
    }
    Ok(())
}

/// One scalar of built-in type `t` from `v` (as `scalar_of` converts it), written without
/// its type byte; `path` names it in an error only.
fn write_scalar(t: BuiltInType, v: &Value, path: impl Fn() -> String, out: &mut Vec<u8>) -> Result<(), CodecError> {
    let int = v.as_i128();
    let bad = || CodecError::Unsupported(format!("{}: {} does not fit {}", path(), v.kind(), t.name()));
    let fit = |lo: i128, hi: i128| int.filter(|i| (lo..=hi).contains(i)).ok_or_else(bad);
    match t {
        BuiltInType::Boolean => match v {
            Value::Bool(b) => out.push(*b as u8),
            _ => return Err(bad()),
        },
        BuiltInType::SByte => out.push(fit(i8::MIN as i128, i8::MAX as i128)? as i8 as u8),
        BuiltInType::Byte => out.push(fit(0, u8::MAX as i128)? as u8),
        BuiltInType::Int16 => out.extend_from_slice(&(fit(i16::MIN as i128, i16::MAX as i128)? as i16).to_le_bytes()),
        BuiltInType::UInt16 => out.extend_from_slice(&(fit(0, u16::MAX as i128)? as u16).to_le_bytes()),
        BuiltInType::Int32 => out.extend_from_slice(&(fit(i32::MIN as i128, i32::MAX as i128)? as i32).to_le_bytes()),
        BuiltInType::UInt32 => out.extend_from_slice(&(fit(0, u32::MAX as i128)? as u32).to_le_bytes()),
        BuiltInType::Int64 => out.extend_from_slice(&(fit(i64::MIN as i128, i64::MAX as i128)? as i64).to_le_bytes()),
        BuiltInType::UInt64 => out.extend_from_slice(&(fit(0, u64::MAX as i128)? as u64).to_le_bytes()),
        BuiltInType::Float => {
            let f = match v {
                Value::F32(f) => *f,
                Value::F64(f) => *f as f32,
                _ => int.ok_or_else(bad)? as f32,
            };
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        BuiltInType::Double => {
            let f = match v {
                Value::F32(f) => *f as f64,
                Value::F64(f) => *f,
                _ => int.ok_or_else(bad)? as f64,
            };
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        BuiltInType::String | BuiltInType::ByteString => {
            let b: &[u8] = match (t, v) {
                (BuiltInType::String, Value::String(s)) => s.as_bytes(),
                (BuiltInType::ByteString, Value::Bytes(b)) => b,
                _ => return Err(bad()),
            };
            let n = i32::try_from(b.len()).map_err(|_| bad())?;
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(b);
        }
        _ => return Err(bad()),
    }
    Ok(())
}

/// The record → one key frame of Variant fields, smallest header options.
fn to_message(value: &Value, leaves: &[Leaf]) -> Result<NetworkMessage, CodecError> {
    let mut fields = Vec::with_capacity(leaves.len());
    let mut values = LeafValues::new(value);
    for leaf in leaves {
        let path = &leaf.name;
        let v = match (values.get(leaf), &leaf.implicit) {
            (Value::Null, Some(d)) => d,
            (v, _) => v,
        };
        let variant = match (leaf.built, v) {
            (_, Value::Null) => Variant::Null,
            (None, other) => return Err(CodecError::Unsupported(format!("{path}: {} in a null field", other.kind()))),
            (Some((t, false)), v) => Variant::Scalar(scalar_of(t, v, path)?),
            (Some((t, true)), Value::Array(items)) => Variant::Array {
                ty: t,
                items: items
                    .iter()
                    .enumerate()
                    // The item's path is only written into an error (not built per item).
                    .map(|(i, it)| scalar_of(t, it, path).or_else(|_| scalar_of(t, it, &format!("{path}[{i}]"))))
                    .collect::<Result<_, _>>()?,
            },
            (Some(_), other) => {
                return Err(CodecError::Unsupported(format!("{path}: {} is not an array", other.kind())))
            }
        };
        fields.push(Field::Variant(variant));
    }
    let dsm = DataSetMessage { payload: Payload::KeyFrame(fields), ..DataSetMessage::default() };
    Ok(NetworkMessage { messages: vec![dsm], ..NetworkMessage::default() })
}

fn value_of(s: &Scalar) -> Value {
    match s {
        Scalar::Boolean(b) => Value::Bool(*b),
        Scalar::SByte(v) => Value::Int(*v as i64),
        Scalar::Int16(v) => Value::Int(*v as i64),
        Scalar::Int32(v) => Value::Int(*v as i64),
        Scalar::Int64(v) => Value::Int(*v),
        Scalar::Byte(v) => Value::UInt(*v as u64),
        Scalar::UInt16(v) => Value::UInt(*v as u64),
        Scalar::UInt32(v) => Value::UInt(*v as u64),
        Scalar::UInt64(v) => Value::UInt(*v),
        Scalar::Float(f) => Value::F32(*f),
        Scalar::Double(f) => Value::F64(*f),
        Scalar::String(s) => s.clone().map_or(Value::Null, Value::String),
        Scalar::ByteString(b) => b.clone().map_or(Value::Null, Value::Bytes),
        Scalar::DateTime(t) => Value::Int(t.0),
        Scalar::Guid(g) => Value::String(g.to_string()),
        Scalar::StatusCode(c) => Value::UInt(c.0 as u64),
    }
}

/// Insert `v` at `path` into the map tree `root` (creating nested maps in order).
fn insert(root: &mut Vec<(String, Value)>, path: &[String], v: Value) {
    match path {
        [] => {}
        [last] => root.push((last.clone(), v)),
        [first, rest @ ..] => {
            if !matches!(root.last(), Some((k, Value::Map(_))) if k == first) {
                root.push((first.clone(), Value::Map(Vec::new())));
            }
            if let Some((_, Value::Map(inner))) = root.last_mut() {
                insert(inner, rest, v);
            }
        }
    }
}

/// Where in a decoded message a value does not fit the schema: the message as a whole, or
/// one field of its key frame (the caller turns it into a byte offset of its encoding).
#[derive(Clone, Copy)]
enum Spot {
    Message,
    Field(usize),
}

/// A schema mismatch found in a decoded message: the message and its spot.
struct Misfit(String, Spot);

/// The decoded message → the record, names and types from the schema.
fn from_message(msg: &NetworkMessage, leaves: &[Leaf]) -> Result<Value, Misfit> {
    let dsm = match msg.messages.as_slice() {
        [d] => d,
        _ => return Err(Misfit("expected one DataSetMessage".into(), Spot::Message)),
    };
    let fields = match &dsm.payload {
        Payload::KeyFrame(f) => f,
        _ => return Err(Misfit("expected a key frame DataSetMessage".into(), Spot::Message)),
    };
    if fields.len() != leaves.len() {
        return Err(Misfit(
            format!("the schema has {} fields, the message {}", leaves.len(), fields.len()),
            Spot::Field(fields.len().min(leaves.len())),
        ));
    }
    // Optional records whose leaves are all null are left out.
    let mut record_present = vec![false; leaves.len()];
    for (leaf, f) in leaves.iter().zip(fields) {
        if let (Some(r), Field::Variant(v)) = (leaf.optional_record, f) {
            if *v != Variant::Null {
                record_present[r] = true;
            }
        }
    }
    let mut root = Vec::new();
    for (i, (leaf, f)) in leaves.iter().zip(fields).enumerate() {
        let path = &leaf.name;
        let v = match f {
            Field::Variant(v) => v,
            Field::DataValue(d) => d.value.as_ref().unwrap_or(&Variant::Null),
        };
        let expected = leaf.built;
        let value = match (v, expected) {
            (Variant::Null, _) => {
                if !leaf.optional && expected.is_some() {
                    return Err(Misfit(format!("{path}: null in a required field"), Spot::Field(i)));
                }
                if expected.is_none() && !leaf.optional {
                    Some(Value::Null)
                } else {
                    None
                }
            }
            (Variant::Scalar(s), Some((t, false))) if s.built_in_type() == t => Some(value_of(s)),
            (Variant::Array { ty, items }, Some((t, true))) if *ty == t => {
                Some(Value::Array(items.iter().map(value_of).collect()))
            }
            (Variant::NullArray(ty), Some((t, true))) if *ty == t => None,
            (other, _) => {
                return Err(Misfit(
                    format!(
                        "{path}: expected {}, found {}",
                        leaf.ty.describe(),
                        match &other {
                            Variant::Null => "null".to_string(),
                            Variant::Scalar(s) => s.built_in_type().to_string(),
                            Variant::Array { ty, .. } | Variant::NullArray(ty) => format!("array of {ty}"),
                        }
                    ),
                    Spot::Field(i),
                ))
            }
        };
        match (value, leaf.optional_record) {
            (Some(v), _) => insert(&mut root, &leaf.path, v),
            (None, Some(r)) if !record_present[r] => {}
            (None, _) => {
                // Keep the enclosing records in place even when this leaf is absent.
                if leaf.path.len() > 1 {
                    insert_record_only(&mut root, &leaf.path[..leaf.path.len() - 1]);
                }
            }
        }
    }
    Ok(Value::Map(root))
}

fn insert_record_only(root: &mut Vec<(String, Value)>, path: &[String]) {
    if let [first, rest @ ..] = path {
        if !matches!(root.last(), Some((k, Value::Map(_))) if k == first) {
            root.push((first.clone(), Value::Map(Vec::new())));
        }
        if let Some((_, Value::Map(inner))) = root.last_mut() {
            insert_record_only(inner, rest);
        }
    }
}

/// Everything a schema fixes for the three UADP codecs: the leaves and the JSON mapping's
/// field metadata (computed once by `prepare`).
struct Layout {
    leaves: Vec<Leaf>,
    meta: Vec<DataSetMetaData>,
}

fn prepare(schema: Option<&Schema>, id: &'static str) -> Result<Layout, CodecError> {
    let schema = need_schema(schema, id)?;
    let fields = root_record(schema, "UADP")?;
    let leaves = leaves(fields)?;
    if leaves.len() > u16::MAX as usize {
        return Err(CodecError::Unsupported(format!("{} fields: a DataSetMessage holds at most 65535", leaves.len())));
    }
    let meta = metadata(&leaves);
    Ok(Layout { leaves, meta })
}

fn uadp_err(e: uadp::Error) -> CodecError {
    CodecError::decode_kind(
        format!("invalid UADP: {} ({})", e.kind.description(), e.kind.name()),
        e.kind.name(),
        e.offset,
    )
}

/// Field names and types for the JSON mapping (dotted paths).
fn metadata(leaves: &[Leaf]) -> Vec<DataSetMetaData> {
    let fields = leaves
        .iter()
        .map(|l| {
            let (t, array) = l.built.unwrap_or((BuiltInType::String, false));
            FieldMetaData { name: l.name.clone(), built_in_type: t, array }
        })
        .collect();
    vec![DataSetMetaData { data_set_writer_id: None, fields }]
}

/// A UADP binary NetworkMessage → the record.
fn binary_decode(bytes: &[u8], layout: &Layout) -> Result<Value, CodecError> {
    let msg = uadp::decode_exact(bytes, &DecodeOptions::default()).map_err(uadp_err)?;
    from_message(&msg, &layout.leaves).map_err(|Misfit(m, spot)| {
        // The field's offset: the length of the same message cut before that field (one
        // DataSetMessage, so the payload ends the message); its field count just before
        // the first field for the message as a whole.
        let at = |i: usize| {
            let mut cut = msg.clone();
            if let Some(Payload::KeyFrame(f)) = cut.messages.first_mut().map(|d| &mut d.payload) {
                f.truncate(i);
            }
            let mut out = Vec::new();
            uadp::encode(&cut, &mut out).map(|()| out.len()).unwrap_or(0)
        };
        let offset = match spot {
            Spot::Field(i) => at(i),
            Spot::Message => at(0).saturating_sub(2),
        };
        CodecError::decode(m, Some(offset.min(bytes.len())))
    })
}

impl Codec for Uadp {
    fn info(&self) -> &'static CodecInfo {
        &UADP_INFO
    }

    fn encode(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let layout = prepare(schema, "uadp")?;
        if let Some(s) = schema {
            s.check(value)?;
        }
        encode_direct(value, &layout.leaves, out)
    }

    fn prepare(&self, schema: Option<&Schema>) -> Result<Box<dyn crate::Prepared + '_>, CodecError> {
        Ok(Box::new(PreparedUadp { layout: prepare(schema, "uadp")?, schema: schema.cloned() }))
    }

    fn decode(&self, bytes: &[u8], schema: Option<&Schema>) -> Result<Value, CodecError> {
        binary_decode(bytes, &prepare(schema, "uadp")?)
    }
}

/// `schema`: the schema to check the value against first (`None`: no check).
fn json_encode(
    form: JsonForm,
    value: &Value,
    schema: Option<&Schema>,
    layout: &Layout,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    if let Some(s) = schema {
        s.check(value)?;
    }
    let msg = to_message(value, &layout.leaves)?;
    let opts = JsonOptions {
        form,
        message_id: MESSAGE_ID,
        metadata: &layout.meta,
        message_type: false,
        ..JsonOptions::default()
    };
    let text = to_json(&msg, &opts).map_err(|e| CodecError::Encode(e.to_string()))?;
    out.extend_from_slice(text.as_bytes());
    Ok(())
}

fn json_decode(bytes: &[u8], layout: &Layout) -> Result<Value, CodecError> {
    let text =
        std::str::from_utf8(bytes).map_err(|e| CodecError::decode("invalid UTF-8 in JSON", Some(e.valid_up_to())))?;
    let jm = from_json(text, &JsonDecodeOptions { metadata: &layout.meta, ..JsonDecodeOptions::default() }).map_err(
        |e| {
            CodecError::decode_kind(
                format!("invalid JSON NetworkMessage: {} ({})", e.kind.description(), e.kind.name()),
                e.kind.name(),
                e.offset,
            )
        },
    )?;
    // JSON names the fields: they must be the schema's, in its order (the reader sorts by the metadata).
    let names: Vec<&str> =
        jm.metadata.first().map(|m| m.fields.iter().map(|f| f.name.as_str()).collect()).unwrap_or_default();
    let want = || layout.leaves.iter().map(|l| l.name.as_str());
    // Offsets in the text: where the field's name is written (else where the payload is).
    let name_at = |name: Option<&str>| {
        let payload = text.find("\"Payload\"").unwrap_or(0);
        name.and_then(|n| text[payload..].find(&format!("\"{n}\"")).map(|p| payload + p)).unwrap_or(payload)
    };
    if !names.iter().copied().eq(want()) {
        let want: Vec<&str> = want().collect();
        let first_bad = names.iter().zip(&want).position(|(n, w)| n != w).unwrap_or(names.len().min(want.len()));
        let shown = |v: &[&str]| v.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ");
        return Err(CodecError::decode(
            format!("JSON fields [{}] do not match the schema's [{}]", shown(&names), shown(&want)),
            Some(name_at(names.get(first_bad).copied())),
        ));
    }
    from_message(&jm.message, &layout.leaves).map_err(|Misfit(m, spot)| {
        let name = match spot {
            Spot::Field(i) => names.get(i).copied(),
            Spot::Message => None,
        };
        CodecError::decode(m, Some(name_at(name)))
    })
}

/// A JSON NetworkMessage codec bound to a schema.
struct PreparedUadpJson {
    form: JsonForm,
    schema: Option<Schema>,
    layout: Layout,
}

impl crate::Prepared for PreparedUadpJson {
    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        json_encode(self.form, value, self.schema.as_ref(), &self.layout, out)
    }
    fn encode_fitted(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        json_encode(self.form, value, None, &self.layout, out)
    }
    fn decode(&self, bytes: &[u8]) -> Result<Value, CodecError> {
        json_decode(bytes, &self.layout)
    }
}

macro_rules! uadp_json_codec {
    ($codec:ident, $info:ident, $id:literal, $form:expr) => {
        impl Codec for $codec {
            fn info(&self) -> &'static CodecInfo {
                &$info
            }

            fn encode(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
                json_encode($form, value, schema, &prepare(schema, $id)?, out)
            }

            fn prepare(&self, schema: Option<&Schema>) -> Result<Box<dyn crate::Prepared + '_>, CodecError> {
                Ok(Box::new(PreparedUadpJson { form: $form, layout: prepare(schema, $id)?, schema: schema.cloned() }))
            }

            fn decode(&self, bytes: &[u8], schema: Option<&Schema>) -> Result<Value, CodecError> {
                json_decode(bytes, &prepare(schema, $id)?)
            }
        }
    };
}

uadp_json_codec!(UadpJson, UADP_JSON_INFO, "uadp-json", JsonForm::NonReversible);
uadp_json_codec!(UadpJsonRev, UADP_JSON_REV_INFO, "uadp-json-rev", JsonForm::Reversible);

#[cfg(test)]
mod tests {
    use super::*;

    /// The prepared encoder's unchecked flat path gives the
    /// checked path's bytes, or its error, for values that fit and values that do not: extra,
    /// missing, reordered and null fields, wrong kinds, out-of-range integers, nested records.
    #[test]
    fn the_flat_path_equals_the_checked_path() {
        let j = |s: &str| Value::from_json_str(s).unwrap();
        let flat = Schema::infer([&j(r#"{"a":1,"b":2.5,"s":"x","v":[1,2],"t":true}"#)]);
        let mut opt = flat.clone();
        if let Type::Record { fields, .. } = &mut opt.root {
            fields[1].optional = true;
        }
        let nested = Schema::infer([&j(r#"{"a":1,"g":{"x":1.5}}"#)]);
        let values = [
            r#"{"a":1,"b":2.5,"s":"x","v":[1,2],"t":true}"#,
            r#"{"a":7,"b":3,"s":"","v":[],"t":false}"#,
            r#"{"b":2.5,"a":1,"s":"x","v":[1,2],"t":true}"#,
            r#"{"a":1,"b":2.5,"s":"x","v":[1,2],"t":true,"extra":1}"#,
            r#"{"a":1,"b":2.5,"s":"x","v":[1,2]}"#,
            r#"{"a":1,"b":null,"s":"x","v":[1,2],"t":true}"#,
            r#"{"a":"1","b":2.5,"s":"x","v":[1,2],"t":true}"#,
            r#"{"a":99999999999,"b":2.5,"s":"x","v":[1,2],"t":true}"#,
            r#"{"a":1,"b":2.5,"s":"x","v":[1,"2"],"t":true}"#,
            r#"{"a":1,"g":{"x":1.5}}"#,
            r#"{"a":1,"g":{"x":1.5,"y":2}}"#,
            r#"[1,2]"#,
        ];
        for schema in [&flat, &opt, &nested] {
            let prepared = Uadp.prepare(Some(schema)).unwrap();
            for v in values {
                let v = j(v);
                let (mut a, mut b) = (vec![0xaa], vec![0xaa]);
                let ra = prepared.encode(&v, &mut a).map_err(|e| e.to_string());
                let rb = Uadp.encode(&v, Some(schema), &mut b).map_err(|e| e.to_string());
                assert_eq!(ra, rb, "{}", v.to_json_string());
                if ra.is_ok() {
                    assert_eq!(a, b, "{}", v.to_json_string());
                } else {
                    assert_eq!(a, [0xaa], "a failed encode leaves the buffer as it was");
                }
            }
        }
    }

    /// The direct writer gives exactly the bytes of the model path (NetworkMessage then
    /// `uadp::encode`), and fails where it fails, on the built-in corpora and on values with
    /// every leaf kind: widths, floats, strings, bytes, arrays, nested and optional records.
    #[test]
    fn direct_writer_equals_the_model_path() {
        let mut cases: Vec<(Schema, Value)> = Vec::new();
        for c in wirebench_core::corpus::BUILTIN {
            for p in c.payloads() {
                cases.push((Schema::infer([&p.value]), p.value));
            }
        }
        let j = |s: &str| Value::from_json_str(s).unwrap();
        let extra = [
            r#"{"a":-1,"b":300,"c":-70000,"d":5000000000,"e":-5000000000,"f":1.5,"g":{"$f32":2.25},"s":"héllo","y":{"$bytes":"00ff10"}}"#,
            r#"{"arr":[1,2,3],"farr":[1.5,-2.5],"sarr":["x",""],"empty":[],"gps":{"lat":48.1,"lon":11.5},"flag":true}"#,
            r#"{"n":null,"o":{"x":1},"t":false}"#,
        ];
        for e in extra {
            let v = j(e);
            cases.push((Schema::infer([&v]), v));
        }
        // A value that does not fit its schema (the model path fails too).
        let narrow = Schema::infer([&j(r#"{"a":1}"#)]);
        cases.push((narrow.clone(), j(r#"{"a":"text"}"#)));
        cases.push((narrow, j(r#"{"a":[1]}"#)));
        for (schema, value) in &cases {
            let leaves = prepare(Some(schema), "uadp").unwrap().leaves;
            let model = to_message(value, &leaves)
                .and_then(|m| uadp::to_vec(&m).map_err(|e| CodecError::Encode(e.to_string())));
            let mut direct = vec![0xaa];
            let r = encode_direct(value, &leaves, &mut direct);
            match (model, r) {
                (Ok(m), Ok(())) => assert_eq!(&direct[1..], &m[..], "{}", value.to_json_string()),
                (Err(_), Err(_)) => assert_eq!(direct, [0xaa], "a failed encode leaves the buffer as it was"),
                (m, d) => panic!("{}: model {m:?}, direct {d:?}", value.to_json_string()),
            }
        }
    }
}
