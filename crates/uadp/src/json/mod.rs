//! The JSON NetworkMessage mapping (OPC 10000-14 §7.2.5, v1.05; field values per
//! OPC 10000-6 §5.4), written and read by a small built-in JSON writer/reader
//! (no serde: the crate stays `no_std` + `alloc` with no dependencies).
//!
//! Two forms ([`JsonForm`]):
//!
//! * **Reversible** — the 1.05 typed form (Compact encoding, FieldEncoding1 = FieldEncoding2 = 1):
//!   a Variant field is `{"UaType":10,"Value":25.5}`, a DataValue field is flattened
//!   `{"UaType":10,"Value":25.5,"Status":{"Code":…},"SourceTimestamp":"…"}`, StatusCodes
//!   are `{"Code":n}`. This is what open62541 v1.5 reads and writes. Decoding needs no
//!   metadata except for delta frames (field names → indices), and JSON → UADP → JSON gives
//!   the same JSON.
//! * **NonReversible** — the untyped form (Verbose encoding in RawData mode; 1.04's
//!   non-reversible form): a Variant field is the bare value `25.5`, a DataValue field is
//!   `{"Value":25.5,"SourceTimestamp":"…"}` (the seed thesis's shape), StatusCodes are
//!   `{"Code":n,"Symbol":"…"}`. Decoding takes the field types from [`DataSetMetaData`]; without
//!   it they are guessed (JSON number → Double, string → String, …), which keeps the JSON
//!   text but not the UADP types.
//!
//! What UADP has and the JSON mapping has not (lost UADP → JSON): GroupHeader,
//! NetworkMessage Timestamp/PicoSeconds, PromotedFields, DataSetMessage PicoSeconds and
//! valid bit, Variant vs. DataValue vs. RawData field encoding (JSON reading picks DataValue
//! when a field has status or timestamps, else Variant), the PublisherId type (JSON has text),
//! Good (0) status codes, null arrays (written as `[]`). What JSON has and UADP has not
//! (kept in [`JsonMessage`] so the JSON can be written again): MessageId, field names, the
//! header layout. Members outside this mapping (DataSetWriterName, WriterGroupName, …) are
//! ignored when reading.

use alloc::string::String;
use alloc::vec::Vec;

use crate::model::*;

mod base64;
mod read;
mod text;
mod write;

pub use base64::{base64_decode, base64_encode};
pub use read::from_json;
pub use write::{status_symbol, to_json};

/// Deepest JSON nesting the reader accepts.
pub const MAX_DEPTH: usize = 64;

/// Typed (reversible) or untyped (non-reversible) field values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JsonForm {
    #[default]
    Reversible,
    NonReversible,
}

/// How to write a NetworkMessage as JSON (the JsonNetworkMessageContentMask /
/// JsonDataSetMessageContentMask choices this mapping supports).
#[derive(Debug, Clone, Copy)]
pub struct JsonOptions<'a> {
    pub form: JsonForm,
    /// `MessageId` (UADP has none; Part 14 wants a globally unique string).
    pub message_id: &'a str,
    /// Field names (per DataSetWriterId, see [`DataSetMetaData::find`]); a field without a
    /// name is written as `"Field<i>"`.
    pub metadata: &'a [DataSetMetaData],
    /// Write the NetworkMessage object (`MessageId`, `MessageType`, `PublisherId`,
    /// `DataSetClassId`, `Messages`); without it the text is the DataSetMessage(s).
    pub network_message_header: bool,
    /// Write DataSetMessage headers; without them each DataSetMessage is its Payload object.
    pub data_set_message_header: bool,
    /// `Messages` (or the whole text) is one DataSetMessage object instead of an array.
    pub single_data_set_message: bool,
    /// Write `"MessageType":"ua-keyframe"` etc. in each DataSetMessage.
    pub message_type: bool,
}

impl Default for JsonOptions<'_> {
    fn default() -> Self {
        JsonOptions {
            form: JsonForm::Reversible,
            message_id: "",
            metadata: &[],
            network_message_header: true,
            data_set_message_header: true,
            single_data_set_message: false,
            message_type: true,
        }
    }
}

/// How to read JSON.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonDecodeOptions<'a> {
    /// Field names and types: needed for delta frames and for typed reading of untyped values.
    pub metadata: &'a [DataSetMetaData],
    /// The PublisherId type to read the `PublisherId` text as (JSON carries only text;
    /// Part 14 leaves the type to configuration). `None`: digits that fit in 64 bits (no
    /// leading zero) are a UInt64 PublisherId, as open62541 reads them; other text a String.
    /// A text that does not parse as the given numeric type is an error.
    pub publisher_id_type: Option<BuiltInType>,
}

/// A NetworkMessage read from JSON, with what JSON has and UADP has not.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonMessage {
    pub message: NetworkMessage,
    pub message_id: Option<String>,
    /// NonReversible if any field value was untyped.
    pub form: JsonForm,
    pub network_message_header: bool,
    pub data_set_message_header: bool,
    pub single_data_set_message: bool,
    pub message_type: bool,
    /// Per DataSetMessage: its writer id and its fields' names and types.
    pub metadata: Vec<DataSetMetaData>,
}

impl JsonMessage {
    /// The options that write this message back as the same JSON.
    pub fn options(&self) -> JsonOptions<'_> {
        JsonOptions {
            form: self.form,
            message_id: self.message_id.as_deref().unwrap_or(""),
            metadata: &self.metadata,
            network_message_header: self.network_message_header,
            data_set_message_header: self.data_set_message_header,
            single_data_set_message: self.single_data_set_message,
            message_type: self.message_type,
        }
    }
}
