//! What the CLI test files share: the binary with a time bound, scratch directories, and the
//! bad-input check (exit code 2, one stderr line with every needle, nothing on stdout).
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use assert_cmd::Command;

/// The wirebench binary under test: `WIREBENCH_BIN` when set (the test script points it at the
/// release build it makes anyway, so the CLI tests run at release speed), else cargo's build.
pub fn bin() -> PathBuf {
    match std::env::var_os("WIREBENCH_BIN").filter(|b| !b.is_empty()) {
        Some(b) => PathBuf::from(b),
        None => assert_cmd::cargo::cargo_bin("wirebench"),
    }
}

/// The wirebench binary; no test run may take longer than four minutes.
pub fn wb() -> Command {
    let mut c = Command::new(bin());
    c.timeout(Duration::from_secs(240));
    // Tables are printed whole (a COLUMNS of the environment would split wide ones).
    c.env_remove("COLUMNS");
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

/// One socket of a process, read from `/proc`: the protocol table it is in (`tcp`, `udp`,
/// `tcp6`, `udp6`), its local address, its inode and the pid holding it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcSocket {
    pub pid: u32,
    pub proto: &'static str,
    pub local: std::net::SocketAddr,
    pub inode: u64,
    /// TCP state 0A (LISTEN); always false for UDP.
    pub listening: bool,
}

/// `pid` and every process below it.
pub fn process_tree(pid: u32) -> Vec<u32> {
    let mut all = vec![pid];
    let mut i = 0;
    while i < all.len() {
        let parent = all[i];
        if let Ok(dir) = std::fs::read_dir("/proc") {
            for e in dir.flatten() {
                let Some(p) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
                let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else { continue };
                // pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'.
                let ppid = stat.rsplit_once(')').and_then(|(_, r)| r.split_whitespace().nth(1)?.parse::<u32>().ok());
                if ppid == Some(parent) && !all.contains(&p) {
                    all.push(p);
                }
            }
        }
        i += 1;
    }
    all
}

/// The socket inodes `pid` holds.
pub fn socket_inodes(pid: u32) -> Vec<u64> {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return Vec::new() };
    dir.flatten()
        .filter_map(|e| {
            let t = std::fs::read_link(e.path()).ok()?;
            let t = t.to_str()?;
            t.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
        })
        .collect()
}

/// The address of a `/proc/net/{tcp,udp}{,6}` column: hex words in host byte order.
fn proc_addr(s: &str) -> Option<std::net::SocketAddr> {
    let (a, p) = s.split_once(':')?;
    let port = u16::from_str_radix(p, 16).ok()?;
    let words: Vec<u32> =
        (0..a.len() / 8).map(|i| u32::from_str_radix(&a[i * 8..i * 8 + 8], 16)).collect::<Result<_, _>>().ok()?;
    let ip: std::net::IpAddr = match words.len() {
        1 => std::net::Ipv4Addr::from(words[0].to_ne_bytes()).into(),
        4 => {
            let mut b = [0u8; 16];
            for (i, w) in words.iter().enumerate() {
                b[i * 4..i * 4 + 4].copy_from_slice(&w.to_ne_bytes());
            }
            std::net::Ipv6Addr::from(b).into()
        }
        _ => return None,
    };
    Some(std::net::SocketAddr::new(ip, port))
}

/// Every TCP and UDP socket (IPv4 and IPv6) that a process of `pids` holds, in this network
/// namespace.
pub fn sockets_of(pids: &[u32]) -> Vec<ProcSocket> {
    let owners: Vec<(u32, u64)> =
        pids.iter().flat_map(|&p| socket_inodes(p).into_iter().map(move |i| (p, i))).collect();
    let mut out = Vec::new();
    for proto in ["tcp", "tcp6", "udp", "udp6"] {
        let Ok(table) = std::fs::read_to_string(format!("/proc/net/{proto}")) else { continue };
        for line in table.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 10 {
                continue;
            }
            let (Some(local), Ok(inode)) = (proc_addr(f[1]), f[9].parse::<u64>()) else { continue };
            for &(pid, i) in &owners {
                if i == inode && inode != 0 {
                    out.push(ProcSocket {
                        pid,
                        proto,
                        local,
                        inode,
                        listening: proto.starts_with("tcp") && f[3] == "0A",
                    });
                }
            }
        }
    }
    out
}

/// Whether an address a socket is bound to keeps it to this host: loopback only (the wildcard
/// address and every other interface's address do not).
pub fn bound_to_loopback(a: &std::net::SocketAddr) -> bool {
    match a.ip() {
        std::net::IpAddr::V4(ip) => ip.is_loopback(),
        std::net::IpAddr::V6(ip) => ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
    }
}

/// Starts `cmd`, and while it runs samples the sockets of its process tree every 20 ms until
/// `enough` says the samples seen so far show what the test needs; then kills the tree (or lets
/// it finish). Returns every sample. Bounded: gives up after `limit`.
pub fn watch_sockets(
    mut cmd: std::process::Command,
    limit: Duration,
    enough: impl Fn(&[Vec<ProcSocket>]) -> bool,
) -> Vec<Vec<ProcSocket>> {
    use std::process::Stdio;
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let start = std::time::Instant::now();
    let mut samples: Vec<Vec<ProcSocket>> = Vec::new();
    let mut tree = vec![child.id()];
    loop {
        let t = process_tree(child.id());
        for p in &t {
            if !tree.contains(p) {
                tree.push(*p);
            }
        }
        let s = sockets_of(&t);
        if !s.is_empty() {
            samples.push(s);
        }
        if enough(&samples) || start.elapsed() > limit || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for p in tree.iter().rev() {
        // SAFETY: kill(2) on pids of this test's own process tree.
        unsafe { libc::kill(*p as i32, libc::SIGKILL) };
    }
    let _ = child.wait();
    samples
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

/// Start `cmd` with SIGINT at its default, as from a terminal: a suite started in the background
/// (`cmd &` in a script) leaves SIGINT ignored, a child keeps an ignored disposition, and
/// wirebench keeps it too (as `nohup` expects), so a test's Ctrl-C would go unseen.
pub fn sigint_as_from_a_terminal(cmd: &mut std::process::Command) {
    // SAFETY: signal(2) between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(cmd, || {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
}
