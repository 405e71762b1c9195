//! Statements and blocks.

use super::attributes::{at_modifier, attributes, attributes_and_modifiers};
use super::exprs::{self, expr, expr_no_comma};
use super::{is_word, items, name, scan_balanced, scan_type_then_name, token_tree, types, Parser};
use crate::SyntaxKind::*;

/// `{ stmt* }`
pub(crate) fn block(p: &mut Parser<'_>) {
    if !p.at(L_CURLY) {
        p.error("expected `{`");
        return;
    }
    if !p.enter() {
        p.too_deep();
        return;
    }
    let m = p.start();
    p.bump(L_CURLY);
    stmt_list(p);
    p.expect(R_CURLY);
    m.complete(p, BLOCK);
    p.leave();
}

fn stmt_list(p: &mut Parser<'_>) {
    while !p.at(R_CURLY) && !p.at_eof() {
        if looks_like_item_after_missing_brace(p) {
            // A definition at column 0 inside a body almost always means the
            // body's `}` is missing: stop here so the rest of the file parses
            // as items, with one error.
            p.error("expected `}`");
            return;
        }
        stmt(p);
    }
}

/// At column 0, something that can only be a top-level definition.
fn looks_like_item_after_missing_brace(p: &Parser<'_>) -> bool {
    if !p.at_col0() {
        return false;
    }
    let mut i = p.pos();
    // Skip attributes.
    while p.raw_kind(i) == L_BRACK {
        match scan_balanced(p, i) {
            Some(j) => i = j,
            None => return false,
        }
    }
    match p.raw_kind(i) {
        STRUCT_KW | CLASS_KW | INTERFACE_KW | NAMESPACE_KW | IMPORT_KW | CBUFFER_KW | TBUFFER_KW | EXTENSION_KW => true,
        PUBLIC_KW | PRIVATE_KW | INTERNAL_KW => true,
        _ => {
            // `Type name(...) {` — a function definition.
            let mut j = i;
            while matches!(p.raw_kind(j), STATIC_KW | INLINE_KW | EXPORT_KW) {
                j += 1;
            }
            let Some(name_at) = scan_type_then_name(p, j) else {
                return false;
            };
            if p.raw_kind(name_at + 1) != L_PAREN {
                return false;
            }
            match scan_balanced(p, name_at + 1) {
                Some(k) => matches!(p.raw_kind(k), L_CURLY) || (p.raw_kind(k) == COLON && is_word(p, k + 1)),
                None => false,
            }
        }
    }
}

pub(crate) fn stmt(p: &mut Parser<'_>) {
    if !p.enter() {
        p.too_deep();
        return;
    }
    stmt_inner(p);
    p.leave();
}

fn stmt_inner(p: &mut Parser<'_>) {
    let i = p.pos();
    match p.current() {
        L_CURLY => return block(p),
        SEMICOLON => {
            let m = p.start();
            p.bump(SEMICOLON);
            m.complete(p, EMPTY_STMT);
            return;
        }
        IF_KW => return if_stmt(p),
        FOR_KW => return for_stmt(p),
        WHILE_KW => {
            let m = p.start();
            p.bump(WHILE_KW);
            condition(p);
            stmt(p);
            m.complete(p, WHILE_STMT);
            return;
        }
        DO_KW => {
            let m = p.start();
            p.bump(DO_KW);
            stmt(p);
            if p.at(CATCH_KW) {
                // `do { ... } catch (e: E) { ... }`
                catch_clauses(p);
                m.complete(p, TRY_STMT);
                return;
            }
            p.expect(WHILE_KW);
            condition(p);
            p.expect(SEMICOLON);
            m.complete(p, DO_WHILE_STMT);
            return;
        }
        SWITCH_KW => return switch_stmt(p),
        TARGET_SWITCH_KW | STAGE_SWITCH_KW => return target_switch(p),
        RETURN_KW => {
            let m = p.start();
            p.bump(RETURN_KW);
            if !p.at(SEMICOLON) && !p.at(R_CURLY) {
                expr(p);
            }
            semicolon(p);
            m.complete(p, RETURN_STMT);
            return;
        }
        BREAK_KW | CONTINUE_KW => {
            let m = p.start();
            let kind = if p.at(BREAK_KW) { BREAK_STMT } else { CONTINUE_STMT };
            p.bump_any();
            // `break label;`
            if p.at(IDENT) {
                p.bump_remap(IDENT);
            }
            semicolon(p);
            m.complete(p, kind);
            return;
        }
        DISCARD_KW => {
            let m = p.start();
            p.bump(DISCARD_KW);
            semicolon(p);
            m.complete(p, DISCARD_STMT);
            return;
        }
        CASE_KW | DEFAULT_KW => {
            // Outside a switch body: report, then parse as a clause anyway.
            p.error_here("`case` outside of a `switch`");
            case_clause(p);
            return;
        }
        INTRINSIC_ASM_KW => {
            let m = p.start();
            p.bump(INTRINSIC_ASM_KW);
            while !p.at(SEMICOLON) && !p.at(R_CURLY) && !p.at_eof() {
                p.bump_any();
            }
            semicolon(p);
            m.complete(p, ASM_STMT);
            return;
        }
        DOLLAR if p.raw_kind(i + 1) == FOR_KW => {
            // Compile-time loop: `$for (i in Range(0, 4)) stmt`.
            let m = p.start();
            p.bump(DOLLAR);
            p.bump(FOR_KW);
            if p.expect(L_PAREN) {
                name(p);
                p.expect(IN_KW);
                expr(p);
                p.expect(R_PAREN);
            }
            stmt(p);
            m.complete(p, COMPILE_TIME_FOR_STMT);
            return;
        }
        L_BRACK => {
            // Attributes on a statement or a declaration.
            let m = p.start();
            attributes(p);
            if at_decl_start(p) || at_modifier(p) || at_item_keyword(p) {
                decl_stmt_rest(p, m);
            } else {
                stmt(p);
                m.complete(p, ATTRIBUTED_STMT);
            }
            return;
        }
        _ => {}
    }
    // Soft-keyword statements.
    if p.at(DEFER_KW) && !p.raw_at(i + 1, EQ) && p.raw_kind(i + 1) != SEMICOLON && !is_binary_follow(p, i + 1) {
        let m = p.start();
        p.bump(DEFER_KW);
        stmt(p);
        m.complete(p, DEFER_STMT);
        return;
    }
    if p.at(TRY_KW) && p.raw_kind(i + 1) == L_CURLY {
        let m = p.start();
        p.bump(TRY_KW);
        block(p);
        catch_clauses(p);
        m.complete(p, TRY_STMT);
        return;
    }
    // `try f(x);` is an expression statement, not a declaration of a
    // function `f` returning `try`.
    if p.at(TRY_KW) && p.raw_kind(i + 1) == IDENT && p.raw_kind(i + 2) == L_PAREN {
        expr_stmt(p);
        return;
    }
    if p.at(THROW_KW) && exprs::at_expr_start(p) && p.raw_kind(i + 1) != SEMICOLON && !is_binary_follow(p, i + 1) {
        let m = p.start();
        p.bump(THROW_KW);
        expr(p);
        // The reference compiler takes `throw e` without `;` before the
        // next line.
        if !(p.at_line_start() || p.at(R_CURLY)) || p.at(SEMICOLON) {
            semicolon(p);
        }
        m.complete(p, THROW_STMT);
        return;
    }
    // A macro standing for an attribute before a statement, defined in an
    // included header: `UNROLL for (...)`.
    if p.current() == IDENT
        && matches!(p.raw_kind(i + 1), FOR_KW | WHILE_KW | DO_KW | IF_KW | SWITCH_KW | RETURN_KW)
        && p.nth_text(0).bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    {
        let m = p.start();
        p.bump(IDENT);
        m.complete(p, MACRO_CALL);
        stmt(p);
        return;
    }
    // A macro alone on its line used as a statement: `BARRIER`.
    if p.current() == IDENT && super::items::is_bare_macro(p) && !p.input.macros.is_object_like(p.nth_text(0)) {
        let m = p.start();
        p.bump(IDENT);
        p.eat(SEMICOLON);
        m.complete(p, MACRO_CALL);
        return;
    }
    // `label: stmt`
    if p.current() == IDENT && p.raw_kind(i + 1) == COLON {
        let m = p.start();
        name(p);
        p.bump(COLON);
        if !p.at(R_CURLY) {
            stmt(p);
        }
        m.complete(p, LABELED_STMT);
        return;
    }
    if at_item_keyword(p) || at_decl_start(p) || at_modifier(p) {
        let m = p.start();
        decl_stmt_rest(p, m);
        return;
    }
    expr_stmt(p);
}

/// `catch (err: MyError) { ... }`, any number of them.
fn catch_clauses(p: &mut Parser<'_>) {
    while p.at(CATCH_KW) {
        let c = p.start();
        p.bump(CATCH_KW);
        if p.at(L_PAREN) {
            p.bump(L_PAREN);
            if scan_type_then_name(p, p.pos()).is_some() {
                // C-style: `catch (ErrorCodes err)`.
                types::type_(p);
                name(p);
            } else {
                if p.at(IDENT) {
                    name(p);
                }
                if p.eat(COLON) {
                    types::type_(p);
                }
            }
            p.expect(R_PAREN);
        }
        block(p);
        c.complete(p, CATCH_CLAUSE);
    }
}

/// Whether token `i` is a binary operator (so the word before it is a
/// variable, not a keyword).
fn is_binary_follow(p: &Parser<'_>, i: usize) -> bool {
    matches!(
        p.raw_kind(i),
        EQ | PLUSEQ
            | MINUSEQ
            | STAREQ
            | SLASHEQ
            | DOT
            | L_BRACK
            | L_PAREN
            | PLUS2
            | MINUS2
            | COMMA
            | R_PAREN
            | SEMICOLON
            | PLUS
            | MINUS
            | SLASH
            | PERCENT
            | EQ2
            | NEQ
    )
}

fn at_item_keyword(p: &Parser<'_>) -> bool {
    matches!(
        p.current(),
        STRUCT_KW | CLASS_KW | ENUM_KW | INTERFACE_KW | TYPEDEF_KW | TYPEALIAS_KW | LET_KW | STATIC_ASSERT_KW
    ) || (p.at(FUNC_KW) && is_word(p, p.pos() + 1))
        || (p.at(VAR_KW) && super::is_decl_name(p, p.pos() + 1))
        || (p.at(USING_KW) && p.raw_kind(p.pos() + 1) == NAMESPACE_KW)
}

/// `Type name` (or `Type* name`, `vector<float,3> name` …) follows.
fn at_decl_start(p: &Parser<'_>) -> bool {
    scan_type_then_name(p, p.pos()).is_some() || p.at(OPERATOR_KW) || items::at_macro_type(p)
}

/// A declaration (local variable, local type, nested function) as a
/// statement. `m` may already hold attributes.
fn decl_stmt_rest(p: &mut Parser<'_>, m: crate::parser::Marker) {
    attributes_and_modifiers(p);
    let kind = items::item_after_modifiers(p, super::ItemContext::Statement);
    match kind {
        Some(kind) => {
            m.complete(p, kind);
        }
        None => {
            // Modifiers followed by something that is not a declaration:
            // `const` alone, or an expression after an attribute.
            if exprs::at_expr_start(p) {
                expr_no_comma_stmt_tail(p);
                m.complete(p, EXPR_STMT);
            } else {
                p.err_recover("expected a declaration", &[SEMICOLON]);
                p.eat(SEMICOLON);
                m.complete(p, ERROR);
            }
        }
    }
}

fn expr_no_comma_stmt_tail(p: &mut Parser<'_>) {
    expr(p);
    semicolon(p);
}

fn expr_stmt(p: &mut Parser<'_>) {
    if !exprs::at_expr_start(p) {
        // A token that starts no statement: one error, skip it.
        if !p.at(R_CURLY) && !p.at_eof() {
            p.err_and_bump("expected a statement");
        }
        return;
    }
    let m = p.start();
    let start = p.pos();
    match expr(p) {
        Some(e) => {
            // A function-like macro used as a statement needs no `;`
            // (`DO_THING(x)` on its own line).
            let is_macro_call = e.kind() == CALL_EXPR
                && p.raw_kind(start) == IDENT
                && p.raw_kind(start + 1) == L_PAREN
                && p.input.macros.is_function_like(p.input.text(start));
            if is_macro_call && !p.at(SEMICOLON) {
                m.complete(p, EXPR_STMT);
                return;
            }
            semicolon(p);
            m.complete(p, EXPR_STMT);
        }
        None => {
            m.abandon(p);
            if p.pos() == start {
                // `expr` reported the error without consuming: make progress.
                if p.at(R_CURLY) || p.at_eof() {
                    return;
                }
                p.err_and_bump("expected a statement");
            }
        }
    }
}

pub(crate) fn semicolon(p: &mut Parser<'_>) {
    if !p.eat(SEMICOLON) {
        p.error("expected `;`");
    }
}

/// `( expr )` or `( let x = expr )`.
fn condition(p: &mut Parser<'_>) {
    if !p.expect(L_PAREN) {
        // `if x {` is an error but parse the condition anyway.
        expr(p);
        return;
    }
    if p.at(LET_KW) || (p.at(VAR_KW) && is_word(p, p.pos() + 1)) {
        let m = p.start();
        p.bump_remap(if p.at(LET_KW) { LET_KW } else { VAR_KW });
        name(p);
        if p.eat(COLON) {
            types::type_(p);
        }
        p.expect(EQ);
        expr(p);
        m.complete(p, LET_CONDITION);
    } else if expr(p).is_none() {
        p.error("expected a condition");
    }
    p.expect(R_PAREN);
}

fn if_stmt(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(IF_KW);
    condition(p);
    stmt(p);
    if p.at(ELSE_KW) {
        let e = p.start();
        p.bump(ELSE_KW);
        stmt(p);
        e.complete(p, ELSE_BRANCH);
    }
    m.complete(p, IF_STMT);
}

fn for_stmt(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(FOR_KW);
    if p.expect(L_PAREN) {
        // init
        if p.at(SEMICOLON) {
            p.bump(SEMICOLON);
        } else if at_item_keyword(p) || at_decl_start(p) || at_modifier(p) {
            let d = p.start();
            decl_stmt_rest(p, d);
        } else {
            expr_stmt(p);
        }
        // condition
        if !p.at(SEMICOLON) {
            expr(p);
        }
        p.expect(SEMICOLON);
        // step
        if !p.at(R_PAREN) {
            expr(p);
        }
        p.expect(R_PAREN);
    }
    stmt(p);
    m.complete(p, FOR_STMT);
}

fn switch_stmt(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(SWITCH_KW);
    condition(p);
    if p.at(L_CURLY) {
        let b = p.start();
        p.bump(L_CURLY);
        while !p.at(R_CURLY) && !p.at_eof() {
            if p.at(CASE_KW) || p.at(DEFAULT_KW) {
                case_clause(p);
            } else {
                // Statements before the first `case` (or with no `case` at
                // all) are unreachable, which the reference compiler only
                // warns about.
                stmt(p);
            }
        }
        p.expect(R_CURLY);
        b.complete(p, SWITCH_BODY);
    } else {
        p.error("expected `{`");
    }
    m.complete(p, SWITCH_STMT);
}

fn case_clause(p: &mut Parser<'_>) {
    let m = p.start();
    if p.at(CASE_KW) {
        p.bump(CASE_KW);
        expr_no_comma(p);
    } else {
        p.bump_any();
    }
    p.expect(COLON);
    while !p.at(CASE_KW) && !p.at(DEFAULT_KW) && !p.at(R_CURLY) && !p.at_eof() {
        stmt(p);
    }
    m.complete(p, CASE_CLAUSE);
}

/// `__target_switch { case hlsl: ... case spirv: ... default: ... }`
fn target_switch(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump_any();
    if p.at(L_CURLY) {
        p.bump(L_CURLY);
        while !p.at(R_CURLY) && !p.at_eof() {
            if p.at(CASE_KW) || p.at(DEFAULT_KW) {
                let c = p.start();
                if p.at(CASE_KW) {
                    p.bump(CASE_KW);
                    if p.at(IDENT) {
                        p.bump_remap(IDENT);
                    } else {
                        p.error("expected a target name");
                    }
                } else {
                    p.bump_any();
                }
                p.expect(COLON);
                while !p.at(CASE_KW) && !p.at(DEFAULT_KW) && !p.at(R_CURLY) && !p.at_eof() {
                    stmt(p);
                }
                c.complete(p, TARGET_CASE);
            } else {
                p.error_here("expected `case` or `default`");
                stmt(p);
            }
        }
        p.expect(R_CURLY);
    } else {
        p.error("expected `{`");
    }
    m.complete(p, TARGET_SWITCH_STMT);
}

/// Used by items for `__ignored_block`: keep the braces' contents as tokens.
pub(crate) fn raw_block(p: &mut Parser<'_>) {
    if p.at(L_CURLY) {
        token_tree(p);
    } else {
        p.error("expected `{`");
    }
}
