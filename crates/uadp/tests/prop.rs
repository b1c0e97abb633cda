//! Property tests: random NetworkMessages encode → decode to the same message (RawData with
//! metadata derived from the message), `encoded_len` is exact, and the JSON mapping is
//! reversible (JSON → model → JSON gives the same text, also through UADP bytes).
//! Failing cases are shrunk and printed by proptest with their seed.

use proptest::prelude::*;
use uadp::json::{from_json, to_json, JsonDecodeOptions, JsonForm, JsonOptions};
use uadp::*;

fn scalar_of(ty: BuiltInType) -> BoxedStrategy<Scalar> {
    // NaN is left out: NaN != NaN would fail the equality check (bytes are kept exactly anyway).
    match ty {
        BuiltInType::Boolean => any::<bool>().prop_map(Scalar::Boolean).boxed(),
        BuiltInType::SByte => any::<i8>().prop_map(Scalar::SByte).boxed(),
        BuiltInType::Byte => any::<u8>().prop_map(Scalar::Byte).boxed(),
        BuiltInType::Int16 => any::<i16>().prop_map(Scalar::Int16).boxed(),
        BuiltInType::UInt16 => any::<u16>().prop_map(Scalar::UInt16).boxed(),
        BuiltInType::Int32 => any::<i32>().prop_map(Scalar::Int32).boxed(),
        BuiltInType::UInt32 => any::<u32>().prop_map(Scalar::UInt32).boxed(),
        BuiltInType::Int64 => any::<i64>().prop_map(Scalar::Int64).boxed(),
        BuiltInType::UInt64 => any::<u64>().prop_map(Scalar::UInt64).boxed(),
        BuiltInType::Float => any::<f32>().prop_filter("no NaN", |f| !f.is_nan()).prop_map(Scalar::Float).boxed(),
        BuiltInType::Double => any::<f64>().prop_filter("no NaN", |f| !f.is_nan()).prop_map(Scalar::Double).boxed(),
        BuiltInType::String => proptest::option::weighted(0.9, ".{0,12}").prop_map(Scalar::String).boxed(),
        // Years 0001-9999, where the JSON text form is exact.
        BuiltInType::DateTime => {
            (-504_911_232_000_000_000i64..2_650_467_743_990_000_000).prop_map(|t| Scalar::DateTime(DateTime(t))).boxed()
        }
        BuiltInType::Guid => (any::<u32>(), any::<u16>(), any::<u16>(), any::<[u8; 8]>())
            .prop_map(|(data1, data2, data3, data4)| Scalar::Guid(Guid { data1, data2, data3, data4 }))
            .boxed(),
        BuiltInType::ByteString => proptest::option::weighted(0.9, proptest::collection::vec(any::<u8>(), 0..10))
            .prop_map(Scalar::ByteString)
            .boxed(),
        BuiltInType::StatusCode => any::<u32>().prop_map(|c| Scalar::StatusCode(StatusCode(c))).boxed(),
    }
}

fn built_in_type() -> impl Strategy<Value = BuiltInType> {
    proptest::sample::select(BuiltInType::ALL.to_vec())
}

/// A non-null Variant (scalar or array).
fn variant() -> impl Strategy<Value = Variant> {
    built_in_type().prop_flat_map(|ty| {
        prop_oneof![
            4 => scalar_of(ty).prop_map(Variant::Scalar),
            1 => proptest::collection::vec(scalar_of(ty), 0..4).prop_map(move |items| Variant::Array { ty, items }),
        ]
    })
}

fn variant_or_null() -> impl Strategy<Value = Variant> {
    prop_oneof![9 => variant(), 1 => Just(Variant::Null)]
}

fn data_value() -> impl Strategy<Value = DataValue> {
    (
        proptest::option::of(variant_or_null()),
        proptest::option::of(any::<u32>().prop_map(StatusCode)),
        proptest::option::of((0i64..2_650_467_743_990_000_000).prop_map(DateTime)),
        proptest::option::of(any::<u16>()),
        proptest::option::of((0i64..2_650_467_743_990_000_000).prop_map(DateTime)),
        proptest::option::of(any::<u16>()),
    )
        .prop_map(|(value, status, source_timestamp, source_picoseconds, server_timestamp, server_picoseconds)| {
            DataValue { value, status, source_timestamp, source_picoseconds, server_timestamp, server_picoseconds }
        })
}

fn fields(enc: FieldEncoding) -> BoxedStrategy<Vec<Field>> {
    match enc {
        FieldEncoding::DataValue => proptest::collection::vec(data_value().prop_map(Field::DataValue), 0..5).boxed(),
        FieldEncoding::RawData => proptest::collection::vec(variant().prop_map(Field::Variant), 0..5).boxed(),
        _ => proptest::collection::vec(variant_or_null().prop_map(Field::Variant), 0..5).boxed(),
    }
}

fn payload(enc: FieldEncoding) -> impl Strategy<Value = Payload> {
    prop_oneof![
        6 => fields(enc).prop_map(Payload::KeyFrame),
        2 => fields(enc).prop_map(|fs| Payload::DeltaFrame(
            fs.into_iter().enumerate().map(|(i, value)| DeltaField { index: i as u16 * 2, value }).collect()
        )),
        1 => Just(Payload::KeepAlive),
    ]
}

fn dsm() -> impl Strategy<Value = DataSetMessage> {
    proptest::sample::select(vec![FieldEncoding::Variant, FieldEncoding::RawData, FieldEncoding::DataValue])
        .prop_flat_map(|enc| {
            (
                any::<bool>(),
                proptest::option::of(any::<u16>()),
                proptest::option::of((0i64..2_650_467_743_990_000_000).prop_map(DateTime)),
                proptest::option::of(any::<u16>()),
                proptest::option::of(any::<u16>()),
                proptest::option::of(any::<u32>()),
                proptest::option::of(any::<u32>()),
                payload(enc),
            )
                .prop_map(move |(valid, seq, ts, pico, status, major, minor, payload)| DataSetMessage {
                    valid,
                    field_encoding: enc,
                    sequence_number: seq,
                    timestamp: ts,
                    picoseconds: pico,
                    status,
                    config_version_major: major,
                    config_version_minor: minor,
                    payload,
                    padding: 0,
                })
        })
}

fn publisher_id() -> impl Strategy<Value = PublisherId> {
    prop_oneof![
        any::<u8>().prop_map(PublisherId::Byte),
        any::<u16>().prop_map(PublisherId::UInt16),
        any::<u32>().prop_map(PublisherId::UInt32),
        any::<u64>().prop_map(PublisherId::UInt64),
        ".{0,12}".prop_map(PublisherId::String),
    ]
}

fn network_message() -> impl Strategy<Value = NetworkMessage> {
    (
        proptest::option::of(publisher_id()),
        proptest::option::of(any::<u128>().prop_map(|x| Guid::from_bytes(&x.to_le_bytes()))),
        proptest::option::of(
            (
                proptest::option::of(any::<u16>()),
                proptest::option::of(any::<u32>()),
                proptest::option::of(any::<u16>()),
                proptest::option::of(any::<u16>()),
            )
                .prop_map(|(a, b, c, d)| GroupHeader {
                    writer_group_id: a,
                    group_version: b,
                    network_message_number: c,
                    sequence_number: d,
                }),
        ),
        proptest::option::of(any::<i64>().prop_map(DateTime)),
        proptest::option::of(any::<u16>()),
        proptest::option::of(proptest::collection::vec(variant_or_null(), 0..3)),
        proptest::collection::vec((dsm(), 0u16..3), 1..4),
        any::<bool>(),
    )
        .prop_map(|(publisher_id, class, group, ts, pico, promoted, dsms, header)| {
            let n = dsms.len();
            let with_header = header || n > 1;
            let messages = dsms
                .into_iter()
                .map(|(mut d, pad)| {
                    if n > 1 {
                        d.padding = pad;
                    }
                    d
                })
                .collect();
            NetworkMessage {
                publisher_id,
                data_set_class_id: class,
                group_header: group,
                data_set_writer_ids: with_header.then(|| (0..n as u16).map(|i| 100 + i).collect()),
                timestamp: ts,
                picoseconds: pico,
                promoted_fields: promoted,
                messages,
            }
        })
}

fn value_of(f: &Field) -> Option<&Variant> {
    match f {
        Field::Variant(v) => Some(v),
        Field::DataValue(d) => d.value.as_ref(),
    }
}

/// RawData metadata from the message itself (types and array-ness of each field), with
/// distinct field names for the JSON mapping.
fn metadata_of(m: &NetworkMessage) -> Vec<DataSetMetaData> {
    m.messages
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let writer = m.data_set_writer_ids.as_ref().map(|ids| ids[i]);
            let values: Vec<(usize, Option<&Variant>)> = match &d.payload {
                Payload::KeyFrame(f) => f.iter().enumerate().map(|(j, f)| (j, value_of(f))).collect(),
                Payload::DeltaFrame(f) => f.iter().map(|f| (f.index as usize, value_of(&f.value))).collect(),
                _ => vec![],
            };
            let len = values.iter().map(|(j, _)| j + 1).max().unwrap_or(0);
            let mut fields: Vec<FieldMetaData> =
                (0..len).map(|j| FieldMetaData::scalar(format!("f{j}"), BuiltInType::Byte)).collect();
            for (j, v) in values {
                if let Some(v) = v {
                    fields[j].built_in_type = v.built_in_type().unwrap_or(BuiltInType::Byte);
                    fields[j].array = v.is_array();
                }
            }
            DataSetMetaData { data_set_writer_id: writer, fields }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn uadp_round_trip(msg in network_message()) {
        let meta = metadata_of(&msg);
        let bytes = to_vec(&msg).unwrap();
        prop_assert_eq!(encoded_len(&msg).unwrap(), bytes.len());
        let opts = DecodeOptions { raw_metadata: &meta, ..DecodeOptions::default() };
        let back = decode_exact(&bytes, &opts).unwrap();
        prop_assert_eq!(&back, &msg);
        // The model JSON carries the whole message (RawData aside: it needs the metadata):
        // read back, it encodes to the same bytes.
        let raw = msg.messages.iter().any(|d| d.field_encoding == FieldEncoding::RawData);
        if !raw {
            let j = uadp::model_json::message_view(&msg, 1);
            let read = uadp::model_json::from_model_json(&j).unwrap_or_else(|e| panic!("{j}: {e}"));
            prop_assert_eq!(to_vec(&read).unwrap(), bytes);
        }
    }

    /// JSON written from any message (either form) reads back, and writing what was read
    /// gives the same text; reversible JSON also survives a trip through UADP bytes.
    #[test]
    fn json_round_trip(msg in network_message(), reversible in any::<bool>()) {
        let mut msg = msg;
        // JSON has writer ids for all messages or for none (a single message).
        if msg.data_set_writer_ids.is_none() { msg.data_set_writer_ids = Some(vec![100]); }
        let meta = metadata_of(&msg);
        let form = if reversible { JsonForm::Reversible } else { JsonForm::NonReversible };
        let opts = JsonOptions { form, message_id: "m-1", metadata: &meta, ..JsonOptions::default() };
        let text = to_json(&msg, &opts).unwrap();
        let read = from_json(&text, &JsonDecodeOptions { metadata: &meta, ..Default::default() })
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let again = to_json(&read.message, &read.options()).unwrap();
        prop_assert_eq!(&again, &text);
        if reversible {
            let bytes = to_vec(&read.message).unwrap();
            let back = decode_exact(&bytes, &DecodeOptions::default()).unwrap();
            prop_assert_eq!(to_json(&back, &read.options()).unwrap(), text);
        }
    }

    /// Arbitrary bytes never panic the decoder.
    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        let _ = decode_with(&bytes, &DecodeOptions { skip_unknown: true, ..DecodeOptions::default() });
        if let Ok(s) = core::str::from_utf8(&bytes) {
            let _ = from_json(s, &JsonDecodeOptions::default());
        }
    }
}
