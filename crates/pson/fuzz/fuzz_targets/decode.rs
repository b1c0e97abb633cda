//! Fuzz the PSON v2 and Protoson v1 decoders.
//!
//! * decode must never panic;
//! * a decoded v2 value re-encodes canonically, and decoding that gives a
//!   value that re-encodes to the very same bytes (canonical fixed point);
//! * the pull decoder never panics and always makes progress;
//! * Protoson v1 decode never panics, and a decoded value round-trips.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pson::{decode, decode_exact, decode_with, protoson, Decoder, Limits};

fuzz_target!(|data: &[u8]| {
    if let Ok((v, used)) = decode(data) {
        assert!(used >= 1 && used <= data.len());
        let canon = v.to_vec();
        assert_eq!(canon.len(), v.encoded_len());
        let back = decode_exact(&canon).expect("canonical encoding must decode");
        let again = back.to_vec();
        assert_eq!(again, canon, "canonical encoding must be a fixed point");
    }

    // A tight depth limit must fail cleanly, never panic.
    let _ = decode_with(data, &Limits { max_depth: 3 });

    // Pull decoder: progress or error.
    let mut d = Decoder::new(data);
    while d.remaining() > 0 {
        let before = d.position();
        match d.next() {
            Ok(_) => assert!(d.position() > before),
            Err(e) => {
                assert!(e.offset <= data.len());
                assert_eq!(d.position(), before);
                break;
            }
        }
    }

    if let Ok((v, used)) = protoson::decode(data) {
        assert!(used <= data.len());
        let enc = |v: &pson::Value<'_>| {
            let mut out = Vec::new();
            protoson::encode(v, &mut out).expect("Vec write cannot fail");
            assert_eq!(out.len(), protoson::encoded_len(v));
            out
        };
        let out1 = enc(&v);
        let (back1, n) = protoson::decode(&out1).expect("re-encoded protoson must decode");
        assert_eq!(n, out1.len());
        // The lossy float rule may turn a value into an integral / zero f32
        // once; after that the encoding is a fixed point.
        let out2 = enc(&back1);
        let (back2, _) = protoson::decode(&out2).expect("stable");
        assert_eq!(enc(&back2), out2, "protoson encoding must reach a fixed point");
    }
});
