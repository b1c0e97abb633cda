//! The fleet section: per format and fleet size, what the fleet puts on the uplink, what it
//! costs the broker, delivery and latency from the scheduled send time.

use wirebench_core::results::Results;
use wirebench_core::sections::fleet::{FleetRun, FleetSection, Hist};

use crate::blocks::{Block, Figure, List};
use crate::html::{Ctx, Section};
use crate::svg::{color, BarChart, Bars, Line, LineChart};
use crate::table::Table;
use crate::Output;

fn q(h: &Hist, which: fn(&Hist) -> Option<wirebench_core::sections::fleet::Quantile>) -> String {
    match which(h) {
        Some(q) => format!("{} [{}–{}]", ms(q.value), ms(q.lo), ms(q.hi)),
        None => "-".into(),
    }
}

/// µs as ms with 2 decimals.
fn ms(us: u64) -> String {
    format!("{:.2}", us as f64 / 1e3)
}

fn kb(bytes_per_s: f64) -> String {
    format!("{:.1}", bytes_per_s / 1e3)
}

fn opt(v: Option<f64>, d: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.d$}"))
}

/// What arrived of what the schedule called for, in per cent (not of what was sent: a broker
/// that died leaves the rest unsent).
fn delivered(r: &FleetRun) -> String {
    let d = &r.delivery;
    if d.scheduled == 0 {
        return "-".into();
    }
    format!("{:.2} %", 100.0 * d.received.min(d.scheduled) as f64 / d.scheduled as f64)
}

fn tables(f: &FleetSection) -> Vec<Table> {
    let mut cost = Table::new(
        "Per format and fleet size: what the fleet puts on the uplink and what it costs the broker",
        &[
            "format",
            "devices",
            "payload B",
            "MQTT B/msg",
            "msgs/s",
            "app kB/s",
            "wire kB/s uplink",
            "wire kB/s downlink",
            "broker cores",
            "broker RSS MiB",
            "harness cores",
            "bottleneck",
        ],
    )
    .numeric_from(1);
    let mut delivery = Table::new(
        "Delivery and latency from the scheduled send time (ms, with 95 % confidence intervals)",
        &[
            "format",
            "devices",
            "QoS",
            "connected",
            "scheduled",
            "sent",
            "received",
            "delivered",
            "lost",
            "dup",
            "reordered",
            "latency p50",
            "p99",
            "p99.9",
            "max",
            "send lag p99",
        ],
    )
    .numeric_from(1);
    for r in &f.runs {
        cost.push(vec![
            r.format.clone(),
            r.devices.to_string(),
            format!("{:.1}", r.payload.mean_bytes),
            format!("{:.1}", r.traffic.mqtt_bytes_per_msg),
            format!("{:.1}", r.traffic.msgs_per_s),
            kb(r.traffic.app_bytes_per_s),
            kb(r.traffic.wire_bytes_per_s),
            kb(r.traffic.downlink_wire_bytes_per_s),
            opt(r.cpu.broker_cores, 3),
            opt(r.cpu.broker_rss_bytes.map(|b| b as f64 / (1 << 20) as f64), 1),
            format!("{:.3}", r.cpu.harness_cores),
            r.cpu.bottleneck.clone(),
        ]);
        delivery.push(vec![
            r.format.clone(),
            r.devices.to_string(),
            r.qos.to_string(),
            format!("{}/{}", r.connect.connected, r.connect.attempted),
            r.delivery.scheduled.to_string(),
            r.delivery.sent.to_string(),
            r.delivery.received.to_string(),
            delivered(r),
            r.delivery.lost.to_string(),
            r.delivery.duplicated.to_string(),
            r.delivery.reordered.to_string(),
            q(&r.latency_us, |h| h.p50),
            q(&r.latency_us, |h| h.p99),
            q(&r.latency_us, |h| h.p999),
            ms(r.latency_us.max),
            r.send_lag_us.p99.map_or("-".into(), |q| ms(q.value)),
        ]);
    }
    vec![cost, delivery]
}

fn notes(f: &FleetSection) -> Vec<String> {
    let mut v = Vec::new();
    let s = &f.shards;
    if s.len() > 1 {
        let skew = match f.clock.as_ref().and_then(|c| c.max_skew_bound_us) {
            Some(b) => format!("the shards' clocks differ by at most {} ms (probes through the broker)", ms(b)),
            None => "the shards' clock skew is not bounded (some shards did not run at the same time)".into(),
        };
        v.push(format!(
            "Merged from {} shards (run {}); latencies are timed within each shard, so skew does not enter them; {skew}.",
            s.len(),
            f.run_id
        ));
    } else if let Some(one) = s.first() {
        if one.count > 1 {
            v.push(format!(
                "Shard {} of {} (run {}): merge the shard files with `wirebench merge`.",
                one.index, one.count, f.run_id
            ));
        }
    }
    for r in &f.runs {
        let c = &r.connect;
        v.push(format!(
            "{} × {}: connected {} devices at {:.0}/s ({} retried attempts{}; setup p50 {} ms, p99 {} ms); {}.",
            r.format,
            r.devices,
            c.connected,
            c.rate_per_s,
            c.retries,
            c.listen_overflows
                .filter(|&n| n > 0)
                .map(|n| format!(", {n} connections dropped by a full accept queue"))
                .unwrap_or_default(),
            c.setup_us.p50.map_or("-".into(), |q| ms(q.value)),
            c.setup_us.p99.map_or("-".into(), |q| ms(q.value)),
            r.cpu.bottleneck_reason
        ));
        for e in r.errors.iter().chain(&r.warnings) {
            v.push(format!("{} × {}: {e}", r.format, r.devices));
        }
    }
    v.extend(f.notes.iter().cloned());
    v
}

/// The section's CSV tables.
pub fn csv_tables(results: &Results) -> Vec<crate::csv::CsvTable> {
    results.fleet.as_ref().map(|f| crate::csv::from_tables(&tables(f))).unwrap_or_default()
}

pub fn render(results: &Results, output: Output) -> String {
    let Some(f) = &results.fleet else { return String::new() };
    match output {
        Output::Json => serde_json::to_string_pretty(f).expect("section serializes") + "\n",
        Output::Csv => crate::csv::text(&crate::csv::from_tables(&tables(f))),
        Output::Table | Output::Markdown => crate::blocks::render(&blocks(f, None), output),
    }
}

/// The section as blocks, the same for every report kind; the charts (HTML only) when `charts`
/// gives their page ids.
fn blocks(f: &FleetSection, charts: Option<&Ctx>) -> Vec<Block> {
    let first = f.runs.first();
    let mut out = vec![
        Block::Heading(TITLE.into()),
        Block::Intro(format!(
            "Simulated devices, each its own MQTT connection, publishing every {} (±{:.0} %) at QoS {} through {}; \
             one row per format and fleet size.",
            first.map_or("-".into(), |r| format!("{:.1} s", r.period_ms as f64 / 1e3)),
            first.map_or(0.0, |r| r.jitter * 100.0),
            first.map_or(0, |r| r.qos),
            first.map_or(String::new(), |r| r.broker.clone()),
        )),
    ];
    if let Some(ctx) = charts {
        out.extend(figures(f, ctx).into_iter().map(Block::Figure));
    }
    out.extend(tables(f).into_iter().map(Block::Table));
    out.push(List::untitled(notes(f)).into());
    out
}

const TITLE: &str = "Fleet: formats at fleet scale over MQTT";

/// The formats in first-seen order, and the fleet sizes ascending.
fn axes(f: &FleetSection) -> (Vec<String>, Vec<u64>) {
    let mut formats: Vec<String> = Vec::new();
    let mut sizes: Vec<u64> = Vec::new();
    for r in &f.runs {
        if !formats.contains(&r.format) {
            formats.push(r.format.clone());
        }
        if !sizes.contains(&r.devices) {
            sizes.push(r.devices);
        }
    }
    sizes.sort_unstable();
    (formats, sizes)
}

fn run_of<'a>(f: &'a FleetSection, format: &str, devices: u64) -> Option<&'a FleetRun> {
    f.runs.iter().find(|r| r.format == format && r.devices == devices)
}

/// The charts: uplink bytes and broker CPU against fleet size (lines), or per format at one size
/// (bars).
fn figures(f: &FleetSection, ctx: &Ctx) -> Vec<Figure> {
    let (formats, sizes) = axes(f);
    let mut out = Vec::new();
    let series = |get: fn(&FleetRun) -> Option<f64>| -> Vec<(String, Vec<(f64, f64)>)> {
        formats
            .iter()
            .map(|fm| (fm.clone(), sizes.iter().filter_map(|&n| Some((n as f64, get(run_of(f, fm, n)?)?))).collect()))
            .collect()
    };
    let wire = series(|r| Some(r.traffic.wire_bytes_per_s / 1e3));
    let cpu = series(|r| r.cpu.broker_cores);
    if sizes.len() > 1 {
        let mut lc =
            LineChart::new(&ctx.chart_id("wire"), "Uplink wire bytes per second vs fleet size", "devices", "kB/s")
                .log_x(true)
                .y_zero(true);
        for (i, (name, pts)) in wire.iter().enumerate() {
            lc = lc.line(Line::new(name, pts.clone()).markers(true).color(color(i)));
        }
        out.push(Figure::new(lc.render(), "Bytes grow with the fleet at the per-message cost of each format: headers and TCP/IP overhead are the same for all."));
        if cpu.iter().any(|(_, p)| !p.is_empty()) {
            let mut lc = LineChart::new(&ctx.chart_id("cpu"), "Broker CPU vs fleet size", "devices", "cores")
                .log_x(true)
                .y_zero(true);
            for (i, (name, pts)) in cpu.iter().enumerate() {
                lc = lc.line(Line::new(name, pts.clone()).markers(true).color(color(i)));
            }
            out.push(Figure::new(lc.render(), "The broker process's CPU over the publishing window, from /proc (the embedded broker runs in a child process of wirebench; a broker elsewhere is not measured)."));
        }
    } else if let Some(&n) = sizes.first() {
        let cats = formats.clone();
        let wire_bars: Vec<Option<f64>> =
            formats.iter().map(|fm| run_of(f, fm, n).map(|r| r.traffic.wire_bytes_per_s / 1e3)).collect();
        let chart = BarChart::new(&ctx.chart_id("wire"), &format!("Uplink wire kB/s, {n} devices"), cats.clone())
            .series(Bars::new("wire kB/s", wire_bars).color(color(0)))
            .axis_label("kB/s")
            .value_format(|v| format!("{v:.1}"));
        out.push(Figure::new(chart.render(), ""));
        let cpu_bars: Vec<Option<f64>> =
            formats.iter().map(|fm| run_of(f, fm, n).and_then(|r| r.cpu.broker_cores)).collect();
        if cpu_bars.iter().any(Option::is_some) {
            let chart = BarChart::new(&ctx.chart_id("cpu"), &format!("Broker CPU, {n} devices"), cats)
                .series(Bars::new("broker cores", cpu_bars).color(color(1)))
                .axis_label("cores")
                .value_format(|v| format!("{v:.3}"));
            out.push(Figure::new(chart.render(), ""));
        }
    }
    out
}

pub fn html_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let f = r.fleet.as_ref()?;
    let (formats, sizes) = axes(f);
    let delivered: u64 = f.runs.iter().map(|r| r.delivery.received).sum();
    let scheduled: u64 = f.runs.iter().map(|r| r.delivery.scheduled).sum();
    let summary = format!(
        "fleet: {} runs ({} formats × {} sizes up to {} devices), {delivered}/{scheduled} scheduled messages delivered",
        f.runs.len(),
        formats.len(),
        sizes.len(),
        sizes.last().copied().unwrap_or(0)
    );
    Some(crate::html::from_blocks(&blocks(f, Some(ctx)), summary))
}
