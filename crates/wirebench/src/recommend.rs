//! `wirebench recommend`: rank formats for given constraints, with reasons (the ranking is
//! `wirebench_net::recommend`).

use std::path::PathBuf;

use anyhow::Result;
use wirebench_net::recommend::{self, Constraints};

use crate::common::{bad, part_error, write_stdout};
use crate::size::SizeOpts;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A built-in corpus for the messages (default: pson-paper).
    #[arg(long, conflicts_with = "samples")]
    corpus: Option<String>,
    /// Your JSON/NDJSON samples (schema inferred).
    #[arg(long, num_args = 1..)]
    samples: Vec<PathBuf>,
    /// The link the messages go over (e.g. lora-sf9, lora-sf12, nb-iot, lte-m1, sigfox, ble-dle, 802.15.4).
    #[arg(long)]
    link: Option<String>,
    /// The most bytes one encoded message may take.
    #[arg(long)]
    budget: Option<u64>,
    /// The device class: 8bit (AVR-class, ~2 KB RAM), m0 (Cortex-M0+), m4 (Cortex-M4/M7), esp32, linux.
    #[arg(long)]
    mcu: Option<String>,
    /// No schema is shared between sender and receiver: schema-driven formats are excluded.
    #[arg(long)]
    schemaless: bool,
    /// Exclude formats whose round trip changes a value (e.g. a whole float read back as an integer).
    #[arg(long)]
    exact: bool,
    /// Codec ids to consider (default: all).
    #[arg(long, short = 'f', value_delimiter = ',')]
    formats: Vec<String>,
    /// table, md or json.
    #[arg(long, short = 'o', default_value = "table")]
    output: String,
}

pub fn run(args: Args) -> Result<()> {
    if !["table", "md", "json"].contains(&args.output.as_str()) {
        return Err(bad(format!("unknown output {:?} (table, md, json)", args.output)));
    }
    let constraints = Constraints {
        corpus: args.corpus.clone(),
        samples: args.samples.clone(),
        link: args.link.clone(),
        budget: args.budget,
        mcu: args.mcu.clone(),
        schemaless: args.schemaless,
        exact: args.exact,
    };
    let radio = recommend::check(&constraints).map_err(part_error)?;
    for p in &args.samples {
        if !p.exists() {
            return Err(bad(format!("{}: no such file or directory", p.display())));
        }
    }
    let opts = SizeOpts {
        corpus: args.corpus.clone(),
        samples: args.samples.clone(),
        formats: args.formats.clone(),
        ..Default::default()
    };
    let (section, _) = crate::size::measure_with_config(&opts)?;
    let rec = recommend::rank(&constraints, radio.as_ref(), &section.aggregates).map_err(part_error)?;
    let text = match args.output.as_str() {
        "json" => serde_json::to_string_pretty(&rec)? + "\n",
        kind => wirebench_report::recommend::render(&rec, kind == "md"),
    };
    write_stdout(text.as_bytes())
}

