//! The parts the compact codecs share: a byte sink ([`Write`]) with a `Vec<u8>`, a fixed
//! buffer ([`SliceWriter`]) and a counting ([`Counter`]) implementation, and an error
//! ([`Error`]) that pairs a codec's own kind of error with the byte offset where it happened.
//!
//! Each codec keeps its own error kinds (their snake_case names are shared with its C and
//! Python ports) and implements [`Kind`] for them; `pson::Error` is `wire::Error<pson::ErrorKind>`,
//! and so on. `no_std` with `alloc`, no dependencies, no `unsafe`.
//!
//! ```
//! #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
//! enum MyKind { Full, Short }
//! impl wire::Kind for MyKind {
//!     const BUFFER_TOO_SMALL: Self = MyKind::Full;
//!     fn name(&self) -> &'static str { match self { MyKind::Full => "full", MyKind::Short => "short" } }
//!     fn description(&self) -> &'static str { match self { MyKind::Full => "buffer full", MyKind::Short => "too short" } }
//! }
//! use wire::Write;
//! let mut buf = [0u8; 2];
//! let mut w = wire::SliceWriter::new(&mut buf);
//! Write::<MyKind>::write_all(&mut w, b"ab").unwrap();
//! let e = Write::<MyKind>::write_byte(&mut w, b'c').unwrap_err();
//! assert_eq!(e.to_string(), "buffer full at byte 2");
//! ```

#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;

use alloc::vec::Vec;
use core::fmt;
use core::hash::Hash;

/// A codec's kinds of error.
pub trait Kind: Copy + fmt::Debug + Eq + Hash + 'static {
    /// The kind a full [`SliceWriter`] reports.
    const BUFFER_TOO_SMALL: Self;

    /// Stable snake_case name, shared with the codec's other language ports.
    fn name(&self) -> &'static str;

    /// Human-readable one-line description (without the offset).
    fn description(&self) -> &'static str;
}

/// An error of kind `K` at a byte offset: in the input when decoding, in the output when
/// encoding (where the codec says so).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Error<K> {
    /// What went wrong.
    pub kind: K,
    /// Where: the byte offset.
    pub offset: usize,
}

impl<K> Error<K> {
    /// Shorthand constructor.
    #[inline]
    pub const fn new(kind: K, offset: usize) -> Self {
        Error { kind, offset }
    }
}

impl<K: Kind> fmt::Display for Error<K> {
    /// One line, always ending with `at byte N`, e.g. `unexpected end of input at byte 3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.description(), self.offset)
    }
}

impl<K: Kind> core::error::Error for Error<K> {}

/// A byte sink. `write_all` either writes every byte or returns an error.
pub trait Write<K: Kind> {
    /// Append all of `bytes`.
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Error<K>>;

    /// Append one byte (the common case of a one-byte header; sinks may do it faster).
    #[inline]
    fn write_byte(&mut self, byte: u8) -> Result<(), Error<K>> {
        self.write_all(&[byte])
    }

    /// Append a one-byte header and a body (a short string or byte string), atomically where
    /// the sink can: on a full [`SliceWriter`] nothing is written.
    #[inline]
    fn write_prefixed(&mut self, header: u8, body: &[u8]) -> Result<(), Error<K>> {
        self.write_byte(header)?;
        self.write_all(body)
    }

    /// Append the low `n` bytes of `word` in little-endian order (`n` at most 16): a header
    /// with its varint or float body assembled in a register. A `Vec` stores all 16 bytes
    /// at once and keeps `n` of them.
    #[inline]
    fn write_le(&mut self, word: u128, n: usize) -> Result<(), Error<K>> {
        let bytes = word.to_le_bytes();
        self.write_all(&bytes[..n.min(16)])
    }
}

impl<K: Kind> Write<K> for Vec<u8> {
    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Error<K>> {
        self.extend_from_slice(bytes);
        Ok(())
    }

    #[inline]
    fn write_byte(&mut self, byte: u8) -> Result<(), Error<K>> {
        self.push(byte);
        Ok(())
    }

    #[inline]
    fn write_prefixed(&mut self, header: u8, body: &[u8]) -> Result<(), Error<K>> {
        self.reserve(body.len() + 1);
        self.push(header);
        self.extend_from_slice(body);
        Ok(())
    }

    #[inline]
    fn write_le(&mut self, word: u128, n: usize) -> Result<(), Error<K>> {
        // One capacity check and one 16-byte store; the bytes past `n` are dropped again.
        let len = self.len();
        self.extend_from_slice(&word.to_le_bytes());
        self.truncate(len + n.min(16));
        Ok(())
    }
}

impl<K: Kind, W: Write<K> + ?Sized> Write<K> for &mut W {
    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Error<K>> {
        (**self).write_all(bytes)
    }

    #[inline]
    fn write_byte(&mut self, byte: u8) -> Result<(), Error<K>> {
        (**self).write_byte(byte)
    }

    #[inline]
    fn write_prefixed(&mut self, header: u8, body: &[u8]) -> Result<(), Error<K>> {
        (**self).write_prefixed(header, body)
    }

    #[inline]
    fn write_le(&mut self, word: u128, n: usize) -> Result<(), Error<K>> {
        (**self).write_le(word, n)
    }
}

/// Writes into a fixed, caller-provided buffer.
///
/// A write that does not fit fails with the codec's [`Kind::BUFFER_TOO_SMALL`] at the
/// current [`position`](SliceWriter::position) and writes nothing.
#[derive(Debug)]
pub struct SliceWriter<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> SliceWriter<'a> {
    /// Start writing at the beginning of `buf`.
    #[inline]
    pub fn new(buf: &'a mut [u8]) -> Self {
        SliceWriter { buf, pos: 0 }
    }

    /// Number of bytes written so far.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes still free.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// The bytes written so far.
    #[inline]
    pub fn written(&self) -> &[u8] {
        self.buf.get(..self.pos).unwrap_or(&[])
    }

    /// Give back the written prefix of the buffer.
    #[inline]
    pub fn into_written(self) -> &'a mut [u8] {
        let pos = self.pos;
        let buf = self.buf;
        let len = buf.len();
        let (head, _) = buf.split_at_mut(pos.min(len));
        head
    }
}

impl<K: Kind> Write<K> for SliceWriter<'_> {
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Error<K>> {
        let too_small = Error::new(K::BUFFER_TOO_SMALL, self.pos);
        let end = self.pos.checked_add(bytes.len()).ok_or(too_small)?;
        let dst = self.buf.get_mut(self.pos..end).ok_or(too_small)?;
        dst.copy_from_slice(bytes);
        self.pos = end;
        Ok(())
    }
}

/// A sink that only counts the bytes it is given (for sizing passes).
#[derive(Debug, Default, Clone, Copy)]
pub struct Counter(pub usize);

impl<K: Kind> Write<K> for Counter {
    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Error<K>> {
        self.0 = self.0.saturating_add(bytes.len());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    enum K {
        Full,
    }

    impl Kind for K {
        const BUFFER_TOO_SMALL: Self = K::Full;
        fn name(&self) -> &'static str {
            "full"
        }
        fn description(&self) -> &'static str {
            "output buffer too small"
        }
    }

    fn all<W: Write<K>>(mut w: W) -> Result<(), Error<K>> {
        w.write_byte(1)?;
        w.write_prefixed(2, b"xy")?;
        w.write_le(0x0605_0403, 3)?;
        w.write_all(b"z")
    }

    #[test]
    fn every_sink_writes_the_same_bytes() {
        let mut v = Vec::new();
        all(&mut v).unwrap();
        assert_eq!(v, [1, 2, b'x', b'y', 3, 4, 5, b'z']);
        let mut buf = [0u8; 8];
        let mut s = SliceWriter::new(&mut buf);
        all(&mut s).unwrap();
        assert_eq!(s.written(), &v[..]);
        assert_eq!(s.remaining(), 0);
        let mut c = Counter(0);
        all(&mut c).unwrap();
        assert_eq!(c.0, v.len());
    }

    #[test]
    fn a_full_slice_writes_nothing_and_names_the_offset() {
        let mut buf = [0u8; 3];
        let mut s = SliceWriter::new(&mut buf);
        Write::<K>::write_all(&mut s, b"ab").unwrap();
        let e = Write::<K>::write_all(&mut s, b"cd").unwrap_err();
        assert_eq!(e, Error::new(K::Full, 2));
        assert_eq!(e.to_string(), "output buffer too small at byte 2");
        assert_eq!(s.position(), 2);
        assert_eq!(s.into_written(), b"ab");
        assert_eq!(e.kind.name(), "full");
    }
}
