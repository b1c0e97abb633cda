//! The comparison of two speed results files (`wirebench compare OLD NEW`).

use serde::{Deserialize, Serialize};

/// The change of one case present in both files.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaseChange {
    pub payload: String,
    pub codec: String,
    pub op: String,
    /// The speed path (`typed`, `dynamic`, …): a payload, codec and op can be timed on several.
    #[serde(default)]
    pub path: String,
    pub old_ns: f64,
    pub new_ns: f64,
    /// new ÷ old − 1 of the medians.
    pub change: f64,
    /// Bootstrap 95 % CI of the change.
    pub ci: (f64, f64),
    /// `faster`, `slower`, `no change`, `unclear`, or `not comparable` (the samples of either
    /// run were short: iterations × median below half the target).
    pub verdict: String,
    /// new ÷ old − 1 of the instruction counts, when both files have them.
    pub instructions_change: Option<f64>,
}

/// How far the two runs agree as a whole.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Agreement {
    /// The median both runs must reach for a case to count (shorter ones sit near the clock's
    /// resolution).
    pub min_ns: f64,
    /// Cases at or above `min_ns` in both runs.
    pub timed: usize,
    /// Of those, cases whose median changed by at most the threshold.
    pub within: usize,
    /// The median change over the timed cases.
    pub median_change: Option<f64>,
    /// The change of the host reference between the runs, when both have one.
    pub host_change: Option<f64>,
    /// Cases with instruction counts in both runs, and how many are identical.
    pub counted: usize,
    pub identical: usize,
    /// The cases whose instruction counts differ (`payload/codec/op old -> new`).
    pub differing: Vec<String>,
}

/// Every common case's change, the verdict counts and the agreement.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Comparison {
    /// Noise threshold, percent.
    pub threshold_pct: f64,
    pub cases: Vec<CaseChange>,
    pub faster: usize,
    pub slower: usize,
    pub no_change: usize,
    pub unclear: usize,
    /// Cases not judged because either run marked them short.
    #[serde(default)]
    pub not_comparable: usize,
    pub agreement: Agreement,
}
