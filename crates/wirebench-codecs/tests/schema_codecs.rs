//! The schema-driven codecs (Avro, Thrift compact, XML): exact round trips of the PSON-paper
//! payloads with their inferred schema, wire sizes computed by hand, optional / nested / bytes /
//! integer-edge / float32 values, unsupported values, schema mismatches, and hostile input
//! (garbage, every truncation, pseudo-random bytes and mutations) that must give errors, never
//! panics.

use std::panic::{catch_unwind, AssertUnwindSafe};

use wirebench_codecs::{find, Codec, CodecError};
use wirebench_core::fidelity::compare;
use wirebench_core::{corpus, Schema, Value};

const IDS: [&str; 3] = ["avro", "thrift", "xml"];

fn j(s: &str) -> Value {
    Value::from_json_str(s).unwrap_or_else(|e| panic!("bad test JSON {s}: {e}"))
}

fn codec(id: &str) -> &'static dyn Codec {
    find(id).unwrap_or_else(|| panic!("codec {id} is not registered"))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn enc(id: &str, v: &Value, s: Option<&Schema>) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    codec(id).encode(v, s, &mut out).map(|_| out)
}

/// Encode and decode; returns the bytes and the decoded value.
fn round_trip(id: &str, v: &Value, s: Option<&Schema>) -> (Vec<u8>, Value) {
    let bytes = enc(id, v, s).unwrap_or_else(|e| panic!("{id}: encoding {} failed: {e}", v.to_json_string()));
    let back = codec(id)
        .decode(&bytes, s)
        .unwrap_or_else(|e| panic!("{id}: decoding {} (from {}) failed: {e}", hex(&bytes), v.to_json_string()));
    (bytes, back)
}

/// A round trip that must be exact; returns the encoding.
fn exact(id: &str, v: &Value, s: &Schema) -> Vec<u8> {
    let (bytes, back) = round_trip(id, v, Some(s));
    let losses = compare(v, &back);
    assert!(losses.is_empty(), "{id}: {} came back as {}: {losses:?}", v.to_json_string(), back.to_json_string());
    bytes
}

fn exact_inferred(id: &str, v: &Value) -> Vec<u8> {
    exact(id, v, &Schema::infer([v]))
}

fn map(pairs: Vec<(&str, Value)>) -> Value {
    Value::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

// ---------------------------------------------------------------------------------------------
// The PSON-paper payloads.

#[test]
fn pson_paper_round_trips_exactly_with_inferred_schema() {
    let payloads = corpus::builtin("pson-paper").unwrap().payloads();
    let mut sizes: Vec<(String, [usize; 3])> = Vec::new();
    for p in &payloads {
        let schema = Schema::infer([&p.value]);
        let mut row = [0; 3];
        for (i, id) in IDS.iter().enumerate() {
            row[i] = exact(id, &p.value, &schema).len();
        }
        sizes.push((p.name.clone(), row));
    }
    println!("payload   avro  thrift  xml");
    for (name, [a, t, x]) in &sizes {
        println!("{name:8} {a:5} {t:7} {x:4}");
    }
    let size = |name: &str, id: &str| {
        let col = IDS.iter().position(|i| *i == id).unwrap();
        sizes.iter().find(|(n, _)| n == name).unwrap().1[col]
    };
    // Avro datum: boolean = 1 byte; zigzag varints; string = varint length + bytes; double = 8;
    // array = block count + items + 0 terminator. uint32 is an Avro long.
    assert_eq!(size("Test05", "avro"), 1); // 01
    assert_eq!(size("Test06", "avro"), 1); // zigzag(-2) = 03
    assert_eq!(size("Test07", "avro"), 1); // zigzag(1) = 02
    assert_eq!(size("Test08", "avro"), 8);
    assert_eq!(size("Test09", "avro"), 5); // 08 "test"
                                           // "gps" 4 + time 5 (zigzag 2703648240 needs 32 bits → 5 varint bytes) + array 1+16+1.
    assert_eq!(size("Test01", "avro"), 27);
    // "test" 5 + double 8 + long 5 + pos 1 + neg 1 + bool 1 + array 18.
    assert_eq!(size("Test10", "avro"), 39);

    // Thrift compact: field header = delta<<4 | type; a bool's value is its header's type (1/2);
    // uint32 is written as i64; stop = 00.
    assert_eq!(size("Test05", "thrift"), 2); // 11 00
    assert_eq!(size("Test06", "thrift"), 3); // 15 03 00
    assert_eq!(size("Test07", "thrift"), 3); // 16 02 00
    assert_eq!(size("Test08", "thrift"), 10); // 17 + 8 + 00
    assert_eq!(size("Test09", "thrift"), 7); // 18 04 "test" 00
                                             // sensor 1+1+3, time 1+5, data 1 + list header 27 + 16, stop.
    assert_eq!(size("Test01", "thrift"), 30);
    assert_eq!(size("Test10", "thrift"), 45);

    // XML: <root><pos>1</pos></root> and friends.
    assert_eq!(size("Test07", "xml"), 25);
    assert_eq!(size("Test05", "xml"), 30);
    assert_eq!(size("Test06", "xml"), 26);
    assert_eq!(size("Test01", "xml"), 90);

    // Exact bytes for a few.
    let p = |n: &str| payloads.iter().find(|p| p.name == n).unwrap().value.clone();
    assert_eq!(exact_inferred("avro", &p("Test05")), [0x01]);
    assert_eq!(exact_inferred("avro", &p("Test06")), [0x03]);
    assert_eq!(exact_inferred("thrift", &p("Test05")), [0x11, 0x00]);
    assert_eq!(exact_inferred("thrift", &p("Test07")), [0x16, 0x02, 0x00]);
    assert_eq!(exact_inferred("thrift", &p("Test09")), b"\x18\x04test\x00");
    assert_eq!(exact_inferred("xml", &p("Test07")), b"<root><pos>1</pos></root>");
    assert_eq!(
        exact_inferred("xml", &p("Test01")),
        b"<root><sensor>gps</sensor><time>1351824120</time><data>48.75</data><data>2.3</data></root>"
    );
    assert_eq!(exact_inferred("thrift", &j(r#"{"bool":false}"#)), [0x12, 0x00]);
}

#[test]
fn xml_without_schema_reads_text() {
    let x = codec("xml");
    let payloads = corpus::builtin("pson-paper").unwrap().payloads();
    let t01 = &payloads[0].value;
    let (_, back) = round_trip("xml", t01, None);
    assert_eq!(back, j(r#"{"sensor":"gps","time":"1351824120","data":["48.75","2.3"]}"#));
    let losses = compare(t01, &back);
    assert!(losses.iter().any(|l| l.contains("became string")), "{losses:?}");
    assert_eq!(x.decode(b"<root><pos>1</pos></root>", None).unwrap(), j(r#"{"pos":"1"}"#));
    // Repeated siblings become an array, at the first one's place; nil is null; empty is "".
    assert_eq!(
        x.decode(br#"<root><a>1</a><b>x</b><a>2</a><n nil="true"/><e/><f></f></root>"#, None).unwrap(),
        j(r#"{"a":["1","2"],"b":"x","n":null,"e":"","f":""}"#)
    );
    // All-<item> children are an array.
    assert_eq!(x.decode(b"<root><item>1</item><item><item>2</item></item></root>", None).unwrap(), j(r#"["1",["2"]]"#));
    // Strings come back exactly, whitespace included.
    let v = j(r#"{"s":"  <a & 'b'> \"c\" ]]> \r\n\ttab  ","u":"żółw ✓ 𝄞"}"#);
    let (bytes, back) = round_trip("xml", &v, None);
    assert_eq!(back, v);
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.contains("&lt;a &amp; 'b'&gt;") && text.contains("&#13;"), "{text}");
    // Declaration, comments, processing instructions and surrounding whitespace are accepted.
    let doc = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- c --><root>\n  <pos>1</pos>\n</root>\n";
    assert_eq!(x.decode(doc, None).unwrap(), j(r#"{"pos":"1"}"#));
    let s = Schema::infer([&j(r#"{"pos":1}"#)]);
    assert_eq!(x.decode(doc, Some(&s)).unwrap(), j(r#"{"pos":1}"#));
    // Entities and character references.
    assert_eq!(x.decode(b"<root>a&amp;b&#x41;&#66;<![CDATA[<c>]]></root>", None).unwrap(), j(r#""a&bAB<c>""#));
}

// ---------------------------------------------------------------------------------------------
// Richer values, with schemas.

#[test]
fn optional_fields_absent_and_present() {
    let a = j(r#"{"id":1,"name":"x","tags":["a","b"],"pos":{"lat":1.5,"alt":3}}"#);
    let b = j(r#"{"id":2,"tags":["c"],"pos":{"lat":2.5}}"#);
    let c = j(r#"{"id":3,"name":null,"tags":[],"pos":{"lat":-0.5}}"#);
    let s = Schema::infer([&a, &b, &c]);
    for id in IDS {
        exact(id, &a, &s);
        exact(id, &b, &s);
    }
    // An explicit null in an optional field: XML keeps it; Avro and Thrift read it back absent.
    exact("xml", &c, &s);
    for id in ["avro", "thrift"] {
        let (_, back) = round_trip(id, &c, Some(&s));
        assert_eq!(compare(&c, &back), vec!["$.name: key dropped"], "{id}");
    }
    // An absent optional array: Avro and Thrift keep it absent, XML reads an empty array.
    let d = j(r#"{"id":4,"pos":{"lat":0.5}}"#);
    let s2 = Schema::infer([&a, &d]);
    exact("avro", &d, &s2);
    exact("thrift", &d, &s2);
    let (_, back) = round_trip("xml", &d, Some(&s2));
    assert_eq!(compare(&d, &back), vec![r#"$: key "tags" added"#]);
    // Sizes: an optional uint32 present is union index 1 + the long; absent is index 0.
    let s3 = Schema::infer([&j(r#"{"a":1}"#), &j(r#"{}"#)]);
    assert_eq!(exact("avro", &j(r#"{"a":1}"#), &s3), [0x02, 0x02]);
    assert_eq!(exact("avro", &j(r#"{}"#), &s3), [0x00]);
    assert_eq!(exact("thrift", &j(r#"{}"#), &s3), [0x00]);
}

#[test]
fn nested_records_arrays_of_records_bytes_integers_floats() {
    let v = j(r#"{
        "readings":[{"t":1,"v":-2.5},{"t":2,"v":3.25,"note":"hi"},{"t":3,"v":0.1}],
        "meta":{"src":{"host":"a","port":8080},"dst":{"src":{"host":"b","port":1}}},
        "blob":{"$bytes":"0001ff7f"},
        "empty":{"$bytes":""},
        "min":-9223372036854775808,"max":9223372036854775807,"umax":9223372036854775807,
        "grid":[[1,2],[3],[]],
        "flags":[true,false,true],
        "weird-key.name":1
    }"#);
    let mut v = v;
    if let Value::Map(pairs) = &mut v {
        pairs.push(("f32".into(), Value::F32(1.1)));
        pairs.push(("f32s".into(), Value::Array(vec![Value::F32(-0.0), Value::F32(3.4e38), Value::F32(1e-45)])));
        pairs.push(("f64".into(), Value::F64(1e300)));
    }
    let s = Schema::infer([&v]);
    for id in IDS {
        exact(id, &v, &s);
    }
    // float32 stays float32 through Avro (float) and Thrift (double).
    let f = map(vec![("f", Value::F32(0.1))]);
    assert_eq!(exact_inferred("avro", &f).len(), 4);
    assert_eq!(exact_inferred("thrift", &f).len(), 10);
    for id in IDS {
        let (_, back) = round_trip(id, &f, Some(&Schema::infer([&f])));
        assert_eq!(back, f, "{id}");
    }
    // A float32 in a float64 field (schema merged from both widths) stays exact in XML.
    let g = map(vec![("x", Value::F32(2.3))]);
    let s = Schema::infer([&g, &map(vec![("x", Value::F64(1.5))])]);
    for id in IDS {
        exact(id, &g, &s);
    }
    // Non-finite floats.
    let nf =
        map(vec![("a", Value::F64(f64::NAN)), ("b", Value::F64(f64::INFINITY)), ("c", Value::F32(f32::NEG_INFINITY))]);
    for id in IDS {
        exact_inferred(id, &nf);
    }
    let x = String::from_utf8(enc("xml", &nf, None).unwrap()).unwrap();
    assert_eq!(x, "<root><a>NaN</a><b>INF</b><c>-INF</c></root>");
    let x = String::from_utf8(
        enc("xml", &map(vec![("a", Value::F64(1e300)), ("b", Value::F64(-0.0)), ("c", Value::F32(0.1))]), None)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(x, "<root><a>1e300</a><b>-0</b><c>0.1</c></root>");
    // A top-level array, nested arrays and an array of one.
    let arr = j(r#"[[1,2],[3],[]]"#);
    exact_inferred("xml", &arr);
    assert_eq!(
        String::from_utf8(enc("xml", &arr, None).unwrap()).unwrap(),
        "<root><item><item>1</item><item>2</item></item><item><item>3</item></item><item/></root>"
    );
    let one = j(r#"{"data":[5]}"#);
    let s = Schema::infer([&one, &j(r#"{"data":[]}"#)]);
    for id in IDS {
        exact(id, &one, &s);
        exact(id, &j(r#"{"data":[]}"#), &s);
    }
    // Arrays of nulls.
    let nulls = j(r#"{"n":[null,null],"e":[]}"#);
    exact_inferred("avro", &nulls);
    exact_inferred("xml", &nulls);
    // Bytes are hex text in XML.
    let b = j(r#"{"b":{"$bytes":"00ff"}}"#);
    assert_eq!(exact_inferred("xml", &b), b"<root><b>00ff</b></root>");
    // Encoding appends.
    let mut out = b"prefix".to_vec();
    for id in IDS {
        let v = j(r#"{"pos":1}"#);
        out.truncate(6);
        codec(id).encode(&v, Some(&Schema::infer([&v])), &mut out).unwrap();
        assert!(out.starts_with(b"prefix") && out.len() > 6, "{id}");
    }
}

#[test]
fn avro_renames_invalid_and_duplicate_names() {
    // "a-b" and "a_b" both sanitize to a_b; two records are inferred as "Nested".
    let v = j(r#"{"a-b":1,"a_b":2,"1st":3,"nested":{"x":1},"other":{"nested":{"y":2}},"int":{"z":true}}"#);
    exact_inferred("avro", &v);
    exact_inferred("thrift", &v);
}

#[test]
fn unsupported_values() {
    // uint64 above i64::MAX.
    let big = j(r#"{"ok":1,"big":18446744073709551615}"#);
    let s = Schema::infer([&big]);
    for id in ["avro", "thrift"] {
        let mut out = b"keep".to_vec();
        match codec(id).encode(&big, Some(&s), &mut out) {
            Err(CodecError::Unsupported(m)) => {
                assert!(m.contains("18446744073709551615") && m.contains("$.big"), "{id}: {m}")
            }
            other => panic!("{id}: {other:?}"),
        }
        assert_eq!(out, b"keep", "{id}: a failed encode must leave the buffer as it was");
    }
    exact("xml", &big, &s);
    // A nested one names its path.
    let nested = j(r#"{"r":[{"u":1},{"u":18446744073709551615}]}"#);
    let s = Schema::infer([&nested]);
    for id in ["avro", "thrift"] {
        let e = enc(id, &nested, Some(&s)).unwrap_err();
        assert!(matches!(&e, CodecError::Unsupported(m) if m.contains("$.r[1].u")), "{id}: {e}");
    }
    // The 'any' type.
    let mixed = j(r#"{"mixed":[1,"a"]}"#);
    let s = Schema::infer([&mixed]);
    for id in ["avro", "thrift"] {
        let e = enc(id, &mixed, Some(&s)).unwrap_err();
        assert!(matches!(&e, CodecError::Unsupported(m) if m.contains("any")), "{id}: {e}");
    }
    let (_, back) = round_trip("xml", &mixed, Some(&s));
    assert_eq!(back, j(r#"{"mixed":["1","a"]}"#));
    // Thrift's root must be a record; Avro takes any root.
    let arr = j("[1,2,3]");
    let s = Schema::infer([&arr]);
    assert!(matches!(enc("thrift", &arr, Some(&s)), Err(CodecError::Unsupported(_))));
    exact("avro", &arr, &s);
    // Avro and Thrift need a schema.
    for id in ["avro", "thrift"] {
        assert!(matches!(enc(id, &arr, None), Err(CodecError::SchemaRequired(_))), "{id}");
        assert!(matches!(codec(id).decode(b"\x00", None), Err(CodecError::SchemaRequired(_))), "{id}");
    }
    // XML: keys that are not XML names, characters XML 1.0 cannot hold.
    for (doc, key) in [
        (r#"{"1abc":1}"#, "1abc"),
        (r#"{"a b":1}"#, "a b"),
        (r#"{"a:b":1}"#, "a:b"),
        (r#"{"":1}"#, "\"\""),
        (r#"{"ok":{"bad<":1}}"#, "bad<"),
    ] {
        match enc("xml", &j(doc), None) {
            Err(CodecError::Unsupported(m)) => assert!(m.contains(key), "{doc}: {m}"),
            other => panic!("{doc}: {other:?}"),
        }
    }
    let e = enc("xml", &j(r#"{"ok":{"bad key":1}}"#), None).unwrap_err().to_string();
    assert!(e.contains("$.ok"), "{e}");
    let e = enc("xml", &j(r#"{"s":"a\u0001b"}"#), None).unwrap_err();
    assert!(matches!(&e, CodecError::Unsupported(m) if m.contains("U+0001") && m.contains("$.s")), "{e}");
    // Nesting deeper than XML's bound.
    let mut deep = Value::UInt(1);
    for _ in 0..200 {
        deep = Value::Array(vec![deep]);
    }
    assert!(matches!(enc("xml", &deep, None), Err(CodecError::Unsupported(_))));
}

#[test]
fn schema_mismatch_names_the_path() {
    let s = Schema::infer([&j(r#"{"data":[1,2]}"#)]);
    let bad = j(r#"{"data":[1,"x"]}"#);
    for id in IDS {
        match enc(id, &bad, Some(&s)) {
            Err(CodecError::Schema(m)) => {
                assert_eq!(m.path, "$.data[1]", "{id}");
                assert!(CodecError::Schema(m).to_string().contains("$.data[1]"), "{id}");
            }
            other => panic!("{id}: {other:?}"),
        }
        assert!(matches!(enc(id, &j(r#"{"data":[1],"extra":true}"#), Some(&s)), Err(CodecError::Schema(_))), "{id}");
    }
}

// ---------------------------------------------------------------------------------------------
// Hostile input.

fn samples() -> Vec<(Value, Schema)> {
    let mut out: Vec<(Value, Schema)> = corpus::builtin("pson-paper")
        .unwrap()
        .payloads()
        .into_iter()
        .map(|p| {
            let s = Schema::infer([&p.value]);
            (p.value, s)
        })
        .collect();
    let rich = j(
        r#"{"id":7,"name":"n","tags":["a","bc"],"r":[{"t":-1,"b":{"$bytes":"ff00"}},{"t":2,"b":{"$bytes":""}}],"o":{"p":{"q":true}},"f":false,"x":-0.25}"#,
    );
    let other = j(r#"{"id":8,"tags":[],"r":[],"o":{"p":{"q":false}},"f":true,"x":1e10}"#);
    let s = Schema::infer([&rich, &other]);
    out.push((rich, s.clone()));
    out.push((other, s));
    out
}

/// Decode must not panic; returns the result.
fn decode_no_panic(id: &str, bytes: &[u8], s: Option<&Schema>, what: &str) -> Result<Value, CodecError> {
    let c = codec(id);
    match catch_unwind(AssertUnwindSafe(|| c.decode(bytes, s))) {
        Ok(r) => r,
        Err(_) => panic!("{id}: decode panicked on {what}: input {}", hex(bytes)),
    }
}

#[test]
fn every_truncation_is_an_error() {
    for (v, s) in samples() {
        for id in IDS {
            let full = exact(id, &v, &s);
            for n in 0..full.len() {
                let r = decode_no_panic(id, &full[..n], Some(&s), &format!("truncation to {n} of {}", hex(&full)));
                assert!(r.is_err(), "{id}: prefix {n}/{} of {} decoded as {:?}", full.len(), hex(&full), r);
                if let Err(CodecError::Decode { offset, .. }) = &r {
                    assert!(!matches!(offset, Some(o) if *o > n), "{id}: offset {offset:?} beyond {n}");
                }
            }
            if id == "xml" {
                for n in 0..full.len() {
                    assert!(decode_no_panic(id, &full[..n], None, "schemaless truncation").is_err(), "xml: prefix {n}");
                }
            }
            // Trailing bytes are an error too (at the end of the value).
            let mut long = full.clone();
            long.push(0);
            let r = decode_no_panic(id, &long, Some(&s), "trailing byte");
            match r {
                Err(CodecError::Decode { offset, .. }) if id != "xml" => assert_eq!(offset, Some(full.len()), "{id}"),
                Err(CodecError::Decode { .. }) => {}
                other => panic!("{id}: trailing byte gave {other:?}"),
            }
        }
    }
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

#[test]
fn random_and_mutated_bytes_never_panic() {
    let samples = samples();
    let seed0 = 0x9e37_79b9_7f4a_7c15u64;
    let mut rng = XorShift(seed0);
    let mut errors = [0usize; 3];
    for round in 0..3000 {
        let seed = rng.0;
        let len = (rng.next() % 48) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        // Some rounds look like XML, so the XML parser gets past the first byte.
        if round % 4 == 0 {
            let words: [&[u8]; 8] =
                [b"<root>", b"</root>", b"<a>", b"</a>", b"<item/>", b"&amp;", b" nil=\"true\"", b"1"];
            bytes = (0..len / 4).flat_map(|_| words[(rng.next() % 8) as usize].to_vec()).collect();
        }
        let (_, s) = &samples[round % samples.len()];
        for (i, id) in IDS.iter().enumerate() {
            let what = format!("random input (round {round}, xorshift state {seed:#x}, first seed {seed0:#x})");
            if decode_no_panic(id, &bytes, Some(s), &what).is_err() {
                errors[i] += 1;
            }
        }
        decode_no_panic("xml", &bytes, None, "random input without schema").ok();
    }
    // Pure noise is almost never a valid encoding.
    println!("errors on 3000 random inputs (avro, thrift, xml): {errors:?}");
    assert!(errors.iter().all(|&e| e > 2000), "{errors:?}");

    // Mutations of valid encodings: flip, insert or delete bytes.
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    for (v, s) in &samples {
        for id in IDS {
            let good = exact(id, v, s);
            for k in 0..200 {
                let seed = rng.0;
                let mut m = good.clone();
                let edits = 1 + rng.next() % 3;
                for _ in 0..edits {
                    let pos = (rng.next() as usize) % (m.len() + 1);
                    match rng.next() % 3 {
                        0 if pos < m.len() => m[pos] = rng.next() as u8,
                        1 => m.insert(pos, rng.next() as u8),
                        _ if pos < m.len() => {
                            m.remove(pos);
                        }
                        _ => {}
                    }
                }
                let what = format!("mutation {k} (xorshift state {seed:#x}) of {}", hex(&good));
                decode_no_panic(id, &m, Some(s), &what).ok();
            }
        }
    }
}

#[test]
fn hostile_lengths_and_structures_are_errors() {
    let string_schema = Schema::infer([&j(r#"{"s":"x"}"#)]);
    let null_array = Schema::infer([&j(r#"{"a":[]}"#)]);
    let int_schema = Schema::infer([&j(r#"{"a":-1}"#)]);
    let err = |id: &str, b: &[u8], s: &Schema| -> String {
        match decode_no_panic(id, b, Some(s), "hostile input") {
            Err(e @ CodecError::Decode { offset: Some(_), .. }) => e.to_string(),
            other => panic!("{id}: {} gave {other:?}", hex(b)),
        }
    };
    // A string claiming ~2^31 bytes.
    assert!(err("avro", &[0xfe, 0xff, 0xff, 0xff, 0x0f, b'x'], &string_schema).contains("length"));
    assert!(err("thrift", &[0x18, 0xff, 0xff, 0xff, 0xff, 0x07, b'x'], &string_schema).contains("length"));
    // An array claiming billions of items (of zero size, for Avro).
    let e = err("avro", &[0xfe, 0xff, 0xff, 0xff, 0x0f, 0x00], &null_array);
    assert!(e.contains("zero-size"), "{e}");
    let list = Schema::infer([&j(r#"{"a":[1]}"#)]);
    let e = err("thrift", &[0x19, 0xf6, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00], &list);
    assert!(e.contains("list size"), "{e}");
    // Bad boolean byte, bad union index, over-long varint.
    let bool_schema = Schema::infer([&j(r#"{"b":true}"#)]);
    assert!(err("avro", &[0x02], &bool_schema).contains("boolean"));
    let opt = Schema::infer([&j(r#"{"a":1}"#), &j("{}")]);
    assert!(err("avro", &[0x04, 0x02], &opt).contains("union"));
    assert!(err("avro", &[0xff; 11], &int_schema).contains("varint"));
    // Invalid UTF-8 in a string, with its offset.
    assert_eq!(
        codec("avro").decode(&[0x04, b'a', 0xff], Some(&string_schema)).unwrap_err().to_string(),
        "Avro string is not valid UTF-8 at byte 2"
    );
    assert!(matches!(
        codec("thrift").decode(&[0x18, 0x02, b'a', 0xff, 0x00], Some(&string_schema)),
        Err(CodecError::Decode { offset: Some(3), .. })
    ));
    // Thrift: explicit field id 32767 then a delta that would overflow i16.
    let e = err("thrift", &[0x05, 0xfe, 0xff, 0x03, 0x00, 0xf5, 0x00, 0x00], &int_schema);
    assert!(e.contains("overflow"), "{e}");
    // Thrift: wire type mismatch, missing required field, bad type nibble.
    assert!(err("thrift", &[0x18, 0x01, b'x', 0x00], &int_schema).contains("wire type"));
    assert!(err("thrift", &[0x00], &int_schema).contains("required"));
    assert!(err("thrift", &[0x1d, 0x00], &int_schema).contains("Thrift"));
    // Thrift: unknown field ids are skipped (a string, a struct holding a list, a map).
    let bytes = [
        0x58, 0x02, b'h', b'i', // id 5: string "hi"
        0x05, 0x02, 0x01, // id 1 (long form): i32 -1
        0x6c, 0x19, 0x25, 0x02, 0x04, 0x00, // id 7: struct { 1: list<i32> [1, 2] }
        0x1b, 0x01, 0x55, 0x02, 0x04, // id 8: map<i32,i32> {1: 2}
        0x00,
    ];
    assert_eq!(codec("thrift").decode(&bytes, Some(&int_schema)).unwrap(), j(r#"{"a":-1}"#));
    // Deeply nested unknown structs hit the depth bound (the nesting limit, 128).
    let mut deep = vec![0x2c; 200];
    deep.extend(vec![0x00; 201]);
    assert!(err("thrift", &deep, &int_schema).contains("deeper"));
    // XML: malformed documents, with offsets.
    let x = codec("xml");
    for doc in [
        &b"<root><a>1</b></root>"[..],
        b"<root>",
        b"<root></root><root></root>",
        b"text<root/>",
        b"<root>&bogus;</root>",
        b"<root a=1></root>",
        b"",
        b"<root>\xff</root>",
    ] {
        match x.decode(doc, None) {
            Err(CodecError::Decode { offset: Some(o), .. }) => assert!(o <= doc.len(), "{o}"),
            other => panic!("{}: {other:?}", String::from_utf8_lossy(doc)),
        }
    }
    assert!(matches!(x.decode(b"<r>\xff</r>", None), Err(CodecError::Decode { offset: Some(3), .. })));
    let deep: Vec<u8> = [b"<a>".repeat(300), b"</a>".repeat(300)].concat();
    let e = x.decode(&deep, None).unwrap_err().to_string();
    assert!(e.contains("deeper"), "{e}");
    // XML with a schema: scalars that do not parse, unknown elements skipped, repeats.
    let s = Schema::infer([&j(r#"{"pos":1}"#)]);
    assert!(x.decode(b"<root><pos>x</pos></root>", Some(&s)).unwrap_err().to_string().contains("uint32"));
    assert!(x.decode(b"<root><pos>-1</pos></root>", Some(&s)).is_err());
    assert!(x.decode(b"<root><pos>1</pos><pos>2</pos></root>", Some(&s)).is_err());
    assert!(x.decode(b"<root></root>", Some(&s)).unwrap_err().to_string().contains("pos"));
    assert_eq!(x.decode(b"<root><z><y/></z><pos> 1 </pos></root>", Some(&s)).unwrap(), j(r#"{"pos":1}"#));
}
