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
    /// systematic sample of the messages, and those that bring a new value class, are decoded
    /// and compared).
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

/// Whether a change of key order counts as a loss in [`compare_under`] (`--strict-order`; off
/// by default: JSON objects are unordered, RFC 8259, and schema-directed codecs write fields in
/// the schema's order, not the sample's). [`compare`] always names it.
static STRICT_ORDER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Count a change of key order as a loss (`true`) or not (`false`, the default).
pub fn set_strict_order(strict: bool) {
    STRICT_ORDER.store(strict, std::sync::atomic::Ordering::Relaxed);
}

/// Whether a change of key order counts as a loss.
pub fn strict_order() -> bool {
    STRICT_ORDER.load(std::sync::atomic::Ordering::Relaxed)
}

/// [`compare`] under the schema both ends share: what the schema says two forms of the same
/// message are is not a loss.
///
/// - A float32 field given as the float32's own shortest decimal (`3.323`, as every JSON
///   printer writes a float32) is that float32: reading it as float32 loses nothing the JSON
///   could carry. A decimal that needs more digits than a float32 holds is rounded: a loss.
/// - For a schema read from a .proto file, the proto3 JSON mapping's equivalences: a field
///   written with its lowerCamelCase name (`batteryLevel`) is the field (`battery_level`), and a
///   field with implicit presence reads the same absent as present with its default.
/// - A change of key order alone is not a loss unless [`set_strict_order`] says so.
pub fn compare_under(original: &Value, decoded: &Value, schema: Option<&crate::Schema>) -> Vec<String> {
    let mut losses = compare(original, decoded);
    if let Some(s) = schema.filter(|_| !losses.is_empty()) {
        losses = compare(&canonical(original, &s.root), &canonical(decoded, &s.root));
    }
    if !strict_order() {
        losses.retain(|l| !l.ends_with(": key order changed"));
    }
    losses
}

/// `v` as the schema reads it (see [`compare_under`]): float32 fields' shortest decimals as
/// float32, every key as its field's .proto name, implicit-presence defaults left out.
fn canonical(v: &Value, t: &crate::schema::Type) -> Value {
    use crate::schema::Type;
    let is_default = |v: &Value| match v {
        Value::Bool(b) => !b,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => v.as_i128() == Some(0) || v.as_float().is_some_and(|x| x == 0.0 && x.is_sign_positive()),
    };
    match (t, v) {
        (Type::Float { bits: 32 }, Value::F64(x)) => {
            let f = *x as f32;
            if f.is_finite() && format!("{f}").parse::<f64>() == Ok(*x) {
                Value::F32(f)
            } else {
                v.clone()
            }
        }
        (Type::Record { fields, .. }, Value::Map(pairs)) => Value::Map(
            pairs
                .iter()
                .filter_map(|(k, x)| {
                    let f = fields.iter().find(|f| f.name == *k).or_else(|| {
                        fields.iter().find(|f| f.proto.is_some() && crate::schema::lower_camel(&f.name) == *k)
                    });
                    let Some(f) = f else { return Some((k.clone(), x.clone())) };
                    let implicit = f.proto.as_ref().is_some_and(|p| p.implicit);
                    if implicit && !matches!(f.ty, Type::Record { .. }) && is_default(x) {
                        return None;
                    }
                    Some((f.name.clone(), canonical(x, &f.ty)))
                })
                .collect(),
        ),
        (Type::Array { items }, Value::Array(xs)) => Value::Array(xs.iter().map(|x| canonical(x, items)).collect()),
        _ => v.clone(),
    }
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
    // The n-th pair of a key in xs takes the n-th pair of that key in ys.
    let mut index = KeyIndex::new(ys);
    let mut all_present = true;
    let mut order_kept = true;
    let mut last = None;
    let mut ahead = HashAhead::new(xs.len(), |j| xs[j].0.as_str());
    for (j, (k, x)) in xs.iter().enumerate() {
        let h = ahead.next(j, |h| index.prefetch(h));
        let found = index.take(k, h);
        if let Some(i) = found {
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
        if !index.taken(i) {
            push(out, path, format!("key {k:?} added"));
        }
    }
}

/// An open-addressed index of the keys of one map. Each slot holds a key's hash (high 31
/// bits), whether the key's pairs are all taken (1 bit) and the position of its first pair not
/// taken yet, or of its last pair once all are (low half), which names the key; `next` chains
/// the later pairs of a repeated key and marks the taken ones. Flat `u64` slots and a
/// multiply-rotate hash keep a lookup to about one cache line (slots are prefetched as their
/// keys are hashed), so a reordered map costs about as much per key at 20,000 keys as at
/// 5,000 when both start from memory (with warm caches 5,000 keys fit L2 and 20,000 do not).
struct KeyIndex<'a> {
    ys: &'a [(String, Value)],
    slots: Vec<u64>,
    next: Vec<u32>,
    mask: usize,
}

const EMPTY: u64 = u64::MAX;
/// In `next`: the last pair of its key.
const LAST: u32 = u32::MAX;
/// In `next`: this pair was taken.
const TAKEN: u32 = u32::MAX - 1;
const TAG: u64 = 0xffff_fffe_0000_0000;
const ALL_TAKEN: u64 = 1 << 32;
const POS: u64 = 0xffff_ffff;
/// How many keys ahead a lookup's slot is prefetched.
const AHEAD: usize = 8;

fn key_hash(k: &str) -> u64 {
    const M: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = k.len() as u64;
    let mut chunks = k.as_bytes().chunks_exact(8);
    for c in &mut chunks {
        h = (h.rotate_left(5) ^ u64::from_le_bytes(c.try_into().unwrap())).wrapping_mul(M);
    }
    // The last 0–7 bytes in two loads that may overlap (the length is hashed already); a copy
    // into a zeroed word would stall the load that reads it back.
    let t = chunks.remainder();
    let n = t.len();
    let tail = if n >= 4 {
        let word = |b: &[u8]| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        word(t) | word(&t[n - 4..]) << 32
    } else if n > 0 {
        u64::from(t[0]) | u64::from(t[n / 2]) << 8 | u64::from(t[n - 1]) << 16
    } else {
        0
    };
    h = (h.rotate_left(5) ^ tail).wrapping_mul(M);
    // A multiply leaves the low bits depending on low bits only: fold the high ones down.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    #[cfg(test)]
    if tests::WEAK_HASH.with(|w| w.get()) {
        // Three hashes for all keys: tags and first slots collide all the time.
        let c = h % 3;
        return c | c << 40;
    }
    h
}

impl<'a> KeyIndex<'a> {
    fn new(ys: &'a [(String, Value)]) -> KeyIndex<'a> {
        assert!(ys.len() < TAKEN as usize, "a map of 2^32 keys");
        let cap = (ys.len() + ys.len() / 2).next_power_of_two().max(8);
        let n = ys.len();
        let mut ix = KeyIndex { ys, slots: vec![EMPTY; cap], next: vec![LAST; n], mask: cap - 1 };
        // Backwards, so that each key's slot ends on its first pair.
        let mut ahead = HashAhead::new(n, |j| ys[n - 1 - j].0.as_str());
        for j in 0..n {
            let (i, k) = (n - 1 - j, ys[n - 1 - j].0.as_str());
            let h = ahead.next(j, |h| ix.prefetch(h));
            let s = ix.find(k, h);
            if ix.slots[s] != EMPTY {
                ix.next[i] = (ix.slots[s] & POS) as u32;
            }
            ix.slots[s] = (h & TAG) | i as u64;
        }
        ix
    }

    /// The slot of `k`, or the empty slot where it would go.
    fn find(&self, k: &str, h: u64) -> usize {
        let mut s = (h as usize) & self.mask;
        loop {
            let e = self.slots[s];
            if e == EMPTY || (e & TAG == h & TAG && self.ys[(e & POS) as usize].0 == k) {
                return s;
            }
            s = (s + 1) & self.mask;
        }
    }

    /// Ask the cache for the slot a hash starts at, some keys ahead of its lookup: a large map's
    /// slots are out of the caches closest to the core, and lookups in a row would wait for
    /// each in turn.
    #[inline(always)]
    fn prefetch(&self, h: u64) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is a hint and never faults; SSE is part of x86_64.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(self.slots.as_ptr().add(h as usize & self.mask) as *const i8)
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = h;
    }

    /// The position of the next pair of `k` (hashed `h`) in ys not taken yet.
    fn take(&mut self, k: &str, h: u64) -> Option<usize> {
        let s = self.find(k, h);
        let e = self.slots[s];
        if e == EMPTY || e & ALL_TAKEN != 0 {
            return None;
        }
        let i = (e & POS) as usize;
        self.slots[s] = match self.next[i] {
            LAST => e | ALL_TAKEN,
            later => (e & TAG) | u64::from(later),
        };
        self.next[i] = TAKEN;
        Some(i)
    }

    /// Whether [`take`](Self::take) returned the pair at `i`.
    fn taken(&self, i: usize) -> bool {
        self.next[i] == TAKEN
    }
}

/// Keys hashed [`AHEAD`] of their use, the slot of each prefetched as it is hashed: a ring of
/// hashes, so no array of them all.
struct HashAhead<'k, F: Fn(usize) -> &'k str> {
    n: usize,
    key: F,
    ring: [u64; AHEAD],
}

impl<'k, F: Fn(usize) -> &'k str> HashAhead<'k, F> {
    /// For the keys `key(0..n)`; the first [`AHEAD`] are hashed on the first call of `next`.
    fn new(n: usize, key: F) -> Self {
        HashAhead { n, key, ring: [0; AHEAD] }
    }

    /// The hash of key `j` (called for j = 0, 1, … in turn); `prefetch` is given the hash of
    /// each key as it is first computed.
    #[inline(always)]
    fn next(&mut self, j: usize, prefetch: impl Fn(u64)) -> u64 {
        if j == 0 {
            for a in 0..AHEAD.min(self.n) {
                self.ring[a] = key_hash((self.key)(a));
                prefetch(self.ring[a]);
            }
        }
        let h = self.ring[j % AHEAD];
        if j + AHEAD < self.n {
            let g = key_hash((self.key)(j + AHEAD));
            prefetch(g);
            self.ring[j % AHEAD] = g;
        }
        h
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
            Value::Null,
            Value::Bool(true),
            Value::Bool(false),
            Value::Int(5),
            Value::UInt(5),
            Value::Int(-5),
            Value::F64(5.0),
            Value::F32(5.0),
            Value::F64(2.3),
            Value::F32(2.3),
            Value::F64(2.3000001),
            Value::F64(0.0),
            Value::F64(-0.0),
            Value::F32(-0.0),
            Value::F64(f64::NAN),
            Value::F32(f32::NAN),
            Value::String("x".into()),
            Value::String(String::new()),
            Value::Bytes(vec![1]),
            Value::Bytes(vec![]),
        ];
        for t in [
            r#"[1,2]"#,
            r#"[1,2.0]"#,
            r#"[1]"#,
            r#"[]"#,
            r#"{"a":1,"b":2}"#,
            r#"{"b":2,"a":1}"#,
            r#"{"a":1}"#,
            r#"{"a":[1,{"b":null}]}"#,
            r#"{"a":[1,{"b":false}]}"#,
            r#"{}"#,
        ] {
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
        assert_eq!(
            compare(&map(&[("a", 1), ("b", 2), ("a", 3)]), &map(&[("b", 2), ("a", 1), ("a", 3)])),
            vec!["$: key order changed"]
        );
        assert_eq!(compare(&map(&[("a", 1)]), &map(&[("b", 1), ("a", 1)])), vec!["$: key \"b\" added"]);
    }

    #[test]
    fn large_reordered_maps_match_key_by_key() {
        // Enough keys for the index to probe past collisions and wrap around its table.
        let keys: Vec<String> = (0..3000).map(|i| format!("k{}", i * 7919 % 3001)).collect();
        let pairs = |order: &mut dyn Iterator<Item = usize>| {
            Value::Map(order.map(|i| (keys[i].clone(), Value::UInt(i as u64))).collect())
        };
        let a = pairs(&mut (0..3000));
        let rev = pairs(&mut (0..3000).rev());
        assert_eq!(compare(&a, &rev), vec!["$: key order changed"]);
        // One value changed, one key dropped and one added, all named, in a reordered map.
        let Value::Map(mut ys) = rev.clone() else { unreachable!() };
        ys[10].1 = Value::UInt(0);
        let dropped = ys.remove(20).0;
        ys.push(("extra".into(), Value::Null));
        let got = compare(&a, &Value::Map(ys));
        assert_eq!(
            got,
            vec![
                format!("$.{dropped}: key dropped"),
                format!("$.{}: integer 2989 became 0", keys[2989]),
                "$: key \"extra\" added".to_string()
            ]
        );
        // A key present once in ys but twice in xs: the second is dropped.
        let twice = map(&[("x", 1), ("y", 2), ("x", 1)]);
        assert_eq!(compare(&twice, &map(&[("y", 2), ("x", 1)])), vec!["$.x: key dropped"]);
    }

    /// The index against a plain quadratic matching of the n-th pair of each key, on random
    /// flat maps with repeated, dropped, added, changed and reordered keys.
    #[test]
    fn the_key_index_matches_pairs_as_a_plain_search_does() {
        for weak in [false, true] {
            WEAK_HASH.with(|w| w.set(weak));
            key_index_against_plain_search();
        }
        WEAK_HASH.with(|w| w.set(false));
    }

    thread_local! {
        /// Makes `key_hash` collide on purpose, to test that keys are told apart by their bytes.
        pub(super) static WEAK_HASH: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    fn key_index_against_plain_search() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..400 {
            let n = 1 + rnd(if round % 10 == 0 { 3000 } else { 40 }) as usize;
            let alphabet = 1 + rnd(n as u64 * 2) as usize;
            let xs: Vec<(String, Value)> =
                (0..n).map(|_| (format!("k{}", rnd(alphabet as u64)), Value::UInt(rnd(4)))).collect();
            let mut ys = xs.clone();
            for _ in 0..rnd(4) {
                match rnd(4) {
                    0 if !ys.is_empty() => {
                        let i = rnd(ys.len() as u64) as usize;
                        ys.remove(i);
                    }
                    1 => ys.push((format!("k{}", rnd(alphabet as u64 + 3)), Value::UInt(rnd(4)))),
                    2 if !ys.is_empty() => {
                        let i = rnd(ys.len() as u64) as usize;
                        ys[i].1 = Value::UInt(rnd(4));
                    }
                    _ => {
                        let (a, b) = (rnd(ys.len() as u64 + 1) as usize, rnd(ys.len() as u64 + 1) as usize);
                        if a < ys.len() && b < ys.len() {
                            ys.swap(a, b);
                        }
                    }
                }
            }
            // The plain search: the n-th pair of a key in xs takes the n-th pair of it in ys.
            let mut want = Vec::new();
            let mut taken = vec![false; ys.len()];
            let (mut all_present, mut order_kept, mut last) = (true, true, None);
            for (k, x) in &xs {
                let found = (0..ys.len()).find(|&i| !taken[i] && ys[i].0 == *k);
                let path = format!("$.{k}");
                match found {
                    Some(i) => {
                        taken[i] = true;
                        order_kept &= last.is_none_or(|l| l < i);
                        last = Some(i);
                        if want.len() < MAX_LOSSES {
                            walk(x, &ys[i].1, 0.0, &mut path.clone(), &mut want);
                        }
                    }
                    None => {
                        all_present = false;
                        push(&mut want, &path, "key dropped".into());
                    }
                }
            }
            if all_present && xs.len() == ys.len() && !order_kept {
                push(&mut want, "$", "key order changed".into());
            }
            for (i, (k, _)) in ys.iter().enumerate() {
                if !taken[i] {
                    push(&mut want, "$", format!("key {k:?} added"));
                }
            }
            let got = compare_with(&Value::Map(xs.clone()), &Value::Map(ys.clone()), 0.0);
            assert_eq!(got, want, "round {round}: {xs:?} vs {ys:?}");
        }
    }
}
