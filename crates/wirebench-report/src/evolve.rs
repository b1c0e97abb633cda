//! The evolve section: schema evolution, format × change × direction — the dangerous cells
//! first, then the matrix, the byte cost of evolvability and the recommendation.

use wirebench_core::results::Results;
use wirebench_core::sections::evolve::{Cell, EvolveSection, Verdict};

use crate::blocks::{Block, List};
use crate::html::{Ctx, Section};
use crate::table::{CellMark, Table};
use crate::Output;

/// The cells of one verdict, in matrix order.
fn of(e: &EvolveSection, v: Verdict) -> Vec<&Cell> {
    e.cells.iter().filter(|c| c.verdict == v).collect()
}

/// The matrix: a row per case and direction, a column per format.
fn matrix(e: &EvolveSection) -> Table {
    let mut headers = vec!["change", "direction"];
    headers.extend(e.formats.iter().map(String::as_str));
    let mut t = Table::new("Matrix: the reader's verdict per change, direction and format", &headers);
    for case in &e.cases {
        for dir in ["old→new", "new→old"] {
            let row = t.rows.len();
            let mut cells = vec![case.name.clone(), dir.to_string()];
            for (col, f) in e.formats.iter().enumerate() {
                let c = e.cells.iter().find(|c| c.format == *f && c.change == case.name && c.direction == dir);
                cells.push(c.map_or(String::new(), |c| c.verdict.short().to_string()));
                if let Some(c) = c.filter(|c| matches!(c.verdict, Verdict::SilentlyWrong | Verdict::Lossy)) {
                    let class = if c.verdict == Verdict::SilentlyWrong { "bad" } else { "lossy" };
                    t.marks.push(CellMark { row, col: col + 2, class, tip: c.detail.clone() });
                }
            }
            t.push(cells);
        }
    }
    t
}

fn costs(e: &EvolveSection) -> Table {
    let mut t = Table::new(
        "Byte cost of evolvability (v1 messages, mean per message)",
        &["format", "with", "without", "overhead", "what"],
    )
    .numeric_from(1);
    t.numeric[4] = false;
    for c in &e.costs {
        let pct = if c.without > 0.0 { (c.with - c.without) / c.without * 100.0 } else { 0.0 };
        t.push(vec![
            c.format.clone(),
            format!("{:.1} B", c.with),
            format!("{:.1} B", c.without),
            format!("{pct:+.0} %"),
            c.what.clone(),
        ]);
    }
    t
}

/// Every cell with its counts (the CSV's table).
fn cells(e: &EvolveSection) -> Table {
    let mut t = Table::new(
        "Cells",
        &["format", "change", "direction", "verdict", "samples", "refused", "wrong", "lossy", "defaulted", "detail"],
    );
    for c in &e.cells {
        t.push(vec![
            c.format.clone(),
            c.change.clone(),
            c.direction.clone(),
            c.verdict.label().to_string(),
            c.samples.to_string(),
            c.refused.to_string(),
            c.wrong.to_string(),
            c.lossy.to_string(),
            c.defaulted.to_string(),
            c.detail.clone(),
        ]);
    }
    t
}

/// The section's CSV tables: every cell, and the byte cost.
pub fn csv_tables(results: &Results) -> Vec<crate::csv::CsvTable> {
    results.evolve.as_ref().map(|e| crate::csv::from_tables(&[cells(e), costs(e)])).unwrap_or_default()
}

pub fn render(results: &Results, output: Output) -> String {
    let Some(e) = &results.evolve else { return String::new() };
    match output {
        Output::Json => serde_json::to_string_pretty(e).expect("section serializes") + "\n",
        Output::Csv => crate::csv::text(&csv_tables(results)),
        Output::Table | Output::Markdown => crate::blocks::render(&blocks(e), output),
    }
}

/// The section as blocks, the same for every report kind.
fn blocks(e: &EvolveSection) -> Vec<Block> {
    let mut out = vec![
        Block::Heading("Schema evolution".into()),
        Block::Intro(format!(
            "{} case(s) × {} format(s) × 2 directions, {} sample(s) per cell: each sample is encoded with the \
             writer's schema through the real codec and decoded with the reader's (old→new: a v1 writer and a v2 \
             reader; new→old: the other way round), then every field the reader has is compared with what the \
             writer meant. A cell is silently wrong when the reader accepted and produced other values.",
            e.cases.len(),
            e.formats.len(),
            e.samples
        )),
        Block::KeyLine(format!("Recommendation: {}", e.recommendation)),
    ];
    for (v, title) in [
        (Verdict::SilentlyWrong, "Silently wrong (the reader accepted and produced other values)"),
        (Verdict::Refused, "Refused by the reader"),
        (Verdict::Lossy, "Lossy"),
    ] {
        let cells = of(e, v);
        out.push(Block::Subheading(format!("{title}: {} cell(s)", cells.len())));
        let items: Vec<String> = if v == Verdict::Refused {
            // One line per format: the refused changes, and the reader's first reason.
            e.formats
                .iter()
                .filter_map(|f| {
                    let mine: Vec<&&Cell> = cells.iter().filter(|c| c.format == *f).collect();
                    let first = mine.first()?;
                    let which: Vec<String> = mine.iter().map(|c| format!("{} {}", c.change, c.direction)).collect();
                    Some(format!("{f} ({}): {}; e.g. {}", mine.len(), which.join(", "), first.detail))
                })
                .collect()
        } else {
            cells.iter().map(|c| format!("{} · {} · {}: {}", c.format, c.change, c.direction, c.detail)).collect()
        };
        if !items.is_empty() {
            out.push(Block::List(List { bullet: "  - ", ..List::untitled(items) }));
        }
    }
    out.push(Block::Table(matrix(e)));
    out.push(Block::Legend(vec![
        ("WRONG".into(), "silently wrong".into()),
        ("refused".into(), "refused by the reader".into()),
        ("lossy".into(), "values changed by the reader's type".into()),
        ("defaults".into(), "ok with defaults".into()),
        ("n/a".into(), "the format cannot express one of the schemas".into()),
    ]));
    // The cases after the cells (the terminal keeps a section's first lines: the dangerous ones).
    let cases = e
        .cases
        .iter()
        .map(|c| match c.changes.as_slice() {
            [one] if one.change == c.name => format!("{}: {}", c.name, one.detail),
            [] => format!("{}: no change found", c.name),
            many => format!(
                "{}: {}",
                c.name,
                many.iter().map(|x| format!("{} ({})", x.change, x.detail)).collect::<Vec<_>>().join("; ")
            ),
        })
        .collect();
    out.push(Block::List(List { bullet: "  - ", ..List::new("Cases", cases) }));
    out.push(Block::Table(costs(e)));
    out
}

pub fn html_section(r: &Results, _ctx: &Ctx) -> Option<Section> {
    let e = r.evolve.as_ref()?;
    let summary = format!(
        "evolve: {} cells, {} silently wrong, {} refused",
        e.cells.len(),
        of(e, Verdict::SilentlyWrong).len(),
        of(e, Verdict::Refused).len()
    );
    Some(crate::html::from_blocks(&blocks(e), summary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirebench_core::sections::evolve::{Case, Cost};

    fn section() -> Results {
        let cell = |format: &str, dir: &str, verdict: Verdict, detail: &str| Cell {
            format: format.into(),
            change: "reorder".into(),
            direction: dir.into(),
            verdict,
            samples: 4,
            refused: 0,
            wrong: if verdict == Verdict::SilentlyWrong { 4 } else { 0 },
            lossy: 0,
            defaulted: 0,
            error: None,
            fields_wrong: vec![],
            fields_lossy: vec![],
            fields_defaulted: vec![],
            bytes_alone: None,
            detail: detail.into(),
        };
        let mut r = Results::new(Default::default(), serde_json::Value::Null);
        r.evolve = Some(EvolveSection {
            samples: 4,
            formats: vec!["protobuf".into(), "thrift".into()],
            cases: vec![Case { name: "reorder".into(), changes: vec![] }],
            cells: vec![
                cell("thrift", "old→new", Verdict::SilentlyWrong, "4/4 samples wrong: lat"),
                cell("thrift", "new→old", Verdict::SilentlyWrong, "4/4 samples wrong: lon"),
                cell("protobuf", "old→new", Verdict::Ok, ""),
                cell("protobuf", "new→old", Verdict::Ok, ""),
            ],
            costs: vec![Cost { format: "protobuf".into(), with: 22.0, without: 18.0, what: "keys".into() }],
            recommendation: "protobuf — never silently wrong here".into(),
        });
        r
    }

    #[test]
    fn the_dangerous_cells_come_first_then_the_matrix() {
        let r = section();
        let md = render(&r, Output::Markdown);
        let wrong = md.find("### Silently wrong").expect("silently wrong");
        let refused = md.find("### Refused by the reader: 0 cell(s)").expect("refused");
        let matrix = md.find("### Matrix").expect("matrix");
        assert!(wrong < refused && refused < matrix, "{md}");
        assert!(md.contains("- thrift · reorder · old→new: 4/4 samples wrong: lat"), "{md}");
        assert!(md.contains("| reorder | old→new | ok | WRONG |"), "{md}");
        assert!(md.contains("**Recommendation: protobuf — never silently wrong here**"), "{md}");
        assert!(md.contains("| protobuf | 22.0 B | 18.0 B | +22 % | keys |"), "{md}");
        let csv = render(&r, Output::Csv);
        assert!(csv.starts_with("format,change,direction,verdict,samples,refused,wrong,lossy,defaulted,detail\n"));
        assert!(csv.contains("thrift,reorder,old→new,silently wrong,4,0,4,0,0,4/4 samples wrong: lat\n"), "{csv}");
    }

    #[test]
    fn the_page_marks_the_silently_wrong_cells() {
        let r = section();
        let ctx = Ctx { id: "e".into(), file: 1, files: 1 };
        let s = html_section(&r, &ctx).unwrap();
        assert!(s.body.contains("class=\"bad\""), "{}", s.body);
        assert!(s.body.contains("4/4 samples wrong: lat"));
        let md = render(&r, Output::Markdown);
        let h3 = crate::blocks::page_texts(&s.body, "<h3>");
        assert!(h3.len() >= 3, "{h3:?}");
        for t in h3.iter().chain(&crate::blocks::page_texts(&s.body, "<caption>")) {
            assert!(md.contains(&format!("### {t}\n")), "{t:?} is not a heading of the Markdown:\n{md}");
        }
    }
}
