//! What the CLI test files share: the binary with a time bound, scratch directories, and the
//! bad-input check (exit code 2, one stderr line with every needle, nothing on stdout).
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use assert_cmd::Command;

/// The wirebench binary; no test run may take longer than four minutes.
pub fn wb() -> Command {
    let mut c = Command::cargo_bin("wirebench").unwrap();
    c.timeout(Duration::from_secs(240));
    c
}

/// A fresh scratch directory for this test process (removed by the test, or by [`TempDir`]).
pub fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wb-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A scratch directory removed on drop, also when the test fails.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        TempDir(tmpdir(tag))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Run and expect exit code 2 with exactly one stderr line that contains every `needle`, and
/// no output on stdout.
pub fn expect_bad_input(cmd: &mut Command, needles: &[&str]) {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{n:?} not in {stderr}");
    }
    assert!(out.stdout.is_empty(), "no partial output on stdout");
}

/// [`expect_bad_input`] for `wirebench ARGS...`.
pub fn expect_bad_args(args: &[&str], needles: &[&str]) {
    eprintln!("expecting bad input: {args:?}");
    expect_bad_input(wb().args(args), needles)
}

/// The environment failed (an output that cannot be written, ...): exit code 1, one line.
pub fn expect_env_error(cmd: &mut Command, needles: &[&str]) {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{n:?} not in {stderr}");
    }
}
