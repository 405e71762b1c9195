//! Autodiff rules on declarations and stores that the reference compiler
//! enforces. Each fixture is a file given to `slangc -no-codegen` (the
//! fixture's line N is the file's line N - 1: it starts with a newline);
//! the doc comment of each test says what slangc reported.

mod common;

use common::{fixture, render_diagnostics};
use expect_test::{expect, Expect};

fn check_diags(text: &str, expect: Expect) {
    expect.assert_eq(&render_diagnostics(&fixture(text)));
}

/// slangc: E41031 on lines 8, 10, 12, 14, 16, 18, 24, 26, 28, 30, 33 and 35.
/// Line 30 (a forward-only function) is not reported here: the store
/// check runs in backward-differentiable functions only. None on 20
/// (`detach`), 22 (a local array) or 31 (not differentiable).
#[test]
fn derivative_lost_in_locations_without_derivatives() {
    check_diags(
        r#"
static float g_static;
groupshared float g_shared;
struct ND { float f; }
struct DiffT : IDifferentiable { float f; }
struct NDF { DiffT fp; }
[Differentiable]
float a1(float x) { g_static = x; return x; }
[Differentiable]
float a2(float x) { g_shared = x * 2; return x; }
[Differentiable]
void a3(float x, no_diff out float o) { o = x; }
[Differentiable]
void a4(float x, no_diff out DiffT o) { o.f = x; }
[Differentiable]
float a5(float x) { ND n; n.f = x; return n.f; }
[Differentiable]
float a6(float x) { NDF n; n.fp.f = x; return x; }
[Differentiable]
float a7(float x) { NDF n; n.fp.f = detach(x); n.fp.f = 1.0; return x; }
[Differentiable]
float a8(float x) { float arr[2]; arr[0] = x; return arr[0]; }
[Differentiable]
float a9(float x) { ND arr[2]; arr[0].f = x; return x; }
[Differentiable]
void a10(float x, out ND o) { o.f = x; }
[Differentiable]
void a11(float x, inout ND o) { o.f = x; }
[ForwardDifferentiable]
float a12(float x) { g_shared = x * 2; return x; }
float a13(float x) { g_shared = x * 2; return x; }
[Differentiable]
void a14(float x, no_diff inout DiffT o) { o.f = x; }
[Differentiable]
float a15(float x) { g_shared += x; return x; }
"#,
        expect![[r#"
            /main.slang:8:21: error[derivative-lost]: the value carries a derivative that is lost when it is stored in the global `g_static`; write `detach(…)` around it to say so
            /main.slang:10:21: error[derivative-lost]: the value carries a derivative that is lost when it is stored in the `groupshared` variable `g_shared`; write `detach(…)` around it to say so
            /main.slang:12:41: error[derivative-lost]: the value carries a derivative that is lost when it is stored in the `no_diff` parameter `o`; write `detach(…)` around it to say so
            /main.slang:14:41: error[derivative-lost]: the value carries a derivative that is lost when it is stored in the `no_diff` parameter `o`; write `detach(…)` around it to say so
            /main.slang:16:27: error[derivative-lost]: the value carries a derivative that is lost when it is stored in a field of a `ND`, a type that is not differentiable; write `detach(…)` around it to say so
            /main.slang:18:28: error[derivative-lost]: the value carries a derivative that is lost when it is stored in a field of a `NDF`, a type that is not differentiable; write `detach(…)` around it to say so
            /main.slang:24:32: error[derivative-lost]: the value carries a derivative that is lost when it is stored in a field of a `ND`, a type that is not differentiable; write `detach(…)` around it to say so
            /main.slang:26:31: error[derivative-lost]: the value carries a derivative that is lost when it is stored in a field of a `ND`, a type that is not differentiable; write `detach(…)` around it to say so
            /main.slang:28:33: error[derivative-lost]: the value carries a derivative that is lost when it is stored in a field of a `ND`, a type that is not differentiable; write `detach(…)` around it to say so
            /main.slang:33:44: error[derivative-lost]: the value carries a derivative that is lost when it is stored in the `no_diff` parameter `o`; write `detach(…)` around it to say so
            /main.slang:35:22: error[derivative-lost]: the value carries a derivative that is lost when it is stored in the `groupshared` variable `g_shared`; write `detach(…)` around it to say so
        "#]],
    );
}

/// slangc: E41031 on lines 3, 4 and 8 (a generic struct that is not
/// differentiable); none on 10 (parts of a local vector), 12, 14 (an `out`
/// parameter) or 16 (a `no_diff` input, a copy). Line 4 (a field of
/// `this` written without `this.`) is not reported here.
#[test]
fn derivative_lost_in_fields_of_non_differentiable_this() {
    check_diags(
        r#"
struct ND { float f;
  [Differentiable] [mutating] void set(float x) { this.f = x; }
  [Differentiable] [mutating] void set2(float x) { f = x; }
}
struct G<T> { T v; }
[Differentiable]
float b1(float x) { G<float> g; g.v = x; return g.v; }
[Differentiable]
float b2(float x) { float3 v; v.x = x; v.yz = float2(x, x); return v.x; }
[Differentiable]
float b3(float x) { DifferentialPair<float> p = diffPair(x, 1.0); return x; }
[Differentiable]
float b4(float x, out float y) { y = x; return x; }
[Differentiable]
float b5(float x, no_diff float y) { y = x; return x; }
"#,
        expect![[r#"
            /main.slang:3:51: error[derivative-lost]: the value carries a derivative that is lost when it is stored in a field of a `ND`, a type that is not differentiable; write `detach(…)` around it to say so
            /main.slang:3:56: warning[field-without-derivative]: `f` gets no derivative: `ND` is not differentiable; make `ND` conform to `IDifferentiable`, or mark the method `[NoDiffThis]` if that is intended
            /main.slang:4:52: warning[field-without-derivative]: `f` gets no derivative: `ND` is not differentiable; make `ND` conform to `IDifferentiable`, or mark the method `[NoDiffThis]` if that is intended
            /main.slang:8:33: error[derivative-lost]: the value carries a derivative that is lost when it is stored in a field of a `G`, a type that is not differentiable; write `detach(…)` around it to say so
        "#]],
    );
}

/// slangc: E30121 on line 10 only: a field of the same name in the
/// `Differential` is not enough; `no_diff`, integer and
/// `[DerivativeMember]` fields are fine.
#[test]
fn differential_type_missing_fields() {
    check_diags(
        r#"
struct MyDiff : IDifferentiable
{
    typealias Differential = MyDiff;
    float x;
}
struct MyType : IDifferentiable
{
    typealias Differential = MyDiff;
    float x;
    no_diff float y;
    int k;
    [DerivativeMember(MyDiff.x)] float z;
}
"#,
        expect![[r#"
            /main.slang:10:11: error[missing-differential-field]: the differentiable field `x` needs a field of `MyDiff` (the `Differential` of `MyType`) to hold its derivative: name it with `[DerivativeMember(…)]`, or mark the field `no_diff`
        "#]],
    );
}

/// slangc: E30121 on line 11 only.
#[test]
fn differential_type_missing_fields_2() {
    check_diags(
        r#"
struct MyDiff : IDifferentiable
{
    typealias Differential = MyDiff;
    float dx;
}
struct MyType : IDifferentiable
{
    typealias Differential = MyDiff;
    [DerivativeMember(MyDiff.dx)] float x;
    float3 w;
}
"#,
        expect![[r#"
            /main.slang:11:12: error[missing-differential-field]: the differentiable field `w` needs a field of `MyDiff` (the `Differential` of `MyType`) to hold its derivative: name it with `[DerivativeMember(…)]`, or mark the field `no_diff`
        "#]],
    );
}

/// slangc: E30121 on lines 12 and 15 (a static field: not reported here).
#[test]
fn differential_type_missing_fields_3() {
    check_diags(
        r#"
struct Inner : IDifferentiable { float a; }
struct MyDiff : IDifferentiable
{
    typealias Differential = MyDiff;
    float dx;
}
struct MyType : IDifferentiable
{
    typealias Differential = MyDiff;
    [DerivativeMember(MyDiff.dx)] float x;
    Inner q;
    uint u;
    bool b;
    static float s;
}
"#,
        expect![[r#"
            /main.slang:12:11: error[missing-differential-field]: the differentiable field `q` needs a field of `MyDiff` (the `Differential` of `MyType`) to hold its derivative: name it with `[DerivativeMember(…)]`, or mark the field `no_diff`
        "#]],
    );
}

/// slangc: E30121 on lines 5 and 15 (a `Differential` that is a scalar or a
/// vector); none for a struct that is its own `Differential`.
#[test]
fn differential_type_not_a_struct() {
    check_diags(
        r#"
struct MyType : IDifferentiable
{
    typealias Differential = float;
    float x;
}
struct T2 : IDifferentiable
{
    typealias Differential = T2;
    float x;
}
struct T3 : IDifferentiable
{
    typealias Differential = float3;
    float x;
}
"#,
        expect![[r#"
            /main.slang:5:11: error[missing-differential-field]: the differentiable field `x` needs a field of `float` (the `Differential` of `MyType`) to hold its derivative: name it with `[DerivativeMember(…)]`, or mark the field `no_diff`
            /main.slang:15:11: error[missing-differential-field]: the differentiable field `x` needs a field of `float3` (the `Differential` of `T3`) to hold its derivative: name it with `[DerivativeMember(…)]`, or mark the field `no_diff`
        "#]],
    );
}

/// slangc: E30096 on line 11 (at `IDifferentiable`), E30121 on 13; none for
/// `Fine`.
#[test]
fn differential_of_differential_must_be_itself() {
    check_diags(
        r#"
struct BadDiff : IDifferentiable
{
    typealias Differential = float;
}
struct GoodDiff : IDifferentiable
{
    typealias Differential = GoodDiff;
    float v;
}
struct MyType : IDifferentiable
{
    float val;
    typealias Differential = BadDiff;
}
struct Fine : IDifferentiable
{
    [DerivativeMember(GoodDiff.v)] float val;
    typealias Differential = GoodDiff;
}
"#,
        expect![[r#"
            /main.slang:11:17: error[invalid-differential]: `BadDiff` cannot be the `Differential` of `MyType`: a `Differential` type's own `Differential` must be itself, but that of `BadDiff` is `float`
            /main.slang:13:11: error[missing-differential-field]: the differentiable field `val` needs a field of `BadDiff` (the `Differential` of `MyType`) to hold its derivative: name it with `[DerivativeMember(…)]`, or mark the field `no_diff`
        "#]],
    );
}

/// slangc: E38034 on line 6 only (a forward-differentiable function); none
/// for `int`, `no_diff`, or a function that is not differentiable.
#[test]
fn constref_differentiable_params() {
    check_diags(
        r#"
[Differentiable]
float f(__constref int val, no_diff __constref float w) { return 1.0; }
float g(__constref float val) { return val; }
[ForwardDifferentiable]
float h(__constref float val) { return val; }
"#,
        expect![[r#"
            /main.slang:6:9: error[constref-differentiable-param]: a differentiable parameter cannot be passed by `__constref`: pass it by value, or mark it `no_diff`
        "#]],
    );
}

/// slangc: no error.
#[test]
fn constref_non_differentiable_types() {
    check_diags(
        r#"
struct S { int k; }
[Differentiable]
float f(__constref S val) { return 1; }
[Differentiable]
float f2(no_diff __constref float val) { return 1; }
[Differentiable]
float f3(__constref int val) { return 1; }
"#,
        expect![[r#""#]],
    );
}

/// slangc: E38037 on line 9.
#[test]
fn bwd_diff_called_in_differentiable_functions() {
    check_diags(
        r#"
[Differentiable]
float fff(float x, float y) { return x + y; }
[Differentiable]
float ggg(float x, float y)
{
    var xp1 = diffPair(x, 1.0);
    var yp1 = diffPair(y, 1.0);
    bwd_diff(fff)(xp1, yp1, 1.0);
    return fff(x, y) + xp1.d + yp1.d;
}
"#,
        expect![[r#"
            /main.slang:9:5: error[bwd-diff-in-differentiable]: the code `bwd_diff` produces is not itself differentiable, so a differentiable function cannot call it; for a higher-order derivative, nest `fwd_diff` inside `bwd_diff` instead
        "#]],
    );
}

/// slangc: E38037 on line 9.
#[test]
fn bwd_diff_called_in_forward_differentiable_function() {
    check_diags(
        r#"
[Differentiable]
float fff(float x, float y) { return x + y; }
[ForwardDifferentiable]
float ggg(float x, float y)
{
    var xp1 = diffPair(x, 1.0);
    var yp1 = diffPair(y, 1.0);
    bwd_diff(fff)(xp1, yp1, 1.0);
    return fff(x, y) + xp1.d + yp1.d;
}
"#,
        expect![[r#"
            /main.slang:9:5: error[bwd-diff-in-differentiable]: the code `bwd_diff` produces is not itself differentiable, so a differentiable function cannot call it; for a higher-order derivative, nest `fwd_diff` inside `bwd_diff` instead
        "#]],
    );
}

/// slangc: E38037 on line 15 only (`fwd_diff` in a differentiable function
/// is fine; `no_diff` does not help).
#[test]
fn bwd_diff_under_no_diff_and_fwd_diff() {
    check_diags(
        r#"
[Differentiable]
float fff(float x, float y) { return x + y; }
[Differentiable]
float ggg(float x, float y)
{
    var xp1 = diffPair(x, 1.0);
    return fwd_diff(fff)(xp1, diffPair(y, 1.0)).d;
}
[Differentiable]
float hhh(float x, float y)
{
    var xp1 = diffPair(x, 1.0);
    var yp1 = diffPair(y, 1.0);
    no_diff bwd_diff(fff)(xp1, yp1, 1.0);
    return x;
}
"#,
        expect![[r#"
            /main.slang:15:13: error[bwd-diff-in-differentiable]: the code `bwd_diff` produces is not itself differentiable, so a differentiable function cannot call it; for a higher-order derivative, nest `fwd_diff` inside `bwd_diff` instead
        "#]],
    );
}

/// slangc: E38037 on line 11 (a custom derivative does not help); none in
/// a `[TreatAsDifferentiable]` function.
#[test]
fn bwd_diff_with_custom_derivative() {
    check_diags(
        r#"
[Differentiable]
float fff(float x, float y) { return x + y; }
void hb(inout DifferentialPair<float> x, inout DifferentialPair<float> y, float d) {}
[Differentiable]
[BackwardDerivative(hb)]
float hhh(float x, float y)
{
    var xp1 = diffPair(x, 1.0);
    var yp1 = diffPair(y, 1.0);
    bwd_diff(fff)(xp1, yp1, 1.0);
    return x;
}
[TreatAsDifferentiable]
float h2(float x, float y)
{
    var xp1 = diffPair(x, 1.0);
    var yp1 = diffPair(y, 1.0);
    bwd_diff(fff)(xp1, yp1, 1.0);
    return x;
}
"#,
        expect![[r#"
            /main.slang:11:5: error[bwd-diff-in-differentiable]: the code `bwd_diff` produces is not itself differentiable, so a differentiable function cannot call it; for a higher-order derivative, nest `fwd_diff` inside `bwd_diff` instead
        "#]],
    );
}

/// slangc: E31158 on line 4.
#[test]
fn primal_substitute_must_be_differentiable() {
    check_diags(
        r#"
[Differentiable]
float add(float v) { return v; }
[PrimalSubstituteOf(add)]
float add_subst(float v) { return v; }
"#,
        expect![[r#"
            /main.slang:4:2: error[primal-substitute-not-differentiable]: `add` is differentiable, so its primal substitute must be too: mark this function `[Differentiable]` or `[TreatAsDifferentiable]`
        "#]],
    );
}

/// slangc: no error for `[PrimalSubstitute(f)]` naming a function that is
/// not differentiable.
#[test]
fn primal_substitute_of_non_differentiable() {
    check_diags(
        r#"
float add_subst(float v) { return v; }
[Differentiable]
[PrimalSubstitute(add_subst)]
float add(float v) { return v; }
"#,
        expect![[r#""#]],
    );
}

/// slangc: E31158 on line 12 only (forward-differentiable is not enough; a
/// target that is not differentiable, or `[TreatAsDifferentiable]`, is
/// fine).
#[test]
fn primal_substitute_forward_only() {
    check_diags(
        r#"
float add(float v) { return v; }
[PrimalSubstituteOf(add)]
float add_subst(float v) { return v; }
[Differentiable]
float add2(float v) { return v; }
[PrimalSubstituteOf(add2)]
[TreatAsDifferentiable]
float add_subst2(float v) { return v; }
[Differentiable]
float add3(float v) { return v; }
[PrimalSubstituteOf(add3)]
[ForwardDifferentiable]
float add_subst3(float v) { return v; }
"#,
        expect![[r#"
            /main.slang:12:2: error[primal-substitute-not-differentiable]: `add3` is differentiable, so its primal substitute must be too: mark this function `[Differentiable]` or `[TreatAsDifferentiable]`
        "#]],
    );
}

/// slangc: E31132 on lines 7 and 10 (a global and a local).
#[test]
fn derivative_member_on_non_members() {
    check_diags(
        r#"
struct DiffTarget : IDifferentiable
{
    typealias Differential = DiffTarget;
    float y;
}
[DerivativeMember(DiffTarget.y)]
float globalVar;
void f() {
  [DerivativeMember(DiffTarget.y)] float loc = 1;
}
"#,
        expect![[r#"
            /main.slang:7:2: error[attribute-placement]: `[DerivativeMember]` applies to fields of a struct, not to other variables
            /main.slang:10:4: error[attribute-placement]: `[DerivativeMember]` applies to fields of a struct, not to other variables
        "#]],
    );
}

/// slangc (`-experimental-feature`): E30126 on line 6, E30129 on line 8; none
/// for the `fwd_diff`/`__fwd_diff` targets.
#[test]
fn func_extension_targets() {
    check_diags(
        r#"
[Differentiable]
float foo(float x) { return x; }
[numthreads(1, 1, 1)]
void kernel(uint3 tid: SV_DispatchThreadID) {}
__func_extension sizeof(float)(float x) -> float { return x; }
__func_extension __fwd_diff(foo)(DifferentialPair<float> x) -> DifferentialPair<float> { return x; }
__func_extension __dispatch_kernel(kernel, uint3(1, 1, 1), uint3(1, 1, 1))() -> void {}
__func_extension fwd_diff(foo)(DifferentialPair<float> x) -> DifferentialPair<float> { return x; }
"#,
        expect![[r#"
            /main.slang:6:18: error[invalid-func-extension]: a `__func_extension` target must be `fwd_diff(f)`, `bwd_diff(f)` or `__apply(f)`
            /main.slang:8:18: error[invalid-func-extension]: a `__func_extension` target must be `fwd_diff(f)`, `bwd_diff(f)` or `__apply(f)`
        "#]],
    );
}

/// slangc (`-target cuda`): E31214 on line 4 only (`no_diff`, integer and
/// tensor-view parameters are fine, and so is a kernel that is not
/// differentiable).
#[test]
fn differentiable_cuda_kernel_params() {
    check_diags(
        r#"
[CudaKernel]
[Differentiable]
void k1(float x, TensorView<float> t1)
{
}
[CudaKernel]
[Differentiable]
void k2(no_diff float x, TensorView<float> t1, DiffTensorView t2, int n)
{
}
[CudaKernel]
void k3(float x)
{
}
"#,
        expect![[r#"
            /main.slang:4:15: error[differentiable-kernel-param]: a differentiable `[CudaKernel]` cannot have differentiable parameters: pass derivatives through a `DiffTensorView`, or mark the parameter `no_diff`
        "#]],
    );
}

/// slangc: E30047 on lines 9, 11 and 13: a `let` or `const` local is not an
/// l-value, for `bwd_diff`'s `inout` pairs as for any `out` parameter; the
/// `var` is fine.
#[test]
fn immutable_locals_are_not_lvalues() {
    check_diags(
        r#"
[Differentiable]
float square(float x, float y) { return x * x + y * y; }
void f(out float a) { a = 1; }
void main()
{
    let x = diffPair(3.0, 1.0);
    var y = diffPair(4.0, 1.0);
    bwd_diff(square)(x, y, 1.0);
    let z = 1.0;
    f(z);
    const float w = 1.0;
    f(w);
}
"#,
        expect![[r#"
            /main.slang:9:22: error[not-an-lvalue]: an `out` or `inout` argument must be a variable
            /main.slang:11:7: error[not-an-lvalue]: an `out` or `inout` argument must be a variable
            /main.slang:13:7: error[not-an-lvalue]: an `out` or `inout` argument must be a variable
        "#]],
    );
}
