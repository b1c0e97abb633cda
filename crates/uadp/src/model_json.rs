//! The whole NetworkMessage model as JSON (feature `model-json`): every header field, the
//! valid bit, field encodings, timestamps, delta frames and padding, so that
//! `wirebench decode -f uadp msg.bin | wirebench encode -f uadp` gives back the same bytes. The
//! shape is the one the shared vectors' `decoded` objects use (open62541's decode), with
//! `{"$f32": x}` for Float, `{"$ticks": n, "$iso": "…"}` for DateTime and `{"$bytes": hex,
//! "$b64": …}` for ByteString; [`from_model_json`] reads it back.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use serde_json::{json, Map, Value as J};

use crate::model::*;

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    s
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 || !s.is_ascii() {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok()).collect()
}

pub fn datetime_view(t: DateTime) -> J {
    json!({"$ticks": t.0, "$iso": crate::time::to_iso8601(t)})
}

pub fn scalar_view(s: &Scalar) -> J {
    match s {
        Scalar::Boolean(b) => json!(b),
        Scalar::SByte(v) => json!(v),
        Scalar::Byte(v) => json!(v),
        Scalar::Int16(v) => json!(v),
        Scalar::UInt16(v) => json!(v),
        Scalar::Int32(v) => json!(v),
        Scalar::UInt32(v) => json!(v),
        Scalar::Int64(v) => json!(v),
        Scalar::UInt64(v) => json!(v),
        Scalar::Float(v) if v.is_finite() => json!({"$f32": *v as f64}),
        Scalar::Double(v) if v.is_finite() => json!(v),
        Scalar::Float(v) => json!(nonfinite(*v as f64)),
        Scalar::Double(v) => json!(nonfinite(*v)),
        Scalar::String(s) => json!(s),
        Scalar::DateTime(t) => datetime_view(*t),
        Scalar::Guid(g) => json!(g.to_string()),
        Scalar::ByteString(None) => J::Null,
        Scalar::ByteString(Some(b)) => json!({"$bytes": hex(b), "$b64": crate::json::base64_encode(b)}),
        Scalar::StatusCode(c) => json!(c.0),
    }
}

fn nonfinite(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

pub fn variant_view(v: &Variant) -> J {
    match v {
        Variant::Null => json!({"type": J::Null, "value": J::Null}),
        Variant::Scalar(s) => json!({"type": s.built_in_type().name(), "value": scalar_view(s)}),
        Variant::Array { ty, items } => {
            json!({"type": ty.name(), "value": items.iter().map(scalar_view).collect::<Vec<_>>()})
        }
        Variant::NullArray(ty) => json!({"type": ty.name(), "value": J::Null}),
    }
}

pub fn field_view(f: &Field) -> J {
    match f {
        Field::Variant(v) => variant_view(v),
        Field::DataValue(d) => {
            let mut m = Map::new();
            if let Some(v) = &d.value {
                m.insert("value".into(), variant_view(v));
            }
            if let Some(s) = d.status {
                m.insert("status".into(), json!(s.0));
            }
            if let Some(t) = d.source_timestamp {
                m.insert("sourceTimestamp".into(), datetime_view(t));
            }
            if let Some(p) = d.source_picoseconds {
                m.insert("sourcePicoseconds".into(), json!(p));
            }
            if let Some(t) = d.server_timestamp {
                m.insert("serverTimestamp".into(), datetime_view(t));
            }
            if let Some(p) = d.server_picoseconds {
                m.insert("serverPicoseconds".into(), json!(p));
            }
            J::Object(m)
        }
    }
}

pub fn dsm_view(d: &DataSetMessage) -> J {
    let mut m = Map::new();
    m.insert("valid".into(), json!(d.valid));
    m.insert("fieldEncoding".into(), json!(d.field_encoding.name()));
    let (ty, fields): (&str, Vec<J>) = match &d.payload {
        Payload::KeyFrame(f) => ("DataKeyFrame", f.iter().map(field_view).collect()),
        Payload::DeltaFrame(f) => (
            "DataDeltaFrame",
            f.iter()
                .map(|df| {
                    let mut v = field_view(&df.value);
                    if let J::Object(o) = &mut v {
                        o.insert("index".into(), json!(df.index));
                    }
                    v
                })
                .collect(),
        ),
        Payload::KeepAlive => ("KeepAlive", vec![]),
        Payload::Skipped { message_type, data } => {
            m.insert("skippedType".into(), json!(message_type));
            m.insert("skippedData".into(), json!(hex(data)));
            ("Skipped", vec![])
        }
    };
    m.insert("messageType".into(), json!(ty));
    if d.padding != 0 {
        m.insert("padding".into(), json!(d.padding));
    }
    if let Some(v) = d.sequence_number {
        m.insert("sequenceNumber".into(), json!(v));
    }
    if let Some(t) = d.timestamp {
        m.insert("timestamp".into(), datetime_view(t));
    }
    if let Some(p) = d.picoseconds {
        m.insert("picoseconds".into(), json!(p));
    }
    if let Some(s) = d.status {
        m.insert("status".into(), json!(s));
    }
    if let Some(v) = d.config_version_major {
        m.insert("configVersionMajor".into(), json!(v));
    }
    if let Some(v) = d.config_version_minor {
        m.insert("configVersionMinor".into(), json!(v));
    }
    m.insert("fieldCount".into(), json!(fields.len()));
    m.insert("fields".into(), J::Array(fields));
    J::Object(m)
}

/// The message as model JSON (`version` is the UADP version written in the header, 1).
pub fn message_view(msg: &NetworkMessage, version: u8) -> J {
    let mut m = Map::new();
    m.insert("version".into(), json!(version));
    m.insert(
        "publisherId".into(),
        match &msg.publisher_id {
            None => J::Null,
            Some(p) => {
                let value = match p {
                    PublisherId::Byte(v) => json!(v),
                    PublisherId::UInt16(v) => json!(v),
                    PublisherId::UInt32(v) => json!(v),
                    PublisherId::UInt64(v) => json!(v),
                    PublisherId::String(s) => json!(s),
                };
                json!({"type": p.type_name(), "value": value})
            }
        },
    );
    m.insert(
        "groupHeader".into(),
        match &msg.group_header {
            None => J::Null,
            Some(g) => {
                let mut o = Map::new();
                if let Some(v) = g.writer_group_id {
                    o.insert("writerGroupId".into(), json!(v));
                }
                if let Some(v) = g.group_version {
                    o.insert("groupVersion".into(), json!(v));
                }
                if let Some(v) = g.network_message_number {
                    o.insert("networkMessageNumber".into(), json!(v));
                }
                if let Some(v) = g.sequence_number {
                    o.insert("sequenceNumber".into(), json!(v));
                }
                J::Object(o)
            }
        },
    );
    m.insert("dataSetClassId".into(), msg.data_set_class_id.map_or(J::Null, |g| json!(g.to_string())));
    if let Some(t) = msg.timestamp {
        m.insert("timestamp".into(), datetime_view(t));
    }
    if let Some(p) = msg.picoseconds {
        m.insert("picoseconds".into(), json!(p));
    }
    if let Some(p) = &msg.promoted_fields {
        m.insert("promotedFields".into(), J::Array(p.iter().map(variant_view).collect()));
    }
    m.insert("payloadHeader".into(), json!(msg.data_set_writer_ids.is_some()));
    m.insert("messageCount".into(), json!(msg.messages.len()));
    m.insert("dataSetWriterIds".into(), json!(msg.data_set_writer_ids.clone().unwrap_or_default()));
    m.insert("dataSetMessages".into(), J::Array(msg.messages.iter().map(dsm_view).collect()));
    J::Object(m)
}

// ---------------------------------------------------------------------------------------------
// Reading the model JSON back

/// A path-named error of [`from_model_json`].
fn err<T>(path: &str, msg: impl core::fmt::Display) -> Result<T, String> {
    Err(format!("{path}: {msg}"))
}

fn get<'a>(m: &'a Map<String, J>, k: &str) -> Option<&'a J> {
    m.get(k).filter(|v| !v.is_null())
}

fn uint(j: &J, path: &str, max: u64) -> Result<u64, String> {
    match j.as_u64() {
        Some(n) if n <= max => Ok(n),
        _ => err(path, format!("expected an integer in 0..={max}, found {j}")),
    }
}

fn opt_uint<T: TryFrom<u64>>(m: &Map<String, J>, k: &str, path: &str, max: u64) -> Result<Option<T>, String> {
    match get(m, k) {
        None => Ok(None),
        Some(j) => Ok(T::try_from(uint(j, &format!("{path}.{k}"), max)?).ok()),
    }
}

fn datetime(j: &J, path: &str) -> Result<DateTime, String> {
    match j {
        J::Object(o) => match o.get("$ticks").and_then(J::as_i64) {
            Some(t) => Ok(DateTime(t)),
            None => match o.get("$iso").and_then(J::as_str).and_then(crate::time::parse_iso8601) {
                Some(t) => Ok(t),
                None => err(path, "a DateTime needs \"$ticks\" or \"$iso\""),
            },
        },
        J::String(s) => crate::time::parse_iso8601(s).ok_or_else(|| format!("{path}: {s:?} is not an ISO 8601 time")),
        J::Number(n) => n.as_i64().map(DateTime).ok_or_else(|| format!("{path}: {n} is not a tick count")),
        other => err(path, format!("expected a DateTime, found {other}")),
    }
}

fn float(j: &J, path: &str) -> Result<f64, String> {
    let special = |s: &str| match s {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    };
    match j {
        J::Number(n) => n.as_f64().ok_or_else(|| format!("{path}: {n} is not a number")),
        J::String(s) => special(s).ok_or_else(|| format!("{path}: {s:?} is not a number")),
        J::Object(o) if o.len() == 1 => match o.values().next() {
            Some(v) => float(v, path),
            None => err(path, "empty float marker"),
        },
        other => err(path, format!("expected a number, found {other}")),
    }
}

fn int(j: &J, path: &str, lo: i64, hi: i64) -> Result<i64, String> {
    match j.as_i64() {
        Some(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => err(path, format!("expected an integer in {lo}..={hi}, found {j}")),
    }
}

fn scalar(ty: BuiltInType, j: &J, path: &str) -> Result<Scalar, String> {
    use BuiltInType as B;
    Ok(match ty {
        B::Boolean => Scalar::Boolean(j.as_bool().ok_or_else(|| format!("{path}: expected true or false, found {j}"))?),
        B::SByte => Scalar::SByte(int(j, path, i8::MIN as i64, i8::MAX as i64)? as i8),
        B::Byte => Scalar::Byte(uint(j, path, u8::MAX as u64)? as u8),
        B::Int16 => Scalar::Int16(int(j, path, i16::MIN as i64, i16::MAX as i64)? as i16),
        B::UInt16 => Scalar::UInt16(uint(j, path, u16::MAX as u64)? as u16),
        B::Int32 => Scalar::Int32(int(j, path, i32::MIN as i64, i32::MAX as i64)? as i32),
        B::UInt32 => Scalar::UInt32(uint(j, path, u32::MAX as u64)? as u32),
        B::Int64 => Scalar::Int64(int(j, path, i64::MIN, i64::MAX)?),
        B::UInt64 => Scalar::UInt64(uint(j, path, u64::MAX)?),
        B::Float => Scalar::Float(float(j, path)? as f32),
        B::Double => Scalar::Double(float(j, path)?),
        B::String => match j {
            J::Null => Scalar::String(None),
            J::String(s) => Scalar::String(Some(s.clone())),
            other => return err(path, format!("expected a string, found {other}")),
        },
        B::DateTime => Scalar::DateTime(datetime(j, path)?),
        B::Guid => match j.as_str().and_then(Guid::parse) {
            Some(g) => Scalar::Guid(g),
            None => return err(path, format!("expected a GUID string, found {j}")),
        },
        B::ByteString => match j {
            J::Null => Scalar::ByteString(None),
            J::Object(o) => {
                let b = o
                    .get("$bytes")
                    .and_then(J::as_str)
                    .and_then(unhex)
                    .or_else(|| o.get("$b64").and_then(J::as_str).and_then(crate::json::base64_decode));
                Scalar::ByteString(Some(
                    b.ok_or_else(|| format!("{path}: a ByteString needs \"$bytes\" (hex) or \"$b64\""))?,
                ))
            }
            J::String(s) => Scalar::ByteString(Some(
                crate::json::base64_decode(s).ok_or_else(|| format!("{path}: {s:?} is not base64"))?,
            )),
            other => return err(path, format!("expected a ByteString, found {other}")),
        },
        B::StatusCode => Scalar::StatusCode(StatusCode(uint(j, path, u32::MAX as u64)? as u32)),
    })
}

fn variant(j: &J, path: &str) -> Result<Variant, String> {
    let J::Object(o) = j else { return err(path, format!("expected a {{\"type\", \"value\"}} object, found {j}")) };
    let ty = match o.get("type") {
        None | Some(J::Null) => return Ok(Variant::Null),
        Some(J::String(t)) => {
            BuiltInType::from_name(t).ok_or_else(|| format!("{path}.type: unknown built-in type {t:?}"))?
        }
        Some(other) => return err(path, format!("type must be a built-in type name, not {other}")),
    };
    let value = o.get("value").unwrap_or(&J::Null);
    let is_array = o.get("array").and_then(J::as_bool).unwrap_or(matches!(value, J::Array(_)));
    match value {
        J::Array(items) if is_array => Ok(Variant::Array {
            ty,
            items: items
                .iter()
                .enumerate()
                .map(|(i, x)| scalar(ty, x, &format!("{path}.value[{i}]")))
                .collect::<Result<_, _>>()?,
        }),
        J::Null if is_array => Ok(Variant::NullArray(ty)),
        v => Ok(Variant::Scalar(scalar(ty, v, &format!("{path}.value"))?)),
    }
}

fn field(j: &J, encoding: FieldEncoding, path: &str) -> Result<Field, String> {
    if encoding != FieldEncoding::DataValue {
        return Ok(Field::Variant(variant(j, path)?));
    }
    let J::Object(o) = j else { return err(path, format!("expected a DataValue object, found {j}")) };
    Ok(Field::DataValue(DataValue {
        value: get(o, "value").map(|v| variant(v, &format!("{path}.value"))).transpose()?,
        status: get(o, "status")
            .map(|v| uint(v, &format!("{path}.status"), u32::MAX as u64).map(|n| StatusCode(n as u32)))
            .transpose()?,
        source_timestamp: get(o, "sourceTimestamp")
            .map(|v| datetime(v, &format!("{path}.sourceTimestamp")))
            .transpose()?,
        source_picoseconds: opt_uint(o, "sourcePicoseconds", path, u16::MAX as u64)?,
        server_timestamp: get(o, "serverTimestamp")
            .map(|v| datetime(v, &format!("{path}.serverTimestamp")))
            .transpose()?,
        server_picoseconds: opt_uint(o, "serverPicoseconds", path, u16::MAX as u64)?,
    }))
}

fn dsm(j: &J, path: &str) -> Result<DataSetMessage, String> {
    let J::Object(o) = j else { return err(path, format!("expected a DataSetMessage object, found {j}")) };
    let field_encoding = match get(o, "fieldEncoding").and_then(J::as_str).unwrap_or("Variant") {
        "Variant" => FieldEncoding::Variant,
        "DataValue" => FieldEncoding::DataValue,
        "RawData" => FieldEncoding::RawData,
        "Reserved" => FieldEncoding::Reserved,
        other => {
            return err(&format!("{path}.fieldEncoding"), format!("{other:?} is not Variant, DataValue or RawData"))
        }
    };
    let fields = match get(o, "fields") {
        None => Vec::new(),
        Some(J::Array(a)) => a.iter().collect(),
        Some(other) => return err(&format!("{path}.fields"), format!("expected a list, found {other}")),
    };
    let payload = match get(o, "messageType").and_then(J::as_str).unwrap_or("DataKeyFrame") {
        "DataKeyFrame" | "KeyFrame" => Payload::KeyFrame(
            fields
                .iter()
                .enumerate()
                .map(|(i, f)| field(f, field_encoding, &format!("{path}.fields[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        "DataDeltaFrame" | "DeltaFrame" => Payload::DeltaFrame(
            fields
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let p = format!("{path}.fields[{i}]");
                    let index = f.get("index").ok_or_else(|| format!("{p}: a delta frame field needs \"index\""))?;
                    Ok(DeltaField {
                        index: uint(index, &format!("{p}.index"), u16::MAX as u64)? as u16,
                        value: field(f, field_encoding, &p)?,
                    })
                })
                .collect::<Result<_, String>>()?,
        ),
        "KeepAlive" => Payload::KeepAlive,
        "Skipped" => Payload::Skipped {
            message_type: get(o, "skippedType")
                .map(|v| uint(v, &format!("{path}.skippedType"), 15))
                .transpose()?
                .unwrap_or(0) as u8,
            data: get(o, "skippedData")
                .and_then(J::as_str)
                .map(|h| unhex(h).ok_or_else(|| format!("{path}.skippedData: not hex")))
                .transpose()?
                .unwrap_or_default(),
        },
        other => {
            return err(
                &format!("{path}.messageType"),
                format!("{other:?} is not DataKeyFrame, DataDeltaFrame or KeepAlive"),
            )
        }
    };
    if field_encoding == FieldEncoding::RawData && matches!(payload, Payload::KeyFrame(_) | Payload::DeltaFrame(_)) {
        return err(
            path,
            "RawData fields are kept as bytes: \"messageType\": \"Skipped\" with \"skippedType\" and \"skippedData\"",
        );
    }
    if let Some(n) = get(o, "fieldCount") {
        let n = uint(n, &format!("{path}.fieldCount"), u16::MAX as u64)? as usize;
        if matches!(payload, Payload::KeyFrame(_) | Payload::DeltaFrame(_)) && n != fields.len() {
            return err(&format!("{path}.fieldCount"), format!("{n}, but {} fields are given", fields.len()));
        }
    }
    Ok(DataSetMessage {
        valid: get(o, "valid")
            .map(|v| v.as_bool().ok_or_else(|| format!("{path}.valid: expected true or false, found {v}")))
            .transpose()?
            .unwrap_or(true),
        field_encoding,
        sequence_number: opt_uint(o, "sequenceNumber", path, u16::MAX as u64)?,
        timestamp: get(o, "timestamp").map(|v| datetime(v, &format!("{path}.timestamp"))).transpose()?,
        picoseconds: opt_uint(o, "picoseconds", path, u16::MAX as u64)?,
        status: opt_uint(o, "status", path, u16::MAX as u64)?,
        config_version_major: opt_uint(o, "configVersionMajor", path, u32::MAX as u64)?,
        config_version_minor: opt_uint(o, "configVersionMinor", path, u32::MAX as u64)?,
        payload,
        padding: opt_uint(o, "padding", path, u16::MAX as u64)?.unwrap_or(0),
    })
}

/// Read a NetworkMessage from its model JSON ([`message_view`]'s shape). Errors name the
/// JSON path (`$.dataSetMessages[0].fields[2].value`).
pub fn from_model_json(j: &J) -> Result<NetworkMessage, String> {
    let J::Object(o) = j else { return err("$", format!("expected a NetworkMessage object, found {j}")) };
    if let Some(v) = get(o, "version") {
        if v.as_u64() != Some(1) {
            return err("$.version", format!("UADP version {v} (only 1 is defined)"));
        }
    }
    let publisher_id = match get(o, "publisherId") {
        None => None,
        Some(J::Object(p)) => {
            let ty = p.get("type").and_then(J::as_str).unwrap_or("");
            let v = p.get("value").unwrap_or(&J::Null);
            let path = "$.publisherId.value";
            Some(match ty {
                "Byte" => PublisherId::Byte(uint(v, path, u8::MAX as u64)? as u8),
                "UInt16" => PublisherId::UInt16(uint(v, path, u16::MAX as u64)? as u16),
                "UInt32" => PublisherId::UInt32(uint(v, path, u32::MAX as u64)? as u32),
                "UInt64" => PublisherId::UInt64(uint(v, path, u64::MAX)?),
                "String" => PublisherId::String(
                    v.as_str().ok_or_else(|| format!("{path}: expected a string, found {v}"))?.to_string(),
                ),
                other => {
                    return err(
                        "$.publisherId.type",
                        format!("{other:?} is not Byte, UInt16, UInt32, UInt64 or String"),
                    )
                }
            })
        }
        Some(other) => return err("$.publisherId", format!("expected {{\"type\", \"value\"}}, found {other}")),
    };
    let group_header = match get(o, "groupHeader") {
        None => None,
        Some(J::Object(g)) => Some(GroupHeader {
            writer_group_id: opt_uint(g, "writerGroupId", "$.groupHeader", u16::MAX as u64)?,
            group_version: opt_uint(g, "groupVersion", "$.groupHeader", u32::MAX as u64)?,
            network_message_number: opt_uint(g, "networkMessageNumber", "$.groupHeader", u16::MAX as u64)?,
            sequence_number: opt_uint(g, "sequenceNumber", "$.groupHeader", u16::MAX as u64)?,
        }),
        Some(other) => return err("$.groupHeader", format!("expected an object, found {other}")),
    };
    let data_set_class_id = match get(o, "dataSetClassId") {
        None => None,
        Some(v) => Some(
            v.as_str()
                .and_then(Guid::parse)
                .ok_or_else(|| format!("$.dataSetClassId: expected a GUID string, found {v}"))?,
        ),
    };
    let messages = match get(o, "dataSetMessages") {
        Some(J::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, d)| dsm(d, &format!("$.dataSetMessages[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        _ => return err("$.dataSetMessages", "a list of DataSetMessages is needed"),
    };
    let payload_header = get(o, "payloadHeader").and_then(J::as_bool).unwrap_or(messages.len() != 1);
    let data_set_writer_ids = if payload_header {
        let ids = match get(o, "dataSetWriterIds") {
            Some(J::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| uint(v, &format!("$.dataSetWriterIds[{i}]"), u16::MAX as u64).map(|n| n as u16))
                .collect::<Result<Vec<_>, _>>()?,
            _ => return err("$.dataSetWriterIds", "a PayloadHeader needs one DataSetWriterId per DataSetMessage"),
        };
        if ids.len() != messages.len() {
            return err("$.dataSetWriterIds", format!("{} ids for {} DataSetMessages", ids.len(), messages.len()));
        }
        Some(ids)
    } else {
        if messages.len() != 1 {
            return err("$.payloadHeader", "without a PayloadHeader a NetworkMessage holds exactly one DataSetMessage");
        }
        None
    };
    Ok(NetworkMessage {
        publisher_id,
        data_set_class_id,
        group_header,
        data_set_writer_ids,
        timestamp: get(o, "timestamp").map(|v| datetime(v, "$.timestamp")).transpose()?,
        picoseconds: opt_uint(o, "picoseconds", "$", u16::MAX as u64)?,
        promoted_fields: match get(o, "promotedFields") {
            None => None,
            Some(J::Array(a)) => Some(
                a.iter()
                    .enumerate()
                    .map(|(i, v)| variant(v, &format!("$.promotedFields[{i}]")))
                    .collect::<Result<_, _>>()?,
            ),
            Some(other) => return err("$.promotedFields", format!("expected a list, found {other}")),
        },
        messages,
    })
}
