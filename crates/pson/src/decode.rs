//! PSON v2 decoder (spec §1.1–§1.3, §1.7): a pull [`Decoder`] and the tree
//! builders [`decode`], [`decode_with`], [`decode_exact`].
//!
//! ```text
//! header byte h at offset o:  wire = h >> 5, p = h & 0x1f
//!   p == 31 → v = LEB128 varint at o+1 (applied for EVERY wire type, so
//!             `5f 00` is a valid f32 header and `7f 00` a valid `false`)
//!   else    → v = p
//!
//! wire 0  Uint(v)
//! wire 1  Int(-v)               v > 2^63 → IntegerOverflow @o; v == 0 → Int(0)
//! wire 2  v=0: F32 (4 B LE)     v=1: F64 (8 B LE); else InvalidFloatWidth @o
//! wire 3  v=0 false, 1 true, 2 null;            else InvalidDiscrete @o
//! wire 4  Str  (v bytes, UTF-8 checked → InvalidUtf8 @first bad byte)
//! wire 5  Bytes (v bytes)
//! wire 6  Map(v pairs)    2·v > remaining bytes → LengthLimit @o
//! wire 7  Array(v items)    v > remaining bytes → LengthLimit @o
//! ```
//!
//! Error offsets:
//! * `UnexpectedEnd` — where the missing data should start, which is always
//!   the input length (`84 61` → offset 2; empty input → offset 0).
//! * `VarintTooLong` — the position of the would-be 11th varint byte
//!   (`1f ff×10 01` → offset 11), whether or not that byte is present.
//! * all other decode errors — the offset of the offending item's header
//!   byte, except `InvalidUtf8` (first invalid byte) and `TrailingBytes`
//!   (first byte after the root item).
//!
//! Non-canonical forms accepted (§1.7): escape with a small value (`1f 05`),
//! over-long varints (`1f 80 00`), bits above 2^64 in a 10th varint byte are
//! dropped (`1f ff×9 7f` = 2^64−1, as the reference decoders do), signed zero
//! (`20` → `Int(0)`), escapes on float/discrete headers, duplicate map keys
//! (kept in order; the pair count includes both), trailing bytes after the
//! root ([`decode`] reports the bytes consumed; [`decode_exact`] rejects them).

use crate::encode::{wire, ESCAPE};
use crate::error::{Error, ErrorKind};
use crate::value::Value;
use alloc::vec::Vec;

/// Decoding limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum container nesting. A root container has depth 1; with the
    /// default of 128, 128 nested arrays decode and 129 fail with
    /// [`ErrorKind::DepthLimit`] (offset = header of the first container too
    /// deep). Scalars do not count. Decoding itself is iterative, but the
    /// returned tree's `Drop`, `encode` and `encoded_len` recurse, so very
    /// large limits allow trees deep enough to exhaust the stack later.
    pub max_depth: usize,
}

impl Limits {
    /// Default maximum depth.
    pub const DEFAULT_MAX_DEPTH: usize = 128;
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_depth: Self::DEFAULT_MAX_DEPTH }
    }
}

/// One item as read by the pull [`Decoder`]. Containers carry only their
/// count; the caller reads the elements that follow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Item<'b> {
    Uint(u64),
    /// From wire 1: `-magnitude` (magnitude 0 gives `Int(0)`).
    Int(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Null,
    Str(&'b str),
    Bytes(&'b [u8]),
    /// Number of key/value pairs that follow.
    Map(u64),
    /// Number of elements that follow.
    Array(u64),
}

/// Pull decoder over a byte slice. It never allocates and never panics.
///
/// On error the position is left at the start of the failing item, so
/// [`Decoder::position`] keeps pointing at valid data.
#[derive(Debug, Clone)]
pub struct Decoder<'b> {
    input: &'b [u8],
    pos: usize,
}

impl<'b> Decoder<'b> {
    /// Start at the beginning of `input`.
    #[inline]
    pub fn new(input: &'b [u8]) -> Self {
        Decoder { input, pos: 0 }
    }

    /// Bytes consumed so far.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet consumed.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }

    /// The not yet consumed bytes.
    #[inline]
    pub fn rest(&self) -> &'b [u8] {
        self.input.get(self.pos..).unwrap_or(&[])
    }

    /// Read the next item (for strings and bytes including the body; for
    /// containers only the header).
    #[allow(clippy::should_implement_trait)] // fallible; not an Iterator
    pub fn next(&mut self) -> Result<Item<'b>, Error> {
        let start = self.pos;
        let r = self.next_inner(None);
        if r.is_err() {
            self.pos = start;
        }
        r
    }

    /// Read an item that must be a string (a map key). Any other wire type
    /// gives [`ErrorKind::NonStringKey`] at the key's header byte.
    pub fn key(&mut self) -> Result<&'b str, Error> {
        let start = self.pos;
        let r = self.next_inner(Some(wire::STR));
        match r {
            Ok(Item::Str(s)) => Ok(s),
            Ok(_) => {
                // unreachable: next_inner checked the wire type
                self.pos = start;
                Err(Error::new(ErrorKind::NonStringKey, start))
            }
            Err(e) => {
                self.pos = start;
                Err(e)
            }
        }
    }

    #[inline]
    fn eof(&self) -> Error {
        Error::new(ErrorKind::UnexpectedEnd, self.input.len())
    }

    #[inline]
    fn byte(&mut self) -> Result<u8, Error> {
        let b = *self.input.get(self.pos).ok_or_else(|| self.eof())?;
        self.pos += 1;
        Ok(b)
    }

    #[inline]
    fn take(&mut self, n: u64) -> Result<&'b [u8], Error> {
        if n > self.remaining() as u64 {
            return Err(self.eof());
        }
        let end = self.pos + n as usize; // n <= remaining: no overflow
        let s = self.input.get(self.pos..end).ok_or_else(|| self.eof())?;
        self.pos = end;
        Ok(s)
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let s = self.take(N as u64)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    /// Unsigned LEB128 (§1.2): at most 10 bytes; bits beyond 64 in the
    /// 10th byte are dropped; an 11th byte → VarintTooLong at its offset.
    fn varint(&mut self) -> Result<u64, Error> {
        read_varint(self.input, &mut self.pos)
    }

    fn next_inner(&mut self, must_be: Option<u8>) -> Result<Item<'b>, Error> {
        let start = self.pos;
        let h = self.byte()?;
        let w = h >> 5;
        if let Some(expected) = must_be {
            if w != expected {
                return Err(Error::new(ErrorKind::NonStringKey, start));
            }
        }
        let p = h & ESCAPE;
        let v = if p == ESCAPE { self.varint()? } else { p as u64 };
        let item = match w {
            wire::UINT => Item::Uint(v),
            wire::NEG => Item::Int(neg_from_magnitude(v).ok_or(Error::new(ErrorKind::IntegerOverflow, start))?),
            wire::FLOAT => match v {
                0 => Item::F32(f32::from_le_bytes(self.array::<4>()?)),
                1 => Item::F64(f64::from_le_bytes(self.array::<8>()?)),
                _ => return Err(Error::new(ErrorKind::InvalidFloatWidth, start)),
            },
            wire::DISCRETE => match v {
                0 => Item::Bool(false),
                1 => Item::Bool(true),
                2 => Item::Null,
                _ => return Err(Error::new(ErrorKind::InvalidDiscrete, start)),
            },
            wire::STR => {
                let body = self.pos;
                let raw = self.take(v)?;
                Item::Str(utf8(raw, body)?)
            }
            wire::BYTES => Item::Bytes(self.take(v)?),
            wire::MAP => {
                // every pair needs at least 2 bytes (key header + value header)
                if v > (self.remaining() / 2) as u64 {
                    return Err(Error::new(ErrorKind::LengthLimit, start));
                }
                Item::Map(v)
            }
            _ => {
                // wire::ARRAY: every element needs at least 1 byte
                if v > self.remaining() as u64 {
                    return Err(Error::new(ErrorKind::LengthLimit, start));
                }
                Item::Array(v)
            }
        };
        Ok(item)
    }
}

/// `-(magnitude)` as i64; `None` if the magnitude exceeds 2^63.
#[inline]
pub(crate) fn neg_from_magnitude(m: u64) -> Option<i64> {
    if m <= i64::MAX as u64 {
        Some(-(m as i64))
    } else if m == 1u64 << 63 {
        Some(i64::MIN)
    } else {
        None
    }
}

/// Validate UTF-8; error offset = `body_offset` + index of the first bad byte.
#[inline]
pub(crate) fn utf8(raw: &[u8], body_offset: usize) -> Result<&str, Error> {
    core::str::from_utf8(raw)
        .map_err(|e| Error::new(ErrorKind::InvalidUtf8, body_offset.saturating_add(e.valid_up_to())))
}

/// Shared LEB128 reader (PSON v2 and Protoson v1).
pub(crate) fn read_varint(input: &[u8], pos: &mut usize) -> Result<u64, Error> {
    let mut result: u64 = 0;
    let mut shift: u32 = 0;
    loop {
        if shift >= 64 {
            return Err(Error::new(ErrorKind::VarintTooLong, *pos));
        }
        let b = *input.get(*pos).ok_or(Error::new(ErrorKind::UnexpectedEnd, input.len()))?;
        *pos += 1;
        // shift <= 63: bits shifted out of the 10th byte are dropped (§1.2).
        result |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(result);
        }
        shift += 7;
    }
}

/// Upper bound on speculative pre-allocation per container: the count has
/// already been checked against the remaining input, but a cap keeps nested
/// containers from reserving `depth × input` slots.
const PREALLOC_CAP: u64 = 256;

enum Frame<'b> {
    Array { left: u64, items: Vec<Value<'b>> },
    Map { left: u64, key: Option<&'b str>, items: Vec<(&'b str, Value<'b>)> },
}

impl<'b> Frame<'b> {
    fn left(&self) -> u64 {
        match self {
            Frame::Array { left, .. } | Frame::Map { left, .. } => *left,
        }
    }

    fn finish(self) -> Value<'b> {
        match self {
            Frame::Array { items, .. } => Value::Array(items),
            Frame::Map { items, .. } => Value::Map(items),
        }
    }

    fn push(&mut self, v: Value<'b>) {
        match self {
            Frame::Array { left, items } => {
                items.push(v);
                *left = left.saturating_sub(1);
            }
            Frame::Map { left, key, items } => {
                items.push((key.take().unwrap_or(""), v));
                *left = left.saturating_sub(1);
            }
        }
    }
}

#[inline]
fn cap(n: u64) -> usize {
    n.min(PREALLOC_CAP) as usize
}

/// Decode one root item with the default [`Limits`]; returns the value and
/// the number of bytes consumed (trailing bytes are allowed and ignored).
pub fn decode(input: &[u8]) -> Result<(Value<'_>, usize), Error> {
    decode_with(input, &Limits::default())
}

/// Like [`decode`] but fails with [`ErrorKind::TrailingBytes`] (offset = the
/// first unconsumed byte) unless the root item spans the whole input.
pub fn decode_exact(input: &[u8]) -> Result<Value<'_>, Error> {
    let (v, used) = decode(input)?;
    if used != input.len() {
        return Err(Error::new(ErrorKind::TrailingBytes, used));
    }
    Ok(v)
}

/// Decode one root item with explicit limits. Iterative (no recursion), so
/// any `max_depth` is safe for the stack.
pub fn decode_with<'b>(input: &'b [u8], limits: &Limits) -> Result<(Value<'b>, usize), Error> {
    let mut dec = Decoder::new(input);
    let mut stack: Vec<Frame<'b>> = Vec::new();
    loop {
        let value = match stack.last_mut() {
            Some(top) if top.left() == 0 => match stack.pop() {
                Some(f) => f.finish(),
                None => continue, // unreachable
            },
            Some(Frame::Map { key: key @ None, .. }) => {
                *key = Some(dec.key()?);
                continue;
            }
            _ => {
                let start = dec.position();
                match dec.next()? {
                    Item::Uint(u) => Value::Uint(u),
                    Item::Int(i) => Value::Int(i),
                    Item::F32(f) => Value::F32(f),
                    Item::F64(f) => Value::F64(f),
                    Item::Bool(b) => Value::Bool(b),
                    Item::Null => Value::Null,
                    Item::Str(s) => Value::Str(s),
                    Item::Bytes(b) => Value::Bytes(b),
                    Item::Map(n) => {
                        if stack.len() >= limits.max_depth {
                            return Err(Error::new(ErrorKind::DepthLimit, start));
                        }
                        if n == 0 {
                            Value::Map(Vec::new())
                        } else {
                            stack.push(Frame::Map { left: n, key: None, items: Vec::with_capacity(cap(n)) });
                            continue;
                        }
                    }
                    Item::Array(n) => {
                        if stack.len() >= limits.max_depth {
                            return Err(Error::new(ErrorKind::DepthLimit, start));
                        }
                        if n == 0 {
                            Value::Array(Vec::new())
                        } else {
                            stack.push(Frame::Array { left: n, items: Vec::with_capacity(cap(n)) });
                            continue;
                        }
                    }
                }
            }
        };
        match stack.last_mut() {
            None => return Ok((value, dec.position())),
            Some(parent) => parent.push(value),
        }
    }
}
