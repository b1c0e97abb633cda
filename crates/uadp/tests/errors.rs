//! Errors: crafted malformed or refused messages give the expected kind at the expected
//! byte; every truncation and many pseudo-random mutations of valid messages fail cleanly
//! (never panic), and whatever decodes re-encodes to a fixed point; encoder errors.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::*;
use uadp::*;

fn seed3() -> Vec<u8> {
    to_vec(&seed_message(3)).unwrap()
}

fn with(mut b: Vec<u8>, at: usize, byte: u8) -> Vec<u8> {
    b[at] = byte;
    b
}

fn err(bytes: &[u8]) -> Error {
    match decode_exact(bytes, &DecodeOptions::default()) {
        Ok(m) => panic!("{} decoded: {m:?}", hex(bytes)),
        Err(e) => e,
    }
}

#[test]
fn crafted_errors() {
    let s = seed3();
    let mut two = seed_message(3);
    two.data_set_writer_ids = Some(vec![1000, 1001]);
    two.messages.push(DataSetMessage::variant_key_frame(seed_fields(1)));
    let two = to_vec(&two).unwrap(); // Sizes at 38..42: 0x12, 0x08
    let cases: Vec<(&str, Vec<u8>, ErrorKind, usize)> = vec![
        ("empty", vec![], ErrorKind::UnexpectedEnd, 0),
        ("UADP version 2", with(s.clone(), 0, 0xd2), ErrorKind::UnsupportedVersion, 0),
        ("UADP version 0", vec![0x00], ErrorKind::UnsupportedVersion, 0),
        ("reserved PublisherId type 101", with(s.clone(), 1, 0x0d), ErrorKind::ReservedPublisherIdType, 1),
        ("reserved PublisherId type 111", vec![0x91, 0x07, 0], ErrorKind::ReservedPublisherIdType, 1),
        ("security", with(s.clone(), 1, 0x1c), ErrorKind::SecurityUnsupported, 1),
        ("chunk", vec![0x81, 0x80, 0x01, 0, 0], ErrorKind::ChunkUnsupported, 2),
        ("discovery request", vec![0x81, 0x80, 0x04], ErrorKind::UnsupportedNetworkMessageType, 2),
        ("ExtendedFlags2 reserved bit", vec![0x81, 0x80, 0x20], ErrorKind::ReservedFlags, 2),
        ("GroupFlags reserved bit", vec![0x21, 0x10], ErrorKind::ReservedFlags, 1),
        ("PayloadHeader Count 0", vec![0x41, 0x00, 0x01, 0x00, 0x00], ErrorKind::InvalidCount, 1),
        ("reserved field encoding", with(s.clone(), 36, 0x07), ErrorKind::ReservedFieldEncoding, 36),
        ("event DataSetMessage", [&s[..36], &[0x81, 0x02], &s[37..]].concat(), ErrorKind::UnsupportedMessageType, 37),
        ("DataSetFlags2 reserved bit", [&s[..36], &[0x81, 0x40], &s[37..]].concat(), ErrorKind::ReservedFlags, 37),
        ("Variant type 26", with(s.clone(), 39, 0x1a), ErrorKind::InvalidVariantType, 39),
        ("Variant type 17 (NodeId)", with(s.clone(), 39, 0x11), ErrorKind::UnsupportedVariantType, 39),
        ("Variant array of type 0", with(s.clone(), 39, 0x80), ErrorKind::InvalidVariantType, 39),
        ("Variant ArrayDimensions", with(s.clone(), 39, 0xca), ErrorKind::UnsupportedArrayDimensions, 39),
        ("String length -2", [&s[..2], &[0xfe, 0xff, 0xff, 0xff], &s[6..]].concat(), ErrorKind::InvalidLength, 2),
        (
            "String PublisherId null",
            [&s[..2], &[0xff, 0xff, 0xff, 0xff], &s[6..]].concat(),
            ErrorKind::InvalidLength,
            2,
        ),
        ("String longer than the input", [&s[..2], &[0x00, 0x00, 0x01, 0x00]].concat(), ErrorKind::UnexpectedEnd, 6),
        ("invalid UTF-8", with(s.clone(), 8, 0xff), ErrorKind::InvalidUtf8, 8),
        ("FieldCount larger than the input", [&s[..37], &[0xff, 0xff], &s[39..]].concat(), ErrorKind::LengthLimit, 37),
        (
            "array count larger than the input",
            [&s[..39], &[0x86, 0xff, 0xff, 0xff, 0x7f]].concat(),
            ErrorKind::LengthLimit,
            40,
        ),
        ("array length -5", [&s[..39], &[0x86, 0xfb, 0xff, 0xff, 0xff]].concat(), ErrorKind::InvalidLength, 40),
        ("trailing bytes", [&s[..], &[0x00]].concat(), ErrorKind::TrailingBytes, 54),
        ("truncated (invalid_truncated)", s[..50].to_vec(), ErrorKind::UnexpectedEnd, 50),
        ("first DataSetMessage longer than its Size", with(two.clone(), 38, 0x11), ErrorKind::SizeMismatch, 59),
        ("first DataSetMessage shorter than its Size", with(two.clone(), 38, 0x13), ErrorKind::SizeMismatch, 60),
        ("Sizes past the input", with(two.clone(), 41, 0x7f), ErrorKind::UnexpectedEnd, two.len()),
        (
            "DataValue EncodingMask reserved bit",
            [&with(s.clone(), 36, 0x05)[..37], &[0x01, 0x00, 0x40]].concat(),
            ErrorKind::ReservedFlags,
            39,
        ),
        ("PromotedFields size past the input", vec![0x81, 0x80, 0x02, 0x10, 0x00, 0x06], ErrorKind::UnexpectedEnd, 6),
        (
            "PromotedFields Variant crossing its size",
            vec![0x81, 0x80, 0x02, 0x02, 0x00, 0x06, 0, 0, 0, 0],
            ErrorKind::SizeMismatch,
            7,
        ),
    ];
    let mut bad = Vec::new();
    for (what, bytes, kind, offset) in &cases {
        let e = err(bytes);
        if (e.kind, e.offset) != (*kind, *offset) {
            bad.push(format!(
                "{what}: expected {} at {offset}, got {} at {} ({})",
                kind.name(),
                e.kind.name(),
                e.offset,
                hex(bytes)
            ));
        }
        assert!(e.to_string().ends_with(&format!(" at byte {}", e.offset)));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn skip_unknown_keeps_the_bytes() {
    let s = seed3();
    for bytes in [with(s.clone(), 36, 0x07), [&s[..36], &[0x81, 0x02], &s[37..]].concat()] {
        let opts = DecodeOptions { skip_unknown: true, ..DecodeOptions::default() };
        let m = decode_exact(&bytes, &opts).unwrap();
        assert!(matches!(m.messages[0].payload, Payload::Skipped { .. }));
        assert_eq!(to_vec(&m).unwrap(), bytes);
    }
}

#[test]
fn error_kind_names() {
    let mut names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
    for (k, n) in ErrorKind::ALL.iter().zip(&names) {
        assert!(n.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_'), "{n}");
        assert_eq!(ErrorKind::from_name(n), Some(*k));
        assert!(!k.description().is_empty());
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), ErrorKind::ALL.len());
    assert_eq!(Error::new(ErrorKind::ReservedPublisherIdType, 1).to_string(), "reserved PublisherId type at byte 1");
}

#[test]
fn encoder_errors() {
    let enc_err = |m: &NetworkMessage| to_vec(m).unwrap_err();
    let mut m = seed_message(3);
    m.data_set_writer_ids = Some(vec![1, 2]);
    assert_eq!(enc_err(&m).kind, ErrorKind::InvalidCount);
    m.data_set_writer_ids = None;
    m.messages.push(DataSetMessage::default());
    assert_eq!(enc_err(&m).kind, ErrorKind::InvalidCount);
    let mut m = seed_message(3);
    m.messages.clear();
    assert_eq!(enc_err(&m).kind, ErrorKind::InvalidCount);
    let mut m = seed_message(3);
    m.messages[0].padding = 2;
    assert_eq!(enc_err(&m).kind, ErrorKind::InvalidPadding);
    let mut m = seed_message(1);
    m.messages[0].payload =
        Payload::KeyFrame(vec![Variant::Array { ty: BuiltInType::Float, items: vec![Scalar::Int32(1)] }.into()]);
    let e = enc_err(&m);
    assert_eq!((e.kind, e.offset), (ErrorKind::TypeMismatch, 44));
    let mut m = seed_message(1);
    m.messages[0].field_encoding = FieldEncoding::DataValue;
    assert_eq!(enc_err(&m).kind, ErrorKind::FieldEncodingMismatch);
    let mut m = seed_message(1);
    m.messages[0].field_encoding = FieldEncoding::RawData;
    m.messages[0].payload = Payload::KeyFrame(vec![Variant::Null.into()]);
    assert_eq!(enc_err(&m).kind, ErrorKind::TypeMismatch);
    let mut m = seed_message(1);
    m.messages[0].field_encoding = FieldEncoding::Reserved;
    assert_eq!(enc_err(&m).kind, ErrorKind::FieldEncodingMismatch);
    let mut m = seed_message(1);
    m.messages[0].payload = Payload::KeyFrame(vec![Scalar::Byte(1).into(); 70_000]);
    assert_eq!(enc_err(&m).kind, ErrorKind::LengthLimit);
    let mut m = seed_message(1);
    m.data_set_writer_ids = Some(vec![1, 2]);
    m.messages.push(DataSetMessage::variant_key_frame(vec![Scalar::bytes(vec![0u8; 70_000]).into()]));
    assert_eq!(enc_err(&m).kind, ErrorKind::LengthLimit);
    // Fixed buffers: every too-short size fails with BufferTooSmall, never panics.
    let m = seed_message(3);
    for n in 0..54 {
        let mut buf = vec![0u8; n];
        let e = encode(&m, &mut SliceWriter::new(&mut buf)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::BufferTooSmall);
        assert!(e.offset <= n);
    }
}

/// Every valid message we can build, as bytes (vectors + hand-built).
fn corpus() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> =
        vectors().iter().filter(|v| v["encoding"] == "uadp").map(|v| unhex(v["hex"].as_str().unwrap())).collect();
    for n in [0, 1, 3, 10] {
        out.push(to_vec(&seed_message(n)).unwrap());
        out.push(to_vec(&minimal_message(n, FieldEncoding::Variant)).unwrap());
    }
    let mut two = seed_message(3);
    two.data_set_writer_ids = Some(vec![1000, 1001]);
    two.promoted_fields = Some(vec![Scalar::string("x").into()]);
    two.messages.push(DataSetMessage::variant_key_frame(seed_fields(2)));
    two.messages[1].padding = 2;
    out.push(to_vec(&two).unwrap());
    out
}

fn check_no_panic(bytes: &[u8], meta: &[DataSetMetaData]) -> Result<(), String> {
    let opts =
        DecodeOptions { raw_metadata: meta, skip_unknown: bytes.first() == Some(&0xd1), ..DecodeOptions::default() };
    catch_unwind(AssertUnwindSafe(|| match decode_with(bytes, &opts) {
        Ok((m, used)) => {
            assert!(used <= bytes.len());
            let again = to_vec(&m).expect("a decoded message re-encodes");
            let (m2, used2) = decode_with(&again, &opts).expect("re-encoded bytes decode");
            assert_eq!(used2, again.len());
            assert_eq!(to_vec(&m2).unwrap(), again, "fixed point");
        }
        Err(e) => assert!(e.offset <= bytes.len(), "offset {} past {}", e.offset, bytes.len()),
    }))
    .map_err(|_| format!("panic on {}", hex(bytes)))
}

#[test]
fn truncations_and_mutations_never_panic() {
    let meta = [DataSetMetaData {
        data_set_writer_id: None,
        fields: vec![
            FieldMetaData::scalar("a", BuiltInType::Float),
            FieldMetaData::scalar("b", BuiltInType::String),
            FieldMetaData { name: "c".into(), built_in_type: BuiltInType::Int16, array: true },
        ],
    }];
    let mut failures = Vec::new();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut runs = 0;
    for bytes in corpus() {
        for cut in 0..bytes.len() {
            failures.extend(check_no_panic(&bytes[..cut], &meta).err());
            runs += 1;
        }
        for _ in 0..400 {
            let mut b = bytes.clone();
            for _ in 0..1 + next() % 4 {
                let i = (next() as usize) % b.len().max(1);
                if let Some(slot) = b.get_mut(i) {
                    *slot = match next() % 4 {
                        0 => next() as u8,
                        1 => *slot ^ (1 << (next() % 8)),
                        2 => 0xff,
                        _ => 0x00,
                    };
                }
            }
            failures.extend(check_no_panic(&b, &meta).err());
            runs += 1;
        }
    }
    for _ in 0..5000 {
        let len = (next() % 64) as usize;
        let b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        failures.extend(check_no_panic(&b, &meta).err());
        runs += 1;
    }
    println!("{runs} hostile inputs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
