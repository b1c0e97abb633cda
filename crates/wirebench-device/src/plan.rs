//! A payload as C sees it: the records, fields and values of one [`Value`] with the types
//! of its inferred [`Schema`], named for C. Every library driver of the device lab is
//! generated from one of these, so all libraries do the same work on the same values.
//!
//! Supported: a record at the root; fields of bool, integers (32/64-bit, signed or not),
//! floats, strings, nested records, and arrays of those scalars. Anything else (null,
//! bytes, arrays of records or arrays, mixed types, empty arrays, strings with NUL) is
//! refused with the path and the reason: the drivers would have nothing typed to hold it.

use std::fmt::Write as _;

use wirebench_core::schema::{lower_camel, Schema, Type};
use wirebench_core::value::Value;

/// A scalar type as the C variables hold it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool,
    Int {
        bits: u8,
        signed: bool,
    },
    /// `bits` 32 (float) or 64 (double; on AVR this plan is never built with 64).
    Real {
        bits: u8,
    },
    Str,
}

impl Scalar {
    /// The C type of one value (strings: see [`Field::decl`]).
    pub fn ctype(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Int { bits: 32, signed: true } => "int32_t",
            Scalar::Int { bits: 32, signed: false } => "uint32_t",
            Scalar::Int { signed: true, .. } => "int64_t",
            Scalar::Int { signed: false, .. } => "uint64_t",
            Scalar::Real { bits: 32 } => "float",
            Scalar::Real { .. } => "double",
            Scalar::Str => "char",
        }
    }
}

/// What a field holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Scalar(Scalar),
    /// A one-dimensional array of scalars; `cap` = the payload's element count.
    Array(Scalar, usize),
    /// A nested record: an index into [`Plan::records`].
    Record(usize),
}

/// One field of a record.
#[derive(Clone, Debug)]
pub struct Field {
    /// The key as it is on the wire.
    pub key: String,
    /// The C member name (`f_` + the key made an identifier, unique in its record).
    pub c: String,
    pub kind: Kind,
    /// The payload's value of this field (for arrays: the elements; records: unused).
    pub value: Value,
    /// Longest string length of this field (strings and arrays of strings), for buffers.
    pub str_max: usize,
    /// Explicit presence in the schema (proto3 `optional`, proto2 optional, a oneof member):
    /// a present value is written even when it is the default.
    pub optional: bool,
    /// The field's number and declared type in the user's .proto (nanopb's .proto keeps them).
    pub proto: Option<wirebench_core::schema::ProtoField>,
}

/// One record type: `wb_r<index>` in C; record 0 is the root.
#[derive(Clone, Debug)]
pub struct Record {
    pub fields: Vec<Field>,
}

/// A payload ready for the generators.
#[derive(Clone, Debug)]
pub struct Plan {
    pub name: String,
    pub records: Vec<Record>,
    /// Floats are 32 bit (the target's `double` is 32 bit): every float field is a `float`.
    pub f32_only: bool,
}

/// Why a payload cannot be driven.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported(pub String);

impl Plan {
    /// Build the plan of `value` (schema inferred from it). `f32_only` for AVR.
    pub fn new(name: &str, value: &Value, f32_only: bool) -> Result<Plan, Unsupported> {
        Plan::with_schema(name, value, None, f32_only)
    }

    /// Build the plan of `value` with the types of `schema` (the user's, e.g. a .proto: its
    /// widths, field numbers and declared types), else of the schema inferred from `value`.
    /// A field the schema lets a message leave out and the payload leaves out is not in the
    /// plan (it is not on the wire either); a key the schema does not have is refused.
    pub fn with_schema(
        name: &str,
        value: &Value,
        schema: Option<&Schema>,
        f32_only: bool,
    ) -> Result<Plan, Unsupported> {
        let inferred;
        let schema = match schema {
            Some(s) => s,
            None => {
                inferred = Schema::infer(std::iter::once(value));
                &inferred
            }
        };
        let mut plan = Plan { name: name.to_string(), records: Vec::new(), f32_only };
        match (&schema.root, value) {
            (Type::Record { fields, .. }, Value::Map(pairs)) => {
                plan.add_record(fields, pairs, "")?;
            }
            (Type::Record { .. }, _) => {
                return Err(Unsupported(format!("the payload is a {}, not a record", value.kind())))
            }
            (t, _) => return Err(Unsupported(format!("the schema's root is a {}, not a record", t.describe()))),
        }
        Ok(plan)
    }

    fn add_record(
        &mut self,
        fields: &[wirebench_core::schema::Field],
        pairs: &[(String, Value)],
        path: &str,
    ) -> Result<usize, Unsupported> {
        let index = self.records.len();
        self.records.push(Record { fields: Vec::new() });
        // The payload's key of a field: its name, or (a proto3 JSON printer's) lowerCamelCase.
        let key_of = |f: &wirebench_core::schema::Field| -> Option<&(String, Value)> {
            let camel = lower_camel(&f.name);
            pairs.iter().find(|(k, _)| *k == f.name).or_else(|| pairs.iter().find(|(k, _)| *k == camel))
        };
        for (k, _) in pairs {
            if !fields.iter().any(|f| f.name == *k || lower_camel(&f.name) == *k) {
                return Err(Unsupported(format!("{path}.{k}: the schema has no such field")));
            }
        }
        let mut out = Vec::new();
        for f in fields {
            let at = format!("{path}.{}", f.name);
            let (key, value) = match key_of(f) {
                None if f.may_be_absent() => continue,
                // A null for an optional field of a real type is absence; a field that is only
                // ever null (inferred) has nothing typed to hold it (refused below).
                Some((_, Value::Null)) if f.optional && f.ty != Type::Null => continue,
                Some((k, v)) => (k.clone(), v.clone()),
                None => (f.name.clone(), Value::Null),
            };
            let c = unique_ident(&f.name, out.iter().map(|x: &Field| x.c.as_str()));
            let (kind, str_max) = match (&f.ty, &value) {
                (Type::Record { fields: sub, .. }, Value::Map(sub_pairs)) => {
                    (Kind::Record(self.add_record(sub, sub_pairs, &at)?), 0)
                }
                (Type::Array { items }, Value::Array(vs)) => {
                    if vs.is_empty() {
                        return Err(Unsupported(format!("{at}: an empty array has no element type")));
                    }
                    let s = self.scalar(items, &at)?;
                    let max = vs.iter().map(|v| str_len(v, &at)).collect::<Result<Vec<_>, _>>()?;
                    (Kind::Array(s, vs.len()), max.into_iter().max().unwrap_or(0))
                }
                (t, v) => (Kind::Scalar(self.scalar(t, &at)?), str_len(v, &at)?),
            };
            out.push(Field { key, c, kind, value, str_max, optional: f.optional, proto: f.proto.clone() });
        }
        self.records[index].fields = out;
        Ok(index)
    }

    fn scalar(&self, t: &Type, at: &str) -> Result<Scalar, Unsupported> {
        Ok(match t {
            Type::Bool => Scalar::Bool,
            Type::Int { bits, signed } => Scalar::Int { bits: if *bits <= 32 { 32 } else { 64 }, signed: *signed },
            Type::Float { bits } => Scalar::Real { bits: if self.f32_only { 32 } else { *bits } },
            Type::String => Scalar::Str,
            other => return Err(Unsupported(format!("{at}: a {} field has no C driver form", other.describe()))),
        })
    }

    /// Every leaf in schema order with its C access path below `root` (nested records
    /// flattened), as UADP carries them.
    pub fn leaves(&self) -> Vec<(String, &Field)> {
        let mut out = Vec::new();
        self.collect_leaves(0, "", &mut out);
        out
    }

    fn collect_leaves<'a>(&'a self, r: usize, prefix: &str, out: &mut Vec<(String, &'a Field)>) {
        for f in &self.records[r].fields {
            match f.kind {
                Kind::Record(sub) => self.collect_leaves(sub, &format!("{prefix}{}.", f.c), out),
                _ => out.push((format!("{prefix}{}", f.c), f)),
            }
        }
    }

    /// The C declarations shared by every driver of this payload: the record types,
    /// `wb_expected` (the payload's values), `wb_got` (what decode fills) and
    /// `wb_eq_r<i>` comparing two of them.
    pub fn c_types(&self) -> String {
        let mut s = String::new();
        // Nested records first: the highest index is the innermost.
        for (i, r) in self.records.iter().enumerate().rev() {
            let _ = writeln!(s, "typedef struct wb_r{i} {{");
            for f in &r.fields {
                let _ = writeln!(s, "    {}", f.decl());
            }
            let _ = writeln!(s, "}} wb_r{i};\n");
        }
        // Not const and not static: the compiler must read the values at run time, as device
        // code reads its sensors, instead of folding a header-only library's encoding of
        // known constants into a copy of finished bytes.
        let _ = writeln!(s, "wb_r0 wb_expected = {};", self.initializer(0));
        s.push_str("static wb_r0 wb_got;\n/* the key of the first field that differed (wb_check's reason) */\nconst char *wb_diff = \"\";\n\n");
        for (i, r) in self.records.iter().enumerate().rev() {
            let _ = writeln!(s, "static int wb_eq_r{i}(const wb_r{i} *a, const wb_r{i} *b)\n{{");
            s.push_str("    size_t i = 0;\n    (void)i;\n");
            for f in &r.fields {
                let c = &f.c;
                let key = c_string(&f.key);
                match &f.kind {
                    Kind::Scalar(Scalar::Str) => {
                        let _ = writeln!(s, "    if (strcmp(a->{c}, b->{c}) != 0) {{ wb_diff = {key}; return 0; }}");
                    }
                    Kind::Scalar(_) => {
                        let _ = writeln!(s, "    if (a->{c} != b->{c}) {{ wb_diff = {key}; return 0; }}");
                    }
                    Kind::Array(el, _) => {
                        let _ = writeln!(s, "    if (a->{c}_n != b->{c}_n) {{ wb_diff = {key}; return 0; }}");
                        let cmp = if *el == Scalar::Str {
                            format!("strcmp(a->{c}[i], b->{c}[i]) != 0")
                        } else {
                            format!("a->{c}[i] != b->{c}[i]")
                        };
                        let _ = writeln!(
                            s,
                            "    for (i = 0; i < a->{c}_n; i++) if ({cmp}) {{ wb_diff = {key}; return 0; }}"
                        );
                    }
                    Kind::Record(sub) => {
                        let _ = writeln!(s, "    if (!wb_eq_r{sub}(&a->{c}, &b->{c})) return 0;");
                    }
                }
            }
            s.push_str("    return 1;\n}\n\n");
        }
        s
    }

    fn initializer(&self, r: usize) -> String {
        let parts: Vec<String> = self.records[r]
            .fields
            .iter()
            .map(|f| match &f.kind {
                Kind::Scalar(s) => literal(*s, &f.value),
                Kind::Array(s, n) => {
                    let Value::Array(vs) = &f.value else { unreachable!("checked in add_record") };
                    let items: Vec<String> = vs.iter().map(|v| literal(*s, v)).collect();
                    format!("{{{}}}, {n}", items.join(", "))
                }
                Kind::Record(sub) => self.initializer(*sub),
            })
            .collect();
        format!("{{{}}}", parts.join(", "))
    }
}

impl Field {
    /// The member declaration in its record's struct.
    pub fn decl(&self) -> String {
        let c = &self.c;
        match &self.kind {
            Kind::Scalar(Scalar::Str) => format!("char {c}[{}];", self.str_max + 1),
            Kind::Scalar(s) => format!("{} {c};", s.ctype()),
            Kind::Array(Scalar::Str, n) => format!("char {c}[{n}][{}];\n    uint16_t {c}_n;", self.str_max + 1),
            Kind::Array(s, n) => format!("{} {c}[{n}];\n    uint16_t {c}_n;", s.ctype()),
            Kind::Record(sub) => format!("wb_r{sub} {c};"),
        }
    }
}

fn str_len(v: &Value, at: &str) -> Result<usize, Unsupported> {
    match v {
        Value::String(s) if s.contains('\0') => Err(Unsupported(format!("{at}: a string with a NUL byte"))),
        Value::String(s) => Ok(s.len()),
        Value::Null => Err(Unsupported(format!("{at}: null has no C driver form"))),
        Value::Bytes(_) => Err(Unsupported(format!("{at}: bytes have no C driver form"))),
        _ => Ok(0),
    }
}

/// `f_` + the key with every other character than `[A-Za-z0-9]` as `_`, made unique.
fn unique_ident<'a>(key: &str, taken: impl Iterator<Item = &'a str> + Clone) -> String {
    let base: String = std::iter::once("f_".to_string())
        .chain(key.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_string() } else { "_".into() }))
        .collect();
    let mut name = base.clone();
    let mut n = 2;
    while taken.clone().any(|t| t == name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

/// A C literal of `v` as scalar type `s`.
pub fn literal(s: Scalar, v: &Value) -> String {
    match s {
        Scalar::Bool => (if matches!(v, Value::Bool(true)) { "true" } else { "false" }).into(),
        Scalar::Int { signed, .. } => {
            let n = v.as_i128().unwrap_or(0);
            if n == i64::MIN as i128 {
                "INT64_MIN".into()
            } else if signed {
                format!("INT64_C({n})")
            } else {
                format!("UINT64_C({n})")
            }
        }
        Scalar::Real { bits: 32 } => {
            let x = v.as_float().or_else(|| v.as_i128().map(|i| i as f64)).unwrap_or(0.0) as f32;
            float_literal(format!("{x:?}"), "f")
        }
        Scalar::Real { .. } => {
            let x = v.as_float().or_else(|| v.as_i128().map(|i| i as f64)).unwrap_or(0.0);
            float_literal(format!("{x:?}"), "")
        }
        Scalar::Str => match v {
            Value::String(t) => c_string(t),
            _ => "\"\"".into(),
        },
    }
}

fn float_literal(mut text: String, suffix: &str) -> String {
    if text == "inf" || text == "-inf" || text == "NaN" {
        // Not in our payloads as JSON can't say them; keep the C valid.
        return format!("({}(1.0{suffix} / 0.0{suffix}))", if text.starts_with('-') { "-" } else { "" });
    }
    if !text.contains(['.', 'e', 'E']) {
        text.push_str(".0");
    }
    text + suffix
}

/// A C string literal: printable ASCII as is, everything else as octal escapes.
pub fn c_string(t: &str) -> String {
    let mut s = String::from("\"");
    for b in t.bytes() {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'?' => s.push_str("\\?"),
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(json: &str) -> Value {
        Value::from_json_str(json).unwrap()
    }

    #[test]
    fn test10_plan_and_types() {
        let p = Plan::new(
            "Test10",
            &v(r#"{"string":"test","double":1.03,"long":1351824120,"pos":1,"neg":-2,"bool":true,"array":[48.75,2.3]}"#),
            false,
        )
        .unwrap();
        let c = p.c_types();
        assert!(c.contains("char f_string[5];"), "{c}");
        assert!(c.contains("double f_double;"));
        assert!(c.contains("uint32_t f_long;"));
        assert!(c.contains("int32_t f_neg;"));
        assert!(c.contains("double f_array[2];\n    uint16_t f_array_n;"));
        assert!(
            c.contains(r#"{"test", 1.03, UINT64_C(1351824120), UINT64_C(1), INT64_C(-2), true, {48.75, 2.3}, 2}"#),
            "{c}"
        );
        let avr = Plan::new("Test10", &v(r#"{"double":1.03}"#), true).unwrap();
        assert!(avr.c_types().contains("float f_double;") && avr.c_types().contains("{1.03f}"));
    }

    #[test]
    fn nested_records_and_leaves() {
        let p = Plan::new("n", &v(r#"{"id":7,"gps":{"lat":1.5,"lon":-2.25},"tags":["a","bc"]}"#), false).unwrap();
        assert_eq!(p.records.len(), 2);
        let leaves: Vec<String> = p.leaves().into_iter().map(|(path, _)| path).collect();
        assert_eq!(leaves, ["f_id", "f_gps.f_lat", "f_gps.f_lon", "f_tags"]);
        let c = p.c_types();
        assert!(c.find("typedef struct wb_r1").unwrap() < c.find("typedef struct wb_r0").unwrap());
        assert!(c.contains("char f_tags[2][3];"));
    }

    #[test]
    fn refusals_name_the_path() {
        let e = Plan::new("x", &v(r#"{"a":{"b":null}}"#), false).unwrap_err();
        assert!(e.0.contains(".a.b"), "{e:?}");
        assert!(Plan::new("x", &v(r#"{"a":[]}"#), false).unwrap_err().0.contains("empty array"));
        assert!(Plan::new("x", &v(r#"[1]"#), false).is_err());
        assert!(Plan::new("x", &v(r#"{"a":[{"b":1}]}"#), false).is_err());
    }

    #[test]
    fn identifiers_and_strings() {
        let p = Plan::new("x", &v(r#"{"a-b":1,"a_b":2,"double":"q\"?\n"}"#), false).unwrap();
        let names: Vec<&str> = p.records[0].fields.iter().map(|f| f.c.as_str()).collect();
        assert_eq!(names, ["f_a_b", "f_a_b_2", "f_double"]);
        assert_eq!(c_string("q\"?\n"), "\"q\\\"\\?\\012\"");
    }
}
