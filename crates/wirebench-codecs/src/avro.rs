//! Apache Avro binary *datum* encoding on apache-avro (no object-container header).
//!
//! A schema read from an .avsc carries the file itself: it is then written and read as the file
//! says, every Avro type (see `avro_native`). Otherwise our schema is translated to an Avro schema
//! on every call (records → named records, optional fields → `["null", T]` unions, or `[T, "null"]`
//! where the field says its null branch comes second), built directly as apache-avro's schema type rather
//! than parsed from JSON: parsing costs more than encoding a small record. Values are written
//! following our schema through apache-avro's schema-aware serde writer (`write_avro_datum_ref`,
//! straight into the caller's buffer); a value that does not fit goes through apache-avro's
//! dynamic value and `to_avro_datum` instead, for the error, which names where. Decoding runs
//! `from_avro_datum` and converts back, again following our schema (so unsigned integers come
//! back as unsigned, `float` as float32).
//!
//! Before apache-avro sees the bytes, a walk over the datum checks every length and block
//! count against the bytes that are left: apache-avro allocates a declared length before it
//! reads it (up to 512 MiB) and reads a truncated boolean, string or union as null, so without
//! the walk a short or hostile input could allocate a lot or decode "successfully". The walk
//! also gives every error a byte offset.

use std::collections::{BTreeMap, HashSet};
use wirebench_core::value::max_depth;

use apache_avro::schema::{Name, RecordField, RecordFieldOrder, RecordSchema, UnionSchema};
use apache_avro::types::Value as AvroValue;
use apache_avro::Schema as AvroSchema;
use serde_json::Value as Json;
use wirebench_core::schema::int_range;
use wirebench_core::{Schema, Type, Value};

use crate::{need_schema, Codec, CodecError, CodecInfo, Prepared, SchemaUse};

pub struct Avro;

static INFO: CodecInfo = CodecInfo {
    id: "avro",
    format: "Apache Avro (binary datum)",
    library: "apache-avro",
    schema: SchemaUse::Required,
    media_type: "avro/binary",
    fidelity_notes: &[
        "sizes are the bare binary datum: the schema and the object-container header \
         (magic, metadata, sync markers) are not counted",
        "an explicit null in an optional field reads back as an absent field",
        "float64 values in a float32 field are rounded to float32 (Avro float)",
        "uint64 values above i64::MAX are unsupported (Avro long is signed)",
        "the 'any' type is unsupported (Avro has no dynamic type)",
        "record and field names that are not Avro names are renamed in the Avro schema; \
         decoded values keep the original names",
    ],
};

impl Codec for Avro {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.prepare(schema)?.encode(value, out)
    }

    fn decode(&self, bytes: &[u8], schema: Option<&Schema>) -> Result<Value, CodecError> {
        self.prepare(schema)?.decode(bytes)
    }

    /// Translates the schema to Avro once; encode and decode then reuse it.
    fn prepare(&self, schema: Option<&Schema>) -> Result<Box<dyn Prepared + '_>, CodecError> {
        let schema = need_schema(schema, "avro")?;
        // An .avsc: written as the file says (every Avro type), see avro_native.
        if let Some(native) = schema.native.as_ref().filter(|n| n.format == "avro") {
            return Ok(Box::new(crate::avro_native::PreparedNative {
                avro: crate::avro_native::NativeAvro::from_native(native)?,
            }));
        }
        Ok(Box::new(PreparedAvro { translated: Translated::new(schema)?, schema: schema.clone() }))
    }
}

/// Avro bound to one schema.
struct PreparedAvro {
    schema: Schema,
    translated: Translated,
}

impl Prepared for PreparedAvro {
    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.schema.check(value)?;
        self.encode_fitted(value, out)
    }

    fn encode_fitted(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // apache-avro's schema-aware serde writer, straight from our value into `out` (no
        // intermediate Avro value, no second validation pass); the same bytes as below. A value
        // it refuses takes the path below, which names what does not fit and where.
        let start = out.len();
        if apache_avro::write_avro_datum_ref(&self.translated.avro, &Ser { plan: &self.translated.plan, v: value }, out)
            .is_ok()
        {
            return Ok(());
        }
        out.truncate(start);
        self.encode_via_value(value, out)
    }

    fn decode(&self, bytes: &[u8]) -> Result<Value, CodecError> {
        let translated = &self.translated;
        let mut scan = Scan { bytes, pos: 0, zero_size_budget: ZERO_SIZE_ITEMS };
        scan.datum(&translated.plan, 0)?;
        if scan.pos < bytes.len() {
            return Err(CodecError::decode(
                format!("trailing bytes after the Avro datum ({} left)", bytes.len() - scan.pos),
                Some(scan.pos),
            ));
        }
        let mut reader = bytes;
        let avro_value = apache_avro::from_avro_datum(&translated.avro, &mut reader, None)
            .map_err(|e| CodecError::decode(e.to_string(), Some(bytes.len() - reader.len())))?;
        if !reader.is_empty() {
            return Err(CodecError::decode("trailing bytes after the Avro datum", Some(bytes.len() - reader.len())));
        }
        from_avro(&translated.plan, avro_value)
    }
}

impl PreparedAvro {
    /// Through apache-avro's dynamic value and `to_avro_datum` (which validates it).
    fn encode_via_value(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let avro_value = to_avro(&self.translated.plan, value).map_err(Unsupported::into_error)?;
        let bytes = apache_avro::to_avro_datum(&self.translated.avro, avro_value)
            .map_err(|e| CodecError::Encode(e.to_string()))?;
        out.extend_from_slice(&bytes);
        Ok(())
    }
}

/// How many items of zero encoded size (arrays of nulls) one datum may declare in total.
const ZERO_SIZE_ITEMS: usize = 1 << 20;

/// Our schema as an Avro schema, plus the plan that maps values between the two.
struct Translated {
    plan: Plan,
    avro: AvroSchema,
}

/// Our type, resolved to what is written on the wire.
enum Plan {
    Null,
    Bool,
    /// `long` says the wire type is Avro `long` (else `int`).
    Int {
        bits: u8,
        signed: bool,
        long: bool,
    },
    F32,
    F64,
    String,
    Bytes,
    /// Items, and the least number of bytes one item takes on the wire.
    Array(Box<Plan>, usize),
    Record(Vec<FieldPlan>),
}

struct FieldPlan {
    /// Our field name (used in values).
    name: String,
    /// The field name in the Avro schema (an Avro name, unique in the record).
    avro_name: String,
    /// The same, as the `'static` name serde's struct fields take (interned: each distinct
    /// name is kept once per process).
    avro_static: &'static str,
    optional: bool,
    /// Written as the union `["null", T]` (or `[T, "null"]`): optional and not of type null.
    union: bool,
    /// The union's null branch: 0 (`["null", T]`, the default) or 1 (`[T, "null"]`).
    null_at: u32,
    /// What an absent field is written as under implicit presence (a proto3 field: its default).
    implicit: Option<Value>,
    plan: Plan,
}

impl Translated {
    fn new(schema: &Schema) -> Result<Translated, CodecError> {
        let mut names = HashSet::new();
        let mut path = String::from("$");
        let (plan, avro) = translate(&schema.root, &mut path, &mut names)?;
        Ok(Translated { plan, avro })
    }
}

const AVRO_TYPE_NAMES: &[&str] = &[
    "null", "boolean", "int", "long", "float", "double", "bytes", "string", "record", "enum", "array", "map", "fixed",
];

/// An Avro name (`[A-Za-z_][A-Za-z0-9_]*`) made from `raw`.
fn avro_name(raw: &str, fallback: &str) -> String {
    let mut s: String = raw.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() {
        s.push_str(fallback);
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// `base`, or `base_2`, `base_3`, ... whichever is not taken yet (and records it).
fn unique(base: String, taken: &mut HashSet<String>, avoid_type_names: bool) -> String {
    let clash =
        |n: &str, taken: &HashSet<String>| (avoid_type_names && AVRO_TYPE_NAMES.contains(&n)) || taken.contains(n);
    let name = if clash(&base, taken) {
        let mut n = 2;
        loop {
            let candidate = format!("{base}_{n}");
            if !clash(&candidate, taken) {
                break candidate;
            }
            n += 1;
        }
    } else {
        base
    };
    taken.insert(name.clone());
    name
}

/// Our type as an Avro schema, built directly (the same schema `Schema::parse` would give for
/// its JSON form, without the JSON and name-validation cost on every call).
fn translate(ty: &Type, path: &mut String, names: &mut HashSet<String>) -> Result<(Plan, AvroSchema), CodecError> {
    Ok(match ty {
        Type::Null => (Plan::Null, AvroSchema::Null),
        Type::Bool => (Plan::Bool, AvroSchema::Boolean),
        Type::Int { bits, signed } => {
            let long = if *signed { *bits > 32 } else { *bits > 16 };
            (Plan::Int { bits: *bits, signed: *signed, long }, if long { AvroSchema::Long } else { AvroSchema::Int })
        }
        Type::Float { bits } if *bits <= 32 => (Plan::F32, AvroSchema::Float),
        Type::Float { .. } => (Plan::F64, AvroSchema::Double),
        Type::String => (Plan::String, AvroSchema::String),
        Type::Bytes => (Plan::Bytes, AvroSchema::Bytes),
        Type::Array { items } => {
            let len = path.len();
            path.push_str("[]");
            let (plan, items) = translate(items, path, names)?;
            path.truncate(len);
            let min = plan.min_size();
            (Plan::Array(Box::new(plan), min), AvroSchema::array(items))
        }
        Type::Record { name, fields } => {
            let record_name = unique(avro_name(name, "Record"), names, true);
            let mut field_names = HashSet::new();
            let mut plans = Vec::with_capacity(fields.len());
            let mut avro_fields = Vec::with_capacity(fields.len());
            let mut lookup = BTreeMap::new();
            for (position, f) in fields.iter().enumerate() {
                let len = path.len();
                path.push('.');
                path.push_str(&f.name);
                let (plan, fty) = translate(&f.ty, path, names)?;
                path.truncate(len);
                let an = unique(avro_name(&f.name, "field"), &mut field_names, false);
                let union = f.optional && !matches!(plan, Plan::Null);
                let null_at = u32::from(f.null_branch == Some(1));
                let (schema, default) = if union {
                    let branches = if null_at == 1 { vec![fty, AvroSchema::Null] } else { vec![AvroSchema::Null, fty] };
                    let u = UnionSchema::new(branches)
                        .map_err(|e| CodecError::Unsupported(format!("Avro union for {path}.{}: {e}", f.name)))?;
                    // A default is of the first branch: null only when null comes first.
                    (AvroSchema::Union(u), (null_at == 0).then_some(Json::Null))
                } else {
                    (fty, None)
                };
                lookup.insert(an.clone(), position);
                avro_fields.push(RecordField {
                    name: an.clone(),
                    doc: None,
                    aliases: None,
                    default,
                    schema,
                    order: RecordFieldOrder::Ignore,
                    position,
                    custom_attributes: BTreeMap::new(),
                });
                plans.push(FieldPlan {
                    name: f.name.clone(),
                    avro_static: intern(&an),
                    avro_name: an,
                    optional: f.optional,
                    union,
                    null_at,
                    implicit: f.implicit_default(),
                    plan,
                });
            }
            let record = RecordSchema {
                name: Name { name: record_name, namespace: None },
                aliases: None,
                doc: None,
                fields: avro_fields,
                lookup,
                attributes: BTreeMap::new(),
            };
            (Plan::Record(plans), AvroSchema::Record(record))
        }
        Type::Any => {
            return Err(CodecError::Unsupported(format!(
                "Avro has no type for 'any' (schema at {path}); give a schema with concrete types"
            )))
        }
    })
}

impl Plan {
    /// The least number of bytes a value of this plan takes on the wire.
    fn min_size(&self) -> usize {
        match self {
            Plan::Null => 0,
            Plan::Bool | Plan::Int { .. } | Plan::String | Plan::Bytes | Plan::Array(..) => 1,
            Plan::F32 => 4,
            Plan::F64 => 8,
            Plan::Record(fields) => {
                fields.iter().map(|f| if f.union { 1 } else { f.plan.min_size() }).fold(0, usize::saturating_add)
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Encoding: our value → apache-avro's value.

/// A value the format cannot hold, with the path where (built while unwinding).
struct Unsupported {
    what: String,
    path: Vec<String>,
}

impl Unsupported {
    fn new(what: String) -> Unsupported {
        Unsupported { what, path: Vec::new() }
    }
    fn at(mut self, seg: String) -> Unsupported {
        self.path.push(seg);
        self
    }
    fn into_error(self) -> CodecError {
        let path: String = self.path.iter().rev().map(String::as_str).collect();
        CodecError::Unsupported(format!("{} (at ${path})", self.what))
    }
}

fn to_avro(plan: &Plan, v: &Value) -> Result<AvroValue, Unsupported> {
    Ok(match (plan, v) {
        (Plan::Null, Value::Null) => AvroValue::Null,
        (Plan::Bool, Value::Bool(b)) => AvroValue::Boolean(*b),
        (Plan::Int { long, .. }, _) if v.as_i128().is_some() => {
            let n = v.as_i128().unwrap_or_default();
            if *long {
                AvroValue::Long(
                    i64::try_from(n).map_err(|_| {
                        Unsupported::new(format!("integer {n} does not fit an Avro long (signed 64-bit)"))
                    })?,
                )
            } else {
                AvroValue::Int(
                    i32::try_from(n).map_err(|_| {
                        Unsupported::new(format!("integer {n} does not fit an Avro int (signed 32-bit)"))
                    })?,
                )
            }
        }
        (Plan::F32, _) => AvroValue::Float(match *v {
            Value::F32(f) => f,
            Value::F64(f) => f as f32,
            Value::Int(i) => i as f32,
            Value::UInt(u) => u as f32,
            _ => return Err(mismatch(plan, v)),
        }),
        (Plan::F64, _) => AvroValue::Double(match *v {
            Value::F32(f) => f as f64,
            Value::F64(f) => f,
            Value::Int(i) => i as f64,
            Value::UInt(u) => u as f64,
            _ => return Err(mismatch(plan, v)),
        }),
        (Plan::String, Value::String(s)) => AvroValue::String(s.clone()),
        (Plan::Bytes, Value::Bytes(b)) => AvroValue::Bytes(b.clone()),
        (Plan::Array(item, _), Value::Array(items)) => AvroValue::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, it)| to_avro(item, it).map_err(|e| e.at(format!("[{i}]"))))
                .collect::<Result<_, _>>()?,
        ),
        (Plan::Record(fields), Value::Map(pairs)) => {
            let mut out = Vec::with_capacity(fields.len());
            let mut given = wirebench_core::value::pairs_lookup(pairs);
            for f in fields {
                let fv = given.get(&f.name).map(|(_, v)| v);
                let av = match fv {
                    None | Some(Value::Null) if f.optional => {
                        if f.union {
                            AvroValue::Union(f.null_at, Box::new(AvroValue::Null))
                        } else {
                            AvroValue::Null
                        }
                    }
                    None if f.implicit.is_some() => {
                        to_avro(&f.plan, f.implicit.as_ref().unwrap()).map_err(|e| e.at(format!(".{}", f.name)))?
                    }
                    None => return Err(Unsupported::new("missing field".into()).at(format!(".{}", f.name))),
                    Some(fv) => {
                        let av = to_avro(&f.plan, fv).map_err(|e| e.at(format!(".{}", f.name)))?;
                        if f.union {
                            AvroValue::Union(1 - f.null_at, Box::new(av))
                        } else {
                            av
                        }
                    }
                };
                out.push((f.avro_name.clone(), av));
            }
            AvroValue::Record(out)
        }
        _ => return Err(mismatch(plan, v)),
    })
}

/// `name` as a `'static` str, each distinct name leaked once per process.
fn intern(name: &str) -> &'static str {
    static NAMES: std::sync::Mutex<Option<HashSet<&'static str>>> = std::sync::Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let names = names.get_or_insert_with(HashSet::new);
    match names.get(name) {
        Some(n) => n,
        None => {
            let n: &'static str = Box::leak(name.to_owned().into_boxed_str());
            names.insert(n);
            n
        }
    }
}

/// Our value, serialized the way [`to_avro`] converts it (same plan, same refusals), for
/// apache-avro's schema-aware writer.
struct Ser<'a> {
    plan: &'a Plan,
    v: &'a Value,
}

impl serde::Serialize for Ser<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq, SerializeStruct};
        let refuse = || S::Error::custom("does not fit the plan");
        let float = |v: &Value| match *v {
            Value::F32(f) => Some(f as f64),
            Value::F64(f) => Some(f),
            Value::Int(i) => Some(i as f64),
            Value::UInt(u) => Some(u as f64),
            _ => None,
        };
        match (self.plan, self.v) {
            (Plan::Null, Value::Null) => s.serialize_unit(),
            (Plan::Bool, Value::Bool(b)) => s.serialize_bool(*b),
            (Plan::Int { long, .. }, v) => {
                let n = v.as_i128().ok_or_else(refuse)?;
                if *long {
                    s.serialize_i64(i64::try_from(n).map_err(|_| refuse())?)
                } else {
                    s.serialize_i32(i32::try_from(n).map_err(|_| refuse())?)
                }
            }
            // As to_avro: each kind converted to f32 directly (an integer not through f64).
            (Plan::F32, v) => s.serialize_f32(match *v {
                Value::F32(f) => f,
                Value::F64(f) => f as f32,
                Value::Int(i) => i as f32,
                Value::UInt(u) => u as f32,
                _ => return Err(refuse()),
            }),
            (Plan::F64, v) => s.serialize_f64(float(v).ok_or_else(refuse)?),
            (Plan::String, Value::String(x)) => s.serialize_str(x),
            (Plan::Bytes, Value::Bytes(b)) => s.serialize_bytes(b),
            (Plan::Array(item, _), Value::Array(items)) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for it in items {
                    seq.serialize_element(&Ser { plan: item, v: it })?;
                }
                seq.end()
            }
            (Plan::Record(fields), Value::Map(pairs)) => {
                let mut st = s.serialize_struct("record", fields.len())?;
                let mut given = wirebench_core::value::pairs_lookup(pairs);
                for f in fields {
                    match given.get(&f.name).map(|(_, v)| v) {
                        None | Some(Value::Null) if f.optional => {
                            if f.union {
                                st.serialize_field(f.avro_static, &None::<Ser>)?
                            } else {
                                st.serialize_field(f.avro_static, &())?
                            }
                        }
                        None => return Err(refuse()),
                        Some(fv) if f.union => {
                            st.serialize_field(f.avro_static, &Some(Ser { plan: &f.plan, v: fv }))?
                        }
                        Some(fv) => st.serialize_field(f.avro_static, &Ser { plan: &f.plan, v: fv })?,
                    }
                }
                st.end()
            }
            _ => Err(refuse()),
        }
    }
}

fn mismatch(plan: &Plan, v: &Value) -> Unsupported {
    Unsupported::new(format!("a {} value where the schema has {}", v.kind(), plan.describe()))
}

impl Plan {
    fn describe(&self) -> &'static str {
        match self {
            Plan::Null => "null",
            Plan::Bool => "boolean",
            Plan::Int { long: true, .. } => "long",
            Plan::Int { .. } => "int",
            Plan::F32 => "float",
            Plan::F64 => "double",
            Plan::String => "string",
            Plan::Bytes => "bytes",
            Plan::Array(..) => "array",
            Plan::Record(_) => "record",
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Decoding: a bounds-checking walk over the bytes, then apache-avro's value → our value.

/// Walks one datum without building it: checks lengths, counts, UTF-8, booleans and union
/// indexes, and finds where the datum ends.
struct Scan<'a> {
    bytes: &'a [u8],
    pos: usize,
    zero_size_budget: usize,
}

impl Scan<'_> {
    fn err<T>(&self, msg: impl Into<String>, at: usize) -> Result<T, CodecError> {
        Err(CodecError::decode(msg, Some(at)))
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// A zigzag varint of at most 10 bytes, as apache-avro reads it.
    fn long(&mut self) -> Result<i64, CodecError> {
        let start = self.pos;
        let mut z: u64 = 0;
        for j in 0..10 {
            let Some(&b) = self.bytes.get(self.pos) else {
                return self.err("truncated Avro varint", start);
            };
            self.pos += 1;
            z |= u64::from(b & 0x7f) << (j * 7);
            if b & 0x80 == 0 {
                return Ok(if z & 1 == 0 { (z >> 1) as i64 } else { !(z >> 1) as i64 });
            }
        }
        self.err("Avro varint longer than 10 bytes", start)
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], CodecError> {
        if n > self.left() {
            return self.err(format!("truncated Avro {what}: {n} bytes declared, {} left", self.left()), self.pos);
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn length(&mut self, what: &str) -> Result<usize, CodecError> {
        let at = self.pos;
        let n = self.long()?;
        if n < 0 {
            return self.err(format!("negative Avro {what} length {n}"), at);
        }
        let n = n as u64;
        if n > self.left() as u64 {
            return self.err(format!("Avro {what} length {n} is longer than the {} bytes left", self.left()), at);
        }
        Ok(n as usize)
    }

    fn datum(&mut self, plan: &Plan, depth: usize) -> Result<(), CodecError> {
        if depth > max_depth() {
            return self.err(wirebench_core::value::too_deep(max_depth()), self.pos);
        }
        match plan {
            Plan::Null => {}
            Plan::Bool => {
                let at = self.pos;
                let b = self.take(1, "boolean")?[0];
                if b > 1 {
                    return self.err(format!("invalid Avro boolean byte {b:#04x}"), at);
                }
            }
            Plan::Int { long, bits, signed } => {
                let at = self.pos;
                let n = self.long()?;
                if !long && i32::try_from(n).is_err() {
                    return self.err(format!("Avro int {n} out of 32-bit range"), at);
                }
                let (lo, hi) = int_range(*bits, *signed);
                if (n as i128) < lo || (n as i128) > hi {
                    let t = Type::Int { bits: *bits, signed: *signed }.describe();
                    return self.err(format!("integer {n} out of range for {t}"), at);
                }
            }
            Plan::F32 => {
                self.take(4, "float")?;
            }
            Plan::F64 => {
                self.take(8, "double")?;
            }
            Plan::Bytes => {
                let n = self.length("bytes")?;
                self.take(n, "bytes")?;
            }
            Plan::String => {
                let n = self.length("string")?;
                let at = self.pos;
                let s = self.take(n, "string")?;
                if let Err(e) = std::str::from_utf8(s) {
                    return self.err("Avro string is not valid UTF-8", at + e.valid_up_to());
                }
            }
            Plan::Array(item, min) => loop {
                let at = self.pos;
                let mut count = self.long()?;
                if count == 0 {
                    break;
                }
                if count < 0 {
                    // A negative count is followed by the block's size in bytes.
                    count = count.checked_neg().unwrap_or(i64::MAX);
                    let size_at = self.pos;
                    let size = self.long()?;
                    if size < 0 || size as u64 > self.left() as u64 {
                        return self.err(format!("bad Avro array block size {size}"), size_at);
                    }
                }
                let count = count as u64;
                if *min > 0 {
                    if count > (self.left() / min) as u64 {
                        return self.err(
                            format!("Avro array block of {count} items cannot fit in the {} bytes left", self.left()),
                            at,
                        );
                    }
                } else if count > self.zero_size_budget as u64 {
                    return self.err(format!("Avro array declares too many zero-size items ({count})"), at);
                } else {
                    self.zero_size_budget -= count as usize;
                }
                for _ in 0..count {
                    self.datum(item, depth + 1)?;
                }
            },
            Plan::Record(fields) => {
                for f in fields {
                    if f.union {
                        let at = self.pos;
                        match self.long()? {
                            i if i == f.null_at as i64 => {}
                            i if i == 1 - f.null_at as i64 => self.datum(&f.plan, depth + 1)?,
                            i => {
                                return self
                                    .err(format!("Avro union index {i} out of range for field {:?}", f.name), at)
                            }
                        }
                    } else {
                        self.datum(&f.plan, depth + 1)?;
                    }
                }
            }
        }
        Ok(())
    }
}

fn wrong(plan: &Plan, v: &AvroValue) -> CodecError {
    // The variant's name only (its Debug form would print Rust syntax and the value).
    let debug = format!("{v:?}");
    let kind = debug.split(['(', ' ', '{']).next().unwrap_or("other");
    CodecError::decode(format!("apache-avro returned a {kind} value where the schema has {}", plan.describe()), None)
}

fn from_avro(plan: &Plan, v: AvroValue) -> Result<Value, CodecError> {
    Ok(match (plan, v) {
        (Plan::Null, AvroValue::Null) => Value::Null,
        (Plan::Bool, AvroValue::Boolean(b)) => Value::Bool(b),
        (Plan::Int { bits, signed, .. }, v @ (AvroValue::Int(_) | AvroValue::Long(_))) => {
            let n = match v {
                AvroValue::Int(i) => i as i64,
                AvroValue::Long(l) => l,
                _ => 0,
            };
            let (lo, hi) = int_range(*bits, *signed);
            if (n as i128) < lo || (n as i128) > hi {
                let t = Type::Int { bits: *bits, signed: *signed }.describe();
                return Err(CodecError::decode(format!("integer {n} out of range for {t}"), None));
            }
            if *signed {
                Value::Int(n)
            } else {
                Value::UInt(n as u64)
            }
        }
        (Plan::F32, AvroValue::Float(f)) => Value::F32(f),
        (Plan::F64, AvroValue::Double(f)) => Value::F64(f),
        (Plan::String, AvroValue::String(s)) => Value::String(s),
        (Plan::Bytes, AvroValue::Bytes(b)) => Value::Bytes(b),
        (Plan::Array(item, _), AvroValue::Array(items)) => {
            Value::Array(items.into_iter().map(|it| from_avro(item, it)).collect::<Result<_, _>>()?)
        }
        (Plan::Record(fields), AvroValue::Record(items)) => {
            if items.len() != fields.len() {
                return Err(CodecError::decode(
                    format!("apache-avro returned a record of {} fields, the schema has {}", items.len(), fields.len()),
                    None,
                ));
            }
            let mut pairs = Vec::with_capacity(fields.len());
            for (f, (_, av)) in fields.iter().zip(items) {
                let inner = match av {
                    AvroValue::Union(i, _) if f.union && i == f.null_at => continue,
                    AvroValue::Union(_, inner) if f.union => *inner,
                    // An optional field of type null: null and absent read the same; absent it is.
                    AvroValue::Null if f.optional && !f.union => continue,
                    other => other,
                };
                pairs.push((f.name.clone(), from_avro(&f.plan, inner)?));
            }
            Value::Map(pairs)
        }
        (plan, v) => return Err(wrong(plan, &v)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translated_schema_equals_the_parsed_json_form() {
        let v = Value::from_json_str(r#"{"a-b":1,"a_b":-2,"t":[{"x":1.5}],"o":{"t":[{"y":"s"}]}}"#).unwrap();
        let w = Value::from_json_str(r#"{"a-b":1,"a_b":-2,"t":[],"o":{"t":[{"y":"s"}]},"n":true}"#).unwrap();
        let s = Schema::infer([&v, &w]);
        let t = Translated::new(&s).unwrap();
        let json = r#"{"type":"record","name":"Root","fields":[
            {"name":"a_b","type":"long"},
            {"name":"a_b_2","type":"int"},
            {"name":"t","type":{"type":"array","items":{"type":"record","name":"T","fields":[
                {"name":"x","type":"double"}]}}},
            {"name":"o","type":{"type":"record","name":"O","fields":[
                {"name":"t","type":{"type":"array","items":{"type":"record","name":"T_2","fields":[
                    {"name":"y","type":"string"}]}}}]}},
            {"name":"n","type":["null","boolean"],"default":null}]}"#;
        let parsed = AvroSchema::parse_str(json).unwrap();
        assert_eq!(t.avro.canonical_form(), parsed.canonical_form());
        assert!(t.avro == parsed);
    }

    /// The serde path writes the same bytes as the Avro-value path, and refuses (falling back
    /// to it, for its error) exactly what it refuses.
    #[test]
    fn serde_path_writes_the_same_bytes() {
        let samples = [
            r#"{"id":1,"t":-3,"f":1.5,"g":0.1,"s":"node-1","b":true,"a":[1,2,3],"e":[],"p":{"lat":1.0,"lon":-2.5},"o":null,"r":[{"x":1},{"x":2}]}"#,
            r#"{"id":4000000000,"t":-2147483648,"f":-0.0,"g":1e300,"s":"","b":false,"a":[-1],"e":[],"p":{"lat":-90.0,"lon":180.0},"o":"x","r":[]}"#,
            r#"{"id":0,"t":2147483647,"f":3,"g":-7,"s":"ünïcödé 😀","b":true,"a":[],"e":[],"p":{"lat":0.5,"lon":0.25},"r":[{"x":-1}]}"#,
        ];
        let vals: Vec<Value> = samples.iter().map(|j| Value::from_json_str(j).unwrap()).collect();
        let mut schema = Schema::infer(vals.iter());
        let p = PreparedAvro { translated: Translated::new(&schema).unwrap(), schema: schema.clone() };
        for v in &vals {
            let mut fast = Vec::new();
            assert!(apache_avro::write_avro_datum_ref(
                &p.translated.avro,
                &Ser { plan: &p.translated.plan, v },
                &mut fast
            )
            .is_ok());
            let mut slow = Vec::new();
            p.encode_via_value(v, &mut slow).unwrap();
            assert_eq!(fast, slow, "{v:?}");
        }
        // A float32 field, and values the plan refuses: the serde path refuses them too.
        if let Type::Record { fields, .. } = &mut schema.root {
            for f in fields.iter_mut().filter(|f| f.name == "f") {
                f.ty = Type::Float { bits: 32 };
            }
            for f in fields.iter_mut().filter(|f| f.name == "t") {
                f.ty = Type::Int { bits: 32, signed: true };
            }
        }
        let p = PreparedAvro { translated: Translated::new(&schema).unwrap(), schema: schema.clone() };
        let mut v = vals[0].clone();
        if let Value::Map(pairs) = &mut v {
            pairs[2].1 = Value::Int(16_777_217);
        }
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        assert!(apache_avro::write_avro_datum_ref(
            &p.translated.avro,
            &Ser { plan: &p.translated.plan, v: &v },
            &mut fast
        )
        .is_ok());
        p.encode_via_value(&v, &mut slow).unwrap();
        assert_eq!(fast, slow);
        if let Value::Map(pairs) = &mut v {
            pairs[1].1 = Value::Int(1 << 40);
            pairs[0].1 = Value::String("x".into());
        }
        let mut fast = Vec::new();
        assert!(apache_avro::write_avro_datum_ref(
            &p.translated.avro,
            &Ser { plan: &p.translated.plan, v: &v },
            &mut fast
        )
        .is_err());
        let mut out = vec![7u8];
        assert!(p.encode_fitted(&v, &mut out).is_err());
        assert_eq!(out, [7], "nothing of a refused value is left in the buffer");
        assert!(p.encode_via_value(&v, &mut Vec::new()).is_err());
    }
}
