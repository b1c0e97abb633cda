//! Fuzz the IDL reader.
//!
//! * parse must never panic, and errors carry a line and column inside the text;
//! * every type of an accepted file encodes its default value in all four
//!   encodings, and that decodes back to the same value.
#![no_main]

use cdr::{decode, encode, Encoding};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match cdr::idl::parse(text) {
        Err(e) => {
            let lines = text.split('\n').count() as u32;
            assert!(e.line >= 1 && e.line <= lines.max(1), "line {} of {lines}", e.line);
            assert!(e.column >= 1);
            assert!(e.to_string().starts_with(&format!("line {}, column {}: ", e.line, e.column)));
        }
        Ok(file) => {
            for (_, ty) in file.types().take(8) {
                let v = ty.default_value();
                for enc in Encoding::ALL {
                    // Huge arrays may fail on limits; they must not panic.
                    if let Ok(bytes) = encode(ty, &v, enc) {
                        if bytes.len() > 1 << 20 {
                            continue;
                        }
                        let back = decode(ty, &bytes).expect("our own encoding decodes");
                        assert!(back.bitwise_eq(&v));
                    }
                }
            }
        }
    }
});
