//! The Slang grammar, one module per family of constructs.
//!
//! Lookahead that needs more than a token or two (is this a type followed by
//! a name? is this `<` a generic argument list?) is done with the `scan_*`
//! functions, which walk the token list without building anything.

mod attributes;
mod exprs;
mod items;
mod stmts;
mod types;

use super::Parser;
use crate::SyntaxKind::{self, *};

pub(super) fn source_file(p: &mut Parser<'_>) {
    items::item_list(p, ItemContext::TopLevel);
    p.sink.finish_root();
}

/// A lone block; anything after it is an error.
pub(super) fn block_entry(p: &mut Parser<'_>) {
    stmts::block(p);
    if !p.at_eof() {
        p.error_here("unexpected tokens after the block");
        let m = p.start();
        while !p.at_eof() {
            p.bump_any();
        }
        m.complete(p, ERROR);
    }
    p.sink.finish_root();
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ItemContext {
    TopLevel,
    /// Inside `{ }` of a namespace, struct, interface, extension, cbuffer …
    Member,
    /// A declaration used as a statement inside a function body.
    Statement,
}

/// A name being declared.
pub(crate) fn name(p: &mut Parser<'_>) -> bool {
    if p.at(IDENT) || is_keyword_name(p, p.pos()) {
        let m = p.start();
        p.bump_remap(IDENT);
        m.complete(p, NAME);
        true
    } else {
        p.error("expected a name");
        false
    }
}

/// A name being referred to: an `IDENT` (or `This`) token directly in the
/// path, member access, attribute … that uses it. (No wrapper node: names
/// are the most common thing in a file, and a node for each costs parse
/// time.) Soft keywords are identifiers here.
pub(crate) fn name_ref(p: &mut Parser<'_>) -> bool {
    let k = p.current();
    if k == IDENT || k == THIS_TYPE_KW {
        p.bump_remap(k);
        true
    } else {
        false
    }
}

/// Whether the token at `i` is a word usable as a name (identifier, or a
/// soft keyword).
pub(crate) fn is_word(p: &Parser<'_>, i: usize) -> bool {
    p.raw_kind(i) == IDENT
}

/// Whether the keyword at `i` is used as a declared name, as in
/// `int struct = 42;`, `var if : T;`, `f(Buffer cbuffer)` or
/// `static int __subscript()`: the reference compiler takes any word
/// there (warning that it is a keyword), so a keyword followed by what
/// follows a declared name is one. (Not before `(` for keywords that start
/// statements or expressions: `X if (c)` is not a function.)
pub(crate) fn is_keyword_name(p: &Parser<'_>, i: usize) -> bool {
    let k = p.raw_kind(i);
    if !k.is_keyword() || matches!(k, THIS_KW | THIS_TYPE_KW | TRUE_KW | FALSE_KW | NULLPTR_KW) {
        return false;
    }
    match p.raw_kind(i + 1) {
        SEMICOLON | EQ | COMMA | L_BRACK | COLON | R_PAREN => true,
        L_PAREN => p.input.text(i).starts_with("__") && !matches!(k, FWD_DIFF2_KW | BWD_DIFF2_KW),
        _ => false,
    }
}

/// A word usable as a declared name at `i`: an identifier or
/// [`is_keyword_name`].
pub(crate) fn is_decl_name(p: &Parser<'_>, i: usize) -> bool {
    is_word(p, i) || is_keyword_name(p, i)
}

// ---------------------------------------------------------------------------
// Token-level scanners (no events).

/// Index just past a balanced group starting at `i` (which must be an
/// opening bracket), or `None` if it does not close.
pub(crate) fn scan_balanced(p: &Parser<'_>, i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    loop {
        match p.raw_kind(j) {
            L_PAREN | L_BRACK | L_CURLY => depth += 1,
            R_PAREN | R_BRACK | R_CURLY => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            EOF => return None,
            _ => {}
        }
        j += 1;
        if j - i > 100_000 {
            return None;
        }
    }
}

/// `< ... >` starting at `i`: the index past the closing `>`. `in_type`:
/// in type position, where `&&` and `||` can only be part of a value
/// argument (`Conditional<float4, A && B>`); in an expression they more
/// likely mean `a < b && c > d`.
pub(crate) fn scan_generic_args(p: &Parser<'_>, i: usize, in_type: bool) -> Option<usize> {
    if p.raw_kind(i) != L_ANGLE {
        return None;
    }
    let mut depth = 0usize;
    let mut j = i;
    loop {
        match p.raw_kind(j) {
            L_ANGLE => depth += 1,
            R_ANGLE => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            L_PAREN | L_BRACK => {
                j = scan_balanced(p, j)?;
                continue;
            }
            IDENT | INT_NUMBER | FLOAT_NUMBER | COMMA | COLON2 | DOT | STAR | PLUS | MINUS | SLASH | PERCENT
            | TRUE_KW | FALSE_KW | THIS_TYPE_KW | NO_DIFF_KW | CONST_KW | ROW_MAJOR_KW | COLUMN_MAJOR_KW | PIPE
            | AMP | CARET | TILDE | SHL | EQ2 | NEQ | BANG => {}
            AMP2 | PIPE2 if in_type => {}
            _ => return None,
        }
        j += 1;
        if j - i > 4096 {
            return None;
        }
    }
}

/// A type starting at `i`: the index just past it.
pub(crate) fn scan_type(p: &Parser<'_>, i: usize) -> Option<usize> {
    let mut j = i;
    // Type-level prefixes.
    while matches!(p.raw_kind(j), NO_DIFF_KW | CONST_KW | ROW_MAJOR_KW | COLUMN_MAJOR_KW)
        || p.raw_at(j, EXPAND_KW)
        || p.raw_at(j, EACH_KW)
        || p.raw_at(j, DYN_KW)
        || p.raw_at(j, UNORM_KW)
        || p.raw_at(j, SNORM_KW)
    {
        if !is_word(p, j + 1) && !matches!(p.raw_kind(j + 1), THIS_TYPE_KW | NO_DIFF_KW | CONST_KW | COLON2) {
            break;
        }
        j += 1;
    }
    if p.raw_kind(j) == COLON2 {
        j += 1;
    }
    if at_type_call(p, j) {
        j = scan_balanced(p, j + 1)?;
        while matches!(p.raw_kind(j), DOT | COLON2) && is_word(p, j + 1) {
            j += 2;
            if p.raw_kind(j) == L_ANGLE {
                j = scan_generic_args(p, j, true)?;
            }
        }
        return scan_type_suffixes(p, j);
    }
    if !(is_word(p, j) || p.raw_kind(j) == THIS_TYPE_KW) {
        return None;
    }
    // `functype (A, B) -> R`
    if p.raw_at(j, FUNCTYPE_KW) && p.raw_kind(j + 1) == L_PAREN {
        j = scan_balanced(p, j + 1)?;
        if p.raw_kind(j) == THIN_ARROW {
            return scan_type(p, j + 1);
        }
        return Some(j);
    }
    j += 1;
    loop {
        if p.raw_kind(j) == L_ANGLE {
            j = scan_generic_args(p, j, true)?;
        }
        if matches!(p.raw_kind(j), COLON2 | DOT) && (is_word(p, j + 1) || p.raw_kind(j + 1) == THIS_TYPE_KW) {
            j += 2;
            continue;
        }
        break;
    }
    scan_type_suffixes(p, j)
}

/// Pointer and array suffixes of a type from `j`: the index past them.
fn scan_type_suffixes(p: &Parser<'_>, mut j: usize) -> Option<usize> {
    loop {
        match p.raw_kind(j) {
            STAR => j += 1,
            IDENT
                if matches!(p.input.text(j), "constant" | "device" | "threadgroup" | "thread")
                    && matches!(p.raw_kind(j + 1), STAR | AMP) =>
            {
                j += 2
            }
            L_BRACK if p.raw_kind(j + 1) != L_BRACK => j = scan_balanced(p, j)?,
            _ => break,
        }
    }
    Some(j)
}

/// A type-level function of packs at `i`: a `__`-prefixed word and `(`
/// (`__packBranch(T, A, B)`, `__first(T)`, `__trimFirst(T)`).
pub(crate) fn at_type_call(p: &Parser<'_>, i: usize) -> bool {
    p.raw_kind(i) == IDENT && p.raw_kind(i + 1) == L_PAREN && p.input.text(i).starts_with("__")
}

/// Whether a declaration `Type name ...` starts at token `i`.
pub(crate) fn scan_type_then_name(p: &Parser<'_>, i: usize) -> Option<usize> {
    let j = scan_type(p, i)?;
    if is_decl_name(p, j) {
        Some(j)
    } else {
        None
    }
}

// ---------------------------------------------------------------------------
// Small shared rules.

/// A comma-separated list between `open` and `close`, each element parsed by
/// `f`. `f` returns false if it could not parse an element.
pub(crate) fn delimited(
    p: &mut Parser<'_>,
    open: SyntaxKind,
    close: SyntaxKind,
    recovery: &[SyntaxKind],
    mut f: impl FnMut(&mut Parser<'_>) -> bool,
) {
    p.bump(open);
    while !p.at(close) && !p.at_eof() {
        let before = p.pos();
        if !f(p) && p.pos() == before {
            if p.at_ts(recovery) {
                break;
            }
            p.err_and_bump("unexpected token");
        }
        if !p.at(close) && !p.eat(COMMA) {
            if p.at_ts(recovery) || p.pos() == before {
                break;
            }
            p.error(format!("expected `,` or `{}`", close.static_text().unwrap_or("")));
        }
    }
    p.expect(close);
}

/// A balanced run of tokens (macro arguments, spirv_asm bodies …) kept as
/// plain tokens. Expects to be at an opening bracket.
pub(crate) fn token_tree(p: &mut Parser<'_>) {
    let mut depth = 0usize;
    loop {
        match p.current() {
            L_PAREN | L_BRACK | L_CURLY => depth += 1,
            R_PAREN | R_BRACK | R_CURLY => {
                if depth == 0 {
                    return;
                }
                depth -= 1;
                p.bump_any();
                if depth == 0 {
                    return;
                }
                continue;
            }
            EOF => {
                p.error("unclosed delimiter");
                return;
            }
            _ => {}
        }
        p.bump_any();
    }
}
