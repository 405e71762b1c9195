//! The expanded text of a file: what the semantic model and code
//! generation read.
//!
//! The syntax tree keeps macro uses as written (the editor shows and edits
//! source, not expansions). [`expand_file`] replaces every use of a macro
//! in active code by its expansion ([`crate::macros`]: object-like and
//! function-like macros, variadic ones, `#` and `##`, rescanning), with the
//! macros defined so far in the file, by `-D`, and by the files it
//! `#include`s ([`ParseOptions::includes`]). Directive lines and disabled
//! text stay as they are (the parser evaluates `#if` the same way on the
//! expanded text), and every line keeps its number: an expansion takes no
//! more lines than its use did. The [`Expansion`] maps offsets both ways:
//! outside uses it is a shift; inside a use, a token copied from an
//! argument maps to that argument, anything else to the use.

use std::collections::HashSet;

use crate::macros::{self, DefineLine, Tok};
use crate::preprocessor::{include_spelling, ParseOptions, BUILTIN_DEFINES};
use crate::{SyntaxKind, TextRange, TextSize, WalkEvent};

/// One use of a macro in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MacroUse {
    pub name: String,
    /// The macro's name where it is used.
    pub name_range: TextRange,
    /// The whole use in the source: the name, and the arguments up to the
    /// closing `)`.
    pub source: TextRange,
    /// The expansion in the expanded text (without the newlines kept after
    /// it).
    pub expanded: TextRange,
    /// The source ranges of the arguments' significant tokens.
    pub arg_tokens: Vec<TextRange>,
}

/// A file's text with its macro uses expanded, and the map between the
/// two texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    pub text: String,
    /// In source order.
    pub uses: Vec<MacroUse>,
}

impl Expansion {
    /// The use whose source covers `offset` (its name or arguments).
    pub fn use_at_source(&self, offset: TextSize) -> Option<&MacroUse> {
        let i = self.uses.partition_point(|u| u.source.end() <= offset);
        self.uses.get(i).filter(|u| u.source.start() <= offset && offset < u.source.end())
    }

    /// The use whose expansion covers `range` (a non-empty range inside it,
    /// or an empty one strictly inside).
    pub fn use_at_expanded(&self, range: TextRange) -> Option<&MacroUse> {
        let i = self.uses.partition_point(|u| u.expanded.end() <= range.start());
        self.uses.get(i).filter(|u| {
            u.expanded.contains_range(range)
                && (!range.is_empty() || (u.expanded.start() < range.start() && range.start() < u.expanded.end()))
        })
    }

    /// Where a source offset is in the expanded text. Inside a use: on an
    /// argument's token that the expansion copies, that copy; else the
    /// start of the expansion.
    pub fn to_expanded(&self, source: &str, offset: TextSize) -> TextSize {
        if let Some(u) = self.use_at_source(offset) {
            let tok = u.arg_tokens.iter().find(|t| t.contains(offset));
            if let Some(tok) = tok.or_else(|| u.arg_tokens.iter().find(|t| t.contains_inclusive(offset))) {
                if let Some(at) = find_token(&self.text[u.expanded], &source[*tok]) {
                    return u.expanded.start() + TextSize::from(at as u32) + (offset - tok.start());
                }
            }
            return u.expanded.start();
        }
        let i = self.uses.partition_point(|u| u.source.end() <= offset);
        match i.checked_sub(1).map(|k| &self.uses[k]) {
            Some(u) => offset + u.expanded.end() - u.source.end(),
            None => offset,
        }
    }

    /// Where a range of the expanded text came from. Inside one use's
    /// expansion: the argument token it copies, else the whole use; across
    /// uses, from the start of the first to the end of the last.
    pub fn to_source(&self, source: &str, range: TextRange) -> TextRange {
        if let Some(u) = self.use_at_expanded(range) {
            let text = &self.text[range];
            if !text.is_empty() {
                if let Some(tok) = u.arg_tokens.iter().find(|t| &source[**t] == text) {
                    return *tok;
                }
            }
            return u.source;
        }
        let start = self.offset_to_source(range.start(), false);
        let end = self.offset_to_source(range.end(), true);
        TextRange::new(start, end.max(start))
    }

    fn offset_to_source(&self, offset: TextSize, is_end: bool) -> TextSize {
        let i = self.uses.partition_point(|u| u.expanded.end() <= offset);
        if let Some(u) = self.uses.get(i) {
            if u.expanded.start() < offset {
                return if is_end { u.source.end() } else { u.source.start() };
            }
        }
        // After use `i - 1` (if any): a shift. (Newlines kept after an
        // expansion are not part of it: the shift stays the same.)
        match i.checked_sub(1).map(|k| &self.uses[k]) {
            Some(u) => offset - u.expanded.end() + u.source.end(),
            None => offset,
        }
    }
}

/// The offset of the first occurrence of `word` in `text` as a whole
/// token (not inside a longer identifier).
fn find_token(text: &str, word: &str) -> Option<usize> {
    if word.is_empty() {
        return None;
    }
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(k) = text[from..].find(word) {
        let at = from + k;
        let before = text[..at].chars().next_back().filter(|_| word.starts_with(is_ident));
        let after = text[at + word.len()..].chars().next().filter(|_| word.ends_with(is_ident));
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            return Some(at);
        }
        from = at + word.len().max(1);
    }
    None
}

/// The text of `text` with macro uses expanded (see the module's
/// documentation), or `None` when nothing was expanded.
pub fn expand_macros(text: &str, options: &ParseOptions) -> Option<String> {
    expand_file(text, &crate::parse_with(text, options), options).map(|e| e.text)
}

/// [`expand_macros`] given the file's parse (with the same options).
pub fn expand_macros_in(text: &str, parse: &crate::Parse, options: &ParseOptions) -> Option<String> {
    expand_file(text, parse, options).map(|e| e.text)
}

/// The expansion of a file given its parse (with the same options), or
/// `None` when no macro is used.
pub fn expand_file(text: &str, parse: &crate::Parse, options: &ParseOptions) -> Option<Expansion> {
    let names = parse.macros();
    if names.function_like.is_empty()
        && names.object_like.is_empty()
        && options.defines.is_empty()
        && options.includes.iter().all(|(_, m)| m.is_empty())
        && !BUILTIN_DEFINES.iter().any(|(n, _)| text.contains(n))
    {
        return None;
    }
    let mut macros = options.initial_macros();
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut uses = Vec::new();
    let mut run: Vec<Tok> = Vec::new();
    let root = parse.syntax_node();
    let mut walk = root.preorder_with_tokens();
    while let Some(event) = walk.next() {
        let WalkEvent::Enter(element) = event else { continue };
        match element {
            rowan::NodeOrToken::Node(node) if node.kind().is_pp_directive() => {
                flush(&mut out, &mut run, &macros, &mut uses);
                let line = node.text().to_string();
                let active = parse.is_active(node.text_range().start());
                match node.kind() {
                    _ if !active => {}
                    SyntaxKind::PP_DEFINE | SyntaxKind::PP_UNDEF => match macros::parse_define_line(&line) {
                        Some(DefineLine::Define(n, d)) => {
                            macros.insert(n, d.into());
                        }
                        Some(DefineLine::Undef(n)) => {
                            macros.remove(&n);
                        }
                        None => {}
                    },
                    SyntaxKind::PP_INCLUDE => {
                        let rest = line.trim_start().trim_start_matches('#').trim_start();
                        if let Some(spelling) = rest.strip_prefix("include").and_then(include_spelling) {
                            options.apply_include(spelling, &mut macros);
                        }
                    }
                    _ => {}
                }
                out.push_str(&line);
                walk.skip_subtree();
            }
            rowan::NodeOrToken::Node(_) => {}
            rowan::NodeOrToken::Token(t) => {
                if t.kind() == SyntaxKind::DISABLED_TEXT {
                    flush(&mut out, &mut run, &macros, &mut uses);
                    out.push_str(t.text());
                } else {
                    run.push(Tok { kind: t.kind(), text: t.text().to_string(), offset: t.text_range().start().into() });
                }
            }
        }
    }
    flush(&mut out, &mut run, &macros, &mut uses);
    (!uses.is_empty()).then_some(Expansion { text: out, uses })
}

/// Expands a run of code tokens (between directives) into `out`.
fn flush(out: &mut String, run: &mut Vec<Tok>, macros: &macros::MacroMap, uses: &mut Vec<MacroUse>) {
    let size = |n: usize| TextSize::from(n as u32);
    let mut i = 0;
    while i < run.len() {
        match macros::expand_use(run, i, macros, &HashSet::new(), 0) {
            Some(u) => {
                let last = &run[u.end - 1];
                let source = TextRange::new(size(run[i].offset), size(last.offset + last.text.len()));
                let start = out.len();
                // One line: the lines of the use follow it.
                out.push_str(&u.expansion.replace(['\n', '\r'], " "));
                let expanded = TextRange::new(size(start), size(out.len()));
                out.push_str(&"\n".repeat(u.newlines));
                let arg_tokens = u
                    .args
                    .iter()
                    .flat_map(|&(s, e)| &run[s..e])
                    .filter(|t| !macros::is_trivia(t.kind))
                    .map(|t| TextRange::at(size(t.offset), size(t.text.len())))
                    .collect();
                let name_range = TextRange::at(size(run[i].offset), size(run[i].text.len()));
                uses.push(MacroUse { name: run[i].text.clone(), name_range, source, expanded, arg_tokens });
                i = u.end;
            }
            None => {
                out.push_str(&run[i].text);
                i += 1;
            }
        }
    }
    run.clear();
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
        let options = ParseOptions::with_defines(vec![("N".into(), "4".into())]);
        assert_eq!(expand_macros("int a[N];\n", &options).as_deref(), Some("int a[4];\n"));
        assert_eq!(expand_macros("int a[4];\n", &ParseOptions::default()), None);
    }

    #[test]
    fn map_between_texts() {
        let text = "#define SQ(x) ((x)*(x))\n#define SETTER [mutating]\nfloat g(float v) { return SQ(v) + v; }\nSETTER void f();\n";
        let e = expand_file(text, &crate::parse(text), &ParseOptions::default()).unwrap();
        assert_eq!(
            e.text,
            "#define SQ(x) ((x)*(x))\n#define SETTER [mutating]\nfloat g(float v) { return ((v)*(v)) + v; }\n[mutating] void f();\n"
        );
        let at = |s: &str, needle: &str, n: usize| s.match_indices(needle).nth(n).unwrap().0 as u32;
        let r = |a: u32, len: u32| TextRange::at(a.into(), len.into());
        // After an expansion: shifted.
        let src_v = at(text, "v;", 0);
        let exp_v = at(&e.text, "v;", 0);
        assert_eq!(e.to_expanded(text, src_v.into()), exp_v.into());
        assert_eq!(e.to_source(text, r(exp_v, 1)), r(src_v, 1));
        // An argument: its copy in the expansion, and back.
        let src_arg = at(text, "SQ(v)", 0) + 3;
        let exp_arg = at(&e.text, "((v)", 0) + 2;
        assert_eq!(e.to_expanded(text, src_arg.into()), exp_arg.into());
        assert_eq!(e.to_source(text, r(exp_arg, 1)), r(src_arg, 1));
        // Anything else in an expansion: the whole use.
        let use_range = r(at(text, "SQ(v)", 0), 5);
        assert_eq!(e.to_source(text, r(exp_arg - 2, 9)), use_range);
        assert_eq!(e.to_source(text, r(at(&e.text, "[mutating] void", 0), 10)), r(at(text, "SETTER void", 0), 6));
        assert_eq!(e.use_at_source(use_range.start()).map(|u| u.name.as_str()), Some("SQ"));
        // At the start of an argument's token that follows another (`a.b`):
        // that token, not the one before.
        let text = "#define ID(x) (x)\nfloat f() { return ID(s.v); }\n";
        let e = expand_file(text, &crate::parse(text), &ParseOptions::default()).unwrap();
        let v = at(text, "v)", 0);
        assert_eq!(&e.text[usize::from(e.to_expanded(text, v.into()))..][..1], "v");
        let dot = at(text, ".v", 0);
        assert_eq!(&e.text[usize::from(e.to_expanded(text, dot.into()))..][..1], ".");
    }

    #[test]
    fn macros_from_includes() {
        use std::sync::Arc;
        let defs = vec![("HAS(t)", " ((4 >> (t)) & 1)"), ("K", " 3")]
            .into_iter()
            .map(|(n, b)| match crate::macros::parse_define_line(&format!("#define {n}{b}")) {
                Some(DefineLine::Define(n, d)) => (n, Some(Arc::new(d))),
                _ => unreachable!(),
            })
            .collect();
        let options = ParseOptions { defines: Vec::new(), includes: vec![("defs.slangh".into(), Arc::new(defs))] };
        let text = "#include \"defs.slangh\"\n#if HAS(2)\nint a = K;\n#else\nint b;\n#endif\n";
        let parse = crate::parse_with(text, &options);
        assert!(parse.errors().is_empty(), "{:?}", parse.errors());
        let e = expand_file(text, &parse, &options).unwrap();
        assert!(e.text.contains("int a = 3;"), "{}", e.text);
        assert!(!parse.is_active(TextSize::from(at_of(text, "int b"))));
    }

    fn at_of(s: &str, needle: &str) -> u32 {
        s.find(needle).unwrap() as u32
    }
}
