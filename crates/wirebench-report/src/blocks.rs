//! Format-neutral report blocks: a section says once what it prints, as a list of [`Block`]s,
//! and one exporter per output kind renders them: [`to_text`] for the terminal, [`to_markdown`]
//! for Markdown ([`render`] picks the one for an [`Output`]), [`to_html`] for the HTML page
//! ([`crate::html::from_blocks`] makes a page section of them). report.md and report.html are
//! the same blocks: every heading, table, note and list is in both; charts ([`Block::Figure`],
//! [`Block::Figures`]) are drawn on the page only, from figures that a table of the same
//! section also gives; an introduction ([`Block::Intro`]) and collapsed text
//! ([`Block::Details`]) are in Markdown and HTML, not on the terminal.
//!
//! Spacing is the exporters': consecutive blocks are separated by a blank line, except after a
//! [`Block::Heading`] (it ends with its own blank line) and, on the terminal, before a
//! [`Block::Caption`] or [`Block::Legend`] (set right under the block they explain; Markdown
//! makes them paragraphs of their own).

use crate::table::Table;
use crate::Output;

/// One piece of a section's text.
#[derive(Clone, Debug)]
pub enum Block {
    /// The section's heading, then a blank line (`## ` in Markdown).
    Heading(String),
    /// A table (its title a `###` heading in Markdown).
    Table(Table),
    /// A table that opens a section without a heading of its own: the terminal prints `heading`
    /// (if any) right above the table and its title; Markdown makes `heading`, else the table's
    /// title, the section's `##` heading and leaves the table untitled.
    LeadTable { heading: Option<String>, table: Table },
    /// A paragraph (it may span lines), the same in both kinds.
    Note(String),
    /// A paragraph about the block before it: right under it on the terminal, a paragraph of
    /// its own in Markdown.
    Caption(String),
    /// The key to the marks in the table before it, placed like a [`Block::Caption`]: `(mark,
    /// meaning)` pairs joined by `, `, the marks as code in Markdown.
    Legend(Vec<(String, String)>),
    /// Lines under an optional title.
    List(List),
    /// A line in italics in Markdown (the run's own figures), plain on the terminal.
    Emphasis(String),
    /// Nothing, but separated like a block: keeps the blank line a section has always had where
    /// there is nothing to separate (the DDS section's lists without a table before them).
    Blank,
    /// A heading inside a section: `###` in Markdown, `<h3>` in HTML, a line on the terminal.
    Subheading(String),
    /// What the section measured and how, before its figures: a paragraph in Markdown and HTML;
    /// not on the terminal, whose reports stay short.
    Intro(String),
    /// The section's answer in one line: a paragraph set apart (bold in Markdown, a panel in
    /// HTML, a line on the terminal).
    KeyLine(String),
    /// A chart (HTML only: Markdown and the terminal have the figures in a table).
    Figure(Figure),
    /// Charts side by side (small multiples; HTML only), with a note under them.
    Figures { items: Vec<Figure>, note: String },
    /// Long text folded away (a schema, a full list): `<details>` in HTML and Markdown, not on the
    /// terminal.
    Details { summary: String, text: String },
}

/// A chart for the HTML page: an inline SVG (from [`crate::svg`], already escaped) and a plain
/// caption (escaped on output).
#[derive(Clone, Debug)]
pub struct Figure {
    pub svg: String,
    pub caption: String,
}

impl Figure {
    pub fn new(svg: String, caption: impl Into<String>) -> Figure {
        Figure { svg, caption: caption.into() }
    }
}

impl From<Figure> for Block {
    fn from(f: Figure) -> Block {
        Block::Figure(f)
    }
}

/// Lines under an optional title (notes, warnings, failures).
#[derive(Clone, Debug, Default)]
pub struct List {
    /// A line of its own on the terminal; bold in Markdown (a `##` heading with `heading`),
    /// followed by a blank line.
    pub title: Option<String>,
    /// Text right after the title, outside its Markdown emphasis (a source in parentheses).
    pub aside: String,
    /// The Markdown title is a `##` heading, not bold.
    pub heading: bool,
    pub items: Vec<String>,
    /// How an item starts on the terminal (`"  "`, `"  - "`, `" - "`); in Markdown `"- "`.
    pub bullet: &'static str,
    /// Warnings: the terminal colours the title and the items ([`crate::table::warning`]).
    pub warning: bool,
    /// A last line after the items, as it is in both kinds (how many were left out).
    pub more: Option<String>,
}

impl List {
    /// A titled list, items indented two spaces on the terminal.
    pub fn new(title: impl Into<String>, items: Vec<String>) -> List {
        List { title: Some(title.into()), items, bullet: "  ", ..List::default() }
    }

    /// A list without a title.
    pub fn untitled(items: Vec<String>) -> List {
        List { items, ..List::default() }
    }

    /// How an item starts on the terminal.
    pub fn bullet(mut self, bullet: &'static str) -> List {
        self.bullet = bullet;
        self
    }

    /// Whether the list is warnings (coloured on the terminal).
    pub fn warning(mut self, on: bool) -> List {
        self.warning = on;
        self
    }

    /// Text after the title, outside its Markdown emphasis.
    pub fn aside(mut self, aside: impl Into<String>) -> List {
        self.aside = aside.into();
        self
    }

    /// The Markdown title as a `##` heading.
    pub fn heading(mut self) -> List {
        self.heading = true;
        self
    }

    /// A last line after the items.
    pub fn more(mut self, line: Option<String>) -> List {
        self.more = line;
        self
    }
}

impl From<Table> for Block {
    fn from(t: Table) -> Block {
        Block::Table(t)
    }
}

impl From<List> for Block {
    fn from(l: List) -> Block {
        Block::List(l)
    }
}

/// The blocks in the text kind `output` (terminal text for every kind but Markdown).
pub fn render(blocks: &[Block], output: Output) -> String {
    match output {
        Output::Markdown => to_markdown(blocks),
        _ => to_text(blocks),
    }
}

/// The output kind of an API that takes "Markdown or not".
pub fn text_kind(markdown: bool) -> Output {
    if markdown {
        Output::Markdown
    } else {
        Output::Table
    }
}

/// The blocks rendered one after another, a blank line between two unless the first is a
/// heading or the second is `tight`.
/// Blocks `skip` says the kind does not show are left out (and not separated).
fn join(
    blocks: &[Block],
    skip: impl Fn(&Block) -> bool,
    tight: impl Fn(&Block) -> bool,
    render: impl Fn(&Block, &mut String),
) -> String {
    let blocks: Vec<&Block> = blocks.iter().filter(|b| !skip(b)).collect();
    let mut out = String::new();
    for (i, b) in blocks.iter().copied().enumerate() {
        if i > 0 && !matches!(blocks[i - 1], Block::Heading(_)) && !tight(b) {
            out.push('\n');
        }
        render(b, &mut out);
    }
    out
}

fn line(out: &mut String, text: &str) {
    out.push_str(text);
    out.push('\n');
}

fn legend(marks: &[(String, String)], code: bool) -> String {
    let tick = if code { "`" } else { "" };
    marks.iter().map(|(m, what)| format!("{tick}{m}{tick} {what}")).collect::<Vec<_>>().join(", ")
}

/// Terminal text: tables aligned ([`Table::to_text`]), warnings coloured when colour is on,
/// paragraphs and list items wrapped to the terminal's width ([`crate::table::fit_lines`]; tables
/// already fit it).
pub fn to_text(blocks: &[Block]) -> String {
    crate::table::fit_lines(&join_text(blocks))
}

fn join_text(blocks: &[Block]) -> String {
    join(
        blocks,
        text_skips,
        |b| matches!(b, Block::Caption(_) | Block::Legend(_)),
        |b, out| match b {
            Block::Heading(h) => {
                out.push_str(h);
                out.push_str("\n\n");
            }
            Block::Table(t) => out.push_str(&t.to_text()),
            Block::LeadTable { heading, table } => {
                if let Some(h) = heading {
                    line(out, h);
                }
                out.push_str(&table.to_text());
            }
            Block::Note(s) | Block::Caption(s) | Block::Emphasis(s) => line(out, s),
            Block::Legend(marks) => line(out, &legend(marks, false)),
            Block::List(l) => {
                let paint = |s: &str| if l.warning { crate::table::warning(s) } else { s.to_string() };
                if let Some(t) = &l.title {
                    line(out, &paint(&format!("{t}{}", l.aside)));
                }
                for item in &l.items {
                    out.push_str(l.bullet);
                    line(out, &paint(item));
                }
                if let Some(m) = &l.more {
                    line(out, m);
                }
            }
            Block::Blank => {}
            Block::Subheading(h) | Block::KeyLine(h) => line(out, h),
            Block::Intro(_) | Block::Figure(_) | Block::Figures { .. } | Block::Details { .. } => {}
        },
    )
}

/// Blocks the terminal does not show (and so does not separate).
fn text_skips(b: &Block) -> bool {
    matches!(b, Block::Intro(_) | Block::Figure(_) | Block::Figures { .. } | Block::Details { .. })
}

/// Blocks Markdown does not show (charts).
fn markdown_skips(b: &Block) -> bool {
    matches!(b, Block::Figure(_) | Block::Figures { .. })
}

/// GitHub-flavoured Markdown: `##` headings, tables ([`Table::to_markdown`]), paragraphs and
/// `- ` lists.
pub fn to_markdown(blocks: &[Block]) -> String {
    join(
        blocks,
        markdown_skips,
        |_| false,
        |b, out| match b {
            Block::Heading(h) => out.push_str(&format!("## {h}\n\n")),
            Block::Table(t) => out.push_str(&t.to_markdown()),
            Block::LeadTable { heading, table } => {
                out.push_str(&format!("## {}\n\n", heading.as_deref().unwrap_or(&table.title)));
                out.push_str(&Table { title: String::new(), ..table.clone() }.to_markdown());
            }
            Block::Note(s) | Block::Caption(s) => line(out, s),
            Block::Emphasis(s) => line(out, &format!("_{s}_")),
            Block::Legend(marks) => line(out, &legend(marks, true)),
            Block::List(l) => {
                if let Some(t) = &l.title {
                    let mark = if l.heading { "## " } else { "**" };
                    let close = if l.heading { "" } else { "**" };
                    out.push_str(&format!("{mark}{t}{close}{}\n\n", l.aside));
                }
                for item in &l.items {
                    line(out, &format!("- {item}"));
                }
                if let Some(m) = &l.more {
                    line(out, m);
                }
            }
            Block::Blank => {}
            Block::Subheading(h) => out.push_str(&format!("### {h}\n")),
            Block::Intro(s) => line(out, s),
            Block::KeyLine(s) => line(out, &format!("**{s}**")),
            Block::Details { summary, text } => {
                let fence = if text.contains("```") { "~~~~" } else { "```" };
                out.push_str(&format!("<details><summary>{}</summary>\n\n{fence}\n{text}", crate::svg::esc(summary)));
                if !text.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(&format!("{fence}\n\n</details>\n"));
            }
            Block::Figure(_) | Block::Figures { .. } => {}
        },
    )
}

/// HTML for a page section's body: tables ([`crate::html::table`], cells with a mark get its
/// class and tooltip from [`Table::marks`]), paragraphs, lists (warnings in a panel), charts in
/// `<figure>`s. Every text is escaped. A [`Block::Heading`] is the section's title
/// ([`crate::html::from_blocks`] takes it), not part of the body.
pub fn to_html(blocks: &[Block]) -> String {
    use crate::svg::esc;
    let mut out = String::new();
    let para = |out: &mut String, class: &str, text: &str| {
        out.push_str(&format!("<p class=\"{class}\">{}</p>\n", esc(text).replace('\n', "<br>")));
    };
    for b in blocks {
        match b {
            Block::Heading(_) | Block::Blank => {}
            Block::Table(t) => out.push_str(&crate::html::table(t)),
            Block::LeadTable { heading: _, table } => out.push_str(&crate::html::table(table)),
            Block::Subheading(h) => out.push_str(&format!("<h3>{}</h3>\n", esc(h))),
            Block::Intro(s) => para(&mut out, "intro", s),
            Block::KeyLine(s) => para(&mut out, "keyline", s),
            Block::Note(s) | Block::Caption(s) => para(&mut out, "note", s),
            Block::Emphasis(s) => {
                out.push_str(&format!("<p class=\"note\"><i>{}</i></p>\n", esc(s).replace('\n', "<br>")))
            }
            Block::Legend(marks) => {
                let items: Vec<String> = marks
                    .iter()
                    .map(|(m, what)| format!("<span class=\"mark\">{}</span> {}", esc(m), esc(what)))
                    .collect();
                out.push_str(&format!("<p class=\"note\">{}</p>\n", items.join(" · ")));
            }
            Block::List(l) => {
                if l.warning {
                    out.push_str("<div class=\"warn\">");
                }
                if let Some(t) = &l.title {
                    if l.heading {
                        out.push_str(&format!("<h3>{}</h3>", esc(t)));
                        if !l.aside.is_empty() {
                            para(&mut out, "note", l.aside.trim());
                        }
                    } else {
                        out.push_str(&format!("<p><b>{}</b>{}</p>", esc(t), esc(&l.aside)));
                    }
                    out.push('\n');
                }
                if !l.items.is_empty() {
                    out.push_str("<ul class=\"notes\">\n");
                    for item in &l.items {
                        out.push_str(&format!("<li>{}</li>\n", esc(item.trim()).replace('\n', "<br>")));
                    }
                    out.push_str("</ul>\n");
                }
                if let Some(m) = &l.more {
                    para(&mut out, "note", m.trim());
                }
                if l.warning {
                    out.push_str("</div>\n");
                }
            }
            Block::Figure(f) => out.push_str(&crate::html::figure(&f.svg, &esc(&f.caption))),
            Block::Figures { items, note } => {
                let figs: Vec<String> = items.iter().map(|f| crate::html::figure(&f.svg, &esc(&f.caption))).collect();
                out.push_str(&crate::html::grid("multiples", &figs));
                if !note.is_empty() {
                    para(&mut out, "note", note);
                }
            }
            Block::Details { summary, text } => out.push_str(&format!(
                "<details><summary>{}</summary><pre>{}</pre></details>\n",
                esc(summary),
                esc(text)
            )),
        }
    }
    out
}

/// Test support: the text of every element that `open` starts in a page (`"<h3>"`, `"<li>"`, or
/// an opening tag without its end such as `"<p class="`): its own tags dropped, entities decoded.
#[cfg(test)]
pub(crate) fn page_texts(html: &str, open: &str) -> Vec<String> {
    let close = format!("</{}>", open.trim_start_matches('<').split([' ', '>']).next().unwrap_or(""));
    html.split(open)
        .skip(1)
        .map(|s| {
            let s = if open.ends_with('>') { s } else { s.split_once('>').map_or(s, |(_, rest)| rest) };
            let inner = s.split(close.as_str()).next().unwrap_or("");
            let mut plain = String::new();
            let mut in_tag = false;
            for c in inner.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    _ if !in_tag => plain.push(c),
                    _ => {}
                }
            }
            plain
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&amp;", "&")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Vec<Block> {
        let mut t = Table::new("T", &["name", "bytes"]).numeric_from(1);
        t.push(vec!["a".into(), "5!".into()]);
        vec![
            Block::Heading("Section".into()),
            Block::Table(t.clone()),
            Block::Legend(vec![("!".into(), "not encoded".into()), ("~".into(), "lossy".into())]),
            Block::Caption("About the table.".into()),
            Block::Note("A paragraph\nof two lines.".into()),
            List::new("Warnings", vec!["w1".into(), "w2".into()])
                .warning(true)
                .more(Some("  ... 1 more".into()))
                .into(),
            List::new("Sources", vec!["s".into()]).aside(" (seed)").bullet("  - ").into(),
            List::new("Notes", vec![]).heading().bullet(" - ").into(),
            Block::Blank,
            Block::Emphasis("3 payloads in 0.5 s".into()),
        ]
    }

    #[test]
    fn text_sets_captions_under_their_block_and_separates_the_rest() {
        assert_eq!(
            to_text(&doc()),
            "Section\n\nT\nname  bytes\n----  -----\na        5!\n! not encoded, ~ lossy\nAbout the table.\n\n\
             A paragraph\nof two lines.\n\nWarnings\n  w1\n  w2\n  ... 1 more\n\nSources (seed)\n  - s\n\nNotes\n\n\n\
             3 payloads in 0.5 s\n"
        );
    }

    #[test]
    fn markdown_makes_every_block_a_paragraph() {
        assert_eq!(
            to_markdown(&doc()),
            "## Section\n\n### T\n\n| name | bytes |\n| --- | ---: |\n| a | 5! |\n\n`!` not encoded, `~` lossy\n\n\
             About the table.\n\nA paragraph\nof two lines.\n\n**Warnings**\n\n- w1\n- w2\n  ... 1 more\n\n\
             **Sources** (seed)\n\n- s\n\n## Notes\n\n\n\n_3 payloads in 0.5 s_\n"
        );
        assert_eq!(render(&doc(), Output::Markdown), to_markdown(&doc()));
        assert_eq!(render(&doc(), Output::Table), to_text(&doc()));
    }

    #[test]
    fn a_lead_table_names_the_section_in_markdown() {
        let mut t = Table::new("Ranked", &["rank"]);
        t.push(vec!["1".into()]);
        let titled = [Block::LeadTable { heading: None, table: t.clone() }, Block::Note("Best.".into())];
        assert_eq!(to_text(&titled), "Ranked\nrank\n----\n1\n\nBest.\n");
        assert_eq!(to_markdown(&titled), "## Ranked\n\n| rank |\n| --- |\n| 1 |\n\nBest.\n");
        let headed = [Block::LeadTable { heading: Some("The answer".into()), table: t }];
        assert_eq!(to_text(&headed), "The answer\nRanked\nrank\n----\n1\n");
        assert_eq!(to_markdown(&headed), "## The answer\n\n| rank |\n| --- |\n| 1 |\n");
    }

    #[test]
    fn html_shows_every_block_markdown_does_and_the_charts() {
        let mut t = Table::new("T <1>", &["name", "bytes"]).numeric_from(1);
        t.push(vec!["a".into(), "5~".into()]);
        t.marks.push(crate::table::CellMark { row: 0, col: 1, class: "lossy", tip: "1.1 became 1".into() });
        let doc = vec![
            Block::Heading("Section".into()),
            Block::Intro("What & how.".into()),
            Block::KeyLine("Smallest: a".into()),
            Block::Figure(Figure::new("<svg></svg>".into(), "A chart")),
            Block::Subheading("Tables".into()),
            Block::Table(t),
            Block::Legend(vec![("~".into(), "lossy".into())]),
            List::new("Warnings", vec!["w1".into()]).warning(true).into(),
            Block::Details { summary: "Schema".into(), text: "{\"a\": 1}".into() },
        ];
        let html = to_html(&doc);
        for needle in [
            "<p class=\"intro\">What &amp; how.</p>",
            "<p class=\"keyline\">Smallest: a</p>",
            "<figure class=\"chart\"><svg></svg><figcaption>A chart</figcaption></figure>",
            "<h3>Tables</h3>",
            "<caption>T &lt;1&gt;</caption>",
            "class=\"num lossy\" title=\"1.1 became 1\">5~</td>",
            "<div class=\"warn\"><p><b>Warnings</b></p>",
            "<details><summary>Schema</summary><pre>{&quot;a&quot;: 1}</pre></details>",
        ] {
            assert!(html.contains(needle), "{needle}\n{html}");
        }
        assert!(!html.contains("Section"), "the heading is the page section's title: {html}");
        let s = crate::html::from_blocks(&doc, "one line".into());
        assert_eq!(s.title, "Section");
        // Markdown: everything but the chart; the terminal: no intro, chart or details.
        let md = to_markdown(&doc);
        assert!(md.starts_with("## Section\n\nWhat & how.\n\n**Smallest: a**\n\n### Tables\n\n### T <1>\n"), "{md}");
        assert!(md.contains("<details><summary>Schema</summary>\n\n```\n{\"a\": 1}\n```\n\n</details>"), "{md}");
        assert!(!md.contains("svg") && !md.contains("A chart"), "{md}");
        let text = to_text(&doc);
        assert!(text.starts_with("Section\n\nSmallest: a\n\nTables\n\nT <1>\n"), "{text}");
        assert!(!text.contains("What & how") && !text.contains("Schema") && !text.contains("A chart"), "{text}");
    }
}
