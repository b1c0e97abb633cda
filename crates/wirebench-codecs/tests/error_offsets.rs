//! Every decode error names a byte offset: for every codec of the zoo, every truncation and
//! every single-bit flip of encoded built-in payloads that fails to decode must fail with an
//! offset within the input (the CLI prints it as "at byte N"), and none shows a Rust debug form.

use wirebench_codecs::{registry, CodecError, SchemaUse};
use wirebench_core::{corpus, Schema};

#[test]
fn every_decode_error_names_a_byte_offset() {
    let mut payloads = corpus::builtin("pson-paper").unwrap().payloads().split_off(7);
    payloads.extend(corpus::builtin("ev-telemetry").unwrap().payloads());
    assert_eq!(payloads.len(), 4);
    let mut report = Vec::new();
    let mut missing = Vec::new();
    for codec in registry() {
        let id = codec.info().id;
        let (mut errors, mut without) = (0usize, 0usize);
        for p in &payloads {
            let schema = Schema::infer([&p.value]);
            let schema = (codec.info().schema != SchemaUse::None).then_some(&schema);
            let mut bytes = Vec::new();
            if codec.encode(&p.value, schema, &mut bytes).is_err() {
                continue;
            }
            let mut variants: Vec<Vec<u8>> = (0..bytes.len()).map(|n| bytes[..n].to_vec()).collect();
            for i in 0..bytes.len().min(256) {
                for bit in 0..8 {
                    let mut b = bytes.clone();
                    b[i] ^= 1 << bit;
                    variants.push(b);
                }
            }
            for v in variants {
                if let Err(e) = codec.decode(&v, schema) {
                    if matches!(e, CodecError::Unsupported(_) | CodecError::Schema(_)) {
                        continue;
                    }
                    errors += 1;
                    // No Rust debug forms in messages ("found Some(Int32)").
                    let text = e.to_string();
                    assert!(!text.contains("Some(") && !text.contains("None)"), "{id}: {text}");
                    match e.offset() {
                        Some(at) if at <= v.len() => {}
                        _ => {
                            without += 1;
                            if missing.iter().filter(|m: &&String| m.starts_with(id)).count() < 6 {
                                missing.push(format!("{id} ({} bytes): {e}", v.len()));
                            }
                        }
                    }
                }
            }
        }
        report.push(format!("{id}: {without} of {errors} errors without an offset"));
    }
    eprintln!("{}", report.join("\n"));
    assert!(missing.is_empty(), "{}\n{}", report.join("\n"), missing.join("\n"));
}
