//! A recommendation: formats ranked for the user's constraints, with the reasons, and the
//! formats excluded with why (`wirebench recommend`).

use serde::{Deserialize, Serialize};

/// One format that meets every constraint, in rank order.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Ranked {
    pub rank: usize,
    pub codec: String,
    pub mean_bytes: f64,
    pub max_bytes: u64,
    /// Time on air of the largest message on the given link, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub airtime_ms: Option<f64>,
    /// Link frames the largest message needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<usize>,
    /// Messages per day the link allows (duty cycle, capacity or quota).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msgs_per_day: Option<f64>,
    /// `required`, `optional` or `none`.
    pub schema: String,
    /// The smallest device class known to run the format, and what runs there.
    pub mcu: String,
    /// `exact` or `lossy in N/M`.
    pub fidelity: String,
    pub reasons: Vec<String>,
}

/// A format that breaks a constraint.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Excluded {
    pub codec: String,
    pub why: String,
}

/// The formats ranked for the constraints.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Recommendation {
    /// The constraints as given (corpus or samples, link, budget, MCU class, schemaless, exact).
    pub constraints: serde_json::Value,
    pub ranked: Vec<Ranked>,
    pub excluded: Vec<Excluded>,
    pub notes: Vec<String>,
}
