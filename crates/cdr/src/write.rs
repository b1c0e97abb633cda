//! Byte sinks for the encoder: the shared ones of the `wire` crate.

use crate::error::ErrorKind;

pub use wire::SliceWriter;

/// A byte sink. `write_all` either writes every byte or returns an error.
///
/// CDR needs lengths (DHEADER, EMHEADER NEXTINT, parameter lengths) before
/// the data they measure; [`crate::encode_to`] therefore runs a sizing pass
/// first and then writes strictly forward, so any `Write` works, including a
/// fixed [`SliceWriter`]. Encoding into a `Vec<u8>` ([`crate::encode`],
/// [`crate::encode_append`]) patches lengths in place in one pass instead.
///
/// Any [`wire::Write`] for this crate's [`ErrorKind`]: a `Vec<u8>`, a [`SliceWriter`], a
/// `&mut` of either, or a sink of your own that implements `wire::Write<cdr::ErrorKind>`.
pub trait Write: wire::Write<ErrorKind> {}

impl<W: wire::Write<ErrorKind> + ?Sized> Write for W {}
