//! Fuzz schema reading and inference: a schema file (JSON) is read, and JSON samples are
//! inferred and checked against the schema inferred from them.
//!
//! * `Schema::from_json_str` never panics; a schema it reads writes back and reads again;
//! * the schema inferred from a JSON value accepts that value.
#![no_main]

use wirebench_core::{Schema, Value};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = core::str::from_utf8(data) else { return };
    if let Ok(schema) = Schema::from_json_str(text) {
        let again = Schema::from_json_str(&schema.to_json_pretty()).expect("a written schema reads back");
        assert_eq!(again.to_json_pretty(), schema.to_json_pretty());
    }
    if let Ok(value) = Value::from_json_str(text) {
        let schema = Schema::infer([&value]);
        if let Err(e) = schema.check(&value) {
            panic!("the schema inferred from a value refuses it: {e}");
        }
    }
});
