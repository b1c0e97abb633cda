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

/// `text` with control characters other than `keep` written as `\x1b`-style escapes (cells of
/// terminal tables and CSV fields may quote input: a reason, a payload's name).
pub fn escape_controls(text: &str, keep: &[char]) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && !keep.contains(&c) {
            let n = c as u32;
            if n < 0x100 {
                out.push_str(&format!("\\x{n:02x}"));
            } else {
                out.push_str(&format!("\\u{{{n:x}}}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

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
}

impl Table {
    pub fn new(title: &str, headers: &[&str]) -> Table {
        Table {
            title: title.to_string(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            numeric: vec![false; headers.len()],
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
    pub fn to_text_width(&self, width: usize) -> String {
        let w = self.widths();
        let mut out = String::new();
        if !self.title.is_empty() {
            if COLOR.load(Ordering::Relaxed) {
                out.push_str(&format!("\x1b[1m{}\x1b[0m", shown(&self.title)));
            } else {
                out.push_str(&shown(&self.title));
            }
            out.push('\n');
        }
        let groups = column_groups(&w, width);
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
                let parts: Vec<String> = cols
                    .iter()
                    .map(|&i| self.cell(i, cells.get(i).map(String::as_str).unwrap_or(""), w[i]))
                    .collect();
                format!("{}\n", parts.join("  ").trim_end())
            };
            out.push_str(&line(&self.headers));
            let rule: Vec<String> = cols.iter().map(|&i| "-".repeat(w[i])).collect();
            out.push_str(&format!("{}\n", rule.join("  ")));
            for r in &self.rows {
                out.push_str(&line(r));
            }
        }
        out
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
        assert_eq!(
            t.to_markdown(),
            "### T\n\n| name | bytes |\n| --- | ---: |\n| a\\|b | 5 |\n| long name | 123 |\n"
        );
    }
}
