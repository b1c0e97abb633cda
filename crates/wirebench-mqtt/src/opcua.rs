//! The OPC UA PubSub messages of the seed-000 study (a thesis publishing UADP and JSON
//! NetworkMessages from an ESP32 to Mosquitto), built with our `uadp` crate, and the thesis's
//! published figures as data with their citation.
//!
//! This file depends on nothing but `uadp` and `std`, so the open62541 differential test
//! (`crates/uadp-open62541/tests/study_messages.rs`) includes the very same source and checks
//! every UADP message the study sends.
//!
//! Formats ([`StudyFormat`]), for N fields (values cycle Float 25.5, Float 1013.25, Int32 42,
//! Float 60.5, Int32 -7, …, the thesis's first three):
//!
//! | id | what | bytes |
//! |---|---|---|
//! | `uadp` | the thesis's header options (UADPFlags 0xD1, ExtendedFlags1 0x0C, String PublisherId "ESP32-Bench", DataSetClassId, PayloadHeader writer 1000, Variant key frame) | 39 + 5N |
//! | `uadp-min` | smallest self-describing options: Byte PublisherId, PayloadHeader, Variant fields | 8 + 5N |
//! | `uadp-raw` | as `uadp-min` with RawData fields (the reader needs DataSetMetaData) | 6 + 4N |
//! | `uadp-json-rev` | JSON NetworkMessage, reversible (typed) field values | text |
//! | `uadp-json` | JSON NetworkMessage, non-reversible (bare values) | text |
//! | `uadp-json-dv` | JSON in the thesis's shape: non-reversible DataValues with SourceTimestamp, SequenceNumber, no DataSetClassId | text |

use uadp::json::{from_json, to_json, JsonDecodeOptions, JsonForm, JsonOptions};
use uadp::{
    decode_exact, to_vec, BuiltInType, DataSetMessage, DataSetMetaData, DataValue, DateTime, DecodeOptions, Field,
    FieldEncoding, FieldMetaData, Guid, NetworkMessage, Payload, PublisherId, Scalar, Variant,
};

/// The field counts of the thesis's size table.
pub const FIELD_COUNTS: [usize; 4] = [1, 3, 5, 10];
/// The thesis's PublisherId, DataSetClassId and DataSetWriterId.
pub const PUBLISHER_ID: &str = "ESP32-Bench";
pub const DATA_SET_CLASS_ID: &str = "eae79794-1af7-4f96-8401-4096cd1d8908";
pub const WRITER_ID: u16 = 1000;
/// The Byte PublisherId of the smallest layouts.
pub const MIN_PUBLISHER_ID: u8 = 1;
/// SourceTimestamp of the thesis's JSON example, "2000-01-01T00:00:15Z" (100 ns ticks since 1601).
pub const THESIS_SOURCE_TIMESTAMP: DateTime = DateTime(125_911_584_150_000_000);
/// The JSON `MessageId` of every study message (Part 14 wants a unique one; the size is what matters).
pub const MESSAGE_ID: &str = "ESP32-Bench-000001";

/// The field values: the thesis's three (25.5, 1013.25, 42), then values chosen here.
/// Every Float or Int32 Variant is 5 bytes, so sizes do not depend on the choice.
pub fn field_values(n: usize) -> Vec<Scalar> {
    let all = [
        Scalar::Float(25.5),
        Scalar::Float(1013.25),
        Scalar::Int32(42),
        Scalar::Float(60.5),
        Scalar::Int32(-7),
        Scalar::Float(3.25),
        Scalar::Float(-40.0),
        Scalar::Int32(100000),
        Scalar::Float(0.125),
        Scalar::Int32(0),
    ];
    all.iter().cycle().take(n).cloned().collect()
}

/// Field names in the thesis's style (`Val_F32_A`, `Val_F32_B`, `Val_I32_C`, …).
pub fn field_names(n: usize) -> Vec<String> {
    field_values(n)
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let t = if matches!(v, Scalar::Int32(_)) { "I32" } else { "F32" };
            let letter = (b'A' + (i % 26) as u8) as char;
            let suffix = if i >= 26 { format!("{}", i / 26) } else { String::new() };
            format!("Val_{t}_{letter}{suffix}")
        })
        .collect()
}

/// DataSetMetaData for the N fields (names and types), for writer 1000.
pub fn metadata(n: usize) -> DataSetMetaData {
    DataSetMetaData {
        data_set_writer_id: Some(WRITER_ID),
        fields: field_values(n)
            .iter()
            .zip(field_names(n))
            .map(|(v, name)| FieldMetaData::scalar(name, v.built_in_type()))
            .collect(),
    }
}

/// The thesis's layout: 39 + 5N bytes.
pub fn seed_message(n: usize) -> NetworkMessage {
    NetworkMessage {
        publisher_id: Some(PublisherId::String(PUBLISHER_ID.into())),
        data_set_class_id: Guid::parse(DATA_SET_CLASS_ID),
        data_set_writer_ids: Some(vec![WRITER_ID]),
        messages: vec![DataSetMessage::variant_key_frame(field_values(n).into_iter().map(Variant::Scalar))],
        ..NetworkMessage::default()
    }
}

/// Smallest self-describing options: Byte PublisherId, PayloadHeader, Variant fields (8 + 5N).
pub fn smallest_message(n: usize) -> NetworkMessage {
    NetworkMessage {
        publisher_id: Some(PublisherId::Byte(MIN_PUBLISHER_ID)),
        data_set_writer_ids: Some(vec![WRITER_ID]),
        messages: vec![DataSetMessage::variant_key_frame(field_values(n).into_iter().map(Variant::Scalar))],
        ..NetworkMessage::default()
    }
}

/// As [`smallest_message`] with RawData fields (6 + 4N; needs metadata to decode).
pub fn raw_message(n: usize) -> NetworkMessage {
    let mut m = smallest_message(n);
    m.messages[0].field_encoding = FieldEncoding::RawData;
    m
}

/// The thesis's JSON example as a message: String PublisherId, writer 1000, SequenceNumber 1,
/// DataValue fields carrying the thesis's SourceTimestamp (no DataSetClassId: the example has none).
pub fn data_value_message(n: usize) -> NetworkMessage {
    let mut m = seed_message(n);
    m.data_set_class_id = None;
    m.messages[0].sequence_number = Some(1);
    m.messages[0].field_encoding = FieldEncoding::DataValue;
    m.messages[0].payload = Payload::KeyFrame(
        field_values(n)
            .into_iter()
            .map(|v| {
                Field::DataValue(DataValue {
                    value: Some(Variant::Scalar(v)),
                    source_timestamp: Some(THESIS_SOURCE_TIMESTAMP),
                    ..DataValue::default()
                })
            })
            .collect(),
    );
    m
}

/// One way of putting the study's DataSet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StudyFormat {
    Uadp,
    UadpMin,
    UadpRaw,
    UadpJsonRev,
    UadpJson,
    UadpJsonDv,
}

impl StudyFormat {
    pub const ALL: [StudyFormat; 6] = [
        StudyFormat::Uadp,
        StudyFormat::UadpMin,
        StudyFormat::UadpRaw,
        StudyFormat::UadpJsonRev,
        StudyFormat::UadpJson,
        StudyFormat::UadpJsonDv,
    ];

    pub fn id(self) -> &'static str {
        match self {
            StudyFormat::Uadp => "uadp",
            StudyFormat::UadpMin => "uadp-min",
            StudyFormat::UadpRaw => "uadp-raw",
            StudyFormat::UadpJsonRev => "uadp-json-rev",
            StudyFormat::UadpJson => "uadp-json",
            StudyFormat::UadpJsonDv => "uadp-json-dv",
        }
    }

    pub fn parse(id: &str) -> Option<StudyFormat> {
        StudyFormat::ALL.into_iter().find(|f| f.id() == id)
    }

    /// The known ids, comma-separated (for error messages).
    pub fn ids() -> String {
        StudyFormat::ALL.map(|f| f.id()).join(", ")
    }

    /// One line: what the format is.
    pub fn describe(self) -> &'static str {
        match self {
            StudyFormat::Uadp => "UADP, the thesis's header options: flags 0xD1 0x0C, String PublisherId \"ESP32-Bench\", DataSetClassId, PayloadHeader (writer 1000), Variant fields",
            StudyFormat::UadpMin => "UADP, smallest self-describing options: Byte PublisherId, PayloadHeader (writer 1000), Variant fields",
            StudyFormat::UadpRaw => "UADP, Byte PublisherId, PayloadHeader, RawData fields (the reader needs DataSetMetaData)",
            StudyFormat::UadpJsonRev => "JSON NetworkMessage, reversible (typed) field values",
            StudyFormat::UadpJson => "JSON NetworkMessage, non-reversible (bare) field values",
            StudyFormat::UadpJsonDv => "JSON NetworkMessage in the thesis's shape: non-reversible DataValues with SourceTimestamp, SequenceNumber, no DataSetClassId",
        }
    }

    pub fn is_json(self) -> bool {
        matches!(self, StudyFormat::UadpJsonRev | StudyFormat::UadpJson | StudyFormat::UadpJsonDv)
    }

    /// The NetworkMessage this format encodes for N fields.
    pub fn message(self, n: usize) -> NetworkMessage {
        match self {
            StudyFormat::Uadp | StudyFormat::UadpJsonRev | StudyFormat::UadpJson => seed_message(n),
            StudyFormat::UadpMin => smallest_message(n),
            StudyFormat::UadpRaw => raw_message(n),
            StudyFormat::UadpJsonDv => data_value_message(n),
        }
    }

    /// The bytes on the wire (the MQTT payload) for N fields.
    pub fn encode(self, n: usize) -> Result<Vec<u8>, String> {
        self.encode_message(&self.message(n), &metadata(n))
    }

    /// Encode `msg` in this format (JSON forms take field names from `meta`).
    pub fn encode_message(self, msg: &NetworkMessage, meta: &DataSetMetaData) -> Result<Vec<u8>, String> {
        let json = |form| {
            to_json(
                msg,
                &JsonOptions {
                    form,
                    message_id: MESSAGE_ID,
                    metadata: core::slice::from_ref(meta),
                    // The thesis's example has no DataSetMessage "MessageType".
                    message_type: self != StudyFormat::UadpJsonDv,
                    ..JsonOptions::default()
                },
            )
            .map(String::into_bytes)
            .map_err(|e| format!("{}: cannot write JSON: {e}", self.id()))
        };
        match self {
            StudyFormat::UadpJsonRev => json(JsonForm::Reversible),
            StudyFormat::UadpJson | StudyFormat::UadpJsonDv => json(JsonForm::NonReversible),
            _ => to_vec(msg).map_err(|e| format!("{}: cannot encode UADP: {e}", self.id())),
        }
    }

    /// Decode `bytes` as this format (with the N-field metadata) and check the result is the
    /// message that was encoded. Returns the decoded message.
    pub fn decode_check(self, bytes: &[u8], n: usize) -> Result<NetworkMessage, String> {
        let meta = metadata(n);
        let want = self.message(n);
        let got = self.decode(bytes, &meta)?;
        if got != want {
            return Err(format!("{}: decoded message differs from the one encoded", self.id()));
        }
        Ok(got)
    }

    /// Decode `bytes` as this format (RawData and untyped JSON values take types from `meta`).
    pub fn decode(self, bytes: &[u8], meta: &DataSetMetaData) -> Result<NetworkMessage, String> {
        if self.is_json() {
            let text =
                core::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text (at byte {})", e.valid_up_to()))?;
            let m = from_json(
                text,
                &JsonDecodeOptions {
                    metadata: core::slice::from_ref(meta),
                    publisher_id_type: Some(BuiltInType::String),
                },
            )
            .map_err(|e| format!("JSON NetworkMessage: {e}"))?;
            Ok(m.message)
        } else {
            decode_exact(
                bytes,
                &DecodeOptions { raw_metadata: core::slice::from_ref(meta), ..DecodeOptions::default() },
            )
            .map_err(|e| format!("UADP NetworkMessage: {e}"))
        }
    }
}

/// One part of the seed layout's fixed bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutPart {
    pub part: &'static str,
    pub bytes: usize,
    pub note: &'static str,
}

/// The seed layout's bytes before the fields, part by part (spec uadp.md §2): they add up
/// to 39; each Float/Int32 Variant field adds 5.
pub fn seed_layout() -> Vec<LayoutPart> {
    vec![
        LayoutPart { part: "UADPFlags", bytes: 1, note: "0xD1: version 1, PublisherId, PayloadHeader, ExtendedFlags1" },
        LayoutPart { part: "ExtendedFlags1", bytes: 1, note: "0x0C: PublisherId type String, DataSetClassId" },
        LayoutPart { part: "PublisherId length", bytes: 4, note: "Int32 11" },
        LayoutPart { part: "PublisherId text", bytes: PUBLISHER_ID.len(), note: "\"ESP32-Bench\"" },
        LayoutPart { part: "DataSetClassId", bytes: 16, note: "Guid eae79794-1af7-4f96-8401-4096cd1d8908" },
        LayoutPart { part: "PayloadHeader Count", bytes: 1, note: "1 DataSetMessage" },
        LayoutPart { part: "DataSetWriterId", bytes: 2, note: "UInt16 1000" },
        LayoutPart { part: "DataSetFlags1", bytes: 1, note: "0x01: valid, Variant encoding" },
        LayoutPart { part: "FieldCount", bytes: 2, note: "UInt16 N" },
    ]
}

/// Bytes per Float/Int32 Variant field: type byte + 4.
pub const VARIANT_FIELD_BYTES: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_layout_is_39_plus_5n() {
        let header: usize = seed_layout().iter().map(|p| p.bytes).sum();
        assert_eq!(header, 39);
        let sizes: Vec<usize> = FIELD_COUNTS.iter().map(|&n| StudyFormat::Uadp.encode(n).unwrap().len()).collect();
        assert_eq!(sizes, [44, 54, 64, 89]);
        for &n in &FIELD_COUNTS {
            assert_eq!(StudyFormat::UadpMin.encode(n).unwrap().len(), 8 + 5 * n);
            assert_eq!(StudyFormat::UadpRaw.encode(n).unwrap().len(), 6 + 4 * n);
        }
        // The thesis's own example message, byte for byte (spec uadp.md §2, seed_variant_3f).
        let b = StudyFormat::Uadp.encode(3).unwrap();
        assert_eq!(&b[..2], [0xd1, 0x0c]);
        assert_eq!(&b[2..6], [11, 0, 0, 0]);
        assert_eq!(&b[17..21], [0x94, 0x97, 0xe7, 0xea]);
        assert_eq!(&b[33..39], [0x01, 0xe8, 0x03, 0x01, 0x03, 0x00]);
        assert_eq!(&b[39..44], [0x0a, 0x00, 0x00, 0xcc, 0x41]);
    }

    #[test]
    fn every_format_decodes_to_what_was_encoded() {
        for f in StudyFormat::ALL {
            for &n in &FIELD_COUNTS {
                let b = f.encode(n).unwrap();
                f.decode_check(&b, n).unwrap_or_else(|e| panic!("{} {n}: {e}", f.id()));
            }
        }
        let j = String::from_utf8(StudyFormat::UadpJsonDv.encode(1).unwrap()).unwrap();
        assert!(j.contains(r#""Val_F32_A":{"Value":25.5,"SourceTimestamp":"2000-01-01T00:00:15Z"}"#), "{j}");
        assert_eq!(StudyFormat::parse("uadp-json"), Some(StudyFormat::UadpJson));
        assert_eq!(StudyFormat::parse("xml"), None);
    }

    #[test]
    fn reversible_json_uadp_json_is_lossless() {
        for &n in &FIELD_COUNTS {
            let j = StudyFormat::UadpJsonRev.encode(n).unwrap();
            let m = StudyFormat::UadpJsonRev.decode(&j, &DataSetMetaData::default()).unwrap();
            let u = to_vec(&m).unwrap();
            let back = StudyFormat::Uadp.decode(&u, &DataSetMetaData::default()).unwrap();
            let j2 = StudyFormat::UadpJsonRev.encode_message(&back, &metadata(n)).unwrap();
            assert_eq!(j, j2);
        }
    }
}

#[cfg(test)]
mod thesis_shape {
    use super::*;

    #[test]
    fn json_dv_has_the_thesis_example_shape() {
        let j = String::from_utf8(StudyFormat::UadpJsonDv.encode(3).unwrap()).unwrap();
        assert_eq!(
            j,
            concat!(
                r#"{"MessageId":"ESP32-Bench-000001","MessageType":"ua-data","PublisherId":"ESP32-Bench","#,
                r#""Messages":[{"DataSetWriterId":1000,"SequenceNumber":1,"Payload":{"#,
                r#""Val_F32_A":{"Value":25.5,"SourceTimestamp":"2000-01-01T00:00:15Z"},"#,
                r#""Val_F32_B":{"Value":1013.25,"SourceTimestamp":"2000-01-01T00:00:15Z"},"#,
                r#""Val_I32_C":{"Value":42,"SourceTimestamp":"2000-01-01T00:00:15Z"}}}]}"#
            )
        );
    }
}
