//! YAML on serde_yaml_ng (a maintained fork of serde_yaml, on unsafe-libyaml).

use wirebench_core::{Schema, Value};

use crate::{Codec, CodecError, CodecInfo, SchemaUse};

pub struct Yaml;

static INFO: CodecInfo = CodecInfo {
    id: "yaml",
    format: "YAML",
    library: "serde_yaml_ng",
    schema: SchemaUse::None,
    media_type: "application/yaml",
    fidelity_notes: &[
        "bytes are not supported: serde_yaml_ng refuses to encode them",
        "float32 is read back as float64 (same value)",
        "nesting is limited to 128 levels by serde_yaml_ng whatever --max-depth says",
    ],
};

impl Codec for Yaml {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, _: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        serde_yaml_ng::to_writer(out, value).map_err(|e| CodecError::Encode(e.to_string()))
    }

    fn decode(&self, bytes: &[u8], _: Option<&Schema>) -> Result<Value, CodecError> {
        serde_yaml_ng::from_slice(bytes).map_err(|e| {
            let off = e.location().map(|l| l.index());
            let msg = e.to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            // serde_yaml_ng stops at 128 levels of its own (not configurable): the same
            // wording as every other format's nesting limit.
            let msg = if msg.starts_with("recursion limit exceeded") {
                wirebench_core::value::too_deep(wirebench_core::value::max_depth().min(128))
            } else {
                msg
            };
            CodecError::decode(format!("invalid YAML: {msg}"), off)
        })
    }
}
