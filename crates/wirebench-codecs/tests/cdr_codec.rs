//! The CDR codecs (`cdr-xcdr1`, `cdr-xcdr2`): exact round trips of the PSON-paper payloads
//! with their inferred schema (sizes printed, some computed by hand), the streaming path
//! against the `cdr` crate's value path byte for byte, the IDL export, other byte orders and
//! the padded wire form, unsupported values and schema mismatches, and hostile input
//! (garbage, every truncation, mutations) that must give errors, never panics.

use std::panic::{catch_unwind, AssertUnwindSafe};

use wirebench_codecs::cdr::{from_cdr, idl, to_cdr, type_desc};
use wirebench_codecs::{find, Codec, CodecError, SchemaUse};
use wirebench_core::fidelity::compare;
use wirebench_core::{corpus, Schema, Value};

const IDS: [&str; 2] = ["cdr-xcdr1", "cdr-xcdr2"];

fn codec(id: &str) -> &'static dyn Codec {
    find(id).unwrap_or_else(|| {
        panic!("codec {id} is not registered: add `pub mod cdr;` and `&cdr::Xcdr1, &cdr::Xcdr2` to the registry in wirebench-codecs/src/lib.rs")
    })
}

fn j(s: &str) -> Value {
    Value::from_json_str(s).unwrap_or_else(|e| panic!("bad test JSON {s}: {e}"))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn enc(id: &str, v: &Value, s: &Schema) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    codec(id).encode(v, Some(s), &mut out).map(|_| out)
}

/// A round trip that must be exact up to key order (a merged schema puts fields in
/// first-seen order); returns the encoding.
fn exact_any_order(id: &str, v: &Value, s: &Schema) -> Vec<u8> {
    let bytes = enc(id, v, s).unwrap_or_else(|e| panic!("{id}: encoding {} failed: {e}", v.to_json_string()));
    let back =
        codec(id).decode(&bytes, Some(s)).unwrap_or_else(|e| panic!("{id}: decoding {} failed: {e}", hex(&bytes)));
    let losses: Vec<String> = compare(v, &back).into_iter().filter(|l| l != "$: key order changed").collect();
    assert!(losses.is_empty(), "{id}: {} came back as {}: {losses:?}", v.to_json_string(), back.to_json_string());
    bytes
}

/// A round trip that must be exact; returns the encoding.
fn exact(id: &str, v: &Value, s: &Schema) -> Vec<u8> {
    let bytes = enc(id, v, s).unwrap_or_else(|e| panic!("{id}: encoding {} failed: {e}", v.to_json_string()));
    let back =
        codec(id).decode(&bytes, Some(s)).unwrap_or_else(|e| panic!("{id}: decoding {} failed: {e}", hex(&bytes)));
    let losses = compare(v, &back);
    assert!(losses.is_empty(), "{id}: {} came back as {}: {losses:?}", v.to_json_string(), back.to_json_string());
    bytes
}

fn encoding_of(id: &str) -> ::cdr::Encoding {
    if id == "cdr-xcdr1" {
        ::cdr::Encoding::XCDR1_LE
    } else {
        ::cdr::Encoding::XCDR2_LE
    }
}

#[test]
fn info() {
    for id in IDS {
        let i = codec(id).info();
        assert_eq!(i.id, id);
        assert_eq!(i.schema, SchemaUse::Required);
        assert!(i.fidelity_notes.iter().any(|n| n.contains("4-byte encapsulation header")));
    }
}

#[test]
fn pson_paper_round_trips_exactly_with_inferred_schema() {
    let payloads = corpus::builtin("pson-paper").unwrap().payloads();
    println!("payload  cdr-xcdr1 cdr-xcdr2   (bytes, 4-byte header included)");
    for p in &payloads {
        let schema = Schema::infer([&p.value]);
        let a = exact("cdr-xcdr1", &p.value, &schema);
        let b = exact("cdr-xcdr2", &p.value, &schema);
        println!("{:8} {:9} {:9}", p.name, a.len(), b.len());
        assert_eq!(&a[..4], &[0x00, 0x01, 0x00, 0x00], "CDR_LE header");
        assert_eq!(&b[..4], &[0x00, 0x07, 0x00, 0x00], "CDR2_LE header");
    }
    // One schema for the whole corpus: every field optional, fields in first-seen order (a
    // payload whose keys come in another order reads back in schema order, like every
    // schema-directed codec).
    let schema = Schema::infer(payloads.iter().map(|p| &p.value));
    for p in &payloads {
        for id in IDS {
            exact_any_order(id, &p.value, &schema);
        }
    }
}

#[test]
fn prepared_path_equals_the_plain_path() {
    for p in corpus::builtin("pson-paper").unwrap().payloads() {
        let schema = Schema::infer([&p.value]);
        for id in IDS {
            let prepared = codec(id).prepare(Some(&schema)).unwrap();
            let mut out = Vec::new();
            prepared.encode(&p.value, &mut out).unwrap();
            assert_eq!(out, exact(id, &p.value, &schema));
            assert!(compare(&p.value, &prepared.decode(&out).unwrap()).is_empty());
        }
    }
}

#[test]
fn sizes_by_hand() {
    let p = |name: &str| {
        corpus::builtin("pson-paper").unwrap().payloads().into_iter().find(|p| p.name == name).unwrap().value
    };
    let size = |id: &str, v: &Value| exact(id, v, &Schema::infer([v])).len();
    // Test01 {"sensor":"gps","time":1351824120,"data":[48.75,2.3]}:
    // header 4 + string (4 + "gps\0") 8 + uint32 4 + count 4 + 2 doubles (already 8-aligned) 16.
    assert_eq!(size("cdr-xcdr1", &p("Test01")), 36);
    assert_eq!(size("cdr-xcdr2", &p("Test01")), 36);
    // Test05 {"bool":true}: header + 1. Test06 {"neg":-2}: header + int32. Test08: header + double.
    assert_eq!(size("cdr-xcdr1", &p("Test05")), 5);
    assert_eq!(size("cdr-xcdr1", &p("Test06")), 8);
    assert_eq!(size("cdr-xcdr1", &p("Test08")), 12);
    // {"b":true,"d":1.5}: XCDR1 pads the double to offset 8, XCDR2 to 4.
    let v = j(r#"{"b":true,"d":1.5}"#);
    let x1 = exact("cdr-xcdr1", &v, &Schema::infer([&v]));
    let x2 = exact("cdr-xcdr2", &v, &Schema::infer([&v]));
    assert_eq!(hex(&x1), "000100000100000000000000000000000000f83f");
    assert_eq!(hex(&x2), "0007000001000000000000000000f83f");
    // An array of records: XCDR2 puts a DHEADER (12) before the count.
    let v = j(r#"{"pts":[{"x":1},{"x":2}]}"#);
    let x2 = exact("cdr-xcdr2", &v, &Schema::infer([&v]));
    assert_eq!(hex(&x2), "000700000c000000020000000100000002000000");
}

#[test]
fn streaming_path_equals_the_cdr_value_path() {
    let mut values: Vec<Value> =
        corpus::builtin("pson-paper").unwrap().payloads().into_iter().map(|p| p.value).collect();
    values.push(j(
        r#"{"a":{"b":[1,2,3],"c":"x"},"bytes":{"$bytes":"00ff10"},"f":-0.5,"list":[{"q":true},{"q":false}],"i8":-3}"#,
    ));
    values.push(j(r#"{"nested":[[1.5],[],[2.5,3.5]],"s":["a","","bc"]}"#));
    let all = Schema::infer(values.iter());
    for v in &values {
        for schema in [Schema::infer([v]), all.clone()] {
            let ty = type_desc(&schema.root).unwrap();
            let cv = to_cdr(&schema.root, v).unwrap();
            for id in IDS {
                let ours = exact_any_order(id, v, &schema);
                let theirs = ::cdr::encode(&ty, &cv, encoding_of(id)).unwrap();
                assert_eq!(hex(&ours), hex(&theirs), "{id} {}", v.to_json_string());
                let back = from_cdr(&schema.root, ::cdr::decode(&ty, &ours).unwrap());
                let direct = codec(id).decode(&ours, Some(&schema)).unwrap();
                assert_eq!(back, direct, "{id}: the two decoders disagree");
            }
            // The IDL export reads back (with the cdr crate's IDL reader) as the same type.
            let text = idl(&schema).unwrap();
            let file = ::cdr::idl::parse(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
            let from_idl = file.root().expect("a root struct");
            for e in ::cdr::Encoding::ALL {
                assert_eq!(::cdr::encode(from_idl, &cv, e).unwrap(), ::cdr::encode(&ty, &cv, e).unwrap(), "{text}");
            }
        }
    }
}

#[test]
fn other_byte_orders_and_the_padded_c_form_decode() {
    let v = j(r#"{"sensor":"gps","time":1351824120,"data":[48.75,2.3],"n":-7}"#);
    let schema = Schema::infer([&v]);
    let ty = type_desc(&schema.root).unwrap();
    let cv = to_cdr(&schema.root, &v).unwrap();
    for id in IDS {
        for e in ::cdr::Encoding::ALL {
            for pad in [false, true] {
                let bytes = ::cdr::Encoder::new(e).pad_to_4(pad).encode(&ty, &cv).unwrap();
                let back =
                    codec(id).decode(&bytes, Some(&schema)).unwrap_or_else(|err| panic!("{id} {e} pad={pad}: {err}"));
                assert!(compare(&v, &back).is_empty(), "{id} {e}");
            }
        }
    }
}

#[test]
fn unsupported_and_mismatched_values() {
    for id in IDS {
        let v = j(r#"{"a":1}"#);
        let mut out = Vec::new();
        assert!(matches!(codec(id).encode(&v, None, &mut out), Err(CodecError::SchemaRequired(_))));
        assert!(matches!(codec(id).decode(&[0, 1, 0, 0], None), Err(CodecError::SchemaRequired(_))));
        let mixed = j(r#"{"m":[1,"x"]}"#);
        let e = enc(id, &mixed, &Schema::infer([&mixed])).unwrap_err();
        assert!(matches!(e, CodecError::Unsupported(_)), "{e}");
        let null = j(r#"{"a":1,"n":null}"#);
        // A field only ever seen as null is an optional null-typed field: unsupported,
        // whatever the value (the schema is checked as a whole, also by prepare()).
        let ns = Schema::infer([&null]);
        assert!(matches!(enc(id, &null, &ns), Err(CodecError::Unsupported(_))));
        assert!(matches!(enc(id, &v, &ns), Err(CodecError::Unsupported(_))));
        assert!(codec(id).prepare(Some(&ns)).is_err());
        let e = enc(id, &j(r#"{"a":"x"}"#), &Schema::infer([&v])).unwrap_err();
        assert!(matches!(e, CodecError::Schema(_)), "{e}");
        let e = enc(id, &j(r#"{"a":1,"b":2}"#), &Schema::infer([&v])).unwrap_err();
        assert!(matches!(e, CodecError::Schema(_)), "{e}");
        // Optional fields: null and missing both read back as missing.
        let both = Schema::infer([&j(r#"{"a":1,"o":"x"}"#), &j(r#"{"a":2}"#)]);
        let back = codec(id).decode(&enc(id, &j(r#"{"a":3,"o":null}"#), &both).unwrap(), Some(&both)).unwrap();
        assert_eq!(back, j(r#"{"a":3}"#));
        exact(id, &j(r#"{"a":3,"o":"y"}"#), &both);
        exact(id, &j(r#"{"a":3}"#), &both);
    }
}

#[test]
fn errors_carry_offsets() {
    let v = j(r#"{"s":"abc"}"#);
    let schema = Schema::infer([&v]);
    for id in IDS {
        let mut bytes = exact(id, &v, &schema);
        bytes[8 + 3] = 0xff; // the NUL of "abc" (header 4 + length 4 + "abc")
        match codec(id).decode(&bytes, Some(&schema)) {
            Err(CodecError::Decode { offset: Some(11), msg, .. }) => assert!(msg.contains("NUL"), "{msg}"),
            other => panic!("{id}: {other:?}"),
        }
        let mut longer = exact(id, &v, &schema);
        longer.push(0);
        assert!(matches!(codec(id).decode(&longer, Some(&schema)), Err(CodecError::Decode { .. })));
    }
}

#[test]
fn garbage_and_truncated_input_never_panics() {
    let payloads = corpus::builtin("pson-paper").unwrap().payloads();
    let extra = j(r#"{"opt":[{"x":1,"y":[1.5]}],"b":{"$bytes":"0102"},"z":-1}"#);
    let mut seed: u64 = 0x5eed_cafe;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for id in IDS {
        let c = codec(id);
        for v in payloads.iter().map(|p| &p.value).chain([&extra]) {
            let schema = Schema::infer([v]);
            let good = exact(id, v, &schema);
            let r = catch_unwind(AssertUnwindSafe(|| {
                for cut in 0..good.len() {
                    assert!(c.decode(&good[..cut], Some(&schema)).is_err(), "{id}: prefix {cut} accepted");
                }
                for _ in 0..2000 {
                    let mut b = good.clone();
                    for _ in 0..1 + rnd() % 3 {
                        let i = (rnd() as usize) % b.len();
                        b[i] = rnd() as u8;
                    }
                    let _ = c.decode(&b, Some(&schema));
                    let n = (rnd() % 48) as usize;
                    let g: Vec<u8> = (0..n).map(|_| rnd() as u8).collect();
                    let _ = c.decode(&g, Some(&schema));
                }
                // A huge declared count with nothing behind it is an error, not an allocation.
                let arr = Schema::infer([&j(r#"{"a":[1.5]}"#)]);
                assert!(c.decode(&[0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff], Some(&arr)).is_err());
            }));
            assert!(r.is_ok(), "{id} panicked on hostile input");
        }
    }
}
