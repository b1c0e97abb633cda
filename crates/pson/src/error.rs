//! Error type shared by the PSON v2 and Protoson v1 codecs.

use core::fmt;

/// What went wrong. The snake_case [`ErrorKind::name`] strings are shared
/// with the C and Python ports and must not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input ended where more bytes were required. The offset is the
    /// position where the missing data should start (i.e. the input length).
    UnexpectedEnd,
    /// A varint needs an 11th byte. Offset = position of that 11th byte.
    VarintTooLong,
    /// Wire type 2 (floating) with a payload other than 0 (f32) or 1 (f64).
    InvalidFloatWidth,
    /// Wire type 3 (discrete) with a payload other than 0, 1, 2.
    InvalidDiscrete,
    /// A map key item whose wire type is not 4 (string).
    NonStringKey,
    /// A negative integer whose magnitude exceeds 2^63 (does not fit `i64`).
    IntegerOverflow,
    /// A string or map key is not valid UTF-8. Offset = first invalid byte.
    InvalidUtf8,
    /// Containers nested deeper than [`crate::Limits::max_depth`].
    DepthLimit,
    /// A container's declared element count cannot possibly fit in the
    /// remaining input (checked before anything is allocated).
    LengthLimit,
    /// A [`crate::SliceWriter`] ran out of room.
    BufferTooSmall,
    /// [`crate::decode_exact`]: bytes left after the root item.
    TrailingBytes,
    /// Protoson v1: a tag whose field type is unknown (> 15), or a
    /// field type / wire type combination this decoder does not accept.
    UnknownFieldType,
    /// Protoson v1: a child item runs past its container's declared byte length.
    LengthMismatch,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 13] = [
        ErrorKind::UnexpectedEnd,
        ErrorKind::VarintTooLong,
        ErrorKind::InvalidFloatWidth,
        ErrorKind::InvalidDiscrete,
        ErrorKind::NonStringKey,
        ErrorKind::IntegerOverflow,
        ErrorKind::InvalidUtf8,
        ErrorKind::DepthLimit,
        ErrorKind::LengthLimit,
        ErrorKind::BufferTooSmall,
        ErrorKind::TrailingBytes,
        ErrorKind::UnknownFieldType,
        ErrorKind::LengthMismatch,
    ];

    /// Stable snake_case name, shared with the other language ports.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEnd => "unexpected_end",
            ErrorKind::VarintTooLong => "varint_too_long",
            ErrorKind::InvalidFloatWidth => "invalid_float_width",
            ErrorKind::InvalidDiscrete => "invalid_discrete",
            ErrorKind::NonStringKey => "non_string_key",
            ErrorKind::IntegerOverflow => "integer_overflow",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::DepthLimit => "depth_limit",
            ErrorKind::LengthLimit => "length_limit",
            ErrorKind::BufferTooSmall => "buffer_too_small",
            ErrorKind::TrailingBytes => "trailing_bytes",
            ErrorKind::UnknownFieldType => "unknown_field_type",
            ErrorKind::LengthMismatch => "length_mismatch",
        }
    }

    /// Human-readable one-line description (without the offset).
    pub fn description(&self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEnd => "unexpected end of input",
            ErrorKind::VarintTooLong => "varint longer than 10 bytes",
            ErrorKind::InvalidFloatWidth => "invalid float width (payload is not 0 or 1)",
            ErrorKind::InvalidDiscrete => "invalid discrete value (not false/true/null)",
            ErrorKind::NonStringKey => "map key is not a string",
            ErrorKind::IntegerOverflow => "negative integer magnitude exceeds 2^63",
            ErrorKind::InvalidUtf8 => "invalid UTF-8 in string",
            ErrorKind::DepthLimit => "nesting depth limit exceeded",
            ErrorKind::LengthLimit => "declared count exceeds the remaining input",
            ErrorKind::BufferTooSmall => "output buffer too small",
            ErrorKind::TrailingBytes => "trailing bytes after the root item",
            ErrorKind::UnknownFieldType => "unknown protoson field type",
            ErrorKind::LengthMismatch => "item overruns its container's declared byte length",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// An error of one of these kinds with the byte offset (in the input, or in the output for
/// [`ErrorKind::BufferTooSmall`]) where the problem is.
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
