//! Schemas as users have them. OMG IDL drives the CDR codecs from the command line: every CDR
//! vector of the repository encodes to its exact bytes with `wirebench encode -f cdr-xcdrN
//! --schema X.idl --type T [--endian big]`, and decodes back to the same value; `--headerless`
//! drops the 4-byte encapsulation header and reads without it.

mod common;
use common::*;

use serde_json::Value as J;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn run(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = wb().args(args).write_stdin(stdin).output().unwrap();
    assert!(out.status.success(), "wirebench {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn every_cdr_vector_round_trips_through_the_cli_byte_exactly() {
    let vectors: Vec<J> = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/cdr.json")).unwrap(),
    )
    .unwrap();
    let dir = TempDir::new("idl");
    let mut checked = 0;
    for (i, v) in vectors.iter().enumerate() {
        let enc = v["encoding"].as_str().unwrap().to_ascii_uppercase();
        if enc.contains("KEY") {
            continue;
        }
        let idl = dir.0.join(format!("v{i}.idl"));
        std::fs::write(&idl, v["idl"].as_str().unwrap()).unwrap();
        let ty = v["name"].as_str().unwrap().split(':').next().unwrap().trim().to_string();
        let format = if enc.contains("XCDR2") { "cdr-xcdr2" } else { "cdr-xcdr1" };
        let endian = if enc.contains("BE") { "big" } else { "little" };
        let base = ["-f", format, "--schema", idl.to_str().unwrap(), "--type", &ty, "--endian", endian];
        let value = serde_json::to_vec(&v["value"]).unwrap();
        let bytes = run(&[&["encode"][..], &base].concat(), &value);
        assert_eq!(hex(&bytes), v["hex"].as_str().unwrap(), "{}", v["name"]);
        // Decoding gives a value that encodes to the same bytes again.
        let back = run(&[&["decode"][..], &base].concat(), &bytes);
        assert_eq!(run(&[&["encode"][..], &base].concat(), &back), bytes, "{}", v["name"]);
        // Without the encapsulation header: the body alone, read back the same.
        let headerless = [&base[..], &["--headerless"]].concat();
        let body = run(&[&["encode"][..], &headerless].concat(), &value);
        assert_eq!(body, bytes[4..], "{}", v["name"]);
        assert_eq!(run(&[&["decode"][..], &headerless].concat(), &body), back, "{}", v["name"]);
        checked += 1;
    }
    assert!(checked >= 12, "{checked} vectors");
}

#[test]
fn idl_errors_are_one_line_with_file_line_and_column() {
    let dir = TempDir::new("idl-bad");
    let idl = dir.0.join("s.idl");
    std::fs::write(&idl, "struct A {\n  long x;\n  strin y;\n};\n").unwrap();
    expect_bad_input(
        wb().args(["encode", "-f", "cdr-xcdr2", "--schema", idl.to_str().unwrap()]).write_stdin("{}"),
        &["s.idl:3:"],
    );
    std::fs::write(&idl, "struct Reading { long x; };\n").unwrap();
    expect_bad_input(
        wb().args(["encode", "-f", "cdr-xcdr2", "--schema", idl.to_str().unwrap(), "--type", "Readng"])
            .write_stdin("{\"x\":1}"),
        &["unknown type \"Readng\": did you mean \"Reading\"?"],
    );
    expect_bad_input(
        wb().args(["encode", "-f", "json", "--endian", "big"]).write_stdin("1"),
        &["--endian and --headerless apply to -f cdr-xcdr1/cdr-xcdr2"],
    );
    expect_bad_input(
        wb().args(["encode", "-f", "protobuf", "--schema", idl.to_str().unwrap(), "--headerless"])
            .write_stdin("{\"x\":1}"),
        &["--endian and --headerless apply to"],
    );
    expect_bad_input(
        wb().args(["decode", "-f", "cdr-xcdr2", "--schema", idl.to_str().unwrap()])
            .write_stdin(&b"\x00\x07\x00\x00\x01"[..]),
        &["invalid CDR", "at byte"],
    );
}

const PROTO: &str = r#"// A reading, as a sensor team would write it.
syntax = "proto3";
package fleet.v1;

message Reading {
  string sensor = 1;
  int64 time = 2;           // seconds since the epoch
  repeated double data = 3 [packed = true];
  Status status = 9;
  optional float temp = 12;
  enum Status { OK = 0; LOW_BATTERY = 1; }
}
"#;

const AVSC: &str = r#"{"type": "record", "name": "Reading", "namespace": "fleet.v1", "fields": [
  {"name": "sensor", "type": "string"},
  {"name": "time", "type": {"type": "long", "logicalType": "timestamp-millis"}},
  {"name": "data", "type": {"type": "array", "items": "double"}},
  {"name": "status", "type": "int"},
  {"name": "temp", "type": ["null", "float"], "default": null}
]}"#;

const IDL: &str = "module fleet { struct Reading {\n  string sensor;\n  long long time;\n  sequence<double> data;\n  long status;\n  @optional float temp;\n}; };\n";

const READING: &str = r#"{"sensor":"gps","time":1351824120,"data":[48.75,2.3],"status":1,"temp":21.5}"#;

/// The same record as a .proto, an .avsc and an IDL file: each drives the schema-directed
/// codecs to the same round trip; the .proto's field numbers and declared types are the wire's.
#[test]
fn proto_avsc_and_idl_files_drive_every_schema_directed_codec() {
    let dir = TempDir::new("schemas");
    let files: Vec<std::path::PathBuf> = [("r.proto", PROTO), ("r.avsc", AVSC), ("r.idl", IDL)]
        .iter()
        .map(|(n, t)| {
            let p = dir.0.join(n);
            std::fs::write(&p, t).unwrap();
            p
        })
        .collect();
    // temp is a float32 in all three files: decode marks it so that it stays one.
    let want: J = serde_json::from_str(&READING.replace("\"temp\":21.5", "\"temp\":{\"$f32\":21.5}")).unwrap();
    // The sizes docs/schemas.md documents, the same from each of the three files.
    for (format, size) in [
        ("protobuf", 36),
        ("avro", 33),
        ("thrift", 41),
        ("xml", 125),
        ("cdr-xcdr1", 64),
        ("cdr-xcdr2", 52),
        ("uadp", 52),
    ] {
        for f in &files {
            let n = run(&["encode", "-f", format, "--schema", f.to_str().unwrap()], READING.as_bytes()).len();
            assert_eq!(n, size, "{format} with {}", f.display());
        }
    }
    for f in &files {
        for format in ["protobuf", "avro", "thrift", "xml", "cdr-xcdr1", "cdr-xcdr2", "uadp"] {
            let schema = f.to_str().unwrap();
            if f.extension().unwrap() == "idl" && format.starts_with("cdr") {
                continue; // the IDL path of the CDR codecs has its own test above
            }
            let bytes = run(&["encode", "-f", format, "--schema", schema], READING.as_bytes());
            let back: J = serde_json::from_slice(&run(&["decode", "-f", format, "--schema", schema], &bytes)).unwrap();
            if format == "protobuf" && f.extension().unwrap() == "proto" {
                // Through the .proto: the proto3 JSON mapping (enums by name, float32 digits).
                let mapped = READING.replace("\"status\":1", "\"status\":\"LOW_BATTERY\"");
                assert_eq!(back, serde_json::from_str::<J>(&mapped).unwrap(), "{format} with {}", f.display());
                continue;
            }
            assert_eq!(back, want, "{format} with {}", f.display());
        }
    }
    // The .proto's numbers and forms: sensor (1, string), time (2, int64 varint), data (3,
    // packed doubles), status (9, enum varint), temp (12, float, explicit presence).
    let proto = run(&["encode", "-f", "protobuf", "--schema", files[0].to_str().unwrap()], READING.as_bytes());
    let mut want_bytes = vec![0x0a, 3, b'g', b'p', b's', 0x10, 0xf8, 0xe5, 0xcc, 0x84, 0x05, 0x1a, 16];
    want_bytes.extend(48.75f64.to_le_bytes());
    want_bytes.extend(2.3f64.to_le_bytes());
    want_bytes.extend([0x48, 1, 0x65]);
    want_bytes.extend(21.5f32.to_le_bytes());
    assert_eq!(hex(&proto), hex(&want_bytes));
    // A negative int64 is ten bytes (two's complement varint), as protoc writes it.
    let neg = run(
        &["encode", "-f", "protobuf", "--schema", files[0].to_str().unwrap()],
        br#"{"sensor":"","time":-1,"data":[],"status":0}"#,
    );
    assert_eq!(hex(&neg), "10ffffffffffffffffff01");
    // Avro from the .avsc: string, long (zigzag), array block, int, union index 1 + float.
    let avro = run(&["encode", "-f", "avro", "--schema", files[1].to_str().unwrap()], READING.as_bytes());
    assert_eq!(avro.len(), 1 + 3 + 5 + 1 + 16 + 1 + 1 + 1 + 4, "{}", hex(&avro));
}

#[test]
fn schema_file_errors_name_file_line_and_column() {
    let dir = TempDir::new("schemas-bad");
    let cases: &[(&str, &str, &[&str])] = &[
        // protoc's compiler (protox) says what is wrong, where.
        ("u.proto", "syntax = \"proto3\";\nmessage A {\n  Missing x = 1;\n}\n", &["u.proto:3:3: ", "Missing"]),
        ("n.proto", "syntax = \"proto3\";\nmessage A {\n  int32 x = 0;\n}\n", &["n.proto:3:13: "]),
        ("g.proto", "message A {\n  int32 x = 1;\n}\n", &["g.proto:2:"]),
        (
            "e.avsc",
            r#"{"type":"record","name":"A","fields":[{"name":"c","type":{"type":"enum","name":"C","symbols":["X"]}}]}"#,
            &["e.avsc:1: Avro enum C at $.c has no mapping"],
        ),
        ("s.json", "{\"root\": 5}", &["s.json:1:", "not a wirebench schema"]),
    ];
    for (name, text, needles) in cases {
        let p = dir.0.join(name);
        std::fs::write(&p, text).unwrap();
        expect_bad_input(
            wb().args(["encode", "-f", "protobuf", "--schema", p.to_str().unwrap()]).write_stdin("{}"),
            needles,
        );
    }
    // Several roots: --type picks one (a near miss gets a suggestion).
    let p = dir.0.join("two.proto");
    std::fs::write(&p, "syntax = \"proto3\";\nmessage A { int32 x = 1; }\nmessage B { string y = 1; }\n").unwrap();
    expect_bad_input(
        wb().args(["encode", "-f", "protobuf", "--schema", p.to_str().unwrap()]).write_stdin("{}"),
        &["several messages could be the root (A, B): name one with --type"],
    );
    expect_bad_input(
        wb().args(["encode", "-f", "protobuf", "--schema", p.to_str().unwrap(), "--type", "C"]).write_stdin("{}"),
        &["unknown message \"C\""],
    );
    let out = run(&["encode", "-f", "protobuf", "--schema", p.to_str().unwrap(), "--type", "B"], br#"{"y":"hi"}"#);
    assert_eq!(hex(&out), "0a026869");
}

/// `decode -f uadp msg.bin | encode -f uadp` gives the original bytes for every valid binary
/// UADP vector (no schema: the whole NetworkMessage, RawData kept as bytes), and `decode -f
/// pson | encode -f pson` for every valid PSON vector, float32 values included.
#[test]
fn uadp_and_pson_decode_then_encode_give_the_original_bytes() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/");
    let unhex =
        |h: &str| (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect::<Vec<u8>>();
    let uadp: Vec<J> = serde_json::from_str(&std::fs::read_to_string(format!("{root}uadp.json")).unwrap()).unwrap();
    let mut n = 0;
    for v in uadp.iter().filter(|v| v["encoding"] == "uadp" && !v["name"].as_str().unwrap().starts_with("invalid")) {
        let bytes = unhex(v["hex"].as_str().unwrap());
        let json = run(&["decode", "-f", "uadp"], &bytes);
        let text = String::from_utf8_lossy(&json).to_string();
        assert!(text.contains("\"valid\":true") && text.contains("\"dataSetMessages\""), "{text}");
        assert_eq!(hex(&run(&["encode", "-f", "uadp"], &json)), v["hex"].as_str().unwrap(), "{}: {text}", v["name"]);
        n += 1;
    }
    assert!(n >= 8, "{n} UADP vectors");
    // The valid bit survives: a message marked not valid comes back not valid.
    let first = unhex(uadp[0]["hex"].as_str().unwrap());
    let json =
        String::from_utf8(run(&["decode", "-f", "uadp"], &first)).unwrap().replace("\"valid\":true", "\"valid\":false");
    let invalid = run(&["encode", "-f", "uadp"], json.as_bytes());
    let back = String::from_utf8(run(&["decode", "-f", "uadp"], &invalid)).unwrap();
    assert!(back.contains("\"valid\":false"), "{back}");
    // The Part 14 JSON mapping cannot carry it: transcode says so instead of dropping it.
    expect_bad_input(
        wb().args(["transcode", "--to", "json"]).write_stdin(invalid),
        &["marked not valid", "decode -f uadp"],
    );
    let pson: Vec<J> = serde_json::from_str(&std::fs::read_to_string(format!("{root}pson.json")).unwrap()).unwrap();
    let (mut n, mut f32s) = (0, 0);
    for v in pson.iter().filter(|v| v["kind"] != "decode_only" || !v["name"].as_str().unwrap().starts_with("dec_")) {
        let Some(h) = v["hex"].as_str() else { continue };
        let bytes = unhex(h);
        let out = wb().args(["decode", "-f", "pson"]).write_stdin(bytes.clone()).output().unwrap();
        if !out.status.success() {
            continue; // the vectors of malformed input
        }
        f32s += usize::from(String::from_utf8_lossy(&out.stdout).contains("$f32"));
        assert_eq!(hex(&run(&["encode", "-f", "pson"], &out.stdout)), h, "{}", v["name"]);
        n += 1;
    }
    assert!(n >= 25 && f32s >= 3, "{n} PSON vectors, {f32s} with float32");
}

/// `run --samples … --schema X.proto`: the size and speed parts use the schema given.
#[test]
fn run_on_samples_takes_a_schema_file() {
    let dir = TempDir::new("run-schema");
    let samples = dir.0.join("r.ndjson");
    let lines: Vec<String> =
        (0..50).map(|i| format!("{{\"id\":{i},\"temp\":{}.25,\"hum\":{}.5}}", 20 + i % 5, 40 + i % 9)).collect();
    std::fs::write(&samples, lines.join("\n")).unwrap();
    let proto = dir.0.join("r.proto");
    std::fs::write(&proto, "syntax = \"proto3\";\nmessage R { uint32 id = 1; float temp = 2; float hum = 3; }\n")
        .unwrap();
    let out = dir.0.join("out");
    let o = wb()
        .args(["run", "--samples"])
        .arg(&samples)
        .arg("--schema")
        .arg(&proto)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: J = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let pb = r["size"]["aggregates"].as_array().unwrap().iter().find(|a| a["codec"] == "protobuf").unwrap();
    // id (1-2 bytes) + two float32 fields of 5 bytes: at most 12 bytes (float64 would be 20).
    assert!(pb["bytes_max"].as_u64().unwrap() <= 12, "{pb}");
    expect_bad_input(
        wb().args(["run", "--samples"]).arg(&samples).args(["--schema", "/nonexistent.proto"]),
        &["/nonexistent.proto"],
    );
}

/// An Avro union written value first, `["double", "null"]`: the value is branch 0 and null is
/// branch 1, as the schema says, and a peer's bytes read back (issue #34).
#[test]
fn avro_unions_in_either_order_write_the_schema_s_indexes() {
    let dir = TempDir::new("avro-union");
    let p = dir.0.join("u.avsc");
    std::fs::write(&p, r#"{"type":"record","name":"U","fields":[{"name":"a","type":["double","null"]},{"name":"b","type":["null","int"]}]}"#).unwrap();
    let s = p.to_str().unwrap();
    let out = run(&["encode", "-f", "avro", "--schema", s], br#"{"a":1.5,"b":3}"#);
    let mut want = vec![0u8];
    want.extend(1.5f64.to_le_bytes());
    want.extend([2, 6]);
    assert_eq!(hex(&out), hex(&want));
    assert_eq!(hex(&run(&["encode", "-f", "avro", "--schema", s], br#"{"a":null}"#)), "0200");
    let back: J = serde_json::from_slice(&run(&["decode", "-f", "avro", "--schema", s], &[2, 2, 0x0e])).unwrap();
    assert_eq!(back, serde_json::json!({"b": 7}));
    // A union index the schema does not have: one line with the byte offset, nothing written.
    expect_bad_input(
        wb().args(["decode", "-f", "avro", "--schema", s]).write_stdin(&[0xae, 0x47][..]),
        &["Avro union index 4567 out of range (2 branches) at byte 0"],
    );
}

/// `encode -f avro --schema X.avsc` writes fastavro's bytes and `decode` reads them back, for
/// 100 random records of an .avsc with enum, fixed, map, recursion and unions in both orders
/// (scripts/avro_oracle.py; skipped without fastavro unless WIREBENCH_ORACLES=require).
#[test]
fn avro_cli_bytes_are_fastavro_bytes() {
    let dir = TempDir::new("avro-oracle");
    let p = dir.0.join("n.avsc");
    std::fs::write(
        &p,
        r#"{"type":"record","name":"Node","namespace":"t","fields":[
  {"name":"v","type":["long","null"]},
  {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B","C"]}},
  {"name":"id","type":{"type":"fixed","name":"Id","size":4}},
  {"name":"attrs","type":{"type":"map","values":"string"}},
  {"name":"when","type":{"type":"long","logicalType":"timestamp-millis"}},
  {"name":"next","type":["null","Node"]}]}"#,
    )
    .unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/avro_oracle.py");
    let out =
        match std::process::Command::new("python3").args([script, "gen", p.to_str().unwrap(), "100", "5"]).output() {
            Ok(o) => o,
            Err(e) => return oracle_skip(&format!("cannot run python3: {e}")),
        };
    if out.status.code() == Some(3) {
        return oracle_skip(String::from_utf8_lossy(&out.stderr).trim());
    }
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = p.to_str().unwrap();
    let mut same = 0;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let j: J = serde_json::from_str(line).unwrap();
        let want = j["hex"].as_str().unwrap();
        assert_eq!(
            hex(&run(&["encode", "-f", "avro", "--schema", s], j["input"].to_string().as_bytes())),
            want,
            "{}",
            j["input"]
        );
        let bytes: Vec<u8> =
            (0..want.len()).step_by(2).map(|i| u8::from_str_radix(&want[i..i + 2], 16).unwrap()).collect();
        let back: J = serde_json::from_slice(&run(&["decode", "-f", "avro", "--schema", s], &bytes)).unwrap();
        assert_eq!(back, j["expect"], "fastavro's {want}");
        same += 1;
    }
    assert_eq!(same, 100);
    // Other codecs refuse the schema in one line naming the file, line and construct.
    expect_bad_input(
        wb().args(["encode", "-f", "thrift", "--schema", s]).write_stdin("{}"),
        &["n.avsc:3: Avro enum t.Kind at $.kind has no mapping"],
    );
}

fn oracle_skip(why: &str) {
    let msg = format!("SKIPPED oracle test: {why}");
    if std::env::var("WIREBENCH_ORACLES").is_ok_and(|v| v == "require") {
        panic!("{msg}, and WIREBENCH_ORACLES=require");
    }
    eprintln!("{msg}");
}

/// A ROS 2 style sensor_msgs/msg/Imu.idl with its #includes (-I): `size` and `encode` give the
/// same bytes for every message in XCDR1 and XCDR2 (fixed arrays stay fixed), 324 B XCDR1 for
/// a short frame_id as cyclonedds-python writes it; without -I one line names the #include.
#[test]
fn ros2_imu_size_and_encode_agree() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../wirebench-codecs/tests/idl/ros2");
    let imu = format!("{root}/sensor_msgs/msg/Imu.idl");
    let dir = TempDir::new("ros2-imu");
    let lines: Vec<String> = ["imu_link", "", "base_link/imu_sensor_frame_0"]
        .iter()
        .enumerate()
        .map(|(i, frame)| {
            format!(
                r#"{{"header":{{"stamp":{{"sec":{i},"nanosec":7}},"frame_id":"{frame}"}},"orientation":{{"x":0.0,"y":0.0,"z":0.0,"w":1.0}},"orientation_covariance":[{c}],"angular_velocity":{{"x":0.5,"y":0.25,"z":-1.0}},"angular_velocity_covariance":[{c}],"linear_acceleration":{{"x":0.0,"y":0.0,"z":9.75}},"linear_acceleration_covariance":[{c}]}}"#,
                c = ["0.5"; 9].join(",")
            )
        })
        .collect();
    let samples = dir.0.join("imu.ndjson");
    std::fs::write(&samples, lines.join("\n") + "\n").unwrap();
    let mut encoded = Vec::new();
    for f in ["cdr-xcdr1", "cdr-xcdr2"] {
        for l in &lines {
            encoded.push((f, run(&["encode", "-f", f, "--schema", &imu, "-I", root], l.as_bytes()).len() as u64));
        }
    }
    assert_eq!(encoded[0], ("cdr-xcdr1", 324));
    let out = run(
        &[
            "size",
            "--samples",
            samples.to_str().unwrap(),
            "--schema",
            &imu,
            "--include",
            root,
            "-f",
            "cdr-xcdr1,cdr-xcdr2",
            "--per-record",
            "-o",
            "json",
        ],
        b"",
    );
    let r: J = serde_json::from_slice(&out).unwrap();
    let rows = r["size"]["rows"].as_array().unwrap();
    let sized: Vec<(String, u64)> =
        rows.iter().map(|row| (row["codec"].as_str().unwrap().to_string(), row["bytes"].as_u64().unwrap())).collect();
    let mut want: Vec<(String, u64)> = encoded.iter().map(|(f, n)| (f.to_string(), *n)).collect();
    let mut got = sized.clone();
    want.sort();
    got.sort();
    assert_eq!(got, want, "size rows {sized:?}, encode {encoded:?}");
    expect_bad_input(
        wb().args(["encode", "-f", "cdr-xcdr1", "--schema", &imu]).write_stdin(lines[0].clone()),
        &["Imu.idl:5:1: cannot find included file \"geometry_msgs/msg/Quaternion.idl\""],
    );
    expect_bad_input(
        wb().args(["size", "--samples", samples.to_str().unwrap(), "--schema", &imu]),
        &["Imu.idl:5:1: cannot find included file"],
    );
}

const UNITS_PROTO: &str =
    "syntax = \"proto3\";\npackage wb.common;\nenum Unit { UNIT_UNSPECIFIED = 0; CELSIUS = 1; PASCAL = 2; }\n";

const TELEMETRY_PROTO: &str = r#"syntax = "proto3";
package wb;
import "common/units.proto";
import "google/protobuf/timestamp.proto";

message Reading {
  uint32 id = 1;
  repeated float samples = 2;
  int64 big = 3;
  wb.common.Unit unit = 4;
  google.protobuf.Timestamp at = 5;
  double float_value = 6;
  oneof payload { double value = 7; string text = 8; }
  map<string, int32> counts = 9;
  repeated Reading children = 10;
}
"#;

/// A .proto as protoc reads it: imports through `-I`, proto3 implicit presence, the JSON
/// mapping (lowerCamelCase, int64 as a string, enums by name, Timestamp), recursion and maps for
/// Protobuf, and the refusals (one line, exit 2): a missing import, two members of a oneof, an
/// unknown field, a recursive schema for a codec that needs the flat model.
#[test]
fn proto_files_read_as_protoc_reads_them() {
    let dir = TempDir::new("proto-imports");
    std::fs::create_dir_all(dir.0.join("inc/common")).unwrap();
    std::fs::create_dir_all(dir.0.join("main")).unwrap();
    std::fs::write(dir.0.join("inc/common/units.proto"), UNITS_PROTO).unwrap();
    let proto = dir.0.join("main/telemetry.proto");
    std::fs::write(&proto, TELEMETRY_PROTO).unwrap();
    let (schema, inc) = (proto.to_str().unwrap(), dir.0.join("inc"));
    let inc = inc.to_str().unwrap();
    let enc = |json: &str| run(&["encode", "-f", "protobuf", "--schema", schema, "-I", inc], json.as_bytes());
    // Implicit presence: the issue's example.
    assert_eq!(hex(&enc(r#"{"id":1}"#)), "0801");
    assert_eq!(hex(&enc(r#"{"id":0,"samples":[]}"#)), "");
    // The JSON mapping: names either way, int64 as a string, enum by name, Timestamp.
    assert_eq!(enc(r#"{"floatValue":1.5}"#), enc(r#"{"float_value":1.5}"#));
    assert_eq!(hex(&enc(r#"{"big":"-2","unit":"PASCAL"}"#)), "18feffffffffffffffff012002");
    assert_eq!(hex(&enc(r#"{"at":"1970-01-01T00:00:01.5Z"}"#)), "2a0808011080cab5ee01");
    // Recursion and a map, with --proto-path spelled out.
    let nested = br#"{"children":[{"children":[{"id":3}]}],"counts":{"a":1}}"#;
    let bytes = run(&["encode", "-f", "protobuf", "--schema", schema, "--proto-path", inc], nested);
    assert_eq!(hex(&bytes), "4a05 0a01 61 1001 5204 5202 0803".replace(' ', ""));
    // decode prints the mapping: the .proto's names, defaults left out, enums by name.
    let json = br#"{"id":7,"big":"-2","unit":2,"at":"2024-01-02T03:04:05Z","text":"hi"}"#;
    let bytes = enc(std::str::from_utf8(json).unwrap());
    let back = run(&["decode", "-f", "protobuf", "--schema", schema, "-I", inc], &bytes);
    assert_eq!(
        String::from_utf8(back).unwrap(),
        "{\"id\":7,\"big\":-2,\"unit\":\"PASCAL\",\"at\":\"2024-01-02T03:04:05Z\",\"text\":\"hi\"}\n"
    );
    // Refusals.
    expect_bad_input(
        wb().args(["encode", "-f", "protobuf", "--schema", schema]).write_stdin("{}"),
        &["telemetry.proto:3:", "common/units.proto"],
    );
    expect_bad_input(
        wb().args(["encode", "-f", "protobuf", "--schema", schema, "-I", inc])
            .write_stdin("{\"id\":1,\n\"value\":1.5,\"text\":\"x\"}"),
        &["<stdin>:2:", "multiple fields provided for oneof 'payload'"],
    );
    expect_bad_input(
        wb().args(["encode", "-f", "protobuf", "--schema", schema, "-I", inc]).write_stdin("{\"idd\":1}"),
        &["<stdin>:1:", "idd"],
    );
    assert_eq!(
        run(
            &["encode", "-f", "protobuf", "--schema", schema, "-I", inc, "--ignore-unknown-fields"],
            br#"{"idd":1,"id":1}"#
        ),
        [8, 1]
    );
    expect_bad_input(
        wb().args(["encode", "-f", "avro", "--schema", schema, "-I", inc]).write_stdin("{\"id\":1}"),
        &["telemetry.proto:", "map field wb.Reading.counts has no flat model"],
    );
    expect_bad_input(
        wb().args(["decode", "-f", "protobuf", "--schema", schema, "-I", inc]).write_stdin(&b"\x0a\x05"[..]),
        &["invalid protobuf"],
    );
}

/// `size` and `speed` with a .proto and `-I`: proto3 JSON with defaults left out is exact for
/// Protobuf, and its bytes are `encode`'s.
#[test]
fn size_and_speed_take_a_proto_with_include_paths() {
    let dir = TempDir::new("proto-size");
    std::fs::create_dir_all(dir.0.join("inc/common")).unwrap();
    std::fs::write(dir.0.join("inc/common/units.proto"), UNITS_PROTO).unwrap();
    let proto = dir.0.join("t.proto");
    std::fs::write(&proto, TELEMETRY_PROTO).unwrap();
    let samples = dir.0.join("s.ndjson");
    // Defaults left out, int64 as numbers (decode prints them so: a string would read back as a
    // number, which the round-trip check counts as a change).
    let lines: Vec<String> = (1..=40)
        .map(|i| match i % 4 {
            0 => format!("{{\"id\":{i}}}"),
            1 => format!("{{\"id\":{i},\"samples\":[1.5,{i}.25],\"unit\":\"CELSIUS\"}}"),
            2 => format!("{{\"id\":{i},\"big\":-{i},\"text\":\"t{i}\"}}"),
            _ => format!("{{\"id\":{i},\"at\":\"2024-01-02T03:04:05Z\",\"value\":2.5}}"),
        })
        .collect();
    std::fs::write(&samples, lines.join("\n")).unwrap();
    let (schema, inc) = (proto.to_str().unwrap(), dir.0.join("inc"));
    let inc = inc.to_str().unwrap();
    let out = dir.0.join("size.json");
    let o = wb()
        .args(["size", "-f", "protobuf", "--samples"])
        .arg(&samples)
        .args(["--schema", schema, "-I", inc, "--per-record", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: J = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let rows = r["size"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 40);
    for (row, line) in rows.iter().zip(&lines) {
        assert_eq!(row["fidelity"]["status"], "exact", "{row} {line}");
        let n = run(&["encode", "-f", "protobuf", "--schema", schema, "-I", inc], line.as_bytes()).len() as u64;
        assert_eq!(row["bytes"].as_u64(), Some(n), "{line}");
    }
    let o = wb()
        .args(["speed", "-f", "protobuf", "--samples"])
        .arg(&samples)
        .args(["--schema", schema, "-I", inc, "--rounds", "10", "--sample-ms", "0.1", "--warmup-ms", "0"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    expect_bad_input(
        wb().args(["size", "-f", "protobuf", "--samples"]).arg(&samples).args(["--schema", schema]),
        &["t.proto:3:", "common/units.proto"],
    );
}

/// Hostile schema shapes in each schema language, at a size and at 10x it: a long type chain
/// (every type holds the next), a bomb (every type holds the next twice: 2^30 types expanded
/// from about 1 KB), deep nesting, and text past the schema size limit. Each is refused with
/// exit 2 and one line naming the file and the limit; none overflows the stack.
#[test]
fn schema_chains_bombs_and_deep_nesting_are_refused_with_the_limit() {
    let dir = TempDir::new("schema-hostile");
    let chain = |lang: &str, n: usize| -> String {
        match lang {
            "proto" => {
                let mut s = String::from("syntax = \"proto3\";\n");
                for i in 0..n {
                    s += &format!("message M{i} {{ M{} f = 1; }}\n", i + 1);
                }
                s + &format!("message M{n} {{ int32 x = 1; }}\n")
            }
            "avsc" => {
                let mut recs = vec![format!(
                    "{{\"type\":\"record\",\"name\":\"M{n}\",\"fields\":[{{\"name\":\"x\",\"type\":\"int\"}}]}}"
                )];
                for i in (0..n).rev() {
                    recs.push(format!(
                        "{{\"type\":\"record\",\"name\":\"M{i}\",\"fields\":[{{\"name\":\"f\",\"type\":\"M{}\"}}]}}",
                        i + 1
                    ));
                }
                format!("[{}]", recs.join(",\n"))
            }
            _ => {
                let mut s = format!("struct M{n} {{ long x; }};\n");
                for i in (0..n).rev() {
                    s += &format!("struct M{i} {{ M{} f; }};\n", i + 1);
                }
                s
            }
        }
    };
    let bomb = |lang: &str, n: usize| -> String {
        match lang {
            "proto" => {
                let mut s = format!("syntax=\"proto3\";\nmessage B{n}{{int32 x=1;}}\n");
                for i in (0..n).rev() {
                    s += &format!("message B{i}{{B{} a=1;B{} b=2;}}\n", i + 1, i + 1);
                }
                s
            }
            "avsc" => {
                let mut recs = vec![format!(
                    "{{\"type\":\"record\",\"name\":\"B{n}\",\"fields\":[{{\"name\":\"x\",\"type\":\"int\"}}]}}"
                )];
                for i in (0..n).rev() {
                    recs.push(format!(
                        "{{\"type\":\"record\",\"name\":\"B{i}\",\"fields\":[{{\"name\":\"a\",\"type\":\"B{0}\"}},{{\"name\":\"b\",\"type\":\"B{0}\"}}]}}",
                        i + 1
                    ));
                }
                format!("[{}]", recs.join(","))
            }
            _ => {
                let mut s = format!("struct B{n}{{long x;}};\n");
                for i in (0..n).rev() {
                    s += &format!("struct B{i}{{B{0} a;B{0} b;}};\n", i + 1);
                }
                s
            }
        }
    };
    let nest = |lang: &str, n: usize| -> String {
        match lang {
            "proto" => format!("syntax = \"proto3\";\n{}int32 x = 1;{}\n", "message A { ".repeat(n), " }".repeat(n)),
            _ => format!("{}struct S {{ long x; }};{}\n", "module m { ".repeat(n), " };".repeat(n)),
        }
    };
    let check = |name: &str, text: &str, ty: &str, needles: &[&str]| {
        let f = dir.0.join(name);
        std::fs::write(&f, text).unwrap();
        let fs = f.to_str().unwrap();
        eprintln!("{name}: {} bytes", text.len());
        expect_bad_input(
            wb().args(["encode", "-f", "cbor", "--schema", fs, "--type", ty]).write_stdin("{}"),
            &[&[name][..], needles].concat(),
        );
    };
    for lang in ["proto", "avsc", "idl"] {
        // A chain of 5,000 types (130-400 KB) and 50,000 (10x).
        check(
            &format!("chain.{lang}"),
            &chain(lang, 200),
            "M0",
            &["type M128 is nested deeper than 128 levels (the nesting limit, --max-depth)"],
        );
        for n in [5_000, 50_000] {
            let text = chain(lang, n);
            let needle = if text.len() > 256 << 10 {
                "more than 262144 (the schema size limit"
            } else {
                "nested deeper than 128 levels"
            };
            check(&format!("chain{n}.{lang}"), &text, "M0", &[needle]);
        }
        // 30 and 120 levels of a type used twice: 2^30 and 2^120 types from 1-12 KB (deeper
        // bombs meet the nesting limit first).
        for n in [30, 120] {
            let text = bomb(lang, n);
            check(
                &format!("bomb{n}.{lang}"),
                &text,
                "B0",
                &["expands to more than 100000 types (the schema size limit"],
            );
        }
        if lang != "avsc" {
            // Nesting 2,000 and 20,000 deep: the compilers' own limits, one line.
            for n in [2_000, 20_000] {
                let f = dir.0.join(format!("nest{n}.{lang}"));
                std::fs::write(&f, nest(lang, n)).unwrap();
                let ty = if lang == "proto" { "A" } else { "S" };
                expect_bad_input(
                    wb().args(["encode", "-f", "cbor", "--schema"]).arg(&f).args(["--type", ty]).write_stdin("{}"),
                    &[&format!("nest{n}.{lang}:")],
                );
            }
        }
    }
    // The limit counts imports and includes: two files under it, over it together.
    let big = format!(
        "syntax = \"proto3\";\n{}",
        (0..4_000).map(|i| format!("message P{i} {{ int32 value_{i} = 1; }}\n")).collect::<String>()
    );
    assert!(big.len() > 128 << 10 && big.len() < 256 << 10);
    std::fs::write(dir.0.join("a.proto"), &big).unwrap();
    std::fs::write(dir.0.join("b.proto"), big.replace("message P", "message Q")).unwrap();
    std::fs::write(
        dir.0.join("top.proto"),
        "syntax = \"proto3\";\nimport \"a.proto\";\nimport \"b.proto\";\nmessage T { P1 p = 1; Q1 q = 2; }\n",
    )
    .unwrap();
    expect_bad_input(
        wb().args(["encode", "-f", "cbor", "--schema"]).arg(dir.0.join("top.proto")).write_stdin("{}"),
        &["b.proto: ", "(the schema size limit, with imports and includes)"],
    );
    // Under the limits a schema reads: a chain of 100 and a bomb of 10 levels (2^11 types).
    for lang in ["proto", "avsc", "idl"] {
        for (name, text, ty) in [("ok-chain", chain(lang, 100), "M0"), ("ok-bomb", bomb(lang, 10), "B0")] {
            let f = dir.0.join(format!("{name}.{lang}"));
            std::fs::write(&f, text).unwrap();
            let o = wb()
                .args(["encode", "-f", "json", "--schema"])
                .arg(&f)
                .args(["--type", ty])
                .write_stdin("{}")
                .output()
                .unwrap();
            assert!(o.status.success(), "{name}.{lang}: {}", String::from_utf8_lossy(&o.stderr));
        }
    }
}
