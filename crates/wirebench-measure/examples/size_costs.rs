//! Per-codec cost of the size measurement's stages on a sample file (prepared codecs, one
//! thread): encode, decode, fidelity compare, in ns per message.
//! cargo run --release -p wirebench-measure --example size_costs -- FILE.ndjson
use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).expect("FILE.ndjson");
    let text = std::fs::read_to_string(&path).unwrap();
    let t = Instant::now();
    let vals: Vec<_> = text.lines().map(|l| wirebench_core::Value::from_json_str(l).unwrap()).collect();
    let n = vals.len() as f64;
    println!("parse {:.0} ns/msg", t.elapsed().as_nanos() as f64 / n);
    let schema = wirebench_core::Schema::infer(vals.iter());
    let mut buf = Vec::new();
    let (mut te, mut td, mut tc) = (0.0, 0.0, 0.0);
    for c in wirebench_codecs::registry() {
        let p = c.prepare(Some(&schema)).unwrap();
        let mut encs = Vec::with_capacity(vals.len());
        let t = Instant::now();
        for v in &vals {
            buf.clear();
            let _ = p.encode(v, &mut buf);
            encs.push(buf.len());
        }
        let e = t.elapsed().as_nanos() as f64 / n;
        let mut bytes = Vec::new();
        for v in &vals {
            let mut b = Vec::new();
            let _ = p.encode(v, &mut b);
            bytes.push(b);
        }
        let t = Instant::now();
        let decoded: Vec<_> = bytes.iter().map(|b| p.decode(b).ok()).collect();
        let d = t.elapsed().as_nanos() as f64 / n;
        let t = Instant::now();
        let mut lossy = 0;
        for (v, b) in vals.iter().zip(&decoded) {
            if let Some(b) = b {
                lossy += !wirebench_core::fidelity::compare(v, b).is_empty() as usize;
            }
        }
        let cmp = t.elapsed().as_nanos() as f64 / n;
        te += e;
        td += d;
        tc += cmp;
        println!(
            "{:14} encode {:7.0}  decode {:7.0}  compare {:6.0} ns/msg  ({} lossy)",
            c.info().id,
            e,
            d,
            cmp,
            lossy
        );
    }
    println!("{:14} encode {:7.0}  decode {:7.0}  compare {:6.0} ns/msg", "total", te, td, tc);
}
