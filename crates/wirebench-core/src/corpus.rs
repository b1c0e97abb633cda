//! Corpora: the built-in payload sets, and user samples streamed from files.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::value::Value;

/// One payload: a name and its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Payload {
    pub name: String,
    pub value: Value,
}

/// A built-in corpus: a fixed list of payloads and where they come from.
pub struct BuiltinCorpus {
    pub name: &'static str,
    pub description: &'static str,
    pub source: &'static str,
    payloads: &'static [(&'static str, &'static str)],
}

impl BuiltinCorpus {
    /// The payloads, parsed (key order as printed in the source).
    pub fn payloads(&self) -> Vec<Payload> {
        self.payloads
            .iter()
            .map(|(name, json)| Payload {
                name: (*name).to_string(),
                value: Value::from_json_str(json).expect("built-in corpus is valid JSON"),
            })
            .collect()
    }
}

/// Test01–Test10 of the PSON paper (Sensors 2021, 21, 4559, §4), values and key order as
/// printed there. Test03 prints `2.30`; as a value that is 2.3.
const PSON_PAPER: &[(&str, &str)] = &[
    ("Test01", r#"{"sensor":"gps","time":1351824120,"data":[48.75,2.3]}"#),
    (
        "Test02",
        r#"{"sensor":"This is a very long string. This is a very long string. This is a very long string. This is a very long string. This is a very long string. ","time":1351824120,"data":[48.75,2.3]}"#,
    ),
    (
        "Test03",
        r#"{"sensor":"This contains a lot of keys.","sensor2":"This contains a lot of keys.","sensor3":"This contains a lot of keys.","sensor4":"This contains a lot of keys.","sensor5":"This contains a lot of keys.","sensor6":"This contains a lot of keys.","sensor7":"This contains a lot of keys.","time":1351824120,"data":[48.75,2.30]}"#,
    ),
    ("Test04", r#"{"data":[48.75,2.3,3.01,5.4,6.7,4.3,10.01,10.01]}"#),
    ("Test05", r#"{"bool":true}"#),
    ("Test06", r#"{"neg":-2}"#),
    ("Test07", r#"{"pos":1}"#),
    ("Test08", r#"{"double":1.03}"#),
    ("Test09", r#"{"string":"test"}"#),
    ("Test10", r#"{"string":"test","double":1.03,"long":1351824120,"pos":1,"neg":-2,"bool":true,"array":[48.75,2.3]}"#),
];

/// Every built-in corpus.
pub const BUILTIN: &[BuiltinCorpus] = &[
    BuiltinCorpus {
        name: "pson-paper",
        description: "Test01-Test10 of the PSON paper (seed 001)",
        source: "Sensors 2021, 21, 4559, section 4 (payload listing)",
        payloads: PSON_PAPER,
    },
    BuiltinCorpus {
        name: "ev-telemetry",
        description: "EV telemetry message of seed 003 (about 1 KB as JSON, about 280 B as Protobuf)",
        source: "crates/wirebench-core/data/ev_telemetry.json (designed for seed 003; the seed's .proto is not public)",
        payloads: &[("ev-telemetry", EV_TELEMETRY_JSON)],
    },
];

/// The EV telemetry message of seed 003 (pretty-printed JSON; key order is the field order).
pub const EV_TELEMETRY_JSON: &str = include_str!("../data/ev_telemetry.json");

/// Look up a built-in corpus by name.
pub fn builtin(name: &str) -> Option<&'static BuiltinCorpus> {
    BUILTIN.iter().find(|c| c.name == name)
}

/// A sample that could not be read: the file, the line (NDJSON) and what was wrong.
#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}:{line}:{column}: {msg}")]
    Json { path: String, line: usize, column: usize, msg: String },
    #[error("{path}: no .json, .ndjson or .jsonl files in this directory")]
    EmptyDir { path: String },
}

fn json_error(path: &Path, line_offset: usize, e: crate::value::JsonError) -> SampleError {
    SampleError::Json {
        path: path.display().to_string(),
        line: e.line() + line_offset,
        column: e.column(),
        msg: e.message().to_string(),
    }
}

/// Expand the paths given on the command line: files as they are, directories to their
/// `.json`, `.ndjson` and `.jsonl` files in name order.
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, SampleError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let io = |e| SampleError::Io { path: p.display().to_string(), source: e };
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(io)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.is_file() && is_sample_file(f))
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(SampleError::EmptyDir { path: p.display().to_string() });
            }
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn is_sample_file(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("json" | "ndjson" | "jsonl"))
}

fn is_ndjson(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("ndjson" | "jsonl"))
}

/// Streams samples from files: a `.json` file is one sample, each non-blank line of an
/// `.ndjson`/`.jsonl` file is one. Memory stays flat however large the files are.
pub struct SampleStream {
    files: std::vec::IntoIter<PathBuf>,
    current: Option<(std::sync::Arc<Path>, BufReader<File>, usize)>,
}

/// A whole text file (study, schema, data file): an I/O error as `path: error`, bytes that are
/// not UTF-8 as `path:line:column: not UTF-8 text (byte 0x..)`.
pub fn read_text(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    utf8_text(path, bytes, 1).map(|t| t.strip_prefix('\u{feff}').map(str::to_owned).unwrap_or(t)).map_err(|e| match e {
        SampleError::Json { path, line, column, msg } => {
            format!("{path}:{line}:{column}: {}", msg.split(';').next().unwrap_or(&msg))
        }
        other => other.to_string(),
    })
}

/// Text of a file or line read as bytes, or the position of its first byte that is not UTF-8
/// (`line` is the 1-based line the bytes start on).
fn utf8_text(path: &Path, bytes: Vec<u8>, line: usize) -> Result<String, SampleError> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let extra_lines = before.iter().filter(|&&b| b == b'\n').count();
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        SampleError::Json {
            path: path.display().to_string(),
            line: line + extra_lines,
            column: at - line_start + 1,
            msg: format!("not UTF-8 text (byte 0x{:02x}); samples are JSON text in UTF-8", bytes[at]),
        }
    })
}

impl SampleStream {
    pub fn open(paths: &[PathBuf]) -> Result<SampleStream, SampleError> {
        let files = expand_paths(paths)?;
        for f in &files {
            if let Err(e) = std::fs::metadata(f) {
                return Err(SampleError::Io { path: f.display().to_string(), source: e });
            }
        }
        Ok(SampleStream { files: files.into_iter(), current: None })
    }

    fn sample_name(path: &Path, line: Option<usize>) -> String {
        let stem = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        match line {
            Some(l) => format!("{stem}:{l}"),
            None => stem,
        }
    }
}

/// One sample as read, not parsed yet: its text and where it came from. Parsing
/// ([`RawSample::parse`]) is the costly part, so it can run on other threads.
pub struct RawSample {
    /// The file it came from (shared by every sample of that file).
    pub path: std::sync::Arc<Path>,
    /// 1-based line of an NDJSON file; `None` for a whole `.json` file.
    pub line: Option<usize>,
    pub text: String,
}

impl RawSample {
    /// The sample as a payload, or the JSON error with its file, line and column.
    pub fn parse(&self) -> Result<Payload, SampleError> {
        Value::from_json_str(&self.text)
            .map(|value| Payload { name: SampleStream::sample_name(&self.path, self.line), value })
            .map_err(|e| json_error(&self.path, self.line.map_or(0, |l| l - 1), e))
    }
}

impl SampleStream {
    /// The next sample's text, read but not parsed (blank lines skipped; I/O and UTF-8
    /// errors reported here, JSON errors by [`RawSample::parse`]).
    pub fn next_raw(&mut self) -> Option<Result<RawSample, SampleError>> {
        loop {
            if let Some((path, reader, lineno)) = &mut self.current {
                loop {
                    let mut buf = Vec::new();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e) => return Some(Err(SampleError::Io { path: path.display().to_string(), source: e })),
                    }
                    *lineno += 1;
                    if buf.last() == Some(&b'\n') {
                        buf.pop();
                        if buf.last() == Some(&b'\r') {
                            buf.pop();
                        }
                    }
                    let line = match utf8_text(path, buf, *lineno) {
                        Ok(l) => l,
                        Err(e) => return Some(Err(e)),
                    };
                    if line.trim().is_empty() {
                        continue;
                    }
                    return Some(Ok(RawSample { path: path.clone(), line: Some(*lineno), text: line }));
                }
                self.current = None;
            }
            let path = self.files.next()?;
            let io = |e| SampleError::Io { path: path.display().to_string(), source: e };
            let file = match File::open(&path) {
                Ok(f) => f,
                Err(e) => return Some(Err(io(e))),
            };
            if is_ndjson(&path) {
                self.current = Some((path.into(), BufReader::new(file), 0));
                continue;
            }
            let mut bytes = Vec::new();
            if let Err(e) = BufReader::new(file).read_to_end(&mut bytes) {
                return Some(Err(io(e)));
            }
            let text = match utf8_text(&path, bytes, 1) {
                Ok(t) => t,
                Err(e) => return Some(Err(e)),
            };
            return Some(Ok(RawSample { path: path.into(), line: None, text }));
        }
    }
}

impl Iterator for SampleStream {
    type Item = Result<Payload, SampleError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_raw().map(|raw| raw.and_then(|r| r.parse()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pson_paper_is_complete() {
        let c = builtin("pson-paper").unwrap();
        let p = c.payloads();
        assert_eq!(p.len(), 10);
        assert_eq!(p[0].name, "Test01");
        // Key order as printed.
        let Value::Map(pairs) = &p[9].value else { panic!() };
        let keys: Vec<_> = pairs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["string", "double", "long", "pos", "neg", "bool", "array"]);
    }

    #[test]
    fn non_utf8_samples_name_line_and_column() {
        let dir = std::env::temp_dir().join(format!("wb-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("s.ndjson");
        std::fs::write(&f, b"{\"a\":1}\n{\"b\":\"x\xff\"}\n").unwrap();
        let items: Vec<_> = SampleStream::open(std::slice::from_ref(&f)).unwrap().collect();
        let e = items[1].as_ref().unwrap_err().to_string();
        assert!(e.ends_with("s.ndjson:2:8: not UTF-8 text (byte 0xff); samples are JSON text in UTF-8"), "{e}");
        let g = dir.join("one.json");
        std::fs::write(&g, b"{\n  \"b\": \"\xc3\"}").unwrap();
        let e = SampleStream::open(&[g]).unwrap().next().unwrap().unwrap_err().to_string();
        assert!(e.ends_with("one.json:2:9: not UTF-8 text (byte 0xc3); samples are JSON text in UTF-8"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn streams_ndjson_with_line_numbers_in_errors() {
        let dir = std::env::temp_dir().join(format!("wb-corpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("s.ndjson");
        std::fs::write(&f, "{\"a\":1}\n\n{\"a\":2}\n{\"a\":\n").unwrap();
        let items: Vec<_> = SampleStream::open(std::slice::from_ref(&f)).unwrap().collect();
        assert_eq!(items.len(), 3);
        assert_eq!(items[1].as_ref().unwrap().name, "s.ndjson:3");
        let e = items[2].as_ref().unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:4:", f.display())), "{e}");
        std::fs::write(dir.join("t.json"), "[1,2]").unwrap();
        let all: Vec<_> = SampleStream::open(std::slice::from_ref(&dir)).unwrap().collect();
        assert_eq!(all.len(), 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
