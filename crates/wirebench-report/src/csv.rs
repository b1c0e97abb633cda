//! CSV (RFC 4180): fields with commas, quotes or line breaks are quoted, quotes doubled.

/// One CSV field. Control characters other than tab and line breaks (NUL, ESC, BEL, ...) are
/// written as `\x00`-style escapes: no reader or terminal gets them raw.
pub fn field(s: &str) -> String {
    let escaped;
    let s = if s.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r')) {
        escaped = crate::table::escape_controls(s, &['\t', '\n', '\r']);
        escaped.as_str()
    } else {
        s
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One CSV record with a trailing CRLF-free newline.
pub fn record<S: AsRef<str>>(fields: &[S]) -> String {
    let mut line = fields.iter().map(|f| field(f.as_ref())).collect::<Vec<_>>().join(",");
    line.push('\n');
    line
}

/// A display table as CSV text ([`CsvTable::from`] it, then [`table_text`]).
pub fn table(t: &crate::table::Table) -> String {
    table_text(&CsvTable::from(t))
}

/// A display header as a CSV column name: lower-case words joined by `_`, with the unit spelled
/// out (`payload B` → `payload_bytes`, `msgs/day` → `msgs_per_day`, `delivered %` →
/// `delivered_pct`, `p99 µs` → `p99_us`, `JSON÷CDR` → `json_over_cdr`).
pub fn column_name(h: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    for token in h.split_whitespace() {
        let token = match token {
            "B" => "bytes".to_string(),
            "%" => "pct".to_string(),
            "×" | "x" => "ratio".to_string(),
            t => t.to_string(),
        };
        let mut w = String::new();
        for c in token.chars() {
            match c {
                '/' => w.push_str("_per_"),
                '÷' => w.push_str("_over_"),
                '%' => w.push_str("_pct"),
                '×' => w.push_str("_ratio"),
                'µ' | 'μ' => w.push('u'),
                '±' => w.push_str("pm_"),
                '≤' => w.push_str("le_"),
                '≥' => w.push_str("ge_"),
                // `B` after a number or `k`/`M`/`Ki`... is the byte unit: `kB/s` → `kb_per_s`.
                c if c.is_ascii_alphanumeric() => w.extend(c.to_lowercase()),
                _ => w.push('_'),
            }
        }
        // A lone unit `B` inside a token such as `B/msg`.
        let w = if w == "b" || w.starts_with("b_per_") { w.replacen('b', "bytes", 1) } else { w };
        words.push(w);
    }
    let mut name = words.join("_");
    while name.contains("__") {
        name = name.replace("__", "_");
    }
    name.trim_matches('_').to_string()
}

/// A display cell of a numeric column as a CSV number: thousands separators, a leading `+`, and
/// `%`, `×` or a trailing unit word dropped (`1,234.5` → `1234.5`, `+0.52 %` → `0.52`, `12 ms` →
/// `12`); a cell that is not a finite number (`-`, `n/a`, a reason) is empty.
pub fn number_cell(s: &str) -> String {
    let t: String = s.trim().chars().filter(|c| !matches!(c, ',' | '%' | '×' | '≈' | '~' | ' ')).collect();
    let t = t.trim_start_matches('+');
    let t = t.trim_end_matches(|c: char| c.is_alphabetic() || c == 'µ' || c == '/');
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && !t.is_empty() && !t.chars().any(|c| c.is_alphabetic() && c != 'e' && c != 'E') => {
            t.to_string()
        }
        _ => String::new(),
    }
}

/// Parse CSV text (RFC 4180: quoted fields may hold commas, quotes and line breaks) into
/// records; a blank line outside quotes is an empty record (`vec![]`), which separates tables.
pub fn parse(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut started = false; // the record has a field (even an empty one)
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                '"' => quoted = false,
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                quoted = true;
                started = true;
            }
            ',' => {
                record.push(std::mem::take(&mut field));
                started = true;
            }
            '\r' => {}
            '\n' => {
                if started || !field.is_empty() {
                    record.push(std::mem::take(&mut field));
                }
                records.push(std::mem::take(&mut record));
                started = false;
            }
            _ => {
                field.push(c);
                started = true;
            }
        }
    }
    if started || !field.is_empty() {
        record.push(field);
    }
    if !record.is_empty() {
        records.push(record);
    }
    records
}

/// One table of a CSV report: its name (the section's key, given by [`named`]), header and rows.
/// The sections build these from their data; the CSV text and the tidy CSV are written from
/// them, never parsed back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CsvTable {
    pub name: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl CsvTable {
    /// An unnamed table with these column names and no rows yet.
    pub fn with_header<S: AsRef<str>>(header: &[S]) -> CsvTable {
        CsvTable { header: header.iter().map(|h| h.as_ref().to_string()).collect(), ..CsvTable::default() }
    }

    /// Add one row.
    pub fn row<S: AsRef<str>>(&mut self, fields: &[S]) {
        self.rows.push(fields.iter().map(|f| f.as_ref().to_string()).collect());
    }
}

impl From<&crate::table::Table> for CsvTable {
    /// A display table: its headers as snake_case column names with their units
    /// ([`column_name`]), then its rows, with the cells of numeric columns as plain numbers or
    /// empty ([`number_cell`]), so that every CSV column holds numbers or text, never both.
    fn from(t: &crate::table::Table) -> CsvTable {
        let mut out = CsvTable::with_header(&t.headers.iter().map(|h| column_name(h)).collect::<Vec<_>>());
        for r in &t.rows {
            out.rows.push(
                r.iter()
                    .enumerate()
                    .map(|(i, c)| if t.numeric.get(i).copied().unwrap_or(false) { number_cell(c) } else { c.clone() })
                    .collect(),
            );
        }
        out
    }
}

/// Display tables as CSV tables.
pub fn from_tables(tables: &[crate::table::Table]) -> Vec<CsvTable> {
    tables.iter().map(CsvTable::from).collect()
}

/// A section's tables named after it, numbered from the second on (`tcp`, `tcp.2`, ...).
pub fn named(section: &str, tables: Vec<CsvTable>) -> Vec<CsvTable> {
    tables
        .into_iter()
        .enumerate()
        .map(|(i, t)| CsvTable { name: if i == 0 { section.to_string() } else { format!("{section}.{}", i + 1) }, ..t })
        .collect()
}

/// A section's tables as CSV text: each table's header and rows, a blank line between tables.
pub fn text(tables: &[CsvTable]) -> String {
    tables.iter().map(table_text).collect::<Vec<_>>().join("\n")
}

/// One table as CSV (header, then rows).
pub fn table_text(t: &CsvTable) -> String {
    let mut s = record(&t.header);
    for r in &t.rows {
        s.push_str(&record(r));
    }
    s
}

/// Every table in one tidy CSV: a `table` column first, then the union of all tables' columns
/// in order of first appearance; a cell a table does not have is empty. Loads as one data frame
/// (`pandas.read_csv`); `df[df.table == "size"].dropna(axis=1, how="all")` gives one table back.
pub fn tidy(tables: &[CsvTable]) -> String {
    let mut columns: Vec<String> = Vec::new();
    for t in tables {
        for h in &t.header {
            if !columns.contains(h) {
                columns.push(h.clone());
            }
        }
    }
    let mut head = vec!["table".to_string()];
    head.extend(columns.iter().cloned());
    let mut out = record(&head);
    for t in tables {
        let at: Vec<usize> =
            columns.iter().map(|c| t.header.iter().position(|h| h == c).unwrap_or(usize::MAX)).collect();
        for r in &t.rows {
            let mut row = vec![t.name.clone()];
            row.extend(at.iter().map(|&i| r.get(i).cloned().unwrap_or_default()));
            out.push_str(&record(&row));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_named_written_and_made_tidy() {
        let mut a = CsvTable::with_header(&["a", "b"]);
        a.row(&["1", "x,\ny"]);
        let mut b = CsvTable::with_header(&["b", "c"]);
        b.row(&["2", "3"]);
        b.row(&["4", ""]);
        let t = named("s", vec![a, b]);
        assert_eq!(t[0].name, "s");
        assert_eq!(t[1].name, "s.2");
        assert_eq!(text(&t), "a,b\n1,\"x,\ny\"\n\nb,c\n2,3\n4,\n");
        // The text parses back to the same tables.
        let back = parse(&text(&t));
        assert_eq!(back[1], vec!["1".to_string(), "x,\ny".to_string()]);
        assert!(back[2].is_empty());
        assert_eq!(tidy(&t), "table,a,b,c\ns,1,\"x,\ny\",\ns.2,,2,3\ns.2,,4,\n");
        assert_eq!(table_text(&t[0]), "a,b\n1,\"x,\ny\"\n");
        // A row whose one field is empty stays a row (text parsed back would take it for the
        // blank line between tables).
        let mut one = CsvTable::with_header(&["note"]);
        one.row(&[""]);
        one.row(&["x"]);
        assert_eq!(tidy(&named("n", vec![one])), "table,note\nn,\nn,x\n");
    }

    #[test]
    fn control_bytes_are_escaped() {
        assert_eq!(field("no\0tool\x1b[1m"), "no\\x00tool\\x1b[1m");
        assert_eq!(field("a\nb"), "\"a\nb\"");
    }

    #[test]
    fn display_tables_become_numeric_snake_case_columns() {
        for (h, want) in [
            ("payload B", "payload_bytes"),
            ("IP B", "ip_bytes"),
            ("airtime ms", "airtime_ms"),
            ("msgs/day", "msgs_per_day"),
            ("fair use/day", "fair_use_per_day"),
            ("MQTT B/msg", "mqtt_bytes_per_msg"),
            ("app kB/s", "app_kb_per_s"),
            ("broker RSS MiB", "broker_rss_mib"),
            ("delivered %", "delivered_pct"),
            ("p99 µs", "p99_us"),
            ("JSON÷CDR", "json_over_cdr"),
            ("format", "format"),
        ] {
            assert_eq!(column_name(h), want, "{h}");
        }
        for (c, want) in [
            ("1,234.5", "1234.5"),
            ("+0.52 %", "0.52"),
            ("-3", "-3"),
            ("-", ""),
            ("12 ms", "12"),
            ("1.5e3", "1.5e3"),
            ("n/a", ""),
            ("inf", ""),
            ("2.1×", "2.1"),
        ] {
            assert_eq!(number_cell(c), want, "{c}");
        }
        let mut t = crate::table::Table::new("t", &["radio", "payload B", "IP B"]).numeric_from(1);
        t.push(vec!["lora-sf7".into(), "1,004.0".into(), "-".into()]);
        assert_eq!(table(&t), "radio,payload_bytes,ip_bytes\nlora-sf7,1004.0,\n");
    }

    #[test]
    fn quoting() {
        assert_eq!(record(&["a", "b,c", "say \"hi\""]), "a,\"b,c\",\"say \"\"hi\"\"\"\n");
        assert_eq!(parse("a,\"b,c\",\"say \"\"hi\"\"\"\n"), vec![vec!["a", "b,c", "say \"hi\""]]);
    }
}
