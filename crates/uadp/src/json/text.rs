//! A small JSON reader: a tree with byte offsets, numbers kept as text.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use super::MAX_DEPTH;
use crate::error::{Error, ErrorKind};

#[derive(Debug)]
pub(super) enum Jv<'t> {
    Null,
    Bool(bool),
    Num(&'t str),
    /// Borrowed from the text unless it has escapes.
    Str(Cow<'t, str>),
    Arr(Vec<Node<'t>>),
    Obj(Vec<(Cow<'t, str>, Node<'t>)>),
}

#[derive(Debug)]
pub(super) struct Node<'t> {
    pub(super) at: usize,
    pub(super) v: Jv<'t>,
}

impl<'t> Node<'t> {
    pub(super) fn get(&self, key: &str) -> Option<&Node<'t>> {
        match &self.v {
            Jv::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    pub(super) fn has_any(&self, keys: &[&str]) -> bool {
        keys.iter().any(|k| self.get(k).is_some())
    }
    pub(super) fn bad(&self) -> Error {
        Error::new(ErrorKind::JsonValue, self.at)
    }
    pub(super) fn str(&self) -> Result<&str, Error> {
        match &self.v {
            Jv::Str(s) => Ok(s.as_ref()),
            _ => Err(self.bad()),
        }
    }
    /// An unsigned integer member in `0..=max`.
    pub(super) fn uint(&self, max: u64) -> Result<u64, Error> {
        match &self.v {
            Jv::Num(t) => match t.parse::<u64>() {
                Ok(v) if v <= max => Ok(v),
                _ => Err(self.bad()),
            },
            _ => Err(self.bad()),
        }
    }
}

struct Parser<'t> {
    s: &'t str,
    b: &'t [u8],
    pos: usize,
}

impl<'t> Parser<'t> {
    fn syntax(&self) -> Error {
        Error::new(ErrorKind::JsonSyntax, self.pos.min(self.b.len()))
    }

    fn ws(&mut self) {
        while matches!(self.b.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Result<(), Error> {
        if self.b.get(self.pos) == Some(&c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.syntax())
        }
    }

    fn lit(&mut self, word: &str) -> Result<(), Error> {
        if self.b.get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.syntax())
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node<'t>, Error> {
        self.ws();
        let at = self.pos;
        let v = match self.b.get(self.pos) {
            None => return Err(self.syntax()),
            Some(b'n') => {
                self.lit("null")?;
                Jv::Null
            }
            Some(b't') => {
                self.lit("true")?;
                Jv::Bool(true)
            }
            Some(b'f') => {
                self.lit("false")?;
                Jv::Bool(false)
            }
            Some(b'"') => Jv::Str(self.string()?),
            Some(b'[') => {
                if depth >= MAX_DEPTH {
                    return Err(Error::new(ErrorKind::DepthLimit, at));
                }
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                } else {
                    loop {
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match self.b.get(self.pos) {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.syntax()),
                        }
                    }
                }
                Jv::Arr(items)
            }
            Some(b'{') => {
                if depth >= MAX_DEPTH {
                    return Err(Error::new(ErrorKind::DepthLimit, at));
                }
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.b.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        if self.b.get(self.pos) != Some(&b'"') {
                            return Err(self.syntax());
                        }
                        let k = self.string()?;
                        self.ws();
                        self.eat(b':')?;
                        let v = self.value(depth + 1)?;
                        members.push((k, v));
                        self.ws();
                        match self.b.get(self.pos) {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.syntax()),
                        }
                    }
                }
                Jv::Obj(members)
            }
            Some(b'-' | b'0'..=b'9') => Jv::Num(self.number()?),
            Some(_) => return Err(self.syntax()),
        };
        Ok(Node { at, v })
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.b.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<&'t str, Error> {
        let start = self.pos;
        if self.b.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match self.b.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.syntax()),
        }
        if self.b.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.syntax());
            }
        }
        if matches!(self.b.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.b.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.syntax());
            }
        }
        self.s.get(start..self.pos).ok_or_else(|| self.syntax())
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = self.b.get(self.pos).and_then(|&c| (c as char).to_digit(16)).ok_or_else(|| self.syntax())?;
            v = v << 4 | d;
            self.pos += 1;
        }
        Ok(v)
    }

    /// A string: a slice of the text when it has no escapes (most keys and values), else a
    /// copy with the escapes resolved.
    fn string(&mut self) -> Result<Cow<'t, str>, Error> {
        self.eat(b'"')?;
        let start = self.pos;
        while let Some(&c) = self.b.get(self.pos) {
            if c == b'"' {
                // The run stops at an ASCII byte of a &str, so both ends are char boundaries.
                let s = self.s.get(start..self.pos).ok_or_else(|| self.syntax())?;
                self.pos += 1;
                return Ok(Cow::Borrowed(s));
            }
            if c == b'\\' || c < 0x20 {
                break;
            }
            self.pos += 1;
        }
        // An escape (or a control byte, refused below): the run so far is copied once and the
        // loop goes on from there.
        let mut out = String::from(self.s.get(start..self.pos).ok_or_else(|| self.syntax())?);
        loop {
            let run = self.pos;
            while let Some(&c) = self.b.get(self.pos) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // The input is a &str and the run stops at ASCII bytes, so it is a char boundary.
            out.push_str(self.s.get(run..self.pos).ok_or_else(|| self.syntax())?);
            match self.b.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = *self.b.get(self.pos).ok_or_else(|| self.syntax())?;
                    self.pos += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{08}'),
                        b'f' => out.push('\u{0c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let at = self.pos - 2;
                            let hi = self.hex4()?;
                            let cp = if (0xd800..0xdc00).contains(&hi) {
                                self.lit("\\u").map_err(|_| Error::new(ErrorKind::JsonSyntax, at))?;
                                let lo = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&lo) {
                                    return Err(Error::new(ErrorKind::JsonSyntax, at));
                                }
                                0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                            } else {
                                hi
                            };
                            out.push(char::from_u32(cp).ok_or(Error::new(ErrorKind::JsonSyntax, at))?);
                        }
                        _ => {
                            self.pos -= 1;
                            return Err(self.syntax());
                        }
                    }
                }
                _ => return Err(self.syntax()),
            }
        }
    }
}

pub(super) fn parse(text: &str) -> Result<Node<'_>, Error> {
    let mut p = Parser { s: text, b: text.as_bytes(), pos: 0 };
    let root = p.value(0)?;
    p.ws();
    if p.pos != p.b.len() {
        return Err(p.syntax());
    }
    Ok(root)
}
