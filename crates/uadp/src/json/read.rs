//! Reading: a JSON NetworkMessage ([`from_json`]) into the data model, typed from `UaType` or
//! from the metadata, or guessed.

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::base64::base64_decode;
use super::text::{parse, Jv, Node};
use super::{JsonDecodeOptions, JsonForm, JsonMessage};
use crate::error::{Error, ErrorKind};
use crate::model::*;
use crate::time;

const DATA_VALUE_KEYS: [&str; 7] = [
    "Status",
    "StatusCode",
    "SourceTimestamp",
    "SourcePicoseconds",
    "SourcePicoSeconds",
    "ServerTimestamp",
    "ServerPicoseconds",
];

/// Read a JSON NetworkMessage (any of the layouts [`JsonOptions`](super::JsonOptions) can write).
pub fn from_json(text: &str, opts: &JsonDecodeOptions<'_>) -> Result<JsonMessage, Error> {
    let root = parse(text)?;
    let mut out = JsonMessage {
        message: NetworkMessage::default(),
        message_id: None,
        form: JsonForm::Reversible,
        network_message_header: false,
        data_set_message_header: true,
        single_data_set_message: false,
        message_type: false,
        metadata: Vec::new(),
    };
    let is_nm = matches!(root.v, Jv::Obj(_)) && root.has_any(&["Messages", "MessageId"]);
    let dsms: Vec<&Node<'_>> = if is_nm {
        out.network_message_header = true;
        if let Some(id) = root.get("MessageId") {
            out.message_id = Some(id.str()?.into());
        }
        if let Some(t) = root.get("MessageType") {
            if t.str()? != "ua-data" {
                return Err(Error::new(ErrorKind::Unrepresentable, t.at));
            }
        }
        if let Some(p) = root.get("PublisherId") {
            out.message.publisher_id = Some(publisher_id(p, opts)?);
        }
        if let Some(g) = root.get("DataSetClassId") {
            out.message.data_set_class_id = Some(Guid::parse(g.str()?).ok_or_else(|| g.bad())?);
        }
        match root.get("Messages") {
            Some(n @ Node { v: Jv::Obj(_), .. }) => {
                out.single_data_set_message = true;
                alloc::vec![n]
            }
            Some(Node { v: Jv::Arr(items), .. }) => items.iter().collect(),
            Some(n) => return Err(n.bad()),
            None => Vec::new(),
        }
    } else {
        match &root.v {
            Jv::Arr(items) => items.iter().collect(),
            Jv::Obj(_) => {
                out.single_data_set_message = true;
                alloc::vec![&root]
            }
            _ => return Err(root.bad()),
        }
    };
    if dsms.is_empty() {
        return Err(Error::new(ErrorKind::InvalidCount, root.at));
    }
    if dsms.len() > 255 {
        return Err(Error::new(ErrorKind::LengthLimit, root.at));
    }
    // A DataSetMessage with a header has at least one header member or a Payload object.
    let headerless = dsms.iter().all(|d| {
        matches!(d.v, Jv::Obj(_))
            && !d.has_any(&[
                "Payload",
                "DataSetWriterId",
                "SequenceNumber",
                "MessageType",
                "MetaDataVersion",
                "Timestamp",
                "Status",
            ])
    });
    out.data_set_message_header = !headerless;
    // The form: untyped if any field value is (a bare value, a DataValue with an untyped
    // "Value", or a status with its "Symbol"); `{}` and other DataValues without a value say
    // nothing.
    // A `{}` for a field the metadata calls a scalar StatusCode is a Good StatusCode (the field
    // reader takes it so), which only the untyped form writes as `{}`.
    let untyped = |name: &str, v: &Node<'_>, meta: Option<&DataSetMetaData>| match &v.v {
        Jv::Obj(m) if m.is_empty() => meta.is_some_and(|md| {
            md.fields.iter().any(|f| f.name == name && f.built_in_type == BuiltInType::StatusCode && !f.array)
        }),
        // A DataValue's StatusCode with its "Symbol" (only the untyped form writes one).
        Jv::Obj(_) => {
            (v.get("UaType").is_none() && v.has_any(&["Value", "Code", "Symbol"]))
                || v.get("Status").is_some_and(|st| st.get("Symbol").is_some())
        }
        _ => true,
    };
    let any_untyped = dsms.iter().any(|&d| {
        let payload = if headerless { Some(d) } else { d.get("Payload") };
        let writer =
            if headerless { None } else { d.get("DataSetWriterId").and_then(|w| w.uint(u16::MAX as u64).ok()) };
        let meta = DataSetMetaData::find(opts.metadata, writer.map(|w| w as u16));
        matches!(payload.map(|p| &p.v), Some(Jv::Obj(m)) if m.iter().any(|(k, v)| untyped(k, v, meta)))
    });
    if any_untyped {
        out.form = JsonForm::NonReversible;
    }
    let mut ids: Vec<Option<u16>> = Vec::new();
    for d in dsms {
        let (dsm, writer, meta) = data_set_message(d, headerless, opts, &mut out)?;
        out.message.messages.push(dsm);
        ids.push(writer);
        out.metadata.push(meta);
    }
    if ids.iter().all(Option::is_some) {
        out.message.data_set_writer_ids = Some(ids.into_iter().flatten().collect());
    } else if ids.iter().any(Option::is_some) || out.message.messages.len() != 1 {
        // UADP has writer ids for all messages (PayloadHeader) or for none (one message).
        return Err(Error::new(ErrorKind::Unrepresentable, root.at));
    }
    Ok(out)
}

fn publisher_id(p: &Node<'_>, opts: &JsonDecodeOptions<'_>) -> Result<PublisherId, Error> {
    let t = p.str()?;
    let n = || t.parse::<u64>().map_err(|_| p.bad());
    Ok(match opts.publisher_id_type {
        // Without a configured type, digits that fit are a UInt64 PublisherId (as open62541
        // reads them), anything else a String.
        None if !t.is_empty()
            && t.bytes().all(|b| b.is_ascii_digit())
            && (t == "0" || !t.starts_with('0'))
            && t.parse::<u64>().is_ok() =>
        {
            PublisherId::UInt64(n()?)
        }
        None | Some(BuiltInType::String) => PublisherId::String(t.into()),
        Some(BuiltInType::Byte) => PublisherId::Byte(u8::try_from(n()?).map_err(|_| p.bad())?),
        Some(BuiltInType::UInt16) => PublisherId::UInt16(u16::try_from(n()?).map_err(|_| p.bad())?),
        Some(BuiltInType::UInt32) => PublisherId::UInt32(u32::try_from(n()?).map_err(|_| p.bad())?),
        Some(BuiltInType::UInt64) => PublisherId::UInt64(n()?),
        Some(_) => return Err(p.bad()),
    })
}

fn data_set_message(
    d: &Node<'_>,
    headerless: bool,
    opts: &JsonDecodeOptions<'_>,
    out: &mut JsonMessage,
) -> Result<(DataSetMessage, Option<u16>, DataSetMetaData), Error> {
    let mut m = DataSetMessage::default();
    let mut writer = None;
    let payload_node;
    let mut kind = "ua-keyframe";
    if headerless {
        payload_node = Some(d);
    } else {
        if !matches!(d.v, Jv::Obj(_)) {
            return Err(d.bad());
        }
        if let Some(w) = d.get("DataSetWriterId") {
            writer = Some(w.uint(u16::MAX as u64)? as u16);
        }
        if let Some(p) = d.get("PublisherId") {
            if out.message.publisher_id.is_none() {
                out.message.publisher_id = Some(publisher_id(p, opts)?);
            }
        }
        if let Some(s) = d.get("SequenceNumber") {
            let v = s.uint(u32::MAX as u64)?;
            m.sequence_number = Some(u16::try_from(v).map_err(|_| Error::new(ErrorKind::Unrepresentable, s.at))?);
        }
        if let Some(v) = d.get("MetaDataVersion") {
            if let Some(x) = v.get("MajorVersion") {
                m.config_version_major = Some(x.uint(u32::MAX as u64)? as u32);
            }
            if let Some(x) = v.get("MinorVersion") {
                m.config_version_minor = Some(x.uint(u32::MAX as u64)? as u32);
            }
        }
        if let Some(t) = d.get("Timestamp") {
            m.timestamp = Some(datetime(t)?);
        }
        if let Some(s) = d.get("Status") {
            let code = status_code(s)?.0;
            if code & 0xffff != 0 {
                return Err(Error::new(ErrorKind::Unrepresentable, s.at));
            }
            // A Good status (`{}`) is still a status: present in the header, kept on re-encode.
            m.status = Some((code >> 16) as u16);
        }
        payload_node = d.get("Payload");
        match d.get("MessageType") {
            Some(t) => {
                out.message_type = true;
                kind = t.str()?;
            }
            None if payload_node.is_none() => kind = "ua-keepalive",
            None => {}
        }
    }
    let meta_in = DataSetMetaData::find(opts.metadata, writer);
    let mut meta_out = DataSetMetaData { data_set_writer_id: writer, fields: Vec::new() };
    let members: &[(Cow<'_, str>, Node<'_>)] = match payload_node.map(|p| &p.v) {
        Some(Jv::Obj(members)) => members,
        Some(_) => return Err(payload_node.map_or(d.bad(), Node::bad)),
        None => &[],
    };
    if members.len() > u16::MAX as usize {
        return Err(Error::new(ErrorKind::LengthLimit, d.at));
    }
    // Field names identify fields (the DataSetMetaData looks them up by name): a name given
    // twice is ambiguous and would not read back the same, so it is refused at the second one.
    let mut seen = alloc::collections::BTreeSet::new();
    for (name, node) in members {
        if !seen.insert(name.as_ref()) {
            return Err(Error::new(ErrorKind::JsonValue, node.at));
        }
    }
    // DataValue fields: status/timestamp members, or an untyped `{"Value":…}`.
    let untyped_form = out.form == JsonForm::NonReversible;
    // A scalar StatusCode field per the metadata: untyped JSON writes Good as `{}`.
    let good_status = |name: &str| {
        meta_in.is_some_and(|md| {
            md.fields.iter().any(|f| f.name == name && f.built_in_type == BuiltInType::StatusCode && !f.array)
        })
    };
    let as_data_value = members.iter().any(|(name, v)| {
        v.has_any(&DATA_VALUE_KEYS)
            || (v.get("Value").is_some() && v.get("UaType").is_none())
            // Untyped JSON writes a null Variant as `null`, so `{}` is an empty DataValue,
            // unless the metadata says the field is a StatusCode (Good is written `{}`).
            || (untyped_form && matches!(&v.v, Jv::Obj(m) if m.is_empty()) && !good_status(name))
    });
    m.field_encoding = if as_data_value { FieldEncoding::DataValue } else { FieldEncoding::Variant };
    let mut fields: Vec<(Option<usize>, Field)> = Vec::with_capacity(members.len());
    let mut found: Vec<(&Cow<'_, str>, BuiltInType, bool)> = Vec::with_capacity(members.len());
    // Members usually come in metadata order: the field after the last one found is tried
    // before a search (linear for a message in order; names are unique, checked above).
    let mut next = 0usize;
    for (name, node) in members {
        let index = meta_in.and_then(|md| match md.fields.get(next) {
            Some(f) if &f.name == name => Some(next),
            _ => md.fields.iter().position(|f| &f.name == name),
        });
        if let Some(i) = index {
            next = i + 1;
        }
        let hint = index.and_then(|i| meta_in.and_then(|md| md.fields.get(i)));
        let (field, _typed) = if as_data_value { data_value(node, hint)? } else { variant_field(node, hint)? };
        let built_in_type = match &field {
            Field::Variant(v) => v.built_in_type(),
            Field::DataValue(dv) => dv.value.as_ref().and_then(Variant::built_in_type),
        };
        let array = match &field {
            Field::Variant(v) => v.is_array(),
            Field::DataValue(dv) => dv.value.as_ref().is_some_and(Variant::is_array),
        };
        // The names are copied only when the metadata given does not take their place (below).
        found.push((
            name,
            hint.map(|h| h.built_in_type).or(built_in_type).unwrap_or(BuiltInType::String),
            hint.map_or(array, |h| h.array),
        ));
        fields.push((index, field));
    }
    m.payload = match kind {
        "ua-keyframe" => {
            // With metadata naming every field, put them in metadata order.
            if let Some(md) = meta_in {
                let all = fields.iter().all(|(i, _)| i.is_some()) && fields.len() == md.fields.len();
                if all {
                    fields.sort_by_key(|(i, _)| *i);
                    meta_out.fields = md.fields.clone();
                }
            }
            Payload::KeyFrame(fields.into_iter().map(|(_, f)| f).collect())
        }
        "ua-deltaframe" => {
            let mut delta = Vec::with_capacity(fields.len());
            for ((index, value), (_, node)) in fields.into_iter().zip(members) {
                let index = index.ok_or(Error::new(ErrorKind::MissingMetadata, node.at))?;
                let index = u16::try_from(index).map_err(|_| Error::new(ErrorKind::LengthLimit, node.at))?;
                delta.push(DeltaField { index, value });
            }
            if let Some(md) = meta_in {
                meta_out.fields = md.fields.clone();
            }
            Payload::DeltaFrame(delta)
        }
        "ua-keepalive" => {
            if !members.is_empty() {
                return Err(d.bad());
            }
            Payload::KeepAlive
        }
        _ => return Err(Error::new(ErrorKind::Unrepresentable, d.get("MessageType").map_or(d.at, |n| n.at))),
    };
    if meta_out.fields.is_empty() {
        meta_out.fields = found
            .into_iter()
            .map(|(name, built_in_type, array)| FieldMetaData { name: name.to_string(), built_in_type, array })
            .collect();
    }
    Ok((m, writer, meta_out))
}

/// A Variant field value; returns whether it was typed (`UaType`).
fn variant_field(n: &Node<'_>, hint: Option<&FieldMetaData>) -> Result<(Field, bool), Error> {
    if let Jv::Obj(members) = &n.v {
        // `{}` is the null Variant, unless the metadata says it is a (Good) StatusCode.
        let status_hint = hint.is_some_and(|h| h.built_in_type == BuiltInType::StatusCode && !h.array);
        if n.get("UaType").is_some() || (members.is_empty() && !status_hint) {
            return Ok((Field::Variant(typed_variant(n)?), true));
        }
    }
    Ok((Field::Variant(untyped_variant(n, hint)?), false))
}

/// A DataValue field (`{"UaType":…,"Value":…,"Status":…,…}` or without `UaType`).
fn data_value(n: &Node<'_>, hint: Option<&FieldMetaData>) -> Result<(Field, bool), Error> {
    if !matches!(n.v, Jv::Obj(_)) {
        // A bare value among DataValues: a DataValue with only a value.
        let v = untyped_variant(n, hint)?;
        return Ok((Field::DataValue(DataValue::of(v)), false));
    }
    let mut dv = DataValue::default();
    let mut typed = true;
    if n.get("UaType").is_some() {
        dv.value = Some(typed_variant(n)?);
    } else if let Some(v) = n.get("Value") {
        dv.value = Some(untyped_variant(v, hint)?);
        typed = false;
    }
    if let Some(s) = n.get("Status").or_else(|| n.get("StatusCode")) {
        let c = status_code(s)?;
        if c.0 != 0 {
            dv.status = Some(c);
        }
    }
    if let Some(t) = n.get("SourceTimestamp") {
        dv.source_timestamp = Some(datetime(t)?);
    }
    if let Some(p) = n.get("SourcePicoseconds").or_else(|| n.get("SourcePicoSeconds")) {
        dv.source_picoseconds = Some(p.uint(u16::MAX as u64)? as u16).filter(|&p| p != 0);
    }
    if let Some(t) = n.get("ServerTimestamp") {
        dv.server_timestamp = Some(datetime(t)?);
    }
    if let Some(p) = n.get("ServerPicoseconds").or_else(|| n.get("ServerPicoSeconds")) {
        dv.server_picoseconds = Some(p.uint(u16::MAX as u64)? as u16).filter(|&p| p != 0);
    }
    Ok((Field::DataValue(dv), typed))
}

/// `{"UaType":n,"Value":…}` (or `{}` for the null Variant).
fn typed_variant(n: &Node<'_>) -> Result<Variant, Error> {
    let Some(t) = n.get("UaType") else { return Ok(Variant::Null) };
    let id = t.uint(255)? as u8;
    if id == 0 {
        return Ok(Variant::Null);
    }
    let ty = match BuiltInType::from_id(id) {
        Some(ty) => ty,
        None if (16..=25).contains(&id) => return Err(Error::new(ErrorKind::UnsupportedVariantType, t.at)),
        None => return Err(Error::new(ErrorKind::InvalidVariantType, t.at)),
    };
    if let Some(d) = n.get("Dimensions") {
        match &d.v {
            Jv::Arr(a) if a.len() <= 1 => {}
            _ => return Err(Error::new(ErrorKind::UnsupportedArrayDimensions, d.at)),
        }
    }
    match n.get("Value") {
        None => match ty {
            BuiltInType::String => Ok(Variant::Scalar(Scalar::String(None))),
            BuiltInType::ByteString => Ok(Variant::Scalar(Scalar::ByteString(None))),
            _ => Err(t.bad()),
        },
        Some(Node { v: Jv::Arr(items), .. }) => {
            let mut out = Vec::with_capacity(items.len());
            for it in items {
                out.push(scalar(it, ty)?);
            }
            Ok(Variant::Array { ty, items: out })
        }
        Some(v) => Ok(Variant::Scalar(scalar(v, ty)?)),
    }
}

/// A bare value: typed by the metadata when given, else guessed from the JSON.
fn untyped_variant(n: &Node<'_>, hint: Option<&FieldMetaData>) -> Result<Variant, Error> {
    if let Some(h) = hint {
        return match (&n.v, h.array) {
            (Jv::Null, _) => Ok(Variant::Null),
            (Jv::Arr(items), true) => {
                let mut out = Vec::with_capacity(items.len());
                for it in items {
                    out.push(scalar(it, h.built_in_type)?);
                }
                Ok(Variant::Array { ty: h.built_in_type, items: out })
            }
            (_, false) => Ok(Variant::Scalar(scalar(n, h.built_in_type)?)),
            _ => Err(n.bad()),
        };
    }
    let guess = |n: &Node<'_>| -> Option<BuiltInType> {
        match &n.v {
            Jv::Bool(_) => Some(BuiltInType::Boolean),
            Jv::Num(_) => Some(BuiltInType::Double),
            Jv::Str(_) => Some(BuiltInType::String),
            Jv::Obj(_) if n.has_any(&["Code", "Symbol"]) => Some(BuiltInType::StatusCode),
            _ => None,
        }
    };
    match &n.v {
        Jv::Null => Ok(Variant::Null),
        Jv::Arr(items) => {
            let ty = match items.first() {
                None => BuiltInType::Double,
                Some(first) => guess(first).ok_or_else(|| first.bad())?,
            };
            let mut out = Vec::with_capacity(items.len());
            for it in items {
                if guess(it) != Some(ty) {
                    return Err(it.bad());
                }
                out.push(scalar(it, ty)?);
            }
            Ok(Variant::Array { ty, items: out })
        }
        _ => {
            let ty = guess(n).ok_or_else(|| n.bad())?;
            Ok(Variant::Scalar(scalar(n, ty)?))
        }
    }
}

fn datetime(n: &Node<'_>) -> Result<DateTime, Error> {
    time::parse_iso8601(n.str()?).ok_or_else(|| n.bad())
}

fn status_code(n: &Node<'_>) -> Result<StatusCode, Error> {
    match &n.v {
        Jv::Num(_) => Ok(StatusCode(n.uint(u32::MAX as u64)? as u32)),
        Jv::Obj(_) => match n.get("Code") {
            Some(c) => Ok(StatusCode(c.uint(u32::MAX as u64)? as u32)),
            None => Ok(StatusCode::GOOD),
        },
        Jv::Null => Ok(StatusCode::GOOD),
        _ => Err(n.bad()),
    }
}

/// An integer from a JSON number (or, for 64-bit types, a string) within `lo..=hi`.
fn int(n: &Node<'_>, lo: i128, hi: i128, allow_string: bool) -> Result<i128, Error> {
    let text = match &n.v {
        Jv::Num(t) => *t,
        Jv::Str(s) if allow_string => s.as_ref(),
        _ => return Err(n.bad()),
    };
    let v = match text.parse::<i128>() {
        Ok(v) => v,
        Err(_) => {
            // 4.2e1 and 42.0 are integers too.
            let f: f64 = text.parse().map_err(|_| n.bad())?;
            if !f.is_finite() || f.abs() > 1.9e19 || (f as i128) as f64 != f {
                return Err(n.bad());
            }
            f as i128
        }
    };
    if v < lo || v > hi {
        return Err(n.bad());
    }
    Ok(v)
}

fn float_text<'a>(n: &'a Node<'_>) -> Result<&'a str, Error> {
    match &n.v {
        Jv::Num(t) => Ok(t),
        Jv::Str(s) if matches!(s.as_ref(), "NaN" | "Infinity" | "-Infinity") => Ok(s.as_ref()),
        _ => Err(n.bad()),
    }
}

fn scalar(n: &Node<'_>, ty: BuiltInType) -> Result<Scalar, Error> {
    Ok(match ty {
        BuiltInType::Boolean => match n.v {
            Jv::Bool(b) => Scalar::Boolean(b),
            _ => return Err(n.bad()),
        },
        BuiltInType::SByte => Scalar::SByte(int(n, i8::MIN as i128, i8::MAX as i128, false)? as i8),
        BuiltInType::Byte => Scalar::Byte(int(n, 0, u8::MAX as i128, false)? as u8),
        BuiltInType::Int16 => Scalar::Int16(int(n, i16::MIN as i128, i16::MAX as i128, false)? as i16),
        BuiltInType::UInt16 => Scalar::UInt16(int(n, 0, u16::MAX as i128, false)? as u16),
        BuiltInType::Int32 => Scalar::Int32(int(n, i32::MIN as i128, i32::MAX as i128, false)? as i32),
        BuiltInType::UInt32 => Scalar::UInt32(int(n, 0, u32::MAX as i128, false)? as u32),
        BuiltInType::Int64 => Scalar::Int64(int(n, i64::MIN as i128, i64::MAX as i128, true)? as i64),
        BuiltInType::UInt64 => Scalar::UInt64(int(n, 0, u64::MAX as i128, true)? as u64),
        BuiltInType::Float => Scalar::Float(float_text(n)?.parse::<f32>().map_err(|_| n.bad())?),
        BuiltInType::Double => Scalar::Double(float_text(n)?.parse::<f64>().map_err(|_| n.bad())?),
        BuiltInType::String => match &n.v {
            Jv::Str(s) => Scalar::String(Some(String::from(s.as_ref()))),
            Jv::Null => Scalar::String(None),
            _ => return Err(n.bad()),
        },
        BuiltInType::DateTime => Scalar::DateTime(datetime(n)?),
        BuiltInType::Guid => Scalar::Guid(Guid::parse(n.str()?).ok_or_else(|| n.bad())?),
        BuiltInType::ByteString => match &n.v {
            Jv::Str(s) => Scalar::ByteString(Some(base64_decode(s).ok_or_else(|| n.bad())?)),
            Jv::Null => Scalar::ByteString(None),
            _ => return Err(n.bad()),
        },
        BuiltInType::StatusCode => Scalar::StatusCode(status_code(n)?),
    })
}
