//! Protoson v1 — the legacy Thinger.io encoding (spec §2). Same [`Value`]
//! type as PSON v2, different wire format.
//!
//! ```text
//! Item = tag [body]; tag = varint (field_type << 3 | protobuf_wire_type),
//! always one byte when encoding (field_type <= 15).
//!
//!  f | meaning              | tag | body
//! ---+----------------------+-----+-------------------------------------------
//!  0 | null                 | 00  | -
//!  1 | positive int (>= 2)  | 08  | varint
//!  2 | negative int (<= -1) | 10  | varint of the magnitude
//!  3 | float                | 1d  | 4 bytes LE (binary32)
//!  4 | double               | 21  | 8 bytes LE (binary64)
//!  5 | true                 | 28  | -
//!  6 | false                | 30  | -
//!  7 | integer 0            | 38  | -
//!  8 | integer 1            | 40  | -
//!  9 | string               | 4a  | varint byte length + bytes
//! 10 | empty string         | 50  | -
//! 11 | bytes                | 5a  | varint length + bytes
//! 12 | empty bytes          | 60  | -
//! 13 | object               | 6a  | varint BYTE length of the body, then pairs:
//!    |                      |     |   varint key length + key bytes (no tag) + item
//! 14 | array                | 72  | varint BYTE length of the body, then items
//! 15 | "empty"              | 78  | - (never written; decoded as Null)
//! ```
//!
//! Examples: `{"neg":-2}` → `6a 06 03 6e6567 10 02`; `[]` → `72 00`;
//! `{}` → `6a 00`; `""` → `50`; `31` → `08 1f`.
//!
//! **Floats** (lossy, §2): integral and in [-2^63, 2^63) → integer tags;
//! else if `|d − f32(d)| <= 1e-5` → `1d` + f32 (so 2.3 → 2.2999999523,
//! 1e-300 → 0.0); else `21` + f64 (±inf and NaN always take this path; NaN
//! is written as the canonical quiet NaN `000000000000f87f`).
//!
//! **Strings — deliberate difference from the reference:** the reference
//! stores strings and keys as C strings, so it truncates them at the first
//! NUL (and a string starting with NUL becomes the empty-string tag `50`).
//! [`encode`] keeps the whole string (the length prefix makes that
//! unambiguous). Pass [`EncodeOptions`]`{ c_strings: true }` to
//! [`encode_with`] to reproduce the reference's truncation byte for byte.
//!
//! **Decoder** ([`decode`]): dispatches on the field type. The protobuf wire
//! type only matters for 2 (length-delimited): it is required for fields
//! 9, 11, 13, 14 and rejected for every other field (the reference would
//! skip such a payload); other wire types are not checked (as in the
//! reference). Unlike the reference it bounds depth, checks every length
//! against the input (`UnexpectedEnd` at the input length), rejects field
//! types > 15 and the combinations above (`UnknownFieldType` at the tag),
//! checks UTF-8 of strings and keys, rejects negative magnitudes > 2^63
//! (`IntegerOverflow` at the tag), and fails with `LengthMismatch` (at the
//! start of the offending child: its tag, or its key's length byte) when a
//! child would run past its container's declared byte length, instead of
//! underflowing and reading on.

use crate::decode::{neg_from_magnitude, read_varint, utf8, Limits};
use crate::encode::{put_varint, trunc, varint_len, CANONICAL_NAN_BITS};
use crate::error::{Error, ErrorKind};
use crate::value::Value;
use crate::write::Write;
use alloc::vec::Vec;

/// Field types (§2).
mod field {
    pub const NULL: u64 = 0;
    pub const VARINT: u64 = 1;
    pub const SVARINT: u64 = 2;
    pub const FLOAT: u64 = 3;
    pub const DOUBLE: u64 = 4;
    pub const TRUE: u64 = 5;
    pub const FALSE: u64 = 6;
    pub const ZERO: u64 = 7;
    pub const ONE: u64 = 8;
    pub const STRING: u64 = 9;
    pub const EMPTY_STRING: u64 = 10;
    pub const BYTES: u64 = 11;
    pub const EMPTY_BYTES: u64 = 12;
    pub const OBJECT: u64 = 13;
    pub const ARRAY: u64 = 14;
    pub const EMPTY: u64 = 15;
}

/// Protobuf wire types used in tags.
mod pbw {
    pub const VARINT: u8 = 0;
    pub const FIXED64: u8 = 1;
    pub const LEN: u8 = 2;
    pub const FIXED32: u8 = 5;
}

#[inline]
const fn tag(field: u64, wire: u8) -> u8 {
    ((field as u8) << 3) | wire
}

/// Encoder options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EncodeOptions {
    /// Truncate strings and keys at the first NUL byte, as the C++
    /// reference does (off by default: whole strings are kept).
    pub c_strings: bool,
}

/// How a float is written by Protoson (lossy 1e-5 rule).
#[derive(Debug, Clone, Copy, PartialEq)]
enum PFloat {
    Uint(u64),
    Neg(u64),
    F32(f32),
    F64(f64),
}

const TWO_63: f64 = 9_223_372_036_854_775_808.0;

fn classify(d: f64) -> PFloat {
    if d.is_finite() && (-TWO_63..TWO_63).contains(&d) && trunc(d) == d {
        if d >= 0.0 {
            PFloat::Uint(d as u64)
        } else {
            PFloat::Neg((-d) as u64)
        }
    } else {
        let f = d as f32;
        let diff = d - f as f64; // NaN for ±inf and NaN → not <= 1e-5
        if (-0.00001..=0.00001).contains(&diff) {
            PFloat::F32(f)
        } else if d.is_nan() {
            PFloat::F64(f64::from_bits(CANONICAL_NAN_BITS))
        } else {
            PFloat::F64(d)
        }
    }
}

#[inline]
fn text<'a>(s: &'a str, opts: &EncodeOptions) -> &'a [u8] {
    let b = s.as_bytes();
    if opts.c_strings {
        match b.iter().position(|&c| c == 0) {
            Some(n) => b.get(..n).unwrap_or(b),
            None => b,
        }
    } else {
        b
    }
}

#[inline]
fn uint_len(u: u64) -> usize {
    if u <= 1 {
        1
    } else {
        1 + varint_len(u)
    }
}

#[inline]
fn lenpfx_len(n: usize) -> usize {
    varint_len(n as u64).saturating_add(n)
}

/// Item length; when `sizes` is given, container body lengths are recorded
/// in pre-order for [`put`].
fn item_len(v: &Value<'_>, opts: &EncodeOptions, mut sizes: Option<&mut Vec<usize>>) -> usize {
    match v {
        Value::Null | Value::Bool(_) => 1,
        Value::Uint(u) => uint_len(*u),
        Value::Int(i) => {
            if *i >= 0 {
                uint_len(*i as u64)
            } else {
                1 + varint_len(i.unsigned_abs())
            }
        }
        Value::F32(f) => float_len(*f as f64),
        Value::F64(f) => float_len(*f),
        Value::Str(s) => {
            let b = text(s, opts);
            if b.is_empty() {
                1
            } else {
                lenpfx_len(b.len()).saturating_add(1)
            }
        }
        Value::Bytes(b) => {
            if b.is_empty() {
                1
            } else {
                lenpfx_len(b.len()).saturating_add(1)
            }
        }
        Value::Map(pairs) => {
            let slot = sizes.as_mut().map(|s| {
                s.push(0);
                s.len().saturating_sub(1)
            });
            let mut body = 0usize;
            for (k, child) in pairs {
                body = body.saturating_add(lenpfx_len(text(k, opts).len())).saturating_add(item_len(
                    child,
                    opts,
                    sizes.as_deref_mut(),
                ));
            }
            record(sizes, slot, body);
            lenpfx_len(body).saturating_add(1)
        }
        Value::Array(items) => {
            let slot = sizes.as_mut().map(|s| {
                s.push(0);
                s.len().saturating_sub(1)
            });
            let mut body = 0usize;
            for child in items {
                body = body.saturating_add(item_len(child, opts, sizes.as_deref_mut()));
            }
            record(sizes, slot, body);
            lenpfx_len(body).saturating_add(1)
        }
    }
}

#[inline]
fn record(sizes: Option<&mut Vec<usize>>, slot: Option<usize>, body: usize) {
    if let (Some(s), Some(i)) = (sizes, slot) {
        if let Some(x) = s.get_mut(i) {
            *x = body;
        }
    }
}

#[inline]
fn float_len(d: f64) -> usize {
    match classify(d) {
        PFloat::Uint(u) => uint_len(u),
        PFloat::Neg(m) => 1 + varint_len(m),
        PFloat::F32(_) => 5,
        PFloat::F64(_) => 9,
    }
}

/// Exact Protoson v1 size of `value` (default options).
pub fn encoded_len(value: &Value<'_>) -> usize {
    item_len(value, &EncodeOptions::default(), None)
}

/// Exact Protoson v1 size of `value` with `opts`.
pub fn encoded_len_with(value: &Value<'_>, opts: &EncodeOptions) -> usize {
    item_len(value, opts, None)
}

/// Encode `value` as Protoson v1, appending to `out` (default options:
/// whole strings kept, see the module docs).
pub fn encode(value: &Value<'_>, out: &mut Vec<u8>) -> Result<(), Error> {
    encode_with(value, out, &EncodeOptions::default())
}

/// Encode with explicit options into any [`Write`].
pub fn encode_with<W: Write + ?Sized>(value: &Value<'_>, out: &mut W, opts: &EncodeOptions) -> Result<(), Error> {
    // Pre-pass: body byte length of every container, in pre-order.
    let mut sizes = Vec::new();
    item_len(value, opts, Some(&mut sizes));
    let mut cursor = 0usize;
    put(value, opts, &sizes, &mut cursor, out)
}

/// Protoson v1 written into a `Vec<u8>` as the items come: no value tree and no size pass.
/// A container's length prefix is reserved as one byte; when its body turns out 128 bytes or
/// longer, the body moves up to make room for the longer prefix. Nothing is allocated beyond
/// the vector's own growth, so encoding into a reused buffer allocates nothing. The bytes are
/// those of [`encode`] with the default options (whole strings kept).
///
/// ```
/// let mut out = Vec::new();
/// let mut enc = pson::protoson::StreamEncoder::new(&mut out);
/// let map = enc.begin_map();
/// enc.key("neg");
/// enc.int(-2);
/// enc.end(map);
/// let tree = pson::Value::Map(vec![("neg", pson::Value::Int(-2))]);
/// let mut want = Vec::new();
/// pson::protoson::encode(&tree, &mut want)?;
/// assert_eq!(out, want);
/// # Ok::<(), pson::Error>(())
/// ```
#[derive(Debug)]
pub struct StreamEncoder<'a> {
    out: &'a mut Vec<u8>,
}

/// An open container of a [`StreamEncoder`]: where its one-byte length prefix sits.
#[derive(Debug)]
#[must_use = "close the container with StreamEncoder::end"]
pub struct Open(usize);

impl<'a> StreamEncoder<'a> {
    /// Append to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        StreamEncoder { out }
    }

    pub fn null(&mut self) {
        self.out.push(tag(field::NULL, pbw::VARINT));
    }

    pub fn bool(&mut self, b: bool) {
        self.out.push(if b { tag(field::TRUE, pbw::VARINT) } else { tag(field::FALSE, pbw::VARINT) });
    }

    pub fn uint(&mut self, u: u64) {
        let _ = put_uint(self.out, u);
    }

    pub fn int(&mut self, i: i64) {
        let _ = if i >= 0 { put_uint(self.out, i as u64) } else { put_neg(self.out, i.unsigned_abs()) };
    }

    /// A float after Protoson's lossy rule (a float64 within 1e-5 of a float32 is sent as one).
    pub fn f64(&mut self, d: f64) {
        let _ = put_float(self.out, d);
    }

    pub fn f32(&mut self, f: f32) {
        self.f64(f as f64);
    }

    pub fn str(&mut self, s: &str) {
        if s.is_empty() {
            self.out.push(tag(field::EMPTY_STRING, pbw::VARINT));
        } else {
            self.out.push(tag(field::STRING, pbw::LEN));
            let _ = put_lenpfx(self.out, s.as_bytes());
        }
    }

    pub fn bytes(&mut self, b: &[u8]) {
        if b.is_empty() {
            self.out.push(tag(field::EMPTY_BYTES, pbw::VARINT));
        } else {
            self.out.push(tag(field::BYTES, pbw::LEN));
            let _ = put_lenpfx(self.out, b);
        }
    }

    /// Open a map: then `key` and a value item per pair, and [`StreamEncoder::end`].
    pub fn begin_map(&mut self) -> Open {
        self.open(tag(field::OBJECT, pbw::LEN))
    }

    /// A map key (a length-prefixed string without a tag).
    pub fn key(&mut self, k: &str) {
        let _ = put_lenpfx(self.out, k.as_bytes());
    }

    /// Open an array: then its items, and [`StreamEncoder::end`].
    pub fn begin_array(&mut self) -> Open {
        self.open(tag(field::ARRAY, pbw::LEN))
    }

    fn open(&mut self, t: u8) -> Open {
        self.out.push(t);
        self.out.push(0);
        Open(self.out.len() - 1)
    }

    /// Close a container: its length prefix gets the body's length.
    pub fn end(&mut self, open: Open) {
        let at = open.0;
        let len = self.out.len();
        let body = len - at - 1;
        if body < 0x80 {
            self.out[at] = body as u8;
            return;
        }
        let mut buf = [0u8; 10];
        let k = put_varint(body as u64, &mut buf);
        self.out.resize(len + k - 1, 0);
        self.out.copy_within(at + 1..len, at + k);
        self.out[at..at + k].copy_from_slice(&buf[..k]);
    }
}

fn put_tag_varint<W: Write + ?Sized>(out: &mut W, t: u8, v: u64) -> Result<(), Error> {
    let mut buf = [0u8; 10];
    let n = put_varint(v, &mut buf);
    out.write_all(&[t])?;
    out.write_all(buf.get(..n).unwrap_or(&buf))
}

fn put_uint<W: Write + ?Sized>(out: &mut W, u: u64) -> Result<(), Error> {
    match u {
        0 => out.write_all(&[tag(field::ZERO, pbw::VARINT)]),
        1 => out.write_all(&[tag(field::ONE, pbw::VARINT)]),
        _ => put_tag_varint(out, tag(field::VARINT, pbw::VARINT), u),
    }
}

fn put_neg<W: Write + ?Sized>(out: &mut W, magnitude: u64) -> Result<(), Error> {
    put_tag_varint(out, tag(field::SVARINT, pbw::VARINT), magnitude)
}

fn put_float<W: Write + ?Sized>(out: &mut W, d: f64) -> Result<(), Error> {
    match classify(d) {
        PFloat::Uint(u) => put_uint(out, u),
        PFloat::Neg(m) => put_neg(out, m),
        PFloat::F32(f) => {
            let b = f.to_le_bytes();
            out.write_all(&[tag(field::FLOAT, pbw::FIXED32), b[0], b[1], b[2], b[3]])
        }
        PFloat::F64(f) => {
            let b = f.to_le_bytes();
            out.write_all(&[tag(field::DOUBLE, pbw::FIXED64)])?;
            out.write_all(&b)
        }
    }
}

fn put_lenpfx<W: Write + ?Sized>(out: &mut W, b: &[u8]) -> Result<(), Error> {
    let mut buf = [0u8; 10];
    let n = put_varint(b.len() as u64, &mut buf);
    out.write_all(buf.get(..n).unwrap_or(&buf))?;
    out.write_all(b)
}

fn put<W: Write + ?Sized>(
    v: &Value<'_>,
    opts: &EncodeOptions,
    sizes: &[usize],
    cursor: &mut usize,
    out: &mut W,
) -> Result<(), Error> {
    match v {
        Value::Null => out.write_all(&[tag(field::NULL, pbw::VARINT)]),
        Value::Bool(true) => out.write_all(&[tag(field::TRUE, pbw::VARINT)]),
        Value::Bool(false) => out.write_all(&[tag(field::FALSE, pbw::VARINT)]),
        Value::Uint(u) => put_uint(out, *u),
        Value::Int(i) => {
            if *i >= 0 {
                put_uint(out, *i as u64)
            } else {
                put_neg(out, i.unsigned_abs())
            }
        }
        Value::F32(f) => put_float(out, *f as f64),
        Value::F64(f) => put_float(out, *f),
        Value::Str(s) => {
            let b = text(s, opts);
            if b.is_empty() {
                out.write_all(&[tag(field::EMPTY_STRING, pbw::VARINT)])
            } else {
                out.write_all(&[tag(field::STRING, pbw::LEN)])?;
                put_lenpfx(out, b)
            }
        }
        Value::Bytes(b) => {
            if b.is_empty() {
                out.write_all(&[tag(field::EMPTY_BYTES, pbw::VARINT)])
            } else {
                out.write_all(&[tag(field::BYTES, pbw::LEN)])?;
                put_lenpfx(out, b)
            }
        }
        Value::Map(pairs) => {
            let body = sizes.get(*cursor).copied().unwrap_or(0);
            *cursor += 1;
            put_tag_varint(out, tag(field::OBJECT, pbw::LEN), body as u64)?;
            for (k, child) in pairs {
                put_lenpfx(out, text(k, opts))?;
                put(child, opts, sizes, cursor, out)?;
            }
            Ok(())
        }
        Value::Array(items) => {
            let body = sizes.get(*cursor).copied().unwrap_or(0);
            *cursor += 1;
            put_tag_varint(out, tag(field::ARRAY, pbw::LEN), body as u64)?;
            for child in items {
                put(child, opts, sizes, cursor, out)?;
            }
            Ok(())
        }
    }
}

enum Frame<'b> {
    Array { end: usize, items: Vec<Value<'b>> },
    Object { end: usize, key: Option<&'b str>, items: Vec<(&'b str, Value<'b>)> },
}

impl<'b> Frame<'b> {
    fn end(&self) -> usize {
        match self {
            Frame::Array { end, .. } | Frame::Object { end, .. } => *end,
        }
    }

    fn finish(self) -> Value<'b> {
        match self {
            Frame::Array { items, .. } => Value::Array(items),
            Frame::Object { items, .. } => Value::Map(items),
        }
    }

    fn push(&mut self, v: Value<'b>) {
        match self {
            Frame::Array { items, .. } => items.push(v),
            Frame::Object { key, items, .. } => items.push((key.take().unwrap_or(""), v)),
        }
    }
}

/// Decode one Protoson v1 root item (default [`Limits`]); returns the value
/// and the bytes consumed (trailing bytes are allowed).
pub fn decode(input: &[u8]) -> Result<(Value<'_>, usize), Error> {
    decode_with(input, &Limits::default())
}

/// Decode with explicit limits. Iterative; never panics; every loop
/// iteration consumes input, so it always terminates.
pub fn decode_with<'b>(input: &'b [u8], limits: &Limits) -> Result<(Value<'b>, usize), Error> {
    let eof = Error::new(ErrorKind::UnexpectedEnd, input.len());
    let mut pos = 0usize;
    let mut stack: Vec<Frame<'b>> = Vec::new();

    // Read `n` bytes at `pos`.
    let take = |pos: &mut usize, n: u64| -> Result<&'b [u8], Error> {
        let rem = input.len().saturating_sub(*pos);
        if n > rem as u64 {
            return Err(eof);
        }
        let end = *pos + n as usize;
        let s = input.get(*pos..end).ok_or(eof)?;
        *pos = end;
        Ok(s)
    };

    loop {
        let value = match stack.last_mut() {
            Some(top) if pos >= top.end() => match stack.pop() {
                Some(f) => f.finish(),
                None => continue, // unreachable
            },
            Some(Frame::Object { end, key: key @ None, .. }) => {
                let start = pos;
                let n = read_varint(input, &mut pos)?;
                let body = pos;
                let raw = take(&mut pos, n)?;
                // the pair's value needs at least one more byte inside `end`
                if pos >= *end {
                    return Err(Error::new(ErrorKind::LengthMismatch, start));
                }
                *key = Some(utf8(raw, body)?);
                continue;
            }
            _ => {
                let start = pos;
                let parent_end = stack.last().map_or(input.len(), Frame::end);
                let t = read_varint(input, &mut pos)?;
                let f = t >> 3;
                let w = (t & 7) as u8;
                let unknown = Error::new(ErrorKind::UnknownFieldType, start);
                if w == pbw::LEN {
                    if !matches!(f, field::STRING | field::BYTES | field::OBJECT | field::ARRAY) {
                        return Err(unknown);
                    }
                    let n = read_varint(input, &mut pos)?;
                    let body = pos;
                    let raw = take(&mut pos, n)?;
                    if pos > parent_end {
                        return Err(Error::new(ErrorKind::LengthMismatch, start));
                    }
                    match f {
                        field::STRING => Value::Str(utf8(raw, body)?),
                        field::BYTES => Value::Bytes(raw),
                        field::OBJECT | field::ARRAY => {
                            if stack.len() >= limits.max_depth {
                                return Err(Error::new(ErrorKind::DepthLimit, start));
                            }
                            // Children are parsed from the body, so rewind.
                            let end = pos;
                            pos = body;
                            let is_obj = f == field::OBJECT;
                            if body == end {
                                if is_obj {
                                    Value::Map(Vec::new())
                                } else {
                                    Value::Array(Vec::new())
                                }
                            } else {
                                // Each child needs >= 1 byte (a pair >= 2).
                                let cap = (end - body).min(256);
                                stack.push(if is_obj {
                                    Frame::Object { end, key: None, items: Vec::with_capacity(cap / 2) }
                                } else {
                                    Frame::Array { end, items: Vec::with_capacity(cap) }
                                });
                                continue;
                            }
                        }
                        _ => return Err(unknown),
                    }
                } else {
                    let v = match f {
                        field::NULL | field::EMPTY => Value::Null,
                        field::VARINT => Value::Uint(read_varint(input, &mut pos)?),
                        field::SVARINT => {
                            let m = read_varint(input, &mut pos)?;
                            Value::Int(neg_from_magnitude(m).ok_or(Error::new(ErrorKind::IntegerOverflow, start))?)
                        }
                        field::FLOAT => {
                            let mut b = [0u8; 4];
                            b.copy_from_slice(take(&mut pos, 4)?);
                            Value::F32(f32::from_le_bytes(b))
                        }
                        field::DOUBLE => {
                            let mut b = [0u8; 8];
                            b.copy_from_slice(take(&mut pos, 8)?);
                            Value::F64(f64::from_le_bytes(b))
                        }
                        field::TRUE => Value::Bool(true),
                        field::FALSE => Value::Bool(false),
                        field::ZERO => Value::Uint(0),
                        field::ONE => Value::Uint(1),
                        field::EMPTY_STRING => Value::Str(""),
                        field::EMPTY_BYTES => Value::Bytes(&[]),
                        // string/bytes/object/array need wire type 2; f > 15
                        _ => return Err(unknown),
                    };
                    if pos > parent_end {
                        return Err(Error::new(ErrorKind::LengthMismatch, start));
                    }
                    v
                }
            }
        };
        match stack.last_mut() {
            None => return Ok((value, pos)),
            Some(parent) => parent.push(value),
        }
    }
}
