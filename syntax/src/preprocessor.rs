//! Preprocessor structure: finds directive lines and decides which
//! conditional branches are active.
//!
//! Strategy (documented in the crate docs): a directive line is a node in the
//! tree, wherever it stands (between items, inside an expression …) — it sits
//! in the token stream the way trivia does, so the parser never sees it.
//! `#if` / `#ifdef` / `#elif` conditions are evaluated like the C
//! preprocessor with the defines given in [`ParseOptions`] plus the
//! `#define`s met so far in the file and those of `#include`d files that the
//! host gives ([`ParseOptions::includes`]); macros, function-like ones too,
//! are expanded inside conditions ([`crate::macros`]), unknown identifiers
//! are `0`. Code in a branch that is not taken becomes one `DISABLED_TEXT`
//! token per run; only the taken branch is parsed. Directives inside a
//! disabled branch are still nodes (so folding and highlighting see them)
//! but have no effect. Macros are not expanded in the tree: a use of a macro
//! parses as the ordinary code it looks like, with two allowances given to
//! the parser (see [`MacroNames`]); [`crate::macro_expand`] makes the
//! expanded text.

use std::sync::Arc;

use rustc_hash::FxHashSet as HashSet;

use crate::macros::{self, DefineLine, MacroDef, MacroMap};

use crate::lexer::{lex, Token};
use crate::SyntaxKind::{self, *};
use text_size::{TextRange, TextSize};

/// Options that change how a file parses.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ParseOptions {
    /// Predefined macros (`-D NAME=VALUE`), in addition to the built-in ones.
    pub defines: Vec<(String, String)>,
    /// What each `#include` of the file does to the macros, by the name as
    /// written between the quotes (the host resolves and preprocesses the
    /// included files): definitions (`Some`) and `#undef`s (`None`), in order.
    pub includes: Vec<(String, IncludedMacros)>,
}

/// The macro definitions an included file leaves behind, in order.
pub type IncludedMacros = Arc<Vec<(String, Option<Arc<MacroDef>>)>>;

impl ParseOptions {
    pub fn with_defines(defines: Vec<(String, String)>) -> ParseOptions {
        ParseOptions { defines, includes: Vec::new() }
    }

    /// The macros defined before the first line: the built-in ones and
    /// the predefined ones.
    pub fn initial_macros(&self) -> MacroMap {
        let mut macros = MacroMap::new();
        for (name, value) in BUILTIN_DEFINES {
            macros.insert(name.to_string(), Arc::new(MacroDef::object(*value)));
        }
        for (name, value) in &self.defines {
            macros.insert(name.clone(), Arc::new(MacroDef::object(value.clone())));
        }
        macros
    }

    /// Applies the effects of `#include <spelling>` to `macros`; returns
    /// the names defined.
    pub fn apply_include(&self, spelling: &str, macros: &mut MacroMap) -> Vec<String> {
        let mut defined = Vec::new();
        if let Some((_, effects)) = self.includes.iter().find(|(s, _)| s == spelling) {
            for (name, def) in effects.iter() {
                match def {
                    Some(d) => {
                        macros.insert(name.clone(), d.clone());
                        defined.push(name.clone());
                    }
                    None => {
                        macros.remove(name);
                    }
                }
            }
        }
        defined
    }
}

/// The file name of an `#include` line's text (after `include`): the
/// text between the quotes or angle brackets.
pub fn include_spelling(rest: &str) -> Option<&str> {
    let rest = rest.trim();
    let (open, close) = match rest.chars().next()? {
        '"' => ('"', '"'),
        '<' => ('<', '>'),
        _ => return None,
    };
    let inner = rest.strip_prefix(open)?;
    Some(&inner[..inner.find(close)?])
}

/// Macros the reference compiler always defines.
pub const BUILTIN_DEFINES: &[(&str, &str)] =
    &[("__SLANG__", "1"), ("__SLANG_COMPILER__", "1"), ("__HLSL_VERSION", "2018"), ("SLANG_VERSION_MAJOR", "2026")];

/// Where a directive's tokens are in the raw token list.
#[derive(Debug, Clone)]
pub(crate) struct Directive {
    pub kind: SyntaxKind,
    /// Raw token range `[start, end)` of the whole line (from `#`).
    pub start: usize,
    pub end: usize,
    /// Index of the directive-name token (`define`, `if` …), if any.
    pub name_tok: Option<usize>,
    /// For `#define`: the macro name token and the parameter list range.
    pub macro_name: Option<usize>,
    pub params: Option<(usize, usize)>,
    /// First raw token of the condition / body (after name and params).
    pub rest: usize,
}

/// The role of each raw token (one byte per token: directive lines are
/// found in order through `PpResult::directives`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Role {
    Code,
    Directive,
    Disabled,
}

/// One branch of an `#if` group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionalBranch {
    /// From the start of the branch's directive line to the start of the next
    /// directive of the same group.
    pub range: TextRange,
    /// The range of the code of the branch (after its directive line).
    pub body: TextRange,
    pub active: bool,
    /// Nesting depth (0 = outermost).
    pub depth: u32,
}

/// Names of macros the file defines. The parser uses them so that a
/// function-like macro used as a statement without `;` or as a top-level
/// item (`DECLARE_THING(Foo)`) is not a syntax error.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MacroNames {
    pub function_like: HashSet<String>,
    pub object_like: HashSet<String>,
    /// Object-like macros that expand to nothing (`#define EXPORT`): the
    /// parser skips their uses like trivia.
    pub empty: HashSet<String>,
    /// Macros whose body opens more `{` than it closes, and the reverse.
    pub opens_block: HashSet<String>,
    pub closes_block: HashSet<String>,
    /// Macros whose body pastes tokens (`##`): they can make new names.
    pub pasting: HashSet<String>,
    /// Bit `min(len, 63)` set for every name above: a cheap filter before
    /// hashing, since most identifiers are not macros.
    len_mask: u64,
}

fn len_bit(name: &str) -> u64 {
    1u64 << name.len().min(63)
}

impl MacroNames {
    /// Notes a macro's definition.
    fn record(&mut self, n: &str, def: &MacroDef) {
        self.len_mask |= len_bit(n);
        // Macros that open or close a `{` block
        // (`BEGIN_PASS(...)` ... `END_PASS`).
        let lexed = lex(&def.body);
        let balance: i32 = lexed
            .tokens
            .iter()
            .map(|t| match t.kind {
                L_CURLY => 1,
                R_CURLY => -1,
                _ => 0,
            })
            .sum();
        if lexed.tokens.iter().any(|t| t.kind == POUND2) {
            self.pasting.insert(n.to_string());
        }
        if balance > 0 {
            self.opens_block.insert(n.to_string());
        } else if balance < 0 {
            self.closes_block.insert(n.to_string());
        }
        if def.is_function_like() {
            self.function_like.insert(n.to_string());
        } else {
            if def.body.is_empty() {
                self.empty.insert(n.to_string());
            }
            self.object_like.insert(n.to_string());
        }
    }

    pub fn is_function_like(&self, name: &str) -> bool {
        self.len_mask & len_bit(name) != 0 && self.function_like.contains(name)
    }
    pub fn is_object_like(&self, name: &str) -> bool {
        self.len_mask & len_bit(name) != 0 && self.object_like.contains(name)
    }
    pub fn pastes(&self, name: &str) -> bool {
        !self.pasting.is_empty() && self.pasting.contains(name)
    }
    pub fn opens_block(&self, name: &str) -> bool {
        !self.opens_block.is_empty() && self.opens_block.contains(name)
    }
    pub fn closes_block(&self, name: &str) -> bool {
        !self.closes_block.is_empty() && self.closes_block.contains(name)
    }
    pub fn is_empty_macro(&self, name: &str) -> bool {
        self.len_mask & len_bit(name) != 0 && self.empty.contains(name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PpError {
    pub range: TextRange,
    pub message: String,
    /// `#error`/`#warning` lines reached with the given defines are
    /// reported as warnings: they say the build needs other defines, not
    /// that the text is malformed.
    pub is_warning: bool,
}

pub(crate) struct PpResult {
    pub roles: Vec<Role>,
    pub directives: Vec<Directive>,
    pub branches: Vec<ConditionalBranch>,
    pub macros: MacroNames,
    pub errors: Vec<PpError>,
}

struct Frame {
    parent_active: bool,
    any_taken: bool,
    active: bool,
    /// Index into `branches` of the open branch.
    branch: usize,
}

pub(crate) fn process(text: &str, tokens: &[Token], offsets: &[u32], options: &ParseOptions) -> PpResult {
    // Most files have no directive: nothing to do (no `#` token, so no
    // directive line, no branch, no macro).
    if !tokens.iter().any(|t| t.kind == POUND) {
        return PpResult {
            roles: vec![Role::Code; tokens.len()],
            directives: Vec::new(),
            branches: Vec::new(),
            macros: MacroNames::default(),
            errors: Vec::new(),
        };
    }
    let mut macros = options.initial_macros();

    let tok_text = |i: usize| &text[offsets[i] as usize..offsets[i + 1] as usize];
    let mut roles = vec![Role::Code; tokens.len()];
    let mut directives = Vec::new();
    let mut branches: Vec<ConditionalBranch> = Vec::new();
    let mut errors = Vec::new();
    let mut names = MacroNames::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut at_line_start = true;
    let mut i = 0;
    while i < tokens.len() {
        let kind = tokens[i].kind;
        let active = stack.last().is_none_or(|f| f.active);
        if kind == POUND && at_line_start {
            // Find the end of the directive line.
            let start = i;
            let mut end = i + 1;
            while end < tokens.len() {
                if tokens[end].kind == WHITESPACE && has_unescaped_newline(tok_text(end)) {
                    break;
                }
                end += 1;
            }
            let next_sig = |from: usize| (from..end).find(|&j| !tokens[j].kind.is_trivia());
            let name_tok = next_sig(start + 1);
            let name = name_tok.map(&tok_text).unwrap_or("");
            let dkind = match name {
                "define" => PP_DEFINE,
                "undef" => PP_UNDEF,
                "if" => PP_IF,
                "ifdef" => PP_IFDEF,
                "ifndef" => PP_IFNDEF,
                "elif" => PP_ELIF,
                "else" => PP_ELSE,
                "endif" => PP_ENDIF,
                "include" => PP_INCLUDE,
                "pragma" => PP_PRAGMA,
                "line" => PP_LINE,
                "error" => PP_ERROR,
                "warning" => PP_WARNING,
                "version" => PP_VERSION,
                "extension" => PP_EXTENSION,
                "language" | "lang" => PP_LANGUAGE,
                _ => PP_UNKNOWN,
            };
            let after_name = name_tok.map_or(end, |j| j + 1);
            let line_range = TextRange::new(TextSize::new(offsets[start]), TextSize::new(offsets[end]));
            let mut d =
                Directive { kind: dkind, start, end, name_tok, macro_name: None, params: None, rest: after_name };
            match dkind {
                PP_DEFINE | PP_UNDEF | PP_IFDEF | PP_IFNDEF => {
                    if let Some(m) = next_sig(after_name) {
                        if tokens[m].kind == IDENT || tokens[m].kind.is_keyword() {
                            d.macro_name = Some(m);
                            d.rest = m + 1;
                            if dkind == PP_DEFINE && m + 1 < end && tokens[m + 1].kind == L_PAREN {
                                let close = (m + 1..end).find(|&j| tokens[j].kind == R_PAREN).map_or(end, |j| j + 1);
                                d.params = Some((m + 1, close));
                                d.rest = close;
                            }
                        }
                    }
                    if d.macro_name.is_none() && active {
                        errors.push(PpError {
                            range: line_range,
                            message: format!("expected a macro name after #{name}"),
                            is_warning: false,
                        });
                    }
                }
                _ => {}
            }
            let rest_text = if d.rest < end { &text[offsets[d.rest] as usize..offsets[end] as usize] } else { "" };
            let macro_name = d.macro_name.map(|m| tok_text(m).to_string());
            let branch_start = TextSize::new(offsets[start]);
            let body_start = TextSize::new(offsets[end]);
            match dkind {
                PP_DEFINE if active => {
                    let line = &text[offsets[start] as usize..offsets[end] as usize];
                    if let Some(DefineLine::Define(n, def)) = macros::parse_define_line(line) {
                        names.record(&n, &def);
                        macros.insert(n, Arc::new(def));
                    }
                }
                PP_UNDEF if active => {
                    if let Some(n) = macro_name {
                        macros.remove(&n);
                    }
                }
                PP_INCLUDE if active => {
                    if let Some(spelling) = include_spelling(rest_text) {
                        for n in options.apply_include(spelling, &mut macros) {
                            if let Some(def) = macros.get(&n).cloned() {
                                names.record(&n, &def);
                            }
                        }
                    }
                }
                PP_IF | PP_IFDEF | PP_IFNDEF => {
                    let taken = active
                        && match dkind {
                            PP_IF => eval_condition(rest_text, &macros, &mut errors, line_range),
                            PP_IFDEF => macro_name.as_ref().is_some_and(|n| macros.contains_key(n)),
                            _ => macro_name.as_ref().is_some_and(|n| !macros.contains_key(n)),
                        };
                    branches.push(ConditionalBranch {
                        range: TextRange::empty(branch_start),
                        body: TextRange::empty(body_start),
                        active: taken,
                        depth: stack.len() as u32,
                    });
                    stack.push(Frame {
                        parent_active: active,
                        any_taken: taken,
                        active: taken,
                        branch: branches.len() - 1,
                    });
                }
                PP_ELIF | PP_ELSE => {
                    let depth = stack.len().saturating_sub(1) as u32;
                    match stack.last_mut() {
                        Some(frame) => {
                            let taken = frame.parent_active
                                && !frame.any_taken
                                && (dkind == PP_ELSE || eval_condition(rest_text, &macros, &mut errors, line_range));
                            close_branch(&mut branches[frame.branch], branch_start);
                            frame.any_taken |= taken;
                            frame.active = taken;
                            branches.push(ConditionalBranch {
                                range: TextRange::empty(branch_start),
                                body: TextRange::empty(body_start),
                                active: taken,
                                depth,
                            });
                            frame.branch = branches.len() - 1;
                        }
                        None => errors.push(PpError {
                            range: line_range,
                            message: format!("#{name} without matching #if"),
                            is_warning: false,
                        }),
                    }
                }
                PP_ENDIF => match stack.pop() {
                    Some(frame) => close_branch(&mut branches[frame.branch], branch_start),
                    None => errors.push(PpError {
                        range: line_range,
                        message: "#endif without matching #if".into(),
                        is_warning: false,
                    }),
                },
                PP_ERROR | PP_WARNING if active => {
                    errors.push(PpError {
                        range: line_range,
                        message: format!("#{name} {}", rest_text.trim()),
                        is_warning: true,
                    });
                }
                PP_UNKNOWN if active && name_tok.is_some() && !name.chars().all(|c| c.is_ascii_digit()) => {
                    errors.push(PpError {
                        range: line_range,
                        message: format!("unknown preprocessor directive `#{name}`"),
                        is_warning: false,
                    });
                }
                _ => {}
            }
            for r in &mut roles[start..end] {
                *r = Role::Directive;
            }
            directives.push(d);
            i = end;
            continue;
        }
        if !active {
            roles[i] = Role::Disabled;
        }
        match kind {
            WHITESPACE => {
                if has_unescaped_newline(tok_text(i)) {
                    at_line_start = true;
                }
            }
            COMMENT => {}
            _ => at_line_start = false,
        }
        i += 1;
    }
    let eof = TextSize::new(*offsets.last().unwrap_or(&0));
    while let Some(frame) = stack.pop() {
        let b = &mut branches[frame.branch];
        close_branch(b, eof);
        // At the end of the text, where the reference compiler reports it.
        errors.push(PpError {
            range: TextRange::empty(eof),
            message: "unterminated conditional directive (missing #endif)".into(),
            is_warning: false,
        });
    }
    PpResult { roles, directives, branches, macros: names, errors }
}

fn close_branch(b: &mut ConditionalBranch, end: TextSize) {
    b.range = TextRange::new(b.range.start(), end.max(b.range.start()));
    b.body = TextRange::new(b.body.start().min(end), end);
}

fn has_unescaped_newline(ws: &str) -> bool {
    let bytes = ws.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
            let escaped = match i {
                0 => false,
                _ if b == b'\n' && bytes[i - 1] == b'\r' => i >= 2 && bytes[i - 2] == b'\\',
                _ => bytes[i - 1] == b'\\',
            };
            if !escaped {
                return true;
            }
        }
    }
    false
}

// ---------------------------------------------------------------------------
// `#if` expression evaluation.

/// `defined X` and `defined(X)` replaced by `1` or `0`.
fn replace_defined(text: &str, macros: &MacroMap) -> String {
    if !text.contains("defined") {
        return text.to_string();
    }
    let toks = macros::tokens(text);
    let next = |from: usize| (from..toks.len()).find(|&x| !macros::is_trivia(toks[x].kind));
    let mut out = String::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i].text == "defined" {
            let mut j = next(i + 1);
            let paren = j.is_some_and(|j| toks[j].text == "(");
            if paren {
                j = j.and_then(|j| next(j + 1));
            }
            if let Some(n) = j.filter(|&n| toks[n].kind == IDENT || toks[n].kind.is_keyword()) {
                let mut end = n + 1;
                if paren {
                    match next(n + 1).filter(|&c| toks[c].text == ")") {
                        Some(c) => end = c + 1,
                        None => {
                            out.push_str(&toks[i].text);
                            i += 1;
                            continue;
                        }
                    }
                }
                out.push_str(if macros.contains_key(&toks[n].text) { " 1 " } else { " 0 " });
                i = end;
                continue;
            }
        }
        out.push_str(&toks[i].text);
        i += 1;
    }
    out
}

fn eval_condition(text: &str, macros: &MacroMap, errors: &mut Vec<PpError>, range: TextRange) -> bool {
    // `defined X` first (its operand is not expanded), then the macros
    // (function-like ones too), then `defined` met in expansions.
    let text = replace_defined(text, macros);
    let text = replace_defined(&macros::expand_text(&text, macros), macros);
    let mut toks = Vec::new();
    if let Err(msg) = expand_into(&text, macros, &mut toks, 0) {
        errors.push(PpError { range, message: msg, is_warning: false });
        return false;
    }
    let mut ev = Eval { toks: &toks, pos: 0 };
    match ev.ternary() {
        Ok(v) if ev.pos == toks.len() => v != 0,
        Ok(_) => {
            errors.push(PpError {
                range,
                message: "unexpected tokens at the end of the #if condition".into(),
                is_warning: false,
            });
            false
        }
        Err(msg) => {
            errors.push(PpError { range, message: msg, is_warning: false });
            false
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum PpTok {
    Num(i64),
    Op(String),
}

/// Lexes `text` and expands object-like macros and `defined`, producing a
/// flat list of numbers and operators.
fn expand_into(text: &str, macros: &MacroMap, out: &mut Vec<PpTok>, depth: u32) -> Result<(), String> {
    if depth > 64 {
        return Err("macro expansion too deep in #if condition".into());
    }
    let lexed = lex(text);
    let mut words: Vec<(SyntaxKind, &str)> = Vec::new();
    let mut pos = 0usize;
    for t in &lexed.tokens {
        let s = &text[pos..pos + t.len as usize];
        pos += t.len as usize;
        if !t.kind.is_trivia() {
            words.push((t.kind, s));
        }
    }
    let mut i = 0;
    while i < words.len() {
        let (kind, s) = words[i];
        i += 1;
        match kind {
            INT_NUMBER => {
                let digits: String = s.chars().filter(|&c| c != '_').collect();
                let trimmed = digits.trim_end_matches(['u', 'U', 'l', 'L']);
                let v = if let Some(h) = trimmed.strip_prefix("0x").or_else(|| trimmed.strip_prefix("0X")) {
                    i64::from_str_radix(h, 16)
                } else if let Some(b) = trimmed.strip_prefix("0b").or_else(|| trimmed.strip_prefix("0B")) {
                    i64::from_str_radix(b, 2)
                } else if trimmed.len() > 1 && trimmed.starts_with('0') {
                    i64::from_str_radix(&trimmed[1..], 8)
                } else {
                    trimmed.parse::<i64>()
                };
                out.push(PpTok::Num(v.map_err(|_| format!("invalid integer `{s}` in #if condition"))?));
            }
            FLOAT_NUMBER => return Err(format!("floating-point literal `{s}` in #if condition")),
            CHAR => {
                let inner = s.trim_matches('\'');
                out.push(PpTok::Num(inner.chars().next().map_or(0, |c| c as i64)));
            }
            TRUE_KW => out.push(PpTok::Num(1)),
            FALSE_KW => out.push(PpTok::Num(0)),
            _ if s == "defined" => {
                let paren = words.get(i).is_some_and(|w| w.0 == L_PAREN);
                if paren {
                    i += 1;
                }
                let name = words.get(i).map(|w| w.1).ok_or("expected a macro name after `defined`")?;
                i += 1;
                if paren {
                    if words.get(i).map(|w| w.0) != Some(R_PAREN) {
                        return Err("expected `)` after `defined(NAME`".into());
                    }
                    i += 1;
                }
                out.push(PpTok::Num(macros.contains_key(name) as i64));
            }
            IDENT => match macros.get(s) {
                // (Left after expansion: a macro inside its own expansion.)
                Some(def) if !def.is_function_like() => out.push(PpTok::Num(0)),
                Some(_) => {
                    // A function-like macro call inside #if: not expanded; skip
                    // its arguments and count it as 0.
                    if words.get(i).is_some_and(|w| w.0 == L_PAREN) {
                        let mut level = 0;
                        while i < words.len() {
                            match words[i].0 {
                                L_PAREN => level += 1,
                                R_PAREN => {
                                    level -= 1;
                                    if level == 0 {
                                        i += 1;
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            i += 1;
                        }
                    }
                    out.push(PpTok::Num(0));
                }
                None => out.push(PpTok::Num(0)),
            },
            _ if kind.is_keyword() => out.push(PpTok::Num(0)),
            _ => out.push(PpTok::Op(s.to_string())),
        }
    }
    Ok(())
}

struct Eval<'a> {
    toks: &'a [PpTok],
    pos: usize,
}

impl Eval<'_> {
    fn peek_op(&self) -> Option<&str> {
        match self.toks.get(self.pos) {
            Some(PpTok::Op(s)) => Some(s.as_str()),
            _ => None,
        }
    }

    /// `>` is lexed alone; glue `>=`, `>>` back together here.
    fn take_op(&mut self, ops: &[&str]) -> Option<&'static str> {
        let first = self.peek_op()?;
        let second = match self.toks.get(self.pos + 1) {
            Some(PpTok::Op(s)) => Some(s.as_str()),
            _ => None,
        };
        let glued: Option<&'static str> = match (first, second) {
            (">", Some("=")) => Some(">="),
            (">", Some(">")) => Some(">>"),
            _ => None,
        };
        if let Some(g) = glued {
            if ops.contains(&g) {
                self.pos += 2;
                return Some(g);
            }
        }
        for op in ops {
            if *op == first && glued.is_none_or(|g| !g.starts_with(op) || g == *op) {
                self.pos += 1;
                return Some(static_op(op));
            }
        }
        None
    }

    fn ternary(&mut self) -> Result<i64, String> {
        let c = self.binary(0)?;
        if self.take_op(&["?"]).is_some() {
            let a = self.ternary()?;
            if self.take_op(&[":"]).is_none() {
                return Err("expected `:` in #if condition".into());
            }
            let b = self.ternary()?;
            return Ok(if c != 0 { a } else { b });
        }
        Ok(c)
    }

    fn binary(&mut self, level: usize) -> Result<i64, String> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<", ">", "<=", ">="],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        while let Some(op) = self.take_op(LEVELS[level]) {
            let rhs = self.binary(level + 1)?;
            lhs = match op {
                "||" => ((lhs != 0) || (rhs != 0)) as i64,
                "&&" => ((lhs != 0) && (rhs != 0)) as i64,
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => (lhs == rhs) as i64,
                "!=" => (lhs != rhs) as i64,
                "<" => (lhs < rhs) as i64,
                ">" => (lhs > rhs) as i64,
                "<=" => (lhs <= rhs) as i64,
                ">=" => (lhs >= rhs) as i64,
                "<<" => lhs.wrapping_shl(rhs as u32),
                ">>" => lhs.wrapping_shr(rhs as u32),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" | "%" if rhs == 0 => return Err("division by zero in #if condition".into()),
                "/" => lhs.wrapping_div(rhs),
                _ => lhs.wrapping_rem(rhs),
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<i64, String> {
        if let Some(op) = self.take_op(&["!", "-", "+", "~", "("]) {
            return match op {
                "!" => Ok((self.unary()? == 0) as i64),
                "-" => Ok(self.unary()?.wrapping_neg()),
                "+" => self.unary(),
                "~" => Ok(!self.unary()?),
                _ => {
                    let v = self.ternary()?;
                    if self.take_op(&[")"]).is_none() {
                        return Err("expected `)` in #if condition".into());
                    }
                    Ok(v)
                }
            };
        }
        match self.toks.get(self.pos) {
            Some(PpTok::Num(v)) => {
                self.pos += 1;
                Ok(*v)
            }
            Some(PpTok::Op(s)) => Err(format!("unexpected `{s}` in #if condition")),
            None => Err("expected an expression in #if condition".into()),
        }
    }
}

fn static_op(op: &str) -> &'static str {
    const ALL: &[&str] = &[
        "||", "&&", "|", "^", "&", "==", "!=", "<", ">", "<=", ">=", "<<", ">>", "+", "-", "*", "/", "%", "!", "~",
        "(", ")", "?", ":",
    ];
    ALL.iter().find(|o| **o == op).copied().unwrap_or("?")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(cond: &str, defs: &[(&str, &str)]) -> bool {
        let mut macros = MacroMap::new();
        for (n, v) in defs {
            match macros::parse_define_line(&format!("#define {n}{v}")) {
                Some(DefineLine::Define(n, d)) => macros.insert(n, Arc::new(d)),
                _ => panic!("bad test define {n}"),
            };
        }
        let mut errors = Vec::new();
        let r = eval_condition(cond, &macros, &mut errors, TextRange::default());
        assert!(errors.is_empty(), "{errors:?}");
        r
    }

    #[test]
    fn conditions() {
        assert!(eval("1", &[]));
        assert!(!eval("0", &[]));
        assert!(!eval("UNKNOWN", &[]));
        assert!(eval("defined(A) && !defined B", &[("A", "")]));
        assert!(eval("A >= 2 && A << 1 == 4", &[("A", " 2")]));
        assert!(eval("A > 1 ? B : 0", &[("A", " 2"), ("B", " C"), ("C", " 7")]));
        // Function-like macros, `defined` in an expansion, recursion.
        assert!(eval("HAS(2) && !HAS(1)", &[("HAS(t)", " ((MASK >> (t)) & 1)"), ("MASK", " 4")]));
        assert!(eval("IS_DEF", &[("IS_DEF", " defined(MASK)"), ("MASK", " 1")]));
        assert!(!eval("X", &[("X", " X")]));
        assert!(eval("(1 + 2) * 3 == 9 && 10 / 3 == 3 && -1 < 0", &[]));
        assert!(eval("0x10 == 16 && 0b11 == 3 && 1u", &[]));
    }
}
