//! UADP decoder (OPC 10000-14 §7.2.4; built-in types OPC 10000-6 §5.2.2).
//!
//! Every read is bounds-checked, every count is checked against the bytes left
//! (times the smallest encoding of one element) before anything is allocated,
//! arithmetic cannot overflow, and there is no recursion deeper than
//! DataValue → Variant → array element.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::model::*;

/// Length limits on top of the "must fit in the remaining input" rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most elements in one Variant array.
    pub max_array_len: usize,
    /// Most bytes in one String or ByteString.
    pub max_string_len: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_array_len: 1 << 20, max_string_len: 1 << 24 }
    }
}

/// Decoder settings.
#[derive(Debug, Clone, Copy, Default)]
pub struct DecodeOptions<'a> {
    /// DataSetMetaData for RawData DataSetMessages, looked up by DataSetWriterId
    /// ([`DataSetMetaData::find`]). RawData without a match fails with
    /// [`ErrorKind::MissingMetadata`].
    pub raw_metadata: &'a [DataSetMetaData],
    /// Keep DataSetMessages with a reserved field encoding or a type other than
    /// key/delta frame or keep-alive as [`Payload::Skipped`] (what Part 14 asks a
    /// subscriber to do) instead of failing with [`ErrorKind::ReservedFieldEncoding`] /
    /// [`ErrorKind::UnsupportedMessageType`].
    pub skip_unknown: bool,
    /// Keep RawData DataSetMessages whose metadata is not given as [`Payload::Skipped`] with
    /// their bytes (the field encoding stays RawData), so that a message can be carried and
    /// re-encoded unchanged without knowing its field types.
    pub raw_opaque: bool,
    pub limits: Limits,
}

/// Decode one NetworkMessage from the start of `bytes` with default options;
/// returns it and the number of bytes used.
///
/// UADP has no length field (the transport gives the message size), so use
/// [`decode_exact`] to reject trailing bytes.
pub fn decode(bytes: &[u8]) -> Result<(NetworkMessage, usize), Error> {
    decode_with(bytes, &DecodeOptions::default())
}

/// [`decode`] with options (RawData metadata, skipping, limits).
pub fn decode_with(bytes: &[u8], opts: &DecodeOptions<'_>) -> Result<(NetworkMessage, usize), Error> {
    let mut r = Reader { buf: bytes, pos: 0, end: bytes.len() };
    let msg = network_message(&mut r, opts)?;
    Ok((msg, r.pos))
}

/// Decode a NetworkMessage that must cover all of `bytes`
/// ([`ErrorKind::TrailingBytes`] at the first unused byte otherwise).
pub fn decode_exact(bytes: &[u8], opts: &DecodeOptions<'_>) -> Result<NetworkMessage, Error> {
    let (msg, used) = decode_with(bytes, opts)?;
    if used != bytes.len() {
        return Err(Error::new(ErrorKind::TrailingBytes, used));
    }
    Ok(msg)
}

/// A cursor over the whole input with an end bound (a DataSetMessage's declared size, or
/// the PromotedFields size). Offsets in errors are always absolute.
pub(crate) struct Reader<'b> {
    buf: &'b [u8],
    pos: usize,
    end: usize,
}

impl<'b> Reader<'b> {
    #[inline]
    fn remaining(&self) -> usize {
        self.end.saturating_sub(self.pos)
    }

    /// The error for a read of `n` bytes that does not fit.
    #[cold]
    fn short(&self) -> Error {
        if self.end < self.buf.len() {
            // Inside a sized part: it runs past its declared size.
            Error::new(ErrorKind::SizeMismatch, self.end)
        } else {
            Error::new(ErrorKind::UnexpectedEnd, self.buf.len())
        }
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'b [u8], Error> {
        if n > self.remaining() {
            return Err(self.short());
        }
        let s = self.buf.get(self.pos..self.pos + n).ok_or_else(|| self.short())?;
        self.pos += n;
        Ok(s)
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    #[inline]
    fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.array::<1>()?[0])
    }
    #[inline]
    fn u16(&mut self) -> Result<u16, Error> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    #[inline]
    fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    #[inline]
    fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    #[inline]
    fn i32(&mut self) -> Result<i32, Error> {
        Ok(i32::from_le_bytes(self.array()?))
    }
    #[inline]
    fn i64(&mut self) -> Result<i64, Error> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    fn guid(&mut self) -> Result<Guid, Error> {
        Ok(Guid::from_bytes(&self.array::<16>()?))
    }

    /// Int32 length + bytes; `None` for -1.
    fn byte_string(&mut self, limits: &Limits) -> Result<Option<&'b [u8]>, Error> {
        let at = self.pos;
        let n = self.i32()?;
        if n == -1 {
            return Ok(None);
        }
        if n < -1 {
            return Err(Error::new(ErrorKind::InvalidLength, at));
        }
        let n = n as usize;
        if n > limits.max_string_len {
            return Err(Error::new(ErrorKind::LengthLimit, at));
        }
        self.take(n).map(Some)
    }

    fn string(&mut self, limits: &Limits) -> Result<Option<String>, Error> {
        let start = self.pos + 4;
        match self.byte_string(limits)? {
            None => Ok(None),
            Some(b) => match core::str::from_utf8(b) {
                Ok(s) => Ok(Some(String::from(s))),
                Err(e) => Err(Error::new(ErrorKind::InvalidUtf8, start + e.valid_up_to())),
            },
        }
    }

    /// Check that `count` items of at least `min` bytes each can fit in what is left.
    fn check_count(&self, count: usize, min: usize, at: usize) -> Result<(), Error> {
        match count.checked_mul(min) {
            Some(need) if need <= self.remaining() => Ok(()),
            _ => Err(Error::new(ErrorKind::LengthLimit, at)),
        }
    }
}

fn network_message(r: &mut Reader<'_>, opts: &DecodeOptions<'_>) -> Result<NetworkMessage, Error> {
    let flags = r.u8()?;
    if flags & 0x0f != 1 {
        return Err(Error::new(ErrorKind::UnsupportedVersion, 0));
    }
    let has_pubid = flags & 0x10 != 0;
    let has_group = flags & 0x20 != 0;
    let has_payload_header = flags & 0x40 != 0;

    let (mut ext1, mut ext1_at) = (0u8, 0usize);
    if flags & 0x80 != 0 {
        ext1_at = r.pos;
        ext1 = r.u8()?;
    }
    let pubid_type = ext1 & 0x07;
    if has_pubid && pubid_type > 4 {
        return Err(Error::new(ErrorKind::ReservedPublisherIdType, ext1_at));
    }
    if ext1 & 0x10 != 0 {
        return Err(Error::new(ErrorKind::SecurityUnsupported, ext1_at));
    }
    let mut ext2 = 0u8;
    if ext1 & 0x80 != 0 {
        let at = r.pos;
        ext2 = r.u8()?;
        if ext2 & 0x01 != 0 {
            return Err(Error::new(ErrorKind::ChunkUnsupported, at));
        }
        if ext2 & 0xe0 != 0 {
            return Err(Error::new(ErrorKind::ReservedFlags, at));
        }
        if (ext2 >> 2) & 0x07 != 0 {
            return Err(Error::new(ErrorKind::UnsupportedNetworkMessageType, at));
        }
    }

    let mut msg = NetworkMessage::default();
    if has_pubid {
        msg.publisher_id = Some(match pubid_type {
            0 => PublisherId::Byte(r.u8()?),
            1 => PublisherId::UInt16(r.u16()?),
            2 => PublisherId::UInt32(r.u32()?),
            3 => PublisherId::UInt64(r.u64()?),
            _ => {
                let at = r.pos;
                match r.string(&opts.limits)? {
                    Some(s) => PublisherId::String(s),
                    None => return Err(Error::new(ErrorKind::InvalidLength, at)),
                }
            }
        });
    }
    if ext1 & 0x08 != 0 {
        msg.data_set_class_id = Some(r.guid()?);
    }
    if has_group {
        let at = r.pos;
        let gf = r.u8()?;
        if gf & 0xf0 != 0 {
            return Err(Error::new(ErrorKind::ReservedFlags, at));
        }
        let mut g = GroupHeader::default();
        if gf & 0x01 != 0 {
            g.writer_group_id = Some(r.u16()?);
        }
        if gf & 0x02 != 0 {
            g.group_version = Some(r.u32()?);
        }
        if gf & 0x04 != 0 {
            g.network_message_number = Some(r.u16()?);
        }
        if gf & 0x08 != 0 {
            g.sequence_number = Some(r.u16()?);
        }
        msg.group_header = Some(g);
    }
    let mut count = 1usize;
    if has_payload_header {
        let at = r.pos;
        count = r.u8()? as usize;
        if count == 0 {
            return Err(Error::new(ErrorKind::InvalidCount, at));
        }
        let mut ids = Vec::with_capacity(count);
        for _ in 0..count {
            ids.push(r.u16()?);
        }
        msg.data_set_writer_ids = Some(ids);
    }
    if ext1 & 0x20 != 0 {
        msg.timestamp = Some(DateTime(r.i64()?));
    }
    if ext1 & 0x40 != 0 {
        msg.picoseconds = Some(r.u16()?);
    }
    if ext2 & 0x02 != 0 {
        let size = r.u16()? as usize;
        let start = r.pos;
        if size > r.remaining() {
            return Err(r.short());
        }
        let outer_end = r.end;
        r.end = start + size;
        let mut fields = Vec::new();
        while r.pos < r.end {
            fields.push(variant(r, &opts.limits)?);
        }
        r.end = outer_end;
        msg.promoted_fields = Some(fields);
    }

    // Payload: Sizes only with a PayloadHeader and Count > 1.
    let mut sizes: Vec<usize> = Vec::new();
    if has_payload_header && count > 1 {
        for _ in 0..count {
            sizes.push(r.u16()? as usize);
        }
    }
    let mut messages = Vec::with_capacity(count);
    for i in 0..count {
        let writer = msg.data_set_writer_ids.as_ref().and_then(|ids| ids.get(i).copied());
        let dsm = match sizes.get(i) {
            None => data_set_message(r, writer, opts)?,
            Some(&size) => {
                let start = r.pos;
                if size > r.remaining() {
                    return Err(r.short());
                }
                let outer_end = r.end;
                r.end = start + size;
                let mut dsm = data_set_message(r, writer, opts)?;
                // Whatever is left of the declared size must be zero padding.
                let rest = r.take(r.remaining())?;
                if let Some(p) = rest.iter().position(|&b| b != 0) {
                    return Err(Error::new(ErrorKind::SizeMismatch, r.pos - rest.len() + p));
                }
                dsm.padding = rest.len() as u16;
                r.end = outer_end;
                dsm
            }
        };
        messages.push(dsm);
    }
    msg.messages = messages;
    Ok(msg)
}

fn data_set_message(
    r: &mut Reader<'_>,
    writer: Option<u16>,
    opts: &DecodeOptions<'_>,
) -> Result<DataSetMessage, Error> {
    let start = r.pos;
    let f1 = r.u8()?;
    let (mut f2, mut f2_at) = (0u8, start);
    if f1 & 0x80 != 0 {
        f2_at = r.pos;
        f2 = r.u8()?;
        if f2 & 0xc0 != 0 {
            return Err(Error::new(ErrorKind::ReservedFlags, f2_at));
        }
    }
    let mut m = DataSetMessage {
        valid: f1 & 0x01 != 0,
        field_encoding: match (f1 >> 1) & 0x03 {
            0 => FieldEncoding::Variant,
            1 => FieldEncoding::RawData,
            2 => FieldEncoding::DataValue,
            _ => FieldEncoding::Reserved,
        },
        ..DataSetMessage::default()
    };
    if f1 & 0x08 != 0 {
        m.sequence_number = Some(r.u16()?);
    }
    if f2 & 0x10 != 0 {
        m.timestamp = Some(DateTime(r.i64()?));
    }
    if f2 & 0x20 != 0 {
        m.picoseconds = Some(r.u16()?);
    }
    if f1 & 0x10 != 0 {
        m.status = Some(r.u16()?);
    }
    if f1 & 0x20 != 0 {
        m.config_version_major = Some(r.u32()?);
    }
    if f1 & 0x40 != 0 {
        m.config_version_minor = Some(r.u32()?);
    }

    let message_type = f2 & 0x0f;
    let known_type = matches!(message_type, 0 | 1 | 3);
    if m.field_encoding == FieldEncoding::Reserved || !known_type {
        if opts.skip_unknown {
            let data = r.take(r.remaining())?.to_vec();
            m.payload = Payload::Skipped { message_type, data };
            return Ok(m);
        }
        return Err(if m.field_encoding == FieldEncoding::Reserved {
            Error::new(ErrorKind::ReservedFieldEncoding, start)
        } else {
            Error::new(ErrorKind::UnsupportedMessageType, f2_at)
        });
    }

    let limits = &opts.limits;
    let meta = match m.field_encoding {
        FieldEncoding::RawData if message_type != 3 => match DataSetMetaData::find(opts.raw_metadata, writer) {
            Some(md) => Some(md),
            None if opts.raw_opaque => {
                let data = r.take(r.remaining())?.to_vec();
                m.payload = Payload::Skipped { message_type, data };
                return Ok(m);
            }
            None => return Err(Error::new(ErrorKind::MissingMetadata, start)),
        },
        _ => None,
    };
    m.payload = match message_type {
        0 => {
            if let Some(md) = meta {
                let mut fields = Vec::with_capacity(md.fields.len().min(r.remaining()));
                for f in &md.fields {
                    fields.push(Field::Variant(raw_value(r, f, limits)?));
                }
                Payload::KeyFrame(fields)
            } else {
                let at = r.pos;
                let n = r.u16()? as usize;
                r.check_count(n, 1, at)?;
                let mut fields = Vec::with_capacity(n);
                for _ in 0..n {
                    fields.push(field(r, m.field_encoding, limits)?);
                }
                Payload::KeyFrame(fields)
            }
        }
        1 => {
            let at = r.pos;
            let n = r.u16()? as usize;
            r.check_count(n, 3, at)?;
            let mut fields = Vec::with_capacity(n);
            for _ in 0..n {
                let index_at = r.pos;
                let index = r.u16()?;
                let value = match meta {
                    Some(md) => match md.fields.get(index as usize) {
                        Some(f) => Field::Variant(raw_value(r, f, limits)?),
                        None => return Err(Error::new(ErrorKind::MissingMetadata, index_at)),
                    },
                    None => field(r, m.field_encoding, limits)?,
                };
                fields.push(DeltaField { index, value });
            }
            Payload::DeltaFrame(fields)
        }
        _ => Payload::KeepAlive,
    };
    Ok(m)
}

fn field(r: &mut Reader<'_>, enc: FieldEncoding, limits: &Limits) -> Result<Field, Error> {
    Ok(match enc {
        FieldEncoding::DataValue => Field::DataValue(data_value(r, limits)?),
        _ => Field::Variant(variant(r, limits)?),
    })
}

fn data_value(r: &mut Reader<'_>, limits: &Limits) -> Result<DataValue, Error> {
    let at = r.pos;
    let mask = r.u8()?;
    if mask & 0xc0 != 0 {
        return Err(Error::new(ErrorKind::ReservedFlags, at));
    }
    let mut d = DataValue::default();
    if mask & 0x01 != 0 {
        d.value = Some(variant(r, limits)?);
    }
    if mask & 0x02 != 0 {
        d.status = Some(StatusCode(r.u32()?));
    }
    if mask & 0x04 != 0 {
        d.source_timestamp = Some(DateTime(r.i64()?));
    }
    if mask & 0x10 != 0 {
        d.source_picoseconds = Some(r.u16()?);
    }
    if mask & 0x08 != 0 {
        d.server_timestamp = Some(DateTime(r.i64()?));
    }
    if mask & 0x20 != 0 {
        d.server_picoseconds = Some(r.u16()?);
    }
    Ok(d)
}

/// The type for a Variant type id, or the error for ids that are not supported.
fn type_of(id: u8, at: usize) -> Result<BuiltInType, Error> {
    match BuiltInType::from_id(id) {
        Some(t) => Ok(t),
        None if (16..=25).contains(&id) => Err(Error::new(ErrorKind::UnsupportedVariantType, at)),
        None => Err(Error::new(ErrorKind::InvalidVariantType, at)),
    }
}

pub(crate) fn variant(r: &mut Reader<'_>, limits: &Limits) -> Result<Variant, Error> {
    let at = r.pos;
    let mask = r.u8()?;
    let id = mask & 0x3f;
    let is_array = mask & 0x80 != 0;
    let has_dims = mask & 0x40 != 0;
    if !is_array {
        if has_dims {
            return Err(Error::new(ErrorKind::InvalidVariantType, at));
        }
        if id == 0 {
            return Ok(Variant::Null);
        }
        let ty = type_of(id, at)?;
        return Ok(Variant::Scalar(scalar(r, ty, limits)?));
    }
    if id == 0 {
        return Err(Error::new(ErrorKind::InvalidVariantType, at));
    }
    let ty = type_of(id, at)?;
    if has_dims {
        return Err(Error::new(ErrorKind::UnsupportedArrayDimensions, at));
    }
    array(r, ty, limits)
}

/// Int32 length (-1 = null array) and that many values of `ty`.
fn array(r: &mut Reader<'_>, ty: BuiltInType, limits: &Limits) -> Result<Variant, Error> {
    let at = r.pos;
    let n = r.i32()?;
    if n == -1 {
        return Ok(Variant::NullArray(ty));
    }
    if n < -1 {
        return Err(Error::new(ErrorKind::InvalidLength, at));
    }
    let n = n as usize;
    if n > limits.max_array_len {
        return Err(Error::new(ErrorKind::LengthLimit, at));
    }
    r.check_count(n, ty.min_encoded_len(), at)?;
    let mut items = Vec::with_capacity(n);
    for _ in 0..n {
        items.push(scalar(r, ty, limits)?);
    }
    Ok(Variant::Array { ty, items })
}

/// A RawData field: the bare value (or array) of the metadata's type.
fn raw_value(r: &mut Reader<'_>, f: &FieldMetaData, limits: &Limits) -> Result<Variant, Error> {
    if f.array {
        array(r, f.built_in_type, limits)
    } else {
        Ok(Variant::Scalar(scalar(r, f.built_in_type, limits)?))
    }
}

fn scalar(r: &mut Reader<'_>, ty: BuiltInType, limits: &Limits) -> Result<Scalar, Error> {
    Ok(match ty {
        // Part 6 §5.2.2.1: any non-zero byte is true.
        BuiltInType::Boolean => Scalar::Boolean(r.u8()? != 0),
        BuiltInType::SByte => Scalar::SByte(r.u8()? as i8),
        BuiltInType::Byte => Scalar::Byte(r.u8()?),
        BuiltInType::Int16 => Scalar::Int16(r.u16()? as i16),
        BuiltInType::UInt16 => Scalar::UInt16(r.u16()?),
        BuiltInType::Int32 => Scalar::Int32(r.i32()?),
        BuiltInType::UInt32 => Scalar::UInt32(r.u32()?),
        BuiltInType::Int64 => Scalar::Int64(r.i64()?),
        BuiltInType::UInt64 => Scalar::UInt64(r.u64()?),
        BuiltInType::Float => Scalar::Float(f32::from_bits(r.u32()?)),
        BuiltInType::Double => Scalar::Double(f64::from_bits(r.u64()?)),
        BuiltInType::String => Scalar::String(r.string(limits)?),
        BuiltInType::DateTime => Scalar::DateTime(DateTime(r.i64()?)),
        BuiltInType::Guid => Scalar::Guid(r.guid()?),
        BuiltInType::ByteString => Scalar::ByteString(r.byte_string(limits)?.map(<[u8]>::to_vec)),
        BuiltInType::StatusCode => Scalar::StatusCode(StatusCode(r.u32()?)),
    })
}
