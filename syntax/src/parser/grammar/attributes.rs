//! Attributes (`[Attr(args)]`, `[[vk::binding(0)]]`) and modifiers
//! (`static`, `in`, `no_diff`, `layout(...)`, `__target_intrinsic(...)` …).

use super::{exprs, is_word, name_ref, scan_type, token_tree, Parser};
use crate::SyntaxKind::{self, *};

/// Any number of attributes in a row.
pub(crate) fn attributes(p: &mut Parser<'_>) -> bool {
    let mut any = false;
    while p.at(L_BRACK) {
        attribute(p);
        any = true;
    }
    any
}

/// `[A]`, `[A(x), B]`, `[[vk::binding(0, 1)]]`.
pub(crate) fn attribute(p: &mut Parser<'_>) {
    let m = p.start();
    let double = p.raw_kind(p.pos() + 1) == L_BRACK;
    p.bump(L_BRACK);
    if double {
        p.bump(L_BRACK);
    }
    loop {
        attribute_body(p);
        // `[[A(0) B(1)]]`: the comma between attributes may be left out.
        if !(p.eat(COMMA) || p.at(IDENT) || p.current().is_keyword()) {
            break;
        }
    }
    p.expect(R_BRACK);
    if double {
        p.expect(R_BRACK);
    }
    m.complete(p, ATTRIBUTE);
}

fn attribute_body(p: &mut Parser<'_>) {
    // The attribute name: a path such as `vk::binding` or `Differentiable`.
    let path = p.start();
    let mut ok = false;
    loop {
        if name_ref(p) || attribute_keyword_name(p) {
            ok = true;
        } else {
            p.error("expected an attribute name");
            break;
        }
        if !(p.eat(COLON2) || p.eat(DOT)) {
            break;
        }
    }
    path.complete(p, PATH);
    if ok && p.at(L_PAREN) {
        let args = p.start();
        super::delimited(p, L_PAREN, R_PAREN, &[R_BRACK, SEMICOLON], |p| exprs::expr_no_comma(p).is_some());
        args.complete(p, ATTRIBUTE_ARGS);
    }
}

/// Keywords that are also attribute names (`[mutating]`, `[export]` …).
fn attribute_keyword_name(p: &mut Parser<'_>) -> bool {
    let k = p.current();
    if k.is_keyword() {
        p.bump_remap(IDENT);
        return true;
    }
    false
}

/// Hard-keyword modifiers: always modifiers where a declaration may start.
const HARD_MODIFIERS: &[SyntaxKind] = &[
    PUBLIC_KW,
    PRIVATE_KW,
    INTERNAL_KW,
    STATIC_KW,
    CONST_KW,
    CONSTEXPR_KW,
    CONSTREF_KW,
    UNDERSCORE_CONSTREF_KW,
    UNDERSCORE_REF_KW,
    UNIFORM_KW,
    GROUPSHARED_KW,
    EXTERN_KW,
    EXPORT_KW,
    INLINE_KW,
    NO_DIFF_KW,
    NOINTERPOLATION_KW,
    NOPERSPECTIVE_KW,
    VOLATILE_KW,
    GLOBALLYCOHERENT_KW,
    ROW_MAJOR_KW,
    COLUMN_MAJOR_KW,
];

/// Soft-keyword modifiers: modifiers only when followed by another word
/// (so `precise = 1;` still assigns a variable called `precise`).
const SOFT_MODIFIERS: &[SyntaxKind] = &[
    IN_KW,
    OUT_KW,
    INOUT_KW,
    VARYING_KW,
    SHARED_KW,
    BUFFER_KW,
    OVERRIDE_KW,
    LINEAR_KW,
    CENTROID_KW,
    SAMPLE_KW,
    PRECISE_KW,
    COHERENT_KW,
    READONLY_KW,
    WRITEONLY_KW,
    RESTRICT_KW,
    SNORM_KW,
    UNORM_KW,
    MUTATING_KW,
    NONMUTATING_KW,
    HIGHP_KW,
    MEDIUMP_KW,
    LOWP_KW,
    FLAT_KW,
    SMOOTH_KW,
    TRIANGLE_KW,
    POINT_KW,
    LINE_KW,
    LINEADJ_KW,
    TRIANGLEADJ_KW,
    INDICES_KW,
    VERTICES_KW,
    PRIMITIVES_KW,
    PAYLOAD_KW,
    DYNAMIC_UNIFORM_KW,
    REF_KW,
];

/// `__`-prefixed keywords that start an item or statement, not modifiers.
fn is_dunder_item_keyword(k: SyntaxKind) -> bool {
    matches!(
        k,
        INIT_KW
            | SUBSCRIPT_KW
            | GENERIC_KW
            | INCLUDE_KW
            | IGNORED_BLOCK_KW
            | TRANSPARENT_BLOCK_KW
            | FILE_DECL_KW
            | TARGET_SWITCH_KW
            | STAGE_SWITCH_KW
            | INTRINSIC_ASM_KW
            | FWD_DIFF2_KW
            | BWD_DIFF2_KW
            | FUNC_EXTENSION_KW
            | CONSTRAINT_KW
            | UNDERSCORE_IMPORT_KW
            | UNDERSCORE_EXTENSION_KW
            | GENERIC_VALUE_PARAM_KW
    )
}

/// Whether a modifier starts at the current token.
pub(crate) fn at_modifier(p: &Parser<'_>) -> bool {
    let k = p.current();
    if HARD_MODIFIERS.contains(&k) {
        return true;
    }
    if k.is_keyword() && p.nth_text(0).starts_with("__") && !is_dunder_item_keyword(k) {
        return true;
    }
    if k == IDENT {
        let i = p.pos();
        let next_is_word = is_word(p, i + 1) || p.raw_kind(i + 1).is_keyword() || p.raw_kind(i + 1) == L_BRACK;
        if p.at(LAYOUT_KW) && p.raw_kind(i + 1) == L_PAREN {
            return true;
        }
        let kw = p.input.contextual(i);
        if kw != IDENT && SOFT_MODIFIERS.contains(&kw) && next_is_word {
            // `sample` etc. are common variable names: `sample x` is a
            // modifier only if a type and a name (or another modifier) follow.
            return scan_type(p, i + 1).is_some_and(|j| is_word(p, j))
                || p.raw_kind(i + 1).is_keyword()
                || (is_word(p, i + 1) && p.raw_kind(i + 2) == L_CURLY);
        }
        // GLSL: `layout(local_size_x = 8) in;`
        if (kw == IN_KW || kw == OUT_KW) && p.raw_kind(i + 1) == SEMICOLON {
            return true;
        }
        // An object-like macro standing for modifiers: `INLINE float f()`.
        let text = p.nth_text(0);
        if p.input.macros.is_object_like(text) {
            return (p.raw_kind(i + 1).is_keyword() && p.raw_kind(i + 1) != THIS_TYPE_KW)
                || scan_type(p, i + 1).is_some_and(|j| is_word(p, j) || p.raw_kind(j) == OPERATOR_KW);
        }
        // A word that cannot be a type here, because a declaration follows
        // it: a macro defined elsewhere (an included header) that stands for
        // modifiers or attributes — `EXPORT float f()`, `API struct S {}`.
        // Spelled in capitals, as macros are (`Type name MACRO(x)` is the
        // other reading of three words).
        // (Not `int struct = 42;`: a keyword as the declared name; nor a
        // soft keyword that starts a declaration: `property no_diff T x`.)
        if !matches!(kw, PROPERTY_KW | VAR_KW | FUNC_KW | USING_KW | MODULE_KW | IMPLEMENTING_KW | TYPE_PARAM_KW)
            && (matches!(
                p.raw_kind(i + 1),
                STRUCT_KW | CLASS_KW | ENUM_KW | INTERFACE_KW | TYPEDEF_KW | TYPEALIAS_KW | CBUFFER_KW | TBUFFER_KW
            ) || HARD_MODIFIERS.contains(&p.raw_kind(i + 1)))
            && !super::is_keyword_name(p, i + 1)
        {
            return true;
        }
        // GLSL storage qualifiers of ray tracing and mesh shading, and
        // `pervertex`: `layout(location = 0) rayPayloadEXT vec4 payload;`.
        if is_glsl_qualifier(text) && super::scan_type_then_name(p, i + 1).is_some() {
            return true;
        }
        let caps =
            |t: &str| t.len() >= 2 && t.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if caps(text)
            && scan_type(p, i) == Some(i + 1)
            && super::scan_type_then_name(p, i + 1).is_some_and(|j| {
                !caps(p.input.text(j))
                    && (matches!(p.raw_kind(j + 1), L_PAREN | SEMICOLON | EQ | COMMA | L_BRACK | COLON | L_ANGLE)
                        // `PUBLIC Texture2D t R(: register(t2));`
                        || (p.raw_kind(j + 1) == IDENT
                            && p.input.text(j + 1).bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
                            && p.raw_kind(j + 2) == L_PAREN))
            })
        {
            return true;
        }
    }
    false
}

/// Qualifier words that Slang's GLSL mode and `pervertex` add.
fn is_glsl_qualifier(text: &str) -> bool {
    matches!(
        text,
        "pervertex"
            | "rayPayloadEXT"
            | "rayPayloadNV"
            | "rayPayloadInEXT"
            | "rayPayloadInNV"
            | "hitAttributeEXT"
            | "hitAttributeNV"
            | "callableDataEXT"
            | "callableDataNV"
            | "callableDataInEXT"
            | "callableDataInNV"
            | "shaderRecordEXT"
            | "shaderRecordNV"
            | "hitObjectAttributeNV"
            | "hitObjectAttributeEXT"
            | "perprimitiveEXT"
            | "perprimitiveNV"
            | "taskPayloadSharedEXT"
    )
}

/// Consume one modifier (the caller checked [`at_modifier`]).
pub(crate) fn modifier(p: &mut Parser<'_>) {
    let k = p.current();
    if k == IDENT {
        if p.at(LAYOUT_KW) {
            let m = p.start();
            p.bump_remap(LAYOUT_KW);
            token_tree(p);
            m.complete(p, LAYOUT_MODIFIER);
            return;
        }
        let kw = p.input.contextual(p.pos());
        if kw != IDENT {
            p.bump_remap(kw);
        } else {
            // A macro used as a modifier: keep it as a plain identifier.
            p.bump_remap(IDENT);
        }
        return;
    }
    if p.raw_kind(p.pos() + 1) == L_PAREN && p.nth_text(0).starts_with("__") {
        let m = p.start();
        p.bump_any();
        token_tree(p);
        m.complete(p, MODIFIER_CALL);
        return;
    }
    p.bump_any();
}

/// Attributes and modifiers in any order. Returns whether any was seen.
pub(crate) fn attributes_and_modifiers(p: &mut Parser<'_>) -> bool {
    let mut any = false;
    loop {
        if p.at(L_BRACK) {
            attribute(p);
        } else if at_modifier(p) {
            modifier(p);
        } else {
            break;
        }
        any = true;
    }
    any
}
