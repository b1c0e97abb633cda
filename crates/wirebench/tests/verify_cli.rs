//! `wirebench verify`: a results file's study rerun, figure by figure.

mod common;
use common::*;

/// A small study with every kind of deterministic figure: sizes, instruction counts, the device
/// lab's cycles, flash, RAM and stack on two targets, energy from them, link airtime.
const STUDY: &str = r#"
[study]
name = "verify"
title = "verify test"

[size]
corpus = "pson-paper"
formats = ["json", "pson", "msgpack", "protobuf"]

[speed]
corpus = "pson-paper"
formats = ["json", "pson"]
rounds = 10
sample_ms = 0.2
warmup_ms = 1.0

[link]
corpus = "pson-paper"
formats = ["json", "pson"]

[device]
corpus = "pson-paper"
targets = ["avr", "cortex-m0plus"]
libs = ["pson", "cjson"]
payloads = ["Test01", "Test10"]

[energy]
every = "10m"
"#;

fn verify(results: &std::path::Path) -> std::process::Output {
    wb().arg("verify").arg(results).output().unwrap()
}

#[test]
fn a_rerun_reproduces_every_figure_and_a_changed_byte_is_found() {
    let dir = tmpdir("verify");
    let study = dir.join("study.toml");
    std::fs::write(&study, STUDY).unwrap();
    let out_dir = dir.join("out");
    let out = wb().arg("run").arg(&study).arg("--out").arg(&out_dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let results = out_dir.join("results.json");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();
    let lab_rows = doc["device"]["lab"]["rows"].as_array().unwrap();
    assert!(lab_rows.iter().any(|r| r["encode_cycles"].as_u64().is_some()), "the lab measured cycles");

    let out = verify(&results);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    let line = text.lines().find(|l| l.contains("figures reproduced")).expect("summary line");
    let (n, m) = {
        let w: Vec<&str> = line.split_whitespace().collect();
        (w[0].parse::<usize>().unwrap(), w[2].parse::<usize>().unwrap())
    };
    assert_eq!(n, m, "{text}");
    for section in ["size", "speed", "device", "energy", "link"] {
        assert!(text.lines().any(|l| l.starts_with(section)), "{section} compared: {text}");
    }
    // The JSON form says the same.
    let out = wb().arg("verify").arg(&results).args(["-o", "json"]).output().unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["figures"].as_u64(), Some(m as u64));
    assert_eq!(j["reproduced"], j["figures"]);

    // The same figures in Bencher Metric Format, for dashboards.
    let out = wb().arg("report").arg(&results).args(["-o", "bmf"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let b: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let case = doc["speed"]["cases"].as_array().unwrap().iter().find(|c| c["codec"] == "pson").unwrap();
    let name = format!("speed/{}/pson/{}", case["payload"].as_str().unwrap(), case["op"].as_str().unwrap());
    let latency = b.as_object().unwrap().iter().find(|(k, _)| k.starts_with(&name)).map(|(_, v)| &v["latency"]);
    let latency = latency.unwrap_or_else(|| panic!("{name} in {b}"));
    assert_eq!(latency["value"], case["ns_per_op"]["median"]);
    assert_eq!(latency["lower_value"], case["ns_per_op"]["median_ci95"][0]);
    assert_eq!(latency["upper_value"], case["ns_per_op"]["median_ci95"][1]);
    let size = doc["size"]["rows"].as_array().unwrap().iter().find(|r| r["codec"] == "pson").unwrap();
    let key = format!("size/{}/pson", size["payload"].as_str().unwrap());
    assert_eq!(b[&key]["file-size"]["value"].as_f64(), size["bytes"].as_f64(), "{key} in {b}");
    let lab = lab_rows.iter().find(|r| r["encode_cycles"].as_u64().is_some()).unwrap();
    let key = format!(
        "device/{}/{}/{}",
        lab["target"].as_str().unwrap(),
        lab["lib"].as_str().unwrap(),
        lab["payload"].as_str().unwrap()
    );
    assert_eq!(b[&key]["encode-cycles"]["value"].as_f64(), lab["encode_cycles"].as_f64(), "{key} in {b}");

    // One byte of one size more, and one cycle count more: both found, exit 1.
    let mut changed = doc.clone();
    let row = changed["size"]["rows"].as_array_mut().unwrap().iter_mut().find(|r| r["codec"] == "pson").unwrap();
    let payload = row["payload"].as_str().unwrap().to_string();
    row["bytes"] = serde_json::json!(row["bytes"].as_u64().unwrap() + 1);
    let lab = changed["device"]["lab"]["rows"].as_array_mut().unwrap();
    let cyc = lab.iter_mut().find(|r| r["encode_cycles"].as_u64().is_some()).unwrap();
    cyc["encode_cycles"] = serde_json::json!(cyc["encode_cycles"].as_u64().unwrap() + 1);
    let bad = dir.join("changed.json");
    std::fs::write(&bad, serde_json::to_vec_pretty(&changed).unwrap()).unwrap();
    let out = verify(&bad);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&format!("{} of {m} figures reproduced", m - 2)), "{text}");
    assert!(text.contains(&format!("size rows: {payload} / pson")) && text.contains("encode_cycles"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 of"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_file_without_a_study_or_a_bad_option_is_bad_input() {
    let dir = tmpdir("verify-bad");
    let size = dir.join("size.json");
    let out = wb().args(["size", "-f", "json", "--out"]).arg(&size).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    expect_bad_input(wb().arg("verify").arg(&size), &["size.json", "study definition"]);
    expect_bad_input(wb().arg("verify").arg(dir.join("none.json")), &["none.json"]);
    expect_bad_input(wb().arg("verify").arg(&size).arg("--time-tolerance=-1"), &["--time-tolerance"]);
}
