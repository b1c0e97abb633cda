//! Borrowed value tree shared by the PSON v2 and Protoson v1 codecs.

use crate::encode::{bytes_len, f64_len, header_len, i64_len, u64_len, wire, Encoder};
use crate::error::Error;
use crate::write::Write;
use alloc::vec::Vec;

/// A decoded (or to-be-encoded) value. Strings and bytes borrow from the
/// input. Maps keep insertion order and duplicates.
///
/// Encoding is canonical, so `decode(encode(v))` normalises:
/// `Int(n)` with `n >= 0` → `Uint(n)`; floats that are integral and in
/// [-2^63, 2^63) (including `-0.0`) → `Uint`/`Int`; `F64` exact in f32 →
/// `F32`; `F32` that is not integral stays `F32`; every NaN → the
/// canonical quiet NaN as `F64`.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'b> {
    Uint(u64),
    /// Negative values decoded from wire 1 (wire-1 magnitude 0 decodes to
    /// `Int(0)`). Non-negative `Int`s encode like `Uint`.
    Int(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Null,
    Str(&'b str),
    Bytes(&'b [u8]),
    Map(Vec<(&'b str, Value<'b>)>),
    Array(Vec<Value<'b>>),
}

impl Value<'_> {
    /// Encode as PSON v2 (recursive over the tree).
    pub fn encode<W: Write>(&self, enc: &mut Encoder<W>) -> Result<(), Error> {
        match self {
            Value::Uint(u) => enc.u64(*u).map(drop),
            Value::Int(i) => enc.i64(*i).map(drop),
            Value::F32(f) => enc.f32(*f).map(drop),
            Value::F64(f) => enc.f64(*f).map(drop),
            Value::Bool(b) => enc.bool(*b).map(drop),
            Value::Null => enc.null().map(drop),
            Value::Str(s) => enc.str(s).map(drop),
            Value::Bytes(b) => enc.bytes(b).map(drop),
            Value::Map(pairs) => {
                enc.map(pairs.len() as u64)?;
                for (k, v) in pairs {
                    enc.str(k)?;
                    v.encode(enc)?;
                }
                Ok(())
            }
            Value::Array(items) => {
                enc.array(items.len() as u64)?;
                for v in items {
                    v.encode(enc)?;
                }
                Ok(())
            }
        }
    }

    /// Exact number of bytes [`Value::encode`] writes.
    pub fn encoded_len(&self) -> usize {
        match self {
            Value::Uint(u) => u64_len(*u),
            Value::Int(i) => i64_len(*i),
            Value::F32(f) => f64_len(*f as f64),
            Value::F64(f) => f64_len(*f),
            Value::Bool(_) | Value::Null => 1,
            Value::Str(s) => bytes_len(s.as_bytes()),
            Value::Bytes(b) => bytes_len(b),
            Value::Map(pairs) => pairs.iter().fold(header_len(pairs.len() as u64), |acc, (k, v)| {
                acc.saturating_add(bytes_len(k.as_bytes())).saturating_add(v.encoded_len())
            }),
            Value::Array(items) => {
                items.iter().fold(header_len(items.len() as u64), |acc, v| acc.saturating_add(v.encoded_len()))
            }
        }
    }

    /// Encode into a new vector (exactly [`Value::encoded_len`] bytes).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut enc = Encoder::new(Vec::with_capacity(self.encoded_len()));
        // Writing to a Vec cannot fail.
        let _ = self.encode(&mut enc);
        enc.into_inner()
    }

    /// PSON v2 wire type this value encodes to (§1.3; floats per §1.5).
    pub fn wire_type(&self) -> u8 {
        use crate::encode::{classify_f64, FloatRepr};
        let float = |d: f64| match classify_f64(d) {
            FloatRepr::Uint(_) => wire::UINT,
            FloatRepr::Neg(_) => wire::NEG,
            _ => wire::FLOAT,
        };
        match self {
            Value::Uint(_) => wire::UINT,
            Value::Int(i) => {
                if *i >= 0 {
                    wire::UINT
                } else {
                    wire::NEG
                }
            }
            Value::F32(f) => float(*f as f64),
            Value::F64(f) => float(*f),
            Value::Bool(_) | Value::Null => wire::DISCRETE,
            Value::Str(_) => wire::STR,
            Value::Bytes(_) => wire::BYTES,
            Value::Map(_) => wire::MAP,
            Value::Array(_) => wire::ARRAY,
        }
    }
}
