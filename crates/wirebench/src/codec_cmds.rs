//! `encode`, `decode`, `codecs` and `schema`: one codec at a time.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use wirebench_codecs::SchemaUse;
use wirebench_core::corpus::SampleStream;
use wirebench_core::{Schema, Value};
use wirebench_report::Output;

use crate::common::*;
use crate::CodecArgs;

pub fn encode(args: CodecArgs) -> Result<()> {
    wirebench_core::value::set_max_depth(args.max_depth as usize).map_err(bad)?;
    let codec = find_codec(&args.format)?;
    let schema = args.schema.as_deref().map(read_schema).transpose()?;
    let (name, bytes) = read_input(args.input.as_deref())?;
    let text = std::str::from_utf8(&bytes).map_err(|e| bad(format!("{name}: input is not UTF-8 text (at byte {})", e.valid_up_to())))?;
    let value = Value::from_json_str(text).map_err(|e| bad(format!("{name}:{}:{}: {}", e.line(), e.column(), e.message())))?;
    let schema = match (schema, codec.info().schema) {
        (Some(s), _) => Some(s),
        (None, SchemaUse::Required) => Some(Schema::infer([&value])),
        (None, _) => None,
    };
    let mut out = Vec::new();
    codec.encode(&value, schema.as_ref(), &mut out).map_err(|e| codec_error(&name, codec, e))?;
    write_stdout(&out)
}

pub fn decode(args: CodecArgs) -> Result<()> {
    wirebench_core::value::set_max_depth(args.max_depth as usize).map_err(bad)?;
    let codec = find_codec(&args.format)?;
    let schema = args.schema.as_deref().map(read_schema).transpose()?;
    if schema.is_none() && codec.info().schema == SchemaUse::Required {
        return Err(bad(format!("{} needs --schema FILE to decode (see `wirebench schema`)", codec.info().id)));
    }
    let (name, bytes) = read_input(args.input.as_deref())?;
    let value = codec.decode(&bytes, schema.as_ref()).map_err(|e| codec_error(&name, codec, e))?;
    let mut text = value.to_json_string();
    text.push('\n');
    write_stdout(text.as_bytes())
}

pub fn codecs(output: Output) -> Result<()> {
    if output == Output::Json {
        let list: Vec<serde_json::Value> = wirebench_codecs::registry()
            .iter()
            .map(|c| {
                let i = c.info();
                serde_json::json!({
                    "id": i.id, "format": i.format, "library": i.library,
                    "library_version": i.library_version(), "schema": i.schema,
                    "media_type": i.media_type, "fidelity_notes": i.fidelity_notes,
                })
            })
            .collect();
        return write_stdout((serde_json::to_string_pretty(&list)? + "\n").as_bytes());
    }
    let mut t = wirebench_report::table::Table::new("Codecs", &["id", "format", "library", "version", "schema", "fidelity notes"]);
    for c in wirebench_codecs::registry() {
        let i = c.info();
        t.push(vec![
            i.id.into(),
            i.format.into(),
            i.library.into(),
            i.library_version().into(),
            format!("{:?}", i.schema).to_lowercase(),
            i.fidelity_notes.join("; "),
        ]);
    }
    let text = match output {
        Output::Markdown => t.to_markdown(),
        Output::Csv => {
            let mut s = wirebench_report::csv::record(&t.headers);
            for r in &t.rows {
                s.push_str(&wirebench_report::csv::record(r));
            }
            s
        }
        _ => t.to_text(),
    };
    write_stdout(text.as_bytes())
}

pub fn schema(samples: &[PathBuf], out: Option<&Path>) -> Result<()> {
    let mut inf = wirebench_core::schema::Inferrer::default();
    for item in SampleStream::open(samples).map_err(sample_error)? {
        inf.add(&item.map_err(sample_error)?.value);
    }
    let text = inf.finish().to_json_pretty() + "\n";
    match out {
        Some(p) => wirebench_core::results::write_atomic(p, text.as_bytes()).with_context(|| format!("writing {}", p.display())),
        None => write_stdout(text.as_bytes()),
    }
}

