//! Value classes: what a codec might carry differently, per place in a message.
//!
//! A round-trip check on a sample of a large input would miss a loss that only a rare kind of
//! value causes (an integer past 2^53, a float that float32 cannot hold, a string with a
//! control character or one that reads as a number). [`classes`] names every place in a
//! message (its path: keys, `[]` for any array item) with the class of the value there, so a
//! sampled check can take, besides its systematic sample, every message that brings a (place,
//! class) pair the run has not checked yet ([`Novelty`]).
//!
//! Classes (a loss in any codec we know of follows one of these lines):
//! - integers: sign and the narrowest of u7/i8, u8, i16/u15, u16, i32/u31, u32, 53 bits
//!   (exact in a float64), i64, u64;
//! - floats: NaN, ±infinity, ±0, subnormal, outside float32's range, integral, exact in
//!   float32, within 1e-5 of its float32 rounding, the decade (1e-10 … 1e20), and whether it
//!   was read as float32 or float64;
//! - strings (values and keys): empty, length (<32, <256, <65,536, longer), non-ASCII,
//!   outside the BMP, control characters, NUL, white space at an end, a first character that
//!   is not a letter, reading as a number or as a YAML 1.1 word (true, no, null, ~ …);
//! - bytes: empty and length; arrays and maps: empty and length (the same steps).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use crate::Value;

/// Push one hash per (place, class) of `v` onto `out` (a place seen with several classes
/// gives several; repeats within one message are not removed).
pub fn classes(v: &Value, out: &mut Vec<u64>) {
    walk(v, SEED, out);
}

const SEED: u64 = 0x243f_6a88_85a3_08d3;

fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29).wrapping_add(0x632b_e59b_d9b4_e019)
}

fn mix_str(mut h: u64, s: &str) -> u64 {
    h = mix(h, s.len() as u64);
    let mut chunks = s.as_bytes().chunks_exact(8);
    for c in &mut chunks {
        h = mix(h, u64::from_le_bytes(c.try_into().expect("8 bytes")));
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    mix(h, u64::from_le_bytes(last))
}

/// Length steps (0 is its own class).
fn len_class(n: usize) -> u64 {
    match n {
        0 => 0,
        1..=31 => 1,
        32..=255 => 2,
        256..=65_535 => 3,
        _ => 4,
    }
}

fn int_class(negative: bool, magnitude: u64) -> u64 {
    // For a negative number, `magnitude` is -(n+1), so the steps are the signed ranges.
    let bits = 64 - magnitude.leading_zeros() as u64;
    let step = match bits {
        0..=7 => 0,
        8 => 1,
        9..=15 => 2,
        16 => 3,
        17..=31 => 4,
        32 => 5,
        33..=53 => 6,
        54..=63 => 7,
        _ => 8,
    };
    1 << 32 | step << 1 | negative as u64
}

fn float_class(x: f64, single: bool) -> u64 {
    let kind = if x.is_nan() {
        1
    } else if x.is_infinite() {
        2 | (x < 0.0) as u64
    } else if x == 0.0 {
        4 | x.is_sign_negative() as u64
    } else {
        let a = x.abs();
        let mut bits = 32; // finite, not zero
        if a < f64::MIN_POSITIVE {
            bits |= 1; // subnormal in float64
        }
        if a > f32::MAX as f64 || a < f32::MIN_POSITIVE as f64 {
            bits |= 2; // outside float32's normal range
        }
        if x.fract() == 0.0 {
            bits |= 4; // integral
        }
        if (x as f32) as f64 == x {
            bits |= 8; // exact in float32
        }
        if x < 0.0 {
            bits |= 16;
        }
        if (x - (x as f32) as f64).abs() <= 1e-5 {
            bits |= 64; // within 1e-5 of its float32 rounding (Protoson's float rule)
        }
        // The decade (1e-10 and below, …, 1e20 and above): text forms change notation and
        // precision rules by magnitude.
        let decade = (a.log10().floor() as i64).clamp(-10, 20) + 10;
        bits | (decade as u64) << 8
    };
    2 << 32 | kind << 1 | single as u64
}

fn str_class(s: &str) -> u64 {
    let b = s.as_bytes();
    let mut c = len_class(b.len());
    if b.is_empty() {
        return 3 << 32 | c;
    }
    let (mut non_ascii, mut non_bmp, mut control, mut nul) = (false, false, false, false);
    for &x in b {
        non_ascii |= x >= 0x80;
        non_bmp |= x >= 0xf0;
        control |= x < 0x20 || x == 0x7f;
        nul |= x == 0;
    }
    let first = b[0];
    let edge_space = first.is_ascii_whitespace() || b[b.len() - 1].is_ascii_whitespace();
    let not_letter = !first.is_ascii_alphabetic() && first < 0x80;
    let numeric = (first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'.')) && s.trim().parse::<f64>().is_ok();
    let word = b.len() <= 5
        && matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "~" | "nan" | ".nan" | ".inf"
        );
    for (i, f) in [non_ascii, non_bmp, control, nul, edge_space, not_letter, numeric, word].into_iter().enumerate() {
        c |= (f as u64) << (3 + i);
    }
    3 << 32 | c
}

fn walk(v: &Value, place: u64, out: &mut Vec<u64>) {
    let class = match v {
        Value::Null => 5 << 32,
        Value::Bool(_) => 6 << 32,
        Value::Int(n) => int_class(*n < 0, if *n < 0 { !(*n as u64) } else { *n as u64 }),
        Value::UInt(n) => int_class(false, *n),
        Value::F32(x) => float_class(*x as f64, true),
        Value::F64(x) => float_class(*x, false),
        Value::String(s) => str_class(s),
        Value::Bytes(b) => 4 << 32 | len_class(b.len()),
        Value::Array(items) => {
            let inner = mix(place, 0x5b5d);
            for it in items {
                walk(it, inner, out);
            }
            7 << 32 | len_class(items.len())
        }
        Value::Map(pairs) => {
            for (k, x) in pairs {
                let at = mix_str(place, k);
                out.push(mix(at, 1 << 40 | str_class(k)));
                walk(x, at, out);
            }
            8 << 32 | len_class(pairs.len())
        }
    };
    out.push(mix(place, class));
}

/// The pairs are hashes already: the set uses them as they are.
#[derive(Default)]
struct AsIs(u64);

impl Hasher for AsIs {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix(self.0, b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The (place, class) pairs checked so far in one run, in input order.
#[derive(Default)]
pub struct Novelty {
    seen: HashSet<u64, BuildHasherDefault<AsIs>>,
}

/// At most this many pairs are remembered (8 MB or so); past it every message with a pair
/// not remembered counts as new (more checks, never fewer).
const MAX_REMEMBERED: usize = 1 << 19;

impl Novelty {
    /// Whether a message with these pairs brings one not seen yet; its pairs are then
    /// remembered (a message to be checked anyway is passed with `checked`, so its pairs
    /// count as seen too).
    pub fn is_new(&mut self, pairs: &[u64], checked: bool) -> bool {
        let new = self.may_be_new(pairs);
        if (new || checked) && self.seen.len() < MAX_REMEMBERED {
            self.seen.extend(pairs.iter().copied().take(MAX_REMEMBERED - self.seen.len()));
        }
        new
    }

    /// Whether any of these pairs is not remembered yet (read only: many threads can ask
    /// before the answers are taken in order with [`Novelty::is_new`]; the set only grows, so
    /// `false` here stays `false` there).
    pub fn may_be_new(&self, pairs: &[u64]) -> bool {
        pairs.iter().any(|p| !self.seen.contains(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(json: &str) -> HashSet<u64> {
        let mut out = Vec::new();
        classes(&Value::from_json_str(json).unwrap(), &mut out);
        out.into_iter().collect()
    }

    #[test]
    fn same_shape_and_classes_give_the_same_pairs() {
        assert_eq!(
            set(r#"{"a":1,"b":"node-1","c":[1.5,2.25],"d":{"e":true}}"#),
            set(r#"{"a":7,"b":"node-9","c":[3.5],"d":{"e":false}}"#)
        );
        // Array length steps, not lengths.
        assert_eq!(set("[1,2,3]"), set("[4,5,6,7,8]"));
    }

    #[test]
    fn each_kind_of_rare_value_is_a_new_class() {
        let base = set(r#"{"n":5,"x":1.5,"s":"abc"}"#);
        for other in [
            r#"{"n":9007199254740993,"x":1.5,"s":"abc"}"#, // past 2^53
            r#"{"n":-5,"x":1.5,"s":"abc"}"#,
            r#"{"n":300,"x":1.5,"s":"abc"}"#,
            r#"{"n":5,"x":0.1,"s":"abc"}"#,   // not exact in float32
            r#"{"n":5,"x":2.0,"s":"abc"}"#,   // integral
            r#"{"n":5,"x":1e300,"s":"abc"}"#, // outside float32
            r#"{"n":5,"x":-0.0,"s":"abc"}"#,
            r#"{"n":5,"x":1.5,"s":"a\u0001c"}"#,
            r#"{"n":5,"x":1.5,"s":"a\u0000c"}"#,
            r#"{"n":5,"x":1.5,"s":"äbc"}"#,
            r#"{"n":5,"x":1.5,"s":"a😀c"}"#,
            r#"{"n":5,"x":1.5,"s":"123"}"#,
            r#"{"n":5,"x":1.5,"s":"yes"}"#,
            r#"{"n":5,"x":1.5,"s":"abc "}"#,
            r#"{"n":5,"x":1.5,"s":""}"#,
            r#"{"n":5,"x":1.5,"s":"abc","t":1}"#, // a new key
            r#"{"n":5,"x":1.5,"s":1}"#,           // another type at a place
            r#"{"n":5,"x":1.5,"é":"abc"}"#,
        ] {
            assert!(!set(other).is_subset(&base), "{other} brings nothing new");
        }
    }

    #[test]
    fn novelty_takes_each_new_pair_once() {
        let mut nov = Novelty::default();
        let pairs = |j: &str| {
            let mut out = Vec::new();
            classes(&Value::from_json_str(j).unwrap(), &mut out);
            out
        };
        assert!(nov.is_new(&pairs(r#"{"a":1}"#), false));
        assert!(!nov.is_new(&pairs(r#"{"a":2}"#), false));
        assert!(nov.is_new(&pairs(r#"{"a":-2}"#), false));
        assert!(!nov.is_new(&pairs(r#"{"a":-3}"#), false));
        // A message checked anyway (the systematic sample) teaches its pairs too.
        assert!(nov.is_new(&pairs(r#"{"a":0.5}"#), true));
        assert!(!nov.is_new(&pairs(r#"{"a":0.25}"#), false));
    }
}
