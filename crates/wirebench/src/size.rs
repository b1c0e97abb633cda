//! `size`: encoded size per payload and codec (the measurement is `wirebench_measure::study::size`).

use anyhow::Result;
use wirebench_core::results::{Results, SizeSection};
pub use wirebench_measure::study::size::SizeOpts;

use crate::common::*;
use crate::SizeArgs;

pub fn size(args: SizeArgs) -> Result<()> {
    wirebench_core::value::set_max_depth(args.max_depth as usize).map_err(bad)?;
    let _out_lock = claim_output(args.out.as_deref())?;
    let (section, config) = measure_with_config(&args.opts)?;
    let mut results = Results::new(provenance(0), config);
    results.size = Some(section);
    if let Some(out) = &args.out {
        write_results(&results, out)?;
    }
    let text = match args.output {
        crate::OutputArg::Json => serde_json::to_string_pretty(&results).expect("results serialize") + "\n",
        o => wirebench_report::size::render(&results, o.into()),
    };
    write_stdout(text.as_bytes())
}

/// The section and the configuration it ran with.
pub fn measure_with_config(opts: &SizeOpts) -> Result<(SizeSection, serde_json::Value)> {
    wirebench_measure::study::size::measure(opts).map_err(part_error)
}
