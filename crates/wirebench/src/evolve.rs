//! `wirebench evolve`: the `[evolve]` part as a command (schema evolution — every format ×
//! change × direction, encoded with the writer's schema and decoded with the reader's;
//! docs/evolve.md), plus `--print-schemas`.

use anyhow::Result;
use wirebench_codecs::evolve;
use wirebench_measure::study::evolve::EvolveOpts;

use crate::common::*;
use crate::parts::{run_command, PartArgs, EVOLVE};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub part: PartArgs<EvolveOpts>,
    /// Print the schema files generated for each format and case, then stop.
    #[arg(long)]
    pub print_schemas: bool,
}

pub fn run(args: Args) -> Result<()> {
    let opts = &args.part.opts;
    if !opts.builtin && opts.from.is_none() {
        return Err(bad("give --from V1 --to V2 (schema files) or --builtin"));
    }
    if !args.print_schemas {
        return run_command(&EVOLVE, args.part);
    }
    let rows = opts.rows().map_err(part_error)?;
    let cases = opts.cases().map_err(part_error)?;
    let scratch = evolve::Scratch::new().map_err(|e| anyhow::anyhow!(e))?;
    let mut text = String::new();
    for case in &cases {
        for f in &rows {
            for (v, s) in [("v1", &case.v1), ("v2", &case.v2)] {
                match evolve::bind(*f, s, &scratch, &format!("print-{v}")) {
                    Ok(b) if !b.text.is_empty() => {
                        text.push_str(&format!("==> {} · {} · {v}\n{}\n", case.name, f.id(), b.text))
                    }
                    Ok(_) => {}
                    Err(e) => text.push_str(&format!("==> {} · {} · {v}: {e}\n", case.name, f.id())),
                }
            }
        }
    }
    write_stdout(text.as_bytes())
}
