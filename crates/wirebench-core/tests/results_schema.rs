//! The JSON Schema of results files shipped in docs/results.schema.json, and the field reference
//! in docs/results.md, are the ones generated from the types: a change to a results type without
//! regenerating them fails here. Regenerate both with
//! `WIREBENCH_BLESS=1 cargo test -p wirebench-core --test results_schema`.

use serde_json::Value;

const DOCS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/");
const BEGIN: &str = "<!-- field reference: generated from docs/results.schema.json, do not edit by hand -->\n";
const END: &str = "<!-- end of field reference -->\n";

fn bless() -> bool {
    std::env::var_os("WIREBENCH_BLESS").is_some()
}

#[test]
fn shipped_schema_is_the_generated_one() {
    let generated = wirebench_core::results::json_schema();
    let path = format!("{DOCS}results.schema.json");
    if bless() {
        std::fs::write(&path, &generated).unwrap();
    }
    let shipped = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        shipped == generated,
        "docs/results.schema.json is out of date: WIREBENCH_BLESS=1 cargo test -p wirebench-core --test results_schema"
    );
    let v: Value = serde_json::from_str(&shipped).unwrap();
    assert_eq!(v["properties"]["schema"]["const"], wirebench_core::results::RESULTS_SCHEMA);
}

#[test]
fn results_md_documents_every_field() {
    let schema: Value = serde_json::from_str(&wirebench_core::results::json_schema()).unwrap();
    let reference = reference(&schema);
    let path = format!("{DOCS}results.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    let (head, rest) = doc.split_once(BEGIN).unwrap_or((&doc, ""));
    let tail = rest.split_once(END).map(|(_, t)| t).unwrap_or("");
    let want = format!("{head}{BEGIN}{reference}{END}{tail}");
    if bless() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    assert!(
        doc == want,
        "docs/results.md's field reference is out of date: WIREBENCH_BLESS=1 cargo test -p wirebench-core --test results_schema"
    );
}

/// One Markdown table per object type: field, type, required, description.
fn reference(schema: &Value) -> String {
    let mut out = String::new();
    object("Results (the file)", schema, &mut out);
    if let Some(defs) = schema["$defs"].as_object() {
        for (name, def) in defs {
            object(name, def, &mut out);
        }
    }
    out
}

fn object(name: &str, def: &Value, out: &mut String) {
    out.push_str(&format!("\n### {name}\n\n"));
    if let Some(d) = def["description"].as_str() {
        out.push_str(&format!("{}\n\n", one_line(d)));
    }
    if let Some(variants) = def["oneOf"].as_array().or(def["anyOf"].as_array()) {
        out.push_str("One of:\n\n");
        for v in variants {
            let fields: Vec<String> = v["properties"]
                .as_object()
                .map(|p| p.iter().map(|(k, t)| format!("`{k}`: {}", type_of(t))).collect())
                .unwrap_or_else(|| vec![type_of(v)]);
            let what = v["description"].as_str().map(one_line).unwrap_or_default();
            out.push_str(&format!("- {} {what}\n", fields.join(", ")));
        }
        return;
    }
    let Some(props) = def["properties"].as_object() else {
        out.push_str(&format!("Type: {}\n", type_of(def)));
        return;
    };
    let required: Vec<&str> =
        def["required"].as_array().map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    out.push_str("| field | type | required | description |\n| --- | --- | --- | --- |\n");
    for (k, t) in props {
        let req = if required.contains(&k.as_str()) { "yes" } else { "no" };
        let d = t["description"].as_str().map(one_line).unwrap_or_default();
        out.push_str(&format!("| `{k}` | {} | {req} | {} |\n", type_of(t).replace('|', "\\|"), d.replace('|', "\\|")));
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn type_of(t: &Value) -> String {
    if t == &Value::Bool(true) {
        return "any".into();
    }
    if let Some(r) = t["$ref"].as_str() {
        let name = r.rsplit('/').next().unwrap_or(r);
        return format!("[{name}](#{})", name.to_lowercase());
    }
    if let Some(c) = t.get("const") {
        return format!("`{c}`");
    }
    if let Some(alts) = t["anyOf"].as_array().or(t["oneOf"].as_array()) {
        return alts.iter().map(type_of).collect::<Vec<_>>().join(" or ");
    }
    let base = |ty: &str| -> String {
        match ty {
            "array" => match &t["items"] {
                Value::Array(items) => format!("[{}]", items.iter().map(type_of).collect::<Vec<_>>().join(", ")),
                Value::Null => "array".into(),
                item => format!("array of {}", type_of(item)),
            },
            "object" if t["additionalProperties"].is_object() => {
                format!("map of {}", type_of(&t["additionalProperties"]))
            }
            other => other.into(),
        }
    };
    match &t["type"] {
        Value::String(s) => base(s),
        Value::Array(a) => a.iter().filter_map(Value::as_str).map(base).collect::<Vec<_>>().join(" or "),
        _ => "any".into(),
    }
}
