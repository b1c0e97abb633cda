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
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeviceSection {
    /// The compiler and flags of the size builds.
    pub toolchain: String,
    pub code_size: Vec<CodeSize>,
    /// x86-64 host build under valgrind callgrind (decode = validate every item).
    pub instructions: Vec<Instructions>,
}
