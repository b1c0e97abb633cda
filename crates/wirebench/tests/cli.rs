//! The command line as a user meets it: outputs, round trips through every codec, and the
//! one-line errors with exit code 2 for bad input.

use wirebench_core::fidelity::compare;
use wirebench_core::Value;

mod common;
use common::*;

const TEST10: &str =
    r#"{"string":"test","double":1.03,"long":1351824120,"pos":1,"neg":-2,"bool":true,"array":[48.75,2.3]}"#;

#[test]
fn size_on_the_paper_corpus_gives_the_published_pson_and_json_sizes() {
    let out = wb().args(["size", "--corpus", "pson-paper", "--formats", "pson,json", "-o", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["schema"], "wirebench-results/1");
    assert!(r["provenance"]["git_commit"].as_str().unwrap().len() >= 7);
    assert!(r["provenance"]["crates"].as_array().unwrap().len() >= 5);
    let rows = r["size"]["rows"].as_array().unwrap();
    let sizes = |c: &str| -> Vec<u64> {
        rows.iter().filter(|x| x["codec"] == c).map(|x| x["bytes"].as_u64().unwrap()).collect()
    };
    assert_eq!(sizes("pson"), [43, 182, 290, 75, 7, 6, 6, 17, 13, 77]);
    assert_eq!(sizes("json"), [53, 190, 324, 49, 13, 10, 9, 15, 17, 98]);
}

#[test]
fn size_outputs_table_markdown_csv() {
    let table = wb().args(["size", "-f", "pson,json,cbor"]).output().unwrap();
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.contains("Encoded size (bytes)") && text.contains("Test10"), "{text}");
    let md = wb().args(["size", "-f", "pson", "-o", "md"]).output().unwrap();
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.contains("| payload | pson |") && md.contains("| Test01 | 43 |"), "{md}");
    let csv = wb().args(["size", "-f", "pson", "-o", "csv"]).output().unwrap();
    let csv = String::from_utf8(csv.stdout).unwrap();
    assert!(csv.starts_with("payload,codec,path,bytes,"), "{csv}");
    assert!(csv.contains("\nTest01,pson,dynamic,43,53,"), "{csv}");
    assert_eq!(csv.lines().count(), 11);
}

#[test]
fn every_codec_round_trips_through_encode_and_decode() {
    let dir = tmpdir("rt");
    let input = dir.join("t10.json");
    std::fs::write(&input, TEST10).unwrap();
    let schema = dir.join("t10.schema.json");
    wb().args(["schema", input.to_str().unwrap(), "--out", schema.to_str().unwrap()]).assert().success();
    let original = Value::from_json_str(TEST10).unwrap();
    let list = wb().args(["codecs", "-o", "json"]).output().unwrap();
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let ids: Vec<String> = list.as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap().to_string()).collect();
    assert!(ids.len() >= 11, "{ids:?}");
    for id in &ids {
        let encoded = wb()
            .args(["encode", "-f", id, "--schema", schema.to_str().unwrap(), input.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(encoded.status.success(), "{id}: {}", String::from_utf8_lossy(&encoded.stderr));
        let decoded = wb()
            .args(["decode", "-f", id, "--schema", schema.to_str().unwrap()])
            .write_stdin(encoded.stdout)
            .output()
            .unwrap();
        assert!(decoded.status.success(), "{id}: {}", String::from_utf8_lossy(&decoded.stderr));
        let back = Value::from_json_str(std::str::from_utf8(&decoded.stdout).unwrap()).unwrap();
        let losses = compare(&original, &back);
        // Protoson's float rule is lossy by design; every other codec is exact on Test10.
        if id == "protoson" {
            assert!(losses.iter().all(|l| l.contains("float")), "{id}: {losses:?}");
        } else {
            assert!(losses.is_empty(), "{id}: {losses:?}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pson_bytes_use_the_marker_and_encode_is_byte_exact() {
    let out = wb().args(["encode", "-f", "pson"]).write_stdin(r#"{"b":{"$bytes":"00ff7f"}}"#).output().unwrap();
    assert_eq!(out.stdout, [0xc1, 0x81, b'b', 0xa3, 0x00, 0xff, 0x7f]);
    let back = wb().args(["decode", "-f", "pson"]).write_stdin(out.stdout).output().unwrap();
    assert_eq!(String::from_utf8(back.stdout).unwrap(), "{\"b\":{\"$bytes\":\"00ff7f\"}}\n");
}

#[test]
fn bad_input_is_one_line_with_location_and_exit_2() {
    let dir = tmpdir("bad");
    let bad_json = dir.join("bad.json");
    std::fs::write(&bad_json, "{\"a\": [1,\n 2,,]}").unwrap();
    // Malformed JSON names file, line and column.
    expect_bad_input(wb().args(["encode", "-f", "pson", bad_json.to_str().unwrap()]), &["bad.json:2:"]);
    expect_bad_input(wb().args(["size", "--samples", bad_json.to_str().unwrap()]), &["bad.json:2:"]);
    // Unknown format and corpus.
    expect_bad_input(wb().args(["encode", "-f", "nope"]).write_stdin("1"), &["unknown format \"nope\"", "pson"]);
    expect_bad_input(wb().args(["size", "--corpus", "nope"]), &["unknown corpus"]);
    expect_bad_input(wb().args(["size", "-f", "json,nope"]), &["unknown format"]);
    // A near miss gets the name it probably meant; the known corpora are listed once each.
    expect_bad_input(wb().args(["encode", "-f", "msgpak"]).write_stdin("1"), &["did you mean \"msgpack\"?"]);
    let out = wb().args(["size", "--corpus", "pson-papr"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean \"pson-paper\"?") && err.matches("ev-telemetry").count() == 1, "{err}");
    // An integer beyond 64 bits is refused where it stands, not read as a float (samples too).
    expect_bad_input(
        wb().args(["encode", "-f", "cbor"]).write_stdin("{\"a\":\n 18446744073709551616}"),
        &["<stdin>:2:2: integer 18446744073709551616 does not fit in 64 bits"],
    );
    let wide = dir.join("wide.ndjson");
    std::fs::write(&wide, "{\"a\":1}\n{\"a\":-9223372036854775809}\n").unwrap();
    expect_bad_input(
        wb().args(["size", "--samples", wide.to_str().unwrap()]),
        &["wide.ndjson:2:6: integer -9223372036854775809 does not fit in 64 bits"],
    );
    // Samples and study files that are not UTF-8 name the line and column of the first bad byte.
    let latin1 = dir.join("latin1.ndjson");
    std::fs::write(&latin1, b"{\"t\":1}\n{\"city\":\"K\xf6ln\"}\n").unwrap();
    expect_bad_input(
        wb().args(["size", "--samples", latin1.to_str().unwrap()]),
        &["latin1.ndjson:2:11: not UTF-8 text (byte 0xf6)"],
    );
    let study = dir.join("latin1.toml");
    std::fs::write(&study, b"# K\xf6ln\n[size]\n").unwrap();
    expect_bad_input(wb().args(["run", study.to_str().unwrap()]), &["latin1.toml:1:4: not UTF-8 text (byte 0xf6)"]);
    // A value that does not fit the schema names the path.
    let schema = dir.join("s.json");
    std::fs::write(
        &schema,
        r#"{"root":{"type":"record","name":"R","fields":[{"name":"a","of":{"type":"int","bits":8,"signed":false}}]}}"#,
    )
    .unwrap();
    for f in ["protobuf", "avro", "thrift"] {
        expect_bad_input(
            wb().args(["encode", "-f", f, "--schema", schema.to_str().unwrap()]).write_stdin(r#"{"a":300}"#),
            &["$.a", "uint8"],
        );
    }
    // Truncated and garbage binaries: the byte offset.
    expect_bad_input(wb().args(["decode", "-f", "pson"]).write_stdin(vec![0x84, 0x61]), &["at byte 2"]);
    expect_bad_input(wb().args(["decode", "-f", "pson"]).write_stdin(vec![0xc1, 0x01, 0x01]), &["at byte 1"]);
    expect_bad_input(wb().args(["decode", "-f", "pson"]).write_stdin(vec![0x61, 0x61]), &["trailing", "at byte 1"]);
    for f in ["cbor", "msgpack", "bson", "json", "yaml", "xml", "protoson"] {
        expect_bad_input(wb().args(["decode", "-f", f]).write_stdin(vec![0xff, 0x00, 0x13, 0x37, 0xc1]), &[f]);
    }
    for f in ["protobuf", "avro", "thrift"] {
        expect_bad_input(
            wb().args(["decode", "-f", f, "--schema", schema.to_str().unwrap()]).write_stdin(vec![0xff, 0xff, 0xff]),
            &[f],
        );
    }
    // Schema-driven decode without a schema; a schema file that is not one.
    expect_bad_input(wb().args(["decode", "-f", "protobuf"]).write_stdin(vec![8, 1]), &["needs --schema"]);
    expect_bad_input(
        wb().args(["encode", "-f", "avro", "--schema", bad_json.to_str().unwrap()]).write_stdin("{}"),
        &["bad.json:"],
    );
    // Results file into a directory that does not exist: error before measuring, no file; the
    // environment's failure (exit 1), as `schema --out` into it.
    let missing = dir.join("missing/r.json");
    expect_env_error(wb().args(["size", "--out", missing.to_str().unwrap()]), &["does not exist"]);
    let good = dir.join("good.json");
    std::fs::write(&good, TEST10).unwrap();
    expect_env_error(wb().args(["schema", "--out", missing.to_str().unwrap(), good.to_str().unwrap()]), &["missing"]);
    assert!(!missing.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn samples_stream_with_aggregates_and_results_file() {
    let dir = tmpdir("samples");
    let nd = dir.join("s.ndjson");
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!("{{\"id\":{i},\"t\":{}.5,\"ok\":{}}}\n", i % 40, i % 2 == 0));
    }
    std::fs::write(&nd, text).unwrap();
    let out_file = dir.join("r.json");
    let out = wb()
        .args([
            "size",
            "--samples",
            nd.to_str().unwrap(),
            "-f",
            "json,pson,protobuf",
            "--out",
            out_file.to_str().unwrap(),
            "-o",
            "csv",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("codec,records,encoded,bytes_total"), "{csv}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    let aggs = r["size"]["aggregates"].as_array().unwrap();
    assert!(r["size"]["rows"].as_array().unwrap().is_empty());
    for a in aggs {
        assert_eq!(a["records"], 200, "{a}");
        assert_eq!(a["exact"], 200, "{a}");
    }
    assert_eq!(r["size"]["run"]["records"], 200);
    assert!(r["size"]["schema"]["root"]["type"] == "record");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// By default `size --samples` checks the round trip of a sample and of every message that
/// brings a new value class: the one float among 6,000 that float32 cannot hold (off the
/// systematic sample) is found lossy in Protoson, and `--roundtrip all` agrees.
#[test]
fn sampled_round_trip_finds_the_one_rare_value() {
    let dir = tmpdir("novel");
    let nd = dir.join("s.ndjson");
    let text: String = (0..6000)
        .map(|i| format!("{{\"id\":{},\"v\":{}}}\n", i % 100, if i == 4321 { "0.1" } else { "1.5" }))
        .collect();
    std::fs::write(&nd, text).unwrap();
    let run = |extra: &[&str]| -> serde_json::Value {
        let out = wb()
            .args(["size", "-f", "protoson,json", "-o", "json", "--samples"])
            .arg(&nd)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let sampled = run(&[]);
    let pro = &sampled["size"]["aggregates"][0];
    // Every 3rd message (2,000), and the one that brings the new float class.
    assert_eq!((pro["lossy"].as_u64(), pro["exact"].as_u64()), (Some(1), Some(2000)), "{pro}");
    assert_eq!(pro["unchecked"], 6000 - 2001);
    assert!(pro["first_issue"].as_str().unwrap().contains("s.ndjson:4322"), "{pro}");
    assert_eq!(sampled["size"]["roundtrip_new_classes"], 1);
    let all = run(&["--roundtrip", "all"]);
    let pro = &all["size"]["aggregates"][0];
    assert_eq!((pro["lossy"].as_u64(), pro["exact"].as_u64()), (Some(1), Some(5999)), "{pro}");
    assert!(all["size"].get("roundtrip_new_classes").is_none());
    let table = wb().args(["size", "-f", "protoson", "--samples"]).arg(&nd).output().unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(
        table.contains("2001 of 6000 encoded messages checked") && table.contains("1 that brought a value class"),
        "{table}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A short speed run: typed path, raw samples kept, ratios to the baseline, zero allocations
/// for PSON encoding into a reused buffer, and `compare` of two runs.
#[test]
fn speed_runs_and_compares() {
    let dir = tmpdir("speed");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    for out in [&a, &b] {
        let o = wb()
            .args(["speed", "-f", "json,pson,msgpack", "--rounds", "10", "--sample-ms", "0.05", "--warmup-ms", "0"])
            .args(["--out", out.to_str().unwrap(), "-o", "csv"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let csv = String::from_utf8(o.stdout).unwrap();
        assert!(csv.starts_with("payload,codec,op,path,buffer,bytes,median_ns"), "{csv}");
        // 10 payloads × 3 codecs × encode/decode × typed/dynamic path.
        assert_eq!(csv.lines().count(), 1 + 10 * 3 * 2 * 2);
    }
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let cases = r["speed"]["cases"].as_array().unwrap();
    let case = |codec: &str, op: &str, path: &str| {
        cases
            .iter()
            .find(|c| c["codec"] == codec && c["op"] == op && c["payload"] == "Test01" && c["path"] == path)
            .unwrap()
    };
    let pson_enc = case("pson", "encode", "typed");
    // The dynamic path beside it: same bytes, no allocation either, its ratio against JSON's
    // dynamic path.
    let pson_dyn = case("pson", "encode", "dynamic");
    assert_eq!(pson_dyn["bytes"], 43);
    assert_eq!(pson_dyn["allocs_per_op"], 0.0);
    assert_eq!(case("json", "encode", "dynamic")["ratio_to_baseline"], 1.0);
    assert_eq!(pson_enc["buffer"], "reused");
    assert_eq!(pson_enc["bytes"], 43);
    assert_eq!(pson_enc["samples_ns"].as_array().unwrap().len(), 10);
    assert_eq!(pson_enc["allocs_per_op"], 0.0, "encoding into a reused buffer allocates nothing");
    let json_enc = case("json", "encode", "typed");
    assert_eq!(json_enc["ratio_to_baseline"], 1.0);
    assert!(r["speed"]["timer"]["precision_ns"].as_f64().unwrap() > 0.0);
    let cmp = wb().args(["compare", a.to_str().unwrap(), b.to_str().unwrap()]).output().unwrap();
    assert!(cmp.status.success(), "{}", String::from_utf8_lossy(&cmp.stderr));
    let text = String::from_utf8(cmp.stdout).unwrap();
    assert!(text.contains("verdict") && text.contains("(of 120 cases)"), "{text}");
    // The agreement figure and the host reference of both runs.
    assert!(text.contains("Medians within ±5%, cases of 100 ns or more:"), "{text}");
    assert!(text.contains("Host reference change:"), "{text}");
    let h = &r["speed"]["host_reference"];
    assert!(h["ns_per_op"]["median"].as_f64().unwrap() > 0.0, "{h}");
    assert_eq!(h["samples_ns"].as_array().unwrap().len(), 10);
    // Machine-readable: -o json is the whole comparison as JSON; -o csv is the table alone, one
    // row per case, numbers as numbers, a path column (typed and dynamic cases are distinct),
    // and the summary on stderr.
    let js = wb().args(["compare", a.to_str().unwrap(), b.to_str().unwrap(), "-o", "json"]).output().unwrap();
    assert!(js.status.success(), "{}", String::from_utf8_lossy(&js.stderr));
    let js: serde_json::Value = serde_json::from_slice(&js.stdout).expect("compare -o json is JSON");
    let cases = js["comparison"]["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 120);
    assert!(
        cases.iter().all(|c| c["old_ns"].is_number() && c["ci"][0].is_number() && c["path"].is_string()),
        "{}",
        cases[0]
    );
    let csv = wb().args(["compare", a.to_str().unwrap(), b.to_str().unwrap(), "-o", "csv"]).output().unwrap();
    assert!(csv.status.success());
    assert!(String::from_utf8_lossy(&csv.stderr).contains("(of 120 cases)"), "the summary goes to stderr");
    let csv = String::from_utf8(csv.stdout).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[..4], ["payload", "codec", "op", "path"]);
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 120, "one row per case, nothing else: {csv}");
    for col in ["old_ns", "new_ns", "change_ratio", "ci_low_ratio", "ci_high_ratio"] {
        let i = header.iter().position(|h| *h == col).unwrap();
        assert!(rows.iter().all(|r| r[i].parse::<f64>().is_ok()), "{col} numeric");
    }
    let keys: std::collections::HashSet<(&str, &str, &str, &str)> =
        rows.iter().map(|r| (r[0], r[1], r[2], r[3])).collect();
    assert_eq!(keys.len(), 120, "no two rows look alike");
    // A file compared with itself agrees exactly.
    let same = wb().args(["compare", a.to_str().unwrap(), a.to_str().unwrap()]).output().unwrap();
    let same = String::from_utf8(same.stdout).unwrap();
    assert!(same.contains("(100.0%); median change +0.0%") && same.contains("Host reference change: +0.0%"), "{same}");
    // --fail-on-regression: a file against itself passes; a case made twice as slow fails
    // (exit 1, named); a host reference that moved gives no verdict (exit 3).
    wb().args(["compare", a.to_str().unwrap(), a.to_str().unwrap(), "--fail-on-regression", "5"]).assert().success();
    let doctored = |f: &dyn Fn(&mut serde_json::Value), name: &str| {
        let mut v = r.clone();
        f(&mut v);
        let p = dir.join(name);
        std::fs::write(&p, serde_json::to_string(&v).unwrap()).unwrap();
        p
    };
    let scale = |x: &mut serde_json::Value, k: f64| {
        for s in x["samples_ns"].as_array_mut().unwrap() {
            *s = serde_json::json!(s.as_f64().unwrap() * k);
        }
        x["ns_per_op"]["median"] = serde_json::json!(x["ns_per_op"]["median"].as_f64().unwrap() * k);
    };
    let slow = doctored(
        &|v| {
            let c = v["speed"]["cases"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|c| c["codec"] == "pson" && c["op"] == "encode" && c["payload"] == "Test01")
                .unwrap();
            scale(c, 2.0);
        },
        "slow.json",
    );
    let out = wb()
        .args(["compare", a.to_str().unwrap(), slow.to_str().unwrap(), "--fail-on-regression", "5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("1 case(s) slower by more than 5 % beyond noise: Test01/pson/encode +100.0 %"), "{err}");
    let moved = doctored(&|v| scale(&mut v["speed"]["host_reference"], 1.5), "moved.json");
    let out = wb()
        .args(["compare", a.to_str().unwrap(), moved.to_str().unwrap(), "--fail-on-regression", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no verdict: the host reference itself changed by +50.0 %"));
    // Case warnings are grouped by cause: one line with the count, not one per case.
    let noisy = doctored(
        &|v| {
            for (i, c) in v["speed"]["cases"].as_array_mut().unwrap().iter_mut().take(5).enumerate() {
                c["warnings"] = serde_json::json!([format!("high variance: CV {}.5% over 10 samples", 10 + i)]);
            }
        },
        "noisy.json",
    );
    let rep = wb().args(["report", noisy.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&rep.stdout);
    assert!(rep.status.success(), "{}", String::from_utf8_lossy(&rep.stderr));
    assert_eq!(text.matches("high variance").count(), 1, "{text}");
    assert!(text.contains("5 cases: high variance: CV 10.5% over 10 samples (figures vary; "), "{text}");
    // -f all is every codec, as for the other commands.
    let all = wb().args(["size", "-f", "all", "-o", "csv"]).output().unwrap();
    assert!(
        all.status.success() && String::from_utf8_lossy(&all.stdout).contains("uadp-json-rev"),
        "{}",
        String::from_utf8_lossy(&all.stderr)
    );
    // A size results file has no speed section: a clear error.
    let s = dir.join("size.json");
    wb().args(["size", "-f", "pson", "--out", s.to_str().unwrap()]).assert().success();
    expect_bad_input(wb().args(["compare", s.to_str().unwrap(), b.to_str().unwrap()]), &["no speed section"]);
    expect_bad_input(wb().args(["speed", "--samples-per-case", "3"]), &["too few"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Instruction counts under callgrind are identical between two runs, also for Avro, whose
/// library builds a hash table (seeded from the OS) on every record it encodes: the callgrind
/// child gets fixed random bytes.
#[test]
fn instruction_counts_are_deterministic() {
    if std::process::Command::new("valgrind").arg("--version").output().is_err() {
        panic!("valgrind is required for this test (apt-get install valgrind)");
    }
    let run = || {
        let o = wb()
            .args([
                "speed",
                "-f",
                "pson,json,avro",
                "--samples-per-case",
                "10",
                "--sample-ms",
                "0.02",
                "--warmup-ms",
                "0",
                "--instructions",
                "-o",
                "json",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        r["speed"]["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["payload"].as_str().unwrap().to_string(),
                    c["op"].as_str().unwrap().to_string(),
                    c["instructions_per_op"].as_f64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    let (a, b) = (run(), run());
    assert_eq!(a, b);
    assert!(a.iter().all(|(_, _, n)| *n > 10.0), "{a:?}");
}

/// A study file runs its parts, writes one results file and both reports; rendering the
/// results file again gives the same pages; a malformed study names the line and column.
#[test]
fn run_study_and_rerender() {
    let dir = tmpdir("study");
    let study = dir.join("s.toml");
    std::fs::write(
        &study,
        r#"[study]
name = "t"
title = "A test study"

[size]
corpus = "pson-paper"
formats = ["json", "pson"]

[speed]
formats = ["json", "pson"]
samples_per_case = 10
sample_ms = 0.05
warmup_ms = 0.0
"#,
    )
    .unwrap();
    let out = dir.join("out");
    let o = wb().args(["run", study.to_str().unwrap(), "--out", out.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("Encoded size") && text.contains("Speed"), "{text}");
    let results = out.join("results.json");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    assert!(r["size"].is_object() && r["speed"].is_object());
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("A test study"));
    let again = wb().args(["report", results.to_str().unwrap(), "-o", "html"]).output().unwrap();
    assert_eq!(String::from_utf8(again.stdout).unwrap(), html, "re-rendering gives the same page");
    let md = wb().args(["report", results.to_str().unwrap(), "-o", "md"]).output().unwrap();
    assert_eq!(String::from_utf8(md.stdout).unwrap(), std::fs::read_to_string(out.join("report.md")).unwrap());
    // Malformed and unknown studies.
    std::fs::write(&study, "[study]\nname = \"t\"\ntitle = 3\n").unwrap();
    expect_bad_input(wb().args(["run", study.to_str().unwrap()]), &["s.toml:3:"]);
    std::fs::write(&study, "[study]\nname = \"t\"\ntitle = \"x\"\n[nope]\n").unwrap();
    expect_bad_input(wb().args(["run", study.to_str().unwrap()]), &["s.toml:4:", "nope"]);
    std::fs::write(&study, "[study]\nname = \"t\"\ntitle = \"x\"\n").unwrap();
    expect_bad_input(wb().args(["run", study.to_str().unwrap()]), &["no part"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A key named twice is bad input with its line and column, in every path that reads JSON
/// (it used to become two fields and read back as `{"a":1,"a":1}` through schema codecs).
#[test]
fn duplicate_keys_are_bad_input() {
    for f in ["protobuf", "avro", "thrift", "cdr-xcdr2", "uadp", "json"] {
        expect_bad_input(
            wb().args(["encode", "-f", f]).write_stdin("{\"a\":1,\"a\":2}"),
            &["<stdin>:1:10", "duplicate key \"a\""],
        );
    }
    let dir = TempDir::new("dupkeys");
    let file = dir.0.join("r.ndjson");
    std::fs::write(&file, "{\"t\":1}\n{\"x\":{\"k\":1,\"k\":2}}\n").unwrap();
    expect_bad_input(wb().args(["size", "--samples", file.to_str().unwrap()]), &["r.ndjson:2:", "duplicate key \"k\""]);
}

/// Speed options that would exhaust memory or never finish are refused in one line (the study
/// table the same way), before anything runs.
#[test]
fn speed_options_out_of_range_are_refused() {
    for (flag, value, needle) in [
        ("--rounds", "100000000000", "too many"),
        // The old name still works.
        ("--samples-per-case", "100000000000", "--rounds 100000000000 is too many"),
        ("--sample-ms", "inf", "--sample-ms inf"),
        ("--sample-ms", "1e300", "at most"),
        ("--sample-ms", "NaN", "--sample-ms NaN"),
        ("--sample-ms", "-1", "more than 0"),
        ("--sample-ms", "0", "more than 0"),
        ("--warmup-ms", "inf", "--warmup-ms inf"),
        ("--warmup-ms", "-1", "--warmup-ms -1"),
    ] {
        expect_bad_args(&["speed", "-f", "json", &format!("{flag}={value}")], &[needle]);
    }
    let dir = TempDir::new("speedrange");
    let study = dir.0.join("s.toml");
    std::fs::write(&study, "[study]\nname = \"t\"\ntitle = \"t\"\n[speed]\nsample_ms = 1e300\n").unwrap();
    expect_bad_input(
        wb().args(["run", study.to_str().unwrap(), "--out", dir.0.join("o").to_str().unwrap()]),
        &["[speed]", "at most"],
    );
}

/// A study is checked whole before its first part runs; the output folder is claimed before
/// measuring; a part that fails at run time keeps the sections of the parts before it.
#[test]
fn studies_are_checked_whole_and_written_as_a_set() {
    let dir = TempDir::new("studyset");
    let study = dir.0.join("s.toml");
    let out = dir.0.join("o");
    let head = "[study]\nname = \"t\"\ntitle = \"t\"\n[size]\nformats = [\"json\", \"pson\"]\n";
    // A bad last part: one line, exit 2, the first part never starts, nothing written.
    for (last, needle) in [
        ("[tcp]\nformats = [\"jsn\"]\n", "[tcp]"),
        ("[link]\nradios = [\"lora-sf99\"]\n", "[link]"),
        ("[mqtt]\nqos = [7]\n", "[mqtt]"),
        ("[http]\nconnections = 0\n", "[http]"),
        ("[speed]\nsamples_per_case = 3\n", "[speed]"),
        ("[tcp]\nsamples = [\"missing.ndjson\"]\n", "missing.ndjson"),
    ] {
        std::fs::write(&study, format!("{head}{last}")).unwrap();
        let o = wb().args(["run", study.to_str().unwrap(), "--out", out.to_str().unwrap()]).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{last}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{last}: {stderr}");
        assert!(stderr.contains(needle) && stderr.contains("s.toml"), "{last}: {stderr}");
        assert!(!stderr.contains("[1/"), "no part started: {stderr}");
        assert!(!out.exists(), "{last}: nothing written");
    }
    // An output folder that cannot be claimed is refused before measuring.
    std::fs::write(&study, head).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("mine.txt"), "x").unwrap();
    expect_bad_input(wb().args(["run", study.to_str().unwrap(), "--out", out.to_str().unwrap()]), &["mine.txt"]);
    // One that cannot be written is the environment's failure (exit 1), as in every command.
    expect_env_error(
        wb().args(["run", study.to_str().unwrap(), "--out", "/proc/wirebench-cannot-write-here"]),
        &["/proc/wirebench-cannot-write-here"],
    );
    std::fs::remove_dir_all(&out).unwrap();
    // A part that fails while running (no broker listens on port 1): the size section and the
    // failure are written, the run exits non-zero.
    std::fs::write(&study, format!("{head}[mqtt]\nbrokers = [\"mqtt://127.0.0.1:1\"]\nfields = [1]\n")).unwrap();
    let o = wb().args(["run", study.to_str().unwrap(), "--out", out.to_str().unwrap()]).output().unwrap();
    assert!(!o.status.success());
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert!(r["size"].is_object(), "the finished part is kept");
    assert_eq!(r["failed_parts"][0]["part"], "mqtt", "{}", r["failed_parts"]);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("Parts that did not finish") && md.contains("| mqtt |"), "{md}");
    // A rerun never overwrites the previous run silently: the old set moves aside to
    // <folder>.<its start time>, said on stderr; --force replaces it as a whole.
    std::fs::write(&study, head).unwrap();
    let o = wb().args(["run", study.to_str().unwrap(), "--out", out.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("previous run kept: ") && stderr.contains("--force replaces it"), "{stderr}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert!(r.get("failed_parts").is_none(), "{r}");
    let names = || -> Vec<String> {
        std::fs::read_dir(&dir.0).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect()
    };
    let kept: Vec<String> = names().into_iter().filter(|n| n.starts_with("o.")).collect();
    assert_eq!(kept.len(), 1, "{:?}", names());
    let old: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.join(&kept[0]).join("results.json")).unwrap()).unwrap();
    assert_eq!(old["failed_parts"][0]["part"], "mqtt", "the kept set is the previous run");
    let o = wb().args(["run", study.to_str().unwrap(), "--out", out.to_str().unwrap(), "--force"]).output().unwrap();
    assert!(o.status.success() && !String::from_utf8_lossy(&o.stderr).contains("previous run kept"));
    assert_eq!(names().iter().filter(|n| n.starts_with("o.")).count(), 1, "--force keeps nothing more");
    assert!(names().iter().all(|n| !n.contains(".new-")), "no staging folder left: {:?}", names());
}

/// A study file's relative paths resolve against the file's folder, whatever the working
/// directory; built-in studies run by name from anywhere; an unknown name lists them.
#[test]
fn studies_run_from_any_directory() {
    let dir = TempDir::new("anydir");
    let study_dir = dir.0.join("study");
    let cwd = dir.0.join("elsewhere");
    std::fs::create_dir_all(study_dir.join("data")).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(study_dir.join("data/r.ndjson"), "{\"t\":21.5,\"id\":7}\n{\"t\":22.0,\"id\":8}\n").unwrap();
    std::fs::write(
        study_dir.join("s.toml"),
        "[study]\nname = \"rel\"\ntitle = \"relative samples\"\n[size]\nsamples = [\"data/r.ndjson\"]\nformats = [\"json\", \"pson\"]\n",
    )
    .unwrap();
    let o = wb().current_dir(&cwd).args(["run", "../study/s.toml", "--out", "o"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cwd.join("o/results.json")).unwrap()).unwrap();
    assert_eq!(r["size"]["aggregates"][0]["records"], 2, "{}", r["size"]);
    // A built-in study by its short name, from a folder with no studies/ in it.
    let o = wb().current_dir(&cwd).args(["run", "quickstart", "--out", "q"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cwd.join("q/results.json")).unwrap()).unwrap();
    assert_eq!(r["config"]["study"], "built in: studies/quickstart.toml");
    assert!(r["size"].is_object() && r["speed"].is_object());
    expect_bad_input(wb().current_dir(&cwd).args(["run", "seed999"]), &["seed999", "built in: quickstart, seed000"]);
}

/// `device` builds the C codecs for Cortex-M and counts instructions; the figures are real
/// (non-zero) and land in the results file.
#[test]
fn device_reports_code_size_and_instructions() {
    // From a folder outside the checkout: the C sources come from the binary, unpacked into the
    // cache folder.
    let dir = tmpdir("device");
    let out = dir.join("d.json");
    let o = wb()
        .current_dir(&dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .args(["device", "--codec-sizes", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("cortex-m0plus") && text.contains("Test10"), "{text}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let sizes = r["device"]["code_size"].as_array().unwrap();
    let pson_enc =
        sizes.iter().find(|x| x["cpu"] == "cortex-m4" && x["codec"] == "pson" && x["variant"] == "enc").unwrap();
    assert!(pson_enc["delta_text"].as_i64().unwrap() > 500, "{pson_enc}");
    let instr = r["device"]["instructions"].as_array().unwrap();
    assert_eq!(instr.len(), 10);
    assert!(instr.iter().all(|x| x["encode_instr"].as_i64().unwrap() > 50));
    assert!(dir.join("cache/wirebench").read_dir().unwrap().next().is_some(), "sources unpacked under XDG_CACHE_HOME");
    expect_bad_input(wb().args(["device", "--c-dir", dir.to_str().unwrap()]), &["no Makefile"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The device lab on the simulated ATmega328P: from a folder outside the checkout (sources from
/// the binary), two payloads through our PSON and msgpuck. Every row has figures, the bytes
/// are the payload's (checked inside the run by our host codecs), cycle counts are identical
/// between two runs (simavr is cycle-exact), and bad options are one-line errors.
#[test]
fn device_lab_avr_rows_are_exact_and_repeat() {
    let dir = tmpdir("device-lab");
    let run = |n: &str| -> serde_json::Value {
        let out = dir.join(format!("{n}.json"));
        let o = wb()
            .current_dir(&dir)
            .env("XDG_CACHE_HOME", dir.join("cache"))
            .args(["device", "--targets", "avr", "--libs", "pson,msgpuck", "--payloads", "Test01,Test06", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
    };
    let (a, b) = (run("a"), run("b"));
    let rows = a["device"]["lab"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{rows:?}");
    for r in rows {
        assert_eq!(r["status"], "ok", "{r}");
        assert!(r["encode_cycles"].as_u64().unwrap() > 50 && r["decode_cycles"].as_u64().unwrap() > 50, "{r}");
        assert!(r["flash"].as_u64().unwrap() > 500, "{r}");
    }
    // Test06 {"neg":-2}: 6 bytes in PSON (81 83 'neg' 21) and in MessagePack (81 a3 'neg' fe).
    for lib in ["pson", "msgpuck"] {
        let r = rows.iter().find(|r| r["lib"] == lib && r["payload"] == "Test06").unwrap();
        assert_eq!(r["bytes"], 6, "{r}");
    }
    let key = |v: &serde_json::Value| -> Vec<(String, u64, u64)> {
        v["device"]["lab"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    format!("{}/{}", r["lib"], r["payload"]),
                    r["encode_cycles"].as_u64().unwrap(),
                    r["decode_cycles"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(key(&a), key(&b), "AVR cycle counts differ between two runs");
    expect_bad_input(wb().args(["device", "--targets", "z80"]), &["unknown target", "avr"]);
    expect_bad_input(wb().args(["device", "--libs", "protobuf-c"]), &["unknown library", "nanopb"]);
    expect_bad_input(wb().args(["device", "--payloads", "Test99"]), &["Test99", "Test01"]);
    expect_bad_input(wb().args(["device", "--max-payloads", "0"]), &["max_payloads"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `transcode`: every valid UADP vector → JSON (reversible) → UADP gives the same bytes, and
/// the JSON survives a second trip unchanged; malformed input is a one-line error.
#[test]
fn transcode_uadp_json_both_ways() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/uadp.json");
    let vectors: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut checked = 0;
    for v in vectors.as_array().unwrap() {
        if v["encoding"] != "uadp" || v["spec"] != "valid" {
            continue;
        }
        // RawData needs DataSetMetaData, which transcode does not take.
        let raw =
            v["decoded"]["dataSetMessages"].as_array().into_iter().flatten().any(|m| m["fieldEncoding"] == "RawData");
        if raw {
            continue;
        }
        let bytes = wirebench_core::value::from_hex(v["hex"].as_str().unwrap()).unwrap();
        let pid = v["decoded"]["publisherId"]["type"].as_str().unwrap_or("String").to_string();
        let json = wb().args(["transcode", "--to", "json"]).write_stdin(bytes.clone()).output().unwrap();
        assert!(json.status.success(), "{}: {}", v["name"], String::from_utf8_lossy(&json.stderr));
        let back = wb()
            .args(["transcode", "--to", "uadp", "--publisher-id-type", &pid])
            .write_stdin(json.stdout.clone())
            .output()
            .unwrap();
        assert!(back.status.success(), "{}: {}", v["name"], String::from_utf8_lossy(&back.stderr));
        assert_eq!(back.stdout, bytes, "{}", v["name"]);
        let json2 = wb().args(["transcode", "--to", "json"]).write_stdin(back.stdout).output().unwrap();
        assert_eq!(json2.stdout, json.stdout, "{}", v["name"]);
        checked += 1;
    }
    assert!(checked >= 3, "{checked}");
    expect_bad_input(wb().args(["transcode", "--to", "json"]).write_stdin(vec![0xd1, 0x0c]), &["at byte"]);
    expect_bad_input(
        wb().args(["transcode", "--to", "uadp"]).write_stdin("{\"MessageId\": 3"),
        &["JSON NetworkMessage"],
    );
    expect_bad_input(wb().args(["transcode", "--to", "xml"]).write_stdin(""), &["expected uadp or json"]);
}

/// Terminal tables fit the terminal: a table wider than COLUMNS is printed in parts, each with
/// the row names; `--wide` prints it whole; output to a pipe without COLUMNS is never split.
#[test]
fn tables_fit_the_terminal_width_unless_wide() {
    let width = |out: &[u8]| String::from_utf8_lossy(out).lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let fit = wb().args(["size", "-f", "all"]).env("COLUMNS", "80").output().unwrap();
    assert!(fit.status.success());
    let text = String::from_utf8_lossy(&fit.stdout).to_string();
    assert!(width(&fit.stdout) <= 80, "{text}");
    assert!(text.contains("(columns 1–") && text.contains("--wide: all in one"), "{text}");
    // Every row name in every part, every format somewhere.
    let parts = text.lines().filter(|l| l.starts_with("payload ")).count();
    assert!(parts >= 2 && text.lines().filter(|l| l.starts_with("Test10 ")).count() == parts, "{text}");
    for f in ["json", "pson", "uadp-json-rev", "cdr-xcdr2"] {
        assert!(text.contains(f), "{f}");
    }
    let wide = wb().args(["size", "-f", "all", "--wide"]).env("COLUMNS", "80").output().unwrap();
    assert!(width(&wide.stdout) > 80);
    assert!(!String::from_utf8_lossy(&wide.stdout).contains("(columns "));
    let piped = wb().args(["size", "-f", "all"]).env_remove("COLUMNS").output().unwrap();
    assert!(width(&piped.stdout) > 80);
    assert!(!String::from_utf8_lossy(&piped.stdout).contains("(columns "));
}

/// One meaning per option name: `run --out-dir` is a folder (`--out` still accepted), speed's
/// measurement count is `--rounds` (`--samples-per-case` and the study key `samples_per_case`
/// still accepted), so `--samples` always means input files.
#[test]
fn renamed_options_keep_their_old_names() {
    let dir = TempDir::new("renamed");
    for flag in ["--out-dir", "--out"] {
        let out = dir.0.join(flag.trim_start_matches('-'));
        let r = wb().args(["run", "quickstart", flag]).arg(&out).output().unwrap();
        assert!(r.status.success(), "{flag}: {}", String::from_utf8_lossy(&r.stderr));
        assert!(out.join("results.json").is_file(), "{flag}");
    }
    let help = wb().args(["speed", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--rounds") && help.contains("[alias: --samples-per-case]"), "{help}");
    expect_bad_args(&["speed", "--rounds", "3"], &["--rounds 3 is too few"]);
    expect_bad_args(&["speed", "--samples-per-case", "3"], &["--rounds 3 is too few"]);
}

/// Colour: never on a pipe by default; `--color always` colours the error line and puts table
/// titles in bold; `--color never` and NO_COLOR keep everything plain.
#[test]
fn colour_follows_the_color_option_and_no_color() {
    let plain = wb().args(["size", "-f", "json,pson"]).output().unwrap();
    assert!(!plain.stdout.contains(&0x1b));
    let bold = wb().args(["size", "-f", "json,pson", "--color", "always"]).output().unwrap();
    assert!(String::from_utf8_lossy(&bold.stdout).contains("\x1b[1mEncoded size (bytes)\x1b[0m"));
    let err = wb().args(["size", "-f", "jsn", "--color", "always"]).output().unwrap();
    assert_eq!(err.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&err.stderr).starts_with("\x1b[31merror:\x1b[0m "));
    let never = wb().args(["size", "-f", "jsn", "--color", "never"]).output().unwrap();
    assert!(String::from_utf8_lossy(&never.stderr).starts_with("error: "));
    // NO_COLOR wins over a terminal, not over an explicit --color always.
    let auto = wb().args(["size", "-f", "json", "--color", "auto"]).env("NO_COLOR", "1").output().unwrap();
    assert!(!auto.stdout.contains(&0x1b));
    // Warnings in yellow: a speed results file carrying a warning, reported with --color always.
    let dir = TempDir::new("color");
    let f = dir.0.join("speed.json");
    let out = wb().args(["speed", "-f", "json", "--rounds", "10", "--out"]).arg(&f).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut r: serde_json::Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
    r["speed"]["warnings"] = serde_json::json!(["the host was busy"]);
    std::fs::write(&f, serde_json::to_vec(&r).unwrap()).unwrap();
    let coloured = wb().arg("report").arg(&f).args(["--color", "always"]).output().unwrap();
    let text = String::from_utf8_lossy(&coloured.stdout);
    assert!(text.contains("\x1b[33mWarnings\x1b[0m") && text.contains("\x1b[33mthe host was busy\x1b[0m"), "{text}");
    let plain = wb().arg("report").arg(&f).output().unwrap();
    assert!(String::from_utf8_lossy(&plain.stdout).contains("\nWarnings\n  the host was busy\n"));
}

/// clap's own usage errors, suggestions included, on one line with exit code 2; help wrapped to
/// the terminal's width; a man page per subcommand.
#[test]
fn usage_errors_suggest_and_help_fits_the_terminal() {
    expect_bad_args(&["sise"], &["unrecognized subcommand 'sise'", "a similar subcommand exists: 'size'"]);
    expect_bad_args(&["size", "-o", "xlsx"], &["invalid value 'xlsx'", "possible values: table, md, csv, json"]);
    expect_bad_args(&["size", "--formtas", "json"], &["unexpected argument '--formtas'", "--formats"]);
    for cols in ["80", "100"] {
        for args in [&["size", "--help"][..], &["run", "--help"], &["--help"], &["recommend", "--help"]] {
            let out = wb().env("COLUMNS", cols).args(args).output().unwrap();
            assert!(out.status.success());
            let text = String::from_utf8(out.stdout).unwrap();
            let w: usize = cols.parse().unwrap();
            let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > w).collect();
            assert!(long.is_empty(), "{args:?} at {cols} columns: {long:?}");
        }
    }
    // `device --help` lists every library the lab measures (its registry), tinyxml2 included.
    let out = wb().env("COLUMNS", "200").args(["device", "--help"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let libs = text.lines().find(|l| l.contains("--libs")).unwrap_or_default().to_string();
    for lib in ["pson", "uadp", "cdr", "nanopb", "cjson", "msgpuck", "tinycbor", "tinyxml2"] {
        assert!(libs.contains(lib), "device --help: {lib} missing from {libs:?}");
    }
    let dir = TempDir::new("man");
    let out = wb().args(["man", "--dir"]).arg(&dir.0).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for page in ["wirebench.1", "wirebench-size.1", "wirebench-run.1", "wirebench-setup.1", "wirebench-mqtt.1"] {
        let text = std::fs::read_to_string(dir.0.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.starts_with(".ie") || text.contains(".TH"), "{page} is roff");
    }
}

/// `setup` names each part's needs and what is here; `--check` exits 1 when something a part
/// needs is missing and 0 when everything is here; an unknown part is bad input.
#[test]
fn setup_says_what_each_part_needs() {
    let out = wb().args(["setup", "valgrind", "device"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("valgrind") && text.contains("device") && text.contains("simulated Arduino UNO"), "{text}");
    // With PATH emptied nothing is found: the check fails and names the Debian packages.
    let out = wb().env("PATH", "/nonexistent").args(["setup", "--check", "wrk"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let found_anyway = std::path::Path::new("/usr/bin/wrk").exists();
    if !found_anyway {
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(
            text.contains("missing wrk") && text.contains("apt-get install -y -qq --no-install-recommends wrk"),
            "{text}"
        );
    }
    expect_bad_args(&["setup", "devcie"], &["unknown part \"devcie\"", "did you mean \"device\""]);
}
