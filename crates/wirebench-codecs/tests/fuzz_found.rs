//! Inputs the fuzz targets in fuzz/ found, kept as regression tests.

use wirebench_codecs::find;

fn unhex(h: &str) -> Vec<u8> {
    (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect()
}

/// fuzz/ bson: the bson crate's message quoted a key holding a control byte (0x02) raw; the
/// message must hold no control byte.
#[test]
fn bson_error_message_escapes_control_bytes_of_a_key() {
    let bytes = unhex("440000000273656e736f720004000000677073001274696d6500f8329350000000000464617461001b000000013000000000000060484001312c66666666666602400000");
    let e = find("bson").unwrap().decode(&bytes, None).unwrap_err().to_string();
    assert!(!e.chars().any(char::is_control), "{e:?}");
    // The structural check ahead of the crate now names where the key breaks.
    assert!(e.ends_with("at byte 56"), "{e}");
}
