//! `#include` inlining and `#ifdef`/`#if`/`#else`/`#endif` conditionals ([`flatten`]), with the
//! origin of each line of the result.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use super::{parse, IdlError, IdlFile, MAX_NESTING};

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
                let Some(_) = conds.pop() else { return Err(err(lineno, col, "'#endif' without '#if'".into())) };
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
