//! Property tests: encode → decode round trips (after the documented
//! normalisations), size helpers, panic-freedom on arbitrary input.

use proptest::prelude::*;
use pson::{decode, decode_exact, protoson, Decoder, Encoder, ErrorKind, SliceWriter, Value};

/// Owned mirror of `Value` so strategies can produce it.
#[derive(Debug, Clone)]
enum Ov {
    Uint(u64),
    Int(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Null,
    Str(String),
    Bytes(Vec<u8>),
    Map(Vec<(String, Ov)>),
    Array(Vec<Ov>),
}

impl Ov {
    fn view(&self) -> Value<'_> {
        match self {
            Ov::Uint(u) => Value::Uint(*u),
            Ov::Int(i) => Value::Int(*i),
            Ov::F32(f) => Value::F32(*f),
            Ov::F64(f) => Value::F64(*f),
            Ov::Bool(b) => Value::Bool(*b),
            Ov::Null => Value::Null,
            Ov::Str(s) => Value::Str(s),
            Ov::Bytes(b) => Value::Bytes(b),
            Ov::Map(m) => Value::Map(m.iter().map(|(k, v)| (k.as_str(), v.view())).collect()),
            Ov::Array(a) => Value::Array(a.iter().map(Ov::view).collect()),
        }
    }
}

const TWO_63: f64 = 9_223_372_036_854_775_808.0;
const CANON_NAN: u64 = 0x7ff8_0000_0000_0000;

fn integral(d: f64) -> Option<Value<'static>> {
    if d.is_finite() && d.fract() == 0.0 && (-TWO_63..TWO_63).contains(&d) {
        Some(if d >= 0.0 { Value::Uint(d as u64) } else { Value::Int(d as i64) })
    } else {
        None
    }
}

/// What PSON v2 decodes an encoded float back to (§1.5).
fn norm_float(d: f64) -> Value<'static> {
    if let Some(v) = integral(d) {
        v
    } else if d.is_nan() {
        Value::F64(f64::from_bits(CANON_NAN))
    } else if (d as f32) as f64 == d {
        Value::F32(d as f32)
    } else {
        Value::F64(d)
    }
}

/// What Protoson v1 decodes an encoded float back to (lossy 1e-5 rule).
fn norm_float_p(d: f64) -> Value<'static> {
    if let Some(v) = integral(d) {
        v
    } else if (d - (d as f32) as f64).abs() <= 0.00001 {
        Value::F32(d as f32)
    } else if d.is_nan() {
        Value::F64(f64::from_bits(CANON_NAN))
    } else {
        Value::F64(d)
    }
}

fn normalize<'a>(v: &Value<'a>, float: fn(f64) -> Value<'static>) -> Value<'a> {
    match v {
        Value::Int(i) if *i >= 0 => Value::Uint(*i as u64),
        Value::F32(f) => float(*f as f64),
        Value::F64(f) => float(*f),
        Value::Map(m) => Value::Map(m.iter().map(|(k, x)| (*k, normalize(x, float))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(|x| normalize(x, float)).collect()),
        other => other.clone(),
    }
}

/// Structural equality with floats compared by bit pattern (so NaN == NaN
/// only when canonical, and -0.0 != 0.0).
fn same(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        _ => a == b,
    }
}

fn float_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        proptest::num::f64::ANY,
        any::<i64>().prop_map(|i| i as f64),
        any::<f32>().prop_map(|f| f as f64),
        (-1000i32..1000).prop_map(|i| i as f64 / 8.0),
        prop::sample::select(vec![
            0.0,
            -0.0,
            TWO_63,
            -TWO_63,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
            2.3,
            1e-300,
            1.03,
        ]),
    ]
}

fn leaf() -> impl Strategy<Value = Ov> {
    prop_oneof![
        any::<u64>().prop_map(Ov::Uint),
        (0u64..64).prop_map(Ov::Uint),
        any::<i64>().prop_map(Ov::Int),
        Just(Ov::Int(i64::MIN)),
        proptest::num::f32::ANY.prop_map(Ov::F32),
        float_f64().prop_map(Ov::F64),
        any::<bool>().prop_map(Ov::Bool),
        Just(Ov::Null),
        any::<String>().prop_map(Ov::Str),
        "[a-z\\x00]{0,40}".prop_map(Ov::Str),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(Ov::Bytes),
    ]
}

fn tree() -> impl Strategy<Value = Ov> {
    leaf().prop_recursive(4, 96, 40, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..40).prop_map(Ov::Array),
            proptest::collection::vec(("[a-z]{0,4}|.{0,8}", inner), 0..10).prop_map(Ov::Map),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        // PROPTEST_CASES overrides the default of 512.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(512),
        ..ProptestConfig::default()
    })]

    #[test]
    fn v2_roundtrip(ov in tree()) {
        let v = ov.view();
        let bytes = v.to_vec();
        prop_assert_eq!(bytes.len(), v.encoded_len());
        let back = decode_exact(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let want = normalize(&v, norm_float);
        prop_assert!(same(&back, &want), "decoded {:?}\nwant {:?}", back, want);
        prop_assert_eq!(back.to_vec(), bytes.clone());
        prop_assert_eq!(back.encoded_len(), bytes.len());

        // streaming into a slice of the exact size gives the same bytes
        let mut buf = vec![0u8; bytes.len()];
        let mut enc = Encoder::new(SliceWriter::new(&mut buf));
        v.encode(&mut enc).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(enc.writer().position(), bytes.len());
        prop_assert_eq!(&buf, &bytes);
    }

    #[test]
    fn v2_slice_too_small(ov in tree(), cut in any::<prop::sample::Index>()) {
        let v = ov.view();
        let n = v.encoded_len();
        let size = cut.index(n); // 0..n: always too small
        let mut buf = vec![0u8; size];
        let mut enc = Encoder::new(SliceWriter::new(&mut buf));
        let err = v.encode(&mut enc).expect_err("buffer is too small");
        prop_assert_eq!(err.kind, ErrorKind::BufferTooSmall);
        prop_assert!(err.offset <= size);
    }

    #[test]
    fn protoson_roundtrip(ov in tree()) {
        let v = ov.view();
        let mut bytes = Vec::new();
        protoson::encode(&v, &mut bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(bytes.len(), protoson::encoded_len(&v));
        let (back, used) = protoson::decode(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(used, bytes.len());
        let want = normalize(&v, norm_float_p);
        prop_assert!(same(&back, &want), "decoded {:?}\nwant {:?}", back, want);
        // Re-encoding is not always byte-identical: a value that the lossy
        // rule turned into f32 ±0.0 comes back as F32(±0.0), which is
        // integral and re-encodes as `38`. It must still decode stably.
        let mut again = Vec::new();
        protoson::encode(&back, &mut again).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (back2, _) = protoson::decode(&again).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(same(&back2, &normalize(&back, norm_float_p)));
    }

    #[test]
    fn decode_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        if let Ok((v, used)) = decode(&bytes) {
            prop_assert!(used >= 1 && used <= bytes.len());
            let canon = v.to_vec();
            prop_assert_eq!(canon.len(), v.encoded_len());
            let back = decode_exact(&canon).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(same(&back, &normalize(&v, norm_float)));
            prop_assert_eq!(back.to_vec(), canon);
        }
        if let Ok((v, used)) = protoson::decode(&bytes) {
            prop_assert!(used <= bytes.len());
            let mut out = Vec::new();
            protoson::encode(&v, &mut out).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(out.len(), protoson::encoded_len(&v));
        }
        let mut d = Decoder::new(&bytes);
        for _ in 0..bytes.len() + 1 {
            let before = d.position();
            match d.next() {
                Ok(_) => prop_assert!(d.position() > before),
                Err(e) => {
                    prop_assert_eq!(d.position(), before);
                    prop_assert!(e.offset <= bytes.len());
                    break;
                }
            }
        }
    }

    #[test]
    fn decode_mutated_encodings_never_panics(ov in tree(), flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4)) {
        let mut bytes = ov.view().to_vec();
        for (i, x) in flips {
            let n = bytes.len();
            bytes[i.index(n)] ^= x;
        }
        if let Ok((v, _)) = decode(&bytes) {
            let canon = v.to_vec();
            prop_assert!(decode_exact(&canon).is_ok());
        }
        let mut p = Vec::new();
        protoson::encode(&ov.view(), &mut p).unwrap();
        let n = p.len();
        p[n / 2] ^= 0x5a;
        let _ = protoson::decode(&p);
    }
}
