//! `pson::serde`: derived types straight to and from PSON v2.
//!
//! * the PSON-paper payloads as derived structs give exactly the bytes of `vectors/pson.json`,
//!   the same bytes as the dynamic `pson` codec, and decode back to equal structs;
//! * the serde data model: options, every enum variant shape, nested structs, byte strings,
//!   maps (string and integer keys), tuples, chars, integer edges, f32, whole floats, -0.0;
//! * errors: wrong kinds (with the right byte offset), every truncation, trailing bytes, deep
//!   nesting, unknown lengths, and pseudo-random / mutated input that must never panic.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pson::serde::{self as pson_serde, from_slice, to_vec, to_writer, Error, ErrorCode};
use serde::de::{DeserializeOwned, IgnoredAny, Visitor};
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use wirebench_core::Value;

// ---------------------------------------------------------------------------------------------
// helpers

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or_else(|e| panic!("bad hex {s}: {e}")))
        .collect()
}

/// (json, bytes) of a named vector in vectors/pson.json.
fn vector(name: &str) -> (String, Vec<u8>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/pson.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let all: serde_json::Value = serde_json::from_str(&text).expect("vectors/pson.json is JSON");
    let v = all
        .as_array()
        .expect("a list of vectors")
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no vector {name}"));
    let json = v["json"].as_str().expect("json").to_string();
    (json, unhex(v["hex"].as_str().expect("hex")))
}

fn enc<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    to_vec(v).unwrap_or_else(|e| panic!("to_vec failed: {e}"))
}

fn dec<T: DeserializeOwned>(b: &[u8]) -> T {
    from_slice(b).unwrap_or_else(|e| panic!("from_slice of {} failed: {e}", hex(b)))
}

/// Encode, compare with `expect_hex`, decode back to an equal value.
fn roundtrip<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T, expect_hex: &str) {
    let bytes = enc(v);
    assert_eq!(hex(&bytes), unhex(expect_hex).iter().map(|x| format!("{x:02x}")).collect::<String>(), "{v:?}");
    let back: T = dec(&bytes);
    assert_eq!(&back, v, "bytes {}", hex(&bytes));
}

/// Encode and decode back to an equal value; returns the bytes.
fn roundtrip_any<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T) -> Vec<u8> {
    let bytes = enc(v);
    let back: T = dec(&bytes);
    assert_eq!(&back, v, "bytes {}", hex(&bytes));
    bytes
}

/// Every strict prefix of `bytes` is an error (and nothing panics).
fn every_cut_fails<T: DeserializeOwned + Debug>(bytes: &[u8]) {
    for cut in 0..bytes.len() {
        let r = catch_unwind(AssertUnwindSafe(|| from_slice::<T>(&bytes[..cut])));
        match r {
            Ok(Ok(v)) => panic!("cut {cut} of {} decoded as {v:?}", hex(bytes)),
            Ok(Err(e)) => assert!(e.offset().is_some(), "cut {cut} of {}: error without offset: {e}", hex(bytes)),
            Err(_) => panic!("cut {cut} of {} panicked", hex(bytes)),
        }
        let r = catch_unwind(AssertUnwindSafe(|| from_slice::<IgnoredAny>(&bytes[..cut])));
        assert!(matches!(r, Ok(Err(_))), "cut {cut} of {} as IgnoredAny", hex(bytes));
    }
}

// ---------------------------------------------------------------------------------------------
// the PSON-paper payloads

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Test01 {
    sensor: String,
    time: u32,
    data: Vec<f64>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Test03 {
    sensor: String,
    sensor2: String,
    sensor3: String,
    sensor4: String,
    sensor5: String,
    sensor6: String,
    sensor7: String,
    time: u64,
    data: Vec<f64>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Test04 {
    data: Vec<f64>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Test05 {
    #[serde(rename = "bool")]
    flag: bool,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Test06 {
    neg: i32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Test07 {
    pos: u8,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Test08 {
    double: f64,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Test09 {
    string: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Test10 {
    string: String,
    double: f64,
    long: u64,
    pos: u32,
    neg: i64,
    #[serde(rename = "bool")]
    flag: bool,
    array: Vec<f64>,
}

/// Test10 with the string borrowed from the input.
#[derive(Deserialize, Debug, PartialEq)]
struct Test10Ref<'a> {
    string: &'a str,
    double: f64,
    long: u64,
    pos: u8,
    neg: i8,
    #[serde(rename = "bool")]
    flag: bool,
    array: Vec<f32>,
}

/// The struct (built from the vector's JSON) encodes to exactly the vector's bytes, to the
/// same bytes as the dynamic `pson` codec, decodes back, and every truncation fails.
fn check_vector<T: Serialize + DeserializeOwned + PartialEq + Debug>(name: &str) {
    let (json, bytes) = vector(name);
    let value: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = enc(&value);
    assert_eq!(hex(&out), hex(&bytes), "{name}: to_vec");

    let back: T = dec(&bytes);
    assert_eq!(back, value, "{name}: from_slice");

    // The dynamic codec, from the same payload as a Value tree.
    let tree = Value::from_json_str(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut dynamic = Vec::new();
    wirebench_codecs::find("pson")
        .expect("pson codec")
        .encode(&tree, None, &mut dynamic)
        .unwrap_or_else(|e| panic!("{name}: dynamic encode: {e}"));
    assert_eq!(hex(&dynamic), hex(&out), "{name}: typed path differs from the dynamic codec");

    // to_writer appends to a &mut Vec and fills an exactly sized SliceWriter ...
    let mut appended = vec![0xaa];
    to_writer(&mut appended, &value).unwrap();
    assert_eq!(appended[1..], out[..], "{name}: to_writer(&mut Vec)");
    let mut buf = vec![0u8; out.len()];
    let mut w = pson::SliceWriter::new(&mut buf);
    to_writer(&mut w, &value).unwrap();
    assert_eq!(w.written(), &out[..], "{name}: SliceWriter");
    // ... and fails cleanly on one that is one byte short.
    let mut small = vec![0u8; out.len() - 1];
    match to_writer(pson::SliceWriter::new(&mut small), &value) {
        Err(e) if e.pson().is_some() => assert_eq!(e.pson().unwrap().kind, pson::ErrorKind::BufferTooSmall, "{name}"),
        other => panic!("{name}: short SliceWriter gave {other:?}"),
    }

    every_cut_fails::<T>(&bytes);

    // Trailing bytes after the one item.
    let mut long = bytes.clone();
    long.push(0x00);
    match from_slice::<T>(&long) {
        Err(e) if e.pson().is_some() => {
            let e = e.pson().unwrap();
            assert_eq!((e.kind, e.offset), (pson::ErrorKind::TrailingBytes, bytes.len()), "{name}")
        }
        other => panic!("{name}: trailing byte gave {other:?}"),
    }
}

#[test]
fn paper_payloads_match_the_vectors() {
    check_vector::<Test01>("Test01");
    check_vector::<Test01>("Test02");
    check_vector::<Test03>("Test03");
    check_vector::<Test04>("Test04");
    check_vector::<Test05>("Test05");
    check_vector::<Test06>("Test06");
    check_vector::<Test07>("Test07");
    check_vector::<Test08>("Test08");
    check_vector::<Test09>("Test09");
    check_vector::<Test10>("Test10");
}

#[test]
fn paper_payload_values() {
    let (_, bytes) = vector("Test10");
    let t: Test10 = dec(&bytes);
    assert_eq!(
        t,
        Test10 {
            string: "test".into(),
            double: 1.03,
            long: 1_351_824_120,
            pos: 1,
            neg: -2,
            flag: true,
            array: vec![48.75, 2.3],
        }
    );
    // Borrowed: the &str points into the input; f64 items narrow into f32 fields.
    let r: Test10Ref = from_slice(&bytes).unwrap();
    assert_eq!(r.string, "test");
    let range = bytes.as_ptr_range();
    assert!(range.contains(&r.string.as_ptr()), "the string is borrowed from the input");
    assert_eq!((r.pos, r.neg, r.array.clone()), (1, -2, vec![48.75f32, 2.3f32]));
}

// ---------------------------------------------------------------------------------------------
// the serde data model

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Cmd {
    Stop,
    Speed(i32),
    Move(u8, String),
    Config { rate: f32, label: Option<String> },
}

/// A byte buffer written with serialize_bytes (no serde_bytes dependency).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Default)]
struct Buf(Vec<u8>);

impl Serialize for Buf {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Buf {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Buf;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Buf, E> {
                Ok(Buf(v.to_vec()))
            }
        }
        d.deserialize_bytes(V)
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
struct Inner {
    name: String,
    tags: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Outer {
    id: u16,
    inner: Inner,
    maybe: Option<Inner>,
    nothing: Option<Inner>,
    cmds: Vec<Cmd>,
    blob: Buf,
    grid: Vec<Vec<u8>>,
    scores: BTreeMap<String, f64>,
    by_id: HashMap<u32, String>,
    pair: (i8, char, bool),
    big: i64,
    huge: u64,
    tiny: f32,
    unit: (),
    #[serde(skip_serializing_if = "Option::is_none", default)]
    extra: Option<u8>,
}

fn sample_outer() -> Outer {
    Outer {
        id: 513,
        inner: Inner { name: "gps".into(), tags: vec!["a".into(), "".into(), "ünïcode ✓".into()] },
        maybe: Some(Inner { name: "x".repeat(40), tags: vec![] }),
        nothing: None,
        cmds: vec![
            Cmd::Stop,
            Cmd::Speed(-40),
            Cmd::Move(200, "north".into()),
            Cmd::Config { rate: 0.25, label: None },
            Cmd::Config { rate: -1.0, label: Some("l".into()) },
        ],
        blob: Buf(vec![0, 1, 0xfe, 0xff]),
        grid: vec![vec![1, 2], vec![], vec![255; 33]],
        scores: [("a".to_string(), 2.3), ("b".to_string(), -7.0), ("c".to_string(), 48.75)].into(),
        by_id: [(7, "seven".to_string()), (4_000_000_000, "big".to_string())].into(),
        pair: (-128, 'é', false),
        big: i64::MIN,
        huge: u64::MAX,
        tiny: 0.1,
        unit: (),
        extra: None,
    }
}

#[test]
fn nested_structs_roundtrip() {
    let o = sample_outer();
    let bytes = roundtrip_any(&o);
    // skip_serializing_if: the map header counts the fields actually written (14, not 15).
    assert_eq!(bytes[0], 0xc0 | 14);
    let mut with_extra = o.clone();
    with_extra.extra = Some(3);
    let bytes2 = roundtrip_any(&with_extra);
    assert_eq!(bytes2[0], 0xc0 | 15);
    every_cut_fails::<Outer>(&bytes);

    // Unknown fields (with nested containers inside) are skipped.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Lite {
        id: u16,
        big: i64,
    }
    let lite: Lite = dec(&bytes);
    assert_eq!(lite, Lite { id: 513, big: i64::MIN });
    let _: IgnoredAny = dec(&bytes);

    // The same document through the dynamic decoder and back is byte-identical.
    let tree = wirebench_codecs::find("pson").unwrap().decode(&bytes, None).unwrap();
    let mut again = Vec::new();
    wirebench_codecs::find("pson").unwrap().encode(&tree, None, &mut again).unwrap();
    assert_eq!(hex(&again), hex(&bytes));
}

#[test]
fn enums() {
    roundtrip(&Cmd::Stop, "84 53746f70");
    roundtrip(&Cmd::Speed(-3), "c1 85 5370656564 23");
    roundtrip(&Cmd::Move(7, "x".into()), "c1 84 4d6f7665 e2 07 81 78");
    roundtrip(
        &Cmd::Config { rate: 1.5, label: None },
        "c1 86 436f6e666967 c2 84 72617465 40 0000c03f 85 6c6162656c 62",
    );
    // {"Stop": null} is a unit variant too.
    assert_eq!(dec::<Cmd>(&unhex("c1 84 53746f70 62")), Cmd::Stop);
    // Unknown variant: error at the name.
    let e = from_slice::<Cmd>(&unhex("c1 84 476f6f6f 62")).unwrap_err();
    assert_eq!(e.offset(), Some(1), "{e}");
    assert!(e.to_string().contains("unknown variant `Gooo`"), "{e}");
    let e = from_slice::<Cmd>(&unhex("84 476f6f6f")).unwrap_err();
    assert_eq!(e.offset(), Some(0), "{e}");
    // A newtype variant given as a bare name; a map with two entries; a number.
    assert!(from_slice::<Cmd>(&unhex("85 5370656564")).is_err());
    assert!(from_slice::<Cmd>(&unhex("c2 84 53746f70 62 84 53746f70 62")).is_err());
    let e = from_slice::<Cmd>(&[0x05]).unwrap_err();
    assert!(e.to_string().contains("expected an enum") && e.to_string().ends_with("at byte 0"), "{e}");
    // Enums as map keys and values in containers.
    #[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Clone, Copy)]
    enum Axis {
        X,
        Y,
    }
    let m: BTreeMap<Axis, Vec<Cmd>> = [(Axis::X, vec![Cmd::Stop]), (Axis::Y, vec![])].into();
    roundtrip(&m, "c2 81 58 e1 84 53746f70 81 59 e0");
}

#[test]
fn options() {
    roundtrip(&Some(5u8), "05");
    roundtrip(&None::<u8>, "62");
    roundtrip(&Some(String::new()), "80");
    roundtrip(&vec![Some(1i32), None, Some(-1)], "e3 01 62 21");
    // The escaped forms of null and true.
    assert_eq!(dec::<Option<u8>>(&[0x7f, 0x02]), None);
    assert_eq!(dec::<Option<bool>>(&[0x7f, 0x01]), Some(true));
    assert_eq!(dec::<Option<bool>>(&[0x61]), Some(true));
    // A broken escaped header is an error, not None.
    assert!(from_slice::<Option<u8>>(&[0x7f]).is_err());
    assert!(from_slice::<Option<u8>>(&[0x7f, 0x05]).is_err());
    assert!(from_slice::<Option<u8>>(&[]).is_err());
    // Missing Option fields default to None.
    #[derive(Deserialize, Debug, PartialEq)]
    struct O {
        a: Option<u8>,
        b: Option<u8>,
    }
    assert_eq!(dec::<O>(&unhex("c1 81 61 02")), O { a: Some(2), b: None });
}

#[test]
fn units_newtypes_tuples_chars() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Marker;
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Meters(f64);
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Point(i16, i16);
    roundtrip(&(), "62");
    roundtrip(&Marker, "62");
    roundtrip(&Meters(2.5), "40 00002040");
    roundtrip(&Point(-1, 31), "e2 21 1f1f");
    roundtrip(&(1u8, -1i16, "a".to_string(), 2.5f64), "e4 01 21 81 61 40 00002040");
    roundtrip(&'é', "82 c3a9");
    roundtrip(&'\u{1F600}', "84 f09f9880");
    assert!(from_slice::<char>(&unhex("82 6162")).is_err());
    // A tuple must have exactly its length.
    let e = from_slice::<(u8, u8)>(&unhex("e3 01 02 03")).unwrap_err();
    assert_eq!(e.offset(), Some(0), "{e}");
    let e = from_slice::<(u8, u8)>(&unhex("e1 01")).unwrap_err();
    assert!(e.to_string().contains("invalid length 1") && e.offset() == Some(0), "{e}");
    assert!(from_slice::<()>(&[0x00]).is_err());
    // Too long inside a struct: the error names the array, and the rest still lines up.
    #[derive(Deserialize, Debug)]
    struct T2 {
        #[allow(dead_code)]
        t: (u8, u8),
        #[allow(dead_code)]
        x: u8,
    }
    let e = from_slice::<T2>(&unhex("c2 81 74 e3 01 02 c1 81 61 e0 81 78 05")).unwrap_err();
    assert_eq!(e.to_string(), "the array has 1 more element(s) than the target type reads at byte 3");
    // ... and a malformed extra element is reported as such.
    let e = from_slice::<T2>(&unhex("c2 81 74 e3 01 02 c1 01 01 81 78 05")).unwrap_err();
    assert_eq!(e.offset(), Some(7), "{e}");
}

#[test]
fn byte_strings_and_byte_vectors() {
    roundtrip(&Buf(vec![0x00, 0xff, 0x7f]), "a3 00ff7f");
    roundtrip(&Buf(vec![]), "a0");
    roundtrip(&Buf(vec![9; 31]), &format!("bf 1f {}", "09".repeat(31)));
    // Vec<u8> is a sequence (array of integers) in serde, Vec<Vec<u8>> an array of arrays.
    roundtrip(&vec![vec![1u8, 2], vec![], vec![255]], "e3 e2 0102 e0 e1 1fff01");
    // A borrowed &[u8] / &str comes straight from the input.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Borrowed<'a> {
        s: &'a str,
        b: &'a [u8],
    }
    let input = unhex("c2 81 73 82 6869 81 62 a2 0102");
    let v: Borrowed = from_slice(&input).unwrap();
    assert_eq!(v, Borrowed { s: "hi", b: &[1, 2] });
    assert!(input.as_ptr_range().contains(&v.b.as_ptr()));
    // An array is not a byte string; serde's String accepts UTF-8 byte strings, no others.
    assert!(from_slice::<Buf>(&unhex("e1 01")).is_err());
    assert_eq!(dec::<String>(&unhex("a1 61")), "a");
    assert!(from_slice::<String>(&unhex("a1 ff")).is_err());
}

#[test]
fn maps() {
    let mut h: HashMap<String, u32> = HashMap::new();
    for i in 0..40 {
        h.insert(format!("k{i}"), i * 1000);
    }
    roundtrip_any(&h);
    let b: BTreeMap<String, Vec<u8>> = [("a".to_string(), vec![1]), ("bb".to_string(), vec![])].into();
    roundtrip(&b, "c2 81 61 e1 01 82 6262 e0");
    // Integer and bool keys are written as decimal text and parsed back.
    let ints: BTreeMap<i32, bool> = [(-5, true), (10, false)].into();
    roundtrip(&ints, "c2 82 2d35 61 82 3130 60");
    let bigs: BTreeMap<u64, ()> = [(u64::MAX, ())].into();
    roundtrip(&bigs, "c1 94 3138343436373434303733373039353531363135 62");
    let mins: BTreeMap<i64, u8> = [(i64::MIN, 1)].into();
    roundtrip_any(&mins);
    let bools: BTreeMap<bool, u8> = [(false, 0), (true, 1)].into();
    roundtrip(&bools, "c2 85 66616c7365 00 84 74727565 01");
    let chars: BTreeMap<char, u8> = [('z', 26)].into();
    roundtrip(&chars, "c1 81 7a 1a");
    // A key that does not parse as the key type: error at the key.
    let e = from_slice::<BTreeMap<u8, u8>>(&unhex("c2 81 31 01 83 333030 02")).unwrap_err();
    assert_eq!(e.offset(), Some(4), "{e}");
    // Keys that cannot be strings.
    let tuple_keys: HashMap<(u8, u8), u8> = [((1, 2), 3)].into();
    assert!(matches!(to_vec(&tuple_keys).map_err(|e| e.code().clone()), Err(ErrorCode::Message { .. })));
    let bytes_keys: BTreeMap<Buf, u8> = [(Buf(vec![1]), 1)].into();
    assert!(matches!(to_vec(&bytes_keys).map_err(|e| e.code().clone()), Err(ErrorCode::Message { .. })));
    // Non-string keys on the wire are rejected with the key's offset.
    let e = from_slice::<HashMap<String, u8>>(&unhex("c1 01 01")).unwrap_err();
    assert_eq!(e.offset(), Some(1), "{e}");
    // A map with more entries than a struct reads is fine (unknown fields), a map is not an array.
    assert!(from_slice::<Vec<u8>>(&unhex("c0")).is_err());
    assert!(from_slice::<HashMap<String, u8>>(&unhex("e0")).is_err());
}

#[test]
fn integers() {
    roundtrip(&0u8, "00");
    roundtrip(&30u16, "1e");
    roundtrip(&31u32, "1f1f");
    roundtrip(&128u64, "1f8001");
    roundtrip(&-2i8, "22");
    roundtrip(&-31i32, "3f1f");
    roundtrip(&i64::MIN, "3f 80808080808080808001");
    roundtrip(&i64::MAX, "1f ffffffffffffffff7f");
    roundtrip(&u64::MAX, "1f ffffffffffffffffff01");
    roundtrip(&(i64::MIN as i128), "3f 80808080808080808001");
    roundtrip(&(u64::MAX as i128), "1f ffffffffffffffffff01");
    roundtrip(&(u64::MAX as u128), "1f ffffffffffffffffff01");
    assert!(to_vec(&(i64::MIN as i128 - 1)).is_err());
    assert!(to_vec(&(u64::MAX as u128 + 1)).is_err());
    assert!(to_vec(&(u64::MAX as i128 + 1)).is_err());
    // Out of range for the target type: an error at the item.
    let e = from_slice::<Test06>(&unhex("c1 83 6e6567 1f ffffffffffffffffff01")).unwrap_err();
    assert_eq!(e.offset(), Some(5), "{e}");
    let e = from_slice::<Test07>(&unhex("c1 83 706f73 22")).unwrap_err();
    assert_eq!(e.to_string(), "invalid value: integer `-2`, expected u8 at byte 5");
    // Signed zero (20) is 0; a negative magnitude above 2^63 is an error.
    assert_eq!(dec::<i32>(&[0x20]), 0);
    assert!(from_slice::<i64>(&unhex("3f ffffffffffffffffff01")).is_err());
}

#[test]
fn floats() {
    // Whole floats are written as integers and read back into float fields.
    roundtrip(&1.0f64, "01");
    roundtrip(&-2.0f64, "22");
    roundtrip(&Test08 { double: 1.0 }, "c1 86 646f75626c65 01");
    roundtrip(&Test08 { double: -1e15 }, "c1 86 646f75626c65 3f 80809aa6eaafe301");
    roundtrip(&2.3f64, "41 6666666666660240");
    roundtrip(&1.5f64, "40 0000c03f");
    roundtrip(&f64::INFINITY, "40 0000807f");
    roundtrip(&f64::NEG_INFINITY, "40 000080ff");
    // -0.0 is written as 00 (the sign of zero is lost, spec §1.5) and reads back as 0.0.
    assert_eq!(hex(&enc(&-0.0f64)), "00");
    assert_eq!(hex(&enc(&-0.0f32)), "00");
    let z: f64 = dec(&[0x00]);
    assert_eq!(z.to_bits(), 0.0f64.to_bits());
    // NaN is the canonical quiet NaN.
    assert_eq!(hex(&enc(&f64::NAN)), "41000000000000f87f");
    assert!(dec::<f64>(&enc(&f64::NAN)).is_nan());
    // f32: exact as binary32, read back exactly; f64 items narrow into f32 fields.
    roundtrip(&0.1f32, &format!("40 {}", hex(&0.1f32.to_le_bytes())));
    roundtrip(&-3.0f32, "23");
    roundtrip(&f32::MAX, &format!("40 {}", hex(&f32::MAX.to_le_bytes())));
    roundtrip(&1e-45f32, &format!("40 {}", hex(&1e-45f32.to_le_bytes())));
    assert_eq!(dec::<f32>(&unhex("41 6666666666660240")), 2.3f32);
    assert_eq!(dec::<f32>(&[0x3f, 0x1f]), -31.0);
    assert_eq!(dec::<f64>(&unhex("1f ffffffffffffffffff01")), u64::MAX as f64);
    // A string is not a float.
    let e = from_slice::<Test08>(&unhex("c1 86 646f75626c65 81 31")).unwrap_err();
    assert_eq!(e.offset(), Some(8), "{e}");
}

// ---------------------------------------------------------------------------------------------
// errors

#[test]
fn wrong_kind_errors_have_the_item_offset() {
    #[derive(Deserialize, Debug)]
    struct NegU32 {
        #[allow(dead_code)]
        neg: u32,
    }
    // {"neg": "test"}: the string header is at byte 5.
    let e = from_slice::<NegU32>(&unhex("c1 83 6e6567 84 74657374")).unwrap_err();
    assert_eq!(e.offset(), Some(5), "{e}");
    assert_eq!(e.to_string(), "invalid type: string \"test\", expected u32 at byte 5");
    assert!(!e.to_string().contains('\n'));

    // Deeper inside Test10: "pos" (key at 42, value at 46) as an array.
    let (_, mut bytes) = vector("Test10");
    let at = bytes.windows(4).position(|w| w == b"\x83pos").unwrap() + 4;
    assert_eq!(bytes[at], 0x01);
    bytes[at] = 0xe0; // an empty array instead of 1
    let e = from_slice::<Test10>(&bytes).unwrap_err();
    assert_eq!(e.offset(), Some(at), "{e}");
    assert!(e.to_string().ends_with(&format!("at byte {at}")), "{e}");

    // A struct from an array, a Vec from a string, a missing field, a duplicate field.
    let e = from_slice::<Test06>(&[0xe0]).unwrap_err();
    assert_eq!(e.to_string(), "invalid type: sequence, expected struct Test06 at byte 0");
    let e = from_slice::<Test04>(&unhex("c1 84 64617461 81 78")).unwrap_err();
    assert_eq!(e.offset(), Some(6), "{e}");
    let e = from_slice::<Test06>(&[0xc0]).unwrap_err();
    assert_eq!(e.to_string(), "missing field `neg` at byte 0");
    let e = from_slice::<Test06>(&unhex("c2 83 6e6567 01 83 6e6567 02")).unwrap_err();
    assert!(e.to_string().starts_with("duplicate field `neg`"), "{e}");
    // Malformed PSON: the pson error with its offset.
    let e = from_slice::<Test09>(&unhex("c1 86 737472696e67 82 ff00")).unwrap_err();
    assert_eq!(e.pson(), Some(pson::Error { kind: pson::ErrorKind::InvalidUtf8, offset: 9 }), "{e:?}");
    assert_eq!(e.to_string(), "invalid UTF-8 in string at byte 9");
    let e = from_slice::<u8>(&[]).unwrap_err();
    assert_eq!(e.to_string(), "unexpected end of input at byte 0");
    assert!(std::error::Error::source(&e).is_some());
}

#[test]
fn trailing_bytes_are_an_error() {
    let e = from_slice::<u8>(&[0x01, 0x02]).unwrap_err();
    assert_eq!(e.pson(), Some(pson::Error { kind: pson::ErrorKind::TrailingBytes, offset: 1 }), "{e:?}");
    assert_eq!(e.to_string(), "trailing bytes after the root item at byte 1");
    let mut de = pson_serde::Deserializer::from_slice(&[0x01, 0x02]);
    assert_eq!(u8::deserialize(&mut de).unwrap(), 1);
    assert_eq!(de.position(), 1);
    assert!(de.end().is_err());
    assert_eq!(u8::deserialize(&mut de).unwrap(), 2);
    assert!(de.end().is_ok());
}

/// A recursive type: each level is one array.
#[derive(Deserialize, Debug)]
struct Deep(#[allow(dead_code)] Vec<Deep>);

/// A recursive type: each level is one map.
#[derive(Deserialize, Debug)]
struct DeepMap {
    #[allow(dead_code)]
    a: Option<Box<DeepMap>>,
}

fn nested_arrays(n: usize) -> Vec<u8> {
    let mut b = vec![0xe1; n];
    b.push(0xe0);
    b
}

fn nested_maps(n: usize) -> Vec<u8> {
    let mut b = Vec::new();
    for _ in 0..n {
        b.extend_from_slice(&[0xc1, 0x81, b'a']);
    }
    b.push(0x62);
    b
}

fn depth_error<T: DeserializeOwned + Debug>(bytes: &[u8], at: usize) {
    match from_slice::<T>(bytes) {
        Err(e) if e.pson().is_some() => {
            let e = e.pson().unwrap();
            assert_eq!((e.kind, e.offset), (pson::ErrorKind::DepthLimit, at))
        }
        other => panic!("expected a depth error at {at}, got {other:?}"),
    }
}

#[test]
fn deep_nesting_is_limited() {
    // Debug builds use big stack frames: give the 128 levels room.
    std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(|| {
            // e1 × 1000: the 129th array header (byte 128) is one too deep.
            depth_error::<Deep>(&nested_arrays(1000), 128);
            depth_error::<IgnoredAny>(&nested_arrays(1000), 128);
            depth_error::<serde_json::Value>(&nested_arrays(1000), 128);
            // 128 containers (the last one empty) decode, 129 do not.
            from_slice::<Deep>(&nested_arrays(127)).unwrap();
            from_slice::<IgnoredAny>(&nested_arrays(127)).unwrap();
            depth_error::<Deep>(&nested_arrays(128), 128);
            // Maps: 3 bytes per level.
            from_slice::<DeepMap>(&nested_maps(128)).unwrap();
            depth_error::<DeepMap>(&nested_maps(1000), 128 * 3);
            depth_error::<IgnoredAny>(&nested_maps(1000), 128 * 3);
            // Enum payloads count too.
            #[derive(Deserialize, Debug)]
            enum Tree {
                #[allow(dead_code)]
                Node(Box<Tree>),
                Leaf,
            }
            let mut b = Vec::new();
            for _ in 0..1000 {
                b.extend_from_slice(&[0xc1, 0x84, b'N', b'o', b'd', b'e']);
            }
            b.extend_from_slice(&[0x84, b'L', b'e', b'a', b'f']);
            depth_error::<Tree>(&b, 128 * 6);
            let _ = Tree::Leaf;
        })
        .unwrap()
        .join()
        .expect("no panic");
}

#[test]
fn serializer_errors() {
    // serialize_map(None): #[serde(flatten)].
    #[derive(Serialize)]
    struct Flat {
        a: u8,
        #[serde(flatten)]
        rest: BTreeMap<String, u8>,
    }
    let r = to_vec(&Flat { a: 1, rest: BTreeMap::new() });
    assert_eq!(r, Err(Error::unknown_length()));
    assert!(Error::unknown_length().to_string().contains("length"));

    // serialize_seq(None), and lengths that do not match what is written.
    struct Seq {
        declared: Option<usize>,
        written: usize,
    }
    impl Serialize for Seq {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(self.declared)?;
            for i in 0..self.written {
                seq.serialize_element(&i)?;
            }
            seq.end()
        }
    }
    assert_eq!(to_vec(&Seq { declared: None, written: 1 }), Err(Error::unknown_length()));
    assert_eq!(hex(&to_vec(&Seq { declared: Some(2), written: 2 }).unwrap()), "e20001");
    assert!(matches!(
        to_vec(&Seq { declared: Some(2), written: 3 }).map_err(|e| e.code().clone()),
        Err(ErrorCode::Message { .. })
    ));
    assert!(matches!(
        to_vec(&Seq { declared: Some(2), written: 1 }).map_err(|e| e.code().clone()),
        Err(ErrorCode::Message { .. })
    ));

    struct LyingStruct;
    impl Serialize for LyingStruct {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut st = s.serialize_struct("LyingStruct", 1)?;
            st.serialize_field("a", &1)?;
            st.serialize_field("b", &2)?;
            st.end()
        }
    }
    assert!(to_vec(&LyingStruct).is_err());

    // A custom error message passes through.
    struct Fails;
    impl Serialize for Fails {
        fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no way"))
        }
    }
    assert_eq!(to_vec(&Fails).unwrap_err().to_string(), "no way");
}

// ---------------------------------------------------------------------------------------------
// hostile input

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

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Decode `bytes` into several types; none may panic, and every error has an offset.
fn decode_all_types(bytes: &[u8], seed: u64) {
    fn one<T: DeserializeOwned>(bytes: &[u8], seed: u64, what: &str) {
        let r = catch_unwind(AssertUnwindSafe(|| from_slice::<T>(bytes).err()));
        match r {
            Ok(Some(e)) => {
                assert!(e.offset().is_some(), "seed {seed}: {what} error without offset: {e} ({})", hex(bytes))
            }
            Ok(None) => {}
            Err(_) => panic!("seed {seed}: {what} panicked on {}", hex(bytes)),
        }
    }
    one::<Test10>(bytes, seed, "Test10");
    one::<Outer>(bytes, seed, "Outer");
    one::<IgnoredAny>(bytes, seed, "IgnoredAny");
    one::<Vec<Cmd>>(bytes, seed, "Vec<Cmd>");
    one::<HashMap<String, Option<f64>>>(bytes, seed, "HashMap");
    one::<BTreeMap<u16, Buf>>(bytes, seed, "BTreeMap<u16, Buf>");
    one::<(u8, String, Vec<f32>)>(bytes, seed, "tuple");
    one::<serde_json::Value>(bytes, seed, "serde_json::Value");
}

#[test]
fn random_bytes_never_panic() {
    for seed in 1..=3000u64 {
        let mut rng = XorShift(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let len = rng.below(48) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                // Bias towards small payloads (real headers) half of the time.
                let b = rng.next() as u8;
                if rng.next() & 1 == 0 {
                    b & 0xe3
                } else {
                    b
                }
            })
            .collect();
        decode_all_types(&bytes, seed);
    }
}

#[test]
fn mutated_encodings_never_panic() {
    let mut docs = vec![enc(&sample_outer())];
    for name in ["Test01", "Test03", "Test10"] {
        docs.push(vector(name).1);
    }
    docs.push(enc(&vec![Cmd::Stop, Cmd::Speed(1), Cmd::Move(2, "m".into()), Cmd::Config { rate: 0.5, label: None }]));
    for seed in 1..=3000u64 {
        let mut rng = XorShift(seed.wrapping_mul(0xd1b5_4a32_d192_ed03) | 1);
        let mut bytes = docs[rng.below(docs.len() as u64) as usize].clone();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(bytes.len() as u64) as usize;
            match rng.below(3) {
                0 => bytes[i] = rng.next() as u8,
                1 => bytes[i] ^= 1 << rng.below(8),
                _ => bytes.truncate(i),
            }
            if bytes.is_empty() {
                break;
            }
        }
        decode_all_types(&bytes, seed);
    }
}

/// The typed reader (with its inline fast path) accepts exactly what the dynamic codec (on
/// `pson::Decoder`) accepts, reads the same values, and fails at the same byte.
fn same_as_dynamic(bytes: &[u8], seed: u64) {
    let dynamic = wirebench_codecs::find("pson").unwrap().decode(bytes, None);
    let typed = catch_unwind(AssertUnwindSafe(|| from_slice::<Value>(bytes)))
        .unwrap_or_else(|_| panic!("seed {seed}: panicked on {}", hex(bytes)));
    match (dynamic, typed) {
        (Ok(d), Ok(t)) => {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let pson = wirebench_codecs::find("pson").unwrap();
            pson.encode(&d, None, &mut a).unwrap();
            pson.encode(&t, None, &mut b).unwrap();
            assert_eq!(hex(&a), hex(&b), "seed {seed}: different values from {}", hex(bytes));
        }
        (Err(wirebench_codecs::CodecError::Decode { offset, msg, .. }), Err(e)) => {
            assert_eq!(offset, e.offset(), "seed {seed}: {} — dynamic: {msg}, typed: {e}", hex(bytes))
        }
        (d, t) => panic!("seed {seed}: {} — dynamic {d:?}, typed {t:?}", hex(bytes)),
    }
}

#[test]
fn typed_reader_agrees_with_the_dynamic_decoder() {
    // Hand-picked edge forms: escapes everywhere, long varints, signed zero, i64::MIN,
    // overflow, bad floats/discretes, truncations, bad UTF-8 in keys and values.
    let cases = [
        "1f05",
        "1f8000",
        "1fffffffffffffffffff01",
        "1fffffffffffffffffff7f",
        "1fffffffffffffffffffff01",
        "20",
        "3f80808080808080808001",
        "3f81808080808080808001",
        "5f00 0000c03f",
        "5f01 6666666666660240",
        "42",
        "63",
        "7f00",
        "7f02",
        "7f03",
        "9f04 74657374",
        "bf02 0102",
        "df01 81 61 01",
        "ff01 01",
        "c1 81 ff 01",
        "c1 9f01 61 01",
        "c1 01 01",
        "82 c3",
        "82 61ff",
        "e2 01",
        "c3 81 61 01",
        "e1 e1 e1 e0",
        "",
        "62 62",
        "c1 81 61 41 000000000000f87f",
        "40 0000c0",
        "a5 0102",
    ];
    for (i, c) in cases.iter().enumerate() {
        same_as_dynamic(&unhex(c), i as u64);
    }
    for depth in [127, 128, 129, 300] {
        same_as_dynamic(&nested_arrays(depth), depth as u64);
        same_as_dynamic(&nested_maps(depth), depth as u64);
    }
    // Pseudo-random bytes and mutated real documents.
    let docs = [enc(&sample_outer()), vector("Test02").1, vector("Test10").1];
    for seed in 1..=4000u64 {
        let mut rng = XorShift(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
        let bytes: Vec<u8> = if seed % 2 == 0 {
            (0..rng.below(40)).map(|_| rng.next() as u8).collect()
        } else {
            let mut b = docs[rng.below(docs.len() as u64) as usize].clone();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(b.len() as u64) as usize;
                b[i] = rng.next() as u8;
            }
            b
        };
        same_as_dynamic(&bytes, seed);
    }
}

#[test]
fn field_names_and_keys() {
    // Non-ASCII field names, and a key with invalid UTF-8 is an error (not an unknown field).
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Meteo {
        #[serde(rename = "température")]
        t: f32,
        #[serde(rename = "a_rather_long_field_name")]
        long: bool,
    }
    let m = Meteo { t: -3.5, long: true };
    let bytes = roundtrip_any(&m);
    assert_eq!(&bytes[1..14], b"\x8ctemp\xc3\xa9rature");
    let e = from_slice::<Test06>(&unhex("c1 83 6eff67 01")).unwrap_err();
    assert_eq!((e.offset(), e.to_string()), (Some(3), "invalid UTF-8 in string at byte 3".to_string()), "{e:?}");
    let e = from_slice::<Test06>(&unhex("c1 81 ff 01")).unwrap_err();
    assert_eq!(e.offset(), Some(2), "{e}");
    // Unknown fields are skipped; deny_unknown_fields reports the key's offset.
    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        #[allow(dead_code)]
        neg: i32,
    }
    let e = from_slice::<Strict>(&unhex("c2 83 6e6567 01 81 78 e1 c0")).unwrap_err();
    assert_eq!(e.offset(), Some(6), "{e}");
    assert!(e.to_string().starts_with("unknown field `x`"), "{e}");
    assert_eq!(dec::<Test06>(&unhex("c2 81 78 e1 c1 81 79 a1 00 83 6e6567 21")), Test06 { neg: -1 });
    // Duplicate field: at the second key.
    let e = from_slice::<Test06>(&unhex("c2 83 6e6567 01 83 6e6567 02")).unwrap_err();
    assert_eq!(e.offset(), Some(6), "{e}");
}

#[test]
fn field_names_at_the_length_boundaries_match_the_pson_encoder() {
    // Field names up to 15 bytes take the fixed-array path, longer ones the string path;
    // one-byte string headers end at 30 bytes.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Names {
        #[serde(rename = "")]
        n0: u8,
        #[serde(rename = "a")]
        n1: u8,
        #[serde(rename = "fifteen_bytes__")]
        n15: u8,
        #[serde(rename = "sixteen_bytes___")]
        n16: u8,
        #[serde(rename = "thirty_bytes__________________")]
        n30: u8,
        #[serde(rename = "thirty_one_bytes_______________")]
        n31: u8,
    }
    let v = Names { n0: 0, n1: 1, n15: 15, n16: 16, n30: 30, n31: 31 };
    let bytes = roundtrip_any(&v);
    let mut e = pson::Encoder::new(Vec::new());
    e.header(pson::wire_type::MAP, 6).unwrap();
    for name in [
        "",
        "a",
        "fifteen_bytes__",
        "sixteen_bytes___",
        "thirty_bytes__________________",
        "thirty_one_bytes_______________",
    ] {
        e.str(name).unwrap().u64(name.len() as u64).unwrap();
    }
    assert_eq!(hex(&bytes), hex(&e.into_inner()));
}

#[test]
fn numbers_and_lengths_match_the_pson_encoder() {
    // The serializer writes headers and floats itself; every form must be pson::Encoder's.
    fn pson_bytes(f: impl FnOnce(&mut pson::Encoder<Vec<u8>>) -> Result<(), pson::Error>) -> String {
        let mut e = pson::Encoder::new(Vec::new());
        f(&mut e).unwrap();
        hex(&e.into_inner())
    }
    let mut values: Vec<u64> = vec![0, 1, 30, 31, 32, 127, 128, 255, 256, u64::MAX, u64::MAX - 1];
    for b in 1..64 {
        values.extend([(1u64 << b) - 1, 1u64 << b, (1u64 << b) + 1]);
    }
    for &u in &values {
        assert_eq!(hex(&enc(&u)), pson_bytes(|e| e.u64(u).map(drop)), "u64 {u}");
        let i = u as i64;
        assert_eq!(hex(&enc(&i)), pson_bytes(|e| e.i64(i).map(drop)), "i64 {i}");
        let n = (u as i64).wrapping_neg();
        assert_eq!(hex(&enc(&n)), pson_bytes(|e| e.i64(n).map(drop)), "i64 {n}");
    }
    for len in [0usize, 1, 30, 31, 32, 127, 128, 200, 16_383, 16_384, 70_000] {
        let s = "x".repeat(len);
        assert_eq!(hex(&enc(&s)), pson_bytes(|e| e.str(&s).map(drop)), "str of {len}");
        let b = Buf(vec![7; len]);
        assert_eq!(hex(&enc(&b)), pson_bytes(|e| e.bytes(&b.0).map(drop)), "bytes of {len}");
        let v = vec![0u8; len];
        let h = pson_bytes(|e| e.array(len as u64).map(drop));
        assert_eq!(hex(&enc(&v)[..h.len() / 2]), h, "array of {len}");
    }
    // Floats: edge values and pseudo-random bit patterns, as f64 and as f32.
    let mut floats = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.3,
        1.03,
        48.75,
        1e15,
        -1e15,
        1e300,
        -1e-300,
        4294967296.0,
        9_223_372_036_854_775_808.0,
        -9_223_372_036_854_775_808.0,
        9_223_372_036_854_774_784.0,
        -9_223_372_036_854_777_856.0,
        18_446_744_073_709_551_616.0,
        4_503_599_627_370_496.5,
        4_503_599_627_370_497.0,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        f64::EPSILON,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_0000_0001),
        f64::from_bits(1),
        f32::MAX as f64,
        f32::MIN_POSITIVE as f64,
        1e-45f32 as f64,
        16_777_217.0,
        0.1,
        -0.1,
        // Around the serializer's fast-path bound (2^24) and its rounding test.
        16_777_216.0,
        -16_777_216.0,
        16_777_215.0,
        -16_777_215.0,
        16_777_215.5,
        -16_777_215.5,
        8_388_608.5,
        8_388_607.5,
        4_194_303.75,
        0.25,
        -0.75,
        1e-7,
        3.0e7,
        2.5e-320,
    ];
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    for _ in 0..20_000 {
        floats.push(f64::from_bits(rng.next()));
        floats.push(f32::from_bits(rng.next() as u32) as f64);
        floats.push((rng.next() as i64 >> rng.below(64)) as f64);
    }
    for &d in &floats {
        assert_eq!(hex(&enc(&d)), pson_bytes(|e| e.f64(d).map(drop)), "f64 {d:e} ({:016x})", d.to_bits());
        let f = d as f32;
        assert_eq!(hex(&enc(&f)), pson_bytes(|e| e.f32(f).map(drop)), "f32 {f:e}");
    }
}
