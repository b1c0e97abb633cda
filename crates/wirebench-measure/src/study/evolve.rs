//! The `evolve` part: schema evolution — every format × change × direction, encoded with the
//! writer's schema and decoded with the reader's (the engine is
//! [`wirebench_codecs::evolve`]; docs/evolve.md).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use wirebench_codecs::evolve::{self, Case, Format};
use wirebench_core::part::{Part, PartError};
use wirebench_core::sections::evolve::EvolveSection;

/// The options of this part in a study file (and of `wirebench evolve`). Without `from` and
/// `to`, the ten built-in cases run.
#[derive(clap::Args, Deserialize, Serialize, Debug, Clone)]
#[serde(default, deny_unknown_fields)]
pub struct EvolveOpts {
    /// The old (v1) schema: .proto, .avsc, .idl or a wirebench JSON schema.
    #[arg(long, requires = "to", conflicts_with = "builtin")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<PathBuf>,
    /// The new (v2) schema.
    #[arg(long, requires = "from", conflicts_with = "builtin")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<PathBuf>,
    /// The message / record / struct to compare when a file has several.
    #[arg(long = "type")]
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_name: Option<String>,
    /// The ten built-in cases: the built-in sensor schema with one change each (the default
    /// of a study's `[evolve]` without `from`/`to`).
    #[arg(long)]
    pub builtin: bool,
    /// Samples per cell.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub samples: u64,
    /// Only these rows, comma-separated (protobuf, avro, thrift, uadp, cdr-xcdr1-final,
    /// cdr-xcdr2-appendable, cdr-xcdr2-mutable, json, cbor, msgpack, bson, pson).
    #[arg(long, value_delimiter = ',')]
    pub formats: Vec<String>,
}

impl Default for EvolveOpts {
    fn default() -> EvolveOpts {
        EvolveOpts { from: None, to: None, type_name: None, builtin: false, samples: 8, formats: Vec::new() }
    }
}

impl EvolveOpts {
    /// The rows asked for (all of them by default).
    pub fn rows(&self) -> Result<Vec<Format>, PartError> {
        if self.formats.is_empty() {
            return Ok(Format::ALL.to_vec());
        }
        self.formats
            .iter()
            .map(|n| {
                Format::find(n).ok_or_else(|| {
                    let known: Vec<&str> = Format::ALL.iter().map(|f| f.id()).collect();
                    PartError::bad(format!("evolve --formats: no row {n:?} (known: {})", known.join(", ")))
                })
            })
            .collect()
    }

    /// The cases: the user's pair diffed, or the ten built-in ones.
    pub fn cases(&self) -> Result<Vec<Case>, PartError> {
        match (&self.from, &self.to) {
            (Some(a), Some(b)) => {
                let v1 = evolve::read(a, self.type_name.as_deref()).map_err(PartError::bad)?;
                let mut v2 = evolve::read(b, self.type_name.as_deref()).map_err(PartError::bad)?;
                let numbered = |p: &std::path::Path| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("proto"));
                if !(numbered(a) && numbered(b)) {
                    // Without field numbers, a kept field keeps its identity by name (or place).
                    evolve::align_tags(&v1, &mut v2);
                }
                Ok(vec![evolve::user_case(v1, v2)])
            }
            (None, None) => Ok(evolve::builtin_cases()),
            _ => Err(PartError::bad("evolve: give both `from` and `to` (the v1 and v2 schema files), or neither")),
        }
    }
}

/// The `[evolve]` part.
pub struct EvolvePart;

impl Part for EvolvePart {
    const NAME: &'static str = "evolve";
    type Options = EvolveOpts;
    type Section = EvolveSection;

    fn validate(opts: &EvolveOpts) -> Result<(), PartError> {
        opts.rows()?;
        if !(1..=10_000).contains(&opts.samples) {
            return Err(PartError::bad(format!("evolve samples: {} is not in 1..=10000", opts.samples)));
        }
        if opts.builtin && (opts.from.is_some() || opts.to.is_some()) {
            return Err(PartError::bad("evolve: `builtin` and `from`/`to` exclude each other"));
        }
        opts.cases().map(|_| ())
    }

    fn run(opts: &EvolveOpts) -> Result<EvolveSection, PartError> {
        let rows = opts.rows()?;
        let cases = opts.cases()?;
        let n = usize::try_from(opts.samples).unwrap_or(usize::MAX);
        let e = evolve::run(cases, &rows, n).map_err(PartError::failed)?;
        Ok(evolve::section(&e))
    }
}
