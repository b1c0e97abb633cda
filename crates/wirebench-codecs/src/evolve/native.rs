//! What a user's schema file says that the shared schema model does not keep: the symbols of
//! its enums (the model reads an enum as an int32 or a string) and Avro's field aliases, read
//! from the file as its own protocol reads it (the protobuf compiler's descriptor, the .avsc
//! JSON, the IDL parser).

use wirebench_core::Schema;

use super::{EvoSchema, Kind};

/// Give the fields of `e` (read from `s`) the enums and aliases the schema file declares.
pub fn enrich(s: &Schema, e: &mut EvoSchema) -> Result<(), String> {
    if let Some(p) = &s.proto {
        return proto(p, e);
    }
    match s.native.as_ref().map(|n| n.format.as_str()) {
        Some("avro") => avro(s, e),
        Some("idl") => idl(s, e),
        _ => Ok(()),
    }
}

/// An enum as the model has it: its symbols in number order, numbered 0..n (an enum numbered
/// otherwise stays the model's integer).
fn enum_kind(name: &str, mut numbered: Vec<(i64, String)>) -> Option<Kind> {
    numbered.sort();
    let dense = numbered.iter().enumerate().all(|(i, (n, _))| *n == i as i64);
    dense.then(|| Kind::Enum { name: name.to_string(), symbols: numbered.into_iter().map(|(_, s)| s).collect() })
}

/// The kind with its innermost scalar replaced by `k` (a list of enums stays a list).
fn with_scalar(old: &Kind, k: Kind) -> Kind {
    match old {
        Kind::List { .. } => Kind::List { items: Box::new(k) },
        _ => k,
    }
}

fn proto(p: &wirebench_core::schema::ProtoDescriptor, e: &mut EvoSchema) -> Result<(), String> {
    let pool = prost_reflect::DescriptorPool::decode(p.file_descriptor_set.as_slice()).map_err(|x| x.to_string())?;
    let Some(m) = pool.get_message_by_name(&p.message) else { return Ok(()) };
    for f in &mut e.fields {
        let Some(d) = m.get_field_by_name(&f.name) else { continue };
        if let prost_reflect::Kind::Enum(en) = d.kind() {
            let values = en.values().map(|v| (i64::from(v.number()), v.name().to_string())).collect();
            if let Some(k) = enum_kind(en.name(), values) {
                f.kind = with_scalar(&f.kind, k);
            }
        }
    }
    Ok(())
}

fn avro(s: &Schema, e: &mut EvoSchema) -> Result<(), String> {
    use serde_json::Value as J;
    let native = s.native.as_ref().expect("an avro schema");
    let doc: J = serde_json::from_str(&native.text).map_err(|x| format!("{}: {x}", native.file))?;
    // Every named enum of the file, by its short and full name.
    let mut enums: Vec<(String, Kind)> = Vec::new();
    let mut records: Vec<&J> = Vec::new();
    let mut stack = vec![&doc];
    while let Some(v) = stack.pop() {
        match v {
            J::Array(xs) => stack.extend(xs),
            J::Object(o) => {
                let name = o.get("name").and_then(J::as_str).unwrap_or("");
                match o.get("type").and_then(J::as_str) {
                    Some("enum") => {
                        let symbols: Vec<(i64, String)> = o
                            .get("symbols")
                            .and_then(J::as_array)
                            .map(|xs| xs.iter().filter_map(J::as_str).map(String::from).enumerate())
                            .into_iter()
                            .flatten()
                            .map(|(i, s)| (i as i64, s))
                            .collect();
                        if let Some(k) = enum_kind(name, symbols) {
                            let ns = o.get("namespace").and_then(J::as_str);
                            enums.push((name.to_string(), k.clone()));
                            if let Some(ns) = ns {
                                enums.push((format!("{ns}.{name}"), k));
                            }
                        }
                    }
                    Some("record") => records.push(v),
                    _ => {}
                }
                stack.extend(o.values());
            }
            _ => {}
        }
    }
    let short = native.root.rsplit('.').next().unwrap_or(&native.root);
    // The root: the record named so, else the file's record itself (or the last of a list).
    let whole = match &doc {
        J::Array(xs) => xs.last(),
        d => Some(d),
    };
    let named = records.iter().copied().find(|r| r.get("name").and_then(J::as_str) == Some(short));
    let Some(root) = named.or(whole.filter(|_| short.is_empty())) else { return Ok(()) };
    // The enum a field's type names or holds (through a union with null or an array).
    fn find(t: &J, enums: &[(String, Kind)]) -> Option<Kind> {
        match t {
            J::String(n) => enums.iter().find(|(x, _)| x == n).map(|(_, k)| k.clone()),
            J::Array(branches) => branches.iter().find_map(|b| find(b, enums)),
            J::Object(o) => match o.get("type").and_then(J::as_str) {
                Some("enum") => {
                    let n = o.get("name").and_then(J::as_str).unwrap_or("");
                    enums.iter().find(|(x, _)| x == n).map(|(_, k)| k.clone())
                }
                Some("array") => o.get("items").and_then(|i| find(i, enums)),
                _ => None,
            },
            _ => None,
        }
    }
    for jf in root.get("fields").and_then(J::as_array).into_iter().flatten() {
        let Some(name) = jf.get("name").and_then(J::as_str) else { continue };
        let Some(f) = e.fields.iter_mut().find(|f| f.name == name) else { continue };
        if let Some(k) = jf.get("type").and_then(|t| find(t, &enums)) {
            f.kind = with_scalar(&f.kind, k);
        }
        f.aliases = jf
            .get("aliases")
            .and_then(J::as_array)
            .map(|xs| xs.iter().filter_map(J::as_str).map(String::from).collect())
            .unwrap_or_default();
    }
    Ok(())
}

fn idl(s: &Schema, e: &mut EvoSchema) -> Result<(), String> {
    use ::cdr::TypeDesc as T;
    let native = s.native.as_ref().expect("an IDL schema");
    let file = ::cdr::idl::parse(&native.text).map_err(|x| format!("{}: {x}", native.file))?;
    let Some(T::Struct(st)) = file.get(&native.root) else { return Ok(()) };
    for m in &st.members {
        let Some(f) = e.fields.iter_mut().find(|f| f.name == m.name) else { continue };
        let en = match &m.ty {
            T::Enum(en) => en,
            T::Sequence { elem, .. } => match elem.as_ref() {
                T::Enum(en) => en,
                _ => continue,
            },
            _ => continue,
        };
        let values = en.enumerators.iter().map(|x| (i64::from(x.value), x.name.clone())).collect();
        if let Some(k) = enum_kind(&en.name, values) {
            f.kind = with_scalar(&f.kind, k);
        }
    }
    Ok(())
}
