//! DDS transport (seed 004): `wirebench dds latency|throughput|marshal|interop` and the [dds]
//! study part. The work is in the `wirebench-dds` crate (`study`: options, plan, runs, the typed
//! section; `interop`); this module parses options, answers as the peer of each run (`wirebench
//! dds peer`, hidden: the crate starts this binary so) and renders.

use std::path::PathBuf;

use anyhow::Result;
use wirebench_core::results::Results;
use wirebench_dds::study::{self, Case, Plan};

use crate::common::{bad, claim_output, part_error, provenance, write_results, write_stdout};
use crate::OutputArg;

/// The options of this part in a study file.

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
    // `wirebench_dds::study::PEER_ARGS` names this subcommand: the crate starts this binary so.
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
    /// What ddsperf's samples carry: wire (the bytes our CDR sample puts on the wire: the same
    /// traffic) or payload (the payload alone: CDR's own bytes count against ours).
    #[arg(long, default_value = "wire", value_parser = ["wire", "payload"])]
    ddsperf_size: String,
    /// Latency: run ours and ddsperf (every process and thread of a run) on this one CPU, so
    /// that both pay the same hand-off between the ends (default: wherever the scheduler puts them).
    #[arg(long)]
    cpu: Option<u32>,
    /// Throughput: a run shorter than this many seconds is run again with more samples (up to 3
    /// runs; 0: the run keeps --count).
    #[arg(long, default_value_t = 0.0)]
    min_secs: f64,
    /// Latency: ours ping-pongs at least this many seconds after its warm-up, besides its round
    /// trips (default: with --ddsperf, --ddsperf-secs, so that ours and ddsperf span the same
    /// time; without, 0: the round trips alone).
    #[arg(long)]
    latency_secs: Option<f64>,
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

fn measure_cmd(a: RunArgs, kind: Kind) -> Result<()> {
    let list: Vec<String> = a.marshal.split(',').map(str::to_string).collect();
    let plan = Plan {
        cases: vec![Case {
            sizes: study::sizes(&a.size).map_err(part_error)?,
            instances: a.instances,
            samples: a.samples,
            iterations: a.iterations,
            throughput_samples: a.count,
            json_throughput_samples: None,
            rounds: None,
        }],
        marshals: study::marshals(&list).map_err(part_error)?,
        rounds: a.rounds,
        domain_base: a.domain,
        latency: kind == Kind::Latency,
        latency_cpu: a.cpu,
        throughput: kind == Kind::Throughput,
        marshal_bench: kind == Kind::Marshal,
        ddsperf: a.ddsperf,
        ddsperf_secs: a.ddsperf_secs,
        ddsperf_size: Some(study::ddsperf_size(&a.ddsperf_size).map_err(part_error)?),
        min_throughput_secs: (a.min_secs > 0.0).then_some(a.min_secs),
        min_latency_secs: study::min_latency_secs(a.latency_secs, a.ddsperf, a.ddsperf_secs),
        batch: !a.no_batch,
        warmup: a.warmup,
        count_allocs: true,
        check_latency_within: None,
        check_throughput_at_least: None,
    };
    study::check_plan(&plan).map_err(part_error)?;
    let _out_lock = claim_output(a.out.as_deref())?;
    let section = study::measure(&plan);
    let config = serde_json::json!({ "command": "dds", "plan": plan });
    let mut results = Results::new(provenance(0), config);
    results.dds = Some(section);
    if let Some(out) = &a.out {
        write_results(&results, out)?;
    }
    let output: wirebench_report::Output = a.output.into();
    let text = if output == wirebench_report::Output::Json {
        serde_json::to_string_pretty(&results)? + "\n"
    } else {
        wirebench_report::dds::render(&results, output)
    };
    write_stdout(text.as_bytes())?;
    match results.dds.as_ref().and_then(|d| d.first_failure()) {
        None => Ok(()),
        Some((n, first)) => anyhow::bail!("{n} failure(s) (in the results); the first: {first}"),
    }
}

fn interop(a: InteropArgs) -> Result<()> {
    let r = wirebench_dds::interop::run(a.domain, &a.size, a.count).map_err(part_error)?;
    write_stdout(r.text().as_bytes())?;
    if r.passed() {
        Ok(())
    } else {
        Err(anyhow::anyhow!("interoperability with ddsperf failed"))
    }
}
