//! The HTML report: well-formed, one `<svg>` per chart, escaped, deterministic, self-contained.

use wirebench_core::fidelity::Fidelity;
use wirebench_core::published::PSON_PAPER_ESP32;
use wirebench_core::results::{
    HostReference, Machine, Provenance, Results, RunStats, SizeAggregate, SizeRow, SizeSection, SpeedCase,
    SpeedSection, Summary, TimerInfo,
};
use wirebench_report::html::{self, generic_section};
use wirebench_report::svg::{self, BarChart, Bars, Line, LineChart};
use wirebench_report::table::Table;

/// The page with the frame's sections, size and speed (the study runner's order).
fn page_of(results: &[&Results], title: &str) -> String {
    let views = [
        wirebench_report::FRAME[0],
        wirebench_report::FRAME[1],
        wirebench_report::View {
            key: "size",
            has: |r| r.size.is_some(),
            text: wirebench_report::size::render,
            csv: wirebench_report::size::csv_tables,
            html: html::size_section,
        },
        wirebench_report::View {
            key: "speed",
            has: |r| r.speed.is_some(),
            text: wirebench_report::speed::render,
            csv: wirebench_report::speed::csv_tables,
            html: html::speed_section,
        },
    ];
    html::render(results, title, &views)
}

const EVIL: &str = "<script>alert(\"x\")</script>";

fn provenance(command: &str) -> Provenance {
    Provenance {
        wirebench_version: "0.1.0".into(),
        git_commit: "0123456789abcdef0123456789abcdef01234567-dirty".into(),
        rustc: "rustc 1.95.0".into(),
        crates: vec![("serde_json".into(), "1.0.0".into()), ("<evil>".into(), "1 & 2".into())],
        machine: Machine {
            cpu_model: "Test CPU @ 3 GHz".into(),
            cores: 2,
            kernel: "6.1.0".into(),
            os: "linux".into(),
            arch: "x86_64".into(),
        },
        command: command.split(' ').map(String::from).collect(),
        started_at: "2026-01-02T03:04:05Z".into(),
        seed: 7,
    }
}

fn size_results(payloads: &[&str], note: &str) -> Results {
    let codecs = ["json", "pson", "a&b"];
    let mut rows = Vec::new();
    for (pi, p) in payloads.iter().enumerate() {
        let json = 40 + 10 * pi as u64;
        for (ci, c) in codecs.iter().enumerate() {
            let bytes = json - 5 * ci as u64;
            let fidelity = match (pi, ci) {
                (0, 1) => Fidelity::Lossy { losses: vec![note.to_string()] },
                (1, 2) => Fidelity::Unsupported { reason: "no <root> here".into() },
                _ => Fidelity::Exact,
            };
            rows.push(SizeRow {
                payload: p.to_string(),
                codec: c.to_string(),
                path: "dynamic".into(),
                bytes: (!matches!(fidelity, Fidelity::Unsupported { .. })).then_some(bytes),
                json_bytes: json,
                ratio_to_json: Some(bytes as f64 / json as f64),
                zstd_bytes: Some(bytes + 9),
                deflate_bytes: Some(bytes + 5),
                fidelity,
            });
        }
    }
    let aggregates = codecs
        .iter()
        .map(|c| {
            let mut a = SizeAggregate::new(c);
            rows.iter().filter(|r| r.codec == *c).for_each(|r| a.add(r));
            a
        })
        .collect();
    let mut r = Results::new(
        provenance("wirebench size --out r.json"),
        serde_json::json!({"zstd_level": 3, "deflate_level": 6}),
    );
    r.size = Some(SizeSection {
        roundtrip_new_classes: None,
        held_out: None,
        corpus: "test-corpus".into(),
        schema: None,
        rows,
        aggregates,
        run: RunStats {
            records: payloads.len() as u64,
            input_bytes: 1000,
            seconds: 0.5,
            records_per_second: 20.0,
            input_mib_per_second: 0.1,
            peak_rss_kib: Some(4096),
            cpu_seconds: None,
        },
        zstd_level: Some(3),
        deflate_level: Some(6),
    });
    r
}

fn summary(median: f64) -> Summary {
    Summary {
        n: 20,
        median,
        mean: median * 1.01,
        stddev: median * 0.05,
        mad: median * 0.03,
        min: median * 0.9,
        max: median * 1.2,
        median_ci95: (median * 0.95, median * 1.07),
        outliers: Default::default(),
    }
}

fn speed_results(corpus: &str, payloads: &[&str], codecs: &[&str]) -> Results {
    let mut cases = Vec::new();
    for (pi, p) in payloads.iter().enumerate() {
        for (ci, c) in codecs.iter().enumerate() {
            for (oi, op) in ["encode", "decode"].iter().enumerate() {
                let base = 100.0 * (pi + 1) as f64 * (1.0 + oi as f64);
                let median = base * (0.5 + ci as f64 * 0.75);
                cases.push(SpeedCase {
                    payload: p.to_string(),
                    codec: c.to_string(),
                    op: op.to_string(),
                    path: "typed".into(),
                    buffer: if oi == 0 { "reused".into() } else { "n/a".into() },
                    bytes: 50 + 10 * pi,
                    iters_per_sample: 1000,
                    ns_per_op: summary(median),
                    samples_ns: vec![median; 3],
                    ratio_to_baseline: Some(median / base / 0.5),
                    ratio_ci95: Some((median / base / 0.5 * 0.9, median / base / 0.5 * 1.1)),
                    allocs_per_op: Some(ci as f64),
                    alloc_bytes_per_op: Some(ci as f64 * 64.0),
                    instructions_per_op: None,
                    warnings: if pi == 0 && ci == 1 { vec!["noisy: <spread> 25%".into()] } else { vec![] },
                    short: false,
                    calibration: None,
                });
            }
        }
    }
    let mut r =
        Results::new(provenance("wirebench speed --samples-per-case 20"), serde_json::json!({"samples_per_case": 20}));
    r.speed = Some(SpeedSection {
        corpus: corpus.into(),
        baseline: codecs[0].into(),
        timer: TimerInfo { precision_ns: 20.0, now_overhead_ns: 30.0, harness_overhead_ns_per_op: 0.3 },
        samples: 20,
        target_sample_ns: 500_000.0,
        warmup_ms: 20.0,
        seed: 1,
        cases,
        warnings: vec!["3 of 4 cases are noisy & the machine is busy".into()],
        host_reference: Some(HostReference {
            workload: "fixed integer work".into(),
            iters_per_sample: 1000,
            ns_per_op: summary(531.4),
            samples_ns: vec![531.4; 20],
        }),
        instructions: false,
        per_codec: Vec::new(),
        seed001: Vec::new(),
    });
    wirebench_measure::speed_summary::complete(r.speed.as_mut().unwrap());
    r
}

fn paper_payloads() -> Vec<&'static str> {
    PSON_PAPER_ESP32.payloads.to_vec()
}

/// A small HTML checker: every `<` opens a well-formed tag, start and end tags balance
/// (void elements and `/>` excepted), attribute quotes pair up, and every `&` starts an entity.
fn check_well_formed(html: &str) -> Result<(), String> {
    const VOID: &[&str] = &["meta", "br", "hr", "img", "input", "link", "col", "wbr", "source"];
    let mut stack: Vec<String> = Vec::new();
    let b = html.as_bytes();
    let mut i = 0;
    let line = |pos: usize| html[..pos].matches('\n').count() + 1;
    while i < b.len() {
        match b[i] {
            b'<' => {
                if html[i..].starts_with("<!DOCTYPE") {
                    i += html[i..].find('>').ok_or("unterminated doctype")? + 1;
                    continue;
                }
                if html[i..].starts_with("<!--") {
                    i += html[i..].find("-->").ok_or("unterminated comment")? + 3;
                    continue;
                }
                let end = i + html[i..].find('>').ok_or_else(|| format!("line {}: unterminated tag", line(i)))?;
                let inner = &html[i + 1..end];
                if inner.contains('<') {
                    return Err(format!("line {}: '<' inside a tag: {inner:.80}", line(i)));
                }
                let closing = inner.starts_with('/');
                let body = inner.trim_start_matches('/');
                let name: String = body.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
                if name.is_empty() || !name.chars().next().unwrap().is_ascii_alphabetic() {
                    return Err(format!("line {}: stray '<' (unescaped text?): {:.60}", line(i), &html[i..]));
                }
                if !body.matches('"').count().is_multiple_of(2) {
                    return Err(format!("line {}: unbalanced quotes in <{inner:.80}>", line(i)));
                }
                let self_closing = body.ends_with('/');
                if closing {
                    match stack.pop() {
                        Some(open) if open == name => {}
                        other => return Err(format!("line {}: </{name}> closes {other:?}", line(i))),
                    }
                } else if !self_closing && !VOID.contains(&name.as_str()) {
                    stack.push(name);
                }
                i = end + 1;
            }
            b'&' => {
                let rest = &html[i + 1..];
                let semi = rest.find(';').filter(|n| *n <= 10).ok_or_else(|| format!("line {}: bare '&'", line(i)))?;
                let ent = &rest[..semi];
                let ok = (ent.starts_with('#') && ent[1..].chars().all(|c| c.is_ascii_digit()) && ent.len() > 1)
                    || (!ent.is_empty() && ent.chars().all(|c| c.is_ascii_alphanumeric()));
                if !ok {
                    return Err(format!("line {}: bad entity &{ent};", line(i)));
                }
                i += 1;
            }
            b'>' if stack.last().is_none_or(|t| t != "style") => {
                return Err(format!("line {}: bare '>' outside <style>", line(i)));
            }
            _ => i += 1,
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed elements: {stack:?}"));
    }
    Ok(())
}

fn full_page() -> (Results, Results, String) {
    let size = size_results(&paper_payloads(), "$.data[1]: float64 rounded to float32");
    let speed = speed_results("pson-paper", &paper_payloads(), &["json", "pson", "msgpack", "protobuf"]);
    let page = page_of(&[&size, &speed], "wirebench <test> & report");
    (size, speed, page)
}

#[test]
fn the_checker_catches_bad_html() {
    assert!(check_well_formed("<div><p>x</p></div>").is_ok());
    assert!(check_well_formed("<div><p>x</div></p>").is_err());
    assert!(check_well_formed("<div>a < b</div>").is_err());
    assert!(check_well_formed("<div>a & b</div>").is_err());
    assert!(check_well_formed("<div title=\"x>y</div>").is_err());
    assert!(check_well_formed("<div>").is_err());
    assert!(check_well_formed("<svg><rect/><g><title>a &amp; b</title></g></svg><br>").is_ok());
}

#[test]
fn the_page_is_well_formed() {
    let (_, _, page) = full_page();
    assert!(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    assert!(page.ends_with("</html>\n"));
    check_well_formed(&page).unwrap();
    assert!(page.contains("<title>wirebench &lt;test&gt; &amp; report</title>"));
    // Header: provenance summary.
    for needle in [
        "0.1.0",
        "0123456789ab",
        "uncommitted changes",
        "Test CPU @ 3 GHz",
        "linux 6.1.0",
        "2026-01-02T03:04:05Z",
        "<code><span class=\"arg\">wirebench</span> <span class=\"arg\">size</span> <span class=\"arg\">--out</span> <span class=\"arg\">r.json</span></code>",
    ] {
        assert!(page.contains(needle), "header lacks {needle}");
    }
    // Both sections, linked from the header.
    assert!(page.contains("<section id=\"size\">") && page.contains("href=\"#size\""));
    assert!(page.contains("<section id=\"speed\">") && page.contains("href=\"#speed\""));
    // Element ids are unique.
    let mut ids: Vec<&str> = page.split(" id=\"").skip(1).map(|s| &s[..s.find('"').unwrap()]).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate element ids");
}

#[test]
fn every_chart_is_one_svg_with_a_title() {
    let (_, _, page) = full_page();
    let figures: Vec<&str> =
        page.split("<figure class=\"chart\">").skip(1).map(|f| &f[..f.find("</figure>").unwrap()]).collect();
    // Size: totals, ratio, 10 payloads. Speed: 2 geometric means, 2 with CI, 2 ratios,
    // 10 per-payload ratios, 2 allocation charts, 2 seed 001 charts.
    assert_eq!(figures.len(), 12 + 20, "charts");
    assert_eq!(page.matches("<svg").count(), figures.len());
    for f in &figures {
        assert_eq!(f.matches("<svg").count(), 1);
        let svg = &f[f.find("<svg").unwrap()..];
        let open = &svg[..svg.find('>').unwrap()];
        assert!(open.contains(" viewBox=\"0 0 "), "{open}");
        assert!(open.contains(" role=\"img\"") && open.contains(" aria-label=\""), "{open}");
        assert!(svg[open.len() + 1..].starts_with("<title>"), "{open}");
        assert!(svg.contains("<text"), "labels");
    }
    // Error whiskers in the one-payload and the ratio charts.
    assert!(page.contains("95% CI"));
    // The speed section picks the largest payload for the charts with intervals.
    assert!(page.contains("One payload with 95 % confidence intervals: Test10"));
    // The tables are there too.
    assert!(page.contains("<caption>Encoded size (bytes)</caption>"));
    assert!(page.contains("<caption>encode: median ns per operation</caption>"));
    assert!(page.contains("<td class=\"num lossy\" title=\"lossy: $.data[1]: float64 rounded to float32\">"));
    // Warnings are listed.
    assert!(page.contains("3 of 4 cases are noisy &amp; the machine is busy"));
    assert!(page.contains("to tell a slower host from slower code): 531 ns per operation."));
    assert!(page.contains("noisy: &lt;spread&gt; 25%"));
}

#[test]
fn text_from_the_results_is_escaped() {
    let mut size = size_results(&[EVIL, "plain"], "lost <b>bold</b> & more");
    size.size.as_mut().unwrap().corpus = EVIL.into();
    let mut speed = speed_results(EVIL, &[EVIL, "other"], &["json", EVIL]);
    speed.provenance.machine.cpu_model = EVIL.into();
    speed.config = serde_json::json!({ "note": EVIL });
    let page = page_of(&[&size, &speed], EVIL);
    check_well_formed(&page).unwrap();
    assert!(!page.to_ascii_lowercase().contains("<script"), "raw script tag in the page");
    assert!(!page.contains("<b>bold</b>"));
    assert!(page.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"));
    assert!(page.contains("lost &lt;b&gt;bold&lt;/b&gt; &amp; more"));
    assert!(page.contains("a&amp;b"));
}

#[test]
fn rendering_is_deterministic() {
    let (size, speed, page) = full_page();
    assert_eq!(page_of(&[&size, &speed], "wirebench <test> & report"), page);
    // Through JSON and back (as read from files): the same bytes.
    let back = |r: &Results| -> Results { serde_json::from_str(&serde_json::to_string(r).unwrap()).unwrap() };
    let (size2, speed2) = (back(&size), back(&speed));
    assert_eq!(page_of(&[&size2, &speed2], "wirebench <test> & report"), page);
    // No clock: the only date is the one in the results.
    assert_eq!(page.matches("2026-").count(), page.matches("2026-01-02T03:04:05Z").count());
}

#[test]
fn the_page_loads_nothing_from_outside() {
    let url_note = "see https://example.com/a?b=1 and http://x.test";
    let size = size_results(&paper_payloads(), url_note);
    let speed = speed_results("pson-paper", &paper_payloads(), &["json", "pson"]);
    let page = page_of(&[&size, &speed], "report");
    check_well_formed(&page).unwrap();
    let escaped = svg::esc(url_note);
    assert!(page.contains(&escaped));
    let rest = page.replace(&escaped, "");
    assert!(!rest.contains("http://") && !rest.contains("https://"), "a URL not from the results");
    for bad in ["<script", " src=", "<link", "@import", "<iframe", "<object", "<img"] {
        assert!(!rest.contains(bad), "{bad}");
    }
    for href in rest.split("href=\"").skip(1) {
        assert!(href.starts_with('#'), "external link: {:.40}", href);
    }
    for url in rest.split("url(").skip(1) {
        assert!(url.starts_with('#'), "external url(): {:.40}", url);
    }
    // And without any URL in the results there is none at all.
    let plain = page_of(&[&size_results(&["a"], "x"), &speed], "report");
    assert!(!plain.contains("http://") && !plain.contains("https://"));
}

#[test]
fn published_figures_are_marked_for_the_pson_paper_corpus() {
    let (_, _, page) = full_page();
    assert!(page.contains("Seed 001"));
    assert!(page.matches("published (ESP32)").count() >= 3, "legend in both charts and the note");
    assert!(page.contains("ours (this host)"));
    assert!(page.contains(&svg::esc(PSON_PAPER_ESP32.note)));
    assert!(page.contains(&svg::esc(PSON_PAPER_ESP32.source)));
    assert!(page.contains("patternTransform"), "published bars are hatched");
    // Codecs the paper has but the run did not measure are named.
    assert!(page.contains("Not measured in this run: bson, xml"));
    // Another corpus: no published figures.
    let other = speed_results("my-corpus", &["p1", "p2"], &["json", "pson"]);
    let page = page_of(&[&other], "report");
    check_well_formed(&page).unwrap();
    assert!(!page.contains("published (ESP32)") && !page.contains("Seed 001"));

    // The size section of the paper's corpus: the paper's size claims beside ours, and the list
    // of what cannot be reproduced, from docs/studies (the one source for both).
    let mut sized = size_results(&["Test01", "Test02"], "x");
    sized.size.as_mut().unwrap().corpus = "pson-paper".into();
    let page = page_of(&[&sized], "report");
    check_well_formed(&page).unwrap();
    assert!(
        page.contains("The paper&#39;s size claims beside ours")
            || page.contains("The paper's size claims beside ours"),
        "claims table"
    );
    assert!(page.contains("66.3 B") && page.contains("0.85 × JSON"));
    assert!(page.contains("Where the paper cannot be reproduced, or is ambiguous"));
    assert!(page.contains("From docs/studies/seed001-pson-paper.md"));
    let other = page_of(&[&size_results(&["a"], "x")], "report");
    assert!(!other.contains("Where the paper cannot be reproduced"));
}

#[test]
fn sparse_and_partial_results_render() {
    // A codec missing for one payload, an aggregates-only size run, no results at all.
    let mut speed = speed_results("c", &["p1", "p2"], &["json", "pson", "cbor"]);
    speed.speed.as_mut().unwrap().cases.retain(|c| !(c.payload == "p2" && c.codec == "cbor"));
    let mut size = size_results(&["p1", "p2"], "x");
    size.size.as_mut().unwrap().rows.clear();
    let page = page_of(&[&size, &speed], "partial");
    check_well_formed(&page).unwrap();
    assert!(page.contains("n/a"), "a missing bar is labelled");
    assert!(!page.contains("NaN") && !page.contains(">inf") && !page.contains("\"inf"));
    assert!(page.contains("(first of 1 not exact)"));
    let empty = page_of(&[], "nothing");
    check_well_formed(&empty).unwrap();
    assert!(empty.contains("no measurement"));
    // Two files with the same section: numbered, ids stay unique.
    let a = speed_results("c", &["p1"], &["json", "pson"]);
    let page = page_of(&[&a, &a], "twice");
    check_well_formed(&page).unwrap();
    assert!(page.contains("<section id=\"speed-1\">") && page.contains("<section id=\"speed-2\">"));
    assert!(page.contains("Speed: c (file 2)"));
}

#[test]
fn a_short_case_is_marked_beside_its_figure() {
    let mut r = speed_results("c", &["p1", "p2"], &["json", "pson"]);
    let s = r.speed.as_mut().unwrap();
    let c = s.cases.iter_mut().find(|c| c.payload == "p2" && c.codec == "pson" && c.op == "encode").unwrap();
    c.short = true;
    let median = wirebench_report::speed::ns(c.ns_per_op.median);
    let t = &wirebench_report::speed::matrices(r.speed.as_ref().unwrap(), "encode")[0];
    let text = t.to_text();
    let row = text.lines().find(|l| l.trim_start().starts_with("p2")).unwrap();
    assert!(row.contains(&format!("{median}!")), "{text}");
    assert_eq!(text.matches('!').count(), 1, "{text}");
    let out = wirebench_report::speed::render(&r, wirebench_report::Output::Table);
    assert!(out.contains("1 case(s) ran short samples"), "{out}");
    let page = page_of(&[&r], "short");
    check_well_formed(&page).unwrap();
    assert!(page.contains(&format!("{median}!")));
}

#[test]
fn unknown_sections_fall_back_to_json() {
    let v = serde_json::json!({"latency_us": [1, 2, 3], "note": EVIL});
    let s = generic_section("mqtt", &v);
    assert_eq!(s.title, "Section: mqtt");
    check_well_formed(&s.body).unwrap();
    assert!(s.body.contains("<details>") && s.body.contains("<pre>"));
    assert!(s.body.contains("&quot;latency_us&quot;"));
    assert!(!s.body.contains("<script"));
}

#[test]
fn tables_render_as_html_tables() {
    let mut t = Table::new("T <1>", &["name", "bytes"]).numeric_from(1);
    t.push(vec!["a|<b>".into(), "5".into()]);
    let h = html::table(&t);
    check_well_formed(&h).unwrap();
    assert!(h.contains("<caption>T &lt;1&gt;</caption>"));
    assert!(h.contains("<th scope=\"col\" class=\"num\">bytes</th>"));
    assert!(h.contains("<th scope=\"row\">a|&lt;b&gt;</th><td class=\"num\">5</td>"));
}

#[test]
fn chart_primitives_are_well_formed() {
    let bars = BarChart::new("b", "Bars <x>", vec!["a".into(), "b".into(), "c".into()])
        .series(Bars::new("one", vec![Some(1.0), None, Some(1000.0)]).errors(vec![Some((0.5, 2.0)), None, None]))
        .series(Bars::new("two", vec![Some(0.0), Some(5.0), Some(50.0)]).hatched(true))
        .log(true)
        .axis_label("value")
        .reference(10.0, "ten")
        .render();
    check_well_formed(&bars).unwrap();
    assert!(bars.starts_with("<svg id=\"b\"") && bars.contains("viewBox=\"0 0 800 "));
    assert!(bars.contains(">value (log scale)<"));
    assert!(bars.contains("<title>Bars &lt;x&gt;</title>"));
    assert!(bars.contains("url(#b-h1)"), "hatched series uses its pattern");
    assert!(bars.contains(">n/a<"), "missing value");
    assert!(bars.contains(">1000<") && bars.contains(">100<"), "log ticks");

    let line = LineChart::new("l", "Latency", "messages/s", "p99 µs")
        .line(Line::new("qos0", vec![(100.0, 50.0), (1000.0, 80.0), (10000.0, 400.0)]).markers(true))
        .line(Line::new("qos1", vec![(100.0, 90.0), (1000.0, 150.0)]).dashed(true))
        .log_x(true)
        .render();
    check_well_formed(&line).unwrap();
    assert!(line.contains("messages/s (log scale)") && line.contains("p99 µs") && line.contains("qos1"));
    assert!(line.contains("stroke-dasharray"));

    let samples: Vec<f64> = (1..=5000).map(|i| (i as f64).sqrt()).collect();
    let a = wirebench_measure::stats::cdf_points(&samples, 400);
    let b = wirebench_measure::stats::cdf_points(&[3.0, 1.0, 2.0], 400);
    let cdf = svg::cdf("c", "RTT CDF", "µs", &[("a".into(), a.clone()), ("b".into(), b.clone())], false);
    check_well_formed(&cdf).unwrap();
    assert!(cdf.contains("% of samples ≤ x") && cdf.contains(">100<"));
    assert!(cdf.len() < 40_000, "thinned to a bounded number of points");
    assert_eq!(cdf, svg::cdf("c", "RTT CDF", "µs", &[("a".into(), a), ("b".into(), b)], false));
}

/// The text of every `<tag>…</tag>` of a page section's body, unescaped.
fn texts_of(html: &str, tag: &str) -> Vec<String> {
    let unesc = |s: &str| {
        s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
    };
    html.split(&format!("<{tag}>")).skip(1).map(|t| unesc(&t[..t.find(&format!("</{tag}>")).unwrap()])).collect()
}

/// report.md carries every sub-heading and table of the section's part of report.html: both
/// are built from the same blocks.
fn markdown_has_every_heading_and_table_of_the_page(html: &str, md: &str) {
    let heads: Vec<String> = texts_of(html, "h3").into_iter().chain(texts_of(html, "caption")).collect();
    assert!(!heads.is_empty(), "{html}");
    for h in heads {
        assert!(md.contains(&format!("### {h}\n")), "{h:?} is not in the Markdown:\n{md}");
    }
}

#[test]
fn the_size_section_in_markdown_has_what_the_page_has() {
    let ctx = html::Ctx { id: "size".into(), file: 1, files: 1 };
    let mut paper = size_results(&paper_payloads(), "$.data[1]: float64 rounded to float32");
    paper.size.as_mut().unwrap().corpus = "pson-paper".into();
    let mut sparse = size_results(&["p1", "p2"], "x");
    sparse.size.as_mut().unwrap().rows.clear();
    for r in [&paper, &sparse, &size_results(&["a"], "y")] {
        let page = html::size_section(r, &ctx).unwrap();
        check_well_formed(&page.body).unwrap();
        let md = wirebench_report::size::render(r, wirebench_report::Output::Markdown);
        assert!(md.starts_with(&format!("## {}\n\n", page.title)), "{md}");
        markdown_has_every_heading_and_table_of_the_page(&page.body, &md);
    }
    // The page's introduction, answer, fidelity notes and the paper's claims are in Markdown;
    // the terminal has the answer and the claims, not the introduction.
    let md = wirebench_report::size::render(&paper, wirebench_report::Output::Markdown);
    for needle in [
        "Compact JSON of the same value is the baseline",
        "**Smallest: a&b at ",
        "- pson: 1 payload not exact\n    - lossy: $.data[1]: float64 rounded to float32: Test01",
        "### The paper's size claims beside ours",
        "Where the paper cannot be reproduced, or is ambiguous. From docs/studies/seed001-pson-paper.md",
        "\n1. Two rows labelled \"XML S\". Table 3",
        "\n7. Units.",
    ] {
        assert!(md.contains(needle), "{needle}\n{md}");
    }
    assert!(!md.contains("**Two rows") && !md.contains("](../"), "{md}");
    let text = wirebench_report::size::render(&paper, wirebench_report::Output::Table);
    assert!(text.contains("Smallest: a&b at ") && text.contains("The paper's size claims beside ours"), "{text}");
    assert!(!text.contains("Compact JSON of the same value") && !text.contains("Two rows labelled"), "{text}");
    let page = html::size_section(&paper, &ctx).unwrap();
    assert_eq!(page.body.matches("<p class=\"intro\">").count(), 2, "{}", page.body);
    assert!(page.body.contains("<br>7. Units."), "{}", page.body);
}

#[test]
fn the_speed_section_in_markdown_has_what_the_page_has() {
    let ctx = html::Ctx { id: "speed".into(), file: 1, files: 1 };
    let paper = speed_results("pson-paper", &paper_payloads(), &["json", "pson", "msgpack", "protobuf"]);
    let mut both = speed_results("c", &["p1", "p2"], &["json", "pson"]);
    let mut dynamic = both.speed.as_ref().unwrap().cases.clone();
    dynamic.iter_mut().for_each(|c| c.path = "dynamic".into());
    both.speed.as_mut().unwrap().cases.extend(dynamic);
    wirebench_measure::speed_summary::complete(both.speed.as_mut().unwrap());
    for r in [&paper, &both, &speed_results("c", &["p1"], &["json"])] {
        let page = html::speed_section(r, &ctx).unwrap();
        check_well_formed(&page.body).unwrap();
        let md = wirebench_report::speed::render(r, wirebench_report::Output::Markdown);
        assert!(md.starts_with(&format!("## {}\n\n", page.title)), "{md}");
        markdown_has_every_heading_and_table_of_the_page(&page.body, &md);
    }
    // The published figures beside ours, the introduction, the answer and every case's warning
    // are in Markdown; the terminal has the answer and the published figures.
    let md = wirebench_report::speed::render(&paper, wirebench_report::Output::Markdown);
    for needle in [
        "Time per encode and decode operation for 4 codecs on 10 payloads of pson-paper",
        "**fastest encode: json (",
        "published (ESP32): figures printed in",
        PSON_PAPER_ESP32.note,
        "Not measured in this run: bson, xml",
        "<details><summary>2 case warnings</summary>",
        "Test01 / pson / encode: noisy: <spread> 25%",
        "### Test10: median ns per operation and ratio to json, with 95 % confidence intervals",
    ] {
        assert!(md.contains(needle), "{needle}\n{md}");
    }
    let text = wirebench_report::speed::render(&paper, wirebench_report::Output::Table);
    assert!(text.contains("fastest encode: json (") && text.contains("Not measured in this run: bson, xml"), "{text}");
    assert!(!text.contains("Time per encode and decode") && !text.contains("2 case warnings"), "{text}");
}
