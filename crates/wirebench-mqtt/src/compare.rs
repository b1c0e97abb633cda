//! Ours against the bare rumqttc pair, interleaved in one process run (A B B A A B …, so slow
//! drift of a shared machine hits both sides alike), with medians over repetitions.
//!
//! Goals (DESIGN.md, the MQTT brief): our subscriber-side msgs/s ≥ 80 % of the bare pair's for
//! 50-byte payloads at QoS 0 and 1; our echo p50 within 1.5× of the bare pair's.

use serde::{Deserialize, Serialize};

use crate::echo::{baseline_echo_rtt, echo_rtt, EchoConfig, EchoResult};
use crate::endpoint::MqttBroker;
use crate::error::MqttError;
use crate::framing::Payloads;
use crate::stats::median;
use crate::throughput::{baseline_throughput, throughput, ThroughputConfig, ThroughputResult};

/// Goal: ours / bare subscriber msgs/s.
pub const THROUGHPUT_RATIO_GOAL: f64 = 0.8;
/// Goal: ours / bare echo p50.
pub const ECHO_P50_RATIO_GOAL: f64 = 1.5;

/// Throughput, ours vs bare, `reps` pairs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThroughputComparison {
    pub ours: Vec<ThroughputResult>,
    pub bare: Vec<ThroughputResult>,
    /// Medians of subscriber-side msgs/s.
    pub ours_msgs_per_s: f64,
    pub bare_msgs_per_s: f64,
    /// Median of the per-pair ratios ours / bare (subscriber side), and their range.
    pub ratio: f64,
    pub ratio_min: f64,
    pub ratio_max: f64,
    /// Lowest delivery ratio seen on each side.
    pub ours_delivery_min: f64,
    pub bare_delivery_min: f64,
    /// `ratio ≥ THROUGHPUT_RATIO_GOAL`.
    pub meets_goal: bool,
}

/// Echo p50, ours vs bare, `reps` pairs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EchoComparison {
    pub ours: Vec<EchoResult>,
    pub bare: Vec<EchoResult>,
    /// Medians of the runs' p50, µs.
    pub ours_p50_us: f64,
    pub bare_p50_us: f64,
    /// Median of the per-pair ratios ours / bare p50.
    pub ratio: f64,
    /// `ratio ≤ ECHO_P50_RATIO_GOAL`.
    pub meets_goal: bool,
}

/// Run `ours` and `bare` `reps` times each (at least once), interleaved A B B A …, so a drift
/// of the machine touches both alike.
fn interleave<T>(
    reps: usize,
    mut ours: impl FnMut() -> Result<T, MqttError>,
    mut bare: impl FnMut() -> Result<T, MqttError>,
) -> Result<(Vec<T>, Vec<T>), MqttError> {
    let (mut o, mut b) = (Vec::new(), Vec::new());
    for i in 0..reps.max(1) {
        if i % 2 == 0 {
            o.push(ours()?);
            b.push(bare()?);
        } else {
            b.push(bare()?);
            o.push(ours()?);
        }
    }
    Ok((o, b))
}

/// Ours ÷ bare per repetition (NaN where bare is 0).
fn ratios(ours: &[f64], bare: &[f64]) -> Vec<f64> {
    ours.iter().zip(bare).map(|(o, b)| if *b > 0.0 { o / b } else { f64::NAN }).collect()
}

/// Run ours and the bare pair `reps` times each, interleaved.
pub fn compare_throughput(
    broker: &impl MqttBroker,
    payloads: &Payloads,
    cfg: &ThroughputConfig,
    reps: usize,
) -> Result<ThroughputComparison, MqttError> {
    let (ours, bare) =
        interleave(reps, || throughput(broker, payloads, cfg), || baseline_throughput(broker, payloads, cfg))?;
    let o: Vec<f64> = ours.iter().map(|r| r.subscriber.msgs_per_s).collect();
    let b: Vec<f64> = bare.iter().map(|r| r.subscriber.msgs_per_s).collect();
    let ratios = ratios(&o, &b);
    let ratio = median(&ratios);
    Ok(ThroughputComparison {
        ours_msgs_per_s: median(&o),
        bare_msgs_per_s: median(&b),
        ratio,
        ratio_min: ratios.iter().copied().fold(f64::INFINITY, f64::min),
        ratio_max: ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        ours_delivery_min: ours.iter().map(|r| r.delivery.delivery_ratio).fold(1.0, f64::min),
        bare_delivery_min: bare.iter().map(|r| r.delivery.delivery_ratio).fold(1.0, f64::min),
        meets_goal: ratio >= THROUGHPUT_RATIO_GOAL,
        ours,
        bare,
    })
}

/// Run ours and the bare pair `reps` times each, interleaved (closed loop for both).
pub fn compare_echo_rtt(
    broker: &impl MqttBroker,
    payload: &[u8],
    cfg: &EchoConfig,
    reps: usize,
) -> Result<EchoComparison, MqttError> {
    let (ours, bare) = interleave(reps, || echo_rtt(broker, payload, cfg), || baseline_echo_rtt(broker, payload, cfg))?;
    let o: Vec<f64> = ours.iter().map(|r| r.rtt.p50_us).collect();
    let b: Vec<f64> = bare.iter().map(|r| r.rtt.p50_us).collect();
    let ratios = ratios(&o, &b);
    let ratio = median(&ratios);
    Ok(EchoComparison {
        ours_p50_us: median(&o),
        bare_p50_us: median(&b),
        ratio,
        meets_goal: ratio <= ECHO_P50_RATIO_GOAL,
        ours,
        bare,
    })
}
