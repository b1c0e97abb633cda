//! The data model: plain structs and enums mirroring the wire (OPC 10000-14 §7.2.4,
//! built-in types from OPC 10000-6 §5.1/§5.2.2).
//!
//! Every optional header part is an `Option`; the encoder derives every flag byte
//! from what is present, so a model value always encodes to exactly one byte sequence.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// The built-in types this crate encodes (OPC 10000-6 Table 1 ids).
///
/// Ids 16-18 and 20-25 (XmlElement, NodeId, ExpandedNodeId, QualifiedName,
/// LocalizedText, ExtensionObject, DataValue, Variant, DiagnosticInfo) exist but are refused
/// with [`crate::ErrorKind::UnsupportedVariantType`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BuiltInType {
    Boolean = 1,
    SByte = 2,
    Byte = 3,
    Int16 = 4,
    UInt16 = 5,
    Int32 = 6,
    UInt32 = 7,
    Int64 = 8,
    UInt64 = 9,
    Float = 10,
    Double = 11,
    String = 12,
    DateTime = 13,
    Guid = 14,
    ByteString = 15,
    StatusCode = 19,
}

impl BuiltInType {
    /// Every supported type, by id.
    pub const ALL: [BuiltInType; 16] = [
        BuiltInType::Boolean,
        BuiltInType::SByte,
        BuiltInType::Byte,
        BuiltInType::Int16,
        BuiltInType::UInt16,
        BuiltInType::Int32,
        BuiltInType::UInt32,
        BuiltInType::Int64,
        BuiltInType::UInt64,
        BuiltInType::Float,
        BuiltInType::Double,
        BuiltInType::String,
        BuiltInType::DateTime,
        BuiltInType::Guid,
        BuiltInType::ByteString,
        BuiltInType::StatusCode,
    ];

    /// The built-in type id (the Variant EncodingMask bits 0-5, the JSON `UaType`).
    #[inline]
    pub fn id(self) -> u8 {
        self as u8
    }

    /// The supported type with this id.
    pub fn from_id(id: u8) -> Option<BuiltInType> {
        BuiltInType::ALL.iter().copied().find(|t| t.id() == id)
    }

    /// The type's name as in OPC 10000-6 Table 1 (`"Float"`, `"Int32"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            BuiltInType::Boolean => "Boolean",
            BuiltInType::SByte => "SByte",
            BuiltInType::Byte => "Byte",
            BuiltInType::Int16 => "Int16",
            BuiltInType::UInt16 => "UInt16",
            BuiltInType::Int32 => "Int32",
            BuiltInType::UInt32 => "UInt32",
            BuiltInType::Int64 => "Int64",
            BuiltInType::UInt64 => "UInt64",
            BuiltInType::Float => "Float",
            BuiltInType::Double => "Double",
            BuiltInType::String => "String",
            BuiltInType::DateTime => "DateTime",
            BuiltInType::Guid => "Guid",
            BuiltInType::ByteString => "ByteString",
            BuiltInType::StatusCode => "StatusCode",
        }
    }

    /// Look a type up by [`name`](BuiltInType::name).
    pub fn from_name(name: &str) -> Option<BuiltInType> {
        BuiltInType::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// The smallest binary encoding of one value of this type (length prefixes count 4).
    /// Used to reject array counts that cannot fit in the remaining input.
    pub fn min_encoded_len(self) -> usize {
        match self {
            BuiltInType::Boolean | BuiltInType::SByte | BuiltInType::Byte => 1,
            BuiltInType::Int16 | BuiltInType::UInt16 => 2,
            BuiltInType::Int32
            | BuiltInType::UInt32
            | BuiltInType::Float
            | BuiltInType::StatusCode
            | BuiltInType::String
            | BuiltInType::ByteString => 4,
            BuiltInType::Int64 | BuiltInType::UInt64 | BuiltInType::Double | BuiltInType::DateTime => 8,
            BuiltInType::Guid => 16,
        }
    }
}

impl fmt::Display for BuiltInType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Guid (OPC 10000-6 §5.2.2.7). On the wire: Data1 UInt32 LE, Data2 UInt16 LE,
/// Data3 UInt16 LE, Data4 8 bytes as written (so `eae79794-1af7-4f96-8401-…` is
/// `94 97 e7 ea f7 1a 96 4f 84 01 …`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Guid {
    pub data1: u32,
    pub data2: u16,
    pub data3: u16,
    pub data4: [u8; 8],
}

impl Guid {
    /// Parse the text form `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` (either case).
    pub fn parse(text: &str) -> Option<Guid> {
        let b = text.as_bytes();
        if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
            return None;
        }
        let hex = |range: core::ops::Range<usize>| -> Option<u64> {
            let mut v = 0u64;
            for &c in b.get(range)? {
                v = (v << 4) | (c as char).to_digit(16)? as u64;
            }
            Some(v)
        };
        let d4a = hex(19..23)?;
        let d4b = hex(24..36)?;
        let mut data4 = [0u8; 8];
        data4[0] = (d4a >> 8) as u8;
        data4[1] = d4a as u8;
        for (i, slot) in data4[2..].iter_mut().enumerate() {
            *slot = (d4b >> (40 - 8 * i)) as u8;
        }
        Some(Guid { data1: hex(0..8)? as u32, data2: hex(9..13)? as u16, data3: hex(14..18)? as u16, data4 })
    }

    /// The 16 wire bytes.
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[0..4].copy_from_slice(&self.data1.to_le_bytes());
        out[4..6].copy_from_slice(&self.data2.to_le_bytes());
        out[6..8].copy_from_slice(&self.data3.to_le_bytes());
        out[8..16].copy_from_slice(&self.data4);
        out
    }

    /// From the 16 wire bytes.
    pub fn from_bytes(b: &[u8; 16]) -> Guid {
        let mut data4 = [0u8; 8];
        data4.copy_from_slice(&b[8..16]);
        Guid {
            data1: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            data2: u16::from_le_bytes([b[4], b[5]]),
            data3: u16::from_le_bytes([b[6], b[7]]),
            data4,
        }
    }
}

impl fmt::Display for Guid {
    /// Upper-case text form, as open62541 writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.data4;
        write!(
            f,
            "{:08X}-{:04X}-{:04X}-{:02X}{:02X}-{:02X}{:02X}{:02X}{:02X}{:02X}{:02X}",
            self.data1, self.data2, self.data3, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]
        )
    }
}

/// A DateTime: signed count of 100 ns ticks since 1601-01-01T00:00:00Z (OPC 10000-6 §5.2.2.5).
/// Kept exactly as on the wire; see [`crate::time`] for the ISO 8601 text form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct DateTime(pub i64);

/// A StatusCode (UInt32; OPC 10000-4 §7.39). The top two bits are the severity
/// (00 Good, 01 Uncertain, 10 Bad).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StatusCode(pub u32);

impl StatusCode {
    pub const GOOD: StatusCode = StatusCode(0);
    pub const UNCERTAIN: StatusCode = StatusCode(0x4000_0000);
    pub const BAD: StatusCode = StatusCode(0x8000_0000);
}

/// One scalar value of a supported built-in type.
///
/// `String` and `ByteString` are nullable: `None` is the null value (length -1 on the wire),
/// distinct from the empty value.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    Boolean(bool),
    SByte(i8),
    Byte(u8),
    Int16(i16),
    UInt16(u16),
    Int32(i32),
    UInt32(u32),
    Int64(i64),
    UInt64(u64),
    Float(f32),
    Double(f64),
    String(Option<String>),
    DateTime(DateTime),
    Guid(Guid),
    ByteString(Option<Vec<u8>>),
    StatusCode(StatusCode),
}

impl Scalar {
    /// The built-in type of this value.
    pub fn built_in_type(&self) -> BuiltInType {
        match self {
            Scalar::Boolean(_) => BuiltInType::Boolean,
            Scalar::SByte(_) => BuiltInType::SByte,
            Scalar::Byte(_) => BuiltInType::Byte,
            Scalar::Int16(_) => BuiltInType::Int16,
            Scalar::UInt16(_) => BuiltInType::UInt16,
            Scalar::Int32(_) => BuiltInType::Int32,
            Scalar::UInt32(_) => BuiltInType::UInt32,
            Scalar::Int64(_) => BuiltInType::Int64,
            Scalar::UInt64(_) => BuiltInType::UInt64,
            Scalar::Float(_) => BuiltInType::Float,
            Scalar::Double(_) => BuiltInType::Double,
            Scalar::String(_) => BuiltInType::String,
            Scalar::DateTime(_) => BuiltInType::DateTime,
            Scalar::Guid(_) => BuiltInType::Guid,
            Scalar::ByteString(_) => BuiltInType::ByteString,
            Scalar::StatusCode(_) => BuiltInType::StatusCode,
        }
    }

    /// A non-null string value.
    pub fn string(s: impl Into<String>) -> Scalar {
        Scalar::String(Some(s.into()))
    }

    /// A non-null byte string value.
    pub fn bytes(b: impl Into<Vec<u8>>) -> Scalar {
        Scalar::ByteString(Some(b.into()))
    }
}

/// A Variant (OPC 10000-6 §5.2.2.16): null, a scalar, or a one-dimensional array of one
/// built-in type. Multi-dimensional arrays (ArrayDimensions) are refused.
///
/// ```text
/// EncodingMask Byte: bits 0-5 built-in type id, bit 6 ArrayDimensions present, bit 7 array
/// scalar:  EncodingMask, value
/// array:   EncodingMask | 0x80, Int32 length (-1 = null array), length × value
/// null:    0x00
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Variant {
    /// The empty Variant (EncodingMask 0).
    Null,
    Scalar(Scalar),
    /// A one-dimensional array; every item must be of type `ty`.
    Array {
        ty: BuiltInType,
        items: Vec<Scalar>,
    },
    /// An array whose length is -1 (null array).
    NullArray(BuiltInType),
}

impl Variant {
    /// The built-in type (None for [`Variant::Null`]).
    pub fn built_in_type(&self) -> Option<BuiltInType> {
        match self {
            Variant::Null => None,
            Variant::Scalar(s) => Some(s.built_in_type()),
            Variant::Array { ty, .. } | Variant::NullArray(ty) => Some(*ty),
        }
    }

    /// Whether this is an array (null array included).
    pub fn is_array(&self) -> bool {
        matches!(self, Variant::Array { .. } | Variant::NullArray(_))
    }
}

impl From<Scalar> for Variant {
    fn from(s: Scalar) -> Variant {
        Variant::Scalar(s)
    }
}

/// A DataValue (OPC 10000-6 §5.2.2.17).
///
/// ```text
/// EncodingMask Byte: 0x01 Value, 0x02 Status, 0x04 SourceTimestamp, 0x08 ServerTimestamp,
///                    0x10 SourcePicoseconds, 0x20 ServerPicoseconds (0x40, 0x80 reserved)
/// then, in this order and each only if its bit is set:
///   Value Variant, Status UInt32, SourceTimestamp DateTime, SourcePicoseconds UInt16,
///   ServerTimestamp DateTime, ServerPicoseconds UInt16
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DataValue {
    pub value: Option<Variant>,
    pub status: Option<StatusCode>,
    pub source_timestamp: Option<DateTime>,
    pub source_picoseconds: Option<u16>,
    pub server_timestamp: Option<DateTime>,
    pub server_picoseconds: Option<u16>,
}

impl DataValue {
    /// A DataValue holding only a value.
    pub fn of(value: impl Into<Variant>) -> DataValue {
        DataValue { value: Some(value.into()), ..DataValue::default() }
    }
}

/// The PublisherId and its type (ExtendedFlags1 bits 0-2: 000 Byte, 001 UInt16,
/// 010 UInt32, 011 UInt64, 100 String; 101-111 reserved).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PublisherId {
    Byte(u8),
    UInt16(u16),
    UInt32(u32),
    UInt64(u64),
    String(String),
}

impl PublisherId {
    /// The ExtendedFlags1 type bits.
    pub fn type_bits(&self) -> u8 {
        match self {
            PublisherId::Byte(_) => 0,
            PublisherId::UInt16(_) => 1,
            PublisherId::UInt32(_) => 2,
            PublisherId::UInt64(_) => 3,
            PublisherId::String(_) => 4,
        }
    }

    /// The type name (`"Byte"`, `"UInt16"`, `"UInt32"`, `"UInt64"`, `"String"`).
    pub fn type_name(&self) -> &'static str {
        match self {
            PublisherId::Byte(_) => "Byte",
            PublisherId::UInt16(_) => "UInt16",
            PublisherId::UInt32(_) => "UInt32",
            PublisherId::UInt64(_) => "UInt64",
            PublisherId::String(_) => "String",
        }
    }
}

/// The GroupHeader (§7.2.4.4.2). GroupFlags (bit 0 WriterGroupId, bit 1 GroupVersion,
/// bit 2 NetworkMessageNumber, bit 3 SequenceNumber) follow from which fields are present.
///
/// ```text
/// GroupFlags Byte | WriterGroupId UInt16 | GroupVersion UInt32 | NetworkMessageNumber UInt16 | SequenceNumber UInt16
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GroupHeader {
    pub writer_group_id: Option<u16>,
    pub group_version: Option<u32>,
    pub network_message_number: Option<u16>,
    pub sequence_number: Option<u16>,
}

/// DataSetFlags1 bits 1-2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FieldEncoding {
    /// 00: every field is a Variant (type byte + value).
    #[default]
    Variant,
    /// 01: bare values, types from DataSetMetaData; no FieldCount in key frames.
    RawData,
    /// 10: every field is a DataValue.
    DataValue,
    /// 11: reserved; only with [`Payload::Skipped`].
    Reserved,
}

impl FieldEncoding {
    /// The two DataSetFlags1 bits (0-3).
    pub fn bits(self) -> u8 {
        match self {
            FieldEncoding::Variant => 0,
            FieldEncoding::RawData => 1,
            FieldEncoding::DataValue => 2,
            FieldEncoding::Reserved => 3,
        }
    }

    /// `"Variant"`, `"RawData"`, `"DataValue"`, `"Reserved"`.
    pub fn name(self) -> &'static str {
        match self {
            FieldEncoding::Variant => "Variant",
            FieldEncoding::RawData => "RawData",
            FieldEncoding::DataValue => "DataValue",
            FieldEncoding::Reserved => "Reserved",
        }
    }
}

/// One DataSet field value: a Variant (Variant and RawData encodings) or a DataValue.
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    Variant(Variant),
    DataValue(DataValue),
}

impl From<Variant> for Field {
    fn from(v: Variant) -> Field {
        Field::Variant(v)
    }
}

impl From<Scalar> for Field {
    fn from(s: Scalar) -> Field {
        Field::Variant(Variant::Scalar(s))
    }
}

impl From<DataValue> for Field {
    fn from(d: DataValue) -> Field {
        Field::DataValue(d)
    }
}

/// A changed field of a delta frame: its index in the DataSet and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct DeltaField {
    pub index: u16,
    pub value: Field,
}

/// The DataSetMessage type (DataSetFlags2 bits 0-3) and its data.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// Type 0. `FieldCount UInt16` (not for RawData), then every field.
    KeyFrame(Vec<Field>),
    /// Type 1. `FieldCount UInt16`, then `(FieldIndex UInt16, value)` pairs.
    DeltaFrame(Vec<DeltaField>),
    /// Type 3. Header only.
    KeepAlive,
    /// A DataSetMessage this crate does not interpret (reserved field encoding, or type 2
    /// event, 4, 5/6 action, 7-15), kept as its bytes after the header. Only produced with
    /// [`crate::DecodeOptions::skip_unknown`]; Part 14 says to skip such messages.
    Skipped { message_type: u8, data: Vec<u8> },
}

impl Payload {
    /// DataSetFlags2 bits 0-3.
    pub fn type_bits(&self) -> u8 {
        match self {
            Payload::KeyFrame(_) => 0,
            Payload::DeltaFrame(_) => 1,
            Payload::KeepAlive => 3,
            Payload::Skipped { message_type, .. } => message_type & 0x0f,
        }
    }
}

/// A DataSetMessage (§7.2.4.5.4).
///
/// ```text
/// DataSetFlags1 Byte: bit 0 valid, bits 1-2 field encoding, bit 3 SequenceNumber,
///                     bit 4 Status, bit 5 ConfigVersion MajorVersion, bit 6 MinorVersion,
///                     bit 7 DataSetFlags2
/// DataSetFlags2 Byte (only when not 0): bits 0-3 type, bit 4 Timestamp, bit 5 PicoSeconds
/// SequenceNumber UInt16 | Timestamp DateTime | PicoSeconds UInt16 | Status UInt16 |
/// MajorVersion UInt32 | MinorVersion UInt32 | data (see Payload) | padding (zero bytes)
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DataSetMessage {
    /// DataSetFlags1 bit 0. A message with `valid == false` is not to be processed.
    pub valid: bool,
    pub field_encoding: FieldEncoding,
    pub sequence_number: Option<u16>,
    pub timestamp: Option<DateTime>,
    pub picoseconds: Option<u16>,
    /// The high-order 16 bits of a StatusCode.
    pub status: Option<u16>,
    pub config_version_major: Option<u32>,
    pub config_version_minor: Option<u32>,
    pub payload: Payload,
    /// Zero bytes after the data (ConfiguredSize padding). Only inside a NetworkMessage
    /// with a Sizes array (Count > 1); elsewhere it cannot be told from trailing bytes.
    pub padding: u16,
}

impl Default for DataSetMessage {
    fn default() -> Self {
        DataSetMessage {
            valid: true,
            field_encoding: FieldEncoding::Variant,
            sequence_number: None,
            timestamp: None,
            picoseconds: None,
            status: None,
            config_version_major: None,
            config_version_minor: None,
            payload: Payload::KeyFrame(Vec::new()),
            padding: 0,
        }
    }
}

impl DataSetMessage {
    /// A valid key frame of Variant fields with no optional header parts.
    pub fn variant_key_frame(fields: impl IntoIterator<Item = Variant>) -> DataSetMessage {
        DataSetMessage {
            payload: Payload::KeyFrame(fields.into_iter().map(Field::Variant).collect()),
            ..DataSetMessage::default()
        }
    }
}

/// A UADP NetworkMessage whose payload is DataSetMessages (§7.2.4.4).
///
/// ```text
/// UADPFlags Byte: bits 0-3 version (1), bit 4 PublisherId, bit 5 GroupHeader,
///                 bit 6 PayloadHeader, bit 7 ExtendedFlags1
/// ExtendedFlags1 Byte (only when not 0): bits 0-2 PublisherId type, bit 3 DataSetClassId,
///                 bit 4 Security, bit 5 Timestamp, bit 6 PicoSeconds, bit 7 ExtendedFlags2
/// ExtendedFlags2 Byte (only when not 0): bit 0 Chunk, bit 1 PromotedFields,
///                 bits 2-4 NetworkMessage type (000 DataSetMessage)
/// PublisherId | DataSetClassId Guid | GroupHeader | PayloadHeader (Count Byte,
/// DataSetWriterIds UInt16[Count]) | Timestamp DateTime | PicoSeconds UInt16 |
/// PromotedFields (Size UInt16 in bytes, Variants) | Sizes UInt16[Count] (only if Count > 1) |
/// DataSetMessages
/// ```
///
/// Security and chunking are refused ([`crate::ErrorKind::SecurityUnsupported`],
/// [`crate::ErrorKind::ChunkUnsupported`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NetworkMessage {
    pub publisher_id: Option<PublisherId>,
    pub data_set_class_id: Option<Guid>,
    pub group_header: Option<GroupHeader>,
    /// `Some` = PayloadHeader present with these DataSetWriterIds (one per message, 1-255);
    /// `None` = no PayloadHeader, exactly one DataSetMessage.
    pub data_set_writer_ids: Option<Vec<u16>>,
    pub timestamp: Option<DateTime>,
    pub picoseconds: Option<u16>,
    /// PromotedFields (ExtendedFlags2 bit 1), each a Variant.
    pub promoted_fields: Option<Vec<Variant>>,
    pub messages: Vec<DataSetMessage>,
}

/// Field description from DataSetMetaData (OPC 10000-14 §6.2.3.2): what RawData decoding
/// needs (type and scalar/array) and what the JSON mapping needs (the name).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FieldMetaData {
    pub name: String,
    pub built_in_type: BuiltInType,
    /// ValueRank 1 (one-dimensional array) instead of -1 (scalar).
    pub array: bool,
}

impl FieldMetaData {
    /// A scalar field.
    pub fn scalar(name: impl Into<String>, built_in_type: BuiltInType) -> FieldMetaData {
        FieldMetaData { name: name.into(), built_in_type, array: false }
    }
}

/// The fields of one DataSet (for one DataSetWriter, or for any writer when
/// `data_set_writer_id` is `None`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct DataSetMetaData {
    pub data_set_writer_id: Option<u16>,
    pub fields: Vec<FieldMetaData>,
}

impl DataSetMetaData {
    /// The metadata for `writer` in `list`: an exact writer id match first, else the
    /// first entry without a writer id.
    pub fn find(list: &[DataSetMetaData], writer: Option<u16>) -> Option<&DataSetMetaData> {
        if let Some(w) = writer {
            if let Some(m) = list.iter().find(|m| m.data_set_writer_id == Some(w)) {
                return Some(m);
            }
        }
        list.iter().find(|m| m.data_set_writer_id.is_none())
    }
}
