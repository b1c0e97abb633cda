//! Serializing: derived types straight into a [`crate::Write`].

use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;

use ::serde::ser::{self, Impossible};
use ::serde::Serialize;

use super::Error;
use crate::Encoder;

/// Serialize `value` as one PSON item into `out` (a `Vec<u8>`, a `&mut Vec<u8>`, a
/// [`crate::SliceWriter`], ...).
#[inline]
pub fn to_writer<W: crate::Write, T: Serialize + ?Sized>(out: W, value: &T) -> Result<(), Error> {
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

/// A serde serializer writing PSON v2 straight into a [`crate::Write`]; use it as
/// `value.serialize(&mut Serializer::new(out))`.
#[derive(Debug)]
pub struct Serializer<W: crate::Write> {
    enc: Encoder<W>,
}

impl<W: crate::Write> Serializer<W> {
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
            wire::Write::<crate::ErrorKind>::write_byte(self.enc.writer(), wire << 5 | value as u8)?;
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
        // Values below 2^21 (one to three varint bytes: counts, lengths and most sensor
        // integers) as one fixed-length store of 2, 3 or 4 bytes.
        let tag = u32::from(wire << 5 | 0x1f);
        if value < 1 << 21 {
            // Branch-free (random magnitudes make the length unpredictable): all three varint
            // groups, continuation bits where a later group follows, and the length as
            // arithmetic; one 16-byte store, the tail dropped again.
            let v = value as u32;
            let (more1, more2) = (u32::from(v >= 1 << 7), u32::from(v >= 1 << 14));
            let word = tag | ((v & 0x7f) | more1 << 7) << 8 | ((v >> 7 & 0x7f) | more2 << 7) << 16 | (v >> 14) << 24;
            wire::Write::<crate::ErrorKind>::write_le(
                self.enc.writer(),
                u128::from(word),
                (2 + more1 + more2) as usize,
            )?;
            return Ok(());
        }
        let n = crate::varint_len(value); // 1..=10
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
        wire::Write::<crate::ErrorKind>::write_le(self.enc.writer(), u128::from(word), n + 1)?;
        Ok(())
    }

    /// A float32 item: header and body as one write from a register.
    #[inline(always)]
    fn f32_body(&mut self, f: f32) -> Result<(), Error> {
        let word = u64::from(f.to_bits()) << 8 | 0x40;
        // A fixed-length write: inlined as two stores, no length arithmetic.
        wire::Write::<crate::ErrorKind>::write_all(self.enc.writer(), &word.to_le_bytes()[..5])?;
        Ok(())
    }

    /// A float64 item: header and body as one write from a register pair.
    #[inline(always)]
    fn f64_body(&mut self, v: f64) -> Result<(), Error> {
        let word = u128::from(v.to_bits()) << 8 | 0x41;
        // A fixed-length write: inlined as two stores, no length arithmetic.
        wire::Write::<crate::ErrorKind>::write_all(self.enc.writer(), &word.to_le_bytes()[..9])?;
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
                self.head(crate::wire_type::UINT, i as u64)
            } else {
                self.head(crate::wire_type::NEG_INT, i.unsigned_abs())
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
        wire::Write::<crate::ErrorKind>::write_all(self.enc.writer(), bytes)?;
        Ok(())
    }

    #[inline(always)]
    fn string(&mut self, s: &str) -> Result<(), Error> {
        let w = self.enc.writer();
        if s.len() < 31 {
            // Header and body in one write: one capacity check instead of two.
            wire::Write::<crate::ErrorKind>::write_prefixed(
                w,
                crate::wire_type::STR << 5 | s.len() as u8,
                s.as_bytes(),
            )?;
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
            item[0] = crate::wire_type::STR << 5 | n as u8;
            item[1..1 + n].copy_from_slice(key.as_bytes());
            wire::Write::<crate::ErrorKind>::write_all(self.enc.writer(), &item[..1 + n])?;
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
            let head = u128::from(crate::wire_type::STR << 5 | 0x1f);
            let (word, n) = if len < 128 {
                (head | (len as u128) << 8, 2)
            } else {
                (head | ((len as u128 & 0x7f) | 0x80) << 8 | (len as u128 >> 7) << 16, 3)
            };
            wire::Write::<crate::ErrorKind>::write_le(self.enc.writer(), word, n)?;
            return self.raw(s.as_bytes());
        }
        self.head_escaped(crate::wire_type::STR, len as u64)?;
        self.raw(s.as_bytes())
    }
}

#[cold]
#[inline(never)]
fn i128_range() -> Error {
    Error::msg("integer out of PSON's 64-bit range (-2^63 ..= 2^64-1)".to_string())
}

impl<'a, W: crate::Write> ser::Serializer for &'a mut Serializer<W> {
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
        // The sign picks the wire type and the magnitude without a branch (mixed signs are
        // unpredictable): `neg` is all ones for a negative value.
        let neg = v >> 63;
        let magnitude = (v ^ neg).wrapping_sub(neg) as u64;
        let wire = crate::wire_type::UINT | (neg as u8 & (crate::wire_type::NEG_INT ^ crate::wire_type::UINT));
        self.head(wire, magnitude)
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
        self.head(crate::wire_type::UINT, v)
    }

    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        match u64::try_from(v) {
            Ok(u) => self.serialize_u64(u),
            Err(_) => Err(i128_range()),
        }
    }

    #[inline(always)]
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        // Widened to f64, then the same rule (as crate::Encoder::f32).
        self.serialize_f64(v as f64)
    }

    #[inline(always)]
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        // The §1.5 rule, the same decisions as crate::classify_f64 (tested against it): integral
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
        self.head(crate::wire_type::BYTES, v.len() as u64)?;
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
        self.head(crate::wire_type::ARRAY, len as u64)?;
        Ok(self.compound(len))
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, W>, Error> {
        self.head(crate::wire_type::ARRAY, len as u64)?;
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
        self.head(crate::wire_type::ARRAY, len as u64)?;
        Ok(self.compound(len))
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, W>, Error> {
        let len = len.ok_or_else(Error::unknown_length)?;
        self.head(crate::wire_type::MAP, len as u64)?;
        Ok(self.compound(len))
    }

    #[inline]
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, W>, Error> {
        self.head(crate::wire_type::MAP, len as u64)?;
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
        self.head(crate::wire_type::MAP, len as u64)?;
        Ok(self.compound(len))
    }
}

/// The state of a sequence, tuple, map or struct being serialized: the elements still due.
/// A `Serialize` impl that writes more or fewer elements than it announced gets an error
/// instead of a corrupt encoding. The count is checked once, at the end (a decrement per
/// element instead of a test and branch); the output of a failed serialization is not used.
#[derive(Debug)]
pub struct Compound<'a, W: crate::Write> {
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
    Error::msg(format!("{left} element(s) fewer serialized than the length given to serialize_seq/map/struct"))
}

impl<W: crate::Write> Compound<'_, W> {
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
        impl<W: crate::Write> ser::$tr for Compound<'_, W> {
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

impl<W: crate::Write> ser::SerializeMap for Compound<'_, W> {
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
        impl<W: crate::Write> ser::$tr for Compound<'_, W> {
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
    core::str::from_utf8(&buf[i..]).unwrap_or("")
}

#[cold]
#[inline(never)]
fn key_must_be_string(what: &str) -> Error {
    Error::msg(format!("PSON map keys are strings; a {what} cannot be a map key"))
}

/// Serializes a map key: strings, chars, unit variants and (as decimal text) integers and
/// bools; anything else is an error.
struct KeySerializer<'a, W: crate::Write> {
    ser: &'a mut Serializer<W>,
}

impl<W: crate::Write> KeySerializer<'_, W> {
    #[inline]
    fn int(self, neg: bool, mag: u64) -> Result<(), Error> {
        let mut buf = [0u8; 20];
        self.ser.string(decimal(neg, mag, &mut buf))
    }
}

impl<W: crate::Write> ser::Serializer for KeySerializer<'_, W> {
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
