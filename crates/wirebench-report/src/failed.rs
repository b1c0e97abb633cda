//! The parts of a study that did not finish, first in every report that has them.

use wirebench_core::results::Results;

use crate::blocks::Block;
use crate::table::Table;
use crate::Output;

fn table(results: &Results) -> Table {
    let mut t = Table::new(
        "Parts that did not finish (the sections below are those of the parts that did)",
        &["part", "error"],
    );
    for f in &results.failed_parts {
        t.push(vec![f.part.clone(), f.error.clone()]);
    }
    t
}

/// The table of the parts that did not finish, as CSV (none when every part finished).
pub fn csv_tables(results: &Results) -> Vec<crate::csv::CsvTable> {
    if results.failed_parts.is_empty() {
        return Vec::new();
    }
    crate::csv::from_tables(&[table(results)])
}

/// The parts that did not finish, first on the HTML page: the same table as report.md's.
pub fn html_section(results: &Results, _ctx: &crate::html::Ctx) -> Option<crate::html::Section> {
    if results.failed_parts.is_empty() {
        return None;
    }
    let summary = format!("{} of the study's parts did not finish", results.failed_parts.len());
    Some(crate::html::from_blocks(&blocks(results), summary))
}

/// The section as blocks: the table under its own heading, and what the rest of the report is.
fn blocks(results: &Results) -> Vec<Block> {
    vec![
        Block::LeadTable {
            heading: Some("Parts that did not finish".into()),
            table: Table { title: String::new(), ..table(results) },
        },
        Block::Caption("The sections below are those of the parts that finished.".into()),
    ]
}

pub fn render(results: &Results, output: Output) -> String {
    if results.failed_parts.is_empty() || output == Output::Json {
        return String::new();
    }
    match output {
        Output::Csv => crate::csv::table(&table(results)),
        _ => crate::blocks::render(&blocks(results), output),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirebench_core::results::{FailedPart, Provenance};

    #[test]
    fn failed_parts_are_listed_and_absent_without_failures() {
        let mut r = Results::new(Provenance::default(), serde_json::json!({}));
        assert_eq!(render(&r, Output::Table), "");
        r.failed_parts.push(FailedPart { part: "http".into(), error: "wrk not found".into() });
        r.failed_parts.push(FailedPart { part: "tcp".into(), error: "not run: an earlier part failed".into() });
        let text = render(&r, Output::Table);
        assert!(text.contains("http  wrk not found") && text.contains("tcp   not run"), "{text}");
        let md = render(&r, Output::Markdown);
        assert!(md.starts_with("## Parts that did not finish\n") && md.contains("| http | wrk not found |"), "{md}");
        let page = html_section(&r, &crate::html::Ctx { id: "f".into(), file: 1, files: 1 }).unwrap();
        assert_eq!(page.title, "Parts that did not finish");
        assert!(page.body.contains("wrk not found") && page.body.contains("parts that finished"), "{}", page.body);
    }
}
