//! `.proto` files as the protobuf compiler reads them: `protox` (a pure-Rust protoc) compiles
//! the file with its imports, found through the include paths (`-I/--proto-path DIR`, then the
//! file's own directory; the well-known types `google/protobuf/*.proto` are built in), into a
//! descriptor set. The Protobuf codec encodes and decodes through that descriptor (protoc's
//! bytes, the proto3 JSON mapping: see [`crate::protobuf`]); the shared schema every other
//! codec reads is derived from it:
//!
//! | .proto                                   | schema                                        |
//! |------------------------------------------|-----------------------------------------------|
//! | scalars                                  | as in [`crate::schema_files`]                 |
//! | field without `optional` (proto3)        | may be absent: reads back as its default      |
//! | `optional`, oneof members, message field | optional field                                |
//! | proto2 `required`                        | required field                                |
//! | `repeated T`                             | array (may be absent: reads back as `[]`)     |
//! | `enum`                                   | int32                                         |
//! | `google.protobuf.Timestamp`, `Duration`, `FieldMask` | string (their JSON form)          |
//! | wrappers (`Int32Value`, `StringValue`, …)| optional scalar                               |
//! | `Struct`, `Value`, `ListValue`           | any                                           |
//!
//! A recursive message, a `map<K, V>` field and `google.protobuf.Any` have no flat model: the
//! schema still reads (the Protobuf codec needs only the descriptor), and the other codecs
//! refuse it with the one-line `file:line` reason.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use prost_reflect::{Cardinality, FieldDescriptor, FileDescriptor, Kind, MessageDescriptor};
use wirebench_core::{Field, ProtoDescriptor, ProtoField, Schema, Type};

/// Read a .proto file: the message `type_name` (full or short name; default: the one top-level
/// message of the file that no other message of it uses), imports looked up in `include` and
/// then the file's directory. Errors are one line: `file:line:column: message`.
pub fn read_proto(path: &Path, type_name: Option<&str>, include: &[PathBuf]) -> Result<Schema, String> {
    let shown = path.display().to_string();
    if !path.is_file() {
        return Err(format!("{shown}: no such file"));
    }
    // The file itself is checked here (named as given); its imports by the resolver.
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    if bytes > wirebench_core::value::MAX_SCHEMA_BYTES as u64 {
        return Err(format!(
            "{shown}: {}",
            wirebench_core::value::schema_text_too_large(bytes, wirebench_core::value::MAX_SCHEMA_BYTES)
        ));
    }
    let own = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut dirs: Vec<PathBuf> = include.to_vec();
    if !dirs.iter().any(|d| d == own) {
        dirs.push(own.to_path_buf());
    }
    for d in &dirs {
        if !d.is_dir() {
            return Err(format!("{}: include path is not a directory", d.display()));
        }
    }
    let mut compiler = protox::Compiler::with_file_resolver(Bounded::new(&dirs));
    compiler.include_imports(true).include_source_info(true);
    // Where each compiled file is on disk, for error positions.
    let disk = |c: &protox::Compiler| -> HashMap<String, String> {
        c.files().filter_map(|f| Some((f.name().to_string(), f.path()?.display().to_string()))).collect()
    };
    if let Err(e) = compiler.open_file(path).map(drop) {
        return Err(compile_error(&e, &shown, &disk(&compiler)));
    }
    let on_disk = disk(&compiler);
    let main = compiler
        .files()
        .find(|f| !f.is_import())
        .map(|f| f.name().to_string())
        .ok_or(format!("{shown}: not compiled"))?;
    let pool = compiler.descriptor_pool();
    let file = pool.get_file_by_name(&main).ok_or(format!("{shown}: not compiled"))?;
    let root = pick_message(&file, type_name).map_err(|m| format!("{shown}: {m}"))?;
    let at = |f: &FileDescriptor, p: &[i32]| -> String {
        let name = on_disk.get(f.name()).cloned().unwrap_or_else(|| f.name().to_string());
        match line_of(f, p) {
            Some(line) => format!("{name}:{line}"),
            None => name,
        }
    };
    let mut budget = Budget { stack: Vec::new(), types: 0, file: shown.clone() };
    let (root_ty, model_error) = match model_message(&root, &mut budget, &at) {
        Ok(t) => (t, None),
        Err(Unmodelled::No(e)) => (Type::Any, Some(e)),
        // Past a limit the schema is refused, not kept for the Protobuf codec alone.
        Err(Unmodelled::Limit(e)) => return Err(e),
    };
    let proto = ProtoDescriptor {
        file_descriptor_set: Arc::new(prost::Message::encode_to_vec(&prost_types_set(&pool))),
        message: root.full_name().to_string(),
        model_error,
    };
    Ok(Schema { tag: "wirebench-schema/1".into(), root: root_ty, proto: Some(proto), native: None })
}

/// protox's resolver (the include folders, then the well-known types) that refuses, before
/// protox parses it, a file that would take the schema text past
/// [`wirebench_core::value::MAX_SCHEMA_BYTES`] (the file with its imports).
struct Bounded {
    dirs: Vec<PathBuf>,
    inner: protox::file::ChainFileResolver,
    total: std::cell::Cell<u64>,
}

impl Bounded {
    fn new(dirs: &[PathBuf]) -> Bounded {
        let mut inner = protox::file::ChainFileResolver::new();
        for d in dirs {
            inner.add(protox::file::IncludeFileResolver::new(d.clone()));
        }
        inner.add(protox::file::GoogleFileResolver::new());
        Bounded { dirs: dirs.to_vec(), inner, total: std::cell::Cell::new(0) }
    }
}

impl protox::file::FileResolver for Bounded {
    fn resolve_path(&self, path: &Path) -> Option<String> {
        self.inner.resolve_path(path)
    }

    fn open_file(&self, name: &str) -> Result<protox::file::File, protox::Error> {
        use wirebench_core::value::{schema_text_too_large, MAX_SCHEMA_BYTES};
        if let Some(found) = self.dirs.iter().map(|d| d.join(name)).find(|p| p.is_file()) {
            let total = self.total.get() + std::fs::metadata(&found).map_or(0, |m| m.len());
            self.total.set(total);
            if total > MAX_SCHEMA_BYTES as u64 {
                return Err(protox::Error::new(format!(
                    "{}: {}",
                    found.display(),
                    schema_text_too_large(total, MAX_SCHEMA_BYTES)
                )));
            }
        }
        self.inner.open_file(name)
    }
}

/// The pool's files as one FileDescriptorSet, without source info (it is only for positions).
fn prost_types_set(pool: &prost_reflect::DescriptorPool) -> prost_reflect::prost_types::FileDescriptorSet {
    let file = pool
        .file_descriptor_protos()
        .map(|f| prost_reflect::prost_types::FileDescriptorProto { source_code_info: None, ..f.clone() })
        .collect();
    prost_reflect::prost_types::FileDescriptorSet { file }
}

/// The 1-based line of the declaration at `path` in `file` (from its source info).
fn line_of(file: &FileDescriptor, path: &[i32]) -> Option<i32> {
    let info = file.file_descriptor_proto().source_code_info.as_ref()?;
    info.location.iter().find(|l| l.path == path).and_then(|l| l.span.first()).map(|l| l + 1)
}

/// A compile error as one line: `file:line:column: message` where the compiler says where.
fn compile_error(e: &protox::Error, shown: &str, on_disk: &HashMap<String, String>) -> String {
    use miette::Diagnostic;
    // The file as the user named it (the one being compiled), else as found on disk.
    let file = e.file().map(|f| match on_disk.get(f) {
        Some(d) => d.clone(),
        None if Path::new(shown).ends_with(f) => shown.to_string(),
        None => f.to_string(),
    });
    let mut pos = String::new();
    if let (Some(src), Some(label)) = (e.source_code(), e.labels().and_then(|mut l| l.next())) {
        if let Ok(span) = src.read_span(label.inner(), 0, 0) {
            pos = format!(":{}:{}", span.line() + 1, span.column() + 1);
        }
    }
    let msg = e.to_string().replace('\n', " ");
    let label = e.labels().and_then(|mut l| l.next()).and_then(|l| l.label().map(str::to_string));
    let msg = match label {
        Some(l) if !msg.contains(&l) => format!("{msg} ({l})"),
        _ => msg,
    };
    format!("{}{pos}: {msg}", file.unwrap_or_else(|| shown.to_string()))
}

/// The root message: `--type` (full name, or the name after the last dot) among the file's
/// messages and then the whole pool; else the one top-level message no other message of the
/// file uses.
fn pick_message(file: &FileDescriptor, type_name: Option<&str>) -> Result<MessageDescriptor, String> {
    let mut all: Vec<MessageDescriptor> = Vec::new();
    fn walk(m: MessageDescriptor, out: &mut Vec<MessageDescriptor>) {
        if m.is_map_entry() {
            return;
        }
        for c in m.child_messages() {
            walk(c, out);
        }
        out.push(m);
    }
    for m in file.messages() {
        walk(m, &mut all);
    }
    if all.is_empty() {
        return Err("no message in this file".into());
    }
    let names: Vec<&str> = all.iter().map(|m| m.full_name()).collect();
    if let Some(n) = type_name {
        let n = n.trim_start_matches('.');
        let found: Vec<&MessageDescriptor> = all.iter().filter(|m| m.full_name() == n).collect();
        let found = if found.is_empty() { all.iter().filter(|m| m.name() == n).collect() } else { found };
        return match found.as_slice() {
            [one] => Ok((*one).clone()),
            [] => file
                .parent_pool()
                .get_message_by_name(n)
                .ok_or_else(|| wirebench_core::names::unknown("message", n, &names)),
            many => Err(format!(
                "--type {n} names several messages ({}): give the full name",
                many.iter().map(|m| m.full_name()).collect::<Vec<_>>().join(", ")
            )),
        };
    }
    let used: std::collections::HashSet<String> = all
        .iter()
        .flat_map(|m| {
            m.fields().filter_map(|f| f.kind().as_message().map(|t| t.full_name().to_string())).collect::<Vec<_>>()
        })
        .collect();
    let roots: Vec<MessageDescriptor> = file.messages().filter(|m| !used.contains(m.full_name())).collect();
    match roots.as_slice() {
        [one] => Ok(one.clone()),
        [] if file.messages().len() == 1 => Ok(file.messages().next().expect("one message")),
        _ => {
            let cands: Vec<&str> =
                if roots.is_empty() { names.clone() } else { roots.iter().map(|m| m.full_name()).collect() };
            // At most 12 names, so the line stays one a terminal can show.
            let more = if cands.len() > 12 { format!(" and {} more", cands.len() - 12) } else { String::new() };
            Err(format!(
                "several messages could be the root ({}{more}): name one with --type",
                cands[..cands.len().min(12)].join(", ")
            ))
        }
    }
}

/// The scalar type of a field kind and its .proto name.
fn scalar(kind: &Kind) -> Option<(Type, &'static str)> {
    Some(match kind {
        Kind::Double => (Type::Float { bits: 64 }, "double"),
        Kind::Float => (Type::Float { bits: 32 }, "float"),
        Kind::Int32 => (Type::Int { bits: 32, signed: true }, "int32"),
        Kind::Sint32 => (Type::Int { bits: 32, signed: true }, "sint32"),
        Kind::Sfixed32 => (Type::Int { bits: 32, signed: true }, "sfixed32"),
        Kind::Int64 => (Type::Int { bits: 64, signed: true }, "int64"),
        Kind::Sint64 => (Type::Int { bits: 64, signed: true }, "sint64"),
        Kind::Sfixed64 => (Type::Int { bits: 64, signed: true }, "sfixed64"),
        Kind::Uint32 => (Type::Int { bits: 32, signed: false }, "uint32"),
        Kind::Fixed32 => (Type::Int { bits: 32, signed: false }, "fixed32"),
        Kind::Uint64 => (Type::Int { bits: 64, signed: false }, "uint64"),
        Kind::Fixed64 => (Type::Int { bits: 64, signed: false }, "fixed64"),
        Kind::Bool => (Type::Bool, "bool"),
        Kind::String => (Type::String, "string"),
        Kind::Bytes => (Type::Bytes, "bytes"),
        Kind::Enum(_) => (Type::Int { bits: 32, signed: true }, "enum"),
        Kind::Message(_) => return None,
    })
}

/// A well-known type's flat model: its JSON form (`Timestamp` is an RFC 3339 string, a wrapper
/// its scalar); `None` for other messages.
fn well_known(
    m: &MessageDescriptor,
    at: &dyn Fn(&FileDescriptor, &[i32]) -> String,
) -> Option<Result<(Type, &'static str), String>> {
    let name = m.full_name().strip_prefix("google.protobuf.")?;
    Some(Ok(match name {
        "Timestamp" | "Duration" | "FieldMask" => (Type::String, "string"),
        "Struct" | "Value" | "ListValue" => (Type::Any, "message"),
        "Empty" => (Type::Record { name: "Empty".into(), fields: Vec::new() }, "message"),
        "Any" => {
            return Some(Err(format!(
                "{}: google.protobuf.Any has no flat model in the wirebench schema (only -f protobuf reads it)",
                at(&m.parent_file(), m.path())
            )))
        }
        _ => {
            let value = m.get_field_by_name("value")?;
            (scalar(&value.kind())?.0, "message")
        }
    }))
}

/// Why the model of a message was not built: it has none (the Protobuf codec still reads the
/// schema), or the schema is past a limit (refused).
enum Unmodelled {
    No(String),
    Limit(String),
}

impl From<String> for Unmodelled {
    fn from(m: String) -> Self {
        Unmodelled::No(m)
    }
}

/// The messages being modelled (nesting) and the types built so far (size): both bounded, by
/// the nesting limit and [`wirebench_core::value::MAX_SCHEMA_TYPES`].
struct Budget {
    stack: Vec<String>,
    types: usize,
    /// The file as the user named it, for the size limit's message.
    file: String,
}

impl Budget {
    fn take(&mut self) -> Result<(), Unmodelled> {
        self.types += 1;
        if self.types > wirebench_core::value::MAX_SCHEMA_TYPES {
            let e = wirebench_core::value::schema_too_large(wirebench_core::value::MAX_SCHEMA_TYPES);
            return Err(Unmodelled::Limit(format!("{}: {e}", self.file)));
        }
        Ok(())
    }
}

fn model_message(
    m: &MessageDescriptor,
    budget: &mut Budget,
    at: &dyn Fn(&FileDescriptor, &[i32]) -> String,
) -> Result<Type, Unmodelled> {
    budget.take()?;
    let max = wirebench_core::value::max_depth();
    if budget.stack.len() >= max {
        let e = wirebench_core::value::schema_too_deep(max, m.full_name());
        return Err(Unmodelled::Limit(format!("{}: {e}", at(&m.parent_file(), m.path()))));
    }
    let stack = &mut budget.stack;
    if stack.iter().any(|s| s == m.full_name()) {
        return Err(Unmodelled::No(format!(
            "{}: message {} contains itself (a recursive message has no flat model in the wirebench schema: only -f protobuf reads it)",
            at(&m.parent_file(), m.path()),
            m.full_name()
        )));
    }
    stack.push(m.full_name().to_string());
    let mut fields = Vec::with_capacity(m.fields().len());
    for f in m.fields() {
        fields.push(model_field(&f, budget, at)?);
    }
    budget.stack.pop();
    Ok(Type::Record { name: m.name().to_string(), fields })
}

fn model_field(
    f: &FieldDescriptor,
    budget: &mut Budget,
    at: &dyn Fn(&FileDescriptor, &[i32]) -> String,
) -> Result<Field, Unmodelled> {
    budget.take()?;
    if f.is_map() {
        return Err(Unmodelled::No(format!(
            "{}: map field {} has no flat model in the wirebench schema (only -f protobuf reads it)",
            at(&f.parent_file(), f.path()),
            f.full_name()
        )));
    }
    let (ty, kind) = match f.kind() {
        Kind::Message(m) => match well_known(&m, at) {
            Some(r) => r?,
            None => (model_message(&m, budget, at)?, "message"),
        },
        other => scalar(&other).expect("a scalar kind"),
    };
    let list = f.is_list();
    let ty = if list { Type::Array { items: Box::new(ty) } } else { ty };
    // Explicit presence: proto2 optional, proto3 `optional`, oneof members, message fields.
    let optional = !list && f.supports_presence() && f.cardinality() != Cardinality::Required;
    let implicit = !optional && f.cardinality() != Cardinality::Required;
    Ok(Field {
        name: f.name().to_string(),
        ty,
        optional,
        proto: Some(ProtoField {
            number: f.number(),
            kind: kind.to_string(),
            implicit,
            unpacked: list && !f.is_packed() && !matches!(f.kind(), Kind::Message(_) | Kind::String | Kind::Bytes),
        }),
        null_branch: None,
    })
}
