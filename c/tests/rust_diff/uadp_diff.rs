//! Rust side of `make rust-diff` (UADP): one hex message per stdin line ->
//! "ok <consumed> <re-encoded hex>" or "error <kind> <offset>", with the
//! options of `uadp_tool batch` (RawData metadata for any writer: Float,
//! String, Int16[]; --skip = skip_unknown; --exact = decode_exact).
use std::io::BufRead;
use uadp::*;

fn unhex(s: &str) -> Option<Vec<u8>> {
    let s = s.trim();
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok()).collect()
}

fn main() {
    let skip = std::env::args().any(|a| a == "--skip");
    let exact = std::env::args().any(|a| a == "--exact");
    let meta = [DataSetMetaData {
        data_set_writer_id: None,
        fields: vec![
            FieldMetaData::scalar("a", BuiltInType::Float),
            FieldMetaData::scalar("b", BuiltInType::String),
            FieldMetaData { name: "c".into(), built_in_type: BuiltInType::Int16, array: true },
        ],
    }];
    let opts = DecodeOptions { raw_metadata: &meta, skip_unknown: skip, ..DecodeOptions::default() };
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let Some(b) = unhex(&line) else {
            println!("badhex");
            continue;
        };
        let r = if exact { decode_exact(&b, &opts).map(|m| (m, b.len())) } else { decode_with(&b, &opts) };
        match r {
            Ok((m, used)) => match to_vec(&m) {
                Ok(v) => println!("ok {} {}", used, v.iter().map(|x| format!("{x:02x}")).collect::<String>()),
                Err(e) => println!("encode-error {} {}", e.kind.name(), e.offset),
            },
            Err(e) => println!("error {} {}", e.kind.name(), e.offset),
        }
    }
}
