//! `wirebench micropython`: the Python device codecs under MicroPython (bytecode per module,
//! heap per message of seed 000), the `[micropython]` part run on its own.

use std::path::PathBuf;

use anyhow::Result;
use wirebench_core::part::Part;
use wirebench_core::results::Results;
use wirebench_measure::micropython::{MicroPythonOpts, MicroPythonPart};

use crate::common::*;
use crate::OutputArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub opts: MicroPythonOpts,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    pub output: OutputArg,
    /// Also write the results file (JSON) here, atomically.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let _out_lock = claim_output(args.out.as_deref())?;
    MicroPythonPart::validate(&args.opts).map_err(part_error)?;
    let section = MicroPythonPart::run(&args.opts).map_err(part_error)?;
    let mut results =
        Results::new(provenance(0), serde_json::json!({"measurement": "micropython", "options": &args.opts}));
    results.micropython = Some(section);
    if let Some(out) = &args.out {
        write_results(&results, out)?;
    }
    let text = match args.output {
        OutputArg::Json => serde_json::to_string_pretty(&results).expect("results serialize") + "\n",
        o => wirebench_report::micropython::render(&results, o.into()),
    };
    write_stdout(text.as_bytes())
}
