//! IDE features at cursor positions (`$0`): hover, go to definition,
//! document symbols, completion.

mod common;

use common::fixture;
use expect_test::{expect, Expect};
use slang_analysis::ide;
use slang_analysis::TextSize;

fn check_hover(text: &str, expect: Expect) {
    let fx = fixture(text);
    let (file, offset) = fx.cursor.expect("fixture needs $0");
    let h = ide::hover(&fx.db, file, TextSize::from(offset));
    let out = match h {
        Some(h) => format!("{:?}\n{}\n", h.range, h.markdown),
        None => "no hover\n".to_string(),
    };
    expect.assert_eq(&out);
}

fn check_goto(text: &str, expect: Expect) {
    let fx = fixture(text);
    let (file, offset) = fx.cursor.expect("fixture needs $0");
    let mut out = String::new();
    for t in ide::goto_definition(&fx.db, file, TextSize::from(offset)) {
        let src = t.file.text(&fx.db);
        let line = src[..usize::from(t.focus_range.start())].matches('\n').count() + 1;
        out.push_str(&format!(
            "{}:{line} `{}` in `{}`\n",
            t.file.path(&fx.db),
            &src[t.focus_range],
            src[t.full_range].lines().next().unwrap_or("").trim()
        ));
    }
    expect.assert_eq(&out);
}

fn check_completions(text: &str, filter: &dyn Fn(&ide::CompletionEntry) -> bool, expect: Expect) {
    let fx = fixture(text);
    let (file, offset) = fx.cursor.expect("fixture needs $0");
    let mut items: Vec<_> =
        ide::completions(&fx.db, file, TextSize::from(offset)).into_iter().filter(|c| filter(c)).collect();
    items.sort_by(|a, b| (a.rank, &a.label).cmp(&(b.rank, &b.label)));
    let out: String = items
        .iter()
        .map(|c| {
            format!(
                "{:?} {}{}{}\n",
                c.kind,
                c.label,
                c.detail.as_ref().map(|d| format!(" — {d}")).unwrap_or_default(),
                c.snippet.as_ref().map(|s| format!(" [{s}]")).unwrap_or_default()
            )
        })
        .collect();
    expect.assert_eq(&out);
}

const SHADING: &str = r#"
/// Lambertian shading.
/// Clamped at zero.
[Differentiable]
float shade(float3 n, float3 l, no_diff float albedo)
{
    float d = max(dot(n, l), 0.0);
    return albedo * d;
}

struct Light : IDifferentiable
{
    float3 dir;
    float intensity;
    no_diff int id;
}
"#;

#[test]
fn hover_on_a_differentiable_function_shows_its_derivatives() {
    check_hover(
        &format!("{SHADING}\nfloat use(float3 n) {{ return sha$0de(n, n, 1.0); }}"),
        expect![[r#"
            302..307
            ```slang
            [Differentiable]
            float shade(float3 n, float3 l, no_diff float albedo)
            ```

            Lambertian shading.
            Clamped at zero.

            ---

            **Autodiff**
            ```slang
            DifferentialPair<float> fwd_diff(shade)(DifferentialPair<float3> n, DifferentialPair<float3> l, float albedo)
            void bwd_diff(shade)(inout DifferentialPair<float3> n, inout DifferentialPair<float3> l, float albedo, float dResult)
            ```
        "#]],
    );
}

#[test]
fn hover_on_a_differentiable_struct_shows_its_differential() {
    check_hover(
        &format!("{SHADING}\nfloat use(Lig$0ht l) {{ return l.intensity; }}"),
        expect![[r#"
            283..288
            ```slang
            struct Light : IDifferentiable
            ```

            ---

            **Autodiff**
            ```slang
            struct Light.Differential // synthesized
            {
                float3 dir;
                float intensity;
            }
            ```
        "#]],
    );
}

#[test]
fn hover_on_fwd_diff_shows_the_transformed_signature() {
    check_hover(
        &format!("{SHADING}\nvoid use(float3 n) {{ var r = fwd_d$0iff(shade)(diffPair(n, n), diffPair(n, n), 1.0); }}"),
        expect![[r#"
            302..310
            ```slang
            DifferentialPair<float> fwd_diff(shade)(DifferentialPair<float3> n, DifferentialPair<float3> l, float albedo)
            ```
        "#]],
    );
}

#[test]
fn hover_on_a_local_shows_its_type_and_derivative_flow() {
    check_hover(
        r#"
[Differentiable]
float f(float x)
{
    let y = x * 2.0;
    return y$0 + 1.0;
}
"#,
        expect![[r#"
            69..70
            ```slang
            float y
            ```

            carries a derivative here
        "#]],
    );
}

#[test]
fn goto_definition_of_functions_locals_fields_and_types() {
    check_goto(
        &format!("{SHADING}\nfloat use(float3 n) {{ return sha$0de(n, n, 1.0); }}"),
        expect![[r#"
        /main.slang:5 `shade` in `/// Lambertian shading.`
    "#]],
    );
    check_goto(
        r#"
float f(float x)
{
    float y = x;
    return y$0;
}
"#,
        expect![[r#"
            /main.slang:4 `y` in `y = x`
        "#]],
    );
    check_goto(
        &format!("{SHADING}\nfloat use(Light l) {{ return l.inten$0sity; }}"),
        expect![[r#"
        /main.slang:14 `intensity` in `float intensity;`
    "#]],
    );
    check_goto(
        &format!("{SHADING}\nfloat use(Li$0ght l) {{ return l.intensity; }}"),
        expect![[r#"
        /main.slang:11 `Light` in `struct Light : IDifferentiable`
    "#]],
    );
    check_goto(
        r#"
//- /lib.slang
module lib;
public float helper(float x) { return x; }
//- /main.slang
import lib;
float g(float x) { return hel$0per(x); }
"#,
        expect![[r#"
            /lib.slang:2 `helper` in `public float helper(float x) { return x; }`
        "#]],
    );
}

#[test]
fn document_symbols_are_nested() {
    let fx = fixture(SHADING);
    let file = fx.files[0];
    let syms = ide::document_symbols(&fx.db, file);
    let mut out = String::new();
    fn show(s: &[ide::DocumentSymbol], depth: usize, out: &mut String) {
        for s in s {
            out.push_str(&format!(
                "{}{:?} {} — {}\n",
                "  ".repeat(depth),
                s.kind,
                s.name,
                s.detail.clone().unwrap_or_default()
            ));
            show(&s.children, depth + 1, out);
        }
    }
    show(&syms, 0, &mut out);
    expect![[r#"
        Fn shade — [Differentiable]
        float shade(float3 n, float3 l, no_diff float albedo)
        Struct Light — struct Light : IDifferentiable
          Var dir — float3 dir
          Var intensity — float intensity
          Var id — no_diff int id
    "#]]
    .assert_eq(&out);
}

#[test]
fn completion_of_members_pairs_and_differentials() {
    let none = |_: &ide::CompletionEntry| true;
    check_completions(
        &format!("{SHADING}\nfloat use(Light l) {{ return l.$0; }}"),
        &none,
        expect![[r#"
        Field dir — float3 dir
        Field id — no_diff int id
        Field intensity — float intensity
    "#]],
    );
    check_completions(
        &format!("{SHADING}\nfloat use(DifferentialPair<Light> p) {{ return p.$0; }}"),
        &none,
        expect![[r#"
            Field d — Light.Differential (differential)
            Method getDifferential — Light.Differential getDifferential()
            Method getPrimal — Light getPrimal()
            Field p — Light (primal)
        "#]],
    );
    check_completions(
        &format!("{SHADING}\nfloat use(Light.Differential d) {{ return d.$0; }}"),
        &none,
        expect![[r#"
            Field dir — float3 dir (synthesized)
            Field intensity — float intensity (synthesized)
        "#]],
    );
    check_completions(
        "float use(float3 v) { return v.$0; }",
        &none,
        expect![[r#"
        Swizzle b — float
        Swizzle g — float
        Swizzle r — float
        Swizzle rgb — float3
        Swizzle x — float
        Swizzle xyz — float3
        Swizzle y — float
        Swizzle z — float
    "#]],
    );
}

#[test]
fn completion_of_scope_names_and_attributes() {
    let locals = |c: &ide::CompletionEntry| c.kind == ide::CompletionKind::Local;
    check_completions(
        r#"
float f(float x, float y)
{
    float a = x;
    {
        float inner = a;
    }
    float b = y;
    return $0
}
"#,
        &locals,
        expect![[r#"
            Local a — float a
            Local b — float b
            Local x — float x
            Local y — float y
        "#]],
    );
    let autodiff = |c: &ide::CompletionEntry| c.label.contains("Deriv") || c.label == "MaxIters";
    check_completions(
        "[$0\nfloat f(float x) { return x; }",
        &autodiff,
        expect![[r#"
        Attribute BackwardDerivative [BackwardDerivative(${1:fn})]
        Attribute BackwardDerivativeOf [BackwardDerivativeOf(${1:fn})]
        Attribute DerivativeMember [DerivativeMember(${1:Differential.field})]
        Attribute ForwardDerivative [ForwardDerivative(${1:fn})]
        Attribute ForwardDerivativeOf [ForwardDerivativeOf(${1:fn})]
        Attribute MaxIters [MaxIters(${1:8})]
    "#]],
    );
}

#[test]
fn completion_ranks_the_expected_type_first() {
    let locals = |c: &ide::CompletionEntry| c.kind == ide::CompletionKind::Local;
    // Rendered in rank order: `float3` locals before the others.
    check_completions(
        r#"
float3 f(float3 n, float k, int i)
{
    float3 v = n * k;
    float3 w = $0
}
"#,
        &locals,
        expect![[r#"
            Local n — float3 n
            Local v — float3 v
            Local i — int i
            Local k — float k
        "#]],
    );
}

#[test]
fn completion_of_keywords_by_context() {
    let keywords = |c: &ide::CompletionEntry| {
        c.kind == ide::CompletionKind::Keyword
            && ["import", "struct", "return", "no_diff", "let"].contains(&c.label.as_str())
    };
    check_completions(
        "$0\nfloat f(float x) { return x; }",
        &keywords,
        expect![[r#"
            Keyword import
            Keyword no_diff
            Keyword struct
        "#]],
    );
    check_completions(
        "float f(float x) { $0 }",
        &keywords,
        expect![[r#"
            Keyword let
            Keyword no_diff
            Keyword return
        "#]],
    );
    check_completions(
        "struct S { $0 }",
        &keywords,
        expect![[r#"
            Keyword no_diff
            Keyword struct
        "#]],
    );
}

#[test]
fn completion_of_semantics_and_import_paths() {
    let sv = |c: &ide::CompletionEntry| c.label.starts_with("SV_Dispatch") || c.label == "SV_Target";
    check_completions(
        "[numthreads(8,1,1)]\nvoid main(uint3 id : $0) {}",
        &sv,
        expect![[r#"
            Other SV_DispatchThreadID — thread index in the whole dispatch (uint3)
            Other SV_Target — render-target output of a fragment shader
        "#]],
    );
    let all = |_: &ide::CompletionEntry| true;
    check_completions(
        r#"
//- /src/lib/brdf.slang
module brdf;
//- /src/util.slang
module util;
//- /inc/common.h
#define X 1
//- /src/main.slang
import $0
"#,
        &all,
        expect![[r#"
            Other lib.brdf — /src/lib/brdf.slang
            Other util — /src/util.slang
        "#]],
    );
    check_completions(
        r#"
//- /src/common.slangh
float one() { return 1.0; }
//- /src/main.slang
#include "$0
"#,
        &all,
        expect![[r#"
            Other common.slangh — /src/common.slangh
        "#]],
    );
}

#[test]
fn completion_docs_come_from_the_declaration() {
    let fx = fixture(
        r#"
/// Scales a value.
[Differentiable]
float scale(float x) { return 2.0 * x; }
float g() { return sc$0 }
"#,
    );
    let (file, offset) = fx.cursor.unwrap();
    let item = ide::completions(&fx.db, file, TextSize::from(offset)).into_iter().find(|c| c.label == "scale").unwrap();
    let docs = ide::completion_docs(&fx.db, item.def.unwrap()).unwrap();
    expect![[r#"
        ```slang
        [Differentiable]
        float scale(float x)
        ```

        Scales a value.

        ---

        **Autodiff**
        ```slang
        DifferentialPair<float> fwd_diff(scale)(DifferentialPair<float> x)
        void bwd_diff(scale)(inout DifferentialPair<float> x, float dResult)
        ```"#]]
    .assert_eq(&docs);
}

#[test]
fn tuple_members_complete_and_hover() {
    check_completions(
        "void f() { let t = makeTuple(1, 2.0); float x = t.$0 }",
        &|_| true,
        expect![[r#"
            Field _0 — int
            Field _1 — float
        "#]],
    );
    check_completions(
        "void f(Optional<float3> o) { o.$0 }",
        &|c| c.label == "hasValue" || c.label == "value",
        expect![[r#"
            Field hasValue — property bool hasValue { get; }
            Field value — property T value { get; }
        "#]],
    );
}
