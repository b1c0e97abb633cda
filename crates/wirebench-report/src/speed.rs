//! The speed report: time per operation by payload and codec, per-codec geometric means,
//! the seed 001 (PSON paper) table beside ours, and the warnings.

use wirebench_core::published::PSON_PAPER_ESP32;
use wirebench_core::results::{OpSpeed, Results, SpeedCase, SpeedSection};

use crate::blocks::{Block, Figure, List};
use crate::csv::CsvTable;
use crate::html::{bytes_fmt, count_fmt, ns_fmt, plural, ratio_fmt, spans, Ctx, Section};
use crate::svg::{color, BarChart, Bars};
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

fn distinct(s: &SpeedSection, f: fn(&SpeedCase) -> &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in &s.cases {
        let v = f(c);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The payload shown case by case: the one the baseline encodes largest (most work per
/// operation, least timer noise), else the largest in any codec.
fn chosen_payload(s: &SpeedSection) -> Option<(&str, usize, &str)> {
    let pick = |codec: Option<&str>| {
        s.cases.iter().filter(|c| codec.is_none_or(|b| c.codec == b)).fold(None::<&SpeedCase>, |best, c| match best {
            Some(b) if b.bytes >= c.bytes => Some(b),
            _ => Some(c),
        })
    };
    pick(Some(&s.baseline)).or_else(|| pick(None)).map(|c| (c.payload.as_str(), c.bytes, c.codec.as_str()))
}

/// A per-codec figure over payloads (`f` of the encode or decode [`OpSpeed`]), in the order of
/// [`labels`].
fn per_codec(s: &SpeedSection, op: &str, f: &dyn Fn(&OpSpeed) -> Option<f64>) -> Vec<Option<f64>> {
    let both = both_paths(s);
    labels(s)
        .iter()
        .map(|c| {
            s.per_codec
                .iter()
                .find(|x| &label_of(&x.codec, &x.path, both) == c)
                .and_then(|x| f(if op == "encode" { &x.encode } else { &x.decode }))
        })
        .collect()
}

/// The section's answer in one line: the fastest codec per operation (geometric mean).
fn key_line(s: &SpeedSection) -> Option<String> {
    let codecs = labels(s);
    let keys: Vec<String> = ["encode", "decode"]
        .into_iter()
        .filter_map(|op| {
            let v = per_codec(s, op, &|x| x.geomean_ns);
            let (i, t) =
                v.iter().enumerate().filter_map(|(i, v)| v.map(|v| (i, v))).min_by(|a, b| a.1.total_cmp(&b.1))?;
            Some(format!("fastest {op}: {} ({} ns, geometric mean)", codecs[i], ns(t)))
        })
        .collect();
    (!keys.is_empty()).then(|| keys.join(" · "))
}

/// One payload's median and ratio to the baseline per codec, each with its 95 % confidence
/// interval (the figures of the one-payload charts).
fn one_payload(s: &SpeedSection, payload: &str) -> Table {
    let mut t = Table::new(
        &format!("{payload}: median ns per operation and ratio to {}, with 95 % confidence intervals", s.baseline),
        &["codec", "encode", "95 % CI", "x base", "95 % CI", "decode", "95 % CI", "x base", "95 % CI"],
    )
    .numeric_from(1);
    let interval = |v: Option<(f64, f64)>, f: &dyn Fn(f64) -> String| {
        v.map(|(lo, hi)| format!("{}–{}", f(lo), f(hi))).unwrap_or_else(|| "-".into())
    };
    let r2 = |v: f64| format!("{v:.2}");
    for label in labels(s) {
        let mut row = vec![label.clone()];
        for op in ["encode", "decode"] {
            match find_labelled(s, payload, &label, op) {
                Some(c) => row.extend([
                    cell(c),
                    interval(Some(c.ns_per_op.median_ci95), &ns),
                    c.ratio_to_baseline.map(r2).unwrap_or_else(|| "-".into()),
                    interval(c.ratio_ci95, &r2),
                ]),
                None => row.extend(["-".to_string(), "-".into(), "-".into(), "-".into()]),
            }
        }
        t.push(row);
    }
    t
}

/// Bytes requested from the allocator per operation, mean over payloads (the counts are the
/// per-codec table's).
fn alloc_bytes(s: &SpeedSection) -> Table {
    let mut t = Table::new("Bytes allocated per operation (mean over payloads)", &["codec", "encode", "decode"])
        .numeric_from(1);
    let bytes = |x: &OpSpeed| x.mean_alloc_bytes;
    let (enc, dec) = (per_codec(s, "encode", &bytes), per_codec(s, "decode", &bytes));
    let f = |v: Option<f64>| v.map(|b| format!("{b:.0}")).unwrap_or_else(|| "-".into());
    for (i, label) in labels(s).into_iter().enumerate() {
        t.push(vec![label, f(enc[i]), f(dec[i])]);
    }
    t
}

/// Bars of one per-codec figure per operation, side by side.
fn op_charts(s: &SpeedSection, ctx: &Ctx) -> Block {
    let items = ["encode", "decode"]
        .iter()
        .enumerate()
        .map(|(k, op)| {
            let v = per_codec(s, op, &|x| x.geomean_ns);
            let log = spans(&v, 30.0);
            let chart =
                BarChart::new(&ctx.chart_id(&format!("{op}-gm")), &format!("{op}: ns per operation"), labels(s))
                    .series(Bars::new(op, v).color(color(k)))
                    .axis_label("ns per operation")
                    .log(log)
                    .width(520.0)
                    .value_format(ns_fmt);
            Figure::new(
                chart.render(),
                format!("Geometric mean over payloads of each case's median{}.", if log { "; log axis" } else { "" }),
            )
        })
        .collect();
    Block::Figures { items, note: String::new() }
}

/// The chosen payload's medians with their confidence intervals, per operation.
fn one_payload_charts(s: &SpeedSection, payload: &str, ctx: &Ctx) -> Block {
    let codecs = labels(s);
    let items = ["encode", "decode"]
        .iter()
        .enumerate()
        .map(|(k, op)| {
            let cases: Vec<Option<&SpeedCase>> = codecs.iter().map(|c| find_labelled(s, payload, c, op)).collect();
            let v: Vec<Option<f64>> = cases.iter().map(|c| c.map(|c| c.ns_per_op.median)).collect();
            let e: Vec<Option<(f64, f64)>> = cases.iter().map(|c| c.map(|c| c.ns_per_op.median_ci95)).collect();
            let log = spans(&v, 30.0);
            let chart = BarChart::new(
                &ctx.chart_id(&format!("{op}-one")),
                &format!("{op} {payload}: ns per operation"),
                codecs.clone(),
            )
            .series(Bars::new(&format!("{op} median"), v).errors(e).color(color(k)))
            .axis_label("ns per operation")
            .log(log)
            .width(520.0)
            .value_format(ns_fmt);
            Figure::new(chart.render(), "Median with its bootstrap 95 % confidence interval (whiskers).")
        })
        .collect();
    Block::Figures { items, note: String::new() }
}

/// The ratio to the baseline: geometric mean over payloads and the chosen payload with its
/// interval, then (up to 12 payloads) every payload.
fn ratio_charts(s: &SpeedSection, payload: &str, ctx: &Ctx) -> Vec<Block> {
    let codecs = labels(s);
    let ratio = |x: &OpSpeed| x.geomean_ratio;
    let (enc, dec) = (per_codec(s, "encode", &ratio), per_codec(s, "decode", &ratio));
    let log = spans(&[enc.clone(), dec.clone()].concat(), 4.0);
    let gm =
        BarChart::new(&ctx.chart_id("ratio-gm"), "Ratio to baseline, geometric mean over payloads", codecs.clone())
            .series(Bars::new("encode", enc))
            .series(Bars::new("decode", dec))
            .base(1.0)
            .log(log)
            .reference(1.0, &s.baseline)
            .axis_label(&format!("time ÷ {} time", s.baseline))
            .width(520.0)
            .value_format(ratio_fmt);
    let one = ratio_chart(
        s,
        &codecs,
        payload,
        &ctx.chart_id("ratio-one"),
        &format!("Ratio to baseline, {payload}, with 95 % CI"),
        520.0,
    );
    let mut out = vec![Block::Figures {
        items: vec![
            Figure::new(gm.render(), format!("Below 1: faster than {}.", s.baseline)),
            Figure::new(one, "Median ÷ baseline median; whiskers: bootstrap 95 % CI resampling both sample sets."),
        ],
        note: String::new(),
    }];
    let payloads = distinct(s, |c| &c.payload);
    if payloads.len() > 1 && payloads.len() <= 12 {
        let items = payloads
            .iter()
            .enumerate()
            .map(|(i, p)| {
                Figure::new(ratio_chart(s, &codecs, p, &ctx.chart_id(&format!("ratio-p{}", i + 1)), p, 420.0), "")
            })
            .collect();
        out.push(Block::Figures { items, note: format!("Ratio to {} with 95 % CI for every payload.", s.baseline) });
    }
    out
}

fn ratio_chart(s: &SpeedSection, codecs: &[String], payload: &str, id: &str, title: &str, width: f64) -> String {
    let mut chart = BarChart::new(id, title, codecs.to_vec())
        .base(1.0)
        .reference(1.0, &s.baseline)
        .axis_label(&format!("time ÷ {} time", s.baseline))
        .width(width)
        .value_format(ratio_fmt);
    let mut all = Vec::new();
    for op in ["encode", "decode"] {
        let cases: Vec<Option<&SpeedCase>> = codecs.iter().map(|c| find_labelled(s, payload, c, op)).collect();
        let values: Vec<Option<f64>> = cases.iter().map(|c| c.and_then(|c| c.ratio_to_baseline)).collect();
        all.extend(values.iter().copied());
        chart =
            chart.series(Bars::new(op, values).errors(cases.iter().map(|c| c.and_then(|c| c.ratio_ci95)).collect()));
    }
    chart.log(spans(&all, 4.0)).render()
}

/// Allocations and bytes allocated per operation, mean over payloads.
fn alloc_charts(s: &SpeedSection, ctx: &Ctx) -> Block {
    let codecs = labels(s);
    let allocs = |x: &OpSpeed| x.mean_allocs;
    let alloc_bytes = |x: &OpSpeed| x.mean_alloc_bytes;
    let a = BarChart::new(&ctx.chart_id("allocs"), "Allocations per operation (mean over payloads)", codecs.clone())
        .series(Bars::new("encode", per_codec(s, "encode", &allocs)))
        .series(Bars::new("decode", per_codec(s, "decode", &allocs)))
        .axis_label("allocations per operation")
        .width(520.0)
        .value_format(count_fmt);
    let (enc, dec) = (per_codec(s, "encode", &alloc_bytes), per_codec(s, "decode", &alloc_bytes));
    let log = spans(&[enc.clone(), dec.clone()].concat(), 30.0);
    let ab = BarChart::new(&ctx.chart_id("alloc-bytes"), "Bytes allocated per operation (mean over payloads)", codecs)
        .series(Bars::new("encode", enc))
        .series(Bars::new("decode", dec))
        .log(log)
        .axis_label("bytes requested per operation")
        .width(520.0)
        .value_format(bytes_fmt);
    Block::Figures {
        items: vec![
            Figure::new(
                a.render(),
                "Counted outside the timed samples. Encode writes into a reused buffer, so 0 is possible.",
            ),
            Figure::new(
                ab.render(),
                format!(
                    "Bytes requested from the allocator; decode includes the decoded value{}.",
                    if log { "; log axis, a 0 is printed without a bar" } else { "" }
                ),
            ),
        ],
        note: String::new(),
    }
}

/// Our ratio to JSON beside the PSON paper's ESP32 ratio, per codec the paper measured: the
/// charts (HTML only), what is published and what is ours, and the table.
fn seed001_blocks(s: &SpeedSection, charts: Option<&Ctx>) -> Vec<Block> {
    let p = &PSON_PAPER_ESP32;
    let mut out = vec![Block::Subheading("Seed 001: ours beside the PSON paper (ESP32)".into())];
    let mut paper_codecs: Vec<&str> = Vec::new();
    for series in p.series {
        if series.codec != "json" && !paper_codecs.contains(&series.codec) {
            paper_codecs.push(series.codec);
        }
    }
    let mut items = Vec::new();
    let mut missing: Vec<&str> = Vec::new();
    for op in ["encode", "decode"] {
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        for codec in &paper_codecs {
            let row = s.seed001.iter().find(|r| r.codec == *codec && r.op == op);
            let o = row.and_then(|r| r.ours_geomean);
            if o.is_none() && !missing.contains(codec) {
                missing.push(codec);
            }
            ours.push(o);
            theirs.push(row.and_then(|r| {
                if r.ours_geomean.is_some() {
                    r.published_geomean
                } else {
                    r.published_geomean_all
                }
            }));
        }
        if let Some(ctx) = charts {
            let chart = BarChart::new(
                &ctx.chart_id(&format!("seed001-{op}")),
                &format!("{op}: time relative to JSON"),
                paper_codecs.iter().map(|c| c.to_string()).collect(),
            )
            .series(Bars::new("ours (this host)", ours).color(color(0)))
            .series(Bars::new("published (ESP32)", theirs).color(color(5)).hatched(true))
            .missing_label("not measured")
            .base(1.0)
            .log(true)
            .reference(1.0, "JSON = 1")
            .axis_label("time ÷ JSON time, geometric mean over Test01–Test10")
            .width(520.0)
            .value_format(ratio_fmt);
            items.push(Figure::new(chart.render(), ""));
        }
    }
    if !items.is_empty() {
        out.push(Block::Figures { items, note: String::new() });
    }
    out.push(Block::Note(format!(
        "published (ESP32): figures printed in {} (unit: {}), not measured here; ours (this host): this results file. \
         Ratios compare: absolute times are host-specific, and a microcontroller ranks codecs differently.{}",
        p.source,
        p.unit,
        if missing.is_empty() {
            String::new()
        } else {
            format!(" Not measured in this run: {} (published bar only).", missing.join(", "))
        }
    )));
    out.push(Block::Note(p.note.into()));
    if let Some(t) = seed001(s) {
        out.push(Block::Table(t));
        out.push(Block::Caption(
            "Each cell: ours / published. Our ns per operation equals µs per 1000 iterations, the paper's unit. Our \
             ratios divide times of one path: the typed path where the codec and JSON both have one, else the \
             dynamic path."
                .into(),
        ));
    }
    out
}

/// The run's clock figures and the host reference.
fn run_note(s: &SpeedSection) -> String {
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
            "\nHost reference (fixed integer work timed in every round, robust spread {:.1}%; compare it between runs to tell a slower host from slower code): {} ns per operation.",
            100.0 * h.ns_per_op.robust_cv(),
            ns(h.ns_per_op.median)
        ));
    }
    run
}

/// The speed section as blocks, the same for every report kind: what was measured, the
/// warnings, the answer, the per-codec figures, the chosen payload with its intervals, the
/// ratio to the baseline, allocations and instructions, the seeds' figures beside ours, the
/// payload × codec matrices and the run's clock figures; the charts (HTML only) when `charts`
/// gives the section's page id.
fn blocks(s: &SpeedSection, charts: Option<&Ctx>) -> Vec<Block> {
    let codecs = labels(s);
    let payloads = distinct(s, |c| &c.payload);
    let mut out = vec![
        Block::Heading(format!("Speed: {}", s.corpus)),
        Block::Intro(format!(
            "Time per encode and decode operation for {} on {} of {}: {} samples per case, each at least {:.0} µs, \
             interleaved in shuffled rounds (seed {}). Medians are the headline figures; ratios are taken against {}.",
            plural(codecs.len(), "codec", "codecs"),
            plural(payloads.len(), "payload", "payloads"),
            s.corpus,
            s.samples,
            s.target_sample_ns / 1000.0,
            s.seed,
            s.baseline,
        )),
    ];
    if both_paths(s) {
        out.push(Block::Intro(
            "Each codec with a typed path runs on both: typed (generated or derived types, as an application holds \
             its messages) and dyn (the generic value tree, as for messages only known at run time). Every ratio \
             divides times of the same path: typed by the baseline's typed time, dynamic by its dynamic time."
                .into(),
        ));
    }
    let w = warnings(s);
    if !w.is_empty() {
        let more = (w.len() > 40).then(|| format!("  ... and {} more (see the results file)", w.len() - 40));
        out.push(List::new("Warnings", w.into_iter().take(40).collect()).warning(true).more(more).into());
    }
    out.extend(key_line(s).map(Block::KeyLine));
    out.push(Block::Subheading("Median time per operation, geometric mean over payloads".into()));
    if let Some(ctx) = charts {
        out.push(op_charts(s, ctx));
    }
    out.push(Block::Table(summary(s)));
    if let Some((payload, bytes, by)) = chosen_payload(s) {
        out.push(Block::Subheading(format!("One payload with 95 % confidence intervals: {payload}")));
        if let Some(ctx) = charts {
            out.push(one_payload_charts(s, payload, ctx));
        }
        out.push(Block::Note(format!(
            "{payload} is the largest payload ({bytes} bytes in {by}): the most work per operation and the least timer noise."
        )));
        out.push(Block::Table(one_payload(s, payload)));
        out.push(Block::Subheading(format!("Ratio to the baseline ({})", s.baseline)));
        if let Some(ctx) = charts {
            out.extend(ratio_charts(s, payload, ctx));
        }
        out.push(Block::Note(format!(
            "Median ÷ the median of {} on the same payload and path; below 1: faster. The geometric means over payloads \
             are the per-codec table's x base columns, {payload}'s with their 95 % CI the table above.",
            s.baseline
        )));
    }
    if s.cases.iter().any(|c| c.allocs_per_op.is_some()) {
        out.push(Block::Subheading("Allocations per operation".into()));
        if let Some(ctx) = charts {
            out.push(alloc_charts(s, ctx));
        }
        out.push(Block::Table(alloc_bytes(s)));
        out.push(Block::Caption(
            "Allocations per operation: the per-codec table's enc allocs and dec allocs columns.".into(),
        ));
    }
    if s.instructions {
        out.push(Block::Subheading("Instructions per operation".into()));
        if let Some(ctx) = charts {
            let instr = |x: &OpSpeed| x.geomean_instructions;
            let chart = BarChart::new(
                &ctx.chart_id("instr"),
                "Instructions per operation (geometric mean over payloads)",
                codecs.clone(),
            )
            .series(Bars::new("encode", per_codec(s, "encode", &instr)))
            .series(Bars::new("decode", per_codec(s, "decode", &instr)))
            .axis_label("instructions per operation (callgrind)")
            .value_format(bytes_fmt);
            out.push(Block::Figure(Figure::new(
                chart.render(),
                "Independent of machine load: the figure to compare across runs.",
            )));
        }
        out.push(Block::Note(
            "Instructions per operation (callgrind), geometric mean over payloads: the per-codec table's enc instr and \
             dec instr columns. Independent of machine load: the figure to compare across runs."
                .into(),
        ));
    }
    if s.corpus == "pson-paper" || !s.seed001.is_empty() {
        out.extend(seed001_blocks(s, charts));
    }
    if let Some(t) = seed003(s) {
        out.push(Block::Subheading("Seed 003: Protobuf ÷ JSON time per EV message".into()));
        out.push(Block::Table(t));
        out.push(Block::Caption(format!(
            "Below 1: Protobuf is faster. The seed timed generated code in Dart, which is our typed path; on the \
             dynamic path every message goes through a value tree, which costs Protobuf's schema-directed writer \
             more than JSON's. Source: {}.",
            wirebench_core::published::seed002_003::SEED003_SOURCE
        )));
    }
    out.push(Block::Subheading("Median time per operation, per payload".into()));
    for op in ["encode", "decode"] {
        out.extend(matrices(s, op).into_iter().map(Block::Table));
    }
    let short = s.cases.iter().filter(|c| c.short).count();
    if short > 0 {
        out.push(Block::Note(format!(
            "{SHORT_MARK}: {short} case(s) ran short samples (iterations x median below half the target) even after re-calibrating: unreliable, compare does not judge them"
        )));
    }
    let case_warnings: Vec<String> = s
        .cases
        .iter()
        .flat_map(|c| {
            let label = label_of(&c.codec, &c.path, both_paths(s));
            c.warnings.iter().map(move |w| format!("{} / {} / {}: {}", c.payload, label, c.op, w))
        })
        .collect();
    if !case_warnings.is_empty() {
        let mut text = case_warnings.iter().take(1000).cloned().collect::<Vec<_>>().join("\n");
        if case_warnings.len() > 1000 {
            text.push_str(&format!("\n… and {} more (see the results file)", case_warnings.len() - 1000));
        }
        out.push(Block::Details { summary: plural(case_warnings.len(), "case warning", "case warnings"), text });
    }
    out.push(Block::Note(run_note(s)));
    out
}

/// The speed section of the HTML page.
pub fn html_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = r.speed.as_ref()?;
    let summary = format!(
        "encode and decode time of {} on {}, {} samples per case",
        plural(labels(s).len(), "codec", "codecs"),
        plural(distinct(s, |c| &c.payload).len(), "payload", "payloads"),
        s.samples
    );
    Some(crate::html::from_blocks(&blocks(s, Some(ctx)), summary))
}

/// Render the speed section of a results file.
pub fn render(results: &Results, output: Output) -> String {
    let Some(s) = &results.speed else {
        return String::new();
    };
    match output {
        Output::Json => serde_json::to_string_pretty(s).expect("section serializes") + "\n",
        Output::Csv => crate::csv::text(&[csv(s)]),
        Output::Table | Output::Markdown => crate::blocks::render(&blocks(s, None), output),
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
