//! serde support for PSON v2 (feature `serde`) — the "typed path": `#[derive(Serialize, Deserialize)]` types go
//! straight to and from PSON bytes, with no intermediate tree.
//!
//! The serializer writes straight into a [`crate::Write`] (no allocation per item); it writes
//! headers and floats itself with fixed-size writes, byte-for-byte what [`crate::Encoder`]
//! writes (the tests check this over integer, length and float edge cases and random floats),
//! and uses the encoder for the rare long varints. The deserializer reads the common item
//! forms with an inline fast path and hands everything else (escaped discrete/float headers,
//! 10-byte varints, anything malformed) to [`crate::Decoder`], so what it accepts and where it
//! reports errors are the `pson` crate's (also checked by the tests, against the dynamic
//! codec, on hostile input).
//!
//! ```text
//! serde data model            PSON v2 item
//! ------------------------    ------------------------------------------------------------
//! bool                        discrete 60 / 61
//! i8..i64, i128 (if fits)     wire 0 (>= 0) or wire 1 (magnitude)
//! u8..u64, u128 (if fits)     wire 0
//! f32 / f64                   §1.5 float rule: whole → integer, f32-exact → 40, else 41
//! char, str                   string (wire 4)
//! bytes (serialize_bytes)     bytes (wire 5)
//! unit, None, unit struct     null 62
//! Some(x), newtype struct     x
//! unit variant                "Name"
//! newtype variant             {"Name": x}
//! tuple variant               {"Name": [..]}
//! struct variant              {"Name": {..}}
//! seq, tuple, tuple struct    array (count first: a seq without a length → UnknownLength)
//! map, struct                 map (pair count first; map keys must serialize as strings,
//!                             integer and bool keys are written as their decimal text)
//! ```
//!
//! Reading: floats accept integer items (PSON writes whole floats as integers), strings and
//! byte strings are borrowed from the input, containers are checked for their kind, nesting is
//! limited to [`MAX_DEPTH`], no input makes it panic, and every decode error carries the byte
//! offset of the item at fault. [`from_slice`] wants exactly one item: trailing bytes are an
//! error.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Reading { neg: i32 }
//! let bytes = pson::serde::to_vec(&Reading { neg: -2 }).unwrap();
//! assert_eq!(bytes, [0xc1, 0x83, b'n', b'e', b'g', 0x22]);
//! let back: Reading = pson::serde::from_slice(&bytes).unwrap();
//! assert_eq!(back, Reading { neg: -2 });
//! ```

mod de;
mod error;
mod ser;

pub use de::{from_slice, Deserializer};
pub use error::{Error, ErrorCode, Message};
pub use ser::{to_vec, to_writer, Compound, Serializer};

/// Maximum container nesting accepted by the [`Deserializer`] (a root container has depth 1;
/// 128 nested arrays decode, 129 fail). The same default as the rest of this crate.
pub const MAX_DEPTH: usize = 128;
