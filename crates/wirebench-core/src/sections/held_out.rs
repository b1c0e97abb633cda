//! Held-out sizes (`size --dict-train`, `--dict-split`, `--dict`, `--delta-key`): per format the
//! per-message size of messages the dictionary was not trained on, raw, compressed alone, with a
//! trained dictionary, and as a delta against the previous message of the same device. Data
//! only; `wirebench_measure::dict` fills it.

use serde::{Deserialize, Serialize};

/// Per-message sizes of one variant over the held-out messages, bytes. Percentiles are nearest
/// rank (the median of 4 messages is the 2nd smallest).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SizeDist {
    /// Messages the figures cover.
    pub messages: u64,
    pub median: u64,
    pub p99: u64,
    pub max: u64,
    pub mean: f64,
}

impl SizeDist {
    /// The distribution of these sizes (`None` for no sizes).
    pub fn of(sizes: &[u64]) -> Option<SizeDist> {
        if sizes.is_empty() {
            return None;
        }
        let mut s = sizes.to_vec();
        s.sort_unstable();
        let rank = |p: f64| s[((p * s.len() as f64).ceil() as usize).clamp(1, s.len()) - 1];
        Some(SizeDist {
            messages: s.len() as u64,
            median: rank(0.5),
            p99: rank(0.99),
            max: *s.last().expect("not empty"),
            mean: s.iter().sum::<u64>() as f64 / s.len() as f64,
        })
    }
}

/// The held-out measurement: how the messages were split, the dictionaries, and one row per
/// format.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HeldOutSection {
    /// How the training messages were chosen: `files` (`--dict-train`), `devices` (`--dict-split`
    /// by `key`: whole devices, never messages of one device on both sides), `given` (`--dict`:
    /// no training) or `none` (deltas only: every message is held out).
    pub split: String,
    /// The field naming the device (`--dict-key`), for a split by device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The share of devices trained on (`--dict-split`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fraction: Option<f64>,
    /// Training messages and, for a split by device, training devices.
    pub train_messages: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_devices: Option<u64>,
    /// Held-out messages (the ones measured) and, for a split by device, held-out devices.
    pub held_out_messages: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_out_devices: Option<u64>,
    /// The largest dictionary asked for (`--dict-size`), bytes; absent with `--dict`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dict_size: Option<u64>,
    /// The dictionary file used for every format (`--dict`) instead of training one per format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dict_file: Option<String>,
    /// The field naming the device for deltas (`--delta-key`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_key: Option<String>,
    /// zstd level (every zstd figure) and deflate level (every deflate figure).
    pub zstd_level: i32,
    pub deflate_level: u32,
    /// One row per format, in the run's format order.
    pub formats: Vec<HeldOutFormat>,
    /// What the reader must know (messages a format could not encode, a dictionary that could
    /// not be trained …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One format's held-out sizes. Every message is compressed on its own: a zstd frame with its
/// header and content size but no checksum, raw deflate (RFC 1951) with no zlib header.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HeldOutFormat {
    /// The codec id.
    pub codec: String,
    /// The encoding as is.
    pub raw: Option<SizeDist>,
    /// zstd without a dictionary.
    pub zstd: Option<SizeDist>,
    /// zstd with the dictionary, the frame without its dictionary ID (`zstd --no-dictID`): sender
    /// and receiver agreed on the dictionary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zstd_dict: Option<SizeDist>,
    /// zstd with the dictionary, the frame naming it by ID (the `zstd -D` default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zstd_dict_id: Option<SizeDist>,
    /// Raw deflate without a dictionary.
    pub deflate: Option<SizeDist>,
    /// Raw deflate with a preset dictionary (zlib's `deflateSetDictionary`): the zstd
    /// dictionary's content, without its header and entropy tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deflate_dict: Option<SizeDist>,
    /// The zstd dictionary's size, bytes (header, entropy tables and content).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zstd_dict_bytes: Option<u64>,
    /// The zstd dictionary's ID (0: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dict_id: Option<u32>,
    /// The deflate dictionary's size, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deflate_dict_bytes: Option<u64>,
    /// Messages after which sending the zstd dictionary once has paid for itself: its size over
    /// the mean saving per message against the better of raw and plain zstd, rounded up; absent
    /// when it saves nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zstd_dict_amortised_after: Option<u64>,
    /// The same for deflate's dictionary, against the better of raw and plain deflate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deflate_dict_amortised_after: Option<u64>,
    /// Field-wise delta against the previous message of the same device, encoded in this format
    /// (unchanged fields dropped, numbers as differences); the first message of each device, and
    /// any message the delta cannot carry, sent whole and counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<SizeDist>,
    /// The field-wise delta compressed with zstd (no dictionary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_zstd: Option<SizeDist>,
    /// The encoding XORed byte by byte with the previous encoding of the same device (the longer
    /// one's tail kept as is), compressed with zstd; the first message of each device is its
    /// encoding compressed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xor_zstd: Option<SizeDist>,
    /// Messages sent whole in the delta figures (first of a device, or a delta that could not be
    /// expressed: a removed field, a number whose difference does not give it back exactly).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_whole: Option<u64>,
    /// Held-out messages the format could not encode (left out of every figure above).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed: u64,
    /// The first problem seen, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let d = SizeDist::of(&[5, 1, 4, 2]).unwrap();
        assert_eq!((d.messages, d.median, d.p99, d.max), (4, 2, 5, 5));
        assert_eq!(d.mean, 3.0);
        let d = SizeDist::of(&(1..=200).collect::<Vec<_>>()).unwrap();
        assert_eq!((d.median, d.p99, d.max), (100, 198, 200));
        assert!(SizeDist::of(&[]).is_none());
    }
}
