//! The one dynamic value every codec encodes and decodes.
//!
//! Maps keep insertion order (a `Vec` of pairs), integers keep their sign class
//! (`Int` for values read as signed, `UInt` for unsigned), and floats keep their width.

use core::fmt;
use core::sync::atomic::{AtomicUsize, Ordering};

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The default nesting limit of every decoder and of reading a [`Value`]: containers (maps,
/// arrays, documents, records, lists) nested deeper than this are refused with an error at the
/// offending byte, line or field, never followed (a recursive reader would overflow the stack;
/// the HTTP and TCP servers decode on 2 MiB thread stacks). A root container has depth 1.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// The largest nesting limit [`set_max_depth`] accepts (`--max-depth`): deeper reading still
/// fits the main thread's 8 MiB stack.
pub const MAX_DEPTH_LIMIT: usize = 1024;

/// The most attributes one XML element may carry (the XML codec reads only `nil`): more are
/// refused with [`too_many_attributes`], so an element's attribute list costs time linear in its
/// size whatever a peer sends (the duplicate-name check is a hash set, not a rescan).
pub const MAX_ATTRIBUTES: usize = 256;

/// The nesting depth beyond which serde_yaml_ng refuses YAML on its own (not configurable):
/// the YAML codec's limit is the smaller of this and [`max_depth`], and it refuses flow
/// collections nested deeper before libyaml's scanner (whose work per token grows with the
/// flow depth) reads further.
pub const YAML_LIBRARY_DEPTH: usize = 128;

/// The most types one schema may expand to (every record, field, array and scalar of the
/// model, a type used at two places counting twice): the .proto, .avsc and .idl readers build
/// the model a type at a time and refuse a schema past this with [`schema_too_large`], so a
/// small file whose types use a type twice, level after level, costs bounded time and memory.
/// Schemas are also nested no deeper than [`max_depth`] (a value could not be deeper).
pub const MAX_SCHEMA_TYPES: usize = 100_000;

/// The most bytes of schema text one schema may be read from (a file with its imports or
/// includes): the schema compilers (protox, apache-avro) hold some 200 bytes per byte of text,
/// so this keeps reading a schema under 100 MiB. Larger schemas are refused with
/// [`schema_text_too_large`] before they are parsed.
pub const MAX_SCHEMA_BYTES: usize = 256 << 10;

/// The error text of schema text past [`MAX_SCHEMA_BYTES`] (`bytes`: what was found so far).
pub fn schema_text_too_large(bytes: u64, max: usize) -> String {
    format!("{bytes} bytes of schema text, more than {max} (the schema size limit, with imports and includes)")
}

/// The error text of a schema that expands past [`MAX_SCHEMA_TYPES`].
pub fn schema_too_large(max: usize) -> String {
    format!("expands to more than {max} types (the schema size limit; a type used twice at each of many levels?)")
}

/// The error text of a schema whose types nest deeper than the limit, at the type `at`.
pub fn schema_too_deep(max: usize, at: &str) -> String {
    format!("type {at} is {}", too_deep(max))
}

/// The error text of an XML element with more than [`MAX_ATTRIBUTES`] attributes.
pub fn too_many_attributes(max: usize) -> String {
    format!("an element with more than {max} attributes (the attribute limit)")
}

static MAX_DEPTH: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_DEPTH);

/// The nesting limit in force (process-wide): [`DEFAULT_MAX_DEPTH`] unless set.
pub fn max_depth() -> usize {
    MAX_DEPTH.load(Ordering::Relaxed)
}

/// Set the process-wide nesting limit (the CLI's `--max-depth`): `1..=MAX_DEPTH_LIMIT`.
pub fn set_max_depth(depth: usize) -> Result<(), String> {
    if !(1..=MAX_DEPTH_LIMIT).contains(&depth) {
        return Err(format!("the nesting limit must be 1 to {MAX_DEPTH_LIMIT}, not {depth}"));
    }
    MAX_DEPTH.store(depth, Ordering::Relaxed);
    Ok(())
}

/// The error text of input nested deeper than the limit (one wording for every format).
pub fn too_deep(max: usize) -> String {
    format!("nested deeper than {max} levels (the nesting limit, --max-depth)")
}

/// A dynamic value: the data model shared by every codec in the zoo.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// A signed 64-bit integer (JSON reading puts negative numbers here).
    Int(i64),
    /// An unsigned 64-bit integer (JSON reading puts non-negative numbers here).
    UInt(u64),
    F32(f32),
    F64(f64),
    String(String),
    Bytes(Vec<u8>),
    Array(Vec<Value>),
    /// Key order is kept as written.
    Map(Vec<(String, Value)>),
}

impl Value {
    /// A short name of the variant, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::UInt(_) => "integer",
            Value::F32(_) => "float32",
            Value::F64(_) => "float64",
            Value::String(_) => "string",
            Value::Bytes(_) => "bytes",
            Value::Array(_) => "array",
            Value::Map(_) => "map",
        }
    }

    /// The value as i128 when it is an integer.
    pub fn as_i128(&self) -> Option<i128> {
        match *self {
            Value::Int(i) => Some(i as i128),
            Value::UInt(u) => Some(u as i128),
            _ => None,
        }
    }

    /// The value as f64 when it is a float.
    pub fn as_float(&self) -> Option<f64> {
        match *self {
            Value::F32(f) => Some(f as f64),
            Value::F64(f) => Some(f),
            _ => None,
        }
    }

    /// Parse JSON text, keeping key order and reading the `$bytes` / `$f64` markers.
    /// A UTF-8 byte order mark at the start is skipped.
    /// An integer literal beyond 64 bits is an error (serde_json would read it as a float).
    pub fn from_json_str(text: &str) -> Result<Value, JsonError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut de = serde_json::Deserializer::from_str(text);
        // The nesting limit is ours (ValueSeed counts), the same for every format.
        de.disable_recursion_limit();
        let v = ValueSeed::new(true).deserialize(&mut de).map_err(JsonError::from)?;
        de.end().map_err(JsonError::from)?;
        check_wide_integers(text.as_bytes(), &v)?;
        Ok(v)
    }

    /// JSON text with markers for what JSON cannot express (`{"$bytes":"hex"}`, `{"$f64":"NaN"}`).
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(&JsonView(self)).expect("a Value always serializes to JSON")
    }

    /// Pretty JSON text with markers.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(&JsonView(self)).expect("a Value always serializes to JSON")
    }
}

/// A JSON text error with its 1-based line and column (0 when unknown).
#[derive(Debug, Clone, PartialEq)]
pub struct JsonError {
    msg: String,
    line: usize,
    column: usize,
}

impl JsonError {
    pub fn line(&self) -> usize {
        self.line
    }
    pub fn column(&self) -> usize {
        self.column
    }
    /// The message without its position.
    pub fn message(&self) -> &str {
        &self.msg
    }
}

impl From<serde_json::Error> for JsonError {
    fn from(e: serde_json::Error) -> JsonError {
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        JsonError { msg, line: e.line(), column: e.column() }
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.msg)
        } else {
            write!(f, "{} at line {} column {}", self.msg, self.line, self.column)
        }
    }
}

impl std::error::Error for JsonError {}

/// Whether a decoded value holds a whole float of 64-bit-integer magnitude or more: the only
/// way an integer literal too wide for 64 bits shows after serde_json read it (as a float).
fn has_wide_float(v: &Value) -> bool {
    match v {
        Value::F64(f) => f.is_finite() && f.fract() == 0.0 && (*f >= 1.8e19 || *f < -9.2e18),
        Value::Array(items) => items.iter().any(has_wide_float),
        Value::Map(pairs) => pairs.iter().any(|(_, v)| has_wide_float(v)),
        _ => false,
    }
}

/// Refuses an integer literal (no fraction, no exponent) of valid JSON text that fits neither
/// u64 nor i64, naming its line and column: read as a float it would silently lose digits.
/// Scans the text only when the value shows such a float, so ordinary input pays one walk.
pub fn check_wide_integers(text: &[u8], value: &Value) -> Result<(), JsonError> {
    if !has_wide_float(value) {
        return Ok(());
    }
    let (mut i, mut line, mut line_start) = (0, 1, 0);
    while i < text.len() {
        match text[i] {
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'\n' => {
                line += 1;
                i += 1;
                line_start = i;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < text.len() && matches!(text[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    i += 1;
                }
                let lit = std::str::from_utf8(&text[start..i]).unwrap_or("");
                let integer = !lit.contains(['.', 'e', 'E']);
                if integer && lit.parse::<u64>().is_err() && lit.parse::<i64>().is_err() {
                    return Err(JsonError {
                        msg: format!("integer {lit} does not fit in 64 bits (write it as a string or a float)"),
                        line,
                        column: start - line_start + 1,
                    });
                }
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// Lowercase hex of a byte slice.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Parse hex (either case); `None` when the text is not an even run of hex digits.
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    let t = text.as_bytes();
    if !t.len().is_multiple_of(2) {
        return None;
    }
    let nib = |c: u8| -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    };
    t.chunks(2).map(|p| Some(nib(p[0])? << 4 | nib(p[1])?)).collect()
}

// ---------------------------------------------------------------------------------------------
// Serialization: the native form (for binary serde formats) and the JSON view with markers.

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::UInt(u) => s.serialize_u64(*u),
            Value::F32(f) => s.serialize_f32(*f),
            Value::F64(f) => s.serialize_f64(*f),
            Value::String(t) => s.serialize_str(t),
            Value::Bytes(b) => s.serialize_bytes(b),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for it in items {
                    seq.serialize_element(it)?;
                }
                seq.end()
            }
            Value::Map(pairs) => {
                let mut map = s.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// Serializes a [`Value`] as JSON with the project's markers for bytes and non-finite floats.
pub struct JsonView<'a>(pub &'a Value);

impl Serialize for JsonView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let nonfinite = |f: f64| -> &'static str {
            if f.is_nan() {
                "NaN"
            } else if f > 0.0 {
                "Infinity"
            } else {
                "-Infinity"
            }
        };
        match self.0 {
            Value::Bytes(b) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("$bytes", &to_hex(b))?;
                map.end()
            }
            // A float32 stays float32 through decode → encode: marked, with its shortest
            // float32 digits (or NaN/Infinity).
            Value::F32(f) if !f.is_finite() => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("$f32", nonfinite(*f as f64))?;
                map.end()
            }
            Value::F32(f) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("$f32", f)?;
                map.end()
            }
            Value::F64(f) if !f.is_finite() => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("$f64", nonfinite(*f))?;
                map.end()
            }
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for it in items {
                    seq.serialize_element(&JsonView(it))?;
                }
                seq.end()
            }
            Value::Map(pairs) => {
                let mut map = s.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, &JsonView(v))?;
                }
                map.end()
            }
            other => other.serialize(s),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Deserialization: one visitor; `markers` turns on the JSON marker objects.

/// Deserializes a [`Value`] from any self-describing serde format.
#[derive(Clone, Copy)]
pub struct ValueSeed {
    /// Read `{"$bytes":"hex"}` and `{"$f64":"NaN"}` as bytes and non-finite floats.
    pub markers: bool,
    /// How many containers deep the value being read is (the root is read at 0); a container
    /// beyond [`max_depth`] is refused before its contents are read.
    depth: usize,
}

impl ValueSeed {
    /// A seed for a root value.
    pub fn new(markers: bool) -> ValueSeed {
        ValueSeed { markers, depth: 0 }
    }

    /// The seed for the items of a container read with `self`, or the too-deep error.
    fn inner<E: de::Error>(self) -> Result<ValueSeed, E> {
        let max = max_depth();
        if self.depth >= max {
            return Err(E::custom(too_deep(max)));
        }
        Ok(ValueSeed { depth: self.depth + 1, ..self })
    }
}

/// The keys a map being read has so far: whether the next one repeats one of them, in linear
/// time (a scan of the few first keys, a hash set from the 16th on). The JSON text reader
/// refuses a repeated key with it.
#[derive(Debug, Default)]
struct SeenKeys(Option<std::collections::HashSet<String>>);

impl SeenKeys {
    /// Whether `key` is already among the keys of `pairs` (the map read so far).
    fn repeated(&mut self, pairs: &[(String, Value)], key: &str) -> bool {
        match &mut self.0 {
            Some(set) => !set.insert(key.to_owned()),
            None if pairs.len() < 16 => pairs.iter().any(|(p, _)| p == key),
            None => {
                let mut set: std::collections::HashSet<String> = pairs.iter().map(|(p, _)| p.clone()).collect();
                let dup = !set.insert(key.to_owned());
                self.0 = Some(set);
                dup
            }
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ValueSeed::new(false).deserialize(d)
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(if v >= 0 { Value::UInt(v as u64) } else { Value::Int(v) })
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        if let Ok(u) = u64::try_from(v) {
            Ok(Value::UInt(u))
        } else if let Ok(i) = i64::try_from(v) {
            Ok(Value::Int(i))
        } else {
            Err(E::custom(format!("integer {v} does not fit in 64 bits")))
        }
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::UInt(v))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        u64::try_from(v).map(Value::UInt).map_err(|_| E::custom(format!("integer {v} does not fit in 64 bits")))
    }
    fn visit_f32<E>(self, v: f32) -> Result<Value, E> {
        Ok(Value::F32(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::F64(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Bytes(v.to_vec()))
    }
    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Value, E> {
        Ok(Value::Bytes(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    // A wrapper (an option, a CBOR tag) counts as a level: wrappers can nest too.
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.inner()?.deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.inner()?.deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element_seed(inner)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut pairs: Vec<(String, Value)> = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        // In JSON text (the user's input), a key named twice is an input error: keeping either
        // value silently would lose the other, and the schema-directed codecs would make two
        // fields of one name. Binary formats keep what their specs say (PSON: both pairs are
        // read; the spec's reference decoders let the last win).
        let mut seen = SeenKeys::default();
        while let Some(k) = map.next_key_seed(KeySeed)? {
            if self.markers && seen.repeated(&pairs, &k) {
                return Err(serde::de::Error::custom(format!("duplicate key {k:?}")));
            }
            let v = map.next_value_seed(inner)?;
            pairs.push((k, v));
        }
        if self.markers && pairs.len() == 1 {
            if let Some(v) = read_marker::<A::Error>(&pairs[0])? {
                return Ok(v);
            }
        }
        Ok(Value::Map(pairs))
    }
}

fn read_marker<E: de::Error>((k, v): &(String, Value)) -> Result<Option<Value>, E> {
    match (k.as_str(), v) {
        ("$bytes", Value::String(h)) => from_hex(h)
            .map(|b| Some(Value::Bytes(b)))
            .ok_or_else(|| E::custom(format!("\"$bytes\" marker holds invalid hex {h:?}"))),
        ("$f32", Value::String(s)) => match s.as_str() {
            "NaN" => Ok(Some(Value::F32(f32::NAN))),
            "Infinity" => Ok(Some(Value::F32(f32::INFINITY))),
            "-Infinity" => Ok(Some(Value::F32(f32::NEG_INFINITY))),
            other => {
                Err(E::custom(format!("\"$f32\" marker must be a number, NaN, Infinity or -Infinity, not {other:?}")))
            }
        },
        ("$f32", n) if n.as_float().is_some() || n.as_i128().is_some() => {
            let x = n.as_float().unwrap_or_else(|| n.as_i128().unwrap_or(0) as f64);
            let f = x as f32;
            if f.is_infinite() {
                return Err(E::custom(format!("\"$f32\" marker holds {x}, beyond float32")));
            }
            Ok(Some(Value::F32(f)))
        }
        ("$f64", Value::String(s)) => match s.as_str() {
            "NaN" => Ok(Some(Value::F64(f64::NAN))),
            "Infinity" => Ok(Some(Value::F64(f64::INFINITY))),
            "-Infinity" => Ok(Some(Value::F64(f64::NEG_INFINITY))),
            other => Err(E::custom(format!("\"$f64\" marker must be NaN, Infinity or -Infinity, not {other:?}"))),
        },
        _ => Ok(None),
    }
}

/// Map keys: strings, or scalars some binary formats allow as keys (written as their text).
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map key (string)")
    }
    fn visit_str<E>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }
    fn visit_string<E>(self, v: String) -> Result<String, E> {
        Ok(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<String, E> {
        String::from_utf8(v.to_vec()).map_err(|_| E::custom("map key is not valid UTF-8"))
    }
    fn visit_i64<E>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_u64<E>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_bool<E>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_in_small_and_large_maps() {
        assert!(Value::from_json_str(r#"{"a":1,"b":2,"a":3}"#)
            .unwrap_err()
            .to_string()
            .contains("duplicate key \"a\""));
        let mut big: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        assert!(Value::from_json_str(&format!("{{{}}}", big.join(","))).is_ok());
        big.push("\"k3\":0".into());
        let e = Value::from_json_str(&format!("{{{}}}", big.join(","))).unwrap_err();
        assert!(e.to_string().contains("duplicate key \"k3\""), "{e}");
    }

    #[test]
    fn json_keeps_order_and_kinds() {
        let v = Value::from_json_str(r#"{"z":1,"a":-2,"f":1.0,"n":null,"b":{"$bytes":"00ff"}}"#).unwrap();
        assert_eq!(
            v,
            Value::Map(vec![
                ("z".into(), Value::UInt(1)),
                ("a".into(), Value::Int(-2)),
                ("f".into(), Value::F64(1.0)),
                ("n".into(), Value::Null),
                ("b".into(), Value::Bytes(vec![0, 255])),
            ])
        );
        assert_eq!(v.to_json_string(), r#"{"z":1,"a":-2,"f":1.0,"n":null,"b":{"$bytes":"00ff"}}"#);
    }

    #[test]
    fn markers_for_nonfinite_and_bad_hex() {
        let v = Value::from_json_str(r#"[{"$f64":"NaN"},{"$f64":"-Infinity"}]"#).unwrap();
        assert_eq!(v.to_json_string(), r#"[{"$f64":"NaN"},{"$f64":"-Infinity"}]"#);
        let e = Value::from_json_str(r#"{"$bytes":"0g"}"#).unwrap_err().to_string();
        assert!(e.contains("invalid hex") && e.contains("column"), "{e}");
    }

    #[test]
    fn float32_is_marked_and_read_back_as_float32() {
        let v = Value::Array(vec![Value::F32(21.3), Value::F32(9.223372e18), Value::F32(f32::NAN), Value::F64(21.3)]);
        let text = v.to_json_string();
        assert_eq!(text, r#"[{"$f32":21.3},{"$f32":9.223372e+18},{"$f32":"NaN"},21.3]"#);
        let back = Value::from_json_str(&text).unwrap();
        assert!(
            matches!(&back, Value::Array(a) if a[0] == Value::F32(21.3) && a[1] == Value::F32(9.223372e18) && matches!(a[2], Value::F32(f) if f.is_nan()) && a[3] == Value::F64(21.3)),
            "{back:?}"
        );
        assert!(Value::from_json_str(r#"{"$f32":1e39}"#).unwrap_err().to_string().contains("beyond float32"));
        assert!(Value::from_json_str(r#"{"$f32":"x"}"#).unwrap_err().to_string().contains("\"$f32\" marker must be"));
    }

    #[test]
    fn negative_zero_and_big_numbers() {
        assert_eq!(Value::from_json_str("-0.0").unwrap(), Value::F64(-0.0));
        assert!(Value::from_json_str("-0.0").unwrap().as_float().unwrap().is_sign_negative());
        assert_eq!(Value::from_json_str("18446744073709551615").unwrap(), Value::UInt(u64::MAX));
        assert_eq!(Value::from_json_str("-9223372036854775808").unwrap(), Value::Int(i64::MIN));
    }

    #[test]
    fn integers_beyond_64_bits_are_refused_with_their_position() {
        let e = Value::from_json_str("{\"a\":\"18446744073709551616\",\n \"b\": 18446744073709551616}").unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 7), "{e}");
        assert!(e.to_string().contains("integer 18446744073709551616 does not fit in 64 bits"), "{e}");
        let e = Value::from_json_str("[-9223372036854775809]").unwrap_err();
        assert_eq!((e.line(), e.column()), (1, 2), "{e}");
        // Floats of that size written as floats stay floats.
        assert_eq!(
            Value::from_json_str("[1e20, 18446744073709551616.0]").unwrap(),
            Value::Array(vec![Value::F64(1e20), Value::F64(18446744073709551616.0)])
        );
    }

    #[test]
    fn malformed_json_names_position() {
        let e = Value::from_json_str("{\"a\":\n  [1,2,}").unwrap_err();
        assert_eq!(e.line(), 2);
        assert!(e.column() > 0);
    }

    #[test]
    fn hex_roundtrip() {
        assert_eq!(to_hex(&[0, 0xab, 0x7f]), "00ab7f");
        assert_eq!(from_hex("00AB7f").unwrap(), vec![0, 0xab, 0x7f]);
        assert!(from_hex("abc").is_none());
    }
}

/// Finds items of a slice by name where the names usually come in the order they are asked
/// for (a record's pairs in schema order): each lookup first tries the item after the last one
/// found, so an in-order slice costs one comparison per lookup. At the first lookup that is
/// not in order, a hash index of the first item of each name is built once; either way a
/// lookup returns the first item of that name, as a linear search does, and a whole record
/// costs linear time, not quadratic.
pub struct Lookup<'a, T> {
    items: &'a [T],
    next: usize,
    in_order: bool,
    index: Option<std::collections::HashMap<&'a str, usize>>,
}

/// Below this many items a miss searches linearly (cheaper than hashing).
const LOOKUP_LINEAR: usize = 12;

/// Something with a name a [`Lookup`] finds it by.
pub trait Named {
    fn name(&self) -> &str;
}

impl Named for (String, Value) {
    #[inline]
    fn name(&self) -> &str {
        &self.0
    }
}

impl<'a, T: Named> Lookup<'a, T> {
    pub fn new(items: &'a [T]) -> Lookup<'a, T> {
        Lookup { items, next: 0, in_order: true, index: None }
    }

    /// The first item named `key`.
    pub fn get(&mut self, key: &str) -> Option<&'a T> {
        let items = self.items;
        self.position(key).map(|i| &items[i])
    }

    /// The index of the first item named `key`.
    pub fn position(&mut self, key: &str) -> Option<usize> {
        let items = self.items;
        let name = T::name;
        if self.in_order {
            // While every lookup has hit the next item, the items before it are the ones asked
            // for so far: none of them is named `key` (names asked for are distinct).
            if let Some(it) = items.get(self.next) {
                if name(it) == key {
                    self.next += 1;
                    return Some(self.next - 1);
                }
            }
            self.in_order = false;
        }
        if items.len() <= LOOKUP_LINEAR {
            return items.iter().position(|it| name(it) == key);
        }
        let index = self.index.get_or_insert_with(|| {
            let mut m = std::collections::HashMap::with_capacity(items.len());
            for (i, it) in items.iter().enumerate() {
                m.entry(name(it)).or_insert(i);
            }
            m
        });
        index.get(key).copied()
    }
}

/// A [`Lookup`] over a map's pairs by key.
pub fn pairs_lookup(pairs: &[(String, Value)]) -> Lookup<'_, (String, Value)> {
    Lookup::new(pairs)
}

#[cfg(test)]
mod lookup_tests {
    use super::*;

    /// Whatever the order of the questions and of the pairs (repeated keys too), a lookup
    /// gives what the first-match linear search gives.
    #[test]
    fn lookup_equals_the_linear_search() {
        let mut rng = 7u64;
        let mut next = |n: usize| {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (rng >> 33) as usize % n
        };
        for size in [0usize, 1, 5, 12, 13, 40] {
            for shuffle in 0..20 {
                let mut pairs: Vec<(String, Value)> =
                    (0..size).map(|i| (format!("k{i}"), Value::UInt(i as u64))).collect();
                if shuffle % 3 == 1 && size > 1 {
                    // A repeated key (binary formats allow it).
                    let j = next(size);
                    pairs.push((format!("k{j}"), Value::UInt(999)));
                }
                if shuffle % 2 == 1 {
                    for i in (1..pairs.len()).rev() {
                        pairs.swap(i, next(i + 1));
                    }
                }
                // Questions: in order, then a few out of order and some that are absent.
                let mut asks: Vec<String> = (0..size).map(|i| format!("k{i}")).collect();
                if shuffle % 4 >= 2 && size > 2 {
                    asks.swap(0, size - 1);
                    asks.insert(size / 2, "absent".into());
                }
                let mut l = pairs_lookup(&pairs);
                for a in &asks {
                    let want = pairs.iter().find(|(k, _)| k == a);
                    assert_eq!(l.get(a).map(|p| &p.1), want.map(|p| &p.1), "size {size} shuffle {shuffle} key {a}");
                }
            }
        }
    }
}
