//! Deeply nested input is refused with an error, never followed until the stack overflows:
//! BSON through the bson crate (which has no limit of its own) included.

use wirebench_codecs::{find, MAX_DEPTH};

/// A BSON document nested `depth` deep (`{"a": {"a": ... {}}}`), built back to front.
fn nested_bson(depth: usize) -> Vec<u8> {
    let mut doc = vec![5, 0, 0, 0, 0]; // {}
    for _ in 1..depth {
        let mut outer = Vec::with_capacity(doc.len() + 12);
        let len = (4 + 1 + 2 + doc.len() + 1) as u32;
        outer.extend_from_slice(&len.to_le_bytes());
        outer.extend_from_slice(&[0x03, b'a', 0]);
        outer.extend_from_slice(&doc);
        outer.push(0);
        doc = outer;
    }
    doc
}

#[test]
fn bson_nesting_is_bounded() {
    let bson = find("bson").unwrap();
    assert!(bson.decode(&nested_bson(MAX_DEPTH), None).is_ok(), "{MAX_DEPTH} deep decodes");
    let e = bson.decode(&nested_bson(MAX_DEPTH + 1), None).unwrap_err();
    assert!(e.to_string().contains("nested deeper than 128"), "{e}");
    assert_eq!(e.offset(), Some(7 * MAX_DEPTH), "the offset of the first document too deep: {e}");
    // The review's crash: 8,000 deep in a 64 KB file aborted the process.
    let e = bson.decode(&nested_bson(8_000), None).unwrap_err();
    assert!(e.to_string().contains("nested deeper"), "{e}");
    // The same as an array element.
    let mut arr = nested_bson(MAX_DEPTH + 1);
    arr[4] = 0x04;
    assert!(bson.decode(&arr, None).is_err());
}
