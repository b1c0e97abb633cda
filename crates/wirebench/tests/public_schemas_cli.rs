//! Schemas nobody here wrote, read as their own tools read them, through the CLI: Eclipse
//! Tahu's Sparkplug B `sparkplug_b.proto` unmodified (proto2, a message that contains itself),
//! Meshtastic's `mesh.proto` and `telemetry.proto` with their imports, and ROS 2's generated
//! `sensor_msgs/msg/Imu.idl` with its `#include`s. `scripts/fetch-public-schemas.sh` fetches them
//! from package registries into `$WIREBENCH_PUBLIC_SCHEMAS` (the test script does; they are
//! not committed). Without that folder the tests say why and pass, unless
//! `WIREBENCH_ORACLES=require`.
//!
//! For every set, random messages (defaults left out, as the protocol's JSON printer writes
//! them): `wirebench encode` writes the reference's bytes (protoc --encode, cyclonedds-python),
//! `wirebench decode` reads the reference's bytes back to the same JSON, and `size` (per record)
//! and `speed` report the same byte counts. An Avro schema written here with `[T, "null"]`
//! unions gets the same checks against fastavro.

mod common;
use common::*;

use std::path::{Path, PathBuf};

#[path = "../../wirebench-codecs/tests/support/proto_gen.rs"]
mod proto_gen;
use proto_gen::{check_random, ProtoFiles};

use serde_json::Value as J;

fn require() -> bool {
    std::env::var("WIREBENCH_ORACLES").is_ok_and(|v| v == "require")
}

fn skip(why: &str) {
    let msg = format!("SKIPPED public schema test: {why}");
    assert!(!require(), "{msg}, and WIREBENCH_ORACLES=require");
    eprintln!("{msg}");
    println!("{msg}");
}

/// The fetched sets, or `None` (said) when they are not here.
fn public() -> Option<PathBuf> {
    match std::env::var_os("WIREBENCH_PUBLIC_SCHEMAS").map(PathBuf::from) {
        Some(d) if d.join(".complete").is_file() => Some(d),
        Some(d) => {
            skip(&format!("{}: not fetched (scripts/fetch-public-schemas.sh DIR)", d.display()));
            None
        }
        None => {
            skip("WIREBENCH_PUBLIC_SCHEMAS is not set (scripts/fetch-public-schemas.sh DIR, then point it there)");
            None
        }
    }
}

fn have(program: &str) -> bool {
    std::process::Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(h: &str) -> Vec<u8> {
    (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect()
}

/// One message of a set: the JSON the peer's printer writes, and the peer's bytes.
struct Message {
    json: String,
    bytes: Vec<u8>,
}

/// The CLI on every message of a set: encode gives the peer's bytes, decode reads them back to
/// the same JSON, size and speed count the same bytes. `schema` are the arguments naming the
/// schema (`--schema F -I DIR --type T`).
fn cli_agrees(tag: &str, format: &str, schema: &[&str], msgs: &[Message]) {
    let dir = TempDir::new(&format!("{tag}-cli"));
    for (i, m) in msgs.iter().enumerate() {
        let out = wb().args(["encode", "-f", format]).args(schema).write_stdin(m.json.as_bytes()).output().unwrap();
        assert!(out.status.success(), "{tag} message {i}: {}\n{}", String::from_utf8_lossy(&out.stderr), m.json);
        assert_eq!(hex(&out.stdout), hex(&m.bytes), "{tag} message {i}: encode's bytes are not the peer's\n{}", m.json);
        let out = wb().args(["decode", "-f", format]).args(schema).write_stdin(m.bytes.clone()).output().unwrap();
        assert!(out.status.success(), "{tag} message {i}: {}", String::from_utf8_lossy(&out.stderr));
        let back: J = serde_json::from_slice(&out.stdout).unwrap();
        let want: J = serde_json::from_str(&m.json).unwrap();
        assert!(same_json(&back, &want), "{tag} message {i}: decode of the peer's bytes\n{back}\n{want}");
    }
    let samples = dir.0.join("messages.ndjson");
    std::fs::write(&samples, msgs.iter().map(|m| format!("{}\n", m.json)).collect::<String>()).unwrap();
    let samples = samples.to_str().unwrap();
    let out = wb()
        .args(["size", "-f", format, "--per-record", "--roundtrip", "all", "-o", "json", "--samples", samples])
        .args(schema)
        .output()
        .unwrap();
    assert!(out.status.success(), "{tag} size: {}", String::from_utf8_lossy(&out.stderr));
    let r: J = serde_json::from_slice(&out.stdout).unwrap();
    let sizes: Vec<u64> = r["size"]["rows"].as_array().unwrap().iter().map(|x| x["bytes"].as_u64().unwrap()).collect();
    let peers: Vec<u64> = msgs.iter().map(|m| m.bytes.len() as u64).collect();
    assert_eq!(sizes, peers, "{tag}: size's bytes per message");
    let agg = &r["size"]["aggregates"][0];
    assert_eq!(agg["failed"], 0, "{tag}: {agg}");
    assert_eq!(agg["unsupported"], 0, "{tag}: {agg}");
    // speed times the whole set as one case: its figure is the mean encoded size (whole bytes).
    let out = wb()
        .args(["speed", "-f", format, "--rounds", "10", "--sample-ms", "0.05", "--warmup-ms", "0", "-o", "json"])
        .args(["--samples", samples])
        .args(schema)
        .output()
        .unwrap();
    assert!(out.status.success(), "{tag} speed: {}", String::from_utf8_lossy(&out.stderr));
    let r: J = serde_json::from_slice(&out.stdout).unwrap();
    let cases = r["speed"]["cases"].as_array().unwrap();
    assert!(!cases.is_empty(), "{tag}: speed timed nothing: {}", r["speed"]);
    let mean = peers.iter().sum::<u64>() / peers.len() as u64;
    for c in cases {
        assert_eq!(c["bytes"].as_u64().unwrap(), mean, "{tag}: speed's bytes ({})", c["op"]);
    }
    // And message by message, on 20 of them spread over the set (a speed run each).
    let step = (msgs.len() / 20).max(1);
    for (i, m) in msgs.iter().enumerate().step_by(step) {
        let one = dir.0.join(format!("m{i}.json"));
        std::fs::write(&one, &m.json).unwrap();
        let out = wb()
            .args(["speed", "-f", format, "--rounds", "10", "--sample-ms", "0.02", "--warmup-ms", "0", "-o", "json"])
            .args(["--samples", one.to_str().unwrap()])
            .args(schema)
            .output()
            .unwrap();
        assert!(out.status.success(), "{tag} speed message {i}: {}", String::from_utf8_lossy(&out.stderr));
        let r: J = serde_json::from_slice(&out.stdout).unwrap();
        for c in r["speed"]["cases"].as_array().unwrap() {
            assert_eq!(c["bytes"].as_u64().unwrap(), m.bytes.len() as u64, "{tag} message {i}: speed's bytes");
        }
    }
    println!(
        "{tag}: {} messages: encode = the peer's bytes, decode = the peer's JSON, size and speed agree",
        msgs.len()
    );
}

/// The same JSON, numbers by value: a float32 has more than one shortest decimal form when it
/// lies halfway between two (−3430950.25 prints as …0.2 or …0.3), so numbers that are the
/// same float32 are the same.
fn same_json(a: &J, b: &J) -> bool {
    match (a, b) {
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        (J::Array(x), J::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_json(v, w)),
        (J::Number(x), J::Number(y)) if x != y => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) => p == q || (x.is_f64() && y.is_f64() && p as f32 == q as f32),
            _ => false,
        },
        _ => a == b,
    }
}

/// A value as plain JSON, as a proto3 JSON printer writes it: a float32 as its shortest decimal
/// (no `$f32` marker, which only wirebench's own JSON carries).
fn plain_json(v: &wirebench_core::Value) -> String {
    use wirebench_core::Value as V;
    match v {
        V::Map(pairs) => {
            let items: Vec<String> =
                pairs.iter().map(|(k, x)| format!("{}:{}", serde_json::to_string(k).unwrap(), plain_json(x))).collect();
            format!("{{{}}}", items.join(","))
        }
        V::Array(xs) => format!("[{}]", xs.iter().map(plain_json).collect::<Vec<_>>().join(",")),
        V::F32(f) => format!("{f:?}"),
        other => other.to_json_string(),
    }
}

/// Random messages of a .proto's message, checked against protoc, then through the CLI.
fn proto_set(tag: &str, root: &Path, file: &str, includes: &[PathBuf], type_name: &str, n: usize, seed: u64) {
    let files = ProtoFiles { includes: includes.to_vec(), file: root.join(file) };
    let checked = check_random(Path::new("protoc"), &files, type_name, n, seed);
    let msgs: Vec<Message> =
        checked.into_iter().map(|c| Message { json: plain_json(&c.canonical), bytes: c.bytes }).collect();
    let mut schema = vec!["--schema".to_string(), files.file.display().to_string(), "--type".into(), type_name.into()];
    for i in includes {
        schema.extend(["-I".to_string(), i.display().to_string()]);
    }
    let schema: Vec<&str> = schema.iter().map(String::as_str).collect();
    cli_agrees(tag, "protobuf", &schema, &msgs);
}

#[test]
fn sparkplug_b_payloads_are_protocs_bytes() {
    let Some(d) = public() else { return };
    if !have("protoc") {
        return skip("protoc not found (apt-get install protobuf-compiler)");
    }
    let root = d.join("sparkplug");
    proto_set(
        "sparkplug",
        &root,
        "sparkplug_b.proto",
        std::slice::from_ref(&root),
        "org.eclipse.tahu.protobuf.Payload",
        150,
        0x5b,
    );
}

#[test]
fn meshtastic_packets_and_telemetry_are_protocs_bytes() {
    let Some(d) = public() else { return };
    if !have("protoc") {
        return skip("protoc not found (apt-get install protobuf-compiler)");
    }
    let root = d.join("meshtastic");
    let inc = [root.clone()];
    proto_set("meshtastic-packet", &root, "meshtastic/mesh.proto", &inc, "meshtastic.MeshPacket", 150, 0x3e5);
    proto_set("meshtastic-telemetry", &root, "meshtastic/telemetry.proto", &inc, "meshtastic.Telemetry", 150, 0x7e1);
}

/// cyclonedds-python's bytes (`scripts/ros2_imu_oracle.py`: classes written independently of
/// any IDL file) for the IDL ROS 2 generates.
#[test]
fn ros2_imu_is_cyclonedds_bytes() {
    let Some(d) = public() else { return };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/ros2_imu_oracle.py");
    let out = std::process::Command::new("python3").arg(&script).args(["gen", "120", "91"]).output().unwrap();
    if out.status.code() == Some(3) {
        return skip(String::from_utf8_lossy(&out.stderr).trim());
    }
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<J> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let root = d.join("ros2");
    let idl = root.join("sensor_msgs/msg/Imu.idl");
    let schema = ["--schema", idl.to_str().unwrap(), "-I", root.to_str().unwrap()];
    for (format, key) in [("cdr-xcdr1", "xcdr1"), ("cdr-xcdr2", "xcdr2")] {
        let msgs: Vec<Message> = lines
            .iter()
            .map(|l| Message { json: l["value"].to_string(), bytes: unhex(l[key].as_str().unwrap()) })
            .collect();
        cli_agrees(&format!("ros2-imu-{key}"), format, &schema, &msgs);
    }
}

/// `[T, "null"]` and `["null", T]` unions: fastavro's bytes (`scripts/avro_oracle.py`).
#[test]
fn avro_unions_in_either_order_are_fastavros_bytes() {
    const SCHEMA: &str = r#"{"type":"record","name":"Sensor","fields":[
 {"name":"id","type":"long"},
 {"name":"temp","type":["double","null"]},
 {"name":"hum","type":["null","float"]},
 {"name":"label","type":["string","null"]},
 {"name":"pos","type":{"type":"record","name":"P","fields":[
   {"name":"lat","type":["double","null"]},{"name":"lon","type":"double"}]}},
 {"name":"vals","type":{"type":"array","items":"int"}}
]}"#;
    let dir = TempDir::new("avro-unions");
    let avsc = dir.0.join("sensor.avsc");
    std::fs::write(&avsc, SCHEMA).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/avro_oracle.py");
    let out =
        std::process::Command::new("python3").arg(&script).arg("gen").arg(&avsc).args(["120", "5"]).output().unwrap();
    if out.status.code() == Some(3) {
        return skip(String::from_utf8_lossy(&out.stderr).trim());
    }
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let msgs: Vec<Message> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let j: J = serde_json::from_str(l).unwrap();
            Message { json: j["expect"].to_string(), bytes: unhex(j["hex"].as_str().unwrap()) }
        })
        .collect();
    cli_agrees("avro-unions", "avro", &["--schema", avsc.to_str().unwrap()], &msgs);
}

/// 200 Meshtastic device-metrics readings as `json_format.MessageToJson` prints them
/// (lowerCamelCase names, defaults left out): every one is exact in protobuf, and the
/// recommendation for a 51 B LoRa SF9 budget on a Cortex-M0+ ranks protobuf with nanopb
/// measured on the lab from the same .proto.
#[test]
fn meshtastic_readings_rank_protobuf_with_nanopb_measured() {
    let Some(d) = public() else { return };
    let root = d.join("meshtastic");
    let proto = root.join("meshtastic/telemetry.proto");
    let dir = TempDir::new("mesh-readings");
    let samples = dir.0.join("readings.ndjson");
    let mut text = String::new();
    for i in 0..200u32 {
        let f = f64::from(i);
        text.push_str(&format!(
            "{{\"time\":{},\"deviceMetrics\":{{\"batteryLevel\":{},\"voltage\":{:.3},\"channelUtilization\":{:.2},\"airUtilTx\":{:.3},\"uptimeSeconds\":{}}}}}\n",
            1_764_633_600 + i * 900,
            if i % 7 == 0 { 0 } else { 100 - i % 50 },
            3.3 + 0.9 * (f / 17.0).sin().abs(),
            if i % 3 == 0 { 0.0 } else { 30.0 * (f / 11.0).cos().abs() },
            5.0 * (f / 5.0).sin().abs(),
            i * 900 + i % 13,
        ));
    }
    std::fs::write(&samples, text).unwrap();
    let schema = ["--schema", proto.to_str().unwrap(), "-I", root.to_str().unwrap(), "--type", "meshtastic.Telemetry"];
    let out = wb()
        .args(["size", "-f", "protobuf", "--roundtrip", "all", "-o", "json", "--samples", samples.to_str().unwrap()])
        .args(schema)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: J = serde_json::from_slice(&out.stdout).unwrap();
    let agg = &r["size"]["aggregates"][0];
    assert_eq!((agg["codec"].as_str(), agg["exact"].as_u64()), (Some("protobuf"), Some(200)), "{agg}");
    let out = wb()
        .args(["recommend", "--budget", "51", "--link", "lora-sf9", "--mcu", "m0", "-o", "json"])
        .args(["--samples", samples.to_str().unwrap()])
        .args(schema)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: J = serde_json::from_slice(&out.stdout).unwrap();
    let pb = r["ranked"].as_array().unwrap().iter().find(|x| x["codec"] == "protobuf");
    let pb = pb.unwrap_or_else(|| panic!("protobuf is not ranked: {r}"));
    assert!(pb["max_bytes"].as_u64().unwrap() <= 51, "{pb}");
    let why = pb["reasons"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect::<Vec<_>>().join("; ");
    assert!(why.contains("on cortex-m0plus (nanopb, measured)"), "{why}");
    println!("meshtastic readings: protobuf 200 exact, max {} B, ranked with: {why}", pb["max_bytes"]);
}
