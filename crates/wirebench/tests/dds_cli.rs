//! `wirebench dds ...` as a user meets it: a short real ping-pong and pub/sub between two
//! processes (the binary starts itself as the peer), interop with Cyclone's ddsperf, a study
//! file with a [dds] part, and one-line errors with exit code 2 for bad input. No timing
//! assertions: delivery, shapes and exit codes only. Needs libddsc and ddsperf
//! (cyclonedds-dev, cyclonedds-tools). Each test has its own DDS domains.

use std::process::Stdio;

mod common;
use common::*;
use std::time::Duration;

/// The first domain id of test `k` (0..=4) of this process. A run uses the ids after the one
/// given (`--domain D`: D+1, D+2, ...; interop D and D+1), so tests running in parallel are 6
/// apart; the largest id given is 184 (the CLI accepts up to 190).
/// Whether this wirebench was built with DDS (`--version` names it). CI builds with
/// WIREBENCH_DDS=require, so there these tests never skip; a build without Cyclone runs only
/// [`without_dds_every_dds_run_is_refused_in_one_line`].
fn dds_built() -> bool {
    let out = wb().arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let built = text.contains("; dds (");
    if !built {
        eprintln!("skipped: {text}");
    }
    built
}

fn domain(k: u32) -> String {
    (40 + (std::process::id() % 5) * 30 + k * 6).to_string()
}

#[test]
fn latency_cdr_and_json_between_two_processes() {
    if !dds_built() {
        return;
    }
    let dir = tmpdir("lat");
    let file = dir.join("r.json");
    let out = wb()
        .args(["dds", "latency", "--size", "2k", "--marshal", "cdr,json", "--instances", "4", "--samples", "5"])
        .args(["--warmup", "10", "--domain", &domain(0), "--out", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ours CDR") && text.contains("ours JSON"), "{text}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let d = &r["dds"];
    assert_eq!(d["failures"].as_array().unwrap().len(), 0, "{}", d["failures"]);
    let runs = d["latency"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for run in runs {
        assert_eq!(run["round_trips"], 20, "{run}");
        // Every ping of the run (warm-up included) was answered by the pong process.
        assert_eq!(run["peer"]["handled"].as_u64().unwrap(), 30 + run["retries"].as_u64().unwrap());
        // The binary's counting allocator measured both ends.
        assert!(run["allocs_per_sample"].as_f64().is_some(), "{run}");
        let s = &run["half_rtt_us"];
        assert!(s["p50"].as_f64().unwrap() <= s["p99"].as_f64().unwrap());
    }
    assert!(d["published"]["latency_ms"].as_array().is_some_and(|a| !a.is_empty()));
    // The report renders from the results file alone.
    let rep = wb().args(["report", file.to_str().unwrap(), "-o", "html"]).output().unwrap();
    assert!(rep.status.success());
    let html = String::from_utf8_lossy(&rep.stdout);
    assert!(html.contains("id=\"dds\"") && html.contains("seed native p50 (published)"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two runs at once from one base domain (as two users' studies with the default `domain = 60`
/// would be) take domain ids no other run holds (host-wide leases: the test holds the first one
/// itself), so neither counts the other's pings or pongs: every ping of each run is answered
/// once, by its own peer.
#[test]
fn two_runs_at_once_use_different_domains() {
    if !dds_built() {
        return;
    }
    let dir = TempDir::new("dds-two");
    let base = domain(5);
    // The first id a run from `base` would take, held here as another run would hold it.
    let first = base.parse::<u32>().unwrap() + 1;
    let held = wirebench_dds::domains::lease(&[first]);
    assert_eq!(held.domain, first);
    let start = |name: &str| {
        std::process::Command::new(bin())
            .args(["dds", "latency", "--size", "2k", "--marshal", "cdr,json", "--instances", "4", "--samples", "50"])
            .args(["--warmup", "10", "--domain", &base, "--out"])
            .arg(dir.0.join(name))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (start("a.json"), start("b.json"));
    let mut domains = Vec::new();
    for (child, name) in [(a, "a.json"), (b, "b.json")] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.0.join(name)).unwrap()).unwrap();
        let d = &r["dds"];
        assert_eq!(d["failures"].as_array().unwrap().len(), 0, "{}", d["failures"]);
        for run in d["latency"].as_array().unwrap() {
            assert_eq!(run["round_trips"], 200, "{run}");
            assert_eq!(run["peer"]["handled"].as_u64().unwrap(), 210 + run["retries"].as_u64().unwrap(), "{run}");
            domains.push(run["domain"].as_u64().unwrap());
        }
    }
    assert_eq!(domains.len(), 4);
    // No run used the id this process holds.
    assert!(!domains.contains(&u64::from(first)), "{domains:?} (held: {first})");
    drop(held);
}

/// During `wirebench dds latency` every UDP socket of wirebench and of its peer process is bound
/// to the loopback address (Cyclone binds its receive sockets to the wildcard address unless the
/// shim confines them), and the peer holds none of the parent's sockets (close-on-exec).
#[test]
fn dds_latency_sockets_are_loopback_only_and_not_inherited() {
    if !dds_built() {
        return;
    }
    let mut cmd = std::process::Command::new(common::bin());
    cmd.args(["dds", "latency", "--size", "2k", "--marshal", "cdr", "--instances", "100", "--samples", "100"]).args([
        "--iterations",
        "50",
        "--warmup",
        "10",
        "--domain",
        &domain(4),
        "-o",
        "json",
    ]);
    let me = std::process::id();
    // Enough: two processes (wirebench and its peer) each holding UDP sockets, seen twice.
    let seen_both = |s: &Vec<ProcSocket>| {
        let mut pids: Vec<u32> = s.iter().filter(|x| x.proto.starts_with("udp")).map(|x| x.pid).collect();
        pids.sort();
        pids.dedup();
        pids.len() >= 2
    };
    let samples = watch_sockets(cmd, Duration::from_secs(60), |all| all.iter().filter(|s| seen_both(s)).count() >= 2);
    let full: Vec<&Vec<ProcSocket>> = samples.iter().filter(|s| seen_both(s)).collect();
    assert!(!full.is_empty(), "never saw wirebench and its peer holding DDS sockets (test {me}): {samples:?}");
    for s in &samples {
        for x in s {
            assert!(bound_to_loopback(&x.local), "a socket on a non-loopback address: {x:?}\nall: {s:?}");
        }
    }
    for s in full {
        for x in s {
            let holders: Vec<u32> = s.iter().filter(|y| y.inode == x.inode).map(|y| y.pid).collect();
            assert_eq!(holders.len(), 1, "socket {} held by {holders:?} (inherited): {s:?}", x.inode);
        }
    }
}

#[test]
fn throughput_delivers_every_sample_between_two_processes() {
    if !dds_built() {
        return;
    }
    let out = wb()
        .args(["dds", "throughput", "--size", "4k", "--marshal", "cdr,json", "--count", "2000", "--domain", &domain(1)])
        .args(["-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = r["dds"]["throughput"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{}", r["dds"]["failures"]);
    for run in runs {
        assert_eq!(
            (run["sent"].as_u64(), run["received"].as_u64(), run["lost"].as_u64()),
            (Some(2000), Some(2000), Some(0))
        );
        assert_eq!(run["duplicated"], 0);
        assert_eq!(run["peer"]["handled"], 2000);
    }
}

#[test]
fn interop_with_ddsperf_both_ways() {
    if !dds_built() {
        return;
    }
    let out = wb().args(["dds", "interop", "--domain", &domain(2), "--count", "1000"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("ddsperf pub -> wirebench reader") && text.contains("ddsperf counted 1000: ok"), "{text}");
}

#[test]
fn a_study_with_a_dds_part_writes_results_and_reports() {
    if !dds_built() {
        return;
    }
    let dir = tmpdir("study");
    let study = dir.join("s.toml");
    std::fs::write(
        &study,
        format!(
            "[study]\nname = \"t\"\ntitle = \"t\"\n[dds]\nrounds = 1\ndomain = {}\nddsperf = true\nddsperf_secs = 2\n\
             marshal = [\"cdr\"]\n{LOOSE}[[dds.cases]]\nsizes = [\"2k\"]\ninstances = 2\nsamples = 5\nthroughput_samples = 500\n",
            domain(3)
        ),
    )
    .unwrap();
    let out = wb().args(["run", study.to_str().unwrap(), "--out", dir.join("o").to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("o/results.json")).unwrap()).unwrap();
    let d = &r["dds"];
    assert_eq!(d["failures"].as_array().unwrap().len(), 0, "{}", d["failures"]);
    assert_eq!(d["ddsperf_latency"].as_array().unwrap().len(), 1);
    assert_eq!(d["ddsperf_throughput"].as_array().unwrap().len(), 1);
    // Both must-hold comparisons at 2 KB are computed, against bars any working run meets.
    assert_eq!(d["checks"].as_array().unwrap().len(), 2, "{}", d["checks"]);
    assert!(d["checks"].as_array().unwrap().iter().all(|c| c["pass"] == true), "{}", d["checks"]);
    let md = std::fs::read_to_string(dir.join("o/report.md")).unwrap();
    assert!(md.contains("Must hold") && md.contains("seed native (published"), "{md}");
    // The seed's latency rows were measured on another grid than this run's: they say so.
    assert!(md.contains("seed native (published, 100×20 grid; ours 2×5)"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bars that only show that the checks ran (ours within 1000× of ddsperf): the timing of a
/// shared machine does not decide the test.
const LOOSE: &str = "check_latency_within = 1000.0\ncheck_throughput_at_least = 0.001\n";

#[test]
fn a_must_hold_check_that_fails_ends_the_run_with_exit_1() {
    if !dds_built() {
        return;
    }
    let dir = TempDir::new("dds-must-hold");
    let study = dir.0.join("s.toml");
    // A bar no run can meet: a million times ddsperf's throughput.
    std::fs::write(
        &study,
        format!(
            "[study]\nname = \"t\"\ntitle = \"t\"\n[dds]\nrounds = 1\ndomain = {}\nddsperf = true\nddsperf_secs = 2\n\
             latency = false\nmarshal = [\"cdr\"]\ncheck_throughput_at_least = 1000000.0\n\
             [[dds.cases]]\nsizes = [\"2k\"]\ninstances = 2\nsamples = 5\nthroughput_samples = 500\n",
            domain(4)
        ),
    )
    .unwrap();
    let out = wb().args(["run", study.to_str().unwrap(), "--out", dir.0.join("o").to_str().unwrap()]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("[dds] 1 failure(s)") && err.contains("throughput at least 1000000x of ddsperf at 2 KB"),
        "{err}"
    );
    // The finished results are written, the failed check in `failures`.
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.0.join("o/results.json")).unwrap()).unwrap();
    let d = &r["dds"];
    let f = d["failures"].as_array().unwrap();
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0]["what"], "must-hold check");
    assert_eq!(d["checks"][0]["pass"], false, "{}", d["checks"]);
    assert!(dir.0.join("o/report.html").exists());
    // A bar that is not a ratio is refused before anything runs.
    std::fs::write(&study, std::fs::read_to_string(&study).unwrap().replace("1000000.0", "-1.0")).unwrap();
    expect_bad_input(
        wb().args(["run", study.to_str().unwrap(), "--out", dir.0.join("p").to_str().unwrap()]),
        &["check_throughput_at_least = -1"],
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    if !dds_built() {
        return;
    }
    expect_bad_input(wb().args(["dds", "latency", "--size", "2q"]), &["bad size", "2q"]);
    expect_bad_input(wb().args(["dds", "latency", "--size", "0"]), &["bad size"]);
    expect_bad_input(wb().args(["dds", "throughput", "--marshal", "xml"]), &["bad marshalling", "xml"]);
    expect_bad_input(wb().args(["dds", "throughput", "--count", "0"]), &["throughput samples must be at least 1"]);
    expect_bad_input(wb().args(["dds", "latency", "--domain", "500"]), &["domain 500 too large"]);
    expect_bad_input(wb().args(["dds", "latency", "--instances", "0"]), &["instances must be at least 1"]);
    expect_bad_input(wb().args(["dds", "throughput", "--count", "100000001"]), &["at most 100000000"]);
    expect_bad_input(wb().args(["dds", "latency", "--samples", "100000", "--iterations", "1000"]), &["too many"]);
    // An output that cannot be written: the environment (exit 1).
    expect_env_error(
        wb().args(["dds", "latency", "--size", "2k", "--out", "/nonexistent-dir/r.json"]),
        &["does not exist"],
    );
    let dir = tmpdir("bad");
    let study = dir.join("s.toml");
    std::fs::write(&study, "[study]\nname = \"t\"\ntitle = \"t\"\n[dds]\nrounds = 1\nfrobnicate = 1\n").unwrap();
    expect_bad_input(wb().args(["run", study.to_str().unwrap()]), &["s.toml:", "frobnicate"]);
    // Checked before anything runs: one line, exit 2, no results written.
    std::fs::write(&study, "[study]\nname = \"t\"\ntitle = \"t\"\n[size]\n[dds]\nrounds = 1\n").unwrap();
    expect_bad_input(
        wb().args(["run", study.to_str().unwrap(), "--out", dir.join("o").to_str().unwrap()]),
        &["s.toml", "[[dds.cases]]"],
    );
    assert!(!dir.join("o").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// In a build without Cyclone DDS: every DDS run and every study with a DDS part is refused in
/// one line with exit 2 before anything is measured, naming what to install; the marshalling
/// bench (no DDS needed) still runs.
#[test]
fn without_dds_every_dds_run_is_refused_in_one_line() {
    let version = String::from_utf8(wb().arg("--version").output().unwrap().stdout).unwrap();
    if version.contains("; dds (") {
        eprintln!("skipped: this build has DDS");
        return;
    }
    assert!(version.contains("no dds: this wirebench was built without DDS"), "{version}");
    for cmd in ["latency", "throughput", "interop"] {
        expect_bad_args(&["dds", cmd], &["built without DDS", "apt-get install cyclonedds-dev cyclonedds-tools"]);
    }
    let out = wb().args(["dds", "marshal", "--size", "2k"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = TempDir::new("nodds");
    let out_dir = dir.0.join("o");
    expect_bad_input(
        wb().args(["run", "seed004", "--out", out_dir.to_str().unwrap()]),
        &["seed004", "[dds]", "built without DDS"],
    );
    assert!(!out_dir.exists(), "nothing written before the refusal");
}
