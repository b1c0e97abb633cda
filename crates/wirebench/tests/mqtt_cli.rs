//! `wirebench mqtt ...` and the seed-000 study as a user meets them: bad input is one line and
//! exit code 2, a broker that refuses or cannot be reached is one line and exit code 1; short
//! real runs through the embedded rumqttd and a mosquitto child deliver every message; a broker
//! killed mid-run ends the run within its timeout, exit 1, its losses reported; mosquitto with a
//! password file and with TLS (certificates made by the `openssl` command for the test) is
//! measured with credentials and a CA file, and the password is never written.
//! Every run is bounded in count and time; brokers are killed and temp dirs removed. No timing
//! assertions (the machine is shared): the figures are printed by the benchmark commands.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use wirebench_mqtt::{Mosquitto, MosquittoOptions};

mod common;
use common::*;

/// Run and parse the `-o json` results; returns the `mqtt` section.
fn run_json(args: &[&str]) -> Value {
    let out = wb().args(args).args(["-o", "json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(v["schema"], "wirebench-results/1");
    v["mqtt"].clone()
}

/// Run and expect exit code 1 (the environment's fault) with exactly one stderr line that
/// contains every `needle`, and nothing on stdout.
fn expect_env_failure(cmd: &mut assert_cmd::Command, needles: &[&str]) -> String {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{n:?} not in {stderr}");
    }
    assert!(out.stdout.is_empty(), "no partial output on stdout");
    stderr
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// Every message sent was received once, in order, and the run completed.
fn assert_exact_throughput(row: &Value, messages: u64, side: &str) {
    let s = &row[side];
    assert_eq!(u(&s["sent"]), messages, "{side}: {s}");
    assert_eq!(u(&s["received"]), messages, "{side}: {s}");
    assert_eq!(u(&s["lost"]), 0, "{side}: {s}");
    assert_eq!(s["delivery_ratio"], 1.0, "{side}: {s}");
    assert!(s["ended_by"].as_array().unwrap().iter().all(|e| e == "complete"), "{side}: {s}");
    assert!(s["errors"].as_array().unwrap().is_empty(), "{side}: {s}");
    assert!(s["msgs_per_s"].as_f64().unwrap() > 0.0);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = TempDir::new("bad");
    let truncated = dir.0.join("truncated.uadp");
    // UADPFlags 0xD1, ExtendedFlags1 0x0C, then a String PublisherId whose length is cut off.
    std::fs::write(&truncated, [0xd1, 0x0c, 0x0b, 0x00]).unwrap();
    let json = dir.0.join("bad.json");
    std::fs::write(&json, br#"{"MessageId":1}"#).unwrap();
    let t = truncated.to_str().unwrap();
    let j = json.to_str().unwrap();
    expect_bad_args(&["mqtt", "throughput", "--message", t], &[t, "UADP NetworkMessage", "at byte 4"]);
    expect_bad_args(&["mqtt", "rtt", "--message", j], &[j, "JSON NetworkMessage", "at byte"]);
    // Nothing listens on port 1: the environment's fault, exit 1.
    expect_env_failure(
        wb().args(["mqtt", "throughput", "--broker", "mqtt://127.0.0.1:1", "--count", "10"]),
        &["cannot connect to mqtt://127.0.0.1:1", "connection refused"],
    );
    expect_env_failure(
        wb().args(["mqtt", "rtt", "--broker", "mqtt://127.0.0.1:1", "--count", "10"]),
        &["cannot connect"],
    );
    expect_bad_args(
        &["mqtt", "throughput", "--topic", "plant/#"],
        &["invalid topic \"plant/#\"", "wildcard \"#\" at byte 6"],
    );
    expect_bad_args(&["mqtt", "rtt", "--topic", "a/+/b"], &["invalid topic \"a/+/b\"", "\"+\" at byte 2"]);
    expect_bad_args(&["mqtt", "throughput", "--topic="], &["invalid topic \"\""]);
    expect_bad_args(&["mqtt", "throughput", "--format", "xmll"], &["unknown format \"xmll\"", "did you mean \"xml\"?"]);
    expect_bad_args(
        &["mqtt", "throughput", "--format", "uadp-min", "--corpus", "pson-paper"],
        &["--samples and --corpus go with a codec"],
    );
    expect_bad_args(
        &["mqtt", "throughput", "--format", "json", "--corpus", "pson-papr"],
        &["pson-papr", "did you mean \"pson-paper\"?"],
    );
    expect_bad_args(&["mqtt", "throughput", "--format", "bytes:0"], &["bytes:N"]);
    expect_bad_args(&["mqtt", "throughput", "--broker", "http://127.0.0.1:1883"], &["unsupported scheme"]);
    expect_bad_args(&["mqtt", "throughput", "--qos", "2"], &["--qos"]);
    expect_bad_args(&["mqtt", "sizes", "--fields", "0"], &["fields: 0"]);
    expect_bad_args(&["mqtt", "throughput", "--timeout", "0"], &["--timeout"]);
    let missing = dir.0.join("missing.uadp");
    expect_bad_args(&["mqtt", "throughput", "--message", missing.to_str().unwrap()], &["missing.uadp"]);
    // Broker URLs, credentials and TLS files: exit 2 naming the option, the password never shown.
    expect_bad_args(
        &["mqtt", "throughput", "--broker", "mqtt://meter:hunter2@127.0.0.1:port"],
        &["--broker: invalid broker URL \"mqtt://meter:***@127.0.0.1:port\"", "not a number"],
    );
    expect_bad_args(&["mqtt", "throughput", "--broker", "mqtts://127.0.0.1:8883"], &["--ca-file"]);
    expect_bad_args(&["mqtt", "throughput", "--broker", "embedded", "--username", "u"], &["--username", "broker URL"]);
    expect_bad_args(
        &["mqtt", "throughput", "--broker", "mqtt://127.0.0.1:1", "--password", "hunter2"],
        &["a password needs a user name"],
    );
    let ca = dir.0.join("ca.pem");
    expect_bad_args(
        &["mqtt", "throughput", "--broker", "mqtts://127.0.0.1:1", "--ca-file", ca.to_str().unwrap()],
        &["--ca-file", "ca.pem: no such file or directory"],
    );
    std::fs::write(&ca, "-----BEGIN CERTIFICATE-----\nMIIBAA==\n-----END CERTIFICATE-----\n").unwrap();
    expect_bad_args(
        &["mqtt", "throughput", "--broker", "mqtts://127.0.0.1:1", "--ca-file", ca.to_str().unwrap()],
        &["--ca-file", "does not parse"],
    );
    std::fs::write(&ca, "not PEM at all").unwrap();
    expect_bad_args(
        &["mqtt", "throughput", "--broker", "mqtts://127.0.0.1:1", "--ca-file", ca.to_str().unwrap()],
        &["--ca-file", "no PEM certificate"],
    );
    expect_bad_args(
        &["mqtt", "throughput", "--broker", "mqtt://127.0.0.1:1", "--ca-file", ca.to_str().unwrap()],
        &["need a TLS broker URL"],
    );
    expect_bad_args(&["mqtt", "throughput", "--drain=-1"], &["--drain -1"]);
    expect_bad_args(&["mqtt", "throughput", "--drain", "inf"], &["--drain inf"]);

    // A study whose [mqtt] part has an unknown key.
    let study = dir.0.join("bad.toml");
    std::fs::write(&study, "[study]\nname = \"x\"\ntitle = \"x\"\n[mqtt]\nmesages = 10\n").unwrap();
    expect_bad_args(
        &["run", study.to_str().unwrap(), "--out", dir.0.join("o").to_str().unwrap()],
        &["bad.toml:5:1", "unknown field `mesages`"],
    );
}

#[test]
fn seed000_sizes_are_39_plus_5n_beside_the_thesis() {
    let s = run_json(&["mqtt", "sizes", "--no-speed"]);
    let size = |f: &str, n: u64| {
        s["sizes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["format"] == f && r["fields"] == n)
            .map(|r| {
                assert_eq!(r["round_trip"], true, "{r}");
                u(&r["bytes"])
            })
            .unwrap_or_else(|| panic!("no {f} {n}"))
    };
    assert_eq!([1, 3, 5, 10].map(|n| size("uadp", n)), [44, 54, 64, 89]);
    assert_eq!([1, 3, 5, 10].map(|n| size("uadp-min", n)), [13, 23, 33, 58]);
    assert_eq!([1, 3, 5, 10].map(|n| size("uadp-raw", n)), [10, 18, 26, 46]);
    for f in ["uadp-json-rev", "uadp-json", "uadp-json-dv"] {
        assert!(size(f, 10) > size(f, 1), "{f}");
    }
    // The seed layout's 54 bytes at 3 fields, byte for byte (spec uadp.md §2).
    let hex = s["sizes"].as_array().unwrap().iter().find(|r| r["format"] == "uadp" && r["fields"] == 3).unwrap()["hex"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        hex,
        concat!(
            "d10c",                             // UADPFlags, ExtendedFlags1
            "0b0000004553503332 2d42656e6368",  // String PublisherId "ESP32-Bench"
            "9497e7eaf71a964f84014096cd1d8908", // DataSetClassId
            "01e803",                           // PayloadHeader: Count 1, writer 1000
            "010300",                           // DataSetFlags1, FieldCount 3
            "0a0000cc41 0a00507d44 062a000000", // Float 25.5, Float 1013.25, Int32 42
        )
        .replace(' ', "")
    );
    let l = &s["layout"];
    assert_eq!(u(&l["header_bytes"]), 39);
    assert_eq!(l["formula"], "39 + 5·N");
    let parts: u64 = l["parts"].as_array().unwrap().iter().map(|p| u(&p["bytes"])).sum();
    assert_eq!(parts, 39);
    assert_eq!(l["difference"], serde_json::json!([[1, -6], [3, -6], [5, -6], [10, -6]]));
    let why = l["explanation"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect::<Vec<_>>().join(" ");
    assert!(why.contains("cannot be produced") && why.contains("33 + 5·N"), "{why}");
    // The thesis's figures are in the section, with their citation.
    let p = &s["published"];
    assert!(p["citation"].as_str().unwrap().contains("Braz"));
    assert_eq!(p["sizes"]["rows"][0]["uadp_bytes"], 38);
    // The text report says why.
    let out = wb().args(["mqtt", "sizes", "--no-speed", "--fields", "1,3,5,10", "-o", "md"]).output().unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("| uadp | 44 | 54 | 64 | 89 |"), "{md}");
    assert!(md.contains("| thesis UADP (published) | 38 | 48 | 58 | 83 |"), "{md}");
    assert!(md.contains("Why not 38/48/58/83"), "{md}");
}

#[test]
fn embedded_broker_runs_deliver_everything() {
    let dir = TempDir::new("embedded");
    let out = dir.0.join("thr.json");
    let s = run_json(&[
        "mqtt",
        "throughput",
        "--count",
        "500",
        "--qos",
        "1",
        "--baseline",
        "--reps",
        "2",
        "--timeout",
        "30",
        "--out",
        out.to_str().unwrap(),
    ]);
    let row = &s["throughput"][0];
    assert_eq!(row["broker"], "rumqttd 0.20 (embedded)");
    assert_eq!(u(&row["payload_bytes"]), 54);
    assert_eq!(u(&row["mqtt_payload_bytes"]), 62);
    assert_exact_throughput(row, 1000, "ours");
    assert_eq!(u(&row["bare"]["received"]), 1000, "{}", row["bare"]);
    assert!(row["ratio"].as_f64().unwrap() > 0.0);
    // The results file was written and renders again.
    let back: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(back["mqtt"]["throughput"][0]["ours"]["received"], 1000);
    let rep = wb().args(["report", out.to_str().unwrap(), "-o", "html"]).output().unwrap();
    let html = String::from_utf8(rep.stdout).unwrap();
    assert!(html.contains("<section id=\"mqtt\">") && html.contains("id=\"mqtt-throughput\""));

    let s = run_json(&["mqtt", "rtt", "--count", "100", "--warmup", "10", "--format", "uadp-json-dv", "--baseline"]);
    let row = &s["rtt"][0];
    assert_eq!(u(&row["ours"]["received"]), 100, "{row}");
    assert_eq!(u(&row["ours"]["rtt"]["count"]), 100);
    assert_eq!(u(&row["bare"]["rtt"]["count"]), 100);
    assert_eq!(row["ours"]["cdf"].as_array().unwrap().len(), 103);
    assert!(row["ours"]["stall"].is_null(), "{row}");

    // A NetworkMessage file of the user's: its bytes are what is sent.
    let msg = dir.0.join("m.uadp");
    // 0x11: version 1 + PublisherId (Byte 7), no PayloadHeader; DataSetFlags1 0x01; FieldCount 1; Float 25.5.
    std::fs::write(&msg, [0x11, 0x07, 0x01, 0x01, 0x00, 0x0a, 0x00, 0x00, 0xcc, 0x41]).unwrap();
    let s = run_json(&["mqtt", "throughput", "--message", msg.to_str().unwrap(), "--count", "200"]);
    assert_eq!(u(&s["throughput"][0]["payload_bytes"]), 10);
    assert_exact_throughput(&s["throughput"][0], 200, "ours");
}

#[test]
fn any_codec_carries_the_users_samples_over_mqtt() {
    let dir = TempDir::new("zoo");
    let samples = dir.0.join("r.ndjson");
    let lines: Vec<String> =
        (0..40).map(|i| format!(r#"{{"id":{i},"t":{},"ok":{}}}"#, 20.5 + i as f64 / 8.0, i % 3 == 0)).collect();
    std::fs::write(&samples, lines.join("\n")).unwrap();
    for format in ["json", "pson", "cbor"] {
        let s = run_json(&[
            "mqtt",
            "throughput",
            "--format",
            format,
            "--samples",
            samples.to_str().unwrap(),
            "--count",
            "400",
            "--qos",
            "1",
        ]);
        let row = &s["throughput"][0];
        assert_eq!(row["format"], format);
        assert!(row["payload"].as_str().unwrap().contains("40 sample messages"), "{row}");
        assert_exact_throughput(row, 400, "ours");
        // The mean of the 40 encodings, not one of them.
        let expected: usize = {
            let enc: Vec<usize> = lines
                .iter()
                .map(|l| {
                    let out = wb().args(["encode", "-f", format]).write_stdin(l.as_bytes()).output().unwrap();
                    assert!(out.status.success());
                    out.stdout.len()
                })
                .collect();
            (enc.iter().sum::<usize>() + 20) / 40
        };
        assert_eq!(u(&row["payload_bytes"]) as usize, expected, "{format}");
    }
    // A corpus, RTT: the median-sized message goes back and forth.
    let s =
        run_json(&["mqtt", "rtt", "--format", "protobuf", "--corpus", "pson-paper", "--count", "50", "--warmup", "5"]);
    assert_eq!(u(&s["rtt"][0]["ours"]["received"]), 50);
    assert!(s["rtt"][0]["payload"].as_str().unwrap().contains("pson-paper messages"));
}

#[test]
fn mosquitto_runs_deliver_everything() {
    // A mosquitto of the test's own on a free loopback port (killed on drop), given by URL.
    let m = Mosquitto::start().expect("mosquitto (apt-get install -y mosquitto)");
    let url = m.url();
    let s = run_json(&["mqtt", "throughput", "--broker", &url, "--count", "1000", "--qos", "1", "--format", "uadp"]);
    assert_exact_throughput(&s["throughput"][0], 1000, "ours");
    assert_eq!(s["brokers"][0]["kind"], "external");
    let s = run_json(&["mqtt", "rtt", "--broker", &url, "--count", "100", "--warmup", "10", "--qos", "1"]);
    assert_eq!(u(&s["rtt"][0]["ours"]["received"]), 100);
    drop(m);
    // `--broker mosquitto`: the command starts and stops its own.
    let s = run_json(&["mqtt", "throughput", "--broker", "mosquitto", "--count", "500", "--format", "uadp-json"]);
    assert_exact_throughput(&s["throughput"][0], 500, "ours");
    assert!(s["throughput"][0]["broker"].as_str().unwrap().starts_with("mosquitto"));
}

#[test]
fn broker_killed_mid_run_ends_within_the_timeout_and_reports_losses() {
    let m = Mosquitto::start().expect("mosquitto (apt-get install -y mosquitto)");
    let bin = common::bin();
    let mut child = std::process::Command::new(bin)
        .args([
            "mqtt",
            "throughput",
            "--broker",
            &m.url(),
            "--qos",
            "1",
            "--count",
            "5000000",
            "--timeout",
            "15",
            "-o",
            "json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Publisher and subscriber connected, then a moment of publishing, then the kill.
    let t = Instant::now();
    while sockets_of(&[m.pid()]).iter().filter(|s| s.proto.starts_with("tcp") && !s.listening).count() < 2 {
        assert!(t.elapsed() < Duration::from_secs(30), "the clients did not connect within 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(700));
    m.kill();
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run did not end within 30 s of the broker's death");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The broker died: the environment failed the run (exit 1), its figures printed first.
    assert_eq!(status.code(), Some(1), "{stderr}");
    let last = stderr.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with("error: mqtt: 1 failed side(s) (their figures kept); the first: throughput"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["mqtt"]["throughput"][0]["ours"];
    assert_eq!(s["ended_by"], serde_json::json!(["connection-lost"]), "{s}");
    assert!(s["failure"].is_string(), "{s}");
    let (sent, received, lost) = (u(&s["sent"]), u(&s["received"]), u(&s["lost"]));
    assert!(sent < 5_000_000 && received > 0, "{s}");
    assert_eq!(received + lost, sent, "{s}");
    assert!(!s["errors"].as_array().unwrap().is_empty(), "{s}");
    // Delivery is against what was scheduled, not what was sent.
    assert_eq!(u(&s["scheduled"]), 5_000_000, "{s}");
    assert_eq!(s["delivery_ratio"].as_f64().unwrap(), received as f64 / 5e6, "{s}");
    eprintln!("broker killed: ended {:?} after the kill; sent {sent}, received {received}, lost {lost}", t.elapsed());
}

#[test]
fn seed000_study_runs_and_reports() {
    let dir = TempDir::new("study");
    let study = dir.0.join("s.toml");
    std::fs::write(
        &study,
        "[study]\nname = \"s\"\ntitle = \"seed 000 (small)\"\nreproduces = \"000\"\n\
         [mqtt]\nbrokers = [\"embedded\"]\ncodec_speed = false\ntransport_formats = [\"uadp\"]\nqos = [1]\n\
         messages = 300\nrtt_messages = 50\nrtt_warmup = 5\nreps = 1\ntimeout_s = 30\n",
    )
    .unwrap();
    let out_dir = dir.0.join("out");
    let out = wb().args(["run", study.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&std::fs::read(out_dir.join("results.json")).unwrap()).unwrap();
    let s = &v["mqtt"];
    assert_exact_throughput(&s["throughput"][0], 300, "ours");
    assert_eq!(u(&s["rtt"][0]["ours"]["received"]), 50);
    assert!(s["comparison"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["what"] == "UADP size, 3 fields" && r["thesis"] == 48 && r["ours"] == 54));
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(
        md.contains("## OPC UA PubSub over MQTT (seed 000)") && md.contains("| uadp | 44 | 54 | 64 | 89 |"),
        "{md}"
    );
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    assert!(html.contains("Why 38 / 48 / 58 / 83 bytes cannot be right"));
    assert!(html.contains("thesis UADP (published)"));
    assert!(!html.contains("<script"));
}

/// A results file and a run's stdout/stderr, none of which may hold `secret`.
fn assert_secret_absent(secret: &str, texts: &[(&str, &[u8])]) {
    for (what, t) in texts {
        assert!(
            !String::from_utf8_lossy(t).contains(secret),
            "the password is in {what}: {}",
            String::from_utf8_lossy(t)
        );
    }
}

#[test]
fn mosquitto_with_a_password_file_takes_the_right_password_only() {
    let dir = TempDir::new("auth");
    let passwd = dir.0.join("passwd");
    let secret = "Sesame-7f3a9c";
    let st = std::process::Command::new("mosquitto_passwd")
        .args(["-b", "-c", passwd.to_str().unwrap(), "meter", secret])
        .status()
        .expect("mosquitto_passwd (apt-get install -y mosquitto)");
    assert!(st.success());
    let m = Mosquitto::start_with(&MosquittoOptions {
        extra_config: vec!["allow_anonymous false".into(), format!("password_file {}", passwd.display())],
        ..MosquittoOptions::default()
    })
    .expect("mosquitto (apt-get install -y mosquitto)");
    let url = m.url();
    let out_file = dir.0.join("auth.json");

    // The right password from the environment (the preferred way): every message delivered.
    let out = wb()
        .env("WIREBENCH_MQTT_PASSWORD", secret)
        .args([
            "mqtt",
            "throughput",
            "--broker",
            &url,
            "--username",
            "meter",
            "--qos",
            "1",
            "--count",
            "500",
            "-o",
            "json",
        ])
        .args(["--out", out_file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_exact_throughput(&v["mqtt"]["throughput"][0], 500, "ours");
    let b = &v["mqtt"]["brokers"][0];
    assert_eq!(
        (b["username"].as_str(), b["tls"].as_bool(), b["url"].as_str()),
        (Some("meter"), Some(false), Some(url.as_str())),
        "{b}"
    );
    assert_eq!(v["config"]["password"], "***");
    let file = std::fs::read(&out_file).unwrap();
    assert_secret_absent(secret, &[("stdout", &out.stdout), ("stderr", &out.stderr), ("the results file", &file)]);

    // In the URL and with --password: the command line is recorded with *** in its place.
    let in_url = url.replacen("mqtt://", &format!("mqtt://meter:{secret}@"), 1);
    for args in [vec!["--broker", &in_url], vec!["--broker", &url, "--username", "meter", "--password", secret]] {
        let out = wb()
            .env_remove("WIREBENCH_MQTT_PASSWORD")
            .args(["mqtt", "rtt", "--count", "50", "--warmup", "5", "-o", "json", "--out", out_file.to_str().unwrap()])
            .args(&args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(u(&v["mqtt"]["rtt"][0]["ours"]["received"]), 50, "{args:?}");
        let command: Vec<&str> =
            v["provenance"]["command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        assert!(command.iter().any(|a| a.contains("***")), "{command:?}");
        let file = std::fs::read(&out_file).unwrap();
        assert_secret_absent(secret, &[("stdout", &out.stdout), ("stderr", &out.stderr), ("the results file", &file)]);
    }

    // A wrong password, and none at all: one line naming the options, exit 1, nothing written.
    let _ = std::fs::remove_file(&out_file);
    let wrong = "Sesame-wrong";
    let e = expect_env_failure(
        wb().env("WIREBENCH_MQTT_PASSWORD", wrong)
            .args(["mqtt", "throughput", "--broker", &url, "--username", "meter", "--count", "10"])
            .args(["--out", out_file.to_str().unwrap()]),
        &[&format!("cannot connect to {url}: broker refused the connection: "), "(check --username/--password)"],
    );
    assert!(!e.contains(wrong), "{e}");
    assert!(!out_file.exists());
    expect_env_failure(
        wb().env_remove("WIREBENCH_MQTT_PASSWORD").args(["mqtt", "rtt", "--broker", &url, "--count", "10"]),
        &["broker refused the connection: ", "(check --username/--password)"],
    );
    eprintln!("wrong password: {}", e.trim());
}

/// Certificates made with Debian's `openssl` command: two CAs (one the broker's, one not), a
/// server certificate for 127.0.0.1 signed by the first, and a client certificate signed by it.
struct Pki {
    ca: std::path::PathBuf,
    other_ca: std::path::PathBuf,
    server_cert: std::path::PathBuf,
    server_key: std::path::PathBuf,
    client_cert: std::path::PathBuf,
    client_key: std::path::PathBuf,
}

fn openssl(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl (apt-get install -y openssl)");
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn make_pki(dir: &std::path::Path) -> Pki {
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    for name in ["ca", "other-ca"] {
        std::fs::write(
            dir.join(format!("{name}.cnf")),
            format!(
                "[req]\ndistinguished_name = dn\nprompt = no\nx509_extensions = v3\n[dn]\nCN = wirebench test {name}\n\
                 [v3]\nbasicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\nsubjectKeyIdentifier = hash\n"
            ),
        )
        .unwrap();
        let (cnf, key, pem) = (format!("{name}.cnf"), format!("{name}.key"), format!("{name}.pem"));
        let mut a = vec!["req", "-x509", "-new", "-days", "2", "-config", &cnf, "-keyout", &key, "-out", &pem];
        a.extend(ec);
        openssl(dir, &a);
    }
    for (name, ext) in [
        ("server", "extendedKeyUsage = serverAuth\nsubjectAltName = IP:127.0.0.1\n"),
        ("client", "extendedKeyUsage = clientAuth\n"),
    ] {
        std::fs::write(
            dir.join(format!("{name}.ext")),
            format!("basicConstraints = CA:FALSE\nkeyUsage = critical,digitalSignature\nauthorityKeyIdentifier = keyid\n{ext}"),
        )
        .unwrap();
        let (key, csr, pem, extf) =
            (format!("{name}.key"), format!("{name}.csr"), format!("{name}.pem"), format!("{name}.ext"));
        let subj = format!("/CN=wirebench test {name}");
        let mut a = vec!["req", "-new", "-subj", &subj, "-keyout", &key, "-out", &csr];
        a.extend(ec);
        openssl(dir, &a);
        openssl(
            dir,
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                &extf,
                "-out",
                &pem,
            ],
        );
    }
    Pki {
        ca: dir.join("ca.pem"),
        other_ca: dir.join("other-ca.pem"),
        server_cert: dir.join("server.pem"),
        server_key: dir.join("server.key"),
        client_cert: dir.join("client.pem"),
        client_key: dir.join("client.key"),
    }
}

fn tls_mosquitto(pki: &Pki, require_client_cert: bool) -> Mosquitto {
    let mut extra = vec![
        format!("cafile {}", pki.ca.display()),
        format!("certfile {}", pki.server_cert.display()),
        format!("keyfile {}", pki.server_key.display()),
    ];
    if require_client_cert {
        extra.push("require_certificate true".into());
    }
    Mosquitto::start_with(&MosquittoOptions { extra_config: extra, ..MosquittoOptions::default() })
        .expect("mosquitto (apt-get install -y mosquitto)")
}

#[test]
fn mosquitto_over_tls_with_the_right_ca_and_a_client_certificate() {
    let dir = TempDir::new("tls");
    let pki = make_pki(&dir.0);
    let p = |x: &std::path::Path| x.to_str().unwrap().to_string();
    let m = tls_mosquitto(&pki, false);
    let url = format!("mqtts://{}", m.addr());
    let s =
        run_json(&["mqtt", "throughput", "--broker", &url, "--ca-file", &p(&pki.ca), "--qos", "1", "--count", "500"]);
    assert_exact_throughput(&s["throughput"][0], 500, "ours");
    assert_eq!((s["brokers"][0]["tls"].as_bool(), s["brokers"][0]["url"].as_str()), (Some(true), Some(url.as_str())));
    let s = run_json(&["mqtt", "rtt", "--broker", &url, "--ca-file", &p(&pki.ca), "--count", "50", "--warmup", "5"]);
    assert_eq!(u(&s["rtt"][0]["ours"]["received"]), 50);

    // A CA that did not sign the broker's certificate: one line, exit 1.
    let e = expect_env_failure(
        wb().args(["mqtt", "throughput", "--broker", &url, "--ca-file", &p(&pki.other_ca), "--count", "10"]),
        &[&format!("cannot connect to {url}: TLS handshake failed: "), "not signed by the CA of --ca-file"],
    );
    eprintln!("wrong CA: {}", e.trim());
    // Plain MQTT to the TLS port fails in one line too (not a hang: bounded by the timeout).
    let plain = url.replacen("mqtts://", "mqtt://", 1);
    expect_env_failure(
        wb().args(["mqtt", "throughput", "--broker", &plain, "--count", "10", "--timeout", "10"]),
        &["cannot connect", "mqtt://"],
    );
    drop(m);

    // Mutual TLS: the broker requires a client certificate signed by its CA.
    let m = tls_mosquitto(&pki, true);
    let url = format!("mqtts://{}", m.addr());
    let e = expect_env_failure(
        wb().args([
            "mqtt",
            "throughput",
            "--broker",
            &url,
            "--ca-file",
            &p(&pki.ca),
            "--count",
            "10",
            "--timeout",
            "10",
        ]),
        &[&format!("cannot connect to {url}: TLS handshake failed: "), "--client-cert"],
    );
    eprintln!("no client certificate: {}", e.trim());
    let s = run_json(&[
        "mqtt",
        "throughput",
        "--broker",
        &url,
        "--ca-file",
        &p(&pki.ca),
        "--client-cert",
        &p(&pki.client_cert),
        "--client-key",
        &p(&pki.client_key),
        "--qos",
        "1",
        "--count",
        "300",
    ]);
    assert_exact_throughput(&s["throughput"][0], 300, "ours");
    assert!(s["brokers"][0]["client_cert"].as_str().unwrap().ends_with("client.pem"));
    // A key that is not the certificate's key file, and a certificate without its key: exit 2.
    expect_bad_args(
        &[
            "mqtt",
            "throughput",
            "--broker",
            &url,
            "--ca-file",
            &p(&pki.ca),
            "--client-cert",
            &p(&pki.client_cert),
            "--client-key",
            &p(&pki.ca),
        ],
        &["--client-key", "no PEM private key"],
    );
    expect_bad_args(
        &["mqtt", "throughput", "--broker", &url, "--ca-file", &p(&pki.ca), "--client-cert", &p(&pki.client_cert)],
        &["--client-cert needs --client-key"],
    );
}

#[test]
fn qos1_drain_counts_what_was_in_flight_at_the_deadline() {
    // A subscriber slower than the publisher (one QoS 1 delivery in flight at a time), so a
    // backlog builds up in the broker; unlimited queues, so mosquitto drops none of it and
    // whatever is missing was cut by our clock.
    let m = Mosquitto::start_with(&MosquittoOptions {
        extra_config: vec!["max_queued_messages 0".into(), "max_inflight_messages 1".into()],
        ..MosquittoOptions::default()
    })
    .expect("mosquitto (apt-get install -y mosquitto)");
    let dir = TempDir::new("drain");
    let run = |drain: &str| {
        let out = dir.0.join(format!("drain-{drain}.json"));
        let s = run_json(&[
            "mqtt",
            "throughput",
            "--broker",
            &m.url(),
            "--qos",
            "1",
            "--count",
            "100000000",
            "--timeout",
            "1",
            "--drain",
            drain,
            "--out",
            out.to_str().unwrap(),
        ]);
        let file: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(file["mqtt"], s);
        let row = s["throughput"][0].clone();
        let o = &row["ours"];
        let (sent, acked, unacked, received, lost) =
            (u(&o["sent"]), u(&o["acked"]), u(&o["unacked"]), u(&o["received"]), u(&o["lost"]));
        eprintln!("--timeout 1 --drain {drain}: sent {sent}, acked {acked}, unacked {unacked}, received {received}, lost {lost}");
        assert!(sent > 0 && sent < 100_000_000, "{o}");
        assert_eq!(sent, acked + unacked, "{o}");
        assert_eq!(sent, received + lost, "{o}");
        assert_eq!(o["ended_by"], serde_json::json!(["deadline"]), "{o}");
        assert_eq!(row["drain_s"].as_f64(), Some(drain.parse().unwrap()));
        (unacked, lost)
    };
    // A drain period long enough for what was in flight: nothing lost, everything acknowledged.
    assert_eq!(run("10"), (0, 0));
    // No drain: the backlog still in the broker when sending stopped is lost.
    let (_, lost) = run("0");
    assert!(lost > 0, "no backlog at the deadline?");

    // QoS 0 has nothing to acknowledge.
    let s = run_json(&["mqtt", "throughput", "--broker", &m.url(), "--count", "200"]);
    assert!(s["throughput"][0]["ours"]["acked"].is_null() && s["throughput"][0]["ours"]["unacked"].is_null());
}
