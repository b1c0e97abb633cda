//! Seed 000: Fábio Braz, master's thesis (UEA), "Benchmark Report: JSON vs UADP Binary
//! Encoding — OPC UA PubSub Lite, ESP32/MicroPython", February 2026: its published figures.

/// How the figures are cited.
pub const CITATION: &str = "F. Braz, master's thesis (UEA), Benchmark Report: JSON vs UADP Binary Encoding, OPC UA PubSub Lite on ESP32/MicroPython, Feb. 2026";
/// Results §1 "Message Size" table: (fields, JSON bytes, UADP bytes).
pub const SIZES: [(usize, u64, u64); 4] = [(1, 209, 38), (3, 341, 48), (5, 473, 58), (10, 803, 83)];
pub const SIZES_SOURCE: &str = "Results §1 Message Size (table)";
/// Results §2 "Throughput (50 messages, 3 fields each)": msgs/s, bytes/message, delivery.
pub const THROUGHPUT_MESSAGES: u64 = 50;
pub const THROUGHPUT_FIELDS: usize = 3;
pub const THROUGHPUT_JSON_MSGS_PER_S: f64 = 126.9;
pub const THROUGHPUT_UADP_MSGS_PER_S: f64 = 299.4;
pub const THROUGHPUT_JSON_BYTES: u64 = 370;
pub const THROUGHPUT_UADP_BYTES: u64 = 54;
pub const THROUGHPUT_DELIVERY: f64 = 1.0;
pub const THROUGHPUT_SOURCE: &str = "Results §2 Throughput (50 messages, 3 fields each)";
/// Results §3 "Latency RTT (30 samples, via echo server)", ms: (average, minimum, maximum).
pub const RTT_SAMPLES: u64 = 30;
pub const RTT_JSON_MS: (f64, f64, f64) = (120.79, 70.15, 220.30);
pub const RTT_UADP_MS: (f64, f64, f64) = (125.49, 66.60, 383.86);
pub const RTT_SOURCE: &str = "Results §3 Latency RTT (30 samples, via echo server; ESP32 over Wi-Fi)";
/// Results §4 "Memory Footprint (5 fields)": RAM allocation and wire size, bytes.
pub const MEMORY_JSON: (u64, u64) = (1424, 472);
pub const MEMORY_UADP: (u64, u64) = (336, 58);
pub const MEMORY_SOURCE: &str =
    "Results §4 Memory Footprint (5 fields; MicroPython heap, UADP figure marked as affected by gc.collect())";
/// Results §5 "Resource Usage": library sizes as printed (approximate, flash), bytes.
pub const LIBRARY_FLASH_JSON_BYTES: u64 = 6 * 1024;
pub const LIBRARY_FLASH_UADP_BYTES: u64 = 15 * 1024;
pub const LIBRARY_FLASH_SOURCE: &str = "Results §5 Resource Usage (\"~6 KB flash\" JSON, \"~15 KB flash\" UADP)";
