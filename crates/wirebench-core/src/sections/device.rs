//! The `device` results section: what our C codecs cost on a microcontroller (code size on
//! Cortex-M0+/M4, instructions per operation).

use serde::{Deserialize, Serialize};

/// Code size of one firmware variant (arm-none-eabi-size), and its delta over the codec's
/// baseline firmware.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CodeSize {
    /// `cortex-m0plus` or `cortex-m4`.
    pub cpu: String,
    /// `pson`, `uadp` or `cdr`.
    pub codec: String,
    /// `baseline`, `enc`, `dec`, `enc+dec`, or `object` (the library object alone, before gc).
    pub variant: String,
    pub text: i64,
    pub data: i64,
    pub bss: i64,
    /// Bytes over the baseline firmware; none for the library object alone.
    #[serde(deserialize_with = "int_or_empty")]
    pub delta_text: Option<i64>,
    #[serde(deserialize_with = "int_or_empty")]
    pub delta_data: Option<i64>,
    #[serde(deserialize_with = "int_or_empty")]
    pub delta_bss: Option<i64>,
}

/// An integer, or null or `""` (how files written before this type said "none").
fn int_or_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Cell {
        Int(i64),
        Text(String),
        Null(()),
    }
    match Cell::deserialize(d)? {
        Cell::Int(n) => Ok(Some(n)),
        Cell::Text(t) if t.is_empty() => Ok(None),
        Cell::Text(t) => Err(serde::de::Error::custom(format!("{t:?} is not an integer"))),
        Cell::Null(()) => Ok(None),
    }
}

/// Instructions per operation of the C PSON codec on one payload.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Instructions {
    pub payload: String,
    pub encode_instr: i64,
    pub decode_instr: i64,
}

/// The `device` section.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeviceSection {
    /// The compiler and flags of the size builds.
    #[serde(default)]
    pub toolchain: String,
    #[serde(default)]
    pub code_size: Vec<CodeSize>,
    /// x86-64 host build under valgrind callgrind (decode = validate every item).
    #[serde(default)]
    pub instructions: Vec<Instructions>,
    /// The device lab: each library on each simulated microcontroller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab: Option<LabSection>,
}

/// A simulated microcontroller of the lab.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LabTarget {
    /// `avr`, `cortex-m0plus` or `cortex-m4`.
    pub name: String,
    /// The part the figures are stated for (memory sizes, clock).
    pub part: String,
    /// The clock µs figures are computed at.
    pub clock_hz: u64,
    pub toolchain: String,
    pub simulator: String,
    /// `exact` (AVR on simavr) or `modelled` (Cortex-M: a per-instruction cycle model).
    pub cycles: String,
}

/// A library the lab drives.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LabLib {
    /// `pson`, `uadp`, `cdr`, `nanopb`, `cjson`, `msgpuck`, `tinycbor`.
    pub name: String,
    /// The format it writes.
    pub format: String,
    /// Who wrote it and the version built.
    pub origin: String,
}

/// One (target, library, payload): the cost of one encode and one decode on the target.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LabRow {
    pub target: String,
    pub lib: String,
    pub payload: String,
    /// `ok`, or why there are no figures (does not build, does not fit, round trip failed).
    pub status: String,
    /// Encoded size in bytes (checked on the host: our codec of the format decodes them).
    pub bytes: Option<u64>,
    /// Cycles of one encode (AVR exact, Cortex-M modelled), marker cost subtracted.
    pub encode_cycles: Option<u64>,
    pub decode_cycles: Option<u64>,
    pub encode_instructions: Option<u64>,
    pub decode_instructions: Option<u64>,
    /// Cycles at the target's clock, in µs.
    pub encode_us: Option<f64>,
    pub decode_us: Option<f64>,
    /// Flash (text + data) over the baseline firmware of the same payload, bytes.
    pub flash: Option<u64>,
    /// Static RAM (data + bss) over the baseline firmware, bytes.
    pub ram: Option<u64>,
    /// Peak stack of one encode / decode, bytes (painted RAM; see `stack_floor`).
    pub stack_encode: Option<u64>,
    pub stack_decode: Option<u64>,
    /// Heap used by one encode / decode, bytes (0 for libraries that do not allocate).
    pub heap_encode: Option<u64>,
    pub heap_decode: Option<u64>,
    /// Stack figures at this value mean "at most this" (the painting's own margin).
    pub stack_floor: Option<u64>,
}

/// Code size of one of our C codecs' objects for a target the lab cannot run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ObjectSize {
    pub lib: String,
    /// Bytes of the library object, every function (nothing linked, nothing removed).
    pub text: u64,
    pub data: u64,
    pub bss: u64,
}

/// The device lab's results.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LabSection {
    pub targets: Vec<LabTarget>,
    pub libs: Vec<LabLib>,
    /// Why the ESP32 (seed 000 and 001's board) has no figures, and what is given instead.
    #[serde(default)]
    pub esp32: String,
    /// Our codecs' object sizes with the closest toolchain to the ESP32's Xtensa LX6 that is
    /// available (Xtensa LX106, the ESP8266's), compiled only.
    #[serde(default)]
    pub xtensa_objects: Vec<ObjectSize>,
    /// Libraries devices use that the lab cannot build here: [name, reason].
    pub not_here: Vec<[String; 2]>,
    pub rows: Vec<LabRow>,
}
