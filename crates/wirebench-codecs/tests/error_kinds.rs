//! Decode errors of our own codecs keep the decoder's error kind (the snake_case name the Rust,
//! C and Python ports share) and the byte offset as data, not only in the message.

use wirebench_codecs::{find, CodecError};
use wirebench_core::Value;

fn encoded(id: &str, v: &Value) -> Vec<u8> {
    let c = find(id).unwrap();
    let schema = wirebench_core::Schema::infer(std::slice::from_ref(v));
    let mut out = Vec::new();
    c.encode(v, Some(&schema), &mut out).unwrap();
    out
}

#[test]
fn truncated_input_names_the_kind_and_offset() {
    let v = Value::from_json_str(r#"{"temperature": 21.5, "id": 7, "name": "probe"}"#).unwrap();
    for id in ["pson", "protoson", "cdr-xcdr1", "cdr-xcdr2", "uadp"] {
        let c = find(id).unwrap();
        let schema = wirebench_core::Schema::infer(std::slice::from_ref(&v));
        let bytes = encoded(id, &v);
        let cut = &bytes[..bytes.len() - 1];
        let e = c.decode(cut, Some(&schema)).unwrap_err();
        assert_eq!(e.kind(), Some("unexpected_end"), "{id}: {e}");
        let at = e.offset().unwrap_or_else(|| panic!("{id}: no offset in {e}"));
        assert!(at <= cut.len(), "{id}: offset {at} beyond the {} bytes", cut.len());
        assert!(e.to_string().ends_with(&format!("at byte {at}")), "{id}: {e}");
    }
    // Third-party decoders have no shared kind.
    let e = find("json").unwrap().decode(b"{\"a\":", None).unwrap_err();
    assert!(matches!(e, CodecError::Decode { kind: None, .. }), "{e}");
}
