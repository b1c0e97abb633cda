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
        "ObjectId, datetime, decimal128, timestamp, regex, code, min/max key and binary subtypes other than 0 are refused with their offset (no value of the data model holds them)",
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
        check_structure(bytes, max_depth())?;
        // What the structural check passes and the crate still refuses (e.g. a value our Value
        // cannot take) is named at the document's start.
        bson::deserialize_from_slice(bytes).map_err(|e| CodecError::decode(format!("invalid BSON: {e}"), Some(0)))
    }
}

/// The name of an element type the data model has no value for (it would come back as an
/// extended-JSON map and re-encode as a document), or None.
fn outside_model(ty: u8) -> Option<&'static str> {
    Some(match ty {
        0x06 => "undefined",
        0x07 => "ObjectId",
        0x09 => "UTC datetime",
        0x0B => "regular expression",
        0x0C => "DBPointer",
        0x0D => "JavaScript code",
        0x0E => "symbol",
        0x0F => "JavaScript code with scope",
        0x11 => "timestamp",
        0x13 => "decimal128",
        0x7F => "max key",
        0xFF => "min key",
        _ => return None,
    })
}

/// Check the element structure of a BSON document without recursion before the bson crate
/// reads it (the crate recurses with no limit and reports no byte offsets): every error names
/// the byte offset where the structure breaks, and documents nested deeper than `max` (a root
/// document has depth 1) are refused at the first one too deep.
fn check_structure(b: &[u8], max: usize) -> Result<(), CodecError> {
    let err = |msg: String, at: usize| Err(CodecError::decode(msg, Some(at)));
    let u32_at = |at: usize| -> Option<usize> {
        b.get(at..at + 4).map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]) as usize)
    };
    let i32_at = |at: usize| -> Option<i32> { b.get(at..at + 4).map(|x| i32::from_le_bytes([x[0], x[1], x[2], x[3]])) };
    // End of a C string starting at `at` within `end` (after its 0), checked as UTF-8.
    let cstr = |at: usize, end: usize, what: &str| -> Result<usize, CodecError> {
        let Some(n) = b.get(at..end.min(b.len())).and_then(|s| s.iter().position(|&c| c == 0)) else {
            return Err(CodecError::decode(
                format!("BSON {what} has no terminating 0 byte before the end of its document"),
                Some(at),
            ));
        };
        if let Err(e) = std::str::from_utf8(&b[at..at + n]) {
            return Err(CodecError::decode(format!("BSON {what} is not UTF-8"), Some(at + e.valid_up_to())));
        }
        Ok(at + n + 1)
    };
    // End of a length-prefixed string at `at` (int32 length counting its 0 byte, then bytes, 0).
    let string = |at: usize, end: usize| -> Result<usize, CodecError> {
        let n = match i32_at(at) {
            Some(n) if n >= 1 => n as usize,
            Some(n) => {
                return Err(CodecError::decode(format!("BSON string length {n} (at least 1: its 0 byte)"), Some(at)))
            }
            None => return Err(CodecError::decode("BSON string length runs past the end of its document", Some(at))),
        };
        let stop = at + 4 + n;
        if stop > end {
            return Err(CodecError::decode(
                format!("BSON string of {n} bytes runs past the end of its document"),
                Some(at),
            ));
        }
        if b[stop - 1] != 0 {
            return Err(CodecError::decode("BSON string does not end with a 0 byte", Some(stop - 1)));
        }
        if let Err(e) = std::str::from_utf8(&b[at + 4..stop - 1]) {
            return Err(CodecError::decode("BSON string is not UTF-8", Some(at + 4 + e.valid_up_to())));
        }
        Ok(stop)
    };
    // A document's length at `at`, checked against the bytes it must fit in.
    let doc_end = |at: usize, end: usize| -> Result<usize, CodecError> {
        match i32_at(at) {
            Some(n) if n >= 5 && at + n as usize <= end => Ok(at + n as usize),
            Some(n) if n < 5 => Err(CodecError::decode(format!("BSON document length {n} (at least 5)"), Some(at))),
            Some(n) => Err(CodecError::decode(
                format!("BSON document of {n} bytes runs past the end of its container"),
                Some(at),
            )),
            None => Err(CodecError::decode("BSON document length runs past the end of the input", Some(at))),
        }
    };
    if b.len() < 5 {
        return err(format!("BSON document needs at least 5 bytes, {} given", b.len()), 0);
    }
    // End offsets of the documents we are inside (a code-with-scope element pushes its own end
    // first, then its scope document's, so the walk resumes after the whole element).
    let mut ends: Vec<usize> = vec![doc_end(0, b.len())?];
    let mut at = 4;
    while let Some(&end) = ends.last() {
        if at + 1 >= end {
            if at + 1 == end {
                if b[at] != 0 {
                    return err(format!("BSON document ends with byte 0x{:02x}, not 0", b[at]), at);
                }
            } else if at != end {
                return err("BSON element runs past the end of its document".to_string(), at.min(end));
            }
            ends.pop();
            at = end;
            continue;
        }
        let ty = b[at];
        let value = cstr(at + 1, end - 1, "element name")?;
        if let Some(name) = outside_model(ty) {
            return err(format!("BSON {name} (type 0x{ty:02x}) is outside wirebench's data model (documents, arrays, strings, binary, booleans, null, int32, int64, doubles)"), at);
        }
        if ty == 0x05 && b.get(value + 4).is_some_and(|&sub| sub != 0x00) {
            return err(format!("BSON binary subtype 0x{:02x} is outside wirebench's data model (only generic binary, subtype 0x00)", b[value + 4]), value + 4);
        }
        let fixed = |n: usize| -> Result<usize, CodecError> {
            if value + n < end {
                Ok(value + n)
            } else {
                Err(CodecError::decode(
                    format!("BSON value of type 0x{ty:02x} ({n} bytes) runs past the end of its document"),
                    Some(value),
                ))
            }
        };
        let next = match ty {
            0x01 | 0x09 | 0x11 | 0x12 => fixed(8)?,
            0x02 | 0x0D | 0x0E => string(value, end - 1)?,
            0x03 | 0x04 => {
                let stop = doc_end(value, end - 1)?;
                if ends.len() >= max {
                    return err(format!("BSON nested deeper than {max} documents"), value);
                }
                ends.push(stop);
                at = value + 4;
                continue;
            }
            0x05 => {
                let n = match i32_at(value) {
                    Some(n) if n >= 0 => n as usize,
                    Some(n) => return err(format!("BSON binary length {n} is negative"), value),
                    None => return err("BSON binary length runs past the end of its document".to_string(), value),
                };
                let stop = value + 5 + n;
                if stop > end - 1 {
                    return err(format!("BSON binary of {n} bytes runs past the end of its document"), value);
                }
                stop
            }
            0x06 | 0x0A | 0x7F | 0xFF => value,
            0x07 => fixed(12)?,
            0x08 => {
                let stop = fixed(1)?;
                if b[value] > 1 {
                    return err(format!("BSON boolean holds 0x{:02x}, not 0 or 1", b[value]), value);
                }
                stop
            }
            0x0B => {
                let flags = cstr(value, end - 1, "regular expression")?;
                cstr(flags, end - 1, "regular expression options")?
            }
            0x0C => string(value, end - 1)? + 12,
            0x0F => {
                // Code with scope: total length, the code string, then a scope document.
                let total = match u32_at(value) {
                    Some(n) if n >= 14 && value + n < end => n,
                    _ => return err("BSON code-with-scope length does not fit its document".to_string(), value),
                };
                let doc = string(value + 4, value + total)?;
                let scope_end = doc_end(doc, value + total)?;
                if scope_end != value + total {
                    return err("BSON code-with-scope length does not match its parts".to_string(), value);
                }
                if ends.len() >= max {
                    return err(format!("BSON nested deeper than {max} documents"), doc);
                }
                ends.push(value + total);
                ends.push(scope_end);
                at = doc + 4;
                continue;
            }
            0x10 => fixed(4)?,
            0x13 => fixed(16)?,
            other => return err(format!("BSON element type 0x{other:02x} is not defined"), at),
        };
        if next > end - 1 {
            return err(format!("BSON value of type 0x{ty:02x} runs past the end of its document"), value);
        }
        at = next;
    }
    if at != b.len() {
        return err(format!("{} bytes after the BSON document", b.len() - at), at);
    }
    Ok(())
}
