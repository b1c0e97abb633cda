//! UADP encoder (OPC 10000-14 §7.2.4). Flag bytes are derived from what the
//! model holds; optional flag bytes (ExtendedFlags1/2, DataSetFlags2) are written
//! only when not zero, which is the canonical form every decoder tested produces.
//!
//! Encoder errors carry the output offset (bytes written before the problem).

use crate::error::{Error, ErrorKind};
use crate::model::*;
use crate::write::{Counter, Write};

/// Encode `msg` into `out`.
pub fn encode<W: Write + ?Sized>(msg: &NetworkMessage, out: &mut W) -> Result<(), Error> {
    let mut e = Enc { out, pos: 0 };
    e.network_message(msg)
}

/// The exact number of bytes [`encode`] writes for `msg` (same checks, nothing written).
pub fn encoded_len(msg: &NetworkMessage) -> Result<usize, Error> {
    let mut c = Counter(0);
    encode(msg, &mut c)?;
    Ok(c.0)
}

/// Encode into a new `Vec`.
pub fn to_vec(msg: &NetworkMessage) -> Result<alloc::vec::Vec<u8>, Error> {
    let mut v = alloc::vec::Vec::new();
    encode(msg, &mut v)?;
    Ok(v)
}

struct Enc<'w, W: Write + ?Sized> {
    out: &'w mut W,
    pos: usize,
}

impl<W: Write + ?Sized> Enc<'_, W> {
    fn err(&self, kind: ErrorKind) -> Error {
        Error::new(kind, self.pos)
    }

    fn bytes(&mut self, b: &[u8]) -> Result<(), Error> {
        self.out.write_all(b).map_err(|e| if e.kind == ErrorKind::BufferTooSmall { self.err(e.kind) } else { e })?;
        self.pos += b.len();
        Ok(())
    }
    fn u8(&mut self, v: u8) -> Result<(), Error> {
        self.bytes(&[v])
    }
    fn u16(&mut self, v: u16) -> Result<(), Error> {
        self.bytes(&v.to_le_bytes())
    }
    fn u32(&mut self, v: u32) -> Result<(), Error> {
        self.bytes(&v.to_le_bytes())
    }
    fn u64(&mut self, v: u64) -> Result<(), Error> {
        self.bytes(&v.to_le_bytes())
    }
    fn i32(&mut self, v: i32) -> Result<(), Error> {
        self.bytes(&v.to_le_bytes())
    }
    fn i64(&mut self, v: i64) -> Result<(), Error> {
        self.bytes(&v.to_le_bytes())
    }

    /// Int32 length + bytes, or -1 for null.
    fn byte_string(&mut self, b: Option<&[u8]>) -> Result<(), Error> {
        match b {
            None => self.i32(-1),
            Some(b) => {
                let n = i32::try_from(b.len()).map_err(|_| self.err(ErrorKind::LengthLimit))?;
                self.i32(n)?;
                self.bytes(b)
            }
        }
    }

    fn network_message(&mut self, m: &NetworkMessage) -> Result<(), Error> {
        // Message count rules (PayloadHeader Count 1-255; none: exactly one message).
        match &m.data_set_writer_ids {
            Some(ids) => {
                if ids.is_empty() || ids.len() > 255 || ids.len() != m.messages.len() {
                    return Err(self.err(ErrorKind::InvalidCount));
                }
            }
            None => {
                if m.messages.len() != 1 {
                    return Err(self.err(ErrorKind::InvalidCount));
                }
            }
        }
        let with_sizes = m.data_set_writer_ids.as_ref().is_some_and(|ids| ids.len() > 1);
        if !with_sizes && m.messages.iter().any(|d| d.padding != 0) {
            return Err(self.err(ErrorKind::InvalidPadding));
        }

        let ext2 = if m.promoted_fields.is_some() { 0x02u8 } else { 0 };
        let mut ext1 = m.publisher_id.as_ref().map_or(0, PublisherId::type_bits);
        if m.data_set_class_id.is_some() {
            ext1 |= 0x08;
        }
        if m.timestamp.is_some() {
            ext1 |= 0x20;
        }
        if m.picoseconds.is_some() {
            ext1 |= 0x40;
        }
        if ext2 != 0 {
            ext1 |= 0x80;
        }
        let mut flags = 0x01u8;
        if m.publisher_id.is_some() {
            flags |= 0x10;
        }
        if m.group_header.is_some() {
            flags |= 0x20;
        }
        if m.data_set_writer_ids.is_some() {
            flags |= 0x40;
        }
        if ext1 != 0 {
            flags |= 0x80;
        }
        self.u8(flags)?;
        if ext1 != 0 {
            self.u8(ext1)?;
        }
        if ext2 != 0 {
            self.u8(ext2)?;
        }
        match &m.publisher_id {
            None => {}
            Some(PublisherId::Byte(v)) => self.u8(*v)?,
            Some(PublisherId::UInt16(v)) => self.u16(*v)?,
            Some(PublisherId::UInt32(v)) => self.u32(*v)?,
            Some(PublisherId::UInt64(v)) => self.u64(*v)?,
            Some(PublisherId::String(s)) => self.byte_string(Some(s.as_bytes()))?,
        }
        if let Some(g) = &m.data_set_class_id {
            self.bytes(&g.to_bytes())?;
        }
        if let Some(g) = &m.group_header {
            let mut gf = 0u8;
            if g.writer_group_id.is_some() {
                gf |= 0x01;
            }
            if g.group_version.is_some() {
                gf |= 0x02;
            }
            if g.network_message_number.is_some() {
                gf |= 0x04;
            }
            if g.sequence_number.is_some() {
                gf |= 0x08;
            }
            self.u8(gf)?;
            if let Some(v) = g.writer_group_id {
                self.u16(v)?;
            }
            if let Some(v) = g.group_version {
                self.u32(v)?;
            }
            if let Some(v) = g.network_message_number {
                self.u16(v)?;
            }
            if let Some(v) = g.sequence_number {
                self.u16(v)?;
            }
        }
        if let Some(ids) = &m.data_set_writer_ids {
            self.u8(ids.len() as u8)?;
            for id in ids {
                self.u16(*id)?;
            }
        }
        if let Some(t) = m.timestamp {
            self.i64(t.0)?;
        }
        if let Some(p) = m.picoseconds {
            self.u16(p)?;
        }
        if let Some(fields) = &m.promoted_fields {
            let mut c = Enc { out: &mut Counter(0), pos: self.pos + 2 };
            for f in fields {
                c.variant(f)?;
            }
            let size = u16::try_from(c.pos - self.pos - 2).map_err(|_| self.err(ErrorKind::LengthLimit))?;
            self.u16(size)?;
            for f in fields {
                self.variant(f)?;
            }
        }
        if with_sizes {
            // Sizes[Count]: each DataSetMessage measured first (errors keep their offsets).
            let mut at = self.pos + 2 * m.messages.len();
            for d in &m.messages {
                let mut c = Enc { out: &mut Counter(0), pos: at };
                c.data_set_message(d)?;
                let size = u16::try_from(c.pos - at).map_err(|_| Error::new(ErrorKind::LengthLimit, at))?;
                self.u16(size)?;
                at = c.pos;
            }
        }
        for d in &m.messages {
            self.data_set_message(d)?;
        }
        Ok(())
    }

    fn data_set_message(&mut self, d: &DataSetMessage) -> Result<(), Error> {
        if d.field_encoding == FieldEncoding::Reserved && !matches!(d.payload, Payload::Skipped { .. }) {
            return Err(self.err(ErrorKind::FieldEncodingMismatch));
        }
        let mut f2 = d.payload.type_bits();
        if d.timestamp.is_some() {
            f2 |= 0x10;
        }
        if d.picoseconds.is_some() {
            f2 |= 0x20;
        }
        let mut f1 = (d.valid as u8) | (d.field_encoding.bits() << 1);
        if d.sequence_number.is_some() {
            f1 |= 0x08;
        }
        if d.status.is_some() {
            f1 |= 0x10;
        }
        if d.config_version_major.is_some() {
            f1 |= 0x20;
        }
        if d.config_version_minor.is_some() {
            f1 |= 0x40;
        }
        if f2 != 0 {
            f1 |= 0x80;
        }
        self.u8(f1)?;
        if f2 != 0 {
            self.u8(f2)?;
        }
        if let Some(v) = d.sequence_number {
            self.u16(v)?;
        }
        if let Some(t) = d.timestamp {
            self.i64(t.0)?;
        }
        if let Some(p) = d.picoseconds {
            self.u16(p)?;
        }
        if let Some(s) = d.status {
            self.u16(s)?;
        }
        if let Some(v) = d.config_version_major {
            self.u32(v)?;
        }
        if let Some(v) = d.config_version_minor {
            self.u32(v)?;
        }
        let enc = d.field_encoding;
        match &d.payload {
            Payload::KeyFrame(fields) => {
                if enc != FieldEncoding::RawData {
                    let n = u16::try_from(fields.len()).map_err(|_| self.err(ErrorKind::LengthLimit))?;
                    self.u16(n)?;
                }
                for f in fields {
                    self.field(f, enc)?;
                }
            }
            Payload::DeltaFrame(fields) => {
                let n = u16::try_from(fields.len()).map_err(|_| self.err(ErrorKind::LengthLimit))?;
                self.u16(n)?;
                for f in fields {
                    self.u16(f.index)?;
                    self.field(&f.value, enc)?;
                }
            }
            Payload::KeepAlive => {}
            Payload::Skipped { data, .. } => self.bytes(data)?,
        }
        for _ in 0..d.padding {
            self.u8(0)?;
        }
        Ok(())
    }

    fn field(&mut self, f: &Field, enc: FieldEncoding) -> Result<(), Error> {
        match (enc, f) {
            (FieldEncoding::Variant, Field::Variant(v)) => self.variant(v),
            (FieldEncoding::RawData, Field::Variant(v)) => self.raw(v),
            (FieldEncoding::DataValue, Field::DataValue(d)) => self.data_value(d),
            _ => Err(self.err(ErrorKind::FieldEncodingMismatch)),
        }
    }

    fn data_value(&mut self, d: &DataValue) -> Result<(), Error> {
        let mut mask = 0u8;
        if d.value.is_some() {
            mask |= 0x01;
        }
        if d.status.is_some() {
            mask |= 0x02;
        }
        if d.source_timestamp.is_some() {
            mask |= 0x04;
        }
        if d.server_timestamp.is_some() {
            mask |= 0x08;
        }
        if d.source_picoseconds.is_some() {
            mask |= 0x10;
        }
        if d.server_picoseconds.is_some() {
            mask |= 0x20;
        }
        self.u8(mask)?;
        if let Some(v) = &d.value {
            self.variant(v)?;
        }
        if let Some(s) = d.status {
            self.u32(s.0)?;
        }
        if let Some(t) = d.source_timestamp {
            self.i64(t.0)?;
        }
        if let Some(p) = d.source_picoseconds {
            self.u16(p)?;
        }
        if let Some(t) = d.server_timestamp {
            self.i64(t.0)?;
        }
        if let Some(p) = d.server_picoseconds {
            self.u16(p)?;
        }
        Ok(())
    }

    fn variant(&mut self, v: &Variant) -> Result<(), Error> {
        match v {
            Variant::Null => self.u8(0),
            Variant::Scalar(s) => {
                self.u8(s.built_in_type().id())?;
                self.scalar(s)
            }
            Variant::Array { ty, .. } | Variant::NullArray(ty) => {
                self.u8(ty.id() | 0x80)?;
                self.raw(v)
            }
        }
    }

    /// The value without a type byte (RawData; also the body of a Variant array).
    fn raw(&mut self, v: &Variant) -> Result<(), Error> {
        match v {
            Variant::Null => Err(self.err(ErrorKind::TypeMismatch)),
            Variant::Scalar(s) => self.scalar(s),
            Variant::NullArray(_) => self.i32(-1),
            Variant::Array { ty, items } => {
                let n = i32::try_from(items.len()).map_err(|_| self.err(ErrorKind::LengthLimit))?;
                self.i32(n)?;
                for s in items {
                    if s.built_in_type() != *ty {
                        return Err(self.err(ErrorKind::TypeMismatch));
                    }
                    self.scalar(s)?;
                }
                Ok(())
            }
        }
    }

    fn scalar(&mut self, s: &Scalar) -> Result<(), Error> {
        match s {
            Scalar::Boolean(b) => self.u8(*b as u8),
            Scalar::SByte(v) => self.u8(*v as u8),
            Scalar::Byte(v) => self.u8(*v),
            Scalar::Int16(v) => self.u16(*v as u16),
            Scalar::UInt16(v) => self.u16(*v),
            Scalar::Int32(v) => self.i32(*v),
            Scalar::UInt32(v) => self.u32(*v),
            Scalar::Int64(v) => self.i64(*v),
            Scalar::UInt64(v) => self.u64(*v),
            Scalar::Float(v) => self.u32(v.to_bits()),
            Scalar::Double(v) => self.u64(v.to_bits()),
            Scalar::String(v) => self.byte_string(v.as_deref().map(str::as_bytes)),
            Scalar::DateTime(t) => self.i64(t.0),
            Scalar::Guid(g) => self.bytes(&g.to_bytes()),
            Scalar::ByteString(v) => self.byte_string(v.as_deref()),
            Scalar::StatusCode(c) => self.u32(c.0),
        }
    }
}
