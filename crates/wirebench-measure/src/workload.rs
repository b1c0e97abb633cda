//! The messages a transport run sends: the EV telemetry series (default), a built-in corpus or
//! user samples, with the schema the schema-driven codecs need, and each format's encoded
//! bodies and HTTP `Content-Type`.

use std::path::PathBuf;

use wirebench_core::corpus::{self, SampleStream};
use wirebench_core::{Schema, Value};

use crate::study::inputs::SchemaArgs;

/// What can go wrong in picking and encoding a workload (wirebench-net turns it into its
/// `NetError` of the same variant and message).
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// A setting that cannot work (with the reason).
    #[error("invalid {what}: {reason}")]
    Invalid { what: &'static str, reason: String },

    /// A codec could not encode, decode or round-trip the payload.
    #[error("codec {codec}: {msg}")]
    Codec { codec: String, msg: String },

    /// A codec id not in the registry (the id, then the registry's ids, comma-separated).
    #[error("{}", unknown("format", .0, .1))]
    UnknownCodec(String, String),
}

impl WorkloadError {
    fn invalid(what: &'static str, reason: impl Into<String>) -> WorkloadError {
        WorkloadError::Invalid { what, reason: reason.into() }
    }
}

/// The one-line "unknown …" message (with a did-you-mean) from a comma-separated known list.
fn unknown(what: &str, name: &str, known: &str) -> String {
    let list: Vec<&str> = known.split(',').map(str::trim).filter(|k| !k.is_empty()).collect();
    wirebench_core::names::unknown(what, name, &list)
}

/// At most this many distinct messages are kept (they are sent in turn).
pub const MAX_MESSAGES: usize = 10_000;

/// Messages and their schema.
#[derive(Clone, Debug)]
pub struct Workload {
    /// `ev-telemetry`, a corpus name, or `samples`.
    pub name: String,
    pub messages: Vec<Value>,
    pub schema: Schema,
}

impl Workload {
    /// `n` EV telemetry messages (seed 003), seeded.
    pub fn ev(n: usize, seed: u64) -> Workload {
        Workload {
            name: "ev-telemetry".into(),
            messages: crate::ev::ev_series(n.clamp(1, MAX_MESSAGES), seed),
            schema: crate::ev::ev_schema(),
        }
    }

    /// A built-in corpus of wirebench-core (`pson-paper`, …) or `ev-telemetry`.
    pub fn corpus(name: &str, n: usize, seed: u64) -> Result<Workload, WorkloadError> {
        if name == "ev-telemetry" || name == "ev" {
            return Ok(Workload::ev(n, seed));
        }
        let c = corpus::builtin(name).ok_or_else(|| {
            let mut known: Vec<&str> = corpus::BUILTIN.iter().map(|c| c.name).collect();
            known.push("ev-telemetry");
            WorkloadError::invalid("corpus", wirebench_core::names::unknown("corpus", name, &known))
        })?;
        let messages: Vec<Value> = c.payloads().into_iter().map(|p| p.value).collect();
        let schema = Schema::infer(messages.iter());
        Ok(Workload { name: name.into(), messages, schema })
    }

    /// Samples from files (.json: one; .ndjson/.jsonl: one per line), at most [`MAX_MESSAGES`].
    pub fn samples(paths: &[PathBuf]) -> Result<Workload, WorkloadError> {
        let stream = SampleStream::open(paths).map_err(|e| WorkloadError::invalid("samples", e.to_string()))?;
        let mut messages = Vec::new();
        for item in stream.take(MAX_MESSAGES) {
            messages.push(item.map_err(|e| WorkloadError::invalid("samples", e.to_string()))?.value);
        }
        if messages.is_empty() {
            return Err(WorkloadError::invalid("samples", "no sample found in the given files"));
        }
        let schema = Schema::infer(messages.iter());
        Ok(Workload { name: "samples".into(), messages, schema })
    }

    /// Pick the source: samples if any, else a corpus name, else the EV series of `n`; with
    /// the user's schema (`--schema`) instead of the source's own when one is given.
    pub fn pick(
        samples: &[PathBuf],
        corpus: Option<&str>,
        n: usize,
        seed: u64,
        schema: &SchemaArgs,
    ) -> Result<Workload, WorkloadError> {
        let mut w = if !samples.is_empty() {
            Workload::samples(samples)?
        } else if let Some(c) = corpus {
            Workload::corpus(c, n, seed)?
        } else {
            Workload::ev(n, seed)
        };
        if let Some(s) = schema.read().map_err(|e| WorkloadError::invalid("schema", e.to_string()))? {
            w.schema = s;
        }
        Ok(w)
    }

    /// Every message encoded with `codec` (schema given to the codecs that use one), after a
    /// round-trip check of the first; `Err` names the codec and why.
    pub fn encode_all(&self, codec: &str) -> Result<Vec<Vec<u8>>, WorkloadError> {
        let c = wirebench_codecs::find(codec)
            .ok_or_else(|| WorkloadError::UnknownCodec(codec.into(), wirebench_codecs::ids()))?;
        let err =
            |e: wirebench_codecs::CodecError| WorkloadError::Codec { codec: c.info().id.into(), msg: e.to_string() };
        let p = c.prepare(Some(&self.schema)).map_err(err)?;
        let uses_schema = c.info().schema != wirebench_codecs::SchemaUse::None;
        let mut out = Vec::with_capacity(self.messages.len());
        for v in &self.messages {
            let mut b = Vec::new();
            // A .proto schema's lowerCamelCase keys, as the codecs of the shared model read them.
            let renamed = if uses_schema { self.schema.with_proto_names(v) } else { None };
            p.encode(renamed.as_ref().unwrap_or(v), &mut b).map_err(err)?;
            out.push(b);
        }
        if let Some(first) = out.first() {
            p.decode(first).map_err(err)?;
        }
        Ok(out)
    }
}

/// The `Content-Type` for `codec`: its media type, plus `; codec=<id>` when another codec comes
/// first in the registry with the same media type (the collector picks the first otherwise).
pub fn content_type(codec: &str) -> Result<String, WorkloadError> {
    let c = wirebench_codecs::find(codec)
        .ok_or_else(|| WorkloadError::UnknownCodec(codec.into(), wirebench_codecs::ids()))?;
    let info = c.info();
    let first = wirebench_codecs::registry()
        .iter()
        .find(|o| o.info().media_type.eq_ignore_ascii_case(info.media_type))
        .map(|o| o.info().id);
    Ok(if first == Some(info.id) {
        info.media_type.to_string()
    } else {
        format!("{}; codec={}", info.media_type, info.id)
    })
}

/// Codec ids from a list (`all` = every codec in the registry), checked, deduplicated.
pub fn codec_ids(list: &[String]) -> Result<Vec<String>, WorkloadError> {
    let mut out: Vec<String> = Vec::new();
    for f in list.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        if f == "all" {
            for c in wirebench_codecs::registry() {
                if !out.iter().any(|o| o == c.info().id) {
                    out.push(c.info().id.into());
                }
            }
            continue;
        }
        let c =
            wirebench_codecs::find(f).ok_or_else(|| WorkloadError::UnknownCodec(f.into(), wirebench_codecs::ids()))?;
        if !out.iter().any(|o| o == c.info().id) {
            out.push(c.info().id.into());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_pick_the_codec() {
        assert_eq!(content_type("json").unwrap(), "application/json");
        assert_eq!(content_type("cbor").unwrap(), "application/cbor");
        assert_eq!(content_type("uadp-json").unwrap(), "application/json; codec=uadp-json");
        assert!(content_type("nope").is_err());
        let all = codec_ids(&["all".into()]).unwrap();
        assert_eq!(all.len(), wirebench_codecs::registry().len());
        assert_eq!(codec_ids(&["json".into(), "json".into()]).unwrap(), vec!["json"]);
        assert!(codec_ids(&["warp".into()]).is_err());
    }

    #[test]
    fn workloads() {
        let w = Workload::ev(4, 1);
        assert_eq!(w.messages.len(), 4);
        let b = w.encode_all("protobuf").unwrap();
        assert!(b.iter().all(|m| (200..350).contains(&m.len())), "{:?}", b.iter().map(Vec::len).collect::<Vec<_>>());
        assert!(Workload::corpus("pson-paper", 1, 1).unwrap().messages.len() == 10);
        assert!(Workload::corpus("nope", 1, 1).is_err());
        assert!(Workload::samples(&[PathBuf::from("/nonexistent.json")]).is_err());
    }
}
