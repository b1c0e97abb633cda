//! The UADP codecs of the zoo (`uadp`, `uadp-json`, `uadp-json-rev`): exact round trips of
//! the PSON-paper payloads with their inferred schema (sizes printed), the smallest-header
//! layout byte by byte, integer widths / float32 / bytes / nested records / optional fields,
//! unsupported values, and hostile input that must give errors, never panics.

use std::panic::{catch_unwind, AssertUnwindSafe};

use wirebench_codecs::{find, Codec, CodecError};
use wirebench_core::fidelity::compare;
use wirebench_core::{corpus, Field, Schema, Type, Value};

const IDS: [&str; 3] = ["uadp", "uadp-json", "uadp-json-rev"];

fn j(s: &str) -> Value {
    Value::from_json_str(s).unwrap_or_else(|e| panic!("bad test JSON {s}: {e}"))
}

fn codec(id: &str) -> &'static dyn Codec {
    find(id).unwrap_or_else(|| panic!("codec {id} is not registered"))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn enc(id: &str, v: &Value, s: &Schema) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    codec(id).encode(v, Some(s), &mut out).map(|_| out)
}

/// A round trip that must be exact; returns the encoding.
fn exact(id: &str, v: &Value, s: &Schema) -> Vec<u8> {
    let bytes = enc(id, v, s).unwrap_or_else(|e| panic!("{id}: encoding {} failed: {e}", v.to_json_string()));
    let back = codec(id)
        .decode(&bytes, Some(s))
        .unwrap_or_else(|e| panic!("{id}: decoding {} failed: {e}", String::from_utf8_lossy(&bytes)));
    let losses = compare(v, &back);
    assert!(losses.is_empty(), "{id}: {} came back as {}: {losses:?}", v.to_json_string(), back.to_json_string());
    bytes
}

#[test]
fn registered_with_notes() {
    for id in IDS {
        let info = codec(id).info();
        assert_eq!(info.id, id);
        assert!(!info.fidelity_notes.is_empty());
    }
}

#[test]
fn pson_paper_corpus_round_trips_exactly() {
    let corpus = corpus::builtin("pson-paper").expect("pson-paper corpus");
    println!("{:<8} {:>6} {:>10} {:>14}", "payload", "uadp", "uadp-json", "uadp-json-rev");
    for p in corpus.payloads() {
        let schema = Schema::infer([&p.value]);
        let sizes: Vec<usize> = IDS.iter().map(|id| exact(id, &p.value, &schema).len()).collect();
        println!("{:<8} {:>6} {:>10} {:>14}", p.name, sizes[0], sizes[1], sizes[2]);
        // UADP is the smallest of the three.
        assert!(sizes[0] < sizes[1] && sizes[1] < sizes[2], "{}: {sizes:?}", p.name);
    }
}

#[test]
fn test01_byte_by_byte() {
    // {"sensor":"gps","time":1351824120,"data":[48.75,2.3]}: schema string, uint32, array<float64>.
    let v = j(r#"{"sensor":"gps","time":1351824120,"data":[48.75,2.3]}"#);
    let s = Schema::infer([&v]);
    let bytes = exact("uadp", &v, &s);
    #[rustfmt::skip]
    let want: Vec<u8> = [
        &[0x01][..],                               // UADPFlags: version 1, nothing else
        &[0x01],                                   // DataSetFlags1: valid, Variant encoding
        &[0x03, 0x00],                             // FieldCount 3
        &[0x0c, 0x03, 0, 0, 0], b"gps",            // Variant String "gps"
        &[0x07], &1_351_824_120u32.to_le_bytes(),  // Variant UInt32
        &[0x8b, 0x02, 0, 0, 0],                    // Variant Double array, length 2
        &48.75f64.to_le_bytes(), &2.3f64.to_le_bytes(),
    ]
    .concat();
    assert_eq!(hex(&bytes), hex(&want));
    assert_eq!(bytes.len(), 4 + 8 + 5 + 21);
    let text = String::from_utf8(exact("uadp-json", &v, &s)).unwrap();
    assert_eq!(
        text,
        r#"{"MessageId":"1","MessageType":"ua-data","Messages":[{"Payload":{"sensor":"gps","time":1351824120,"data":[48.75,2.3]}}]}"#
    );
    let text = String::from_utf8(exact("uadp-json-rev", &v, &s)).unwrap();
    assert_eq!(
        text,
        r#"{"MessageId":"1","MessageType":"ua-data","Messages":[{"Payload":{"sensor":{"UaType":12,"Value":"gps"},"time":{"UaType":7,"Value":1351824120},"data":{"UaType":11,"Value":[48.75,2.3]}}}]}"#
    );
}

#[test]
fn widths_floats_bytes_nested_optional() {
    let rec = |fields: Vec<(&str, Type, bool)>| Schema {
        tag: "wirebench-schema/1".into(),
        root: Type::Record {
            name: "Root".into(),
            fields: fields
                .into_iter()
                .map(|(n, ty, optional)| Field { name: n.into(), ty, optional, proto: None, null_branch: None })
                .collect(),
        },
        native: None,
        proto: None,
    };
    let int = |bits, signed| Type::Int { bits, signed };
    let s = rec(vec![
        ("i8", int(8, true), false),
        ("u8", int(8, false), false),
        ("i16", int(16, true), false),
        ("u16", int(16, false), false),
        ("i64", int(64, true), false),
        ("u64", int(64, false), false),
        ("f32", Type::Float { bits: 32 }, false),
        ("b", Type::Bytes, false),
        ("opt", Type::String, true),
        (
            "gps",
            Type::Record {
                name: "Gps".into(),
                fields: vec![
                    Field {
                        name: "lat".into(),
                        ty: Type::Float { bits: 64 },
                        optional: false,
                        proto: None,
                        null_branch: None,
                    },
                    Field {
                        name: "tags".into(),
                        ty: Type::Array { items: Box::new(Type::String) },
                        optional: false,
                        proto: None,
                        null_branch: None,
                    },
                ],
            },
            false,
        ),
        ("last", Type::Bool, false),
    ]);
    let v = Value::Map(vec![
        ("i8".into(), Value::Int(-128)),
        ("u8".into(), Value::UInt(255)),
        ("i16".into(), Value::Int(-300)),
        ("u16".into(), Value::UInt(65535)),
        ("i64".into(), Value::Int(i64::MIN)),
        ("u64".into(), Value::UInt(u64::MAX)),
        ("f32".into(), Value::F32(0.1)),
        ("b".into(), Value::Bytes(vec![0, 1, 255])),
        ("opt".into(), Value::String("x".into())),
        (
            "gps".into(),
            Value::Map(vec![
                ("lat".into(), Value::F64(48.75)),
                ("tags".into(), Value::Array(vec![Value::String("a".into())])),
            ]),
        ),
        ("last".into(), Value::Bool(true)),
    ]);
    for id in IDS {
        exact(id, &v, &s);
    }
    // Widths on the wire: 2+2+3+3+9+9+5+(1+4+3)+(1+4+1)+9+(1+4+5)+2 = 4 + 77.
    assert_eq!(enc("uadp", &v, &s).unwrap().len(), 4 + 2 + 2 + 3 + 3 + 9 + 9 + 5 + 8 + 6 + 9 + 10 + 2);
    // The optional field absent: a null Variant, read back as absent.
    let Value::Map(mut pairs) = v.clone() else { unreachable!() };
    pairs.retain(|(k, _)| k != "opt");
    let v2 = Value::Map(pairs);
    for id in IDS {
        exact(id, &v2, &s);
    }
    let json = String::from_utf8(enc("uadp-json", &v2, &s).unwrap()).unwrap();
    assert!(json.contains(r#""opt":null"#) && json.contains(r#""gps.lat":48.75"#), "{json}");
}

#[test]
fn unsupported_and_mismatched() {
    let v = j(r#"{"list":[{"a":1}]}"#);
    let s = Schema::infer([&v]);
    for id in IDS {
        assert!(matches!(enc(id, &v, &s), Err(CodecError::Unsupported(_))), "{id}");
    }
    let v = j(r#"[1,2]"#);
    let s = Schema::infer([&v]);
    assert!(enc("uadp", &v, &s).is_err());
    let v = j(r#"{"a":1}"#);
    let mut out = Vec::new();
    assert!(matches!(codec("uadp").encode(&v, None, &mut out), Err(CodecError::SchemaRequired(_))));
    // Bytes from another schema do not decode as this one.
    let s = Schema::infer([&v]);
    let other = j(r#"{"a":"text"}"#);
    let bytes = enc("uadp", &other, &Schema::infer([&other])).unwrap();
    assert!(codec("uadp").decode(&bytes, Some(&s)).is_err());
}

#[test]
fn hostile_input_errors_never_panics() {
    let v = j(r#"{"string":"test","double":1.03,"long":1351824120,"pos":1,"neg":-2,"bool":true,"array":[48.75,2.3]}"#);
    let s = Schema::infer([&v]);
    for id in IDS {
        let good = enc(id, &v, &s).unwrap();
        let mut x: u32 = 0x1234_5678;
        let mut inputs: Vec<Vec<u8>> = (0..good.len()).map(|n| good[..n].to_vec()).collect();
        for _ in 0..2000 {
            let mut b = good.clone();
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let i = x as usize % b.len();
            b[i] = (x >> 8) as u8;
            inputs.push(b);
        }
        for b in inputs {
            let r = catch_unwind(AssertUnwindSafe(|| codec(id).decode(&b, Some(&s))));
            assert!(r.is_ok(), "{id}: panic on {}", hex(&b));
        }
        // Truncations are errors with an offset inside the input.
        for n in 0..good.len() {
            match codec(id).decode(&good[..n], Some(&s)) {
                Err(CodecError::Decode { offset, .. }) => assert!(offset.unwrap_or(0) <= n),
                other => panic!("{id}: truncated to {n}: {other:?}"),
            }
        }
    }
}
