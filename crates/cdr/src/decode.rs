//! The decoder.
//!
//! Every read is checked against the end of the innermost enclosing region
//! (the payload, a DHEADER body, an EMHEADER or parameter body) before it
//! happens; every count is checked against the remaining bytes before
//! anything is allocated; nesting is bounded by [`Limits::max_depth`]; the
//! arithmetic is checked. Malformed input gives an [`Error`], never a panic.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use crate::encode::{KeyMode, DEFAULT_MAX_DEPTH, PID_EXTENDED, PID_LIST_END};
use crate::error::{Error, ErrorKind};
use crate::header::{Encoding, Header};
use crate::types::{EnumDesc, Extensibility, StructDesc, TypeDesc, UnionDesc};
use crate::value::Value;

/// Resource limits of the decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum nesting of sequences, arrays, structs and unions (default 64).
    pub max_depth: usize,
    /// Maximum element count of a sequence or array whose elements can take
    /// zero bytes on the wire (e.g. empty structs), where the remaining input
    /// does not bound the count (default 65,536).
    pub max_empty_elements: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_depth: DEFAULT_MAX_DEPTH, max_empty_elements: 1 << 16 }
    }
}

/// The smallest number of bytes a value of `ty` can take (alignment
/// padding not counted), for rejecting impossible counts before allocating.
pub fn min_wire_size(ty: &TypeDesc, xcdr2: bool) -> usize {
    min_size(ty, xcdr2, KeyMode::All, 0)
}

fn min_size(ty: &TypeDesc, v2: bool, key: KeyMode, depth: usize) -> usize {
    if depth > 32 {
        return 0;
    }
    if let Some(n) = ty.primitive_size() {
        return n;
    }
    match ty {
        TypeDesc::String { .. } => 5,
        TypeDesc::Enum(e) => e.wire_size(v2),
        TypeDesc::Sequence { elem, .. } => {
            if v2 && elem.primitive_size().is_none() {
                8
            } else {
                4
            }
        }
        TypeDesc::Array { elem, dims } => {
            if v2 && elem.primitive_size().is_none() {
                4
            } else {
                let n = dims.iter().fold(1usize, |a, &d| a.saturating_mul(d as usize));
                n.saturating_mul(min_size(elem, v2, key, depth + 1))
            }
        }
        TypeDesc::Struct(s) => match (s.extensibility, v2) {
            (Extensibility::Mutable, _) | (Extensibility::Appendable, true) => 4,
            _ => {
                let has_keys = key != KeyMode::All && s.has_keys();
                s.members.iter().filter(|m| key.includes(has_keys, m)).fold(0usize, |a, m| {
                    let n = match (m.optional, v2) {
                        (true, true) => 1,
                        (true, false) => 12,
                        (false, _) => min_size(&m.ty, v2, key.child(), depth + 1),
                    };
                    a.saturating_add(n)
                })
            }
        },
        TypeDesc::Union(u) => {
            if v2 && u.extensibility != Extensibility::Final {
                4
            } else {
                min_size(&u.discriminator, v2, KeyMode::All, depth + 1)
            }
        }
        _ => 0,
    }
}

/// An XCDR1 parameter header.
pub(crate) enum Param {
    /// `PID_LIST_END`.
    End,
    /// A member (`id` is `None` for implementation-specific ids), its
    /// must-understand flag, its length, and where its header started.
    Member { id: Option<u32>, mu: bool, len: usize, at: usize },
}

pub(crate) struct Dec<'a> {
    pub(crate) buf: &'a [u8],
    pub(crate) pos: usize,
    /// End of the innermost region.
    pub(crate) end: usize,
    /// End of the payload body (padding excluded).
    pub(crate) body_end: usize,
    pub(crate) origin: usize,
    pub(crate) be: bool,
    pub(crate) v2: bool,
    pub(crate) depth: usize,
    pub(crate) limits: Limits,
}

macro_rules! read_num {
    ($self:ident, $t:ty, $n:expr) => {{
        $self.align($n)?;
        let b = $self.take($n)?;
        let mut a = [0u8; $n];
        a.copy_from_slice(b);
        Ok(if $self.be { <$t>::from_be_bytes(a) } else { <$t>::from_le_bytes(a) })
    }};
}

impl<'a> Dec<'a> {
    #[inline]
    pub(crate) fn err(&self, kind: ErrorKind) -> Error {
        Error::new(kind, self.pos)
    }

    /// The error for "need `n` more bytes than the region has".
    #[cold]
    pub(crate) fn short(&self) -> Error {
        if self.end < self.body_end {
            Error::new(ErrorKind::LengthMismatch, self.pos)
        } else {
            Error::new(ErrorKind::UnexpectedEnd, self.end)
        }
    }

    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.end.saturating_sub(self.pos)
    }

    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if n > self.remaining() {
            return Err(self.short());
        }
        let s = self.buf.get(self.pos..self.pos + n).ok_or_else(|| self.short())?;
        self.pos += n;
        Ok(s)
    }

    #[inline]
    pub(crate) fn align(&mut self, n: usize) -> Result<(), Error> {
        let n = if self.v2 { n.min(4) } else { n };
        if n <= 1 {
            return Ok(());
        }
        let rel = self.pos.wrapping_sub(self.origin);
        let pad = (n - rel % n) % n;
        if pad > self.remaining() {
            return Err(self.short());
        }
        self.pos += pad;
        Ok(())
    }

    #[inline]
    pub(crate) fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?[0])
    }

    #[inline]
    pub(crate) fn u16(&mut self) -> Result<u16, Error> {
        read_num!(self, u16, 2)
    }

    #[inline]
    pub(crate) fn u32(&mut self) -> Result<u32, Error> {
        read_num!(self, u32, 4)
    }

    #[inline]
    pub(crate) fn u64(&mut self) -> Result<u64, Error> {
        read_num!(self, u64, 8)
    }

    /// Peek a u32 at the current (4-aligned) position.
    fn peek_u32(&mut self) -> Result<u32, Error> {
        let at = self.pos;
        let v = self.u32()?;
        self.pos = at;
        Ok(v)
    }

    /// Open a region of `len` bytes at the current position; returns the
    /// previous end to restore with [`Dec::leave_region`].
    pub(crate) fn enter_region(&mut self, len: usize, at: usize) -> Result<usize, Error> {
        if len > self.remaining() {
            return Err(if self.end < self.body_end {
                Error::new(ErrorKind::LengthMismatch, at)
            } else {
                Error::new(ErrorKind::UnexpectedEnd, self.end)
            });
        }
        let saved = self.end;
        self.end = self.pos + len;
        Ok(saved)
    }

    /// Skip to the end of the current region and restore the outer end.
    pub(crate) fn leave_region(&mut self, saved_end: usize) {
        self.pos = self.end;
        self.end = saved_end;
    }

    /// Read a DHEADER and open its region.
    pub(crate) fn dheader(&mut self) -> Result<usize, Error> {
        self.align(4)?;
        let at = self.pos;
        let n = self.u32()? as usize;
        self.enter_region(n, at)
    }

    fn enter(&mut self) -> Result<(), Error> {
        if self.depth >= self.limits.max_depth {
            return Err(self.err(ErrorKind::DepthLimit));
        }
        self.depth += 1;
        Ok(())
    }

    fn value(&mut self, ty: &TypeDesc, key: KeyMode) -> Result<Value, Error> {
        Ok(match ty {
            TypeDesc::Bool => {
                let at = self.pos;
                match self.u8()? {
                    0 => Value::Bool(false),
                    1 => Value::Bool(true),
                    _ => return Err(Error::new(ErrorKind::InvalidBool, at)),
                }
            }
            TypeDesc::Octet | TypeDesc::UInt8 => Value::UInt(self.u8()? as u64),
            TypeDesc::Int8 => Value::Int(self.u8()? as i8 as i64),
            TypeDesc::Char => Value::Char(self.u8()? as char),
            TypeDesc::Int16 => Value::Int(self.u16()? as i16 as i64),
            TypeDesc::UInt16 => Value::UInt(self.u16()? as u64),
            TypeDesc::Int32 => Value::Int(self.u32()? as i32 as i64),
            TypeDesc::UInt32 => Value::UInt(self.u32()? as u64),
            TypeDesc::Int64 => Value::Int(self.u64()? as i64),
            TypeDesc::UInt64 => Value::UInt(self.u64()?),
            TypeDesc::Float32 => Value::F32(f32::from_bits(self.u32()?)),
            TypeDesc::Float64 => Value::F64(f64::from_bits(self.u64()?)),
            TypeDesc::String { bound } => Value::String(self.string(*bound)?),
            TypeDesc::Enum(e) => {
                let at = self.pos;
                let x = self.enum_value(e)?;
                if !e.contains(x) {
                    return Err(Error::new(ErrorKind::InvalidEnum, at));
                }
                Value::Enum(x)
            }
            TypeDesc::Sequence { elem, bound } => {
                self.enter()?;
                let v = self.sequence(elem, *bound, key)?;
                self.depth -= 1;
                v
            }
            TypeDesc::Array { elem, dims } => {
                self.enter()?;
                let v = self.array(elem, dims, key)?;
                self.depth -= 1;
                v
            }
            TypeDesc::Struct(sd) => {
                self.enter()?;
                let v = self.structure(sd, key)?;
                self.depth -= 1;
                v
            }
            TypeDesc::Union(ud) => {
                self.enter()?;
                let v = self.union(ud, key)?;
                self.depth -= 1;
                v
            }
        })
    }

    fn string(&mut self, bound: Option<u32>) -> Result<String, Error> {
        self.align(4)?;
        let at = self.pos;
        let n = self.u32()? as usize;
        if n == 0 {
            return Err(Error::new(ErrorKind::InvalidString, at));
        }
        if n > self.remaining() {
            return Err(self.short());
        }
        if let Some(b) = bound {
            if n - 1 > b as usize {
                return Err(Error::new(ErrorKind::BoundExceeded, at));
            }
        }
        let start = self.pos;
        let bytes = self.take(n)?;
        let (text, nul) = bytes.split_at(n - 1);
        if nul != [0] {
            return Err(Error::new(ErrorKind::InvalidString, start + n - 1));
        }
        match core::str::from_utf8(text) {
            Ok(s) => Ok(String::from(s)),
            Err(e) => Err(Error::new(ErrorKind::InvalidUtf8, start + e.valid_up_to())),
        }
    }

    fn enum_value(&mut self, e: &EnumDesc) -> Result<i32, Error> {
        Ok(match e.wire_size(self.v2) {
            1 => self.u8()? as i32,
            2 => self.u16()? as i32,
            _ => self.u32()? as i32,
        })
    }

    /// Check that `count` elements of `elem` can fit before allocating.
    fn check_count(&self, count: usize, elem: &TypeDesc, key: KeyMode, at: usize) -> Result<(), Error> {
        let min = min_size(elem, self.v2, key, 0);
        let ok = if min == 0 {
            count <= self.limits.max_empty_elements
        } else {
            count.checked_mul(min).is_some_and(|need| need <= self.remaining())
        };
        if ok {
            Ok(())
        } else {
            Err(Error::new(ErrorKind::LengthLimit, at))
        }
    }

    fn sequence(&mut self, elem: &TypeDesc, bound: Option<u32>, key: KeyMode) -> Result<Value, Error> {
        self.align(4)?;
        let region = if self.v2 && elem.primitive_size().is_none() { Some(self.dheader()?) } else { None };
        let at = self.pos;
        let count = self.u32()? as usize;
        if let Some(b) = bound {
            if count > b as usize {
                return Err(Error::new(ErrorKind::BoundExceeded, at));
            }
        }
        let v = if matches!(elem, TypeDesc::Octet) {
            if count > self.remaining() {
                return Err(Error::new(ErrorKind::LengthLimit, at));
            }
            Value::Bytes(self.take(count)?.to_vec())
        } else {
            self.check_count(count, elem, key, at)?;
            let mut items = Vec::with_capacity(count);
            for _ in 0..count {
                items.push(self.value(elem, key)?);
            }
            Value::Seq(items)
        };
        if let Some(saved) = region {
            self.leave_region(saved);
        }
        Ok(v)
    }

    fn array(&mut self, elem: &TypeDesc, dims: &[u32], key: KeyMode) -> Result<Value, Error> {
        let region = if self.v2 && elem.primitive_size().is_none() { Some(self.dheader()?) } else { None };
        let total = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d as usize));
        let at = self.pos;
        match total {
            Some(n) => self.check_count(n, elem, key, at)?,
            None => return Err(Error::new(ErrorKind::LengthLimit, at)),
        }
        let v = self.array_dims(elem, dims, key)?;
        if let Some(saved) = region {
            self.leave_region(saved);
        }
        Ok(v)
    }

    fn array_dims(&mut self, elem: &TypeDesc, dims: &[u32], key: KeyMode) -> Result<Value, Error> {
        let Some((&n, rest)) = dims.split_first() else {
            return self.value(elem, key);
        };
        let n = n as usize;
        if rest.is_empty() && matches!(elem, TypeDesc::Octet) {
            return Ok(Value::Bytes(self.take(n)?.to_vec()));
        }
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(self.array_dims(elem, rest, key)?);
        }
        Ok(Value::Seq(items))
    }

    fn structure(&mut self, sd: &StructDesc, key: KeyMode) -> Result<Value, Error> {
        let has_keys = key != KeyMode::All && sd.has_keys();
        match (sd.extensibility, self.v2) {
            (Extensibility::Mutable, false) => self.pl_cdr(sd, key, has_keys),
            (Extensibility::Mutable, true) => self.pl_cdr2(sd, key, has_keys),
            (Extensibility::Appendable, true) => {
                let saved = self.dheader()?;
                let v = self.members(sd, key, has_keys)?;
                self.leave_region(saved);
                Ok(v)
            }
            _ => self.members(sd, key, has_keys),
        }
    }

    /// Final (and appendable) members. Members past the end of the region
    /// (an appendable type's older writer) take their default values.
    fn members(&mut self, sd: &StructDesc, key: KeyMode, has_keys: bool) -> Result<Value, Error> {
        let child = key.child();
        let bounded = self.v2 && sd.extensibility == Extensibility::Appendable;
        let mut vals = Vec::with_capacity(sd.members.len());
        for m in &sd.members {
            if !key.includes(has_keys, m) || (bounded && self.pos >= self.end) {
                vals.push(if m.optional { Value::Null } else { m.ty.default_value() });
                continue;
            }
            if !m.optional {
                vals.push(self.value(&m.ty, child)?);
                continue;
            }
            if self.v2 {
                let at = self.pos;
                match self.u8()? {
                    0 => vals.push(Value::Null),
                    1 => vals.push(self.value(&m.ty, child)?),
                    _ => return Err(Error::new(ErrorKind::InvalidBool, at)),
                }
            } else {
                let at = self.pos;
                let Param::Member { len, .. } = self.param_header()? else {
                    return Err(Error::new(ErrorKind::InvalidParameter, at));
                };
                if len == 0 {
                    vals.push(Value::Null);
                } else {
                    vals.push(self.param_body(len, &m.ty, child)?);
                }
            }
        }
        Ok(Value::Struct(vals))
    }

    /// An XCDR1 parameter header, short or extended form.
    pub(crate) fn param_header(&mut self) -> Result<Param, Error> {
        self.align(4)?;
        let at = self.pos;
        let pid = self.u16()?;
        let len = self.u16()?;
        if pid & 0x3fff == PID_LIST_END {
            return Ok(Param::End);
        }
        if pid & 0x3fff == PID_EXTENDED {
            if len != 8 {
                return Err(Error::new(ErrorKind::InvalidParameter, at));
            }
            let mid = self.u32()?;
            let len = self.u32()? as usize;
            // Bit 31: implementation-specific id, never one of ours.
            let id = if mid & 0x8000_0000 != 0 { None } else { Some(mid & 0x0fff_ffff) };
            Ok(Param::Member { id, mu: mid & 0x4000_0000 != 0, len, at })
        } else {
            let id = if pid & 0x8000 != 0 { None } else { Some((pid & 0x3fff) as u32) };
            Ok(Param::Member { id, mu: pid & 0x4000 != 0, len: len as usize, at })
        }
    }

    /// A parameter body of `len` bytes holding a `ty`, aligned from its own start.
    fn param_body(&mut self, len: usize, ty: &TypeDesc, key: KeyMode) -> Result<Value, Error> {
        let at = self.pos;
        let saved_end = self.enter_region(len, at)?;
        let saved_origin = self.origin;
        self.origin = self.pos;
        let v = self.value(ty, key)?;
        self.origin = saved_origin;
        self.leave_region(saved_end);
        Ok(v)
    }

    fn pl_cdr(&mut self, sd: &StructDesc, key: KeyMode, has_keys: bool) -> Result<Value, Error> {
        let child = key.child();
        let mut slots: Vec<Option<Value>> = alloc::vec![None; sd.members.len()];
        while let Param::Member { id, mu, len, at } = self.param_header()? {
            let idx = id.and_then(|id| sd.members.iter().position(|m| m.id == id));
            match idx {
                Some(i) if key.includes(has_keys, &sd.members[i]) => {
                    slots[i] = Some(self.param_body(len, &sd.members[i].ty, child)?);
                }
                _ => {
                    if mu && idx.is_none() {
                        return Err(Error::new(ErrorKind::MustUnderstand, at));
                    }
                    let saved = self.enter_region(len, at)?;
                    self.leave_region(saved);
                }
            }
        }
        self.finish_mutable(sd, slots, key, has_keys)
    }

    fn pl_cdr2(&mut self, sd: &StructDesc, key: KeyMode, has_keys: bool) -> Result<Value, Error> {
        let child = key.child();
        let saved = self.dheader()?;
        let mut slots: Vec<Option<Value>> = alloc::vec![None; sd.members.len()];
        while self.pos < self.end {
            self.align(4)?;
            let at = self.pos;
            let em = self.u32()?;
            let mu = em & 0x8000_0000 != 0;
            let lc = (em >> 28) & 7;
            let id = em & 0x0fff_ffff;
            let len: usize = match lc {
                0..=3 => 1 << lc,
                4 => self.u32()? as usize,
                _ => {
                    let n = self.peek_u32()? as usize;
                    let mult = match lc {
                        5 => 1usize,
                        6 => 4,
                        _ => 8,
                    };
                    n.checked_mul(mult)
                        .and_then(|x| x.checked_add(4))
                        .ok_or(Error::new(ErrorKind::LengthMismatch, at))?
                }
            };
            let idx = sd.members.iter().position(|m| m.id == id);
            let start = self.pos;
            let outer = self.enter_region(len, start)?;
            match idx {
                Some(i) if key.includes(has_keys, &sd.members[i]) => {
                    slots[i] = Some(self.value(&sd.members[i].ty, child)?);
                }
                Some(_) => {}
                None if mu => return Err(Error::new(ErrorKind::MustUnderstand, at)),
                None => {}
            }
            self.leave_region(outer);
        }
        self.leave_region(saved);
        self.finish_mutable(sd, slots, key, has_keys)
    }

    fn finish_mutable(
        &self,
        sd: &StructDesc,
        slots: Vec<Option<Value>>,
        key: KeyMode,
        has_keys: bool,
    ) -> Result<Value, Error> {
        let mut vals = Vec::with_capacity(slots.len());
        for (m, s) in sd.members.iter().zip(slots) {
            vals.push(match s {
                Some(v) => v,
                None if m.optional => Value::Null,
                None if m.key && key.includes(has_keys, m) => {
                    return Err(Error::new(ErrorKind::MissingKey, self.pos));
                }
                None => m.ty.default_value(),
            });
        }
        Ok(Value::Struct(vals))
    }

    fn union(&mut self, ud: &UnionDesc, _key: KeyMode) -> Result<Value, Error> {
        let region = match (ud.extensibility, self.v2) {
            (Extensibility::Appendable, true) => Some(self.dheader()?),
            (Extensibility::Mutable, true) => return Err(self.err(ErrorKind::InvalidType)),
            _ => None,
        };
        let disc = self.discriminator(&ud.discriminator)?;
        let value = match ud.select(disc) {
            None => None,
            Some(case) if region.is_some() && self.pos >= self.end => Some(Box::new(case.ty.default_value())),
            // A union inside a key is serialized whole.
            Some(case) => Some(Box::new(self.value(&case.ty, KeyMode::All)?)),
        };
        if let Some(saved) = region {
            self.leave_region(saved);
        }
        Ok(Value::Union { disc, value })
    }

    fn discriminator(&mut self, ty: &TypeDesc) -> Result<i64, Error> {
        let at = self.pos;
        Ok(match ty {
            TypeDesc::Bool => match self.u8()? {
                b @ (0 | 1) => b as i64,
                _ => return Err(Error::new(ErrorKind::InvalidBool, at)),
            },
            TypeDesc::Octet | TypeDesc::UInt8 | TypeDesc::Char => self.u8()? as i64,
            TypeDesc::Int8 => self.u8()? as i8 as i64,
            TypeDesc::Int16 => self.u16()? as i16 as i64,
            TypeDesc::UInt16 => self.u16()? as i64,
            TypeDesc::Int32 => self.u32()? as i32 as i64,
            TypeDesc::UInt32 => self.u32()? as i64,
            TypeDesc::Int64 | TypeDesc::UInt64 => self.u64()? as i64,
            TypeDesc::Enum(e) => self.enum_value(e)? as i64,
            _ => return Err(Error::new(ErrorKind::InvalidType, at)),
        })
    }
}

/// How to decode: limits, with or without the encapsulation header, whole
/// value or key only, strict or lenient about trailing bytes.
///
/// With a header, the body's version and byte order come from it, and the
/// `options & 3` padding bytes at the end are skipped (both the padded C
/// form and the unpadded Python form are accepted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Decoder {
    pub limits: Limits,
    /// `None`: the input starts with the 4-byte header. `Some(e)`: the input
    /// is a bare body in encoding `e` (alignment origin at its first byte).
    pub headerless: Option<Encoding>,
    /// Read a key serialization ([`crate::Encoder::key_only`]): non-key
    /// members take their default values.
    pub key_only: bool,
    /// Accept bytes after the value (default: [`ErrorKind::TrailingBytes`]).
    pub allow_trailing: bool,
}

impl Decoder {
    /// Header expected, default limits, whole value, strict.
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// Set [`Decoder::limits`].
    pub fn limits(mut self, limits: Limits) -> Decoder {
        self.limits = limits;
        self
    }

    /// Set [`Decoder::headerless`].
    pub fn headerless(mut self, encoding: Option<Encoding>) -> Decoder {
        self.headerless = encoding;
        self
    }

    /// Set [`Decoder::key_only`].
    pub fn key_only(mut self, on: bool) -> Decoder {
        self.key_only = on;
        self
    }

    /// Set [`Decoder::allow_trailing`].
    pub fn allow_trailing(mut self, on: bool) -> Decoder {
        self.allow_trailing = on;
        self
    }

    /// Decode one value of type `ty` from `bytes`.
    pub fn decode(&self, ty: &TypeDesc, bytes: &[u8]) -> Result<Value, Error> {
        let (enc, start, body_end) = match self.headerless {
            Some(e) => (e, 0, bytes.len()),
            None => {
                let h = Header::parse(bytes)?;
                let pad = h.padding();
                let body_end = bytes.len().checked_sub(pad).filter(|&e| e >= 4);
                let body_end = body_end.ok_or(Error::new(ErrorKind::InvalidHeader, 3))?;
                (h.encoding(), 4, body_end)
            }
        };
        let mut d = Dec {
            buf: bytes,
            pos: start,
            end: body_end,
            body_end,
            origin: start,
            be: enc.is_be(),
            v2: enc.is_v2(),
            depth: 0,
            limits: self.limits,
        };
        let key = if self.key_only { KeyMode::Top } else { KeyMode::All };
        let v = d.value(ty, key)?;
        if d.pos != body_end && !self.allow_trailing {
            return Err(Error::new(ErrorKind::TrailingBytes, d.pos));
        }
        Ok(v)
    }
}

/// Decode a payload that starts with the encapsulation header.
pub fn decode(ty: &TypeDesc, bytes: &[u8]) -> Result<Value, Error> {
    Decoder::new().decode(ty, bytes)
}

/// [`decode`] with explicit limits.
pub fn decode_with(ty: &TypeDesc, bytes: &[u8], limits: &Limits) -> Result<Value, Error> {
    Decoder::new().limits(*limits).decode(ty, bytes)
}

/// Decode a key serialization as written by [`crate::encode_key`] (header
/// included); the non-key members take their default values.
pub fn decode_key(ty: &TypeDesc, bytes: &[u8]) -> Result<Value, Error> {
    Decoder::new().key_only(true).decode(ty, bytes)
}
