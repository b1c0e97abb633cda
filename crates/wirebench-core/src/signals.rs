//! Cleanup on SIGINT, SIGTERM and SIGHUP, shared by every part of wirebench that leaves
//! something behind when the process ends early: a lab's namespaces, a broker's temporary
//! folder, a study's results of the parts that finished.
//!
//! [`on_signal`] registers a hook and returns a guard that unregisters it. The first
//! registration installs the handlers: only for signals whose disposition at that moment is not
//! "ignore" (a run started under `nohup` keeps ignoring SIGHUP, so a hangup does not end it).
//! The handler writes the signal number to a self-pipe; a watcher thread runs every hook still
//! registered (newest first), restores the signal's previous disposition and raises it again,
//! so the process ends as it would have without wirebench's handler.

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Mutex, Once};

type Hook = Box<dyn Fn(i32) + Send + Sync>;

static HOOKS: Mutex<Vec<(u64, Hook)>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
#[cfg(target_os = "linux")]
static PIPE_W: AtomicI32 = AtomicI32::new(-1);
static INSTALL: Once = Once::new();
/// The signal being handled (0: none yet).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// The signals handled: interrupt, terminate, hang up.
#[cfg(target_os = "linux")]
pub const SIGNALS: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

#[cfg(target_os = "linux")]
static OLD_ACTIONS: Mutex<Vec<(i32, libc::sigaction)>> = Mutex::new(Vec::new());

/// Unregisters its hook when dropped.
#[derive(Debug)]
#[must_use = "the hook is unregistered when the guard is dropped"]
pub struct HookGuard(u64);

impl Drop for HookGuard {
    fn drop(&mut self) {
        if let Ok(mut h) = HOOKS.lock() {
            h.retain(|(id, _)| *id != self.0);
        }
    }
}

/// Run `hook(signal)` if SIGINT, SIGTERM or SIGHUP (one not ignored at installation) ends the
/// process while the guard lives. Hooks run on the watcher thread, one after the other; they
/// must not wait for the thread that registered them.
pub fn on_signal(hook: impl Fn(i32) + Send + Sync + 'static) -> HookGuard {
    install();
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    HOOKS.lock().unwrap_or_else(|e| e.into_inner()).push((id, Box::new(hook)));
    HookGuard(id)
}

/// The signal that is ending the process, if one is.
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

/// When a signal is ending the process, wait here for its hooks to end it (they run on another
/// thread, then deliver the signal again): a part that noticed its children die must not go
/// on and end the process normally (exit 0) first. Returns at once otherwise.
pub fn wait_if_ending() {
    if received().is_some() {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
    }
}

/// The name of a handled signal, for messages.
pub fn name(sig: i32) -> String {
    #[cfg(target_os = "linux")]
    {
        match sig {
            libc::SIGINT => return "SIGINT".into(),
            libc::SIGTERM => return "SIGTERM".into(),
            libc::SIGHUP => return "SIGHUP".into(),
            _ => {}
        }
    }
    format!("signal {sig}")
}

/// Whether process `pid` exists (a zombie waiting to be reaped counts as ended).
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(st) => st.rsplit_once(')').is_some_and(|(_, r)| !r.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// The processes descended from this one that have not ended (children, their children, ...),
/// from `/proc`.
#[cfg(target_os = "linux")]
pub fn descendants() -> Vec<u32> {
    let mut parent_of: Vec<(u32, u32)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            let Ok(st) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
            let Some((_, rest)) = st.rsplit_once(')') else { continue };
            let mut f = rest.split_whitespace();
            let state = f.next().unwrap_or("");
            let ppid = f.next().and_then(|p| p.parse::<u32>().ok()).unwrap_or(0);
            if state != "Z" && state != "X" {
                parent_of.push((pid, ppid));
            }
        }
    }
    let mut out: Vec<u32> = Vec::new();
    let mut frontier = vec![std::process::id()];
    while let Some(p) = frontier.pop() {
        for &(c, pp) in &parent_of {
            if pp == p && !out.contains(&c) {
                out.push(c);
                frontier.push(c);
            }
        }
    }
    out
}

/// End every process descended from this one (compilers, simulators, make and what it
/// started) with SIGKILL, again until none is left (a thread of ours may start one more while
/// the first ones end; at most 50 passes, 10 ms apart). For a signal hook of a part that runs
/// child processes: the signal that ends wirebench does not reach them unless it came from a
/// terminal.
#[cfg(target_os = "linux")]
pub fn end_descendants() {
    for _ in 0..50 {
        let d = descendants();
        if d.is_empty() {
            return;
        }
        for p in d {
            // SAFETY: kill(2) on a process descended from this one.
            unsafe { libc::kill(p as i32, libc::SIGKILL) };
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[cfg(not(target_os = "linux"))]
pub fn end_descendants() {}

/// Whether `sig`'s disposition is "ignore" right now (as `nohup` leaves SIGHUP).
#[cfg(target_os = "linux")]
pub fn ignored(sig: i32) -> bool {
    // SAFETY: querying the current action into a zeroed struct; no action is installed.
    unsafe {
        let mut cur: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut cur) == 0 && cur.sa_sigaction == libc::SIG_IGN
    }
}

#[cfg(not(target_os = "linux"))]
fn install() {}

#[cfg(target_os = "linux")]
extern "C" fn handler(sig: libc::c_int) {
    // Async-signal-safe: one write(2) to the self-pipe; the watcher thread does the work.
    let fd = PIPE_W.load(Ordering::Relaxed);
    if fd >= 0 {
        let b = sig as u8;
        // SAFETY: writing one byte from a valid stack location to a pipe fd.
        unsafe { libc::write(fd, &b as *const u8 as *const libc::c_void, 1) };
    }
}

#[cfg(target_os = "linux")]
fn install() {
    INSTALL.call_once(|| {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: fds is a valid 2-element array.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return;
        }
        PIPE_W.store(fds[1], Ordering::Relaxed);
        let rfd = fds[0];
        let spawned = std::thread::Builder::new().name("wb-signals".into()).spawn(move || loop {
            let mut b = 0u8;
            // SAFETY: reading one byte into a valid location from our pipe.
            let n = unsafe { libc::read(rfd, &mut b as *mut u8 as *mut libc::c_void, 1) };
            if n != 1 {
                if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return;
            }
            let sig = b as libc::c_int;
            RECEIVED.store(sig, Ordering::Relaxed);
            let hooks: Vec<(u64, Hook)> = HOOKS.lock().map(|mut h| std::mem::take(&mut *h)).unwrap_or_default();
            for (_, hook) in hooks.iter().rev() {
                hook(sig);
            }
            // Give the signal its previous meaning and deliver it again.
            if let Ok(old) = OLD_ACTIONS.lock() {
                if let Some((_, act)) = old.iter().find(|(s, _)| *s == sig) {
                    // SAFETY: restoring a sigaction obtained from the kernel earlier.
                    unsafe { libc::sigaction(sig, act, std::ptr::null_mut()) };
                }
            }
            // SAFETY: raising a signal in our own process.
            unsafe { libc::raise(sig) };
        });
        if spawned.is_err() {
            return;
        }
        let mut old = OLD_ACTIONS.lock().unwrap_or_else(|e| e.into_inner());
        for sig in SIGNALS {
            if ignored(sig) {
                // Started with the signal ignored (nohup, a supervisor): it stays ignored.
                continue;
            }
            // SAFETY: a zeroed sigaction is valid; we set the handler and an empty mask.
            unsafe {
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = handler as *const () as usize;
                act.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut act.sa_mask);
                let mut prev: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, &act, &mut prev) == 0 {
                    old.push((sig, prev));
                }
            }
        }
    });
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// A signal ignored before the first hook is registered stays ignored.
    #[test]
    fn an_ignored_signal_stays_ignored() {
        // SAFETY: setting SIGHUP to SIG_IGN in this test process (as nohup does).
        unsafe { libc::signal(libc::SIGHUP, libc::SIG_IGN) };
        let _g = super::on_signal(|_| {});
        assert!(super::ignored(libc::SIGHUP), "SIGHUP must stay ignored after installation");
        assert!(!super::ignored(libc::SIGTERM));
    }
}
