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
//! | `enum`                         | (Avro codec only)        | `enum`                        | int32             |
//! | `repeated T`                   | `array`                  | `sequence<T>`, `T x[N]`       | array             |
//! | message                        | record                   | struct                        | record            |
//! | `optional`, `oneof` members    | `["null", T]`, `[T, "null"]` | `@optional`               | optional field    |
//!
//! A .proto file is compiled by `protox` with its imports ([`crate::proto_schema`]: proto3
//! implicit presence, well-known types); a field keeps its number and declared type, and the
//! Protobuf codec encodes through the compiler's descriptor; IDL unions have no mapping and are
//! refused with their position for the other codecs. An
//! .avsc is read by apache-avro's parser and kept whole for the Avro codec, which writes every
//! Avro type (enums, maps, any union, recursion: see `avro_schema`); other codecs refuse what the
//! model cannot express, naming the file, line and construct. An .idl is read with its
//! `#include`s ([`read_idl`]: the including file's folder, then `-I` folders) and kept whole too:
//! the CDR codecs write the IDL's own type (fixed arrays stay fixed, unions, extensibility) in
//! every command, as `encode -f cdr-xcdr2 --schema X.idl` does.

use std::path::{Path, PathBuf};
use std::sync::RwLock;

use serde_json::Value as J;
use wirebench_core::{Field, Schema, Type};

/// Read a schema file by its extension (`.proto`, `.avsc`, `.idl`, else a wirebench JSON
/// schema, or Avro when the JSON is an Avro schema). Errors are one line naming the file and,
/// where known, the line and column.
pub fn read_schema_file(path: &Path, type_name: Option<&str>) -> Result<Schema, String> {
    read_schema_file_with(path, type_name, &[])
}

/// [`read_schema_file`] with the include paths of a .proto file's imports (`-I DIR`, searched
/// before the file's own directory; none given: the include path of [`set_include_dirs`]):
/// .proto files are compiled by `protox`, see [`crate::proto_schema`].
pub fn read_schema_file_with(path: &Path, type_name: Option<&str>, proto_path: &[PathBuf]) -> Result<Schema, String> {
    // An error may quote the file (a token, a name): its control bytes are written as escapes.
    read_any_schema_file(path, type_name, proto_path).map_err(|e| wirebench_core::names::escape_controls(&e, &[]))
}

fn read_any_schema_file(path: &Path, type_name: Option<&str>, proto_path: &[PathBuf]) -> Result<Schema, String> {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("proto")) {
        let dirs = if proto_path.is_empty() { include_dirs() } else { proto_path.to_vec() };
        return crate::proto_schema::read_proto(path, type_name, &dirs);
    }
    use wirebench_core::value::{schema_text_too_large, MAX_SCHEMA_BYTES};
    let p = path.display();
    if let Ok(m) = std::fs::metadata(path) {
        if m.len() > MAX_SCHEMA_BYTES as u64 {
            return Err(format!("{p}: {}", schema_text_too_large(m.len(), MAX_SCHEMA_BYTES)));
        }
    }
    let text = wirebench_core::corpus::read_text(path)?;
    if text.len() > MAX_SCHEMA_BYTES {
        return Err(format!("{p}: {}", schema_text_too_large(text.len() as u64, MAX_SCHEMA_BYTES)));
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if ext == "idl" {
        return idl_schema(path, &text, type_name);
    }
    let json: J = serde_json::from_str(&text).map_err(|e| {
        let m = e.to_string();
        format!("{p}:{}:{}: {}", e.line(), e.column(), m.split(" at line ").next().unwrap_or(&m))
    })?;
    let avro = ext == "avsc" || (json.get("root").is_none() && json.get("$schema").is_none());
    if avro {
        return crate::avro_schema::read(&p.to_string(), &text, &json, type_name);
    }
    if type_name.is_some() {
        return Err(format!("{p}: --type applies to .proto, .avsc and .idl files (a wirebench schema has one root)"));
    }
    Schema::from_json_str(&text).map_err(|e| format!("{p}:{}:{}: not a wirebench schema: {e}", e.line(), e.column()))
}

/// Where `#include`d IDL files are looked for after the including file's own folder (`-I DIR`).
static INCLUDE_DIRS: RwLock<Vec<PathBuf>> = RwLock::new(Vec::new());

/// Set the include path (`-I DIR`, repeatable) the schema readers search, for the process.
pub fn set_include_dirs(dirs: &[PathBuf]) {
    *INCLUDE_DIRS.write().unwrap_or_else(|e| e.into_inner()) = dirs.to_vec();
}

/// The include path set by [`set_include_dirs`].
pub fn include_dirs() -> Vec<PathBuf> {
    INCLUDE_DIRS.read().unwrap_or_else(|e| e.into_inner()).clone()
}

// ---------------------------------------------------------------------------------------------
// .avsc: read by apache-avro's parser, in crate::avro_schema.

// ---------------------------------------------------------------------------------------------
// .idl

/// An IDL file with its `#include`s: `#include "x.idl"` is looked for in the including file's
/// folder, then in the include path ([`set_include_dirs`]); `#include <x.idl>` in the include
/// path, then the including file's folder. Errors are one line, `file:line:column: message`.
pub fn read_idl(path: &Path, text: &str) -> Result<(cdr::idl::IdlFile, cdr::idl::Flattened), String> {
    use wirebench_core::value::{schema_text_too_large, MAX_SCHEMA_BYTES};
    let dirs = include_dirs();
    // The included files' text counts against the schema size limit with the file's own.
    let mut total = text.len() as u64;
    let mut load = |from: &str, spec: &str, angled: bool| -> Result<(String, String), String> {
        let here = Path::new(from).parent().map(Path::to_path_buf).unwrap_or_default();
        let mut order: Vec<PathBuf> = dirs.clone();
        if angled {
            order.push(here)
        } else {
            order.insert(0, here)
        }
        for d in &order {
            let cand = d.join(spec);
            if cand.is_file() {
                total += std::fs::metadata(&cand).map_or(0, |m| m.len());
                if total > MAX_SCHEMA_BYTES as u64 {
                    return Err(format!("{}: {}", cand.display(), schema_text_too_large(total, MAX_SCHEMA_BYTES)));
                }
                let text = wirebench_core::corpus::read_text(&cand)?;
                let name = std::fs::canonicalize(&cand).unwrap_or(cand);
                return Ok((name.display().to_string(), text));
            }
        }
        let searched: Vec<String> =
            order.iter().map(|d| if d.as_os_str().is_empty() { ".".into() } else { d.display().to_string() }).collect();
        Err(format!("cannot find included file {spec:?} (searched {}; add a folder with -I DIR)", searched.join(", ")))
    };
    let flat = cdr::idl::flatten(&path.display().to_string(), text, &mut load).map_err(|e| e.to_string())?;
    let file = flat.parse().map_err(|e| e.to_string())?;
    Ok((file, flat))
}

/// The IDL type `--type` names (scoped or not), else the last struct or union, with its scoped name.
pub fn idl_type<'f>(
    file: &'f cdr::idl::IdlFile,
    type_name: Option<&str>,
) -> Result<(String, &'f cdr::TypeDesc), String> {
    match type_name {
        Some(n) => {
            let ty = file.get(n).or_else(|| file.get(&n.replace('.', "::"))).ok_or_else(|| {
                let known: Vec<&str> = file.types().map(|(n, _)| n).collect();
                wirebench_core::names::unknown("type", n, &known)
            })?;
            let name = file.types().find(|(_, t)| std::ptr::eq(*t, ty)).map_or(n, |(k, _)| k);
            Ok((name.to_string(), ty))
        }
        None => {
            let ty = file.root().ok_or("no struct or union to read (name one with --type)")?;
            Ok((file.types().find(|(_, t)| std::ptr::eq(*t, ty)).map_or("", |(k, _)| k).to_string(), ty))
        }
    }
}

/// An .idl as a schema: the shared model of the type, and the file (includes inlined) for the
/// CDR codecs, which read it as IDL says (fixed arrays, bounds, unions, extensibility).
fn idl_schema(path: &Path, text: &str, type_name: Option<&str>) -> Result<Schema, String> {
    let p = path.display();
    let (file, flat) = read_idl(path, text)?;
    let (name, ty) = idl_type(&file, type_name).map_err(|m| format!("{p}: {m}"))?;
    let (root, unmapped) = match idl_map(ty) {
        Ok(t) => (t, None),
        Err(IdlUnmapped::Limit(m)) => return Err(format!("{p}: {m}")),
        Err(IdlUnmapped::Union(m, union)) => {
            // The line of the union's definition, in the file it is in.
            let short = union.rsplit("::").next().unwrap_or(&union).to_string();
            let at = flat.text.lines().position(|l| {
                l.split_whitespace().collect::<Vec<_>>().windows(2).any(|w| w == ["union", short.as_str()])
            });
            let (f, line) = at.map_or((p.to_string(), 1), |i| {
                let (f, l) = flat.origin(i as u32 + 1);
                (f.to_string(), l)
            });
            (Type::Any, Some(format!("{f}:{line}: {m}")))
        }
    };
    let native = wirebench_core::NativeSchema {
        format: "idl".into(),
        file: p.to_string(),
        text: flat.text,
        root: name,
        unmapped,
    };
    Ok(Schema { tag: "wirebench-schema/1".into(), root, native: Some(native), proto: None })
}

// The IDL parser's member limit is the schema size limit.
const _: () = assert!(cdr::idl::MAX_MEMBERS == wirebench_core::value::MAX_SCHEMA_TYPES);

/// Why an IDL type has no model: a union (the message and the union's name), or a limit.
enum IdlUnmapped {
    Union(String, String),
    Limit(String),
}

/// An IDL type in the shared model (unions have no place there), built no deeper than the
/// nesting limit and from at most [`wirebench_core::value::MAX_SCHEMA_TYPES`] types.
fn idl_map(ty: &cdr::TypeDesc) -> Result<Type, IdlUnmapped> {
    use cdr::TypeDesc as T;
    use wirebench_core::value::{max_depth, schema_too_deep, schema_too_large, MAX_SCHEMA_TYPES};
    fn map(t: &cdr::TypeDesc, path: &str, depth: usize, types: &mut usize) -> Result<Type, IdlUnmapped> {
        *types += 1;
        if *types > MAX_SCHEMA_TYPES {
            return Err(IdlUnmapped::Limit(schema_too_large(MAX_SCHEMA_TYPES)));
        }
        if depth > max_depth() {
            let name = match t {
                T::Struct(sd) => sd.name.clone(),
                _ => path.to_string(),
            };
            return Err(IdlUnmapped::Limit(schema_too_deep(max_depth(), &name)));
        }
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
            T::Sequence { elem, .. } => Type::Array { items: Box::new(map(elem, path, depth + 1, types)?) },
            T::Array { elem, dims } => {
                let mut inner = if **elem == T::Octet && dims.len() == 1 {
                    return Ok(Type::Bytes);
                } else {
                    map(elem, path, depth + dims.len(), types)?
                };
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
                        let ty = map(&m.ty, &format!("{path}.{}", m.name), depth + 1, types)?;
                        Ok(Field { name: m.name.clone(), ty, optional: m.optional, proto: None, null_branch: None })
                    })
                    .collect::<Result<_, IdlUnmapped>>()?,
            },
            T::Union(u) => {
                let m = format!("union {} at {path} has no mapping in the wirebench schema (only -f cdr-xcdr1/cdr-xcdr2 read this schema)", u.name);
                return Err(IdlUnmapped::Union(m, u.name.clone()));
            }
        })
    }
    map(ty, "$", 1, &mut 0)
}
