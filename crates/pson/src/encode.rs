//! PSON v2 encoder (spec §1.1–§1.6) and size helpers.
//!
//! ```text
//! Item (§1.1):   [header] [varint, iff payload == 31] [body]
//!
//!   header bit   7 6 5 | 4 3 2 1 0
//!                wire  | payload p
//!
//!   p = 0..=30 : the value/length/count is p itself (used iff value < 31)
//!   p = 31     : value follows as unsigned LEB128 (minimal, 1..=10 bytes)
//!
//! wire | header  | value v                     | body (§1.3)
//! -----+---------+-----------------------------+------------------------------
//!  0   | 00..1f  | unsigned integer v          | -
//!  1   | 20..3f  | integer -v (magnitude)      | -
//!  2   | 40 / 41 | 0 = binary32, 1 = binary64  | 4 / 8 bytes IEEE-754 LE
//!  3   | 60..62  | 0 false, 1 true, 2 null     | -
//!  4   | 80..9f  | UTF-8 byte length           | v bytes
//!  5   | a0..bf  | byte length                 | v bytes
//!  6   | c0..df  | number of pairs             | v x (string key item, value item)
//!  7   | e0..ff  | number of elements          | v items
//! ```
//!
//! Examples: `30 → 1e`, `31 → 1f 1f`, `128 → 1f 80 01`, `-31 → 3f 1f`,
//! `i64::MIN → 3f 80 80 80 80 80 80 80 80 80 01`, `1.5 → 40 0000c03f`,
//! `2.3 → 41 6666666666660240`, `NaN → 41 000000000000f87f`, `-0.0 → 00`.

use crate::error::Error;
use crate::write::Write;

/// Wire type numbers (§1.3).
pub(crate) mod wire {
    pub const UINT: u8 = 0;
    pub const NEG: u8 = 1;
    pub const FLOAT: u8 = 2;
    pub const DISCRETE: u8 = 3;
    pub const STR: u8 = 4;
    pub const BYTES: u8 = 5;
    pub const MAP: u8 = 6;
    pub const ARRAY: u8 = 7;
}

/// Payload value 31: "an LEB128 varint follows the header byte".
pub(crate) const ESCAPE: u8 = 0x1f;

/// Canonical quiet NaN written for every NaN input (`41 000000000000f87f`).
pub(crate) const CANONICAL_NAN_BITS: u64 = 0x7ff8_0000_0000_0000;

/// Length of the minimal unsigned LEB128 encoding of `v` (1..=10).
#[inline]
pub fn varint_len(v: u64) -> usize {
    // bits needed (at least 1), 7 per byte
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Write the minimal LEB128 form of `v` into `buf`; returns the length.
#[inline]
pub(crate) fn put_varint(mut v: u64, buf: &mut [u8; 10]) -> usize {
    let mut n = 0;
    for slot in buf.iter_mut() {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        n += 1;
        if v == 0 {
            *slot = byte;
            break;
        }
        *slot = byte | 0x80;
    }
    n
}

/// Encoded size of a header carrying `value` (for any wire type): 1 byte if
/// `value < 31`, else 1 + the varint length.
#[inline]
pub fn header_len(value: u64) -> usize {
    if value < ESCAPE as u64 {
        1
    } else {
        1 + varint_len(value)
    }
}

/// Encoded size of an unsigned integer.
#[inline]
pub fn u64_len(v: u64) -> usize {
    header_len(v)
}

/// Encoded size of a signed integer.
#[inline]
pub fn i64_len(v: i64) -> usize {
    header_len(v.unsigned_abs())
}

/// Encoded size of a float after the §1.5 rule.
#[inline]
pub fn f64_len(v: f64) -> usize {
    match classify_f64(v) {
        FloatRepr::Uint(u) => header_len(u),
        FloatRepr::Neg(m) => header_len(m),
        FloatRepr::F32(_) => 5,
        FloatRepr::F64(_) => 9,
    }
}

/// Encoded size of a string item.
#[inline]
pub fn str_len(s: &str) -> usize {
    bytes_len(s.as_bytes())
}

/// Encoded size of a bytes item.
#[inline]
pub fn bytes_len(b: &[u8]) -> usize {
    header_len(b.len() as u64).saturating_add(b.len())
}

/// How a float is put on the wire (§1.5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FloatRepr {
    /// Integral, non-negative (includes -0.0): wire 0.
    Uint(u64),
    /// Integral, negative: wire 1 with this magnitude (1..=2^63).
    Neg(u64),
    /// Exactly representable as binary32: `40` + 4 bytes.
    F32(f32),
    /// Anything else (NaN canonicalised): `41` + 8 bytes.
    F64(f64),
}

const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// Apply the §1.5 decision in order: integral and in [-2^63, 2^63) →
/// integer; exact in f32 (including ±inf) → f32; else f64 (NaN → canonical
/// quiet NaN `0x7ff8000000000000`).
#[inline]
pub fn classify_f64(d: f64) -> FloatRepr {
    if d.is_finite() && (-TWO_63..TWO_63).contains(&d) && trunc(d) == d {
        if d >= 0.0 {
            // 0 <= d < 2^63: the cast is exact.
            FloatRepr::Uint(d as u64)
        } else {
            // -2^63 <= d < 0: -d is in (0, 2^63], exact in u64.
            FloatRepr::Neg((-d) as u64)
        }
    } else if d.is_nan() {
        FloatRepr::F64(f64::from_bits(CANONICAL_NAN_BITS))
    } else {
        let f = d as f32;
        if f as f64 == d {
            FloatRepr::F32(f)
        } else {
            FloatRepr::F64(d)
        }
    }
}

/// `f64::trunc` is not available in `core` on older toolchains; this is an
/// exact replacement (NaN and ±inf are returned unchanged).
#[inline]
pub(crate) fn trunc(d: f64) -> f64 {
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    // Every f64 with |d| >= 2^52 is already integral.
    if d.is_nan() || d >= TWO_52 || d <= -TWO_52 {
        return d;
    }
    // |d| < 2^52 fits i64 exactly after truncation.
    let t = d as i64 as f64;
    if t == 0.0 && d.is_sign_negative() {
        -0.0
    } else {
        t
    }
}

/// Streaming PSON v2 encoder. Each method writes one item (containers: the
/// header only; the caller then writes `len` elements / `len_pairs` key-value
/// pairs) and returns `&mut Self` for chaining.
///
/// Each item is written with one or two `write_all` calls (header, then
/// body), so when the writer fails (e.g. [`crate::SliceWriter`] full) the
/// output may end with a partial item.
///
/// ```
/// let mut enc = pson::Encoder::new(Vec::new());
/// enc.map(1)?.str("neg")?.i64(-2)?;
/// assert_eq!(enc.into_inner(), [0xc1, 0x83, b'n', b'e', b'g', 0x22]);
/// # Ok::<(), pson::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Encoder<W: Write> {
    w: W,
}

impl<W: Write> Encoder<W> {
    /// Wrap a writer.
    #[inline]
    pub fn new(w: W) -> Self {
        Encoder { w }
    }

    /// Unwrap the writer.
    #[inline]
    pub fn into_inner(self) -> W {
        self.w
    }

    /// Borrow the writer.
    #[inline]
    pub fn writer(&mut self) -> &mut W {
        &mut self.w
    }

    /// Write a header byte `wire << 5 | payload` with the inline/escape rule.
    #[inline]
    pub fn header(&mut self, wire: u8, value: u64) -> Result<&mut Self, Error> {
        let tag = (wire & 7) << 5;
        if value < ESCAPE as u64 {
            self.w.write_byte(tag | value as u8)?;
            return Ok(self);
        }
        let mut buf = [0u8; 11];
        let n = {
            buf[0] = tag | ESCAPE;
            let mut v = [0u8; 10];
            let k = put_varint(value, &mut v);
            for (dst, src) in buf[1..].iter_mut().zip(v.iter().take(k)) {
                *dst = *src;
            }
            1 + k
        };
        self.w.write_all(&buf[..n])?;
        Ok(self)
    }

    /// `null` → `62`.
    #[inline]
    pub fn null(&mut self) -> Result<&mut Self, Error> {
        self.header(wire::DISCRETE, 2)
    }

    /// `false` → `60`, `true` → `61`.
    #[inline]
    pub fn bool(&mut self, v: bool) -> Result<&mut Self, Error> {
        self.header(wire::DISCRETE, v as u64)
    }

    /// Unsigned integer, wire 0.
    #[inline]
    pub fn u64(&mut self, v: u64) -> Result<&mut Self, Error> {
        self.header(wire::UINT, v)
    }

    /// Signed integer: `v >= 0` → wire 0, else wire 1 + magnitude
    /// (`i64::MIN` → 2^63).
    #[inline]
    pub fn i64(&mut self, v: i64) -> Result<&mut Self, Error> {
        if v >= 0 {
            self.header(wire::UINT, v as u64)
        } else {
            self.header(wire::NEG, v.unsigned_abs())
        }
    }

    /// Float with the §1.5 rule (see [`classify_f64`]).
    pub fn f64(&mut self, v: f64) -> Result<&mut Self, Error> {
        match classify_f64(v) {
            FloatRepr::Uint(u) => self.header(wire::UINT, u),
            FloatRepr::Neg(m) => self.header(wire::NEG, m),
            FloatRepr::F32(f) => {
                let b = f.to_le_bytes();
                self.w.write_all(&[0x40, b[0], b[1], b[2], b[3]])?;
                Ok(self)
            }
            FloatRepr::F64(d) => {
                let b = d.to_le_bytes();
                self.w.write_all(&[0x41, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])?;
                Ok(self)
            }
        }
    }

    /// Widened to f64, then the same rule as [`Encoder::f64`].
    #[inline]
    pub fn f32(&mut self, v: f32) -> Result<&mut Self, Error> {
        self.f64(v as f64)
    }

    /// String: wire 4, byte length, raw UTF-8 bytes (embedded NULs kept).
    #[inline]
    pub fn str(&mut self, s: &str) -> Result<&mut Self, Error> {
        self.header(wire::STR, s.len() as u64)?;
        self.w.write_all(s.as_bytes())?;
        Ok(self)
    }

    /// Byte string: wire 5, length, raw bytes.
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) -> Result<&mut Self, Error> {
        self.header(wire::BYTES, b.len() as u64)?;
        self.w.write_all(b)?;
        Ok(self)
    }

    /// Map header (wire 6) with the number of key/value **pairs**.
    #[inline]
    pub fn map(&mut self, len_pairs: u64) -> Result<&mut Self, Error> {
        self.header(wire::MAP, len_pairs)
    }

    /// Array header (wire 7) with the number of elements.
    #[inline]
    pub fn array(&mut self, len: u64) -> Result<&mut Self, Error> {
        self.header(wire::ARRAY, len)
    }
}
