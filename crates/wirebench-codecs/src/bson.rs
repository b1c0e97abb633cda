//! BSON on the MongoDB `bson` crate. A BSON message is a document: the root must be a map.

use wirebench_core::{Schema, Value};

use crate::{Codec, CodecError, CodecInfo, SchemaUse};

pub struct Bson;

static INFO: CodecInfo = CodecInfo {
    id: "bson",
    format: "BSON",
    library: "bson",
    schema: SchemaUse::None,
    media_type: "application/bson",
    fidelity_notes: &[
        "the root must be a document (map)",
        "no unsigned integers: values above 2^63-1 cannot be encoded",
        "float32 is widened to a double (same value)",
    ],
};

impl Codec for Bson {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, _: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        if !matches!(value, Value::Map(_)) {
            return Err(CodecError::Unsupported(format!("BSON root must be a document, not {}", value.kind())));
        }
        let bytes = bson::serialize_to_vec(value).map_err(|e| {
            let msg = e.to_string();
            if msg.contains("u64") || msg.contains("unsigned") || msg.contains("range") {
                CodecError::Unsupported(format!("BSON cannot hold this integer ({msg})"))
            } else {
                CodecError::Encode(msg)
            }
        })?;
        out.extend_from_slice(&bytes);
        Ok(())
    }

    fn decode(&self, bytes: &[u8], _: Option<&Schema>) -> Result<Value, CodecError> {
        if bytes.len() >= 4 {
            let declared = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            if declared as i64 != bytes.len() as i64 {
                return Err(CodecError::decode(
                    format!("BSON document length {declared} does not match the {} bytes given", bytes.len()),
                    Some(0),
                ));
            }
        }
        bson::deserialize_from_slice(bytes).map_err(|e| CodecError::decode(format!("invalid BSON: {e}"), None))
    }
}
