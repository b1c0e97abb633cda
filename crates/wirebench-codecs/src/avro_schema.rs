//! `.avsc` files read by apache-avro's own schema parser, into the shared schema model (for
//! every codec) with the file kept as the native schema (for the Avro codec, which then writes
//! exactly what the file says: see `avro_native`).
//!
//! Into the shared model: records, arrays, primitives, `fixed` (bytes), `date`/`time-millis`
//! (int32), the other time logical types (int64), `uuid` (string), and two-branch unions with
//! null in either order (an optional field that keeps where the null branch is). Enums, maps,
//! other unions, recursion, `decimal` and `duration` have no place there: the Avro codec reads
//! them, the other codecs refuse the schema with one line naming the file, line and construct.

use std::collections::HashMap;

use apache_avro::Schema as AvroSchema;
use serde_json::Value as J;
use wirebench_core::{Field, NativeSchema, Schema, Type};

use crate::avro_native::NativeAvro;

/// Read an .avsc (`text`, already parsed as JSON in `json`) from the file `file`. `--type`
/// names a named type (full or short name); else the file's schema, or the last of a list.
pub(crate) fn read(file: &str, text: &str, json: &J, type_name: Option<&str>) -> Result<Schema, String> {
    if let Some(at) = fixed_uuid(json, text) {
        return Err(format!("{file}:{at}: a uuid on fixed is not supported (only a uuid on string)"));
    }
    let parsed = NativeAvro::parse(text, "").map_err(|m| format!("{file}: {m}"))?;
    let names = parsed.names();
    let mut known: Vec<&str> = names.keys().map(String::as_str).collect();
    known.sort_unstable();
    let root_name = match type_name {
        Some(n) => {
            let full = known
                .iter()
                .copied()
                .find(|k| *k == n || k.rsplit('.').next() == Some(n))
                .ok_or_else(|| format!("{file}: {}", wirebench_core::names::unknown("type", n, &known)))?;
            full.to_string()
        }
        None => match parsed.root() {
            // A list of schemas: the last is the root.
            AvroSchema::Union(u) => match u.variants().last() {
                Some(AvroSchema::Ref { name }) => name.fullname(None),
                Some(s) => s.name().map(|n| n.fullname(None)).unwrap_or_default(),
                None => return Err(format!("{file}: an empty list is not an Avro schema")),
            },
            _ => String::new(),
        },
    };
    let native = NativeAvro::parse(text, &root_name).map_err(|m| format!("{file}: {m}"))?;
    let mut ctx = Ctx { names: native.names(), stack: Vec::new(), unmapped: None, types: 0, limit: None };
    let root = ctx.map(native.root(), "$");
    if let Some(m) = ctx.limit {
        return Err(format!("{file}: {m}"));
    }
    let unmapped = ctx.unmapped.map(|(what, needle)| format!("{file}:{}: {what}", line_of(text, &needle)));
    let native = NativeSchema {
        format: "avro".into(),
        file: file.to_string(),
        text: text.to_string(),
        root: root_name,
        unmapped,
    };
    Ok(Schema { tag: "wirebench-schema/1".into(), root, native: Some(native), proto: None })
}

struct Ctx<'a> {
    names: &'a HashMap<String, AvroSchema>,
    /// Full names of the records being mapped (a reference to one of them is recursion).
    stack: Vec<String>,
    /// The first construct with no mapping: the message, and a name to find its line by.
    unmapped: Option<(String, String)>,
    /// Types built so far: at most [`wirebench_core::value::MAX_SCHEMA_TYPES`].
    types: usize,
    /// The limit the schema went past (it is refused); mapping stops there.
    limit: Option<String>,
}

impl Ctx<'_> {
    /// Note a construct the model cannot express (the first one is reported) and stand in `any`.
    fn refuse(&mut self, what: String, needle: &str) -> Type {
        if self.unmapped.is_none() {
            let msg = format!("{what} has no mapping in the wirebench schema (only -f avro reads this schema)");
            self.unmapped = Some((msg, needle.to_string()));
        }
        Type::Any
    }

    fn map(&mut self, s: &AvroSchema, path: &str) -> Type {
        use wirebench_core::value::{max_depth, schema_too_deep, schema_too_large, MAX_SCHEMA_TYPES};
        use AvroSchema as S;
        if self.limit.is_some() {
            return Type::Any;
        }
        self.types += 1;
        if self.types > MAX_SCHEMA_TYPES {
            self.limit = Some(schema_too_large(MAX_SCHEMA_TYPES));
            return Type::Any;
        }
        if self.stack.len() >= max_depth() {
            let name = s.name().map_or_else(|| path.to_string(), |n| n.fullname(None));
            self.limit = Some(schema_too_deep(max_depth(), &name));
            return Type::Any;
        }
        let needle = path.rsplit(['.', '[']).next().unwrap_or("").trim_end_matches(']').to_string();
        match s {
            S::Null => Type::Null,
            S::Boolean => Type::Bool,
            S::Int | S::Date | S::TimeMillis => Type::Int { bits: 32, signed: true },
            S::Long
            | S::TimeMicros
            | S::TimestampMillis
            | S::TimestampMicros
            | S::TimestampNanos
            | S::LocalTimestampMillis
            | S::LocalTimestampMicros
            | S::LocalTimestampNanos => Type::Int { bits: 64, signed: true },
            S::Float => Type::Float { bits: 32 },
            S::Double => Type::Float { bits: 64 },
            S::Bytes | S::Fixed(_) => Type::Bytes,
            S::String | S::Uuid => Type::String,
            S::Array(a) => Type::Array { items: Box::new(self.map(&a.items, &format!("{path}[]"))) },
            S::Ref { name } => {
                let full = name.fullname(None);
                if self.stack.contains(&full) {
                    return self
                        .refuse(format!("Avro record {full} contains itself at {path} (recursion)"), &name.name);
                }
                let names = self.names;
                match names.get(&full) {
                    Some(t) => self.map(t, path),
                    None => self.refuse(format!("Avro type {full} at {path} is not defined"), &name.name),
                }
            }
            S::Record(r) => {
                let full = r.name.fullname(None);
                self.stack.push(full);
                let mut fields = Vec::with_capacity(r.fields.len());
                for f in &r.fields {
                    let fpath = format!("{path}.{}", f.name);
                    let (ty, null_branch) = match &f.schema {
                        S::Union(u) if u.variants().len() == 2 => {
                            match u.variants().iter().position(|b| matches!(b, S::Null)) {
                                Some(i) => (self.map(&u.variants()[1 - i], &fpath), Some(i as u8)),
                                None => (self.map(&f.schema, &fpath), None),
                            }
                        }
                        other => (self.map(other, &fpath), None),
                    };
                    fields.push(Field {
                        name: f.name.clone(),
                        ty,
                        optional: null_branch.is_some(),
                        proto: None,
                        null_branch,
                    });
                }
                self.stack.pop();
                Type::Record { name: r.name.name.clone(), fields }
            }
            S::Enum(e) => self.refuse(format!("Avro enum {} at {path}", e.name.fullname(None)), &e.name.name),
            S::Map(_) => self.refuse(format!("Avro map at {path}"), &needle),
            S::Union(u) => {
                let branches: Vec<&str> = u.variants().iter().map(crate::avro_native::kind).collect();
                self.refuse(format!("Avro union [{}] at {path}", branches.join(", ")), &needle)
            }
            S::Decimal(_) | S::BigDecimal | S::Duration => {
                self.refuse(format!("Avro {} at {path}", crate::avro_native::kind(s)), &needle)
            }
        }
    }
}

/// The line of the first `"name": "<needle>"` in the text (1 when not found).
fn line_of(text: &str, needle: &str) -> usize {
    if needle.is_empty() || needle == "$" {
        return 1;
    }
    let quoted = format!("\"{needle}\"");
    let mut after_name = false;
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(p) = rest.find('"') {
            let tail = &rest[p..];
            if let Some(after) = tail.strip_prefix("\"name\"") {
                after_name = true;
                rest = after;
            } else if after_name && tail.starts_with(&quoted) {
                return i + 1;
            } else {
                after_name = false;
                rest = &tail[1..];
                rest = rest.find('"').map_or("", |q| &rest[q + 1..]);
            }
        }
    }
    1
}

/// The line of a `fixed` with logical type uuid, which apache-avro reads as a string uuid.
fn fixed_uuid(json: &J, text: &str) -> Option<usize> {
    match json {
        J::Object(m) => {
            if m.get("type").and_then(J::as_str) == Some("fixed")
                && m.get("logicalType").and_then(J::as_str) == Some("uuid")
            {
                return Some(m.get("name").and_then(J::as_str).map_or(1, |n| line_of(text, n)));
            }
            m.values().find_map(|v| fixed_uuid(v, text))
        }
        J::Array(items) => items.iter().find_map(|v| fixed_uuid(v, text)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str, type_name: Option<&str>) -> Result<Schema, String> {
        read("s.avsc", text, &serde_json::from_str(text).unwrap(), type_name)
    }

    #[test]
    fn unions_keep_where_null_is() {
        let s = read_str(
            r#"{"type":"record","name":"R","fields":[
  {"name":"a","type":["double","null"]},
  {"name":"b","type":["null","string"]},
  {"name":"c","type":{"type":"long","logicalType":"timestamp-millis"}}]}"#,
            None,
        )
        .unwrap();
        let Type::Record { fields, .. } = &s.root else { panic!() };
        assert_eq!(
            (fields[0].optional, fields[0].null_branch, &fields[0].ty),
            (true, Some(1), &Type::Float { bits: 64 })
        );
        assert_eq!((fields[1].optional, fields[1].null_branch, &fields[1].ty), (true, Some(0), &Type::String));
        assert_eq!(fields[2].ty, Type::Int { bits: 64, signed: true });
        assert!(s.native.as_ref().unwrap().unmapped.is_none());
    }

    #[test]
    fn what_the_model_cannot_say_is_named_with_its_line() {
        let text = r#"{"type":"record","name":"R","fields":[
  {"name":"a","type":"int"},
  {"name":"tags","type":{"type":"map","values":"long"}}]}"#;
        let s = read_str(text, None).unwrap();
        assert_eq!(
            s.native.unwrap().unmapped.unwrap(),
            "s.avsc:3: Avro map at $.tags has no mapping in the wirebench schema (only -f avro reads this schema)"
        );
        let text = r#"{"type":"record","name":"Node","namespace":"n","fields":[
  {"name":"v","type":"int"},
  {"name":"next","type":["null","Node"]}]}"#;
        let s = read_str(text, None).unwrap();
        let why = s.native.unwrap().unmapped.unwrap();
        assert!(why.starts_with("s.avsc:1: Avro record n.Node contains itself at $.next"), "{why}");
        let text = "[{\"type\":\"enum\",\"name\":\"Color\",\"symbols\":[\"R\",\"G\"]},\n{\"type\":\"record\",\"name\":\"P\",\"fields\":[{\"name\":\"c\",\"type\":\"Color\"}]}]";
        let s = read_str(text, None).unwrap();
        assert_eq!(s.native.as_ref().unwrap().root, "P");
        assert!(s.native.unwrap().unmapped.unwrap().starts_with("s.avsc:1: Avro enum Color at $.c"));
        assert!(read_str(text, Some("Nope")).unwrap_err().starts_with("s.avsc: "));
        assert!(read_str(r#"{"type":"record","name":"R","fields":[{"name":"a","type":"Missing"}]}"#, None)
            .unwrap_err()
            .starts_with("s.avsc: not an Avro schema"));
    }
}
