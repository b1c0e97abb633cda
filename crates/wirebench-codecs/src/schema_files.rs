//! Schemas as users have them, read into the one schema that drives every schema-directed
//! codec: wirebench JSON schemas, Protocol Buffers `.proto` files, Avro `.avsc` files and
//! OMG IDL `.idl` files. `--type NAME` picks the message / record / struct when the file has
//! several. The mapping (docs/schemas.md):
//!
//! | .proto                         | .avsc                    | .idl                          | schema            |
//! |--------------------------------|--------------------------|-------------------------------|-------------------|
//! | `bool`                         | `boolean`                | `boolean`                     | bool              |
//! | `int32`, `sint32`, `sfixed32`  | `int`                    | `long`, `short`, `int8..32`   | int32 (int8/16)   |
//! | `int64`, `sint64`, `sfixed64`  | `long`                   | `long long`, `int64`          | int64             |
//! | `uint32`, `fixed32`            |                          | `unsigned long`, `uint8..32`  | uint32 (8/16)     |
//! | `uint64`, `fixed64`            |                          | `unsigned long long`          | uint64            |
//! | `float` / `double`             | `float` / `double`       | `float` / `double`            | float32 / float64 |
//! | `string` / `bytes`             | `string` / `bytes`       | `string` / `sequence<octet>`  | string / bytes    |
//! | `enum`                         |                          | `enum`                        | int32             |
//! | `repeated T`                   | `array`                  | `sequence<T>`, `T x[N]`       | array             |
//! | message                        | record                   | struct                        | record            |
//! | `optional`, `oneof` members    | union `["null", T]`      | `@optional`                   | optional field    |
//!
//! A .proto file is compiled by `protox` with its imports ([`crate::proto_schema`]: proto3
//! implicit presence, well-known types); a field keeps its number and declared type, and the
//! Protobuf codec encodes through the compiler's descriptor. Avro enums/fixed/maps/other unions and IDL unions have no mapping and
//! are refused with their position. (The CDR codecs read .idl files directly, with every IDL
//! feature: `encode -f cdr-xcdr2 --schema X.idl`.)

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value as J;
use wirebench_core::{Field, Schema, Type};

/// Read a schema file by its extension (`.proto`, `.avsc`, `.idl`, else a wirebench JSON
/// schema, or Avro when the JSON is an Avro schema). Errors are one line naming the file and,
/// where known, the line and column.
pub fn read_schema_file(path: &Path, type_name: Option<&str>) -> Result<Schema, String> {
    read_schema_file_with(path, type_name, &[])
}

/// [`read_schema_file`] with the include paths of a .proto file's imports (`-I DIR`, searched
/// before the file's own directory): .proto files are compiled by `protox`, see
/// [`crate::proto_schema`].
pub fn read_schema_file_with(path: &Path, type_name: Option<&str>, proto_path: &[PathBuf]) -> Result<Schema, String> {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("proto")) {
        return crate::proto_schema::read_proto(path, type_name, proto_path);
    }
    let text = wirebench_core::corpus::read_text(path)?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let p = path.display();
    let root = match ext.as_str() {
        "idl" => idl(&text, type_name).map_err(|(l, c, m)| format!("{p}:{l}:{c}: {m}"))?,
        _ => {
            let json: J = serde_json::from_str(&text).map_err(|e| {
                let m = e.to_string();
                format!("{p}:{}:{}: {}", e.line(), e.column(), m.split(" at line ").next().unwrap_or(&m))
            })?;
            let avro = ext == "avsc" || (json.get("root").is_none() && json.get("$schema").is_none());
            if avro {
                avsc(&json, type_name).map_err(|m| format!("{p}: {m}"))?
            } else {
                if type_name.is_some() {
                    return Err(format!("{p}: --type applies to .proto, .avsc and .idl files (a wirebench schema has one root)"));
                }
                return Schema::from_json_str(&text)
                    .map_err(|e| format!("{p}:{}:{}: not a wirebench schema: {e}", e.line(), e.column()));
            }
        }
    };
    Ok(Schema { tag: "wirebench-schema/1".into(), root, proto: None })
}

fn pick<'a>(what: &str, name: Option<&str>, known: &[&'a str], default: Option<&'a str>) -> Result<&'a str, String> {
    match name {
        Some(n) => known
            .iter()
            .copied()
            .find(|k| *k == n || k.rsplit('.').next() == Some(n))
            .ok_or_else(|| wirebench_core::names::unknown(what, n, known)),
        None => default.ok_or_else(|| format!("several {what}s could be the root ({}): name one with --type", known.join(", "))),
    }
}

/// An error with its 1-based line and column.
type ProtoErr = (usize, usize, String);

// ---------------------------------------------------------------------------------------------
// .avsc

fn avsc(json: &J, type_name: Option<&str>) -> Result<Type, String> {
    let mut named: HashMap<String, Type> = HashMap::new();
    let mut records: Vec<String> = Vec::new();
    // A file may hold one schema or a union (list) of named schemas.
    let tops: Vec<&J> = match json {
        J::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let mut last = None;
    for t in &tops {
        last = Some(avro_type(t, "$", &mut named, &mut records, "")?);
    }
    match type_name {
        Some(n) => {
            let known: Vec<&str> = records.iter().map(String::as_str).collect();
            let full = pick("record", Some(n), &known, None)?;
            Ok(named[full].clone())
        }
        None => last.ok_or_else(|| "an empty list is not an Avro schema".to_string()),
    }
}

fn avro_type(j: &J, path: &str, named: &mut HashMap<String, Type>, records: &mut Vec<String>, ns: &str) -> Result<Type, String> {
    let prim = |s: &str| -> Option<Type> {
        Some(match s {
            "null" => Type::Null,
            "boolean" => Type::Bool,
            "int" => Type::Int { bits: 32, signed: true },
            "long" => Type::Int { bits: 64, signed: true },
            "float" => Type::Float { bits: 32 },
            "double" => Type::Float { bits: 64 },
            "bytes" => Type::Bytes,
            "string" => Type::String,
            _ => return None,
        })
    };
    match j {
        J::String(s) => prim(s)
            .or_else(|| named.get(s.as_str()).cloned())
            .or_else(|| named.get(&format!("{ns}.{s}")).cloned())
            .ok_or_else(|| format!("{path}: type {s:?} is not defined (before its use)")),
        J::Array(branches) => {
            let non_null: Vec<&J> = branches.iter().filter(|b| b.as_str() != Some("null")).collect();
            if branches.len() == 2 && non_null.len() == 1 {
                // Optional: the field-level flag carries it; see avro_field.
                avro_type(non_null[0], path, named, records, ns)
            } else {
                Err(format!("{path}: unions other than [\"null\", T] have no mapping in the wirebench schema"))
            }
        }
        J::Object(m) => {
            let ty = m.get("type").ok_or_else(|| format!("{path}: no \"type\""))?;
            match ty.as_str() {
                Some("record") | Some("error") => {
                    let name = m.get("name").and_then(J::as_str).ok_or_else(|| format!("{path}: a record needs a name"))?;
                    let ns = m.get("namespace").and_then(J::as_str).unwrap_or(ns);
                    let full = if name.contains('.') || ns.is_empty() { name.to_string() } else { format!("{ns}.{name}") };
                    let fields = m.get("fields").and_then(J::as_array).ok_or_else(|| format!("{path}: record {name} needs \"fields\""))?;
                    let mut out = Vec::with_capacity(fields.len());
                    for (i, f) in fields.iter().enumerate() {
                        let fname = f.get("name").and_then(J::as_str).ok_or_else(|| format!("{path}.{name}: field {i} has no name"))?;
                        let fpath = format!("{path}.{fname}");
                        let fty = f.get("type").ok_or_else(|| format!("{fpath}: no \"type\""))?;
                        let optional = matches!(fty, J::Array(b) if b.len() == 2 && b.iter().any(|x| x.as_str() == Some("null")));
                        let ty = avro_type(fty, &fpath, named, records, ns)?;
                        out.push(Field { name: fname.to_string(), ty, optional, proto: None });
                    }
                    let short = full.rsplit('.').next().unwrap_or(&full).to_string();
                    let t = Type::Record { name: short.clone(), fields: out };
                    named.insert(full.clone(), t.clone());
                    named.entry(short).or_insert_with(|| t.clone());
                    records.push(full);
                    Ok(t)
                }
                Some("array") => {
                    let items = m.get("items").ok_or_else(|| format!("{path}: an array needs \"items\""))?;
                    Ok(Type::Array { items: Box::new(avro_type(items, &format!("{path}[]"), named, records, ns)?) })
                }
                Some(kind @ ("enum" | "fixed" | "map")) => Err(format!("{path}: Avro {kind} has no mapping in the wirebench schema")),
                // A primitive with attributes, e.g. {"type":"long","logicalType":"timestamp-millis"}.
                _ => avro_type(ty, path, named, records, ns),
            }
        }
        other => Err(format!("{path}: {other} is not an Avro schema")),
    }
}

// ---------------------------------------------------------------------------------------------
// .idl

fn idl(text: &str, type_name: Option<&str>) -> Result<Type, ProtoErr> {
    use cdr::TypeDesc as T;
    let file = cdr::idl::parse(text).map_err(|e| (e.line as usize, e.column as usize, e.message))?;
    let ty = match type_name {
        Some(n) => {
            let known: Vec<&str> = file.types().map(|(n, _)| n).collect();
            file.get(n).ok_or_else(|| (1, 1, wirebench_core::names::unknown("type", n, &known)))?
        }
        None => file.root().ok_or((1, 1, "no struct to read (name one with --type)".to_string()))?,
    };
    fn map(t: &cdr::TypeDesc, path: &str) -> Result<Type, String> {
        Ok(match t {
            T::Bool => Type::Bool,
            T::Octet | T::UInt8 => Type::Int { bits: 8, signed: false },
            T::Char => Type::String,
            T::Int8 => Type::Int { bits: 8, signed: true },
            T::Int16 => Type::Int { bits: 16, signed: true },
            T::UInt16 => Type::Int { bits: 16, signed: false },
            T::Int32 => Type::Int { bits: 32, signed: true },
            T::UInt32 => Type::Int { bits: 32, signed: false },
            T::Int64 => Type::Int { bits: 64, signed: true },
            T::UInt64 => Type::Int { bits: 64, signed: false },
            T::Float32 => Type::Float { bits: 32 },
            T::Float64 => Type::Float { bits: 64 },
            T::String { .. } => Type::String,
            T::Enum(_) => Type::Int { bits: 32, signed: true },
            T::Sequence { elem, .. } if **elem == T::Octet => Type::Bytes,
            T::Sequence { elem, .. } => Type::Array { items: Box::new(map(elem, path)?) },
            T::Array { elem, dims } => {
                let mut inner = if **elem == T::Octet && dims.len() == 1 { return Ok(Type::Bytes) } else { map(elem, path)? };
                for _ in dims {
                    inner = Type::Array { items: Box::new(inner) };
                }
                inner
            }
            T::Struct(sd) => Type::Record {
                name: sd.name.clone(),
                fields: sd
                    .members
                    .iter()
                    .map(|m| {
                        Ok(Field { name: m.name.clone(), ty: map(&m.ty, &format!("{path}.{}", m.name))?, optional: m.optional, proto: None })
                    })
                    .collect::<Result<_, String>>()?,
            },
            T::Union(u) => return Err(format!("{path}: union {} has no mapping in the wirebench schema (the CDR codecs read it: -f cdr-xcdr2 --schema X.idl)", u.name)),
        })
    }
    map(ty, "$").map_err(|m| (1, 1, m))
}
