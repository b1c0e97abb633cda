//! The wirebench command line: thin wiring of the core, codec, measurement and report crates.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use wirebench_codecs::{Codec, CodecError, SchemaUse};
use wirebench_core::corpus::{self, SampleStream};
use wirebench_core::results::{Machine, Provenance, Results};
use wirebench_core::{Schema, Value};
use wirebench_measure::size::{SchemaSource, SizeMeter};
use wirebench_report::Output;

#[derive(Parser)]
#[command(name = "wirebench", version, about = "How many bytes, how fast, over which link: wire formats measured reproducibly")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Encoded size per payload and format (raw, zstd, deflate) with round-trip fidelity.
    Size(SizeArgs),
    /// Encode a JSON value (file or stdin) in one format; the bytes go to stdout.
    Encode(CodecArgs),
    /// Decode bytes (file or stdin) of one format; JSON goes to stdout.
    Decode(CodecArgs),
    /// List the codecs: library and version, schema use, fidelity notes.
    Codecs {
        #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
        output: OutputArg,
    },
    /// Infer a schema from JSON/NDJSON samples and print it (or write it with --out).
    Schema {
        /// Sample files or directories (.json: one sample; .ndjson/.jsonl: one per line).
        #[arg(required = true)]
        samples: Vec<PathBuf>,
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct SizeArgs {
    /// A built-in corpus (default: pson-paper).
    #[arg(long, conflicts_with = "samples")]
    corpus: Option<String>,
    /// Sample files or directories (.json: one sample; .ndjson/.jsonl: one per line), streamed.
    #[arg(long, num_args = 1..)]
    samples: Vec<PathBuf>,
    /// Comma-separated codec ids (default: all). See `wirebench codecs`.
    #[arg(long, short = 'f', value_delimiter = ',')]
    formats: Vec<String>,
    /// Schema for the schema-driven codecs (default: inferred from the samples).
    #[arg(long)]
    schema: Option<PathBuf>,
    /// Keep one row per sample (default for --samples: aggregates only, flat memory).
    #[arg(long)]
    per_record: bool,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    output: OutputArg,
    /// Also write the results file (JSON, the one results schema) here, atomically.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
struct CodecArgs {
    /// The codec id (see `wirebench codecs`).
    #[arg(long, short = 'f')]
    format: String,
    /// Schema file for schema-driven codecs (encode infers one from the input when omitted).
    #[arg(long)]
    schema: Option<PathBuf>,
    /// Input file (default: stdin).
    input: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum OutputArg {
    Table,
    Md,
    Csv,
    Json,
}

impl From<OutputArg> for Output {
    fn from(o: OutputArg) -> Output {
        match o {
            OutputArg::Table => Output::Table,
            OutputArg::Md => Output::Markdown,
            OutputArg::Csv => Output::Csv,
            OutputArg::Json => Output::Json,
        }
    }
}

/// An error caused by the user's input: exit code 2.
#[derive(Debug)]
struct BadInput(String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

fn bad(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(BadInput(msg.into()))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            let line = chain.join(": ").replace('\n', " ");
            let stderr = std::io::stderr();
            if stderr.is_terminal() {
                eprintln!("\x1b[31merror:\x1b[0m {line}");
            } else {
                eprintln!("error: {line}");
            }
            if e.chain().any(|c| c.is::<BadInput>()) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Size(args) => size(args),
        Command::Encode(args) => encode(args),
        Command::Decode(args) => decode(args),
        Command::Codecs { output } => codecs(output.into()),
        Command::Schema { samples, out } => schema(&samples, out.as_deref()),
    }
}

fn find_codec(id: &str) -> Result<&'static dyn Codec> {
    wirebench_codecs::find(id)
        .ok_or_else(|| bad(format!("unknown format {id:?} (known: {})", wirebench_codecs::ids())))
}

fn read_schema(path: &Path) -> Result<Schema> {
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    Schema::from_json_str(&text)
        .map_err(|e| bad(format!("{}:{}:{}: not a wirebench schema: {e}", path.display(), e.line(), e.column())))
}

fn read_input(path: Option<&Path>) -> Result<(String, Vec<u8>)> {
    match path {
        Some(p) => {
            let bytes = std::fs::read(p).map_err(|e| bad(format!("{}: {e}", p.display())))?;
            Ok((p.display().to_string(), bytes))
        }
        None => {
            let mut bytes = Vec::new();
            std::io::stdin().read_to_end(&mut bytes).context("reading stdin")?;
            Ok(("<stdin>".into(), bytes))
        }
    }
}

/// Write all of `bytes` to stdout; a closed pipe is not an error.
fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing stdout"),
    }
}

fn codec_error(name: &str, codec: &dyn Codec, e: CodecError) -> anyhow::Error {
    bad(format!("{name}: {}: {e}", codec.info().id))
}

fn encode(args: CodecArgs) -> Result<()> {
    let codec = find_codec(&args.format)?;
    let schema = args.schema.as_deref().map(read_schema).transpose()?;
    let (name, bytes) = read_input(args.input.as_deref())?;
    let text = std::str::from_utf8(&bytes).map_err(|e| bad(format!("{name}: input is not UTF-8 text (at byte {})", e.valid_up_to())))?;
    let value = Value::from_json_str(text).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        bad(format!("{name}:{}:{}: {msg}", e.line(), e.column()))
    })?;
    let schema = match (schema, codec.info().schema) {
        (Some(s), _) => Some(s),
        (None, SchemaUse::Required) => Some(Schema::infer([&value])),
        (None, _) => None,
    };
    let mut out = Vec::new();
    codec.encode(&value, schema.as_ref(), &mut out).map_err(|e| codec_error(&name, codec, e))?;
    write_stdout(&out)
}

fn decode(args: CodecArgs) -> Result<()> {
    let codec = find_codec(&args.format)?;
    let schema = args.schema.as_deref().map(read_schema).transpose()?;
    if schema.is_none() && codec.info().schema == SchemaUse::Required {
        return Err(bad(format!("{} needs --schema FILE to decode (see `wirebench schema`)", codec.info().id)));
    }
    let (name, bytes) = read_input(args.input.as_deref())?;
    let value = codec.decode(&bytes, schema.as_ref()).map_err(|e| codec_error(&name, codec, e))?;
    let mut text = value.to_json_string();
    text.push('\n');
    write_stdout(text.as_bytes())
}

fn codecs(output: Output) -> Result<()> {
    if output == Output::Json {
        let list: Vec<serde_json::Value> = wirebench_codecs::registry()
            .iter()
            .map(|c| {
                let i = c.info();
                serde_json::json!({
                    "id": i.id, "format": i.format, "library": i.library,
                    "library_version": i.library_version(), "schema": i.schema,
                    "media_type": i.media_type, "fidelity_notes": i.fidelity_notes,
                })
            })
            .collect();
        return write_stdout((serde_json::to_string_pretty(&list)? + "\n").as_bytes());
    }
    let mut t = wirebench_report::table::Table::new("Codecs", &["id", "format", "library", "version", "schema", "fidelity notes"]);
    for c in wirebench_codecs::registry() {
        let i = c.info();
        t.push(vec![
            i.id.into(),
            i.format.into(),
            i.library.into(),
            i.library_version().into(),
            format!("{:?}", i.schema).to_lowercase(),
            i.fidelity_notes.join("; "),
        ]);
    }
    let text = match output {
        Output::Markdown => t.to_markdown(),
        Output::Csv => {
            let mut s = wirebench_report::csv::record(&t.headers);
            for r in &t.rows {
                s.push_str(&wirebench_report::csv::record(r));
            }
            s
        }
        _ => t.to_text(),
    };
    write_stdout(text.as_bytes())
}

fn sample_error(e: corpus::SampleError) -> anyhow::Error {
    bad(e.to_string())
}

fn schema(samples: &[PathBuf], out: Option<&Path>) -> Result<()> {
    let mut inf = wirebench_core::schema::Inferrer::default();
    for item in SampleStream::open(samples).map_err(sample_error)? {
        inf.add(&item.map_err(sample_error)?.value);
    }
    let text = inf.finish().to_json_pretty() + "\n";
    match out {
        Some(p) => wirebench_core::results::write_atomic(p, text.as_bytes()).with_context(|| format!("writing {}", p.display())),
        None => write_stdout(text.as_bytes()),
    }
}

fn provenance(seed: u64) -> Provenance {
    let mut crates: Vec<(String, String)> =
        wirebench_codecs::CRATE_VERSIONS.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
    crates.sort();
    Provenance {
        wirebench_version: env!("CARGO_PKG_VERSION").into(),
        git_commit: env!("WIREBENCH_GIT_COMMIT").into(),
        rustc: env!("WIREBENCH_RUSTC").into(),
        crates,
        machine: Machine::detect(),
        command: std::env::args().collect(),
        started_at: now_rfc3339(),
        seed,
    }
}

/// The current UTC time as RFC 3339, from the system clock (no time crate needed).
fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Samples measured per batch when streaming files.
const SAMPLE_BATCH: usize = 1024;

fn size(args: SizeArgs) -> Result<()> {
    let codecs: Vec<&'static dyn Codec> = if args.formats.is_empty() {
        wirebench_codecs::registry().to_vec()
    } else {
        args.formats.iter().map(|f| find_codec(f.trim())).collect::<Result<_>>()?
    };
    let given_schema = args.schema.as_deref().map(read_schema).transpose()?;
    if let Some(out) = &args.out {
        check_writable(out)?;
    }
    let needs_schema = codecs.iter().any(|c| c.info().schema != SchemaUse::None);
    let config = serde_json::json!({
        "measurement": "size",
        "corpus": args.corpus,
        "samples": args.samples,
        "formats": codecs.iter().map(|c| c.info().id).collect::<Vec<_>>(),
        "schema": args.schema,
        "per_record": args.per_record,
        "zstd_level": wirebench_measure::compress::ZSTD_LEVEL,
        "deflate_level": wirebench_measure::compress::DEFLATE_LEVEL,
    });
    let section = if args.samples.is_empty() {
        let name = args.corpus.as_deref().unwrap_or("pson-paper");
        let corpus = corpus::builtin(name).ok_or_else(|| {
            let known: Vec<_> = corpus::BUILTIN.iter().map(|c| c.name).collect();
            bad(format!("unknown corpus {name:?} (built in: {})", known.join(", ")))
        })?;
        let source = match given_schema {
            Some(s) => SchemaSource::Fixed(s),
            None => SchemaSource::PerPayload,
        };
        let mut meter = SizeMeter::new(codecs, source, true);
        for p in corpus.payloads() {
            meter.add(&p);
        }
        meter.finish(name)
    } else {
        // Pass 1 (only when needed): infer one schema from all samples, streaming.
        let schema = match given_schema {
            Some(s) => s,
            None if needs_schema => {
                let mut inf = wirebench_core::schema::Inferrer::default();
                for item in SampleStream::open(&args.samples).map_err(sample_error)? {
                    inf.add(&item.map_err(sample_error)?.value);
                }
                inf.finish()
            }
            None => Schema { tag: "wirebench-schema/1".into(), root: wirebench_core::Type::Any },
        };
        let mut meter = SizeMeter::new(codecs, SchemaSource::Fixed(schema), args.per_record);
        let files = corpus::expand_paths(&args.samples).map_err(sample_error)?;
        meter.add_input_bytes(files.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum());
        // Bounded batches keep memory flat and let the meter use every core.
        let mut batch = Vec::with_capacity(SAMPLE_BATCH);
        for item in SampleStream::open(&args.samples).map_err(sample_error)? {
            batch.push(item.map_err(sample_error)?);
            if batch.len() == SAMPLE_BATCH {
                meter.add_batch(&batch);
                batch.clear();
            }
        }
        meter.add_batch(&batch);
        meter.finish("samples")
    };
    let mut results = Results::new(provenance(0), config);
    results.size = Some(section);
    if let Some(out) = &args.out {
        results.write_atomic(out).map_err(|e| bad(e.to_string()))?;
    }
    write_stdout(wirebench_report::size::render(&results, args.output.into()).as_bytes())
}

/// Fail early (before measuring) when the results file cannot be written.
fn check_writable(path: &Path) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(bad(format!("{}: directory {} does not exist", path.display(), dir.display())));
    }
    if path.is_dir() {
        return Err(bad(format!("{}: is a directory", path.display())));
    }
    Ok(())
}
