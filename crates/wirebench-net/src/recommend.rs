//! Ranking formats for the user's constraints, with reasons (`wirebench recommend`).
//!
//! The sizes come from a size run (the same meter as `wirebench size`, on a built-in corpus or
//! the user's samples); the link figures from the analytic models of `wirebench link`. Which
//! formats run on a microcontroller, and at what cost, comes from the device lab
//! ([`DeviceEvidence`]: each format's C library built and run on the simulated target, on the
//! user's largest message) when the class is one the lab simulates (8bit = ATmega328P, m0 =
//! Cortex-M0+, m4 = Cortex-M4); for the other classes, or when the lab cannot run here, a
//! curated table ([`MCU_SUPPORT`]) says what is known to run there, marked as such.
//!
//! Formats that break a hard constraint (a sample they cannot encode, a message over the byte
//! budget, a schema they need that the user does not have, no implementation for the MCU class,
//! a lossy round trip when `exact`) are listed as excluded with the reason. The rest are ordered
//! by time on air on the given link (or by the largest message when no link is given), then by
//! mean size.

use std::path::PathBuf;

use crate::airtime::{airtime, Radio};
use serde::Serialize;
use wirebench_codecs::SchemaUse;
use wirebench_core::part::PartError;
use wirebench_core::results::SizeAggregate;
use wirebench_core::sections::device::LabRow;
use wirebench_core::sections::recommend::{Excluded, Ranked, Recommendation};

/// The constraints a recommendation is made for (as given; checked by [`check`]).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Constraints {
    pub corpus: Option<String>,
    pub samples: Vec<PathBuf>,
    pub link: Option<String>,
    pub budget: Option<u64>,
    pub mcu: Option<String>,
    pub schemaless: bool,
    pub exact: bool,
}

/// Check the constraints; the radio of the link, when one is given.
pub fn check(c: &Constraints) -> Result<Option<Radio>, PartError> {
    let radio = match &c.link {
        Some(l) => Some(Radio::parse(l).map_err(|e| PartError::bad(format!("--link: {e}")))?),
        None => None,
    };
    if let Some(m) = &c.mcu {
        if class_rank(m).is_none() {
            let known: Vec<_> = MCU_CLASSES.iter().map(|(c, _)| *c).collect();
            return Err(PartError::bad(format!("--mcu: unknown class {m:?} (known: {})", known.join(", "))));
        }
    }
    if c.budget == Some(0) {
        return Err(PartError::bad("--budget: must be at least 1 byte"));
    }
    Ok(radio)
}

/// Device classes, smallest first.
pub const MCU_CLASSES: &[(&str, &str)] = &[
    ("8bit", "8-bit AVR class, about 2 KB RAM and 32 KB flash"),
    ("m0", "Cortex-M0/M0+, 8-32 KB RAM"),
    ("m4", "Cortex-M4/M7, 64-512 KB RAM"),
    ("esp32", "ESP32 class, about 320-520 KB RAM, Wi-Fi"),
    ("linux", "an MPU running Linux"),
];

/// The smallest class each codec is known to run on, and what runs there.
pub const MCU_SUPPORT: &[(&str, &str, &str)] = &[
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
    let class = match wirebench_core::names::lab_target_alias(class) {
        "avr" => "8bit",
        "cortex-m0plus" => "m0",
        "cortex-m4" => "m4",
        c => c,
    };
    MCU_CLASSES.iter().position(|(c, _)| *c == class)
}

/// The device-lab target that stands for a class (`--mcu` also takes the target names).
pub fn lab_target(mcu: &str) -> Option<&'static str> {
    match wirebench_core::names::lab_target_alias(mcu) {
        "avr" => Some("avr"),
        "cortex-m0plus" => Some("cortex-m0plus"),
        "cortex-m4" => Some("cortex-m4"),
        _ => None,
    }
}

/// Which device-lab library writes each codec's format.
pub const CODEC_LIBS: &[(&str, &str)] = &[
    ("pson", "pson"),
    ("uadp", "uadp"),
    ("cdr-xcdr2", "cdr"),
    ("protobuf", "nanopb"),
    ("json", "cjson"),
    ("msgpack", "msgpuck"),
    ("cbor", "tinycbor"),
    ("xml", "tinyxml2"),
];

/// What the device lab measured on the chosen target: its rows (one or more payloads per
/// library), or why it could not run.
#[derive(Clone, Debug, Default)]
pub struct DeviceEvidence {
    pub target: String,
    pub rows: Vec<LabRow>,
    /// Set when the lab did not run: the curated table is used instead.
    pub unavailable: Option<String>,
    /// With `--radio`: the energy model (data file, radio, cadence, battery) and the lab
    /// target's clock; formats are then ranked by energy per message.
    pub energy: Option<EnergyAsk>,
}

/// What `recommend --radio R --every D --battery B` asks of the energy model.
#[derive(Clone, Debug)]
pub struct EnergyAsk {
    pub data: crate::energy::EnergyData,
    pub radio: crate::energy::EnergyRadio,
    pub plan: crate::energy::Plan,
    pub clock_hz: u64,
}

/// The worst case over the payloads of one library on the target: every payload's row must
/// be `ok`, else the first failure is the reason.
/// A library's worst case on the target over the measured messages.
struct LabCost {
    enc_us: f64,
    dec_us: f64,
    flash: u64,
    ram: u64,
    stack: u64,
    cycles: u64,
    bytes: u64,
}

fn lab_cost<'a>(ev: &'a DeviceEvidence, lib: &str) -> Result<Option<LabCost>, &'a str> {
    let rows: Vec<&LabRow> = ev.rows.iter().filter(|r| r.target == ev.target && r.lib == lib).collect();
    if rows.is_empty() {
        return Ok(None);
    }
    if let Some(bad) = rows.iter().find(|r| r.status != "ok") {
        return Err(&bad.status);
    }
    let max_f = |f: fn(&LabRow) -> Option<f64>| rows.iter().filter_map(|r| f(r)).fold(0.0, f64::max);
    let max_u = |f: fn(&LabRow) -> Option<u64>| rows.iter().filter_map(|r| f(r)).max().unwrap_or(0);
    Ok(Some(LabCost {
        enc_us: max_f(|r| r.encode_us),
        dec_us: max_f(|r| r.decode_us),
        flash: max_u(|r| r.flash),
        ram: max_u(|r| r.ram),
        stack: max_u(|r| r.stack_encode.max(r.stack_decode)),
        cycles: max_u(|r| r.encode_cycles),
        bytes: max_u(|r| r.bytes),
    }))
}

/// Rank the formats of a size run (`aggs`, one aggregate per codec) for the constraints.
pub fn rank(
    c: &Constraints,
    radio: Option<&Radio>,
    aggs: &[SizeAggregate],
    device: Option<&DeviceEvidence>,
) -> Result<Recommendation, PartError> {
    let measured = device.filter(|d| d.unavailable.is_none());
    let mut ranked = Vec::new();
    let mut excluded = Vec::new();
    let want_class = c.mcu.as_deref().and_then(class_rank);
    let mut energy: Vec<(String, Option<f64>)> = Vec::new();
    for a in aggs {
        let codec = wirebench_codecs::find(&a.codec).ok_or_else(|| {
            let known: Vec<&str> = wirebench_codecs::registry().iter().map(|c| c.info().id).collect();
            PartError::bad(wirebench_core::names::unknown("format", &a.codec, &known))
        })?;
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
        if let Some(budget) = c.budget {
            if max > budget {
                excluded.push(exclude(format!("largest message {max} B is over the {budget} B budget")));
                continue;
            }
        }
        if c.schemaless && info.schema == SchemaUse::Required {
            excluded.push(exclude("needs a schema shared by both ends (--schemaless)".into()));
            continue;
        }
        if c.exact && a.lossy > 0 {
            excluded.push(exclude(format!(
                "round trip changes values in {} of {} messages (--exact): {}",
                a.lossy,
                a.records,
                a.first_issue.clone().unwrap_or_default()
            )));
            continue;
        }
        let mut reasons = vec![format!("{:.0}% of JSON's size", a.ratio_to_json.unwrap_or(f64::NAN) * 100.0)];
        let mcu_text;
        let mut energy_uj: Option<f64> = None;
        if let Some(ev) = measured {
            // Measured on the simulated target: the format runs there if its library did.
            let lib = CODEC_LIBS.iter().find(|(id, _)| *id == a.codec).map(|(_, l)| *l);
            let cost = lib.map(|l| (l, lab_cost(ev, l)));
            match cost {
                None | Some((_, Ok(None))) => {
                    let libs: Vec<&str> = CODEC_LIBS.iter().map(|(_, l)| *l).collect();
                    excluded.push(exclude(format!(
                        "not measured on {}: the device lab has no C library of this format (it drives {})",
                        ev.target,
                        libs.join(", ")
                    )));
                    continue;
                }
                Some((l, Err(why))) => {
                    excluded.push(exclude(format!("{l} on {}: {why}", ev.target)));
                    continue;
                }
                Some((l, Ok(Some(LabCost { enc_us: enc, dec_us: dec, flash, ram, stack, cycles, bytes })))) => {
                    reasons.push(format!(
                        "on {} ({l}, measured): encode {enc:.0} µs, decode {dec:.0} µs, flash +{flash} B, RAM +{ram} B, stack {stack} B",
                        ev.target
                    ));
                    mcu_text = format!("{}: {l}, measured by the device lab", ev.target);
                    if let Some(ask) = &ev.energy {
                        if let Some(part) = ask.data.mcu_part(&ev.target) {
                            let e = crate::energy::message(
                                &ask.data,
                                &part,
                                &ev.target,
                                ask.clock_hz,
                                cycles,
                                bytes,
                                ask.radio,
                                &ask.plan,
                            );
                            reasons.push(format!(
                                "energy per message on {part} + {}: {:.1} µJ ({cycles} encode cycles = {:.1} µJ CPU, {:.1} ms on air + {:.0} ms receive = {:.1} µJ radio, {:.1} µJ sleep; {} dominates) → {}{:.0} days on the battery",
                                e.radio,
                                e.total_uj,
                                e.cpu_uj,
                                e.airtime_s * 1e3,
                                e.rx_s * 1e3,
                                e.radio_uj,
                                e.sleep_uj,
                                e.dominant,
                                if e.missing.is_empty() { "" } else { "≤ " },
                                e.battery_days
                            ));
                            energy_uj = Some(e.total_uj);
                        }
                    }
                }
            }
        } else {
            let support = MCU_SUPPORT.iter().find(|(id, _, _)| *id == a.codec);
            let (min_class, what) =
                support.map(|(_, c, w)| (*c, *w)).unwrap_or(("linux", "no known microcontroller library"));
            if let Some(want) = want_class {
                if class_rank(min_class).unwrap_or(usize::MAX) > want {
                    excluded.push(exclude(format!(
                        "no implementation known for {} (smallest class: {min_class}; {what}; curated, not measured)",
                        MCU_CLASSES[want].0
                    )));
                    continue;
                }
            }
            mcu_text = format!("{min_class} and up: {what} (curated)");
        }
        let (mut airtime_ms, mut frames, mut per_day) = (None, None, None);
        if let Some(r) = radio {
            let at = airtime(r, max as usize);
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
        energy.push((a.codec.clone(), energy_uj));
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
            }
            .into(),
            mcu: mcu_text,
            fidelity: if a.lossy > 0 { format!("lossy in {}/{}", a.lossy, a.records) } else { "exact".into() },
            reasons,
        });
    }
    let by_energy = measured.and_then(|m| m.energy.as_ref()).is_some();
    let uj = |codec: &str| energy.iter().find(|(c, _)| c == codec).and_then(|(_, e)| *e).unwrap_or(f64::INFINITY);
    ranked.sort_by(|a, b| {
        if by_energy {
            let o = uj(&a.codec).total_cmp(&uj(&b.codec));
            if o != std::cmp::Ordering::Equal {
                return o;
            }
        }
        let key = |r: &Ranked| (r.airtime_ms.unwrap_or(r.max_bytes as f64), r.mean_bytes);
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(a.codec.cmp(&b.codec))
    });
    for (i, r) in ranked.iter_mut().enumerate() {
        r.rank = i + 1;
    }
    let mut notes = vec![
        match (measured.and_then(|m| m.energy.as_ref()), radio) {
            (Some(ask), _) => format!(
                "Ranked by energy per message on {} every {} s (device lab cycles + airtime model + datasheet currents; `wirebench energy` shows the terms), then by time on air.",
                ask.radio.name(),
                ask.plan.every_s
            ),
            (None, r) => match r {
            Some(r) => format!("Ranked by time on air of the largest message on {}, then by mean size.", r.name()),
            None => "Ranked by the largest message, then by mean size (give --link to rank by time on air).".into(),
            },
        },
        "Sizes are measured now; link figures come from the analytic models of `wirebench link` (payload only, no protocol headers).".into(),
        match (measured, device) {
            (Some(ev), _) => format!(
                "Device cost measured by the device lab on {} (worst case over the measured messages; `wirebench device` shows every figure).",
                ev.target
            ),
            (None, Some(ev)) => format!(
                "Microcontroller support from a curated table, not measured: the device lab could not run here ({}).",
                ev.unavailable.clone().unwrap_or_default()
            ),
            (None, None) => match c.mcu.as_deref().and_then(lab_target) {
                Some(t) => format!("Microcontroller support from a curated table (wirebench-net/src/recommend.rs), not yet measured on the {t} device lab."),
                None => "Microcontroller support from a curated table (wirebench-net/src/recommend.rs), not measured; give --mcu avr, m0 or m4 to measure on the device lab.".into(),
            },
        },
    ];
    if ranked.is_empty() {
        notes.push("No format meets every constraint: relax the budget, the MCU class or --exact.".into());
    }
    let constraints = serde_json::to_value(c).expect("constraints serialize");
    Ok(Recommendation { constraints, ranked, excluded, notes })
}
