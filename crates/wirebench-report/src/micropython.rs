//! The micropython section: bytecode size of the Python device codecs and heap per message
//! under MicroPython, beside seed 000's thesis figures.

use wirebench_core::published::seed000 as thesis;
use wirebench_core::results::Results;
use wirebench_core::sections::micropython::{MicroPythonBuild, MicroPythonSection};

use crate::blocks::{Block, Figure};
use crate::html::{Ctx, Section};
use crate::svg::{color, BarChart, Bars};
use crate::table::Table;
use crate::Output;

/// The build that stands for a board: the 32-bit single-precision one when it ran, else the
/// single-precision one.
fn board_like(m: &MicroPythonSection) -> Option<&MicroPythonBuild> {
    m.builds.iter().find(|b| b.name == "f32_32bit").or_else(|| m.builds.iter().find(|b| b.name == "f32"))
}

fn tables(m: &MicroPythonSection) -> Vec<Table> {
    let mut lib = Table::new(
        "Bytecode a device stores per codec (mpy-cross .mpy bytes) beside the thesis's library flash",
        &["library", "build", "ours bytes", "thesis"],
    )
    .numeric_from(2);
    for b in &m.builds {
        for (name, bytes) in &b.library_bytecode_bytes {
            let theirs = match name.as_str() {
                "uadp" => format!("~{} B (UADP library)", thesis::LIBRARY_FLASH_UADP_BYTES),
                "uadp+json" => format!("~{} B (JSON library)", thesis::LIBRARY_FLASH_JSON_BYTES),
                _ => "-".into(),
            };
            lib.push(vec![name.clone(), b.name.clone(), bytes.to_string(), theirs]);
        }
    }
    let mut heap = Table::new(
        "Heap per message (bytes allocated by one encode / decode) beside the thesis's 5-field figures",
        &[
            "format",
            "fields",
            "build",
            "wire bytes",
            "encode",
            "decode",
            "encode retained",
            "decode retained",
            "thesis",
        ],
    )
    .numeric_from(1);
    for b in &m.builds {
        for r in &b.heap_bytes_per_message {
            let theirs = match (r.format.as_str(), r.fields) {
                ("uadp", 5) => format!("{} B", thesis::MEMORY_UADP.0),
                ("uadp-json-dv", 5) => format!("{} B", thesis::MEMORY_JSON.0),
                _ => "-".into(),
            };
            heap.push(vec![
                r.format.clone(),
                r.fields.to_string(),
                b.name.clone(),
                r.wire_bytes.to_string(),
                r.encode.allocated.to_string(),
                r.decode.allocated.to_string(),
                r.encode.retained.to_string(),
                r.decode.retained.to_string(),
                theirs,
            ]);
        }
    }
    vec![lib, heap]
}

/// The section's CSV tables.
pub fn csv_tables(results: &Results) -> Vec<crate::csv::CsvTable> {
    results.micropython.as_ref().map(|m| crate::csv::from_tables(&tables(m))).unwrap_or_default()
}

pub fn render(results: &Results, output: Output) -> String {
    let Some(m) = &results.micropython else { return String::new() };
    match output {
        Output::Json => serde_json::to_string_pretty(m).expect("section serializes") + "\n",
        Output::Csv => crate::csv::text(&crate::csv::from_tables(&tables(m))),
        Output::Table | Output::Markdown => crate::blocks::render(&blocks(m, None), output),
    }
}

/// The section as blocks, the same for every report kind; the chart (HTML only) when `charts`
/// gives its page id.
fn blocks(m: &MicroPythonSection, charts: Option<&Ctx>) -> Vec<Block> {
    let mut out = vec![
        Block::Heading("MicroPython: bytecode and heap per message".into()),
        Block::Intro(
            "The Python device codecs (python/wirebench_device) under MicroPython 1.25, as seed 000 measured \
             its own on an ESP32: the bytecode a device stores, and the heap one message takes."
                .into(),
        ),
    ];
    if let (Some(ctx), Some(board)) = (charts, board_like(m)) {
        let get = |format: &str| {
            board
                .heap_bytes_per_message
                .iter()
                .find(|h| h.format == format && h.fields == 5)
                .map(|h| h.encode.allocated as f64)
        };
        let chart = BarChart::new(
            &ctx.chart_id("heap5"),
            "Heap per 5-field message (encode), bytes",
            vec!["UADP".into(), "JSON (DataValue)".into()],
        )
        .series(Bars::new(&format!("ours ({})", board.name), vec![get("uadp"), get("uadp-json-dv")]).color(color(0)))
        .series(
            Bars::new(
                "published (ESP32)",
                vec![Some(thesis::MEMORY_UADP.0 as f64), Some(thesis::MEMORY_JSON.0 as f64)],
            )
            .color(color(5))
            .hatched(true),
        )
        .axis_label("bytes allocated")
        .width(620.0)
        .value_format(|v| format!("{v:.0}"));
        out.push(Block::Figure(Figure::new(
            chart.render(),
            format!(
                "Hatched: published, {} — {}; {}, not measured here. Solid: ours, this results file (unix port, not a board).",
                thesis::CITATION,
                thesis::MEMORY_SOURCE,
                thesis::LIBRARY_FLASH_SOURCE
            ),
        )));
    }
    out.extend(tables(m).into_iter().map(Block::Table));
    if !m.notes.is_empty() {
        out.push(Block::Note(m.notes.join(" ")));
    }
    out
}

pub fn html_section(r: &Results, ctx: &Ctx) -> Option<Section> {
    let m = r.micropython.as_ref()?;
    let summary = format!("micropython: {} builds (mpy-cross {})", m.builds.len(), m.mpy_cross);
    Some(crate::html::from_blocks(&blocks(m, Some(ctx)), summary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirebench_core::sections::micropython::{HeapRow, HeapUse};

    #[test]
    fn html_sets_ours_beside_the_thesis() {
        let mut r = Results::new(Default::default(), serde_json::Value::Null);
        let row = |format: &str, enc: u64| HeapRow {
            format: format.into(),
            fields: 5,
            wire_bytes: 1,
            encode: HeapUse { allocated: enc, retained: 1 },
            decode: HeapUse { allocated: 2, retained: 1 },
        };
        r.micropython = Some(MicroPythonSection {
            mpy_cross: "v1.25".into(),
            builds: vec![MicroPythonBuild {
                name: "f32".into(),
                library_bytecode_bytes: [("uadp".to_string(), 27445u64)].into_iter().collect(),
                heap_bytes_per_message: vec![row("uadp", 2160), row("uadp-json-dv", 10480)],
                ..Default::default()
            }],
            notes: vec![],
        });
        let ctx = Ctx { id: "m".into(), file: 1, files: 1 };
        let s = html_section(&r, &ctx).unwrap();
        for needle in ["2160", "10480", "336", "1424", "27445", "15360", "published"] {
            assert!(s.body.contains(needle), "{needle}");
        }
        let text = render(&r, Output::Table);
        assert!(text.contains("336 B") && text.contains("~15360 B (UADP library)"), "{text}");
    }
}
