//! Byte arrays annotated field by field: one per layout rule (alignment,
//! DHEADER, EMHEADER length codes, XCDR1 parameter lists, optionals, unions,
//! bit-bound enums, the C writer's padding). Each array is encoded exactly
//! and decodes back to its value.

use cdr::{decode, encode, encode_key, idl, Encoder, Encoding, TypeDesc, Value};

fn ty(src: &str, name: &str) -> TypeDesc {
    idl::parse(src).unwrap_or_else(|e| panic!("{e}")).get(name).expect("type").clone()
}

#[track_caller]
fn check(t: &TypeDesc, v: &Value, enc: Encoding, want: &[u8]) {
    let got = encode(t, v, enc).unwrap_or_else(|e| panic!("encode: {e}"));
    assert_eq!(got, want, "\n ours {:02x?}\n want {:02x?}", got, want);
    let back = decode(t, want).unwrap_or_else(|e| panic!("decode: {e}"));
    assert_eq!(&back, v);
}

fn s(x: &str) -> Value {
    Value::String(x.into())
}

const ALIGN: &str = "@final struct Align { octet a; long long b; octet c; double d; unsigned short e; long f; };";

fn align_value() -> Value {
    Value::Struct(vec![Value::UInt(1), Value::Int(2), Value::UInt(3), Value::F64(1.0), Value::UInt(5), Value::Int(6)])
}

#[test]
fn xcdr1_aligns_8_byte_types_to_8() {
    #[rustfmt::skip]
    let want = [
        0x00, 0x01, 0x00, 0x00,                         // CDR_LE, options 0
        0x01, 0, 0, 0, 0, 0, 0, 0,                      // a @0, pad 7
        0x02, 0, 0, 0, 0, 0, 0, 0,                      // b @8
        0x03, 0, 0, 0, 0, 0, 0, 0,                      // c @16, pad 7
        0, 0, 0, 0, 0, 0, 0xf0, 0x3f,                   // d @24 = 1.0
        0x05, 0x00, 0, 0,                               // e @32, pad 2
        0x06, 0, 0, 0,                                  // f @36: body 40 bytes
    ];
    check(&ty(ALIGN, "Align"), &align_value(), Encoding::XCDR1_LE, &want);
}

#[test]
fn xcdr2_caps_alignment_at_4() {
    #[rustfmt::skip]
    let want = [
        0x00, 0x07, 0x00, 0x00,                         // CDR2_LE
        0x01, 0, 0, 0,                                  // a @0, pad 3
        0x02, 0, 0, 0, 0, 0, 0, 0,                      // b @4
        0x03, 0, 0, 0,                                  // c @12, pad 3
        0, 0, 0, 0, 0, 0, 0xf0, 0x3f,                   // d @16
        0x05, 0x00, 0, 0,                               // e @24, pad 2
        0x06, 0, 0, 0,                                  // f @28: body 32 bytes
    ];
    check(&ty(ALIGN, "Align"), &align_value(), Encoding::XCDR2_LE, &want);
}

#[test]
fn xcdr1_big_endian() {
    #[rustfmt::skip]
    let want = [
        0x00, 0x00, 0x00, 0x00,                         // CDR_BE
        0x01, 0, 0, 0, 0, 0, 0, 0,                      // a, pad 7
        0, 0, 0, 0, 0, 0, 0, 0x02,                      // b
        0x03, 0, 0, 0, 0, 0, 0, 0,                      // c, pad 7
        0x3f, 0xf0, 0, 0, 0, 0, 0, 0,                   // d
        0x00, 0x05, 0, 0,                               // e, pad 2
        0, 0, 0, 0x06,                                  // f
    ];
    check(&ty(ALIGN, "Align"), &align_value(), Encoding::XCDR1_BE, &want);
}

const POSE: &str =
    "struct Point { long x; long y; }; @final struct Pose { octet tag; Point position; sequence<Point> path; };";

fn pose_value() -> Value {
    let p = |x, y| Value::Struct(vec![Value::Int(x), Value::Int(y)]);
    Value::Struct(vec![Value::UInt(9), p(1, 2), Value::Seq(vec![p(3, 4), p(5, 6)])])
}

#[test]
fn xcdr2_dheader_before_a_sequence_of_structs() {
    #[rustfmt::skip]
    let want = [
        0x00, 0x07, 0x00, 0x00,                         // CDR2_LE (Pose is final)
        0x09, 0, 0, 0,                                  // tag, pad 3
        0x01, 0, 0, 0, 0x02, 0, 0, 0,                   // position {1, 2}
        0x14, 0, 0, 0,                                  // DHEADER: 20 bytes follow
        0x02, 0, 0, 0,                                  //   count 2
        0x03, 0, 0, 0, 0x04, 0, 0, 0,                   //   {3, 4}
        0x05, 0, 0, 0, 0x06, 0, 0, 0,                   //   {5, 6}
    ];
    check(&ty(POSE, "Pose"), &pose_value(), Encoding::XCDR2_LE, &want);
    // XCDR1: no DHEADER.
    #[rustfmt::skip]
    let want1 = [
        0x00, 0x01, 0x00, 0x00,
        0x09, 0, 0, 0,
        0x01, 0, 0, 0, 0x02, 0, 0, 0,
        0x02, 0, 0, 0,                                  // count 2
        0x03, 0, 0, 0, 0x04, 0, 0, 0,
        0x05, 0, 0, 0, 0x06, 0, 0, 0,
    ];
    check(&ty(POSE, "Pose"), &pose_value(), Encoding::XCDR1_LE, &want1);
}

const MUT: &str = "@mutable struct MutSensor { long id; double ts; string name; };";

fn mut_value() -> Value {
    Value::Struct(vec![Value::Int(7), Value::F64(0.25), s("ab")])
}

#[test]
fn xcdr2_mutable_emheaders_and_length_codes() {
    #[rustfmt::skip]
    let want = [
        0x00, 0x0b, 0x00, 0x00,                         // PL_CDR2_LE
        0x1f, 0, 0, 0,                                  // DHEADER: 31 bytes
        0x00, 0, 0, 0x20,                               // EMHEADER LC 2 (4 bytes), id 0
        0x07, 0, 0, 0,                                  //   id = 7
        0x01, 0, 0, 0x30,                               // EMHEADER LC 3 (8 bytes), id 1
        0, 0, 0, 0, 0, 0, 0xd0, 0x3f,                   //   ts = 0.25
        0x02, 0, 0, 0x50,                               // EMHEADER LC 5 (length = next int + 4), id 2
        0x03, 0, 0, 0, b'a', b'b', 0,                   //   name = "ab"
    ];
    check(&ty(MUT, "MutSensor"), &mut_value(), Encoding::XCDR2_LE, &want);
}

#[test]
fn xcdr1_mutable_parameter_list() {
    #[rustfmt::skip]
    let want = [
        0x00, 0x03, 0x00, 0x00,                         // PL_CDR_LE
        0x01, 0x7f, 0x08, 0x00,                         // PID_EXTENDED|MU, length 8
        0x00, 0, 0, 0, 0x04, 0, 0, 0,                   //   member id 0, length 4
        0x07, 0, 0, 0,                                  //   id = 7
        0x01, 0x7f, 0x08, 0x00,
        0x01, 0, 0, 0, 0x08, 0, 0, 0,                   //   member id 1, length 8
        0, 0, 0, 0, 0, 0, 0xd0, 0x3f,                   //   ts (aligned from the member's start)
        0x01, 0x7f, 0x08, 0x00,
        0x02, 0, 0, 0, 0x08, 0, 0, 0,                   //   member id 2, length 8 (7, padded to 4)
        0x03, 0, 0, 0, b'a', b'b', 0, 0,                //   name = "ab" + 1 pad
        0x02, 0x7f, 0x00, 0x00,                         // PID_LIST_END|MU, length 0
    ];
    check(&ty(MUT, "MutSensor"), &mut_value(), Encoding::XCDR1_LE, &want);
}

const OPT: &str = "@appendable struct OptSensor { long id; @optional float f; @optional string s; };";

#[test]
fn optionals_in_xcdr2_are_a_presence_byte() {
    let v = Value::Struct(vec![Value::Int(1), Value::F32(2.0), Value::Null]);
    #[rustfmt::skip]
    let want = [
        0x00, 0x09, 0x00, 0x00,                         // D_CDR2_LE (appendable)
        0x0d, 0, 0, 0,                                  // DHEADER: 13 bytes
        0x01, 0, 0, 0,                                  // id
        0x01, 0, 0, 0,                                  // f present, pad 3
        0x00, 0x00, 0x00, 0x40,                         //   f = 2.0
        0x00,                                           // s absent
    ];
    check(&ty(OPT, "OptSensor"), &v, Encoding::XCDR2_LE, &want);
}

#[test]
fn optionals_in_xcdr1_are_parameter_headers() {
    let v = Value::Struct(vec![Value::Int(1), Value::Null, s("x")]);
    #[rustfmt::skip]
    let want = [
        0x00, 0x01, 0x00, 0x00,                         // CDR_LE (appendable = final in XCDR1)
        0x01, 0, 0, 0,                                  // id
        0x01, 0x7f, 0x08, 0x00,                         // f: PID_EXTENDED|MU, 8
        0x01, 0, 0, 0, 0x00, 0, 0, 0,                   //   member id 1, length 0: absent
        0x01, 0x7f, 0x08, 0x00,                         // s: PID_EXTENDED|MU, 8
        0x02, 0, 0, 0, 0x06, 0, 0, 0,                   //   member id 2, length 6 (not padded)
        0x02, 0, 0, 0, b'x', 0,                         //   s = "x"
    ];
    check(&ty(OPT, "OptSensor"), &v, Encoding::XCDR1_LE, &want);
}

const TAGGED: &str = "union Value switch(long) { case 1: long i; case 2: double d; default: string s; };\n\
                      @final struct Tagged { octet k; Value v; };";

#[test]
fn unions_discriminator_then_the_branch() {
    let t = ty(TAGGED, "Tagged");
    let v = Value::Struct(vec![Value::UInt(2), Value::Union { disc: 2, value: Some(Box::new(Value::F64(2.5))) }]);
    #[rustfmt::skip]
    let want = [
        0x00, 0x01, 0x00, 0x00,
        0x02, 0, 0, 0,                                  // k @0, pad 3
        0x02, 0, 0, 0,                                  // disc @4 = 2
        0, 0, 0, 0, 0, 0, 0x04, 0x40,                   // d @8 = 2.5
    ];
    check(&t, &v, Encoding::XCDR1_LE, &want);
    // The default branch: cyclonedds' default discriminator for `long` labels {1, 2} is -1.
    let v = Value::Struct(vec![Value::UInt(3), Value::Union { disc: -1, value: Some(Box::new(s("z"))) }]);
    #[rustfmt::skip]
    let want = [
        0x00, 0x07, 0x00, 0x00,
        0x03, 0, 0, 0,                                  // k, pad 3
        0xff, 0xff, 0xff, 0xff,                         // disc = -1 (default)
        0x02, 0, 0, 0, b'z', 0,                         // s = "z"
    ];
    check(&t, &v, Encoding::XCDR2_LE, &want);
}

#[test]
fn nested_appendable_gets_its_own_dheader() {
    let src = "@appendable struct AppSensor { long id; double ts; string name; };\n\
               @final struct Outer { octet a; AppSensor inner; unsigned short z; };";
    let v = Value::Struct(vec![
        Value::UInt(5),
        Value::Struct(vec![Value::Int(1), Value::F64(2.0), s("in")]),
        Value::UInt(0x1234),
    ]);
    #[rustfmt::skip]
    let want = [
        0x00, 0x07, 0x00, 0x00,                         // CDR2_LE: the top level is final
        0x05, 0, 0, 0,                                  // a, pad 3
        0x13, 0, 0, 0,                                  // DHEADER of inner: 19 bytes
        0x01, 0, 0, 0,                                  //   id
        0, 0, 0, 0, 0, 0, 0, 0x40,                      //   ts = 2.0 (4-aligned in XCDR2)
        0x03, 0, 0, 0, b'i', b'n', 0,                   //   name
        0x00,                                           // pad 1
        0x34, 0x12,                                     // z
    ];
    check(&ty(src, "Outer"), &v, Encoding::XCDR2_LE, &want);
}

#[test]
fn bit_bound_enums_shrink_in_xcdr2_only() {
    let src = "@bit_bound(8) enum Small { A, B, C };\n@bit_bound(16) enum Mid { X, Y };\n\
               @final struct BB { Small s; Mid m; };";
    let t = ty(src, "BB");
    let v = Value::Struct(vec![Value::Enum(2), Value::Enum(1)]);
    check(&t, &v, Encoding::XCDR2_BE, &[0x00, 0x06, 0, 0, 0x02, 0x00, 0x00, 0x01]);
    check(&t, &v, Encoding::XCDR1_BE, &[0x00, 0x00, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1]);
}

#[test]
fn sequence_of_enums_has_a_dheader_in_xcdr2() {
    let src = "enum Color { RED, GREEN, BLUE }; struct C { sequence<Color> cs; sequence<boolean> bs; };";
    let v =
        Value::Struct(vec![Value::Seq(vec![Value::Enum(2)]), Value::Seq(vec![Value::Bool(true), Value::Bool(false)])]);
    #[rustfmt::skip]
    let want = [
        0x00, 0x07, 0, 0,
        0x08, 0, 0, 0,                                  // DHEADER 8 (enums are not primitive here)
        0x01, 0, 0, 0, 0x02, 0, 0, 0,                   //   count 1, BLUE
        0x02, 0, 0, 0, 0x01, 0x00,                      // booleans: count 2, no DHEADER
    ];
    check(&ty(src, "C"), &v, Encoding::XCDR2_LE, &want);
}

#[test]
fn c_writer_padding_and_key_serialization() {
    let src = "struct KeyedSeq { unsigned long seq; @key unsigned long keyval; sequence<octet> baggage; };";
    let t = ty(src, "KeyedSeq");
    let v = Value::Struct(vec![Value::UInt(1), Value::UInt(0), Value::Bytes(vec![0xee; 21])]);
    let mut want = vec![0x00, 0x01, 0x00, 0x03]; // CDR_LE, options: 3 bytes of padding
    want.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 21, 0, 0, 0]);
    want.extend_from_slice(&[0xee; 21]);
    want.extend_from_slice(&[0, 0, 0]); // the padding
    assert_eq!(Encoder::new(Encoding::XCDR1_LE).pad_to_4(true).encode(&t, &v).unwrap(), want);
    assert_eq!(decode(&t, &want).unwrap(), v);
    // The unpadded (cyclonedds-python) form decodes to the same value.
    let plain = encode(&t, &v, Encoding::XCDR1_LE).unwrap();
    assert_eq!(&plain[4..], &want[4..want.len() - 3]);
    assert_eq!(decode(&t, &plain).unwrap(), v);
    // Key only: header, then keyval.
    assert_eq!(encode_key(&t, &v, Encoding::XCDR2_BE).unwrap(), [0x00, 0x06, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn rtps_shape_type_example() {
    // RTPS 2.3 §10.7 (the body equals the cdr-encoding crate's doc-test bytes).
    let t = ty("struct ShapeType { @key string color; long x; long y; long shapesize; };", "ShapeType");
    let v = Value::Struct(vec![s("BLUE"), Value::Int(34), Value::Int(100), Value::Int(24)]);
    #[rustfmt::skip]
    let want = [
        0x00, 0x01, 0x00, 0x00,
        0x05, 0, 0, 0, b'B', b'L', b'U', b'E', 0,       // color
        0, 0, 0,                                        // pad 3
        0x22, 0, 0, 0, 0x64, 0, 0, 0, 0x18, 0, 0, 0,    // x, y, shapesize
    ];
    check(&t, &v, Encoding::XCDR1_LE, &want);
}
