//! Format-neutral report blocks: a section says once what it prints, as a list of [`Block`]s,
//! and one exporter per output kind renders them: [`to_text`] for the terminal, [`to_markdown`]
//! for Markdown ([`render`] picks the one for an [`Output`]).
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
fn join(blocks: &[Block], tight: impl Fn(&Block) -> bool, render: impl Fn(&Block, &mut String)) -> String {
    let mut out = String::new();
    for (i, b) in blocks.iter().enumerate() {
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

/// Terminal text: tables aligned ([`Table::to_text`]), warnings coloured when colour is on.
pub fn to_text(blocks: &[Block]) -> String {
    join(
        blocks,
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
        },
    )
}

/// GitHub-flavoured Markdown: `##` headings, tables ([`Table::to_markdown`]), paragraphs and
/// `- ` lists.
pub fn to_markdown(blocks: &[Block]) -> String {
    join(
        blocks,
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
        },
    )
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
}
