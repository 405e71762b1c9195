//! Declarations: everything that can appear at the top level of a file, in
//! a namespace, or in the body of a struct / interface / extension.

use super::attributes::{attributes, attributes_and_modifiers};
use super::exprs::{self, expr_no_comma};
use super::stmts::{block, raw_block, semicolon};
use super::{
    is_word, name, name_ref, scan_balanced, scan_type, scan_type_then_name, token_tree, types, ItemContext, Parser,
};
use crate::SyntaxKind::{self, *};

pub(crate) fn item_list(p: &mut Parser<'_>, ctx: ItemContext) {
    loop {
        if p.at_eof() {
            break;
        }
        if p.at(R_CURLY) {
            if ctx == ItemContext::TopLevel {
                p.err_and_bump("unmatched `}`");
                continue;
            }
            break;
        }
        item(p, ctx);
    }
}

pub(crate) fn item(p: &mut Parser<'_>, ctx: ItemContext) {
    if !p.enter() {
        p.too_deep();
        return;
    }
    let m = p.start();
    let had_modifiers = attributes_and_modifiers(p);
    match item_after_modifiers(p, ctx) {
        Some(kind) => {
            m.complete(p, kind);
        }
        None => {
            if had_modifiers {
                p.error("expected a declaration after attributes or modifiers");
                m.complete(p, ERROR);
            } else {
                m.abandon(p);
                recover_to_item(p);
            }
        }
    }
    p.leave();
}

/// Skip tokens that cannot start a declaration: one error, then everything
/// up to a `;`, a balanced group, or the next line that looks like a fresh
/// start goes into an `ERROR` node.
fn recover_to_item(p: &mut Parser<'_>) {
    p.error_here("expected a declaration");
    let m = p.start();
    let mut first = true;
    loop {
        if p.at_eof() || p.at(R_CURLY) {
            break;
        }
        if !first && p.at_line_start() {
            break;
        }
        first = false;
        if p.at(SEMICOLON) {
            p.bump(SEMICOLON);
            break;
        }
        if matches!(p.current(), L_CURLY | L_PAREN | L_BRACK) {
            token_tree(p);
            continue;
        }
        p.bump_any();
    }
    m.complete(p, ERROR);
}

/// The item that follows attributes and modifiers; the caller owns the node
/// and completes it with the returned kind. Returns `None` (having consumed
/// nothing) if no declaration starts here.
pub(crate) fn item_after_modifiers(p: &mut Parser<'_>, ctx: ItemContext) -> Option<SyntaxKind> {
    let i = p.pos();
    let next_is_word = is_word(p, i + 1);
    let kind = match p.current() {
        GENERIC_KW => {
            generic_param_list(p);
            attributes_and_modifiers(p);
            return match item_after_modifiers(p, ctx) {
                Some(k) => Some(k),
                None => {
                    p.error("expected a declaration after `__generic<...>`");
                    Some(ERROR)
                }
            };
        }
        STRUCT_KW | CLASS_KW => struct_decl(p),
        ENUM_KW => enum_decl(p),
        INTERFACE_KW => interface_decl(p),
        EXTENSION_KW | UNDERSCORE_EXTENSION_KW => extension_decl(p),
        TYPEDEF_KW => typedef_decl(p),
        TYPEALIAS_KW => typealias_decl(p),
        NAMESPACE_KW => namespace_decl(p),
        IMPORT_KW | UNDERSCORE_IMPORT_KW => module_ref_decl(p, p.current(), IMPORT_DECL),
        FUNC_EXTENSION_KW => func_extension(p),
        CONSTRAINT_KW => {
            // `__constraint A.B : IFoo;` (in an interface).
            p.bump(CONSTRAINT_KW);
            where_pred(p);
            semicolon(p);
            CONSTRAINT_DECL
        }
        INCLUDE_KW => module_ref_decl(p, INCLUDE_KW, INCLUDE_DECL),
        ASSOCIATEDTYPE_KW => associated_type(p),
        SUBSCRIPT_KW => subscript_decl(p),
        INIT_KW => init_decl(p),
        CBUFFER_KW | TBUFFER_KW => cbuffer_decl(p),
        STATIC_ASSERT_KW => {
            p.bump(STATIC_ASSERT_KW);
            if p.at(L_PAREN) {
                exprs::arg_list(p);
            } else {
                p.error("expected `(`");
            }
            semicolon(p);
            STATIC_ASSERT
        }
        IGNORED_BLOCK_KW => {
            p.bump(IGNORED_BLOCK_KW);
            raw_block(p);
            IGNORED_BLOCK
        }
        TRANSPARENT_BLOCK_KW | FILE_DECL_KW => {
            let k = if p.at(TRANSPARENT_BLOCK_KW) { TRANSPARENT_BLOCK } else { FILE_DECL_BLOCK };
            p.bump_any();
            member_list(p);
            k
        }
        LET_KW => let_var_decl(p),
        IDENT if p.at(VAR_KW) && super::is_decl_name(p, i + 1) => let_var_decl(p),
        // `__generic_value_param N : int = 0;`: a global generic value
        // parameter, declared as `let N : int = 0;` is.
        GENERIC_VALUE_PARAM_KW | IDENT if p.at(GENERIC_VALUE_PARAM_KW) && next_is_word => let_var_decl(p),
        IDENT if p.at(ATTRIBUTE_SYNTAX_KW) && p.raw_kind(i + 1) == L_BRACK => {
            // `attribute_syntax [Name(param: Type)] : AttributeClass;`
            p.bump(ATTRIBUTE_SYNTAX_KW);
            token_tree(p);
            if p.eat(COLON) {
                types::type_(p);
            }
            semicolon(p);
            ATTRIBUTE_SYNTAX_DECL
        }
        IDENT if p.at(PROPERTY_KW) && (next_is_word || matches!(p.raw_kind(i + 1), NO_DIFF_KW | CONST_KW)) => {
            property_decl(p)
        }
        SEMICOLON => {
            p.bump(SEMICOLON);
            EMPTY_ITEM
        }
        IDENT if p.at(MODULE_KW) && (next_is_word || p.raw_kind(i + 1) == STRING) && ctx != ItemContext::Statement => {
            module_ref_decl(p, MODULE_KW, MODULE_DECL)
        }
        IDENT
            if p.at(IMPLEMENTING_KW)
                && (next_is_word || p.raw_kind(i + 1) == STRING)
                && ctx != ItemContext::Statement =>
        {
            module_ref_decl(p, IMPLEMENTING_KW, IMPLEMENTING_DECL)
        }
        IDENT if p.at(PRECISION_KW) && next_is_word && is_word(p, i + 2) && p.raw_kind(i + 3) == SEMICOLON => {
            // GLSL: `precision highp float;`
            p.bump(PRECISION_KW);
            p.bump_remap(IDENT);
            p.bump_remap(IDENT);
            p.bump(SEMICOLON);
            PRECISION_DECL
        }
        IDENT if p.at(USING_KW) && (next_is_word || p.raw_kind(i + 1) == NAMESPACE_KW) => {
            p.bump(USING_KW);
            p.eat(NAMESPACE_KW);
            dotted_path(p);
            semicolon(p);
            USING_DECL
        }
        IDENT if (p.at(TYPE_PARAM_KW)) && next_is_word => associated_type(p),
        IDENT if p.at(FUNC_KW) && next_is_word => {
            p.bump(FUNC_KW);
            name(p);
            fn_rest(p);
            FN
        }
        IDENT if p.raw_kind(i + 1) == L_CURLY && ctx != ItemContext::Statement => {
            // GLSL interface block: `layout(std430) buffer Name { ... } inst;`
            name(p);
            member_list(p);
            // The instance name and `;` are optional (as after a struct).
            if p.at(IDENT) && matches!(p.raw_kind(p.pos() + 1), SEMICOLON | COMMA | L_BRACK | EQ | COLON) {
                declarator_list(p);
                semicolon(p);
            } else {
                p.eat(SEMICOLON);
            }
            GLSL_BLOCK
        }
        IDENT if ctx != ItemContext::Statement && p.input.macros.opens_block(p.nth_text(0)) => {
            // A macro that opens a function body: `BEGIN_PASS(Name, 8, 8)`
            // statements `END_PASS`.
            p.bump(IDENT);
            if p.at(L_PAREN) {
                let args = p.start();
                token_tree(p);
                args.complete(p, ARG_LIST);
            }
            let b = p.start();
            while !p.at_eof() && !p.at(R_CURLY) {
                if p.at(IDENT) && p.input.macros.closes_block(p.nth_text(0)) {
                    let end = p.start();
                    p.bump(IDENT);
                    p.eat(SEMICOLON);
                    end.complete(p, MACRO_CALL);
                    break;
                }
                super::stmts::stmt(p);
            }
            b.complete(p, BLOCK);
            MACRO_CALL
        }
        IDENT if ctx != ItemContext::Statement && is_bare_macro(p) => {
            // A macro alone on its line, defined in an included header:
            // `END_NAMESPACE_FALCOR`.
            p.bump(IDENT);
            p.eat(SEMICOLON);
            MACRO_CALL
        }
        // `__first(T).Element value;`
        IDENT if super::at_type_call(p, i) && scan_type_then_name(p, i).is_some() => fn_or_var(p),
        IDENT if p.raw_kind(i + 1) == L_PAREN && (ctx != ItemContext::Statement || at_macro_type(p)) => {
            let after = scan_balanced(p, i + 1);
            if at_macro_type(p) {
                // A macro that expands to a type: `CONST(float) kPi = 3.14;`.
                let t = p.start();
                p.bump(IDENT);
                let args = p.start();
                token_tree(p);
                args.complete(p, ARG_LIST);
                t.complete(p, MACRO_TYPE);
                if p.raw_kind(p.pos() + 1) == L_PAREN {
                    name(p);
                    fn_rest(p);
                    return Some(FN);
                }
                declarator_list(p);
                semicolon(p);
                return Some(VAR_DECL);
            }
            if after.is_some_and(|j| p.raw_kind(j) == L_CURLY) {
                // A C++-style constructor `Foo(int x) { ... }`.
                name(p);
                fn_rest(p);
                FN
            } else {
                // A macro invocation standing for declarations:
                // `DECLARE_RESOURCE(Foo, 0)` with or without `;`.
                name_ref(p);
                let args = p.start();
                token_tree(p);
                args.complete(p, ARG_LIST);
                p.eat(SEMICOLON);
                MACRO_CALL
            }
        }
        _ => {
            if scan_type_then_name(p, i).is_some() || at_type_then_operator(p) {
                fn_or_var(p)
            } else {
                return None;
            }
        }
    };
    Some(kind)
}

/// `let x = 1, y : int;` / `var z : float;` / `__generic_value_param N : int;`
fn let_var_decl(p: &mut Parser<'_>) -> SyntaxKind {
    let kw = [LET_KW, VAR_KW].into_iter().find(|&k| p.at(k)).unwrap_or(GENERIC_VALUE_PARAM_KW);
    p.bump_remap(kw);
    loop {
        let d = p.start();
        name(p);
        if p.eat(COLON) {
            types::type_(p);
        }
        if p.eat(EQ) && expr_no_comma(p).is_none() {
            p.error("expected an initializer");
        }
        d.complete(p, DECLARATOR);
        if !p.eat(COMMA) {
            break;
        }
    }
    semicolon(p);
    VAR_DECL
}

/// `__func_extension<T : IFloat> fwd_diff(f<T>)(params) -> R where ... { }`:
/// a derivative (or `__apply`) provided for an existing function.
fn func_extension(p: &mut Parser<'_>) -> SyntaxKind {
    p.bump(FUNC_EXTENSION_KW);
    if p.at(L_ANGLE) {
        generic_param_list(p);
    }
    if exprs::callee(p).is_none() {
        p.error("expected the function being extended");
    }
    if p.at(L_PAREN) {
        param_list(p);
    } else {
        p.error("expected `(`");
    }
    fn_tail(p, true);
    FUNC_EXTENSION
}

/// `MACRO(args) name ...`: a macro invocation used as a declaration's type
/// (`CONST(float) kPi = 3.14;`, `VEC(3) rgb = ...;`).
pub(crate) fn at_macro_type(p: &Parser<'_>) -> bool {
    let i = p.pos();
    if p.raw_kind(i) != IDENT || p.raw_kind(i + 1) != L_PAREN {
        return false;
    }
    scan_balanced(p, i + 1).is_some_and(|j| {
        is_word(p, j)
            && !p.input.line_start(j)
            && (matches!(p.raw_kind(j + 1), EQ | SEMICOLON | L_PAREN | L_BRACK | COMMA | COLON)
                || (is_word(p, j + 1) && is_macro_like(p.input.text(j + 1))))
            && !(p.raw_kind(j + 1) == L_PAREN && p.input.macros.is_function_like(p.input.text(j)))
    })
}

/// Spelled like a macro: all capitals, digits and underscores.
fn is_macro_like(text: &str) -> bool {
    text.len() >= 2
        && text.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && text.bytes().any(|b| b.is_ascii_uppercase())
}

/// One capital letter (`R`): spelled like a macro's name where nothing
/// else can stand, after a declared name and before `(`.
fn is_single_capital(text: &str) -> bool {
    text.len() == 1 && text.as_bytes()[0].is_ascii_uppercase()
}

/// An all-caps word alone on its line (or followed only by `;`): a macro
/// used where declarations go, which cannot be anything else there.
pub(crate) fn is_bare_macro(p: &Parser<'_>) -> bool {
    if !is_macro_like(p.nth_text(0)) {
        return false;
    }
    let next = p.pos() + 1;
    p.raw_kind(next) == EOF || p.input.line_start(next) || p.raw_kind(next) == SEMICOLON
}

fn at_type_then_operator(p: &Parser<'_>) -> bool {
    super::scan_type(p, p.pos()).is_some_and(|j| p.raw_kind(j) == OPERATOR_KW)
}

/// `Type name(...)...` (a function) or `Type a = 1, b[3] : SEM;` (variables).
fn fn_or_var(p: &mut Parser<'_>) -> SyntaxKind {
    types::type_(p);
    if p.at(OPERATOR_KW) {
        operator_name(p);
        fn_rest(p);
        return FN;
    }
    // `Type MACRO(x) = ...;` — a macro makes the declared name.
    let i = p.pos();
    if p.at(IDENT)
        && p.raw_kind(i + 1) == L_PAREN
        && p.input.macros.is_function_like(p.nth_text(0))
        && scan_balanced(p, i + 1).is_some_and(|j| matches!(p.raw_kind(j), EQ | SEMICOLON | COMMA | L_BRACK))
    {
        let d = p.start();
        let m = p.start();
        p.bump(IDENT);
        let args = p.start();
        token_tree(p);
        args.complete(p, ARG_LIST);
        m.complete(p, MACRO_CALL);
        declarator_suffixes(p);
        d.complete(p, DECLARATOR);
        if p.eat(COMMA) {
            declarator_list(p);
        }
        semicolon(p);
        return VAR_DECL;
    }
    let is_fn = p.raw_kind(p.pos() + 1) == L_PAREN
        || (p.raw_kind(p.pos() + 1) == L_ANGLE
            && scan_generic_params(p, p.pos() + 1).is_some_and(|j| p.raw_kind(j) == L_PAREN));
    if is_fn {
        name(p);
        fn_rest(p);
        return FN;
    }
    // `Type name PARAMS(float a, float b) { ... }` — a macro standing for the
    // parameter list.
    let i = p.pos();
    if is_word(p, i + 1)
        && is_macro_like(p.input.text(i + 1))
        && p.raw_kind(i + 2) == L_PAREN
        && scan_balanced(p, i + 2).is_some_and(|j| matches!(p.raw_kind(j), L_CURLY | SEMICOLON | COLON))
    {
        name(p);
        let m = p.start();
        p.bump(IDENT);
        let args = p.start();
        token_tree(p);
        args.complete(p, ARG_LIST);
        m.complete(p, MACRO_CALL);
        fn_tail(p, true);
        return FN;
    }
    declarator_list(p);
    semicolon(p);
    VAR_DECL
}

/// `<T : IFoo<U>, let N : int = 4>` starting at `i`: the index past `>`.
fn scan_generic_params(p: &Parser<'_>, i: usize) -> Option<usize> {
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
            SEMICOLON | L_CURLY | R_CURLY | EOF => return None,
            _ => {}
        }
        j += 1;
        if j - i > 4096 {
            return None;
        }
    }
}

/// `operator+`, `operator==`, `operator()`, `operator[]`, `operator>>` …
fn operator_name(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(OPERATOR_KW);
    if p.at(L_PAREN) && p.raw_kind(p.pos() + 1) == R_PAREN {
        p.bump(L_PAREN);
        p.bump(R_PAREN);
    } else if p.at(L_BRACK) && p.raw_kind(p.pos() + 1) == R_BRACK {
        p.bump(L_BRACK);
        p.bump(R_BRACK);
    } else if p.at(SHREQ) {
        p.bump(SHREQ);
    } else if p.at(SHR) {
        p.bump(SHR);
    } else if p.at(GTEQ) {
        p.bump(GTEQ);
    } else if p.current().is_punct() && !matches!(p.current(), L_PAREN | L_CURLY | SEMICOLON) {
        p.bump_any();
    } else {
        p.error("expected an operator");
    }
    m.complete(p, OPERATOR_NAME);
}

/// After a function's name: generic parameters, parameters, `throws`,
/// `-> Ret`, semantics, `where` clauses, then a body or `;`.
pub(crate) fn fn_rest(p: &mut Parser<'_>) {
    if p.at(L_ANGLE) {
        generic_param_list(p);
    }
    if p.at(L_PAREN) {
        param_list(p);
    } else {
        p.error("expected `(`");
    }
    fn_tail(p, true);
}

/// Everything after a parameter list. `body_kind_block`: the body is a
/// statement block (functions, `__init`) rather than accessors.
fn fn_tail(p: &mut Parser<'_>, body_kind_block: bool) {
    loop {
        if p.at(THROWS_KW) {
            let m = p.start();
            p.bump(THROWS_KW);
            types::type_(p);
            m.complete(p, THROWS_CLAUSE);
        } else if p.at(THIN_ARROW) {
            let m = p.start();
            p.bump(THIN_ARROW);
            types::type_(p);
            m.complete(p, RETURN_TYPE);
        } else if p.at(COLON) {
            semantic(p);
        } else if p.at(WHERE_KW) && is_where_clause(p) {
            where_clause(p);
        } else if p.at(L_BRACK) && p.raw_kind(p.pos() + 1) == L_BRACK {
            super::attributes::attribute(p);
        } else if p.at(CONST_KW) {
            // C++-style `const` method qualifier.
            p.bump(CONST_KW);
        } else {
            break;
        }
    }
    if body_kind_block {
        if p.at(L_CURLY) {
            block(p);
        } else if p.at(IDENT) && is_macro_like(p.nth_text(0)) && p.raw_kind(p.pos() + 1) == L_PAREN {
            // A macro standing for the body: `void f() BODY(...)`.
            let m = p.start();
            p.bump(IDENT);
            let args = p.start();
            token_tree(p);
            args.complete(p, ARG_LIST);
            m.complete(p, MACRO_CALL);
            p.eat(SEMICOLON);
        } else if p.at(EQ) {
            // `= default;` / `= delete;` / `= 0;`
            p.bump(EQ);
            expr_no_comma(p);
            semicolon(p);
        } else if p.at(INTRINSIC_ASM_KW) {
            let m = p.start();
            p.bump(INTRINSIC_ASM_KW);
            while !p.at(SEMICOLON) && !p.at(L_CURLY) && !p.at(R_CURLY) && !p.at_eof() {
                p.bump_any();
            }
            semicolon(p);
            m.complete(p, FN_BODY_ASM);
        } else if !p.eat(SEMICOLON) {
            p.error("expected a function body or `;`");
        }
    } else if p.at(L_CURLY) {
        accessor_list(p);
    } else if !p.eat(SEMICOLON) {
        p.error("expected `{` or `;`");
    }
}

fn is_where_clause(p: &Parser<'_>) -> bool {
    let i = p.pos() + 1;
    is_word(p, i) || p.raw_kind(i) == THIS_TYPE_KW
}

/// `(params)`
pub(crate) fn param_list(p: &mut Parser<'_>) {
    let m = p.start();
    super::delimited(p, L_PAREN, R_PAREN, &[L_CURLY, SEMICOLON, R_CURLY], param);
    m.complete(p, PARAM_LIST);
}

fn param(p: &mut Parser<'_>) -> bool {
    let m = p.start();
    attributes_and_modifiers(p);
    if p.at(DOT3) {
        p.bump(DOT3);
        m.complete(p, PARAM);
        return true;
    }
    // Modern form: `name: Type`.
    if p.at(IDENT) && p.raw_kind(p.pos() + 1) == COLON {
        name(p);
        p.bump(COLON);
        // `x: in out int` — here a direction is followed by just a type.
        loop {
            let k = p.input.contextual(p.pos());
            let direction = matches!(k, IN_KW | OUT_KW | INOUT_KW | REF_KW) && is_word(p, p.pos() + 1);
            if direction {
                p.bump_remap(k);
            } else if !attributes_and_modifiers(p) {
                break;
            }
        }
        types::type_(p);
        declarator_suffixes(p);
        m.complete(p, PARAM);
        return true;
    }
    // A lone word (`f(T)`, or the lambda parameter in `(x) => x`) is
    // parsed as a type; the semantic layer decides which it is.
    if types::type_(p).is_none() {
        m.abandon(p);
        return false;
    }
    if p.at(IDENT) || super::is_keyword_name(p, p.pos()) {
        name(p);
    }
    declarator_suffixes(p);
    m.complete(p, PARAM);
    true
}

/// Array suffixes, trailing `[[attributes]]`, semantics and a default
/// value, after a declared name.
fn declarator_suffixes(p: &mut Parser<'_>) {
    loop {
        if p.at(L_BRACK) && p.raw_kind(p.pos() + 1) == L_BRACK {
            super::attributes::attribute(p);
        } else if p.at(L_BRACK) {
            let m = p.start();
            p.bump(L_BRACK);
            if !p.at(R_BRACK) {
                exprs::expr(p);
            }
            p.expect(R_BRACK);
            m.complete(p, ARRAY_SUFFIX);
        } else if p.at(COLON) {
            semantic(p);
        } else if p.at(IDENT) && p.input.macros.is_object_like(p.nth_text(0)) {
            // A macro standing for a semantic: `float4 pos INPUT_POSITION;`.
            let m = p.start();
            p.bump(IDENT);
            m.complete(p, MACRO_CALL);
        } else if p.at(IDENT)
            && p.raw_kind(p.pos() + 1) == L_PAREN
            && (is_macro_like(p.nth_text(0)) || is_single_capital(p.nth_text(0)))
        {
            // A macro standing for a semantic: `Buffer b SLOT(t0);`,
            // `Texture2D t R(: register(t2));`.
            let m = p.start();
            p.bump(IDENT);
            let args = p.start();
            token_tree(p);
            args.complete(p, ARG_LIST);
            m.complete(p, MACRO_CALL);
        } else {
            break;
        }
    }
    if p.eat(EQ) && expr_no_comma(p).is_none() {
        p.error("expected an initializer");
    }
}

/// `: SV_Target`, `: register(t0, space1)`, `: packoffset(c0.x)`, `: 3`.
fn semantic(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(COLON);
    let kind = if p.at(REGISTER_KW) && p.raw_kind(p.pos() + 1) == L_PAREN {
        p.bump(REGISTER_KW);
        token_tree(p);
        REGISTER_BINDING
    } else if p.at(PACKOFFSET_KW) && p.raw_kind(p.pos() + 1) == L_PAREN {
        p.bump(PACKOFFSET_KW);
        token_tree(p);
        PACKOFFSET
    } else if p.at(INT_NUMBER) {
        p.bump(INT_NUMBER);
        BIT_FIELD
    } else if p.current() == IDENT || p.current().is_keyword() {
        p.bump_remap(IDENT);
        // Payload access qualifiers: `: read(caller) : write(miss)`.
        if p.at(L_PAREN) {
            token_tree(p);
        }
        SEMANTIC
    } else {
        p.error("expected a semantic, `register(...)` or `packoffset(...)`");
        SEMANTIC
    };
    m.complete(p, kind);
}

/// `a = 1, b[2] : SEM` — the type has been parsed already.
fn declarator_list(p: &mut Parser<'_>) {
    loop {
        let d = p.start();
        name(p);
        declarator_suffixes(p);
        d.complete(p, DECLARATOR);
        if !p.eat(COMMA) {
            break;
        }
    }
}

/// `<T : IFoo = Default, let N : int = 4, each U>`
pub(crate) fn generic_param_list(p: &mut Parser<'_>) {
    let m = p.start();
    if p.at(GENERIC_KW) {
        p.bump(GENERIC_KW);
    }
    if !p.at(L_ANGLE) {
        p.error("expected `<`");
        m.complete(p, GENERIC_PARAM_LIST);
        return;
    }
    p.bump(L_ANGLE);
    while !p.at(R_ANGLE) && !p.at_eof() {
        let before = p.pos();
        generic_param(p);
        if p.pos() == before {
            p.err_recover("expected a generic parameter", &[R_ANGLE, L_PAREN, L_CURLY, SEMICOLON]);
            if p.pos() == before {
                break;
            }
        }
        if !p.eat(COMMA) {
            break;
        }
    }
    if !p.eat(R_ANGLE) {
        p.error("expected `>`");
    }
    m.complete(p, GENERIC_PARAM_LIST);
}

fn generic_param(p: &mut Parser<'_>) {
    let m = p.start();
    attributes(p);
    if p.at(LET_KW) {
        p.bump(LET_KW);
        if p.at(EACH_KW) && is_word(p, p.pos() + 1) {
            p.bump(EACH_KW);
        }
        name(p);
        if p.eat(COLON) {
            types::type_(p);
        }
        if p.eat(EQ) {
            exprs::expr_in_generic_args(p);
        }
        m.complete(p, GENERIC_VALUE_PARAM);
        return;
    }
    if p.at(EACH_KW) && is_word(p, p.pos() + 1) {
        p.bump(EACH_KW);
    }
    // `typename T` (the keyword is optional).
    if p.at(TYPENAME_KW) && is_word(p, p.pos() + 1) {
        p.bump(TYPENAME_KW);
    }
    // (The type may be qualified: `<linalg.MatrixUse Use>`.)
    let mut k = p.pos();
    while p.raw_kind(k) == IDENT && matches!(p.raw_kind(k + 1), DOT | COLON2) {
        k += 2;
    }
    if p.at(IDENT) && p.raw_kind(k) == IDENT && is_word(p, k + 1) {
        // Old-style value parameter: `<int N>`.
        types::type_(p);
        name(p);
        if p.eat(EQ) {
            exprs::expr_in_generic_args(p);
        }
        m.complete(p, GENERIC_VALUE_PARAM);
        return;
    }
    if p.at(THIS_TYPE_KW) && p.raw_kind(p.pos() + 1) == COLON {
        // `__generic<This : IFoo>`: a parameter named `This`.
        let n = p.start();
        p.bump_remap(IDENT);
        n.complete(p, NAME);
    } else if !p.at(IDENT) {
        m.abandon(p);
        return;
    } else {
        name(p);
    }
    if p.eat(COLON) {
        type_bounds(p);
    }
    if p.eat(EQ) {
        types::type_(p);
    }
    m.complete(p, GENERIC_TYPE_PARAM);
}

/// `IFoo & IBar`
fn type_bounds(p: &mut Parser<'_>) {
    loop {
        if types::type_(p).is_none() {
            break;
        }
        if !p.eat(AMP) {
            break;
        }
    }
}

/// `where T : IFoo`, `where T.Differential == T`, `where optional T : IBar`.
fn where_clause(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(WHERE_KW);
    loop {
        where_pred(p);
        // `where A : I, B : J` (accepted, though the reference compiler
        // wants a `where` per constraint).
        let more = p.at(COMMA) && is_word(p, p.pos() + 1) && matches!(p.raw_kind(p.pos() + 2), COLON | EQ2 | DOT);
        if !more {
            break;
        }
        p.bump(COMMA);
    }
    m.complete(p, WHERE_CLAUSE);
}

/// One constraint: `T : IFoo, IBar`, `T.A == U`, `optional T : I`,
/// `nonempty(T)`.
fn where_pred(p: &mut Parser<'_>) {
    {
        let pred = p.start();
        if p.at(OPTIONAL_KW) && is_word(p, p.pos() + 1) {
            p.bump(OPTIONAL_KW);
        }
        let i = p.pos();
        let lhs_end = scan_type(p, i);
        let type_form = lhs_end.is_some_and(|j| match p.raw_kind(j) {
            COLON => true,
            // `T.Differential == T`, but not `N == countof(T)`.
            EQ2 => scan_type(p, j + 1).is_some_and(|k| {
                matches!(p.raw_kind(k), L_CURLY | SEMICOLON | COMMA | EOF | R_PAREN | EQ) || p.raw_at(k, WHERE_KW)
            }),
            _ => false,
        });
        if type_form {
            types::type_(p);
            if p.eat(COLON) {
                // `where T : IFoo, IBar` — several bounds.
                loop {
                    type_bounds(p);
                    let next_is_pred = is_word(p, p.pos() + 1) && matches!(p.raw_kind(p.pos() + 2), COLON | EQ2 | DOT);
                    if !p.at(COMMA) || next_is_pred {
                        break;
                    }
                    p.bump(COMMA);
                }
            } else {
                p.expect(EQ2);
                types::type_(p);
            }
        } else if exprs::expr_no_comma(p).is_none() {
            // `where nonempty(T)`, `where countof(T) == N`: value constraints.
            p.error("expected a constraint in a where clause");
        } else if p.at(IDENT) && p.nth_text(0) == "implicit" {
            // `where ToType(FromType) implicit`: an implicit coercion.
            p.bump_remap(IDENT);
        }
        pred.complete(p, WHERE_PRED);
    }
}

/// `: IFoo, IBar<T>`, `: IFoo & IBar` (a conjunction: the types stand
/// side by side, as with `,`).
fn inheritance_list(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(COLON);
    loop {
        if types::type_(p).is_none() {
            break;
        }
        if !p.eat(COMMA) && !p.eat(AMP) {
            break;
        }
    }
    m.complete(p, INHERITANCE_LIST);
}

/// Generic parameters, inheritance and where clauses of a type declaration.
fn type_decl_header(p: &mut Parser<'_>) {
    if p.at(L_ANGLE) {
        generic_param_list(p);
    }
    if p.at(COLON) {
        inheritance_list(p);
    }
    while p.at(WHERE_KW) && is_where_clause(p) {
        where_clause(p);
    }
}

/// `{ members }`
pub(crate) fn member_list(p: &mut Parser<'_>) {
    if !p.at(L_CURLY) {
        p.error("expected `{`");
        return;
    }
    let m = p.start();
    p.bump(L_CURLY);
    item_list(p, ItemContext::Member);
    p.expect(R_CURLY);
    m.complete(p, MEMBER_LIST);
}

fn struct_decl(p: &mut Parser<'_>) -> SyntaxKind {
    let kind = if p.at(CLASS_KW) { CLASS } else { STRUCT };
    p.bump_any();
    // `struct [raypayload] Payload`
    attributes(p);
    if p.at(IDENT) {
        name(p);
    }
    type_decl_header(p);
    if p.eat(EQ) {
        // Link-time type: `extern struct S : IFoo = Impl;`
        types::type_(p);
        semicolon(p);
        return kind;
    }
    if p.at(L_CURLY) {
        member_list(p);
        // HLSL: `struct S { ... } s, t;` (but `struct S { … }` followed by
        // `float[3] f()`, an array-typed declaration, is not `s[3]`).
        let array_declarator = || {
            let mut i = p.pos() + 2;
            while i < p.pos() + 32 && !matches!(p.raw_kind(i), R_BRACK | EOF) {
                i += 1;
            }
            p.raw_kind(i) == R_BRACK && p.raw_kind(i + 1) != IDENT
        };
        let next = p.raw_kind(p.pos() + 1);
        if p.at(IDENT) && (matches!(next, SEMICOLON | COMMA | EQ | COLON) || (next == L_BRACK && array_declarator())) {
            declarator_list(p);
            semicolon(p);
        } else {
            p.eat(SEMICOLON);
        }
    } else {
        semicolon(p);
    }
    kind
}

fn enum_decl(p: &mut Parser<'_>) -> SyntaxKind {
    p.bump(ENUM_KW);
    if p.at(CLASS_KW) || p.at(STRUCT_KW) {
        p.bump_any();
    }
    if p.at(IDENT) {
        name(p);
    }
    // `enum class E<T : IArithmetic> : T { ... }` (generic enums).
    type_decl_header(p);
    if p.at(L_CURLY) {
        let b = p.start();
        p.bump(L_CURLY);
        while !p.at(R_CURLY) && !p.at_eof() {
            let c = p.start();
            attributes(p);
            if !p.at(IDENT) {
                c.abandon(p);
                p.err_recover("expected an enum case", &[SEMICOLON]);
                if p.at(SEMICOLON) || p.at(L_CURLY) {
                    break;
                }
                p.eat(COMMA);
                continue;
            }
            name(p);
            if p.eat(EQ) && expr_no_comma(p).is_none() {
                p.error("expected a value");
            }
            c.complete(p, ENUM_CASE);
            if !p.eat(COMMA) && !p.at(R_CURLY) {
                p.error("expected `,` or `}`");
                if !p.at(IDENT) {
                    break;
                }
            }
        }
        p.expect(R_CURLY);
        b.complete(p, ENUM_BODY);
        p.eat(SEMICOLON);
    } else {
        semicolon(p);
    }
    ENUM
}

fn interface_decl(p: &mut Parser<'_>) -> SyntaxKind {
    p.bump(INTERFACE_KW);
    name(p);
    type_decl_header(p);
    member_list(p);
    p.eat(SEMICOLON);
    INTERFACE
}

fn extension_decl(p: &mut Parser<'_>) -> SyntaxKind {
    p.bump_any();
    if p.at(L_ANGLE) {
        generic_param_list(p);
    }
    types::type_(p);
    if p.at(COLON) {
        inheritance_list(p);
    }
    while p.at(WHERE_KW) && is_where_clause(p) {
        where_clause(p);
    }
    member_list(p);
    p.eat(SEMICOLON);
    EXTENSION
}

fn typedef_decl(p: &mut Parser<'_>) -> SyntaxKind {
    p.bump(TYPEDEF_KW);
    types::type_(p);
    name(p);
    while p.at(L_BRACK) {
        let m = p.start();
        p.bump(L_BRACK);
        if !p.at(R_BRACK) {
            exprs::expr(p);
        }
        p.expect(R_BRACK);
        m.complete(p, ARRAY_SUFFIX);
    }
    // The reference compiler takes a `typedef` that ends its line without
    // `;` (`typedef A_Assoc MyAssocType` then the next member).
    if !p.at_line_start() || p.at(SEMICOLON) {
        semicolon(p);
    }
    TYPEDEF
}

fn typealias_decl(p: &mut Parser<'_>) -> SyntaxKind {
    p.bump(TYPEALIAS_KW);
    name(p);
    if p.at(L_ANGLE) {
        generic_param_list(p);
    }
    if p.eat(COLON) {
        type_bounds(p);
    }
    // `= IFoo & IBar`: a conjunction of interfaces.
    if p.eat(EQ) {
        type_bounds(p);
    }
    while p.at(WHERE_KW) && is_where_clause(p) {
        where_clause(p);
    }
    semicolon(p);
    TYPEALIAS
}

fn namespace_decl(p: &mut Parser<'_>) -> SyntaxKind {
    p.bump(NAMESPACE_KW);
    if p.at(IDENT) {
        name(p);
        while (p.at(COLON2) || p.at(DOT)) && is_word(p, p.pos() + 1) {
            p.bump_any();
            name(p);
        }
    }
    member_list(p);
    p.eat(SEMICOLON);
    NAMESPACE
}

/// `a.b.c` or `a::b` as a PATH of NAME_REFs.
fn dotted_path(p: &mut Parser<'_>) {
    let m = p.start();
    loop {
        if !name_ref(p) {
            p.error("expected a name");
            break;
        }
        if (p.at(DOT) || p.at(COLON2)) && is_word(p, p.pos() + 1) {
            p.bump_any();
            continue;
        }
        break;
    }
    m.complete(p, PATH);
}

/// `import a.b;`, `import "file.slang";`, `module m;`, `implementing m;`,
/// `__include m;`.
fn module_ref_decl(p: &mut Parser<'_>, kw: SyntaxKind, node: SyntaxKind) -> SyntaxKind {
    p.bump(kw);
    if p.at(STRING) {
        let m = p.start();
        p.bump(STRING);
        m.complete(p, LITERAL);
    } else if node == MODULE_DECL && p.at(IDENT) {
        name(p);
        // Dotted or dashed module names keep the remaining parts as tokens.
        while (p.at(DOT) || p.at(MINUS)) && is_word(p, p.pos() + 1) {
            p.bump_any();
            p.bump_any();
        }
    } else if p.at(IDENT) {
        dotted_path(p);
    } else {
        p.error("expected a module name or a string");
    }
    semicolon(p);
    node
}

fn associated_type(p: &mut Parser<'_>) -> SyntaxKind {
    let kw = if p.at(ASSOCIATEDTYPE_KW) { ASSOCIATEDTYPE_KW } else { TYPE_PARAM_KW };
    p.bump(kw);
    name(p);
    if p.eat(COLON) {
        loop {
            type_bounds(p);
            if !p.eat(COMMA) {
                break;
            }
        }
    }
    while p.at(WHERE_KW) && is_where_clause(p) {
        where_clause(p);
    }
    if p.eat(EQ) {
        types::type_(p);
    }
    semicolon(p);
    ASSOCIATED_TYPE
}

/// `property x : T { get; set; }` or `property T x { get { ... } }`.
fn property_decl(p: &mut Parser<'_>) -> SyntaxKind {
    p.bump(PROPERTY_KW);
    if p.at(IDENT) && p.raw_kind(p.pos() + 1) == COLON {
        name(p);
        p.bump(COLON);
        types::type_(p);
    } else {
        types::type_(p);
        name(p);
    }
    // An indexed property: `property float b[2] { get; }`.
    while p.at(L_BRACK) {
        let m = p.start();
        p.bump(L_BRACK);
        if !p.at(R_BRACK) {
            exprs::expr(p);
        }
        p.expect(R_BRACK);
        m.complete(p, ARRAY_SUFFIX);
    }
    if p.at(L_CURLY) {
        accessor_list(p);
    } else {
        semicolon(p);
    }
    PROPERTY
}

fn accessor_list(p: &mut Parser<'_>) {
    let m = p.start();
    p.bump(L_CURLY);
    while !p.at(R_CURLY) && !p.at_eof() {
        let a = p.start();
        attributes_and_modifiers(p);
        let kw = if p.at(GET_KW) {
            Some(GET_KW)
        } else if p.at(SET_KW) {
            Some(SET_KW)
        } else if p.at(REF_KW) {
            Some(REF_KW)
        } else if p.at(MODIFY_KW) {
            Some(MODIFY_KW)
        } else {
            None
        };
        match kw {
            Some(kw) => {
                p.bump_remap(kw);
                if p.at(L_PAREN) {
                    param_list(p);
                }
                if p.at(L_CURLY) {
                    block(p);
                } else {
                    semicolon(p);
                }
                a.complete(p, ACCESSOR);
            }
            None => {
                a.abandon(p);
                p.err_recover("expected `get`, `set` or `ref`", &[SEMICOLON]);
                if !p.eat(SEMICOLON) && (p.at(L_CURLY) || p.at_eof()) {
                    break;
                }
            }
        }
    }
    p.expect(R_CURLY);
    m.complete(p, ACCESSOR_LIST);
}

fn subscript_decl(p: &mut Parser<'_>) -> SyntaxKind {
    p.bump(SUBSCRIPT_KW);
    if p.at(L_ANGLE) {
        generic_param_list(p);
    }
    if p.at(L_PAREN) {
        param_list(p);
    } else {
        p.error("expected `(`");
    }
    fn_tail(p, false);
    SUBSCRIPT
}

fn init_decl(p: &mut Parser<'_>) -> SyntaxKind {
    p.bump(INIT_KW);
    fn_rest(p);
    INIT
}

fn cbuffer_decl(p: &mut Parser<'_>) -> SyntaxKind {
    p.bump_any();
    name(p);
    loop {
        if p.at(COLON) {
            semantic(p);
        } else if p.at(IDENT) && p.raw_kind(p.pos() + 1) == L_PAREN {
            // A macro standing for a binding: `cbuffer View SLOT(b0) { }`.
            let m = p.start();
            p.bump(IDENT);
            let args = p.start();
            token_tree(p);
            args.complete(p, ARG_LIST);
            m.complete(p, MACRO_CALL);
        } else {
            break;
        }
    }
    member_list(p);
    p.eat(SEMICOLON);
    CBUFFER
}
