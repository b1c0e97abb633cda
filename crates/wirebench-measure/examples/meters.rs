//! Generated NB-IoT meter readings as NDJSON on stdout (deterministic; see
//! `wirebench_measure::meters`): `cargo run --release -p wirebench-measure --example meters --
//! [DEVICES [READINGS [SEED]]] > meters.ndjson` (default 40 devices × 30 readings, seed 1).

use std::io::Write;

fn main() {
    let arg = |i: usize, default: u64| -> u64 {
        std::env::args().nth(i).map_or(default, |a| {
            a.parse().unwrap_or_else(|_| {
                eprintln!("error: argument {i}: {a:?} is not a whole number");
                std::process::exit(2)
            })
        })
    };
    let (devices, readings, seed) = (arg(1, 40), arg(2, 30), arg(3, 1));
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in wirebench_measure::meters::ndjson(devices as usize, readings as usize, seed) {
        writeln!(out, "{line}").expect("stdout");
    }
    out.flush().expect("stdout");
}
