//! `device`: what our C codecs cost on a microcontroller (the measurement is
//! `wirebench_measure::device`, the tables `wirebench_report::device`).

use anyhow::Result;
use wirebench_core::results::Results;
use wirebench_report::Output;

use crate::common::*;
use crate::DeviceArgs;

pub fn device(args: DeviceArgs) -> Result<()> {
    if let Some(out) = &args.out {
        check_writable(out)?;
    }
    let section = wirebench_measure::device::measure(args.c_dir.as_deref()).map_err(part_error)?;
    let config = serde_json::json!({"measurement": "device", "c_dir": args.c_dir});
    let mut results = Results::new(provenance(0), config);
    results.device = Some(section);
    if let Some(p) = &args.out {
        results.write_atomic(p).map_err(|e| bad(e.to_string()))?;
    }
    write_stdout(wirebench_report::device::render(&results, Output::Table).as_bytes())
}
