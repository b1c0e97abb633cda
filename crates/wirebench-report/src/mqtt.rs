//! The `mqtt` results section (OPC UA PubSub over MQTT, seed 000): one list of blocks for the
//! terminal, Markdown and the HTML section (the charts on the page only), and CSV.
//!
//! The section ([`MqttSection`]) is written by `wirebench mqtt ...` and the `[mqtt]` study part.
//! Its parts are all optional; each renderer shows what is there:
//!
//! - `sizes`: bytes per format × field count, checked to round-trip; `formats`; `layout` (the
//!   seed layout's bytes part by part, 39 + 5N, the thesis's sizes and why they cannot be
//!   right); `codec` (encode/decode ns and allocations per message);
//! - `throughput`: ours and the bare rumqttc pair (msgs/s, delivery, allocations per message);
//! - `rtt`: pooled percentiles and a CDF per side;
//! - `published` (the thesis's figures with their citation), `comparison` (thesis beside ours),
//!   `notes`, `brokers`.
//!
//! Everything comes from the results; nothing is measured, looked up or computed here.

use wirebench_core::results::Results;
use wirebench_core::sections::mqtt::{EndReason, MqttSection};

use crate::blocks::{Block, Figure, List};
use crate::csv::CsvTable;
use crate::html::{Ctx, Section};
use crate::svg::{color, fixed, BarChart, Bars, Line, LineChart};
use crate::table::{CellMark, Table};
use crate::Output;

/// What the intervals of the throughput table are, under it.
const THROUGHPUT_CI_NOTE: &str = "95 % CI: order statistics of the repetitions (distribution-free; [min, max] of 6–8, narrower from 9; - with fewer than 6). ours/bare: each repetition's two runs ran back to back, in alternating order (A B B A …). run s: median time of a repetition.";

/// What the `!` on a size means (the legend under the sizes table, the cell's tooltip on the page).
const NOT_ROUND_TRIP: &str = "did not decode back to the message encoded";

/// Colour of figures printed in the seed report (not measured here).
const PUBLISHED: &str = "#D55E00";

fn section(r: &Results) -> Option<&MqttSection> {
    r.mqtt.as_ref()
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

/// A count as [`int`] shows it.
fn count(n: impl Into<u64>) -> String {
    int(Some(n.into() as f64))
}

/// A 95 % interval as `lo–hi`, or `-` when there is none.
fn ci(v: Option<(f64, f64)>, decimals: usize) -> String {
    v.map(|(lo, hi)| format!("{}–{}", fixed(lo, decimals), fixed(hi, decimals))).unwrap_or_else(|| "-".into())
}

fn yes_no(v: Option<bool>) -> String {
    match v {
        Some(true) => "yes".into(),
        Some(false) => "NO".into(),
        None => "-".into(),
    }
}

/// The format ids in the order they appear in `sizes`.
fn size_formats(s: &MqttSection) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in &s.sizes {
        if !out.contains(&r.format.as_str()) {
            out.push(&r.format);
        }
    }
    out
}

/// The field counts of `sizes`, ascending.
fn size_fields(s: &MqttSection) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for r in &s.sizes {
        if !out.contains(&r.fields) {
            out.push(r.fields);
        }
    }
    out.sort_unstable();
    out
}

fn size_of(s: &MqttSection, format: &str, fields: usize) -> Option<f64> {
    s.sizes.iter().find(|r| r.format == format && r.fields == fields).map(|r| r.bytes as f64)
}

/// Published sizes: (fields, json, uadp).
fn published_sizes(s: &MqttSection) -> Vec<(usize, f64, f64)> {
    s.published
        .as_ref()
        .map(|p| p.sizes.rows.iter().map(|r| (r.fields, r.json_bytes as f64, r.uadp_bytes as f64)).collect())
        .unwrap_or_default()
}

fn citation(s: &MqttSection) -> Option<&str> {
    s.published.as_ref().map(|p| p.citation.as_str())
}

/// One side of a transport case, as the problem lists see it.
struct SideProblems<'a> {
    side: &'static str,
    errors: &'a [String],
    warnings: &'a [String],
}

/// A transport case for the problem lists: (kind, broker, payload, QoS, sides present).
fn cases(s: &MqttSection) -> Vec<(&'static str, &str, &str, u8, Vec<SideProblems<'_>>)> {
    let mut out = Vec::new();
    for r in &s.throughput {
        let mut sides = vec![SideProblems { side: "ours", errors: &r.ours.errors, warnings: &r.ours.warnings }];
        if let Some(b) = &r.bare {
            sides.push(SideProblems { side: "bare", errors: &b.errors, warnings: &b.warnings });
        }
        out.push(("throughput", r.broker.as_str(), r.payload.as_str(), r.qos, sides));
    }
    for r in &s.rtt {
        let mut sides = vec![SideProblems { side: "ours", errors: &r.ours.errors, warnings: &r.ours.warnings }];
        if let Some(b) = &r.bare {
            sides.push(SideProblems { side: "bare", errors: &b.errors, warnings: &b.warnings });
        }
        out.push(("rtt", r.broker.as_str(), r.payload.as_str(), r.qos, sides));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Tables

/// Bytes per format (rows) × field count (columns), with the thesis's figures as extra rows.
pub fn sizes_table(s: &MqttSection) -> Option<Table> {
    let fields = size_fields(s);
    if fields.is_empty() {
        return None;
    }
    let heads: Vec<String> = fields.iter().map(|n| format!("{n} f")).collect();
    let mut h: Vec<&str> = vec!["format"];
    h.extend(heads.iter().map(String::as_str));
    let mut t = Table::new("NetworkMessage size (bytes) by field count", &h).numeric_from(1);
    for f in size_formats(s) {
        let mut row = vec![f.to_string()];
        for &n in &fields {
            let ok = s.sizes.iter().any(|r| r.format == f && r.fields == n && r.round_trip);
            let v = size_of(s, f, n);
            row.push(match v {
                Some(b) if ok => int(Some(b)),
                Some(b) => {
                    t.marks.push(CellMark {
                        row: t.rows.len(),
                        col: row.len(),
                        class: "bad",
                        tip: NOT_ROUND_TRIP.into(),
                    });
                    format!("{}!", int(Some(b)))
                }
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

pub fn layout_table(s: &MqttSection) -> Option<Table> {
    let l = s.layout.as_ref()?;
    let mut t = Table::new(
        &format!(
            "Seed layout before the fields: {} bytes, then {} per field",
            count(l.header_bytes as u64),
            count(l.per_field_bytes as u64)
        ),
        &["offset", "bytes", "part", "content"],
    )
    .numeric_from(0);
    t.numeric[2] = false;
    t.numeric[3] = false;
    for p in &l.parts {
        t.push(vec![count(p.offset as u64), count(p.bytes as u64), p.part.clone(), p.note.clone()]);
    }
    Some(t)
}

fn layout_lines(s: &MqttSection) -> &[String] {
    s.layout.as_ref().map(|l| l.explanation.as_slice()).unwrap_or(&[])
}

pub fn codec_table(s: &MqttSection) -> Option<Table> {
    if s.codec.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Encode / decode per message (our uadp crate)",
        &[
            "format",
            "fields",
            "bytes",
            "encode ns",
            "decode ns",
            "enc allocs",
            "enc alloc B",
            "dec allocs",
            "dec alloc B",
        ],
    )
    .numeric_from(1);
    for r in &s.codec {
        t.push(vec![
            r.format.clone(),
            count(r.fields as u64),
            count(r.bytes as u64),
            num(Some(r.encode_ns), 0),
            num(Some(r.decode_ns), 0),
            num(r.encode_allocs, 1),
            num(r.encode_alloc_bytes, 0),
            num(r.decode_allocs, 1),
            num(r.decode_alloc_bytes, 0),
        ]);
    }
    Some(t)
}

/// How the repetitions ended, repeats of the same reason in a row shown once.
fn ended(ended_by: &[EndReason]) -> String {
    let mut v: Vec<&str> = ended_by.iter().map(|e| e.name()).collect();
    v.dedup();
    v.join(",")
}

/// Delivery of one side over all its repetitions (received ÷ scheduled: what the repetitions
/// meant to publish, sent or not; received ÷ sent in files without it), with the worst
/// repetition beside it when that one delivered less (a backlog dropped in one repetition is
/// not averaged away, nor does it stand for all).
fn delivery(side: &wirebench_core::sections::mqtt::ThroughputSide) -> String {
    let of = side.scheduled.unwrap_or(side.sent);
    if of == 0 {
        return pct(Some(side.delivery_ratio));
    }
    let all = (side.received.min(of)) as f64 / of as f64;
    if side.delivery_ratio < all - 5e-4 {
        format!("{} (worst {})", pct(Some(all)), pct(Some(side.delivery_ratio)))
    } else {
        pct(Some(all))
    }
}

pub fn throughput_table(s: &MqttSection) -> Option<Table> {
    if s.throughput.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Throughput: 1 publisher → broker → 1 subscriber (msgs/s at the subscriber: median of reps, 95 % CI; ours/bare: median of paired per-round ratios, 95 % CI)",
        &[
            "broker", "payload", "B", "QoS", "msgs×reps", "run s", "ours msgs/s", "95 % CI", "ours delivered of scheduled: all reps (worst)", "lost", "unacked", "dup", "reord",
            "bare msgs/s", "95 % CI", "bare delivered", "ours/bare", "95 % CI", "≥ goal", "allocs/msg ours", "bare", "ended",
        ],
    )
    .numeric_from(2);
    t.numeric[21] = false;
    for r in &s.throughput {
        let o = &r.ours;
        let b = r.bare.as_ref();
        t.push(vec![
            r.broker.clone(),
            r.payload.clone(),
            count(r.payload_bytes as u64),
            count(r.qos),
            format!("{}×{}", count(r.messages), count(r.reps as u64)),
            num(r.run_s, 2),
            num(o.msgs_per_s, 0),
            ci(o.msgs_per_s_ci95, 0),
            delivery(o),
            count(o.lost),
            int(o.unacked.map(|x| x as f64)),
            int(o.duplicates.map(|x| x as f64)),
            int(o.reordered.map(|x| x as f64)),
            b.map_or("-".into(), |b| num(b.msgs_per_s, 0)),
            b.map_or("-".into(), |b| ci(b.msgs_per_s_ci95, 0)),
            b.map_or("-".into(), delivery),
            num(r.ratio, 2),
            ci(r.ratio_ci95, 2),
            yes_no(r.meets_goal),
            num(o.allocs_per_msg, 1),
            b.map_or("-".into(), |b| num(b.allocs_per_msg, 1)),
            ended(&o.ended_by),
        ]);
    }
    Some(t)
}

pub fn rtt_table(s: &MqttSection) -> Option<Table> {
    if s.rtt.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Echo RTT (µs): pinger → broker → echo → broker → pinger, pooled over reps",
        &[
            "broker",
            "payload",
            "QoS",
            "samples",
            "p50",
            "p90",
            "p99",
            "max",
            "delivery",
            "bare p50",
            "bare p99",
            "bare max",
            "ours/bare p50",
            "≤ goal",
            "stall",
        ],
    )
    .numeric_from(2);
    t.numeric[14] = false;
    for r in &s.rtt {
        let o = &r.ours;
        let b = r.bare.as_ref();
        let stall = [Some(o), b].into_iter().flatten().find_map(|x| x.stall.as_deref()).unwrap_or("none");
        t.push(vec![
            r.broker.clone(),
            r.payload.clone(),
            count(r.qos),
            count(o.rtt.count),
            num(Some(o.rtt.p50_us), 1),
            num(Some(o.rtt.p90_us), 1),
            num(Some(o.rtt.p99_us), 1),
            num(Some(o.rtt.max_us), 1),
            pct(Some(o.delivery_ratio)),
            b.map_or("-".into(), |b| num(Some(b.rtt.p50_us), 1)),
            b.map_or("-".into(), |b| num(Some(b.rtt.p99_us), 1)),
            b.map_or("-".into(), |b| num(Some(b.rtt.max_us), 1)),
            num(r.ratio, 2),
            yes_no(r.meets_goal),
            stall.into(),
        ]);
    }
    Some(t)
}

pub fn comparison_table(s: &MqttSection) -> Option<Table> {
    if s.comparison.is_empty() {
        return None;
    }
    let mut t =
        Table::new("The thesis (published) beside ours", &["figure", "unit", "thesis", "ours", "ours 95 % CI", "note"])
            .numeric_from(2);
    t.numeric[5] = false;
    let d = |v: Option<f64>| match v {
        Some(x) if x.fract() == 0.0 && x.abs() < 1e9 => int(Some(x)),
        Some(x) if x.abs() >= 1000.0 => num(Some(x), 0),
        Some(x) if x.abs() >= 100.0 => num(Some(x), 1),
        other => num(other, 2),
    };
    for r in &s.comparison {
        t.push(vec![
            r.what.clone(),
            r.unit.clone(),
            d(Some(f64::from(r.thesis))),
            d(r.ours.map(f64::from)),
            r.ours_ci95.map_or("-".into(), |(lo, hi)| format!("{}–{}", d(Some(lo)), d(Some(hi)))),
            r.note.clone(),
        ]);
    }
    Some(t)
}

/// (errors, warnings) of the transport runs, each prefixed with its case.
fn problems_split(s: &MqttSection) -> (Vec<String>, Vec<String>) {
    let (mut errs, mut warns) = (Vec::new(), Vec::new());
    for (kind, broker, payload, qos, sides) in cases(s) {
        for x in sides {
            for (out, list) in [(&mut errs, x.errors), (&mut warns, x.warnings)] {
                for e in list {
                    out.push(format!("{kind} {broker} · {payload} · QoS {} · {}: {e}", count(qos), x.side));
                }
            }
        }
    }
    (errs, warns)
}

/// The section's title, on the terminal, in Markdown and on the page.
const TITLE: &str = "OPC UA PubSub over MQTT (seed 000)";

/// What the section measured and how, before its figures.
const INTRO: &str = "OPC UA PubSub NetworkMessages (UADP binary and the JSON mapping) built by our uadp crate, \
     each decoded back before use, sent through MQTT brokers on this host. Ours are the wirebench measuring clients; \
     the bare pair is the minimal rumqttc code a user would write, interleaved with ours through the same broker.";

/// The one-line answer on sizes: the seed layout's UADP bytes per field count beside the
/// thesis's, or nothing without sizes.
fn key_line(s: &MqttSection) -> Option<String> {
    let seed_sizes: Vec<String> =
        size_fields(s).iter().filter_map(|&n| size_of(s, "uadp", n)).map(|v| fixed(v, 0)).collect();
    if seed_sizes.is_empty() {
        return None;
    }
    let formula = s.layout.as_ref().map(|l| l.formula.as_str()).unwrap_or("");
    let thesis: Vec<String> = published_sizes(s).iter().map(|p| fixed(p.2, 0)).collect();
    Some(format!(
        "UADP with the thesis's header options: {} B{} · the thesis printed {} B{}",
        seed_sizes.join(" / "),
        if formula.is_empty() { String::new() } else { format!(" ({formula})") },
        if thesis.is_empty() { "-".into() } else { thesis.join(" / ") },
        if thesis.is_empty() { "" } else { " — 6 bytes short of the layout it states (see below)" }
    ))
}

/// The thesis's throughput, set beside ours in words (it was another machine), when the section
/// has the published figures.
fn published_throughput_note(s: &MqttSection) -> Option<String> {
    let t = &s.published.as_ref()?.throughput;
    Some(format!(
        "The thesis's {} (JSON) and {} (UADP) msgs/s were an ESP32 over Wi-Fi and are not comparable with a PC on loopback.",
        fixed(t.json_msgs_per_s, 1),
        fixed(t.uadp_msgs_per_s, 1)
    ))
}

/// What a round trip on loopback should look like, after the thesis's mean RTTs when the
/// section has the published figures.
fn rtt_note(s: &MqttSection) -> String {
    let thesis = s.published.as_ref().map_or(String::new(), |p| {
        format!(
            "The thesis reports {} ms (JSON) and {} ms (UADP) mean RTT over {} samples: an ESP32 on Wi-Fi. ",
            fixed(p.rtt.json_ms.mean, 1),
            fixed(p.rtt.uadp_ms.mean, 1),
            count(p.rtt.samples)
        )
    });
    format!(
        "{thesis}On loopback a round trip is well under a millisecond; RTT modes near 40/44/88 ms would mean Nagle + delayed ACK and are flagged."
    )
}

/// The section as blocks, the same for every report kind: what was measured and where the
/// published figures come from, the key line on sizes, then each part present under its
/// sub-heading (sizes with the legend of their mark; the seed layout with why the thesis's sizes
/// cannot be right; the codec's cost; throughput with what its intervals are; RTT; the thesis
/// beside ours), the errors, the run warnings and the notes. The charts (HTML
/// only) when `charts` gives their page ids.
fn blocks(s: &MqttSection, charts: Option<&Ctx>) -> Vec<Block> {
    let mut out = vec![Block::Heading(TITLE.into()), Block::Intro(INTRO.into())];
    if let Some(c) = citation(s) {
        out.push(Block::Note(format!(
            "Published figures: printed in {c} (ESP32 over Wi-Fi), not measured here; ours (this host): this results file."
        )));
    }
    out.extend(key_line(s).map(Block::KeyLine));
    if let Some(ctx) = charts {
        out.extend(size_figures(s, ctx).into_iter().map(Block::Figure));
    }
    if let Some(t) = sizes_table(s) {
        out.push(Block::Table(t));
        // The legend of the mark, only where a size carries it.
        if s.sizes.iter().any(|r| !r.round_trip) {
            out.push(Block::Legend(vec![("!".into(), NOT_ROUND_TRIP.into())]));
        }
    }
    if let Some(t) = layout_table(s) {
        out.push(Block::Subheading("Why 38 / 48 / 58 / 83 bytes cannot be right".into()));
        out.push(Block::Table(t));
        let lines = layout_lines(s);
        if !lines.is_empty() {
            out.push(List::new("Why not 38/48/58/83", lines.to_vec()).into());
        }
    }
    if let Some(t) = codec_table(s) {
        out.push(Block::Subheading("Encoding cost per message".into()));
        out.push(Block::Table(t));
    }
    if let Some(t) = throughput_table(s) {
        out.push(Block::Subheading("Throughput with delivery".into()));
        out.push(Block::Intro(
            "One publisher and one subscriber on one topic; every message carries a sequence number, so losses, \
             duplicates and reordering are counted (table)."
                .into(),
        ));
        if let Some(ctx) = charts {
            out.extend(throughput_figures(s, ctx).into_iter().map(Block::Figure));
        }
        out.push(Block::Table(t));
        out.push(Block::Caption(THROUGHPUT_CI_NOTE.to_string()));
        out.extend(published_throughput_note(s).map(Block::Note));
    }
    if let Some(t) = rtt_table(s) {
        out.push(Block::Subheading("Echo round trip".into()));
        if let Some(ctx) = charts {
            out.push(Block::Figures {
                items: rtt_figures(s, ctx),
                note: "Pooled over every repetition; solid = ours, dashed = the bare echo pair.".into(),
            });
        }
        out.push(Block::Table(t));
        out.push(Block::Note(rtt_note(s)));
    }
    if let Some(t) = comparison_table(s) {
        out.push(Block::Subheading("The thesis beside ours".into()));
        out.push(Block::Table(t));
    }
    let (errs, warns) = problems_split(s);
    if !errs.is_empty() {
        out.push(List::new("Errors", errs).warning(true).into());
    }
    if !warns.is_empty() {
        let title = format!(
            "{} run warning{} (harness- or machine-bound runs, stalls)",
            warns.len(),
            if warns.len() == 1 { "" } else { "s" }
        );
        out.push(List::new(title, warns).warning(true).into());
    }
    if !s.notes.is_empty() {
        out.push(List::new("Notes", s.notes.clone()).into());
    }
    out
}

/// Render the mqtt section of a results file (empty when there is none).
pub fn render(r: &Results, output: Output) -> String {
    let Some(s) = section(r) else {
        return String::new();
    };
    match output {
        Output::Json => serde_json::to_string_pretty(s).unwrap_or_default() + "\n",
        Output::Csv => crate::csv::text(&[csv(s)]),
        Output::Table | Output::Markdown => crate::blocks::render(&blocks(s, None), output),
    }
}

/// The section's CSV table, long-form: one row per figure.
pub fn csv_tables(r: &Results) -> Vec<CsvTable> {
    section(r).map(|s| vec![csv(s)]).unwrap_or_default()
}

/// Long-form CSV: one row per figure.
fn csv(s: &MqttSection) -> CsvTable {
    let mut out =
        CsvTable::with_header(&["table", "broker", "payload", "format", "fields", "qos", "side", "metric", "value"]);
    let mut row = |t: &str,
                   broker: &str,
                   payload: &str,
                   format: &str,
                   fields: String,
                   qos: String,
                   side: &str,
                   metric: &str,
                   v: Option<f64>| {
        if let Some(v) = v {
            out.row(&[t, broker, payload, format, &fields, &qos, side, metric, &format!("{v}")]);
        }
    };
    let f = |n: u64| Some(n as f64);
    for r in &s.sizes {
        row("sizes", "", "", &r.format, count(r.fields as u64), String::new(), "ours", "bytes", f(r.bytes as u64));
    }
    for (n, j, u) in published_sizes(s) {
        row("sizes", "", "", "uadp", n.to_string(), String::new(), "thesis", "bytes", Some(u));
        row("sizes", "", "", "json", n.to_string(), String::new(), "thesis", "bytes", Some(j));
    }
    for r in &s.codec {
        let metrics = [
            ("encode_ns", Some(r.encode_ns)),
            ("decode_ns", Some(r.decode_ns)),
            ("encode_allocs", r.encode_allocs),
            ("encode_alloc_bytes", r.encode_alloc_bytes),
            ("decode_allocs", r.decode_allocs),
            ("decode_alloc_bytes", r.decode_alloc_bytes),
        ];
        for (m, v) in metrics {
            row("codec", "", "", &r.format, count(r.fields as u64), String::new(), "ours", m, v);
        }
    }
    for r in &s.throughput {
        let (b, p, fm) = (r.broker.as_str(), r.payload.as_str(), r.format.as_str());
        let (n, q) = (int(r.fields.map(|n| n as f64)), count(r.qos));
        for (side, x) in [("ours", Some(&r.ours)), ("bare", r.bare.as_ref())] {
            let Some(x) = x else { continue };
            let lo = |c: Option<(f64, f64)>| c.map(|c| c.0);
            let hi = |c: Option<(f64, f64)>| c.map(|c| c.1);
            let metrics = [
                ("msgs_per_s", x.msgs_per_s),
                ("msgs_per_s_ci95_lo", lo(x.msgs_per_s_ci95)),
                ("msgs_per_s_ci95_hi", hi(x.msgs_per_s_ci95)),
                ("publisher_msgs_per_s", x.publisher_msgs_per_s),
                ("publisher_msgs_per_s_ci95_lo", lo(x.publisher_msgs_per_s_ci95)),
                ("publisher_msgs_per_s_ci95_hi", hi(x.publisher_msgs_per_s_ci95)),
                ("mb_per_s", x.mb_per_s),
                ("mb_per_s_ci95_lo", lo(x.mb_per_s_ci95)),
                ("mb_per_s_ci95_hi", hi(x.mb_per_s_ci95)),
                ("sent", f(x.sent)),
                ("received", f(x.received)),
                ("lost", f(x.lost)),
                ("acked", x.acked.and_then(f)),
                ("unacked", x.unacked.and_then(f)),
                ("duplicates", x.duplicates.and_then(f)),
                ("reordered", x.reordered.and_then(f)),
                ("delivery_ratio", Some(x.delivery_ratio)),
                ("allocs_per_msg", x.allocs_per_msg),
            ];
            for (m, v) in metrics {
                row("throughput", b, p, fm, n.clone(), q.clone(), side, m, v);
            }
        }
        row("throughput", b, p, fm, n.clone(), q.clone(), "ratio", "ours_over_bare", r.ratio);
        row("throughput", b, p, fm, n.clone(), q.clone(), "ratio", "ours_over_bare_ci95_lo", r.ratio_ci95.map(|c| c.0));
        row("throughput", b, p, fm, n.clone(), q.clone(), "ratio", "ours_over_bare_ci95_hi", r.ratio_ci95.map(|c| c.1));
        row("throughput", b, p, fm, n.clone(), q.clone(), "case", "messages", f(r.messages));
        row("throughput", b, p, fm, n.clone(), q.clone(), "case", "reps", f(r.reps as u64));
        row("throughput", b, p, fm, n.clone(), q.clone(), "case", "run_s", r.run_s);
    }
    for r in &s.rtt {
        let (b, p, fm) = (r.broker.as_str(), r.payload.as_str(), r.format.as_str());
        let (n, q) = (int(r.fields.map(|n| n as f64)), count(r.qos));
        for (side, x) in [("ours", Some(&r.ours)), ("bare", r.bare.as_ref())] {
            let Some(x) = x else { continue };
            let l = &x.rtt;
            let metrics = [
                ("count", f(l.count)),
                ("p50_us", Some(l.p50_us)),
                ("p90_us", Some(l.p90_us)),
                ("p99_us", Some(l.p99_us)),
                ("p999_us", Some(l.p999_us)),
                ("max_us", Some(l.max_us)),
                ("mean_us", Some(l.mean_us)),
                ("sent", f(x.sent)),
                ("received", f(x.received)),
                ("lost", f(x.lost)),
                ("delivery_ratio", Some(x.delivery_ratio)),
            ];
            for (m, v) in metrics {
                row("rtt", b, p, fm, n.clone(), q.clone(), side, m, v);
            }
        }
        row("rtt", b, p, fm, n.clone(), q.clone(), "ratio", "p50_ours_over_bare", r.ratio);
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
fn short_case(broker: &str, format: &str, payload: &str, fields: Option<usize>, qos: u8) -> String {
    let broker = broker.split_whitespace().next().unwrap_or("");
    let payload = match fields {
        Some(n) => format!("{format} {}f", fixed(n as f64, 0)),
        None => payload.to_string(),
    };
    format!("{broker} · {payload} · QoS {}", count(qos))
}

fn bytes_label(v: f64) -> String {
    format!("{} B", fixed(v, 0))
}

fn rate_label(v: f64) -> String {
    crate::svg::compact(v, 0)
}

/// The size charts: UADP ours beside the thesis's per field count (the thesis's bars hatched),
/// and every format over the field count (log y: JSON is ~10× UADP). None without sizes.
fn size_figures(s: &MqttSection, ctx: &Ctx) -> Vec<Figure> {
    let fields = size_fields(s);
    if fields.is_empty() {
        return Vec::new();
    }
    let pubs = published_sizes(s);
    let cats: Vec<String> = fields.iter().map(|n| format!("{n} field{}", if *n == 1 { "" } else { "s" })).collect();
    let mut chart = BarChart::new(&ctx.chart_id("uadp-size"), "UADP NetworkMessage size: ours vs the thesis", cats)
        .axis_label("bytes per NetworkMessage (MQTT payload)")
        .value_format(bytes_label);
    let formats = size_formats(s);
    for (si, f) in formats.iter().filter(|f| !f.contains("json")).enumerate() {
        chart = chart.series(
            Bars::new(&format!("{f} (ours)"), fields.iter().map(|&n| size_of(s, f, n)).collect())
                .color(format_color(si)),
        );
        if *f == "uadp" && !pubs.is_empty() {
            chart = chart.series(
                Bars::new(
                    "thesis UADP (published)",
                    fields.iter().map(|&n| pubs.iter().find(|p| p.0 == n).map(|p| p.2)).collect(),
                )
                .hatched(true)
                .color(PUBLISHED),
            );
        }
    }
    let mut lc =
        LineChart::new(&ctx.chart_id("all-sizes"), "Size vs field count, every format", "fields per message", "bytes")
            .log_y(true);
    for (i, f) in formats.iter().enumerate() {
        let pts: Vec<(f64, f64)> = fields.iter().filter_map(|&n| Some((n as f64, size_of(s, f, n)?))).collect();
        lc = lc.line(Line::new(f, pts).markers(true).color(format_color(i)));
    }
    if !pubs.is_empty() {
        lc = lc.line(
            Line::new("thesis UADP (published)", pubs.iter().map(|p| (p.0 as f64, p.2)).collect())
                .dashed(true)
                .markers(true)
                .color(PUBLISHED),
        );
        lc = lc.line(
            Line::new("thesis JSON (published)", pubs.iter().map(|p| (p.0 as f64, p.1)).collect())
                .dashed(true)
                .markers(true)
                .color("#000000"),
        );
    }
    vec![
        Figure::new(
            chart.render(),
            "Bytes of each NetworkMessage as encoded by our uadp crate and checked to decode back. The hatched bars are the thesis's size table; they are 6 bytes below the layout the thesis states at every field count.",
        ),
        Figure::new(
            lc.render(),
            "Every format grows linearly with the field count; the JSON forms cost 10–70 bytes per field, UADP 4–5.",
        ),
    ]
}

/// The throughput charts: msgs/s at the subscriber, ours and the bare pair, with 95 % CIs; and
/// ours ÷ bare against the goal when there are ratios.
fn throughput_figures(s: &MqttSection, ctx: &Ctx) -> Vec<Figure> {
    let thr = &s.throughput;
    let cats: Vec<String> = thr.iter().map(|r| short_case(&r.broker, &r.format, &r.payload, r.fields, r.qos)).collect();
    let ours: Vec<Option<f64>> = thr.iter().map(|r| r.ours.msgs_per_s).collect();
    let ours_ci: Vec<Option<(f64, f64)>> = thr.iter().map(|r| r.ours.msgs_per_s_ci95).collect();
    let bare: Vec<Option<f64>> = thr.iter().map(|r| r.bare.as_ref().and_then(|b| b.msgs_per_s)).collect();
    let bare_ci: Vec<Option<(f64, f64)>> =
        thr.iter().map(|r| r.bare.as_ref().and_then(|b| b.msgs_per_s_ci95)).collect();
    let mut chart = BarChart::new(&ctx.chart_id("throughput"), "Messages per second at the subscriber", cats.clone())
        .series(Bars::new("ours", ours).errors(ours_ci).color(color(0)))
        .axis_label("msgs/s (median of repetitions, 95 % CI)")
        .value_format(rate_label)
        .missing_label("not run");
    if bare.iter().any(Option::is_some) {
        chart = chart.series(Bars::new("bare rumqttc pair", bare).errors(bare_ci).color(color(1)));
    }
    let mut out =
        vec![Figure::new(chart.render(), "Whiskers: 95 % CI of the median (order statistics of the repetitions).")];
    let ratios: Vec<Option<f64>> = thr.iter().map(|r| r.ratio).collect();
    let ratio_ci: Vec<Option<(f64, f64)>> = thr.iter().map(|r| r.ratio_ci95).collect();
    if ratios.iter().any(Option::is_some) {
        let goal = thr.first().map_or(0.8, |r| r.goal);
        let rc = BarChart::new(&ctx.chart_id("throughput-ratio"), "Ours ÷ bare rumqttc pair (msgs/s)", cats)
            .series(Bars::new("ours / bare", ratios).errors(ratio_ci).color(color(2)))
            .base(1.0)
            .reference(goal, &format!("goal ≥ {}", fixed(goal, 2)))
            .axis_label("ratio (1 = as fast as the bare pair)")
            .value_format(|v| format!("{}×", fixed(v, 2)));
        out.push(Figure::new(rc.render(), "Median of the per-pair ratios with its 95 % CI; the two runs of a pair ran back to back in alternating order (A B B A …) so drift of a shared machine hits both alike."));
    }
    out
}

/// The RTT charts: one CDF per (broker, QoS), ours solid and the bare pair dashed for each
/// payload.
fn rtt_figures(s: &MqttSection, ctx: &Ctx) -> Vec<Figure> {
    let rtt = &s.rtt;
    let mut groups: Vec<(&str, u8)> = Vec::new();
    for r in rtt {
        let g = (r.broker.as_str(), r.qos);
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    let mut items = Vec::new();
    for (gi, (broker, qos)) in groups.iter().enumerate() {
        let mut lc = LineChart::new(
            &ctx.chart_id(&format!("rtt-cdf-{gi}")),
            &format!("RTT CDF · {broker} · QoS {}", count(*qos)),
            "round trip, µs",
            "% of samples ≤ x",
        )
        .log_x(true)
        .y_range(0.0, 100.0)
        .size(560.0, 340.0);
        let mut li = 0;
        for r in rtt.iter().filter(|r| r.broker == *broker && r.qos == *qos) {
            for (side, x, dashed) in [("ours", Some(&r.ours), false), ("bare", r.bare.as_ref(), true)] {
                let Some(x) = x else { continue };
                if x.cdf.is_empty() {
                    continue;
                }
                let name = format!("{} · {side}", r.payload);
                lc = lc.line(Line::new(&name, x.cdf.clone()).step(true).dashed(dashed).color(color(li / 2)));
                li += 1;
            }
        }
        items.push(Figure::new(lc.render(), ""));
    }
    items
}

/// The HTML section: the same blocks as the text, with the charts (sizes with the thesis's
/// figures hatched, throughput and its ratio to the bare pair, RTT CDFs).
pub fn html_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = section(r)?;
    let mut parts = Vec::new();
    if !s.sizes.is_empty() {
        parts.push(format!("sizes of {} formats", size_formats(s).len()));
    }
    let (thr, rtt) = (s.throughput.len(), s.rtt.len());
    if thr > 0 {
        parts.push(format!("{thr} throughput case{}", if thr == 1 { "" } else { "s" }));
    }
    if rtt > 0 {
        parts.push(format!("{rtt} RTT case{}", if rtt == 1 { "" } else { "s" }));
    }
    let summary = format!("mqtt: {}", if parts.is_empty() { "no figures".to_string() } else { parts.join(", ") });
    Some(crate::html::from_blocks(&blocks(s, Some(ctx)), summary))
}

#[cfg(test)]
mod tests;
