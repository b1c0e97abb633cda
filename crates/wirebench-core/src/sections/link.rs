//! The `link` results section (bytes on air, airtime and messages per day per radio).

/// Untyped until its types are written.
pub type LinkSection = serde_json::Value;
