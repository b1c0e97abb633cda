//! The wirebench command line: thin wiring of the core, codec, measurement and report crates.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use wirebench_report::Output;

mod codec_cmds;
mod common;
mod compare;
mod progress;
mod size;
mod speed;

use common::BadInput;

/// Counts allocations for the speed measurement (off except while counting).
#[global_allocator]
static ALLOC: wirebench_measure::alloc::CountingAlloc = wirebench_measure::alloc::CountingAlloc;

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
    /// Encode and decode time per operation, allocations, optional instruction counts.
    Speed(SpeedArgs),
    /// Compare two speed results files: the change per case with its confidence interval.
    Compare(CompareArgs),
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
struct SpeedArgs {
    /// A built-in corpus (default: pson-paper); typed path where the codec has one.
    #[arg(long, conflicts_with = "samples")]
    corpus: Option<String>,
    /// Sample files or directories; dynamic path, one operation cycles through the records.
    #[arg(long, num_args = 1..)]
    samples: Vec<PathBuf>,
    /// Comma-separated codec ids (default: all).
    #[arg(long, short = 'f', value_delimiter = ',')]
    formats: Vec<String>,
    /// Schema for the schema-driven codecs with --samples (default: inferred).
    #[arg(long)]
    schema: Option<PathBuf>,
    /// The codec ratios are taken against (default: json).
    #[arg(long)]
    baseline: Option<String>,
    /// Samples per case (at least 10).
    #[arg(long, default_value_t = 60)]
    samples_per_case: usize,
    /// Minimum time of one sample, ms.
    #[arg(long, default_value_t = 0.5)]
    sample_ms: f64,
    /// Minimum warm-up per case, ms.
    #[arg(long, default_value_t = 20.0)]
    warmup_ms: f64,
    /// Seed of the case shuffling and the bootstrap.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also count instructions per operation under valgrind callgrind (deterministic).
    #[arg(long)]
    instructions: bool,
    #[arg(long, hide = true)]
    callgrind_child: bool,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    output: OutputArg,
    /// Also write the results file here, atomically.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
struct CompareArgs {
    /// The earlier results file.
    old: PathBuf,
    /// The later results file.
    new: PathBuf,
    /// Changes smaller than this (percent) count as noise.
    #[arg(long, default_value_t = 5.0)]
    threshold: f64,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    output: OutputArg,
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
        Command::Size(args) => size::size(args),
        Command::Speed(args) => speed::speed(args),
        Command::Compare(args) => compare::compare(args),
        Command::Encode(args) => codec_cmds::encode(args),
        Command::Decode(args) => codec_cmds::decode(args),
        Command::Codecs { output } => codec_cmds::codecs(output.into()),
        Command::Schema { samples, out } => codec_cmds::schema(&samples, out.as_deref()),
    }
}

