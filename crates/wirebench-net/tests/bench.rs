//! The load-generator goals of the spec, measured (ignored by default; minutes, not seconds):
//!
//! ```sh
//! cargo test --release -p wirebench-net --test bench -- --ignored --nocapture --test-threads=1
//! ```
//!
//! - `loopback_ours_vs_wrk` (spec §5 goal 1): our generator and Debian's wrk against the same
//!   collector on loopback, interleaved (ours, wrk, ours, wrk, …), 100 connections, one thread
//!   each, bodies 50 B / 1 KB / 10 KB; the median ratio of requests/s must be ≥ 0.80.
//! - `tbf_ladder` (spec §5 goal 2): through the netns lab with TBF at 1–500 Mbit (sized burst),
//!   1 KB bodies: requests/s ≥ 95 % of the link's request ceiling (spec §1.2), wrk beside it.
//!
//! `WB_BENCH_SECS` (default 5) and `WB_BENCH_REPS` (default 3) scale the runs,
//! `WB_BENCH_SIZES` / `WB_BENCH_RATES` pick bodies / rates; the collector runs as a sink
//! (`validate: false`, like the spec's nginx `return 204`) unless `WB_BENCH_VALIDATE=1`, with
//! `WB_BENCH_WORKERS` (default 2) runtime threads so that it is not the bottleneck. Results are printed as tables and written to
//! `$TMPDIR/wirebench-net-bench-*.json`.

use std::net::SocketAddr;
use std::time::Duration;

use wirebench_measure::ev::ev_telemetry;
use wirebench_net::collector::{Collector, CollectorConfig};
use wirebench_net::lab::{self, Lab};
use wirebench_net::loadgen::{self, LoadConfig, LoadReport};
use wirebench_net::profile::LabProfile;
use wirebench_net::wire::http_request_ceiling;
use wirebench_net::wrk::{self, WrkConfig, WrkReport};

fn env_u64(k: &str, d: u64) -> u64 {
    std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d)
}

fn validate() -> bool {
    std::env::var("WB_BENCH_VALIDATE").is_ok_and(|v| v == "1")
}

/// A JSON document of exactly `n` bytes (n ≥ 10): `{"d":"xxx…"}`.
fn json_body(n: usize) -> Vec<u8> {
    if n == 1024 {
        // The EV telemetry message, padded to 1,024 B with a spare field.
        let mut s = ev_telemetry().to_json_string();
        s.pop();
        s.push_str(",\"pad\":\"");
        while s.len() < n - 2 {
            s.push('x');
        }
        s.push_str("\"}");
        assert_eq!(s.len(), n);
        return s.into_bytes();
    }
    let mut s = String::from("{\"d\":\"");
    while s.len() < n - 2 {
        s.push('x');
    }
    s.push_str("\"}");
    s.into_bytes()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn ours(url: &str, body: &[u8], secs: u64, netns: Option<&str>, rate: Option<u64>) -> LoadReport {
    let mut cfg = LoadConfig::new(url, body.to_vec(), "application/json");
    cfg.connections = 100;
    cfg.duration = Duration::from_secs(secs);
    cfg.netns = netns.map(str::to_string);
    cfg.link_rate_bps = rate;
    loadgen::run(&cfg).unwrap()
}

fn theirs(url: &str, body: &[u8], secs: u64, netns: Option<&str>) -> WrkReport {
    wrk::run(&WrkConfig {
        url: url.into(),
        body: body.to_vec(),
        content_type: "application/json".into(),
        connections: 100,
        threads: 1,
        duration: Duration::from_secs(secs),
        timeout: Duration::from_secs(5),
        netns: netns.map(str::to_string),
    })
    .unwrap()
}

fn save(name: &str, v: &serde_json::Value) {
    let p = std::env::temp_dir().join(format!("wirebench-net-bench-{name}.json"));
    let _ = std::fs::write(&p, serde_json::to_string_pretty(v).unwrap());
    eprintln!("(written to {})", p.display());
}

#[test]
#[ignore = "benchmark: minutes; run with --release --ignored"]
fn loopback_ours_vs_wrk() {
    if !wirebench_net::have_program("wrk") {
        panic!("wrk is not installed: apt-get install wrk");
    }
    let secs = env_u64("WB_BENCH_SECS", 5);
    let reps = env_u64("WB_BENCH_REPS", 3);
    let col = Collector::start(CollectorConfig {
        listen: "127.0.0.1:0".parse::<SocketAddr>().unwrap(),
        validate: validate(),
        workers: env_u64("WB_BENCH_WORKERS", 2) as usize,
        ..Default::default()
    })
    .unwrap();
    let url = col.url("/ingest");
    let mut rows = Vec::new();
    let mut json = Vec::new();
    let sizes: Vec<usize> = std::env::var("WB_BENCH_SIZES")
        .map(|v| v.split(',').filter_map(|r| r.trim().parse().ok()).collect())
        .unwrap_or_else(|_| vec![50, 1024, 10_240]);
    for size in sizes {
        let body = json_body(size);
        let (mut o, mut w, mut ratios, mut cpu, mut wcpu) = (vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..reps {
            let a = ours(&url, &body, secs, None, None);
            let b = theirs(&url, &body, secs, None);
            assert_eq!(a.errors.total(), 0, "{:?}", a.errors);
            ratios.push(a.requests_per_sec / b.requests_per_sec);
            o.push(a.requests_per_sec);
            w.push(b.requests_per_sec);
            cpu.push(a.cpu.per_thread);
            wcpu.push(b.cpu_s / b.duration_s.max(1e-9));
            json.push(serde_json::json!({"size": size, "ours": a, "wrk": b}));
        }
        rows.push((size, median(o), median(w), median(ratios.clone()), ratios, median(cpu), median(wcpu)));
    }
    let st = col.stop();
    eprintln!(
        "\nloopback, 100 connections, 1 thread each, {secs} s × {reps} interleaved, collector validate={}",
        st.validated
    );
    eprintln!("| body | ours req/s (median) | wrk req/s (median) | ratio (median) | ratios | our CPU (core) | wrk CPU (core) |");
    eprintln!("|---|---|---|---|---|---|---|");
    for (size, o, w, r, rs, c, wc) in &rows {
        let rs: Vec<String> = rs.iter().map(|x| format!("{x:.2}")).collect();
        eprintln!(
            "| {size} B | {o:.0} | {w:.0} | {r:.2} | {} | {:.0} % | {:.0} % |",
            rs.join(" "),
            c * 100.0,
            wc * 100.0
        );
    }
    eprintln!("collector: {} requests, {} invalid", st.requests, st.invalid);
    save("loopback", &serde_json::json!(json));
    for (size, _, _, r, ..) in &rows {
        assert!(*r >= 0.8, "{size} B: ours/wrk = {r:.2} < 0.80");
    }
}

#[test]
#[ignore = "benchmark: minutes; needs root; run with --release --ignored"]
fn tbf_ladder() {
    if let Err(e) = lab::available() {
        panic!("the ladder needs the netns lab: {e}");
    }
    let secs = env_u64("WB_BENCH_SECS", 5);
    let body = json_body(1024);
    let id = lab::unique_id();
    let mut lab = Lab::up(&id, &LabProfile::parse("1mbit").unwrap()).unwrap();
    let col = Collector::start(CollectorConfig {
        listen: SocketAddr::new(lab::ADDR_B.into(), 8080),
        netns: Some(lab.ns_b().into()),
        validate: validate(),
        workers: env_u64("WB_BENCH_WORKERS", 2) as usize,
        ..Default::default()
    })
    .unwrap();
    let url = col.url("/ingest");
    let have_wrk = wirebench_net::have_program("wrk");
    let mut rows = Vec::new();
    let mut json = Vec::new();
    let rates: Vec<u64> = std::env::var("WB_BENCH_RATES")
        .map(|v| v.split(',').filter_map(|r| r.trim().parse().ok()).collect())
        .unwrap_or_else(|_| vec![1, 5, 10, 50, 100, 500]);
    for mbit in rates {
        let rate = mbit * 1_000_000;
        lab.apply(&LabProfile::symmetric(rate).unwrap()).unwrap();
        let before = lab.counters().unwrap();
        let a = ours(&url, &body, secs, Some(lab.ns_a()), Some(rate));
        let wire = lab.counters().unwrap().since(&before);
        let b = have_wrk.then(|| theirs(&url, &body, secs, Some(lab.ns_a())));
        let ceiling = http_request_ceiling(rate, body.len(), 102);
        let per_req = wire.tx_bytes as f64 / a.requests.max(1) as f64;
        rows.push((
            mbit,
            a.requests_per_sec,
            b.as_ref().map(|b| b.requests_per_sec),
            ceiling,
            per_req,
            a.cpu.per_thread,
            a.bound,
        ));
        json.push(serde_json::json!({"mbit": mbit, "ours": a, "wrk": b, "ceiling_rps": ceiling, "veth_up_bytes_per_request": per_req}));
    }
    drop(col);
    drop(lab);
    eprintln!("\nTBF ladder (sized burst), 1 KB JSON bodies, 100 connections, {secs} s each");
    eprintln!("| rate | ceiling req/s | ours req/s | ours/ceiling | wrk req/s | wrk/ceiling | up B/request (veth) | our CPU | verdict |");
    eprintln!("|---|---|---|---|---|---|---|---|---|");
    for (mbit, o, w, c, per, cpu, bound) in &rows {
        let w_s = w.map_or("-".into(), |w| format!("{w:.0}"));
        let wr = w.map_or("-".into(), |w| format!("{:.1} %", w / c * 100.0));
        eprintln!(
            "| {mbit} Mbit | {c:.0} | {o:.0} | {:.1} % | {w_s} | {wr} | {per:.0} | {:.0} % | {bound:?} |",
            o / c * 100.0,
            cpu * 100.0
        );
    }
    save("ladder", &serde_json::json!(json));
    assert!(!lab::list().unwrap().contains(&id));
    for (mbit, o, _, c, ..) in &rows {
        assert!(o / c >= 0.95, "{mbit} Mbit: {:.1} % of the ceiling", o / c * 100.0);
    }
}
