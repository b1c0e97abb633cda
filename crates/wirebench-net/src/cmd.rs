//! Running external programs (`ip`, `tc`, `nft`, `wrk`) with a deadline: a command that hangs
//! is killed, never waited for forever.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::NetError;

/// The finished command: exit status and what it printed.
#[derive(Debug)]
pub struct Finished {
    pub success: bool,
    pub status: String,
    pub stdout: String,
    pub stderr: String,
}

pub use wirebench_measure::programs::which;

/// Resolve a program or fail with an install hint.
pub fn require(program: &'static str, hint: &'static str) -> Result<PathBuf, NetError> {
    which(program).ok_or(NetError::ProgramMissing { program, hint })
}

/// Run `program args…`, killing it after `timeout`. Output is read on helper threads so a
/// chatty program cannot block on a full pipe.
pub fn run(program: &std::path::Path, args: &[String], timeout: Duration) -> Result<Finished, NetError> {
    let shown = format!("{} {}", program.display(), args.join(" "));
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so a timeout can end the program and anything it started.
        .process_group(0)
        .spawn()
        .map_err(|e| NetError::io(format!("starting `{shown}`"), e))?;
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let (tx_out, rx_out) = std::sync::mpsc::channel();
    let (tx_err, rx_err) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        let _ = tx_out.send(String::from_utf8_lossy(&s).into_owned());
    });
    std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        let _ = tx_err.send(String::from_utf8_lossy(&s).into_owned());
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if Instant::now() >= deadline => {
                // SAFETY: signalling the process group we created for this child (pgid = pid).
                unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => return Err(NetError::io(format!("waiting for `{shown}`"), e)),
        }
    };
    // A grandchild that outlived the group kill could hold the pipes open: do not wait long.
    let stdout = rx_out.recv_timeout(Duration::from_secs(2)).unwrap_or_default();
    let stderr = rx_err.recv_timeout(Duration::from_secs(2)).unwrap_or_default();
    match status {
        None => Err(NetError::Timeout { what: format!("`{shown}`"), after: timeout }),
        Some(st) => {
            Ok(Finished { success: st.success(), status: st.to_string(), stdout, stderr: stderr.trim().to_string() })
        }
    }
}

/// Run and require success.
pub fn run_ok(program: &std::path::Path, args: &[String], timeout: Duration) -> Result<Finished, NetError> {
    let f = run(program, args, timeout)?;
    if f.success {
        Ok(f)
    } else {
        Err(NetError::Command {
            command: format!("{} {}", program.display(), args.join(" ")),
            status: f.status,
            stderr: f.stderr,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_kills_and_output_is_read() {
        let sh = which("sh").unwrap();
        let f = run(&sh, &["-c".into(), "echo hi; echo oops >&2; exit 3".into()], Duration::from_secs(5)).unwrap();
        assert!(!f.success);
        assert_eq!(f.stdout.trim(), "hi");
        assert_eq!(f.stderr, "oops");
        let t0 = Instant::now();
        let e = run(&sh, &["-c".into(), "sleep 5".into()], Duration::from_millis(100)).unwrap_err();
        assert!(matches!(e, NetError::Timeout { .. }), "{e}");
        assert!(t0.elapsed() < Duration::from_secs(2));
        assert!(require("surely-not-a-program-xyz", "hint").is_err());
    }
}
