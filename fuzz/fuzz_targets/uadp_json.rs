//! Fuzz the UADP JSON mapping (crates/uadp/src/json.rs) and its two codecs.
//!
//! * the reader never panics and its errors point inside the text;
//! * what it reads writes back, that text reads again (with the metadata the first read found)
//!   and writes the very same text (JSON fixed point);
//! * the `uadp-json` and `uadp-json-rev` codecs decode the bytes without panicking.
#![no_main]

use uadp::json::{from_json, to_json, JsonDecodeOptions};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = core::str::from_utf8(data) {
        match from_json(text, &JsonDecodeOptions::default()) {
            Ok(jm) => {
                if let Ok(out) = to_json(&jm.message, &jm.options()) {
                    let back = from_json(&out, &JsonDecodeOptions { metadata: &jm.metadata, ..Default::default() })
                        .expect("written JSON reads back");
                    assert_eq!(to_json(&back.message, &back.options()).unwrap(), out, "JSON fixed point");
                }
            }
            Err(e) => assert!(e.offset <= text.len(), "error offset {} beyond {} bytes", e.offset, text.len()),
        }
    }
    wirebench_fuzz::codec("uadp-json", data);
    wirebench_fuzz::codec("uadp-json-rev", data);
});
