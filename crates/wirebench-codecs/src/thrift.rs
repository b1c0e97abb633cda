//! Apache Thrift compact protocol on the `thrift` crate, driven by our schema (no generated
//! code): the root record is a struct with field ids 1..n in schema order.
//!
//! Decoding reads from a position-tracking slice reader, so every error says how many bytes
//! were consumed. Lengths and list sizes are checked against the bytes left before anything
//! is allocated, unknown fields are skipped by our own bounded skip (the crate's `skip`
//! allocates a string's declared length before reading it), and field-id deltas are checked
//! before the crate adds them (an overflowing id would panic in a debug build).

use std::cell::Cell;
use std::io::{self, Read};
use wirebench_core::value::max_depth;

use thrift::protocol::{
    TCompactInputProtocol, TCompactOutputProtocol, TFieldIdentifier, TInputProtocol, TListIdentifier, TOutputProtocol,
    TStructIdentifier, TType,
};
use wirebench_core::schema::int_range;
use wirebench_core::{Field, Schema, Type, Value};

use crate::{need_schema, root_record, Codec, CodecError, CodecInfo, SchemaUse};

pub struct ThriftCompact;

static INFO: CodecInfo = CodecInfo {
    id: "thrift",
    format: "Apache Thrift (compact protocol)",
    library: "thrift",
    schema: SchemaUse::Required,
    media_type: "application/vnd.apache.thrift.compact",
    fidelity_notes: &[
        "sizes are the bare struct: no message envelope and no framing",
        "the root must be a record (a Thrift struct); field ids are 1..n in schema order",
        "float32 is widened to double (it reads back as the same float32)",
        "unsigned integers use the next wider signed type (uint8→i16, uint16→i32, uint32→i64); \
         uint64 values above i64::MAX are unsupported",
        "an explicit null in an optional field reads back as an absent field",
        "null and 'any' types are unsupported (an empty array of nulls is written as an empty list)",
    ],
};

impl Codec for ThriftCompact {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        write(value, schema, true, out)
    }

    fn encode_fitted(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        write(value, schema, false, out)
    }

    fn decode(&self, bytes: &[u8], schema: Option<&Schema>) -> Result<Value, CodecError> {
        let schema = need_schema(schema, "thrift")?;
        let fields = root_record(schema, "thrift")?;
        let pos = Cell::new(0);
        let mut d = Decoder { p: TCompactInputProtocol::new(Src { data: bytes, pos: &pos }), data: bytes, pos: &pos };
        let v = d.read_struct(fields, 0).map_err(|e| match e {
            CodecError::Decode { msg, offset, kind } => {
                CodecError::Decode { msg: msg.replacen(" (in ", " (at $", 1), offset, kind }
            }
            other => other,
        })?;
        if pos.get() < bytes.len() {
            return Err(CodecError::decode(
                format!("trailing bytes after the Thrift struct ({} left)", bytes.len() - pos.get()),
                Some(pos.get()),
            ));
        }
        Ok(v)
    }
}

/// Write `value` as a Thrift compact message of `schema`'s root record, checking first (`check`)
/// that the value fits the schema; the schema and its root are refused before the check.
fn write(value: &Value, schema: Option<&Schema>, check: bool, out: &mut Vec<u8>) -> Result<(), CodecError> {
    let schema = need_schema(schema, "thrift")?;
    let fields = root_record(schema, "thrift")?;
    if check {
        schema.check(value)?;
    }
    let start = out.len();
    let mut p = TCompactOutputProtocol::new(&mut *out);
    let res = write_struct(&mut p, fields, value, 0);
    drop(p);
    if let Err(e) = res {
        out.truncate(start);
        return Err(match e {
            WriteError::Unsupported(u) => u.into_error(),
            WriteError::Thrift(e) => CodecError::Encode(e.to_string()),
        });
    }
    Ok(())
}

/// The compact-protocol type a schema type is written as (`None`: Thrift cannot hold it).
fn wire_type(ty: &Type) -> Option<TType> {
    Some(match ty {
        Type::Bool => TType::Bool,
        Type::Int { bits, signed: true } => match bits {
            0..=8 => TType::I08,
            9..=16 => TType::I16,
            17..=32 => TType::I32,
            _ => TType::I64,
        },
        Type::Int { bits, signed: false } => match bits {
            0..=8 => TType::I16,
            9..=16 => TType::I32,
            _ => TType::I64,
        },
        Type::Float { .. } => TType::Double,
        Type::String | Type::Bytes => TType::String,
        Type::Array { .. } => TType::List,
        Type::Record { .. } => TType::Struct,
        Type::Null | Type::Any => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// Encoding.

/// A value the format cannot hold, with the path where (built while unwinding).
struct Unsupported {
    what: String,
    path: Vec<String>,
}

impl Unsupported {
    fn into_error(self) -> CodecError {
        let path: String = self.path.iter().rev().map(String::as_str).collect();
        CodecError::Unsupported(format!("{} (at ${path})", self.what))
    }
}

enum WriteError {
    Unsupported(Unsupported),
    Thrift(thrift::Error),
}

impl From<thrift::Error> for WriteError {
    fn from(e: thrift::Error) -> Self {
        WriteError::Thrift(e)
    }
}

impl WriteError {
    fn at(self, seg: impl FnOnce() -> String) -> WriteError {
        match self {
            WriteError::Unsupported(mut u) => {
                u.path.push(seg());
                WriteError::Unsupported(u)
            }
            other => other,
        }
    }
}

fn unsupported(what: String) -> WriteError {
    WriteError::Unsupported(Unsupported { what, path: Vec::new() })
}

type Out<'a> = TCompactOutputProtocol<&'a mut Vec<u8>>;

fn write_struct(p: &mut Out, fields: &[Field], v: &Value, depth: usize) -> Result<(), WriteError> {
    if depth > max_depth() {
        return Err(unsupported(format!("records nested deeper than {}", max_depth())));
    }
    let Value::Map(pairs) = v else {
        return Err(unsupported(format!("a {} where the schema has a record", v.kind())));
    };
    if fields.len() > i16::MAX as usize {
        return Err(unsupported(format!("a record of {} fields (Thrift field ids are i16)", fields.len())));
    }
    p.write_struct_begin(&TStructIdentifier { name: String::new() })?;
    let mut given = wirebench_core::value::pairs_lookup(pairs);
    for (i, f) in fields.iter().enumerate() {
        let fv = given.get(&f.name).map(|(_, v)| v);
        let fv = match fv {
            None | Some(Value::Null) if f.optional => continue,
            // Implicit presence (proto3): absent is the default; Thrift leaves the field out.
            None if f.may_be_absent() => continue,
            None => return Err(unsupported("missing field".into()).at(|| format!(".{}", f.name))),
            Some(fv) => fv,
        };
        let Some(field_type) = wire_type(&f.ty) else {
            return Err(
                unsupported(format!("Thrift has no type for {}", f.ty.describe())).at(|| format!(".{}", f.name))
            );
        };
        p.write_field_begin(&TFieldIdentifier { name: None, field_type, id: Some(i as i16 + 1) })?;
        write_value(p, &f.ty, fv, depth).map_err(|e| e.at(|| format!(".{}", f.name)))?;
        p.write_field_end()?;
    }
    p.write_field_stop()?;
    p.write_struct_end()?;
    Ok(())
}

fn write_value(p: &mut Out, ty: &Type, v: &Value, depth: usize) -> Result<(), WriteError> {
    let mismatch = || unsupported(format!("a {} where the schema has {}", v.kind(), ty.describe()));
    match ty {
        Type::Bool => match v {
            Value::Bool(b) => p.write_bool(*b)?,
            _ => return Err(mismatch()),
        },
        Type::Int { .. } => {
            let n = v.as_i128().ok_or_else(mismatch)?;
            let range = |t: &str| unsupported(format!("integer {n} does not fit a Thrift {t}"));
            match wire_type(ty) {
                Some(TType::I08) => p.write_i8(i8::try_from(n).map_err(|_| range("i8"))?)?,
                Some(TType::I16) => p.write_i16(i16::try_from(n).map_err(|_| range("i16"))?)?,
                Some(TType::I32) => p.write_i32(i32::try_from(n).map_err(|_| range("i32"))?)?,
                _ => p.write_i64(i64::try_from(n).map_err(|_| range("i64 (signed 64-bit)"))?)?,
            }
        }
        Type::Float { .. } => {
            let f = match *v {
                Value::F32(f) => f as f64,
                Value::F64(f) => f,
                Value::Int(i) => i as f64,
                Value::UInt(u) => u as f64,
                _ => return Err(mismatch()),
            };
            p.write_double(f)?
        }
        Type::String | Type::Bytes => {
            let b = match v {
                Value::String(s) if *ty == Type::String => s.as_bytes(),
                Value::Bytes(b) if *ty == Type::Bytes => b,
                _ => return Err(mismatch()),
            };
            if u32::try_from(b.len()).is_err() {
                return Err(unsupported(format!(
                    "a {} of {} bytes (Thrift lengths are 32-bit)",
                    ty.describe(),
                    b.len()
                )));
            }
            p.write_bytes(b)?
        }
        Type::Array { items } => {
            let Value::Array(vs) = v else { return Err(mismatch()) };
            if depth >= max_depth() {
                return Err(unsupported(format!("arrays nested deeper than {}", max_depth())));
            }
            let size = i32::try_from(vs.len())
                .map_err(|_| unsupported(format!("an array of {} items (Thrift list sizes are i32)", vs.len())))?;
            let element_type = match wire_type(items) {
                Some(t) => t,
                // No values to write: an empty list needs some element type.
                None if vs.is_empty() => TType::I08,
                None => return Err(unsupported(format!("Thrift has no type for {}", items.describe()))),
            };
            p.write_list_begin(&TListIdentifier::new(element_type, size))?;
            for (i, it) in vs.iter().enumerate() {
                write_value(p, items, it, depth + 1).map_err(|e| e.at(|| format!("[{i}]")))?;
            }
            p.write_list_end()?;
        }
        Type::Record { fields, .. } => write_struct(p, fields, v, depth + 1)?,
        Type::Null | Type::Any => {
            return Err(unsupported(format!("Thrift has no type for {}", ty.describe())));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Decoding.

/// A slice reader whose position is shared with the decoder (for offsets and bounds checks).
struct Src<'a> {
    data: &'a [u8],
    pos: &'a Cell<usize>,
}

impl Read for Src<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let p = self.pos.get();
        let rest = &self.data[p..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos.set(p + n);
        Ok(n)
    }
}

struct Decoder<'a> {
    p: TCompactInputProtocol<Src<'a>>,
    data: &'a [u8],
    pos: &'a Cell<usize>,
}

fn type_name(t: TType) -> &'static str {
    match t {
        TType::Stop => "stop",
        TType::Void => "void",
        TType::Bool => "bool",
        TType::I08 => "i8",
        TType::Double => "double",
        TType::I16 => "i16",
        TType::I32 => "i32",
        TType::I64 => "i64",
        TType::String | TType::Utf7 | TType::Utf8 | TType::Utf16 => "string/binary",
        TType::Struct => "struct",
        TType::Map => "map",
        TType::Set => "set",
        TType::List => "list",
    }
}

impl Decoder<'_> {
    fn at(&self) -> usize {
        self.pos.get()
    }

    fn left(&self) -> usize {
        self.data.len() - self.pos.get()
    }

    fn err(&self, msg: impl Into<String>) -> CodecError {
        CodecError::decode(msg, Some(self.at()))
    }

    fn thrift(&self, e: thrift::Error) -> CodecError {
        let msg = match &e {
            thrift::Error::Transport(t) if t.kind == thrift::TransportErrorKind::EndOfFile => {
                "truncated Thrift input".to_string()
            }
            _ => format!("invalid Thrift compact data: {e}"),
        };
        self.err(msg)
    }

    /// An unsigned varint at the current position, not consumed: (value, its length).
    fn peek_varint(&self, max_len: usize) -> Result<(u64, usize), CodecError> {
        let rest = &self.data[self.at()..];
        let mut v: u64 = 0;
        for (i, &b) in rest.iter().take(max_len).enumerate() {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok((v, i + 1));
            }
        }
        Err(if rest.len() < max_len { self.err("truncated Thrift varint") } else { self.err("Thrift varint too long") })
    }

    /// Check a string/binary length prefix against the bytes left; returns (length, prefix length).
    fn check_len(&self) -> Result<(usize, usize), CodecError> {
        let (len, n) = self.peek_varint(5)?;
        if len > (self.left() - n) as u64 {
            return Err(
                self.err(format!("Thrift string length {len} is longer than the {} bytes left", self.left() - n))
            );
        }
        Ok((len as usize, n))
    }

    /// `read_field_begin`, after checking that a field-id delta cannot overflow.
    fn field_begin(&mut self, last_id: i16) -> Result<TFieldIdentifier, CodecError> {
        let Some(&b) = self.data.get(self.at()) else {
            return Err(self.err("truncated Thrift struct (no stop field)"));
        };
        let delta = i32::from(b >> 4);
        if b & 0x0f != 0 && delta != 0 && i32::from(last_id) + delta > i32::from(i16::MAX) {
            return Err(self.err("Thrift field id overflows i16"));
        }
        self.p.read_field_begin().map_err(|e| self.thrift(e))
    }

    /// A list (or set) header: element type and a size checked against the bytes left.
    fn list_begin(&mut self, wire: TType) -> Result<(TType, usize), CodecError> {
        let (element_type, size) = if wire == TType::Set {
            self.p.read_set_begin().map(|s| (s.element_type, s.size))
        } else {
            self.p.read_list_begin().map(|l| (l.element_type, l.size))
        }
        .map_err(|e| self.thrift(e))?;
        // Every element takes at least one byte.
        if size < 0 || size as usize > self.left() {
            return Err(self.err(format!("Thrift list size {size} does not fit in the {} bytes left", self.left())));
        }
        Ok((element_type, size as usize))
    }

    fn read_struct(&mut self, fields: &[Field], depth: usize) -> Result<Value, CodecError> {
        if depth > max_depth() {
            return Err(self.err(format!("Thrift structs nested deeper than {}", max_depth())));
        }
        self.p.read_struct_begin().map_err(|e| self.thrift(e))?;
        let mut slots: Vec<Option<Value>> = (0..fields.len()).map(|_| None).collect();
        let mut last_id = 0i16;
        loop {
            let f = self.field_begin(last_id)?;
            if f.field_type == TType::Stop {
                break;
            }
            let id = f.id.unwrap_or(0);
            last_id = id;
            match usize::try_from(id).ok().filter(|&i| i >= 1 && i <= fields.len()) {
                Some(i) => {
                    let fd = &fields[i - 1];
                    let v = self
                        .read_value(&fd.ty, f.field_type, depth)
                        .map_err(|e| in_field(e, &format!(".{}", fd.name)))?;
                    slots[i - 1] = Some(v);
                }
                None => self.skip(f.field_type, depth + 1)?,
            }
            self.p.read_field_end().map_err(|e| self.thrift(e))?;
        }
        self.p.read_struct_end().map_err(|e| self.thrift(e))?;
        let mut pairs = Vec::with_capacity(fields.len());
        for (i, (f, slot)) in fields.iter().zip(slots).enumerate() {
            match slot {
                Some(v) => pairs.push((f.name.clone(), v)),
                None if f.may_be_absent() => {}
                None => {
                    return Err(self.err(format!("required field {:?} (id {}) is missing", f.name, i + 1)));
                }
            }
        }
        Ok(Value::Map(pairs))
    }

    fn read_value(&mut self, ty: &Type, wire: TType, depth: usize) -> Result<Value, CodecError> {
        let expected = wire_type(ty);
        let list_like = expected == Some(TType::List) && wire == TType::Set;
        if expected != Some(wire) && !list_like {
            return Err(self.err(format!("wire type {} where the schema has {}", type_name(wire), ty.describe())));
        }
        Ok(match ty {
            Type::Bool => Value::Bool(self.p.read_bool().map_err(|e| self.thrift(e))?),
            Type::Int { bits, signed } => {
                let n: i64 = match wire {
                    TType::I08 => self.p.read_i8().map(i64::from),
                    TType::I16 => self.p.read_i16().map(i64::from),
                    TType::I32 => self.p.read_i32().map(i64::from),
                    _ => self.p.read_i64(),
                }
                .map_err(|e| self.thrift(e))?;
                let (lo, hi) = int_range(*bits, *signed);
                if i128::from(n) < lo || i128::from(n) > hi {
                    return Err(self.err(format!("integer {n} out of range for {}", ty.describe())));
                }
                if *signed {
                    Value::Int(n)
                } else {
                    Value::UInt(n as u64)
                }
            }
            Type::Float { bits } => {
                let f = self.p.read_double().map_err(|e| self.thrift(e))?;
                if *bits <= 32 {
                    Value::F32(f as f32)
                } else {
                    Value::F64(f)
                }
            }
            Type::String => {
                self.check_len()?;
                let b = self.p.read_bytes().map_err(|e| self.thrift(e))?;
                let start = self.at() - b.len();
                match String::from_utf8(b) {
                    Ok(s) => Value::String(s),
                    Err(e) => {
                        let at = start + e.utf8_error().valid_up_to();
                        return Err(CodecError::decode("Thrift string is not valid UTF-8", Some(at)));
                    }
                }
            }
            Type::Bytes => {
                self.check_len()?;
                Value::Bytes(self.p.read_bytes().map_err(|e| self.thrift(e))?)
            }
            Type::Array { items } => {
                if depth >= max_depth() {
                    return Err(self.err(format!("Thrift lists nested deeper than {}", max_depth())));
                }
                let (element_type, size) = self.list_begin(wire)?;
                let mut out = Vec::with_capacity(size);
                for i in 0..size {
                    out.push(
                        self.read_value(items, element_type, depth + 1).map_err(|e| in_field(e, &format!("[{i}]")))?,
                    );
                }
                Value::Array(out)
            }
            Type::Record { fields, .. } => self.read_struct(fields, depth + 1)?,
            // wire_type() is None for these, so the check above has already failed.
            Type::Null | Type::Any => return Err(self.err(format!("Thrift has no type for {}", ty.describe()))),
        })
    }

    /// Skip one value of wire type `t`, with bounds checks and a depth limit.
    fn skip(&mut self, t: TType, depth: usize) -> Result<(), CodecError> {
        if depth > max_depth() {
            return Err(self.err(format!("Thrift value nested deeper than {}", max_depth())));
        }
        let res = match t {
            TType::Bool => self.p.read_bool().map(drop),
            TType::I08 => self.p.read_i8().map(drop),
            TType::I16 => self.p.read_i16().map(drop),
            TType::I32 => self.p.read_i32().map(drop),
            TType::I64 => self.p.read_i64().map(drop),
            TType::Double => self.p.read_double().map(drop),
            TType::String => {
                let (len, n) = self.check_len()?;
                self.pos.set(self.at() + n + len);
                Ok(())
            }
            TType::Struct => {
                self.p.read_struct_begin().map_err(|e| self.thrift(e))?;
                let mut last_id = 0i16;
                loop {
                    let f = self.field_begin(last_id)?;
                    if f.field_type == TType::Stop {
                        break;
                    }
                    last_id = f.id.unwrap_or(0);
                    self.skip(f.field_type, depth + 1)?;
                    self.p.read_field_end().map_err(|e| self.thrift(e))?;
                }
                self.p.read_struct_end()
            }
            TType::List | TType::Set => {
                let (element_type, size) = self.list_begin(t)?;
                for _ in 0..size {
                    self.skip(element_type, depth + 1)?;
                }
                Ok(())
            }
            TType::Map => {
                let m = self.p.read_map_begin().map_err(|e| self.thrift(e))?;
                if m.size < 0 || (m.size as usize).saturating_mul(2) > self.left() {
                    return Err(self.err(format!(
                        "Thrift map size {} does not fit in the {} bytes left",
                        m.size,
                        self.left()
                    )));
                }
                if m.size > 0 {
                    let (Some(k), Some(v)) = (m.key_type, m.value_type) else {
                        return Err(self.err("Thrift map without key and value types"));
                    };
                    for _ in 0..m.size {
                        self.skip(k, depth + 1)?;
                        self.skip(v, depth + 1)?;
                    }
                }
                Ok(())
            }
            other => return Err(self.err(format!("cannot skip Thrift type {}", type_name(other)))),
        };
        res.map_err(|e| self.thrift(e))
    }
}

/// Add a field name or index to a decode error's message.
fn in_field(e: CodecError, seg: &str) -> CodecError {
    match e {
        CodecError::Decode { msg, offset, kind } if !msg.contains(" (in ") => {
            CodecError::Decode { msg: format!("{msg} (in {seg})"), offset, kind }
        }
        CodecError::Decode { msg, offset, kind } => {
            // Prepend this level to the path already named.
            let msg = msg.replacen(" (in ", &format!(" (in {seg}"), 1);
            CodecError::Decode { msg, offset, kind }
        }
        other => other,
    }
}
