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

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::types::TypeDesc;

mod include;
mod lexer;
mod parser;

pub use include::{flatten, Flattened, IncludeError, IncludeLoader};

use lexer::lex;
use parser::{Parser, KEYWORDS};

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
