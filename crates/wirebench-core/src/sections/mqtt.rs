//! The `mqtt` results section (seed 000: OPC UA PubSub over MQTT).

/// Untyped until its types are written.
pub type MqttSection = serde_json::Value;
