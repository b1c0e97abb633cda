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
use wirebench_core::results::Results;

use crate::svg::{esc, fixed};
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

/// The parts of a study that did not finish, first on the page.
pub fn failed_section(r: &Results, _ctx: &Ctx) -> Option<Section> {
    if r.failed_parts.is_empty() {
        return None;
    }
    let mut body = String::from("<p class=\"note\">These parts of the study have no results; the sections below are those of the parts that finished.</p>\n<ul>\n");
    for f in &r.failed_parts {
        let _ = writeln!(body, "<li><b>{}</b>: {}</li>", esc(&f.part), esc(&f.error));
    }
    body.push_str("</ul>\n");
    Some(Section {
        title: "Parts that did not finish".into(),
        summary: format!("{} of the study's parts did not finish", r.failed_parts.len()),
        body,
    })
}

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

pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub(crate) fn bytes_fmt(v: f64) -> String {
    crate::svg::compact(v, 0)
}

pub(crate) fn ratio_fmt(v: f64) -> String {
    format!("{}×", fixed(v, 2))
}

pub(crate) fn ns_fmt(v: f64) -> String {
    crate::speed::ns(v)
}

pub(crate) fn count_fmt(v: f64) -> String {
    if v.abs() >= 100.0 {
        crate::svg::compact(v, 0)
    } else {
        fixed(v, 1)
    }
}

/// A log axis when values span more than `span`×.
pub(crate) fn spans(values: &[Option<f64>], span: f64) -> bool {
    let v: Vec<f64> = values.iter().flatten().copied().filter(|x| *x > 0.0 && x.is_finite()).collect();
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(0.0, f64::max);
    lo.is_finite() && hi / lo > span
}

// ---------------------------------------------------------------------------------------------
// Size and speed: their sections are built from blocks (crate::size, crate::speed).

pub use crate::size::html_section as size_section;
pub use crate::speed::html_section as speed_section;

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
