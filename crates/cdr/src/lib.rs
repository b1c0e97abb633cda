//! OMG CDR as DDS uses it: **XCDR1** (plain CDR, `PL_CDR`) and **XCDR2**
//! (`CDR2`, `D_CDR2`, `PL_CDR2`) from DDS-XTypes 1.3 §7.4, little and big
//! endian, with the 4-byte encapsulation header, driven by a run-time type
//! description ([`TypeDesc`]) that can be read from IDL ([`idl`]).
//!
//! Bytes match the `cyclonedds` 11.0.1 Python serializer (the reference
//! oracle of `shared/specs/cdr-dds.md` §1): XCDR1 aligns 8-byte types to 8,
//! XCDR2 to 4; XCDR2 puts a DHEADER before appendable and mutable structs
//! and before sequences and arrays of non-primitive elements; mutable
//! members carry EMHEADERs (XCDR2) or extended parameter headers (XCDR1,
//! lengths padded to 4, `PID_LIST_END` at the end); `@optional` members are
//! a presence byte (XCDR2) or a parameter header (XCDR1).
//!
//! * `no_std` + `alloc`, no `unsafe`, no dependencies.
//! * Decoding never panics: every read is bounds-checked against its
//!   enclosing region, every count against the remaining input before
//!   allocating, depth is bounded ([`Limits`]).
//! * [`Writer`] / [`Reader`] stream the same layout without a [`Value`]
//!   tree, for schema-directed adapters over other data models.
//! * Errors carry a kind and the byte offset ([`Error`]); IDL errors carry a
//!   line and column ([`idl::IdlError`]).
//!
//! ```
//! use cdr::{decode, encode, idl, Encoding, Value};
//! let file = idl::parse("@final struct Payload { unsigned long seq; sequence<octet> data; };")?;
//! let ty = file.get("Payload").unwrap();
//! let v = Value::Struct(vec![Value::UInt(1), Value::Bytes(vec![1, 2, 3, 4, 5])]);
//! let bytes = encode(ty, &v, Encoding::XCDR2_LE)?;
//! assert_eq!(bytes, [0x00, 0x07, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 1, 2, 3, 4, 5]);
//! assert_eq!(decode(ty, &bytes)?, v);
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_debug_implementations)]

extern crate alloc;

mod decode;
mod encode;
mod error;
mod header;
pub mod idl;
#[cfg(feature = "json")]
pub mod json;
mod stream;
mod types;
mod value;
mod write;

pub use decode::{decode, decode_key, decode_with, min_wire_size, Decoder, Limits};
pub use encode::{encode, encode_append, encode_key, encode_to, length_code, Encoder, DEFAULT_MAX_DEPTH};
pub use error::{Error, ErrorKind};
pub use header::{Encoding, Endian, Header, ParseEncodingError, Representation, Version};
pub use stream::{Mark, Reader, Writer};
pub use types::{
    hashed_member_id, EnumDesc, Enumerator, Extensibility, Member, StructDesc, TypeDesc, UnionCase, UnionDesc,
};
pub use value::Value;
pub use write::{SliceWriter, Write};

/// MD5 (RFC 1321) of `data`; used for `@hashid` member ids and exposed for
/// key hashes of keys longer than 16 bytes.
pub fn md5(data: &[u8]) -> [u8; 16] {
    use md5::Digest;
    md5::Md5::digest(data).into()
}
