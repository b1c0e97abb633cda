//! `compare OLD NEW`: the change of every speed case, with a bootstrap CI and a noise threshold
//! (computed by `wirebench_measure::compare`, rendered by `wirebench_report::compare`).

use anyhow::Result;
use wirebench_core::results::{Results, SpeedSection};

use crate::common::*;
use crate::CompareArgs;

pub fn compare(args: CompareArgs) -> Result<()> {
    let read = |p: &std::path::Path| -> Result<SpeedSection> {
        let r = Results::read(p).map_err(|e| bad(e.to_string()))?;
        r.speed.ok_or_else(|| {
            bad(format!("{}: no speed section (make one with `wirebench speed --out FILE`)", p.display()))
        })
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
    write_stdout(text.as_bytes())?;
    if matches!(args.output, crate::OutputArg::Csv) {
        // The CSV is the table alone; its summary goes beside it, to stderr.
        eprint!("{}", wirebench_report::compare::summary(&c));
    }
    match args.fail_on_regression {
        Some(pct) => gate(&c, pct, args.threshold),
        None => Ok(()),
    }
}

/// `--fail-on-regression PCT`: no verdict when the host moved, else fail on the cases whose
/// whole confidence interval lies above PCT.
fn gate(c: &wirebench_core::sections::compare::Comparison, pct: f64, threshold: f64) -> Result<()> {
    if let Some(h) = c.agreement.host_change.filter(|h| h.abs() * 100.0 > threshold) {
        return Err(anyhow::Error::new(CheckFailed(
            3,
            format!(
                "no verdict: the host reference itself changed by {:+.1} % between the runs (more than --threshold {threshold} %); rerun both on a quiet host",
                h * 100.0
            ),
        )));
    }
    let limit = pct / 100.0;
    // Cases either run marked short get no verdict: they are named, not counted as regressions.
    let refused: Vec<_> = c.cases.iter().filter(|k| k.verdict == wirebench_measure::compare::NOT_COMPARABLE).collect();
    if !refused.is_empty() {
        let list: Vec<String> = refused.iter().take(5).map(|k| format!("{}/{}/{}", k.payload, k.codec, k.op)).collect();
        eprintln!(
            "not comparable: {} case(s) ran short samples in either run (no verdict): {}{}",
            refused.len(),
            list.join(", "),
            if refused.len() > 5 { ", …" } else { "" }
        );
    }
    let mut worse: Vec<_> =
        c.cases.iter().filter(|k| k.verdict != wirebench_measure::compare::NOT_COMPARABLE && k.ci.0 > limit).collect();
    if worse.is_empty() {
        return Ok(());
    }
    worse.sort_by(|a, b| b.change.total_cmp(&a.change));
    let list: Vec<String> = worse
        .iter()
        .take(5)
        .map(|k| format!("{}/{}/{} {:+.1} %", k.payload, k.codec, k.op, k.change * 100.0))
        .collect();
    Err(anyhow::Error::new(CheckFailed(
        1,
        format!(
            "{} case(s) slower by more than {pct} % beyond noise: {}{}",
            worse.len(),
            list.join(", "),
            if worse.len() > 5 { ", …" } else { "" }
        ),
    )))
}
