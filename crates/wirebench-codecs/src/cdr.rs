//! OMG CDR as DDS uses it, XCDR1 and XCDR2 (little endian), on our own `cdr` crate
//! (byte-identical to the cyclonedds serializer; see `crates/cdr` and
//! `shared/specs/cdr-dds.md`).
//!
//! Schema-directed: the schema becomes a `@final` struct and the value is written straight
//! from the [`Value`] tree with the crate's streaming [`::cdr::Writer`] (and read back with
//! [`::cdr::Reader`]), no intermediate tree. [`type_desc`] / [`to_cdr`] / [`from_cdr`] give
//! the same mapping as a `cdr::TypeDesc` and `cdr::Value` (a test checks both paths produce
//! the same bytes), and [`idl`] prints it as IDL.
//!
//! | schema            | IDL                            | wire (XCDR1 / XCDR2)                       |
//! |-------------------|--------------------------------|--------------------------------------------|
//! | record            | `@final struct`                | members in schema order                    |
//! | bool              | `boolean`                      | 1 byte                                     |
//! | int8..int64       | `int8` `short` `long` `long long` | aligned to its size (XCDR2: at most 4)  |
//! | uint8..uint64     | `uint8` `unsigned short` ...   | same                                       |
//! | float32 / float64 | `float` / `double`             | same                                       |
//! | string            | `string`                       | uint32 length incl. NUL, bytes, NUL        |
//! | bytes             | `sequence<octet>`              | uint32 count, bytes                        |
//! | array             | `sequence<T>`                  | count, elements (XCDR2: DHEADER first unless T is primitive) |
//! | optional field    | `@optional` member             | XCDR1: parameter header; XCDR2: presence byte |
//!
//! The encapsulation header (`00 01 00 00` CDR_LE, `00 07 00 00` CDR2_LE) is part of every
//! message and counted in its size. Decoding accepts either byte order and either version
//! (the header says which) and the C writers' trailing padding (`options & 3`).

use ::cdr::{Endian, Extensibility, Header, Member, Reader, Representation, StructDesc, TypeDesc, Writer};
use wirebench_core::value::max_depth;
use wirebench_core::{Field, Schema, Type, Value};

use crate::{need_schema, Codec, CodecError, CodecInfo, Prepared, SchemaUse};

/// XCDR1 (plain CDR, `CDR_LE`).
pub struct Xcdr1;
/// XCDR2 (`CDR2_LE`).
pub struct Xcdr2;

const NOTES: &[&str] = &[
    "sizes include the 4-byte encapsulation header (CDR_LE 00 01 00 00 / CDR2_LE 00 07 00 00); no trailing padding is written (the cyclonedds-python form; C writers pad to 4)",
    "schema-directed: a record is a @final struct in schema order, an array is sequence<T>, bytes is sequence<octet>; integer widths and float32/float64 come from the schema",
    "an optional field that is null or missing reads back as missing (CDR has no null)",
    "null-only and mixed-type (any) values have no CDR mapping",
];

static XCDR1_INFO: CodecInfo = CodecInfo {
    id: "cdr-xcdr1",
    format: "OMG CDR, XCDR1 (DDS-XTypes 1.3 plain CDR, little endian)",
    library: "wirebench",
    schema: SchemaUse::Required,
    media_type: "application/x-cdr",
    fidelity_notes: NOTES,
};

static XCDR2_INFO: CodecInfo = CodecInfo {
    id: "cdr-xcdr2",
    format: "OMG CDR, XCDR2 (DDS-XTypes 1.3, little endian)",
    library: "wirebench",
    schema: SchemaUse::Required,
    media_type: "application/x-cdr",
    fidelity_notes: NOTES,
};

macro_rules! cdr_codec {
    ($codec:ident, $info:ident, $id:literal, $repr:expr) => {
        impl Codec for $codec {
            fn info(&self) -> &'static CodecInfo {
                &$info
            }

            fn encode(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
                let schema = need_schema(schema, $id)?;
                if let Some(idl) = IdlBound::of(schema, $repr)? {
                    return idl.encode(value, out);
                }
                validate(&schema.root)?;
                encode(value, schema, $repr, out)
            }

            fn decode(&self, bytes: &[u8], schema: Option<&Schema>) -> Result<Value, CodecError> {
                let schema = need_schema(schema, $id)?;
                if let Some(idl) = IdlBound::of(schema, $repr)? {
                    return idl.decode(bytes);
                }
                validate(&schema.root)?;
                decode(bytes, schema)
            }

            fn prepare(&self, schema: Option<&Schema>) -> Result<Box<dyn Prepared + '_>, CodecError> {
                let schema = need_schema(schema, $id)?;
                if let Some(idl) = IdlBound::of(schema, $repr)? {
                    return Ok(Box::new(idl));
                }
                validate(&schema.root)?;
                Ok(Box::new(BoundCdr { schema: schema.clone(), repr: $repr }))
            }
        }
    };
}

cdr_codec!(Xcdr1, XCDR1_INFO, "cdr-xcdr1", Representation::Cdr);
cdr_codec!(Xcdr2, XCDR2_INFO, "cdr-xcdr2", Representation::Cdr2);

/// A codec bound to a schema checked once (no per-message schema validation).
struct BoundCdr {
    schema: Schema,
    repr: Representation,
}

impl Prepared for BoundCdr {
    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        encode(value, &self.schema, self.repr, out)
    }

    fn decode(&self, bytes: &[u8]) -> Result<Value, CodecError> {
        decode(bytes, &self.schema)
    }
}

/// A schema read from an .idl file: the file's type itself (fixed arrays, bounds, enums, unions,
/// extensibility, @optional, @key), written as `encode -f cdr-xcdr1|cdr-xcdr2 --schema X.idl`
/// writes it (the same JSON reading, little endian, with the encapsulation header), so that
/// `size`, `speed` and `encode` give the same bytes.
struct IdlBound {
    ty: TypeDesc,
    encoding: ::cdr::Encoding,
}

impl IdlBound {
    fn of(schema: &Schema, repr: Representation) -> Result<Option<IdlBound>, CodecError> {
        let Some(native) = schema.native.as_ref().filter(|n| n.format == "idl") else { return Ok(None) };
        let bad = |m: String| CodecError::Unsupported(format!("{}: {m}", native.file));
        let file = ::cdr::idl::parse(&native.text).map_err(|e| bad(e.to_string()))?;
        let ty = if native.root.is_empty() { file.root() } else { file.get(&native.root) };
        let ty = ty.ok_or_else(|| bad(format!("no type {:?}", native.root)))?.clone();
        let encoding = if repr == Representation::Cdr2 { ::cdr::Encoding::XCDR2_LE } else { ::cdr::Encoding::XCDR1_LE };
        Ok(Some(IdlBound { ty, encoding }))
    }
}

impl Prepared for IdlBound {
    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let json = to_serde_json(value)?;
        let v = ::cdr::json::from_json(&self.ty, &json).map_err(CodecError::Unsupported)?;
        let mut enc = ::cdr::Encoder::new(self.encoding);
        enc.max_depth = max_depth();
        enc.encode_append(&self.ty, &v, out)
            .map_err(|e| CodecError::Encode(format!("cannot encode as CDR: {} (output byte {})", e.kind, e.offset)))?;
        Ok(())
    }

    fn decode(&self, bytes: &[u8]) -> Result<Value, CodecError> {
        let v = ::cdr::Decoder::new().decode(&self.ty, bytes).map_err(cdr_err)?;
        let text = ::cdr::json::to_json(&self.ty, &v).to_string();
        Value::from_json_str(&text).map_err(|e| CodecError::decode(format!("CDR value as JSON: {e}"), None))
    }
}

/// Our value as the JSON `cdr::json::from_json` reads (what `encode` reads from the input).
fn to_serde_json(v: &Value) -> Result<serde_json::Value, CodecError> {
    use serde_json::Value as J;
    let float = |f: f64| {
        serde_json::Number::from_f64(f).map(J::Number).unwrap_or_else(|| {
            let s = if f.is_nan() {
                "NaN"
            } else if f > 0.0 {
                "Infinity"
            } else {
                "-Infinity"
            };
            serde_json::json!({ "$f64": s })
        })
    };
    Ok(match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) => J::from(*i),
        Value::UInt(u) => J::from(*u),
        Value::F32(f) => float(*f as f64),
        Value::F64(f) => float(*f),
        Value::String(s) => J::String(s.clone()),
        Value::Bytes(b) => J::Array(b.iter().map(|x| J::from(*x)).collect()),
        Value::Array(items) => J::Array(items.iter().map(to_serde_json).collect::<Result<_, _>>()?),
        Value::Map(pairs) => {
            J::Object(pairs.iter().map(|(k, x)| Ok((k.clone(), to_serde_json(x)?))).collect::<Result<_, CodecError>>()?)
        }
    })
}

/// Every type in the schema must have a CDR mapping (no null-only or mixed types), whether
/// or not a given value reaches it.
fn validate(ty: &Type) -> Result<(), CodecError> {
    match ty {
        Type::Null | Type::Any => Err(unsupported(ty)),
        Type::Array { items } => validate(items),
        Type::Record { fields, .. } => fields.iter().try_for_each(|f| validate(&f.ty)),
        _ => Ok(()),
    }
}

fn cdr_err(e: ::cdr::Error) -> CodecError {
    CodecError::decode_kind(format!("invalid CDR: {}", e.kind.description()), e.kind.name(), e.offset)
}

fn unsupported(ty: &Type) -> CodecError {
    CodecError::Unsupported(format!("CDR has no mapping for {}", ty.describe()))
}

/// Whether `ty` maps to a CDR primitive (no DHEADER before a sequence of it in XCDR2).
fn primitive(ty: &Type) -> bool {
    matches!(ty, Type::Bool | Type::Int { .. } | Type::Float { .. })
}

// ---------------------------------------------------------------------------------------------
// Encoding

fn encode(value: &Value, schema: &Schema, repr: Representation, out: &mut Vec<u8>) -> Result<(), CodecError> {
    schema.check(value)?;
    let base = out.len();
    let header = Header { representation: repr, endian: Endian::Little, options: [0, 0] };
    let mut w = Writer::new(out, header);
    let r = enc_value(&mut w, &schema.root, value, 0);
    w.finish(false);
    if r.is_err() {
        out.truncate(base);
    }
    r
}

fn enc_value(w: &mut Writer<'_>, ty: &Type, v: &Value, depth: usize) -> Result<(), CodecError> {
    if depth > max_depth() {
        return Err(CodecError::Unsupported(wirebench_core::value::too_deep(max_depth())));
    }
    let e = |e: ::cdr::Error| CodecError::Encode(format!("{e}"));
    match (ty, v) {
        (Type::Bool, Value::Bool(b)) => w.bool(*b).map_err(e),
        (Type::Int { bits, signed }, _) => {
            let n = v.as_i128().ok_or_else(|| mismatch(ty, v))?;
            let out_of_range = || CodecError::Encode(format!("{n} does not fit {}", ty.describe()));
            match (bits, signed) {
                (8, true) => w.i8(i8::try_from(n).map_err(|_| out_of_range())?),
                (8, false) => w.u8(u8::try_from(n).map_err(|_| out_of_range())?),
                (16, true) => w.i16(i16::try_from(n).map_err(|_| out_of_range())?),
                (16, false) => w.u16(u16::try_from(n).map_err(|_| out_of_range())?),
                (32, true) => w.i32(i32::try_from(n).map_err(|_| out_of_range())?),
                (32, false) => w.u32(u32::try_from(n).map_err(|_| out_of_range())?),
                (_, true) => w.i64(i64::try_from(n).map_err(|_| out_of_range())?),
                (_, false) => w.u64(u64::try_from(n).map_err(|_| out_of_range())?),
            }
            .map_err(e)
        }
        (Type::Float { bits }, _) => {
            let f = v.as_float().or_else(|| v.as_i128().map(|i| i as f64)).ok_or_else(|| mismatch(ty, v))?;
            match (bits, v) {
                (32, Value::F32(x)) => w.f32(*x),
                (32, _) => w.f32(f as f32),
                _ => w.f64(f),
            }
            .map_err(e)
        }
        (Type::String, Value::String(s)) => w.string(s).map_err(e),
        (Type::Bytes, Value::Bytes(b)) => w.octets(b).map_err(e),
        (Type::Array { items }, Value::Array(vs)) => {
            if matches!(**items, Type::Null | Type::Any) {
                return Err(unsupported(ty));
            }
            let m = w.begin_sequence(vs.len(), primitive(items)).map_err(e)?;
            for it in vs {
                enc_value(w, items, it, depth + 1)?;
            }
            w.end_sequence(m).map_err(e)
        }
        (Type::Record { fields, .. }, Value::Map(pairs)) => enc_record(w, fields, pairs, depth),
        (Type::Null | Type::Any, _) => Err(unsupported(ty)),
        _ => Err(mismatch(ty, v)),
    }
}

fn enc_record(w: &mut Writer<'_>, fields: &[Field], pairs: &[(String, Value)], depth: usize) -> Result<(), CodecError> {
    let e = |e: ::cdr::Error| CodecError::Encode(format!("{e}"));
    let mut given = wirebench_core::value::pairs_lookup(pairs);
    for (i, f) in fields.iter().enumerate() {
        let v = given.get(&f.name).map(|(_, v)| v);
        if f.optional {
            let present = matches!(v, Some(x) if !matches!(x, Value::Null));
            let m = w.begin_optional(i as u32, present).map_err(e)?;
            if let (true, Some(v)) = (present, v) {
                enc_value(w, &f.ty, v, depth + 1)?;
            }
            w.end_optional(m).map_err(e)?;
        } else {
            // Implicit presence (proto3): an absent field is its default.
            let implicit = if v.is_none() { f.implicit_default() } else { None };
            let v =
                v.or(implicit.as_ref()).ok_or_else(|| CodecError::Encode(format!("field {:?} is missing", f.name)))?;
            enc_value(w, &f.ty, v, depth + 1)?;
        }
    }
    Ok(())
}

fn mismatch(ty: &Type, v: &Value) -> CodecError {
    CodecError::Encode(format!("a {} value does not fit {}", v.kind(), ty.describe()))
}

// ---------------------------------------------------------------------------------------------
// Decoding

fn decode(bytes: &[u8], schema: &Schema) -> Result<Value, CodecError> {
    let mut r = Reader::new(bytes).map_err(cdr_err)?;
    let v = dec_value(&mut r, &schema.root, 0)?;
    r.finish().map_err(cdr_err)?;
    Ok(v)
}

/// The fewest bytes a value of `ty` takes (for checking counts before allocating).
fn min_size(ty: &Type, xcdr2: bool) -> usize {
    match ty {
        Type::Bool => 1,
        Type::Int { bits, .. } | Type::Float { bits } => (*bits as usize / 8).max(1),
        Type::String => 5,
        Type::Bytes => 4,
        Type::Array { items } => {
            if xcdr2 && !primitive(items) {
                8
            } else {
                4
            }
        }
        Type::Record { fields, .. } => fields
            .iter()
            .map(|f| match (f.optional, xcdr2) {
                (true, true) => 1,
                (true, false) => 12,
                (false, _) => min_size(&f.ty, xcdr2),
            })
            .fold(0usize, usize::saturating_add),
        Type::Null | Type::Any => 0,
    }
}

fn dec_value(r: &mut Reader<'_>, ty: &Type, depth: usize) -> Result<Value, CodecError> {
    if depth > max_depth() {
        return Err(CodecError::decode(wirebench_core::value::too_deep(max_depth()), Some(r.position())));
    }
    Ok(match ty {
        Type::Bool => Value::Bool(r.bool().map_err(cdr_err)?),
        Type::Int { bits, signed } => match (bits, signed) {
            (8, true) => Value::Int(r.i8().map_err(cdr_err)? as i64),
            (8, false) => Value::UInt(r.u8().map_err(cdr_err)? as u64),
            (16, true) => Value::Int(r.i16().map_err(cdr_err)? as i64),
            (16, false) => Value::UInt(r.u16().map_err(cdr_err)? as u64),
            (32, true) => Value::Int(r.i32().map_err(cdr_err)? as i64),
            (32, false) => Value::UInt(r.u32().map_err(cdr_err)? as u64),
            (_, true) => Value::Int(r.i64().map_err(cdr_err)?),
            (_, false) => Value::UInt(r.u64().map_err(cdr_err)?),
        },
        Type::Float { bits: 32 } => Value::F32(r.f32().map_err(cdr_err)?),
        Type::Float { .. } => Value::F64(r.f64().map_err(cdr_err)?),
        Type::String => Value::String(r.string().map_err(cdr_err)?.to_owned()),
        Type::Bytes => Value::Bytes(r.octets().map_err(cdr_err)?.to_vec()),
        Type::Array { items } => {
            if matches!(**items, Type::Null | Type::Any) {
                return Err(unsupported(ty));
            }
            let v2 = r.encoding().version == ::cdr::Version::Xcdr2;
            let (n, m) = r.begin_sequence(primitive(items), min_size(items, v2)).map_err(cdr_err)?;
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                out.push(dec_value(r, items, depth + 1)?);
            }
            r.end_sequence(m);
            Value::Array(out)
        }
        Type::Record { fields, .. } => {
            let mut pairs = Vec::with_capacity(fields.len());
            for f in fields {
                if f.optional {
                    if let Some(m) = r.begin_optional().map_err(cdr_err)? {
                        let v = dec_value(r, &f.ty, depth + 1)?;
                        r.end_optional(m);
                        pairs.push((f.name.clone(), v));
                    }
                } else {
                    pairs.push((f.name.clone(), dec_value(r, &f.ty, depth + 1)?));
                }
            }
            Value::Map(pairs)
        }
        Type::Null | Type::Any => return Err(unsupported(ty)),
    })
}

// ---------------------------------------------------------------------------------------------
// The same mapping as `cdr` crate types (for tests, IDL export and the generic codec).

/// The CDR type of a schema type: records are `@final` structs (optional fields `@optional`
/// members, ids in field order), arrays `sequence<T>`, bytes `sequence<octet>`.
pub fn type_desc(ty: &Type) -> Result<TypeDesc, CodecError> {
    Ok(match ty {
        Type::Bool => TypeDesc::Bool,
        Type::Int { bits: 8, signed: true } => TypeDesc::Int8,
        Type::Int { bits: 8, signed: false } => TypeDesc::UInt8,
        Type::Int { bits: 16, signed: true } => TypeDesc::Int16,
        Type::Int { bits: 16, signed: false } => TypeDesc::UInt16,
        Type::Int { bits: 32, signed: true } => TypeDesc::Int32,
        Type::Int { bits: 32, signed: false } => TypeDesc::UInt32,
        Type::Int { signed: true, .. } => TypeDesc::Int64,
        Type::Int { signed: false, .. } => TypeDesc::UInt64,
        Type::Float { bits: 32 } => TypeDesc::Float32,
        Type::Float { .. } => TypeDesc::Float64,
        Type::String => TypeDesc::string(),
        Type::Bytes => TypeDesc::sequence(TypeDesc::Octet),
        Type::Array { items } => TypeDesc::sequence(type_desc(items)?),
        Type::Record { name, fields } => {
            let members = fields
                .iter()
                .map(|f| {
                    let mut m = Member::new(f.name.clone(), type_desc(&f.ty)?);
                    m.optional = f.optional;
                    Ok(m)
                })
                .collect::<Result<Vec<_>, CodecError>>()?;
            TypeDesc::structure(StructDesc::new(name.clone(), Extensibility::Final, members))
        }
        Type::Null | Type::Any => return Err(unsupported(ty)),
    })
}

/// A value as a `cdr::Value` of [`type_desc`]'s type.
pub fn to_cdr(ty: &Type, v: &Value) -> Result<::cdr::Value, CodecError> {
    use ::cdr::Value as C;
    Ok(match (ty, v) {
        (Type::Bool, Value::Bool(b)) => C::Bool(*b),
        (Type::Int { .. }, Value::Int(i)) => C::Int(*i),
        (Type::Int { .. }, Value::UInt(u)) => C::UInt(*u),
        (Type::Float { bits: 32 }, Value::F32(f)) => C::F32(*f),
        (Type::Float { bits: 32 }, _) => {
            C::F32(v.as_float().or_else(|| v.as_i128().map(|i| i as f64)).ok_or_else(|| mismatch(ty, v))? as f32)
        }
        (Type::Float { .. }, _) => {
            C::F64(v.as_float().or_else(|| v.as_i128().map(|i| i as f64)).ok_or_else(|| mismatch(ty, v))?)
        }
        (Type::String, Value::String(s)) => C::String(s.clone()),
        (Type::Bytes, Value::Bytes(b)) => C::Bytes(b.clone()),
        (Type::Array { items }, Value::Array(vs)) => {
            C::Seq(vs.iter().map(|x| to_cdr(items, x)).collect::<Result<_, _>>()?)
        }
        (Type::Record { fields, .. }, Value::Map(pairs)) => {
            let mut given = wirebench_core::value::pairs_lookup(pairs);
            C::Struct(
                fields
                    .iter()
                    .map(|f| match given.get(&f.name) {
                        None | Some((_, Value::Null)) if f.optional => Ok(C::Null),
                        None => match f.implicit_default() {
                            Some(d) => to_cdr(&f.ty, &d),
                            None => Err(CodecError::Encode(format!("field {:?} is missing", f.name))),
                        },
                        Some((_, x)) => to_cdr(&f.ty, x),
                    })
                    .collect::<Result<_, _>>()?,
            )
        }
        _ => return Err(mismatch(ty, v)),
    })
}

/// A decoded `cdr::Value` back as a [`Value`] (records as maps in field order; absent
/// optional members left out).
pub fn from_cdr(ty: &Type, v: ::cdr::Value) -> Value {
    use ::cdr::Value as C;
    match (ty, v) {
        (Type::Record { fields, .. }, C::Struct(vals)) => Value::Map(
            fields
                .iter()
                .zip(vals)
                .filter(|(_, x)| !matches!(x, C::Null))
                .map(|(f, x)| (f.name.clone(), from_cdr(&f.ty, x)))
                .collect(),
        ),
        (Type::Array { items }, C::Seq(xs)) => Value::Array(xs.into_iter().map(|x| from_cdr(items, x)).collect()),
        (_, C::Bool(b)) => Value::Bool(b),
        (_, C::Int(i)) => Value::Int(i),
        (_, C::UInt(u)) => Value::UInt(u),
        (_, C::F32(f)) => Value::F32(f),
        (_, C::F64(f)) => Value::F64(f),
        (_, C::String(s)) => Value::String(s),
        (_, C::Bytes(b)) => Value::Bytes(b),
        (_, C::Char(c)) => Value::String(c.to_string()),
        (_, C::Enum(e)) => Value::Int(e as i64),
        _ => Value::Null,
    }
}

/// The schema as IDL: every record a `@final struct` (nested records first), the root last;
/// names that are IDL keywords are escaped (`_double`). Field names that are not identifiers
/// are an error.
pub fn idl(schema: &Schema) -> Result<String, CodecError> {
    fn ty_name(ty: &Type, defs: &mut Vec<String>, seen: &mut Vec<String>) -> Result<String, CodecError> {
        Ok(match ty {
            Type::Bool => "boolean".into(),
            Type::Int { bits: 8, signed: true } => "int8".into(),
            Type::Int { bits: 8, signed: false } => "uint8".into(),
            Type::Int { bits: 16, signed: true } => "short".into(),
            Type::Int { bits: 16, signed: false } => "unsigned short".into(),
            Type::Int { bits: 32, signed: true } => "long".into(),
            Type::Int { bits: 32, signed: false } => "unsigned long".into(),
            Type::Int { signed: true, .. } => "long long".into(),
            Type::Int { signed: false, .. } => "unsigned long long".into(),
            Type::Float { bits: 32 } => "float".into(),
            Type::Float { .. } => "double".into(),
            Type::String => "string".into(),
            Type::Bytes => "sequence<octet>".into(),
            Type::Array { items } => format!("sequence<{}>", ty_name(items, defs, seen)?),
            Type::Record { name, fields } => {
                let base = ::cdr::idl::escape_identifier(name).unwrap_or_else(|| "Record".into());
                let mut unique = base.clone();
                let mut k = 2;
                while seen.contains(&unique) {
                    unique = format!("{base}{k}");
                    k += 1;
                }
                seen.push(unique.clone());
                let mut body = String::new();
                for f in fields {
                    let t = ty_name(&f.ty, defs, seen)?;
                    let opt = if f.optional { "@optional " } else { "" };
                    let id = ::cdr::idl::escape_identifier(&f.name).ok_or_else(|| {
                        CodecError::Unsupported(format!("field name {:?} is not an IDL identifier", f.name))
                    })?;
                    body.push_str(&format!("  {opt}{t} {id};\n"));
                }
                defs.push(format!("@final struct {unique} {{\n{body}}};\n"));
                unique
            }
            Type::Null | Type::Any => return Err(unsupported(ty)),
        })
    }
    let mut defs = Vec::new();
    let root = ty_name(&schema.root, &mut defs, &mut Vec::new())?;
    if !matches!(schema.root, Type::Record { .. }) {
        defs.push(format!("// top-level type: {root}\n"));
    }
    Ok(defs.concat())
}
