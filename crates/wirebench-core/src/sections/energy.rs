//! The `energy` results section: energy per message and battery life of a sensor that encodes
//! each reading with a library on a microcontroller and sends it over a radio. CPU cost comes
//! from the device lab's measured encode cycles, radio cost from the link models' airtime, and
//! every current, voltage and protocol timing from the energy data file, whose figures (with
//! their sources) the section carries.

use serde::{Deserialize, Serialize};

/// One figure of the energy data file as this run used it.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EnergyFigure {
    /// `part.figure`, e.g. `sx1276.tx_ma`.
    pub key: String,
    /// None when the data file has no citable value and the user set none.
    pub value: Option<f64>,
    pub unit: String,
    /// `typ`, `max`, `spec` (a protocol constant), `model` (an assumption of the model), or
    /// `user` (set with --set or an --energy-data file).
    pub kind: String,
    /// The conditions the figure is stated for.
    pub at: String,
    /// Document title, revision, section/table (or the user's file / option).
    pub source: String,
    /// `read`, `not re-read`, `missing` or `user`.
    pub checked: String,
}

/// One (library, payload, MCU, radio): the energy of one message and the battery life.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EnergyRow {
    /// The library of the device lab (`pson`, `nanopb`, ...).
    pub lib: String,
    /// The format it writes.
    pub format: String,
    pub payload: String,
    /// The lab target (`avr`, `cortex-m0plus`, `cortex-m4`).
    pub target: String,
    /// The part whose datasheet figures are used (`atmega328p`, `samd21`, `nrf52840`).
    pub mcu: String,
    /// `lora-sf7` .. `lora-sf12`, `nb-iot`, `ble` (the names `link` uses).
    pub radio: String,
    /// Encoded bytes (the lab's, checked on the host).
    pub bytes: u64,
    /// Measured encode cycles on the target (the lab's figure).
    pub encode_cycles: u64,
    /// The lab target's clock.
    pub clock_hz: u64,
    /// Encode time at that clock, seconds.
    pub cpu_s: f64,
    /// Radio time on air of the message (all frames), seconds.
    pub airtime_s: f64,
    /// Receive / connected time the model adds per message (class A windows, NB-IoT
    /// connected mode, BLE receive), seconds.
    pub rx_s: f64,
    /// Energy of one encode, µJ.
    pub cpu_uj: f64,
    /// Energy of transmitting and of the receive windows / connected mode, µJ.
    pub radio_uj: f64,
    /// Sleep energy of MCU and radio over the rest of one period, µJ.
    pub sleep_uj: f64,
    pub total_uj: f64,
    /// Shares of total_uj (0..1).
    pub cpu_share: f64,
    pub radio_share: f64,
    pub sleep_share: f64,
    /// `cpu`, `radio` or `sleep`: the largest term.
    pub dominant: String,
    /// At the cadence of the run.
    pub msgs_per_day: f64,
    /// Messages per day the link's rule allows (EU868 duty cycle, capacity), from the link model.
    pub link_msgs_per_day: f64,
    /// Battery life at the cadence; an upper bound when `missing` is not empty.
    pub battery_days: f64,
    /// Figures the model needed and the data file does not give (their terms are left out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

/// The `energy` section.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EnergySection {
    /// Seconds between messages.
    pub every_s: f64,
    /// Battery capacity, mAh, and its nominal voltage, V.
    pub battery_mah: f64,
    pub battery_v: f64,
    /// Where the lab figures came from (a results file, or a lab run).
    pub lab_source: String,
    /// The model, phase by phase, and its assumptions.
    pub model: Vec<String>,
    /// Every figure of the data file the run used, with its source.
    pub figures: Vec<EnergyFigure>,
    pub rows: Vec<EnergyRow>,
    /// Lab rows without figures (not ok on the target), as `target lib payload: status`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}
