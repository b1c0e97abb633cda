//! `wirebench link ...` and the [link] study part: analytic link models (LPWAN airtime,
//! protocol overhead). The models and the part live in [`wirebench_net::study::link`]; this
//! module parses the command and renders its results.

use std::path::PathBuf;

use anyhow::Result;
use serde_json::json;
use wirebench_core::part::{Part, PartError};
use wirebench_core::results::Results;
use wirebench_core::sections::link::LinkSection;
use wirebench_net::study::link::LinkPart;

pub use wirebench_net::study::link::LinkOpts as StudyOpts;

use crate::common::*;
use crate::OutputArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub opts: StudyOpts,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    pub output: OutputArg,
    /// Also write the results file (JSON) here, atomically.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// A part's error as the CLI's: bad input exits with code 2.
fn part_error(e: PartError) -> anyhow::Error {
    match e {
        PartError::BadInput(m) => bad(m),
        PartError::Failed(m) => anyhow::anyhow!(m),
    }
}

/// Check the options before anything runs (also the `[link]` part of a study).
pub fn validate(opts: &StudyOpts) -> Result<()> {
    LinkPart::validate(opts).map_err(part_error)
}

/// Run the models into the `link` results section.
pub fn measure(opts: &StudyOpts) -> Result<LinkSection> {
    LinkPart::run(opts).map_err(part_error)
}

pub fn run(args: Args) -> Result<()> {
    if let Some(out) = &args.out {
        check_writable(out)?;
    }
    let section = measure(&args.opts)?;
    let mut results = Results::new(provenance(0), json!({"measurement": "link", "options": &args.opts}));
    results.link = Some(section);
    if let Some(out) = &args.out {
        write_results(&results, out)?;
    }
    let text = match args.output {
        OutputArg::Json => serde_json::to_string_pretty(&results).expect("results serialize") + "\n",
        o => wirebench_report::net::render_link(&results, o.into()),
    };
    write_stdout(text.as_bytes())
}
