//! The size section's held-out part (`size --dict-train`, `--dict-split`, `--dict`,
//! `--delta-key`): bytes per held-out message with and without a trained dictionary, the
//! dictionaries and what amortises them, and the deltas — as blocks for every report kind, and
//! one long CSV table.

use wirebench_core::sections::held_out::{HeldOutFormat, HeldOutSection, SizeDist};

use crate::blocks::{Block, List};
use crate::csv::CsvTable;
use crate::html::plural;
use crate::table::Table;

/// `median / p99 / max`, or `-`.
fn cell(d: &Option<SizeDist>) -> String {
    d.as_ref().map_or_else(|| "-".into(), |d| format!("{} / {} / {}", d.median, d.p99, d.max))
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

/// What was trained on and what was measured, in one sentence.
fn split_line(h: &HeldOutSection) -> String {
    let held = plural(h.held_out_messages as usize, "held-out message", "held-out messages");
    let dict = match (&h.dict_file, h.dict_size) {
        (Some(f), _) => format!("the dictionary {f} for every format"),
        (None, Some(n)) => format!("a zstd dictionary of at most {n} B per format, trained on its own encodings"),
        (None, None) => "no dictionary".into(),
    };
    let split = match h.split.as_str() {
        "devices" => format!(
            "{held} of {} by {}, a dictionary trained on the other {} ({} messages; whole devices, in order of \
             first appearance, {:.0} % of them)",
            plural(h.held_out_devices.unwrap_or(0) as usize, "device", "devices"),
            h.key.as_deref().unwrap_or("?"),
            plural(h.train_devices.unwrap_or(0) as usize, "device", "devices"),
            h.train_messages,
            h.fraction.unwrap_or(0.0) * 100.0,
        ),
        "files" => format!("{held}, the dictionary trained on {} other messages (--dict-train)", h.train_messages),
        _ => held,
    };
    format!(
        "{split}; {dict}. Each message is compressed on its own: a zstd frame (level {}, content size, no checksum) \
         and raw deflate (level {}); deflate's preset dictionary is the zstd dictionary's content.",
        h.zstd_level, h.deflate_level
    )
}

fn has(h: &HeldOutSection, f: impl Fn(&HeldOutFormat) -> bool) -> bool {
    h.formats.iter().any(f)
}

/// Bytes per held-out message, per format and variant.
pub fn sizes_table(h: &HeldOutSection) -> Table {
    let dict = has(h, |f| f.zstd_dict.is_some());
    let mut headers = vec!["codec", "raw", "zstd"];
    if dict {
        headers.extend(["zstd+dict", "+dictID"]);
    }
    headers.push("deflate");
    if dict {
        headers.push("deflate+dict");
    }
    let mut t = Table::new("Held out: bytes per message (median / p99 / max)", &headers);
    for f in &h.formats {
        let mut row = vec![f.codec.clone(), cell(&f.raw), cell(&f.zstd)];
        if dict {
            row.extend([cell(&f.zstd_dict), f.zstd_dict_id.as_ref().map_or("-".into(), |d| d.median.to_string())]);
        }
        row.push(cell(&f.deflate));
        if dict {
            row.push(cell(&f.deflate_dict));
        }
        t.push(row);
    }
    t
}

/// The dictionaries: their size and after how many messages sending them once has paid off.
pub fn dictionary_table(h: &HeldOutSection) -> Table {
    let mut t = Table::new(
        "Held out: the dictionaries, and the messages that amortise sending one once",
        &["codec", "zstd dict B", "amortised after", "deflate dict B", "amortised after", "dict ID"],
    )
    .numeric_from(1);
    for f in &h.formats {
        t.push(vec![
            f.codec.clone(),
            opt(f.zstd_dict_bytes),
            opt(f.zstd_dict_amortised_after),
            opt(f.deflate_dict_bytes),
            opt(f.deflate_dict_amortised_after),
            opt(f.dict_id.map(u64::from)),
        ]);
    }
    t
}

/// The deltas beside the plain sizes.
pub fn delta_table(h: &HeldOutSection) -> Table {
    let mut t = Table::new(
        &format!(
            "Held out: deltas by {} (median / p99 / max bytes per message)",
            h.delta_key.as_deref().unwrap_or("?")
        ),
        &["codec", "raw", "zstd", "delta", "delta+zstd", "xor+zstd", "whole"],
    );
    for f in &h.formats {
        t.push(vec![
            f.codec.clone(),
            cell(&f.raw),
            cell(&f.zstd),
            cell(&f.delta),
            cell(&f.delta_zstd),
            cell(&f.xor_zstd),
            opt(f.delta_whole),
        ]);
    }
    t
}

/// The held-out part as blocks.
pub fn blocks(h: &HeldOutSection) -> Vec<Block> {
    let mut out =
        vec![Block::Subheading("Held out: trained dictionaries and deltas".into()), Block::Note(split_line(h))];
    out.push(Block::Table(sizes_table(h)));
    let dict = has(h, |f| f.zstd_dict.is_some());
    if dict {
        out.push(Block::Caption(
            "zstd+dict: the frame without the dictionary's ID (zstd --no-dictID; both ends know the dictionary); \
             +dictID: the median with the ID in the frame (the zstd -D default)."
                .into(),
        ));
        out.push(Block::Table(dictionary_table(h)));
        out.push(Block::Caption(
            "Amortised after: the dictionary's size over the mean saving per message against the better of the raw \
             encoding and the same compressor without a dictionary, rounded up; - where it saves nothing."
                .into(),
        ));
    }
    if has(h, |f| f.delta.is_some()) {
        out.push(Block::Table(delta_table(h)));
        out.push(Block::Caption(
            "delta: the fields that changed since the device's previous message, integers and decimal numbers as \
             exact differences, in the same format (schema-directed formats under a schema inferred from the \
             deltas); xor+zstd: the encoding XORed with the device's previous one, compressed. whole: messages \
             sent whole and counted (each device's first, and any delta that cannot be said: a removed field, \
             a difference that does not give the value back exactly)."
                .into(),
        ));
    }
    if !h.notes.is_empty() {
        out.push(List::new("Held-out notes", h.notes.clone()).into());
    }
    out
}

type Variant<'a> = (&'a str, &'a Option<SizeDist>, Option<u64>, Option<u64>);

/// One row per format and variant: the distribution's figures and the dictionary's.
pub fn csv(h: &HeldOutSection) -> CsvTable {
    let mut out = CsvTable::with_header(&[
        "codec",
        "variant",
        "messages",
        "median",
        "p99",
        "max",
        "mean",
        "dict_bytes",
        "amortised_after",
    ]);
    for f in &h.formats {
        // (variant, its sizes, the dictionary's bytes, messages that amortise it)
        let variants: [Variant; 9] = [
            ("raw", &f.raw, None, None),
            ("zstd", &f.zstd, None, None),
            ("zstd+dict", &f.zstd_dict, f.zstd_dict_bytes, f.zstd_dict_amortised_after),
            ("zstd+dict+dictid", &f.zstd_dict_id, f.zstd_dict_bytes, None),
            ("deflate", &f.deflate, None, None),
            ("deflate+dict", &f.deflate_dict, f.deflate_dict_bytes, f.deflate_dict_amortised_after),
            ("delta", &f.delta, None, None),
            ("delta+zstd", &f.delta_zstd, None, None),
            ("xor+zstd", &f.xor_zstd, None, None),
        ];
        for (name, d, dict, after) in variants {
            let Some(d) = d else { continue };
            out.row(&[
                f.codec.clone(),
                name.to_string(),
                d.messages.to_string(),
                d.median.to_string(),
                d.p99.to_string(),
                d.max.to_string(),
                format!("{:.3}", d.mean),
                dict.map(|n| n.to_string()).unwrap_or_default(),
                after.map(|n| n.to_string()).unwrap_or_default(),
            ]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(m: u64) -> Option<SizeDist> {
        Some(SizeDist { messages: 3, median: m, p99: m + 2, max: m + 3, mean: m as f64 })
    }

    #[test]
    fn held_out_blocks_and_csv() {
        let h = HeldOutSection {
            split: "devices".into(),
            key: Some("device_id".into()),
            fraction: Some(0.75),
            train_messages: 9,
            train_devices: Some(3),
            held_out_messages: 3,
            held_out_devices: Some(1),
            dict_size: Some(2048),
            delta_key: Some("device_id".into()),
            zstd_level: 3,
            deflate_level: 6,
            formats: vec![HeldOutFormat {
                codec: "json".into(),
                raw: dist(144),
                zstd: dist(120),
                zstd_dict: dist(41),
                zstd_dict_id: dist(45),
                deflate: dist(110),
                deflate_dict: dist(40),
                zstd_dict_bytes: Some(2048),
                dict_id: Some(12345),
                deflate_dict_bytes: Some(1900),
                zstd_dict_amortised_after: Some(26),
                deflate_dict_amortised_after: Some(27),
                delta: dist(60),
                delta_zstd: dist(62),
                xor_zstd: dist(50),
                delta_whole: Some(1),
                ..Default::default()
            }],
            ..Default::default()
        };
        let text = crate::blocks::render(&blocks(&h), crate::Output::Markdown);
        for want in ["41 / 43 / 44", "2048", "26", "60 / 62 / 63", "1 device by device_id", "75 %"] {
            assert!(text.contains(want), "{want} in {text}");
        }
        let c = csv(&h);
        assert_eq!(c.rows.len(), 9);
        assert_eq!(c.rows[2][..4], ["json", "zstd+dict", "3", "41"]);
        assert_eq!(c.rows[2][7..], ["2048", "26"]);
    }
}
