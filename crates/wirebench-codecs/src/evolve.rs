//! Schema evolution: which format keeps an old writer and a new reader (and the other way
//! round) talking, and what that costs in bytes (`wirebench evolve`, docs/evolve.md).
//!
//! A pair of schemas is compared on a small model of flat records ([`EvoSchema`]: scalars,
//! enums with their symbols, lists; presence; a field's *identity*, its tag). The ten built-in
//! cases are the built-in sensor schema ([`builtin_v1`]) with one [`Change`] applied; a user's
//! pair is diffed ([`diff`]) into the changes it contains. For every format the engine writes
//! the two schemas in that format's own language (a .proto, an .avsc, an .idl with
//! `@final`/`@appendable`/`@mutable`, the Thrift model, nothing for the schemaless formats),
//! reads them with wirebench's schema readers, encodes samples with the writer's schema through
//! the real codec and decodes them with the reader's:
//!
//! * protobuf: prost-reflect through protox-compiled descriptors (proto3);
//! * avro: written by wirebench's Avro codec, read with apache-avro's writer → reader schema
//!   resolution (`from_avro_datum(writer, bytes, Some(reader))`);
//! * thrift: the compact protocol codec (field ids 1..n in schema order);
//! * cdr: XCDR1 `@final`, XCDR2 `@appendable`, XCDR2 `@mutable` (members keep their `@id`);
//! * schemaless (json, cbor, msgpack, bson, pson): decoded, then read by a typed reader that
//!   expects the reader's schema, as a serde struct reads it: by name, unknown fields ignored,
//!   a missing required field, a wrong type, an out-of-range integer or an unknown enum symbol
//!   refused.
//!
//! The verdict of a cell is measured, never looked up: each reader field of each decoded
//! sample is compared with what the writer meant (the writer's value of the field with the
//! same identity, or nothing when the writer has no such field).

use std::path::{Path, PathBuf};

use serde::Serialize;
use wirebench_core::{Field, Schema, Type, Value};

// ---------------------------------------------------------------------------------------------
// The model

/// A field's type in the evolution model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Kind {
    Bool,
    Int { bits: u8, signed: bool },
    Float { bits: u8 },
    String,
    Bytes,
    Enum { name: String, symbols: Vec<String> },
    List { items: Box<Kind> },
}

impl Kind {
    pub fn describe(&self) -> String {
        match self {
            Kind::Bool => "bool".into(),
            Kind::Int { bits, signed: true } => format!("int{bits}"),
            Kind::Int { bits, signed: false } => format!("uint{bits}"),
            Kind::Float { bits } => format!("float{bits}"),
            Kind::String => "string".into(),
            Kind::Bytes => "bytes".into(),
            Kind::Enum { name, symbols } => format!("enum {name} {{{}}}", symbols.join(", ")),
            Kind::List { items } => format!("list<{}>", items.describe()),
        }
    }

    /// The value a reader gives a required field the bytes do not have (proto3's, XTypes').
    pub fn default_value(&self) -> Value {
        match self {
            Kind::Bool => Value::Bool(false),
            Kind::Int { signed: true, .. } => Value::Int(0),
            Kind::Int { signed: false, .. } => Value::UInt(0),
            Kind::Float { bits: 32 } => Value::F32(0.0),
            Kind::Float { .. } => Value::F64(0.0),
            Kind::String => Value::String(String::new()),
            Kind::Bytes => Value::Bytes(Vec::new()),
            Kind::Enum { symbols, .. } => Value::String(symbols.first().cloned().unwrap_or_default()),
            Kind::List { .. } => Value::Array(Vec::new()),
        }
    }
}

/// One field: its name, its identity (`tag`: the protobuf number, the `@id` of a mutable
/// member; a field that keeps its tag is the same datum under a new name or place), its type
/// and presence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvoField {
    pub name: String,
    pub tag: u32,
    #[serde(rename = "type")]
    pub kind: Kind,
    pub optional: bool,
}

/// A flat record schema.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvoSchema {
    pub name: String,
    pub fields: Vec<EvoField>,
}

impl EvoSchema {
    pub fn by_tag(&self, tag: u32) -> Option<&EvoField> {
        self.fields.iter().find(|f| f.tag == tag)
    }
}

/// The ten changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    AddOptional,
    AddRequired,
    Remove,
    Rename,
    Reorder,
    Widen,
    Narrow,
    IntFloat,
    AddEnumValue,
    MakeRepeated,
    /// A change of type that is none of the above (found by `diff` only).
    Other,
}

impl Change {
    pub const ALL: [Change; 10] = [
        Change::AddOptional,
        Change::AddRequired,
        Change::Remove,
        Change::Rename,
        Change::Reorder,
        Change::Widen,
        Change::Narrow,
        Change::IntFloat,
        Change::AddEnumValue,
        Change::MakeRepeated,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Change::AddOptional => "add-optional",
            Change::AddRequired => "add-required",
            Change::Remove => "remove",
            Change::Rename => "rename",
            Change::Reorder => "reorder",
            Change::Widen => "widen",
            Change::Narrow => "narrow",
            Change::IntFloat => "int-float",
            Change::AddEnumValue => "add-enum-value",
            Change::MakeRepeated => "make-repeated",
            Change::Other => "other-type-change",
        }
    }
}

/// A change found between two schemas: which, on which field(s), in words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FoundChange {
    pub change: Change,
    pub field: String,
    pub detail: String,
}

/// The built-in sensor schema, v1: the fields of the built-in `pson-paper` corpus's sensor
/// message (Test01: `sensor`, `time`, `data` = latitude and longitude) and the fields the ten
/// changes need (a battery voltage, a level, a sequence number beyond int32, a status enum).
pub fn builtin_v1() -> EvoSchema {
    let f = |name: &str, tag, kind, optional| EvoField { name: name.into(), tag, kind, optional };
    EvoSchema {
        name: "Reading".into(),
        fields: vec![
            f("sensor", 1, Kind::String, false),
            f("time", 2, Kind::Int { bits: 64, signed: true }, false),
            f("lat", 3, Kind::Float { bits: 64 }, false),
            f("lon", 4, Kind::Float { bits: 64 }, false),
            f("battery", 5, Kind::Int { bits: 32, signed: true }, false),
            f("level", 6, Kind::Int { bits: 32, signed: true }, false),
            f("seq", 7, Kind::Int { bits: 64, signed: true }, false),
            f(
                "status",
                8,
                Kind::Enum { name: "Status".into(), symbols: vec!["OK".into(), "LOW_BATTERY".into(), "FAULT".into()] },
                false,
            ),
            f("note", 9, Kind::String, true),
        ],
    }
}

/// v1 with one change applied (the built-in cases), and what was changed.
pub fn apply(v1: &EvoSchema, change: Change) -> (EvoSchema, FoundChange) {
    let mut v2 = v1.clone();
    let next = v1.fields.iter().map(|f| f.tag).max().unwrap_or(0) + 1;
    let pos = |s: &EvoSchema, n: &str| s.fields.iter().position(|f| f.name == n).expect("built-in field");
    let found = |field: &str, detail: String| FoundChange { change, field: field.into(), detail };
    let fc = match change {
        Change::AddOptional => {
            v2.fields.push(EvoField {
                name: "humidity".into(),
                tag: next,
                kind: Kind::Float { bits: 64 },
                optional: true,
            });
            found("humidity", "new optional float64 field humidity".into())
        }
        Change::AddRequired => {
            v2.fields.push(EvoField {
                name: "firmware".into(),
                tag: next,
                kind: Kind::Int { bits: 32, signed: true },
                optional: false,
            });
            found("firmware", "new required int32 field firmware".into())
        }
        Change::Remove => {
            v2.fields.remove(pos(v1, "battery"));
            found("battery", "required int32 field battery removed".into())
        }
        Change::Rename => {
            let i = pos(v1, "battery");
            v2.fields[i].name = "battery_mv".into();
            found("battery", "battery renamed battery_mv (same tag, same place)".into())
        }
        Change::Reorder => {
            let (a, b) = (pos(v1, "lat"), pos(v1, "lon"));
            v2.fields.swap(a, b);
            found("lat, lon", "lat and lon swapped (both float64, tags kept)".into())
        }
        Change::Widen => {
            let i = pos(v1, "battery");
            v2.fields[i].kind = Kind::Int { bits: 64, signed: true };
            found("battery", "battery int32 → int64".into())
        }
        Change::Narrow => {
            let i = pos(v1, "seq");
            v2.fields[i].kind = Kind::Int { bits: 32, signed: true };
            found("seq", "seq int64 → int32".into())
        }
        Change::IntFloat => {
            let i = pos(v1, "level");
            v2.fields[i].kind = Kind::Float { bits: 64 };
            found("level", "level int32 → float64".into())
        }
        Change::AddEnumValue => {
            let i = pos(v1, "status");
            if let Kind::Enum { symbols, .. } = &mut v2.fields[i].kind {
                symbols.push("CALIBRATING".into());
            }
            found("status", "status gains the value CALIBRATING".into())
        }
        Change::Other => found("", "not a built-in case".into()),
        Change::MakeRepeated => {
            let i = pos(v1, "sensor");
            v2.fields[i].kind = Kind::List { items: Box::new(Kind::String) };
            found("sensor", "sensor string → list<string>".into())
        }
    };
    (v2, fc)
}

/// The changes between two schemas. Fields are matched by tag; a field of `to` whose tag is
/// not in `from` but whose name is (a schema without field numbers that reordered) is matched by
/// name. A matched field with another name is a rename.
pub fn diff(from: &EvoSchema, to: &EvoSchema) -> Vec<FoundChange> {
    let mut out = Vec::new();
    let fc = |change, field: &str, detail: String| FoundChange { change, field: field.to_string(), detail };
    for t in &to.fields {
        match from.by_tag(t.tag) {
            None if t.optional => out.push(fc(
                Change::AddOptional,
                &t.name,
                format!("new optional {} field {}", t.kind.describe(), t.name),
            )),
            None => out.push(fc(
                Change::AddRequired,
                &t.name,
                format!("new required {} field {}", t.kind.describe(), t.name),
            )),
            Some(f) => {
                if f.name != t.name {
                    out.push(fc(Change::Rename, &f.name, format!("{} renamed {} (tag {})", f.name, t.name, t.tag)));
                }
                if let Some(c) = kind_change(&f.kind, &t.kind) {
                    out.push(fc(c, &t.name, format!("{} {} → {}", t.name, f.kind.describe(), t.kind.describe())));
                }
            }
        }
    }
    for f in &from.fields {
        if to.by_tag(f.tag).is_none() {
            out.push(fc(Change::Remove, &f.name, format!("{} field {} removed", f.kind.describe(), f.name)));
        }
    }
    // Reorder: the kept fields in another relative order.
    let kept_from: Vec<u32> = from.fields.iter().map(|f| f.tag).filter(|t| to.by_tag(*t).is_some()).collect();
    let kept_to: Vec<u32> = to.fields.iter().map(|f| f.tag).filter(|t| from.by_tag(*t).is_some()).collect();
    if kept_from != kept_to {
        let moved: Vec<String> = kept_to
            .iter()
            .zip(&kept_from)
            .filter(|(a, b)| a != b)
            .filter_map(|(a, _)| to.by_tag(*a).map(|f| f.name.clone()))
            .collect();
        out.push(fc(Change::Reorder, &moved.join(", "), format!("fields in another order: {}", moved.join(", "))));
    }
    out
}

fn kind_change(a: &Kind, b: &Kind) -> Option<Change> {
    match (a, b) {
        _ if a == b => None,
        (Kind::Int { bits: x, .. }, Kind::Int { bits: y, .. }) if y > x => Some(Change::Widen),
        (Kind::Int { .. }, Kind::Int { .. }) => Some(Change::Narrow),
        (Kind::Float { bits: x }, Kind::Float { bits: y }) => Some(if y > x { Change::Widen } else { Change::Narrow }),
        (Kind::Int { .. }, Kind::Float { .. }) | (Kind::Float { .. }, Kind::Int { .. }) => Some(Change::IntFloat),
        (Kind::Enum { .. }, Kind::Enum { .. }) => Some(Change::AddEnumValue),
        (x, Kind::List { items }) if **items == *x => Some(Change::MakeRepeated),
        (Kind::List { items }, y) if **items == *y => Some(Change::MakeRepeated),
        _ => Some(Change::Other),
    }
}

/// A wirebench schema (read from any schema file) in the evolution model: a flat record; a
/// field's tag is its .proto number, else its position from 1.
pub fn from_schema(s: &Schema, file: &str) -> Result<EvoSchema, String> {
    let Type::Record { name, fields } = &s.root else {
        return Err(format!("{file}: evolve compares records; this schema's root is {}", s.root.describe()));
    };
    let mut out = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let kind = kind_of(&f.ty).ok_or_else(|| {
            format!(
                "{file}: field {}: evolve compares flat records of scalars and lists; {} is not one",
                f.name,
                f.ty.describe()
            )
        })?;
        out.push(EvoField {
            name: f.name.clone(),
            tag: f.proto.as_ref().map_or(i as u32 + 1, |p| p.number),
            kind,
            optional: f.optional,
        });
    }
    Ok(EvoSchema { name: name.clone(), fields: out })
}

fn kind_of(t: &Type) -> Option<Kind> {
    Some(match t {
        Type::Bool => Kind::Bool,
        Type::Int { bits, signed } => Kind::Int { bits: *bits, signed: *signed },
        Type::Float { bits } => Kind::Float { bits: *bits },
        Type::String => Kind::String,
        Type::Bytes => Kind::Bytes,
        Type::Array { items } => {
            Kind::List { items: Box::new(kind_of(items).filter(|k| !matches!(k, Kind::List { .. }))?) }
        }
        _ => return None,
    })
}

/// Give the fields of `to` the tags of the fields of `from` they stand for, when the files
/// carry no field numbers (positions): same name → same tag; a field left over in both at
/// the same position with the same type → a rename; other new fields get fresh tags.
pub fn align_tags(from: &EvoSchema, to: &mut EvoSchema) {
    let mut next = from.fields.iter().map(|f| f.tag).max().unwrap_or(0) + 1;
    let mut taken = vec![false; from.fields.len()];
    let mut tags: Vec<Option<u32>> = vec![None; to.fields.len()];
    for (j, t) in to.fields.iter().enumerate() {
        if let Some(i) = from.fields.iter().position(|f| f.name == t.name) {
            taken[i] = true;
            tags[j] = Some(from.fields[i].tag);
        }
    }
    for (j, t) in to.fields.iter().enumerate() {
        if tags[j].is_none() {
            if let Some(f) = from.fields.get(j).filter(|f| !taken[j] && f.kind == t.kind) {
                taken[j] = true;
                tags[j] = Some(f.tag);
            }
        }
    }
    for (j, t) in to.fields.iter_mut().enumerate() {
        t.tag = tags[j].unwrap_or_else(|| {
            next += 1;
            next - 1
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Samples

/// `n` deterministic samples of `schema`. Integers of 64 bits go beyond int32 on odd samples,
/// floats have fractions, an optional field is left out on every fourth sample, an enum cycles
/// through all its symbols (a new symbol appears), a list has two items on odd samples.
pub fn samples(schema: &EvoSchema, n: usize) -> Vec<Value> {
    const TEST01_DATA: [f64; 2] = [48.75, 2.3];
    (0..n)
        .map(|i| {
            let mut pairs = Vec::new();
            for f in &schema.fields {
                if f.optional && i % 4 == 3 {
                    continue;
                }
                pairs.push((f.name.clone(), value_of(&f.kind, f.tag, i, &TEST01_DATA)));
            }
            Value::Map(pairs)
        })
        .collect()
}

fn value_of(k: &Kind, tag: u32, i: usize, data: &[f64; 2]) -> Value {
    let t = tag as i64;
    match k {
        Kind::Bool => Value::Bool(i % 2 == 0),
        Kind::Int { bits: 64, signed } => {
            let base: i64 = 1_351_824_120 + (if i % 2 == 1 { 3_000_000_000 } else { 0 });
            let v = base + t * 1000 + i as i64;
            if *signed {
                Value::Int(v)
            } else {
                Value::UInt(v as u64)
            }
        }
        Kind::Int { bits, signed } => {
            let top = if *bits >= 32 { 3_700 } else { (1i64 << (bits - 2)) - 1 };
            let v = (top + t * 7 + i as i64 * 3).min((1i64 << (bits - if *signed { 1 } else { 0 })) - 1);
            if *signed {
                Value::Int(v)
            } else {
                Value::UInt(v as u64)
            }
        }
        Kind::Float { bits } => {
            let v = match tag {
                3 => data[0] + i as f64 * 0.125,
                4 => data[1] + i as f64 * 0.125,
                _ => 10.0 * t as f64 + 0.5 + i as f64 * 0.25,
            };
            if *bits == 32 {
                Value::F32(v as f32)
            } else {
                Value::F64(v)
            }
        }
        Kind::String => Value::String(["gps", "imu", "baro"][i % 3].to_string()),
        Kind::Bytes => Value::Bytes(vec![i as u8, tag as u8, 0xfe]),
        Kind::Enum { symbols, .. } => {
            // The last symbol first, so that a few samples show a newly added one.
            let n = symbols.len().max(1);
            Value::String(symbols.get((n - 1 + i) % n).cloned().unwrap_or_default())
        }
        Kind::List { items } => {
            let mut v = vec![value_of(items, tag, i, data)];
            if i % 2 == 1 {
                v.push(value_of(items, tag + 1, i + 1, data));
            }
            Value::Array(v)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Formats

/// A format (and, for CDR, an extensibility) the matrix has a row for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Protobuf,
    Avro,
    Thrift,
    Xcdr1Final,
    Xcdr2Appendable,
    Xcdr2Mutable,
    Json,
    Cbor,
    Msgpack,
    Bson,
    Pson,
}

impl Format {
    pub const ALL: [Format; 11] = [
        Format::Protobuf,
        Format::Avro,
        Format::Thrift,
        Format::Xcdr1Final,
        Format::Xcdr2Appendable,
        Format::Xcdr2Mutable,
        Format::Json,
        Format::Cbor,
        Format::Msgpack,
        Format::Bson,
        Format::Pson,
    ];

    /// The row's name: the codec id, with the extensibility for CDR.
    pub fn id(self) -> &'static str {
        match self {
            Format::Protobuf => "protobuf",
            Format::Avro => "avro",
            Format::Thrift => "thrift",
            Format::Xcdr1Final => "cdr-xcdr1 @final",
            Format::Xcdr2Appendable => "cdr-xcdr2 @appendable",
            Format::Xcdr2Mutable => "cdr-xcdr2 @mutable",
            Format::Json => "json",
            Format::Cbor => "cbor",
            Format::Msgpack => "msgpack",
            Format::Bson => "bson",
            Format::Pson => "pson",
        }
    }

    pub fn codec(self) -> &'static str {
        match self {
            Format::Xcdr1Final => "cdr-xcdr1",
            Format::Xcdr2Appendable | Format::Xcdr2Mutable => "cdr-xcdr2",
            other => other.id(),
        }
    }

    /// Find a row by name (`cdr-xcdr2-mutable`, `xcdr2 @mutable`, `protobuf`, …).
    pub fn find(name: &str) -> Option<Format> {
        let norm = |s: &str| s.to_ascii_lowercase().replace(['@', ' ', '_'], "-").replace("--", "-");
        let n = norm(name);
        Format::ALL.iter().copied().find(|f| {
            norm(f.id()) == n || (f.codec() == n && !matches!(f, Format::Xcdr2Appendable | Format::Xcdr2Mutable))
        })
    }

    pub fn schemaless(self) -> bool {
        matches!(self, Format::Json | Format::Cbor | Format::Msgpack | Format::Bson | Format::Pson)
    }
}

/// Schema files written for one format: read back by wirebench's readers.
pub struct Bound {
    format: Format,
    schema: Option<Schema>,
    evo: EvoSchema,
    /// Avro: the parsed .avsc, for apache-avro's schema resolution.
    avro: Option<apache_avro::Schema>,
    /// The schema file's text (.proto, .avsc, .idl), shown by `--print-schemas`.
    pub text: String,
}

/// A scratch folder for the schema files, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new() -> Result<Scratch, String> {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("wirebench-evolve-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The proto3 text of a schema (package `wirebench.evolve`).
pub fn proto_text(s: &EvoSchema) -> Result<String, String> {
    let mut enums = String::new();
    let mut body = String::new();
    for f in &s.fields {
        let (label, ty) = match &f.kind {
            Kind::List { items } => ("repeated ", proto_scalar(items, &mut enums)?),
            k => (if f.optional { "optional " } else { "" }, proto_scalar(k, &mut enums)?),
        };
        body.push_str(&format!("  {label}{ty} {} = {};\n", f.name, f.tag));
    }
    Ok(format!("syntax = \"proto3\";\npackage wirebench.evolve;\n\n{enums}message {} {{\n{body}}}\n", s.name))
}

fn proto_scalar(k: &Kind, enums: &mut String) -> Result<String, String> {
    Ok(match k {
        Kind::Bool => "bool".into(),
        Kind::Int { bits, signed: true } => if *bits <= 32 { "int32" } else { "int64" }.into(),
        Kind::Int { bits, signed: false } => if *bits <= 32 { "uint32" } else { "uint64" }.into(),
        Kind::Float { bits: 32 } => "float".into(),
        Kind::Float { .. } => "double".into(),
        Kind::String => "string".into(),
        Kind::Bytes => "bytes".into(),
        Kind::Enum { name, symbols } => {
            let vals: String = symbols.iter().enumerate().map(|(i, s)| format!("  {s} = {i};\n")).collect();
            enums.push_str(&format!("enum {name} {{\n{vals}}}\n\n"));
            name.clone()
        }
        Kind::List { .. } => return Err("lists of lists have no protobuf mapping".into()),
    })
}

/// The .avsc text of a schema: optional fields are `["null", T]` with default null, required
/// fields have no default (Avro's resolution then refuses a reader field the writer lacks).
pub fn avsc_text(s: &EvoSchema) -> Result<String, String> {
    fn ty(k: &Kind) -> Result<serde_json::Value, String> {
        use serde_json::json;
        Ok(match k {
            Kind::Bool => json!("boolean"),
            Kind::Int { bits, signed: true } => json!(if *bits <= 32 { "int" } else { "long" }),
            Kind::Int { bits, signed: false } if *bits < 32 => json!("int"),
            Kind::Int { bits: 32, signed: false } => json!("long"),
            Kind::Int { .. } => return Err("Avro has no uint64".into()),
            Kind::Float { bits: 32 } => json!("float"),
            Kind::Float { .. } => json!("double"),
            Kind::String => json!("string"),
            Kind::Bytes => json!("bytes"),
            Kind::Enum { name, symbols } => json!({"type": "enum", "name": name, "symbols": symbols}),
            Kind::List { items } => json!({"type": "array", "items": ty(items)?}),
        })
    }
    let mut fields = Vec::new();
    for f in &s.fields {
        let t = ty(&f.kind)?;
        fields.push(if f.optional {
            serde_json::json!({"name": f.name, "type": ["null", t], "default": null})
        } else {
            serde_json::json!({"name": f.name, "type": t})
        });
    }
    let v = serde_json::json!({"type": "record", "name": s.name, "namespace": "wirebench.evolve", "fields": fields});
    Ok(serde_json::to_string_pretty(&v).expect("json"))
}

/// The IDL text of a schema, as a struct of the given extensibility (`final`, `appendable`,
/// `mutable`: members carry their tag as `@id`).
pub fn idl_text(s: &EvoSchema, ext: &str) -> Result<String, String> {
    let mut enums = String::new();
    let mut body = String::new();
    fn ty(k: &Kind, enums: &mut String) -> String {
        match k {
            Kind::Bool => "boolean".into(),
            Kind::Int { bits: 8, signed: true } => "int8".into(),
            Kind::Int { bits: 8, signed: false } => "uint8".into(),
            Kind::Int { bits: 16, signed: true } => "short".into(),
            Kind::Int { bits: 16, signed: false } => "unsigned short".into(),
            Kind::Int { bits: 32, signed: true } => "long".into(),
            Kind::Int { bits: 32, signed: false } => "unsigned long".into(),
            Kind::Int { signed: true, .. } => "long long".into(),
            Kind::Int { signed: false, .. } => "unsigned long long".into(),
            Kind::Float { bits: 32 } => "float".into(),
            Kind::Float { .. } => "double".into(),
            Kind::String => "string".into(),
            Kind::Bytes => "sequence<octet>".into(),
            Kind::Enum { name, symbols } => {
                enums.push_str(&format!("  enum {name} {{ {} }};\n", symbols.join(", ")));
                name.clone()
            }
            Kind::List { items } => format!("sequence<{}>", ty(items, enums)),
        }
    }
    for f in &s.fields {
        let t = ty(&f.kind, &mut enums);
        let id = if ext == "mutable" { format!("@id({}) ", f.tag) } else { String::new() };
        let opt = if f.optional { "@optional " } else { "" };
        body.push_str(&format!("    {id}{opt}{t} {};\n", f.name));
    }
    Ok(format!("module wirebench {{ module evolve {{\n{enums}  @{ext} struct {} {{\n{body}  }};\n}}; }};\n", s.name))
}

/// The schema of the shared model for Thrift (enums as their i32 numbers).
pub fn model(s: &EvoSchema) -> Schema {
    fn ty(k: &Kind) -> Type {
        match k {
            Kind::Bool => Type::Bool,
            Kind::Int { bits, signed } => Type::Int { bits: *bits, signed: *signed },
            Kind::Float { bits } => Type::Float { bits: *bits },
            Kind::String => Type::String,
            Kind::Bytes => Type::Bytes,
            Kind::Enum { .. } => Type::Int { bits: 32, signed: true },
            Kind::List { items } => Type::Array { items: Box::new(ty(items)) },
        }
    }
    let fields = s
        .fields
        .iter()
        .map(|f| Field { name: f.name.clone(), ty: ty(&f.kind), optional: f.optional, proto: None, null_branch: None })
        .collect();
    Schema {
        tag: "wirebench-schema/1".into(),
        root: Type::Record { name: s.name.clone(), fields },
        native: None,
        proto: None,
    }
}

/// Bind a schema to a format: write its schema file and read it with wirebench's reader.
pub fn bind(format: Format, s: &EvoSchema, scratch: &Scratch, label: &str) -> Result<Bound, String> {
    let write = |ext: &str, text: &str| -> Result<PathBuf, String> {
        let p = scratch.0.join(format!("{label}.{ext}"));
        std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
        Ok(p)
    };
    let (schema, avro, text) = match format {
        Format::Protobuf => {
            let text = proto_text(s)?;
            let p = write("proto", &text)?;
            (Some(crate::proto_schema::read_proto(&p, Some(&s.name), &[scratch.0.clone()])?), None, text)
        }
        Format::Avro => {
            let text = avsc_text(s)?;
            let p = write("avsc", &text)?;
            let parsed = apache_avro::Schema::parse_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
            (Some(crate::schema_files::read_schema_file(&p, None)?), Some(parsed), text)
        }
        Format::Xcdr1Final | Format::Xcdr2Appendable | Format::Xcdr2Mutable => {
            let ext = match format {
                Format::Xcdr1Final => "final",
                Format::Xcdr2Appendable => "appendable",
                _ => "mutable",
            };
            return bind_idl(format, s, ext, scratch, label);
        }
        Format::Thrift => {
            let m = model(s);
            let text = m.to_json_pretty();
            (Some(m), None, text)
        }
        _ => (None, None, String::new()),
    };
    Ok(Bound { format, schema, evo: s.clone(), avro, text })
}

/// An IDL struct of extensibility `ext` for the CDR codec of `format`.
fn bind_idl(format: Format, s: &EvoSchema, ext: &str, scratch: &Scratch, label: &str) -> Result<Bound, String> {
    let text = idl_text(s, ext)?;
    let p = scratch.0.join(format!("{label}.idl"));
    std::fs::write(&p, &text).map_err(|e| format!("{}: {e}", p.display()))?;
    let schema = crate::schema_files::read_schema_file(&p, Some(&format!("wirebench::evolve::{}", s.name)))?;
    Ok(Bound { format, schema: Some(schema), evo: s.clone(), avro: None, text })
}

/// A sample as the writer's codec takes it.
fn to_wire(b: &Bound, v: &Value) -> Value {
    let Value::Map(pairs) = v else { return v.clone() };
    let mut out = Vec::new();
    for f in &b.evo.fields {
        match pairs.iter().find(|(k, _)| *k == f.name) {
            Some((k, x)) => {
                let x = match (&f.kind, x, b.format) {
                    (Kind::Enum { symbols, .. }, Value::String(s), Format::Thrift) => {
                        Value::Int(symbols.iter().position(|y| y == s).unwrap_or(0) as i64)
                    }
                    _ => x.clone(),
                };
                out.push((k.clone(), x));
            }
            None if b.format == Format::Avro => out.push((f.name.clone(), Value::Null)),
            None => {}
        }
    }
    Value::Map(out)
}

/// Encode a sample with the writer's schema through the format's codec.
pub fn encode(b: &Bound, v: &Value) -> Result<Vec<u8>, String> {
    let codec = crate::find(b.format.codec()).ok_or("no such codec")?;
    let mut out = Vec::new();
    codec.encode(&to_wire(b, v), b.schema.as_ref(), &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// Decode bytes written with `writer`'s schema with `reader`'s: the reader's view, fields by the
/// reader's names (absent: the reader has no value, it takes its default), enums by the reader's
/// symbol or, for a number the reader does not know, the number.
pub fn decode(writer: &Bound, reader: &Bound, bytes: &[u8]) -> Result<Value, String> {
    let codec = crate::find(reader.format.codec()).ok_or("no such codec")?;
    let v = match reader.format {
        Format::Avro => {
            avro_promotions(&writer.evo, &reader.evo)?;
            let (w, r) =
                (writer.avro.as_ref().ok_or("no writer schema")?, reader.avro.as_ref().ok_or("no reader schema")?);
            let mut slice = bytes;
            let v = apache_avro::from_avro_datum(w, &mut slice, Some(r)).map_err(|e| one_line(&e.to_string()))?;
            if !slice.is_empty() {
                return Err(format!("{} bytes after the record", slice.len()));
            }
            from_avro(v)
        }
        f if f.schemaless() => {
            let v = codec.decode(bytes, None).map_err(|e| e.to_string())?;
            return typed_read(&v, &reader.evo);
        }
        Format::Protobuf => {
            let schema = reader.schema.as_ref().ok_or("no reader schema")?;
            let desc =
                crate::protobuf::dynamic::of_schema(schema).map_err(|e| e.to_string())?.ok_or("no descriptor")?;
            let kept = protobuf_unknown_wire_types(bytes, &desc)?;
            codec.decode(&kept, Some(schema)).map_err(|e| e.to_string())?
        }
        _ => codec.decode(bytes, reader.schema.as_ref()).map_err(|e| e.to_string())?,
    };
    let Value::Map(pairs) = v else { return Err(format!("decoded a {}, not a record", v.kind())) };
    let mut out = Vec::new();
    for (k, x) in pairs {
        if x == Value::Null {
            continue;
        }
        let x = match (reader.evo.fields.iter().find(|f| f.name == k).map(|f| &f.kind), &x) {
            (Some(Kind::Enum { symbols, .. }), n) if n.as_i128().is_some() => {
                let n = n.as_i128().unwrap_or(-1);
                usize::try_from(n).ok().and_then(|i| symbols.get(i)).map_or(x.clone(), |s| Value::String(s.clone()))
            }
            _ => x,
        };
        out.push((k, x));
    }
    Ok(Value::Map(out))
}

/// The Avro specification's schema resolution, field by field (matched by name): the writer's
/// type must be the reader's or promote to it (int → long, float, double; long → float,
/// double; float → double; string ↔ bytes). apache-avro 0.21's `from_avro_datum` reads a long
/// as an int without complaint (truncating it); fastavro, like the specification, refuses.
pub fn avro_promotions(w: &EvoSchema, r: &EvoSchema) -> Result<(), String> {
    fn prim(k: &Kind) -> String {
        match k {
            Kind::Int { bits, signed: true } if *bits <= 32 => "int".into(),
            Kind::Int { bits, signed: false } if *bits < 32 => "int".into(),
            Kind::Int { .. } => "long".into(),
            Kind::Float { bits: 32 } => "float".into(),
            Kind::Float { .. } => "double".into(),
            Kind::Bool => "boolean".into(),
            Kind::String => "string".into(),
            Kind::Bytes => "bytes".into(),
            Kind::Enum { name, .. } => format!("enum {name}"),
            Kind::List { items } => format!("array<{}>", prim(items)),
        }
    }
    fn ok(a: &Kind, b: &Kind) -> bool {
        let (x, y) = (prim(a), prim(b));
        if let (Kind::List { items: i }, Kind::List { items: j }) = (a, b) {
            return ok(i, j);
        }
        x == y
            || matches!(
                (x.as_str(), y.as_str()),
                ("int", "long" | "float" | "double")
                    | ("long", "float" | "double")
                    | ("float", "double")
                    | ("string", "bytes")
                    | ("bytes", "string")
            )
    }
    for rf in &r.fields {
        if let Some(wf) = w.fields.iter().find(|f| f.name == rf.name) {
            if !ok(&wf.kind, &rf.kind) {
                return Err(format!(
                    "Avro schema resolution: field {}: the writer's {} does not promote to the reader's {}",
                    rf.name,
                    prim(&wf.kind),
                    prim(&rf.kind)
                ));
            }
        }
    }
    Ok(())
}

/// The protobuf parsing rule for a known field that arrives with another wire type: protoc
/// keeps it as an unknown field (the field reads as unset); prost-reflect refuses the whole
/// message. The bytes without such fields, so that prost-reflect reads as protoc does.
pub fn protobuf_unknown_wire_types(bytes: &[u8], desc: &prost_reflect::MessageDescriptor) -> Result<Vec<u8>, String> {
    use prost::encoding::{decode_key, decode_varint, WireType};
    use prost_reflect::Kind as K;
    let mut buf = bytes;
    let mut out = Vec::with_capacity(bytes.len());
    while !buf.is_empty() {
        let start = bytes.len() - buf.len();
        let (tag, wt) = decode_key(&mut buf).map_err(|e| format!("invalid protobuf: {e}"))?;
        match wt {
            WireType::Varint => {
                decode_varint(&mut buf).map_err(|e| format!("invalid protobuf: {e}"))?;
            }
            WireType::SixtyFourBit => buf = buf.get(8..).ok_or("invalid protobuf: truncated fixed64")?,
            WireType::ThirtyTwoBit => buf = buf.get(4..).ok_or("invalid protobuf: truncated fixed32")?,
            WireType::LengthDelimited => {
                let n = decode_varint(&mut buf).map_err(|e| format!("invalid protobuf: {e}"))? as usize;
                buf = buf.get(n..).ok_or("invalid protobuf: truncated length-delimited field")?;
            }
            _ => return Err("invalid protobuf: groups are not read".into()),
        }
        let end = bytes.len() - buf.len();
        let keep = match desc.get_field(tag) {
            None => true,
            Some(f) => {
                let want = match f.kind() {
                    K::Double | K::Fixed64 | K::Sfixed64 => WireType::SixtyFourBit,
                    K::Float | K::Fixed32 | K::Sfixed32 => WireType::ThirtyTwoBit,
                    K::String | K::Bytes | K::Message(_) => WireType::LengthDelimited,
                    _ => WireType::Varint,
                };
                wt == want || (f.is_list() && wt == WireType::LengthDelimited)
            }
        };
        if keep {
            out.extend_from_slice(&bytes[start..end]);
        }
    }
    Ok(out)
}

/// DDS-XTypes 1.3 type assignability (§7.2.4.4) of the writer's struct to the reader's, for
/// the extensibility of the row: `@final` needs the same members (names, types, order);
/// `@appendable` lets one have more members at the end; `@mutable` matches members by id
/// (a member with the same id must have the same name). Member types must be the same
/// primitive (no widening), a sequence of the same element; an enum may gain literals (a
/// sample with a literal the reader does not know is refused when it is read). A DDS reader
/// whose type is not assignable from the writer's is not matched with it: it gets nothing.
pub fn xtypes_assignable(format: Format, w: &EvoSchema, r: &EvoSchema) -> Result<(), String> {
    fn same_type(a: &Kind, b: &Kind) -> bool {
        match (a, b) {
            (Kind::Enum { name: x, symbols: s }, Kind::Enum { name: y, symbols: t }) => {
                x == y && s.iter().zip(t).all(|(p, q)| p == q)
            }
            (Kind::List { items: i }, Kind::List { items: j }) => same_type(i, j),
            _ => a == b,
        }
    }
    let member = |wf: &EvoField, rf: &EvoField| -> Result<(), String> {
        if wf.name != rf.name {
            return Err(format!(
                "member {} is {} in the reader's type (members with the same id must have the same name)",
                wf.name, rf.name
            ));
        }
        if !same_type(&wf.kind, &rf.kind) {
            return Err(format!(
                "member {}: the writer's {} is not assignable to the reader's {}",
                rf.name,
                wf.kind.describe(),
                rf.kind.describe()
            ));
        }
        Ok(())
    };
    match format {
        Format::Xcdr2Mutable => {
            for rf in &r.fields {
                if let Some(wf) = w.by_tag(rf.tag) {
                    member(wf, rf)?;
                }
            }
            for wf in &w.fields {
                if let Some(rf) = r.fields.iter().find(|f| f.name == wf.name && f.tag != wf.tag) {
                    return Err(format!(
                        "member {} has id {} for the writer and {} for the reader",
                        wf.name, wf.tag, rf.tag
                    ));
                }
            }
            Ok(())
        }
        _ => {
            let appendable = format == Format::Xcdr2Appendable;
            if !appendable && w.fields.len() != r.fields.len() {
                return Err(format!("@final types with {} and {} members", w.fields.len(), r.fields.len()));
            }
            for (wf, rf) in w.fields.iter().zip(&r.fields) {
                member(wf, rf)?;
            }
            Ok(())
        }
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn from_avro(v: apache_avro::types::Value) -> Value {
    use apache_avro::types::Value as A;
    match v {
        A::Null => Value::Null,
        A::Boolean(b) => Value::Bool(b),
        A::Int(i) => Value::Int(i.into()),
        A::Long(i) => Value::Int(i),
        A::Float(f) => Value::F32(f),
        A::Double(f) => Value::F64(f),
        A::String(s) => Value::String(s),
        A::Bytes(b) | A::Fixed(_, b) => Value::Bytes(b),
        A::Enum(_, s) => Value::String(s),
        A::Union(_, b) => from_avro(*b),
        A::Array(xs) => Value::Array(xs.into_iter().map(from_avro).collect()),
        A::Record(fs) => Value::Map(fs.into_iter().map(|(k, v)| (k, from_avro(v))).collect()),
        other => Value::String(format!("{other:?}")),
    }
}

/// A decoded schemaless value read by a reader that expects `reader` (a typed struct, as serde
/// derives it): fields by name, unknown ones ignored; a missing required field, a value of
/// another type, an integer out of range or an unknown enum symbol refused.
pub fn typed_read(v: &Value, reader: &EvoSchema) -> Result<Value, String> {
    let Value::Map(pairs) = v else { return Err(format!("a {} where the reader expects a record", v.kind())) };
    let mut out = Vec::new();
    for f in &reader.fields {
        match pairs.iter().find(|(k, _)| *k == f.name).map(|(_, x)| x) {
            None | Some(Value::Null) if f.optional => {}
            None | Some(Value::Null) => return Err(format!("missing field `{}`", f.name)),
            Some(x) => out.push((f.name.clone(), coerce(x, &f.kind).map_err(|e| format!("field `{}`: {e}", f.name))?)),
        }
    }
    Ok(Value::Map(out))
}

fn coerce(v: &Value, k: &Kind) -> Result<Value, String> {
    Ok(match (k, v) {
        (Kind::Bool, Value::Bool(_)) => v.clone(),
        (Kind::Int { bits, signed }, Value::Int(_) | Value::UInt(_)) => {
            let n = v.as_i128().unwrap_or_default();
            let (lo, hi) = wirebench_core::schema::int_range(*bits, *signed);
            if n < lo || n > hi {
                return Err(format!("invalid value: integer {n}, expected {}", k.describe()));
            }
            v.clone()
        }
        (Kind::Float { .. }, _) if v.as_float().is_some() || v.as_i128().is_some() => v.clone(),
        (Kind::String, Value::String(_)) | (Kind::Bytes, Value::Bytes(_)) => v.clone(),
        (Kind::Enum { symbols, .. }, Value::String(s)) => {
            if !symbols.contains(s) {
                return Err(format!("unknown variant `{s}`, expected one of {}", symbols.join(", ")));
            }
            v.clone()
        }
        (Kind::List { items }, Value::Array(xs)) => {
            Value::Array(xs.iter().map(|x| coerce(x, items)).collect::<Result<_, _>>()?)
        }
        _ => return Err(format!("invalid type: {}, expected {}", v.kind(), k.describe())),
    })
}

// ---------------------------------------------------------------------------------------------
// Verdicts

/// The outcome of one format × change × direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The reader accepted and produced other values than the writer meant.
    SilentlyWrong,
    /// The reader refused (some or all samples).
    Refused,
    /// Values changed by the reader's type (rounded, truncated, one item of a list kept).
    Lossy,
    /// Fields the writer does not have took the reader's defaults.
    OkWithDefaults,
    Ok,
    /// The format cannot express one of the two schemas.
    NotApplicable,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::SilentlyWrong => "silently wrong",
            Verdict::Refused => "refused by the reader",
            Verdict::Lossy => "lossy",
            Verdict::OkWithDefaults => "ok with defaults",
            Verdict::Ok => "ok",
            Verdict::NotApplicable => "n/a",
        }
    }
}

/// What happened to one field in one sample.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Note {
    pub sample: usize,
    pub field: String,
    /// What the writer meant (absent: the writer has no such field or left it out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meant: Option<String>,
    /// What the reader produced (absent: nothing, it took the default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub got: Option<String>,
}

/// One cell of the matrix.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    pub format: Format,
    pub change: String,
    /// `old→new` (v1 writer, v2 reader) or `new→old`.
    pub direction: String,
    pub verdict: Verdict,
    pub samples: usize,
    pub refused: usize,
    pub wrong: usize,
    pub lossy: usize,
    pub defaulted: usize,
    /// The reader's first error (refused), or why the format does not apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The fields that were wrong, lossy or defaulted (first sample each).
    pub fields_wrong: Vec<Note>,
    pub fields_lossy: Vec<Note>,
    pub fields_defaulted: Vec<String>,
    /// CDR: the verdict of decoding the bytes alone, when type matching refused the pair (the
    /// counts and notes above are then the reader's: every sample refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_alone: Option<Verdict>,
    /// Per sample: the bytes and whether the reader accepted them (for the oracles).
    #[serde(skip)]
    pub wire: Vec<(Vec<u8>, bool)>,
}

fn show(v: &Value) -> String {
    v.to_json_string()
}

fn num(v: &Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_i128().map(|n| n as f64))
}

/// Whether the reader's value is the writer's (numbers by value across widths and int/float,
/// a single value and a one-item list alike).
pub fn same(m: &Value, g: &Value) -> bool {
    match (m, g) {
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
        (Value::Array(a), b) | (b, Value::Array(a)) if a.len() == 1 && !matches!(b, Value::Array(_)) => same(&a[0], b),
        _ => match (m.as_i128(), g.as_i128()) {
            (Some(x), Some(y)) => x == y,
            _ => match (num(m), num(g)) {
                (Some(x), Some(y)) => x == y,
                _ => m == g,
            },
        },
    }
}

/// Whether the reader's value is the writer's made to fit the reader's type: the nearest
/// value of a narrower type (rounded float, truncated fraction, saturated integer), one item
/// of a list read as a single value, an enum value kept as a bare number.
pub fn lossy(m: &Value, g: &Value, k: &Kind) -> bool {
    match (m, k) {
        (Value::Array(xs), _) if !matches!(g, Value::Array(_)) => xs.iter().any(|x| same(x, g)),
        (_, Kind::Int { bits, signed }) => match (num(m), g.as_i128()) {
            (Some(x), Some(y)) => {
                let (lo, hi) = wirebench_core::schema::int_range(*bits, *signed);
                let near = (x.trunc() as i128).clamp(lo, hi);
                y == near || y == (x.round() as i128).clamp(lo, hi)
            }
            _ => false,
        },
        (_, Kind::Float { bits: 32 }) => matches!((num(m), num(g)), (Some(x), Some(y)) if (x as f32) as f64 == y),
        (Value::String(_), Kind::Enum { .. }) => g.as_i128().is_some(),
        _ => false,
    }
}

fn get<'v>(v: &'v Value, name: &str) -> Option<&'v Value> {
    match v {
        Value::Map(p) => p.iter().find(|(k, _)| k == name).map(|(_, x)| x),
        _ => None,
    }
}

/// Run one cell: encode the samples with `writer`, decode with `reader`, compare with what the
/// writer meant.
pub fn run_cell(
    format: Format,
    change: &str,
    direction: &str,
    w: &EvoSchema,
    r: &EvoSchema,
    n: usize,
    scratch: &Scratch,
) -> Cell {
    let mut cell = Cell {
        format,
        change: change.into(),
        direction: direction.into(),
        verdict: Verdict::Ok,
        samples: n,
        refused: 0,
        wrong: 0,
        lossy: 0,
        defaulted: 0,
        error: None,
        fields_wrong: Vec::new(),
        fields_lossy: Vec::new(),
        fields_defaulted: Vec::new(),
        bytes_alone: None,
        wire: Vec::new(),
    };
    let label = format!("{}-{change}-{}", format.codec(), if direction.starts_with("old") { "a" } else { "b" });
    let bound = bind(format, w, scratch, &format!("{label}-writer"))
        .and_then(|bw| Ok((bind(format, r, scratch, &format!("{label}-reader"))?, bw)));
    let (br, bw) = match bound {
        Ok(x) => x,
        Err(e) => {
            cell.verdict = Verdict::NotApplicable;
            cell.error = Some(e);
            return cell;
        }
    };
    let mut flags = (false, false, false, false);
    for (i, sample) in samples(w, n).iter().enumerate() {
        let bytes = match encode(&bw, sample) {
            Ok(b) => b,
            Err(e) => {
                cell.verdict = Verdict::NotApplicable;
                cell.error = Some(format!("the writer cannot encode sample {i}: {e}"));
                return cell;
            }
        };
        let got = decode(&bw, &br, &bytes);
        cell.wire.push((bytes, got.is_ok()));
        let got = match got {
            Ok(v) => v,
            Err(e) => {
                cell.refused += 1;
                cell.error.get_or_insert(format!("sample {i}: {e}"));
                continue;
            }
        };
        let (mut wrong, mut lost, mut dflt) = (false, false, false);
        for rf in &r.fields {
            let wf = w.by_tag(rf.tag);
            let meant = wf.and_then(|wf| get(sample, &wf.name));
            let g = get(&got, &rf.name);
            let dv = if rf.optional { None } else { Some(rf.kind.default_value()) };
            let eff = g.cloned().or(dv.clone());
            let note = |cell_notes: &mut Vec<Note>| {
                if !cell_notes.iter().any(|x| x.field == rf.name) {
                    cell_notes.push(Note {
                        sample: i,
                        field: rf.name.clone(),
                        meant: meant.map(show),
                        got: g.map(show),
                    });
                }
            };
            match (wf, meant) {
                (None, _) => {
                    if g.is_none() || eff.as_ref().zip(dv.as_ref()).is_some_and(|(a, b)| same(a, b)) {
                        dflt = true;
                        if !cell.fields_defaulted.contains(&rf.name) {
                            cell.fields_defaulted.push(rf.name.clone());
                        }
                    } else {
                        wrong = true;
                        note(&mut cell.fields_wrong);
                    }
                }
                (Some(_), None) => {
                    if g.is_some() && !eff.as_ref().zip(dv.as_ref()).is_some_and(|(a, b)| same(a, b)) {
                        wrong = true;
                        note(&mut cell.fields_wrong);
                    }
                }
                (Some(_), Some(m)) => match &eff {
                    Some(e) if same(m, e) => {}
                    Some(e) if g.is_some() && lossy(m, e, &rf.kind) => {
                        lost = true;
                        note(&mut cell.fields_lossy);
                    }
                    _ => {
                        wrong = true;
                        note(&mut cell.fields_wrong);
                    }
                },
            }
        }
        cell.wrong += wrong as usize;
        cell.lossy += lost as usize;
        cell.defaulted += dflt as usize;
        flags.0 |= wrong;
        flags.1 |= lost;
        flags.2 |= dflt;
    }
    flags.3 = cell.refused > 0;
    cell.verdict = if flags.0 {
        Verdict::SilentlyWrong
    } else if flags.3 {
        Verdict::Refused
    } else if flags.1 {
        Verdict::Lossy
    } else if flags.2 {
        Verdict::OkWithDefaults
    } else {
        Verdict::Ok
    };
    if matches!(format, Format::Xcdr1Final | Format::Xcdr2Appendable | Format::Xcdr2Mutable) {
        if let Err(why) = xtypes_assignable(format, w, r) {
            // The counts and notes are the reader's: nothing was read. What the bytes alone
            // read as stays in `bytes_alone`.
            cell.bytes_alone = Some(cell.verdict);
            cell.verdict = Verdict::Refused;
            cell.refused = n;
            (cell.wrong, cell.lossy, cell.defaulted) = (0, 0, 0);
            cell.fields_wrong.clear();
            cell.fields_lossy.clear();
            cell.fields_defaulted.clear();
            cell.error = Some(format!("XTypes assignability: {why}; a DDS reader is not matched with this writer"));
            for (_, ok) in &mut cell.wire {
                *ok = false;
            }
        }
    }
    cell
}

// ---------------------------------------------------------------------------------------------
// Byte cost of evolvability

/// The size of the samples with what the format needs to evolve, and without it.
#[derive(Clone, Debug, Serialize)]
pub struct Cost {
    pub format: Format,
    /// Mean bytes per message as written.
    pub with: f64,
    /// Mean bytes per message without the evolution metadata.
    pub without: f64,
    /// What that metadata is.
    pub what: String,
}

/// Mean size per message of `samples` written with `s`, with and without the metadata that
/// lets readers of another version read them, measured on real encodings where the format
/// has a form without it (CDR `@final`, a schemaless format's array of values), counted from
/// the bytes otherwise (protobuf keys, Thrift field headers).
pub fn cost(format: Format, s: &EvoSchema, n: usize, scratch: &Scratch) -> Result<Cost, String> {
    let xs = samples(s, n);
    let b = bind(format, s, scratch, &format!("cost-{}", format.codec()))?;
    let mut with = 0usize;
    let mut without = 0usize;
    let plain = match format {
        // The same type, @final, in the same encoding.
        Format::Xcdr2Appendable | Format::Xcdr2Mutable => Some(bind_idl(format, s, "final", scratch, "cost-final2")?),
        _ => None,
    };
    for x in &xs {
        let bytes = encode(&b, x)?;
        with += bytes.len();
        without += match format {
            Format::Protobuf => bytes.len() - protobuf_key_bytes(&bytes)?,
            Format::Avro => bytes.len(),
            Format::Thrift => bytes.len() - thrift_header_bytes(s, x),
            Format::Xcdr1Final => bytes.len(),
            Format::Xcdr2Appendable | Format::Xcdr2Mutable => encode(plain.as_ref().expect("final form"), x)?.len(),
            _ => {
                // The same values as an array in field order (what a positional reader needs).
                let Value::Map(pairs) = x else { return Err("not a record".into()) };
                let arr = Value::Array(
                    s.fields
                        .iter()
                        .map(|f| pairs.iter().find(|(k, _)| *k == f.name).map_or(Value::Null, |(_, v)| v.clone()))
                        .collect(),
                );
                let codec = crate::find(format.codec()).ok_or("no codec")?;
                let mut out = Vec::new();
                match codec.encode(&arr, None, &mut out) {
                    Ok(()) => out.len(),
                    Err(_) => bytes.len(), // BSON has no top-level array: names are its only form
                }
            }
        };
        if format == Format::Avro {
            // Single-object encoding: C3 01 and the writer schema's 8-byte fingerprint, so that
            // the reader can find the writer's schema.
            with += 10;
        }
    }
    let what = match format {
        Format::Protobuf => "field keys (tag and wire type)",
        Format::Avro => "none in the datum; the reader needs the writer's schema (single-object encoding: 2-byte marker + 8-byte fingerprint)",
        Format::Thrift => "field headers (id delta and type) and the stop byte",
        Format::Xcdr1Final => "none (cannot evolve)",
        Format::Xcdr2Appendable => "DHEADER (4 bytes) over the @final form",
        Format::Xcdr2Mutable => "DHEADER and an EMHEADER per member over the @final form",
        Format::Bson => "field names (BSON has no form without them)",
        _ => "field names (against an array of the values in field order)",
    };
    Ok(Cost { format, with: with as f64 / n as f64, without: without as f64 / n as f64, what: what.into() })
}

/// The bytes of a protobuf message that are field keys (walked with prost's wire primitives).
pub fn protobuf_key_bytes(bytes: &[u8]) -> Result<usize, String> {
    use prost::encoding::{decode_key, decode_varint, WireType};
    let mut buf = bytes;
    let mut keys = 0;
    while !buf.is_empty() {
        let before = buf.len();
        let (_, wt) = decode_key(&mut buf).map_err(|e| e.to_string())?;
        keys += before - buf.len();
        match wt {
            WireType::Varint => {
                decode_varint(&mut buf).map_err(|e| e.to_string())?;
            }
            WireType::SixtyFourBit => buf = buf.get(8..).ok_or("truncated")?,
            WireType::ThirtyTwoBit => buf = buf.get(4..).ok_or("truncated")?,
            WireType::LengthDelimited => {
                let n = decode_varint(&mut buf).map_err(|e| e.to_string())? as usize;
                buf = buf.get(n..).ok_or("truncated")?;
            }
            _ => return Err("groups are not written".into()),
        }
    }
    Ok(keys)
}

/// The bytes of a Thrift compact struct that are field headers: one per field written (short
/// form: id delta 1..15), three for a long-form header, and the stop byte.
fn thrift_header_bytes(s: &EvoSchema, v: &Value) -> usize {
    let mut last = 0i64;
    let mut n = 1;
    for (i, f) in s.fields.iter().enumerate() {
        if get(v, &f.name).is_none_or(|x| *x == Value::Null) {
            continue;
        }
        let id = i as i64 + 1;
        n += if (1..=15).contains(&(id - last)) { 1 } else { 3 };
        last = id;
    }
    n
}

// ---------------------------------------------------------------------------------------------
// The matrix

/// A case: a named pair of schemas and the changes it contains.
#[derive(Clone, Debug, Serialize)]
pub struct Case {
    pub name: String,
    pub changes: Vec<FoundChange>,
    #[serde(skip)]
    pub v1: EvoSchema,
    #[serde(skip)]
    pub v2: EvoSchema,
}

/// The ten built-in cases.
pub fn builtin_cases() -> Vec<Case> {
    let v1 = builtin_v1();
    Change::ALL
        .iter()
        .map(|c| {
            let (v2, fc) = apply(&v1, *c);
            Case { name: c.id().into(), changes: vec![fc], v1: v1.clone(), v2 }
        })
        .collect()
}

/// The case of a user's pair: the diff of the two schemas.
pub fn user_case(v1: EvoSchema, v2: EvoSchema) -> Case {
    let changes = diff(&v1, &v2);
    let name = if changes.is_empty() {
        "no change".into()
    } else {
        changes.iter().map(|c| c.change.id()).collect::<Vec<_>>().join("+")
    };
    Case { name, changes, v1, v2 }
}

/// The whole evolution run.
#[derive(Clone, Debug, Serialize)]
pub struct Evolution {
    pub samples: usize,
    pub cases: Vec<Case>,
    /// Every cell, the dangerous ones first (silently wrong, refused, lossy, with defaults, ok).
    pub cells: Vec<Cell>,
    pub costs: Vec<Cost>,
    pub recommendation: String,
}

/// Run every format × case × direction.
pub fn run(cases: Vec<Case>, formats: &[Format], n: usize) -> Result<Evolution, String> {
    if n == 0 {
        return Err("--samples must be at least 1".into());
    }
    let scratch = Scratch::new()?;
    let mut cells = Vec::new();
    for case in &cases {
        for f in formats {
            cells.push(run_cell(*f, &case.name, "old→new", &case.v1, &case.v2, n, &scratch));
            cells.push(run_cell(*f, &case.name, "new→old", &case.v2, &case.v1, n, &scratch));
        }
    }
    let v1 = &cases.first().ok_or("no case")?.v1;
    let mut costs = Vec::new();
    for f in formats {
        if let Ok(c) = cost(*f, v1, n, &scratch) {
            costs.push(c);
        }
    }
    let recommendation = recommend(&cells, &costs, formats);
    let order = |c: &Cell| (c.verdict, Format::ALL.iter().position(|f| *f == c.format));
    cells.sort_by_key(order);
    Ok(Evolution { samples: n, cases, cells, costs, recommendation })
}

/// The recommendation line: the format with the fewest silently wrong cells, then the fewest
/// refused, then the smallest messages.
fn recommend(cells: &[Cell], costs: &[Cost], formats: &[Format]) -> String {
    let count = |f: Format, v: Verdict| cells.iter().filter(|c| c.format == f && c.verdict == v).count();
    let size = |f: Format| costs.iter().find(|c| c.format == f).map_or(f64::INFINITY, |c| c.with);
    let mut ranked: Vec<Format> = formats.to_vec();
    ranked.sort_by(|a, b| {
        (count(*a, Verdict::SilentlyWrong), count(*a, Verdict::Refused) + count(*a, Verdict::Lossy))
            .cmp(&(count(*b, Verdict::SilentlyWrong), count(*b, Verdict::Refused) + count(*b, Verdict::Lossy)))
            .then(size(*a).total_cmp(&size(*b)))
    });
    let Some(best) = ranked.first().copied() else { return String::new() };
    let wrong_in = |f: Format| -> Vec<String> {
        cells
            .iter()
            .filter(|c| c.format == f && c.verdict == Verdict::SilentlyWrong)
            .map(|c| format!("{} {}", c.change, c.direction))
            .collect()
    };
    let dangerous: Vec<String> = formats
        .iter()
        .copied()
        .filter(|f| count(*f, Verdict::SilentlyWrong) > 0)
        .map(|f| format!("{} ({})", f.id(), wrong_in(f).join(", ")))
        .collect();
    let size = costs.iter().find(|c| c.format == best).map_or(String::new(), |c| {
        format!("; {:.1} B per message, {:.1} B without its evolution metadata", c.with, c.without)
    });
    let head = if count(best, Verdict::SilentlyWrong) == 0 {
        format!("{} — never silently wrong here", best.id())
    } else {
        format!("{} — the fewest silently wrong cells ({})", best.id(), count(best, Verdict::SilentlyWrong))
    };
    let mut line = format!(
        "{head} ({} of {} cells refused, {} lossy: the reader says so){size}.",
        count(best, Verdict::Refused),
        cells.iter().filter(|x| x.format == best).count(),
        count(best, Verdict::Lossy),
    );
    if !dangerous.is_empty() {
        line.push_str(&format!(
            " Silently wrong: {}: ship those changes only behind a version field the reader checks.",
            dangerous.join("; ")
        ));
    }
    line
}

/// Read a schema file for `evolve` (any format wirebench reads).
pub fn read(path: &Path, type_name: Option<&str>) -> Result<EvoSchema, String> {
    let s = crate::schema_files::read_schema_file(path, type_name)?;
    from_schema(&s, &path.display().to_string())
}

// ---------------------------------------------------------------------------------------------
// Rendering

impl Verdict {
    /// The short form in the matrix.
    pub fn short(self) -> &'static str {
        match self {
            Verdict::SilentlyWrong => "WRONG",
            Verdict::Refused => "refused",
            Verdict::Lossy => "lossy",
            Verdict::OkWithDefaults => "defaults",
            Verdict::Ok => "ok",
            Verdict::NotApplicable => "n/a",
        }
    }
}

fn notes(ns: &[Note]) -> String {
    ns.iter()
        .map(|n| {
            format!(
                "{} (sample {}: writer meant {}, reader got {})",
                n.field,
                n.sample,
                n.meant.as_deref().unwrap_or("nothing"),
                n.got.as_deref().unwrap_or("nothing, i.e. its default")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The cell's details in one line.
pub fn detail(c: &Cell) -> String {
    if let Some(b) = c.bytes_alone {
        return format!(
            "{} (the bytes alone, without type matching, read as: {})",
            c.error.as_deref().unwrap_or(""),
            b.label()
        );
    }
    let mut parts = Vec::new();
    if !c.fields_wrong.is_empty() {
        parts.push(format!("{}/{} samples wrong: {}", c.wrong, c.samples, notes(&c.fields_wrong)));
    }
    if c.refused > 0 || c.verdict == Verdict::NotApplicable {
        let e = c.error.as_deref().unwrap_or("");
        parts.push(if c.verdict == Verdict::NotApplicable {
            e.to_string()
        } else {
            format!("{}/{} samples refused: {e}", c.refused, c.samples)
        });
    }
    if !c.fields_lossy.is_empty() {
        parts.push(format!("{}/{} samples lossy: {}", c.lossy, c.samples, notes(&c.fields_lossy)));
    }
    if !c.fields_defaulted.is_empty() {
        parts.push(format!("defaults taken: {}", c.fields_defaulted.join(", ")));
    }
    parts.join(" | ")
}

/// The report section (Markdown; also what the terminal shows): the dangerous cells first,
/// then the matrix, the byte cost of evolvability and the recommendation.
pub fn render(e: &Evolution) -> String {
    let mut formats: Vec<Format> = Vec::new();
    for c in &e.cells {
        if !formats.contains(&c.format) {
            formats.push(c.format);
        }
    }
    formats.sort_by_key(|f| Format::ALL.iter().position(|x| x == f));
    let mut s = String::new();
    s.push_str(&format!(
        "## Schema evolution\n\n{} case(s) × {} format(s) × 2 directions, {} sample(s) per cell: encoded with the writer's schema, decoded with the reader's.\n\n",
        e.cases.len(),
        formats.len(),
        e.samples
    ));
    for case in &e.cases {
        let what: Vec<String> = case.changes.iter().map(|c| format!("{} ({})", c.change.id(), c.detail)).collect();
        s.push_str(&format!(
            "- **{}**: {}\n",
            case.name,
            if what.is_empty() { "no change found".into() } else { what.join("; ") }
        ));
    }
    for (v, title) in [
        (Verdict::SilentlyWrong, "Silently wrong (the reader accepted and produced other values)"),
        (Verdict::Refused, "Refused by the reader"),
        (Verdict::Lossy, "Lossy"),
    ] {
        let cells: Vec<&Cell> = e.cells.iter().filter(|c| c.verdict == v).collect();
        s.push_str(&format!("\n### {title}: {} cell(s)\n\n", cells.len()));
        for c in cells {
            s.push_str(&format!("- {} · {} · {}: {}\n", c.format.id(), c.change, c.direction, detail(c)));
        }
    }
    s.push_str("\n### Matrix\n\n| change | direction |");
    for f in &formats {
        s.push_str(&format!(" {} |", f.id()));
    }
    s.push_str("\n|---|---|");
    for _ in &formats {
        s.push_str("---|");
    }
    s.push('\n');
    for case in &e.cases {
        for dir in ["old→new", "new→old"] {
            s.push_str(&format!("| {} | {dir} |", case.name));
            for f in &formats {
                let v = e
                    .cells
                    .iter()
                    .find(|c| c.format == *f && c.change == case.name && c.direction == dir)
                    .map_or("", |c| c.verdict.short());
                s.push_str(&format!(" {v} |"));
            }
            s.push('\n');
        }
    }
    s.push_str("\nWRONG: silently wrong · refused: refused by the reader · lossy · defaults: ok with defaults · ok\n");
    s.push_str("\n### Byte cost of evolvability (v1 messages, mean per message)\n\n| format | with | without | overhead | what |\n|---|---:|---:|---:|---|\n");
    for c in &e.costs {
        let pct = if c.without > 0.0 { (c.with - c.without) / c.without * 100.0 } else { 0.0 };
        s.push_str(&format!(
            "| {} | {:.1} B | {:.1} B | {:+.0} % | {} |\n",
            c.format.id(),
            c.with,
            c.without,
            pct,
            c.what
        ));
    }
    s.push_str(&format!("\n**Recommendation**: {}\n", e.recommendation));
    s
}
