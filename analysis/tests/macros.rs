//! The analysis reads the macro-expanded text: no false errors from
//! macros that expand to attributes, modifiers or declarations; macros of
//! `#include`d files and function-like macros in `#if`; diagnostics inside
//! an expansion point at the use; IDE features map between the texts.

mod common;

use common::{fixture, render_diagnostics};
use expect_test::expect;
use slang_analysis::{ide, to_expanded_offset, to_source_range, TextSize};

#[test]
fn macros_that_expand_to_modifiers_and_conditions() {
    let fx = fixture(
        r#"
#define SETTER_DECL [mutating]
#define CONST_FUNCTION
#define SQ(x) ((x) * (x))
#define FLAGS 6
#define HAS_FLAG(f) ((FLAGS & (f)) != 0)
#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)
struct S {
    float v;
    SETTER_DECL void set(float x) { v = x; }
    CONST_FUNCTION float get() { return SQ(v); }
};
#if HAS_FLAG(2) && defined(SQ)
float enabled() { return 1.0; }
#endif
float use()
{
    S s;
    s.set(2.0);
    LOG("%f", s.v);
    return s.get() + enabled() + SQ(missing);
}
"#,
    );
    // One error, at the argument, naming the macro (not twice, although
    // `x` is used twice in the body).
    expect![[r#"
        /main.slang:21:37: error[unresolved-name]: cannot find `missing` in this scope (in the expansion of macro `SQ`)
    "#]]
    .assert_eq(&render_diagnostics(&fx));
}

#[test]
fn macros_of_included_files() {
    let fx = fixture(
        r#"
//- /lib/defines.slangh
#pragma once
#define SCENE_HAS_TYPE(t) ((SCENE_TYPES & (1 << (t))) != 0)
#define SCENE_TYPES 5
#define DECLARE_GETTER(T, name) T get_##name() { return T(0); }
//- /main.slang
#include "lib/defines.slangh"
#if SCENE_HAS_TYPE(2)
DECLARE_GETTER(float, x)
#endif
#if SCENE_HAS_TYPE(1)
int never = undefinedHere;
#endif
float f() { return get_x(); }
"#,
    );
    expect![[""]].assert_eq(&render_diagnostics(&fx));
}

#[test]
fn an_error_directive_stops_the_file() {
    let fx = fixture(
        r#"
#ifndef MATERIAL_COUNT
#error "MATERIAL_COUNT must be defined by the host"
#endif
float f() { return MATERIAL_COUNT + undefinedToo; }
"#,
    );
    expect![[r#"
        /main.slang:3:1: error[error-directive]: #error "MATERIAL_COUNT must be defined by the host"
    "#]]
    .assert_eq(&render_diagnostics(&fx));
}

#[test]
fn ide_features_through_a_macro_argument_and_on_its_name() {
    let fx = fixture(
        r#"
#define DECLARE(T, name) T name;
#define TWICE(e) ((e) + (e))
struct Light { float intensity; };
DECLARE(Light, gLight)
float f() { return TWICE(gLight.intens$0ity); }
"#,
    );
    let (file, offset) = fx.cursor.unwrap();
    let db = &fx.db;
    let text = file.text(db);
    // Hover on `intensity` inside the argument: the field.
    let at = to_expanded_offset(db, file, TextSize::from(offset));
    let h = ide::hover(db, file, at).expect("a hover");
    assert!(h.markdown.contains("float intensity"), "{}", h.markdown);
    assert_eq!(&text[to_source_range(db, file, h.range)], "intensity");
    // Go to definition of `gLight` (declared by a macro): the use.
    let g = text.find("gLight.").unwrap() as u32;
    let targets = ide::goto_definition(db, file, to_expanded_offset(db, file, TextSize::from(g)));
    assert_eq!(targets.len(), 1);
    assert_eq!(&text[to_source_range(db, file, targets[0].focus_range)], "gLight");
    // On a macro's name: its `#define`, and what it expands to.
    let t = text.find("TWICE(gLight").unwrap() as u32 + 1;
    let def = ide::macro_definition(db, file, TextSize::from(t)).expect("a definition");
    assert_eq!(&text[def.focus_range], "TWICE");
    let h = ide::macro_hover(db, file, TextSize::from(t)).unwrap();
    expect![[r#"
        ```slang
        #define TWICE(e) ((e) + (e))
        ```

        Expands to:
        ```slang
        ((gLight.intensity) + (gLight.intensity))
        ```
    "#]]
    .assert_eq(&h.markdown);
    // References of a macro: its `#define` and its uses.
    let refs = ide::macro_references(db, file, TextSize::from(t), true).unwrap();
    let found: Vec<(u32, bool)> = refs.iter().map(|r| (u32::from(r.range.start()), r.is_declaration)).collect();
    let def_at = text.find("TWICE(e)").unwrap() as u32;
    assert_eq!(found, vec![(def_at, true), (t - 1, false)]);
    assert_eq!(ide::macro_references(db, file, TextSize::from(def_at + 2), false).unwrap().len(), 1);
    // Semantic tokens are in the text's own offsets: the macro's name is a
    // macro, the argument's names are what they name.
    let toks = ide::semantic_tokens(db, file, None);
    let kind_at = |needle: &str, nth: usize| {
        let at = text.match_indices(needle).nth(nth).unwrap().0 as u32;
        toks.iter().find(|t| u32::from(t.range.start()) == at).map(|t| (t.kind, &text[t.range]))
    };
    assert_eq!(kind_at("TWICE", 1), Some((ide::TokenKind::Macro, "TWICE")));
    assert_eq!(kind_at("intensity", 1).map(|k| k.1), Some("intensity"));
    assert_ne!(kind_at("intensity", 1).map(|k| k.0), Some(ide::TokenKind::Macro));
}

/// Completion reads the expanded text at the expanded offset (in a file
/// with macros the two texts differ before the cursor).
#[test]
fn member_completion_after_a_macro_use() {
    let fx = fixture(
        r#"
#define LONG_MACRO_NAME(x) (x)
struct Light { float intensity; float3 dir; };
float f(Light l) { float a = LONG_MACRO_NAME(1.0); return l.$0; }
"#,
    );
    let (file, offset) = fx.cursor.unwrap();
    let at = to_expanded_offset(&fx.db, file, TextSize::from(offset));
    let names: Vec<String> = ide::completions(&fx.db, file, at).into_iter().map(|c| c.label).collect();
    assert!(names.contains(&"intensity".to_string()) && names.contains(&"dir".to_string()), "{names:?}");
    assert!(!names.contains(&"f".to_string()), "scope names offered after `.`: {names:?}");
}

/// Directives of an included file are found wherever a line starts with
/// `#` (indented too), but not in a comment, on a continued line or in
/// inactive code (slangc: `COMMENTED` and `INACTIVE` are undefined).
#[test]
fn included_directives_outside_comments_and_inactive_code() {
    let fx = fixture(
        r#"
//- /lib/more.slangh
   #define INDENTED 3
/*
#define COMMENTED 1
*/
#define CONT(x) \
    (x + INDENTED)
#if 0
#define INACTIVE 1
#endif
//- /main.slang
#include "lib/more.slangh"
int a() { return CONT(1); }
int b() { return COMMENTED; }
int c() { return INACTIVE; }
"#,
    );
    expect![[r#"
        /main.slang:3:18: error[unresolved-name]: cannot find `COMMENTED` in this scope
        /main.slang:4:18: error[unresolved-name]: cannot find `INACTIVE` in this scope
    "#]]
    .assert_eq(&render_diagnostics(&fx));
}
