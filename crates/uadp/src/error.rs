//! Error type shared by the UADP decoder, the encoder and the JSON mapping.

use core::fmt;

/// What went wrong. The snake_case [`ErrorKind::name`] strings are shared
/// with the C and Python ports and must not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input ended where more bytes were required. The offset is the
    /// position where the missing data should start (the input length).
    UnexpectedEnd,
    /// [`crate::decode_exact`]: bytes left after the NetworkMessage.
    TrailingBytes,
    /// UADPVersion (UADPFlags bits 0-3) is not 1.
    UnsupportedVersion,
    /// ExtendedFlags1 PublisherId type 101, 110 or 111 (reserved).
    ReservedPublisherIdType,
    /// A reserved flag bit is set (ExtendedFlags2 bits 5-7, GroupFlags bits 4-7,
    /// DataSetFlags2 bits 6-7, DataValue EncodingMask bits 6-7).
    ReservedFlags,
    /// ExtendedFlags2 Chunk bit: chunked NetworkMessages are not supported.
    ChunkUnsupported,
    /// ExtendedFlags1 Security bit: signed/encrypted NetworkMessages are not supported.
    SecurityUnsupported,
    /// ExtendedFlags2 NetworkMessage type other than DataSetMessage payload (discovery).
    UnsupportedNetworkMessageType,
    /// PayloadHeader Count of 0, or a message list that does not match the header
    /// (encoder: DataSetWriterIds vs. messages, more than 255 messages, none at all).
    InvalidCount,
    /// A DataSetMessage (or the PromotedFields) does not fill the size given for it
    /// (Sizes array / PromotedFields size), or runs past it.
    SizeMismatch,
    /// DataSetFlags1 field encoding 11 (reserved); see [`crate::DecodeOptions::skip_unknown`].
    ReservedFieldEncoding,
    /// DataSetMessage type other than key frame, delta frame or keep-alive
    /// (event, action, reserved); see [`crate::DecodeOptions::skip_unknown`].
    UnsupportedMessageType,
    /// Variant EncodingMask with a built-in type id that does not exist (26-63), or an array of type 0.
    InvalidVariantType,
    /// A valid built-in type this crate does not implement (XmlElement, NodeId, ExpandedNodeId,
    /// QualifiedName, LocalizedText, ExtensionObject, DataValue, Variant, DiagnosticInfo).
    UnsupportedVariantType,
    /// Variant with ArrayDimensions (multi-dimensional arrays are not supported).
    UnsupportedArrayDimensions,
    /// A String/ByteString/array length below -1.
    InvalidLength,
    /// A declared count or length cannot fit in the remaining input, or exceeds a
    /// [`crate::Limits`] bound (checked before anything is allocated).
    LengthLimit,
    /// A String is not valid UTF-8. Offset = first byte of the string's content.
    InvalidUtf8,
    /// RawData needs DataSetMetaData (field types) and none was given for this
    /// DataSetMessage; also JSON delta frames / untyped JSON without field names or types.
    MissingMetadata,
    /// A [`crate::SliceWriter`] ran out of room.
    BufferTooSmall,
    /// Encoder: a value does not match its declared type (array element of another type,
    /// RawData field that is null or does not match the metadata).
    TypeMismatch,
    /// Encoder: a field that does not fit the DataSetMessage's field encoding
    /// (a DataValue under Variant/RawData encoding, or the reverse).
    FieldEncodingMismatch,
    /// Encoder: padding on a DataSetMessage that has no entry in a Sizes array
    /// (only messages in a NetworkMessage with Count > 1 can carry padding).
    InvalidPadding,
    /// JSON text is not well-formed JSON. Offset = byte in the text.
    JsonSyntax,
    /// JSON nested deeper than [`crate::json::MAX_DEPTH`].
    DepthLimit,
    /// A JSON member has the wrong JSON type or an out-of-range value
    /// (e.g. `"UaType":"x"`, a DataSetWriterId of 70000, a bad Guid or DateTime text).
    JsonValue,
    /// A JSON NetworkMessage carries something UADP cannot represent (a SequenceNumber
    /// above 65535, a Status with low 16 bits set), or a value the JSON mapping cannot
    /// write without loss.
    Unrepresentable,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 27] = [
        ErrorKind::UnexpectedEnd,
        ErrorKind::TrailingBytes,
        ErrorKind::UnsupportedVersion,
        ErrorKind::ReservedPublisherIdType,
        ErrorKind::ReservedFlags,
        ErrorKind::ChunkUnsupported,
        ErrorKind::SecurityUnsupported,
        ErrorKind::UnsupportedNetworkMessageType,
        ErrorKind::InvalidCount,
        ErrorKind::SizeMismatch,
        ErrorKind::ReservedFieldEncoding,
        ErrorKind::UnsupportedMessageType,
        ErrorKind::InvalidVariantType,
        ErrorKind::UnsupportedVariantType,
        ErrorKind::UnsupportedArrayDimensions,
        ErrorKind::InvalidLength,
        ErrorKind::LengthLimit,
        ErrorKind::InvalidUtf8,
        ErrorKind::MissingMetadata,
        ErrorKind::BufferTooSmall,
        ErrorKind::TypeMismatch,
        ErrorKind::FieldEncodingMismatch,
        ErrorKind::InvalidPadding,
        ErrorKind::JsonSyntax,
        ErrorKind::DepthLimit,
        ErrorKind::JsonValue,
        ErrorKind::Unrepresentable,
    ];

    /// Stable snake_case name, shared with the other language ports.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEnd => "unexpected_end",
            ErrorKind::TrailingBytes => "trailing_bytes",
            ErrorKind::UnsupportedVersion => "unsupported_version",
            ErrorKind::ReservedPublisherIdType => "reserved_publisher_id_type",
            ErrorKind::ReservedFlags => "reserved_flags",
            ErrorKind::ChunkUnsupported => "chunk_unsupported",
            ErrorKind::SecurityUnsupported => "security_unsupported",
            ErrorKind::UnsupportedNetworkMessageType => "unsupported_network_message_type",
            ErrorKind::InvalidCount => "invalid_count",
            ErrorKind::SizeMismatch => "size_mismatch",
            ErrorKind::ReservedFieldEncoding => "reserved_field_encoding",
            ErrorKind::UnsupportedMessageType => "unsupported_message_type",
            ErrorKind::InvalidVariantType => "invalid_variant_type",
            ErrorKind::UnsupportedVariantType => "unsupported_variant_type",
            ErrorKind::UnsupportedArrayDimensions => "unsupported_array_dimensions",
            ErrorKind::InvalidLength => "invalid_length",
            ErrorKind::LengthLimit => "length_limit",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::MissingMetadata => "missing_metadata",
            ErrorKind::BufferTooSmall => "buffer_too_small",
            ErrorKind::TypeMismatch => "type_mismatch",
            ErrorKind::FieldEncodingMismatch => "field_encoding_mismatch",
            ErrorKind::InvalidPadding => "invalid_padding",
            ErrorKind::JsonSyntax => "json_syntax",
            ErrorKind::DepthLimit => "depth_limit",
            ErrorKind::JsonValue => "json_value",
            ErrorKind::Unrepresentable => "unrepresentable",
        }
    }

    /// Look a kind up by its [`name`](ErrorKind::name).
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// Whether this kind means "a valid message using a feature this crate refuses"
    /// (chunking, security, discovery, unimplemented built-in types, multi-dimensional
    /// arrays, RawData without metadata) rather than a malformed message.
    pub fn is_unsupported(&self) -> bool {
        matches!(
            self,
            ErrorKind::ChunkUnsupported
                | ErrorKind::SecurityUnsupported
                | ErrorKind::UnsupportedNetworkMessageType
                | ErrorKind::UnsupportedVariantType
                | ErrorKind::UnsupportedArrayDimensions
                | ErrorKind::MissingMetadata
        )
    }

    /// Human-readable one-line description (without the offset).
    pub fn description(&self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEnd => "unexpected end of input",
            ErrorKind::TrailingBytes => "trailing bytes after the NetworkMessage",
            ErrorKind::UnsupportedVersion => "UADP version is not 1",
            ErrorKind::ReservedPublisherIdType => "reserved PublisherId type",
            ErrorKind::ReservedFlags => "reserved flag bit set",
            ErrorKind::ChunkUnsupported => "chunked NetworkMessages are not supported",
            ErrorKind::SecurityUnsupported => "secured NetworkMessages are not supported",
            ErrorKind::UnsupportedNetworkMessageType => {
                "NetworkMessage type is not a DataSetMessage payload (discovery is not supported)"
            }
            ErrorKind::InvalidCount => "invalid DataSetMessage count",
            ErrorKind::SizeMismatch => "DataSetMessage does not match its declared size",
            ErrorKind::ReservedFieldEncoding => "reserved DataSetMessage field encoding",
            ErrorKind::UnsupportedMessageType => "unsupported DataSetMessage type",
            ErrorKind::InvalidVariantType => "invalid Variant built-in type",
            ErrorKind::UnsupportedVariantType => "unsupported Variant built-in type",
            ErrorKind::UnsupportedArrayDimensions => "multi-dimensional arrays are not supported",
            ErrorKind::InvalidLength => "invalid negative length",
            ErrorKind::LengthLimit => "declared count or length exceeds the remaining input or a limit",
            ErrorKind::InvalidUtf8 => "invalid UTF-8 in string",
            ErrorKind::MissingMetadata => "DataSetMetaData needed and not given",
            ErrorKind::BufferTooSmall => "output buffer too small",
            ErrorKind::TypeMismatch => "value does not match its declared type",
            ErrorKind::FieldEncodingMismatch => "field does not match the DataSetMessage field encoding",
            ErrorKind::InvalidPadding => "padding on a DataSetMessage without a Sizes entry",
            ErrorKind::JsonSyntax => "invalid JSON",
            ErrorKind::DepthLimit => "JSON nesting depth limit exceeded",
            ErrorKind::JsonValue => "JSON member of the wrong type or out of range",
            ErrorKind::Unrepresentable => "value cannot be represented in the target encoding",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// An error of one of these kinds with the byte offset (in the input, or in the output for encoder
/// errors) where the problem is.
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
