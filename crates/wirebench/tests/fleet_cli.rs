//! `wirebench fleet` and `wirebench merge` as a user meets them: a small fleet through mosquitto
//! run once in one process and once as 4 shard processes merged gives the same delivery counts
//! (every scheduled message, exactly once) and latency percentiles whose confidence intervals
//! overlap; the embedded broker (a child process) delivers everything too; merge refuses shard
//! sets that are not one fleet; bad options are one line and exit code 2.
//! Small and bounded (a few seconds of publishing per run); brokers and temp dirs cleaned up.

use std::path::Path;
use std::process::Stdio;

use serde_json::Value;
use wirebench_mqtt::Mosquitto;

mod common;
use common::*;

/// The fleet runs of this file one at a time: a run beside another would measure the other.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The fleet's options shared by every run of the comparison.
const FLEET: [&str; 12] = [
    "fleet",
    "--devices",
    "160",
    "--every",
    "500ms",
    "--duration",
    "4s",
    "--drain",
    "3s",
    "-f",
    "json,protobuf",
    "--qos=1",
];

/// Every run delivered each scheduled message exactly once.
fn assert_complete(run: &Value, devices: u64) {
    let d = &run["delivery"];
    assert_eq!(u(&run["connect"]["connected"]), devices, "{run}");
    assert_eq!(u(&d["sent"]), u(&d["scheduled"]), "{d}");
    assert_eq!(u(&d["received"]), u(&d["sent"]), "{d}");
    assert_eq!(u(&d["acked"]), u(&d["sent"]), "{d}");
    for k in ["lost", "duplicated", "unexpected", "devices_with_loss"] {
        assert_eq!(u(&d[k]), 0, "{k}: {d}");
    }
    assert_eq!(d["delivery_ratio"], 1.0);
    assert_eq!(u(&run["latency_us"]["count"]), u(&d["received"]));
    assert!(run["errors"].as_array().unwrap().is_empty(), "{run}");
}

#[test]
fn four_shards_merged_match_one_process() {
    let _one_at_a_time = serial();
    let dir = TempDir::new("fleet-shards");
    let m = Mosquitto::start().expect("mosquitto (apt-get install mosquitto)");
    let url = m.url();
    // A warm-up fleet: the first connections a fresh broker takes are slower than the rest.
    let out = wb()
        .args([
            "fleet",
            "--devices",
            "160",
            "--every",
            "500ms",
            "--duration",
            "1s",
            "-f",
            "json",
            "--broker",
            &url,
            "--run-id",
            "warm",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // One process.
    let one = dir.0.join("one.json");
    let out = wb()
        .args(FLEET)
        .args(["--broker", &url, "--run-id", "one", "--out"])
        .arg(&one)
        .args(["-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Four shard processes at the same time.
    let mut children = Vec::new();
    for i in 0..4 {
        let f = dir.0.join(format!("shard-{i}.json"));
        let mut c = std::process::Command::new(common::bin());
        c.args(FLEET).args(["--broker", &url, "--run-id", "four", "--shard", &format!("{i}/4"), "--out"]).arg(&f);
        c.stdout(Stdio::null()).stderr(Stdio::piped());
        children.push(c.spawn().unwrap());
    }
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let merged = dir.0.join("merged.json");
    let shards: Vec<_> = (0..4).map(|i| dir.0.join(format!("shard-{i}.json"))).collect();
    // In any order.
    let out = wb().arg("merge").args(shards.iter().rev()).arg("--out").arg(&merged).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Merged from 4 shards"), "{text}");

    let a = read(&one)["fleet"].clone();
    let b = read(&merged)["fleet"].clone();
    assert_eq!(b["shards"].as_array().unwrap().len(), 4);
    // The shards ran at the same time: their clocks are bounded against each other.
    let bound = b["clock"]["max_skew_bound_us"].as_u64().unwrap_or_else(|| panic!("no skew bound: {}", b["clock"]));
    assert!(bound < 1_000_000, "shards on one machine: skew bound {bound} µs");
    let (ra, rb) = (a["runs"].as_array().unwrap(), b["runs"].as_array().unwrap());
    assert_eq!(ra.len(), 2);
    assert_eq!(rb.len(), 2);
    for (x, y) in ra.iter().zip(rb) {
        assert_eq!(x["format"], y["format"]);
        assert_eq!(u(&y["devices_here"]), 160);
        assert_complete(x, 160);
        assert_complete(y, 160);
        // The same schedule: the same messages, whatever the split.
        for k in ["scheduled", "sent", "received"] {
            assert_eq!(x["delivery"][k], y["delivery"][k], "{k}");
        }
        assert_eq!(x["traffic"]["app_bytes_per_s"], y["traffic"]["app_bytes_per_s"]);
        // Latency figures are timing, and this machine is shared: whether one process and four
        // shards agree is the benchmark's question (scripts/fleet-bench.sh, PARTS=shards, with
        // confidence intervals over repetitions), not this test's. Here: the merged percentiles
        // are ordered and each lies inside its own interval.
        let q = |p: &str| u(&y["latency_us"][p]["value"]);
        assert!(q("p50") <= q("p90") && q("p90") <= q("p99"), "{}", y["latency_us"]);
        for p in ["p50", "p90", "p99"] {
            let iv = &y["latency_us"][p];
            assert!(u(&iv["lo"]) <= u(&iv["value"]) && u(&iv["value"]) <= u(&iv["hi"]), "{p}: {iv}");
        }
    }
    // The merge is exact: the merged histogram is the shards' histograms added bucket by bucket.
    for (i, run) in rb.iter().enumerate() {
        let mut sum = std::collections::BTreeMap::<u64, u64>::new();
        for f in &shards {
            for bkt in read(f)["fleet"]["runs"][i]["latency_us"]["buckets"].as_array().unwrap() {
                *sum.entry(u(&bkt[0])).or_default() += u(&bkt[1]);
            }
        }
        let merged: std::collections::BTreeMap<u64, u64> =
            run["latency_us"]["buckets"].as_array().unwrap().iter().map(|b| (u(&b[0]), u(&b[1]))).collect();
        assert_eq!(merged, sum);
    }

    // Shard sets that are not one fleet.
    expect_bad_input(wb().arg("merge").args(&shards[..3]), &["missing shard(s) [3]"]);
    expect_bad_input(wb().arg("merge").args(&shards[..3]).arg(&shards[0]), &["shard 0 appears twice"]);
    expect_bad_input(wb().arg("merge").args(&shards[1..]).arg(&one), &["run id", "not shards of one fleet"]);
    expect_bad_input(wb().arg("merge").arg(&merged), &["holds 4 shards already"]);
    drop(m);
}

#[test]
fn embedded_broker_child_delivers_and_reports_its_cost() {
    let _one_at_a_time = serial();
    let dir = TempDir::new("fleet-embedded");
    let f = dir.0.join("f.json");
    let out = wb()
        // Three broker addresses: the devices on 127.0.0.2 and 127.0.0.3 connect only if the
        // broker listens there too.
        .args([
            "fleet",
            "--devices",
            "50",
            "--every",
            "1s",
            "--duration",
            "3s",
            "-f",
            "pson",
            "--broker-addresses",
            "3",
            "--out",
        ])
        .arg(&f)
        .args(["-o", "md"])
        .env("WIREBENCH_PROGRESS", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Progress says which run of how many, and the time left.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fleet run 1/1: pson, 50 devices, ~") && err.contains("s left in all (planned)"), "{err}");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("| pson |"), "{md}");
    let r = read(&f);
    let run = &r["fleet"]["runs"][0];
    assert_complete(run, 50);
    assert_eq!(run["broker_kind"], "embedded-rumqttd");
    assert!(r["fleet"]["notes"].to_string().contains("3 loopback addresses"), "{}", r["fleet"]["notes"]);
    // The broker runs in its own process: its CPU and memory are its own.
    assert!(run["cpu"]["broker_rss_bytes"].as_u64().unwrap() > 1 << 20, "{}", run["cpu"]);
    assert!(run["cpu"]["broker_cpu_s"].as_f64().is_some());
    // Exact MQTT arithmetic: PUBLISH bytes per message = payload + header + topic + 6 (+ length byte).
    let mqtt = run["traffic"]["mqtt_bytes_per_msg"].as_f64().unwrap();
    let payload = run["payload"]["mean_bytes"].as_f64().unwrap();
    assert!(mqtt > payload + 16.0 + 6.0 && mqtt < payload + 16.0 + 6.0 + 64.0, "{mqtt} vs {payload}");
    // The report renders the section.
    let html = wb().args(["report"]).arg(&f).args(["-o", "html"]).output().unwrap();
    assert!(String::from_utf8_lossy(&html.stdout).contains("Fleet: formats at fleet scale"));
}

#[test]
fn bad_fleet_options_are_one_line() {
    expect_bad_args(&["fleet", "--devices", "0"], &["--devices 0"]);
    expect_bad_args(&["fleet", "--every", "soon"], &["--every \"soon\""]);
    expect_bad_args(&["fleet", "--jitter", "150%"], &["--jitter"]);
    expect_bad_args(&["fleet", "--qos", "2"], &["QoS 2"]);
    expect_bad_args(&["fleet", "-f", "jsno"], &["jsno"]);
    expect_bad_args(&["fleet", "--shard", "1/4"], &["must share a broker"]);
    expect_bad_args(&["fleet", "--shard", "4/4", "--broker", "mqtt://127.0.0.1:1"], &["--shard"]);
    expect_bad_args(&["fleet", "--broker", "nats://x"], &["--broker"]);
    expect_bad_args(&["fleet", "--run-id", "a/b"], &["--run-id"]);
    expect_bad_args(
        &["fleet", "--broker-addresses", "2", "--broker", "mqtt://127.0.0.1:1883"],
        &["--broker-addresses 2", "only for a broker wirebench starts"],
    );
    expect_bad_args(&["fleet", "--broker-addresses", "0"], &["--broker-addresses 0"]);
    // The Indexed Job's environment, half set.
    expect_bad_input(
        wb().args(["fleet", "--check"]).env("JOB_COMPLETION_INDEX", "1").env_remove("JOB_COMPLETIONS"),
        &["JOB_COMPLETIONS"],
    );
    let out = wb()
        .args(["fleet", "--check", "--devices", "1000", "--broker", "mqtt://127.0.0.1:1883"])
        .env("JOB_COMPLETION_INDEX", "3")
        .env("JOB_COMPLETIONS", "4")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("shard 3/4 (devices 750..1000 of 1000)"));
}

#[test]
fn sigint_keeps_the_finished_fleet_runs() {
    let _one_at_a_time = serial();
    let dir = TempDir::new("fleet-sigint");
    let f = dir.0.join("f.json");
    // Two runs (json, then pson); the signal comes while the second one publishes.
    let mut cmd = std::process::Command::new(bin());
    cmd.args(["fleet", "--devices", "20", "--every", "1s", "--duration", "4s", "-f", "json,pson", "--out"])
        .arg(&f)
        .env("WIREBENCH_PROGRESS", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    sigint_as_from_a_terminal(&mut cmd);
    let mut child = cmd.spawn().unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let t0 = std::time::Instant::now();
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        let n = std::io::BufRead::read_line(&mut err, &mut line).unwrap();
        seen.push_str(&line);
        if line.contains("fleet run 2/2") {
            break;
        }
        if n == 0 || t0.elapsed() > std::time::Duration::from_secs(120) {
            let _ = child.kill();
            panic!("the second fleet run did not start: {seen}");
        }
    }
    assert!(!f.exists(), "nothing is written before the fleet ends or is ended");
    // The embedded broker runs as a child process of the fleet, started afresh for the run.
    let t1 = std::time::Instant::now();
    let children: Vec<u32> = loop {
        let c: Vec<u32> = process_tree(child.id()).into_iter().skip(1).collect();
        if !c.is_empty() || t1.elapsed() > std::time::Duration::from_secs(10) {
            break c;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(!children.is_empty(), "no broker child under the fleet process");
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "{status:?}");
    // No child outlives the fleet (a zombie waiting for init to reap it has ended).
    let alive = |p: &u32| {
        std::fs::read_to_string(format!("/proc/{p}/stat"))
            .ok()
            .and_then(|st| st.rsplit_once(')').map(|(_, r)| r.trim_start().to_string()))
            .is_some_and(|r| !r.starts_with('Z') && !r.starts_with('X'))
    };
    let t1 = std::time::Instant::now();
    while children.iter().any(alive) && t1.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!children.iter().any(alive), "children left running: {children:?}");
    assert!(rest.contains("SIGINT: the 1 finished fleet run(s) in"), "{rest}");
    let r = read(&f);
    let runs = r["fleet"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["format"], "json");
    assert_complete(&runs[0], 20);
    assert_eq!(r["failed_parts"][0]["part"], "fleet", "{r}");
    assert!(r["failed_parts"][0]["error"].as_str().unwrap().contains("ended by SIGINT"));
    // The file is a results file: it renders.
    let md = wb().args(["report"]).arg(&f).args(["-o", "md"]).output().unwrap();
    assert!(md.status.success(), "{}", String::from_utf8_lossy(&md.stderr));
}

/// Waits (at most 30 s) until `pid` holds at least `n` connected TCP sockets.
fn wait_for_connections(pid: u32, n: usize) {
    let t = std::time::Instant::now();
    loop {
        let c = sockets_of(&[pid]).iter().filter(|s| s.proto.starts_with("tcp") && !s.listening).count();
        if c >= n {
            return;
        }
        assert!(t.elapsed() < std::time::Duration::from_secs(30), "{c} of {n} connections after 30 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn a_broker_killed_mid_run_is_exit_1_with_delivery_against_the_schedule() {
    let _one_at_a_time = serial();
    let dir = TempDir::new("fleet-broker-killed");
    let f = dir.0.join("f.json");
    let m = Mosquitto::start().expect("mosquitto (apt-get install mosquitto)");
    // Two runs planned (json, then pson); the broker dies while the first one publishes.
    let child = std::process::Command::new(bin())
        .args(["fleet", "--devices", "20", "--every", "500ms", "--duration", "8s", "-f", "json,pson", "--broker"])
        .arg(m.url())
        .arg("--out")
        .arg(&f)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // 20 devices and a subscriber connected: publishing starts; two seconds of it, then the kill.
    wait_for_connections(m.pid(), 21);
    std::thread::sleep(std::time::Duration::from_secs(2));
    m.kill();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let last = stderr.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: fleet: 1 run(s) with errors (their figures kept); the first: json, 20 devices:"),
        "{stderr}"
    );
    // The finished figures are printed and written: one run, its delivery against the schedule.
    assert!(stdout.contains("scheduled") && stdout.contains("delivered"), "{stdout}");
    let r = read(&f);
    let runs = r["fleet"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "the fleet stops after the broker died: {runs:?}");
    let d = &runs[0]["delivery"];
    let (scheduled, sent, received) = (u(&d["scheduled"]), u(&d["sent"]), u(&d["received"]));
    assert!(received > 0 && sent < scheduled * 3 / 4, "{d}");
    let ratio = d["delivery_ratio"].as_f64().unwrap();
    assert_eq!(ratio, received as f64 / scheduled as f64, "{d}");
    assert!(ratio < 0.75, "{d}");
    assert!(!runs[0]["errors"].as_array().unwrap().is_empty());
    let notes = r["fleet"]["notes"].to_string();
    assert!(notes.contains("The fleet stopped after run 1 of 2"), "{notes}");
}
