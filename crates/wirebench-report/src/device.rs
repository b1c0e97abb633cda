//! The device section: code size of our C codecs on Cortex-M, instructions per operation; or
//! the device lab: each library on simulated microcontrollers, beside seed 001's Arduino UNO
//! figures.

use wirebench_core::published::{PSON_PAPER_BASELINE_BYTES, PSON_PAPER_ESP32_INCREASE_PCT, PSON_PAPER_UNO};
use wirebench_core::results::Results;
use wirebench_core::sections::device::{DeviceSection, LabRow, LabSection, LabTarget};

use crate::blocks::{Block, Figure, List};
use crate::html::{Ctx, Section};
use crate::svg::{color, BarChart, Bars};
use crate::table::Table;
use crate::Output;

/// The section's title with the lab's results.
const LAB_TITLE: &str = "Device lab: each library on simulated microcontrollers";

/// The section's title with the code-size builds alone.
const SIZE_TITLE: &str = "Device: our C codecs' code size";

/// What seed 001 published about binary size, and why only our compiled deltas compare.
const SEED_NOTE: &str =
    "Seed 001 reports binary-size increases only as percentages in its Figures 5-6 (ESP32 baseline \
     260,710 B, Arduino UNO baseline 592 B) and library source sizes in its Table 2 (e.g. Protoson \
     31,294 B, NanoPB 42,000 B, not compiled); source size is not code size, so only our compiled \
     deltas are figures to compare between codecs.";

fn tables(d: &DeviceSection) -> (Table, Table) {
    let mut t = Table::new(
        "Code size added by each C codec (arm-none-eabi-gcc -Os, gc-sections; text bytes over a baseline firmware)",
        &["cpu", "codec", "encoder", "decoder", "encoder + decoder", "library object"],
    )
    .numeric_from(2);
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for r in &d.code_size {
        if !keys.contains(&(r.cpu.as_str(), r.codec.as_str())) {
            keys.push((&r.cpu, &r.codec));
        }
    }
    for (cpu, codec) in keys {
        let get = |variant: &str, object: bool| {
            d.code_size
                .iter()
                .find(|r| r.cpu == cpu && r.codec == codec && r.variant == variant)
                .map(|r| if object { Some(r.text) } else { r.delta_text })
                .map(|n| n.map(|n| n.to_string()).unwrap_or_default())
                .unwrap_or_else(|| "-".into())
        };
        t.push(vec![
            cpu.into(),
            codec.into(),
            format!("+{}", get("enc", false)),
            format!("+{}", get("dec", false)),
            format!("+{}", get("enc+dec", false)),
            get("object", true),
        ]);
    }
    let mut it = Table::new(
        "Instructions per operation, C PSON codec (x86-64 host build, valgrind callgrind; decode = validate every item)",
        &["payload", "encode_instr", "decode_instr"],
    )
    .numeric_from(1);
    for r in &d.instructions {
        it.push(vec![r.payload.clone(), r.encode_instr.to_string(), r.decode_instr.to_string()]);
    }
    (t, it)
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn us(v: Option<f64>) -> String {
    v.map(|x| {
        if x < 10.0 {
            format!("{x:.2}")
        } else if x < 100.0 {
            format!("{x:.1}")
        } else {
            format!("{x:.0}")
        }
    })
    .unwrap_or_default()
}

/// The lab's targets.
fn targets_table(lab: &LabSection) -> Table {
    let mut t = Table::new("Device lab targets", &["target", "part", "clock_mhz", "cycles", "toolchain", "simulator"]);
    for x in &lab.targets {
        t.push(vec![
            x.name.clone(),
            x.part.clone(),
            format!("{}", x.clock_hz as f64 / 1e6),
            x.cycles.clone(),
            x.toolchain.clone(),
            x.simulator.clone(),
        ]);
    }
    t
}

/// One target's table: every library × payload with figures.
fn target_table(lab: &LabSection, x: &LabTarget) -> Table {
    let mut t = Table::new(
        &format!(
            "{}: one encode / decode per payload ({} cycles at {} MHz; flash and RAM over the baseline firmware; stack = peak bytes)",
            x.name,
            x.cycles,
            x.clock_hz as f64 / 1e6
        ),
        &[
            "lib", "payload", "bytes", "enc_cycles", "dec_cycles", "enc_us", "dec_us", "enc_instr", "dec_instr", "flash", "ram",
            "stack_enc", "stack_dec", "heap_enc", "heap_dec",
        ],
    )
    .numeric_from(2);
    for r in lab.rows.iter().filter(|r| r.target == x.name && r.status == "ok") {
        t.push(vec![
            r.lib.clone(),
            r.payload.clone(),
            opt(r.bytes),
            opt(r.encode_cycles),
            opt(r.decode_cycles),
            us(r.encode_us),
            us(r.decode_us),
            opt(r.encode_instructions),
            opt(r.decode_instructions),
            opt(r.flash),
            opt(r.ram),
            stack(r.stack_encode, r.stack_floor),
            stack(r.stack_decode, r.stack_floor),
            opt(r.heap_encode),
            opt(r.heap_decode),
        ]);
    }
    t
}

/// The tables after the targets' figures: the rows without figures and why (if any), our
/// codecs' Xtensa object sizes (if built), then the libraries the lab cannot build here.
fn rest_tables(lab: &LabSection) -> Vec<Table> {
    let mut out = Vec::new();
    let mut f = Table::new("Device lab: no figures, and why", &["target", "lib", "payloads", "reason"]);
    let mut seen: Vec<(String, String, String, Vec<String>)> = Vec::new();
    for r in lab.rows.iter().filter(|r| r.status != "ok") {
        match seen.iter_mut().find(|(t, l, s, _)| *t == r.target && *l == r.lib && *s == r.status) {
            Some(e) => e.3.push(r.payload.clone()),
            None => seen.push((r.target.clone(), r.lib.clone(), r.status.clone(), vec![r.payload.clone()])),
        }
    }
    for (t, l, s, p) in seen {
        f.push(vec![t, l, p.join(" "), s]);
    }
    if !f.rows.is_empty() {
        out.push(f);
    }
    if !lab.xtensa_objects.is_empty() {
        let mut x = Table::new(
            "ESP32: our C codecs' object sizes with the closest toolchain (Xtensa LX106, compiled only; no execution)",
            &["lib", "text", "data", "bss"],
        )
        .numeric_from(1);
        for o in &lab.xtensa_objects {
            x.push(vec![o.lib.clone(), o.text.to_string(), o.data.to_string(), o.bss.to_string()]);
        }
        out.push(x);
    }
    let mut n = Table::new("Libraries devices use that the lab does not build here", &["library", "why"]);
    for [name, why] in &lab.not_here {
        n.push(vec![name.clone(), why.clone()]);
    }
    out.push(n);
    out
}

/// Every row of the lab as one tidy table (one header, a target and a status column): the CSV
/// form, which loads as one data frame.
fn lab_rows_table(lab: &LabSection) -> Table {
    let mut t = Table::new(
        "device lab",
        &[
            "target",
            "lib",
            "payload",
            "status",
            "bytes",
            "encode_cycles",
            "decode_cycles",
            "encode_instructions",
            "decode_instructions",
            "encode_us",
            "decode_us",
            "flash",
            "ram",
            "stack_encode",
            "stack_decode",
            "stack_floor",
            "heap_encode",
            "heap_decode",
        ],
    );
    let f = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_default();
    for r in &lab.rows {
        t.push(vec![
            r.target.clone(),
            r.lib.clone(),
            r.payload.clone(),
            r.status.clone(),
            opt(r.bytes),
            opt(r.encode_cycles),
            opt(r.decode_cycles),
            opt(r.encode_instructions),
            opt(r.decode_instructions),
            f(r.encode_us),
            f(r.decode_us),
            opt(r.flash),
            opt(r.ram),
            opt(r.stack_encode),
            opt(r.stack_decode),
            opt(r.stack_floor),
            opt(r.heap_encode),
            opt(r.heap_decode),
        ]);
    }
    t
}

/// A stack figure at the painting's floor means "at most that".
fn stack(v: Option<u64>, floor: Option<u64>) -> String {
    match (v, floor) {
        (Some(v), Some(f)) if v <= f => format!("<={f}"),
        (v, _) => opt(v),
    }
}

/// The section's CSV tables: the lab's rows as one tidy table, or the seed's two tables.
pub fn csv_tables(results: &Results) -> Vec<crate::csv::CsvTable> {
    let Some(d) = &results.device else { return Vec::new() };
    if let Some(lab) = &d.lab {
        return crate::csv::from_tables(&[lab_rows_table(lab)]);
    }
    let (t, it) = tables(d);
    crate::csv::from_tables(&[t, it])
}

pub fn render(results: &Results, output: Output) -> String {
    let Some(d) = &results.device else { return String::new() };
    match output {
        Output::Json => serde_json::to_string_pretty(d).expect("section serializes") + "\n",
        Output::Csv => crate::csv::text(&csv_tables(results)),
        Output::Table | Output::Markdown => crate::blocks::render(&blocks(d, None), output),
    }
}

/// The section as blocks, the same for every report kind; the charts (HTML only) when `charts`
/// gives their page ids.
fn blocks(d: &DeviceSection, charts: Option<&Ctx>) -> Vec<Block> {
    let Some(lab) = &d.lab else {
        let (t, it) = tables(d);
        return vec![
            Block::Heading(SIZE_TITLE.into()),
            Block::Table(t),
            Block::Table(it),
            Block::Note(SEED_NOTE.into()),
        ];
    };
    let mut out = vec![
        Block::Heading(LAB_TITLE.into()),
        Block::Intro(
            "Each library encodes and decodes each payload on a simulated microcontroller, through its public API as \
             device code calls it; the round trip is checked on the target before it is timed, and the bytes are checked \
             on the host with our codec of the same format. Cycles on AVR are exact (simavr); on Cortex-M they come from a \
             per-instruction model of the core. Flash and RAM are bytes over a baseline firmware with the same payload."
                .into(),
        ),
        Block::Table(targets_table(lab)),
    ];
    out.extend(seed001_blocks(lab, charts));
    let mut payloads: Vec<&str> = Vec::new();
    for r in &lab.rows {
        if !payloads.contains(&r.payload.as_str()) {
            payloads.push(&r.payload);
        }
    }
    // The chart payload: Test10 (seed 001's mixed message) when present, else the last.
    let chosen = payloads.iter().find(|p| **p == "Test10").or(payloads.last()).copied();
    for x in &lab.targets {
        out.push(Block::Subheading(format!("{} — {}", x.name, x.part)));
        if let (Some(ctx), Some(payload)) = (charts, chosen) {
            out.push(Block::Figures { items: target_figures(lab, x, payload, ctx), note: String::new() });
        }
        out.push(Block::Table(target_table(lab, x)));
    }
    out.extend(rest_tables(lab).into_iter().map(Block::Table));
    out.push(Block::Note(format!(
        "Cycles: AVR exact (simavr); Cortex-M from a per-instruction model of each core (c/lab/arm/CYCLES.md). \
         On AVR double is 32 bit: every float field is a float32 there. {}",
        lab.esp32
    )));
    out
}

fn us_fmt(v: f64) -> String {
    us(Some(v))
}

fn bytes_fmt(v: f64) -> String {
    format!("{v:.0}")
}

/// One target's charts on one payload: µs per operation, and flash and RAM added, per library.
fn target_figures(lab: &LabSection, x: &LabTarget, payload: &str, ctx: &Ctx) -> Vec<Figure> {
    let libs: Vec<String> = lab.libs.iter().map(|l| l.name.clone()).collect();
    let get = |f: fn(&LabRow) -> Option<f64>| -> Vec<Option<f64>> {
        libs.iter().map(|l| row(lab, &x.name, l, payload).and_then(f)).collect()
    };
    let speed = BarChart::new(
        &ctx.chart_id(&format!("{}-us", x.name)),
        &format!("{payload}: µs per operation at {} MHz", x.clock_hz as f64 / 1e6),
        libs.clone(),
    )
    .series(Bars::new("encode", get(|r| r.encode_us)))
    .series(Bars::new("decode", get(|r| r.decode_us)))
    .missing_label("no figure")
    .axis_label("µs")
    .width(520.0)
    .value_format(us_fmt);
    let flash = BarChart::new(
        &ctx.chart_id(&format!("{}-flash", x.name)),
        &format!("{payload}: flash and RAM added"),
        libs.clone(),
    )
    .series(Bars::new("flash", get(|r| r.flash.map(|v| v as f64))))
    .series(Bars::new("static RAM", get(|r| r.ram.map(|v| v as f64))))
    .missing_label("no figure")
    .axis_label("bytes over the baseline firmware")
    .width(520.0)
    .value_format(bytes_fmt);
    vec![Figure::new(speed.render(), ""), Figure::new(flash.render(), "")]
}

/// The lab library that stands for a codec of seed 001's Table 4, and the paper's library.
const SEED001_LIBS: [(&str, &str, &str); 3] = [
    ("pson", "pson", "our C PSON / the paper's PSON"),
    ("msgpuck", "msgpack", "msgpuck / ArduinoJson"),
    ("cjson", "json", "cJSON / ArduinoJson"),
];

fn row<'a>(lab: &'a LabSection, target: &str, lib: &str, payload: &str) -> Option<&'a LabRow> {
    lab.rows.iter().find(|r| r.target == target && r.lib == lib && r.payload == payload && r.status == "ok")
}

fn geomean(v: &[f64]) -> Option<f64> {
    if v.is_empty() || v.iter().any(|x| *x <= 0.0) {
        return None;
    }
    Some((v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
}

/// Seed 001's Table 4 (Arduino UNO) beside our AVR figures, its binary sizes beside ours, and
/// its claims checked with ours; nothing without AVR rows of seed 001's payloads.
fn seed001_blocks(lab: &LabSection, charts: Option<&Ctx>) -> Vec<Block> {
    if !lab.targets.iter().any(|t| t.name == "avr")
        || !lab.rows.iter().any(|r| r.target == "avr" && r.payload == "Test01")
    {
        return Vec::new();
    }
    let p = &PSON_PAPER_UNO;
    let mut out = vec![
        Block::Subheading("Seed 001: the Arduino UNO table beside ours (simulated ATmega328P at 16 MHz)".into()),
        Block::Intro(format!(
            "published: {} ({}), not measured here; ours: cycle-exact simavr runs of the lab's firmwares, one encode and \
             one decode each, at 16 MHz. The libraries differ where the paper's are not available here (see below). {}",
            p.source, p.unit, p.note
        )),
    ];
    let mut headers = vec!["codec (ours / paper's library)", "op"];
    headers.extend(p.payloads.iter());
    headers.push("geomean ratio");
    let mut t =
        Table::new("µs per encode or decode: ours / published (the paper's µs per 1000 iterations ÷ 1000)", &headers)
            .numeric_from(2);
    let mut ours_bars = Vec::new();
    let mut paper_bars = Vec::new();
    let mut cats = Vec::new();
    let mut avg: Vec<(String, String, f64, f64)> = Vec::new();
    for (lib, codec, label) in SEED001_LIBS {
        for op in ["encode", "decode"] {
            let mut cells = vec![label.to_string(), op.to_string()];
            let mut ours_v = Vec::new();
            let mut theirs_v = Vec::new();
            let mut ratios = Vec::new();
            for payload in p.payloads {
                let ours =
                    row(lab, "avr", lib, payload).and_then(|r| if op == "encode" { r.encode_us } else { r.decode_us });
                let theirs = p.get(codec, op, payload).map(|v| v / 1000.0);
                if let (Some(o), Some(t)) = (ours, theirs) {
                    ours_v.push(o);
                    theirs_v.push(t);
                    ratios.push(o / t);
                }
                cells.push(match (ours, theirs) {
                    (Some(o), Some(t)) => format!("{} / {}", us_fmt(o), us_fmt(t)),
                    (Some(o), None) => format!("{} / -", us_fmt(o)),
                    (None, Some(t)) => format!("- / {}", us_fmt(t)),
                    (None, None) => "-".into(),
                });
            }
            cells.push(geomean(&ratios).map(|g| format!("{g:.2}")).unwrap_or_default());
            t.push(cells);
            cats.push(format!("{codec} {op}"));
            let (go, gt) = (geomean(&ours_v), geomean(&theirs_v));
            ours_bars.push(go);
            paper_bars.push(gt);
            if let (Some(o), Some(th)) = (go, gt) {
                avg.push((codec.to_string(), op.to_string(), o, th));
            }
        }
    }
    if let Some(ctx) = charts {
        let chart = BarChart::new(
            &ctx.chart_id("seed001-uno"),
            "Arduino UNO: µs per operation, geometric mean over the payloads both ran",
            cats,
        )
        .series(Bars::new("ours (simulated ATmega328P)", ours_bars).color(color(0)))
        .series(Bars::new("published (Arduino UNO)", paper_bars).color(color(5)).hatched(true))
        .missing_label("not run")
        .log(true)
        .axis_label("µs per operation")
        .width(760.0)
        .value_format(us_fmt);
        out.push(Block::Figure(Figure::new(chart.render(), "")));
    }
    out.push(Block::Table(t));
    // The paper's claim about PSON vs MessagePack decoding on the UNO, checked with ours.
    let find = |c: &str, op: &str| avg.iter().find(|(cc, o, _, _)| cc == c && o == op).map(|x| (x.2, x.3));
    let mut notes = Vec::new();
    if let (Some((po, pt)), Some((mo, mt))) = (find("pson", "decode"), find("msgpack", "decode")) {
        notes.push(format!(
            "The paper finds PSON decoding about 47 % slower than MessagePack on the UNO (its table: {:.0} % on these payloads). \
             Ours: our C PSON decodes in {:.2}× the time of msgpuck ({}).",
            (pt / mt - 1.0) * 100.0,
            po / mo,
            if po > mo { "PSON slower here too" } else { "PSON faster here: the paper's decoder, not the format, was slow" }
        ));
    }
    if let (Some((po, pt)), Some((mo, mt))) = (find("pson", "encode"), find("msgpack", "encode")) {
        notes.push(format!(
            "The paper finds PSON encoding 40 % faster than MessagePack on the UNO (its table: {:.0} %). Ours: {:.2}× msgpuck's time.",
            (1.0 - pt / mt) * 100.0,
            po / mo
        ));
    }
    let (_, esp_base) = PSON_PAPER_BASELINE_BYTES[1];
    let incs: Vec<String> = PSON_PAPER_ESP32_INCREASE_PCT
        .iter()
        .map(|(c, pct)| format!("{c} {pct} % = {:.0} B", esp_base as f64 * pct / 100.0))
        .collect();
    let bytes: Vec<f64> = PSON_PAPER_ESP32_INCREASE_PCT.iter().map(|(_, pct)| esp_base as f64 * pct / 100.0).collect();
    let spread = bytes.iter().cloned().fold(f64::MIN, f64::max) - bytes.iter().cloned().fold(f64::MAX, f64::min);
    notes.push(format!(
        "What cannot be right as a codec figure: the paper's ESP32 binary-size increases ({}) over its {} B baseline lie within \
         {:.0} B of each other: the figure measures the runtime the test pulls in (serial output, floating-point printing), \
         not the codec. Ours below are flash bytes over a baseline firmware with the same payload and harness.",
        incs.join(", "),
        esp_base,
        spread
    ));
    // Figures 5-6: binary size added per library. The paper prints bars (percent over its
    // baselines); ours are flash bytes over a baseline firmware, per target, the range over
    // the payloads (each firmware carries one payload's driver).
    let (_, uno_base) = PSON_PAPER_BASELINE_BYTES[0];
    let mut heads = vec!["library".to_string()];
    for x in &lab.targets {
        heads.push(format!("{} flash +B", x.name));
    }
    heads.push("avr: % of the UNO's 32,256 B".into());
    let head_refs: Vec<&str> = heads.iter().map(|h| h.as_str()).collect();
    let mut bt = Table::new(
        "Binary size added by each library (ours: flash bytes over the baseline firmware, min-max over the payloads; the paper's Figures 5-6)",
        &head_refs,
    )
    .numeric_from(1);
    for l in &lab.libs {
        let mut cells = vec![l.name.clone()];
        let mut avr_max = None;
        for x in &lab.targets {
            let v: Vec<u64> = lab
                .rows
                .iter()
                .filter(|r| r.target == x.name && r.lib == l.name && r.status == "ok")
                .filter_map(|r| r.flash)
                .collect();
            match (v.iter().min(), v.iter().max()) {
                (Some(a), Some(b)) if a == b => cells.push(a.to_string()),
                (Some(a), Some(b)) => cells.push(format!("{a}-{b}")),
                _ => cells.push("-".into()),
            }
            if x.name == "avr" {
                avr_max = v.iter().max().copied();
            }
        }
        cells.push(avr_max.map(|b| format!("{:.1} %", b as f64 / 32_256.0 * 100.0)).unwrap_or_else(|| "-".into()));
        bt.push(cells);
    }
    out.push(Block::Table(bt));
    let flash_of = |lib: &str| -> Option<f64> {
        let v: Vec<f64> = lab
            .rows
            .iter()
            .filter(|r| r.target == "avr" && r.lib == lib && r.status == "ok")
            .filter_map(|r| r.flash.map(|f| f as f64))
            .collect();
        if v.is_empty() {
            None
        } else {
            Some(v.iter().sum::<f64>() / v.len() as f64)
        }
    };
    if let (Some(p), Some(j), Some(m)) = (flash_of("pson"), flash_of("cjson"), flash_of("msgpuck")) {
        notes.push(format!(
            "The paper: on the UNO (baseline {uno_base} B) PSON's footprint is about 10 % greater than ArduinoJson's (JSON and \
             MessagePack). Ours on the simulated ATmega328P, mean over the payloads: PSON +{p:.0} B, cJSON +{j:.0} B (with \
             avr-libc's float printf/scanf, which cJSON needs), msgpuck +{m:.0} B."
        ));
    }
    out.push(List::untitled(notes).bullet("  - ").into());
    out
}

/// The page section: with the lab's results, per target, µs per operation and flash added per
/// library on one payload (charts) and every figure (tables); else the code-size tables.
pub fn html_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let d = r.device.as_ref()?;
    let summary = match &d.lab {
        Some(lab) => format!(
            "device: {} of {} (target, library, payload) measured on {}",
            lab.rows.iter().filter(|r| r.status == "ok").count(),
            lab.rows.len(),
            lab.targets.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
        None => "device: code size".into(),
    };
    Some(crate::html::from_blocks(&blocks(d, Some(ctx)), summary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirebench_core::results::Provenance;
    use wirebench_core::sections::device::{CodeSize, Instructions, LabLib, ObjectSize};

    /// Every `<h3>` and every table caption of the page section is a `###` heading of the
    /// Markdown made from the same results.
    fn markdown_has_the_pages_headings(r: &Results) -> (String, String) {
        let html = html_section(r, &Ctx { id: "device".into(), file: 1, files: 1 }).unwrap().body;
        let md = render(r, Output::Markdown);
        let (h3, captions) = (crate::blocks::page_texts(&html, "<h3>"), crate::blocks::page_texts(&html, "<caption>"));
        assert!(!captions.is_empty(), "{html}");
        for t in h3.iter().chain(&captions) {
            assert!(md.contains(&format!("### {t}\n")), "{t:?} is not a heading of the Markdown:\n{md}");
        }
        (html, md)
    }

    fn lab_results() -> Results {
        let mut r = Results::new(Provenance::default(), serde_json::json!({}));
        let target = |name: &str, part: &str, clock_hz: u64, cycles: &str| LabTarget {
            name: name.into(),
            part: part.into(),
            clock_hz,
            toolchain: "gcc".into(),
            simulator: "sim".into(),
            cycles: cycles.into(),
        };
        let lib = |name: &str, format: &str| LabLib { name: name.into(), format: format.into(), origin: "x".into() };
        let mut rows = Vec::new();
        for (lib, enc, dec, flash) in
            [("pson", 100.0, 300.0, 1800), ("msgpuck", 150.0, 200.0, 1200), ("cjson", 900.0, 700.0, 9000)]
        {
            for (payload, k) in [("Test01", 1.0), ("Test10", 2.0)] {
                rows.push(LabRow {
                    target: "avr".into(),
                    lib: lib.into(),
                    payload: payload.into(),
                    status: "ok".into(),
                    bytes: Some(40),
                    encode_cycles: Some((enc * k * 16.0) as u64),
                    decode_cycles: Some((dec * k * 16.0) as u64),
                    encode_us: Some(enc * k),
                    decode_us: Some(dec * k),
                    flash: Some(flash),
                    ram: Some(20),
                    stack_encode: Some(16),
                    stack_decode: Some(90),
                    stack_floor: Some(16),
                    heap_encode: Some(0),
                    heap_decode: Some(0),
                    ..Default::default()
                });
            }
        }
        rows.push(LabRow {
            target: "cortex-m0plus".into(),
            lib: "cjson".into(),
            payload: "Test10".into(),
            status: "does not fit".into(),
            ..Default::default()
        });
        r.device = Some(DeviceSection {
            lab: Some(LabSection {
                targets: vec![
                    target("avr", "ATmega328P", 16_000_000, "exact"),
                    target("cortex-m0plus", "SAMD21 & co", 48_000_000, "modelled"),
                ],
                libs: vec![lib("pson", "pson"), lib("msgpuck", "msgpack"), lib("cjson", "json")],
                esp32: "No ESP32 simulator here.".into(),
                xtensa_objects: vec![ObjectSize { lib: "pson".into(), text: 2000, data: 0, bss: 0 }],
                not_here: vec![["ArduinoJson".into(), "C++ only".into()]],
                rows,
            }),
            ..Default::default()
        });
        r
    }

    #[test]
    fn lab_markdown_has_every_heading_table_and_note_of_the_page() {
        let r = lab_results();
        let (html, md) = markdown_has_the_pages_headings(&r);
        // The page: its charts, and every table open (no table folded away).
        for id in ["device-seed001-uno", "device-avr-us", "device-avr-flash", "device-cortex-m0plus-us"] {
            assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        for needle in [
            "<h3>Seed 001: the Arduino UNO table beside ours (simulated ATmega328P at 16 MHz)</h3>",
            "<h3>avr — ATmega328P</h3>",
            "<h3>cortex-m0plus — SAMD21 &amp; co</h3>",
            "<caption>Device lab targets</caption>",
            "<caption>Device lab: no figures, and why</caption>",
        ] {
            assert!(html.contains(needle), "{needle}\n{html}");
        }
        let s = html_section(&r, &Ctx { id: "device".into(), file: 1, files: 1 }).unwrap();
        assert_eq!(s.title, LAB_TITLE);
        assert_eq!(s.summary, "device: 6 of 7 (target, library, payload) measured on avr, cortex-m0plus");
        // Markdown: the section's heading, the intro, the published figures and the claims
        // checked with ours, the lab's note; no chart.
        assert!(md.starts_with(&format!("## {LAB_TITLE}\n\nEach library encodes")), "{md}");
        for needle in [
            "published: Sensors 2021, 21, 4559, Table 4 (Arduino UNO)",
            "| our C PSON / the paper's PSON | encode | 100 / 190 |",
            "The paper finds PSON decoding about 47 % slower than MessagePack",
            "Ours: our C PSON decodes in 1.50× the time of msgpuck (PSON slower here too).",
            "PSON +1800 B, cJSON +9000 B",
            "| pson | 1800 | - | 5.6 % |",
            "| cortex-m0plus | cjson | Test10 | does not fit |",
            "No ESP32 simulator here.",
        ] {
            assert!(md.contains(needle), "{needle}\n{md}");
        }
        assert!(!md.contains("<svg"), "{md}");
        // The terminal: the tables and the claims, not the intros.
        let text = render(&r, Output::Table);
        assert!(text.starts_with(&format!("{LAB_TITLE}\n\nDevice lab targets\n")), "{text}");
        assert!(text.contains("avr — ATmega328P\n\navr: one encode / decode per payload"), "{text}");
        assert!(text.contains("  - The paper finds PSON encoding 40 % faster"), "{text}");
        assert!(text.contains("<=16"), "a stack figure at the floor is an upper bound: {text}");
        assert!(!text.contains("Each library encodes") && !text.contains("published: Sensors"), "{text}");
    }

    #[test]
    fn code_size_markdown_has_every_table_of_the_page() {
        let mut r = Results::new(Provenance::default(), serde_json::json!({}));
        let size = |variant: &str, text: i64, delta: Option<i64>| CodeSize {
            cpu: "cortex-m4".into(),
            codec: "pson".into(),
            variant: variant.into(),
            text,
            data: 0,
            bss: 0,
            delta_text: delta,
            delta_data: None,
            delta_bss: None,
        };
        r.device = Some(DeviceSection {
            toolchain: "gcc".into(),
            code_size: vec![size("enc", 900, Some(640)), size("dec", 800, Some(520)), size("object", 1500, None)],
            instructions: vec![Instructions { payload: "Test01".into(), encode_instr: 300, decode_instr: 400 }],
            lab: None,
        });
        let (html, md) = markdown_has_the_pages_headings(&r);
        assert!(html.contains("<caption>Instructions per operation"), "{html}");
        assert!(md.starts_with(&format!("## {SIZE_TITLE}\n\n")), "{md}");
        assert!(md.contains("| cortex-m4 | pson | +640 | +520 | +- | 1500 |") && md.contains(SEED_NOTE), "{md}");
        assert_eq!(html_section(&r, &Ctx { id: "d".into(), file: 1, files: 1 }).unwrap().title, SIZE_TITLE);
        let csv = render(&r, Output::Csv);
        assert!(csv.contains("cortex-m4,pson,640,520,,1500"), "{csv}");
    }
}
