//! The encoder.
//!
//! One recursive walk over (type, value) writes through a [`Sink`]. Lengths
//! that precede what they measure (DHEADER, EMHEADER NEXTINT, parameter
//! lengths) are "slots": the `Vec` sink patches them in place; for any other
//! [`Write`] a counting pass records every slot's length first and a second
//! pass writes them out in order.

use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::header::{Encoding, Header};
use crate::types::{EnumDesc, Extensibility, Member, StructDesc, TypeDesc, UnionDesc};
use crate::value::Value;
use crate::write::Write;

/// XCDR1 parameter list: `PID_EXTENDED | MUST_UNDERSTAND`.
pub(crate) const PID_EXTENDED_MU: u16 = 0x3f01 | 0x4000;
/// XCDR1 parameter list: `PID_LIST_END | MUST_UNDERSTAND`.
pub(crate) const PID_LIST_END_MU: u16 = 0x3f02 | 0x4000;
pub(crate) const PID_EXTENDED: u16 = 0x3f01;
pub(crate) const PID_LIST_END: u16 = 0x3f02;
/// Must-understand flag of the extended parameter header's member id word.
pub(crate) const PL_LONG_MU: u32 = 0x4000_0000;
/// Must-understand flag of the EMHEADER.
pub(crate) const EM_MU: u32 = 0x8000_0000;

/// Default nesting limit of the encoder and the decoder.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// Which members go out: all of them, or only the key (`serialize_key`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum KeyMode {
    /// Every member.
    All,
    /// The top-level struct's `@key` members (none when it has no keys).
    Top,
    /// Inside a key member: the struct's `@key` members, or all of them when it has none.
    Nested,
}

impl KeyMode {
    #[inline]
    pub(crate) fn includes(self, sd_has_keys: bool, m: &Member) -> bool {
        match self {
            KeyMode::All => true,
            KeyMode::Top => m.key,
            KeyMode::Nested => !sd_has_keys || m.key,
        }
    }

    #[inline]
    pub(crate) fn child(self) -> KeyMode {
        if self == KeyMode::All {
            KeyMode::All
        } else {
            KeyMode::Nested
        }
    }
}

/// The EMHEADER length code cyclonedds uses for a member of type `ty`
/// (XTypes 1.3 §7.4.3.5.4 / Table 35):
/// 0–3 for 1/2/4/8-byte primitives and enums; 5 ("length is the member's own
/// leading uint32": strings, sequences and arrays that start with a DHEADER,
/// sequences of 1-byte elements); 6 / 7 for sequences of 4 / 8-byte
/// primitives (count × 4 / × 8); 4 (a separate length word) otherwise
/// (structs, unions, arrays of primitives, sequences of 2-byte primitives).
pub fn length_code(ty: &TypeDesc, xcdr2: bool) -> u8 {
    match ty {
        TypeDesc::Enum(e) => size_code(e.wire_size(xcdr2)),
        TypeDesc::String { .. } => 5,
        TypeDesc::Sequence { elem, .. } => match elem.primitive_size() {
            Some(1) | None => 5,
            Some(4) => 6,
            Some(8) => 7,
            Some(_) => 4,
        },
        TypeDesc::Array { elem, .. } => {
            if elem.primitive_size().is_some() {
                4
            } else {
                5
            }
        }
        TypeDesc::Struct(_) | TypeDesc::Union(_) => 4,
        prim => size_code(prim.primitive_size().unwrap_or(8)),
    }
}

fn size_code(size: usize) -> u8 {
    match size {
        1 => 0,
        2 => 1,
        4 => 2,
        _ => 3,
    }
}

/// Where the encoder's bytes go.
pub(crate) trait Sink {
    /// Bytes written so far (the error offset).
    fn pos(&self) -> usize;
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error>;
    fn zeros(&mut self, n: usize) -> Result<(), Error>;
    /// Reserve a 4-byte length; returns the slot handle.
    fn open(&mut self, be: bool) -> Result<usize, Error>;
    /// Fill the slot with the length of what was written since.
    fn close(&mut self, slot: usize, len: u32, be: bool);
}

/// Appends to a `Vec`, patching lengths in place.
pub(crate) struct VecSink<'a> {
    pub(crate) buf: &'a mut Vec<u8>,
    pub(crate) base: usize,
}

impl Sink for VecSink<'_> {
    #[inline]
    fn pos(&self) -> usize {
        self.buf.len() - self.base
    }
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.buf.extend_from_slice(bytes);
        Ok(())
    }
    #[inline]
    fn zeros(&mut self, n: usize) -> Result<(), Error> {
        self.buf.resize(self.buf.len() + n, 0);
        Ok(())
    }
    #[inline]
    fn open(&mut self, _be: bool) -> Result<usize, Error> {
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0; 4]);
        Ok(at)
    }
    #[inline]
    fn close(&mut self, slot: usize, len: u32, be: bool) {
        let b = if be { len.to_be_bytes() } else { len.to_le_bytes() };
        if let Some(dst) = self.buf.get_mut(slot..slot + 4) {
            dst.copy_from_slice(&b);
        }
    }
}

/// Counts bytes and records slot lengths (first pass of [`crate::Encoder::encode_to`]).
#[derive(Default)]
pub(crate) struct CountSink {
    pub(crate) pos: usize,
    pub(crate) lens: Vec<u32>,
}

impl Sink for CountSink {
    #[inline]
    fn pos(&self) -> usize {
        self.pos
    }
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.pos += bytes.len();
        Ok(())
    }
    #[inline]
    fn zeros(&mut self, n: usize) -> Result<(), Error> {
        self.pos += n;
        Ok(())
    }
    #[inline]
    fn open(&mut self, _be: bool) -> Result<usize, Error> {
        self.pos += 4;
        self.lens.push(0);
        Ok(self.lens.len() - 1)
    }
    #[inline]
    fn close(&mut self, slot: usize, len: u32, _be: bool) {
        if let Some(l) = self.lens.get_mut(slot) {
            *l = len;
        }
    }
}

/// Writes forward into any [`Write`], taking slot lengths from a counting pass.
pub(crate) struct ReplaySink<'l, W> {
    pub(crate) w: W,
    pub(crate) pos: usize,
    pub(crate) lens: &'l [u32],
    pub(crate) next: usize,
}

impl<W: Write> Sink for ReplaySink<'_, W> {
    #[inline]
    fn pos(&self) -> usize {
        self.pos
    }
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.w.write_all(bytes).map_err(|e| Error::new(e.kind, self.pos))?;
        self.pos += bytes.len();
        Ok(())
    }
    fn zeros(&mut self, n: usize) -> Result<(), Error> {
        const Z: [u8; 8] = [0; 8];
        let mut left = n;
        while left > 0 {
            let k = left.min(8);
            self.put(&Z[..k])?;
            left -= k;
        }
        Ok(())
    }
    fn open(&mut self, be: bool) -> Result<usize, Error> {
        // The counting pass saw the same walk, so the slot exists.
        let len = *self.lens.get(self.next).ok_or(Error::new(ErrorKind::InvalidType, self.pos))?;
        self.next += 1;
        self.put(&if be { len.to_be_bytes() } else { len.to_le_bytes() })?;
        Ok(self.next - 1)
    }
    #[inline]
    fn close(&mut self, _slot: usize, _len: u32, _be: bool) {}
}

/// The encoding walk.
pub(crate) struct Enc<S> {
    pub(crate) sink: S,
    pub(crate) be: bool,
    pub(crate) v2: bool,
    /// Alignment origin (XCDR1 parameter bodies restart it).
    pub(crate) origin: usize,
    pub(crate) depth: usize,
    pub(crate) max_depth: usize,
}

macro_rules! put_num {
    ($self:ident, $v:expr, $size:expr) => {{
        $self.align($size)?;
        let v = $v;
        if $self.be {
            $self.sink.put(&v.to_be_bytes())
        } else {
            $self.sink.put(&v.to_le_bytes())
        }
    }};
}

#[inline]
fn int_of(v: &Value) -> Option<i128> {
    match *v {
        Value::Int(i) => Some(i as i128),
        Value::UInt(u) => Some(u as i128),
        _ => None,
    }
}

impl<S: Sink> Enc<S> {
    pub(crate) fn new(sink: S, enc: Encoding, origin: usize, max_depth: usize) -> Self {
        Enc { sink, be: enc.is_be(), v2: enc.is_v2(), origin, depth: 0, max_depth }
    }

    #[inline]
    pub(crate) fn err(&self, kind: ErrorKind) -> Error {
        Error::new(kind, self.sink.pos())
    }

    #[inline]
    pub(crate) fn align(&mut self, n: usize) -> Result<(), Error> {
        let n = if self.v2 { n.min(4) } else { n };
        if n <= 1 {
            return Ok(());
        }
        let rel = self.sink.pos().wrapping_sub(self.origin);
        let pad = (n - rel % n) % n;
        if pad > 0 {
            self.sink.zeros(pad)?;
        }
        Ok(())
    }

    #[inline]
    pub(crate) fn u8(&mut self, b: u8) -> Result<(), Error> {
        self.sink.put(&[b])
    }

    #[inline]
    pub(crate) fn u16(&mut self, v: u16) -> Result<(), Error> {
        put_num!(self, v, 2)
    }

    #[inline]
    pub(crate) fn u32(&mut self, v: u32) -> Result<(), Error> {
        put_num!(self, v, 4)
    }

    #[inline]
    pub(crate) fn u64(&mut self, v: u64) -> Result<(), Error> {
        put_num!(self, v, 8)
    }

    /// Open a 4-aligned length slot; returns (slot, start of the measured data).
    #[inline]
    pub(crate) fn open(&mut self) -> Result<(usize, usize), Error> {
        self.align(4)?;
        let slot = self.sink.open(self.be)?;
        Ok((slot, self.sink.pos()))
    }

    #[inline]
    pub(crate) fn close(&mut self, slot: (usize, usize)) -> Result<(), Error> {
        let len = self.sink.pos() - slot.1;
        let len = u32::try_from(len).map_err(|_| self.err(ErrorKind::OutOfRange))?;
        self.sink.close(slot.0, len, self.be);
        Ok(())
    }

    fn enter(&mut self) -> Result<(), Error> {
        if self.depth >= self.max_depth {
            return Err(self.err(ErrorKind::DepthLimit));
        }
        self.depth += 1;
        Ok(())
    }

    fn int(&mut self, v: &Value, lo: i128, hi: i128) -> Result<i128, Error> {
        let n = int_of(v).ok_or_else(|| self.err(ErrorKind::TypeMismatch))?;
        if n < lo || n > hi {
            return Err(self.err(ErrorKind::OutOfRange));
        }
        Ok(n)
    }

    /// Encode `v` as `ty`.
    pub(crate) fn value(&mut self, ty: &TypeDesc, v: &Value, key: KeyMode) -> Result<(), Error> {
        match ty {
            TypeDesc::Bool => match v {
                Value::Bool(b) => self.u8(*b as u8),
                _ => Err(self.err(ErrorKind::TypeMismatch)),
            },
            TypeDesc::Octet | TypeDesc::UInt8 => {
                let n = self.int(v, 0, u8::MAX as i128)?;
                self.u8(n as u8)
            }
            TypeDesc::Int8 => {
                let n = self.int(v, i8::MIN as i128, i8::MAX as i128)?;
                self.u8(n as i8 as u8)
            }
            TypeDesc::Char => match v {
                Value::Char(c) if (*c as u32) <= 0xff => self.u8(*c as u32 as u8),
                Value::Char(_) => Err(self.err(ErrorKind::OutOfRange)),
                _ => Err(self.err(ErrorKind::TypeMismatch)),
            },
            TypeDesc::Int16 => {
                let n = self.int(v, i16::MIN as i128, i16::MAX as i128)?;
                self.u16(n as i16 as u16)
            }
            TypeDesc::UInt16 => {
                let n = self.int(v, 0, u16::MAX as i128)?;
                self.u16(n as u16)
            }
            TypeDesc::Int32 => {
                let n = self.int(v, i32::MIN as i128, i32::MAX as i128)?;
                self.u32(n as i32 as u32)
            }
            TypeDesc::UInt32 => {
                let n = self.int(v, 0, u32::MAX as i128)?;
                self.u32(n as u32)
            }
            TypeDesc::Int64 => {
                let n = self.int(v, i64::MIN as i128, i64::MAX as i128)?;
                self.u64(n as i64 as u64)
            }
            TypeDesc::UInt64 => {
                let n = self.int(v, 0, u64::MAX as i128)?;
                self.u64(n as u64)
            }
            TypeDesc::Float32 => match *v {
                Value::F32(f) => self.u32(f.to_bits()),
                Value::F64(f) => self.u32((f as f32).to_bits()),
                _ => Err(self.err(ErrorKind::TypeMismatch)),
            },
            TypeDesc::Float64 => match *v {
                Value::F64(f) => self.u64(f.to_bits()),
                Value::F32(f) => self.u64((f as f64).to_bits()),
                _ => Err(self.err(ErrorKind::TypeMismatch)),
            },
            TypeDesc::String { bound } => match v {
                Value::String(s) => self.string(s.as_bytes(), *bound),
                _ => Err(self.err(ErrorKind::TypeMismatch)),
            },
            TypeDesc::Enum(e) => match *v {
                Value::Enum(x) if e.contains(x) => self.enum_value(e, x as i64),
                Value::Enum(_) => Err(self.err(ErrorKind::InvalidEnum)),
                _ => Err(self.err(ErrorKind::TypeMismatch)),
            },
            TypeDesc::Sequence { elem, bound } => {
                self.enter()?;
                self.sequence(elem, *bound, v, key)?;
                self.depth -= 1;
                Ok(())
            }
            TypeDesc::Array { elem, dims } => {
                self.enter()?;
                self.array(elem, dims, v, key)?;
                self.depth -= 1;
                Ok(())
            }
            TypeDesc::Struct(sd) => {
                self.enter()?;
                self.structure(sd, v, key)?;
                self.depth -= 1;
                Ok(())
            }
            TypeDesc::Union(ud) => {
                self.enter()?;
                self.union(ud, v, key)?;
                self.depth -= 1;
                Ok(())
            }
        }
    }

    pub(crate) fn string(&mut self, s: &[u8], bound: Option<u32>) -> Result<(), Error> {
        if let Some(b) = bound {
            if s.len() > b as usize {
                return Err(self.err(ErrorKind::BoundExceeded));
            }
        }
        let len = u32::try_from(s.len() + 1).map_err(|_| self.err(ErrorKind::OutOfRange))?;
        self.u32(len)?;
        self.sink.put(s)?;
        self.u8(0)
    }

    fn enum_value(&mut self, e: &EnumDesc, x: i64) -> Result<(), Error> {
        match e.wire_size(self.v2) {
            1 => {
                if !(i8::MIN as i64..=u8::MAX as i64).contains(&x) {
                    return Err(self.err(ErrorKind::OutOfRange));
                }
                self.u8(x as u8)
            }
            2 => {
                if !(i16::MIN as i64..=u16::MAX as i64).contains(&x) {
                    return Err(self.err(ErrorKind::OutOfRange));
                }
                self.u16(x as u16)
            }
            _ => {
                if !(i32::MIN as i64..=u32::MAX as i64).contains(&x) {
                    return Err(self.err(ErrorKind::OutOfRange));
                }
                self.u32(x as u32)
            }
        }
    }

    fn sequence(&mut self, elem: &TypeDesc, bound: Option<u32>, v: &Value, key: KeyMode) -> Result<(), Error> {
        let n = match v {
            Value::Bytes(b) if matches!(elem, TypeDesc::Octet | TypeDesc::UInt8) => b.len(),
            Value::Seq(items) => items.len(),
            _ => return Err(self.err(ErrorKind::TypeMismatch)),
        };
        if let Some(b) = bound {
            if n > b as usize {
                return Err(self.err(ErrorKind::BoundExceeded));
            }
        }
        let count = u32::try_from(n).map_err(|_| self.err(ErrorKind::OutOfRange))?;
        let dheader = self.v2 && elem.primitive_size().is_none();
        let slot = if dheader { Some(self.open()?) } else { None };
        self.u32(count)?;
        match v {
            Value::Bytes(b) => self.sink.put(b)?,
            Value::Seq(items) => {
                for it in items {
                    self.value(elem, it, key)?;
                }
            }
            _ => {}
        }
        if let Some(s) = slot {
            self.close(s)?;
        }
        Ok(())
    }

    fn array(&mut self, elem: &TypeDesc, dims: &[u32], v: &Value, key: KeyMode) -> Result<(), Error> {
        let dheader = self.v2 && elem.primitive_size().is_none();
        let slot = if dheader { Some(self.open()?) } else { None };
        self.array_dims(elem, dims, v, key)?;
        if let Some(s) = slot {
            self.close(s)?;
        }
        Ok(())
    }

    fn array_dims(&mut self, elem: &TypeDesc, dims: &[u32], v: &Value, key: KeyMode) -> Result<(), Error> {
        let Some((&n, rest)) = dims.split_first() else {
            return self.value(elem, v, key);
        };
        match v {
            Value::Bytes(b) if rest.is_empty() && matches!(elem, TypeDesc::Octet | TypeDesc::UInt8) => {
                if b.len() != n as usize {
                    return Err(self.err(ErrorKind::ArrayLength));
                }
                self.sink.put(b)
            }
            Value::Seq(items) => {
                if items.len() != n as usize {
                    return Err(self.err(ErrorKind::ArrayLength));
                }
                for it in items {
                    self.array_dims(elem, rest, it, key)?;
                }
                Ok(())
            }
            _ => Err(self.err(ErrorKind::TypeMismatch)),
        }
    }

    fn structure(&mut self, sd: &StructDesc, v: &Value, key: KeyMode) -> Result<(), Error> {
        let Value::Struct(vals) = v else {
            return Err(self.err(ErrorKind::TypeMismatch));
        };
        if vals.len() != sd.members.len() {
            return Err(self.err(ErrorKind::TypeMismatch));
        }
        let has_keys = key != KeyMode::All && sd.has_keys();
        let child = key.child();
        match (sd.extensibility, self.v2) {
            (Extensibility::Mutable, false) => {
                for (m, val) in sd.members.iter().zip(vals) {
                    if !key.includes(has_keys, m) {
                        continue;
                    }
                    if matches!(val, Value::Null) {
                        if m.optional {
                            continue;
                        }
                        return Err(self.err(ErrorKind::TypeMismatch));
                    }
                    self.align(4)?;
                    self.u16(PID_EXTENDED_MU)?;
                    self.u16(8)?;
                    self.u32(m.id | if m.must_understand { PL_LONG_MU } else { 0 })?;
                    let slot = self.open()?;
                    let saved = self.origin;
                    self.origin = slot.1;
                    self.value(&m.ty, val, child)?;
                    self.origin = saved;
                    // Lengths padded to 4 (XTypes 1.1 / RTI style, as cyclonedds writes them).
                    self.align(4)?;
                    self.close(slot)?;
                }
                self.align(4)?;
                self.u16(PID_LIST_END_MU)?;
                self.u16(0)
            }
            (Extensibility::Mutable, true) => {
                let outer = self.open()?;
                for (m, val) in sd.members.iter().zip(vals) {
                    if !key.includes(has_keys, m) {
                        continue;
                    }
                    if matches!(val, Value::Null) {
                        if m.optional {
                            continue;
                        }
                        return Err(self.err(ErrorKind::TypeMismatch));
                    }
                    self.align(4)?;
                    let lc = length_code(&m.ty, true);
                    let mu = if m.must_understand { EM_MU } else { 0 };
                    self.u32(mu | (lc as u32) << 28 | (m.id & 0x0fff_ffff))?;
                    if lc == 4 {
                        let slot = self.open()?;
                        self.value(&m.ty, val, child)?;
                        self.close(slot)?;
                    } else {
                        self.value(&m.ty, val, child)?;
                    }
                }
                self.close(outer)
            }
            (Extensibility::Appendable, true) => {
                let slot = self.open()?;
                self.members(sd, vals, key, has_keys)?;
                self.close(slot)
            }
            _ => self.members(sd, vals, key, has_keys),
        }
    }

    fn members(&mut self, sd: &StructDesc, vals: &[Value], key: KeyMode, has_keys: bool) -> Result<(), Error> {
        let child = key.child();
        for (m, val) in sd.members.iter().zip(vals) {
            if !key.includes(has_keys, m) {
                continue;
            }
            if !m.optional {
                if matches!(val, Value::Null) {
                    return Err(self.err(ErrorKind::TypeMismatch));
                }
                self.value(&m.ty, val, child)?;
                continue;
            }
            let present = !matches!(val, Value::Null);
            if self.v2 {
                self.u8(present as u8)?;
                if present {
                    self.value(&m.ty, val, child)?;
                }
            } else {
                // XCDR1: an (extended) parameter header even outside mutable types.
                self.align(4)?;
                self.u16(PID_EXTENDED_MU)?;
                self.u16(8)?;
                self.u32(m.id | if m.must_understand { PL_LONG_MU } else { 0 })?;
                let slot = self.open()?;
                if present {
                    let saved = self.origin;
                    self.origin = slot.1;
                    self.value(&m.ty, val, child)?;
                    self.origin = saved;
                }
                self.close(slot)?;
            }
        }
        Ok(())
    }

    fn union(&mut self, ud: &UnionDesc, v: &Value, _key: KeyMode) -> Result<(), Error> {
        let Value::Union { disc, value } = v else {
            return Err(self.err(ErrorKind::TypeMismatch));
        };
        let slot = match (ud.extensibility, self.v2) {
            (Extensibility::Appendable, true) => Some(self.open()?),
            (Extensibility::Mutable, true) => return Err(self.err(ErrorKind::InvalidType)),
            _ => None,
        };
        self.discriminator(&ud.discriminator, *disc)?;
        match (ud.select(*disc), value) {
            // A union inside a key is serialized whole (its branch is not key-filtered).
            (Some(case), Some(val)) => self.value(&case.ty, val, KeyMode::All)?,
            (None, None) => {}
            _ => return Err(self.err(ErrorKind::TypeMismatch)),
        }
        if let Some(s) = slot {
            self.close(s)?;
        }
        Ok(())
    }

    fn discriminator(&mut self, ty: &TypeDesc, d: i64) -> Result<(), Error> {
        let v = Value::Int(d);
        match ty {
            TypeDesc::Bool => {
                let n = self.int(&v, 0, 1)?;
                self.u8(n as u8)
            }
            TypeDesc::Octet | TypeDesc::UInt8 | TypeDesc::Char => {
                let n = self.int(&v, 0, u8::MAX as i128)?;
                self.u8(n as u8)
            }
            TypeDesc::Int8 => {
                let n = self.int(&v, i8::MIN as i128, i8::MAX as i128)?;
                self.u8(n as u8)
            }
            TypeDesc::Int16 => {
                let n = self.int(&v, i16::MIN as i128, i16::MAX as i128)?;
                self.u16(n as u16)
            }
            TypeDesc::UInt16 => {
                let n = self.int(&v, 0, u16::MAX as i128)?;
                self.u16(n as u16)
            }
            TypeDesc::Int32 => {
                let n = self.int(&v, i32::MIN as i128, i32::MAX as i128)?;
                self.u32(n as u32)
            }
            TypeDesc::UInt32 => {
                let n = self.int(&v, 0, u32::MAX as i128)?;
                self.u32(n as u32)
            }
            TypeDesc::Int64 | TypeDesc::UInt64 => self.u64(d as u64),
            TypeDesc::Enum(e) => self.enum_value(e, d),
            _ => Err(self.err(ErrorKind::InvalidType)),
        }
    }
}

/// How to encode: the encoding, whether to write the encapsulation header,
/// whether to pad the payload to a multiple of 4 like C writers, whether to
/// write only the key.
///
/// ```
/// use cdr::{Encoder, Encoding, Extensibility, Member, StructDesc, TypeDesc, Value};
/// let ty = TypeDesc::structure(StructDesc::new("Payload", Extensibility::Final, vec![
///     Member::new("seq", TypeDesc::UInt32),
///     Member::new("data", TypeDesc::sequence(TypeDesc::Octet)),
/// ]));
/// let v = Value::Struct(vec![Value::UInt(1), Value::Bytes(vec![1, 2, 3, 4, 5])]);
/// let bytes = Encoder::new(Encoding::XCDR1_LE).encode(&ty, &v)?;
/// assert_eq!(bytes, [0, 1, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 1, 2, 3, 4, 5]);
/// let padded = Encoder::new(Encoding::XCDR1_LE).pad_to_4(true).encode(&ty, &v)?;
/// assert_eq!(&padded[..4], &[0, 1, 0, 3]);
/// assert_eq!(padded.len(), 20);
/// assert_eq!(cdr::decode(&ty, &padded)?, v);
/// # Ok::<(), cdr::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoder {
    pub encoding: Encoding,
    /// Write the 4-byte encapsulation header (default true). Without it the
    /// alignment origin is the first byte written.
    pub header: bool,
    /// Pad the payload to a multiple of 4 and record the count in the
    /// header's `options & 3`, as C writers do (default false, as cyclonedds-python).
    pub pad_to_4: bool,
    /// Write only the key members (`serialize_key`): the top-level struct's
    /// `@key` members, and inside them their own keys (all members when a
    /// nested struct has none; a union is written whole).
    pub key_only: bool,
    /// Nesting limit (default [`DEFAULT_MAX_DEPTH`]).
    pub max_depth: usize,
}

impl Encoder {
    /// Header on, no padding, whole value.
    pub const fn new(encoding: Encoding) -> Encoder {
        Encoder { encoding, header: true, pad_to_4: false, key_only: false, max_depth: DEFAULT_MAX_DEPTH }
    }

    /// Set [`Encoder::header`].
    pub const fn header(mut self, on: bool) -> Encoder {
        self.header = on;
        self
    }

    /// Set [`Encoder::pad_to_4`].
    pub const fn pad_to_4(mut self, on: bool) -> Encoder {
        self.pad_to_4 = on;
        self
    }

    /// Set [`Encoder::key_only`].
    pub const fn key_only(mut self, on: bool) -> Encoder {
        self.key_only = on;
        self
    }

    /// Set [`Encoder::max_depth`].
    pub const fn max_depth(mut self, depth: usize) -> Encoder {
        self.max_depth = depth;
        self
    }

    fn key_mode(&self) -> KeyMode {
        if self.key_only {
            KeyMode::Top
        } else {
            KeyMode::All
        }
    }

    fn origin(&self) -> usize {
        if self.header {
            4
        } else {
            0
        }
    }

    /// Encode into a new `Vec`.
    pub fn encode(&self, ty: &TypeDesc, v: &Value) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        self.encode_append(ty, v, &mut out)?;
        Ok(out)
    }

    /// Append the encoding to `out` (one pass, lengths patched in place);
    /// returns the number of bytes appended. On error `out` is left as it was.
    pub fn encode_append(&self, ty: &TypeDesc, v: &Value, out: &mut Vec<u8>) -> Result<usize, Error> {
        let base = out.len();
        let r = self.append_inner(ty, v, out, base);
        if r.is_err() {
            out.truncate(base);
        }
        r
    }

    fn append_inner(&self, ty: &TypeDesc, v: &Value, out: &mut Vec<u8>, base: usize) -> Result<usize, Error> {
        if self.header {
            out.extend_from_slice(&Header::for_type(ty, self.encoding).to_bytes());
        }
        let mut enc = Enc::new(VecSink { buf: out, base }, self.encoding, self.origin(), self.max_depth);
        enc.value(ty, v, self.key_mode())?;
        if self.header && self.pad_to_4 {
            let body = out.len() - base - 4;
            let pad = (4 - body % 4) % 4;
            out.resize(out.len() + pad, 0);
            out[base + 3] |= pad as u8;
        }
        Ok(out.len() - base)
    }

    /// The encoded size in bytes (a counting pass; nothing is written).
    pub fn encoded_len(&self, ty: &TypeDesc, v: &Value) -> Result<usize, Error> {
        Ok(self.count(ty, v)?.0)
    }

    fn count(&self, ty: &TypeDesc, v: &Value) -> Result<(usize, Vec<u32>, usize), Error> {
        let origin = self.origin();
        let mut enc = Enc::new(CountSink { pos: origin, lens: Vec::new() }, self.encoding, origin, self.max_depth);
        enc.value(ty, v, self.key_mode())?;
        let body = enc.sink.pos - origin;
        let pad = if self.header && self.pad_to_4 { (4 - body % 4) % 4 } else { 0 };
        Ok((enc.sink.pos + pad, enc.sink.lens, pad))
    }

    /// Encode into any [`Write`] (e.g. a fixed [`crate::SliceWriter`]),
    /// strictly forward: a counting pass computes every length first. Returns
    /// the number of bytes written. A sink that fails part way may hold a prefix.
    pub fn encode_to<W: Write>(&self, ty: &TypeDesc, v: &Value, w: W) -> Result<usize, Error> {
        let (total, lens, pad) = self.count(ty, v)?;
        let mut sink = ReplaySink { w, pos: 0, lens: &lens, next: 0 };
        if self.header {
            let mut h = Header::for_type(ty, self.encoding);
            h.options[1] |= pad as u8;
            sink.put(&h.to_bytes())?;
        }
        let mut enc = Enc::new(sink, self.encoding, self.origin(), self.max_depth);
        enc.value(ty, v, self.key_mode())?;
        enc.sink.zeros(pad)?;
        debug_assert_eq!(enc.sink.pos, total);
        Ok(enc.sink.pos)
    }
}

/// Encode `v` as `ty` with the encapsulation header, no padding (the
/// cyclonedds-python form).
pub fn encode(ty: &TypeDesc, v: &Value, encoding: Encoding) -> Result<Vec<u8>, Error> {
    Encoder::new(encoding).encode(ty, v)
}

/// Append the encoding of `v` (header included) to `out`; returns the byte count.
pub fn encode_append(ty: &TypeDesc, v: &Value, encoding: Encoding, out: &mut Vec<u8>) -> Result<usize, Error> {
    Encoder::new(encoding).encode_append(ty, v, out)
}

/// Encode into any [`Write`]; returns the byte count.
pub fn encode_to<W: Write>(ty: &TypeDesc, v: &Value, encoding: Encoding, w: W) -> Result<usize, Error> {
    Encoder::new(encoding).encode_to(ty, v, w)
}

/// Encode only the key (cyclonedds' `IdlStruct.serialize_key`): the
/// encapsulation header of the type, then the `@key` members.
pub fn encode_key(ty: &TypeDesc, v: &Value, encoding: Encoding) -> Result<Vec<u8>, Error> {
    Encoder::new(encoding).key_only(true).encode(ty, v)
}
