//! Deserializing: PSON bytes straight into derived types, borrowing strings and bytes.

use alloc::format;

use ::serde::de::value::BorrowedStrDeserializer;
use ::serde::de::{self, DeserializeSeed, Expected, Unexpected, Visitor};
use ::serde::Deserialize;

use super::{Error, MAX_DEPTH};
use crate::{Decoder, ErrorKind, Item};

/// Deserialize a `T` from exactly one PSON item covering all of `bytes` (trailing bytes are
/// an error). Strings and byte strings can be borrowed from `bytes`.
#[inline]
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, Error> {
    let mut de = Deserializer::from_slice(bytes);
    // Every path returns `r` itself (no re-wrapping), so the value is built in place.
    let mut r = T::deserialize(&mut de);
    if let Some(e) = de.deferred.take() {
        r = Err(e);
    } else if r.is_ok() && de.pos < bytes.len() {
        r = Err(Error::pson_at(ErrorKind::TrailingBytes, de.pos));
    }
    if let Err(e) = &mut r {
        e.fix(de.last);
    }
    r
}

/// A serde deserializer reading PSON v2 from a byte slice. It borrows strings and byte strings
/// from the input and never allocates (except for error messages).
///
/// The common item forms are read by an inline fast path; everything else (escaped discrete
/// and float headers, 10-byte varints, anything malformed) goes through [`crate::Decoder`], so
/// what is accepted and every error (kind and offset) are exactly the `pson` crate's.
///
/// Errors raised by serde visitors (a type mismatch, a missing field, ...) carry no offset
/// when they are created; the deserializer keeps the offset of the item being handled
/// (`last`) and [`from_slice`] attaches it. When driving a `Deserializer` by hand, use
/// [`Deserializer::locate`] the same way. Keeping the offset out of the hot path (no
/// per-item rewrapping of results) is worth a good part of the decode time.
#[derive(Debug, Clone)]
pub struct Deserializer<'de> {
    input: &'de [u8],
    pos: usize,
    /// Offset of the item being handled: what a visitor's error is about. A container's own
    /// errors (missing field, wrong length) come when its last element has been read, and
    /// then this is the container's header again.
    last: usize,
    /// Containers that may still be entered before the depth limit.
    depth_left: usize,
    /// An error found after a visitor returned successfully (a container with more elements
    /// than the visitor read), reported by [`from_slice`] / [`Deserializer::end`]. Kept
    /// aside so that results are passed back untouched (no re-wrapping on the hot path).
    deferred: Option<Error>,
}

/// The serde name of what an item is, for type errors.
#[inline]
fn unexpected<'a>(item: &Item<'a>) -> Unexpected<'a> {
    match *item {
        Item::Uint(u) => Unexpected::Unsigned(u),
        Item::Int(i) => Unexpected::Signed(i),
        Item::F32(f) => Unexpected::Float(f as f64),
        Item::F64(f) => Unexpected::Float(f),
        Item::Bool(b) => Unexpected::Bool(b),
        Item::Null => Unexpected::Unit,
        Item::Str(s) => Unexpected::Str(s),
        Item::Bytes(b) => Unexpected::Bytes(b),
        Item::Map(_) => Unexpected::Map,
        Item::Array(_) => Unexpected::Seq,
    }
}

#[cold]
#[inline(never)]
fn wrong_kind(item: &Item<'_>, exp: &dyn Expected, at: usize) -> Error {
    Error::msg_at(format!("invalid type: {}, expected {}", unexpected(item), exp), at)
}

#[cold]
#[inline(never)]
fn leftover(n: u64, what: &str, at: usize) -> Error {
    Error::msg_at(format!("the {what} has {n} more element(s) than the target type reads"), at)
}

/// An item header at `pos`: (wire type, value, offset of the body). `None` when it is not in
/// the fast form: missing bytes, or a varint longer than 9 bytes (the slow path decides).
#[inline(always)]
fn header(input: &[u8], pos: usize) -> Option<(u8, u64, usize)> {
    let h = *input.get(pos)?;
    let p = h & 0x1f;
    if p != 0x1f {
        return Some((h >> 5, p as u64, pos + 1));
    }
    // LEB128 of at most 9 bytes (63 bits): no overflow or dropped bits to care about.
    let mut i = pos + 1;
    let mut v = 0u64;
    let mut shift = 0u32;
    while shift < 63 {
        let b = *input.get(i)?;
        i += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some((h >> 5, v, i));
        }
        shift += 7;
    }
    None
}

/// Whether `input[at .. at + len]` (which exists) is ASCII; keys of up to 8 bytes are
/// checked with one word load when 8 bytes are available there.
#[inline(always)]
fn ascii_at(input: &[u8], at: usize, len: usize) -> bool {
    if len <= 8 {
        if let Some(w) = input.get(at..at.saturating_add(8)) {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            let mask = if len == 8 { u64::MAX } else { (1u64 << (len * 8)) - 1 };
            return u64::from_le_bytes(a) & mask & 0x8080_8080_8080_8080 == 0;
        }
    }
    input.get(at..at + len).is_some_and(|b| b.is_ascii())
}

/// `input[at .. at + n]` when it is all there.
#[inline(always)]
fn body(input: &[u8], at: usize, n: u64) -> Option<&[u8]> {
    let n = usize::try_from(n).ok()?;
    input.get(at..at.checked_add(n)?)
}

/// The fast path of [`Deserializer::item`]: `None` sends the item to `crate::Decoder`.
#[inline(always)]
fn fast_item(input: &[u8], pos: usize) -> Option<(Item<'_>, usize)> {
    let (wire, v, at) = header(input, pos)?;
    let left = (input.len() - at) as u64; // at <= input.len(): a byte was read before it
    let item = match wire {
        crate::wire_type::UINT => Item::Uint(v),
        // At most 63 bits from `header`: the negation cannot overflow.
        crate::wire_type::NEG_INT => Item::Int(-(v as i64)),
        crate::wire_type::FLOAT => match v {
            0 => {
                let b: [u8; 4] = body(input, at, 4)?.try_into().ok()?;
                return Some((Item::F32(f32::from_le_bytes(b)), at + 4));
            }
            1 => {
                let b: [u8; 8] = body(input, at, 8)?.try_into().ok()?;
                return Some((Item::F64(f64::from_le_bytes(b)), at + 8));
            }
            _ => return None,
        },
        crate::wire_type::DISCRETE => match v {
            0 => Item::Bool(false),
            1 => Item::Bool(true),
            2 => Item::Null,
            _ => return None,
        },
        crate::wire_type::STR => {
            let s = core::str::from_utf8(body(input, at, v)?).ok()?;
            return Some((Item::Str(s), at + s.len()));
        }
        crate::wire_type::BYTES => {
            let b = body(input, at, v)?;
            return Some((Item::Bytes(b), at + b.len()));
        }
        crate::wire_type::MAP if v <= left / 2 => Item::Map(v),
        crate::wire_type::ARRAY if v <= left => Item::Array(v),
        _ => return None,
    };
    Some((item, at))
}

impl<'de> Deserializer<'de> {
    /// Read from the start of `bytes`.
    #[inline]
    pub fn from_slice(bytes: &'de [u8]) -> Self {
        Deserializer { input: bytes, pos: 0, last: 0, depth_left: MAX_DEPTH, deferred: None }
    }

    /// Give an error without an offset (one raised by a serde visitor) the offset of the item
    /// it is about. [`from_slice`] does this; use it when calling `T::deserialize(&mut de)`
    /// yourself.
    pub fn locate(&self, mut err: Error) -> Error {
        err.fix(self.last);
        err
    }

    /// Bytes consumed so far.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Check that the whole input was consumed ([`ErrorKind::TrailingBytes`] otherwise) and
    /// that no container had elements left unread by its visitor.
    #[inline]
    pub fn end(&mut self) -> Result<(), Error> {
        if let Some(e) = self.deferred.take() {
            return Err(e);
        }
        if self.pos < self.input.len() {
            return Err(Error::pson_at(ErrorKind::TrailingBytes, self.pos));
        }
        Ok(())
    }

    /// Read the next item (containers: the header only). On error the position stays at the
    /// item.
    #[inline(always)]
    fn item(&mut self) -> Result<Item<'de>, Error> {
        match fast_item(self.input, self.pos) {
            Some((item, next)) => {
                self.pos = next;
                Ok(item)
            }
            None => self.slow_item(false),
        }
    }

    /// Read a map key (must be a string).
    #[inline(always)]
    fn key(&mut self) -> Result<&'de str, Error> {
        if let Some((crate::wire_type::STR, v, at)) = header(self.input, self.pos) {
            if let Some(raw) = body(self.input, at, v) {
                if let Ok(s) = core::str::from_utf8(raw) {
                    self.pos = at + raw.len();
                    return Ok(s);
                }
            }
        }
        match self.slow_item(true)? {
            Item::Str(s) => Ok(s),
            // unreachable: Decoder::key returns strings only
            _ => Err(Error::pson_at(ErrorKind::NonStringKey, self.pos)),
        }
    }

    /// A map key, not yet checked for UTF-8 (the [`KeyDeserializer`] does that, with the
    /// same error and offset as `crate::Decoder`).
    #[inline(always)]
    fn key_raw(&mut self) -> Result<KeyDeserializer<'de>, Error> {
        if let Some((crate::wire_type::STR, v, at)) = header(self.input, self.pos) {
            if let Some(raw) = body(self.input, at, v) {
                self.pos = at + raw.len();
                let ascii = ascii_at(self.input, at, raw.len());
                return Ok(KeyDeserializer { raw, body: at, ascii });
            }
        }
        let at = self.pos;
        match self.slow_item(true)? {
            Item::Str(s) => Ok(KeyDeserializer { raw: s.as_bytes(), body: at, ascii: false }),
            // unreachable: Decoder::key returns strings only
            _ => Err(Error::pson_at(ErrorKind::NonStringKey, at)),
        }
    }

    /// Everything the fast path does not take, through `crate::Decoder` on the rest of the
    /// input (offsets shifted back to the whole input).
    #[cold]
    #[inline(never)]
    fn slow_item(&mut self, key: bool) -> Result<Item<'de>, Error> {
        let base = self.pos;
        let mut dec = Decoder::new(self.input.get(base..).unwrap_or(&[]));
        let r = if key { dec.key().map(Item::Str) } else { dec.next() };
        match r {
            Ok(item) => {
                self.pos = base + dec.position();
                Ok(item)
            }
            Err(e) => Err(Error::pson_at(e.kind, base.saturating_add(e.offset))),
        }
    }

    #[inline]
    fn enter(&mut self, at: usize) -> Result<(), Error> {
        if self.depth_left == 0 {
            return Err(Error::pson_at(ErrorKind::DepthLimit, at));
        }
        self.depth_left -= 1;
        Ok(())
    }

    #[inline]
    fn leave(&mut self) {
        self.depth_left += 1;
    }

    /// Hand an item (already read, its header at `at`) to `visitor`.
    #[inline]
    fn visit<V: Visitor<'de>>(&mut self, item: Item<'de>, at: usize, visitor: V) -> Result<V::Value, Error> {
        self.last = at;
        match item {
            Item::Uint(u) => visitor.visit_u64(u),
            Item::Int(i) => visitor.visit_i64(i),
            Item::F32(f) => visitor.visit_f32(f),
            Item::F64(f) => visitor.visit_f64(f),
            Item::Bool(b) => visitor.visit_bool(b),
            Item::Null => visitor.visit_unit(),
            Item::Str(s) => visitor.visit_borrowed_str(s),
            Item::Bytes(b) => visitor.visit_borrowed_bytes(b),
            Item::Map(n) => self.visit_map(n, at, visitor),
            Item::Array(n) => self.visit_array(n, at, visitor),
        }
    }

    #[inline]
    fn visit_map<V: Visitor<'de>>(&mut self, n: u64, at: usize, visitor: V) -> Result<V::Value, Error> {
        self.enter(at)?;
        let mut access = MapAcc { de: self, left: n, at };
        let r = visitor.visit_map(&mut access);
        let left = access.left;
        self.leave();
        if left != 0 && r.is_ok() {
            // The visitor stopped early (e.g. a tuple shorter than the array). Skip the rest
            // to stay in step; the error is reported at the end (the first one wins).
            self.unread(left, true, at);
        }
        r
    }

    #[inline(always)]
    fn visit_array<V: Visitor<'de>>(&mut self, n: u64, at: usize, visitor: V) -> Result<V::Value, Error> {
        self.enter(at)?;
        let mut access = SeqAcc { de: self, left: n, at };
        let r = visitor.visit_seq(&mut access);
        let left = access.left;
        self.leave();
        if left != 0 && r.is_ok() {
            // The visitor stopped early (e.g. a tuple shorter than the array). Skip the rest
            // to stay in step; the error is reported at the end (the first one wins).
            self.unread(left, false, at);
        }
        r
    }

    /// `deserialize_any` out of line: the fallback of the small typed fast paths below, which
    /// then inline into the callers (derived visitors) instead of a call per field.
    #[inline(never)]
    fn any_outlined<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_any(self, visitor)
    }

    /// Integers: wire 0 / 1 straight to the visitor (which checks the range).
    #[inline(always)]
    fn int<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        let at = self.pos;
        if let Some((wire, v, body_at)) = header(self.input, at) {
            if wire == crate::wire_type::UINT {
                self.last = at;
                self.pos = body_at;
                return visitor.visit_u64(v);
            }
            if wire == crate::wire_type::NEG_INT {
                self.last = at;
                self.pos = body_at;
                return visitor.visit_i64(-(v as i64));
            }
        }
        self.any_outlined(visitor)
    }

    /// Floats: f64 / f32 bodies, and integers (whole floats are written as integers).
    #[inline(always)]
    fn float<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        let at = self.pos;
        let input = self.input;
        if let Some((wire, v, body_at)) = header(input, at) {
            match (wire, v) {
                (crate::wire_type::FLOAT, 1) => {
                    if let Some(b) = input.get(body_at..body_at + 8) {
                        let mut a = [0u8; 8];
                        a.copy_from_slice(b);
                        self.last = at;
                        self.pos = body_at + 8;
                        return visitor.visit_f64(f64::from_le_bytes(a));
                    }
                }
                (crate::wire_type::FLOAT, 0) => {
                    if let Some(b) = input.get(body_at..body_at + 4) {
                        let mut a = [0u8; 4];
                        a.copy_from_slice(b);
                        self.last = at;
                        self.pos = body_at + 4;
                        return visitor.visit_f32(f32::from_le_bytes(a));
                    }
                }
                (crate::wire_type::UINT, _) => {
                    self.last = at;
                    self.pos = body_at;
                    return visitor.visit_u64(v);
                }
                (crate::wire_type::NEG_INT, _) => {
                    self.last = at;
                    self.pos = body_at;
                    return visitor.visit_i64(-(v as i64));
                }
                _ => {}
            }
        }
        self.any_outlined(visitor)
    }

    /// Strings: a fast-form string straight to the visitor, borrowed.
    #[inline(always)]
    fn string<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        let at = self.pos;
        if let Some((crate::wire_type::STR, v, body_at)) = header(self.input, at) {
            if let Some(raw) = body(self.input, body_at, v) {
                if let Ok(s) = core::str::from_utf8(raw) {
                    self.last = at;
                    self.pos = body_at + raw.len();
                    return visitor.visit_borrowed_str(s);
                }
            }
        }
        self.any_outlined(visitor)
    }

    /// `deserialize_any` for the forms the fast path leaves to `crate::Decoder`.
    #[inline(never)]
    fn deserialize_any_slow<V: Visitor<'de>>(&mut self, at: usize, visitor: V) -> Result<V::Value, Error> {
        let item = self.slow_item(false)?;
        self.visit(item, at, visitor)
    }

    /// Elements a visitor left unread: note the error and skip them.
    #[cold]
    #[inline(never)]
    fn unread(&mut self, left: u64, map: bool, at: usize) {
        let mut err = leftover(left, if map { "map" } else { "array" }, at);
        for _ in 0..left {
            let step = if map { self.key().and_then(|_| self.skip()) } else { self.skip() };
            if let Err(e) = step {
                err = e;
                break;
            }
        }
        if self.deferred.is_none() {
            self.deferred = Some(err);
        }
    }

    /// Read and drop one whole item (containers included), checking it as it goes.
    fn skip(&mut self) -> Result<(), Error> {
        let at = self.pos;
        match self.item()? {
            Item::Map(n) => {
                self.enter(at)?;
                for _ in 0..n {
                    self.key()?;
                    self.skip()?;
                }
                self.leave();
            }
            Item::Array(n) => {
                self.enter(at)?;
                for _ in 0..n {
                    self.skip()?;
                }
                self.leave();
            }
            _ => {}
        }
        Ok(())
    }
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    #[inline]
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // The fast forms are dispatched straight from the header, without building an Item
        // (same decisions as `fast_item`).
        let at = self.pos;
        let input = self.input;
        self.last = at;
        if let Some((wire, v, body_at)) = header(input, at) {
            let left = (input.len() - body_at) as u64;
            return match wire {
                crate::wire_type::UINT => {
                    self.pos = body_at;
                    visitor.visit_u64(v)
                }
                crate::wire_type::NEG_INT => {
                    self.pos = body_at;
                    visitor.visit_i64(-(v as i64))
                }
                crate::wire_type::FLOAT if v == 1 && left >= 8 => {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&input[body_at..body_at + 8]);
                    self.pos = body_at + 8;
                    visitor.visit_f64(f64::from_le_bytes(b))
                }
                crate::wire_type::FLOAT if v == 0 && left >= 4 => {
                    let mut b = [0u8; 4];
                    b.copy_from_slice(&input[body_at..body_at + 4]);
                    self.pos = body_at + 4;
                    visitor.visit_f32(f32::from_le_bytes(b))
                }
                crate::wire_type::DISCRETE if v < 2 => {
                    self.pos = body_at;
                    visitor.visit_bool(v == 1)
                }
                crate::wire_type::DISCRETE if v == 2 => {
                    self.pos = body_at;
                    visitor.visit_unit()
                }
                crate::wire_type::STR if v <= left => {
                    let raw = &input[body_at..body_at + v as usize];
                    match core::str::from_utf8(raw) {
                        Ok(s) => {
                            self.pos = body_at + raw.len();
                            visitor.visit_borrowed_str(s)
                        }
                        Err(_) => self.deserialize_any_slow(at, visitor),
                    }
                }
                crate::wire_type::BYTES if v <= left => {
                    let raw = &input[body_at..body_at + v as usize];
                    self.pos = body_at + raw.len();
                    visitor.visit_borrowed_bytes(raw)
                }
                crate::wire_type::MAP if v <= left / 2 => {
                    self.pos = body_at;
                    self.visit_map(v, at, visitor)
                }
                crate::wire_type::ARRAY if v <= left => {
                    self.pos = body_at;
                    self.visit_array(v, at, visitor)
                }
                _ => self.deserialize_any_slow(at, visitor),
            };
        }
        self.deserialize_any_slow(at, visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.input.get(self.pos) {
            Some(0x62) => {
                self.pos += 1;
                visitor.visit_none()
            }
            Some(0x7f) => {
                // An escaped discrete header (`7f 02` is also null): decode it to see.
                let at = self.pos;
                if let Ok(Item::Null) = self.item() {
                    return visitor.visit_none();
                }
                self.pos = at;
                visitor.visit_some(self)
            }
            _ => visitor.visit_some(self),
        }
    }

    #[inline]
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.pos;
        match self.item()? {
            Item::Null => {
                self.last = at;
                visitor.visit_unit()
            }
            other => Err(wrong_kind(&other, &visitor, at)),
        }
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    #[inline(always)]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.pos;
        if let Some((crate::wire_type::ARRAY, n, body_at)) = header(self.input, at) {
            if n <= (self.input.len() - body_at) as u64 {
                self.pos = body_at;
                return self.visit_array(n, at, visitor);
            }
        }
        match self.item()? {
            Item::Array(n) => self.visit_array(n, at, visitor),
            other => Err(wrong_kind(&other, &visitor, at)),
        }
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    #[inline]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.pos;
        if let Some((crate::wire_type::MAP, n, body_at)) = header(self.input, at) {
            if n <= (self.input.len() - body_at) as u64 / 2 {
                self.pos = body_at;
                return self.visit_map(n, at, visitor);
            }
        }
        match self.item()? {
            Item::Map(n) => self.visit_map(n, at, visitor),
            other => Err(wrong_kind(&other, &visitor, at)),
        }
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let at = self.pos;
        match self.item()? {
            // Unit variant: its name.
            Item::Str(s) => {
                self.last = at;
                visitor.visit_enum(BorrowedStrDeserializer::<Error>::new(s))
            }
            // Any other variant: {name: value}.
            Item::Map(1) => {
                self.enter(at)?;
                self.last = at;
                let r = visitor.visit_enum(EnumAcc { de: &mut *self });
                self.leave();
                r
            }
            other => Err(wrong_kind(&other, &"an enum: a variant name or a map with one entry", at)),
        }
    }

    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.skip()?;
        visitor.visit_unit()
    }

    #[inline(always)]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.pos;
        if let Some(&h) = self.input.get(at) {
            if h == 0x60 || h == 0x61 {
                self.last = at;
                self.pos = at + 1;
                return visitor.visit_bool(h == 0x61);
            }
        }
        self.any_outlined(visitor)
    }

    #[inline(always)]
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.int(visitor)
    }

    #[inline(always)]
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.int(visitor)
    }

    #[inline(always)]
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.int(visitor)
    }

    #[inline(always)]
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.int(visitor)
    }

    #[inline(always)]
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.int(visitor)
    }

    #[inline(always)]
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.int(visitor)
    }

    #[inline(always)]
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.int(visitor)
    }

    #[inline(always)]
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.int(visitor)
    }

    #[inline(always)]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.float(visitor)
    }

    #[inline(always)]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.float(visitor)
    }

    #[inline(always)]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.string(visitor)
    }

    #[inline(always)]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.string(visitor)
    }

    ::serde::forward_to_deserialize_any! {
        i128 u128 char bytes byte_buf identifier
    }
}

/// The pairs of a map: `left` still to read.
struct MapAcc<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    left: u64,
    /// The map's header offset.
    at: usize,
}

impl<'de> de::MapAccess<'de> for MapAcc<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        if self.left == 0 {
            // What the visitor says now (e.g. a missing field) is about the whole map.
            self.de.last = self.at;
            return Ok(None);
        }
        self.left -= 1;
        self.de.last = self.de.pos;
        let key = self.de.key_raw()?;
        seed.deserialize(key).map(Some)
    }

    #[inline]
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(&mut *self.de)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        usize::try_from(self.left).ok()
    }
}

/// The elements of an array: `left` still to read.
struct SeqAcc<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    left: u64,
    /// The array's header offset.
    at: usize,
}

impl<'de> de::SeqAccess<'de> for SeqAcc<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        if self.left == 0 {
            // What the visitor says now (e.g. too few elements) is about the whole array.
            self.de.last = self.at;
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        usize::try_from(self.left).ok()
    }
}

/// A non-unit enum variant: the single-pair map `{name: value}` whose header was read.
struct EnumAcc<'a, 'de> {
    de: &'a mut Deserializer<'de>,
}

impl<'de> de::EnumAccess<'de> for EnumAcc<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    #[inline]
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        self.de.last = self.de.pos;
        let name = self.de.key()?;
        let v = seed.deserialize(BorrowedStrDeserializer::<Error>::new(name))?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for EnumAcc<'_, 'de> {
    type Error = Error;

    #[inline]
    fn unit_variant(self) -> Result<(), Error> {
        // `{name: null}` is accepted for a unit variant too.
        <() as Deserialize>::deserialize(&mut *self.de)
    }

    #[inline]
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(&mut *self.de)
    }

    #[inline]
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_seq(&mut *self.de, visitor)
    }

    #[inline]
    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_map(&mut *self.de, visitor)
    }
}

/// A map key (always a PSON string), read but not yet checked for UTF-8. Integer and bool
/// targets parse the text, so maps with integer keys round-trip; identifiers (struct field
/// names) that are ASCII go to the visitor as bytes — derived field visitors match bytes
/// directly, which saves a UTF-8 validation per field; everything else sees the borrowed
/// string.
struct KeyDeserializer<'de> {
    raw: &'de [u8],
    /// Offset of `raw` in the input (for an invalid UTF-8 error).
    body: usize,
    /// `raw` is known to be ASCII (so valid UTF-8).
    ascii: bool,
}

impl<'de> KeyDeserializer<'de> {
    #[inline]
    fn str(&self) -> Result<&'de str, Error> {
        match core::str::from_utf8(self.raw) {
            Ok(s) => Ok(s),
            Err(e) => Err(Error::pson_at(ErrorKind::InvalidUtf8, self.body.saturating_add(e.valid_up_to()))),
        }
    }
}

macro_rules! parse_key {
    ($($method:ident $ty:ty => $visit:ident),* $(,)?) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            let key = self.str()?;
            match key.parse::<$ty>() {
                Ok(v) => visitor.$visit(v),
                Err(_) => visitor.visit_borrowed_str(key),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for KeyDeserializer<'de> {
    type Error = Error;

    #[inline]
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.str()?)
    }

    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.ascii {
            // ASCII is valid UTF-8: no validation call needed.
            visitor.visit_borrowed_bytes(self.raw)
        } else {
            visitor.visit_borrowed_str(self.str()?)
        }
    }

    parse_key! {
        deserialize_bool bool => visit_bool,
        deserialize_i8 i8 => visit_i8,
        deserialize_i16 i16 => visit_i16,
        deserialize_i32 i32 => visit_i32,
        deserialize_i64 i64 => visit_i64,
        deserialize_i128 i128 => visit_i128,
        deserialize_u8 u8 => visit_u8,
        deserialize_u16 u16 => visit_u16,
        deserialize_u32 u32 => visit_u32,
        deserialize_u64 u64 => visit_u64,
        deserialize_u128 u128 => visit_u128,
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(BorrowedStrDeserializer::new(self.str()?))
    }

    ::serde::forward_to_deserialize_any! {
        f32 f64 char str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct ignored_any
    }
}

const _: () = assert!(core::mem::size_of::<Result<(), Error>>() <= 16);
