//! A table model: a title, headers, rows of cells, and which columns are numeric (right-aligned).
//!
//! Terminal text fits a width when one is set ([`set_text_width`]: the CLI sets the terminal's
//! unless `--wide`): a table wider than that is printed in parts, each with the first column
//! (the row's name) and as many further columns as fit, so no cell is cut or wrapped.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The width terminal text fits (0: any width).
static TEXT_WIDTH: AtomicUsize = AtomicUsize::new(0);

/// Whether terminal text may use ANSI colour and bold (table titles in bold).
static COLOR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Let terminal text use ANSI bold/colour (the CLI: `--color`, NO_COLOR, a terminal).
pub fn set_color(on: bool) {
    COLOR.store(on, Ordering::Relaxed);
}

/// A warning heading or line for the terminal: yellow when colour is on, else as it is.
pub fn warning(text: &str) -> String {
    if COLOR.load(Ordering::Relaxed) {
        format!("\x1b[33m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

pub use wirebench_core::names::escape_controls;

/// A cell as a terminal shows it: every control character escaped.
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(char::is_control) {
        std::borrow::Cow::Owned(escape_controls(text, &[]))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Whether a block title names warnings or errors (its text output is then coloured).
pub fn is_warning_title(title: &str) -> bool {
    let t = title.to_ascii_lowercase();
    t.starts_with("warning") || t.starts_with("errors and warnings")
}

/// Fit terminal tables to this many columns (`None`: never split them).
pub fn set_text_width(width: Option<usize>) {
    TEXT_WIDTH.store(width.unwrap_or(0), Ordering::Relaxed);
}

/// A rectangular table of text cells.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub title: String,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Columns aligned right (numbers).
    pub numeric: Vec<bool>,
    /// Shown in a summary even when it is not the first table of its section.
    pub headline: bool,
    /// Cells the HTML page sets apart (a class and a tooltip with the reason); text and Markdown
    /// show the cell's own mark (`~`, `!`) and the legend under the table.
    pub marks: Vec<CellMark>,
}

/// A cell of a [`Table`] set apart on the HTML page: row and column (0-based, of `rows`), a CSS
/// class (`lossy`, `bad`, `short`, …) and a tooltip.
#[derive(Clone, Debug)]
pub struct CellMark {
    pub row: usize,
    pub col: usize,
    pub class: &'static str,
    pub tip: String,
}

impl Table {
    pub fn new(title: &str, headers: &[&str]) -> Table {
        Table {
            title: title.to_string(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            numeric: vec![false; headers.len()],
            headline: false,
            marks: Vec::new(),
        }
    }

    /// Mark columns `from..` as numeric.
    pub fn numeric_from(mut self, from: usize) -> Table {
        for (i, n) in self.numeric.iter_mut().enumerate() {
            *n = i >= from;
        }
        self
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self.headers.iter().map(|h| shown(h).chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                if i < w.len() {
                    w[i] = w[i].max(shown(c).chars().count());
                }
            }
        }
        w
    }

    fn cell(&self, i: usize, text: &str, width: usize) -> String {
        let text = shown(text);
        let text = text.as_ref();
        let pad = width.saturating_sub(text.chars().count());
        if self.numeric.get(i).copied().unwrap_or(false) {
            format!("{}{}", " ".repeat(pad), text)
        } else {
            format!("{}{}", text, " ".repeat(pad))
        }
    }

    /// Aligned plain text for a terminal, split into parts that fit the width set by
    /// [`set_text_width`] (if any).
    pub fn to_text(&self) -> String {
        self.to_text_width(TEXT_WIDTH.load(Ordering::Relaxed))
    }

    /// Aligned plain text at most `width` columns wide where the columns allow (0: any width).
    /// Long text cells wrap at word boundaries first (a column keeps at least
    /// [`MIN_WRAP_WIDTH`] characters); a table still too wide is printed in parts.
    pub fn to_text_width(&self, width: usize) -> String {
        let w = wrapped_widths(&self.widths(), &self.numeric, width);
        let brief = brief_rows();
        let mut out = String::new();
        // A summary (`run` without -v): a section's first table and its headline tables are
        // shown, in their first columns and rows; every other table is one line naming it.
        let nth = SECTION_TABLES.with(|c| c.replace(c.get() + 1));
        if brief.is_some() && nth > 0 && !self.headline {
            return format!("{MENTION}{}, {} rows)\n", self.title.trim_end_matches(':'), self.rows.len());
        }
        if !self.title.is_empty() {
            if COLOR.load(Ordering::Relaxed) {
                out.push_str(&format!("\x1b[1m{}\x1b[0m", shown(&self.title)));
            } else {
                out.push_str(&shown(&self.title));
            }
            out.push('\n');
        }
        let mut groups = column_groups(&w, width);
        let hidden_columns = if brief.is_some() && groups.len() > 1 {
            let rest = groups[1..].iter().map(|g| g.len() - 1).sum::<usize>();
            groups.truncate(1);
            rest
        } else {
            0
        };
        for (gi, cols) in groups.iter().enumerate() {
            if groups.len() > 1 {
                if gi > 0 {
                    out.push('\n');
                }
                let last = cols[cols.len() - 1] + 1;
                let span = match (gi, cols.get(1).map(|c| c + 1)) {
                    (0, _) => format!("1–{last}"),
                    (_, Some(f)) if f == last => format!("1, {last}"),
                    (_, Some(f)) => format!("1, {f}–{last}"),
                    (_, None) => "1".into(),
                };
                out.push_str(&format!("(columns {span} of {}; --wide: all in one)\n", w.len()));
            }
            let line = |cells: &[String]| -> String {
                // Each cell as the lines it wraps to; the row is as tall as its tallest cell.
                let wrapped: Vec<Vec<String>> =
                    cols.iter().map(|&i| wrap(cells.get(i).map(String::as_str).unwrap_or(""), w[i])).collect();
                let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
                let mut text = String::new();
                for k in 0..height {
                    let parts: Vec<String> = cols
                        .iter()
                        .zip(&wrapped)
                        .map(|(&i, lines)| self.cell(i, lines.get(k).map(String::as_str).unwrap_or(""), w[i]))
                        .collect();
                    text.push_str(parts.join("  ").trim_end());
                    text.push('\n');
                }
                text
            };
            out.push_str(&line(&self.headers));
            let rule: Vec<String> = cols.iter().map(|&i| "-".repeat(w[i])).collect();
            out.push_str(&format!("{}\n", rule.join("  ")));
            let limit = brief.unwrap_or(usize::MAX);
            for r in self.rows.iter().take(limit) {
                out.push_str(&line(r));
            }
            if self.rows.len() > limit || hidden_columns > 0 {
                let mut more = Vec::new();
                if self.rows.len() > limit {
                    more.push(format!("{} more rows", self.rows.len() - limit));
                }
                if hidden_columns > 0 {
                    more.push(format!("{hidden_columns} more columns"));
                }
                out.push_str(&format!("… {} (the reports have them all; -v prints them here)\n", more.join(" and ")));
            }
        }
        out
    }

    /// Show this table in a summary too (see [`set_brief_rows`]), not only the first of its section.
    pub fn headline(mut self) -> Table {
        self.headline = true;
        self
    }

    /// A GitHub-flavoured Markdown table (pipes in cells escaped).
    pub fn to_markdown(&self) -> String {
        let esc = |s: &str| shown(s).replace('|', "\\|");
        let mut out = String::new();
        if !self.title.is_empty() {
            out.push_str(&format!("### {}\n\n", self.title));
        }
        out.push_str(&format!("| {} |\n", self.headers.iter().map(|h| esc(h)).collect::<Vec<_>>().join(" | ")));
        let align: Vec<&str> = self.numeric.iter().map(|n| if *n { "---:" } else { "---" }).collect();
        out.push_str(&format!("| {} |\n", align.join(" | ")));
        for r in &self.rows {
            out.push_str(&format!("| {} |\n", r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | ")));
        }
        out
    }
}

/// The narrowest a wrapped text column becomes.
pub const MIN_WRAP_WIDTH: usize = 24;

/// Column widths with the widest text columns narrowed (their cells then wrap) until the table
/// fits `width` or every text column is down to [`MIN_WRAP_WIDTH`]. Numeric columns and the
/// first column (the row's name) keep their width.
fn wrapped_widths(w: &[usize], numeric: &[bool], width: usize) -> Vec<usize> {
    let mut w = w.to_vec();
    if width == 0 {
        return w;
    }
    let total = |w: &[usize]| w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
    while total(&w) > width {
        let widest = (1..w.len())
            .filter(|&i| !numeric.get(i).copied().unwrap_or(false) && w[i] > MIN_WRAP_WIDTH)
            .max_by_key(|&i| w[i]);
        let Some(i) = widest else { break };
        let over = total(&w) - width;
        w[i] = w[i].saturating_sub(over).max(MIN_WRAP_WIDTH);
    }
    w
}

/// `text` in lines of at most `width` characters, broken at spaces (a word longer than the
/// width is cut); one line when it fits.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    if width == 0 || text.chars().count() <= width {
        return vec![text.to_string()];
    }
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        let mut word = word.to_string();
        loop {
            let have = cur.chars().count();
            let need = word.chars().count() + usize::from(have > 0);
            if have + need <= width {
                if have > 0 {
                    cur.push(' ');
                }
                cur.push_str(&word);
                break;
            }
            if have > 0 {
                lines.push(std::mem::take(&mut cur));
                continue;
            }
            // A word longer than a whole line: cut it.
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Whether terminal tables on this thread are a summary ([`set_brief_rows`]).
pub fn is_brief() -> bool {
    brief_rows().is_some()
}

/// At most `max_lines` lines of a part's terminal text, cut at a blank line between blocks
/// where one falls within the bound (else at the bound), with a last line saying how much is
/// left out; text within the bound is returned as it is.
pub fn cap_lines(text: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= max_lines {
        return text.to_string();
    }
    let keep = (1..max_lines)
        .rev()
        .find(|&i| lines[i].trim().is_empty())
        .filter(|&i| i >= max_lines / 2)
        .unwrap_or(max_lines - 1);
    let mut out = lines[..keep].join("\n");
    out.push_str(&format!(
        "\n… {} more lines of this part (in report.md and report.html; -v prints them here)\n",
        lines.len() - keep
    ));
    out
}

/// The line a summary prints for a table it leaves out.
const MENTION: &str = "(also in the reports: ";

/// Terminal text with runs of consecutive left-out tables (blank lines between them) said in
/// one line: `(also in the reports, or with -v: 4 more tables)`.
pub fn collapse_mentions(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].starts_with(MENTION) {
            out.push(lines[i].to_string());
            i += 1;
            continue;
        }
        let (mut n, mut j, mut last) = (0, i, i);
        while j < lines.len() && (lines[j].starts_with(MENTION) || lines[j].trim().is_empty()) {
            if lines[j].starts_with(MENTION) {
                n += 1;
                last = j;
            }
            j += 1;
        }
        if n == 1 {
            out.push(lines[i].to_string());
        } else {
            out.push(format!("(also in the reports, or with -v: {n} more tables)"));
        }
        i = last + 1;
    }
    let mut s = out.join("\n");
    if text.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// Terminal text with every line longer than the width set by [`set_text_width`] wrapped at
/// word boundaries, continuation lines indented like the line they continue (plus two spaces).
/// Tables already fit (their cells wrap); this is for notes and paragraphs.
pub fn fit_lines(text: &str) -> String {
    let width = TEXT_WIDTH.load(Ordering::Relaxed);
    if width == 0 {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if body.chars().count() <= width {
            out.push_str(line);
            continue;
        }
        let indent = body.chars().take_while(|c| *c == ' ').count();
        let first = " ".repeat(indent);
        let rest = " ".repeat((indent + 2).min(width / 2));
        let lines = wrap(body.trim_start(), width.saturating_sub(rest.len()).max(MIN_WRAP_WIDTH));
        for (i, l) in lines.iter().enumerate() {
            out.push_str(if i == 0 { &first } else { &rest });
            out.push_str(l);
            if i + 1 < lines.len() {
                out.push('\n');
            }
        }
        out.push_str(nl);
    }
    out
}

thread_local! {
    /// Terminal tables show at most this many rows (0: all), for a summary; the CLI sets it
    /// on the thread that prints.
    static BRIEF_ROWS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Tables rendered since the section began ([`begin_section`]).
    static SECTION_TABLES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Show at most `rows` rows of each terminal table rendered on this thread (`None`: every row).
pub fn set_brief_rows(rows: Option<usize>) {
    BRIEF_ROWS.with(|b| b.set(rows.unwrap_or(0)));
}

/// A new section of terminal output begins: in a summary its first table is shown.
pub fn begin_section() {
    SECTION_TABLES.with(|c| c.set(0));
}

fn brief_rows() -> Option<usize> {
    match BRIEF_ROWS.with(|b| b.get()) {
        0 => None,
        n => Some(n),
    }
}

/// The columns of each part of a table that must fit `width` (0: one part with every column).
/// Every part after the first repeats column 0; a column wider than the rest of the width gets a
/// part of its own.
fn column_groups(w: &[usize], width: usize) -> Vec<Vec<usize>> {
    let all: Vec<usize> = (0..w.len()).collect();
    let total: usize = w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
    if width == 0 || total <= width || w.len() < 3 {
        return vec![all];
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut cur = vec![0];
    let mut used = w[0];
    for i in 1..w.len() {
        if cur.len() > 1 && used + 2 + w[i] > width {
            groups.push(std::mem::replace(&mut cur, vec![0]));
            used = w[0];
        }
        cur.push(i);
        used += 2 + w[i];
    }
    groups.push(cur);
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_tables_split_into_parts_that_fit() {
        let mut t = Table::new("T", &["name", "aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc", "dddddddddd"]).numeric_from(1);
        t.push(vec!["row".into(), "1".into(), "2".into(), "3".into(), "4".into()]);
        let one = t.to_text_width(0);
        assert_eq!(one.lines().count(), 4);
        let split = t.to_text_width(40);
        assert!(split.lines().all(|l| l.chars().count() <= 40), "{split}");
        assert!(split.contains("(columns 1–4 of 5;") && split.contains("(columns 1, 5 of 5;"), "{split}");
        let three = t.to_text_width(28);
        assert!(three.contains("(columns 1–3 of 5;") && three.contains("(columns 1, 4–5 of 5;"), "{three}");
        // Every cell is still there, and each part names its rows.
        for c in ["row", "1", "2", "3", "4", "dddddddddd"] {
            assert!(split.contains(c), "{c}");
        }
        assert_eq!(split.matches("row").count(), 2);
        // Wide enough: one table.
        assert_eq!(t.to_text_width(200), one);
    }

    #[test]
    fn long_text_cells_wrap_at_words_instead_of_splitting_the_table() {
        let mut t = Table::new("T", &["lib", "bytes", "note"]).numeric_from(1);
        t.numeric[2] = false;
        let note = "the library needs a heap and its schema at run time, so it is left out on this class of device";
        t.push(vec!["avro-c".into(), "120".into(), note.into()]);
        t.push(vec!["pson".into(), "7".into(), "fits".into()]);
        let text = t.to_text_width(60);
        assert!(text.lines().all(|l| l.chars().count() <= 60), "{text}");
        assert!(!text.contains("(columns"), "wrapped, not split: {text}");
        // Every word is there, in order, and no word is cut.
        let words: Vec<&str> = text.split_whitespace().filter(|w| note.split(' ').any(|n| n == *w)).collect();
        assert_eq!(words.join(" "), note);
        assert_eq!(wrap("a bb ccc", 4), vec!["a bb", "ccc"]);
        assert_eq!(wrap("abcdefgh", 3), vec!["abc", "def", "gh"]);
        assert_eq!(wrap("", 3), vec![""]);
    }

    #[test]
    fn brief_tables_show_their_first_rows_and_say_how_many_more() {
        let mut t = Table::new("T", &["n"]);
        for i in 0..30 {
            t.push(vec![i.to_string()]);
        }
        set_brief_rows(Some(5));
        begin_section();
        let text = t.to_text_width(0);
        let second = t.to_text_width(0);
        let headline = t.clone().headline().to_text_width(0);
        set_brief_rows(None);
        assert_eq!(text.lines().count(), 3 + 5 + 1, "{text}");
        assert!(text.contains("… 25 more rows"), "{text}");
        assert_eq!(second, "(also in the reports: T, 30 rows)\n");
        assert_eq!(headline, text);
        let long: String =
            (0..50).map(|i| if i % 10 == 9 { "\n".to_string() } else { format!("line {i}\n") }).collect();
        let capped = cap_lines(&long, 26);
        assert_eq!(capped.lines().count(), 20, "cut at the blank line before line 20: {capped}");
        assert!(
            capped.ends_with("… 31 more lines of this part (in report.md and report.html; -v prints them here)\n"),
            "{capped}"
        );
        assert_eq!(cap_lines("a\nb\n", 26), "a\nb\n");
        let three = format!("A\n{second}\n{second}\n{second}B\n");
        assert_eq!(collapse_mentions(&three), "A\n(also in the reports, or with -v: 3 more tables)\nB\n");
        assert_eq!(collapse_mentions(&format!("A\n{second}B\n")), format!("A\n{second}B\n"));
        assert_eq!(t.to_text_width(0).lines().count(), 3 + 30);
    }

    #[test]
    fn control_bytes_in_cells_are_escaped_and_aligned() {
        let mut t = Table::new("t\x07", &["lib", "reason"]);
        t.push(vec!["a\0b".into(), "\x1b[2Jx".into()]);
        t.push(vec!["plain".into(), "y".into()]);
        let text = t.to_text_width(0);
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
        assert!(text.contains("a\\x00b  \\x1b[2Jx") && text.starts_with("t\\x07\n"), "{text}");
        assert!(!t.to_markdown().contains('\0'));
    }

    #[test]
    fn text_and_markdown() {
        let mut t = Table::new("T", &["name", "bytes"]).numeric_from(1);
        t.push(vec!["a|b".into(), "5".into()]);
        t.push(vec!["long name".into(), "123".into()]);
        assert_eq!(t.to_text(), "T\nname       bytes\n---------  -----\na|b            5\nlong name    123\n");
        assert_eq!(t.to_markdown(), "### T\n\n| name | bytes |\n| --- | ---: |\n| a\\|b | 5 |\n| long name | 123 |\n");
    }
}
