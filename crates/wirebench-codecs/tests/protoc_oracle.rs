//! The Protobuf codec with a .proto schema against the reference: protoc (Debian's
//! `protobuf-compiler`). Random messages of schemas written here (proto3 implicit presence,
//! `optional`, oneof, map, enum, nested and recursive messages, an import found through an include
//! path, `google.protobuf.Timestamp`, a proto2 file) are written twice by the generator: as JSON
//! in the proto3 mapping (names as in the .proto or lowerCamelCase, 64-bit integers as numbers or
//! strings, enums by name or number) for wirebench, and in protoc's text format for
//! `protoc --encode`. The bytes must be identical, and wirebench must decode protoc's bytes to the
//! JSON the mapping prints (the generator's third form).
//!
//! Without protoc the tests print why and pass, unless `WIREBENCH_ORACLES=require`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use wirebench_codecs::protobuf::dynamic;
use wirebench_codecs::schema_files::read_schema_file_with;
use wirebench_core::{Schema, Value};

#[path = "support/proto_gen.rs"]
mod proto_gen;
use proto_gen::*;

const UNITS: &str = r#"syntax = "proto3";
package wb.common;

enum Unit {
  UNIT_UNSPECIFIED = 0;
  CELSIUS = 1;
  PASCAL = 2;
  VOLT = -3;
}

message Position {
  double lat = 1;
  double lon = 2;
  optional float alt = 3;
}
"#;

const TELEMETRY: &str = r#"syntax = "proto3";
package wb;

import "common/units.proto";
import "google/protobuf/timestamp.proto";

message Reading {
  uint32 id = 1;
  repeated float samples = 2;
  optional int32 offset = 3;
  int64 big = 4;
  sint32 delta = 5;
  fixed64 serial = 6;
  sfixed32 sf = 7;
  bool ok = 8;
  string name = 9;
  bytes raw = 10;
  wb.common.Unit unit = 11;
  wb.common.Position pos = 12;
  oneof payload {
    double value = 13;
    string text = 14;
    Nested nested = 15;
  }
  map<string, int32> counts = 16;
  google.protobuf.Timestamp at = 17;
  repeated Nested children = 18;
  repeated wb.common.Unit units = 19;
  double float_value = 20;
  uint64 u64 = 21;
  sfixed64 sf64 = 22;
  fixed32 f32 = 23;
  sint64 s64 = 24;
  float gain = 25;
  repeated string tags = 26;
  optional bool flag = 27;
  int32 i32 = 28;

  message Nested {
    uint64 n = 1;
    repeated sint64 zs = 2;
    Reading back = 3;
  }
}
"#;

const LEGACY: &str = r#"syntax = "proto2";
package wb.legacy;

message Legacy {
  required int32 a = 1;
  optional string b = 2 [default = "x"];
  repeated int32 packed_ints = 3 [packed = true];
  repeated int32 loose_ints = 4;
  optional sint64 z = 5;
  optional Legacy next = 6;
}
"#;

/// protoc, when installed; else why not (a failure under WIREBENCH_ORACLES=require).
fn protoc() -> Option<PathBuf> {
    let ok = Command::new("protoc").arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    if ok {
        return Some(PathBuf::from("protoc"));
    }
    let why = "protoc not found (apt-get install protobuf-compiler)";
    if std::env::var("WIREBENCH_ORACLES").as_deref() == Ok("require") {
        panic!("{why}, and WIREBENCH_ORACLES=require");
    }
    eprintln!("skipped: {why}");
    None
}

/// The schema files in a fresh folder: inc/common/units.proto, main/telemetry.proto, main/legacy.proto.
fn schema_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirebench-protoc-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("inc/common")).unwrap();
    std::fs::create_dir_all(dir.join("main")).unwrap();
    std::fs::write(dir.join("inc/common/units.proto"), UNITS).unwrap();
    std::fs::write(dir.join("main/telemetry.proto"), TELEMETRY).unwrap();
    std::fs::write(dir.join("main/legacy.proto"), LEGACY).unwrap();
    dir
}

// ---------------------------------------------------------------------------------------------

/// A file of [`schema_dir`] with its include folders.
fn files(dir: &Path, file: &str) -> ProtoFiles {
    ProtoFiles { includes: vec![dir.join("inc"), dir.join("main")], file: dir.join("main").join(file) }
}

fn read(dir: &Path, file: &str, type_name: &str) -> Schema {
    read_schema_file_with(&dir.join("main").join(file), Some(type_name), &[dir.join("inc")]).unwrap()
}

/// A Python with Google's protobuf runtime (Debian's python3-protobuf), for the JSON mapping.
fn google_python() -> Option<PathBuf> {
    for py in ["python3", "/usr/bin/python3"] {
        let ok =
            Command::new(py).args(["-c", "import google.protobuf.json_format"]).output().map(|o| o.status.success());
        if ok.unwrap_or(false) {
            return Some(PathBuf::from(py));
        }
    }
    None
}

/// Google's JSON parser (python3-protobuf's json_format) on the same JSON lines: each line's
/// bytes in hex, or `ERR reason`.
const GOOGLE_JSON: &str = r#"
import sys
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
fds = descriptor_pb2.FileDescriptorSet.FromString(open(sys.argv[1], 'rb').read())
pool = descriptor_pool.DescriptorPool()
for f in fds.file:
    pool.Add(f)
desc = pool.FindMessageTypeByName(sys.argv[2])
if hasattr(message_factory, 'GetMessageClass'):
    cls = message_factory.GetMessageClass(desc)
else:
    cls = message_factory.MessageFactory(pool).GetPrototype(desc)
for line in sys.stdin:
    m = cls()
    try:
        json_format.Parse(line, m)
        print(m.SerializeToString().hex())
    except Exception as e:
        print('ERR ' + str(e).replace(chr(10), ' '))
"#;

fn google_json(py: &Path, protoc: &Path, dir: &Path, file: &str, type_name: &str, lines: &[String]) -> Vec<String> {
    let fds = dir.join(format!("{file}.fds"));
    let mut args = vec![format!("-I{}", dir.join("inc").display()), format!("-I{}", dir.join("main").display())];
    args.extend(["--include_imports".to_string(), format!("--descriptor_set_out={}", fds.display())]);
    args.push(dir.join("main").join(file).display().to_string());
    let st = Command::new(protoc).args(&args).status().unwrap();
    assert!(st.success());
    let mut child = Command::new(py)
        .args(["-c", GOOGLE_JSON, fds.to_str().unwrap(), type_name])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = lines.iter().map(|l| format!("{}\n", l.replace('\n', " "))).collect::<String>();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn random_messages_are_byte_identical_with_protoc() {
    let Some(protoc) = protoc() else { return };
    let dir = schema_dir("random");
    let sets = [
        (
            "telemetry.proto",
            "wb.Reading",
            check_random(&protoc, &files(&dir, "telemetry.proto"), "wb.Reading", 300, 0x9e37_79b9_7f4a_7c15),
        ),
        (
            "telemetry.proto",
            "wb.Reading.Nested",
            check_random(&protoc, &files(&dir, "telemetry.proto"), "wb.Reading.Nested", 50, 7),
        ),
        (
            "legacy.proto",
            "wb.legacy.Legacy",
            check_random(&protoc, &files(&dir, "legacy.proto"), "wb.legacy.Legacy", 100, 11),
        ),
    ];
    for (_, t, msgs) in &sets {
        println!("{t}: {} of {} random messages byte-identical with protoc --encode", msgs.len(), msgs.len());
    }
    // The JSON mapping as Google's own parser reads the same JSON: the same bytes.
    let Some(py) = google_python() else {
        let why =
            "no Python with google.protobuf (apt-get install python3-protobuf): JSON mapping not checked against it";
        if std::env::var("WIREBENCH_ORACLES").as_deref() == Ok("require") {
            panic!("{why}, and WIREBENCH_ORACLES=require");
        }
        eprintln!("skipped: {why}");
        return;
    };
    for (file, t, msgs) in &sets {
        let lines: Vec<String> = msgs.iter().map(|m| m.json.clone()).collect();
        let google = google_json(&py, &protoc, &dir, file, t, &lines);
        assert_eq!(google.len(), msgs.len());
        for (m, g) in msgs.iter().zip(&google) {
            assert_eq!(g, &hex(&m.bytes), "Google's JSON parser on {}", m.json);
        }
        println!("{t}: {} of {} read the same by Google's JSON parser (python3-protobuf)", google.len(), msgs.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn implicit_presence_camel_case_and_refusals() {
    let dir = schema_dir("rules");
    let schema = read(&dir, "telemetry.proto", "Reading");
    let codec = wirebench_codecs::find("protobuf").unwrap();
    let enc = |json: &str| -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        codec
            .encode(&Value::from_json_str(json).unwrap(), Some(&schema), &mut out)
            .map(|_| out)
            .map_err(|e| e.to_string())
    };
    // Implicit presence: the issue's example, and defaults are not written.
    assert_eq!(enc(r#"{"id":1}"#).unwrap(), [0x08, 0x01]);
    assert_eq!(enc(r#"{"id":0,"samples":[],"name":""}"#).unwrap(), Vec::<u8>::new());
    // proto3 `optional` writes an explicit zero.
    assert_eq!(enc(r#"{"offset":0}"#).unwrap(), [0x18, 0x00]);
    // lowerCamelCase and the original name are the same field; int64 as a string.
    assert_eq!(enc(r#"{"floatValue":1.5}"#).unwrap(), enc(r#"{"float_value":1.5}"#).unwrap());
    assert_eq!(enc(r#"{"big":"-2"}"#).unwrap(), enc(r#"{"big":-2}"#).unwrap());
    assert_eq!(enc(r#"{"unit":"PASCAL"}"#).unwrap(), [0x58, 0x02]);
    // Refused as protoc's JSON parser refuses them.
    let e = enc(r#"{"value":1.5,"text":"x"}"#).unwrap_err();
    assert!(e.contains("oneof 'payload'"), "{e}");
    let e = enc(r#"{"nope":1}"#).unwrap_err();
    assert!(e.contains("nope"), "{e}");
    let e = enc(r#"{"id":-1}"#).unwrap_err();
    assert!(!e.contains('\n'), "{e}");
    // The JSON-text path names the line and column.
    let desc = dynamic::of_schema(&schema).unwrap().unwrap();
    let e = dynamic::encode_json_text("{\"id\": 1,\n \"value\": 1, \"text\": \"x\"}", &desc, false).unwrap_err();
    assert!(e.starts_with("2:") && e.contains("oneof"), "{e}");
    assert!(dynamic::encode_json_text(r#"{"nope":1,"id":1}"#, &desc, true).is_ok());
    // The shared model: implicit fields may be absent, optional ones are optional.
    assert!(
        schema.check(&Value::from_json_str(r#"{"id":1}"#).unwrap()).is_ok()
            || schema.proto.as_ref().unwrap().model_error.is_some()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn flat_model_and_its_refusals_name_the_line() {
    let dir = schema_dir("model");
    // Reading contains a map and (through Nested.back) itself: no flat model; the reason names
    // the file and line, and the codecs that need the model refuse it with that line.
    let schema = read(&dir, "telemetry.proto", "wb.Reading");
    let why = schema.proto.as_ref().unwrap().model_error.clone().unwrap();
    assert!(why.contains("telemetry.proto:"), "{why}");
    let avro = wirebench_codecs::find("avro").unwrap();
    let e = avro
        .encode(&Value::from_json_str(r#"{"id":1}"#).unwrap(), Some(&schema), &mut Vec::new())
        .unwrap_err()
        .to_string();
    assert_eq!(e, why);
    // Position has a flat model: implicit presence for lat/lon, optional alt.
    let pos = read(&dir, "telemetry.proto", "wb.common.Position");
    assert!(pos.proto.as_ref().unwrap().model_error.is_none());
    assert!(pos.check(&Value::from_json_str(r#"{"lat":1.5}"#).unwrap()).is_ok());
    let wirebench_core::Type::Record { fields, .. } = &pos.root else { panic!("{:?}", pos.root) };
    assert!(fields[0].proto.as_ref().unwrap().implicit && !fields[0].optional);
    assert!(fields[2].optional && !fields[2].proto.as_ref().unwrap().implicit);
    // proto2: Legacy.next is a Legacy.
    let legacy = read(&dir, "legacy.proto", "Legacy");
    let why = legacy.proto.as_ref().unwrap().model_error.clone().unwrap();
    assert!(
        why.starts_with(&format!("{}:", dir.join("main/legacy.proto").display())) && why.contains("contains itself"),
        "{why}"
    );
    // An import that is not on the include path: one line naming the importing file and line.
    let e = read_schema_file_with(&dir.join("main/telemetry.proto"), None, &[]).unwrap_err();
    assert!(e.contains("telemetry.proto:4:") && e.contains("common/units.proto") && !e.contains('\n'), "{e}");
    // A syntax error: file:line:column.
    std::fs::write(dir.join("main/bad.proto"), "syntax = \"proto3\";\nmessage M {\n  uint32 x = ;\n}\n").unwrap();
    let e = read_schema_file_with(&dir.join("main/bad.proto"), None, &[]).unwrap_err();
    assert!(e.contains("bad.proto:3:"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Several map entries: written in key order (protoc's deterministic order); protoc writes its
/// hash order, so the sizes and the entries agree, and the same entries read back.
#[test]
fn map_entries_in_key_order() {
    let Some(protoc) = protoc() else { return };
    let dir = schema_dir("map");
    let schema = read(&dir, "telemetry.proto", "wb.Reading");
    let codec = wirebench_codecs::find("protobuf").unwrap();
    let value = Value::from_json_str(r#"{"counts":{"b":2,"a":0,"":-1,"c":3}}"#).unwrap();
    let mut ours = Vec::new();
    codec.encode(&value, Some(&schema), &mut ours).unwrap();
    let text = "counts { key: \"b\" value: 2 } counts { key: \"a\" value: 0 } counts { key: \"\" value: -1 } counts { key: \"c\" value: 3 }";
    let theirs = protoc_run(&protoc, &files(&dir, "telemetry.proto"), "--encode=wb.Reading", text.as_bytes()).unwrap();
    assert_eq!(ours.len(), theirs.len());
    // Entry by entry: key then value, both always written; in key order here.
    // ("", -1): field 16, 13 bytes: key "" (0a 00), value -1 as a ten-byte varint; then ("a", 0).
    assert_eq!(hex(&ours[..24]), format!("82010d0a0010{}01820105 0a016110 00", "ff".repeat(9)).replace(' ', ""));
    let entries = |b: &[u8]| -> Vec<String> {
        let text = protoc_run(&protoc, &files(&dir, "telemetry.proto"), "--decode=wb.Reading", b).unwrap();
        let mut lines: Vec<String> =
            String::from_utf8(text).unwrap().split("counts {").map(|l| l.split_whitespace().collect()).collect();
        lines.sort();
        lines
    };
    assert_eq!(entries(&ours), entries(&theirs));
    let back = codec.decode(&theirs, Some(&schema)).unwrap();
    let Value::Map(top) = &back else { panic!("{back:?}") };
    let Value::Map(counts) = &top[0].1 else { panic!("{back:?}") };
    assert_eq!(counts.len(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}
