//! The `energy` section: energy per message split CPU / radio / sleep, and battery days, per
//! library × payload × MCU × radio; the figures of the data file with their sources. The HTML
//! page gets, per MCU × radio, battery days per format beside a stacked bar of the CPU and
//! radio energy of one message, so a reader sees when the codec matters (CPU) and when only
//! the bytes do (radio).

use std::fmt::Write;

use wirebench_core::results::Results;
use wirebench_core::sections::energy::{EnergyRow, EnergySection};

use crate::blocks::{Block, Figure, List};
use crate::html::{Ctx, Section};
use crate::svg::{color, esc, fixed, BarChart, Bars};
use crate::table::Table;
use crate::Output;

fn num(v: f64, decimals: usize) -> String {
    if v.is_finite() {
        format!("{v:.decimals$}")
    } else {
        "∞".into()
    }
}

fn pct(v: f64) -> String {
    format!("{:.0} %", v * 100.0)
}

/// Battery days; `≤` when figures are missing (their terms are left out).
fn days(r: &EnergyRow) -> String {
    let d = if r.battery_days.is_finite() { format!("{:.0}", r.battery_days) } else { "∞".into() };
    if r.missing.is_empty() {
        d
    } else {
        format!("≤ {d}")
    }
}

/// The per-message table.
pub fn rows_table(s: &EnergySection) -> Table {
    let mut t = Table::new(
        "Energy per message and battery life",
        &[
            "mcu",
            "radio",
            "lib",
            "format",
            "payload",
            "bytes",
            "encode cycles",
            "cpu µJ",
            "radio µJ",
            "sleep µJ",
            "total µJ",
            "cpu",
            "radio",
            "sleep",
            "dominant",
            "msgs/day",
            "link max/day",
            "battery days",
            "missing",
        ],
    )
    .numeric_from(5);
    for r in &s.rows {
        t.push(vec![
            r.mcu.clone(),
            r.radio.clone(),
            r.lib.clone(),
            r.format.clone(),
            r.payload.clone(),
            r.bytes.to_string(),
            r.encode_cycles.to_string(),
            num(r.cpu_uj, 2),
            num(r.radio_uj, 1),
            num(r.sleep_uj, 1),
            num(r.total_uj, 1),
            pct(r.cpu_share),
            pct(r.radio_share),
            pct(r.sleep_share),
            r.dominant.clone(),
            num(r.msgs_per_day, 0),
            num(r.link_msgs_per_day, 0),
            days(r),
            r.missing.join(" "),
        ]);
    }
    t
}

/// The figures the run used, with their sources.
pub fn figures_table(s: &EnergySection) -> Table {
    let mut t =
        Table::new("Figures of the energy model", &["figure", "value", "unit", "kind", "checked", "at", "source"]);
    for f in &s.figures {
        t.push(vec![
            f.key.clone(),
            f.value.map(|v| format!("{v}")).unwrap_or_else(|| "—".into()),
            f.unit.clone(),
            f.kind.clone(),
            f.checked.clone(),
            f.at.clone(),
            f.source.clone(),
        ]);
    }
    t
}

fn notes(s: &EnergySection) -> Vec<(String, Vec<String>)> {
    let mut v = vec![(
        format!(
            "Model (every {} s, battery {} mAh at {} V; lab figures from {})",
            fixed(s.every_s, 0),
            fixed(s.battery_mah, 0),
            s.battery_v,
            s.lab_source
        ),
        s.model.clone(),
    )];
    if !s.skipped.is_empty() {
        v.push(("Lab rows without figures (not in the table)".into(), s.skipped.clone()));
    }
    v
}

/// The section as blocks, the same for every report kind: the heading, what the model
/// counts, the charts (HTML only, when `charts` gives their page ids), the two tables and the
/// notes.
fn blocks(s: &EnergySection, charts: Option<&Ctx>) -> Vec<Block> {
    let heading = format!(
        "Energy per message and battery life (every {} s, {} mAh at {} V)",
        fixed(s.every_s, 0),
        fixed(s.battery_mah, 0),
        s.battery_v
    );
    let mut out = vec![
        Block::Heading(heading),
        Block::Intro(format!(
            "What one message costs a battery sensor that encodes a reading with each library and sends it: the CPU's \
             energy from the device lab's measured encode cycles, the radio's from the link model's time on air and the \
             protocol's receive time, the sleep between messages (every {} s), and the days a {} mAh battery at {} V \
             lasts. Currents and voltages are datasheet figures, listed with their sources below.",
            fixed(s.every_s, 0),
            fixed(s.battery_mah, 0),
            s.battery_v
        )),
    ];
    if let Some(ctx) = charts {
        let items = figures(s, ctx);
        if !items.is_empty() {
            out.push(Block::Figures {
                items,
                note: "Per MCU and radio: battery days per library (the mean message over the payloads) and the CPU vs \
                       radio energy of that message. Where the CPU share is small, only the encoded bytes matter; (≤): a \
                       figure the data file cannot cite is left out, so the days are an upper bound."
                    .into(),
            });
        }
    }
    out.push(Block::Table(rows_table(s)));
    out.push(Block::Table(figures_table(s)));
    out.extend(notes(s).into_iter().map(|(title, lines)| List::new(title, lines).bullet("  - ").into()));
    out
}

/// The (MCU, radio) pairs of the rows, in first-seen order.
fn configs(s: &EnergySection) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for row in &s.rows {
        let k = (row.mcu.clone(), row.radio.clone());
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The section's CSV tables: the rows, then the figures.
pub fn csv_tables(r: &Results) -> Vec<crate::csv::CsvTable> {
    r.energy.as_ref().map(|s| crate::csv::from_tables(&[rows_table(s), figures_table(s)])).unwrap_or_default()
}

/// Text, Markdown, CSV or JSON of the section.
pub fn render(r: &Results, output: Output) -> String {
    let Some(s) = r.energy.as_ref() else { return String::new() };
    match output {
        Output::Json => serde_json::to_string_pretty(s).unwrap_or_default() + "\n",
        Output::Csv => crate::csv::text(&csv_tables(r)),
        _ => crate::blocks::render(&blocks(s, None), output),
    }
}

/// Per library: the mean over payloads of the CPU, radio and sleep energy, and the battery
/// days that mean message gives.
struct LibMean {
    lib: String,
    cpu: f64,
    radio: f64,
    sleep: f64,
    days: f64,
    upper_bound: bool,
}

fn lib_means(rows: &[&EnergyRow], libs: &[String]) -> Vec<LibMean> {
    libs.iter()
        .filter_map(|lib| {
            let rs: Vec<&&EnergyRow> = rows.iter().filter(|r| &r.lib == lib).collect();
            if rs.is_empty() {
                return None;
            }
            let n = rs.len() as f64;
            let mean = |f: fn(&EnergyRow) -> f64| rs.iter().map(|r| f(r)).sum::<f64>() / n;
            let (cpu, radio, sleep) = (mean(|r| r.cpu_uj), mean(|r| r.radio_uj), mean(|r| r.sleep_uj));
            // days ∝ 1 / energy per message: the harmonic form of the rows' days.
            let total = cpu + radio + sleep;
            let r0 = rs[0];
            let days = if total > 0.0 { r0.battery_days * r0.total_uj / total } else { f64::INFINITY };
            Some(LibMean {
                lib: lib.clone(),
                cpu,
                radio,
                sleep,
                days,
                upper_bound: rs.iter().any(|r| !r.missing.is_empty()),
            })
        })
        .collect()
}

/// A horizontal stacked bar per library: CPU and radio energy of one message (µJ).
fn stacked(id: &str, title: &str, means: &[LibMean]) -> String {
    let (label_w, bar_w, row_h, top) = (90.0, 300.0, 18.0, 34.0);
    let max = means.iter().map(|m| m.cpu + m.radio).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
    let h = top + row_h * means.len() as f64 + 24.0;
    let mut s = format!(
        "<svg id=\"{id}\" class=\"chart\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{t}\">\
         <title>{t}</title><text x=\"4\" y=\"14\" font-size=\"12\" font-weight=\"bold\">{t}</text>\
         <rect x=\"{label_w}\" y=\"20\" width=\"10\" height=\"8\" fill=\"{c0}\"/><text x=\"{lx0}\" y=\"28\" font-size=\"10\">CPU (encode)</text>\
         <rect x=\"{lx1}\" y=\"20\" width=\"10\" height=\"8\" fill=\"{c1}\"/><text x=\"{lx2}\" y=\"28\" font-size=\"10\">radio (TX + RX windows)</text>",
        w = label_w + bar_w + 90.0,
        t = esc(title),
        c0 = color(0),
        c1 = color(1),
        lx0 = label_w + 14.0,
        lx1 = label_w + 90.0,
        lx2 = label_w + 104.0,
    );
    for (i, m) in means.iter().enumerate() {
        let y = top + row_h * i as f64;
        let wc = bar_w * m.cpu / max;
        let wr = bar_w * m.radio / max;
        let _ = write!(
            s,
            "<text x=\"{lx}\" y=\"{ty}\" font-size=\"11\" text-anchor=\"end\">{lib}</text>\
             <rect x=\"{label_w}\" y=\"{y}\" width=\"{wc:.2}\" height=\"{bh}\" fill=\"{c0}\"><title>{lib}: CPU {cpu} µJ</title></rect>\
             <rect x=\"{xr:.2}\" y=\"{y}\" width=\"{wr:.2}\" height=\"{bh}\" fill=\"{c1}\"><title>{lib}: radio {radio} µJ</title></rect>\
             <text x=\"{xv:.2}\" y=\"{ty}\" font-size=\"10\">{tot} µJ (CPU {share}; sleep {sleep} µJ not drawn)</text>",
            lx = label_w - 4.0,
            ty = y + 11.0,
            lib = esc(&m.lib),
            bh = row_h - 4.0,
            c0 = color(0),
            c1 = color(1),
            cpu = num(m.cpu, 2),
            radio = num(m.radio, 1),
            xr = label_w + wc,
            xv = label_w + wc + wr + 4.0,
            tot = num(m.cpu + m.radio, 1),
            sleep = num(m.sleep, 1),
            share = pct(if m.cpu + m.radio > 0.0 { m.cpu / (m.cpu + m.radio) } else { 0.0 }),
        );
    }
    s.push_str("</svg>");
    s
}

/// Per MCU × radio: battery days per library, then the CPU and radio energy of its message.
fn figures(s: &EnergySection, ctx: &Ctx) -> Vec<Figure> {
    let mut out = Vec::new();
    for (i, (mcu, radio)) in configs(s).iter().enumerate() {
        let rows: Vec<&EnergyRow> = s.rows.iter().filter(|r| &r.mcu == mcu && &r.radio == radio).collect();
        let mut libs: Vec<String> = Vec::new();
        for r in &rows {
            if !libs.contains(&r.lib) {
                libs.push(r.lib.clone());
            }
        }
        let means = lib_means(&rows, &libs);
        let cats: Vec<String> =
            means.iter().map(|m| if m.upper_bound { format!("{} (≤)", m.lib) } else { m.lib.clone() }).collect();
        let chart =
            BarChart::new(&ctx.chart_id(&format!("days{}", i + 1)), &format!("{mcu} + {radio}: battery days"), cats)
                .axis_label("days (mean message over the payloads)")
                .width(420.0)
                .value_format(|v| format!("{v:.0}"))
                .series(
                    Bars::new("battery days", means.iter().map(|m| m.days.is_finite().then_some(m.days)).collect())
                        .color(color(2)),
                );
        out.push(Figure::new(chart.render(), ""));
        out.push(Figure::new(
            stacked(&ctx.chart_id(&format!("split{}", i + 1)), &format!("{mcu} + {radio}: µJ per message"), &means),
            "",
        ));
    }
    out
}

/// The HTML section.
pub fn html_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = r.energy.as_ref()?;
    let summary = format!("energy: {} rows over {} MCU × radio configurations", s.rows.len(), configs(s).len());
    Some(crate::html::from_blocks(&blocks(s, Some(ctx)), summary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirebench_core::results::Provenance;
    use wirebench_core::sections::energy::EnergyFigure;

    fn results() -> Results {
        let mut r = Results::new(Provenance::default(), serde_json::json!({}));
        let row = |lib: &str, cpu: f64, radio: f64, missing: Vec<String>| EnergyRow {
            lib: lib.into(),
            format: lib.into(),
            payload: "Test01".into(),
            target: "avr".into(),
            mcu: "atmega328p".into(),
            radio: "lora-sf9".into(),
            bytes: 40,
            encode_cycles: 10_000,
            cpu_uj: cpu,
            radio_uj: radio,
            sleep_uj: 10.0,
            total_uj: cpu + radio + 10.0,
            cpu_share: cpu / (cpu + radio + 10.0),
            radio_share: radio / (cpu + radio + 10.0),
            sleep_share: 10.0 / (cpu + radio + 10.0),
            dominant: "radio".into(),
            msgs_per_day: 144.0,
            link_msgs_per_day: 2000.0,
            battery_days: 1000.0,
            missing,
            ..Default::default()
        };
        r.energy = Some(EnergySection {
            every_s: 600.0,
            battery_mah: 2400.0,
            battery_v: 3.6,
            lab_source: "test".into(),
            model: vec!["a note".into()],
            figures: vec![EnergyFigure {
                key: "sx1276.tx_ma".into(),
                value: Some(29.0),
                unit: "mA".into(),
                kind: "typ".into(),
                at: "13 dBm".into(),
                source: "Semtech SX1276 datasheet".into(),
                checked: "not re-read".into(),
            }],
            rows: vec![row("pson", 5.0, 500.0, vec![]), row("cjson", 50.0, 900.0, vec!["samd21.sleep_ua".into()])],
            skipped: vec![],
        });
        r
    }

    #[test]
    fn renders_every_output() {
        let r = results();
        let text = render(&r, Output::Table);
        assert!(
            text.contains("battery days") && text.contains("≤ 1000") && text.contains("Semtech SX1276 datasheet"),
            "{text}"
        );
        let md = render(&r, Output::Markdown);
        assert!(md.starts_with("## Energy per message"));
        let csv = render(&r, Output::Csv);
        assert!(csv.lines().next().unwrap().starts_with("mcu,radio,lib"));
        let html = html_section(&r, &Ctx { id: "energy".into(), file: 1, files: 1 }).unwrap();
        assert!(html.body.contains("<svg") && html.body.contains("cjson (≤)") && html.body.contains("CPU (encode)"));
        assert_eq!(render(&Results::new(Provenance::default(), serde_json::json!({})), Output::Table), "");
    }

    #[test]
    fn markdown_has_every_heading_table_and_note_of_the_page() {
        let r = results();
        let s = html_section(&r, &Ctx { id: "energy".into(), file: 1, files: 1 }).unwrap();
        let md = render(&r, Output::Markdown);
        let captions = crate::blocks::page_texts(&s.body, "<caption>");
        assert_eq!(captions, ["Energy per message and battery life", "Figures of the energy model"]);
        for t in crate::blocks::page_texts(&s.body, "<h3>").iter().chain(&captions) {
            assert!(md.contains(&format!("### {t}\n")), "{t:?} is not a heading of the Markdown:\n{md}");
        }
        let title = "Energy per message and battery life (every 600 s, 2400 mAh at 3.6 V)";
        assert_eq!(s.title, title);
        assert_eq!(s.summary, "energy: 2 rows over 1 MCU × radio configurations");
        // The charts, one pair per MCU × radio, on the page only.
        for id in ["energy-days1", "energy-split1"] {
            assert!(s.body.contains(&format!("id=\"{id}\"")), "{id}");
        }
        assert!(!md.contains("<svg"), "{md}");
        // The intro and the notes in Markdown and on the page; the notes on the terminal too.
        for needle in ["What one message costs a battery sensor", "Model (every 600 s", "a note"] {
            assert!(md.contains(needle) && s.body.contains(needle), "{needle}\n{md}");
        }
        assert!(md.starts_with(&format!("## {title}\n\nWhat one message costs")), "{md}");
        let text = render(&r, Output::Table);
        assert!(text.starts_with(&format!("{title}\n\nEnergy per message and battery life\n")), "{text}");
        assert!(text.contains("  - a note") && !text.contains("What one message costs"), "{text}");
    }
}
