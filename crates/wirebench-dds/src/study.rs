//! Seed 004's study: for each payload size, side by side in one run, Cyclone's `ddsperf` (the
//! native anchor) and our transport with CDR and with JSON marshalling — latency and
//! throughput — plus marshalling alone; repeated `rounds` times, because this 2-core machine is
//! shared and noisy (runs differ up to ×2.4, shared/specs/cdr-dds.md §2.2). Failures are
//! recorded with their reason and the run goes on.
//!
//! The `[dds]` part of a study ([`DdsPart`]: options [`StudyOpts`], checked into a [`Plan`]) and
//! the standalone `wirebench dds latency|throughput|marshal` runs ([`measure`] of a plan) both end
//! in [`run`], whose result is the typed `dds` section of a results file; the report renders it
//! alone. The peer of each run is a child process of the running binary ([`this_binary_peer`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use wirebench_core::part::{Part, PartError};
use wirebench_core::sections::dds::{payload_mb, Check, DdsSection, DdsperfSize, Failure, Method, Ratio};

use crate::bench;
use crate::ddsperf;
use crate::latency::{self, LatencyOpts};
use crate::peer::PeerMode;
use crate::throughput::{self, ThroughputOpts};
use crate::{parse_size, Marshal, KEYEDSEQ_FIXED};

/// What a run measures, and one group of its sizes (results data, in `wirebench-core`).
pub use wirebench_core::sections::dds::{Case, Plan};

/// Payload sizes: 1 byte to 4 MiB.
pub const MAX_SIZE: usize = 4 << 20;
/// Throughput samples per run at most (the reader keeps one flag per expected sample for its
/// delivery accounting).
pub const MAX_THROUGHPUT_SAMPLES: u64 = 100_000_000;
/// Latency round trips per run at most.
pub const MAX_ROUND_TRIPS: u64 = 10_000_000;
/// The arguments after the program that make a binary running this part the peer of a run:
/// `<binary> dds peer <PeerOpts JSON>` must end in [`crate::peer::child_main`].
pub const PEER_ARGS: [&str; 2] = ["dds", "peer"];

/// A size in a study file: a number of bytes or a string such as "2k".
#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(untagged)]
pub enum SizeSpec {
    Bytes(usize),
    Text(String),
}

/// One group of sizes in a study file (`[[dds.cases]]`).
#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct CaseOpts {
    pub sizes: Vec<SizeSpec>,
    /// Latency: instances (key values) per iteration.
    pub instances: u32,
    /// Latency: samples per instance per iteration.
    pub samples: u32,
    /// Latency: iterations of instances × samples round trips.
    #[serde(default = "one")]
    pub iterations: u32,
    /// Throughput: samples per run.
    pub throughput_samples: u64,
    /// Throughput with JSON, when it must be scaled down.
    #[serde(default)]
    pub json_throughput_samples: Option<u64>,
    /// Rounds of this group (default: the part's `rounds`).
    #[serde(default)]
    pub rounds: Option<u32>,
}

fn one() -> u32 {
    1
}
fn yes() -> bool {
    true
}
fn default_marshal() -> Vec<String> {
    vec!["cdr".into(), "json".into()]
}
fn default_domain() -> u32 {
    60
}
fn default_secs() -> u32 {
    4
}
fn default_warmup() -> u32 {
    200
}

/// The options of this part in a study file (`[dds]`).
#[derive(Deserialize, Serialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct StudyOpts {
    /// Groups of sizes with their counts.
    #[serde(default)]
    pub cases: Vec<CaseOpts>,
    /// Marshallings: cdr, json, raw.
    #[serde(default = "default_marshal")]
    pub marshal: Vec<String>,
    /// Repeat everything this many times.
    #[serde(default = "one")]
    pub rounds: u32,
    /// First DDS domain id (runs use the next 40).
    #[serde(default = "default_domain")]
    pub domain: u32,
    #[serde(default = "yes")]
    pub latency: bool,
    /// Latency runs (ours and ddsperf alike) on this one CPU (default: not pinned).
    #[serde(default)]
    pub latency_cpu: Option<u32>,
    #[serde(default = "yes")]
    pub throughput: bool,
    #[serde(default = "yes")]
    pub marshal_bench: bool,
    /// Also run Cyclone's ddsperf at the same sizes.
    #[serde(default = "yes")]
    pub ddsperf: bool,
    /// Seconds per ddsperf run.
    #[serde(default = "default_secs")]
    pub ddsperf_secs: u32,
    /// What ddsperf's samples carry: `wire` (the bytes our CDR sample puts on the wire; the
    /// default) or `payload` (the payload alone).
    #[serde(default)]
    pub ddsperf_size: Option<String>,
    /// A throughput run shorter than this is run again with more samples (default 2 s; 0: never).
    #[serde(default)]
    pub min_throughput_secs: Option<f64>,
    /// A latency run of ours ping-pongs at least this long (default: `ddsperf_secs` when ddsperf
    /// runs, so that ours and ddsperf span the same time; else 0, the round trips alone).
    #[serde(default)]
    pub min_latency_secs: Option<f64>,
    /// Batch writes in throughput runs.
    #[serde(default = "yes")]
    pub batch: bool,
    /// Latency: round trips before recording.
    #[serde(default = "default_warmup")]
    pub warmup: u32,
    /// The must-hold bar of the latency checks at 2 and 8 KB: ours ÷ ddsperf p50 at most this
    /// (default 2). A check that fails is a failure of the run (exit 1).
    #[serde(default)]
    pub check_latency_within: Option<f64>,
    /// The must-hold bar of the throughput checks at 2 and 8 KB: ours ÷ ddsperf at least this
    /// (default 0.5).
    #[serde(default)]
    pub check_throughput_at_least: Option<f64>,
}

/// The bars of the must-hold checks when the plan does not set them.
pub const CHECK_LATENCY_WITHIN: f64 = 2.0;
pub const CHECK_THROUGHPUT_AT_LEAST: f64 = 0.5;

/// The `[dds]` part of a study.
pub struct DdsPart;

impl Part for DdsPart {
    const NAME: &'static str = "dds";
    type Options = StudyOpts;
    type Section = DdsSection;

    /// The plan, and that this build has DDS when the part needs it (latency, throughput or
    /// ddsperf; the marshalling bench alone does not).
    fn validate(opts: &StudyOpts) -> Result<(), PartError> {
        plan_of(opts)?;
        if opts.latency || opts.throughput || opts.ddsperf {
            crate::available().map_err(PartError::bad)?;
        }
        Ok(())
    }

    /// A study's runs: a throughput run shorter than `min_throughput_secs` (default
    /// [`MIN_THROUGHPUT_SECS`]) is run again with more samples.
    fn run(opts: &StudyOpts) -> Result<DdsSection, PartError> {
        Ok(run(&plan_of(opts)?, &this_binary_peer, &mut progress))
    }
}

/// Sizes from a comma-separated list (k = 1024), each 1 byte to 4 MiB.
pub fn sizes(list: &str) -> Result<Vec<usize>, PartError> {
    let v: Vec<usize> = list
        .split(',')
        .map(|s| match parse_size(s) {
            Some(n) if (1..=MAX_SIZE).contains(&n) => Ok(n),
            _ => Err(PartError::bad(format!("bad size {:?} (1 byte to 4 MiB, e.g. 2k, 8192, 64k)", s.trim()))),
        })
        .collect::<Result<_, _>>()?;
    if v.is_empty() {
        return Err(PartError::bad("no size given"));
    }
    Ok(v)
}

/// Marshallings by name, each once, in the order given.
pub fn marshals(list: &[String]) -> Result<Vec<Marshal>, PartError> {
    let mut v = Vec::new();
    for s in list {
        let m = Marshal::parse(s)
            .ok_or_else(|| PartError::bad(format!("bad marshalling {:?} (cdr, json, raw)", s.trim())))?;
        if !v.contains(&m) {
            v.push(m);
        }
    }
    if v.is_empty() {
        return Err(PartError::bad("no marshalling given"));
    }
    Ok(v)
}

/// The first domain id of a run (it uses the next 40).
pub fn check_domain(d: u32) -> Result<(), PartError> {
    if d > 190 {
        return Err(PartError::bad(format!(
            "domain {d} too large: runs use domain .. domain+40, and Cyclone allows up to 230"
        )));
    }
    Ok(())
}

/// `name` must be at least 1.
pub fn positive(name: &str, v: u64) -> Result<(), PartError> {
    if v == 0 {
        return Err(PartError::bad(format!("{name} must be at least 1")));
    }
    Ok(())
}

/// A latency run's minimum time: the one given, else as long as a ddsperf run when ddsperf is
/// in the plan; 0 or neither: `None` (the round trips alone).
pub fn min_latency_secs(given: Option<f64>, ddsperf: bool, ddsperf_secs: u32) -> Option<f64> {
    given.or(ddsperf.then_some(f64::from(ddsperf_secs))).filter(|&s| s != 0.0)
}

/// What ddsperf's samples carry, from its name in options: `wire` or `payload`.
pub fn ddsperf_size(name: &str) -> Result<DdsperfSize, PartError> {
    match name.trim().to_ascii_lowercase().as_str() {
        "wire" => Ok(DdsperfSize::Wire),
        "payload" => Ok(DdsperfSize::Payload),
        other => Err(PartError::bad(format!("ddsperf_size: '{other}' is not wire or payload"))),
    }
}

/// Check every number of a plan against its range.
pub fn check_plan(p: &Plan) -> Result<(), PartError> {
    crate::config::max_message_size().map_err(PartError::bad)?;
    if let Some(cpu) = p.latency_cpu {
        if !crate::cpu::allowed(cpu) {
            return Err(PartError::bad(format!(
                "latency_cpu: CPU {cpu} is not one this process may run on ({} usable)",
                crate::cpu::usable()
            )));
        }
    }
    for (name, v) in [("min_throughput_secs", p.min_throughput_secs), ("min_latency_secs", p.min_latency_secs)] {
        if let Some(s) = v {
            if !(0.0..=600.0).contains(&s) {
                return Err(PartError::bad(format!("{name}: {s} is not between 0 and 600")));
            }
        }
    }
    check_domain(p.domain_base)?;
    positive("rounds", u64::from(p.rounds))?;
    positive("ddsperf seconds", u64::from(p.ddsperf_secs))?;
    if p.rounds > 20 {
        return Err(PartError::bad("rounds: at most 20"));
    }
    if p.ddsperf_secs > 120 {
        return Err(PartError::bad("ddsperf seconds: at most 120"));
    }
    if p.cases.is_empty() {
        return Err(PartError::bad("no case to run"));
    }
    for c in &p.cases {
        positive("instances", u64::from(c.instances))?;
        positive("samples", u64::from(c.samples))?;
        positive("iterations", u64::from(c.iterations))?;
        positive("throughput samples", c.throughput_samples)?;
        if c.throughput_samples > MAX_THROUGHPUT_SAMPLES
            || c.json_throughput_samples.unwrap_or(1) > MAX_THROUGHPUT_SAMPLES
        {
            return Err(PartError::bad(format!("throughput samples: at most {MAX_THROUGHPUT_SAMPLES}")));
        }
        if let Some(j) = c.json_throughput_samples {
            positive("json throughput samples", j)?;
        }
        if let Some(r) = c.rounds {
            positive("rounds of a case", u64::from(r))?;
            if r > 20 {
                return Err(PartError::bad("rounds of a case: at most 20"));
            }
        }
        let trips = u64::from(c.instances) * u64::from(c.samples) * u64::from(c.iterations);
        if trips > MAX_ROUND_TRIPS {
            return Err(PartError::bad(format!("{trips} round trips per run is too many (at most 10 million)")));
        }
    }
    Ok(())
}

/// A must-hold bar: a positive, finite ratio.
fn bar(name: &str, v: Option<f64>) -> Result<Option<f64>, PartError> {
    match v {
        Some(x) if !(x.is_finite() && x > 0.0) => {
            Err(PartError::bad(format!("{name} = {x}: a ratio above 0 (ours ÷ ddsperf)")))
        }
        _ => Ok(v),
    }
}

/// The checked plan of a study's `[dds]` options.
pub fn plan_of(o: &StudyOpts) -> Result<Plan, PartError> {
    let mut cases = Vec::new();
    for c in &o.cases {
        let mut s = Vec::new();
        for spec in &c.sizes {
            let text = match spec {
                SizeSpec::Bytes(n) => n.to_string(),
                SizeSpec::Text(t) => t.clone(),
            };
            s.extend(sizes(&text)?);
        }
        if s.is_empty() {
            return Err(PartError::bad("[[dds.cases]]: sizes is empty"));
        }
        cases.push(Case {
            sizes: s,
            instances: c.instances,
            samples: c.samples,
            iterations: c.iterations,
            throughput_samples: c.throughput_samples,
            json_throughput_samples: c.json_throughput_samples,
            rounds: c.rounds,
        });
    }
    if cases.is_empty() {
        return Err(PartError::bad(
            "add at least one [[dds.cases]] with sizes, instances, samples, throughput_samples",
        ));
    }
    let plan = Plan {
        cases,
        marshals: marshals(&o.marshal)?,
        rounds: o.rounds,
        domain_base: o.domain,
        latency: o.latency,
        latency_cpu: o.latency_cpu,
        throughput: o.throughput,
        marshal_bench: o.marshal_bench,
        ddsperf: o.ddsperf,
        ddsperf_secs: o.ddsperf_secs,
        ddsperf_size: Some(o.ddsperf_size.as_deref().map(ddsperf_size).transpose()?.unwrap_or(DdsperfSize::Wire)),
        min_throughput_secs: Some(o.min_throughput_secs.unwrap_or(MIN_THROUGHPUT_SECS)),
        min_latency_secs: min_latency_secs(o.min_latency_secs, o.ddsperf, o.ddsperf_secs),
        batch: o.batch,
        warmup: o.warmup,
        count_allocs: true,
        check_latency_within: bar("check_latency_within", o.check_latency_within)?,
        check_throughput_at_least: bar("check_throughput_at_least", o.check_throughput_at_least)?,
    };
    check_plan(&plan)?;
    Ok(plan)
}

/// Each run's peer: the running binary, `dds peer <json>` ([`PEER_ARGS`]). On Linux through
/// /proc/self/exe, which still runs this very binary when its file has been replaced meanwhile
/// (a rebuild in a shared target directory during a long study).
pub fn this_binary_peer() -> PeerMode {
    let proc_exe = PathBuf::from("/proc/self/exe");
    let exe = if proc_exe.exists() {
        proc_exe
    } else {
        std::env::current_exe().unwrap_or_else(|_| PathBuf::from("wirebench"))
    };
    let mut cmd = std::process::Command::new(exe);
    cmd.args(PEER_ARGS);
    PeerMode::Process(cmd)
}

/// Progress of a run, on stderr.
pub fn progress(msg: &str) {
    eprintln!("dds: {msg}");
}

/// Run a checked plan with the peers of [`this_binary_peer`], progress on stderr (see [`run`]).
pub fn measure(plan: &Plan) -> DdsSection {
    run(plan, &this_binary_peer, &mut progress)
}

#[derive(Default)]
struct Collected {
    latency: Vec<latency::LatencyResult>,
    throughput: Vec<throughput::ThroughputResult>,
    ddsperf_latency: Vec<ddsperf::DdsperfLatency>,
    ddsperf_throughput: Vec<ddsperf::DdsperfThroughput>,
    marshal: Vec<bench::MarshalBench>,
    failures: Vec<Failure>,
}

/// The size ddsperf runs at for a payload of `size` whose keys go up to `max_key`: KeyedSeq's
/// 12 fixed bytes + the baggage, which is the bytes of our CDR sample (payload + CDR's own, see
/// [`crate::marshal::cdr_overhead`]) when the plan compares like with like on the wire, else the
/// payload alone.
pub fn ddsperf_wire(plan: &Plan, size: usize, max_key: u32) -> usize {
    let wire = plan.ddsperf_size == Some(DdsperfSize::Wire) && plan.marshals.contains(&Marshal::Cdr);
    size + KEYEDSEQ_FIXED + if wire { crate::marshal::cdr_overhead(max_key) } else { 0 }
}

/// Run the plan; `peer` makes the peer of each run (a child process for measurements). A
/// throughput run shorter than the plan's `min_throughput_secs` is run again with more samples
/// (see [`long_enough`]; absent or 0: never, the run keeps the plan's samples).
pub fn run(plan: &Plan, peer: &dyn Fn() -> PeerMode, progress: &mut dyn FnMut(&str)) -> DdsSection {
    let min_throughput_secs = plan.min_throughput_secs.unwrap_or(0.0);
    let mut c = Collected::default();
    // A fresh domain id per run, leased host-wide (crate::domains): another wirebench run on
    // this host at the same time takes other ids. Each lease is held until the next run's.
    let mut next = 0u32;
    let mut held: Option<crate::domains::Lease> = None;
    let mut domain = || {
        drop(held.take());
        let candidates: Vec<u32> = (1..=40).map(|k| plan.domain_base + (next + k) % 40).collect();
        let lease = crate::domains::lease(&candidates);
        next = lease.domain - plan.domain_base;
        let d = lease.domain;
        held = Some(lease);
        d
    };
    let have_ddsperf = plan.ddsperf && ddsperf::available();
    if plan.ddsperf && !have_ddsperf {
        c.failures.push(Failure {
            round: 0,
            what: "ddsperf".into(),
            size: 0,
            marshal: None,
            error: format!("{} not found (apt-get install cyclonedds-tools)", ddsperf::program()),
        });
    }
    if plan.marshal_bench {
        for case in &plan.cases {
            for &size in &case.sizes {
                for &m in &plan.marshals {
                    progress(&format!("marshal {} {}", crate::size_label(size), m.name()));
                    match bench::run(size, m, 15) {
                        Ok(b) => c.marshal.push(b),
                        Err(e) => c.failures.push(fail(0, "marshal", size, Some(m), e)),
                    }
                }
            }
        }
    }
    // Progress: transport steps done of all, with the time left.
    let per_size = |on: bool| if on { usize::from(have_ddsperf) + plan.marshals.len() } else { 0 };
    let size_rounds: usize = plan.cases.iter().map(|c| c.sizes.len() * plan.rounds_of(c) as usize).sum();
    let total_steps = size_rounds * (per_size(plan.latency) + per_size(plan.throughput));
    let max_rounds = plan.cases.iter().map(|c| plan.rounds_of(c)).max().unwrap_or(1);
    let (started, mut step) = (std::time::Instant::now(), 0usize);
    // A step starts a run ([k/n] with the time left); a note says how one went.
    let mut say = |msg: &str, next_step: bool| {
        if !next_step {
            progress(&format!("  {msg}"));
            return;
        }
        let left = wirebench_measure::progress::time_left(started, step, total_steps);
        step += 1;
        progress(&format!(
            "[{step}/{total_steps}{}] {msg}",
            if left.is_empty() { String::new() } else { format!(", {left}") }
        ));
    };
    for round in 1..=max_rounds {
        for case in plan.cases.iter().filter(|c| round <= plan.rounds_of(c)) {
            for &size in &case.sizes {
                let label = crate::size_label(size);
                // ddsperf and ours alternate which runs first (A B, B A, …), so neither side
                // always meets the host right after the other.
                let ddsperf_first = round % 2 == 1;
                if plan.latency {
                    for ddsperf_turn in if ddsperf_first { [true, false] } else { [false, true] } {
                        if ddsperf_turn {
                            if have_ddsperf {
                                say(&format!("round {round}: latency {label} ddsperf"), true);
                                let max_key = case.instances.saturating_sub(1);
                                let run =
                                    || ddsperf::latency(domain(), ddsperf_wire(plan, size, max_key), plan.ddsperf_secs);
                                match crate::cpu::on_cpu(plan.latency_cpu, run).and_then(|r| r) {
                                    Ok(r) => c.ddsperf_latency.push(ddsperf::DdsperfLatency {
                                        round,
                                        payload: Some(size),
                                        ..r
                                    }),
                                    Err(e) => c.failures.push(fail(round, "ddsperf latency", size, None, e)),
                                }
                            }
                        } else {
                            for &m in &plan.marshals {
                                say(&format!("round {round}: latency {label} {}", m.name()), true);
                                let mut o = LatencyOpts::new(domain(), size, m);
                                o.instances = case.instances;
                                o.samples = case.samples;
                                o.iterations = case.iterations;
                                o.warmup = plan.warmup;
                                o.min_secs = plan.min_latency_secs.unwrap_or(0.0);
                                o.count_allocs = plan.count_allocs;
                                match crate::cpu::on_cpu(plan.latency_cpu, || latency::run(&o, peer())).and_then(|r| r)
                                {
                                    Ok(r) => c.latency.push(latency::LatencyResult { round, ..r }),
                                    Err(e) => c.failures.push(fail(round, "latency", size, Some(m), e)),
                                }
                            }
                        }
                    }
                }
                if plan.throughput {
                    for ddsperf_turn in if ddsperf_first { [true, false] } else { [false, true] } {
                        if ddsperf_turn {
                            if have_ddsperf {
                                say(&format!("round {round}: throughput {label} ddsperf"), true);
                                // Our throughput runs write one key, "0".
                                match ddsperf::throughput(domain(), ddsperf_wire(plan, size, 0), plan.ddsperf_secs) {
                                    Ok(r) => c.ddsperf_throughput.push(ddsperf::DdsperfThroughput {
                                        round,
                                        payload: Some(size),
                                        payload_mb_per_s: Some(payload_mb(r.samples_per_s, size)),
                                        ..r
                                    }),
                                    Err(e) => c.failures.push(fail(round, "ddsperf throughput", size, None, e)),
                                }
                            }
                        } else {
                            for &m in &plan.marshals {
                                say(&format!("round {round}: throughput {label} {}", m.name()), true);
                                let n = match m {
                                    Marshal::Json => case.json_throughput_samples.unwrap_or(case.throughput_samples),
                                    _ => case.throughput_samples,
                                };
                                let mut o = ThroughputOpts::new(domain(), size, m, n);
                                o.instances = 1; // the seed's throughput runs name no instance count; ddsperf pub uses one key
                                o.batch = plan.batch;
                                o.count_allocs = plan.count_allocs;
                                match long_enough(
                                    &mut o,
                                    min_throughput_secs,
                                    &mut || peer(),
                                    &mut |msg| say(msg, false),
                                    &mut domain,
                                ) {
                                    Ok(r) => c.throughput.push(throughput::ThroughputResult { round, ..r }),
                                    Err(e) => c.failures.push(fail(round, "throughput", size, Some(m), e)),
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let s = section(plan, c);
    // Ours ÷ ddsperf per size and marshalling: the paired rounds, their median and its interval.
    for f in s.figures() {
        for &m in &plan.marshals {
            let (lat, thr) = crate::figures::paired_ratios(&s, f.size, m);
            for (what, v) in [("latency p50", lat), ("throughput", thr)] {
                if let Some((med, lo, hi, cov)) = crate::figures::median_ci(&v) {
                    let list: Vec<String> = v.iter().map(|x| format!("{x:.2}")).collect();
                    say(
                        &format!(
                            "ours ({}) ÷ ddsperf, {what} at {}: {med:.3}, median of {} paired rounds [{}], {:.1} % interval {lo:.3}–{hi:.3}",
                            m.name(),
                            crate::size_label(f.size),
                            v.len(),
                            list.join(" "),
                            cov * 100.0
                        ),
                        false,
                    );
                }
            }
        }
    }
    s
}

/// A throughput run shorter than this says little (start-up, one scheduler hiccup): it is run
/// again with more samples.
pub const MIN_THROUGHPUT_SECS: f64 = 2.0;
/// Runs of one throughput cell at most (the first and two longer ones).
const THROUGHPUT_ATTEMPTS: u32 = 3;

/// Samples for the next attempt of a run of `n` samples that took `secs`: enough for
/// `min_secs` at the rate it had, with a quarter to spare, at most `max`; `None` when the run was
/// long enough or cannot grow.
pub fn longer_count(n: u64, secs: f64, min_secs: f64, max: u64) -> Option<u64> {
    if secs >= min_secs || n >= max {
        return None;
    }
    let want = (n as f64 * 1.25 * min_secs / secs.max(1e-3)).ceil();
    Some(if want >= max as f64 { max } else { (want as u64).max(n + 1) })
}

/// Run `o` until a run lasts `min_secs` (at most [`THROUGHPUT_ATTEMPTS`] runs, each on a fresh
/// domain, the samples scaled by [`longer_count`]; `o.samples` ends as the last run's count):
/// the result is the last run, whose `sent` says how many samples it had. Each run's steady rate
/// with its 95 % CI goes to `note`, and whether it was shorter than [`MIN_THROUGHPUT_SECS`].
fn long_enough(
    o: &mut ThroughputOpts,
    min_secs: f64,
    peer: &mut dyn FnMut() -> PeerMode,
    note: &mut dyn FnMut(&str),
    domain: &mut dyn FnMut() -> u32,
) -> Result<throughput::ThroughputResult, crate::DdsError> {
    let mut attempt = 1;
    loop {
        let (r, stats) = throughput::run_with_stats(o, peer())?;
        let steady = r.steady_samples_per_s.unwrap_or(r.samples_per_s);
        let ci = match r.steady_ci95 {
            Some((lo, hi)) => format!(" (95 % CI {lo:.0}–{hi:.0} over {} batches)", stats.batches),
            None => String::new(),
        };
        let short = if r.secs < MIN_THROUGHPUT_SECS {
            format!("; shorter than {MIN_THROUGHPUT_SECS} s, little to go by")
        } else {
            String::new()
        };
        note(&format!("{} samples in {:.2} s: {steady:.0} samples/s steady{ci}{short}", r.received, r.secs));
        match longer_count(o.samples, r.secs, min_secs, MAX_THROUGHPUT_SAMPLES) {
            Some(n) if attempt < THROUGHPUT_ATTEMPTS && !r.stalled => {
                note(&format!("again with {n} samples, to last {min_secs} s"));
                o.samples = n;
                o.domain = domain();
                attempt += 1;
            }
            _ => return Ok(r),
        }
    }
}

/// The section of the collected runs, with the checks, ratios and figures per size.
fn section(plan: &Plan, mut c: Collected) -> DdsSection {
    let checks = checks(plan, &c);
    // A must-hold check that fails is a failure of the run, as a run that failed is.
    for k in checks.iter().filter(|k| !k.pass) {
        c.failures.push(Failure {
            round: k.round,
            what: "must-hold check".into(),
            size: k.size,
            marshal: Some(Marshal::Cdr),
            error: if k.ddsperf > 0.0 && k.ddsperf.is_finite() {
                format!(
                    "{} (round {}): ours {:.1} {} ÷ ddsperf {:.1} = {:.2}, the bar is {}",
                    k.name, k.round, k.ours, k.unit, k.ddsperf, k.ratio, k.limit
                )
            } else {
                format!("{} (round {}): ddsperf measured no {}, so the check cannot be made", k.name, k.round, k.unit)
            },
        });
    }
    let ratios = ratios(&c);
    let mut s = DdsSection {
        transport: format!(
            "Cyclone DDS {} (libddsc via a C shim), RTPS/UDP on loopback, unicast discovery, {}",
            crate::cyclone_version(),
            crate::config::message_size_text()
        ),
        cyclone_version: crate::cyclone_version(),
        topic: "KeyedSeq {seq, @key keyval, sequence<octet> baggage} (ddsperf's KS); the marshalled KeyedOctets sample is the baggage".into(),
        method: method(),
        plan: plan.clone(),
        latency: c.latency,
        throughput: c.throughput,
        ddsperf_latency: c.ddsperf_latency,
        ddsperf_throughput: c.ddsperf_throughput,
        marshal: c.marshal,
        checks,
        ratios,
        failures: c.failures,
        published: crate::published::section(),
        per_size: None,
    };
    s.per_size = Some(crate::figures::per_size(&s));
    s
}

/// How each figure is measured.
fn method() -> Method {
    Method {
        latency: "back-to-back ping-pong between two processes; half round trip from before marshal to after unmarshal; reliable KEEP_LAST 1; all round trips of a run pooled; a run records its round trips and goes on for at least the plan's min_latency_secs (with ddsperf in the plan, by default as long as a ddsperf run: both sides sample the host over the same span); with the plan's latency_cpu, every process and thread of a run (ours and ddsperf's alike) on that one CPU, so both pay the same hand-off between the ends (across vCPUs a virtual machine adds a wake-up of ~20 µs that comes and goes between runs)".into(),
        throughput: "publisher process writes N samples flat out (reliable KEEP_ALL, resource limits 10000 samples, batching as configured; ddsperf pub's QoS); the reader takes in a data-available listener into Cyclone's reused loan (ddsperf sub's way) and unmarshals each sample into one reused value (buffer policy: reused; the writer marshals into one reused buffer); samples_per_s: time from go to the last sample unmarshalled at the reader (the seed's definition); steady_samples_per_s: after the first tenth arrived (compared with ddsperf's steady-state windows in the checks); a run shorter than the plan's min_throughput_secs (a study's default: 2 s; `dds throughput --min-secs`, default 0) is run again with more samples (up to 3 runs; `sent` is the count of the run kept); without it a run keeps its count and says when it was shorter than 2 s; each run's steady_ci95: a bootstrap 95 % interval over 15 batches of its steady stretch".into(),
        ddsperf: "ddsperf 0.10.2 ping/pong and pub/sub with size = 12 + the bytes our CDR sample puts on the wire (payload + CDR's 16 bytes of encapsulation header, key and length; the plan's ddsperf_size = wire, the default: ours ÷ ddsperf then compares the same traffic, and CDR's bytes show in the marshalling sizes) or 12 + the payload (ddsperf_size = payload: CDR's 16 bytes count against ours; at 2 KB they cost a sample per 14,720-byte datagram); same loopback configuration and the same process layout (two processes); its own defaults, which ours matches: reliable, KEEP_ALL, resource limits 10000 samples, batched writes (dds_write_set_batch), data-available listener taking into a reused loan, one key; samples_per_s and latency: median over 1-second windows; steady_samples_per_s, which the throughput checks and ours ÷ ddsperf use: its steady state by the estimator of ours, the samples of its whole 1-second windows (all with data but the first and the last) ÷ their time; ours ÷ ddsperf is the median of per-round paired ratios (each round runs both, alternating which goes first) with an order-statistic interval (at least 95 % from 6 rounds on, else [min, max] with its coverage)".into(),
        allocations: "Rust heap allocations per sample, writer marshal + reader unmarshal (Cyclone's C allocations not counted)".into(),
        mb: "MB = 1e6 bytes of payload".into(),
    }
}

fn fail(round: u32, what: &str, size: usize, marshal: Option<Marshal>, e: crate::DdsError) -> Failure {
    Failure { round, what: what.into(), size, marshal, error: e.to_string() }
}

/// The must-hold comparisons with ddsperf, per round: CDR latency p50 within 2× of ddsperf's and
/// CDR throughput at least 0.5× of ddsperf's (or the plan's bars), at 2 KB and 8 KB.
fn checks(plan: &Plan, c: &Collected) -> Vec<Check> {
    let within = plan.check_latency_within.unwrap_or(CHECK_LATENCY_WITHIN);
    let at_least = plan.check_throughput_at_least.unwrap_or(CHECK_THROUGHPUT_AT_LEAST);
    let mut out = Vec::new();
    for size in [2048usize, 8192] {
        for l in c.latency.iter().filter(|l| l.size == size && l.marshal == Marshal::Cdr) {
            if let Some(d) = c.ddsperf_latency.iter().find(|d| d.round == l.round && d.payload_size() == size) {
                let ratio = l.half_rtt_us.p50 / d.p50;
                out.push(Check {
                    name: format!("latency p50 within {within}x of ddsperf at {}", crate::size_label(size)),
                    round: l.round,
                    size,
                    ours: l.half_rtt_us.p50,
                    ddsperf: d.p50,
                    unit: "us".into(),
                    ratio,
                    limit: within,
                    pass: ratio <= within,
                });
            }
        }
        for t in c.throughput.iter().filter(|t| t.size == size && t.marshal == Marshal::Cdr) {
            if let Some(d) = c.ddsperf_throughput.iter().find(|d| d.round == t.round && d.payload_size() == size) {
                // Steady state against ddsperf's steady state, the same estimator on both
                // sides: samples ÷ time after the start (whole run if unavailable).
                let ours = t.steady_samples_per_s.unwrap_or(t.samples_per_s);
                let theirs = ddsperf::steady_samples_per_s(d);
                let ratio = ours / theirs;
                out.push(Check {
                    name: format!("throughput at least {at_least}x of ddsperf at {}", crate::size_label(size)),
                    round: t.round,
                    size,
                    ours,
                    ddsperf: theirs,
                    unit: "samples/s".into(),
                    ratio,
                    limit: at_least,
                    // A ddsperf run that measured nothing is no bar met.
                    pass: theirs > 0.0 && ratio >= at_least,
                });
            }
        }
    }
    out
}

/// Nearest-rank median over rounds (`None` when there is no run).
fn rounds_median(v: Vec<f64>) -> Option<f64> {
    (!v.is_empty()).then(|| wirebench_measure::stats::median_nearest_rank(v))
}

/// JSON relative to CDR per size: marshalling alone and in the transport (medians over rounds;
/// throughput in steady state).
fn ratios(c: &Collected) -> Vec<Ratio> {
    let mut sizes: Vec<usize> = c.marshal.iter().map(|m| m.size).collect();
    sizes.extend(c.latency.iter().map(|l| l.size));
    sizes.extend(c.throughput.iter().map(|t| t.size));
    sizes.sort_unstable();
    sizes.dedup();
    let mut out = Vec::new();
    for size in sizes {
        let mb = |m: Marshal| c.marshal.iter().find(|b| b.size == size && b.marshal == m);
        let lat = |m: Marshal| {
            rounds_median(
                c.latency.iter().filter(|l| l.size == size && l.marshal == m).map(|l| l.half_rtt_us.p50).collect(),
            )
        };
        let thr = |m: Marshal| {
            rounds_median(
                c.throughput
                    .iter()
                    .filter(|t| t.size == size && t.marshal == m)
                    .map(|t| t.steady_samples_per_s.unwrap_or(t.samples_per_s))
                    .collect(),
            )
        };
        let (cj, cc) = (mb(Marshal::Json), mb(Marshal::Cdr));
        out.push(Ratio {
            size,
            marshal_bytes: cj.zip(cc).map(|(j, c)| j.bytes as f64 / c.bytes as f64),
            marshal_encode: cj.zip(cc).map(|(j, c)| j.encode_ns / c.encode_ns),
            marshal_decode: cj.zip(cc).map(|(j, c)| j.decode_ns / c.decode_ns),
            marshal_round_trip: cj.zip(cc).map(|(j, c)| (j.encode_ns + j.decode_ns) / (c.encode_ns + c.decode_ns)),
            latency_p50: lat(Marshal::Json).zip(lat(Marshal::Cdr)).map(|(j, c)| j / c),
            throughput: thr(Marshal::Json).zip(thr(Marshal::Cdr)).map(|(j, c)| j / c),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(toml_cases: Vec<CaseOpts>) -> StudyOpts {
        StudyOpts {
            cases: toml_cases,
            marshal: default_marshal(),
            rounds: 1,
            domain: 60,
            latency: true,
            latency_cpu: None,
            throughput: true,
            marshal_bench: true,
            ddsperf: true,
            ddsperf_secs: 4,
            ddsperf_size: None,
            min_throughput_secs: None,
            min_latency_secs: None,
            batch: true,
            warmup: 200,
            check_latency_within: None,
            check_throughput_at_least: None,
        }
    }

    fn case(sizes: &[&str]) -> CaseOpts {
        CaseOpts {
            sizes: sizes.iter().map(|s| SizeSpec::Text(s.to_string())).collect(),
            instances: 2,
            samples: 5,
            iterations: 1,
            throughput_samples: 100,
            json_throughput_samples: None,
            rounds: None,
        }
    }

    fn bad(r: Result<Plan, PartError>) -> String {
        match r {
            Err(PartError::BadInput(m)) => m,
            other => panic!("expected bad input, got {other:?}"),
        }
    }

    #[test]
    fn plan_of_a_study_checks_every_option() {
        let p = plan_of(&opts(vec![case(&["2k", "8192"])])).unwrap();
        assert_eq!(p.cases[0].sizes, vec![2048, 8192]);
        assert_eq!(p.marshals, vec![Marshal::Cdr, Marshal::Json]);
        assert!(bad(plan_of(&opts(vec![]))).contains("[[dds.cases]]"));
        assert!(bad(plan_of(&opts(vec![case(&["2q"])]))).contains("bad size \"2q\""));
        assert!(bad(plan_of(&opts(vec![case(&["0"])]))).contains("bad size"));
        let mut o = opts(vec![case(&["2k"])]);
        o.marshal = vec!["xml".into()];
        assert!(bad(plan_of(&o)).contains("bad marshalling \"xml\""));
        let mut o = opts(vec![case(&["2k"])]);
        o.domain = 500;
        assert!(bad(plan_of(&o)).contains("domain 500 too large"));
        let mut o = opts(vec![case(&["2k"])]);
        o.rounds = 21;
        assert!(bad(plan_of(&o)).contains("rounds: at most 20"));
        let mut c = case(&["2k"]);
        c.samples = 100_000;
        c.iterations = 1000;
        assert!(bad(plan_of(&opts(vec![c]))).contains("too many"));
        let mut c = case(&["2k"]);
        c.json_throughput_samples = Some(0);
        assert!(bad(plan_of(&opts(vec![c]))).contains("json throughput samples must be at least 1"));
        let mut c = case(&["2k"]);
        c.rounds = Some(21);
        assert!(bad(plan_of(&opts(vec![c]))).contains("rounds of a case: at most 20"));
        let mut o = opts(vec![case(&["2k"])]);
        o.ddsperf_size = Some("bytes".into());
        assert!(bad(plan_of(&o)).contains("ddsperf_size: 'bytes' is not wire or payload"));
        let mut o = opts(vec![case(&["2k"])]);
        o.min_throughput_secs = Some(-1.0);
        assert!(bad(plan_of(&o)).contains("min_throughput_secs"));
        let mut o = opts(vec![case(&["2k"])]);
        o.min_latency_secs = Some(601.0);
        assert!(bad(plan_of(&o)).contains("min_latency_secs: 601 is not between 0 and 600"));
    }

    #[test]
    fn latency_runs_span_a_ddsperf_run_by_default() {
        let mut o = opts(vec![case(&["2k"])]);
        o.ddsperf_secs = 3;
        assert_eq!(plan_of(&o).unwrap().min_latency_secs, Some(3.0));
        o.min_latency_secs = Some(1.5);
        assert_eq!(plan_of(&o).unwrap().min_latency_secs, Some(1.5));
        o.min_latency_secs = Some(0.0);
        assert_eq!(plan_of(&o).unwrap().min_latency_secs, None, "0: the round trips alone");
        o.min_latency_secs = None;
        o.ddsperf = false;
        assert_eq!(plan_of(&o).unwrap().min_latency_secs, None, "no ddsperf to span");
    }

    #[test]
    fn cases_run_their_own_rounds_and_ddsperf_carries_our_cdr_bytes_by_default() {
        let mut fast = case(&["4k"]);
        fast.rounds = Some(3);
        let mut o = opts(vec![case(&["2k"]), fast]);
        o.rounds = 2;
        let p = plan_of(&o).unwrap();
        assert_eq!((p.rounds_of(&p.cases[0]), p.rounds_of(&p.cases[1])), (2, 3));
        assert_eq!(p.min_throughput_secs, Some(MIN_THROUGHPUT_SECS), "a study grows short runs");
        // Wire: KeyedSeq's 12 + the CDR sample (payload + 16 for keys below 1000).
        assert_eq!(p.ddsperf_size, Some(DdsperfSize::Wire));
        assert_eq!(ddsperf_wire(&p, 2048, 0), 2048 + 12 + 16);
        assert_eq!(ddsperf_wire(&p, 2048, 999), 2048 + 12 + 16);
        assert_eq!(ddsperf_wire(&p, 2048, 1000), 2048 + 12 + 20);
        o.ddsperf_size = Some("payload".into());
        let p = plan_of(&o).unwrap();
        assert_eq!(ddsperf_wire(&p, 2048, 0), 2048 + 12);
        // Without CDR there are no CDR bytes to match: the payload.
        let mut o = opts(vec![case(&["2k"])]);
        o.marshal = vec!["json".into()];
        assert_eq!(ddsperf_wire(&plan_of(&o).unwrap(), 2048, 0), 2048 + 12);
        // A file written before the option: the payload.
        let old = Plan { ddsperf_size: None, ..plan_of(&opts(vec![case(&["2k"])])).unwrap() };
        assert_eq!(ddsperf_wire(&old, 2048, 0), 2048 + 12);
    }

    #[test]
    fn short_throughput_runs_grow_to_the_minimum() {
        // 100 k samples in 0.3 s: 2 s at that rate with a quarter to spare.
        assert_eq!(longer_count(100_000, 0.3, 2.0, MAX_THROUGHPUT_SAMPLES), Some(833_334));
        assert_eq!(longer_count(100_000, 2.0, 2.0, MAX_THROUGHPUT_SAMPLES), None, "long enough");
        assert_eq!(longer_count(1_000, 0.0, 2.0, 50_000), Some(50_000), "capped");
        assert_eq!(longer_count(50_000, 0.1, 2.0, 50_000), None, "cannot grow");
        assert_eq!(longer_count(1, 1.999, 2.0, 10), Some(2), "always more than before");
    }

    #[test]
    fn the_marshalling_bench_alone_needs_no_dds() {
        let mut o = opts(vec![case(&["512"])]);
        (o.latency, o.throughput, o.ddsperf) = (false, false, false);
        assert!(DdsPart::validate(&o).is_ok());
        let s = DdsPart::run(&o).unwrap();
        assert_eq!(s.marshal.len(), 2, "{:?}", s.failures);
        assert!(s.latency.is_empty() && s.checks.is_empty());
        assert_eq!(s.ratios.len(), 1);
        assert!(s.ratios[0].marshal_bytes.is_some_and(|r| r > 1.0));
        let figures = s.per_size.as_deref().unwrap();
        assert_eq!(figures.len(), 1);
        assert_eq!(figures[0].size, 512);
        assert!(figures[0].ours.is_empty(), "no transport run");
        assert_eq!(s.published.latency_ms.len(), crate::published::LATENCY.len());
    }

    #[test]
    fn checks_and_ratios_compare_by_round_and_size() {
        use crate::ddsperf::{summarize_ping, summarize_sub, PingWindow, SubWindow};
        use wirebench_core::sections::dds::{PeerReport, PooledSummary};
        let lat = |m: Marshal, p50: f64, round: u32| latency::LatencyResult {
            domain: None,
            alloc_bytes_per_sample: None,
            allocs_per_sample: None,
            baggage_bytes: 2064,
            cdf: vec![],
            half_rtt_us: PooledSummary { count: 1, p50, ..Default::default() },
            instances: 1,
            iterations: 1,
            marshal: m,
            peer: PeerReport::default(),
            retries: 0,
            round,
            round_trips: 1,
            samples: 1,
            secs: 1.0,
            size: 2048,
            wire_bytes: 2076,
        };
        let ping = |p50: f64| PingWindow {
            t: 1.0,
            size: 2060,
            mean: p50,
            min: p50,
            p50,
            p90: p50,
            p99: p50,
            max: p50,
            cnt: 10,
        };
        let sub = |ksps: f64| SubWindow { t: 1.0, size: 2060, total: 1, lost: 0, delta: 1, ksps, mbit_per_s: 1.0 };
        let c = Collected {
            latency: vec![
                lat(Marshal::Cdr, 30.0, 1),
                lat(Marshal::Json, 90.0, 1),
                lat(Marshal::Cdr, 10.0, 2),
                lat(Marshal::Json, 50.0, 2),
            ],
            ddsperf_latency: vec![ddsperf::DdsperfLatency {
                round: 1,
                ..summarize_ping(2060, vec![ping(10.0)]).unwrap()
            }],
            ddsperf_throughput: vec![ddsperf::DdsperfThroughput {
                round: 1,
                ..summarize_sub(2060, vec![sub(100.0)]).unwrap()
            }],
            ..Default::default()
        };
        let checks = checks(&Plan::default(), &c);
        assert_eq!(checks.len(), 1, "round 2 has no ddsperf run");
        assert_eq!((checks[0].ratio, checks[0].pass), (3.0, false));
        // The plan's bar decides: within 5× passes.
        let lenient = Plan { check_latency_within: Some(5.0), ..Plan::default() };
        let k = &super::checks(&lenient, &c)[0];
        assert_eq!((k.pass, k.limit, k.name.as_str()), (true, 5.0, "latency p50 within 5x of ddsperf at 2 KB"));
        let ratios = ratios(&c);
        // Nearest-rank medians over the two rounds: JSON 50, CDR 10.
        assert_eq!(ratios[0].latency_p50, Some(5.0));
        assert_eq!(ratios[0].marshal_bytes, None);
        let s = section(&Plan::default(), c);
        // The failed check is a failure of the run.
        assert_eq!(s.failures.len(), 1, "{:?}", s.failures);
        assert_eq!(s.failures[0].what, "must-hold check");
        assert!(
            s.failures[0].error.contains("latency p50 within 2x of ddsperf at 2 KB (round 1)"),
            "{}",
            s.failures[0].error
        );
        assert_eq!(s.ddsperf_throughput[0].payload, Some(2048));
        assert_eq!(s.ddsperf_throughput[0].payload_mb_per_s, Some(100_000.0 * 2048.0 / 1e6));
        let f = &s.per_size.as_ref().unwrap()[0];
        // Ours ÷ ddsperf pairs the rounds: only round 1 ran both (CDR 30 against 10), so 3, not
        // the ratio of the medians over rounds (20 ÷ 10).
        assert_eq!(f.cdr_over_ddsperf.latency_p50, Some(3.0));
        assert!(f.seed_json_over_cdr.latency_p50.is_some());
        // ddsperf at our CDR wire size (2048 + 16 + 12) stands for the 2 KB payload: the checks
        // find it by the payload it was run for, not by its own size.
        let wire = 2048 + 16 + KEYEDSEQ_FIXED;
        let c = Collected {
            latency: vec![lat(Marshal::Cdr, 30.0, 1)],
            ddsperf_latency: vec![ddsperf::DdsperfLatency {
                round: 1,
                payload: Some(2048),
                ..summarize_ping(wire, vec![ping(10.0)]).unwrap()
            }],
            ..Default::default()
        };
        let found = super::checks(&Plan::default(), &c);
        assert_eq!(found.len(), 1, "found at the wire size");
        assert_eq!(found[0].ratio, 3.0);
    }
}
