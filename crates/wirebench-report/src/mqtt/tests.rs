use super::*;
use serde_json::json;
use wirebench_core::results::Provenance;
use wirebench_core::sections::mqtt::{
    CodecCost, ComparisonRow, Figure, LatencyStats, Layout, LayoutPart, MeanMinMax, MessageSize, Published,
    PublishedFootprint, PublishedMemory, PublishedRtt, PublishedSize, PublishedSizes, PublishedThroughput, RttRow,
    RttSide, ThroughputRow, ThroughputSide,
};

fn throughput_side(rate: f64) -> ThroughputSide {
    ThroughputSide {
        msgs_per_s: Some(rate),
        msgs_per_s_ci95: Some((rate * 0.9, rate * 1.1)),
        publisher_msgs_per_s: Some(rate),
        publisher_msgs_per_s_ci95: Some((rate * 0.8, rate * 1.2)),
        mb_per_s: Some(1.0),
        mb_per_s_ci95: Some((0.9, 1.1)),
        per_rep_msgs_per_s: vec![rate],
        scheduled: Some(100),
        sent: 100,
        acked: Some(100),
        unacked: Some(0),
        received: 99,
        lost: 1,
        duplicates: Some(0),
        reordered: Some(0),
        delivery_ratio: 0.99,
        failure: None,
        ended_by: vec![EndReason::Complete],
        allocs_per_msg: Some(3.5),
        harness_cores_max: 0.2,
        harness_bound: false,
        errors: vec![],
        warnings: vec![],
    }
}

fn rtt_side(p50: f64) -> RttSide {
    RttSide {
        rtt: LatencyStats {
            count: 3,
            p50_us: p50,
            p90_us: p50 * 1.2,
            p99_us: p50 * 2.0,
            p999_us: p50 * 2.0,
            max_us: p50 * 3.0,
            mean_us: p50,
            ..LatencyStats::default()
        },
        per_rep_p50_us: vec![p50],
        sent: 100,
        received: 99,
        lost: 1,
        late: 0,
        delivery_ratio: 0.99,
        failure: None,
        ended_by: vec![EndReason::Complete],
        cdf: vec![(p50 * 0.5, 0.0), (p50, 50.0), (p50 * 3.0, 100.0)],
        stall: None,
        errors: vec![],
        warnings: vec![],
    }
}

fn size(format: &str, fields: usize, bytes: usize, round_trip: bool) -> MessageSize {
    MessageSize { format: format.into(), fields, bytes, round_trip, hex: None }
}

fn published() -> Published {
    let mmm = MeanMinMax { mean: 120.0, min: 70.0, max: 220.0 };
    let fp = PublishedFootprint { ram_bytes: 1424, wire_bytes: 472 };
    Published {
        citation: "F. Braz, thesis".into(),
        sizes: PublishedSizes {
            source: "§1".into(),
            rows: vec![
                PublishedSize { fields: 1, json_bytes: 209, uadp_bytes: 38 },
                PublishedSize { fields: 3, json_bytes: 341, uadp_bytes: 48 },
            ],
        },
        throughput: PublishedThroughput {
            source: "§2".into(),
            messages: 50,
            fields: 3,
            json_msgs_per_s: 126.9,
            uadp_msgs_per_s: 299.4,
            json_bytes: 370,
            uadp_bytes: 54,
            delivery: 1.0,
        },
        rtt: PublishedRtt { source: "§3".into(), samples: 30, json_ms: mmm.clone(), uadp_ms: mmm },
        memory: PublishedMemory { source: "§4".into(), fields: 5, json: fp.clone(), uadp: fp },
    }
}

fn results() -> Results {
    let mut r = Results::new(Provenance::default(), json!({}));
    let mut s = MqttSection::new();
    s.sizes = vec![
        size("uadp", 1, 44, true),
        size("uadp", 3, 54, true),
        size("uadp-json", 1, 180, true),
        size("uadp-json", 3, 260, false),
    ];
    s.layout = Some(Layout {
        parts: vec![LayoutPart { part: "UADPFlags".into(), bytes: 1, offset: 0, note: "0xD1".into() }],
        header_bytes: 39,
        per_field_bytes: 5,
        formula: "39 + 5·N".into(),
        ours: vec![],
        thesis: vec![],
        difference: vec![],
        explanation: vec!["1 UADPFlags + … = 39 <b>".into()],
    });
    s.codec = vec![CodecCost {
        format: "uadp".into(),
        fields: 3,
        bytes: 54,
        encode_ns: 120.4,
        decode_ns: 200.0,
        encode_allocs: Some(1.0),
        encode_alloc_bytes: Some(64.0),
        decode_allocs: Some(6.0),
        decode_alloc_bytes: Some(300.0),
    }];
    s.throughput = vec![ThroughputRow {
        broker: "rumqttd 0.20 (embedded)".into(),
        drain_s: Some(2.0),
        payload: "uadp, 3 fields".into(),
        format: "uadp".into(),
        fields: Some(3),
        payload_bytes: 54,
        mqtt_payload_bytes: 62,
        qos: 1,
        messages: 100,
        min_run_s: Some(0.5),
        reps: 6,
        run_s: Some(0.52),
        ci_target: Some(0.05),
        ci_met: Some(false),
        ours: throughput_side(9000.0),
        bare: Some(throughput_side(10000.0)),
        ratio: Some(0.9),
        ratio_ci95: Some((0.85, 0.95)),
        ratio_min: Some(0.9),
        ratio_max: Some(0.9),
        goal: 0.8,
        meets_goal: Some(true),
    }];
    s.rtt = vec![RttRow {
        broker: "mosquitto 2.0.11".into(),
        payload: "uadp, 3 fields".into(),
        format: "uadp".into(),
        fields: Some(3),
        payload_bytes: 54,
        qos: 0,
        mode: "closed-loop".into(),
        messages: 3,
        warmup: 0,
        reps: 1,
        ours: rtt_side(150.0),
        bare: Some(rtt_side(140.0)),
        ratio: Some(1.07),
        goal: 1.5,
        meets_goal: Some(true),
    }];
    s.published = Some(published());
    s.comparison = vec![ComparisonRow {
        what: "UADP size, 1 field".into(),
        unit: "B".into(),
        thesis: Figure::Count(38),
        ours: Some(Figure::Count(44)),
        ours_ci95: None,
        source: "§1".into(),
        note: "6 short".into(),
    }];
    s.notes = vec!["a note".into()];
    r.mqtt = Some(s);
    r
}

#[test]
fn text_tables_show_sizes_thesis_and_ratios() {
    let r = results();
    let t = render(&r, Output::Table);
    assert!(t.starts_with("OPC UA PubSub over MQTT (seed 000)\n"), "{t}");
    assert!(t.contains("\nuadp                      44    54\n"), "{t}");
    assert!(t.contains("\nthesis UADP (published)   38    48\n"), "{t}");
    assert!(t.contains("260!"), "a size that did not round-trip is marked: {t}");
    assert!(t.contains("! did not decode back to the message encoded"), "and the mark explained: {t}");
    // Every size round-tripped: no mark, no legend.
    let mut clean = results();
    clean.mqtt.as_mut().unwrap().sizes.iter_mut().for_each(|r| r.round_trip = true);
    let t = render(&clean, Output::Table);
    assert!(!t.contains("260!") && !t.contains("did not decode back"), "{t}");
    assert!(t.contains("9000") && t.contains("10000") && t.contains("0.90") && t.contains("99.0 %"), "{t}");
    // Every throughput figure with its 95 % interval, and what the intervals are.
    assert!(
        t.contains("100×6")
            && t.contains("0.52")
            && t.contains("8100–9900")
            && t.contains("9000–11000")
            && t.contains("0.85–0.95"),
        "{t}"
    );
    assert!(t.contains("\n95 % CI: order statistics of the repetitions"), "{t}");
    assert!(t.contains("150.0") && t.contains("140.0") && t.contains("1.07"), "{t}");
    assert!(t.contains("Why not 38/48/58/83"), "{t}");
    assert!(
            t.contains("\nPublished figures: printed in F. Braz, thesis (ESP32 over Wi-Fi), not measured here; ours (this host): this results file.\n"),
            "{t}"
        );
    assert!(
            t.contains("\nUADP with the thesis's header options: 44 / 54 B (39 + 5·N) · the thesis printed 38 / 48 B — 6 bytes short of the layout it states (see below)\n\nNetworkMessage size"),
            "the key line, then the sizes: {t}"
        );
    assert!(!t.contains("built by our uadp crate"), "the introduction is not on the terminal: {t}");
    let md = render(&r, Output::Markdown);
    assert!(
            md.starts_with("## OPC UA PubSub over MQTT (seed 000)\n\nOPC UA PubSub NetworkMessages (UADP binary and the JSON mapping) built by our uadp crate"),
            "{md}"
        );
    assert!(md.contains("**UADP with the thesis's header options: 44 / 54 B (39 + 5·N) · the thesis printed 38 / 48 B — 6 bytes short of the layout it states (see below)**\n\n### NetworkMessage size"), "{md}");
    assert!(md.contains("| uadp | 44 | 54 |"), "{md}");
    assert!(md.contains("| UADP size, 1 field | B | 38 | 44 | - | 6 short |"), "{md}");
    assert!(md.contains("|\n\n95 % CI: order statistics"), "the note is a paragraph after the table: {md}");
    // The thesis's transport figures, beside ours in words.
    assert!(
            md.contains("\nThe thesis's 126.9 (JSON) and 299.4 (UADP) msgs/s were an ESP32 over Wi-Fi and are not comparable with a PC on loopback.\n"),
            "{md}"
        );
    assert!(
            md.contains("\nThe thesis reports 120.0 ms (JSON) and 120.0 ms (UADP) mean RTT over 30 samples: an ESP32 on Wi-Fi. On loopback a round trip is well under a millisecond;"),
            "{md}"
        );
    // Parts that are absent (a throughput-only run) are left out.
    let mut only = results();
    only.mqtt.as_mut().unwrap().layout = None;
    only.mqtt.as_mut().unwrap().published = None;
    let t = render(&only, Output::Table);
    assert!(!t.contains("Seed layout") && !t.contains("thesis UADP"), "{t}");
    assert!(
        !t.contains("Why 38 / 48")
            && !t.contains("Published figures")
            && !t.contains("The thesis reports")
            && !t.contains("The thesis's"),
        "{t}"
    );
    assert!(t.contains("\nOn loopback a round trip is well under a millisecond;"), "{t}");
    // A side that has no rate (none of its runs finished) shows "-".
    let mut none = results();
    none.mqtt.as_mut().unwrap().throughput[0].bare.as_mut().unwrap().msgs_per_s = None;
    let t = render(&none, Output::Table);
    let row = t.lines().find(|l| l.starts_with("rumqttd")).unwrap();
    let cells: Vec<&str> = row.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(
        &cells[5..16],
        ["0.52", "9000", "8100–9900", "99.0 %", "1", "0", "0", "0", "-", "9000–11000", "99.0 %"],
        "{t}"
    );
    // No section: nothing.
    let empty = Results::new(Provenance::default(), json!({}));
    assert_eq!(render(&empty, Output::Table), "");
    assert!(html_section(&empty, &Ctx { id: "mqtt".into(), file: 1, files: 1 }).is_none());
}

#[test]
fn json_is_the_section_as_written() {
    let r = results();
    let j = render(&r, Output::Json);
    let back: MqttSection = serde_json::from_str(&j).unwrap();
    assert_eq!(&back, r.mqtt.as_ref().unwrap());
    assert!(j.starts_with("{\n  \"brokers\": [],\n  \"codec\": ["), "{j}");
    assert!(j.ends_with("  \"version\": 1\n}\n"), "{j}");
    // An interval that does not exist is left out (as in files written before them).
    assert!(j.contains("\"ours\": 44,\n      \"source\": \"§1\",\n      \"thesis\": 38,"), "{j}");
    assert!(j.contains("\"msgs_per_s_ci95\": [\n          8100.0,\n          9900.0\n        ],"), "{j}");
    // A file written before the intervals reads: their keys absent are None.
    let mut v: serde_json::Value = serde_json::from_str(&j).unwrap();
    let row = &mut v["throughput"][0];
    for k in ["ci_met", "ci_target", "min_run_s", "ratio_ci95", "run_s"] {
        row.as_object_mut().unwrap().remove(k);
    }
    for side in ["ours", "bare"] {
        for k in ["msgs_per_s_ci95", "mb_per_s_ci95", "publisher_msgs_per_s_ci95"] {
            row[side].as_object_mut().unwrap().remove(k);
        }
    }
    v["comparison"][0].as_object_mut().unwrap().remove("ours_ci95");
    let old: MqttSection = serde_json::from_value(v).unwrap();
    assert_eq!(
        (old.throughput[0].ratio_ci95, old.throughput[0].ours.msgs_per_s_ci95, old.comparison[0].ours_ci95),
        (None, None, None)
    );
    assert!(render(&Results { mqtt: Some(old), ..r.clone() }, Output::Table).contains("  -  "));
}

#[test]
fn csv_is_long_form() {
    let c = render(&results(), Output::Csv);
    let mut lines = c.lines();
    assert_eq!(lines.next(), Some("table,broker,payload,format,fields,qos,side,metric,value"));
    assert!(c.contains("sizes,,,uadp,3,,ours,bytes,54\n"), "{c}");
    assert!(c.contains("sizes,,,uadp,1,,thesis,bytes,38\n"), "{c}");
    assert!(c.contains("codec,,,uadp,3,,ours,encode_ns,120.4\n"), "{c}");
    assert!(
        c.contains("throughput,rumqttd 0.20 (embedded),\"uadp, 3 fields\",uadp,3,1,bare,msgs_per_s,10000\n"),
        "{c}"
    );
    assert!(
        c.contains(",uadp,3,1,bare,msgs_per_s_ci95_lo,9000\n")
            && c.contains(",uadp,3,1,bare,msgs_per_s_ci95_hi,11000\n"),
        "{c}"
    );
    assert!(
        c.contains(",uadp,3,1,ours,publisher_msgs_per_s_ci95_hi,10800\n")
            && c.contains(",uadp,3,1,ours,mb_per_s_ci95_lo,0.9\n"),
        "{c}"
    );
    assert!(
        c.contains(",uadp,3,1,ratio,ours_over_bare_ci95_lo,0.85\n") && c.contains(",uadp,3,1,case,run_s,0.52\n"),
        "{c}"
    );
    assert!(c.contains("rtt,mosquitto 2.0.11,\"uadp, 3 fields\",uadp,3,0,ours,count,3\n"), "{c}");
    assert!(c.contains("rtt,mosquitto 2.0.11,\"uadp, 3 fields\",uadp,3,0,ratio,p50_ours_over_bare,1.07\n"), "{c}");
}

#[test]
fn html_section_is_self_contained_escaped_and_deterministic() {
    let r = results();
    let ctx = Ctx { id: "mqtt".into(), file: 1, files: 1 };
    let s = html_section(&r, &ctx).unwrap();
    let again = html_section(&r, &ctx).unwrap();
    assert_eq!(s.body, again.body);
    assert!(s.summary.contains("1 throughput case"), "{}", s.summary);
    let b = &s.body;
    assert!(
        b.contains("id=\"mqtt-uadp-size\"")
            && b.contains("id=\"mqtt-throughput\"")
            && b.contains("id=\"mqtt-rtt-cdf-0\"")
    );
    assert!(b.contains("thesis UADP (published)"));
    assert!(b.contains("Why 38 / 48 / 58 / 83 bytes cannot be right"));
    assert!(b.contains("&lt;b&gt;"), "results text is escaped");
    assert!(!b.contains("<script") && !b.contains("http://") && !b.contains("https://"));
    assert!(
            b.contains("<p class=\"keyline\">UADP with the thesis&#39;s header options: 44 / 54 B (39 + 5·N) · the thesis printed 38 / 48 B — 6 bytes short of the layout it states (see below)</p>"),
            "{b}"
        );
    assert!(
        b.contains("class=\"num bad\" title=\"did not decode back to the message encoded\">260!</td>")
            && b.contains("<span class=\"mark\">!</span> did not decode back to the message encoded"),
        "a size that did not round-trip is set apart and its mark explained: {b}"
    );
    assert!(b.contains("Published figures: printed in F. Braz, thesis (ESP32 over Wi-Fi)"), "{b}");
    assert!(b.contains(">rumqttd · uadp 3f · QoS 1<"), "short chart labels: {b}");
    // Errors and warnings are shown, each in its own list.
    let mut bad = results();
    let m = bad.mqtt.as_mut().unwrap();
    m.throughput[0].ours.errors = vec!["publisher connection: connection reset by peer".into()];
    m.rtt[0].bare.as_mut().unwrap().warnings = vec!["harness-bound".into()];
    let b = html_section(&bad, &ctx).unwrap().body;
    assert!(b.contains("<div class=\"warn\"><p><b>Errors</b></p>\n<ul class=\"notes\">\n<li>throughput rumqttd 0.20 (embedded) · uadp, 3 fields · QoS 1 · ours: publisher connection: connection reset by peer</li>"), "{b}");
    assert!(
            b.contains("<div class=\"warn\"><p><b>1 run warning (harness- or machine-bound runs, stalls)</b></p>\n<ul class=\"notes\">\n<li>rtt mosquitto 2.0.11 · uadp, 3 fields · QoS 0 · bare: harness-bound</li>"),
            "{b}"
        );
    // The terminal and Markdown list both too.
    let t = render(&bad, Output::Table);
    assert!(
        t.contains(
            "\nErrors\n  throughput rumqttd 0.20 (embedded) · uadp, 3 fields · QoS 1 · ours: publisher connection"
        ),
        "{t}"
    );
    assert!(t.contains("1 run warning (harness- or machine-bound runs, stalls)\n  rtt mosquitto 2.0.11 · uadp, 3 fields · QoS 0 · bare: harness-bound"), "{t}");
    let md = render(&bad, Output::Markdown);
    assert!(md.contains("**Errors**\n\n- throughput rumqttd"), "{md}");
    assert!(
            md.contains("**1 run warning (harness- or machine-bound runs, stalls)**\n\n- rtt mosquitto 2.0.11 · uadp, 3 fields · QoS 0 · bare: harness-bound"),
            "{md}"
        );
    // The whole page renders with it.
    let view =
        crate::View { key: "mqtt", has: |r| r.mqtt.is_some(), text: render, csv: csv_tables, html: html_section };
    let page = crate::html::render(&[&r], "t", &[view]);
    assert!(page.contains("<section id=\"mqtt\">"));
}
#[test]
fn markdown_has_every_subheading_and_table_of_the_page() {
    let mut r = results();
    let m = r.mqtt.as_mut().unwrap();
    m.throughput[0].ours.errors = vec!["publisher connection: reset".into()];
    m.rtt[0].ours.warnings = vec!["harness-bound".into()];
    let ctx = Ctx { id: "mqtt".into(), file: 1, files: 1 };
    let page = html_section(&r, &ctx).unwrap();
    let md = render(&r, Output::Markdown);
    let (h3, captions) =
        (crate::blocks::page_texts(&page.body, "<h3>"), crate::blocks::page_texts(&page.body, "<caption>"));
    assert_eq!(
        h3,
        [
            "Why 38 / 48 / 58 / 83 bytes cannot be right",
            "Encoding cost per message",
            "Throughput with delivery",
            "Echo round trip",
            "The thesis beside ours"
        ]
    );
    assert_eq!(captions.len(), 6, "{captions:?}");
    for title in h3.iter().chain(&captions) {
        assert!(md.contains(&format!("\n### {title}\n")), "{title}\n{md}");
    }
    assert_eq!(page.title, "OPC UA PubSub over MQTT (seed 000)");
    assert_eq!(page.summary, "mqtt: sizes of 2 formats, 1 throughput case, 1 RTT case");
    // The page's charts are not in Markdown; their figures are in its tables.
    assert!(!md.contains("<svg") && !md.contains("Whiskers"), "{md}");
}

#[test]
fn delivery_is_all_repetitions_with_the_worst_beside_it() {
    // Six repetitions of 20,000: one dropped 6,226 (68.9 %), the others none.
    let mut side = throughput_side(1000.0);
    side.scheduled = Some(120_000);
    side.sent = 120_000;
    side.received = 120_000 - 6_226;
    side.delivery_ratio = (20_000.0 - 6_226.0) / 20_000.0;
    assert_eq!(delivery(&side), "94.8 % (worst 68.9 %)");
    // Every repetition alike: one figure.
    let even = throughput_side(1000.0);
    assert_eq!(delivery(&even), "99.0 %");
    // A broker that died after half the schedule: delivery is of the schedule, not of the sent.
    let mut half = throughput_side(1000.0);
    half.scheduled = Some(200);
    half.delivery_ratio = 0.495;
    assert_eq!(delivery(&half), "49.5 %");
    // Files without `scheduled`: of what was sent.
    half.scheduled = None;
    assert_eq!(delivery(&half), "99.0 % (worst 49.5 %)");
    let mut r = results();
    r.mqtt.as_mut().unwrap().throughput[0].ours = side;
    let t = throughput_table(r.mqtt.as_ref().unwrap()).unwrap();
    let col = t.headers.iter().position(|h| h == "ours delivered of scheduled: all reps (worst)").unwrap();
    assert_eq!(t.rows[0][col], "94.8 % (worst 68.9 %)");
}
