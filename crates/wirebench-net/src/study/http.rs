//! The `http` part (seed 002): HTTP POST throughput of encoded bodies.
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
use std::time::{Duration, Instant};

use wirebench_core::part::{Part, PartError};
use wirebench_core::sections::net::{
    Bound, CollectorDelta, FailedFormat, HarnessUse, HttpRun, HttpSection, LoadReport, WorkloadInfo,
};
use wirebench_measure::workload::{codec_ids, content_type, Workload};

use super::{check_payloads, part_error, seed002_published, seed002_row};
use crate::collector::{Collector, CollectorConfig, CollectorStats};
use crate::cpu::{machine_ticks, process_cpu_seconds};
use crate::emu::{EmuConfig, Emulator, LinkParams};
use crate::lab::{self, Lab};
use crate::loadgen::{self, LoadConfig, LoadMode};
use crate::profile::{format_rate, parse_rate, Burst, LabProfile, Shaper};
use crate::wire::http_request_ceiling;
use crate::{published, wrk};

/// One more sweep of a study: rates × formats (study files only).
#[derive(serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct HttpSweep {
    pub rates: Vec<String>,
    pub formats: Vec<String>,
    #[serde(default)]
    pub wrk: bool,
}

/// The options of this part in a study file (and of the command).
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(default, deny_unknown_fields)]
pub struct HttpOpts {
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
    /// Also run Debian's wrk against the same server with the same body; ours and wrk
    /// alternate which runs first from one run to the next.
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
    /// The messages (`--corpus`, `--samples`) and their schema (`--schema`, `--type`, `-I`).
    #[command(flatten)]
    #[serde(flatten)]
    pub inputs: wirebench_measure::study::inputs::Inputs,
    /// More sweeps (study files only): `[[http.sweeps]] rates = [..] formats = [..] wrk = false`.
    #[arg(skip)]
    pub sweeps: Vec<HttpSweep>,
}

/// The `[http]` part.
pub struct HttpPart;

impl Part for HttpPart {
    const NAME: &'static str = "http";
    type Options = HttpOpts;
    type Section = HttpSection;

    fn validate(opts: &HttpOpts) -> Result<(), PartError> {
        let plan = plan(opts)?;
        if plan.sweeps.iter().any(|s| s.wrk) && !crate::have_program("wrk") {
            return Err(PartError::bad("--wrk needs wrk: apt-get install wrk"));
        }
        check_payloads(opts.inputs.corpus.as_deref(), &opts.inputs.samples, &opts.inputs.schema)
    }

    fn run(opts: &HttpOpts) -> Result<HttpSection, PartError> {
        Self::validate(opts)?;
        measure(opts, &plan(opts)?)
    }
}

/// Where the runs go.
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

/// A rate item: `None` = no link (loopback / unshaped).
fn rate_item(s: &str) -> Result<Option<u64>, PartError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "loopback" | "unshaped" | "none" => Ok(None),
        r => parse_rate(r).map(Some).map_err(part_error),
    }
}

/// One sweep, checked: rates (`None` = no link) × codec ids, and whether wrk runs too.
struct Sweep {
    rates: Vec<Option<u64>>,
    formats: Vec<String>,
    wrk: bool,
}

/// The checked options.
struct Plan {
    sweeps: Vec<Sweep>,
    connections: usize,
    threads: usize,
    duration: Duration,
    mode: LoadMode,
    burst: Burst,
    shaper: Shaper,
}

fn plan(opts: &HttpOpts) -> Result<Plan, PartError> {
    crate::study::check_messages(opts.messages)?;
    let main_formats =
        if opts.formats.is_empty() { vec!["json".into(), "xml".into(), "cbor".into()] } else { opts.formats.clone() };
    let rates = |v: &[String]| -> Result<Vec<Option<u64>>, PartError> {
        if v.is_empty() {
            Ok(vec![None])
        } else {
            v.iter().map(|r| rate_item(r)).collect()
        }
    };
    let mut sweeps = vec![Sweep {
        rates: rates(&opts.rates)?,
        formats: codec_ids(&main_formats).map_err(part_error)?,
        wrk: opts.wrk,
    }];
    for s in &opts.sweeps {
        if s.formats.is_empty() {
            return Err(PartError::bad("a [[http.sweeps]] entry names no formats"));
        }
        sweeps.push(Sweep { rates: rates(&s.rates)?, formats: codec_ids(&s.formats).map_err(part_error)?, wrk: s.wrk });
    }
    let connections = opts.connections.unwrap_or(100);
    if connections == 0 || connections > 10_000 {
        return Err(PartError::bad(format!("connections {connections}: use 1-10000")));
    }
    let threads = opts.threads.unwrap_or(1);
    if threads == 0 || threads > 64 || threads > connections {
        return Err(PartError::bad(format!("threads {threads}: use 1-64, at most one per connection")));
    }
    let secs = opts.duration.unwrap_or(5.0);
    // At least a millisecond (1e-320 s became a zero-length run).
    if !(0.001..=3600.0).contains(&secs) {
        return Err(PartError::bad(format!("duration {secs:?} s: use 0.001 to 3600 s")));
    }
    // At least one request in the run (1e-320 requests/s measured nothing, exit 0).
    let mode = match opts.open_rate {
        Some(r) if r <= 1e7 && r * secs >= 1.0 => LoadMode::Open { rate: r },
        Some(r) => {
            return Err(PartError::bad(format!(
                "open-loop rate {r:?} requests/s: use 1/duration ({:?}) to 1e7, at least one request in the run",
                1.0 / secs
            )))
        }
        None => LoadMode::Closed,
    };
    let burst = match opts.burst.as_deref() {
        None => Burst::Sized,
        Some(b) => LabProfile::parse(&format!("unshaped,burst={b}")).map_err(part_error)?.burst,
    };
    let shaper = match opts.shaper.as_deref() {
        None => Shaper::Tbf,
        Some(s) => LabProfile::parse(&format!("unshaped,shaper={s}")).map_err(part_error)?.shaper,
    };
    if let Some(l) = opts.loss {
        if !(0.0..=100.0).contains(&l) {
            return Err(PartError::bad(format!("loss {l} %: use 0-100")));
        }
    }
    if let Some(w) = opts.collector_workers {
        if w == 0 || w > 64 {
            return Err(PartError::bad(format!("collector workers {w}: use 1-64")));
        }
    }
    Ok(Plan { sweeps, connections, threads, duration: Duration::from_secs_f64(secs), mode, burst, shaper })
}

/// The lab profile of one rate (`None`: unshaped) with the plan's burst and shaper.
fn profile(rate: Option<u64>, plan: &Plan, loss: Option<f64>) -> Result<LabProfile, PartError> {
    let mut p = match rate {
        Some(r) => LabProfile::symmetric(r).map_err(part_error)?,
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

/// The path the runs take, with a note when it is not the one the options suggest.
fn choose_path(opts: &HttpOpts, plan: &Plan, notes: &mut Vec<String>) -> Result<Path, PartError> {
    let needs_link = plan.sweeps.iter().any(|s| s.rates.iter().any(Option::is_some));
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
            Err(e) if opts.lab => return Err(part_error(e)),
            Err(e) => {
                notes.push(format!(
                    "the netns lab is not available ({e}); the links were emulated in userspace on loopback instead"
                ));
                Path::Emulator
            }
        }
    };
    if opts.loss.is_some_and(|l| l > 0.0) && path != Path::Lab {
        return Err(PartError::bad(
            "--loss needs the netns lab (root): TCP through the userspace emulator cannot lose packets",
        ));
    }
    Ok(path)
}

/// A format's bodies and content type, or why it cannot be sent.
type Bodies = Result<(Vec<Vec<u8>>, String), String>;

/// The bodies of every format of the plan (a codec that cannot encode the workload is
/// recorded, not dropped).
fn encode_bodies(plan: &Plan, workload: &Workload) -> Vec<(String, Bodies)> {
    let mut bodies: Vec<(String, Bodies)> = Vec::new();
    for f in plan.sweeps.iter().flat_map(|s| &s.formats) {
        if !bodies.iter().any(|(id, _)| id == f) {
            let b = workload
                .encode_all(f)
                .map_err(|e| e.to_string())
                .and_then(|b| content_type(f).map(|ct| (b, ct)).map_err(|e| e.to_string()));
            bodies.push((f.clone(), b));
        }
    }
    bodies
}

/// What the collector counted for `codec` between two snapshots.
fn delta(after: &CollectorStats, before: &CollectorStats, codec: &str) -> CollectorDelta {
    let a = after.codecs.get(codec).cloned().unwrap_or_default();
    let b = before.codecs.get(codec).cloned().unwrap_or_default();
    CollectorDelta {
        requests: a.requests - b.requests,
        valid: a.ok - b.ok,
        invalid: a.invalid - b.invalid,
        unsupported_media_type: after.unsupported_media_type - before.unsupported_media_type,
        validated: after.validated,
        first_error: a.first_error,
    }
}

/// The link of one rate, in place for the runs of its formats.
struct RateLink {
    target: String,
    netns: Option<String>,
    emu: Option<Emulator>,
    warnings: Vec<String>,
}

/// The collector, the lab and the options every run shares.
struct Setup<'a> {
    opts: &'a HttpOpts,
    plan: &'a Plan,
    path: Path,
    collector: Option<Collector>,
    lab: Option<Lab>,
}

impl Setup<'_> {
    /// Put the link of `rate` in place: the lab's profile, an emulator, or nothing.
    fn link(&mut self, rate: Option<u64>) -> Result<RateLink, PartError> {
        let mut l = RateLink { target: String::new(), netns: None, emu: None, warnings: Vec::new() };
        let Some(c) = &self.collector else {
            l.target = self.opts.url.clone().unwrap_or_default();
            return Ok(l);
        };
        match (self.path, &mut self.lab, rate) {
            (Path::Lab, Some(lab), _) => {
                let prof = profile(rate, self.plan, self.opts.loss)?;
                l.warnings.extend(prof.warnings());
                lab.apply(&prof).map_err(part_error)?;
                l.netns = Some(lab.ns_a().to_string());
                l.target = c.url("/ingest");
            }
            (Path::Emulator, _, Some(rate)) => {
                let cfg = EmuConfig {
                    max_connections: self.plan.connections + 110,
                    ..EmuConfig::symmetric(LinkParams::rate(rate))
                };
                let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
                let e = Emulator::tcp(loopback, c.addr(), cfg).map_err(part_error)?;
                l.target = format!("http://{}/ingest", e.local_addr());
                l.emu = Some(e);
            }
            _ => l.target = c.url("/ingest"),
        }
        Ok(l)
    }

    fn stats(&self) -> Option<CollectorStats> {
        self.collector.as_ref().map(Collector::stats)
    }
}

/// Run the sweeps into the `http` section (the options are checked).
fn measure(opts: &HttpOpts, plan: &Plan) -> Result<HttpSection, PartError> {
    let messages = opts.messages.unwrap_or(16).clamp(1, 10_000);
    let workload =
        Workload::pick(&opts.inputs.samples, opts.inputs.corpus.as_deref(), messages, 3, &opts.inputs.schema)
            .map_err(part_error)?;
    let mut notes: Vec<String> = Vec::new();
    let path = choose_path(opts, plan, &mut notes)?;
    let bodies = encode_bodies(plan, &workload);
    let collector = CollectorConfig {
        schema: Some(workload.schema.clone()),
        validate: !opts.no_validate,
        workers: opts.collector_workers.unwrap_or(2),
        ..Default::default()
    };
    let mut setup = Setup { opts, plan, path, collector: None, lab: None };
    match path {
        Path::External => {}
        Path::Lab => {
            let first = plan.sweeps.iter().flat_map(|s| s.rates.iter()).flatten().next().copied();
            let lab = Lab::up(&lab::unique_id(), &profile(first, plan, opts.loss)?).map_err(part_error)?;
            let cfg = CollectorConfig {
                listen: SocketAddr::new(lab::ADDR_B.into(), 8080),
                netns: Some(lab.ns_b().to_string()),
                ..collector
            };
            // The lab goes down when `lab` drops, also when the collector fails to start.
            setup.collector = Some(Collector::start(cfg).map_err(part_error)?);
            setup.lab = Some(lab);
        }
        Path::Loopback | Path::Emulator => {
            setup.collector = Some(Collector::start(collector).map_err(part_error)?);
        }
    }
    let path_name = if path == Path::Lab && plan.shaper == Shaper::Htb { "lab-htb" } else { path.name() };
    let mut runs: Vec<HttpRun> = Vec::new();
    let mut failed: Vec<FailedFormat> = Vec::new();
    let total: usize = plan.sweeps.iter().map(|s| s.rates.len() * s.formats.len()).sum();
    let mut done = 0;
    let t0 = Instant::now();
    for sweep in &plan.sweeps {
        for rate in &sweep.rates {
            let mut link = setup.link(*rate)?;
            for f in &sweep.formats {
                done += 1;
                let (body_set, ct) = match &bodies.iter().find(|(id, _)| id == f).map(|b| &b.1) {
                    Some(Ok(b)) => b.clone(),
                    Some(Err(e)) => {
                        failed.push(FailedFormat { format: f.clone(), error: e.clone() });
                        continue;
                    }
                    None => continue,
                };
                let mut run = one_run(&setup, &link, *rate, f, body_set, ct, sweep.wrk, done % 2 == 0)?;
                run.path = if rate.is_none() && path != Path::External { "loopback" } else { path_name }.into();
                run.warnings = link.warnings.clone();
                eprintln!(
                    "  [{done}/{total}] {} {f}: {:.0} req/s{}{} ({:.0} s{})",
                    run.link,
                    run.ours.requests_per_sec,
                    run.ours
                        .link
                        .as_ref()
                        .map(|l| format!(", {:.1} % of the link ceiling", l.ratio * 100.0))
                        .unwrap_or_default(),
                    run.wrk.as_ref().map(|w| format!("; wrk {:.0} req/s", w.requests_per_sec)).unwrap_or_default(),
                    t0.elapsed().as_secs_f64(),
                    Some(wirebench_measure::progress::time_left(t0, done, total))
                        .filter(|t| !t.is_empty())
                        .map(|t| format!(", {t}"))
                        .unwrap_or_default()
                );
                runs.push(run);
            }
            if let Some(e) = link.emu.take() {
                let st = e.stop();
                if let Some(last) = runs.last_mut() {
                    last.emulator = Some(st);
                }
            }
        }
    }
    let collector_total = setup.collector.take().map(Collector::stop);
    let lab_id = setup.lab.as_ref().map(|l| l.id().to_string());
    if let Some(l) = setup.lab.take() {
        l.down().map_err(part_error)?;
    }
    Ok(HttpSection {
        path: path_name.into(),
        notes,
        lab_id,
        burst: plan.burst,
        shaper: plan.shaper,
        connections: plan.connections,
        threads: plan.threads,
        duration_s: plan.duration.as_secs_f64(),
        mode: plan.mode,
        // An external collector (--url) is not ours: nothing is known about what it checked.
        validate: !opts.no_validate && opts.url.is_none(),
        workload: WorkloadInfo { name: workload.name.clone(), messages: workload.messages.len() },
        runs,
        failed,
        collector_total,
        published: seed002_published(),
    })
}

/// One format at one rate: our generator (with the harness's CPU around it), the collector's
/// counts, and wrk before or after it (`wrk_first`) when asked for. The path and warnings are
/// the caller's.
#[allow(clippy::too_many_arguments)]
fn one_run(
    setup: &Setup,
    link: &RateLink,
    rate: Option<u64>,
    format: &str,
    body_set: Vec<Vec<u8>>,
    ct: String,
    with_wrk: bool,
    wrk_first: bool,
) -> Result<HttpRun, PartError> {
    let plan = setup.plan;
    let first_body = body_set.first().cloned().unwrap_or_default();
    let mut cfg = LoadConfig::new(&link.target, Vec::new(), &ct);
    cfg.bodies = body_set;
    cfg.connections = plan.connections;
    cfg.threads = plan.threads;
    cfg.duration = plan.duration;
    cfg.mode = plan.mode;
    cfg.netns = link.netns.clone();
    cfg.link_rate_bps = rate;
    let run_ours = || -> Result<_, PartError> {
        let before = setup.stats();
        let (p0, w0, m0) = (process_cpu_seconds(), Instant::now(), machine_ticks());
        let ours = loadgen::run(&cfg).map_err(part_error)?;
        let (p1, w1, m1) = (process_cpu_seconds(), w0.elapsed().as_secs_f64(), machine_ticks());
        let busy = m0.zip(m1).and_then(|((b0, t0), (b1, t1))| (t1 > t0).then(|| (b1 - b0) as f64 / (t1 - t0) as f64));
        let harness = harness_use(&ours, p1 - p0, w1, busy, setup.path, rate.is_some());
        std::thread::sleep(Duration::from_millis(300));
        let collector = before.zip(setup.stats()).map(|(b, a)| delta(&a, &b, format));
        Ok((ours, harness, collector))
    };
    let run_wrk = || -> Result<_, PartError> {
        let before = setup.stats();
        let r = wrk::run(&wrk::WrkConfig {
            url: link.target.clone(),
            body: first_body.clone(),
            content_type: ct.clone(),
            connections: plan.connections,
            threads: plan.threads,
            duration: Duration::from_secs(plan.duration.as_secs_f64().ceil() as u64),
            timeout: Duration::from_secs(5),
            netns: link.netns.clone(),
        })
        .map_err(part_error)?;
        std::thread::sleep(Duration::from_millis(300));
        Ok((Some(r), before.zip(setup.stats()).map(|(b, a)| delta(&a, &b, format))))
    };
    // With wrk, the two alternate which runs first from one run to the next (A B, B A, …), so
    // neither always meets the link and the collector right after the other.
    let ((ours, harness, collector), (wrk, wrk_collector)) = match (with_wrk, wrk_first) {
        (false, _) => (run_ours()?, (None, None)),
        (true, false) => {
            let o = run_ours()?;
            (o, run_wrk()?)
        }
        (true, true) => {
            let w = run_wrk()?;
            (run_ours()?, w)
        }
    };
    let header = ours.link.as_ref().map(|l| l.header_bytes).unwrap_or(102);
    let seed = rate.and_then(|r| published::seed002(r, format));
    Ok(HttpRun {
        link: rate.map(format_rate).unwrap_or_else(|| "loopback".into()),
        rate_bps: rate,
        path: String::new(),
        format: format.to_string(),
        content_type: ct,
        harness,
        collector,
        wrk_ceiling_rps: rate.map(|r| http_request_ceiling(r, first_body.len(), header)),
        ours_vs_wrk: wrk.as_ref().map(|w| ours.requests_per_sec / w.requests_per_sec.max(1e-9)),
        wrk,
        wrk_collector,
        seed: seed.map(seed002_row),
        ours_vs_seed: seed.map(|s| ours.requests_per_sec / s.requests_per_sec),
        ours,
        warnings: Vec::new(),
        emulator: None,
    })
}

/// The whole harness's CPU during a run (generator, collector, emulator: all in this process),
/// and a verdict line that names the side that limited the run, with numbers.
fn harness_use(
    r: &LoadReport,
    process_cpu_s: f64,
    wall_s: f64,
    busy: Option<f64>,
    path: Path,
    linked: bool,
) -> HarnessUse {
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
    let link_share = || {
        r.link
            .as_ref()
            .map(|l| format!(" while the link carried {:.1} % of its ceiling", l.ratio * 100.0))
            .unwrap_or_default()
    };
    let verdict = match r.bound {
        Bound::Link => r.bound_detail.clone(),
        Bound::Harness => format!("{}; the rest of the harness ({rest_name}) used {rest:.2} cores", r.bound_detail),
        Bound::Peer if path != Path::External && process >= 0.9 * cores => format!(
            "harness-bound (our {rest_name}): this process used {process:.2} of {cores:.0} cores ({rest:.2} for the              {rest_name}, {generator:.2} for the generator){}",
            link_share()
        ),
        Bound::Peer if machine.is_some_and(|m| m >= 0.9 * cores) => format!(
            "host-bound: the machine was busy ({:.2} of {cores:.0} cores, {:.2} of them outside this process: other jobs, kernel network work; this \
             process {process:.2}: generator {generator:.2}, {rest_name} {rest:.2}){}",
            machine.unwrap_or(0.0),
            others.unwrap_or(0.0),
            link_share()
        ),
        Bound::Peer => format!("{}; {rest_name} used {rest:.2} cores, this process {process:.2} of {cores:.0}", r.bound_detail),
    };
    HarnessUse {
        process_cores: process,
        generator_cores: generator,
        server_side_cores: rest,
        server_side: rest_name.into(),
        machine_cores: cores,
        machine_busy_cores: machine,
        other_processes_cores: others,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirebench_core::sections::net::{CpuUse, ErrorCounts, LatencySummary, LinkUse};

    fn report(bound: Bound, ratio: f64, cores: f64) -> LoadReport {
        LoadReport {
            tool: "wirebench".into(),
            url: "http://x/".into(),
            content_type: "application/json".into(),
            mode: LoadMode::Closed,
            connections: 1,
            threads: 1,
            body_bytes: 1.0,
            request_bytes: 1.0,
            duration_s: 1.0,
            requests: 1,
            requests_per_sec: 1.0,
            body_mb_per_sec: 0.0,
            request_mb_per_sec: 0.0,
            response_mb_per_sec: 0.0,
            errors: ErrorCounts::default(),
            latency: LatencySummary::default(),
            latency_with_timeouts: None,
            starved_connections: 0,
            send_lag: None,
            cpu: CpuUse { generator_cpu_s: cores, wall_s: 1.0, cores, per_thread: cores },
            link: Some(LinkUse { rate_bps: 1_000_000, header_bytes: 102, ceiling_rps: 100.0, ratio }),
            bound,
            bound_detail: format!("{}-detail", bound.name()),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn verdicts_name_the_side_that_limited_the_run() {
        let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) as f64;
        let v = harness_use(&report(Bound::Link, 0.99, 0.1), 0.5, 1.0, Some(0.3), Path::Lab, true);
        assert_eq!(v.verdict, "link-detail");
        // The machine fully busy, mostly by others: host-bound, with the numbers.
        let v = harness_use(&report(Bound::Peer, 0.4, 0.1), 0.2, 1.0, Some(1.0), Path::Lab, true);
        assert!(v.verdict.starts_with("host-bound") && v.verdict.contains("40.0 %"), "{}", v.verdict);
        assert!((v.other_processes_cores.unwrap() - (n - 0.2)).abs() < 1e-9);
        // This process used the machine: our own collector limited it.
        let v = harness_use(&report(Bound::Peer, 0.4, 0.3), n, 1.0, Some(1.0), Path::Emulator, true);
        assert!(v.verdict.starts_with("harness-bound (our collector + link emulator)"), "{}", v.verdict);
        let v = harness_use(&report(Bound::Harness, 0.4, 0.95), 1.0, 1.0, None, Path::Loopback, false);
        assert!(v.verdict.contains("harness-detail; the rest of the harness (collector)"), "{}", v.verdict);
        assert_eq!(v.server_side, "collector");
    }

    #[test]
    fn plans_check_every_option() {
        let ok = HttpOpts { rates: vec!["1mbit".into(), "loopback".into()], ..Default::default() };
        let p = plan(&ok).unwrap();
        assert_eq!(p.sweeps[0].rates, vec![Some(1_000_000), None]);
        assert_eq!(p.sweeps[0].formats, vec!["json", "xml", "cbor"]);
        assert_eq!((p.connections, p.threads, p.burst, p.shaper), (100, 1, Burst::Sized, Shaper::Tbf));
        let bad = |o: HttpOpts| match plan(&o) {
            Err(PartError::BadInput(m)) => m,
            Err(e) => panic!("not bad input: {e}"),
            Ok(_) => panic!("accepted"),
        };
        assert!(bad(HttpOpts { connections: Some(0), ..Default::default() }).starts_with("connections 0"));
        assert!(bad(HttpOpts { threads: Some(3), connections: Some(2), ..Default::default() }).starts_with("threads 3"));
        assert!(bad(HttpOpts { duration: Some(0.0), ..Default::default() }).starts_with("duration 0"));
        assert!(bad(HttpOpts { loss: Some(101.0), ..Default::default() }).starts_with("loss 101"));
        assert!(bad(HttpOpts { rates: vec!["fast".into()], ..Default::default() }).contains("fast"));
        let sweep = HttpSweep { rates: vec![], formats: vec![], wrk: false };
        assert!(bad(HttpOpts { sweeps: vec![sweep], ..Default::default() }).contains("names no formats"));
        let p = plan(&HttpOpts { burst: Some("seed".into()), open_rate: Some(50.0), ..Default::default() }).unwrap();
        assert_eq!((p.burst, p.mode), (Burst::Seed, LoadMode::Open { rate: 50.0 }));
    }

    #[test]
    fn collector_deltas_count_one_format() {
        let mut before = CollectorStats { unsupported_media_type: 1, validated: true, ..Default::default() };
        before.codecs.insert("json".into(), crate::collector::CodecCounts { requests: 5, ok: 5, ..Default::default() });
        let mut after = before.clone();
        after.unsupported_media_type = 3;
        let j = after.codecs.get_mut("json").unwrap();
        j.requests = 12;
        j.ok = 10;
        j.invalid = 2;
        j.first_error = Some("bad".into());
        let d = delta(&after, &before, "json");
        assert_eq!((d.requests, d.valid, d.invalid, d.unsupported_media_type), (7, 5, 2, 2));
        assert_eq!(d.first_error.as_deref(), Some("bad"));
        assert_eq!(delta(&after, &before, "cbor").requests, 0);
    }
}
