//! Run-time type descriptions: what the encoder and the decoder are driven by.
//!
//! Build them by hand, or read them from IDL with [`crate::idl`].

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

/// How a struct (or union) may evolve, and so how it is laid out on the wire
/// (DDS-XTypes 1.3 §7.2.2.4.4 and §7.4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Extensibility {
    /// Members one after the other; XCDR2 adds nothing.
    #[default]
    Final,
    /// XCDR1: as final. XCDR2: a DHEADER (body length) before the members.
    Appendable,
    /// XCDR1: a parameter list (PL_CDR). XCDR2: a DHEADER, then an EMHEADER
    /// before every member (PL_CDR2).
    Mutable,
}

/// A CDR type.
///
/// Arrays keep all their dimensions in one node (`long m[2][3]` is
/// `Array { elem: Int32, dims: [2, 3] }`), which is what XCDR2 needs: one
/// DHEADER for the whole multi-dimensional array, when there is one at all.
/// [`TypeDesc::array`] merges an array of arrays (e.g. through a typedef) into
/// one node.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeDesc {
    /// `boolean`: one byte, 0 or 1.
    Bool,
    /// `octet` (also `byte`): one byte. Sequences and arrays of octets are
    /// [`crate::Value::Bytes`].
    Octet,
    /// `char`: one byte (read as Latin-1).
    Char,
    /// `int8`.
    Int8,
    /// `uint8`.
    UInt8,
    /// `short`, `int16`.
    Int16,
    /// `unsigned short`, `uint16`.
    UInt16,
    /// `long`, `int32`.
    Int32,
    /// `unsigned long`, `uint32`.
    UInt32,
    /// `long long`, `int64`.
    Int64,
    /// `unsigned long long`, `uint64`.
    UInt64,
    /// `float`.
    Float32,
    /// `double`.
    Float64,
    /// `string` or `string<bound>` (the bound counts bytes, not the NUL).
    String { bound: Option<u32> },
    /// `sequence<elem>` or `sequence<elem, bound>`.
    Sequence { elem: Arc<TypeDesc>, bound: Option<u32> },
    /// `elem name[d0][d1]...`: every element, no count.
    Array { elem: Arc<TypeDesc>, dims: Vec<u32> },
    /// An enum.
    Enum(Arc<EnumDesc>),
    /// A struct.
    Struct(Arc<StructDesc>),
    /// A discriminated union.
    Union(Arc<UnionDesc>),
}

impl TypeDesc {
    /// An unbounded `string`.
    pub fn string() -> TypeDesc {
        TypeDesc::String { bound: None }
    }

    /// An unbounded `sequence<elem>`.
    pub fn sequence(elem: TypeDesc) -> TypeDesc {
        TypeDesc::Sequence { elem: Arc::new(elem), bound: None }
    }

    /// A bounded `sequence<elem, bound>`.
    pub fn bounded_sequence(elem: TypeDesc, bound: u32) -> TypeDesc {
        TypeDesc::Sequence { elem: Arc::new(elem), bound: Some(bound) }
    }

    /// An array `elem[dims...]`; an array element type (e.g. from a typedef)
    /// has its dimensions appended, so `array(array(T, [3]), [2])` is `T[2][3]`.
    pub fn array(elem: TypeDesc, dims: &[u32]) -> TypeDesc {
        match elem {
            TypeDesc::Array { elem: inner, dims: inner_dims } => {
                let mut all = Vec::with_capacity(dims.len() + inner_dims.len());
                all.extend_from_slice(dims);
                all.extend_from_slice(&inner_dims);
                TypeDesc::Array { elem: inner, dims: all }
            }
            other => TypeDesc::Array { elem: Arc::new(other), dims: dims.to_vec() },
        }
    }

    /// Wrap a struct.
    pub fn structure(s: StructDesc) -> TypeDesc {
        TypeDesc::Struct(Arc::new(s))
    }

    /// Wrap a union.
    pub fn union(u: UnionDesc) -> TypeDesc {
        TypeDesc::Union(Arc::new(u))
    }

    /// Wrap an enum.
    pub fn enumeration(e: EnumDesc) -> TypeDesc {
        TypeDesc::Enum(Arc::new(e))
    }

    /// The wire size of a primitive type (boolean, octet, char, the integers,
    /// float, double), `None` for everything else, enums included.
    ///
    /// In XCDR2, sequences and arrays of primitive elements have no DHEADER;
    /// all others do (enums included, as cyclonedds-python writes them).
    #[inline]
    pub fn primitive_size(&self) -> Option<usize> {
        Some(match self {
            TypeDesc::Bool | TypeDesc::Octet | TypeDesc::Char | TypeDesc::Int8 | TypeDesc::UInt8 => 1,
            TypeDesc::Int16 | TypeDesc::UInt16 => 2,
            TypeDesc::Int32 | TypeDesc::UInt32 | TypeDesc::Float32 => 4,
            TypeDesc::Int64 | TypeDesc::UInt64 | TypeDesc::Float64 => 8,
            _ => return None,
        })
    }

    /// A short IDL-like name (`long`, `sequence<octet>`, `struct Point`).
    pub fn describe(&self) -> String {
        use alloc::format;
        match self {
            TypeDesc::Bool => "boolean".into(),
            TypeDesc::Octet => "octet".into(),
            TypeDesc::Char => "char".into(),
            TypeDesc::Int8 => "int8".into(),
            TypeDesc::UInt8 => "uint8".into(),
            TypeDesc::Int16 => "short".into(),
            TypeDesc::UInt16 => "unsigned short".into(),
            TypeDesc::Int32 => "long".into(),
            TypeDesc::UInt32 => "unsigned long".into(),
            TypeDesc::Int64 => "long long".into(),
            TypeDesc::UInt64 => "unsigned long long".into(),
            TypeDesc::Float32 => "float".into(),
            TypeDesc::Float64 => "double".into(),
            TypeDesc::String { bound: None } => "string".into(),
            TypeDesc::String { bound: Some(b) } => format!("string<{b}>"),
            TypeDesc::Sequence { elem, bound: None } => format!("sequence<{}>", elem.describe()),
            TypeDesc::Sequence { elem, bound: Some(b) } => format!("sequence<{}, {b}>", elem.describe()),
            TypeDesc::Array { elem, dims } => {
                let mut s = elem.describe();
                for d in dims {
                    s.push_str(&format!("[{d}]"));
                }
                s
            }
            TypeDesc::Enum(e) => format!("enum {}", e.name),
            TypeDesc::Struct(s) => format!("struct {}", s.name),
            TypeDesc::Union(u) => format!("union {}", u.name),
        }
    }

    /// The value a member of this type has when it is not on the wire: zero,
    /// false, empty, the first enumerator, every member defaulted, the union's
    /// default discriminator. (Used for XCDR2 appendable / mutable members a
    /// writer's older type did not have, and for the non-key members of a
    /// decoded key.)
    pub fn default_value(&self) -> crate::Value {
        use crate::Value;
        match self {
            TypeDesc::Bool => Value::Bool(false),
            TypeDesc::Char => Value::Char('\0'),
            TypeDesc::Octet | TypeDesc::UInt8 | TypeDesc::UInt16 | TypeDesc::UInt32 | TypeDesc::UInt64 => {
                Value::UInt(0)
            }
            TypeDesc::Int8 | TypeDesc::Int16 | TypeDesc::Int32 | TypeDesc::Int64 => Value::Int(0),
            TypeDesc::Float32 => Value::F32(0.0),
            TypeDesc::Float64 => Value::F64(0.0),
            TypeDesc::String { .. } => Value::String(String::new()),
            TypeDesc::Sequence { elem, .. } => {
                if **elem == TypeDesc::Octet {
                    Value::Bytes(Vec::new())
                } else {
                    Value::Seq(Vec::new())
                }
            }
            TypeDesc::Array { elem, dims } => default_array(elem, dims),
            TypeDesc::Enum(e) => Value::Enum(e.enumerators.first().map(|x| x.value).unwrap_or(0)),
            TypeDesc::Struct(s) => Value::Struct(
                s.members.iter().map(|m| if m.optional { Value::Null } else { m.ty.default_value() }).collect(),
            ),
            TypeDesc::Union(u) => {
                let disc = u.default_discriminator().unwrap_or(0);
                let value = u.select(disc).map(|c| alloc::boxed::Box::new(c.ty.default_value()));
                Value::Union { disc, value }
            }
        }
    }
}

fn default_array(elem: &TypeDesc, dims: &[u32]) -> crate::Value {
    use crate::Value;
    match dims.split_first() {
        None => elem.default_value(),
        Some((&n, rest)) => {
            // Cap what a default can allocate; arrays that large are not encodable anyway.
            let n = (n as usize).min(1 << 16);
            if rest.is_empty() && *elem == TypeDesc::Octet {
                Value::Bytes(alloc::vec![0; n])
            } else {
                Value::Seq((0..n).map(|_| default_array(elem, rest)).collect())
            }
        }
    }
}

/// One struct member.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: String,
    pub ty: TypeDesc,
    /// The member id (`@id`, `@autoid`, `@hashid`): used by mutable structs'
    /// headers and by XCDR1 `@optional` parameter headers.
    pub id: u32,
    /// `@optional`: [`crate::Value::Null`] when absent. (In XCDR1 a present
    /// value that encodes to zero bytes, e.g. an empty struct, reads back as
    /// absent: both have parameter length 0.)
    pub optional: bool,
    /// `@key`.
    pub key: bool,
    /// `@must_understand`: sets the M flag of the EMHEADER / parameter header.
    pub must_understand: bool,
}

impl Member {
    /// Placeholder id: [`StructDesc::new`] gives such members the previous
    /// member's id + 1 (the first gets 0).
    pub const AUTO_ID: u32 = u32::MAX;

    /// A plain member with an automatic id.
    pub fn new(name: impl Into<String>, ty: TypeDesc) -> Member {
        Member { name: name.into(), ty, id: Member::AUTO_ID, optional: false, key: false, must_understand: false }
    }

    /// Mark `@optional`.
    pub fn optional(mut self) -> Member {
        self.optional = true;
        self
    }

    /// Mark `@key`.
    pub fn key(mut self) -> Member {
        self.key = true;
        self
    }

    /// Set `@id(id)`.
    pub fn id(mut self, id: u32) -> Member {
        self.id = id & 0x0fff_ffff;
        self
    }

    /// Mark `@must_understand`.
    pub fn must_understand(mut self) -> Member {
        self.must_understand = true;
        self
    }
}

/// `@hashid` member id (XTypes 1.3 §7.3.1.2.1.1): the first four bytes of
/// MD5(name), little-endian, with the top four bits cleared.
pub fn hashed_member_id(name: &str) -> u32 {
    let d = crate::md5(name.as_bytes());
    u32::from_le_bytes([d[0], d[1], d[2], d[3]]) & 0x0fff_ffff
}

/// A struct type.
#[derive(Debug, Clone, PartialEq)]
pub struct StructDesc {
    pub name: String,
    pub extensibility: Extensibility,
    /// In declaration order (a base struct's members first).
    pub members: Vec<Member>,
}

impl StructDesc {
    /// A struct; members with [`Member::AUTO_ID`] get sequential ids.
    pub fn new(name: impl Into<String>, extensibility: Extensibility, mut members: Vec<Member>) -> StructDesc {
        let mut next: u32 = 0;
        for m in &mut members {
            if m.id == Member::AUTO_ID {
                m.id = next & 0x0fff_ffff;
            }
            next = m.id.wrapping_add(1);
        }
        StructDesc { name: name.into(), extensibility, members }
    }

    /// Whether any member is a `@key`.
    pub fn has_keys(&self) -> bool {
        self.members.iter().any(|m| m.key)
    }

    /// The index of the member called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.members.iter().position(|m| m.name == name)
    }
}

/// One enumerator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enumerator {
    pub name: String,
    pub value: i32,
}

/// An enum type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumDesc {
    pub name: String,
    /// `@bit_bound(n)`; `None` is the default 32. In XCDR2 it sets the wire
    /// size (1..=8 → 1 byte, 9..=16 → 2, else 4); XCDR1 always uses 4 bytes
    /// (as cyclonedds does).
    pub bit_bound: Option<u8>,
    pub enumerators: Vec<Enumerator>,
}

impl EnumDesc {
    /// An enum whose enumerators are numbered 0, 1, 2, ...
    pub fn new<S: Into<String>>(name: impl Into<String>, names: impl IntoIterator<Item = S>) -> EnumDesc {
        EnumDesc {
            name: name.into(),
            bit_bound: None,
            enumerators: names
                .into_iter()
                .enumerate()
                .map(|(i, n)| Enumerator { name: n.into(), value: i as i32 })
                .collect(),
        }
    }

    /// Wire size in bytes for the given version.
    #[inline]
    pub fn wire_size(&self, xcdr2: bool) -> usize {
        match self.bit_bound {
            Some(b) if xcdr2 && b <= 8 => 1,
            Some(b) if xcdr2 && b <= 16 => 2,
            _ => 4,
        }
    }

    /// The value of the enumerator called `name`.
    pub fn value_of(&self, name: &str) -> Option<i32> {
        self.enumerators.iter().find(|e| e.name == name).map(|e| e.value)
    }

    /// The name of the enumerator with `value`.
    pub fn name_of(&self, value: i32) -> Option<&str> {
        self.enumerators.iter().find(|e| e.value == value).map(|e| e.name.as_str())
    }

    /// Whether `value` is an enumerator's value.
    #[inline]
    pub fn contains(&self, value: i32) -> bool {
        self.enumerators.iter().any(|e| e.value == value)
    }
}

/// One branch of a union.
#[derive(Debug, Clone, PartialEq)]
pub struct UnionCase {
    pub name: String,
    pub ty: TypeDesc,
    /// The `case` labels, as integers (enumerator values for enum
    /// discriminators, 0/1 for boolean, the byte for char).
    pub labels: Vec<i64>,
    /// This branch is the `default:` one (it may have labels too).
    pub is_default: bool,
}

/// A discriminated union type.
#[derive(Debug, Clone, PartialEq)]
pub struct UnionDesc {
    pub name: String,
    /// Final or appendable (XCDR2: a DHEADER first). Mutable unions are not supported.
    pub extensibility: Extensibility,
    /// An integer, boolean, char, octet or enum type.
    pub discriminator: TypeDesc,
    pub cases: Vec<UnionCase>,
}

impl UnionDesc {
    /// The branch selected by `disc`: the case with that label, else the
    /// default branch, else none.
    pub fn select(&self, disc: i64) -> Option<&UnionCase> {
        self.cases.iter().find(|c| c.labels.contains(&disc)).or_else(|| self.cases.iter().find(|c| c.is_default))
    }

    /// The index of the branch selected by `disc`.
    pub fn select_index(&self, disc: i64) -> Option<usize> {
        self.cases
            .iter()
            .position(|c| c.labels.contains(&disc))
            .or_else(|| self.cases.iter().position(|c| c.is_default))
    }

    fn used(&self, v: i64) -> bool {
        self.cases.iter().any(|c| c.labels.contains(&v))
    }

    /// The discriminator written for the default branch when the value does
    /// not name one (cyclonedds' rule): for signed integers the first of -1,
    /// -2, ... that no label uses; for unsigned integers, octet and char the
    /// first of 0, 1, ...; for boolean TRUE then FALSE; for enums the first
    /// of 0, 1, ... that is not an enumerator's value.
    pub fn default_discriminator(&self) -> Option<i64> {
        let (start, step, end): (i64, i64, i64) = match &self.discriminator {
            TypeDesc::Bool => {
                return [1, 0].into_iter().find(|v| !self.used(*v));
            }
            TypeDesc::Enum(e) => {
                let mut v: i64 = 0;
                while e.contains(v as i32) {
                    v += 1;
                }
                return Some(v);
            }
            TypeDesc::Int8 => (-1, -1, i8::MIN as i64),
            TypeDesc::Int16 => (-1, -1, i16::MIN as i64),
            TypeDesc::Int32 => (-1, -1, i32::MIN as i64),
            TypeDesc::Int64 => (-1, -1, i64::MIN),
            TypeDesc::Octet | TypeDesc::UInt8 => (0, 1, 255),
            TypeDesc::Char => (0, 1, 255),
            TypeDesc::UInt16 => (0, 1, u16::MAX as i64),
            TypeDesc::UInt32 => (0, 1, u32::MAX as i64),
            TypeDesc::UInt64 => (0, 1, i64::MAX),
            _ => return None,
        };
        // Labels are few: at most labels.len() + 1 candidates need checking.
        let mut v = start;
        loop {
            if !self.used(v) {
                return Some(v);
            }
            if v == end {
                return None;
            }
            v += step;
        }
    }
}
