//! CPU time of a thread, of the calling thread and of the whole process (Linux
//! `clock_gettime`), and the whole machine's busy time (`/proc/stat`), used to tell link-bound
//! from harness-bound and host-bound runs.

/// A clock's reading in nanoseconds (`clock_gettime`), e.g. a thread's CPU clock from
/// `pthread_getcpuclockid`; `None` when the clock cannot be read (the thread has exited).
pub fn clock_ns(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

fn clock_seconds(clock: libc::clockid_t) -> f64 {
    clock_ns(clock).map_or(0.0, |ns| ns as f64 * 1e-9)
}

/// CPU seconds (user + system) the calling thread has used so far.
pub fn thread_cpu_seconds() -> f64 {
    clock_seconds(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU seconds (user + system) the whole process has used so far (all threads).
pub fn process_cpu_seconds() -> f64 {
    clock_seconds(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// (busy, total) jiffies of all CPUs from /proc/stat (busy = total − idle − iowait); `None`
/// where the file is not there or not readable.
pub fn machine_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    parse_machine_ticks(&stat)
}

fn parse_machine_ticks(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let v: Vec<u64> = line.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    if v.len() < 5 {
        return None;
    }
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    let total: u64 = v.iter().take(8).sum();
    Some((total - v[3] - v[4], total))
}

#[cfg(test)]
mod tests {
    #[test]
    fn thread_clock_advances_with_work() {
        let t0 = super::thread_cpu_seconds();
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(super::thread_cpu_seconds() > t0);
        assert!(super::process_cpu_seconds() >= super::thread_cpu_seconds() - 1e-3);
    }

    #[test]
    fn machine_ticks_from_proc_stat() {
        let (busy, total) = super::machine_ticks().expect("/proc/stat on Linux");
        assert!(busy <= total && total > 0);
        let stat = "cpu  10 2 3 100 5 1 1 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n";
        assert_eq!(super::parse_machine_ticks(stat), Some((17, 122)));
        assert_eq!(super::parse_machine_ticks("cpu  1 2\n"), None);
        assert_eq!(super::parse_machine_ticks("intr 1 2 3 4 5\n"), None);
    }
}
