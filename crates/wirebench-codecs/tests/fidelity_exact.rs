//! The fidelity check never calls an exact round trip lossy: for every codec of the zoo and
//! every payload of the built-in corpora (and values with the edges that went wrong before:
//! a repeated key, negative zero, 64-bit extremes, bytes, float32, empty containers), a value
//! that decodes identical to what was encoded (same variant, same bits) has no losses.

use wirebench_codecs::{registry, SchemaUse};
use wirebench_core::fidelity::compare;
use wirebench_core::{corpus, Schema, Value};

/// Same variant, same integers, same float bits, same keys in the same order.
fn identical(a: &Value, b: &Value) -> bool {
    use Value::*;
    match (a, b) {
        (F64(x), F64(y)) => x.to_bits() == y.to_bits(),
        (F32(x), F32(y)) => x.to_bits() == y.to_bits(),
        (Array(xs), Array(ys)) => xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| identical(x, y)),
        (Map(xs), Map(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|((k, x), (l, y))| k == l && identical(x, y))
        }
        _ => a == b,
    }
}

fn edges() -> Vec<(String, Value)> {
    let m = |pairs: Vec<(&str, Value)>| Value::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
    vec![
        ("repeated key".into(), m(vec![("a", Value::UInt(1)), ("a", Value::UInt(2))])),
        ("negative zero".into(), m(vec![("z", Value::F64(-0.0)), ("y", Value::F32(-0.0))])),
        ("64-bit extremes".into(), m(vec![("u", Value::UInt(u64::MAX)), ("i", Value::Int(i64::MIN))])),
        ("bytes and f32".into(), m(vec![("b", Value::Bytes(vec![0, 255, 7])), ("f", Value::F32(2.3))])),
        (
            "empty containers".into(),
            m(vec![("m", m(vec![])), ("a", Value::Array(vec![])), ("s", Value::String(String::new()))]),
        ),
        ("nested".into(), m(vec![("x", m(vec![("y", Value::Array(vec![Value::F64(1.5), Value::F64(-2.25)]))]))])),
    ]
}

#[test]
fn identical_round_trips_are_never_called_lossy() {
    let mut cases: Vec<(String, Value)> = edges();
    for c in corpus::BUILTIN {
        for p in c.payloads() {
            cases.push((format!("{}/{}", c.name, p.name), p.value));
        }
    }
    let (mut identical_trips, mut checked) = (0, 0);
    for codec in registry() {
        let info = codec.info();
        for (name, value) in &cases {
            let schema = Schema::infer([value]);
            let schema = (info.schema != SchemaUse::None).then_some(&schema);
            let mut bytes = Vec::new();
            if codec.encode(value, schema, &mut bytes).is_err() {
                continue;
            }
            let Ok(back) = codec.decode(&bytes, schema) else { continue };
            checked += 1;
            let losses = compare(value, &back);
            if identical(value, &back) {
                identical_trips += 1;
                assert!(losses.is_empty(), "{} on {name}: identical round trip called lossy: {losses:?}", info.id);
            }
        }
    }
    // The check is not vacuous: most trips are identical, and every codec is covered.
    assert!(checked >= registry().len() * 10, "{checked} round trips checked");
    assert!(identical_trips * 2 >= checked, "{identical_trips} of {checked} identical");
}
