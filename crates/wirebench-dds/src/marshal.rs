//! The sample that travels, and how it is marshalled into the KeyedSeq baggage.
//!
//! The sample follows OpenDDSharp's benchmark type `KeyedOctets` (seed 004): a key string and an
//! octet sequence of the payload size, filled with pseudo-random bytes. Both marshallings are
//! typed (as each is used in production):
//!
//! - **CDR**: XCDR1 little-endian with its 4-byte encapsulation header, written and read by our
//!   `cdr` crate's streaming [`cdr::Writer`] / [`cdr::Reader`] (the bytes equal
//!   `cdr::encode` of the IDL type below; a unit test checks it):
//!   `@final struct KeyedOctets { @key string KeyField; sequence<octet> ValueField; };`
//! - **JSON**: `serde_json` of the same struct, `{"KeyField":"17","ValueField":[12,250,...]}`:
//!   octets as an array of numbers, like OpenDDS's `encode_to_string`.
//! - **raw**: the payload bytes alone (no marshalling; for interop with ddsperf, whose baggage
//!   is opaque).
//!
//! Buffer policy: encoding appends into a reused buffer; decoding builds a fresh value.

use serde::{Deserialize, Serialize};

use crate::DdsError;

/// The IDL of the marshalled sample (for the CDR path).
pub const KEYED_OCTETS_IDL: &str = "@final struct KeyedOctets { @key string KeyField; sequence<octet> ValueField; };";

/// The benchmark sample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyedOctets {
    #[serde(rename = "KeyField")]
    pub key_field: String,
    #[serde(rename = "ValueField")]
    pub value_field: Vec<u8>,
}

impl KeyedOctets {
    /// A sample with `payload` pseudo-random octets (deterministic for a seed).
    pub fn new(payload: usize, seed: u64) -> KeyedOctets {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let value_field = (0..payload)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        KeyedOctets { key_field: "0".into(), value_field }
    }

    /// Set the key to the instance number, in place (no allocation once the string has room).
    pub fn set_key(&mut self, instance: u32) {
        use std::fmt::Write;
        self.key_field.clear();
        let _ = write!(self.key_field, "{instance}");
    }
}

pub use wirebench_core::sections::dds::Marshal;

/// Marshalling and unmarshalling of the sample with a [`Marshal`] (the enum itself is results
/// data, in `wirebench-core`).
pub trait Codec {
    /// Marshal `s` into `out` (cleared first).
    fn encode(self, s: &KeyedOctets, out: &mut Vec<u8>) -> Result<(), DdsError>;
    /// Unmarshal a fresh sample from the baggage.
    fn decode(self, bytes: &[u8]) -> Result<KeyedOctets, DdsError>;
}

impl Codec for Marshal {
    fn encode(self, s: &KeyedOctets, out: &mut Vec<u8>) -> Result<(), DdsError> {
        out.clear();
        match self {
            Marshal::Cdr => {
                let header = cdr::Header {
                    representation: cdr::Representation::Cdr,
                    endian: cdr::Endian::Little,
                    options: [0, 0],
                };
                let mut w = cdr::Writer::new(out, header);
                w.string(&s.key_field).map_err(|e| DdsError::Marshal(format!("cdr: {e}")))?;
                w.octets(&s.value_field).map_err(|e| DdsError::Marshal(format!("cdr: {e}")))?;
                w.finish(false);
                Ok(())
            }
            Marshal::Json => serde_json::to_writer(&mut *out, s).map_err(|e| DdsError::Marshal(format!("json: {e}"))),
            Marshal::Raw => {
                out.extend_from_slice(&s.value_field);
                Ok(())
            }
        }
    }

    fn decode(self, bytes: &[u8]) -> Result<KeyedOctets, DdsError> {
        match self {
            Marshal::Cdr => {
                let err = |e: cdr::Error| DdsError::Marshal(format!("cdr: {e}"));
                let mut r = cdr::Reader::new(bytes).map_err(err)?;
                let key = r.string().map_err(err)?;
                let value = r.octets().map_err(err)?;
                let s = KeyedOctets { key_field: key.to_owned(), value_field: value.to_vec() };
                r.finish().map_err(err)?;
                Ok(s)
            }
            Marshal::Json => serde_json::from_slice(bytes).map_err(|e| DdsError::Marshal(format!("json: {e}"))),
            Marshal::Raw => Ok(KeyedOctets { key_field: String::new(), value_field: bytes.to_vec() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdr_bytes_equal_the_generic_encoder() {
        let file = cdr::idl::parse(KEYED_OCTETS_IDL).unwrap();
        let ty = file.get("KeyedOctets").unwrap();
        for (key, n) in [(0u32, 0usize), (7, 5), (123, 2048)] {
            let mut s = KeyedOctets::new(n, 3);
            s.set_key(key);
            let v = cdr::Value::Struct(vec![
                cdr::Value::String(s.key_field.clone()),
                cdr::Value::Bytes(s.value_field.clone()),
            ]);
            let want = cdr::encode(ty, &v, cdr::Encoding::XCDR1_LE).unwrap();
            let mut got = Vec::new();
            Marshal::Cdr.encode(&s, &mut got).unwrap();
            assert_eq!(got, want, "key {key}, {n} octets");
            assert_eq!(Marshal::Cdr.decode(&got).unwrap(), s);
            assert_eq!(cdr::decode(ty, &got).unwrap(), v);
        }
    }

    #[test]
    fn cdr_layout_field_by_field() {
        let mut s = KeyedOctets::new(3, 1);
        s.set_key(42);
        let mut b = Vec::new();
        Marshal::Cdr.encode(&s, &mut b).unwrap();
        let mut want = vec![
            0x00, 0x01, 0x00, 0x00, // CDR_LE encapsulation header
            0x03, 0x00, 0x00, 0x00, // KeyField length 3 (with the NUL)
            b'4', b'2', 0x00, // "42" NUL
            0x00, // pad to 4
            0x03, 0x00, 0x00, 0x00, // ValueField count 3
        ];
        want.extend_from_slice(&s.value_field);
        assert_eq!(b, want);
    }

    #[test]
    fn json_round_trip_and_shape() {
        let mut s = KeyedOctets { key_field: String::new(), value_field: vec![0, 255, 7] };
        s.set_key(9);
        let mut b = Vec::new();
        Marshal::Json.encode(&s, &mut b).unwrap();
        assert_eq!(std::str::from_utf8(&b).unwrap(), r#"{"KeyField":"9","ValueField":[0,255,7]}"#);
        assert_eq!(Marshal::Json.decode(&b).unwrap(), s);
    }

    #[test]
    fn malformed_baggage_is_an_error() {
        assert!(Marshal::Cdr.decode(&[0x00, 0x01, 0, 0, 0xff, 0xff, 0xff, 0x7f]).is_err());
        assert!(Marshal::Cdr.decode(&[]).is_err());
        assert!(Marshal::Json.decode(b"{\"KeyField\":").is_err());
    }

    #[test]
    fn set_key_reuses_the_string() {
        let mut s = KeyedOctets::new(1, 1);
        s.set_key(1000);
        let cap = s.key_field.capacity();
        s.set_key(7);
        assert_eq!(s.key_field, "7");
        assert_eq!(s.key_field.capacity(), cap);
    }
}
