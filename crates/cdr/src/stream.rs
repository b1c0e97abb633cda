//! A streaming, schema-directed API: [`Writer`] and [`Reader`] walk the wire
//! format primitive by primitive (alignment, byte order, DHEADERs, optional
//! headers handled for you) without building a [`crate::Value`] tree. Use it
//! when your own data model drives the layout, e.g. a codec adapter over
//! another value type. The rules are the same code as [`crate::encode`] /
//! [`crate::decode`].
//!
//! ```
//! use cdr::{Encoding, Header, Reader, Representation, Writer, Endian};
//! // @final struct { unsigned long seq; @optional string note; sequence<double> v; }
//! let mut out = Vec::new();
//! let header = Header { representation: Representation::Cdr2, endian: Endian::Little, options: [0, 0] };
//! let mut w = Writer::new(&mut out, header);
//! w.u32(7)?;
//! let m = w.begin_optional(1, true)?;
//! w.string("hi")?;
//! w.end_optional(m)?;
//! let s = w.begin_sequence(2, true)?;
//! w.f64(0.5)?;
//! w.f64(1.5)?;
//! w.end_sequence(s)?;
//! w.finish(false);
//!
//! let mut r = Reader::new(&out)?;
//! assert_eq!(r.u32()?, 7);
//! let m = r.begin_optional()?.expect("present");
//! assert_eq!(r.string()?, "hi");
//! r.end_optional(m);
//! let (n, s) = r.begin_sequence(true, 8)?;
//! assert_eq!((n, r.f64()?, r.f64()?), (2, 0.5, 1.5));
//! r.end_sequence(s);
//! r.finish()?;
//! # Ok::<(), cdr::Error>(())
//! ```

use alloc::vec::Vec;

use crate::decode::{Dec, Limits, Param};
use crate::encode::{Enc, VecSink, PID_EXTENDED_MU};
use crate::error::{Error, ErrorKind};
use crate::header::{Encoding, Header};

/// A position saved by a `begin_*` call, to pass to the matching `end_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct Mark {
    slot: Option<(usize, usize)>,
    origin: usize,
}

/// Writes CDR into a `Vec`, appending.
pub struct Writer<'a> {
    enc: Enc<VecSink<'a>>,
    header: bool,
}

impl core::fmt::Debug for Writer<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Writer").field("len", &self.len()).field("xcdr2", &self.enc.v2).finish()
    }
}

macro_rules! w_prim {
    ($name:ident, $t:ty, $conv:expr, $m:ident) => {
        #[doc = concat!("Write a `", stringify!($t), "` (aligned).")]
        #[inline]
        pub fn $name(&mut self, v: $t) -> Result<(), Error> {
            #[allow(clippy::redundant_closure_call)]
            self.enc.$m(($conv)(v))
        }
    };
}

impl<'a> Writer<'a> {
    /// Append `header`, then write the body in its encoding.
    pub fn new(out: &'a mut Vec<u8>, header: Header) -> Writer<'a> {
        let base = out.len();
        out.extend_from_slice(&header.to_bytes());
        Writer { enc: Enc::new(VecSink { buf: out, base }, header.encoding(), 4, usize::MAX), header: true }
    }

    /// A bare body (no header; alignment from the first byte written).
    pub fn headerless(out: &'a mut Vec<u8>, encoding: Encoding) -> Writer<'a> {
        let base = out.len();
        Writer { enc: Enc::new(VecSink { buf: out, base }, encoding, 0, usize::MAX), header: false }
    }

    /// Bytes written so far (header included).
    pub fn len(&self) -> usize {
        use crate::encode::Sink;
        self.enc.sink.pos()
    }

    /// Nothing written yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    w_prim!(bool, bool, |v: bool| v as u8, u8);
    w_prim!(u8, u8, |v| v, u8);
    w_prim!(i8, i8, |v: i8| v as u8, u8);
    w_prim!(u16, u16, |v| v, u16);
    w_prim!(i16, i16, |v: i16| v as u16, u16);
    w_prim!(u32, u32, |v| v, u32);
    w_prim!(i32, i32, |v: i32| v as u32, u32);
    w_prim!(u64, u64, |v| v, u64);
    w_prim!(i64, i64, |v: i64| v as u64, u64);
    w_prim!(f32, f32, |v: f32| v.to_bits(), u32);
    w_prim!(f64, f64, |v: f64| v.to_bits(), u64);

    /// Write a `string` (length with the NUL, bytes, NUL).
    pub fn string(&mut self, s: &str) -> Result<(), Error> {
        self.enc.align(4)?;
        self.enc.string(s.as_bytes(), None)
    }

    /// Write a `sequence<octet>`.
    pub fn octets(&mut self, b: &[u8]) -> Result<(), Error> {
        use crate::encode::Sink;
        let n = u32::try_from(b.len()).map_err(|_| self.enc.err(ErrorKind::OutOfRange))?;
        self.enc.u32(n)?;
        self.enc.sink.put(b)
    }

    /// Start a sequence of `count` elements: its DHEADER (XCDR2, when the
    /// elements are not primitive) and its count. Write the elements, then
    /// call [`Writer::end_sequence`].
    pub fn begin_sequence(&mut self, count: usize, primitive_elements: bool) -> Result<Mark, Error> {
        let n = u32::try_from(count).map_err(|_| self.enc.err(ErrorKind::OutOfRange))?;
        let slot = if self.enc.v2 && !primitive_elements { Some(self.enc.open()?) } else { None };
        self.enc.u32(n)?;
        Ok(Mark { slot, origin: self.enc.origin })
    }

    /// Finish a sequence (fills its DHEADER).
    pub fn end_sequence(&mut self, m: Mark) -> Result<(), Error> {
        match m.slot {
            Some(s) => self.enc.close(s),
            None => Ok(()),
        }
    }

    /// Start an appendable struct's body (XCDR2: a DHEADER; XCDR1: nothing).
    pub fn begin_appendable(&mut self) -> Result<Mark, Error> {
        let slot = if self.enc.v2 { Some(self.enc.open()?) } else { None };
        Ok(Mark { slot, origin: self.enc.origin })
    }

    /// Finish an appendable struct's body.
    pub fn end_appendable(&mut self, m: Mark) -> Result<(), Error> {
        self.end_sequence(m)
    }

    /// Start an `@optional` member of a final or appendable struct: XCDR2 a
    /// presence byte, XCDR1 an extended parameter header with `member_id`.
    /// When `present`, write the value next; in either case call
    /// [`Writer::end_optional`].
    pub fn begin_optional(&mut self, member_id: u32, present: bool) -> Result<Mark, Error> {
        if self.enc.v2 {
            self.enc.u8(present as u8)?;
            return Ok(Mark { slot: None, origin: self.enc.origin });
        }
        self.enc.align(4)?;
        self.enc.u16(PID_EXTENDED_MU)?;
        self.enc.u16(8)?;
        self.enc.u32(member_id & 0x0fff_ffff)?;
        let slot = self.enc.open()?;
        let m = Mark { slot: Some(slot), origin: self.enc.origin };
        if present {
            self.enc.origin = slot.1;
        }
        Ok(m)
    }

    /// Finish an optional member.
    pub fn end_optional(&mut self, m: Mark) -> Result<(), Error> {
        self.enc.origin = m.origin;
        self.end_sequence(m)
    }

    /// Finish: pad to a multiple of 4 and record it in the header when
    /// `pad_to_4` (only with a header). Returns the bytes written.
    pub fn finish(self, pad_to_4: bool) -> usize {
        let VecSink { buf, base } = self.enc.sink;
        if pad_to_4 && self.header && buf.len() >= base + 4 {
            let body = buf.len() - base - 4;
            let pad = (4 - body % 4) % 4;
            buf.resize(buf.len() + pad, 0);
            buf[base + 3] |= pad as u8;
        }
        buf.len() - base
    }
}

/// Reads CDR from a byte slice, borrowing strings and octet sequences.
pub struct Reader<'a> {
    dec: Dec<'a>,
}

impl core::fmt::Debug for Reader<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Reader").field("pos", &self.dec.pos).field("xcdr2", &self.dec.v2).finish()
    }
}

macro_rules! r_prim {
    ($name:ident, $t:ty, $m:ident, $conv:expr) => {
        #[doc = concat!("Read a `", stringify!($t), "` (aligned).")]
        #[inline]
        pub fn $name(&mut self) -> Result<$t, Error> {
            #[allow(clippy::redundant_closure_call)]
            Ok(($conv)(self.dec.$m()?))
        }
    };
}

impl<'a> Reader<'a> {
    /// Read the header; the body's encoding comes from it, and its
    /// `options & 3` trailing padding is excluded.
    pub fn new(bytes: &'a [u8]) -> Result<Reader<'a>, Error> {
        let h = Header::parse(bytes)?;
        let body_end =
            bytes.len().checked_sub(h.padding()).filter(|&e| e >= 4).ok_or(Error::new(ErrorKind::InvalidHeader, 3))?;
        Ok(Reader::make(bytes, h.encoding(), 4, body_end))
    }

    /// A bare body in `encoding`.
    pub fn headerless(bytes: &'a [u8], encoding: Encoding) -> Reader<'a> {
        Reader::make(bytes, encoding, 0, bytes.len())
    }

    fn make(buf: &'a [u8], enc: Encoding, start: usize, body_end: usize) -> Reader<'a> {
        Reader {
            dec: Dec {
                buf,
                pos: start,
                end: body_end,
                body_end,
                origin: start,
                be: enc.is_be(),
                v2: enc.is_v2(),
                depth: 0,
                limits: Limits::default(),
            },
        }
    }

    /// The encoding of the body.
    pub fn encoding(&self) -> Encoding {
        use crate::header::{Endian, Version};
        Encoding {
            version: if self.dec.v2 { Version::Xcdr2 } else { Version::Xcdr1 },
            endian: if self.dec.be { Endian::Big } else { Endian::Little },
        }
    }

    /// The current offset in the input.
    pub fn position(&self) -> usize {
        self.dec.pos
    }

    /// Bytes left in the current region.
    pub fn remaining(&self) -> usize {
        self.dec.remaining()
    }

    /// Read a `boolean` (0 or 1).
    pub fn bool(&mut self) -> Result<bool, Error> {
        let at = self.dec.pos;
        match self.dec.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(Error::new(ErrorKind::InvalidBool, at)),
        }
    }

    r_prim!(u8, u8, u8, |v| v);
    r_prim!(i8, i8, u8, |v: u8| v as i8);
    r_prim!(u16, u16, u16, |v| v);
    r_prim!(i16, i16, u16, |v: u16| v as i16);
    r_prim!(u32, u32, u32, |v| v);
    r_prim!(i32, i32, u32, |v: u32| v as i32);
    r_prim!(u64, u64, u64, |v| v);
    r_prim!(i64, i64, u64, |v: u64| v as i64);
    r_prim!(f32, f32, u32, f32::from_bits);
    r_prim!(f64, f64, u64, f64::from_bits);

    /// Read a `string` (borrowed).
    pub fn string(&mut self) -> Result<&'a str, Error> {
        self.dec.align(4)?;
        let at = self.dec.pos;
        let n = self.dec.u32()? as usize;
        if n == 0 {
            return Err(Error::new(ErrorKind::InvalidString, at));
        }
        if n > self.dec.remaining() {
            return Err(self.dec.short());
        }
        let start = self.dec.pos;
        let bytes = self.dec.take(n)?;
        let (text, nul) = bytes.split_at(n - 1);
        if nul != [0] {
            return Err(Error::new(ErrorKind::InvalidString, start + n - 1));
        }
        core::str::from_utf8(text).map_err(|e| Error::new(ErrorKind::InvalidUtf8, start + e.valid_up_to()))
    }

    /// Read a `sequence<octet>` (borrowed).
    pub fn octets(&mut self) -> Result<&'a [u8], Error> {
        let at = self.dec.pos;
        let n = self.dec.u32()? as usize;
        if n > self.dec.remaining() {
            return Err(Error::new(ErrorKind::LengthLimit, at));
        }
        self.dec.take(n)
    }

    /// Start a sequence: its DHEADER (XCDR2, non-primitive elements) and
    /// count. The count is checked against the remaining bytes
    /// (`min_element_size` each, at least 1) before it is returned, so it is
    /// safe to allocate. Read the elements, then call [`Reader::end_sequence`].
    pub fn begin_sequence(
        &mut self,
        primitive_elements: bool,
        min_element_size: usize,
    ) -> Result<(usize, Mark), Error> {
        self.dec.align(4)?;
        let saved = if self.dec.v2 && !primitive_elements { Some(self.dec.dheader()?) } else { None };
        let at = self.dec.pos;
        let n = self.dec.u32()? as usize;
        let fits = n.checked_mul(min_element_size.max(1)).is_some_and(|need| need <= self.dec.remaining());
        if !fits {
            return Err(Error::new(ErrorKind::LengthLimit, at));
        }
        Ok((n, Mark { slot: saved.map(|s| (s, 0)), origin: self.dec.origin }))
    }

    /// Finish a sequence (skips to the end of its DHEADER region).
    pub fn end_sequence(&mut self, m: Mark) {
        if let Some((saved, _)) = m.slot {
            self.dec.leave_region(saved);
        }
    }

    /// Start an appendable struct's body. Members may end early (an older
    /// writer): check [`Reader::remaining`] before each.
    pub fn begin_appendable(&mut self) -> Result<Mark, Error> {
        let saved = if self.dec.v2 { Some(self.dec.dheader()?) } else { None };
        Ok(Mark { slot: saved.map(|s| (s, 0)), origin: self.dec.origin })
    }

    /// Finish an appendable struct's body.
    pub fn end_appendable(&mut self, m: Mark) {
        self.end_sequence(m)
    }

    /// Start an `@optional` member: `None` when absent, else read the value
    /// and call [`Reader::end_optional`].
    pub fn begin_optional(&mut self) -> Result<Option<Mark>, Error> {
        if self.dec.v2 {
            let at = self.dec.pos;
            return match self.dec.u8()? {
                0 => Ok(None),
                1 => Ok(Some(Mark { slot: None, origin: self.dec.origin })),
                _ => Err(Error::new(ErrorKind::InvalidBool, at)),
            };
        }
        let at = self.dec.pos;
        let Param::Member { len, .. } = self.dec.param_header()? else {
            return Err(Error::new(ErrorKind::InvalidParameter, at));
        };
        if len == 0 {
            return Ok(None);
        }
        let saved = self.dec.enter_region(len, at)?;
        let m = Mark { slot: Some((saved, 0)), origin: self.dec.origin };
        self.dec.origin = self.dec.pos;
        Ok(Some(m))
    }

    /// Finish a present optional member.
    pub fn end_optional(&mut self, m: Mark) {
        self.dec.origin = m.origin;
        self.end_sequence(m)
    }

    /// Check that the whole body was read.
    pub fn finish(self) -> Result<(), Error> {
        if self.dec.pos != self.dec.body_end {
            return Err(Error::new(ErrorKind::TrailingBytes, self.dec.pos));
        }
        Ok(())
    }
}
