//! The bytes our harness puts on the wire, and the payloads it sends.
//!
//! Every message the wirebench harness publishes is the codec payload **prefixed** with an
//! 8-byte header of our own:
//!
//! | bytes | field | encoding |
//! |---|---|---|
//! | 0..8 | sequence number, 0-based, per run | u64, big-endian |
//! | 8.. | the codec payload, unchanged | as given |
//!
//! So a 50-byte codec payload is a 58-byte MQTT payload. Rates in MB/s count only the codec
//! payload bytes; the bare-rumqttc baselines send messages of the same total size (the codec
//! payload behind 8 zero bytes) so both sides put the same bytes on the wire.

use crate::error::MqttError;

/// Length of our sequence header.
pub const HEADER_LEN: usize = 8;

/// Prefix `payload` with the sequence header.
pub fn frame(seq: u64, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER_LEN + payload.len());
    v.extend_from_slice(&seq.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

/// The sequence number of a framed message, `None` if it is shorter than the header.
pub fn parse_seq(msg: &[u8]) -> Option<u64> {
    let h: [u8; HEADER_LEN] = msg.get(..HEADER_LEN)?.try_into().ok()?;
    Some(u64::from_be_bytes(h))
}

/// The codec payloads of a run: message `seq` carries payload `seq % len()`. One payload
/// (every message the same) or a list (e.g. the encoded records of a corpus), cycled.
#[derive(Clone, Debug)]
pub struct Payloads {
    items: Vec<Vec<u8>>,
}

impl Payloads {
    /// Every message carries this payload.
    pub fn fixed(payload: impl Into<Vec<u8>>) -> Payloads {
        Payloads { items: vec![payload.into()] }
    }

    /// Cycle through these payloads (at least one).
    pub fn cycle(items: Vec<Vec<u8>>) -> Result<Payloads, MqttError> {
        if items.is_empty() {
            return Err(MqttError::Config("no payloads to send".into()));
        }
        Ok(Payloads { items })
    }

    /// `n` bytes of a repeating pattern (for synthetic runs, e.g. the 50-byte anchor).
    pub fn synthetic(n: usize) -> Payloads {
        Payloads::fixed((0..n).map(|i| (i % 251) as u8).collect::<Vec<u8>>())
    }

    pub fn get(&self, seq: u64) -> &[u8] {
        &self.items[(seq % self.items.len() as u64) as usize]
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn max_len(&self) -> usize {
        self.items.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// Total codec bytes of messages `0..count`.
    pub fn total_bytes(&self, count: u64) -> u64 {
        let k = self.items.len() as u64;
        let full = count / k;
        let sum_all: u64 = self.items.iter().map(|p| p.len() as u64).sum();
        let rest: u64 = self.items[..(count % k) as usize].iter().map(|p| p.len() as u64).sum();
        full * sum_all + rest
    }

    /// Summary for results.
    pub fn info(&self) -> PayloadInfo {
        let lens: Vec<usize> = self.items.iter().map(Vec::len).collect();
        PayloadInfo {
            distinct: lens.len(),
            min_bytes: lens.iter().copied().min().unwrap_or(0),
            max_bytes: lens.iter().copied().max().unwrap_or(0),
            mean_bytes: lens.iter().sum::<usize>() as f64 / lens.len().max(1) as f64,
            header_bytes: HEADER_LEN,
        }
    }
}

/// The payloads of a run, as results report them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PayloadInfo {
    /// How many distinct payloads were cycled through.
    pub distinct: usize,
    /// Codec payload sizes (without our header).
    pub min_bytes: usize,
    pub max_bytes: usize,
    pub mean_bytes: f64,
    /// Our sequence header in front of each payload ([`HEADER_LEN`]).
    pub header_bytes: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip() {
        let m = frame(0x0102_0304_0506_0708, b"ab");
        assert_eq!(m, [1, 2, 3, 4, 5, 6, 7, 8, b'a', b'b']);
        assert_eq!(parse_seq(&m), Some(0x0102_0304_0506_0708));
        assert_eq!(parse_seq(&m[..7]), None);
    }

    #[test]
    fn payload_cycling_and_totals() {
        let p = Payloads::cycle(vec![vec![0; 3], vec![0; 5]]).unwrap();
        assert_eq!(p.get(3).len(), 5);
        assert_eq!(p.total_bytes(3), 3 + 5 + 3);
        assert_eq!(p.info().mean_bytes, 4.0);
        assert!(Payloads::cycle(vec![]).is_err());
        assert_eq!(Payloads::synthetic(50).max_len(), 50);
    }
}
