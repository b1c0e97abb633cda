//! Shared test helpers: hex, JSON ↔ `cdr::Value` guided by the type, key
//! views, a seeded PRNG and random values of a type.
#![allow(dead_code)]

use cdr::{Encoding, TypeDesc, UnionDesc, Value};

#[allow(unused_imports)]
pub use cdr::json::{from_json, to_json, unhex};

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The encoding named in a vector's `encoding` field ("XCDR1-LE", "xcdr2_be",
/// "XCDR2-LE key", ...) and whether it names a key serialization.
pub fn parse_encoding(s: &str) -> Option<(Encoding, bool)> {
    let u = s.to_ascii_uppercase();
    let v2 = if u.contains("XCDR2") || u.contains("CDR2") {
        true
    } else if u.contains("XCDR1") || u.contains("CDR") {
        false
    } else {
        return None;
    };
    let be = if u.contains("BE") || u.contains("BIG") {
        true
    } else if u.contains("LE") || u.contains("LITTLE") {
        false
    } else {
        return None;
    };
    let enc = match (v2, be) {
        (false, false) => Encoding::XCDR1_LE,
        (false, true) => Encoding::XCDR1_BE,
        (true, false) => Encoding::XCDR2_LE,
        (true, true) => Encoding::XCDR2_BE,
    };
    Some((enc, u.contains("KEY")))
}

/// The type a vector is about: the one named before ':' in its name when the
/// IDL defines it, else the last struct or union.
pub fn pick_type(file: &cdr::idl::IdlFile, vector_name: &str, type_hint: Option<&str>) -> Option<TypeDesc> {
    if let Some(t) = type_hint.and_then(|n| file.get(n)) {
        return Some(t.clone());
    }
    let head = vector_name.split(':').next().unwrap_or("").trim();
    let word = head.split_whitespace().next().unwrap_or("");
    for cand in [head, word] {
        if !cand.is_empty() {
            if let Some(t @ (TypeDesc::Struct(_) | TypeDesc::Union(_))) = file.get(cand) {
                return Some(t.clone());
            }
        }
    }
    file.root().cloned()
}

// ---------------------------------------------------------------------------------------------
// Key views

/// What a decoded key serialization holds: the top-level `@key` members,
/// every other member at its default.
pub fn key_view(ty: &TypeDesc, v: &Value) -> Value {
    key_view_in(ty, v, true)
}

fn key_view_in(ty: &TypeDesc, v: &Value, top: bool) -> Value {
    match (ty, v) {
        (TypeDesc::Struct(sd), Value::Struct(vals)) => {
            let has_keys = sd.has_keys();
            Value::Struct(
                sd.members
                    .iter()
                    .zip(vals)
                    .map(|(m, x)| {
                        let included = if top { m.key } else { !has_keys || m.key };
                        if included {
                            key_view_in(&m.ty, x, false)
                        } else if m.optional {
                            Value::Null
                        } else {
                            m.ty.default_value()
                        }
                    })
                    .collect(),
            )
        }
        (TypeDesc::Sequence { elem, .. }, Value::Seq(items)) => {
            Value::Seq(items.iter().map(|x| key_view_in(elem, x, false)).collect())
        }
        (TypeDesc::Array { elem, dims }, Value::Seq(items)) => {
            let sub = if dims.len() > 1 {
                TypeDesc::Array { elem: elem.clone(), dims: dims[1..].to_vec() }
            } else {
                (**elem).clone()
            };
            Value::Seq(items.iter().map(|x| key_view_in(&sub, x, false)).collect())
        }
        _ => v.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// Random values

/// xorshift64*: small, seeded, reproducible.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    pub fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
}

/// Options for random values.
#[derive(Clone, Copy, Debug)]
pub struct Gen {
    /// Longest sequence.
    pub max_len: u64,
    /// Characters and strings restricted to what cyclonedds-python round-trips
    /// (ASCII chars; no union discriminator selecting nothing in appendable unions).
    pub python_safe: bool,
    /// Allow NaN / infinities.
    pub non_finite: bool,
}

impl Default for Gen {
    fn default() -> Self {
        Gen { max_len: 4, python_safe: false, non_finite: true }
    }
}

fn rand_int(rng: &mut Rng, lo: i128, hi: i128) -> i128 {
    match rng.below(6) {
        0 => lo,
        1 => hi,
        2 => 0.clamp(lo, hi),
        _ => {
            let span = (hi - lo) as u128 + 1;
            let r = ((rng.next() as u128) << 64 | rng.next() as u128) % span.max(1);
            lo + r as i128
        }
    }
}

fn rand_string(rng: &mut Rng, bound: Option<u32>, g: &Gen) -> String {
    const POOL: &[&str] = &["a", "Z", "0", " ", "~", "é", "日", "\u{1F600}", "_", "x"];
    let max = bound.map(|b| b as u64).unwrap_or(12).min(12);
    let n = rng.below(max + 1);
    let mut s = String::new();
    for _ in 0..n {
        let p = if g.python_safe || rng.chance(70) {
            POOL[rng.below(5) as usize]
        } else {
            POOL[rng.below(POOL.len() as u64) as usize]
        };
        if let Some(b) = bound {
            if s.len() + p.len() > b as usize {
                break;
            }
        }
        s.push_str(p);
    }
    s
}

pub fn random_value(ty: &TypeDesc, rng: &mut Rng, g: &Gen) -> Value {
    match ty {
        TypeDesc::Bool => Value::Bool(rng.chance(50)),
        TypeDesc::Char => {
            let max = if g.python_safe { 127 } else { 255 };
            Value::Char(char::from(rng.below(max + 1) as u8))
        }
        TypeDesc::Octet | TypeDesc::UInt8 => Value::UInt(rand_int(rng, 0, 255) as u64),
        TypeDesc::UInt16 => Value::UInt(rand_int(rng, 0, u16::MAX as i128) as u64),
        TypeDesc::UInt32 => Value::UInt(rand_int(rng, 0, u32::MAX as i128) as u64),
        TypeDesc::UInt64 => Value::UInt(rand_int(rng, 0, u64::MAX as i128) as u64),
        TypeDesc::Int8 => Value::Int(rand_int(rng, i8::MIN as i128, i8::MAX as i128) as i64),
        TypeDesc::Int16 => Value::Int(rand_int(rng, i16::MIN as i128, i16::MAX as i128) as i64),
        TypeDesc::Int32 => Value::Int(rand_int(rng, i32::MIN as i128, i32::MAX as i128) as i64),
        TypeDesc::Int64 => Value::Int(rand_int(rng, i64::MIN as i128, i64::MAX as i128) as i64),
        TypeDesc::Float32 => {
            let f = loop {
                let f = match rng.below(4) {
                    0 => (rng.below(2001) as f32 - 1000.0) / 8.0,
                    _ => f32::from_bits(rng.next() as u32),
                };
                if f.is_finite() || g.non_finite {
                    break f;
                }
            };
            Value::F32(f)
        }
        TypeDesc::Float64 => {
            let f = loop {
                let f = match rng.below(4) {
                    0 => (rng.below(2001) as f64 - 1000.0) / 16.0,
                    _ => f64::from_bits(rng.next()),
                };
                if f.is_finite() || g.non_finite {
                    break f;
                }
            };
            Value::F64(f)
        }
        TypeDesc::String { bound } => Value::String(rand_string(rng, *bound, g)),
        TypeDesc::Sequence { elem, bound } => {
            let max = bound.map(|b| b as u64).unwrap_or(g.max_len).min(g.max_len);
            let n = rng.below(max + 1);
            if **elem == TypeDesc::Octet {
                Value::Bytes((0..n).map(|_| rng.next() as u8).collect())
            } else {
                Value::Seq((0..n).map(|_| random_value(elem, rng, g)).collect())
            }
        }
        TypeDesc::Array { elem, dims } => random_array(elem, dims, rng, g),
        TypeDesc::Enum(e) => {
            let i = rng.below(e.enumerators.len() as u64) as usize;
            Value::Enum(e.enumerators.get(i).map(|x| x.value).unwrap_or(0))
        }
        TypeDesc::Struct(sd) => Value::Struct(
            sd.members
                .iter()
                .map(|m| if m.optional && rng.chance(40) { Value::Null } else { random_value(&m.ty, rng, g) })
                .collect(),
        ),
        TypeDesc::Union(ud) => {
            let no_branch_ok = !(g.python_safe && ud.extensibility != cdr::Extensibility::Final);
            let pick = rng.below(ud.cases.len() as u64 + 1) as usize;
            let disc = match ud.cases.get(pick) {
                Some(c) if !c.labels.is_empty() && (!c.is_default || rng.chance(50)) => {
                    c.labels[rng.below(c.labels.len() as u64) as usize]
                }
                Some(_) => ud.default_discriminator().unwrap_or(0),
                None if no_branch_ok => {
                    unused_discriminator(ud, rng).unwrap_or_else(|| ud.cases[0].labels.first().copied().unwrap_or(0))
                }
                None => ud.cases.iter().find_map(|c| c.labels.first().copied()).unwrap_or(0),
            };
            let value = ud.select(disc).map(|c| Box::new(random_value(&c.ty, rng, g)));
            Value::Union { disc, value }
        }
    }
}

fn unused_discriminator(ud: &UnionDesc, rng: &mut Rng) -> Option<i64> {
    let (lo, hi): (i64, i64) = match &ud.discriminator {
        TypeDesc::Bool => (0, 1),
        TypeDesc::Octet | TypeDesc::UInt8 => (0, 255),
        TypeDesc::Char => (0, 127),
        TypeDesc::Int8 => (-128, 127),
        TypeDesc::Int16 => (-32768, 32767),
        TypeDesc::UInt16 => (0, 65535),
        TypeDesc::Enum(e) => {
            // An enumerator no case uses (a valid enum value selecting nothing).
            let free: Vec<i64> = e
                .enumerators
                .iter()
                .map(|x| x.value as i64)
                .filter(|v| !ud.cases.iter().any(|c| c.labels.contains(v)))
                .collect();
            return free.get(rng.below(free.len() as u64) as usize).copied();
        }
        _ => (-1000, 1000),
    };
    for _ in 0..16 {
        let d = lo + rng.below((hi - lo) as u64 + 1) as i64;
        if ud.select(d).is_none() || !ud.cases.iter().any(|c| c.labels.contains(&d)) {
            return Some(d);
        }
    }
    None
}

fn random_array(elem: &TypeDesc, dims: &[u32], rng: &mut Rng, g: &Gen) -> Value {
    let Some((&n, rest)) = dims.split_first() else {
        return random_value(elem, rng, g);
    };
    if rest.is_empty() && *elem == TypeDesc::Octet {
        return Value::Bytes((0..n).map(|_| rng.next() as u8).collect());
    }
    Value::Seq((0..n).map(|_| random_array(elem, rest, rng, g)).collect())
}
