//! The thesis beside ours: its published figures as data, and the comparison rows and notes
//! that put them beside our measurements.

use wirebench_core::published::seed000 as thesis;
use wirebench_core::sections::mqtt::{
    ComparisonRow, MeanMinMax, MqttSection, Published, PublishedFootprint, PublishedMemory, PublishedRtt,
    PublishedSize, PublishedSizes, PublishedThroughput, ThroughputRow,
};

use super::common::{ci95, median_of};

/// The thesis's published figures, as data with their citation.
pub fn published() -> Published {
    let mmm = |(mean, min, max): (f64, f64, f64)| MeanMinMax { mean, min, max };
    let footprint = |(ram_bytes, wire_bytes): (u64, u64)| PublishedFootprint { ram_bytes, wire_bytes };
    Published {
        citation: thesis::CITATION.into(),
        sizes: PublishedSizes {
            source: thesis::SIZES_SOURCE.into(),
            rows: thesis::SIZES
                .iter()
                .map(|&(fields, json_bytes, uadp_bytes)| PublishedSize { fields, json_bytes, uadp_bytes })
                .collect(),
        },
        throughput: PublishedThroughput {
            source: thesis::THROUGHPUT_SOURCE.into(),
            messages: thesis::THROUGHPUT_MESSAGES,
            fields: thesis::THROUGHPUT_FIELDS,
            json_msgs_per_s: thesis::THROUGHPUT_JSON_MSGS_PER_S,
            uadp_msgs_per_s: thesis::THROUGHPUT_UADP_MSGS_PER_S,
            json_bytes: thesis::THROUGHPUT_JSON_BYTES,
            uadp_bytes: thesis::THROUGHPUT_UADP_BYTES,
            delivery: thesis::THROUGHPUT_DELIVERY,
        },
        rtt: PublishedRtt {
            source: thesis::RTT_SOURCE.into(),
            samples: thesis::RTT_SAMPLES,
            json_ms: mmm(thesis::RTT_JSON_MS),
            uadp_ms: mmm(thesis::RTT_UADP_MS),
        },
        memory: PublishedMemory {
            source: thesis::MEMORY_SOURCE.into(),
            fields: 5,
            json: footprint(thesis::MEMORY_JSON),
            uadp: footprint(thesis::MEMORY_UADP),
        },
    }
}

/// A ratio: its median, its 95 % interval, and how it was taken.
type PairedRatio = (f64, Option<(f64, f64)>, String);

/// UADP ÷ JSON msgs/s from paired runs: the i-th repetitions of the two cases ran in the same
/// round, next to each other, in alternating order (A B B A …). The median of the per-round
/// ratios, its 95 % interval (order statistics) and a sentence saying how it was taken and
/// what it shows.
fn paired_ratio(uadp: &[f64], json: &[f64], run_s: Option<f64>) -> Option<PairedRatio> {
    let ratios: Vec<f64> = uadp.iter().zip(json).filter(|(_, j)| **j > 0.0).map(|(u, j)| u / j).collect();
    let m = median_of(&ratios)?;
    let ci = ci95(&ratios);
    let how = format!(
        "median of {} per-round ratios (the UADP and JSON runs of a round ran next to each other, order alternating A B B A …{})",
        ratios.len(),
        run_s.map_or(String::new(), |s| format!("; a run lasted about {s:.2} s"))
    );
    let says = match ci {
        Some((lo, hi)) if lo > 1.0 || hi < 1.0 => format!("95 % CI {lo:.2}–{hi:.2}: a difference this run shows"),
        Some((lo, hi)) => format!("95 % CI {lo:.2}–{hi:.2} includes 1: no difference this run shows"),
        None => format!("no 95 % interval: {} pairs (6 are needed)", ratios.len()),
    };
    Some((m, ci, format!("{how}; {says}.")))
}

/// Rows "what · thesis · ours · note" for the side-by-side table.
pub(super) fn comparison(s: &MqttSection) -> Vec<ComparisonRow> {
    let mut rows = Vec::new();
    let row = |what: String, unit: &str, thesis: f64, ours: Option<f64>, source: &str, note: String| ComparisonRow {
        what,
        unit: unit.into(),
        thesis: thesis.into(),
        ours: ours.map(Into::into),
        ours_ci95: None,
        source: source.into(),
        note,
    };
    // Sizes are counts: written as integers.
    let count_row = |what: String, thesis: u64, ours: Option<usize>, source: &str, note: &str| ComparisonRow {
        what,
        unit: "B".into(),
        thesis: thesis.into(),
        ours: ours.map(Into::into),
        ours_ci95: None,
        source: source.into(),
        note: note.into(),
    };
    let size = |f: &str, n: usize| s.sizes.iter().find(|r| r.format == f && r.fields == n).map(|r| r.bytes);
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    for &(n, j, u) in &thesis::SIZES {
        rows.push(count_row(
            format!("UADP size, {n} field{}", plural(n)),
            u,
            size("uadp", n),
            thesis::SIZES_SOURCE,
            "ours = 39 + 5N with the stated layout; the thesis's figure is 6 B short (see the layout note)",
        ));
        rows.push(count_row(
            format!("JSON size, {n} field{}", plural(n)),
            j,
            size("uadp-json-dv", n),
            thesis::SIZES_SOURCE,
            "ours = uadp-json-dv (the thesis's JSON shape); MessageId, field names and value text are not given in the thesis, so sizes differ",
        ));
    }
    rows.push(count_row(
        "UADP bytes/message, 3 fields (throughput table)".into(),
        thesis::THROUGHPUT_UADP_BYTES,
        size("uadp", 3),
        thesis::THROUGHPUT_SOURCE,
        "agrees with 39 + 5·3 (and not with the size table's 48)",
    ));
    rows.push(count_row(
        "JSON bytes/message, 3 fields (throughput table)".into(),
        thesis::THROUGHPUT_JSON_BYTES,
        size("uadp-json-dv", 3),
        thesis::THROUGHPUT_SOURCE,
        "ours = uadp-json-dv",
    ));
    // Throughput: the first broker that measured uadp and uadp-json-dv at 3 fields, QoS 0.
    let thr = |f: &str| {
        s.throughput.iter().find(|r| r.format == f && r.fields == Some(thesis::THROUGHPUT_FIELDS) && r.qos == 0)
    };
    let ci_text = |ci: Option<(f64, f64)>, reps: usize| match ci {
        Some((lo, hi)) => format!("95 % CI {lo:.0}–{hi:.0} (median of {reps} repetitions, order statistics)"),
        None => format!("no 95 % interval ({reps} repetitions; 6 are needed)"),
    };
    let run = |r: &ThroughputRow| match r.run_s {
        Some(s) => format!("{} messages × {} reps of about {s:.2} s", r.messages, r.reps),
        None => format!("{} messages × {} reps", r.messages, r.reps),
    };
    if let Some(r) = thr("uadp") {
        rows.push(ComparisonRow {
            ours_ci95: r.ours.msgs_per_s_ci95,
            ..row(
                format!("UADP msgs/s, 3 fields ({}, QoS 0)", r.broker),
                "msgs/s",
                thesis::THROUGHPUT_UADP_MSGS_PER_S,
                r.ours.msgs_per_s,
                thesis::THROUGHPUT_SOURCE,
                format!(
                    "thesis: ESP32 → Wi-Fi → Mosquitto, 50 messages; ours: loopback, {}; {}; delivery {:.1} %",
                    run(r),
                    ci_text(r.ours.msgs_per_s_ci95, r.reps),
                    100.0 * r.ours.delivery_ratio
                ),
            )
        });
    }
    if let Some(r) = thr("uadp-json-dv") {
        rows.push(ComparisonRow {
            ours_ci95: r.ours.msgs_per_s_ci95,
            ..row(
                format!("JSON msgs/s, 3 fields ({}, QoS 0)", r.broker),
                "msgs/s",
                thesis::THROUGHPUT_JSON_MSGS_PER_S,
                r.ours.msgs_per_s,
                thesis::THROUGHPUT_SOURCE,
                format!(
                    "{}; {}; delivery {:.1} %",
                    run(r),
                    ci_text(r.ours.msgs_per_s_ci95, r.reps),
                    100.0 * r.ours.delivery_ratio
                ),
            )
        });
    }
    if let (Some(ru), Some(rj)) = (thr("uadp"), thr("uadp-json-dv")) {
        let run_s = median_of(&[ru.run_s, rj.run_s].into_iter().flatten().collect::<Vec<_>>());
        if let Some((m, ci, how)) = paired_ratio(&ru.ours.per_rep_msgs_per_s, &rj.ours.per_rep_msgs_per_s, run_s) {
            rows.push(ComparisonRow {
                ours_ci95: ci,
                ..row(
                    "UADP / JSON msgs/s, 3 fields".into(),
                    "×",
                    thesis::THROUGHPUT_UADP_MSGS_PER_S / thesis::THROUGHPUT_JSON_MSGS_PER_S,
                    Some(m),
                    thesis::THROUGHPUT_SOURCE,
                    format!(
                        "on a PC the encoding costs little next to the broker; on the ESP32 it dominated. Ours: {how}"
                    ),
                )
            });
        }
    }
    let rtt = |f: &str| s.rtt.iter().find(|r| r.format == f && r.qos == 0);
    for (f, what, t) in [("uadp", "UADP", thesis::RTT_UADP_MS), ("uadp-json-dv", "JSON", thesis::RTT_JSON_MS)] {
        if let Some(r) = rtt(f) {
            rows.push(row(
                format!("{what} echo RTT mean ({}, QoS 0)", r.broker),
                "ms",
                t.0,
                Some(r.ours.rtt.mean_us / 1e3),
                thesis::RTT_SOURCE,
                format!(
                    "thesis: 30 samples over Wi-Fi; ours: {} samples on loopback (p50 {:.3} ms, max {:.3} ms)",
                    r.ours.rtt.count,
                    r.ours.rtt.p50_us / 1e3,
                    r.ours.rtt.max_us / 1e3
                ),
            ));
        }
    }
    let enc = |f: &str| s.codec.iter().find(|r| r.format == f && r.fields == 5);
    for (f, what, t) in [("uadp", "UADP", thesis::MEMORY_UADP), ("uadp-json-dv", "JSON", thesis::MEMORY_JSON)] {
        if let Some(r) = enc(f) {
            rows.push(ComparisonRow {
                what: format!("{what} encode memory, 5 fields"),
                unit: "B".into(),
                thesis: t.0.into(),
                ours: r.encode_alloc_bytes.map(Into::into),
                ours_ci95: None,
                source: thesis::MEMORY_SOURCE.into(),
                note: format!(
                    "thesis: MicroPython heap; ours: bytes requested per encode in Rust ({} allocations)",
                    r.encode_allocs.map_or("-".into(), |a| format!("{a:.1}"))
                ),
            });
        }
    }
    rows
}

/// What the figures are and how they were taken, and the brokers that were not measured.
pub(super) fn notes(s: &MqttSection) -> Vec<String> {
    let mut out = vec![
        "Sizes are NetworkMessage bytes (the thesis's MQTT payload). Our transport runs put an 8-byte sequence header in front of each payload for delivery accounting; the bare rumqttc pair sends the same number of bytes.".to_string(),
        "Throughput: one publisher and one subscriber, msgs/s at the subscriber (distinct messages received / time to the last one), median of the repetitions with its 95 % confidence interval from order statistics (distribution-free; [min, max] of 6–8 repetitions, narrower from 9); ours and the bare rumqttc pair through the same broker (goal: ours ≥ 80 % of bare).".into(),
        "Pairing: all throughput cases (of every broker) run in rounds of one repetition each, ours and bare of a case back to back, the order reversed every other round (A B B A …); the ratios ours/bare and UADP/JSON are medians of the per-round ratios of such paired runs, with their 95 % intervals. A case with a minimum duration first runs each side once, not counted, to set its message count.".into(),
        "RTT: closed-loop echo (pinger → broker → echo client → broker → pinger), percentiles from a pooled HDR histogram of every repetition (goal: ours p50 ≤ 1.5 × bare). TCP_NODELAY is set on every socket we own; modes near 40/44/88 ms would be flagged as Nagle/delayed-ACK stalls.".into(),
        "The thesis measured an ESP32 over Wi-Fi; this study runs on one PC over loopback. Sizes are comparable; rates and times are not, and are shown beside each other for context only.".into(),
    ];
    for b in &s.brokers {
        if let Some(why) = &b.skipped {
            out.push(format!("{} was not measured: {why}", b.name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_ratio_says_whether_its_interval_includes_one() {
        // Six rounds: the ratios are 0.9, 1.0, 1.1, 1.0, 0.95, 1.05 → median 1.0, CI [0.9, 1.1].
        let u = [90.0, 100.0, 110.0, 100.0, 95.0, 105.0];
        let j = [100.0; 6];
        let (m, ci, note) = paired_ratio(&u, &j, Some(0.61)).unwrap();
        assert_eq!((m, ci), (1.0, Some((0.9, 1.1))));
        assert!(note.contains("median of 6 per-round ratios") && note.contains("about 0.61 s"), "{note}");
        assert!(note.ends_with("95 % CI 0.90–1.10 includes 1: no difference this run shows."), "{note}");
        let (m, ci, note) = paired_ratio(&[300.0; 6], &[100.0, 120.0, 150.0, 100.0, 120.0, 150.0], None).unwrap();
        assert_eq!((m, ci), (2.5, Some((2.0, 3.0))));
        assert!(note.ends_with("95 % CI 2.00–3.00: a difference this run shows."), "{note}");
        // Three pairs give no 95 % interval, and say so; no pairs, no row.
        let (_, ci, note) = paired_ratio(&[1.0, 2.0, 3.0], &[1.0, 1.0, 1.0], None).unwrap();
        assert_eq!(ci, None);
        assert!(note.ends_with("no 95 % interval: 3 pairs (6 are needed)."), "{note}");
        assert!(paired_ratio(&[], &[1.0], None).is_none());
    }
}
