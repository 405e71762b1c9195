//! Folding ranges: what an editor can collapse.
//!
//! Multi-line `{ }` groups (bodies, members, `switch` blocks, initializer
//! lists), multi-line `( )` argument and parameter lists, runs of `//`
//! comment lines and multi-line `/* */` comments, runs of `import` and
//! `#include` lines, and `#if` … `#endif` branches and `#pragma region` …
//! `#pragma endregion` pairs. Only ranges that span two lines or more are
//! returned. A range covers its delimiters (`{` to `}`, `#if` to `#endif`);
//! an editor that folds whole lines keeps the last line visible.

use crate::SyntaxKind::{self, *};
use crate::{NodeOrToken, SyntaxNode, SyntaxToken, TextRange, TextSize, WalkEvent};

/// One foldable range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fold {
    pub range: TextRange,
    pub kind: FoldKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FoldKind {
    /// Code: blocks, lists, preprocessor branches and regions.
    Region,
    Comment,
    Imports,
}

/// Every foldable range of the file, sorted by start (outer ranges first).
pub fn folding_ranges(root: &SyntaxNode, text: &str) -> Vec<Fold> {
    let mut folds = Vec::new();
    let mut conditionals: Vec<TextSize> = Vec::new();
    let mut regions: Vec<TextSize> = Vec::new();
    let mut comments: Option<(TextRange, TextRange)> = None; // (first, last) of a run
    for event in root.preorder_with_tokens() {
        let WalkEvent::Enter(element) = event else { continue };
        match element {
            NodeOrToken::Node(node) => {
                let kind = node.kind();
                if kind.is_pp_directive() {
                    directive(&node, text, &mut conditionals, &mut regions, &mut folds);
                    continue;
                }
                if let Some(range) = delimited(&node) {
                    folds.push(Fold { range, kind: FoldKind::Region });
                }
                imports(&node, &mut folds);
            }
            NodeOrToken::Token(token) => {
                if token.kind() != COMMENT {
                    continue;
                }
                let range = token.text_range();
                if !token.text().starts_with("//") {
                    folds.push(Fold { range, kind: FoldKind::Comment });
                    continue;
                }
                let own_line = starts_line(&token);
                comments = match comments {
                    Some((first, last)) if own_line && only_one_line_break(text, last.end(), range.start()) => {
                        Some((first, range))
                    }
                    run => {
                        if let Some((first, last)) = run {
                            folds.push(Fold { range: first.cover(last), kind: FoldKind::Comment });
                        }
                        own_line.then_some((range, range))
                    }
                };
            }
        }
    }
    if let Some((first, last)) = comments {
        folds.push(Fold { range: first.cover(last), kind: FoldKind::Comment });
    }
    folds.retain(|f| spans_lines(text, f.range));
    folds.sort_by_key(|f| (f.range.start(), std::cmp::Reverse(f.range.end())));
    folds.dedup();
    folds
}

fn spans_lines(text: &str, range: TextRange) -> bool {
    text.get(std::ops::Range::<usize>::from(range)).is_some_and(|s| s.contains(['\n', '\r']))
}

/// `{` … `}` or `(` … `)` of a node that has both as direct children (for
/// parentheses: argument and parameter lists only).
fn delimited(node: &SyntaxNode) -> Option<TextRange> {
    let (open, close) = match node.kind() {
        ARG_LIST | PARAM_LIST | ATTRIBUTE_ARGS => (L_PAREN, R_PAREN),
        _ => (L_CURLY, R_CURLY),
    };
    let tokens = || node.children_with_tokens().filter_map(|e| e.into_token());
    let first = tokens().find(|t| t.kind() == open)?;
    let last = tokens().filter(|t| t.kind() == close).last()?;
    (first.text_range().start() < last.text_range().start()).then(|| first.text_range().cover(last.text_range()))
}

fn is_import(kind: SyntaxKind) -> bool {
    matches!(kind, IMPORT_DECL | INCLUDE_DECL | PP_INCLUDE)
}

/// Runs of import-like children of `node` with only trivia between them.
fn imports(node: &SyntaxNode, folds: &mut Vec<Fold>) {
    let mut run: Option<(TextRange, usize)> = None;
    let mut flush = |run: &mut Option<(TextRange, usize)>| {
        if let Some((range, n)) = run.take() {
            if n >= 2 {
                folds.push(Fold { range, kind: FoldKind::Imports });
            }
        }
    };
    for child in node.children_with_tokens() {
        let kind = child.kind();
        if kind.is_trivia() {
            continue;
        }
        match child {
            NodeOrToken::Node(n) if is_import(kind) => {
                let range = significant_range(&n);
                run = Some(match run {
                    Some((r, k)) => (r.cover(range), k + 1),
                    None => (range, 1),
                });
            }
            _ => flush(&mut run),
        }
    }
    flush(&mut run);
}

/// A node's range without the comments it starts with.
fn significant_range(node: &SyntaxNode) -> TextRange {
    let start = node
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .find(|t| !t.kind().is_trivia())
        .map_or(node.text_range().start(), |t| t.text_range().start());
    TextRange::new(start, node.text_range().end())
}

/// Whether a token is the first thing on its line.
fn starts_line(token: &SyntaxToken) -> bool {
    match token.prev_token() {
        None => true,
        Some(prev) if prev.kind() == WHITESPACE => prev.text().contains(['\n', '\r']) || prev.prev_token().is_none(),
        Some(_) => false,
    }
}

/// Whether the text between two offsets is blanks around one line break.
fn only_one_line_break(text: &str, from: TextSize, to: TextSize) -> bool {
    let Some(gap) = text.get(usize::from(from)..usize::from(to.max(from))) else {
        return false;
    };
    let blanks = gap.trim_matches([' ', '\t']);
    matches!(blanks, "\n" | "\r\n" | "\r")
}

/// The directive's name (`if`, `pragma` …) and the first word after it.
fn directive_words(node: &SyntaxNode) -> (String, String) {
    let mut words = node
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| !t.kind().is_trivia() && t.kind() != POUND)
        .map(|t| t.text().to_string());
    let name = words.next().unwrap_or_default();
    let next = words.next().unwrap_or_default();
    (name, next)
}

/// `#if` … `#elif`/`#else` … `#endif` branches, `#pragma region` pairs.
fn directive(
    node: &SyntaxNode,
    text: &str,
    conditionals: &mut Vec<TextSize>,
    regions: &mut Vec<TextSize>,
    folds: &mut Vec<Fold>,
) {
    let range = node.text_range();
    // The end of the line before this directive.
    let before = || {
        let start = usize::from(range.start()).min(text.len());
        let head = text[..start].trim_end();
        TextSize::from(head.len() as u32)
    };
    match node.kind() {
        PP_IF | PP_IFDEF | PP_IFNDEF => conditionals.push(range.start()),
        PP_ELIF | PP_ELSE => {
            if let Some(start) = conditionals.pop() {
                let end = before().max(start);
                folds.push(Fold { range: TextRange::new(start, end), kind: FoldKind::Region });
            }
            conditionals.push(range.start());
        }
        PP_ENDIF => {
            if let Some(start) = conditionals.pop() {
                folds.push(Fold { range: TextRange::new(start, range.end()), kind: FoldKind::Region });
            }
        }
        PP_PRAGMA | PP_UNKNOWN => {
            let (name, next) = directive_words(node);
            let word = if name == "pragma" { next } else { name };
            match word.as_str() {
                "region" => regions.push(range.start()),
                "endregion" => {
                    if let Some(start) = regions.pop() {
                        folds.push(Fold { range: TextRange::new(start, range.end()), kind: FoldKind::Region });
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}
