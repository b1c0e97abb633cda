//! OPC UA PubSub NetworkMessages (OPC 10000-14 v1.05): the **UADP** binary mapping
//! (§7.2.4) and the **JSON** mapping (§7.2.5, [`json`]), on one data model
//! ([`NetworkMessage`] → [`DataSetMessage`] → [`Field`] = [`Variant`] | [`DataValue`]).
//!
//! * `no_std` + `alloc`, no `unsafe`, no dependencies.
//! * Decoders never panic: every length and count is checked against the remaining
//!   input before use or allocation ([`Limits`]), arithmetic cannot overflow, and nesting
//!   is bounded by construction (arrays hold scalars; JSON depth is limited).
//! * Errors carry a kind with a stable snake_case name and the byte offset of the
//!   problem ([`Error`]): `"reserved PublisherId type at byte 1"`.
//! * The encoder writes into any [`Write`] sink (a `Vec<u8>` or a fixed
//!   [`SliceWriter`]); [`encoded_len`] gives the size without writing.
//! * Supported: every PublisherId type, DataSetClassId, GroupHeader, PayloadHeader with
//!   several DataSetMessages (Sizes array), NetworkMessage Timestamp/PicoSeconds,
//!   PromotedFields, DataSetMessage header options, key/delta frames and keep-alives with
//!   Variant, RawData (with [`DataSetMetaData`]) or DataValue fields; built-in types
//!   Boolean … ByteString (1-15) and StatusCode (19), scalars and one-dimensional arrays.
//! * Refused with a clear error: chunking, security, discovery messages, event/action
//!   DataSetMessages and reserved field encodings (or kept as bytes with
//!   [`DecodeOptions::skip_unknown`]), multi-dimensional arrays, the other built-in types.
//!
//! ```
//! use uadp::*;
//! // The seed thesis's layout with one Float field (spec §2: 39 + 5·N bytes).
//! let msg = NetworkMessage {
//!     publisher_id: Some(PublisherId::String("ESP32-Bench".into())),
//!     data_set_class_id: Guid::parse("eae79794-1af7-4f96-8401-4096cd1d8908"),
//!     data_set_writer_ids: Some(vec![1000]),
//!     messages: vec![DataSetMessage::variant_key_frame([Scalar::Float(25.5).into()])],
//!     ..NetworkMessage::default()
//! };
//! let bytes = to_vec(&msg)?;
//! assert_eq!(bytes.len(), 44);
//! assert_eq!(encoded_len(&msg)?, 44);
//! assert_eq!(&bytes[..2], [0xd1, 0x0c]);
//! let back = decode_exact(&bytes, &DecodeOptions::default())?;
//! assert_eq!(back, msg);
//! # Ok::<(), uadp::Error>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_debug_implementations)]

extern crate alloc;

mod decode;
mod encode;
mod error;
pub mod json;
mod model;
#[cfg(feature = "model-json")]
pub mod model_json;
pub mod time;
mod write;

pub use decode::{decode, decode_exact, decode_with, DecodeOptions, Limits};
pub use encode::{encode, encoded_len, to_vec};
pub use error::{Error, ErrorKind};
pub use model::*;
pub use write::{SliceWriter, Write};
