//! The typed path: the built-in corpus as derived types, the way an application holds its
//! messages in production (serde derive for the serde formats and PSON, prost derive for
//! Protobuf, hand-written writers and readers for CDR, UADP and Protoson, as generated code
//! would be: see [`crate::handwritten`]). A typed case encodes a prepared struct and decodes
//! back into the same type.
//!
//! Typed encodings are byte-identical with the dynamic path (a test checks every codec and
//! payload), so sizes do not depend on the path; speed does.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use wirebench_core::Value;

use crate::handwritten::{self as hw, wire_struct, Wire};

/// One (codec, payload) pair on the typed path.
pub trait TypedCase: Send + Sync {
    /// Encode the prepared struct, appending to `out`.
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), String>;
    /// Decode `bytes` into the struct type (the value is dropped after decoding).
    fn decode(&self, bytes: &[u8]) -> Result<(), String>;
    /// Decode and compare with the prepared struct (the round-trip gate before timing).
    fn roundtrip_equal(&self, bytes: &[u8]) -> Result<bool, String>;
}

/// A message type with every derive the typed codecs need.
pub trait PaperType:
    Serialize + DeserializeOwned + prost::Message + Wire + PartialEq + Clone + Default + 'static
{
}
impl<T: Serialize + DeserializeOwned + prost::Message + Wire + PartialEq + Clone + Default + 'static> PaperType for T {}

macro_rules! paper_structs {
    ($( $(#[$doc:meta])* $name:ident { $( $field:ident : $ty:ty = [$($prost:tt)*] $tag:literal ),* $(,)? } )*) => {
        $(
            $(#[$doc])*
            #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
            pub struct $name {
                $(
                    #[prost($($prost)*, tag = $tag)]
                    pub $field: $ty,
                )*
            }
        )*
    };
}

paper_structs! {
    /// Test01, Test02.
    GpsReading { sensor: String = [string] "1", time: u64 = [uint64] "2", data: Vec<f64> = [double, repeated] "3" }
    /// Test03.
    ManyKeys {
        sensor: String = [string] "1", sensor2: String = [string] "2", sensor3: String = [string] "3",
        sensor4: String = [string] "4", sensor5: String = [string] "5", sensor6: String = [string] "6",
        sensor7: String = [string] "7", time: u64 = [uint64] "8", data: Vec<f64> = [double, repeated] "9",
    }
    /// Test04.
    Series { data: Vec<f64> = [double, repeated] "1" }
    /// Test05.
    OneBool { bool: bool = [bool] "1" }
    /// Test06.
    OneNeg { neg: i64 = [sint64] "1" }
    /// Test07.
    OnePos { pos: u64 = [uint64] "1" }
    /// Test08.
    OneDouble { double: f64 = [double] "1" }
    /// Test09.
    OneString { string: String = [string] "1" }
    /// Test10.
    Mixed {
        string: String = [string] "1", double: f64 = [double] "2", long: u64 = [uint64] "3",
        pos: u64 = [uint64] "4", neg: i64 = [sint64] "5", bool: bool = [bool] "6",
        array: Vec<f64> = [double, repeated] "7",
    }
}

// The wire kinds of the hand-written CDR / UADP / Protoson writers: the IDL and built-in types
// the dynamic path infers for each payload (every integer of the corpus fits 32 bits).
wire_struct!(GpsReading { sensor: String = Str, time: u64 = U32, data: Vec<f64> = F64s });
wire_struct!(ManyKeys {
    sensor: String = Str, sensor2: String = Str, sensor3: String = Str, sensor4: String = Str,
    sensor5: String = Str, sensor6: String = Str, sensor7: String = Str, time: u64 = U32, data: Vec<f64> = F64s,
});
wire_struct!(Series { data: Vec<f64> = F64s });
wire_struct!(OneBool { bool: bool = Bool });
wire_struct!(OneNeg { neg: i64 = I32 });
wire_struct!(OnePos { pos: u64 = U32 });
wire_struct!(OneDouble { double: f64 = F64 });
wire_struct!(OneString { string: String = Str });
wire_struct!(Mixed {
    string: String = Str, double: f64 = F64, long: u64 = U32, pos: u64 = U32, neg: i64 = I32, bool: bool = Bool,
    array: Vec<f64> = F64s,
});
wire_struct!(ev::Battery {
    state_of_charge_pct: f64 = F64, state_of_health_pct: f64 = F64, pack_voltage_v: f64 = F64,
    pack_current_a: f64 = F64, pack_temperature_c: f64 = F64, cell_voltage_min_v: f64 = F64,
    cell_voltage_max_v: f64 = F64, cell_temperatures_c: Vec<u32> = U32s, charging: bool = Bool,
    contactor_closed: bool = Bool, isolation_resistance_kohm: u32 = U32,
});
wire_struct!(ev::Motor {
    rpm: u32 = U32,
    torque_nm: u32 = U32,
    inverter_temperature_c: f64 = F64,
    stator_temperature_c: f64 = F64,
    power_kw: f64 = F64,
});
wire_struct!(ev::Thermal {
    coolant_inlet_temperature_c: f64 = F64,
    coolant_outlet_temperature_c: f64 = F64,
    pump_duty_pct: u32 = U32,
    fan_duty_pct: u32 = U32,
    cabin_temperature_c: f64 = F64,
});
wire_struct!(ev::Position {
    latitude_deg: f64 = F64,
    longitude_deg: f64 = F64,
    heading_deg: u32 = U32,
    altitude_m: u32 = U32
});
wire_struct!(ev::EvTelemetry {
    vehicle_id: String = Str, seq: u64 = U32, timestamp_ms: u64 = U64, drive_state: String = Str,
    speed_kmh: f64 = F64, odometer_km: f64 = F64, battery: ev::Battery = Rec, motor: ev::Motor = Rec,
    thermal: ev::Thermal = Rec, position: ev::Position = Rec, tire_pressures_kpa: Vec<u32> = U32s,
    brake_pedal_pct: u32 = U32, accelerator_pedal_pct: u32 = U32, regenerative_braking_active: bool = Bool,
    active_fault_codes: Vec<String> = Strs, firmware_version: String = Str,
});

/// Seed 003's EV telemetry message (`ev-telemetry`), as an application would declare it:
/// nested messages for the sub-systems, field numbers in declaration order (the dynamic path's
/// numbering of the inferred schema), unsigned integers where every value is non-negative.
pub mod ev {
    use serde::{Deserialize, Serialize};

    #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
    pub struct Battery {
        #[prost(double, tag = "1")]
        pub state_of_charge_pct: f64,
        #[prost(double, tag = "2")]
        pub state_of_health_pct: f64,
        #[prost(double, tag = "3")]
        pub pack_voltage_v: f64,
        #[prost(double, tag = "4")]
        pub pack_current_a: f64,
        #[prost(double, tag = "5")]
        pub pack_temperature_c: f64,
        #[prost(double, tag = "6")]
        pub cell_voltage_min_v: f64,
        #[prost(double, tag = "7")]
        pub cell_voltage_max_v: f64,
        #[prost(uint32, repeated, tag = "8")]
        pub cell_temperatures_c: Vec<u32>,
        #[prost(bool, tag = "9")]
        pub charging: bool,
        #[prost(bool, tag = "10")]
        pub contactor_closed: bool,
        #[prost(uint32, tag = "11")]
        pub isolation_resistance_kohm: u32,
    }

    #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
    pub struct Motor {
        #[prost(uint32, tag = "1")]
        pub rpm: u32,
        #[prost(uint32, tag = "2")]
        pub torque_nm: u32,
        #[prost(double, tag = "3")]
        pub inverter_temperature_c: f64,
        #[prost(double, tag = "4")]
        pub stator_temperature_c: f64,
        #[prost(double, tag = "5")]
        pub power_kw: f64,
    }

    #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
    pub struct Thermal {
        #[prost(double, tag = "1")]
        pub coolant_inlet_temperature_c: f64,
        #[prost(double, tag = "2")]
        pub coolant_outlet_temperature_c: f64,
        #[prost(uint32, tag = "3")]
        pub pump_duty_pct: u32,
        #[prost(uint32, tag = "4")]
        pub fan_duty_pct: u32,
        #[prost(double, tag = "5")]
        pub cabin_temperature_c: f64,
    }

    #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
    pub struct Position {
        #[prost(double, tag = "1")]
        pub latitude_deg: f64,
        #[prost(double, tag = "2")]
        pub longitude_deg: f64,
        #[prost(uint32, tag = "3")]
        pub heading_deg: u32,
        #[prost(uint32, tag = "4")]
        pub altitude_m: u32,
    }

    #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
    pub struct EvTelemetry {
        #[prost(string, tag = "1")]
        pub vehicle_id: String,
        #[prost(uint64, tag = "2")]
        pub seq: u64,
        #[prost(uint64, tag = "3")]
        pub timestamp_ms: u64,
        #[prost(string, tag = "4")]
        pub drive_state: String,
        #[prost(double, tag = "5")]
        pub speed_kmh: f64,
        #[prost(double, tag = "6")]
        pub odometer_km: f64,
        #[prost(message, required, tag = "7")]
        pub battery: Battery,
        #[prost(message, required, tag = "8")]
        pub motor: Motor,
        #[prost(message, required, tag = "9")]
        pub thermal: Thermal,
        #[prost(message, required, tag = "10")]
        pub position: Position,
        #[prost(uint32, repeated, tag = "11")]
        pub tire_pressures_kpa: Vec<u32>,
        #[prost(uint32, tag = "12")]
        pub brake_pedal_pct: u32,
        #[prost(uint32, tag = "13")]
        pub accelerator_pedal_pct: u32,
        #[prost(bool, tag = "14")]
        pub regenerative_braking_active: bool,
        #[prost(string, repeated, tag = "15")]
        pub active_fault_codes: Vec<String>,
        #[prost(string, tag = "16")]
        pub firmware_version: String,
    }
}

/// Serde codecs: how each writes and reads a derived type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SerdeFormat {
    Json,
    Cbor,
    MsgPack,
    Bson,
    Yaml,
    Pson,
}

impl SerdeFormat {
    fn of(id: &str) -> Option<SerdeFormat> {
        Some(match id {
            "json" => SerdeFormat::Json,
            "cbor" => SerdeFormat::Cbor,
            "msgpack" => SerdeFormat::MsgPack,
            "bson" => SerdeFormat::Bson,
            "yaml" => SerdeFormat::Yaml,
            "pson" => SerdeFormat::Pson,
            _ => return None,
        })
    }

    #[inline]
    fn encode<T: Serialize>(self, v: &T, out: &mut Vec<u8>) -> Result<(), String> {
        let e = |e: &dyn std::fmt::Display| e.to_string();
        match self {
            SerdeFormat::Json => serde_json::to_writer(out, v).map_err(|x| e(&x)),
            SerdeFormat::Cbor => ciborium::into_writer(v, out).map_err(|x| e(&x)),
            // Maps with field names, as the dynamic path writes them (rmp-serde's default is arrays).
            SerdeFormat::MsgPack => {
                v.serialize(&mut rmp_serde::Serializer::new(out).with_struct_map()).map_err(|x| e(&x))
            }
            SerdeFormat::Bson => {
                let bytes = bson::serialize_to_vec(v).map_err(|x| e(&x))?;
                out.extend_from_slice(&bytes);
                Ok(())
            }
            SerdeFormat::Yaml => serde_yaml_ng::to_writer(out, v).map_err(|x| e(&x)),
            SerdeFormat::Pson => pson::serde::to_writer(out, v).map_err(|x| e(&x)),
        }
    }

    #[inline]
    fn decode<T: DeserializeOwned>(self, bytes: &[u8]) -> Result<T, String> {
        let e = |e: &dyn std::fmt::Display| e.to_string();
        match self {
            SerdeFormat::Json => serde_json::from_slice(bytes).map_err(|x| e(&x)),
            SerdeFormat::Cbor => ciborium::from_reader(bytes).map_err(|x| e(&x)),
            SerdeFormat::MsgPack => rmp_serde::from_slice(bytes).map_err(|x| e(&x)),
            SerdeFormat::Bson => bson::deserialize_from_slice(bytes).map_err(|x| e(&x)),
            SerdeFormat::Yaml => serde_yaml_ng::from_slice(bytes).map_err(|x| e(&x)),
            SerdeFormat::Pson => pson::serde::from_slice(bytes).map_err(|x| e(&x)),
        }
    }
}

struct SerdeCase<T> {
    format: SerdeFormat,
    value: T,
}

impl<T: PaperType> TypedCase for SerdeCase<T> {
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), String> {
        self.format.encode(&self.value, out)
    }
    fn decode(&self, bytes: &[u8]) -> Result<(), String> {
        self.format.decode::<T>(bytes).map(drop)
    }
    fn roundtrip_equal(&self, bytes: &[u8]) -> Result<bool, String> {
        Ok(self.format.decode::<T>(bytes)? == self.value)
    }
}

struct ProstCase<T> {
    value: T,
}

impl<T: PaperType> TypedCase for ProstCase<T> {
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), String> {
        self.value.encode(out).map_err(|e| e.to_string())
    }
    fn decode(&self, bytes: &[u8]) -> Result<(), String> {
        T::decode(bytes).map(drop).map_err(|e| e.to_string())
    }
    fn roundtrip_equal(&self, bytes: &[u8]) -> Result<bool, String> {
        Ok(T::decode(bytes).map_err(|e| e.to_string())? == self.value)
    }
}

/// Our own codecs on the typed path (hand-written writers and readers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OwnFormat {
    Xcdr1,
    Xcdr2,
    Uadp,
    Protoson,
}

struct WireCase<T> {
    format: OwnFormat,
    value: T,
}

impl<T: PaperType> WireCase<T> {
    fn read(&self, bytes: &[u8]) -> Result<T, String> {
        match self.format {
            OwnFormat::Xcdr1 | OwnFormat::Xcdr2 => hw::cdr_decode(bytes),
            OwnFormat::Uadp => hw::uadp_decode(bytes),
            OwnFormat::Protoson => hw::protoson_decode(bytes),
        }
    }
}

impl<T: PaperType> TypedCase for WireCase<T> {
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), String> {
        match self.format {
            OwnFormat::Xcdr1 => hw::cdr_encode(&self.value, false, out),
            OwnFormat::Xcdr2 => hw::cdr_encode(&self.value, true, out),
            OwnFormat::Uadp => hw::uadp_encode(&self.value, out),
            OwnFormat::Protoson => {
                hw::protoson_encode(&self.value, out);
                Ok(())
            }
        }
    }
    fn decode(&self, bytes: &[u8]) -> Result<(), String> {
        self.read(bytes).map(drop)
    }
    fn roundtrip_equal(&self, bytes: &[u8]) -> Result<bool, String> {
        let back = self.read(bytes)?;
        if self.format == OwnFormat::Protoson {
            // Protoson's floats are lossy by design (float32 where within 1e-5): its round trip
            // is exact when the value read back writes the same bytes again.
            let mut again = Vec::with_capacity(bytes.len());
            hw::protoson_encode(&back, &mut again);
            return Ok(again == bytes);
        }
        Ok(back == self.value)
    }
}

fn make<T: PaperType>(codec: &str, value: &Value) -> Option<Box<dyn TypedCase>> {
    // The dynamic value → struct conversion goes through JSON text once, at preparation.
    let v: T = serde_json::from_str(&value.to_json_string()).ok()?;
    let own = match codec {
        "protobuf" => return Some(Box::new(ProstCase { value: v })),
        "cdr-xcdr1" => OwnFormat::Xcdr1,
        "cdr-xcdr2" => OwnFormat::Xcdr2,
        "uadp" => OwnFormat::Uadp,
        "protoson" => OwnFormat::Protoson,
        _ => return Some(Box::new(SerdeCase { format: SerdeFormat::of(codec)?, value: v })),
    };
    Some(Box::new(WireCase { format: own, value: v }))
}

/// The codecs that have a typed path.
pub const TYPED_CODECS: &[&str] =
    &["json", "cbor", "msgpack", "bson", "yaml", "pson", "protobuf", "protoson", "cdr-xcdr1", "cdr-xcdr2", "uadp"];

/// The typed case for a payload of a built-in corpus (`pson-paper`, `ev-telemetry`), if `codec`
/// has a typed path.
pub fn builtin_case(codec: &str, payload: &str, value: &Value) -> Option<Box<dyn TypedCase>> {
    if !TYPED_CODECS.contains(&codec) {
        return None;
    }
    match payload {
        "ev-telemetry" => make::<ev::EvTelemetry>(codec, value),
        "Test01" | "Test02" => make::<GpsReading>(codec, value),
        "Test03" => make::<ManyKeys>(codec, value),
        "Test04" => make::<Series>(codec, value),
        "Test05" => make::<OneBool>(codec, value),
        "Test06" => make::<OneNeg>(codec, value),
        "Test07" => make::<OnePos>(codec, value),
        "Test08" => make::<OneDouble>(codec, value),
        "Test09" => make::<OneString>(codec, value),
        "Test10" => make::<Mixed>(codec, value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirebench_core::corpus::builtin;
    use wirebench_core::Schema;

    #[test]
    fn typed_bytes_equal_dynamic_bytes_and_round_trip() {
        let payloads =
            builtin("pson-paper").unwrap().payloads().into_iter().chain(builtin("ev-telemetry").unwrap().payloads());
        for p in payloads {
            let schema = Schema::infer([&p.value]);
            for id in TYPED_CODECS {
                let case = builtin_case(id, &p.name, &p.value).unwrap_or_else(|| panic!("{id} {}", p.name));
                let mut typed = Vec::new();
                case.encode(&mut typed).unwrap();
                let mut dynamic = Vec::new();
                crate::find(id).unwrap().encode(&p.value, Some(&schema), &mut dynamic).unwrap();
                assert_eq!(typed, dynamic, "{id} {}", p.name);
                assert!(case.roundtrip_equal(&typed).unwrap(), "{id} {}", p.name);
                case.decode(&typed).unwrap();
                assert!(
                    case.decode(&typed[..typed.len() / 2]).is_err() || typed.len() < 2 || *id == "yaml",
                    "{id} {}",
                    p.name
                );
            }
        }
        assert!(builtin_case("avro", "Test01", &Value::Null).is_none());
        // The hand-written UADP reader takes exactly its layout: a wrong Variant type is named
        // with its byte, and so is a wrong field count.
        let p = &builtin("pson-paper").unwrap().payloads()[0];
        let case = builtin_case("uadp", &p.name, &p.value).unwrap();
        let mut b = Vec::new();
        case.encode(&mut b).unwrap();
        let mut wrong = b.clone();
        wrong[4] = 0x0b;
        assert_eq!(case.decode(&wrong).unwrap_err(), "UADP Variant at byte 4: type 0x0b, expected 0x0c");
        wrong = b.clone();
        wrong[2] = 9;
        assert!(case.decode(&wrong).unwrap_err().contains("expected 01 01 and 3 fields"));
        b.push(0);
        assert!(case.decode(&b).unwrap_err().contains("1 trailing bytes"));
    }
}
