//! The `dds` results section (seed 004: DDS latency and throughput, CDR vs JSON marshalling):
//! terminal/Markdown/CSV text and the HTML section.
//!
//! The section ([`DdsSection`]) is written by `wirebench dds latency|throughput|marshal` and the
//! `[dds]` study part (crate `wirebench-dds`, `study::run`). Its lists may be empty; each view
//! shows what is there:
//!
//! - `latency`: ours per round × size × marshalling: the pooled half round trip, its CDF,
//!   allocations per sample;
//! - `throughput`: ours: samples/s, MB/s (10⁶ B of payload), delivery (sent, received, lost);
//! - `ddsperf_latency`, `ddsperf_throughput`: Cyclone's ddsperf in the same run;
//! - `marshal`: marshalling alone (encode/decode ns, bytes); `ratios`: JSON ÷ CDR per size;
//! - `checks`: the must-hold comparisons with ddsperf; `failures`;
//! - `published`: the seed's figures with their tables and notes on what cannot be right;
//! - per size ([`DdsSection::figures`]): the medians over rounds the charts and the native table
//!   show, and the seed's figures in our units.
//!
//! Several rounds are shown one per row in the tables; charts use the medians over rounds.
//! Nothing is measured or computed here.

use wirebench_core::results::Results;
use wirebench_core::sections::dds::{
    DdsSection, DdsperfSize, Interval, Marshal, SizeFigures, SEED_CDR, SEED_JSON, SEED_NATIVE,
};

use crate::blocks::{Block, Figure, List};
use crate::csv::CsvTable;
use crate::html::{Ctx, Section};
use crate::svg::{color, fixed, BarChart, Bars, Line, LineChart};
use crate::table::Table;
use crate::Output;

/// The seed's series (method, label, colour): hatched, in the colour of our counterpart (native:
/// ddsperf's grey; CDR and JSON: ours in the usual cdr, json order).
fn seed_series() -> [(&'static str, &'static str, &'static str); 3] {
    [(SEED_NATIVE, "seed native", NATIVE), (SEED_CDR, "seed CDR", color(0)), (SEED_JSON, "seed JSON", color(1))]
}
/// Colour of Cyclone's ddsperf (the native anchor).
const NATIVE: &str = "#555555";

fn num(v: Option<f64>, decimals: usize) -> String {
    v.map(|x| fixed(x, decimals)).unwrap_or_else(|| "-".into())
}

/// A number in a CSV field: empty when absent or not finite (written as `null` in results).
fn csv_num(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite()).map(|x| x.to_string()).unwrap_or_default()
}

fn size_label(n: usize) -> String {
    if n >= 1024 && n & 1023 == 0 {
        format!("{} KB", n / 1024)
    } else {
        format!("{n} B")
    }
}

fn who(marshal: Marshal) -> String {
    match marshal {
        Marshal::Cdr => "ours CDR".into(),
        Marshal::Json => "ours JSON".into(),
        other => format!("ours {}", other.name()),
    }
}

/// `, 100×20 grid; ours 150×30` when the seed's latency row was measured with another
/// instances × samples grid than our run at this size (empty when they match or are unknown).
fn grid_note(d: &DdsSection, method: &str, size: usize) -> String {
    let Some(p) = d.published.latency_ms.iter().find(|p| p.method == method && p.size == size) else {
        return String::new();
    };
    let Some(c) = d.plan.cases.iter().find(|c| c.sizes.contains(&size)) else { return String::new() };
    if (c.instances, c.samples) == (p.instances, p.samples) {
        String::new()
    } else {
        format!(", {}×{} grid; ours {}×{}", p.instances, p.samples, c.instances, c.samples)
    }
}

/// Rows of several rounds at one size, in round order (stable: ddsperf's first in a round).
fn by_round(mut rows: Vec<(u32, Vec<String>)>, t: &mut Table) {
    rows.sort_by_key(|(round, _)| *round);
    for (_, row) in rows {
        t.push(row);
    }
}

// ---------------------------------------------------------------------------------------------
// Tables

pub fn latency_table(d: &DdsSection) -> Option<Table> {
    if d.latency.is_empty() && d.ddsperf_latency.is_empty() {
        return None;
    }
    let mut t = Table::new(
        &format!(
            "DDS latency: half round trip, µs (ours pooled{}; ddsperf: medians of its 1-s windows{})",
            d.plan.min_latency_secs.map(|s| format!(", each run at least {s} s")).unwrap_or_default(),
            ddsperf_bytes_note(d)
        ),
        &["size", "round", "who", "bytes", "avg", "stddev", "p50", "p90", "p99", "max", "round trips", "allocs/sample"],
    )
    .numeric_from(3);
    for f in d.figures().iter() {
        let size = f.size;
        let mut rows: Vec<(u32, Vec<String>)> = Vec::new();
        for r in d.ddsperf_latency.iter().filter(|r| r.payload_size() == size) {
            let p = r;
            rows.push((
                r.round,
                vec![
                    size_label(size),
                    r.round.to_string(),
                    "ddsperf".into(),
                    p.size.to_string(),
                    fixed(p.mean, 1),
                    "-".into(),
                    fixed(p.p50, 1),
                    fixed(p.p90, 1),
                    fixed(p.p99, 1),
                    fixed(p.max, 0),
                    p.round_trips.to_string(),
                    "-".into(),
                ],
            ));
        }
        for r in d.latency.iter().filter(|r| r.size == size) {
            let h = &r.half_rtt_us;
            rows.push((
                r.round,
                vec![
                    size_label(size),
                    r.round.to_string(),
                    who(r.marshal),
                    r.wire_bytes.to_string(),
                    fixed(h.avg, 1),
                    fixed(h.stddev, 1),
                    fixed(h.p50, 1),
                    fixed(h.p90, 1),
                    fixed(h.p99, 1),
                    fixed(h.max, 0),
                    h.count.to_string(),
                    num(r.allocs_per_sample, 1),
                ],
            ));
        }
        by_round(rows, &mut t);
        for (method, short) in [(SEED_NATIVE, "native"), (SEED_CDR, "CDR"), (SEED_JSON, "JSON")] {
            let Some(s) = f.seed.latency_of(method) else { continue };
            t.push(vec![
                size_label(size),
                "seed".into(),
                format!("seed {short} (published{})", grid_note(d, method, size)),
                "-".into(),
                fixed(s.avg_us, 1),
                fixed(s.std_us, 1),
                fixed(s.p50_us, 1),
                fixed(s.p90_us, 1),
                fixed(s.p99_us, 1),
                fixed(s.max_us, 0),
                "-".into(),
                "-".into(),
            ]);
        }
    }
    Some(t)
}

pub fn throughput_table(d: &DdsSection) -> Option<Table> {
    if d.throughput.is_empty() && d.ddsperf_throughput.is_empty() {
        return None;
    }
    let mut t = Table::new(
        &format!(
            "DDS throughput (MB = 10⁶ B of payload; samples/s: all N from go to the last; steady: ours after the first tenth, ddsperf over its whole 1-s windows, with a bootstrap 95 % CI over batches of the steady stretch{})",
            ddsperf_bytes_note(d)
        ),
        &["size", "round", "who", "bytes", "samples/s", "steady samples/s", "steady 95 % CI", "MB/s", "received", "sent", "lost", "allocs/sample"],
    )
    .numeric_from(3);
    for f in d.figures().iter() {
        let size = f.size;
        let mut rows: Vec<(u32, Vec<String>)> = Vec::new();
        for r in d.ddsperf_throughput.iter().filter(|r| r.payload_size() == size) {
            let p = r;
            rows.push((
                r.round,
                vec![
                    size_label(size),
                    r.round.to_string(),
                    "ddsperf".into(),
                    p.size.to_string(),
                    "-".into(),
                    fixed(p.steady_samples_per_s.unwrap_or(p.samples_per_s), 0),
                    "-".into(),
                    fixed(p.payload_mb(), 1),
                    p.total.to_string(),
                    "-".into(),
                    p.lost.to_string(),
                    "-".into(),
                ],
            ));
        }
        for r in d.throughput.iter().filter(|r| r.size == size) {
            let o = r;
            rows.push((
                r.round,
                vec![
                    size_label(size),
                    r.round.to_string(),
                    who(o.marshal),
                    o.wire_bytes.to_string(),
                    fixed(o.samples_per_s, 0),
                    num(o.steady_samples_per_s, 0),
                    o.steady_ci95.map_or_else(|| "-".into(), |(lo, hi)| format!("{}–{}", fixed(lo, 0), fixed(hi, 0))),
                    fixed(o.mb_per_s, 1),
                    o.received.to_string(),
                    o.sent.to_string(),
                    o.lost.to_string(),
                    num(o.allocs_per_sample, 1),
                ],
            ));
        }
        by_round(rows, &mut t);
        for s in &f.seed.throughput {
            t.push(vec![
                size_label(size),
                "seed".into(),
                format!("seed {} (published)", s.method.replace("OpenDDSharp ", "").replace("OpenDDS ", "")),
                "-".into(),
                fixed(s.samples_per_s, 0),
                "-".into(),
                "-".into(),
                num(f.seed.throughput_of(&s.method).map(|x| x.mb_per_s), 1),
                s.samples.to_string(),
                s.samples.to_string(),
                "-".into(),
                "-".into(),
            ]);
        }
    }
    Some(t)
}

pub fn checks_table(d: &DdsSection) -> Option<Table> {
    if d.checks.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Must hold: ours (CDR) against ddsperf, same run",
        &["check", "round", "ours", "ddsperf", "unit", "ratio", "limit", "result"],
    )
    .numeric_from(1);
    t.numeric[4] = false;
    t.numeric[7] = false;
    for c in &d.checks {
        let dec = if c.unit == "us" { 1 } else { 0 };
        t.push(vec![
            c.name.clone(),
            c.round.to_string(),
            fixed(c.ours, dec),
            fixed(c.ddsperf, dec),
            c.unit.clone(),
            fixed(c.ratio, 2),
            fixed(c.limit, 1),
            if c.pass { "pass".into() } else { "FAIL".into() },
        ]);
    }
    Some(t)
}

pub fn marshal_table(d: &DdsSection) -> Option<Table> {
    if d.marshal.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Marshalling alone (no DDS): median ns per sample (! unreliable: batches ran short on a busy host), bytes, allocations",
        &["size", "marshal", "bytes", "encode ns", "decode ns", "encode allocs", "decode allocs"],
    )
    .numeric_from(2);
    for r in &d.marshal {
        t.push(vec![
            size_label(r.size),
            r.marshal.name().to_string(),
            r.bytes.to_string(),
            fixed(r.encode_ns, 0) + if r.encode_short { "!" } else { "" },
            fixed(r.decode_ns, 0) + if r.decode_short { "!" } else { "" },
            num(r.encode_allocs, 1),
            num(r.decode_allocs, 1),
        ]);
    }
    Some(t)
}

pub fn ratio_table(d: &DdsSection) -> Option<Table> {
    if d.ratios.is_empty() {
        return None;
    }
    let figures = d.figures();
    let mut t = Table::new(
        "JSON ÷ CDR (ours; seed: OpenDDSharp JSON ÷ CDR)",
        &[
            "size",
            "bytes",
            "encode",
            "decode",
            "marshal round trip",
            "latency p50",
            "seed latency p50",
            "throughput",
            "seed throughput",
        ],
    )
    .numeric_from(1);
    for r in &d.ratios {
        let seed = figures.iter().find(|f| f.size == r.size).map(|f| &f.seed_json_over_cdr);
        // A ratio over a marshalling figure marked unreliable (batches ran short) gets its mark.
        let short = |enc: bool, dec: bool| {
            let any =
                d.marshal.iter().any(|m| m.size == r.size && ((enc && m.encode_short) || (dec && m.decode_short)));
            if any {
                "!"
            } else {
                ""
            }
        };
        t.push(vec![
            size_label(r.size),
            num(r.marshal_bytes, 2),
            num(r.marshal_encode, 1) + short(true, false),
            num(r.marshal_decode, 1) + short(false, true),
            num(r.marshal_round_trip, 1) + short(true, true),
            num(r.latency_p50, 2),
            num(seed.and_then(|s| s.latency_p50), 2),
            num(r.throughput, 2),
            num(seed.and_then(|s| s.throughput), 2),
        ]);
    }
    Some(t)
}

/// CDR relative to the native anchor: ours against ddsperf, the seed's against OpenDDS native.
pub fn native_table(d: &DdsSection) -> Option<Table> {
    let mut t = Table::new(
        &format!(
            "CDR ÷ native (ours: CDR ÷ ddsperf, median of the per-round paired ratios with its order-statistic interval, throughput in steady state{}; seed: OpenDDSharp CDR ÷ OpenDDS native)",
            ddsperf_bytes_note(d)
        ),
        &["size", "latency p50", "interval", "seed latency p50", "throughput", "interval", "seed throughput"],
    )
    .numeric_from(1);
    for f in d.figures().iter() {
        let (ours, seed) = (&f.cdr_over_ddsperf, &f.seed_cdr_over_native);
        if ours.latency_p50.is_none() && ours.throughput.is_none() && seed.latency_p50.is_none() {
            continue;
        }
        let iv = f.cdr_over_ddsperf_interval.as_ref();
        t.push(vec![
            size_label(f.size),
            num(ours.latency_p50, 2),
            interval_text(iv.and_then(|i| i.latency_p50.as_ref())),
            num(seed.latency_p50, 2),
            num(ours.throughput, 2),
            interval_text(iv.and_then(|i| i.throughput.as_ref())),
            num(seed.throughput, 2),
        ]);
    }
    (!t.rows.is_empty()).then_some(t)
}

/// `0.91–0.99 (6 rounds, 96.9 %)`, or `-`.
fn interval_text(i: Option<&Interval>) -> String {
    match i {
        Some(i) => format!(
            "{}–{} ({} round{}, {:.1} %)",
            fixed(i.lo, 2),
            fixed(i.hi, 2),
            i.n,
            if i.n == 1 { "" } else { "s" },
            i.coverage * 100.0
        ),
        None => "-".into(),
    }
}

/// What ddsperf's samples carried, for table titles: the same bytes on the wire as our CDR
/// sample, or the payload alone (files written before it was stored: the payload).
fn ddsperf_bytes_note(d: &DdsSection) -> &'static str {
    if d.ddsperf_latency.is_empty() && d.ddsperf_throughput.is_empty() {
        return "";
    }
    match d.plan.ddsperf_size {
        Some(DdsperfSize::Wire) if d.plan.marshals.contains(&Marshal::Cdr) => {
            "; ddsperf's samples carry the bytes our CDR sample puts on the wire"
        }
        _ => "; ddsperf's samples carry the payload alone",
    }
}

fn failure_lines(d: &DdsSection) -> Vec<String> {
    d.failures
        .iter()
        .map(|x| {
            format!(
                "{} {}{} (round {}): {}",
                x.what,
                if x.size > 0 { size_label(x.size) } else { String::new() },
                x.marshal.map(|m| format!(" {}", m.name())).unwrap_or_default(),
                x.round,
                x.error
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Blocks

const TITLE: &str = "DDS latency and throughput, CDR vs JSON (seed 004)";

/// The section as blocks, the same for every report kind: the transport, what was measured and
/// how, the checks' answer, the tables present (each chart, HTML only, before the table that
/// gives its figures, when `charts` gives their page ids), the failed runs and the notes about
/// the seed's figures.
fn blocks(d: &DdsSection, charts: Option<&Ctx>) -> Vec<Block> {
    let mut out = vec![Block::Heading(TITLE.into())];
    if !d.transport.is_empty() {
        out.push(Block::Note(format!("{}.", d.transport)));
    }
    out.push(Block::Intro(format!(
        "A KeyedOctets sample (key string + payload octets, as in OpenDDSharp's benchmark) marshalled with CDR \
         (XCDR1, our cdr crate) or JSON (serde_json) travels as the baggage of ddsperf's KeyedSeq topic over {}. \
         Latency is half of a back-to-back ping-pong round trip between two processes, from before marshalling to \
         after unmarshalling, all round trips pooled; throughput counts N samples written flat out until the reader \
         has unmarshalled all of them. Cyclone's own ddsperf ran in the same run as the native anchor{}.",
        if d.transport.is_empty() { "DDS" } else { "the transport above" },
        ddsperf_bytes_note(d)
    )));
    if !d.published.latency_ms.is_empty() || !d.published.throughput.is_empty() {
        out.push(Block::Intro(format!(
            "Published (the seed rows of the tables; hatched in the charts): figures printed in {} (Apple M3, \
             writer and reader in one process, one-way), not measured here; its MiB/s are converted to 10⁶ B/s. \
             Ours (this host): this results file. The seed's figures come from another machine and setup: compare \
             ratios, not absolute figures.",
            if d.published.source.is_empty() { "the seed" } else { &d.published.source }
        )));
    }
    if !d.checks.is_empty() {
        let pass = d.checks.iter().filter(|c| c.pass).count();
        out.push(Block::KeyLine(format!("Must-hold checks against ddsperf: {pass} of {} pass.", d.checks.len())));
    }
    let before = out.len();
    out.extend(checks_table(d).map(Block::Table));
    if let Some(ctx) = charts {
        out.extend(latency_chart(d, ctx).map(Block::Figure));
    }
    out.extend(latency_table(d).map(Block::Table));
    if let Some(ctx) = charts {
        out.extend(throughput_chart(d, ctx).map(Block::Figure));
    }
    out.extend(throughput_table(d).map(Block::Table));
    if let Some(ctx) = charts {
        out.extend(cdf_charts(d, ctx).into_iter().map(Block::Figure));
    }
    out.extend([marshal_table(d), ratio_table(d), native_table(d)].into_iter().flatten().map(Block::Table));
    if !out[before..].iter().any(|b| matches!(b, Block::Table(_))) {
        // The lists below always had a blank line before them, under the heading too.
        out.push(Block::Blank);
    }
    let fails = failure_lines(d);
    if !fails.is_empty() {
        out.push(List::new("Failed runs", fails).into());
    }
    let notes = &d.published.notes;
    if !notes.is_empty() {
        let src = &d.published.source;
        let aside = if src.is_empty() { String::new() } else { format!(" ({src})") };
        out.push(List::new("About the seed's figures", notes.clone()).aside(aside).into());
    }
    out
}

pub fn render(r: &Results, output: Output) -> String {
    let Some(d) = r.dds.as_ref() else {
        return String::new();
    };
    match output {
        Output::Json => serde_json::to_string_pretty(d).unwrap_or_default() + "\n",
        Output::Csv => crate::csv::text(&[csv(d)]),
        Output::Table | Output::Markdown => crate::blocks::render(&blocks(d, None), output),
    }
}

/// The section's CSV table: a record per latency, throughput and marshalling run.
pub fn csv_tables(r: &Results) -> Vec<CsvTable> {
    r.dds.as_ref().map(|d| vec![csv(d)]).unwrap_or_default()
}

fn csv(d: &DdsSection) -> CsvTable {
    let mut out = CsvTable::with_header(&[
        "kind",
        "round",
        "size",
        "who",
        "bytes",
        "avg_us",
        "stddev_us",
        "p50_us",
        "p90_us",
        "p99_us",
        "max_us",
        "count",
        "samples_per_s",
        "mb_per_s",
        "lost",
        "allocs_per_sample",
        "encode_ns",
        "decode_ns",
        "encode_allocs",
        "decode_allocs",
    ]);
    // Latency and throughput records leave the marshalling columns empty, and the other way round.
    let padded = |mut fields: Vec<String>| {
        fields.resize(20, String::new());
        fields
    };
    let o = |v: f64| csv_num(Some(v));
    let none = String::new;
    for r in &d.latency {
        let (l, h) = (r, &r.half_rtt_us);
        out.rows.push(padded(vec![
            "latency".into(),
            r.round.to_string(),
            l.size.to_string(),
            l.marshal.name().to_string(),
            l.wire_bytes.to_string(),
            o(h.avg),
            o(h.stddev),
            o(h.p50),
            o(h.p90),
            o(h.p99),
            o(h.max),
            h.count.to_string(),
            none(),
            none(),
            none(),
            csv_num(l.allocs_per_sample),
        ]));
    }
    for r in &d.ddsperf_latency {
        let p = r;
        out.rows.push(padded(vec![
            "latency".into(),
            r.round.to_string(),
            p.payload_size().to_string(),
            "ddsperf".into(),
            p.size.to_string(),
            o(p.mean),
            none(),
            o(p.p50),
            o(p.p90),
            o(p.p99),
            o(p.max),
            p.round_trips.to_string(),
            none(),
            none(),
            none(),
            none(),
        ]));
    }
    for r in &d.throughput {
        let t = r;
        out.rows.push(padded(vec![
            "throughput".into(),
            r.round.to_string(),
            t.size.to_string(),
            t.marshal.name().to_string(),
            t.wire_bytes.to_string(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            t.received.to_string(),
            o(t.samples_per_s),
            o(t.mb_per_s),
            t.lost.to_string(),
            csv_num(t.allocs_per_sample),
        ]));
    }
    for r in &d.ddsperf_throughput {
        let p = r;
        out.rows.push(padded(vec![
            "throughput".into(),
            r.round.to_string(),
            p.payload_size().to_string(),
            "ddsperf".into(),
            p.size.to_string(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            p.total.to_string(),
            o(p.samples_per_s),
            o(p.payload_mb()),
            p.lost.to_string(),
            none(),
        ]));
    }
    for m in &d.marshal {
        let mut fields = vec![
            "marshal".to_string(),
            String::new(),
            m.size.to_string(),
            m.marshal.name().to_string(),
            m.bytes.to_string(),
        ];
        fields.resize(16, String::new());
        fields.extend([o(m.encode_ns), o(m.decode_ns), csv_num(m.encode_allocs), csv_num(m.decode_allocs)]);
        out.rows.push(padded(fields));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// HTML

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

/// The sizes, as the charts' categories.
fn size_labels(d: &DdsSection) -> Vec<String> {
    d.figures().iter().map(|f| size_label(f.size)).collect()
}

/// Latency p50 per payload size: ours per marshalling, ddsperf's, the seed's (medians over
/// rounds); none without latency runs.
fn latency_chart(d: &DdsSection, ctx: &Ctx) -> Option<Figure> {
    if d.latency.is_empty() && d.ddsperf_latency.is_empty() {
        return None;
    }
    let (series, all) = size_series(
        &d.run_marshals(),
        d.figures(),
        (|f, m| f.ours_of(m).and_then(|o| o.latency_p50_us), " p50"),
        (|f| f.ddsperf.latency_p50_us, "ddsperf p50"),
        (|f, method| f.seed.latency_of(method).map(|s| s.p50_us), " p50 (published)"),
    );
    Some(size_chart(
        BarChart::new(&ctx.chart_id("latency"), "Latency p50 per payload size", size_labels(d))
            .axis_label("half round trip (seed: one-way), µs")
            .value_format(us_fmt),
        series,
        &all,
        (
            "Median over rounds of each run's pooled p50",
            ". The seed's figures are one-way inside one process on another machine: compare ratios, not bars.",
        ),
    ))
}

/// Throughput (MB/s of payload) per payload size, like [`latency_chart`]; none without
/// throughput runs.
fn throughput_chart(d: &DdsSection, ctx: &Ctx) -> Option<Figure> {
    if d.throughput.is_empty() && d.ddsperf_throughput.is_empty() {
        return None;
    }
    let (series, all) = size_series(
        &d.run_marshals(),
        d.figures(),
        (|f, m| f.ours_of(m).and_then(|o| o.mb_per_s), ""),
        (|f| f.ddsperf.mb_per_s, "ddsperf"),
        (|f, method| f.seed.throughput_of(method).map(|s| s.mb_per_s), " (published)"),
    );
    Some(size_chart(
        BarChart::new(&ctx.chart_id("throughput"), "Throughput per payload size", size_labels(d))
            .axis_label("MB/s of payload (10⁶ B/s)")
            .value_format(mb_fmt),
        series,
        &all,
        ("Median over rounds. The seed printed MiB/s; converted to 10⁶ B/s here", "."),
    ))
}

/// The latency CDF of the first round, one chart per marshalling, a line per size.
fn cdf_charts(d: &DdsSection, ctx: &Ctx) -> Vec<Figure> {
    let first_round = d.latency.iter().map(|r| r.round).min();
    let mut out = Vec::new();
    for (mi, &m) in d.run_marshals().iter().enumerate() {
        let runs: Vec<_> =
            d.latency.iter().filter(|r| r.marshal == m && Some(r.round) == first_round && !r.cdf.is_empty()).collect();
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
            let pts: Vec<(f64, f64)> = r.cdf.iter().map(|&(us, frac)| (us, frac * 100.0)).collect();
            lc = lc.line(Line::new(&size_label(r.size), pts).step(true).color(color(i)));
        }
        out.push(Figure::new(lc.render(), "Every round trip of the first round, pooled; log x axis."));
    }
    out
}

pub fn html_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let d = r.dds.as_ref()?;
    let cats = size_labels(d);
    let summary = format!(
        "{} latency and {} throughput runs of ours, {} ddsperf runs, sizes {}",
        d.latency.len(),
        d.throughput.len(),
        d.ddsperf_latency.len() + d.ddsperf_throughput.len(),
        if cats.is_empty() { "-".into() } else { cats.join(", ") }
    );
    Some(crate::html::from_blocks(&blocks(d, Some(ctx)), summary))
}

/// The bars of a per-size chart and every value in them (for the axis): ours per marshalling
/// (always), ddsperf's and the seed's published ones (hatched) where there are any. Each part
/// is a value per (size[, marshalling or seed method]) and a label suffix (ddsperf: the label).
fn size_series(
    ms: &[Marshal],
    figures: &[SizeFigures],
    ours: (impl Fn(&SizeFigures, Marshal) -> Option<f64>, &str),
    native: (impl Fn(&SizeFigures) -> Option<f64>, &str),
    published: (impl Fn(&SizeFigures, &str) -> Option<f64>, &str),
) -> (Vec<Bars>, Vec<Option<f64>>) {
    let mut series: Vec<Bars> = Vec::new();
    let mut all: Vec<Option<f64>> = Vec::new();
    for (i, &m) in ms.iter().enumerate() {
        let v: Vec<Option<f64>> = figures.iter().map(|f| ours.0(f, m)).collect();
        all.extend(v.iter().copied());
        series.push(Bars::new(&format!("{}{}", who(m), ours.1), v).color(color(i)));
    }
    let nat: Vec<Option<f64>> = figures.iter().map(|f| native.0(f)).collect();
    if nat.iter().any(Option::is_some) {
        all.extend(nat.iter().copied());
        series.push(Bars::new(native.1, nat).color(NATIVE));
    }
    for (method, label, col) in seed_series() {
        let v: Vec<Option<f64>> = figures.iter().map(|f| published.0(f, method)).collect();
        if v.iter().any(Option::is_some) {
            all.extend(v.iter().copied());
            series.push(Bars::new(&format!("{label}{}", published.1), v).hatched(true).color(col));
        }
    }
    (series, all)
}

/// A per-size bar chart with its series (ours, ddsperf, the seed's hatched), on a log axis when
/// the values span more than 8×, in a figure whose caption is `caption.0` + the axis note +
/// `caption.1`.
fn size_chart(chart: BarChart, series: Vec<Bars>, all: &[Option<f64>], caption: (&str, &str)) -> Figure {
    let log = spans(all, 8.0);
    let mut chart = chart.log(log).missing_label("not run");
    for sr in series {
        chart = chart.series(sr);
    }
    Figure::new(chart.render(), format!("{}{}{}", caption.0, if log { "; log axis" } else { "" }, caption.1))
}

#[cfg(test)]
mod tests;
