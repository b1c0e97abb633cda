//! The JSON Schema of results files shipped in docs/results.schema.json is the one generated
//! from the types: a change to a results type without a new schema fails here.
//! Regenerate with `WIREBENCH_BLESS=1 cargo test -p wirebench-core --test results_schema`.

#[test]
fn shipped_schema_is_the_generated_one() {
    let generated = wirebench_core::results::json_schema();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/results.schema.json");
    if std::env::var_os("WIREBENCH_BLESS").is_some() {
        std::fs::write(path, &generated).unwrap();
    }
    let shipped = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        shipped == generated,
        "docs/results.schema.json is out of date: WIREBENCH_BLESS=1 cargo test -p wirebench-core --test results_schema"
    );
    let v: serde_json::Value = serde_json::from_str(&shipped).unwrap();
    assert_eq!(v["properties"]["schema"]["const"], wirebench_core::results::RESULTS_SCHEMA);
}
