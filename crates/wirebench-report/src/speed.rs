//! The speed report: time per operation by payload and codec, per-codec geometric means,
//! the seed 001 (PSON paper) table beside ours, and the warnings.

use wirebench_core::published::PSON_PAPER_ESP32;
use wirebench_core::results::{Results, SpeedCase, SpeedSection};

use crate::blocks::{Block, List};
use crate::csv::CsvTable;
use crate::table::Table;
use crate::Output;

/// Human time: ns below 10 µs, then µs, then ms.
pub fn ns(v: f64) -> String {
    if !v.is_finite() {
        "-".into()
    } else if v < 10_000.0 {
        format!("{v:.0}")
    } else if v < 10_000_000.0 {
        format!("{:.1}k", v / 1000.0)
    } else {
        format!("{:.1}M", v / 1e6)
    }
}

fn payloads(s: &SpeedSection) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in &s.cases {
        if !out.contains(&c.payload.as_str()) {
            out.push(&c.payload);
        }
    }
    out
}

use wirebench_core::results::base_path;

/// Whether the section measured codecs on both paths (typed and dynamic): labels then name the
/// path, so that no chart or table sets a typed time beside a dynamic one unmarked.
pub(crate) fn both_paths(s: &SpeedSection) -> bool {
    s.cases.iter().any(|c| base_path(&c.path) == "typed") && s.cases.iter().any(|c| base_path(&c.path) != "typed")
}

/// The label of a codec on a path: the codec id, with `typed` or `dyn` when the section has
/// both paths.
pub(crate) fn label_of(codec: &str, path: &str, both: bool) -> String {
    match (both, base_path(path)) {
        (false, _) => codec.to_string(),
        (true, "typed") => format!("{codec} typed"),
        (true, _) => format!("{codec} dyn"),
    }
}

/// The labels of the section's (codec, path) series, typed first, in the order of the cases.
pub(crate) fn labels(s: &SpeedSection) -> Vec<String> {
    let both = both_paths(s);
    let mut out: Vec<String> = Vec::new();
    for typed in [true, false] {
        for c in s.cases.iter().filter(|c| (base_path(&c.path) == "typed") == typed) {
            let l = label_of(&c.codec, &c.path, both);
            if !out.contains(&l) {
                out.push(l);
            }
        }
    }
    out
}

/// The case with this label, payload and op.
pub(crate) fn find_labelled<'a>(s: &'a SpeedSection, payload: &str, label: &str, op: &str) -> Option<&'a SpeedCase> {
    let both = both_paths(s);
    s.cases.iter().find(|c| c.payload == payload && c.op == op && label_of(&c.codec, &c.path, both) == label)
}

/// The codecs measured on `path` (every path: `None`), in the order of the cases.
fn codecs_on(s: &SpeedSection, path: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in s.cases.iter().filter(|c| path.is_none_or(|p| base_path(&c.path) == p)) {
        if !out.contains(&c.codec) {
            out.push(c.codec.clone());
        }
    }
    out
}

/// The mark beside a median whose samples ran short (iterations × median below half the
/// target even after re-calibrating): the figure is unreliable.
pub const SHORT_MARK: &str = "!";

/// A case's median for a table, marked when it ran short.
fn cell(c: &SpeedCase) -> String {
    if c.short {
        format!("{}{SHORT_MARK}", ns(c.ns_per_op.median))
    } else {
        ns(c.ns_per_op.median)
    }
}

/// Median ns per operation, payload × codec, for one operation: one table per path.
pub fn matrices(s: &SpeedSection, op: &str) -> Vec<Table> {
    let paths: Vec<Option<&str>> = if both_paths(s) { vec![Some("typed"), Some("dynamic")] } else { vec![None] };
    paths
        .into_iter()
        .map(|path| {
            let cs = codecs_on(s, path);
            let mut headers = vec!["payload"];
            headers.extend(cs.iter().map(String::as_str));
            let title = match path {
                None => format!("{op}: median ns per operation"),
                Some("typed") => format!("{op}: median ns per operation, typed path (generated or derived types)"),
                Some(_) => format!("{op}: median ns per operation, dynamic path (the generic value tree)"),
            };
            let mut t = Table::new(&title, &headers).numeric_from(1);
            for p in payloads(s) {
                let mut row = vec![p.to_string()];
                for c in &cs {
                    let case = s.cases.iter().find(|x| {
                        x.payload == p
                            && &x.codec == c
                            && x.op == op
                            && path.is_none_or(|want| base_path(&x.path) == want)
                    });
                    row.push(case.map(cell).unwrap_or_default());
                }
                t.push(row);
            }
            t
        })
        .collect()
}

/// Geometric means per codec over payloads (the section's `per_codec`).
pub fn summary(s: &SpeedSection) -> Table {
    let instr = s.instructions;
    let mut headers = vec!["codec", "path", "enc ns", "dec ns", "enc x base", "dec x base", "enc allocs", "dec allocs"];
    if instr {
        headers.extend(["enc instr", "dec instr"]);
    }
    let mut t = Table::new(&format!("Per codec: geometric mean over payloads (baseline {})", s.baseline), &headers)
        .numeric_from(2);
    let fmt_ratio = |v: Option<f64>| v.map(|r| format!("{r:.2}")).unwrap_or_else(|| "-".into());
    let fmt_allocs = |v: Option<f64>| v.map(|a| format!("{a:.1}")).unwrap_or_else(|| "-".into());
    for c in &s.per_codec {
        let mut row = vec![
            c.codec.clone(),
            c.path.clone(),
            c.encode.geomean_ns.map(ns).unwrap_or_default(),
            c.decode.geomean_ns.map(ns).unwrap_or_default(),
            fmt_ratio(c.encode.geomean_ratio),
            fmt_ratio(c.decode.geomean_ratio),
            fmt_allocs(c.encode.mean_allocs),
            fmt_allocs(c.decode.mean_allocs),
        ];
        if instr {
            row.push(c.encode.geomean_instructions.map(|v| format!("{v:.0}")).unwrap_or_default());
            row.push(c.decode.geomean_instructions.map(|v| format!("{v:.0}")).unwrap_or_default());
        }
        t.push(row);
    }
    t
}

/// Seed 003's Protobuf ÷ JSON time per message beside ours, on each path (the EV message).
pub fn seed003(s: &SpeedSection) -> Option<Table> {
    use wirebench_core::published::seed002_003::SEED003_FINAL;
    if s.corpus != "ev-telemetry" {
        return None;
    }
    let payload = payloads(s).first()?.to_string();
    let mut t = Table::new(
        "Seed 003 (EV message): Protobuf time ÷ JSON time, ours on each path beside the seed's",
        &["measured", "encode", "decode"],
    )
    .numeric_from(1);
    let ratio = |path: &str, op: &str| -> Option<f64> {
        let of = |c: &str| {
            s.cases.iter().find(|x| x.payload == payload && x.codec == c && x.op == op && base_path(&x.path) == path)
        };
        of("protobuf").zip(of("json")).map(|(p, j)| p.ns_per_op.median / j.ns_per_op.median)
    };
    let f = |v: Option<f64>| v.map(|r| format!("{r:.2}")).unwrap_or_else(|| "-".into());
    for (path, what) in
        [("typed", "ours, typed path (prost / serde derive)"), ("dynamic", "ours, dynamic path (value tree)")]
    {
        if ratio(path, "encode").is_some() || ratio(path, "decode").is_some() {
            t.push(vec![what.into(), f(ratio(path, "encode")), f(ratio(path, "decode"))]);
        }
    }
    for (platform, name) in
        [("windows", "seed, Windows 11 (Dart, generated code)"), ("am62x", "seed, TI AM62x (Dart, generated code)")]
    {
        let m = |metric: &str| {
            SEED003_FINAL.iter().find(|m| m.platform == platform && m.metric == metric).map(|m| m.protobuf / m.json)
        };
        t.push(vec![name.into(), f(m("encode")), f(m("decode"))]);
    }
    Some(t)
}

/// Seed 001's ESP32 table beside ours: ratio to JSON, ours / paper, per payload.
pub fn seed001(s: &SpeedSection) -> Option<Table> {
    if s.seed001.is_empty() {
        return None;
    }
    let mut headers = vec!["codec", "op"];
    headers.extend(PSON_PAPER_ESP32.payloads.iter());
    headers.push("geomean");
    let mut t = Table::new("Seed 001 (PSON paper): ratio to JSON, ours / ESP32 as published", &headers)
        .numeric_from(2)
        .headline();
    for series in &s.seed001 {
        let mut row = vec![series.codec.clone(), series.op.clone()];
        for (ours, theirs) in &series.per_payload {
            row.push(match (ours, theirs) {
                (Some(o), Some(t)) => format!("{o:.2}/{t:.2}"),
                (None, Some(t)) => format!("-/{t:.2}"),
                _ => "-".into(),
            });
        }
        row.push(match (series.ours_geomean, series.published_geomean) {
            (Some(o), Some(t)) => format!("{o:.2}/{t:.2}"),
            _ => "-".into(),
        });
        t.push(row);
    }
    Some(t)
}

/// The run's warnings, then the cases' warnings grouped by cause (the same text up to its
/// numbers): one line per cause with the count and the first cases, not one line per case.
fn warnings(s: &SpeedSection) -> Vec<String> {
    let mut w = s.warnings.clone();
    let both = both_paths(s);
    let shape = |x: &str| -> String {
        let mut out = String::with_capacity(x.len());
        let mut in_num = false;
        for ch in x.chars() {
            let num = ch.is_ascii_digit() || (in_num && ch == '.');
            if num && !in_num {
                out.push('#');
            } else if !num {
                out.push(ch);
            }
            in_num = num;
        }
        out
    };
    // (shape, first text, cases)
    let mut groups: Vec<(String, String, Vec<String>)> = Vec::new();
    for c in &s.cases {
        for x in &c.warnings {
            let key = shape(x);
            let case = format!("{} / {} / {}", c.payload, label_of(&c.codec, &c.path, both), c.op);
            match groups.iter_mut().find(|g| g.0 == key) {
                Some(g) => g.2.push(case),
                None => groups.push((key, x.clone(), vec![case])),
            }
        }
    }
    for (_, first, cases) in groups {
        if cases.len() == 1 {
            w.push(format!("{}: {first}", cases[0]));
        } else {
            let shown: Vec<&str> = cases.iter().take(3).map(String::as_str).collect();
            w.push(format!(
                "{} cases: {first} (figures vary; {}{})",
                cases.len(),
                shown.join(", "),
                if cases.len() > 3 { ", …" } else { "" }
            ));
        }
    }
    w
}

/// The speed section as blocks: the matrices, the per-codec summary, the seeds' tables beside
/// ours, the warnings and the run's clock figures.
fn blocks(s: &SpeedSection) -> Vec<Block> {
    let mut out = vec![Block::Heading(format!("Speed: {}", s.corpus))];
    for op in ["encode", "decode"] {
        out.extend(matrices(s, op).into_iter().map(Block::Table));
    }
    let short = s.cases.iter().filter(|c| c.short).count();
    if short > 0 {
        out.push(Block::Note(format!(
            "{SHORT_MARK}: {short} case(s) ran short samples (iterations x median below half the target) even after re-calibrating: unreliable, compare does not judge them"
        )));
    }
    out.push(Block::Table(summary(s)));
    if let Some(t) = seed001(s) {
        out.push(Block::Table(t));
        out.push(Block::Caption(format!(
            "Our ns per operation equals µs per 1000 iterations, the paper's unit. Our ratios divide times of one path: the typed path where the codec and JSON both have one, else the dynamic path. Absolute times are host-specific; ratios compare. Source: {}. {}",
            PSON_PAPER_ESP32.source,
            PSON_PAPER_ESP32.note
        )));
    }
    if let Some(t) = seed003(s) {
        out.push(Block::Table(t));
        out.push(Block::Caption(format!(
            "Below 1: Protobuf is faster. The seed measured generated code (its typed path); our dynamic path goes through a value tree for every message. Source: {}.",
            wirebench_core::published::seed002_003::SEED003_SOURCE
        )));
    }
    let w = warnings(s);
    if !w.is_empty() {
        let more = (w.len() > 40).then(|| format!("  ... and {} more (see the results file)", w.len() - 40));
        out.push(List::new("Warnings", w.into_iter().take(40).collect()).warning(true).more(more).into());
    }
    let mut run = format!(
        "{} samples per case, >= {:.0} µs each, interleaved in shuffled rounds (seed {}); clock step {:.0} ns, clock read {:.0} ns, harness {:.2} ns/op",
        s.samples,
        s.target_sample_ns / 1000.0,
        s.seed,
        s.timer.precision_ns,
        s.timer.now_overhead_ns,
        s.timer.harness_overhead_ns_per_op
    );
    if let Some(h) = &s.host_reference {
        run.push_str(&format!(
            "\nHost reference (fixed integer work timed in every round; compare it between runs): {} ns per op, robust spread {:.1}%",
            ns(h.ns_per_op.median),
            100.0 * h.ns_per_op.robust_cv()
        ));
    }
    out.push(Block::Note(run));
    out
}

/// Render the speed section of a results file.
pub fn render(results: &Results, output: Output) -> String {
    let Some(s) = &results.speed else {
        return String::new();
    };
    match output {
        Output::Json => serde_json::to_string_pretty(s).expect("section serializes") + "\n",
        Output::Csv => crate::csv::text(&[csv(s)]),
        Output::Table | Output::Markdown => crate::blocks::render(&blocks(s), output),
    }
}

/// The section's CSV table: a row per case.
pub fn csv_tables(results: &Results) -> Vec<CsvTable> {
    results.speed.as_ref().map(|s| vec![csv(s)]).unwrap_or_default()
}

fn csv(s: &SpeedSection) -> CsvTable {
    let mut out = CsvTable::with_header(&[
        "payload",
        "codec",
        "op",
        "path",
        "buffer",
        "bytes",
        "median_ns",
        "mean_ns",
        "stddev_ns",
        "mad_ns",
        "min_ns",
        "max_ns",
        "ci95_lo_ns",
        "ci95_hi_ns",
        "outliers",
        "ratio_to_baseline",
        "ratio_ci95_lo",
        "ratio_ci95_hi",
        "allocs_per_op",
        "alloc_bytes_per_op",
        "instructions_per_op",
        "samples",
        "iters_per_sample",
        "short",
    ]);
    let f = |v: Option<f64>| v.map(|x| format!("{x:.4}")).unwrap_or_default();
    for c in &s.cases {
        let m = &c.ns_per_op;
        out.row(&[
            c.payload.clone(),
            c.codec.clone(),
            c.op.clone(),
            c.path.clone(),
            c.buffer.clone(),
            c.bytes.to_string(),
            format!("{:.3}", m.median),
            format!("{:.3}", m.mean),
            format!("{:.3}", m.stddev),
            format!("{:.3}", m.mad),
            format!("{:.3}", m.min),
            format!("{:.3}", m.max),
            format!("{:.3}", m.median_ci95.0),
            format!("{:.3}", m.median_ci95.1),
            m.outliers.total().to_string(),
            f(c.ratio_to_baseline),
            f(c.ratio_ci95.map(|x| x.0)),
            f(c.ratio_ci95.map(|x| x.1)),
            f(c.allocs_per_op),
            f(c.alloc_bytes_per_op),
            f(c.instructions_per_op),
            m.n.to_string(),
            c.iters_per_sample.to_string(),
            c.short.to_string(),
        ]);
    }
    out
}
