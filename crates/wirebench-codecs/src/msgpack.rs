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
    fidelity_notes: &[
        "none for this data model (float32 stays float32, bytes stay bin)",
        "extension types (the timestamp too) are refused with their offset: no value of the data model holds them",
    ],
};

impl Codec for MsgPack {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, _: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        rmp_serde::encode::write(out, value).map_err(|e| CodecError::Encode(e.to_string()))
    }

    fn decode(&self, bytes: &[u8], _: Option<&Schema>) -> Result<Value, CodecError> {
        if let Some((at, ty)) = first_ext(bytes) {
            let what = if ty == -1 { "timestamp (ext type -1)".to_string() } else { format!("ext type {ty}") };
            return Err(CodecError::decode(
                format!("MessagePack {what} is outside wirebench's data model (no value of it holds an extension)"),
                Some(at),
            ));
        }
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

/// The offset and type of the first extension value of the item at the start of `b`, walking
/// its structure without recursion (a count of items still to read); None when there is none
/// or the structure breaks first (rmp-serde then says where).
fn first_ext(b: &[u8]) -> Option<(usize, i8)> {
    let be = |at: usize, n: usize| -> Option<usize> {
        b.get(at..at + n).map(|x| x.iter().fold(0usize, |v, &y| (v << 8) | usize::from(y)))
    };
    let (mut at, mut pending) = (0usize, 1usize);
    while pending > 0 {
        pending -= 1;
        let start = at;
        let m = *b.get(at)?;
        at += 1;
        // (bytes of length field, fixed payload bytes, items it contains per unit of length)
        let (skip, items): (usize, usize) = match m {
            0x00..=0x7f | 0xc0 | 0xc2 | 0xc3 | 0xe0..=0xff => (0, 0),
            0x80..=0x8f => (0, 2 * usize::from(m & 0x0f)),
            0x90..=0x9f => (0, usize::from(m & 0x0f)),
            0xa0..=0xbf => (usize::from(m & 0x1f), 0),
            0xc4 | 0xd9 => (be(at, 1)? + 1, 0),
            0xc5 | 0xda => (be(at, 2)? + 2, 0),
            0xc6 | 0xdb => (be(at, 4)? + 4, 0),
            0xc7..=0xc9 => {
                let n = 1usize << (m - 0xc7);
                return Some((start, *b.get(at + n)? as i8));
            }
            0xd4..=0xd8 => return Some((start, *b.get(at)? as i8)),
            0xca | 0xce | 0xd2 => (4, 0),
            0xcb | 0xcf | 0xd3 => (8, 0),
            0xcc | 0xd0 => (1, 0),
            0xcd | 0xd1 => (2, 0),
            0xdc => (2, be(at, 2)?),
            0xdd => (4, be(at, 4)?),
            0xde => (2, 2 * be(at, 2)?),
            0xdf => (4, 2 * be(at, 4)?),
            0xc1 => return None,
        };
        at = at.checked_add(skip)?;
        if at > b.len() {
            return None;
        }
        pending = pending.checked_add(items)?;
        // More items declared than bytes left cannot be well-formed: let rmp-serde say so.
        if pending > b.len() - at + 1 {
            return None;
        }
    }
    None
}
