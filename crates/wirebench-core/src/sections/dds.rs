//! The `dds` results section (seed 004: DDS latency and throughput, CDR vs JSON marshalling).

/// Untyped until its types are written.
pub type DdsSection = serde_json::Value;
