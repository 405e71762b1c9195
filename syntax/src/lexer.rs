//! Turns source text into tokens. Never fails: every byte ends up in exactly
//! one token, and anything the lexer does not understand becomes an
//! `ERROR_TOKEN` with an error message.

use crate::SyntaxKind::{self, *};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: SyntaxKind,
    /// For identifiers: the keyword kind the word has where it is used as a
    /// keyword (`IDENT` if none). Soft keywords stay `IDENT` in `kind`.
    pub contextual: SyntaxKind,
    pub len: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    pub offset: u32,
    pub len: u32,
    pub message: String,
    /// A malformed numeric literal (`0LUL`, `1.0ff`, `0x1p`): the token is
    /// whole and the parse goes on; the reference compiler reports these
    /// when checking, not as syntax errors.
    pub literal: bool,
}

pub struct Lexed {
    pub tokens: Vec<Token>,
    pub errors: Vec<LexError>,
}

/// Words that are never identifiers: lexed straight to their keyword kind.
/// All other keywords are soft and the parser re-tags them in context.
fn is_hard_keyword(kind: SyntaxKind, word: &str) -> bool {
    matches!(
        kind,
        STRUCT_KW
            | CLASS_KW
            | ENUM_KW
            | INTERFACE_KW
            | TYPEDEF_KW
            | TYPEALIAS_KW
            | NAMESPACE_KW
            | EXTENSION_KW
            | IMPORT_KW
            | ASSOCIATEDTYPE_KW
            | CBUFFER_KW
            | TBUFFER_KW
            | IF_KW
            | ELSE_KW
            | FOR_KW
            | WHILE_KW
            | DO_KW
            | SWITCH_KW
            | CASE_KW
            | DEFAULT_KW
            | BREAK_KW
            | CONTINUE_KW
            | RETURN_KW
            | DISCARD_KW
            | TRUE_KW
            | FALSE_KW
            | NULLPTR_KW
            | THIS_KW
            | THIS_TYPE_KW
            | LET_KW
            | STATIC_KW
            | CONST_KW
            | CONSTEXPR_KW
            | CONSTREF_KW
            | UNDERSCORE_CONSTREF_KW
            | UNIFORM_KW
            | GROUPSHARED_KW
            | NO_DIFF_KW
            | PUBLIC_KW
            | PRIVATE_KW
            | INTERNAL_KW
            | EXTERN_KW
            | EXPORT_KW
            | INLINE_KW
            | OPERATOR_KW
            | SIZEOF_KW
            | ALIGNOF_KW
            | STATIC_ASSERT_KW
            | SPIRV_ASM_KW
            | NOINTERPOLATION_KW
            | NOPERSPECTIVE_KW
            | ROW_MAJOR_KW
            | COLUMN_MAJOR_KW
            | VOLATILE_KW
            | GLOBALLYCOHERENT_KW
    ) || word.starts_with("__")
}

pub fn lex(text: &str) -> Lexed {
    let mut lexer = Lexer {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        tokens: Vec::with_capacity(text.len() / 2 + 16),
        errors: Vec::new(),
    };
    lexer.run();
    Lexed { tokens: lexer.tokens, errors: lexer.errors }
}

struct Lexer<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    tokens: Vec<Token>,
    errors: Vec<LexError>,
}

const fn ident_table(continue_: bool) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 || (continue_ && b.is_ascii_digit());
        i += 1;
    }
    t
}
static IDENT_START: [bool; 256] = ident_table(false);
static IDENT_CONTINUE: [bool; 256] = ident_table(true);

#[inline]
fn is_ident_start(b: u8) -> bool {
    IDENT_START[b as usize]
}

#[inline]
fn is_ident_continue(b: u8) -> bool {
    IDENT_CONTINUE[b as usize]
}

/// Whether the digits of an integer literal (with its `0x`/`0b`/`0`
/// prefix, `_` separators allowed) exceed 64 bits.
fn int_overflows(digits: &str) -> bool {
    let b = digits.as_bytes();
    let (radix, body) = match b {
        [b'0', b'x' | b'X', rest @ ..] => (16, rest),
        [b'0', b'b' | b'B', rest @ ..] => (2, rest),
        [b'0', rest @ ..] if !rest.is_empty() => (8, rest),
        _ => (10, b),
    };
    let mut value: u64 = 0;
    for &c in body {
        if c == b'_' {
            continue;
        }
        let Some(d) = (c as char).to_digit(radix) else { return false };
        match value.checked_mul(radix as u64).and_then(|v| v.checked_add(d as u64)) {
            Some(v) => value = v,
            None => return true,
        }
    }
    false
}

/// A floating-point suffix, in any case: `f`, `h`, `hf`/`fh` (half),
/// `l`, `lf`/`fl` (double), `d`.
fn is_float_suffix(s: &str) -> bool {
    ["f", "h", "lf", "fl", "l", "d", "hf", "fh"].iter().any(|w| s.eq_ignore_ascii_case(w))
}

/// An integer suffix, in any case: `u`, `l`, `ul`, `ll`, `ull`, `z` …
fn is_int_suffix(s: &str) -> bool {
    ["", "u", "l", "ul", "lu", "ll", "ull", "llu", "z", "uz", "zu"].iter().any(|w| s.eq_ignore_ascii_case(w))
}

impl<'a> Lexer<'a> {
    fn peek(&self, n: usize) -> u8 {
        self.bytes.get(self.pos + n).copied().unwrap_or(0)
    }

    fn push(&mut self, kind: SyntaxKind, start: usize) {
        self.tokens.push(Token { kind, contextual: IDENT, len: (self.pos - start) as u32 });
    }

    fn error(&mut self, start: usize, message: impl Into<String>) {
        self.errors.push(LexError {
            offset: start as u32,
            len: (self.pos - start) as u32,
            message: message.into(),
            literal: false,
        });
    }

    fn run(&mut self) {
        // A UTF-8 byte-order mark is whitespace.
        if self.text.starts_with('\u{feff}') {
            self.pos = 3;
            self.push(WHITESPACE, 0);
        }
        while self.pos < self.bytes.len() {
            let start = self.pos;
            let b = self.bytes[self.pos];
            match b {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => {
                    self.whitespace();
                    self.push(WHITESPACE, start);
                }
                b'\\' if matches!(self.peek(1), b'\n' | b'\r') => {
                    // An escaped line break is whitespace (it only matters
                    // inside directive lines, which the preprocessor handles).
                    self.whitespace();
                    self.push(WHITESPACE, start);
                }
                b'/' if self.peek(1) == b'/' => {
                    self.line_comment();
                    self.push(COMMENT, start);
                }
                b'/' if self.peek(1) == b'*' => {
                    self.pos += 2;
                    let mut closed = false;
                    while let Some(i) = memchr::memchr(b'*', &self.bytes[self.pos..]) {
                        self.pos += i + 1;
                        if self.peek(0) == b'/' {
                            self.pos += 1;
                            closed = true;
                            break;
                        }
                    }
                    if !closed {
                        self.pos = self.bytes.len();
                    }
                    self.push(COMMENT, start);
                    if !closed {
                        self.error(start, "unterminated block comment");
                    }
                }
                _ if is_ident_start(b) && !self.at_replacement_char() => {
                    self.pos += 1;
                    loop {
                        while self.pos < self.bytes.len() && is_ident_continue(self.bytes[self.pos]) {
                            if self.bytes[self.pos] >= 0x80 && self.at_replacement_char() {
                                break;
                            }
                            self.pos += 1;
                        }
                        // An escaped line break inside a word joins its halves
                        // (line splicing happens before tokenizing).
                        let splice = match (self.peek(0), self.peek(1), self.peek(2)) {
                            (b'\\', b'\n', _) => 2,
                            (b'\\', b'\r', b'\n') => 3,
                            _ => 0,
                        };
                        if splice > 0
                            && is_ident_continue(self.peek(splice))
                            && !self.at_replacement_char_at(self.pos + splice)
                        {
                            self.pos += splice;
                            continue;
                        }
                        break;
                    }
                    // Non-ASCII bytes are identifier characters (as in the
                    // reference lexer); keep the token on char boundaries.
                    while !self.text.is_char_boundary(self.pos) {
                        self.pos += 1;
                    }
                    let word = &self.text[start..self.pos];
                    // A string prefix such as R"(...)" is a raw string.
                    if word == "R" && self.peek(0) == b'"' {
                        self.raw_string(start);
                        continue;
                    }
                    let (kind, contextual) = match SyntaxKind::from_keyword(word) {
                        Some(kw) if is_hard_keyword(kw, word) => (kw, IDENT),
                        Some(kw) => (IDENT, kw),
                        None => (IDENT, IDENT),
                    };
                    self.tokens.push(Token { kind, contextual, len: (self.pos - start) as u32 });
                }
                b'0'..=b'9' => {
                    let kind = self.number();
                    self.push(kind, start);
                }
                b'.' if self.peek(1).is_ascii_digit() => {
                    let kind = self.number();
                    self.push(kind, start);
                }
                b'"' => {
                    self.quoted(b'"');
                    self.push(STRING, start);
                    if self.bytes[self.pos - 1] != b'"' || self.pos - start < 2 {
                        self.error(start, "unterminated string literal");
                    }
                }
                b'\'' => {
                    self.quoted(b'\'');
                    self.push(CHAR, start);
                    if self.bytes[self.pos - 1] != b'\'' || self.pos - start < 2 {
                        self.error(start, "unterminated character literal");
                    }
                }
                _ => {
                    let kind = self.punct();
                    if kind == ERROR_TOKEN {
                        // One whole (possibly multi-byte) character.
                        self.pos += 1;
                        while !self.text.is_char_boundary(self.pos) {
                            self.pos += 1;
                        }
                        self.push(ERROR_TOKEN, start);
                        let ch = &self.text[start..self.pos];
                        self.error(start, format!("unexpected character {ch:?}"));
                    } else {
                        self.push(kind, start);
                    }
                }
            }
        }
    }

    /// U+FFFD stands for bytes that were not UTF-8 (the caller replaced
    /// them); it is never part of an identifier.
    fn at_replacement_char(&self) -> bool {
        self.at_replacement_char_at(self.pos)
    }

    fn at_replacement_char_at(&self, at: usize) -> bool {
        self.bytes.get(at..).is_some_and(|b| b.starts_with("\u{fffd}".as_bytes()))
    }

    fn whitespace(&mut self) {
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'\\' if self.peek(1) == b'\n' => self.pos += 2,
                b'\\' if self.peek(1) == b'\r' => {
                    self.pos += 2;
                    if self.peek(0) == b'\n' {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn line_comment(&mut self) {
        while let Some(i) = memchr::memchr3(b'\n', b'\r', b'\\', &self.bytes[self.pos..]) {
            self.pos += i;
            match self.bytes[self.pos] {
                b'\n' | b'\r' => return,
                // A line comment continues over an escaped line break.
                _ if matches!(self.peek(1), b'\n' | b'\r') => {
                    self.pos += 2;
                    if self.bytes[self.pos - 1] == b'\r' && self.peek(0) == b'\n' {
                        self.pos += 1;
                    }
                }
                _ => self.pos += 1,
            }
        }
        self.pos = self.bytes.len();
    }

    /// A quoted literal; stops at the closing quote or the end of the line.
    fn quoted(&mut self, quote: u8) {
        self.pos += 1;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'\\' => {
                    self.pos += 2;
                    if self.pos > self.bytes.len() {
                        self.pos = self.bytes.len();
                    }
                }
                b'\n' | b'\r' => return,
                c if c == quote => {
                    self.pos += 1;
                    return;
                }
                _ => self.pos += 1,
            }
        }
        while !self.text.is_char_boundary(self.pos) {
            self.pos += 1;
        }
    }

    /// `R"delim( ... )delim"`
    fn raw_string(&mut self, start: usize) {
        self.pos += 1; // the opening quote
        let delim_start = self.pos;
        while self.pos < self.bytes.len() && !matches!(self.bytes[self.pos], b'(' | b'"' | b'\n') {
            self.pos += 1;
        }
        if self.peek(0) != b'(' {
            self.push(STRING, start);
            self.error(start, "malformed raw string literal");
            return;
        }
        let delim = &self.text[delim_start..self.pos];
        let closing = format!("){delim}\"");
        match self.text[self.pos..].find(&closing) {
            Some(i) => {
                self.pos += i + closing.len();
                self.push(STRING, start);
            }
            None => {
                self.pos = self.bytes.len();
                self.push(STRING, start);
                self.error(start, "unterminated raw string literal");
            }
        }
    }

    fn number(&mut self) -> SyntaxKind {
        let start = self.pos;
        let mut is_float = false;
        let mut bad_exponent = false;
        let radix_prefix = self.peek(0) == b'0' && matches!(self.peek(1), b'x' | b'X' | b'b' | b'B');
        if radix_prefix {
            let hex = matches!(self.peek(1), b'x' | b'X');
            self.pos += 2;
            while self.peek(0).is_ascii_hexdigit() || self.peek(0) == b'_' {
                self.pos += 1;
            }
            if hex && self.peek(0) == b'.' && (self.peek(1).is_ascii_hexdigit() || matches!(self.peek(1), b'p' | b'P'))
            {
                self.pos += 1;
                while self.peek(0).is_ascii_hexdigit() {
                    self.pos += 1;
                }
                is_float = true;
            }
            if hex && matches!(self.peek(0), b'p' | b'P') {
                is_float = true;
                bad_exponent = !self.exponent();
            }
        } else {
            while self.peek(0).is_ascii_digit() || self.peek(0) == b'_' {
                self.pos += 1;
            }
            // A '.' continues the number unless it starts a member access
            // on an integer (`1.xxx` is a swizzle of 1.0 in Slang? No: we
            // treat `1.` as a float and any letters after it as a suffix
            // only when they form a valid one).
            if self.peek(0) == b'.' && self.peek(1) == b'.' && is_ident_start(self.peek(2)) {
                // `0..x`: the float `0.` and a swizzle.
                self.pos += 1;
                is_float = true;
            } else if self.peek(0) == b'.' && self.peek(1) != b'.' {
                let after = self.peek(1);
                if after.is_ascii_digit()
                    || !is_ident_start(after)
                    || self.is_float_suffix_at(self.pos + 1)
                    || matches!(after, b'e' | b'E')
                {
                    self.pos += 1;
                    is_float = true;
                    while self.peek(0).is_ascii_digit() || self.peek(0) == b'_' {
                        self.pos += 1;
                    }
                }
            }
            if matches!(self.peek(0), b'e' | b'E')
                && (self.peek(1).is_ascii_digit()
                    || (matches!(self.peek(1), b'+' | b'-') && self.peek(2).is_ascii_digit())
                    || (is_float && matches!(self.peek(1), b'+' | b'-')))
            {
                // (`0.123e-abc` is a float with a bad exponent.)
                is_float = true;
                bad_exponent = !self.exponent();
            }
        }
        // MSVC-style special values: `1.#INF`, `1#INF`, `1.#QNAN`, `0x1.0#INF`.
        if self.peek(0) == b'#' && (!radix_prefix || is_float) {
            let rest = &self.text[self.pos + 1..];
            if let Some(word) = ["INF", "IND", "QNAN", "SNAN"].iter().find(|w| rest.starts_with(**w)) {
                self.pos += 1 + word.len();
                is_float = true;
            }
        } else if (!radix_prefix || is_float) && self.peek(0) == b'.' && self.peek(1) == b'#' {
            let rest = &self.text[self.pos + 2..];
            if let Some(word) = ["INF", "IND", "QNAN", "SNAN"].iter().find(|w| rest.starts_with(**w)) {
                self.pos += 2 + word.len();
                is_float = true;
            }
        }
        // Suffix: any run of identifier characters; validated below.
        let suffix_start = self.pos;
        while self.pos < self.bytes.len() && is_ident_continue(self.bytes[self.pos]) {
            self.pos += 1;
        }
        while !self.text.is_char_boundary(self.pos) {
            self.pos += 1;
        }
        let suffix = &self.text[suffix_start..self.pos];
        let int_suffix = is_int_suffix(suffix);
        let float_suffix = is_float_suffix(suffix);
        if !radix_prefix && !is_float && float_suffix && !int_suffix {
            is_float = true;
        }
        let ok = if is_float { suffix.is_empty() || float_suffix } else { int_suffix };
        // Any run of letters after a number stays part of its token (the
        // reference compiler lexes it so too, and rejects it when checking).
        if bad_exponent {
            self.errors.push(LexError {
                offset: start as u32,
                len: (self.pos - start) as u32,
                message: format!("invalid floating-point number `{}`", &self.text[start..self.pos]),
                literal: true,
            });
        } else if !is_float && ok && int_overflows(&self.text[start..suffix_start]) {
            // The reference compiler's lexer rejects these.
            self.errors.push(LexError {
                offset: start as u32,
                len: (self.pos - start) as u32,
                message: "integer literal is too large to be represented in any integer type".into(),
                literal: false,
            });
        } else if !ok {
            let what = if is_float { "floating-point" } else { "integer" };
            self.errors.push(LexError {
                offset: suffix_start as u32,
                len: (self.pos - suffix_start) as u32,
                message: format!("invalid suffix `{}` on {what} literal", &self.text[suffix_start..self.pos]),
                literal: true,
            });
        }
        let _ = start;
        if is_float {
            FLOAT_NUMBER
        } else {
            INT_NUMBER
        }
    }

    fn is_float_suffix_at(&self, at: usize) -> bool {
        let mut end = at;
        while end < self.bytes.len() && is_ident_continue(self.bytes[end]) {
            end += 1;
        }
        self.text.get(at..end).is_some_and(is_float_suffix)
    }

    /// `e`/`p`, a sign and digits; whether there were digits.
    fn exponent(&mut self) -> bool {
        self.pos += 1;
        if matches!(self.peek(0), b'+' | b'-') {
            self.pos += 1;
        }
        let digits = self.pos;
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        self.pos > digits
    }

    fn punct(&mut self) -> SyntaxKind {
        let b0 = self.peek(0);
        let b1 = self.peek(1);
        let b2 = self.peek(2);
        let (kind, len) = match (b0, b1, b2) {
            (b'.', b'.', b'.') => (DOT3, 3),
            (b'<', b'<', b'=') => (SHLEQ, 3),
            (b':', b':', _) => (COLON2, 2),
            (b'-', b'>', _) => (THIN_ARROW, 2),
            (b'=', b'=', _) => (EQ2, 2),
            (b'=', b'>', _) => (FAT_ARROW, 2),
            (b'!', b'=', _) => (NEQ, 2),
            (b'<', b'=', _) => (LTEQ, 2),
            (b'<', b'<', _) => (SHL, 2),
            (b'+', b'=', _) => (PLUSEQ, 2),
            (b'-', b'=', _) => (MINUSEQ, 2),
            (b'*', b'=', _) => (STAREQ, 2),
            (b'/', b'=', _) => (SLASHEQ, 2),
            (b'%', b'=', _) => (PERCENTEQ, 2),
            (b'&', b'=', _) => (AMPEQ, 2),
            (b'|', b'=', _) => (PIPEEQ, 2),
            (b'^', b'=', _) => (CARETEQ, 2),
            (b'&', b'&', _) => (AMP2, 2),
            (b'|', b'|', _) => (PIPE2, 2),
            (b'+', b'+', _) => (PLUS2, 2),
            (b'-', b'-', _) => (MINUS2, 2),
            (b'#', b'#', _) => (POUND2, 2),
            // `>` is always a single token: `>>`, `>=` and `>>=` are glued
            // by the parser, so that `a<b<c>>` closes two generic lists.
            (b'>', _, _) => (R_ANGLE, 1),
            (b';', _, _) => (SEMICOLON, 1),
            (b',', _, _) => (COMMA, 1),
            (b'(', _, _) => (L_PAREN, 1),
            (b')', _, _) => (R_PAREN, 1),
            (b'{', _, _) => (L_CURLY, 1),
            (b'}', _, _) => (R_CURLY, 1),
            (b'[', _, _) => (L_BRACK, 1),
            (b']', _, _) => (R_BRACK, 1),
            (b'<', _, _) => (L_ANGLE, 1),
            (b'@', _, _) => (AT, 1),
            (b'#', _, _) => (POUND, 1),
            (b'~', _, _) => (TILDE, 1),
            (b'?', _, _) => (QUESTION, 1),
            (b'$', _, _) => (DOLLAR, 1),
            (b'&', _, _) => (AMP, 1),
            (b'|', _, _) => (PIPE, 1),
            (b'+', _, _) => (PLUS, 1),
            (b'*', _, _) => (STAR, 1),
            (b'/', _, _) => (SLASH, 1),
            (b'^', _, _) => (CARET, 1),
            (b'%', _, _) => (PERCENT, 1),
            (b'.', _, _) => (DOT, 1),
            (b':', _, _) => (COLON, 1),
            (b'=', _, _) => (EQ, 1),
            (b'!', _, _) => (BANG, 1),
            (b'-', _, _) => (MINUS, 1),
            (b'\\', _, _) => (BACKSLASH, 1),
            _ => return ERROR_TOKEN,
        };
        self.pos += len;
        kind
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: expect_test::Expect) {
        let lexed = lex(text);
        let mut out = String::new();
        let mut pos = 0usize;
        for t in &lexed.tokens {
            let s = &text[pos..pos + t.len as usize];
            if t.kind != WHITESPACE {
                out.push_str(&format!("{:?} {:?}\n", t.kind, s));
            }
            pos += t.len as usize;
        }
        for e in &lexed.errors {
            out.push_str(&format!("error {}..{}: {}\n", e.offset, e.offset + e.len, e.message));
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn numbers() {
        check(
            "0 42 0x1F 0XffU 0b1011 017 1u 2l 3ul 4ll 5ull 1.0 .5 1. 1e10 2.5e-3f 1.0h 1.0lf 3f 0x1.8p3 1_000 1.0.x 1.xy 7q",
            expect_test::expect![[r#"
                INT_NUMBER "0"
                INT_NUMBER "42"
                INT_NUMBER "0x1F"
                INT_NUMBER "0XffU"
                INT_NUMBER "0b1011"
                INT_NUMBER "017"
                INT_NUMBER "1u"
                INT_NUMBER "2l"
                INT_NUMBER "3ul"
                INT_NUMBER "4ll"
                INT_NUMBER "5ull"
                FLOAT_NUMBER "1.0"
                FLOAT_NUMBER ".5"
                FLOAT_NUMBER "1."
                FLOAT_NUMBER "1e10"
                FLOAT_NUMBER "2.5e-3f"
                FLOAT_NUMBER "1.0h"
                FLOAT_NUMBER "1.0lf"
                FLOAT_NUMBER "3f"
                FLOAT_NUMBER "0x1.8p3"
                INT_NUMBER "1_000"
                FLOAT_NUMBER "1.0"
                DOT "."
                IDENT "x"
                INT_NUMBER "1"
                DOT "."
                IDENT "xy"
                INT_NUMBER "7q"
                error 109..110: invalid suffix `q` on integer literal
            "#]],
        );
    }

    #[test]
    fn number_suffixes_and_swizzles() {
        check(
            "0ZU 1UZ 1e0fh 1e0FL 0x1.0#INFhf 0..x 0LUL 0x1p",
            expect_test::expect![[r#"
                INT_NUMBER "0ZU"
                INT_NUMBER "1UZ"
                FLOAT_NUMBER "1e0fh"
                FLOAT_NUMBER "1e0FL"
                FLOAT_NUMBER "0x1.0#INFhf"
                FLOAT_NUMBER "0."
                DOT "."
                IDENT "x"
                INT_NUMBER "0LUL"
                FLOAT_NUMBER "0x1p"
                error 38..41: invalid suffix `LUL` on integer literal
                error 42..46: invalid floating-point number `0x1p`
            "#]],
        );
    }

    #[test]
    fn integer_overflow_is_an_error() {
        // Beyond 64 bits is a lexical error, as for the reference compiler.
        check(
            "18446744073709551615 18446744073709551616 0x1FFFFFFFFFFFFFFFF 0xFFFFFFFFFFFFFFFFull",
            expect_test::expect![[r#"
                INT_NUMBER "18446744073709551615"
                INT_NUMBER "18446744073709551616"
                INT_NUMBER "0x1FFFFFFFFFFFFFFFF"
                INT_NUMBER "0xFFFFFFFFFFFFFFFFull"
                error 21..41: integer literal is too large to be represented in any integer type
                error 42..61: integer literal is too large to be represented in any integer type
            "#]],
        );
    }

    #[test]
    fn strings_comments_and_errors() {
        check(
            "\"a\\\"b\" 'c' '\\n' R\"(raw \" text)\" // line\n/// doc\n/* block */ \"open\n` /* never",
            expect_test::expect![[r#"
                STRING "\"a\\\"b\""
                CHAR "'c'"
                CHAR "'\\n'"
                STRING "R\"(raw \" text)\""
                COMMENT "// line"
                COMMENT "/// doc"
                COMMENT "/* block */"
                STRING "\"open"
                ERROR_TOKEN "`"
                COMMENT "/* never"
                error 60..65: unterminated string literal
                error 66..67: unexpected character "`"
                error 68..76: unterminated block comment
            "#]],
        );
    }

    #[test]
    fn punctuation_and_keywords() {
        check(
            "a::b->c ... <<= >>= >= != => && || ++ -- ## struct set fwd_diff café",
            expect_test::expect![[r###"
                IDENT "a"
                COLON2 "::"
                IDENT "b"
                THIN_ARROW "->"
                IDENT "c"
                DOT3 "..."
                SHLEQ "<<="
                R_ANGLE ">"
                R_ANGLE ">"
                EQ "="
                R_ANGLE ">"
                EQ "="
                NEQ "!="
                FAT_ARROW "=>"
                AMP2 "&&"
                PIPE2 "||"
                PLUS2 "++"
                MINUS2 "--"
                POUND2 "##"
                STRUCT_KW "struct"
                IDENT "set"
                IDENT "fwd_diff"
                IDENT "café"
            "###]],
        );
    }
}
