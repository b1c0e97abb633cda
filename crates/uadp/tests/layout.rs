//! Byte layouts and sizes from the spec (shared/specs/uadp.md §2): the seed message byte
//! by byte, the 39 + 5·N size rule, the cost of every header option, the smallest layouts,
//! the two 38-byte hypotheses, and one hand-built message per kind of vector the spec
//! lists (each decoded back and re-encoded identically).

mod common;

use common::*;
use uadp::*;

fn rt(msg: &NetworkMessage) -> Vec<u8> {
    rt_with(msg, &[])
}

/// Encode, check encoded_len, decode_exact, compare, return the bytes.
fn rt_with(msg: &NetworkMessage, meta: &[DataSetMetaData]) -> Vec<u8> {
    let bytes = to_vec(msg).unwrap_or_else(|e| panic!("encode {msg:?}: {e}"));
    assert_eq!(encoded_len(msg).unwrap(), bytes.len());
    let opts = DecodeOptions { raw_metadata: meta, ..DecodeOptions::default() };
    let back = decode_exact(&bytes, &opts).unwrap_or_else(|e| panic!("decode {}: {e}", hex(&bytes)));
    assert_eq!(&back, msg, "{}", hex(&bytes));
    bytes
}

#[rustfmt::skip]
const SEED_3F: [u8; 54] = [
    0xd1,                                     //  0 UADPFlags: version 1 | PublisherId | PayloadHeader | ExtendedFlags1
    0x0c,                                     //  1 ExtendedFlags1: PublisherId type String (100) | DataSetClassId
    0x0b, 0x00, 0x00, 0x00,                   //  2 String length 11
    b'E', b'S', b'P', b'3', b'2', b'-', b'B', b'e', b'n', b'c', b'h', // 6 "ESP32-Bench"
    0x94, 0x97, 0xe7, 0xea,                   // 17 Guid Data1 0xeae79794 (LE)
    0xf7, 0x1a,                               // 21 Data2 0x1af7 (LE)
    0x96, 0x4f,                               // 23 Data3 0x4f96 (LE)
    0x84, 0x01, 0x40, 0x96, 0xcd, 0x1d, 0x89, 0x08, // 25 Data4 as written
    0x01,                                     // 33 PayloadHeader Count 1
    0xe8, 0x03,                               // 34 DataSetWriterId 1000
    0x01,                                     // 36 DataSetFlags1: valid, Variant, no DataSetFlags2
    0x03, 0x00,                               // 37 FieldCount 3
    0x0a, 0x00, 0x00, 0xcc, 0x41,             // 39 Variant Float 25.5
    0x0a, 0x00, 0x50, 0x7d, 0x44,             // 44 Variant Float 1013.25
    0x06, 0x2a, 0x00, 0x00, 0x00,             // 49 Variant Int32 42
];

#[test]
fn seed_variant_3f_byte_by_byte() {
    let msg = seed_message(3);
    assert_eq!(rt(&msg), SEED_3F);
    let vec = vectors().into_iter().find(|v| v["name"] == "seed_variant_3f").expect("vector");
    assert_eq!(hex(&SEED_3F), vec["hex"].as_str().unwrap());
}

#[test]
fn seed_sizes_are_39_plus_5n() {
    for (n, size) in [(1, 44), (3, 54), (5, 64), (10, 89)] {
        let bytes = rt(&seed_message(n));
        assert_eq!(bytes.len(), size, "{n} fields");
        assert_eq!(bytes.len(), 39 + 5 * n);
        // The public vectors agree byte for byte.
        if let Some(v) = vectors().into_iter().find(|v| v["name"] == format!("seed_variant_{n}f")) {
            assert_eq!(hex(&bytes), v["hex"].as_str().unwrap());
        }
        println!("seed layout, {n:>2} Float/Int32 fields: {size} B (the seed reports {} B = 33 + 5N)", 33 + 5 * n);
    }
}

#[test]
fn smallest_layouts() {
    // Byte PublisherId, PayloadHeader (writer id), no ExtendedFlags1: 8 + 5N (Variant), 6 + 4N (RawData).
    for n in [1usize, 3, 5, 10] {
        let v = rt(&minimal_message(n, FieldEncoding::Variant));
        assert_eq!(v.len(), 8 + 5 * n);
        assert_eq!(&v[..2], [0x51, 0x01]);
        let meta = [DataSetMetaData {
            data_set_writer_id: Some(1000),
            fields: seed_fields(n).iter().map(|f| FieldMetaData::scalar("", f.built_in_type().unwrap())).collect(),
        }];
        let r = rt_with(&minimal_message(n, FieldEncoding::RawData), &meta);
        assert_eq!(r.len(), 6 + 4 * n);
        // Nothing optional at all: UADPFlags 0x01, DataSetFlags1, FieldCount: 4 + 5N / 2 + 4N.
        let mut bare = minimal_message(n, FieldEncoding::Variant);
        bare.publisher_id = None;
        bare.data_set_writer_ids = None;
        assert_eq!(rt(&bare).len(), 4 + 5 * n);
        let mut bare_raw = minimal_message(n, FieldEncoding::RawData);
        bare_raw.publisher_id = None;
        bare_raw.data_set_writer_ids = None;
        let any = [DataSetMetaData { data_set_writer_id: None, fields: meta[0].fields.clone() }];
        assert_eq!(rt_with(&bare_raw, &any).len(), 2 + 4 * n);
        println!(
            "{n:>2} fields: seed {} B | Byte PublisherId + PayloadHeader: Variant {} B, RawData {} B | no options: Variant {} B, RawData {} B",
            39 + 5 * n,
            v.len(),
            r.len(),
            4 + 5 * n,
            2 + 4 * n
        );
    }
    // The spec's minimal_raw_3f: 18 B.
    let meta = [DataSetMetaData {
        data_set_writer_id: Some(1000),
        fields: vec![
            FieldMetaData::scalar("a", BuiltInType::Float),
            FieldMetaData::scalar("b", BuiltInType::Float),
            FieldMetaData::scalar("c", BuiltInType::Int32),
        ],
    }];
    #[rustfmt::skip]
    let want = [
        0x51, 0x01,             // UADPFlags (PublisherId | PayloadHeader), Byte PublisherId 1
        0x01, 0xe8, 0x03,       // Count 1, DataSetWriterId 1000
        0x03,                   // DataSetFlags1: valid | RawData
        0x00, 0x00, 0xcc, 0x41, // 25.5
        0x00, 0x50, 0x7d, 0x44, // 1013.25
        0x2a, 0x00, 0x00, 0x00, // 42
    ];
    assert_eq!(rt_with(&minimal_message(3, FieldEncoding::RawData), &meta), want);
}

#[test]
fn option_costs() {
    let base = rt(&seed_message(3)).len();
    let cost = |f: &dyn Fn(&mut NetworkMessage)| {
        let mut m = seed_message(3);
        f(&mut m);
        rt(&m).len() as isize - base as isize
    };
    // PublisherId: Byte 1, UInt16 2, UInt32 4, UInt64 8, String 4 + n (here vs 15).
    assert_eq!(cost(&|m| m.publisher_id = Some(PublisherId::UInt16(4711))), 2 - 15);
    assert_eq!(cost(&|m| m.publisher_id = Some(PublisherId::UInt32(1))), 4 - 15);
    assert_eq!(cost(&|m| m.publisher_id = Some(PublisherId::UInt64(1))), 8 - 15);
    assert_eq!(cost(&|m| m.publisher_id = Some(PublisherId::String("ESP32".into()))), -6);
    assert_eq!(cost(&|m| m.data_set_class_id = None), -16);
    let full_group = GroupHeader {
        writer_group_id: Some(1),
        group_version: Some(2),
        network_message_number: Some(3),
        sequence_number: Some(4),
    };
    assert_eq!(cost(&|m| m.group_header = Some(full_group)), 1 + 2 + 4 + 2 + 2);
    assert_eq!(cost(&|m| m.timestamp = Some(DateTime(1))), 8);
    assert_eq!(cost(&|m| m.picoseconds = Some(1)), 2);
    assert_eq!(cost(&|m| m.messages[0].sequence_number = Some(1)), 2);
    assert_eq!(cost(&|m| m.messages[0].timestamp = Some(DateTime(1))), 1 + 8); // + DataSetFlags2
    assert_eq!(cost(&|m| m.messages[0].status = Some(0x8000)), 2);
    assert_eq!(
        cost(&|m| {
            m.messages[0].config_version_major = Some(1);
            m.messages[0].config_version_minor = Some(2)
        }),
        8
    );
    // A second DataSetMessage: WriterId 2 + two Sizes 4 + the message.
    let second = DataSetMessage::variant_key_frame(seed_fields(1));
    assert_eq!(
        cost(&|m| {
            m.data_set_writer_ids = Some(vec![1000, 1001]);
            m.messages.push(second.clone())
        }),
        2 + 4 + (1 + 2 + 5)
    );
    // DataValue with value + SourceTimestamp: 1 + 5 + 8 = 14 per field (vs 5).
    assert_eq!(
        cost(&|m| {
            let d = &mut m.messages[0];
            d.field_encoding = FieldEncoding::DataValue;
            d.payload = Payload::KeyFrame(
                seed_fields(3)
                    .into_iter()
                    .map(|v| {
                        Field::DataValue(DataValue {
                            value: Some(v),
                            source_timestamp: Some(DateTime(125_911_584_150_000_000)),
                            ..DataValue::default()
                        })
                    })
                    .collect(),
            )
        }),
        3 * (14 - 5)
    );
}

#[test]
fn the_38_byte_hypotheses() {
    // 1. A 5-character PublisherId gives the seed's 38/48 B with every part present.
    for (n, size) in [(1, 38), (3, 48), (5, 58), (10, 83)] {
        let mut m = seed_message(n);
        m.publisher_id = Some(PublisherId::String("ESP32".into()));
        assert_eq!(rt(&m).len(), size);
    }
    // 2. Header (33 B) + fields with no PayloadHeader/DataSetFlags1/FieldCount, flags still 0xD1:
    //    the first Variant type byte 0x0a is read as Count 10, and the message ends early.
    let mut bytes = SEED_3F[..33].to_vec();
    bytes.extend_from_slice(&SEED_3F[39..]);
    assert_eq!(bytes.len(), 48);
    let e = decode_exact(&bytes, &DecodeOptions::default()).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::UnexpectedEnd, 48));
}

fn with_dsm(f: impl Fn(&mut DataSetMessage)) -> NetworkMessage {
    let mut m = seed_message(3);
    f(&mut m.messages[0]);
    m
}

#[test]
fn every_option_round_trips() {
    let ts = DateTime(125_911_584_150_000_000);
    let mut cases: Vec<(&str, NetworkMessage)> = vec![
        ("no DataSetClassId (ExtendedFlags1 0x04)", {
            let mut m = seed_message(3);
            m.data_set_class_id = None;
            m
        }),
        ("UInt64 PublisherId", {
            let mut m = seed_message(3);
            m.publisher_id = Some(PublisherId::UInt64(0x0102_0304_0506_0708));
            m
        }),
        ("Byte PublisherId with DataSetClassId", {
            let mut m = seed_message(3);
            m.publisher_id = Some(PublisherId::Byte(7));
            m
        }),
        (
            "DSM sequence number + timestamp + picoseconds + status + config version",
            with_dsm(|d| {
                d.sequence_number = Some(1);
                d.timestamp = Some(ts);
                d.picoseconds = Some(9);
                d.status = Some(0x8000);
                d.config_version_major = Some(10);
                d.config_version_minor = Some(11);
            }),
        ),
        ("NetworkMessage timestamp + picoseconds", {
            let mut m = seed_message(3);
            m.timestamp = Some(ts);
            m.picoseconds = Some(500);
            m
        }),
        ("GroupHeader (partial)", {
            let mut m = seed_message(3);
            m.group_header =
                Some(GroupHeader { writer_group_id: Some(100), sequence_number: Some(7), ..GroupHeader::default() });
            m
        }),
        ("GroupHeader with no fields", {
            let mut m = seed_message(1);
            m.group_header = Some(GroupHeader::default());
            m
        }),
        ("no PayloadHeader", {
            let mut m = seed_message(3);
            m.data_set_writer_ids = None;
            m
        }),
        (
            "delta frame",
            with_dsm(|d| {
                d.payload = Payload::DeltaFrame(vec![
                    DeltaField { index: 1, value: Scalar::Float(1000.0).into() },
                    DeltaField { index: 2, value: Scalar::Int32(43).into() },
                ])
            }),
        ),
        (
            "key frame with 0 fields (FieldCount 0 is still written)",
            with_dsm(|d| d.payload = Payload::KeyFrame(vec![])),
        ),
        (
            "keep-alive",
            with_dsm(|d| {
                d.sequence_number = Some(5);
                d.payload = Payload::KeepAlive
            }),
        ),
        ("valid bit clear", with_dsm(|d| d.valid = false)),
        ("PromotedFields", {
            let mut m = seed_message(3);
            m.promoted_fields = Some(vec![Scalar::UInt16(7).into(), Scalar::string("hot").into()]);
            m
        }),
        (
            "DataValue fields with every member",
            with_dsm(|d| {
                d.field_encoding = FieldEncoding::DataValue;
                d.payload = Payload::KeyFrame(vec![
                    Field::DataValue(DataValue {
                        value: Some(Scalar::Float(25.5).into()),
                        status: Some(StatusCode(0x4000_0000)),
                        source_timestamp: Some(ts),
                        source_picoseconds: Some(1),
                        server_timestamp: Some(DateTime(ts.0 + 1)),
                        server_picoseconds: Some(2),
                    }),
                    Field::DataValue(DataValue::default()),
                    Field::DataValue(DataValue::of(Variant::Null)),
                ])
            }),
        ),
        (
            "every scalar type and arrays",
            with_dsm(|d| d.payload = Payload::KeyFrame(all_types().into_iter().map(Field::Variant).collect())),
        ),
        ("three DataSetMessages with padding", {
            let mut m = seed_message(3);
            let mut b = DataSetMessage::variant_key_frame(seed_fields(1));
            b.padding = 3;
            let c = DataSetMessage { payload: Payload::KeepAlive, ..DataSetMessage::default() };
            m.data_set_writer_ids = Some(vec![1000, 1001, 1002]);
            m.messages.push(b);
            m.messages.push(c);
            m
        }),
    ];
    // Two DataSetMessages as in the two_dsms vector.
    let mut two = seed_message(3);
    two.data_set_writer_ids = Some(vec![1000, 1001]);
    two.messages.push(DataSetMessage::variant_key_frame(seed_fields(1)));
    cases.push(("two DataSetMessages", two.clone()));
    for (what, m) in &cases {
        let b = rt(m);
        println!("{what}: {} B", b.len());
    }
    if let Some(v) = vectors().into_iter().find(|v| v["name"] == "two_dsms") {
        assert_eq!(hex(&rt(&two)), v["hex"].as_str().unwrap());
    }
    // The 0-field key frame is 39 B (open62541 master writes 37 B without FieldCount).
    let zero = &cases.iter().find(|(w, _)| w.starts_with("key frame with 0")).unwrap().1;
    assert_eq!(rt(zero).len(), 39);
}

/// One Variant of every supported type, plus arrays, nulls and edge values.
pub fn all_types() -> Vec<Variant> {
    let s = |x: Scalar| Variant::Scalar(x);
    vec![
        Variant::Null,
        s(Scalar::Boolean(true)),
        s(Scalar::SByte(-128)),
        s(Scalar::Byte(255)),
        s(Scalar::Int16(-32768)),
        s(Scalar::UInt16(65535)),
        s(Scalar::Int32(i32::MIN)),
        s(Scalar::UInt32(u32::MAX)),
        s(Scalar::Int64(i64::MIN)),
        s(Scalar::UInt64(u64::MAX)),
        s(Scalar::Float(f32::MIN_POSITIVE)),
        s(Scalar::Double(-0.0)),
        s(Scalar::string("héllo \"wörld\"\n")),
        s(Scalar::String(None)),
        s(Scalar::string("")),
        s(Scalar::DateTime(DateTime(125_911_584_151_234_567))),
        s(Scalar::Guid(seed_class())),
        s(Scalar::bytes([0u8, 1, 2, 255])),
        s(Scalar::ByteString(None)),
        s(Scalar::StatusCode(StatusCode(0x8007_0000))),
        Variant::Array { ty: BuiltInType::Float, items: vec![Scalar::Float(48.75), Scalar::Float(2.3)] },
        Variant::Array { ty: BuiltInType::String, items: vec![Scalar::string("a"), Scalar::String(None)] },
        Variant::Array { ty: BuiltInType::Int64, items: vec![] },
        Variant::NullArray(BuiltInType::Int32),
    ]
}

#[test]
fn raw_data_with_arrays_and_strings_and_delta() {
    let fields = vec![
        FieldMetaData::scalar("s", BuiltInType::String),
        FieldMetaData { name: "a".into(), built_in_type: BuiltInType::Double, array: true },
        FieldMetaData::scalar("g", BuiltInType::Guid),
        FieldMetaData::scalar("b", BuiltInType::Boolean),
    ];
    let meta = [DataSetMetaData { data_set_writer_id: Some(1000), fields }];
    let key = with_dsm(|d| {
        d.field_encoding = FieldEncoding::RawData;
        d.payload = Payload::KeyFrame(vec![
            Scalar::string("gps").into(),
            Variant::Array { ty: BuiltInType::Double, items: vec![Scalar::Double(48.75), Scalar::Double(2.3)] }.into(),
            Scalar::Guid(seed_class()).into(),
            Scalar::Boolean(false).into(),
        ])
    });
    let b = rt_with(&key, &meta);
    assert_eq!(b.len(), 37 + (4 + 3) + (4 + 16) + 16 + 1);
    let delta = with_dsm(|d| {
        d.field_encoding = FieldEncoding::RawData;
        d.payload = Payload::DeltaFrame(vec![DeltaField { index: 3, value: Scalar::Boolean(true).into() }])
    });
    rt_with(&delta, &meta);
    // Without metadata: refused, at the DataSetMessage.
    let e = decode_exact(&b, &DecodeOptions::default()).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::MissingMetadata, 36));
}
