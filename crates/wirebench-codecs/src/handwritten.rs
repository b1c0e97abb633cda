//! The typed path of our own codecs: CDR, UADP and Protoson written straight from the typed
//! structs and read straight back into them, the way generated code (idlc's serializers, an
//! OPC UA PubSub code generator) or a user's hand-written writer does it: one call per field,
//! in declaration order, into a reused buffer, with no tree and no schema walk.
//!
//! Each struct lists its fields with their wire kind (the IDL / built-in type the dynamic path
//! infers for the payload, so both paths give the same bytes; a test checks every payload):
//!
//! | kind   | Rust field         | CDR                      | UADP Variant           | Protoson          |
//! |--------|--------------------|--------------------------|------------------------|-------------------|
//! | `Str`  | `String`           | `string`                 | String (12)            | string            |
//! | `U32`  | `u64` / `u32`      | `unsigned long`          | UInt32 (7)             | varint            |
//! | `U64`  | `u64`              | `unsigned long long`     | UInt64 (9)             | varint            |
//! | `I32`  | `i64`              | `long`                   | Int32 (6)              | varint / negative |
//! | `F64`  | `f64`              | `double`                 | Double (11)            | float (lossy rule)|
//! | `Bool` | `bool`             | `boolean`                | Boolean (1)            | true / false      |
//! | `F64s` | `Vec<f64>`         | `sequence<double>`       | array of Double        | array             |
//! | `U32s` | `Vec<u32>`         | `sequence<unsigned long>`| array of UInt32        | array             |
//! | `Strs` | `Vec<String>`      | `sequence<string>`       | array of String        | array             |
//! | `Rec`  | a struct           | the struct inline (`@final`) | its fields flattened | map               |
//!
//! UADP is read as the writer lays it out (UADPFlags 0x01, DataSetFlags1 0x01, the field
//! count, one Variant per leaf of the expected type); anything else is an error, as for a
//! generated reader bound to one DataSet.

use cdr::{Reader, Writer};
use pson::protoson::StreamEncoder;

/// An error of the typed readers and writers (the message says what and where).
pub type WireResult<T> = Result<T, String>;

/// A message type with hand-written CDR, UADP and Protoson writers and readers.
pub trait Wire: Sized {
    /// Leaves (UADP fields) of the struct, nested structs flattened.
    const LEAVES: usize;
    fn cdr_write(&self, w: &mut Writer<'_>) -> WireResult<()>;
    fn cdr_read(r: &mut Reader<'_>) -> WireResult<Self>;
    fn uadp_write(&self, out: &mut Vec<u8>) -> WireResult<()>;
    fn uadp_read(r: &mut UadpReader<'_>) -> WireResult<Self>;
    /// The struct as a Protoson map (keys are the field names).
    fn protoson_write(&self, e: &mut StreamEncoder<'_>);
    /// The struct from a decoded Protoson map.
    fn protoson_read(map: &[(&str, pson::Value<'_>)]) -> WireResult<Self>;
}

fn cdr_err(e: cdr::Error) -> String {
    e.to_string()
}

/// A field's wire kind: how one field is written and read in each format.
pub trait Kind<T> {
    const LEAVES: usize = 1;
    fn cdr_write(v: &T, w: &mut Writer<'_>) -> WireResult<()>;
    fn cdr_read(r: &mut Reader<'_>) -> WireResult<T>;
    fn uadp_write(v: &T, out: &mut Vec<u8>) -> WireResult<()>;
    fn uadp_read(r: &mut UadpReader<'_>) -> WireResult<T>;
    fn protoson_write(v: &T, e: &mut StreamEncoder<'_>);
    fn protoson_read(v: &pson::Value<'_>) -> WireResult<T>;
}

/// A byte cursor over a UADP NetworkMessage (little-endian, as the spec lays it out).
pub struct UadpReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> UadpReader<'a> {
    fn take(&mut self, n: usize) -> WireResult<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("UADP message ends at byte {} ({} more expected)", self.bytes.len(), n))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> WireResult<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }
    /// The Variant's type byte, checked against the expected built-in type (and array flag).
    fn variant(&mut self, t: uadp::BuiltInType, array: bool) -> WireResult<()> {
        let at = self.pos;
        let want = t.id() | if array { 0x80 } else { 0 };
        let [got] = self.array::<1>()?;
        if got != want {
            return Err(format!("UADP Variant at byte {at}: type 0x{got:02x}, expected 0x{want:02x}"));
        }
        Ok(())
    }
    fn len(&mut self) -> WireResult<usize> {
        let at = self.pos;
        let n = i32::from_le_bytes(self.array()?);
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.bytes.len() - self.pos)
            .ok_or_else(|| format!("UADP length {n} at byte {at}"))
    }
    fn string(&mut self) -> WireResult<String> {
        let at = self.pos;
        let n = self.len()?;
        let b = self.take(n)?;
        std::str::from_utf8(b).map(str::to_owned).map_err(|_| format!("UADP String at byte {at}: not UTF-8"))
    }
}

/// Write a NetworkMessage of one key-frame DataSetMessage with `T::LEAVES` Variant fields (the
/// smallest header options, as the dynamic `uadp` codec writes it).
pub fn uadp_encode<T: Wire>(v: &T, out: &mut Vec<u8>) -> WireResult<()> {
    let start = out.len();
    out.extend_from_slice(&[0x01, 0x01]);
    out.extend_from_slice(&(T::LEAVES as u16).to_le_bytes());
    v.uadp_write(out).inspect_err(|_| out.truncate(start))
}

/// Read what [`uadp_encode`] writes (all of `bytes`).
pub fn uadp_decode<T: Wire>(bytes: &[u8]) -> WireResult<T> {
    let mut r = UadpReader { bytes, pos: 0 };
    let head = r.array::<4>()?;
    if head[..2] != [0x01, 0x01] || u16::from_le_bytes([head[2], head[3]]) as usize != T::LEAVES {
        return Err(format!("UADP header {head:02x?}: expected 01 01 and {} fields", T::LEAVES));
    }
    let v = T::uadp_read(&mut r)?;
    if r.pos != bytes.len() {
        return Err(format!("{} trailing bytes after the UADP message", bytes.len() - r.pos));
    }
    Ok(v)
}

/// CDR with its encapsulation header (XCDR1 `CDR_LE` or XCDR2 `CDR2_LE`), no trailing padding.
pub fn cdr_encode<T: Wire>(v: &T, xcdr2: bool, out: &mut Vec<u8>) -> WireResult<()> {
    let representation = if xcdr2 { cdr::Representation::Cdr2 } else { cdr::Representation::Cdr };
    let header = cdr::Header { representation, endian: cdr::Endian::Little, options: [0, 0] };
    let start = out.len();
    let mut w = Writer::new(out, header);
    let r = v.cdr_write(&mut w);
    w.finish(false);
    if r.is_err() {
        out.truncate(start);
    }
    r
}

/// Read what [`cdr_encode`] writes (the header says which representation).
pub fn cdr_decode<T: Wire>(bytes: &[u8]) -> WireResult<T> {
    let mut r = Reader::new(bytes).map_err(cdr_err)?;
    let v = T::cdr_read(&mut r)?;
    r.finish().map_err(cdr_err)?;
    Ok(v)
}

pub fn protoson_encode<T: Wire>(v: &T, out: &mut Vec<u8>) {
    v.protoson_write(&mut StreamEncoder::new(out));
}

pub fn protoson_decode<T: Wire>(bytes: &[u8]) -> WireResult<T> {
    let (v, used) = pson::protoson::decode(bytes).map_err(|e| e.to_string())?;
    if used != bytes.len() {
        return Err(format!("{} trailing bytes after the Protoson item", bytes.len() - used));
    }
    match v {
        pson::Value::Map(pairs) => T::protoson_read(&pairs),
        _ => Err("Protoson: expected a map".into()),
    }
}

/// The value of key `k` in a decoded Protoson map.
pub fn field<'m, 'b>(map: &'m [(&'b str, pson::Value<'b>)], k: &str) -> WireResult<&'m pson::Value<'b>> {
    map.iter().find(|(name, _)| *name == k).map(|(_, v)| v).ok_or_else(|| format!("Protoson: field {k:?} missing"))
}

fn ps_uint(v: &pson::Value<'_>) -> WireResult<u64> {
    match *v {
        pson::Value::Uint(u) => Ok(u),
        pson::Value::Int(i) if i >= 0 => Ok(i as u64),
        ref other => Err(format!("Protoson: expected an unsigned integer, found {other:?}")),
    }
}

fn ps_float(v: &pson::Value<'_>) -> WireResult<f64> {
    match *v {
        pson::Value::F32(f) => Ok(f as f64),
        pson::Value::F64(f) => Ok(f),
        // Whole floats travel as integers.
        pson::Value::Uint(u) => Ok(u as f64),
        pson::Value::Int(i) => Ok(i as f64),
        ref other => Err(format!("Protoson: expected a number, found {other:?}")),
    }
}

fn ps_str(v: &pson::Value<'_>) -> WireResult<String> {
    match *v {
        pson::Value::Str(s) => Ok(s.to_owned()),
        ref other => Err(format!("Protoson: expected a string, found {other:?}")),
    }
}

fn ps_items<'m, 'b>(v: &'m pson::Value<'b>) -> WireResult<&'m [pson::Value<'b>]> {
    match v {
        pson::Value::Array(items) => Ok(items),
        other => Err(format!("Protoson: expected an array, found {other:?}")),
    }
}

pub struct Str;
pub struct U32;
pub struct U64;
pub struct I32;
pub struct F64;
pub struct Bool;
/// A sequence of a scalar kind: CDR `sequence<T>`, a UADP array Variant, a Protoson array.
pub struct Seq<K>(std::marker::PhantomData<K>);
pub type F64s = Seq<F64>;
pub type U32s = Seq<U32>;
pub type Strs = Seq<Str>;
pub struct Rec;

use uadp::BuiltInType as B;

/// A scalar wire kind: one value, alone or as an item of a [`Seq`] (a UADP array's items carry
/// no type byte of their own, so the Variant body is apart from its type byte).
pub trait Scalar<T> {
    /// The UADP built-in type.
    const TYPE: B;
    /// The fewest CDR bytes one value takes (bounds a sequence count before allocating).
    const CDR_MIN: usize;
    fn cdr_write(v: &T, w: &mut Writer<'_>) -> WireResult<()>;
    fn cdr_read(r: &mut Reader<'_>) -> WireResult<T>;
    /// The UADP Variant body (no type byte).
    fn uadp_body(v: &T, out: &mut Vec<u8>) -> WireResult<()>;
    fn uadp_read_body(r: &mut UadpReader<'_>) -> WireResult<T>;
    fn protoson_write(v: &T, e: &mut StreamEncoder<'_>);
    fn protoson_read(v: &pson::Value<'_>) -> WireResult<T>;
}

/// A scalar kind is a field kind: its Variant is the type byte and the body.
macro_rules! scalar_kinds {
    ($($k:ty: $t:ty),*) => {$(
        impl Kind<$t> for $k {
            fn cdr_write(v: &$t, w: &mut Writer<'_>) -> WireResult<()> {
                <$k as Scalar<$t>>::cdr_write(v, w)
            }
            fn cdr_read(r: &mut Reader<'_>) -> WireResult<$t> {
                <$k as Scalar<$t>>::cdr_read(r)
            }
            fn uadp_write(v: &$t, out: &mut Vec<u8>) -> WireResult<()> {
                out.push(<$k as Scalar<$t>>::TYPE.id());
                <$k as Scalar<$t>>::uadp_body(v, out)
            }
            fn uadp_read(r: &mut UadpReader<'_>) -> WireResult<$t> {
                r.variant(<$k as Scalar<$t>>::TYPE, false)?;
                <$k as Scalar<$t>>::uadp_read_body(r)
            }
            fn protoson_write(v: &$t, e: &mut StreamEncoder<'_>) {
                <$k as Scalar<$t>>::protoson_write(v, e)
            }
            fn protoson_read(v: &pson::Value<'_>) -> WireResult<$t> {
                <$k as Scalar<$t>>::protoson_read(v)
            }
        }
    )*};
}
scalar_kinds!(Str: String, U32: u64, U32: u32, U64: u64, I32: i64, F64: f64, Bool: bool);

impl<T, K: Scalar<T>> Kind<Vec<T>> for Seq<K> {
    fn cdr_write(v: &Vec<T>, w: &mut Writer<'_>) -> WireResult<()> {
        // Strings are not CDR primitives: XCDR2 puts a DHEADER before their sequence.
        let m = w.begin_sequence(v.len(), <K as Scalar<T>>::TYPE != B::String).map_err(cdr_err)?;
        v.iter().try_for_each(|x| <K as Scalar<T>>::cdr_write(x, w))?;
        w.end_sequence(m).map_err(cdr_err)
    }
    fn cdr_read(r: &mut Reader<'_>) -> WireResult<Vec<T>> {
        let (n, m) =
            r.begin_sequence(<K as Scalar<T>>::TYPE != B::String, <K as Scalar<T>>::CDR_MIN).map_err(cdr_err)?;
        let v = (0..n).map(|_| <K as Scalar<T>>::cdr_read(r)).collect::<WireResult<_>>()?;
        r.end_sequence(m);
        Ok(v)
    }
    fn uadp_write(v: &Vec<T>, out: &mut Vec<u8>) -> WireResult<()> {
        out.push(<K as Scalar<T>>::TYPE.id() | 0x80);
        let n = i32::try_from(v.len()).map_err(|_| format!("an array of {} items", v.len()))?;
        out.extend_from_slice(&n.to_le_bytes());
        v.iter().try_for_each(|x| <K as Scalar<T>>::uadp_body(x, out))
    }
    fn uadp_read(r: &mut UadpReader<'_>) -> WireResult<Vec<T>> {
        r.variant(<K as Scalar<T>>::TYPE, true)?;
        let n = r.len()?;
        (0..n).map(|_| <K as Scalar<T>>::uadp_read_body(r)).collect()
    }
    fn protoson_write(v: &Vec<T>, e: &mut StreamEncoder<'_>) {
        let a = e.begin_array();
        v.iter().for_each(|x| <K as Scalar<T>>::protoson_write(x, e));
        e.end(a);
    }
    fn protoson_read(v: &pson::Value<'_>) -> WireResult<Vec<T>> {
        ps_items(v)?.iter().map(<K as Scalar<T>>::protoson_read).collect()
    }
}

impl Scalar<String> for Str {
    const TYPE: B = B::String;
    const CDR_MIN: usize = 5;
    fn cdr_write(v: &String, w: &mut Writer<'_>) -> WireResult<()> {
        w.string(v).map_err(cdr_err)
    }
    fn cdr_read(r: &mut Reader<'_>) -> WireResult<String> {
        r.string().map(str::to_owned).map_err(cdr_err)
    }
    fn uadp_body(v: &String, out: &mut Vec<u8>) -> WireResult<()> {
        let n = i32::try_from(v.len()).map_err(|_| format!("a string of {} bytes", v.len()))?;
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(v.as_bytes());
        Ok(())
    }
    fn uadp_read_body(r: &mut UadpReader<'_>) -> WireResult<String> {
        r.string()
    }
    fn protoson_write(v: &String, e: &mut StreamEncoder<'_>) {
        e.str(v)
    }
    fn protoson_read(v: &pson::Value<'_>) -> WireResult<String> {
        ps_str(v)
    }
}

/// An unsigned 32-bit wire field held in a `u64` or `u32` (checked on writing).
macro_rules! u32_kind {
    ($t:ty) => {
        impl Scalar<$t> for U32 {
            const TYPE: B = B::UInt32;
            const CDR_MIN: usize = 4;
            fn cdr_write(v: &$t, w: &mut Writer<'_>) -> WireResult<()> {
                w.u32(narrow_u32(*v as u64)?).map_err(cdr_err)
            }
            fn cdr_read(r: &mut Reader<'_>) -> WireResult<$t> {
                r.u32().map(|x| x as $t).map_err(cdr_err)
            }
            fn uadp_body(v: &$t, out: &mut Vec<u8>) -> WireResult<()> {
                out.extend_from_slice(&narrow_u32(*v as u64)?.to_le_bytes());
                Ok(())
            }
            fn uadp_read_body(r: &mut UadpReader<'_>) -> WireResult<$t> {
                Ok(u32::from_le_bytes(r.array()?) as $t)
            }
            fn protoson_write(v: &$t, e: &mut StreamEncoder<'_>) {
                e.uint(*v as u64)
            }
            fn protoson_read(v: &pson::Value<'_>) -> WireResult<$t> {
                ps_uint(v).and_then(narrow_u32).map(|x| x as $t)
            }
        }
    };
}
u32_kind!(u64);
u32_kind!(u32);

fn narrow_u32(v: u64) -> WireResult<u32> {
    u32::try_from(v).map_err(|_| format!("{v} does not fit unsigned long"))
}

impl Scalar<u64> for U64 {
    const TYPE: B = B::UInt64;
    const CDR_MIN: usize = 8;
    fn cdr_write(v: &u64, w: &mut Writer<'_>) -> WireResult<()> {
        w.u64(*v).map_err(cdr_err)
    }
    fn cdr_read(r: &mut Reader<'_>) -> WireResult<u64> {
        r.u64().map_err(cdr_err)
    }
    fn uadp_body(v: &u64, out: &mut Vec<u8>) -> WireResult<()> {
        out.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn uadp_read_body(r: &mut UadpReader<'_>) -> WireResult<u64> {
        Ok(u64::from_le_bytes(r.array()?))
    }
    fn protoson_write(v: &u64, e: &mut StreamEncoder<'_>) {
        e.uint(*v)
    }
    fn protoson_read(v: &pson::Value<'_>) -> WireResult<u64> {
        ps_uint(v)
    }
}

impl Scalar<i64> for I32 {
    const TYPE: B = B::Int32;
    const CDR_MIN: usize = 4;
    fn cdr_write(v: &i64, w: &mut Writer<'_>) -> WireResult<()> {
        w.i32(narrow_i32(*v)?).map_err(cdr_err)
    }
    fn cdr_read(r: &mut Reader<'_>) -> WireResult<i64> {
        r.i32().map(i64::from).map_err(cdr_err)
    }
    fn uadp_body(v: &i64, out: &mut Vec<u8>) -> WireResult<()> {
        out.extend_from_slice(&narrow_i32(*v)?.to_le_bytes());
        Ok(())
    }
    fn uadp_read_body(r: &mut UadpReader<'_>) -> WireResult<i64> {
        Ok(i32::from_le_bytes(r.array()?) as i64)
    }
    fn protoson_write(v: &i64, e: &mut StreamEncoder<'_>) {
        e.int(*v)
    }
    fn protoson_read(v: &pson::Value<'_>) -> WireResult<i64> {
        match *v {
            pson::Value::Int(i) => Ok(i),
            pson::Value::Uint(u) => i64::try_from(u).map_err(|_| format!("{u} does not fit long")),
            ref other => Err(format!("Protoson: expected an integer, found {other:?}")),
        }
    }
}

fn narrow_i32(v: i64) -> WireResult<i32> {
    i32::try_from(v).map_err(|_| format!("{v} does not fit long"))
}

impl Scalar<f64> for F64 {
    const TYPE: B = B::Double;
    const CDR_MIN: usize = 8;
    fn cdr_write(v: &f64, w: &mut Writer<'_>) -> WireResult<()> {
        w.f64(*v).map_err(cdr_err)
    }
    fn cdr_read(r: &mut Reader<'_>) -> WireResult<f64> {
        r.f64().map_err(cdr_err)
    }
    fn uadp_body(v: &f64, out: &mut Vec<u8>) -> WireResult<()> {
        out.extend_from_slice(&v.to_bits().to_le_bytes());
        Ok(())
    }
    fn uadp_read_body(r: &mut UadpReader<'_>) -> WireResult<f64> {
        Ok(f64::from_bits(u64::from_le_bytes(r.array()?)))
    }
    fn protoson_write(v: &f64, e: &mut StreamEncoder<'_>) {
        e.f64(*v)
    }
    fn protoson_read(v: &pson::Value<'_>) -> WireResult<f64> {
        ps_float(v)
    }
}

impl Scalar<bool> for Bool {
    const TYPE: B = B::Boolean;
    const CDR_MIN: usize = 1;
    fn cdr_write(v: &bool, w: &mut Writer<'_>) -> WireResult<()> {
        w.bool(*v).map_err(cdr_err)
    }
    fn cdr_read(r: &mut Reader<'_>) -> WireResult<bool> {
        r.bool().map_err(cdr_err)
    }
    fn uadp_body(v: &bool, out: &mut Vec<u8>) -> WireResult<()> {
        out.push(*v as u8);
        Ok(())
    }
    fn uadp_read_body(r: &mut UadpReader<'_>) -> WireResult<bool> {
        let [b] = r.array()?;
        Ok(b != 0)
    }
    fn protoson_write(v: &bool, e: &mut StreamEncoder<'_>) {
        e.bool(*v)
    }
    fn protoson_read(v: &pson::Value<'_>) -> WireResult<bool> {
        match *v {
            pson::Value::Bool(b) => Ok(b),
            ref other => Err(format!("Protoson: expected a bool, found {other:?}")),
        }
    }
}

impl<T: Wire> Kind<T> for Rec {
    const LEAVES: usize = T::LEAVES;
    fn cdr_write(v: &T, w: &mut Writer<'_>) -> WireResult<()> {
        v.cdr_write(w)
    }
    fn cdr_read(r: &mut Reader<'_>) -> WireResult<T> {
        T::cdr_read(r)
    }
    fn uadp_write(v: &T, out: &mut Vec<u8>) -> WireResult<()> {
        v.uadp_write(out)
    }
    fn uadp_read(r: &mut UadpReader<'_>) -> WireResult<T> {
        T::uadp_read(r)
    }
    fn protoson_write(v: &T, e: &mut StreamEncoder<'_>) {
        v.protoson_write(e)
    }
    fn protoson_read(v: &pson::Value<'_>) -> WireResult<T> {
        match v {
            pson::Value::Map(pairs) => T::protoson_read(pairs),
            other => Err(format!("Protoson: expected a map, found {other:?}")),
        }
    }
}

/// `impl Wire` for a struct from its fields, their Rust types and wire kinds, in declaration
/// order (`name: Type = Kind`).
macro_rules! wire_struct {
    ($name:ty { $($field:ident : $ty:ty = $kind:ident),* $(,)? }) => {
        impl $crate::handwritten::Wire for $name {
            const LEAVES: usize = 0 $(+ <$crate::handwritten::$kind as $crate::handwritten::Kind<$ty>>::LEAVES)*;
            fn cdr_write(&self, w: &mut ::cdr::Writer<'_>) -> $crate::handwritten::WireResult<()> {
                $( <$crate::handwritten::$kind as $crate::handwritten::Kind<$ty>>::cdr_write(&self.$field, w)?; )*
                Ok(())
            }
            fn cdr_read(r: &mut ::cdr::Reader<'_>) -> $crate::handwritten::WireResult<Self> {
                Ok(Self { $( $field: <$crate::handwritten::$kind as $crate::handwritten::Kind<$ty>>::cdr_read(r)?, )* })
            }
            fn uadp_write(&self, out: &mut Vec<u8>) -> $crate::handwritten::WireResult<()> {
                $( <$crate::handwritten::$kind as $crate::handwritten::Kind<$ty>>::uadp_write(&self.$field, out)?; )*
                Ok(())
            }
            fn uadp_read(r: &mut $crate::handwritten::UadpReader<'_>) -> $crate::handwritten::WireResult<Self> {
                Ok(Self { $( $field: <$crate::handwritten::$kind as $crate::handwritten::Kind<$ty>>::uadp_read(r)?, )* })
            }
            fn protoson_write(&self, e: &mut ::pson::protoson::StreamEncoder<'_>) {
                let m = e.begin_map();
                $(
                    e.key(stringify!($field));
                    <$crate::handwritten::$kind as $crate::handwritten::Kind<$ty>>::protoson_write(&self.$field, e);
                )*
                e.end(m);
            }
            fn protoson_read(map: &[(&str, ::pson::Value<'_>)]) -> $crate::handwritten::WireResult<Self> {
                Ok(Self { $(
                    $field: <$crate::handwritten::$kind as $crate::handwritten::Kind<$ty>>::protoson_read(
                        $crate::handwritten::field(map, stringify!($field))?,
                    )?,
                )* })
            }
        }
    };
}
pub(crate) use wire_struct;
