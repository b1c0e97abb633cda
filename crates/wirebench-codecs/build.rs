//! Records the resolved versions of the codec libraries (from the workspace Cargo.lock), so every
//! results file can name the exact crate versions it measured.
use std::{env, fs, path::PathBuf};

const TRACKED: &[&str] = &[
    "serde_json",
    "ciborium",
    "rmp-serde",
    "bson",
    "prost",
    "apache-avro",
    "thrift",
    "quick-xml",
    "serde_yaml_ng",
    "zstd",
    "flate2",
    "pson",
];

fn main() {
    let lock = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = fs::read_to_string(&lock).unwrap_or_default();
    let mut found: Vec<(String, String)> = Vec::new();
    let mut name: Option<String> = None;
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').to_string());
        } else if let Some(v) = line.strip_prefix("version = ") {
            if let Some(n) = name.take() {
                if TRACKED.contains(&n.as_str()) && !found.iter().any(|(f, _)| f == &n) {
                    found.push((n, v.trim_matches('"').to_string()));
                }
            }
        }
    }
    let mut out = String::from("/// Resolved versions of the codec libraries, from Cargo.lock at build time.\npub const CRATE_VERSIONS: &[(&str, &str)] = &[\n");
    for (n, v) in &found {
        out.push_str(&format!("    ({n:?}, {v:?}),\n"));
    }
    out.push_str("];\n");
    let dest = PathBuf::from(env::var("OUT_DIR").unwrap()).join("versions.rs");
    fs::write(dest, out).unwrap();
}
