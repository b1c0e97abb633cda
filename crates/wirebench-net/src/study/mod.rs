//! The study parts of this crate: [`link`] (analytic link models), [`http`] (seed 002: HTTP
//! POST throughput under a bandwidth ladder) and [`tcp`] (seed 003: fixed-cadence TCP
//! request/response). Each implements [`wirebench_core::part::Part`]: its options (the study
//! file's table of the same name, and the flags of its command), a check of every option
//! before anything runs, and a run into its typed results section
//! ([`wirebench_core::sections`]).

pub mod http;
pub mod link;
pub mod tcp;

use std::path::PathBuf;

use wirebench_core::part::PartError;
use wirebench_core::sections::net::{Seed002Published, Seed002Row, Seed003Metric, Seed003Published};

use crate::{published, NetError};

/// A crate error as a part error: sockets, worker threads and external commands failed the
/// run; everything else (a rate, a profile, a codec, an address, the lab's privileges) is the
/// user's input.
pub(crate) fn part_error(e: impl Into<NetError>) -> PartError {
    let e = e.into();
    match e {
        NetError::Io { .. } | NetError::Worker(..) | NetError::Command { .. } => PartError::Failed(e.to_string()),
        other => PartError::BadInput(other.to_string()),
    }
}

/// Check a part's payload source before anything runs: the corpus is built in, every sample
/// path exists.
/// Distinct messages of a workload (`messages`): 1 to 10,000 (they are held in memory).
pub(crate) fn check_messages(messages: Option<usize>) -> Result<(), PartError> {
    match messages {
        Some(n) if n == 0 || n > 10_000 => {
            Err(PartError::bad(format!("messages {n}: use 1 to 10,000 distinct messages")))
        }
        _ => Ok(()),
    }
}

pub(crate) fn check_payloads(
    corpus: Option<&str>,
    samples: &[PathBuf],
    schema: &wirebench_measure::study::inputs::SchemaArgs,
) -> Result<(), PartError> {
    wirebench_measure::study::inputs::check_payloads(corpus, &["ev-telemetry", "ev"], samples, schema)
}

/// A row of seed 002's table as the section carries it.
pub(crate) fn seed002_row(r: &published::Seed002Row) -> Seed002Row {
    Seed002Row {
        rate_bps: r.rate_bps,
        format: r.format.to_string(),
        requests_per_sec: r.requests_per_sec,
        transfer_kb_per_sec: r.transfer_kb_per_sec,
        throughput_mbps: r.throughput_mbps,
    }
}

/// Seed 002's published figures, source and notes, for the `http` section.
pub(crate) fn seed002_published() -> Seed002Published {
    Seed002Published {
        source: published::SEED002_SOURCE.into(),
        rows: published::SEED002.iter().map(seed002_row).collect(),
        notes: published::seed002_notes(),
    }
}

/// Seed 003's published tables, source and notes, for the `tcp` section.
pub(crate) fn seed003_published() -> Seed003Published {
    let metrics = |t: &[published::Seed003Metric]| -> Vec<Seed003Metric> {
        t.iter()
            .map(|m| Seed003Metric {
                platform: m.platform.into(),
                metric: m.metric.into(),
                unit: m.unit.into(),
                json: m.json,
                protobuf: m.protobuf,
            })
            .collect()
    };
    Seed003Published {
        source: published::SEED003_SOURCE.into(),
        initial: metrics(published::SEED003_INITIAL),
        final_: metrics(published::SEED003_FINAL),
        notes: published::seed003_notes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_tables_serialize_as_before() {
        // The section's copies serialize exactly as the crate's static tables did.
        let before = serde_json::to_value(published::SEED002).unwrap();
        assert_eq!(serde_json::to_value(&seed002_published().rows).unwrap(), before);
        let before = serde_json::to_value(published::SEED003_FINAL).unwrap();
        assert_eq!(serde_json::to_value(&seed003_published().final_).unwrap(), before);
        let v = serde_json::to_value(seed003_published()).unwrap();
        assert!(v.get("final").is_some() && v.get("final_").is_none());
    }

    #[test]
    fn payload_checks_name_the_problem() {
        let e = check_payloads(Some("nope"), &[], &Default::default()).unwrap_err();
        assert!(matches!(&e, PartError::BadInput(m) if m.starts_with("unknown corpus \"nope\" (known: ")), "{e}");
        let e = check_payloads(None, &[PathBuf::from("/no/such/sample.json")], &Default::default()).unwrap_err();
        assert_eq!(e.to_string(), "/no/such/sample.json: no such file or directory");
        assert!(check_payloads(None, &[], &Default::default()).is_ok());
    }

    #[test]
    fn io_errors_fail_the_run_and_the_rest_is_bad_input() {
        let io = NetError::Io { context: "bind".into(), source: std::io::Error::other("x") };
        assert!(matches!(part_error(io), PartError::Failed(_)));
        assert!(matches!(part_error(NetError::LabId("X".into())), PartError::BadInput(_)));
    }
}
