//! JSON ↔ [`Value`] guided by the type (feature `json`): the form the shared test vectors,
//! the cyclonedds oracle and `wirebench encode/decode -f cdr-… --schema X.idl` use.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{json, Value as J};

use crate::{TypeDesc, UnionDesc, Value};

/// Bytes of a hex string (whitespace allowed between digits).
pub fn unhex(s: &str) -> Result<Vec<u8>, String> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if s.len() % 2 != 0 {
        return Err(format!("odd-length hex {s:?}"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| format!("bad hex {s:?}: {e}")))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// JSON → Value

/// A name without its IDL scope (`M::E::X` and `M.E.X` → `X`).
fn strip_scope(s: &str) -> &str {
    let s = s.rsplit("::").next().unwrap_or(s);
    s.rsplit('.').next().unwrap_or(s)
}

fn int_json(j: &J) -> Result<i128, String> {
    match j {
        J::Number(n) => {
            if let Some(u) = n.as_u64() {
                Ok(u as i128)
            } else if let Some(i) = n.as_i64() {
                Ok(i as i128)
            } else {
                let f = n.as_f64().ok_or("number")?;
                if f.fract() == 0.0 && f.abs() < 1.9e19 {
                    Ok(f as i128)
                } else {
                    Err(format!("{f} is not an integer"))
                }
            }
        }
        J::Bool(b) => Ok(*b as i128),
        J::String(s) => s.trim().parse::<i128>().map_err(|e| format!("integer {s:?}: {e}")),
        other => Err(format!("expected an integer, found {other}")),
    }
}

fn float_json(j: &J) -> Result<f64, String> {
    let special = |s: &str| -> Option<f64> {
        match s.to_ascii_lowercase().as_str() {
            "nan" => Some(f64::NAN),
            "infinity" | "inf" | "+infinity" | "+inf" => Some(f64::INFINITY),
            "-infinity" | "-inf" => Some(f64::NEG_INFINITY),
            other => other.parse().ok(),
        }
    };
    match j {
        J::Number(n) => n.as_f64().ok_or_else(|| "number".into()),
        J::String(s) => special(s).ok_or_else(|| format!("float {s:?}")),
        J::Object(m) if m.len() == 1 => match m.values().next() {
            Some(J::String(s)) => special(s).ok_or_else(|| format!("float marker {s:?}")),
            Some(other) => float_json(other),
            None => Err("empty float marker".into()),
        },
        other => Err(format!("expected a float, found {other}")),
    }
}

fn bytes_json(j: &J) -> Result<Vec<u8>, String> {
    match j {
        J::Array(a) => a
            .iter()
            .map(|x| {
                let n = int_json(x)?;
                u8::try_from(n).map_err(|_| format!("{n} is not an octet"))
            })
            .collect(),
        J::String(s) => unhex(s).or_else(|_| Ok(s.as_bytes().to_vec())),
        J::Object(m) if m.len() == 1 => match m.values().next() {
            Some(J::String(h)) => unhex(h),
            _ => Err("bytes marker".into()),
        },
        other => Err(format!("expected octets, found {other}")),
    }
}

/// A value of `ty` from JSON: integers as numbers or strings, floats as numbers or
/// `"NaN"`/`{"$f64":"Infinity"}`, octet sequences as lists or hex, enums by name or value,
/// structs as objects (or lists in member order), unions as `{"discriminator", "value"}` or
/// `{member: value}`.
pub fn from_json(ty: &TypeDesc, j: &J) -> Result<Value, String> {
    Ok(match ty {
        TypeDesc::Bool => match j {
            J::Bool(b) => Value::Bool(*b),
            other => Value::Bool(int_json(other)? != 0),
        },
        TypeDesc::Char => match j {
            J::String(s) if s.chars().count() == 1 => Value::Char(s.chars().next().unwrap_or('\0')),
            J::String(s) if s.is_empty() => Value::Char('\0'),
            other => Value::Char(char::from(u8::try_from(int_json(other)?).map_err(|_| "char out of range")?)),
        },
        TypeDesc::Int8 | TypeDesc::Int16 | TypeDesc::Int32 | TypeDesc::Int64 => {
            Value::Int(i64::try_from(int_json(j)?).map_err(|_| "integer out of range")?)
        }
        TypeDesc::Octet | TypeDesc::UInt8 | TypeDesc::UInt16 | TypeDesc::UInt32 | TypeDesc::UInt64 => {
            Value::UInt(u64::try_from(int_json(j)?).map_err(|_| "integer out of range")?)
        }
        TypeDesc::Float32 => Value::F32(float_json(j)? as f32),
        TypeDesc::Float64 => Value::F64(float_json(j)?),
        TypeDesc::String { .. } => match j {
            J::String(s) => Value::String(s.clone()),
            other => return Err(format!("expected a string, found {other}")),
        },
        TypeDesc::Sequence { elem, .. } => {
            if **elem == TypeDesc::Octet {
                Value::Bytes(bytes_json(j)?)
            } else {
                match j {
                    J::Array(a) => Value::Seq(a.iter().map(|x| from_json(elem, x)).collect::<Result<_, _>>()?),
                    other => return Err(format!("expected a list, found {other}")),
                }
            }
        }
        TypeDesc::Array { elem, dims } => array_json(elem, dims, j)?,
        TypeDesc::Enum(e) => match j {
            J::String(s) => {
                let name = strip_scope(s);
                match e.value_of(name) {
                    Some(v) => Value::Enum(v),
                    None => Value::Enum(name.parse().map_err(|_| format!("{s:?} is not an enumerator of {}", e.name))?),
                }
            }
            other => Value::Enum(i32::try_from(int_json(other)?).map_err(|_| "enum out of range")?),
        },
        TypeDesc::Struct(sd) => match j {
            J::Object(m) => {
                // Unknown keys (metadata a generator may add) are ignored; a wrong
                // type shows up as missing members instead.
                let mut vals = Vec::with_capacity(sd.members.len());
                for mem in &sd.members {
                    // `_x` in IDL is the escaped identifier `x`; accept either spelling.
                    match m.get(&mem.name).or_else(|| m.get(&format!("_{}", mem.name))) {
                        None | Some(J::Null) if mem.optional => vals.push(Value::Null),
                        None => return Err(format!("{}: member {:?} missing", sd.name, mem.name)),
                        Some(x) => {
                            vals.push(from_json(&mem.ty, x).map_err(|e| format!("{}.{}: {e}", sd.name, mem.name))?)
                        }
                    }
                }
                Value::Struct(vals)
            }
            J::Array(a) if a.len() == sd.members.len() => Value::Struct(
                sd.members
                    .iter()
                    .zip(a)
                    .map(|(m, x)| if x.is_null() && m.optional { Ok(Value::Null) } else { from_json(&m.ty, x) })
                    .collect::<Result<_, _>>()?,
            ),
            other => return Err(format!("expected an object for {}, found {other}", sd.name)),
        },
        TypeDesc::Union(ud) => union_json(ud, j)?,
    })
}

fn array_json(elem: &TypeDesc, dims: &[u32], j: &J) -> Result<Value, String> {
    let Some((&n, rest)) = dims.split_first() else {
        return from_json(elem, j);
    };
    if rest.is_empty() && *elem == TypeDesc::Octet {
        return Ok(Value::Bytes(bytes_json(j)?));
    }
    let J::Array(a) = j else {
        return Err(format!("expected a list for an array, found {j}"));
    };
    if a.len() == n as usize {
        return Ok(Value::Seq(a.iter().map(|x| array_json(elem, rest, x)).collect::<Result<_, _>>()?));
    }
    // A flat list for a multi-dimensional array: re-nest it.
    let inner: usize = rest.iter().map(|&d| d as usize).product();
    if !rest.is_empty() && a.len() == n as usize * inner {
        let mut rows = Vec::new();
        for chunk in a.chunks(inner) {
            rows.push(array_json(elem, rest, &J::Array(flat_to_nested(chunk, &rest[1..])))?);
        }
        return Ok(Value::Seq(rows));
    }
    Err(format!("array of {n} given {} elements", a.len()))
}

fn flat_to_nested(items: &[J], rest: &[u32]) -> Vec<J> {
    if rest.is_empty() {
        return items.to_vec();
    }
    let inner: usize = rest.iter().map(|&d| d as usize).product();
    items.chunks(inner.max(1)).map(|c| J::Array(flat_to_nested(c, &rest[1..]))).collect()
}

fn disc_json(ud: &UnionDesc, j: &J) -> Result<i64, String> {
    match (&ud.discriminator, j) {
        (TypeDesc::Enum(e), J::String(s)) => {
            let name = strip_scope(s);
            e.value_of(name)
                .map(|v| v as i64)
                .or_else(|| name.parse().ok())
                .ok_or_else(|| format!("{s:?} is not an enumerator of {}", e.name))
        }
        (TypeDesc::Char, J::String(s)) if s.chars().count() == 1 => Ok(s.chars().next().unwrap_or('\0') as i64),
        (_, other) => {
            let n = int_json(other)?;
            if let (TypeDesc::UInt64, Ok(u)) = (&ud.discriminator, u64::try_from(n)) {
                return Ok(u as i64);
            }
            i64::try_from(n).map_err(|_| "discriminator out of range".into())
        }
    }
}

const DISC_KEYS: &[&str] = &["discriminator", "_d", "disc", "$discriminator", "_discriminator", "d"];
const VALUE_KEYS: &[&str] = &["value", "_v", "$value", "_value", "v"];

fn union_json(ud: &UnionDesc, j: &J) -> Result<Value, String> {
    let is_case = |k: &str| ud.cases.iter().any(|c| c.name == k);
    let (disc_j, val_j, member): (Option<&J>, Option<&J>, Option<&str>) = match j {
        J::Object(m) => {
            let member = m.keys().find(|k| is_case(k)).map(|k| k.as_str());
            let disc = DISC_KEYS.iter().filter(|k| !is_case(k)).find_map(|k| m.get(*k)).or_else(|| {
                m.iter().find(|(k, _)| !is_case(k) && k.to_ascii_lowercase().ends_with("discriminator")).map(|(_, v)| v)
            });
            let val = VALUE_KEYS.iter().filter(|k| !is_case(k)).find_map(|k| m.get(*k)).or_else(|| {
                m.iter().find(|(k, _)| !is_case(k) && k.to_ascii_lowercase().ends_with("__value")).map(|(_, v)| v)
            });
            (disc, member.and_then(|k| m.get(k)).or(val), member)
        }
        J::Array(a) if a.len() == 2 => (Some(&a[0]), Some(&a[1]), None),
        other => return Err(format!("expected a union object for {}, found {other}", ud.name)),
    };
    let disc = match (disc_j, member) {
        (Some(d), _) => disc_json(ud, d)?,
        (None, Some(name)) => {
            let case = ud.cases.iter().find(|c| c.name == name).ok_or("no case")?;
            match case.labels.first() {
                Some(l) => *l,
                None => ud.default_discriminator().ok_or("no default discriminator")?,
            }
        }
        (None, None) => return Err(format!("union {}: no discriminator and no member in {j}", ud.name)),
    };
    let value = match ud.select(disc) {
        None => match val_j {
            None | Some(J::Null) => None,
            Some(v) => return Err(format!("union {}: discriminator {disc} selects no member but has {v}", ud.name)),
        },
        Some(case) => match val_j {
            Some(v) => Some(Box::new(from_json(&case.ty, v)?)),
            None => return Err(format!("union {}: no value for member {}", ud.name, case.name)),
        },
    };
    Ok(Value::Union { disc, value })
}

// ---------------------------------------------------------------------------------------------
// Value → canonical JSON (what scripts/cdr_oracle.py reads)

fn float_to_json(f: f64) -> J {
    if f.is_nan() {
        json!({"$f64": "NaN"})
    } else if f.is_infinite() {
        json!({"$f64": if f > 0.0 { "Infinity" } else { "-Infinity" }})
    } else {
        json!(f)
    }
}

/// The canonical JSON of a value of `ty` (what `from_json` reads back).
pub fn to_json(ty: &TypeDesc, v: &Value) -> J {
    match (ty, v) {
        (_, Value::Null) => J::Null,
        (_, Value::Bool(b)) => json!(b),
        (_, Value::Char(c)) => json!(c.to_string()),
        (_, Value::Int(i)) => json!(i),
        (_, Value::UInt(u)) => json!(u),
        (_, Value::F32(f)) => float_to_json(*f as f64),
        (_, Value::F64(f)) => float_to_json(*f),
        (_, Value::String(s)) => json!(s),
        (_, Value::Bytes(b)) => json!(b),
        (TypeDesc::Enum(e), Value::Enum(x)) => match e.name_of(*x) {
            Some(n) => json!(n),
            None => json!(x),
        },
        (_, Value::Enum(x)) => json!(x),
        (TypeDesc::Sequence { elem, .. }, Value::Seq(items)) => {
            J::Array(items.iter().map(|x| to_json(elem, x)).collect())
        }
        (TypeDesc::Array { elem, dims }, Value::Seq(items)) => {
            let sub = if dims.len() > 1 {
                TypeDesc::Array { elem: elem.clone(), dims: dims[1..].to_vec() }
            } else {
                (**elem).clone()
            };
            J::Array(items.iter().map(|x| to_json(&sub, x)).collect())
        }
        (TypeDesc::Struct(sd), Value::Struct(vals)) => {
            let mut m = serde_json::Map::new();
            for (mem, x) in sd.members.iter().zip(vals) {
                m.insert(mem.name.clone(), to_json(&mem.ty, x));
            }
            J::Object(m)
        }
        (TypeDesc::Union(ud), Value::Union { disc, value }) => {
            let val = match (ud.select(*disc), value) {
                (Some(c), Some(x)) => to_json(&c.ty, x),
                _ => J::Null,
            };
            json!({"discriminator": disc, "value": val})
        }
        (_, Value::Seq(items)) | (_, Value::Struct(items)) => {
            J::Array(items.iter().map(|x| to_json(&TypeDesc::Bool, x)).collect())
        }
        (_, Value::Union { .. }) => J::Null,
    }
}
