//! JSON on serde_json: compact text, key order kept.

use wirebench_core::{Schema, Value};

use crate::{Codec, CodecError, CodecInfo, SchemaUse};

pub struct Json;

static INFO: CodecInfo = CodecInfo {
    id: "json",
    format: "JSON (compact)",
    library: "serde_json",
    schema: SchemaUse::None,
    media_type: "application/json",
    fidelity_notes: &[
        "bytes become an array of integers",
        "NaN and infinities become null",
        "whole floats keep a .0 and decode as floats; integers beyond 64 bits are refused with their offset",
    ],
};

impl Codec for Json {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, _: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        serde_json::to_writer(out, value).map_err(|e| CodecError::Encode(e.to_string()))
    }

    fn decode(&self, bytes: &[u8], _: Option<&Schema>) -> Result<Value, CodecError> {
        // A UTF-8 byte order mark is skipped (offsets still count from the file's first byte).
        let bom = if bytes.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
        let text = &bytes[bom..];
        let mut de = serde_json::Deserializer::from_slice(text);
        // The nesting limit is wirebench_core's (the Value reader counts), as for every format.
        de.disable_recursion_limit();
        let v = serde::Deserialize::deserialize(&mut de).and_then(|v: Value| de.end().map(|()| v));
        let v = v.map_err(|e| {
            let msg = e.to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            CodecError::decode(msg, Some(bom + offset_of(text, e.line(), e.column())))
        })?;
        // An integer beyond 64 bits is refused, not read as a float that loses digits.
        wirebench_core::value::check_wide_integers(text, &v).map_err(|e| {
            CodecError::decode(e.message().to_string(), Some(bom + offset_of(text, e.line(), e.column())))
        })?;
        Ok(v)
    }
}

/// Byte offset of a 1-based line and column (serde_json reports those).
pub(crate) fn offset_of(bytes: &[u8], line: usize, column: usize) -> usize {
    let mut off = 0;
    for _ in 1..line {
        match bytes[off..].iter().position(|&b| b == b'\n') {
            Some(p) => off += p + 1,
            None => break,
        }
    }
    (off + column.saturating_sub(1)).min(bytes.len())
}
