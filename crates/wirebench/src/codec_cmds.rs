//! `encode`, `decode`, `codecs` and `schema`: one codec at a time.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use wirebench_codecs::{protobuf, Codec, SchemaUse};
use wirebench_core::corpus::SampleStream;
use wirebench_core::{Schema, Value};
use wirebench_report::Output;

use crate::common::*;
use crate::CodecArgs;

pub fn encode(args: CodecArgs) -> Result<()> {
    wirebench_codecs::schema_files::set_include_dirs(&args.include);
    wirebench_core::value::set_max_depth(args.max_depth as usize).map_err(bad)?;
    let codec = find_codec(&args.format)?;
    if let Some(idl) = idl_plan(&args, codec)? {
        return idl_encode(&args, &idl);
    }
    let schema =
        args.schema.as_deref().map(|p| read_schema_with(p, args.type_name.as_deref(), &args.include)).transpose()?;
    let (name, bytes) = read_input(args.input.as_deref())?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| bad(format!("{name}: input is not UTF-8 text (at byte {})", e.valid_up_to())))?;
    let value =
        Value::from_json_str(text).map_err(|e| bad(format!("{name}:{}:{}: {}", e.line(), e.column(), e.message())))?;
    // A .proto schema: the proto3 JSON mapping read from the text itself (errors at line:column).
    if let Some(desc) =
        schema.as_ref().filter(|_| codec.info().id == "protobuf").map(protobuf_descriptor).transpose()?.flatten()
    {
        let out = protobuf::dynamic::encode_json_text(text, &desc, args.ignore_unknown_fields)
            .map_err(|e| bad(format!("{name}:{e}")))?;
        return write_stdout(&out);
    }
    if codec.info().id == "uadp" && schema.is_none() && is_uadp_model(&value) {
        let json: serde_json::Value = serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))?;
        let msg =
            uadp::model_json::from_model_json(&json).map_err(|e| bad(format!("{name}: UADP NetworkMessage: {e}")))?;
        let out = uadp::to_vec(&msg).map_err(|e| bad(format!("{name}: cannot encode as UADP: {e}")))?;
        return write_stdout(&out);
    }
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
    wirebench_codecs::schema_files::set_include_dirs(&args.include);
    wirebench_core::value::set_max_depth(args.max_depth as usize).map_err(bad)?;
    let codec = find_codec(&args.format)?;
    if let Some(idl) = idl_plan(&args, codec)? {
        return idl_decode(&args, &idl);
    }
    let schema =
        args.schema.as_deref().map(|p| read_schema_with(p, args.type_name.as_deref(), &args.include)).transpose()?;
    if schema.is_none() && codec.info().id == "uadp" {
        return uadp_model_decode(&args);
    }
    if schema.is_none() && codec.info().schema == SchemaUse::Required {
        return Err(bad(format!("{} needs --schema FILE to decode (see `wirebench schema`)", codec.info().id)));
    }
    let (name, bytes) = read_input(args.input.as_deref())?;
    // A .proto schema: the proto3 JSON mapping as protobuf's JSON printers write it.
    if let Some(desc) =
        schema.as_ref().filter(|_| codec.info().id == "protobuf").map(protobuf_descriptor).transpose()?.flatten()
    {
        let text =
            protobuf::dynamic::decode_json_text(&bytes, &desc).map_err(|e| bad(format!("{name}: protobuf: {e}")))?;
        return write_stdout((text + "\n").as_bytes());
    }
    let value = codec.decode(&bytes, schema.as_ref()).map_err(|e| codec_error(&name, codec, e))?;
    let mut text = value.to_json_string();
    text.push('\n');
    write_stdout(text.as_bytes())
}

/// The message descriptor of a schema read from a .proto file.
fn protobuf_descriptor(schema: &Schema) -> Result<Option<wirebench_codecs::prost_reflect::MessageDescriptor>> {
    protobuf::dynamic::of_schema(schema).map_err(|e| bad(e.to_string()))
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
    let mut t = wirebench_report::table::Table::new(
        "Codecs",
        &["id", "format", "library", "version", "schema", "fidelity notes"],
    );
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

pub fn schema(samples: &[PathBuf], out: Option<&Path>, float32: bool) -> Result<()> {
    let _out_lock = claim_output(out)?;
    let mut inf = wirebench_core::schema::Inferrer::default();
    for item in SampleStream::open(samples).map_err(sample_error)? {
        inf.add(&item.map_err(sample_error)?.value);
    }
    let schema = inf.finish();
    let schema = if float32 { schema.with_float32().0 } else { schema };
    let text = schema.to_json_pretty() + "\n";
    match out {
        Some(p) => wirebench_core::results::write_atomic(p, text.as_bytes())
            .with_context(|| format!("writing {}", p.display())),
        None => write_stdout(text.as_bytes()),
    }
}

// ---------------------------------------------------------------------------------------------
// CDR driven by an IDL file

/// An IDL-driven CDR run: the type and the encoding.
struct IdlPlan {
    ty: cdr::TypeDesc,
    encoding: cdr::Encoding,
}

/// With `-f cdr-xcdr1|cdr-xcdr2 --schema X.idl`: the IDL type (`--type`, else the last struct
/// or union) and the encoding (`--endian`); None for every other codec or schema. The CDR-only
/// options with anything else are usage errors.
fn idl_plan(args: &CodecArgs, codec: &dyn Codec) -> Result<Option<IdlPlan>> {
    let is_idl = args.schema.as_deref().is_some_and(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("idl")));
    // Other codecs read an IDL file as a wirebench schema (structs, sequences, enums as int32).
    let v2 = match codec.info().id {
        "cdr-xcdr1" if is_idl => false,
        "cdr-xcdr2" if is_idl => true,
        _ if args.endian == crate::EndianArg::Big || args.headerless => {
            return Err(bad(
                "--endian and --headerless apply to -f cdr-xcdr1/cdr-xcdr2 with an IDL schema (--schema X.idl)",
            ))
        }
        _ => return Ok(None),
    };
    let path = args.schema.as_deref().unwrap_or(Path::new(""));
    let text = wirebench_core::corpus::read_text(path).map_err(bad)?;
    // `#include`s are followed through the file's folder and -I (schema_files::read_idl).
    wirebench_codecs::schema_files::set_include_dirs(&args.include);
    let (file, _) = wirebench_codecs::schema_files::read_idl(path, &text).map_err(bad)?;
    let (_, ty) = wirebench_codecs::schema_files::idl_type(&file, args.type_name.as_deref())
        .map_err(|m| bad(format!("{}: {m}", path.display())))?;
    let ty = ty.clone();
    let big = args.endian == crate::EndianArg::Big;
    let encoding = match (v2, big) {
        (false, false) => cdr::Encoding::XCDR1_LE,
        (false, true) => cdr::Encoding::XCDR1_BE,
        (true, false) => cdr::Encoding::XCDR2_LE,
        (true, true) => cdr::Encoding::XCDR2_BE,
    };
    Ok(Some(IdlPlan { ty, encoding }))
}

fn idl_encode(args: &CodecArgs, plan: &IdlPlan) -> Result<()> {
    let (name, bytes) = read_input(args.input.as_deref())?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| bad(format!("{name}: input is not UTF-8 text (at byte {})", e.valid_up_to())))?;
    let json: serde_json::Value = serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text)).map_err(|e| {
        let msg = e.to_string();
        bad(format!("{name}:{}:{}: {}", e.line(), e.column(), msg.split(" at line ").next().unwrap_or(&msg)))
    })?;
    let value = cdr::json::from_json(&plan.ty, &json).map_err(|e| bad(format!("{name}: {e}")))?;
    let mut enc = cdr::Encoder::new(plan.encoding);
    enc.header = !args.headerless;
    enc.max_depth = args.max_depth as usize;
    let out = enc
        .encode(&plan.ty, &value)
        .map_err(|e| bad(format!("{name}: cannot encode as CDR: {} (output byte {})", e.kind, e.offset)))?;
    write_stdout(&out)
}

fn idl_decode(args: &CodecArgs, plan: &IdlPlan) -> Result<()> {
    let (name, bytes) = read_input(args.input.as_deref())?;
    let dec = cdr::Decoder::new().headerless(args.headerless.then_some(plan.encoding));
    let value = dec
        .decode(&plan.ty, &bytes)
        .map_err(|e| bad(format!("{name}: invalid CDR: {} at byte {}", e.kind, e.offset)))?;
    let mut text = serde_json::to_string(&cdr::json::to_json(&plan.ty, &value))?;
    text.push('\n');
    write_stdout(text.as_bytes())
}

// ---------------------------------------------------------------------------------------------
// UADP without a schema: the whole NetworkMessage

/// Whether encode's input is a whole NetworkMessage in model JSON (what `decode -f uadp`
/// without a schema prints) rather than a record for the schema-directed path.
fn is_uadp_model(v: &Value) -> bool {
    matches!(v, Value::Map(pairs) if pairs.iter().any(|(k, _)| k == "dataSetMessages"))
}

/// `decode -f uadp` without `--schema`: UADP is self-describing (Variant and DataValue
/// fields), so the whole NetworkMessage is printed as model JSON — every header field, the
/// valid bit, timestamps, field encodings — which `encode -f uadp` turns back into the same
/// bytes. RawData fields, which need their types to be split, are kept as bytes.
fn uadp_model_decode(args: &CodecArgs) -> Result<()> {
    let (name, bytes) = read_input(args.input.as_deref())?;
    // RawData fields cannot be split without their types: their bytes are kept as they are.
    let opts = uadp::DecodeOptions { raw_opaque: true, ..Default::default() };
    let msg = uadp::decode_exact(&bytes, &opts).map_err(|e| bad(format!("{name}: invalid UADP: {e}")))?;
    let mut text = serde_json::to_string(&uadp::model_json::message_view(&msg, 1))?;
    text.push('\n');
    write_stdout(text.as_bytes())
}
