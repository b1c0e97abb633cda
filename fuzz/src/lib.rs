//! The shared harness of the codec fuzz targets: decode the fuzzer's bytes with one codec of
//! the zoo (through our `Value` conversion), and check what a decoder must hold.
//!
//! * decoding never panics or overflows the stack; a decode error's byte offset lies inside
//!   the input, and its message is one line without control characters;
//! * a decoded value converts to JSON text, has a schema inferred from it, and the codec
//!   encodes it again; what it encodes decodes again (written bytes read back).
//!
//! Schema-directed codecs take their schema from the first byte: one of the schemas inferred
//! from the built-in corpora and a few shapes of our own (nesting, optional fields, arrays).

use std::sync::OnceLock;

use wirebench_codecs::{find, CodecError, SchemaUse};
use wirebench_core::{corpus, Schema, Value};

/// The schemas the first input byte picks from.
pub fn schemas() -> &'static [Schema] {
    static ALL: OnceLock<Vec<Schema>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut values: Vec<Value> =
            corpus::BUILTIN.iter().flat_map(|c| c.payloads()).map(|p| p.value).collect();
        for extra in [
            r#"{"a":{"b":{"c":{"d":[1,2,3]}}},"e":[{"f":true},{"f":false}]}"#,
            r#"{"i8":-1,"u64":18446744073709551615,"i64":-9223372036854775808,"f":0.5,"s":"x","b":[[1],[2,3]]}"#,
        ] {
            values.push(Value::from_json_str(extra).expect("a fuzz schema sample is valid JSON"));
        }
        let mut schemas: Vec<Schema> = values.iter().map(|v| Schema::infer([v])).collect();
        // Optional fields: two samples, one without the field.
        let a = Value::from_json_str(r#"{"t":1,"o":{"x":1.5}}"#).unwrap();
        let b = Value::from_json_str(r#"{"t":2}"#).unwrap();
        schemas.push(Schema::infer([&a, &b]));
        schemas
    })
}

/// Check a decode error: the offset inside the input, one line, no control characters.
pub fn check_error(e: &CodecError, len: usize) {
    if let Some(o) = e.offset() {
        assert!(o <= len, "error offset {o} beyond the input's {len} bytes: {e}");
    }
    let msg = e.to_string();
    assert!(!msg.chars().any(|c| c.is_control()), "control character in an error message: {msg:?}");
}

/// Decode `data` with the codec `id` and check what must hold.
pub fn codec(id: &str, data: &[u8]) {
    let codec = find(id).unwrap_or_else(|| panic!("no codec {id}"));
    let (schema, bytes) = match codec.info().schema {
        SchemaUse::None => (None, data),
        _ => match data.split_first() {
            Some((&pick, rest)) => {
                let all = schemas();
                (Some(&all[pick as usize % all.len()]), rest)
            }
            None => (None, data),
        },
    };
    match codec.decode(bytes, schema) {
        Ok(value) => {
            let _ = value.to_json_string();
            let _ = Schema::infer([&value]);
            let mut out = Vec::new();
            if codec.encode(&value, schema, &mut out).is_ok() {
                if let Err(e) = codec.decode(&out, schema) {
                    panic!("{id}: written bytes do not read back: {e}");
                }
            }
        }
        Err(e) => check_error(&e, bytes.len()),
    }
}

/// Read `data` as a schema file with the extension `ext` (written to a file of this process's
/// own temporary folder) and check what a schema reader must hold: no panic, a one-line error
/// without control characters, and a model within the schema limits.
pub fn schema_file(ext: &str, data: &[u8]) {
    use wirebench_core::value::{max_depth, MAX_SCHEMA_TYPES};
    use wirebench_core::Type;
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("wirebench-fuzz-schema-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("a temporary folder");
        d
    });
    let path = dir.join(format!("s.{ext}"));
    std::fs::write(&path, data).expect("write the schema file");
    match wirebench_codecs::schema_files::read_schema_file(&path, None) {
        Ok(schema) => {
            // Count the model's types and depth without recursion.
            let mut stack = vec![(&schema.root, 1usize)];
            let mut types = 0;
            while let Some((t, depth)) = stack.pop() {
                types += 1;
                assert!(depth <= max_depth() + 1, "a model nested {depth} deep");
                match t {
                    Type::Array { items } => stack.push((items, depth + 1)),
                    Type::Record { fields, .. } => stack.extend(fields.iter().map(|f| (&f.ty, depth + 1))),
                    _ => {}
                }
            }
            assert!(types <= 2 * MAX_SCHEMA_TYPES, "a model of {types} types");
        }
        Err(e) => assert!(!e.chars().any(|c| c.is_control()), "control character in a schema error: {e:?}"),
    }
}
