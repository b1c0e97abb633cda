//! `device`: the device lab (each library on simulated AVR and Cortex-M targets), or with
//! `--codec-sizes` the code size and instruction counts of our own C codecs. The measurement
//! is `wirebench_device`, the tables `wirebench_report::device`.

use anyhow::Result;
use wirebench_core::part::Part;
use wirebench_core::results::Results;
use wirebench_device::part::DevicePart;

use crate::common::*;
use crate::{DeviceArgs, OutputArg};

pub fn device(args: DeviceArgs) -> Result<()> {
    if let Some(out) = &args.out {
        check_writable(out)?;
    }
    DevicePart::validate(&args.opts).map_err(part_error)?;
    let section = DevicePart::run(&args.opts).map_err(part_error)?;
    let config = serde_json::json!({"measurement": "device", "options": &args.opts});
    let mut results = Results::new(provenance(0), config);
    results.device = Some(section);
    if let Some(p) = &args.out {
        write_results(&results, p)?;
    }
    let text = match args.output {
        OutputArg::Json => serde_json::to_string_pretty(&results).expect("results serialize") + "\n",
        o => wirebench_report::device::render(&results, o.into()),
    };
    write_stdout(text.as_bytes())
}
