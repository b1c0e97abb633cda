//! The one results schema every measurement writes and every report reads, with provenance.
//!
//! A results file is JSON: `{"schema":"wirebench-results/1","provenance":{..},"config":{..},
//! "size":{..}}`. Later measurements add sections beside `size`; readers ignore sections they
//! do not know.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fidelity::Fidelity;
use crate::schema::Schema;

/// The tag of the current results schema.
pub const RESULTS_SCHEMA: &str = "wirebench-results/1";

/// A wirebench results file (schema `wirebench-results/1`): provenance, the configuration of
/// the run, and one section per part that ran. Fields are documented in docs/results.md.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(title = "wirebench results")]
pub struct Results {
    /// Always `wirebench-results/1` for files of this layout; a reader refuses other tags.
    #[schemars(schema_with = "schema_tag")]
    pub schema: String,
    /// How the file was made: enough to regenerate it.
    pub provenance: Provenance,
    /// The full configuration of the run (the command's options or the study file).
    pub config: serde_json::Value,
    /// The answer for the run's constraints (`run --budget/--link`): the formats ranked from
    /// the measured sizes, with the reasons; reports show it first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<crate::sections::recommend::Recommendation>,
    /// The encoded-size part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<SizeSection>,
    /// The encode/decode speed part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<SpeedSection>,
    // The link and transport sections, in the order a results file has always listed them.
    /// The DDS part (seed 004).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dds: Option<crate::sections::dds::DdsSection>,
    /// What our C codecs cost on a microcontroller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<crate::sections::device::DeviceSection>,
    /// Energy per message and battery life from the device lab's cycles and the link models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<crate::sections::energy::EnergySection>,
    /// Schema evolution: which format keeps old and new readers and writers talking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evolve: Option<crate::sections::evolve::EvolveSection>,
    /// Many simulated devices over MQTT: delivery, latency, uplink bytes and broker cost per format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<crate::sections::fleet::FleetSection>,
    /// The HTTP POST part (seed 002).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<crate::sections::net::HttpSection>,
    /// The link-model part: bytes on air, airtime, messages per day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<crate::sections::link::LinkSection>,
    /// The Python device codecs under MicroPython: bytecode and heap per message (seed 000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub micropython: Option<crate::sections::micropython::MicroPythonSection>,
    /// The MQTT part (seed 000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mqtt: Option<crate::sections::mqtt::MqttSection>,
    /// The fixed-cadence TCP part (seed 003).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<crate::sections::net::TcpSection>,
    /// Parts of a study that did not finish: the part that failed (with its error) and the
    /// parts after it, which did not run. The sections of the parts before it are kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_parts: Vec<FailedPart>,
    /// Sections this version has no type for (from newer measurements); kept on read and write.
    #[serde(flatten)]
    pub other: std::collections::BTreeMap<String, serde_json::Value>,
}

/// The `schema` field's JSON Schema: the constant tag.
fn schema_tag(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "string", "const": RESULTS_SCHEMA })
}

/// The JSON Schema of results files, generated from the types (shipped as
/// docs/results.schema.json).
pub fn json_schema() -> String {
    let schema = serde_json::to_value(schemars::schema_for!(Results)).expect("a schema serializes");
    serde_json::to_string_pretty(&sorted(schema)).expect("a schema serializes") + "\n"
}

/// Object keys in sorted order at every level, whether or not serde_json keeps insertion order
/// in this build (its `preserve_order` feature is on when some crate of the build asks for it).
fn sorted(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<(String, serde_json::Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            serde_json::Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        serde_json::Value::Array(items) => serde_json::Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// A part of a study that has no section: it failed, or it did not run after another failed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct FailedPart {
    /// The part's name (its table in the study file).
    pub part: String,
    /// The error, or why it did not run.
    pub error: String,
}

/// Where a number came from: enough to regenerate it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Provenance {
    /// The wirebench version that wrote the file.
    pub wirebench_version: String,
    /// The git commit it was built from (`-dirty` when the tree had changes).
    pub git_commit: String,
    /// The compiler that built it.
    pub rustc: String,
    /// `crate name` → version, for every library a measured codec runs on.
    pub crates: Vec<(String, String)>,
    /// The machine the run happened on.
    pub machine: Machine,
    /// The command line that produced the file.
    pub command: Vec<String>,
    /// RFC 3339 UTC time the run started.
    pub started_at: String,
    /// The seed of every random choice of the run (case order, bootstrap).
    pub seed: u64,
}

/// The machine a run happened on.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Machine {
    /// CPU model name (`/proc/cpuinfo`).
    pub cpu_model: String,
    /// Logical CPUs available to the process.
    pub cores: usize,
    /// Kernel release.
    pub kernel: String,
    /// Operating system (`linux`, `macos`, ...).
    pub os: String,
    /// CPU architecture (`x86_64`, `aarch64`, ...).
    pub arch: String,
}

impl Machine {
    /// Read the machine description (Linux `/proc`; `unknown` elsewhere).
    pub fn detect() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| "unknown".into());
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown".into());
        Machine {
            cpu_model,
            cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            kernel,
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
        }
    }
}

/// The encoded-size measurement.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SizeSection {
    /// The corpus name, or `samples` for user files.
    pub corpus: String,
    /// The schema the schema-driven codecs used (given or inferred).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Schema>,
    /// One row per payload × codec (empty when only aggregates were kept).
    pub rows: Vec<SizeRow>,
    /// One row per codec over all payloads.
    pub aggregates: Vec<SizeAggregate>,
    /// Throughput and memory of the run itself.
    pub run: RunStats,
    /// The zstd level the compressed sizes used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zstd_level: Option<i32>,
    /// The deflate level the compressed sizes used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deflate_level: Option<u32>,
    /// With a sampled round trip (`--roundtrip sample`): how many messages were checked besides
    /// the systematic sample because they brought a value class (a kind of value at a place in
    /// the message: an integer past 2^53, a float float32 cannot hold, a string with a control
    /// character …) that no message checked before had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roundtrip_new_classes: Option<u64>,
    /// Held-out sizes with trained dictionaries and deltas (`size --dict-train`, `--dict-split`,
    /// `--dict`, `--delta-key`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_out: Option<crate::sections::held_out::HeldOutSection>,
}

/// The encoded size of one payload in one codec.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SizeRow {
    /// The payload's name (corpus entry, or file and line of a sample).
    pub payload: String,
    /// The codec id (see `wirebench codecs`).
    pub codec: String,
    /// `typed` (derived/generated types) or `dynamic` (schema-directed or schemaless).
    pub path: String,
    /// Encoded bytes; `None` when the codec could not encode the value.
    pub bytes: Option<u64>,
    /// Compact JSON bytes of the same payload (the baseline).
    pub json_bytes: u64,
    /// `bytes ÷ json_bytes`.
    pub ratio_to_json: Option<f64>,
    /// The encoding compressed with zstd (level in the run's config), bytes.
    pub zstd_bytes: Option<u64>,
    /// The encoding compressed with deflate (level in the run's config), bytes.
    pub deflate_bytes: Option<u64>,
    /// What the round trip through the codec kept.
    pub fidelity: Fidelity,
}

/// Totals for one codec over all payloads.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SizeAggregate {
    /// The codec id.
    pub codec: String,
    /// Records measured.
    pub records: u64,
    /// Records the codec encoded (exact or lossy).
    pub encoded: u64,
    /// Encoded bytes of all encoded records.
    pub bytes_total: u64,
    /// The smallest encoded record, bytes.
    pub bytes_min: Option<u64>,
    /// The largest encoded record, bytes.
    pub bytes_max: Option<u64>,
    /// Mean encoded record, bytes.
    pub bytes_mean: Option<f64>,
    /// Compact JSON bytes of the encoded records, for the ratio.
    pub json_bytes_total: u64,
    /// `bytes_total ÷ json_bytes_total`.
    pub ratio_to_json: Option<f64>,
    /// Sum of per-record compressed sizes (of the `compressed` records).
    pub zstd_bytes_total: u64,
    /// Sum of per-record deflate sizes (of the `compressed` records).
    pub deflate_bytes_total: u64,
    /// Encoded records that were also compressed: all of them, a systematic sample (`size
    /// --compress sample`: the compressed totals cover only these) or none. Absent in files
    /// written before sampling: there every encoded record was compressed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressed: Option<u64>,
    /// Records whose round trip was exact.
    pub exact: u64,
    /// Records whose round trip changed a value.
    pub lossy: u64,
    /// Records the codec cannot represent.
    pub unsupported: u64,
    /// Records whose encode or decode failed.
    pub failed: u64,
    /// Encoded records whose round trip was not checked (`size --roundtrip sample|none`); the
    /// fidelity counts above cover the others. Absent when every record was checked.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unchecked: u64,
    /// The first problem seen, if any (lossy, unsupported or failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_issue: Option<String>,
    /// Per-message percentiles of the encoded size, bytes (exact: the sizes are counted, not
    /// sampled); absent in files written before they were kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_p50: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_p90: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_p99: Option<u64>,
    /// How many messages had each encoded size (kept while measuring, for the percentiles).
    #[serde(skip)]
    #[schemars(skip)]
    sizes: std::collections::BTreeMap<u64, u64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl SizeAggregate {
    pub fn new(codec: &str) -> SizeAggregate {
        SizeAggregate { codec: codec.to_string(), ..Default::default() }
    }

    /// Records with compressed sizes (every encoded record in files from before sampling).
    pub fn compressed_records(&self) -> u64 {
        self.compressed.unwrap_or(self.encoded)
    }

    /// Mean compressed size per message, (zstd, deflate) bytes; None without compressed records.
    pub fn compressed_means(&self) -> Option<(f64, f64)> {
        let n = self.compressed_records();
        (n > 0).then(|| (self.zstd_bytes_total as f64 / n as f64, self.deflate_bytes_total as f64 / n as f64))
    }

    /// Whether the compressed totals cover only a sample of the encoded records.
    pub fn compression_sampled(&self) -> bool {
        self.compressed_records() < self.encoded
    }

    /// Fold one row in.
    pub fn add(&mut self, row: &SizeRow) {
        self.records += 1;
        match &row.fidelity {
            Fidelity::Exact => self.exact += 1,
            Fidelity::Lossy { .. } => self.lossy += 1,
            Fidelity::Unsupported { .. } => self.unsupported += 1,
            Fidelity::Failed { .. } => self.failed += 1,
            Fidelity::Unchecked => self.unchecked += 1,
        }
        if self.first_issue.is_none() && !matches!(row.fidelity, Fidelity::Exact | Fidelity::Unchecked) {
            self.first_issue = Some(format!("{}: {}", row.payload, row.fidelity.summary()));
        }
        if let Some(b) = row.bytes {
            self.encoded += 1;
            self.bytes_total += b;
            self.bytes_min = Some(self.bytes_min.map_or(b, |m| m.min(b)));
            self.bytes_max = Some(self.bytes_max.map_or(b, |m| m.max(b)));
            self.json_bytes_total += row.json_bytes;
            self.zstd_bytes_total += row.zstd_bytes.unwrap_or(0);
            self.deflate_bytes_total += row.deflate_bytes.unwrap_or(0);
            *self.compressed.get_or_insert(0) += u64::from(row.zstd_bytes.is_some());
            *self.sizes.entry(b).or_default() += 1;
            self.derive_means();
        }
    }

    /// The mean size and the ratio to JSON, from the totals.
    fn derive_means(&mut self) {
        self.bytes_mean = Some(self.bytes_total as f64 / self.encoded as f64);
        self.ratio_to_json =
            (self.json_bytes_total > 0).then(|| self.bytes_total as f64 / self.json_bytes_total as f64);
    }

    /// Fold in the aggregate of the records that came after this one's (e.g. another thread's
    /// chunk of the same input): the same as adding its rows here, in order.
    pub fn merge(&mut self, later: &SizeAggregate) {
        self.records += later.records;
        self.exact += later.exact;
        self.lossy += later.lossy;
        self.unsupported += later.unsupported;
        self.failed += later.failed;
        self.unchecked += later.unchecked;
        if self.first_issue.is_none() {
            self.first_issue.clone_from(&later.first_issue);
        }
        if later.encoded == 0 {
            return;
        }
        self.encoded += later.encoded;
        self.bytes_total += later.bytes_total;
        self.bytes_min = self.bytes_min.into_iter().chain(later.bytes_min).min();
        self.bytes_max = self.bytes_max.into_iter().chain(later.bytes_max).max();
        self.json_bytes_total += later.json_bytes_total;
        self.zstd_bytes_total += later.zstd_bytes_total;
        self.deflate_bytes_total += later.deflate_bytes_total;
        *self.compressed.get_or_insert(0) += later.compressed.unwrap_or(0);
        for (&b, &n) in &later.sizes {
            *self.sizes.entry(b).or_default() += n;
        }
        self.derive_means();
    }

    /// Fill the per-message percentiles from the sizes counted so far (nearest rank).
    pub fn finish(&mut self) {
        let n: u64 = self.sizes.values().sum();
        if n == 0 {
            return;
        }
        let at = |q: f64| {
            let rank = ((n as f64) * q).ceil().max(1.0) as u64;
            let mut seen = 0;
            self.sizes
                .iter()
                .find(|(_, &c)| {
                    seen += c;
                    seen >= rank
                })
                .map(|(&b, _)| b)
        };
        self.bytes_p50 = at(0.5);
        self.bytes_p90 = at(0.9);
        self.bytes_p99 = at(0.99);
    }
}

/// How fast the run itself went, and how much memory it needed.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunStats {
    /// Records measured.
    pub records: u64,
    /// Bytes of input read (sample files), 0 for a built-in corpus.
    pub input_bytes: u64,
    /// Wall time of the measurement.
    pub seconds: f64,
    /// Records measured per second.
    pub records_per_second: f64,
    /// Input read per second, MiB.
    pub input_mib_per_second: f64,
    /// Peak resident set size of the process, KiB (Linux `VmHWM`).
    pub peak_rss_kib: Option<u64>,
    /// Where the CPU time went, by stage (size runs; estimated from timed messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<StageSeconds>,
}

/// CPU seconds of a size run by stage, summed over its threads: the measuring threads' CPU time
/// (their CPU clocks, `CLOCK_THREAD_CPUTIME_ID`), shared out over the stages in the proportions
/// of their sampled wall times. Every 16th message has each stage timed, and so does every
/// message of a sampled stage (`--compress sample`, `--roundtrip sample`); a stage's wall time
/// is its mean over the timed runs × how often it ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StageSeconds {
    /// Parsing the input samples (0 for a built-in corpus).
    pub parse: f64,
    /// Encoding in every codec, plus the compact JSON the ratios divide by.
    pub encode: f64,
    /// zstd and deflate of each compressed message.
    pub compress: f64,
    /// Decoding each checked message and comparing it with the input.
    pub roundtrip: f64,
}

impl StageSeconds {
    /// The stages with their share of the total, largest first (empty when nothing was timed).
    pub fn shares(&self) -> Vec<(&'static str, f64)> {
        let total = self.parse + self.encode + self.compress + self.roundtrip;
        if total <= 0.0 {
            return Vec::new();
        }
        let mut v = vec![
            ("encode", self.encode / total),
            ("round trip", self.roundtrip / total),
            ("compress", self.compress / total),
            ("parse", self.parse / total),
        ];
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v
    }

    /// One line for run summaries, e.g. "CPU by stage: encode 61 %, round trip 33 %,
    /// compress 4 %, parse 2 %" (at most 68 characters); stages under 0.5 % are left out.
    pub fn summary(&self) -> Option<String> {
        let parts: Vec<String> = self
            .shares()
            .into_iter()
            .filter(|(_, f)| *f >= 0.005)
            .map(|(name, f)| format!("{name} {:.0} %", f * 100.0))
            .collect();
        (!parts.is_empty()).then(|| format!("CPU by stage: {}", parts.join(", ")))
    }
}

/// Counts of samples outside Tukey's fences (1.5 and 3 interquartile ranges from the quartiles).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outliers {
    /// Below Q1 − 3 IQR.
    pub low_severe: usize,
    /// Between Q1 − 3 IQR and Q1 − 1.5 IQR.
    pub low_mild: usize,
    /// Between Q3 + 1.5 IQR and Q3 + 3 IQR.
    pub high_mild: usize,
    /// Above Q3 + 3 IQR.
    pub high_severe: usize,
}

impl Outliers {
    pub fn total(&self) -> usize {
        self.low_severe + self.low_mild + self.high_mild + self.high_severe
    }
}

/// Summary of one set of samples (all in the same unit).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Summary {
    /// Samples.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
    /// Median absolute deviation (unscaled).
    pub mad: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Bootstrap 95 % confidence interval of the median.
    pub median_ci95: (f64, f64),
    /// Samples outside Tukey's fences (counted, not dropped).
    pub outliers: Outliers,
}

impl Summary {
    /// Coefficient of variation (stddev / mean).
    pub fn cv(&self) -> f64 {
        if self.mean == 0.0 {
            0.0
        } else {
            self.stddev / self.mean
        }
    }

    /// Robust relative spread: 1.4826 × MAD / median, the standard deviation a normal
    /// distribution with that MAD would have, relative to the median.
    pub fn robust_cv(&self) -> f64 {
        if self.median > 0.0 {
            1.4826 * self.mad / self.median
        } else {
            0.0
        }
    }
}

/// The encode/decode speed measurement.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SpeedSection {
    /// The corpus name, or `samples` for user files.
    pub corpus: String,
    /// The codec ratios are taken against.
    pub baseline: String,
    /// The clock and its measured precision.
    pub timer: TimerInfo,
    /// Samples per case, target sample time, warm-up, seed of shuffling and bootstrap.
    pub samples: usize,
    /// The least time one sample runs, ns (calibrated per case).
    pub target_sample_ns: f64,
    /// The least warm-up per case, ms.
    pub warmup_ms: f64,
    /// Seed of the case shuffling and the bootstrap.
    pub seed: u64,
    /// One case per payload × codec × operation.
    pub cases: Vec<SpeedCase>,
    /// Run-wide warnings with hints.
    pub warnings: Vec<String>,
    /// Whether instruction counts were taken (valgrind callgrind).
    #[serde(default)]
    pub instructions: bool,
    /// A fixed workload timed in every round beside the cases: its median tells the host's
    /// speed during this run, so two runs can be told apart from a change of the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_reference: Option<HostReference>,
    /// Per codec, over the payloads (in the order the cases list the codecs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_codec: Vec<CodecSpeed>,
    /// Seed 001 (the PSON paper's ESP32 table) beside ours, for the pson-paper corpus.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seed001: Vec<Seed001Row>,
}

/// One codec of a speed run over its payloads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CodecSpeed {
    pub codec: String,
    /// The path of its first encode case (`typed`, `dynamic`, ...).
    pub path: String,
    pub encode: OpSpeed,
    pub decode: OpSpeed,
}

/// One operation of one codec over its payloads; `None` where no case has the figure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OpSpeed {
    /// Geometric mean of the cases' median ns per operation.
    pub geomean_ns: Option<f64>,
    /// Geometric mean of the cases' ratios to the baseline.
    pub geomean_ratio: Option<f64>,
    /// Mean allocations per operation.
    pub mean_allocs: Option<f64>,
    /// Mean bytes allocated per operation.
    pub mean_alloc_bytes: Option<f64>,
    /// Geometric mean of instructions per operation.
    pub geomean_instructions: Option<f64>,
}

/// One series of seed 001's ESP32 table beside ours: time relative to JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Seed001Row {
    pub codec: String,
    pub op: String,
    /// Per payload of the paper (Test01..Test10): (ours, published) ratio to JSON.
    pub per_payload: Vec<(Option<f64>, Option<f64>)>,
    /// Geometric means over the payloads where both exist.
    pub ours_geomean: Option<f64>,
    pub published_geomean: Option<f64>,
    /// Geometric mean of every published ratio (also where ours is missing).
    pub published_geomean_all: Option<f64>,
}

/// The host reference of a speed run (see [`SpeedSection::host_reference`]).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HostReference {
    /// What the workload does.
    pub workload: String,
    /// Iterations per sample.
    pub iters_per_sample: u64,
    /// Time per iteration, ns.
    pub ns_per_op: Summary,
    /// Every sample, ns per iteration.
    pub samples_ns: Vec<f64>,
}

/// What the clock can resolve and what the harness costs, measured at the start of a run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TimerInfo {
    /// Smallest non-zero step between two clock readings.
    pub precision_ns: f64,
    /// Cost of one clock reading.
    pub now_overhead_ns: f64,
    /// Time per iteration of the measuring loop around an empty operation.
    pub harness_overhead_ns_per_op: f64,
}

/// A speed case's path without the lossy mark: "dynamic (lossy)" is the dynamic path.
pub fn base_path(path: &str) -> &str {
    path.trim_end_matches(" (lossy)")
}

/// One timed case: a payload, a codec, an operation.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SpeedCase {
    /// The payload's name.
    pub payload: String,
    /// The codec id.
    pub codec: String,
    /// `encode` or `decode`.
    pub op: String,
    /// `typed` or `dynamic`.
    pub path: String,
    /// `reused` (encode into a cleared buffer kept across operations) or `n/a` for decode.
    pub buffer: String,
    /// Encoded size of the payload.
    pub bytes: usize,
    /// Operations per sample (calibrated so a sample lasts at least `target_sample_ns`).
    pub iters_per_sample: u64,
    /// Time per operation, ns.
    pub ns_per_op: Summary,
    /// The raw samples (ns per operation), in the order taken.
    pub samples_ns: Vec<f64>,
    /// Median time ÷ the baseline codec's median time for the same payload and operation.
    pub ratio_to_baseline: Option<f64>,
    /// Bootstrap 95 % CI of that ratio.
    pub ratio_ci95: Option<(f64, f64)>,
    /// Heap allocations per operation (counted by the global allocator).
    pub allocs_per_op: Option<f64>,
    /// Heap bytes allocated per operation.
    pub alloc_bytes_per_op: Option<f64>,
    /// Instructions per operation (callgrind), when requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions_per_op: Option<f64>,
    /// Why this figure may not be trusted, with a hint each.
    pub warnings: Vec<String>,
    /// Whether the samples stayed shorter than half the target sample time (iterations ×
    /// median) even after re-calibrating and re-sampling: the figure then times the clock and a
    /// cold call as much as the operation, and `compare` does not judge it.
    #[serde(default)]
    pub short: bool,
    /// How the batch size was found (absent in results files written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
}

/// How a case's iterations per sample were calibrated, and how well its samples filled the target.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Calibration {
    /// Timings the last calibration took (doubling the iterations, then the ones that crossed
    /// the target).
    pub timings: u32,
    /// The time per operation the batch size came from: the minimum over the consecutive
    /// timings that crossed the target, ns (one preempted timing cannot set it).
    pub per_op_ns: f64,
    /// Times the case was re-calibrated and re-sampled because iterations × median fell below
    /// half the target.
    pub recalibrations: u32,
    /// Iterations × median ÷ target sample time after the last sampling (below 0.5: short).
    pub fill: f64,
}

/// Peak resident set size of this process in KiB (Linux only).
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()
}

impl Results {
    pub fn new(provenance: Provenance, config: serde_json::Value) -> Results {
        Results {
            schema: RESULTS_SCHEMA.into(),
            provenance,
            config,
            answer: None,
            size: None,
            speed: None,
            dds: None,
            device: None,
            energy: None,
            evolve: None,
            fleet: None,
            http: None,
            link: None,
            micropython: None,
            mqtt: None,
            tcp: None,
            failed_parts: Vec::new(),
            other: Default::default(),
        }
    }

    /// Read a results file, checking its schema tag.
    pub fn read(path: &Path) -> Result<Results, ResultsError> {
        let text = std::fs::read_to_string(path).map_err(|e| ResultsError::Io(path.display().to_string(), e))?;
        let r: Results = serde_json::from_str(&text).map_err(|e| ResultsError::Parse {
            path: path.display().to_string(),
            line: e.line(),
            column: e.column(),
            msg: e.to_string(),
        })?;
        if r.schema != RESULTS_SCHEMA {
            return Err(ResultsError::Schema(path.display().to_string(), r.schema));
        }
        Ok(r.upgraded())
    }

    /// Fill what files written by earlier versions keep elsewhere: the compression levels of a
    /// size section were only in the `size` command's configuration.
    pub fn upgraded(mut self) -> Results {
        if let Some(s) = &mut self.size {
            let level = |k: &str| self.config.get(k).and_then(serde_json::Value::as_i64);
            if s.zstd_level.is_none() {
                s.zstd_level = level("zstd_level").and_then(|l| i32::try_from(l).ok());
            }
            if s.deflate_level.is_none() {
                s.deflate_level = level("deflate_level").and_then(|l| u32::try_from(l).ok());
            }
        }
        self
    }

    /// Write atomically: a temporary file beside the target, synced, then renamed over it,
    /// so a reader never sees a half-written file.
    pub fn write_atomic(&self, path: &Path) -> Result<(), ResultsError> {
        let text = serde_json::to_string_pretty(self).expect("results serialize");
        write_atomic(path, text.as_bytes()).map_err(|e| ResultsError::Io(path.display().to_string(), e))
    }
}

/// Remove the hidden staging files and folders of `name` in `dir` whose writer is gone: a
/// run ended by `kill -9` (or a crash) leaves `.<name>.tmp.<pid>` (a results file being
/// written), `.<name>.new-<pid>-<n>` (a results set being written, `.old` after an exchange
/// that did not finish) or `.<name>.probe.<pid>` (the writability probe). Those of a process
/// still running are left alone.
pub fn remove_stale_staging(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let prefix = format!(".{name}.");
    for e in entries.flatten() {
        let file_name = e.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else { continue };
        let pid = ["tmp.", "probe.", "new-"]
            .iter()
            .find_map(|k| rest.strip_prefix(k))
            .map(|r| r.split(['-', '.']).next().unwrap_or(""))
            .and_then(|p| p.parse::<u32>().ok());
        let Some(pid) = pid else { continue };
        if pid == std::process::id() || crate::signals::process_alive(pid) {
            continue;
        }
        let path = e.path();
        // Not followed: a link is removed as a link.
        let _ = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
            Ok(_) => std::fs::remove_file(&path),
            Err(_) => Ok(()),
        };
    }
}

/// Write `bytes` to `path` atomically (temporary file in the same directory + rename); staging
/// files of earlier writers that are gone are removed first.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    remove_stale_staging(dir, &name);
    let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A set of output files (a results file and its reports) that replaces the previous set in one
/// step: the files are written into a new folder beside the target, which is then exchanged
/// with the target folder (Linux `renameat2(RENAME_EXCHANGE)`; elsewhere two renames), so a
/// reader sees the old set or the new one, never a mix. Created before measuring, it also
/// proves the target writable. Dropped without [`OutputSet::commit`], it removes its folder.
#[derive(Debug)]
pub struct OutputSet {
    target: PathBuf,
    staging: PathBuf,
    committed: bool,
}

impl OutputSet {
    /// Start a set for folder `target`, which holds `names` and nothing else. A `target` that
    /// exists must be a folder holding only files of those names (a previous set): anything
    /// else there is refused, never replaced.
    pub fn begin(target: &Path, names: &[&str]) -> std::io::Result<OutputSet> {
        use std::io::{Error, ErrorKind};
        if target.exists() {
            if !target.is_dir() {
                return Err(Error::new(ErrorKind::AlreadyExists, "exists and is not a folder"));
            }
            for entry in std::fs::read_dir(target)? {
                let name = entry?.file_name();
                if !names.iter().any(|n| name == std::ffi::OsStr::new(n)) {
                    return Err(Error::new(
                        ErrorKind::AlreadyExists,
                        format!(
                            "holds {:?}, which is not part of a wirebench results set; name a new or empty folder",
                            name
                        ),
                    ));
                }
            }
        }
        let name = target
            .file_name()
            .filter(|n| *n != "..")
            .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "name a folder, not . or .."))?
            .to_string_lossy()
            .into_owned();
        let parent = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent)?;
        remove_stale_staging(parent, &name);
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let staging = parent.join(format!(".{name}.new-{}-{nanos}", std::process::id()));
        // create_dir fails on anything already there, a symbolic link included.
        std::fs::create_dir(&staging)?;
        Ok(OutputSet { target: target.to_path_buf(), staging, committed: false })
    }

    /// Write one file of the set (synced).
    pub fn write(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        let mut f = std::fs::File::create_new(self.staging.join(name))?;
        f.write_all(bytes)?;
        f.sync_all()
    }

    /// Put the new set in place of the old one in one step.
    pub fn commit(mut self) -> std::io::Result<()> {
        if self.target.exists() {
            if !exchange(&self.staging, &self.target)? {
                let mut old_name = self.staging.file_name().unwrap_or_default().to_os_string();
                old_name.push(".old");
                let old = self.staging.with_file_name(old_name);
                std::fs::rename(&self.target, &old)?;
                std::fs::rename(&self.staging, &self.target)?;
                std::fs::rename(&old, &self.staging)?;
            }
            // The staging folder now holds the old set.
            std::fs::remove_dir_all(&self.staging)?;
        } else {
            std::fs::rename(&self.staging, &self.target)?;
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for OutputSet {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// Swap two paths atomically; `Ok(false)` where the system or file system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use std::os::unix::ffi::OsStrExt;
    let ca = std::ffi::CString::new(a.as_os_str().as_bytes())?;
    let cb = std::ffi::CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: two valid NUL-terminated paths, relative to the working directory.
    let rc =
        unsafe { libc::renameat2(libc::AT_FDCWD, ca.as_ptr(), libc::AT_FDCWD, cb.as_ptr(), libc::RENAME_EXCHANGE) };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL) | Some(libc::ENOSYS) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<bool> {
    Ok(false)
}

#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    #[error("{path}:{line}:{column}: not a wirebench results file: {msg}")]
    Parse { path: String, line: usize, column: usize, msg: String },
    #[error("{0}: results schema {1:?} is not {RESULTS_SCHEMA:?}")]
    Schema(String, String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_and_read_back() {
        let dir = std::env::temp_dir().join(format!("wb-results-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("r.json");
        let r = Results::new(Provenance::default(), serde_json::json!({"k": 1}));
        r.write_atomic(&p).unwrap();
        let back = Results::read(&p).unwrap();
        assert_eq!(back.config["k"], 1);
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "no temporary file left: {names:?}");
        std::fs::write(&p, "{\"schema\":\"other\"").unwrap();
        assert!(Results::read(&p).unwrap_err().to_string().contains(":1:"));
        std::fs::remove_dir_all(&dir).unwrap();
        // A directory that does not exist: error, no file.
        assert!(r.write_atomic(&dir.join("missing/r.json")).is_err());
    }

    #[test]
    fn aggregate_folds_rows() {
        let mut a = SizeAggregate::new("pson");
        let row = |b: Option<u64>, f: Fidelity| SizeRow {
            payload: "p".into(),
            codec: "pson".into(),
            path: "dynamic".into(),
            bytes: b,
            json_bytes: 10,
            ratio_to_json: None,
            zstd_bytes: b,
            deflate_bytes: b,
            fidelity: f,
        };
        a.add(&row(Some(5), Fidelity::Exact));
        a.add(&row(Some(7), Fidelity::Lossy { losses: vec!["x".into()] }));
        a.add(&row(None, Fidelity::Unsupported { reason: "no".into() }));
        assert_eq!((a.records, a.encoded, a.bytes_total, a.bytes_min, a.bytes_max), (3, 2, 12, Some(5), Some(7)));
        assert_eq!(a.ratio_to_json, Some(0.6));
        assert_eq!((a.exact, a.lossy, a.unsupported), (1, 1, 1));
        assert_eq!(a.first_issue.as_deref(), Some("p: lossy: x"));
        // Per-message percentiles, nearest rank over the encoded messages.
        let mut a = SizeAggregate::new("json");
        for b in (1..=100).rev() {
            a.add(&row(Some(b), Fidelity::Exact));
        }
        a.add(&row(None, Fidelity::Unsupported { reason: "no".into() }));
        a.finish();
        assert_eq!((a.bytes_p50, a.bytes_p90, a.bytes_p99, a.bytes_max), (Some(50), Some(90), Some(99), Some(100)));
        // Merging the aggregate of later rows equals adding them, split anywhere.
        let rows: Vec<SizeRow> = (0..20u64)
            .map(|i| match i % 5 {
                0 => row(None, Fidelity::Failed { reason: format!("f{i}") }),
                1 => row(Some(i), Fidelity::Lossy { losses: vec![format!("l{i}")] }),
                2 => row(Some(i * 3), Fidelity::Unchecked),
                _ => row(Some(i % 7), Fidelity::Exact),
            })
            .collect();
        let mut whole = SizeAggregate::new("c");
        rows.iter().for_each(|r| whole.add(r));
        whole.finish();
        for cut in [0, 1, 7, 19, 20] {
            let (mut x, mut y) = (SizeAggregate::new("c"), SizeAggregate::new("c"));
            rows[..cut].iter().for_each(|r| x.add(r));
            rows[cut..].iter().for_each(|r| y.add(r));
            x.merge(&y);
            x.finish();
            assert_eq!(serde_json::to_string(&x).unwrap(), serde_json::to_string(&whole).unwrap(), "cut at {cut}");
        }
    }

    #[test]
    fn output_sets_replace_the_old_set_in_one_step() {
        let base = std::env::temp_dir().join(format!("wb-outset-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let target = base.join("out");
        let names = ["results.json", "report.md"];
        // A new folder.
        let set = OutputSet::begin(&target, &names).unwrap();
        set.write("results.json", b"1").unwrap();
        set.write("report.md", b"one").unwrap();
        assert!(!target.exists(), "nothing in place before the commit");
        set.commit().unwrap();
        assert_eq!(std::fs::read(target.join("results.json")).unwrap(), b"1");
        // Replaced as a whole: a file of the old set that the new one lacks is gone.
        let set = OutputSet::begin(&target, &names).unwrap();
        set.write("results.json", b"2").unwrap();
        assert_eq!(std::fs::read(target.join("report.md")).unwrap(), b"one", "the old set stays until the commit");
        set.commit().unwrap();
        assert_eq!(std::fs::read(target.join("results.json")).unwrap(), b"2");
        assert!(!target.join("report.md").exists());
        // Dropped without commit: the old set stays and no staging folder is left.
        let set = OutputSet::begin(&target, &names).unwrap();
        set.write("results.json", b"3").unwrap();
        drop(set);
        assert_eq!(std::fs::read(target.join("results.json")).unwrap(), b"2");
        let left: Vec<_> = std::fs::read_dir(&base).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("out")], "only the target remains");
        // A folder holding anything else is refused, never replaced.
        std::fs::write(target.join("notes.txt"), b"mine").unwrap();
        let e = OutputSet::begin(&target, &names).unwrap_err();
        assert!(e.to_string().contains("notes.txt"), "{e}");
        let e = OutputSet::begin(&target.join("results.json"), &names).unwrap_err();
        assert!(e.to_string().contains("not a folder"), "{e}");
        assert!(OutputSet::begin(Path::new(".."), &names).is_err());
        std::fs::remove_dir_all(&base).unwrap();
    }
}
