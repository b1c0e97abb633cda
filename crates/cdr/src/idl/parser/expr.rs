//! Integer constant expressions: `| ^ & << >> + - * / % ~`, parentheses, literals and named
//! constants.

use alloc::format;

use super::Parser;
use crate::idl::lexer::Tok;
use crate::idl::IdlError;

impl Parser {
    // -- constant expressions (integers) ----------------------------------------------------------

    pub(super) fn const_expr(&mut self) -> Result<i128, IdlError> {
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
