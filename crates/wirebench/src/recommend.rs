//! `wirebench recommend`: rank formats for given constraints, with reasons (the ranking is
//! `wirebench_net::recommend`).

use std::path::{Path, PathBuf};
use wirebench_measure::study::inputs::Inputs;

use anyhow::Result;
use wirebench_net::recommend::{self, Constraints};

use crate::common::{bad, part_error, write_stdout};
use crate::size::SizeOpts;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The messages (`--corpus`, default pson-paper, or `--samples`) and their schema
    /// (`--schema`, `--type`, `-I`; default: inferred from the messages).
    #[command(flatten)]
    inputs: Inputs,
    /// The link the messages go over (e.g. lora-sf9, lora-sf12, nb-iot, lte-m1, sigfox, ble-dle, 802.15.4).
    #[arg(long)]
    link: Option<String>,
    /// The most bytes one encoded message may take.
    #[arg(long)]
    budget: Option<u64>,
    /// The device class: 8bit (AVR-class, ~2 KB RAM), m0 (Cortex-M0+), m4 (Cortex-M4/M7), esp32, linux.
    /// For 8bit, m0 and m4 the device lab measures each format's C library on the simulated
    /// target (ATmega328P, Cortex-M0+, Cortex-M4) with the largest message.
    #[arg(long)]
    mcu: Option<String>,
    /// Take the device figures from this results file of `wirebench device` instead of running
    /// the lab.
    #[arg(long)]
    device_results: Option<PathBuf>,
    /// Rank by energy per message on this radio (lora-sf7..lora-sf12, nb-iot, ble): the device
    /// lab's encode cycles, the airtime model and the datasheet currents (needs --mcu avr, m0 or m4).
    #[arg(long)]
    radio: Option<String>,
    /// Time between messages for the energy ranking (e.g. 10m; default 10m).
    #[arg(long)]
    every: Option<String>,
    /// Battery for the days figure, capacity[@voltage] (default 2400mAh@3.6V).
    #[arg(long)]
    battery: Option<String>,
    /// No schema is shared between sender and receiver: schema-driven formats are excluded.
    #[arg(long, conflicts_with = "schema")]
    schemaless: bool,
    /// Exclude formats whose round trip changes a value (e.g. a whole float read back as an integer).
    #[arg(long)]
    exact: bool,
    /// Floats that differ by at most this fraction count as exact (e.g. 1e-6 accepts float32
    /// rounding, for sensors whose precision is below it).
    #[arg(long, value_name = "REL")]
    float_tolerance: Option<f64>,
    /// With --exact: a change of key order also counts as a change (default: not; JSON objects
    /// are unordered).
    #[arg(long)]
    strict_order: bool,
    /// Codec ids to consider (default: all).
    #[arg(long, short = 'f', value_delimiter = ',')]
    formats: Vec<String>,
    /// table, md or json.
    #[arg(long, short = 'o', default_value = "table")]
    output: String,
    /// Exit 0 even when no format meets every constraint (by default that exits 4, after
    /// printing the table and its notes).
    #[arg(long)]
    no_fail: bool,
}

pub fn run(args: Args) -> Result<()> {
    if !["table", "md", "json"].contains(&args.output.as_str()) {
        return Err(bad(format!("unknown output {:?} (table, md, json)", args.output)));
    }
    let constraints = Constraints {
        corpus: args.inputs.corpus.clone(),
        samples: args.inputs.samples.clone(),
        link: args.link.clone(),
        budget: args.budget,
        mcu: args.mcu.clone(),
        schemaless: args.schemaless,
        exact: args.exact,
    };
    let radio = recommend::check(&constraints).map_err(part_error)?;
    for p in &args.inputs.samples {
        if !p.exists() {
            return Err(bad(format!("{}: no such file or directory", p.display())));
        }
    }
    let opts = SizeOpts {
        inputs: args.inputs.clone(),
        formats: args.formats.clone(),
        float_tolerance: args.float_tolerance,
        strict_order: args.strict_order,
        // A recommendation says which formats are lossless on these samples: every message's
        // round trip is checked, not a sample.
        roundtrip: Some(wirebench_measure::study::size::Compress::All),
        ..Default::default()
    };
    wirebench_measure::study::size::validate(&opts).map_err(part_error)?;
    let target = args.mcu.as_deref().and_then(recommend::lab_target);
    let energy = energy_ask(args.radio.as_deref(), args.every.as_deref(), args.battery.as_deref(), target, &[], None)?;
    let evidence = match target {
        Some(target) => {
            let mut ev = device_evidence(
                args.inputs.corpus.as_deref(),
                &args.inputs.samples,
                &args.inputs.schema,
                args.device_results.as_deref(),
                target,
            )?;
            ev.energy = energy;
            Some(ev)
        }
        None => None,
    };
    let (section, _) = crate::size::measure_with_config(&opts)?;
    let mut rec =
        recommend::rank(&constraints, radio.as_ref(), &section.aggregates, evidence.as_ref()).map_err(part_error)?;
    if rec.ranked.is_empty() && args.budget.is_some() && !args.schemaless {
        if let Some(note) = float32_suggestion(&opts, &constraints, radio.as_ref(), evidence.as_ref())? {
            rec.notes.insert(0, note);
        }
    }
    let text = match args.output.as_str() {
        "json" => serde_json::to_string_pretty(&rec)? + "\n",
        kind => wirebench_report::recommend::render(&rec, kind == "md"),
    };
    write_stdout(text.as_bytes())?;
    if rec.ranked.is_empty() && !args.no_fail {
        return Err(anyhow::Error::new(crate::common::CheckFailed(
            NOTHING_FITS,
            "no format meets every constraint (the notes above say why; --no-fail exits 0)".into(),
        )));
    }
    Ok(())
}

/// `recommend`'s exit code when no format meets every constraint (a finished run whose answer
/// is "none", as a load tester exits non-zero on a breached threshold).
pub const NOTHING_FITS: u8 = 4;

/// When nothing fits the budget: the same messages with every float field as float32,
/// measured and ranked again; a note naming the fields and the formats that then fit, with
/// their measured sizes and how to get that schema. None when no field is a float64 or
/// nothing fits either way.
pub(crate) fn float32_suggestion(
    opts: &SizeOpts,
    constraints: &Constraints,
    radio: Option<&wirebench_net::airtime::Radio>,
    evidence: Option<&recommend::DeviceEvidence>,
) -> Result<Option<String>> {
    let base = match opts.inputs.schema.read().map_err(part_error)? {
        Some(s) => s,
        None => {
            let mut inf = wirebench_core::schema::Inferrer::default();
            if opts.inputs.samples.is_empty() {
                let name = opts.inputs.corpus.as_deref().unwrap_or("pson-paper");
                for p in wirebench_measure::study::inputs::find_corpus(name).map_err(part_error)?.payloads() {
                    inf.add(&p.value);
                }
            } else {
                for item in
                    wirebench_core::corpus::SampleStream::open(&opts.inputs.samples).map_err(|e| bad(e.to_string()))?
                {
                    inf.add(&item.map_err(|e| bad(e.to_string()))?.value);
                }
            }
            inf.finish()
        }
    };
    let (tight, changed) = base.with_float32();
    if changed.is_empty() {
        return Ok(None);
    }
    let tight_opts = SizeOpts { schema_value: Some(tight), ..opts.clone() };
    let (section, _) = crate::size::measure_with_config(&tight_opts)?;
    let rec = recommend::rank(constraints, radio, &section.aggregates, evidence).map_err(part_error)?;
    if rec.ranked.is_empty() {
        return Ok(None);
    }
    let fits: Vec<String> = rec
        .ranked
        .iter()
        .take(4)
        .map(|r| format!("{} {:.1} B (max {} B)", r.codec, r.mean_bytes, r.max_bytes))
        .collect();
    let whose = if opts.inputs.schema.file.is_some() { "your schema" } else { "the inferred schema" };
    let how = if opts.inputs.samples.is_empty() {
        "a schema with those fields as float32".to_string()
    } else {
        let files: Vec<String> = opts.inputs.samples.iter().map(|p| p.display().to_string()).collect();
        format!("`wirebench schema {} --float32 --out f32.schema.json`, then --schema f32.schema.json", files.join(" "))
    };
    Ok(Some(format!(
        "nothing fits {} B with {whose}; with {} as float32 (about 7 significant digits, check your sensors' precision): {} fit — measured on the same messages. Get it with {how}.",
        constraints.budget.unwrap_or(0),
        changed.join(", "),
        fits.join(", "),
    )))
}

/// What `--radio R --every D --battery B` ask of the energy model on the lab target `target`
/// (None without --radio). `set` and `energy_data` override the data file's figures.
pub(crate) fn energy_ask(
    radio: Option<&str>,
    every: Option<&str>,
    battery: Option<&str>,
    target: Option<&str>,
    set: &[String],
    energy_data: Option<&Path>,
) -> Result<Option<recommend::EnergyAsk>> {
    let energy_opts = wirebench_net::energy::EnergyOpts {
        mcu: target.map(|t| vec![t.to_string()]).unwrap_or_default(),
        radio: radio.iter().map(|r| r.to_string()).collect(),
        every: every.map(str::to_string),
        battery: battery.map(str::to_string),
        set: set.to_vec(),
        energy_data: energy_data.map(Path::to_path_buf),
        ..Default::default()
    };
    match (radio, target) {
        (None, _) if every.is_some() || battery.is_some() => {
            Err(bad("--every and --battery rank by energy: give --radio too"))
        }
        (None, _) => Ok(None),
        (Some(_), None) => {
            Err(bad("--radio ranks by energy on a device: give --mcu avr, m0 or m4 (8bit, cortex-m0plus, cortex-m4)"))
        }
        (Some(_), Some(target)) => {
            let data = energy_opts.data().map_err(part_error)?;
            let plan = energy_opts.plan(&data).map_err(part_error)?;
            let clock_hz = wirebench_device::lab::Target::ALL
                .into_iter()
                .find(|t| t.name() == target)
                .map(|t| t.clock_hz())
                .unwrap_or(1);
            let radio = plan.radios[0];
            Ok(Some(recommend::EnergyAsk { data, radio, plan, clock_hz }))
        }
    }
}

/// The device lab's figures on `target`: from a results file of `wirebench device`, or a lab
/// run of every library on the largest message of the corpus or samples (a lab that cannot run
/// here is noted, not an error).
pub(crate) fn device_evidence(
    corpus: Option<&str>,
    samples: &[PathBuf],
    schema: &wirebench_measure::study::inputs::SchemaArgs,
    device_results: Option<&Path>,
    target: &str,
) -> Result<recommend::DeviceEvidence> {
    use wirebench_device::part::{payloads, DeviceOpts};
    if let Some(path) = device_results {
        let text = wirebench_core::corpus::read_text(path).map_err(bad)?;
        let r: wirebench_core::results::Results = serde_json::from_str(&text)
            .map_err(|e| bad(format!("{}:{}:{}: not a results file: {e}", path.display(), e.line(), e.column())))?;
        let lab = r.device.and_then(|d| d.lab).ok_or_else(|| {
            bad(format!("{}: no device lab section (run `wirebench device --out FILE`)", path.display()))
        })?;
        if !lab.rows.iter().any(|row| row.target == target) {
            return Err(bad(format!("{}: no rows for target {target}", path.display())));
        }
        return Ok(recommend::DeviceEvidence {
            target: target.into(),
            rows: lab.rows,
            unavailable: None,
            energy: None,
        });
    }
    // The samples are read once: the largest message goes straight to the lab.
    let opts = DeviceOpts {
        inputs: Inputs {
            corpus: Some(corpus.unwrap_or("pson-paper").to_string()).filter(|_| samples.is_empty()),
            samples: samples.to_vec(),
            ..Default::default()
        },
        max_payloads: Some(1000),
        ..Default::default()
    };
    let largest = payloads(&opts)
        .map_err(part_error)?
        .into_iter()
        .max_by_key(|(_, v)| v.to_json_string().len())
        .ok_or_else(|| bad("no message to measure on the device"))?;
    let lab = wirebench_device::run_lab(&wirebench_device::LabOptions {
        targets: wirebench_device::parse_targets(target).map_err(part_error)?,
        libs: wirebench_device::drivers::Lib::ALL.to_vec(),
        payloads: vec![largest],
        schema: schema.read().map_err(part_error)?,
        root: None,
        jobs: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    });
    match lab {
        Ok(lab) => {
            let rows = lab.rows;
            let unavailable = rows
                .iter()
                .all(|r| r.status.starts_with("not measured here"))
                .then(|| rows.first().map(|r| r.status.clone()).unwrap_or_else(|| "no rows".into()));
            Ok(recommend::DeviceEvidence { target: target.into(), rows, unavailable, energy: None })
        }
        Err(e) => Ok(recommend::DeviceEvidence {
            target: target.into(),
            rows: vec![],
            unavailable: Some(e.to_string()),
            energy: None,
        }),
    }
}
