//! Formats: the matrix's rows, each schema written in the format's own schema language and
//! read back, samples encoded and decoded through the real codecs, and the formats' own
//! compatibility rules (Avro promotions, protobuf wire types, XTypes assignability).

use std::path::PathBuf;

use serde::Serialize;
use wirebench_core::{Field, Schema, Type, Value};

use super::{EvoField, EvoSchema, Kind};

/// A format (and, for CDR, an extensibility) the matrix has a row for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Protobuf,
    Avro,
    Thrift,
    Uadp,
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
    pub const ALL: [Format; 12] = [
        Format::Protobuf,
        Format::Avro,
        Format::Thrift,
        Format::Uadp,
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
            Format::Uadp => "uadp",
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
    /// UADP: the DataSetMetaData's ConfigurationVersion (MajorVersion, MinorVersion), written
    /// into every DataSetMessage header (see [`uadp_versions`]).
    pub version: Option<(u32, u32)>,
}

/// A scratch folder for the schema files, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new() -> Result<Scratch, String> {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if n == 0 {
            Scratch::remove_stale();
        }
        let dir = std::env::temp_dir().join(format!("wirebench-evolve-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Scratch {
    /// Remove the scratch folders of runs that ended without removing them (a signal, `kill
    /// -9`): those whose process is gone.
    fn remove_stale() {
        let Ok(dir) = std::fs::read_dir(std::env::temp_dir()) else { return };
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(pid) = name.strip_prefix("wirebench-evolve-").and_then(|r| r.split('-').next()) else { continue };
            let Ok(pid) = pid.parse::<u32>() else { continue };
            if pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
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
        let mut field = if f.optional {
            serde_json::json!({"name": f.name, "type": ["null", t], "default": null})
        } else {
            serde_json::json!({"name": f.name, "type": t})
        };
        if !f.aliases.is_empty() {
            field["aliases"] = serde_json::json!(f.aliases);
        }
        fields.push(field);
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
            (Some(crate::proto_schema::read_proto(&p, Some(&s.name), std::slice::from_ref(&scratch.0))?), None, text)
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
        Format::Thrift | Format::Uadp => {
            let m = model(s);
            let text = m.to_json_pretty();
            (Some(m), None, text)
        }
        _ => (None, None, String::new()),
    };
    Ok(Bound { format, schema, evo: s.clone(), avro, text, version: None })
}

/// An IDL struct of extensibility `ext` for the CDR codec of `format`.
pub(super) fn bind_idl(
    format: Format,
    s: &EvoSchema,
    ext: &str,
    scratch: &Scratch,
    label: &str,
) -> Result<Bound, String> {
    let text = idl_text(s, ext)?;
    let p = scratch.0.join(format!("{label}.idl"));
    std::fs::write(&p, &text).map_err(|e| format!("{}: {e}", p.display()))?;
    let schema = crate::schema_files::read_schema_file(&p, Some(&format!("wirebench::evolve::{}", s.name)))?;
    Ok(Bound { format, schema: Some(schema), evo: s.clone(), avro: None, text, version: None })
}

/// A sample as the writer's codec takes it.
fn to_wire(b: &Bound, v: &Value) -> Value {
    let Value::Map(pairs) = v else { return v.clone() };
    let mut out = Vec::new();
    for f in &b.evo.fields {
        match pairs.iter().find(|(k, _)| *k == f.name) {
            Some((k, x)) => {
                let x = match (&f.kind, x, b.format) {
                    (Kind::Enum { symbols, .. }, Value::String(s), Format::Thrift | Format::Uadp) => {
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
    if let (Format::Uadp, Some((major, minor))) = (b.format, b.version) {
        // The DataSetMessage header carries the writer's ConfigurationVersion.
        let mut msg = uadp::decode_exact(&out, &uadp::DecodeOptions::default()).map_err(|e| e.to_string())?;
        for m in &mut msg.messages {
            (m.config_version_major, m.config_version_minor) = (Some(major), Some(minor));
        }
        out.clear();
        uadp::encode(&msg, &mut out).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// OPC 10000-14 §6.2.3.2.6: the ConfigurationVersion of v1 and of v2. Fields added at the end of
/// the DataSet (and literals added at the end of an enum: the field's DataType stays) update only
/// the MinorVersion; removing, reordering or renaming fields, adding one in between and a
/// DataType change update the MajorVersion. v1 is (1, 1).
pub fn uadp_versions(v1: &EvoSchema, v2: &EvoSchema) -> ((u32, u32), (u32, u32)) {
    match uadp_major_change(v1, v2) {
        None if v1 == v2 => ((1, 1), (1, 1)),
        None => ((1, 1), (1, 2)),
        Some(_) => ((1, 1), (2, 2)),
    }
}

/// Why v2 needs a new MajorVersion (`None`: a minor change at most).
pub fn uadp_major_change(v1: &EvoSchema, v2: &EvoSchema) -> Option<String> {
    if v2.fields.len() < v1.fields.len() {
        return Some(format!("{} field(s) removed", v1.fields.len() - v2.fields.len()));
    }
    for (a, b) in v1.fields.iter().zip(&v2.fields) {
        if a.name != b.name {
            return Some(format!(
                "field {} is {} in v2 (renamed, reordered or a field added in between)",
                a.name, b.name
            ));
        }
        let same = match (&a.kind, &b.kind) {
            (Kind::Enum { name: x, symbols: s }, Kind::Enum { name: y, symbols: t }) => {
                x == y && t.len() >= s.len() && s.iter().zip(t).all(|(p, q)| p == q)
            }
            (x, y) => x == y,
        };
        if !same {
            return Some(format!("field {}: DataType {} → {}", a.name, a.kind.describe(), b.kind.describe()));
        }
    }
    None
}

/// A UADP subscriber's rule (OPC 10000-14 §6.2.3.2.6): it decodes a DataSetMessage only with
/// DataSetMetaData of the same MajorVersion.
pub fn uadp_major_matches(bytes: &[u8], reader: &Bound) -> Result<(), String> {
    let msg = uadp::decode_exact(bytes, &uadp::DecodeOptions::default()).map_err(|e| e.to_string())?;
    let got = msg.messages.first().and_then(|m| m.config_version_major);
    let want = reader.version.map(|v| v.0);
    if got != want {
        let show = |v: Option<u32>| v.map_or("none".into(), |v| v.to_string());
        return Err(format!(
            "ConfigurationVersion.MajorVersion {} is not the reader's {}: a subscriber decodes only with DataSetMetaData \
             of the same MajorVersion (OPC 10000-14 §6.2.3.2.6)",
            show(got),
            show(want)
        ));
    }
    Ok(())
}

/// A UADP key frame read with the reader's DataSetMetaData, by position, the versions not
/// checked (see [`uadp_major_matches`]): fields after the reader's last are ignored (added in a
/// later MinorVersion); the reader's fields after the message's last have no value.
fn uadp_decode(reader: &Bound, bytes: &[u8]) -> Result<Value, String> {
    let mut msg = uadp::decode_exact(bytes, &uadp::DecodeOptions::default()).map_err(|e| e.to_string())?;
    let mut n = reader.evo.fields.len();
    for m in &mut msg.messages {
        (m.config_version_major, m.config_version_minor) = (None, None);
        if let uadp::Payload::KeyFrame(fields) = &mut m.payload {
            fields.truncate(n);
            n = fields.len();
        }
    }
    let mut cut = reader.evo.clone();
    cut.fields.truncate(n);
    let mut plain = Vec::new();
    uadp::encode(&msg, &mut plain).map_err(|e| e.to_string())?;
    let codec = crate::find("uadp").ok_or("no such codec")?;
    codec.decode(&plain, Some(&model(&cut))).map_err(|e| e.to_string())
}

/// Decode bytes written with `writer`'s schema with `reader`'s: the reader's view, fields by the
/// reader's names (absent: the reader has no value, it takes its default), enums by the reader's
/// symbol or, for a number the reader does not know, the number.
pub fn decode(writer: &Bound, reader: &Bound, bytes: &[u8]) -> Result<Value, String> {
    let codec = crate::find(reader.format.codec()).ok_or("no such codec")?;
    let v = match reader.format {
        Format::Avro => {
            let aliased = avro_aliased(&writer.evo, &reader.evo);
            avro_promotions(aliased.as_ref().unwrap_or(&writer.evo), &reader.evo)?;
            let renamed = match &aliased {
                Some(a) => Some(apache_avro::Schema::parse_str(&avsc_text(a)?).map_err(|e| one_line(&e.to_string()))?),
                None => None,
            };
            let w = renamed.as_ref().or(writer.avro.as_ref()).ok_or("no writer schema")?;
            let r = reader.avro.as_ref().ok_or("no reader schema")?;
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
        Format::Uadp => uadp_decode(reader, bytes)?,
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

/// The Avro specification's field aliases: a reader field whose `aliases` name a writer field
/// (and the reader has no field of that name) reads it. apache-avro 0.21 resolves by name only,
/// so the writer's schema is given the reader's names first (the bytes carry no names). `None`:
/// no alias applies.
pub fn avro_aliased(w: &EvoSchema, r: &EvoSchema) -> Option<EvoSchema> {
    let mut out = w.clone();
    let mut any = false;
    for wf in &mut out.fields {
        if r.fields.iter().any(|rf| rf.name == wf.name) {
            continue;
        }
        if let Some(rf) = r.fields.iter().find(|rf| rf.aliases.contains(&wf.name)) {
            wf.name = rf.name.clone();
            any = true;
        }
    }
    any.then_some(out)
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
        if wf.optional != rf.optional && format != Format::Xcdr2Mutable {
            // wirebench's reading: the two encode the member differently (a presence flag in
            // XCDR2, a parameter header in XCDR1), so a reader could not tell what follows.
            return Err(format!(
                "member {} is @optional on one side only (its encoding differs: wirebench refuses the pair)",
                rf.name
            ));
        }
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
        // A float32 field reads the nearest float32, as a typed reader's f32 does.
        (Kind::Float { bits: 32 }, _) if v.as_float().is_some() || v.as_i128().is_some() => {
            Value::F32(v.as_float().unwrap_or_else(|| v.as_i128().unwrap_or_default() as f64) as f32)
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
