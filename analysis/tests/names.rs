//! Name resolution and the diagnostics it produces, on fixtures.

mod common;

use common::{fixture, render_diagnostics};
use expect_test::{expect, Expect};

fn check(text: &str, expect: Expect) {
    let fx = fixture(text);
    expect.assert_eq(&render_diagnostics(&fx));
}

#[test]
fn locals_params_and_globals_resolve() {
    check(
        r#"
static const float kScale = 2.0;
struct Light { float3 dir; float intensity; float power() { return intensity * kScale; } }
float shade<T>(T t, float3 n, Light l)
{
    float d = max(dot(n, l.dir), 0.0);
    for (int i = 0; i < 3; i++) { d += float(i); }
    if (let x = maybe()) { d += x; }
    return d * l.power() + helper(d);
}
float helper(float x) { return x; }
float maybe() { return 1.0; }
"#,
        expect![[""]],
    );
}

#[test]
fn undefined_names_are_reported_once_each() {
    check(
        r#"
float f(float x)
{
    float y = x + undefinedThing;
    return missingFunction(y) + x.anyMember;
}
Missing g() { return f(1.0); }
"#,
        expect![[r#"
            /main.slang:4:19: error[unresolved-name]: cannot find `undefinedThing` in this scope
            /main.slang:5:12: error[unresolved-name]: cannot find `missingFunction` in this scope
            /main.slang:5:35: error[no-such-member]: no member named `anyMember` in `float`
            /main.slang:7:1: error[unresolved-type]: cannot find type `Missing` in this scope
        "#]],
    );
}

#[test]
fn locals_are_visible_only_after_their_declaration_and_in_their_block() {
    check(
        r#"
void f()
{
    a = 1;
    int a = 0;
    { int inner = 2; }
    inner = 3;
}
"#,
        expect![[r#"
            /main.slang:4:5: error[unresolved-name]: cannot find `a` in this scope
            /main.slang:7:5: error[unresolved-name]: cannot find `inner` in this scope
        "#]],
    );
}

#[test]
fn macros_and_defines_count_as_names() {
    check(
        r#"
#define N 4
#define SCALE(x) ((x) * 2)
float a[N];
float f() { return SCALE(a[0]) + __LINE__; }
"#,
        expect![[""]],
    );
}

#[test]
fn imports_resolve_across_files_with_visibility() {
    check(
        r#"
//- /lib/math_utils.slang
module math_utils;
public float publicHelper(float x) { return x; }
internal float internalHelper(float x) { return x; }
//- /main.slang
import lib.math_utils;
float f() { return publicHelper(1.0) + internalHelper(2.0); }
"#,
        expect![[r#"
            /main.slang:2:40: error[unresolved-name]: cannot find `internalHelper` in this scope
        "#]],
    );
}

#[test]
fn legacy_modules_export_everything() {
    check(
        r#"
//- /common.slang
float helper(float x) { return x; }
//- /main.slang
import common;
float f() { return helper(1.0); }
"#,
        expect![[""]],
    );
}

#[test]
fn missing_imports_are_reported_and_silence_name_errors() {
    check(
        r#"
import not_there;
#include "nor_this.slangh"
float f() { return fromTheMissingModule(1.0); }
"#,
        expect![[r#"
            /main.slang:2:1: error[unresolved-import]: cannot find module `not_there` (looked for /not_there.slang and 1 other place)
            /main.slang:3:1: error[unresolved-import]: cannot find file `nor_this.slangh` (looked for /nor_this.slangh)
        "#]],
    );
}

#[test]
fn module_files_share_internal_declarations() {
    check(
        r#"
//- /scene.slang
module scene;
__include scene_helpers;
float useHelper() { return helperInOtherFile(1.0); }
//- /scene_helpers.slang
implementing scene;
internal float helperInOtherFile(float x) { return useHelper() + x; }
"#,
        expect![[""]],
    );
}

/// The reference compiler rejects `implementing m;` (E30102) in the file a
/// compilation starts from, and accepts the module's primary file that
/// `__include`s it; the file's own diagnostics (what the language server
/// shows, in its module's context) stay clean.
#[test]
fn implementing_is_an_error_only_where_a_compilation_starts() {
    let fx = fixture(
        r#"
//- /scene.slang
module scene;
__include scene_helpers;
float useHelper() { return helperInOtherFile(1.0); }
//- /scene_helpers.slang
// Part of scene.
implementing scene;
internal float helperInOtherFile(float x) { return useHelper() + x; }
//- /orphan.slang
implementing scene;
float orphan() { return 1.0; }
"#,
    );
    let mut out = String::new();
    for &f in &fx.files {
        let text = f.text(&fx.db);
        for d in slang_analysis::compilation_root_diagnostics(&fx.db, f) {
            let (line, col) = slang_syntax::line_col(text, d.range.start());
            out.push_str(&format!("{}:{line}:{col}: [{}]: {}\n", f.path(&fx.db), d.code, d.message));
        }
    }
    expect![[r#"
        /scene_helpers.slang:2:1: [implementing-in-root]: `implementing scene` is not allowed in the file a compilation starts from: this file is part of module `scene`; check `scene.slang` (the file that `__include`s it) instead
        /orphan.slang:1:1: [implementing-in-root]: `implementing scene` is not allowed in the file a compilation starts from: this file is part of module `scene`; `scene.slang` must `__include` it, and is the file to check
    "#]].assert_eq(&out);
    expect![[""]].assert_eq(&render_diagnostics(&fx));
}

/// slangc rejects each file of an import cycle on its import that leads
/// round (E38200: a.slang:1, b.slang:2, c.slang:2) and accepts a file that
/// imports a module outside any cycle.
#[test]
fn import_cycles_are_reported_on_the_import_that_leads_round() {
    check(
        r#"
//- /a.slang
import b;
float fa() { return fb(); }
//- /b.slang
module b;
import c;
public float fb() { return fc(); }
//- /c.slang
module c;
import a;
public float fc() { return 1.0; }
//- /d.slang
module d;
public float fd() { return 1.0; }
//- /e.slang
import d;
float fe() { return fd(); }
"#,
        expect![[r#"
            /a.slang:1:1: error[recursive-import]: module `b` imports this module back: modules cannot import each other; move what both need into a third module that both import
            /b.slang:2:1: error[recursive-import]: module `c` imports this module back: modules cannot import each other; move what both need into a third module that both import
            /c.slang:2:1: error[recursive-import]: module `a` imports this module back: modules cannot import each other; move what both need into a third module that both import
        "#]],
    );
}

#[test]
fn pp_include_brings_declarations_and_macros() {
    check(
        r#"
//- /shared/defs.slangh
#define MAX_LIGHTS 8
struct LightData { float3 color; };
//- /main.slang
#include "shared/defs.slangh"
LightData lights[MAX_LIGHTS];
"#,
        expect![[""]],
    );
}

#[test]
fn namespaces_and_members() {
    check(
        r#"
namespace outer { namespace inner { float value() { return 1.0; } } float other() { return inner::value(); } }
float f() { return outer::inner::value() + outer::other(); }
enum Color { Red, Green = Red + 1 }
struct S { int a; int b = a; [mutating] void m() { a = b; } }
"#,
        expect![[""]],
    );
}

#[test]
fn silent_where_members_may_be_inherited() {
    check(
        r#"
interface IShape { float area(); }
struct Square : IShape { float side; float area() { return side * side + defaultFromInterface(); } }
extension Square { float twice() { return area() * 2.0 + memberFromElsewhere; } }
"#,
        expect![[""]],
    );
}

/// Member access control, as slangc reports it (E30600 on lines 7-10 of
/// main, E30604 on line 13 of lib): members default to `internal`
/// outside legacy modules, `private` ones are only usable inside the type.
#[test]
fn member_visibility_is_enforced_across_modules() {
    check(
        r#"
//- /lib.slang
module lib;
public struct P
{
    float a;
    public float b;
    private float c;
    public __init() { a = 0; b = 0; c = 0; }
    public float sum() { return a + b + c; }
    private float secret() { return c; }
}
struct Q { float q; }
public struct H { uint i; private __init(uint x) { i = x; } public static H make(uint x) { return H(x); } }
public Q leak() { Q q; q.q = 1; return q; }
//- /main.slang
import lib;
RWStructuredBuffer<float> o;
[numthreads(1,1,1)] void main()
{
    P p;
    o[0] = p.b + p.sum();
    o[1] = p.a;
    o[2] = p.c;
    o[3] = p.secret();
    H h = H(1);
    H k = H.make(2);
}
"#,
        expect![[r#"
            /lib.slang:13:8: error[exposes-less-visible-type]: public `leak` exposes `Q`, which is internal; make `Q` public or `leak` less visible
            /main.slang:7:14: error[inaccessible]: `a` is internal and cannot be used here
            /main.slang:8:14: error[inaccessible]: `c` is private and cannot be used here
            /main.slang:9:14: error[inaccessible]: `secret` is private and cannot be used here
            /main.slang:10:11: error[inaccessible]: `H.init` is private and cannot be used here
        "#]],
    );
}

/// `import glsl;` names the reference compiler's built-in GLSL module
/// (slangc 2026.14.1 accepts both spellings); its declarations are in the
/// core module here.
#[test]
fn import_glsl_is_builtin() {
    check(
        r#"
import glsl;
import "glsl";
import missing_module;
vec4 f() { return vec4(1.0); }
"#,
        expect![[r#"
            /main.slang:4:1: error[unresolved-import]: cannot find module `missing_module` (looked for /missing_module.slang and 1 other place)
        "#]],
    );
}

/// Names the reference compiler knows that are not declarations (slangc
/// 2026.14.1, `-unscoped-enum`, accepts all but the last two lines of
/// `f`): bare enum cases (unscoped by that option or `[UnscopedEnum]`,
/// which can't be told here; an `enum class` stays scoped), capability atoms in
/// `__requireCapability`, `__return_val`, and the built-ins
/// `saturated_cooperation` and `__SyntaxError`.
#[test]
fn enum_cases_capabilities_and_builtins() {
    check(
        r#"
enum Color { Red, Green }
enum class Fruit { Apple }
struct Unit {}
int twice(float x, Unit u) { return int(x) * 2; }
int f(float x)
{
    __requireCapability(sm_5_0);
    int c = Red + Green;
    let y = saturated_cooperation(twice, twice, x, Unit());
    __requireCapability(NoSuchCapability);
    return Apple;
}
"#,
        expect![[r#"
            /main.slang:11:25: error[unresolved-name]: cannot find `NoSuchCapability` in this scope
            /main.slang:12:12: error[unresolved-name]: cannot find `Apple` in this scope
        "#]],
    );
}
