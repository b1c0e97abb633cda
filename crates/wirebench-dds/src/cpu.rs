//! Running a latency measurement on one CPU.
//!
//! A ping-pong between two processes on a 2-vCPU virtual machine flips between two modes: when
//! the two ends run on different vCPUs, every hand-off wakes a halted vCPU through the
//! hypervisor (~20 µs more per half round trip here), and when the scheduler happens to put them
//! on one vCPU it does not. Which mode a run lands in is the host's choice, not the software's,
//! and a paired ratio whose two sides landed in different modes says nothing (0.33 against 1.05
//! in the same run). With [`on_cpu`] every process and thread of the run — ours, its peer,
//! Cyclone's threads, ddsperf's ping and pong — is on one CPU, so both tools pay the same
//! hand-off and the ratio measures the software path.

use crate::DdsError;

/// Run `f` with the calling thread (and so every thread and process it starts) on `cpu`, then
/// put the thread's former CPU set back. `None`: run `f` as is.
pub fn on_cpu<R>(cpu: Option<u32>, f: impl FnOnce() -> R) -> Result<R, DdsError> {
    let Some(cpu) = cpu else { return Ok(f()) };
    let before = current()?;
    set(&only(cpu)?).map_err(|e| DdsError::Config(format!("cannot run on CPU {cpu}: {e}")))?;
    let r = f();
    set(&before).map_err(|e| DdsError::Config(format!("cannot restore the CPU set: {e}")))?;
    Ok(r)
}

/// The number of CPUs this process may run on.
pub fn usable() -> usize {
    current()
        .map(|s| (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &s) }).count())
        .unwrap_or(1)
}

/// Whether this process may run on `cpu`.
pub fn allowed(cpu: u32) -> bool {
    (cpu as usize) < libc::CPU_SETSIZE as usize && current().is_ok_and(|s| unsafe { libc::CPU_ISSET(cpu as usize, &s) })
}

fn only(cpu: u32) -> Result<libc::cpu_set_t, DdsError> {
    if !allowed(cpu) {
        return Err(DdsError::Config(format!("CPU {cpu} is not one this process may run on ({} usable)", usable())));
    }
    // SAFETY: cpu_set_t is plain data; CPU_ZERO and CPU_SET write within it (cpu < CPU_SETSIZE).
    unsafe {
        let mut s: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_ZERO(&mut s);
        libc::CPU_SET(cpu as usize, &mut s);
        Ok(s)
    }
}

fn current() -> Result<libc::cpu_set_t, DdsError> {
    // SAFETY: the kernel writes at most size_of::<cpu_set_t>() bytes into `s`.
    unsafe {
        let mut s: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut s) != 0 {
            return Err(DdsError::Config(format!("sched_getaffinity: {}", std::io::Error::last_os_error())));
        }
        Ok(s)
    }
}

fn set(s: &libc::cpu_set_t) -> Result<(), std::io::Error> {
    // SAFETY: `s` is a valid cpu_set_t of the size given.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), s) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_on_the_cpu_and_puts_the_set_back() {
        let before = usable();
        let seen = on_cpu(Some(0), || {
            // A process started here inherits the set.
            let out =
                std::process::Command::new("grep").args(["Cpus_allowed_list", "/proc/self/status"]).output().unwrap();
            (usable(), String::from_utf8_lossy(&out.stdout).trim().to_string())
        })
        .unwrap();
        assert_eq!(seen.0, 1, "one CPU inside");
        assert_eq!(seen.1.split_whitespace().last(), Some("0"), "{}", seen.1);
        assert_eq!(usable(), before, "restored");
        assert_eq!(on_cpu(None, || 7).unwrap(), 7);
        let e = on_cpu(Some(100_000), || ()).unwrap_err().to_string();
        assert!(e.contains("CPU 100000"), "{e}");
    }
}
