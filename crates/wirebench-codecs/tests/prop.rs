//! Property tests: every codec round-trips generated values of its supported domain exactly.
//!
//! The RNG seed is printed on failure; rerun one with `WIREBENCH_PROP_SEED=<seed>`.
//! `WIREBENCH_PROP_CASES` sets the number of cases (default 256).

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use wirebench_core::fidelity::compare;
use wirebench_core::{Schema, Value};

/// What a codec's domain allows.
#[derive(Clone, Copy)]
struct Domain {
    bytes: bool,
    f32: bool,
    nonfinite: bool,
    /// Whole floats (1.0) read back as floats (PSON turns them into integers by design).
    whole_floats: bool,
    /// Fractional floats (Protoson's float rule is lossy for them).
    fractional_floats: bool,
    null: bool,
    u64_above_i64: bool,
    /// Root must be a map (BSON).
    map_root: bool,
    /// Map keys free-form (else identifiers only).
    any_keys: bool,
}

const ALL: Domain = Domain {
    bytes: true,
    f32: true,
    nonfinite: true,
    whole_floats: true,
    fractional_floats: true,
    null: true,
    u64_above_i64: true,
    map_root: false,
    any_keys: true,
};

fn leaf(d: Domain) -> BoxedStrategy<Value> {
    let mut options: Vec<BoxedStrategy<Value>> = vec![
        any::<bool>().prop_map(Value::Bool).boxed(),
        (i64::MIN..0i64).prop_map(Value::Int).boxed(),
        (0..=i64::MAX as u64).prop_map(Value::UInt).boxed(),
        (0u64..300).prop_map(Value::UInt).boxed(),
        "[ -~é€\u{1F600}\\x00]{0,40}".prop_map(Value::String).boxed(),
    ];
    if d.null {
        options.push(Just(Value::Null).boxed());
    }
    if d.u64_above_i64 {
        options.push((i64::MAX as u64..=u64::MAX).prop_map(Value::UInt).boxed());
    }
    if d.bytes {
        options.push(proptest::collection::vec(any::<u8>(), 0..40).prop_map(Value::Bytes).boxed());
    }
    let keep = move |f: f64| {
        (d.nonfinite || f.is_finite())
            && (d.whole_floats || f.fract() != 0.0 || !f.is_finite())
            && (d.fractional_floats || !f.is_finite() || f.fract() == 0.0)
    };
    if d.fractional_floats || d.whole_floats {
        options.push(any::<f64>().prop_filter("domain", move |f| keep(*f)).prop_map(Value::F64).boxed());
        options.push(
            (-1000i32..1000)
                .prop_map(|i| i as f64 / 8.0)
                .prop_filter("domain", move |f| keep(*f))
                .prop_map(Value::F64)
                .boxed(),
        );
        if d.f32 {
            options.push(any::<f32>().prop_filter("domain", move |f| keep(*f as f64)).prop_map(Value::F32).boxed());
        }
    }
    proptest::strategy::Union::new(options).boxed()
}

fn key(d: Domain) -> BoxedStrategy<String> {
    if d.any_keys {
        "[ -~é]{0,10}".boxed()
    } else {
        "[a-z][a-z0-9_]{0,8}".boxed()
    }
}

fn value(d: Domain) -> BoxedStrategy<Value> {
    let tree = leaf(d).prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((key(d), inner), 0..6).prop_map(dedup_keys).prop_map(Value::Map),
        ]
    });
    if d.map_root {
        proptest::collection::vec((key(d), tree), 0..6).prop_map(dedup_keys).prop_map(Value::Map).boxed()
    } else {
        tree.boxed()
    }
}

/// Maps with duplicate keys are not part of the data model's round-trip domain.
fn dedup_keys(mut pairs: Vec<(String, Value)>) -> Vec<(String, Value)> {
    let mut seen = std::collections::HashSet::new();
    pairs.retain(|(k, _)| seen.insert(k.clone()));
    pairs
}

fn seed() -> u64 {
    std::env::var("WIREBENCH_PROP_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
    })
}

fn cases() -> u32 {
    std::env::var("WIREBENCH_PROP_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256)
}

/// Run `strategy` through `check`; on failure, panic with the seed and the minimal input.
fn run(name: &str, strategy: BoxedStrategy<Value>, check: impl Fn(&Value) -> Result<(), String>) {
    let seed = seed();
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config { cases: cases(), failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    let result = runner.run(&strategy, |v| check(&v).map_err(TestCaseError::fail));
    if let Err(e) = result {
        panic!("{name}: property failed with WIREBENCH_PROP_SEED={seed}: {e}");
    }
}

fn roundtrip(id: &'static str, d: Domain) {
    let codec = wirebench_codecs::find(id).unwrap();
    run(id, value(d), |v| {
        let mut out = Vec::new();
        codec.encode(v, None, &mut out).map_err(|e| format!("encode {}: {e}", v.to_json_string()))?;
        let back = codec.decode(&out, None).map_err(|e| format!("decode {}: {e}", v.to_json_string()))?;
        let losses = compare(v, &back);
        if !losses.is_empty() {
            return Err(format!("{} → {}: {losses:?}", v.to_json_string(), back.to_json_string()));
        }
        // A decoder never panics on any truncation of a valid message.
        for cut in 0..out.len() {
            let _ = codec.decode(&out[..cut], None);
        }
        Ok(())
    });
}

#[test]
fn cbor_roundtrips() {
    roundtrip("cbor", ALL);
}

#[test]
fn msgpack_roundtrips() {
    roundtrip("msgpack", ALL);
}

#[test]
fn json_roundtrips() {
    // No bytes, no float32 (written with float32 digits, read back as float64), finite only.
    roundtrip("json", Domain { bytes: false, f32: false, nonfinite: false, ..ALL });
}

#[test]
fn yaml_roundtrips() {
    roundtrip("yaml", Domain { bytes: false, f32: false, ..ALL });
}

#[test]
fn bson_roundtrips() {
    roundtrip("bson", Domain { u64_above_i64: false, map_root: true, any_keys: false, ..ALL });
}

#[test]
fn pson_roundtrips() {
    roundtrip("pson", Domain { whole_floats: false, ..ALL });
}

#[test]
fn protoson_roundtrips() {
    // Protoson's float rule is lossy (1e-5), whole floats become integers: integers only.
    roundtrip("protoson", Domain { whole_floats: false, fractional_floats: false, ..ALL });
}

/// Records for the schema-driven codecs: the schema is inferred from the value itself.
fn record() -> BoxedStrategy<Value> {
    let scalar = prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|i| if i < 0 { Value::Int(i as i64) } else { Value::UInt(i as u64) }),
        any::<i64>().prop_map(|i| if i < 0 { Value::Int(i) } else { Value::UInt(i as u64) }),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::F64),
        "[a-zA-Z0-9 ]{0,20}".prop_map(Value::String),
        proptest::collection::vec(any::<u8>(), 0..20).prop_map(Value::Bytes),
    ];
    let field = prop_oneof![
        4 => scalar.clone(),
        1 => proptest::collection::vec(any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::F64), 1..5).prop_map(Value::Array),
        1 => proptest::collection::vec("[a-z]{0,5}".prop_map(Value::String), 1..4).prop_map(Value::Array),
        1 => proptest::collection::vec(("[a-z]{1,4}", scalar), 1..4).prop_map(dedup_keys).prop_map(Value::Map),
    ];
    proptest::collection::vec(("[a-z][a-z0-9_]{0,8}", field), 1..8).prop_map(dedup_keys).prop_map(Value::Map).boxed()
}

fn schema_roundtrip(id: &'static str) {
    let codec = wirebench_codecs::find(id).unwrap();
    run(id, record(), |v| {
        let schema = Schema::infer([v]);
        let mut out = Vec::new();
        codec.encode(v, Some(&schema), &mut out).map_err(|e| format!("encode {}: {e}", v.to_json_string()))?;
        let back = codec.decode(&out, Some(&schema)).map_err(|e| format!("decode {}: {e}", v.to_json_string()))?;
        let losses = compare(v, &back);
        if !losses.is_empty() {
            return Err(format!("{} → {}: {losses:?}", v.to_json_string(), back.to_json_string()));
        }
        for cut in 0..out.len() {
            let _ = codec.decode(&out[..cut], Some(&schema));
        }
        Ok(())
    });
}

#[test]
fn protobuf_roundtrips() {
    schema_roundtrip("protobuf");
}

#[test]
fn avro_roundtrips() {
    schema_roundtrip("avro");
}

#[test]
fn thrift_roundtrips() {
    schema_roundtrip("thrift");
}

#[test]
fn xml_roundtrips_with_schema() {
    schema_roundtrip("xml");
}

#[test]
fn cdr_xcdr1_roundtrips() {
    schema_roundtrip("cdr-xcdr1");
}

#[test]
fn cdr_xcdr2_roundtrips() {
    schema_roundtrip("cdr-xcdr2");
}

#[test]
fn uadp_roundtrips() {
    schema_roundtrip("uadp");
}

#[test]
fn uadp_json_roundtrips() {
    schema_roundtrip("uadp-json");
}

#[test]
fn uadp_json_reversible_roundtrips() {
    schema_roundtrip("uadp-json-rev");
}
