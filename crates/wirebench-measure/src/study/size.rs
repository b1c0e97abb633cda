//! The size part: encoded size (raw, zstd, deflate) of every payload in every codec, with
//! round-trip fidelity; the built-in corpora payload by payload, user samples streamed in
//! bounded batches.

use std::path::PathBuf;

use wirebench_codecs::SchemaUse;
use wirebench_core::corpus::{self, RawSample, SampleStream};
use wirebench_core::part::{Part, PartError};
use wirebench_core::results::SizeSection;
use wirebench_core::sections::held_out::HeldOutSection;
use wirebench_core::Schema;

use super::inputs::*;
use crate::size::{SchemaSource, SizeMeter};

/// Samples read per batch when streaming files (parsed and measured on every core).
const SAMPLE_BATCH: usize = 4096;

/// What the size measurement measures (command-line options, or a study's `[size]` table).
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Clone, Debug, Default)]
#[serde(default, deny_unknown_fields)]
pub struct SizeOpts {
    /// The messages (`--corpus`, `--samples`) and their schema (`--schema`, `--type`, `-I`).
    #[command(flatten)]
    #[serde(flatten)]
    pub inputs: Inputs,
    /// Comma-separated codec ids (default: all). See `wirebench codecs`.
    #[arg(long, short = 'f', value_delimiter = ',')]
    pub formats: Vec<String>,
    /// A schema given as a value (recommend's tightened schemas); wins over `schema`.
    #[arg(skip)]
    #[serde(skip)]
    pub schema_value: Option<Schema>,
    /// Keep one row per sample (default for --samples: aggregates only, flat memory).
    #[arg(long)]
    pub per_record: bool,
    /// Floats that differ by at most this fraction count as exact in the round-trip check
    /// (e.g. 1e-6 accepts float64 → float32 rounding; default 0: only the same value).
    #[arg(long, value_name = "REL")]
    pub float_tolerance: Option<f64>,
    /// Count a change of key order in the round trip as a loss (default: not; JSON objects are
    /// unordered, and schema-directed codecs write the schema's field order).
    #[arg(long)]
    pub strict_order: bool,
    /// Compressed sizes (zstd, deflate, each message on its own): `all` messages, a systematic
    /// `sample` (every k-th message, about 2,000 of them; the totals are scaled and marked) or
    /// `none` (raw sizes only). Default: all for a built-in corpus, sample for --samples.
    #[arg(long, value_enum)]
    pub compress: Option<Compress>,
    /// Round-trip check (decode and compare): `all` messages, a `sample` (every k-th message,
    /// about 2,000 of them, and every message that brings a value class not checked before: an
    /// integer past 2^53, a float float32 cannot hold, a string with a control character or
    /// that reads as a number, a new key …) or `none`. Default: all for a built-in corpus,
    /// sample for --samples. Sizes always cover every message, and an encode error is found on
    /// every message; the fidelity counts cover the checked messages, the rest are unchecked.
    #[arg(long, value_enum)]
    pub roundtrip: Option<Compress>,
    /// Held out: train a dictionary per format on these messages (files or directories, as
    /// --samples) and measure --samples with it: per message raw, zstd, zstd+dict, deflate,
    /// deflate+dict (median, p99, max), the dictionary's size and the messages that amortise it.
    #[arg(long, num_args = 1.., value_name = "FILES", conflicts_with_all = ["dict_split", "dict"])]
    pub dict_train: Vec<PathBuf>,
    /// Held out, split by device: train on this share of the devices of --samples (0 to 1, whole
    /// devices in order of first appearance, named by --dict-key), measure the others.
    #[arg(long, value_name = "FRACTION", requires = "dict_key")]
    pub dict_split: Option<f64>,
    /// The top-level field naming a message's device, for --dict-split.
    #[arg(long, value_name = "FIELD", requires = "dict_split")]
    pub dict_key: Option<String>,
    /// The largest dictionary to train, bytes (256 to 1048576; default 2048).
    #[arg(long, value_name = "BYTES")]
    pub dict_size: Option<u64>,
    /// Use this zstd dictionary (e.g. from `zstd --train`) for every format instead of training
    /// one; raw content without the dictionary header is taken as is. With --dict-split only the
    /// held-out devices are measured, else every message of --samples.
    #[arg(long, value_name = "FILE")]
    pub dict: Option<PathBuf>,
    /// Deltas: each message against the previous one of the same device (this top-level field):
    /// field-wise (unchanged fields dropped, numbers as differences, in the same format) and the
    /// encoding XORed with the previous one, then zstd; a device's first message sent whole.
    #[arg(long, value_name = "FIELD")]
    pub delta_key: Option<String>,
}

impl SizeOpts {
    /// Whether any held-out option (dictionary or delta) is set.
    pub fn held_out(&self) -> bool {
        !self.dict_train.is_empty()
            || self.dict_split.is_some()
            || self.dict_key.is_some()
            || self.dict_size.is_some()
            || self.dict.is_some()
            || self.delta_key.is_some()
    }
}

/// Which messages get compressed sizes (`--compress`) or their round trip checked (`--roundtrip`).
#[derive(clap::ValueEnum, serde::Deserialize, serde::Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Compress {
    All,
    Sample,
    None,
}

/// About this many messages are compressed under `--compress sample`.
pub const COMPRESS_SAMPLE: u64 = 2000;

/// Every how many messages one is compressed: 0 never, 1 every message.
fn compress_every(policy: Compress, records: u64) -> u64 {
    match policy {
        Compress::All => 1,
        Compress::None => 0,
        Compress::Sample => records.div_ceil(COMPRESS_SAMPLE).max(1),
    }
}

/// The meter set to compress and check the round trip of the messages the policies choose among
/// `records` (a sampled round trip also takes every message with a new value class).
fn sampled(meter: SizeMeter, compress: Compress, roundtrip: Compress, records: u64) -> SizeMeter {
    meter
        .compress_every(compress_every(compress, records))
        .roundtrip_every(compress_every(roundtrip, records))
        .roundtrip_new_classes(roundtrip == Compress::Sample)
}

/// Check the options before anything runs (also the `[size]` part of a study).
pub fn validate(args: &SizeOpts) -> Result<(), PartError> {
    codecs_of(&args.formats)?;
    if let Some(t) = args.float_tolerance {
        wirebench_core::fidelity::set_float_tolerance(t).map_err(PartError::bad)?;
    }
    wirebench_core::fidelity::set_strict_order(args.strict_order);
    check_payloads(args.inputs.corpus.as_deref(), &[], &args.inputs.samples, &args.inputs.schema)?;
    validate_held_out(args)
}

/// The held-out options: each error is one line naming the option.
fn validate_held_out(args: &SizeOpts) -> Result<(), PartError> {
    if !args.held_out() {
        return Ok(());
    }
    let bad = |m: String| Err(PartError::bad(m));
    let first = if !args.dict_train.is_empty() {
        "--dict-train"
    } else if args.dict_split.is_some() {
        "--dict-split"
    } else if args.dict_key.is_some() {
        "--dict-key"
    } else if args.dict.is_some() {
        "--dict"
    } else if args.dict_size.is_some() {
        "--dict-size"
    } else {
        "--delta-key"
    };
    if args.inputs.samples.is_empty() {
        return bad(format!("{first} needs --samples (the messages to measure)"));
    }
    if !args.dict_train.is_empty() && (args.dict_split.is_some() || args.dict.is_some()) {
        return bad("--dict-train: give one of --dict-train, --dict-split and --dict".into());
    }
    if args.dict.is_some() && args.dict_size.is_some() {
        return bad("--dict-size: nothing is trained with --dict FILE".into());
    }
    match (args.dict_split, &args.dict_key) {
        (Some(f), _) if !(f > 0.0 && f < 1.0) => return bad(format!("--dict-split {f}: a share between 0 and 1")),
        (Some(_), None) => return bad("--dict-split needs --dict-key FIELD (the field naming the device)".into()),
        (None, Some(_)) => return bad("--dict-key needs --dict-split FRACTION".into()),
        (_, Some(k)) if k.is_empty() => return bad("--dict-key: empty field name".into()),
        _ => {}
    }
    if args.delta_key.as_deref() == Some("") {
        return bad("--delta-key: empty field name".into());
    }
    if let Some(n) = args.dict_size {
        if args.dict_train.is_empty() && args.dict_split.is_none() {
            return bad("--dict-size needs --dict-train or --dict-split (a dictionary to train)".into());
        }
        if !(crate::dict::MIN_DICT_SIZE as u64..=1 << 20).contains(&n) {
            return bad(format!("--dict-size {n}: between {} and 1048576 bytes", crate::dict::MIN_DICT_SIZE));
        }
    }
    if let Some(f) = &args.dict {
        let meta = std::fs::metadata(f).map_err(|e| PartError::bad(format!("--dict {}: {e}", f.display())))?;
        if !meta.is_file() || meta.len() == 0 || meta.len() > 1 << 20 {
            return bad(format!("--dict {}: not a dictionary file of 1 B to 1 MiB", f.display()));
        }
    }
    if let Some(p) = args.dict_train.iter().find(|p| !p.exists()) {
        return bad(format!("--dict-train {}: no such file or directory", p.display()));
    }
    if !args.dict_train.is_empty() {
        corpus::expand_paths(&args.dict_train).map_err(|e| PartError::bad(format!("--dict-train: {e}")))?;
    }
    Ok(())
}

/// Every message of these files, parsed (the held-out measurement keeps them in memory).
fn read_all(paths: &[PathBuf]) -> Result<Vec<wirebench_core::corpus::Payload>, PartError> {
    let mut stream = SampleStream::open(paths).map_err(sample_error)?;
    let mut all = Vec::new();
    while let Some(batch) = raw_batch(&mut stream)? {
        all.extend(parse_parallel(&batch)?);
    }
    Ok(all)
}

/// The held-out measurement (`--dict-train`, `--dict-split`, `--dict`, `--delta-key`) on the
/// run's codecs and schema.
fn measure_held_out(
    args: &SizeOpts,
    codecs: &[&'static dyn wirebench_codecs::Codec],
    schema: Option<&Schema>,
) -> Result<HeldOutSection, PartError> {
    use crate::dict::{self, DictSource};
    let samples = read_all(&args.inputs.samples)?;
    let given = match &args.dict {
        Some(f) => Some(std::fs::read(f).map_err(|e| PartError::bad(format!("--dict {}: {e}", f.display())))?),
        None => None,
    };
    let mut section = HeldOutSection {
        zstd_level: crate::compress::ZSTD_LEVEL,
        deflate_level: crate::compress::DEFLATE_LEVEL,
        delta_key: args.delta_key.clone(),
        dict_file: args.dict.as_ref().map(|f| f.display().to_string()),
        ..Default::default()
    };
    let (train, held) = if !args.dict_train.is_empty() {
        section.split = "files".into();
        let train = read_all(&args.dict_train).map_err(|e| PartError::bad(format!("--dict-train: {e}")))?;
        (train, samples)
    } else if let (Some(f), Some(k)) = (args.dict_split, &args.dict_key) {
        let (train, held, nt, nh) = dict::split_by_device(samples, k, f).map_err(PartError::bad)?;
        (section.split, section.key, section.fraction) = ("devices".into(), Some(k.clone()), Some(f));
        (section.train_devices, section.held_out_devices) = (Some(nt), Some(nh));
        (train, held)
    } else {
        section.split = if given.is_some() { "given" } else { "none" }.into();
        (Vec::new(), samples)
    };
    if let Some(k) = &args.delta_key {
        if let Some(p) = held.iter().find(|p| dict::device_of(&p.value, k).is_none()) {
            return Err(PartError::bad(format!("--delta-key {k}: {} has no field {k:?}", p.name)));
        }
    }
    let size = args.dict_size.map_or(dict::DEFAULT_DICT_SIZE, |n| n as usize);
    let source = match &given {
        Some(d) => DictSource::Given(d),
        None if section.split == "none" => DictSource::None,
        None => {
            section.dict_size = Some(size as u64);
            DictSource::Train(size)
        }
    };
    if matches!(source, DictSource::Train(_)) && train.is_empty() {
        return Err(PartError::bad("--dict-train: no training messages"));
    }
    (section.train_messages, section.held_out_messages) = (train.len() as u64, held.len() as u64);
    // The schema both ends share: given, or inferred from every message, training and held out.
    let inferred;
    let schema = match schema {
        Some(s) => s,
        None => {
            inferred = Schema::infer(train.iter().chain(&held).map(|p| &p.value));
            &inferred
        }
    };
    section.formats = dict::measure_all(codecs, schema, &train, &held, &source, args.delta_key.as_deref());
    for f in &section.formats {
        if let Some(issue) = &f.issue {
            section.notes.push(format!("{}: {issue}", f.codec));
        }
    }
    Ok(section)
}

/// Run the size measurement; the section and the configuration it ran with.
pub fn measure(args: &SizeOpts) -> Result<(SizeSection, serde_json::Value), PartError> {
    let codecs = codecs_of(&args.formats)?;
    validate_held_out(args)?;
    wirebench_core::fidelity::set_float_tolerance(args.float_tolerance.unwrap_or(0.0)).map_err(PartError::bad)?;
    wirebench_core::fidelity::set_strict_order(args.strict_order);
    let given_schema = match &args.schema_value {
        Some(s) => Some(s.clone()),
        None => args.inputs.schema.read()?,
    };
    let held_out_schema = given_schema.clone().filter(|_| args.held_out());
    let needs_schema = codecs.iter().any(|c| c.info().schema != SchemaUse::None);
    // Which messages are compressed and checked: every one of a built-in corpus, a sample of
    // sample files (unless asked otherwise).
    let default = if args.inputs.samples.is_empty() { Compress::All } else { Compress::Sample };
    let (policy, rt_policy) = (args.compress.unwrap_or(default), args.roundtrip.unwrap_or(default));
    let config = serde_json::json!({
        "measurement": "size",
        "corpus": args.inputs.corpus,
        "samples": args.inputs.samples,
        "formats": codecs.iter().map(|c| c.info().id).collect::<Vec<_>>(),
        "schema": args.inputs.schema.file,
        "type": args.inputs.schema.type_name,
        "per_record": args.per_record,
        "float_tolerance": args.float_tolerance,
        "strict_order": args.strict_order,
        "zstd_level": crate::compress::ZSTD_LEVEL,
        "deflate_level": crate::compress::DEFLATE_LEVEL,
        "compress": policy,
        "roundtrip": rt_policy,
        "dict_train": args.dict_train,
        "dict_split": args.dict_split,
        "dict_key": args.dict_key,
        "dict_size": args.dict_size,
        "dict": args.dict,
        "delta_key": args.delta_key,
    });
    let all_codecs = codecs.clone();
    let mut section = if args.inputs.samples.is_empty() {
        let name = args.inputs.corpus.as_deref().unwrap_or("pson-paper");
        let corpus = find_corpus(name)?;
        let source = match given_schema {
            Some(s) => SchemaSource::Fixed(s),
            None => SchemaSource::PerPayload,
        };
        let payloads = corpus.payloads();
        let n = payloads.len() as u64;
        let mut meter = sampled(SizeMeter::new(codecs, source, true), policy, rt_policy, n);
        for p in payloads {
            meter.add(&p);
        }
        meter.finish(name)
    } else {
        // Pass 1 (only when needed): infer one schema from all samples, streaming; it also
        // counts them, for the compression sample. Without it the lines are counted.
        let (schema, records) = match given_schema {
            None if needs_schema => {
                let mut inf = wirebench_core::schema::Inferrer::default();
                let mut n = 0u64;
                let mut stream = SampleStream::open(&args.inputs.samples).map_err(sample_error)?;
                // Parsed on every core, inferred in input order (the same schema as one by one).
                while let Some(batch) = raw_batch(&mut stream)? {
                    for p in parse_parallel(&batch)? {
                        inf.add(&p.value);
                        n += 1;
                    }
                }
                (inf.finish(), n)
            }
            given => {
                let sampled = policy == Compress::Sample || rt_policy == Compress::Sample;
                let n = if sampled { count_samples(&args.inputs.samples)? } else { 0 };
                (
                    given.unwrap_or(Schema {
                        tag: "wirebench-schema/1".into(),
                        root: wirebench_core::Type::Any,
                        native: None,
                        proto: None,
                    }),
                    n,
                )
            }
        };
        let mut meter =
            sampled(SizeMeter::new(codecs, SchemaSource::Fixed(schema), args.per_record), policy, rt_policy, records);
        let files = corpus::expand_paths(&args.inputs.samples).map_err(sample_error)?;
        meter.add_input_bytes(files.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum());
        // Bounded batches keep memory flat and let the meter parse and measure on every core;
        // the next batch is read while one is measured.
        let mut stream = SampleStream::open(&args.inputs.samples).map_err(sample_error)?;
        std::thread::scope(|scope| -> Result<(), PartError> {
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            scope.spawn(move || loop {
                let next = raw_batch(&mut stream);
                let last = !matches!(next, Ok(Some(_)));
                if tx.send(next).is_err() || last {
                    break;
                }
            });
            // Dropping `rx` on an error ends the reader at its next send.
            while let Some(batch) = rx.recv().expect("sample reader ended early")? {
                meter.add_raw_batch(&batch).map_err(sample_error)?;
            }
            Ok(())
        })?;
        meter.finish("samples")
    };
    if args.held_out() {
        section.held_out = Some(measure_held_out(args, &all_codecs, held_out_schema.as_ref())?);
    }
    Ok((section, config))
}

/// The next samples as read (at most [`SAMPLE_BATCH`]); `None` at the end.
fn raw_batch(stream: &mut SampleStream) -> Result<Option<Vec<RawSample>>, PartError> {
    let mut batch = Vec::with_capacity(SAMPLE_BATCH);
    while batch.len() < SAMPLE_BATCH {
        match stream.next_raw() {
            Some(r) => batch.push(r.map_err(sample_error)?),
            None => break,
        }
    }
    Ok((!batch.is_empty()).then_some(batch))
}

/// Parse samples on every core; the first that is not JSON, in input order, is the error.
fn parse_parallel(batch: &[RawSample]) -> Result<Vec<wirebench_core::corpus::Payload>, PartError> {
    let per = batch.len().div_ceil(crate::size::worker_threads()).max(256);
    let parsed: Vec<Vec<_>> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            batch.chunks(per).map(|c| scope.spawn(move || c.iter().map(RawSample::parse).collect())).collect();
        handles.into_iter().map(|h| h.join().expect("parse worker panicked")).collect()
    });
    parsed.into_iter().flatten().map(|r| r.map_err(sample_error)).collect()
}

/// How many samples the files hold: a `.json` file one, an NDJSON file one per non-blank line
/// (counted without parsing; only the compression sample's stride depends on it).
fn count_samples(paths: &[PathBuf]) -> Result<u64, PartError> {
    let mut n = 0u64;
    for f in corpus::expand_paths(paths).map_err(sample_error)? {
        if f.extension().is_some_and(|e| e == "json") {
            n += 1;
            continue;
        }
        // Streamed in blocks, so memory stays flat whatever the file's size.
        use std::io::Read;
        let io = |e: std::io::Error| PartError::bad(format!("{}: {e}", f.display()));
        let mut file = std::fs::File::open(&f).map_err(io)?;
        let mut block = vec![0u8; 1 << 16];
        let mut blank = true;
        loop {
            let got = file.read(&mut block).map_err(io)?;
            if got == 0 {
                break;
            }
            for &b in &block[..got] {
                if b == b'\n' {
                    n += u64::from(!blank);
                    blank = true;
                } else if !b.is_ascii_whitespace() {
                    blank = false;
                }
            }
        }
        n += u64::from(!blank);
    }
    Ok(n)
}

/// The `[size]` part.
pub struct SizePart;

impl Part for SizePart {
    const NAME: &'static str = "size";
    type Options = SizeOpts;
    type Section = SizeSection;

    fn validate(opts: &SizeOpts) -> Result<(), PartError> {
        validate(opts)
    }

    fn run(opts: &SizeOpts) -> Result<SizeSection, PartError> {
        validate(opts)?;
        measure(opts).map(|(section, _)| section)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn samples_are_counted_by_non_blank_line_and_json_file() {
        let dir = tempfile::tempdir().unwrap();
        let nd = dir.path().join("a.ndjson");
        // Blank and whitespace-only lines do not count; the last line has no newline.
        std::fs::write(&nd, "{\"a\":1}\n\n  \t\n{\"a\":2}\r\n{\"a\":3}").unwrap();
        let one = dir.path().join("b.json");
        std::fs::write(&one, "[1,\n2]\n").unwrap();
        assert_eq!(super::count_samples(std::slice::from_ref(&nd)).unwrap(), 3);
        assert_eq!(super::count_samples(&[nd, one]).unwrap(), 4);
        // A file longer than one read block.
        let big = dir.path().join("c.ndjson");
        std::fs::write(&big, "{\"k\":\"0123456789\"}\n".repeat(10_000)).unwrap();
        assert_eq!(super::count_samples(&[big]).unwrap(), 10_000);
    }
}
