use super::*;
use serde_json::json;
use wirebench_core::results::Provenance;
use wirebench_core::sections::link::FailedFormat;
use wirebench_core::sections::net::{
    Bound, Burst, CollectorDelta, CpuUse, ErrorCounts, HarnessUse, LatencySummary, LinkUse, LoadMode, LoadReport,
    RttStats, Seed002Published, Seed002Row, Seed003Metric, Seed003Published, Shaper, Spread, TcpCodecRun, WorkloadInfo,
    WrkReport,
};

fn results() -> Results {
    Results::new(Provenance::default(), json!({}))
}

fn ours(body: f64, rps: f64, ceiling: f64, ratio: f64, per_thread: f64, bound: Bound, detail: &str) -> LoadReport {
    LoadReport {
        tool: "wirebench".into(),
        url: "http://10.250.0.2:8080/ingest".into(),
        content_type: "application/json".into(),
        mode: LoadMode::Closed,
        connections: 100,
        threads: 1,
        body_bytes: body,
        request_bytes: body + 102.0,
        duration_s: 3.0,
        requests: (rps * 3.0) as u64,
        requests_per_sec: rps,
        body_mb_per_sec: 0.0,
        request_mb_per_sec: 0.0,
        response_mb_per_sec: 0.0,
        errors: ErrorCounts::default(),
        latency: LatencySummary::default(),
        latency_with_timeouts: None,
        starved_connections: 0,
        send_lag: None,
        cpu: CpuUse { generator_cpu_s: per_thread * 3.0, wall_s: 3.0, cores: per_thread, per_thread },
        link: Some(LinkUse { rate_bps: 1_000_000, header_bytes: 102, ceiling_rps: ceiling, ratio }),
        bound,
        bound_detail: detail.into(),
        warnings: Vec::new(),
    }
}

fn seed(rate_bps: u64, rps: f64) -> Seed002Row {
    Seed002Row { rate_bps, format: "json".into(), requests_per_sec: rps, ..Default::default() }
}

fn http() -> HttpSection {
    let mut first = ours(1004.0, 104.0, 104.4, 0.996, 0.02, Bound::Link, "link-bound: 99.6 %");
    first.errors.read = 1;
    let run1 = HttpRun {
        link: "1mbit".into(),
        rate_bps: Some(1_000_000),
        path: "lab-tbf".into(),
        format: "json".into(),
        content_type: "application/json".into(),
        ours: first,
        harness: HarnessUse::default(),
        collector: Some(CollectorDelta { requests: 312, valid: 312, ..Default::default() }),
        wrk: Some(WrkReport { requests_per_sec: 103.0, ..Default::default() }),
        wrk_collector: None,
        wrk_ceiling_rps: Some(104.4),
        ours_vs_wrk: Some(1.01),
        seed: Some(seed(1_000_000, 25.1)),
        ours_vs_seed: Some(4.14),
        warnings: Vec::new(),
        emulator: None,
    };
    let run2 = HttpRun {
        link: "50mbit".into(),
        rate_bps: Some(50_000_000),
        ours: ours(1004.0, 5200.0, 5240.0, 0.992, 0.5, Bound::Link, "link-bound"),
        harness: HarnessUse {
            verdict: "harness-bound (our collector): this process used 1.95 of 2 cores".into(),
            ..Default::default()
        },
        collector: Some(CollectorDelta {
            requests: 15600,
            valid: 15600,
            first_error: Some("bad <body>".into()),
            ..Default::default()
        }),
        wrk: None,
        wrk_ceiling_rps: None,
        ours_vs_wrk: None,
        seed: Some(seed(50_000_000, 310.73)),
        ours_vs_seed: Some(16.7),
        ..run1.clone()
    };
    HttpSection {
        path: "lab-tbf".into(),
        notes: vec!["a note".into()],
        lab_id: None,
        burst: Burst::Sized,
        shaper: Shaper::Tbf,
        connections: 100,
        threads: 1,
        duration_s: 3.0,
        mode: LoadMode::Closed,
        validate: true,
        workload: WorkloadInfo { name: "ev-telemetry".into(), messages: 16 },
        runs: vec![run1, run2],
        failed: vec![FailedFormat { format: "avro".into(), error: "no".into() }],
        collector_total: None,
        published: Seed002Published {
            source: "seed 002".into(),
            rows: Vec::new(),
            notes: vec!["plateau is the generator".into()],
        },
    }
}

#[test]
fn http_text_and_html() {
    let mut r = results();
    r.http = Some(http());
    let t = render_http(&r, Output::Table);
    assert!(t.contains("HTTP POST throughput (lab-tbf path"), "{t}");
    assert!(t.contains("99.6 %") && t.contains("16.7×") && t.contains("310.7"), "{t}");
    assert!(t.contains("plateau is the generator") && t.contains("avro not run"), "{t}");
    assert!(t.contains("50mbit json: harness-bound (our collector): this process used 1.95 of 2 cores"), "{t}");
    assert!(t.contains("  link  ") && t.contains("  harness  "), "verdict column: {t}");
    let mut h = http();
    h.runs[0].harness.verdict = "host-bound: the machine was busy".into();
    let mut hr = results();
    hr.http = Some(h);
    assert!(render_http(&hr, Output::Table).contains("  host  "));
    let md = render_http(&r, Output::Markdown);
    assert!(md.starts_with("## HTTP throughput against link rate (seed 002)\n"), "{md}");
    assert!(md.contains("### HTTP POST throughput (lab-tbf path") && md.contains("| 1mbit | lab-tbf | json |"), "{md}");
    let csv = render_http(&r, Output::Csv);
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.starts_with("link,path,format,"));
    // The errors column is the sum of every kind.
    assert!(csv.lines().nth(1).unwrap().contains(",312,0,1,25.1,"), "{csv}");
    let ctx = Ctx { id: "http".into(), file: 1, files: 1 };
    let s = http_section(&r, &ctx).unwrap();
    assert!(s.body.contains("<svg") && s.body.contains("seed 002") && s.body.contains("99.2 %"), "{}", s.body);
    assert!(s.body.contains("harness-bound runs: 1</p>"), "{}", s.body);
    assert!(s.body.contains("bad &lt;body&gt;"), "escaped");
    // Deterministic.
    assert_eq!(s.body, http_section(&r, &ctx).unwrap().body);
    assert!(render_http(&results(), Output::Table).is_empty());
    assert!(http_section(&results(), &ctx).is_none());
    // The JSON output is the section as written.
    let j: serde_json::Value = serde_json::from_str(&render_http(&r, Output::Json)).unwrap();
    assert_eq!(j["runs"][0]["ours"]["mode"], "closed");
    assert_eq!(j["burst"], json!({"kind": "sized"}));
}

fn tcp_run(f: &str, link: &str, path: &str, bytes: f64, p50: f64) -> TcpRun {
    TcpRun::Codec(TcpCodecRun {
        link: link.into(),
        path: path.into(),
        rate_bps: None,
        format: f.into(),
        count: 3,
        codec: f.into(),
        media_type: "application/json".into(),
        cadence_ms: 50.0,
        bytes: Spread { mean: bytes, min: bytes, max: bytes },
        rtt: RttStats {
            n: 3,
            p50_us: p50,
            p90_us: p50 * 1.2,
            p99_us: p50 * 2.0,
            mean_us: p50,
            stddev_us: 10.0,
            ipdv_mean_us: 5.0,
            jitter_rfc3550_us: 4.0,
            ..Default::default()
        },
        encode_us: Spread { mean: 3.0, ..Default::default() },
        server_decode_us: Spread { mean: 2.0, ..Default::default() },
        client_decode_us: Spread { mean: 2.5, ..Default::default() },
        payload_bytes_per_sec: bytes * 20.0,
        decode_failures: 0,
        round_trip_exact: true,
        warnings: Vec::new(),
        rtt_samples_us: vec![p50, p50 + 1.0, p50 + 2.0],
        rtt_cdf_ms: wirebench_measure::stats::cdf_points(&[p50 / 1e3, (p50 + 1.0) / 1e3, (p50 + 2.0) / 1e3], 400),
        model_rtt_us: (path == "emulator").then_some(7456.0),
        server_decoded: 3,
        server_failed: 0,
        note: None,
    })
}

fn metric(platform: &str, json: f64, protobuf: f64) -> Seed003Metric {
    Seed003Metric { platform: platform.into(), metric: "size".into(), unit: "B".into(), json, protobuf }
}

fn tcp() -> TcpSection {
    TcpSection {
        cadence_ms: 50.0,
        delay_ms: 0.0,
        warmup: 10,
        workload: WorkloadInfo { name: "ev-telemetry".into(), messages: 64 },
        notes: Vec::new(),
        runs: vec![
            tcp_run("json", "loopback", "loopback", 1004.0, 160.0),
            tcp_run("protobuf", "loopback", "loopback", 280.0, 150.0),
            tcp_run("json", "1mbit", "emulator", 1004.0, 9200.0),
        ],
        failed: Vec::new(),
        skipped: Vec::new(),
        published: Seed003Published {
            source: "seed 003".into(),
            initial: Vec::new(),
            final_: vec![metric("windows", 995.16, 276.84), metric("am62x", 995.29, 276.74)],
            notes: vec!["throughput is size × 20".into()],
        },
    }
}

#[test]
fn tcp_text_and_html() {
    let s = tcp();
    let mut r = results();
    r.tcp = Some(s);
    let t = render_tcp(&r, Output::Table);
    assert!(t.contains("995.16") && t.contains("1004.00") && t.contains("0.28"), "{t}");
    assert!(t.contains("RTT p50 9200 µs vs serialization model 7456 µs (+23.4 %)"), "{t}");
    let ctx = Ctx { id: "tcp".into(), file: 1, files: 1 };
    let h = tcp_section(&r, &ctx).unwrap();
    assert_eq!(h.body.matches("<svg").count(), 4, "two CDFs, sizes, times");
    assert!(h.summary.contains("loopback, 1mbit"));
}

#[test]
fn tcp_echo_runs_render_without_codec_figures() {
    let echo: TcpRun = serde_json::from_value(json!({
        "link": "1mbit", "path": "emulator", "rate_bps": 1000000, "format": "echo-400B", "count": 5,
        "bytes": {"mean": 400, "min": 400, "max": 400},
        "rtt": {"n": 5, "mean_us": 7600.0, "stddev_us": 1.0, "min_us": 7500.0, "p50_us": 7600.0, "p90_us": 7700.0,
                "p99_us": 7800.0, "max_us": 7800.0, "jitter_rfc3550_us": 1.0, "ipdv_mean_us": 1.0},
        "model_rtt_us": 7456.0, "warnings": [], "media_type": "application/octet-stream"
    }))
    .unwrap();
    assert!(matches!(echo, TcpRun::Echo(_)));
    let s = TcpSection {
        cadence_ms: 50.0,
        delay_ms: 0.0,
        warmup: 1,
        workload: WorkloadInfo { name: "echo".into(), messages: 64 },
        notes: Vec::new(),
        runs: vec![echo],
        failed: Vec::new(),
        skipped: Vec::new(),
        published: Seed003Published::default(),
    };
    let t = tcp_table(&s);
    assert_eq!(t.rows[0][2], "400.0");
    assert_eq!(&t.rows[0][11..], ["-", "-", "-", "-"]);
    assert!(tcp_seed_table(&s).is_none());
    let mut r = results();
    r.tcp = Some(s);
    let ctx = Ctx { id: "tcp".into(), file: 1, files: 1 };
    assert!(!tcp_section(&r, &ctx).unwrap().body.contains("<svg"), "no samples, no codec times: no charts");
}

fn link() -> LinkSection {
    LinkSection {
        source: "raw sizes".into(),
        radios: vec!["lora-sf7".into()],
        protocols: vec!["raw".into()],
        spec_source: "spec §4".into(),
        rows: vec![LinkRow {
            radio: "lora-sf7".into(),
            protocol: "raw".into(),
            format: "12 B".into(),
            messages: 1,
            payload_bytes: 12.0,
            app_bytes: 12.0,
            frames: 1.0,
            bytes_on_air: 25.0,
            airtime_ms: 61.696,
            msgs_per_day: 14004.0,
            msgs_per_day_fair_use: Some(486.0),
            fits: true,
            note: "LoRaWAN".into(),
            spec_airtime_ms: Some(61.7),
            spec_deviation_pct: Some(-0.006),
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn link_text_and_html() {
    let s = link();
    let mut r = results();
    r.link = Some(s);
    let t = render_link(&r, Output::Table);
    assert!(t.contains("61.7") && t.contains("-0.01 %") && t.contains("14004"), "{t}");
    let ctx = Ctx { id: "link".into(), file: 1, files: 1 };
    let h = link_section(&r, &ctx).unwrap();
    assert!(h.body.contains("lora-sf7: messages per day"));
    let csv = render_link(&r, Output::Csv);
    assert!(csv.contains("spec_ms,deviation") && csv.contains(",-0.01\n"), "{csv}");
}

/// Every sub-heading and every table title of the page section is a `###` heading of the
/// Markdown; returns them.
fn page_headings_in_markdown(page: &Section, md: &str) -> Vec<String> {
    let heads: Vec<String> = crate::blocks::page_texts(&page.body, "<h3>")
        .into_iter()
        .chain(crate::blocks::page_texts(&page.body, "<caption>"))
        .collect();
    for h in &heads {
        assert!(md.contains(&format!("### {h}\n")), "{h:?} is on the page, not in Markdown:\n{md}");
    }
    heads
}

#[test]
fn http_markdown_carries_every_heading_table_and_note_of_the_page() {
    let mut r = results();
    r.http = Some(http());
    let ctx = Ctx { id: "http".into(), file: 1, files: 1 };
    let page = http_section(&r, &ctx).unwrap();
    let md = render_http(&r, Output::Markdown);
    let heads = page_headings_in_markdown(&page, &md);
    assert_eq!(
        heads,
        [
            "What carries over from the seed, and what does not",
            "HTTP POST throughput (lab-tbf path, 100 connections, 3.0 s per run, every body decoded and validated)"
        ]
    );
    assert_eq!(page.title, "HTTP throughput against link rate (seed 002)");
    assert_eq!(page.summary, "http: 2 runs on the lab-tbf path");
    assert!(page.body.contains("id=\"http-throughput") && page.body.contains("id=\"http-ceiling"), "{}", page.body);
    // The page's introduction, key line, notes and the study's caveats are in Markdown too.
    for needle in [
            "POSTed over HTTP/1.1 keep-alive by our load generator (100 connections, 3.0 s per run)",
            "Path: lab-tbf.",
            "**Link runs: 2 · ours at 99.2 %–99.6 % of the link ceiling · harness-bound runs: 1**",
            "**Seed 002 beside ours (seed 002)**\n\n- plateau is the generator\n",
            "- 50mbit json: collector rejected a body: bad <body>\n",
            "### What carries over from the seed, and what does not\n\n- Carries over: at link-bound rates, smaller bodies give proportionally more requests per second",
            "From docs/studies/seed002-http-bandwidth.md (the study's page; the same text).",
        ] {
            assert!(md.contains(needle), "{needle}\n{md}");
        }
    for needle in [
        "<p class=\"keyline\">Link runs: 2 · ours at 99.2 %–99.6 % of the link ceiling · harness-bound runs: 1</p>",
        "<h3>What carries over from the seed, and what does not</h3>\n<p class=\"intro\">- Carries over: at link-bound",
        "<div class=\"warn\"><p><b>Warnings</b></p>",
    ] {
        assert!(page.body.contains(needle), "{needle}\n{}", page.body);
    }
    assert!(!md.contains("<svg") && !md.contains("Both axes logarithmic"), "no charts in Markdown");
    // The terminal keeps the key line and the pointer to the study, not the prose.
    let t = render_http(&r, Output::Table);
    assert!(t.starts_with("HTTP throughput against link rate (seed 002)\n\nLink runs: 2 · "), "{t}");
    assert!(t.contains("From docs/studies/seed002-http-bandwidth.md"), "{t}");
    assert!(!t.contains("POSTed over") && !t.contains("Carries over:"), "{t}");
}

#[test]
fn tcp_markdown_carries_every_heading_table_and_note_of_the_page() {
    let mut r = results();
    r.tcp = Some(tcp());
    let ctx = Ctx { id: "tcp".into(), file: 1, files: 1 };
    let page = tcp_section(&r, &ctx).unwrap();
    let md = render_tcp(&r, Output::Markdown);
    let heads = page_headings_in_markdown(&page, &md);
    assert_eq!(
        heads,
        [
            "Seed 003 beside ours",
            "What the seed's figures can and cannot say",
            "TCP request/response (ev-telemetry, one message every 50.0 ms; µs unless stated)",
            "Seed 003 (final benchmark) beside ours on loopback",
        ]
    );
    assert_eq!(page.title, "TCP request/response at a fixed cadence (seed 003)");
    for id in ["tcp-cdf1", "tcp-cdf2", "tcp-bytes", "tcp-codec"] {
        assert!(page.body.contains(&format!("id=\"{id}")), "{id}");
    }
    for needle in [
        "One ev-telemetry message every 50.0 ms over a TCP_NODELAY connection",
        "Compare the PB/JSON ratios, not absolute µs.",
        "- \"Throughput\" is the offered load: 995 B × 20 messages/s = 19.4 KiB/s",
        "From docs/studies/seed003-ev-telemetry.md (the study's page; the same text).",
        "- 1mbit json: RTT p50 9200 µs vs serialization model 7456 µs (+23.4 %)",
        "- throughput is size × 20",
    ] {
        assert!(md.contains(needle), "{needle}\n{md}");
    }
    assert!(!md.contains("**\"Throughput"), "bold marks of the study page dropped: {md}");
    assert!(page.body.contains("RTT distribution per link: the share of messages"), "{}", page.body);
    let t = render_tcp(&r, Output::Table);
    assert!(t.contains("Seed 003 beside ours\n\nSeed 003 (final benchmark) beside ours on loopback\n"), "{t}");
    assert!(!t.contains("TCP_NODELAY") && !t.contains("offered load"), "{t}");
    // Another workload: no seed table, no study caveats, the note says why.
    let mut other = tcp();
    other.workload.name = "samples".into();
    r.tcp = Some(other);
    let page = tcp_section(&r, &ctx).unwrap();
    let md = render_tcp(&r, Output::Markdown);
    assert_eq!(page_headings_in_markdown(&page, &md).len(), 1, "{md}");
    assert!(md.contains("so they are not set beside it") && !md.contains("Seed 003 beside ours"), "{md}");
}

#[test]
fn link_markdown_carries_every_heading_table_and_note_of_the_page() {
    let mut r = results();
    r.link = Some(link());
    let ctx = Ctx { id: "link".into(), file: 1, files: 1 };
    let page = link_section(&r, &ctx).unwrap();
    let md = render_link(&r, Output::Markdown);
    let heads = page_headings_in_markdown(&page, &md);
    assert_eq!(heads, ["Bytes on air, airtime and messages per day (raw sizes)"]);
    assert_eq!(page.title, "Link models: airtime and messages per day");
    assert_eq!(page.summary, "link: 1 radios × 1 protocols × 1 formats");
    assert!(page.body.contains("id=\"link-air1") && page.body.contains("One chart per link"), "{}", page.body);
    for needle in [
        "What one message (raw sizes) costs on constrained links",
        "sent as several (application fragmentation), which the airtime includes.",
        "**Models**\n\n- lora-sf7: LoRaWAN\n",
        "**Reference**\n\n- LoRa rows with a raw payload the spec lists are compared with spec §4\n",
    ] {
        assert!(md.contains(needle), "{needle}\n{md}");
    }
    assert!(!md.contains("One chart per link"), "the charts' note is the page's: {md}");
    let t = render_link(&r, Output::Table);
    assert!(t.starts_with("Link models: airtime and messages per day\n\nBytes on air"), "{t}");
    assert!(t.contains("application fragmentation") && !t.contains("analytic models"), "{t}");
}
