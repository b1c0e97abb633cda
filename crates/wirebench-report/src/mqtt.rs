//! The `mqtt` results section (OPC UA PubSub over MQTT, seed 000): terminal/Markdown/CSV text
//! and the HTML section.
//!
//! The section is written by `wirebench mqtt ...` and the `[mqtt]` study part. Its parts are
//! all optional; each renderer shows what is there:
//!
//! - `sizes`: `{format, fields, bytes, round_trip}` per format × field count, `formats`
//!   (id, description), `layout` (the seed layout's bytes part by part, 39 + 5N, the thesis's
//!   sizes and why they cannot be right), `codec` (encode/decode ns and allocations per message);
//! - `throughput`: ours and the bare rumqttc pair (msgs/s, delivery, allocations per message);
//! - `rtt`: pooled percentiles and a CDF per side;
//! - `published` (the thesis's figures with their citation), `comparison` (thesis beside ours),
//!   `notes`, `brokers`.
//!
//! Everything comes from the results; nothing is measured or looked up here.

use std::fmt::Write;

use serde_json::Value;
use wirebench_core::results::Results;

use crate::csv::record;
use crate::html::{table, Ctx, Section};
use crate::svg::{color, esc, fixed, BarChart, Bars, Line, LineChart};
use crate::table::Table;
use crate::Output;
use crate::json::{arr, f64_at, str_at};

/// Colour of figures printed in the seed report (not measured here).
const PUBLISHED: &str = "#D55E00";

fn section(r: &Results) -> Option<&Value> {
    r.mqtt.as_ref().filter(|v| v.is_object())
}

/// `v[key]` unless it is missing or null.
fn obj<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|x| !x.is_null())
}

fn num(v: Option<f64>, decimals: usize) -> String {
    v.map(|x| fixed(x, decimals)).unwrap_or_else(|| "-".into())
}

fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{} %", fixed(100.0 * x, 1))).unwrap_or_else(|| "-".into())
}

fn int(v: Option<f64>) -> String {
    v.map(|x| format!("{}", x.round() as i64)).unwrap_or_else(|| "-".into())
}

/// The format ids in the order they appear in `sizes`.
fn size_formats(s: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in arr(s, "sizes") {
        let f = str_at(r, "format").to_string();
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

fn size_fields(s: &Value) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for r in arr(s, "sizes") {
        if let Some(n) = r.get("fields").and_then(Value::as_u64) {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out.sort_unstable();
    out
}

fn size_of(s: &Value, format: &str, fields: u64) -> Option<f64> {
    arr(s, "sizes")
        .iter()
        .find(|r| str_at(r, "format") == format && r.get("fields").and_then(Value::as_u64) == Some(fields))
        .and_then(|r| r.get("bytes")?.as_f64())
}

/// Published sizes: (fields, json, uadp).
fn published_sizes(s: &Value) -> Vec<(u64, f64, f64)> {
    let rows = obj(s, "published").and_then(|p| obj(p, "sizes")).map(|x| arr(x, "rows")).unwrap_or(&[]);
    rows.iter()
        .filter_map(|r| Some((r.get("fields")?.as_u64()?, r.get("json_bytes")?.as_f64()?, r.get("uadp_bytes")?.as_f64()?)))
        .collect()
}

fn citation(s: &Value) -> Option<&str> {
    obj(s, "published").and_then(|p| p.get("citation")).and_then(Value::as_str)
}

// ---------------------------------------------------------------------------------------------
// Tables

/// Bytes per format (rows) × field count (columns), with the thesis's figures as extra rows.
pub fn sizes_table(s: &Value) -> Option<Table> {
    let fields = size_fields(s);
    if fields.is_empty() {
        return None;
    }
    let heads: Vec<String> = fields.iter().map(|n| format!("{n} f")).collect();
    let mut h: Vec<&str> = vec!["format"];
    h.extend(heads.iter().map(String::as_str));
    let mut t = Table::new("NetworkMessage size (bytes) by field count", &h).numeric_from(1);
    for f in size_formats(s) {
        let mut row = vec![f.clone()];
        for &n in &fields {
            let ok = arr(s, "sizes").iter().any(|r| {
                str_at(r, "format") == f
                    && r.get("fields").and_then(Value::as_u64) == Some(n)
                    && r.get("round_trip").and_then(Value::as_bool) == Some(true)
            });
            let v = size_of(s, &f, n);
            row.push(match v {
                Some(b) if ok => int(Some(b)),
                Some(b) => format!("{}!", int(Some(b))),
                None => "-".into(),
            });
        }
        t.push(row);
    }
    let pubs = published_sizes(s);
    if !pubs.is_empty() {
        for (label, pick) in [("thesis UADP (published)", 2usize), ("thesis JSON (published)", 1)] {
            let mut row = vec![label.to_string()];
            for &n in &fields {
                let v = pubs.iter().find(|p| p.0 == n).map(|p| if pick == 2 { p.2 } else { p.1 });
                row.push(int(v));
            }
            t.push(row);
        }
    }
    Some(t)
}

pub fn layout_table(s: &Value) -> Option<Table> {
    let l = obj(s, "layout")?;
    let mut t = Table::new(
        &format!("Seed layout before the fields: {} bytes, then {} per field", int(f64_at(l, &["header_bytes"])), int(f64_at(l, &["per_field_bytes"]))),
        &["offset", "bytes", "part", "content"],
    )
    .numeric_from(0);
    t.numeric[2] = false;
    t.numeric[3] = false;
    for p in arr(l, "parts") {
        t.push(vec![int(f64_at(p, &["offset"])), int(f64_at(p, &["bytes"])), str_at(p, "part").into(), str_at(p, "note").into()]);
    }
    Some(t)
}

fn layout_lines(s: &Value) -> Vec<String> {
    obj(s, "layout").map(|l| arr(l, "explanation").iter().filter_map(Value::as_str).map(String::from).collect()).unwrap_or_default()
}

pub fn codec_table(s: &Value) -> Option<Table> {
    let rows = arr(s, "codec");
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Encode / decode per message (our uadp crate)",
        &["format", "fields", "bytes", "encode ns", "decode ns", "enc allocs", "enc alloc B", "dec allocs", "dec alloc B"],
    )
    .numeric_from(1);
    for r in rows {
        t.push(vec![
            str_at(r, "format").into(),
            int(f64_at(r, &["fields"])),
            int(f64_at(r, &["bytes"])),
            num(f64_at(r, &["encode_ns"]), 0),
            num(f64_at(r, &["decode_ns"]), 0),
            num(f64_at(r, &["encode_allocs"]), 1),
            num(f64_at(r, &["encode_alloc_bytes"]), 0),
            num(f64_at(r, &["decode_allocs"]), 1),
            num(f64_at(r, &["decode_alloc_bytes"]), 0),
        ]);
    }
    Some(t)
}

fn ended(side: &Value) -> String {
    let mut v: Vec<&str> = arr(side, "ended_by").iter().filter_map(Value::as_str).collect();
    v.dedup();
    v.join(",")
}

pub fn throughput_table(s: &Value) -> Option<Table> {
    let rows = arr(s, "throughput");
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Throughput: 1 publisher → broker → 1 subscriber (msgs/s at the subscriber, median of reps)",
        &[
            "broker", "payload", "B", "QoS", "msgs×reps", "ours msgs/s", "ours delivery", "lost", "dup", "reord",
            "bare msgs/s", "bare delivery", "ours/bare", "range", "≥ goal", "allocs/msg ours", "bare", "ended",
        ],
    )
    .numeric_from(2);
    t.numeric[17] = false;
    for r in rows {
        let o = &r["ours"];
        let b = r.get("bare").filter(|b| !b.is_null());
        let range = match (f64_at(r, &["ratio_min"]), f64_at(r, &["ratio_max"])) {
            (Some(a), Some(z)) => format!("{}–{}", fixed(a, 2), fixed(z, 2)),
            _ => "-".into(),
        };
        t.push(vec![
            str_at(r, "broker").into(),
            str_at(r, "payload").into(),
            int(f64_at(r, &["payload_bytes"])),
            int(f64_at(r, &["qos"])),
            format!("{}×{}", int(f64_at(r, &["messages"])), int(f64_at(r, &["reps"]))),
            num(f64_at(o, &["msgs_per_s"]), 0),
            pct(f64_at(o, &["delivery_ratio"])),
            int(f64_at(o, &["lost"])),
            int(f64_at(o, &["duplicates"])),
            int(f64_at(o, &["reordered"])),
            b.map_or("-".into(), |b| num(f64_at(b, &["msgs_per_s"]), 0)),
            b.map_or("-".into(), |b| pct(f64_at(b, &["delivery_ratio"]))),
            num(f64_at(r, &["ratio"]), 2),
            range,
            match r.get("meets_goal").and_then(Value::as_bool) {
                Some(true) => "yes".into(),
                Some(false) => "NO".into(),
                None => "-".into(),
            },
            num(f64_at(o, &["allocs_per_msg"]), 1),
            b.map_or("-".into(), |b| num(f64_at(b, &["allocs_per_msg"]), 1)),
            ended(o),
        ]);
    }
    Some(t)
}

pub fn rtt_table(s: &Value) -> Option<Table> {
    let rows = arr(s, "rtt");
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Echo RTT (µs): pinger → broker → echo → broker → pinger, pooled over reps",
        &[
            "broker", "payload", "QoS", "samples", "p50", "p90", "p99", "max", "delivery", "bare p50", "bare p99",
            "bare max", "ours/bare p50", "≤ goal", "stall",
        ],
    )
    .numeric_from(2);
    t.numeric[14] = false;
    for r in rows {
        let o = &r["ours"];
        let b = r.get("bare").filter(|b| !b.is_null());
        let stall = [Some(o), b].into_iter().flatten().filter_map(|x| x.get("stall")?.as_str()).next().unwrap_or("none");
        t.push(vec![
            str_at(r, "broker").into(),
            str_at(r, "payload").into(),
            int(f64_at(r, &["qos"])),
            int(f64_at(o, &["rtt", "count"])),
            num(f64_at(o, &["rtt", "p50_us"]), 1),
            num(f64_at(o, &["rtt", "p90_us"]), 1),
            num(f64_at(o, &["rtt", "p99_us"]), 1),
            num(f64_at(o, &["rtt", "max_us"]), 1),
            pct(f64_at(o, &["delivery_ratio"])),
            b.map_or("-".into(), |b| num(f64_at(b, &["rtt", "p50_us"]), 1)),
            b.map_or("-".into(), |b| num(f64_at(b, &["rtt", "p99_us"]), 1)),
            b.map_or("-".into(), |b| num(f64_at(b, &["rtt", "max_us"]), 1)),
            num(f64_at(r, &["ratio"]), 2),
            match r.get("meets_goal").and_then(Value::as_bool) {
                Some(true) => "yes".into(),
                Some(false) => "NO".into(),
                None => "-".into(),
            },
            stall.into(),
        ]);
    }
    Some(t)
}

pub fn comparison_table(s: &Value) -> Option<Table> {
    let rows = arr(s, "comparison");
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new("The thesis (published) beside ours", &["figure", "unit", "thesis", "ours", "note"]).numeric_from(2);
    t.numeric[4] = false;
    for r in rows {
        let d = |k: &str| {
            let v = f64_at(r, &[k]);
            match v {
                Some(x) if x.fract() == 0.0 && x.abs() < 1e9 => int(Some(x)),
                Some(x) if x.abs() >= 1000.0 => num(Some(x), 0),
                Some(x) if x.abs() >= 100.0 => num(Some(x), 1),
                other => num(other, 2),
            }
        };
        t.push(vec![str_at(r, "what").into(), str_at(r, "unit").into(), d("thesis"), d("ours"), str_at(r, "note").into()]);
    }
    Some(t)
}

/// Errors and warnings of the transport runs, each prefixed with its case.
fn problems(s: &Value) -> Vec<String> {
    let (mut e, w) = problems_split(s);
    e.extend(w);
    e
}

/// (errors, warnings) of the transport runs.
fn problems_split(s: &Value) -> (Vec<String>, Vec<String>) {
    let (mut errs, mut warns) = (Vec::new(), Vec::new());
    for (kind, key) in [("throughput", "throughput"), ("rtt", "rtt")] {
        for r in arr(s, key) {
            for side in ["ours", "bare"] {
                let Some(x) = r.get(side).filter(|x| !x.is_null()) else { continue };
                for list in ["errors", "warnings"] {
                    let out = if list == "errors" { &mut errs } else { &mut warns };
                    for e in arr(x, list).iter().filter_map(Value::as_str) {
                        out.push(format!(
                            "{kind} {} · {} · QoS {} · {side}: {e}",
                            str_at(r, "broker"),
                            str_at(r, "payload"),
                            int(f64_at(r, &["qos"]))
                        ));
                    }
                }
            }
        }
    }
    (errs, warns)
}

/// Render the mqtt section of a results file (empty when there is none).
pub fn render(r: &Results, output: Output) -> String {
    let Some(s) = section(r) else {
        return String::new();
    };
    match output {
        Output::Json => serde_json::to_string_pretty(s).unwrap_or_default() + "\n",
        Output::Csv => csv(s),
        Output::Table | Output::Markdown => {
            let md = output == Output::Markdown;
            let tab = |t: &Table| if md { t.to_markdown() } else { t.to_text() };
            let bullet = if md { "- " } else { "  " };
            let mut out = String::new();
            out.push_str(if md { "## OPC UA PubSub over MQTT (seed 000)\n\n" } else { "OPC UA PubSub over MQTT (seed 000)\n\n" });
            let mut first = true;
            let mut block = |out: &mut String, text: String| {
                if !first {
                    out.push('\n');
                }
                first = false;
                out.push_str(&text);
            };
            if let Some(t) = sizes_table(s) {
                let mut b = tab(&t);
                b.push_str(if md { "\n`!` did not decode back to the message encoded\n" } else { "! did not decode back to the message encoded\n" });
                block(&mut out, b);
            }
            if let Some(t) = layout_table(s) {
                let mut b = tab(&t);
                let lines = layout_lines(s);
                if !lines.is_empty() {
                    b.push_str(if md { "\n**Why not 38/48/58/83**\n\n" } else { "\nWhy not 38/48/58/83\n" });
                    for l in lines {
                        let _ = writeln!(b, "{bullet}{l}");
                    }
                }
                block(&mut out, b);
            }
            for t in [codec_table(s), throughput_table(s), rtt_table(s), comparison_table(s)].into_iter().flatten() {
                block(&mut out, tab(&t));
            }
            let probs = problems(s);
            if !probs.is_empty() {
                let mut b = String::from(if md { "**Errors and warnings**\n\n" } else { "Errors and warnings\n" });
                for p in probs {
                    let _ = writeln!(b, "{bullet}{p}");
                }
                block(&mut out, b);
            }
            let notes: Vec<&str> = arr(s, "notes").iter().filter_map(Value::as_str).collect();
            if !notes.is_empty() || citation(s).is_some() {
                let mut b = String::from(if md { "**Notes**\n\n" } else { "Notes\n" });
                for n in notes {
                    let _ = writeln!(b, "{bullet}{n}");
                }
                if let Some(c) = citation(s) {
                    let _ = writeln!(b, "{bullet}Published figures: {c}.");
                }
                block(&mut out, b);
            }
            out
        }
    }
}

/// Long-form CSV: one row per figure.
fn csv(s: &Value) -> String {
    let mut out = record(&["table", "broker", "payload", "format", "fields", "qos", "side", "metric", "value"]);
    let mut row = |t: &str, broker: &str, payload: &str, format: &str, fields: String, qos: String, side: &str, metric: &str, v: Option<f64>| {
        if let Some(v) = v {
            out.push_str(&record(&[t, broker, payload, format, &fields, &qos, side, metric, &format!("{v}")]));
        }
    };
    for r in arr(s, "sizes") {
        row("sizes", "", "", str_at(r, "format"), int(f64_at(r, &["fields"])), String::new(), "ours", "bytes", f64_at(r, &["bytes"]));
    }
    for (n, j, u) in published_sizes(s) {
        row("sizes", "", "", "uadp", n.to_string(), String::new(), "thesis", "bytes", Some(u));
        row("sizes", "", "", "json", n.to_string(), String::new(), "thesis", "bytes", Some(j));
    }
    for r in arr(s, "codec") {
        for m in ["encode_ns", "decode_ns", "encode_allocs", "encode_alloc_bytes", "decode_allocs", "decode_alloc_bytes"] {
            row("codec", "", "", str_at(r, "format"), int(f64_at(r, &["fields"])), String::new(), "ours", m, f64_at(r, &[m]));
        }
    }
    for r in arr(s, "throughput") {
        let (b, p, f) = (str_at(r, "broker"), str_at(r, "payload"), str_at(r, "format"));
        let (n, q) = (int(f64_at(r, &["fields"])), int(f64_at(r, &["qos"])));
        for side in ["ours", "bare"] {
            let Some(x) = r.get(side).filter(|x| !x.is_null()) else { continue };
            for m in ["msgs_per_s", "publisher_msgs_per_s", "mb_per_s", "sent", "received", "lost", "duplicates", "reordered", "delivery_ratio", "allocs_per_msg"] {
                row("throughput", b, p, f, n.clone(), q.clone(), side, m, f64_at(x, &[m]));
            }
        }
        row("throughput", b, p, f, n.clone(), q.clone(), "ratio", "ours_over_bare", f64_at(r, &["ratio"]));
    }
    for r in arr(s, "rtt") {
        let (b, p, f) = (str_at(r, "broker"), str_at(r, "payload"), str_at(r, "format"));
        let (n, q) = (int(f64_at(r, &["fields"])), int(f64_at(r, &["qos"])));
        for side in ["ours", "bare"] {
            let Some(x) = r.get(side).filter(|x| !x.is_null()) else { continue };
            for m in ["count", "p50_us", "p90_us", "p99_us", "p999_us", "max_us", "mean_us"] {
                row("rtt", b, p, f, n.clone(), q.clone(), side, m, f64_at(x, &["rtt", m]));
            }
            for m in ["sent", "received", "lost", "delivery_ratio"] {
                row("rtt", b, p, f, n.clone(), q.clone(), side, m, f64_at(x, &[m]));
            }
        }
        row("rtt", b, p, f, n.clone(), q.clone(), "ratio", "p50_ours_over_bare", f64_at(r, &["ratio"]));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// HTML

/// Palette colour `i`, skipping the one reserved for published figures.
fn format_color(i: usize) -> &'static str {
    let c = color(i);
    if c == PUBLISHED {
        color(i + 3)
    } else {
        c
    }
}

/// A short chart label for a transport case: `mosquitto · uadp-json-dv 3f · QoS 1`.
fn short_case(r: &Value) -> String {
    let broker = str_at(r, "broker").split_whitespace().next().unwrap_or("");
    let payload = match f64_at(r, &["fields"]) {
        Some(n) => format!("{} {}f", str_at(r, "format"), fixed(n, 0)),
        None => str_at(r, "payload").to_string(),
    };
    format!("{broker} · {payload} · QoS {}", int(f64_at(r, &["qos"])))
}

fn figure(svg: String, caption: &str) -> String {
    format!("<figure class=\"chart\">{svg}<figcaption>{}</figcaption></figure>\n", esc(caption))
}

fn bytes_label(v: f64) -> String {
    format!("{} B", fixed(v, 0))
}

fn rate_label(v: f64) -> String {
    crate::svg::compact(v, 0)
}

/// The HTML section: sizes (chart with the thesis's figures hatched, the layout note),
/// throughput with delivery, RTT CDFs, the side-by-side table.
pub fn html_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = section(r)?;
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<p class=\"intro\">OPC UA PubSub NetworkMessages (UADP binary and the JSON mapping) built by our <code>uadp</code> crate, \
         each decoded back before use, sent through MQTT brokers on this host. Ours are the wirebench measuring clients; \
         the bare pair is the minimal rumqttc code a user would write, interleaved with ours through the same broker.</p>"
    );
    if let Some(c) = citation(s) {
        let _ = writeln!(
            b,
            "<p class=\"legend-published\"><span class=\"swatch hatched\"></span><b>published</b>: figures printed in {} \
             (ESP32 over Wi-Fi), not measured here; <span class=\"swatch ours\"></span><b>ours (this host)</b>: this results file.</p>",
            esc(c)
        );
    }
    // Key line.
    let fields = size_fields(s);
    let seed_sizes: Vec<String> = fields.iter().filter_map(|&n| size_of(s, "uadp", n)).map(|v| fixed(v, 0)).collect();
    let pubs = published_sizes(s);
    if !seed_sizes.is_empty() {
        let formula = obj(s, "layout").map(|l| str_at(l, "formula")).unwrap_or("");
        let thesis: Vec<String> = pubs.iter().map(|p| fixed(p.2, 0)).collect();
        let _ = writeln!(
            b,
            "<p class=\"keyline\">UADP with the thesis's header options: <b>{} B</b>{} · the thesis printed {} B{}</p>",
            seed_sizes.join(" / "),
            if formula.is_empty() { String::new() } else { format!(" ({})", esc(formula)) },
            if thesis.is_empty() { "-".into() } else { thesis.join(" / ") },
            if thesis.is_empty() { "" } else { " — 6 bytes short of the layout it states (see below)" }
        );
    }
    // Size chart: UADP seed layout ours vs published, per field count.
    if !fields.is_empty() {
        let cats: Vec<String> = fields.iter().map(|n| format!("{n} field{}", if *n == 1 { "" } else { "s" })).collect();
        let mut chart = BarChart::new(&ctx.chart_id("uadp-size"), "UADP NetworkMessage size: ours vs the thesis", cats.clone())
            .axis_label("bytes per NetworkMessage (MQTT payload)")
            .value_format(bytes_label);
        let formats = size_formats(s);
        for (si, f) in formats.iter().filter(|f| !f.contains("json")).enumerate() {
            chart = chart.series(Bars::new(&format!("{f} (ours)"), fields.iter().map(|&n| size_of(s, f, n)).collect()).color(format_color(si)));
            if f == "uadp" && !pubs.is_empty() {
                chart = chart.series(
                    Bars::new("thesis UADP (published)", fields.iter().map(|&n| pubs.iter().find(|p| p.0 == n).map(|p| p.2)).collect())
                        .hatched(true)
                        .color(PUBLISHED),
                );
            }
        }
        b.push_str(&figure(
            chart.render(),
            "Bytes of each NetworkMessage as encoded by our uadp crate and checked to decode back. The hatched bars are the thesis's size table; they are 6 bytes below the layout the thesis states at every field count.",
        ));
        // All formats over field count (log y: JSON is ~10× UADP).
        let mut lc = LineChart::new(&ctx.chart_id("all-sizes"), "Size vs field count, every format", "fields per message", "bytes")
            .log_y(true);
        for (i, f) in formats.iter().enumerate() {
            let pts: Vec<(f64, f64)> = fields.iter().filter_map(|&n| Some((n as f64, size_of(s, f, n)?))).collect();
            lc = lc.line(Line::new(f, pts).markers(true).color(format_color(i)));
        }
        if !pubs.is_empty() {
            lc = lc.line(Line::new("thesis UADP (published)", pubs.iter().map(|p| (p.0 as f64, p.2)).collect()).dashed(true).markers(true).color(PUBLISHED));
            lc = lc.line(Line::new("thesis JSON (published)", pubs.iter().map(|p| (p.0 as f64, p.1)).collect()).dashed(true).markers(true).color("#000000"));
        }
        b.push_str(&figure(lc.render(), "Every format grows linearly with the field count; the JSON forms cost 10–70 bytes per field, UADP 4–5."));
    }
    if let Some(t) = sizes_table(s) {
        b.push_str(&table(&t));
    }
    if let Some(t) = layout_table(s) {
        b.push_str("<h3>Why 38 / 48 / 58 / 83 bytes cannot be right</h3>\n");
        let lines = layout_lines(s);
        if !lines.is_empty() {
            b.push_str("<div class=\"warn\" role=\"note\"><ul>");
            for l in lines {
                let _ = write!(b, "<li>{}</li>", esc(&l));
            }
            b.push_str("</ul></div>\n");
        }
        b.push_str(&table(&t));
    }
    if let Some(t) = codec_table(s) {
        b.push_str("<h3>Encoding cost per message</h3>\n");
        b.push_str(&table(&t));
    }
    // Throughput.
    let thr = arr(s, "throughput");
    if !thr.is_empty() {
        b.push_str("<h3>Throughput with delivery</h3>\n");
        let cats: Vec<String> = thr.iter().map(short_case).collect();
        let ours: Vec<Option<f64>> = thr.iter().map(|r| f64_at(r, &["ours", "msgs_per_s"])).collect();
        let bare: Vec<Option<f64>> = thr.iter().map(|r| f64_at(r, &["bare", "msgs_per_s"])).collect();
        let mut chart = BarChart::new(&ctx.chart_id("throughput"), "Messages per second at the subscriber", cats.clone())
            .series(Bars::new("ours", ours).color(color(0)))
            .axis_label("msgs/s (median of repetitions)")
            .value_format(rate_label)
            .missing_label("not run");
        if bare.iter().any(Option::is_some) {
            chart = chart.series(Bars::new("bare rumqttc pair", bare).color(color(1)));
        }
        b.push_str(&figure(
            chart.render(),
            "One publisher and one subscriber on one topic; every message carries a sequence number, so losses, duplicates and reordering are counted (table). The thesis's 126.9 (JSON) and 299.4 (UADP) msgs/s were an ESP32 over Wi-Fi and are not comparable with a PC on loopback.",
        ));
        let ratios: Vec<Option<f64>> = thr.iter().map(|r| f64_at(r, &["ratio"])).collect();
        if ratios.iter().any(Option::is_some) {
            let goal = thr.iter().find_map(|r| f64_at(r, &["goal"])).unwrap_or(0.8);
            let rc = BarChart::new(&ctx.chart_id("throughput-ratio"), "Ours ÷ bare rumqttc pair (msgs/s)", cats)
                .series(Bars::new("ours / bare", ratios).color(color(2)))
                .base(1.0)
                .reference(goal, &format!("goal ≥ {}", fixed(goal, 2)))
                .axis_label("ratio (1 = as fast as the bare pair)")
                .value_format(|v| format!("{}×", fixed(v, 2)));
            b.push_str(&figure(rc.render(), "Median of the per-pair ratios; pairs are interleaved (A B B A …) so drift of a shared machine hits both alike."));
        }
        if let Some(t) = throughput_table(s) {
            b.push_str(&table(&t));
        }
    }
    // RTT.
    let rtt = arr(s, "rtt");
    if !rtt.is_empty() {
        b.push_str("<h3>Echo round trip</h3>\n");
        // One CDF per (broker, QoS): ours and bare for each payload.
        let mut groups: Vec<(String, String)> = Vec::new();
        for r in rtt {
            let g = (str_at(r, "broker").to_string(), int(f64_at(r, &["qos"])));
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
        let mut items = Vec::new();
        for (gi, (broker, qos)) in groups.iter().enumerate() {
            let mut lc = LineChart::new(
                &ctx.chart_id(&format!("rtt-cdf-{gi}")),
                &format!("RTT CDF · {broker} · QoS {qos}"),
                "round trip, µs",
                "% of samples ≤ x",
            )
            .log_x(true)
            .y_range(0.0, 100.0)
            .size(560.0, 340.0);
            let mut li = 0;
            for r in rtt.iter().filter(|r| str_at(r, "broker") == broker && int(f64_at(r, &["qos"])) == *qos) {
                for (side, dashed) in [("ours", false), ("bare", true)] {
                    let Some(x) = r.get(side).filter(|x| !x.is_null()) else { continue };
                    let pts: Vec<(f64, f64)> = arr(x, "cdf")
                        .iter()
                        .filter_map(|p| Some((p.get(0)?.as_f64()?, p.get(1)?.as_f64()?)))
                        .collect();
                    if pts.is_empty() {
                        continue;
                    }
                    let name = format!("{} · {}", str_at(r, "payload"), if side == "ours" { "ours" } else { "bare" });
                    lc = lc.line(Line::new(&name, pts).step(true).dashed(dashed).color(color(li / 2)));
                    li += 1;
                }
            }
            items.push(figure(lc.render(), "Pooled over every repetition; solid = ours, dashed = the bare echo pair."));
        }
        let _ = writeln!(b, "<div class=\"grid2\">\n{}</div>", items.concat());
        if let Some(t) = rtt_table(s) {
            b.push_str(&table(&t));
        }
        let _ = writeln!(
            b,
            "<p class=\"note\">The thesis reports 120.8 ms (JSON) and 125.5 ms (UADP) mean RTT over 30 samples: an ESP32 on Wi-Fi. \
             On loopback a round trip is well under a millisecond; RTT modes near 40/44/88 ms would mean Nagle + delayed ACK and are flagged.</p>"
        );
    }
    if let Some(t) = comparison_table(s) {
        b.push_str("<h3>The thesis beside ours</h3>\n");
        b.push_str(&table(&t));
    }
    let (errs, warns) = problems_split(s);
    if !errs.is_empty() {
        b.push_str("<div class=\"warn\" role=\"note\"><b>Errors</b><ul>");
        for p in errs.iter().take(200) {
            let _ = write!(b, "<li>{}</li>", esc(p));
        }
        b.push_str("</ul></div>\n");
    }
    if !warns.is_empty() {
        let _ = write!(
            b,
            "<details><summary>{} run warning{} (harness- or machine-bound runs, stalls)</summary><ul class=\"notes\">",
            warns.len(),
            if warns.len() == 1 { "" } else { "s" }
        );
        for p in warns.iter().take(500) {
            let _ = write!(b, "<li>{}</li>", esc(p));
        }
        b.push_str("</ul></details>\n");
    }
    let notes: Vec<&str> = arr(s, "notes").iter().filter_map(Value::as_str).collect();
    if !notes.is_empty() {
        b.push_str("<ul class=\"notes\">");
        for n in notes {
            let _ = write!(b, "<li>{}</li>", esc(n));
        }
        b.push_str("</ul>\n");
    }
    let mut parts = Vec::new();
    if !fields.is_empty() {
        parts.push(format!("sizes of {} formats", size_formats(s).len()));
    }
    if !thr.is_empty() {
        parts.push(format!("{} throughput case{}", thr.len(), if thr.len() == 1 { "" } else { "s" }));
    }
    if !rtt.is_empty() {
        parts.push(format!("{} RTT case{}", rtt.len(), if rtt.len() == 1 { "" } else { "s" }));
    }
    Some(Section {
        title: "OPC UA PubSub over MQTT (seed 000)".into(),
        summary: format!("mqtt: {}", if parts.is_empty() { "no figures".to_string() } else { parts.join(", ") }),
        body: b,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wirebench_core::results::Provenance;

    fn results() -> Results {
        let mut r = Results::new(Provenance::default(), json!({}));
        let side = |rate: f64, p50: f64| {
            json!({
                "msgs_per_s": rate, "publisher_msgs_per_s": rate, "mb_per_s": 1.0, "sent": 100, "received": 99, "lost": 1,
                "duplicates": 0, "reordered": 0, "delivery_ratio": 0.99, "ended_by": ["complete"], "allocs_per_msg": 3.5,
                "errors": [], "warnings": [],
                "rtt": {"count": 3, "p50_us": p50, "p90_us": p50 * 1.2, "p99_us": p50 * 2.0, "p999_us": p50 * 2.0, "max_us": p50 * 3.0, "mean_us": p50},
                "cdf": [[p50 * 0.5, 0.0], [p50, 50.0], [p50 * 3.0, 100.0]],
            })
        };
        r.mqtt = Some(
            json!({
                "version": 1,
                "sizes": [
                    {"format": "uadp", "fields": 1, "bytes": 44, "round_trip": true},
                    {"format": "uadp", "fields": 3, "bytes": 54, "round_trip": true},
                    {"format": "uadp-json", "fields": 1, "bytes": 180, "round_trip": true},
                    {"format": "uadp-json", "fields": 3, "bytes": 260, "round_trip": false},
                ],
                "layout": {"parts": [{"part": "UADPFlags", "bytes": 1, "offset": 0, "note": "0xD1"}], "header_bytes": 39, "per_field_bytes": 5,
                           "formula": "39 + 5·N", "explanation": ["1 UADPFlags + … = 39 <b>"]},
                "codec": [{"format": "uadp", "fields": 3, "bytes": 54, "encode_ns": 120.4, "decode_ns": 200.0, "encode_allocs": 1.0,
                           "encode_alloc_bytes": 64.0, "decode_allocs": 6.0, "decode_alloc_bytes": 300.0}],
                "throughput": [{"broker": "rumqttd 0.20 (embedded)", "payload": "uadp, 3 fields", "format": "uadp", "fields": 3,
                                "payload_bytes": 54, "qos": 1, "messages": 100, "reps": 1, "ours": side(9000.0, 0.0),
                                "bare": side(10000.0, 0.0), "ratio": 0.9, "ratio_min": 0.9, "ratio_max": 0.9, "goal": 0.8, "meets_goal": true}],
                "rtt": [{"broker": "mosquitto 2.0.11", "payload": "uadp, 3 fields", "format": "uadp", "fields": 3, "payload_bytes": 54,
                         "qos": 0, "ours": side(0.0, 150.0), "bare": side(0.0, 140.0), "ratio": 1.07, "goal": 1.5, "meets_goal": true}],
                "published": {"citation": "F. Braz, thesis", "sizes": {"rows": [{"fields": 1, "json_bytes": 209, "uadp_bytes": 38},
                                                                               {"fields": 3, "json_bytes": 341, "uadp_bytes": 48}]}},
                "comparison": [{"what": "UADP size, 1 field", "unit": "B", "thesis": 38, "ours": 44, "note": "6 short"}],
                "notes": ["a note"],
            }),
        );
        r
    }

    #[test]
    fn text_tables_show_sizes_thesis_and_ratios() {
        let r = results();
        let t = render(&r, Output::Table);
        assert!(t.starts_with("OPC UA PubSub over MQTT (seed 000)\n"), "{t}");
        assert!(t.contains("\nuadp                      44    54\n"), "{t}");
        assert!(t.contains("\nthesis UADP (published)   38    48\n"), "{t}");
        assert!(t.contains("260!"), "a size that did not round-trip is marked: {t}");
        assert!(t.contains("9000") && t.contains("10000") && t.contains("0.90") && t.contains("99.0 %"), "{t}");
        assert!(t.contains("150.0") && t.contains("140.0") && t.contains("1.07"), "{t}");
        assert!(t.contains("Why not 38/48/58/83"), "{t}");
        assert!(t.contains("Published figures: F. Braz, thesis."), "{t}");
        let md = render(&r, Output::Markdown);
        assert!(md.starts_with("## OPC UA PubSub over MQTT (seed 000)\n\n### NetworkMessage size"), "{md}");
        assert!(md.contains("| uadp | 44 | 54 |"), "{md}");
        // Parts that are null (a throughput-only run) are left out.
        let mut only = results();
        only.mqtt.as_mut().unwrap()["layout"] = Value::Null;
        only.mqtt.as_mut().unwrap()["published"] = Value::Null;
        let t = render(&only, Output::Table);
        assert!(!t.contains("Seed layout") && !t.contains("thesis UADP"), "{t}");
        // No section: nothing.
        let empty = Results::new(Provenance::default(), json!({}));
        assert_eq!(render(&empty, Output::Table), "");
        assert!(html_section(&empty, &Ctx { id: "mqtt".into(), file: 1, files: 1 }).is_none());
    }

    #[test]
    fn csv_is_long_form() {
        let c = render(&results(), Output::Csv);
        let mut lines = c.lines();
        assert_eq!(lines.next(), Some("table,broker,payload,format,fields,qos,side,metric,value"));
        assert!(c.contains("sizes,,,uadp,3,,ours,bytes,54\n"), "{c}");
        assert!(c.contains("sizes,,,uadp,1,,thesis,bytes,38\n"), "{c}");
        assert!(c.contains("throughput,rumqttd 0.20 (embedded),\"uadp, 3 fields\",uadp,3,1,bare,msgs_per_s,10000\n"), "{c}");
        assert!(c.contains("rtt,mosquitto 2.0.11,\"uadp, 3 fields\",uadp,3,0,ratio,p50_ours_over_bare,1.07\n"), "{c}");
    }

    #[test]
    fn html_section_is_self_contained_escaped_and_deterministic() {
        let r = results();
        let ctx = Ctx { id: "mqtt".into(), file: 1, files: 1 };
        let s = html_section(&r, &ctx).unwrap();
        let again = html_section(&r, &ctx).unwrap();
        assert_eq!(s.body, again.body);
        assert!(s.summary.contains("1 throughput case"), "{}", s.summary);
        let b = &s.body;
        assert!(b.contains("id=\"mqtt-uadp-size\"") && b.contains("id=\"mqtt-throughput\"") && b.contains("id=\"mqtt-rtt-cdf-0\""));
        assert!(b.contains("thesis UADP (published)"));
        assert!(b.contains("Why 38 / 48 / 58 / 83 bytes cannot be right"));
        assert!(b.contains("&lt;b&gt;"), "results text is escaped");
        assert!(!b.contains("<script") && !b.contains("http://") && !b.contains("https://"));
        assert!(b.contains("<b>44 / 54 B</b> (39 + 5·N)"), "{b}");
        assert!(b.contains(">rumqttd · uadp 3f · QoS 1<"), "short chart labels: {b}");
        // Errors are shown; warnings fold into a details element.
        let mut bad = results();
        bad.mqtt.as_mut().unwrap()["throughput"][0]["ours"]["errors"] = json!(["publisher connection: connection reset by peer"]);
        bad.mqtt.as_mut().unwrap()["rtt"][0]["bare"]["warnings"] = json!(["harness-bound"]);
        let b = html_section(&bad, &ctx).unwrap().body;
        assert!(b.contains("<b>Errors</b><ul><li>throughput rumqttd 0.20 (embedded) · uadp, 3 fields · QoS 1 · ours: publisher connection: connection reset by peer</li>"), "{b}");
        assert!(b.contains("<summary>1 run warning (harness- or machine-bound runs, stalls)</summary>"), "{b}");
        // The whole page renders with it.
        let page = crate::html::render(&[&r], "t");
        assert!(page.contains("<section id=\"mqtt\">"));
    }
}
