//! `wirebench evolve`'s engine: every measured cell of the built-in matrix against the rule
//! its format's specification gives (a test per format), and the protobuf and Avro cells
//! against protoc's and fastavro's readings of the same bytes.
//!
//! The rules are written out here from the specifications, per change and direction; the engine
//! has no such table: its verdicts come from encoding and decoding (see `evolve.rs`). The
//! built-in cases (`evolve::apply`): add `humidity` (optional float64) or `firmware`
//! (required int32) at the end; remove `battery` (a middle int32); rename `battery`
//! (same tag, same place); swap `lat` and `lon` (float64 both, tags kept); `battery` int32 →
//! int64; `seq` int64 → int32 (values beyond int32 in half the samples); `level` int32 →
//! float64 (fractions in the new writer's samples); `status` gains `CALIBRATING` (the new
//! writer's samples use it); `sensor` string → list<string> (two items in half the samples).
//! Oracle tests skip without protoc / fastavro, unless `WIREBENCH_ORACLES=require`.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use wirebench_codecs::evolve::{self, Evolution, Format, Verdict};
use wirebench_core::Value;

const N: usize = 8;

fn matrix() -> &'static Evolution {
    static M: OnceLock<Evolution> = OnceLock::new();
    M.get_or_init(|| evolve::run(evolve::builtin_cases(), &Format::ALL, N).expect("built-in matrix runs"))
}

use Verdict::{Lossy as L, Ok as O, OkWithDefaults as D, Refused as R, SilentlyWrong as W};

/// (change, old→new, new→old) per the format's rules.
type Rules = [(&'static str, Verdict, Verdict); 10];

/// Protocol Buffers, proto3 ("Updating a message type"; the encoding guide): fields are found by
/// number; an unknown number is skipped; an unset field reads as its default; int32/int64 are
/// compatible with C++ cast semantics (truncation); a field arriving with another wire type is
/// an unknown field (protoc), so the reader's field stays unset; proto3 enums are open (an
/// unknown number is kept, without a name); a singular reader keeps the last of repeated values.
const PROTOBUF: Rules = [
    ("add-optional", D, O),
    ("add-required", D, O), // proto3 has no required: implicit presence, the default
    ("remove", O, D),
    ("rename", O, O),
    ("reorder", O, O),
    ("widen", O, W),     // int64 values beyond int32 truncated by the old int32 reader
    ("narrow", W, O),    // the same, old writer → new reader
    ("int-float", W, W), // varint ↔ fixed64: an unknown field, the reader's level reads 0
    ("add-enum-value", O, L),
    ("make-repeated", O, L),
];

/// Avro 1.11 "Schema Resolution": fields matched by name; a reader field the writer lacks takes
/// its default or is an error; int promotes to long, float, double; nothing demotes; an enum
/// symbol the reader lacks (and no enum default) is an error; string and array do not match.
const AVRO: Rules = [
    ("add-optional", D, O),
    ("add-required", R, O),
    ("remove", O, R),
    ("rename", R, R), // no aliases: the renamed reader field has no default
    ("reorder", O, O),
    ("widen", O, R),
    ("narrow", R, O),
    ("int-float", O, R),
    ("add-enum-value", O, R),
    ("make-repeated", R, R),
];

/// Thrift compact protocol as wirebench's codec writes it: field ids are the positions 1..n,
/// so removing a middle field renumbers the ones after it and a reorder swaps ids; a known id
/// with another wire type is refused (Apache Thrift's generated readers skip it instead); a
/// missing required field is refused; enums are i32 (an unknown value is kept as a number).
const THRIFT: Rules = [
    ("add-optional", D, O),
    ("add-required", R, O),
    ("remove", R, R), // level's id now meets seq (i32 vs i64)
    ("rename", O, O),
    ("reorder", W, W), // lat's id holds lon: both doubles, nothing to notice
    ("widen", R, R),
    ("narrow", R, R),
    ("int-float", R, R),
    ("add-enum-value", O, L),
    ("make-repeated", R, R),
];

/// OPC UA PubSub (OPC 10000-14 §6.2.3.2.6): a subscriber decodes a DataSetMessage only with
/// DataSetMetaData of the same ConfigurationVersion.MajorVersion. Fields added at the end (and
/// literals added at the end of an enum, whose DataType stays) update only the MinorVersion:
/// the old subscriber reads the fields it knows and ignores the rest, the new one has no value
/// for the fields the old message lacks. Removing, renaming, reordering, a DataType change
/// update the MajorVersion: refused both ways. An Int32 enum value the reader has no name for
/// is kept as a number.
const UADP: Rules = [
    ("add-optional", D, O),
    ("add-required", D, O),
    ("remove", R, R),
    ("rename", R, R),
    ("reorder", R, R),
    ("widen", R, R),
    ("narrow", R, R),
    ("int-float", R, R),
    ("add-enum-value", O, L),
    ("make-repeated", R, R),
];

/// DDS-XTypes 1.3 assignability (§7.2.4.4): @final needs the same members; primitive member
/// types must be identical; members with the same id have the same name; a sample with an
/// enum literal the reader lacks is refused.
const XCDR1_FINAL: Rules = [
    ("add-optional", R, R),
    ("add-required", R, R),
    ("remove", R, R),
    ("rename", R, R),
    ("reorder", R, R),
    ("widen", R, R),
    ("narrow", R, R),
    ("int-float", R, R),
    ("add-enum-value", O, R),
    ("make-repeated", R, R),
];

/// @appendable: members may be added or removed at the end only (missing ones take defaults).
const XCDR2_APPENDABLE: Rules = [
    ("add-optional", D, O),
    ("add-required", D, O),
    ("remove", R, R), // a middle member
    ("rename", R, R),
    ("reorder", R, R),
    ("widen", R, R),
    ("narrow", R, R),
    ("int-float", R, R),
    ("add-enum-value", O, R),
    ("make-repeated", R, R),
];

/// @mutable: members matched by id (`@id` kept), in any order, any may be missing (defaults).
const XCDR2_MUTABLE: Rules = [
    ("add-optional", D, O),
    ("add-required", D, O),
    ("remove", O, D),
    ("rename", R, R),
    ("reorder", O, O),
    ("widen", R, R),
    ("narrow", R, R),
    ("int-float", R, R),
    ("add-enum-value", O, R),
    ("make-repeated", R, R),
];

/// Schemaless formats read by a typed reader (serde's derive): by name, unknown fields
/// ignored, missing required fields, wrong types, out-of-range integers and unknown enum
/// variants refused; an integer is a valid float.
const SCHEMALESS: Rules = [
    ("add-optional", D, O),
    ("add-required", R, O),
    ("remove", O, R),
    ("rename", R, R),
    ("reorder", O, O),
    ("widen", O, R),
    ("narrow", R, O),
    ("int-float", O, R),
    ("add-enum-value", O, R),
    ("make-repeated", R, R),
];

fn check(format: Format, rules: &Rules) {
    let m = matrix();
    let mut bad = Vec::new();
    for (change, a, b) in rules {
        for (dir, want) in [("old→new", a), ("new→old", b)] {
            let c =
                m.cells.iter().find(|c| c.format == format && c.change == *change && c.direction == dir).expect("cell");
            if c.verdict != *want {
                bad.push(format!(
                    "{change} {dir}: measured {:?}, the rule says {want:?} ({})",
                    c.verdict,
                    evolve::detail(c)
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}:\n{}", format.id(), bad.join("\n"));
    assert_eq!(m.cells.iter().filter(|c| c.format == format).count(), 20);
}

#[test]
fn protobuf_follows_proto3_rules() {
    check(Format::Protobuf, &PROTOBUF);
}
#[test]
fn avro_follows_schema_resolution() {
    check(Format::Avro, &AVRO);
}
#[test]
fn thrift_follows_its_field_ids() {
    check(Format::Thrift, &THRIFT);
}
#[test]
fn uadp_follows_part_14_configuration_versions() {
    check(Format::Uadp, &UADP);
    let cell = |change: &str, dir: &str| {
        matrix().cells.iter().find(|c| c.format == Format::Uadp && c.change == change && c.direction == dir).unwrap()
    };
    // Positional fields: without the MajorVersion check, swapped doubles read silently wrong.
    assert_eq!(cell("reorder", "old→new").bytes_alone, Some(Verdict::SilentlyWrong));
    assert!(cell("reorder", "old→new").error.as_deref().unwrap_or("").contains("MajorVersion 1 is not the reader's 2"));
    // Every message carries its writer's ConfigurationVersion: v1 (1, 1); an appended field (1, 2).
    let version = |bytes: &[u8]| {
        let m = uadp::decode_exact(bytes, &uadp::DecodeOptions::default()).unwrap();
        (m.messages[0].config_version_major, m.messages[0].config_version_minor)
    };
    assert_eq!(version(&cell("add-optional", "old→new").wire[0].0), (Some(1), Some(1)));
    assert_eq!(version(&cell("add-optional", "new→old").wire[0].0), (Some(1), Some(2)));
    assert_eq!(version(&cell("remove", "new→old").wire[0].0), (Some(2), Some(2)));
    let cost = matrix().costs.iter().find(|c| c.format == Format::Uadp).unwrap();
    assert_eq!(cost.with - cost.without, 8.0, "MajorVersion and MinorVersion, 4 bytes each");
}
#[test]
fn xcdr1_final_follows_xtypes() {
    check(Format::Xcdr1Final, &XCDR1_FINAL);
}
#[test]
fn xcdr2_appendable_follows_xtypes() {
    check(Format::Xcdr2Appendable, &XCDR2_APPENDABLE);
}
#[test]
fn xcdr2_mutable_follows_xtypes() {
    check(Format::Xcdr2Mutable, &XCDR2_MUTABLE);
}
#[test]
fn json_follows_a_typed_reader() {
    check(Format::Json, &SCHEMALESS);
}
#[test]
fn cbor_follows_a_typed_reader() {
    check(Format::Cbor, &SCHEMALESS);
}
#[test]
fn msgpack_follows_a_typed_reader() {
    check(Format::Msgpack, &SCHEMALESS);
}
#[test]
fn bson_follows_a_typed_reader() {
    check(Format::Bson, &SCHEMALESS);
}
#[test]
fn pson_follows_a_typed_reader() {
    check(Format::Pson, &SCHEMALESS);
}

#[test]
fn silently_wrong_cells_come_first_and_name_the_values() {
    let m = matrix();
    assert_eq!(m.cells[0].verdict, Verdict::SilentlyWrong);
    let reorder = m
        .cells
        .iter()
        .find(|c| c.format == Format::Thrift && c.change == "reorder" && c.direction == "old→new")
        .unwrap();
    let lat = reorder.fields_wrong.iter().find(|n| n.field == "lat").expect("lat noted");
    assert_eq!((lat.meant.as_deref(), lat.got.as_deref()), (Some("48.75"), Some("2.3")));
    // Positional CDR: the bytes alone are silently wrong; type matching refuses the pair.
    let fin = m
        .cells
        .iter()
        .find(|c| c.format == Format::Xcdr1Final && c.change == "reorder" && c.direction == "old→new")
        .unwrap();
    assert_eq!(fin.bytes_alone, Some(Verdict::SilentlyWrong));
    let s = evolve::section(m);
    assert_eq!(s.cells.len(), m.cells.len());
    assert_eq!((s.cells[0].format.as_str(), s.cells[0].verdict), (m.cells[0].format.id(), Verdict::SilentlyWrong));
    assert!(s.cells.iter().all(|c| c.verdict == Verdict::Ok || !c.detail.is_empty()), "every cell not ok says why");
    assert!(m.recommendation.starts_with("avro — never silently wrong here"), "{}", m.recommendation);
    assert!(m.recommendation.contains("Silently wrong: protobuf (widen new→old"), "{}", m.recommendation);
}

#[test]
fn the_diff_finds_each_built_in_change_and_combinations() {
    let v1 = evolve::builtin_v1();
    for c in evolve::Change::ALL {
        let (v2, _) = evolve::apply(&v1, c);
        let found: Vec<_> = evolve::diff(&v1, &v2).into_iter().map(|f| f.change).collect();
        assert_eq!(found, vec![c], "{}", c.id());
    }
    // A pair with three changes at once.
    let (mut v2, _) = evolve::apply(&v1, evolve::Change::Widen);
    v2.fields.swap(2, 3);
    v2.fields[0].name = "source".into();
    let mut found: Vec<&str> = evolve::diff(&v1, &v2).iter().map(|f| f.change.id()).collect();
    found.sort();
    assert_eq!(found, ["rename", "reorder", "widen"]);
}

#[test]
fn user_schemas_without_numbers_keep_identity_by_name() {
    let dir = std::env::temp_dir().join(format!("wirebench-evolve-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("v1.avsc");
    let b = dir.join("v2.avsc");
    std::fs::write(
        &a,
        r#"{"type":"record","name":"R","fields":[{"name":"id","type":"int"},{"name":"t","type":"double"}]}"#,
    )
    .unwrap();
    std::fs::write(&b, r#"{"type":"record","name":"R","fields":[{"name":"t","type":"double"},{"name":"id","type":"long"},{"name":"x","type":["null","string"],"default":null}]}"#).unwrap();
    let v1 = evolve::read(&a, None).unwrap();
    let mut v2 = evolve::read(&b, None).unwrap();
    evolve::align_tags(&v1, &mut v2);
    let mut found: Vec<&str> = evolve::diff(&v1, &v2).iter().map(|f| f.change.id()).collect();
    found.sort();
    assert_eq!(found, ["add-optional", "reorder", "widen"]);
    let e = evolve::run(vec![evolve::user_case(v1, v2)], &[Format::Avro, Format::Protobuf], 4).unwrap();
    let avro_new_old = e.cells.iter().find(|c| c.format == Format::Avro && c.direction == "new→old").unwrap();
    assert_eq!(avro_new_old.verdict, Verdict::Refused, "long → int does not resolve");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// Oracles

fn require_or_skip(why: &str) {
    if std::env::var("WIREBENCH_ORACLES").as_deref() == Ok("require") {
        panic!("{why}, and WIREBENCH_ORACLES=require");
    }
    eprintln!("skipped: {why}");
}

/// Every built-in case in both directions: (case, direction, writer schema, reader schema).
fn pairs() -> Vec<(String, &'static str, evolve::EvoSchema, evolve::EvoSchema)> {
    let mut out = Vec::new();
    for c in evolve::builtin_cases() {
        out.push((c.name.clone(), "old→new", c.v1.clone(), c.v2.clone()));
        out.push((c.name, "new→old", c.v2, c.v1));
    }
    // A user's .avsc pair: a rename through an Avro alias, and an enum that gains a symbol.
    let (v1, v2) = aliased_pair();
    out.push(("alias".into(), "old→new", v1.clone(), v2.clone()));
    out.push(("alias".into(), "new→old", v2, v1));
    out
}

/// v1.avsc and v2.avsc as a user writes them, read as `evolve --from --to` reads them.
fn aliased_pair() -> (evolve::EvoSchema, evolve::EvoSchema) {
    let d = scratch();
    let v1 = d.0.join("v1.avsc");
    let v2 = d.0.join("v2.avsc");
    std::fs::write(
        &v1,
        r#"{"type":"record","name":"Reading","fields":[{"name":"id","type":"int"},{"name":"battery","type":"int"},
           {"name":"status","type":{"type":"enum","name":"Status","symbols":["OK","LOW"]}}]}"#,
    )
    .unwrap();
    std::fs::write(
        &v2,
        r#"{"type":"record","name":"Reading","fields":[{"name":"id","type":"int"},
           {"name":"battery_mv","type":"int","aliases":["battery"]},
           {"name":"status","type":{"type":"enum","name":"Status","symbols":["OK","LOW","CALIBRATING"]}}]}"#,
    )
    .unwrap();
    let a = evolve::read(&v1, None).unwrap();
    let mut b = evolve::read(&v2, None).unwrap();
    evolve::align_tags(&a, &mut b);
    (a, b)
}

#[test]
fn a_users_avro_alias_and_enum_are_read_from_the_file() {
    let (v1, v2) = aliased_pair();
    let status = v2.fields.iter().find(|f| f.name == "status").unwrap();
    assert_eq!(status.kind.describe(), "enum Status {OK, LOW, CALIBRATING}");
    let renamed = v2.fields.iter().find(|f| f.name == "battery_mv").unwrap();
    assert_eq!((renamed.aliases.as_slice(), renamed.tag), (&["battery".to_string()][..], v1.fields[1].tag));
    let m = evolve::run(vec![evolve::user_case(v1, v2)], &[Format::Avro], 4).unwrap();
    let cell = |dir: &str| m.cells.iter().find(|c| c.direction == dir).unwrap();
    // Avro resolution: the reader's alias names the writer's field; the old reader has none.
    assert_eq!(cell("old→new").verdict, Verdict::Ok, "{}", evolve::detail(cell("old→new")));
    assert_eq!(cell("new→old").verdict, Verdict::Refused);
}

fn scratch() -> evolve::Scratch {
    evolve::Scratch::new().unwrap()
}

/// protoc's text format for the top-level fields: name → values (unknown fields, printed by
/// number, left out).
fn protoc_fields(text: &str) -> HashMap<String, Vec<String>> {
    let mut m: HashMap<String, Vec<String>> = HashMap::new();
    for line in text.lines() {
        let Some((k, v)) = line.split_once(": ") else { continue };
        if k.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        m.entry(k.trim().to_string()).or_default().push(v.trim().trim_matches('"').to_string());
    }
    m
}

fn plain(v: &Value) -> Vec<String> {
    match v {
        Value::Array(xs) => xs.iter().flat_map(plain).collect(),
        Value::String(s) => vec![s.clone()],
        other => vec![other.to_json_string()],
    }
}

#[test]
fn protobuf_cells_agree_with_protoc() {
    if !Command::new("protoc").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return require_or_skip("protoc not found (apt-get install protobuf-compiler)");
    }
    let s = scratch();
    let mut checked = 0;
    for (case, dir, w, r) in pairs() {
        let bw = evolve::bind(Format::Protobuf, &w, &s, "pw").unwrap();
        let br = evolve::bind(Format::Protobuf, &r, &s, "pr").unwrap();
        let proto = s.0.join("oracle_reader.proto");
        std::fs::write(&proto, &br.text).unwrap();
        for (i, sample) in evolve::samples(&w, N).iter().enumerate() {
            let bytes = evolve::encode(&bw, sample).unwrap();
            let ours = evolve::decode(&bw, &br, &bytes);
            let mut child = Command::new("protoc")
                .arg(format!("--proto_path={}", s.0.display()))
                .arg("--decode=wirebench.evolve.Reading")
                .arg(&proto)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(&bytes).unwrap();
            let out = child.wait_with_output().unwrap();
            let at = format!("{case} {dir} sample {i}");
            assert_eq!(
                out.status.success(),
                ours.is_ok(),
                "{at}: protoc {:?} vs ours {ours:?}",
                String::from_utf8_lossy(&out.stderr)
            );
            let Ok(ours) = ours else { continue };
            let theirs = protoc_fields(&String::from_utf8_lossy(&out.stdout));
            let Value::Map(pairs) = &ours else { panic!("{at}: not a record") };
            for f in &r.fields {
                let mine = pairs.iter().find(|(k, _)| *k == f.name).map(|(_, v)| plain(v)).unwrap_or_default();
                let mine: Vec<String> = mine.into_iter().filter(|x| x != "0" && x != "0.0" && !x.is_empty()).collect();
                let protoc: Vec<String> = theirs.get(&f.name).cloned().unwrap_or_default();
                let norm = |xs: &[String]| -> Vec<String> {
                    xs.iter().map(|x| x.parse::<f64>().map_or(x.clone(), |n| n.to_string())).collect()
                };
                assert_eq!(norm(&mine), norm(&protoc), "{at}: field {}", f.name);
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} accepted samples checked");
}

#[test]
fn avro_cells_agree_with_fastavro() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/evolve_avro_oracle.py");
    let ok = Command::new("python3").args(["-c", "import fastavro"]).output().is_ok_and(|o| o.status.success());
    if !ok {
        return require_or_skip("fastavro not importable (pip install fastavro)");
    }
    let s = scratch();
    let mut input = String::new();
    let mut ours = Vec::new();
    for (case, dir, w, r) in pairs() {
        let bw = evolve::bind(Format::Avro, &w, &s, "aw").unwrap();
        let br = evolve::bind(Format::Avro, &r, &s, "ar").unwrap();
        for (i, sample) in evolve::samples(&w, N).iter().enumerate() {
            let bytes = evolve::encode(&bw, sample).unwrap();
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            input.push_str(&serde_json::json!({"writer": bw.text, "reader": br.text, "hex": hex}).to_string());
            input.push('\n');
            ours.push((format!("{case} {dir} sample {i}"), evolve::decode(&bw, &br, &bytes)));
        }
    }
    let mut child = Command::new("python3").arg(&script).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), ours.len());
    let (mut accepted, mut refused) = (0, 0);
    for ((at, mine), theirs) in ours.iter().zip(&lines) {
        match (mine, theirs.get("ok")) {
            (Ok(v), Some(rec)) => {
                let rec = Value::from_json_str(&rec.to_string()).unwrap();
                let Value::Map(fs) = &rec else { panic!("{at}") };
                for (k, x) in fs {
                    let got = match v {
                        Value::Map(p) => p.iter().find(|(n, _)| n == k).map(|(_, y)| y.clone()).unwrap_or(Value::Null),
                        _ => Value::Null,
                    };
                    assert!(
                        evolve::same(x, &got) || (x == &Value::Null && got == Value::Null),
                        "{at}: field {k}: fastavro {x:?}, ours {got:?}"
                    );
                }
                accepted += 1;
            }
            (Err(e), None) => {
                assert!(theirs.get("error").is_some(), "{at}");
                let _ = e;
                refused += 1;
            }
            (mine, _) => panic!("{at}: ours {mine:?}, fastavro {theirs}"),
        }
    }
    assert!(accepted > 50 && refused > 20, "{accepted} accepted, {refused} refused");
}

/// What public schemas showed (Meshtastic's telemetry.proto from 0.1.6 to 0.1.9: proto3 fields
/// that gained `optional`, float32 fields): a presence change is found and named; float32 values
/// are compared as float32 (JSON's shortest form reads back exactly); a member @optional on one
/// side only is refused by the positional CDR rows, never read silently wrong.
#[test]
fn presence_changes_and_float32_fields_read_as_their_readers_do() {
    use evolve::{EvoField, EvoSchema, Kind};
    let f = |name: &str, tag, kind, optional| EvoField { name: name.into(), tag, kind, optional, aliases: vec![] };
    let v1 = EvoSchema {
        name: "M".into(),
        fields: vec![
            f("level", 1, Kind::Int { bits: 32, signed: false }, false),
            f("v", 2, Kind::Float { bits: 32 }, false),
        ],
    };
    let mut v2 = v1.clone();
    v2.fields[0].optional = true;
    v2.fields.push(f("up", 3, Kind::Int { bits: 32, signed: false }, true));
    let case = evolve::user_case(v1, v2);
    assert_eq!(case.name, "presence+add-optional");
    let m = evolve::run(vec![case], &Format::ALL, 8).unwrap();
    assert!(m.cells.iter().all(|c| c.verdict != Verdict::SilentlyWrong), "{:?}", m.cells[0]);
    let json = m.cells.iter().find(|c| c.format == Format::Json && c.direction == "old→new").unwrap();
    assert_eq!(json.verdict, Verdict::OkWithDefaults, "{}", evolve::detail(json));
    let app = m.cells.iter().find(|c| c.format == Format::Xcdr2Appendable && c.direction == "new→old").unwrap();
    assert_eq!(app.verdict, Verdict::Refused);
    assert!(app.error.as_deref().unwrap_or("").contains("@optional on one side only"));
}
