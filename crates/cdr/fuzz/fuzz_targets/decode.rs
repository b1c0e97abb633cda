//! Fuzz the CDR decoder.
//!
//! The first input byte picks one of a fixed set of types (covering final,
//! appendable and mutable structs, optionals, unions, enums, sequences,
//! arrays, strings); the rest is the payload, header included.
//!
//! * decode must never panic, with the default limits and with tight ones;
//! * whatever decodes re-encodes (in the header's encoding), and that
//!   encoding decodes to the same value and re-encodes to the same bytes;
//! * key-only and headerless decoding never panic either.
#![no_main]

use std::sync::OnceLock;

use cdr::{decode, encode, Decoder, Encoding, Header, Limits, TypeDesc};
use libfuzzer_sys::fuzz_target;

const IDL: &str = r#"
enum Color { RED, GREEN, BLUE };
@bit_bound(8) enum Small { A, B };
@final struct Point { long x; long y; };
union Value switch(long) { case 1: long i; case 2: double d; default: string s; };
@appendable union AppU switch(Color) { case RED: string r; case GREEN: sequence<Point> g; };
@final struct Sensor { long id; double ts; float values[3]; string name; sequence<short> samples; boolean ok; };
@appendable struct App { long id; @optional double ts; string<8> name; sequence<Point, 4> pts; };
@mutable struct Mut { @key long id; @optional double ts; string name; App app; sequence<App> apps; Color c; @id(50) octet raw[3]; };
@final struct Mixed { octet tag; Value v; AppU u; Mut m; @optional Point p; sequence<sequence<long> > nested; char c; Small s; long long grid[2][2]; };
struct Keyed { @key string k; @key Point p; sequence<octet> data; };
"#;

fn types() -> &'static [TypeDesc] {
    static T: OnceLock<Vec<TypeDesc>> = OnceLock::new();
    T.get_or_init(|| {
        let f = cdr::idl::parse(IDL).expect("fuzz IDL parses");
        ["Sensor", "App", "Mut", "Mixed", "Keyed", "Value", "AppU", "Point"]
            .iter()
            .map(|n| f.get(n).expect("type").clone())
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, payload)) = data.split_first() else { return };
    let tys = types();
    let ty = &tys[pick as usize % tys.len()];

    if let Ok(v) = decode(ty, payload) {
        let enc = Header::parse(payload).expect("decoded, so the header parsed").encoding();
        let bytes = encode(ty, &v, enc).expect("a decoded value re-encodes");
        let back = decode(ty, &bytes).expect("our own encoding decodes");
        assert!(back.bitwise_eq(&v), "decode(encode(v)) != v");
        assert_eq!(encode(ty, &back, enc).expect("re-encode"), bytes, "encoding is not a fixed point");
    }

    let tight = Limits { max_depth: 2, max_empty_elements: 4 };
    let _ = Decoder::new().limits(tight).decode(ty, payload);
    let _ = Decoder::new().key_only(true).allow_trailing(true).decode(ty, payload);
    let enc = Encoding::ALL[(pick as usize / tys.len()) % 4];
    let _ = Decoder::new().headerless(Some(enc)).decode(ty, payload);
});
