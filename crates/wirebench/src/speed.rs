//! `speed`: encode/decode time per operation (the measurement is
//! `wirebench_measure::study::speed`).

use anyhow::Result;
use wirebench_core::results::{Results, SpeedSection};
pub use wirebench_measure::study::speed::SpeedOpts;

use crate::common::*;
use crate::SpeedArgs;

pub fn speed(args: SpeedArgs) -> Result<()> {
    if args.callgrind_child {
        return wirebench_measure::study::speed::callgrind_child(&args.opts).map_err(part_error);
    }
    let _out_lock = claim_output(args.out.as_deref())?;
    let (section, config) = measure_with_config(&args.opts)?;
    let mut results = Results::new(provenance(args.opts.seed), config);
    results.speed = Some(section);
    if let Some(out) = &args.out {
        write_results(&results, out)?;
    }
    let text = match args.output {
        crate::OutputArg::Json => serde_json::to_string_pretty(&results).expect("results serialize") + "\n",
        o => wirebench_report::speed::render(&results, o.into()),
    };
    write_stdout(text.as_bytes())
}

/// The section and the configuration it ran with.
pub fn measure_with_config(opts: &SpeedOpts) -> Result<(SpeedSection, serde_json::Value)> {
    wirebench_measure::study::speed::measure(opts).map_err(part_error)
}
