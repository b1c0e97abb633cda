//! The error type of the encoder and the decoder.

use core::fmt;

/// What went wrong. The snake_case [`ErrorKind::name`] strings are stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input (or the enclosing DHEADER / parameter body) ended where more
    /// bytes were required. Offset = where the missing data should start.
    UnexpectedEnd,
    /// Fewer than 4 bytes, or an encapsulation identifier this codec does not
    /// know (only CDR, PL_CDR, CDR2, D_CDR2 and PL_CDR2 in either byte order are).
    InvalidHeader,
    /// A boolean byte other than 0 or 1.
    InvalidBool,
    /// A string whose length is 0 (the length counts the terminating NUL) or
    /// whose last byte is not NUL.
    InvalidString,
    /// A string that is not valid UTF-8. Offset = first invalid byte.
    InvalidUtf8,
    /// An enum value that is not one of the type's enumerators.
    InvalidEnum,
    /// A string or sequence longer than its bound.
    BoundExceeded,
    /// A sequence's declared element count cannot possibly fit in the
    /// remaining input (checked before anything is allocated).
    LengthLimit,
    /// Types or values nested deeper than [`crate::Limits::max_depth`].
    DepthLimit,
    /// A member, element or parameter runs past the length its DHEADER,
    /// EMHEADER or parameter header declared, or a declared length is impossible.
    LengthMismatch,
    /// XCDR1 parameter list: an extended parameter header whose length is not 8.
    InvalidParameter,
    /// A mutable struct member with an unknown id and the must-understand flag.
    MustUnderstand,
    /// A mutable struct without one of its `@key` members.
    MissingKey,
    /// Bytes left after the value (beyond the `options & 3` padding).
    TrailingBytes,
    /// A [`crate::SliceWriter`] ran out of room.
    BufferTooSmall,
    /// Encoding: the value's variant does not fit the type (e.g. a string for a
    /// `long`, a struct with the wrong number of members, `Null` for a
    /// non-optional member, a union value for a discriminator that selects no member).
    TypeMismatch,
    /// Encoding: an integer, character or discriminator out of the type's range.
    OutOfRange,
    /// Encoding: an array value whose element count differs from the array's size.
    ArrayLength,
    /// The type description itself is unusable (e.g. a union discriminator that
    /// is not an integer, boolean, char or enum type).
    InvalidType,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 19] = [
        ErrorKind::UnexpectedEnd,
        ErrorKind::InvalidHeader,
        ErrorKind::InvalidBool,
        ErrorKind::InvalidString,
        ErrorKind::InvalidUtf8,
        ErrorKind::InvalidEnum,
        ErrorKind::BoundExceeded,
        ErrorKind::LengthLimit,
        ErrorKind::DepthLimit,
        ErrorKind::LengthMismatch,
        ErrorKind::InvalidParameter,
        ErrorKind::MustUnderstand,
        ErrorKind::MissingKey,
        ErrorKind::TrailingBytes,
        ErrorKind::BufferTooSmall,
        ErrorKind::TypeMismatch,
        ErrorKind::OutOfRange,
        ErrorKind::ArrayLength,
        ErrorKind::InvalidType,
    ];

    /// Stable snake_case name.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEnd => "unexpected_end",
            ErrorKind::InvalidHeader => "invalid_header",
            ErrorKind::InvalidBool => "invalid_bool",
            ErrorKind::InvalidString => "invalid_string",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::InvalidEnum => "invalid_enum",
            ErrorKind::BoundExceeded => "bound_exceeded",
            ErrorKind::LengthLimit => "length_limit",
            ErrorKind::DepthLimit => "depth_limit",
            ErrorKind::LengthMismatch => "length_mismatch",
            ErrorKind::InvalidParameter => "invalid_parameter",
            ErrorKind::MustUnderstand => "must_understand",
            ErrorKind::MissingKey => "missing_key",
            ErrorKind::TrailingBytes => "trailing_bytes",
            ErrorKind::BufferTooSmall => "buffer_too_small",
            ErrorKind::TypeMismatch => "type_mismatch",
            ErrorKind::OutOfRange => "out_of_range",
            ErrorKind::ArrayLength => "array_length",
            ErrorKind::InvalidType => "invalid_type",
        }
    }

    /// Human-readable one-line description (without the offset).
    pub fn description(&self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEnd => "unexpected end of input",
            ErrorKind::InvalidHeader => "invalid or unknown encapsulation header",
            ErrorKind::InvalidBool => "boolean byte is neither 0 nor 1",
            ErrorKind::InvalidString => "string length is 0 or the string is not NUL-terminated",
            ErrorKind::InvalidUtf8 => "invalid UTF-8 in string",
            ErrorKind::InvalidEnum => "value is not an enumerator of the enum type",
            ErrorKind::BoundExceeded => "string or sequence longer than its bound",
            ErrorKind::LengthLimit => "declared count exceeds the remaining input",
            ErrorKind::DepthLimit => "nesting depth limit exceeded",
            ErrorKind::LengthMismatch => "data runs past its declared length",
            ErrorKind::InvalidParameter => "invalid parameter list header",
            ErrorKind::MustUnderstand => "unknown member with the must-understand flag",
            ErrorKind::MissingKey => "key member missing from mutable struct",
            ErrorKind::TrailingBytes => "trailing bytes after the value",
            ErrorKind::BufferTooSmall => "output buffer too small",
            ErrorKind::TypeMismatch => "value does not match the type",
            ErrorKind::OutOfRange => "value out of the type's range",
            ErrorKind::ArrayLength => "array value has the wrong number of elements",
            ErrorKind::InvalidType => "invalid type description",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// An error of one of these kinds with the byte offset where the problem is: in the input for
/// decoding (counted from the first byte of the encapsulation header), in the
/// output for encoding.
///
/// The shared [`wire::Error`]: `Display` is one line ending with `at byte N`.
pub type Error = wire::Error<ErrorKind>;

impl wire::Kind for ErrorKind {
    const BUFFER_TOO_SMALL: Self = ErrorKind::BufferTooSmall;

    fn name(&self) -> &'static str {
        ErrorKind::name(self)
    }

    fn description(&self) -> &'static str {
        ErrorKind::description(self)
    }
}
