//! The random message generator of the protoc oracle tests, shared by
//! `crates/wirebench-codecs/tests/protoc_oracle.rs` (schemas written here) and
//! `crates/wirebench/tests/public_schemas_cli.rs` (public schema sets): random messages of any
//! message descriptor in three forms (proto3 JSON mapping input, protoc text format, the JSON
//! the mapping prints), and the byte-for-byte check against `protoc --encode`.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use wirebench_codecs::prost_reflect::{Cardinality, FieldDescriptor, Kind, MessageDescriptor};
use wirebench_codecs::protobuf::dynamic;
use wirebench_codecs::schema_files::read_schema_file_with;
use wirebench_core::{Schema, Value};

/// A .proto file and the folders its imports are found in.
pub struct ProtoFiles {
    pub includes: Vec<PathBuf>,
    pub file: PathBuf,
}

/// protoc on `files` in `mode` (`--encode=T`, `--decode=T`) with `input` on stdin.
pub fn protoc_run(protoc: &Path, files: &ProtoFiles, mode: &str, input: &[u8]) -> Result<Vec<u8>, String> {
    let mut cmd = Command::new(protoc);
    for i in &files.includes {
        cmd.arg(format!("-I{}", i.display()));
    }
    let mut child = cmd
        .arg(mode)
        .arg(&files.file)
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

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A message as JSON input, as protoc text format, and as wirebench's decode should print it.
#[derive(Default)]
pub struct Forms {
    pub json: Vec<String>,
    pub text: Vec<String>,
    pub canonical: Vec<(String, Value)>,
}

pub fn text_string(b: &[u8]) -> String {
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

pub fn base64(b: &[u8]) -> String {
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
pub fn rfc3339(secs: i64, nanos: u32) -> String {
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
    } else if nanos.is_multiple_of(1_000_000) {
        format!(".{:03}", nanos / 1_000_000)
    } else if nanos.is_multiple_of(1000) {
        format!(".{:06}", nanos / 1000)
    } else {
        format!(".{nanos:09}")
    };
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{frac}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// One scalar or message value: (JSON, text format, canonical decode), or None for a message
/// that may not nest deeper.
pub fn gen_value(r: &mut Rng, kind: &Kind, depth: usize) -> (String, String, Value) {
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
pub fn is_default(v: &Value, kind: &Kind) -> bool {
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

pub fn gen_message(r: &mut Rng, m: &MessageDescriptor, depth: usize) -> Forms {
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

pub fn gen_field(r: &mut Rng, f: &FieldDescriptor, depth: usize, out: &mut Forms) {
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

/// The schema of `type_name` in `files`, as wirebench reads it.
pub fn read_proto(files: &ProtoFiles, type_name: &str) -> Schema {
    read_schema_file_with(&files.file, Some(type_name), &files.includes).unwrap()
}

/// One random message checked: its JSON input, protoc's bytes, and the JSON the mapping prints.
pub struct Checked {
    pub json: String,
    pub bytes: Vec<u8>,
    pub canonical: Value,
}

/// `n` random messages of `type_name`: wirebench's bytes equal protoc's, protoc's bytes decode
/// to the canonical JSON, and protoc reads ours.
pub fn check_random(protoc: &Path, files: &ProtoFiles, type_name: &str, n: usize, seed: u64) -> Vec<Checked> {
    let schema = read_proto(files, type_name);
    let desc = dynamic::of_schema(&schema).unwrap().unwrap();
    let codec = wirebench_codecs::find("protobuf").unwrap();
    let mut rng = Rng(seed);
    let mut same = Vec::new();
    for i in 0..n {
        let forms = gen_message(&mut rng, &desc, 0);
        let json = format!("{{{}}}", forms.json.join(","));
        let text = forms.text.join("\n");
        let theirs = protoc_run(protoc, files, &format!("--encode={type_name}"), text.as_bytes())
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
        protoc_run(protoc, files, &format!("--decode={type_name}"), &ours).unwrap();
        same.push(Checked { json, bytes: theirs, canonical: want });
    }
    same
}
