//! `--schema FILE [--type NAME] [-I DIR]` on every command that takes `--samples`: `link`,
//! `tcp`, `http`, `fleet`, `device` and `energy` price the bytes the user's .proto gives, the
//! same bytes `size` and `encode` report (and not the bytes of the schema inferred from the
//! samples, which the test checks differ). The .proto imports a file from an include folder,
//! so `-I` is exercised on each command too.

mod common;
use common::*;

use serde_json::Value as J;

/// A proto3 message with what device payloads use: a float32, a zigzag integer, an explicit-
/// presence field, a packed repeated float, a string, a nested message from an import.
const READING: &str = r#"syntax = "proto3";
package lab;
import "lab/common.proto";
message Reading {
  uint32 id = 1;
  float temp = 2;
  repeated float samples = 3;
  optional uint32 battery = 4;
  sint32 offset = 5;
  string name = 6;
  lab.common.Place place = 7;
}
"#;

const COMMON: &str = r#"syntax = "proto3";
package lab.common;
message Place {
  float lat = 1;
  float lon = 2;
}
"#;

/// The messages as a proto3 JSON printer writes them: defaults left out (`battery`, with
/// explicit presence, is written when 0).
const SAMPLES: &[&str] = &[
    r#"{"id":1,"temp":21.5,"samples":[1.5,2.25],"battery":0,"name":"a","place":{"lat":48.75,"lon":2.5}}"#,
    r#"{"id":7,"temp":-3.25,"offset":-4,"samples":[0.5],"place":{"lat":1.5,"lon":-0.25}}"#,
    r#"{"id":300,"temp":0.125,"samples":[1,2,3],"battery":88,"name":"node-7","place":{"lat":-33.5,"lon":151.25}}"#,
    r#"{"id":2,"offset":12,"samples":[4.5],"name":"b","place":{"lat":0.5,"lon":0.5}}"#,
];

struct Setup {
    _dir: TempDir,
    proto: String,
    include: String,
    /// Every sample, and the first alone (for the commands whose figure is a mean over sends).
    all: String,
    one: String,
    /// protobuf bytes of each sample from `encode` with the .proto.
    sizes: Vec<usize>,
}

fn setup(tag: &str) -> Setup {
    let dir = TempDir::new(tag);
    let inc = dir.0.join("include");
    std::fs::create_dir_all(inc.join("lab")).unwrap();
    std::fs::write(inc.join("lab/common.proto"), COMMON).unwrap();
    let proto = dir.0.join("reading.proto");
    std::fs::write(&proto, READING).unwrap();
    let all = dir.0.join("all.ndjson");
    std::fs::write(&all, SAMPLES.join("\n") + "\n").unwrap();
    let one = dir.0.join("one.json");
    std::fs::write(&one, SAMPLES[0]).unwrap();
    let (proto, include) = (proto.to_str().unwrap().to_string(), inc.to_str().unwrap().to_string());
    let sizes = SAMPLES
        .iter()
        .map(|s| {
            let out = wb()
                .args(["encode", "-f", "protobuf", "--schema", &proto, "-I", &include])
                .write_stdin(s.as_bytes())
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            out.stdout.len()
        })
        .collect();
    let s = Setup {
        all: all.to_str().unwrap().into(),
        one: one.to_str().unwrap().into(),
        proto,
        include,
        sizes,
        _dir: dir,
    };
    // `size` agrees with `encode`, message by message.
    let r = json(&["size", "--samples", &s.all, "-f", "protobuf", "--per-record", "-o", "json"], &s, true);
    let per: Vec<usize> = r["size"]["rows"]
        .as_array()
        .expect("per-record rows")
        .iter()
        .filter(|row| row["codec"] == "protobuf")
        .map(|row| row["bytes"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(per, s.sizes, "size --per-record and encode");
    s
}

/// Run a command with (or without) the schema, `-o json`, and parse its output.
fn json(args: &[&str], s: &Setup, with_schema: bool) -> J {
    let mut cmd = wb();
    cmd.args(args);
    if with_schema {
        cmd.args(["--schema", &s.proto, "-I", &s.include]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

fn mean(v: &[usize]) -> f64 {
    v.iter().sum::<usize>() as f64 / v.len() as f64
}

#[test]
fn link_prices_the_bytes_of_the_users_proto() {
    let s = setup("schema-link");
    let args = ["link", "--samples", &s.all, "-f", "protobuf", "--radios", "lora-sf9", "-o", "json"];
    let row = |r: &J| r["link"]["rows"].as_array().unwrap().iter().find(|x| x["format"] == "protobuf").unwrap().clone();
    let with = row(&json(&args, &s, true));
    assert_eq!(with["messages"], 4);
    assert_eq!(with["payload_bytes"].as_f64().unwrap(), mean(&s.sizes));
    let inferred = row(&json(&args, &s, false));
    assert_ne!(inferred["payload_bytes"].as_f64().unwrap(), mean(&s.sizes), "the schema changes the bytes");
}

#[test]
fn tcp_sends_the_bytes_of_the_users_proto() {
    let s = setup("schema-tcp");
    let args = [
        "tcp",
        "--samples",
        &s.all,
        "-f",
        "protobuf",
        "--count",
        "8",
        "--warmup",
        "1",
        "--cadence-ms",
        "0",
        "-o",
        "json",
    ];
    let r = json(&args, &s, true);
    let run = &r["tcp"]["runs"][0];
    assert_eq!(run["format"], "protobuf");
    assert_eq!(run["bytes"]["min"].as_f64().unwrap(), *s.sizes.iter().min().unwrap() as f64);
    assert_eq!(run["bytes"]["max"].as_f64().unwrap(), *s.sizes.iter().max().unwrap() as f64);
}

#[test]
fn http_posts_the_bytes_of_the_users_proto() {
    let s = setup("schema-http");
    let args = ["http", "--samples", &s.one, "-f", "protobuf", "--duration", "1", "--connections", "1", "-o", "json"];
    let body = |r: &J| r["http"]["runs"][0]["ours"]["body_bytes"].as_f64().unwrap();
    assert_eq!(body(&json(&args, &s, true)), s.sizes[0] as f64);
    assert_ne!(body(&json(&args, &s, false)), s.sizes[0] as f64, "the schema changes the bytes");
}

#[test]
fn fleet_devices_publish_the_bytes_of_the_users_proto() {
    let s = setup("schema-fleet");
    let args = [
        "fleet",
        "--samples",
        &s.all,
        "-f",
        "protobuf",
        "--devices",
        "4",
        "--every",
        "200ms",
        "--duration",
        "1s",
        "--drain",
        "1s",
        "-o",
        "json",
    ];
    let r = json(&args, &s, true);
    let p = &r["fleet"]["runs"][0]["payload"];
    assert_eq!(p["distinct"], 4, "{p}");
    assert_eq!(p["min_bytes"].as_u64().unwrap() as usize, *s.sizes.iter().min().unwrap());
    assert_eq!(p["max_bytes"].as_u64().unwrap() as usize, *s.sizes.iter().max().unwrap());
    assert_eq!(p["mean_bytes"].as_f64().unwrap(), mean(&s.sizes));
}

/// nanopb on the Cortex-M0+ lab, built from the .proto's field numbers and declared types,
/// writes protoc's bytes; `energy` prices those bytes.
#[test]
fn device_and_energy_measure_nanopb_on_the_users_proto() {
    let s = setup("schema-device");
    let r = json(
        &["device", "--samples", &s.all, "--targets", "cortex-m0plus", "--libs", "nanopb", "-o", "json"],
        &s,
        true,
    );
    let rows = r["device"]["lab"]["rows"].as_array().unwrap();
    let got: Vec<usize> = rows
        .iter()
        .filter(|x| x["lib"] == "nanopb")
        .map(|x| {
            assert_eq!(x["status"], "ok", "{x}");
            x["bytes"].as_u64().unwrap() as usize
        })
        .collect();
    assert_eq!(got, s.sizes, "nanopb's bytes on the device and encode's");
    let e = json(
        &[
            "energy",
            "--samples",
            &s.all,
            "--mcu",
            "cortex-m0plus",
            "--libs",
            "nanopb",
            "--radio",
            "lora-sf9",
            "-o",
            "json",
        ],
        &s,
        true,
    );
    let bytes: Vec<usize> = e["energy"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["lib"] == "nanopb")
        .map(|x| x["bytes"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(bytes, s.sizes, "energy's bytes");
}

/// A schema error is one line naming the file, before anything runs, on every command.
#[test]
fn a_bad_schema_is_refused_by_every_command() {
    let s = setup("schema-bad");
    let bad = s._dir.0.join("bad.proto");
    std::fs::write(&bad, "syntax = \"proto3\";\nmessage A {\n  uint33 x = 1;\n}\n").unwrap();
    let bad = bad.to_str().unwrap();
    for cmd in ["link", "tcp", "http", "fleet", "device", "energy", "size", "speed", "recommend"] {
        expect_bad_input(wb().args([cmd, "--samples", &s.all, "--schema", bad]), &["bad.proto:3"]);
    }
}

/// `run STUDY --samples FILE --schema …`: every part that takes inputs (size, link, http, tcp
/// here) sends or prices the user's messages in the user's schema instead of its own (http and
/// tcp default to the EV telemetry message), and the report's title says which parts used them.
#[test]
fn run_sends_the_users_messages_in_every_part_that_takes_inputs() {
    let s = setup("schema-run");
    let dir = TempDir::new("schema-run-study");
    let study = dir.0.join("study.toml");
    std::fs::write(
        &study,
        r#"[study]
name = "inputs"
title = "Inputs everywhere"
[size]
formats = ["protobuf"]
[link]
formats = ["protobuf"]
radios = ["lora-sf9"]
[http]
formats = ["protobuf"]
duration = 1.0
connections = 1
[tcp]
formats = ["protobuf"]
count = 8
warmup = 1
cadence_ms = 0.0
"#,
    )
    .unwrap();
    let out = dir.0.join("out");
    let run = wb()
        .args(["run", study.to_str().unwrap(), "--samples", &s.all, "--schema", &s.proto, "-I", &s.include])
        .args(["--out-dir", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let r: J = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let total: usize = s.sizes.iter().sum();
    let size = r["size"]["aggregates"].as_array().unwrap().iter().find(|a| a["codec"] == "protobuf").unwrap();
    assert_eq!(size["bytes_total"].as_u64().unwrap() as usize, total);
    let link = r["link"]["rows"].as_array().unwrap().iter().find(|x| x["format"] == "protobuf").unwrap();
    assert_eq!(link["payload_bytes"].as_f64().unwrap(), mean(&s.sizes));
    assert_eq!(r["http"]["workload"]["messages"], 4, "{}", r["http"]["workload"]);
    assert_eq!(r["http"]["workload"]["name"], "samples", "{}", r["http"]["workload"]);
    assert_eq!(r["http"]["runs"][0]["format"], "protobuf");
    let tcp = &r["tcp"]["runs"][0];
    assert_eq!(tcp["bytes"]["min"].as_f64().unwrap(), *s.sizes.iter().min().unwrap() as f64);
    assert_eq!(tcp["bytes"]["max"].as_f64().unwrap(), *s.sizes.iter().max().unwrap() as f64);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let title = md.lines().next().unwrap();
    assert!(title.starts_with("# Inputs everywhere — on your samples ("), "{title}");
    assert!(title.ends_with("; in size, link, http, tcp)"), "{title}");
    // The help lists the same parts, from the registry.
    let help = wb().args(["run", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("size, speed, link, http, tcp, device, energy, fleet. The other parts (evolve, mqtt, dds, micropython) send their own messages"), "{help}");
}
