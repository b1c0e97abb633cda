//! `wirebench recommend`: rank formats for given constraints, with reasons.
//!
//! The sizes are measured on the spot (the same meter as `wirebench size`, on a built-in corpus
//! or the user's samples); the link figures come from the analytic models of `wirebench link`.
//! Which formats have an implementation for a microcontroller class is a curated table
//! ([`MCU_SUPPORT`]): it says what is known to run there, and our own measured C code sizes
//! come from `wirebench device`.
//!
//! Ranking: formats that break a hard constraint (a sample they cannot encode, a message over
//! the byte budget, a schema they need that the user does not have, no implementation for the
//! MCU class, a lossy round trip when `--exact`) are listed as excluded with the reason. The
//! rest are ordered by time on air on the given link (or by the largest message when no link
//! is given), then by mean size.

use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;
use wirebench_codecs::SchemaUse;
use wirebench_core::results::SizeAggregate;
use wirebench_report::table::Table;

use crate::common::{bad, write_stdout};
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

/// Device classes, smallest first.
const MCU_CLASSES: &[(&str, &str)] = &[
    ("8bit", "8-bit AVR class, about 2 KB RAM and 32 KB flash"),
    ("m0", "Cortex-M0/M0+, 8-32 KB RAM"),
    ("m4", "Cortex-M4/M7, 64-512 KB RAM"),
    ("esp32", "ESP32 class, about 320-520 KB RAM, Wi-Fi"),
    ("linux", "an MPU running Linux"),
];

/// The smallest class each codec is known to run on, and what runs there.
const MCU_SUPPORT: &[(&str, &str, &str)] = &[
    ("json", "8bit", "ArduinoJson (fixed pool), jsmn (tokenizer, no malloc)"),
    ("cbor", "8bit", "NanoCBOR, TinyCBOR (no malloc)"),
    ("msgpack", "8bit", "CMP, MPack (no malloc)"),
    ("protobuf", "8bit", "nanopb (static allocation, generated code)"),
    ("pson", "8bit", "wirebench c/pson (C99, no malloc; sizes from `wirebench device`)"),
    ("protoson", "8bit", "the Thinger.io Arduino library"),
    ("cdr-xcdr1", "m0", "wirebench c/cdr (C99, no malloc); Micro XRCE-DDS on the device side"),
    ("cdr-xcdr2", "m0", "wirebench c/cdr (C99, no malloc)"),
    ("uadp", "m0", "wirebench c/uadp (C99, no malloc)"),
    ("bson", "m4", "libbson-style encoders need a heap and 64-bit lengths"),
    ("xml", "esp32", "tinyxml2 / expat need a heap and text buffers"),
    ("uadp-json", "esp32", "open62541 PubSub JSON on ESP32"),
    ("uadp-json-rev", "esp32", "open62541 PubSub JSON on ESP32"),
    ("avro", "linux", "avro-c needs a heap and the schema at run time"),
    ("thrift", "linux", "Apache Thrift's C/C++ libraries need a heap and a runtime"),
    ("yaml", "linux", "libyaml and friends: heap-heavy, text"),
];

fn class_rank(class: &str) -> Option<usize> {
    MCU_CLASSES.iter().position(|(c, _)| *c == class)
}

#[derive(Serialize)]
struct Ranked {
    rank: usize,
    codec: String,
    mean_bytes: f64,
    max_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    airtime_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    frames: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    msgs_per_day: Option<f64>,
    schema: &'static str,
    mcu: String,
    fidelity: String,
    reasons: Vec<String>,
}

#[derive(Serialize)]
struct Excluded {
    codec: String,
    why: String,
}

#[derive(Serialize)]
struct Recommendation {
    constraints: serde_json::Value,
    ranked: Vec<Ranked>,
    excluded: Vec<Excluded>,
    notes: Vec<String>,
}

pub fn run(args: Args) -> Result<()> {
    if !["table", "md", "json"].contains(&args.output.as_str()) {
        return Err(bad(format!("unknown output {:?} (table, md, json)", args.output)));
    }
    let radio = match &args.link {
        Some(l) => Some(wirebench_net::airtime::Radio::parse(l).map_err(|e| bad(format!("--link: {e}")))?),
        None => None,
    };
    if let Some(m) = &args.mcu {
        if class_rank(m).is_none() {
            let known: Vec<_> = MCU_CLASSES.iter().map(|(c, _)| *c).collect();
            return Err(bad(format!("--mcu: unknown class {m:?} (known: {})", known.join(", "))));
        }
    }
    if args.budget == Some(0) {
        return Err(bad("--budget: must be at least 1 byte"));
    }
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
    let rec = rank(&args, radio.as_ref(), &section.aggregates)?;
    let text = match args.output.as_str() {
        "json" => serde_json::to_string_pretty(&rec)? + "\n",
        kind => render(&rec, kind == "md"),
    };
    write_stdout(text.as_bytes())
}

fn rank(args: &Args, radio: Option<&wirebench_net::airtime::Radio>, aggs: &[SizeAggregate]) -> Result<Recommendation> {
    let mut ranked = Vec::new();
    let mut excluded = Vec::new();
    let want_class = args.mcu.as_deref().and_then(class_rank);
    for a in aggs {
        let codec = wirebench_codecs::find(&a.codec).ok_or_else(|| bad(format!("unknown codec {}", a.codec)))?;
        let info = codec.info();
        let exclude = |why: String| Excluded { codec: a.codec.clone(), why };
        if a.failed + a.unsupported > 0 {
            let issue = a.first_issue.clone().unwrap_or_default();
            excluded.push(exclude(format!(
                "cannot encode {} of {} messages ({issue})",
                a.failed + a.unsupported,
                a.records
            )));
            continue;
        }
        let (Some(max), Some(mean)) = (a.bytes_max, a.bytes_mean) else {
            excluded.push(exclude("no message was encoded".into()));
            continue;
        };
        if let Some(budget) = args.budget {
            if max > budget {
                excluded.push(exclude(format!("largest message {max} B is over the {budget} B budget")));
                continue;
            }
        }
        if args.schemaless && info.schema == SchemaUse::Required {
            excluded.push(exclude("needs a schema shared by both ends (--schemaless)".into()));
            continue;
        }
        if args.exact && a.lossy > 0 {
            excluded.push(exclude(format!(
                "round trip changes values in {} of {} messages (--exact): {}",
                a.lossy,
                a.records,
                a.first_issue.clone().unwrap_or_default()
            )));
            continue;
        }
        let support = MCU_SUPPORT.iter().find(|(id, _, _)| *id == a.codec);
        let (min_class, what) = support.map(|(_, c, w)| (*c, *w)).unwrap_or(("linux", "no known microcontroller library"));
        if let Some(want) = want_class {
            if class_rank(min_class).unwrap_or(usize::MAX) > want {
                excluded.push(exclude(format!("no implementation known for {} (smallest class: {min_class}; {what})", MCU_CLASSES[want].0)));
                continue;
            }
        }
        let mut reasons = vec![format!("{:.0}% of JSON's size", a.ratio_to_json.unwrap_or(f64::NAN) * 100.0)];
        let (mut airtime_ms, mut frames, mut per_day) = (None, None, None);
        if let Some(r) = radio {
            let at = wirebench_net::airtime::airtime(r, max as usize);
            airtime_ms = Some(at.seconds * 1e3);
            frames = Some(at.frames);
            per_day = Some(at.msgs_per_day);
            if at.frames > 1 {
                reasons.push(format!("largest message needs {} frames on {}", at.frames, r.name()));
            } else {
                reasons.push(format!("fits one {} frame", r.name()));
            }
        }
        match info.schema {
            SchemaUse::Required => reasons.push("schema needed at both ends".into()),
            SchemaUse::Optional => reasons.push("schema optional".into()),
            SchemaUse::None => reasons.push("self-describing".into()),
        }
        if a.lossy > 0 {
            // first_issue reads "<payload>: lossy: <what>".
            reasons.push(a.first_issue.clone().unwrap_or_else(|| "lossy".into()));
        }
        ranked.push(Ranked {
            rank: 0,
            codec: a.codec.clone(),
            mean_bytes: mean,
            max_bytes: max,
            airtime_ms,
            frames,
            msgs_per_day: per_day,
            schema: match info.schema {
                SchemaUse::Required => "required",
                SchemaUse::Optional => "optional",
                SchemaUse::None => "none",
            },
            mcu: format!("{min_class} and up: {what}"),
            fidelity: if a.lossy > 0 { format!("lossy in {}/{}", a.lossy, a.records) } else { "exact".into() },
            reasons,
        });
    }
    ranked.sort_by(|a, b| {
        let key = |r: &Ranked| (r.airtime_ms.unwrap_or(r.max_bytes as f64), r.mean_bytes);
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(a.codec.cmp(&b.codec))
    });
    for (i, r) in ranked.iter_mut().enumerate() {
        r.rank = i + 1;
    }
    let mut notes = vec![
        match radio {
            Some(r) => format!("Ranked by time on air of the largest message on {}, then by mean size.", r.name()),
            None => "Ranked by the largest message, then by mean size (give --link to rank by time on air).".into(),
        },
        "Sizes are measured now; link figures come from the analytic models of `wirebench link` (payload only, no protocol headers).".into(),
        "Microcontroller support is a curated table (src/recommend.rs), not a measurement; `wirebench device` measures our own C codecs.".into(),
    ];
    if ranked.is_empty() {
        notes.push("No format meets every constraint: relax the budget, the MCU class or --exact.".into());
    }
    let constraints = serde_json::json!({
        "corpus": args.corpus, "samples": args.samples, "link": args.link, "budget": args.budget,
        "mcu": args.mcu, "schemaless": args.schemaless, "exact": args.exact,
    });
    Ok(Recommendation { constraints, ranked, excluded, notes })
}

fn render(rec: &Recommendation, md: bool) -> String {
    let link = rec.ranked.iter().any(|r| r.airtime_ms.is_some());
    let mut head = vec!["rank", "codec", "mean B", "max B"];
    if link {
        head.extend(["airtime ms", "frames", "msgs/day"]);
    }
    head.extend(["schema", "fidelity", "why"]);
    let mut t = Table::new(if md { "" } else { "Recommended formats" }, &head);
    for r in &rec.ranked {
        let mut row = vec![r.rank.to_string(), r.codec.clone(), format!("{:.1}", r.mean_bytes), r.max_bytes.to_string()];
        if link {
            row.push(r.airtime_ms.map(|v| format!("{v:.1}")).unwrap_or_default());
            row.push(r.frames.map(|v| v.to_string()).unwrap_or_default());
            row.push(r.msgs_per_day.map(|v| format!("{v:.0}")).unwrap_or_default());
        }
        row.push(r.schema.to_string());
        row.push(r.fidelity.clone());
        row.push(r.reasons.join("; "));
        t.push(row);
    }
    let mut out = String::new();
    if md {
        out.push_str("## Recommended formats\n\n");
    }
    out.push_str(&if md { t.to_markdown() } else { t.to_text() });
    if let Some(best) = rec.ranked.first() {
        out.push_str(&format!("\nBest fit: {} (device classes {}).\n", best.codec, best.mcu));
    }
    if !rec.excluded.is_empty() {
        out.push_str(if md { "\n## Excluded\n\n" } else { "\nExcluded\n" });
        for e in &rec.excluded {
            out.push_str(&format!("{} {}: {}\n", if md { "-" } else { " -" }, e.codec, e.why));
        }
    }
    out.push_str(if md { "\n## Notes\n\n" } else { "\nNotes\n" });
    for n in &rec.notes {
        out.push_str(&format!("{} {n}\n", if md { "-" } else { " -" }));
    }
    out
}
