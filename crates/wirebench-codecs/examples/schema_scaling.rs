//! Time per byte and peak RSS of the schema readers (.proto through protox, .avsc through
//! apache-avro, .idl through the CDR crate's parser) on large flat schemas: many small types,
//! each with a few fields, from 10 KB up to the schema size limit (256 KiB). A reader whose
//! work grows faster than its input shows a rising ns/byte series. Each row: the language, the
//! size, the types, ns per byte (the best of 3 reads) and the process's peak RSS so far; each
//! language ends with the ratio of its largest to smallest ns/byte. Exit status 1 when a
//! language rises more than 2x over the range, a read fails or the peak RSS passes 100 MiB.
//!
//! usage: cargo run --release -p wirebench-codecs --example schema_scaling [-- SIZE_KB...]

use std::time::{Duration, Instant};

use wirebench_codecs::schema_files::read_schema_file;

/// `n` types of 3 fields each, the last one the root holding one of every other type.
fn schema(lang: &str, size: usize) -> (String, String) {
    let mut s = String::new();
    let mut n = 0;
    let unit = |i: usize| {
        match lang {
        "proto" => format!("message T{i} {{ int32 a_{i} = 1; string b_{i} = 2; repeated double c_{i} = 3; }}\n"),
        "avsc" => format!(
            "{{\"type\":\"record\",\"name\":\"T{i}\",\"fields\":[{{\"name\":\"a\",\"type\":\"int\"}},{{\"name\":\"b\",\"type\":\"string\"}},{{\"name\":\"c\",\"type\":{{\"type\":\"array\",\"items\":\"double\"}}}}]}},\n"
        ),
        _ => format!("struct T{i} {{ long a_{i}; string b_{i}; sequence<double> c_{i}; }};\n"),
    }
    };
    let root_field = |i: usize| match lang {
        "proto" => format!(" T{i} t{i} = {};", i + 1),
        "avsc" => format!("{{\"name\":\"t{i}\",\"type\":\"T{i}\"}},"),
        _ => format!(" T{i} t{i};"),
    };
    // Each type costs its definition and its field in the root.
    while s.len() + (n + 1) * root_field(n).len() < size.saturating_sub(200) {
        s.push_str(&unit(n));
        n += 1;
    }
    let fields: String = (0..n).map(root_field).collect();
    let text = match lang {
        "proto" => format!("syntax = \"proto3\";\n{s}message Root {{{fields} }}\n"),
        "avsc" => {
            format!("[{s}{{\"type\":\"record\",\"name\":\"Root\",\"fields\":[{}]}}]", fields.trim_end_matches(','))
        }
        _ => format!("{s}struct Root {{{fields} }};\n"),
    };
    (text, format!("{n}"))
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn main() {
    let mut sizes: Vec<usize> =
        std::env::args().skip(1).filter_map(|a| a.parse::<usize>().ok()).map(|k| k * 1000).collect();
    if sizes.is_empty() {
        sizes = vec![10_000, 30_000, 100_000, 250_000];
    }
    let dir = std::env::temp_dir().join(format!("wirebench-schema-scaling-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let mut failed = false;
    println!("{:<6} {:>9} {:>7} {:>9} {:>10}  outcome", "schema", "bytes", "types", "ns/byte", "peak RSS");
    for lang in ["proto", "avsc", "idl"] {
        let mut per_byte = Vec::new();
        for &size in &sizes {
            let (text, types) = schema(lang, size);
            let path = dir.join(format!("s{size}.{lang}"));
            std::fs::write(&path, &text).expect("write the schema");
            let mut best = Duration::MAX;
            let mut outcome = String::from("read");
            for _ in 0..3 {
                let t = Instant::now();
                let r = read_schema_file(&path, Some("Root"));
                best = best.min(t.elapsed());
                if let Err(e) = r {
                    outcome = format!("refused: {e}");
                    outcome.truncate(100);
                    failed = true;
                }
            }
            let ns = best.as_nanos() as f64 / text.len() as f64;
            let rss = peak_rss_kib();
            println!("{lang:<6} {:>9} {types:>7} {ns:>9.1} {:>6} MiB  {outcome}", text.len(), rss / 1024);
            per_byte.push(ns);
            if rss > 100 * 1024 {
                failed = true;
            }
        }
        let lo = per_byte.iter().copied().fold(f64::INFINITY, f64::min);
        let ratio = per_byte.last().copied().unwrap_or(0.0) / lo;
        println!("{lang:<6} largest/smallest ns/byte: {ratio:.2}x");
        if ratio > 2.0 {
            failed = true;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::process::exit(i32::from(failed));
}
