//! The `device` part (the `[device]` table of a study, and `wirebench device`): the device
//! lab on the chosen targets, libraries and payloads, or with `codec_sizes` the older
//! measurement of our own C codecs (Cortex-M code size, x86 instruction counts).

use std::path::PathBuf;

use wirebench_core::corpus::{self, SampleStream};
use wirebench_core::part::{Part, PartError};
use wirebench_core::sections::device::DeviceSection;
use wirebench_core::value::Value;

use wirebench_measure::study::inputs::{check_payloads, find_corpus, sample_error};

/// `--libs`'s help: every library of the lab, from its registry.
fn libs_help() -> String {
    let names: Vec<&str> = super::drivers::Lib::ALL.iter().map(|l| l.name()).collect();
    format!("Libraries, comma-separated: {}, or all (the default)", names.join(", "))
}

/// The options of this part in a study file (and of the command).
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(default, deny_unknown_fields)]
pub struct DeviceOpts {
    /// Targets, comma-separated: avr (ATmega328P on simavr), cortex-m0plus, cortex-m4 (unicorn
    /// with a cycle model), or all (the default).
    #[arg(long, value_delimiter = ',')]
    pub targets: Vec<String>,
    /// Libraries, comma-separated, or all (the default); the list in `--help` comes from the
    /// lab's library registry (`drivers::Lib::ALL`).
    #[arg(long, value_delimiter = ',', help = libs_help())]
    pub libs: Vec<String>,
    /// The messages (`--corpus`, `--samples`) and their schema (`--schema`, `--type`, `-I`).
    #[command(flatten)]
    #[serde(flatten)]
    pub inputs: wirebench_measure::study::inputs::Inputs,
    /// Only these payloads of the corpus (names, comma-separated, e.g. Test01,Test10).
    #[arg(long, value_delimiter = ',')]
    pub payloads: Vec<String>,
    /// The most samples measured (each is a firmware per target and library; default 10).
    #[arg(long)]
    pub max_payloads: Option<usize>,
    /// Firmwares built and run at once (default: the CPUs of this machine).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Instead of the lab: code size of our C codecs on Cortex-M and x86 instruction counts.
    #[arg(long)]
    pub codec_sizes: bool,
    /// A checkout's c/ folder to build (default: the sources compiled into this binary).
    #[arg(long)]
    pub c_dir: Option<PathBuf>,
}

/// The `[device]` part.
pub struct DevicePart;

const MAX_PAYLOADS_LIMIT: usize = 1000;
const MAX_JOBS: usize = 256;

fn targets(opts: &DeviceOpts) -> Result<Vec<super::lab::Target>, PartError> {
    super::parse_target_lists(&opts.targets)
}

fn libs(opts: &DeviceOpts) -> Result<Vec<super::drivers::Lib>, PartError> {
    super::parse_lib_lists(&opts.libs)
}

/// The payloads of the run, named.
pub fn payloads(opts: &DeviceOpts) -> Result<Vec<(String, Value)>, PartError> {
    let max = opts.max_payloads.unwrap_or(10);
    let mut out: Vec<(String, Value)> = if opts.inputs.samples.is_empty() {
        let c = find_corpus(opts.inputs.corpus.as_deref().unwrap_or("pson-paper"))?;
        c.payloads().into_iter().map(|p| (p.name, p.value)).collect()
    } else {
        let mut v = Vec::new();
        for item in SampleStream::open(&opts.inputs.samples).map_err(sample_error)? {
            let p: corpus::Payload = item.map_err(sample_error)?;
            if v.len() == max {
                break;
            }
            v.push((p.name, p.value));
        }
        v
    };
    if !opts.payloads.is_empty() {
        for want in &opts.payloads {
            if !out.iter().any(|(n, _)| n == want) {
                let known: Vec<&str> = out.iter().map(|(n, _)| n.as_str()).collect();
                return Err(PartError::bad(format!("payloads: no payload {want:?} (known: {})", known.join(", "))));
            }
        }
        out.retain(|(n, _)| opts.payloads.contains(n));
    }
    out.truncate(max);
    Ok(out)
}

impl Part for DevicePart {
    const NAME: &'static str = "device";
    type Options = DeviceOpts;
    type Section = DeviceSection;

    fn validate(opts: &DeviceOpts) -> Result<(), PartError> {
        targets(opts)?;
        libs(opts)?;
        if let Some(n) = opts.max_payloads {
            if n == 0 || n > MAX_PAYLOADS_LIMIT {
                return Err(PartError::bad(format!("max_payloads = {n}: give 1 to {MAX_PAYLOADS_LIMIT}")));
            }
        }
        if let Some(n) = opts.jobs {
            if n == 0 || n > MAX_JOBS {
                return Err(PartError::bad(format!("jobs = {n}: give 1 to {MAX_JOBS}")));
            }
        }
        if let Some(dir) = &opts.c_dir {
            if !dir.join("Makefile").is_file() {
                return Err(PartError::bad(format!(
                    "{}: no Makefile here (--c-dir names a checkout's c/ folder)",
                    dir.display()
                )));
            }
        }
        check_payloads(opts.inputs.corpus.as_deref(), &[], &opts.inputs.samples, &opts.inputs.schema)?;
        if !opts.codec_sizes {
            payloads(opts)?;
        }
        Ok(())
    }

    fn run(opts: &DeviceOpts) -> Result<DeviceSection, PartError> {
        Self::run_with(opts, &|_| {})
    }
}

impl DevicePart {
    /// [`Part::run`], with `finished` seeing the section of the lab's firmwares done so far after
    /// each one (the device lab; `--codec-sizes` is one step), so that a signal can still write
    /// them.
    pub fn run_with(opts: &DeviceOpts, finished: &(dyn Fn(&DeviceSection) + Sync)) -> Result<DeviceSection, PartError> {
        Self::validate(opts)?;
        if opts.codec_sizes {
            return super::measure(opts.c_dir.as_deref());
        }
        let jobs = opts.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
        let lab = super::run_lab_with(
            &super::LabOptions {
                targets: targets(opts)?,
                libs: libs(opts)?,
                payloads: payloads(opts)?,
                schema: opts.inputs.schema.read()?,
                root: opts.c_dir.as_ref().map(|c| {
                    c.parent()
                        .filter(|p| !p.as_os_str().is_empty())
                        .map(|p| p.to_path_buf())
                        .unwrap_or_else(|| PathBuf::from("."))
                }),
                jobs,
            },
            &|lab| finished(&DeviceSection { lab: Some(lab.clone()), ..DeviceSection::default() }),
        )?;
        Ok(DeviceSection { lab: Some(lab), ..DeviceSection::default() })
    }
}
