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
//! Buffer policy: encoding appends into a reused buffer. Decoding either builds a fresh value
//! ([`Codec::decode`]: the marshalling bench, latency) or fills a reused one
//! ([`Codec::decode_into`]: the throughput reader, whose loan Cyclone reuses the same way, like
//! ddsperf's): every byte is still read and copied into the typed value, but the key string and
//! the octet vector keep their capacity, so a steady stream unmarshals without allocating.

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

    /// Set the key to the instance number in decimal, in place (no allocation once the string
    /// has room; digits by hand, not through `fmt`, as this runs once per sample written).
    pub fn set_key(&mut self, instance: u32) {
        let mut digits = [0u8; 10];
        let (mut i, mut v) = (digits.len(), instance);
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.key_field.clear();
        // ASCII digits only.
        self.key_field.extend(digits[i..].iter().map(|&d| d as char));
    }
}

pub use wirebench_core::sections::dds::Marshal;

/// The bytes CDR adds to a payload whose key is at most `max_key`: the encapsulation header, the
/// key string with its length, its NUL and the padding to the sequence's length, and that length
/// (16 for keys below 1000). Measured by marshalling an empty payload, so it is the bytes of
/// [`Codec::encode`] by construction.
pub fn cdr_overhead(max_key: u32) -> usize {
    let mut s = KeyedOctets { key_field: String::new(), value_field: Vec::new() };
    s.set_key(max_key);
    let mut out = Vec::new();
    match Marshal::Cdr.encode(&s, &mut out) {
        Ok(()) => out.len(),
        // Not reached: an empty payload always marshals. The overhead of a short key.
        Err(_) => 16,
    }
}

/// Marshalling and unmarshalling of the sample with a [`Marshal`] (the enum itself is results
/// data, in `wirebench-core`).
pub trait Codec {
    /// Marshal `s` into `out` (cleared first).
    fn encode(self, s: &KeyedOctets, out: &mut Vec<u8>) -> Result<(), DdsError>;
    /// Unmarshal a fresh sample from the baggage.
    fn decode(self, bytes: &[u8]) -> Result<KeyedOctets, DdsError>;
    /// Unmarshal the baggage into `out`, reusing its buffers (the same value as
    /// [`Codec::decode`]; `out` is unspecified after an error).
    fn decode_into(self, bytes: &[u8], out: &mut KeyedOctets) -> Result<(), DdsError>;
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

    fn decode_into(self, bytes: &[u8], out: &mut KeyedOctets) -> Result<(), DdsError> {
        match self {
            Marshal::Cdr => {
                let err = |e: cdr::Error| DdsError::Marshal(format!("cdr: {e}"));
                let mut r = cdr::Reader::new(bytes).map_err(err)?;
                let key = r.string().map_err(err)?;
                let value = r.octets().map_err(err)?;
                r.finish().map_err(err)?;
                out.key_field.clear();
                out.key_field.push_str(key);
                out.value_field.clear();
                out.value_field.extend_from_slice(value);
                Ok(())
            }
            Marshal::Json => {
                let mut de = serde_json::Deserializer::from_slice(bytes);
                serde::de::DeserializeSeed::deserialize(json_in_place::Sample(out), &mut de)
                    .and_then(|()| de.end())
                    .map_err(|e| DdsError::Marshal(format!("json: {e}")))
            }
            Marshal::Raw => {
                out.key_field.clear();
                out.value_field.clear();
                out.value_field.extend_from_slice(bytes);
                Ok(())
            }
        }
    }
}

/// JSON into an existing [`KeyedOctets`]: what `#[derive(Deserialize)]` accepts (both fields
/// required, each once, in any order; other fields ignored), written into the value's own
/// string and vector instead of new ones.
mod json_in_place {
    use std::fmt;

    use serde::de::{DeserializeSeed, Deserializer, Error, IgnoredAny, MapAccess, SeqAccess, Visitor};

    use super::KeyedOctets;

    pub struct Sample<'a>(pub &'a mut KeyedOctets);

    impl<'de> DeserializeSeed<'de> for Sample<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_struct("KeyedOctets", &["KeyField", "ValueField"], self)
        }
    }

    impl<'de> Visitor<'de> for Sample<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("struct KeyedOctets")
        }
        /// `["key", [octets]]`: serde's derived structs read a sequence of the fields too.
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
            if s.next_element_seed(Key(&mut self.0.key_field))?.is_none() {
                return Err(Error::invalid_length(0, &"struct KeyedOctets with 2 elements"));
            }
            if s.next_element_seed(Octets(&mut self.0.value_field))?.is_none() {
                return Err(Error::invalid_length(1, &"struct KeyedOctets with 2 elements"));
            }
            if s.next_element::<IgnoredAny>()?.is_some() {
                return Err(Error::invalid_length(3, &"struct KeyedOctets with 2 elements"));
            }
            Ok(())
        }

        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
            let (mut key, mut value) = (false, false);
            while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
                match k.as_ref() {
                    "KeyField" if key => return Err(Error::duplicate_field("KeyField")),
                    "KeyField" => {
                        m.next_value_seed(Key(&mut self.0.key_field))?;
                        key = true;
                    }
                    "ValueField" if value => return Err(Error::duplicate_field("ValueField")),
                    "ValueField" => {
                        m.next_value_seed(Octets(&mut self.0.value_field))?;
                        value = true;
                    }
                    _ => {
                        m.next_value::<IgnoredAny>()?;
                    }
                }
            }
            match (key, value) {
                (false, _) => Err(Error::missing_field("KeyField")),
                (_, false) => Err(Error::missing_field("ValueField")),
                _ => Ok(()),
            }
        }
    }

    struct Key<'a>(&'a mut String);

    impl<'de> DeserializeSeed<'de> for Key<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_str(self)
        }
    }

    impl<'de> Visitor<'de> for Key<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: Error>(self, v: &str) -> Result<(), E> {
            self.0.clear();
            self.0.push_str(v);
            Ok(())
        }
    }

    struct Octets<'a>(&'a mut Vec<u8>);

    impl<'de> DeserializeSeed<'de> for Octets<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_seq(self)
        }
    }

    impl<'de> Visitor<'de> for Octets<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a sequence of octets")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
            self.0.clear();
            while let Some(b) = s.next_element::<u8>()? {
                self.0.push(b);
            }
            Ok(())
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

    /// In place and fresh agree on every marshalling, for good and bad input, and the reused
    /// value keeps its buffers.
    #[test]
    fn decode_into_equals_decode() {
        for m in [Marshal::Cdr, Marshal::Json, Marshal::Raw] {
            let mut out = KeyedOctets::new(4096, 9);
            out.set_key(123_456);
            for (key, n) in [(0u32, 0usize), (7, 5), (42, 2048)] {
                let mut s = KeyedOctets::new(n, u64::from(key));
                s.set_key(key);
                let mut b = Vec::new();
                m.encode(&s, &mut b).unwrap();
                let (cap_key, cap_value) = (out.key_field.capacity(), out.value_field.capacity());
                m.decode_into(&b, &mut out).unwrap();
                assert_eq!(out, m.decode(&b).unwrap(), "{} key {key}, {n} octets", m.name());
                assert_eq!(
                    (out.key_field.capacity(), out.value_field.capacity()),
                    (cap_key, cap_value),
                    "{}",
                    m.name()
                );
            }
        }
        let mut out = KeyedOctets::new(8, 1);
        let bad: [&[u8]; 4] = [&[0x00, 0x01, 0, 0, 0xff, 0xff, 0xff, 0x7f], &[], b"{\"KeyField\":", b"[1,2]"];
        for m in [Marshal::Cdr, Marshal::Json] {
            for b in bad {
                assert!(m.decode(b).is_err(), "{} {b:?}", m.name());
                assert!(m.decode_into(b, &mut out).is_err(), "{} {b:?}", m.name());
            }
        }
    }

    /// The JSON accepted in place is what the derived decoder accepts: fields in any order,
    /// unknown fields skipped, missing, duplicated or out-of-range ones refused.
    #[test]
    fn json_in_place_follows_the_derived_decoder() {
        let cases: [&[u8]; 12] = [
            br#"["x",[1,2]]"#,
            br#"["x"]"#,
            br#"["x",[1],3]"#,
            br#"[]"#,
            br#"{"ValueField":[1,2],"KeyField":"x"}"#,
            br#"{"KeyField":"x","Other":{"a":[1]},"ValueField":[]}"#,
            br#"{"KeyField":"x"}"#,
            br#"{"ValueField":[1]}"#,
            br#"{"KeyField":"x","KeyField":"y","ValueField":[]}"#,
            br#"{"KeyField":"x","ValueField":[256]}"#,
            br#"{"KeyField":"a"b","ValueField":[0]} "#,
            br#"{"KeyField":"x","ValueField":[1]} x"#,
        ];
        let mut out = KeyedOctets::new(3, 3);
        for c in cases {
            let fresh = Marshal::Json.decode(c);
            let placed = Marshal::Json.decode_into(c, &mut out);
            assert_eq!(placed.is_ok(), fresh.is_ok(), "{}", String::from_utf8_lossy(c));
            if let Ok(v) = fresh {
                assert_eq!(out, v);
            }
        }
    }

    #[test]
    fn set_key_reuses_the_string() {
        let mut s = KeyedOctets::new(1, 1);
        s.set_key(1000);
        let cap = s.key_field.capacity();
        s.set_key(7);
        assert_eq!(s.key_field, "7");
        assert_eq!(s.key_field.capacity(), cap);
        for k in [0u32, 9, 10, 99, 100, 65_536, 999_999_999, 1_000_000_000, u32::MAX] {
            s.set_key(k);
            assert_eq!(s.key_field, k.to_string());
        }
    }

    #[test]
    fn cdr_overhead_is_what_a_sample_adds_to_its_payload() {
        // 4 (encapsulation) + 4 (key length) + key, NUL, padding to 4 + 4 (sequence length).
        assert_eq!(cdr_overhead(0), 16);
        assert_eq!(cdr_overhead(999), 16);
        assert_eq!(cdr_overhead(1000), 20);
        for (payload, key) in [(2048usize, 0u32), (5, 99), (65536, 999), (100, 12345)] {
            let mut s = KeyedOctets::new(payload, 3);
            s.set_key(key);
            let mut out = Vec::new();
            Marshal::Cdr.encode(&s, &mut out).unwrap();
            assert_eq!(out.len(), payload + cdr_overhead(key), "payload {payload} key {key}");
        }
    }
}
