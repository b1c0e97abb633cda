//! Cyclone's own `ddsperf` (0.10.2 from Debian's cyclonedds-tools) as the native anchor: run it
//! on loopback (the same [`crate::config`] as ours, via `CYCLONEDDS_URI`) and parse its output.
//!
//! - Latency: `ddsperf pong` and `ddsperf ping size S` (back to back). ddsperf prints per-second
//!   windows `... size S mean Xus min 50% 90% 99% max cnt` of half round trips. Its percentiles
//!   are per window, so we report the median over windows (first window dropped: discovery),
//!   the count-weighted mean and the largest max — not a pooled histogram like ours.
//! - Throughput: `ddsperf sub` and `ddsperf pub size S` (flat out, reliable, KEEP_ALL, batched
//!   writes). The subscriber prints `size S total T lost L delta D lost L rate R kS/s M Mb/s`
//!   per second; we report the median rate over the windows with data, dropping the first two and
//!   the last when there are at least five (start and end are partial).
//! - `size S` includes the 12-byte fixed part of KeyedSeq: `size = payload + 12` gives ddsperf the
//!   same baggage as our raw payload.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::config::ConfigFile;
use crate::{DdsError, KEYEDSEQ_FIXED};
use wirebench_core::sections::dds::payload_mb;
use wirebench_measure::stats::median_nearest_rank as median;

/// The program (override with `WIREBENCH_DDSPERF`).
pub fn program() -> String {
    std::env::var("WIREBENCH_DDSPERF").unwrap_or_else(|_| "ddsperf".into())
}

/// Whether `ddsperf` can be run.
pub fn available() -> bool {
    Command::new(program())
        .arg("help")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// The per-second lines of `ddsperf ping` and `ddsperf sub` and their summaries over a run
/// (results data, in `wirebench-core`).
pub use wirebench_core::sections::dds::{DdsperfLatency, DdsperfThroughput, PingWindow, SubWindow};

fn us(tok: &str) -> Option<f64> {
    tok.strip_suffix("us").unwrap_or(tok).parse().ok()
}

fn after<'a>(toks: &[&'a str], key: &str) -> Option<&'a str> {
    toks.iter().position(|t| *t == key).and_then(|i| toks.get(i + 1)).copied()
}

/// Parse a `ddsperf ping` window line; `None` for other lines.
pub fn parse_ping_line(line: &str) -> Option<PingWindow> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    if !toks.first()?.starts_with('[') || !toks.contains(&"mean") || !toks.contains(&"cnt") {
        return None;
    }
    Some(PingWindow {
        t: toks.get(1)?.parse().ok()?,
        size: after(&toks, "size")?.parse().ok()?,
        mean: us(after(&toks, "mean")?)?,
        min: us(after(&toks, "min")?)?,
        p50: us(after(&toks, "50%")?)?,
        p90: us(after(&toks, "90%")?)?,
        p99: us(after(&toks, "99%")?)?,
        max: us(after(&toks, "max")?)?,
        cnt: after(&toks, "cnt")?.parse().ok()?,
    })
}

/// Parse a `ddsperf sub` window line; `None` for other lines.
pub fn parse_sub_line(line: &str) -> Option<SubWindow> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    if !toks.first()?.starts_with('[') || !toks.contains(&"total") || !toks.contains(&"rate") {
        return None;
    }
    let mbit =
        toks.iter().position(|t| *t == "Mb/s").and_then(|i| i.checked_sub(1)).and_then(|i| toks[i].parse().ok())?;
    let rate_unit = toks.iter().position(|t| *t == "rate").and_then(|i| toks.get(i + 2)).copied()?;
    let rate: f64 = after(&toks, "rate")?.parse().ok()?;
    let ksps = match rate_unit {
        "kS/s" => rate,
        "S/s" => rate / 1e3,
        "MS/s" => rate * 1e3,
        _ => return None,
    };
    Some(SubWindow {
        t: toks.get(1)?.parse().ok()?,
        size: after(&toks, "size")?.parse().ok()?,
        total: after(&toks, "total")?.parse().ok()?,
        lost: after(&toks, "lost")?.parse().ok()?,
        delta: after(&toks, "delta")?.parse().ok()?,
        ksps,
        mbit_per_s: mbit,
    })
}

/// Summarize ping windows (the first one dropped when there are more).
pub fn summarize_ping(size: usize, windows: Vec<PingWindow>) -> Result<DdsperfLatency, DdsError> {
    let used: Vec<&PingWindow> = windows.iter().skip(usize::from(windows.len() > 1)).filter(|w| w.cnt > 0).collect();
    if used.is_empty() {
        return Err(DdsError::Ddsperf(format!("ping at size {size} printed no latency window")));
    }
    let cnt: u64 = used.iter().map(|w| w.cnt).sum();
    Ok(DdsperfLatency {
        size,
        windows_used: used.len(),
        round: 0,
        round_trips: cnt,
        p50: median(used.iter().map(|w| w.p50).collect()),
        p90: median(used.iter().map(|w| w.p90).collect()),
        p99: median(used.iter().map(|w| w.p99).collect()),
        mean: used.iter().map(|w| w.mean * w.cnt as f64).sum::<f64>() / cnt.max(1) as f64,
        min: used.iter().map(|w| w.min).fold(f64::INFINITY, f64::min),
        max: used.iter().map(|w| w.max).fold(0.0, f64::max),
        windows: windows.clone(),
        payload: Some(size.saturating_sub(KEYEDSEQ_FIXED)),
    })
}

/// Summarize sub windows: the median rate over the windows with data, without the first two
/// and the last when there are at least five.
pub fn summarize_sub(size: usize, windows: Vec<SubWindow>) -> Result<DdsperfThroughput, DdsError> {
    let with_data: Vec<&SubWindow> = windows.iter().filter(|w| w.delta > 0).collect();
    let used: Vec<&SubWindow> =
        if with_data.len() >= 5 { with_data[2..with_data.len() - 1].to_vec() } else { with_data.clone() };
    if used.is_empty() {
        return Err(DdsError::Ddsperf(format!("sub at size {size} received nothing")));
    }
    let rates: Vec<f64> = used.iter().map(|w| w.ksps * 1e3).collect();
    let sps = median(rates.clone());
    let payload = size.saturating_sub(KEYEDSEQ_FIXED);
    let steady = steady_rate(&windows).map(|s| s.samples_per_s);
    Ok(DdsperfThroughput {
        steady_samples_per_s: steady,
        size,
        windows_used: used.len(),
        round: 0,
        samples_per_s: sps,
        mb_per_s: sps * size as f64 / 1e6,
        min_samples_per_s: rates.iter().copied().fold(f64::INFINITY, f64::min),
        max_samples_per_s: rates.iter().copied().fold(0.0, f64::max),
        total: windows.iter().map(|w| w.total).max().unwrap_or(0),
        lost: windows.last().map(|w| w.lost).unwrap_or(0),
        windows,
        payload: Some(payload),
        payload_mb_per_s: Some(payload_mb(sps, payload)),
    })
}

/// ddsperf's throughput in steady state, by the estimator of ours (samples ÷ time over the
/// stretch after the start, not a median of windows): the samples of every window with data but
/// the first (it holds the start) and the last (`pub` stops inside it), divided by the time those
/// windows span (each window runs from the previous line's time to its own). `None` with fewer
/// than three windows with data (no window is whole then).
pub fn steady_rate(windows: &[SubWindow]) -> Option<SteadyRate> {
    let with: Vec<usize> = (0..windows.len()).filter(|&i| windows[i].delta > 0).collect();
    if with.len() < 3 {
        return None;
    }
    let used = &with[1..with.len() - 1];
    let (mut samples, mut secs) = (0u64, 0.0f64);
    let mut rates = Vec::with_capacity(used.len());
    for &i in used {
        // The first window with data is not used, so every used one has a line before it.
        let dt = windows[i].t - windows[i - 1].t;
        // Also refuses a NaN.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !(dt > 0.0) {
            return None;
        }
        samples += windows[i].delta;
        secs += dt;
        rates.push(windows[i].delta as f64 / dt);
    }
    Some(SteadyRate { samples_per_s: samples as f64 / secs, samples, secs, windows: used.len(), window_rates: rates })
}

/// See [`steady_rate`].
#[derive(Clone, Debug, PartialEq)]
pub struct SteadyRate {
    pub samples_per_s: f64,
    /// Samples and seconds of the windows used.
    pub samples: u64,
    pub secs: f64,
    pub windows: usize,
    /// Each used window's own rate (for its spread).
    pub window_rates: Vec<f64>,
}

/// A run's steady-state samples/s as the checks and ours ÷ ddsperf use it: [`steady_rate`] of
/// its windows (as stored, else from the windows of a file written before it was stored), else
/// (too few windows) its median.
pub fn steady_samples_per_s(r: &DdsperfThroughput) -> f64 {
    r.steady_samples_per_s.or_else(|| steady_rate(&r.windows).map(|s| s.samples_per_s)).unwrap_or(r.samples_per_s)
}

/// A running ddsperf; killed on drop.
pub struct Proc {
    child: Child,
    out: Option<JoinHandle<String>>,
}

impl Proc {
    pub fn spawn(cfg: &ConfigFile, domain: u32, args: &[String]) -> Result<Proc, DdsError> {
        crate::close_on_exec_all();
        let mut child = Command::new(program())
            .arg("-i")
            .arg(domain.to_string())
            .args(args)
            .env("CYCLONEDDS_URI", cfg.uri())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| DdsError::Ddsperf(format!("cannot run {}: {e}", program())))?;
        let mut stdout = child.stdout.take().ok_or_else(|| DdsError::Ddsperf("no stdout".into()))?;
        let out = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stdout.read_to_string(&mut s);
            s
        });
        Ok(Proc { child, out: Some(out) })
    }

    /// Wait for the exit until `timeout`, then kill; the output either way.
    pub fn finish(mut self, timeout: Duration) -> (bool, String) {
        let deadline = Instant::now() + timeout;
        let exited = loop {
            match self.child.try_wait() {
                Ok(Some(st)) => break st.success(),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break false;
                }
            }
        };
        let out = self.out.take().and_then(|h| h.join().ok()).unwrap_or_default();
        (exited, out)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// `ddsperf pong` + `ddsperf ping size S` for `secs` seconds.
pub fn latency(domain: u32, size: usize, secs: u32) -> Result<DdsperfLatency, DdsError> {
    let cfg = ConfigFile::create()?;
    let pong = Proc::spawn(&cfg, domain, &[format!("-D{}", secs + 3), "pong".into()])?;
    let ping = Proc::spawn(&cfg, domain, &[format!("-D{secs}"), "ping".into(), "size".into(), size.to_string()])?;
    let (_, out) = ping.finish(Duration::from_secs(u64::from(secs) + 15));
    drop(pong);
    let windows: Vec<PingWindow> = out.lines().filter_map(parse_ping_line).collect();
    summarize_ping(size, windows)
}

/// `ddsperf sub` + `ddsperf pub size S` for `secs` seconds.
pub fn throughput(domain: u32, size: usize, secs: u32) -> Result<DdsperfThroughput, DdsError> {
    let cfg = ConfigFile::create()?;
    let sub = Proc::spawn(&cfg, domain, &[format!("-D{}", secs + 2), "sub".into()])?;
    let publ = Proc::spawn(&cfg, domain, &[format!("-D{secs}"), "pub".into(), "size".into(), size.to_string()])?;
    let _ = publ.finish(Duration::from_secs(u64::from(secs) + 15));
    let (_, out) = sub.finish(Duration::from_secs(10));
    let windows: Vec<SubWindow> = out.lines().filter_map(parse_sub_line).collect();
    summarize_sub(size, windows)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines as ddsperf 0.10.2 printed them on this machine.
    const PING: &str = "[13786] 2.000  vm:13769 size 2048 mean 10.418us min 7.601us 50% 8.151us 90% 10.205us 99% 23.795us max 2632.614us cnt 47722";
    const SUB: &str = "[13735] 3.000  size 2048 total 993599 lost 0 delta 412421 lost 0 rate 412.43 kS/s 6757.26 Mb/s (99.36 kS/s 1627.95 Mb/s)";

    #[test]
    fn parses_a_ping_window() {
        let w = parse_ping_line(PING).unwrap();
        assert_eq!(w.size, 2048);
        assert_eq!(
            (w.t, w.mean, w.min, w.p50, w.p90, w.p99, w.max, w.cnt),
            (2.0, 10.418, 7.601, 8.151, 10.205, 23.795, 2632.614, 47722)
        );
        assert!(parse_ping_line("[13786] participant vm:13769: new").is_none());
        assert!(parse_ping_line("[13786] 3.000  rss:8.1MB vcsw:29990 ivcsw:25861 recvUC:15%+33%").is_none());
        assert!(parse_ping_line("").is_none());
    }

    #[test]
    fn parses_a_sub_window() {
        let w = parse_sub_line(SUB).unwrap();
        assert_eq!((w.t, w.size, w.total, w.lost, w.delta), (3.0, 2048, 993599, 0, 412421));
        assert_eq!((w.ksps, w.mbit_per_s), (412.43, 6757.26));
        assert!(parse_sub_line("[13748] 3.000  437k/s   0n |@-....__.....___..............|   0%  46m").is_none());
    }

    /// Σ delta ÷ Σ dt over the whole windows (not the median of their rates): a slow window
    /// weighs what it lasted, like a slow stretch of ours.
    #[test]
    fn steady_rate_is_samples_over_time_of_the_whole_windows() {
        let w = |t: f64, delta: u64| SubWindow { t, size: 2060, total: 0, lost: 0, delta, ksps: 0.0, mbit_per_s: 0.0 };
        // Discovery (no data), the start, three whole windows (one of them 1.5 s long), the end.
        let ws = vec![w(1.0, 0), w(2.0, 100), w(3.0, 400), w(4.5, 300), w(5.5, 500), w(6.0, 50)];
        let s = steady_rate(&ws).unwrap();
        assert_eq!((s.samples, s.windows), (1200, 3));
        assert!((s.secs - 3.5).abs() < 1e-12);
        assert!((s.samples_per_s - 1200.0 / 3.5).abs() < 1e-9, "{}", s.samples_per_s);
        assert_eq!(s.window_rates, vec![400.0, 200.0, 500.0]);
        // The median of the window rates would say 400: the estimators differ on purpose.
        assert!(steady_rate(&ws[..3]).is_none(), "two windows with data: none whole");
        assert!(steady_rate(&[w(1.0, 5), w(1.0, 5), w(1.0, 5)]).is_none(), "no time");
        let r = DdsperfThroughput { windows: ws, ..summarize_sub(2060, vec![w(1.0, 1)]).unwrap() };
        assert!((steady_samples_per_s(&r) - 1200.0 / 3.5).abs() < 1e-9);
        let old = DdsperfThroughput { windows: vec![], samples_per_s: 7.0, ..r };
        assert_eq!(steady_samples_per_s(&old), 7.0);
    }

    #[test]
    fn summaries_drop_partial_windows() {
        let mk = |t: f64, p50: f64, cnt: u64| PingWindow {
            t,
            size: 2048,
            mean: p50,
            min: p50,
            p50,
            p90: p50,
            p99: p50,
            max: p50,
            cnt,
        };
        let s =
            summarize_ping(2048, vec![mk(1.0, 100.0, 10), mk(2.0, 8.0, 100), mk(3.0, 9.0, 300), mk(4.0, 10.0, 100)])
                .unwrap();
        assert_eq!((s.windows_used, s.round_trips, s.p50, s.max), (3, 500, 9.0, 10.0));
        assert!((s.mean - (800.0 + 2700.0 + 1000.0) / 500.0).abs() < 1e-9);
        assert!(summarize_ping(2048, vec![]).is_err());

        let w = |t: f64, ksps: f64| SubWindow { t, size: 2048, total: 0, lost: 0, delta: 1, ksps, mbit_per_s: 0.0 };
        let s = summarize_sub(
            2048,
            vec![w(1.0, 1.0), w(2.0, 2.0), w(3.0, 300.0), w(4.0, 100.0), w(5.0, 200.0), w(6.0, 5.0)],
        )
        .unwrap();
        assert_eq!((s.windows_used, s.samples_per_s), (3, 200_000.0));
        assert!((s.mb_per_s - 409.6).abs() < 1e-9);
        assert!(summarize_sub(2048, vec![]).is_err());
    }
}
