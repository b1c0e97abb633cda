//! The byte cost of evolvability: message sizes with and without the metadata that lets
//! another version read them.

use serde::Serialize;
use wirebench_core::Value;

use super::formats::bind_idl;
use super::verdicts::get;
use super::{bind, encode, samples, EvoSchema, Format, Scratch};

/// The size of the samples with what the format needs to evolve, and without it.
#[derive(Clone, Debug, Serialize)]
pub struct Cost {
    pub format: Format,
    /// Mean bytes per message as written.
    pub with: f64,
    /// Mean bytes per message without the evolution metadata.
    pub without: f64,
    /// What that metadata is.
    pub what: String,
}

/// Mean size per message of `samples` written with `s`, with and without the metadata that
/// lets readers of another version read them, measured on real encodings where the format
/// has a form without it (CDR `@final`, a schemaless format's array of values), counted from
/// the bytes otherwise (protobuf keys, Thrift field headers).
pub fn cost(format: Format, s: &EvoSchema, n: usize, scratch: &Scratch) -> Result<Cost, String> {
    let xs = samples(s, n);
    let mut b = bind(format, s, scratch, &format!("cost-{}", format.codec()))?;
    if format == Format::Uadp {
        b.version = Some((1, 1));
    }
    let mut with = 0usize;
    let mut without = 0usize;
    let plain = match format {
        // The same type, @final, in the same encoding.
        Format::Xcdr2Appendable | Format::Xcdr2Mutable => Some(bind_idl(format, s, "final", scratch, "cost-final2")?),
        // The same DataSetMessage without its ConfigurationVersion.
        Format::Uadp => Some(bind(format, s, scratch, "cost-uadp-plain")?),
        _ => None,
    };
    for x in &xs {
        let bytes = encode(&b, x)?;
        with += bytes.len();
        without += match format {
            Format::Protobuf => bytes.len() - protobuf_key_bytes(&bytes)?,
            Format::Avro => bytes.len(),
            Format::Thrift => bytes.len() - thrift_header_bytes(s, x),
            Format::Xcdr1Final => bytes.len(),
            Format::Uadp | Format::Xcdr2Appendable | Format::Xcdr2Mutable => {
                encode(plain.as_ref().expect("the form without evolution metadata"), x)?.len()
            }
            _ => {
                // The same values as an array in field order (what a positional reader needs).
                let Value::Map(pairs) = x else { return Err("not a record".into()) };
                let arr = Value::Array(
                    s.fields
                        .iter()
                        .map(|f| pairs.iter().find(|(k, _)| *k == f.name).map_or(Value::Null, |(_, v)| v.clone()))
                        .collect(),
                );
                let codec = crate::find(format.codec()).ok_or("no codec")?;
                let mut out = Vec::new();
                match codec.encode(&arr, None, &mut out) {
                    Ok(()) => out.len(),
                    Err(_) => bytes.len(), // BSON has no top-level array: names are its only form
                }
            }
        };
        if format == Format::Avro {
            // Single-object encoding: C3 01 and the writer schema's 8-byte fingerprint, so that
            // the reader can find the writer's schema.
            with += 10;
        }
    }
    let what = match format {
        Format::Protobuf => "field keys (tag and wire type)",
        Format::Avro => "none in the datum; the reader needs the writer's schema (single-object encoding: 2-byte marker + 8-byte fingerprint)",
        Format::Thrift => "field headers (id delta and type) and the stop byte",
        Format::Uadp => "ConfigurationVersion (MajorVersion, MinorVersion) in the DataSetMessage header; fields stay positional",
        Format::Xcdr1Final => "none (cannot evolve)",
        Format::Xcdr2Appendable => "DHEADER (4 bytes) over the @final form",
        Format::Xcdr2Mutable => "DHEADER and an EMHEADER per member over the @final form",
        Format::Bson => "field names (BSON has no form without them)",
        _ => "field names (against an array of the values in field order)",
    };
    Ok(Cost { format, with: with as f64 / n as f64, without: without as f64 / n as f64, what: what.into() })
}

/// The bytes of a protobuf message that are field keys (walked with prost's wire primitives).
pub fn protobuf_key_bytes(bytes: &[u8]) -> Result<usize, String> {
    use prost::encoding::{decode_key, decode_varint, WireType};
    let mut buf = bytes;
    let mut keys = 0;
    while !buf.is_empty() {
        let before = buf.len();
        let (_, wt) = decode_key(&mut buf).map_err(|e| e.to_string())?;
        keys += before - buf.len();
        match wt {
            WireType::Varint => {
                decode_varint(&mut buf).map_err(|e| e.to_string())?;
            }
            WireType::SixtyFourBit => buf = buf.get(8..).ok_or("truncated")?,
            WireType::ThirtyTwoBit => buf = buf.get(4..).ok_or("truncated")?,
            WireType::LengthDelimited => {
                let n = decode_varint(&mut buf).map_err(|e| e.to_string())? as usize;
                buf = buf.get(n..).ok_or("truncated")?;
            }
            _ => return Err("groups are not written".into()),
        }
    }
    Ok(keys)
}

/// The bytes of a Thrift compact struct that are field headers: one per field written (short
/// form: id delta 1..15), three for a long-form header, and the stop byte.
fn thrift_header_bytes(s: &EvoSchema, v: &Value) -> usize {
    let mut last = 0i64;
    let mut n = 1;
    for (i, f) in s.fields.iter().enumerate() {
        if get(v, &f.name).is_none_or(|x| *x == Value::Null) {
            continue;
        }
        let id = i as i64 + 1;
        n += if (1..=15).contains(&(id - last)) { 1 } else { 3 };
        last = id;
    }
    n
}
