//! A reader for the subset of OMG IDL 4 that describes DDS data types.
//!
//! Supported: `module`; `struct` (with single inheritance and forward
//! declarations); `union ... switch (...)` with `case` / `default`; `enum`;
//! `typedef`; integer `const`s (usable in array sizes, bounds and case
//! labels, with `| ^ & << >> + - * / % ~` and parentheses); `sequence<T>`,
//! `sequence<T, N>`, `string`, `string<N>`, multi-dimensional arrays; all
//! the primitive types except `long double`, `wchar` and `wstring`;
//! annotations `@final @appendable @mutable @extensibility(...) @optional
//! @key @id(n) @autoid(SEQUENTIAL|HASH) @hashid @must_understand
//! @bit_bound(n) @value(n)` (others are read and ignored); `#pragma keylist`;
//! `//` and `/* */` comments (other preprocessor lines are skipped). [`flatten`] inlines
//! `#include "x.idl"` / `#include <pkg/msg/X.idl>` (each file once) and keeps or drops lines by
//! `#ifndef` / `#ifdef` / `#if 0|1|defined(X)` / `#else` / `#endif` and `#define` / `#undef`,
//! as ROS 2's generated IDL and include guards use them.
//!
//! An identifier with a leading underscore is an escaped identifier: `_double`
//! names a member `double` ([`escape_identifier`] writes them).
//!
//! Errors name the line and column (1-based, in characters) of the token
//! where the problem was found: `line 3, column 14: expected ';', found 'long'`.
//!
//! ```
//! let file = cdr::idl::parse(r#"
//!     module demo {
//!       enum Color { RED, GREEN, BLUE };
//!       @appendable struct Pixel { Color c; @optional float alpha; octet rgb[3]; };
//!     };
//! "#)?;
//! assert!(file.get("demo::Pixel").is_some() && file.get("Pixel").is_some());
//! let err = cdr::idl::parse("struct A {\n  long x\n  long y;\n};").unwrap_err();
//! assert_eq!(err.to_string(), "line 3, column 3: expected ';', found 'long'");
//! # Ok::<(), cdr::idl::IdlError>(())
//! ```

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;

use crate::types::{
    hashed_member_id, EnumDesc, Enumerator, Extensibility, Member, StructDesc, TypeDesc, UnionCase, UnionDesc,
};

/// Malformed or unsupported IDL, with its position (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdlError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl fmt::Display for IdlError {
    /// `line L, column C: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

impl core::error::Error for IdlError {}

/// Maximum nesting of modules, type specs and constant expressions.
const MAX_NESTING: usize = 64;

/// The most struct members one file may define, a derived struct counting its base's members
/// again (a chain of structs each deriving from the last would otherwise cost memory quadratic
/// in its length): the same figure as wirebench's schema size limit
/// (`wirebench_core::value::MAX_SCHEMA_TYPES`).
pub const MAX_MEMBERS: usize = 100_000;

/// One named declaration.
#[derive(Debug, Clone)]
struct Decl {
    /// Fully scoped, `::`-separated, without a leading `::`.
    name: String,
    ty: Option<TypeDesc>,
    /// A struct or union definition (not a typedef, enum or forward declaration).
    top: bool,
}

/// The types of an IDL file.
#[derive(Debug, Clone, Default)]
pub struct IdlFile {
    decls: Vec<Decl>,
    consts: Vec<(String, Option<i128>)>,
    /// Where each live declaration is in `decls`, by scoped name (a completed forward
    /// declaration leaves a blank entry behind): lookups cost the same whatever the file's size.
    index: alloc::collections::BTreeMap<String, usize>,
    /// The last entry of each constant's scoped name in `consts`.
    const_index: alloc::collections::BTreeMap<String, usize>,
}

impl IdlFile {
    /// Look a type (struct, union, enum or typedef) up by its scoped name
    /// (`M::Point`, `::M::Point`) or by its unqualified name (`Point`; the
    /// last declared of that name wins).
    pub fn get(&self, name: &str) -> Option<&TypeDesc> {
        let name = name.strip_prefix("::").unwrap_or(name);
        if let Some(&i) = self.index.get(name) {
            return self.decls[i].ty.as_ref();
        }
        self.decls
            .iter()
            .rev()
            .find(|d| {
                d.name.len() > name.len()
                    && d.name.ends_with(name)
                    && d.name[..d.name.len() - name.len()].ends_with("::")
            })
            .and_then(|d| d.ty.as_ref())
    }

    /// Every defined type, in declaration order, with its scoped name.
    pub fn types(&self) -> impl Iterator<Item = (&str, &TypeDesc)> {
        self.decls.iter().filter_map(|d| d.ty.as_ref().map(|t| (d.name.as_str(), t)))
    }

    /// The last struct or union defined: the topic type of a typical file.
    pub fn root(&self) -> Option<&TypeDesc> {
        self.decls.iter().rev().find(|d| d.top).and_then(|d| d.ty.as_ref())
    }

    fn push_const(&mut self, name: String, value: Option<i128>) {
        self.const_index.insert(name.clone(), self.consts.len());
        self.consts.push((name, value));
    }

    /// The value of an integer constant (or enumerator), by scoped or unqualified name.
    pub fn constant(&self, name: &str) -> Option<i128> {
        let name = name.strip_prefix("::").unwrap_or(name);
        self.consts
            .iter()
            .rev()
            .find(|(n, _)| n == name || (n.ends_with(name) && n[..n.len() - name.len()].ends_with("::")))
            .and_then(|(_, v)| *v)
    }
}

/// Whether `name` collides with an IDL keyword (case-insensitively, as IDL
/// defines collisions).
pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(name))
}

/// `name` as it must be written in IDL: escaped with a leading `_` when it
/// collides with a keyword or starts with `_`; `None` when it is not an
/// identifier at all.
pub fn escape_identifier(name: &str) -> Option<String> {
    let mut chars = name.chars();
    let first = chars.next()?;
    if !(first.is_ascii_alphabetic() || first == '_') || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    if is_keyword(name) || first == '_' {
        Some(format!("_{name}"))
    } else {
        Some(name.to_string())
    }
}

/// Read an IDL text.
pub fn parse(text: &str) -> Result<IdlFile, IdlError> {
    let (tokens, pragmas) = lex(text)?;
    let mut p = Parser {
        toks: tokens,
        i: 0,
        scope: Vec::new(),
        file: IdlFile::default(),
        keylists: pragmas,
        depth: 0,
        members: 0,
    };
    p.specification()?;
    Ok(p.file)
}

// ---------------------------------------------------------------------------------------------
// Includes and conditionals

/// An IDL text with its `#include`s inlined, and where each of its lines comes from.
#[derive(Debug, Clone, Default)]
pub struct Flattened {
    /// The text: every file included once, in place of its first `#include` line; lines that
    /// conditionals leave out and the directives other than `#pragma` are dropped.
    pub text: String,
    files: Vec<String>,
    /// For each line of `text`: (index in `files`, 1-based line in that file).
    lines: Vec<(usize, u32)>,
}

impl Flattened {
    /// The file and the line in it of line `line` (1-based) of [`Flattened::text`].
    pub fn origin(&self, line: u32) -> (&str, u32) {
        match self.lines.get((line as usize).wrapping_sub(1)).or(self.lines.last()) {
            Some(&(f, l)) => (self.files[f].as_str(), l),
            None => (self.files.first().map_or("", String::as_str), line),
        }
    }

    /// The files read, the first one first.
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// Parse the text; an error names the file it is in and its line there.
    pub fn parse(&self) -> Result<IdlFile, IncludeError> {
        parse(&self.text).map_err(|mut error| {
            let (file, line) = self.origin(error.line);
            error.line = line;
            IncludeError { file: file.to_string(), error }
        })
    }
}

/// An error in an included (or the first) file: the file's name and the error in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncludeError {
    pub file: String,
    pub error: IdlError,
}

impl fmt::Display for IncludeError {
    /// `file:line:column: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.error.line, self.error.column, self.error.message)
    }
}

/// Loads an included file: `(including file, the name between the quotes or brackets, whether
/// in angle brackets)` → `(the file's name, unique per file, and its text)`, or why not.
pub type IncludeLoader<'a> = dyn FnMut(&str, &str, bool) -> Result<(String, String), String> + 'a;

/// Inline the `#include`s of `text` (the file `name`), recursively, each file once (as include
/// guards or `#pragma once` would have it), and apply `#ifndef`/`#ifdef`/`#if`/`#else`/`#endif`
/// with `#define`/`#undef` (macros are not expanded).
pub fn flatten(name: &str, text: &str, load: &mut IncludeLoader<'_>) -> Result<Flattened, IncludeError> {
    let mut out = Flattened::default();
    let mut seen = BTreeSet::new();
    let mut defined = BTreeSet::new();
    seen.insert(name.to_string());
    flatten_into(name, text, load, &mut out, &mut seen, &mut defined, 0)?;
    Ok(out)
}

fn flatten_into(
    name: &str,
    text: &str,
    load: &mut IncludeLoader<'_>,
    out: &mut Flattened,
    seen: &mut BTreeSet<String>,
    defined: &mut BTreeSet<String>,
    depth: usize,
) -> Result<(), IncludeError> {
    let file = out.files.len();
    out.files.push(name.to_string());
    let err = |line: usize, column: usize, message: String| IncludeError {
        file: name.to_string(),
        error: IdlError { line: line as u32, column: column as u32, message },
    };
    // Open conditionals: (whether lines are kept, whether a branch was taken, line).
    let mut conds: Vec<(bool, bool, usize)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let active = conds.last().map_or(true, |c| c.0);
        let trimmed = raw.trim_start();
        let col = raw.len() - trimmed.len() + 1;
        let Some(directive) = trimmed.strip_prefix('#') else {
            if active {
                out.text.push_str(raw);
                out.text.push('\n');
                out.lines.push((file, lineno as u32));
            }
            continue;
        };
        let directive = directive.trim_start();
        let (word, rest) = directive.split_once(|c: char| c.is_whitespace()).unwrap_or((directive, ""));
        let rest = rest.split("//").next().unwrap_or("").trim();
        let macro_name = || rest.split_whitespace().next().unwrap_or("").to_string();
        match word {
            "ifndef" | "ifdef" => {
                let m = macro_name();
                if m.is_empty() {
                    return Err(err(lineno, col, format!("expected a macro name after '#{word}'")));
                }
                let yes = defined.contains(&m) == (word == "ifdef");
                conds.push((active && yes, yes, lineno));
            }
            "if" | "elif" => {
                let value = match rest.replace(' ', "").as_str() {
                    "0" => false,
                    "1" => true,
                    e => match e.strip_prefix('!').unwrap_or(e).strip_prefix("defined") {
                        Some(m) => {
                            let m = m.trim_start_matches('(').trim_end_matches(')');
                            defined.contains(m) != e.starts_with('!')
                        }
                        None => {
                            return Err(err(
                                lineno,
                                col,
                                format!(
                                "unsupported '#{word}' condition '{rest}' (0, 1, defined(X) and !defined(X) are read)"
                            ),
                            ))
                        }
                    },
                };
                if word == "if" {
                    conds.push((active && value, value, lineno));
                } else {
                    let outer = conds.len() < 2 || conds[conds.len() - 2].0;
                    let Some(top) = conds.last_mut() else {
                        return Err(err(lineno, col, "'#elif' without '#if'".into()));
                    };
                    top.0 = outer && !top.1 && value;
                    top.1 |= value;
                }
            }
            "else" => {
                let outer = conds.len() < 2 || conds[conds.len() - 2].0;
                let Some(top) = conds.last_mut() else { return Err(err(lineno, col, "'#else' without '#if'".into())) };
                top.0 = outer && !top.1;
                top.1 = true;
            }
            "endif" => {
                if conds.pop().is_none() {
                    return Err(err(lineno, col, "'#endif' without '#if'".into()));
                }
            }
            "define" if active => {
                defined.insert(macro_name());
            }
            "undef" if active => {
                defined.remove(&macro_name());
            }
            "include" if active => {
                let (spec, angled) = match (rest.chars().next(), rest.get(1..)) {
                    (Some('"'), Some(r)) => (r.split('"').next().filter(|_| r.contains('"')), false),
                    (Some('<'), Some(r)) => (r.split('>').next().filter(|_| r.contains('>')), true),
                    _ => (None, false),
                };
                let Some(spec) = spec else {
                    return Err(err(lineno, col, "expected \"file\" or <file> after '#include'".into()));
                };
                if depth >= MAX_NESTING {
                    return Err(err(lineno, col, format!("#include nested deeper than {MAX_NESTING} files")));
                }
                let (inc_name, inc_text) = load(name, spec, angled).map_err(|m| err(lineno, col, m))?;
                if seen.insert(inc_name.clone()) {
                    flatten_into(&inc_name, &inc_text, load, out, seen, defined, depth + 1)?;
                }
            }
            "error" if active => return Err(err(lineno, col, format!("#error {rest}"))),
            // #pragma (keylist is read by the parser), #line, #warning: kept for the lexer, which skips them.
            _ if active && !matches!(word, "define" | "undef" | "include" | "error") => {
                out.text.push_str(raw);
                out.text.push('\n');
                out.lines.push((file, lineno as u32));
            }
            _ => {}
        }
    }
    if let Some(&(_, _, line)) = conds.last() {
        return Err(err(line, 1, "this conditional has no '#endif'".into()));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Lexer

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Int(i128),
    Float,
    Str(String),
    Char(u8),
    Punct(&'static str),
    Eof,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: u32,
    col: u32,
}

impl Tok {
    fn show(&self) -> String {
        match self {
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Int(n) => format!("'{n}'"),
            Tok::Float => "a floating-point literal".into(),
            Tok::Str(_) => "a string literal".into(),
            Tok::Char(_) => "a character literal".into(),
            Tok::Punct(p) => format!("'{p}'"),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// `#pragma keylist Type member...`: (type name, members, line, column).
type Keylist = (String, Vec<String>, u32, u32);

struct Lexer<'a> {
    chars: core::iter::Peekable<core::str::Chars<'a>>,
    line: u32,
    col: u32,
    at_line_start: bool,
}

impl Lexer<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
            self.at_line_start = true;
        } else {
            self.col = self.col.saturating_add(1);
            if !c.is_whitespace() {
                self.at_line_start = false;
            }
        }
        Some(c)
    }

    fn err(&self, line: u32, col: u32, msg: impl Into<String>) -> IdlError {
        IdlError { line, column: col, message: msg.into() }
    }
}

const PUNCTS: &[&str] = &[
    "::", "<<", "{", "}", "(", ")", "<", ">", "[", "]", ";", ",", ":", "=", "@", "+", "-", "*", "/", "%", "|", "&",
    "^", "~",
];

fn lex(text: &str) -> Result<(Vec<Token>, Vec<Keylist>), IdlError> {
    let mut lx = Lexer { chars: text.chars().peekable(), line: 1, col: 1, at_line_start: true };
    let mut out = Vec::new();
    let mut pragmas = Vec::new();
    while let Some(c) = lx.peek() {
        let (line, col) = (lx.line, lx.col);
        if c.is_whitespace() {
            lx.bump();
            continue;
        }
        if c == '#' && lx.at_line_start {
            let mut directive = String::new();
            while let Some(c) = lx.peek() {
                if c == '\n' {
                    break;
                }
                directive.push(c);
                lx.bump();
            }
            let mut words = directive[1..].split_whitespace();
            if words.next() == Some("pragma") && words.next() == Some("keylist") {
                let Some(ty) = words.next() else {
                    return Err(lx.err(line, col, "expected a type name after '#pragma keylist'"));
                };
                pragmas.push((ty.to_string(), words.map(|w| w.to_string()).collect(), line, col));
            }
            continue;
        }
        if c == '/' {
            lx.bump();
            match lx.peek() {
                Some('/') => {
                    while let Some(c) = lx.peek() {
                        if c == '\n' {
                            break;
                        }
                        lx.bump();
                    }
                    continue;
                }
                Some('*') => {
                    lx.bump();
                    let mut prev = ' ';
                    loop {
                        match lx.bump() {
                            None => return Err(lx.err(line, col, "unterminated comment")),
                            Some('/') if prev == '*' => break,
                            Some(c) => prev = c,
                        }
                    }
                    continue;
                }
                _ => {
                    out.push(Token { tok: Tok::Punct("/"), line, col });
                    continue;
                }
            }
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let mut s = String::new();
            while let Some(c) = lx.peek() {
                if c.is_ascii_alphanumeric() || c == '_' {
                    s.push(c);
                    lx.bump();
                } else {
                    break;
                }
            }
            out.push(Token { tok: Tok::Ident(s), line, col });
            continue;
        }
        if c.is_ascii_digit() {
            let mut s = String::new();
            let mut float = false;
            while let Some(c) = lx.peek() {
                if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                    if c == '.' {
                        float = true;
                    }
                    s.push(c);
                    lx.bump();
                } else if (c == '+' || c == '-') && matches!(s.chars().last(), Some('e' | 'E')) && !s.starts_with("0x")
                {
                    float = true;
                    s.push(c);
                    lx.bump();
                } else {
                    break;
                }
            }
            let lower = s.to_ascii_lowercase();
            let tok = if let Some(hex) = lower.strip_prefix("0x") {
                i128::from_str_radix(hex, 16).map(Tok::Int).ok()
            } else if float || lower.contains('e') || lower.ends_with('d') || lower.ends_with('f') {
                Some(Tok::Float)
            } else if lower.len() > 1 && lower.starts_with('0') {
                i128::from_str_radix(&lower[1..], 8).map(Tok::Int).ok()
            } else {
                lower.parse::<i128>().map(Tok::Int).ok()
            };
            let Some(tok) = tok else {
                return Err(lx.err(line, col, format!("invalid number '{s}'")));
            };
            out.push(Token { tok, line, col });
            continue;
        }
        if c == '"' {
            lx.bump();
            let mut s = String::new();
            loop {
                match lx.bump() {
                    None | Some('\n') => return Err(lx.err(line, col, "unterminated string literal")),
                    Some('"') => break,
                    Some('\\') => match lx.bump() {
                        None => return Err(lx.err(line, col, "unterminated string literal")),
                        Some(e) => s.push(escape(e)),
                    },
                    Some(c) => s.push(c),
                }
            }
            out.push(Token { tok: Tok::Str(s), line, col });
            continue;
        }
        if c == '\'' {
            lx.bump();
            let ch = match lx.bump() {
                Some('\\') => match lx.bump() {
                    Some('x') => {
                        let mut v: u32 = 0;
                        let mut n = 0;
                        while let Some(d) = lx.peek().and_then(|c| c.to_digit(16)) {
                            if n == 2 {
                                break;
                            }
                            v = v * 16 + d;
                            n += 1;
                            lx.bump();
                        }
                        char::from_u32(v).unwrap_or('\0')
                    }
                    Some(e) => escape(e),
                    None => return Err(lx.err(line, col, "unterminated character literal")),
                },
                Some(c) if c != '\'' && c != '\n' => c,
                _ => return Err(lx.err(line, col, "invalid character literal")),
            };
            if lx.bump() != Some('\'') {
                return Err(lx.err(line, col, "unterminated character literal"));
            }
            let code = ch as u32;
            if code > 0xff {
                return Err(lx.err(line, col, "character literal outside Latin-1"));
            }
            out.push(Token { tok: Tok::Char(code as u8), line, col });
            continue;
        }
        lx.bump();
        let two: Option<&'static str> = match (c, lx.peek()) {
            (':', Some(':')) => Some("::"),
            ('<', Some('<')) => Some("<<"),
            _ => None,
        };
        if let Some(t) = two {
            lx.bump();
            out.push(Token { tok: Tok::Punct(t), line, col });
            continue;
        }
        let mut buf = [0u8; 4];
        let cs: &str = c.encode_utf8(&mut buf);
        match PUNCTS.iter().find(|p| **p == cs) {
            Some(p) => out.push(Token { tok: Tok::Punct(p), line, col }),
            None => return Err(lx.err(line, col, format!("unexpected character '{c}'"))),
        }
    }
    out.push(Token { tok: Tok::Eof, line: lx.line, col: lx.col });
    Ok((out, pragmas))
}

fn escape(e: char) -> char {
    match e {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        '0' => '\0',
        'a' => '\x07',
        'b' => '\x08',
        'f' => '\x0c',
        'v' => '\x0b',
        other => other,
    }
}

// ---------------------------------------------------------------------------------------------
// Parser

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

struct Parser {
    toks: Vec<Token>,
    i: usize,
    scope: Vec<String>,
    file: IdlFile,
    keylists: Vec<Keylist>,
    depth: usize,
    /// Struct members defined so far (bases counted again): at most [`MAX_MEMBERS`].
    members: usize,
}

const KEYWORDS: &[&str] = &[
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

    fn specification(&mut self) -> Result<(), IdlError> {
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

    fn struct_def(&mut self, annots: &Annots) -> Result<(), IdlError> {
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

    fn union_def(&mut self, annots: &Annots) -> Result<(), IdlError> {
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

    fn enum_def(&mut self, annots: &Annots) -> Result<(), IdlError> {
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

    fn typedef(&mut self) -> Result<(), IdlError> {
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

    fn const_def(&mut self) -> Result<(), IdlError> {
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

    fn scoped_name(&mut self) -> Result<String, IdlError> {
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

    // -- constant expressions (integers) ----------------------------------------------------------

    fn const_expr(&mut self) -> Result<i128, IdlError> {
        self.nest()?;
        let r = self.or_expr();
        self.depth -= 1;
        r
    }

    fn binary(&mut self, ops: &[&str], next: fn(&mut Parser) -> Result<i128, IdlError>) -> Result<i128, IdlError> {
        let mut v = next(self)?;
        loop {
            let op = match &self.tok().tok {
                Tok::Punct(p) if ops.contains(p) => *p,
                // `>>` is lexed as two '>' (so `sequence<sequence<long>>` works).
                Tok::Punct(">") if ops.contains(&">>") && matches!(self.peek_tok(1), Tok::Punct(">")) => ">>",
                _ => return Ok(v),
            };
            let at = self.advance();
            if op == ">>" {
                self.advance();
            }
            let r = next(self)?;
            let overflow = || self.err_at(&at, "constant expression overflows");
            v = match op {
                "|" => v | r,
                "^" => v ^ r,
                "&" => v & r,
                "<<" => {
                    u32::try_from(r).ok().filter(|s| *s < 64).and_then(|s| v.checked_shl(s)).ok_or_else(overflow)?
                }
                ">>" => u32::try_from(r).ok().filter(|s| *s < 128).map(|s| v >> s).ok_or_else(overflow)?,
                "+" => v.checked_add(r).ok_or_else(overflow)?,
                "-" => v.checked_sub(r).ok_or_else(overflow)?,
                "*" => v.checked_mul(r).ok_or_else(overflow)?,
                "/" => v.checked_div(r).ok_or_else(|| self.err_at(&at, "division by zero"))?,
                _ => v.checked_rem(r).ok_or_else(|| self.err_at(&at, "division by zero"))?,
            };
            if v.unsigned_abs() > u64::MAX as u128 {
                return Err(overflow());
            }
        }
    }

    fn or_expr(&mut self) -> Result<i128, IdlError> {
        self.binary(&["|"], Parser::xor_expr)
    }

    fn xor_expr(&mut self) -> Result<i128, IdlError> {
        self.binary(&["^"], Parser::and_expr)
    }

    fn and_expr(&mut self) -> Result<i128, IdlError> {
        self.binary(&["&"], Parser::shift_expr)
    }

    fn shift_expr(&mut self) -> Result<i128, IdlError> {
        self.binary(&["<<", ">>"], Parser::add_expr)
    }

    fn add_expr(&mut self) -> Result<i128, IdlError> {
        self.binary(&["+", "-"], Parser::mul_expr)
    }

    fn mul_expr(&mut self) -> Result<i128, IdlError> {
        self.binary(&["*", "/", "%"], Parser::unary_expr)
    }

    fn unary_expr(&mut self) -> Result<i128, IdlError> {
        if self.eat_punct("-") {
            self.nest()?;
            let v = self.unary_expr();
            self.depth -= 1;
            return Ok(-v?);
        }
        if self.eat_punct("+") {
            self.nest()?;
            let v = self.unary_expr();
            self.depth -= 1;
            return v;
        }
        if self.eat_punct("~") {
            self.nest()?;
            let v = self.unary_expr();
            self.depth -= 1;
            return Ok(!v?);
        }
        self.primary_expr()
    }

    fn primary_expr(&mut self) -> Result<i128, IdlError> {
        let t = self.tok().clone();
        match &t.tok {
            Tok::Int(n) => {
                let n = *n;
                self.advance();
                Ok(n)
            }
            Tok::Char(c) => {
                let c = *c;
                self.advance();
                Ok(c as i128)
            }
            Tok::Ident(k) if k == "TRUE" => {
                self.advance();
                Ok(1)
            }
            Tok::Ident(k) if k == "FALSE" => {
                self.advance();
                Ok(0)
            }
            Tok::Punct("(") => {
                self.advance();
                let v = self.const_expr()?;
                self.expect_punct(")")?;
                Ok(v)
            }
            Tok::Ident(_) | Tok::Punct("::") => {
                let name = self.scoped_name()?;
                match self.lookup_const(&name) {
                    Some(Some(v)) => Ok(v),
                    Some(None) => Err(self.err_at(&t, format!("constant '{name}' is not an integer"))),
                    None => Err(self.err_at(&t, format!("unknown constant '{name}'"))),
                }
            }
            _ => Err(self.expected("a constant expression")),
        }
    }
}
