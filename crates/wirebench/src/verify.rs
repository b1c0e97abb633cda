//! `wirebench verify RESULTS`: rerun the study a results file records (its definition, seed and
//! inputs, as `run` wrote them) and say, figure by figure, whether it reproduces.
//!
//! Deterministic figures must be equal: encoded sizes (raw, zstd, deflate) and round-trip
//! verdicts, instruction and allocation counts, the device lab's cycles, flash, RAM, stack and
//! heap, code sizes, the link models' bytes and airtime, and the energy model's figures (from
//! cycles and datasheet currents). Any that differs makes the exit code 1. Times are measured
//! anew and cannot be equal: a time reproduces when the new median lies within the recorded
//! 95 % interval of the median widened by the tolerance; times never change the exit code. The
//! sections measured over transports (MQTT, HTTP, TCP, DDS, fleets) are throughputs and
//! latencies of this host and this moment: they are rerun but not compared, and the report says
//! so.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Result;
use clap::Parser as _;
use serde_json::Value;
use wirebench_core::results::Results;
use wirebench_report::table::Table;

use crate::common::*;
use crate::parts::{StudyPart, REGISTRY};

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// A results file written by `run`.
    results: PathBuf,
    /// Keep the rerun's results set here (default: a temporary folder, removed afterwards).
    #[arg(long = "out-dir", value_name = "DIR")]
    out: Option<PathBuf>,
    /// A time reproduces when the new median is within the recorded 95 % interval of the median
    /// widened by this share on each side (0.25: from 0.8 × its low end to 1.25 × its high end).
    #[arg(long, default_value_t = 0.25)]
    time_tolerance: f64,
    /// table, md or json.
    #[arg(long, short = 'o', default_value = "table")]
    output: String,
}

/// `run`'s options for the rerun: into `out`, replacing what is there, without printing the
/// parts' tables.
#[derive(clap::Parser)]
struct Rerun {
    #[command(flatten)]
    run: crate::RunArgs,
}

pub fn run(args: VerifyArgs) -> Result<()> {
    verify_in(REGISTRY, args)
}

/// One figure of a section: where it is (section, row, field) and its value.
#[derive(Clone, Debug, PartialEq)]
struct Figure {
    section: &'static str,
    row: String,
    field: &'static str,
    value: Value,
}

/// A time: the recorded median and its 95 % interval, ns.
#[derive(Clone, Debug)]
struct Time {
    row: String,
    median: f64,
    ci: (f64, f64),
}

/// What a comparison found.
#[derive(Default, Debug)]
struct Verdict {
    /// Deterministic figures compared (in all, and per section in the order of [`EXACT`]), and
    /// those that differ: (figure, what the rerun gave).
    checked: usize,
    per_section: Vec<(&'static str, usize)>,
    differ: Vec<(Figure, Option<Value>)>,
    /// Times compared, and those outside their widened interval: (recorded, new median).
    times: usize,
    times_off: Vec<(Time, Option<f64>)>,
    /// Sections rerun but not compared (measured over transports), and sections the rerun lacks.
    not_compared: Vec<&'static str>,
}

pub fn verify_in(registry: &[&'static dyn StudyPart], args: VerifyArgs) -> Result<()> {
    if !(args.time_tolerance >= 0.0 && args.time_tolerance <= 10.0) {
        return Err(bad(format!("--time-tolerance {}: give a share from 0 to 10", args.time_tolerance)));
    }
    let output = match args.output.as_str() {
        "table" | "md" | "json" => args.output.clone(),
        o => return Err(bad(format!("-o {o}: verify prints table, md or json"))),
    };
    let old = Results::read(&args.results).map_err(|e| bad(e.to_string()))?;
    let definition = old.config.get("definition").filter(|d| d.is_object()).ok_or_else(|| {
        bad(format!(
            "{}: the file records no study definition (config.definition): only results of `wirebench run` can be rerun",
            args.results.display()
        ))
    })?;
    // The study as `run` recorded it, back to TOML: the parts it ran with their options (paths
    // already resolved when it ran; relative ones against the folder it ran from).
    let text =
        study_toml(definition).map_err(|e| bad(format!("{}: config.definition: {e}", args.results.display())))?;
    let where_ = PathBuf::from(format!("{}#config.definition", args.results.display()));
    let mut study = crate::study::parse_study(registry, &text, &where_)?;
    study.resolve_paths(&std::env::current_dir()?);
    let _temp;
    let out_dir = match &args.out {
        Some(d) => d.clone(),
        None => {
            let t = TempFolder(std::env::temp_dir().join(format!("wirebench-verify-{}", std::process::id())));
            let dir = t.0.join("rerun");
            _temp = t;
            dir
        }
    };
    let rerun = Rerun::try_parse_from([
        std::ffi::OsStr::new("verify"),
        args.results.as_os_str(),
        std::ffi::OsStr::new("--out-dir"),
        out_dir.as_os_str(),
        std::ffi::OsStr::new("--force"),
    ])
    .map_err(|e| anyhow::anyhow!("verify: the rerun's options: {e}"))?;
    eprintln!("verify: rerunning the study of {} into {}", args.results.display(), out_dir.display());
    let ran = crate::study::run_study(registry, rerun.run, study, where_.display().to_string(), false);
    let new_path = out_dir.join("results.json");
    let new = match Results::read(&new_path) {
        Ok(r) => r,
        Err(e) => {
            return Err(match ran {
                Err(run_error) => run_error.context("verify: the rerun failed before writing results"),
                Ok(()) => anyhow::anyhow!("verify: {}: {e}", new_path.display()),
            })
        }
    };
    if let Err(e) = &ran {
        eprintln!("verify: the rerun ended with an error (its finished parts are compared): {e:#}");
    }
    let v = compare(&old, &new, args.time_tolerance);
    print!("{}", render(&v, &args.results, &output, args.time_tolerance));
    if !v.differ.is_empty() {
        anyhow::bail!(
            "{} of {} deterministic figures did not reproduce (the first: {})",
            v.differ.len(),
            v.checked,
            describe(&v.differ[0])
        );
    }
    Ok(())
}

/// A temporary folder, removed when the verification ends (also on an error).
struct TempFolder(PathBuf);

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The recorded definition as a study file: every part with options, nulls left out (TOML has
/// none: an option left out takes its default, which is what a null recorded).
fn study_toml(definition: &Value) -> Result<String, String> {
    fn strip(v: &Value) -> Option<Value> {
        match v {
            Value::Null => None,
            Value::Object(m) => {
                Some(Value::Object(m.iter().filter_map(|(k, v)| Some((k.clone(), strip(v)?))).collect()))
            }
            Value::Array(a) => Some(Value::Array(a.iter().filter_map(strip).collect())),
            other => Some(other.clone()),
        }
    }
    let stripped = strip(definition).unwrap_or(Value::Null);
    let table: toml::Table = serde_json::from_value(stripped).map_err(|e| e.to_string())?;
    toml::to_string(&table).map_err(|e| e.to_string())
}

/// The rows of an array of objects, each named by the values of `keys` (joined by " / ").
fn rows<'a>(section: &'a Value, array: &str, keys: &[&str]) -> Vec<(String, &'a Value)> {
    let Some(items) = pointer(section, array).and_then(Value::as_array) else { return Vec::new() };
    let mut seen: HashMap<String, usize> = HashMap::new();
    items
        .iter()
        .map(|item| {
            let mut name =
                keys.iter().map(|k| item.get(*k).map(plain).unwrap_or_default()).collect::<Vec<_>>().join(" / ");
            // Rows with the same name (a payload measured twice) keep their order.
            let n = seen.entry(name.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                name.push_str(&format!(" #{n}"));
            }
            (name, item)
        })
        .collect()
}

fn pointer<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    if path.is_empty() {
        Some(v)
    } else {
        v.pointer(&format!("/{}", path.replace('.', "/")))
    }
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// What each section's deterministic figures are: (section, array of rows, the fields that name
/// a row, the fields that are figures). A field a row lacks (or has as null) is not a figure of
/// that row.
const EXACT: &[(&str, &str, &[&str], &[&str])] = &[
    (
        "size",
        "rows",
        &["payload", "codec", "path"],
        &["bytes", "json_bytes", "zstd_bytes", "deflate_bytes", "fidelity"],
    ),
    (
        "size",
        "aggregates",
        &["codec"],
        &[
            "records",
            "encoded",
            "bytes_total",
            "zstd_bytes_total",
            "deflate_bytes_total",
            "exact",
            "lossy",
            "unsupported",
            "failed",
            "bytes_p50",
            "bytes_p90",
            "bytes_p99",
            "bytes_max",
        ],
    ),
    (
        "speed",
        "cases",
        &["payload", "codec", "op", "path", "buffer"],
        &["bytes", "instructions_per_op", "allocs_per_op", "alloc_bytes_per_op"],
    ),
    (
        "device",
        "lab.rows",
        &["target", "lib", "payload"],
        &[
            "status",
            "bytes",
            "encode_cycles",
            "decode_cycles",
            "encode_instructions",
            "decode_instructions",
            "flash",
            "ram",
            "stack_encode",
            "stack_decode",
            "heap_encode",
            "heap_decode",
        ],
    ),
    ("device", "code_size", &["cpu", "codec", "variant"], &["text", "data", "bss"]),
    ("device", "instructions", &["payload"], &["encode_instr", "decode_instr"]),
    ("device", "lab.xtensa_objects", &["lib"], &["text", "data", "bss"]),
    (
        "energy",
        "rows",
        &["lib", "payload", "target", "radio"],
        &["bytes", "encode_cycles", "cpu_uj", "radio_uj", "sleep_uj", "total_uj", "msgs_per_day", "battery_days"],
    ),
    (
        "link",
        "rows",
        &["format", "radio", "protocol", "transport"],
        &["messages", "app_bytes", "payload_bytes", "bytes_on_air", "frames", "airtime_ms", "msgs_per_day", "fits"],
    ),
];

/// The sections whose figures are rates and latencies of the host at the time: rerun, not
/// compared.
const MEASURED_OVER_TRANSPORTS: &[&str] = &["mqtt", "http", "tcp", "dds", "fleet", "micropython"];

fn figures(r: &Value) -> Vec<Figure> {
    let mut out = Vec::new();
    for (section, array, keys, fields) in EXACT {
        let Some(s) = r.get(*section) else { continue };
        for (row, item) in rows(s, array, keys) {
            for field in *fields {
                match item.get(*field) {
                    None | Some(Value::Null) => {}
                    Some(v) => out.push(Figure { section, row: format!("{array}: {row}"), field, value: v.clone() }),
                }
            }
        }
    }
    out
}

fn times(r: &Value) -> Vec<Time> {
    let Some(s) = r.get("speed") else { return Vec::new() };
    rows(s, "cases", &["payload", "codec", "op", "path", "buffer"])
        .into_iter()
        .filter_map(|(row, item)| {
            let ns = item.get("ns_per_op")?;
            let median = ns.get("median")?.as_f64()?;
            let ci = ns.get("median_ci95")?.as_array()?;
            Some(Time { row, median, ci: (ci.first()?.as_f64()?, ci.get(1)?.as_f64()?) })
        })
        .collect()
}

fn compare(old: &Results, new: &Results, tolerance: f64) -> Verdict {
    let old_v = serde_json::to_value(old).expect("results serialize");
    let new_v = serde_json::to_value(new).expect("results serialize");
    let mut v = Verdict::default();
    // The rerun's figures by where they are: one look-up per recorded figure.
    let fresh: HashMap<(&str, String, &str), Value> =
        figures(&new_v).into_iter().map(|g| ((g.section, g.row, g.field), g.value)).collect();
    for f in figures(&old_v) {
        v.checked += 1;
        match v.per_section.iter_mut().find(|(s, _)| *s == f.section) {
            Some((_, n)) => *n += 1,
            None => v.per_section.push((f.section, 1)),
        }
        match fresh.get(&(f.section, f.row.clone(), f.field)) {
            Some(g) if same(g, &f.value) => {}
            Some(g) => v.differ.push((f, Some(g.clone()))),
            None => v.differ.push((f, None)),
        }
    }
    let fresh_times: HashMap<String, f64> = times(&new_v).into_iter().map(|t| (t.row, t.median)).collect();
    for t in times(&old_v) {
        v.times += 1;
        let again = fresh_times.get(&t.row).copied();
        let within = again.is_some_and(|m| m >= t.ci.0 / (1.0 + tolerance) && m <= t.ci.1 * (1.0 + tolerance));
        if !within {
            v.times_off.push((t, again));
        }
    }
    v.not_compared = MEASURED_OVER_TRANSPORTS.iter().copied().filter(|s| old_v.get(*s).is_some()).collect();
    v
}

/// Two figures are the same: equal JSON, or numbers equal to 12 significant digits (a figure
/// computed from the same inputs in another order of summation).
fn same(a: &Value, b: &Value) -> bool {
    if a == b {
        return true;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y || ((x - y).abs() <= 1e-12 * x.abs().max(y.abs())),
        _ => false,
    }
}

fn short(v: &Value) -> String {
    let s = plain(v);
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

fn describe((f, again): &(Figure, Option<Value>)) -> String {
    format!(
        "{} {} {}: recorded {}, rerun {}",
        f.section,
        f.row,
        f.field,
        short(&f.value),
        again.as_ref().map(short).unwrap_or_else(|| "(absent)".into())
    )
}

fn render(v: &Verdict, path: &std::path::Path, output: &str, tolerance: f64) -> String {
    let reproduced = v.checked - v.differ.len();
    let summary = format!("{reproduced} of {} figures reproduced", v.checked);
    let times_line = format!(
        "{} of {} times within their recorded 95 % interval (±{:.0} %); times do not decide the verdict",
        v.times - v.times_off.len(),
        v.times,
        tolerance * 100.0
    );
    if output == "json" {
        let doc = serde_json::json!({
            "results": path.display().to_string(),
            "figures": v.checked,
            "reproduced": reproduced,
            "differ": v.differ.iter().map(|(f, again)| serde_json::json!({
                "section": f.section, "row": f.row, "field": f.field, "recorded": f.value, "rerun": again,
            })).collect::<Vec<_>>(),
            "times": v.times,
            "times_within": v.times - v.times_off.len(),
            "times_outside": v.times_off.iter().map(|(t, m)| serde_json::json!({
                "case": t.row, "recorded_median_ns": t.median, "recorded_ci95_ns": [t.ci.0, t.ci.1], "rerun_median_ns": m,
            })).collect::<Vec<_>>(),
            "time_tolerance": tolerance,
            "not_compared": v.not_compared,
        });
        return serde_json::to_string_pretty(&doc).expect("json") + "\n";
    }
    let mut t = Table::new("Figures of the recorded run, rerun", &["section", "figures", "reproduced", "differ"])
        .numeric_from(1);
    for (s, n) in &v.per_section {
        let d = v.differ.iter().filter(|(f, _)| f.section == *s).count();
        t.push(vec![s.to_string(), n.to_string(), (n - d).to_string(), d.to_string()]);
    }
    let mut blocks = vec![
        wirebench_report::blocks::Block::Heading(format!("Verify: {}", path.display())),
        wirebench_report::blocks::Block::Table(t),
    ];
    if !v.differ.is_empty() {
        let mut items: Vec<String> = v.differ.iter().take(20).map(describe).collect();
        if v.differ.len() > 20 {
            items.push(format!("… and {} more", v.differ.len() - 20));
        }
        blocks.push(wirebench_report::blocks::List::new("Figures that differ", items).warning(true).into());
    }
    if !v.times_off.is_empty() {
        let mut items: Vec<String> = v
            .times_off
            .iter()
            .take(10)
            .map(|(t, m)| {
                format!(
                    "{}: recorded {:.1} ns [{:.1}, {:.1}], rerun {}",
                    t.row,
                    t.median,
                    t.ci.0,
                    t.ci.1,
                    m.map_or("(absent)".into(), |m| format!("{m:.1} ns"))
                )
            })
            .collect();
        if v.times_off.len() > 10 {
            items.push(format!("… and {} more", v.times_off.len() - 10));
        }
        blocks.push(wirebench_report::blocks::List::new("Times outside their interval", items).into());
    }
    if !v.not_compared.is_empty() {
        blocks.push(wirebench_report::blocks::Block::Note(format!(
            "Rerun, not compared (rates and latencies of this host at this moment): {}.",
            v.not_compared.join(", ")
        )));
    }
    blocks.push(wirebench_report::blocks::Block::KeyLine(format!("{summary}; {times_line}.")));
    let kind = if output == "md" { wirebench_report::Output::Markdown } else { wirebench_report::Output::Table };
    wirebench_report::blocks::render(&blocks, kind)
}
