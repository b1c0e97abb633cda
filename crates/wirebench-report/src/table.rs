//! A table model: a title, headers, rows of cells, and which columns are numeric (right-aligned).

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
        let mut w: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                if i < w.len() {
                    w[i] = w[i].max(c.chars().count());
                }
            }
        }
        w
    }

    fn cell(&self, i: usize, text: &str, width: usize) -> String {
        let pad = width.saturating_sub(text.chars().count());
        if self.numeric.get(i).copied().unwrap_or(false) {
            format!("{}{}", " ".repeat(pad), text)
        } else {
            format!("{}{}", text, " ".repeat(pad))
        }
    }

    /// Aligned plain text for a terminal.
    pub fn to_text(&self) -> String {
        let w = self.widths();
        let mut out = String::new();
        if !self.title.is_empty() {
            out.push_str(&self.title);
            out.push('\n');
        }
        let line = |cells: &[String]| -> String {
            let parts: Vec<String> = cells.iter().enumerate().map(|(i, c)| self.cell(i, c, w[i])).collect();
            format!("{}\n", parts.join("  ").trim_end())
        };
        out.push_str(&line(&self.headers));
        let rule: Vec<String> = w.iter().map(|n| "-".repeat(*n)).collect();
        out.push_str(&format!("{}\n", rule.join("  ")));
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }

    /// A GitHub-flavoured Markdown table (pipes in cells escaped).
    pub fn to_markdown(&self) -> String {
        let esc = |s: &str| s.replace('|', "\\|");
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

#[cfg(test)]
mod tests {
    use super::*;

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
