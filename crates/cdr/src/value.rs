//! The dynamic value the codec encodes and decodes, always read together
//! with a [`crate::TypeDesc`].

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// A CDR value. Which variant fits which type:
///
/// | type | value (decoded as) | also accepted when encoding |
/// |---|---|---|
/// | `boolean` | `Bool` | |
/// | `char` | `Char` (Latin-1, U+0000..=U+00FF) | |
/// | `int8`..`long long` | `Int` | `UInt` in range |
/// | `octet`, `uint8`..`unsigned long long` | `UInt` | `Int` in range |
/// | `float` / `double` | `F32` / `F64` | the other float width |
/// | `string` | `String` | |
/// | `sequence<octet>`, `octet[N]` | `Bytes` | `Seq` of integers |
/// | other sequences, arrays | `Seq` (nested per array dimension) | |
/// | enum | `Enum(value)` | |
/// | struct | `Struct` (members in declaration order; `Null` = absent `@optional`) | |
/// | union | `Union { disc, value }` | |
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An absent `@optional` member.
    Null,
    Bool(bool),
    Char(char),
    Int(i64),
    UInt(u64),
    F32(f32),
    F64(f64),
    String(String),
    /// A sequence or array of octets.
    Bytes(Vec<u8>),
    /// An enumerator's value.
    Enum(i32),
    /// A sequence, or one dimension of an array.
    Seq(Vec<Value>),
    /// A struct's members, in declaration order.
    Struct(Vec<Value>),
    /// A union: the discriminator as an integer (enumerator value, 0/1 for
    /// boolean, the byte for char; an `unsigned long long` above `i64::MAX`
    /// wraps) and the selected branch's value (`None` when the discriminator
    /// selects no branch).
    Union {
        disc: i64,
        value: Option<Box<Value>>,
    },
}

impl Value {
    /// A short name of the variant, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Char(_) => "char",
            Value::Int(_) | Value::UInt(_) => "integer",
            Value::F32(_) => "float32",
            Value::F64(_) => "float64",
            Value::String(_) => "string",
            Value::Bytes(_) => "bytes",
            Value::Enum(_) => "enum",
            Value::Seq(_) => "sequence",
            Value::Struct(_) => "struct",
            Value::Union { .. } => "union",
        }
    }

    /// Equality with floats compared bit for bit (so NaN equals itself).
    pub fn bitwise_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            (Value::Seq(a), Value::Seq(b)) | (Value::Struct(a), Value::Struct(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.bitwise_eq(y))
            }
            (Value::Union { disc: d1, value: v1 }, Value::Union { disc: d2, value: v2 }) => {
                d1 == d2
                    && match (v1, v2) {
                        (None, None) => true,
                        (Some(a), Some(b)) => a.bitwise_eq(b),
                        _ => false,
                    }
            }
            (a, b) => a == b,
        }
    }
}
