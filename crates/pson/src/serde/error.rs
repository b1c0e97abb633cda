//! The error of the serde layer: one boxed code, with the byte offset of a decode error.

use alloc::boxed::Box;
use alloc::string::{String, ToString};
use core::fmt;

use ::serde::{de, ser};

use crate::ErrorKind;

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
    /// writer failed when encoding (e.g. a full [`crate::SliceWriter`]).
    Pson(crate::Error),
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
    pub fn pson(&self) -> Option<crate::Error> {
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
    pub(super) fn pson_at(kind: ErrorKind, offset: usize) -> Error {
        Error(Box::new(ErrorCode::Pson(crate::Error::new(kind, offset))))
    }

    /// Attach `offset` in place to a message that does not have one yet.
    #[cold]
    #[inline(never)]
    pub(super) fn fix(&mut self, at: usize) {
        if let ErrorCode::Message(m) = &mut *self.0 {
            if m.offset.is_none() {
                m.offset = Some(at);
            }
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn msg_at(msg: String, offset: usize) -> Error {
        Error(Box::new(ErrorCode::Message(Message { msg, offset: Some(offset) })))
    }

    #[cold]
    #[inline(never)]
    pub(super) fn msg(msg: String) -> Error {
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
            // crate::Error's Display is one line ending in "at byte N".
            ErrorCode::Pson(e) => write!(f, "{e}"),
            ErrorCode::Message(m) => match m.offset {
                Some(o) => write!(f, "{} at byte {o}", m.msg),
                None => f.write_str(&m.msg),
            },
            ErrorCode::UnknownLength => {
                f.write_str("PSON needs the length of every sequence and map up front (serialized without a length)")
            }
        }
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match &*self.0 {
            ErrorCode::Pson(e) => Some(e),
            _ => None,
        }
    }
}

impl From<crate::Error> for Error {
    #[cold]
    #[inline(never)]
    fn from(e: crate::Error) -> Self {
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
