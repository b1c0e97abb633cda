//! Where results go: an output folder is locked for its run (a second run into it is refused at
//! start, naming the holder, and no result is lost), a destination that cannot be written is
//! refused before anything is measured, and one fault gives one exit code in every command (the
//! README's table: 2 bad input or usage, 1 the environment, an unwritable output included).

use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::*;

/// A destination no process may write, root included (sysfs refuses new files).
const READ_ONLY_DIR: &str = "/sys";

/// A study of a few seconds: sizes, then a speed part long enough for a second run to start.
const SLOW_STUDY: &str = "[study]\nname = \"lock\"\ntitle = \"lock\"\n\
    [size]\ncorpus = \"pson-paper\"\nformats = [\"json\", \"pson\"]\n\
    [speed]\ncorpus = \"pson-paper\"\nformats = [\"json\", \"cbor\"]\nrounds = 60\nsample_ms = 0.3\nwarmup_ms = 5.0\n";

fn bin() -> StdCommand {
    let mut c = StdCommand::new(assert_cmd::cargo::cargo_bin("wirebench"));
    c.env_remove("COLUMNS").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

/// Wait for a child, killing it after `limit`.
fn wait_bounded(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("a run took over {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn two_runs_into_one_folder_at_once_one_runs_and_one_is_refused_at_start() {
    let dir = TempDir::new("lock");
    let study = dir.0.join("s.toml");
    std::fs::write(&study, SLOW_STUDY).unwrap();
    let out = dir.0.join("o");
    let start = |c: &mut StdCommand| {
        c.args(["run", study.to_str().unwrap(), "--out-dir", out.to_str().unwrap()]).spawn().unwrap()
    };
    let (a, b) = (start(&mut bin()), start(&mut bin()));
    let pids = [a.id(), b.id()];
    let outs = [wait_bounded(a, Duration::from_secs(240)), wait_bounded(b, Duration::from_secs(240))];
    let codes: Vec<Option<i32>> = outs.iter().map(|o| o.status.code()).collect();
    let text = |i: usize| {
        format!(
            "stdout: {}\nstderr: {}",
            String::from_utf8_lossy(&outs[i].stdout),
            String::from_utf8_lossy(&outs[i].stderr)
        )
    };
    let (won, lost) = match codes.as_slice() {
        [Some(0), Some(1)] => (0, 1),
        [Some(1), Some(0)] => (1, 0),
        _ => panic!("one run and one refusal expected, got {codes:?}\n{}\n{}", text(0), text(1)),
    };
    // The refusal: at start (no part began, nothing on stdout), one line naming the holder.
    let refusal = String::from_utf8_lossy(&outs[lost].stderr);
    assert_eq!(refusal.trim_end().lines().count(), 1, "{refusal}");
    assert!(
        refusal.contains("in use by another wirebench run") && refusal.contains(&format!("pid {}", pids[won])),
        "{refusal}"
    );
    assert!(!refusal.contains("[1/") && outs[lost].stdout.is_empty(), "{}", text(lost));
    // The run that went on: its results are whole and where it said.
    let said = String::from_utf8_lossy(&outs[won].stdout);
    assert!(said.contains(&format!("results: {}", out.join("results.json").display())), "{said}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert!(r["size"]["rows"].as_array().is_some_and(|rows| !rows.is_empty()), "{r}");
    assert!(r["speed"].is_object() && r.get("failed_parts").is_none(), "{r}");
    assert!(out.join("report.md").is_file() && out.join("report.html").is_file());
    // Nothing moved aside, no staging folder, and the lock file went with its run.
    let names: Vec<String> =
        std::fs::read_dir(&dir.0).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, ["o", "s.toml"], "only the study and its output folder");
    // Held by a live run, the lock refuses; left behind by a run that was killed, it does not.
    let mut holder =
        bin().args(["run", study.to_str().unwrap(), "--out-dir", out.to_str().unwrap(), "--force"]).spawn().unwrap();
    let lock = dir.0.join(".o.lock");
    let t = Instant::now();
    while !std::fs::read_to_string(&lock).is_ok_and(|s| s.contains(&format!("pid {}", holder.id()))) {
        assert!(
            t.elapsed() < Duration::from_secs(60) && holder.try_wait().unwrap().is_none(),
            "the run never took the lock"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: kill(2) on the child this test started.
    unsafe { libc::kill(holder.id() as i32, libc::SIGKILL) };
    holder.wait().unwrap();
    assert!(lock.exists(), "kill -9 leaves the lock file");
    let o =
        wb().args(["run", study.to_str().unwrap(), "--out-dir", out.to_str().unwrap(), "--force"]).output().unwrap();
    assert!(o.status.success(), "a stale lock file does not block: {}", String::from_utf8_lossy(&o.stderr));
    assert!(!lock.exists());
}

#[test]
fn a_read_only_destination_is_refused_before_measuring() {
    let dir = TempDir::new("rodest");
    let study = dir.0.join("s.toml");
    std::fs::write(&study, SLOW_STUDY).unwrap();
    let mut dests = vec![std::path::PathBuf::from(READ_ONLY_DIR)];
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        // Without root, a folder without write permission is read-only too.
        let ro = dir.0.join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::os::unix::fs::PermissionsExt::from_mode(0o555)).unwrap();
        dests.push(ro);
    }
    for d in &dests {
        let file = d.join("wirebench-results.json");
        let folder = d.join("wirebench-run");
        // speed on its defaults measures for ~10 s: refused at once instead, nothing printed but the error.
        for args in [
            vec!["speed", "--out", file.to_str().unwrap()],
            vec!["run", study.to_str().unwrap(), "--out-dir", folder.to_str().unwrap()],
        ] {
            let t = Instant::now();
            let o = wb().args(&args).output().unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {stderr}");
            assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: one line, no progress: {stderr}");
            assert!(stderr.contains(d.to_str().unwrap()) && !stderr.contains("[1/"), "{args:?}: {stderr}");
            assert!(o.stdout.is_empty(), "{args:?}: nothing measured, nothing printed");
            eprintln!("{args:?}: refused in {:?}", t.elapsed());
        }
    }
}

/// One command line per command for a fault; `{}` is replaced by the faulty path.
type Row = (&'static str, &'static [&'static str]);

/// Every command that writes an output file or folder, with `{}` for a file and `{dir}` for a
/// folder (`{sample}`, `{results}`: an input of the test).
fn output_rows(dds: bool) -> Vec<Row> {
    let mut outputs: Vec<Row> = vec![
        ("size", &["size", "-f", "json", "--out", "{}"]),
        ("speed", &["speed", "-f", "json", "--out", "{}"]),
        ("run", &["run", "quickstart", "--out-dir", "{dir}"]),
        ("fleet", &["fleet", "--out", "{}"]),
        ("http", &["http", "--out", "{}"]),
        ("tcp", &["tcp", "--out", "{}"]),
        ("device", &["device", "--out", "{}"]),
        ("mqtt sizes", &["mqtt", "sizes", "--out", "{}"]),
        ("mqtt throughput", &["mqtt", "throughput", "--out", "{}"]),
        ("link", &["link", "--out", "{}"]),
        ("energy", &["energy", "--out", "{}"]),
        ("micropython", &["micropython", "--out", "{}"]),
        ("schema", &["schema", "{sample}", "--out", "{}"]),
        ("report -o csv", &["report", "{results}", "-o", "csv", "--out", "{dir}"]),
        ("evolve", &["evolve", "--builtin", "--out", "{}"]),
        ("merge", &["merge", "{results}", "--out", "{}"]),
    ];
    if dds {
        outputs.push(("dds", &["dds", "latency", "--out", "{}"]));
    }
    outputs
}

#[test]
fn one_fault_gives_one_exit_code_in_every_command() {
    let dir = TempDir::new("exitcodes");
    let sample = dir.0.join("s.json");
    std::fs::write(&sample, "{\"t\":21.5,\"id\":7}").unwrap();
    let sample = sample.to_str().unwrap().to_string();
    let results = dir.0.join("r.json");
    wb().args(["size", "-f", "json", "--out", results.to_str().unwrap()]).assert().success();
    let results = results.to_str().unwrap().to_string();
    let missing = dir.0.join("missing/none.json").to_str().unwrap().to_string();
    let unwritable = format!("{READ_ONLY_DIR}/wirebench-exit-code-test.json");
    let unwritable_dir = format!("{READ_ONLY_DIR}/wirebench-exit-code-test");
    let dds = wb().arg("--version").output().unwrap();
    let dds = !String::from_utf8_lossy(&dds.stdout).contains("no dds");

    // Every command, with an option it does not have: usage, 2.
    let commands: &[&[&str]] = &[
        &["size"],
        &["speed"],
        &["compare", &results, &results],
        &["run", "quickstart"],
        &["report", &results],
        &["mqtt", "sizes"],
        &["lab", "status"],
        &["http"],
        &["tcp"],
        &["link"],
        &["dds", "latency"],
        &["recommend"],
        &["device"],
        &["energy"],
        &["micropython"],
        &["fleet"],
        &["merge", &results],
        &["transcode", "--to", "json"],
        &["encode", "-f", "json"],
        &["decode", "-f", "json"],
        &["codecs"],
        &["schema", &sample],
    ];
    // An input file that is not there (named wrongly): bad input, 2.
    let inputs: &[Row] = &[
        ("size", &["size", "--samples", "{}"]),
        ("speed", &["speed", "--samples", "{}"]),
        ("run", &["run", "{}"]),
        ("run --samples", &["run", "--samples", "{}"]),
        ("report", &["report", "{}"]),
        ("compare", &["compare", "{}", "{}"]),
        ("merge", &["merge", "{}"]),
        ("encode", &["encode", "-f", "json", "{}"]),
        ("decode", &["decode", "-f", "json", "{}"]),
        ("encode --schema", &["encode", "-f", "protobuf", "--schema", "{}"]),
        ("transcode", &["transcode", "--to", "uadp", "{}"]),
        ("schema", &["schema", "{}"]),
        ("tcp", &["tcp", "--samples", "{}"]),
        ("http", &["http", "--samples", "{}"]),
        ("link", &["link", "--samples", "{}"]),
        ("energy", &["energy", "--samples", "{}"]),
        ("energy --energy-data", &["energy", "--energy-data", "{}"]),
        ("recommend", &["recommend", "--samples", "{}"]),
    ];
    // An output that cannot be written: the environment, 1 (checked before measuring).
    let outputs = output_rows(dds);
    let mut table = Vec::new();
    let mut check = |class: &str, name: &str, args: Vec<String>, want: i32| {
        let o = wb().timeout(Duration::from_secs(60)).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr).to_string();
        let one_line = stderr.trim_end().lines().count() == 1 && stderr.starts_with("error");
        let ok = o.status.code() == Some(want) && one_line && !stderr.contains("panicked");
        table.push(format!(
            "{} {class:<10} {name:<22} exit {:?} (want {want}): {}",
            if ok { "ok  " } else { "FAIL" },
            o.status.code(),
            stderr.trim_end()
        ));
    };
    for c in commands {
        let mut args: Vec<String> = c.iter().map(|s| s.to_string()).collect();
        args.push("--no-such-option".into());
        check("usage", c[0], args, 2);
    }
    for (name, row) in inputs {
        check("input", name, row.iter().map(|a| a.replace("{}", &missing)).collect(), 2);
    }
    for (name, row) in outputs.iter() {
        let args = row.iter().map(|a| {
            a.replace("{dir}", &unwritable_dir)
                .replace("{}", &unwritable)
                .replace("{sample}", &sample)
                .replace("{results}", &results)
        });
        check("output", name, args.collect(), 1);
    }
    let text = table.join("\n");
    eprintln!("{text}");
    assert!(!text.contains("FAIL"), "{text}");
}

/// An output held by another run (here: this test holds its lock, as a running wirebench
/// would) is refused at start by every command that writes one: exit 1, one line naming the
/// holder, nothing measured or printed, the lock left to its holder.
#[test]
fn an_output_in_use_is_refused_at_start_in_every_command() {
    use std::io::Write as _;
    use std::os::unix::io::AsRawFd;
    let dir = TempDir::new("held");
    let sample = dir.0.join("s.json");
    std::fs::write(&sample, "{\"t\":21.5,\"id\":7}").unwrap();
    let results = dir.0.join("r.json");
    wb().args(["size", "-f", "json", "--out", results.to_str().unwrap()]).assert().success();
    let (file, folder) = (dir.0.join("held.json"), dir.0.join("held"));
    let mut locks = Vec::new();
    for lock in [dir.0.join(".held.json.lock"), dir.0.join(".held.lock")] {
        let mut f = std::fs::OpenOptions::new().create(true).truncate(true).read(true).write(true).open(&lock).unwrap();
        // SAFETY: flock(2) on a descriptor this test owns.
        assert_eq!(unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
        writeln!(f, "pid {}, started 2026-01-01T00:00:00Z", std::process::id()).unwrap();
        locks.push((lock, f));
    }
    let dds = !String::from_utf8_lossy(&wb().arg("--version").output().unwrap().stdout).contains("no dds");
    let mut table = Vec::new();
    for (name, row) in output_rows(dds) {
        let args: Vec<String> = row
            .iter()
            .map(|a| {
                a.replace("{dir}", folder.to_str().unwrap())
                    .replace("{}", file.to_str().unwrap())
                    .replace("{sample}", sample.to_str().unwrap())
                    .replace("{results}", results.to_str().unwrap())
            })
            .collect();
        let o = wb().timeout(Duration::from_secs(60)).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr).to_string();
        let ok = o.status.code() == Some(1)
            && stderr.trim_end().lines().count() == 1
            && stderr.contains("in use by another wirebench run")
            && stderr.contains(&format!("(pid {}, started", std::process::id()))
            && o.stdout.is_empty();
        table.push(format!(
            "{} {name:<16} exit {:?}: {}",
            if ok { "ok  " } else { "FAIL" },
            o.status.code(),
            stderr.trim_end()
        ));
    }
    let text = table.join("\n");
    eprintln!("{text}");
    assert!(!text.contains("FAIL"), "{text}");
    for (lock, _) in &locks {
        assert!(lock.exists(), "a refused run removed the holder's lock file {}", lock.display());
    }
    assert!(!file.exists(), "nothing was written");
}
