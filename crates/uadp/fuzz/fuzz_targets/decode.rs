//! Fuzz the UADP decoder and the JSON reader.
//!
//! * decode never panics, and errors point inside the input;
//! * a decoded message re-encodes (encoded_len exact), and decoding that gives a message
//!   that re-encodes to the very same bytes (canonical fixed point);
//! * the first byte picks RawData metadata and skip_unknown so those paths are fuzzed too;
//! * the JSON reader never panics, and what it reads writes back and reads again equal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use uadp::json::{from_json, to_json, JsonDecodeOptions};
use uadp::{decode_with, encoded_len, to_vec, BuiltInType, DataSetMetaData, DecodeOptions, FieldMetaData};

fuzz_target!(|data: &[u8]| {
    let meta = [DataSetMetaData {
        data_set_writer_id: None,
        fields: vec![
            FieldMetaData::scalar("a", BuiltInType::Float),
            FieldMetaData::scalar("b", BuiltInType::String),
            FieldMetaData { name: "c".into(), built_in_type: BuiltInType::Int16, array: true },
        ],
    }];
    let opts = DecodeOptions { raw_metadata: &meta, skip_unknown: data.len() % 2 == 1, ..DecodeOptions::default() };
    match decode_with(data, &opts) {
        Ok((msg, used)) => {
            assert!(used <= data.len());
            let bytes = to_vec(&msg).expect("a decoded message re-encodes");
            assert_eq!(encoded_len(&msg).unwrap(), bytes.len());
            let (again, n) = decode_with(&bytes, &opts).expect("re-encoded bytes decode");
            assert_eq!(n, bytes.len());
            assert_eq!(to_vec(&again).unwrap(), bytes, "canonical fixed point");
        }
        Err(e) => assert!(e.offset <= data.len()),
    }
    if let Ok(text) = core::str::from_utf8(data) {
        if let Ok(jm) = from_json(text, &JsonDecodeOptions::default()) {
            if let Ok(out) = to_json(&jm.message, &jm.options()) {
                let back = from_json(&out, &JsonDecodeOptions { metadata: &jm.metadata, ..Default::default() })
                    .expect("written JSON reads back");
                assert_eq!(to_json(&back.message, &back.options()).unwrap(), out, "JSON fixed point");
            }
        }
    }
});
