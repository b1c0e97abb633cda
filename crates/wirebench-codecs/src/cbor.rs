//! CBOR (RFC 8949) on ciborium.

use wirebench_core::{Schema, Value};

use crate::{Codec, CodecError, CodecInfo, SchemaUse};

pub struct Cbor;

static INFO: CodecInfo = CodecInfo {
    id: "cbor",
    format: "CBOR",
    library: "ciborium",
    schema: SchemaUse::None,
    media_type: "application/cbor",
    fidelity_notes: &["none for this data model (float32 stays float32, bytes stay bytes)"],
};

impl Codec for Cbor {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, _: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        ciborium::into_writer(value, out).map_err(|e| CodecError::Encode(e.to_string()))
    }

    fn decode(&self, bytes: &[u8], _: Option<&Schema>) -> Result<Value, CodecError> {
        let mut reader = bytes;
        let v: Value = ciborium::from_reader(&mut reader).map_err(|e| match e {
            ciborium::de::Error::Syntax(off) => CodecError::decode("invalid CBOR", Some(off)),
            ciborium::de::Error::Semantic(off, msg) => CodecError::decode(msg, off),
            ciborium::de::Error::Io(e) => CodecError::decode(format!("truncated CBOR ({e})"), Some(bytes.len())),
            ciborium::de::Error::RecursionLimitExceeded => CodecError::decode("CBOR nested too deeply", None),
        })?;
        if !reader.is_empty() {
            return Err(CodecError::decode("trailing bytes after the CBOR item", Some(bytes.len() - reader.len())));
        }
        Ok(v)
    }
}
