//! Checks and loaders every part shares: codec ids, built-in corpora, schema files, sample
//! paths, each failing with a one-line [`PartError::BadInput`].

use std::path::{Path, PathBuf};

use wirebench_codecs::Codec;
use wirebench_core::corpus;
use wirebench_core::part::PartError;
use wirebench_core::Schema;

/// The codec of this id, or the list of known ids.
pub fn find_codec(id: &str) -> Result<&'static dyn Codec, PartError> {
    wirebench_codecs::find(id).ok_or_else(|| {
        let known: Vec<&str> = wirebench_codecs::registry().iter().map(|c| c.info().id).collect();
        PartError::bad(wirebench_core::names::unknown("format", id, &known))
    })
}

/// The codecs of these ids; all of them when the list is empty.
pub fn codecs_of(ids: &[String]) -> Result<Vec<&'static dyn Codec>, PartError> {
    if ids.is_empty() || (ids.len() == 1 && ids[0].trim().eq_ignore_ascii_case("all")) {
        Ok(wirebench_codecs::registry().to_vec())
    } else {
        ids.iter().map(|f| find_codec(f.trim())).collect()
    }
}

/// The built-in corpus of this name, or the list of known ones.
pub fn find_corpus(name: &str) -> Result<&'static corpus::BuiltinCorpus, PartError> {
    corpus::builtin(name).ok_or_else(|| {
        let known: Vec<_> = corpus::BUILTIN.iter().map(|c| c.name).collect();
        PartError::bad(wirebench_core::names::unknown("corpus", name, &known))
    })
}

/// A schema file: a wirebench JSON schema, a .proto, an Avro .avsc or an OMG IDL file (see
/// `wirebench_codecs::schema_files`); errors name the file, line and column.
pub fn read_schema(path: &Path) -> Result<Schema, PartError> {
    read_schema_typed(path, None)
}

/// A schema file with the message / record / struct to use named (`--type`).
pub fn read_schema_typed(path: &Path, type_name: Option<&str>) -> Result<Schema, PartError> {
    read_schema_with(path, type_name, &[])
}

/// [`read_schema_typed`] with the include paths of a .proto file's imports (`-I DIR`).
pub fn read_schema_with(path: &Path, type_name: Option<&str>, proto_path: &[PathBuf]) -> Result<Schema, PartError> {
    wirebench_codecs::schema_files::read_schema_file_with(path, type_name, proto_path).map_err(PartError::bad)
}

/// A sample file that could not be read or parsed (the error names the file and line).
pub fn sample_error(e: corpus::SampleError) -> PartError {
    PartError::bad(e.to_string())
}

/// The messages a part encodes and their schema: flattened into the options of every part that
/// takes inputs (size, speed, link, http, tcp, device, energy, fleet), so `--corpus`,
/// `--samples`, `--schema`, `--type` and `-I` (and `corpus`, `samples`, `schema`, `type`,
/// `include` in a study's table) mean the same everywhere.
///
/// In a study's table the keys are flat (`corpus`, `samples`, `schema`, `type`, `include`):
/// serde reads them through [`FlatInputs`], since a flattened struct that itself flattens
/// another would leave its keys to the outer struct's unknown-field check.
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone, PartialEq)]
#[serde(from = "FlatInputs", into = "FlatInputs")]
pub struct Inputs {
    /// A built-in corpus instead of the command's own messages (`wirebench corpora` lists them;
    /// size, speed, device, energy, fleet: pson-paper; link, http, tcp: the EV telemetry message).
    #[arg(long, conflicts_with = "samples")]
    pub corpus: Option<String>,
    /// Your messages: sample files or directories (.json: one message; .ndjson/.jsonl: one per
    /// line).
    #[arg(long, num_args = 1..)]
    pub samples: Vec<PathBuf>,
    #[command(flatten)]
    #[serde(flatten)]
    pub schema: SchemaArgs,
}

/// [`Inputs`] as a study's table holds them, one key each.
#[derive(serde::Deserialize, serde::Serialize, Default)]
#[serde(default)]
pub struct FlatInputs {
    corpus: Option<String>,
    samples: Vec<PathBuf>,
    schema: Option<PathBuf>,
    #[serde(rename = "type")]
    type_name: Option<String>,
    include: Vec<PathBuf>,
}

impl From<FlatInputs> for Inputs {
    fn from(f: FlatInputs) -> Inputs {
        Inputs {
            corpus: f.corpus,
            samples: f.samples,
            schema: SchemaArgs { file: f.schema, type_name: f.type_name, include: f.include },
        }
    }
}

impl From<Inputs> for FlatInputs {
    fn from(i: Inputs) -> FlatInputs {
        FlatInputs {
            corpus: i.corpus,
            samples: i.samples,
            schema: i.schema.file,
            type_name: i.schema.type_name,
            include: i.schema.include,
        }
    }
}

impl Inputs {
    /// Measure `samples` instead of the part's own messages.
    pub fn use_samples(&mut self, samples: &[PathBuf]) {
        self.corpus = None;
        self.samples = samples.to_vec();
    }
}

/// The schema both ends share, as every command and study part that takes `--samples` takes
/// it: `--schema FILE [--type NAME] [-I DIR]`, or `schema`, `type` and `include` in the part's
/// table. Without a file the schema is inferred from the messages.
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone, PartialEq)]
#[serde(default)]
pub struct SchemaArgs {
    /// Schema for the schema-driven codecs: a .proto, .avsc, .idl or wirebench schema file
    /// (default: inferred from the messages).
    #[arg(id = "schema", long = "schema", value_name = "FILE")]
    #[serde(rename = "schema")]
    pub file: Option<PathBuf>,
    /// The message / record / struct of the schema file to use, where it defines several.
    #[arg(long = "type", value_name = "NAME", requires = "schema")]
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    /// Where `#include`d IDL files and a .proto schema's imports are looked up (after the
    /// including file's own folder), repeatable.
    #[arg(short = 'I', long = "include", visible_alias = "proto-path", value_name = "DIR")]
    pub include: Vec<PathBuf>,
}

impl SchemaArgs {
    /// The schema file read (errors name the file, line and column), `None` without one.
    pub fn read(&self) -> Result<Option<Schema>, PartError> {
        wirebench_codecs::schema_files::set_include_dirs(&self.include);
        self.file.as_deref().map(|p| read_schema_with(p, self.type_name.as_deref(), &self.include)).transpose()
    }

    /// The same as command-line arguments (for child processes).
    pub fn to_cli_args(&self) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(s) = &self.file {
            a.extend(["--schema".into(), s.display().to_string()]);
        }
        if let Some(t) = &self.type_name {
            a.extend(["--type".into(), t.clone()]);
        }
        for d in &self.include {
            a.extend(["--proto-path".into(), d.display().to_string()]);
        }
        a
    }

    /// The paths of a study file, relative to its folder `base`.
    pub fn resolve_paths(&mut self, base: &Path) {
        for p in self.file.iter_mut().chain(self.include.iter_mut()) {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        }
    }
}

/// Check a part's payload source before anything runs: the corpus is built in (or one of
/// `extra_corpora`), every sample path exists, the schema file reads.
pub fn check_payloads(
    corpus: Option<&str>,
    extra_corpora: &[&str],
    samples: &[PathBuf],
    schema: &SchemaArgs,
) -> Result<(), PartError> {
    if let Some(name) = corpus.filter(|n| !extra_corpora.contains(n)) {
        find_corpus(name)?;
    }
    for p in samples {
        if !p.exists() {
            return Err(PartError::bad(format!("{}: no such file or directory", p.display())));
        }
    }
    schema.read().map(drop)
}
