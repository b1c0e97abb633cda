//! HTTP POST throughput (seed 002): `wirebench http ...` and the [http] study part.
//!
//! Our load generator (closed loop, N keep-alive connections, or open loop at a constant rate
//! with latency from the scheduled send time) POSTs encoded messages to our collector, which
//! decodes and validates every body with the codec its `Content-Type` names. Where the run
//! goes:
//!
//! - no `--rate`: loopback (the harness's own ceiling);
//! - `--rate R[,R…]` as root: the netns lab (veth + TBF, burst sized for the rate unless
//!   `--burst seed`), collector in host B, generator (and wrk) in host A;
//! - `--rate` without root, or with `--emulate`: the userspace link emulator on loopback
//!   (recorded in the results, with the reason);
//! - `--url`: an external collector (ours or anyone's) — no link control.
//!
//! Every run records the link's request ceiling (rate / 8 / (body + header + 66 B per TCP
//! segment)), the share of it we reached, our generator's CPU, and the verdict (link-bound,
//! harness-bound or peer-bound, with numbers), the collector's counts (requests, valid,
//! invalid) and, with `--wrk`, Debian's wrk against the same server with the same body.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::{json, Value as Json};
use wirebench_core::results::Results;
use wirebench_net::collector::{Collector, CollectorConfig, CollectorStats};
use wirebench_net::emu::{EmuConfig, Emulator, LinkParams};
use wirebench_net::lab::{self, Lab};
use wirebench_net::loadgen::{self, LoadConfig, LoadMode};
use wirebench_net::profile::{format_rate, parse_rate, Burst, LabProfile, Shaper};
use wirebench_net::wire::http_request_ceiling;
use wirebench_net::workload::{codec_ids, content_type, Workload};
use wirebench_net::cpu::process_cpu_seconds;
use wirebench_net::loadgen::{Bound, LoadReport};
use wirebench_net::{published, wrk, NetError};

use crate::common::*;
use crate::OutputArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub opts: StudyOpts,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    pub output: OutputArg,
    /// Also write the results file (JSON) here, atomically.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// One more sweep of a study: rates × formats (study files only).
#[derive(serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub rates: Vec<String>,
    pub formats: Vec<String>,
    #[serde(default)]
    pub wrk: bool,
}

/// The options of this part in a study file (and of the command).
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(default, deny_unknown_fields)]
pub struct StudyOpts {
    /// Formats, comma-separated (default: json,xml,cbor as seed 002); `all` = the zoo.
    #[arg(long, short = 'f', value_delimiter = ',')]
    pub formats: Vec<String>,
    /// Link rates (e.g. 1mbit,50mbit,1gbit; `loopback` = no link); none: loopback only.
    #[arg(long = "rate", value_delimiter = ',')]
    pub rates: Vec<String>,
    /// Keep-alive connections (default 100, as the seed).
    #[arg(long)]
    pub connections: Option<usize>,
    /// Seconds per run (default 5).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Generator threads (default 1, like `wrk -t1`).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Open loop at this many requests/s (latency from the scheduled send); default: closed loop.
    #[arg(long)]
    pub open_rate: Option<f64>,
    /// Also run Debian's wrk against the same server with the same body, after ours.
    #[arg(long)]
    pub wrk: bool,
    /// Insist on the netns lab (fail without root instead of using the emulator).
    #[arg(long, conflicts_with = "emulate")]
    pub lab: bool,
    /// Use the userspace link emulator even where the lab would work.
    #[arg(long)]
    pub emulate: bool,
    /// TBF burst: sized (default: max(rate/250, 4000 B)), seed (32 kbit) or a byte count.
    #[arg(long)]
    pub burst: Option<String>,
    /// Lab qdisc: tbf (default) or htb.
    #[arg(long)]
    pub shaper: Option<String>,
    /// I.i.d. loss in percent on both directions (lab only: nftables).
    #[arg(long)]
    pub loss: Option<f64>,
    /// POST to this collector instead of starting ours (http://host:port/path).
    #[arg(long, conflicts_with_all = ["lab", "emulate"])]
    pub url: Option<String>,
    /// Collector reads bodies without decoding them (a sink, like nginx `return 204`).
    #[arg(long)]
    pub no_validate: bool,
    /// Collector runtime threads (default 2).
    #[arg(long)]
    pub collector_workers: Option<usize>,
    /// Distinct EV messages sent in turn (default 16).
    #[arg(long)]
    pub messages: Option<usize>,
    /// A built-in corpus instead of the EV telemetry message.
    #[arg(long, conflicts_with = "samples")]
    pub corpus: Option<String>,
    /// Sample files (.json / .ndjson) instead of the EV telemetry message.
    #[arg(long, num_args = 1..)]
    pub samples: Vec<PathBuf>,
    /// More sweeps (study files only): `[[http.sweeps]] rates = [..] formats = [..] wrk = false`.
    #[arg(skip)]
    pub sweeps: Vec<Sweep>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Path {
    Loopback,
    Lab,
    Emulator,
    External,
}

impl Path {
    fn name(self) -> &'static str {
        match self {
            Path::Loopback => "loopback",
            Path::Lab => "lab-tbf",
            Path::Emulator => "emulator",
            Path::External => "external",
        }
    }
}

fn net(e: NetError) -> anyhow::Error {
    match e {
        NetError::Io { .. } | NetError::Worker(..) | NetError::Command { .. } => anyhow::Error::new(e),
        other => bad(other.to_string()),
    }
}

/// A rate item: `None` = no link (loopback / unshaped).
fn rate_item(s: &str) -> Result<Option<u64>> {
    match s.trim().to_ascii_lowercase().as_str() {
        "loopback" | "unshaped" | "none" => Ok(None),
        r => parse_rate(r).map(Some).map_err(net),
    }
}

struct Plan {
    sweeps: Vec<(Vec<Option<u64>>, Vec<String>, bool)>,
    connections: usize,
    threads: usize,
    duration: Duration,
    mode: LoadMode,
    burst: Burst,
    shaper: Shaper,
}

fn plan(opts: &StudyOpts) -> Result<Plan> {
    let mut sweeps = Vec::new();
    let main_formats = if opts.formats.is_empty() { vec!["json".into(), "xml".into(), "cbor".into()] } else { opts.formats.clone() };
    let rates = |v: &[String]| -> Result<Vec<Option<u64>>> {
        if v.is_empty() {
            Ok(vec![None])
        } else {
            v.iter().map(|r| rate_item(r)).collect()
        }
    };
    sweeps.push((rates(&opts.rates)?, codec_ids(&main_formats).map_err(net)?, opts.wrk));
    for s in &opts.sweeps {
        if s.formats.is_empty() {
            return Err(bad("a [[http.sweeps]] entry names no formats"));
        }
        sweeps.push((rates(&s.rates)?, codec_ids(&s.formats).map_err(net)?, s.wrk));
    }
    let connections = opts.connections.unwrap_or(100);
    if connections == 0 || connections > 10_000 {
        return Err(bad(format!("connections {connections}: use 1-10000")));
    }
    let threads = opts.threads.unwrap_or(1);
    if threads == 0 || threads > 64 || threads > connections {
        return Err(bad(format!("threads {threads}: use 1-64, at most one per connection")));
    }
    let secs = opts.duration.unwrap_or(5.0);
    if !(secs > 0.0 && secs <= 3600.0) {
        return Err(bad(format!("duration {secs} s: use more than 0 and at most 3600 s")));
    }
    let mode = match opts.open_rate {
        Some(r) if r > 0.0 && r <= 1e7 => LoadMode::Open { rate: r },
        Some(r) => return Err(bad(format!("open-loop rate {r} requests/s: use 0 < rate <= 1e7"))),
        None => LoadMode::Closed,
    };
    let burst = match opts.burst.as_deref() {
        None => Burst::Sized,
        Some(b) => LabProfile::parse(&format!("unshaped,burst={b}")).map_err(net)?.burst,
    };
    let shaper = match opts.shaper.as_deref() {
        None => Shaper::Tbf,
        Some(s) => LabProfile::parse(&format!("unshaped,shaper={s}")).map_err(net)?.shaper,
    };
    if let Some(l) = opts.loss {
        if !(0.0..=100.0).contains(&l) {
            return Err(bad(format!("loss {l} %: use 0-100")));
        }
    }
    if let Some(w) = opts.collector_workers {
        if w == 0 || w > 64 {
            return Err(bad(format!("collector workers {w}: use 1-64")));
        }
    }
    Ok(Plan { sweeps, connections, threads, duration: Duration::from_secs_f64(secs), mode, burst, shaper })
}

fn delta(after: &CollectorStats, before: &CollectorStats, codec: &str) -> Json {
    let a = after.codecs.get(codec).cloned().unwrap_or_default();
    let b = before.codecs.get(codec).cloned().unwrap_or_default();
    json!({
        "requests": a.requests - b.requests,
        "valid": a.ok - b.ok,
        "invalid": a.invalid - b.invalid,
        "unsupported_media_type": after.unsupported_media_type - before.unsupported_media_type,
        "validated": after.validated,
        "first_error": a.first_error,
    })
}

/// Run the part; the value becomes the `http` results section.
/// Check the options before anything runs (also the `[http]` part of a study).
pub fn validate(opts: &StudyOpts) -> Result<()> {
    let plan = plan(opts)?;
    if plan.sweeps.iter().any(|s| s.2) && !wirebench_net::have_program("wrk") {
        return Err(bad("--wrk needs wrk: apt-get install wrk"));
    }
    check_payloads(opts.corpus.as_deref(), &opts.samples, None)
}

pub fn measure(opts: &StudyOpts) -> Result<Json> {
    validate(opts)?;
    let plan = plan(opts)?;
    let workload =
        Workload::pick(&opts.samples, opts.corpus.as_deref(), opts.messages.unwrap_or(16).clamp(1, 10_000), 3).map_err(net)?;
    let needs_link = plan.sweeps.iter().any(|(r, ..)| r.iter().any(Option::is_some));
    let mut notes: Vec<String> = Vec::new();
    let path = if opts.url.is_some() {
        Path::External
    } else if !needs_link {
        Path::Loopback
    } else if opts.emulate {
        notes.push("userspace link emulator on loopback (asked for with --emulate)".into());
        Path::Emulator
    } else {
        match lab::available() {
            Ok(()) => Path::Lab,
            Err(e) if opts.lab => return Err(net(e)),
            Err(e) => {
                notes.push(format!(
                    "the netns lab is not available ({e}); the links were emulated in userspace on loopback instead"
                ));
                Path::Emulator
            }
        }
    };
    if opts.loss.is_some_and(|l| l > 0.0) && path != Path::Lab {
        return Err(bad("--loss needs the netns lab (root): TCP through the userspace emulator cannot lose packets"));
    }
    // Bodies per format (a codec that cannot encode the workload is recorded, not dropped).
    let mut bodies: Vec<(String, Result<(Vec<Vec<u8>>, String), String>)> = Vec::new();
    for (_, formats, _) in &plan.sweeps {
        for f in formats {
            if !bodies.iter().any(|(id, _)| id == f) {
                let b = workload.encode_all(f).map_err(|e| e.to_string()).and_then(|b| {
                    content_type(f).map(|ct| (b, ct)).map_err(|e| e.to_string())
                });
                bodies.push((f.clone(), b));
            }
        }
    }

    let mut lab_guard: Option<Lab> = None;
    let collector = match path {
        Path::External => None,
        Path::Lab => {
            let id = lab::unique_id();
            let first = plan.sweeps.iter().flat_map(|s| s.0.iter()).flatten().next().copied();
            let prof = profile(first, &plan, opts.loss)?;
            let l = Lab::up(&id, &prof).map_err(net)?;
            let c = Collector::start(CollectorConfig {
                listen: SocketAddr::new(lab::ADDR_B.into(), 8080),
                schema: Some(workload.schema.clone()),
                validate: !opts.no_validate,
                workers: opts.collector_workers.unwrap_or(2),
                netns: Some(l.ns_b().into()),
                ..Default::default()
            })
            .map_err(net)?;
            lab_guard = Some(l);
            Some(c)
        }
        Path::Loopback | Path::Emulator => Some(
            Collector::start(CollectorConfig {
                schema: Some(workload.schema.clone()),
                validate: !opts.no_validate,
                workers: opts.collector_workers.unwrap_or(2),
                ..Default::default()
            })
            .map_err(net)?,
        ),
    };

    let path_name = if path == Path::Lab && plan.shaper == Shaper::Htb { "lab-htb" } else { path.name() };
    let mut runs: Vec<Json> = Vec::new();
    let mut failed: Vec<Json> = Vec::new();
    let total: usize = plan.sweeps.iter().map(|s| s.0.len() * s.1.len()).sum();
    let mut done = 0;
    let t0 = Instant::now();
    for (rates, formats, with_wrk) in &plan.sweeps {
        for rate in rates {
            // Put the link in place for this rate.
            let mut emu: Option<Emulator> = None;
            let mut netns: Option<String> = None;
            let mut warnings: Vec<String> = Vec::new();
            let target: String = match (path, &collector) {
                (Path::External, _) => opts.url.clone().unwrap_or_default(),
                (Path::Lab, Some(c)) => {
                    let l = lab_guard.as_mut().expect("lab is up");
                    let prof = profile(*rate, &plan, opts.loss)?;
                    warnings.extend(prof.warnings());
                    l.apply(&prof).map_err(net)?;
                    netns = Some(l.ns_a().to_string());
                    c.url("/ingest")
                }
                (Path::Emulator, Some(c)) if rate.is_some() => {
                    let cfg = EmuConfig {
                        max_connections: plan.connections + 110,
                        ..EmuConfig::symmetric(LinkParams::rate(rate.unwrap()))
                    };
                    let e = Emulator::tcp("127.0.0.1:0".parse().unwrap(), c.addr(), cfg).map_err(net)?;
                    let url = format!("http://{}/ingest", e.local_addr());
                    emu = Some(e);
                    url
                }
                (_, Some(c)) => c.url("/ingest"),
                (_, None) => unreachable!("a collector runs unless the url is external"),
            };
            for f in formats {
                done += 1;
                let (body_set, ct) = match &bodies.iter().find(|(id, _)| id == f).expect("encoded above").1 {
                    Ok(b) => b.clone(),
                    Err(e) => {
                        failed.push(json!({"format": f, "error": e}));
                        continue;
                    }
                };
                let mut cfg = LoadConfig::new(&target, Vec::new(), &ct);
                cfg.bodies = body_set.clone();
                cfg.connections = plan.connections;
                cfg.threads = plan.threads;
                cfg.duration = plan.duration;
                cfg.mode = plan.mode;
                cfg.netns = netns.clone();
                cfg.link_rate_bps = *rate;
                let before = collector.as_ref().map(Collector::stats);
                let (p0, w0, m0) = (process_cpu_seconds(), Instant::now(), machine_ticks());
                let ours = loadgen::run(&cfg).map_err(net)?;
                let (p1, w1, m1) = (process_cpu_seconds(), w0.elapsed().as_secs_f64(), machine_ticks());
                let busy = m0.zip(m1).and_then(|((b0, t0), (b1, t1))| (t1 > t0).then(|| (b1 - b0) as f64 / (t1 - t0) as f64));
                let harness = harness_use(&ours, p1 - p0, w1, busy, path, rate.is_some());
                std::thread::sleep(Duration::from_millis(300));
                let after = collector.as_ref().map(Collector::stats);
                let col = before.zip(after).map(|(b, a)| delta(&a, &b, f));
                let wrk_report = if *with_wrk {
                    let before = collector.as_ref().map(Collector::stats);
                    let r = wrk::run(&wrk::WrkConfig {
                        url: target.clone(),
                        body: body_set[0].clone(),
                        content_type: ct.clone(),
                        connections: plan.connections,
                        threads: plan.threads,
                        duration: Duration::from_secs(plan.duration.as_secs_f64().ceil() as u64),
                        timeout: Duration::from_secs(5),
                        netns: netns.clone(),
                    })
                    .map_err(net)?;
                    std::thread::sleep(Duration::from_millis(300));
                    let after = collector.as_ref().map(Collector::stats);
                    Some((r, before.zip(after).map(|(b, a)| delta(&a, &b, f))))
                } else {
                    None
                };
                let header = ours.link.as_ref().map(|l| l.header_bytes).unwrap_or(102);
                let wrk_ceiling = rate.map(|r| http_request_ceiling(r, body_set[0].len(), header));
                let seed = rate.and_then(|r| published::seed002(r, f));
                eprintln!(
                    "  [{done}/{total}] {} {f}: {:.0} req/s{}{} ({:.0} s)",
                    rate.map(format_rate).unwrap_or_else(|| "loopback".into()),
                    ours.requests_per_sec,
                    ours.link.as_ref().map(|l| format!(", {:.1} % of the link ceiling", l.ratio * 100.0)).unwrap_or_default(),
                    wrk_report.as_ref().map(|(w, _)| format!("; wrk {:.0} req/s", w.requests_per_sec)).unwrap_or_default(),
                    t0.elapsed().as_secs_f64()
                );
                runs.push(json!({
                    "link": rate.map(format_rate).unwrap_or_else(|| "loopback".into()),
                    "rate_bps": rate,
                    "path": if rate.is_none() && path != Path::External { "loopback" } else { path_name },
                    "format": f,
                    "content_type": ct,
                    "ours": ours,
                    "harness": harness,
                    "collector": col,
                    "wrk": wrk_report.as_ref().map(|(w, _)| w),
                    "wrk_collector": wrk_report.as_ref().and_then(|(_, c)| c.clone()),
                    "wrk_ceiling_rps": wrk_ceiling,
                    "ours_vs_wrk": wrk_report.as_ref().map(|(w, _)| ours.requests_per_sec / w.requests_per_sec.max(1e-9)),
                    "seed": seed,
                    "ours_vs_seed": seed.map(|s| ours.requests_per_sec / s.requests_per_sec),
                    "warnings": warnings,
                }));
            }
            if let Some(e) = emu.take() {
                let st = e.stop();
                if let Some(last) = runs.last_mut() {
                    last["emulator"] = serde_json::to_value(&st).unwrap_or(Json::Null);
                }
            }
        }
    }
    let final_stats = collector.map(Collector::stop);
    let lab_id = lab_guard.as_ref().map(|l| l.id().to_string());
    if let Some(l) = lab_guard {
        l.down().map_err(net)?;
    }
    Ok(json!({
        "path": path_name,
        "notes": notes,
        "lab_id": lab_id,
        "burst": plan.burst,
        "shaper": plan.shaper,
        "connections": plan.connections,
        "threads": plan.threads,
        "duration_s": plan.duration.as_secs_f64(),
        "mode": plan.mode,
        "validate": !opts.no_validate,
        "workload": {"name": workload.name, "messages": workload.messages.len()},
        "runs": runs,
        "failed": failed,
        "collector_total": final_stats,
        "published": {
            "source": published::SEED002_SOURCE,
            "rows": published::SEED002,
            "notes": published::seed002_notes(),
        },
    }))
}

/// The whole harness's CPU during a run (generator, collector, emulator: all in this process),
/// and a verdict line that names the side that limited the run, with numbers.
fn harness_use(r: &LoadReport, process_cpu_s: f64, wall_s: f64, busy: Option<f64>, path: Path, linked: bool) -> Json {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) as f64;
    let process = process_cpu_s / wall_s.max(1e-9);
    // The whole machine's busy share (/proc/stat), and what other processes took of it.
    let machine = busy.map(|b| b * cores);
    let others = machine.map(|m| (m - process).max(0.0));
    let generator = r.cpu.cores;
    let rest = (process - generator).max(0.0);
    let rest_name = match path {
        Path::Emulator if linked => "collector + link emulator",
        Path::External => "rest of this process",
        _ => "collector",
    };
    let verdict = match r.bound {
        Bound::Link => r.bound_detail.clone(),
        Bound::Harness => format!("{}; the rest of the harness ({rest_name}) used {rest:.2} cores", r.bound_detail),
        Bound::Peer if path != Path::External && process >= 0.9 * cores => format!(
            "harness-bound (our {rest_name}): this process used {process:.2} of {cores:.0} cores ({rest:.2} for the              {rest_name}, {generator:.2} for the generator){}",
            r.link.as_ref().map(|l| format!(" while the link carried {:.1} % of its ceiling", l.ratio * 100.0)).unwrap_or_default()
        ),
        Bound::Peer if machine.is_some_and(|m| m >= 0.9 * cores) => format!(
            "host-bound: the machine was busy ({:.2} of {cores:.0} cores, {:.2} of them outside this process: other jobs, kernel network work; this \
             process {process:.2}: generator {generator:.2}, {rest_name} {rest:.2}){}",
            machine.unwrap_or(0.0),
            others.unwrap_or(0.0),
            r.link.as_ref().map(|l| format!(" while the link carried {:.1} % of its ceiling", l.ratio * 100.0)).unwrap_or_default()
        ),
        Bound::Peer => format!(
            "{}; {rest_name} used {rest:.2} cores, this process {process:.2} of {cores:.0}",
            r.bound_detail
        ),
    };
    json!({
        "process_cores": process,
        "generator_cores": generator,
        "server_side_cores": rest,
        "server_side": rest_name,
        "machine_cores": cores,
        "machine_busy_cores": machine,
        "other_processes_cores": others,
        "verdict": verdict,
    })
}

/// (busy, total) jiffies of all CPUs from /proc/stat (busy = total − idle − iowait).
fn machine_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let v: Vec<u64> = line.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    if v.len() < 5 {
        return None;
    }
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    let total: u64 = v.iter().take(8).sum();
    Some((total - v[3] - v[4], total))
}

fn profile(rate: Option<u64>, plan: &Plan, loss: Option<f64>) -> Result<LabProfile> {
    let mut p = match rate {
        Some(r) => LabProfile::symmetric(r).map_err(net)?,
        None => LabProfile::unshaped(),
    };
    p.burst = plan.burst;
    p.shaper = plan.shaper;
    if let Some(l) = loss {
        p.up.loss_pct = l;
        p.down.loss_pct = l;
    }
    Ok(p)
}

pub fn run(args: Args) -> Result<()> {
    if let Some(out) = &args.out {
        check_writable(out)?;
    }
    let section = measure(&args.opts)?;
    let mut results = Results::new(provenance(0), json!({"measurement": "http", "options": &args.opts}));
    results.http = Some(section);
    if let Some(out) = &args.out {
        results.write_atomic(out).map_err(|e| bad(e.to_string()))?;
    }
    let text = match args.output {
        OutputArg::Json => serde_json::to_string_pretty(&results).expect("results serialize") + "\n",
        o => wirebench_report::net::render_http(&results, o.into()),
    };
    write_stdout(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(bound: &str, ratio: f64, cores: f64) -> LoadReport {
        serde_json::from_value(json!({
            "tool": "wirebench", "url": "http://x/", "content_type": "application/json", "mode": "closed",
            "connections": 1, "threads": 1, "body_bytes": 1.0, "request_bytes": 1.0, "duration_s": 1.0,
            "requests": 1, "requests_per_sec": 1.0, "body_mb_per_sec": 0.0, "request_mb_per_sec": 0.0,
            "response_mb_per_sec": 0.0, "errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0, "protocol": 0, "status": 0},
            "latency": {"count": 0}, "cpu": {"generator_cpu_s": cores, "wall_s": 1.0, "cores": cores, "per_thread": cores},
            "link": {"rate_bps": 1000000, "header_bytes": 102, "ceiling_rps": 100.0, "ratio": ratio},
            "bound": bound, "bound_detail": format!("{bound}-detail"), "warnings": []
        }))
        .unwrap()
    }

    #[test]
    fn verdicts_name_the_side_that_limited_the_run() {
        let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) as f64;
        let v = harness_use(&report("link", 0.99, 0.1), 0.5, 1.0, Some(0.3), Path::Lab, true);
        assert_eq!(v["verdict"], "link-detail");
        // The machine fully busy, mostly by others: host-bound, with the numbers.
        let v = harness_use(&report("peer", 0.4, 0.1), 0.2, 1.0, Some(1.0), Path::Lab, true);
        let t = v["verdict"].as_str().unwrap();
        assert!(t.starts_with("host-bound") && t.contains("40.0 %"), "{t}");
        assert!((v["other_processes_cores"].as_f64().unwrap() - (n - 0.2)).abs() < 1e-9);
        // This process used the machine: our own collector limited it.
        let v = harness_use(&report("peer", 0.4, 0.3), n, 1.0, Some(1.0), Path::Emulator, true);
        let t = v["verdict"].as_str().unwrap();
        assert!(t.starts_with("harness-bound (our collector + link emulator)"), "{t}");
        let v = harness_use(&report("harness", 0.4, 0.95), 1.0, 1.0, None, Path::Loopback, false);
        assert!(v["verdict"].as_str().unwrap().contains("harness-detail; the rest of the harness (collector)"));
        let (busy, total) = machine_ticks().expect("/proc/stat on Linux");
        assert!(busy <= total && total > 0);
    }
}
