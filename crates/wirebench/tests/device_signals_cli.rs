//! `wirebench device --out` under signals, as an operator meets it: SIGTERM (not from a
//! terminal, so it reaches wirebench alone) in the middle of the lab writes the firmwares that
//! finished, the part marked as not finished; no compiler or simulator outlives it and its
//! build folder is gone. A lab run ended by `kill -9` leaves its build folder, and a results
//! file's hidden staging files of a writer that is gone are left too: the next run removes
//! both. Bounded: every wait has a limit; temp folders are removed.

use std::io::BufRead;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

mod common;
use common::*;

/// The lab's firmwares one at a time (`--jobs 1`): a baseline, PSON and CDR (our own C, no
/// download) for each of the ten built-in payloads, 30 in all; a line on stderr at 8, 15 and 23
/// done.
fn lab(dir: &Path, out: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(bin());
    c.current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .args([
            "device",
            "--targets",
            "avr",
            "--libs",
            "pson,cdr",
            "--payloads",
            "Test01,Test02,Test03,Test04,Test05,Test06,Test07,Test08,Test09,Test10",
        ])
        .args(["--jobs", "1", "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

/// Reads stderr until a line with `needle` (at most 5 minutes: the first build unpacks and
/// compiles the lab's shared objects); returns what was read, and the processes under the
/// child seen meanwhile.
fn wait_for_line(child: &mut std::process::Child, err: &mut impl BufRead, needle: &str) -> (String, Vec<u32>) {
    let t0 = Instant::now();
    let mut seen = String::new();
    let mut tree: Vec<u32> = Vec::new();
    loop {
        let mut line = String::new();
        let n = err.read_line(&mut line).unwrap();
        seen.push_str(&line);
        for p in process_tree(child.id()).into_iter().skip(1) {
            if !tree.contains(&p) {
                tree.push(p);
            }
        }
        if line.contains(needle) {
            return (seen, tree);
        }
        if n == 0 || t0.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            panic!("no {needle:?} from the lab: {seen}");
        }
    }
}

fn alive(p: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{p}/stat"))
        .ok()
        .and_then(|st| st.rsplit_once(')').map(|(_, r)| r.trim_start().to_string()))
        .is_some_and(|r| !r.starts_with('Z') && !r.starts_with('X'))
}

fn build_folders(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir.join("cache/wirebench"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("lab-build-"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sigterm_keeps_the_finished_firmwares_and_leaves_no_child_or_folder() {
    let dir = TempDir::new("device-sigterm");
    let out = dir.0.join("d.json");
    let mut child = lab(&dir.0, &out).spawn().unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let (_, mut tree) = wait_for_line(&mut child, &mut err, "device lab: 8/30 firmwares");
    assert!(!out.exists(), "nothing is written before the lab ends or is ended");
    // The next firmware's compiler or simulator runs under the lab by now, or soon.
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(20) {
        let now: Vec<u32> = process_tree(child.id()).into_iter().skip(1).collect();
        let new: Vec<u32> = now.into_iter().filter(|p| !tree.contains(p)).collect();
        let fresh = !new.is_empty();
        tree.extend(new);
        if fresh {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "{status:?}");
    assert!(rest.contains("SIGTERM: the ") && rest.contains("finished device-lab row(s) in"), "{rest}");
    // No compiler, make or simulator outlives the lab: they are ended before it exits (checked
    // at once: a short compile left running would otherwise end on its own a moment later).
    let left: Vec<u32> = tree.iter().copied().filter(|p| alive(*p)).collect();
    assert!(left.is_empty(), "children left running: {left:?}");
    assert!(build_folders(&dir.0).is_empty(), "build folder left: {:?}", build_folders(&dir.0));
    // The firmwares that finished: the first payload's two rows at least, with figures.
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let rows = r["device"]["lab"]["rows"].as_array().unwrap();
    assert!((4..20).contains(&rows.len()), "{rows:?}");
    for row in rows {
        assert_eq!(row["status"], "ok", "{row}");
        assert!(row["encode_cycles"].as_u64().unwrap() > 50, "{row}");
    }
    assert!(rows.iter().any(|r| r["payload"] == "Test01" && r["lib"] == "pson"), "{rows:?}");
    assert_eq!(r["failed_parts"][0]["part"], "device", "{r}");
    assert!(r["failed_parts"][0]["error"].as_str().unwrap().contains("ended by SIGTERM"), "{r}");
    let md = wb().arg("report").arg(&out).args(["-o", "md"]).output().unwrap();
    assert!(md.status.success(), "{}", String::from_utf8_lossy(&md.stderr));
}

#[test]
fn what_kill_9_leaves_is_removed_by_the_next_run() {
    let dir = TempDir::new("device-kill9");
    let out = dir.0.join("d.json");
    let mut child = lab(&dir.0, &out).spawn().unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let _ = wait_for_line(&mut child, &mut err, "device lab: 8/30 firmwares");
    let killed = child.id();
    // kill -9 on the lab and, so that the test leaves nothing running, on its children too.
    for p in process_tree(killed) {
        // SAFETY: kill(2) on our own child and its descendants.
        unsafe { libc::kill(p as i32, libc::SIGKILL) };
    }
    child.wait().unwrap();
    assert_eq!(build_folders(&dir.0), vec![format!("lab-build-{killed}")], "kill -9 leaves its build folder");
    // What a results writer ended by kill -9 leaves beside its file (this one's pid is gone),
    // and what one still running has (this test's own pid) must stay.
    let tmp = dir.0.join(format!(".d.json.tmp.{killed}"));
    let probe = dir.0.join(format!(".d.json.probe.{killed}"));
    let live = dir.0.join(format!(".d.json.tmp.{}", std::process::id()));
    for f in [&tmp, &probe, &live] {
        std::fs::write(f, "partial").unwrap();
    }
    // The next run: one firmware pair, to the end.
    let o = std::process::Command::new(bin())
        .current_dir(&dir.0)
        .env("XDG_CACHE_HOME", dir.0.join("cache"))
        .args(["device", "--targets", "avr", "--libs", "pson", "--payloads", "Test01", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(build_folders(&dir.0).is_empty(), "{:?}", build_folders(&dir.0));
    assert!(!tmp.exists() && !probe.exists(), "stale staging files left");
    assert!(live.exists(), "a live writer's staging file was removed");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(r["device"]["lab"]["rows"][0]["status"], "ok", "{r}");
}
