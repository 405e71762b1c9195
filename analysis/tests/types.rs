//! Inferred types (at a `$0` cursor) and the diagnostics of inference.

mod common;

use common::{fixture, render_all_diagnostics, render_diagnostics};
use expect_test::{expect, Expect};
use slang_analysis::infer::type_of_node;

fn check_type(text: &str, expect: Expect) {
    expect.assert_eq(&type_at_cursor(text));
}

/// The type of the largest expression starting at the `$0` cursor.
fn type_at_cursor(text: &str) -> String {
    let fx = fixture(text);
    let (file, offset) = fx.cursor.expect("fixture needs $0");
    let root = slang_analysis::parse(&fx.db, file).syntax_node();
    // The largest expression starting at the cursor: `$0a.b(c)` is the call.
    let token = root.token_at_offset(offset.into()).right_biased().unwrap();
    let node = token
        .parent_ancestors()
        .take_while(|n| n.text_range().start() == token.text_range().start())
        .filter(|n| slang_syntax::ast::Expr::can_cast(n.kind()))
        .last()
        .expect("no expression at cursor");
    type_of_node(&fx.db, file, &node).map(|t| t.to_string()).unwrap_or_else(|| "<none>".into())
}

use slang_syntax::ast::AstNode;

fn check_diags(text: &str, expect: Expect) {
    expect.assert_eq(&render_diagnostics(&fixture(text)));
}

#[test]
fn literals_and_locals() {
    check_type("void f() { let x = 1.0; $0x; }", expect!["float"]);
    check_type("void f() { $01u; }", expect!["uint"]);
    check_type("void f() { $02.0h; }", expect!["half"]);
    check_type("void f() { $0true; }", expect!["bool"]);
    check_type("void f() { int3 v; $0v; }", expect!["int3"]);
    check_type("void f() { float a[4]; $0a; }", expect!["float[4]"]);
}

#[test]
fn swizzles_and_vectors() {
    check_type("void f(float4 v) { $0v.xyz; }", expect!["float3"]);
    check_type("void f(float4 v) { $0v.r; }", expect!["float"]);
    check_type("void f(float3 v) { $0v * 2; }", expect!["float3"]);
    check_type("void f(int3 v) { $0v + 1.5; }", expect!["float3"]);
    check_type("void f(float3 v) { $0v < 1.0; }", expect!["bool3"]);
    check_type("void f(float4x4 m) { $0m[1]; }", expect!["float4"]);
    check_type("void f() { $0float3(1, 2, 3); }", expect!["float3"]);
    check_type("void f() { $0vector<half, 2>(1, 2); }", expect!["half2"]);
}

#[test]
fn structs_fields_methods_and_generics() {
    let s = "struct Light { float3 dir; float intensity; float3 scaled() { return dir * intensity; } }\n";
    check_type(&format!("{s}void f(Light l) {{ $0l.dir; }}"), expect!["float3"]);
    check_type(&format!("{s}void f(Light l) {{ $0l.scaled(); }}"), expect!["float3"]);
    check_type(&format!("{s}void f(Light l) {{ $0l.dir.x; }}"), expect!["float"]);
    check_type("struct Box<T> { T value; }\nvoid f(Box<int2> b) { $0b.value; }", expect!["int2"]);
    check_type("T id<T>(T x) { return x; }\nvoid f() { $0id(3.0); }", expect!["float"]);
}

#[test]
fn calls_of_user_functions() {
    check_type("float3 g(float x) { return x; }\nvoid f() { $0g(1.0); }", expect!["float3"]);
    check_type("namespace ns { int k() { return 1; } }\nvoid f() { $0ns::k(); }", expect!["int"]);
    check_type("struct S { static float make() { return 1.0; } }\nvoid f() { $0S.make(); }", expect!["float"]);
}

#[test]
fn member_errors_only_where_members_are_known() {
    check_diags(
        r#"
struct Plain { float a; }
interface IThing { float b(); }
struct WithIface : IThing { float a; float b() { return a; } }
void f(Plain p, WithIface w, float3 v)
{
    float x = p.a + p.missing;
    float y = w.fromAnExtensionMaybe;
    float z = v.xw + v.z + v.rx;
}
"#,
        expect![[r#"
            /main.slang:7:23: error[no-such-member]: no member named `missing` in `Plain`
            /main.slang:9:17: error[invalid-swizzle]: `xw` is not a valid swizzle of `float3`
            /main.slang:9:30: error[invalid-swizzle]: `rx` is not a valid swizzle of `float3`
        "#]],
    );
}

#[test]
fn extensions_make_members_unknown() {
    check_diags(
        r#"
struct P { float a; }
extension P { float twice() { return a * 2.0; } }
void f(P p) { float x = p.twice() + p.other; }
"#,
        expect![[""]],
    );
}

#[test]
fn argument_counts_and_immutability() {
    check_diags(
        r#"
float g(float a, float b = 1.0) { return a + b; }
void f()
{
    g(1.0);
    g(1.0, 2.0);
    g();
    g(1.0, 2.0, 3.0);
    let k = 1;
    k = 2;
    var m = 1;
    m = 2;
}
"#,
        expect![[r#"
            /main.slang:7:5: error[argument-count]: `g` takes 2 arguments but 0 were given
            /main.slang:8:5: error[argument-count]: `g` takes 2 arguments but 3 were given
            /main.slang:10:5: error[assign-to-immutable]: cannot assign to `k`: it is declared with `let` or `const`
        "#]],
    );
}

/// The reference compiler rejects each of these (checked with slangc
/// 2026.14.1); the accepted lines at the end must stay silent.
#[test]
fn type_mismatches_the_reference_compiler_rejects() {
    check_diags(
        r#"
struct S { float a; }
struct T { float a; }
float g(S s) { return s.a; }
void f(S s, float3 v3, float4x4 m)
{
    S bad1 = 0;
    float bad2 = s;
    float3 bad3 = float2(1, 2);
    float2 bad4 = float3(1, 2, 3);
    float bad5 = float3(1, 2, 3);
    T bad6 = s;
    float4 bad7 = m;
    g(1.0);
    v3.xy = float3(1, 2, 3);
    float4 bad8 = v3 * float4(1, 2, 3, 4);
    // Accepted: splats, element conversions, same sizes.
    float3 ok1 = 1.0;
    float3 ok2 = int3(1, 2, 3);
    float2x2 ok3 = 1.0;
    int ok4 = 1.5;
    float3 ok5 = v3 * 2;
}
"#,
        expect![[r#"
            /main.slang:7:14: error[type-mismatch]: mismatched types: expected `S`, found `int`
            /main.slang:8:18: error[type-mismatch]: mismatched types: expected `float`, found `S`
            /main.slang:9:19: error[type-mismatch]: mismatched types: expected `float3`, found `float2`
            /main.slang:10:19: error[type-mismatch]: mismatched types: expected `float2`, found `float3`
            /main.slang:11:18: error[type-mismatch]: mismatched types: expected `float`, found `float3`
            /main.slang:12:14: error[type-mismatch]: mismatched types: expected `T`, found `S`
            /main.slang:13:19: error[type-mismatch]: mismatched types: expected `float4`, found `float4x4`
            /main.slang:14:7: error[type-mismatch]: mismatched types: expected `S`, found `float`
            /main.slang:15:13: error[type-mismatch]: mismatched types: expected `float2`, found `float3`
            /main.slang:16:19: error[no-matching-operator]: no `*` for operands of type `float3` and `float4`
        "#]],
    );
}

/// `ConstantBuffer<T>` and `ParameterBlock<T>` have `T`'s members (the
/// reference compiler rejects the two mismatches the same way).
#[test]
fn members_through_buffer_wrappers() {
    check_diags(
        r#"
struct P { float s; RWStructuredBuffer<float> o; }
ParameterBlock<P> pb;
ConstantBuffer<P> cb;
void f()
{
    float bad1 = pb.o;
    int2 bad2 = cb.s.xx.xxx;
    float ok1 = pb.o[0] + pb.s + cb.s;
    pb.o[1] = ok1;
}
"#,
        expect![[r#"
            /main.slang:7:18: error[type-mismatch]: mismatched types: expected `float`, found `RWStructuredBuffer<float>`
            /main.slang:8:17: error[type-mismatch]: mismatched types: expected `int2`, found `float3`
        "#]],
    );
}

#[test]
fn statements_the_reference_compiler_rejects() {
    check_diags(
        r#"
float f()
{
    return;
}
void g()
{
    return 1.0;
}
void h(out float x) { x = 1.0; }
void k()
{
    break;
    int a = 1;
    int a = 2;
    h(1.0);
    float y;
    h(y);
    for (int i = 0; i < 2; i++) { if (i == 1) break; continue; }
    switch (a) { case 0: break; default: break; }
}
"#,
        expect![[r#"
            /main.slang:4:5: error[return-missing-value]: `return` needs a value of type `float`
            /main.slang:8:12: error[type-mismatch]: mismatched types: expected `void`, found `float`
            /main.slang:13:5: error[outside-loop]: `break` outside of a loop or `switch`
            /main.slang:14:5: warning[unreachable-code]: this code is never reached
            /main.slang:15:5: error[redefinition]: `a` is already declared in this scope
            /main.slang:16:7: error[not-an-lvalue]: an `out` or `inout` argument must be a variable
        "#]],
    );
}

#[test]
fn overloads_pick_the_return_type_all_matching_candidates_agree_on() {
    let s = "float3 pick(float3 x) { return x; }\nfloat pick(float x) { return x; }\n";
    check_type(&format!("{s}void f() {{ $0pick(1.0); }}"), expect!["float"]);
    check_type(&format!("{s}void f(float3 v) {{ $0pick(v); }}"), expect!["float3"]);
    check_type("void f(float4 v, float4x4 m) { $0mul(v, m); }", expect!["float4"]);
    check_type("void f(float3 v) { $0dot(v, v); }", expect!["float"]);
    check_type("void f(float x, float y) { $0mul(x, y); }", expect!["float"]);
    check_type("void f(float3 v, float y) { $0mul(v, y); }", expect!["float3"]);
    check_type("void f(float3 v, float y) { $0mul(y, v); }", expect!["float3"]);
    check_type("void f(float2x3 m, float y) { $0mul(y, m); }", expect!["float2x3"]);
    check_type("void f(float3 v) { $0dot(v, 1.0); }", expect!["float"]);
    check_type("void f(float3 v) { $0sin(v); }", expect!["float3"]);
    check_type("void f(float3 v) { $0lerp(v, v, 0.5); }", expect!["float3"]);
    check_type("struct R { int a; }\nvoid f(ByteAddressBuffer b) { $0b.Load<R>(0); }", expect!["R"]);
}

/// A literal index past a fixed size: an error at the index for arrays
/// (slangc's E30029, which it finds when generating code); a warning for
/// vectors and matrix rows, which slangc accepts (`-no-codegen` and
/// `-target spirv` alike), where our code generation had no located
/// error; negative ones too (naga's validation error had
/// no source line); indices within bounds, and ones that are not
/// literals, are not. `float b[4][2]` is four arrays of two (C-style
/// suffixes bind right to left): `b[3][1]` is in bounds, `b[1][2]` not.
#[test]
fn literal_indices_out_of_bounds() {
    check_diags(
        r#"
void k(int i)
{
    float a[2] = {1.0, 2.0};
    float3 v = float3(1, 2, 3);
    float2x3 m = float2x3(1, 2, 3, 4, 5, 6);
    float s = a[1] + a[2] + a[i] + v[2] + v[3] + m[1].x + m[2].x + a[-1];
    float b[4][2];
    float t = b[3][1] + b[1][2] + s;
    s = t;
}
"#,
        expect![[r#"
            /main.slang:7:24: error[index-out-of-bounds]: index 2 is out of bounds: the value has 2 elements
            /main.slang:7:45: warning[index-out-of-bounds]: index 3 is out of bounds: the value has 3 elements
            /main.slang:7:61: warning[index-out-of-bounds]: index 2 is out of bounds: the value has 2 elements
            /main.slang:7:70: error[index-out-of-bounds]: index -1 is out of bounds: the value has 2 elements
            /main.slang:9:30: error[index-out-of-bounds]: index 2 is out of bounds: the value has 2 elements
        "#]],
    );
}

/// Each of these is an error for the reference compiler at the same line
/// (slangc 2025: E30019 x2, E30013 x2, E30016, E30523 x2).
#[test]
fn conditions_subscripts_calls_and_initializer_lists() {
    check_diags(
        r#"
struct S { int a; }
void k(S s, float x, float3 v)
{
    if (s) {}
    while (v) {}
    float y = x[0];
    float z = s[0];
    float w = x(1);
    int a[2] = {1, 2, 3};
    float2 q = {1.0, 2.0, 3.0};
    int ok[3] = {1, 2, 3};
    if (x) {}
}
"#,
        expect![[r#"
            /main.slang:5:9: error[type-mismatch]: mismatched types: expected `bool`, found `S`
            /main.slang:6:12: error[type-mismatch]: mismatched types: expected `bool`, found `float3`
            /main.slang:7:15: error[no-subscript]: a value of type `float` cannot be subscripted
            /main.slang:8:15: error[no-subscript]: a value of type `S` cannot be subscripted
            /main.slang:9:15: error[not-callable]: a value of type `float` cannot be called
            /main.slang:10:16: error[too-many-initializers]: too many initializers: expected at most 2, found 3
            /main.slang:11:16: error[too-many-initializers]: too many initializers: expected at most 2, found 3
        "#]],
    );
}

/// Conformances the reference compiler accepts (checked with slangc:
/// convertible parameter types, `This`, base structs, default bodies,
/// nested associated types, generic interfaces, extensions) give nothing;
/// the three at the end are its E38100 (missing, including a generic
/// parameter named like an associated type) and E38105 (parameter count;
/// an instance method for a static requirement, while a static method may
/// satisfy an instance one).
#[test]
fn interface_conformance() {
    check_diags(
        r#"
interface IA { property float3 radiance { get; } float f(int x); This make(); static This zero(); }
struct A : IA { float3 radiance; float f(int x) { return 1; } A make() { return this; } static A zero() { A a; a.radiance = 0; return a; } }
interface IB { float g(float x); int h(); }
struct B : IB { float g(int x) { return 1; } float h() { return 1; } }
interface ID { float k(); }
struct Base { float k() { return 1; } }
struct D : Base, ID { }
interface IE { float def() { return 1.0; } }
struct E : IE {}
interface IF { associatedtype T : IDifferentiable; T get(); __init(int x); }
struct F : IF { struct T : IDifferentiable { float v; }; T get() { T t; t.v = 1; return t; } __init(int x) {} }
interface IG<X> { X get(X x); }
struct G : IG<float> { float get(float x) { return x; } }
interface IH { void m<U : IA>(U u); [mutating] void set(float v); }
struct H : IH { float v; void m<U : IA>(U u) {} [mutating] void set(float x) { v = x; } }
struct J { float q; }
extension J : ID { float k() { return q; } }
interface IK { float k2(); }
extension J : IK {}
extension J { float k2() { return 2; } }
struct L<T> : IF { T get() { return 1; } __init(int x) {} }
struct M : IB { static float g(float x) { return x; } int h(int y) { return y; } }
interface IN { static float n(); }
struct N : IN { float n() { return 1; } }
"#,
        expect![[r#"
            /main.slang:22:15: error[missing-requirement]: `L<T>` does not provide the associated type `T` required by interface `IF`
            /main.slang:22:37: error[type-mismatch]: mismatched types: expected `T`, found `int`
            /main.slang:23:59: error[requirement-mismatch]: `M.h` does not match the requirement of interface `IB`: it takes 1 parameter, the requirement 0
            /main.slang:25:23: error[requirement-mismatch]: `N.n` does not match the requirement of interface `IN`: the requirement is `static`, this method is not
        "#]],
    );
}

/// The last eight uses are errors for slangc (E30027 each, at the same
/// columns); the uses above them are fine.
#[test]
fn unknown_members_of_builtins_enums_namespaces_and_statics() {
    check_diags(
        r#"
namespace ColorMath { float luminance(float3 c) { return dot(c, float3(0.2126, 0.7152, 0.0722)); } }
enum class BlendMode : uint { Opaque, Additive }
struct RenderConfig { static const uint kMaxLights = 64; }
void k(StructuredBuffer<float4> b, Texture2D<float4> t, SamplerState s, float3x3 m, float x, float4 v)
{
    uint n, stride;
    b.GetDimensions(n, stride);
    float4 c = t.SampleLevel(s, float2(0.5), 0);
    float l = ColorMath.luminance(c.rgb);
    BlendMode mode = BlendMode.Additive;
    uint lights = RenderConfig.kMaxLights;
    uint len = b.Length;
    float4 d = t.SampleLevle(s, float2(0.5), 0);
    float3x3 mt = m.transpose();
    float y = x.clamp(0, 1);
    float2 uv = v.st;
    float z = ColorMath::linearToSRGB(x);
    BlendMode e = BlendMode.Additiv;
    uint q = RenderConfig.kMaxLightsPerTile;
}
[numthreads(1,1,1)] void main() {}
"#,
        expect![[r#"
            /main.slang:13:18: error[no-such-member]: no member named `Length` in `StructuredBuffer<float4>`
            /main.slang:14:18: error[no-such-member]: no member named `SampleLevle` in `Texture2D<float4>`
            /main.slang:15:21: error[no-such-member]: no member named `transpose` in `float3x3`
            /main.slang:16:17: error[no-such-member]: no member named `clamp` in `float`
            /main.slang:17:19: error[no-such-member]: no member named `st` in `float4`
            /main.slang:18:26: error[no-such-member]: no member named `linearToSRGB` in `namespace ColorMath`
            /main.slang:19:29: error[no-such-member]: no member named `Additiv` in `BlendMode`
            /main.slang:20:27: error[no-such-member]: no member named `kMaxLightsPerTile` in `RenderConfig`
        "#]],
    );
}

/// slangc: E30019 on `E e2 = u`, `Acc<int> b = a`, `float4 c = t`; E39999
/// "no overload for '+'" and "for '=='" on the struct operands. An enum
/// converts to `int` implicitly; a user `operator*` is used.
#[test]
fn enums_generic_instances_resources_and_struct_operators() {
    check_diags(
        r#"
enum E { A, B }
enum class F { X, Y }
struct Acc<T> { T v; }
struct S { float v; }
S operator*(S a, float b) { S r; r.v = a.v * b; return r; }
void k(Texture2D<float4> t, uint u, S s)
{
    int i = E.A;
    int j = F.X;
    E e2 = u;
    Acc<float> a;
    Acc<int> b = a;
    float4 c = t;
    E e3 = E(1);
    S m = s * 2.0;
    S n = s + s;
    bool q = s == s;
}
"#,
        expect![[r#"
            /main.slang:11:12: error[type-mismatch]: mismatched types: expected `E`, found `uint`
            /main.slang:13:18: error[type-mismatch]: mismatched types: expected `Acc<int>`, found `Acc<float>`
            /main.slang:14:16: error[type-mismatch]: mismatched types: expected `float4`, found `Texture2D<float4>`
            /main.slang:17:11: error[no-matching-operator]: no `+` for operands of type `S` and `S`
            /main.slang:18:14: error[no-matching-operator]: no `==` for operands of type `S` and `S`
        "#]],
    );
    let s = "struct S { float v; }\nS operator*(S a, float b) { return a; }\n";
    check_type(&format!("{s}void f(S s) {{ $0s * 2.0; }}"), expect!["S"]);
}

/// slangc: E30050 at lines 7 and 15, E30100 at lines 9 and 18 (same
/// columns for the latter).
#[test]
fn mutating_calls_and_instance_members_without_an_instance() {
    check_diags(
        r#"
struct Counter
{
    uint n;
    [mutating] void increment(uint k) { n += k; }
    uint get() { return n; }
    void bad() { increment(1); }
    [mutating] void good() { increment(1); }
    static uint make() { return n; }
    static uint ok() { return 1; }
}
void k()
{
    let c = Counter(0);
    c.increment(1);
    var d = Counter(0);
    d.increment(1);
    uint x = Counter.get();
    uint y = Counter.ok();
}
"#,
        expect![[r#"
            /main.slang:7:18: error[mutating-on-immutable]: `increment` is `[mutating]` and cannot be called here: `this` cannot change in a method without `[mutating]`
            /main.slang:9:33: error[needs-instance]: `n` is an instance member of `Counter`; a `static` method has no `this` to use it on
            /main.slang:15:5: error[mutating-on-immutable]: `increment` is `[mutating]` and cannot be called here: `c` is immutable
            /main.slang:18:22: error[needs-instance]: `get` is an instance member of `Counter` and needs a value of that type, not the type
        "#]],
    );
}

/// slangc: E30027 on lines 12-13, E38029 (or, for `lit(a, 0)`, another
/// error) on lines 18-21 of this fixture; the other uses conform, through
/// inheritance, `where` clauses and an extension.
#[test]
fn generic_constraints_and_members_of_type_parameters() {
    check_diags(
        r#"
interface ILight { float3 incident(float3 p); }
interface IArea : ILight { float area(); }
struct PointLight : ILight { float3 pos; float3 incident(float3 p) { return pos - p; } }
struct Quad : IArea { float3 incident(float3 p) { return p; } float area() { return 1; } }
struct Lone { float3 c; }
struct Late { float3 c; }
extension Late : ILight { float3 incident(float3 p) { return c; } }
float3 shade<L : ILight>(L light, float3 p) { return light.incident(p); }
float lit<L>(L light, float3 p) where L : IArea { return light.area() + light.incident(p).x; }
T twice<T : IFloat>(T a) { return a + a; }
float mass<T>(T t) { return t.mass; }
float bias<L : ILight>(L l) { return l.shadowBias; }
void k(PointLight a, Quad q, Lone b, Late c)
{
    float3 x = shade(a, 0) + shade(q, 0) + shade(c, 0);
    float y = lit(q, 0) + twice(1.0);
    float3 z = shade(b, 0);
    float w = lit(a, 0);
    Lone u = twice(b);
    float3 v = shade<Lone>(b, 0);
}
"#,
        expect![[r#"
            /main.slang:12:31: error[no-such-member]: no member named `mass` in `T`
            /main.slang:13:40: error[no-such-member]: no member named `shadowBias` in `L`
            /main.slang:18:16: error[not-conforming]: `Lone` does not conform to `ILight`, which the generic parameter requires
            /main.slang:19:15: error[not-conforming]: `PointLight` does not conform to `IArea`, which the generic parameter requires
            /main.slang:20:14: error[not-conforming]: `Lone` does not conform to `IFloat`, which the generic parameter requires
            /main.slang:21:16: error[not-conforming]: `Lone` does not conform to `ILight`, which the generic parameter requires
        "#]],
    );
}

/// An extension of an alias adds its interface to the type the alias
/// names, beside a generic extension adding members only. slangc: E38029
/// for `measure(p)` only.
#[test]
fn extension_of_an_alias_and_conformance() {
    check_diags(
        r#"
interface ILen { float len(); }
struct myvector<let N : int> { float v; }
extension<let N : int> myvector<N> { float twice() { return v * 2.0; } }
typedef myvector<3> myfloat3;
extension myfloat3 : ILen { float len() { return v; } }
struct Plain { float v; }
float measure<T : ILen>(T t) { return t.len(); }
float f(myfloat3 a, Plain p) { return measure(a) + measure(p); }
"#,
        expect![[r#"
            /main.slang:9:52: error[not-conforming]: `Plain` does not conform to `ILen`, which the generic parameter requires
        "#]],
    );
}

/// A blanket extension's methods are members of an interface value and
/// of a type parameter constrained to its interface (slangc accepts
/// both).
#[test]
fn blanket_extension_methods() {
    let s = r#"
interface IFoo { float read(); }
extension<T : IFoo> T { int plusOne(int i) { return i + 1; } }
"#;
    check_type(&format!("{s}void f(IFoo foo) {{ $0foo.plusOne(1); }}"), expect!["int"]);
    check_type(&format!("{s}void f<U : IFoo>(U u) {{ $0u.plusOne(1); }}"), expect!["int"]);
}

/// A blanket extension's method overloads one of the interface or type
/// of the same name (SlangPy's `extension<T, X : ITensor<T, 2>> X { T
/// load(int, int) }` beside `ITensor`'s `load(int[D])`), on interface
/// values, type parameters and conforming structs; slangc accepts all
/// three calls, and rejects the three-argument one (E39999, no overload).
#[test]
fn blanket_extension_overloads_own_methods() {
    check_diags(
        r#"
interface ITen<T, let D : int> { T load(int idx[D]); }
extension<T, X : ITen<T, 2>> X
{
    T load(int i0, int i1) { int a[2] = { i0, i1 }; return this.load(a); }
}
struct Ten<T, let D : int> : ITen<T, D> { T v; T load(int idx[D]) { return v; } }
float f(ITen<float, 2> a, Ten<float, 2> b) { return a.load(1, 2) + b.load(3, 4); }
float g<U : ITen<float, 2>>(U u) { return u.load(5, 6) + u.load(1, 2, 3); }
"#,
        expect![[r#"
            /main.slang:9:58: error[argument-count]: `load` takes 1 or 2 arguments but 3 were given
        "#]],
    );
}

/// Blanket extensions (`extension<T : IFoo> T`): one that adds members
/// only decides no conformance; one that adds an interface makes every
/// type conforming to its constraint conform to it. slangc: E38029 for
/// the calls on lines 17 and 18 only (`Other` conforms to neither;
/// `FooImpl` to both).
#[test]
fn blanket_extensions_and_conformance() {
    check_diags(
        r#"
interface IFoo { float read(); }
interface IBar { float twice(); }
extension<T : IFoo> T { float plusOne() { return this.read() + 1.0; } }
extension<T : IFoo> T : IBar { float twice() { return this.read() * 2.0; } }
struct FooImpl : IFoo { float read() { return 1.0; } }
struct Other { float v; }
float useFoo<T : IFoo>(T t) { return t.read(); }
float useBar<T : IBar>(T t) { return t.twice(); }
RWStructuredBuffer<float> outputBuffer;
[numthreads(1,1,1)]
void main()
{
    FooImpl f;
    Other o;
    outputBuffer[0] = useFoo(f) + useBar(f) + f.plusOne();
    outputBuffer[1] = useFoo(o);
    outputBuffer[2] = useBar(o);
}
"#,
        expect![[r#"
            /main.slang:17:23: error[not-conforming]: `Other` does not conform to `IFoo`, which the generic parameter requires
            /main.slang:18:23: error[not-conforming]: `Other` does not conform to `IBar`, which the generic parameter requires
        "#]],
    );
}

/// Locals never used are warned about, once, at their name; `_` names,
/// uses inside `sizeof`/`countof`, and bodies with macro calls are not.
#[test]
fn unused_locals_are_warned_about() {
    let fx = fixture(
        r#"
#define LOG(x) printf("%f", x)
float f(float p)
{
    float unused = 1.0;
    float _ignored = 2.0;
    float arr[4];
    int n = countof(arr);
    for (int i = 0; i < 2; i++) { float inner = 0; }
    if (p > 0) { let t = p; return t + n; }
    return p;
}
void g() { float logged = 1.0; LOG(logged); }
"#,
    );
    expect![[r#"
        /main.slang:5:11: warning[unused-variable]: `unused` is never used (remove it, or name it `_unused` to keep it)
        /main.slang:9:41: warning[unused-variable]: `inner` is never used (remove it, or name it `_inner` to keep it)
    "#]]
    .assert_eq(&render_all_diagnostics(&fx));
}

#[test]
fn code_after_return_break_or_continue_is_unreachable() {
    let fx = fixture(
        r#"
float f(float p)
{
    for (int i = 0; i < 4; i++)
    {
        if (p > 1) { continue; p = 0; }
        break;
        p += 1;
    }
    switch (int(p)) { case 0: return 1; case 1: p = 2; break; default: break; }
    return p;
    p = 3;
}
"#,
    );
    expect![[r#"
        /main.slang:6:32: warning[unreachable-code]: this code is never reached
        /main.slang:8:9: warning[unreachable-code]: this code is never reached
        /main.slang:12:5: warning[unreachable-code]: this code is never reached
    "#]]
    .assert_eq(&render_all_diagnostics(&fx));
}

/// slangc: "ambiguous call to 'scaleBias' with arguments of type (int,
/// int)" for `b`, and no overload for `(S, S)`; `a` and `c` pick one.
#[test]
fn ambiguous_calls_and_candidate_lists() {
    check_diags(
        r#"
float scaleBias(int value, float scale) { return float(value) * scale; }
float scaleBias(float value, int bias) { return value + float(bias); }
struct S { float v; }
float use(int i, float f, S s)
{
    float a = scaleBias(i, f);
    float b = scaleBias(i, i);
    float c = scaleBias(f, i);
    return scaleBias(s, s);
}
"#,
        expect![[r#"
            /main.slang:8:15: error[ambiguous-call]: ambiguous call to `scaleBias` with arguments of type (int, int): no overload fits better than the others; add a cast to pick one; candidates: scaleBias(int value, float scale), scaleBias(float value, int bias)
            /main.slang:10:12: error[no-matching-overload]: no overload of `scaleBias` takes arguments of type (S, S); candidates: scaleBias(int value, float scale), scaleBias(float value, int bias)
        "#]],
    );
}

#[test]
fn is_as_and_if_let() {
    let s = "interface I { float f(); }\nstruct A : I { float v; float f() { return v; } }\n";
    check_type(&format!("{s}void g(I i) {{ let b = $0i is A; }}"), expect!["bool"]);
    check_type(&format!("{s}void g(I i) {{ let o = $0i as A; }}"), expect!["Optional<A>"]);
    check_type(&format!("{s}void g(I i) {{ if (let a = i as A) {{ let x = $0a; }} }}"), expect!["A"]);
}

/// slangc: "too many arguments to call" on line 8, E30019 on line 10 of
/// this fixture; variadic generics take any number.
#[test]
fn generic_argument_counts_and_array_sizes() {
    check_diags(
        r#"
T pick<T>(T a, T b) { return a; }
float sum<each T>(expand each T v) { return 0; }
float[4] four() { float r[4] = { 1, 2, 3, 4 }; return r; }
void k()
{
    float a = pick<float>(1.0, 2.0);
    float b = pick<float, float>(1.0, 2.0);
    float s = sum<int, float>(1, 2.0);
    float c[3] = four();
    float d[4] = four();
}
"#,
        expect![[r#"
            /main.slang:8:15: error[too-many-generic-arguments]: too many generic arguments: 2 given, but it takes at most 1
            /main.slang:10:18: error[type-mismatch]: mismatched types: expected `float[3]`, found `float[4]`
        "#]],
    );
}

/// slangc: E30408 at 3:22, 3:35, 4:1 and 11:5, E39999 at 9:5 of this
/// fixture (same positions); `Texture2D` has a default argument.
#[test]
fn generic_types_need_their_arguments() {
    check_diags(
        r#"
struct LightList { uint count; }
struct Box<T> { T v; Box make() { Box b; return b; } }
RWStructuredBuffer gArgs;
RWStructuredBuffer<uint> gOk;
Texture2D gTex;
float f(Box<float> b)
{
    LightList<float> l;
    Box<int> ok;
    Box bare;
    return b.v;
}
"#,
        expect![[r#"
            /main.slang:3:22: error[generic-arguments]: `Box` is generic and needs 1 generic argument: write `Box<…>`
            /main.slang:3:35: error[generic-arguments]: `Box` is generic and needs 1 generic argument: write `Box<…>`
            /main.slang:4:1: error[generic-arguments]: `RWStructuredBuffer` is generic and needs 1 generic argument: write `RWStructuredBuffer<…>`
            /main.slang:9:5: error[generic-arguments]: `LightList` is not generic, but is given generic arguments
            /main.slang:11:5: error[generic-arguments]: `Box` is generic and needs 1 generic argument: write `Box<…>`
        "#]],
    );
}

/// Array lengths given by a named constant (slangc: E30523 on line 5).
#[test]
fn named_constant_array_lengths() {
    check_diags(
        r#"
static const int kN = 4;
void f()
{
    float a[kN] = { 1.0, 2.0, 3.0, 4.0, 5.0 };
    float b[kN] = { 1.0, 2.0 };
}
"#,
        expect![[r#"
            /main.slang:5:19: error[too-many-initializers]: too many initializers: expected at most 4, found 5
        "#]],
    );
    check_type("static const int kN = 4;\nvoid f() { float a[kN]; let x = $0a; }", expect!["float[4]"]);
}

/// slangc: the second `default` (E30602, at its label) and the first case
/// of a switch on a float (E39999 "not a compile-time constant").
#[test]
fn switch_labels() {
    check_diags(
        r#"
float f(uint view, float x)
{
    switch (view) { case 0: return 1.0; default: return 2.0; case 2: return 3.0; default: return 4.0; }
    switch (x) { case 0: return 0.1; default: return 0.2; }
}
"#,
        expect![[r#"
            /main.slang:4:82: error[duplicate-case]: this `switch` has more than one `default`
            /main.slang:5:23: error[non-integer-switch]: `switch` needs an integer or enum value, not `float`: convert it, e.g. `switch (int(x))`
        "#]],
    );
}

/// slangc rejects writing a `const` parameter (E30047 on line 4).
#[test]
fn const_parameters_are_immutable() {
    check_diags(
        r#"
float3 clampRadiance(const float3 radiance, float maxLuma)
{
    radiance *= maxLuma;
    maxLuma = 1.0;
    return radiance;
}
"#,
        expect![[r#"
            /main.slang:4:5: error[assign-to-immutable]: cannot assign to `radiance`: it is declared with `let` or `const`
        "#]],
    );
}

/// slangc: E30047 for the `half` passed to `out float` (line 8 of this
/// fixture); `uint` for `inout int` is let through.
#[test]
fn out_arguments_need_their_exact_type() {
    check_diags(
        r#"
void g(out float a, inout int b, out float3 c) { a = 1; b = 2; c = 0; }
void f()
{
    float x; int y; float3 z; uint w; half h;
    g(x, y, z);
    g(x, w, z);
    g(h, y, z);
}
"#,
        expect![[r#"
            /main.slang:8:7: error[out-argument-type]: an `out`/`inout` argument must have the parameter's exact type `float`, not `half` (a converted value would be a temporary)
        "#]],
    );
}

/// slangc: "expected an expression of type 'int', got 'typeof(float)'" for
/// a type given to a value parameter.
#[test]
fn value_generic_parameters_take_values() {
    check_diags(
        r#"
struct FixedVec<let N : int> { float data[N]; }
static const int kSize = 4;
float a(FixedVec<float> w) { return 0.0; }
float b(FixedVec<4> w) { return 0.0; }
float c(FixedVec<kSize> w) { return 0.0; }
"#,
        expect![[r#"
            /main.slang:4:9: error[generic-arguments]: `FixedVec` expects a value for its parameter `N`, not the type `float`
        "#]],
    );
}

/// slangc: errors on lines 10-12 of this fixture (a parameter, a local and a
/// constant-buffer field as array lengths); constants are fine.
#[test]
fn array_lengths_must_be_constant() {
    check_diags(
        r#"
cbuffer Info { int gRadius; }
static const int kTaps = 5;
float f(int n)
{
    const int k = 3;
    int m = 2;
    float a[kTaps];
    float b[k * 2];
    float c[n];
    float d[m + 1];
    float e[gRadius];
    return a[0] + b[0] + c[0] + d[0] + e[0];
}
"#,
        expect![[r#"
            /main.slang:10:13: error[non-constant-array-length]: an array length must be a compile-time constant, but `n` is only known at run time
            /main.slang:11:13: error[non-constant-array-length]: an array length must be a compile-time constant, but `m` is only known at run time
            /main.slang:12:13: error[non-constant-array-length]: an array length must be a compile-time constant, but `gRadius` is only known at run time
        "#]],
    );
}

/// A struct with a generic value parameter is a type like any other:
/// `diffPair` of one, its fields and its `Differential`.
#[test]
fn value_generic_structs() {
    let net = "struct Net<let N : int> : IDifferentiable { float w[N]; };\n";
    check_type(
        &format!("{net}void g() {{ Net<2> net; let dp = $0diffPair(net); }}"),
        expect!["DifferentialPair<Net<2>>"],
    );
    check_type(&format!("{net}void g() {{ Net<2> net; let dp = $0net.w; }}"), expect!["float[2]"]);
    check_type(
        &format!("{net}void g() {{ Net<3> net; let dp = diffPair(net); let w = $0dp.d.w; }}"),
        expect!["float[3]"],
    );
}

#[test]
fn tuples() {
    check_type("void f() { $0makeTuple(1, 2.0, true); }", expect!["Tuple<int, float, bool>"]);
    check_type("void f(Tuple<int, float> t) { $0t._1; }", expect!["float"]);
    check_type("void f(Tuple<int, float> t) { $0t._1_0_0; }", expect!["Tuple<float, int, int>"]);
    check_type("void f(Tuple<int, float> t) { $0concat(t, makeTuple(2.0h)); }", expect!["Tuple<int, float, half>"]);
    check_diags(
        "void f(Tuple<int, float> t) { t._2; }",
        expect![[r#"
        /main.slang:1:33: error[no-such-member]: no member named `_2` in `Tuple<int, float>`
    "#]],
    );
}

#[test]
fn is_and_as_test_interface_values() {
    let shapes = "interface IShape { float area(); }\nstruct Circle : IShape { float r; float area() { return r; } }\n";
    check_type(&format!("{shapes}void f(IShape s) {{ let x = $0s as Circle; }}"), expect!["Optional<Circle>"]);
    check_type(&format!("{shapes}void f(IShape s) {{ let x = $0s is Circle; }}"), expect!["bool"]);
    check_diags(&format!("{shapes}void f(IShape s) {{ bool b = s is Circle; }}"), expect![[""]]);
    // A concrete value is never of another concrete type (slangc: E30304).
    check_diags(
        &format!("{shapes}void f(Circle c, int i) {{ bool a = c is Circle; bool b = i is float; }}"),
        expect![[r#"
            /main.slang:3:58: error[unrelated-is-as]: a `int` is never a `float`: `is`/`as` test the type held by a value of an interface type
        "#]],
    );
}

#[test]
fn default_values_are_typed_without_the_parameters() {
    check_type("static const float K = 2.0;\nfloat f(float k = $0K * 2.0) { return k; }", expect!["float"]);
    check_diags(
        "float f(float x, float k = 2.0) { return k; }\nfloat g(float3 v = float2(1, 2)) { return v.x; }",
        expect![[r#"
            /main.slang:2:20: error[type-mismatch]: mismatched types: expected `float3`, found `float2`
        "#]],
    );
}

/// Math functions also have overloads for cooperative vectors
/// (`exp(CoopVec<T, N>)`): a scalar or vector argument picks the scalar
/// overload, with or without explicit generic arguments.
#[test]
fn coop_vector_overloads_do_not_take_scalars() {
    check_type("float f(float x) { return $0exp(x); }", expect!["float"]);
    check_type("float f(float x, float y) { return $0max<float>(x, y); }", expect!["float"]);
    check_type("float3 f(float3 x) { return $0log(x); }", expect!["float3"]);
    check_type("void f(CoopVec<float, 4> v) { $0exp(v); }", expect!["CoopVec<float, 4>"]);
    check_type("void f(CoopVec<float, 4> v) { $0sin(v); }", expect!["CoopVec<float, 4>"]);
    check_type("void f(CoopVec<half, 8> v) { $0atan(v); }", expect!["CoopVec<half, 8>"]);
}

/// Arithmetic of cooperative vectors is element-wise: of two of the same
/// type, or of one and a scalar (the reference declares
/// `operator*(CoopVec<T, N>, T)`); negation keeps the type.
#[test]
fn coop_vector_arithmetic() {
    check_type("void f(CoopVec<float, 4> v) { $0v + v; }", expect!["CoopVec<float, 4>"]);
    check_type("void f(CoopVec<float, 4> v) { $0v * 2.0; }", expect!["CoopVec<float, 4>"]);
    check_type("void f(CoopVec<float, 4> v) { $0-(v / v); }", expect!["CoopVec<float, 4>"]);
}

/// `fwd_diff(f<float>)` of a generic function: the generic arguments
/// written on the operand give the result type.
#[test]
fn derivative_of_an_explicit_generic_instance() {
    let g = "[Differentiable] T g<T : __BuiltinFloatingPointType>(T x) { return x; }\n";
    check_type(
        &format!("{g}void h() {{ $0fwd_diff(g<float>)(diffPair(1.0, 1.0)); }}"),
        expect!["DifferentialPair<float>"],
    );
}

/// A method calling a free function of its own name with other arguments
/// (Falcor's `ShadingData.computeRayOrigin`): both are candidates.
#[test]
fn a_method_may_call_a_free_function_of_its_name() {
    check_diags(
        "float3 offset(float3 p, float3 n) { return p + n; }\nstruct S {\n    float3 p; float3 n;\n    float3 offset(bool up = true) { return offset(p, up ? n : -n); }\n    float3 bad() { return offset(1, 2, 3); }\n};\n",
        expect![[r#"
            /main.slang:5:27: error[argument-count]: `offset` takes 1 argument but 3 were given
        "#]],
    );
}

/// GLSL blocks (checked with slangc 2026.14.1 `-allow-glsl`): an instance
/// name is a variable of the block's type; `buffer` blocks are writable,
/// `readonly` ones and `uniform` ones not; with a block in the file (GLSL
/// mode) plain globals are writable, `uniform` ones not; a method's own
/// field hides a constant-buffer field of the same name; a field reached
/// through a pointer is writable.
#[test]
fn glsl_blocks_and_writable_globals() {
    check_diags(
        r#"
buffer Out { int result; } outBuf;
readonly buffer In { int data; } inBuf;
buffer Mixed { readonly int fixed; int free; } mixed;
layout(std140) uniform Params { int scale; } params;
uniform Globals { int count; };
int scale;
uniform int u;
struct Counter
{
    int count;
    [mutating] void bump() { count = count + 1; }
}
struct Node { int value; [mutating] void bump() { value++; } }
uniform Node* node;
[numthreads(1, 1, 1)]
void main()
{
    outBuf.result = inBuf.data * params.scale + count;
    scale = 2;
    mixed.free = 1;
    node.value = 1;
    node->bump();
    inBuf.data = 1;
    mixed.fixed = 1;
    params.scale = 1;
    count = 1;
    u = 1;
}
"#,
        expect![[r#"
            /main.slang:24:5: error[not-assignable]: cannot assign: `inBuf` is `readonly`
            /main.slang:25:5: error[not-assignable]: cannot assign: `fixed` is a `readonly` field of block `Mixed`
            /main.slang:26:5: error[not-assignable]: cannot assign: `params` is a global shader parameter, which is read-only (declare it `static` for a per-thread global)
            /main.slang:27:5: error[not-assignable]: cannot assign: `count` is a field of a constant buffer (a read-only shader parameter)
            /main.slang:28:5: error[not-assignable]: cannot assign: `u` is a global shader parameter, which is read-only (declare it `static` for a per-thread global)
        "#]],
    );
}

/// GLSL's function library (GLSL 4.60 chapter 8, as the reference
/// compiler's GLSL module declares it): result types follow the spec —
/// `gvec4` is the sampler's texel vector, shadow lookups are `float`,
/// `textureSize` of a 2D sampler is `ivec2`, relational functions give a
/// `bvec` of the operands' width, `==` on vectors one `bool`. slangc 2026.14.1 (`-allow-glsl`) accepts
/// every expression here.
#[test]
fn glsl_functions() {
    let prelude = "#version 450\nuniform sampler2D s; uniform isampler2D is2; uniform sampler2DShadow sh;\n\
                   uniform samplerCubeArrayShadow sca; uniform usamplerBuffer ub; uniform sampler2DMS ms;\n";
    let cases = [
        ("mix(vec3(0), vec3(1), 0.5)", "float3"),
        ("mix(vec2(0), vec2(1), bvec2(true, false))", "float2"),
        ("fract(vec4(1.5))", "float4"),
        ("mod(vec3(3.0), 2.0)", "float3"),
        ("atan(1.0, 2.0)", "float"),
        ("texture(s, vec2(0.5))", "float4"),
        ("textureLod(s, vec2(0.5), 1.0)", "float4"),
        ("texelFetch(is2, ivec2(0), 0)", "int4"),
        ("texelFetch(ub, 3)", "uint4"),
        ("texelFetch(ms, ivec2(0), 1)", "float4"),
        ("textureSize(s, 0)", "int2"),
        ("texture(sh, vec3(0.5))", "float"),
        ("texture(sca, vec4(0.5), 0.25)", "float"),
        ("textureGather(sh, vec2(0.5), 0.25)", "float4"),
        ("textureProj(s, vec3(0.5))", "float4"),
        ("texture2D(s, vec2(0.5))", "float4"),
        ("lessThan(vec3(0), vec3(1))", "bool3"),
        ("findMSB(uvec2(1, 8))", "int2"),
        ("bitCount(7u)", "int"),
        ("outerProduct(vec3(1), vec2(1))", "float3x2"),
        ("floatBitsToUint(vec2(1.0))", "uint2"),
        // GLSL's `==` compares whole vectors (HLSL's is component-wise).
        ("vec3(1.0) == vec3(2.0)", "bool"),
        ("ivec2(1) != ivec2(2)", "bool"),
        ("lessThan(ivec2(1), ivec2(2))", "bool2"),
    ];
    for (expr, ty) in cases {
        assert_eq!(type_at_cursor(&format!("{prelude}void f() {{ $0{expr}; }}")), ty, "type of `{expr}`");
    }
    // Out-parameter forms and statement-like ray-tracing calls check clean;
    // a wrong arity is still an error.
    check_diags(
        r#"
#version 450
uniform sampler2D s;
void f()
{
    uvec2 msb, lsb;
    umulExtended(uvec2(1), uvec2(2), msb, lsb);
    uvec2 sum = uaddCarry(uvec2(1), uvec2(2), msb);
    ignoreIntersectionEXT;
    vec4 v = texture(s, vec2(0), 1.0, 2.0, 3.0);
}
"#,
        expect![[r#"
            /main.slang:10:14: error[argument-count]: `texture` takes 2 or 3 or 4 arguments but 5 were given
        "#]],
    );
}

/// Element-wise built-ins without generic parameters take the shape of
/// their arguments: HLSL's `asuint(float2)` is a `uint2`, `firstbithigh(int3)`
/// an `int3` (slangc 2026.14.1).
#[test]
fn elementwise_non_generic_builtins_keep_the_shape() {
    check_type("void f() { $0asuint(float2(1.0, 2.0)); }", expect!["uint2"]);
    check_type("void f() { $0firstbithigh(int3(1, 2, 3)); }", expect!["int3"]);
    check_type("void f() { $0asuint(1.0); }", expect!["uint"]);
}

/// `let f = __apply(foo);`: an `__apply(…)` used as a value, not called
/// (slangc with `-experimental-feature`: E30130 at 8:13). A discarded
/// `__apply(foo);` statement is accepted (see `accepted.rs`).
#[test]
fn apply_must_be_invoked() {
    check_diags(
        r#"
float foo(float x)
{
    return x;
}
[numthreads(1, 1, 1)]
void main()
{
    let f = __apply(foo);
}
"#,
        expect![[r#"
            /main.slang:9:13: error[apply-not-invoked]: `__apply(…)` must be called directly (`__apply(f)(args)`)
        "#]],
    );
}

/// A generic type parameter and another type do not convert either way
/// (slangc: E30019 at 2:21, 4:28 and 5:77; the fixture's first line is
/// empty, as in the file given to slangc); the same parameter, one that a
/// core interface constrains (`bool` converts from an `__EnumType`),
/// `where T == int`, an associated type for itself, a value parameter
/// read as `int`, arithmetic and core functions of `T` and a struct with an
/// `__implicit_conversion` initializer pass.
#[test]
fn generic_parameters_do_not_convert() {
    check_diags(
        r#"
T zero<T>() { T x = 0; return x; }
float fromEnum<T : __EnumType>(T e) { bool b = e; return b ? 1.0 : 0.0; }
U other<T, U>(T t) { U u = t; return u; }
struct Box<T> { T v; T get() { return v; } [mutating] void set(int i) { v = i; } }
T same<T>(T t) { T x = t; return x; }
T eq<T>() where T == int { T x = 0; return x; }
T.Differential diff<T : IDifferentiable>(T t) { T.Differential d = T.dzero(); return d; }
int count<let N : int>() { int n = N; return n; }
T f2<T : __BuiltinFloatingPointType>(T a) { T b = a * T(2.0); T c = max(a, b); T d = -a; T e = sqrt(a); return b + c + d + e; }
T f3<T : IFloat>(T a) { T b = a * a; T c = T(1.0) + a; return b + c; }
vector<T, 3> f4<T : __BuiltinFloatingPointType>(vector<T, 3> a) { vector<T, 3> b = a * T(2.0); T d = b.x; T e = dot(a, b); return b * d * e; }
struct Wrapped { int tag; __implicit_conversion(100) __init<U : IArithmetic>(U u) { tag = 1; } }
int wrap<T : IArithmetic>(T t) { Wrapped w = t; return w.tag; }
"#,
        expect![[r#"
            /main.slang:2:21: error[type-mismatch]: mismatched types: expected `T`, found `int`
            /main.slang:4:28: error[type-mismatch]: mismatched types: expected `U`, found `T`
            /main.slang:5:77: error[type-mismatch]: mismatched types: expected `T`, found `int`
        "#]],
    );
}

/// `S<A>.Differential` declared in an extension that applies to `S<A>`
/// (`extension<T : …> S<T> : IDifferentiable { typedef S<T> Differential; }`):
/// a pair's `.d` has it, and its methods can be called (slangc accepts
/// `dp.d.dot(…)`).
#[test]
fn differential_declared_in_a_generic_extension() {
    let s = r#"
struct MyVector<T : __BuiltinArithmeticType>
{
    T x;
    T y;
    T dot(MyVector<T> b) { return x * b.x + y * b.y; }
};
extension<T : __BuiltinFloatingPointType> MyVector<T> : IDifferentiable
    where T.Differential == T
{
    typedef MyVector<T> Differential;
}
"#;
    check_type(&format!("{s}void f(DifferentialPair<MyVector<float>> dp) {{ $0dp.d; }}"), expect!["MyVector<float>"]);
    check_type(&format!("{s}void f(DifferentialPair<MyVector<float>> dp) {{ $0dp.d.dot(dp.p); }}"), expect!["float"]);
}

/// Type aliases in a function body (`typedef`, `typealias`): visible in
/// their whole block, before their statement too, and in nested blocks
/// (slangc: `V a = 1.5;` before `typedef int V;` in the same block warns of
/// a float-to-int conversion; an alias of an alias means the one its own
/// block sees).
#[test]
fn local_type_aliases() {
    let s = "struct Box<T> { T value; }\ninterface ILayer { associatedtype Input; }\n";
    check_type("void f() { typedef float4 V; V v; $0v; }", expect!["float4"]);
    check_type("void f() { typedef float F[3]; F a; $0a; }", expect!["float[3]"]);
    check_type("void f() { V a; typedef int V; $0a; }", expect!["int"]);
    check_type("void f() { typedef float V; { V a; typedef int V; $0a; } }", expect!["int"]);
    check_type("void f() { typedef int T; { typedef T U; typedef half T; U u; $0u; } }", expect!["half"]);
    check_type("void f() { typedef int T; { typedef half T; } T t; $0t; }", expect!["int"]);
    check_type(&format!("{s}void f() {{ typealias B = Box<int2>; B b; $0b.value; }}"), expect!["int2"]);
    check_type(&format!("{s}void f() {{ typealias I = int2; Box<I> b; $0b.value; }}"), expect!["int2"]);
    check_type("void f() { typealias V = vector<half, 2>; $0V(1, 2); }", expect!["half2"]);
    check_type("void f() { typedef uint U; $0(U)2.5; }", expect!["uint"]);
    check_type("T id<T>(T x) { return x; }\nvoid f() { typedef float3 V; $0id<V>(V(1)); }", expect!["float3"]);
    check_type(
        &format!("{s}void f<L : ILayer>(L.Input x) {{ typealias In = L.Input; In y = x; $0y; }}"),
        expect!["L.Input"],
    );
    check_type(
        &format!(
            "{s}struct S {{ typealias Inner = Box<float>; }}\nvoid f() {{ typealias T = S; T.Inner b; $0b.value; }}"
        ),
        expect!["float"],
    );
}

/// Names of local aliases where none is visible: after their block
/// (slangc: "undefined identifier").
#[test]
fn local_type_alias_out_of_scope() {
    check_diags(
        r#"
RWStructuredBuffer<float> o;
[numthreads(1,1,1)]
void main()
{
    { typedef float W; W a = 1.0; o[0] = a; }
    W b = 2;
    o[1] = b;
}
"#,
        expect![[r#"
            /main.slang:7:5: error[unresolved-type]: cannot find type `W` in this scope
        "#]],
    );
}

/// Functions the reference compiler declares for scalars and vectors only
/// (`[__elementwise(vector)]` in the core module): a matrix argument
/// matches no overload (slangc: "no overload for 'copysign' applicable to
/// arguments of type (matrix<float,2,2>, …)"); `sin` has a matrix form.
#[test]
fn vector_only_elementwise_functions_reject_matrices() {
    check_diags(
        r#"
void f(float2x2 m, float2 v)
{
    float2 a = copysign(v, v);
    float2x2 b = copysign(m, m);
    float2x2 c = fmin(m, m);
    float2x2 d = sin(m);
}
"#,
        expect![[r#"
            /main.slang:5:18: error[no-matching-overload]: no overload of `copysign` takes arguments of type (float2x2, float2x2); candidates: copysign(T x, T y)
            /main.slang:6:18: error[no-matching-overload]: no overload of `fmin` takes arguments of type (float2x2, float2x2); candidates: fmin(T x, T y)
        "#]],
    );
}

/// A descriptor handle indexes as its resource (slangc accepts `h[1]` of
/// a `RWStructuredBuffer<float>.Handle` as a `float`).
#[test]
fn descriptor_handles_index_as_their_resource() {
    check_type("void f(RWStructuredBuffer<float>.Handle h) { $0h[1]; }", expect!["float"]);
    check_type("void f(StructuredBuffer<int2>.Handle h) { $0h[1]; }", expect!["int2"]);
}
