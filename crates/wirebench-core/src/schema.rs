//! Schemas: field names, types with integer widths, float32 vs float64, optional, repeated
//! and nested records. Inferred from samples, written to and read from JSON.

use serde::{Deserialize, Serialize};

use crate::value::Value;

/// A type in the schema language shared by the schema-driven codecs (Protobuf, Avro, Thrift, XML).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Type {
    /// Only null was ever seen.
    Null,
    Bool,
    /// An integer of `bits` (8, 16, 32 or 64) width, signed or not.
    Int {
        bits: u8,
        signed: bool,
    },
    /// A float of `bits` (32 or 64) width.
    Float {
        bits: u8,
    },
    String,
    Bytes,
    /// Repeated values of one type.
    Array {
        items: Box<Type>,
    },
    /// A record (struct) with ordered named fields.
    Record {
        name: String,
        fields: Vec<Field>,
    },
    /// No single type fits (e.g. an array mixing strings and maps).
    Any,
}

/// One named field of a record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// The field's type.
    #[serde(rename = "of")]
    pub ty: Type,
    /// May be absent or null.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
    /// A field read from a .proto file: its number and declared type, so that the Protobuf
    /// codec writes exactly that wire form (absent: numbers 1..n in order, the codec's forms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proto: Option<ProtoField>,
    /// An optional field read from a two-branch union with null (Avro `["null", T]` or
    /// `[T, "null"]`): the position of the null branch, 0 or 1, so that every codec path writes
    /// the branch indexes the schema says (absent: null first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub null_branch: Option<u8>,
}

impl crate::value::Named for Field {
    #[inline]
    fn name(&self) -> &str {
        &self.name
    }
}

/// A field's number and declared scalar type in a .proto file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProtoField {
    pub number: u32,
    /// `int32`, `sint64`, `fixed32`, `enum`, `string`, `message`, …
    pub kind: String,
    /// Implicit presence (a proto3 field without `optional`, a repeated or map field): the
    /// field may be absent, and absence reads back as its type's default (0, false, "", []).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub implicit: bool,
    /// A repeated scalar written as one tagged value per element (proto2's default, or
    /// `[packed = false]`) instead of one packed, length-delimited field.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unpacked: bool,
}

impl Field {
    /// The value an absent field reads back as under implicit presence (proto3: 0, false, "",
    /// empty bytes or list), for codecs that must write every field; `None` when the field has
    /// explicit presence, is required, or its type has no such default (a record).
    pub fn implicit_default(&self) -> Option<crate::value::Value> {
        use crate::value::Value;
        if !self.proto.as_ref().is_some_and(|p| p.implicit) {
            return None;
        }
        Some(match &self.ty {
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

    /// Whether a value may leave this field out: an optional field, or one with implicit
    /// presence (absent reads back as the default).
    pub fn may_be_absent(&self) -> bool {
        self.optional || self.proto.as_ref().is_some_and(|p| p.implicit)
    }
}

/// A schema read from a .proto file, as the protobuf compiler produced it: the serialized
/// `FileDescriptorSet` (the file and its imports) and the full name of the root message. The
/// Protobuf codec encodes and decodes through it (protoc's bytes, the proto3 JSON mapping);
/// the other codecs use [`Schema::root`], derived from it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProtoDescriptor {
    pub file_descriptor_set: std::sync::Arc<Vec<u8>>,
    pub message: String,
    /// Why the descriptor has no flat model (a recursive message, a map field, …), as a
    /// one-line `file:line: …` error: codecs other than Protobuf refuse the schema with it.
    pub model_error: Option<String>,
}

/// A schema: the root type and where it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Schema {
    /// `wirebench-schema/1`.
    #[serde(rename = "$schema", default = "schema_tag")]
    pub tag: String,
    /// The type of a whole value.
    pub root: Type,
    /// The schema file as its own protocol reads it (an .avsc's JSON, an IDL file with its
    /// includes), for that protocol's codecs: they encode what the file says, including what
    /// `root` cannot express. Absent for inferred and wirebench schemas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<NativeSchema>,
    /// The protobuf compiler's descriptor, for a schema read from a .proto file (not written
    /// with the schema: it is read again from the file).
    #[serde(skip)]
    #[schemars(skip)]
    pub proto: Option<ProtoDescriptor>,
}

/// A schema file's own text, kept for the codecs of its protocol.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NativeSchema {
    /// `avro` (the .avsc JSON) or `idl` (OMG IDL, every `#include` inlined).
    pub format: String,
    /// The file name, for errors.
    pub file: String,
    /// The schema text.
    pub text: String,
    /// The full name of the root type (`ns.Record`, `pkg::msg::Imu`).
    pub root: String,
    /// Why `root` cannot stand for this schema (one line naming the file and the construct),
    /// e.g. an Avro enum: codecs of other protocols refuse the schema with this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmapped: Option<String>,
}

impl NativeSchema {
    /// Whether the codec of this id reads the native schema (`avro`; `cdr-xcdr1`/`cdr-xcdr2`
    /// for IDL).
    pub fn read_by(&self, codec: &str) -> bool {
        match self.format.as_str() {
            "avro" => codec == "avro",
            "idl" => codec == "cdr-xcdr1" || codec == "cdr-xcdr2",
            _ => false,
        }
    }
}

fn schema_tag() -> String {
    "wirebench-schema/1".into()
}

/// A value that does not fit a schema: the path where, and what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("value does not fit the schema at {path}: expected {expected}, found {found}")]
pub struct SchemaMismatch {
    pub path: String,
    pub expected: String,
    pub found: String,
}

/// A .proto field name as the proto3 JSON mapping writes it (`battery_level` →
/// `batteryLevel`).
pub fn lower_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut up = false;
    for ch in name.chars() {
        if ch == '_' {
            up = true;
        } else if up {
            out.extend(ch.to_uppercase());
            up = false;
        } else {
            out.push(ch);
        }
    }
    out
}

impl Schema {
    /// `v` with every key a proto3 JSON printer wrote in lowerCamelCase (`batteryLevel`) as
    /// its field's .proto name (`battery_level`), for the codecs that read the shared model;
    /// `None` when no key needs it (or the schema is not from a .proto file).
    pub fn with_proto_names(&self, v: &crate::value::Value) -> Option<crate::value::Value> {
        use crate::value::Value;
        fn walk(t: &Type, v: &Value) -> Option<Value> {
            match (t, v) {
                (Type::Record { fields, .. }, Value::Map(pairs)) => {
                    let mut changed = false;
                    let out: Vec<(String, Value)> = pairs
                        .iter()
                        .map(|(k, x)| {
                            let f = fields
                                .iter()
                                .find(|f| f.name == *k)
                                .or_else(|| fields.iter().find(|f| f.proto.is_some() && lower_camel(&f.name) == *k));
                            let Some(f) = f else { return (k.clone(), x.clone()) };
                            changed |= f.name != *k;
                            match walk(&f.ty, x) {
                                Some(y) => {
                                    changed = true;
                                    (f.name.clone(), y)
                                }
                                None => (f.name.clone(), x.clone()),
                            }
                        })
                        .collect();
                    changed.then_some(Value::Map(out))
                }
                (Type::Array { items }, Value::Array(xs)) => {
                    let each: Vec<Option<Value>> = xs.iter().map(|x| walk(items, x)).collect();
                    each.iter().any(Option::is_some).then(|| {
                        Value::Array(each.into_iter().zip(xs).map(|(y, x)| y.unwrap_or_else(|| x.clone())).collect())
                    })
                }
                _ => None,
            }
        }
        self.proto.as_ref()?;
        walk(&self.root, v)
    }

    /// This schema with every float64 as float32, and the paths of the fields that changed
    /// (`temp`, `pos.lat`, `data[]`): the tightening `recommend` suggests when nothing fits.
    pub fn with_float32(&self) -> (Schema, Vec<String>) {
        fn walk(t: &Type, path: &str, changed: &mut Vec<String>) -> Type {
            match t {
                Type::Float { bits: 64 } => {
                    changed.push(if path.is_empty() { "$".into() } else { path.to_string() });
                    Type::Float { bits: 32 }
                }
                Type::Array { items } => Type::Array { items: Box::new(walk(items, &format!("{path}[]"), changed)) },
                Type::Record { name, fields } => Type::Record {
                    name: name.clone(),
                    fields: fields
                        .iter()
                        .map(|f| {
                            let p = if path.is_empty() { f.name.clone() } else { format!("{path}.{}", f.name) };
                            Field { ty: walk(&f.ty, &p, changed), ..f.clone() }
                        })
                        .collect(),
                },
                other => other.clone(),
            }
        }
        let mut changed = Vec::new();
        let root = walk(&self.root, "", &mut changed);
        // The native schema no longer describes the changed root: dropped when a field changed;
        // the descriptor says the widths of the .proto: a tightened schema has none.
        let native = if changed.is_empty() { self.native.clone() } else { None };
        (Schema { tag: self.tag.clone(), root, native, proto: None }, changed)
    }
}

impl Type {
    /// A short human name (`uint32`, `float64`, `array<string>`, `record Root`).
    pub fn describe(&self) -> String {
        match self {
            Type::Null => "null".into(),
            Type::Bool => "bool".into(),
            Type::Int { bits, signed: true } => format!("int{bits}"),
            Type::Int { bits, signed: false } => format!("uint{bits}"),
            Type::Float { bits } => format!("float{bits}"),
            Type::String => "string".into(),
            Type::Bytes => "bytes".into(),
            Type::Array { items } => format!("array<{}>", items.describe()),
            Type::Record { name, .. } => format!("record {name}"),
            Type::Any => "any".into(),
        }
    }

    fn of_value(v: &Value, name: &str) -> Type {
        match v {
            Value::Null => Type::Null,
            Value::Bool(_) => Type::Bool,
            Value::UInt(u) => Type::Int { bits: if *u <= u32::MAX as u64 { 32 } else { 64 }, signed: false },
            Value::Int(i) => Type::Int { bits: if i32::try_from(*i).is_ok() { 32 } else { 64 }, signed: true },
            Value::F32(_) => Type::Float { bits: 32 },
            Value::F64(_) => Type::Float { bits: 64 },
            Value::String(_) => Type::String,
            Value::Bytes(_) => Type::Bytes,
            Value::Array(items) => {
                let mut t: Option<Type> = None;
                for it in items {
                    let ti = Type::of_value(it, &singular(name));
                    t = Some(match t {
                        None => ti,
                        Some(prev) => merge(prev, ti, &mut false),
                    });
                }
                Type::Array { items: Box::new(t.unwrap_or(Type::Null)) }
            }
            Value::Map(pairs) => Type::Record {
                name: record_name(name),
                fields: pairs
                    .iter()
                    .map(|(k, v)| {
                        let ty = Type::of_value(v, k);
                        Field { name: k.clone(), optional: ty == Type::Null, ty, proto: None, null_branch: None }
                    })
                    .collect(),
            },
        }
    }
}

fn singular(name: &str) -> String {
    name.strip_suffix('s').filter(|s| !s.is_empty()).unwrap_or(name).to_string()
}

fn record_name(key: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in key.chars() {
        if c.is_ascii_alphanumeric() {
            if up {
                out.extend(c.to_uppercase());
            } else {
                out.push(c);
            }
            up = false;
        } else {
            up = true;
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'R');
    }
    out
}

/// Merge two observed types into one that holds both. `nullable` is set when one side was null.
fn merge(a: Type, b: Type, nullable: &mut bool) -> Type {
    use Type::*;
    match (a, b) {
        (x, y) if x == y => x,
        (Null, t) | (t, Null) => {
            *nullable = true;
            t
        }
        (Any, _) | (_, Any) => Any,
        (Int { bits: b1, signed: s1 }, Int { bits: b2, signed: s2 }) => {
            if s1 == s2 {
                Int { bits: b1.max(b2), signed: s1 }
            } else {
                // Mixing signs: a signed type wide enough for the unsigned side.
                let ubits = if s1 { b2 } else { b1 };
                let sbits = if s1 { b1 } else { b2 };
                Int { bits: if ubits >= 32 { 64 } else { sbits.max(ubits * 2) }, signed: true }
            }
        }
        (Float { bits: x }, Float { bits: y }) => Float { bits: x.max(y) },
        (Int { .. }, Float { .. }) | (Float { .. }, Int { .. }) => Float { bits: 64 },
        (Array { items: x }, Array { items: y }) => Array { items: Box::new(merge(*x, *y, &mut false)) },
        (Record { name, fields: fa }, Record { fields: fb, .. }) => {
            let mut fields: Vec<Field> = Vec::with_capacity(fa.len().max(fb.len()));
            for f in fa {
                match fb.iter().find(|g| g.name == f.name) {
                    Some(g) => {
                        let mut null = false;
                        let ty = merge(f.ty, g.ty.clone(), &mut null);
                        fields.push(Field {
                            name: f.name,
                            optional: f.optional || g.optional || null || ty == Null,
                            ty,
                            proto: f.proto,
                            null_branch: f.null_branch,
                        });
                    }
                    None => fields.push(Field { optional: true, ..f }),
                }
            }
            for g in fb {
                if !fields.iter().any(|f| f.name == g.name) {
                    fields.push(Field { optional: true, ..g });
                }
            }
            Record { name, fields }
        }
        _ => Any,
    }
}

impl Schema {
    /// Infer a schema from one or more samples (merging what each shows).
    /// How deep records and arrays nest (a root record has depth 1, a scalar 0). The codecs
    /// refuse a schema deeper than the nesting limit ([`crate::value::max_depth`]).
    pub fn depth(&self) -> usize {
        fn depth(t: &Type) -> usize {
            match t {
                Type::Array { items } => 1 + depth(items),
                Type::Record { fields, .. } => 1 + fields.iter().map(|f| depth(&f.ty)).max().unwrap_or(0),
                _ => 0,
            }
        }
        depth(&self.root)
    }

    pub fn infer<'a>(samples: impl IntoIterator<Item = &'a Value>) -> Schema {
        let mut inf = Inferrer::default();
        for s in samples {
            inf.add(s);
        }
        inf.finish()
    }

    pub fn from_json_str(text: &str) -> Result<Schema, serde_json::Error> {
        serde_json::from_str(text)
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("schema serializes")
    }

    /// Check that `value` fits this schema; the error names the path of the first mismatch.
    /// Whether `value` fits (no allocation when it does: the path of a mismatch is built
    /// only for the error).
    pub fn check(&self, value: &Value) -> Result<(), SchemaMismatch> {
        check(&self.root, value).map_err(|m| {
            let mut path = String::from("$");
            for seg in m.segs.iter().rev() {
                match seg {
                    Seg::Key(k) => {
                        path.push('.');
                        path.push_str(k);
                    }
                    Seg::Index(i) => path.push_str(&format!("[{i}]")),
                }
            }
            SchemaMismatch { path, expected: m.expected, found: m.found }
        })
    }
}

/// Streaming inference: add samples one by one, memory independent of the sample count.
#[derive(Default)]
pub struct Inferrer {
    root: Option<Type>,
}

impl Inferrer {
    pub fn add(&mut self, v: &Value) {
        let t = Type::of_value(v, "root");
        self.root = Some(match self.root.take() {
            None => t,
            Some(prev) => merge(prev, t, &mut false),
        });
    }

    pub fn finish(self) -> Schema {
        Schema { tag: schema_tag(), root: self.root.unwrap_or(Type::Null), native: None, proto: None }
    }
}

/// One step of the path to a mismatch.
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// A mismatch with its path (innermost step first, added while the error travels up).
struct Miss<'a> {
    segs: Vec<Seg<'a>>,
    expected: String,
    found: String,
}

impl<'a> Miss<'a> {
    fn new(expected: String, found: String) -> Miss<'a> {
        Miss { segs: Vec::new(), expected, found }
    }
    fn at(mut self, seg: Seg<'a>) -> Miss<'a> {
        self.segs.push(seg);
        self
    }
}

fn check<'a>(t: &'a Type, v: &'a Value) -> Result<(), Miss<'a>> {
    match (t, v) {
        (Type::Any, _) | (Type::Null, Value::Null) | (Type::Bool, Value::Bool(_)) => Ok(()),
        (Type::Int { bits, signed }, _) if v.as_i128().is_some() => {
            let n = v.as_i128().unwrap();
            let (lo, hi) = int_range(*bits, *signed);
            if n < lo || n > hi {
                Err(Miss::new(t.describe(), format!("integer {n} out of range")))
            } else {
                Ok(())
            }
        }
        (Type::Float { .. }, _) if v.as_float().is_some() || v.as_i128().is_some() => Ok(()),
        (Type::String, Value::String(_)) | (Type::Bytes, Value::Bytes(_)) => Ok(()),
        (Type::Array { items }, Value::Array(vs)) => {
            for (i, it) in vs.iter().enumerate() {
                check(items, it).map_err(|m| m.at(Seg::Index(i)))?;
            }
            Ok(())
        }
        (Type::Record { fields, .. }, Value::Map(pairs)) => {
            // Linear in the fields when the pairs come in schema order (crate::value::Lookup).
            let mut known = crate::value::Lookup::new(fields);
            for (k, _) in pairs {
                if known.get(k).is_none() {
                    return Err(
                        Miss::new("no such field".into(), "a field the schema does not have".into()).at(Seg::Key(k))
                    );
                }
            }
            let mut given = crate::value::pairs_lookup(pairs);
            for f in fields {
                match given.get(&f.name) {
                    None | Some((_, Value::Null)) if f.optional => {}
                    None if f.may_be_absent() => {}
                    None => return Err(Miss::new(f.ty.describe(), "missing field".into()).at(Seg::Key(&f.name))),
                    Some((_, fv)) => check(&f.ty, fv).map_err(|m| m.at(Seg::Key(&f.name)))?,
                }
            }
            Ok(())
        }
        _ => Err(Miss::new(t.describe(), v.kind().to_string())),
    }
}

/// The inclusive range of an integer type.
pub fn int_range(bits: u8, signed: bool) -> (i128, i128) {
    let bits = bits.clamp(1, 64) as u32;
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(s: &str) -> Value {
        Value::from_json_str(s).unwrap()
    }

    #[test]
    fn infers_widths_optional_and_nesting() {
        let a = j(r#"{"id":1,"t":-3,"v":[1.5,2.3],"pos":{"lat":1.0},"tag":"x"}"#);
        let b = j(r#"{"id":5000000000,"t":-4,"v":[],"pos":{"lat":2.5,"alt":3},"tag":null}"#);
        let s = Schema::infer([&a, &b]);
        let Type::Record { fields, .. } = &s.root else { panic!("{s:?}") };
        let by = |n: &str| fields.iter().find(|f| f.name == n).unwrap();
        assert_eq!(by("id").ty, Type::Int { bits: 64, signed: false });
        assert_eq!(by("t").ty, Type::Int { bits: 32, signed: true });
        assert_eq!(by("v").ty, Type::Array { items: Box::new(Type::Float { bits: 64 }) });
        assert!(by("tag").optional && by("tag").ty == Type::String);
        let Type::Record { name, fields: pf } = &by("pos").ty else { panic!() };
        assert_eq!(name, "Pos");
        assert_eq!(pf[0].ty, Type::Float { bits: 64 });
        assert!(pf[1].optional && pf[1].name == "alt");
        assert!(s.check(&a).is_ok() && s.check(&b).is_ok());
        // Round trip through JSON.
        assert_eq!(Schema::from_json_str(&s.to_json_pretty()).unwrap(), s);
    }

    #[test]
    fn mismatch_names_the_path() {
        let s = Schema::infer([&j(r#"{"a":{"b":[1,2]}}"#)]);
        let e = s.check(&j(r#"{"a":{"b":[1,"x"]}}"#)).unwrap_err();
        assert_eq!(e.path, "$.a.b[1]");
        assert_eq!(e.to_string(), "value does not fit the schema at $.a.b[1]: expected uint32, found string");
        let e = s.check(&j(r#"{"a":{"b":[1,-1]}}"#)).unwrap_err();
        assert!(e.found.contains("out of range"), "{e}");
        assert_eq!(s.check(&j(r#"{"a":{}}"#)).unwrap_err().found, "missing field");
        assert_eq!(s.check(&j(r#"{"a":{"b":[]},"z":1}"#)).unwrap_err().path, "$.z");
    }

    #[test]
    fn mixed_arrays_become_any_and_sign_mix_widens() {
        let s = Schema::infer([&j(r#"[1,"a"]"#)]);
        assert_eq!(s.root, Type::Array { items: Box::new(Type::Any) });
        let s = Schema::infer([&j("[1,-1]")]);
        assert_eq!(s.root, Type::Array { items: Box::new(Type::Int { bits: 64, signed: true }) });
        let s = Schema::infer([&j("[1,2.5]")]);
        assert_eq!(s.root, Type::Array { items: Box::new(Type::Float { bits: 64 }) });
    }
}
