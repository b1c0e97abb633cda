//! The HTML report: one self-contained page (inline CSS and SVG, no script, no external
//! resource) from one or more results files.
//!
//! The page has a header (title, what was measured, provenance of every results file) and one
//! section per measurement found in the files, in the order of the views the caller passes (the
//! study runner's registry: each part's [`crate::View`] has its `fn(&Results, &Ctx) ->
//! Option<Section>`). A section no view knows is shown as pretty JSON in a `<details>` element
//! ([`generic_section`]).
//!
//! The output is deterministic: it depends only on the results (no clock, no hash order), items
//! keep the order of the results, and every number is printed with a fixed precision. All text
//! taken from the results is HTML-escaped.

use std::fmt::Write;

use serde_json::Value;
use wirebench_core::published::PSON_PAPER_ESP32;
use wirebench_core::results::{OpSpeed, Results, SizeSection, SpeedCase, SpeedSection};

use crate::svg::{color, esc, fixed, BarChart, Bars};
use crate::table::Table;

/// Where a section renderer is called from: the page id of the section (unique, also the prefix
/// of its chart ids) and which results file it comes from.
pub struct Ctx {
    pub id: String,
    /// 1-based index of the results file; `files` is how many there are.
    pub file: usize,
    pub files: usize,
}

impl Ctx {
    /// A chart id unique in the page.
    pub fn chart_id(&self, name: &str) -> String {
        format!("{}-{name}", self.id)
    }
}

/// One rendered section: its heading (plain text, escaped on output) and body (HTML).
pub struct Section {
    pub title: String,
    /// One line for the page header: what this section measured (plain text).
    pub summary: String,
    pub body: String,
}

/// A section renderer: `None` when the results file has no such section.
pub type SectionFn = fn(&Results, &Ctx) -> Option<Section>;

/// Render one self-contained HTML page from results files, with these sections in this order
/// (the study runner's views: `wirebench_report::FRAME` and each part's).
pub fn render(results: &[&Results], title: &str, views: &[crate::View]) -> String {
    let files = results.len();
    // Which sections each file has, in page order: the known ones, then the sections this
    // version has no type for, by name.
    let mut found: Vec<(usize, String)> = Vec::new();
    for (fi, r) in results.iter().enumerate() {
        for v in views {
            if (v.has)(r) {
                found.push((fi, v.key.to_string()));
            }
        }
        // The sections this build has no field for, unless a view shows them.
        found.extend(unviewed(r, views).map(|k| (fi, k.to_string())));
    }
    // A section kind found in several files gets the file number in its id and title.
    let mut used_ids: Vec<String> = Vec::new();
    let mut sections: Vec<(String, usize, Section)> = Vec::new();
    for (fi, key) in &found {
        let repeated = found.iter().filter(|(_, k)| k == key).count() > 1;
        let id = unique_id(&mut used_ids, key, if repeated { Some(fi + 1) } else { None });
        let ctx = Ctx { id: id.clone(), file: fi + 1, files };
        let section = match views.iter().find(|v| v.key == key) {
            Some(v) => (v.html)(results[*fi], &ctx),
            None => results[*fi].other.get(key).map(|v| generic_section(key, v)),
        };
        if let Some(mut s) = section {
            if repeated {
                s.title = format!("{} (file {})", s.title, fi + 1);
            }
            sections.push((id, fi + 1, s));
        }
    }

    let mut out = String::with_capacity(256 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"generator\" content=\"wirebench-report\">\n");
    let _ = writeln!(out, "<title>{}</title>", esc(title));
    let _ = writeln!(out, "<style>{CSS}</style>\n</head>\n<body>\n<div class=\"page\">");
    out.push_str("<header class=\"top\">\n");
    let _ = writeln!(out, "<h1>{}</h1>", esc(title));
    if sections.is_empty() {
        out.push_str("<p class=\"lede\">The results contain no measurement.</p>\n");
    } else {
        out.push_str("<p class=\"lede\">What was measured:</p>\n<nav aria-label=\"sections\"><ul>\n");
        for (id, _, s) in &sections {
            let _ = writeln!(
                out,
                "<li><a href=\"#{id}\">{}</a> <span class=\"muted\">{}</span></li>",
                esc(&s.title),
                esc(&s.summary)
            );
        }
        out.push_str("</ul></nav>\n");
    }
    out.push_str(&provenance(results, views));
    out.push_str("</header>\n<main>\n");
    for (id, _, s) in &sections {
        let _ = writeln!(out, "<section id=\"{id}\">\n<h2>{}</h2>\n{}</section>", esc(&s.title), s.body);
    }
    out.push_str("</main>\n<footer>\n");
    let _ = writeln!(
        out,
        "<p>Generated by wirebench-report from {files} results file{}. Every figure comes from the results; \
         docs/methodology.md says what each one means. This page loads nothing from outside.</p>",
        if files == 1 { "" } else { "s" }
    );
    out.push_str("</footer>\n</div>\n</body>\n</html>\n");
    out
}

fn unique_id(used: &mut Vec<String>, key: &str, file: Option<usize>) -> String {
    let base: String =
        key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).collect();
    let base = if base.is_empty() { "section".to_string() } else { base };
    let base = match file {
        Some(f) => format!("{base}-{f}"),
        None => base,
    };
    let mut id = base.clone();
    let mut n = 2;
    while used.contains(&id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    used.push(id.clone());
    id
}

// ---------------------------------------------------------------------------------------------
// Building blocks

/// A [`Table`] as an HTML table (numeric columns right-aligned, its [`Table::marks`] as cell
/// classes and tooltips).
pub fn table(t: &Table) -> String {
    table_with(t, &|r, c, _| t.marks.iter().find(|m| m.row == r && m.col == c).map(|m| (m.class, m.tip.clone())))
}

/// A page section made of a section's blocks ([`crate::blocks::to_html`]): the title is its
/// first [`Block::Heading`] (else the first lead table's heading or title), the body the rest;
/// `summary` is its line in the page header.
pub fn from_blocks(blocks: &[crate::blocks::Block], summary: String) -> Section {
    use crate::blocks::Block;
    let title = blocks
        .iter()
        .find_map(|b| match b {
            Block::Heading(h) => Some(h.clone()),
            Block::LeadTable { heading, table } => Some(heading.clone().unwrap_or_else(|| table.title.clone())),
            _ => None,
        })
        .unwrap_or_default();
    Section { title, summary, body: crate::blocks::to_html(blocks) }
}

/// Gives a cell (row, column, text) a CSS class and a tooltip, or nothing.
pub type CellDecorator<'a> = &'a dyn Fn(usize, usize, &str) -> Option<(&'static str, String)>;

/// A column header: escaped, with break opportunities after `/`, `_`, `÷` and `×` besides its
/// spaces, so a narrow column breaks there; headers never break inside a word (a table of
/// [`DENSE_COLUMNS`] or more columns is set denser instead, to stay within the page).
fn header_html(h: &str) -> String {
    let mut out = String::new();
    for c in h.chars() {
        out.push_str(&esc(&c.to_string()));
        if matches!(c, '/' | '_' | '÷' | '×') {
            out.push_str("<wbr>");
        }
    }
    out
}

/// Tables with this many columns or more get smaller type and padding (`table.dense`), so that
/// the widest ones (seed 000's throughput, seed 001's energy) fit 1,280 px without breaking a
/// header inside a word.
pub const DENSE_COLUMNS: usize = 16;

/// A [`Table`] as an HTML table; `decorate(row, column, text)` may give a cell a CSS class and a
/// tooltip.
pub fn table_with(t: &Table, decorate: CellDecorator) -> String {
    let num = |i: usize| t.numeric.get(i).copied().unwrap_or(false);
    let mut out = String::from(if t.headers.len() >= DENSE_COLUMNS {
        "<div class=\"table-wrap\"><table class=\"dense\">"
    } else {
        "<div class=\"table-wrap\"><table>"
    });
    if !t.title.is_empty() {
        let _ = write!(out, "<caption>{}</caption>", esc(&t.title));
    }
    out.push_str("<thead><tr>");
    for (i, h) in t.headers.iter().enumerate() {
        let _ = write!(out, "<th scope=\"col\"{}>{}</th>", if num(i) { " class=\"num\"" } else { "" }, header_html(h));
    }
    out.push_str("</tr></thead><tbody>");
    for (ri, row) in t.rows.iter().enumerate() {
        out.push_str("<tr>");
        for (ci, cell) in row.iter().enumerate() {
            let mut classes = Vec::new();
            if num(ci) {
                classes.push("num");
            }
            let mut tip = String::new();
            if let Some((class, title)) = decorate(ri, ci, cell) {
                classes.push(class);
                tip = format!(" title=\"{}\"", esc(&title));
            }
            let class = if classes.is_empty() { String::new() } else { format!(" class=\"{}\"", classes.join(" ")) };
            let tag = if ci == 0 && !num(0) { "th scope=\"row\"" } else { "td" };
            let close = if tag == "td" { "td" } else { "th" };
            let _ = write!(out, "<{tag}{class}{tip}>{}</{close}>", esc(cell));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// A chart in a `<figure>` with a caption (`caption_html` must already be escaped).
pub fn figure(svg: String, caption_html: &str) -> String {
    if caption_html.is_empty() {
        format!("<figure class=\"chart\">{svg}</figure>\n")
    } else {
        format!("<figure class=\"chart\">{svg}<figcaption>{caption_html}</figcaption></figure>\n")
    }
}

pub fn grid(class: &str, items: &[String]) -> String {
    format!("<div class=\"{class}\">\n{}</div>\n", items.concat())
}

/// The body of a section this report has no view for: its JSON, pretty-printed, in a
/// `<details>` element.
pub fn generic_section(key: &str, value: &Value) -> Section {
    const MAX: usize = 500_000;
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    let total = text.len();
    let mut cut = false;
    if text.len() > MAX {
        let mut end = MAX;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        cut = true;
    }
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<p class=\"note\">This report has no view for the <code>{}</code> section yet; its data follows as recorded.</p>",
        esc(key)
    );
    let _ = write!(body, "<details><summary>{} data ({} bytes of JSON)</summary><pre>{}", esc(key), total, esc(&text));
    if cut {
        body.push_str("\n… (cut; see the results file)");
    }
    body.push_str("</pre></details>\n");
    Section { title: format!("Section: {key}"), summary: format!("{key}: raw data"), body }
}

fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=,:+@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn provenance(results: &[&Results], views: &[crate::View]) -> String {
    if results.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2 class=\"prov-h\">Provenance</h2>\n<div class=\"cards\">\n");
    for (i, r) in results.iter().enumerate() {
        let p = &r.provenance;
        let m = &p.machine;
        let measured: Vec<String> = section_keys(r, views);
        let (commit, dirty) = match p.git_commit.strip_suffix("-dirty") {
            Some(c) => (c, true),
            None => (p.git_commit.as_str(), false),
        };
        let short: String = commit.chars().take(12).collect();
        out.push_str("<div class=\"card\">");
        if results.len() > 1 {
            let _ = write!(out, "<h3>Results file {}</h3>", i + 1);
        }
        out.push_str("<dl>");
        let mut row = |k: &str, v: String| {
            let _ = write!(out, "<dt>{k}</dt><dd>{v}</dd>");
        };
        row("measured", esc(&measured.join(", ")));
        row("started", esc(&p.started_at));
        row(
            "wirebench",
            format!(
                "{} · commit <code title=\"{}\">{}</code>{}",
                esc(&p.wirebench_version),
                esc(&p.git_commit),
                esc(if short.is_empty() { "unknown" } else { &short }),
                if dirty { " <span class=\"tag\">uncommitted changes</span>" } else { "" }
            ),
        );
        row("CPU", format!("{} · {} cores · {}", esc(&m.cpu_model), m.cores, esc(&m.arch)));
        row("kernel", format!("{} {}", esc(&m.os), esc(&m.kernel)));
        row("compiler", esc(&p.rustc));
        row("seed", p.seed.to_string());
        // Short words do not break inside (`--samples-per-case` stays whole); long ones may.
        let cmd: Vec<String> = p
            .command
            .iter()
            .map(|a| {
                let w = esc(&shell_word(a));
                if a.chars().count() <= 40 {
                    format!("<span class=\"arg\">{w}</span>")
                } else {
                    w
                }
            })
            .collect();
        row("command", format!("<code>{}</code>", cmd.join(" ")));
        out.push_str("</dl>");
        if !p.crates.is_empty() {
            let list: Vec<String> = p.crates.iter().map(|(n, v)| format!("{} {}", esc(n), esc(v))).collect();
            let _ = write!(
                out,
                "<details><summary>Codec libraries ({})</summary><p class=\"crates\">{}</p></details>",
                p.crates.len(),
                list.join(" · ")
            );
        }
        let cfg = serde_json::to_string_pretty(&r.config).unwrap_or_default();
        let _ = write!(out, "<details><summary>Configuration</summary><pre>{}</pre></details>", esc(&cfg));
        out.push_str("</div>\n");
    }
    out.push_str("</div>\n");
    out
}

/// The sections of `r` this build has no field for and no view shows (rendered as raw data).
fn unviewed<'a>(r: &'a Results, views: &'a [crate::View]) -> impl Iterator<Item = &'a str> {
    r.other.keys().map(String::as_str).filter(|k| !views.iter().any(|v| v.key == *k))
}

fn section_keys(r: &Results, views: &[crate::View]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(s) = &r.size {
        out.push(format!("size ({})", s.corpus));
    }
    if let Some(s) = &r.speed {
        out.push(format!("speed ({})", s.corpus));
    }
    // The other sections by name, in the order the results file lists them (alphabetical).
    let mut rest: Vec<String> =
        views.iter().filter(|v| v.key != "size" && v.key != "speed" && (v.has)(r)).map(|v| v.key.to_string()).collect();
    rest.extend(unviewed(r, views).map(String::from));
    rest.sort();
    out.extend(rest);
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn bytes_fmt(v: f64) -> String {
    crate::svg::compact(v, 0)
}

fn ratio_fmt(v: f64) -> String {
    format!("{}×", fixed(v, 2))
}

fn ns_fmt(v: f64) -> String {
    crate::speed::ns(v)
}

fn count_fmt(v: f64) -> String {
    if v.abs() >= 100.0 {
        crate::svg::compact(v, 0)
    } else {
        fixed(v, 1)
    }
}

/// A log axis when values span more than `span`×.
fn spans(values: &[Option<f64>], span: f64) -> bool {
    let v: Vec<f64> = values.iter().flatten().copied().filter(|x| *x > 0.0 && x.is_finite()).collect();
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(0.0, f64::max);
    lo.is_finite() && hi / lo > span
}

// ---------------------------------------------------------------------------------------------
// Size

pub fn size_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = r.size.as_ref()?;
    Some(render_size(s, ctx))
}

/// The PSON paper's size claims beside ours, and where the paper cannot be reproduced (from
/// docs/studies/seed001-pson-paper.md, the one source for both).
fn seed001_size_claims(s: &SizeSection) -> String {
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
    let mut out = table(&t);
    out.push_str(
        "<p class=\"note\">PSON v2 sends a float64 as float32 only when that is exact; with Protoson's lossy float rule the \
         mean is one tenth of a byte from the paper's 66.3 B (docs/studies/seed001-pson-paper.md, \"Why 66.3 B\").</p>\n",
    );
    if let Some(h) = crate::studies::section_html("seed001", "Where the paper cannot be reproduced, or is ambiguous") {
        out.push_str(&h);
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

fn render_size(s: &SizeSection, ctx: &Ctx) -> Section {
    let codecs: Vec<String> = s.aggregates.iter().map(|a| a.codec.clone()).collect();
    let payloads = size_payloads(s);
    let mut b = String::new();
    let level = |l: Option<i64>| l.map(|l| format!(" (level {l})")).unwrap_or_default();
    let _ = writeln!(
        b,
        "<p class=\"intro\">Bytes of one encoded message, per codec, for every payload of <b>{}</b> ({}). \
         Compact JSON of the same value is the baseline. zstd{} and raw deflate{} compress each message on its own, \
         as a sender compressing each message would. Every encoding is decoded and compared with its input.</p>",
        esc(&s.corpus),
        plural(s.run.records as usize, "payload", "payloads"),
        level(s.zstd_level.map(i64::from)),
        level(s.deflate_level.map(i64::from)),
    );
    // Key figures.
    let best = s
        .aggregates
        .iter()
        .filter(|a| a.ratio_to_json.is_some())
        .min_by(|a, b| a.ratio_to_json.unwrap().total_cmp(&b.ratio_to_json.unwrap()));
    let worst = s
        .aggregates
        .iter()
        .filter(|a| a.ratio_to_json.is_some())
        .max_by(|a, b| a.ratio_to_json.unwrap().total_cmp(&b.ratio_to_json.unwrap()));
    if let (Some(lo), Some(hi)) = (best, worst) {
        let issues: u64 = s.aggregates.iter().map(|a| a.lossy + a.unsupported + a.failed).sum();
        let _ = writeln!(
            b,
            "<p class=\"keyline\">Smallest: <b>{}</b> at {} of JSON · largest: <b>{}</b> at {} · {}</p>",
            esc(&lo.codec),
            ratio_fmt(lo.ratio_to_json.unwrap()),
            esc(&hi.codec),
            ratio_fmt(hi.ratio_to_json.unwrap()),
            if let Some(note) = crate::size::roundtrip_note(s) {
                format!("{issues} round trips not exact; {note}")
            } else if issues == 0 {
                "every round trip exact".to_string()
            } else {
                format!("{issues} round trips not exact (see the notes)")
            }
        );
    }
    // Per message: the distribution of one message's size (what a budget or a frame limits).
    if s.aggregates.iter().any(|a| a.bytes_p50.is_some()) {
        let get = |f: fn(&wirebench_core::results::SizeAggregate) -> Option<u64>| -> Vec<Option<f64>> {
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
        b.push_str(&figure(
            dist.render(),
            "Each codec's encoded size per message over the payloads it encoded: the median message, the 99th percentile and the largest, the figures a byte budget or a radio frame has to hold.",
        ));
    }
    // Mean per message: raw, zstd, deflate.
    let per = |total: fn(&wirebench_core::results::SizeAggregate) -> u64| -> Vec<Option<f64>> {
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
    b.push_str(&figure(
        means.render(),
        "Mean encoded size per message over the payloads the codec encoded. Per-message compression includes each format's frame, so tiny messages can grow.",
    ));
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
    b.push_str(&figure(ratio.render(), "Total bytes ÷ total compact-JSON bytes of the payloads the codec encoded."));
    // Small multiples.
    if !s.rows.is_empty() && payloads.len() <= 12 {
        b.push_str("<h3>Bytes per payload</h3>\n");
        let mut items = Vec::new();
        for (pi, p) in payloads.iter().enumerate() {
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
            items.push(figure(chart.render(), ""));
        }
        b.push_str(&grid("multiples", &items));
        b.push_str("<p class=\"note\">One chart per payload, each on its own scale; the dashed line is the payload's compact JSON size.</p>\n");
    }
    // Tables.
    b.push_str("<h3>Tables</h3>\n");
    if !s.rows.is_empty() {
        let m = crate::size::matrix(s);
        let decorate = |ri: usize, ci: usize, text: &str| -> Option<(&'static str, String)> {
            if ci == 0 {
                return None;
            }
            let payload = m.rows.get(ri)?.first()?;
            let codec = m.headers.get(ci)?;
            let row = s.rows.iter().find(|r| &r.payload == payload && &r.codec == codec)?;
            if text.ends_with('~') {
                Some(("lossy", row.fidelity.summary()))
            } else if text.ends_with('!') {
                Some(("bad", row.fidelity.summary()))
            } else {
                None
            }
        };
        b.push_str(&table_with(&m, &decorate));
        b.push_str("<p class=\"note\"><span class=\"mark lossy\">~</span> lossy round trip · <span class=\"mark bad\">!</span> not encoded · hover a marked cell for the reason.</p>\n");
    }
    b.push_str(&table(&crate::size::summary(s)));
    // Fidelity notes.
    let mut notes: Vec<String> = Vec::new();
    if s.rows.is_empty() {
        for a in &s.aggregates {
            if let Some(i) = &a.first_issue {
                notes.push(format!(
                    "<li><b>{}</b>: {} (first of {} not exact)</li>",
                    esc(&a.codec),
                    esc(i),
                    a.lossy + a.unsupported + a.failed
                ));
            }
        }
    } else {
        for c in &codecs {
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
            let mut items = Vec::new();
            for (why, ps) in reasons.iter().take(20) {
                let shown: Vec<String> = ps.iter().take(12).map(|p| esc(p)).collect();
                let more = if ps.len() > 12 { format!(" and {} more", ps.len() - 12) } else { String::new() };
                items.push(format!("<li>{}: {}{more}</li>", esc(why), shown.join(", ")));
            }
            if reasons.len() > 20 {
                items.push(format!("<li>… and {} more reasons (see the results file)</li>", reasons.len() - 20));
            }
            notes.push(format!(
                "<li><b>{}</b>: {} not exact<ul>{}</ul></li>",
                esc(c),
                plural(n, "payload", "payloads"),
                items.concat()
            ));
        }
    }
    if s.corpus == "pson-paper" {
        b.push_str(&seed001_size_claims(s));
    }
    b.push_str("<h3>Fidelity notes</h3>\n");
    if let Some(note) = crate::size::roundtrip_note(s) {
        let _ = writeln!(b, "<p class=\"note\">{}</p>", esc(&note));
    }
    if notes.is_empty() && crate::size::roundtrip_note(s).is_none() {
        b.push_str("<p class=\"note\">Every payload decoded back to exactly its input in every codec.</p>\n");
    } else if notes.is_empty() {
        b.push_str("<p class=\"note\">Every checked payload decoded back to exactly its input in every codec.</p>\n");
    } else {
        let _ = writeln!(b, "<ul class=\"notes\">\n{}\n</ul>", notes.join("\n"));
    }
    if let Some(schema) = &s.schema {
        let text = serde_json::to_string_pretty(schema).unwrap_or_default();
        let _ = writeln!(
            b,
            "<details><summary>Schema used by the schema-driven codecs</summary><pre>{}</pre></details>",
            esc(&text)
        );
    }
    let run = &s.run;
    let mut line = format!(
        "The run: {} in {} s ({} payloads/s",
        plural(run.records as usize, "payload", "payloads"),
        fixed(run.seconds, 2),
        fixed(run.records_per_second, 0)
    );
    if run.input_bytes > 0 {
        line.push_str(&format!(", {} MiB/s of input", fixed(run.input_mib_per_second, 1)));
    }
    line.push(')');
    if let Some(kib) = run.peak_rss_kib {
        line.push_str(&format!("; peak memory {} MiB", fixed(kib as f64 / 1024.0, 1)));
    }
    if let Some(stages) = run.cpu_seconds.as_ref().and_then(|c| c.summary()) {
        line.push_str("; ");
        line.push_str(&stages);
        line.push_str(" (estimated from timed messages)");
    }
    let _ = writeln!(b, "<p class=\"note\">{}.</p>", esc(&line));
    Section {
        title: format!("Encoded size: {}", s.corpus),
        summary: format!(
            "bytes per message of {} in {}, raw and compressed",
            plural(s.run.records as usize, "payload", "payloads"),
            plural(s.aggregates.len(), "codec", "codecs")
        ),
        body: b,
    }
}

// ---------------------------------------------------------------------------------------------
// Speed

pub fn speed_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let s = r.speed.as_ref()?;
    Some(render_speed(s, ctx))
}

fn distinct(s: &SpeedSection, f: fn(&SpeedCase) -> &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in &s.cases {
        let v = f(c);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The payload shown case by case: the one the baseline encodes largest (most work per
/// operation, least timer noise), else the largest in any codec.
fn chosen_payload(s: &SpeedSection) -> Option<(&str, usize, &str)> {
    let pick = |codec: Option<&str>| {
        s.cases.iter().filter(|c| codec.is_none_or(|b| c.codec == b)).fold(None::<&SpeedCase>, |best, c| match best {
            Some(b) if b.bytes >= c.bytes => Some(b),
            _ => Some(c),
        })
    };
    pick(Some(&s.baseline)).or_else(|| pick(None)).map(|c| (c.payload.as_str(), c.bytes, c.codec.as_str()))
}

fn render_speed(s: &SpeedSection, ctx: &Ctx) -> Section {
    // Series are (codec, path): with both paths measured, each label names its path.
    let codecs: Vec<String> = crate::speed::labels(s);
    let both = crate::speed::both_paths(s);
    let payloads: Vec<&str> = distinct(s, |c| &c.payload);
    let ops = ["encode", "decode"];
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<p class=\"intro\">Time per encode and decode operation for {} on {} of <b>{}</b>: {} samples per case, \
         each at least {} µs, interleaved in shuffled rounds (seed {}). Medians are the headline figures; ratios \
         are taken against <b>{}</b>. Clock step {} ns, clock read {} ns, harness {} ns per operation.</p>",
        plural(codecs.len(), "codec", "codecs"),
        plural(payloads.len(), "payload", "payloads"),
        esc(&s.corpus),
        s.samples,
        fixed(s.target_sample_ns / 1000.0, 0),
        s.seed,
        esc(&s.baseline),
        fixed(s.timer.precision_ns, 0),
        fixed(s.timer.now_overhead_ns, 0),
        fixed(s.timer.harness_overhead_ns_per_op, 2),
    );
    if both {
        b.push_str(
            "<p class=\"intro\">Each codec with a typed path runs on both: <b>typed</b> (generated or derived types, \
             as an application holds its messages) and <b>dyn</b> (the generic value tree, as for messages only known at \
             run time). Every ratio divides times of the same path: typed by the baseline's typed time, dynamic by its \
             dynamic time.</p>\n",
        );
    }
    if let Some(h) = &s.host_reference {
        let _ = writeln!(
            b,
            "<p class=\"intro\">Host reference (fixed integer work timed in every round; compare it between runs \
             to tell a slower host from slower code): {} ns per operation.</p>",
            fixed(h.ns_per_op.median, 0),
        );
    }
    if !s.warnings.is_empty() {
        b.push_str("<div class=\"warn\" role=\"note\"><b>Warnings</b><ul>");
        for w in &s.warnings {
            let _ = write!(b, "<li>{}</li>", esc(w));
        }
        b.push_str("</ul></div>\n");
    }
    // Per-codec figures over payloads, in the order of `codecs`.
    let per_codec = |op: &str, f: &dyn Fn(&OpSpeed) -> Option<f64>| -> Vec<Option<f64>> {
        codecs
            .iter()
            .map(|c| {
                s.per_codec
                    .iter()
                    .find(|x| &crate::speed::label_of(&x.codec, &x.path, both) == c)
                    .and_then(|x| f(if op == "encode" { &x.encode } else { &x.decode }))
            })
            .collect()
    };
    let median = |x: &OpSpeed| x.geomean_ns;
    // Key line: fastest codec per op.
    let mut keys = Vec::new();
    for op in ops {
        let v = per_codec(op, &median);
        if let Some((i, t)) =
            v.iter().enumerate().filter_map(|(i, v)| v.map(|v| (i, v))).min_by(|a, b| a.1.total_cmp(&b.1))
        {
            keys.push(format!("fastest {op}: <b>{}</b> ({} ns, geometric mean)", esc(&codecs[i]), esc(&ns_fmt(t))));
        }
    }
    if !keys.is_empty() {
        let _ = writeln!(b, "<p class=\"keyline\">{}</p>", keys.join(" · "));
    }
    // Geometric mean over payloads.
    b.push_str("<h3>Median time per operation, geometric mean over payloads</h3>\n");
    let mut items = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        let v = per_codec(op, &median);
        let log = spans(&v, 30.0);
        let chart =
            BarChart::new(&ctx.chart_id(&format!("{op}-gm")), &format!("{op}: ns per operation"), codecs.clone())
                .series(Bars::new(op, v).color(color(k)))
                .axis_label("ns per operation")
                .log(log)
                .width(520.0)
                .value_format(ns_fmt);
        items.push(figure(
            chart.render(),
            &format!("Geometric mean over payloads of each case's median{}.", if log { "; log axis" } else { "" }),
        ));
    }
    b.push_str(&grid("grid2", &items));
    // One payload with its confidence intervals.
    if let Some((payload, bytes, by)) = chosen_payload(s) {
        let _ = writeln!(b, "<h3>One payload with 95 % confidence intervals: {}</h3>", esc(payload));
        let mut items = Vec::new();
        for (k, op) in ops.iter().enumerate() {
            let cases: Vec<Option<&SpeedCase>> =
                codecs.iter().map(|c| crate::speed::find_labelled(s, payload, c, op)).collect();
            let v: Vec<Option<f64>> = cases.iter().map(|c| c.map(|c| c.ns_per_op.median)).collect();
            let e: Vec<Option<(f64, f64)>> = cases.iter().map(|c| c.map(|c| c.ns_per_op.median_ci95)).collect();
            let log = spans(&v, 30.0);
            let chart = BarChart::new(
                &ctx.chart_id(&format!("{op}-one")),
                &format!("{op} {payload}: ns per operation"),
                codecs.clone(),
            )
            .series(Bars::new(&format!("{op} median"), v).errors(e).color(color(k)))
            .axis_label("ns per operation")
            .log(log)
            .width(520.0)
            .value_format(ns_fmt);
            items.push(figure(chart.render(), "Median with its bootstrap 95 % confidence interval (whiskers)."));
        }
        b.push_str(&grid("grid2", &items));
        let _ = writeln!(
            b,
            "<p class=\"note\">{} is the largest payload ({} bytes in {}): the most work per operation and the least timer noise.</p>",
            esc(payload),
            bytes,
            esc(by)
        );
        // Ratio to the baseline.
        let _ = writeln!(b, "<h3>Ratio to the baseline ({})</h3>", esc(&s.baseline));
        let ratio = |x: &OpSpeed| x.geomean_ratio;
        let (enc, dec) = (per_codec("encode", &ratio), per_codec("decode", &ratio));
        let log = spans(&[enc.clone(), dec.clone()].concat(), 4.0);
        let gm =
            BarChart::new(&ctx.chart_id("ratio-gm"), "Ratio to baseline, geometric mean over payloads", codecs.clone())
                .series(Bars::new("encode", enc))
                .series(Bars::new("decode", dec))
                .base(1.0)
                .log(log)
                .reference(1.0, &s.baseline)
                .axis_label(&format!("time ÷ {} time", s.baseline))
                .width(520.0)
                .value_format(ratio_fmt);
        let one = ratio_chart(
            s,
            &codecs,
            payload,
            &ctx.chart_id("ratio-one"),
            &format!("Ratio to baseline, {payload}, with 95 % CI"),
            520.0,
        );
        b.push_str(&grid(
            "grid2",
            &[
                figure(gm.render(), &format!("Below 1: faster than {}.", esc(&s.baseline))),
                figure(one, "Median ÷ baseline median; whiskers: bootstrap 95 % CI resampling both sample sets."),
            ],
        ));
        if payloads.len() > 1 && payloads.len() <= 12 {
            let _ =
                writeln!(b, "<details><summary>Ratio to {} with 95 % CI for every payload</summary>", esc(&s.baseline));
            let items: Vec<String> = payloads
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    figure(ratio_chart(s, &codecs, p, &ctx.chart_id(&format!("ratio-p{}", i + 1)), p, 420.0), "")
                })
                .collect();
            b.push_str(&grid("multiples", &items));
            b.push_str("</details>\n");
        }
    }
    // Allocations.
    let allocs = |x: &OpSpeed| x.mean_allocs;
    let alloc_bytes = |x: &OpSpeed| x.mean_alloc_bytes;
    let mean_of = per_codec;
    if s.cases.iter().any(|c| c.allocs_per_op.is_some()) {
        b.push_str("<h3>Allocations per operation</h3>\n");
        let a =
            BarChart::new(&ctx.chart_id("allocs"), "Allocations per operation (mean over payloads)", codecs.clone())
                .series(Bars::new("encode", mean_of("encode", &allocs)))
                .series(Bars::new("decode", mean_of("decode", &allocs)))
                .axis_label("allocations per operation")
                .width(520.0)
                .value_format(count_fmt);
        let (enc, dec) = (mean_of("encode", &alloc_bytes), mean_of("decode", &alloc_bytes));
        let log = spans(&[enc.clone(), dec.clone()].concat(), 30.0);
        let ab = BarChart::new(
            &ctx.chart_id("alloc-bytes"),
            "Bytes allocated per operation (mean over payloads)",
            codecs.clone(),
        )
        .series(Bars::new("encode", enc))
        .series(Bars::new("decode", dec))
        .log(log)
        .axis_label("bytes requested per operation")
        .width(520.0)
        .value_format(bytes_fmt);
        b.push_str(&grid(
            "grid2",
            &[
                figure(
                    a.render(),
                    "Counted outside the timed samples. Encode writes into a reused buffer, so 0 is possible.",
                ),
                figure(
                    ab.render(),
                    &format!(
                        "Bytes requested from the allocator; decode includes the decoded value{}.",
                        if log { "; log axis, a 0 is printed without a bar" } else { "" }
                    ),
                ),
            ],
        ));
    }
    if s.instructions {
        let instr = |x: &OpSpeed| x.geomean_instructions;
        let chart = BarChart::new(
            &ctx.chart_id("instr"),
            "Instructions per operation (geometric mean over payloads)",
            codecs.clone(),
        )
        .series(Bars::new("encode", per_codec("encode", &instr)))
        .series(Bars::new("decode", per_codec("decode", &instr)))
        .axis_label("instructions per operation (callgrind)")
        .value_format(bytes_fmt);
        b.push_str("<h3>Instructions per operation</h3>\n");
        b.push_str(&figure(chart.render(), "Independent of machine load: the figure to compare across runs."));
    }
    // Seed 001.
    if s.corpus == "pson-paper" {
        b.push_str(&seed001(s, ctx));
    }
    // Seed 003: Protobuf ÷ JSON on each path beside the seed's.
    if let Some(t) = crate::speed::seed003(s) {
        b.push_str("<h3>Seed 003: Protobuf ÷ JSON time per EV message</h3>\n");
        b.push_str(&table(&t));
        b.push_str(
            "<p class=\"note\">Below 1: Protobuf is faster. The seed timed generated code in Dart, which is our typed \
             path; on the dynamic path every message goes through a value tree, which costs Protobuf's schema-directed \
             writer more than JSON's.</p>\n",
        );
    }
    // Tables.
    b.push_str("<h3>Tables</h3>\n");
    b.push_str(&table(&crate::speed::summary(s)));
    for op in ops {
        for t in crate::speed::matrices(s, op) {
            b.push_str(&table(&t));
        }
    }
    // Per-case warnings.
    let case_warnings: Vec<String> = s
        .cases
        .iter()
        .flat_map(|c| c.warnings.iter().map(move |w| format!("{} / {} / {}: {}", c.payload, c.codec, c.op, w)))
        .collect();
    if !case_warnings.is_empty() {
        let _ = write!(
            b,
            "<details><summary>{}</summary><ul class=\"notes\">",
            plural(case_warnings.len(), "case warning", "case warnings")
        );
        for w in case_warnings.iter().take(1000) {
            let _ = write!(b, "<li>{}</li>", esc(w));
        }
        if case_warnings.len() > 1000 {
            let _ = write!(b, "<li>… and {} more (see the results file)</li>", case_warnings.len() - 1000);
        }
        b.push_str("</ul></details>\n");
    }
    Section {
        title: format!("Speed: {}", s.corpus),
        summary: format!(
            "encode and decode time of {} on {}, {} samples per case",
            plural(codecs.len(), "codec", "codecs"),
            plural(payloads.len(), "payload", "payloads"),
            s.samples
        ),
        body: b,
    }
}

fn ratio_chart(s: &SpeedSection, codecs: &[String], payload: &str, id: &str, title: &str, width: f64) -> String {
    let mut chart = BarChart::new(id, title, codecs.to_vec())
        .base(1.0)
        .reference(1.0, &s.baseline)
        .axis_label(&format!("time ÷ {} time", s.baseline))
        .width(width)
        .value_format(ratio_fmt);
    let mut all = Vec::new();
    for op in ["encode", "decode"] {
        let cases: Vec<Option<&SpeedCase>> =
            codecs.iter().map(|c| crate::speed::find_labelled(s, payload, c, op)).collect();
        let values: Vec<Option<f64>> = cases.iter().map(|c| c.and_then(|c| c.ratio_to_baseline)).collect();
        all.extend(values.iter().copied());
        chart =
            chart.series(Bars::new(op, values).errors(cases.iter().map(|c| c.and_then(|c| c.ratio_ci95)).collect()));
    }
    chart.log(spans(&all, 4.0)).render()
}

/// Our ratio to JSON beside the PSON paper's ESP32 ratio, per codec the paper measured.
fn seed001(s: &SpeedSection, ctx: &Ctx) -> String {
    let p = &PSON_PAPER_ESP32;
    let mut out = String::from("<h3>Seed 001: ours beside the PSON paper (ESP32)</h3>\n");
    let mut paper_codecs: Vec<&str> = Vec::new();
    for series in p.series {
        if series.codec != "json" && !paper_codecs.contains(&series.codec) {
            paper_codecs.push(series.codec);
        }
    }
    let mut items = Vec::new();
    let mut missing: Vec<&str> = Vec::new();
    for op in ["encode", "decode"] {
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        for codec in &paper_codecs {
            let row = s.seed001.iter().find(|r| r.codec == *codec && r.op == op);
            let o = row.and_then(|r| r.ours_geomean);
            if o.is_none() && !missing.contains(codec) {
                missing.push(codec);
            }
            ours.push(o);
            theirs.push(row.and_then(|r| {
                if r.ours_geomean.is_some() {
                    r.published_geomean
                } else {
                    r.published_geomean_all
                }
            }));
        }
        let chart = BarChart::new(
            &ctx.chart_id(&format!("seed001-{op}")),
            &format!("{op}: time relative to JSON"),
            paper_codecs.iter().map(|c| c.to_string()).collect(),
        )
        .series(Bars::new("ours (this host)", ours).color(color(0)))
        .series(Bars::new("published (ESP32)", theirs).color(color(5)).hatched(true))
        .missing_label("not measured")
        .base(1.0)
        .log(true)
        .reference(1.0, "JSON = 1")
        .axis_label("time ÷ JSON time, geometric mean over Test01–Test10")
        .width(520.0)
        .value_format(ratio_fmt);
        items.push(figure(chart.render(), ""));
    }
    out.push_str(&grid("grid2", &items));
    let _ = writeln!(
        out,
        "<p class=\"legend-published\"><span class=\"swatch hatched\"></span><b>published (ESP32)</b>: figures printed in {} \
         (unit: {}), not measured here; <span class=\"swatch ours\"></span><b>ours (this host)</b>: this results file. \
         Ratios compare: absolute times are host-specific, and a microcontroller ranks codecs differently.{}</p>",
        esc(p.source),
        esc(p.unit),
        if missing.is_empty() {
            String::new()
        } else {
            format!(" Not measured in this run: {} (published bar only).", esc(&missing.join(", ")))
        }
    );
    let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(p.note));
    if let Some(t) = crate::speed::seed001(s) {
        out.push_str(&table(&t));
        out.push_str("<p class=\"note\">Each cell: ours / published. Our ns per operation equals µs per 1000 iterations, the paper's unit. Our ratios divide times of one path: the typed path where the codec and JSON both have one, else the dynamic path.</p>\n");
    }
    out
}

const CSS: &str = r#"
:root{--ink:#1a1a1a;--muted:#595959;--line:#d9dde3;--panel:#f5f7fa;--accent:#0072B2;--warn:#D55E00}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#fff;color:var(--ink);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",sans-serif}
.page{max-width:1200px;margin:0 auto;padding:24px 28px 40px}
header.top{border-bottom:3px solid var(--accent);padding-bottom:14px}
h1{font-size:28px;line-height:1.2;margin:0 0 10px}
h2{font-size:22px;line-height:1.25;margin:44px 0 8px;padding-top:10px;border-top:1px solid var(--line)}
h2.prov-h{font-size:17px;margin:18px 0 8px;padding-top:0;border-top:0}
header.top+main>section:first-child>h2{border-top:0}
h3{font-size:17px;margin:28px 0 6px}
.card h3{margin:0 0 6px;font-size:15px}
p{margin:6px 0}
.lede{margin:0;color:var(--muted)}
.muted{color:var(--muted)}
nav ul{margin:4px 0 0;padding-left:20px}
nav li{margin:2px 0}
nav a{color:var(--accent);font-weight:600;text-decoration:none}
nav a:hover{text-decoration:underline}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(340px,1fr));gap:12px}
.card{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:10px 14px}
.card dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 14px;margin:0;font-size:13.5px}
.card dt{color:var(--muted)}
.card dd{margin:0;overflow-wrap:break-word}
.arg{white-space:nowrap}
.card details{font-size:13px;margin:6px 0 0}
.crates{margin:4px 0;overflow-wrap:anywhere}
.tag{display:inline-block;font-size:11.5px;padding:0 6px;border-radius:8px;background:#fff1cc;color:#6b4a00}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:12.5px}
pre{background:var(--panel);border:1px solid var(--line);border-radius:4px;padding:8px 10px;overflow:auto;max-height:440px;margin:6px 0}
.intro{max-width:860px}
.keyline{background:var(--panel);border-left:4px solid var(--accent);padding:6px 12px;margin:10px 0}
figure.chart{margin:12px 0 18px}
figure.chart svg{display:block;max-width:100%;height:auto}
figcaption{color:var(--muted);font-size:13px;margin-top:2px;max-width:760px}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));gap:0 32px;align-items:start}
.multiples{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:0 24px;align-items:start}
.multiples figure.chart{margin:8px 0}
.table-wrap{overflow-x:auto;margin:14px 0 6px}
table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;font-size:14px;padding:0 0 4px}
th,td{padding:3px 6px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
td:not(.num),tbody th{overflow-wrap:anywhere;min-width:3.5em}
table.dense{font-size:12px}
table.dense th,table.dense td{padding:3px 4px}
thead th{background:var(--panel);border-bottom:2px solid #b8bec7}
tbody th{font-weight:600}
.num{text-align:right}
tbody tr:nth-child(even){background:#fafbfc}
td.lossy{background:#fff1cc}
td.bad{background:#fde0dc}
.mark{display:inline-block;min-width:1.4em;text-align:center;border-radius:3px;font-weight:700}
.mark.lossy{background:#fff1cc}
.mark.bad{background:#fde0dc}
.note{font-size:13.5px;color:var(--muted);max-width:860px}
ul.notes{font-size:13.5px;padding-left:20px}
ul.notes li{margin:2px 0}
.warn{background:#fff4e5;border-left:4px solid var(--warn);padding:6px 12px;margin:12px 0;font-size:14px}
.warn ul{margin:4px 0;padding-left:20px}
.legend-published{font-size:13.5px;max-width:860px}
.swatch{display:inline-block;width:14px;height:12px;margin-right:6px;vertical-align:-1px;border:1px solid #D55E00}
.swatch.hatched{background:repeating-linear-gradient(45deg,#D55E00 0 2px,#fff 2px 4px)}
.swatch.ours{background:#0072B2;border-color:#0072B2;margin-left:4px}
details{margin:10px 0}
summary{cursor:pointer;font-weight:600}
footer{margin-top:48px;border-top:1px solid var(--line);padding-top:8px;color:var(--muted);font-size:12.5px}
@media print{.page{max-width:none;padding:0}details{display:block}}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_offer_breaks_after_separators() {
        let mut t = Table::new("", &["protobuf", "app kB/s", "JSON÷CDR"]);
        t.push(vec!["1".into(), "2".into(), "3".into()]);
        let h = table_with(&t, &|_, _, _| None);
        assert!(h.contains(">protobuf</th>"), "{h}");
        assert!(h.contains(">app kB/<wbr>s</th>"), "{h}");
        assert!(h.contains(">JSON÷<wbr>CDR</th>"), "{h}");
        assert!(h.starts_with("<div class=\"table-wrap\"><table>"), "a narrow table keeps the normal type: {h}");
        // A wide table is set denser; no header breaks inside a word.
        let heads: Vec<String> = (0..DENSE_COLUMNS).map(|i| format!("c{i}")).collect();
        let heads: Vec<&str> = heads.iter().map(String::as_str).collect();
        let wide = table_with(&Table::new("", &heads), &|_, _, _| None);
        assert!(wide.starts_with("<div class=\"table-wrap\"><table class=\"dense\">"), "{wide}");
        assert!(!CSS.contains("thead th{overflow-wrap:anywhere}"));
    }
}
