//! The speed part: encode and decode time per operation with sound statistics, allocations,
//! and (with `instructions`) callgrind instruction counts. The built-in corpora run on the
//! typed path where the codec has one (generated or derived types) and on the dynamic path, side
//! by side; user samples on the dynamic path. Every case passes a round-trip gate before it is
//! timed.

use std::hint::black_box;

use wirebench_codecs::typed::builtin_case;
use wirebench_codecs::{Codec, SchemaUse};
use wirebench_core::corpus::{Payload, SampleStream};
use wirebench_core::fidelity::compare_under;
use wirebench_core::part::{Part, PartError};
use wirebench_core::results::SpeedSection;
use wirebench_core::Schema;

use super::inputs::*;
use crate::speed::{CaseSpec, SpeedConfig};

/// What the speed measurement measures (command-line options, or a study's `[speed]` table).
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Clone, Debug)]
#[serde(default, deny_unknown_fields)]
pub struct SpeedOpts {
    /// The messages (`--corpus`, `--samples`) and their schema (`--schema`, `--type`, `-I`).
    #[command(flatten)]
    #[serde(flatten)]
    pub inputs: Inputs,
    /// Comma-separated codec ids (default: all).
    #[arg(long, short = 'f', value_delimiter = ',')]
    pub formats: Vec<String>,
    /// The codec ratios are taken against (default: json).
    #[arg(long)]
    pub baseline: Option<String>,
    /// Measurement rounds: each round times every case once, in a shuffled order, so each case
    /// gets this many samples (at least 10). Was `--samples-per-case` (still accepted), which
    /// read like `--samples` (input files).
    #[arg(long = "rounds", visible_alias = "samples-per-case", value_name = "N", default_value_t = 60)]
    #[serde(rename = "rounds", alias = "samples_per_case")]
    pub samples_per_case: usize,
    /// Minimum time of one sample, ms.
    #[arg(long, default_value_t = 0.5)]
    pub sample_ms: f64,
    /// Minimum warm-up per case, ms.
    #[arg(long, default_value_t = 20.0)]
    pub warmup_ms: f64,
    /// Seed of the case shuffling and the bootstrap.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also count instructions per operation under valgrind callgrind (deterministic).
    #[arg(long)]
    pub instructions: bool,
}

impl Default for SpeedOpts {
    fn default() -> Self {
        SpeedOpts {
            inputs: Inputs::default(),
            formats: Vec::new(),
            baseline: None,
            samples_per_case: 60,
            sample_ms: 0.5,
            warmup_ms: 20.0,
            seed: 1,
            instructions: false,
        }
    }
}

impl SpeedOpts {
    /// The same options as `wirebench speed` arguments (for the callgrind child process).
    pub fn to_cli_args(&self) -> Vec<String> {
        let mut a = vec!["speed".to_string()];
        if let Some(c) = &self.inputs.corpus {
            a.extend(["--corpus".into(), c.clone()]);
        }
        if !self.inputs.samples.is_empty() {
            a.push("--samples".into());
            a.extend(self.inputs.samples.iter().map(|p| p.display().to_string()));
        }
        if !self.formats.is_empty() {
            a.extend(["--formats".into(), self.formats.join(",")]);
        }
        a.extend(self.inputs.schema.to_cli_args());
        a
    }
}

/// The most samples per case (each is kept: 8 bytes × samples × cases).
pub const MAX_SAMPLES_PER_CASE: usize = 100_000;
/// The longest sample, ms.
pub const MAX_SAMPLE_MS: f64 = 10_000.0;
/// The longest warm-up per case, ms.
pub const MAX_WARMUP_MS: f64 = 60_000.0;

/// Samples loaded for a user-sample speed run (they are held in memory while timing).
const MAX_SAMPLES: usize = 10_000;

/// What to time, loaded once: (payload name, the values one operation cycles through).
struct Workload {
    corpus: String,
    payloads: Vec<(String, Vec<Payload>)>,
    /// `Some` for user samples (one schema for all), `None` for the built-in corpus.
    schema: Option<Schema>,
    builtin: bool,
}

fn load(args: &SpeedOpts) -> Result<Workload, PartError> {
    if args.inputs.samples.is_empty() {
        let name = args.inputs.corpus.as_deref().unwrap_or("pson-paper");
        let c = find_corpus(name)?;
        let payloads = c.payloads().into_iter().map(|p| (p.name.clone(), vec![p])).collect();
        return Ok(Workload { corpus: name.into(), payloads, schema: None, builtin: true });
    }
    let mut all = Vec::new();
    for item in SampleStream::open(&args.inputs.samples).map_err(sample_error)? {
        all.push(item.map_err(sample_error)?);
        if all.len() == MAX_SAMPLES {
            break;
        }
    }
    if all.is_empty() {
        return Err(PartError::bad("no samples in the given files"));
    }
    let schema = match args.inputs.schema.read()? {
        Some(s) => s,
        None => Schema::infer(all.iter().map(|p| &p.value)),
    };
    let name = format!("samples ({} records)", all.len());
    Ok(Workload { corpus: "samples".into(), payloads: vec![(name, all)], schema: Some(schema), builtin: false })
}

/// A case that failed its round-trip gate, or could not be built.
struct Skipped {
    payload: String,
    codec: String,
    reason: String,
}

/// Build the cases: typed path where the codec has one for the built-in corpus, else the
/// dynamic path through the prepared codec. Every case passes its round trip before timing.
/// The reused output buffers of an encode case. Where the output lands relative to the input
/// can change the time of the same code by half (on Test03, 37 vs 57 ns for the same binary
/// and instruction count, depending only on the heap layout: store/load address aliasing in
/// the copies). So one buffer is not reused for every operation: eight buffers, each keeping a
/// prefix of a different length (0 to 1,032 bytes), take turns, and every sample averages over
/// eight output addresses. Each encoder appends after the prefix; the cost of the turn (an
/// index and a truncate) is the same for every codec.
struct OutputBuffers {
    bufs: Vec<Vec<u8>>,
    next: usize,
}

const OUTPUT_PREFIXES: [usize; 8] = [0, 8, 40, 72, 136, 264, 520, 1032];

impl OutputBuffers {
    fn new(encoded_len: usize) -> OutputBuffers {
        let bufs = OUTPUT_PREFIXES
            .iter()
            .map(|&p| {
                let mut b = Vec::with_capacity(p + encoded_len * 2 + 64);
                b.resize(p, 0);
                b
            })
            .collect();
        OutputBuffers { bufs, next: 0 }
    }

    /// The next buffer, emptied down to its prefix.
    #[inline(always)]
    fn next(&mut self) -> &mut Vec<u8> {
        let k = self.next & 7;
        self.next = self.next.wrapping_add(1);
        let b = &mut self.bufs[k];
        b.truncate(OUTPUT_PREFIXES[k]);
        b
    }
}

fn build_cases<'a>(w: &'a Workload, codecs: &[&'static dyn Codec], skipped: &mut Vec<Skipped>) -> Vec<CaseSpec<'a>> {
    let mut cases = Vec::new();
    for (name, values) in &w.payloads {
        let inferred;
        let schema = match &w.schema {
            Some(s) => s,
            None => {
                inferred = Schema::infer(values.iter().map(|p| &p.value));
                &inferred
            }
        };
        for codec in codecs {
            let id = codec.info().id;
            let skip = |reason: String| Skipped { payload: name.clone(), codec: id.into(), reason };
            if w.builtin {
                if let Some(case) = builtin_case(id, name, &values[0].value) {
                    let mut bytes = Vec::new();
                    if let Err(e) = case.encode(&mut bytes) {
                        skipped.push(skip(format!("encode: {e}")));
                        continue;
                    }
                    match case.roundtrip_equal(&bytes) {
                        Ok(true) => {}
                        Ok(false) => {
                            skipped.push(skip("round trip changed the value".into()));
                            continue;
                        }
                        Err(e) => {
                            skipped.push(skip(format!("round trip: {e}")));
                            continue;
                        }
                    }
                    let case: std::sync::Arc<dyn wirebench_codecs::typed::TypedCase> = case.into();
                    let (enc, dec) = (case.clone(), case);
                    let mut bufs = OutputBuffers::new(bytes.len());
                    let size = bytes.len();
                    cases.push(CaseSpec {
                        payload: name.clone(),
                        codec: id.into(),
                        op: "encode",
                        path: "typed",
                        buffer: "reused",
                        bytes: size,
                        run: Box::new(move |n| {
                            for _ in 0..n {
                                let _ = black_box(enc.encode(black_box(bufs.next())));
                            }
                        }),
                    });
                    cases.push(CaseSpec {
                        payload: name.clone(),
                        codec: id.into(),
                        op: "decode",
                        path: "typed",
                        buffer: "n/a",
                        bytes: size,
                        run: Box::new(move |n| {
                            for _ in 0..n {
                                let _ = black_box(dec.decode(black_box(&bytes)));
                            }
                        }),
                    });
                    // The dynamic path of the same codec follows, side by side.
                }
            }
            let schema = (codec.info().schema != SchemaUse::None).then_some(schema);
            let prepared = match codec.prepare(schema) {
                Ok(p) => std::sync::Arc::<dyn wirebench_codecs::Prepared>::from(p),
                Err(e) => {
                    skipped.push(skip(e.to_string()));
                    continue;
                }
            };
            // Round-trip gate: every value encodes, decodes, and comes back (lossy is allowed
            // and labelled; failures are skipped with the reason).
            let mut encoded: Vec<Vec<u8>> = Vec::with_capacity(values.len());
            let mut failure = None;
            let mut lossy = None;
            // A .proto schema's lowerCamelCase keys, as the codecs of the shared model read
            // them (renamed once, before timing).
            let renamed: Option<Vec<Payload>> = schema.and_then(|s| {
                let r: Vec<Option<wirebench_core::Value>> =
                    values.iter().map(|p| s.with_proto_names(&p.value)).collect();
                r.iter().any(Option::is_some).then(|| {
                    r.into_iter()
                        .zip(values.iter())
                        .map(|(v, p)| Payload { value: v.unwrap_or_else(|| p.value.clone()), ..p.clone() })
                        .collect()
                })
            });
            let values: std::borrow::Cow<'a, [Payload]> = match renamed {
                Some(r) => std::borrow::Cow::Owned(r),
                None => std::borrow::Cow::Borrowed(&values[..]),
            };
            for p in values.iter() {
                let mut b = Vec::new();
                match prepared.encode(&p.value, &mut b) {
                    Err(e) => {
                        failure = Some(format!("{}: encode: {e}", p.name));
                        break;
                    }
                    Ok(()) => match prepared.decode(&b) {
                        Err(e) => {
                            failure = Some(format!("{}: decode: {e}", p.name));
                            break;
                        }
                        Ok(back) => {
                            if lossy.is_none() {
                                lossy = compare_under(&p.value, &back, schema)
                                    .into_iter()
                                    .next()
                                    .map(|l| format!("{}: {l}", p.name));
                            }
                        }
                    },
                }
                encoded.push(b);
            }
            if let Some(reason) = failure {
                skipped.push(skip(reason));
                continue;
            }
            let size = encoded.iter().map(|b| b.len()).sum::<usize>() / encoded.len().max(1);
            let (enc, dec) = (prepared.clone(), prepared);
            let mut bufs = OutputBuffers::new(encoded.iter().map(|b| b.len()).max().unwrap_or(0));
            let values_enc = values;
            let mut i = 0usize;
            let mut j = 0usize;
            let path = if lossy.is_some() { "dynamic (lossy)" } else { "dynamic" };
            cases.push(CaseSpec {
                payload: name.clone(),
                codec: id.into(),
                op: "encode",
                path,
                buffer: "reused",
                bytes: size,
                run: Box::new(move |n| {
                    for _ in 0..n {
                        let _ = black_box(enc.encode(black_box(&values_enc[i].value), bufs.next()));
                        i = if i + 1 == values_enc.len() { 0 } else { i + 1 };
                    }
                }),
            });
            cases.push(CaseSpec {
                payload: name.clone(),
                codec: id.into(),
                op: "decode",
                path,
                buffer: "n/a",
                bytes: size,
                run: Box::new(move |n| {
                    for _ in 0..n {
                        let _ = black_box(dec.decode(black_box(&encoded[j])));
                        j = if j + 1 == encoded.len() { 0 } else { j + 1 };
                    }
                }),
            });
        }
    }
    cases
}

/// The child side of `--instructions`: build the same cases and run them in callgrind segments.
pub fn callgrind_child(args: &SpeedOpts) -> Result<(), PartError> {
    let w = load(args)?;
    let codecs = codecs_of(&args.formats)?;
    let mut cases = build_cases(&w, &codecs, &mut Vec::new());
    let mut empty = |n: u64| {
        for i in 0..n {
            black_box(i);
        }
    };
    let mut runs: Vec<&mut dyn FnMut(u64)> = vec![&mut empty];
    for c in cases.iter_mut() {
        runs.push(&mut *c.run);
    }
    crate::callgrind::run_segments(&mut runs);
    Ok(())
}

/// Check the options before anything runs (also the `[speed]` part of a study).
pub fn validate(args: &SpeedOpts) -> Result<(), PartError> {
    codecs_of(&args.formats)?;
    find_codec(args.baseline.as_deref().unwrap_or("json"))?;
    if args.samples_per_case < 10 {
        return Err(PartError::bad(format!(
            "--rounds {} is too few for the statistics (at least 10; 30 or more recommended)",
            args.samples_per_case
        )));
    }
    if args.samples_per_case > MAX_SAMPLES_PER_CASE {
        return Err(PartError::bad(format!(
            "--rounds {} is too many (at most {MAX_SAMPLES_PER_CASE}: every sample of every case is kept in memory)",
            args.samples_per_case
        )));
    }
    // Finite and bounded, or a run never ends: NaN, infinity and 1e300 ms are refused here.
    if !(args.sample_ms.is_finite() && args.sample_ms > 0.0 && args.sample_ms <= MAX_SAMPLE_MS) {
        return Err(PartError::bad(format!(
            "--sample-ms {}: a sample lasts more than 0 and at most {MAX_SAMPLE_MS} ms",
            args.sample_ms
        )));
    }
    if !(args.warmup_ms.is_finite() && args.warmup_ms >= 0.0 && args.warmup_ms <= MAX_WARMUP_MS) {
        return Err(PartError::bad(format!("--warmup-ms {}: use 0 to {MAX_WARMUP_MS} ms", args.warmup_ms)));
    }
    if args.instructions && !crate::callgrind::available() {
        return Err(PartError::bad("--instructions needs valgrind (apt-get install valgrind)"));
    }
    check_payloads(args.inputs.corpus.as_deref(), &[], &args.inputs.samples, &args.inputs.schema)
}

/// Run the speed measurement; the section and the configuration it ran with.
pub fn measure(args: &SpeedOpts) -> Result<(SpeedSection, serde_json::Value), PartError> {
    validate(args)?;
    let codecs = codecs_of(&args.formats)?;
    let baseline = args.baseline.clone().unwrap_or_else(|| "json".into());
    let w = load(args)?;
    let mut skipped = Vec::new();
    let cases = build_cases(&w, &codecs, &mut skipped);
    if cases.is_empty() {
        return Err(PartError::bad("no case passed its round trip: nothing to time"));
    }
    let cfg = SpeedConfig {
        samples: args.samples_per_case,
        target_sample_ns: args.sample_ms * 1e6,
        warmup_ms: args.warmup_ms,
        seed: args.seed,
        baseline: baseline.clone(),
    };
    let timer = crate::timer::measure_timer();
    let total_cases = cases.len();
    let mut progress = crate::progress::Progress::new("speed", cfg.samples, &format!("{total_cases} cases"));
    let mut section = crate::speed::run(cases, &cfg, timer, &w.corpus, &mut |d, t| progress.update(d, t));
    progress.finish();
    for s in &skipped {
        section.warnings.push(format!("{} / {}: not timed: {}", s.payload, s.codec, s.reason));
    }
    if cfg!(debug_assertions) {
        section.warnings.push(
            "this wirebench binary is a debug build (our crates unoptimised): times are not representative; \
             build with `cargo build --release` or run `cargo run --release -p wirebench -- ...`"
                .into(),
        );
    }
    if args.instructions {
        // Private, unpredictable, removed on drop.
        let tmp = tempfile::Builder::new()
            .prefix("wirebench-callgrind-")
            .tempdir()
            .map_err(|e| PartError::failed(format!("instruction counts: creating a temporary folder: {e}")))?;
        let dir = tmp.path();
        let exe = std::env::current_exe()
            .map_err(|e| PartError::failed(format!("instruction counts: cannot find this program: {e}")))?;
        let mut child_args = args.to_cli_args();
        child_args.push("--callgrind-child".into());
        // Two runs: counts that differ between them are flagged, not trusted as a gate.
        let mut runs = Vec::new();
        for k in 0..2 {
            let d = dir.join(k.to_string());
            let counts = crate::callgrind::count(&exe, &child_args, &d);
            let _ = std::fs::remove_dir_all(&d);
            let counts = counts.map_err(|e| PartError::failed(format!("instruction counts: {e}")))?;
            if counts.len() != section.cases.len() {
                return Err(PartError::failed(format!(
                    "instruction counts: {} segments for {} cases",
                    counts.len(),
                    section.cases.len()
                )));
            }
            runs.push(counts);
        }
        drop(tmp);
        for (i, c) in section.cases.iter_mut().enumerate() {
            let (a, b) = (runs[0][i], runs[1][i]);
            c.instructions_per_op = Some(a);
            if a != b {
                c.warnings.push(format!(
                    "instruction count differs between two runs ({a:.1} vs {b:.1}): the library's work depends on per-process randomness (e.g. randomly seeded hash maps)"
                ));
            }
        }
        section.instructions = true;
    }
    crate::speed_summary::summarize(&mut section);
    let config = serde_json::json!({
        "measurement": "speed",
        "corpus": args.inputs.corpus,
        "samples": args.inputs.samples,
        "formats": codecs.iter().map(|c| c.info().id).collect::<Vec<_>>(),
        "baseline": baseline,
        "samples_per_case": args.samples_per_case,
        "sample_ms": args.sample_ms,
        "warmup_ms": args.warmup_ms,
        "seed": args.seed,
        "instructions": args.instructions,
    });
    Ok((section, config))
}

/// The `[speed]` part.
pub struct SpeedPart;

impl Part for SpeedPart {
    const NAME: &'static str = "speed";
    type Options = SpeedOpts;
    type Section = SpeedSection;

    fn validate(opts: &SpeedOpts) -> Result<(), PartError> {
        validate(opts)
    }

    fn run(opts: &SpeedOpts) -> Result<SpeedSection, PartError> {
        measure(opts).map(|(section, _)| section)
    }
}
