//! MessagePack on rmp-serde (maps with string keys, bin for bytes).

use wirebench_core::{Schema, Value};

use crate::{Codec, CodecError, CodecInfo, SchemaUse};

pub struct MsgPack;

static INFO: CodecInfo = CodecInfo {
    id: "msgpack",
    format: "MessagePack",
    library: "rmp-serde",
    schema: SchemaUse::None,
    media_type: "application/msgpack",
    fidelity_notes: &["none for this data model (float32 stays float32, bytes stay bin)"],
};

impl Codec for MsgPack {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, _: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        rmp_serde::encode::write(out, value).map_err(|e| CodecError::Encode(e.to_string()))
    }

    fn decode(&self, bytes: &[u8], _: Option<&Schema>) -> Result<Value, CodecError> {
        let mut cursor = std::io::Cursor::new(bytes);
        let mut de = rmp_serde::Deserializer::new(&mut cursor);
        let v: Result<Value, _> = serde::Deserialize::deserialize(&mut de);
        let pos = cursor.position() as usize;
        let v = v.map_err(|e| CodecError::decode(format!("invalid MessagePack: {e}"), Some(pos)))?;
        if pos != bytes.len() {
            return Err(CodecError::decode("trailing bytes after the MessagePack item", Some(pos)));
        }
        Ok(v)
    }
}
