//! `transcode`: OPC UA PubSub NetworkMessages between UADP (binary) and the JSON mapping.

use anyhow::Result;
use uadp::json::{from_json, to_json, JsonDecodeOptions, JsonForm, JsonOptions};
use uadp::{decode_exact, to_vec, BuiltInType, DecodeOptions};

use crate::common::*;
use crate::TranscodeArgs;

fn publisher_type(name: &str) -> Result<BuiltInType> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "byte" => BuiltInType::Byte,
        "uint16" => BuiltInType::UInt16,
        "uint32" => BuiltInType::UInt32,
        "uint64" => BuiltInType::UInt64,
        "string" => BuiltInType::String,
        other => return Err(bad(format!("unknown PublisherId type {other:?} (Byte, UInt16, UInt32, UInt64, String)"))),
    })
}

pub fn transcode(args: TranscodeArgs) -> Result<()> {
    let (name, bytes) = read_input(args.input.as_deref())?;
    match args.to.as_str() {
        "uadp" => {
            let text = std::str::from_utf8(&bytes)
                .map_err(|e| bad(format!("{name}: input is not UTF-8 text (at byte {})", e.valid_up_to())))?;
            let publisher_id_type = args.publisher_id_type.as_deref().map(publisher_type).transpose()?;
            let msg = from_json(text, &JsonDecodeOptions { publisher_id_type, ..Default::default() })
                .map_err(|e| bad(format!("{name}: JSON NetworkMessage: {e}")))?;
            let out = to_vec(&msg.message).map_err(|e| bad(format!("{name}: cannot encode as UADP: {e}")))?;
            write_stdout(&out)
        }
        "json" => {
            let msg = decode_exact(&bytes, &DecodeOptions::default())
                .map_err(|e| bad(format!("{name}: UADP NetworkMessage: {e}")))?;
            // Part 14's JSON has no member for the valid bit: refuse rather than drop it.
            if let Some(i) = msg.messages.iter().position(|d| !d.valid) {
                return Err(bad(format!(
                    "{name}: DataSetMessage {i} is marked not valid, which the Part 14 JSON mapping cannot say; `wirebench decode -f uadp` writes the whole message (valid bit included) as JSON that `encode -f uadp` reads back"
                )));
            }
            let form = if args.nonreversible { JsonForm::NonReversible } else { JsonForm::Reversible };
            let text = to_json(&msg, &JsonOptions { form, ..Default::default() })
                .map_err(|e| bad(format!("{name}: cannot write as JSON: {e}")))?;
            write_stdout((text + "\n").as_bytes())
        }
        other => Err(bad(format!("--to {other:?}: expected uadp or json"))),
    }
}
