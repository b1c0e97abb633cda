//! Byte sinks for the encoders.

use crate::error::{Error, ErrorKind};
use alloc::vec::Vec;

/// A byte sink. `write_all` either writes every byte or returns an error.
pub trait Write {
    /// Append all of `bytes`.
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Error>;

    /// Append one byte (the common case of a one-byte header; sinks may do it faster).
    #[inline]
    fn write_byte(&mut self, byte: u8) -> Result<(), Error> {
        self.write_all(&[byte])
    }

    /// Append a one-byte header and a body (a short string or byte string), atomically where
    /// the sink can: on a full [`SliceWriter`] nothing is written.
    #[inline]
    fn write_prefixed(&mut self, header: u8, body: &[u8]) -> Result<(), Error> {
        self.write_byte(header)?;
        self.write_all(body)
    }

    /// Append the low `n` bytes of `word` in little-endian order (`n` at most 16): a header
    /// with its varint or float body assembled in a register. A `Vec` stores all 16 bytes
    /// at once and keeps `n` of them.
    #[inline]
    fn write_le(&mut self, word: u128, n: usize) -> Result<(), Error> {
        let bytes = word.to_le_bytes();
        self.write_all(&bytes[..n.min(16)])
    }
}

impl Write for Vec<u8> {
    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.extend_from_slice(bytes);
        Ok(())
    }

    #[inline]
    fn write_byte(&mut self, byte: u8) -> Result<(), Error> {
        self.push(byte);
        Ok(())
    }

    #[inline]
    fn write_prefixed(&mut self, header: u8, body: &[u8]) -> Result<(), Error> {
        self.reserve(body.len() + 1);
        self.push(header);
        self.extend_from_slice(body);
        Ok(())
    }

    #[inline]
    fn write_le(&mut self, word: u128, n: usize) -> Result<(), Error> {
        // One capacity check and one 16-byte store; the bytes past `n` are dropped again.
        let len = self.len();
        self.extend_from_slice(&word.to_le_bytes());
        self.truncate(len + n.min(16));
        Ok(())
    }
}

impl<W: Write + ?Sized> Write for &mut W {
    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Error> {
        (**self).write_all(bytes)
    }

    #[inline]
    fn write_byte(&mut self, byte: u8) -> Result<(), Error> {
        (**self).write_byte(byte)
    }

    #[inline]
    fn write_prefixed(&mut self, header: u8, body: &[u8]) -> Result<(), Error> {
        (**self).write_prefixed(header, body)
    }

    #[inline]
    fn write_le(&mut self, word: u128, n: usize) -> Result<(), Error> {
        (**self).write_le(word, n)
    }
}

/// Writes into a fixed, caller-provided buffer.
///
/// A write that does not fit fails with [`ErrorKind::BufferTooSmall`] at
/// the current [`position`](SliceWriter::position) and writes nothing.
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

impl Write for SliceWriter<'_> {
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let too_small = Error::new(ErrorKind::BufferTooSmall, self.pos);
        let end = self.pos.checked_add(bytes.len()).ok_or(too_small)?;
        let dst = self.buf.get_mut(self.pos..end).ok_or(too_small)?;
        dst.copy_from_slice(bytes);
        self.pos = end;
        Ok(())
    }
}
