//! PSON codecs: **PSON v2** (the paper's 3-bit wire type / 5-bit payload
//! format, spec `shared/specs/pson.md` §1) and the legacy **Protoson v1**
//! ([`protoson`], §2), sharing one borrowed [`Value`] tree.
//!
//! * `no_std` + `alloc`, no `unsafe`, no dependencies.
//! * Decoders never panic: every length and count is checked against the
//!   remaining input before use or allocation, depth is bounded
//!   ([`Limits`]), arithmetic cannot overflow, and they are iterative.
//! * Errors carry the byte offset of the problem ([`Error`]).
//!
//! ```
//! use pson::{decode, Value};
//! let v = Value::Map(vec![("bool", Value::Bool(true))]);
//! let bytes = v.to_vec();
//! assert_eq!(bytes, [0xc1, 0x84, b'b', b'o', b'o', b'l', 0x61]);
//! let (back, used) = decode(&bytes)?;
//! assert_eq!((back, used), (v, 7));
//! # Ok::<(), pson::Error>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_debug_implementations)]

extern crate alloc;

mod decode;
mod encode;
mod error;
pub mod protoson;
#[cfg(feature = "serde")]
pub mod serde;
mod value;
mod write;

pub use decode::{decode, decode_exact, decode_with, Decoder, Item, Limits};
pub use encode::{
    bytes_len, classify_f64, f64_len, header_len, i64_len, str_len, u64_len, varint_len, Encoder, FloatRepr,
};
pub use error::{Error, ErrorKind};
pub use value::Value;
pub use write::{SliceWriter, Write};

/// PSON v2 wire type numbers (§1.3), as found in `header >> 5`.
pub mod wire_type {
    pub const UINT: u8 = 0;
    pub const NEG_INT: u8 = 1;
    pub const FLOAT: u8 = 2;
    pub const DISCRETE: u8 = 3;
    pub const STR: u8 = 4;
    pub const BYTES: u8 = 5;
    pub const MAP: u8 = 6;
    pub const ARRAY: u8 = 7;
}
