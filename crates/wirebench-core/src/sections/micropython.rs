//! The `micropython` results section: what the Python device codecs cost under MicroPython, as
//! seed 000 reports it (bytecode size of each module, heap allocated per encode/decode of its
//! messages), measured on MicroPython's unix port in single and double precision.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Heap allocated by one operation (`gc.mem_alloc()` before and after, the collector off).
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HeapUse {
    /// Every byte the operation took from the heap (garbage included, in GC blocks).
    pub allocated: u64,
    /// Still allocated after a collection with the result alive.
    pub retained: u64,
}

/// One message of seed 000: its format and field count, its size, and the heap per operation.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HeapRow {
    /// `uadp`, `uadp-json-dv` (the thesis's JSON NetworkMessage) or `pson`.
    pub format: String,
    pub fields: u64,
    pub wire_bytes: u64,
    pub encode: HeapUse,
    pub decode: HeapUse,
}

/// One MicroPython build the codecs ran on.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MicroPythonBuild {
    /// `f32` (single precision, as the board ports), `f64`, `f32_32bit` (a 32-bit build).
    pub name: String,
    pub micropython: String,
    pub float: String,
    pub word_bits: u64,
    /// Bytes of each module compiled by mpy-cross (`.mpy`).
    pub bytecode_bytes: BTreeMap<String, u64>,
    /// Bytecode a device needs per codec (`uadp`, `uadp+json`, `pson`), package included.
    pub library_bytecode_bytes: BTreeMap<String, u64>,
    /// Heap taken by importing each codec.
    pub import_heap_bytes: BTreeMap<String, u64>,
    pub heap_bytes_per_message: Vec<HeapRow>,
}

/// The `micropython` section.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MicroPythonSection {
    /// The mpy-cross that compiled the modules.
    pub mpy_cross: String,
    pub builds: Vec<MicroPythonBuild>,
    /// How the figures were taken, and what they are not (no board here).
    pub notes: Vec<String>,
}
