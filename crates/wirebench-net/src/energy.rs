//! The energy model: what one message of a battery sensor costs, split into the CPU's encode,
//! the radio, and the sleep between messages, and how many days a battery lasts at a cadence.
//!
//! Per (library, payload, MCU, radio), at a period `T` between messages:
//!
//! ```text
//! CPU    = encode_cycles / f_lab · I_active(f_lab) · V_mcu,   I_active(f) = I_row · f / f_row
//!        = encode_cycles · I_row / f_row · V_mcu               (the clock cancels out)
//! radio  = t_air(bytes) · I_tx · V_radio  +  t_rx · I_rx · V_radio
//! sleep  = (T − t_cpu − t_air − t_rx) · (I_sleep,mcu · V_mcu + I_sleep,radio · V_radio)
//! days   = C_mAh · 3.6 · V_battery / (CPU + radio + sleep) / messages_per_day
//! ```
//!
//! - `encode_cycles` and `f_lab` are the device lab's measured figures (a `LabSection`); the
//!   datasheet gives the active current at one clock (`f_row`), and the model scales it in
//!   proportion to the clock, so the energy per cycle is the row's.
//! - `t_air` is the link model's time on air ([`crate::airtime`]): the Semtech formula for LoRa
//!   (13 B LoRaWAN MAC overhead, one frame per 222/115/51 B), bytes over the uplink rate for
//!   NB-IoT, 20 B notifications for BLE.
//! - `t_rx`: LoRaWAN class A opens two receive windows after every uplink frame (RX1 at the
//!   uplink's SF after 1 s, RX2 at SF12 after 2 s); with no downlink each stays open for one
//!   preamble (`lorawan.rx_window_symbols` symbols). The phases follow Casals et al. (Sensors
//!   2017): TX, wait, RX1, wait, RX2; the waits count as sleep, and the platform-specific
//!   wake-up, radio preparation and turn-off phases are not modelled. NB-IoT: the connected
//!   mode around the uplink (`nbiot.connected_s` at `nbiot.connected_ma`), then PSM (the
//!   module's deep-sleep current) until the next message; no eDRX paging is modelled. BLE:
//!   `ble.rx_s` of receive per message (0 by default; connection events are not modelled).
//! - All parts draw from one battery through an ideal converter: energies are at each part's
//!   datasheet voltage, the battery holds `C · V_battery`.
//!
//! Every current, voltage and timing is a figure of the data file
//! (`crates/wirebench-core/data/energy.toml`) with its source; the user can override any of
//! them. A figure the data file cannot cite has no value: its term is left out and the row
//! names it, so its battery life is an upper bound.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use wirebench_core::part::{Part, PartError};
use wirebench_core::sections::device::LabSection;
use wirebench_core::sections::energy::{EnergyFigure, EnergyRow, EnergySection};

use crate::airtime::{airtime, Radio, LORA_BW_HZ};

/// The built-in data file.
pub const BUILTIN_DATA: &str = include_str!("../../wirebench-core/data/energy.toml");

/// Seconds per day.
const DAY_S: f64 = 86_400.0;

/// One figure of the data file.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub value: Option<f64>,
    pub unit: String,
    pub kind: String,
    pub at: String,
    pub source: String,
    pub checked: String,
    pub missing: Option<String>,
}

/// The figures of the data file, by `part.figure`, and the parts' names and lab targets.
#[derive(Clone, Debug, Default)]
pub struct EnergyData {
    pub figures: BTreeMap<String, Figure>,
    /// Part key → its name (`atmega328p` → `ATmega328P`).
    pub names: BTreeMap<String, String>,
    /// Lab target → part key (`avr` → `atmega328p`).
    pub lab_targets: BTreeMap<String, String>,
}

/// Units the data file may use and their factor to SI.
fn unit_factor(unit: &str) -> Option<f64> {
    Some(match unit {
        "mA" => 1e-3,
        "uA" => 1e-6,
        "V" | "Hz" | "s" | "" | "symbols" => 1.0,
        _ => return None,
    })
}

/// The range a figure of `unit` must lie in (in that unit), with its text for the error: beyond
/// it a figure is not physical (a 0 Hz clock, a 0 V supply, 1e308 mA) and the model would give
/// 0 µJ, ∞ or NaN. Zero stays allowed where a part can draw or take nothing (a sleep current, a
/// receive window).
fn physical_range(unit: &str) -> (f64, f64, &'static str) {
    match unit {
        "mA" => (0.0, 1e4, "0 to 10000 mA"),
        "uA" => (0.0, 1e7, "0 to 1e7 uA"),
        "V" => (0.5, 60.0, "0.5 to 60 V"),
        "Hz" => (1e3, 1e10, "1e3 to 1e10 Hz"),
        "s" => (0.0, DAY_S, "0 to 86400 s"),
        _ => (0.0, 1e6, "0 to 1e6"),
    }
}

/// `value` when it lies in the physical range of `unit`, else the error naming the range.
fn in_physical_range(what: &str, value: f64, unit: &str) -> Result<f64, String> {
    let (lo, hi, range) = physical_range(unit);
    if value.is_finite() && (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{what}: {} {unit} is outside {range}", short_num(value)))
    }
}

/// A number as a message shows it: plain, or in exponent form when it is huge or tiny (1e300
/// is not written out in 301 digits).
fn short_num(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e9).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// The range of `--every` (a message at most every millisecond, at least every ten years).
pub const EVERY_RANGE_S: (f64, f64) = (1e-3, 3650.0 * DAY_S);
/// The range of a battery's capacity (mAh) and voltage (V) in `--battery`.
pub const BATTERY_MAH_RANGE: (f64, f64) = (1e-3, 1e7);
pub const BATTERY_V_RANGE: (f64, f64) = (0.5, 60.0);

impl EnergyData {
    /// The built-in figures.
    pub fn builtin() -> EnergyData {
        EnergyData::parse(BUILTIN_DATA, "the built-in energy data").expect("the built-in energy data parses (tested)")
    }

    /// Parse a data file; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<EnergyData, String> {
        let mut d = EnergyData::default();
        d.merge(text, origin, false)?;
        Ok(d)
    }

    /// Add the figures of a user's file: they replace the built-in ones of the same key.
    pub fn merge_file(&mut self, path: &Path) -> Result<(), String> {
        let text = wirebench_core::corpus::read_text(path).map_err(|e| format!("--energy-data {e}"))?;
        self.merge(&text, &format!("--energy-data {}", path.display()), true)
    }

    fn merge(&mut self, text: &str, origin: &str, user: bool) -> Result<(), String> {
        let table: toml::Table =
            toml::from_str(text).map_err(|e| format!("{origin}: {}", e.to_string().replace('\n', " ")))?;
        for (part, entry) in table {
            let toml::Value::Table(entry) = entry else {
                return Err(format!("{origin}: `{part}` is not a table"));
            };
            for (key, v) in entry {
                match (key.as_str(), v) {
                    ("name", toml::Value::String(s)) => {
                        self.names.insert(part.clone(), s);
                    }
                    ("lab_target", toml::Value::String(s)) => {
                        self.lab_targets.insert(s, part.clone());
                    }
                    (_, toml::Value::Table(f)) => {
                        let full = format!("{part}.{key}");
                        let fig = figure(&f, &full, origin, user)?;
                        self.figures.insert(full, fig);
                    }
                    (_, _) => {
                        return Err(format!("{origin}: `{part}.{key}` is neither a figure table nor name / lab_target"))
                    }
                }
            }
        }
        Ok(())
    }

    /// Apply `--set key=value` (the figure must exist; its unit stays).
    pub fn set(&mut self, assignment: &str) -> Result<(), String> {
        let (key, value) =
            assignment.split_once('=').ok_or_else(|| format!("--set {assignment:?}: expected part.figure=value"))?;
        let key = key.trim();
        let value: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("--set {key}: {:?} is not a number ≥ 0", value.trim()))?;
        let known = self.figures.keys().cloned().collect::<Vec<_>>().join(", ");
        let fig = self.figures.get_mut(key).ok_or_else(|| format!("--set {key}: no such figure (known: {known})"))?;
        let value = in_physical_range(&format!("--set {key}"), value, &fig.unit)?;
        fig.value = Some(value);
        fig.kind = "user".into();
        fig.source = format!("--set {key}={value}");
        fig.checked = "user".into();
        fig.missing = None;
        Ok(())
    }

    /// A figure in SI units (A, V, Hz, s), or None when it has no value.
    pub fn si(&self, key: &str) -> Option<f64> {
        let f = self.figures.get(key)?;
        Some(f.value? * unit_factor(&f.unit).expect("units are checked on parse"))
    }

    /// A figure in SI units; a missing one counts as 0 and is noted in `missing`.
    fn need(&self, key: &str, missing: &mut Vec<String>) -> f64 {
        match self.si(key) {
            Some(v) => v,
            None => {
                if !missing.iter().any(|m| m == key) {
                    missing.push(key.to_string());
                }
                0.0
            }
        }
    }

    /// The part key of a lab target or a part name (`avr` or `atmega328p`).
    pub fn mcu_part(&self, name: &str) -> Option<String> {
        let n = wirebench_core::names::lab_target_alias(name).to_ascii_lowercase();
        if let Some(p) = self.lab_targets.get(&n) {
            return Some(p.clone());
        }
        self.lab_targets.values().find(|p| **p == n).cloned()
    }

    /// The lab target of a part key.
    fn target_of(&self, part: &str) -> Option<&str> {
        self.lab_targets.iter().find(|(_, p)| *p == part).map(|(t, _)| t.as_str())
    }

    /// The figures as the results section carries them.
    pub fn section_figures(&self) -> Vec<EnergyFigure> {
        self.figures
            .iter()
            .map(|(k, f)| EnergyFigure {
                key: k.clone(),
                value: f.value,
                unit: f.unit.clone(),
                kind: f.kind.clone(),
                at: f.at.clone(),
                source: match &f.missing {
                    Some(why) => format!("{} — {why}", f.source),
                    None => f.source.clone(),
                },
                checked: f.checked.clone(),
            })
            .collect()
    }
}

fn figure(t: &toml::Table, key: &str, origin: &str, user: bool) -> Result<Figure, String> {
    let s = |name: &str| t.get(name).and_then(|v| v.as_str()).map(String::from);
    let value = match t.get("value") {
        None => None,
        Some(toml::Value::Float(f)) => Some(*f),
        Some(toml::Value::Integer(i)) => Some(*i as f64),
        Some(_) => return Err(format!("{origin}: {key}.value is not a number")),
    };
    if value.is_some_and(|v| !v.is_finite() || v < 0.0) {
        return Err(format!("{origin}: {key}.value must be a number ≥ 0"));
    }
    let unit = s("unit").ok_or_else(|| format!("{origin}: {key} has no unit"))?;
    if unit_factor(&unit).is_none() {
        return Err(format!("{origin}: {key}: unknown unit {unit:?} (mA, uA, V, Hz, s)"));
    }
    if let Some(v) = value {
        in_physical_range(&format!("{origin}: {key}.value"), v, &unit)?;
    }
    let missing = s("missing");
    if value.is_none() && missing.is_none() {
        return Err(format!("{origin}: {key} has neither a value nor a `missing` reason"));
    }
    let (kind, source, checked) = if user {
        (
            s("kind").unwrap_or_else(|| "user".into()),
            s("source").map(|src| format!("{src} ({origin})")).unwrap_or_else(|| origin.to_string()),
            "user".to_string(),
        )
    } else {
        (
            s("kind").ok_or_else(|| format!("{origin}: {key} has no kind"))?,
            s("source").ok_or_else(|| format!("{origin}: {key} has no source"))?,
            s("checked").ok_or_else(|| format!("{origin}: {key} has no `checked`"))?,
        )
    };
    Ok(Figure { value, unit, kind, at: s("at").unwrap_or_default(), source, checked, missing })
}

/// The radios of the energy model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnergyRadio {
    /// SX1276, LoRaWAN EU868 class A at this SF.
    LoRa(u8),
    /// An NB-IoT module with PSM.
    NbIot,
    /// The nRF52840's radio, BLE 1M.
    Ble,
}

/// The names `--radio` takes.
pub const ENERGY_RADIOS: &[&str] =
    &["lora-sf7", "lora-sf8", "lora-sf9", "lora-sf10", "lora-sf11", "lora-sf12", "nb-iot", "ble"];

impl EnergyRadio {
    pub fn parse(name: &str) -> Option<EnergyRadio> {
        let n = name.trim().to_ascii_lowercase();
        match n.as_str() {
            "nb-iot" | "nbiot" | "nb-iot1" => Some(EnergyRadio::NbIot),
            "ble" => Some(EnergyRadio::Ble),
            _ => match n.strip_prefix("lora-sf").or_else(|| n.strip_prefix("sf")).and_then(|s| s.parse::<u8>().ok()) {
                Some(sf @ 7..=12) => Some(EnergyRadio::LoRa(sf)),
                _ => None,
            },
        }
    }

    pub fn name(self) -> String {
        match self {
            EnergyRadio::LoRa(sf) => format!("lora-sf{sf}"),
            EnergyRadio::NbIot => "nb-iot".into(),
            EnergyRadio::Ble => "ble".into(),
        }
    }

    /// The data file's table of the radio.
    fn part(self) -> &'static str {
        match self {
            EnergyRadio::LoRa(_) => "sx1276",
            EnergyRadio::NbIot => "nbiot",
            EnergyRadio::Ble => "ble",
        }
    }

    /// The link model's profile.
    fn link(self) -> Radio {
        match self {
            EnergyRadio::LoRa(sf) => Radio::LoRa { sf },
            EnergyRadio::NbIot => Radio::NbIot1,
            EnergyRadio::Ble => Radio::Ble { dle: false },
        }
    }
}

/// Parse a duration: a number with s, m, h or d (`10m`, `30s`, `1h`, `1.5d`).
pub fn parse_duration(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, 's')) => (&t[..i], 1.0),
        Some((i, 'm')) => (&t[..i], 60.0),
        Some((i, 'h')) => (&t[..i], 3600.0),
        Some((i, 'd')) => (&t[..i], DAY_S),
        _ => return Err(format!("--every {text:?}: expected a number with s, m, h or d (e.g. 10m)")),
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => {
            let (lo, hi) = EVERY_RANGE_S;
            let s = v * mult;
            if (lo..=hi).contains(&s) {
                Ok(s)
            } else {
                Err(format!("--every {text:?}: {s:e} s is outside 1ms to 3650d ({lo} to {hi} s)"))
            }
        }
        _ => Err(format!("--every {text:?}: expected a number > 0 with s, m, h or d (e.g. 10m)")),
    }
}

/// Parse a battery: `2400mAh` or `2400mAh@3.6V` (or `Ah`); the voltage defaults to `default_v`.
pub fn parse_battery(text: &str, default_v: f64) -> Result<(f64, f64), String> {
    let err = || format!("--battery {text:?}: expected CAPACITY[@VOLTS], e.g. 2400mAh or 2400mAh@3.6V");
    let (cap, volts) = match text.split_once('@') {
        Some((c, v)) => {
            let v = v.trim();
            let v = v.strip_suffix('V').or_else(|| v.strip_suffix('v')).unwrap_or(v);
            (c, v.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v > 0.0).ok_or_else(err)?)
        }
        None => (text, default_v),
    };
    let c = cap.trim().to_ascii_lowercase();
    let mah = if let Some(n) = c.strip_suffix("mah") {
        n.trim().parse::<f64>().ok()
    } else if let Some(n) = c.strip_suffix("ah") {
        n.trim().parse::<f64>().ok().map(|v| v * 1000.0)
    } else {
        None
    };
    let mah = mah.filter(|v| v.is_finite() && *v > 0.0).ok_or_else(err)?;
    let ((clo, chi), (vlo, vhi)) = (BATTERY_MAH_RANGE, BATTERY_V_RANGE);
    if !(clo..=chi).contains(&mah) || !(vlo..=vhi).contains(&volts) {
        return Err(format!(
            "--battery {text:?}: {} mAh at {} V is outside {clo} to {chi} mAh at {vlo} to {vhi} V",
            short_num(mah),
            short_num(volts)
        ));
    }
    Ok((mah, volts))
}

/// What to compute.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Part keys of the MCUs (`atmega328p`, ...).
    pub mcus: Vec<String>,
    pub radios: Vec<EnergyRadio>,
    /// Libraries and payloads to keep (empty: all of the lab's).
    pub libs: Vec<String>,
    pub payloads: Vec<String>,
    pub every_s: f64,
    pub battery_mah: f64,
    pub battery_v: f64,
}

/// The model's description, phase by phase, as the section carries it.
pub fn model_notes(every_s: f64) -> Vec<String> {
    vec![
        "CPU: the lab's encode cycles at the lab clock × the datasheet active current scaled in proportion to the clock (from the row's clock) × the MCU's supply voltage; decode is not counted (the sensor only encodes).".into(),
        "Radio: the link model's time on air × TX current × the radio's voltage, plus the receive time the protocol adds: LoRaWAN class A RX1 (uplink SF, after 1 s) and RX2 (SF12, after 2 s) per uplink frame, each open one preamble with no downlink; NB-IoT connected mode around the uplink; BLE receive time per message (0 by default).".into(),
        format!("Sleep: MCU and radio sleep currents over the rest of the {every_s} s period (the class A waits included); NB-IoT sleeps in PSM, no eDRX paging is modelled."),
        "Not modelled: wake-up, radio preparation and turn-off phases (platform-specific), retransmissions and downlinks, sensor readout, converter losses (all parts draw through an ideal converter from one battery of C·V).".into(),
        "A figure without a citable value is left out and named in the row's `missing`; that row's battery life is an upper bound.".into(),
    ]
}

/// Compute the section from the lab's figures.
pub fn evaluate(lab: &LabSection, data: &EnergyData, plan: &Plan, lab_source: &str) -> EnergySection {
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    let formats: BTreeMap<&str, &str> = lab.libs.iter().map(|l| (l.name.as_str(), l.format.as_str())).collect();
    for part in &plan.mcus {
        let Some(target) = data.target_of(part) else { continue };
        let Some(clock_hz) = lab.targets.iter().find(|t| t.name == target).map(|t| t.clock_hz) else {
            skipped.push(format!("{target}: not in the lab figures"));
            continue;
        };
        for r in lab.rows.iter().filter(|r| r.target == target) {
            if (!plan.libs.is_empty() && !plan.libs.contains(&r.lib))
                || (!plan.payloads.is_empty() && !plan.payloads.contains(&r.payload))
            {
                continue;
            }
            let (Some(bytes), Some(cycles)) = (r.bytes, r.encode_cycles) else {
                skipped.push(format!("{} {} {}: {}", r.target, r.lib, r.payload, r.status));
                continue;
            };
            if r.status != "ok" {
                skipped.push(format!("{} {} {}: {}", r.target, r.lib, r.payload, r.status));
                continue;
            }
            for &radio in &plan.radios {
                let mut row = message(data, part, target, clock_hz, cycles, bytes, radio, plan);
                row.lib = r.lib.clone();
                row.format = formats.get(r.lib.as_str()).map(|s| s.to_string()).unwrap_or_default();
                row.payload = r.payload.clone();
                rows.push(row);
            }
        }
    }
    EnergySection {
        every_s: plan.every_s,
        battery_mah: plan.battery_mah,
        battery_v: plan.battery_v,
        lab_source: lab_source.to_string(),
        model: model_notes(plan.every_s),
        figures: data.section_figures(),
        rows,
        skipped,
    }
}

/// One message of `bytes` encoded in `cycles` on `part` (lab target `target` at `clock_hz`),
/// sent over `radio`.
#[allow(clippy::too_many_arguments)]
pub fn message(
    data: &EnergyData,
    part: &str,
    target: &str,
    clock_hz: u64,
    cycles: u64,
    bytes: u64,
    radio: EnergyRadio,
    plan: &Plan,
) -> EnergyRow {
    let mut missing = Vec::new();
    // CPU: cycles × the energy per cycle of the datasheet row.
    let i_row = data.need(&format!("{part}.active_ma"), &mut missing);
    let f_row = data.need(&format!("{part}.active_at_hz"), &mut missing);
    let v_mcu = data.need(&format!("{part}.supply_v"), &mut missing);
    let cpu_s = cycles as f64 / clock_hz as f64;
    let cpu_j = if f_row > 0.0 { cycles as f64 * i_row / f_row * v_mcu } else { 0.0 };

    // Radio: time on air at TX current, plus the protocol's receive time.
    let rp = radio.part();
    let air = airtime(&radio.link(), bytes as usize);
    let v_radio = data.need(&format!("{rp}.supply_v"), &mut missing);
    let i_tx = data.need(&format!("{rp}.tx_ma"), &mut missing);
    let (rx_s, i_rx) = match radio {
        EnergyRadio::LoRa(sf) => {
            let symbols = data.need("lorawan.rx_window_symbols", &mut missing);
            let sf2 = data.need("lorawan.rx2_sf", &mut missing);
            let t_sym = |sf: f64| 2f64.powf(sf) / LORA_BW_HZ;
            let per_frame = symbols * (t_sym(sf as f64) + t_sym(sf2));
            (air.frames as f64 * per_frame, data.need("sx1276.rx_ma", &mut missing))
        }
        EnergyRadio::NbIot => {
            (data.need("nbiot.connected_s", &mut missing), data.need("nbiot.connected_ma", &mut missing))
        }
        EnergyRadio::Ble => (data.need("ble.rx_s", &mut missing), data.need("ble.rx_ma", &mut missing)),
    };
    let radio_j = air.seconds * i_tx * v_radio + rx_s * i_rx * v_radio;

    // Sleep over the rest of the period.
    let sleep_w = data.need(&format!("{part}.sleep_ua"), &mut missing) * v_mcu
        + data.need(&format!("{rp}.sleep_ua"), &mut missing) * v_radio;
    let sleep_s = (plan.every_s - cpu_s - air.seconds - rx_s).max(0.0);
    let sleep_j = sleep_s * sleep_w;

    let total_j = cpu_j + radio_j + sleep_j;
    let msgs_per_day = DAY_S / plan.every_s;
    let battery_j = plan.battery_mah * 3.6 * plan.battery_v;
    let battery_days = if total_j > 0.0 { battery_j / (total_j * msgs_per_day) } else { f64::INFINITY };
    let share = |x: f64| if total_j > 0.0 { x / total_j } else { 0.0 };
    let dominant = [("cpu", cpu_j), ("radio", radio_j), ("sleep", sleep_j)]
        .into_iter()
        .fold(("cpu", f64::MIN), |a, b| if b.1 > a.1 { b } else { a })
        .0;
    EnergyRow {
        target: target.into(),
        mcu: part.into(),
        radio: radio.name(),
        bytes,
        encode_cycles: cycles,
        clock_hz,
        cpu_s,
        airtime_s: air.seconds,
        rx_s,
        cpu_uj: cpu_j * 1e6,
        radio_uj: radio_j * 1e6,
        sleep_uj: sleep_j * 1e6,
        total_uj: total_j * 1e6,
        cpu_share: share(cpu_j),
        radio_share: share(radio_j),
        sleep_share: share(sleep_j),
        dominant: dominant.into(),
        msgs_per_day,
        link_msgs_per_day: air.msgs_per_day,
        battery_days,
        missing,
        ..Default::default()
    }
}

/// The options of `wirebench energy` and of the `[energy]` study part.
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(default, deny_unknown_fields)]
pub struct EnergyOpts {
    /// A results file with a `device.lab` section (default: run the device lab here, on
    /// `--corpus` or `--samples`).
    #[arg(long, conflicts_with_all = ["corpus", "samples"])]
    pub device_results: Option<PathBuf>,
    /// MCUs: lab targets avr, cortex-m0plus, cortex-m4 or parts atmega328p, samd21, nrf52840 (default: every target the lab figures have).
    #[arg(long, value_delimiter = ',')]
    pub mcu: Vec<String>,
    /// Radios: lora-sf7..lora-sf12, nb-iot, ble (default: lora-sf7, lora-sf9, lora-sf12, nb-iot, ble).
    #[arg(long, value_delimiter = ',')]
    pub radio: Vec<String>,
    /// Time between messages: a number with s, m, h or d (default 10m).
    #[arg(long)]
    pub every: Option<String>,
    /// Battery capacity and voltage, e.g. 2400mAh@3.6V (default 2400mAh@3.6V).
    #[arg(long)]
    pub battery: Option<String>,
    /// Libraries of the lab to keep (default: all).
    #[arg(long, value_delimiter = ',')]
    pub libs: Vec<String>,
    /// The messages (`--corpus`, `--samples`) and their schema (`--schema`, `--type`, `-I`).
    #[command(flatten)]
    #[serde(flatten)]
    pub inputs: wirebench_measure::study::inputs::Inputs,
    /// Payloads of the lab to keep (default: all).
    #[arg(long, value_delimiter = ',')]
    pub payloads: Vec<String>,
    /// Override a figure of the data file: part.figure=value (repeatable), e.g. sx1276.tx_ma=87.
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// A data file of the built-in file's layout whose figures replace the built-in ones.
    #[arg(long)]
    pub energy_data: Option<PathBuf>,
}

const DEFAULT_RADIOS: &[&str] = &["lora-sf7", "lora-sf9", "lora-sf12", "nb-iot", "ble"];
const DEFAULT_EVERY: &str = "10m";
const DEFAULT_BATTERY: &str = "2400mAh@3.6V";

impl EnergyOpts {
    /// The data file after `--energy-data` and `--set`.
    pub fn data(&self) -> Result<EnergyData, PartError> {
        let mut d = EnergyData::builtin();
        if let Some(p) = &self.energy_data {
            d.merge_file(p).map_err(PartError::bad)?;
        }
        for s in &self.set {
            d.set(s).map_err(PartError::bad)?;
        }
        Ok(d)
    }

    /// Everything checked, as a plan (MCUs empty = every lab target the data file knows).
    pub fn plan(&self, data: &EnergyData) -> Result<Plan, PartError> {
        let mut mcus = Vec::new();
        for m in &self.mcu {
            let p = data.mcu_part(m).ok_or_else(|| {
                let mut known: Vec<String> = data.lab_targets.keys().cloned().collect();
                known.extend(data.lab_targets.values().cloned());
                let known: Vec<&str> = known.iter().map(String::as_str).collect();
                PartError::bad(format!("--mcu: {}", wirebench_core::names::unknown("MCU", m, &known)))
            })?;
            if !mcus.contains(&p) {
                mcus.push(p);
            }
        }
        if mcus.is_empty() {
            mcus = data.lab_targets.values().cloned().collect();
        }
        let names: Vec<String> = if self.radio.is_empty() {
            DEFAULT_RADIOS.iter().map(|s| s.to_string()).collect()
        } else {
            self.radio.clone()
        };
        let radios = names
            .iter()
            .map(|r| {
                EnergyRadio::parse(r).ok_or_else(|| {
                    PartError::bad(format!("--radio {r:?}: unknown radio (known: {})", ENERGY_RADIOS.join(", ")))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let every_s = parse_duration(self.every.as_deref().unwrap_or(DEFAULT_EVERY)).map_err(PartError::bad)?;
        let (battery_mah, battery_v) =
            parse_battery(self.battery.as_deref().unwrap_or(DEFAULT_BATTERY), 3.6).map_err(PartError::bad)?;
        Ok(Plan {
            mcus,
            radios,
            libs: self.libs.clone(),
            payloads: self.payloads.clone(),
            every_s,
            battery_mah,
            battery_v,
        })
    }
}

/// The lab figures: from `--device-results`, or a lab run on the pson-paper corpus.
pub fn lab_figures(opts: &EnergyOpts, plan: &Plan, data: &EnergyData) -> Result<(LabSection, String), PartError> {
    if let Some(p) = &opts.device_results {
        let r = wirebench_core::results::Results::read(p)
            .map_err(|e| PartError::bad(format!("--device-results {}: {e}", p.display())))?;
        let lab = r
            .device
            .and_then(|d| d.lab)
            .ok_or_else(|| PartError::bad(format!("--device-results {}: no device.lab section", p.display())))?;
        for t in &lab.targets {
            in_physical_range(
                &format!("--device-results {}: target {} clock", p.display(), t.name),
                t.clock_hz as f64,
                "Hz",
            )
            .map_err(PartError::bad)?;
        }
        return Ok((lab, format!("results file {}", p.display())));
    }
    use wirebench_device as device;
    let targets = plan
        .mcus
        .iter()
        .filter_map(|m| data.target_of(m))
        .map(device::parse_targets)
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    let libs =
        if opts.libs.is_empty() { device::parse_libs("all")? } else { device::parse_libs(&opts.libs.join(","))? };
    let payloads = device::part::payloads(&device::part::DeviceOpts {
        inputs: opts.inputs.clone(),
        payloads: opts.payloads.clone(),
        ..Default::default()
    })?;
    let jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let schema = opts.inputs.schema.read()?;
    let lab =
        device::run_lab(&device::LabOptions { targets, libs, payloads, schema, root: None, jobs }).map_err(|e| {
            PartError::failed(format!("the device lab failed: {}", e.to_string().lines().next().unwrap_or("")))
        })?;
    let what = if opts.inputs.samples.is_empty() {
        format!("{} corpus", opts.inputs.corpus.as_deref().unwrap_or("pson-paper"))
    } else {
        format!(
            "samples {}",
            opts.inputs.samples.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        )
    };
    Ok((lab, format!("a device lab run ({what})")))
}

/// The `[energy]` part of a study that also has a `[device]` part: the lab figures of that
/// part (measured in the same run) instead of a lab run of its own, unless the options name a
/// results file.
pub fn run_with_lab(opts: &EnergyOpts, lab: &LabSection) -> Result<EnergySection, PartError> {
    if opts.device_results.is_some() {
        return EnergyPart::run(opts);
    }
    let data = opts.data()?;
    let plan = opts.plan(&data)?;
    Ok(evaluate(lab, &data, &plan, "this study's [device] part"))
}

/// The `[energy]` part.
pub struct EnergyPart;

impl Part for EnergyPart {
    const NAME: &'static str = "energy";
    type Options = EnergyOpts;
    type Section = EnergySection;

    fn validate(opts: &EnergyOpts) -> Result<(), PartError> {
        let data = opts.data()?;
        opts.plan(&data)?;
        if let Some(p) = &opts.device_results {
            if !p.is_file() {
                return Err(PartError::bad(format!("--device-results {}: no such file", p.display())));
            }
        } else {
            wirebench_device::part::payloads(&wirebench_device::part::DeviceOpts {
                inputs: opts.inputs.clone(),
                payloads: opts.payloads.clone(),
                ..Default::default()
            })?;
            opts.inputs.schema.read()?;
        }
        Ok(())
    }

    fn run(opts: &EnergyOpts) -> Result<EnergySection, PartError> {
        let data = opts.data()?;
        let plan = opts.plan(&data)?;
        let (lab, source) = lab_figures(opts, &plan, &data)?;
        Ok(evaluate(&lab, &data, &plan, &source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirebench_core::sections::device::{LabLib, LabRow, LabTarget};

    #[test]
    fn energy_radios_have_the_names_link_uses() {
        // One name per radio across commands: what `energy` prints and takes is what `link` takes.
        for name in ENERGY_RADIOS.iter().chain(DEFAULT_RADIOS) {
            let r = EnergyRadio::parse(name).unwrap();
            assert_eq!(r.name(), *name);
            assert!(crate::airtime::RADIO_NAMES.contains(name), "{name} is not a `link` radio name");
        }
    }

    #[test]
    fn builtin_data_parses_and_every_figure_has_a_source() {
        let d = EnergyData::builtin();
        assert!(!d.figures.is_empty());
        for (k, f) in &d.figures {
            assert!(f.source.trim().len() > 10, "{k}: no source");
            assert!(!f.at.trim().is_empty(), "{k}: no conditions (`at`)");
            assert!(["typ", "max", "spec", "model"].contains(&f.kind.as_str()), "{k}: kind {}", f.kind);
            assert!(["read", "not re-read", "missing"].contains(&f.checked.as_str()), "{k}: checked {}", f.checked);
            assert_eq!(f.value.is_none(), f.checked == "missing", "{k}: a value iff not missing");
            assert!(f.value.is_some() || f.missing.is_some(), "{k}: missing without a reason");
        }
        // Every MCU table the lab maps has the figures the model needs.
        for part in d.lab_targets.values() {
            for fig in ["active_ma", "active_at_hz", "supply_v", "sleep_ua"] {
                assert!(d.figures.contains_key(&format!("{part}.{fig}")), "{part}.{fig}");
            }
        }
        assert_eq!(d.mcu_part("avr").as_deref(), Some("atmega328p"));
        assert_eq!(d.mcu_part("cortex-m0plus").as_deref(), Some("samd21"));
        assert_eq!(d.mcu_part("cortex-m4").as_deref(), Some("nrf52840"));
        assert_eq!(d.mcu_part("nrf52840").as_deref(), Some("nrf52840"));
        // The device classes every command takes for --mcu.
        assert_eq!(d.mcu_part("m0").as_deref(), Some("samd21"));
        assert_eq!(d.mcu_part("M4").as_deref(), Some("nrf52840"));
        assert_eq!(d.mcu_part("8bit").as_deref(), Some("atmega328p"));
        assert_eq!(d.mcu_part("z80"), None);
    }

    #[test]
    fn parsers() {
        assert_eq!(parse_duration("10m").unwrap(), 600.0);
        assert_eq!(parse_duration("1.5h").unwrap(), 5400.0);
        assert_eq!(parse_duration("2d").unwrap(), 172_800.0);
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("-1m").is_err());
        assert_eq!(parse_battery("2400mAh@3.6V", 3.0).unwrap(), (2400.0, 3.6));
        assert_eq!(parse_battery("2.4Ah", 3.0).unwrap(), (2400.0, 3.0));
        assert!(parse_battery("2400", 3.0).is_err());
        assert!(parse_battery("2400mAh@0V", 3.0).is_err());
        // Beyond physical ranges, with the range in the one-line message.
        for bad in ["1e300mAh@1e300V", "2400mAh@1000V", "1e-9mAh", "1e12mAh"] {
            let e = parse_battery(bad, 3.6).unwrap_err();
            assert!(e.contains("is outside 0.001 to 10000000 mAh at 0.5 to 60 V"), "{bad}: {e}");
        }
        for bad in ["1e-320s", "0.1ms", "1e-6s", "4000d"] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.contains("1ms to 3650d") || e.contains("expected a number"), "{bad}: {e}");
        }
        assert_eq!(parse_duration("1e-3s").unwrap(), 1e-3);
        assert!(parse_duration("1e-320s").unwrap_err().contains("is outside 1ms to 3650d"));
        assert_eq!(EnergyRadio::parse("lora-sf9"), Some(EnergyRadio::LoRa(9)));
        assert_eq!(EnergyRadio::parse("nb-iot"), Some(EnergyRadio::NbIot));
        assert_eq!(EnergyRadio::parse("lora-sf13"), None);
    }

    #[test]
    fn set_and_user_file_override() {
        let mut d = EnergyData::builtin();
        d.set("sx1276.tx_ma=87").unwrap();
        assert!((d.si("sx1276.tx_ma").unwrap() - 0.087).abs() < 1e-12);
        assert_eq!(d.figures["sx1276.tx_ma"].checked, "user");
        d.set("samd21.sleep_ua=4").unwrap();
        assert!((d.si("samd21.sleep_ua").unwrap() - 4e-6).abs() < 1e-15);
        assert!(d.set("sx1276.tx_ma").is_err());
        assert!(d.set("nope.x=1").is_err());
        assert!(d.set("sx1276.tx_ma=-1").is_err());
        // Figures beyond physical ranges: refused with the range (no 0 µJ, ∞ or NaN later).
        for (set, range) in [
            ("atmega328p.active_at_hz=0", "outside 1e3 to 1e10 Hz"),
            ("samd21.supply_v=0", "outside 0.5 to 60 V"),
            ("sx1276.tx_ma=1e308", "outside 0 to 10000 mA"),
            ("nbiot.connected_s=1e9", "outside 0 to 86400 s"),
        ] {
            let e = d.set(set).unwrap_err();
            assert!(e.contains(range) && e.starts_with("--set "), "{set}: {e}");
        }
        let f = std::env::temp_dir().join(format!("wb-energy-range-{}.toml", std::process::id()));
        std::fs::write(&f, "[samd21.supply_v]\nvalue = 0\nunit = \"V\"\n").unwrap();
        let e = EnergyData::builtin().merge_file(&f).unwrap_err();
        assert!(e.contains("samd21.supply_v.value: 0 V is outside 0.5 to 60 V"), "{e}");
        let _ = std::fs::remove_file(&f);
        let dir = std::env::temp_dir().join(format!("wb-energy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("e.toml");
        std::fs::write(&f, "[nbiot.tx_ma]\nvalue = 100\nunit = \"mA\"\nsource = \"my bench\"\n").unwrap();
        d.merge_file(&f).unwrap();
        assert!((d.si("nbiot.tx_ma").unwrap() - 0.1).abs() < 1e-12);
        assert!(d.figures["nbiot.tx_ma"].source.contains("my bench"));
        std::fs::write(&f, "[nbiot.tx_ma]\nvalue = 100\n").unwrap();
        assert!(d.merge_file(&f).unwrap_err().contains("unit"));
        std::fs::remove_dir_all(&dir).ok();
    }

    fn lab() -> LabSection {
        LabSection {
            targets: vec![LabTarget {
                name: "cortex-m0plus".into(),
                part: "test".into(),
                clock_hz: 48_000_000,
                toolchain: String::new(),
                simulator: String::new(),
                cycles: "modelled".into(),
            }],
            libs: vec![LabLib { name: "pson".into(), format: "pson".into(), origin: String::new() }],
            not_here: vec![],
            esp32: String::new(),
            xtensa_objects: vec![],
            rows: vec![
                LabRow {
                    target: "cortex-m0plus".into(),
                    lib: "pson".into(),
                    payload: "Test01".into(),
                    status: "ok".into(),
                    bytes: Some(40),
                    encode_cycles: Some(12_000),
                    ..Default::default()
                },
                LabRow {
                    target: "cortex-m0plus".into(),
                    lib: "pson".into(),
                    payload: "Test02".into(),
                    status: "does not fit".into(),
                    ..Default::default()
                },
            ],
        }
    }

    /// One configuration by hand: SAMD21 (figures from the data file) encoding 40 B in 12 000
    /// cycles, LoRaWAN SF9 on the SX1276, every 10 minutes, 2400 mAh at 3.6 V.
    #[test]
    fn hand_calculation_sf9() {
        let mut d = EnergyData::builtin();
        d.set("samd21.sleep_ua=4").unwrap(); // the data file has no citable standby figure
        let plan = Plan {
            mcus: vec!["samd21".into()],
            radios: vec![EnergyRadio::LoRa(9)],
            libs: vec![],
            payloads: vec![],
            every_s: 600.0,
            battery_mah: 2400.0,
            battery_v: 3.6,
        };
        let s = evaluate(&lab(), &d, &plan, "test");
        assert_eq!(s.rows.len(), 1);
        assert_eq!(s.skipped, vec!["cortex-m0plus pson Test02: does not fit".to_string()]);
        let r = &s.rows[0];

        // Semtech: T_sym = 2^SF / BW; preamble (8 + 4.25) T_sym; payload symbols
        // 8 + max(ceil((8 PL − 4 SF + 28 + 16 CRC − 20 IH) / (4 (SF − 2 DE))) (CR + 4), 0),
        // PL = 40 + 13 B LoRaWAN MAC, CRC 1, IH 0, DE 0 at SF9, CR 1 (4/5).
        let t_sym = 512.0 / 125_000.0;
        let pl = 53.0;
        let n_payload: f64 = 8.0 + ((8.0 * pl - 36.0 + 28.0 + 16.0) / (4.0 * 9.0_f64)).ceil() * 5.0;
        assert_eq!(n_payload, 68.0);
        let t_air = (8.0 + 4.25) * t_sym + n_payload * t_sym;
        assert!((r.airtime_s - t_air).abs() < 1e-12, "{} vs {t_air}", r.airtime_s);

        // Figures of the data file.
        let (i_act, f_row, v_mcu) = (3.37e-3, 48e6, 3.3);
        let (i_tx, i_rx, v_radio, i_sleep_radio) = (29e-3, 9.9e-3, 3.3, 0.2e-6);
        let i_sleep_mcu = 4e-6;
        let cpu = 12_000.0 * i_act / f_row * v_mcu;
        let t_rx = 12.25 * (t_sym + 4096.0 / 125_000.0);
        let radio = t_air * i_tx * v_radio + t_rx * i_rx * v_radio;
        let sleep = (600.0 - 12_000.0 / 48e6 - t_air - t_rx) * (i_sleep_mcu * v_mcu + i_sleep_radio * v_radio);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(close(r.cpu_uj, cpu * 1e6), "{} vs {}", r.cpu_uj, cpu * 1e6);
        assert!(close(r.radio_uj, radio * 1e6), "{} vs {}", r.radio_uj, radio * 1e6);
        assert!(close(r.sleep_uj, sleep * 1e6), "{} vs {}", r.sleep_uj, sleep * 1e6);
        let days = 2400.0 * 3.6 * 3.6 / ((cpu + radio + sleep) * 144.0);
        assert!(close(r.battery_days, days), "{} vs {days}", r.battery_days);
        assert_eq!(r.dominant, "radio");
        assert!(r.missing.is_empty(), "{:?}", r.missing);
        assert_eq!(r.msgs_per_day, 144.0);
    }

    #[test]
    fn missing_figures_are_named() {
        // Every figure of the built-in file has a value today; a data file without some of
        // them (a part the user adds, say) leaves their terms out and names them.
        let full = EnergyData::builtin();
        let plan = Plan {
            mcus: vec!["samd21".into()],
            radios: vec![EnergyRadio::NbIot],
            libs: vec![],
            payloads: vec![],
            every_s: 600.0,
            battery_mah: 2400.0,
            battery_v: 3.6,
        };
        assert!(evaluate(&lab(), &full, &plan, "test").rows.iter().all(|r| r.missing.is_empty()));
        let missing = ["samd21.sleep_ua", "nbiot.tx_ma", "nbiot.connected_s", "nbiot.connected_ma"];
        let mut d = full.clone();
        for k in missing {
            let f = d.figures.get_mut(k).unwrap();
            f.value = None;
            f.missing = Some("not given".into());
        }
        let s = evaluate(&lab(), &d, &plan, "test");
        let m = &s.rows[0].missing;
        for k in missing {
            assert!(m.iter().any(|x| x == k), "{k} in {m:?}");
        }
    }

    #[test]
    fn bad_options_are_bad_input() {
        let bad = |o: EnergyOpts| matches!(EnergyPart::validate(&o), Err(PartError::BadInput(_)));
        assert!(bad(EnergyOpts { mcu: vec!["z80".into()], ..Default::default() }));
        assert!(bad(EnergyOpts { radio: vec!["wifi".into()], ..Default::default() }));
        assert!(bad(EnergyOpts { every: Some("soon".into()), ..Default::default() }));
        assert!(bad(EnergyOpts { battery: Some("big".into()), ..Default::default() }));
        assert!(bad(EnergyOpts { set: vec!["x=1".into()], ..Default::default() }));
        assert!(EnergyPart::validate(&EnergyOpts::default()).is_ok());
    }
}
