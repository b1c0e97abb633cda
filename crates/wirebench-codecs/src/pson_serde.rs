//! serde support for PSON v2 — the "typed path": `#[derive(Serialize, Deserialize)]` types go
//! straight to and from PSON bytes, with no intermediate tree.
//!
//! The serializer writes straight into a [`pson::Write`] (no allocation per item); it writes
//! headers and floats itself with fixed-size writes, byte-for-byte what [`pson::Encoder`]
//! writes (the tests check this over integer, length and float edge cases and random floats),
//! and uses the encoder for the rare long varints. The deserializer reads the common item
//! forms with an inline fast path and hands everything else (escaped discrete/float headers,
//! 10-byte varints, anything malformed) to [`pson::Decoder`], so what it accepts and where it
//! reports errors are the `pson` crate's (also checked by the tests, against the dynamic
//! codec, on hostile input).
//!
//! ```text
//! serde data model            PSON v2 item
//! ------------------------    ------------------------------------------------------------
//! bool                        discrete 60 / 61
//! i8..i64, i128 (if fits)     wire 0 (>= 0) or wire 1 (magnitude)
//! u8..u64, u128 (if fits)     wire 0
//! f32 / f64                   §1.5 float rule: whole → integer, f32-exact → 40, else 41
//! char, str                   string (wire 4)
//! bytes (serialize_bytes)     bytes (wire 5)
//! unit, None, unit struct     null 62
//! Some(x), newtype struct     x
//! unit variant                "Name"
//! newtype variant             {"Name": x}
//! tuple variant               {"Name": [..]}
//! struct variant              {"Name": {..}}
//! seq, tuple, tuple struct    array (count first: a seq without a length → UnknownLength)
//! map, struct                 map (pair count first; map keys must serialize as strings,
//!                             integer and bool keys are written as their decimal text)
//! ```
//!
//! Reading: floats accept integer items (PSON writes whole floats as integers), strings and
//! byte strings are borrowed from the input, containers are checked for their kind, nesting is
//! limited to [`MAX_DEPTH`], no input makes it panic, and every decode error carries the byte
//! offset of the item at fault. [`from_slice`] wants exactly one item: trailing bytes are an
//! error.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Reading { neg: i32 }
//! let bytes = wirebench_codecs::pson_serde::to_vec(&Reading { neg: -2 }).unwrap();
//! assert_eq!(bytes, [0xc1, 0x83, b'n', b'e', b'g', 0x22]);
//! let back: Reading = wirebench_codecs::pson_serde::from_slice(&bytes).unwrap();
//! assert_eq!(back, Reading { neg: -2 });
//! ```

use std::fmt;

use pson::{Decoder, Encoder, ErrorKind, Item};
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Expected, Unexpected, Visitor};
use serde::ser::{self, Impossible};
use serde::{Deserialize, Serialize};

/// Maximum container nesting accepted by the [`Deserializer`] (a root container has depth 1;
/// 128 nested arrays decode, 129 fail). The same default as the `pson` crate.
pub const MAX_DEPTH: usize = 128;

// =============================================================================================
// Error

/// Why a value could not be serialized or deserialized: one pointer, so `Result<(), Error>`
/// is returned in a register and the hot encode and decode paths test it with one
/// instruction (an inline 16-byte enum was returned through memory). Errors are rare; the
/// allocation happens only on the error path.
#[derive(Clone, PartialEq)]
pub struct Error(Box<ErrorCode>);

/// What went wrong (see [`Error::code`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ErrorCode {
    /// The PSON layer failed: malformed input when decoding (with the byte offset), or the
    /// writer failed when encoding (e.g. a full [`pson::SliceWriter`]).
    Pson(pson::Error),
    /// A serde-level problem (a type mismatch, a missing field, a value out of range, ...).
    Message(Message),
    /// A sequence or map was serialized without a known length; PSON writes the element
    /// count before the elements (e.g. `#[serde(flatten)]` or a `serialize_seq(None)`).
    UnknownLength,
}

/// A serde-level problem and, when decoding, the byte offset of the item at fault.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub msg: String,
    pub offset: Option<usize>,
}

impl Error {
    /// What went wrong.
    pub fn code(&self) -> &ErrorCode {
        &self.0
    }

    /// The PSON-layer error, if that is what this is.
    pub fn pson(&self) -> Option<pson::Error> {
        match *self.0 {
            ErrorCode::Pson(e) => Some(e),
            _ => None,
        }
    }

    /// Whether a sequence or map was serialized without a length.
    pub fn is_unknown_length(&self) -> bool {
        *self.0 == ErrorCode::UnknownLength
    }

    /// The byte offset of the problem, when known (always known for decode errors).
    pub fn offset(&self) -> Option<usize> {
        match &*self.0 {
            ErrorCode::Pson(e) => Some(e.offset),
            ErrorCode::Message(m) => m.offset,
            ErrorCode::UnknownLength => None,
        }
    }

    #[cold]
    #[inline(never)]
    pub fn unknown_length() -> Error {
        Error(Box::new(ErrorCode::UnknownLength))
    }

    #[cold]
    #[inline(never)]
    fn pson_at(kind: ErrorKind, offset: usize) -> Error {
        Error(Box::new(ErrorCode::Pson(pson::Error::new(kind, offset))))
    }

    /// Attach `offset` in place to a message that does not have one yet.
    #[cold]
    #[inline(never)]
    fn fix(&mut self, at: usize) {
        if let ErrorCode::Message(m) = &mut *self.0 {
            if m.offset.is_none() {
                m.offset = Some(at);
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn msg_at(msg: String, offset: usize) -> Error {
        Error(Box::new(ErrorCode::Message(Message { msg, offset: Some(offset) })))
    }

    #[cold]
    #[inline(never)]
    fn msg(msg: String) -> Error {
        Error(Box::new(ErrorCode::Message(Message { msg, offset: None })))
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            // pson::Error's Display is one line ending in "at byte N".
            ErrorCode::Pson(e) => write!(f, "{e}"),
            ErrorCode::Message(m) => match m.offset {
                Some(o) => write!(f, "{} at byte {o}", m.msg),
                None => f.write_str(&m.msg),
            },
            ErrorCode::UnknownLength => f.write_str(
                "PSON needs the length of every sequence and map up front (serialized without a length)",
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.0 {
            ErrorCode::Pson(e) => Some(e),
            _ => None,
        }
    }
}

impl From<pson::Error> for Error {
    #[cold]
    #[inline(never)]
    fn from(e: pson::Error) -> Self {
        Error(Box::new(ErrorCode::Pson(e)))
    }
}

impl ser::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::msg(msg.to_string())
    }
}

impl de::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::msg(msg.to_string())
    }
}

// =============================================================================================
// Serializing

/// Serialize `value` as one PSON item into `out` (a `Vec<u8>`, a `&mut Vec<u8>`, a
/// [`pson::SliceWriter`], ...).
#[inline]
pub fn to_writer<W: pson::Write, T: Serialize + ?Sized>(out: W, value: &T) -> Result<(), Error> {
    let mut ser = Serializer::new(out);
    value.serialize(&mut ser)
}

/// Serialize `value` as one PSON item into a new `Vec<u8>`.
#[inline]
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    let mut ser = Serializer::new(Vec::with_capacity(128));
    value.serialize(&mut ser)?;
    Ok(ser.into_inner())
}

/// A serde serializer writing PSON v2 straight into a [`pson::Write`]; use it as
/// `value.serialize(&mut Serializer::new(out))`.
#[derive(Debug)]
pub struct Serializer<W: pson::Write> {
    enc: Encoder<W>,
}

impl<W: pson::Write> Serializer<W> {
    /// Write into `out`.
    #[inline]
    pub fn new(out: W) -> Self {
        Serializer { enc: Encoder::new(out) }
    }

    /// Give back the writer.
    #[inline]
    pub fn into_inner(self) -> W {
        self.enc.into_inner()
    }

    /// The underlying PSON encoder.
    #[inline]
    pub fn encoder(&mut self) -> &mut Encoder<W> {
        &mut self.enc
    }

    #[inline]
    fn compound(&mut self, len: usize) -> Compound<'_, W> {
        // A length above isize::MAX cannot be serialized: its elements would not fit in memory.
        Compound { ser: self, left: len.min(isize::MAX as usize) as isize }
    }

    /// An item header. The one-byte form is written as a fixed one-byte slice (much cheaper
    /// for a `Vec` than the encoder's variable-length header write).
    #[inline(always)]
    fn head(&mut self, wire: u8, value: u64) -> Result<(), Error> {
        if value < 31 {
            pson::Write::write_byte(self.enc.writer(), wire << 5 | value as u8)?;
            Ok(())
        } else {
            self.head_escaped(wire, value)
        }
    }

    /// A header with payload 31 and the LEB128 value. Header and varint are assembled in one
    /// register and written with one `write_le` (bytes stored one by one to a stack buffer
    /// and read back wider stall the CPU, and a variable-length write costs a `memcpy` call).
    #[inline]
    fn head_escaped(&mut self, wire: u8, value: u64) -> Result<(), Error> {
        let n = pson::varint_len(value); // 1..=10
        if n > 7 {
            // 2^49 and above: rare, the encoder's general path.
            self.enc.header(wire, value)?;
            return Ok(());
        }
        // value < 2^49: its seven 7-bit groups, one per byte, with the continuation bit on
        // every byte but the last (branch-free).
        let v = value;
        let groups = (v & 0x7f)
            | (v >> 7 & 0x7f) << 8
            | (v >> 14 & 0x7f) << 16
            | (v >> 21 & 0x7f) << 24
            | (v >> 28 & 0x7f) << 32
            | (v >> 35 & 0x7f) << 40
            | (v >> 42 & 0x7f) << 48;
        let more = 0x0080_8080_8080_8080u64 & ((1u64 << (8 * (n - 1))) - 1);
        let word = u64::from(wire << 5 | 0x1f) | (groups | more) << 8;
        pson::Write::write_le(self.enc.writer(), u128::from(word), n + 1)?;
        Ok(())
    }

    /// A float32 item: header and body as one write from a register.
    #[inline(always)]
    fn f32_body(&mut self, f: f32) -> Result<(), Error> {
        let word = u64::from(f.to_bits()) << 8 | 0x40;
        // A fixed-length write: inlined as two stores, no length arithmetic.
        pson::Write::write_all(self.enc.writer(), &word.to_le_bytes()[..5])?;
        Ok(())
    }

    /// A float64 item: header and body as one write from a register pair.
    #[inline(always)]
    fn f64_body(&mut self, v: f64) -> Result<(), Error> {
        let word = u128::from(v.to_bits()) << 8 | 0x41;
        // A fixed-length write: inlined as two stores, no length arithmetic.
        pson::Write::write_all(self.enc.writer(), &word.to_le_bytes()[..9])?;
        Ok(())
    }

    /// The float rule for what the inlined test leaves: exact in binary32 below 2^24 (a whole
    /// number or a float32), or anything at or above 2^24, NaN and infinities.
    #[inline(never)]
    fn f64_rest(&mut self, v: f64) -> Result<(), Error> {
        const TWO_24: f64 = 16_777_216.0;
        const ROUND: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52
        if v.abs() < TWO_24 && (v + ROUND) - ROUND != v {
            return self.f32_body(v as f32);
        }
        self.f64_general(v)
    }

    /// The general float rule: whole numbers, NaN, infinities and |v| >= 2^24.
    #[inline]
    fn f64_general(&mut self, v: f64) -> Result<(), Error> {
        const TWO_63: f64 = 9_223_372_036_854_775_808.0;
        // `as i64` saturates (NaN → 0, ±inf and |v| >= 2^63 → MIN/MAX): only values in
        // [-2^63, 2^63) that are whole come back equal, given the upper bound check.
        let i = v as i64;
        if i as f64 == v && v < TWO_63 {
            return if i >= 0 {
                self.head(pson::wire_type::UINT, i as u64)
            } else {
                self.head(pson::wire_type::NEG_INT, i.unsigned_abs())
            };
        }
        let f = v as f32;
        if f as f64 == v {
            self.f32_body(f)
        } else if v.is_nan() {
            self.raw(&[0x41, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f])
        } else {
            self.f64_body(v)
        }
    }

    #[inline(always)]
    fn raw(&mut self, bytes: &[u8]) -> Result<(), Error> {
        pson::Write::write_all(self.enc.writer(), bytes)?;
        Ok(())
    }

    #[inline(always)]
    fn string(&mut self, s: &str) -> Result<(), Error> {
        let w = self.enc.writer();
        if s.len() < 31 {
            // Header and body in one write: one capacity check instead of two.
            pson::Write::write_prefixed(w, pson::wire_type::STR << 5 | s.len() as u8, s.as_bytes())?;
            return Ok(());
        }
        self.long_string(s)
    }

    /// A struct field name: a string item known at compile time. Up to 15 bytes, header and
    /// name are assembled in a fixed array that folds to a constant, and written with one
    /// fixed-length write (one capacity check and immediate stores, no `memcpy` call).
    #[inline(always)]
    fn key(&mut self, key: &'static str) -> Result<(), Error> {
        let n = key.len();
        if n < 16 {
            let mut item = [0u8; 16];
            item[0] = pson::wire_type::STR << 5 | n as u8;
            item[1..1 + n].copy_from_slice(key.as_bytes());
            pson::Write::write_all(self.enc.writer(), &item[..1 + n])?;
            return Ok(());
        }
        self.string(key)
    }

    /// A string of 31 bytes or more: out of line, so that the short case inlines everywhere.
    #[inline(never)]
    fn long_string(&mut self, s: &str) -> Result<(), Error> {
        let len = s.len();
        if len < 1 << 14 {
            // Header (payload 31) and a one- or two-byte LEB128 length from one register.
            let head = u128::from(pson::wire_type::STR << 5 | 0x1f);
            let (word, n) = if len < 128 {
                (head | (len as u128) << 8, 2)
            } else {
                (head | ((len as u128 & 0x7f) | 0x80) << 8 | (len as u128 >> 7) << 16, 3)
            };
            pson::Write::write_le(self.enc.writer(), word, n)?;
            return self.raw(s.as_bytes());
        }
        self.head_escaped(pson::wire_type::STR, len as u64)?;
        self.raw(s.as_bytes())
    }
}

#[cold]
#[inline(never)]
fn i128_range() -> Error {
    Error::msg("integer out of PSON's 64-bit range (-2^63 ..= 2^64-1)".to_string())
}

impl<'a, W: pson::Write> ser::Serializer for &'a mut Serializer<W> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, W>;
    type SerializeTuple = Compound<'a, W>;
    type SerializeTupleStruct = Compound<'a, W>;
    type SerializeTupleVariant = Compound<'a, W>;
    type SerializeMap = Compound<'a, W>;
    type SerializeStruct = Compound<'a, W>;
    type SerializeStructVariant = Compound<'a, W>;

    #[inline]
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.raw(&[0x60 | v as u8])
    }

    #[inline]
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.serialize_i64(v as i64)
    }

    #[inline]
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.serialize_i64(v as i64)
    }

    #[inline]
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.serialize_i64(v as i64)
    }

    #[inline]
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        if v >= 0 {
            self.head(pson::wire_type::UINT, v as u64)
        } else {
            self.head(pson::wire_type::NEG_INT, v.unsigned_abs())
        }
    }

    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        if let Ok(i) = i64::try_from(v) {
            self.serialize_i64(i)
        } else if let Ok(u) = u64::try_from(v) {
            self.serialize_u64(u)
        } else {
            Err(i128_range())
        }
    }

    #[inline]
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.serialize_u64(v as u64)
    }

    #[inline]
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.serialize_u64(v as u64)
    }

    #[inline]
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.serialize_u64(v as u64)
    }

    #[inline]
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.head(pson::wire_type::UINT, v)
    }

    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        match u64::try_from(v) {
            Ok(u) => self.serialize_u64(u),
            Err(_) => Err(i128_range()),
        }
    }

    #[inline(always)]
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        // Widened to f64, then the same rule (as pson::Encoder::f32).
        self.serialize_f64(v as f64)
    }

    #[inline(always)]
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        // The §1.5 rule, the same decisions as pson::classify_f64 (tested against it): integral
        // and in [-2^63, 2^63) → integer (-0.0 → 0); NaN → the canonical NaN; exact in
        // binary32 → f32; else f64. The common cases are decided with float arithmetic only
        // (no shifts by a variable amount, no saturating integer conversion):
        //  - |v| < 2^24 and not exact in binary32: not integral (every integer below 2^24 is
        //    exact in binary32), so f64 (here);
        //  - |v| < 2^24 and exact in binary32: integral iff rounding to an integer (adding and
        //    subtracting 1.5 * 2^52) gives v back (in `f64_rest`).
        // Everything else (NaN, infinities, |v| >= 2^24) takes the general path.
        const TWO_24: f64 = 16_777_216.0;
        // Inlined: only the commonest case, a value that needs binary64 (most decimal
        // fractions); everything else is one call away, which keeps `f64::serialize` small
        // enough for LLVM to inline it into sequence loops and structs.
        let f = v as f32;
        if v.abs() < TWO_24 && f as f64 != v {
            return self.f64_body(v);
        }
        self.f64_rest(v)
    }

    #[inline]
    fn serialize_char(self, v: char) -> Result<(), Error> {
        let mut buf = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut buf))
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.string(v)
    }

    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        self.head(pson::wire_type::BYTES, v.len() as u64)?;
        self.raw(v)
    }

    #[inline]
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<(), Error> {
        self.raw(&[0x62])
    }

    #[inline]
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }

    #[inline]
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.raw(&[0xc1])?;
        self.string(variant)?;
        value.serialize(self)
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, W>, Error> {
        let len = len.ok_or_else(Error::unknown_length)?;
        self.head(pson::wire_type::ARRAY, len as u64)?;
        Ok(self.compound(len))
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, W>, Error> {
        self.head(pson::wire_type::ARRAY, len as u64)?;
        Ok(self.compound(len))
    }

    #[inline]
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, W>, Error> {
        self.serialize_tuple(len)
    }

    #[inline]
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, W>, Error> {
        self.raw(&[0xc1])?;
        self.string(variant)?;
        self.head(pson::wire_type::ARRAY, len as u64)?;
        Ok(self.compound(len))
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, W>, Error> {
        let len = len.ok_or_else(Error::unknown_length)?;
        self.head(pson::wire_type::MAP, len as u64)?;
        Ok(self.compound(len))
    }

    #[inline]
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, W>, Error> {
        self.head(pson::wire_type::MAP, len as u64)?;
        Ok(self.compound(len))
    }

    #[inline]
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, W>, Error> {
        self.raw(&[0xc1])?;
        self.string(variant)?;
        self.head(pson::wire_type::MAP, len as u64)?;
        Ok(self.compound(len))
    }
}

/// The state of a sequence, tuple, map or struct being serialized: the elements still due.
/// A `Serialize` impl that writes more or fewer elements than it announced gets an error
/// instead of a corrupt encoding. The count is checked once, at the end (a decrement per
/// element instead of a test and branch); the output of a failed serialization is not used.
#[derive(Debug)]
pub struct Compound<'a, W: pson::Write> {
    ser: &'a mut Serializer<W>,
    /// Elements still due; negative once more were written than announced.
    left: isize,
}

#[cold]
#[inline(never)]
fn too_many() -> Error {
    Error::msg("more elements serialized than the length given to serialize_seq/map/struct".to_string())
}

#[cold]
#[inline(never)]
fn too_few(left: usize) -> Error {
    Error::msg(format!(
        "{left} element(s) fewer serialized than the length given to serialize_seq/map/struct"
    ))
}

impl<W: pson::Write> Compound<'_, W> {
    #[inline(always)]
    fn tick(&mut self) -> Result<(), Error> {
        self.left = self.left.wrapping_sub(1);
        Ok(())
    }

    #[inline]
    fn done(self) -> Result<(), Error> {
        match self.left {
            0 => Ok(()),
            n if n < 0 => Err(too_many()),
            n => Err(too_few(n as usize)),
        }
    }

    #[inline(always)]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.tick()?;
        value.serialize(&mut *self.ser)
    }

    #[inline(always)]
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.tick()?;
        self.ser.key(key)?;
        value.serialize(&mut *self.ser)
    }
}

/// The sequence-like traits: every element goes through [`Compound::element`].
macro_rules! element_impls {
    ($($tr:ident::$method:ident),*) => {$(
        impl<W: pson::Write> ser::$tr for Compound<'_, W> {
            type Ok = ();
            type Error = Error;

            #[inline]
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }

            #[inline]
            fn end(self) -> Result<(), Error> {
                self.done()
            }
        }
    )*};
}

element_impls!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl<W: pson::Write> ser::SerializeMap for Compound<'_, W> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.tick()?;
        key.serialize(KeySerializer { ser: &mut *self.ser })
    }

    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.ser)
    }

    #[inline]
    fn end(self) -> Result<(), Error> {
        self.done()
    }
}

/// The struct-like traits: every field goes through [`Compound::field`].
macro_rules! field_impls {
    ($($tr:ident),*) => {$(
        impl<W: pson::Write> ser::$tr for Compound<'_, W> {
            type Ok = ();
            type Error = Error;

            #[inline(always)]
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
                self.field(key, value)
            }

            #[inline]
            fn end(self) -> Result<(), Error> {
                self.done()
            }
        }
    )*};
}

field_impls!(SerializeStruct, SerializeStructVariant);

/// Decimal text of an integer in a stack buffer (map keys); returns the used tail.
#[inline]
fn decimal(neg: bool, mut mag: u64, buf: &mut [u8; 20]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (mag % 10) as u8;
        mag /= 10;
        if mag == 0 {
            break;
        }
    }
    if neg {
        i -= 1;
        buf[i] = b'-';
    }
    // Only ASCII digits and '-' were written.
    std::str::from_utf8(&buf[i..]).unwrap_or("")
}

#[cold]
#[inline(never)]
fn key_must_be_string(what: &str) -> Error {
    Error::msg(format!("PSON map keys are strings; a {what} cannot be a map key"))
}

/// Serializes a map key: strings, chars, unit variants and (as decimal text) integers and
/// bools; anything else is an error.
struct KeySerializer<'a, W: pson::Write> {
    ser: &'a mut Serializer<W>,
}

impl<W: pson::Write> KeySerializer<'_, W> {
    #[inline]
    fn int(self, neg: bool, mag: u64) -> Result<(), Error> {
        let mut buf = [0u8; 20];
        self.ser.string(decimal(neg, mag, &mut buf))
    }
}

impl<W: pson::Write> ser::Serializer for KeySerializer<'_, W> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.ser.string(v)
    }

    #[inline]
    fn serialize_char(self, v: char) -> Result<(), Error> {
        let mut buf = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut buf))
    }

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.serialize_str(if v { "true" } else { "false" })
    }

    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.serialize_i64(v as i64)
    }

    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.serialize_i64(v as i64)
    }

    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.serialize_i64(v as i64)
    }

    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.int(v < 0, v.unsigned_abs())
    }

    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        match u64::try_from(v.unsigned_abs()) {
            Ok(m) => self.int(v < 0, m),
            Err(_) => Err(i128_range()),
        }
    }

    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.serialize_u64(v as u64)
    }

    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.serialize_u64(v as u64)
    }

    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.serialize_u64(v as u64)
    }

    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.int(false, v)
    }

    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        match u64::try_from(v) {
            Ok(u) => self.int(false, u),
            Err(_) => Err(i128_range()),
        }
    }

    fn serialize_f32(self, _v: f32) -> Result<(), Error> {
        Err(key_must_be_string("float"))
    }

    fn serialize_f64(self, _v: f64) -> Result<(), Error> {
        Err(key_must_be_string("float"))
    }

    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Error> {
        Err(key_must_be_string("byte string"))
    }

    fn serialize_none(self) -> Result<(), Error> {
        Err(key_must_be_string("None"))
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_must_be_string("unit"))
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Err(key_must_be_string("unit struct"))
    }

    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_string("newtype variant"))
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_must_be_string("sequence"))
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_must_be_string("tuple"))
    }

    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_must_be_string("tuple struct"))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_must_be_string("tuple variant"))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_must_be_string("map"))
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct, Error> {
        Err(key_must_be_string("struct"))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_must_be_string("struct variant"))
    }
}

// =============================================================================================
// Deserializing

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
/// and float headers, 10-byte varints, anything malformed) goes through [`pson::Decoder`], so
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

/// The fast path of [`Deserializer::item`]: `None` sends the item to `pson::Decoder`.
#[inline(always)]
fn fast_item(input: &[u8], pos: usize) -> Option<(Item<'_>, usize)> {
    let (wire, v, at) = header(input, pos)?;
    let left = (input.len() - at) as u64; // at <= input.len(): a byte was read before it
    let item = match wire {
        pson::wire_type::UINT => Item::Uint(v),
        // At most 63 bits from `header`: the negation cannot overflow.
        pson::wire_type::NEG_INT => Item::Int(-(v as i64)),
        pson::wire_type::FLOAT => match v {
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
        pson::wire_type::DISCRETE => match v {
            0 => Item::Bool(false),
            1 => Item::Bool(true),
            2 => Item::Null,
            _ => return None,
        },
        pson::wire_type::STR => {
            let s = std::str::from_utf8(body(input, at, v)?).ok()?;
            return Some((Item::Str(s), at + s.len()));
        }
        pson::wire_type::BYTES => {
            let b = body(input, at, v)?;
            return Some((Item::Bytes(b), at + b.len()));
        }
        pson::wire_type::MAP if v <= left / 2 => Item::Map(v),
        pson::wire_type::ARRAY if v <= left => Item::Array(v),
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
        if let Some((pson::wire_type::STR, v, at)) = header(self.input, self.pos) {
            if let Some(raw) = body(self.input, at, v) {
                if let Ok(s) = std::str::from_utf8(raw) {
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
    /// same error and offset as `pson::Decoder`).
    #[inline(always)]
    fn key_raw(&mut self) -> Result<KeyDeserializer<'de>, Error> {
        if let Some((pson::wire_type::STR, v, at)) = header(self.input, self.pos) {
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

    /// Everything the fast path does not take, through `pson::Decoder` on the rest of the
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
            if wire == pson::wire_type::UINT {
                self.last = at;
                self.pos = body_at;
                return visitor.visit_u64(v);
            }
            if wire == pson::wire_type::NEG_INT {
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
                (pson::wire_type::FLOAT, 1) => {
                    if let Some(b) = input.get(body_at..body_at + 8) {
                        let mut a = [0u8; 8];
                        a.copy_from_slice(b);
                        self.last = at;
                        self.pos = body_at + 8;
                        return visitor.visit_f64(f64::from_le_bytes(a));
                    }
                }
                (pson::wire_type::FLOAT, 0) => {
                    if let Some(b) = input.get(body_at..body_at + 4) {
                        let mut a = [0u8; 4];
                        a.copy_from_slice(b);
                        self.last = at;
                        self.pos = body_at + 4;
                        return visitor.visit_f32(f32::from_le_bytes(a));
                    }
                }
                (pson::wire_type::UINT, _) => {
                    self.last = at;
                    self.pos = body_at;
                    return visitor.visit_u64(v);
                }
                (pson::wire_type::NEG_INT, _) => {
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
        if let Some((pson::wire_type::STR, v, body_at)) = header(self.input, at) {
            if let Some(raw) = body(self.input, body_at, v) {
                if let Ok(s) = std::str::from_utf8(raw) {
                    self.last = at;
                    self.pos = body_at + raw.len();
                    return visitor.visit_borrowed_str(s);
                }
            }
        }
        self.any_outlined(visitor)
    }

    /// `deserialize_any` for the forms the fast path leaves to `pson::Decoder`.
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
                pson::wire_type::UINT => {
                    self.pos = body_at;
                    visitor.visit_u64(v)
                }
                pson::wire_type::NEG_INT => {
                    self.pos = body_at;
                    visitor.visit_i64(-(v as i64))
                }
                pson::wire_type::FLOAT if v == 1 && left >= 8 => {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&input[body_at..body_at + 8]);
                    self.pos = body_at + 8;
                    visitor.visit_f64(f64::from_le_bytes(b))
                }
                pson::wire_type::FLOAT if v == 0 && left >= 4 => {
                    let mut b = [0u8; 4];
                    b.copy_from_slice(&input[body_at..body_at + 4]);
                    self.pos = body_at + 4;
                    visitor.visit_f32(f32::from_le_bytes(b))
                }
                pson::wire_type::DISCRETE if v < 2 => {
                    self.pos = body_at;
                    visitor.visit_bool(v == 1)
                }
                pson::wire_type::DISCRETE if v == 2 => {
                    self.pos = body_at;
                    visitor.visit_unit()
                }
                pson::wire_type::STR if v <= left => {
                    let raw = &input[body_at..body_at + v as usize];
                    match std::str::from_utf8(raw) {
                        Ok(s) => {
                            self.pos = body_at + raw.len();
                            visitor.visit_borrowed_str(s)
                        }
                        Err(_) => self.deserialize_any_slow(at, visitor),
                    }
                }
                pson::wire_type::BYTES if v <= left => {
                    let raw = &input[body_at..body_at + v as usize];
                    self.pos = body_at + raw.len();
                    visitor.visit_borrowed_bytes(raw)
                }
                pson::wire_type::MAP if v <= left / 2 => {
                    self.pos = body_at;
                    self.visit_map(v, at, visitor)
                }
                pson::wire_type::ARRAY if v <= left => {
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
        if let Some((pson::wire_type::ARRAY, n, body_at)) = header(self.input, at) {
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
        if let Some((pson::wire_type::MAP, n, body_at)) = header(self.input, at) {
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

    serde::forward_to_deserialize_any! {
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
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
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
        match std::str::from_utf8(self.raw) {
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

    serde::forward_to_deserialize_any! {
        f32 f64 char str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct ignored_any
    }
}

const _: () = assert!(std::mem::size_of::<Result<(), Error>>() <= 16);
