//! Inputs the fuzz target (crates/uadp/fuzz, `decode`) found: what the JSON reader reads, the
//! writer writes back, and that text reads again to the same message and the same text.

use uadp::json::*;

fn round_trip(text: &str) {
    let Ok(jm) = from_json(text, &JsonDecodeOptions::default()) else { return };
    let Ok(out) = to_json(&jm.message, &jm.options()) else { return };
    let back = from_json(&out, &JsonDecodeOptions { metadata: &jm.metadata, ..Default::default() })
        .unwrap_or_else(|e| panic!("{text} wrote {out}, which does not read back: {e:?}"));
    let again = to_json(&back.message, &back.options()).unwrap();
    assert_eq!(again, out, "{text} wrote {out}, read back and wrote {again}");
}

#[test]
fn status_code_symbol_without_code() {
    round_trip(r#"{"M":{"Symbol":""}}"#);
}

#[test]
fn status_code_array_element_with_symbol_object() {
    round_trip(r#"{"":[{"Symbol":{}}]}"#);
}
