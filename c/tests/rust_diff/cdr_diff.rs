//! Rust side of `make rust-diff` (CDR). Argument: a types file, one line per
//! type: "<key 0|1>\t<type name>\t<IDL on one line>". Stdin: "<type index>
//! <hex>" lines -> "ok" or "error <kind> <offset>" (cdr::decode, or
//! cdr::decode_key for key serializations).
use std::io::BufRead;

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok()).collect()
}

fn main() {
    let path = std::env::args().nth(1).expect("types file");
    let text = std::fs::read_to_string(path).expect("types file");
    let mut tys = Vec::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, '\t');
        let key = parts.next() == Some("1");
        let name = parts.next().unwrap_or("");
        let idl = parts.next().unwrap_or("");
        let ty = cdr::idl::parse(idl).ok().and_then(|f| f.get(name).cloned());
        tys.push((ty, key));
    }
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let mut it = line.split_whitespace();
        let idx: usize = it.next().and_then(|x| x.parse().ok()).unwrap_or(usize::MAX);
        let bytes = unhex(it.next().unwrap_or(""));
        match (tys.get(idx), bytes) {
            (Some((Some(ty), key)), Some(b)) => {
                let r = if *key { cdr::decode_key(ty, &b) } else { cdr::decode(ty, &b) };
                match r {
                    Ok(_) => println!("ok"),
                    Err(e) => println!("error {} {}", e.kind.name(), e.offset),
                }
            }
            _ => println!("skip"),
        }
    }
}
