//! Autodiff facts: derivative signatures by the user guide's rules, and
//! the diagnostics of `fwd_diff` / `bwd_diff` calls.

mod common;

use common::{fixture, render_diagnostics};
use expect_test::{expect, Expect};
use slang_analysis::autodiff::{derivative_signature, fn_differentiability, functions_named, Mode};

/// Both derivative signatures of every function named `name`.
fn check_sigs(text: &str, name: &str, expect: Expect) {
    let fx = fixture(text);
    let file = *fx.files.last().unwrap();
    let mut out = String::new();
    for def in functions_named(&fx.db, file, name) {
        let d = fn_differentiability(&fx.db, file, def);
        for mode in [Mode::Forward, Mode::Backward] {
            if d.allows(mode) {
                out.push_str(&format!("{}\n", derivative_signature(&fx.db, def, mode)));
            } else {
                out.push_str(&format!("{}: not differentiable\n", mode.operator()));
            }
        }
    }
    expect.assert_eq(&out);
}

fn check_diags(text: &str, expect: Expect) {
    expect.assert_eq(&render_diagnostics(&fixture(text)));
}

/// The user guide's first example: all inputs paired, the result paired
/// (forward) or taken as a final derivative input (backward).
#[test]
fn user_guide_foo() {
    check_sigs(
        "[Differentiable] float2 foo(float a, float b) { return float2(a * b * b, a * a); }",
        "foo",
        expect![[r#"
            DifferentialPair<float2> fwd_diff(foo)(DifferentialPair<float> a, DifferentialPair<float> b)
            void bwd_diff(foo)(inout DifferentialPair<float> a, inout DifferentialPair<float> b, float2 dResult)
        "#]],
    );
}

/// The reference section's `bwd_diff` example: every parameter kind.
#[test]
fn every_parameter_direction_and_kind() {
    check_sigs(
        r#"
struct T : IDifferentiable { float x; }
struct R : IDifferentiable { float y; }
struct ND { int k; }
[Differentiable]
R original(T p0, out T p1, inout T p2, ND p3, out ND p4, inout ND p5, no_diff float p6, int p7);
"#,
        "original",
        expect![[r#"
            DifferentialPair<R> fwd_diff(original)(DifferentialPair<T> p0, out DifferentialPair<T> p1, inout DifferentialPair<T> p2, ND p3, out ND p4, inout ND p5, float p6, int p7)
            void bwd_diff(original)(inout DifferentialPair<T> p0, T p1, inout DifferentialPair<T> p2, ND p3, ND p5, float p6, int p7, R dResult)
        "#]],
    );
}

#[test]
fn no_diff_results_generics_and_forward_only() {
    check_sigs(
        r#"
[Differentiable] no_diff float ratio(float a, float b) { return a / b; }
[Differentiable] T twice<T : IDifferentiable>(T x) { return x; }
[ForwardDifferentiable] float fwdOnly(float x) { return x; }
float plain(float x) { return x; }
[Differentiable] void writes(float x, out float y) { y = x; }
"#,
        "ratio",
        expect![[r#"
            float fwd_diff(ratio)(DifferentialPair<float> a, DifferentialPair<float> b)
            void bwd_diff(ratio)(inout DifferentialPair<float> a, inout DifferentialPair<float> b)
        "#]],
    );
    check_sigs(
        "[Differentiable] T twice<T : IDifferentiable>(T x) { return x; }",
        "twice",
        expect![[r#"
            DifferentialPair<T> fwd_diff(twice)<T>(DifferentialPair<T> x)
            void bwd_diff(twice)<T>(inout DifferentialPair<T> x, T.Differential dResult)
        "#]],
    );
    check_sigs(
        "[ForwardDifferentiable] float fwdOnly(float x) { return x; }",
        "fwdOnly",
        expect![[r#"
            DifferentialPair<float> fwd_diff(fwdOnly)(DifferentialPair<float> x)
            bwd_diff: not differentiable
        "#]],
    );
    check_sigs(
        "[Differentiable] void writes(float x, out float y) { y = x; }",
        "writes",
        expect![[r#"
            void fwd_diff(writes)(DifferentialPair<float> x, out DifferentialPair<float> y)
            void bwd_diff(writes)(inout DifferentialPair<float> x, float y)
        "#]],
    );
}

/// A derivative attached from the derivative's side makes the primal
/// function differentiable.
#[test]
fn derivative_of_attributes_make_functions_differentiable() {
    check_sigs(
        r#"
float myLog(float x) { return log(x); }
[BackwardDerivativeOf(myLog)]
void myLog_bwd(inout DifferentialPair<float> dpx, float dOut) { }
"#,
        "myLog",
        expect![[r#"
            DifferentialPair<float> fwd_diff(myLog)(DifferentialPair<float> x)
            void bwd_diff(myLog)(inout DifferentialPair<float> x, float dResult)
        "#]],
    );
}

/// Each error line is one the reference compiler rejects (the
/// `tests/corpus/rejected/ad_*` programs); the first block is accepted.
#[test]
fn derivative_calls_are_type_checked() {
    check_diags(
        r#"
[Differentiable] float3 shade(float3 n, float k) { return n * k; }
[ForwardDifferentiable] float smoothAbs(float x) { return sqrt(x * x + 1e-4); }
float mseLoss(float a, float b) { return (a - b) * (a - b); }
void ok(float3 n)
{
    var dpn = diffPair(n, float3(1, 0, 0));
    var dpk = diffPair(2.0, 0.0);
    DifferentialPair<float3> r = fwd_diff(shade)(dpn, dpk);
    float3 p = r.p;
    bwd_diff(shade)(dpn, dpk, float3(1));
    DifferentialPair<float> s = fwd_diff(smoothAbs)(dpk);
}
void bad(float3 n, float k)
{
    var dpn = diffPair(n);
    var dpk = diffPair(k);
    bwd_diff(smoothAbs)(dpk, 1.0);
    fwd_diff(mseLoss)(dpk, dpk);
    bwd_diff(shade)(dpn, dpk);
    bwd_diff(shade)(dpn, dpk, float2(1));
    fwd_diff(shade)(n, dpk);
    float3 q = fwd_diff(shade)(dpn, dpk);
    float v = bwd_diff(shade)(dpn, dpk, float3(1));
    bwd_diff(shade)(diffPair(n), dpk, float3(1));
}
"#,
        expect![[r#"
            /main.slang:18:5: error[not-differentiable]: `bwd_diff(smoothAbs)`: `smoothAbs` is only forward-differentiable; mark it `[Differentiable]` (or give it a `[BackwardDerivative]`)
            /main.slang:19:5: error[not-differentiable]: `fwd_diff(mseLoss)`: `mseLoss` is not differentiable; mark it `[Differentiable]` (or give it a `[ForwardDerivative]`)
            /main.slang:20:5: error[wrong-argument-count]: `bwd_diff(shade)` takes 3 arguments, but 2 were given; its signature is `void bwd_diff(shade)(inout DifferentialPair<float3> n, inout DifferentialPair<float> k, float3 dResult)`
            /main.slang:21:31: error[type-mismatch]: mismatched types: expected `float3`, found `float2`
            /main.slang:22:21: error[type-mismatch]: mismatched types: expected `DifferentialPair<float3>`, found `float3`
            /main.slang:23:16: error[type-mismatch]: mismatched types: expected `float3`, found `DifferentialPair<float3>`
            /main.slang:24:15: error[type-mismatch]: mismatched types: expected `float`, found `void`
            /main.slang:25:21: error[not-an-lvalue]: an `out` or `inout` argument must be a variable
        "#]],
    );
}

/// slangc (front end): E30015 for the missing derivative, E38031 for
/// `no_diff(w)`, E30011 for writing `x.p`.
#[test]
fn derivative_attributes_no_diff_operands_and_read_only_pairs() {
    check_diags(
        r#"
float tonemap(float x) { return x / (1.0 + x); }
int count(float x) { return int(x); }
[Differentiable] float good(float x) { return x * x; }
[Differentiable]
float usesHelpers(float radiance, no_diff float w, no_diff int n)
{
    float a = tonemap(radiance);
    float b = no_diff tonemap(w);
    int c = count(radiance);
    float d = good(radiance) + floor(w);
    float e = radiance * no_diff(w);
    for (int i = 0; i < n; i++) { a += 1.0; }
    [MaxIters(8)] for (int j = 0; j < n; j++) { a += 1.0; }
    for (int k = 0; k < 4; k++) { a += 1.0; }
    return a + b + float(c) + d + e;
}
[BackwardDerivative(missing_bwd)]
float custom(float x) { return x; }
void clip(inout DifferentialPair<float> x, float limit)
{
    if (x.p > limit)
        x.p = limit;
}
"#,
        expect![[r#"
            /main.slang:8:15: error[derivative-lost]: derivatives cannot flow through `tonemap`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff tonemap(…)` if none should
            /main.slang:11:32: error[derivative-lost]: derivatives cannot flow through `floor`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff floor(…)` if none should
            /main.slang:12:26: error[invalid-no-diff]: `no_diff` applies to a call or a subscript (`no_diff f(x)`, `no_diff a[i]`); for a value, use `detach(x)`
            /main.slang:13:5: error[unbounded-loop]: this loop in the differentiable function `usesHelpers` has no iteration bound the compiler can see: add `[MaxIters(n)]` (or `[ForceUnroll]`) before it
            /main.slang:18:21: error[unresolved-name]: cannot find `missing_bwd` (named by `[BackwardDerivative]`) in this scope
            /main.slang:23:9: error[not-assignable]: cannot assign: `DifferentialPair.p` is a read-only property (it has no `set`)
        "#]],
    );
}

/// slangc (autodiff passes): E41022 at the calls of `tonemap` and `floor`
/// whose results are used, E30510 at the loop bounded by a parameter; not
/// at `no_diff tonemap(w)`, the int-valued `count`, or bounded loops.
#[test]
fn derivative_flow_and_loop_bounds() {
    check_diags(
        r#"
float tonemap(float x) { return x / (1.0 + x); }
int count(float x) { return int(x); }
[Differentiable] float good(float x) { return x * x; }
[Differentiable]
float usesHelpers(float radiance, no_diff float w, no_diff int n)
{
    float a = tonemap(radiance);
    float b = no_diff tonemap(w);
    int c = count(radiance);
    float d = good(radiance) + floor(w);
    float e = radiance * w;
    for (int i = 0; i < n; i++) { a += 1.0; }
    [MaxIters(8)] for (int j = 0; j < n; j++) { a += 1.0; }
    for (int k = 0; k < 4; k++) { a += 1.0; }
    return a + b + float(c) + d + e;
}

float custom(float x) { return x; }
void clip(inout DifferentialPair<float> x, float limit)
{
    if (x.p > limit)
        x = diffPair(limit, x.d);
}
"#,
        expect![[r#"
            /main.slang:8:15: error[derivative-lost]: derivatives cannot flow through `tonemap`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff tonemap(…)` if none should
            /main.slang:11:32: error[derivative-lost]: derivatives cannot flow through `floor`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff floor(…)` if none should
            /main.slang:13:5: error[unbounded-loop]: this loop in the differentiable function `usesHelpers` has no iteration bound the compiler can see: add `[MaxIters(n)]` (or `[ForceUnroll]`) before it
        "#]],
    );
}

/// Whether a built-in carries derivatives is what its core-module
/// declaration says: slangc reports E41022 at `fdim`, `sinpi`, `min3` and
/// `WaveActiveSum` (not differentiable there), not at `copysign`,
/// `radians`, `asinh` or `refract` (differentiable).
#[test]
fn builtin_differentiability_follows_the_core_module() {
    check_diags(
        r#"
[Differentiable]
float f(float x)
{
    float a = fdim(x, 1.0) * x;
    float b = sinpi(x) * x;
    float c = min3(x, 1.0, 2.0) * x;
    float d = WaveActiveSum(x) * x;
    float e = copysign(x, 1.0) * radians(x) * asinh(x);
    float g = refract(float3(x), float3(1.0), 0.5).x * x;
    return a + b + c + d + e + g;
}
"#,
        expect![[r#"
            /main.slang:5:15: error[derivative-lost]: derivatives cannot flow through `fdim`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff fdim(…)` if none should
            /main.slang:6:15: error[derivative-lost]: derivatives cannot flow through `sinpi`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff sinpi(…)` if none should
            /main.slang:7:15: error[derivative-lost]: derivatives cannot flow through `min3`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff min3(…)` if none should
            /main.slang:8:15: error[derivative-lost]: derivatives cannot flow through `WaveActiveSum`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff WaveActiveSum(…)` if none should
        "#]],
    );
}

/// Custom derivatives are checked against the transformed signature
/// (slangc rejects the two bad ones, tests/corpus/rejected/ad_custom_*).
#[test]
fn custom_derivative_signatures() {
    check_diags(
        r#"
void softplus_bwd(inout DifferentialPair<float> x) { }
[BackwardDerivative(softplus_bwd)]
float softplus(float x) { return log(1.0 + exp(x)); }
DifferentialPair<float> rsqrt_fwd(float x) { return diffPair(rsqrt(x), 0.0); }
[ForwardDerivative(rsqrt_fwd)]
float fastRsqrt(float x) { return rsqrt(x); }
DifferentialPair<float> good_fwd(DifferentialPair<float> x, int k) { return x; }
void good_bwd(inout DifferentialPair<float> x, int k, float dOut) { }
[ForwardDerivative(good_fwd)]
[BackwardDerivative(good_bwd)]
float good(float x, int k) { return x; }
float later(float x) { return x; }
[BackwardDerivativeOf(later)]
void later_bwd(inout DifferentialPair<float> x, float dOut) { }
"#,
        expect![[r#"
            /main.slang:3:21: error[derivative-signature]: `softplus_bwd` does not have the signature of `bwd_diff(softplus)`: expected `void bwd_diff(softplus)(inout DifferentialPair<float> x, float dResult)`
            /main.slang:6:20: error[derivative-signature]: `rsqrt_fwd` does not have the signature of `fwd_diff(fastRsqrt)`: expected `DifferentialPair<float> fwd_diff(fastRsqrt)(DifferentialPair<float> x)`
        "#]],
    );
}

/// slangc: E38029 "type argument 'int' does not conform to the required
/// interface 'IDifferentiable'".
#[test]
fn differential_pairs_need_differentiable_types() {
    check_diags(
        r#"
struct Plain { int id; }
struct Diff : IDifferentiable { float v; }
void f()
{
    DifferentialPair<int> a = diffPair(3, 0);
    DifferentialPair<Plain> b;
    DifferentialPair<Diff> c;
    DifferentialPair<float3> d = diffPair(float3(1), float3(0));
}
"#,
        expect![[r#"
            /main.slang:6:5: error[not-conforming]: `int` does not conform to `IDifferentiable`, which the generic parameter requires
            /main.slang:7:5: error[not-conforming]: `Plain` does not conform to `IDifferentiable`, which the generic parameter requires
        "#]],
    );
}

/// slangc: E30311 for `Both` (at its name), E38105 for `Sq.area`, E55201 for
/// the recursive call; the `IDifferentiablePtrType` outputs are warnings
/// (the user guide forbids them; the reference compiler does not check).
#[test]
fn differentiable_interfaces_pointers_and_recursion() {
    let fx = common::fixture(
        r#"
struct Ptr : IDifferentiablePtrType { typealias Differential = Ptr; float x; }
struct Both : IDifferentiable, IDifferentiablePtrType { float v; }
[Differentiable] float readPtr(Ptr p, float x) { return x; }
[Differentiable] void writePtr(out Ptr p, float x) { p.x = x; }
[Differentiable] Ptr makePtr(float x) { Ptr p; p.x = x; return p; }
[Differentiable] float rec(float x) { if (x < 1) return x; return rec(x * 0.5); }
[Differentiable] float over(float x, float y) { return over(x) + y; }
[Differentiable] float over(float x) { return x; }
interface IShape { [Differentiable] float area(float s); }
struct Sq : IShape { float area(float s) { return s * s; } }
struct Circ : IShape { [Differentiable] float area(float s) { return s * s * 3.14; } }
struct Tri : IShape { [NoDiffThis, Differentiable] float area(float s) { return s; } }
"#,
    );
    expect![[r#"
        /main.slang:3:8: error[both-differentiable-interfaces]: `Both` cannot conform to both `IDifferentiable` and `IDifferentiablePtrType`; keep one
        /main.slang:5:32: warning[differentiable-ptr-output]: an `out`/`inout` parameter of an `IDifferentiablePtrType` type in a differentiable function: such values can only be inputs
        /main.slang:6:18: warning[differentiable-ptr-output]: a return value of an `IDifferentiablePtrType` type in a differentiable function: such values can only be inputs
        /main.slang:7:67: error[recursion]: `rec` is differentiable and calls itself; recursion is not allowed (use a loop)
        /main.slang:11:28: error[requirement-mismatch]: `Sq.area` does not match the requirement of interface `IShape`: the requirement is `[Differentiable]` and this method is not; mark it `[Differentiable]` (or `[TreatAsDifferentiable]`)
    "#]]
    .assert_eq(&common::render_all_diagnostics(&fx));
}

fn check_differential(text: &str, name: &str, expect: Expect) {
    use slang_analysis::autodiff::synthesized_differential;
    let fx = fixture(text);
    let file = *fx.files.last().unwrap();
    let tree = slang_analysis::item_tree::item_tree(&fx.db, file);
    let item = tree.walk().find(|i| i.name.as_deref() == Some(name)).expect("no such type");
    let def = slang_analysis::hir::DefId::new(&fx.db, file, item.ast_index);
    let out = match synthesized_differential(&fx.db, file, def) {
        None => "not synthesized".to_string(),
        Some(s) if s.is_self => "its own Differential".to_string(),
        Some(s) => s.fields.iter().map(|(n, t)| format!("{t} {n};")).collect::<Vec<_>>().join(" "),
    };
    expect.assert_eq(&out);
}

/// The user guide's synthesis rules: differentiable fields only, `no_diff`
/// fields excluded, the type its own `Differential` when nothing is
/// dropped or changed, nested structs by their own `Differential`.
#[test]
fn differential_synthesis() {
    let s = r#"
struct Plain : IDifferentiable { float a; float3 b; }
struct WithNoDiff : IDifferentiable { float3 albedo; float roughness; no_diff uint flags; }
struct WithInt : IDifferentiable { float a; int id; }
struct Outer : IDifferentiable { WithNoDiff m; float w; }
struct Nested : IDifferentiable { Plain p; float w; }
struct Manual : IDifferentiable { typealias Differential = Plain; float a; }
struct NotDiff { float a; }
"#;
    check_differential(s, "Plain", expect!["its own Differential"]);
    check_differential(s, "WithNoDiff", expect!["float3 albedo; float roughness;"]);
    check_differential(s, "WithInt", expect!["float a;"]);
    check_differential(s, "Outer", expect!["WithNoDiff.Differential m; float w;"]);
    check_differential(s, "Nested", expect!["its own Differential"]);
    check_differential(s, "Manual", expect!["not synthesized"]);
    check_differential(s, "NotDiff", expect!["not synthesized"]);
}

/// slangc: "'flags' is not a member of 'MaterialParams.Differential'".
#[test]
fn members_of_synthesized_differentials() {
    check_diags(
        r#"
struct MaterialParams : IDifferentiable { float3 albedo; float roughness; no_diff uint flags; }
MaterialParams.Differential zeroGrad()
{
    MaterialParams.Differential d;
    d.albedo = float3(0.0);
    d.roughness = 0.0;
    d.flags = 0;
    return d;
}
"#,
        expect![[r#"
            /main.slang:8:7: error[no-such-member]: no member named `flags` in `MaterialParams.Differential`
        "#]],
    );
}

#[test]
fn hover_facts_for_functions_and_types() {
    use slang_analysis::autodiff::hover_facts;
    let fx = fixture(
        r#"
struct M : IDifferentiable { float3 albedo; no_diff uint flags; }
struct P : IDifferentiable { float a; }
[Differentiable] float f(M m, float x) { return x; }
float g(float x) { return x; }
"#,
    );
    let file = fx.files[0];
    let tree = slang_analysis::item_tree::item_tree(&fx.db, file);
    let mut out = String::new();
    for item in &tree.items {
        let def = slang_analysis::hir::DefId::new(&fx.db, file, item.ast_index);
        out.push_str(&format!(
            "{}: {}\n",
            item.name.as_deref().unwrap_or(""),
            hover_facts(&fx.db, file, def).unwrap_or_default()
        ));
    }
    expect![[r#"
        M: struct M.Differential // synthesized
        {
            float3 albedo;
        }
        P: typealias P.Differential = P; // synthesized
        f: DifferentialPair<float> fwd_diff(f)(DifferentialPair<M> m, DifferentialPair<float> x)
        void bwd_diff(f)(inout DifferentialPair<M> m, inout DifferentialPair<float> x, float dResult)
        g: 
    "#]]
    .assert_eq(&out);
}

/// The user guide's "Excluding Parameters from Differentiation" example
/// (its forward signature omits the `out` parameter, against the
/// reference section's rule that directions are unchanged; we follow the
/// rule), and methods: `this` is differentiable unless `[NoDiffThis]`.
#[test]
fn no_diff_parameters_and_methods() {
    check_sigs(
        "[Differentiable] no_diff float myFunc(no_diff float a, float x, out float y) { y = x; return a; }",
        "myFunc",
        expect![[r#"
            float fwd_diff(myFunc)(float a, DifferentialPair<float> x, out DifferentialPair<float> y)
            void bwd_diff(myFunc)(float a, inout DifferentialPair<float> x, float y)
        "#]],
    );
    let s = r#"
struct MyType : IDifferentiable
{
    float w;
    [Differentiable] float compute(float x) { return w * x; }
    [NoDiffThis, Differentiable] float fixed(float x) { return w * x; }
}
"#;
    check_sigs(
        s,
        "MyType.compute",
        expect![[r#"
            DifferentialPair<float> fwd_diff(compute)(DifferentialPair<MyType> this, DifferentialPair<float> x)
            void bwd_diff(compute)(inout DifferentialPair<MyType> this, inout DifferentialPair<float> x, float dResult)
        "#]],
    );
    check_sigs(
        s,
        "MyType.fixed",
        expect![[r#"
            DifferentialPair<float> fwd_diff(fixed)(DifferentialPair<float> x)
            void bwd_diff(fixed)(inout DifferentialPair<float> x, float dResult)
        "#]],
    );
}

/// Higher order: each operator transforms the previous signature (a pair
/// of a differentiable type is differentiable; `no_diff` stays plain).
#[test]
fn higher_order_signatures() {
    use slang_analysis::autodiff::higher_order_signature;
    let fx = fixture("[Differentiable] float f(float x, no_diff float k) { return x * k; }");
    let file = fx.files[0];
    let def = functions_named(&fx.db, file, "f")[0];
    let mut out = String::new();
    for modes in [[Mode::Forward, Mode::Forward], [Mode::Forward, Mode::Backward]] {
        out.push_str(&format!("{}\n", higher_order_signature(&fx.db, def, &modes)));
    }
    expect![[r#"
        DifferentialPair<DifferentialPair<float>> fwd_diff(fwd_diff(f))(DifferentialPair<DifferentialPair<float>> x, float k)
        void bwd_diff(fwd_diff(f))(inout DifferentialPair<DifferentialPair<float>> x, float k, DifferentialPair<float> dResult)
    "#]]
    .assert_eq(&out);
    // And calls type-check against them (slangc: E30019 on the last call).
    check_diags(
        r#"
[Differentiable] float f(float x) { return x * x; }
void g()
{
    var dd = diffPair(diffPair(1.0, 1.0), diffPair(1.0, 0.0));
    DifferentialPair<DifferentialPair<float>> r = fwd_diff(fwd_diff(f))(dd);
    bwd_diff(fwd_diff(f))(dd, diffPair(1.0, 0.0));
    fwd_diff(fwd_diff(f))(diffPair(1.0, 1.0));
}
"#,
        expect![[r#"
            /main.slang:8:27: error[type-mismatch]: mismatched types: expected `DifferentialPair<DifferentialPair<float>>`, found `DifferentialPair<float>`
        "#]],
    );
}

/// slangc: E41031 on lines 9 and 14 of this fixture; `detach`, `no_diff`
/// inputs and integers are stored without complaint.
#[test]
fn derivatives_lost_in_stores() {
    check_diags(
        r#"
RWStructuredBuffer<float> gDebug;
RWStructuredBuffer<uint> gCount;
[Differentiable]
float att(float density, no_diff float step, no_diff uint slot)
{
    float t = exp(-density * step);
    float u = step * 2.0;
    gDebug[slot] = t;
    gDebug[slot + 1] = detach(t);
    gDebug[slot + 2] = u;
    gCount[slot] = slot;
    float v = t * 2.0;
    gDebug[slot + 3] = v;
    return t;
}
float user(float x) { var p = diffPair(x, 1.0); bwd_diff(att)(p, 1.0, 0, 1.0); return p.d; }
"#,
        expect![[r#"
            /main.slang:9:5: error[derivative-lost]: the value carries a derivative that is lost when it is stored in a buffer; write `detach(…)` around it to say so
            /main.slang:14:5: error[derivative-lost]: the value carries a derivative that is lost when it is stored in a buffer; write `detach(…)` around it to say so
        "#]],
    );
}

/// Which values carry derivatives, for semantic highlighting: inputs not
/// marked `no_diff`, what is computed from them, not what `detach`,
/// `no_diff` or comparisons produce.
#[test]
fn values_carrying_derivatives() {
    let text = r#"
[Differentiable]
float f(float x, no_diff float k, int n)
{
    float a = x * k;
    float b = k * 2.0;
    float c = detach(a);
    bool d = a > 1.0;
    float e = b;
    e = a;
    return a + c;
}
"#;
    let fx = fixture(text);
    let file = fx.files[0];
    let root = slang_analysis::parse(&fx.db, file).syntax_node();
    let mut out = String::new();
    for name in ["a", "b", "c", "d", "e"] {
        // The initializer of each local.
        let decl = root
            .descendants()
            .filter(|n| n.kind() == slang_syntax::SyntaxKind::DECLARATOR)
            .find(|n| n.children().any(|c| c.kind() == slang_syntax::SyntaxKind::NAME && c.text() == name))
            .unwrap();
        let init = decl
            .children()
            .filter(|c| <slang_syntax::ast::Expr as slang_syntax::ast::AstNode>::can_cast(c.kind()))
            .last()
            .unwrap();
        let carries = slang_analysis::infer::carries_derivative(&fx.db, file, &init);
        out.push_str(&format!("{name} = {}: {carries:?}\n", init.text()));
    }
    expect![[r#"
        a = x * k: Some(true)
        b = k * 2.0: Some(false)
        c = detach(a): Some(false)
        d = a > 1.0: Some(false)
        e = b: Some(false)
    "#]]
    .assert_eq(&out);
}

/// slangc: E31148 "cannot resolve derivative function" for the
/// non-generic derivative of a generic function.
#[test]
fn custom_derivatives_take_the_same_generic_parameters() {
    check_diags(
        r#"
DifferentialPair<T> sq_fwd<T : __BuiltinFloatingPointType>(DifferentialPair<T> x) { return x; }
[ForwardDerivative(sq_fwd)]
T sq<T : __BuiltinFloatingPointType>(T x) { return x * x; }
DifferentialPair<float> cube_fwd(DifferentialPair<float> x) { return x; }
[ForwardDerivative(cube_fwd)]
T cube<T : __BuiltinFloatingPointType>(T x) { return x * x * x; }
"#,
        expect![[r#"
            /main.slang:6:20: error[derivative-signature]: `cube_fwd` has no generic parameters but `cube` has 1 generic parameter; a derivative takes the same generic parameters as its function
        "#]],
    );
}

/// slangc: E38110 for the dzero without `[Differentiable]` (line 10 of this
/// fixture), E30027 for `Differential.z` (line 8), same columns.
#[test]
fn manual_differentials() {
    check_diags(
        r#"
struct MyVecDiff : IDifferentiable { float x; float y; }
struct MyVec : IDifferentiable
{
    typealias Differential = MyVecDiff;
    [DerivativeMember(Differential.x)]
    float x;
    [DerivativeMember(Differential.z)]
    float y;
    static Differential dzero() { return { 0.0f, 0.0f }; }
    [Differentiable]
    static Differential dadd(Differential a, Differential b) { return { a.x + b.x, a.y + b.y }; }
}
[Differentiable] float len(MyVec v) { return v.x + v.y; }
RWStructuredBuffer<float> o;
"#,
        expect![[r#"
            /main.slang:8:36: error[no-such-member]: `[DerivativeMember]`: no member named `z` in `MyVecDiff`
            /main.slang:10:25: error[not-differentiable]: `dzero` implements `IDifferentiable` for `MyVec` and must be `[Differentiable]`
        "#]],
    );
}

/// slangc: E41031 at the store into the `no_diff` field (line 8 of this
/// fixture); converting to `int` loses nothing it reports.
#[test]
fn derivatives_lost_in_no_diff_fields() {
    check_diags(
        r#"
struct P : IDifferentiable { float a; no_diff float tag; }
[Differentiable]
float f(float x, P p)
{
    int i = int(x);
    P q = p;
    q.tag = x;
    float y = i;
    return y + q.a;
}
RWStructuredBuffer<float> o;
"#,
        expect![[r#"
            /main.slang:8:5: error[derivative-lost]: the value carries a derivative that is lost when it is stored in the `no_diff` field `P.tag`; write `detach(…)` around it to say so
        "#]],
    );
}

/// slangc: E31001 "wrong number of attribute arguments" at 11:6 of this
/// fixture only; the other loop and function attributes are fine.
#[test]
fn attribute_argument_counts() {
    check_diags(
        r#"
[PreferRecompute]
float a(float x) { return x; }
[PreferCheckpoint]
float b(float x) { return x; }
[Differentiable]
float c(float x, no_diff int n)
{
    [MaxIters(4)]
    for (int i = 0; i < n; i++) x = x * 2;
    [MaxIters]
    for (int j = 0; j < n; j++) x = x * 2;
    [ForceUnroll]
    for (int k = 0; k < 3; k++) x = x + 1;
    [MaxIters(2.5)]
    for (int m = 0; m < n; m++) x = x * 2;
    return x;
}
"#,
        expect![[r#"
            /main.slang:11:6: error[attribute-arguments]: `[MaxIters]` takes one argument, 0 given (write `[MaxIters(…)]`)
        "#]],
    );
}

/// `DifferentialPair<T>` members and `T.Differential`, for builtins,
/// synthesized structs and type parameters.
#[test]
fn pair_members_and_differential_types() {
    fn ty(text: &str) -> String {
        let fx = fixture(text);
        let (file, offset) = fx.cursor.expect("fixture needs $0");
        let root = slang_analysis::parse(&fx.db, file).syntax_node();
        let token = root.token_at_offset(offset.into()).right_biased().unwrap();
        let node = token
            .parent_ancestors()
            .take_while(|n| n.text_range().start() == token.text_range().start())
            .filter(|n| <slang_syntax::ast::Expr as slang_syntax::ast::AstNode>::can_cast(n.kind()))
            .last()
            .expect("no expression at cursor");
        slang_analysis::infer::type_of_node(&fx.db, file, &node).map(|t| t.to_string()).unwrap_or_default()
    }
    let s = "struct M : IDifferentiable { float3 a; no_diff int id; }\n";
    let out = [
        ty("void f(DifferentialPair<float3> dp) { let x = $0dp.p; }"),
        ty("void f(DifferentialPair<float3> dp) { let x = $0dp.d; }"),
        ty("void f(DifferentialPair<float3> dp) { let x = $0dp.getDifferential(); }"),
        ty("void f(DifferentialPair<float3> dp) { let x = $0dp.getPrimal(); }"),
        ty(&format!("{s}void f(DifferentialPair<M> dp) {{ let x = $0dp.d; }}")),
        ty(&format!("{s}void f(DifferentialPair<M> dp) {{ let x = $0dp.d.a; }}")),
        ty(&format!("{s}void f(M.Differential d) {{ let x = $0d; }}")),
        ty("void f(float2.Differential d) { let x = $0d; }"),
        ty("void f<T : IDifferentiable>(DifferentialPair<T> dp) { let x = $0dp.d; }"),
    ];
    expect![[r#"
        float3
        float3
        float3
        float3
        M.Differential
        float3
        M.Differential
        float2
        T.Differential"#]]
    .assert_eq(&out.join("\n"));
}

/// Custom derivatives of methods (each case checked with slangc): with a
/// differentiable `this` the derivative is `static` and takes `this`'s
/// pair first (E31156 when not static, E31150 when the pair is missing);
/// `[NoDiffThis]` or a non-differentiable type: a non-static method
/// (E38105 for a static one). Pointer types pass `this` as a
/// `DifferentialPtrPair`.
#[test]
fn custom_derivatives_of_methods() {
    check_diags(
        r#"
struct A : IDifferentiable
{
    float x;
    [ForwardDerivative(fwd_ok)]
    float ok(float y) { return x * y; }
    static DifferentialPair<float> fwd_ok(DifferentialPair<A> self, DifferentialPair<float> y) { return y; }

    [ForwardDerivative(fwd_not_static)]
    float notStatic(float y) { return x * y; }
    DifferentialPair<float> fwd_not_static(DifferentialPair<A> self, DifferentialPair<float> y) { return y; }

    [BackwardDerivative(bwd_no_this)]
    float noThis(float y) { return x * y; }
    static void bwd_no_this(inout DifferentialPair<float> y, float dOut) { }

    [BackwardDerivative(bwd_with_this)]
    float withThis(float y) { return x * y; }
    static void bwd_with_this(inout DifferentialPair<A> self, inout DifferentialPair<float> y, float dOut) { }

    [NoDiffThis]
    [ForwardDerivative(fwd_nodiffthis)]
    float noDiffThis(float y) { return x * y; }
    DifferentialPair<float> fwd_nodiffthis(DifferentialPair<float> y) { return y; }
}
struct B
{
    float x;
    [ForwardDerivative(fwd_static)]
    float get(float y) { return x * y; }
    static DifferentialPair<float> fwd_static(DifferentialPair<float> y) { return y; }

    [ForwardDerivative(fwd_method)]
    float get2(float y) { return x * y; }
    DifferentialPair<float> fwd_method(DifferentialPair<float> y) { return y; }

    [ForwardDerivative(B.fwd_method)]
    float get3(float y) { return x * y; }
}
struct Ptr : IDifferentiablePtrType
{
    typealias Differential = Ptr;
    RWStructuredBuffer<float> buf;
    [BackwardDerivative(load_bwd)]
    float load(uint i) { return buf[i]; }
    static void load_bwd(DifferentialPtrPair<Ptr> self, uint i, float dOut) { }
}
"#,
        expect![[r#"
            /main.slang:9:24: error[derivative-signature]: `fwd_not_static` must be `static` and take the derivative of `this` as its first parameter: expected `static DifferentialPair<float> fwd_diff(notStatic)(DifferentialPair<A> this, DifferentialPair<float> y)`
            /main.slang:13:25: error[derivative-signature]: `bwd_no_this` does not have the signature of `bwd_diff(noThis)`: expected `static void bwd_diff(noThis)(inout DifferentialPair<A> this, inout DifferentialPair<float> y, float dResult)`
            /main.slang:29:24: error[derivative-signature]: `get` is a method without a differentiable `this`, so `fwd_static` must be a non-static method of the same type: expected `DifferentialPair<float> fwd_diff(get)(DifferentialPair<float> y)`
            /main.slang:30:33: warning[field-without-derivative]: `x` gets no derivative: `B` is not differentiable; make `B` conform to `IDifferentiable`, or mark the method `[NoDiffThis]` if that is intended
            /main.slang:34:34: warning[field-without-derivative]: `x` gets no derivative: `B` is not differentiable; make `B` conform to `IDifferentiable`, or mark the method `[NoDiffThis]` if that is intended
            /main.slang:37:26: error[non-static-through-type]: `B.fwd_method` names a non-static method through its type: write `fwd_method` (or make it `static`)
            /main.slang:38:34: warning[field-without-derivative]: `x` gets no derivative: `B` is not differentiable; make `B` conform to `IDifferentiable`, or mark the method `[NoDiffThis]` if that is intended
        "#]],
    );
}

/// Derivative names with generic arguments (`f<T>`) and qualified names
/// are resolved and compared; parameter directions and `T` versus
/// `T.Differential` count (slangc: E31149 on each of these lines).
#[test]
fn generic_and_qualified_derivative_names() {
    check_diags(
        r#"
[BackwardDerivative(bwd_dir)]
float dir(float x) { return x * x; }
void bwd_dir(DifferentialPair<float> x, float dOut) { }

[BackwardDerivative(bwd_g<T>)]
T g<T : __BuiltinFloatingPointType>(T x) { return x * x; }
void bwd_g<T : __BuiltinFloatingPointType>(inout DifferentialPair<T> x, T.Differential dOut) { }

[BackwardDerivative(bwd_h<T>)]
T h<T : __BuiltinFloatingPointType>(T x) { return x * x; }
void bwd_h<T : __BuiltinFloatingPointType>(inout DifferentialPair<T> x, T dOut) { }

[ForwardDerivative(fwd_k<U>)]
T k<T : __BuiltinFloatingPointType>(T y) { return y * y; }
DifferentialPair<U> fwd_k<U : __BuiltinFloatingPointType>(DifferentialPair<U> y, U z) { return y; }

struct S
{
    [ForwardDerivative(S.fwd_m)]
    static float m(float y) { return y; }
    static DifferentialPair<float> fwd_m(DifferentialPair<float> y) { return y; }
    [ForwardDerivative(S.missing)]
    static float n(float y) { return y; }
}
"#,
        expect![[r#"
            /main.slang:2:21: error[derivative-signature]: `bwd_dir` does not have the signature of `bwd_diff(dir)`: expected `void bwd_diff(dir)(inout DifferentialPair<float> x, float dResult)`
            /main.slang:10:21: error[derivative-signature]: `bwd_h` does not have the signature of `bwd_diff(h)`: expected `void bwd_diff(h)<T>(inout DifferentialPair<T> x, T.Differential dResult)`
            /main.slang:14:20: error[derivative-signature]: `fwd_k` does not have the signature of `fwd_diff(k)`: expected `DifferentialPair<T> fwd_diff(k)<T>(DifferentialPair<T> y)`
            /main.slang:23:26: error[unresolved-name]: `S` has no method `missing` (named by `[ForwardDerivative]`)
        "#]],
    );
}

/// `fwd_diff(S.method)`: through the type, the pair of `this` is the
/// first argument (slangc: E30019 for a plain `A`, E39999 without it).
#[test]
fn derivatives_of_methods_named_through_their_type() {
    check_diags(
        r#"
struct A : IDifferentiable
{
    float x;
    [Differentiable]
    float plain(float y) { return x * y; }
}
void main()
{
    A a = { 2.0 };
    var r = fwd_diff(A.plain)(a, diffPair(1.0, 1.0));
    var q = fwd_diff(A.plain)(diffPair(1.0, 1.0));
    var s = fwd_diff(A.plain)(diffPair(a, a), diffPair(1.0, 1.0));
    var t = fwd_diff(a.plain)(diffPair(1.0, 1.0));
    float u = r.d + q.d + s.d + t.d;
}
"#,
        expect![[r#"
            /main.slang:11:31: error[type-mismatch]: mismatched types: expected `DifferentialPair<A>`, found `A`
            /main.slang:12:13: error[wrong-argument-count]: `fwd_diff(plain)` takes 2 arguments, but 1 was given; its signature is `DifferentialPair<float> fwd_diff(plain)(DifferentialPair<A> this, DifferentialPair<float> y)`
        "#]],
    );
}

/// Function attributes only on functions, loop attributes only on loops,
/// `[DerivativeMember]` only on fields (slangc: E31002 on each line
/// reported; `[TreatAsDifferentiable]` on a struct and `[NoDiffThis]` on a
/// free function are accepted).
#[test]
fn attribute_placements() {
    check_diags(
        r#"
[PreferRecompute]
struct S { float x; }
[ForceUnroll]
float f(float x) { return x; }
[Differentiable]
float g(float x)
{
    [PreferCheckpoint]
    float y = x * x;
    [MaxIters(4)]
    if (y > 0) { y = 1; }
    [ForceUnroll]
    for (int i = 0; i < 3; i++) { y += x; }
    return y;
}
[TreatAsDifferentiable] struct S2 { float x; }
[NoDiffThis] float nf(float x) { return x; }
[DerivativeMember(x)] float df(float x) { return x; }
[Differentiable] static const float c = 1.0;
struct T2 { [PreferRecompute] float m(float x) { return x; } }
"#,
        expect![[r#"
            /main.slang:2:2: error[attribute-placement]: `[PreferRecompute]` applies to functions, not to a type
            /main.slang:4:2: error[attribute-placement]: `[ForceUnroll]` applies to loops (`for`, `while`, `do`), not to a function
            /main.slang:9:6: error[attribute-placement]: `[PreferCheckpoint]` applies to functions, not to a variable
            /main.slang:11:6: error[attribute-placement]: `[MaxIters]` applies to loops (`for`, `while`, `do`), not to an `if` statement
            /main.slang:19:2: error[attribute-placement]: `[DerivativeMember]` applies to fields, not to a function
            /main.slang:20:2: error[attribute-placement]: `[Differentiable]` applies to functions, not to a variable
        "#]],
    );
}

/// Fields of a non-differentiable `this` in a differentiable method get no
/// derivative: a warning per use (slangc's E31159, same columns), none
/// under `[NoDiffThis]`, in static methods, for non-differentiable field
/// types or for differentiable structs.
#[test]
fn fields_of_non_differentiable_this() {
    check_diags(
        r#"
struct Bar
{
    float k;
    int n;
    [Differentiable]
    float eval(float x) { return k * x * this.k + float(n); }
    [Differentiable]
    static float st(float x) { return x; }
    [NoDiffThis, Differentiable]
    float nd(float x) { return k * x; }
    float nondiff(float x) { return k * x; }
}
struct Baz : IDifferentiable
{
    float k;
    [Differentiable]
    float eval(float x) { return k * x; }
}
"#,
        expect![[r#"
            /main.slang:7:34: warning[field-without-derivative]: `k` gets no derivative: `Bar` is not differentiable; make `Bar` conform to `IDifferentiable`, or mark the method `[NoDiffThis]` if that is intended
            /main.slang:7:47: warning[field-without-derivative]: `k` gets no derivative: `Bar` is not differentiable; make `Bar` conform to `IDifferentiable`, or mark the method `[NoDiffThis]` if that is intended
        "#]],
    );
}

/// A requirement of an interface that extends `IDifferentiable` takes
/// `this` (of the conforming type, `This`) like a method of a
/// differentiable struct.
#[test]
fn requirements_of_differentiable_interfaces() {
    check_sigs(
        r#"
interface IFoo : IDifferentiable
{
    [Differentiable]
    float eval(float x);
}
interface IBar
{
    [Differentiable]
    float eval(float x);
}
"#,
        "eval",
        expect![[r#"
            DifferentialPair<float> fwd_diff(eval)(DifferentialPair<This> this, DifferentialPair<float> x)
            void bwd_diff(eval)(inout DifferentialPair<This> this, inout DifferentialPair<float> x, float dResult)
            DifferentialPair<float> fwd_diff(eval)(DifferentialPair<float> x)
            void bwd_diff(eval)(inout DifferentialPair<float> x, float dResult)
        "#]],
    );
}

/// The derivative data-flow analysis is flow-sensitive and two-sided
/// (each case checked with slangc): a call to a non-differentiable
/// function is an error only when a derivative flows into it (from any
/// differentiable parameter, `no_diff` ones and `detach` included) and
/// its result's derivative is needed (returned, or passed to a
/// differentiable call). Stores lose derivatives only of values that
/// carry one (not of `no_diff` parameters, overwritten locals or
/// `detach`ed values).
#[test]
fn derivative_flow_is_flow_sensitive() {
    check_diags(
        r#"
float nd(float x) { return x * 2; }
RWStructuredBuffer<float> buf;
[Differentiable]
float onlyInCondition(float x) { float y = nd(x); if (y > 0) return x; return 2*x; }
[Differentiable]
float onlyStored(float x) { float y = nd(x); buf[0] = y; return x; }
[Differentiable]
float returned(float x) { float y = nd(x); return y; }
[Differentiable]
float castToInt(float x) { int i = int(nd(x)); return x * i; }
[Differentiable]
float overwritten(float x) { float y = nd(x); y = x; return y; }
[Differentiable]
float constantArgument(float x) { float y = x; float z = nd(2.0); return y + z; }
[Differentiable]
float fromConstant(float x) { float y = 1.0; y = nd(y); y = y + x; return y; }
[Differentiable]
float noDiffParameter(float x, no_diff float w) { return x + nd(w); }
[Differentiable]
float detached(float x) { float f = floor(detach(x)); return x - f; }
[Differentiable]
float storeNoDiffParameter(float x, no_diff float w) { buf[0] = w; return x; }
[Differentiable]
float storeOverwritten(float x) { float y = x; y = 1.0; buf[0] = y; return x; }
[Differentiable]
float storeDetached(float x) { buf[0] = detach(x); return x; }
[Differentiable]
float storeActive(float x) { buf[0] = x; return x; }
[Differentiable]
float inLoop(float x)
{
    float acc = 0.0;
    float carried = 1.0;
    for (int i = 0; i < 4; i++) { acc = acc + carried; carried = x; }
    return nd(acc);
}
"#,
        expect![[r#"
            /main.slang:9:37: error[derivative-lost]: derivatives cannot flow through `nd`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff nd(…)` if none should
            /main.slang:19:62: error[derivative-lost]: derivatives cannot flow through `nd`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff nd(…)` if none should
            /main.slang:21:37: error[derivative-lost]: derivatives cannot flow through `floor`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff floor(…)` if none should
            /main.slang:29:30: error[derivative-lost]: the value carries a derivative that is lost when it is stored in a buffer; write `detach(…)` around it to say so
            /main.slang:36:12: error[derivative-lost]: derivatives cannot flow through `nd`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff nd(…)` if none should
        "#]],
    );
}

/// slangc E30510 applies to `[ForwardDifferentiable]` functions too (a
/// `for` with a literal bound needs nothing, as in backward mode).
#[test]
fn forward_only_loops_need_a_bound() {
    check_diags(
        r#"
[ForwardDifferentiable]
float f(float x, int n)
{
    float r = x;
    for (int i = 0; i < n; i++) { r = r * x; }
    [MaxIters(4)] while (n < 3) { r = r * x; n++; }
    for (int k = 0; k < 4; k++) { r = r + x; }
    return r;
}
float plain(float x, int n)
{
    for (int i = 0; i < n; i++) { x = x * x; }
    return x;
}
"#,
        expect![[r#"
            /main.slang:6:5: error[unbounded-loop]: this loop in the differentiable function `f` has no iteration bound the compiler can see: add `[MaxIters(n)]` (or `[ForceUnroll]`) before it
        "#]],
    );
}

/// A `for` whose condition tests, or whose step changes, another variable
/// than the one it initializes has no bound the reference compiler can
/// infer (slangc: E30510 at 6:5 and 13:5, beside its warnings E30508 and
/// E30507; the fixture's first line is empty as in the file given to it).
#[test]
fn loops_whose_condition_or_step_use_another_variable_need_a_bound() {
    check_diags(
        r#"
[ForwardDifferentiable]
float tested(float x)
{
    int j = 0;
    for (int i = 0; j < 5; i++) { x = x * x; }
    return x;
}
[ForwardDifferentiable]
float stepped(float x)
{
    int j = 0;
    for (int i = 0; i < 5; j++) { x = x * x; }
    return x;
}
[ForwardDifferentiable]
float fine(float x)
{
    int m;
    for (m = 0; m < 5; ++m) { x = x + x; }
    for (int q = 0; q < 5; q += 1) { x = x + x; }
    return x;
}
"#,
        expect![[r#"
            /main.slang:6:5: error[unbounded-loop]: this loop in the differentiable function `tested` has no iteration bound the compiler can see: add `[MaxIters(n)]` (or `[ForceUnroll]`) before it
            /main.slang:13:5: error[unbounded-loop]: this loop in the differentiable function `stepped` has no iteration bound the compiler can see: add `[MaxIters(n)]` (or `[ForceUnroll]`) before it
        "#]],
    );
}

/// Reading a property calls its getter: in a differentiable function, a
/// getter that is not differentiable loses the receiver's derivative when
/// the result's is needed (slangc's E41022 on the same lines 8, 10 and 12,
/// `no_diff` parameters and `detach` counting as carrying as for calls;
/// not when the value is unused). A getter marked `[Differentiable]` is
/// differentiable (slangc 2026.14 crashes on that one).
#[test]
fn property_getters_in_derivative_flow() {
    check_diags(
        r#"
struct P : IDifferentiable
{
    float v;
    property float plain { get { return v * v; } }
}
[Differentiable]
float lost(P p) { return p.plain * 3.0; }
[Differentiable]
float constant(P p, no_diff P q) { return p.v + q.plain; }
[Differentiable]
float detached(P p) { return p.v + detach(p).plain; }
[Differentiable]
float unused(P p) { float k = p.plain; return p.v; }
struct Q : IDifferentiable
{
    float v;
    property float smooth { [Differentiable] get { return v * v; } }
}
[Differentiable]
float kept(Q q) { return q.smooth * 3.0; }
"#,
        expect![[r#"
            /main.slang:8:26: error[derivative-lost]: derivatives cannot flow through the property `plain`, whose getter is not differentiable: mark its `get` `[Differentiable]`
            /main.slang:10:49: error[derivative-lost]: derivatives cannot flow through the property `plain`, whose getter is not differentiable: mark its `get` `[Differentiable]`
            /main.slang:12:36: error[derivative-lost]: derivatives cannot flow through the property `plain`, whose getter is not differentiable: mark its `get` `[Differentiable]`
        "#]],
    );
}

/// Assigning a property or `__subscript` calls its setter: a value that
/// carries a derivative is lost in a setter that is not differentiable
/// (a `[Differentiable]` getter does not make the setter so); not for
/// constants and `detach`ed values, nor for differentiable setters
/// (marked themselves, or through the declaration).
#[test]
fn setters_in_derivative_flow() {
    check_diags(
        r#"
struct P : IDifferentiable
{
    float a;
    property float sum { [Differentiable] get { return a; } set { a = newValue; } }
    __subscript(int i) -> float { get { return a; } set { a = newValue; } }
    property float smooth { get { return a; } [Differentiable] set { a = newValue; } }
    [Differentiable] property float whole { get { return a; } set { a = newValue; } }
}
[Differentiable]
float f(float x)
{
    P p = { 0.0 };
    p.sum = x;
    p[0] = x * 2.0;
    p.sum = detach(x);
    p.sum = 2.0;
    p.smooth = x;
    p.whole = x;
    return p.a * x;
}
"#,
        expect![[r#"
            /main.slang:14:5: error[derivative-lost]: the value carries a derivative that is lost when it is stored in the property `P.sum` through its `set`, which is not differentiable (mark it `[Differentiable]`); write `detach(…)` around it to say so
            /main.slang:15:5: error[derivative-lost]: the value carries a derivative that is lost when it is stored in `P`'s `__subscript` through its `set`, which is not differentiable (mark it `[Differentiable]`); write `detach(…)` around it to say so
        "#]],
    );
}

/// `no_diff` on a call of a differentiable function has no effect (the
/// reference compiler differentiates through it without a word): a
/// warning that says so and points to `detach`; none on calls of
/// non-differentiable functions, on `no_diff` subscripts, or outside
/// differentiable code.
#[test]
fn no_diff_on_a_differentiable_call() {
    check_diags(
        r#"
[Differentiable] float sq(float x) { return x * x; }
float plain(float x) { return x * 2.0; }
RWStructuredBuffer<float> buf;
[Differentiable]
float f(float x)
{
    float a = no_diff(exp(x));
    float b = no_diff sq(x);
    float c = no_diff(plain(x));
    float d = no_diff(floor(x));
    float e = no_diff buf[0];
    return a * b * c * d * e * x;
}
float g(float x) { return no_diff(exp(x)); }
"#,
        expect![[r#"
            /main.slang:8:15: warning[no-diff-no-effect]: `no_diff` has no effect here: `exp` is differentiable, so the derivative still flows through the call; use `detach(…)` to stop it
            /main.slang:9:15: warning[no-diff-no-effect]: `no_diff` has no effect here: `sq` is differentiable, so the derivative still flows through the call; use `detach(…)` to stop it
        "#]],
    );
}

/// A differentiable value passed where the parameter's type is a generic
/// parameter that is not `IDifferentiable` loses its derivative (the
/// reference compiler computes 0 there without a word): a warning at the
/// argument, none when the argument carries no derivative or the
/// constraint makes `T` differentiable.
#[test]
fn derivative_lost_through_a_non_differentiable_generic() {
    check_diags(
        r#"
interface INorm { [Differentiable] float norm2(); }
interface IDiffNorm : IDifferentiable { [Differentiable] float norm2(); }
struct Pt : INorm, IDiffNorm, IDifferentiable
{
    float x;
    [Differentiable] float norm2() { return x * x; }
}
[Differentiable] float f<T : INorm>(T v) { return v.norm2(); }
[Differentiable] float h<T : IDiffNorm>(T v) { return v.norm2(); }
[Differentiable]
float g(Pt a, no_diff Pt b)
{
    return f(a) + f(b) + h(a) + a.x;
}
"#,
        expect![[r#"
            /main.slang:14:14: warning[derivative-lost-generic]: the derivative of this argument is dropped: parameter `v` of `f` has type `T`, which is not constrained to be `IDifferentiable`; add `IDifferentiable` to `T`'s constraints to differentiate through it
        "#]],
    );
}

/// `T.f(…)` with `T` a generic parameter names the requirement of `T`'s
/// interfaces: a requirement that is not differentiable stops derivatives
/// whatever the conforming types' methods are (slangc: E41022 at `f3`,
/// nothing at `f5`, which says `no_diff`, or at `f4`, whose requirement is
/// differentiable).
#[test]
fn derivative_lost_through_a_static_requirement() {
    check_diags(
        r#"
interface IPlain : IDifferentiable { static float sq(float s); [Differentiable] static float cube(float s); }
extension float : IPlain
{
    [Differentiable] static float sq(float s) { return s * s; }
    [Differentiable] static float cube(float s) { return s * s * s; }
}
[Differentiable] float f3<T : IPlain>(T x, float s) { return T.sq(s); }
[Differentiable] float f4<T : IPlain>(T x, float s) { return T.cube(s); }
[Differentiable] float f5<T : IPlain>(T x, float s) { return no_diff(T.sq(s)) + s; }
"#,
        expect![[r#"
            /main.slang:8:62: error[derivative-lost]: derivatives cannot flow through `sq`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff sq(…)` if none should
        "#]],
    );
}

/// Bounds the reference compiler evaluates: `static const` globals, `const`
/// locals declared before the loop, and arithmetic of constants (slangc
/// accepts all but the last two loops, whose bounds are a parameter and a
/// local that is not `const`).
#[test]
fn constant_loop_bounds() {
    check_diags(
        r#"
static const int N = 3;
static const uint U = 2;
[Differentiable]
float f(float x, int n)
{
    float r = x;
    const int M = 4;
    for (int i = 0; i < N; i++) { r = r * x; }
    for (uint i = 0; i < U; i++) { r = r * x; }
    for (int i = 0; i < M; i++) { r = r * x; }
    for (int i = 0; i < N * 2; i++) { r = r + x; }
    for (int i = 0; i < (2 * 2); i++) { r = r + x; }
    for (int i = 0; i < n + 1; i++) { r = r + x; }
    int k = 3;
    for (int i = 0; i < k; i++) { r = r + x; }
    return r;
}
"#,
        expect![[r#"
            /main.slang:14:5: error[unbounded-loop]: this loop in the differentiable function `f` has no iteration bound the compiler can see: add `[MaxIters(n)]` (or `[ForceUnroll]`) before it
            /main.slang:16:5: error[unbounded-loop]: this loop in the differentiable function `f` has no iteration bound the compiler can see: add `[MaxIters(n)]` (or `[ForceUnroll]`) before it
        "#]],
    );
}

/// User-defined operators are calls: one that is not differentiable loses
/// the derivative (slangc's E41022 on the same lines); differentiable ones
/// and operators outside differentiable code are fine.
#[test]
fn non_differentiable_user_operators() {
    check_diags(
        r#"
struct S : IDifferentiable { float v; };
S operator+(S a, S b) { S r; r.v = a.v + b.v; return r; }
S operator-(S a) { S r; r.v = -a.v; return r; }
[Differentiable] S operator*(S a, S b) { S r; r.v = a.v * b.v; return r; }
[Differentiable] float f(S a) { S b = a + a; return b.v; }
[Differentiable] float g(S a) { S b = -a; return b.v; }
[Differentiable] float h(S a) { S b = a * a; return b.v; }
float k(S a) { S b = -(a + a); return b.v; }
"#,
        expect![[r#"
            /main.slang:6:39: error[derivative-lost]: derivatives cannot flow through `operator+`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff operator+(…)` if none should
            /main.slang:7:39: error[derivative-lost]: derivatives cannot flow through `operator-`, which is not differentiable: mark it `[Differentiable]`, or write `no_diff operator-(…)` if none should
        "#]],
    );
}

/// A constructor call runs the struct's `__init`: one that is not
/// differentiable loses the derivative (slangc's E41022 on the same line);
/// a `[Differentiable]` one does not.
#[test]
fn non_differentiable_init() {
    check_diags(
        r#"
struct C : IDifferentiable { float a; __init(float x) { a = x; } };
struct D : IDifferentiable { float a; [Differentiable] __init(float x) { a = x; } };
[Differentiable] float f(float x) { C c = C(x * 2.0); return c.a; }
[Differentiable] float g(float x) { D d = D(x * 2.0); return d.a; }
[Differentiable] float h(float x) { C c = C(2.0); return c.a * x; }
"#,
        expect![[r#"
            /main.slang:4:43: error[derivative-lost]: derivatives cannot flow through this `C` constructor, whose `__init` is not differentiable: mark the `__init` `[Differentiable]`, or write `no_diff C(…)` if none should
        "#]],
    );
}

#[test]
fn values_of_differentiable_interfaces_are_differentiable() {
    let src = "interface IModel : IDifferentiable { [Differentiable] float eval(float x); }\n\
               interface IShape { float area(); }\n\
               [Differentiable] float loss(IModel m, IShape s, float x) { return m.eval(x) * s.area(); }\n";
    check_sigs(
        src,
        "loss",
        expect![[r#"
            DifferentialPair<float> fwd_diff(loss)(DifferentialPair<IModel> m, IShape s, DifferentialPair<float> x)
            void bwd_diff(loss)(inout DifferentialPair<IModel> m, IShape s, inout DifferentialPair<float> x, float dResult)
        "#]],
    );
    // Passed to a derivative, such a value goes in a pair (as slangc says).
    check_diags(
        &format!("{src}void g(IModel m, IShape s) {{ var x = diffPair(1.0); bwd_diff(loss)(m, s, x, 1.0); }}\n"),
        expect![[r#"
            /main.slang:4:68: error[type-mismatch]: mismatched types: expected `DifferentialPair<IModel>`, found `IModel`
        "#]],
    );
}

/// `__func_extension fwd_diff(f)`, `bwd_diff(f)` and `__apply(f)` give `f`
/// derivatives (slangc 2026.14.1 `-experimental-feature` accepts these
/// calls); a function without one stays not differentiable.
#[test]
fn func_extensions_give_derivatives() {
    check_diags(
        r#"
float cube(float x) { return x * x * x; }
__func_extension fwd_diff(cube)(DifferentialPair<float> x) -> DifferentialPair<float>
{
    return diffPair(cube(x.p), 3.0 * x.p * x.p * x.d);
}
T sqr<T : IFloat>(T x) { return x * x; }
__func_extension<T : IFloat> bwd_diff(sqr<T>)(inout DifferentialPair<T> x, T dOut) -> void
    where T.Differential == T
{
    x = diffPair(x.p, dOut * x.p * T(2.0));
}
struct Utils { static float twice(float x) { return x + x; } }
__func_extension fwd_diff(Utils::twice)(DifferentialPair<float> x) -> DifferentialPair<float>
{
    return diffPair(x.p * 2.0, x.d * 2.0);
}
float plain(float x) { return x; }
void main()
{
    DifferentialPair<float> dpx = diffPair(2.0, 1.0);
    let a = fwd_diff(cube)(dpx);
    bwd_diff(sqr<float>)(dpx, 1.0);
    let b = fwd_diff(Utils::twice)(dpx);
    let c = fwd_diff(plain)(dpx);
}
"#,
        expect![[r#"
            /main.slang:25:13: error[not-differentiable]: `fwd_diff(plain)`: `plain` is not differentiable; mark it `[Differentiable]` (or give it a `[ForwardDerivative]`)
        "#]],
    );
}

/// `__func_extension`s give functions not marked differentiable their
/// derivatives: `fwd_diff` forward only, `bwd_diff` and `__apply` both
/// modes. A generic function's parameters of a generic type stay open (the
/// extension may be of one instance); a method of a type that is not
/// differentiable takes `this` as an ordinary first parameter. Calls of
/// the derivatives are accepted.
#[test]
fn func_extensions_make_functions_differentiable() {
    let text = r#"
float cube(float x) { return x * x * x; }
__func_extension fwd_diff(cube)(DifferentialPair<float> x) -> DifferentialPair<float>
{
    return diffPair(cube(x.p), 3.0 * x.p * x.p * x.d);
}
T sqr<T : IArithmetic>(T x) { return x * x; }
__func_extension bwd_diff(sqr<float>)(inout DifferentialPair<float> x, float dOut) -> void
{
    x = diffPair(x.p, dOut * 2.0 * x.p);
}
struct Scaler
{
    float k;
    float apply(float x) { return k * x; }
};
__func_extension bwd_diff(Scaler::apply)(no_diff Scaler self, inout DifferentialPair<float> x, float dOut) -> void
{
    x = diffPair(x.p, dOut * self.k);
}
float plain(float x) { return x; }
void main()
{
    let r = fwd_diff(cube)(diffPair(2.0, 1.0));
    var p = diffPair(3.0, 0.0);
    bwd_diff(sqr<float>)(p, 1.0);
    Scaler s = { 2.0 };
    bwd_diff(Scaler::apply)(s, p, 1.0);
}
"#;
    check_sigs(
        text,
        "cube",
        expect![[r#"
            DifferentialPair<float> fwd_diff(cube)(DifferentialPair<float> x)
            bwd_diff: not differentiable
        "#]],
    );
    check_sigs(
        text,
        "sqr",
        expect![[r#"
            {unknown} fwd_diff(sqr)<T>({unknown} x)
            void bwd_diff(sqr)<T>({unknown} x, {unknown} dResult)
        "#]],
    );
    check_sigs(
        text,
        "apply",
        expect![[r#"
            DifferentialPair<float> fwd_diff(apply)(Scaler this, DifferentialPair<float> x)
            void bwd_diff(apply)(Scaler this, inout DifferentialPair<float> x, float dResult)
        "#]],
    );
    check_sigs(
        text,
        "plain",
        expect![[r#"
            fwd_diff: not differentiable
            bwd_diff: not differentiable
        "#]],
    );
    // (No errors; the warning that `Scaler.k` gets no derivative is for
    // `apply`'s own body, which the extension's derivative replaces.)
    let diags = render_diagnostics(&fixture(text));
    assert!(!diags.contains("error"), "{diags}");
}
