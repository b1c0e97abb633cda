//! The network commands as a user meets them: bad input (one line, exit code 2), short real runs
//! on loopback (HTTP with delivery and validation counts, TCP request/response), the link models
//! against the spec's LoRa table, and the lab's up/status/down when running as root.
//!
//! Every run here is short and bounded (`timeout` on each command); no assertion is about
//! timing or throughput (the machine is shared) — the must-hold figures are benchmarks:
//! `cargo test --release -p wirebench-net --test bench -- --ignored --nocapture --test-threads=1`.

use std::time::Duration;

use serde_json::Value;

mod common;
use common::*;

fn json_of(args: &[&str]) -> Value {
    let out = wb().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn is_root() -> bool {
    wirebench_net::lab::available().is_ok()
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    // Unknown profile / radio / protocol / format / link.
    expect_bad_args(&["lab", "up", "--profile", "warp-drive", "--id", "zz9"], &["unknown lab profile", "nb-iot"]);
    expect_bad_args(&["link", "--radios", "lora-sf6"], &["unknown radio profile", "lora-sf7"]);
    expect_bad_args(&["link", "--protocols", "smtp"], &["unknown protocol", "mqtt-sn"]);
    expect_bad_args(
        &["http", "--formats", "jsn", "--duration", "0.2"],
        &["unknown format \"jsn\": did you mean \"json\"?"],
    );
    expect_bad_args(&["tcp", "--link", "carrier-pigeon"], &["unknown link", "tbf:<rate>"]);
    // Rate out of range.
    expect_bad_args(&["http", "--rate", "20gbit", "--duration", "0.2"], &["out of range", "10 Gbit/s"]);
    expect_bad_args(&["tcp", "--link", "0.5kbit", "--count", "1"], &["out of range", "1 kbit/s"]);
    expect_bad_args(&["lab", "up", "--profile", "rate=0"], &["out of range"]);
    // Unreachable collector.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    expect_bad_args(
        &["http", "--url", &format!("http://127.0.0.1:{port}/ingest"), "--duration", "0.3", "--connections", "2"],
        &["cannot connect", &format!("127.0.0.1:{port}")],
    );
    // Nonsense numbers.
    expect_bad_args(&["http", "--duration", "0"], &["duration"]);
    expect_bad_args(&["tcp", "--cadence-ms=-5", "--count", "1"], &["cadence"]);
    expect_bad_args(&["lab", "down", "--id", "Bad-Id"], &["invalid lab id"]);
}

#[test]
fn http_on_loopback_counts_delivery_and_validation() {
    let dir = tmpdir("http");
    let out = dir.join("http.json");
    let r = json_of(&[
        "http",
        "--formats",
        "json,cbor,protobuf",
        "--duration",
        "0.5",
        "--connections",
        "4",
        "-o",
        "json",
        "--out",
        out.to_str().unwrap(),
    ]);
    let s = &r["http"];
    assert_eq!(s["path"], "loopback");
    let runs = s["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    for run in runs {
        let ours = &run["ours"];
        let sent = ours["requests"].as_u64().unwrap();
        assert!(sent > 0, "{run}");
        // Every completed request was decoded and valid at the collector; none invalid.
        assert_eq!(run["collector"]["invalid"], 0, "{run}");
        assert!(run["collector"]["valid"].as_u64().unwrap() >= sent, "{run}");
        assert_eq!(ours["errors"]["status"], 0);
        assert!(ours["bound_detail"].as_str().unwrap().contains("% of a core"), "{run}");
        let ct = run["content_type"].as_str().unwrap();
        let want = match run["format"].as_str().unwrap() {
            "json" => "application/json",
            "cbor" => "application/cbor",
            _ => "application/x-protobuf",
        };
        assert_eq!(ct, want);
    }
    // The results file was written and renders again without measuring.
    let md = wb().args(["report", out.to_str().unwrap(), "-o", "md"]).output().unwrap();
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(
        md.contains("## HTTP POST throughput (loopback path") && md.contains("| loopback | loopback | cbor |"),
        "{md}"
    );
    let html = wb().args(["report", out.to_str().unwrap(), "-o", "html"]).output().unwrap();
    let html = String::from_utf8(html.stdout).unwrap();
    assert!(html.contains("HTTP throughput against link rate (seed 002)"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn tcp_request_response_on_loopback_and_an_emulated_link() {
    let r = json_of(&[
        "tcp",
        "--formats",
        "json,protobuf",
        "--count",
        "20",
        "--warmup",
        "2",
        "--cadence-ms",
        "5",
        "--link",
        "loopback,2mbit",
        "-o",
        "json",
    ]);
    let s = &r["tcp"];
    let runs = s["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for run in runs {
        assert_eq!(run["count"], 20, "{run}");
        assert_eq!(run["server_decoded"], 22, "warm-up + measured, all decoded: {run}");
        assert_eq!(run["server_failed"], 0);
        assert_eq!(run["rtt_samples_us"].as_array().unwrap().len(), 20);
        assert_eq!(run["round_trip_exact"], true, "{run}");
        let bytes = run["bytes"]["mean"].as_f64().unwrap();
        match run["format"].as_str().unwrap() {
            "json" => assert!((950.0..1060.0).contains(&bytes), "{bytes}"),
            _ => assert!((240.0..320.0).contains(&bytes), "{bytes}"),
        }
        if run["link"] == "2mbit" {
            // The model is arithmetic on the sizes, not a timing: (4 + bytes + 66 + 17 + 66) · 8 / 2e6.
            let model = run["model_rtt_us"].as_f64().unwrap();
            assert!((model - (bytes + 4.0 + 66.0 + 17.0 + 66.0) * 8.0 / 2e6 * 1e6).abs() < 1e-6);
            // Physics: no sample can beat the up-direction serialization.
            assert!(run["rtt"]["min_us"].as_f64().unwrap() >= (bytes + 70.0) * 8.0 / 2e6 * 1e6);
        } else {
            assert!(run["model_rtt_us"].is_null());
        }
    }
    assert_eq!(s["published"]["final"].as_array().unwrap().len(), 12);
    // Table output names the seed beside ours.
    let out = wb()
        .args(["tcp", "--formats", "json,protobuf", "--count", "5", "--warmup", "1", "--cadence-ms", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Seed 003 (final benchmark) beside ours on loopback") && text.contains("995.16"), "{text}");
    // On the user's own messages the seed's figures are not set beside ours; it says why.
    let dir = TempDir::new("tcp-samples");
    let f = dir.0.join("s.ndjson");
    std::fs::write(&f, "{\"v\":1.5}\n{\"v\":2.5}\n").unwrap();
    let out = wb()
        .args(["tcp", "--formats", "json", "--count", "5", "--warmup", "1", "--cadence-ms", "2", "--samples"])
        .arg(&f)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("Seed 003 (final benchmark)") && text.contains("so they are not set beside it"), "{text}");
}

#[test]
fn tcp_echo_mode() {
    let r = json_of(&[
        "tcp",
        "--echo-bytes",
        "400",
        "--count",
        "5",
        "--warmup",
        "1",
        "--cadence-ms",
        "2",
        "--link",
        "1mbit",
        "-o",
        "json",
    ]);
    let run = &r["tcp"]["runs"][0];
    assert_eq!(run["format"], "echo-400B");
    // 2 × (400 + 66) · 8 / 1e6 s = 7,456 µs.
    assert!((run["model_rtt_us"].as_f64().unwrap() - 7456.0).abs() < 1e-6, "{run}");
    assert!(run["rtt"]["min_us"].as_f64().unwrap() >= 3728.0, "{run}");
}

#[test]
fn link_airtime_matches_the_spec_table() {
    let r = json_of(&[
        "link",
        "--payload-bytes",
        "0,12,51,115,222",
        "--radios",
        "lora-sf7,lora-sf8,lora-sf9,lora-sf10,lora-sf11,lora-sf12",
        "-o",
        "json",
    ]);
    let rows = r["link"]["rows"].as_array().unwrap();
    let mut compared = 0;
    for row in rows {
        if let Some(spec) = row["spec_airtime_ms"].as_f64() {
            compared += 1;
            let ours = row["airtime_ms"].as_f64().unwrap();
            assert!((ours / spec - 1.0).abs() <= 0.01, "{row}");
            let day = row["spec_msgs_per_day"].as_f64().unwrap();
            assert!((row["msgs_per_day"].as_f64().unwrap() / day - 1.0).abs() <= 0.01, "{row}");
        }
    }
    assert_eq!(compared, 23, "every row of the spec's table");
    // Formats: the EV message per format, with protocol overhead.
    let r = json_of(&[
        "link",
        "--radios",
        "lora-sf7,nb-iot",
        "--protocols",
        "mqtt-sn,coap",
        "--formats",
        "json,protobuf",
        "-o",
        "json",
    ]);
    let rows = r["link"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    let find = |radio: &str, proto: &str, f: &str| {
        rows.iter().find(|x| x["radio"] == radio && x["protocol"] == proto && x["format"] == f).unwrap()
    };
    let j = find("lora-sf7", "mqtt-sn", "json");
    assert_eq!(j["protocol_overhead_bytes"], 9.0, "MQTT-SN above 255 B has a 3-byte length");
    assert_eq!(j["fits"], false, "1 KB does not fit 222 B");
    let p = find("nb-iot", "coap", "protobuf");
    assert_eq!(p["transport"], "udpipv4");
    assert_eq!(p["ip_bytes"].as_f64().unwrap(), p["app_bytes"].as_f64().unwrap() + 28.0);
    let text = String::from_utf8(
        wb().args(["link", "--radios", "sigfox", "--payload-bytes", "12,13"]).output().unwrap().stdout,
    )
    .unwrap();
    assert!(text.contains("sigfox") && text.contains("140") && text.contains("70"), "{text}");
}

#[test]
fn lab_up_status_down_as_root() {
    if !is_root() {
        eprintln!("skipped: the netns lab needs root (CAP_SYS_ADMIN + CAP_NET_ADMIN)");
        let out = wb().args(["lab", "up", "--profile", "10mbit", "--id", "t1"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("userspace"));
        return;
    }
    let id = format!("c{}", std::process::id() % 100_000);
    struct Down(String);
    impl Drop for Down {
        fn drop(&mut self) {
            let _ = wirebench_net::lab::down(&self.0);
        }
    }
    let _guard = Down(id.clone());
    let up = json_of(&["lab", "up", "--profile", "up=10mbit,down=2mbit,loss=1", "--id", &id, "-o", "json"]);
    assert_eq!(up["up"]["up"], true, "{up}");
    assert!(up["up"]["qdisc_a"].as_str().unwrap().contains("tbf"), "{up}");
    let st = wb().args(["lab", "status", "--id", &id]).output().unwrap();
    let text = String::from_utf8(st.stdout).unwrap();
    assert!(text.contains(&format!("wb_{id}_a")) && text.contains("10.250.0.1") && text.contains("numgen"), "{text}");
    expect_bad_args(&["lab", "up", "--id", &id], &["already up"]);
    let apply = json_of(&["lab", "apply", "--profile", "50mbit", "--id", &id, "-o", "json"]);
    assert!(apply["status"]["qdisc_a"].as_str().unwrap().contains("50Mbit"), "{apply}");
    let apply = json_of(&["lab", "apply", "--profile", "20mbit,shaper=htb", "--id", &id, "-o", "json"]);
    assert!(apply["status"]["qdisc_a"].as_str().unwrap().contains("htb"), "{apply}");
    let classes = std::process::Command::new("tc")
        .args(["-n", &format!("wb_{id}_a"), "class", "show", "dev", &format!("wb_{id}_va")])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&classes.stdout).contains("rate 20Mbit"), "{classes:?}");
    let down = json_of(&["lab", "down", "--id", &id, "-o", "json"]);
    assert_eq!(down["removed"][0], id.as_str());
    assert!(!wirebench_net::lab::list().unwrap().contains(&id));
    expect_bad_args(&["lab", "down", "--id", &id], &["is not up"]);
}

#[test]
fn http_through_the_lab_or_the_emulator() {
    // 2 Mbit, a short run: the lab as root, the userspace emulator otherwise (said in the notes).
    let r = json_of(&[
        "http",
        "--rate",
        "2mbit",
        "--formats",
        "cbor",
        "--duration",
        "1",
        "--connections",
        "4",
        "-o",
        "json",
    ]);
    let s = &r["http"];
    let run = &s["runs"][0];
    if is_root() {
        assert_eq!(s["path"], "lab-tbf");
        assert!(s["lab_id"].is_string());
        assert!(!wirebench_net::lab::list().unwrap().contains(&s["lab_id"].as_str().unwrap().to_string()));
    } else {
        assert_eq!(s["path"], "emulator");
        assert!(s["notes"][0].as_str().unwrap().contains("not available"));
    }
    assert_eq!(run["ours"]["link"]["rate_bps"], 2_000_000);
    assert!(run["ours"]["link"]["ceiling_rps"].as_f64().unwrap() > 0.0);
    assert!(["link", "harness", "peer"].contains(&run["ours"]["bound"].as_str().unwrap()));
    assert_eq!(run["collector"]["invalid"], 0);
}

/// The id `wirebench_net::lab::unique_id` gives the first lab of process `pid`.
fn first_lab_id(pid: u32) -> String {
    let mut v = (pid as u64 % 1_000_000) * 64 % 36u64.pow(5);
    let mut s = String::new();
    for _ in 0..5 {
        s.insert(0, char::from_digit((v % 36) as u32, 36).unwrap());
        v /= 36;
    }
    format!("t{s}")
}

#[test]
fn ctrl_c_during_a_lab_run_tears_the_lab_down() {
    if !is_root() {
        eprintln!("skipped: the netns lab needs root");
        return;
    }
    let bin = common::bin();
    let mut cmd = std::process::Command::new(bin);
    cmd.args(["http", "--rate", "1mbit", "--formats", "json", "--duration", "20", "--connections", "2"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    sigint_as_from_a_terminal(&mut cmd);
    let mut child = cmd.spawn().unwrap();
    let id = first_lab_id(child.id());
    struct Cleanup(String);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            let _ = wirebench_net::lab::down(&self.0);
        }
    }
    let _cleanup = Cleanup(id.clone());
    let t0 = std::time::Instant::now();
    while !wirebench_net::lab::list().unwrap().contains(&id) {
        assert!(t0.elapsed() < Duration::from_secs(20), "lab {id} never came up");
        assert!(child.try_wait().unwrap().is_none(), "wirebench ended before its lab came up");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500)); // inside the run
    let st = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(st.success());
    let t1 = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t1.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            panic!("wirebench did not end within 15 s of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!status.success(), "interrupted: {status:?}");
    assert!(!wirebench_net::lab::list().unwrap().contains(&id), "lab {id} left behind after SIGINT");
}

/// Under `nohup` (SIGHUP ignored from the start) a hangup does not end a lab run: wirebench
/// installs no handler for a signal that was ignored when it started, so the lab stays up and the
/// run completes.
#[test]
fn sighup_under_nohup_does_not_end_a_lab_run() {
    if !is_root() {
        eprintln!("skipped: the netns lab needs root");
        return;
    }
    use std::os::unix::process::CommandExt;
    let bin = common::bin();
    let mut cmd = std::process::Command::new(bin);
    cmd.args(["http", "--rate", "2mbit", "--formats", "json", "--duration", "3", "--connections", "2", "-o", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // SAFETY: signal(2) between fork and exec, as nohup does.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let id = first_lab_id(child.id());
    struct Cleanup(String);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            let _ = wirebench_net::lab::down(&self.0);
        }
    }
    let _cleanup = Cleanup(id.clone());
    let t0 = std::time::Instant::now();
    while !wirebench_net::lab::list().unwrap().contains(&id) {
        assert!(t0.elapsed() < Duration::from_secs(20), "lab {id} never came up");
        assert!(child.try_wait().unwrap().is_none(), "wirebench ended before its lab came up");
        std::thread::sleep(Duration::from_millis(50));
    }
    for _ in 0..3 {
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(wirebench_net::lab::list().unwrap().contains(&id), "SIGHUP tore lab {id} down");
    let out = wait_bounded(child, Duration::from_secs(60));
    assert!(out.status.success(), "{:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["http"]["path"], "lab-tbf");
    assert_eq!(r["http"]["runs"].as_array().map(|a| a.len()), Some(1), "{}", r["http"]);
}

/// `lab down --all` removes the labs no running process owns (kept by `lab up`) and leaves the
/// lab of a run still going. Runs in a private mount namespace with its own /run/netns and
/// /run/wirebench, so it sees (and could remove) only the labs it makes itself.
#[test]
fn lab_down_all_leaves_labs_of_running_processes() {
    if !is_root() {
        eprintln!("skipped: the netns lab needs root");
        return;
    }
    if std::process::Command::new("unshare").arg("--version").output().is_err() {
        eprintln!("skipped: no unshare (util-linux)");
        return;
    }
    let bin = common::bin();
    let script = r#"
set -u
mkdir -p /run/netns /run/wirebench
mount -t tmpfs wb-test /run/netns && mount -t tmpfs wb-test /run/wirebench || exit 90
"$WB" http --rate 2mbit --formats json --duration 4 --connections 2 -o json > /dev/null 2>&1 &
run=$!
i=0
until ls /run/netns | grep -q '^wb_t.*_a$'; do
  i=$((i+1)); [ $i -gt 400 ] && { echo "the run's lab never came up"; exit 91; }
  kill -0 $run 2>/dev/null || { echo "the run ended before its lab came up"; exit 92; }
  sleep 0.05
done
running=$(ls /run/netns | sed -n 's/^wb_\(.*\)_a$/\1/p')
"$WB" lab up --profile 10mbit --id kept1 > /dev/null || exit 93
"$WB" lab down --all
echo "after: $(ls /run/netns | tr '\n' ' ')"
echo "running: $running"
wait $run
echo "run exit: $?"
"#;
    let out = std::process::Command::new("timeout")
        .args(["120", "unshare", "-m", "--propagation", "private", "sh", "-c", script])
        .env("WB", &bin)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{:?}\n{text}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    let running = text.lines().find_map(|l| l.strip_prefix("running: ")).unwrap().trim().to_string();
    let after = text.lines().find_map(|l| l.strip_prefix("after: ")).unwrap();
    assert!(!running.is_empty(), "{text}");
    assert!(after.contains(&format!("wb_{running}_a")), "the running run's lab was removed: {text}");
    assert!(!after.contains("wb_kept1_a"), "the orphaned lab was kept: {text}");
    assert!(text.contains("run exit: 0"), "{text}");
}

/// Waits for `child` at most `limit` (then kills it) and collects its output.
fn wait_bounded(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    let t0 = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}
