//! `wirebench http ...` and the [http] study part: HTTP POST throughput of encoded bodies
//! against our validating collector (seed 002). The runs and the part live in
//! [`wirebench_net::study::http`]; this module parses the command and renders its results.

use std::path::PathBuf;

use anyhow::Result;
use serde_json::json;
use wirebench_core::part::{Part, PartError};
use wirebench_core::results::Results;
use wirebench_core::sections::net::HttpSection;
use wirebench_net::study::http::HttpPart;

pub use wirebench_net::study::http::HttpOpts as StudyOpts;

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

/// Check the options before anything runs (also the `[http]` part of a study).
pub fn validate(opts: &StudyOpts) -> Result<()> {
    HttpPart::validate(opts).map_err(part_error)
}

/// Run the part into the `http` results section.
pub fn measure(opts: &StudyOpts) -> Result<HttpSection> {
    HttpPart::run(opts).map_err(part_error)
}

pub fn run(args: Args) -> Result<()> {
    if let Some(out) = &args.out {
        check_writable(out)?;
    }
    let section = measure(&args.opts)?;
    let mut results = Results::new(provenance(0), json!({"measurement": "http", "options": &args.opts}));
    results.http = Some(section);
    if let Some(out) = &args.out {
        write_results(&results, out)?;
    }
    let text = match args.output {
        OutputArg::Json => serde_json::to_string_pretty(&results).expect("results serialize") + "\n",
        o => wirebench_report::net::render_http(&results, o.into()),
    };
    write_stdout(text.as_bytes())
}
