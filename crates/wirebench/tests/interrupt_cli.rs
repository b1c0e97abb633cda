//! A study's results under interruption and faults: SIGTERM in the middle of a run leaves a
//! valid results set holding the parts that finished, the rest marked; a disk that fills up
//! gives one error line, exit code 1, and leaves the previous results set as it was.
//! No assertion is about timing: the tests wait for files and exits, bounded.

use std::time::{Duration, Instant};

mod common;
use common::*;

/// A study whose first part finishes in a moment and whose second runs for a long time (2,000
/// requests at a 50 ms cadence: 100 s), so a signal sent after the first part lands in the
/// second.
const TWO_PARTS: &str = "[study]\nname = \"t\"\ntitle = \"t\"\n[size]\ncorpus = \"pson-paper\"\nformats = [\"json\"]\n\
                         [tcp]\nformats = [\"json\"]\nlinks = [\"loopback\"]\ncadence_ms = 50.0\ncount = 2000\n";

#[test]
fn sigterm_mid_study_keeps_the_finished_parts() {
    let dir = TempDir::new("sigterm");
    let study = dir.0.join("s.toml");
    std::fs::write(&study, TWO_PARTS).unwrap();
    let out = dir.0.join("o");
    let mut child = std::process::Command::new(common::bin())
        .args(["run", study.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    // The first part's results are on disk as soon as it finishes.
    while !out.join("results.json").exists() {
        if t0.elapsed() > Duration::from_secs(90) || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!("no results.json after the first part (ended: {:?})", child.try_wait());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t1.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("wirebench did not end within 30 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success(), "{status:?}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert!(r["size"].is_object(), "the finished part is kept: {r}");
    assert!(r.get("tcp").is_none() || r["tcp"].is_null(), "{r}");
    let failed = r["failed_parts"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["part"], "tcp");
    assert!(failed[0]["error"].as_str().unwrap().contains("SIGTERM"), "{failed:?}");
    assert!(stderr.contains("SIGTERM"), "{stderr}");
    let names: Vec<_> =
        std::fs::read_dir(&dir.0).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(names.iter().all(|n| !n.contains(".new-")), "no staging folder left: {names:?}");
}

/// A full disk: the output folder on a 96 KiB tmpfs in a private mount namespace. The first run
/// (size only, small) fits; the second (a bigger results set) does not: one error line, exit
/// code 1, and the first run's set is still there, whole (`--force`: the new set replaces the
/// old one in place, or not at all). Needs root (mount); skipped otherwise.
#[test]
fn a_full_disk_gives_one_line_exit_1_and_keeps_the_old_results() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: mounting a small tmpfs in a private mount namespace needs root");
        return;
    }
    if std::process::Command::new("unshare").arg("--version").output().is_err() {
        eprintln!("skipped: no unshare (util-linux)");
        return;
    }
    let dir = TempDir::new("fulldisk");
    std::fs::write(
        dir.0.join("small.toml"),
        "[study]\nname = \"t\"\ntitle = \"t\"\n[size]\ncorpus = \"pson-paper\"\nformats = [\"json\"]\n",
    )
    .unwrap();
    std::fs::write(dir.0.join("big.toml"), "[study]\nname = \"t\"\ntitle = \"t\"\n[size]\ncorpus = \"pson-paper\"\n")
        .unwrap();
    let script = r#"
set -u
mkdir -p "$D/disk"
mount -t tmpfs -o size=96k wb-test "$D/disk" || exit 90
"$WB" run "$D/small.toml" --out "$D/disk/o" > /dev/null 2>&1 || { echo "small run failed"; exit 91; }
cp "$D/disk/o/results.json" "$D/before.json"
"$WB" run "$D/big.toml" --out "$D/disk/o" --force > /dev/null 2> "$D/err.txt"
echo "exit: $?"
cmp "$D/disk/o/results.json" "$D/before.json" && echo "old set intact"
ls -a "$D/disk" | tr '\n' ' '
"#;
    let out = std::process::Command::new("timeout")
        .args(["120", "unshare", "-m", "--propagation", "private", "sh", "-c", script])
        .env("WB", common::bin())
        .env("D", &dir.0)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{:?}\n{text}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    let err = std::fs::read_to_string(dir.0.join("err.txt")).unwrap();
    assert!(text.contains("exit: 1"), "{text}\n{err}");
    // The progress lines ("[1/1] size") and one error line.
    let errors: Vec<&str> = err.lines().filter(|l| !l.starts_with('[')).collect();
    assert_eq!(errors.len(), 1, "one error line: {err}");
    assert!(err.contains("writing the results set") && err.contains("No space left on device"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(text.contains("old set intact"), "{text}");
    assert!(!text.contains(".new-"), "no staging folder left: {text}");
    let before: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.join("before.json")).unwrap()).unwrap();
    assert!(before["size"].is_object());
}
