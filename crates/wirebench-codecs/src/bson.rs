//! BSON on the MongoDB `bson` crate. A BSON message is a document: the root must be a map.

use wirebench_core::value::max_depth;
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
        // The bson crate reads nested documents recursively with no limit of its own: check
        // the nesting first, without recursion.
        check_depth(bytes, max_depth())?;
        bson::deserialize_from_slice(bytes).map_err(|e| CodecError::decode(format!("invalid BSON: {e}"), None))
    }
}

/// Refuse documents nested deeper than `max` (a root document has depth 1), naming the byte
/// offset of the first document too deep. Walks the element structure iteratively; where the
/// structure is malformed it stops and leaves the error to the bson crate, which cannot get
/// deeper than this walk did before reaching the same bytes.
fn check_depth(b: &[u8], max: usize) -> Result<(), CodecError> {
    let u32_at = |at: usize| -> Option<usize> { b.get(at..at + 4).map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]) as usize) };
    let cstr_end = |at: usize| -> Option<usize> { b.get(at..)?.iter().position(|&c| c == 0).map(|n| at + n + 1) };
    // End offsets of the documents we are inside.
    let mut ends: Vec<usize> = Vec::new();
    let Some(len) = u32_at(0) else { return Ok(()) };
    ends.push(len);
    let mut at = 4;
    while let Some(&end) = ends.last() {
        if at + 1 >= end || at >= b.len() {
            // The terminating 0 of this document (or malformed: the crate says so).
            ends.pop();
            at = end;
            continue;
        }
        let ty = b[at];
        let Some(value) = cstr_end(at + 1) else { return Ok(()) };
        let string = |v: usize| u32_at(v).map(|n| v + 4 + n);
        let next = match ty {
            0x01 | 0x09 | 0x11 | 0x12 => Some(value + 8),
            0x02 | 0x0D | 0x0E => string(value),
            0x03 | 0x04 => {
                let Some(n) = u32_at(value) else { return Ok(()) };
                if ends.len() >= max {
                    return Err(CodecError::decode(format!("BSON nested deeper than {max} documents"), Some(value)));
                }
                ends.push(value + n);
                at = value + 4;
                continue;
            }
            0x05 => u32_at(value).map(|n| value + 5 + n),
            0x06 | 0x0A | 0x7F | 0xFF => Some(value),
            0x07 => Some(value + 12),
            0x08 => Some(value + 1),
            0x0B => cstr_end(value).and_then(cstr_end),
            0x0C => string(value).map(|v| v + 12),
            0x0F => {
                // Code with scope: total length, the code string, then a scope document.
                let (Some(total), Some(doc)) = (u32_at(value), string(value + 4)) else { return Ok(()) };
                let Some(n) = u32_at(doc) else { return Ok(()) };
                if ends.len() >= max {
                    return Err(CodecError::decode(format!("BSON nested deeper than {max} documents"), Some(doc)));
                }
                // Resume after the whole element once the scope document is walked.
                ends.push(value + total);
                ends.push(doc + n);
                at = doc + 4;
                continue;
            }
            0x10 => Some(value + 4),
            0x13 => Some(value + 16),
            _ => return Ok(()),
        };
        match next {
            Some(n) if n <= end => at = n,
            _ => return Ok(()),
        }
    }
    Ok(())
}
