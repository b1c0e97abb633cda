//! The `http` and `tcp` results sections (seeds 002 and 003).

/// Untyped until its types are written.
pub type HttpSection = serde_json::Value;
/// Untyped until its types are written.
pub type TcpSection = serde_json::Value;
