//! The wirebench codec zoo: every format behind one [`Codec`] trait, found by name in
//! [`registry`]. One module per (format, implementation).
//!
//! Stage boundary (the same for every codec): *encode* is a [`Value`] in memory → bytes
//! appended to a buffer; *decode* is bytes → a [`Value`] in memory. Framing and compression
//! are separate stages and not part of any codec.

use wirebench_core::{Schema, SchemaMismatch, Value};

mod avro;
mod avro_native;
mod avro_schema;
mod bson;
mod cbor;
pub mod cdr;
pub mod evolve;
pub mod handwritten;
mod json;
mod msgpack;
pub mod protobuf;

pub mod proto_schema;
mod pson;
pub mod schema_files;
mod thrift;
pub mod typed;
mod uadp;
mod xml;
mod yaml;

include!(concat!(env!("OUT_DIR"), "/versions.rs"));

/// The dynamic-message library the Protobuf codec uses for .proto schemas.
pub use prost_reflect;

/// Whether a codec needs a schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SchemaUse {
    /// Self-describing: no schema needed.
    None,
    /// Schema-directed: encode and decode need one (given, or inferred from the samples).
    Required,
    /// Works without one, decodes more faithfully with one (e.g. XML typing).
    Optional,
}

/// What a codec is, what it runs on and what it loses.
#[derive(Debug, serde::Serialize)]
pub struct CodecInfo {
    /// The name used on the command line (`json`, `pson`, `protobuf`, ...).
    pub id: &'static str,
    /// The format's display name.
    pub format: &'static str,
    /// The library it runs on (`wirebench` for our own codecs).
    pub library: &'static str,
    pub schema: SchemaUse,
    /// The media type used when sending it over HTTP.
    pub media_type: &'static str,
    /// What a round trip loses, in general terms; per-value losses are found by comparing.
    pub fidelity_notes: &'static [&'static str],
}

impl CodecInfo {
    /// The resolved version of the library (from Cargo.lock at build time).
    pub fn library_version(&self) -> &'static str {
        let lib = if self.library == "wirebench" { "pson" } else { self.library };
        CRATE_VERSIONS.iter().find(|(n, _)| *n == lib).map(|(_, v)| *v).unwrap_or("unknown")
    }
}

/// Why a codec could not encode or decode.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// The value is outside what the format can represent.
    #[error("{0}")]
    Unsupported(String),
    /// The codec needs a schema and none was given.
    #[error("{0} needs a schema (pass --schema FILE, or let wirebench infer one from the samples)")]
    SchemaRequired(&'static str),
    /// The value does not fit the schema.
    #[error(transparent)]
    Schema(#[from] SchemaMismatch),
    #[error("encode failed: {0}")]
    Encode(String),
    /// Malformed input; `offset` is the byte where the problem was found, when known;
    /// `kind` is the decoder's error kind for our own codecs (PSON, Protoson, UADP, CDR): the
    /// stable snake_case name that the Rust, C and Python ports share (e.g. `unexpected_end`).
    #[error("{msg}{}", offset.map(|o| format!(" at byte {o}")).unwrap_or_default())]
    Decode { msg: String, offset: Option<usize>, kind: Option<&'static str> },
}

impl CodecError {
    pub fn decode(msg: impl Into<String>, offset: Option<usize>) -> CodecError {
        CodecError::Decode { msg: escape_controls(&msg.into()), offset, kind: None }
    }

    /// A decode error of one of our codecs, with its shared error kind.
    pub fn decode_kind(msg: impl Into<String>, kind: &'static str, offset: usize) -> CodecError {
        CodecError::Decode { msg: escape_controls(&msg.into()), offset: Some(offset), kind: Some(kind) }
    }

    /// The byte offset of a decode error, when known.
    pub fn offset(&self) -> Option<usize> {
        match self {
            CodecError::Decode { offset, .. } => *offset,
            _ => None,
        }
    }

    /// The shared error kind of a decode error of our own codecs.
    pub fn kind(&self) -> Option<&'static str> {
        match self {
            CodecError::Decode { kind, .. } => *kind,
            _ => None,
        }
    }
}

/// `text` with every control character (ESC, CR, BEL, ...) written as a `\x1b`-style escape:
/// the input's bytes that a decoder's message quotes must not reach a terminal raw.
pub fn escape_controls(text: &str) -> String {
    wirebench_core::names::escape_controls(text, &[])
}

/// The default deepest nesting of containers (maps, arrays, documents, records) every decoder
/// accepts: a root container has depth 1. Deeper input is refused with the byte offset, never
/// followed (a recursive reader would overflow the stack). The limit in force is
/// [`wirebench_core::value::max_depth`] (the CLI's `--max-depth` sets it).
pub use wirebench_core::value::DEFAULT_MAX_DEPTH as MAX_DEPTH;

/// One wire format implementation.
pub trait Codec: Send + Sync {
    fn info(&self) -> &'static CodecInfo;

    /// Append the encoding of `value` to `out`. Schema-directed codecs need `schema`.
    fn encode(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError>;

    /// [`Codec::encode`] of a value the caller has already checked against `schema` (a size
    /// run checks each message once, not once per codec): the same bytes, without the check.
    fn encode_fitted(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.encode(value, schema, out)
    }

    /// Decode one value from `bytes` (all of them).
    fn decode(&self, bytes: &[u8], schema: Option<&Schema>) -> Result<Value, CodecError>;

    /// Bind the codec to a schema once, doing any per-schema work up front (measurements
    /// encode and decode through this, so that work is not timed per message).
    fn prepare(&self, schema: Option<&Schema>) -> Result<Box<dyn Prepared + '_>, CodecError> {
        Ok(Box::new(Bound { codec: self, schema: schema.cloned() }))
    }
}

/// A codec bound to a schema (see [`Codec::prepare`]).
pub trait Prepared: Send + Sync {
    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError>;
    /// [`Prepared::encode`] of a value already checked against the schema this binding was
    /// prepared with (see [`Codec::encode_fitted`]).
    fn encode_fitted(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.encode(value, out)
    }
    fn decode(&self, bytes: &[u8]) -> Result<Value, CodecError>;
}

/// The default binding: the codec and its schema, nothing precomputed.
struct Bound<'c, C: ?Sized> {
    codec: &'c C,
    schema: Option<Schema>,
}

impl<C: Codec + ?Sized> Prepared for Bound<'_, C> {
    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.codec.encode(value, self.schema.as_ref(), out)
    }
    fn encode_fitted(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.codec.encode_fitted(value, self.schema.as_ref(), out)
    }
    fn decode(&self, bytes: &[u8]) -> Result<Value, CodecError> {
        self.codec.decode(bytes, self.schema.as_ref())
    }
}

/// Every codec, in the order reports list them (JSON first: it is the baseline).
pub fn registry() -> &'static [&'static dyn Codec] {
    static ALL: &[&dyn Codec] = &[
        &json::Json,
        &cbor::Cbor,
        &msgpack::MsgPack,
        &bson::Bson,
        &protobuf::Protobuf,
        &avro::Avro,
        &thrift::ThriftCompact,
        &xml::Xml,
        &yaml::Yaml,
        &pson::Pson,
        &pson::Protoson,
        &cdr::Xcdr1,
        &cdr::Xcdr2,
        &uadp::Uadp,
        &uadp::UadpJson,
        &uadp::UadpJsonRev,
    ];
    ALL
}

/// Look a codec up by its id (case-insensitive; a few common aliases too).
pub fn find(id: &str) -> Option<&'static dyn Codec> {
    let id = id.to_ascii_lowercase();
    let id = match id.as_str() {
        "msgpack" | "messagepack" => "msgpack",
        "proto" | "protobuf" | "protocol-buffers" => "protobuf",
        "thrift" | "thrift-compact" => "thrift",
        "yml" => "yaml",
        "cdr" | "xcdr1" => "cdr-xcdr1",
        "xcdr2" => "cdr-xcdr2",
        other => other,
    };
    registry().iter().copied().find(|c| c.info().id == id)
}

/// The ids of every codec, comma-separated (for error messages).
pub fn ids() -> String {
    registry().iter().map(|c| c.info().id).collect::<Vec<_>>().join(", ")
}

/// The schema a schema-directed codec must have.
pub(crate) fn need_schema<'s>(schema: Option<&'s Schema>, codec: &'static str) -> Result<&'s Schema, CodecError> {
    let schema = schema.ok_or(CodecError::SchemaRequired(codec))?;
    // A schema file with constructs the shared model cannot express: only its own protocol's
    // codecs read it (an .avsc or IDL file: `native`; a .proto with recursion or maps: Protobuf,
    // through the descriptor).
    if let Some(native) = &schema.native {
        if let Some(why) = native.unmapped.as_deref().filter(|_| !native.read_by(codec)) {
            return Err(CodecError::Unsupported(why.to_string()));
        }
    }
    if let Some(why) = schema.proto.as_ref().and_then(|p| p.model_error.as_ref()).filter(|_| codec != "protobuf") {
        return Err(CodecError::Unsupported(why.clone()));
    }
    if !schema.native.as_ref().is_some_and(|n| n.read_by(codec)) {
        check_schema_depth(schema)?;
    }
    Ok(schema)
}

/// A schema nested deeper than the nesting limit is refused (the codecs' schema compilers
/// and readers walk it recursively).
pub(crate) fn check_schema_depth(schema: &Schema) -> Result<(), CodecError> {
    let max = wirebench_core::value::max_depth();
    if schema.depth() > max {
        return Err(CodecError::Unsupported(format!("schema {}", wirebench_core::value::too_deep(max))));
    }
    Ok(())
}

/// The fields of a schema whose root must be a record (Protobuf, Thrift and Avro messages).
pub(crate) fn root_record<'s>(schema: &'s Schema, codec: &str) -> Result<&'s [wirebench_core::Field], CodecError> {
    match &schema.root {
        wirebench_core::Type::Record { fields, .. } => Ok(fields),
        other => Err(CodecError::Unsupported(format!(
            "{codec} messages are records; this schema's root is {}",
            other.describe()
        ))),
    }
}
