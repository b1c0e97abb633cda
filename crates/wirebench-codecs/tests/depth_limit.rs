//! One nesting limit for every codec (wirebench_core::value::max_depth, default 128): a value
//! nested to the limit decodes; a nesting bomb (far deeper, made by encoding with the limit
//! raised) is refused with a one-line error naming the limit, on a 2 MiB thread stack too (the
//! HTTP and TCP servers decode on such threads). One test function: the limit is process-wide.

use wirebench_codecs::{registry, SchemaUse, MAX_DEPTH};
use wirebench_core::value::{max_depth, set_max_depth};
use wirebench_core::{Schema, Value};

/// `{"a":{"a":…{"a":1}}}` with `depth` maps.
fn nested(depth: usize) -> Value {
    let mut v = Value::UInt(1);
    for _ in 0..depth {
        v = Value::Map(vec![("a".into(), v)]);
    }
    v
}

/// `[[…[1]…]]` with `depth` arrays.
fn nested_arrays(depth: usize) -> Value {
    let mut v = Value::UInt(1);
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

fn bombs(depth: usize) -> Vec<(&'static str, Value, Schema, Vec<u8>)> {
    set_max_depth(depth + 8).unwrap();
    let mut out = Vec::new();
    for codec in registry() {
        let id = codec.info().id;
        for value in [nested(depth), nested_arrays(depth)] {
            let schema = Schema::infer([&value]);
            let mut bytes = Vec::new();
            if codec.encode(&value, Some(&schema), &mut bytes).is_ok() {
                out.push((id, value, schema, bytes));
            }
        }
    }
    set_max_depth(MAX_DEPTH).unwrap();
    out
}

#[test]
fn every_codec_refuses_a_nesting_bomb() {
    // The test's own work (encoding 600 deep) runs on a large stack; the decoding under test
    // also on a 2 MiB one below.
    std::thread::Builder::new().stack_size(256 << 20).spawn(bomb_test).unwrap().join().unwrap();
}

fn bomb_test() {
    assert_eq!(max_depth(), 128);
    // At the limit: every codec that can encode the shape decodes it.
    let mut at_limit = Vec::new();
    for codec in registry() {
        for value in [nested(MAX_DEPTH), nested_arrays(MAX_DEPTH)] {
            let schema = Schema::infer([&value]);
            let mut bytes = Vec::new();
            if codec.encode(&value, Some(&schema), &mut bytes).is_ok() {
                let schema = (codec.info().schema != SchemaUse::None).then_some(&schema);
                codec.decode(&bytes, schema).unwrap_or_else(|e| panic!("{}: {MAX_DEPTH} deep: {e}", codec.info().id));
                at_limit.push(codec.info().id);
            }
        }
    }
    // Every codec takes at least one nested shape (maps or arrays).
    for codec in registry() {
        assert!(at_limit.contains(&codec.info().id), "{} encodes neither shape {MAX_DEPTH} deep", codec.info().id);
    }
    let bombs = bombs(600);
    let mut refused = Vec::new();
    for (id, _, schema, bytes) in &bombs {
        let codec = wirebench_codecs::find(id).unwrap();
        let schema = (codec.info().schema != SchemaUse::None).then_some(schema);
        let decode = || codec.decode(bytes, schema).map(|_| ()).map_err(|e| e.to_string());
        let e = decode().expect_err(id);
        assert!(e.contains("deeper than 128"), "{id}: {e}");
        assert!(!e.contains('\n'), "{id}: {e}");
        // On a 2 MiB stack: the same error, no overflow.
        let small = std::thread::scope(|s| {
            std::thread::Builder::new().stack_size(2 << 20).spawn_scoped(s, decode).unwrap().join().unwrap()
        });
        assert_eq!(small.unwrap_err(), e);
        refused.push(*id);
    }
    for codec in registry() {
        assert!(refused.contains(&codec.info().id), "no bomb for {}", codec.info().id);
    }
    // The limit is configurable: raised, the bombs decode.
    set_max_depth(700).unwrap();
    for (id, value, schema, bytes) in &bombs {
        if *id == "yaml" {
            continue; // serde_yaml_ng's own limit of 128 stays (documented in the codec's notes)
        }
        let codec = wirebench_codecs::find(id).unwrap();
        let schema = (codec.info().schema != SchemaUse::None).then_some(schema);
        let back = codec.decode(bytes, schema).unwrap_or_else(|e| panic!("{id} with the limit raised: {e}"));
        let _ = (back, value);
    }
    set_max_depth(MAX_DEPTH).unwrap();
    assert!(set_max_depth(0).is_err() && set_max_depth(1_000_000).is_err());
}
