//! Bring your own payload: `run --samples` end to end, and `recommend` with its constraints.

use std::path::PathBuf;


mod common;
use common::*;

/// 40 sensor records: floats with fractions, integers, a string, a nested object, an array.
fn samples(dir: &std::path::Path) -> PathBuf {
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!(
            "{{\"id\":\"node-{i}\",\"seq\":{i},\"temp\":{}.25,\"ok\":{},\"pos\":{{\"lat\":45.{i}1,\"lon\":7.5}},\"v\":[{i},-3,{}]}}\n",
            15 + i % 7,
            i % 2 == 0,
            i * 100
        ));
    }
    let p = dir.join("my.ndjson");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn run_samples_measures_size_speed_and_links_and_writes_reports() {
    let dir = tmpdir("run");
    let s = samples(&dir);
    let out_dir = dir.join("out");
    let out = wb().args(["run", "--samples"]).arg(&s).arg("--out").arg(&out_dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(out_dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(r["size"]["corpus"], "samples");
    let aggs = r["size"]["aggregates"].as_array().unwrap();
    assert!(aggs.len() >= 16, "every codec");
    for a in aggs {
        assert_eq!(a["records"], 40, "{a}");
        assert_eq!(a["failed"], 0, "{a}");
    }
    // Size per record agrees with encoding one record by hand.
    let first = std::fs::read_to_string(&s).unwrap().lines().next().unwrap().to_string();
    let enc = wb().args(["encode", "-f", "json"]).write_stdin(first.clone()).output().unwrap();
    assert!(enc.status.success());
    let json = aggs.iter().find(|a| a["codec"] == "json").unwrap();
    assert!(json["bytes_min"].as_u64().unwrap() <= enc.stdout.len() as u64);
    assert!(json["bytes_max"].as_u64().unwrap() >= enc.stdout.len() as u64);
    // Speed ran on the dynamic path, on the samples.
    let cases = r["speed"]["cases"].as_array().unwrap();
    assert!(cases.iter().any(|c| c["codec"] == "pson" && c["op"] == "encode"));
    assert!(cases.iter().all(|c| c["path"].as_str().unwrap().starts_with("dynamic")), "samples take the dynamic path");
    // The link part used the samples' sizes.
    assert!(r["link"].is_object(), "link section present");
    assert!(out_dir.join("report.html").exists() && out_dir.join("report.md").exists());
    assert_eq!(r["config"]["study"], "(built in: run --samples)");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_samples_with_a_study_replaces_its_corpus() {
    let dir = tmpdir("study");
    let s = samples(&dir);
    let study = dir.join("s.toml");
    std::fs::write(&study, "[study]\nname = \"t\"\ntitle = \"t\"\n[size]\ncorpus = \"pson-paper\"\nformats = [\"json\", \"pson\"]\n").unwrap();
    let out_dir = dir.join("out");
    let out = wb().arg("run").arg(&study).arg("--samples").arg(&s).arg("--out").arg(&out_dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(out_dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(r["size"]["corpus"], "samples");
    assert_eq!(r["size"]["aggregates"].as_array().unwrap().len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_without_study_or_samples_and_missing_samples_are_errors() {
    let out = wb().arg("run").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    expect_bad_input(wb().args(["run", "--samples", "/nonexistent/x.ndjson"]), &["/nonexistent/x.ndjson"]);
}

#[test]
fn recommend_ranks_by_airtime_and_explains_exclusions() {
    let dir = tmpdir("rec");
    let s = samples(&dir);
    let out = wb()
        .args(["recommend", "--link", "lora-sf9", "--mcu", "m0", "--budget", "120", "-o", "json", "--samples"])
        .arg(&s)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ranked = r["ranked"].as_array().unwrap();
    assert!(!ranked.is_empty());
    // Ordered by airtime, every ranked codec within the budget.
    let airtimes: Vec<f64> = ranked.iter().map(|x| x["airtime_ms"].as_f64().unwrap()).collect();
    assert!(airtimes.windows(2).all(|w| w[0] <= w[1]), "{airtimes:?}");
    assert!(ranked.iter().all(|x| x["max_bytes"].as_u64().unwrap() <= 120));
    let excluded = r["excluded"].as_array().unwrap();
    let why = |c: &str| excluded.iter().find(|e| e["codec"] == c).map(|e| e["why"].as_str().unwrap().to_string());
    assert!(why("yaml").is_some(), "yaml is excluded (budget or MCU)");
    assert!(why("avro").unwrap().contains("m0"), "avro has no m0 implementation");
    assert!(why("xml").unwrap().contains("budget"), "xml is over the budget");
    // Everything measured is either ranked or excluded.
    assert_eq!(ranked.len() + excluded.len(), 16);

    // --schemaless drops schema-driven formats; --exact drops lossy ones.
    let out = wb().args(["recommend", "--schemaless", "--exact", "-o", "json", "--samples"]).arg(&s).output().unwrap();
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ranked: Vec<&str> = r["ranked"].as_array().unwrap().iter().map(|x| x["codec"].as_str().unwrap()).collect();
    assert!(!ranked.contains(&"protobuf") && !ranked.contains(&"avro"), "{ranked:?}");
    assert!(ranked.contains(&"cbor") && ranked.contains(&"json"), "{ranked:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `recommend --mcu cortex-m0plus --radio lora-sf9 --every 10m`: ranked by energy per message,
/// each reason citing the measured encode cycles and the airtime; energy options without a
/// radio or a device are one-line errors.
#[test]
fn recommend_ranks_by_energy_with_measured_cycles_and_airtime() {
    let out = wb()
        .args(["recommend", "--mcu", "cortex-m0plus", "--radio", "lora-sf9", "--every", "10m", "-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ranked = r["ranked"].as_array().unwrap();
    assert!(ranked.len() >= 5, "{ranked:?}");
    let uj: Vec<f64> = ranked
        .iter()
        .map(|x| {
            let why = x["reasons"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).find(|w| w.starts_with("energy per message")).unwrap();
            assert!(why.contains("encode cycles") && why.contains("ms on air") && why.contains("days"), "{why}");
            why.split(": ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap()
        })
        .collect();
    assert!(uj.windows(2).all(|w| w[0] <= w[1]), "not ranked by energy: {uj:?}");
    assert!(r["notes"][0].as_str().unwrap().contains("energy per message"));
    expect_bad_input(wb().args(["recommend", "--radio", "lora-sf9"]), &["--mcu"]);
    expect_bad_input(wb().args(["recommend", "--every", "10m"]), &["--radio"]);
    expect_bad_input(wb().args(["recommend", "--mcu", "m0", "--radio", "wifi"]), &["wifi"]);
}

#[test]
fn recommend_bad_input() {
    expect_bad_input(wb().args(["recommend", "--link", "lora-sf99"]), &["lora-sf99"]);
    expect_bad_input(wb().args(["recommend", "--mcu", "z80"]), &["z80"]);
    expect_bad_input(wb().args(["recommend", "--budget", "0"]), &["budget"]);
    expect_bad_input(wb().args(["recommend", "-o", "pdf"]), &["pdf"]);
}
