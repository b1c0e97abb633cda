//! CBOR (RFC 8949) on ciborium.

use wirebench_core::value::max_depth;
use wirebench_core::{Schema, Value};

use crate::{Codec, CodecError, CodecInfo, SchemaUse};

pub struct Cbor;

static INFO: CodecInfo = CodecInfo {
    id: "cbor",
    format: "CBOR",
    library: "ciborium",
    schema: SchemaUse::None,
    media_type: "application/cbor",
    fidelity_notes: &[
        "none for this data model (float32 stays float32, bytes stay bytes)",
        "tags (dates, bignums, …) are refused with their offset: no value of the data model holds them",
    ],
};

impl Codec for Cbor {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, _: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        ciborium::into_writer(value, out).map_err(|e| CodecError::Encode(e.to_string()))
    }

    fn decode(&self, bytes: &[u8], _: Option<&Schema>) -> Result<Value, CodecError> {
        // ciborium accepts some input that is not well-formed (nested indefinite-length
        // strings, RFC 8949 Appendix F): check the structure first, without recursion.
        if let Some((at, tag)) = check_well_formed(bytes, max_depth())? {
            return Err(CodecError::decode(
                format!(
                    "CBOR tag {tag}{} is outside wirebench's data model (no value of it holds a tag)",
                    tag_name(tag)
                ),
                Some(at),
            ));
        }
        let mut reader = bytes;
        // The nesting limit is ours (the Value reader counts containers and tags; the
        // structure walk above bounds the rest): ciborium's own one only as a backstop.
        let limit = max_depth().saturating_mul(2).saturating_add(8);
        let v: Result<Value, _> = ciborium::de::from_reader_with_recursion_limit(&mut reader, limit);
        // Where ciborium stopped, when it names no offset of its own.
        let at = bytes.len() - reader.len();
        let v = v.map_err(|e| match e {
            ciborium::de::Error::Syntax(off) => CodecError::decode("invalid CBOR", Some(off)),
            ciborium::de::Error::Semantic(off, msg) => CodecError::decode(msg, Some(off.unwrap_or(at))),
            ciborium::de::Error::Io(e) => CodecError::decode(format!("truncated CBOR ({e})"), Some(bytes.len())),
            ciborium::de::Error::RecursionLimitExceeded => {
                CodecError::decode(wirebench_core::value::too_deep(max_depth()), Some(at))
            }
        })?;
        if !reader.is_empty() {
            return Err(CodecError::decode("trailing bytes after the CBOR item", Some(bytes.len() - reader.len())));
        }
        Ok(v)
    }
}

/// What the item being read is inside of.
enum Open {
    /// A definite-length array or map (or a tag): this many items still to come.
    Items(u64),
    /// An indefinite-length array or map: items until a break (a map's count must be even
    /// there: `odd` says whether a key is waiting for its value).
    Indefinite { map: bool, odd: bool },
    /// An indefinite-length byte (2) or text (3) string: definite chunks of that major type
    /// until a break.
    Chunks(u8),
}

/// Check that `b` starts with one well-formed CBOR item (RFC 8949 §3 and Appendix F) nested at
/// most `max` containers deep; the error names the byte offset. Iterative: no input can exhaust
/// the stack. Trailing bytes are left to the caller.
/// The meaning of a few registered tags, for messages.
fn tag_name(tag: u64) -> &'static str {
    match tag {
        0 => " (date/time string)",
        1 => " (epoch-based date/time)",
        2 | 3 => " (bignum)",
        4 => " (decimal fraction)",
        5 => " (bigfloat)",
        24 => " (encoded CBOR item)",
        32 => " (URI)",
        55799 => " (self-described CBOR)",
        _ => "",
    }
}

/// Returns the offset and number of the first tag, if any (the caller refuses it).
fn check_well_formed(b: &[u8], max: usize) -> Result<Option<(usize, u64)>, CodecError> {
    let mut first_tag: Option<(usize, u64)> = None;
    let bad = |msg: &str, at: usize| Err(CodecError::decode(format!("CBOR not well-formed: {msg}"), Some(at)));
    let mut stack: Vec<Open> = Vec::new();
    let mut at = 0usize;
    loop {
        let start = at;
        let Some(&ib) = b.get(at) else { return bad("the input ends inside an item", at) };
        at += 1;
        let (major, ai) = (ib >> 5, ib & 0x1f);
        // A break ends an indefinite-length container or string.
        if ib == 0xff {
            match stack.pop() {
                Some(Open::Indefinite { map: true, odd: true }) => {
                    return bad("a break where a map value belongs", start)
                }
                Some(Open::Indefinite { .. }) | Some(Open::Chunks(_)) => {}
                _ => return bad("a break outside an indefinite-length item", start),
            }
        } else {
            if let Some(Open::Chunks(m)) = stack.last() {
                if major != *m || ai == 31 {
                    return bad(
                        "a chunk of an indefinite-length string must be a definite string of the same type",
                        start,
                    );
                }
            }
            let arg = match ai {
                0..=23 => Some(u64::from(ai)),
                24..=27 => {
                    let n = 1usize << (ai - 24);
                    let Some(bytes) = b.get(at..at + n) else {
                        return bad("the input ends inside an item's argument", at);
                    };
                    at += n;
                    Some(bytes.iter().fold(0u64, |v, &x| (v << 8) | u64::from(x)))
                }
                28..=30 => return bad("reserved additional information", start),
                _ => None, // 31: indefinite length
            };
            match (major, arg) {
                (0 | 1, Some(_)) => {}
                (2 | 3, Some(len)) => {
                    let end = usize::try_from(len).ok().and_then(|l| at.checked_add(l));
                    match end {
                        Some(end) if end <= b.len() => at = end,
                        _ => return bad("a string longer than the input", start),
                    }
                }
                (2 | 3, None) => {
                    if stack.len() >= max {
                        return bad(&format!("nested deeper than {max}"), start);
                    }
                    stack.push(Open::Chunks(major));
                    continue;
                }
                (4..=6, Some(n)) => {
                    if major == 6 && first_tag.is_none() {
                        first_tag = Some((start, n));
                    }
                    let items = match major {
                        4 => n,
                        5 => n.saturating_mul(2),
                        _ => 1,
                    };
                    if stack.len() >= max {
                        return bad(&format!("nested deeper than {max}"), start);
                    }
                    if items > 0 {
                        stack.push(Open::Items(items));
                        continue;
                    }
                }
                (4 | 5, None) => {
                    if stack.len() >= max {
                        return bad(&format!("nested deeper than {max}"), start);
                    }
                    stack.push(Open::Indefinite { map: major == 5, odd: false });
                    continue;
                }
                (7, Some(v)) => {
                    if ai == 24 && v < 32 {
                        return bad("a two-byte simple value below 32", start);
                    }
                }
                _ => return bad("indefinite length on a type that has none", start),
            }
        }
        // One item is complete: count it against the containers it closes.
        loop {
            match stack.last_mut() {
                None => return Ok(first_tag),
                Some(Open::Items(n)) => {
                    *n -= 1;
                    if *n == 0 {
                        stack.pop();
                        continue;
                    }
                    break;
                }
                Some(Open::Indefinite { odd, .. }) => {
                    *odd = !*odd;
                    break;
                }
                Some(Open::Chunks(_)) => break,
            }
        }
    }
}
