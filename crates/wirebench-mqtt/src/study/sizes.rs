//! Sizes, layout, codec cost: every format × field count encoded and checked to decode, the
//! seed layout's byte arithmetic beside the thesis's, and encode/decode time and allocations.

use wirebench_core::part::PartError;
use wirebench_core::published::seed000 as thesis;
use wirebench_core::sections::mqtt::{CodecCost, FormatInfo, Layout, LayoutPart, MessageSize, MqttSection};

use crate::opcua::{self, StudyFormat};

/// Sizes (every format × field count, each checked to decode), the layout arithmetic, and
/// (with `speed`) encode/decode time and allocations.
pub(super) fn add_sizes(
    s: &mut MqttSection,
    formats: &[StudyFormat],
    fields: &[usize],
    speed: bool,
) -> Result<(), PartError> {
    for &f in formats {
        s.formats.push(FormatInfo { id: f.id().into(), description: f.describe().into(), json: f.is_json() });
        for &n in fields {
            let bytes = f.encode(n).map_err(PartError::failed)?;
            f.decode_check(&bytes, n).map_err(PartError::failed)?;
            s.sizes.push(MessageSize {
                format: f.id().into(),
                fields: n,
                bytes: bytes.len(),
                round_trip: true,
                hex: (!f.is_json()).then(|| hex(&bytes)),
            });
            if speed {
                let cost = codec_cost(f, n, &bytes, &mut s.notes);
                s.codec.push(cost);
            }
        }
    }
    if formats.contains(&StudyFormat::Uadp) {
        s.layout = Some(layout(fields));
    }
    Ok(())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The seed layout part by part, 39 + 5N for `fields`, and why the thesis's sizes are 6 bytes
/// short of it.
fn layout(fields: &[usize]) -> Layout {
    let mut offset = 0;
    let parts: Vec<LayoutPart> = opcua::seed_layout()
        .into_iter()
        .map(|p| {
            let o = offset;
            offset += p.bytes;
            LayoutPart { part: p.part.into(), bytes: p.bytes, offset: o, note: p.note.into() }
        })
        .collect();
    let header = offset;
    let per = opcua::VARIANT_FIELD_BYTES;
    let ours: Vec<(usize, usize)> = fields.iter().map(|&n| (n, header + per * n)).collect();
    let thesis: Vec<(usize, u64)> = thesis::SIZES.iter().map(|&(n, _, u)| (n, u)).collect();
    let difference = thesis
        .iter()
        .filter_map(|&(n, t)| ours.iter().find(|(m, _)| *m == n).map(|&(_, o)| (n, t as i64 - o as i64)))
        .collect();
    let sum: Vec<String> = parts.iter().map(|p| format!("{} {}", p.bytes, p.part)).collect();
    let explanation = vec![
        format!("The layout the thesis states (UADPFlags 0xD1, ExtendedFlags1 0x0C, String PublisherId \"ESP32-Bench\", DataSetClassId, PayloadHeader with writer 1000, one Variant key frame) has {header} bytes before the fields: {} = {header}.", sum.join(" + ")),
        format!("Each Float or Int32 Variant field adds {per} bytes (1 type byte + 4 value bytes), so N fields take {header} + {per}·N: 44, 54, 64, 89 bytes for 1, 3, 5, 10 fields. open62541 and our decoder agree on these bytes."),
        "The thesis's 38/48/58/83 are 33 + 5·N: 6 bytes fewer at every N. 33 is exactly the NetworkMessage header (1 + 1 + 4 + 11 + 16); the missing 6 are the PayloadHeader (Count 1 + DataSetWriterId 2), DataSetFlags1 (1) and FieldCount (2), which the stated layout requires. With every part the thesis lists, 38/48/58/83 cannot be produced.".into(),
        format!("The thesis's own throughput table gives {} bytes per 3-field UADP message — the 39 + 5·3 = 54 of this layout, not the 48 of its size table.", thesis::THROUGHPUT_UADP_BYTES),
        "Two readings fit 33 + 5N: a 5-character PublisherId (\"ESP32\"; a valid message) or a count of the header plus fields only. Either way, measure the MQTT payload on the wire; do not reuse 38/48/58/83.".into(),
    ];
    Layout {
        parts,
        header_bytes: header,
        per_field_bytes: per,
        formula: format!("{header} + {per}·N"),
        ours,
        thesis,
        difference,
        explanation,
    }
}

/// Median ns/op (the speed engine's [`time_op`](wirebench_measure::speed::time_op): warm-up,
/// robust calibration, 31 samples of at least 1 ms), and allocations per op; a figure whose
/// samples ran short even after re-calibrating is named in `notes` as unreliable.
fn codec_cost(f: StudyFormat, n: usize, bytes: &[u8], notes: &mut Vec<String>) -> CodecCost {
    use std::hint::black_box;
    let msg = f.message(n);
    let meta = opcua::metadata(n);
    let mut enc = |iters: u64| {
        for _ in 0..iters {
            black_box(f.encode_message(black_box(&msg), &meta).ok());
        }
    };
    let mut dec = |iters: u64| {
        for _ in 0..iters {
            black_box(f.decode(black_box(bytes), &meta).ok());
        }
    };
    let mut timed = |op: &str, g: &mut dyn FnMut(u64)| {
        let e = time_per_op(g);
        if e.short {
            notes.push(format!(
                "codec cost {} {n} fields {op}: unreliable ({:.0} ns per op; samples lasted {:.0}% of the target even after re-calibrating: the host was busy)",
                f.id(),
                e.ns_per_op.median,
                e.calibration.fill * 100.0
            ));
        }
        e.ns_per_op.median
    };
    let encode_ns = timed("encode", &mut enc);
    let decode_ns = timed("decode", &mut dec);
    let ea = wirebench_measure::alloc::measure(1_000, || enc(1));
    let da = wirebench_measure::alloc::measure(1_000, || dec(1));
    CodecCost {
        format: f.id().into(),
        fields: n,
        bytes: bytes.len(),
        encode_ns,
        decode_ns,
        encode_allocs: ea.map(|a| a.allocs_per_op),
        encode_alloc_bytes: ea.map(|a| a.bytes_per_op),
        decode_allocs: da.map(|a| a.allocs_per_op),
        decode_alloc_bytes: da.map(|a| a.bytes_per_op),
    }
}

fn time_per_op(f: &mut dyn FnMut(u64)) -> wirebench_measure::speed::Estimate {
    wirebench_measure::speed::time_op(f, &wirebench_measure::speed::Plan::for_op(31, 1e6))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcua::FIELD_COUNTS;

    #[test]
    fn layout_explains_the_six_missing_bytes() {
        let l = layout(&FIELD_COUNTS);
        assert_eq!(l.header_bytes, 39);
        assert_eq!(l.formula, "39 + 5·N");
        assert_eq!(l.ours, vec![(1, 44), (3, 54), (5, 64), (10, 89)]);
        assert_eq!(l.difference, vec![(1, -6), (3, -6), (5, -6), (10, -6)]);
        assert!(l.explanation[0].contains("1 UADPFlags + 1 ExtendedFlags1 + 4 PublisherId length + 11 PublisherId text + 16 DataSetClassId + 1 PayloadHeader Count + 2 DataSetWriterId + 1 DataSetFlags1 + 2 FieldCount = 39"), "{}", l.explanation[0]);
        assert_eq!(l.parts.last().map(|p| p.offset), Some(37));
        // Only the field counts measured are compared.
        assert_eq!(layout(&[3]).difference, vec![(3, -6)]);
    }
}
