//! The `dds` results section (seed 004: DDS latency and throughput, CDR vs JSON marshalling):
//! terminal/Markdown/CSV text and the HTML section.
//!
//! The section is written by `wirebench dds latency|throughput|marshal` and the `[dds]` study
//! part (crate `wirebench-dds`, `study::run`). Its arrays are all optional; each view shows what
//! is there:
//!
//! - `latency`: ours per round × size × marshalling: `half_rtt_us` {avg, stddev, p50, p90, p99,
//!   max, count}, `cdf` [[µs, fraction]], allocations per sample;
//! - `throughput`: ours: samples/s, MB/s (10⁶ B of payload), delivery (sent, received, lost);
//! - `ddsperf_latency`, `ddsperf_throughput`: Cyclone's ddsperf in the same run (its `size` is
//!   payload + 12);
//! - `marshal`: marshalling alone (encode/decode ns, bytes); `ratios`: JSON ÷ CDR per size;
//! - `checks`: the must-hold comparisons with ddsperf; `failures`;
//! - `published`: the seed's figures with their tables and notes on what cannot be right.
//!
//! Several rounds are shown one per row in the tables; charts use the median over rounds.
//! Nothing is measured here.

use std::fmt::Write;

use serde_json::Value;
use wirebench_core::results::Results;

use crate::csv::record;
use crate::html::{table, Ctx, Section};
use crate::svg::{color, esc, fixed, BarChart, Bars, Line, LineChart};
use crate::table::Table;
use crate::Output;
use crate::json::{arr, f64_at as f, str_at as s};

/// The seed's series (method, label, colour): hatched, in the colour of our counterpart (native:
/// ddsperf's grey; CDR and JSON: ours in the usual cdr, json order).
fn seed_series() -> [(&'static str, &'static str, &'static str); 3] {
    [("OpenDDS Native", "seed native", NATIVE), ("OpenDDSharp CDR", "seed CDR", color(0)), ("OpenDDSharp JSON", "seed JSON", color(1))]
}
/// Colour of Cyclone's ddsperf (the native anchor).
const NATIVE: &str = "#555555";
/// ddsperf's `size` includes KeyedSeq's fixed 12 bytes.
const FIXED: u64 = 12;

fn section(r: &Results) -> Option<&Value> {
    r.dds.as_ref().filter(|v| v.is_object())
}

fn u(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

fn num(v: Option<f64>, decimals: usize) -> String {
    v.map(|x| fixed(x, decimals)).unwrap_or_else(|| "-".into())
}

fn size_label(n: u64) -> String {
    if n >= 1024 && n & 1023 == 0 {
        format!("{} KB", n / 1024)
    } else {
        format!("{n} B")
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// Payload sizes present anywhere in the section, ascending.
fn sizes(d: &Value) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for key in ["latency", "throughput", "marshal"] {
        out.extend(arr(d, key).iter().filter_map(|r| u(r, "size")));
    }
    for key in ["ddsperf_latency", "ddsperf_throughput"] {
        out.extend(arr(d, key).iter().filter_map(|r| u(r, "size")).map(|n| n.saturating_sub(FIXED)));
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn marshals(d: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for key in ["latency", "throughput"] {
        for r in arr(d, key) {
            let m = s(r, "marshal").to_string();
            if !m.is_empty() && !out.contains(&m) {
                out.push(m);
            }
        }
    }
    out
}

/// Median over rounds of `path` in `key` rows of this size and marshalling.
fn ours(d: &Value, key: &str, size: u64, marshal: &str, path: &[&str]) -> Option<f64> {
    median(
        arr(d, key)
            .iter()
            .filter(|r| u(r, "size") == Some(size) && s(r, "marshal") == marshal)
            .filter_map(|r| f(r, path))
            .collect(),
    )
}

fn native(d: &Value, key: &str, size: u64, path: &[&str]) -> Option<f64> {
    median(arr(d, key).iter().filter(|r| u(r, "size") == Some(size + FIXED)).filter_map(|r| f(r, path)).collect())
}

fn published<'a>(d: &'a Value, key: &str) -> &'a [Value] {
    d.get("published").map(|p| arr(p, key)).unwrap_or(&[])
}

fn seed_latency_us(d: &Value, size: u64, method: &str, what: &str) -> Option<f64> {
    published(d, "latency_ms")
        .iter()
        .find(|r| u(r, "size") == Some(size) && s(r, "method") == method)
        .and_then(|r| f(r, &[what]))
        .map(|ms| ms * 1000.0)
}

/// The seed's throughput in 10⁶ B/s (it printed MiB/s).
fn seed_mb(d: &Value, size: u64, method: &str) -> Option<f64> {
    published(d, "throughput")
        .iter()
        .find(|r| u(r, "size") == Some(size) && s(r, "method") == method)
        .and_then(|r| f(r, &["mib_per_s"]))
        .map(|m| m * 1_048_576.0 / 1e6)
}

fn who(marshal: &str) -> String {
    match marshal {
        "cdr" => "ours CDR".into(),
        "json" => "ours JSON".into(),
        other => format!("ours {other}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Tables

pub fn latency_table(d: &Value) -> Option<Table> {
    if arr(d, "latency").is_empty() && arr(d, "ddsperf_latency").is_empty() {
        return None;
    }
    let mut t = Table::new(
        "DDS latency: half round trip, µs (ours pooled; ddsperf: median of 1-s windows)",
        &["size", "round", "who", "bytes", "avg", "stddev", "p50", "p90", "p99", "max", "round trips", "allocs/sample"],
    )
    .numeric_from(3);
    for size in sizes(d) {
        let mut rows: Vec<(u64, Vec<String>)> = Vec::new();
        for r in arr(d, "ddsperf_latency").iter().filter(|r| u(r, "size") == Some(size + FIXED)) {
            rows.push((
                u(r, "round").unwrap_or(0),
                vec![
                    size_label(size),
                    u(r, "round").map(|x| x.to_string()).unwrap_or_default(),
                    "ddsperf".into(),
                    num(f(r, &["size"]), 0),
                    num(f(r, &["mean"]), 1),
                    "-".into(),
                    num(f(r, &["p50"]), 1),
                    num(f(r, &["p90"]), 1),
                    num(f(r, &["p99"]), 1),
                    num(f(r, &["max"]), 0),
                    num(f(r, &["round_trips"]), 0),
                    "-".into(),
                ],
            ));
        }
        for r in arr(d, "latency").iter().filter(|r| u(r, "size") == Some(size)) {
            rows.push((
                u(r, "round").unwrap_or(0),
                vec![
                    size_label(size),
                    u(r, "round").map(|x| x.to_string()).unwrap_or_default(),
                    who(s(r, "marshal")),
                    num(f(r, &["wire_bytes"]), 0),
                    num(f(r, &["half_rtt_us", "avg"]), 1),
                    num(f(r, &["half_rtt_us", "stddev"]), 1),
                    num(f(r, &["half_rtt_us", "p50"]), 1),
                    num(f(r, &["half_rtt_us", "p90"]), 1),
                    num(f(r, &["half_rtt_us", "p99"]), 1),
                    num(f(r, &["half_rtt_us", "max"]), 0),
                    num(f(r, &["half_rtt_us", "count"]), 0),
                    num(f(r, &["allocs_per_sample"]), 1),
                ],
            ));
        }
        rows.sort_by_key(|(round, _)| *round);
        for (_, row) in rows {
            t.push(row);
        }
        for (method, short) in [("OpenDDS Native", "native"), ("OpenDDSharp CDR", "CDR"), ("OpenDDSharp JSON", "JSON")] {
            let Some(p50) = seed_latency_us(d, size, method, "p50_ms") else { continue };
            t.push(vec![
                size_label(size),
                "seed".into(),
                format!("seed {short} (published)"),
                "-".into(),
                num(seed_latency_us(d, size, method, "avg_ms"), 1),
                num(seed_latency_us(d, size, method, "std_ms"), 1),
                fixed(p50, 1),
                num(seed_latency_us(d, size, method, "p90_ms"), 1),
                num(seed_latency_us(d, size, method, "p99_ms"), 1),
                num(seed_latency_us(d, size, method, "max_ms"), 0),
                "-".into(),
                "-".into(),
            ]);
        }
    }
    Some(t)
}

pub fn throughput_table(d: &Value) -> Option<Table> {
    if arr(d, "throughput").is_empty() && arr(d, "ddsperf_throughput").is_empty() {
        return None;
    }
    let mut t = Table::new(
        "DDS throughput (MB = 10⁶ B of payload; samples/s: all N from go to the last; steady: after the first tenth; ddsperf: median of 1-s windows)",
        &["size", "round", "who", "samples/s", "steady samples/s", "MB/s", "received", "sent", "lost", "allocs/sample"],
    )
    .numeric_from(3);
    for size in sizes(d) {
        let mut rows: Vec<(u64, Vec<String>)> = Vec::new();
        for r in arr(d, "ddsperf_throughput").iter().filter(|r| u(r, "size") == Some(size + FIXED)) {
            let sps = f(r, &["samples_per_s"]);
            rows.push((
                u(r, "round").unwrap_or(0),
                vec![
                    size_label(size),
                    u(r, "round").map(|x| x.to_string()).unwrap_or_default(),
                    "ddsperf".into(),
                    "-".into(),
                    num(sps, 0),
                    num(sps.map(|x| x * size as f64 / 1e6), 1),
                    num(f(r, &["total"]), 0),
                    "-".into(),
                    num(f(r, &["lost"]), 0),
                    "-".into(),
                ],
            ));
        }
        for r in arr(d, "throughput").iter().filter(|r| u(r, "size") == Some(size)) {
            rows.push((
                u(r, "round").unwrap_or(0),
                vec![
                    size_label(size),
                    u(r, "round").map(|x| x.to_string()).unwrap_or_default(),
                    who(s(r, "marshal")),
                    num(f(r, &["samples_per_s"]), 0),
                    num(f(r, &["steady_samples_per_s"]), 0),
                    num(f(r, &["mb_per_s"]), 1),
                    num(f(r, &["received"]), 0),
                    num(f(r, &["sent"]), 0),
                    num(f(r, &["lost"]), 0),
                    num(f(r, &["allocs_per_sample"]), 1),
                ],
            ));
        }
        rows.sort_by_key(|(round, _)| *round);
        for (_, row) in rows {
            t.push(row);
        }
        for r in published(d, "throughput").iter().filter(|r| u(r, "size") == Some(size)) {
            let n = f(r, &["samples"]);
            let ms = f(r, &["mean_ms"]);
            t.push(vec![
                size_label(size),
                "seed".into(),
                format!("seed {} (published)", s(r, "method").replace("OpenDDSharp ", "").replace("OpenDDS ", "")),
                num(n.zip(ms).map(|(n, ms)| n / (ms / 1e3)), 0),
                "-".into(),
                num(seed_mb(d, size, s(r, "method")), 1),
                num(n, 0),
                num(n, 0),
                "-".into(),
                "-".into(),
            ]);
        }
    }
    Some(t)
}

pub fn checks_table(d: &Value) -> Option<Table> {
    let checks = arr(d, "checks");
    if checks.is_empty() {
        return None;
    }
    let mut t = Table::new("Must hold: ours (CDR) against ddsperf, same run", &["check", "round", "ours", "ddsperf", "unit", "ratio", "limit", "result"])
        .numeric_from(1);
    t.numeric[4] = false;
    t.numeric[7] = false;
    for c in checks {
        let unit = s(c, "unit");
        let dec = if unit == "us" { 1 } else { 0 };
        t.push(vec![
            s(c, "name").to_string(),
            num(f(c, &["round"]), 0),
            num(f(c, &["ours"]), dec),
            num(f(c, &["ddsperf"]), dec),
            unit.to_string(),
            num(f(c, &["ratio"]), 2),
            num(f(c, &["limit"]), 1),
            if c.get("pass").and_then(Value::as_bool) == Some(true) { "pass".into() } else { "FAIL".into() },
        ]);
    }
    Some(t)
}

pub fn marshal_table(d: &Value) -> Option<Table> {
    let rows = arr(d, "marshal");
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Marshalling alone (no DDS): median ns per sample, bytes, allocations",
        &["size", "marshal", "bytes", "encode ns", "decode ns", "encode allocs", "decode allocs"],
    )
    .numeric_from(2);
    for r in rows {
        t.push(vec![
            size_label(u(r, "size").unwrap_or(0)),
            s(r, "marshal").to_string(),
            num(f(r, &["bytes"]), 0),
            num(f(r, &["encode_ns"]), 0),
            num(f(r, &["decode_ns"]), 0),
            num(f(r, &["encode_allocs"]), 1),
            num(f(r, &["decode_allocs"]), 1),
        ]);
    }
    Some(t)
}

pub fn ratio_table(d: &Value) -> Option<Table> {
    let rows = arr(d, "ratios");
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "JSON ÷ CDR (ours; seed: OpenDDSharp JSON ÷ CDR)",
        &["size", "bytes", "encode", "decode", "marshal round trip", "latency p50", "seed latency p50", "throughput", "seed throughput"],
    )
    .numeric_from(1);
    for r in rows {
        let size = u(r, "size").unwrap_or(0);
        let seed_lat = seed_latency_us(d, size, "OpenDDSharp JSON", "p50_ms")
            .zip(seed_latency_us(d, size, "OpenDDSharp CDR", "p50_ms"))
            .map(|(j, c)| j / c);
        let seed_thr = seed_mb(d, size, "OpenDDSharp JSON").zip(seed_mb(d, size, "OpenDDSharp CDR")).map(|(j, c)| j / c);
        t.push(vec![
            size_label(size),
            num(f(r, &["marshal_bytes"]), 2),
            num(f(r, &["marshal_encode"]), 1),
            num(f(r, &["marshal_decode"]), 1),
            num(f(r, &["marshal_round_trip"]), 1),
            num(f(r, &["latency_p50"]), 2),
            num(seed_lat, 2),
            num(f(r, &["throughput"]), 2),
            num(seed_thr, 2),
        ]);
    }
    Some(t)
}

/// CDR relative to the native anchor: ours against ddsperf, the seed's against OpenDDS native.
pub fn native_table(d: &Value) -> Option<Table> {
    let mut t = Table::new(
        "CDR ÷ native (ours: CDR ÷ ddsperf, same run, throughput in steady state; seed: OpenDDSharp CDR ÷ OpenDDS native)",
        &["size", "latency p50", "seed latency p50", "throughput", "seed throughput"],
    )
    .numeric_from(1);
    for size in sizes(d) {
        let lat = ours(d, "latency", size, "cdr", &["half_rtt_us", "p50"]).zip(native(d, "ddsperf_latency", size, &["p50"]));
        let steady = ours(d, "throughput", size, "cdr", &["steady_samples_per_s"]);
        let thr = steady
            .or_else(|| ours(d, "throughput", size, "cdr", &["samples_per_s"]))
            .zip(native(d, "ddsperf_throughput", size, &["samples_per_s"]));
        let seed_lat = seed_latency_us(d, size, "OpenDDSharp CDR", "p50_ms").zip(seed_latency_us(d, size, "OpenDDS Native", "p50_ms"));
        let seed_thr = seed_mb(d, size, "OpenDDSharp CDR").zip(seed_mb(d, size, "OpenDDS Native"));
        if lat.is_none() && thr.is_none() && seed_lat.is_none() {
            continue;
        }
        t.push(vec![
            size_label(size),
            num(lat.map(|(a, b)| a / b), 2),
            num(seed_lat.map(|(a, b)| a / b), 2),
            num(thr.map(|(a, b)| a / b), 2),
            num(seed_thr.map(|(a, b)| a / b), 2),
        ]);
    }
    (!t.rows.is_empty()).then_some(t)
}

fn failure_lines(d: &Value) -> Vec<String> {
    arr(d, "failures")
        .iter()
        .map(|x| {
            let m = s(x, "marshal");
            format!(
                "{} {}{} (round {}): {}",
                s(x, "what"),
                u(x, "size").filter(|n| *n > 0).map(size_label).unwrap_or_default(),
                if m.is_empty() { String::new() } else { format!(" {m}") },
                u(x, "round").unwrap_or(0),
                s(x, "error")
            )
        })
        .collect()
}

fn notes(d: &Value) -> Vec<String> {
    d.get("published").map(|p| arr(p, "notes")).unwrap_or(&[]).iter().filter_map(Value::as_str).map(str::to_string).collect()
}

// ---------------------------------------------------------------------------------------------
// Text

pub fn render(r: &Results, output: Output) -> String {
    let Some(d) = section(r) else {
        return String::new();
    };
    match output {
        Output::Json => serde_json::to_string_pretty(d).unwrap_or_default() + "\n",
        Output::Csv => csv(d),
        Output::Table | Output::Markdown => {
            let md = output == Output::Markdown;
            let tab = |t: &Table| if md { t.to_markdown() } else { t.to_text() };
            let bullet = if md { "- " } else { "  " };
            let mut out = String::new();
            out.push_str(if md {
                "## DDS latency and throughput, CDR vs JSON (seed 004)\n\n"
            } else {
                "DDS latency and throughput, CDR vs JSON (seed 004)\n\n"
            });
            let transport = s(d, "transport");
            if !transport.is_empty() {
                let _ = writeln!(out, "{transport}.\n");
            }
            let mut first = true;
            for t in [
                checks_table(d),
                latency_table(d),
                throughput_table(d),
                marshal_table(d),
                ratio_table(d),
                native_table(d),
            ]
            .into_iter()
            .flatten()
            {
                if !first {
                    out.push('\n');
                }
                first = false;
                out.push_str(&tab(&t));
            }
            let fails = failure_lines(d);
            if !fails.is_empty() {
                out.push_str(if md { "\n**Failed runs**\n\n" } else { "\nFailed runs\n" });
                for l in fails {
                    let _ = writeln!(out, "{bullet}{l}");
                }
            }
            let n = notes(d);
            if !n.is_empty() {
                let src = d.get("published").map(|p| s(p, "source")).unwrap_or("");
                let _ = write!(out, "{}", if md { "\n**About the seed's figures**" } else { "\nAbout the seed's figures" });
                let _ = writeln!(out, "{}", if src.is_empty() { String::new() } else { format!(" ({src})") });
                if md {
                    out.push('\n');
                }
                for l in n {
                    let _ = writeln!(out, "{bullet}{l}");
                }
            }
            out
        }
    }
}

fn csv(d: &Value) -> String {
    let mut out = record(&[
        "kind", "round", "size", "who", "bytes", "avg_us", "stddev_us", "p50_us", "p90_us", "p99_us", "max_us", "count",
        "samples_per_s", "mb_per_s", "lost", "allocs_per_sample",
    ]);
    let o = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    for r in arr(d, "latency") {
        out.push_str(&record(&[
            "latency".into(),
            o(f(r, &["round"])),
            o(f(r, &["size"])),
            s(r, "marshal").to_string(),
            o(f(r, &["wire_bytes"])),
            o(f(r, &["half_rtt_us", "avg"])),
            o(f(r, &["half_rtt_us", "stddev"])),
            o(f(r, &["half_rtt_us", "p50"])),
            o(f(r, &["half_rtt_us", "p90"])),
            o(f(r, &["half_rtt_us", "p99"])),
            o(f(r, &["half_rtt_us", "max"])),
            o(f(r, &["half_rtt_us", "count"])),
            String::new(),
            String::new(),
            String::new(),
            o(f(r, &["allocs_per_sample"])),
        ]));
    }
    for r in arr(d, "ddsperf_latency") {
        out.push_str(&record(&[
            "latency".into(),
            o(f(r, &["round"])),
            o(f(r, &["size"]).map(|x| x - FIXED as f64)),
            "ddsperf".into(),
            o(f(r, &["size"])),
            o(f(r, &["mean"])),
            String::new(),
            o(f(r, &["p50"])),
            o(f(r, &["p90"])),
            o(f(r, &["p99"])),
            o(f(r, &["max"])),
            o(f(r, &["round_trips"])),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ]));
    }
    for r in arr(d, "throughput") {
        out.push_str(&record(&[
            "throughput".into(),
            o(f(r, &["round"])),
            o(f(r, &["size"])),
            s(r, "marshal").to_string(),
            o(f(r, &["wire_bytes"])),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            o(f(r, &["received"])),
            o(f(r, &["samples_per_s"])),
            o(f(r, &["mb_per_s"])),
            o(f(r, &["lost"])),
            o(f(r, &["allocs_per_sample"])),
        ]));
    }
    for r in arr(d, "ddsperf_throughput") {
        let size = f(r, &["size"]).map(|x| x - FIXED as f64);
        let sps = f(r, &["samples_per_s"]);
        out.push_str(&record(&[
            "throughput".into(),
            o(f(r, &["round"])),
            o(size),
            "ddsperf".into(),
            o(f(r, &["size"])),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            o(f(r, &["total"])),
            o(sps),
            o(sps.zip(size).map(|(a, b)| a * b / 1e6)),
            o(f(r, &["lost"])),
            String::new(),
        ]));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// HTML

fn figure(svg: String, caption: &str) -> String {
    format!("<figure class=\"chart\">{svg}<figcaption>{}</figcaption></figure>\n", esc(caption))
}

fn us_fmt(v: f64) -> String {
    if v >= 100.0 {
        format!("{} µs", fixed(v, 0))
    } else {
        format!("{} µs", fixed(v, 1))
    }
}

fn mb_fmt(v: f64) -> String {
    format!("{} MB/s", fixed(v, if v >= 100.0 { 0 } else { 1 }))
}

/// Spread of the values: log axis when the largest is over `factor` × the smallest.
fn spans(values: &[Option<f64>], factor: f64) -> bool {
    let v: Vec<f64> = values.iter().flatten().copied().filter(|x| *x > 0.0).collect();
    let (lo, hi) = v.iter().fold((f64::INFINITY, 0.0f64), |(l, h), x| (l.min(*x), h.max(*x)));
    !v.is_empty() && hi > factor * lo
}

pub fn html_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let d = section(r)?;
    let sz = sizes(d);
    let cats: Vec<String> = sz.iter().map(|n| size_label(*n)).collect();
    let ms = marshals(d);
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<p class=\"intro\">A <code>KeyedOctets</code> sample (key string + payload octets, as in OpenDDSharp's benchmark) \
         marshalled with CDR (XCDR1, our <code>cdr</code> crate) or JSON (serde_json) travels as the baggage of ddsperf's \
         <code>KeyedSeq</code> topic through {}. Latency is half of a back-to-back ping-pong round trip between two processes, \
         from before marshalling to after unmarshalling, all round trips pooled; throughput counts N samples written flat out \
         until the reader has unmarshalled all of them. Cyclone's own <code>ddsperf</code> ran in the same run as the native anchor.</p>",
        esc(s(d, "transport"))
    );
    if !published(d, "latency_ms").is_empty() {
        let src = d.get("published").map(|p| s(p, "source")).unwrap_or("");
        let _ = writeln!(
            b,
            "<p class=\"legend-published\"><span class=\"swatch hatched\"></span><b>published</b>: figures printed in {} \
             (Apple M3, writer and reader in one process, one-way), not measured here; \
             <span class=\"swatch ours\"></span><b>ours (this host)</b>: this results file.</p>",
            esc(src)
        );
    }
    // Key line: the checks.
    let checks = arr(d, "checks");
    if !checks.is_empty() {
        let pass = checks.iter().filter(|c| c.get("pass").and_then(Value::as_bool) == Some(true)).count();
        let _ = writeln!(b, "<p class=\"keyline\">Must-hold checks against ddsperf: <b>{pass} of {}</b> pass.</p>", checks.len());
    }
    if let Some(t) = checks_table(d) {
        b.push_str(&table(&t));
    }
    // Latency per size.
    if !arr(d, "latency").is_empty() || !arr(d, "ddsperf_latency").is_empty() {
        let (series, all) = size_series(
            &ms,
            &sz,
            (|n, m| ours(d, "latency", n, m, &["half_rtt_us", "p50"]), " p50"),
            (|n| native(d, "ddsperf_latency", n, &["p50"]), "ddsperf p50"),
            (|n, method| seed_latency_us(d, n, method, "p50_ms"), " p50 (published)"),
        );
        b.push_str(&size_chart(
            BarChart::new(&ctx.chart_id("latency"), "Latency p50 per payload size", cats.clone())
                .axis_label("half round trip (seed: one-way), µs")
                .value_format(us_fmt),
            series,
            &all,
            ("Median over rounds of each run's pooled p50", ". The seed's figures are one-way inside one process on another machine: compare ratios, not bars."),
        ));
    }
    if let Some(t) = latency_table(d) {
        b.push_str(&table(&t));
    }
    // Throughput per size.
    if !arr(d, "throughput").is_empty() || !arr(d, "ddsperf_throughput").is_empty() {
        let (series, all) = size_series(
            &ms,
            &sz,
            (|n, m| ours(d, "throughput", n, m, &["mb_per_s"]), ""),
            (|n| native(d, "ddsperf_throughput", n, &["samples_per_s"]).map(|x| x * n as f64 / 1e6), "ddsperf"),
            (|n, method| seed_mb(d, n, method), " (published)"),
        );
        b.push_str(&size_chart(
            BarChart::new(&ctx.chart_id("throughput"), "Throughput per payload size", cats.clone())
                .axis_label("MB/s of payload (10⁶ B/s)")
                .value_format(mb_fmt),
            series,
            &all,
            ("Median over rounds. The seed printed MiB/s; converted to 10⁶ B/s here", "."),
        ));
    }
    if let Some(t) = throughput_table(d) {
        b.push_str(&table(&t));
    }
    // Latency CDF, first round, one chart per marshalling.
    let first_round = arr(d, "latency").iter().filter_map(|r| u(r, "round")).min();
    for (mi, m) in ms.iter().enumerate() {
        let runs: Vec<&Value> = arr(d, "latency")
            .iter()
            .filter(|r| s(r, "marshal") == m && u(r, "round") == first_round && !arr(r, "cdf").is_empty())
            .collect();
        if runs.is_empty() {
            continue;
        }
        let mut lc = LineChart::new(
            &ctx.chart_id(&format!("cdf-{mi}")),
            &format!("Latency CDF · {}", who(m)),
            "half round trip, µs",
            "% of round trips ≤ x",
        )
        .log_x(true)
        .y_range(0.0, 100.0)
        .size(560.0, 340.0);
        for (i, r) in runs.iter().enumerate() {
            let pts: Vec<(f64, f64)> =
                arr(r, "cdf").iter().filter_map(|p| Some((p.get(0)?.as_f64()?, p.get(1)?.as_f64()? * 100.0))).collect();
            lc = lc.line(Line::new(&size_label(u(r, "size").unwrap_or(0)), pts).step(true).color(color(i)));
        }
        b.push_str(&figure(lc.render(), "Every round trip of the first round, pooled; log x axis."));
    }
    for t in [marshal_table(d), ratio_table(d), native_table(d)].into_iter().flatten() {
        b.push_str(&table(&t));
    }
    let fails = failure_lines(d);
    if !fails.is_empty() {
        b.push_str("<p class=\"note\"><b>Failed runs</b></p>\n<ul>\n");
        for l in fails {
            let _ = writeln!(b, "<li>{}</li>", esc(&l));
        }
        b.push_str("</ul>\n");
    }
    let n = notes(d);
    if !n.is_empty() {
        b.push_str("<p class=\"note\"><b>About the seed's figures</b></p>\n<ul>\n");
        for l in n {
            let _ = writeln!(b, "<li>{}</li>", esc(&l));
        }
        b.push_str("</ul>\n");
    }
    let summary = format!(
        "{} latency and {} throughput runs of ours, {} ddsperf runs, sizes {}",
        arr(d, "latency").len(),
        arr(d, "throughput").len(),
        arr(d, "ddsperf_latency").len() + arr(d, "ddsperf_throughput").len(),
        if cats.is_empty() { "-".into() } else { cats.join(", ") }
    );
    Some(Section { title: "DDS: latency and throughput, CDR vs JSON (seed 004)".into(), summary, body: b })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wirebench_core::results::{Machine, Provenance};

    fn results() -> Results {
        let prov = Provenance {
            wirebench_version: "0".into(),
            git_commit: "x".into(),
            rustc: "r".into(),
            crates: vec![],
            machine: Machine {
                cpu_model: "c".into(),
                cores: 2,
                kernel: "k".into(),
                os: "o".into(),
                arch: "a".into(),
            },
            command: vec![],
            started_at: "t".into(),
            seed: 0,
        };
        let mut r = Results::new(prov, json!({}));
        let lat = |m: &str, p50: f64| {
            json!({"round": 1, "size": 2048, "marshal": m, "wire_bytes": 2076,
                   "half_rtt_us": {"count": 100, "avg": p50, "stddev": 1.0, "min": 1.0, "p50": p50, "p90": p50 * 1.1, "p99": p50 * 2.0, "max": p50 * 3.0},
                   "cdf": [[p50 * 0.5, 0.01], [p50, 0.5], [p50 * 3.0, 1.0]], "allocs_per_sample": 2.0})
        };
        r.dds = Some(
            json!({
                "transport": "Cyclone DDS 0.10.2 <lo>",
                "latency": [lat("cdr", 20.0), lat("json", 60.0)],
                "throughput": [{"round": 1, "size": 2048, "marshal": "cdr", "samples_per_s": 100000.0, "mb_per_s": 204.8, "received": 10, "sent": 10, "lost": 0, "allocs_per_sample": 2.0}],
                "ddsperf_latency": [{"round": 1, "size": 2060, "p50": 10.0, "p90": 11.0, "p99": 12.0, "mean": 10.5, "max": 100.0, "round_trips": 1000}],
                "ddsperf_throughput": [{"round": 1, "size": 2060, "samples_per_s": 150000.0, "total": 600000, "lost": 0}],
                "marshal": [{"size": 2048, "marshal": "cdr", "bytes": 2064, "encode_ns": 100.0, "decode_ns": 150.0},
                            {"size": 2048, "marshal": "json", "bytes": 7400, "encode_ns": 5000.0, "decode_ns": 9000.0}],
                "ratios": [{"size": 2048, "marshal_bytes": 3.6, "marshal_encode": 50.0, "marshal_decode": 60.0, "marshal_round_trip": 56.0, "latency_p50": 3.0, "throughput": null}],
                "checks": [{"name": "latency p50 within 2x of ddsperf at 2 KB", "round": 1, "ours": 20.0, "ddsperf": 10.0, "unit": "us", "ratio": 2.0, "limit": 2.0, "pass": true},
                           {"name": "throughput at least 0.5x of ddsperf at 2 KB", "round": 1, "ours": 100000.0, "ddsperf": 150000.0, "unit": "samples/s", "ratio": 0.67, "limit": 0.5, "pass": true}],
                "failures": [{"round": 1, "what": "throughput", "size": 2048, "marshal": "json", "error": "timed out <x>"}],
                "published": {"source": "seed <src>", "latency_ms": [
                    {"method": "OpenDDS Native", "size": 2048, "avg_ms": 0.0769, "std_ms": 0.0019, "min_ms": 0.0681, "max_ms": 0.0878, "p50_ms": 0.0755, "p90_ms": 0.0767, "p99_ms": 0.0760},
                    {"method": "OpenDDSharp CDR", "size": 2048, "avg_ms": 0.0808, "std_ms": 0.0067, "min_ms": 0.075, "max_ms": 0.259, "p50_ms": 0.082, "p90_ms": 0.083, "p99_ms": 0.080},
                    {"method": "OpenDDSharp JSON", "size": 2048, "avg_ms": 0.1956, "std_ms": 0.0081, "min_ms": 0.182, "max_ms": 0.307, "p50_ms": 0.194, "p90_ms": 0.203, "p99_ms": 0.196}],
                  "throughput": [{"method": "OpenDDS Native", "size": 2048, "samples": 10000, "mean_ms": 398.7, "mib_per_s": 48.988},
                                 {"method": "OpenDDSharp CDR", "size": 2048, "samples": 10000, "mean_ms": 408.8, "mib_per_s": 47.780},
                                 {"method": "OpenDDSharp JSON", "size": 2048, "samples": 10000, "mean_ms": 756.2, "mib_per_s": 25.826}],
                  "notes": ["percentiles <not monotonic>"]},
            }),
        );
        r
    }

    #[test]
    fn text_has_ours_ddsperf_and_the_seed_side_by_side() {
        let t = render(&results(), Output::Table);
        assert!(t.contains("DDS latency and throughput, CDR vs JSON (seed 004)"), "{t}");
        assert!(t.contains("ours CDR") && t.contains("ours JSON") && t.contains("ddsperf") && t.contains("seed native (published)"), "{t}");
        // The seed's MiB/s converted to 10^6 B/s: 48.988 MiB/s = 51.4 MB/s.
        assert!(t.contains("51.4"), "{t}");
        // CDR / native: ours 20 / 10 = 2.00, seed 82 / 75.5 = 1.09.
        assert!(t.contains("2.00") && t.contains("1.09"), "{t}");
        // JSON / CDR latency of the seed: 194 / 82 = 2.37.
        assert!(t.contains("2.37"), "{t}");
        assert!(t.contains("pass") && !t.contains("FAIL"));
        assert!(t.contains("Failed runs") && t.contains("timed out <x>"));
        let md = render(&results(), Output::Markdown);
        assert!(md.starts_with("## DDS latency") && md.contains("| size |"), "{md}");
    }

    #[test]
    fn csv_has_one_record_per_run() {
        let c = render(&results(), Output::Csv);
        let lines: Vec<&str> = c.lines().collect();
        assert_eq!(lines.len(), 1 + 2 + 1 + 1 + 1, "{c}");
        assert!(lines[0].starts_with("kind,round,size,who"));
        assert!(c.contains("throughput,1,2048,ddsperf,2060"), "{c}");
    }

    #[test]
    fn html_section_is_self_contained_escaped_and_deterministic() {
        let r = results();
        let ctx = Ctx { id: "dds".into(), file: 1, files: 1 };
        let s = html_section(&r, &ctx).unwrap();
        assert_eq!(s.body, html_section(&r, &ctx).unwrap().body);
        let b = &s.body;
        assert!(b.contains("id=\"dds-latency\"") && b.contains("id=\"dds-throughput\"") && b.contains("id=\"dds-cdf-0\""), "{b}");
        assert!(b.contains("seed native p50 (published)") && b.contains("ddsperf p50"));
        assert!(b.contains("&lt;lo&gt;") && b.contains("&lt;not monotonic&gt;"), "results text is escaped");
        assert!(!b.contains("<script") && !b.contains("http://") && !b.contains("https://"));
        assert!(s.summary.contains("2 latency and 1 throughput runs"), "{}", s.summary);
    }

    #[test]
    fn nothing_without_the_section() {
        let mut r = results();
        r.dds = None;
        assert_eq!(render(&r, Output::Table), "");
        assert!(html_section(&r, &Ctx { id: "dds".into(), file: 1, files: 1 }).is_none());
    }
}

/// A per-size bar chart with its series (ours, ddsperf, the seed's hatched), on a log axis when
/// the values span more than 8×, in a figure whose caption is `caption.0` + the axis note +
/// `caption.1`.
/// The bars of a per-size chart and every value in them (for the axis): ours per marshalling
/// (always), ddsperf's and the seed's published ones (hatched) where there are any. Each part
/// is a value per (size[, marshalling or seed method]) and a label suffix (ddsperf: the label).
fn size_series(
    ms: &[String],
    sz: &[u64],
    ours: (impl Fn(u64, &str) -> Option<f64>, &str),
    native: (impl Fn(u64) -> Option<f64>, &str),
    published: (impl Fn(u64, &str) -> Option<f64>, &str),
) -> (Vec<Bars>, Vec<Option<f64>>) {
    let mut series: Vec<Bars> = Vec::new();
    let mut all: Vec<Option<f64>> = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        let v: Vec<Option<f64>> = sz.iter().map(|n| ours.0(*n, m)).collect();
        all.extend(v.iter().copied());
        series.push(Bars::new(&format!("{}{}", who(m), ours.1), v).color(color(i)));
    }
    let nat: Vec<Option<f64>> = sz.iter().map(|n| native.0(*n)).collect();
    if nat.iter().any(Option::is_some) {
        all.extend(nat.iter().copied());
        series.push(Bars::new(native.1, nat).color(NATIVE));
    }
    for (method, label, col) in seed_series() {
        let v: Vec<Option<f64>> = sz.iter().map(|n| published.0(*n, method)).collect();
        if v.iter().any(Option::is_some) {
            all.extend(v.iter().copied());
            series.push(Bars::new(&format!("{label}{}", published.1), v).hatched(true).color(col));
        }
    }
    (series, all)
}

fn size_chart(chart: BarChart, series: Vec<Bars>, all: &[Option<f64>], caption: (&str, &str)) -> String {
    let log = spans(all, 8.0);
    let mut chart = chart.log(log).missing_label("not run");
    for sr in series {
        chart = chart.series(sr);
    }
    figure(chart.render(), &format!("{}{}{}", caption.0, if log { "; log axis" } else { "" }, caption.1))
}
