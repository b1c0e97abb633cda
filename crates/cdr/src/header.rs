//! Encodings and the 4-byte encapsulation header (RTPS 2.5 §10.5, XTypes 1.3 §7.6.3.1.2).

use core::fmt;
use core::str::FromStr;

use crate::error::{Error, ErrorKind};
use crate::types::{Extensibility, TypeDesc};

/// XCDR version: XCDR1 ("plain" CDR, 8-byte alignment for 8-byte types) or
/// XCDR2 (4-byte maximum alignment, DHEADERs, EMHEADERs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    Xcdr1,
    Xcdr2,
}

/// Byte order of the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endian {
    Little,
    Big,
}

/// A version and a byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Encoding {
    pub version: Version,
    pub endian: Endian,
}

impl Encoding {
    pub const XCDR1_LE: Encoding = Encoding { version: Version::Xcdr1, endian: Endian::Little };
    pub const XCDR1_BE: Encoding = Encoding { version: Version::Xcdr1, endian: Endian::Big };
    pub const XCDR2_LE: Encoding = Encoding { version: Version::Xcdr2, endian: Endian::Little };
    pub const XCDR2_BE: Encoding = Encoding { version: Version::Xcdr2, endian: Endian::Big };

    /// All four, XCDR1 first.
    pub const ALL: [Encoding; 4] = [Encoding::XCDR1_LE, Encoding::XCDR1_BE, Encoding::XCDR2_LE, Encoding::XCDR2_BE];

    #[inline]
    pub(crate) fn is_v2(&self) -> bool {
        self.version == Version::Xcdr2
    }

    #[inline]
    pub(crate) fn is_be(&self) -> bool {
        self.endian == Endian::Big
    }
}

impl fmt::Display for Encoding {
    /// `XCDR1-LE`, `XCDR2-BE`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = if self.is_v2() { "XCDR2" } else { "XCDR1" };
        let e = if self.is_be() { "BE" } else { "LE" };
        write!(f, "{v}-{e}")
    }
}

/// The string is not `XCDR1-LE`, `XCDR1-BE`, `XCDR2-LE` or `XCDR2-BE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseEncodingError;

impl fmt::Display for ParseEncodingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expected XCDR1-LE, XCDR1-BE, XCDR2-LE or XCDR2-BE")
    }
}

impl FromStr for Encoding {
    type Err = ParseEncodingError;

    /// Case-insensitive; `-`, `_` or a space between the parts.
    fn from_str(s: &str) -> Result<Encoding, ParseEncodingError> {
        let s = s.trim();
        if s.len() != 8 {
            return Err(ParseEncodingError);
        }
        let (v, rest) = s.split_at(5);
        let (sep, e) = rest.split_at(1);
        if !matches!(sep, "-" | "_" | " ") {
            return Err(ParseEncodingError);
        }
        let version = if v.eq_ignore_ascii_case("XCDR1") {
            Version::Xcdr1
        } else if v.eq_ignore_ascii_case("XCDR2") {
            Version::Xcdr2
        } else {
            return Err(ParseEncodingError);
        };
        let endian = if e.eq_ignore_ascii_case("LE") {
            Endian::Little
        } else if e.eq_ignore_ascii_case("BE") {
            Endian::Big
        } else {
            return Err(ParseEncodingError);
        };
        Ok(Encoding { version, endian })
    }
}

/// The representation named by the encapsulation identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Representation {
    /// `CDR_BE` / `CDR_LE` (0x0000 / 0x0001): XCDR1, final and appendable types.
    Cdr,
    /// `PL_CDR_BE` / `PL_CDR_LE` (0x0002 / 0x0003): XCDR1, mutable types.
    PlCdr,
    /// `CDR2_BE` / `CDR2_LE` (0x0006 / 0x0007): XCDR2, final types.
    Cdr2,
    /// `D_CDR2_BE` / `D_CDR2_LE` (0x0008 / 0x0009): XCDR2, appendable types.
    DCdr2,
    /// `PL_CDR2_BE` / `PL_CDR2_LE` (0x000a / 0x000b): XCDR2, mutable types.
    PlCdr2,
}

impl Representation {
    /// The XCDR version of this representation.
    pub fn version(&self) -> Version {
        match self {
            Representation::Cdr | Representation::PlCdr => Version::Xcdr1,
            _ => Version::Xcdr2,
        }
    }

    /// The representation a writer uses for a top-level type: it follows the
    /// top-level struct's (or union's) extensibility only. A final struct with
    /// `@optional` members is still `CDR` in XCDR1.
    pub fn for_type(ty: &TypeDesc, version: Version) -> Representation {
        let ext = match ty {
            TypeDesc::Struct(s) => s.extensibility,
            TypeDesc::Union(u) => u.extensibility,
            _ => Extensibility::Final,
        };
        match (version, ext) {
            (Version::Xcdr1, Extensibility::Mutable) => Representation::PlCdr,
            (Version::Xcdr1, _) => Representation::Cdr,
            (Version::Xcdr2, Extensibility::Final) => Representation::Cdr2,
            (Version::Xcdr2, Extensibility::Appendable) => Representation::DCdr2,
            (Version::Xcdr2, Extensibility::Mutable) => Representation::PlCdr2,
        }
    }

    fn base(&self) -> u8 {
        match self {
            Representation::Cdr => 0x00,
            Representation::PlCdr => 0x02,
            Representation::Cdr2 => 0x06,
            Representation::DCdr2 => 0x08,
            Representation::PlCdr2 => 0x0a,
        }
    }
}

/// The 4-byte encapsulation header: a big-endian 16-bit representation
/// identifier, then two option bytes. The low two bits of the second option
/// byte count the padding bytes at the end of the payload (C writers pad to
/// a multiple of 4; cyclonedds-python writes neither padding nor count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    pub representation: Representation,
    pub endian: Endian,
    pub options: [u8; 2],
}

impl Header {
    /// Read the header at the start of `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<Header, Error> {
        let h = bytes.get(..4).ok_or(Error::new(ErrorKind::UnexpectedEnd, bytes.len()))?;
        if h[0] != 0 {
            return Err(Error::new(ErrorKind::InvalidHeader, 0));
        }
        let endian = if h[1] & 1 == 1 { Endian::Little } else { Endian::Big };
        let representation = match h[1] & !1 {
            0x00 => Representation::Cdr,
            0x02 => Representation::PlCdr,
            0x06 => Representation::Cdr2,
            0x08 => Representation::DCdr2,
            0x0a => Representation::PlCdr2,
            _ => return Err(Error::new(ErrorKind::InvalidHeader, 1)),
        };
        Ok(Header { representation, endian, options: [h[2], h[3]] })
    }

    /// The header a writer puts before `ty` in `encoding`, options zero.
    pub fn for_type(ty: &TypeDesc, encoding: Encoding) -> Header {
        Header {
            representation: Representation::for_type(ty, encoding.version),
            endian: encoding.endian,
            options: [0, 0],
        }
    }

    /// The representation identifier (`0x0001` for CDR_LE, ...).
    pub fn id(&self) -> u16 {
        (self.representation.base() | (self.endian == Endian::Little) as u8) as u16
    }

    /// The four bytes.
    pub fn to_bytes(&self) -> [u8; 4] {
        let id = self.id().to_be_bytes();
        [id[0], id[1], self.options[0], self.options[1]]
    }

    /// Version and byte order of the body.
    pub fn encoding(&self) -> Encoding {
        Encoding { version: self.representation.version(), endian: self.endian }
    }

    /// Padding bytes at the end of the payload (`options & 3`).
    pub fn padding(&self) -> usize {
        (self.options[1] & 3) as usize
    }
}
