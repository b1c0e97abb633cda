//! DDS transport (seed 004): `wirebench dds latency|throughput|marshal|interop` and the [dds]
//! study part. The work is in the `wirebench-dds` crate; this module parses options, starts the
//! peer of each run as a child process of this binary (`wirebench dds peer`, hidden) and renders.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use serde::{Deserialize, Serialize};
use wirebench_core::results::Results;
use wirebench_dds::peer::PeerMode;
use wirebench_dds::study::{Case, Plan};
use wirebench_dds::{parse_size, Marshal};

use crate::common::{bad, check_writable, provenance, write_stdout};
use crate::OutputArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Subcommand)]
enum Cmd {
    /// Ping-pong latency (half round trip, pooled) between two processes, per size and marshalling.
    Latency(RunArgs),
    /// Throughput: N samples flat out from a publisher process, per size and marshalling.
    Throughput(RunArgs),
    /// Marshalling alone (no DDS): encode/decode time, bytes and allocations, CDR vs JSON.
    Marshal(RunArgs),
    /// Interoperability with Cyclone's ddsperf: ddsperf pub -> our reader, our writer -> ddsperf sub.
    Interop(InteropArgs),
    /// The other end of a run (started by wirebench itself).
    #[command(hide = true)]
    Peer { json: String },
}

#[derive(clap::Args)]
struct RunArgs {
    /// Payload sizes, comma-separated (k = 1024): e.g. 2k,8k,64k.
    #[arg(long, default_value = "2k,8k")]
    size: String,
    /// Marshallings, comma-separated: cdr, json, raw.
    #[arg(long, default_value = "cdr,json")]
    marshal: String,
    /// Latency: instances (key values) per iteration.
    #[arg(long, default_value_t = 100)]
    instances: u32,
    /// Latency: samples per instance per iteration.
    #[arg(long, default_value_t = 20)]
    samples: u32,
    /// Latency: iterations of instances x samples round trips.
    #[arg(long, default_value_t = 1)]
    iterations: u32,
    /// Latency: round trips before recording.
    #[arg(long, default_value_t = 200)]
    warmup: u32,
    /// Throughput: samples per run.
    #[arg(long, default_value_t = 10_000)]
    count: u64,
    /// Throughput: do not batch writes.
    #[arg(long)]
    no_batch: bool,
    /// Also run Cyclone's ddsperf at the same sizes, side by side (the native anchor).
    #[arg(long)]
    ddsperf: bool,
    /// Seconds per ddsperf run.
    #[arg(long, default_value_t = 4)]
    ddsperf_secs: u32,
    /// Repeat everything this many times (the machine is noisy).
    #[arg(long, default_value_t = 1)]
    rounds: u32,
    /// First DDS domain id (runs use the next 40).
    #[arg(long, default_value_t = 60)]
    domain: u32,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    output: OutputArg,
    /// Also write the results file here, atomically.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
struct InteropArgs {
    /// DDS domain id.
    #[arg(long, default_value_t = 59)]
    domain: u32,
    /// Payload size.
    #[arg(long, default_value = "2k")]
    size: String,
    /// Samples our writer sends to ddsperf sub.
    #[arg(long, default_value_t = 2000)]
    count: u64,
}

/// DDS runs need Cyclone DDS in this build: the one-line answer (exit 2) when it is missing.
fn need_dds() -> Result<()> {
    wirebench_dds::available().map_err(bad)
}

pub fn run(args: Args) -> Result<()> {
    match args.cmd {
        Cmd::Peer { json } => std::process::exit(wirebench_dds::peer::child_main(&json)),
        Cmd::Interop(a) => need_dds().and_then(|()| interop(a)),
        Cmd::Latency(a) => need_dds().and_then(|()| measure_cmd(a, Kind::Latency)),
        Cmd::Throughput(a) => need_dds().and_then(|()| measure_cmd(a, Kind::Throughput)),
        Cmd::Marshal(a) => measure_cmd(a, Kind::Marshal),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Latency,
    Throughput,
    Marshal,
}

fn sizes(list: &str) -> Result<Vec<usize>> {
    let v: Vec<usize> = list
        .split(',')
        .map(|s| match parse_size(s) {
            Some(n) if (1..=MAX_SIZE).contains(&n) => Ok(n),
            _ => Err(bad(format!("bad size {:?} (1 byte to 4 MiB, e.g. 2k, 8192, 64k)", s.trim()))),
        })
        .collect::<Result<_>>()?;
    if v.is_empty() {
        return Err(bad("no size given"));
    }
    Ok(v)
}

const MAX_SIZE: usize = 4 << 20;
/// The reader keeps one flag per expected sample (delivery accounting).
const MAX_THROUGHPUT_SAMPLES: u64 = 100_000_000;

fn marshals(list: &[String]) -> Result<Vec<Marshal>> {
    let mut v = Vec::new();
    for s in list {
        let m = Marshal::parse(s).ok_or_else(|| bad(format!("bad marshalling {:?} (cdr, json, raw)", s.trim())))?;
        if !v.contains(&m) {
            v.push(m);
        }
    }
    if v.is_empty() {
        return Err(bad("no marshalling given"));
    }
    Ok(v)
}

fn check_domain(d: u32) -> Result<()> {
    if d > 190 {
        return Err(bad(format!("domain {d} too large: runs use domain .. domain+40, and Cyclone allows up to 230")));
    }
    Ok(())
}

fn positive(name: &str, v: u64) -> Result<()> {
    if v == 0 {
        return Err(bad(format!("{name} must be at least 1")));
    }
    Ok(())
}

/// Each run's peer: this binary, `dds peer <json>`. On Linux through /proc/self/exe, which
/// still runs this very binary when its file has been replaced meanwhile (a rebuild in a shared
/// target directory during a long study).
fn child_peer() -> PeerMode {
    let proc_exe = PathBuf::from("/proc/self/exe");
    let exe = if proc_exe.exists() {
        proc_exe
    } else {
        std::env::current_exe().unwrap_or_else(|_| PathBuf::from("wirebench"))
    };
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["dds", "peer"]);
    PeerMode::Process(cmd)
}

fn progress(msg: &str) {
    eprintln!("dds: {msg}");
}

fn measure_cmd(a: RunArgs, kind: Kind) -> Result<()> {
    let list: Vec<String> = a.marshal.split(',').map(str::to_string).collect();
    let plan = Plan {
        cases: vec![Case {
            sizes: sizes(&a.size)?,
            instances: a.instances,
            samples: a.samples,
            iterations: a.iterations,
            throughput_samples: a.count,
            json_throughput_samples: None,
        }],
        marshals: marshals(&list)?,
        rounds: a.rounds,
        domain_base: a.domain,
        latency: kind == Kind::Latency,
        throughput: kind == Kind::Throughput,
        marshal_bench: kind == Kind::Marshal,
        ddsperf: a.ddsperf,
        ddsperf_secs: a.ddsperf_secs,
        batch: !a.no_batch,
        warmup: a.warmup,
        count_allocs: true,
    };
    check_plan(&plan)?;
    if let Some(out) = &a.out {
        check_writable(out)?;
    }
    let value = wirebench_dds::study::run(&plan, &child_peer, &mut progress);
    let config = serde_json::json!({ "command": "dds", "plan": plan });
    let mut results = Results::new(provenance(0), config);
    results.dds = Some(value);
    if let Some(out) = &a.out {
        results.write_atomic(out).map_err(|e| bad(e.to_string()))?;
    }
    let output: wirebench_report::Output = a.output.into();
    let text = if output == wirebench_report::Output::Json {
        serde_json::to_string_pretty(&results)? + "\n"
    } else {
        wirebench_report::dds::render(&results, output)
    };
    write_stdout(text.as_bytes())
}

fn check_plan(p: &Plan) -> Result<()> {
    check_domain(p.domain_base)?;
    positive("rounds", u64::from(p.rounds))?;
    positive("ddsperf seconds", u64::from(p.ddsperf_secs))?;
    if p.rounds > 20 {
        return Err(bad("rounds: at most 20"));
    }
    if p.ddsperf_secs > 120 {
        return Err(bad("ddsperf seconds: at most 120"));
    }
    if p.cases.is_empty() {
        return Err(bad("no case to run"));
    }
    for c in &p.cases {
        positive("instances", u64::from(c.instances))?;
        positive("samples", u64::from(c.samples))?;
        positive("iterations", u64::from(c.iterations))?;
        positive("throughput samples", c.throughput_samples)?;
        if c.throughput_samples > MAX_THROUGHPUT_SAMPLES || c.json_throughput_samples.unwrap_or(1) > MAX_THROUGHPUT_SAMPLES {
            return Err(bad(format!("throughput samples: at most {MAX_THROUGHPUT_SAMPLES}")));
        }
        if let Some(j) = c.json_throughput_samples {
            positive("json throughput samples", j)?;
        }
        let trips = u64::from(c.instances) * u64::from(c.samples) * u64::from(c.iterations);
        if trips > 10_000_000 {
            return Err(bad(format!("{trips} round trips per run is too many (at most 10 million)")));
        }
    }
    Ok(())
}

fn interop(a: InteropArgs) -> Result<()> {
    use wirebench_dds::config::ConfigFile;
    use wirebench_dds::ddsperf::{self, Proc};
    use wirebench_dds::throughput::{self, ThroughputOpts};
    check_domain(a.domain)?;
    let size = sizes(&a.size)?[0];
    positive("count", a.count)?;
    if !ddsperf::available() {
        return Err(bad(format!("{} not found (apt-get install cyclonedds-tools)", ddsperf::program())));
    }
    let cfg = ConfigFile::create()?;
    let mut out = String::new();
    // ddsperf pub -> our reader.
    let publ = Proc::spawn(&cfg, a.domain, &["-D20".into(), "pub".into(), "1000Hz".into(), "size".into(), (size + 12).to_string()])?;
    let got = throughput::receive_any(a.domain, 500, Duration::from_secs(20))?;
    drop(publ);
    let ok1 = got.samples >= 500 && got.baggage_lengths == [size];
    out.push_str(&format!(
        "ddsperf pub -> wirebench reader: {} samples in {:.1} s, baggage {:?} bytes: {}\n",
        got.samples,
        got.secs,
        got.baggage_lengths,
        if ok1 { "ok" } else { "FAILED" }
    ));
    // Our writer -> ddsperf sub.
    let d2 = a.domain + 1;
    let sub = Proc::spawn(&cfg, d2, &["-D15".into(), "-n".into(), "4".into(), "sub".into()])?;
    let mut o = ThroughputOpts::new(d2, size, Marshal::Cdr, a.count);
    o.instances = 4;
    let report = throughput::publish(&o, Duration::from_millis(1500))?;
    let (_, text) = sub.finish(Duration::from_secs(20));
    let total = text.lines().filter_map(ddsperf::parse_sub_line).map(|w| w.total).max().unwrap_or(0);
    let ok2 = total == a.count;
    out.push_str(&format!(
        "wirebench writer -> ddsperf sub: wrote {}, ddsperf counted {total}: {}\n",
        report.handled,
        if ok2 { "ok" } else { "FAILED" }
    ));
    write_stdout(out.as_bytes())?;
    if ok1 && ok2 {
        Ok(())
    } else {
        Err(anyhow::anyhow!("interoperability with ddsperf failed"))
    }
}

/// A size in a study file: a number of bytes or a string such as "2k".
#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(untagged)]
pub enum SizeSpec {
    Bytes(usize),
    Text(String),
}

/// One group of sizes in a study file.
#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct CaseOpts {
    pub sizes: Vec<SizeSpec>,
    pub instances: u32,
    pub samples: u32,
    #[serde(default = "one")]
    pub iterations: u32,
    pub throughput_samples: u64,
    #[serde(default)]
    pub json_throughput_samples: Option<u64>,
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

/// The options of this part in a study file.
#[derive(serde::Deserialize, serde::Serialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct StudyOpts {
    /// Groups of sizes with their counts.
    #[serde(default)]
    pub cases: Vec<CaseOpts>,
    #[serde(default = "default_marshal")]
    pub marshal: Vec<String>,
    #[serde(default = "one")]
    pub rounds: u32,
    #[serde(default = "default_domain")]
    pub domain: u32,
    #[serde(default = "yes")]
    pub latency: bool,
    #[serde(default = "yes")]
    pub throughput: bool,
    #[serde(default = "yes")]
    pub marshal_bench: bool,
    #[serde(default = "yes")]
    pub ddsperf: bool,
    #[serde(default = "default_secs")]
    pub ddsperf_secs: u32,
    #[serde(default = "yes")]
    pub batch: bool,
    #[serde(default = "default_warmup")]
    pub warmup: u32,
}

fn plan_of(o: &StudyOpts) -> Result<Plan> {
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
            return Err(bad("[[dds.cases]]: sizes is empty"));
        }
        cases.push(Case {
            sizes: s,
            instances: c.instances,
            samples: c.samples,
            iterations: c.iterations,
            throughput_samples: c.throughput_samples,
            json_throughput_samples: c.json_throughput_samples,
        });
    }
    if cases.is_empty() {
        return Err(bad("[dds]: add at least one [[dds.cases]] with sizes, instances, samples, throughput_samples"));
    }
    let plan = Plan {
        cases,
        marshals: marshals(&o.marshal)?,
        rounds: o.rounds,
        domain_base: o.domain,
        latency: o.latency,
        throughput: o.throughput,
        marshal_bench: o.marshal_bench,
        ddsperf: o.ddsperf,
        ddsperf_secs: o.ddsperf_secs,
        batch: o.batch,
        warmup: o.warmup,
        count_allocs: true,
    };
    check_plan(&plan)?;
    Ok(plan)
}

/// Check this part of a study before anything runs: its plan, and that this build has DDS when
/// the part needs it (latency, throughput or ddsperf; the marshalling bench alone does not).
pub fn validate(opts: &StudyOpts) -> Result<()> {
    plan_of(opts)?;
    if opts.latency || opts.throughput || opts.ddsperf {
        need_dds().map_err(|e| bad(format!("[dds]: {e}")))?;
    }
    Ok(())
}

/// Run this part of a study; the value becomes the results section of the same name.
pub fn measure(opts: &StudyOpts) -> Result<serde_json::Value> {
    let plan = plan_of(opts)?;
    let value = wirebench_dds::study::run(&plan, &child_peer, &mut progress);
    Ok(value)
}
