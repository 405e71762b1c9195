//! Types: paths with generic arguments (`vector<float, 3>`,
//! `T.Differential`, `a::b::C`), arrays, pointers, `no_diff T`,
//! `expand each T`, `functype (A) -> B`.

use super::{exprs, is_word, name_ref, scan_type, Parser};
use crate::parser::CompletedMarker;
use crate::SyntaxKind::{self, *};

/// A type, with array and pointer suffixes. (In `float a[3]` the `[3]`
/// follows the name and belongs to the declarator, not the type.)
pub(crate) fn type_(p: &mut Parser<'_>) -> Option<CompletedMarker> {
    type_with(p, true)
}

fn type_with(p: &mut Parser<'_>, arrays: bool) -> Option<CompletedMarker> {
    if !p.enter() {
        p.too_deep();
        return None;
    }
    let r = type_inner(p, arrays);
    p.leave();
    r
}

fn type_inner(p: &mut Parser<'_>, arrays: bool) -> Option<CompletedMarker> {
    // Prefix forms.
    let soft_type_modifier = [DYN_KW, UNORM_KW, SNORM_KW].into_iter().find(|&k| p.at(k));
    if p.at(NO_DIFF_KW)
        || p.at(CONST_KW)
        || p.at(ROW_MAJOR_KW)
        || p.at(COLUMN_MAJOR_KW)
        || (soft_type_modifier.is_some() && is_word(p, p.pos() + 1))
    {
        let m = p.start();
        let k = soft_type_modifier.unwrap_or(p.current());
        p.bump_remap(k);
        type_with(p, arrays);
        return Some(m.complete(p, MODIFIED_TYPE));
    }
    if (p.at(EXPAND_KW) || p.at(EACH_KW)) && (is_word(p, p.pos() + 1) || p.raw_kind(p.pos() + 1) == L_PAREN) {
        let m = p.start();
        let kind = if p.at(EXPAND_KW) { EXPAND_KW } else { EACH_KW };
        p.bump(kind);
        type_with(p, arrays);
        return Some(m.complete(p, if kind == EXPAND_KW { EXPAND_TYPE } else { EACH_TYPE }));
    }
    if p.at(FUNCTYPE_KW) && p.raw_kind(p.pos() + 1) == L_PAREN {
        let m = p.start();
        p.bump(FUNCTYPE_KW);
        super::delimited(p, L_PAREN, R_PAREN, &[SEMICOLON, L_CURLY], |p| type_(p).is_some());
        if p.eat(THIN_ARROW) {
            type_(p);
        }
        return Some(m.complete(p, FUNC_TYPE));
    }
    if p.at(L_PAREN) {
        // Tuple type `(int, float)`.
        let m = p.start();
        super::delimited(p, L_PAREN, R_PAREN, &[SEMICOLON, L_CURLY], |p| type_(p).is_some());
        let mut lhs = m.complete(p, TUPLE_TYPE);
        lhs = suffixes(p, lhs, arrays);
        return Some(lhs);
    }
    // `struct { ... }` or `struct Name { ... }` used as a type (C-style
    // `typedef struct _S { ... } S;`).
    if p.at(STRUCT_KW)
        && (p.raw_kind(p.pos() + 1) == L_CURLY || (is_word(p, p.pos() + 1) && p.raw_kind(p.pos() + 2) == L_CURLY))
    {
        let m = p.start();
        p.bump(STRUCT_KW);
        if p.at(IDENT) {
            super::name(p);
        }
        super::items::member_list(p);
        return Some(m.complete(p, ANON_STRUCT_TYPE));
    }
    if super::at_type_call(p, p.pos()) {
        // `__packBranch(T, A, B)`, `__first(T).Element`.
        let m = p.start();
        p.bump(IDENT);
        let args = p.start();
        super::delimited(p, L_PAREN, R_PAREN, &[SEMICOLON, L_CURLY], |p| {
            generic_arg_until(p, R_PAREN);
            true
        });
        args.complete(p, GENERIC_ARG_LIST);
        let mut lhs = m.complete(p, TYPE_CALL);
        if (p.at(DOT) || p.at(COLON2)) && is_word(p, p.pos() + 1) {
            let m = lhs.precede(p);
            while (p.at(DOT) || p.at(COLON2)) && is_word(p, p.pos() + 1) {
                p.bump_any();
                name_ref(p);
                if p.at(L_ANGLE) {
                    generic_arg_list(p);
                }
            }
            lhs = m.complete(p, PATH_TYPE);
        }
        return Some(suffixes(p, lhs, arrays));
    }
    if !matches!(p.current(), IDENT | THIS_TYPE_KW | COLON2) {
        p.error("expected a type");
        return None;
    }
    let m = p.start();
    type_path(p);
    let lhs = m.complete(p, PATH_TYPE);
    Some(suffixes(p, lhs, arrays))
}

fn suffixes(p: &mut Parser<'_>, mut lhs: CompletedMarker, arrays: bool) -> CompletedMarker {
    let mut n = 0;
    loop {
        n += 1;
        if n > 256 {
            break;
        }
        if p.at(STAR) {
            let m = lhs.precede(p);
            p.bump(STAR);
            lhs = m.complete(p, POINTER_TYPE);
        } else if p.at(IDENT)
            && matches!(p.nth_text(0), "constant" | "device" | "threadgroup" | "thread")
            && matches!(p.raw_kind(p.pos() + 1), STAR | AMP)
        {
            // Metal address spaces: `Params constant* p`.
            let m = lhs.precede(p);
            p.bump_remap(IDENT);
            p.bump_any();
            lhs = m.complete(p, POINTER_TYPE);
        } else if arrays && p.at(L_BRACK) && p.raw_kind(p.pos() + 1) != L_BRACK {
            let m = lhs.precede(p);
            p.bump(L_BRACK);
            if !p.at(R_BRACK) {
                exprs::expr(p);
            }
            p.expect(R_BRACK);
            lhs = m.complete(p, ARRAY_TYPE);
        } else {
            break;
        }
    }
    lhs
}

/// `a::b<T>.C` — names separated by `::` or `.`, each optionally with
/// generic arguments. The elements go directly into the caller's node (no
/// PATH/segment wrappers: fewer nodes, faster trees).
pub(crate) fn type_path(p: &mut Parser<'_>) {
    p.eat(COLON2);
    let mut n = 0;
    loop {
        n += 1;
        if !name_ref(p) {
            p.error("expected a type name");
            break;
        }
        if p.at(L_ANGLE) {
            generic_arg_list(p);
        }
        let next_is_name = is_word(p, p.pos() + 1) || p.raw_kind(p.pos() + 1) == THIS_TYPE_KW;
        if n < 256 && (p.at(COLON2) || p.at(DOT)) && next_is_name {
            p.bump_any();
            continue;
        }
        break;
    }
}

/// `<T, 3, float[4]>` in type position (always generic arguments).
pub(crate) fn generic_arg_list(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(L_ANGLE);
    while !p.at(R_ANGLE) && !p.at_eof() {
        let before = p.pos();
        generic_arg(p);
        if p.pos() == before {
            break;
        }
        if !p.eat(COMMA) {
            break;
        }
    }
    if !p.eat(R_ANGLE) {
        p.error("expected `>`");
    }
    m.complete(p, GENERIC_ARG_LIST);
}

/// One generic argument: a type if it scans as one up to `,` or `>`,
/// otherwise a value expression.
fn generic_arg(p: &mut Parser<'_>) {
    generic_arg_until(p, R_ANGLE)
}

fn generic_arg_until(p: &mut Parser<'_>, close: SyntaxKind) {
    let m = p.start();
    let is_type = scan_type(p, p.pos()).is_some_and(|j| p.raw_kind(j) == COMMA || p.raw_kind(j) == close);
    if is_type {
        type_(p);
    } else if exprs::expr_in_generic_args(p).is_none() {
        m.abandon(p);
        p.err_recover("expected a generic argument", &[R_ANGLE, COMMA, SEMICOLON, R_PAREN]);
        return;
    }
    m.complete(p, GENERIC_ARG);
}
