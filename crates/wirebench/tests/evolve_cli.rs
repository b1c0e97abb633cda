//! `wirebench evolve`: the built-in matrix, a user's pair of .proto files, the JSON output and
//! bad input.

mod common;

use common::*;

#[test]
fn builtin_matrix_lists_the_dangerous_cells_first() {
    let out = wb().args(["evolve", "--builtin", "--samples", "4"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let wrong = text.find("### Silently wrong").expect("silently wrong section");
    let refused = text.find("### Refused by the reader").expect("refused section");
    let matrix = text.find("### Matrix").expect("matrix");
    assert!(wrong < refused && refused < matrix, "{text}");
    assert!(text.contains("- thrift · reorder · old→new: 4/4 samples wrong: "), "{text}");
    assert!(text.contains("| reorder | old→new | ok | ok | WRONG |"), "{text}");
    assert!(text.contains("### Byte cost of evolvability"));
    assert!(text.contains("**Recommendation**: "));
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
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let changes: Vec<&str> =
        v["cases"][0]["changes"].as_array().unwrap().iter().map(|c| c["change"].as_str().unwrap()).collect();
    // (The model of a .proto lists fields by number: a .proto's declaration order is no change.)
    for c in ["rename", "widen", "add-optional"] {
        assert!(changes.contains(&c), "{c} in {changes:?}");
    }
    assert_eq!(v["cells"].as_array().unwrap().len(), 6);
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(d.0.join("e.json")).unwrap()).unwrap();
    assert_eq!(file, v);
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
