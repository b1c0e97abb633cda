//! Types outside the data model are refused with their byte offset, not decoded into ad-hoc
//! arrays and maps that re-encode as other types: CBOR tags, MessagePack extensions (the
//! timestamp too), BSON ObjectId, datetime, decimal128, timestamp, regex, code, min/max key and
//! binary subtypes other than generic.

use wirebench_codecs::find;

fn refused(id: &str, bytes: &[u8], needle: &str, at: usize) {
    let e = find(id).unwrap().decode(bytes, None).unwrap_err();
    assert!(e.to_string().contains(needle), "{id}: {e}");
    assert_eq!(e.offset(), Some(at), "{id}: {e}");
}

fn bson_doc(element: &[u8]) -> Vec<u8> {
    let mut d = ((4 + element.len() + 1) as i32).to_le_bytes().to_vec();
    d.extend_from_slice(element);
    d.push(0);
    d
}

#[test]
fn tags_extensions_and_bson_specials_are_refused_where_they_stand() {
    refused("cbor", &[0xc1, 0x1a, 0x51, 0x4b, 0x67, 0xb0], "CBOR tag 1 (epoch-based date/time)", 0);
    refused("cbor", &[0xa1, 0x61, b't', 0xc2, 0x41, 0x01], "CBOR tag 2 (bignum)", 3);
    refused("msgpack", &[0xd4, 0x01, 0x05], "MessagePack ext type 1", 0);
    refused(
        "msgpack",
        &[0x82, 0xa1, b'a', 0x01, 0xa1, b't', 0xd6, 0xff, 0, 0, 0, 1],
        "MessagePack timestamp (ext type -1)",
        6,
    );
    // A string holding the bytes of an ext marker is only a string.
    assert!(find("msgpack").unwrap().decode(&[0xa2, 0xd4, 0x01], None).is_ok());
    let mut oid = b"\x07_id\x00".to_vec();
    oid.extend(0u8..12);
    refused("bson", &bson_doc(&oid), "BSON ObjectId (type 0x07)", 4);
    let mut date = b"\x09t\x00".to_vec();
    date.extend(1_700_000_000_000i64.to_le_bytes());
    refused("bson", &bson_doc(&date), "BSON UTC datetime (type 0x09)", 4);
    let mut dec = b"\x13d\x00".to_vec();
    dec.extend([0u8; 16]);
    refused("bson", &bson_doc(&dec), "BSON decimal128 (type 0x13)", 4);
    let mut uuid = b"\x05u\x00".to_vec();
    uuid.extend(16i32.to_le_bytes());
    uuid.push(0x04);
    uuid.extend([7u8; 16]);
    refused("bson", &bson_doc(&uuid), "BSON binary subtype 0x04", 11);
    let mut generic = b"\x05b\x00".to_vec();
    generic.extend(2i32.to_le_bytes());
    generic.extend([0x00, 1, 2]);
    assert!(find("bson").unwrap().decode(&bson_doc(&generic), None).is_ok());
}
