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

use wirebench_codecs::prost_reflect::{Cardinality, FieldDescriptor, Kind, MessageDescriptor};
use wirebench_codecs::protobuf::dynamic;
use wirebench_codecs::schema_files::read_schema_file_with;
use wirebench_core::{Schema, Value};

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

fn protoc_run(protoc: &Path, dir: &Path, file: &str, mode: &str, input: &[u8]) -> Result<Vec<u8>, String> {
    let mut child = Command::new(protoc)
        .arg(format!("-I{}", dir.join("inc").display()))
        .arg(format!("-I{}", dir.join("main").display()))
        .arg(mode)
        .arg(dir.join("main").join(file))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

// ---------------------------------------------------------------------------------------------
// The generator: one random message in three forms

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A message as JSON input, as protoc text format, and as wirebench's decode should print it.
#[derive(Default)]
struct Forms {
    json: Vec<String>,
    text: Vec<String>,
    canonical: Vec<(String, Value)>,
}

fn text_string(b: &[u8]) -> String {
    let mut s = String::from("\"");
    for &c in b {
        match c {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(c as char),
            _ => s.push_str(&format!("\\{c:03o}")),
        }
    }
    s.push('"');
    s
}

fn base64(b: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in b.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            out.push(if i <= c.len() { A[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

/// RFC 3339 in UTC as the JSON mapping prints a Timestamp: 0, 3, 6 or 9 fraction digits.
fn rfc3339(secs: i64, nanos: u32) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let frac = if nanos == 0 {
        String::new()
    } else if nanos % 1_000_000 == 0 {
        format!(".{:03}", nanos / 1_000_000)
    } else if nanos % 1000 == 0 {
        format!(".{:06}", nanos / 1000)
    } else {
        format!(".{nanos:09}")
    };
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{frac}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// One scalar or message value: (JSON, text format, canonical decode), or None for a message
/// that may not nest deeper.
fn gen_value(r: &mut Rng, kind: &Kind, depth: usize) -> (String, String, Value) {
    let pick_i64 = |r: &mut Rng, lo: i64, hi: i64| -> i64 {
        match r.below(6) {
            0 => 0,
            1 => lo,
            2 => hi,
            3 => (-1i64).clamp(lo, hi),
            _ => {
                let span = (hi as i128 - lo as i128 + 1) as u128;
                (lo as i128 + (r.next() as u128 % span) as i128) as i64
            }
        }
    };
    let int = |r: &mut Rng, n: i64, wide: bool| -> (String, String, Value) {
        let v = if n >= 0 { Value::UInt(n as u64) } else { Value::Int(n) };
        let json = if wide && r.chance(50) { format!("\"{n}\"") } else { n.to_string() };
        (json, n.to_string(), v)
    };
    match kind {
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
            let n = pick_i64(r, i32::MIN as i64, i32::MAX as i64);
            int(r, n, false)
        }
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => {
            let n = pick_i64(r, i64::MIN, i64::MAX);
            int(r, n, true)
        }
        Kind::Uint32 | Kind::Fixed32 => {
            let n = pick_i64(r, 0, u32::MAX as i64);
            int(r, n, false)
        }
        Kind::Uint64 | Kind::Fixed64 => {
            let n = match r.below(4) {
                0 => 0,
                1 => u64::MAX,
                _ => r.next() >> r.below(64),
            };
            let json = if r.chance(50) { format!("\"{n}\"") } else { n.to_string() };
            (json, n.to_string(), Value::UInt(n))
        }
        Kind::Bool => {
            let b = r.chance(50);
            (b.to_string(), b.to_string(), Value::Bool(b))
        }
        Kind::Float => {
            let f = match r.below(8) {
                0 => 0.0f32,
                1 => f32::MIN_POSITIVE,
                2 => -1.5,
                3 => f32::from_bits(1), // the smallest subnormal
                _ => f32::from_bits(r.next() as u32 & 0x7f7f_ffff | (r.next() as u32 & 0x8000_0000)),
            };
            let f = if f.is_finite() { f } else { 2.5 };
            (format!("{f:?}"), format!("{f:?}"), Value::F32(f))
        }
        Kind::Double => {
            let f = match r.below(8) {
                0 => 0.0f64,
                1 => f64::MIN_POSITIVE,
                2 => -0.0,
                3 => f64::NAN,
                4 => f64::NEG_INFINITY,
                _ => f64::from_bits(r.next() & 0x7fef_ffff_ffff_ffff | (r.next() & 0x8000_0000_0000_0000)),
            };
            if f.is_nan() {
                ("\"NaN\"".into(), "nan".into(), Value::String("NaN".into()))
            } else if f.is_infinite() {
                ("\"-Infinity\"".into(), "-inf".into(), Value::String("-Infinity".into()))
            } else {
                (format!("{f:?}"), format!("{f:?}"), Value::F64(f))
            }
        }
        Kind::String => {
            const PIECES: &[&str] =
                &["", "a", "temp", "ü", "日本", "\"q\"", "back\\slash", "line\nbreak", "tab\t", "€", "🦀"];
            let s: String = (0..r.below(4)).map(|_| PIECES[r.below(PIECES.len() as u64) as usize]).collect();
            (serde_json::to_string(&s).unwrap(), text_string(s.as_bytes()), Value::String(s))
        }
        Kind::Bytes => {
            let b: Vec<u8> = (0..r.below(6)).map(|_| r.next() as u8).collect();
            (format!("\"{}\"", base64(&b)), text_string(&b), Value::String(base64(&b)))
        }
        Kind::Enum(e) => {
            let values: Vec<_> = e.values().collect();
            let v = &values[r.below(values.len() as u64) as usize];
            let json = if r.chance(50) { format!("\"{}\"", v.name()) } else { v.number().to_string() };
            let text = if r.chance(50) { v.name().to_string() } else { v.number().to_string() };
            (json, text, Value::String(v.name().into()))
        }
        Kind::Message(m) if m.full_name() == "google.protobuf.Timestamp" => {
            let secs = r.below(4_102_444_800) as i64; // 1970 .. 2100
            let nanos = match r.below(4) {
                0 => 0,
                1 => r.below(1000) as u32 * 1_000_000,
                2 => r.below(1_000_000) as u32 * 1000,
                _ => r.below(1_000_000_000) as u32,
            };
            let s = rfc3339(secs, nanos);
            (format!("\"{s}\""), format!("{{ seconds: {secs} nanos: {nanos} }}"), Value::String(s))
        }
        Kind::Message(m) => {
            let f = gen_message(r, m, depth + 1);
            (format!("{{{}}}", f.json.join(",")), format!("{{ {} }}", f.text.join(" ")), Value::Map(f.canonical))
        }
    }
}

/// Whether the canonical JSON leaves this value out (a default under implicit presence).
fn is_default(v: &Value, kind: &Kind) -> bool {
    match v {
        Value::UInt(0) | Value::Bool(false) => true,
        Value::F32(f) => *f == 0.0 && f.is_sign_positive(),
        Value::F64(f) => *f == 0.0 && f.is_sign_positive(),
        Value::String(s) => match kind {
            Kind::Enum(e) => e.default_value().name() == s,
            Kind::String | Kind::Bytes => s.is_empty(),
            _ => false,
        },
        _ => false,
    }
}

fn gen_message(r: &mut Rng, m: &MessageDescriptor, depth: usize) -> Forms {
    let mut out = Forms::default();
    let mut oneofs_done: Vec<String> = Vec::new();
    for f in m.fields() {
        let required = f.cardinality() == Cardinality::Required;
        if !required && !r.chance(if depth > 2 { 25 } else { 60 }) {
            continue;
        }
        if let Some(o) = f.containing_oneof() {
            if oneofs_done.iter().any(|n| n == o.name()) {
                continue;
            }
            oneofs_done.push(o.name().to_string());
        }
        if matches!(f.kind(), Kind::Message(ref k) if k.full_name() != "google.protobuf.Timestamp") && depth >= 3 {
            continue;
        }
        gen_field(r, &f, depth, &mut out);
    }
    // Canonical JSON lists the fields in field-number order.
    let order: Vec<String> = m.fields().map(|f| f.name().to_string()).collect();
    out.canonical.sort_by_key(|(k, _)| order.iter().position(|o| o == k));
    out
}

fn gen_field(r: &mut Rng, f: &FieldDescriptor, depth: usize, out: &mut Forms) {
    let key = if r.chance(50) { f.json_name().to_string() } else { f.name().to_string() };
    let name = f.name();
    if f.is_map() {
        let Kind::Message(entry) = f.kind() else { unreachable!() };
        let vk = entry.map_entry_value_field().kind();
        // At most one entry: protoc writes map entries in hash order.
        let mut json = Vec::new();
        let mut canon = Vec::new();
        if r.chance(70) {
            let k = ["a", "temp", "ü", ""][r.below(4) as usize];
            let (vj, vt, vc) = gen_value(r, &vk, depth);
            json.push(format!("{}:{vj}", serde_json::to_string(k).unwrap()));
            out.text.push(format!("{name} {{ key: {} value: {vt} }}", text_string(k.as_bytes())));
            canon.push((k.to_string(), vc));
        }
        out.json.push(format!("{}:{{{}}}", serde_json::to_string(&key).unwrap(), json.join(",")));
        if !canon.is_empty() {
            out.canonical.push((name.to_string(), Value::Map(canon)));
        }
        return;
    }
    let kind = f.kind();
    if f.is_list() {
        let n = r.below(4);
        let items: Vec<_> = (0..n).map(|_| gen_value(r, &kind, depth)).collect();
        out.json.push(format!(
            "{}:[{}]",
            serde_json::to_string(&key).unwrap(),
            items.iter().map(|i| i.0.clone()).collect::<Vec<_>>().join(",")
        ));
        for (_, t, _) in &items {
            out.text.push(format!("{name}: {t}"));
        }
        if n > 0 {
            out.canonical.push((name.to_string(), Value::Array(items.into_iter().map(|i| i.2).collect())));
        }
        return;
    }
    let (j, t, c) = gen_value(r, &kind, depth);
    out.json.push(format!("{}:{j}", serde_json::to_string(&key).unwrap()));
    let sep =
        if matches!(kind, Kind::Message(ref m) if m.full_name() != "google.protobuf.Timestamp") { " " } else { ": " };
    out.text.push(format!("{name}{sep}{t}"));
    if f.supports_presence() || !is_default(&c, &kind) {
        out.canonical.push((name.to_string(), c));
    }
}

// ---------------------------------------------------------------------------------------------

fn read(dir: &Path, file: &str, type_name: &str) -> Schema {
    read_schema_file_with(&dir.join("main").join(file), Some(type_name), &[dir.join("inc")]).unwrap()
}

/// `n` random messages of `type_name`: wirebench's bytes equal protoc's, and protoc's bytes
/// decode to the canonical JSON. Returns the messages' JSON and protoc's bytes.
fn check_random(protoc: &Path, dir: &Path, file: &str, type_name: &str, n: usize, seed: u64) -> Vec<(String, Vec<u8>)> {
    let schema = read(dir, file, type_name);
    let desc = dynamic::of_schema(&schema).unwrap().unwrap();
    let codec = wirebench_codecs::find("protobuf").unwrap();
    let mut rng = Rng(seed);
    let mut same = Vec::new();
    for i in 0..n {
        let forms = gen_message(&mut rng, &desc, 0);
        let json = format!("{{{}}}", forms.json.join(","));
        let text = forms.text.join("\n");
        let theirs = protoc_run(protoc, dir, file, &format!("--encode={type_name}"), text.as_bytes())
            .unwrap_or_else(|e| panic!("message {i}: protoc refused the text format: {e}\n{text}"));
        let value = Value::from_json_str(&json).unwrap_or_else(|e| panic!("message {i}: {e:?}\n{json}"));
        let mut ours = Vec::new();
        codec.encode(&value, Some(&schema), &mut ours).unwrap_or_else(|e| panic!("message {i}: {e}\n{json}"));
        assert_eq!(ours, theirs, "message {i}: bytes differ from protoc's\njson: {json}\ntext: {text}");
        // The CLI's path (JSON text with positions) writes the same bytes.
        assert_eq!(dynamic::encode_json_text(&json, &desc, false).unwrap(), theirs, "message {i}: {json}");
        // protoc's bytes read back as the JSON mapping prints them.
        let back = codec.decode(&theirs, Some(&schema)).unwrap();
        let want = Value::Map(forms.canonical);
        assert_eq!(back, want, "message {i}: decode of protoc's bytes\njson: {json}\ntext: {text}");
        // protoc reads our bytes too.
        protoc_run(protoc, dir, file, &format!("--decode={type_name}"), &ours).unwrap();
        same.push((json, theirs));
    }
    same
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
            check_random(&protoc, &dir, "telemetry.proto", "wb.Reading", 300, 0x9e37_79b9_7f4a_7c15),
        ),
        (
            "telemetry.proto",
            "wb.Reading.Nested",
            check_random(&protoc, &dir, "telemetry.proto", "wb.Reading.Nested", 50, 7),
        ),
        ("legacy.proto", "wb.legacy.Legacy", check_random(&protoc, &dir, "legacy.proto", "wb.legacy.Legacy", 100, 11)),
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
        let lines: Vec<String> = msgs.iter().map(|(j, _)| j.clone()).collect();
        let google = google_json(&py, &protoc, &dir, file, t, &lines);
        assert_eq!(google.len(), msgs.len());
        for ((json, theirs), g) in msgs.iter().zip(&google) {
            assert_eq!(g, &hex(theirs), "Google's JSON parser on {json}");
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
    let theirs = protoc_run(&protoc, &dir, "telemetry.proto", "--encode=wb.Reading", text.as_bytes()).unwrap();
    assert_eq!(ours.len(), theirs.len());
    // Entry by entry: key then value, both always written; in key order here.
    // ("", -1): field 16, 13 bytes: key "" (0a 00), value -1 as a ten-byte varint; then ("a", 0).
    assert_eq!(hex(&ours[..24]), format!("82010d0a0010{}01820105 0a016110 00", "ff".repeat(9)).replace(' ', ""));
    let entries = |b: &[u8]| -> Vec<String> {
        let text = protoc_run(&protoc, &dir, "telemetry.proto", "--decode=wb.Reading", b).unwrap();
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
