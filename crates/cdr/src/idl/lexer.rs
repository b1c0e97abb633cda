//! The IDL lexer: text to tokens, skipping comments and preprocessor lines and collecting
//! `#pragma keylist`s.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::IdlError;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Int(i128),
    Float,
    Str(String),
    Char(u8),
    Punct(&'static str),
    Eof,
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) line: u32,
    pub(super) col: u32,
}

impl Tok {
    pub(super) fn show(&self) -> String {
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
pub(super) type Keylist = (String, Vec<String>, u32, u32);

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

pub(super) fn lex(text: &str) -> Result<(Vec<Token>, Vec<Keylist>), IdlError> {
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
