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

/// Check a part's payload source before anything runs: the corpus is built in, every sample
/// path exists, the schema file reads.
pub fn check_payloads(
    corpus: Option<&str>,
    samples: &[PathBuf],
    schema: Option<(&Path, Option<&str>)>,
) -> Result<(), PartError> {
    if let Some(name) = corpus {
        find_corpus(name)?;
    }
    for p in samples {
        if !p.exists() {
            return Err(PartError::bad(format!("{}: no such file or directory", p.display())));
        }
    }
    if let Some((s, type_name)) = schema {
        read_schema_typed(s, type_name)?;
    }
    Ok(())
}
