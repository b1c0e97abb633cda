//! How the round-trip check scales with the keys of one object: the time of `fidelity::compare`
//! on 5,000- and 20,000-key maps, in the same order and reordered, measured side by side; a
//! linear check costs about 4× for 4× the keys (the bound asked: ≤ 5×).
//!
//! Two cache states: `warm` repeats one comparison, so the maps stay in the caches between
//! repetitions (two 5,000-key maps, ~1 MB, fit a 1 MB L2; two 20,000-key maps do not); `cold`
//! writes 64 MB before each repetition, so that every comparison starts from memory, as one
//! does in a run where each decoded map is compared once.
//!
//! Third, where valgrind is installed: the instructions of one comparison at each size
//! (callgrind, collecting inside the comparison only), which no cache or other load changes.
//!   cargo run --release -p wirebench-core --example fidelity_scaling

use std::time::Instant;

use wirebench_core::fidelity::compare;
use wirebench_core::Value;

fn map(n: usize, reversed: bool) -> Value {
    let mut pairs: Vec<(String, Value)> = (0..n).map(|i| (format!("key{i:06}"), Value::UInt(i as u64))).collect();
    if reversed {
        pairs.reverse();
    }
    Value::Map(pairs)
}

/// Median seconds of `reps` runs of compare(a, b); with `evict`, the buffer is written first.
fn time(a: &Value, b: &Value, reps: usize, evict: &mut Option<Vec<u8>>) -> f64 {
    let mut t: Vec<f64> = (0..reps)
        .map(|r| {
            if let Some(buf) = evict.as_mut() {
                buf.iter_mut().step_by(64).for_each(|x| *x = x.wrapping_add(r as u8));
                std::hint::black_box(&buf);
            }
            let s = Instant::now();
            std::hint::black_box(compare(std::hint::black_box(a), std::hint::black_box(b)));
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

/// One comparison, the only code callgrind collects in (`--toggle-collect`).
#[inline(never)]
#[no_mangle]
pub extern "Rust" fn wirebench_fidelity_counted(a: &Value, b: &Value) -> usize {
    compare(std::hint::black_box(a), std::hint::black_box(b)).len()
}

/// Instructions of one comparison of `n`-key maps, counted by callgrind in a child process.
fn instructions(n: usize, reordered: bool) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let out = std::env::temp_dir().join(format!("wb-fidelity-{}-{n}-{reordered}.cg", std::process::id()));
    let status = std::process::Command::new("valgrind")
        .args(["--tool=callgrind", "--toggle-collect=wirebench_fidelity_counted"])
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .args(["one", &n.to_string(), if reordered { "reordered" } else { "same" }])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    let text = std::fs::read_to_string(&out).ok();
    let _ = std::fs::remove_file(&out);
    if !status.success() {
        return None;
    }
    text?.lines().find_map(|l| l.strip_prefix("totals: ").or_else(|| l.strip_prefix("summary: "))?.trim().parse().ok())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("one") {
        let n: usize = args[2].parse().expect("key count");
        let (a, b) = (map(n, false), map(n, args[3] == "reordered"));
        std::hint::black_box(wirebench_fidelity_counted(&a, &b));
        return;
    }
    for cold in [false, true] {
        let mut evict = cold.then(|| vec![0u8; 64 << 20]);
        for reordered in [false, true] {
            let (small, big) =
                ((map(5_000, false), map(5_000, reordered)), (map(20_000, false), map(20_000, reordered)));
            // Alternate the two sizes so that a host slowing down hits both alike.
            let (mut ts, mut tb) = (Vec::new(), Vec::new());
            for _ in 0..5 {
                ts.push(time(&small.0, &small.1, 21, &mut evict));
                tb.push(time(&big.0, &big.1, 21, &mut evict));
            }
            ts.sort_by(f64::total_cmp);
            tb.sort_by(f64::total_cmp);
            let (s, b) = (ts[2], tb[2]);
            println!(
                "{:<5} {:<10} 5,000 keys {:>9.1} µs   20,000 keys {:>9.1} µs   ratio {:.2} (linear: 4, bound: 5)",
                if cold { "cold" } else { "warm" },
                if reordered { "reordered" } else { "same order" },
                s * 1e6,
                b * 1e6,
                b / s
            );
        }
    }
    for reordered in [false, true] {
        match (instructions(5_000, reordered), instructions(20_000, reordered)) {
            (Some(s), Some(b)) => println!(
                "instr {:<10} 5,000 keys {:>9} Ir   20,000 keys {:>9} Ir   ratio {:.2} (callgrind)",
                if reordered { "reordered" } else { "same order" },
                s,
                b,
                b as f64 / s as f64
            ),
            _ => println!("instr: valgrind not available, instruction counts skipped"),
        }
    }
}
