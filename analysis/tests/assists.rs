//! Code actions: each assist offered at a cursor (`$0`), applied, and the
//! program re-checked. The programs the refactorings produce were also
//! given to the reference compiler, which accepts them.

mod common;

use common::{fixture, render_diagnostics, Fixture};
use expect_test::{expect, Expect};
use slang_analysis::ide::{self, Assist};
use slang_analysis::{TextRange, TextSize};

fn assists_at(fx: &Fixture) -> Vec<Assist> {
    let (file, offset) = fx.cursor.expect("fixture needs $0");
    ide::assists(&fx.db, file, TextRange::empty(TextSize::from(offset)))
}

/// The texts of the fixture's files after applying `a`.
fn apply(fx: &Fixture, a: &Assist) -> Vec<(String, String)> {
    fx.files
        .iter()
        .map(|&f| {
            let mut text = f.text(&fx.db).clone();
            let mut edits: Vec<_> = a.edits.iter().filter(|e| e.file == f).collect();
            edits.sort_by_key(|e| std::cmp::Reverse(e.range.start()));
            for e in edits {
                text.replace_range(std::ops::Range::<usize>::from(e.range), &e.text);
            }
            (f.path(&fx.db).clone(), text)
        })
        .collect()
}

/// The titles of the assists at the cursor; then, for the one whose title
/// contains `pick`, the changed files and their diagnostics afterwards.
fn check(text: &str, pick: &str, expect: Expect) {
    let fx = fixture(text);
    let all = assists_at(&fx);
    let mut out: String = all.iter().map(|a| format!("{:?}: {}\n", a.kind, a.title)).collect();
    if let Some(a) = all.iter().find(|a| a.title.contains(pick)) {
        let files = apply(&fx, a);
        let multi = files.len() > 1;
        let mut after = String::new();
        for (path, new) in &files {
            if multi {
                after.push_str(&format!("//- {path}\n"));
            }
            after.push_str(new);
        }
        for (path, new) in &files {
            if *new != *fx.files.iter().find(|f| f.path(&fx.db) == path).unwrap().text(&fx.db) {
                out.push_str(&format!("--- {path}\n{new}"));
            }
        }
        let diags = render_diagnostics(&fixture(&after));
        out.push_str(&format!("--- diagnostics after\n{diags}"));
    }
    expect.assert_eq(&out);
}

#[test]
fn wrap_call_in_no_diff_or_mark_callee_differentiable() {
    let text = r#"
float scale(float x) { return x * 2.0; }

[Differentiable]
float f(float x)
{
    return sc$0ale(x) + x;
}
"#;
    check(
        text,
        "no_diff",
        expect![[r#"
            QuickFix: Wrap the call in `no_diff` (no derivative flows through it)
            QuickFix: Mark `scale` `[Differentiable]`
            --- /main.slang

            float scale(float x) { return x * 2.0; }

            [Differentiable]
            float f(float x)
            {
                return no_diff scale(x) + x;
            }
            --- diagnostics after
        "#]],
    );
    check(
        text,
        "Mark",
        expect![[r#"
            QuickFix: Wrap the call in `no_diff` (no derivative flows through it)
            QuickFix: Mark `scale` `[Differentiable]`
            --- /main.slang

            [Differentiable]
            float scale(float x) { return x * 2.0; }

            [Differentiable]
            float f(float x)
            {
                return scale(x) + x;
            }
            --- diagnostics after
        "#]],
    );
}

#[test]
fn mark_callee_in_another_module() {
    check(
        r#"
//- /lib.slang
module lib;
public float scale(float x) { return x * 2.0; }
//- /main.slang
import lib;
[Differentiable]
float f(float x) { return sca$0le(x); }
"#,
        "Mark",
        expect![[r#"
            QuickFix: Wrap the call in `no_diff` (no derivative flows through it)
            QuickFix: Mark `scale` `[Differentiable]`
            --- /lib.slang
            module lib;
            [Differentiable]
            public float scale(float x) { return x * 2.0; }
            --- diagnostics after
        "#]],
    );
}

#[test]
fn detach_a_stored_value() {
    check(
        r#"
RWStructuredBuffer<float> debug;

[Differentiable]
float f(float x)
{
    float y = x * x;
    debug[0] $0= y * 2.0;
    return y;
}
"#,
        "detach",
        expect![[r#"
            QuickFix: Wrap the stored value in `detach(…)`
            --- /main.slang

            RWStructuredBuffer<float> debug;

            [Differentiable]
            float f(float x)
            {
                float y = x * x;
                debug[0] = detach(y * 2.0);
                return y;
            }
            --- diagnostics after
        "#]],
    );
}

#[test]
fn mark_differentiable_for_fwd_diff() {
    check(
        r#"
float sq(float x) { return x * x; }

void main()
{
    let r = fwd_diff(s$0q)(diffPair(1.0, 1.0));
}
"#,
        "Mark",
        expect![[r#"
            QuickFix: Mark `sq` `[Differentiable]`
            --- /main.slang

            [Differentiable]
            float sq(float x) { return x * x; }

            void main()
            {
                let r = fwd_diff(sq)(diffPair(1.0, 1.0));
            }
            --- diagnostics after
        "#]],
    );
}

#[test]
fn bound_a_loop() {
    check(
        r#"
[Differentiable]
float f(float x, int n)
{
    float y = x;
    $0for (int i = 0; i < n; i++)
        y = y * x;
    return y;
}
"#,
        "MaxIters",
        expect![[r#"
            QuickFix: Add `[MaxIters(16)]` before the loop
            --- /main.slang

            [Differentiable]
            float f(float x, int n)
            {
                float y = x;
                [MaxIters(16)]
                for (int i = 0; i < n; i++)
                    y = y * x;
                return y;
            }
            --- diagnostics after
        "#]],
    );
}

#[test]
fn make_this_differentiable() {
    check(
        r#"
struct Light
{
    float intensity;

    [Differentiable]
    float shade(float x) { return x * inten$0sity; }
}
"#,
        "conform",
        expect![[r#"
            QuickFix: Make `Light` conform to `IDifferentiable`
            QuickFix: Mark the method `[NoDiffThis]`
            --- /main.slang

            struct Light : IDifferentiable
            {
                float intensity;

                [Differentiable]
                float shade(float x) { return x * intensity; }
            }
            --- diagnostics after
        "#]],
    );
}

#[test]
fn forward_derivative_stub() {
    check(
        r#"
struct Material : IDifferentiable { float3 albedo; float roughness; int id; }

[Differentiable]
float3 sh$0ade(Material m, float3 n, no_diff float k, out float pdf)
{
    pdf = k;
    return m.albedo * n * m.roughness;
}
"#,
        "ForwardDerivative",
        expect![[r#"
            Refactor: Generate a `[ForwardDerivative]` function for `shade`
            Refactor: Generate a `[BackwardDerivative]` function for `shade`
            --- /main.slang

            struct Material : IDifferentiable { float3 albedo; float roughness; int id; }

            [ForwardDerivative(shade_fwd)]
            [Differentiable]
            float3 shade(Material m, float3 n, no_diff float k, out float pdf)
            {
                pdf = k;
                return m.albedo * n * m.roughness;
            }

            DifferentialPair<float3> shade_fwd(DifferentialPair<Material> m, DifferentialPair<float3> n, float k, out DifferentialPair<float> pdf)
            {
                // TODO: the derivative of `shade`; this computes `shade` with a zero derivative.
                float pdf_p;
                let result = shade(m.p, n.p, k, pdf_p);
                pdf = diffPair(pdf_p, float.dzero());
                return diffPair(result, float3.dzero());
            }
            --- diagnostics after
        "#]],
    );
}

#[test]
fn backward_derivative_stub_of_a_generic_function() {
    check(
        r#"
[Differentiable]
T l$0erp2<T : IDifferentiable>(T a, T b, inout float w)
{
    return a;
}
"#,
        "BackwardDerivative",
        expect![[r#"
            Refactor: Generate a `[ForwardDerivative]` function for `lerp2`
            Refactor: Generate a `[BackwardDerivative]` function for `lerp2`
            --- /main.slang

            [BackwardDerivative(lerp2_bwd)]
            [Differentiable]
            T lerp2<T : IDifferentiable>(T a, T b, inout float w)
            {
                return a;
            }

            void lerp2_bwd<T : IDifferentiable>(inout DifferentialPair<T> a, inout DifferentialPair<T> b, inout DifferentialPair<float> w, T.Differential dResult)
            {
                // TODO: accumulate the derivatives of `lerp2`'s inputs into the `.d` of their pairs.
            }
            --- diagnostics after
        "#]],
    );
}

#[test]
fn no_stub_when_one_exists_or_nothing_is_differentiable() {
    check(
        r#"
[ForwardDerivative(f_fwd)]
float f$0(float x) { return x; }
DifferentialPair<float> f_fwd(DifferentialPair<float> x) { return x; }
int g(int i) { return i; }
"#,
        "",
        expect![[r#"
            Refactor: Generate a `[BackwardDerivative]` function for `f`
            --- /main.slang

            [BackwardDerivative(f_bwd)]
            [ForwardDerivative(f_fwd)]
            float f(float x) { return x; }

            void f_bwd(inout DifferentialPair<float> x, float dResult)
            {
                // TODO: accumulate the derivatives of `f`'s inputs into the `.d` of their pairs.
            }
            DifferentialPair<float> f_fwd(DifferentialPair<float> x) { return x; }
            int g(int i) { return i; }
            --- diagnostics after
        "#]],
    );
    check("int g$0(int i) { return i; }\n", "", expect![[""]]);
}

#[test]
fn implement_idifferentiable_by_hand() {
    check(
        r#"
struct Inner : IDifferentiable { float w; }

struct R$0ay
{
    float3 origin;
    Inner inner;
    float t[2];
    no_diff float tmax;
    int id;
}

[Differentiable]
float g(Ray r) { return r.origin.x * r.inner.w + r.t[1]; }
"#,
        "IDifferentiable",
        expect![[r#"
            Refactor: Implement `IDifferentiable` for `Ray` by hand
            --- /main.slang

            struct Inner : IDifferentiable { float w; }

            struct RayDifferential : IDifferentiable
            {
                float3 origin;
                Inner inner;
                float[2] t;
            }

            struct Ray : IDifferentiable
            {
                typealias Differential = RayDifferential;

                [DerivativeMember(Differential.origin)]
                float3 origin;
                [DerivativeMember(Differential.inner)]
                Inner inner;
                [DerivativeMember(Differential.t)]
                float t[2];
                no_diff float tmax;
                int id;

                [Differentiable]
                static Differential dzero()
                {
                    return { float3.dzero(), Inner.dzero(), float[2].dzero() };
                }

                [Differentiable]
                static Differential dadd(Differential a, Differential b)
                {
                    return { float3.dadd(a.origin, b.origin), Inner.dadd(a.inner, b.inner), float[2].dadd(a.t, b.t) };
                }
            }

            [Differentiable]
            float g(Ray r) { return r.origin.x * r.inner.w + r.t[1]; }
            --- diagnostics after
        "#]],
    );
}

/// Related information: each diagnostic of the fixture with the places it
/// links to.
fn check_related(text: &str, expect: Expect) {
    let fx = fixture(text);
    let mut out = String::new();
    for &f in &fx.files {
        for d in slang_analysis::file_diagnostics(&fx.db, f) {
            if d.code == "unused-variable" {
                continue;
            }
            let line = |file: slang_analysis::SourceFile, r: TextRange| {
                file.text(&fx.db)[..usize::from(r.start())].matches('\n').count() + 1
            };
            out.push_str(&format!("{}:{} {}\n", f.path(&fx.db), line(f, d.range), d.code));
            for r in ide::related_information(&fx.db, f, d) {
                out.push_str(&format!("  -> {}:{} {}\n", r.file.path(&fx.db), line(r.file, r.range), r.message));
            }
        }
    }
    expect.assert_eq(&out);
}

#[test]
fn diagnostics_link_to_the_declarations_they_are_about() {
    check_related(
        r#"
//- /lib.slang
module lib;
public float scale(float x) { return x * 2.0; }
//- /main.slang
import lib;
struct Light { float intensity; [Differentiable] float shade(float x) { return x * intensity; } }
[Differentiable]
float f(float x) { return scale(x); }
[ForwardDerivative(g_fwd)]
float g(float x) { return x; }
float g_fwd(float x) { return x; }
float h() { return 1.0; }
float h() { return 2.0; }
"#,
        expect![[r#"
            /main.slang:2 field-without-derivative
              -> /main.slang:2 `Light` is declared here
            /main.slang:4 derivative-lost
              -> /lib.slang:2 `scale` is declared here
            /main.slang:5 derivative-signature
              -> /main.slang:7 `g_fwd` is declared here
            /main.slang:9 redefinition
              -> /main.slang:8 `h` is first declared here
        "#]],
    );
}

#[test]
fn mark_a_property_getter_differentiable() {
    let text = r#"
struct P : IDifferentiable
{
    float v;
    property float sq { get { return v * v; } }
}
[Differentiable]
float f(P p) { return p.s$0q * 3.0; }
"#;
    check(
        text,
        "getter",
        expect![[r#"
        QuickFix: Mark the getter of `sq` `[Differentiable]`
        --- /main.slang

        struct P : IDifferentiable
        {
            float v;
            property float sq { [Differentiable] get { return v * v; } }
        }
        [Differentiable]
        float f(P p) { return p.sq * 3.0; }
        --- diagnostics after
    "#]],
    );
}

/// The checkpoint edits at the cursor (what they do, and the text they
/// insert).
fn checkpoint_fixes(text: &str) -> Vec<(String, String)> {
    let fx = fixture(text);
    let (file, offset) = fx.cursor.expect("fixture needs $0");
    ide::checkpoint_fixes(&fx.db, file, TextRange::empty(TextSize::from(offset)))
        .into_iter()
        .map(|f| (f.what, f.edit.text))
        .collect()
}

#[test]
fn checkpoint_fixes_on_loop_headers_and_callee_names() {
    let program = |body: &str| {
        format!(
            "[Differentiable]\nfloat sq(float x) {{ return x * x; }}\n[Differentiable]\nfloat f(float x) {{\n{body}\n}}\n"
        )
    };
    let on_for = checkpoint_fixes(&program(
        "    [MaxIters(8)]\n    $0for (int i = 0; i < 4; i++) { x = sq(x); }\n    return x;",
    ));
    assert_eq!(
        on_for,
        [
            ("Add `[ForceUnroll]` to the loop".to_string(), "[ForceUnroll]\n    ".to_string()),
            ("Tighten to `[MaxIters(4)]`".to_string(), "4".to_string()),
        ]
    );
    // On the attribute too; not inside the body.
    assert_eq!(
        checkpoint_fixes(&program(
            "    [Max$0Iters(8)]\n    for (int i = 0; i < 4; i++) { x = sq(x); }\n    return x;"
        ))
        .len(),
        2
    );
    let in_body = checkpoint_fixes(&program("    for (int i = 0; i < 4; i++) { x = $0sq(x); }\n    return x;"));
    assert_eq!(
        in_body,
        [(
            "Recompute `sq` instead of saving its context (`[PreferRecompute]`)".to_string(),
            "[PreferRecompute]\n".to_string()
        )]
    );
    // Already unrolled, or not differentiable: nothing.
    assert!(checkpoint_fixes(&program(
        "    [ForceUnroll]\n    $0for (int i = 0; i < 4; i++) { x = x * x; }\n    return x;"
    ))
    .is_empty());
    assert!(checkpoint_fixes(
        "float g(float x) {\n    $0for (int i = 0; i < 4; i++) { x = x * x; }\n    return x;\n}\n"
    )
    .is_empty());
}
