//! The `link` results section (bytes on air, airtime and messages per day per radio), written
//! by the `link` part of `wirebench-net` from its analytic models.
//!
//! Fields are in alphabetical order, the order results files have always had (the sections were
//! JSON maps with sorted keys): a results file written before the types existed serializes back
//! byte for byte.

use serde::{Deserialize, Serialize};

/// The analytic link models of one run: a row per format (or raw payload size) × radio ×
/// protocol.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct LinkSection {
    /// Formats that could not encode the messages, with the reason.
    pub failed: Vec<FailedFormat>,
    /// Whether IP bytes count IPv6 headers (else IPv4).
    pub ipv6: bool,
    /// Every radio profile the models know.
    pub known_radios: Vec<String>,
    /// The protocol labels modelled (e.g. `raw`, `mqtt-3.1.1-qos1`), in order.
    pub protocols: Vec<String>,
    /// The radio profiles modelled, in order.
    pub radios: Vec<String>,
    pub rows: Vec<LinkRow>,
    /// Where the message sizes came from: a corpus or samples name, or "raw sizes".
    pub source: String,
    /// The reference the LoRa rows of a raw payload are compared with.
    pub spec_source: String,
}

/// One radio × protocol × format: means over the messages of the source.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct LinkRow {
    pub airtime_ms: f64,
    /// Payload plus the protocol's bytes around it (mean).
    pub app_bytes: f64,
    pub bytes_on_air: f64,
    /// Whether every message fits the link's largest payload (else it is fragmented).
    pub fits: bool,
    /// The format id, or `"<n> B"` for a raw payload size.
    pub format: String,
    /// Frames on air per message (mean; more than one when fragmented).
    pub frames: f64,
    /// Bytes at the IP layer per message (mean), with `transport`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_bytes: Option<f64>,
    /// The largest application payload of one frame, where the radio has a limit.
    pub max_payload: Option<usize>,
    /// Messages the means are over.
    pub messages: usize,
    /// Messages a day the link's rule allows (duty cycle, quota or capacity).
    pub msgs_per_day: f64,
    /// Under a fair-use policy where the radio has one (TTN's 30 s a day for LoRaWAN).
    pub msgs_per_day_fair_use: Option<f64>,
    /// The model's description (radio parameters, the rule per day).
    pub note: String,
    /// Encoded payload bytes (mean).
    pub payload_bytes: f64,
    pub protocol: String,
    /// `app_bytes - payload_bytes`.
    pub protocol_overhead_bytes: f64,
    pub radio: String,
    /// LoRa rows of a raw payload the spec's table lists: the table's airtime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_airtime_ms: Option<f64>,
    /// Our airtime against the table's, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_deviation_pct: Option<f64>,
    /// The table's messages a day at 1 % duty cycle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_msgs_per_day: Option<f64>,
    /// The table's messages a day under TTN's fair use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_msgs_per_day_ttn: Option<f64>,
    /// IP transport of the protocol (`tcpipv4`, `udpipv6`, ...): absent for raw payloads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
}

/// A format the part could not measure, and why (also in the `http` section).
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, Default, PartialEq)]
pub struct FailedFormat {
    pub error: String,
    pub format: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_without_ip_or_spec_figures_leave_them_out() {
        let row = json!({"airtime_ms": 61.696, "app_bytes": 12.0, "bytes_on_air": 25.0, "fits": true, "format": "12 B",
                         "frames": 1.0, "max_payload": 222, "messages": 1, "msgs_per_day": 14004.0,
                         "msgs_per_day_fair_use": null, "note": "LoRaWAN", "payload_bytes": 12.0, "protocol": "raw",
                         "protocol_overhead_bytes": 0.0, "radio": "lora-sf7", "spec_airtime_ms": 61.7});
        let r: LinkRow = serde_json::from_value(row.clone()).unwrap();
        assert_eq!((r.transport.as_deref(), r.ip_bytes, r.spec_airtime_ms), (None, None, Some(61.7)));
        assert_eq!(serde_json::to_value(&r).unwrap(), row);
        assert_eq!(serde_json::to_string(&r).unwrap(), row.to_string());
    }
}
