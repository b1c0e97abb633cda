//! The wirebench command line: thin wiring of the core, codec, measurement and report crates.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use wirebench_report::Output;

mod bmf;
mod codec_cmds;
mod common;
mod compare;
mod dds;
mod device;
mod evolve;
mod fixed_random;
mod fleet;
mod lab;
mod micropython;
mod mqtt;
mod parts;
mod recommend;
mod setup;
mod size;
mod speed;
mod study;
mod transcode;
mod verify;

use common::BadInput;

/// Counts allocations for the speed measurement (off except while counting).
#[global_allocator]
static ALLOC: wirebench_measure::alloc::CountingAlloc = wirebench_measure::alloc::CountingAlloc;

/// `--version`: the version, the git commit it was built from, the compiler, and which optional
/// parts this build has (DDS needs Cyclone DDS at build time).
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let dds = match wirebench_dds::available() {
        Ok(()) => format!("dds (Cyclone DDS {})", wirebench_dds::cyclone_version()),
        Err(why) => format!("no dds: {why}"),
    };
    version_text(parts::REGISTRY, &dds)
});

/// The `--version` text with the parts of `registry` (DDS named with its state).
fn version_text(registry: &[&dyn parts::StudyPart], dds: &str) -> String {
    let parts: Vec<&str> = parts::names(registry).into_iter().filter(|p| *p != "dds").collect();
    format!(
        "{} (commit {}, {})\nparts: {}; {dds}",
        env!("CARGO_PKG_VERSION"),
        env!("WIREBENCH_GIT_COMMIT"),
        env!("WIREBENCH_RUSTC"),
        parts.join(", ")
    )
}

#[derive(Parser)]
#[command(name = "wirebench", version, long_version = VERSION.as_str(), about = "How many bytes, how fast, over which link: wire formats measured reproducibly")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print terminal tables whole, however wide (by default a table wider than the terminal
    /// is printed in parts that fit, each with the row names).
    #[arg(long, global = true)]
    wide: bool,
    /// Colour and bold on the terminal: `auto` (on a terminal, unless NO_COLOR is set),
    /// `always` or `never`.
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,
    /// `run`: print every table of every part whole on the terminal (by default each part
    /// prints its first rows and says where the rest is: report.md, report.html, results.json).
    #[arg(long, short = 'v', global = true)]
    verbose: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Whether a stream may be coloured: `--color`, then NO_COLOR (no-color.org), then whether it
/// is a terminal.
fn color_on(choice: ColorArg, terminal: bool) -> bool {
    match choice {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// The width terminal tables fit: `COLUMNS` when set, else the terminal's (stdout), else none
/// (output to a pipe or file is never split); none with `--wide`.
fn text_width(wide: bool) -> Option<usize> {
    if wide {
        return None;
    }
    if let Some(c) = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()).filter(|&c| c >= 20) {
        return Some(c);
    }
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let mut ws = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: TIOCGWINSZ fills a winsize; fd 1 is this process's stdout.
    let rc = unsafe { libc::ioctl(1, libc::TIOCGWINSZ, &mut ws) };
    (rc == 0 && ws.ws_col >= 20).then_some(ws.ws_col as usize)
}

#[derive(Subcommand)]
enum Command {
    /// Encoded size per payload and format (raw, zstd, deflate) with round-trip fidelity.
    Size(SizeArgs),
    /// Encode and decode time per operation, allocations, optional instruction counts.
    Speed(SpeedArgs),
    /// Compare two speed results files: the change per case with its confidence interval.
    Compare(CompareArgs),
    /// Run a study file: every part it names, one results file, Markdown and HTML reports.
    Run(RunArgs),
    /// Render the reports of a results file again (terminal, Markdown or HTML).
    Report(ReportArgs),
    /// Rerun the study a results file records and say, figure by figure, whether it reproduces.
    Verify(verify::VerifyArgs),
    /// OPC UA PubSub over MQTT: throughput with delivery, echo RTT, through an embedded or external broker.
    Mqtt(mqtt::Args),
    /// The two-host network lab (namespaces, veth, tbf, nftables loss): up, down, status.
    Lab(lab::Args),
    /// HTTP POST throughput of encoded bodies against our validating collector.
    Http(parts::PartArgs<wirebench_net::study::http::HttpOpts>),
    /// Fixed-cadence TCP request/response: size, RTT, jitter, (de)serialization time.
    Tcp(parts::PartArgs<wirebench_net::study::tcp::TcpOpts>),
    /// Analytic link models: bytes on air, airtime, messages per day per format.
    Link(parts::PartArgs<wirebench_net::study::link::LinkOpts>),
    /// DDS over real RTPS (Cyclone DDS): latency and throughput, CDR vs JSON marshalling.
    Dds(dds::Args),
    /// Schema evolution: which format keeps old and new devices talking (both directions), what it costs in bytes.
    Evolve(evolve::Args),
    /// Rank formats for given constraints (link, byte budget, MCU class), with reasons.
    Recommend(recommend::Args),
    /// The device lab: cycles, µs, flash, RAM and stack of each library on simulated AVR (UNO) and Cortex-M0+/M4.
    Device(DeviceArgs),
    /// Energy per message (CPU / radio / sleep) and battery days per library × MCU × radio.
    Energy(parts::PartArgs<wirebench_net::energy::EnergyOpts>),
    /// The Python device codecs under MicroPython: bytecode per module, heap per message (seed 000).
    Micropython(micropython::Args),
    /// A fleet of simulated devices over MQTT: delivery, latency, uplink bytes and broker cost per format.
    Fleet(fleet::Args),
    /// rumqttd for a fleet, in a process of its own (started by `fleet --broker embedded`).
    #[command(name = "fleet-broker", hide = true)]
    FleetBroker {
        #[arg(long)]
        max_connections: u64,
        #[arg(long, default_value_t = 1)]
        addresses: u8,
    },
    /// Combine the shard files of one fleet (`fleet --shard I/N --out FILE`) into one results file.
    Merge(fleet::MergeArgs),
    /// OPC UA PubSub NetworkMessages between UADP and the JSON mapping (either way).
    Transcode(TranscodeArgs),
    /// Encode a JSON value (file or stdin) in one format; the bytes go to stdout.
    Encode(CodecArgs),
    /// Decode bytes (file or stdin) of one format; JSON goes to stdout.
    Decode(CodecArgs),
    /// List the codecs: library and version, schema use, fidelity notes.
    Codecs {
        #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
        output: OutputArg,
    },
    /// What each optional part needs (device lab, DDS, mosquitto, netns lab, ...), what is
    /// here, and `--install` for the rest (as root, Debian/Ubuntu).
    Setup(setup::Args),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell.
    Completions { shell: clap_complete::Shell },
    /// Print the man page (roff) of wirebench: `wirebench man > wirebench.1`; with `--dir DIR`,
    /// write wirebench.1 and one page per subcommand (wirebench-size.1, ...) into DIR.
    Man {
        /// Write every page into this folder (created if missing) instead of printing one.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Infer a schema from JSON/NDJSON samples and print it (or write it with --out).
    Schema {
        /// Sample files or directories (.json: one sample; .ndjson/.jsonl: one per line).
        #[arg(required = true)]
        samples: Vec<PathBuf>,
        #[arg(long)]
        out: Option<PathBuf>,
        /// Every float field as float32 (the tightening `recommend` suggests when nothing fits).
        #[arg(long)]
        float32: bool,
    },
}

#[derive(clap::Args)]
struct SizeArgs {
    #[command(flatten)]
    opts: size::SizeOpts,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    output: OutputArg,
    /// Also write the results file (JSON, the one results schema) here, atomically.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Refuse samples nested deeper than this many levels (maps, arrays, records; 1 to 1024).
    #[arg(long, default_value_t = wirebench_core::value::DEFAULT_MAX_DEPTH as u64, value_parser = clap::value_parser!(u64).range(1..=1024))]
    max_depth: u64,
}

#[derive(clap::Args)]
struct SpeedArgs {
    #[command(flatten)]
    opts: speed::SpeedOpts,
    #[arg(long, hide = true)]
    callgrind_child: bool,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    output: OutputArg,
    /// Also write the results file here, atomically.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// The study file (TOML), e.g. studies/seed001-pson-paper.toml. Without one, `--samples`
    /// runs the size, speed and link parts on your payloads.
    #[arg(required_unless_present = "samples", long_help = parts::study_help())]
    study: Option<PathBuf>,
    /// Your JSON/NDJSON samples (files or directories): the parts that take inputs measure them
    /// instead of their own messages (the list: `run --help`).
    #[arg(long, num_args = 1.., long_help = parts::inputs_help("Your JSON/NDJSON samples (files or directories): these parts measure them instead of their own messages (schema inferred unless --schema)"))]
    samples: Vec<PathBuf>,
    /// The schema both ends share (`--schema`, `--type`, `-I`), for every part that takes
    /// inputs, instead of each part's own or inferred one.
    #[command(flatten)]
    schema: wirebench_measure::study::inputs::SchemaArgs,
    /// Where the results file and the reports go (default: out/<study name>). A previous run
    /// there is kept: moved aside to <folder>.<its start time>, unless --force.
    #[arg(long = "out-dir", visible_alias = "out", value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace a previous run in the output folder instead of keeping it.
    #[arg(long)]
    force: bool,
    /// Run the study at the reduced scale its `[ci]` table declares (fewer repetitions, shorter
    /// runs, every part and code path kept): what the test suite runs. Recorded in the results.
    #[arg(long)]
    ci: bool,
    /// The most bytes one encoded message may take: the run answers first with the formats
    /// ranked for it (from the size part's measurements).
    #[arg(long)]
    budget: Option<u64>,
    /// The link the messages go over (lora-sf9, nb-iot, sigfox, ble-dle, …): the answer ranks by
    /// its airtime and frames.
    #[arg(long)]
    link: Option<String>,
    /// The device class (8bit/avr, m0/cortex-m0plus, m4/cortex-m4, esp32, linux): the answer
    /// keeps the formats with a library for it. For avr, m0 and m4 it is ranked again at the end
    /// with the device lab's measurements (the study's [device] part, else a lab run on the
    /// largest message).
    #[arg(long)]
    mcu: Option<String>,
    /// With --mcu: rank by energy per message on this radio (lora-sf7..lora-sf12, nb-iot, ble).
    /// Default: the study's [energy] radio when it names one.
    #[arg(long, requires = "mcu")]
    radio: Option<String>,
    /// With --radio: time between messages (default: the study's [energy] cadence, else 10m).
    #[arg(long, requires = "radio")]
    every: Option<String>,
    /// With --radio: battery, capacity[@voltage] (default: the study's [energy] battery, else 2400mAh@3.6V).
    #[arg(long, requires = "radio")]
    battery: Option<String>,
    /// No schema is shared by both ends: the answer leaves out schema-driven formats.
    #[arg(long)]
    schemaless: bool,
    /// The answer leaves out formats whose round trip changes a value.
    #[arg(long)]
    exact: bool,
}

#[derive(clap::Args)]
struct TranscodeArgs {
    /// The output: `uadp` (from JSON) or `json` (from UADP).
    #[arg(long)]
    to: String,
    /// With --to json: the non-reversible form (untyped values).
    #[arg(long)]
    nonreversible: bool,
    /// With --to uadp: read the JSON PublisherId as this type (Byte, UInt16, UInt32, UInt64, String).
    #[arg(long)]
    publisher_id_type: Option<String>,
    /// Input file (default: stdin).
    input: Option<PathBuf>,
    /// Refuse input nested deeper than this many levels (maps, arrays, records; 1 to 1024).
    #[arg(long, default_value_t = wirebench_core::value::DEFAULT_MAX_DEPTH as u64, value_parser = clap::value_parser!(u64).range(1..=1024))]
    max_depth: u64,
}

#[derive(clap::Args)]
struct DeviceArgs {
    #[command(flatten)]
    opts: wirebench_device::part::DeviceOpts,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    output: OutputArg,
    /// Also write the results file here, atomically.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
struct ReportArgs {
    /// A results file written by `--out` or `run`.
    results: PathBuf,
    /// table, md, csv, json, html or bmf. CSV is one tidy table (a `table` column, then the union
    /// of the tables' columns); bmf is the speed, size and device figures in Bencher Metric
    /// Format (value, lower_value, upper_value), for CI dashboards.
    #[arg(long, short = 'o', default_value = "table")]
    output: String,
    /// With -o csv: write one CSV file per table into this folder instead (size.csv, tcp.2.csv, ...).
    #[arg(long)]
    out: Option<PathBuf>,
    /// With -o table: the summary `run` prints (each part's first rows), not every table.
    #[arg(long)]
    summary: bool,
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
    /// Exit 1 when a case is slower by more than PCT percent with its whole confidence interval
    /// above PCT (a regression beyond noise); exit 3, no verdict, when the host reference itself
    /// moved by more than --threshold between the runs (a busy or different host).
    #[arg(long, value_name = "PCT")]
    fail_on_regression: Option<f64>,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    output: OutputArg,
}

#[derive(clap::Args)]
struct CodecArgs {
    /// The codec id (see `wirebench codecs`).
    #[arg(long, short = 'f')]
    format: String,
    /// Schema file for schema-driven codecs (encode infers one from the input when omitted).
    /// For cdr-xcdr1/cdr-xcdr2 an OMG IDL file (.idl) drives the CDR codec directly: every
    /// IDL feature it reads (enums, unions, arrays, bounded types, @key, @optional, @id,
    /// extensibility) is encoded as XCDR says.
    #[arg(long)]
    schema: Option<PathBuf>,
    /// The type of the schema file to use (default: the last struct or union of an IDL file).
    #[arg(long = "type", value_name = "NAME")]
    type_name: Option<String>,
    /// Where `#include`d IDL files and a .proto schema's imports are looked up (after the
    /// including file's own folder), repeatable.
    #[arg(short = 'I', long = "include", visible_alias = "proto-path", value_name = "DIR")]
    include: Vec<PathBuf>,
    /// With a .proto schema: skip JSON fields the message does not have (default: refused).
    #[arg(long)]
    ignore_unknown_fields: bool,
    /// CDR byte order (cdr-xcdr1/cdr-xcdr2 with an IDL schema).
    #[arg(long, value_enum, default_value_t = EndianArg::Little)]
    endian: EndianArg,
    /// CDR without the 4-byte encapsulation header (cdr-xcdr1/cdr-xcdr2 with an IDL schema).
    #[arg(long)]
    headerless: bool,
    /// Input file (default: stdin).
    input: Option<PathBuf>,
    /// Refuse input nested deeper than this many levels (maps, arrays, records; 1 to 1024).
    #[arg(long, default_value_t = wirebench_core::value::DEFAULT_MAX_DEPTH as u64, value_parser = clap::value_parser!(u64).range(1..=1024))]
    max_depth: u64,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum EndianArg {
    Little,
    Big,
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

/// How many rows of each table `run` prints on the terminal without `-v`.
const BRIEF_ROWS: usize = 6;

fn main() -> ExitCode {
    // The callgrind child counts instructions: fixed hash seeds make the counts repeat exactly.
    if std::env::args_os().any(|a| a == "--callgrind-child") {
        fixed_random::enable();
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help, --version (stdout, exit 0); no subcommand at all (the help, exit 2).
        Err(e) if !e.use_stderr() || e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            e.exit()
        }
        Err(e) => {
            // A usage error is bad input, exit code 2: clap's own message with its tips and
            // possible values, on one line, control bytes escaped.
            eprintln!("{}", wirebench_codecs::escape_controls(&usage_error_line(&e.render().to_string())));
            return ExitCode::from(2);
        }
    };
    wirebench_report::table::set_text_width(text_width(cli.wide));
    let summary_report = matches!(&cli.command, Command::Report(a) if a.output == "table" && a.summary);
    if (matches!(cli.command, Command::Run(_)) && !cli.verbose) || summary_report {
        wirebench_report::table::set_brief_rows(Some(BRIEF_ROWS));
    }
    wirebench_report::table::set_color(color_on(cli.color, std::io::stdout().is_terminal()));
    let color_errors = color_on(cli.color, std::io::stderr().is_terminal());
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let line = common::error_line(&e);
            // Colour per --color: by default only on a terminal, never when NO_COLOR is set.
            if color_errors {
                eprintln!("\x1b[31merror:\x1b[0m {line}");
            } else {
                eprintln!("error: {line}");
            }
            if let Some(c) = e.chain().find_map(|c| c.downcast_ref::<common::CheckFailed>()) {
                ExitCode::from(c.0)
            } else if e.chain().any(|c| c.is::<BadInput>()) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// clap's rendered usage error as one line: the message, then its context (possible values)
/// and tips (`a similar subcommand exists: 'size'`), without the usage and `--help` lines.
fn usage_error_line(rendered: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    for line in rendered.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            continue;
        }
        let line = line.strip_prefix("tip: ").unwrap_or(line);
        parts.push(line.to_string());
    }
    if parts.is_empty() {
        return "error: invalid arguments".into();
    }
    let mut out = parts.remove(0);
    for p in parts {
        out.push_str(if p.starts_with('[') { " " } else { "; " });
        out.push_str(&p);
    }
    out
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Size(args) => size::size(args),
        Command::Speed(args) => speed::speed(args),
        Command::Compare(args) => compare::compare(args),
        Command::Run(args) => study::run(args),
        Command::Report(args) => study::report(args),
        Command::Verify(args) => verify::run(args),
        Command::Mqtt(args) => mqtt::run(args),
        Command::Lab(args) => lab::run(args),
        Command::Http(args) => parts::run_command(&parts::HTTP, args),
        Command::Tcp(args) => parts::run_command(&parts::TCP, args),
        Command::Link(args) => parts::run_command(&parts::LINK, args),
        Command::Dds(args) => dds::run(args),
        Command::Recommend(args) => recommend::run(args),
        Command::Evolve(args) => evolve::run(args),
        Command::Device(args) => device::device(args),
        Command::Energy(args) => parts::run_command(&parts::ENERGY, args),
        Command::Micropython(args) => micropython::run(args),
        Command::Fleet(args) => fleet::run(args),
        Command::Merge(args) => fleet::merge(args),
        Command::FleetBroker { max_connections, addresses } => {
            wirebench_mqtt::fleet::serve_child_broker(max_connections, addresses).map_err(|e| anyhow::anyhow!("{e}"))
        }
        Command::Transcode(args) => transcode::transcode(args),
        Command::Encode(args) => codec_cmds::encode(args),
        Command::Decode(args) => codec_cmds::decode(args),
        Command::Codecs { output } => codec_cmds::codecs(output.into()),
        Command::Schema { samples, out, float32 } => codec_cmds::schema(&samples, out.as_deref(), float32),
        Command::Setup(args) => setup::run(args),
        Command::Completions { shell } => {
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut <Cli as clap::CommandFactory>::command(), "wirebench", &mut text);
            common::write_stdout(&text)
        }
        Command::Man { dir: Some(dir) } => {
            std::fs::create_dir_all(&dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
            clap_mangen::generate_to(<Cli as clap::CommandFactory>::command(), &dir)
                .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
            let n =
                std::fs::read_dir(&dir)?.flatten().filter(|e| e.path().extension().is_some_and(|x| x == "1")).count();
            eprintln!("{n} man pages in {}", dir.display());
            Ok(())
        }
        Command::Man { dir: None } => {
            let mut text = Vec::new();
            clap_mangen::Man::new(<Cli as clap::CommandFactory>::command()).render(&mut text)?;
            common::write_stdout(&text)
        }
    }
}
