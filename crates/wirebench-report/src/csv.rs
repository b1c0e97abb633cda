//! CSV (RFC 4180): fields with commas, quotes or line breaks are quoted, quotes doubled.

/// One CSV field.
pub fn field(s: &str) -> String {
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

/// A table as CSV: its headers, then its rows.
pub fn table(t: &crate::table::Table) -> String {
    let mut out = record(&t.headers);
    for r in &t.rows {
        out.push_str(&record(r));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoting() {
        assert_eq!(super::record(&["a", "b,c", "say \"hi\""]), "a,\"b,c\",\"say \"\"hi\"\"\"\n");
    }
}
