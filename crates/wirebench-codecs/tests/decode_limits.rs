//! The shared decoder limits beside the nesting limit (wirebench_core::value): an XML element
//! with more than MAX_ATTRIBUTES attributes, or one name twice, and YAML flow collections nested
//! past the limit are refused with a one-line error at a byte offset; input at the limit decodes.
//! (The cost of hostile shapes: `cargo run --release -p wirebench-codecs --example decode_scaling`.)

use wirebench_codecs::find;
use wirebench_core::value::{max_depth, too_deep, too_many_attributes, MAX_ATTRIBUTES, YAML_LIBRARY_DEPTH};
use wirebench_core::Value;

fn element_with(n: usize) -> String {
    let attrs: String = (0..n).map(|i| format!(" a{i}=\"{i}\"")).collect();
    format!("<root{attrs}>x</root>")
}

#[test]
fn xml_attributes_up_to_the_limit_decode_and_more_are_refused() {
    let xml = find("xml").unwrap();
    assert_eq!(xml.decode(element_with(MAX_ATTRIBUTES).as_bytes(), None).unwrap(), Value::String("x".into()));
    for n in [MAX_ATTRIBUTES + 1, 50_000] {
        let e = xml.decode(element_with(n).as_bytes(), None).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(&too_many_attributes(MAX_ATTRIBUTES)), "{msg}");
        assert!(!msg.contains('\n') && e.offset().is_some(), "{msg}");
    }
    // On a nested element too, and nil still read among many attributes.
    let inner = element_with(MAX_ATTRIBUTES + 1).replace("root", "k");
    let e = xml.decode(format!("<root>{inner}</root>").as_bytes(), None).unwrap_err();
    assert!(e.to_string().contains(&too_many_attributes(MAX_ATTRIBUTES)), "{e}");
    let nil = format!("<root{} nil=\"true\"/>", (0..100).map(|i| format!(" b{i}=\"\"")).collect::<String>());
    assert_eq!(xml.decode(nil.as_bytes(), None).unwrap(), Value::Null);
}

#[test]
fn xml_repeated_attribute_names_are_refused_among_few_and_many() {
    let xml = find("xml").unwrap();
    for (n, dup) in [(1, 0), (5, 3), (200, 0), (200, 150)] {
        let text = element_with(n).replace("\">x", &format!("\" a{dup}=\"again\">x"));
        let e = xml.decode(text.as_bytes(), None).unwrap_err().to_string();
        assert!(e.contains(&format!("malformed attribute: a{dup} is given twice in <root>")), "{n} {dup}: {e}");
    }
}

#[test]
fn yaml_flow_nesting_past_the_limit_is_refused_at_its_offset() {
    let yaml = find("yaml").unwrap();
    let limit = max_depth().min(YAML_LIBRARY_DEPTH);
    let at_limit = format!("{}1{}", "{a: ".repeat(limit), "}".repeat(limit));
    assert!(yaml.decode(at_limit.as_bytes(), None).is_ok());
    let bomb = format!("{}1{}", "{a: ".repeat(50_000), "}".repeat(50_000));
    let e = yaml.decode(bomb.as_bytes(), None).unwrap_err();
    assert_eq!(e.to_string(), format!("invalid YAML: {} at byte {}", too_deep(limit), 4 * limit));
}
