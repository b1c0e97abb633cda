//! Parsing type definitions: `struct`, `union` (and case labels), `enum`, `typedef`, `const`,
//! array declarators and type specs.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::{Annots, Parser, KEYWORDS};
use crate::idl::lexer::Tok;
use crate::idl::IdlError;
use crate::types::{
    hashed_member_id, EnumDesc, Enumerator, Extensibility, Member, StructDesc, TypeDesc, UnionCase, UnionDesc,
};

impl Parser {
    pub(super) fn struct_def(&mut self, annots: &Annots) -> Result<(), IdlError> {
        self.advance(); // struct
        let name_tok = self.tok().clone();
        let name = self.ident()?;
        if self.is_punct(";") {
            return self.declare(&name, None, false, &name_tok);
        }
        let mut members: Vec<Member> = Vec::new();
        let mut base_ext = None;
        if self.eat_punct(":") {
            let at = self.tok().clone();
            let base_name = self.scoped_name()?;
            match self.lookup_type(&base_name, &at)? {
                TypeDesc::Struct(b) => {
                    self.count_members(b.members.len(), &at)?;
                    members.extend(b.members.iter().cloned());
                    base_ext = Some(b.extensibility);
                }
                _ => return Err(self.err_at(&at, format!("base type '{base_name}' is not a struct"))),
            }
        }
        self.expect_punct("{")?;
        // The member names so far: a duplicate is found without a rescan.
        let mut names: BTreeSet<String> = members.iter().map(|m| m.name.clone()).collect();
        let mut next_id: u32 = members.last().map(|m| m.id.wrapping_add(1)).unwrap_or(0);
        let hash = annots.autoid_hash.unwrap_or(false);
        while !self.is_punct("}") {
            if self.tok().tok == Tok::Eof {
                return Err(self.expected("'}'"));
            }
            let ma = self.annotations()?;
            let ty = self.type_spec()?;
            loop {
                let at = self.tok().clone();
                let mname = self.ident()?;
                let mty = self.array_dims(ty.clone())?;
                if !names.insert(mname.clone()) {
                    return Err(self.err_at(&at, format!("duplicate member '{mname}'")));
                }
                self.count_members(1, &at)?;
                let id = match (&ma.id, &ma.hashid) {
                    (Some(id), _) => *id,
                    (None, Some(h)) => hashed_member_id(if h.is_empty() { &mname } else { h }),
                    (None, None) if hash => hashed_member_id(&mname),
                    (None, None) => next_id & 0x0fff_ffff,
                };
                next_id = id.wrapping_add(1);
                members.push(Member {
                    name: mname,
                    ty: mty,
                    id,
                    optional: ma.optional,
                    key: ma.key,
                    must_understand: ma.must_understand,
                });
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct(";")?;
        }
        self.advance(); // }
        for (kname, kmembers, line, col) in &self.keylists {
            let short = kname.rsplit("::").next().unwrap_or(kname);
            if short == name {
                for km in kmembers {
                    match members.iter_mut().find(|m| &m.name == km) {
                        Some(m) => m.key = true,
                        None => {
                            return Err(IdlError {
                                line: *line,
                                column: *col,
                                message: format!("#pragma keylist: '{name}' has no member '{km}'"),
                            })
                        }
                    }
                }
            }
        }
        let ext = annots.extensibility.or(base_ext).unwrap_or(Extensibility::Final);
        let sd = StructDesc { name: name.clone(), extensibility: ext, members };
        self.declare(&name, Some(TypeDesc::Struct(Arc::new(sd))), true, &name_tok)
    }

    pub(super) fn union_def(&mut self, annots: &Annots) -> Result<(), IdlError> {
        let start = self.advance(); // union
        let name_tok = self.tok().clone();
        let name = self.ident()?;
        if self.is_punct(";") {
            return self.declare(&name, None, false, &name_tok);
        }
        let ext = annots.extensibility.unwrap_or(Extensibility::Final);
        if ext == Extensibility::Mutable {
            return Err(self.err_at(&start, "mutable unions are not supported"));
        }
        self.expect_kw("switch")?;
        self.expect_punct("(")?;
        let _ = self.annotations()?;
        let dat = self.tok().clone();
        let disc = self.type_spec()?;
        let enum_desc = match &disc {
            TypeDesc::Bool
            | TypeDesc::Octet
            | TypeDesc::Char
            | TypeDesc::Int8
            | TypeDesc::UInt8
            | TypeDesc::Int16
            | TypeDesc::UInt16
            | TypeDesc::Int32
            | TypeDesc::UInt32
            | TypeDesc::Int64
            | TypeDesc::UInt64 => None,
            TypeDesc::Enum(e) => Some(e.clone()),
            other => {
                return Err(self.err_at(&dat, format!("a union cannot switch on {}", other.describe())));
            }
        };
        self.expect_punct(")")?;
        self.expect_punct("{")?;
        let mut cases: Vec<UnionCase> = Vec::new();
        while !self.is_punct("}") {
            if self.tok().tok == Tok::Eof {
                return Err(self.expected("'}'"));
            }
            let mut labels = Vec::new();
            let mut is_default = false;
            loop {
                if self.is_kw("case") {
                    self.advance();
                    let at = self.tok().clone();
                    let v = self.label(enum_desc.as_deref())?;
                    let v = i64::try_from(v).map_err(|_| self.err_at(&at, "case label out of range"))?;
                    if cases.iter().any(|c| c.labels.contains(&v)) || labels.contains(&v) {
                        return Err(self.err_at(&at, "duplicate case label"));
                    }
                    labels.push(v);
                    self.expect_punct(":")?;
                } else if self.is_kw("default") {
                    let at = self.advance();
                    if is_default || cases.iter().any(|c| c.is_default) {
                        return Err(self.err_at(&at, "more than one default case"));
                    }
                    is_default = true;
                    self.expect_punct(":")?;
                } else {
                    break;
                }
            }
            if labels.is_empty() && !is_default {
                return Err(self.expected("'case' or 'default'"));
            }
            let _ = self.annotations()?;
            let ty = self.type_spec()?;
            let at = self.tok().clone();
            let bname = self.ident()?;
            let ty = self.array_dims(ty)?;
            if cases.iter().any(|c| c.name == bname) {
                return Err(self.err_at(&at, format!("duplicate union member '{bname}'")));
            }
            self.expect_punct(";")?;
            cases.push(UnionCase { name: bname, ty, labels, is_default });
        }
        self.advance(); // }
        let ud = UnionDesc { name: name.clone(), extensibility: ext, discriminator: disc, cases };
        self.declare(&name, Some(TypeDesc::Union(Arc::new(ud))), true, &name_tok)
    }

    /// A case label: a constant expression; for enum discriminators an
    /// enumerator name (plain or scoped by the enum's name) is accepted.
    fn label(&mut self, e: Option<&EnumDesc>) -> Result<i128, IdlError> {
        if let Some(e) = e {
            if let Tok::Ident(_) = &self.tok().tok {
                let save = self.i;
                if let Ok(n) = self.scoped_name() {
                    let short = n.rsplit("::").next().unwrap_or(&n);
                    if let Some(v) = e.value_of(short) {
                        return Ok(v as i128);
                    }
                }
                self.i = save;
            }
        }
        self.const_expr()
    }

    pub(super) fn enum_def(&mut self, annots: &Annots) -> Result<(), IdlError> {
        self.advance(); // enum
        let name_tok = self.tok().clone();
        let name = self.ident()?;
        self.expect_punct("{")?;
        let mut enumerators: Vec<Enumerator> = Vec::new();
        let mut next: i64 = 0;
        loop {
            let a = self.annotations()?;
            let at = self.tok().clone();
            let en = self.ident()?;
            if enumerators.iter().any(|e| e.name == en) {
                return Err(self.err_at(&at, format!("duplicate enumerator '{en}'")));
            }
            let value = a.value.map(|v| v as i64).unwrap_or(next);
            let value = i32::try_from(value).map_err(|_| self.err_at(&at, "enumerator value out of range"))?;
            next = value as i64 + 1;
            enumerators.push(Enumerator { name: en, value });
            if self.eat_punct(",") {
                if self.is_punct("}") {
                    break;
                }
                continue;
            }
            break;
        }
        self.expect_punct("}")?;
        if let Some(b) = annots.bit_bound {
            let max = if b >= 32 { i32::MAX as i64 } else { (1i64 << b) - 1 };
            if let Some(e) = enumerators.iter().find(|e| (e.value as i64) > max || e.value < 0) {
                return Err(self.err_at(&name_tok, format!("enumerator '{}' does not fit @bit_bound({b})", e.name)));
            }
        }
        for e in &enumerators {
            let v = Some(e.value as i128);
            let full = self.scoped(&e.name);
            let scoped = self.scoped(&format!("{name}::{}", e.name));
            self.file.push_const(full, v);
            self.file.push_const(scoped, v);
        }
        let ed = EnumDesc { name: name.clone(), bit_bound: annots.bit_bound, enumerators };
        self.declare(&name, Some(TypeDesc::Enum(Arc::new(ed))), false, &name_tok)
    }

    pub(super) fn typedef(&mut self) -> Result<(), IdlError> {
        self.advance(); // typedef
        let _ = self.annotations()?;
        let ty = self.type_spec()?;
        loop {
            let at = self.tok().clone();
            let name = self.ident()?;
            let t = self.array_dims(ty.clone())?;
            self.declare(&name, Some(t), false, &at)?;
            if !self.eat_punct(",") {
                return Ok(());
            }
        }
    }

    pub(super) fn const_def(&mut self) -> Result<(), IdlError> {
        self.advance(); // const
        let ty = self.type_spec()?;
        let name = self.ident()?;
        self.expect_punct("=")?;
        let integral = matches!(
            ty,
            TypeDesc::Octet
                | TypeDesc::Int8
                | TypeDesc::UInt8
                | TypeDesc::Int16
                | TypeDesc::UInt16
                | TypeDesc::Int32
                | TypeDesc::UInt32
                | TypeDesc::Int64
                | TypeDesc::UInt64
                | TypeDesc::Enum(_)
        );
        let value = if integral {
            let v = match &ty {
                TypeDesc::Enum(e) => self.label(Some(e))?,
                _ => self.const_expr()?,
            };
            Some(v)
        } else {
            // Strings, floats, booleans and chars: read and keep no value.
            self.skip_const_value()?;
            None
        };
        let full = self.scoped(&name);
        self.file.push_const(full, value);
        Ok(())
    }

    fn skip_const_value(&mut self) -> Result<(), IdlError> {
        let mut any = false;
        while !self.is_punct(";") {
            if self.tok().tok == Tok::Eof {
                return Err(self.expected("';'"));
            }
            self.advance();
            any = true;
        }
        if any {
            Ok(())
        } else {
            Err(self.expected("a constant value"))
        }
    }

    pub(super) fn scoped_name(&mut self) -> Result<String, IdlError> {
        let mut s = String::new();
        if self.eat_punct("::") {
            s.push_str("::");
        }
        loop {
            s.push_str(&self.ident()?);
            if self.is_punct("::") {
                self.advance();
                s.push_str("::");
            } else {
                return Ok(s);
            }
        }
    }

    /// `[N][M]...` after a declarator name.
    fn array_dims(&mut self, ty: TypeDesc) -> Result<TypeDesc, IdlError> {
        let mut dims = Vec::new();
        while self.is_punct("[") {
            self.advance();
            let at = self.tok().clone();
            let n = self.const_expr()?;
            if n <= 0 || n > u32::MAX as i128 {
                return Err(self.err_at(&at, "array size must be between 1 and 4294967295"));
            }
            dims.push(n as u32);
            self.expect_punct("]")?;
        }
        Ok(if dims.is_empty() { ty } else { TypeDesc::array(ty, &dims) })
    }

    fn type_spec(&mut self) -> Result<TypeDesc, IdlError> {
        self.nest()?;
        let r = self.type_spec_inner();
        self.depth -= 1;
        r
    }

    fn type_spec_inner(&mut self) -> Result<TypeDesc, IdlError> {
        let t = self.tok().clone();
        let Tok::Ident(word) = &t.tok else {
            if self.is_punct("::") {
                let name = self.scoped_name()?;
                return self.lookup_type(&name, &t);
            }
            return Err(self.expected("a type"));
        };
        let word = word.clone();
        let simple = match word.as_str() {
            "boolean" => Some(TypeDesc::Bool),
            "octet" | "byte" => Some(TypeDesc::Octet),
            "char" => Some(TypeDesc::Char),
            "short" | "int16" => Some(TypeDesc::Int16),
            "int8" => Some(TypeDesc::Int8),
            "uint8" => Some(TypeDesc::UInt8),
            "uint16" => Some(TypeDesc::UInt16),
            "int32" => Some(TypeDesc::Int32),
            "uint32" => Some(TypeDesc::UInt32),
            "int64" => Some(TypeDesc::Int64),
            "uint64" => Some(TypeDesc::UInt64),
            "float" => Some(TypeDesc::Float32),
            "double" => Some(TypeDesc::Float64),
            _ => None,
        };
        if let Some(s) = simple {
            self.advance();
            return Ok(s);
        }
        match word.as_str() {
            "long" => {
                self.advance();
                if self.is_kw("long") {
                    self.advance();
                    Ok(TypeDesc::Int64)
                } else if self.is_kw("double") {
                    Err(self.err_at(&t, "'long double' is not supported"))
                } else {
                    Ok(TypeDesc::Int32)
                }
            }
            "unsigned" => {
                self.advance();
                if self.is_kw("short") {
                    self.advance();
                    Ok(TypeDesc::UInt16)
                } else if self.is_kw("long") {
                    self.advance();
                    if self.is_kw("long") {
                        self.advance();
                        Ok(TypeDesc::UInt64)
                    } else {
                        Ok(TypeDesc::UInt32)
                    }
                } else {
                    Err(self.expected("'short' or 'long'"))
                }
            }
            "string" => {
                self.advance();
                let bound = self.opt_bound()?;
                Ok(TypeDesc::String { bound })
            }
            "sequence" => {
                self.advance();
                self.expect_punct("<")?;
                let elem = self.type_spec()?;
                let bound = if self.eat_punct(",") { Some(self.positive_u32()?) } else { None };
                self.expect_punct(">")?;
                Ok(TypeDesc::Sequence { elem: Arc::new(elem), bound })
            }
            "wchar" | "wstring" | "any" | "fixed" | "map" | "Object" | "ValueBase" | "void" => {
                Err(self.err_at(&t, format!("'{word}' is not supported")))
            }
            _ if KEYWORDS.contains(&word.as_str()) => Err(self.expected("a type")),
            _ => {
                let name = self.scoped_name()?;
                self.lookup_type(&name, &t)
            }
        }
    }

    fn opt_bound(&mut self) -> Result<Option<u32>, IdlError> {
        if !self.eat_punct("<") {
            return Ok(None);
        }
        let b = self.positive_u32()?;
        self.expect_punct(">")?;
        Ok(Some(b))
    }

    fn positive_u32(&mut self) -> Result<u32, IdlError> {
        let at = self.tok().clone();
        let v = self.const_expr()?;
        if v <= 0 || v > u32::MAX as i128 {
            return Err(self.err_at(&at, "bound must be between 1 and 4294967295"));
        }
        Ok(v as u32)
    }
}
