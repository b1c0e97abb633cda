//! `wirebench fleet`: many simulated devices over MQTT, per format and fleet size (the `[fleet]`
//! part of a study), and `wirebench merge`: the shard files of one fleet combined.
//!
//! The options, their checks and the runs are the `[fleet]` part, `wirebench_mqtt::fleet::part`
//! (the engine is `wirebench_mqtt::fleet`; the payloads are the zoo codecs' encodings of a
//! built-in corpus or the user's samples, `wirebench_measure::workload`); this module parses
//! the arguments, writes the results (also when a signal ends the fleet) and renders.

use std::path::PathBuf;

use anyhow::Result;
use wirebench_core::part::Part;
use wirebench_core::results::Results;
use wirebench_core::sections::fleet::{self, FleetSection};
use wirebench_mqtt::fleet::part::{measure, plan, FleetOpts, FleetPart};

use crate::common::*;
use crate::OutputArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub opts: FleetOpts,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    pub output: OutputArg,
    /// Also write the results file (JSON) here, atomically (a shard's file for `wirebench merge`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Check the options (formats encode the payloads, the broker URL, the shard) and exit
    /// without connecting anywhere.
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: Args) -> Result<()> {
    let _out_lock = claim_output(args.out.as_deref().filter(|_| !args.check))?;
    FleetPart::validate(&args.opts).map_err(part_error)?;
    if args.check {
        let p = plan(&args.opts).map_err(part_error)?;
        let c = &p.configs[0];
        let r = c.device_range();
        let line = format!(
            "fleet options valid: run {}, shard {}/{} (devices {}..{} of {}), formats {}\n",
            p.run_id,
            p.shard.0,
            p.shard.1,
            r.start,
            r.end,
            c.devices,
            p.formats.join(",")
        );
        return write_stdout(line.as_bytes());
    }
    let results =
        Results::new(provenance(args.opts.seed), serde_json::json!({"measurement": "fleet", "options": &args.opts}));
    // With --out, a signal that ends the fleet writes the runs that finished, the fleet marked
    // as not finished (as `run` does for a study's parts).
    let so_far = std::sync::Arc::new(std::sync::Mutex::new(None::<FleetSection>));
    let _on_signal = args.out.clone().map(|out| {
        let (so_far, results) = (so_far.clone(), results.clone());
        wirebench_core::signals::on_signal(move |sig| {
            let mut r = results.clone();
            r.fleet = so_far.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let n = r.fleet.as_ref().map_or(0, |f| f.runs.len());
            let why = format!("not finished: the fleet was ended by {}", wirebench_core::signals::name(sig));
            let r = crate::study::with_rest_marked(&r, &["fleet".into()], &why);
            match write_results(&r, &out) {
                Ok(()) => eprintln!(
                    "wirebench: {}: the {n} finished fleet run(s) in {}",
                    wirebench_core::signals::name(sig),
                    out.display()
                ),
                Err(e) => eprintln!("wirebench: {e:#}"),
            }
        })
    });
    let section = measure(&args.opts, &|s| *so_far.lock().unwrap_or_else(|e| e.into_inner()) = Some(s.clone()))
        .map_err(part_error)?;
    let mut results = results;
    results.fleet = Some(section);
    emit(&results, args.output, args.out.as_ref())?;
    // A run with errors (a broker that died, devices that could not connect) is the
    // environment's failure: its figures are written and printed above, and the exit is 1.
    match results.fleet.as_ref().and_then(|f| f.first_failure()) {
        None => Ok(()),
        Some((n, first)) => anyhow::bail!("fleet: {n} run(s) with errors (their figures kept); the first: {first}"),
    }
}

fn emit(results: &Results, output: OutputArg, out: Option<&PathBuf>) -> Result<()> {
    if let Some(out) = out {
        write_results(results, out)?;
    }
    let text = match output {
        OutputArg::Json => serde_json::to_string_pretty(results).expect("results serialize") + "\n",
        o => wirebench_report::fleet::render(results, o.into()),
    };
    write_stdout(text.as_bytes())
}

#[derive(clap::Args)]
pub struct MergeArgs {
    /// The shard files of one fleet (`wirebench fleet --shard I/N --out FILE`), every shard once.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    pub output: OutputArg,
    /// Write the merged results file here, atomically.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn merge(args: MergeArgs) -> Result<()> {
    let _out_lock = claim_output(args.out.as_deref())?;
    let mut files = Vec::new();
    for f in &args.files {
        let r = Results::read(f).map_err(|e| bad(e.to_string()))?;
        if r.fleet.is_none() {
            return Err(bad(format!("{}: no fleet section (not a file of `wirebench fleet`)", f.display())));
        }
        files.push((f.display().to_string(), r));
    }
    let parts: Vec<(&str, &FleetSection)> =
        files.iter().map(|(n, r)| (n.as_str(), r.fleet.as_ref().expect("checked above"))).collect();
    let merged = fleet::merge(&parts).map_err(|e| bad(e.to_string()))?;
    let first = &files[0].1;
    let mut results = Results::new(
        provenance(first.provenance.seed),
        serde_json::json!({
            "measurement": "fleet-merge",
            "shards": args.files,
            "options": first.config.get("options"),
        }),
    );
    results.fleet = Some(merged);
    emit(&results, args.output, args.out.as_ref())
}
