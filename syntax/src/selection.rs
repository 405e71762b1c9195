//! Selection ranges ("expand selection"): from the token at an offset out
//! to the whole file, each range strictly larger than the one before.
//!
//! The steps are the token (for a string literal, its contents first), then
//! every enclosing node; before a node that has braces or an argument or
//! parameter list around the offset comes the inside of those delimiters,
//! and before a node that starts with comments (a documented declaration)
//! comes the node without them.

use crate::SyntaxKind::*;
use crate::{NodeOrToken, SyntaxNode, SyntaxToken, TextRange, TextSize};

/// The ranges to select at `offset`, innermost first, strictly growing; empty
/// if `offset` is past the end of the tree.
pub fn selection_ranges(root: &SyntaxNode, offset: TextSize) -> Vec<TextRange> {
    let mut out: Vec<TextRange> = Vec::new();
    if offset > root.text_range().end() {
        return out;
    }
    let mut push = |r: TextRange| {
        let grows = out.last().is_none_or(|&last| r != last && r.contains_range(last));
        if grows && r.contains_inclusive(offset) {
            out.push(r);
        }
    };
    let token = pick_token(root, offset);
    let mut node = match &token {
        Some(token) => {
            if token.kind() != WHITESPACE {
                if let Some(inner) = string_contents(token) {
                    push(inner);
                }
                push(token.text_range());
            }
            token.parent()
        }
        None => Some(root.clone()),
    };
    while let Some(n) = node {
        if let Some(inner) = inside_delimiters(&n, offset) {
            push(inner);
        }
        push(without_leading_trivia(&n));
        push(n.text_range());
        node = n.parent();
    }
    out
}

/// The token at `offset`; between two tokens, the one that is more likely
/// meant: a word or literal, then punctuation, then a comment, then
/// whitespace.
fn pick_token(root: &SyntaxNode, offset: TextSize) -> Option<SyntaxToken> {
    let rank = |t: &SyntaxToken| match t.kind() {
        k if k == IDENT || k.is_keyword() || k.is_literal() => 3,
        WHITESPACE => 0,
        COMMENT => 1,
        _ => 2,
    };
    root.token_at_offset(offset).max_by_key(|t| rank(t))
}

/// The text between a string literal's quotes.
fn string_contents(token: &SyntaxToken) -> Option<TextRange> {
    if token.kind() != STRING {
        return None;
    }
    let text = token.text();
    let start = token.text_range().start();
    let open = text.find('"')? + 1;
    let close = text.rfind('"').filter(|&c| c >= open)?;
    Some(TextRange::new(start + TextSize::from(open as u32), start + TextSize::from(close as u32)))
}

/// Inside the braces (or argument, parameter or generic lists) of `node`
/// that enclose `offset`: the contents without surrounding whitespace.
fn inside_delimiters(node: &SyntaxNode, offset: TextSize) -> Option<TextRange> {
    let (open, close) = match node.kind() {
        ARG_LIST | PARAM_LIST | ATTRIBUTE_ARGS => (L_PAREN, R_PAREN),
        GENERIC_ARG_LIST | GENERIC_PARAM_LIST => (L_ANGLE, R_ANGLE),
        _ => (L_CURLY, R_CURLY),
    };
    let tokens = || node.children_with_tokens().filter_map(|e| e.into_token());
    let (Some(l), Some(r)) = (tokens().find(|t| t.kind() == open), tokens().filter(|t| t.kind() == close).last())
    else {
        return None;
    };
    let between = TextRange::new(l.text_range().end(), r.text_range().start().max(l.text_range().end()));
    if !(between.start() <= offset && offset <= between.end()) || between.is_empty() {
        return None;
    }
    // The significant children between the delimiters.
    let mut first = None;
    let mut last = None;
    for e in node.children_with_tokens() {
        let range = e.text_range();
        if range.start() < between.start() || range.end() > between.end() || e.kind() == WHITESPACE {
            continue;
        }
        first.get_or_insert(range.start());
        last = Some(range.end());
    }
    Some(TextRange::new(first?, last?))
}

/// A node's range without the comments and whitespace it starts with.
fn without_leading_trivia(node: &SyntaxNode) -> TextRange {
    let start =
        node.children_with_tokens().find(|e| !e.kind().is_trivia()).map_or(node.text_range().start(), |e| match e {
            NodeOrToken::Node(n) => n.text_range().start(),
            NodeOrToken::Token(t) => t.text_range().start(),
        });
    TextRange::new(start, node.text_range().end())
}
