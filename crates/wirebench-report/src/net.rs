//! The `link`, `http` (seed 002) and `tcp` (seed 003) results sections: text and HTML.
//!
//! The sections are JSON values written by `wirebench link|http|tcp` (see those modules); this
//! module reads them loosely (a missing field shows as `-`) and never measures. Each section
//! carries the seed's published figures and notes, so a report renders from the results alone.

use std::fmt::Write;

use serde_json::Value;
use wirebench_core::results::Results;

use crate::csv::record;
use crate::html::{table, Ctx, Section};
use crate::svg::{color, compact, esc, fixed, BarChart, Bars, Line, LineChart};
use crate::table::Table;
use crate::Output;
use crate::json::{arr, f64_at as num, str_at as text};

// ---------------------------------------------------------------------------------------------
// Reading the JSON

fn strings(v: &Value, key: &str) -> Vec<String> {
    arr(v, key).iter().filter_map(|s| s.as_str().map(str::to_string)).collect()
}

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

/// Text output of tables plus notes, in the requested kind.
fn emit(output: Output, heading: &str, tables: &[Table], notes: &[(String, Vec<String>)]) -> String {
    let md = output == Output::Markdown;
    let mut out = if md { format!("## {heading}\n\n") } else { format!("{heading}\n\n") };
    for t in tables {
        out.push_str(&if md { t.to_markdown() } else { t.to_text() });
        out.push('\n');
    }
    for (title, lines) in notes {
        if lines.is_empty() {
            continue;
        }
        out.push_str(&if md { format!("**{title}**\n\n") } else { format!("{title}\n") });
        for l in lines {
            out.push_str(&if md { format!("- {l}\n") } else { format!("  - {l}\n") });
        }
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn csv_tables(tables: &[Table]) -> String {
    let mut out = String::new();
    for (i, t) in tables.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&record(&t.headers));
        for r in &t.rows {
            out.push_str(&record(r));
        }
    }
    out
}

fn figure(svg: String, caption: &str) -> String {
    if caption.is_empty() {
        format!("<figure class=\"chart\">{svg}</figure>\n")
    } else {
        format!("<figure class=\"chart\">{svg}<figcaption>{}</figcaption></figure>\n", esc(caption))
    }
}

fn notes_html(title: &str, lines: &[String], class: &str) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut out = format!("<div class=\"{class}\"><b>{}</b><ul>", esc(title));
    for l in lines {
        let _ = write!(out, "<li>{}</li>", esc(l));
    }
    out.push_str("</ul></div>\n");
    out
}

// ---------------------------------------------------------------------------------------------
// HTTP (seed 002)

/// link, harness or peer: the generator's verdict, sharpened by the whole harness's CPU (a
/// collector that used the machine makes the run harness-bound too).
fn verdict(r: &Value) -> &str {
    let v = text(&r["harness"], "verdict");
    if v.starts_with("harness-bound") {
        "harness"
    } else if v.starts_with("host-bound") {
        "host"
    } else {
        text(&r["ours"], "bound")
    }
}

/// The runs table of the `http` section.
pub fn http_table(s: &Value) -> Table {
    let mut t = Table::new(
        "HTTP POST throughput",
        &[
            "link", "path", "format", "body B", "ceiling req/s", "ours req/s", "of ceiling", "our CPU", "verdict",
            "wrk req/s", "ours/wrk", "valid", "invalid", "errors", "seed req/s", "ours/seed",
        ],
    )
    .numeric_from(3);
    t.numeric[8] = false;
    for r in arr(s, "runs") {
        let o = &r["ours"];
        t.push(vec![
            text(r, "link").into(),
            text(r, "path").into(),
            text(r, "format").into(),
            f0(num(o, &["body_bytes"])),
            f0(num(o, &["link", "ceiling_rps"])),
            f0(num(o, &["requests_per_sec"])),
            pct(num(o, &["link", "ratio"])),
            pct(num(o, &["cpu", "per_thread"])),
            verdict(r).into(),
            f0(num(r, &["wrk", "requests_per_sec"])),
            f2(num(r, &["ours_vs_wrk"])),
            f0(num(r, &["collector", "valid"])),
            f0(num(r, &["collector", "invalid"])),
            f0(o.get("errors").map(|e| {
                ["connect", "read", "write", "timeout", "protocol", "status"]
                    .iter()
                    .filter_map(|k| e.get(*k).and_then(Value::as_f64))
                    .sum()
            })),
            f1(num(r, &["seed", "requests_per_sec"])),
            r.get("ours_vs_seed").and_then(Value::as_f64).map(|x| format!("{x:.1}×")).unwrap_or_else(|| "-".into()),
        ]);
    }
    t
}

fn http_notes(s: &Value) -> Vec<(String, Vec<String>)> {
    let mut verdicts = Vec::new();
    for r in arr(s, "runs") {
        let d = match text(&r["harness"], "verdict") {
            "" => text(&r["ours"], "bound_detail"),
            v => v,
        };
        if !d.is_empty() {
            verdicts.push(format!("{} {}: {d}", text(r, "link"), text(r, "format")));
        }
    }
    let mut warn = strings(s, "notes");
    for f in arr(s, "failed") {
        warn.push(format!("{} not run: {}", text(f, "format"), text(f, "error")));
    }
    for r in arr(s, "runs") {
        for w in strings(r, "warnings").into_iter().chain(strings(&r["ours"], "warnings")) {
            warn.push(format!("{} {}: {w}", text(r, "link"), text(r, "format")));
        }
        if let Some(e) = r["collector"].get("first_error").and_then(Value::as_str) {
            warn.push(format!("{} {}: collector rejected a body: {e}", text(r, "link"), text(r, "format")));
        }
    }
    vec![
        ("What limited each run".into(), verdicts),
        ("Warnings".into(), warn),
        (
            format!("Seed 002 beside ours ({})", text(&s["published"], "source")),
            strings(&s["published"], "notes"),
        ),
    ]
}

fn http_heading(s: &Value) -> String {
    format!(
        "HTTP POST throughput ({} path, {} connections, {} s per run, {})",
        text(s, "path"),
        f0(num(s, &["connections"])),
        f1(num(s, &["duration_s"])),
        if s["validate"].as_bool().unwrap_or(true) { "every body decoded and validated" } else { "collector as a sink" }
    )
}

pub fn render_http(r: &Results, output: Output) -> String {
    let Some(s) = r.http.as_ref() else { return String::new() };
    match output {
        Output::Json => serde_json::to_string_pretty(s).unwrap_or_default() + "\n",
        Output::Csv => csv_tables(&[http_table(s)]),
        _ => emit(output, &http_heading(s), &[http_table(s)], &http_notes(s)),
    }
}

fn formats_of(runs: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in runs {
        let f = text(r, "format").to_string();
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

pub fn http_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = r.http.as_ref()?;
    let runs = arr(s, "runs");
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<p class=\"intro\">Encoded messages ({}) POSTed over HTTP/1.1 keep-alive by our load generator ({} connections, \
         {} s per run) to our collector, which decodes and validates every body with the codec its Content-Type names. \
         Path: <b>{}</b>. The link ceiling is rate ÷ 8 ÷ (body + request header + 66 B per TCP segment): the most \
         requests per second the link can carry.</p>",
        esc(text(&s["workload"], "name")),
        f0(num(s, &["connections"])),
        f1(num(s, &["duration_s"])),
        esc(text(s, "path")),
    );
    let linked: Vec<&Value> = runs.iter().filter(|r| num(r, &["ours", "link", "ratio"]).is_some()).collect();
    if !linked.is_empty() {
        let ratios: Vec<f64> = linked.iter().filter_map(|r| num(r, &["ours", "link", "ratio"])).collect();
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(0.0, f64::max);
        let harness = runs.iter().filter(|r| verdict(r) == "harness").count();
        let _ = writeln!(
            b,
            "<p class=\"keyline\">Link runs: {} · ours at <b>{}–{}</b> of the link ceiling · harness-bound runs: <b>{harness}</b></p>",
            linked.len(),
            pct(Some(lo)),
            pct(Some(hi)),
        );
    }
    // Throughput against bandwidth.
    let rated: Vec<&Value> = runs.iter().filter(|r| num(r, &["rate_bps"]).is_some()).collect();
    let formats = formats_of(runs);
    let mut rates: Vec<f64> = rated.iter().filter_map(|r| num(r, &["rate_bps"])).collect();
    rates.sort_by(f64::total_cmp);
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
        for (i, f) in formats.iter().enumerate() {
            let pts: Vec<(f64, f64)> = rated
                .iter()
                .filter(|r| text(r, "format") == f)
                .filter_map(|r| Some((num(r, &["rate_bps"])? / 1e6, num(r, &["ours", "requests_per_sec"])?)))
                .collect();
            if pts.len() >= 2 {
                chart = chart.line(Line::new(&format!("{f} (ours)"), pts).markers(true).color(color(i)));
            }
            let seed: Vec<(f64, f64)> = rated
                .iter()
                .filter(|r| text(r, "format") == f)
                .filter_map(|r| Some((num(r, &["rate_bps"])? / 1e6, num(r, &["seed", "requests_per_sec"])?)))
                .collect();
            if seed.len() >= 2 {
                chart = chart.line(Line::new(&format!("{f} (seed 002)"), seed).dashed(true).markers(true).color(color(i)));
            }
        }
        // The ceiling of the first format (its mean body).
        if let Some(f) = formats.first() {
            let ceil: Vec<(f64, f64)> = rated
                .iter()
                .filter(|r| text(r, "format") == f)
                .filter_map(|r| Some((num(r, &["rate_bps"])? / 1e6, num(r, &["ours", "link", "ceiling_rps"])?)))
                .collect();
            if ceil.len() >= 2 {
                chart = chart.line(Line::new(&format!("link ceiling ({f} body)"), ceil).dashed(true).color("#595959"));
            }
        }
        b.push_str(&figure(
            chart.render(),
            "Solid: ours; dashed with markers: the seed's published figures (go-wrk, same rates); grey dashed: the link's \
             request ceiling for the first format's body size. Both axes logarithmic.",
        ));
    }
    // Share of the ceiling per run.
    if !linked.is_empty() {
        let cats: Vec<String> = linked.iter().map(|r| format!("{} {}", text(r, "link"), text(r, "format"))).collect();
        let ours: Vec<Option<f64>> = linked.iter().map(|r| num(r, &["ours", "link", "ratio"]).map(|x| x * 100.0)).collect();
        let wrk: Vec<Option<f64>> = linked
            .iter()
            .map(|r| Some(num(r, &["wrk", "requests_per_sec"])? / num(r, &["wrk_ceiling_rps"])? * 100.0))
            .collect();
        let mut chart = BarChart::new(&ctx.chart_id("ceiling"), "Share of the link's request ceiling", cats)
            .series(Bars::new("ours", ours).color(color(0)))
            .reference(100.0, "ceiling")
            .axis_label("% of rate ÷ 8 ÷ bytes per request")
            .value_format(|v| format!("{} %", fixed(v, 1)));
        if wrk.iter().any(Option::is_some) {
            chart = chart.series(Bars::new("wrk (same server)", wrk).color(color(2)));
        }
        b.push_str(&figure(chart.render(), ""));
    }
    b.push_str(&table(&http_table(s)));
    for (title, lines) in http_notes(s) {
        let class = if title.contains("arnings") { "warn" } else { "note" };
        b.push_str(&notes_html(&title, &lines, class));
    }
    Some(Section {
        title: "HTTP throughput against link rate (seed 002)".into(),
        summary: format!("http: {} runs on the {} path", runs.len(), text(s, "path")),
        body: b,
    })
}

// ---------------------------------------------------------------------------------------------
// TCP request/response (seed 003)

pub fn tcp_table(s: &Value) -> Table {
    let mut t = Table::new(
        "TCP request/response at a fixed cadence (µs unless stated)",
        &[
            "link", "format", "bytes", "p50", "p90", "p99", "mean", "stddev", "IPDV", "jitter", "model RTT", "encode",
            "decode (server)", "decode (client)", "failures",
        ],
    )
    .numeric_from(2);
    for r in arr(s, "runs") {
        t.push(vec![
            text(r, "link").into(),
            text(r, "format").into(),
            f1(num(r, &["bytes", "mean"])),
            f0(num(r, &["rtt", "p50_us"])),
            f0(num(r, &["rtt", "p90_us"])),
            f0(num(r, &["rtt", "p99_us"])),
            f0(num(r, &["rtt", "mean_us"])),
            f0(num(r, &["rtt", "stddev_us"])),
            f0(num(r, &["rtt", "ipdv_mean_us"])),
            f0(num(r, &["rtt", "jitter_rfc3550_us"])),
            f0(num(r, &["model_rtt_us"])),
            f2(num(r, &["encode_us", "mean"])),
            f2(num(r, &["server_decode_us", "mean"])),
            f2(num(r, &["client_decode_us", "mean"])),
            f0(num(r, &["decode_failures"])),
        ]);
    }
    t
}

/// Our loopback run of `format` (the seed's setting).
fn loopback_run<'a>(s: &'a Value, format: &str) -> Option<&'a Value> {
    arr(s, "runs").iter().find(|r| text(r, "format") == format && text(r, "path") == "loopback")
}

/// Seed 003's final table beside our loopback JSON and Protobuf runs.
pub fn tcp_seed_table(s: &Value) -> Option<Table> {
    let pubs = arr(&s["published"], "final");
    if pubs.is_empty() {
        return None;
    }
    let (j, p) = (loopback_run(s, "json"), loopback_run(s, "protobuf"));
    let mut t = Table::new(
        "Seed 003 (final benchmark) beside ours on loopback",
        &["metric", "unit", "Windows JSON", "Windows PB", "AM62x JSON", "AM62x PB", "ours JSON", "ours PB", "PB/JSON seed (AM62x)", "PB/JSON ours"],
    )
    .numeric_from(2);
    let ours = |run: Option<&Value>, metric: &str| -> Option<f64> {
        let r = run?;
        match metric {
            "size" => num(r, &["bytes", "mean"]),
            "rtt_mean" => num(r, &["rtt", "mean_us"]),
            "rtt_stddev" => num(r, &["rtt", "stddev_us"]),
            "encode" => num(r, &["encode_us", "mean"]),
            "decode" => num(r, &["server_decode_us", "mean"]),
            "throughput" => num(r, &["payload_bytes_per_sec"]).map(|b| b / 1024.0),
            _ => None,
        }
    };
    let mut metrics: Vec<(&str, &str)> = Vec::new();
    for m in pubs {
        let k = (text(m, "metric"), text(m, "unit"));
        if !metrics.contains(&k) {
            metrics.push(k);
        }
    }
    let get = |platform: &str, metric: &str, f: &str| {
        pubs.iter().find(|m| text(m, "platform") == platform && text(m, "metric") == metric).and_then(|m| num(m, &[f]))
    };
    for (metric, unit) in metrics {
        let (oj, op) = (ours(j, metric), ours(p, metric));
        let ratio = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| format!("{:.2}", b / a)).unwrap_or_else(|| "-".into());
        t.push(vec![
            metric.replace('_', " "),
            unit.into(),
            f2(get("windows", metric, "json")),
            f2(get("windows", metric, "protobuf")),
            f2(get("am62x", metric, "json")),
            f2(get("am62x", metric, "protobuf")),
            f2(oj),
            f2(op),
            ratio(get("am62x", metric, "json"), get("am62x", metric, "protobuf")),
            ratio(oj, op),
        ]);
    }
    Some(t)
}

fn tcp_notes(s: &Value) -> Vec<(String, Vec<String>)> {
    let mut warn = strings(s, "notes");
    for f in arr(s, "failed") {
        warn.push(format!("{} {} not run: {}", text(f, "link"), text(f, "format"), text(f, "error")));
    }
    let mut links = Vec::new();
    for r in arr(s, "runs") {
        for w in strings(r, "warnings") {
            warn.push(format!("{} {}: {w}", text(r, "link"), text(r, "format")));
        }
        if let (Some(m), Some(p50)) = (num(r, &["model_rtt_us"]), num(r, &["rtt", "p50_us"])) {
            links.push(format!(
                "{} {}: RTT p50 {p50:.0} µs vs serialization model {m:.0} µs ({:+.1} %){}",
                text(r, "link"),
                text(r, "format"),
                (p50 / m - 1.0) * 100.0,
                r.get("note").and_then(Value::as_str).map(|n| format!(" — {n}")).unwrap_or_default()
            ));
        }
    }
    vec![
        ("Constrained links: measured against the model".into(), links),
        ("Notes and warnings".into(), warn),
        (format!("Seed 003 beside ours ({})", text(&s["published"], "source")), strings(&s["published"], "notes")),
    ]
}

pub fn render_tcp(r: &Results, output: Output) -> String {
    let Some(s) = r.tcp.as_ref() else { return String::new() };
    let mut tables = vec![tcp_table(s)];
    tables.extend(tcp_seed_table(s));
    match output {
        Output::Json => serde_json::to_string_pretty(s).unwrap_or_default() + "\n",
        Output::Csv => csv_tables(&tables),
        _ => {
            let heading = format!(
                "TCP request/response ({}, one message every {} ms)",
                text(&s["workload"], "name"),
                f1(num(s, &["cadence_ms"]))
            );
            emit(output, &heading, &tables, &tcp_notes(s))
        }
    }
}

pub fn tcp_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = r.tcp.as_ref()?;
    let runs = arr(s, "runs");
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<p class=\"intro\">One {} message every {} ms over a TCP_NODELAY connection, length-prefixed; the server decodes \
         it with the same codec and acks. RTT is write → ack read on the client. Constrained links are emulated in \
         userspace (serialization delay (bytes + 66) · 8 / rate per packet, each way); the model RTT beside each is that \
         arithmetic.</p>",
        esc(text(&s["workload"], "name")),
        f1(num(s, &["cadence_ms"]))
    );
    let mut links: Vec<String> = Vec::new();
    for r in runs {
        let l = text(r, "link").to_string();
        if !links.contains(&l) {
            links.push(l);
        }
    }
    // RTT CDFs per link.
    let mut items = Vec::new();
    for (li, l) in links.iter().enumerate() {
        let sets: Vec<(String, Vec<f64>)> = runs
            .iter()
            .filter(|r| text(r, "link") == l)
            .map(|r| {
                let v: Vec<f64> = arr(r, "rtt_samples_us").iter().filter_map(Value::as_f64).map(|x| x / 1e3).collect();
                (text(r, "format").to_string(), v)
            })
            .filter(|(_, v)| !v.is_empty())
            .collect();
        if sets.is_empty() {
            continue;
        }
        let all: Vec<f64> = sets.iter().flat_map(|(_, v)| v.iter().copied()).collect();
        let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = all.iter().copied().fold(0.0, f64::max);
        let svg = crate::svg::cdf(
            &ctx.chart_id(&format!("cdf{}", li + 1)),
            &format!("RTT distribution · {l}"),
            "RTT, ms",
            &sets,
            lo > 0.0 && hi / lo > 20.0,
        );
        items.push(figure(svg, ""));
    }
    if !items.is_empty() {
        b.push_str("<h3>RTT distribution per link</h3>\n");
        b.push_str(&format!("<div class=\"grid2\">\n{}</div>\n", items.concat()));
    }
    // Sizes and codec times (first link's runs, one per format).
    let first = links.first().cloned().unwrap_or_default();
    let base: Vec<&Value> = runs.iter().filter(|r| text(r, "link") == first).collect();
    if base.len() >= 2 && base.iter().any(|r| r.get("encode_us").is_some()) {
        let cats: Vec<String> = base.iter().map(|r| text(r, "format").to_string()).collect();
        let sizes = BarChart::new(&ctx.chart_id("bytes"), "Encoded message size", cats.clone())
            .series(Bars::new("bytes", base.iter().map(|r| num(r, &["bytes", "mean"])).collect()).color(color(0)))
            .axis_label("bytes per message (mean)")
            .value_format(|v| compact(v, 0));
        let times = BarChart::new(&ctx.chart_id("codec"), "Encode and decode time per message", cats)
            .series(Bars::new("encode (client)", base.iter().map(|r| num(r, &["encode_us", "mean"])).collect()))
            .series(Bars::new("decode (server)", base.iter().map(|r| num(r, &["server_decode_us", "mean"])).collect()))
            .axis_label("µs per message (mean, at the cadence)")
            .value_format(|v| fixed(v, 1));
        b.push_str(&format!(
            "<div class=\"grid2\">\n{}{}</div>\n",
            figure(sizes.render(), ""),
            figure(times.render(), "")
        ));
    }
    b.push_str(&table(&tcp_table(s)));
    if let Some(t) = tcp_seed_table(s) {
        b.push_str("<h3>Seed 003 beside ours</h3>\n");
        b.push_str(&table(&t));
        b.push_str("<p class=\"note\">Seed: Flutter/Dart on Windows (i7) and TI AM62x; ours: Rust codecs on this host, loopback. \
                    Compare the PB/JSON ratios, not absolute µs.</p>\n");
    }
    for (title, lines) in tcp_notes(s) {
        let class = if title.contains("arnings") { "warn" } else { "note" };
        b.push_str(&notes_html(&title, &lines, class));
    }
    Some(Section {
        title: "TCP request/response at a fixed cadence (seed 003)".into(),
        summary: format!("tcp: {} runs over {}", runs.len(), links.join(", ")),
        body: b,
    })
}

// ---------------------------------------------------------------------------------------------
// Link models

pub fn link_table(s: &Value) -> Table {
    let spec = arr(s, "rows").iter().any(|r| r.get("spec_airtime_ms").is_some());
    let mut headers = vec![
        "radio", "protocol", "format", "payload B", "app B", "frames", "on air B", "airtime ms", "msgs/day",
        "fair use/day", "fits", "IP B",
    ];
    if spec {
        headers.extend(["spec ms", "deviation"]);
    }
    let mut t = Table::new("Bytes on air, airtime and messages per day", &headers).numeric_from(3);
    t.numeric[10] = false;
    for r in arr(s, "rows") {
        let mut row = vec![
            text(r, "radio").into(),
            text(r, "protocol").into(),
            text(r, "format").into(),
            f1(num(r, &["payload_bytes"])),
            f1(num(r, &["app_bytes"])),
            f1(num(r, &["frames"])),
            f1(num(r, &["bytes_on_air"])),
            f1(num(r, &["airtime_ms"])),
            f0(num(r, &["msgs_per_day"])),
            f0(num(r, &["msgs_per_day_fair_use"])),
            if r["fits"].as_bool().unwrap_or(false) { "yes".into() } else { "no".into() },
            f0(num(r, &["ip_bytes"])),
        ];
        if spec {
            row.push(f1(num(r, &["spec_airtime_ms"])));
            row.push(num(r, &["spec_deviation_pct"]).map(|d| format!("{d:+.2} %")).unwrap_or_else(|| "-".into()));
        }
        t.push(row);
    }
    t
}

fn link_notes(s: &Value) -> Vec<(String, Vec<String>)> {
    let mut models: Vec<String> = Vec::new();
    for r in arr(s, "rows") {
        let n = format!("{}: {}", text(r, "radio"), text(r, "note"));
        if !models.iter().any(|m| m.starts_with(&format!("{}:", text(r, "radio")))) {
            models.push(n);
        }
    }
    let failed: Vec<String> = arr(s, "failed").iter().map(|f| format!("{}: {}", text(f, "format"), text(f, "error"))).collect();
    let mut spec = Vec::new();
    if arr(s, "rows").iter().any(|r| r.get("spec_airtime_ms").is_some()) {
        spec.push(format!("LoRa rows with a raw payload the spec lists are compared with {}", text(s, "spec_source")));
    }
    vec![("Models".into(), models), ("Formats not modelled".into(), failed), ("Reference".into(), spec)]
}

pub fn render_link(r: &Results, output: Output) -> String {
    let Some(s) = r.link.as_ref() else { return String::new() };
    match output {
        Output::Json => serde_json::to_string_pretty(s).unwrap_or_default() + "\n",
        Output::Csv => csv_tables(&[link_table(s)]),
        _ => emit(
            output,
            &format!("Link models: airtime and messages per day ({})", text(s, "source")),
            &[link_table(s)],
            &link_notes(s),
        ),
    }
}

pub fn link_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = r.link.as_ref()?;
    let rows = arr(s, "rows");
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<p class=\"intro\">What one message ({}) costs on constrained links, from analytic models: the protocol's bytes \
         around the payload, the frames and bytes on air, the time on air, and how many such messages a day the link \
         allows (LoRaWAN: 1 % duty cycle, with TTN's 30 s/day fair use beside it; Sigfox: 140 uplinks; the others: raw \
         capacity).</p>",
        esc(text(s, "source"))
    );
    let radios = strings(s, "radios");
    let protocols = strings(s, "protocols");
    let formats = formats_of(rows);
    let mut items = Vec::new();
    for (ri, radio) in radios.iter().enumerate() {
        let mut chart = BarChart::new(&ctx.chart_id(&format!("air{}", ri + 1)), &format!("{radio}: messages per day"), formats.clone())
            .axis_label("messages per day (log scale)")
            .log(true)
            .width(420.0)
            .value_format(|v| compact(v, 0))
            .missing_label("n/a");
        for (pi, p) in protocols.iter().enumerate() {
            let values: Vec<Option<f64>> = formats
                .iter()
                .map(|f| {
                    rows.iter()
                        .find(|r| text(r, "radio") == radio && text(r, "protocol") == p && text(r, "format") == f)
                        .and_then(|r| num(r, &["msgs_per_day"]))
                })
                .collect();
            chart = chart.series(Bars::new(p, values).color(color(pi)));
        }
        items.push(figure(chart.render(), ""));
    }
    if !items.is_empty() {
        b.push_str(&format!("<div class=\"multiples\">\n{}</div>\n", items.concat()));
        b.push_str("<p class=\"note\">One chart per link; bars per format and protocol. A message that does not fit one frame is \
                    sent as several (application fragmentation), which the airtime includes.</p>\n");
    }
    b.push_str(&table(&link_table(s)));
    for (title, lines) in link_notes(s) {
        b.push_str(&notes_html(&title, &lines, "note"));
    }
    Some(Section {
        title: "Link models: airtime and messages per day".into(),
        summary: format!("link: {} radios × {} protocols × {} formats", radios.len(), protocols.len(), formats.len()),
        body: b,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wirebench_core::results::Provenance;

    fn results(key: &str, v: Value) -> Results {
        let mut j = serde_json::to_value(Results::new(Provenance::default(), json!({}))).unwrap();
        j[key] = v;
        serde_json::from_value(j).unwrap()
    }

    fn http() -> Value {
        json!({
            "path": "lab-tbf", "connections": 100, "duration_s": 3.0, "validate": true,
            "workload": {"name": "ev-telemetry", "messages": 16},
            "notes": ["a note"],
            "runs": [
                {"link": "1mbit", "rate_bps": 1000000, "path": "lab-tbf", "format": "json",
                 "ours": {"body_bytes": 1004.0, "requests_per_sec": 104.0, "link": {"ceiling_rps": 104.4, "ratio": 0.996},
                          "cpu": {"per_thread": 0.02}, "bound": "link", "bound_detail": "link-bound: 99.6 %",
                          "errors": {"connect": 0, "read": 1}, "warnings": []},
                 "collector": {"valid": 312, "invalid": 0},
                 "wrk": {"requests_per_sec": 103.0}, "wrk_ceiling_rps": 104.4, "ours_vs_wrk": 1.01,
                 "seed": {"requests_per_sec": 25.1}, "ours_vs_seed": 4.14},
                {"link": "50mbit", "rate_bps": 50000000, "path": "lab-tbf", "format": "json",
                 "ours": {"body_bytes": 1004.0, "requests_per_sec": 5200.0, "link": {"ceiling_rps": 5240.0, "ratio": 0.992},
                          "cpu": {"per_thread": 0.5}, "bound": "link", "bound_detail": "link-bound", "errors": {}},
                 "harness": {"verdict": "harness-bound (our collector): this process used 1.95 of 2 cores"},
                 "collector": {"valid": 15600, "invalid": 0, "first_error": "bad <body>"},
                 "seed": {"requests_per_sec": 310.73}, "ours_vs_seed": 16.7}
            ],
            "failed": [{"format": "avro", "error": "no"}],
            "published": {"source": "seed 002", "notes": ["plateau is the generator"]}
        })
    }

    #[test]
    fn http_text_and_html() {
        let r = results("http", http());
        let t = render_http(&r, Output::Table);
        assert!(t.contains("HTTP POST throughput (lab-tbf path"), "{t}");
        assert!(t.contains("99.6 %") && t.contains("16.7×") && t.contains("310.7"), "{t}");
        assert!(t.contains("plateau is the generator") && t.contains("avro not run"), "{t}");
        assert!(t.contains("50mbit json: harness-bound (our collector): this process used 1.95 of 2 cores"), "{t}");
        assert!(t.contains("  link  ") && t.contains("  harness  "), "verdict column: {t}");
        let mut h = http();
        h["runs"][0]["harness"] = json!({"verdict": "host-bound: the machine was busy"});
        assert!(render_http(&results("http", h), Output::Table).contains("  host  "));
        let md = render_http(&r, Output::Markdown);
        assert!(md.starts_with("## HTTP POST") && md.contains("| 1mbit | lab-tbf | json |"), "{md}");
        let csv = render_http(&r, Output::Csv);
        assert_eq!(csv.lines().count(), 3, "{csv}");
        assert!(csv.starts_with("link,path,format,"));
        let ctx = Ctx { id: "http".into(), file: 1, files: 1 };
        let s = http_section(&r, &ctx).unwrap();
        assert!(s.body.contains("<svg") && s.body.contains("seed 002") && s.body.contains("99.2 %"), "{}", s.body);
        assert!(s.body.contains("harness-bound runs: <b>1</b>"), "{}", s.body);
        assert!(s.body.contains("bad &lt;body&gt;"), "escaped");
        // Deterministic.
        assert_eq!(s.body, http_section(&r, &ctx).unwrap().body);
        assert!(render_http(&results("tcp", json!({})), Output::Table).is_empty());
        assert!(http_section(&results("tcp", json!({})), &ctx).is_none());
    }

    #[test]
    fn tcp_text_and_html() {
        let run = |f: &str, link: &str, path: &str, bytes: f64, p50: f64| {
            json!({"link": link, "path": path, "format": f, "bytes": {"mean": bytes},
                   "rtt": {"p50_us": p50, "p90_us": p50 * 1.2, "p99_us": p50 * 2.0, "mean_us": p50, "stddev_us": 10.0,
                           "ipdv_mean_us": 5.0, "jitter_rfc3550_us": 4.0},
                   "encode_us": {"mean": 3.0}, "server_decode_us": {"mean": 2.0}, "client_decode_us": {"mean": 2.5},
                   "payload_bytes_per_sec": bytes * 20.0, "decode_failures": 0,
                   "model_rtt_us": if path == "emulator" { json!(7456.0) } else { Value::Null },
                   "rtt_samples_us": [p50, p50 + 1.0, p50 + 2.0]})
        };
        let s = json!({
            "cadence_ms": 50.0, "workload": {"name": "ev-telemetry"},
            "runs": [run("json", "loopback", "loopback", 1004.0, 160.0), run("protobuf", "loopback", "loopback", 280.0, 150.0),
                     run("json", "1mbit", "emulator", 1004.0, 9200.0)],
            "published": {"source": "seed 003", "final": [
                {"platform": "windows", "metric": "size", "unit": "B", "json": 995.16, "protobuf": 276.84},
                {"platform": "am62x", "metric": "size", "unit": "B", "json": 995.29, "protobuf": 276.74}],
                "notes": ["throughput is size × 20"]}
        });
        let r = results("tcp", s);
        let t = render_tcp(&r, Output::Table);
        assert!(t.contains("995.16") && t.contains("1004.00") && t.contains("0.28"), "{t}");
        assert!(t.contains("RTT p50 9200 µs vs serialization model 7456 µs (+23.4 %)"), "{t}");
        let ctx = Ctx { id: "tcp".into(), file: 1, files: 1 };
        let h = tcp_section(&r, &ctx).unwrap();
        assert_eq!(h.body.matches("<svg").count(), 4, "two CDFs, sizes, times");
        assert!(h.summary.contains("loopback, 1mbit"));
    }

    #[test]
    fn link_text_and_html() {
        let s = json!({
            "source": "raw sizes", "radios": ["lora-sf7"], "protocols": ["raw"], "spec_source": "spec §4",
            "rows": [{"radio": "lora-sf7", "protocol": "raw", "format": "12 B", "payload_bytes": 12.0, "app_bytes": 12.0,
                      "frames": 1.0, "bytes_on_air": 25.0, "airtime_ms": 61.696, "msgs_per_day": 14004.0,
                      "msgs_per_day_fair_use": 486.0, "fits": true, "note": "LoRaWAN", "spec_airtime_ms": 61.7,
                      "spec_deviation_pct": -0.006}],
            "failed": []
        });
        let r = results("link", s);
        let t = render_link(&r, Output::Table);
        assert!(t.contains("61.7") && t.contains("-0.01 %") && t.contains("14004"), "{t}");
        let ctx = Ctx { id: "link".into(), file: 1, files: 1 };
        let h = link_section(&r, &ctx).unwrap();
        assert!(h.body.contains("lora-sf7: messages per day"));
        let csv = render_link(&r, Output::Csv);
        assert!(csv.contains("spec ms"), "{csv}");
    }
}
