//! `run STUDY`: a study file names the parts to run; one results file and the reports come out.
//! `report RESULTS`: render the reports of a results file again, without measuring.
//!
//! A study file (TOML):
//!
//! ```toml
//! [study]
//! name = "seed001-pson-paper"
//! title = "PSON paper (Sensors 2021): encoded size and speed"
//! description = "..."
//!
//! [size]            # the options of `wirebench size`
//! corpus = "pson-paper"
//!
//! [speed]           # the options of `wirebench speed`
//! corpus = "pson-paper"
//! rounds = 40
//! ```

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use wirebench_core::results::{FailedPart, OutputSet, Results};
use wirebench_report::{Output, View};

use crate::common::*;
use crate::parts::{Planned, StudyPart, REGISTRY};
use crate::size::SizeOpts;
use crate::speed::SpeedOpts;
use crate::{ReportArgs, RunArgs};
use wirebench_measure::study::inputs::Inputs;

/// What a study file holds: its `[study]` table and the parts it names, in the registry's
/// order (`crate::parts::REGISTRY`).
pub struct Study {
    pub study: Meta,
    pub parts: Vec<StudyItem>,
    /// The study at the reduced scale the test suite runs it at (`run --ci`): tables here
    /// replace the same keys of the study's own (tables merge, other values and arrays are
    /// replaced), so every part still runs every code path, on fewer or shorter repetitions.
    pub ci: Option<toml::Table>,
}

impl std::fmt::Debug for Study {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<(&str, serde_json::Value)> = self.parts.iter().map(|i| (i.name(), i.plan.to_value())).collect();
        f.debug_struct("Study").field("study", &self.study).field("parts", &parts).finish()
    }
}

/// One part of a study with its options: checked before any part runs, then run into its
/// results section.
pub struct StudyItem {
    pub part: &'static dyn StudyPart,
    pub plan: Box<dyn Planned>,
}

impl StudyItem {
    /// The part's table in a study file and its section in the results file.
    pub fn name(&self) -> &'static str {
        self.part.name()
    }

    /// Check every option (formats, corpora, paths, ranges, the tools it needs) without
    /// measuring anything.
    pub fn validate(&self) -> Result<()> {
        self.plan.validate().map_err(part_error)
    }

    /// Measure, and put the section into `results`.
    fn run(&self, results: &mut Results) -> Result<()> {
        self.plan.run(results).map_err(part_error)
    }
}

/// The `[study]` and `[ci]` tables of a study file (the parts' tables are read by the registry).
#[derive(serde::Deserialize)]
struct Head {
    study: Meta,
    #[serde(default)]
    ci: Option<toml::Table>,
}

impl Study {
    /// Make every relative file path in the study (samples, schemas, certificates, the C and
    /// Python sources) relative to `base`, the folder of the study file.
    pub(crate) fn resolve_paths(&mut self, base: &Path) {
        for item in &mut self.parts {
            item.plan.resolve_paths(base);
        }
    }

    /// The parts this study runs, in run order.
    pub fn parts(&self) -> &[StudyItem] {
        &self.parts
    }

    /// The options of the part `name`, typed.
    pub fn opts<T: 'static>(&self, name: &str) -> Option<&T> {
        self.parts.iter().find(|i| i.name() == name).and_then(|i| i.plan.options().downcast_ref::<T>())
    }

    /// Whether the study has the part `name`.
    pub fn has(&self, name: &str) -> bool {
        self.parts.iter().any(|i| i.name() == name)
    }

    /// The study as its results file records it: `study` and every part of `registry`, with
    /// its options, or null when the study does not name it.
    pub fn to_value(&self, registry: &[&'static dyn StudyPart]) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        m.insert("study".into(), serde_json::to_value(&self.study).expect("meta serializes"));
        for part in registry {
            m.insert(part.name().into(), serde_json::Value::Null);
        }
        for item in &self.parts {
            m.insert(item.name().into(), item.plan.to_value());
        }
        serde_json::Value::Object(m)
    }
}

#[derive(serde::Deserialize, serde::Serialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// A short name (used for the default output directory).
    pub name: String,
    pub title: String,
    #[serde(default)]
    pub description: String,
    /// The seed report this study reproduces, if any (e.g. "001").
    #[serde(default)]
    pub reproduces: Option<String>,
}

/// The studies built into the binary, so `wirebench run seed001` works from any directory and
/// after `cargo install`: (short name, file name, text).
pub const BUILT_IN: &[(&str, &str, &str)] = &[
    ("quickstart", "quickstart.toml", include_str!("../../../studies/quickstart.toml")),
    ("seed000", "seed000-opcua-mqtt.toml", include_str!("../../../studies/seed000-opcua-mqtt.toml")),
    ("seed001", "seed001-pson-paper.toml", include_str!("../../../studies/seed001-pson-paper.toml")),
    ("seed002", "seed002-http-bandwidth.toml", include_str!("../../../studies/seed002-http-bandwidth.toml")),
    ("seed003", "seed003-ev-telemetry.toml", include_str!("../../../studies/seed003-ev-telemetry.toml")),
    ("seed004", "seed004-dds-cdr-json.toml", include_str!("../../../studies/seed004-dds-cdr-json.toml")),
    ("fleet", "fleet.toml", include_str!("../../../studies/fleet.toml")),
];

/// The built-in study a name means: its short name (`seed001`), its file stem
/// (`seed001-pson-paper`) or its file name.
pub fn built_in(name: &str) -> Option<(&'static str, &'static str)> {
    BUILT_IN
        .iter()
        .find(|(short, file, _)| name == *short || name == *file || Some(name) == file.strip_suffix(".toml"))
        .map(|(_, file, text)| (*file, *text))
}

/// Read and check a study with the parts of `registry`: a file, or else the name of a built-in
/// study. Errors name the file, line and column. Relative paths inside a study file resolve
/// against the file's folder, so a study runs the same from any working directory. Also
/// returns where the study came from.
pub fn read_study_in(registry: &[&'static dyn StudyPart], path: &Path, ci: bool) -> Result<(Study, String)> {
    let (text, base, source) = if path.is_file() {
        let text = wirebench_core::corpus::read_text(path).map_err(bad)?;
        (text, path.parent().map(Path::to_path_buf), path.display().to_string())
    } else if let Some((file, text)) = path.to_str().and_then(built_in) {
        (text.to_string(), None, format!("built in: studies/{file}"))
    } else if let Some((file, text)) = path.file_name().and_then(|n| n.to_str()).and_then(built_in) {
        // `wirebench run studies/seed001-pson-paper.toml` outside a checkout: the same study.
        eprintln!("{}: no such file here; running the built-in {file}", path.display());
        (text.to_string(), None, format!("built in: studies/{file}"))
    } else {
        let names: Vec<&str> = BUILT_IN.iter().map(|(short, _, _)| *short).collect();
        return Err(bad(format!(
            "{}: no such study file, nor a built-in study (built in: {})",
            path.display(),
            names.join(", ")
        )));
    };
    let mut study = parse_study(registry, &text, path)?;
    if ci {
        study = at_ci_scale(registry, study, &text, path)?;
    }
    if let Some(base) = base {
        study.resolve_paths(&base);
    }
    Ok((study, source))
}

/// Parse and check the text of a study, with the parts of `registry`; `path` names it in
/// errors (with the line and column).
pub(crate) fn parse_study(registry: &[&'static dyn StudyPart], text: &str, path: &Path) -> Result<Study> {
    let at = |offset: usize| {
        let before = &text[..offset.min(text.len())];
        (before.matches('\n').count() + 1, offset - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1)
    };
    let located = |e: toml::de::Error| {
        let (line, col) = e.span().map(|s| at(s.start)).unwrap_or((0, 0));
        bad(format!("{}:{line}:{col}: {}", path.display(), e.message()))
    };
    let names: Vec<String> = registry.iter().map(|p| format!("[{}]", p.name())).collect();
    let doc = toml::de::DeTable::parse(text).map_err(located)?;
    for (key, _) in doc.get_ref().iter() {
        let k: &str = key.get_ref();
        if k != "study" && k != "ci" && !registry.iter().any(|p| p.name() == k) {
            let (line, col) = at(key.span().start);
            return Err(bad(format!(
                "{}:{line}:{col}: unknown table `{k}` (a study holds [study], its parts {} and [ci])",
                path.display(),
                names.join(", ")
            )));
        }
    }
    let head: Head = toml::from_str(text).map_err(located)?;
    let mut parts = Vec::new();
    for part in registry {
        if let Some(plan) = part.read(text).map_err(located)? {
            parts.push(StudyItem { part: *part, plan });
        }
    }
    if parts.is_empty() {
        return Err(bad(format!(
            "{}: the study names no part to run (add one of {})",
            path.display(),
            names.join(", ")
        )));
    }
    Ok(Study { study: head.study, parts, ci: head.ci })
}

/// `study` with its `[ci]` table merged over its own tables (the reduced scale of `run --ci`);
/// a study without one runs as it is.
fn at_ci_scale(registry: &[&'static dyn StudyPart], study: Study, text: &str, path: &Path) -> Result<Study> {
    fn merge(into: &mut toml::Table, over: toml::Table) {
        for (k, v) in over {
            match (into.get_mut(&k), v) {
                (Some(toml::Value::Table(a)), toml::Value::Table(b)) => merge(a, b),
                (_, v) => {
                    into.insert(k, v);
                }
            }
        }
    }
    let Some(over) = study.ci else { return Ok(study) };
    let mut table: toml::Table =
        toml::from_str(text).map_err(|e| bad(format!("{}: {}", path.display(), e.message())))?;
    table.remove("ci");
    merge(&mut table, over);
    let merged = toml::to_string(&table).map_err(|e| bad(format!("{}: [ci]: {e}", path.display())))?;
    let mut study = parse_study(registry, &merged, path).map_err(|e| bad(format!("[ci] of {e:#}")))?;
    study.ci = None;
    Ok(study)
}

/// The study `run --samples PATH` runs when no study file is given: every codec's size, a
/// speed run of every codec (dynamic path), and the link models, all on the user's samples.
pub fn samples_study(samples: &[PathBuf]) -> Result<Study> {
    let names: Vec<String> = samples.iter().map(|p| p.display().to_string()).collect();
    let meta = Meta {
        name: "samples".into(),
        title: format!("Your payloads ({}): size, speed and links per format", names.join(", ")),
        description: "Encoded size (raw, zstd, deflate) with round-trip fidelity, encode/decode time on the \
                      dynamic path, and bytes on air / airtime / messages per day per link, for every codec \
                      on the given samples (schema inferred)."
            .into(),
        reproduces: None,
    };
    let inputs = Inputs { samples: samples.to_vec(), ..Default::default() };
    let size = SizeOpts { inputs: inputs.clone(), ..Default::default() };
    let speed = SpeedOpts {
        inputs: inputs.clone(),
        samples_per_case: 30,
        sample_ms: 0.3,
        warmup_ms: 5.0,
        ..Default::default()
    };
    let link = wirebench_net::study::link::LinkOpts { inputs, formats: vec!["all".into()], ..Default::default() };
    // Written as a study file and read as one, so it is checked as every study is.
    fn toml_of<T: serde::Serialize>(v: &T) -> Result<toml::Value> {
        toml::Value::try_from(v).map_err(|e| anyhow::anyhow!("the samples study: {e}"))
    }
    let mut doc = toml::Table::new();
    doc.insert("study".into(), toml_of(&meta)?);
    doc.insert("size".into(), toml_of(&size)?);
    doc.insert("speed".into(), toml_of(&speed)?);
    doc.insert("link".into(), toml_of(&link)?);
    let text = toml::to_string(&doc).map_err(|e| anyhow::anyhow!("the samples study: {e}"))?;
    parse_study(REGISTRY, &text, Path::new("(run --samples)"))
}

/// `--samples` given with a study file: every part that takes inputs measures the samples
/// instead of its own messages, and the title says which parts did.
fn use_samples(study: &mut Study, samples: &[PathBuf]) {
    let names: Vec<String> = samples.iter().map(|p| p.display().to_string()).collect();
    let mut used = Vec::new();
    for item in &mut study.parts {
        if item.part.takes_inputs() {
            item.plan.use_samples(samples);
            used.push(item.name());
        }
    }
    let parts = if used.is_empty() {
        "no part of this study takes them".to_string()
    } else {
        format!("in {}", used.join(", "))
    };
    study.study.title = format!("{} — on your samples ({}; {parts})", study.study.title, names.join(", "));
}

/// A previous run in `out_dir` is never overwritten silently: it moves aside to
/// `<out_dir>.<its start time>` (from its results file, else the folder's time), and the move is
/// said on stderr. Nothing happens when there is no previous results file.
fn keep_previous_run(out_dir: &Path) -> Result<()> {
    let old = out_dir.join("results.json");
    if !old.is_file() {
        return Ok(());
    }
    let started = Results::read(&old).ok().map(|r| r.provenance.started_at).filter(|s| !s.is_empty());
    let stamp = started.unwrap_or_else(|| {
        let t = std::fs::metadata(&old).and_then(|m| m.modified()).unwrap_or(std::time::SystemTime::UNIX_EPOCH);
        format!("{}", t.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0))
    });
    let stamp: String = stamp.chars().map(|c| if c == ':' { '-' } else { c }).collect();
    let name = out_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let mut aside = out_dir.with_file_name(format!("{name}.{stamp}"));
    let mut n = 1;
    while aside.exists() {
        n += 1;
        aside = out_dir.with_file_name(format!("{name}.{stamp}.{n}"));
    }
    std::fs::rename(out_dir, &aside)
        .with_context(|| format!("moving the previous run in {} aside", out_dir.display()))?;
    eprintln!("previous run kept: {} -> {} (--force replaces it instead)", out_dir.display(), aside.display());
    Ok(())
}

pub fn run(args: RunArgs) -> Result<()> {
    run_in(REGISTRY, args)
}

/// [`run`] with the parts of `registry`.
pub fn run_in(registry: &[&'static dyn StudyPart], args: RunArgs) -> Result<()> {
    for p in &args.samples {
        if !p.exists() {
            return Err(bad(format!("{}: no such file or directory", p.display())));
        }
    }
    let (study, source) = match &args.study {
        Some(path) => {
            let (mut study, source) = read_study_in(registry, path, args.ci)?;
            if !args.samples.is_empty() {
                use_samples(&mut study, &args.samples);
            }
            (study, source)
        }
        None => (samples_study(&args.samples)?, "(built in: run --samples)".to_string()),
    };
    run_study(registry, args, study, source, true)
}

/// Run a study that has been read (`source` names where it came from) with the run's options:
/// check every part, run them into one results set in the output folder.
pub(crate) fn run_study(
    registry: &[&'static dyn StudyPart],
    args: RunArgs,
    mut study: Study,
    source: String,
    echo: bool,
) -> Result<()> {
    // Each part's tables on the terminal as it ends (not when `verify` reruns a study).
    let say = |bytes: &[u8]| if echo { write_stdout(bytes) } else { Ok(()) };
    if args.schema.file.is_some() {
        for item in &mut study.parts {
            if let Some(s) = item.plan.schema_mut() {
                *s = args.schema.clone();
            }
        }
    }
    // Every part is checked before the first one runs: a typo in the last part costs nothing.
    for part in study.parts() {
        part.validate().map_err(|e| bad(format!("{source}: [{}]: {e:#}", part.name())))?;
    }
    // The constraints of the answer (`--budget`, `--link`): checked now, answered as soon as the
    // size part has measured. A run on the user's payloads always opens with an answer (ranked
    // by the largest message when no budget or link is given).
    let asked = args.budget.is_some() || args.link.is_some() || args.mcu.is_some() || args.schemaless || args.exact;
    let on_payloads = !args.samples.is_empty() && study.has("size");
    let constraints = (asked || on_payloads).then(|| wirebench_net::recommend::Constraints {
        corpus: None,
        samples: args.samples.clone(),
        link: args.link.clone(),
        budget: args.budget,
        mcu: args.mcu.clone(),
        schemaless: args.schemaless,
        exact: args.exact,
    });
    let radio = match &constraints {
        Some(c) => {
            if !study.has("size") {
                return Err(bad(format!("{source}: --budget and --link rank the formats by the [size] part's measurements; the study has none")));
            }
            wirebench_net::recommend::check(c).map_err(part_error)?
        }
        None => None,
    };
    // With a lab target, the answer is ranked again at the end on the device lab's measurements
    // (and by energy per message with a radio); everything it needs is checked now.
    let target = args.mcu.as_deref().and_then(wirebench_net::recommend::lab_target);
    let energy_part = study.opts::<wirebench_net::energy::EnergyOpts>("energy");
    let radio_asked = args.radio.clone().or_else(|| {
        let e = energy_part?;
        (target.is_some() && e.radio.len() == 1).then(|| e.radio[0].clone())
    });
    let every = args.every.clone().or_else(|| energy_part.and_then(|e| e.every.clone()));
    let battery = args.battery.clone().or_else(|| energy_part.and_then(|e| e.battery.clone()));
    let energy_ask = crate::recommend::energy_ask(
        radio_asked.as_deref(),
        every.as_deref().filter(|_| radio_asked.is_some()),
        battery.as_deref().filter(|_| radio_asked.is_some()),
        target,
        energy_part.map(|e| e.set.as_slice()).unwrap_or(&[]),
        energy_part.and_then(|e| e.energy_data.as_deref()),
    )?;
    let out_dir = args.out.clone().unwrap_or_else(|| PathBuf::from("out").join(&study.study.name));
    // The output folder is locked for the whole run (a second run into it is refused now, so
    // neither replaces the other's results), then claimed, and so proved writable, before
    // measuring. A folder holding other files is the user's choice (exit 2); one that cannot be
    // written is the environment's (exit 1).
    let _lock = crate::common::FolderLock::take(&out_dir)?;
    if !args.force {
        keep_previous_run(&out_dir)?;
    }
    drop(OutputSet::begin(&out_dir, &SET_FILES).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::InvalidInput => {
            bad(format!("{}: {e}", out_dir.display()))
        }
        _ => anyhow::anyhow!("{}: {e}", out_dir.display()),
    })?);
    let config = serde_json::json!({
        "study": source,
        "scale": if args.ci { "ci: the study's [ci] table (reduced, for the test suite)" } else { "as written" },
        "samples": args.samples.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "definition": study.to_value(registry),
    });
    let seed = study.opts::<SpeedOpts>("speed").map(|s| s.seed).unwrap_or(0);
    let mut results = Results::new(provenance(seed), config);
    let views = crate::parts::views(registry);
    let parts = study.parts();
    let names: Vec<String> = parts.iter().map(|p| p.name().to_string()).collect();
    // What is on disk: the results after each finished part, the rest marked. A signal that ends
    // the run rewrites it with the running part and the rest marked interrupted.
    let saved = Arc::new(Mutex::new(Saved { results: results.clone(), done: 0 }));
    let _on_signal = {
        let (saved, names, out_dir, title, views) =
            (saved.clone(), names.clone(), out_dir.clone(), study.study.title.clone(), views.clone());
        wirebench_core::signals::on_signal(move |sig| {
            let s = saved.lock().unwrap_or_else(|e| e.into_inner());
            let why = format!("not finished: the run was ended by {}", wirebench_core::signals::name(sig));
            let r = with_rest_marked(&s.results, &names[s.done..], &why);
            match write_set(&out_dir, &r, &title, &views) {
                Ok(()) => eprintln!(
                    "wirebench: {}: results of the {} finished part(s) in {}",
                    wirebench_core::signals::name(sig),
                    s.done,
                    out_dir.join("results.json").display()
                ),
                Err(e) => eprintln!("wirebench: writing the results set in {}: {e}", out_dir.display()),
            }
        })
    };
    // A part that fails ends the run; the parts before it keep their sections, and the results
    // set is written with the failure recorded. Each finished part is written at once.
    let mut failure = None;
    for (i, part) in parts.iter().enumerate() {
        if failure.is_some() {
            results
                .failed_parts
                .push(FailedPart { part: part.name().into(), error: "not run: an earlier part failed".into() });
            continue;
        }
        eprintln!("[{}/{}] {}", i + 1, parts.len(), part.name());
        if let Err(e) = part.run(&mut results) {
            results.failed_parts.push(FailedPart { part: part.name().into(), error: format!("{e:#}") });
            failure = Some(e.context(format!("[{}]", part.name())));
            continue;
        }
        // The answer first, as soon as the sizes are in; then each part's tables as it ends.
        if let (Some(c), Some(size)) = (&constraints, results.size.as_ref().filter(|_| part.name() == "size")) {
            let mut rec =
                wirebench_net::recommend::rank(c, radio.as_ref(), &size.aggregates, None).map_err(part_error)?;
            if rec.ranked.is_empty() && c.budget.is_some() {
                if let Some(opts) = study.opts::<SizeOpts>("size") {
                    if let Some(note) = crate::recommend::float32_suggestion(opts, c, radio.as_ref(), None)? {
                        rec.notes.insert(0, note);
                    }
                }
            }
            results.answer = Some(rec);
            wirebench_report::table::begin_section();
            say((wirebench_report::table::fit_lines(&wirebench_report::recommend::render_answer(
                &results,
                Output::Table,
            )) + "\n")
                .as_bytes())?;
        }
        {
            wirebench_report::table::begin_section();
            let text = terminal_part(&(part.part.view().text)(&results, Output::Table), parts.len());
            if !text.is_empty() {
                say((text + "\n").as_bytes())?;
            }
        }
        if i + 1 < parts.len() {
            let mut s = saved.lock().unwrap_or_else(|e| e.into_inner());
            let r = with_rest_marked(&results, &names[i + 1..], "not run yet: the run is going on or was ended");
            write_set(&out_dir, &r, &study.study.title, &views).map_err(|e| set_error(&out_dir, e, None))?;
            *s = Saved { results: results.clone(), done: i + 1 };
        }
    }
    // The answer again, on what the device lab measured for the --mcu target.
    if let (Some(c), Some(target), None) = (&constraints, target, &failure) {
        if let Some(size) = results.size.as_ref() {
            let lab_rows = results
                .device
                .as_ref()
                .and_then(|d| d.lab.as_ref())
                .filter(|l| l.rows.iter().any(|r| r.target == target))
                .map(|l| l.rows.clone());
            let (mut ev, whence) = match lab_rows {
                Some(rows) => (
                    wirebench_net::recommend::DeviceEvidence {
                        target: target.into(),
                        rows,
                        unavailable: None,
                        energy: None,
                    },
                    "the study's [device] part",
                ),
                None => {
                    eprintln!("answer: measuring each format's C library on the {target} lab (largest message)");
                    let corpus = study.opts::<SizeOpts>("size").and_then(|o| o.inputs.corpus.clone());
                    (
                        crate::recommend::device_evidence(
                            corpus.as_deref(),
                            &args.samples,
                            &args.schema,
                            None,
                            target,
                        )?,
                        "a lab run on the largest message",
                    )
                }
            };
            ev.energy = energy_ask;
            let mut rec =
                wirebench_net::recommend::rank(c, radio.as_ref(), &size.aggregates, Some(&ev)).map_err(part_error)?;
            let by = if ev.energy.is_some() { "Ranked by energy per message, " } else { "Ranked again, " };
            rec.notes.insert(0, format!("{by}measured on the {target} device lab ({whence}); the answer printed after the size part used the curated device table"));
            results.answer = Some(rec);
            wirebench_report::table::begin_section();
            say((wirebench_report::table::fit_lines(&wirebench_report::recommend::render_answer(
                &results,
                Output::Table,
            )) + "\n")
                .as_bytes())?;
        }
    }
    let mut s = saved.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = write_set(&out_dir, &results, &study.study.title, &views) {
        return Err(set_error(&out_dir, e, failure));
    }
    *s = Saved { results: results.clone(), done: parts.len() };
    drop(s);
    let results_path = out_dir.join("results.json");
    if let Some(f) = failure {
        eprintln!("results of the parts that finished: {}", results_path.display());
        return Err(f);
    }
    // The tables were printed as each part ended.
    let text = format!(
        "results: {}\nreports: {}, {}\n",
        results_path.display(),
        out_dir.join("report.md").display(),
        out_dir.join("report.html").display()
    );
    say(text.as_bytes())?;
    // Runs that failed inside a part, and must-hold checks that failed, are in the results and
    // end the run with exit 1.
    if let Some((n, first)) = results.dds.as_ref().and_then(|d| d.first_failure()) {
        anyhow::bail!("[dds] {n} failure(s), in {}; the first: {first}", results_path.display());
    }
    if let Some((n, first)) = results.mqtt.as_ref().and_then(|m| m.first_failure()) {
        anyhow::bail!("[mqtt] {n} failure(s), in {}; the first: {first}", results_path.display());
    }
    if let Some((n, first)) = results.fleet.as_ref().and_then(|f| f.first_failure()) {
        anyhow::bail!("[fleet] {n} run(s) with errors, in {}; the first: {first}", results_path.display());
    }
    Ok(())
}

/// The most lines one part prints on the terminal in a summary (`run` without -v), and the
/// fewest when a study has many parts: the parts share [`BRIEF_TOTAL_LINES`].
const BRIEF_PART_LINES: usize = 28;
const BRIEF_PART_LINES_MIN: usize = 14;
/// The lines a summary's parts share, so that it stays within about 120 lines.
const BRIEF_TOTAL_LINES: usize = 112;

/// One part's terminal text as the terminal gets it: left-out tables said in one line, long
/// lines wrapped to the width, and in a summary (no -v) at most its share of
/// [`BRIEF_TOTAL_LINES`] among the `parts` shown (between 14 and 28 lines).
fn terminal_part(text: &str, parts: usize) -> String {
    use wirebench_report::table;
    let text = table::fit_lines(&table::collapse_mentions(text));
    if table::is_brief() {
        let share = (BRIEF_TOTAL_LINES / parts.max(1)).clamp(BRIEF_PART_LINES_MIN, BRIEF_PART_LINES);
        table::cap_lines(&text, share)
    } else {
        text
    }
}

/// The results on disk and how many parts they hold.
struct Saved {
    results: Results,
    done: usize,
}

/// `results` with each part of `rest` not yet in its failures recorded as `why`.
pub(crate) fn with_rest_marked(results: &Results, rest: &[String], why: &str) -> Results {
    let mut r = results.clone();
    for name in rest {
        if !r.failed_parts.iter().any(|f| &f.part == name) {
            r.failed_parts.push(FailedPart { part: name.clone(), error: why.into() });
        }
    }
    r
}

/// Write the results set (results.json, report.md, report.html) of `results` into `out_dir`,
/// replacing the previous set in one step; on error the previous set stays as it was.
fn write_set(out_dir: &Path, results: &Results, title: &str, views: &[View]) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(results).expect("results serialize");
    let md = markdown(results, title, views);
    let html = wirebench_report::html::render(&[results], title, views);
    let set = OutputSet::begin(out_dir, &SET_FILES)?;
    set.write("results.json", text.as_bytes())?;
    set.write("report.md", md.as_bytes())?;
    set.write("report.html", html.as_bytes())?;
    set.commit()
}

/// The one-line error of a results set that could not be written (an environment error, exit
/// code 1), after the part failure that ended the run, if one did.
fn set_error(out_dir: &Path, e: std::io::Error, failure: Option<anyhow::Error>) -> anyhow::Error {
    let e = anyhow::anyhow!(
        "writing the results set in {}: {e} (the previous results there, if any, are unchanged)",
        out_dir.display()
    );
    match failure {
        Some(f) => f.context(e.to_string()),
        None => e,
    }
}

/// The files of a results set, the only ones `run` replaces in its output folder.
const SET_FILES: [&str; 3] = ["results.json", "report.md", "report.html"];

/// Every table of every section as CSV, named after its section (`tcp`, `tcp.2`, ...).
pub fn csv_tables(results: &Results, views: &[View]) -> Vec<wirebench_report::csv::CsvTable> {
    views.iter().flat_map(|v| wirebench_report::csv::named(v.key, (v.csv)(results))).collect()
}

/// Every section of a results file in one output kind (not HTML). CSV is one tidy table: a
/// `table` column, then the union of the tables' columns.
/// The Markdown report: the title, every section, and where the figures come from (the same
/// provenance the HTML page's card shows), so a copied report can be traced and rerun.
fn markdown(results: &Results, title: &str, views: &[View]) -> String {
    let p = &results.provenance;
    let m = &p.machine;
    let mut out = format!("# {title}\n\n{}", render_all(results, Output::Markdown, views));
    out.push_str("\n## Provenance\n\n");
    out.push_str(&format!(
        "- wirebench {} (commit {}), {}\n- started {}; seed {}\n- machine: {} ({} cores), {} {}, kernel {}\n- command: `{}`\n",
        p.wirebench_version,
        p.git_commit,
        p.rustc,
        p.started_at,
        p.seed,
        m.cpu_model,
        m.cores,
        m.os,
        m.arch,
        m.kernel,
        p.command.join(" ").replace('`', "'")
    ));
    out
}

pub fn render_all(results: &Results, output: Output, views: &[View]) -> String {
    match output {
        Output::Json => return serde_json::to_string_pretty(results).expect("results serialize") + "\n",
        Output::Csv => return wirebench_report::csv::tidy(&csv_tables(results, views)),
        Output::Table | Output::Markdown => {}
    }
    let mut out = String::new();
    for v in views {
        wirebench_report::table::begin_section();
        let mut part = (v.text)(results, output);
        if output == Output::Table {
            part = terminal_part(&part, views.iter().filter(|v| (v.has)(results)).count());
        }
        if !part.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&part);
        }
    }
    out
}

pub fn report(args: ReportArgs) -> Result<()> {
    report_in(REGISTRY, args)
}

/// [`report`] with the parts of `registry`.
pub fn report_in(registry: &[&'static dyn StudyPart], args: ReportArgs) -> Result<()> {
    let views = crate::parts::views(registry);
    if args.out.is_some() && args.output != "csv" {
        return Err(bad("--out goes with -o csv (one CSV file per table); other outputs go to stdout"));
    }
    let mut results = Results::read(&args.results).map_err(|e| bad(e.to_string()))?;
    // Files written before these figures were part of their sections get them here (the parts
    // compute them as they measure).
    if let Some(speed) = &mut results.speed {
        wirebench_measure::speed_summary::complete(speed);
    }
    if let Some(tcp) = &mut results.tcp {
        wirebench_net::study::tcp::complete(tcp);
    }
    if let Some(dds) = &mut results.dds {
        wirebench_dds::figures::complete(dds);
    }
    let title = results
        .config
        .get("definition")
        .and_then(|d| d.get("study"))
        .and_then(|s| s.get("title"))
        .and_then(|t| t.as_str())
        .unwrap_or("wirebench results")
        .to_string();
    let text = match args.output.as_str() {
        "html" => wirebench_report::html::render(&[&results], &title, &views),
        "table" => render_all(&results, Output::Table, &views),
        "md" => markdown(&results, &title, &views),
        "csv" => match &args.out {
            Some(dir) => return write_csv_dir(&results, dir, &views),
            None => render_all(&results, Output::Csv, &views),
        },
        "json" => render_all(&results, Output::Json, &views),
        "bmf" => serde_json::to_string_pretty(&crate::bmf::bmf(&results))? + "\n",
        other => return Err(bad(format!("unknown output {other:?} (table, md, csv, json, html, bmf)"))),
    };
    write_stdout(text.as_bytes())
}

/// `report -o csv --out DIR`: one CSV file per table (`DIR/size.csv`, `DIR/tcp.2.csv`, ...).
fn write_csv_dir(results: &Results, dir: &Path, views: &[View]) -> Result<()> {
    // An output that cannot be written is the environment's failure (exit 1), as for `--out`;
    // the folder is locked while the tables are written.
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    let _lock = crate::common::FolderLock::take(dir)?;
    let mut names = Vec::new();
    for t in csv_tables(results, views) {
        let path = dir.join(format!("{}.csv", t.name));
        wirebench_core::results::write_atomic(&path, wirebench_report::csv::table_text(&t).as_bytes())
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        names.push(path.display().to_string());
    }
    write_stdout(format!("{}\n", names.join("\n")).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in study parses and passes validation; in a build without DDS the DDS study
    /// is refused with the reason before anything runs.
    #[test]
    fn built_in_studies_parse() {
        for (short, file, _) in BUILT_IN {
            // At the reduced scale of the test suite too: the [ci] table must still make a study.
            if wirebench_dds::available().is_ok() || !study_has_dds(file) {
                let (ci, _) =
                    read_study_in(REGISTRY, Path::new(short), true).unwrap_or_else(|e| panic!("{file} --ci: {e:#}"));
                assert!(ci.ci.is_none() && !ci.parts().is_empty(), "{file}");
                // The reduced scale passes the parts' own checks (e.g. speed's at least 10 rounds).
                for part in ci.parts().iter().filter(|p| ["size", "speed", "link", "tcp", "http"].contains(&p.name())) {
                    part.validate().unwrap_or_else(|e| panic!("{file} --ci: [{}]: {e:#}", part.name()));
                }
            }
            let parsed = read_study_in(REGISTRY, Path::new(short), false);
            match (parsed, wirebench_dds::available()) {
                (Ok((study, source)), _) => {
                    assert_eq!(source, format!("built in: studies/{file}"));
                    assert!(file.starts_with(&study.study.name), "{file}: name {}", study.study.name);
                }
                (Err(e), Err(_)) if study_has_dds(file) => assert!(e.to_string().contains("built without DDS"), "{e}"),
                (Err(e), _) => panic!("{file}: {e}"),
            }
        }
        assert_eq!(built_in("seed001-pson-paper").map(|b| b.0), Some("seed001-pson-paper.toml"));
        assert_eq!(built_in("seed001-pson-paper.toml").map(|b| b.0), Some("seed001-pson-paper.toml"));
        assert!(built_in("seed01").is_none());
    }

    /// A study naming every part runs them in the registry's order.
    #[test]
    fn parts_follow_the_registry() {
        let all = r#"[study]
name = "t"
title = "t"
[fleet]
[size]
[speed]
[evolve]
[link]
[mqtt]
[http]
[tcp]
[dds]
[[dds.cases]]
sizes = ["2k"]
instances = 1
samples = 1
throughput_samples = 1
[device]
[energy]
[micropython]
"#;
        let study = parse_study(REGISTRY, all, Path::new("t.toml")).unwrap();
        let names: Vec<&str> = study.parts().iter().map(StudyItem::name).collect();
        assert_eq!(names, crate::parts::names(REGISTRY));
        // A table no part has is refused with its line and column; so is an empty study.
        let e =
            parse_study(REGISTRY, "[study]\nname = \"t\"\ntitle = \"t\"\n[sise]\n", Path::new("t.toml")).unwrap_err();
        assert!(e.to_string().starts_with("t.toml:4:2: unknown table `sise`"), "{e}");
        let e = parse_study(REGISTRY, "[study]\nname = \"t\"\ntitle = \"t\"\n", Path::new("t.toml")).unwrap_err();
        assert!(e.to_string().contains("add one of [size], [speed]"), "{e}");
        // An error inside a part's table keeps its place in the file.
        let e =
            parse_study(REGISTRY, "[study]\nname = \"t\"\ntitle = \"t\"\n[size]\nformat = 1\n", Path::new("t.toml"))
                .unwrap_err();
        assert!(e.to_string().starts_with("t.toml:4:1: unknown field `format`"), "{e}");
    }

    /// A part only this test knows, added to the registry with one line: its options, its
    /// section (kept in `Results::other`, as a section this build has no field for) and view.
    mod scratch {
        use super::super::*;
        use crate::parts::{plain_run, Opts, Typed};
        use std::marker::PhantomData;
        use wirebench_core::part::{Part, PartError};

        #[derive(serde::Deserialize, serde::Serialize, Default)]
        #[serde(default, deny_unknown_fields)]
        pub struct ScratchOpts {
            pub n: u32,
            #[serde(flatten)]
            pub inputs: Inputs,
        }

        impl Opts for ScratchOpts {
            const INPUTS: bool = true;
            fn inputs_mut(&mut self) -> Option<&mut Inputs> {
                Some(&mut self.inputs)
            }
        }

        pub struct Scratch;

        impl Part for Scratch {
            const NAME: &'static str = "scratch";
            type Options = ScratchOpts;
            type Section = serde_json::Value;
            fn validate(o: &ScratchOpts) -> Result<(), PartError> {
                if o.n > 100 {
                    return Err(PartError::bad(format!("n: {} is more than 100", o.n)));
                }
                Ok(())
            }
            fn run(o: &ScratchOpts) -> Result<serde_json::Value, PartError> {
                let lines: usize =
                    o.inputs.samples.iter().map(|p| std::fs::read_to_string(p).unwrap().lines().count()).sum();
                Ok(serde_json::json!({"n": o.n, "sample_lines": lines}))
            }
        }

        fn text(r: &Results, o: Output) -> String {
            let Some(s) = r.other.get("scratch") else { return String::new() };
            match o {
                Output::Table => format!("Scratch\nn = {}, {} sample lines\n", s["n"], s["sample_lines"]),
                Output::Markdown => format!("## Scratch\n\nn = {}, {} sample lines\n", s["n"], s["sample_lines"]),
                Output::Csv => wirebench_report::csv::text(&csv(r)),
                Output::Json => serde_json::to_string_pretty(s).unwrap(),
            }
        }

        fn csv(r: &Results) -> Vec<wirebench_report::csv::CsvTable> {
            let Some(s) = r.other.get("scratch") else { return Vec::new() };
            let mut t = wirebench_report::csv::CsvTable::with_header(&["n", "sample_lines"]);
            t.row(&[s["n"].to_string(), s["sample_lines"].to_string()]);
            vec![t]
        }

        fn html(r: &Results, _: &wirebench_report::html::Ctx) -> Option<wirebench_report::html::Section> {
            let s = r.other.get("scratch")?;
            Some(wirebench_report::html::Section {
                title: "Scratch".into(),
                summary: "a test part".into(),
                body: format!("<p>n = {}</p>", s["n"]),
            })
        }

        pub static SCRATCH: Typed<Scratch> = Typed {
            about: "a part only the registry test knows",
            view: View { key: "scratch", has: |r| r.other.contains_key("scratch"), text, csv, html },
            run: plain_run::<Scratch>,
            store: |r, s| {
                r.other.insert("scratch".into(), s);
            },
            _part: PhantomData,
        };
    }

    /// Adding a part is one registry line: it is in `--version`, the study reader and its
    /// checks, `run` (with `--samples`), every output kind and the docs' list.
    #[test]
    fn a_part_added_to_the_registry_is_everywhere() {
        use clap::Parser;
        let registry: Vec<&'static dyn StudyPart> =
            REGISTRY.iter().copied().chain([&scratch::SCRATCH as &dyn StudyPart]).collect();
        assert!(crate::version_text(&registry, "dds").contains(", fleet, scratch;"));
        assert!(!crate::version_text(REGISTRY, "dds").contains("scratch"));
        assert!(
            crate::parts::docs_list(&registry).contains("| `[scratch]` | a part only the registry test knows | yes |")
        );
        // The study reader: its table is read and checked; without the line it is unknown.
        let text = |body: &str| format!("[study]\nname = \"scratch\"\ntitle = \"Scratch\"\n[scratch]\n{body}");
        let t = Path::new("s.toml");
        let study = parse_study(&registry, &text("n = 200\n"), t).unwrap();
        let e = study.parts()[0].validate().unwrap_err();
        assert_eq!(e.to_string(), "n: 200 is more than 100");
        let e = parse_study(&registry, &text("m = 1\n"), t).unwrap_err();
        assert!(e.to_string().starts_with("s.toml:4:1: unknown field `m`"), "{e}");
        let e = parse_study(REGISTRY, &text("n = 1\n"), t).unwrap_err();
        assert!(e.to_string().starts_with("s.toml:4:2: unknown table `scratch`"), "{e}");
        // `run`, with --samples, into a folder of its own.
        let dir = std::env::temp_dir().join(format!("wirebench-scratch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let study_file = dir.join("scratch.toml");
        std::fs::write(&study_file, text("n = 3\n")).unwrap();
        let samples = dir.join("s.ndjson");
        std::fs::write(&samples, "{\"a\": 1}\n{\"a\": 2}\n").unwrap();
        let out = dir.join("out");
        let cli = crate::Cli::try_parse_from([
            "wirebench".as_ref(),
            "run".as_ref(),
            study_file.as_os_str(),
            "--samples".as_ref(),
            samples.as_os_str(),
            "--out-dir".as_ref(),
            out.as_os_str(),
        ])
        .unwrap();
        let crate::Command::Run(args) = cli.command else { panic!("not run") };
        run_in(&registry, args).unwrap();
        let results = Results::read(&out.join("results.json")).unwrap();
        assert_eq!(results.other["scratch"], serde_json::json!({"n": 3, "sample_lines": 2}));
        assert_eq!(results.config["definition"]["scratch"]["n"], 3);
        let md = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(md.contains("## Scratch\n\nn = 3, 2 sample lines"), "{md}");
        assert!(md.starts_with("# Scratch — on your samples ("), "{md}");
        assert!(md.lines().next().unwrap().ends_with("; in scratch)"), "{md}");
        let html = std::fs::read_to_string(out.join("report.html")).unwrap();
        assert!(html.contains("<section id=\"scratch\">\n<h2>Scratch</h2>\n<p>n = 3</p>"), "{html}");
        let views = crate::parts::views(&registry);
        assert!(render_all(&results, Output::Table, &views).contains("n = 3, 2 sample lines"));
        let csv = render_all(&results, Output::Csv, &views);
        assert!(csv.starts_with("table,n,sample_lines\nscratch,3,2"), "{csv}");
        let json: serde_json::Value = serde_json::from_str(&render_all(&results, Output::Json, &views)).unwrap();
        assert_eq!(json["scratch"]["n"], 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// docs/architecture.md lists the registry's parts as the registry does
    /// (`WIREBENCH_BLESS=1` writes the list).
    #[test]
    fn the_docs_list_the_registry() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/architecture.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let (begin, end) = ("<!-- parts: from the registry -->\n", "<!-- end of parts -->");
        let a = doc.find(begin).expect("the docs mark the parts list") + begin.len();
        let b = a + doc[a..].find(end).expect("the end of the parts list");
        let want = crate::parts::docs_list(REGISTRY);
        if std::env::var_os("WIREBENCH_BLESS").is_some() {
            std::fs::write(&path, format!("{}{want}{}", &doc[..a], &doc[b..])).unwrap();
        } else {
            assert_eq!(&doc[a..b], want, "docs/architecture.md: the parts list is not the registry's (WIREBENCH_BLESS=1 cargo test -p wirebench the_docs_list_the_registry)");
        }
    }

    fn study_has_dds(file: &str) -> bool {
        BUILT_IN.iter().any(|(_, f, text)| *f == file && text.contains("\n[dds]"))
    }
}
