//! Byte sinks for the encoder: the shared ones of the `wire` crate.

use crate::error::ErrorKind;

pub(crate) use wire::Counter;
pub use wire::SliceWriter;

/// A byte sink. `write_all` either writes every byte or returns an error.
///
/// Any [`wire::Write`] for this crate's [`ErrorKind`]: a `Vec<u8>`, a [`SliceWriter`], a
/// `&mut` of either, or a sink of your own that implements `wire::Write<uadp::ErrorKind>`.
pub trait Write: wire::Write<ErrorKind> {}

impl<W: wire::Write<ErrorKind> + ?Sized> Write for W {}
