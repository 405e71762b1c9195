//! Textual macro expansion, for code generation.
//!
//! The syntax tree keeps macro uses as written (the editor shows and edits
//! source, not expansions), and the semantic model reads through the
//! common cases. Code generation needs the program the preprocessor makes:
//! [`expand_macros`] replaces the uses of the file's `#define`d macros (and
//! of those given with `-D`) in active code by their expansions, the C
//! preprocessor's way — object-like and function-like macros, arguments
//! expanded before substitution, `#` and `##`, rescanning with a macro
//! not expanded inside its own expansion. Directive lines stay as they
//! are (the parser still evaluates `#if` with them), and every line keeps
//! its number: an expansion takes no more lines than its use did.

use std::collections::{HashMap, HashSet};

use crate::lexer::lex;
use crate::preprocessor::{ParseOptions, BUILTIN_DEFINES};
use crate::SyntaxKind;

#[derive(Debug, Clone)]
struct Macro {
    /// `None` for an object-like macro.
    params: Option<Vec<String>>,
    body: String,
}

/// One lexed token of a fragment: its kind and text.
#[derive(Debug, Clone)]
struct Tok {
    kind: SyntaxKind,
    text: String,
}

fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut at = 0usize;
    for t in lex(text).tokens {
        let len = t.len as usize;
        out.push(Tok { kind: t.kind, text: text[at..at + len].to_string() });
        at += len;
    }
    out
}

fn is_trivia(kind: SyntaxKind) -> bool {
    matches!(kind, SyntaxKind::WHITESPACE | SyntaxKind::COMMENT)
}

/// The text of `text` with macro uses expanded (see the module's
/// documentation), or `None` when nothing was expanded.
pub fn expand_macros(text: &str, options: &ParseOptions) -> Option<String> {
    expand_macros_in(text, &crate::parse_with(text, options), options)
}

/// [`expand_macros`] given the file's parse (with the same options).
pub fn expand_macros_in(text: &str, parse: &crate::Parse, options: &ParseOptions) -> Option<String> {
    let names = parse.macros();
    if names.function_like.is_empty() && names.object_like.is_empty() && options.defines.is_empty() {
        return None;
    }
    let mut macros: HashMap<String, Macro> = HashMap::new();
    for (name, value) in
        BUILTIN_DEFINES.iter().map(|(n, v)| (n.to_string(), v.to_string())).chain(options.defines.clone())
    {
        macros.insert(name, Macro { params: None, body: value });
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    // Line by line: directive lines (with their continuations) update the
    // macros; runs of other lines are expanded together (a call's
    // arguments may span lines).
    let mut code = String::new();
    let mut code_start = 0usize;
    let mut offset = 0usize;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim_start().starts_with('#') {
            let mut directive = line.to_string();
            let mut end = i;
            while directive.trim_end_matches(['\n', '\r']).ends_with('\\') && end + 1 < lines.len() {
                end += 1;
                directive.push_str(lines[end]);
            }
            flush(&mut out, &mut code, code_start, &macros, parse, &mut changed);
            if parse.is_active(crate::TextSize::from(offset as u32)) {
                define(&directive, &mut macros);
            }
            out.push_str(&directive);
            for l in &lines[i..=end] {
                offset += l.len();
            }
            i = end + 1;
            code_start = offset;
            continue;
        }
        code.push_str(line);
        offset += line.len();
        i += 1;
    }
    flush(&mut out, &mut code, code_start, &macros, parse, &mut changed);
    changed.then_some(out)
}

/// Expand the code collected so far (starting at `start` in the file) into
/// `out`, unless it is inactive.
fn flush(
    out: &mut String,
    code: &mut String,
    start: usize,
    macros: &HashMap<String, Macro>,
    parse: &crate::Parse,
    changed: &mut bool,
) {
    if code.is_empty() {
        return;
    }
    if macros.is_empty() || !parse.is_active(crate::TextSize::from(start as u32)) {
        out.push_str(code);
    } else {
        let expanded = expand(&tokens(code), macros, &HashSet::new(), 0);
        if expanded != *code {
            *changed = true;
        }
        out.push_str(&expanded);
    }
    code.clear();
}

/// `#define` / `#undef` lines change the macros.
fn define(directive: &str, macros: &mut HashMap<String, Macro>) {
    let joined = directive.replace("\\\r\n", " ").replace("\\\n", " ");
    let rest = joined.trim_start().trim_start_matches('#').trim_start();
    if let Some(rest) = rest.strip_prefix("undef") {
        macros.remove(rest.trim());
        return;
    }
    let Some(rest) = rest.strip_prefix("define") else { return };
    if !rest.starts_with([' ', '\t']) {
        return;
    }
    let rest = rest.trim_start();
    let name_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    if name_len == 0 {
        return;
    }
    let name = rest[..name_len].to_string();
    let after = &rest[name_len..];
    let (params, body) = match after.strip_prefix('(') {
        // `NAME(` with no space: function-like.
        Some(p) => {
            let Some(close) = p.find(')') else { return };
            let params = p[..close].split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
            (Some(params), &p[close + 1..])
        }
        None => (None, after),
    };
    // (Comments in the body are whitespace.)
    let body: String = tokens(body.trim())
        .into_iter()
        .map(|t| if t.kind == SyntaxKind::COMMENT { " ".to_string() } else { t.text })
        .collect::<String>()
        .trim()
        .to_string();
    macros.insert(name, Macro { params, body });
}

/// The expansion of a token list: macro uses replaced, `hide` not expanded.
fn expand(toks: &[Tok], macros: &HashMap<String, Macro>, hide: &HashSet<String>, depth: u32) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let m = (t.kind == SyntaxKind::IDENT)
            .then(|| macros.get(&t.text))
            .flatten()
            .filter(|_| !hide.contains(&t.text) && depth < 64);
        let Some(m) = m else {
            out.push_str(&t.text);
            i += 1;
            continue;
        };
        let mut inner_hide = hide.clone();
        inner_hide.insert(t.text.clone());
        match &m.params {
            None => {
                out.push_str(&expand(&tokens(&m.body), macros, &inner_hide, depth + 1));
                i += 1;
            }
            Some(params) => {
                // The arguments: after `(`, split at top-level commas.
                let mut j = i + 1;
                while j < toks.len() && is_trivia(toks[j].kind) {
                    j += 1;
                }
                if j >= toks.len() || toks[j].text != "(" {
                    // A function-like macro's name alone is not a use.
                    out.push_str(&t.text);
                    i += 1;
                    continue;
                }
                let mut args: Vec<Vec<Tok>> = vec![Vec::new()];
                let mut level = 0;
                let mut k = j + 1;
                let mut newlines = 0;
                while k < toks.len() {
                    let a = &toks[k];
                    newlines += a.text.matches('\n').count();
                    match a.text.as_str() {
                        "(" | "[" | "{" => level += 1,
                        ")" | "]" | "}" if level > 0 => level -= 1,
                        ")" => break,
                        "," if level == 0 => {
                            args.push(Vec::new());
                            k += 1;
                            continue;
                        }
                        _ => {}
                    }
                    args.last_mut().expect("one argument at least").push(a.clone());
                    k += 1;
                }
                if k >= toks.len() {
                    // No closing parenthesis: left as written.
                    out.push_str(&t.text);
                    i += 1;
                    continue;
                }
                if params.is_empty() && args.len() == 1 && args[0].iter().all(|a| is_trivia(a.kind)) {
                    args.clear();
                }
                let raw: Vec<String> = args
                    .iter()
                    .map(|a| a.iter().map(|t| t.text.as_str()).collect::<String>().trim().replace('\n', " "))
                    .collect();
                let expanded: Vec<String> =
                    args.iter().map(|a| expand(a, macros, hide, depth + 1).trim().replace('\n', " ")).collect();
                let body = substitute(&m.body, params, &raw, &expanded);
                out.push_str(&expand(&tokens(&body), macros, &inner_hide, depth + 1));
                // The lines the use took, kept.
                out.push_str(&"\n".repeat(newlines));
                i = k + 1;
            }
        }
    }
    out
}

/// A function-like macro's body with its parameters replaced: by the
/// expanded argument, by the argument as a string after `#`, by the
/// argument as written next to `##` (which then pastes).
fn substitute(body: &str, params: &[String], raw: &[String], expanded: &[String]) -> String {
    let toks = tokens(body);
    let param = |text: &str| params.iter().position(|p| p == text);
    let arg = |k: usize, list: &[String]| list.get(k).cloned().unwrap_or_default();
    let next_real = |from: usize| (from..toks.len()).find(|&x| !is_trivia(toks[x].kind));
    let prev_real = |before: usize| (0..before).rev().find(|&x| !is_trivia(toks[x].kind));
    let mut out = String::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
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
                    Some(k) => out.push_str(&arg(k, raw)),
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

    fn expand_text(text: &str) -> String {
        expand_macros(text, &ParseOptions::default()).unwrap_or_else(|| text.to_string())
    }

    #[test]
    fn object_and_function_like() {
        let text = "#define K 3.0\n#define SQ(x) ((x)*(x))\nfloat g(float x) { return SQ(x + K) * K; }\n";
        assert_eq!(
            expand_text(text),
            "#define K 3.0\n#define SQ(x) ((x)*(x))\nfloat g(float x) { return ((x + 3.0)*(x + 3.0)) * 3.0; }\n"
        );
    }

    #[test]
    fn nested_recursive_and_multiline() {
        let text =
            "#define A B + 1\n#define B A * 2\n#define F(a, b) a - \\\n  b\nint x = A;\nint y = F(1,\n 2);\nint z;\n";
        let out = expand_text(text);
        // `A` inside its own expansion stays; lines keep their numbers.
        assert!(out.contains("int x = A * 2 + 1;"), "{out}");
        let spaced: String = out.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
        assert!(spaced.contains("int y = 1 - 2\n;\nint z;"), "{out}");
        assert_eq!(out.lines().count(), text.lines().count());
    }

    #[test]
    fn stringify_paste_undef_and_inactive() {
        let text = "#define CAT(a, b) a##b\n#define STR(a) #a\nint CAT(my, Var) = 1;\nstring s = STR(x + 1);\n#undef CAT\nint CAT(a, b);\n#if 0\n#define Q 1\nint q = Q;\n#endif\nint r = Q;\n";
        let out = expand_text(text);
        assert!(out.contains("int myVar = 1;"), "{out}");
        assert!(out.contains("string s = \"x + 1\";"), "{out}");
        assert!(out.contains("int CAT(a, b);"), "{out}");
        assert!(out.contains("int q = Q;\n#endif\nint r = Q;"), "{out}");
    }

    #[test]
    fn defines_from_options_and_nothing_to_do() {
        let options = ParseOptions { defines: vec![("N".into(), "4".into())] };
        assert_eq!(expand_macros("int a[N];\n", &options).as_deref(), Some("int a[4];\n"));
        assert_eq!(expand_macros("int a[4];\n", &ParseOptions::default()), None);
    }
}
