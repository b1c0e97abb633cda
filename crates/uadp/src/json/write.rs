//! Writing: a NetworkMessage as JSON text ([`to_json`]), in either [`JsonForm`], and the
//! StatusCode symbols of the NonReversible form.

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use core::fmt::Write as _;

use super::base64::base64_encode_into;
use super::{JsonForm, JsonOptions};
use crate::error::{Error, ErrorKind};
use crate::model::*;
use crate::time;

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
