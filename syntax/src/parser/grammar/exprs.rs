//! Expressions: a Pratt parser over the C/HLSL precedence table, plus
//! Slang's own forms (`fwd_diff(f)`, `no_diff f(x)`, `try`, `expand`/`each`,
//! `is`/`as`, lambdas, `spirv_asm { }`, generic application `f<T>(x)`).

use super::{
    delimited, is_word, items, name_ref, scan_balanced, scan_generic_args, scan_type, token_tree, types, Parser,
};
use crate::parser::CompletedMarker;
use crate::SyntaxKind::{self, *};

#[derive(Clone, Copy, Default)]
struct Restrictions {
    /// Inside generic arguments: `>` closes the list instead of comparing.
    no_gt: bool,
}

/// A full expression, including the comma operator.
pub(crate) fn expr(p: &mut Parser<'_>) -> Option<CompletedMarker> {
    expr_bp(p, 0, Restrictions::default())
}

/// An expression without a top-level comma (arguments, initializers).
pub(crate) fn expr_no_comma(p: &mut Parser<'_>) -> Option<CompletedMarker> {
    expr_bp(p, 3, Restrictions::default())
}

pub(crate) fn expr_in_generic_args(p: &mut Parser<'_>) -> Option<CompletedMarker> {
    expr_bp(p, 3, Restrictions { no_gt: true })
}

/// Binary operators: (kind, tokens to glue, left bp, right bp, node).
fn infix_op(p: &Parser<'_>, r: Restrictions) -> Option<(SyntaxKind, u8, u8)> {
    let k = p.current();
    // Composite `>` forms first.
    if k == R_ANGLE {
        if p.at(SHREQ) {
            return (!r.no_gt).then_some((SHREQ, 5, 4));
        }
        if p.at(SHR) {
            return (!r.no_gt).then_some((SHR, 22, 23));
        }
        if p.at(GTEQ) {
            return (!r.no_gt).then_some((GTEQ, 20, 21));
        }
    }
    let (l, rb) = match k {
        COMMA => (2, 3),
        EQ | PLUSEQ | MINUSEQ | STAREQ | SLASHEQ | PERCENTEQ | AMPEQ | PIPEEQ | CARETEQ | SHLEQ => (5, 4),
        QUESTION => (7, 6),
        PIPE2 => (8, 9),
        AMP2 => (10, 11),
        PIPE => (12, 13),
        CARET => (14, 15),
        AMP => (16, 17),
        EQ2 | NEQ => (18, 19),
        R_ANGLE if r.no_gt => return None,
        L_ANGLE | R_ANGLE | LTEQ => (20, 21),
        SHL => (22, 23),
        PLUS | MINUS => (24, 25),
        STAR | SLASH | PERCENT => (26, 27),
        IDENT if p.at(IS_KW) || p.at(AS_KW) => {
            let kw = if p.at(IS_KW) { IS_KW } else { AS_KW };
            return Some((kw, 20, 21));
        }
        _ => return None,
    };
    Some((k, l, rb))
}

fn expr_bp(p: &mut Parser<'_>, min_bp: u8, r: Restrictions) -> Option<CompletedMarker> {
    if !p.enter() {
        p.too_deep();
        return None;
    }
    let result = expr_bp_inner(p, min_bp, r);
    p.leave();
    result
}

fn expr_bp_inner(p: &mut Parser<'_>, min_bp: u8, r: Restrictions) -> Option<CompletedMarker> {
    let mut lhs = unary(p, r)?;
    let mut chain = 0u32;
    while let Some((op, l_bp, r_bp)) = infix_op(p, r) {
        if l_bp < min_bp {
            break;
        }
        chain += 1;
        if chain > 2000 {
            p.error_here("expression too long");
            break;
        }
        let m = lhs.precede(p);
        match op {
            IS_KW | AS_KW => {
                p.bump(op);
                types::type_(p);
                lhs = m.complete(p, if op == IS_KW { IS_EXPR } else { AS_EXPR });
            }
            QUESTION => {
                p.bump(QUESTION);
                if expr_bp(p, 3, Restrictions::default()).is_none() {
                    p.error("expected an expression");
                }
                p.expect(COLON);
                if expr_bp(p, r_bp, r).is_none() {
                    p.error("expected an expression");
                }
                lhs = m.complete(p, TERNARY_EXPR);
            }
            _ => {
                p.bump(op);
                if expr_bp(p, r_bp, r).is_none() {
                    p.error("expected an expression");
                }
                lhs = m.complete(p, BIN_EXPR);
            }
        }
    }
    Some(lhs)
}

const PREFIX_OPS: &[SyntaxKind] = &[MINUS, PLUS, BANG, TILDE, PLUS2, MINUS2, STAR, AMP];

fn unary(p: &mut Parser<'_>, r: Restrictions) -> Option<CompletedMarker> {
    if PREFIX_OPS.contains(&p.current()) {
        let m = p.start();
        p.bump_any();
        if unary_nested(p, r).is_none() {
            p.error("expected an expression");
        }
        return Some(m.complete(p, PREFIX_EXPR));
    }
    // Slang prefix keywords.
    let i = p.pos();
    let next_starts_operand = at_expr_start_at(p, i + 1)
        && !matches!(p.raw_kind(i + 1), MINUS | PLUS | STAR | AMP | PLUS2 | MINUS2 | L_CURLY);
    if p.at(NO_DIFF_KW) {
        let m = p.start();
        p.bump(NO_DIFF_KW);
        if unary_nested(p, r).is_none() {
            p.error("expected an expression");
        }
        return Some(m.complete(p, NO_DIFF_EXPR));
    }
    for (kw, node) in [(TRY_KW, TRY_EXPR), (EXPAND_KW, EXPAND_EXPR), (EACH_KW, EACH_EXPR)] {
        if p.at(kw) && next_starts_operand {
            let m = p.start();
            p.bump(kw);
            let ok = if kw == EXPAND_KW { expr_bp(p, 3, r).is_some() } else { unary_nested(p, r).is_some() };
            if !ok {
                p.error("expected an expression");
            }
            return Some(m.complete(p, node));
        }
    }
    let atom = atom(p, r)?;
    Some(postfix(p, atom))
}

/// The function a `__func_extension` extends: `fwd_diff(f)`,
/// `bwd_diff(S::m)`, `__apply(f<T>)` — an operand with at most one call.
pub(crate) fn callee(p: &mut Parser<'_>) -> Option<CompletedMarker> {
    let a = atom(p, Restrictions::default())?;
    if a.kind() == PATH_EXPR && p.at(L_PAREN) {
        let m = a.precede(p);
        arg_list(p);
        return Some(m.complete(p, CALL_EXPR));
    }
    Some(a)
}

fn unary_nested(p: &mut Parser<'_>, r: Restrictions) -> Option<CompletedMarker> {
    if !p.enter() {
        p.too_deep();
        return None;
    }
    let res = unary(p, r);
    p.leave();
    res
}

pub(crate) fn at_expr_start(p: &Parser<'_>) -> bool {
    at_expr_start_at(p, p.pos())
}

fn at_expr_start_at(p: &Parser<'_>, i: usize) -> bool {
    matches!(
        p.raw_kind(i),
        IDENT
            | INT_NUMBER
            | FLOAT_NUMBER
            | STRING
            | CHAR
            | TRUE_KW
            | FALSE_KW
            | NULLPTR_KW
            | THIS_KW
            | THIS_TYPE_KW
            | L_PAREN
            | L_CURLY
            | MINUS
            | PLUS
            | BANG
            | TILDE
            | PLUS2
            | MINUS2
            | STAR
            | AMP
            | NO_DIFF_KW
            | SIZEOF_KW
            | ALIGNOF_KW
            | FWD_DIFF2_KW
            | BWD_DIFF2_KW
            | SPIRV_ASM_KW
            | COLON2
    )
}

fn atom(p: &mut Parser<'_>, r: Restrictions) -> Option<CompletedMarker> {
    let i = p.pos();
    match p.current() {
        INT_NUMBER | FLOAT_NUMBER | CHAR | TRUE_KW | FALSE_KW | NULLPTR_KW => {
            let m = p.start();
            p.bump_any();
            Some(m.complete(p, LITERAL))
        }
        STRING => {
            // Adjacent string literals concatenate, also with macros that
            // expand to strings: `"x=" TO_STRING(X) "\n"`.
            let m = p.start();
            loop {
                if p.at(STRING) {
                    p.bump(STRING);
                } else if p.at(IDENT)
                    && p.input.macros.is_function_like(p.nth_text(0))
                    && p.raw_kind(p.pos() + 1) == L_PAREN
                    && p.raw_kind(scan_balanced(p, p.pos() + 1).unwrap_or(0)) == STRING
                {
                    p.bump(IDENT);
                    token_tree(p);
                } else if p.at(IDENT)
                    && p.input.macros.is_object_like(p.nth_text(0))
                    && p.raw_kind(p.pos() + 1) == STRING
                {
                    p.bump(IDENT);
                } else {
                    break;
                }
            }
            Some(m.complete(p, LITERAL))
        }
        THIS_KW => {
            let m = p.start();
            p.bump(THIS_KW);
            Some(m.complete(p, THIS_EXPR))
        }
        L_PAREN => paren_like(p),
        L_CURLY => Some(init_list(p)),
        SIZEOF_KW | ALIGNOF_KW => Some(sizeof_expr(p)),
        FWD_DIFF2_KW | BWD_DIFF2_KW => Some(diff_expr(p)),
        SPIRV_ASM_KW => {
            let m = p.start();
            p.bump(SPIRV_ASM_KW);
            if p.at(L_CURLY) {
                let b = p.start();
                token_tree(p);
                b.complete(p, SPIRV_ASM_BODY);
            } else {
                p.error("expected `{` after spirv_asm");
            }
            Some(m.complete(p, SPIRV_ASM_EXPR))
        }
        IDENT | THIS_TYPE_KW | COLON2 => {
            if (p.at(FWD_DIFF_KW) || p.at(BWD_DIFF_KW)) && p.raw_kind(i + 1) == L_PAREN {
                return Some(diff_expr(p));
            }
            if p.at(COUNTOF_KW) && p.raw_kind(i + 1) == L_PAREN {
                return Some(sizeof_expr(p));
            }
            if p.at(NEW_KW) && (is_word(p, i + 1) || p.raw_kind(i + 1) == THIS_TYPE_KW) {
                let m = p.start();
                p.bump(NEW_KW);
                let t = p.start();
                types::type_path(p);
                t.complete(p, PATH_TYPE);
                if p.at(L_PAREN) {
                    arg_list(p);
                }
                return Some(m.complete(p, NEW_EXPR));
            }
            Some(path_expr(p, r))
        }
        k if k.is_keyword()
            && !matches!(
                k,
                IF_KW
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
            )
            && !matches!(p.raw_kind(i + 1), IDENT | L_CURLY) =>
        {
            // A variable named by a keyword (`Buffer cbuffer;` … `cbuffer.x`),
            // which the reference compiler allows.
            let m = p.start();
            p.bump_remap(IDENT);
            Some(m.complete(p, PATH_EXPR))
        }
        _ => {
            let _ = r;
            p.err_recover(
                "expected an expression",
                &[SEMICOLON, R_PAREN, R_BRACK, R_CURLY, COMMA, COLON, R_ANGLE, EQ, L_BRACK],
            );
            None
        }
    }
}

/// Whether the `<` at `i` starts generic arguments in expression position:
/// they must scan as a balanced list and be followed by a token that can
/// follow a name (the reference compiler's rule).
fn at_generic_args_in_expr(p: &Parser<'_>, i: usize) -> bool {
    match scan_generic_args(p, i, false) {
        Some(j) => matches!(
            p.raw_kind(j),
            L_PAREN
                | R_PAREN
                | R_BRACK
                | R_CURLY
                | COMMA
                | SEMICOLON
                | DOT
                | COLON2
                | COLON
                | QUESTION
                | EQ2
                | NEQ
                | R_ANGLE
                | L_CURLY
                | EOF
        ),
        None => false,
    }
}

fn path_expr(p: &mut Parser<'_>, _r: Restrictions) -> CompletedMarker {
    let m = p.start();
    p.eat(COLON2);
    let mut n = 0;
    loop {
        n += 1;
        if !name_ref(p) {
            p.error("expected a name");
            break;
        }
        if p.at(L_ANGLE) && at_generic_args_in_expr(p, p.pos()) {
            types::generic_arg_list(p);
        }
        if n < 256 && p.at(COLON2) && (is_word(p, p.pos() + 1) || p.raw_kind(p.pos() + 1) == THIS_TYPE_KW) {
            p.bump(COLON2);
            continue;
        }
        // `S::__subscript::get`, `S::__init`: members named by keywords.
        if n < 256 && p.at(COLON2) && matches!(p.raw_kind(p.pos() + 1), SUBSCRIPT_KW | INIT_KW) {
            p.bump(COLON2);
            p.bump_remap(IDENT);
            if p.at(COLON2) && is_word(p, p.pos() + 1) {
                p.bump(COLON2);
                continue;
            }
            break;
        }
        break;
    }
    m.complete(p, PATH_EXPR)
}

fn postfix(p: &mut Parser<'_>, mut lhs: CompletedMarker) -> CompletedMarker {
    let mut n = 0u32;
    loop {
        n += 1;
        if n > 2000 {
            p.error_here("expression too long");
            break;
        }
        match p.current() {
            L_PAREN => {
                let m = lhs.precede(p);
                arg_list(p);
                lhs = m.complete(p, CALL_EXPR);
            }
            L_BRACK if p.raw_kind(p.pos() + 1) != L_BRACK => {
                let m = lhs.precede(p);
                p.bump(L_BRACK);
                // `a[]` (no index) is left to the checker, as the reference
                // compiler does.
                if !p.at(R_BRACK) && expr(p).is_none() {
                    p.error("expected an index expression");
                }
                p.expect(R_BRACK);
                lhs = m.complete(p, INDEX_EXPR);
            }
            DOT | THIN_ARROW => {
                let m = lhs.precede(p);
                p.bump_any();
                member_name(p);
                lhs = m.complete(p, MEMBER_EXPR);
            }
            COLON2 if is_word(p, p.pos() + 1) => {
                // `Foo<T>::bar` after a call or other non-path expression.
                let m = lhs.precede(p);
                p.bump(COLON2);
                member_name(p);
                lhs = m.complete(p, MEMBER_EXPR);
            }
            PLUS2 | MINUS2 => {
                let m = lhs.precede(p);
                p.bump_any();
                lhs = m.complete(p, POSTFIX_EXPR);
            }
            _ => break,
        }
    }
    lhs
}

fn member_name(p: &mut Parser<'_>) {
    let k = p.current();
    if k == IDENT || k == THIS_TYPE_KW {
        name_ref(p);
        if p.at(L_ANGLE) && at_generic_args_in_expr(p, p.pos()) {
            types::generic_arg_list(p);
        }
    } else if k == INT_NUMBER || k.is_keyword() {
        // `t.0` tuple elements, or a keyword used as a member name.
        p.bump_remap(IDENT);
    } else {
        p.error("expected a member name");
    }
}

pub(crate) fn arg_list(p: &mut Parser<'_>) {
    let m = p.start();
    delimited(p, L_PAREN, R_PAREN, &[SEMICOLON, R_CURLY], |p| expr_no_comma(p).is_some());
    m.complete(p, ARG_LIST);
}

fn init_list(p: &mut Parser<'_>) -> CompletedMarker {
    let m = p.start();
    delimited(p, L_CURLY, R_CURLY, &[SEMICOLON], |p| expr_no_comma(p).is_some());
    m.complete(p, INIT_LIST)
}

fn sizeof_expr(p: &mut Parser<'_>) -> CompletedMarker {
    let m = p.start();
    let kw = p.current();
    if kw == IDENT {
        p.bump_remap(COUNTOF_KW);
    } else {
        p.bump_any();
    }
    if p.expect(L_PAREN) {
        let is_type = scan_type(p, p.pos()).is_some_and(|j| p.raw_kind(j) == R_PAREN);
        if is_type {
            types::type_(p);
        } else if expr(p).is_none() {
            p.error("expected a type or expression");
        }
        p.expect(R_PAREN);
    }
    m.complete(p, SIZEOF_EXPR)
}

/// `fwd_diff(f)`, `bwd_diff(f)`, `__fwd_diff(f)`, `__bwd_diff(f)`.
fn diff_expr(p: &mut Parser<'_>) -> CompletedMarker {
    let m = p.start();
    let kind = if p.at(FWD_DIFF_KW) {
        FWD_DIFF_KW
    } else if p.at(BWD_DIFF_KW) {
        BWD_DIFF_KW
    } else {
        p.current()
    };
    p.bump_remap(kind);
    if p.expect(L_PAREN) {
        if expr(p).is_none() {
            p.error("expected the function to differentiate");
        }
        p.expect(R_PAREN);
    }
    m.complete(p, DIFF_EXPR)
}

/// `(` starts a parenthesized expression, a cast `(T)x`, a lambda
/// `(int x) => x`, or a tuple `(a, b)`.
fn paren_like(p: &mut Parser<'_>) -> Option<CompletedMarker> {
    let i = p.pos();
    let close = scan_balanced(p, i);
    if let Some(j) = close {
        if p.raw_kind(j) == FAT_ARROW {
            let m = p.start();
            items::param_list(p);
            p.expect(FAT_ARROW);
            if p.at(L_CURLY) {
                super::stmts::block(p);
            } else if expr_no_comma(p).is_none() {
                p.error("expected a lambda body");
            }
            return Some(m.complete(p, LAMBDA_EXPR));
        }
        if is_cast(p, i, j) {
            let m = p.start();
            p.bump(L_PAREN);
            types::type_(p);
            p.expect(R_PAREN);
            if unary_nested(p, Restrictions::default()).is_none() {
                p.error("expected an expression after the cast");
            }
            return Some(m.complete(p, CAST_EXPR));
        }
    }
    let m = p.start();
    p.bump(L_PAREN);
    if expr(p).is_none() {
        p.error("expected an expression");
    }
    p.expect(R_PAREN);
    Some(m.complete(p, PAREN_EXPR))
}

/// Built-in type names: `(float)-x` is a cast only because `float` is known
/// to be a type.
fn is_builtin_type_name(name: &str) -> bool {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == 'x');
    matches!(
        base,
        "float"
            | "half"
            | "double"
            | "int"
            | "uint"
            | "bool"
            | "int8_t"
            | "int16_t"
            | "int32_t"
            | "int64_t"
            | "uint8_t"
            | "uint16_t"
            | "uint32_t"
            | "uint64_t"
            | "float16_t"
            | "float32_t"
            | "float64_t"
            | "min16float"
            | "min16int"
            | "min16uint"
            | "dword"
    ) || matches!(name, "int8_t" | "int16_t" | "int32_t" | "int64_t" | "uint8_t" | "uint16_t" | "uint32_t" | "uint64_t")
}

/// `(`..`)` spanning tokens `[i, j)`: is it a cast?
fn is_cast(p: &Parser<'_>, i: usize, j: usize) -> bool {
    let Some(end) = scan_type(p, i + 1) else {
        return false;
    };
    if end + 1 != j || p.raw_kind(end) != R_PAREN {
        return false;
    }
    let after = p.raw_kind(j);
    match after {
        IDENT | INT_NUMBER | FLOAT_NUMBER | STRING | CHAR | TRUE_KW | FALSE_KW | THIS_KW | L_PAREN | BANG | TILDE
        | SIZEOF_KW | ALIGNOF_KW | NO_DIFF_KW | FWD_DIFF2_KW | BWD_DIFF2_KW | THIS_TYPE_KW => {
            // `(a) b` can only be a cast; `(f)(x)` is usually a cast too.
            !(after == IDENT && (p.raw_at(j, IS_KW) || p.raw_at(j, AS_KW)))
        }
        MINUS | PLUS | STAR | AMP | PLUS2 | MINUS2 | L_CURLY => {
            // Ambiguous with a binary operator: a cast only when the type is
            // obviously one (a builtin name, or a generic type); `(a[1]) + b`
            // and `(a.b) - c` are parenthesized expressions.
            is_builtin_type_name(p.input.text(i + 1)) || (i + 1..end).any(|k| p.raw_kind(k) == L_ANGLE)
        }
        _ => false,
    }
}
