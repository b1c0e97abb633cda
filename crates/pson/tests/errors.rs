//! One hand-written case per error kind, with the exact offset.
//! Byte strings are annotated field by field.

use pson::{decode, decode_exact, decode_with, protoson, Decoder, Error, ErrorKind, Item, Limits};

fn err(input: &[u8]) -> Error {
    match decode(input) {
        Ok(v) => panic!("expected an error for {input:02x?}, got {v:?}"),
        Err(e) => e,
    }
}

fn perr(input: &[u8]) -> Error {
    match protoson::decode(input) {
        Ok(v) => panic!("expected a protoson error for {input:02x?}, got {v:?}"),
        Err(e) => e,
    }
}

fn e(kind: ErrorKind, offset: usize) -> Error {
    Error { kind, offset }
}

#[test]
fn unexpected_end_offset_is_where_missing_data_starts() {
    // (empty input): the header byte is missing at 0
    assert_eq!(err(&[]), e(ErrorKind::UnexpectedEnd, 0));
    // 84 = str[4] | 61 = 'a' | (3 bytes missing from offset 2)
    assert_eq!(err(&[0x84, 0x61]), e(ErrorKind::UnexpectedEnd, 2));
    // 40 = f32 | 00 00 = 2 of 4 payload bytes
    assert_eq!(err(&[0x40, 0x00, 0x00]), e(ErrorKind::UnexpectedEnd, 3));
    // 41 = f64 | (no payload)
    assert_eq!(err(&[0x41]), e(ErrorKind::UnexpectedEnd, 1));
    // 1f = uint, escape | 80 = varint byte with continuation | (end)
    assert_eq!(err(&[0x1f, 0x80]), e(ErrorKind::UnexpectedEnd, 2));
    // 1f = uint, escape | (varint missing)
    assert_eq!(err(&[0x1f]), e(ErrorKind::UnexpectedEnd, 1));
    // a3 = bytes[3] | 00 ff = 2 of 3 bytes
    assert_eq!(err(&[0xa3, 0x00, 0xff]), e(ErrorKind::UnexpectedEnd, 3));
    // c1 = map(1) | 81 61 = key "a" | (value missing) -> count check passes
    // (2 bytes remain for 1 pair), then the value header is missing at 3
    assert_eq!(err(&[0xc1, 0x81, 0x61]), e(ErrorKind::UnexpectedEnd, 3));
}

#[test]
fn varint_too_long_at_the_11th_byte() {
    // 1f = uint, escape | ff x10 = 10 varint bytes, all with continuation | 01 = 11th byte (offset 11)
    let mut v = vec![0x1f];
    v.extend([0xff; 10]);
    v.push(0x01);
    assert_eq!(err(&v), e(ErrorKind::VarintTooLong, 11));
    // same without the 11th byte present: still too long (not "unexpected end")
    assert_eq!(err(&v[..11]), e(ErrorKind::VarintTooLong, 11));
    // 9f = str, escape | 80 x10 | 00 -> offset 11 as well
    let mut s = vec![0x9f];
    s.extend([0x80; 10]);
    s.push(0x00);
    assert_eq!(err(&s), e(ErrorKind::VarintTooLong, 11));
}

#[test]
fn invalid_float_width_at_header() {
    // 42 = floating, payload 2 (neither f32 nor f64)
    assert_eq!(err(&[0x42]), e(ErrorKind::InvalidFloatWidth, 0));
    // e1 = array(1) | 5f 02 = floating, escaped payload 2
    assert_eq!(err(&[0xe1, 0x5f, 0x02]), e(ErrorKind::InvalidFloatWidth, 1));
}

#[test]
fn invalid_discrete_at_header() {
    // 63 = discrete, payload 3
    assert_eq!(err(&[0x63]), e(ErrorKind::InvalidDiscrete, 0));
    // 7f 1f = discrete, escaped payload 31
    assert_eq!(err(&[0x7f, 0x1f]), e(ErrorKind::InvalidDiscrete, 0));
}

#[test]
fn non_string_key_at_key_header() {
    // c1 = map(1) | 01 = key item is uint 1 (wire 0) | 01 = value
    let er = err(&[0xc1, 0x01, 0x01]);
    assert_eq!(er, e(ErrorKind::NonStringKey, 1));
    assert_eq!(er.to_string(), "map key is not a string at byte 1");
    // c2 = map(2) | 81 61 01 = "a": 1 | a0 = bytes key (wire 5) | 01
    assert_eq!(err(&[0xc2, 0x81, 0x61, 0x01, 0xa0, 0x01]), e(ErrorKind::NonStringKey, 4));
    // Decoder::key directly
    assert_eq!(Decoder::new(&[0x61]).key(), Err(e(ErrorKind::NonStringKey, 0)));
}

#[test]
fn integer_overflow_for_magnitude_above_2_pow_63() {
    // 3f = negative, escape | 81 80 80 80 80 80 80 80 80 01 = 2^63 + 1
    let v = [0x3f, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01];
    assert_eq!(err(&v), e(ErrorKind::IntegerOverflow, 0));
    // magnitude exactly 2^63 is i64::MIN
    let min = [0x3f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01];
    assert_eq!(decode(&min).unwrap().0, pson::Value::Int(i64::MIN));
}

#[test]
fn invalid_utf8_at_first_bad_byte() {
    // 83 = str[3] | 61 = 'a' | ff = invalid | 62
    assert_eq!(err(&[0x83, 0x61, 0xff, 0x62]), e(ErrorKind::InvalidUtf8, 2));
    // c1 = map(1) | 81 c3 = key of 1 byte, a lone UTF-8 lead byte | 01
    assert_eq!(err(&[0xc1, 0x81, 0xc3, 0x01]), e(ErrorKind::InvalidUtf8, 2));
}

#[test]
fn depth_limit() {
    // e1 x200 = 200 nested arrays of 1, then 01
    let mut v = vec![0xe1; 200];
    v.push(0x01);
    // the 129th array (offset 128) is one level too deep
    assert_eq!(err(&v), e(ErrorKind::DepthLimit, 128));
    // exactly 128 levels decode
    let mut ok = vec![0xe1; 128];
    ok.push(0x01);
    assert!(decode(&ok).is_ok());
    // custom limit; empty containers count too
    assert_eq!(decode_with(&[0xe1, 0xe1, 0xe0], &Limits { max_depth: 2 }), Err(e(ErrorKind::DepthLimit, 2)));
    assert_eq!(decode_with(&[0xc0], &Limits { max_depth: 0 }), Err(e(ErrorKind::DepthLimit, 0)));
    assert!(decode_with(&[0x01], &Limits { max_depth: 0 }).is_ok());
    // very deep input with a huge limit: iterative, no stack overflow
    let deep = vec![0xe1; 100_000];
    let r = decode_with(&deep, &Limits { max_depth: usize::MAX });
    assert_eq!(r.err().map(|x| x.kind), Some(ErrorKind::LengthLimit));
}

#[test]
fn length_limit_before_allocation() {
    // ff = array, escape | ff ff ff ff ff ff ff ff ff 01 = 2^64-1 elements | e0
    let mut v = vec![0xff];
    v.extend([0xff; 9]);
    v.extend([0x01, 0xe0]);
    assert_eq!(err(&v), e(ErrorKind::LengthLimit, 0));
    // e2 = array(2) | 01 -> only 1 byte for 2 elements
    assert_eq!(err(&[0xe2, 0x01]), e(ErrorKind::LengthLimit, 0));
    // c2 = map(2) | 81 61 01 -> 3 bytes for 2 pairs (each >= 2)
    assert_eq!(err(&[0xc2, 0x81, 0x61, 0x01]), e(ErrorKind::LengthLimit, 0));
    // df = map, escape | 80 80 80 80 01 = 2^28 pairs | ...
    assert_eq!(err(&[0xdf, 0x80, 0x80, 0x80, 0x80, 0x01, 0x80, 0x00]), e(ErrorKind::LengthLimit, 0));
    // e1 = array(1) | e1 = array(1) with nothing left
    assert_eq!(err(&[0xe1, 0xe1]), e(ErrorKind::LengthLimit, 1));
    // pull decoder reports the same
    assert_eq!(Decoder::new(&[0xe2, 0x01]).next(), Err(e(ErrorKind::LengthLimit, 0)));
}

#[test]
fn trailing_bytes_only_for_decode_exact() {
    // 01 = uint 1 | 02 = trailing
    assert_eq!(decode(&[0x01, 0x02]), Ok((pson::Value::Uint(1), 1)));
    assert_eq!(decode_exact(&[0x01, 0x02]), Err(e(ErrorKind::TrailingBytes, 1)));
}

#[test]
fn buffer_too_small_at_write_position() {
    let mut buf = [0u8; 3];
    let mut enc = pson::Encoder::new(pson::SliceWriter::new(&mut buf));
    enc.u64(1).unwrap();
    // "abc" needs 4 bytes, only 2 left: the header 83 fits (position 2), the
    // body does not: error at position 2, the body is not written (each
    // write_all is all-or-nothing; an item may be left partial).
    assert_eq!(enc.str("abc").err(), Some(e(ErrorKind::BufferTooSmall, 2)));
    assert_eq!(enc.writer().position(), 2);
    enc.bool(true).unwrap();
    assert_eq!(enc.null().err(), Some(e(ErrorKind::BufferTooSmall, 3)));
    assert_eq!(buf, [0x01, 0x83, 0x61]);
    // zero-sized buffer
    let mut empty = [0u8; 0];
    let mut enc = pson::Encoder::new(pson::SliceWriter::new(&mut empty));
    assert_eq!(enc.array(0).err(), Some(e(ErrorKind::BufferTooSmall, 0)));
}

#[test]
fn protoson_errors() {
    // 80 = field 16, wire 0 (unknown field type)
    assert_eq!(perr(&[0x80, 0x01]), e(ErrorKind::UnknownFieldType, 0));
    // 72 03 = array, 3 body bytes | 08 = positive int, wire varint ... declared
    // body ends at 5 but the varint 80 80 01 ends at 6
    assert_eq!(perr(&[0x72, 0x03, 0x08, 0x80, 0x80, 0x01]), e(ErrorKind::LengthMismatch, 2));
    // 6a 02 = object, 2 body bytes | 01 61 = key "a" | (value would start at 4 = end)
    assert_eq!(perr(&[0x6a, 0x02, 0x01, 0x61, 0x40]), e(ErrorKind::LengthMismatch, 2));
    // 72 02 = array, 2 bytes | 72 05 ... = child array claiming 5 bytes
    assert_eq!(perr(&[0x72, 0x02, 0x72, 0x05, 0x40, 0x40, 0x40, 0x40, 0x40]), e(ErrorKind::LengthMismatch, 2));
    // 4a 05 61 = string of 5 bytes, only 1 present
    assert_eq!(perr(&[0x4a, 0x05, 0x61]), e(ErrorKind::UnexpectedEnd, 3));
    // 1d 00 00 = float, 2 of 4 bytes
    assert_eq!(perr(&[0x1d, 0x00, 0x00]), e(ErrorKind::UnexpectedEnd, 3));
    // empty input
    assert_eq!(perr(&[]), e(ErrorKind::UnexpectedEnd, 0));
    // 10 = negative int | 81 80 80 80 80 80 80 80 80 01 = 2^63 + 1
    assert_eq!(
        perr(&[0x10, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
        e(ErrorKind::IntegerOverflow, 0)
    );
    // 4a 01 ff = string with invalid UTF-8 at 2
    assert_eq!(perr(&[0x4a, 0x01, 0xff]), e(ErrorKind::InvalidUtf8, 2));
    // 48 = string field with varint wire type (needs length-delimited)
    assert_eq!(perr(&[0x48, 0x00]), e(ErrorKind::UnknownFieldType, 0));
    // 0a = varint field with length-delimited wire type
    assert_eq!(perr(&[0x0a, 0x00]), e(ErrorKind::UnknownFieldType, 0));
    // 08 ff x10 = 11-byte varint
    let mut v = vec![0x08];
    v.extend([0xff; 10]);
    assert_eq!(perr(&v), e(ErrorKind::VarintTooLong, 11));
    // depth: 72 (len) nested 200 times
    // (built from the inside out: 00 = null, wrapped 200 times in 72 <len>)
    let mut body: Vec<u8> = vec![0x00];
    for _ in 0..200 {
        let mut outer = vec![0x72];
        let mut len = [0u8; 10];
        let mut n = body.len() as u64;
        let mut k = 0;
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            len[k] = if n != 0 { b | 0x80 } else { b };
            k += 1;
            if n == 0 {
                break;
            }
        }
        outer.extend_from_slice(&len[..k]);
        outer.extend_from_slice(&body);
        body = outer;
    }
    let deep = body;
    assert_eq!(perr(&deep).kind, ErrorKind::DepthLimit);
    assert!(protoson::decode_with(&deep, &Limits { max_depth: 201 }).is_ok());
}

#[test]
fn display_is_one_line_ending_with_offset() {
    for kind in ErrorKind::ALL {
        let s = Error { kind, offset: 42 }.to_string();
        assert!(s.ends_with(" at byte 42"), "{s}");
        assert!(!s.contains('\n'));
        assert!(!kind.name().is_empty());
    }
    assert_eq!(Error { kind: ErrorKind::UnexpectedEnd, offset: 3 }.to_string(), "unexpected end of input at byte 3");
    let names: Vec<_> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(
        names,
        [
            "unexpected_end",
            "varint_too_long",
            "invalid_float_width",
            "invalid_discrete",
            "non_string_key",
            "integer_overflow",
            "invalid_utf8",
            "depth_limit",
            "length_limit",
            "buffer_too_small",
            "trailing_bytes",
            "unknown_field_type",
            "length_mismatch"
        ]
    );
    let boxed: Box<dyn std::error::Error> = Box::new(Error { kind: ErrorKind::DepthLimit, offset: 0 });
    assert!(boxed.to_string().contains("at byte 0"));
}

#[test]
fn decoder_position_unchanged_after_error() {
    // 01 | 84 61 (truncated string)
    let mut d = Decoder::new(&[0x01, 0x84, 0x61]);
    assert_eq!(d.next(), Ok(Item::Uint(1)));
    assert_eq!(d.next(), Err(e(ErrorKind::UnexpectedEnd, 3)));
    assert_eq!(d.position(), 1);
    assert_eq!(d.remaining(), 2);
}
