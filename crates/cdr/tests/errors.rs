//! Errors: kinds, offsets, messages; malformed and truncated input never
//! panics; limits; type evolution (appendable / mutable readers).

use cdr::{
    decode, decode_with, encode, idl, Decoder, Encoder, Encoding, Error, ErrorKind, Extensibility, Limits, Member,
    SliceWriter, StructDesc, TypeDesc, Value,
};

fn ty(src: &str, name: &str) -> TypeDesc {
    idl::parse(src).unwrap().get(name).unwrap().clone()
}

fn kind(r: Result<Value, Error>) -> (ErrorKind, usize) {
    let e = r.expect_err("must fail");
    (e.kind, e.offset)
}

const SENSOR: &str = "@final struct Sensor { long id; double ts; float values[3]; string name; \
                      sequence<short> samples; boolean ok; };";

fn sensor() -> (TypeDesc, Value) {
    (
        ty(SENSOR, "Sensor"),
        Value::Struct(vec![
            Value::Int(42),
            Value::F64(1.5),
            Value::Seq(vec![Value::F32(1.0), Value::F32(2.0), Value::F32(3.0)]),
            Value::String("imu".into()),
            Value::Seq(vec![Value::Int(-1), Value::Int(2), Value::Int(300)]),
            Value::Bool(true),
        ]),
    )
}

#[test]
fn kinds_have_unique_snake_case_names_and_messages_end_with_the_offset() {
    let mut names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
    assert!(names.iter().all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')));
    names.sort();
    names.dedup();
    assert_eq!(names.len(), ErrorKind::ALL.len());
    let e = Error::new(ErrorKind::UnexpectedEnd, 3);
    assert_eq!(e.to_string(), "unexpected end of input at byte 3");
    for k in ErrorKind::ALL {
        assert!(Error::new(k, 17).to_string().ends_with(" at byte 17"));
    }
}

#[test]
fn every_truncation_fails_cleanly() {
    let (t, v) = sensor();
    for enc in Encoding::ALL {
        let bytes = encode(&t, &v, enc).unwrap();
        for cut in 0..bytes.len() {
            let (k, off) = kind(decode(&t, &bytes[..cut]));
            assert!(
                matches!(k, ErrorKind::UnexpectedEnd | ErrorKind::TrailingBytes | ErrorKind::LengthLimit),
                "{enc} cut {cut}: {k:?}"
            );
            assert!(off <= cut, "{enc} cut {cut}: offset {off}");
        }
    }
}

#[test]
fn header_errors() {
    let (t, _) = sensor();
    assert_eq!(kind(decode(&t, &[0, 1])), (ErrorKind::UnexpectedEnd, 2));
    assert_eq!(kind(decode(&t, &[0, 0x04, 0, 0])), (ErrorKind::InvalidHeader, 1));
    assert_eq!(kind(decode(&t, &[1, 0x01, 0, 0])), (ErrorKind::InvalidHeader, 0));
    // options & 3 = 3 but only 2 bytes follow the header.
    assert_eq!(kind(decode(&t, &[0, 0x01, 0, 3, 0, 0])), (ErrorKind::InvalidHeader, 3));
}

#[test]
fn sequence_count_beyond_the_input_is_an_error_not_an_allocation() {
    let t = ty("struct S { sequence<long long> s; };", "S");
    let bytes = [0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0];
    assert_eq!(kind(decode(&t, &bytes)), (ErrorKind::LengthLimit, 4));
    let t = ty("struct S { sequence<octet> s; };", "S");
    assert_eq!(kind(decode(&t, &bytes)), (ErrorKind::LengthLimit, 4));
    // Zero-size elements: bounded by Limits::max_empty_elements instead.
    let empty = TypeDesc::structure(StructDesc::new("E", Extensibility::Final, vec![]));
    let t = TypeDesc::sequence(empty);
    assert_eq!(kind(decode(&t, &[0, 1, 0, 0, 0xff, 0xff, 0xff, 0x0f])), (ErrorKind::LengthLimit, 4));
    let ok = decode(&t, &[0, 1, 0, 0, 3, 0, 0, 0]).unwrap();
    assert_eq!(ok, Value::Seq(vec![Value::Struct(vec![]); 3]));
}

#[test]
fn string_errors() {
    let t = TypeDesc::String { bound: Some(3) };
    assert_eq!(kind(decode(&t, &[0, 1, 0, 0, 0, 0, 0, 0])), (ErrorKind::InvalidString, 4));
    assert_eq!(kind(decode(&t, &[0, 1, 0, 0, 2, 0, 0, 0, b'a', b'b'])), (ErrorKind::InvalidString, 9));
    assert_eq!(kind(decode(&t, &[0, 1, 0, 0, 3, 0, 0, 0, 0xc3, 0x28, 0])), (ErrorKind::InvalidUtf8, 8));
    assert_eq!(kind(decode(&t, &[0, 1, 0, 0, 5, 0, 0, 0, b'a', b'b', b'c', b'd', 0])), (ErrorKind::BoundExceeded, 4));
    assert_eq!(kind(decode(&t, &[0, 1, 0, 0, 9, 0, 0, 0, b'a'])), (ErrorKind::UnexpectedEnd, 9));
    let e = encode(&t, &Value::String("abcd".into()), Encoding::XCDR2_LE).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::BoundExceeded, 4));
    assert_eq!(decode(&t, &[0, 1, 0, 0, 1, 0, 0, 0, 0]).unwrap(), Value::String(String::new()));
}

#[test]
fn bool_enum_and_discriminator_errors() {
    assert_eq!(kind(decode(&TypeDesc::Bool, &[0, 1, 0, 0, 2])), (ErrorKind::InvalidBool, 4));
    let t = ty("enum C { A, B }; struct S { C c; };", "S");
    assert_eq!(kind(decode(&t, &[0, 1, 0, 0, 7, 0, 0, 0])), (ErrorKind::InvalidEnum, 4));
    let e = encode(&t, &Value::Struct(vec![Value::Enum(7)]), Encoding::XCDR1_LE).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidEnum);
    let u = ty("union U switch(octet) { case 1: long a; };", "U");
    let e = encode(&u, &Value::Union { disc: 300, value: None }, Encoding::XCDR1_LE).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::OutOfRange, 4));
    let e = encode(&u, &Value::Union { disc: 1, value: None }, Encoding::XCDR1_LE).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TypeMismatch);
    let e =
        encode(&u, &Value::Union { disc: 2, value: Some(Box::new(Value::Int(1))) }, Encoding::XCDR1_LE).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TypeMismatch);
    // A discriminator that selects nothing is a valid, empty union.
    let b = encode(&u, &Value::Union { disc: 2, value: None }, Encoding::XCDR1_LE).unwrap();
    assert_eq!(b, [0, 1, 0, 0, 2]);
    assert_eq!(decode(&u, &b).unwrap(), Value::Union { disc: 2, value: None });
}

#[test]
fn encode_value_errors() {
    let (t, _) = sensor();
    let bad = |v: Value| encode(&t, &v, Encoding::XCDR1_LE).unwrap_err().kind;
    let base = |i: usize, x: Value| {
        let (_, mut v) = sensor();
        if let Value::Struct(m) = &mut v {
            m[i] = x;
        }
        v
    };
    assert_eq!(bad(base(0, Value::Int(1 << 40))), ErrorKind::OutOfRange);
    assert_eq!(bad(base(0, Value::String("x".into()))), ErrorKind::TypeMismatch);
    assert_eq!(bad(base(0, Value::Null)), ErrorKind::TypeMismatch);
    assert_eq!(bad(base(2, Value::Seq(vec![Value::F32(1.0)]))), ErrorKind::ArrayLength);
    assert_eq!(bad(Value::Struct(vec![])), ErrorKind::TypeMismatch);
    assert_eq!(bad(Value::Int(1)), ErrorKind::TypeMismatch);
    let e = encode(&TypeDesc::Char, &Value::Char('日'), Encoding::XCDR1_LE).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfRange);
    let e = encode(&TypeDesc::UInt16, &Value::Int(-1), Encoding::XCDR1_LE).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfRange);
    // Accepted conversions: either integer variant in range, either float width.
    assert!(encode(&TypeDesc::Int8, &Value::UInt(5), Encoding::XCDR1_LE).is_ok());
    assert!(encode(&TypeDesc::Float32, &Value::F64(0.5), Encoding::XCDR1_LE).is_ok());
    // An error leaves the output buffer as it was.
    let mut out = vec![9u8];
    assert!(Encoder::new(Encoding::XCDR1_LE).encode_append(&t, &Value::Null, &mut out).is_err());
    assert_eq!(out, [9]);
}

#[test]
fn slice_writer_too_small() {
    let (t, v) = sensor();
    let need = Encoder::new(Encoding::XCDR2_LE).encoded_len(&t, &v).unwrap();
    assert_eq!(need, encode(&t, &v, Encoding::XCDR2_LE).unwrap().len());
    let mut buf = vec![0u8; need - 1];
    let e = Encoder::new(Encoding::XCDR2_LE).encode_to(&t, &v, SliceWriter::new(&mut buf)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::BufferTooSmall);
    let mut buf = vec![0u8; need];
    assert_eq!(Encoder::new(Encoding::XCDR2_LE).encode_to(&t, &v, SliceWriter::new(&mut buf)).unwrap(), need);
}

#[test]
fn depth_limits() {
    let mut t = TypeDesc::Int32;
    let mut v = Value::Int(1);
    for _ in 0..100 {
        t = TypeDesc::structure(StructDesc::new("N", Extensibility::Final, vec![Member::new("n", t)]));
        v = Value::Struct(vec![v]);
    }
    let e = encode(&t, &v, Encoding::XCDR1_LE).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DepthLimit);
    let bytes = Encoder::new(Encoding::XCDR1_LE).max_depth(200).encode(&t, &v).unwrap();
    assert_eq!(kind(decode(&t, &bytes)).0, ErrorKind::DepthLimit);
    let deep = Limits { max_depth: 200, ..Limits::default() };
    assert_eq!(decode_with(&t, &bytes, &deep).unwrap(), v);
}

#[test]
fn trailing_bytes_and_padding() {
    let (t, v) = sensor();
    let mut b = encode(&t, &v, Encoding::XCDR1_LE).unwrap();
    let n = b.len();
    b.push(0);
    assert_eq!(kind(decode(&t, &b)), (ErrorKind::TrailingBytes, n));
    assert_eq!(Decoder::new().allow_trailing(true).decode(&t, &b).unwrap(), v);
    b[3] = 1; // now it is declared padding
    assert_eq!(decode(&t, &b).unwrap(), v);
}

#[test]
fn dheader_and_member_lengths_are_enforced() {
    let t = ty("@appendable struct A { long x; long y; };", "A");
    // DHEADER larger than the input.
    assert_eq!(kind(decode(&t, &[0, 9, 0, 0, 100, 0, 0, 0, 1, 0, 0, 0])), (ErrorKind::UnexpectedEnd, 12));
    // A member that runs past its DHEADER: y needs 4 bytes, the body has 6.
    let (k, _) = kind(decode(&t, &[0, 9, 0, 0, 6, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]));
    assert_eq!(k, ErrorKind::LengthMismatch);
    // An older writer (fewer members): the rest take their defaults.
    assert_eq!(
        decode(&t, &[0, 9, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0]).unwrap(),
        Value::Struct(vec![Value::Int(1), Value::Int(0)])
    );
    // A newer writer (an extra member): skipped.
    assert_eq!(
        decode(&t, &[0, 9, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]).unwrap(),
        Value::Struct(vec![Value::Int(1), Value::Int(2)])
    );
}

#[test]
fn mutable_readers() {
    let t = ty("@mutable struct M { long a; @optional long b; @key long k; };", "M");
    // XCDR2: members out of order, an unknown member (id 9) skipped, b absent.
    #[rustfmt::skip]
    let b = [
        0, 0x0b, 0, 0, 24, 0, 0, 0,
        0x02, 0, 0, 0x20, 5, 0, 0, 0,           // k = 5 (id 2)
        0x09, 0, 0, 0x20, 7, 0, 0, 0,           // unknown id 9
        0x00, 0, 0, 0x20, 1, 0, 0, 0,           // a = 1
    ];
    assert_eq!(decode(&t, &b).unwrap(), Value::Struct(vec![Value::Int(1), Value::Null, Value::Int(5)]));
    // The same unknown member with the must-understand flag.
    let mut mu = b;
    mu[19] = 0xa0;
    assert_eq!(kind(decode(&t, &mu)), (ErrorKind::MustUnderstand, 16));
    // The key member missing.
    #[rustfmt::skip]
    let nokey = [0, 0x0b, 0, 0, 8, 0, 0, 0, 0x00, 0, 0, 0x20, 1, 0, 0, 0];
    assert_eq!(kind(decode(&t, &nokey)).0, ErrorKind::MissingKey);
    // An EMHEADER length past the DHEADER.
    #[rustfmt::skip]
    let long = [0, 0x0b, 0, 0, 8, 0, 0, 0, 0x00, 0, 0, 0x40, 100, 0, 0, 0];
    assert!(matches!(kind(decode(&t, &long)).0, ErrorKind::LengthMismatch | ErrorKind::UnexpectedEnd));
    // XCDR1: the short parameter header form (id in the PID) is read too.
    #[rustfmt::skip]
    let short = [
        0, 0x03, 0, 0,
        0x02, 0x40, 4, 0, 5, 0, 0, 0,           // PID 2 | MU, length 4: k = 5
        0x00, 0x00, 4, 0, 1, 0, 0, 0,           // PID 0, length 4: a = 1
        0x02, 0x3f, 0, 0,                       // PID_LIST_END
    ];
    assert_eq!(decode(&t, &short).unwrap(), Value::Struct(vec![Value::Int(1), Value::Null, Value::Int(5)]));
    // An extended header whose length is not 8.
    #[rustfmt::skip]
    let bad = [0, 0x03, 0, 0, 0x01, 0x7f, 4, 0, 0, 0, 0, 0];
    assert_eq!(kind(decode(&t, &bad)), (ErrorKind::InvalidParameter, 4));
    // No PID_LIST_END.
    assert_eq!(kind(decode(&t, &short[..20])).0, ErrorKind::UnexpectedEnd);
}

#[test]
fn random_garbage_never_panics() {
    let (t, v) = sensor();
    let types = [
        t,
        ty("@mutable struct M { long a; @optional string b; sequence<double> c; };", "M"),
        ty("union U switch(short) { case 1: string s; default: sequence<long> l; }; @appendable struct S { U u; @optional U o; };", "S"),
    ];
    let mut seed: u64 = 0x1234_5678;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let good = encode(&types[0], &v, Encoding::XCDR1_LE).unwrap();
    for round in 0..20_000 {
        let t = &types[round % types.len()];
        let mut b: Vec<u8> =
            if round % 2 == 0 { good.clone() } else { (0..(next() % 64) as usize).map(|_| next() as u8).collect() };
        for _ in 0..(next() % 4) {
            if !b.is_empty() {
                let i = (next() as usize) % b.len();
                b[i] = next() as u8;
            }
        }
        if b.len() >= 2 && round % 3 == 0 {
            b[0] = 0;
            b[1] = [0, 1, 2, 3, 6, 7, 8, 9, 10, 11][(next() % 10) as usize];
        }
        if let Ok(v) = decode(t, &b) {
            // Whatever decodes re-encodes.
            let h = cdr::Header::parse(&b).unwrap();
            assert!(Encoder::new(h.encoding()).encode(t, &v).is_ok());
        }
    }
}
