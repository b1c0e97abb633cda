//! DDS domain ids leased host-wide, so that two wirebench runs on one host never use one domain
//! at the same time (their samples, pings and pongs would mix, and each would count the other's).
//! A lease is an exclusive `flock(2)` on a file per domain id in a folder every user of the host
//! shares (`$TMPDIR/wirebench-dds-domains`, sticky and world-writable like `/tmp`); the kernel
//! drops it however its holder ends (`kill -9` too), so a file left behind never blocks a run.
//! A run takes the first free id among its candidates; when every one is held, it waits for the
//! first. Where no lock can be taken (a read-only temporary folder), the run goes on unleased,
//! as it would have without this module.

use std::fs::File;
use std::path::PathBuf;

/// A domain id held until the lease is dropped.
#[derive(Debug)]
pub struct Lease {
    pub domain: u32,
    _file: Option<File>,
}

/// The folder of the lock files.
fn folder() -> PathBuf {
    std::env::temp_dir().join("wirebench-dds-domains")
}

/// The lock file of `domain`, opened (created if missing) for `flock`.
fn open(domain: u32) -> Option<File> {
    let dir = folder();
    if !dir.is_dir() && std::fs::create_dir_all(&dir).is_ok() {
        use std::os::unix::fs::PermissionsExt;
        // Shared by every user of the host, each removing only their own files.
        let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777));
    }
    let path = dir.join(format!("domain-{domain}.lock"));
    let rw = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path);
    // Another user's file: a read-only descriptor takes the lock as well.
    rw.or_else(|_| File::open(&path)).ok()
}

/// `flock` on `f`; `wait`: block until it is free.
fn lock(f: &File, wait: bool) -> bool {
    use std::os::fd::AsRawFd;
    let op = if wait { libc::LOCK_EX } else { libc::LOCK_EX | libc::LOCK_NB };
    loop {
        // SAFETY: flock(2) on a descriptor this function borrows.
        if unsafe { libc::flock(f.as_raw_fd(), op) } == 0 {
            return true;
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return false;
        }
    }
}

/// The first of `candidates` (at least one) no other run holds, leased; when every one is held,
/// the first, once its holder lets it go.
pub fn lease(candidates: &[u32]) -> Lease {
    assert!(!candidates.is_empty(), "no candidate domain");
    for &d in candidates {
        match open(d) {
            Some(f) if lock(&f, false) => return Lease { domain: d, _file: Some(f) },
            Some(_) => continue,
            // No lock file can be made here: unleased, as before leases.
            None => return Lease { domain: d, _file: None },
        }
    }
    let d = candidates[0];
    let file = open(d).filter(|f| lock(f, true));
    Lease { domain: d, _file: file }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_domain_is_skipped_and_free_again_when_dropped() {
        // Ids far from the ones the other tests and the studies use.
        let a = lease(&[217, 218, 219]);
        assert_eq!(a.domain, 217);
        // A second lease in this process is another open file description: flock excludes it.
        let b = lease(&[217, 218, 219]);
        assert_eq!(b.domain, 218);
        drop(a);
        let c = lease(&[217, 218, 219]);
        assert_eq!(c.domain, 217);
    }
}
