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
    std::fs::write(
        &study,
        "[study]\nname = \"t\"\ntitle = \"t\"\n[size]\ncorpus = \"pson-paper\"\nformats = [\"json\", \"pson\"]\n",
    )
    .unwrap();
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
            let why = x["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w.as_str().unwrap())
                .find(|w| w.starts_with("energy per message"))
                .unwrap();
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

/// 1,000 sensor readings with six float fields: nothing fits 51 B with the inferred (float64)
/// schema, and recommend says which float32 schema fits, with sizes measured on the same readings.
fn readings(dir: &std::path::Path) -> PathBuf {
    let p = dir.join("readings.ndjson");
    let mut text = String::new();
    for i in 0..1000u32 {
        let f = i as f64;
        text.push_str(&format!(
            "{{\"id\":{i},\"ts\":{},\"temp\":{:.2},\"hum\":{:.2},\"bat\":{:.4},\"pres\":{:.2},\"lat\":{},\"lon\":{}}}\n",
            1_700_000_000 + i * 600,
            21.37 + 3.0 * (f / 10.0).sin(),
            48.21 + 10.0 * (f / 7.0).cos(),
            3.712 - f * 0.0001,
            1013.25 + f * 0.01,
            52.520008 + f * 1e-6,
            13.404954 - f * 1e-6,
        ));
    }
    std::fs::write(&p, text).unwrap();
    p
}

const F32_PROTO: &str = "syntax = \"proto3\";\nmessage Reading {\n  uint32 id = 1;\n  uint32 ts = 2;\n  float temp = 3;\n  float hum = 4;\n  float bat = 5;\n  float pres = 6;\n  float lat = 7;\n  float lon = 8;\n}\n";

#[test]
fn recommend_suggests_a_float32_schema_when_nothing_fits() {
    let dir = TempDir::new("rec-f32");
    let s = readings(&dir.0);
    let out = wb()
        .args(["recommend", "--link", "lora-sf9", "--budget", "51", "-o", "json", "--samples"])
        .arg(&s)
        .output()
        .unwrap();
    // Nothing fits: the answer is printed whole, then the run exits 4 (--no-fail: 0).
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("no format meets every constraint"), "{stderr}");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(r["ranked"].as_array().unwrap().is_empty(), "{r}");
    let again = wb()
        .args(["recommend", "--link", "lora-sf9", "--budget", "51", "-o", "json", "--no-fail", "--samples"])
        .arg(&s)
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(again.stdout, out.stdout);
    let note = r["notes"][0].as_str().unwrap();
    assert!(
        note.starts_with("nothing fits 51 B with the inferred schema; with temp, hum, bat, pres, lat, lon as float32"),
        "{note}"
    );
    assert!(note.contains("protobuf 38.9 B (max 39 B)") && note.contains("avro 30.9 B (max 31 B)"), "{note}");
    assert!(note.contains("--float32 --out f32.schema.json"), "{note}");
    // The suggested schema, written as the note says, makes the same formats fit.
    let schema = dir.0.join("f32.schema.json");
    let st = wb().args(["schema"]).arg(&s).args(["--float32", "--out"]).arg(&schema).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let out = wb()
        .args(["recommend", "--link", "lora-sf9", "--budget", "51", "-o", "json", "--schema"])
        .arg(&schema)
        .arg("--samples")
        .arg(&s)
        .output()
        .unwrap();
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ranked: Vec<&str> = r["ranked"].as_array().unwrap().iter().map(|x| x["codec"].as_str().unwrap()).collect();
    assert!(ranked.contains(&"protobuf") && ranked.contains(&"avro"), "{ranked:?}");
    // float32 rounding is a loss for --exact, unless a tolerance says the sensors' precision is coarser.
    let exact = |tol: Option<&str>| -> Vec<String> {
        let mut cmd = wb();
        cmd.args([
            "recommend",
            "--link",
            "lora-sf9",
            "--budget",
            "51",
            "--exact",
            "--no-fail",
            "-o",
            "json",
            "--schema",
        ])
        .arg(&schema)
        .arg("--samples")
        .arg(&s);
        if let Some(t) = tol {
            cmd.args(["--float-tolerance", t]);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        r["ranked"].as_array().unwrap().iter().map(|x| x["codec"].as_str().unwrap().to_string()).collect()
    };
    assert!(!exact(None).contains(&"protobuf".to_string()));
    assert!(exact(Some("1e-6")).contains(&"protobuf".to_string()));
    expect_bad_input(
        wb().args(["size", "--corpus", "pson-paper", "--float-tolerance", "nan"]),
        &["--float-tolerance NaN"],
    );
}

/// The must-hold: a .proto with float32 fields, LoRa SF9, a Cortex-M0+ and 51 B give a
/// ranking with reasons that cite the device lab's measurements.
#[test]
fn recommend_with_a_proto_schema_on_m0_ranks_with_reasons() {
    let dir = TempDir::new("rec-proto");
    let s = readings(&dir.0);
    let proto = dir.0.join("float32.proto");
    std::fs::write(&proto, F32_PROTO).unwrap();
    let out = wb()
        .args(["recommend", "--schema"])
        .arg(&proto)
        .args(["--link", "lora-sf9", "--mcu", "m0", "--budget", "51", "-o", "json", "--samples"])
        .arg(&s)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ranked = r["ranked"].as_array().unwrap();
    assert!(!ranked.is_empty(), "{r}");
    let first = &ranked[0];
    let why = first["reasons"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect::<Vec<_>>().join("; ");
    assert!(first["max_bytes"].as_u64().unwrap() <= 51 && why.contains("fits one lora-sf9 frame"), "{why}");
    assert!(why.contains("on cortex-m0plus") && why.contains("measured"), "{why}");
}

/// `run --samples … --budget 51 --link lora-sf9`: the answer comes first — on the terminal as
/// soon as the size part has measured (before the speed part's tables), and first in
/// report.md, report.html and the results file; each part's tables print as the part ends.
#[test]
fn run_answers_first_and_streams_each_part() {
    let dir = TempDir::new("run-answer");
    let s = readings(&dir.0);
    let out_dir = dir.0.join("out");
    let out = wb()
        .args(["run", "--budget", "60", "--link", "lora-sf9", "--samples"])
        .arg(&s)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("The answer\n"), "{text}");
    let (answer, size, speed, results) = (
        text.find("The answer").unwrap(),
        text.find("Size").unwrap_or(usize::MAX),
        text.find("Speed").unwrap(),
        text.find("results: ").unwrap(),
    );
    assert!(answer < size && size < speed && speed < results, "answer, size, speed, then the paths: {text}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(out_dir.join("results.json")).unwrap()).unwrap();
    let ranked = r["answer"]["ranked"].as_array().unwrap();
    assert!(!ranked.is_empty() && ranked.iter().all(|x| x["max_bytes"].as_u64().unwrap() <= 60), "{}", r["answer"]);
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    let first_section = md.lines().find(|l| l.starts_with("## ")).unwrap();
    assert_eq!(first_section, "## The answer", "{md}");
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    // The first section after the provenance card is the answer.
    let headings: Vec<&str> =
        html.split("<h2").skip(1).map(|h| h.split('>').nth(1).unwrap_or("").split('<').next().unwrap_or("")).collect();
    let sections: Vec<&&str> = headings.iter().filter(|h| **h != "Provenance").collect();
    assert_eq!(sections.first().map(|h| **h), Some("The answer"), "{headings:?}");
    expect_bad_input(wb().args(["run", "--budget", "51", "--link", "lora-sf99", "--samples"]).arg(&s), &["--link"]);

    // Without a budget or a link, a run on the user's payloads still opens with the answer
    // (ranked by the largest message), and report.md ends with the provenance.
    let plain = dir.0.join("plain");
    let out = wb().args(["run", "--samples"]).arg(&s).arg("--out-dir").arg(&plain).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("The answer\n"));
    let md = std::fs::read_to_string(plain.join("report.md")).unwrap();
    assert_eq!(md.lines().find(|l| l.starts_with("## ")), Some("## The answer"), "{md}");
    let prov = md.find("## Provenance").expect("report.md has its provenance");
    assert!(md[prov..].contains("commit ") && md[prov..].contains("- command: `"), "{}", &md[prov..]);
    assert!(md.contains("Ranked by the largest message"));
}

/// `run` answers for every constraint `recommend` takes: --schemaless and --exact at once, and
/// --mcu/--radio ranked again at the end on the device lab's measured cycles and the airtime.
#[test]
fn run_answer_takes_the_device_radio_schemaless_and_exact() {
    let dir = TempDir::new("run-answer-mcu");
    let s = samples(&dir.0);
    let out_dir = dir.0.join("out");
    let out = wb()
        .args(["run", "--schemaless", "--exact", "--mcu", "m0", "--radio", "lora-sf9", "--every", "15m", "--samples"])
        .arg(&s)
        .arg("--out-dir")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    // The quick answer first (curated device table), the measured one at the end.
    assert!(text.starts_with("The answer\n"), "{text}");
    assert!(text.contains("not yet measured on the cortex-m0plus device lab"), "{text}");
    let last = text.rfind("The answer\n").unwrap();
    assert!(last > text.find("Speed").unwrap(), "the measured answer comes after the parts: {text}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(out_dir.join("results.json")).unwrap()).unwrap();
    let a = &r["answer"];
    assert_eq!(a["constraints"]["mcu"], "m0");
    assert_eq!(a["constraints"]["schemaless"], true);
    assert_eq!(a["constraints"]["exact"], true);
    assert!(
        a["notes"][0]
            .as_str()
            .unwrap()
            .starts_with("Ranked by energy per message, measured on the cortex-m0plus device lab"),
        "{a}"
    );
    let ranked = a["ranked"].as_array().unwrap();
    assert!(!ranked.is_empty(), "{a}");
    for x in ranked {
        assert_eq!(x["schema"], "none", "--schemaless keeps self-describing formats only: {x}");
        assert_eq!(x["fidelity"], "exact", "{x}");
        let why = x["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .find(|w| w.starts_with("energy per message"))
            .unwrap();
        assert!(why.contains("encode cycles") && why.contains("ms on air"), "{why}");
    }
    let excluded = a["excluded"].as_array().unwrap();
    let why_of = |c: &str| {
        excluded.iter().find(|e| e["codec"] == c).map(|e| e["why"].as_str().unwrap().to_string()).unwrap_or_default()
    };
    assert!(why_of("protobuf").contains("--schemaless"), "{a}");
    // The answer is the first section of the reports, also when ranked again.
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert_eq!(md.lines().find(|l| l.starts_with("## ")), Some("## The answer"));
    assert!(md.contains("measured on the cortex-m0plus device lab"));
    expect_bad_input(wb().args(["run", "--mcu", "z80", "--samples"]).arg(&s), &["z80"]);
    expect_bad_input(wb().args(["run", "--mcu", "esp32", "--radio", "lora-sf9", "--samples"]).arg(&s), &["--mcu"]);
    expect_bad_input(wb().args(["run", "--mcu", "m0", "--radio", "wifi", "--samples"]).arg(&s), &["wifi"]);
}

/// Held-out dictionaries and deltas (`size --dict-split/--dict-train/--dict/--delta-key`) on
/// generated meter readings: a split by device and the same split given as files agree; the
/// `[size]` part of a study takes the same options; bad options are one line naming the option.
#[test]
fn size_held_out_dictionaries_and_deltas() {
    let dir = TempDir::new("dict");
    let lines = wirebench_measure::meters::ndjson(40, 12, 5);
    let all = dir.0.join("meters.ndjson");
    std::fs::write(&all, lines.join("\n") + "\n").unwrap();
    let s = all.to_str().unwrap();
    let run = |args: &[&str]| -> serde_json::Value {
        let out = wb().args(["size", "-f", "json,cbor,protobuf", "-o", "json"]).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["size"]["held_out"].clone()
    };
    let split = run(&["--samples", s, "--dict-split", "0.75", "--dict-key", "device_id", "--delta-key", "device_id"]);
    assert_eq!(split["split"], "devices");
    assert_eq!((split["train_devices"].as_u64(), split["held_out_devices"].as_u64()), (Some(30), Some(10)));
    assert_eq!((split["train_messages"].as_u64(), split["held_out_messages"].as_u64()), (Some(360), Some(120)));
    for f in split["formats"].as_array().unwrap() {
        let med = |k: &str| f[k]["median"].as_u64().unwrap();
        assert!(med("zstd_dict") < med("zstd") && med("zstd_dict") < med("raw"), "{f}");
        assert!(med("deflate_dict") < med("deflate"), "{f}");
        assert!(med("zstd_dict_id") > med("zstd_dict"), "{f}");
        assert_eq!(f["zstd_dict_bytes"].as_u64(), Some(2048), "{f}");
        assert!(f["zstd_dict_amortised_after"].as_u64().unwrap() > 0);
        assert_eq!(f["delta_whole"].as_u64(), Some(10), "each held-out device's first message");
        assert!(med("delta") < med("raw"), "{f}");
    }
    // The same split as files: the same dictionaries, the same figures.
    let device = |l: &str| serde_json::from_str::<serde_json::Value>(l).unwrap()["device_id"].to_string();
    let mut devices: Vec<String> = Vec::new();
    for l in &lines {
        if !devices.contains(&device(l)) {
            devices.push(device(l));
        }
    }
    let (train, held): (Vec<&String>, Vec<&String>) = lines.iter().partition(|l| devices[..30].contains(&device(l)));
    let (tf, hf) = (dir.0.join("train.ndjson"), dir.0.join("held.ndjson"));
    std::fs::write(&tf, train.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    std::fs::write(&hf, held.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let files =
        run(&["--samples", hf.to_str().unwrap(), "--dict-train", tf.to_str().unwrap(), "--delta-key", "device_id"]);
    assert_eq!(files["split"], "files");
    assert_eq!(files["formats"], split["formats"]);
    // A given dictionary (here raw content: a few messages), every message held out.
    let raw_dict = dir.0.join("content.dict");
    std::fs::write(&raw_dict, lines[..20].concat()).unwrap();
    let given = run(&["--samples", s, "--dict", raw_dict.to_str().unwrap()]);
    assert_eq!((given["split"].as_str(), given["held_out_messages"].as_u64()), (Some("given"), Some(480)));
    assert!(given["formats"][0]["zstd_dict"]["median"].as_u64() < given["formats"][0]["zstd"]["median"].as_u64());
    // The terminal and Markdown reports and the CSV carry the tables.
    let md = wb()
        .args(["size", "-f", "json", "-o", "md", "--samples", s, "--dict-split", "0.5", "--dict-key", "device_id"])
        .output()
        .unwrap();
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.contains("Held out: bytes per message") && md.contains("amortise"), "{md}");
    let csv =
        wb().args(["size", "-f", "json", "-o", "csv", "--samples", s, "--delta-key", "device_id"]).output().unwrap();
    let csv = String::from_utf8(csv.stdout).unwrap();
    assert!(csv.contains("codec,variant,messages,median,p99,max,mean") && csv.contains("json,xor+zstd,480,"), "{csv}");
    // A study's [size] part.
    let study = dir.0.join("s.toml");
    std::fs::write(
        &study,
        "[study]\nname = \"t\"\ntitle = \"t\"\n[size]\nsamples = [\"meters.ndjson\"]\nformats = [\"json\"]\n\
         dict_split = 0.75\ndict_key = \"device_id\"\ndelta_key = \"device_id\"\n",
    )
    .unwrap();
    let out_dir = dir.0.join("out");
    let out = wb().arg("run").arg(&study).arg("--out").arg(&out_dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(out_dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(r["size"]["held_out"]["formats"][0]["codec"], "json");
    assert!(std::fs::read_to_string(out_dir.join("report.md")).unwrap().contains("Held out: deltas by device_id"));
    std::fs::write(&study, "[study]\nname = \"t\"\ntitle = \"t\"\n[size]\nsamples = [\"meters.ndjson\"]\ndict_split = 2.0\ndict_key = \"device_id\"\n").unwrap();
    expect_bad_input(wb().arg("run").arg(&study).arg("--out").arg(dir.0.join("out2")), &["--dict-split"]);
    // Bad options: one line naming the option, exit 2, before anything runs.
    let bad: &[(&[&str], &str)] = &[
        (&["--dict-split", "0.75"], "--dict-key"),
        (&["--dict-split", "1.5", "--dict-key", "device_id"], "--dict-split"),
        (&["--dict-split", "0", "--dict-key", "device_id"], "--dict-split"),
        (&["--dict-split", "x", "--dict-key", "device_id"], "--dict-split"),
        (&["--dict-key", "device_id"], "--dict-split"),
        (&["--dict-split", "0.5", "--dict-key", "nope"], "--dict-key"),
        (&["--dict-split", "0.5", "--dict-key", "device_id", "--dict-size", "100"], "--dict-size"),
        (&["--dict-split", "0.5", "--dict-key", "device_id", "--dict-size", "99999999"], "--dict-size"),
        (&["--dict-size", "4096"], "--dict-size"),
        (&["--dict", "/nonexistent/d"], "--dict"),
        (&["--dict-train", "/nonexistent/t.ndjson"], "--dict-train"),
        (&["--dict-train", s, "--dict-split", "0.5", "--dict-key", "device_id"], "--dict-train"),
        (&["--delta-key", "nope"], "--delta-key"),
        (&["--delta-key", ""], "--delta-key"),
    ];
    for (args, needle) in bad {
        expect_bad_args(&[&["size", "--samples", s], *args].concat(), &[needle]);
    }
    expect_bad_args(&["size", "--dict-split", "0.5", "--dict-key", "device_id"], &["--dict-split", "--samples"]);
}
