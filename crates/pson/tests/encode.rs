//! Byte-exact examples from spec §1.2–§1.8 and §2, plus the non-canonical
//! forms of §1.7 that the decoder must accept.

use pson::{decode, f64_len, header_len, i64_len, protoson, str_len, u64_len, Decoder, Encoder, Item, Value};

fn h(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn enc(f: impl FnOnce(&mut Encoder<Vec<u8>>)) -> Vec<u8> {
    let mut e = Encoder::new(Vec::new());
    f(&mut e);
    e.into_inner()
}

fn f64_bytes(d: f64) -> Vec<u8> {
    let b = enc(|e| {
        e.f64(d).unwrap();
    });
    assert_eq!(b.len(), f64_len(d), "f64_len({d})");
    b
}

#[test]
fn integers_and_headers() {
    // value -> bytes (§1.8, §1.2, §1.4)
    for (v, hex) in [
        (0u64, "00"),
        (30, "1e"),
        (31, "1f 1f"),
        (127, "1f 7f"),
        (128, "1f 80 01"),
        (16384, "1f 80 80 01"),
        (1351824120, "1f f8e5cc8405"),
        (u64::MAX, "1f ff ff ff ff ff ff ff ff ff 01"),
    ] {
        let b = enc(|e| {
            e.u64(v).unwrap();
        });
        assert_eq!(b, h(hex), "{v}");
        assert_eq!(u64_len(v), b.len());
        assert_eq!(header_len(v), b.len());
        assert_eq!(decode(&b).unwrap(), (Value::Uint(v), b.len()));
    }
    for (v, hex) in [
        (-1i64, "21"),
        (-2, "22"),
        (-30, "3e"),
        (-31, "3f 1f"),
        (i64::MIN, "3f 80 80 80 80 80 80 80 80 80 01"),
        (5, "05"),
    ] {
        let b = enc(|e| {
            e.i64(v).unwrap();
        });
        assert_eq!(b, h(hex), "{v}");
        assert_eq!(i64_len(v), b.len());
        let want = if v >= 0 { Value::Uint(v as u64) } else { Value::Int(v) };
        assert_eq!(decode(&b).unwrap(), (want, b.len()));
    }
}

#[test]
fn float_rule() {
    // 1. integral and in [-2^63, 2^63) -> integer
    assert_eq!(f64_bytes(1.0), h("01"));
    assert_eq!(f64_bytes(-2.0), h("22"));
    assert_eq!(f64_bytes(0.0), h("00"));
    assert_eq!(f64_bytes(-0.0), h("00"));
    assert_eq!(f64_bytes(4294967296.0), h("1f 80 80 80 80 10"));
    assert_eq!(f64_bytes(-9223372036854775808.0), h("3f 80 80 80 80 80 80 80 80 80 01"));
    // 2^63 is out of range -> exact in f32
    assert_eq!(f64_bytes(9223372036854775808.0), h("40 0000005f"));
    // 2. exact in f32
    assert_eq!(f64_bytes(48.75), h("40 00004342"));
    assert_eq!(f64_bytes(1.5), h("40 0000c03f"));
    assert_eq!(f64_bytes(f64::INFINITY), h("40 0000807f"));
    assert_eq!(f64_bytes(f64::NEG_INFINITY), h("40 000080ff"));
    assert_eq!(f64_bytes(f32::MAX as f64), h("40 ffff7f7f"));
    assert_eq!(f64_bytes(f32::from_bits(1) as f64), h("40 01000000")); // f32 subnormal
                                                                       // 3. otherwise f64
    assert_eq!(f64_bytes(2.3), h("41 6666666666660240"));
    assert_eq!(f64_bytes(1.03), h("41 7b14ae47e17af03f"));
    assert_eq!(f64_bytes(0.1)[0], 0x41);
    assert_eq!(f64_bytes(3.4e38)[0], 0x41);
    assert_eq!(f64_bytes(1e300)[0], 0x41);
    assert_eq!(f64_bytes(1e-300)[0], 0x41);
    // NaN (any sign/payload) -> canonical quiet NaN
    assert_eq!(f64_bytes(f64::NAN), h("41 000000000000f87f"));
    assert_eq!(f64_bytes(-f64::NAN), h("41 000000000000f87f"));
    assert_eq!(f64_bytes(f64::from_bits(0x7ff0_0000_0000_0001)), h("41 000000000000f87f"));
    // f32 input widens first
    let b = enc(|e| {
        e.f32(2.5).unwrap().f32(3.0).unwrap().f32(f32::NAN).unwrap();
    });
    assert_eq!(b, h("40 00002040 03 41 000000000000f87f"));
}

#[test]
fn discrete_strings_bytes_containers() {
    let b = enc(|e| {
        e.bool(false).unwrap().bool(true).unwrap().null().unwrap();
    });
    assert_eq!(b, h("60 61 62"));
    assert_eq!(
        enc(|e| {
            e.str("").unwrap();
        }),
        h("80")
    );
    assert_eq!(
        enc(|e| {
            e.bytes(&[]).unwrap();
        }),
        h("a0")
    );
    assert_eq!(
        enc(|e| {
            e.map(0).unwrap();
        }),
        h("c0")
    );
    assert_eq!(
        enc(|e| {
            e.array(0).unwrap();
        }),
        h("e0")
    );
    assert_eq!(
        enc(|e| {
            e.str("a\0b").unwrap();
        }),
        h("83 61 00 62")
    );
    // 31-byte string -> 9f 1f
    let s31 = "x".repeat(31);
    let b = enc(|e| {
        e.str(&s31).unwrap();
    });
    assert_eq!(&b[..2], &[0x9f, 0x1f]);
    assert_eq!(str_len(&s31), 33);
    // UTF-8 byte length
    assert_eq!(
        enc(|e| {
            e.str("é").unwrap();
        }),
        h("82 c3a9")
    );
    // [0..29] -> fe 00 01 .. ; [0..30] -> ff 1f 00 01 ..
    let a30 = Value::Array((0..30).map(Value::Uint).collect());
    assert_eq!(&a30.to_vec()[..3], &[0xfe, 0x00, 0x01]);
    let a31 = Value::Array((0..31).map(Value::Uint).collect());
    assert_eq!(&a31.to_vec()[..4], &[0xff, 0x1f, 0x00, 0x01]);
    // 31-pair map -> df 1f
    let keys: Vec<String> = (0..31).map(|i| format!("k{i}")).collect();
    let m31 = Value::Map(keys.iter().map(|k| (k.as_str(), Value::Null)).collect());
    assert_eq!(&m31.to_vec()[..2], &[0xdf, 0x1f]);
    assert_eq!(decode(&m31.to_vec()).unwrap().0, m31);
}

#[test]
fn paper_payload_test01() {
    // c3 86"sensor" 83"gps" 84"time" 1f f8e5cc8405 84"data" e2 40 00004342 41 6666666666660240
    let v = Value::Map(vec![
        ("sensor", Value::Str("gps")),
        ("time", Value::Uint(1351824120)),
        ("data", Value::Array(vec![Value::F64(48.75), Value::F64(2.3)])),
    ]);
    let want =
        h("c3 86 73656e736f72 83 677073 84 74696d65 1f f8e5cc8405 84 64617461 e2 40 00004342 41 6666666666660240");
    assert_eq!(v.to_vec(), want);
    assert_eq!(v.encoded_len(), 43);
    // decode: 48.75 comes back as F32
    let (d, n) = decode(&want).unwrap();
    assert_eq!(n, 43);
    let Value::Map(m) = &d else { panic!() };
    assert_eq!(m[2].1, Value::Array(vec![Value::F32(48.75), Value::F64(2.3)]));
    // streaming encoder gives the same bytes
    let b = enc(|e| {
        e.map(3).unwrap();
        e.str("sensor").unwrap().str("gps").unwrap();
        e.str("time").unwrap().u64(1351824120).unwrap();
        e.str("data").unwrap().array(2).unwrap().f64(48.75).unwrap().f64(2.3).unwrap();
    });
    assert_eq!(b, want);
}

#[test]
fn non_canonical_forms_accepted() {
    let ok = |hex: &str, v: Value<'static>, used: usize| {
        assert_eq!(decode(&h(hex)), Ok((v, used)), "{hex}");
    };
    ok("1f 05", Value::Uint(5), 2); // escape with small value
    ok("1f 80 00", Value::Uint(0), 3); // over-long varint
    ok("1f ff ff ff ff ff ff ff ff ff 7f", Value::Uint(u64::MAX), 11); // 10th byte: bits above 2^64 dropped
    ok("1f ff ff ff ff ff ff ff ff 7f", Value::Uint(i64::MAX as u64), 10);
    ok("1f 80 80 80 80 80 80 80 80 80 7e", Value::Uint(0), 11); // only bit 63 of 10th byte counts
    ok("20", Value::Int(0), 1); // signed zero
    ok("5f 00 0000c03f", Value::F32(1.5), 6); // escaped float header
    ok("5f 01 000000000000f03f", Value::F64(1.0), 10);
    ok("7f 00", Value::Bool(false), 2); // escaped discrete
    ok("7f 02", Value::Null, 2);
    ok("61 ff ff", Value::Bool(true), 1); // trailing bytes
    ok("9f 02 6869", Value::Str("hi"), 4);
    ok("df 01 81 61 01", Value::Map(vec![("a", Value::Uint(1))]), 5);
    // duplicate keys: both kept, count includes both
    ok("c2 81 61 01 81 61 02", Value::Map(vec![("a", Value::Uint(1)), ("a", Value::Uint(2))]), 7);
    // empty key
    ok("c1 80 62", Value::Map(vec![("", Value::Null)]), 3);
}

#[test]
fn pull_decoder() {
    let input = h("c2 81 61 e2 01 40 0000c03f 81 62 a2 beef");
    let mut d = Decoder::new(&input);
    assert_eq!(d.next(), Ok(Item::Map(2)));
    assert_eq!(d.key(), Ok("a"));
    assert_eq!(d.next(), Ok(Item::Array(2)));
    assert_eq!(d.next(), Ok(Item::Uint(1)));
    assert_eq!(d.next(), Ok(Item::F32(1.5)));
    assert_eq!(d.key(), Ok("b"));
    assert_eq!(d.next(), Ok(Item::Bytes(&[0xbe, 0xef])));
    assert_eq!(d.position(), input.len());
    assert_eq!(d.remaining(), 0);
    assert_eq!(d.next().unwrap_err().kind, pson::ErrorKind::UnexpectedEnd);
}

#[test]
fn protoson_examples() {
    let p = |v: &Value<'_>| {
        let mut out = Vec::new();
        protoson::encode(v, &mut out).unwrap();
        assert_eq!(out.len(), protoson::encoded_len(v));
        out
    };
    assert_eq!(p(&Value::Uint(0)), h("38"));
    assert_eq!(p(&Value::Uint(1)), h("40"));
    assert_eq!(p(&Value::Int(1)), h("40"));
    assert_eq!(p(&Value::Uint(31)), h("08 1f"));
    assert_eq!(p(&Value::Int(-2)), h("10 02"));
    assert_eq!(p(&Value::Int(i64::MIN)), h("10 80 80 80 80 80 80 80 80 80 01"));
    assert_eq!(p(&Value::Null), h("00"));
    assert_eq!(p(&Value::Bool(true)), h("28"));
    assert_eq!(p(&Value::Bool(false)), h("30"));
    assert_eq!(p(&Value::Str("")), h("50"));
    assert_eq!(p(&Value::Bytes(&[])), h("60"));
    assert_eq!(p(&Value::Bytes(&[0, 0xff, 0x7f])), h("5a 03 00ff7f"));
    assert_eq!(p(&Value::Map(vec![])), h("6a 00"));
    assert_eq!(p(&Value::Array(vec![])), h("72 00"));
    assert_eq!(p(&Value::Map(vec![("neg", Value::Int(-2))])), h("6a 06 03 6e6567 10 02"));
    // lossy floats
    assert_eq!(p(&Value::F64(2.3)), h("1d 33331340"));
    assert_eq!(p(&Value::F64(1.03)), h("1d 0ad7833f"));
    assert_eq!(p(&Value::F64(1e-300)), h("1d 00000000"));
    assert_eq!(p(&Value::F64(1.0)), h("40"));
    assert_eq!(p(&Value::F64(-0.0)), h("38"));
    assert_eq!(p(&Value::F64(0.1))[0], 0x1d);
    assert_eq!(p(&Value::F64(1e300))[0], 0x21);
    assert_eq!(p(&Value::F64(f64::INFINITY)), h("21 000000000000f07f"));
    assert_eq!(p(&Value::F64(f64::NAN)), h("21 000000000000f87f"));
    assert_eq!(p(&Value::F64(9223372036854775808.0)), h("1d 0000005f"));
    // strings: whole by default, C-string truncation on request
    assert_eq!(p(&Value::Str("a\0b")), h("4a 03 610062"));
    let c = protoson::EncodeOptions { c_strings: true };
    let mut out = Vec::new();
    protoson::encode_with(&Value::Str("a\0b"), &mut out, &c).unwrap();
    assert_eq!(out, h("4a 01 61"));
    out.clear();
    protoson::encode_with(&Value::Str("\0b"), &mut out, &c).unwrap();
    assert_eq!(out, h("50"));
    // nested (vector "nested")
    let nested = h("6a2301616a1601626a120163720e40720b0802720708036a03016400016572056a00720050");
    let (v, n) = protoson::decode(&nested).unwrap();
    assert_eq!(n, nested.len());
    assert_eq!(p(&v), nested);
    assert_eq!(v.to_vec(), h("c28161c18162c18163e201e202e203c18164628165e3c0e080"));
    // decoder extras: tag 78 ("empty") -> Null, trailing bytes allowed
    assert_eq!(protoson::decode(&h("78 00")), Ok((Value::Null, 1)));
    assert_eq!(protoson::decode(&h("10 00")), Ok((Value::Int(0), 2)));
    assert_eq!(protoson::decode(&h("09 05")), Ok((Value::Uint(5), 2))); // wire type not checked
}
