//! The device section: code size of our C codecs on Cortex-M, instructions per operation.

use wirebench_core::results::Results;
use wirebench_core::sections::device::DeviceSection;

use crate::table::Table;
use crate::Output;

/// What seed 001 published about binary size, and why only our compiled deltas compare.
const SEED_NOTE: &str = "Seed 001 reports binary-size increases only as percentages in its Figures 5-6 (ESP32 baseline \
     260,710 B, Arduino UNO baseline 592 B) and library source sizes in its Table 2 (e.g. Protoson \
     31,294 B, NanoPB 42,000 B, not compiled); source size is not code size, so only our compiled \
     deltas are figures to compare between codecs.";

fn tables(d: &DeviceSection) -> (Table, Table) {
    let mut t = Table::new(
        "Code size added by each C codec (arm-none-eabi-gcc -Os, gc-sections; text bytes over a baseline firmware)",
        &["cpu", "codec", "encoder", "decoder", "encoder + decoder", "library object"],
    )
    .numeric_from(2);
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for r in &d.code_size {
        if !keys.contains(&(r.cpu.as_str(), r.codec.as_str())) {
            keys.push((&r.cpu, &r.codec));
        }
    }
    for (cpu, codec) in keys {
        let get = |variant: &str, object: bool| {
            d.code_size
                .iter()
                .find(|r| r.cpu == cpu && r.codec == codec && r.variant == variant)
                .map(|r| if object { Some(r.text) } else { r.delta_text })
                .map(|n| n.map(|n| n.to_string()).unwrap_or_default())
                .unwrap_or_else(|| "-".into())
        };
        t.push(vec![
            cpu.into(),
            codec.into(),
            format!("+{}", get("enc", false)),
            format!("+{}", get("dec", false)),
            format!("+{}", get("enc+dec", false)),
            get("object", true),
        ]);
    }
    let mut it = Table::new(
        "Instructions per operation, C PSON codec (x86-64 host build, valgrind callgrind; decode = validate every item)",
        &["payload", "encode_instr", "decode_instr"],
    )
    .numeric_from(1);
    for r in &d.instructions {
        it.push(vec![r.payload.clone(), r.encode_instr.to_string(), r.decode_instr.to_string()]);
    }
    (t, it)
}

pub fn render(results: &Results, output: Output) -> String {
    let Some(d) = &results.device else { return String::new() };
    let (t, it) = tables(d);
    match output {
        Output::Json => serde_json::to_string_pretty(results).expect("results serialize") + "\n",
        Output::Csv => format!("{}\n{}", crate::csv::table(&t), crate::csv::table(&it)),
        Output::Markdown => format!("{}\n{}\n{SEED_NOTE}\n", t.to_markdown(), it.to_markdown()),
        Output::Table => format!("{}\n{}\n{SEED_NOTE}\n", t.to_text(), it.to_text()),
    }
}
