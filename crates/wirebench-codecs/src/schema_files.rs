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
//! A .proto field keeps its number and declared type (the Protobuf codec writes that wire
//! form); `map<K,V>` and IDL unions have no mapping and are refused with their position. An
//! .avsc is read by apache-avro's parser and kept whole for the Avro codec, which writes every
//! Avro type (enums, maps, any union, recursion: see `avro_schema`); other codecs refuse what the
//! model cannot express, naming the file, line and construct. An .idl is read with its
//! `#include`s ([`read_idl`]: the including file's folder, then `-I` folders) and kept whole too:
//! the CDR codecs write the IDL's own type (fixed arrays stay fixed, unions, extensibility) in
//! every command, as `encode -f cdr-xcdr2 --schema X.idl` does.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use serde_json::Value as J;
use wirebench_core::{Field, ProtoField, Schema, Type};

/// Read a schema file by its extension (`.proto`, `.avsc`, `.idl`, else a wirebench JSON
/// schema, or Avro when the JSON is an Avro schema). Errors are one line naming the file and,
/// where known, the line and column.
pub fn read_schema_file(path: &Path, type_name: Option<&str>) -> Result<Schema, String> {
    let text = wirebench_core::corpus::read_text(path)?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let p = path.display();
    let root = match ext.as_str() {
        "proto" => proto(&text, type_name).map_err(|(l, c, m)| format!("{p}:{l}:{c}: {m}"))?,
        "idl" => return idl_schema(path, &text, type_name),
        _ => {
            let json: J = serde_json::from_str(&text).map_err(|e| {
                let m = e.to_string();
                format!("{p}:{}:{}: {}", e.line(), e.column(), m.split(" at line ").next().unwrap_or(&m))
            })?;
            let avro = ext == "avsc" || (json.get("root").is_none() && json.get("$schema").is_none());
            if avro {
                return crate::avro_schema::read(&p.to_string(), &text, &json, type_name);
            } else {
                if type_name.is_some() {
                    return Err(format!("{p}: --type applies to .proto, .avsc and .idl files (a wirebench schema has one root)"));
                }
                return Schema::from_json_str(&text)
                    .map_err(|e| format!("{p}:{}:{}: not a wirebench schema: {e}", e.line(), e.column()));
            }
        }
    };
    Ok(Schema { tag: "wirebench-schema/1".into(), root, native: None })
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

// ---------------------------------------------------------------------------------------------
// .proto (proto2 and proto3 messages)

type Pos = (usize, usize);
type ProtoErr = (usize, usize, String);

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Int(i64),
    Str(String),
    Sym(char),
}

fn tokenize(text: &str) -> Result<Vec<(Tok, Pos)>, ProtoErr> {
    let mut out = Vec::new();
    let b: Vec<char> = text.chars().collect();
    let (mut i, mut line, mut col) = (0, 1, 1);
    let adv = |i: &mut usize, line: &mut usize, col: &mut usize, b: &[char]| {
        if b[*i] == '\n' {
            *line += 1;
            *col = 1;
        } else {
            *col += 1;
        }
        *i += 1;
    };
    while i < b.len() {
        let c = b[i];
        let pos = (line, col);
        if c.is_whitespace() {
            adv(&mut i, &mut line, &mut col, &b);
        } else if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                adv(&mut i, &mut line, &mut col, &b);
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            while i < b.len() && !(b[i] == '*' && b.get(i + 1) == Some(&'/')) {
                adv(&mut i, &mut line, &mut col, &b);
            }
            if i >= b.len() {
                return Err((pos.0, pos.1, "comment is not closed".into()));
            }
            adv(&mut i, &mut line, &mut col, &b);
            adv(&mut i, &mut line, &mut col, &b);
        } else if c.is_ascii_alphabetic() || c == '_' || c == '.' && b.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic()) {
            let mut s = String::new();
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == '_' || b[i] == '.') {
                s.push(b[i]);
                adv(&mut i, &mut line, &mut col, &b);
            }
            out.push((Tok::Ident(s), pos));
        } else if c.is_ascii_digit() || c == '-' {
            let mut s = String::new();
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == '-' || b[i] == '.' || b[i] == '+') {
                s.push(b[i]);
                adv(&mut i, &mut line, &mut col, &b);
            }
            let n = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                i64::from_str_radix(h, 16).ok()
            } else {
                s.parse::<i64>().ok()
            };
            // Floats only appear in options and defaults, which are skipped: keep them as text.
            out.push((n.map_or(Tok::Str(s), Tok::Int), pos));
        } else if c == '"' || c == '\'' {
            adv(&mut i, &mut line, &mut col, &b);
            let mut s = String::new();
            while i < b.len() && b[i] != c {
                if b[i] == '\\' {
                    adv(&mut i, &mut line, &mut col, &b);
                }
                if i < b.len() {
                    s.push(b[i]);
                    adv(&mut i, &mut line, &mut col, &b);
                }
            }
            if i >= b.len() {
                return Err((pos.0, pos.1, "string is not closed".into()));
            }
            adv(&mut i, &mut line, &mut col, &b);
            out.push((Tok::Str(s), pos));
        } else if "{}[]()<>=;,:".contains(c) {
            out.push((Tok::Sym(c), pos));
            adv(&mut i, &mut line, &mut col, &b);
        } else {
            return Err((pos.0, pos.1, format!("unexpected character {c:?}")));
        }
    }
    Ok(out)
}

/// A message field as declared, before its type name is resolved.
struct PField {
    name: String,
    label: Option<String>,
    ty: String,
    number: u32,
    pos: Pos,
}

#[derive(Default)]
struct ProtoFile {
    /// Full names (`pkg.Outer.Inner`) of messages with their fields, in declaration order.
    messages: Vec<(String, Vec<PField>, Pos)>,
    enums: Vec<String>,
    /// Top-level messages, in order.
    top: Vec<String>,
}

struct Parser {
    toks: Vec<(Tok, Pos)>,
    at: usize,
    end: Pos,
}

impl Parser {
    fn pos(&self) -> Pos {
        self.toks.get(self.at).map_or(self.end, |t| t.1)
    }
    fn err<T>(&self, msg: impl Into<String>) -> Result<T, ProtoErr> {
        let (l, c) = self.pos();
        Err((l, c, msg.into()))
    }
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|t| &t.0)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).map(|t| t.0.clone());
        self.at += 1;
        t
    }
    fn sym(&mut self, c: char) -> Result<(), ProtoErr> {
        match self.peek() {
            Some(Tok::Sym(x)) if *x == c => {
                self.at += 1;
                Ok(())
            }
            _ => self.err(format!("expected '{c}'")),
        }
    }
    fn ident(&mut self, what: &str) -> Result<String, ProtoErr> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.at += 1;
                Ok(s)
            }
            _ => self.err(format!("expected {what}")),
        }
    }
    /// Skip to the end of the statement (`;`) or over a `{…}` block.
    fn skip_statement(&mut self) -> Result<(), ProtoErr> {
        let mut depth = 0;
        while let Some(t) = self.next() {
            match t {
                Tok::Sym('{') => depth += 1,
                Tok::Sym('}') => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Tok::Sym(';') if depth == 0 => return Ok(()),
                _ => {}
            }
        }
        self.err("unexpected end of file")
    }
    /// Skip `[ ... ]` field options.
    fn skip_options(&mut self) -> Result<(), ProtoErr> {
        if self.peek() == Some(&Tok::Sym('[')) {
            while let Some(t) = self.next() {
                if t == Tok::Sym(']') {
                    return Ok(());
                }
            }
            return self.err("field options are not closed");
        }
        Ok(())
    }

    fn file(&mut self) -> Result<ProtoFile, ProtoErr> {
        let mut f = ProtoFile::default();
        let mut package = String::new();
        while let Some(t) = self.peek().cloned() {
            match t {
                Tok::Ident(k) if k == "syntax" || k == "edition" => {
                    self.at += 1;
                    self.sym('=')?;
                    let pos = self.pos();
                    match self.next() {
                        Some(Tok::Str(s)) if s == "proto2" || s == "proto3" => {}
                        _ => return Err((pos.0, pos.1, "only proto2 and proto3 files are read".into())),
                    }
                    self.sym(';')?;
                }
                Tok::Ident(k) if k == "package" => {
                    self.at += 1;
                    package = self.ident("a package name")?;
                    self.sym(';')?;
                }
                Tok::Ident(k) if k == "import" || k == "option" => self.skip_statement()?,
                Tok::Ident(k) if k == "message" => {
                    self.at += 1;
                    let name = self.message(&package, &mut f)?;
                    f.top.push(name);
                }
                Tok::Ident(k) if k == "enum" => {
                    self.at += 1;
                    self.enumeration(&package, &mut f)?;
                }
                Tok::Ident(k) if k == "service" || k == "extend" => self.skip_statement()?,
                Tok::Sym(';') => self.at += 1,
                _ => return self.err("expected message, enum, syntax, package, import or option"),
            }
        }
        Ok(f)
    }

    fn scoped(scope: &str, name: &str) -> String {
        if scope.is_empty() {
            name.to_string()
        } else {
            format!("{scope}.{name}")
        }
    }

    fn enumeration(&mut self, scope: &str, f: &mut ProtoFile) -> Result<(), ProtoErr> {
        let name = self.ident("an enum name")?;
        f.enums.push(Self::scoped(scope, &name));
        if self.peek() != Some(&Tok::Sym('{')) {
            return self.err("expected '{'");
        }
        self.skip_statement()
    }

    fn message(&mut self, scope: &str, f: &mut ProtoFile) -> Result<String, ProtoErr> {
        let pos = self.pos();
        let name = Self::scoped(scope, &self.ident("a message name")?);
        self.sym('{')?;
        let mut fields = Vec::new();
        self.body(&name, f, &mut fields, false)?;
        f.messages.push((name.clone(), fields, pos));
        Ok(name)
    }

    /// Fields of a message (or of a oneof: every member optional) up to the closing `}`.
    fn body(&mut self, msg: &str, f: &mut ProtoFile, fields: &mut Vec<PField>, oneof: bool) -> Result<(), ProtoErr> {
        loop {
            let pos = self.pos();
            let Some(t) = self.peek().cloned() else { return self.err("expected '}'") };
            match t {
                Tok::Sym('}') => {
                    self.at += 1;
                    return Ok(());
                }
                Tok::Sym(';') => self.at += 1,
                Tok::Ident(k) if !oneof && k == "message" => {
                    self.at += 1;
                    self.message(msg, f)?;
                }
                Tok::Ident(k) if !oneof && k == "enum" => {
                    self.at += 1;
                    self.enumeration(msg, f)?;
                }
                Tok::Ident(k) if k == "option" || k == "reserved" || k == "extensions" || k == "extend" => self.skip_statement()?,
                Tok::Ident(k) if !oneof && k == "oneof" => {
                    self.at += 1;
                    self.ident("a oneof name")?;
                    self.sym('{')?;
                    self.body(msg, f, fields, true)?;
                }
                Tok::Ident(k) if k == "map" && self.toks.get(self.at + 1).map(|t| &t.0) == Some(&Tok::Sym('<')) => {
                    return Err((pos.0, pos.1, "map<K, V> fields have no mapping in the wirebench schema".into()));
                }
                Tok::Ident(k) if k == "group" || (k == "optional" || k == "required" || k == "repeated") && self.toks.get(self.at + 1).map(|t| &t.0) == Some(&Tok::Ident("group".into())) => {
                    return Err((pos.0, pos.1, "proto2 groups have no mapping in the wirebench schema".into()));
                }
                Tok::Ident(first) => {
                    self.at += 1;
                    let (label, ty) = if ["optional", "required", "repeated"].contains(&first.as_str()) {
                        (Some(first), self.ident("a field type")?)
                    } else {
                        (oneof.then(|| "optional".to_string()), first)
                    };
                    let name = self.ident("a field name")?;
                    self.sym('=')?;
                    let npos = self.pos();
                    let number = match self.next() {
                        Some(Tok::Int(n)) if (1..=536_870_911).contains(&n) => n as u32,
                        _ => return Err((npos.0, npos.1, "expected a field number in 1..=536870911".into())),
                    };
                    self.skip_options()?;
                    self.sym(';')?;
                    if fields.iter().any(|x: &PField| x.number == number) {
                        return Err((npos.0, npos.1, format!("field number {number} is used twice in {msg}")));
                    }
                    fields.push(PField { name, label, ty, number, pos });
                }
                _ => return self.err("expected a field, message, enum, oneof, option or '}'"),
            }
        }
    }
}

const PROTO_SCALARS: &[(&str, Type)] = &[
    ("double", Type::Float { bits: 64 }),
    ("float", Type::Float { bits: 32 }),
    ("int32", Type::Int { bits: 32, signed: true }),
    ("sint32", Type::Int { bits: 32, signed: true }),
    ("sfixed32", Type::Int { bits: 32, signed: true }),
    ("int64", Type::Int { bits: 64, signed: true }),
    ("sint64", Type::Int { bits: 64, signed: true }),
    ("sfixed64", Type::Int { bits: 64, signed: true }),
    ("uint32", Type::Int { bits: 32, signed: false }),
    ("fixed32", Type::Int { bits: 32, signed: false }),
    ("uint64", Type::Int { bits: 64, signed: false }),
    ("fixed64", Type::Int { bits: 64, signed: false }),
    ("bool", Type::Bool),
    ("string", Type::String),
    ("bytes", Type::Bytes),
];

fn proto(text: &str, type_name: Option<&str>) -> Result<Type, ProtoErr> {
    let toks = tokenize(text)?;
    let lines = text.lines().count().max(1);
    let mut p = Parser { toks, at: 0, end: (lines, 1) };
    let file = p.file()?;
    if file.messages.is_empty() {
        return Err((1, 1, "no message in this file".into()));
    }
    let names: Vec<&str> = file.messages.iter().map(|(n, _, _)| n.as_str()).collect();
    // The root: --type, else the one top-level message no other message uses.
    let used: Vec<&str> = file.messages.iter().flat_map(|(_, fs, _)| fs.iter().map(|f| f.ty.as_str())).collect();
    let roots: Vec<&str> = file
        .top
        .iter()
        .map(String::as_str)
        .filter(|t| !used.iter().any(|u| *u == *t || t.ends_with(&format!(".{u}")) || u.trim_start_matches('.') == *t))
        .collect();
    let default = if roots.len() == 1 { Some(roots[0]) } else { None };
    let candidates = if roots.is_empty() { names.clone() } else { roots.clone() };
    let root = pick("message", type_name, if type_name.is_some() { &names } else { &candidates }, default).map_err(|m| (1, 1, m))?;
    let index: HashMap<&str, usize> = file.messages.iter().enumerate().map(|(i, (n, _, _))| (n.as_str(), i)).collect();
    build_message(&file, &index, root, &mut Vec::new())
}

/// Resolve a type name as protoc does: from the innermost scope outwards.
fn resolve<'a>(file: &'a ProtoFile, index: &HashMap<&str, usize>, scope: &str, name: &str) -> Option<(&'a str, bool)> {
    let name = name.trim_start_matches('.');
    let mut s = scope.to_string();
    loop {
        let cand = if s.is_empty() { name.to_string() } else { format!("{s}.{name}") };
        if let Some(&i) = index.get(cand.as_str()) {
            return Some((file.messages[i].0.as_str(), false));
        }
        if let Some(e) = file.enums.iter().find(|e| **e == cand) {
            return Some((e.as_str(), true));
        }
        match s.rfind('.') {
            Some(p) => s.truncate(p),
            None if !s.is_empty() => s.clear(),
            None => return None,
        }
    }
}

fn build_message(file: &ProtoFile, index: &HashMap<&str, usize>, name: &str, stack: &mut Vec<String>) -> Result<Type, ProtoErr> {
    let (full, fields, pos) = &file.messages[index[name]];
    if stack.contains(full) {
        return Err((pos.0, pos.1, format!("message {full} contains itself (recursive messages have no mapping in the wirebench schema)")));
    }
    stack.push(full.clone());
    let mut out = Vec::with_capacity(fields.len());
    for f in fields {
        let (ty, kind) = match PROTO_SCALARS.iter().find(|(n, _)| *n == f.ty) {
            Some((n, t)) => (t.clone(), n.to_string()),
            None => match resolve(file, index, full, &f.ty) {
                Some((_, true)) => (Type::Int { bits: 32, signed: true }, "enum".to_string()),
                Some((m, false)) => (build_message(file, index, m, stack)?, "message".to_string()),
                None => return Err((f.pos.0, f.pos.1, format!("type {:?} of field {} is not defined in this file", f.ty, f.name))),
            },
        };
        let repeated = f.label.as_deref() == Some("repeated");
        let ty = if repeated { Type::Array { items: Box::new(ty) } } else { ty };
        let optional = f.label.as_deref() == Some("optional");
        out.push(Field { name: f.name.clone(), ty, optional, proto: Some(ProtoField { number: f.number, kind }), null_branch: None });
    }
    stack.pop();
    let short = full.rsplit('.').next().unwrap_or(full).to_string();
    Ok(Type::Record { name: short, fields: out })
}

// ---------------------------------------------------------------------------------------------
// .avsc: read by apache-avro's parser, in crate::avro_schema.

// ---------------------------------------------------------------------------------------------
// .idl

/// An IDL file with its `#include`s: `#include "x.idl"` is looked for in the including file's
/// folder, then in the include path ([`set_include_dirs`]); `#include <x.idl>` in the include
/// path, then the including file's folder. Errors are one line, `file:line:column: message`.
pub fn read_idl(path: &Path, text: &str) -> Result<(cdr::idl::IdlFile, cdr::idl::Flattened), String> {
    let dirs = include_dirs();
    let mut load = |from: &str, spec: &str, angled: bool| -> Result<(String, String), String> {
        let here = Path::new(from).parent().map(Path::to_path_buf).unwrap_or_default();
        let mut order: Vec<PathBuf> = dirs.clone();
        if angled { order.push(here) } else { order.insert(0, here) }
        for d in &order {
            let cand = d.join(spec);
            if cand.is_file() {
                let text = wirebench_core::corpus::read_text(&cand)?;
                let name = std::fs::canonicalize(&cand).unwrap_or(cand);
                return Ok((name.display().to_string(), text));
            }
        }
        let searched: Vec<String> = order.iter().map(|d| if d.as_os_str().is_empty() { ".".into() } else { d.display().to_string() }).collect();
        Err(format!("cannot find included file {spec:?} (searched {}; add a folder with -I DIR)", searched.join(", ")))
    };
    let flat = cdr::idl::flatten(&path.display().to_string(), text, &mut load).map_err(|e| e.to_string())?;
    let file = flat.parse().map_err(|e| e.to_string())?;
    Ok((file, flat))
}

/// The IDL type `--type` names (scoped or not), else the last struct or union, with its scoped name.
pub fn idl_type<'f>(file: &'f cdr::idl::IdlFile, type_name: Option<&str>) -> Result<(String, &'f cdr::TypeDesc), String> {
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
        Err((m, union)) => {
            // The line of the union's definition, in the file it is in.
            let short = union.rsplit("::").next().unwrap_or(&union).to_string();
            let at = flat.text.lines().position(|l| l.split_whitespace().collect::<Vec<_>>().windows(2).any(|w| w == ["union", short.as_str()]));
            let (f, line) = at.map_or((p.to_string(), 1), |i| {
                let (f, l) = flat.origin(i as u32 + 1);
                (f.to_string(), l)
            });
            (Type::Any, Some(format!("{f}:{line}: {m}")))
        }
    };
    let native = wirebench_core::NativeSchema { format: "idl".into(), file: p.to_string(), text: flat.text, root: name, unmapped };
    Ok(Schema { tag: "wirebench-schema/1".into(), root, native: Some(native) })
}

/// An IDL type in the shared model (unions have no place there).
fn idl_map(ty: &cdr::TypeDesc) -> Result<Type, (String, String)> {
    use cdr::TypeDesc as T;
    /// Err: the message and the union's name.
    fn map(t: &cdr::TypeDesc, path: &str) -> Result<Type, (String, String)> {
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
                        Ok(Field { name: m.name.clone(), ty: map(&m.ty, &format!("{path}.{}", m.name))?, optional: m.optional, proto: None, null_branch: None })
                    })
                    .collect::<Result<_, (String, String)>>()?,
            },
            T::Union(u) => {
                let m = format!("union {} at {path} has no mapping in the wirebench schema (only -f cdr-xcdr1/cdr-xcdr2 read this schema)", u.name);
                return Err((m, u.name.clone()));
            }
        })
    }
    map(ty, "$")
}
