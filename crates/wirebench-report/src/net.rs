//! The `link`, `http` (seed 002) and `tcp` (seed 003) results sections: one list of blocks per
//! section for the terminal, Markdown and HTML ([`crate::blocks`]), so report.md carries every
//! table and note of the page.
//!
//! The sections are the typed data of [`wirebench_core::sections`], written by the parts of
//! `wirebench-net`; this module renders them (an absent figure shows as `-`) and never measures.
//! Each section carries the seed's published figures and notes, so a report renders from the
//! results alone.

use wirebench_core::results::Results;
use wirebench_core::sections::link::{LinkRow, LinkSection};
use wirebench_core::sections::net::{HttpRun, HttpSection, TcpRun, TcpSection};

use crate::blocks::{Block, Figure, List};
use crate::csv::CsvTable;
use crate::html::{Ctx, Section};
use crate::svg::{color, compact, fixed, BarChart, Bars, Line, LineChart};
use crate::table::Table;
use crate::Output;

// ---------------------------------------------------------------------------------------------
// Formatting

fn f0(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.0}")).unwrap_or_else(|| "-".into())
}

fn f1(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "-".into())
}

fn f2(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into())
}

fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{:.1} %", x * 100.0)).unwrap_or_else(|| "-".into())
}

/// Lists of notes as blocks, each list that has lines (a list whose title names warnings is a
/// warning panel on the page and coloured on the terminal).
fn note_lists(notes: Vec<(String, Vec<String>)>) -> Vec<Block> {
    notes
        .into_iter()
        .filter(|(_, lines)| !lines.is_empty())
        .map(|(title, lines)| {
            let warning = title.to_ascii_lowercase().contains("warning");
            List::new(title, lines).bullet("  - ").warning(warning).into()
        })
        .collect()
}

/// What a seed's study page (`docs/studies/{file}`) says its figures can and cannot show
/// ([`crate::studies::CAVEATS`]), in the page's words: a sub-heading, the text as introduction
/// (Markdown and HTML; the terminal keeps the pointer to the page), and where it comes from.
fn study_blocks(study: &str, file: &str) -> Vec<Block> {
    let Some((_, heading)) = crate::studies::CAVEATS.iter().find(|(s, _)| *s == study) else { return Vec::new() };
    let Some(md) = crate::studies::section_markdown(study, heading) else { return Vec::new() };
    let mut out = vec![Block::Subheading(heading.to_string())];
    out.extend(crate::studies::plain_paragraphs(&md).into_iter().map(Block::Intro));
    out.push(Block::Note(format!("From docs/studies/{file} (the study's page; the same text).")));
    out
}

/// The distinct values of `items` in first-seen order.
fn distinct<'a>(items: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.iter().any(|o| o == i) {
            out.push(i.to_string());
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// HTTP (seed 002)

/// link, harness or peer: the generator's verdict, sharpened by the whole harness's CPU (a
/// collector that used the machine makes the run harness-bound too).
fn verdict(r: &HttpRun) -> &str {
    let v = r.harness.verdict.as_str();
    if v.starts_with("harness-bound") {
        "harness"
    } else if v.starts_with("host-bound") {
        "host"
    } else {
        r.ours.bound.name()
    }
}

/// The runs table of the `http` section.
pub fn http_table(s: &HttpSection) -> Table {
    let mut t = Table::new(
        &http_heading(s),
        &[
            "link",
            "path",
            "format",
            "body B",
            "ceiling req/s",
            "ours req/s",
            "of ceiling",
            "our CPU",
            "verdict",
            "wrk req/s",
            "ours/wrk",
            "valid",
            "invalid",
            "errors",
            "seed req/s",
            "ours/seed",
            "ours MB/s sent",
            "seed transfer KB/s",
        ],
    )
    .numeric_from(3);
    t.numeric[8] = false;
    for r in &s.runs {
        let o = &r.ours;
        let link = o.link.as_ref();
        t.push(vec![
            r.link.clone(),
            r.path.clone(),
            r.format.clone(),
            f0(Some(o.body_bytes)),
            f0(link.map(|l| l.ceiling_rps)),
            f0(Some(o.requests_per_sec)),
            pct(link.map(|l| l.ratio)),
            pct(Some(o.cpu.per_thread)),
            verdict(r).into(),
            f0(r.wrk.as_ref().map(|w| w.requests_per_sec)),
            f2(r.ours_vs_wrk),
            f0(r.collector.as_ref().map(|c| c.valid as f64)),
            f0(r.collector.as_ref().map(|c| c.invalid as f64)),
            f0(Some(o.errors.total() as f64)),
            f1(r.seed.as_ref().map(|x| x.requests_per_sec)),
            r.ours_vs_seed.map(|x| format!("{x:.1}×")).unwrap_or_else(|| "-".into()),
            f2(Some(o.request_mb_per_sec)),
            f1(r.seed.as_ref().map(|x| x.transfer_kb_per_sec)),
        ]);
    }
    t
}

fn http_notes(s: &HttpSection) -> Vec<(String, Vec<String>)> {
    let mut verdicts = Vec::new();
    for r in &s.runs {
        let d = match r.harness.verdict.as_str() {
            "" => r.ours.bound_detail.as_str(),
            v => v,
        };
        if !d.is_empty() {
            verdicts.push(format!("{} {}: {d}", r.link, r.format));
        }
    }
    let mut warn = s.notes.clone();
    for f in &s.failed {
        warn.push(format!("{} not run: {}", f.format, f.error));
    }
    for r in &s.runs {
        for w in r.warnings.iter().chain(&r.ours.warnings) {
            warn.push(format!("{} {}: {w}", r.link, r.format));
        }
        if let Some(l) = &r.ours.latency_with_timeouts {
            let ms = |v: Option<f64>| v.map(|x| format!("{:.1} ms", x / 1e3)).unwrap_or_else(|| "-".into());
            warn.push(format!(
                "{} {}: with the {} timed-out requests counted at the time they were given up (a lower bound): p50 ≥ {}, p99 ≥ {} (completed only: p50 {}, p99 {}); {} of {} connections completed no request",
                r.link,
                r.format,
                r.ours.errors.timeout,
                ms(l.p50_us),
                ms(l.p99_us),
                ms(r.ours.latency.p50_us),
                ms(r.ours.latency.p99_us),
                r.ours.starved_connections,
                r.ours.connections,
            ));
        }
        if let Some(e) = r.collector.as_ref().and_then(|c| c.first_error.as_deref()) {
            warn.push(format!("{} {}: collector rejected a body: {e}", r.link, r.format));
        }
    }
    vec![
        ("What limited each run".into(), verdicts),
        ("Warnings".into(), warn),
        (format!("Seed 002 beside ours ({})", s.published.source), {
            let mut n = s.published.notes.clone();
            n.push(
                "The seed's Transfer/sec (go-wrk) counts response bytes only; ours MB/s sent counts the request bytes (headers and body) our load generator wrote. They are shown side by side, not as a ratio.".into(),
            );
            n
        }),
    ]
}

/// The runs table's title: what was sent, over which path, for how long, and what the collector
/// checked.
fn http_heading(s: &HttpSection) -> String {
    format!(
        "HTTP POST throughput ({} path, {} connections, {} s per run, {})",
        s.path,
        f0(Some(s.connections as f64)),
        f1(Some(s.duration_s)),
        if s.validate {
            "every body decoded and validated"
        } else if s.path == "external" {
            "an external collector: what it checks is not known"
        } else {
            "collector as a sink"
        }
    )
}

/// The HTTP section's CSV table.
pub fn csv_http(r: &Results) -> Vec<CsvTable> {
    r.http.as_ref().map(|s| crate::csv::from_tables(&[http_table(s)])).unwrap_or_default()
}

pub fn render_http(r: &Results, output: Output) -> String {
    let Some(s) = r.http.as_ref() else { return String::new() };
    match output {
        Output::Json => serde_json::to_string_pretty(s).unwrap_or_default() + "\n",
        Output::Csv => crate::csv::table(&http_table(s)),
        _ => crate::blocks::render(&http_blocks(s, None), output),
    }
}

const HTTP_TITLE: &str = "HTTP throughput against link rate (seed 002)";

/// The HTTP section as blocks, the same for every report kind; the charts (HTML only) when
/// `charts` gives their page ids.
fn http_blocks(s: &HttpSection, charts: Option<&Ctx>) -> Vec<Block> {
    let runs = &s.runs;
    let mut out = vec![
        Block::Heading(HTTP_TITLE.into()),
        Block::Intro(format!(
            "Encoded messages ({}) POSTed over HTTP/1.1 keep-alive by our load generator ({} connections, {} s per \
             run) to our collector, which decodes and validates every body with the codec its Content-Type names. \
             Path: {}. The link ceiling is rate ÷ 8 ÷ (body + request header + 66 B per TCP segment): the most \
             requests per second the link can carry.",
            s.workload.name,
            f0(Some(s.connections as f64)),
            f1(Some(s.duration_s)),
            s.path,
        )),
    ];
    let ratios: Vec<f64> = runs.iter().filter_map(|r| r.ours.link.as_ref().map(|l| l.ratio)).collect();
    if !ratios.is_empty() {
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(0.0, f64::max);
        let harness = runs.iter().filter(|r| verdict(r) == "harness").count();
        out.push(Block::KeyLine(format!(
            "Link runs: {} · ours at {}–{} of the link ceiling · harness-bound runs: {harness}",
            ratios.len(),
            pct(Some(lo)),
            pct(Some(hi)),
        )));
    }
    if let Some(ctx) = charts {
        out.extend(http_figures(s, ctx).into_iter().map(Block::Figure));
    }
    out.push(http_table(s).into());
    out.extend(note_lists(http_notes(s)));
    out.extend(study_blocks("seed002", "seed002-http-bandwidth.md"));
    out
}

/// The HTTP charts: requests per second against the link rate (ours, the seed's, the ceiling)
/// when the runs span two rates or more, and each link run's share of its ceiling.
fn http_figures(s: &HttpSection, ctx: &Ctx) -> Vec<Figure> {
    let runs = &s.runs;
    let mut out = Vec::new();
    // Throughput against bandwidth.
    let rated: Vec<(f64, &HttpRun)> = runs.iter().filter_map(|r| r.rate_bps.map(|bps| (bps as f64 / 1e6, r))).collect();
    let formats = distinct(runs.iter().map(|r| r.format.as_str()));
    let mut rates: Vec<u64> = runs.iter().filter_map(|r| r.rate_bps).collect();
    rates.sort_unstable();
    rates.dedup();
    if rates.len() >= 2 {
        let mut chart = LineChart::new(
            &ctx.chart_id("throughput"),
            "Requests per second against link rate",
            "link rate, Mbit/s",
            "requests / s",
        )
        .log_x(true)
        .log_y(true);
        let points = |f: &str, y: &dyn Fn(&HttpRun) -> Option<f64>| -> Vec<(f64, f64)> {
            rated.iter().filter(|(_, r)| r.format == f).filter_map(|(x, r)| Some((*x, y(r)?))).collect()
        };
        for (i, f) in formats.iter().enumerate() {
            let pts = points(f, &|r| Some(r.ours.requests_per_sec));
            if pts.len() >= 2 {
                chart = chart.line(Line::new(&format!("{f} (ours)"), pts).markers(true).color(color(i)));
            }
            let seed = points(f, &|r| r.seed.as_ref().map(|x| x.requests_per_sec));
            if seed.len() >= 2 {
                chart =
                    chart.line(Line::new(&format!("{f} (seed 002)"), seed).dashed(true).markers(true).color(color(i)));
            }
        }
        // The ceiling of the first format (its mean body).
        if let Some(f) = formats.first() {
            let ceil = points(f, &|r| r.ours.link.as_ref().map(|l| l.ceiling_rps));
            if ceil.len() >= 2 {
                chart = chart.line(Line::new(&format!("link ceiling ({f} body)"), ceil).dashed(true).color("#595959"));
            }
        }
        out.push(Figure::new(
            chart.render(),
            "Solid: ours; dashed with markers: the seed's published figures (go-wrk, same rates); grey dashed: the link's \
             request ceiling for the first format's body size. Both axes logarithmic.",
        ));
    }
    // Share of the ceiling per run.
    let linked: Vec<&HttpRun> = runs.iter().filter(|r| r.ours.link.is_some()).collect();
    if !linked.is_empty() {
        let cats: Vec<String> = linked.iter().map(|r| format!("{} {}", r.link, r.format)).collect();
        let ours: Vec<Option<f64>> = linked.iter().map(|r| r.ours.link.as_ref().map(|l| l.ratio * 100.0)).collect();
        let wrk: Vec<Option<f64>> =
            linked.iter().map(|r| Some(r.wrk.as_ref()?.requests_per_sec / r.wrk_ceiling_rps? * 100.0)).collect();
        let mut chart = BarChart::new(&ctx.chart_id("ceiling"), "Share of the link's request ceiling", cats)
            .series(Bars::new("ours", ours).color(color(0)))
            .reference(100.0, "ceiling")
            .axis_label("% of rate ÷ 8 ÷ bytes per request")
            .value_format(|v| format!("{} %", fixed(v, 1)));
        if wrk.iter().any(Option::is_some) {
            chart = chart.series(Bars::new("wrk (same server)", wrk).color(color(2)));
        }
        out.push(Figure::new(chart.render(), ""));
    }
    out
}

pub fn http_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = r.http.as_ref()?;
    let summary = format!("http: {} runs on the {} path", s.runs.len(), s.path);
    Some(crate::html::from_blocks(&http_blocks(s, Some(ctx)), summary))
}

// ---------------------------------------------------------------------------------------------
// TCP request/response (seed 003)

pub fn tcp_table(s: &TcpSection) -> Table {
    let mut t = Table::new(
        &format!(
            "TCP request/response ({}, one message every {} ms; µs unless stated)",
            s.workload.name,
            f1(Some(s.cadence_ms))
        ),
        &[
            "link",
            "format",
            "bytes",
            "p50",
            "p90",
            "p99",
            "mean",
            "stddev",
            "IPDV",
            "jitter",
            "model RTT",
            "encode",
            "decode (server)",
            "decode (client)",
            "failures",
        ],
    )
    .numeric_from(2);
    for r in &s.runs {
        let rtt = r.rtt();
        let codec = r.codec();
        t.push(vec![
            r.link().into(),
            r.format().into(),
            f1(Some(r.bytes_mean())),
            f0(Some(rtt.p50_us)),
            f0(Some(rtt.p90_us)),
            f0(Some(rtt.p99_us)),
            f0(Some(rtt.mean_us)),
            f0(Some(rtt.stddev_us)),
            f0(Some(rtt.ipdv_mean_us)),
            f0(Some(rtt.jitter_rfc3550_us)),
            f0(r.model_rtt_us()),
            f2(codec.map(|c| c.encode_us.mean)),
            f2(codec.map(|c| c.server_decode_us.mean)),
            f2(codec.map(|c| c.client_decode_us.mean)),
            f0(codec.map(|c| c.decode_failures as f64)),
        ]);
    }
    t
}

/// Our loopback run of `format` (the seed's setting).
fn loopback_run<'a>(s: &'a TcpSection, format: &str) -> Option<&'a TcpRun> {
    s.runs.iter().find(|r| r.format() == format && r.path() == "loopback")
}

/// Our figure for one of the seed's metrics, from a run.
fn our_metric(run: Option<&TcpRun>, metric: &str) -> Option<f64> {
    let r = run?;
    match metric {
        "size" => Some(r.bytes_mean()),
        "rtt_mean" => Some(r.rtt().mean_us),
        "rtt_stddev" => Some(r.rtt().stddev_us),
        "encode" => r.codec().map(|c| c.encode_us.mean),
        "decode" => r.codec().map(|c| c.server_decode_us.mean),
        "throughput" => r.codec().map(|c| c.payload_bytes_per_sec / 1024.0),
        _ => None,
    }
}

/// Seed 003's final table beside our loopback JSON and Protobuf runs.
pub fn tcp_seed_table(s: &TcpSection) -> Option<Table> {
    let pubs = &s.published.final_;
    if pubs.is_empty() || !is_seed_workload(s) {
        return None;
    }
    let (j, p) = (loopback_run(s, "json"), loopback_run(s, "protobuf"));
    let mut t = Table::new(
        "Seed 003 (final benchmark) beside ours on loopback",
        &[
            "metric",
            "unit",
            "Windows JSON",
            "Windows PB",
            "AM62x JSON",
            "AM62x PB",
            "ours JSON",
            "ours PB",
            "PB/JSON seed (AM62x)",
            "PB/JSON ours",
        ],
    )
    .numeric_from(2);
    let mut metrics: Vec<(&str, &str)> = Vec::new();
    for m in pubs {
        let k = (m.metric.as_str(), m.unit.as_str());
        if !metrics.contains(&k) {
            metrics.push(k);
        }
    }
    let get = |platform: &str, metric: &str, protobuf: bool| {
        pubs.iter().find(|m| m.platform == platform && m.metric == metric).map(|m| {
            if protobuf {
                m.protobuf
            } else {
                m.json
            }
        })
    };
    for (metric, unit) in metrics {
        let (oj, op) = (our_metric(j, metric), our_metric(p, metric));
        let ratio = |a: Option<f64>, b: Option<f64>| {
            a.zip(b).map(|(a, b)| format!("{:.2}", b / a)).unwrap_or_else(|| "-".into())
        };
        t.push(vec![
            metric.replace('_', " "),
            unit.into(),
            f2(get("windows", metric, false)),
            f2(get("windows", metric, true)),
            f2(get("am62x", metric, false)),
            f2(get("am62x", metric, true)),
            f2(oj),
            f2(op),
            ratio(get("am62x", metric, false), get("am62x", metric, true)),
            ratio(oj, op),
        ]);
    }
    Some(t)
}

fn tcp_notes(s: &TcpSection) -> Vec<(String, Vec<String>)> {
    let mut warn = s.notes.clone();
    for f in &s.failed {
        warn.push(format!("{} {} not run: {}", f.link, f.format, f.error));
    }
    let mut links = Vec::new();
    for r in &s.runs {
        for w in r.warnings() {
            warn.push(format!("{} {}: {w}", r.link(), r.format()));
        }
        if let Some(m) = r.model_rtt_us() {
            let p50 = r.rtt().p50_us;
            links.push(format!(
                "{} {}: RTT p50 {p50:.0} µs vs serialization model {m:.0} µs ({:+.1} %){}",
                r.link(),
                r.format(),
                (p50 / m - 1.0) * 100.0,
                r.note().map(|n| format!(" — {n}")).unwrap_or_default()
            ));
        }
    }
    vec![
        ("Constrained links: measured against the model".into(), links),
        ("Notes and warnings".into(), warn),
        if is_seed_workload(s) {
            let mut notes = s.published.notes.clone();
            notes.push(
                "Our encode/decode columns time each message as it is sent, on the dynamic path (the generic value tree); the seed timed generated code. The [speed] part (`wirebench speed --corpus ev-telemetry`) measures the typed path beside it: there Protobuf encodes faster than JSON, as in the seed.".into(),
            );
            (format!("Seed 003 beside ours ({})", s.published.source), notes)
        } else {
            (
                "Seed 003".into(),
                vec![format!(
                    "Seed 003's figures are for its EV telemetry message; this run sent {} ({} messages), so they are not set beside it.",
                    s.workload.name, s.workload.messages
                )],
            )
        },
    ]
}

/// Whether a TCP run sent seed 003's own message (the EV telemetry series), so that the seed's
/// figures compare with ours.
fn is_seed_workload(s: &TcpSection) -> bool {
    s.workload.name == "ev-telemetry"
}

fn tcp_tables(s: &TcpSection) -> Vec<Table> {
    let mut tables = vec![tcp_table(s)];
    tables.extend(tcp_seed_table(s));
    tables
}

/// The TCP section's CSV tables: the runs, then seed 003's figures beside ours when the run
/// sent the seed's message.
pub fn csv_tcp(r: &Results) -> Vec<CsvTable> {
    r.tcp.as_ref().map(|s| crate::csv::from_tables(&tcp_tables(s))).unwrap_or_default()
}

pub fn render_tcp(r: &Results, output: Output) -> String {
    let Some(s) = r.tcp.as_ref() else { return String::new() };
    match output {
        Output::Json => serde_json::to_string_pretty(s).unwrap_or_default() + "\n",
        Output::Csv => crate::csv::text(&crate::csv::from_tables(&tcp_tables(s))),
        _ => crate::blocks::render(&tcp_blocks(s, None), output),
    }
}

const TCP_TITLE: &str = "TCP request/response at a fixed cadence (seed 003)";

/// The TCP section as blocks, the same for every report kind; the charts (HTML only) when
/// `charts` gives their page ids.
fn tcp_blocks(s: &TcpSection, charts: Option<&Ctx>) -> Vec<Block> {
    let mut out = vec![
        Block::Heading(TCP_TITLE.into()),
        Block::Intro(format!(
            "One {} message every {} ms over a TCP_NODELAY connection, length-prefixed; the server decodes it with \
             the same codec and acks. RTT is write → ack read on the client. Constrained links are emulated in \
             userspace (serialization delay (bytes + 66) · 8 / rate per packet, each way); the model RTT beside each \
             is that arithmetic.",
            s.workload.name,
            f1(Some(s.cadence_ms))
        )),
    ];
    if let Some(ctx) = charts {
        out.extend(tcp_figures(s, ctx));
    }
    out.push(tcp_table(s).into());
    if let Some(t) = tcp_seed_table(s) {
        out.push(Block::Subheading("Seed 003 beside ours".into()));
        out.push(t.into());
        out.push(Block::Note(
            "Seed: Flutter/Dart on Windows (i7) and TI AM62x; ours: Rust codecs on this host, loopback. Compare the \
             PB/JSON ratios, not absolute µs."
                .into(),
        ));
        out.extend(study_blocks("seed003", "seed003-ev-telemetry.md"));
    }
    out.extend(note_lists(tcp_notes(s)));
    out
}

/// The TCP charts: the RTT distribution of each link (one chart per link, a line per format),
/// then the encoded size and the codec times of the first link's runs.
fn tcp_figures(s: &TcpSection, ctx: &Ctx) -> Vec<Block> {
    let runs = &s.runs;
    let mut out = Vec::new();
    let links = distinct(runs.iter().map(TcpRun::link));
    // RTT CDFs per link.
    let mut items = Vec::new();
    for (li, l) in links.iter().enumerate() {
        let sets: Vec<(String, Vec<(f64, f64)>)> = runs
            .iter()
            .filter(|r| r.link() == l)
            .filter_map(|r| {
                let c = r.codec()?;
                Some((c.format.clone(), c.rtt_cdf_ms.clone()))
            })
            .filter(|(_, v)| !v.is_empty())
            .collect();
        if sets.is_empty() {
            continue;
        }
        // A log axis when the RTTs span more than a factor of 20 (a CDF's first and last
        // points are the smallest and largest RTT).
        let all = sets.iter().flat_map(|(_, v)| v.iter().map(|p| p.0));
        let lo = all.clone().fold(f64::INFINITY, f64::min);
        let hi = all.fold(0.0, f64::max);
        let svg = crate::svg::cdf(
            &ctx.chart_id(&format!("cdf{}", li + 1)),
            &format!("RTT distribution · {l}"),
            "RTT, ms",
            &sets,
            lo > 0.0 && hi / lo > 20.0,
        );
        items.push(Figure::new(svg, ""));
    }
    if !items.is_empty() {
        out.push(Block::Figures {
            items,
            note: "RTT distribution per link: the share of messages answered within each RTT, a line per format \
                   (the table gives p50, p90 and p99)."
                .into(),
        });
    }
    // Sizes and codec times (first link's runs, one per format).
    let first = links.first().cloned().unwrap_or_default();
    let base: Vec<&TcpRun> = runs.iter().filter(|r| r.link() == first).collect();
    if base.len() >= 2 && base.iter().any(|r| r.codec().is_some()) {
        let cats: Vec<String> = base.iter().map(|r| r.format().to_string()).collect();
        let codec_mean = |f: fn(&wirebench_core::sections::net::TcpCodecRun) -> f64| -> Vec<Option<f64>> {
            base.iter().map(|r| r.codec().map(f)).collect()
        };
        let sizes = BarChart::new(&ctx.chart_id("bytes"), "Encoded message size", cats.clone())
            .series(Bars::new("bytes", base.iter().map(|r| Some(r.bytes_mean())).collect()).color(color(0)))
            .axis_label("bytes per message (mean)")
            .value_format(|v| compact(v, 0));
        let times = BarChart::new(&ctx.chart_id("codec"), "Encode and decode time per message", cats)
            .series(Bars::new("encode (client)", codec_mean(|c| c.encode_us.mean)))
            .series(Bars::new("decode (server)", codec_mean(|c| c.server_decode_us.mean)))
            .axis_label("µs per message (mean, at the cadence)")
            .value_format(|v| fixed(v, 1));
        out.push(Block::Figures {
            items: vec![Figure::new(sizes.render(), ""), Figure::new(times.render(), "")],
            note: String::new(),
        });
    }
    out
}

pub fn tcp_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = r.tcp.as_ref()?;
    let links = distinct(s.runs.iter().map(TcpRun::link));
    let summary = format!("tcp: {} runs over {}", s.runs.len(), links.join(", "));
    Some(crate::html::from_blocks(&tcp_blocks(s, Some(ctx)), summary))
}

// ---------------------------------------------------------------------------------------------
// Link models

/// Whether any row carries the spec table's figures.
fn has_spec(s: &LinkSection) -> bool {
    s.rows.iter().any(|r| r.spec_airtime_ms.is_some())
}

pub fn link_table(s: &LinkSection) -> Table {
    let spec = has_spec(s);
    let mut headers = vec![
        "radio",
        "protocol",
        "format",
        "payload B",
        "app B",
        "frames",
        "on air B",
        "airtime ms",
        "msgs/day",
        "fair use/day",
        "fits",
        "IP B",
    ];
    if spec {
        headers.extend(["spec ms", "deviation"]);
    }
    let mut t =
        Table::new(&format!("Bytes on air, airtime and messages per day ({})", s.source), &headers).numeric_from(3);
    t.numeric[10] = false;
    for r in &s.rows {
        let mut row = vec![
            r.radio.clone(),
            r.protocol.clone(),
            r.format.clone(),
            f1(Some(r.payload_bytes)),
            f1(Some(r.app_bytes)),
            f1(Some(r.frames)),
            f1(Some(r.bytes_on_air)),
            f1(Some(r.airtime_ms)),
            f0(Some(r.msgs_per_day)),
            f0(r.msgs_per_day_fair_use),
            if r.fits { "yes".into() } else { "no".into() },
            f0(r.ip_bytes),
        ];
        if spec {
            row.push(f1(r.spec_airtime_ms));
            row.push(r.spec_deviation_pct.map(|d| format!("{d:+.2} %")).unwrap_or_else(|| "-".into()));
        }
        t.push(row);
    }
    t
}

fn link_notes(s: &LinkSection) -> Vec<(String, Vec<String>)> {
    // The model note of each radio, once.
    let mut models: Vec<String> = Vec::new();
    for r in &s.rows {
        if !models.iter().any(|m| m.starts_with(&format!("{}:", r.radio))) {
            models.push(format!("{}: {}", r.radio, r.note));
        }
    }
    let failed: Vec<String> = s.failed.iter().map(|f| format!("{}: {}", f.format, f.error)).collect();
    let mut spec = Vec::new();
    if has_spec(s) {
        spec.push(format!("LoRa rows with a raw payload the spec lists are compared with {}", s.spec_source));
    }
    vec![("Models".into(), models), ("Formats not modelled".into(), failed), ("Reference".into(), spec)]
}

/// The link section's CSV table.
pub fn csv_link(r: &Results) -> Vec<CsvTable> {
    r.link.as_ref().map(|s| crate::csv::from_tables(&[link_table(s)])).unwrap_or_default()
}

pub fn render_link(r: &Results, output: Output) -> String {
    let Some(s) = r.link.as_ref() else { return String::new() };
    match output {
        Output::Json => serde_json::to_string_pretty(s).unwrap_or_default() + "\n",
        Output::Csv => crate::csv::table(&link_table(s)),
        _ => crate::blocks::render(&link_blocks(s, None), output),
    }
}

const LINK_TITLE: &str = "Link models: airtime and messages per day";

/// The link section as blocks, the same for every report kind; the charts (HTML only) when
/// `charts` gives their page ids.
fn link_blocks(s: &LinkSection, charts: Option<&Ctx>) -> Vec<Block> {
    let mut out = vec![
        Block::Heading(LINK_TITLE.into()),
        Block::Intro(format!(
            "What one message ({}) costs on constrained links, from analytic models: the protocol's bytes around \
             the payload, the frames and bytes on air, the time on air, and how many such messages a day the link \
             allows (LoRaWAN: 1 % duty cycle, with TTN's 30 s/day fair use beside it; Sigfox: 140 uplinks; the \
             others: raw capacity).",
            s.source
        )),
    ];
    if let Some(ctx) = charts {
        let items = link_figures(s, ctx);
        if !items.is_empty() {
            out.push(Block::Figures { items, note: "One chart per link; bars per format and protocol.".into() });
        }
    }
    out.push(link_table(s).into());
    out.push(Block::Caption(
        "A message that does not fit one frame is sent as several (application fragmentation), which the airtime \
         includes."
            .into(),
    ));
    out.extend(note_lists(link_notes(s)));
    out
}

/// One chart per radio: messages per day for each format, a bar per protocol.
fn link_figures(s: &LinkSection, ctx: &Ctx) -> Vec<Figure> {
    let formats = distinct(s.rows.iter().map(|r| r.format.as_str()));
    let mut items = Vec::new();
    for (ri, radio) in s.radios.iter().enumerate() {
        let mut chart = BarChart::new(
            &ctx.chart_id(&format!("air{}", ri + 1)),
            &format!("{radio}: messages per day"),
            formats.clone(),
        )
        .axis_label("messages per day (log scale)")
        .log(true)
        .width(420.0)
        .value_format(|v| compact(v, 0))
        .missing_label("n/a");
        for (pi, p) in s.protocols.iter().enumerate() {
            let values: Vec<Option<f64>> = formats
                .iter()
                .map(|f| {
                    s.rows
                        .iter()
                        .find(|r: &&LinkRow| &r.radio == radio && &r.protocol == p && &r.format == f)
                        .map(|r| r.msgs_per_day)
                })
                .collect();
            chart = chart.series(Bars::new(p, values).color(color(pi)));
        }
        items.push(Figure::new(chart.render(), ""));
    }
    items
}

pub fn link_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = r.link.as_ref()?;
    let summary = format!(
        "link: {} radios × {} protocols × {} formats",
        s.radios.len(),
        s.protocols.len(),
        distinct(s.rows.iter().map(|r| r.format.as_str())).len()
    );
    Some(crate::html::from_blocks(&link_blocks(s, Some(ctx)), summary))
}

#[cfg(test)]
mod tests;
