//! Round-trip fidelity: compare what went into a codec with what came back out.
//!
//! Integers compare by value (signed vs unsigned class does not matter), floats by value
//! (width does not matter when the value is the same; NaN equals NaN). Everything else that
//! differs is a loss, described with the JSON path where it happened.

use serde::{Deserialize, Serialize};

use crate::value::Value;

/// The outcome of a round trip through one codec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Fidelity {
    /// Decoded value equals the input.
    Exact,
    /// Decoded value differs; `losses` says what was lost and where (first few, deduplicated).
    Lossy { losses: Vec<String> },
    /// The codec cannot represent this value (e.g. a BSON root that is not a document).
    Unsupported { reason: String },
    /// Encoding or decoding failed.
    Failed { reason: String },
    /// Encoded, but the round trip was not checked (`size --roundtrip sample|none`: only a
    /// systematic sample of the messages is decoded and compared).
    Unchecked,
}

impl Fidelity {
    pub fn label(&self) -> &'static str {
        match self {
            Fidelity::Exact => "exact",
            Fidelity::Lossy { .. } => "lossy",
            Fidelity::Unsupported { .. } => "unsupported",
            Fidelity::Failed { .. } => "failed",
            Fidelity::Unchecked => "unchecked",
        }
    }

    /// One line for tables: the label plus the first reason.
    pub fn summary(&self) -> String {
        match self {
            Fidelity::Exact => "exact".into(),
            Fidelity::Lossy { losses } => match losses.first() {
                Some(first) if losses.len() > 1 => {
                    format!("lossy: {first} (+{} more)", losses.len() - 1)
                }
                Some(first) => format!("lossy: {first}"),
                None => "lossy".into(),
            },
            Fidelity::Unsupported { reason } => format!("unsupported: {reason}"),
            Fidelity::Failed { reason } => format!("failed: {reason}"),
            Fidelity::Unchecked => "unchecked (round trip not checked for this message)".into(),
        }
    }

    /// Build from a list of losses found by [`compare`].
    pub fn from_losses(losses: Vec<String>) -> Fidelity {
        if losses.is_empty() {
            Fidelity::Exact
        } else {
            Fidelity::Lossy { losses }
        }
    }
}

/// The relative float tolerance of the fidelity check (`--float-tolerance`), as f64 bits:
/// floats that differ by at most this fraction of the larger magnitude compare equal (0: only
/// the same value does).
static FLOAT_TOLERANCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Set the relative float tolerance (0 ≤ t < 1; e.g. 1e-6 accepts float64 → float32
/// rounding, whose relative error is below 6e-8).
pub fn set_float_tolerance(t: f64) -> Result<(), String> {
    if !(t.is_finite() && (0.0..1.0).contains(&t)) {
        return Err(format!("--float-tolerance {t}: expected a relative tolerance in [0, 1), e.g. 1e-6"));
    }
    FLOAT_TOLERANCE.store(t.to_bits(), std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// The relative float tolerance in force.
pub fn float_tolerance() -> f64 {
    f64::from_bits(FLOAT_TOLERANCE.load(std::sync::atomic::Ordering::Relaxed))
}

/// How many distinct losses are kept per comparison.
const MAX_LOSSES: usize = 8;

/// Compare `original` with `decoded`; returns the losses (empty when the round trip is exact).
pub fn compare(original: &Value, decoded: &Value) -> Vec<String> {
    compare_with(original, decoded, float_tolerance())
}

/// [`compare`] with a relative float tolerance of its own.
pub fn compare_with(original: &Value, decoded: &Value, tol: f64) -> Vec<String> {
    // Most round trips are exact: one pass that allocates nothing says so; only a pair with a
    // loss is walked again to name where.
    if same(original, decoded, tol) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut path = String::from("$");
    walk(original, decoded, tol, &mut path, &mut out);
    out
}

/// Whether [`walk`] would find no loss between `a` and `b` (the same rules, no paths).
fn same(a: &Value, b: &Value, tol: f64) -> bool {
    use Value::*;
    match (a, b) {
        (Null, Null) => true,
        (Bool(x), Bool(y)) => x == y,
        (String(x), String(y)) => x == y,
        (Bytes(x), Bytes(y)) => x == y,
        (Array(xs), Array(ys)) => xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y, tol)),
        // Any difference in keys, their count or their order is a loss.
        (Map(xs), Map(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|((k, x), (l, y))| k == l && same(x, y, tol))
        }
        _ => match (a.as_i128(), b.as_i128(), a.as_float(), b.as_float()) {
            (Some(x), Some(y), _, _) => x == y,
            (_, _, Some(x), Some(y)) => {
                (x.is_nan() && y.is_nan())
                    || (x == y && !(x == 0.0 && x.is_sign_negative() != y.is_sign_negative()))
                    || (x != y && (x - y).abs() <= tol * x.abs().max(y.abs()))
            }
            _ => false,
        },
    }
}

fn push(out: &mut Vec<String>, path: &str, what: String) {
    if out.len() < MAX_LOSSES && !out.iter().any(|o| o.ends_with(&what)) {
        out.push(format!("{path}: {what}"));
    }
}

fn walk(a: &Value, b: &Value, tol: f64, path: &mut String, out: &mut Vec<String>) {
    use Value::*;
    if out.len() >= MAX_LOSSES {
        return;
    }
    match (a, b) {
        (Null, Null) => {}
        (Bool(x), Bool(y)) if x == y => {}
        (String(x), String(y)) if x == y => {}
        (Bytes(x), Bytes(y)) if x == y => {}
        _ if a.as_i128().is_some() && b.as_i128().is_some() => {
            if a.as_i128() != b.as_i128() {
                push(out, path, format!("integer {} became {}", num(a), num(b)));
            }
        }
        _ if a.as_float().is_some() && b.as_float().is_some() => {
            let (x, y) = (a.as_float().unwrap(), b.as_float().unwrap());
            if x.is_nan() && y.is_nan() {
            } else if x == y && x == 0.0 && x.is_sign_negative() != y.is_sign_negative() {
                push(out, path, "sign of zero lost".into());
            } else if x != y && (x - y).abs() <= tol * x.abs().max(y.abs()) {
                // Within the tolerance the user gave.
            } else if x != y {
                let what = if matches!(b, F32(_)) && (x as f32) as f64 == y {
                    "float64 rounded to float32".to_string()
                } else {
                    format!("float {x} became {y}")
                };
                push(out, path, what);
            }
        }
        _ if a.as_float().is_some() && b.as_i128().is_some() => {
            let x = a.as_float().unwrap();
            if x == b.as_i128().unwrap() as f64 {
                push(out, path, "whole float became integer".into());
            } else {
                push(out, path, format!("float {x} became integer {}", num(b)));
            }
        }
        _ if a.as_i128().is_some() && b.as_float().is_some() => {
            let y = b.as_float().unwrap();
            if a.as_i128().unwrap() as f64 == y && (y as i128) == a.as_i128().unwrap() {
                push(out, path, "integer became float".into());
            } else {
                push(out, path, format!("integer {} became float {y}", num(a)));
            }
        }
        (Array(xs), Array(ys)) => {
            if xs.len() != ys.len() {
                push(out, path, format!("array of {} became {} items", xs.len(), ys.len()));
            }
            for (i, (x, y)) in xs.iter().zip(ys).enumerate() {
                let len = path.len();
                use std::fmt::Write;
                let _ = write!(path, "[{i}]");
                walk(x, y, tol, path, out);
                path.truncate(len);
            }
        }
        (Map(xs), Map(ys)) => walk_map(xs, ys, tol, path, out),
        (Bytes(_), Array(_)) => push(out, path, "bytes became an array of integers".into()),
        (Bytes(_), String(_)) => push(out, path, "bytes became a string".into()),
        (Null, String(s)) if s.is_empty() => push(out, path, "null became empty string".into()),
        (Null, _) | (_, Null) => {
            push(out, path, format!("{} became {}", a.kind(), b.kind()));
        }
        (_, String(_)) => push(out, path, format!("{} became string", a.kind())),
        _ if a.kind() == b.kind() => push(out, path, format!("{} value changed", a.kind())),
        _ => push(out, path, format!("{} became {}", a.kind(), b.kind())),
    }
}

/// Maps compare pair by pair when both have the same keys in the same order (the common case,
/// repeated keys included); otherwise the n-th pair of a key in `xs` is matched with the n-th
/// pair of that key in `ys` through a hash index. Linear either way.
fn walk_map(xs: &[(String, Value)], ys: &[(String, Value)], tol: f64, path: &mut String, out: &mut Vec<String>) {
    let step = |k: &str, x: &Value, y: Option<&Value>, path: &mut String, out: &mut Vec<String>| {
        let len = path.len();
        path.push('.');
        path.push_str(k);
        match y {
            Some(y) => walk(x, y, tol, path, out),
            None => push(out, path, "key dropped".into()),
        }
        path.truncate(len);
    };
    if xs.len() == ys.len() {
        // One pass while the keys agree; at the first that does not, the losses found so far
        // are dropped and the hashed pass below finds them again.
        let mark = out.len();
        let mut agreed = 0;
        for ((k, x), (l, y)) in xs.iter().zip(ys) {
            if k != l {
                break;
            }
            if out.len() < MAX_LOSSES {
                step(k, x, Some(y), path, out);
            }
            agreed += 1;
        }
        if agreed == xs.len() {
            return;
        }
        out.truncate(mark);
    }
    // Key → index of its first pair in ys not matched yet; `next` chains the pairs of one key
    // in order (no allocation per key).
    const NONE: usize = usize::MAX;
    let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::with_capacity(ys.len());
    let mut next = vec![NONE; ys.len()];
    for (i, (k, _)) in ys.iter().enumerate().rev() {
        if let Some(later) = first.insert(k.as_str(), i) {
            next[i] = later;
        }
    }
    let mut matched = vec![false; ys.len()];
    let mut all_present = true;
    let mut order_kept = true;
    let mut last = None;
    for (k, x) in xs {
        let found = match first.get_mut(k.as_str()) {
            Some(slot) if *slot != NONE => {
                let i = *slot;
                *slot = next[i];
                Some(i)
            }
            _ => None,
        };
        if let Some(i) = found {
            matched[i] = true;
            order_kept &= match last {
                Some(l) => l < i,
                None => true,
            };
            last = Some(i);
        } else {
            all_present = false;
        }
        if out.len() < MAX_LOSSES {
            step(k, x, found.map(|i| &ys[i].1), path, out);
        }
    }
    if all_present && xs.len() == ys.len() && !order_kept {
        push(out, path, "key order changed".into());
    }
    for (i, (k, _)) in ys.iter().enumerate() {
        if !matched[i] {
            push(out, path, format!("key {k:?} added"));
        }
    }
}

fn num(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        _ => v.kind().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(s: &str) -> Value {
        Value::from_json_str(s).unwrap()
    }

    #[test]
    fn equal_values_are_exact() {
        let v = j(r#"{"a":[1,-2,2.5,null,true,"x",{"$bytes":"01"}]}"#);
        assert!(compare(&v, &v.clone()).is_empty());
        // Same value, other integer class / float width: still exact.
        assert!(compare(&Value::UInt(5), &Value::Int(5)).is_empty());
        assert!(compare(&Value::F64(48.75), &Value::F32(48.75)).is_empty());
        assert!(compare(&Value::F64(f64::NAN), &Value::F32(f32::NAN)).is_empty());
    }

    #[test]
    fn losses_are_named_with_paths() {
        let l = compare(&j(r#"{"a":{"b":[1.0,2.3]}}"#), &j(r#"{"a":{"b":[1,"2.3"]}}"#));
        assert_eq!(l, vec!["$.a.b[0]: whole float became integer", "$.a.b[1]: float64 became string"]);
        let l = compare(&Value::F64(2.3), &Value::F32(2.3));
        assert_eq!(l, vec!["$: float64 rounded to float32"]);
        let l = compare(&j(r#"{"a":1,"b":2}"#), &j(r#"{"b":2,"a":1}"#));
        assert_eq!(l, vec!["$: key order changed"]);
        let l = compare(&j(r#"{"a":1,"b":2}"#), &j(r#"{"a":1}"#));
        assert_eq!(l, vec!["$.b: key dropped"]);
        let l = compare(&Value::F64(-0.0), &Value::UInt(0));
        assert_eq!(l, vec!["$: whole float became integer"]);
        let l = compare(&Value::F64(-0.0), &Value::F64(0.0));
        assert_eq!(l, vec!["$: sign of zero lost"]);
    }

    #[test]
    fn a_tolerance_accepts_float32_rounding_and_nothing_coarser() {
        assert_eq!(compare(&Value::F64(2.3), &Value::F32(2.3)), vec!["$: float64 rounded to float32"]);
        assert!(compare_with(&Value::F64(2.3), &Value::F32(2.3), 1e-6).is_empty());
        assert_eq!(compare_with(&Value::F64(2.3), &Value::F64(2.31), 1e-6), vec!["$: float 2.3 became 2.31"]);
        assert!(set_float_tolerance(f64::NAN).unwrap_err().contains("--float-tolerance NaN"));
        assert!(set_float_tolerance(1.0).is_err());
    }

    /// The allocation-free pass says "exact" exactly when the walk finds no loss, for every
    /// pair of a set of values that covers each rule (classes, widths, NaN, signed zero,
    /// tolerance, lengths, key order, repeated keys, kinds).
    #[test]
    fn the_fast_pass_agrees_with_the_walk() {
        let mut vals = vec![
            Value::Null, Value::Bool(true), Value::Bool(false), Value::Int(5), Value::UInt(5), Value::Int(-5),
            Value::F64(5.0), Value::F32(5.0), Value::F64(2.3), Value::F32(2.3), Value::F64(2.3000001),
            Value::F64(0.0), Value::F64(-0.0), Value::F32(-0.0), Value::F64(f64::NAN), Value::F32(f32::NAN),
            Value::String("x".into()), Value::String(String::new()), Value::Bytes(vec![1]), Value::Bytes(vec![]),
        ];
        for t in [r#"[1,2]"#, r#"[1,2.0]"#, r#"[1]"#, r#"[]"#, r#"{"a":1,"b":2}"#, r#"{"b":2,"a":1}"#, r#"{"a":1}"#,
            r#"{"a":[1,{"b":null}]}"#, r#"{"a":[1,{"b":false}]}"#, r#"{}"#] {
            vals.push(j(t));
        }
        vals.push(map(&[("a", 1), ("a", 2)]));
        vals.push(map(&[("a", 2), ("a", 1)]));
        for tol in [0.0, 1e-6] {
            for a in &vals {
                for b in &vals {
                    let mut out = Vec::new();
                    walk(a, b, tol, &mut String::from("$"), &mut out);
                    assert_eq!(same(a, b, tol), out.is_empty(), "{a:?} vs {b:?} (tolerance {tol}): {out:?}");
                }
            }
        }
    }

    fn map(pairs: &[(&str, u64)]) -> Value {
        Value::Map(pairs.iter().map(|(k, v)| (k.to_string(), Value::UInt(*v))).collect())
    }

    #[test]
    fn repeated_keys_compare_pair_by_pair() {
        // A map with a key twice that comes back as it went is exact, not "2 became 1".
        let v = map(&[("a", 1), ("a", 2)]);
        assert!(compare(&v, &v.clone()).is_empty());
        // The second pair lost: named, not hidden behind the first.
        assert_eq!(compare(&v, &map(&[("a", 1), ("a", 1)])), vec!["$.a: integer 2 became 1"]);
        assert_eq!(compare(&v, &map(&[("a", 1)])), vec!["$.a: key dropped"]);
        assert_eq!(compare(&map(&[("a", 1), ("b", 2), ("a", 3)]), &map(&[("b", 2), ("a", 1), ("a", 3)])), vec!["$: key order changed"]);
        assert_eq!(compare(&map(&[("a", 1)]), &map(&[("b", 1), ("a", 1)])), vec!["$: key \"b\" added"]);
    }
}
