//! The reference: Debian's `wrk` (4.1.0) run against the same server, for side-by-side ratios
//! (spec §5 goal 1). A Lua script makes it POST the body with the right Content-Type (the
//! spec's `post_N.lua`); its text output is parsed.

use std::time::Duration;

use crate::cmd;
use crate::NetError;

/// How to run wrk.
#[derive(Clone, Debug)]
pub struct WrkConfig {
    pub url: String,
    pub body: Vec<u8>,
    pub content_type: String,
    pub connections: usize,
    pub threads: usize,
    pub duration: Duration,
    /// wrk's `--timeout`.
    pub timeout: Duration,
    /// Run through `ip netns exec <ns>`.
    pub netns: Option<String>,
}

pub use wirebench_core::sections::net::WrkReport;

/// A Lua long-string-free literal for `bytes`: printable ASCII as is, the rest as `\ddd`.
pub fn lua_string(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    s.push('"');
    for &b in bytes {
        match b {
            b'"' | b'\\' => {
                s.push('\\');
                s.push(b as char);
            }
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\{b:03}")),
        }
    }
    s.push('"');
    s
}

fn children_cpu_seconds() -> f64 {
    // SAFETY: a zeroed rusage is a valid out-parameter.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_CHILDREN with a valid pointer.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// `wrk -t1 -c<conns> -d<secs>s` POSTing `body` as `application/json` to `url`.
pub fn wrk_baseline(url: &str, body: &[u8], conns: usize, secs: u64) -> Result<WrkReport, NetError> {
    run(&WrkConfig {
        url: url.into(),
        body: body.to_vec(),
        content_type: "application/json".into(),
        connections: conns,
        threads: 1,
        duration: Duration::from_secs(secs),
        timeout: Duration::from_secs(5),
        netns: None,
    })
}

/// Run wrk as configured and parse its report.
pub fn run(cfg: &WrkConfig) -> Result<WrkReport, NetError> {
    let wrk = cmd::require("wrk", "the baseline needs wrk: apt-get install wrk")?;
    if cfg.connections == 0 || cfg.threads == 0 || cfg.threads > cfg.connections {
        return Err(NetError::invalid("wrk connections/threads", format!("{} / {}", cfg.connections, cfg.threads)));
    }
    let secs = cfg.duration.as_secs().max(1);
    if secs > 3600 {
        return Err(NetError::invalid("duration", "wrk runs are limited to 1 h"));
    }
    let lua = format!(
        "wrk.method = \"POST\"\nwrk.body = {}\nwrk.headers[\"Content-Type\"] = {}\n",
        lua_string(&cfg.body),
        lua_string(cfg.content_type.as_bytes())
    );
    // Unpredictable name, created exclusively (no link followed); removed when dropped.
    let script_file = tempfile::Builder::new()
        .prefix("wb-wrk-")
        .suffix(".lua")
        .tempfile()
        .and_then(|mut f| std::io::Write::write_all(&mut f, lua.as_bytes()).map(|()| f))
        .map_err(|e| NetError::io("writing the wrk script", e))?;
    let script = script_file.path().to_path_buf();
    let mut args: Vec<String> = Vec::new();
    let program = match &cfg.netns {
        Some(ns) => {
            args.extend(["netns".into(), "exec".into(), ns.clone(), wrk.display().to_string()]);
            cmd::require("ip", "install iproute2")?
        }
        None => wrk.clone(),
    };
    args.extend([
        format!("-t{}", cfg.threads),
        format!("-c{}", cfg.connections),
        format!("-d{secs}s"),
        "--timeout".into(),
        format!("{}s", cfg.timeout.as_secs().max(1)),
        "--latency".into(),
        "-s".into(),
        script.display().to_string(),
        cfg.url.clone(),
    ]);
    let c0 = children_cpu_seconds();
    let result = cmd::run_ok(&program, &args, Duration::from_secs(secs + 20));
    let cpu = children_cpu_seconds() - c0;
    drop(script_file);
    let out = result?;
    let mut r = parse(&out.stdout)?;
    r.url = cfg.url.clone();
    r.connections = cfg.connections;
    r.threads = cfg.threads;
    r.body_bytes = cfg.body.len();
    r.cpu_s = cpu;
    Ok(r)
}

/// A wrk duration ("1.53ms", "231.43us", "2.00s", "1.00m") in microseconds.
fn parse_time_us(t: &str) -> Option<f64> {
    let t = t.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic())?;
    let (n, unit) = t.split_at(split);
    let v: f64 = n.parse().ok()?;
    Some(match unit {
        "us" => v,
        "ms" => v * 1e3,
        "s" => v * 1e6,
        "m" => v * 60e6,
        "h" => v * 3600e6,
        _ => return None,
    })
}

/// A wrk size ("51.44MB", "5.14MB", "823.00KB", "12B") in bytes (wrk uses 1024-based units).
fn parse_size(t: &str) -> Option<f64> {
    let t = t.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic())?;
    let (n, unit) = t.split_at(split);
    let v: f64 = n.parse().ok()?;
    Some(
        v * match unit {
            "B" => 1.0,
            "KB" => 1024.0,
            "MB" => 1024.0 * 1024.0,
            "GB" => 1024.0 * 1024.0 * 1024.0,
            _ => return None,
        },
    )
}

/// Parse wrk 4.x text output.
pub fn parse(out: &str) -> Result<WrkReport, NetError> {
    let bad = |what| NetError::WrkOutput { what, output: out.chars().take(600).collect() };
    let mut r = WrkReport { tool: "wrk".into(), ..Default::default() };
    let mut have_rps = false;
    let mut have_count = false;
    for line in out.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(v) = line.strip_prefix("Requests/sec:") {
            r.requests_per_sec = v.trim().parse().map_err(|_| bad("Requests/sec"))?;
            have_rps = true;
        } else if let Some(v) = line.strip_prefix("Transfer/sec:") {
            r.response_mb_per_sec = parse_size(v).ok_or_else(|| bad("Transfer/sec"))? / 1e6;
        } else if words.first() == Some(&"Latency") && words.len() >= 4 {
            r.latency_avg_us = parse_time_us(words[1]).ok_or_else(|| bad("Latency avg"))?;
            r.latency_stdev_us = parse_time_us(words[2]).ok_or_else(|| bad("Latency stdev"))?;
            r.latency_max_us = parse_time_us(words[3]).ok_or_else(|| bad("Latency max"))?;
        } else if words.len() == 2 && words[0].ends_with('%') {
            let v = parse_time_us(words[1]);
            match words[0] {
                "50%" => r.p50_us = v,
                "75%" => r.p75_us = v,
                "90%" => r.p90_us = v,
                "99%" => r.p99_us = v,
                _ => {}
            }
        } else if words.len() >= 4 && words[1] == "requests" && words[2] == "in" {
            r.requests = words[0].parse().map_err(|_| bad("request count"))?;
            r.duration_s = parse_time_us(words[3].trim_end_matches(',')).ok_or_else(|| bad("duration"))? / 1e6;
            have_count = true;
        } else if let Some(v) = line.strip_prefix("Socket errors:") {
            for part in v.split(',') {
                let mut it = part.split_whitespace();
                if let (Some(k), Some(n)) = (it.next(), it.next().and_then(|n| n.parse::<u64>().ok())) {
                    match k {
                        "connect" => r.errors_connect = n,
                        "read" => r.errors_read = n,
                        "write" => r.errors_write = n,
                        "timeout" => r.errors_timeout = n,
                        _ => {}
                    }
                }
            }
        } else if let Some(v) = line.strip_prefix("Non-2xx or 3xx responses:") {
            r.non_2xx_3xx = v.trim().parse().unwrap_or(0);
        }
    }
    if !have_rps || !have_count {
        return Err(bad("no 'Requests/sec' or 'N requests in' line"));
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Running 10s test @ http://127.0.0.1:8080/ingest
  1 threads and 100 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.53ms  231.43us   8.36ms   92.18%
    Req/Sec    65.95k     2.53k   70.35k    87.00%
  Latency Distribution
     50%    1.51ms
     75%    1.60ms
     90%    1.71ms
     99%    2.16ms
  656245 requests in 10.00s, 51.44MB read
  Socket errors: connect 0, read 38, write 0, timeout 2
  Non-2xx or 3xx responses: 12
Requests/sec:  65606.92
Transfer/sec:      5.14MB
";

    #[test]
    fn parses_wrk_output() {
        let r = parse(SAMPLE).unwrap();
        assert_eq!(r.requests, 656_245);
        assert_eq!(r.duration_s, 10.0);
        assert_eq!(r.requests_per_sec, 65_606.92);
        assert!((r.latency_avg_us - 1530.0).abs() < 1e-6);
        assert!((r.latency_stdev_us - 231.43).abs() < 1e-6);
        assert_eq!(r.p99_us, Some(2160.0));
        assert_eq!((r.errors_read, r.errors_timeout, r.non_2xx_3xx), (38, 2, 12));
        assert!((r.response_mb_per_sec - 5.14 * 1.048576).abs() < 1e-9);
        assert!(parse("garbage").is_err());
    }

    #[test]
    fn lua_strings_escape_everything_odd() {
        assert_eq!(lua_string(b"a\"b\\c\n\x00\xff"), "\"a\\\"b\\\\c\\010\\000\\255\"");
    }
}
