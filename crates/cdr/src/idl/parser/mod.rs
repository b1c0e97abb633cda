//! The IDL parser: its state, token helpers, name lookup and declarations, and annotations.
//! Type definitions are in [`decls`], constant expressions in [`expr`].

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::lexer::{Keylist, Tok, Token};
use super::{Decl, IdlError, IdlFile, MAX_MEMBERS, MAX_NESTING};
use crate::types::{Extensibility, TypeDesc};

mod decls;
mod expr;

/// Annotations collected before a declaration or member.
#[derive(Debug, Default, Clone)]
struct Annots {
    extensibility: Option<Extensibility>,
    optional: bool,
    key: bool,
    must_understand: bool,
    id: Option<u32>,
    hashid: Option<String>,
    autoid_hash: Option<bool>,
    bit_bound: Option<u8>,
    value: Option<i32>,
}

pub(super) struct Parser {
    pub(super) toks: Vec<Token>,
    pub(super) i: usize,
    pub(super) scope: Vec<String>,
    pub(super) file: IdlFile,
    pub(super) keylists: Vec<Keylist>,
    pub(super) depth: usize,
    /// Struct members defined so far (bases counted again): at most [`MAX_MEMBERS`].
    pub(super) members: usize,
}

pub(super) const KEYWORDS: &[&str] = &[
    "module",
    "struct",
    "union",
    "enum",
    "typedef",
    "const",
    "switch",
    "case",
    "default",
    "sequence",
    "string",
    "wstring",
    "short",
    "long",
    "unsigned",
    "float",
    "double",
    "char",
    "wchar",
    "boolean",
    "octet",
    "any",
    "TRUE",
    "FALSE",
    "fixed",
    "map",
    "bitset",
    "bitmask",
    "native",
    "interface",
    "valuetype",
    "exception",
    "void",
    "in",
    "out",
    "inout",
    "attribute",
    "readonly",
    "oneway",
    "raises",
    "Object",
    "ValueBase",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
];

impl Parser {
    fn tok(&self) -> &Token {
        // The token list always ends with Eof and `i` never passes it.
        &self.toks[self.i.min(self.toks.len() - 1)]
    }

    fn peek_tok(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].tok
    }

    fn advance(&mut self) -> Token {
        let t = self.tok().clone();
        if self.i < self.toks.len() - 1 {
            self.i += 1;
        }
        t
    }

    fn err_here(&self, msg: impl Into<String>) -> IdlError {
        let t = self.tok();
        IdlError { line: t.line, column: t.col, message: msg.into() }
    }

    fn err_at(&self, t: &Token, msg: impl Into<String>) -> IdlError {
        IdlError { line: t.line, column: t.col, message: msg.into() }
    }

    fn expected(&self, what: &str) -> IdlError {
        let found = self.tok().tok.show();
        self.err_here(format!("expected {what}, found {found}"))
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(&self.tok().tok, Tok::Punct(q) if *q == p)
    }

    fn is_kw(&self, k: &str) -> bool {
        matches!(&self.tok().tok, Tok::Ident(s) if s == k)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, p: &str) -> Result<(), IdlError> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{p}'")))
        }
    }

    fn expect_kw(&mut self, k: &str) -> Result<(), IdlError> {
        if self.is_kw(k) {
            self.advance();
            Ok(())
        } else {
            Err(self.expected(&format!("'{k}'")))
        }
    }

    /// An identifier that is not a keyword.
    fn ident(&mut self) -> Result<String, IdlError> {
        match &self.tok().tok {
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                let s = s.clone();
                self.advance();
                // An escaped identifier (`_double`) names `double` (IDL 4.2 §7.2.3.1).
                Ok(match s.strip_prefix('_') {
                    Some(rest) if !rest.is_empty() => rest.to_string(),
                    _ => s,
                })
            }
            _ => Err(self.expected("an identifier")),
        }
    }

    fn nest(&mut self) -> Result<(), IdlError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.err_here("nesting too deep"));
        }
        Ok(())
    }

    fn scoped(&self, name: &str) -> String {
        if self.scope.is_empty() {
            name.to_string()
        } else {
            format!("{}::{}", self.scope.join("::"), name)
        }
    }

    /// Candidates for a relative name, innermost scope first.
    fn candidates(&self, name: &str) -> Vec<String> {
        if let Some(abs) = name.strip_prefix("::") {
            return alloc::vec![abs.to_string()];
        }
        let mut v = Vec::with_capacity(self.scope.len() + 1);
        for k in (0..=self.scope.len()).rev() {
            if k == 0 {
                v.push(name.to_string());
            } else {
                v.push(format!("{}::{}", self.scope[..k].join("::"), name));
            }
        }
        v
    }

    fn lookup_type(&self, name: &str, at: &Token) -> Result<TypeDesc, IdlError> {
        for c in self.candidates(name) {
            if let Some(d) = self.file.index.get(&c).map(|&i| &self.file.decls[i]) {
                return match &d.ty {
                    Some(t) => Ok(t.clone()),
                    None => Err(self.err_at(
                        at,
                        format!("type '{name}' is only forward-declared (recursive types are not supported)"),
                    )),
                };
            }
        }
        Err(self.err_at(at, format!("unknown type '{name}'")))
    }

    fn lookup_const(&self, name: &str) -> Option<Option<i128>> {
        for c in self.candidates(name) {
            if let Some(&i) = self.file.const_index.get(&c) {
                return Some(self.file.consts[i].1);
            }
        }
        None
    }

    fn declare(&mut self, name: &str, ty: Option<TypeDesc>, top: bool, at: &Token) -> Result<(), IdlError> {
        let full = self.scoped(name);
        if let Some(d) = self.file.index.get(&full).map(|&i| &self.file.decls[i]) {
            // A forward declaration may be completed once.
            if d.ty.is_some() || ty.is_none() {
                if d.ty.is_none() && ty.is_none() {
                    return Ok(());
                }
                return Err(self.err_at(at, format!("'{name}' is already defined")));
            }
        }
        // A completed forward declaration moves to the end: its old entry is left blank.
        if let Some(i) = self.file.index.insert(full.clone(), self.file.decls.len()) {
            self.file.decls[i] = Decl { name: String::new(), ty: None, top: false };
        }
        self.file.decls.push(Decl { name: full, ty, top });
        Ok(())
    }

    // -- grammar --------------------------------------------------------------------------------

    pub(super) fn specification(&mut self) -> Result<(), IdlError> {
        while self.tok().tok != Tok::Eof {
            self.definition()?;
        }
        Ok(())
    }

    fn definition(&mut self) -> Result<(), IdlError> {
        let annots = self.annotations()?;
        let t = self.tok().clone();
        match &t.tok {
            Tok::Ident(k) if k == "module" => {
                self.advance();
                let name = self.ident()?;
                self.expect_punct("{")?;
                self.nest()?;
                self.scope.push(name);
                while !self.is_punct("}") {
                    if self.tok().tok == Tok::Eof {
                        return Err(self.expected("'}'"));
                    }
                    self.definition()?;
                }
                self.advance();
                self.scope.pop();
                self.depth -= 1;
            }
            Tok::Ident(k) if k == "struct" => self.struct_def(&annots)?,
            Tok::Ident(k) if k == "union" => self.union_def(&annots)?,
            Tok::Ident(k) if k == "enum" => self.enum_def(&annots)?,
            Tok::Ident(k) if k == "typedef" => self.typedef()?,
            Tok::Ident(k) if k == "const" => self.const_def()?,
            Tok::Ident(k)
                if k == "bitmask"
                    || k == "bitset"
                    || k == "interface"
                    || k == "exception"
                    || k == "valuetype"
                    || k == "native" =>
            {
                return Err(self.err_here(format!("'{k}' is not supported")));
            }
            Tok::Punct(";") => {}
            _ => return Err(self.expected("a definition")),
        }
        self.expect_punct(";")
    }

    fn annotations(&mut self) -> Result<Annots, IdlError> {
        let mut a = Annots::default();
        while self.is_punct("@") {
            self.advance();
            let at = self.tok().clone();
            let mut name = self.annotation_name()?;
            if let Some(short) = name.rsplit("::").next() {
                name = short.to_string();
            }
            let params = if self.is_punct("(") { Some(self.annotation_params()?) } else { None };
            let flag = |p: &Option<Vec<Token>>| -> Result<bool, IdlError> {
                match p.as_deref() {
                    None | Some([]) => Ok(true),
                    Some([Token { tok: Tok::Ident(v), .. }]) if v.eq_ignore_ascii_case("true") => Ok(true),
                    Some([Token { tok: Tok::Ident(v), .. }]) if v.eq_ignore_ascii_case("false") => Ok(false),
                    Some([t, ..]) => Err(self.err_at(t, "expected TRUE or FALSE")),
                }
            };
            match name.as_str() {
                "final" => a.extensibility = Some(Extensibility::Final),
                "appendable" => a.extensibility = Some(Extensibility::Appendable),
                "mutable" => a.extensibility = Some(Extensibility::Mutable),
                "extensibility" => {
                    let v = match params.as_deref() {
                        Some([Token { tok: Tok::Ident(v), .. }]) => v.to_ascii_uppercase(),
                        _ => String::new(),
                    };
                    a.extensibility = Some(match v.as_str() {
                        "FINAL" => Extensibility::Final,
                        "APPENDABLE" => Extensibility::Appendable,
                        "MUTABLE" => Extensibility::Mutable,
                        _ => return Err(self.err_at(&at, "expected @extensibility(FINAL|APPENDABLE|MUTABLE)")),
                    });
                }
                "optional" => a.optional = flag(&params)?,
                "key" => a.key = flag(&params)?,
                "must_understand" => a.must_understand = flag(&params)?,
                "id" => {
                    let v = self.param_int(&params, &at, "@id")?;
                    a.id = Some(
                        u32::try_from(v)
                            .ok()
                            .filter(|v| *v <= 0x0fff_ffff)
                            .ok_or_else(|| self.err_at(&at, "@id must be between 0 and 0x0fffffff"))?,
                    );
                }
                "hashid" => {
                    a.hashid = Some(match params.as_deref() {
                        None | Some([]) => String::new(),
                        Some([Token { tok: Tok::Str(s), .. }]) => s.clone(),
                        _ => return Err(self.err_at(&at, "expected @hashid or @hashid(\"name\")")),
                    });
                }
                "autoid" => {
                    let v = match params.as_deref() {
                        None | Some([]) => "SEQUENTIAL".to_string(),
                        Some([Token { tok: Tok::Ident(v), .. }]) => v.to_ascii_uppercase(),
                        _ => String::new(),
                    };
                    a.autoid_hash = Some(match v.as_str() {
                        "SEQUENTIAL" => false,
                        "HASH" => true,
                        _ => return Err(self.err_at(&at, "expected @autoid(SEQUENTIAL|HASH)")),
                    });
                }
                "bit_bound" => {
                    let v = self.param_int(&params, &at, "@bit_bound")?;
                    if !(1..=32).contains(&v) {
                        return Err(self.err_at(&at, "@bit_bound of an enum must be between 1 and 32"));
                    }
                    a.bit_bound = Some(v as u8);
                }
                "value" => {
                    let v = self.param_int(&params, &at, "@value")?;
                    a.value = Some(i32::try_from(v).map_err(|_| self.err_at(&at, "@value must fit a 32-bit integer"))?);
                }
                _ => {} // @topic, @nested, @default, @range, @unit, @verbatim, ...: no effect on the bytes
            }
        }
        Ok(a)
    }

    fn annotation_name(&mut self) -> Result<String, IdlError> {
        let mut s = String::new();
        if self.eat_punct("::") {
            s.push_str("::");
        }
        loop {
            match &self.tok().tok {
                Tok::Ident(n) => {
                    s.push_str(n);
                    self.advance();
                }
                _ => return Err(self.expected("an annotation name")),
            }
            if self.eat_punct("::") {
                s.push_str("::");
            } else {
                return Ok(s);
            }
        }
    }

    /// The tokens between the parentheses of an annotation (balanced).
    fn annotation_params(&mut self) -> Result<Vec<Token>, IdlError> {
        self.expect_punct("(")?;
        let mut depth = 1usize;
        let mut out = Vec::new();
        loop {
            let t = self.advance();
            match &t.tok {
                Tok::Eof => return Err(self.err_at(&t, "expected ')', found end of input")),
                Tok::Punct("(") => depth += 1,
                Tok::Punct(")") => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(out);
                    }
                }
                _ => {}
            }
            out.push(t);
        }
    }

    /// Evaluate annotation parameter tokens as one integer constant expression.
    fn param_int(&mut self, params: &Option<Vec<Token>>, at: &Token, what: &str) -> Result<i128, IdlError> {
        let Some(toks) = params.as_ref().filter(|p| !p.is_empty()) else {
            return Err(self.err_at(at, format!("{what} needs a value")));
        };
        // A throw-away parser over the parameter tokens, sharing the constants.
        let mut toks = toks.clone();
        let last = toks.last().cloned().unwrap_or_else(|| at.clone());
        toks.push(Token { tok: Tok::Eof, line: last.line, col: last.col + 1 });
        // The constants move to the sub-parser and back (no copy per annotation).
        let file = IdlFile {
            consts: core::mem::take(&mut self.file.consts),
            const_index: core::mem::take(&mut self.file.const_index),
            ..IdlFile::default()
        };
        let mut sub =
            Parser { toks, i: 0, scope: self.scope.clone(), file, keylists: Vec::new(), depth: 0, members: 0 };
        let v = sub.const_expr().and_then(|v| if sub.tok().tok != Tok::Eof { Err(sub.expected("')'")) } else { Ok(v) });
        self.file.consts = core::mem::take(&mut sub.file.consts);
        self.file.const_index = core::mem::take(&mut sub.file.const_index);
        v
    }

    fn count_members(&mut self, n: usize, at: &Token) -> Result<(), IdlError> {
        self.members += n;
        if self.members > MAX_MEMBERS {
            return Err(self.err_at(
                at,
                format!("more than {MAX_MEMBERS} struct members, bases counted again (the schema size limit)"),
            ));
        }
        Ok(())
    }
}
