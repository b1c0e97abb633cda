//! The encoded-size report.

use wirebench_core::results::{Results, SizeAggregate, SizeSection};

use crate::blocks::{Block, Figure, List};
use crate::csv::CsvTable;
use crate::html::{bytes_fmt, plural, ratio_fmt, spans, Ctx, Section};
use crate::svg::{color, BarChart, Bars};
use crate::table::{CellMark, Table};
use crate::Output;

fn opt(v: Option<u64>) -> String {
    v.map(|b| b.to_string()).unwrap_or_else(|| "-".into())
}

fn opt_csv(v: Option<u64>) -> String {
    v.map(|b| b.to_string()).unwrap_or_default()
}

fn ratio(v: Option<f64>) -> String {
    v.map(|r| format!("{r:.2}")).unwrap_or_else(|| "-".into())
}

/// Bytes per payload (rows) × codec (columns).
pub fn matrix(s: &SizeSection) -> Table {
    let codecs: Vec<&str> = s.aggregates.iter().map(|a| a.codec.as_str()).collect();
    let mut headers = vec!["payload"];
    headers.extend(codecs.iter());
    let mut t = Table::new("Encoded size (bytes)", &headers).numeric_from(1);
    let mut payloads: Vec<&str> = Vec::new();
    for r in &s.rows {
        if !payloads.contains(&r.payload.as_str()) {
            payloads.push(&r.payload);
        }
    }
    for p in payloads {
        let mut row = vec![p.to_string()];
        for c in &codecs {
            let cell = s.rows.iter().find(|r| r.payload == p && r.codec == *c).map(|r| {
                let mark = match r.fidelity.label() {
                    "exact" | "unchecked" => "",
                    "lossy" => "~",
                    _ => "!",
                };
                format!("{}{mark}", opt(r.bytes))
            });
            row.push(cell.unwrap_or_default());
        }
        t.push(row);
    }
    t
}

/// One row per codec: totals, ratio to JSON, compressed totals, fidelity counts.
pub fn summary(s: &SizeSection) -> Table {
    let mut t = Table::new(
        "Per codec (all payloads): bytes per message (median, p99, max), totals, fidelity",
        &[
            "codec", "median", "p99", "max", "mean", "bytes", "x JSON", "zstd", "deflate", "exact", "lossy", "unsup.",
            "failed",
        ],
    )
    .numeric_from(1)
    .headline();
    for a in &s.aggregates {
        t.push(vec![
            a.codec.clone(),
            opt(a.bytes_p50),
            opt(a.bytes_p99),
            opt(a.bytes_max),
            a.bytes_mean.map(|m| format!("{m:.1}")).unwrap_or_else(|| "-".into()),
            a.bytes_total.to_string(),
            ratio(a.ratio_to_json),
            compressed_total(a, 0),
            compressed_total(a, 1),
            a.exact.to_string(),
            a.lossy.to_string(),
            a.unsupported.to_string(),
            a.failed.to_string(),
        ]);
    }
    t
}

/// A compressed total (0 zstd, 1 deflate) for the table: the sum when every encoded message
/// was compressed, `~` and the sampled mean × the encoded messages when only a sample was,
/// `-` when none was.
fn compressed_total(a: &SizeAggregate, which: usize) -> String {
    match a.compressed_means() {
        None => "-".into(),
        Some(_) if !a.compression_sampled() => {
            (if which == 0 { a.zstd_bytes_total } else { a.deflate_bytes_total }).to_string()
        }
        Some((z, d)) => format!("~{:.0}", if which == 0 { z } else { d } * a.encoded as f64),
    }
}

/// How the compressed sizes were taken, when not from every message.
fn compression_note(s: &SizeSection) -> Option<String> {
    let a = s.aggregates.iter().find(|a| a.encoded > 0)?;
    if a.compressed_records() == 0 {
        return Some("zstd and deflate: not measured (--compress none).".into());
    }
    a.compression_sampled().then(|| {
        format!(
            "zstd and deflate: {} of {} messages compressed (a systematic sample, every {}); `~` totals are their mean × the messages (--compress all for every message).",
            a.compressed_records(),
            a.encoded,
            ordinal(a.encoded.div_ceil(a.compressed_records().max(1)))
        )
    })
}

/// `n` as an English ordinal: 2nd, 3rd, 11th, 21st, 50th.
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// How many messages had their round trip checked, when not every one (`--roundtrip`).
pub fn roundtrip_note(s: &SizeSection) -> Option<String> {
    let a = s.aggregates.iter().find(|a| a.unchecked > 0)?;
    let checked = a.encoded.saturating_sub(a.unchecked);
    Some(if checked == 0 {
        "round trip: not checked (--roundtrip none); exact, lossy and failed count nothing, sizes cover every message."
            .into()
    } else {
        let sample = match s.roundtrip_new_classes {
            Some(new) => format!(
                "a systematic sample, every {}, and {new} that brought a value class not checked before",
                ordinal(a.encoded.div_ceil(checked.saturating_sub(new).max(1)))
            ),
            None => format!("a systematic sample, every {}", ordinal(a.encoded.div_ceil(checked))),
        };
        format!(
            "round trip: {checked} of {} encoded messages checked ({sample}); exact, lossy and failed count those (--roundtrip all for every message).",
            a.encoded,
        )
    })
}

/// The run's own figures: payloads, time, throughput, peak memory and (when timed) where the
/// CPU time went.
fn run_line(s: &SizeSection) -> String {
    let r = &s.run;
    let mut line = format!("{} payloads in {:.2} s ({:.0} payloads/s", r.records, r.seconds, r.records_per_second);
    if r.input_bytes > 0 {
        line.push_str(&format!(", {:.1} MiB/s of input", r.input_mib_per_second));
    }
    line.push(')');
    if let Some(kib) = r.peak_rss_kib {
        line.push_str(&format!("; peak memory {:.1} MiB", kib as f64 / 1024.0));
    }
    // A line of its own, so that the summary fits an 80-column terminal.
    if let Some(stages) = r.cpu_seconds.as_ref().and_then(|c| c.summary()) {
        line.push('\n');
        line.push_str(&stages);
        line.push_str(" (estimated from timed messages)");
    }
    line
}

/// The PSON paper's size claims beside ours (from docs/studies/seed001-pson-paper.md, the one
/// source for both), with why our mean differs from the paper's by a tenth of a byte.
fn seed001_size_claims(s: &SizeSection) -> Vec<Block> {
    use wirebench_core::published::seed001::{PSON_PAPER_MEAN_PSON_BYTES, PSON_PAPER_RATIO_TO_JSON};
    let mean = |c: &str| s.aggregates.iter().find(|a| a.codec == c).and_then(|a| a.bytes_mean);
    // The mean of the per-payload ratios (the paper's "on average"), and the ratio of totals.
    let per_payload = |c: &str| {
        let r: Vec<f64> = s.rows.iter().filter(|r| r.codec == c).filter_map(|r| r.ratio_to_json).collect();
        (!r.is_empty()).then(|| r.iter().sum::<f64>() / r.len() as f64)
    };
    let total = |c: &str| s.aggregates.iter().find(|a| a.codec == c).and_then(|a| a.ratio_to_json);
    let f = |v: Option<f64>, d: usize| v.map_or("-".to_string(), |v| format!("{v:.d$}"));
    let mut t = Table::new("The paper's size claims beside ours", &["claim (PSON paper)", "paper", "ours"]);
    t.push(vec![
        "average PSON size over Test01–Test10 (§6)".into(),
        format!("{PSON_PAPER_MEAN_PSON_BYTES} B"),
        format!("PSON v2 {} B; Protoson v1 {} B", f(mean("pson"), 1), f(mean("protoson"), 1)),
    ]);
    for (c, name) in [("pson", "PSON"), ("msgpack", "MessagePack")] {
        t.push(vec![
            format!("{name} ≈ 15 % smaller than JSON on average (§5.3)"),
            format!("{PSON_PAPER_RATIO_TO_JSON:.2} × JSON"),
            format!(
                "{} × JSON (mean of per-payload ratios); {} (ratio of totals)",
                f(per_payload(c), 2),
                f(total(c), 2)
            ),
        ]);
    }
    let mut out = vec![
        Block::Table(t),
        Block::Caption(
            "PSON v2 sends a float64 as float32 only when that is exact; with Protoson's lossy float rule the \
             mean is one tenth of a byte from the paper's 66.3 B (docs/studies/seed001-pson-paper.md, \"Why 66.3 B\")."
                .into(),
        ),
    ];
    let heading = crate::studies::CAVEATS[1].1;
    if let Some(md) = crate::studies::section_markdown("seed001", heading) {
        out.push(Block::Intro(format!(
            "{heading}. From docs/studies/seed001-pson-paper.md (the study's page; the same text):\n{}",
            crate::studies::plain_paragraphs(&md).join("\n")
        )));
    }
    out
}

fn size_payloads(s: &SizeSection) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for row in &s.rows {
        if !out.contains(&row.payload.as_str()) {
            out.push(&row.payload);
        }
    }
    out
}

/// The section's answer in one line: the smallest and the largest codec relative to JSON, and
/// whether every round trip was exact.
fn key_line(s: &SizeSection) -> Option<String> {
    let with_ratio = || s.aggregates.iter().filter(|a| a.ratio_to_json.is_some());
    let by_ratio =
        |a: &&SizeAggregate, b: &&SizeAggregate| a.ratio_to_json.unwrap().total_cmp(&b.ratio_to_json.unwrap());
    let (lo, hi) = (with_ratio().min_by(by_ratio)?, with_ratio().max_by(by_ratio)?);
    let issues: u64 = s.aggregates.iter().map(|a| a.lossy + a.unsupported + a.failed).sum();
    Some(format!(
        "Smallest: {} at {} of JSON · largest: {} at {} · {}",
        lo.codec,
        ratio_fmt(lo.ratio_to_json.unwrap()),
        hi.codec,
        ratio_fmt(hi.ratio_to_json.unwrap()),
        if let Some(note) = roundtrip_note(s) {
            format!("{issues} round trips not exact; {note}")
        } else if issues == 0 {
            "every round trip exact".to_string()
        } else {
            format!("{issues} round trips not exact (see the notes)")
        }
    ))
}

/// The per-codec charts: one message's size (median, p99, largest), the mean raw and
/// compressed, and the ratio to JSON.
fn codec_charts(s: &SizeSection, ctx: &Ctx) -> Vec<Block> {
    let codecs: Vec<String> = s.aggregates.iter().map(|a| a.codec.clone()).collect();
    let mut out = Vec::new();
    // Per message: the distribution of one message's size (what a budget or a frame limits).
    if s.aggregates.iter().any(|a| a.bytes_p50.is_some()) {
        let get = |f: fn(&SizeAggregate) -> Option<u64>| -> Vec<Option<f64>> {
            s.aggregates.iter().map(|a| f(a).map(|v| v as f64)).collect()
        };
        let dist = BarChart::new(
            &ctx.chart_id("per-message"),
            "Bytes of one message: median, 99th percentile, largest",
            codecs.clone(),
        )
        .series(Bars::new("median", get(|a| a.bytes_p50)).color(color(0)))
        .series(Bars::new("p99", get(|a| a.bytes_p99)).color(color(1)))
        .series(Bars::new("largest", get(|a| a.bytes_max)).color(color(3)))
        .axis_label("bytes per message")
        .value_format(bytes_fmt);
        out.push(Block::Figure(Figure::new(
            dist.render(),
            "Each codec's encoded size per message over the payloads it encoded: the median message, the 99th percentile and the largest, the figures a byte budget or a radio frame has to hold.",
        )));
    }
    // Mean per message: raw, zstd, deflate.
    let per = |total: fn(&SizeAggregate) -> u64| -> Vec<Option<f64>> {
        s.aggregates.iter().map(|a| (a.encoded > 0).then(|| total(a) as f64 / a.encoded as f64)).collect()
    };
    let comp = |which: usize| -> Vec<Option<f64>> {
        s.aggregates.iter().map(|a| a.compressed_means().map(|(z, d)| if which == 0 { z } else { d })).collect()
    };
    let means =
        BarChart::new(&ctx.chart_id("bytes"), "Mean bytes per message, raw and compressed on its own", codecs.clone())
            .series(Bars::new("raw", per(|a| a.bytes_total)))
            .series(Bars::new("zstd per message", comp(0)))
            .series(Bars::new("deflate per message", comp(1)))
            .axis_label("bytes per message (mean)")
            .value_format(bytes_fmt);
    out.push(Block::Figure(Figure::new(
        means.render(),
        "Mean encoded size per message over the payloads the codec encoded. Per-message compression includes each format's frame, so tiny messages can grow.",
    )));
    // Ratio to JSON.
    let ratios: Vec<Option<f64>> = s.aggregates.iter().map(|a| a.ratio_to_json).collect();
    let log = spans(&ratios, 4.0);
    let ratio =
        BarChart::new(&ctx.chart_id("ratio"), "Size relative to JSON (left of the line: smaller)", codecs.clone())
            .series(Bars::new("bytes / JSON bytes", ratios).color(color(0)))
            .base(1.0)
            .log(log)
            .reference(1.0, "JSON = 1")
            .axis_label("encoded bytes ÷ compact JSON bytes of the same payloads")
            .value_format(ratio_fmt);
    out.push(Block::Figure(Figure::new(
        ratio.render(),
        "Total bytes ÷ total compact-JSON bytes of the payloads the codec encoded.",
    )));
    out
}

/// One chart per payload (small multiples), each on its own scale with the payload's JSON size.
fn payload_charts(s: &SizeSection, ctx: &Ctx) -> Block {
    let codecs: Vec<String> = s.aggregates.iter().map(|a| a.codec.clone()).collect();
    let items = size_payloads(s)
        .iter()
        .enumerate()
        .map(|(pi, p)| {
            let values: Vec<Option<f64>> = codecs
                .iter()
                .map(|c| {
                    s.rows.iter().find(|r| r.payload == *p && r.codec == *c).and_then(|r| r.bytes).map(|v| v as f64)
                })
                .collect();
            let json = s.rows.iter().find(|r| r.payload == *p).map(|r| r.json_bytes).unwrap_or(0);
            let chart = BarChart::new(
                &ctx.chart_id(&format!("payload{}", pi + 1)),
                &format!("{p} · JSON {json} B"),
                codecs.clone(),
            )
            .series(Bars::new("bytes", values).color(color(0)))
            .reference(json as f64, "JSON")
            .axis_label("bytes")
            .width(400.0)
            .bar_height(11.0)
            .value_format(bytes_fmt);
            Figure::new(chart.render(), "")
        })
        .collect();
    Block::Figures {
        items,
        note: "One chart per payload, each on its own scale; the dashed line is the payload's compact JSON size."
            .into(),
    }
}

/// The matrix with its marked cells: lossy (`~`) and not encoded (`!`), the reason as the
/// cell's tooltip on the page.
fn marked_matrix(s: &SizeSection) -> Table {
    let mut m = matrix(s);
    let mut marks = Vec::new();
    for (ri, row) in m.rows.iter().enumerate() {
        for (ci, text) in row.iter().enumerate().skip(1) {
            let class = if text.ends_with('~') {
                "lossy"
            } else if text.ends_with('!') {
                "bad"
            } else {
                continue;
            };
            let (payload, codec) = (&row[0], &m.headers[ci]);
            if let Some(r) = s.rows.iter().find(|r| &r.payload == payload && &r.codec == codec) {
                marks.push(CellMark { row: ri, col: ci, class, tip: r.fidelity.summary() });
            }
        }
    }
    m.marks = marks;
    m
}

/// What did not round-trip exactly: per codec, how many payloads and which, by reason (a run
/// that kept no rows: each codec's first issue).
fn fidelity_notes(s: &SizeSection) -> Vec<String> {
    if s.rows.is_empty() {
        return s
            .aggregates
            .iter()
            .filter_map(|a| {
                a.first_issue
                    .as_ref()
                    .map(|i| format!("{}: {} (first of {} not exact)", a.codec, i, a.lossy + a.unsupported + a.failed))
            })
            .collect();
    }
    let mut notes = Vec::new();
    for a in &s.aggregates {
        let c = &a.codec;
        // Reason → payloads, in order of first appearance.
        let mut reasons: Vec<(String, Vec<&str>)> = Vec::new();
        let mut n = 0;
        for r in s.rows.iter().filter(|r| &r.codec == c && !matches!(r.fidelity.label(), "exact" | "unchecked")) {
            n += 1;
            let why = r.fidelity.summary();
            match reasons.iter_mut().find(|(w, _)| *w == why) {
                Some((_, ps)) => ps.push(&r.payload),
                None => reasons.push((why, vec![&r.payload])),
            }
        }
        if n == 0 {
            continue;
        }
        let mut note = format!("{c}: {} not exact", plural(n, "payload", "payloads"));
        for (why, ps) in reasons.iter().take(20) {
            let more = if ps.len() > 12 { format!(" and {} more", ps.len() - 12) } else { String::new() };
            note.push_str(&format!("\n    - {why}: {}{more}", ps[..ps.len().min(12)].join(", ")));
        }
        if reasons.len() > 20 {
            note.push_str(&format!("\n    - … and {} more reasons (see the results file)", reasons.len() - 20));
        }
        notes.push(note);
    }
    notes
}

/// The section as blocks, the same for every report kind: what was measured, the answer, the
/// bytes per payload and per codec (with how compressed sizes and round trips were taken), the
/// PSON paper's claims for its corpus, the fidelity notes and the run's figures; the charts
/// (HTML only) when `charts` gives the section's page id.
fn blocks(s: &SizeSection, charts: Option<&Ctx>) -> Vec<Block> {
    let level = |l: Option<i64>| l.map(|l| format!(" (level {l})")).unwrap_or_default();
    let mut out = vec![
        Block::Heading(format!("Encoded size: {}", s.corpus)),
        Block::Intro(format!(
            "Bytes of one encoded message, per codec, for every payload of {} ({}). Compact JSON of the same value \
             is the baseline. zstd{} and raw deflate{} compress each message on its own, as a sender compressing \
             each message would. Every encoding is decoded and compared with its input.",
            s.corpus,
            plural(s.run.records as usize, "payload", "payloads"),
            level(s.zstd_level.map(i64::from)),
            level(s.deflate_level.map(i64::from)),
        )),
    ];
    out.extend(key_line(s).map(Block::KeyLine));
    if let Some(ctx) = charts {
        out.extend(codec_charts(s, ctx));
    }
    if !s.rows.is_empty() {
        out.push(Block::Subheading("Bytes per payload".into()));
        if let Some(ctx) = charts.filter(|_| size_payloads(s).len() <= 12) {
            out.push(payload_charts(s, ctx));
        }
        out.push(Block::Table(marked_matrix(s)));
        out.push(Block::Legend(vec![
            ("~".into(), "lossy round trip".into()),
            ("!".into(), "not encoded (see the fidelity notes)".into()),
        ]));
    }
    out.push(Block::Subheading("Per codec".into()));
    out.push(Block::Table(summary(s)));
    out.extend(compression_note(s).into_iter().chain(roundtrip_note(s)).map(Block::Caption));
    if let Some(h) = &s.held_out {
        out.extend(crate::size_held_out::blocks(h));
    }
    if s.corpus == "pson-paper" {
        out.extend(seed001_size_claims(s));
    }
    out.push(Block::Subheading("Fidelity notes".into()));
    let n = fidelity_notes(s);
    if !n.is_empty() {
        out.push(List::untitled(n).bullet("  ").into());
    } else if roundtrip_note(s).is_none() {
        out.push(Block::Note("Every payload decoded back to exactly its input in every codec.".into()));
    } else {
        out.push(Block::Note("Every checked payload decoded back to exactly its input in every codec.".into()));
    }
    if let Some(schema) = &s.schema {
        out.push(Block::Details {
            summary: "Schema used by the schema-driven codecs".into(),
            text: serde_json::to_string_pretty(schema).unwrap_or_default(),
        });
    }
    out.push(Block::Emphasis(run_line(s)));
    out
}

/// The size section of the HTML page.
pub fn html_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = r.size.as_ref()?;
    let summary = format!(
        "bytes per message of {} in {}, raw and compressed",
        plural(s.run.records as usize, "payload", "payloads"),
        plural(s.aggregates.len(), "codec", "codecs")
    );
    Some(crate::html::from_blocks(&blocks(s, Some(ctx)), summary))
}

/// Render the size section of a results file.
pub fn render(results: &Results, output: Output) -> String {
    let Some(s) = &results.size else {
        return String::new();
    };
    match output {
        Output::Json => serde_json::to_string_pretty(s).expect("section serializes") + "\n",
        Output::Csv => crate::csv::text(&all_csv(s)),
        Output::Table | Output::Markdown => crate::blocks::render(&blocks(s, None), output),
    }
}

/// The section's CSV tables: a row per payload and codec, or (a run that kept no rows) a row
/// per codec; with held-out sizes, a row per codec and variant after it.
pub fn csv_tables(results: &Results) -> Vec<CsvTable> {
    results.size.as_ref().map(all_csv).unwrap_or_default()
}

fn all_csv(s: &SizeSection) -> Vec<CsvTable> {
    let mut out = vec![csv(s)];
    out.extend(s.held_out.as_ref().map(crate::size_held_out::csv));
    out
}

fn csv(s: &SizeSection) -> CsvTable {
    if !s.rows.is_empty() {
        let mut out = CsvTable::with_header(&[
            "payload",
            "codec",
            "path",
            "bytes",
            "json_bytes",
            "ratio_to_json",
            "zstd_bytes",
            "deflate_bytes",
            "fidelity",
            "detail",
        ]);
        for r in &s.rows {
            let detail = match r.fidelity.summary() {
                d if d == r.fidelity.label() => String::new(),
                d => d,
            };
            out.row(&[
                r.payload.clone(),
                r.codec.clone(),
                r.path.clone(),
                opt(r.bytes),
                r.json_bytes.to_string(),
                r.ratio_to_json.map(|x| format!("{x:.4}")).unwrap_or_default(),
                opt(r.zstd_bytes),
                opt(r.deflate_bytes),
                r.fidelity.label().to_string(),
                detail,
            ]);
        }
        return out;
    }
    let mut out = CsvTable::with_header(&[
        "codec",
        "records",
        "encoded",
        "bytes_total",
        "bytes_mean",
        "ratio_to_json",
        "zstd_bytes_total",
        "deflate_bytes_total",
        "exact",
        "lossy",
        "unsupported",
        "failed",
        "first_issue",
        "bytes_p50",
        "bytes_p90",
        "bytes_p99",
        "bytes_max",
        "compressed",
        "unchecked",
    ]);
    for a in &s.aggregates {
        out.row(&[
            a.codec.clone(),
            a.records.to_string(),
            a.encoded.to_string(),
            a.bytes_total.to_string(),
            a.bytes_mean.map(|m| format!("{m:.3}")).unwrap_or_default(),
            a.ratio_to_json.map(|x| format!("{x:.4}")).unwrap_or_default(),
            a.zstd_bytes_total.to_string(),
            a.deflate_bytes_total.to_string(),
            a.exact.to_string(),
            a.lossy.to_string(),
            a.unsupported.to_string(),
            a.failed.to_string(),
            a.first_issue.clone().unwrap_or_default(),
            opt_csv(a.bytes_p50),
            opt_csv(a.bytes_p90),
            opt_csv(a.bytes_p99),
            opt_csv(a.bytes_max),
            a.compressed_records().to_string(),
            a.unchecked.to_string(),
        ]);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 50, 101, 112].into_iter().map(super::ordinal).collect();
        assert_eq!(got, ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "50th", "101st", "112th"]);
    }
}
