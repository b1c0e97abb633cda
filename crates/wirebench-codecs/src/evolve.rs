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

use serde::Serialize;
use wirebench_core::{Schema, Type, Value};

mod cost;
mod formats;
mod matrix;
mod native;
mod render;
mod samples;
mod verdicts;

pub use cost::{cost, protobuf_key_bytes, Cost};
pub use formats::{
    avro_aliased, avro_promotions, avsc_text, bind, decode, encode, idl_text, model, proto_text,
    protobuf_unknown_wire_types, typed_read, uadp_major_change, uadp_major_matches, uadp_versions, xtypes_assignable,
    Bound, Format, Scratch,
};
pub use matrix::{builtin_cases, read, run, user_case, Case, Evolution};
pub use render::{detail, section};
pub use samples::samples;
pub use verdicts::{lossy, run_cell, same, Cell, Note, Verdict};

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
    /// Avro field aliases (a reader field's aliases match a writer field of that name).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
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
    /// A field turned optional or required (found by `diff` only).
    Presence,
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
            Change::Presence => "presence",
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
    let f = |name: &str, tag, kind, optional| EvoField { name: name.into(), tag, kind, optional, aliases: Vec::new() };
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
                aliases: Vec::new(),
            });
            found("humidity", "new optional float64 field humidity".into())
        }
        Change::AddRequired => {
            v2.fields.push(EvoField {
                name: "firmware".into(),
                tag: next,
                kind: Kind::Int { bits: 32, signed: true },
                optional: false,
                aliases: Vec::new(),
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
        Change::Other | Change::Presence => found("", "not a built-in case".into()),
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
                if f.optional != t.optional {
                    let p = |o: bool| if o { "optional" } else { "required" };
                    out.push(fc(
                        Change::Presence,
                        &t.name,
                        format!("{} {} → {}", t.name, p(f.optional), p(t.optional)),
                    ));
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
    let (e, unmapped) = from_schema_parts(s, file)?;
    match unmapped.into_iter().next() {
        Some(err) => Err(err.1),
        None => Ok(e),
    }
}

/// [`from_schema`], with the fields the model cannot hold left as strings and named, with the
/// error each gives (an enum the schema file declares is mapped afterwards).
pub(crate) fn from_schema_parts(s: &Schema, file: &str) -> Result<(EvoSchema, Vec<(String, String)>), String> {
    let Type::Record { name, fields } = &s.root else {
        return Err(format!("{file}: evolve compares records; this schema's root is {}", s.root.describe()));
    };
    let mut out = Vec::new();
    let mut unmapped = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let kind = kind_of(&f.ty).unwrap_or_else(|| {
            unmapped.push((
                f.name.clone(),
                format!(
                    "{file}: field {}: evolve compares flat records of scalars, enums and lists; {} is not one",
                    f.name,
                    f.ty.describe()
                ),
            ));
            Kind::String
        });
        out.push(EvoField {
            name: f.name.clone(),
            tag: f.proto.as_ref().map_or(i as u32 + 1, |p| p.number),
            kind,
            optional: f.optional,
            aliases: Vec::new(),
        });
    }
    Ok((EvoSchema { name: name.clone(), fields: out }, unmapped))
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
            // An Avro alias names the field it was.
            if let Some(i) = from.fields.iter().position(|f| t.aliases.contains(&f.name)).filter(|i| !taken[*i]) {
                taken[i] = true;
                tags[j] = Some(from.fields[i].tag);
            }
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
