//! The encoded-size report.

use wirebench_core::results::{Results, SizeSection};

use crate::blocks::{Block, List};
use crate::csv::CsvTable;
use crate::table::Table;
use crate::Output;

fn opt(v: Option<u64>) -> String {
    v.map(|b| b.to_string()).unwrap_or_else(|| "-".into())
}

fn opt_csv(v: Option<u64>) -> String {
    v.map(|b| b.to_string()).unwrap_or_default()
}

fn ratio(v: Option<f64>) -> String {
    v.map(|r| format!("{r:.2}")).unwrap_or_else(|| "-".into())
}

/// Bytes per payload (rows) × codec (columns).
pub fn matrix(s: &SizeSection) -> Table {
    let codecs: Vec<&str> = s.aggregates.iter().map(|a| a.codec.as_str()).collect();
    let mut headers = vec!["payload"];
    headers.extend(codecs.iter());
    let mut t = Table::new("Encoded size (bytes)", &headers).numeric_from(1);
    let mut payloads: Vec<&str> = Vec::new();
    for r in &s.rows {
        if !payloads.contains(&r.payload.as_str()) {
            payloads.push(&r.payload);
        }
    }
    for p in payloads {
        let mut row = vec![p.to_string()];
        for c in &codecs {
            let cell = s.rows.iter().find(|r| r.payload == p && r.codec == *c).map(|r| {
                let mark = match r.fidelity.label() {
                    "exact" | "unchecked" => "",
                    "lossy" => "~",
                    _ => "!",
                };
                format!("{}{mark}", opt(r.bytes))
            });
            row.push(cell.unwrap_or_default());
        }
        t.push(row);
    }
    t
}

/// One row per codec: totals, ratio to JSON, compressed totals, fidelity counts.
pub fn summary(s: &SizeSection) -> Table {
    let mut t = Table::new(
        "Per codec (all payloads): bytes per message (median, p99, max), totals, fidelity",
        &[
            "codec", "median", "p99", "max", "mean", "bytes", "x JSON", "zstd", "deflate", "exact", "lossy", "unsup.",
            "failed",
        ],
    )
    .numeric_from(1)
    .headline();
    for a in &s.aggregates {
        t.push(vec![
            a.codec.clone(),
            opt(a.bytes_p50),
            opt(a.bytes_p99),
            opt(a.bytes_max),
            a.bytes_mean.map(|m| format!("{m:.1}")).unwrap_or_else(|| "-".into()),
            a.bytes_total.to_string(),
            ratio(a.ratio_to_json),
            compressed_total(a, 0),
            compressed_total(a, 1),
            a.exact.to_string(),
            a.lossy.to_string(),
            a.unsupported.to_string(),
            a.failed.to_string(),
        ]);
    }
    t
}

/// A compressed total (0 zstd, 1 deflate) for the table: the sum when every encoded message
/// was compressed, `~` and the sampled mean × the encoded messages when only a sample was,
/// `-` when none was.
fn compressed_total(a: &wirebench_core::results::SizeAggregate, which: usize) -> String {
    match a.compressed_means() {
        None => "-".into(),
        Some(_) if !a.compression_sampled() => {
            (if which == 0 { a.zstd_bytes_total } else { a.deflate_bytes_total }).to_string()
        }
        Some((z, d)) => format!("~{:.0}", if which == 0 { z } else { d } * a.encoded as f64),
    }
}

/// How the compressed sizes were taken, when not from every message.
fn compression_note(s: &SizeSection) -> Option<String> {
    let a = s.aggregates.iter().find(|a| a.encoded > 0)?;
    if a.compressed_records() == 0 {
        return Some("zstd and deflate: not measured (--compress none).".into());
    }
    a.compression_sampled().then(|| {
        format!(
            "zstd and deflate: {} of {} messages compressed (a systematic sample, every {}); `~` totals are their mean × the messages (--compress all for every message).",
            a.compressed_records(),
            a.encoded,
            ordinal(a.encoded.div_ceil(a.compressed_records().max(1)))
        )
    })
}

/// `n` as an English ordinal: 2nd, 3rd, 11th, 21st, 50th.
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// How many messages had their round trip checked, when not every one (`--roundtrip`).
pub fn roundtrip_note(s: &SizeSection) -> Option<String> {
    let a = s.aggregates.iter().find(|a| a.unchecked > 0)?;
    let checked = a.encoded.saturating_sub(a.unchecked);
    Some(if checked == 0 {
        "round trip: not checked (--roundtrip none); exact, lossy and failed count nothing, sizes cover every message."
            .into()
    } else {
        let sample = match s.roundtrip_new_classes {
            Some(new) => format!(
                "a systematic sample, every {}, and {new} that brought a value class not checked before",
                ordinal(a.encoded.div_ceil(checked.saturating_sub(new).max(1)))
            ),
            None => format!("a systematic sample, every {}", ordinal(a.encoded.div_ceil(checked))),
        };
        format!(
            "round trip: {checked} of {} encoded messages checked ({sample}); exact, lossy and failed count those (--roundtrip all for every message).",
            a.encoded,
        )
    })
}

fn notes(s: &SizeSection) -> Vec<String> {
    s.aggregates.iter().filter_map(|a| a.first_issue.as_ref().map(|i| format!("{}: {}", a.codec, i))).collect()
}

fn run_line(s: &SizeSection) -> String {
    let r = &s.run;
    let mut line = format!("{} payloads in {:.2} s ({:.0} payloads/s", r.records, r.seconds, r.records_per_second);
    if r.input_bytes > 0 {
        line.push_str(&format!(", {:.1} MiB/s of input", r.input_mib_per_second));
    }
    line.push(')');
    if let Some(kib) = r.peak_rss_kib {
        line.push_str(&format!("; peak memory {:.1} MiB", kib as f64 / 1024.0));
    }
    // A line of its own, so that the summary fits an 80-column terminal.
    if let Some(stages) = r.cpu_seconds.as_ref().and_then(|c| c.summary()) {
        line.push('\n');
        line.push_str(&stages);
    }
    line
}

/// The size section as blocks: the matrix with its legend, the per-codec summary with how the
/// compressed sizes and round trips were taken, the fidelity notes and the run's figures.
fn blocks(s: &SizeSection) -> Vec<Block> {
    let mut out = vec![Block::Heading(format!("Encoded size: {}", s.corpus))];
    if !s.rows.is_empty() {
        out.push(Block::Table(matrix(s)));
        out.push(Block::Legend(vec![
            ("~".into(), "lossy round trip".into()),
            ("!".into(), "not encoded (see notes)".into()),
        ]));
    }
    out.push(Block::Table(summary(s)));
    out.extend(compression_note(s).into_iter().chain(roundtrip_note(s)).map(Block::Caption));
    let n = notes(s);
    if !n.is_empty() {
        out.push(List::new("Fidelity notes", n).into());
    }
    out.push(Block::Emphasis(run_line(s)));
    out
}

/// Render the size section of a results file.
pub fn render(results: &Results, output: Output) -> String {
    let Some(s) = &results.size else {
        return String::new();
    };
    match output {
        Output::Json => serde_json::to_string_pretty(s).expect("section serializes") + "\n",
        Output::Csv => crate::csv::text(&[csv(s)]),
        Output::Table | Output::Markdown => crate::blocks::render(&blocks(s), output),
    }
}

/// The section's CSV table: a row per payload and codec, or (a run that kept no rows) a row
/// per codec.
pub fn csv_tables(results: &Results) -> Vec<CsvTable> {
    results.size.as_ref().map(|s| vec![csv(s)]).unwrap_or_default()
}

fn csv(s: &SizeSection) -> CsvTable {
    if !s.rows.is_empty() {
        let mut out = CsvTable::with_header(&[
            "payload",
            "codec",
            "path",
            "bytes",
            "json_bytes",
            "ratio_to_json",
            "zstd_bytes",
            "deflate_bytes",
            "fidelity",
            "detail",
        ]);
        for r in &s.rows {
            let detail = match r.fidelity.summary() {
                d if d == r.fidelity.label() => String::new(),
                d => d,
            };
            out.row(&[
                r.payload.clone(),
                r.codec.clone(),
                r.path.clone(),
                opt(r.bytes),
                r.json_bytes.to_string(),
                r.ratio_to_json.map(|x| format!("{x:.4}")).unwrap_or_default(),
                opt(r.zstd_bytes),
                opt(r.deflate_bytes),
                r.fidelity.label().to_string(),
                detail,
            ]);
        }
        return out;
    }
    let mut out = CsvTable::with_header(&[
        "codec",
        "records",
        "encoded",
        "bytes_total",
        "bytes_mean",
        "ratio_to_json",
        "zstd_bytes_total",
        "deflate_bytes_total",
        "exact",
        "lossy",
        "unsupported",
        "failed",
        "first_issue",
        "bytes_p50",
        "bytes_p90",
        "bytes_p99",
        "bytes_max",
        "compressed",
        "unchecked",
    ]);
    for a in &s.aggregates {
        out.row(&[
            a.codec.clone(),
            a.records.to_string(),
            a.encoded.to_string(),
            a.bytes_total.to_string(),
            a.bytes_mean.map(|m| format!("{m:.3}")).unwrap_or_default(),
            a.ratio_to_json.map(|x| format!("{x:.4}")).unwrap_or_default(),
            a.zstd_bytes_total.to_string(),
            a.deflate_bytes_total.to_string(),
            a.exact.to_string(),
            a.lossy.to_string(),
            a.unsupported.to_string(),
            a.failed.to_string(),
            a.first_issue.clone().unwrap_or_default(),
            opt_csv(a.bytes_p50),
            opt_csv(a.bytes_p90),
            opt_csv(a.bytes_p99),
            opt_csv(a.bytes_max),
            a.compressed_records().to_string(),
            a.unchecked.to_string(),
        ]);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 50, 101, 112].into_iter().map(super::ordinal).collect();
        assert_eq!(got, ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "50th", "101st", "112th"]);
    }
}
