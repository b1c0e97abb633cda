//! `device`: the device lab (each library on simulated AVR and Cortex-M targets), or with
//! `--codec-sizes` the code size and instruction counts of our own C codecs. The measurement
//! is `wirebench_device`, the tables `wirebench_report::device`.

use anyhow::Result;
use wirebench_core::part::Part;
use wirebench_core::results::Results;
use wirebench_core::sections::device::DeviceSection;
use wirebench_device::part::DevicePart;

use crate::common::*;
use crate::{DeviceArgs, OutputArg};

pub fn device(args: DeviceArgs) -> Result<()> {
    let _out_lock = claim_output(args.out.as_deref())?;
    DevicePart::validate(&args.opts).map_err(part_error)?;
    let config = serde_json::json!({"measurement": "device", "options": &args.opts});
    let results = Results::new(provenance(0), config);
    // With --out, a signal that ends the lab writes the firmwares that finished, the part marked
    // as not finished (as `run` does for a study's parts); the lab's own hook has ended its
    // compilers and simulators and removed its build folder by then.
    let so_far = std::sync::Arc::new(std::sync::Mutex::new(None::<DeviceSection>));
    let _on_signal = args.out.clone().map(|out| {
        let (so_far, results) = (so_far.clone(), results.clone());
        wirebench_core::signals::on_signal(move |sig| {
            let mut r = results.clone();
            r.device = so_far.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let n = r.device.as_ref().and_then(|d| d.lab.as_ref()).map_or(0, |l| l.rows.len());
            let why = format!("not finished: the device lab was ended by {}", wirebench_core::signals::name(sig));
            let r = crate::study::with_rest_marked(&r, &["device".into()], &why);
            match write_results(&r, &out) {
                Ok(()) => eprintln!(
                    "wirebench: {}: the {n} finished device-lab row(s) in {}",
                    wirebench_core::signals::name(sig),
                    out.display()
                ),
                Err(e) => eprintln!("wirebench: {e:#}"),
            }
        })
    });
    let section = DevicePart::run_with(&args.opts, &|s| {
        *so_far.lock().unwrap_or_else(|e| e.into_inner()) = Some(s.clone());
    })
    .map_err(part_error)?;
    let mut results = results;
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
