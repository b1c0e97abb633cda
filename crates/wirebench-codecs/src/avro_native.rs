//! Avro driven by the user's own `.avsc`, as apache-avro parses it: every type of the
//! specification (records, enums, fixed, arrays, maps, unions in any order, named-type
//! references and recursion, logical types), written and read following the specification's
//! binary encoding.
//!
//! The bytes are written and read here, walking apache-avro's parsed schema, rather than
//! through apache-avro's value type: its map value is a hash map, so a map of two or more
//! entries would come out in hash order (different bytes from any other writer given the same
//! value, and a decoded map in another order). Writers that keep a map's order (fastavro, the
//! Java library with a LinkedHashMap) write what this writes; the tests check fastavro's bytes.
//!
//! JSON values map to Avro as its JSON encoding has them, with wirebench's markers:
//!
//! | Avro                   | value                                                         |
//! |------------------------|---------------------------------------------------------------|
//! | int, long, date, time-*, timestamp-* | an integer in range                            |
//! | float, double          | a number (`{"$f32": x}` reads back from float)                |
//! | bytes, fixed, duration | `{"$bytes": "hex"}` (or a string of code points up to U+00FF) |
//! | string, uuid           | a string                                                      |
//! | enum                   | the symbol, a string                                          |
//! | decimal                | a string of decimal digits (`"-12.34"`), at most `scale` decimals |
//! | array / map / record   | an array / an object / an object of the fields               |
//! | union                  | the branch's value: the first branch of the value's own type (an integer picks the first int/long branch it fits, then float/double; an object the first record whose fields it has, then a map), or `{"branch name": value}` as Avro's JSON encoding writes it |
//!
//! A record field that is missing takes its default, else null. On decode, a null record field
//! is left out (as the schema-model path does).

use std::collections::HashMap;

use apache_avro::schema::{RecordField, UnionSchema};
use apache_avro::Schema as AvroSchema;
use wirebench_core::value::max_depth;
use wirebench_core::{NativeSchema, Value};

use crate::{CodecError, Prepared};

/// An .avsc parsed by apache-avro, with its named types by full name and the root.
pub(crate) struct NativeAvro {
    root: AvroSchema,
    names: HashMap<String, AvroSchema>,
}

/// How many items of zero encoded size (arrays and maps of nulls) one datum may declare.
const ZERO_SIZE_ITEMS: usize = 1 << 20;

/// Every name of a record, error, enum or fixed type is an Avro name (`[A-Za-z_][A-Za-z0-9_]*`,
/// dot-separated with its namespace), checked before apache-avro reads the schema: apache-avro
/// 0.21 unwraps that check for a named type's `name` and panics on a bad one (found by the
/// schema_avsc fuzz target). Walks the JSON without recursion.
fn check_type_names(json: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    let ident = |s: &str| {
        let mut c = s.chars();
        c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
            && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
    };
    let mut stack = vec![json];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                let named = matches!(map.get("type"), Some(Value::String(t)) if matches!(t.as_str(), "record" | "error" | "enum" | "fixed"));
                if let (true, Some(Value::String(name))) = (named, map.get("name")) {
                    let full = name.strip_prefix('.').unwrap_or(name);
                    if !full.split('.').all(ident) {
                        let shown = wirebench_core::names::escape_controls(name, &[]);
                        return Err(format!(
                            "not an Avro schema: the type name {shown:?} is not an Avro name (letters, digits and _, not starting with a digit; dots between namespace parts)"
                        ));
                    }
                }
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    Ok(())
}

/// apache-avro's error as one line.
fn one_line(e: impl std::fmt::Display) -> String {
    e.to_string().replace('\n', " ")
}

impl NativeAvro {
    /// Parse the schema text; the root is the named type `root` (a full name), or the whole
    /// schema when `root` is empty.
    pub(crate) fn parse(text: &str, root: &str) -> Result<NativeAvro, String> {
        if let Ok(json) = serde_json::from_str::<serde_json::Value>(text) {
            check_type_names(&json)?;
        }
        let schema = AvroSchema::parse_str(text).map_err(|e| format!("not an Avro schema: {}", one_line(e)))?;
        let mut names = HashMap::new();
        collect_names(&schema, &mut names);
        let root = if root.is_empty() {
            schema
        } else {
            names.get(root).cloned().ok_or_else(|| format!("no Avro type named {root:?} in the schema"))?
        };
        Ok(NativeAvro { root, names })
    }

    pub(crate) fn from_native(native: &NativeSchema) -> Result<NativeAvro, CodecError> {
        NativeAvro::parse(&native.text, &native.root)
            .map_err(|m| CodecError::Unsupported(format!("{}: {m}", native.file)))
    }

    /// The named types, full name → schema (used by the schema-file reader too).
    pub(crate) fn names(&self) -> &HashMap<String, AvroSchema> {
        &self.names
    }

    pub(crate) fn root(&self) -> &AvroSchema {
        &self.root
    }

    fn resolve<'s>(&'s self, s: &'s AvroSchema) -> &'s AvroSchema {
        match s {
            AvroSchema::Ref { name } => self.names.get(&name.fullname(None)).unwrap_or(s),
            other => other,
        }
    }

    pub(crate) fn write_value(&self, v: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let start = out.len();
        let mut path = String::from("$");
        let r = self.write(&self.root, Some(v), out, &mut path, 0);
        if r.is_err() {
            out.truncate(start);
        }
        r.map_err(|m| CodecError::Unsupported(format!("{m} (at {path})")))
    }

    /// Write `v` (None: a record field that is missing and has no default: null) as `s`. On an
    /// error `path` is left where it happened.
    fn write(
        &self,
        s: &AvroSchema,
        v: Option<&Value>,
        out: &mut Vec<u8>,
        path: &mut String,
        depth: usize,
    ) -> Result<(), String> {
        use AvroSchema as S;
        if depth > max_depth() {
            return Err(wirebench_core::value::too_deep(max_depth()));
        }
        let s = self.resolve(s);
        let v = match (s, v) {
            (S::Union(u), v) => return self.write_union(u, v.unwrap_or(&Value::Null), out, path, depth),
            (S::Null, None | Some(Value::Null)) => return Ok(()),
            (_, None) => return Err(format!("missing value for Avro {}", kind(s))),
            (_, Some(v)) => v,
        };
        let int = |lo: i128, hi: i128| -> Result<i64, String> {
            match v.as_i128() {
                Some(n) if n >= lo && n <= hi => Ok(n as i64),
                Some(n) => Err(format!("integer {n} does not fit Avro {}", kind(s))),
                None => Err(format!("a {} value where the schema has Avro {}", v.kind(), kind(s))),
            }
        };
        match s {
            S::Null => return Err(format!("a {} value where the schema has Avro null", v.kind())),
            S::Boolean => match v {
                Value::Bool(b) => out.push(*b as u8),
                _ => return Err(format!("a {} value where the schema has Avro boolean", v.kind())),
            },
            S::Int | S::Date | S::TimeMillis => put_long(out, int(i32::MIN as i128, i32::MAX as i128)?),
            S::Long
            | S::TimeMicros
            | S::TimestampMillis
            | S::TimestampMicros
            | S::TimestampNanos
            | S::LocalTimestampMillis
            | S::LocalTimestampMicros
            | S::LocalTimestampNanos => put_long(out, int(i64::MIN as i128, i64::MAX as i128)?),
            S::Float => out.extend_from_slice(&(number(v).ok_or_else(|| mismatch(v, s))? as f32).to_le_bytes()),
            S::Double => out.extend_from_slice(&number(v).ok_or_else(|| mismatch(v, s))?.to_le_bytes()),
            S::Bytes => {
                let b = bytes_of(v).ok_or_else(|| mismatch(v, s))?;
                put_long(out, b.len() as i64);
                out.extend_from_slice(&b);
            }
            S::String | S::Uuid => match v {
                Value::String(x) => {
                    put_long(out, x.len() as i64);
                    out.extend_from_slice(x.as_bytes());
                }
                _ => return Err(mismatch(v, s)),
            },
            S::Fixed(f) => {
                let b = bytes_of(v).ok_or_else(|| mismatch(v, s))?;
                if b.len() != f.size {
                    return Err(format!("{} bytes where Avro fixed {} has {}", b.len(), f.name.fullname(None), f.size));
                }
                out.extend_from_slice(&b);
            }
            S::Duration => {
                let b = bytes_of(v).ok_or_else(|| mismatch(v, s))?;
                if b.len() != 12 {
                    return Err(format!("{} bytes where an Avro duration has 12", b.len()));
                }
                out.extend_from_slice(&b);
            }
            S::Enum(e) => match v {
                Value::String(sym) => match e.symbols.iter().position(|x| x == sym) {
                    Some(i) => put_long(out, i as i64),
                    None => return Err(format!("{sym:?} is not a symbol of Avro enum {}", e.name.fullname(None))),
                },
                _ => return Err(mismatch(v, s)),
            },
            S::Decimal(d) => {
                let unscaled = match v {
                    Value::String(text) => parse_decimal(text, d.scale)?,
                    _ => v
                        .as_i128()
                        .and_then(|n| n.checked_mul(10i128.checked_pow(d.scale as u32)?))
                        .ok_or_else(|| mismatch(v, s))?,
                };
                if d.precision < 39 && unscaled.unsigned_abs() >= 10u128.pow(d.precision as u32) {
                    return Err(format!("decimal {v:?} has more than the {} digits of its precision", d.precision));
                }
                let minimal = twos_complement(unscaled);
                match self.resolve(&d.inner) {
                    S::Fixed(f) => {
                        if minimal.len() > f.size {
                            return Err(format!(
                                "decimal does not fit Avro fixed {} of {} bytes",
                                f.name.fullname(None),
                                f.size
                            ));
                        }
                        let fill = if unscaled < 0 { 0xff } else { 0 };
                        out.resize(out.len() + f.size - minimal.len(), fill);
                        out.extend_from_slice(&minimal);
                    }
                    _ => {
                        put_long(out, minimal.len() as i64);
                        out.extend_from_slice(&minimal);
                    }
                }
            }
            S::BigDecimal => return Err("Avro big-decimal is not supported".into()),
            S::Array(a) => match v {
                Value::Array(items) => {
                    if !items.is_empty() {
                        put_long(out, items.len() as i64);
                        let len = path.len();
                        for (i, it) in items.iter().enumerate() {
                            path.push_str(&format!("[{i}]"));
                            self.write(&a.items, Some(it), out, path, depth + 1)?;
                            path.truncate(len);
                        }
                    }
                    out.push(0);
                }
                _ => return Err(mismatch(v, s)),
            },
            S::Map(m) => match v {
                Value::Map(pairs) => {
                    if !pairs.is_empty() {
                        put_long(out, pairs.len() as i64);
                        let len = path.len();
                        for (k, it) in pairs {
                            put_long(out, k.len() as i64);
                            out.extend_from_slice(k.as_bytes());
                            path.push('.');
                            path.push_str(k);
                            self.write(&m.types, Some(it), out, path, depth + 1)?;
                            path.truncate(len);
                        }
                    }
                    out.push(0);
                }
                _ => return Err(mismatch(v, s)),
            },
            S::Record(r) => match v {
                Value::Map(pairs) => {
                    if let Some((k, _)) = pairs.iter().find(|(k, _)| !r.fields.iter().any(|f| f.name == *k)) {
                        path.push('.');
                        path.push_str(k);
                        return Err(format!("record {} has no field {k:?}", r.name.fullname(None)));
                    }
                    let len = path.len();
                    for f in &r.fields {
                        path.push('.');
                        path.push_str(&f.name);
                        match pairs.iter().find(|(k, _)| *k == f.name) {
                            Some((_, fv)) => self.write(&f.schema, Some(fv), out, path, depth + 1)?,
                            None => self.write_default(f, out, path, depth + 1)?,
                        }
                        path.truncate(len);
                    }
                }
                _ => return Err(mismatch(v, s)),
            },
            S::Union(_) | S::Ref { .. } => return Err(format!("unresolved Avro type {}", kind(s))),
        }
        Ok(())
    }

    /// A missing record field: its default (as Avro's JSON encoding has it; for a union, a
    /// value of the first branch), else null.
    fn write_default(&self, f: &RecordField, out: &mut Vec<u8>, path: &mut String, depth: usize) -> Result<(), String> {
        let Some(default) = &f.default else { return self.write(&f.schema, None, out, path, depth) };
        let v = Value::from_json_str(&default.to_string()).map_err(|e| format!("default of field {}: {e}", f.name))?;
        match self.resolve(&f.schema) {
            AvroSchema::Union(u) => {
                let first = u.variants().first().ok_or("an empty union")?;
                put_long(out, 0);
                self.write(first, Some(&v), out, path, depth)
            }
            _ => self.write(&f.schema, Some(&v), out, path, depth),
        }
    }

    fn write_union(
        &self,
        u: &UnionSchema,
        v: &Value,
        out: &mut Vec<u8>,
        path: &mut String,
        depth: usize,
    ) -> Result<(), String> {
        let branches = u.variants();
        let (i, inner) = self.branch(branches, v).ok_or_else(|| {
            let names: Vec<String> = branches.iter().map(|b| self.branch_name(b)).collect();
            format!("a {} value fits no branch of the Avro union [{}]", v.kind(), names.join(", "))
        })?;
        put_long(out, i as i64);
        self.write(&branches[i], Some(inner), out, path, depth + 1)
    }

    /// The name a union branch goes by in Avro's JSON encoding (`int`, `map`, `ns.Record`).
    fn branch_name(&self, b: &AvroSchema) -> String {
        match self.resolve(b) {
            AvroSchema::Record(r) => r.name.fullname(None),
            AvroSchema::Enum(e) => e.name.fullname(None),
            AvroSchema::Fixed(f) => f.name.fullname(None),
            AvroSchema::Decimal(d) => match self.resolve(&d.inner) {
                AvroSchema::Fixed(f) => f.name.fullname(None),
                _ => "bytes".into(),
            },
            other => kind(other).into(),
        }
    }

    /// The union branch for `v` and the value to write in it: `{"name": x}` names a branch
    /// (Avro's JSON encoding); otherwise the first branch of the value's own type, then the
    /// first that can hold it.
    fn branch<'v>(&self, branches: &[AvroSchema], v: &'v Value) -> Option<(usize, &'v Value)> {
        if let Value::Map(pairs) = v {
            if let [(k, inner)] = pairs.as_slice() {
                let short = |n: &str| n.rsplit('.').next().unwrap_or(n).to_string();
                if let Some(i) = branches.iter().position(|b| {
                    let n = self.branch_name(b);
                    n == *k || (!k.contains('.') && short(&n) == *k && n.contains('.'))
                }) {
                    return Some((i, inner));
                }
            }
        }
        for strict in [true, false] {
            if let Some(i) = branches.iter().position(|b| self.fits(b, v, strict)) {
                return Some((i, v));
            }
        }
        None
    }

    /// Whether `v` is of the type of branch `b` (`strict`), or only can be written as it (an
    /// integer as a float, a string as bytes).
    fn fits(&self, b: &AvroSchema, v: &Value, strict: bool) -> bool {
        use AvroSchema as S;
        let b = self.resolve(b);
        let int_in = |lo: i128, hi: i128| {
            v.as_i128().is_some_and(|n| n >= lo && n <= hi) && !matches!(v, Value::F32(_) | Value::F64(_))
        };
        match b {
            S::Null => matches!(v, Value::Null),
            S::Boolean => matches!(v, Value::Bool(_)),
            S::Int | S::Date | S::TimeMillis => int_in(i32::MIN as i128, i32::MAX as i128),
            S::Long
            | S::TimeMicros
            | S::TimestampMillis
            | S::TimestampMicros
            | S::TimestampNanos
            | S::LocalTimestampMillis
            | S::LocalTimestampMicros
            | S::LocalTimestampNanos => int_in(i64::MIN as i128, i64::MAX as i128),
            S::Float | S::Double => matches!(v, Value::F32(_) | Value::F64(_)) || (!strict && v.as_i128().is_some()),
            S::String | S::Uuid => matches!(v, Value::String(_)),
            S::Bytes => matches!(v, Value::Bytes(_)) || (!strict && bytes_of(v).is_some()),
            S::Fixed(f) => bytes_of(v).is_some_and(|x| x.len() == f.size) && (!strict || matches!(v, Value::Bytes(_))),
            S::Duration => bytes_of(v).is_some_and(|x| x.len() == 12) && (!strict || matches!(v, Value::Bytes(_))),
            S::Enum(e) => matches!(v, Value::String(s) if e.symbols.contains(s)),
            S::Decimal(d) => matches!(v, Value::String(s) if parse_decimal(s, d.scale).is_ok()) && !strict,
            S::Array(_) => matches!(v, Value::Array(_)),
            S::Map(_) => matches!(v, Value::Map(_)) && !strict,
            S::Record(r) => match v {
                // The fields it has are the record's, and it has every field without a default
                // that cannot be null.
                Value::Map(pairs) => {
                    pairs.iter().all(|(k, _)| r.fields.iter().any(|f| f.name == *k))
                        && r.fields.iter().all(|f| {
                            f.default.is_some() || pairs.iter().any(|(k, _)| *k == f.name) || self.nullable(&f.schema)
                        })
                }
                _ => false,
            },
            S::BigDecimal | S::Union(_) | S::Ref { .. } => false,
        }
    }

    fn nullable(&self, s: &AvroSchema) -> bool {
        match self.resolve(s) {
            AvroSchema::Null => true,
            AvroSchema::Union(u) => u.variants().iter().any(|b| matches!(b, AvroSchema::Null)),
            _ => false,
        }
    }

    pub(crate) fn read_value(&self, bytes: &[u8]) -> Result<Value, CodecError> {
        let mut r = Reader { bytes, pos: 0, zero_size_budget: ZERO_SIZE_ITEMS };
        let v = self.read(&self.root, &mut r, 0)?;
        if r.pos < bytes.len() {
            return Err(CodecError::decode(
                format!("trailing bytes after the Avro datum ({} left)", bytes.len() - r.pos),
                Some(r.pos),
            ));
        }
        Ok(v)
    }

    fn read(&self, s: &AvroSchema, r: &mut Reader, depth: usize) -> Result<Value, CodecError> {
        use AvroSchema as S;
        if depth > max_depth() {
            return r.err(wirebench_core::value::too_deep(max_depth()), r.pos);
        }
        let s = self.resolve(s);
        Ok(match s {
            S::Null => Value::Null,
            S::Boolean => {
                let at = r.pos;
                match r.take(1, "boolean")?[0] {
                    0 => Value::Bool(false),
                    1 => Value::Bool(true),
                    b => return r.err(format!("invalid Avro boolean byte {b:#04x}"), at),
                }
            }
            S::Int | S::Date | S::TimeMillis => {
                let at = r.pos;
                let n = r.long()?;
                if i32::try_from(n).is_err() {
                    return r.err(format!("Avro int {n} out of 32-bit range"), at);
                }
                Value::Int(n)
            }
            S::Long
            | S::TimeMicros
            | S::TimestampMillis
            | S::TimestampMicros
            | S::TimestampNanos
            | S::LocalTimestampMillis
            | S::LocalTimestampMicros
            | S::LocalTimestampNanos => Value::Int(r.long()?),
            S::Float => Value::F32(f32::from_le_bytes(r.take(4, "float")?.try_into().unwrap_or_default())),
            S::Double => Value::F64(f64::from_le_bytes(r.take(8, "double")?.try_into().unwrap_or_default())),
            S::Bytes => {
                let n = r.length("bytes")?;
                Value::Bytes(r.take(n, "bytes")?.to_vec())
            }
            S::String | S::Uuid => Value::String(r.string()?),
            S::Fixed(f) => Value::Bytes(r.take(f.size, "fixed")?.to_vec()),
            S::Duration => Value::Bytes(r.take(12, "duration")?.to_vec()),
            S::Enum(e) => {
                let at = r.pos;
                let i = r.long()?;
                match usize::try_from(i).ok().and_then(|i| e.symbols.get(i)) {
                    Some(sym) => Value::String(sym.clone()),
                    None => {
                        return r.err(
                            format!(
                                "Avro enum index {i} out of range for {} ({} symbols)",
                                e.name.fullname(None),
                                e.symbols.len()
                            ),
                            at,
                        )
                    }
                }
            }
            S::Decimal(d) => {
                let raw = match self.resolve(&d.inner) {
                    S::Fixed(f) => r.take(f.size, "decimal")?.to_vec(),
                    _ => {
                        let n = r.length("decimal")?;
                        r.take(n, "decimal")?.to_vec()
                    }
                };
                let at = r.pos;
                match from_twos_complement(&raw) {
                    Some(n) => Value::String(format_decimal(n, d.scale)),
                    None => return r.err("Avro decimal wider than 128 bits", at),
                }
            }
            S::BigDecimal => return r.err("Avro big-decimal is not supported", r.pos),
            S::Array(a) => {
                let mut items = Vec::new();
                let min = self.min_size(&a.items, 0);
                while let Some(count) = r.block(min)? {
                    for _ in 0..count {
                        items.push(self.read(&a.items, r, depth + 1)?);
                    }
                }
                Value::Array(items)
            }
            S::Map(m) => {
                let mut pairs = Vec::new();
                // A key takes at least its length byte.
                let min = 1 + self.min_size(&m.types, 0);
                while let Some(count) = r.block(min)? {
                    for _ in 0..count {
                        let k = r.string()?;
                        pairs.push((k, self.read(&m.types, r, depth + 1)?));
                    }
                }
                Value::Map(pairs)
            }
            S::Record(rec) => {
                let mut pairs = Vec::with_capacity(rec.fields.len());
                for f in &rec.fields {
                    let v = self.read(&f.schema, r, depth + 1)?;
                    if v != Value::Null {
                        pairs.push((f.name.clone(), v));
                    }
                }
                Value::Map(pairs)
            }
            S::Union(u) => {
                let at = r.pos;
                let i = r.long()?;
                match usize::try_from(i).ok().and_then(|i| u.variants().get(i)) {
                    Some(b) => self.read(b, r, depth + 1)?,
                    None => {
                        return r
                            .err(format!("Avro union index {i} out of range ({} branches)", u.variants().len()), at)
                    }
                }
            }
            S::Ref { name } => return r.err(format!("Avro type {} is not defined", name.fullname(None)), r.pos),
        })
    }

    /// The least number of bytes a value of `s` takes (0 for null and records of nulls).
    fn min_size(&self, s: &AvroSchema, depth: usize) -> usize {
        use AvroSchema as S;
        if depth > 8 {
            return 0;
        }
        match self.resolve(s) {
            S::Null => 0,
            S::Float => 4,
            S::Double => 8,
            S::Fixed(f) => f.size,
            S::Duration => 12,
            S::Decimal(d) => match self.resolve(&d.inner) {
                S::Fixed(f) => f.size,
                _ => 1,
            },
            S::Record(r) => r.fields.iter().map(|f| self.min_size(&f.schema, depth + 1)).fold(0, usize::saturating_add),
            _ => 1,
        }
    }
}

fn collect_names(s: &AvroSchema, names: &mut HashMap<String, AvroSchema>) {
    use AvroSchema as S;
    match s {
        S::Record(r) => {
            names.insert(r.name.fullname(None), s.clone());
            for f in &r.fields {
                collect_names(&f.schema, names);
            }
        }
        S::Enum(e) => {
            names.insert(e.name.fullname(None), s.clone());
        }
        S::Fixed(f) => {
            names.insert(f.name.fullname(None), s.clone());
        }
        S::Decimal(d) => collect_names(&d.inner, names),
        S::Array(a) => collect_names(&a.items, names),
        S::Map(m) => collect_names(&m.types, names),
        S::Union(u) => u.variants().iter().for_each(|b| collect_names(b, names)),
        _ => {}
    }
}

/// The name of a schema's kind, as Avro writes it.
pub(crate) fn kind(s: &AvroSchema) -> &'static str {
    use AvroSchema as S;
    match s {
        S::Null => "null",
        S::Boolean => "boolean",
        S::Int => "int",
        S::Long => "long",
        S::Float => "float",
        S::Double => "double",
        S::Bytes => "bytes",
        S::String => "string",
        S::Array(_) => "array",
        S::Map(_) => "map",
        S::Union(_) => "union",
        S::Record(_) => "record",
        S::Enum(_) => "enum",
        S::Fixed(_) => "fixed",
        S::Decimal(_) => "decimal",
        S::BigDecimal => "big-decimal",
        S::Uuid => "uuid",
        S::Date => "date",
        S::TimeMillis => "time-millis",
        S::TimeMicros => "time-micros",
        S::TimestampMillis => "timestamp-millis",
        S::TimestampMicros => "timestamp-micros",
        S::TimestampNanos => "timestamp-nanos",
        S::LocalTimestampMillis => "local-timestamp-millis",
        S::LocalTimestampMicros => "local-timestamp-micros",
        S::LocalTimestampNanos => "local-timestamp-nanos",
        S::Duration => "duration",
        S::Ref { .. } => "reference",
    }
}

fn mismatch(v: &Value, s: &AvroSchema) -> String {
    format!("a {} value where the schema has Avro {}", v.kind(), kind(s))
}

fn number(v: &Value) -> Option<f64> {
    match *v {
        Value::F32(f) => Some(f as f64),
        Value::F64(f) => Some(f),
        Value::Int(i) => Some(i as f64),
        Value::UInt(u) => Some(u as f64),
        _ => None,
    }
}

/// Bytes, or a string of code points up to U+00FF (Avro's JSON encoding of bytes).
fn bytes_of(v: &Value) -> Option<std::borrow::Cow<'_, [u8]>> {
    match v {
        Value::Bytes(b) => Some(std::borrow::Cow::Borrowed(b)),
        Value::String(s) => {
            s.chars().map(|c| u8::try_from(c as u32).ok()).collect::<Option<Vec<u8>>>().map(std::borrow::Cow::Owned)
        }
        _ => None,
    }
}

/// A zigzag varint.
fn put_long(out: &mut Vec<u8>, n: i64) {
    let mut z = ((n << 1) ^ (n >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8 & 0x7f) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

/// `"-12.34"` with `scale` 3 → -12340 (at most `scale` decimals, no exponent).
fn parse_decimal(text: &str, scale: usize) -> Result<i128, String> {
    let bad = || format!("{text:?} is not a decimal number with at most {scale} decimals");
    let (neg, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        || frac.len() > scale
    {
        return Err(bad());
    }
    let mut n: i128 = 0;
    for b in int.bytes().chain(frac.bytes()).chain(std::iter::repeat_n(b'0', scale - frac.len())) {
        n = n.checked_mul(10).and_then(|n| n.checked_add((b - b'0') as i128)).ok_or_else(bad)?;
    }
    Ok(if neg { -n } else { n })
}

fn format_decimal(n: i128, scale: usize) -> String {
    let digits = n.unsigned_abs().to_string();
    let digits =
        if digits.len() <= scale { format!("{}{digits}", "0".repeat(scale + 1 - digits.len())) } else { digits };
    let (int, frac) = digits.split_at(digits.len() - scale);
    let sign = if n < 0 { "-" } else { "" };
    if scale == 0 {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// The shortest big-endian two's complement bytes of `n` (at least one byte).
fn twos_complement(n: i128) -> Vec<u8> {
    let b = n.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (x, next) = (b[start], b[start + 1]);
        if (x == 0 && next & 0x80 == 0) || (x == 0xff && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    b[start..].to_vec()
}

fn from_twos_complement(b: &[u8]) -> Option<i128> {
    let fill = if b.first().is_some_and(|x| x & 0x80 != 0) { 0xff } else { 0 };
    // Sign bytes beyond 16 carry nothing; anything else there does not fit.
    let extra = b.len().saturating_sub(16);
    let (head, b) = b.split_at(extra);
    if head.iter().any(|&x| x != fill) || (extra > 0 && (b[0] & 0x80 != 0) != (fill == 0xff)) {
        return None;
    }
    let mut full = [fill; 16];
    full[16 - b.len()..].copy_from_slice(b);
    Some(i128::from_be_bytes(full))
}

/// The bytes of one datum, with bounds checks: every length and count is checked against the
/// bytes left before anything is allocated for it.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    zero_size_budget: usize,
}

impl Reader<'_> {
    fn err<T>(&self, msg: impl Into<String>, at: usize) -> Result<T, CodecError> {
        Err(CodecError::decode(msg, Some(at)))
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn long(&mut self) -> Result<i64, CodecError> {
        let start = self.pos;
        let mut z: u64 = 0;
        for j in 0..10 {
            let Some(&b) = self.bytes.get(self.pos) else {
                return self.err("truncated Avro varint", start);
            };
            self.pos += 1;
            z |= u64::from(b & 0x7f) << (j * 7);
            if b & 0x80 == 0 {
                return Ok(((z >> 1) as i64) ^ -((z & 1) as i64));
            }
        }
        self.err("Avro varint longer than 10 bytes", start)
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], CodecError> {
        if n > self.left() {
            return self.err(format!("truncated Avro {what}: {n} bytes needed, {} left", self.left()), self.pos);
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn length(&mut self, what: &str) -> Result<usize, CodecError> {
        let at = self.pos;
        let n = self.long()?;
        if n < 0 {
            return self.err(format!("negative Avro {what} length {n}"), at);
        }
        if n as u64 > self.left() as u64 {
            return self.err(format!("Avro {what} length {n} is longer than the {} bytes left", self.left()), at);
        }
        Ok(n as usize)
    }

    fn string(&mut self) -> Result<String, CodecError> {
        let n = self.length("string")?;
        let at = self.pos;
        let s = self.take(n, "string")?;
        match std::str::from_utf8(s) {
            Ok(s) => Ok(s.to_string()),
            Err(e) => self.err("Avro string is not valid UTF-8", at + e.valid_up_to()),
        }
    }

    /// The item count of the next array or map block; None at the end (a zero count).
    fn block(&mut self, min: usize) -> Result<Option<u64>, CodecError> {
        let at = self.pos;
        let mut count = self.long()?;
        if count == 0 {
            return Ok(None);
        }
        if count < 0 {
            // A negative count is followed by the block's size in bytes.
            count = count.checked_neg().unwrap_or(i64::MAX);
            let size_at = self.pos;
            let size = self.long()?;
            if size < 0 || size as u64 > self.left() as u64 {
                return self.err(format!("bad Avro block size {size}"), size_at);
            }
        }
        let count = count as u64;
        if let Some(fit) = self.left().checked_div(min) {
            if count > fit as u64 {
                return self
                    .err(format!("Avro block of {count} items cannot fit in the {} bytes left", self.left()), at);
            }
        } else if count > self.zero_size_budget as u64 {
            return self.err(format!("Avro block declares too many zero-size items ({count})"), at);
        } else {
            self.zero_size_budget -= count as usize;
        }
        Ok(Some(count))
    }
}

/// The Avro codec bound to an .avsc.
pub(crate) struct PreparedNative {
    pub(crate) avro: NativeAvro,
}

impl Prepared for PreparedNative {
    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.avro.write_value(value, out)
    }

    fn decode(&self, bytes: &[u8]) -> Result<Value, CodecError> {
        self.avro.read_value(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_and_twos_complement() {
        assert_eq!(parse_decimal("-12.34", 3), Ok(-12340));
        assert_eq!(parse_decimal("7", 2), Ok(700));
        assert!(
            parse_decimal("1.234", 2).is_err() && parse_decimal("1e3", 2).is_err() && parse_decimal(".", 2).is_err()
        );
        assert_eq!(format_decimal(-12340, 3), "-12.340");
        assert_eq!(format_decimal(5, 3), "0.005");
        assert_eq!(format_decimal(-5, 0), "-5");
        for n in [0i128, 1, -1, 127, 128, -128, -129, 255, 65535, i64::MAX as i128, i128::MIN, i128::MAX] {
            let b = twos_complement(n);
            assert_eq!(from_twos_complement(&b), Some(n), "{n}");
            let mut padded = vec![if n < 0 { 0xff } else { 0 }; 3];
            padded.extend_from_slice(&b);
            assert_eq!(from_twos_complement(&padded), Some(n), "{n} padded");
        }
        assert_eq!(twos_complement(128), [0, 128]);
        assert_eq!(twos_complement(-128), [0x80]);
    }

    /// Where apache-avro's value encoding is order-independent (no maps), its bytes and ours agree.
    #[test]
    fn same_bytes_as_apache_avro_without_maps() {
        let text = r#"{"type":"record","name":"R","namespace":"t","fields":[
            {"name":"a","type":["double","null"]},{"name":"b","type":["null","long"]},
            {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y","Z"]}},
            {"name":"f","type":{"type":"fixed","name":"F","size":3}},
            {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
            {"name":"next","type":["null","R"]}]}"#;
        let n = NativeAvro::parse(text, "").unwrap();
        let v = Value::from_json_str(
            r#"{"a":1.5,"e":"Z","f":{"$bytes":"010203"},"ts":-5,
            "next":{"a":null,"b":7,"e":"X","f":"abc","ts":1700000000000}}"#,
        )
        .unwrap();
        let mut ours = Vec::new();
        n.write_value(&v, &mut ours).unwrap();
        use apache_avro::types::Value as A;
        let inner = A::Record(vec![
            ("a".into(), A::Union(1, Box::new(A::Null))),
            ("b".into(), A::Union(1, Box::new(A::Long(7)))),
            ("e".into(), A::Enum(0, "X".into())),
            ("f".into(), A::Fixed(3, b"abc".to_vec())),
            ("ts".into(), A::TimestampMillis(1_700_000_000_000)),
            ("next".into(), A::Union(0, Box::new(A::Null))),
        ]);
        let outer = A::Record(vec![
            ("a".into(), A::Union(0, Box::new(A::Double(1.5)))),
            ("b".into(), A::Union(0, Box::new(A::Null))),
            ("e".into(), A::Enum(2, "Z".into())),
            ("f".into(), A::Fixed(3, vec![1, 2, 3])),
            ("ts".into(), A::TimestampMillis(-5)),
            ("next".into(), A::Union(1, Box::new(inner))),
        ]);
        let theirs = apache_avro::to_avro_datum(n.root(), outer).unwrap();
        assert_eq!(ours, theirs);
        let back = n.read_value(&ours).unwrap();
        let want = Value::from_json_str(
            r#"{"a":1.5,"e":"Z","f":{"$bytes":"010203"},"ts":-5,
            "next":{"b":7,"e":"X","f":{"$bytes":"616263"},"ts":1700000000000}}"#,
        )
        .unwrap();
        assert_eq!(back.to_json_string(), want.to_json_string());
    }

    #[test]
    fn hostile_bytes_are_refused_with_their_offset() {
        let n = NativeAvro::parse(r#"{"type":"array","items":"null"}"#, "").unwrap();
        let e = n.read_value(&[0xfe, 0xff, 0xff, 0xff, 0x0f]).unwrap_err();
        assert!(e.to_string().contains("too many zero-size items"), "{e}");
        let n = NativeAvro::parse(r#"["double","null"]"#, "").unwrap();
        let e = n.read_value(&[0xae, 0x47]).unwrap_err();
        assert_eq!(e.to_string(), "Avro union index 4567 out of range (2 branches) at byte 0");
        let n = NativeAvro::parse(r#"{"type":"map","values":"string"}"#, "").unwrap();
        assert!(n.read_value(&[0x7e]).unwrap_err().to_string().contains("cannot fit"));
        assert!(n.read_value(&[2, 2, b'k', 20, b'x', 0]).unwrap_err().to_string().contains("longer than"));
    }
}
