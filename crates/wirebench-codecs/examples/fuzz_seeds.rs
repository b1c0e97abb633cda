//! Writes the seed corpora of the fuzz targets (fuzz/seeds/<target>/) from the built-in
//! corpora and the shared vectors: `scripts/fuzz-seeds.sh` runs it.
//!
//! * a codec target's seeds: every built-in payload encoded by that codec; schema-directed
//!   codecs get the payload's index as the first byte, which picks the schema inferred from
//!   that payload (the fuzz harness's schema list starts with the same payloads, in order);
//! * `uadp_json`: the JSON texts of vectors/uadp.json and the uadp-json codecs' output;
//! * `schema`: every payload as JSON text and the schema inferred from it.
//!
//! usage: cargo run -p wirebench-codecs --example fuzz_seeds -- <repo root>

use std::fs;
use std::path::{Path, PathBuf};

use wirebench_codecs::{registry, SchemaUse};
use wirebench_core::{corpus, Schema, Value};

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    fs::create_dir_all(dir).expect("seed directory");
    fs::write(dir.join(name), bytes).expect("seed file");
}

fn main() {
    let root = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".into()));
    let seeds = root.join("fuzz/seeds");
    let payloads: Vec<corpus::Payload> = corpus::BUILTIN.iter().flat_map(|c| c.payloads()).collect();
    for codec in registry() {
        let id = codec.info().id;
        let target = id.replace('-', "_");
        for (i, p) in payloads.iter().enumerate() {
            let schema = Schema::infer([&p.value]);
            let mut bytes = Vec::new();
            if codec.encode(&p.value, Some(&schema), &mut bytes).is_err() {
                continue;
            }
            let seed = if codec.info().schema == SchemaUse::None { bytes } else { [vec![i as u8], bytes].concat() };
            let dir = if target.starts_with("uadp_json") { seeds.join("uadp_json") } else { seeds.join(&target) };
            write(&dir, &format!("{target}-{}", p.name.to_lowercase()), &seed);
        }
    }
    for p in &payloads {
        let schema = Schema::infer([&p.value]);
        write(&seeds.join("schema"), &format!("value-{}", p.name.to_lowercase()), p.value.to_json_string().as_bytes());
        write(&seeds.join("schema"), &format!("schema-{}", p.name.to_lowercase()), schema.to_json_pretty().as_bytes());
    }
    // The UADP vectors: binary messages for the uadp target's schema-less path are not
    // reachable (the codec needs a schema), so only the JSON texts are seeds.
    let text = fs::read_to_string(root.join("vectors/uadp.json")).expect("vectors/uadp.json");
    let vectors = Value::from_json_str(&text).expect("vectors/uadp.json is JSON");
    if let Value::Array(items) = vectors {
        for v in items {
            let Value::Map(pairs) = v else { continue };
            let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v);
            let (Some(Value::String(name)), Some(Value::String(text))) = (get("name"), get("text")) else { continue };
            write(&seeds.join("uadp_json"), &format!("vector-{name}"), text.as_bytes());
        }
    }
}
