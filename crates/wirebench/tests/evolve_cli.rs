//! `wirebench evolve`: the built-in matrix, a user's pair of .proto files, the JSON output and
//! bad input.

mod common;

use common::*;

#[test]
fn builtin_matrix_lists_the_dangerous_cells_first() {
    let out = wb().args(["evolve", "--builtin", "--samples", "4", "-o", "md"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let recommendation = text.find("**Recommendation: avro — never silently wrong here").expect("recommendation");
    let wrong = text.find("### Silently wrong").expect("silently wrong section");
    let refused = text.find("### Refused by the reader").expect("refused section");
    let matrix = text.find("### Matrix").expect("matrix");
    assert!(recommendation < wrong && wrong < refused && refused < matrix, "{text}");
    assert!(text.contains("- thrift · reorder · old→new: 4/4 samples wrong: "), "{text}");
    assert!(text.contains("| reorder | old→new | ok | ok | WRONG | refused |"), "{text}");
    assert!(text.contains("- uadp (14): remove old→new, "), "{text}");
    assert!(text.contains("### Byte cost of evolvability"));
    // The terminal shows the same section; the CSV has a row per cell.
    let out = wb().args(["evolve", "--builtin", "--samples", "2", "-o", "csv"]).output().unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("format,change,direction,verdict,samples,refused,wrong,lossy,defaulted,detail\n"), "{csv}");
    assert_eq!(csv.lines().filter(|l| l.contains(",old→new,") || l.contains(",new→old,")).count(), 240);
}

#[test]
fn a_users_proto_pair_is_diffed_and_run() {
    let d = TempDir::new("evolve-proto");
    let a = d.0.join("v1.proto");
    let b = d.0.join("v2.proto");
    std::fs::write(&a, "syntax = \"proto3\";\nmessage M {\n  int32 id = 1;\n  double t = 2;\n}\n").unwrap();
    std::fs::write(
        &b,
        "syntax = \"proto3\";\nmessage M {\n  double temp = 2;\n  int64 id = 1;\n  optional string unit = 3;\n}\n",
    )
    .unwrap();
    let out = wb()
        .args(["evolve", "--from"])
        .arg(&a)
        .arg("--to")
        .arg(&b)
        .args(["--formats", "protobuf,avro,cdr-xcdr2-mutable", "-o", "json", "--out"])
        .arg(d.0.join("e.json"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let results: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &results["evolve"];
    let changes: Vec<&str> =
        v["cases"][0]["changes"].as_array().unwrap().iter().map(|c| c["change"].as_str().unwrap()).collect();
    // (The model of a .proto lists fields by number: a .proto's declaration order is no change.)
    for c in ["rename", "widen", "add-optional"] {
        assert!(changes.contains(&c), "{c} in {changes:?}");
    }
    assert_eq!(v["cells"].as_array().unwrap().len(), 6);
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(d.0.join("e.json")).unwrap()).unwrap();
    assert_eq!(file, results);
    // Protobuf reads the renamed field by its number; Avro by name, so it cannot.
    let cell = |f: &str, dir: &str| {
        v["cells"].as_array().unwrap().iter().find(|c| c["format"] == f && c["direction"] == dir).unwrap()["verdict"]
            .clone()
    };
    assert_eq!(cell("avro", "old→new"), "refused");
    assert_ne!(cell("protobuf", "old→new"), "refused");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    expect_bad_args(&["evolve"], &["--builtin"]);
    expect_bad_args(&["evolve", "--builtin", "--formats", "nope"], &["--formats", "nope", "protobuf"]);
    expect_bad_args(
        &["evolve", "--from", "/nonexistent/v1.proto", "--to", "/nonexistent/v2.proto"],
        &["/nonexistent/v1.proto"],
    );
    let d = TempDir::new("evolve-bad");
    let a = d.0.join("v1.json");
    std::fs::write(&a, r#"{"root":{"type":"record","name":"R","fields":[{"name":"p","of":{"type":"record","name":"P","fields":[]}}]}}"#).unwrap();
    expect_bad_input(
        wb().args(["evolve", "--from"]).arg(&a).arg("--to").arg(&a),
        &["v1.json", "field p", "flat records"],
    );
}

#[test]
fn a_study_runs_evolve_on_its_own_pair_of_schemas() {
    let d = TempDir::new("evolve-study");
    std::fs::write(
        d.0.join("v1.avsc"),
        r#"{"type":"record","name":"R","fields":[{"name":"id","type":"int"},{"name":"battery","type":"int"}]}"#,
    )
    .unwrap();
    std::fs::write(
        d.0.join("v2.avsc"),
        r#"{"type":"record","name":"R","fields":[{"name":"id","type":"int"},
            {"name":"battery_mv","type":"int","aliases":["battery"]}]}"#,
    )
    .unwrap();
    // Paths in a study are relative to the study file's folder.
    let study = d.0.join("study.toml");
    std::fs::write(
        &study,
        "[study]\nname = \"evo\"\ntitle = \"evo\"\n\n[evolve]\nfrom = \"v1.avsc\"\nto = \"v2.avsc\"\nsamples = 3\nformats = [\"avro\", \"uadp\", \"json\"]\n",
    )
    .unwrap();
    let out_dir = d.0.join("out");
    let out = wb().arg("run").arg(&study).arg("--out-dir").arg(&out_dir).current_dir("/").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("results.json")).unwrap()).unwrap();
    let e = &results["evolve"];
    assert_eq!(e["cells"].as_array().unwrap().len(), 6);
    let avro = e["cells"].as_array().unwrap().iter().find(|c| c["format"] == "avro" && c["direction"] == "old→new");
    assert_eq!(avro.unwrap()["verdict"], "ok", "the reader's alias names the old field: {e}");
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(md.contains("## Schema evolution") && md.contains("### Matrix"), "{md}");
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    assert!(html.contains("Schema evolution"));
    // A bad row is refused before anything runs.
    std::fs::write(&study, "[study]\nname = \"evo\"\ntitle = \"evo\"\n\n[evolve]\nformats = [\"nope\"]\n").unwrap();
    expect_bad_input(wb().arg("run").arg(&study).arg("--out-dir").arg(d.0.join("out2")), &["nope", "protobuf"]);
}
