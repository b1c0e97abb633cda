//! CBOR well-formedness (RFC 8949 §3, Appendix F): the not-well-formed examples of Appendix
//! F.1 are refused with a byte offset, the well-formed ones decode, and nesting is bounded.

use wirebench_codecs::{find, MAX_DEPTH};

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// RFC 8949 Appendix F.1, every example, grouped as the RFC groups them.
const NOT_WELL_FORMED: &[&str] = &[
    // End of input in a head.
    "18",
    "19",
    "1a",
    "1b",
    "1901",
    "1a0102",
    "1b01020304050607",
    "38",
    "58",
    "78",
    "98",
    "9a01ff00",
    "b8",
    "d8",
    "f8",
    "f900",
    "fa0000",
    "fb000000",
    // Definite-length strings with short data.
    "41",
    "61",
    "5affffffff00",
    "5bffffffffffffffff010203",
    "7affffffff00",
    "7b7fffffffffffffff010203",
    // Definite-length maps and arrays not closed with enough items.
    "81",
    "818181818181818181",
    "8200",
    "a1",
    "a20102",
    "a100",
    "a2000000",
    // Tag number not followed by tag content.
    "c0",
    // Indefinite-length strings not closed by a break.
    "5f4100",
    "7f6100",
    // Indefinite-length maps and arrays not closed by a break.
    "9f",
    "9f0102",
    "bf",
    "bf01020102",
    "819f",
    "9f8000",
    "9f9f9f9f9fffffffff",
    "9f819f819f9fffffff",
    // Reserved additional information values.
    "1c",
    "1d",
    "1e",
    "3c",
    "3d",
    "3e",
    "5c",
    "5d",
    "5e",
    "7c",
    "7d",
    "7e",
    "9c",
    "9d",
    "9e",
    "bc",
    "bd",
    "be",
    "dc",
    "dd",
    "de",
    "fc",
    "fd",
    "fe",
    // Reserved two-byte encodings of simple values.
    "f800",
    "f801",
    "f818",
    "f81f",
    // Indefinite-length string chunks not of the correct type.
    "5f00ff",
    "5f21ff",
    "5f6100ff",
    "5f80ff",
    "5fa0ff",
    "5fc000ff",
    "5fe0ff",
    "7f4100ff",
    // Indefinite-length string chunks not definite length (the two the review found accepted).
    "5f5f4100ffff",
    "7f7f6100ffff",
    // Break on its own outside an indefinite-length item.
    "ff",
    // Break in a definite-length array or map or a tag.
    "81ff",
    "8200ff",
    "a1ff",
    "a1ff00",
    "a100ff",
    "a20000ff",
    "9f81ff",
    "9f829f819f9fffffffff",
    // Break in an indefinite-length map where a value belongs.
    "bf00ff",
    "bf000000ff",
    // Major types 0, 1 and 6 with additional information 31.
    "1f",
    "3f",
    "df",
];

#[test]
fn every_appendix_f1_example_is_refused_with_an_offset() {
    let cbor = find("cbor").unwrap();
    for hex in NOT_WELL_FORMED {
        let bytes = unhex(hex);
        let e = cbor.decode(&bytes, None).expect_err(hex);
        let at = e.offset().unwrap_or_else(|| panic!("{hex}: no offset in {e}"));
        assert!(at <= bytes.len(), "{hex}: offset {at}");
    }
}

#[test]
fn well_formed_items_still_decode() {
    let cbor = find("cbor").unwrap();
    // Indefinite strings of definite chunks, arrays and maps, nested; simple values.
    for hex in [
        "5f42010243030405ff",
        "7f657374726561646d696e67ff",
        "9f018202039f0405ffff",
        "bf61610161629f0203ffff",
        "f5",
        "f6",
        "83010203",
        "a0",
    ] {
        assert!(cbor.decode(&unhex(hex), None).is_ok(), "{hex}");
    }
}

#[test]
fn nesting_is_bounded() {
    let cbor = find("cbor").unwrap();
    let nested = |depth: usize| {
        let mut v = vec![0x81; depth - 1];
        v.push(0x80);
        v
    };
    assert!(cbor.decode(&nested(MAX_DEPTH), None).is_ok());
    let e = cbor.decode(&nested(MAX_DEPTH + 1), None).unwrap_err();
    assert!(e.to_string().contains("nested deeper than 128"), "{e}");
    let e = cbor.decode(&vec![0x9f; 100_000], None).unwrap_err();
    assert!(e.to_string().contains("nested deeper"), "{e}");
}
