//! Helpers the study's modules share: the checks of formats and field counts, MQTT errors as
//! part errors (bad input or failure), and the median with its 95 % interval.

use wirebench_core::part::PartError;
use wirebench_measure::stats::median;

use crate::opcua::StudyFormat;
use crate::MqttError;

/// The study formats of a list (all of them when it is empty).
pub fn parse_formats(list: &[String]) -> Result<Vec<StudyFormat>, PartError> {
    if list.is_empty() {
        return Ok(StudyFormat::ALL.to_vec());
    }
    list.iter()
        .map(|s| {
            StudyFormat::parse(s.trim()).ok_or_else(|| {
                PartError::bad(format!("--format {s:?}: unknown format (known: {})", StudyFormat::ids()))
            })
        })
        .collect()
}

/// Field counts: at least one, each in 1..=1000.
pub fn check_fields(fields: &[usize]) -> Result<(), PartError> {
    if fields.is_empty() {
        return Err(PartError::bad("fields: give at least one field count"));
    }
    for &n in fields {
        if n == 0 || n > 1000 {
            return Err(PartError::bad(format!("fields: {n} is out of range (1..=1000)")));
        }
    }
    Ok(())
}

/// MQTT errors from the user's input (URL, options, files, topic, configuration) are bad
/// input (exit 2); what the environment did (a broker that refuses or cannot be reached, a
/// failed TLS handshake, a timeout, a socket error) is a failure (exit 1).
pub(super) fn mqtt_err(e: MqttError) -> PartError {
    match e {
        MqttError::InvalidUrl { .. } | MqttError::InvalidTopic { .. } | MqttError::Option(_) | MqttError::Config(_) => {
            PartError::bad(e.to_string())
        }
        MqttError::Connect { .. }
        | MqttError::SubscribeRefused { .. }
        | MqttError::Timeout { .. }
        | MqttError::Embedded(_)
        | MqttError::Mosquitto(_)
        | MqttError::Io { .. } => PartError::failed(e.to_string()),
    }
}

/// The median of `xs`, or `None` for none.
pub(super) fn median_of(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| median(xs))
}

/// The confidence of the intervals of throughput figures.
pub const CI_LEVEL: f64 = 0.95;

/// The 95 % interval of the median of `xs` (order statistics), or `None` with too few.
pub(super) fn ci95(xs: &[f64]) -> Option<(f64, f64)> {
    wirebench_measure::stats::median_ci_order(xs, CI_LEVEL).map(|(lo, hi, _)| (lo, hi))
}
