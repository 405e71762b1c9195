//! Incremental reparsing: after an edit strictly inside a `{ ... }` block,
//! parse only the new block and splice it into the old tree.
//!
//! The result must be exactly what a full parse gives, so the shortcut is
//! taken only when that is certain: the edit does not touch the braces, the
//! block holds no preprocessor directives or disabled text, the new block
//! lexes cleanly into balanced braces with no directive, and it parses
//! without errors. Otherwise [`Parse::reparse`] returns `None` and the
//! caller parses the whole text.

use text_size::{TextRange, TextSize};

use crate::lexer::lex;
use crate::parser::Entry;
use crate::preprocessor::Role;
use crate::tree_builder::{build_tree, token_offsets};
use crate::{Parse, SyntaxError, SyntaxKind, SyntaxNode};

/// Nesting deeper than this is parsed in full (the parser's depth limit
/// depends on where the block is).
const MAX_BLOCK_DEPTH: usize = 64;

impl Parse {
    /// The parse of `new_text`, computed from this parse of `old_text` by
    /// reparsing only the block that contains the edit, if that is safe.
    pub fn reparse(&self, old_text: &str, new_text: &str) -> Option<Parse> {
        if old_text == new_text {
            return Some(self.clone());
        }
        let (start, old_end, new_end) = diff_range(old_text, new_text);
        let root = self.syntax_node();
        let edit = TextRange::new(TextSize::new(start as u32), TextSize::new(old_end as u32));
        let block = enclosing_block(&root, edit)?;
        let block_range = block.text_range();
        if block.ancestors().count() > MAX_BLOCK_DEPTH {
            return None;
        }
        if block.descendants_with_tokens().any(|e| e.kind().is_pp_directive() || e.kind() == SyntaxKind::DISABLED_TEXT)
        {
            return None;
        }
        let delta = new_end as i64 - old_end as i64;
        let new_block_end = (u32::from(block_range.end()) as i64 + delta) as usize;
        let new_block_text = new_text.get(usize::from(block_range.start())..new_block_end)?;

        // The new block must lex to `{ ... }` with balanced braces, no errors
        // and no directive.
        let lexed = lex(new_block_text);
        if !lexed.errors.is_empty() {
            return None;
        }
        let mut depth = 0i32;
        let mut significant = lexed.tokens.iter().filter(|t| !t.kind.is_trivia()).peekable();
        if significant.peek().map(|t| t.kind) != Some(SyntaxKind::L_CURLY) {
            return None;
        }
        let count = lexed.tokens.iter().filter(|t| !t.kind.is_trivia()).count();
        for (i, t) in significant.enumerate() {
            match t.kind {
                SyntaxKind::L_CURLY => depth += 1,
                SyntaxKind::R_CURLY => {
                    depth -= 1;
                    if depth == 0 && i + 1 != count {
                        return None;
                    }
                }
                SyntaxKind::POUND | SyntaxKind::POUND2 => return None,
                _ => {}
            }
        }
        if depth != 0 {
            return None;
        }

        let offsets = token_offsets(&lexed.tokens);
        let roles = vec![Role::Code; lexed.tokens.len()];
        let (green, errors) =
            build_tree(new_block_text, &lexed.tokens, &offsets, &roles, &[], &self.macros, Entry::Block);
        if !errors.is_empty() {
            return None;
        }
        // The new tree's root holds exactly one BLOCK node.
        let new_root = SyntaxNode::new_root(green);
        let mut children = new_root.children_with_tokens();
        let new_block = children.next()?.into_node()?;
        if new_block.kind() != SyntaxKind::BLOCK || children.next().is_some() {
            return None;
        }
        let new_green = block.replace_with(new_block.green().into_owned());

        let shift = |r: TextRange| -> TextRange {
            if r.start() >= block_range.end() {
                let s = (u32::from(r.start()) as i64 + delta) as u32;
                TextRange::at(TextSize::new(s), r.len())
            } else {
                r
            }
        };
        // Errors that start strictly inside the old block were the block's;
        // the new block has none.
        let outside = |e: &&SyntaxError| e.range.start() <= block_range.start() || e.range.start() >= block_range.end();
        let keep = |list: &[SyntaxError]| -> Vec<SyntaxError> {
            list.iter()
                .filter(outside)
                .map(|e| SyntaxError { range: shift(e.range), message: e.message.clone(), source: e.source })
                .collect()
        };
        let mut branches = self.branches.clone();
        for b in &mut branches {
            b.range = shift_branch(b.range, block_range, delta);
            b.body = shift_branch(b.body, block_range, delta);
        }
        Some(Parse {
            green: new_green,
            errors: keep(&self.errors),
            warnings: keep(&self.warnings),
            branches,
            macros: self.macros.clone(),
        })
    }
}

/// A branch range after an edit inside `block` (branches never start
/// inside a block without directives, but they may contain it).
fn shift_branch(r: TextRange, block: TextRange, delta: i64) -> TextRange {
    let mv = |o: TextSize| -> TextSize {
        if o >= block.end() {
            TextSize::new((u32::from(o) as i64 + delta) as u32)
        } else {
            o
        }
    };
    TextRange::new(mv(r.start()), mv(r.end()))
}

/// The changed byte range: `[start, old_end)` of the old text became
/// `[start, new_end)` of the new one.
fn diff_range(old: &str, new: &str) -> (usize, usize, usize) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(start) || !new.is_char_boundary(start) {
        start -= 1;
    }
    let max_suffix = a.len().min(b.len()) - start;
    let mut suffix = a.iter().rev().zip(b.iter().rev()).take(max_suffix).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(a.len() - suffix) || !new.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    (start, a.len() - suffix, b.len() - suffix)
}

/// The innermost block whose braces strictly enclose `edit`.
fn enclosing_block(root: &SyntaxNode, edit: TextRange) -> Option<SyntaxNode> {
    let element = root.covering_element(edit);
    let start = match &element {
        rowan::NodeOrToken::Node(n) => Some(n.clone()),
        rowan::NodeOrToken::Token(t) => t.parent(),
    }?;
    start.ancestors().find(|n| {
        n.kind() == SyntaxKind::BLOCK && {
            let r = n.text_range();
            // Strictly inside: the edit neither touches `{` nor `}`.
            r.start() < edit.start() && edit.end() < r.end()
        }
    })
}
