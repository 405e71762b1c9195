//! The C preprocessor's macros: reading `#define`/`#undef` lines and
//! expanding uses. One engine serves `#if` conditions (in
//! [`crate::preprocessor`]) and the expanded text the semantic model and
//! code generation read ([`crate::macro_expand`]).
//!
//! Expansion follows the C preprocessor: object-like and function-like
//! macros, variadic ones (`...` with `__VA_ARGS__`, `name...`,
//! `__VA_OPT__(…)`, `, ## __VA_ARGS__`), arguments expanded before
//! substitution except next to `#` and `##`, and rescanning with a macro
//! not expanded inside its own expansion.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::lexer::lex;
use crate::SyntaxKind;

/// A macro's definition.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MacroDef {
    /// `None` for an object-like macro.
    pub params: Option<Vec<String>>,
    /// The last parameter takes the remaining arguments (`...`, named
    /// `__VA_ARGS__`, or `name...`).
    pub variadic: bool,
    /// The replacement text, comments replaced by spaces, on one line.
    pub body: String,
}

impl MacroDef {
    pub fn object(body: impl Into<String>) -> MacroDef {
        MacroDef { params: None, variadic: false, body: body.into() }
    }
    pub fn is_function_like(&self) -> bool {
        self.params.is_some()
    }
}

/// The macros defined at some point: name → definition.
pub type MacroMap = HashMap<String, Arc<MacroDef>>;

/// What a `#define` or `#undef` line does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefineLine {
    Define(String, MacroDef),
    Undef(String),
}

/// Reads a whole `#define`/`#undef` directive line (with its `\`
/// continuations); `None` for other lines or malformed ones.
pub fn parse_define_line(directive: &str) -> Option<DefineLine> {
    let joined = directive.replace("\\\r\n", " ").replace("\\\n", " ");
    let rest = joined.trim_start().strip_prefix('#')?.trim_start();
    if let Some(rest) = rest.strip_prefix("undef") {
        let name = rest.trim();
        let len = name.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(name.len());
        return (len > 0).then(|| DefineLine::Undef(name[..len].to_string()));
    }
    let rest = rest.strip_prefix("define")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let name_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    if name_len == 0 {
        return None;
    }
    let name = rest[..name_len].to_string();
    let after = &rest[name_len..];
    let (params, variadic, body) = match after.strip_prefix('(') {
        // `NAME(` with no space: function-like.
        Some(p) => {
            let close = p.find(')')?;
            let mut variadic = false;
            let mut params: Vec<String> = Vec::new();
            for s in p[..close].split(',').map(str::trim).filter(|s| !s.is_empty()) {
                if s == "..." {
                    variadic = true;
                    params.push("__VA_ARGS__".into());
                } else if let Some(n) = s.strip_suffix("...") {
                    variadic = true;
                    params.push(n.trim().to_string());
                } else {
                    params.push(s.to_string());
                }
            }
            (Some(params), variadic, &p[close + 1..])
        }
        None => (None, false, after),
    };
    let body: String = tokens(body.trim())
        .into_iter()
        .map(|t| if t.kind == SyntaxKind::COMMENT { " ".to_string() } else { t.text.replace(['\n', '\r'], " ") })
        .collect::<String>()
        .trim()
        .to_string();
    Some(DefineLine::Define(name, MacroDef { params, variadic, body }))
}

/// One lexed token of a fragment: its kind, text and offset in the
/// fragment.
#[derive(Debug, Clone)]
pub(crate) struct Tok {
    pub kind: SyntaxKind,
    pub text: String,
    pub offset: usize,
}

pub(crate) fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut at = 0usize;
    for t in lex(text).tokens {
        let len = t.len as usize;
        out.push(Tok { kind: t.kind, text: text[at..at + len].to_string(), offset: at });
        at += len;
    }
    out
}

pub(crate) fn is_trivia(kind: SyntaxKind) -> bool {
    matches!(kind, SyntaxKind::WHITESPACE | SyntaxKind::COMMENT)
}

/// Whether a token can name a macro (keywords can be `#define`d too).
fn is_name(t: &Tok) -> bool {
    t.kind == SyntaxKind::IDENT
        || (t.kind.is_keyword() && t.text.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_'))
}

/// The expansion of a whole fragment.
pub fn expand_text(text: &str, macros: &MacroMap) -> String {
    expand(&tokens(text), macros, &HashSet::new(), 0)
}

/// A use of a macro found at `toks[i]`: its expansion and the index just
/// past it, or `None` when `toks[i]` does not start a use.
pub(crate) struct Use {
    pub expansion: String,
    pub end: usize,
    /// Newlines inside the use (between the name and the closing `)`).
    pub newlines: usize,
    /// The token ranges (in `toks`) of each argument.
    pub args: Vec<(usize, usize)>,
}

pub(crate) fn expand_use(toks: &[Tok], i: usize, macros: &MacroMap, hide: &HashSet<String>, depth: u32) -> Option<Use> {
    let t = &toks[i];
    if !is_name(t) || depth >= 64 || hide.contains(&t.text) {
        return None;
    }
    let m = macros.get(&t.text)?;
    let mut inner_hide = hide.clone();
    inner_hide.insert(t.text.clone());
    let Some(params) = &m.params else {
        return Some(Use {
            expansion: expand(&tokens(&m.body), macros, &inner_hide, depth + 1),
            end: i + 1,
            newlines: 0,
            args: Vec::new(),
        });
    };
    // The arguments: after `(`, split at top-level commas.
    let mut j = i + 1;
    while j < toks.len() && is_trivia(toks[j].kind) {
        j += 1;
    }
    if j >= toks.len() || toks[j].text != "(" {
        // A function-like macro's name alone is not a use.
        return None;
    }
    let mut args: Vec<(usize, usize)> = vec![(j + 1, j + 1)];
    let mut level = 0;
    let mut k = j + 1;
    let mut newlines = toks[i + 1..j].iter().map(|t| t.text.matches('\n').count()).sum::<usize>();
    while k < toks.len() {
        let a = &toks[k];
        newlines += a.text.matches('\n').count();
        match a.text.as_str() {
            "(" | "[" | "{" => level += 1,
            ")" | "]" | "}" if level > 0 => level -= 1,
            ")" => break,
            "," if level == 0 && !(m.variadic && args.len() >= params.len()) => {
                args.last_mut().expect("one argument at least").1 = k;
                args.push((k + 1, k + 1));
                k += 1;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    if k >= toks.len() {
        // No closing parenthesis: left as written.
        return None;
    }
    args.last_mut().expect("one argument at least").1 = k;
    if params.is_empty() && args.len() == 1 && toks[args[0].0..args[0].1].iter().all(|a| is_trivia(a.kind)) {
        args.clear();
    }
    let text_of = |(s, e): (usize, usize)| -> String {
        toks[s..e].iter().map(|t| t.text.as_str()).collect::<String>().trim().replace(['\n', '\r'], " ")
    };
    let raw: Vec<String> = args.iter().map(|&a| text_of(a)).collect();
    let expanded: Vec<String> = args
        .iter()
        .map(|&(s, e)| expand(&toks[s..e], macros, hide, depth + 1).trim().replace(['\n', '\r'], " "))
        .collect();
    let body = substitute(&m.body, params, m.variadic, &raw, &expanded);
    Some(Use { expansion: expand(&tokens(&body), macros, &inner_hide, depth + 1), end: k + 1, newlines, args })
}

/// The expansion of a token list: macro uses replaced, `hide` not expanded.
pub(crate) fn expand(toks: &[Tok], macros: &MacroMap, hide: &HashSet<String>, depth: u32) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i].text == "defined" {
            // `defined X` / `defined(X)` (an `#if` condition): `X` is not
            // expanded.
            let mut j = i + 1;
            let mut seen_name = false;
            while j < toks.len() && !seen_name {
                let t = &toks[j];
                if is_name(t) {
                    seen_name = true;
                } else if !(is_trivia(t.kind) || t.text == "(") {
                    break;
                }
                j += 1;
            }
            for t in &toks[i..j] {
                out.push_str(&t.text);
            }
            i = j;
            continue;
        }
        match expand_use(toks, i, macros, hide, depth) {
            Some(u) => {
                out.push_str(&u.expansion);
                out.push_str(&"\n".repeat(u.newlines));
                i = u.end;
            }
            None => {
                out.push_str(&toks[i].text);
                i += 1;
            }
        }
    }
    out
}

/// A function-like macro's body with its parameters replaced: by the
/// expanded argument, by the argument as a string after `#`, by the
/// argument as written next to `##` (which then pastes).
fn substitute(body: &str, params: &[String], variadic: bool, raw: &[String], expanded: &[String]) -> String {
    let toks = tokens(body);
    let param = |text: &str| params.iter().position(|p| p == text);
    let arg = |k: usize, list: &[String]| list.get(k).cloned().unwrap_or_default();
    let va_empty = variadic && arg(params.len().saturating_sub(1), raw).is_empty();
    let next_real = |from: usize| (from..toks.len()).find(|&x| !is_trivia(toks[x].kind));
    let prev_real = |before: usize| (0..before).rev().find(|&x| !is_trivia(toks[x].kind));
    let mut out = String::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if variadic && t.text == "__VA_OPT__" {
            // `__VA_OPT__(x)`: `x` when the variadic arguments are not empty.
            if let Some(open) = next_real(i + 1).filter(|&o| toks[o].text == "(") {
                let mut level = 0;
                let mut close = open;
                for (x, tk) in toks.iter().enumerate().skip(open) {
                    match tk.text.as_str() {
                        "(" => level += 1,
                        ")" => {
                            level -= 1;
                            if level == 0 {
                                close = x;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if !va_empty {
                    let inner: String = toks[open + 1..close].iter().map(|t| t.text.as_str()).collect();
                    out.push_str(&substitute(&inner, params, variadic, raw, expanded));
                }
                i = close + 1;
                continue;
            }
        }
        if t.text == "#" {
            if let Some(n) = next_real(i + 1) {
                if let Some(k) = param(&toks[n].text) {
                    out.push('"');
                    out.push_str(&arg(k, raw).replace('\\', "\\\\").replace('"', "\\\""));
                    out.push('"');
                    i = n + 1;
                    continue;
                }
            }
        }
        if t.text == "##" {
            // Paste: drop the whitespace around.
            while out.ends_with([' ', '\t']) {
                out.pop();
            }
            i = next_real(i + 1).unwrap_or(toks.len());
            if i < toks.len() {
                match param(&toks[i].text) {
                    Some(k) => {
                        let a = arg(k, raw);
                        // `, ## __VA_ARGS__` with no variadic arguments
                        // drops the comma.
                        if a.is_empty() && variadic && k + 1 == params.len() && out.ends_with(',') {
                            out.pop();
                        }
                        out.push_str(&a)
                    }
                    None => out.push_str(&toks[i].text),
                }
                i += 1;
            }
            continue;
        }
        match param(&t.text) {
            Some(k) => {
                let pasted = next_real(i + 1).is_some_and(|n| toks[n].text == "##")
                    || prev_real(i).is_some_and(|p| toks[p].text == "##");
                out.push_str(&arg(k, if pasted { raw } else { expanded }));
            }
            None => out.push_str(&t.text),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(lines: &[&str]) -> MacroMap {
        let mut m = MacroMap::new();
        for l in lines {
            if let Some(DefineLine::Define(n, d)) = parse_define_line(l) {
                m.insert(n, Arc::new(d));
            }
        }
        m
    }

    #[test]
    fn variadic_macros() {
        let m = map(&[
            "#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)",
            "#define LOG2(fmt, ...) printf(fmt, ## __VA_ARGS__)",
            "#define LOG3(fmt, args...) f(fmt __VA_OPT__(,) args)",
        ]);
        assert_eq!(expand_text("LOG(\"%d %d\", a, b)", &m), "printf(\"%d %d\", a, b)");
        assert_eq!(expand_text("LOG2(\"x\")", &m), "printf(\"x\")");
        assert_eq!(expand_text("LOG3(s, 1, 2)", &m), "f(s , 1, 2)");
        assert_eq!(expand_text("LOG3(s)", &m), "f(s  )");
    }

    #[test]
    fn define_lines() {
        assert_eq!(parse_define_line("#undef  X  "), Some(DefineLine::Undef("X".into())));
        assert_eq!(
            parse_define_line("#define F(a, b) a /* c */ + \\\n b"),
            Some(DefineLine::Define(
                "F".into(),
                MacroDef { params: Some(vec!["a".into(), "b".into()]), variadic: false, body: "a   +   b".into() }
            ))
        );
        assert_eq!(parse_define_line("#define G (x)"), Some(DefineLine::Define("G".into(), MacroDef::object("(x)"))));
        assert_eq!(parse_define_line("#include \"a\""), None);
    }
}
