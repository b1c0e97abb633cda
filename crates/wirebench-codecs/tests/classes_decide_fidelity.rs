//! The sampled round trip of `size` checks one message per value class (wirebench_core::classes)
//! besides its systematic sample. That is sound only if two values of the same class fare the
//! same in every codec: both exact, or both lossy, unsupported or failed. Checked here on pairs
//! of values of one class, across the kinds where codecs are known to lose data, in every codec
//! (schema inferred from both values of the pair, as `size` infers one schema from all samples).

use std::collections::HashSet;

use wirebench_core::classes::classes;
use wirebench_core::fidelity::{compare, Fidelity};
use wirebench_core::{Schema, Value};

fn pairs_of(v: &Value) -> HashSet<u64> {
    let mut out = Vec::new();
    classes(v, &mut out);
    out.into_iter().collect()
}

/// The outcome's kind in one codec.
fn outcome(codec: &dyn wirebench_codecs::Codec, schema: &Schema, v: &Value) -> &'static str {
    let p = match codec.prepare((codec.info().schema != wirebench_codecs::SchemaUse::None).then_some(schema)) {
        Ok(p) => p,
        Err(_) => return "unbound",
    };
    let mut buf = Vec::new();
    if p.encode(v, &mut buf).is_err() {
        return "refused";
    }
    match p.decode(&buf) {
        Ok(back) => Fidelity::from_losses(compare(v, &back)).label(),
        Err(_) => "failed",
    }
}

#[test]
fn values_of_one_class_fare_alike_in_every_codec() {
    // Each pair: two JSON texts for the field "v", of one class.
    let same_class: &[(&str, &str)] = &[
        ("5", "100"),
        ("200", "255"),
        ("300", "30000"),
        ("70000", "2000000000"),
        ("5000000000", "9007199254740991"),
        ("9007199254740993", "9000000000000000001"),
        ("18446744073709551615", "10000000000000000000"),
        ("-5", "-100"),
        ("-200", "-250"),
        ("-40000", "-60000"),
        ("-5000000000", "-9007199254740991"),
        ("-9007199254740993", "-9223372036854775808"),
        ("1.5", "2.25"),
        ("2.5", "7.125"),
        ("0.1", "0.3"),
        ("19.48", "23.1"),
        ("1013.27", "5001.33"),
        ("-0.1", "-0.7"),
        ("2.0", "8.0"),
        ("-3.0", "-7.0"),
        ("1e300", "1.7e308"),
        ("1e-300", "2.5e-200"),
        ("5e-324", "1e-310"),
        ("0.0", "0.0"),
        ("-0.0", "-0.0"),
        ("123456789.123", "987654321.5"),
        ("16777217.0", "33554435.0"),
        (r#""node-1100""#, r#""sensor_7""#),
        (r#""abc""#, r#""xyz""#),
        (r#""123""#, r#""4.5""#),
        (r#""-7""#, r#""+1e3""#),
        (r#""yes""#, r#""Off""#),
        (r#""null""#, r#""NULL""#),
        (r#""true""#, r#""False""#),
        (r#""a b ""#, r#""x  ""#),
        (r#"" lead""#, r#""  two""#),
        (r#""line\nbreak""#, r#""tab\tin""#),
        (r#""nul\u0000x""#, r#""z\u0000""#),
        (r#""grüße""#, r#""café""#),
        (r#""emoji 😀""#, r#""𝄞 clef""#),
        (r##""#hash""##, r#""&anchor""#),
        (r#""""#, r#""""#),
        ("true", "false"),
        ("null", "null"),
        ("[1,2,3]", "[7,8]"),
        ("[1.5,2.5]", "[3.5]"),
        ("[0.1,0.2]", "[0.3]"),
        ("[]", "[]"),
        (r#"{"a":1}"#, r#"{"a":7}"#),
        ("{}", "{}"),
        (r#"[[1,2],[3]]"#, r#"[[4],[5,6,7]]"#),
    ];
    let mut checked = 0;
    let mut not_exact = std::collections::BTreeMap::new();
    for (a, b) in same_class {
        let va = Value::from_json_str(&format!(r#"{{"id":1,"v":{a}}}"#)).unwrap();
        let vb = Value::from_json_str(&format!(r#"{{"id":1,"v":{b}}}"#)).unwrap();
        assert_eq!(pairs_of(&va), pairs_of(&vb), "{a} and {b} should be of one class");
        let schema = Schema::infer([&va, &vb]);
        for codec in wirebench_codecs::registry() {
            let (oa, ob) = (outcome(*codec, &schema, &va), outcome(*codec, &schema, &vb));
            assert_eq!(oa, ob, "{}: {a} is {oa}, {b} is {ob}", codec.info().id);
            checked += 1;
            if oa != "exact" {
                *not_exact.entry(oa).or_insert(0) += 1;
            }
        }
    }
    assert_eq!(checked, same_class.len() * wirebench_codecs::registry().len());
    // The pairs reach the losses and refusals the classes are there for.
    eprintln!("outcomes other than exact: {not_exact:?}");
    assert!(
        not_exact.get("lossy").copied().unwrap_or(0) >= 20 && not_exact.get("refused").copied().unwrap_or(0) >= 3,
        "{not_exact:?}"
    );
}
