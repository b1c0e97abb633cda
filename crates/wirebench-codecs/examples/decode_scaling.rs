//! Time per input byte of the YAML and XML decoders on hostile shapes, 10 KB to 1 MB: a decoder
//! whose work grows faster than its input shows a rising series. Each row: the shape, the size,
//! the outcome (read, or refused with the error), ns per byte (the best of 5 batches of at
//! least 20 ms) and the process's peak RSS so far; each shape ends with the ratio of its largest
//! to smallest ns/byte. A decode over 10 s is reported as a hang and the shape's larger sizes
//! are skipped. Exit status 1 when a shape rises more than 2x over the range, a decode hangs or
//! the peak RSS passes 100 MiB.
//!
//! usage: cargo run --release -p wirebench-codecs --example decode_scaling [-- SIZE_KB...]

use std::time::{Duration, Instant};

use wirebench_codecs::{find, Codec};

/// Repeat `unit` (then `tail`) until `head + units + tail` reaches `size` bytes.
fn fill(size: usize, head: &str, unit: &str, tail_of_unit: &str) -> Vec<u8> {
    let n = (size.saturating_sub(head.len()) / (unit.len() + tail_of_unit.len())).max(1);
    let mut s = String::with_capacity(size + 64);
    s.push_str(head);
    for _ in 0..n {
        s.push_str(unit);
    }
    for _ in 0..n {
        s.push_str(tail_of_unit);
    }
    s.into_bytes()
}

/// `line` repeated (with its index) to `size` bytes, inside `open`/`close`.
fn lines(size: usize, open: &str, close: &str, line: impl Fn(usize) -> String) -> Vec<u8> {
    let mut s = String::from(open);
    let mut i = 0;
    while s.len() + close.len() < size {
        s.push_str(&line(i));
        i += 1;
    }
    s.push_str(close);
    s.into_bytes()
}

struct Shape {
    codec: &'static str,
    name: &'static str,
    make: fn(usize) -> Vec<u8>,
}

const SHAPES: &[Shape] = &[
    Shape { codec: "yaml", name: "nested flow maps {a: {a: …}}", make: |n| fill(n, "", "{a: ", "}") },
    Shape { codec: "yaml", name: "nested flow sequences [[…]]", make: |n| fill(n, "", "[", "]") },
    Shape { codec: "yaml", name: "nested block sequences - - - …", make: |n| fill(n, "", "- ", "") },
    Shape {
        codec: "yaml",
        name: "many 3-deep flow maps",
        make: |n| lines(n, "", "", |i| format!("- {{a: {{b: [{i}, {{c: x}}]}}}}\n")),
    },
    Shape { codec: "yaml", name: "many keys in one map", make: |n| lines(n, "", "", |i| format!("k{i}: {i}\n")) },
    Shape {
        codec: "yaml",
        name: "one long double-quoted string",
        make: |n| format!("s: \"{}\"", "ab[{cd ".repeat(n / 7)).into_bytes(),
    },
    Shape { codec: "yaml", name: "one long plain string", make: |n| fill(n, "s: ", "abcdefgh ", "") },
    Shape {
        codec: "xml",
        name: "one element, many attributes",
        make: |n| lines(n, "<root", "/>", |i| format!(" a{i}=\"{i}\"")),
    },
    Shape {
        codec: "xml",
        name: "elements of 200 attributes",
        make: |n| {
            let el: String = (0..200).map(|i| format!(" a{i}=\"{i}\"")).collect();
            lines(n, "<root>", "</root>", |_| format!("<e{el}/>"))
        },
    },
    Shape { codec: "xml", name: "deep nesting <a><a>…", make: |n| fill(n, "", "<a>", "</a>") },
    Shape {
        codec: "xml",
        name: "many distinct children",
        make: |n| lines(n, "<root>", "</root>", |i| format!("<k{i}>{i}</k{i}>")),
    },
    Shape {
        codec: "xml",
        name: "one long text",
        make: |n| format!("<root>{}</root>", "abc&amp;def ".repeat(n / 12)).into_bytes(),
    },
];

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.to_string()))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

/// The best per-decode time of 5 batches of at least 20 ms, and the outcome.
fn time(codec: &dyn Codec, bytes: &[u8]) -> (Duration, String) {
    let t = Instant::now();
    let first = codec.decode(bytes, None);
    let once = t.elapsed();
    let outcome = match &first {
        Ok(_) => "read".to_string(),
        Err(e) => format!("refused: {e}"),
    };
    drop(first);
    if once > Duration::from_secs(10) {
        return (once, outcome);
    }
    let per_batch = ((Duration::from_millis(20).as_nanos() / once.as_nanos().max(1)) as usize).clamp(1, 100_000);
    let mut best = once;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..per_batch {
            let _ = std::hint::black_box(codec.decode(std::hint::black_box(bytes), None));
        }
        best = best.min(t.elapsed() / per_batch as u32);
    }
    (best, outcome)
}

fn main() {
    let mut sizes: Vec<usize> =
        std::env::args().skip(1).filter_map(|a| a.parse::<usize>().ok()).map(|k| k * 1000).collect();
    if sizes.is_empty() {
        sizes = vec![10_000, 30_000, 100_000, 300_000, 1_000_000];
    }
    let mut failed = false;
    println!("{:<6} {:<32} {:>9} {:>9} {:>10}  outcome", "codec", "shape", "bytes", "ns/byte", "peak RSS");
    for shape in SHAPES {
        let codec = find(shape.codec).expect("codec in the registry");
        let mut per_byte = Vec::new();
        for &size in &sizes {
            let bytes = (shape.make)(size);
            let (t, outcome) = time(codec, &bytes);
            let ns = t.as_nanos() as f64 / bytes.len() as f64;
            let rss = peak_rss_kib();
            let mut outcome = outcome;
            outcome.truncate(100);
            println!(
                "{:<6} {:<32} {:>9} {:>9.2} {:>6} MiB  {outcome}",
                shape.codec,
                shape.name,
                bytes.len(),
                ns,
                rss / 1024
            );
            per_byte.push(ns);
            if rss > 100 * 1024 {
                failed = true;
            }
            if t > Duration::from_secs(10) {
                println!("       HANG: one decode took {:.1} s; larger sizes skipped", t.as_secs_f64());
                failed = true;
                break;
            }
        }
        let max = per_byte.iter().cloned().fold(f64::MIN, f64::max);
        let min = per_byte.iter().cloned().fold(f64::MAX, f64::min);
        let growth = per_byte.last().unwrap() / per_byte.first().unwrap();
        println!("       max/min ns/byte {:.2}x, largest/smallest size {:.2}x\n", max / min, growth);
        if growth > 2.0 {
            failed = true;
        }
    }
    println!("peak RSS {} MiB", peak_rss_kib() / 1024);
    std::process::exit(i32::from(failed));
}
