//! `wirebench energy` and the [energy] study part: energy per message and battery life from
//! the device lab's measured cycles, the link models' airtime and the datasheet figures of the
//! energy data file. The model and the part are [`wirebench_net::energy`]; the tables are
//! [`wirebench_report::energy`].

use std::path::PathBuf;

use anyhow::Result;
use serde_json::json;
use wirebench_core::part::Part;
use wirebench_core::results::Results;
use wirebench_core::sections::energy::EnergySection;
use wirebench_net::energy::EnergyPart;

pub use wirebench_net::energy::EnergyOpts as StudyOpts;

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

/// Check the options before anything runs (also the `[energy]` part of a study).
pub fn validate(opts: &StudyOpts) -> Result<()> {
    EnergyPart::validate(opts).map_err(part_error)
}

/// Compute the `energy` results section (runs the device lab unless --device-results).
pub fn measure(opts: &StudyOpts) -> Result<EnergySection> {
    EnergyPart::run(opts).map_err(part_error)
}

pub fn run(args: Args) -> Result<()> {
    validate(&args.opts)?;
    if let Some(out) = &args.out {
        check_writable(out)?;
    }
    let section = measure(&args.opts)?;
    let mut results = Results::new(provenance(0), json!({"measurement": "energy", "options": &args.opts}));
    results.energy = Some(section);
    if let Some(out) = &args.out {
        write_results(&results, out)?;
    }
    let text = match args.output {
        OutputArg::Json => serde_json::to_string_pretty(&results).expect("results serialize") + "\n",
        o => wirebench_report::energy::render(&results, o.into()),
    };
    write_stdout(text.as_bytes())
}
