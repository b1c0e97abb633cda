//! The JSON NetworkMessage mapping (OPC 10000-14 §7.2.5, v1.05; field values per
//! OPC 10000-6 §5.4), written and read by a small built-in JSON writer/reader
//! (no serde: the crate stays `no_std` + `alloc` with no dependencies).
//!
//! Two forms ([`JsonForm`]):
//!
//! * **Reversible** — the 1.05 typed form (Compact encoding, FieldEncoding1 = FieldEncoding2 = 1):
//!   a Variant field is `{"UaType":10,"Value":25.5}`, a DataValue field is flattened
//!   `{"UaType":10,"Value":25.5,"Status":{"Code":…},"SourceTimestamp":"…"}`, StatusCodes
//!   are `{"Code":n}`. This is what open62541 v1.5 reads and writes. Decoding needs no
//!   metadata except for delta frames (field names → indices), and JSON → UADP → JSON gives
//!   the same JSON.
//! * **NonReversible** — the untyped form (Verbose encoding in RawData mode; 1.04's
//!   non-reversible form): a Variant field is the bare value `25.5`, a DataValue field is
//!   `{"Value":25.5,"SourceTimestamp":"…"}` (the seed thesis's shape), StatusCodes are
//!   `{"Code":n,"Symbol":"…"}`. Decoding takes the field types from [`DataSetMetaData`]; without
//!   it they are guessed (JSON number → Double, string → String, …), which keeps the JSON
//!   text but not the UADP types.
//!
//! What UADP has and the JSON mapping has not (lost UADP → JSON): GroupHeader,
//! NetworkMessage Timestamp/PicoSeconds, PromotedFields, DataSetMessage PicoSeconds and
//! valid bit, Variant vs. DataValue vs. RawData field encoding (JSON reading picks DataValue
//! when a field has status or timestamps, else Variant), the PublisherId type (JSON has text),
//! Good (0) status codes, null arrays (written as `[]`). What JSON has and UADP has not
//! (kept in [`JsonMessage`] so the JSON can be written again): MessageId, field names, the
//! header layout. Members outside this mapping (DataSetWriterName, WriterGroupName, …) are
//! ignored when reading.

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write as _;

use crate::error::{Error, ErrorKind};
use crate::model::*;
use crate::time;

/// Deepest JSON nesting the reader accepts.
pub const MAX_DEPTH: usize = 64;

/// Typed (reversible) or untyped (non-reversible) field values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JsonForm {
    #[default]
    Reversible,
    NonReversible,
}

/// How to write a NetworkMessage as JSON (the JsonNetworkMessageContentMask /
/// JsonDataSetMessageContentMask choices this mapping supports).
#[derive(Debug, Clone, Copy)]
pub struct JsonOptions<'a> {
    pub form: JsonForm,
    /// `MessageId` (UADP has none; Part 14 wants a globally unique string).
    pub message_id: &'a str,
    /// Field names (per DataSetWriterId, see [`DataSetMetaData::find`]); a field without a
    /// name is written as `"Field<i>"`.
    pub metadata: &'a [DataSetMetaData],
    /// Write the NetworkMessage object (`MessageId`, `MessageType`, `PublisherId`,
    /// `DataSetClassId`, `Messages`); without it the text is the DataSetMessage(s).
    pub network_message_header: bool,
    /// Write DataSetMessage headers; without them each DataSetMessage is its Payload object.
    pub data_set_message_header: bool,
    /// `Messages` (or the whole text) is one DataSetMessage object instead of an array.
    pub single_data_set_message: bool,
    /// Write `"MessageType":"ua-keyframe"` etc. in each DataSetMessage.
    pub message_type: bool,
}

impl Default for JsonOptions<'_> {
    fn default() -> Self {
        JsonOptions {
            form: JsonForm::Reversible,
            message_id: "",
            metadata: &[],
            network_message_header: true,
            data_set_message_header: true,
            single_data_set_message: false,
            message_type: true,
        }
    }
}

/// How to read JSON.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonDecodeOptions<'a> {
    /// Field names and types: needed for delta frames and for typed reading of untyped values.
    pub metadata: &'a [DataSetMetaData],
    /// The PublisherId type to read the `PublisherId` text as (JSON carries only text;
    /// Part 14 leaves the type to configuration). `None`: digits that fit in 64 bits (no
    /// leading zero) are a UInt64 PublisherId, as open62541 reads them; other text a String.
    /// A text that does not parse as the given numeric type is an error.
    pub publisher_id_type: Option<BuiltInType>,
}

/// A NetworkMessage read from JSON, with what JSON has and UADP has not.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonMessage {
    pub message: NetworkMessage,
    pub message_id: Option<String>,
    /// NonReversible if any field value was untyped.
    pub form: JsonForm,
    pub network_message_header: bool,
    pub data_set_message_header: bool,
    pub single_data_set_message: bool,
    pub message_type: bool,
    /// Per DataSetMessage: its writer id and its fields' names and types.
    pub metadata: Vec<DataSetMetaData>,
}

impl JsonMessage {
    /// The options that write this message back as the same JSON.
    pub fn options(&self) -> JsonOptions<'_> {
        JsonOptions {
            form: self.form,
            message_id: self.message_id.as_deref().unwrap_or(""),
            metadata: &self.metadata,
            network_message_header: self.network_message_header,
            data_set_message_header: self.data_set_message_header,
            single_data_set_message: self.single_data_set_message,
            message_type: self.message_type,
        }
    }
}

// =========================================================================================
// Writing

/// Write `msg` as JSON text.
pub fn to_json(msg: &NetworkMessage, opts: &JsonOptions<'_>) -> Result<String, Error> {
    let mut w = JsonWriter { out: String::new(), form: opts.form };
    w.network_message(msg, opts)?;
    Ok(w.out)
}

struct JsonWriter {
    out: String,
    form: JsonForm,
}

fn field_name(meta: Option<&DataSetMetaData>, i: usize) -> Cow<'_, str> {
    // The metadata's name as given, even empty (a JSON key may be ""): a substitute would not
    // find the field again when the text is read back with the same metadata.
    match meta.and_then(|m| m.fields.get(i)) {
        Some(f) => Cow::Borrowed(f.name.as_str()),
        None => Cow::Owned(alloc::format!("Field{i}")),
    }
}

impl JsonWriter {
    fn err(&self, kind: ErrorKind) -> Error {
        Error::new(kind, self.out.len())
    }

    fn key(&mut self, first: &mut bool, k: &str) {
        if !*first {
            self.out.push(',');
        }
        *first = false;
        self.string(k);
        self.out.push(':');
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        // Most strings need no escape: copy them whole.
        if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
            self.out.push_str(s);
            self.out.push('"');
            return;
        }
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '\u{08}' => self.out.push_str("\\b"),
                '\u{0c}' => self.out.push_str("\\f"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(self.out, "\\u{:04x}", c as u32);
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    fn network_message(&mut self, m: &NetworkMessage, o: &JsonOptions<'_>) -> Result<(), Error> {
        if o.single_data_set_message && m.messages.len() != 1 {
            return Err(self.err(ErrorKind::InvalidCount));
        }
        if let Some(ids) = &m.data_set_writer_ids {
            if ids.len() != m.messages.len() {
                return Err(self.err(ErrorKind::InvalidCount));
            }
        }
        if o.network_message_header {
            self.out.push('{');
            let mut first = true;
            self.key(&mut first, "MessageId");
            self.string(o.message_id);
            self.key(&mut first, "MessageType");
            self.string("ua-data");
            if let Some(p) = &m.publisher_id {
                self.key(&mut first, "PublisherId");
                self.publisher_id(p);
            }
            if let Some(g) = &m.data_set_class_id {
                self.key(&mut first, "DataSetClassId");
                self.string(&g.to_string());
            }
            self.key(&mut first, "Messages");
        }
        if !o.single_data_set_message {
            self.out.push('[');
        }
        for (i, d) in m.messages.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            let writer = m.data_set_writer_ids.as_ref().and_then(|ids| ids.get(i).copied());
            let pubid = if o.network_message_header { None } else { m.publisher_id.as_ref() };
            self.data_set_message(d, writer, pubid, o)?;
        }
        if !o.single_data_set_message {
            self.out.push(']');
        }
        if o.network_message_header {
            self.out.push('}');
        }
        Ok(())
    }

    fn publisher_id(&mut self, p: &PublisherId) {
        match p {
            PublisherId::Byte(v) => self.string(&v.to_string()),
            PublisherId::UInt16(v) => self.string(&v.to_string()),
            PublisherId::UInt32(v) => self.string(&v.to_string()),
            PublisherId::UInt64(v) => self.string(&v.to_string()),
            PublisherId::String(s) => self.string(s),
        }
    }

    fn data_set_message(
        &mut self,
        d: &DataSetMessage,
        writer: Option<u16>,
        pubid: Option<&PublisherId>,
        o: &JsonOptions<'_>,
    ) -> Result<(), Error> {
        let meta = DataSetMetaData::find(o.metadata, writer);
        if !o.data_set_message_header {
            return match &d.payload {
                Payload::KeepAlive => Err(self.err(ErrorKind::Unrepresentable)),
                _ => self.payload(d, meta),
            };
        }
        self.out.push('{');
        let mut first = true;
        if let Some(w) = writer {
            self.key(&mut first, "DataSetWriterId");
            let _ = write!(self.out, "{w}");
        }
        if let Some(p) = pubid {
            self.key(&mut first, "PublisherId");
            self.publisher_id(p);
        }
        if let Some(s) = d.sequence_number {
            self.key(&mut first, "SequenceNumber");
            let _ = write!(self.out, "{s}");
        }
        if d.config_version_major.is_some() || d.config_version_minor.is_some() {
            self.key(&mut first, "MetaDataVersion");
            self.out.push('{');
            let mut f = true;
            if let Some(v) = d.config_version_major {
                self.key(&mut f, "MajorVersion");
                let _ = write!(self.out, "{v}");
            }
            if let Some(v) = d.config_version_minor {
                self.key(&mut f, "MinorVersion");
                let _ = write!(self.out, "{v}");
            }
            self.out.push('}');
        }
        if let Some(t) = d.timestamp {
            self.key(&mut first, "Timestamp");
            self.datetime(t);
        }
        if let Some(s) = d.status {
            self.key(&mut first, "Status");
            self.status_code(StatusCode((s as u32) << 16));
        }
        if o.message_type {
            self.key(&mut first, "MessageType");
            self.string(match d.payload {
                Payload::KeyFrame(_) => "ua-keyframe",
                Payload::DeltaFrame(_) => "ua-deltaframe",
                Payload::KeepAlive => "ua-keepalive",
                Payload::Skipped { .. } => return Err(self.err(ErrorKind::Unrepresentable)),
            });
        }
        if !matches!(d.payload, Payload::KeepAlive) {
            self.key(&mut first, "Payload");
            self.payload(d, meta)?;
        }
        self.out.push('}');
        Ok(())
    }

    fn payload(&mut self, d: &DataSetMessage, meta: Option<&DataSetMetaData>) -> Result<(), Error> {
        self.out.push('{');
        let mut first = true;
        match &d.payload {
            Payload::KeyFrame(fields) => {
                for (i, f) in fields.iter().enumerate() {
                    self.key(&mut first, &field_name(meta, i));
                    self.field(f)?;
                }
            }
            Payload::DeltaFrame(fields) => {
                for f in fields {
                    self.key(&mut first, &field_name(meta, f.index as usize));
                    self.field(&f.value)?;
                }
            }
            Payload::KeepAlive => {}
            Payload::Skipped { .. } => return Err(self.err(ErrorKind::Unrepresentable)),
        }
        self.out.push('}');
        Ok(())
    }

    fn field(&mut self, f: &Field) -> Result<(), Error> {
        match f {
            Field::Variant(v) => match self.form {
                JsonForm::Reversible => {
                    self.out.push('{');
                    let mut first = true;
                    self.typed_members(v, &mut first);
                    self.out.push('}');
                }
                JsonForm::NonReversible => self.bare(v),
            },
            Field::DataValue(dv) => {
                self.out.push('{');
                let mut first = true;
                if let Some(v) = &dv.value {
                    match self.form {
                        JsonForm::Reversible => self.typed_members(v, &mut first),
                        JsonForm::NonReversible => {
                            self.key(&mut first, "Value");
                            self.bare(v);
                        }
                    }
                }
                if let Some(s) = dv.status {
                    if s.0 != 0 {
                        self.key(&mut first, "Status");
                        self.status_code(s);
                    }
                }
                if let Some(t) = dv.source_timestamp {
                    self.key(&mut first, "SourceTimestamp");
                    self.datetime(t);
                }
                if let Some(p) = dv.source_picoseconds {
                    if p != 0 {
                        self.key(&mut first, "SourcePicoseconds");
                        let _ = write!(self.out, "{p}");
                    }
                }
                if let Some(t) = dv.server_timestamp {
                    self.key(&mut first, "ServerTimestamp");
                    self.datetime(t);
                }
                if let Some(p) = dv.server_picoseconds {
                    if p != 0 {
                        self.key(&mut first, "ServerPicoseconds");
                        let _ = write!(self.out, "{p}");
                    }
                }
                self.out.push('}');
            }
        }
        Ok(())
    }

    /// `"UaType":n,"Value":v` (nothing for a null Variant; no Value for a null String/ByteString).
    fn typed_members(&mut self, v: &Variant, first: &mut bool) {
        let Some(ty) = v.built_in_type() else { return };
        self.key(first, "UaType");
        let _ = write!(self.out, "{}", ty.id());
        match v {
            Variant::Scalar(Scalar::String(None)) | Variant::Scalar(Scalar::ByteString(None)) => {}
            _ => {
                self.key(first, "Value");
                self.bare(v);
            }
        }
    }

    fn bare(&mut self, v: &Variant) {
        match v {
            Variant::Null => self.out.push_str("null"),
            Variant::Scalar(s) => self.scalar(s),
            Variant::NullArray(_) => self.out.push_str("[]"),
            Variant::Array { items, .. } => {
                self.out.push('[');
                for (i, s) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.scalar(s);
                }
                self.out.push(']');
            }
        }
    }

    fn float(&mut self, f: f64, as_f32: Option<f32>) {
        if f.is_nan() {
            self.out.push_str("\"NaN\"");
        } else if f.is_infinite() {
            self.out.push_str(if f > 0.0 { "\"Infinity\"" } else { "\"-Infinity\"" });
        } else {
            let a = f.abs();
            let exp = a != 0.0 && !(1e-6..1e21).contains(&a);
            // Rust's float formatting is the shortest text that reads back as the same value.
            let _ = match (as_f32, exp) {
                (Some(x), false) => write!(self.out, "{x}"),
                (Some(x), true) => write!(self.out, "{x:e}"),
                (None, false) => write!(self.out, "{f}"),
                (None, true) => write!(self.out, "{f:e}"),
            };
        }
    }

    fn scalar(&mut self, s: &Scalar) {
        let _ = match s {
            Scalar::Boolean(b) => write!(self.out, "{b}"),
            Scalar::SByte(v) => write!(self.out, "{v}"),
            Scalar::Byte(v) => write!(self.out, "{v}"),
            Scalar::Int16(v) => write!(self.out, "{v}"),
            Scalar::UInt16(v) => write!(self.out, "{v}"),
            Scalar::Int32(v) => write!(self.out, "{v}"),
            Scalar::UInt32(v) => write!(self.out, "{v}"),
            Scalar::Int64(v) => write!(self.out, "\"{v}\""),
            Scalar::UInt64(v) => write!(self.out, "\"{v}\""),
            Scalar::Float(v) => {
                self.float(*v as f64, Some(*v));
                Ok(())
            }
            Scalar::Double(v) => {
                self.float(*v, None);
                Ok(())
            }
            Scalar::String(None) | Scalar::ByteString(None) => write!(self.out, "null"),
            Scalar::String(Some(t)) => {
                self.string(t);
                Ok(())
            }
            Scalar::DateTime(t) => {
                self.datetime(*t);
                Ok(())
            }
            Scalar::Guid(g) => write!(self.out, "\"{g}\""),
            Scalar::ByteString(Some(b)) => {
                self.out.push('"');
                base64_encode_into(b, &mut self.out);
                self.out.push('"');
                Ok(())
            }
            Scalar::StatusCode(c) => {
                self.status_code(*c);
                Ok(())
            }
        };
    }

    fn datetime(&mut self, t: DateTime) {
        self.out.push('"');
        time::write_iso8601(t, &mut self.out);
        self.out.push('"');
    }

    /// `{"Code":n}`; NonReversible adds `"Symbol"` when the code is known. Good is `{}`.
    fn status_code(&mut self, c: StatusCode) {
        self.out.push('{');
        if c.0 != 0 {
            let _ = write!(self.out, "\"Code\":{}", c.0);
            if self.form == JsonForm::NonReversible {
                if let Some(sym) = status_symbol(c.0) {
                    self.out.push_str(",\"Symbol\":");
                    self.string(sym);
                }
            }
        }
        self.out.push('}');
    }
}

/// Symbolic names of a few StatusCodes (OPC 10000-6 A.2), InfoBits ignored.
pub fn status_symbol(code: u32) -> Option<&'static str> {
    Some(match code & 0xffff_0000 {
        0x0000_0000 => "Good",
        0x4000_0000 => "Uncertain",
        0x8000_0000 => "Bad",
        0x8001_0000 => "BadUnexpectedError",
        0x8002_0000 => "BadInternalError",
        0x8003_0000 => "BadOutOfMemory",
        0x8004_0000 => "BadResourceUnavailable",
        0x8005_0000 => "BadCommunicationError",
        0x8006_0000 => "BadEncodingError",
        0x8007_0000 => "BadDecodingError",
        0x8008_0000 => "BadEncodingLimitsExceeded",
        0x800a_0000 => "BadTimeout",
        _ => return None,
    })
}

// =========================================================================================
// base64 (RFC 4648 standard alphabet, padded), for ByteString values.

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Base64 text of `bytes` (standard alphabet, `=` padding).
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut s = String::new();
    base64_encode_into(bytes, &mut s);
    s
}

fn base64_encode_into(bytes: &[u8], out: &mut String) {
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

/// Decode base64 (standard alphabet; padding optional; no whitespace).
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let t = text.trim_end_matches('=').as_bytes();
    if text.len() - t.len() > 2 || t.len() % 4 == 1 {
        return None;
    }
    let val = |c: u8| B64.iter().position(|&x| x == c).map(|p| p as u32);
    let mut out = Vec::with_capacity(t.len() * 3 / 4);
    for chunk in t.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c)? << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    Some(out)
}

// =========================================================================================
// A small JSON reader: a tree with byte offsets, numbers kept as text.

#[derive(Debug)]
enum Jv<'t> {
    Null,
    Bool(bool),
    Num(&'t str),
    /// Borrowed from the text unless it has escapes.
    Str(Cow<'t, str>),
    Arr(Vec<Node<'t>>),
    Obj(Vec<(Cow<'t, str>, Node<'t>)>),
}

#[derive(Debug)]
struct Node<'t> {
    at: usize,
    v: Jv<'t>,
}

impl<'t> Node<'t> {
    fn get(&self, key: &str) -> Option<&Node<'t>> {
        match &self.v {
            Jv::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn has_any(&self, keys: &[&str]) -> bool {
        keys.iter().any(|k| self.get(k).is_some())
    }
    fn bad(&self) -> Error {
        Error::new(ErrorKind::JsonValue, self.at)
    }
    fn str(&self) -> Result<&str, Error> {
        match &self.v {
            Jv::Str(s) => Ok(s.as_ref()),
            _ => Err(self.bad()),
        }
    }
    /// An unsigned integer member in `0..=max`.
    fn uint(&self, max: u64) -> Result<u64, Error> {
        match &self.v {
            Jv::Num(t) => match t.parse::<u64>() {
                Ok(v) if v <= max => Ok(v),
                _ => Err(self.bad()),
            },
            _ => Err(self.bad()),
        }
    }
}

struct Parser<'t> {
    s: &'t str,
    b: &'t [u8],
    pos: usize,
}

impl<'t> Parser<'t> {
    fn syntax(&self) -> Error {
        Error::new(ErrorKind::JsonSyntax, self.pos.min(self.b.len()))
    }

    fn ws(&mut self) {
        while matches!(self.b.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Result<(), Error> {
        if self.b.get(self.pos) == Some(&c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.syntax())
        }
    }

    fn lit(&mut self, word: &str) -> Result<(), Error> {
        if self.b.get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.syntax())
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node<'t>, Error> {
        self.ws();
        let at = self.pos;
        let v = match self.b.get(self.pos) {
            None => return Err(self.syntax()),
            Some(b'n') => {
                self.lit("null")?;
                Jv::Null
            }
            Some(b't') => {
                self.lit("true")?;
                Jv::Bool(true)
            }
            Some(b'f') => {
                self.lit("false")?;
                Jv::Bool(false)
            }
            Some(b'"') => Jv::Str(self.string()?),
            Some(b'[') => {
                if depth >= MAX_DEPTH {
                    return Err(Error::new(ErrorKind::DepthLimit, at));
                }
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                } else {
                    loop {
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match self.b.get(self.pos) {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.syntax()),
                        }
                    }
                }
                Jv::Arr(items)
            }
            Some(b'{') => {
                if depth >= MAX_DEPTH {
                    return Err(Error::new(ErrorKind::DepthLimit, at));
                }
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.b.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        if self.b.get(self.pos) != Some(&b'"') {
                            return Err(self.syntax());
                        }
                        let k = self.string()?;
                        self.ws();
                        self.eat(b':')?;
                        let v = self.value(depth + 1)?;
                        members.push((k, v));
                        self.ws();
                        match self.b.get(self.pos) {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.syntax()),
                        }
                    }
                }
                Jv::Obj(members)
            }
            Some(b'-' | b'0'..=b'9') => Jv::Num(self.number()?),
            Some(_) => return Err(self.syntax()),
        };
        Ok(Node { at, v })
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.b.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<&'t str, Error> {
        let start = self.pos;
        if self.b.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match self.b.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.syntax()),
        }
        if self.b.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.syntax());
            }
        }
        if matches!(self.b.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.b.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.syntax());
            }
        }
        self.s.get(start..self.pos).ok_or_else(|| self.syntax())
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = self.b.get(self.pos).and_then(|&c| (c as char).to_digit(16)).ok_or_else(|| self.syntax())?;
            v = v << 4 | d;
            self.pos += 1;
        }
        Ok(v)
    }

    /// A string: a slice of the text when it has no escapes (most keys and values), else a
    /// copy with the escapes resolved.
    fn string(&mut self) -> Result<Cow<'t, str>, Error> {
        self.eat(b'"')?;
        let start = self.pos;
        while let Some(&c) = self.b.get(self.pos) {
            if c == b'"' {
                // The run stops at an ASCII byte of a &str, so both ends are char boundaries.
                let s = self.s.get(start..self.pos).ok_or_else(|| self.syntax())?;
                self.pos += 1;
                return Ok(Cow::Borrowed(s));
            }
            if c == b'\\' || c < 0x20 {
                break;
            }
            self.pos += 1;
        }
        // An escape (or a control byte, refused below): the run so far is copied once and the
        // loop goes on from there.
        let mut out = String::from(self.s.get(start..self.pos).ok_or_else(|| self.syntax())?);
        loop {
            let run = self.pos;
            while let Some(&c) = self.b.get(self.pos) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // The input is a &str and the run stops at ASCII bytes, so it is a char boundary.
            out.push_str(self.s.get(run..self.pos).ok_or_else(|| self.syntax())?);
            match self.b.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = *self.b.get(self.pos).ok_or_else(|| self.syntax())?;
                    self.pos += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{08}'),
                        b'f' => out.push('\u{0c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let at = self.pos - 2;
                            let hi = self.hex4()?;
                            let cp = if (0xd800..0xdc00).contains(&hi) {
                                self.lit("\\u").map_err(|_| Error::new(ErrorKind::JsonSyntax, at))?;
                                let lo = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&lo) {
                                    return Err(Error::new(ErrorKind::JsonSyntax, at));
                                }
                                0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                            } else {
                                hi
                            };
                            out.push(char::from_u32(cp).ok_or(Error::new(ErrorKind::JsonSyntax, at))?);
                        }
                        _ => {
                            self.pos -= 1;
                            return Err(self.syntax());
                        }
                    }
                }
                _ => return Err(self.syntax()),
            }
        }
    }
}

fn parse(text: &str) -> Result<Node<'_>, Error> {
    let mut p = Parser { s: text, b: text.as_bytes(), pos: 0 };
    let root = p.value(0)?;
    p.ws();
    if p.pos != p.b.len() {
        return Err(p.syntax());
    }
    Ok(root)
}

// =========================================================================================
// Reading

const DATA_VALUE_KEYS: [&str; 7] = [
    "Status",
    "StatusCode",
    "SourceTimestamp",
    "SourcePicoseconds",
    "SourcePicoSeconds",
    "ServerTimestamp",
    "ServerPicoseconds",
];

/// Read a JSON NetworkMessage (any of the layouts [`JsonOptions`] can write).
pub fn from_json(text: &str, opts: &JsonDecodeOptions<'_>) -> Result<JsonMessage, Error> {
    let root = parse(text)?;
    let mut out = JsonMessage {
        message: NetworkMessage::default(),
        message_id: None,
        form: JsonForm::Reversible,
        network_message_header: false,
        data_set_message_header: true,
        single_data_set_message: false,
        message_type: false,
        metadata: Vec::new(),
    };
    let is_nm = matches!(root.v, Jv::Obj(_)) && root.has_any(&["Messages", "MessageId"]);
    let dsms: Vec<&Node<'_>> = if is_nm {
        out.network_message_header = true;
        if let Some(id) = root.get("MessageId") {
            out.message_id = Some(id.str()?.into());
        }
        if let Some(t) = root.get("MessageType") {
            if t.str()? != "ua-data" {
                return Err(Error::new(ErrorKind::Unrepresentable, t.at));
            }
        }
        if let Some(p) = root.get("PublisherId") {
            out.message.publisher_id = Some(publisher_id(p, opts)?);
        }
        if let Some(g) = root.get("DataSetClassId") {
            out.message.data_set_class_id = Some(Guid::parse(g.str()?).ok_or_else(|| g.bad())?);
        }
        match root.get("Messages") {
            Some(n @ Node { v: Jv::Obj(_), .. }) => {
                out.single_data_set_message = true;
                alloc::vec![n]
            }
            Some(Node { v: Jv::Arr(items), .. }) => items.iter().collect(),
            Some(n) => return Err(n.bad()),
            None => Vec::new(),
        }
    } else {
        match &root.v {
            Jv::Arr(items) => items.iter().collect(),
            Jv::Obj(_) => {
                out.single_data_set_message = true;
                alloc::vec![&root]
            }
            _ => return Err(root.bad()),
        }
    };
    if dsms.is_empty() {
        return Err(Error::new(ErrorKind::InvalidCount, root.at));
    }
    if dsms.len() > 255 {
        return Err(Error::new(ErrorKind::LengthLimit, root.at));
    }
    // A DataSetMessage with a header has at least one header member or a Payload object.
    let headerless = dsms.iter().all(|d| {
        matches!(d.v, Jv::Obj(_))
            && !d.has_any(&[
                "Payload",
                "DataSetWriterId",
                "SequenceNumber",
                "MessageType",
                "MetaDataVersion",
                "Timestamp",
                "Status",
            ])
    });
    out.data_set_message_header = !headerless;
    // The form: untyped if any field value is (a bare value, a DataValue with an untyped
    // "Value", or a status with its "Symbol"); `{}` and other DataValues without a value say
    // nothing.
    // A `{}` for a field the metadata calls a scalar StatusCode is a Good StatusCode (the field
    // reader takes it so), which only the untyped form writes as `{}`.
    let untyped = |name: &str, v: &Node<'_>, meta: Option<&DataSetMetaData>| match &v.v {
        Jv::Obj(m) if m.is_empty() => meta.is_some_and(|md| {
            md.fields.iter().any(|f| f.name == name && f.built_in_type == BuiltInType::StatusCode && !f.array)
        }),
        // A DataValue's StatusCode with its "Symbol" (only the untyped form writes one).
        Jv::Obj(_) => {
            (v.get("UaType").is_none() && v.has_any(&["Value", "Code", "Symbol"]))
                || v.get("Status").is_some_and(|st| st.get("Symbol").is_some())
        }
        _ => true,
    };
    let any_untyped = dsms.iter().any(|&d| {
        let payload = if headerless { Some(d) } else { d.get("Payload") };
        let writer =
            if headerless { None } else { d.get("DataSetWriterId").and_then(|w| w.uint(u16::MAX as u64).ok()) };
        let meta = DataSetMetaData::find(opts.metadata, writer.map(|w| w as u16));
        matches!(payload.map(|p| &p.v), Some(Jv::Obj(m)) if m.iter().any(|(k, v)| untyped(k, v, meta)))
    });
    if any_untyped {
        out.form = JsonForm::NonReversible;
    }
    let mut ids: Vec<Option<u16>> = Vec::new();
    for d in dsms {
        let (dsm, writer, meta) = data_set_message(d, headerless, opts, &mut out)?;
        out.message.messages.push(dsm);
        ids.push(writer);
        out.metadata.push(meta);
    }
    if ids.iter().all(Option::is_some) {
        out.message.data_set_writer_ids = Some(ids.into_iter().flatten().collect());
    } else if ids.iter().any(Option::is_some) || out.message.messages.len() != 1 {
        // UADP has writer ids for all messages (PayloadHeader) or for none (one message).
        return Err(Error::new(ErrorKind::Unrepresentable, root.at));
    }
    Ok(out)
}

fn publisher_id(p: &Node<'_>, opts: &JsonDecodeOptions<'_>) -> Result<PublisherId, Error> {
    let t = p.str()?;
    let n = || t.parse::<u64>().map_err(|_| p.bad());
    Ok(match opts.publisher_id_type {
        // Without a configured type, digits that fit are a UInt64 PublisherId (as open62541
        // reads them), anything else a String.
        None if !t.is_empty()
            && t.bytes().all(|b| b.is_ascii_digit())
            && (t == "0" || !t.starts_with('0'))
            && t.parse::<u64>().is_ok() =>
        {
            PublisherId::UInt64(n()?)
        }
        None | Some(BuiltInType::String) => PublisherId::String(t.into()),
        Some(BuiltInType::Byte) => PublisherId::Byte(u8::try_from(n()?).map_err(|_| p.bad())?),
        Some(BuiltInType::UInt16) => PublisherId::UInt16(u16::try_from(n()?).map_err(|_| p.bad())?),
        Some(BuiltInType::UInt32) => PublisherId::UInt32(u32::try_from(n()?).map_err(|_| p.bad())?),
        Some(BuiltInType::UInt64) => PublisherId::UInt64(n()?),
        Some(_) => return Err(p.bad()),
    })
}

fn data_set_message(
    d: &Node<'_>,
    headerless: bool,
    opts: &JsonDecodeOptions<'_>,
    out: &mut JsonMessage,
) -> Result<(DataSetMessage, Option<u16>, DataSetMetaData), Error> {
    let mut m = DataSetMessage::default();
    let mut writer = None;
    let payload_node;
    let mut kind = "ua-keyframe";
    if headerless {
        payload_node = Some(d);
    } else {
        if !matches!(d.v, Jv::Obj(_)) {
            return Err(d.bad());
        }
        if let Some(w) = d.get("DataSetWriterId") {
            writer = Some(w.uint(u16::MAX as u64)? as u16);
        }
        if let Some(p) = d.get("PublisherId") {
            if out.message.publisher_id.is_none() {
                out.message.publisher_id = Some(publisher_id(p, opts)?);
            }
        }
        if let Some(s) = d.get("SequenceNumber") {
            let v = s.uint(u32::MAX as u64)?;
            m.sequence_number = Some(u16::try_from(v).map_err(|_| Error::new(ErrorKind::Unrepresentable, s.at))?);
        }
        if let Some(v) = d.get("MetaDataVersion") {
            if let Some(x) = v.get("MajorVersion") {
                m.config_version_major = Some(x.uint(u32::MAX as u64)? as u32);
            }
            if let Some(x) = v.get("MinorVersion") {
                m.config_version_minor = Some(x.uint(u32::MAX as u64)? as u32);
            }
        }
        if let Some(t) = d.get("Timestamp") {
            m.timestamp = Some(datetime(t)?);
        }
        if let Some(s) = d.get("Status") {
            let code = status_code(s)?.0;
            if code & 0xffff != 0 {
                return Err(Error::new(ErrorKind::Unrepresentable, s.at));
            }
            // A Good status (`{}`) is still a status: present in the header, kept on re-encode.
            m.status = Some((code >> 16) as u16);
        }
        payload_node = d.get("Payload");
        match d.get("MessageType") {
            Some(t) => {
                out.message_type = true;
                kind = t.str()?;
            }
            None if payload_node.is_none() => kind = "ua-keepalive",
            None => {}
        }
    }
    let meta_in = DataSetMetaData::find(opts.metadata, writer);
    let mut meta_out = DataSetMetaData { data_set_writer_id: writer, fields: Vec::new() };
    let members: &[(Cow<'_, str>, Node<'_>)] = match payload_node.map(|p| &p.v) {
        Some(Jv::Obj(members)) => members,
        Some(_) => return Err(payload_node.map_or(d.bad(), Node::bad)),
        None => &[],
    };
    if members.len() > u16::MAX as usize {
        return Err(Error::new(ErrorKind::LengthLimit, d.at));
    }
    // Field names identify fields (the DataSetMetaData looks them up by name): a name given
    // twice is ambiguous and would not read back the same, so it is refused at the second one.
    let mut seen = alloc::collections::BTreeSet::new();
    for (name, node) in members {
        if !seen.insert(name.as_ref()) {
            return Err(Error::new(ErrorKind::JsonValue, node.at));
        }
    }
    // DataValue fields: status/timestamp members, or an untyped `{"Value":…}`.
    let untyped_form = out.form == JsonForm::NonReversible;
    // A scalar StatusCode field per the metadata: untyped JSON writes Good as `{}`.
    let good_status = |name: &str| {
        meta_in.is_some_and(|md| {
            md.fields.iter().any(|f| f.name == name && f.built_in_type == BuiltInType::StatusCode && !f.array)
        })
    };
    let as_data_value = members.iter().any(|(name, v)| {
        v.has_any(&DATA_VALUE_KEYS)
            || (v.get("Value").is_some() && v.get("UaType").is_none())
            // Untyped JSON writes a null Variant as `null`, so `{}` is an empty DataValue,
            // unless the metadata says the field is a StatusCode (Good is written `{}`).
            || (untyped_form && matches!(&v.v, Jv::Obj(m) if m.is_empty()) && !good_status(name))
    });
    m.field_encoding = if as_data_value { FieldEncoding::DataValue } else { FieldEncoding::Variant };
    let mut fields: Vec<(Option<usize>, Field)> = Vec::with_capacity(members.len());
    let mut found: Vec<(&Cow<'_, str>, BuiltInType, bool)> = Vec::with_capacity(members.len());
    // Members usually come in metadata order: the field after the last one found is tried
    // before a search (linear for a message in order; names are unique, checked above).
    let mut next = 0usize;
    for (name, node) in members {
        let index = meta_in.and_then(|md| match md.fields.get(next) {
            Some(f) if &f.name == name => Some(next),
            _ => md.fields.iter().position(|f| &f.name == name),
        });
        if let Some(i) = index {
            next = i + 1;
        }
        let hint = index.and_then(|i| meta_in.and_then(|md| md.fields.get(i)));
        let (field, _typed) = if as_data_value { data_value(node, hint)? } else { variant_field(node, hint)? };
        let built_in_type = match &field {
            Field::Variant(v) => v.built_in_type(),
            Field::DataValue(dv) => dv.value.as_ref().and_then(Variant::built_in_type),
        };
        let array = match &field {
            Field::Variant(v) => v.is_array(),
            Field::DataValue(dv) => dv.value.as_ref().is_some_and(Variant::is_array),
        };
        // The names are copied only when the metadata given does not take their place (below).
        found.push((
            name,
            hint.map(|h| h.built_in_type).or(built_in_type).unwrap_or(BuiltInType::String),
            hint.map_or(array, |h| h.array),
        ));
        fields.push((index, field));
    }
    m.payload = match kind {
        "ua-keyframe" => {
            // With metadata naming every field, put them in metadata order.
            if let Some(md) = meta_in {
                let all = fields.iter().all(|(i, _)| i.is_some()) && fields.len() == md.fields.len();
                if all {
                    fields.sort_by_key(|(i, _)| *i);
                    meta_out.fields = md.fields.clone();
                }
            }
            Payload::KeyFrame(fields.into_iter().map(|(_, f)| f).collect())
        }
        "ua-deltaframe" => {
            let mut delta = Vec::with_capacity(fields.len());
            for ((index, value), (_, node)) in fields.into_iter().zip(members) {
                let index = index.ok_or(Error::new(ErrorKind::MissingMetadata, node.at))?;
                let index = u16::try_from(index).map_err(|_| Error::new(ErrorKind::LengthLimit, node.at))?;
                delta.push(DeltaField { index, value });
            }
            if let Some(md) = meta_in {
                meta_out.fields = md.fields.clone();
            }
            Payload::DeltaFrame(delta)
        }
        "ua-keepalive" => {
            if !members.is_empty() {
                return Err(d.bad());
            }
            Payload::KeepAlive
        }
        _ => return Err(Error::new(ErrorKind::Unrepresentable, d.get("MessageType").map_or(d.at, |n| n.at))),
    };
    if meta_out.fields.is_empty() {
        meta_out.fields = found
            .into_iter()
            .map(|(name, built_in_type, array)| FieldMetaData { name: name.to_string(), built_in_type, array })
            .collect();
    }
    Ok((m, writer, meta_out))
}

/// A Variant field value; returns whether it was typed (`UaType`).
fn variant_field(n: &Node<'_>, hint: Option<&FieldMetaData>) -> Result<(Field, bool), Error> {
    if let Jv::Obj(members) = &n.v {
        // `{}` is the null Variant, unless the metadata says it is a (Good) StatusCode.
        let status_hint = hint.is_some_and(|h| h.built_in_type == BuiltInType::StatusCode && !h.array);
        if n.get("UaType").is_some() || (members.is_empty() && !status_hint) {
            return Ok((Field::Variant(typed_variant(n)?), true));
        }
    }
    Ok((Field::Variant(untyped_variant(n, hint)?), false))
}

/// A DataValue field (`{"UaType":…,"Value":…,"Status":…,…}` or without `UaType`).
fn data_value(n: &Node<'_>, hint: Option<&FieldMetaData>) -> Result<(Field, bool), Error> {
    if !matches!(n.v, Jv::Obj(_)) {
        // A bare value among DataValues: a DataValue with only a value.
        let v = untyped_variant(n, hint)?;
        return Ok((Field::DataValue(DataValue::of(v)), false));
    }
    let mut dv = DataValue::default();
    let mut typed = true;
    if n.get("UaType").is_some() {
        dv.value = Some(typed_variant(n)?);
    } else if let Some(v) = n.get("Value") {
        dv.value = Some(untyped_variant(v, hint)?);
        typed = false;
    }
    if let Some(s) = n.get("Status").or_else(|| n.get("StatusCode")) {
        let c = status_code(s)?;
        if c.0 != 0 {
            dv.status = Some(c);
        }
    }
    if let Some(t) = n.get("SourceTimestamp") {
        dv.source_timestamp = Some(datetime(t)?);
    }
    if let Some(p) = n.get("SourcePicoseconds").or_else(|| n.get("SourcePicoSeconds")) {
        dv.source_picoseconds = Some(p.uint(u16::MAX as u64)? as u16).filter(|&p| p != 0);
    }
    if let Some(t) = n.get("ServerTimestamp") {
        dv.server_timestamp = Some(datetime(t)?);
    }
    if let Some(p) = n.get("ServerPicoseconds").or_else(|| n.get("ServerPicoSeconds")) {
        dv.server_picoseconds = Some(p.uint(u16::MAX as u64)? as u16).filter(|&p| p != 0);
    }
    Ok((Field::DataValue(dv), typed))
}

/// `{"UaType":n,"Value":…}` (or `{}` for the null Variant).
fn typed_variant(n: &Node<'_>) -> Result<Variant, Error> {
    let Some(t) = n.get("UaType") else { return Ok(Variant::Null) };
    let id = t.uint(255)? as u8;
    if id == 0 {
        return Ok(Variant::Null);
    }
    let ty = match BuiltInType::from_id(id) {
        Some(ty) => ty,
        None if (16..=25).contains(&id) => return Err(Error::new(ErrorKind::UnsupportedVariantType, t.at)),
        None => return Err(Error::new(ErrorKind::InvalidVariantType, t.at)),
    };
    if let Some(d) = n.get("Dimensions") {
        match &d.v {
            Jv::Arr(a) if a.len() <= 1 => {}
            _ => return Err(Error::new(ErrorKind::UnsupportedArrayDimensions, d.at)),
        }
    }
    match n.get("Value") {
        None => match ty {
            BuiltInType::String => Ok(Variant::Scalar(Scalar::String(None))),
            BuiltInType::ByteString => Ok(Variant::Scalar(Scalar::ByteString(None))),
            _ => Err(t.bad()),
        },
        Some(Node { v: Jv::Arr(items), .. }) => {
            let mut out = Vec::with_capacity(items.len());
            for it in items {
                out.push(scalar(it, ty)?);
            }
            Ok(Variant::Array { ty, items: out })
        }
        Some(v) => Ok(Variant::Scalar(scalar(v, ty)?)),
    }
}

/// A bare value: typed by the metadata when given, else guessed from the JSON.
fn untyped_variant(n: &Node<'_>, hint: Option<&FieldMetaData>) -> Result<Variant, Error> {
    if let Some(h) = hint {
        return match (&n.v, h.array) {
            (Jv::Null, _) => Ok(Variant::Null),
            (Jv::Arr(items), true) => {
                let mut out = Vec::with_capacity(items.len());
                for it in items {
                    out.push(scalar(it, h.built_in_type)?);
                }
                Ok(Variant::Array { ty: h.built_in_type, items: out })
            }
            (_, false) => Ok(Variant::Scalar(scalar(n, h.built_in_type)?)),
            _ => Err(n.bad()),
        };
    }
    let guess = |n: &Node<'_>| -> Option<BuiltInType> {
        match &n.v {
            Jv::Bool(_) => Some(BuiltInType::Boolean),
            Jv::Num(_) => Some(BuiltInType::Double),
            Jv::Str(_) => Some(BuiltInType::String),
            Jv::Obj(_) if n.has_any(&["Code", "Symbol"]) => Some(BuiltInType::StatusCode),
            _ => None,
        }
    };
    match &n.v {
        Jv::Null => Ok(Variant::Null),
        Jv::Arr(items) => {
            let ty = match items.first() {
                None => BuiltInType::Double,
                Some(first) => guess(first).ok_or_else(|| first.bad())?,
            };
            let mut out = Vec::with_capacity(items.len());
            for it in items {
                if guess(it) != Some(ty) {
                    return Err(it.bad());
                }
                out.push(scalar(it, ty)?);
            }
            Ok(Variant::Array { ty, items: out })
        }
        _ => {
            let ty = guess(n).ok_or_else(|| n.bad())?;
            Ok(Variant::Scalar(scalar(n, ty)?))
        }
    }
}

fn datetime(n: &Node<'_>) -> Result<DateTime, Error> {
    time::parse_iso8601(n.str()?).ok_or_else(|| n.bad())
}

fn status_code(n: &Node<'_>) -> Result<StatusCode, Error> {
    match &n.v {
        Jv::Num(_) => Ok(StatusCode(n.uint(u32::MAX as u64)? as u32)),
        Jv::Obj(_) => match n.get("Code") {
            Some(c) => Ok(StatusCode(c.uint(u32::MAX as u64)? as u32)),
            None => Ok(StatusCode::GOOD),
        },
        Jv::Null => Ok(StatusCode::GOOD),
        _ => Err(n.bad()),
    }
}

/// An integer from a JSON number (or, for 64-bit types, a string) within `lo..=hi`.
fn int(n: &Node<'_>, lo: i128, hi: i128, allow_string: bool) -> Result<i128, Error> {
    let text = match &n.v {
        Jv::Num(t) => *t,
        Jv::Str(s) if allow_string => s.as_ref(),
        _ => return Err(n.bad()),
    };
    let v = match text.parse::<i128>() {
        Ok(v) => v,
        Err(_) => {
            // 4.2e1 and 42.0 are integers too.
            let f: f64 = text.parse().map_err(|_| n.bad())?;
            if !f.is_finite() || f.abs() > 1.9e19 || (f as i128) as f64 != f {
                return Err(n.bad());
            }
            f as i128
        }
    };
    if v < lo || v > hi {
        return Err(n.bad());
    }
    Ok(v)
}

fn float_text<'a>(n: &'a Node<'_>) -> Result<&'a str, Error> {
    match &n.v {
        Jv::Num(t) => Ok(t),
        Jv::Str(s) if matches!(s.as_ref(), "NaN" | "Infinity" | "-Infinity") => Ok(s.as_ref()),
        _ => Err(n.bad()),
    }
}

fn scalar(n: &Node<'_>, ty: BuiltInType) -> Result<Scalar, Error> {
    Ok(match ty {
        BuiltInType::Boolean => match n.v {
            Jv::Bool(b) => Scalar::Boolean(b),
            _ => return Err(n.bad()),
        },
        BuiltInType::SByte => Scalar::SByte(int(n, i8::MIN as i128, i8::MAX as i128, false)? as i8),
        BuiltInType::Byte => Scalar::Byte(int(n, 0, u8::MAX as i128, false)? as u8),
        BuiltInType::Int16 => Scalar::Int16(int(n, i16::MIN as i128, i16::MAX as i128, false)? as i16),
        BuiltInType::UInt16 => Scalar::UInt16(int(n, 0, u16::MAX as i128, false)? as u16),
        BuiltInType::Int32 => Scalar::Int32(int(n, i32::MIN as i128, i32::MAX as i128, false)? as i32),
        BuiltInType::UInt32 => Scalar::UInt32(int(n, 0, u32::MAX as i128, false)? as u32),
        BuiltInType::Int64 => Scalar::Int64(int(n, i64::MIN as i128, i64::MAX as i128, true)? as i64),
        BuiltInType::UInt64 => Scalar::UInt64(int(n, 0, u64::MAX as i128, true)? as u64),
        BuiltInType::Float => Scalar::Float(float_text(n)?.parse::<f32>().map_err(|_| n.bad())?),
        BuiltInType::Double => Scalar::Double(float_text(n)?.parse::<f64>().map_err(|_| n.bad())?),
        BuiltInType::String => match &n.v {
            Jv::Str(s) => Scalar::String(Some(String::from(s.as_ref()))),
            Jv::Null => Scalar::String(None),
            _ => return Err(n.bad()),
        },
        BuiltInType::DateTime => Scalar::DateTime(datetime(n)?),
        BuiltInType::Guid => Scalar::Guid(Guid::parse(n.str()?).ok_or_else(|| n.bad())?),
        BuiltInType::ByteString => match &n.v {
            Jv::Str(s) => Scalar::ByteString(Some(base64_decode(s).ok_or_else(|| n.bad())?)),
            Jv::Null => Scalar::ByteString(None),
            _ => return Err(n.bad()),
        },
        BuiltInType::StatusCode => Scalar::StatusCode(status_code(n)?),
    })
}
