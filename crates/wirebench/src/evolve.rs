//! `wirebench evolve`: schema evolution — every format × change × direction, encoded with the
//! writer's schema and decoded with the reader's (the engine is
//! [`wirebench_codecs::evolve`]; docs/evolve.md).

use std::path::PathBuf;

use anyhow::Result;
use wirebench_codecs::evolve::{self, Format};

use crate::common::*;
use crate::OutputArg;

#[derive(clap::Args)]
pub struct Args {
    /// The old (v1) schema: .proto, .avsc, .idl or a wirebench JSON schema.
    #[arg(long, requires = "to", conflicts_with = "builtin")]
    pub from: Option<PathBuf>,
    /// The new (v2) schema.
    #[arg(long, requires = "from", conflicts_with = "builtin")]
    pub to: Option<PathBuf>,
    /// The message / record / struct to compare when a file has several.
    #[arg(long = "type")]
    pub type_name: Option<String>,
    /// The ten built-in cases: the built-in sensor schema with one change each.
    #[arg(long)]
    pub builtin: bool,
    /// Samples per cell.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub samples: u64,
    /// Only these rows, comma-separated (protobuf, avro, thrift, cdr-xcdr1-final,
    /// cdr-xcdr2-appendable, cdr-xcdr2-mutable, json, cbor, msgpack, bson, pson).
    #[arg(long, value_delimiter = ',')]
    pub formats: Vec<String>,
    /// Print the schema files generated for each format and case, then stop.
    #[arg(long)]
    pub print_schemas: bool,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    pub output: OutputArg,
    /// Also write the whole run (every cell, its counts and notes) as JSON here, atomically.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let formats: Vec<Format> = if args.formats.is_empty() {
        Format::ALL.to_vec()
    } else {
        args.formats
            .iter()
            .map(|n| {
                Format::find(n).ok_or_else(|| {
                    let known: Vec<&str> = Format::ALL.iter().map(|f| f.id()).collect();
                    bad(format!("--formats: no row {n:?} (known: {})", known.join(", ")))
                })
            })
            .collect::<Result<_>>()?
    };
    let cases = match (&args.from, &args.to) {
        (Some(a), Some(b)) => {
            let v1 = evolve::read(a, args.type_name.as_deref()).map_err(bad)?;
            let mut v2 = evolve::read(b, args.type_name.as_deref()).map_err(bad)?;
            let numbered = |p: &std::path::Path| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("proto"));
            if !(numbered(a) && numbered(b)) {
                // Without field numbers, a kept field keeps its identity by name (or place).
                evolve::align_tags(&v1, &mut v2);
            }
            vec![evolve::user_case(v1, v2)]
        }
        _ if args.builtin => evolve::builtin_cases(),
        _ => return Err(bad("give --from V1 --to V2 (schema files) or --builtin")),
    };
    let _out_lock = claim_output(args.out.as_deref())?;
    if args.print_schemas {
        let scratch = evolve::Scratch::new().map_err(|e| anyhow::anyhow!(e))?;
        let mut text = String::new();
        for case in &cases {
            for f in &formats {
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
        return write_stdout(text.as_bytes());
    }
    let e = evolve::run(cases, &formats, args.samples as usize).map_err(|e| anyhow::anyhow!(e))?;
    let json = serde_json::to_string_pretty(&e)?;
    if let Some(out) = &args.out {
        let tmp = out.with_extension("tmp-evolve");
        std::fs::write(&tmp, json.as_bytes()).map_err(|err| anyhow::anyhow!("{}: {err}", tmp.display()))?;
        std::fs::rename(&tmp, out).map_err(|err| anyhow::anyhow!("{}: {err}", out.display()))?;
    }
    match args.output {
        OutputArg::Json => write_stdout(format!("{json}\n").as_bytes()),
        OutputArg::Csv => {
            let mut t = String::from("format,change,direction,verdict,samples,refused,wrong,lossy,defaulted,detail\n");
            for c in &e.cells {
                let d = evolve::detail(c).replace('"', "\"\"");
                t.push_str(&format!(
                    "{},{},{},{},{},{},{},{},{},\"{d}\"\n",
                    c.format.id(),
                    c.change,
                    c.direction,
                    c.verdict.label(),
                    c.samples,
                    c.refused,
                    c.wrong,
                    c.lossy,
                    c.defaulted
                ));
            }
            write_stdout(t.as_bytes())
        }
        _ => write_stdout(evolve::render(&e).as_bytes()),
    }
}
