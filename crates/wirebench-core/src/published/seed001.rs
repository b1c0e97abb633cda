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

const T: [&str; 10] =
    ["Test01", "Test02", "Test03", "Test04", "Test05", "Test06", "Test07", "Test08", "Test09", "Test10"];

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

/// A series with gaps: `-1` stands for the paper's "-" (not run on the device).
macro_rules! g {
    ($codec:literal, $op:literal, [$($v:expr),*]) => {
        Series { codec: $codec, op: $op, values: [$(if $v < 0 { None } else { Some($v as f64) }),*] }
    };
}

/// PSON paper (Sensors 2021, 21, 4559), Table 4: Arduino UNO (ATmega328P, 16 MHz)
/// serialization (encode) and deserialization (decode) time, µs per 1000 iterations. "-" in
/// the paper (the library or payload did not run on the UNO) is a gap here; BSON, Protocol
/// Buffers and XML have no UNO figures at all.
pub const PSON_PAPER_UNO: Table = Table {
    source: "Sensors 2021, 21, 4559, Table 4 (Arduino UNO)",
    unit: "µs per 1000 iterations",
    device: "Arduino UNO (ATmega328P, 16 MHz)",
    payloads: T,
    series: &[
        g!("json", "encode", [1685840, -1, -1, 3890896, 118868, 150172, 147008, 539372, 165756, 2539444]),
        g!("json", "decode", [633272, -1, -1, 776852, 133652, 128432, 122884, 179188, 169768, 1240716]),
        g!("msgpack", "encode", [299712, -1, -1, 407748, 77536, 79980, 83780, 94592, 96824, 528548]),
        g!("msgpack", "decode", [325988, -1, -1, 285564, 85656, 80604, 80632, 106908, 141716, 647048]),
        g!("pson", "encode", [189648, -1, -1, 195420, 50688, 52536, 52632, 65096, 73408, 325940]),
        g!("pson", "decode", [471604, -1, -1, 427496, 86000, 314908, 122880, 99216, 99776, 973368]),
    ],
    note: "JSON and MessagePack ran on ArduinoJson 6.18.0, PSON on the paper's 2021 Arduino encoder; \
           Test02 and Test03 did not run on the UNO. The paper states PSON encodes 40 % faster than \
           MessagePack on average on the UNO and decodes about 47 % slower (averages of this table: \
           125,671 vs 208,590 and 324,406 vs 219,264.5).",
};

/// Seed 001's binary sizes without a library (section 5.2), bytes.
/// PSON paper §6: the average PSON-encoded size of Test01–Test10, bytes.
pub const PSON_PAPER_MEAN_PSON_BYTES: f64 = 66.3;
/// PSON paper §5.3: PSON and MessagePack encode about 15 % smaller than JSON on average (our
/// reading: the mean of the per-payload size ratios, 0.85).
pub const PSON_PAPER_RATIO_TO_JSON: f64 = 0.85;

pub const PSON_PAPER_BASELINE_BYTES: [(&str, u64); 2] = [("Arduino UNO", 592), ("ESP32", 260_710)];

/// Seed 001's stated ESP32 binary-size increases over the 260,710 B baseline (section 5.3),
/// percent: PSON, MessagePack, JSON (ArduinoJson). Figures 5-6 print the rest as bars only.
pub const PSON_PAPER_ESP32_INCREASE_PCT: [(&str, f64); 3] = [("pson", 20.26), ("msgpack", 20.15), ("json", 20.21)];

impl Table {
    pub fn get(&self, codec: &str, op: &str, payload: &str) -> Option<f64> {
        let i = self.payloads.iter().position(|p| *p == payload)?;
        self.series.iter().find(|s| s.codec == codec && s.op == op)?.values[i]
    }
}
