use super::*;
use wirebench_core::results::{Machine, Provenance};
use wirebench_core::sections::dds::{
    Check, DdsperfLatency, DdsperfThroughput, Failure, LatencyResult, MarshalBench, PeerReport, PooledSummary,
    Published, PublishedLatency, PublishedThroughput, Ratio, ThroughputResult,
};

fn results() -> Results {
    let prov = Provenance {
        wirebench_version: "0".into(),
        git_commit: "x".into(),
        rustc: "r".into(),
        crates: vec![],
        machine: Machine { cpu_model: "c".into(), cores: 2, kernel: "k".into(), os: "o".into(), arch: "a".into() },
        command: vec![],
        started_at: "t".into(),
        seed: 0,
    };
    let mut r = Results::new(prov, serde_json::json!({}));
    let lat = |m: Marshal, p50: f64| LatencyResult {
        domain: None,
        round: 1,
        size: 2048,
        marshal: m,
        instances: 1,
        samples: 100,
        iterations: 1,
        baggage_bytes: 2064,
        wire_bytes: 2076,
        round_trips: 100,
        retries: 0,
        half_rtt_us: PooledSummary {
            count: 100,
            avg: p50,
            stddev: 1.0,
            min: 1.0,
            p50,
            p90: p50 * 1.1,
            p99: p50 * 2.0,
            max: p50 * 3.0,
        },
        cdf: vec![(p50 * 0.5, 0.01), (p50, 0.5), (p50 * 3.0, 1.0)],
        allocs_per_sample: Some(2.0),
        alloc_bytes_per_sample: None,
        secs: 1.0,
        peer: PeerReport::default(),
    };
    let published_lat = |method: &str, v: [f64; 7]| PublishedLatency {
        table: "Latency Default".into(),
        method: method.into(),
        instances: 100,
        samples: 20,
        size: 2048,
        avg_ms: v[0],
        std_ms: v[1],
        min_ms: v[2],
        max_ms: v[3],
        p50_ms: v[4],
        p90_ms: v[5],
        p99_ms: v[6],
    };
    let published_thr = |method: &str, mean_ms: f64, mib_per_s: f64| PublishedThroughput {
        table: "Throughput Default".into(),
        method: method.into(),
        samples: 10000,
        size: 2048,
        mean_ms,
        ratio: 1.0,
        mib_per_s,
        allocated_bytes: 74,
    };
    let bench = |m: Marshal, bytes: usize, e: f64, d: f64| MarshalBench {
        size: 2048,
        marshal: m,
        bytes,
        encode_ns: e,
        decode_ns: d,
        encode_ns_range: (e, e),
        decode_ns_range: (d, d),
        encode_allocs: None,
        decode_allocs: None,
        encode_short: false,
        decode_short: false,
    };
    let check = |name: &str, ours: f64, ddsperf: f64, unit: &str, ratio: f64, limit: f64| Check {
        name: name.into(),
        round: 1,
        size: 2048,
        ours,
        ddsperf,
        unit: unit.into(),
        ratio,
        limit,
        pass: true,
    };
    let mut d = DdsSection {
        transport: "Cyclone DDS 0.10.2 <lo>".into(),
        latency: vec![lat(Marshal::Cdr, 20.0), lat(Marshal::Json, 60.0)],
        throughput: vec![ThroughputResult {
            domain: None,
            round: 1,
            size: 2048,
            marshal: Marshal::Cdr,
            batch: true,
            baggage_bytes: 2064,
            wire_bytes: 2076,
            sent: 10,
            received: 10,
            lost: 0,
            duplicated: 0,
            reordered: 0,
            secs: 1.0,
            samples_per_s: 100000.0,
            steady_samples_per_s: None,
            steady_ci95: None,
            mb_per_s: 204.8,
            wire_mb_per_s: 207.6,
            allocs_per_sample: Some(2.0),
            alloc_bytes_per_sample: None,
            stalled: false,
            peer: PeerReport::default(),
        }],
        ddsperf_latency: vec![DdsperfLatency {
            round: 1,
            size: 2060,
            windows_used: 3,
            round_trips: 1000,
            p50: 10.0,
            p90: 11.0,
            p99: 12.0,
            mean: 10.5,
            min: 9.0,
            max: 100.0,
            windows: vec![],
            payload: Some(2048),
        }],
        ddsperf_throughput: vec![DdsperfThroughput {
            round: 1,
            size: 2060,
            windows_used: 3,
            samples_per_s: 150000.0,
            mb_per_s: 309.0,
            min_samples_per_s: 150000.0,
            max_samples_per_s: 150000.0,
            total: 600000,
            lost: 0,
            windows: vec![],
            payload: Some(2048),
            payload_mb_per_s: Some(307.2),
            steady_samples_per_s: None,
        }],
        marshal: vec![bench(Marshal::Cdr, 2064, 100.0, 150.0), bench(Marshal::Json, 7400, 5000.0, 9000.0)],
        ratios: vec![Ratio {
            size: 2048,
            marshal_bytes: Some(3.6),
            marshal_encode: Some(50.0),
            marshal_decode: Some(60.0),
            marshal_round_trip: Some(56.0),
            latency_p50: Some(3.0),
            throughput: None,
        }],
        checks: vec![
            check("latency p50 within 2x of ddsperf at 2 KB", 20.0, 10.0, "us", 2.0, 2.0),
            check("throughput at least 0.5x of ddsperf at 2 KB", 100000.0, 150000.0, "samples/s", 0.67, 0.5),
        ],
        failures: vec![Failure {
            round: 1,
            what: "throughput".into(),
            size: 2048,
            marshal: Some(Marshal::Json),
            error: "timed out <x>".into(),
        }],
        published: Published {
            source: "seed <src>".into(),
            latency_ms: vec![
                published_lat(SEED_NATIVE, [0.0769, 0.0019, 0.0681, 0.0878, 0.0755, 0.0767, 0.0760]),
                published_lat(SEED_CDR, [0.0808, 0.0067, 0.075, 0.259, 0.082, 0.083, 0.080]),
                published_lat(SEED_JSON, [0.1956, 0.0081, 0.182, 0.307, 0.194, 0.203, 0.196]),
            ],
            throughput: vec![
                published_thr(SEED_NATIVE, 398.7, 48.988),
                published_thr(SEED_CDR, 408.8, 47.780),
                published_thr(SEED_JSON, 756.2, 25.826),
            ],
            notes: vec!["percentiles <not monotonic>".into()],
        },
        ..Default::default()
    };
    d.per_size = Some(wirebench_dds::figures::per_size(&d));
    r.dds = Some(d);
    r
}

#[test]
fn seed_rows_say_when_their_grid_differs_from_ours() {
    use wirebench_core::sections::dds::Case;
    let mut r = results();
    let case = |instances, samples| Case { instances, samples, sizes: vec![2048], ..Default::default() };
    r.dds.as_mut().unwrap().plan.cases = vec![case(100, 20)];
    let same = latency_table(r.dds.as_ref().unwrap()).unwrap().to_text_width(0);
    assert!(same.contains("seed CDR (published)") && !same.contains("grid"), "{same}");
    r.dds.as_mut().unwrap().plan.cases = vec![case(150, 30)];
    let other = latency_table(r.dds.as_ref().unwrap()).unwrap().to_text_width(0);
    assert!(other.contains("seed CDR (published, 100×20 grid; ours 150×30)"), "{other}");
}

#[test]
fn text_has_ours_ddsperf_and_the_seed_side_by_side() {
    let t = render(&results(), Output::Table);
    assert!(t.contains("DDS latency and throughput, CDR vs JSON (seed 004)"), "{t}");
    assert!(
        t.contains("ours CDR")
            && t.contains("ours JSON")
            && t.contains("ddsperf")
            && t.contains("seed native (published)"),
        "{t}"
    );
    // The seed's MiB/s converted to 10^6 B/s: 48.988 MiB/s = 51.4 MB/s.
    assert!(t.contains("51.4"), "{t}");
    // CDR / native: ours 20 / 10 = 2.00, seed 82 / 75.5 = 1.09.
    assert!(t.contains("2.00") && t.contains("1.09"), "{t}");
    // JSON / CDR latency of the seed: 194 / 82 = 2.37.
    assert!(t.contains("2.37"), "{t}");
    assert!(t.contains("pass") && !t.contains("FAIL"));
    assert!(t.contains("Failed runs") && t.contains("throughput 2 KB json (round 1): timed out <x>"), "{t}");
    let md = render(&results(), Output::Markdown);
    assert!(md.starts_with("## DDS latency") && md.contains("| size |"), "{md}");
}

#[test]
fn csv_has_one_record_per_run() {
    let c = render(&results(), Output::Csv);
    let lines: Vec<&str> = c.lines().collect();
    assert_eq!(lines.len(), 1 + 2 + 1 + 1 + 1 + 2, "{c}");
    assert!(c.contains("\nmarshal,,2048,json,7400,,,,,,,,,,,,5000,9000,,"), "{c}");
    assert!(lines[0].starts_with("kind,round,size,who"));
    assert!(c.contains("throughput,1,2048,ddsperf,2060,,,,,,,600000,150000,307.2,0,"), "{c}");
    assert!(c.contains("latency,1,2048,cdr,2076,20,1,20,22,40,60,100,,,,2,,,,"), "{c}");
    assert!(lines.iter().all(|l| l.split(',').count() == 20), "{c}");
}

#[test]
fn an_unreliable_marshalling_figure_is_marked() {
    let mut r = results();
    let d = r.dds.as_mut().unwrap();
    let text =
        |d: &DdsSection| (marshal_table(d).unwrap().to_text(), ratio_table(d).map(|t| t.to_text()).unwrap_or_default());
    let (m, q) = text(d);
    assert!(!m.contains("0!") && !q.contains('!'), "{m}{q}");
    d.marshal[0].encode_short = true;
    let (m, q) = text(d);
    assert_eq!(m.matches("!").count(), 2, "the title's key and the one figure: {m}");
    assert!(m.contains(&format!("{}!", fixed(d.marshal[0].encode_ns, 0))), "{m}");
    if !d.ratios.is_empty() {
        assert_eq!(q.matches('!').count(), 2, "encode and round trip: {q}");
    }
}

#[test]
fn csv_holds_the_marshalling_bench() {
    let mut r = results();
    let d = r.dds.as_mut().unwrap();
    (d.latency, d.throughput, d.ddsperf_latency, d.ddsperf_throughput) = (vec![], vec![], vec![], vec![]);
    d.marshal = vec![MarshalBench {
        bytes: 2060,
        decode_allocs: Some(1.0),
        decode_ns: 150.5,
        decode_ns_range: (140.0, 170.0),
        decode_short: false,
        encode_allocs: Some(0.0),
        encode_ns: 80.25,
        encode_ns_range: (75.0, 90.0),
        encode_short: false,
        marshal: Marshal::Cdr,
        size: 2048,
    }];
    let c = render(&r, Output::Csv);
    assert_eq!(c.lines().nth(1), Some("marshal,,2048,cdr,2060,,,,,,,,,,,,80.25,150.5,0,1"), "{c}");
}

#[test]
fn a_section_without_stored_figures_renders_the_same() {
    // Results files written before the figures per size were stored: completed on reading
    // (`wirebench report` calls `figures::complete`), then rendered the same.
    let with = results();
    let mut without = with.clone();
    let d = without.dds.as_mut().unwrap();
    d.per_size = None;
    for r in &mut d.ddsperf_throughput {
        (r.payload, r.payload_mb_per_s) = (None, None);
    }
    for r in &mut d.ddsperf_latency {
        r.payload = None;
    }
    wirebench_dds::figures::complete(d);
    for o in [Output::Table, Output::Markdown, Output::Csv] {
        assert_eq!(render(&with, o), render(&without, o));
    }
    let ctx = Ctx { id: "dds".into(), file: 1, files: 1 };
    assert_eq!(html_section(&with, &ctx).unwrap().body, html_section(&without, &ctx).unwrap().body);
    // The JSON output is the completed section.
    let json = render(&without, Output::Json);
    assert!(json.contains("per_size"), "{json}");
}

#[test]
fn non_finite_numbers_show_as_absent() {
    let mut r = results();
    let d = r.dds.as_mut().unwrap();
    d.ddsperf_latency[0].mean = f64::NAN;
    d.ddsperf_throughput[0].payload_mb_per_s = Some(f64::NAN);
    let c = render(&r, Output::Csv);
    assert!(c.contains("latency,1,2048,ddsperf,2060,,,10,"), "{c}");
    assert!(c.contains("throughput,1,2048,ddsperf,2060,,,,,,,600000,150000,,0,"), "{c}");
    let t = render(&r, Output::Table);
    assert!(!t.contains("NaN"), "{t}");
}

#[test]
fn html_section_is_self_contained_escaped_and_deterministic() {
    let r = results();
    let ctx = Ctx { id: "dds".into(), file: 1, files: 1 };
    let s = html_section(&r, &ctx).unwrap();
    assert_eq!(s.body, html_section(&r, &ctx).unwrap().body);
    let b = &s.body;
    assert!(
        b.contains("id=\"dds-latency\"") && b.contains("id=\"dds-throughput\"") && b.contains("id=\"dds-cdf-0\""),
        "{b}"
    );
    assert!(b.contains("seed native p50 (published)") && b.contains("ddsperf p50"));
    assert!(b.contains("&lt;lo&gt;") && b.contains("&lt;not monotonic&gt;"), "results text is escaped");
    assert!(!b.contains("<script") && !b.contains("http://") && !b.contains("https://"));
    assert!(s.summary.contains("2 latency and 1 throughput runs"), "{}", s.summary);
}

#[test]
fn markdown_has_every_heading_table_and_paragraph_of_the_page() {
    let r = results();
    let body = html_section(&r, &Ctx { id: "dds".into(), file: 1, files: 1 }).unwrap().body;
    let md = render(&r, Output::Markdown);
    let captions = crate::blocks::page_texts(&body, "<caption>");
    assert_eq!(captions.len(), 6, "checks, latency, throughput, marshalling, JSON ÷ CDR, CDR ÷ native: {body}");
    for t in captions.iter().chain(&crate::blocks::page_texts(&body, "<h3>")) {
        assert!(md.contains(&format!("### {t}\n")), "{t}\n{md}");
    }
    // Intro, key line, notes and list items: in Markdown too (titles there in bold).
    let plain = md.replace("**", "");
    let paragraphs = [
        crate::blocks::page_texts(&body, "<p class="),
        crate::blocks::page_texts(&body, "<p>"),
        crate::blocks::page_texts(&body, "<li>"),
    ]
    .concat();
    assert!(paragraphs.len() >= 7, "{paragraphs:?}");
    for p in &paragraphs {
        assert!(plain.contains(p), "{p}\n{md}");
    }
    // The terminal has the answer, not the prose; the page has the charts Markdown leaves out.
    let text = render(&r, Output::Table);
    assert!(text.contains("Must-hold checks against ddsperf: 2 of 2 pass."), "{text}");
    assert!(!text.contains("Apple M3") && !text.contains("ping-pong"), "{text}");
    assert!(md.contains("Apple M3") && md.contains("ping-pong") && !md.contains("<svg"), "{md}");
    assert_eq!(body.matches("<figure class=\"chart\">").count(), 4, "latency, throughput, 2 CDFs: {body}");
}

#[test]
fn nothing_without_the_section() {
    let mut r = results();
    r.dds = None;
    assert_eq!(render(&r, Output::Table), "");
    assert!(html_section(&r, &Ctx { id: "dds".into(), file: 1, files: 1 }).is_none());
}
