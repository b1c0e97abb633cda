//! The Avro codec against fastavro (`scripts/avro_oracle.py`): for an .avsc written here with
//! every Avro type (unions with null first and last and with three branches, enum, fixed,
//! map, nested and recursive records, arrays, timestamp-millis, decimal), our bytes for 200
//! random records are fastavro's `schemaless_writer` bytes, and our decoder reads fastavro's
//! bytes back to the same value. A schema of what the shared model expresses (unions in both
//! orders) gives the same bytes through the shared model's path too.
//!
//! Skipped with a message when python3 or fastavro is missing (`pip install fastavro`), unless
//! `WIREBENCH_ORACLES=require` (then it fails).

use std::path::{Path, PathBuf};
use std::process::Command;

use wirebench_codecs::schema_files::read_schema_file;
use wirebench_core::Value;

const FULL: &str = r#"{"type":"record","name":"Reading","namespace":"wb.test","fields":[
 {"name":"id","type":"long"},
 {"name":"temp","type":["double","null"]},
 {"name":"note","type":["null","string"]},
 {"name":"count","type":["int","null"]},
 {"name":"level","type":{"type":"enum","name":"Level","symbols":["LOW","MID","HIGH"]}},
 {"name":"mac","type":{"type":"fixed","name":"Mac","size":6}},
 {"name":"tags","type":{"type":"map","values":"long"}},
 {"name":"pos","type":{"type":"record","name":"Pos","fields":[
   {"name":"lat","type":"double"},{"name":"lon","type":"float"},{"name":"alt","type":["null","float"]}]}},
 {"name":"samples","type":{"type":"array","items":"float"}},
 {"name":"history","type":{"type":"array","items":"Pos"}},
 {"name":"chain","type":["null",{"type":"record","name":"Link","fields":[
   {"name":"v","type":"int"},{"name":"next","type":["null","Link"]}]}]},
 {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
 {"name":"raw","type":"bytes"},
 {"name":"ok","type":"boolean"},
 {"name":"alt_level","type":["null","Level"]},
 {"name":"choice","type":["string","long","Pos"]}
]}
"#;

/// Only what the shared schema model expresses: two-branch unions with null in either order.
const MAPPED: &str = r#"{"type":"record","name":"Sensor","fields":[
 {"name":"id","type":"long"},
 {"name":"temp","type":["double","null"]},
 {"name":"hum","type":["null","float"]},
 {"name":"label","type":["string","null"]},
 {"name":"pos","type":{"type":"record","name":"P","fields":[
   {"name":"lat","type":["double","null"]},{"name":"lon","type":"double"}]}},
 {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"vals","type":{"type":"array","items":"int"}},
 {"name":"blob","type":["bytes","null"]}
]}
"#;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/avro_oracle.py")
}

fn skip(why: &str) {
    let msg = format!("SKIPPED avro oracle test: {why} (pip install fastavro)");
    if std::env::var("WIREBENCH_ORACLES").is_ok_and(|v| v == "require") {
        panic!("{msg}, and WIREBENCH_ORACLES=require");
    }
    eprintln!("{msg}");
    println!("{msg}");
}

fn write_schema(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirebench-avro-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// fastavro's records for the schema: (input JSON, expected decoded JSON, fastavro's hex).
fn oracle(schema: &Path, n: usize, seed: u64) -> Option<Vec<(String, String, String)>> {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let out = match Command::new(&python)
        .arg(script())
        .arg("gen")
        .arg(schema)
        .arg(n.to_string())
        .arg(seed.to_string())
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            skip(&format!("cannot run {python}: {e}"));
            return None;
        }
    };
    if out.status.code() == Some(3) {
        skip(String::from_utf8_lossy(&out.stderr).trim());
        return None;
    }
    assert!(out.status.success(), "avro_oracle.py gen failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<(String, String, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let j: serde_json::Value = serde_json::from_str(l).unwrap();
            (j["input"].to_string(), j["expect"].to_string(), j["hex"].as_str().unwrap().to_string())
        })
        .collect();
    assert_eq!(lines.len(), n);
    Some(lines)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(h: &str) -> Vec<u8> {
    (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect()
}

/// Our bytes for every record equal fastavro's, and fastavro's read back to its value.
fn check_all(schema: &wirebench_core::Schema, cases: &[(String, String, String)], what: &str) {
    let avro = wirebench_codecs::find("avro").unwrap().prepare(Some(schema)).unwrap();
    let mut same = 0;
    for (input, expect, want_hex) in cases {
        let v = Value::from_json_str(input).unwrap();
        let mut out = Vec::new();
        avro.encode(&v, &mut out).unwrap_or_else(|e| panic!("{what}: {input}: {e}"));
        assert_eq!(hex(&out), *want_hex, "{what}: bytes differ from fastavro's for {input}");
        let back =
            avro.decode(&unhex(want_hex)).unwrap_or_else(|e| panic!("{what}: decoding fastavro's {want_hex}: {e}"));
        // The same JSON (integers compare by value: JSON has no signedness).
        let want = Value::from_json_str(expect).unwrap().to_json_string();
        assert_eq!(back.to_json_string(), want, "{what}: fastavro's {want_hex} read back");
        same += 1;
    }
    println!("{what}: {same} of {} records byte-identical with fastavro and read back", cases.len());
}

#[test]
fn every_avro_type_is_byte_identical_with_fastavro() {
    let path = write_schema("full.avsc", FULL);
    let Some(cases) = oracle(&path, 200, 34) else { return };
    let schema = read_schema_file(&path, None).unwrap();
    check_all(&schema, &cases, "full.avsc");
    // The other codecs refuse it in one line naming the file, the line and the first construct.
    let v = Value::from_json_str(&cases[0].0).unwrap();
    for id in ["protobuf", "thrift", "cdr-xcdr1", "uadp"] {
        let e = wirebench_codecs::find(id).unwrap().encode(&v, Some(&schema), &mut Vec::new()).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("{}:6: Avro enum wb.test.Level at $.level has no mapping in the wirebench schema (only -f avro reads this schema)", path.display()),
            "{id}"
        );
    }
}

#[test]
fn unions_in_either_order_agree_on_both_paths() {
    let path = write_schema("mapped.avsc", MAPPED);
    let Some(cases) = oracle(&path, 150, 7) else { return };
    let schema = read_schema_file(&path, None).unwrap();
    assert!(schema.native.as_ref().unwrap().unmapped.is_none());
    check_all(&schema, &cases, "mapped.avsc (native)");
    // The shared model alone (the field records where null is): the same bytes.
    let mut shared = schema.clone();
    shared.native = None;
    let back = wirebench_core::Schema::from_json_str(&shared.to_json_pretty()).unwrap();
    assert_eq!(back, shared);
    check_all(&back, &cases, "mapped.avsc (shared model)");
}
