//! `compare OLD NEW`: the change of every speed case, with a bootstrap CI and a noise threshold
//! (computed by `wirebench_measure::compare`, rendered by `wirebench_report::compare`).

use anyhow::Result;
use wirebench_core::results::{Results, SpeedSection};

use crate::common::*;
use crate::CompareArgs;

pub fn compare(args: CompareArgs) -> Result<()> {
    let read = |p: &std::path::Path| -> Result<SpeedSection> {
        let r = Results::read(p).map_err(|e| bad(e.to_string()))?;
        r.speed.ok_or_else(|| bad(format!("{}: no speed section (make one with `wirebench speed --out FILE`)", p.display())))
    };
    let (old, new) = (read(&args.old)?, read(&args.new)?);
    let c = wirebench_measure::compare::compare(&old, &new, args.threshold);
    if c.cases.is_empty() {
        return Err(bad("the two results files have no case in common"));
    }
    let text = wirebench_report::compare::render(
        &c,
        &args.old.display().to_string(),
        &args.new.display().to_string(),
        args.output.into(),
    );
    write_stdout(text.as_bytes())
}
