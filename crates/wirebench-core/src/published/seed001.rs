//! Figures published by the seed reports, with where they come from, so reports can put our
//! numbers beside them. Facts only; each table names its source.

/// One published series: a codec, an operation, one figure per payload.
pub struct Series {
    pub codec: &'static str,
    pub op: &'static str,
    pub values: [Option<f64>; 10],
}

/// Where a table comes from.
pub struct Table {
    pub source: &'static str,
    pub unit: &'static str,
    pub device: &'static str,
    pub payloads: [&'static str; 10],
    pub series: &'static [Series],
    pub note: &'static str,
}

const T: [&str; 10] = ["Test01", "Test02", "Test03", "Test04", "Test05", "Test06", "Test07", "Test08", "Test09", "Test10"];

macro_rules! s {
    ($codec:literal, $op:literal, [$($v:expr),*]) => {
        Series { codec: $codec, op: $op, values: [$(Some($v as f64)),*] }
    };
}

/// PSON paper (Sensors 2021, 21, 4559), Table 3: ESP32-WROVER-B serialization (encode) and
/// deserialization (decode) time, µs per 1000 iterations.
pub const PSON_PAPER_ESP32: Table = Table {
    source: "Sensors 2021, 21, 4559, Table 3 (ESP32-WROVER-B)",
    unit: "µs per 1000 iterations",
    device: "ESP32-WROVER-B",
    payloads: T,
    series: &[
        s!("json", "encode", [28767, 116705, 188648, 33814, 7602, 6865, 6708, 10350, 11082, 51759]),
        s!("json", "decode", [36577, 90513, 115070, 41774, 9132, 8481, 8033, 11032, 10809, 74032]),
        s!("bson", "encode", [123806, 140927, 427762, 256979, 31812, 31846, 31837, 32081, 32020, 250959]),
        s!("bson", "decode", [76403, 86572, 264767, 159726, 19020, 19092, 19083, 19114, 19090, 153429]),
        s!("msgpack", "encode", [15875, 31524, 47345, 20153, 4714, 4819, 5085, 5597, 5737, 26417]),
        s!("msgpack", "decode", [16677, 68870, 100840, 14366, 4394, 4047, 4034, 5427, 7330, 33787]),
        s!("protobuf", "encode", [16487, 45835, 117739, 11449, 4931, 6347, 5093, 5403, 5986, 27574]),
        s!("protobuf", "decode", [24162, 32412, 59527, 13952, 6286, 10642, 6216, 6360, 7152, 41606]),
        s!("pson", "encode", [8854, 23372, 40624, 9364, 2627, 2632, 2617, 3387, 3676, 14637]),
        s!("pson", "decode", [13011, 13618, 29044, 15432, 3578, 5726, 4318, 4225, 4500, 23119]),
        s!("xml", "encode", [127529, 119323, 240721, 193044, 55073, 54538, 54506, 55618, 55504, 184497]),
        s!("xml", "decode", [163530, 177467, 313182, 257228, 80087, 79212, 79159, 81217, 81216, 242851]),
    ],
    note: "The table prints two rows labelled 'XML S'; the second is read as deserialization (DS), \
           the row order of every other protocol. The paper's PSON ran on its 2021 encoder, whose \
           code is not public.",
};

impl Table {
    pub fn get(&self, codec: &str, op: &str, payload: &str) -> Option<f64> {
        let i = self.payloads.iter().position(|p| *p == payload)?;
        self.series.iter().find(|s| s.codec == codec && s.op == op)?.values[i]
    }
}
