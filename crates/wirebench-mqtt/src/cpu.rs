//! CPU accounting: was the harness (our own client threads) the bottleneck?
//!
//! Every measurement runs its clients on a dedicated tokio runtime whose worker threads register
//! their per-thread CPU clocks (`pthread_getcpuclockid`) at start, so the harness's CPU time is
//! known separately from the process's (which includes an embedded broker's threads).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use wirebench_measure::cpu::clock_ns;

use crate::error::MqttError;

/// A run is harness-bound when our client threads used at least this many cores on average.
pub const HARNESS_BOUND_CORES: f64 = 0.9;

/// CPU time against wall time over a measured interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuUsage {
    pub wall_seconds: f64,
    /// CPU time of the whole process (includes an embedded broker's threads).
    pub process_cpu_seconds: f64,
    /// CPU time of the harness's client threads only.
    pub harness_cpu_seconds: f64,
    /// `harness_cpu_seconds / wall_seconds`: cores the harness kept busy.
    pub harness_cores: f64,
    /// `process_cpu_seconds / wall_seconds`.
    pub process_cores: f64,
    /// CPUs of the machine.
    pub machine_cores: usize,
    /// `harness_cores ≥ 0.9`: our own client threads, not the broker or the link, set the pace.
    pub harness_bound: bool,
}

#[derive(Clone, Default)]
pub(crate) struct ThreadClocks(Arc<Mutex<Vec<libc::clockid_t>>>);

impl ThreadClocks {
    fn register_current(&self) {
        let mut clk: libc::clockid_t = 0;
        // SAFETY: pthread_self() is the calling thread; clk is a valid out-pointer.
        let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clk) };
        if rc == 0 {
            if let Ok(mut v) = self.0.lock() {
                v.push(clk);
            }
        }
    }

    /// Each registered thread's CPU time now (threads that have exited are left out).
    fn snapshot(&self) -> Vec<(libc::clockid_t, u64)> {
        let v = self.0.lock().map(|v| v.clone()).unwrap_or_default();
        v.iter().filter_map(|&c| clock_ns(c).map(|ns| (c, ns))).collect()
    }
}

/// A snapshot at the start of a measured interval.
pub(crate) struct CpuStart {
    wall: Instant,
    process_ns: u64,
    harness: Vec<(libc::clockid_t, u64)>,
}

impl CpuStart {
    pub(crate) fn take(clocks: &ThreadClocks) -> CpuStart {
        CpuStart {
            wall: Instant::now(),
            process_ns: clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID).unwrap_or(0),
            harness: clocks.snapshot(),
        }
    }

    pub(crate) fn finish(&self, clocks: &ThreadClocks) -> CpuUsage {
        let wall = self.wall.elapsed().as_secs_f64();
        let process =
            clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID).unwrap_or(0).saturating_sub(self.process_ns) as f64 / 1e9;
        // Per thread: CPU since the start snapshot (threads started later count from zero).
        let harness_ns: u64 = clocks
            .snapshot()
            .iter()
            .map(|&(c, ns)| {
                let before = self.harness.iter().find(|(c0, _)| *c0 == c).map_or(0, |&(_, n)| n);
                ns.saturating_sub(before)
            })
            .sum();
        let harness = harness_ns as f64 / 1e9;
        let per = |x: f64| if wall > 0.0 { x / wall } else { 0.0 };
        CpuUsage {
            wall_seconds: wall,
            process_cpu_seconds: process,
            harness_cpu_seconds: harness,
            harness_cores: per(harness),
            process_cores: per(process),
            machine_cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            harness_bound: per(harness) >= HARNESS_BOUND_CORES,
        }
    }
}

/// The runtime every measurement (ours and the bare baselines alike) runs its clients on.
pub(crate) fn runtime(workers: usize) -> Result<(tokio::runtime::Runtime, ThreadClocks), MqttError> {
    if workers == 0 {
        return Err(MqttError::Config("worker_threads must be at least 1".into()));
    }
    let clocks = ThreadClocks::default();
    let c = clocks.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name("wb-mqtt-client")
        .enable_all()
        .on_thread_start(move || c.register_current())
        .build()
        .map_err(|e| MqttError::io("starting the client runtime", e))?;
    Ok((rt, clocks))
}
