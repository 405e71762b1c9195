//! Programs the reference compiler accepts (each fixture checked with
//! `slangc -no-codegen -entry main -stage compute`, `-allow-glsl` for the
//! GLSL one): `check` reports no error on them.

mod common;

use common::{fixture, render_diagnostics};
use expect_test::{expect, Expect};

/// The errors of a fixture (warnings aside).
fn check_errors(text: &str, expect: Expect) {
    let all = render_diagnostics(&fixture(text));
    let errors: String = all.lines().filter(|l| l.contains(": error[")).map(|l| format!("{l}\n")).collect();
    expect.assert_eq(&errors);
}

/// `return this;`, `return S(…);` and a bare `return;` in `__init`.
#[test]
fn init_may_return_the_constructed_value() {
    check_errors(
        r#"
struct S
{
    float x;
    __init(float v)
    {
        if (v > 0)
        {
            x = v;
            return this;
        }
        x = -v;
        return;
    }
    __init(int i)
    {
        return S(float(i));
    }
}
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    S s = S(2);
    o[0] = s.x;
}
"#,
        expect![""],
    );
}

/// A function returning `Ref<T>` names a location: its call may be assigned.
#[test]
fn a_call_returning_ref_is_assignable() {
    check_errors(
        r#"
RWStructuredBuffer<uint> o;
Ref<uint> slot(int i)
{
    static groupshared uint cells[4];
    return cells[i];
}
[numthreads(1, 1, 1)]
void main()
{
    slot(1) = 3;
    o[0] = slot(1);
}
"#,
        expect![""],
    );
}

/// `vector<vector<float, 4>, 1>`: element `[0]` is a `float4` (not modelled: unknown, no false swizzle error).
#[test]
fn vectors_of_vectors_are_not_vectors_of_scalars() {
    check_errors(
        r#"
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    vector<vector<float, 4>, 1> v;
    v[0].wzyx = float4(4, 3, 2, 1);
    vector<vector<int, 2>, 2> w;
    w.x[0] = 1;
    o[0] = v[0].x + w.x[0];
}
"#,
        expect![""],
    );
}

/// `vector<T, N> == vector<T, N>` with a generic `N` is a vector of `bool` (subscriptable).
#[test]
fn comparing_vectors_of_generic_size() {
    check_errors(
        r#"
RWStructuredBuffer<float> o;
bool same<T : __BuiltinArithmeticType, let N : int>(vector<T, N> a, vector<T, N> b)
{
    return (a == b)[0];
}
[numthreads(1, 1, 1)]
void main()
{
    o[0] = same(float2(1, 2), float2(1, 3)) ? 1.0 : 0.0;
}
"#,
        expect![""],
    );
}

/// With `import glsl;`, `float4 == float4` is one `bool` (GLSL's operator).
#[test]
fn import_glsl_makes_vector_equality_one_bool() {
    check_errors(
        r#"
import glsl;
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    float4 a = float4(1, 2, 3, 4);
    bool all_equal = (a == a);
    o[0] = all_equal ? 1.0 : 0.0;
}
"#,
        expect![""],
    );
}

/// `__generic_value_param N : int;` declares a value `N` of type `int`.
#[test]
fn global_generic_value_parameters() {
    check_errors(
        r#"
__generic_value_param kOffset : uint = 0;
__generic_value_param N : int;
RWStructuredBuffer<uint> o;
[numthreads(1, 1, 1)]
void main()
{
    o[0] = kOffset + N;
}
"#,
        expect![""],
    );
}

/// Derivative attributes name methods of the extended type from an `extension` (also a generic one) and functions of the enclosing namespace; `__mul_p_d` is the core module's helper.
#[test]
fn derivative_attributes_see_extensions_namespaces_and_helpers() {
    check_errors(
        r#"
struct A
{
    float x;
    float f(float v) { return v * v; }
}
extension A
{
    [ForwardDerivativeOf(f)]
    DifferentialPair<float> df(DifferentialPair<float> v)
    {
        return diffPair(v.p * v.p, 2.0 * v.p * v.d);
    }
}
interface IFoo
{
    float read(uint id);
    void write(uint id, float value);
}
extension<F : IFoo> F
{
    [Differentiable]
    [BackwardDerivative(load_bwd)]
    float load(int i) { return this.read(i); }
    void load_bwd(int i, float dOut) { write(i, dOut); }
}
namespace lib
{
    [ForwardDerivative(d_sq)]
    float sq(float x) { return x * x; }
    DifferentialPair<float> d_sq(DifferentialPair<float> x)
    {
        return diffPair(x.p * x.p, 2.0 * x.p * x.d);
    }
}
__generic<T : __BuiltinFloatingPointType>
DifferentialPair<T> scaled(DifferentialPair<T> x)
{
    return DifferentialPair<T>(x.p, __mul_p_d(x.p, x.d));
}
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    A a = { 1.0 };
    o[0] = a.f(2.0) + lib::sq(3.0);
}
"#,
        expect![""],
    );
}

/// `__apply(f)` is an operator of the reference compiler's parser, not a name to look up.
#[test]
fn compiler_operators_apply_and_dispatch_kernel() {
    check_errors(
        r#"
float foo(float x)
{
    return x;
}
[numthreads(1, 1, 1)]
void main()
{
    __apply(foo);
}
"#,
        expect![""],
    );
}

/// `sizeof(a)` reads only the type of `a`; a `constexpr` local is a constant.
#[test]
fn sizeof_and_constexpr_in_array_lengths() {
    check_errors(
        r#"
RWStructuredBuffer<int> o;
[numthreads(1, 1, 1)]
void main()
{
    int a = 1;
    float g[sizeof(a)];
    constexpr int N = 5;
    int arr[N];
    arr[0] = a;
    g[0] = 1.0;
    o[0] = arr[0] + int(g[0]);
}
"#,
        expect![""],
    );
}

/// `struct { int m; } tt;` in a body declares the local `tt`.
#[test]
fn local_anonymous_struct_declares_its_variable() {
    check_errors(
        r#"
RWStructuredBuffer<int> o;
[numthreads(1, 1, 1)]
void main()
{
    struct
    {
        int m;
    } tt;
    tt.m = 1;
    o[0] = tt.m;
}
"#,
        expect![""],
    );
}

/// A struct converts to a struct it inherits from.
#[test]
fn derived_struct_converts_to_its_base() {
    check_errors(
        r#"
#pragma warning(disable:30816)
struct Base
{
    int a;
}
struct Derived : Base
{
    int b;
}
int get(Base b)
{
    return b.a;
}
RWStructuredBuffer<int> o;
[numthreads(1, 1, 1)]
void main()
{
    Derived d;
    d.a = 1;
    d.b = 2;
    o[0] = get(d);
}
"#,
        expect![""],
    );
}

/// `typealias IBoth = IFirst & ISecond;` as a constraint gives both interfaces' members.
#[test]
fn conjunction_alias_as_constraint() {
    check_errors(
        r#"
interface IFirst
{
    int first();
}
interface ISecond
{
    int second();
}
typealias IBoth = IFirst & ISecond;
int add<T : IBoth>(T v)
{
    return v.first() + v.second();
}
struct P : IFirst, ISecond
{
    int first() { return 1; }
    int second() { return 2; }
}
RWStructuredBuffer<int> o;
[numthreads(1, 1, 1)]
void main()
{
    P p;
    o[0] = add(p);
}
"#,
        expect![""],
    );
}

/// `myF(inout uint, uint)` is picked over `myF(inout int, int)` for `(uint, int)`: converting into an `inout` parameter costs more than a value's conversion.
#[test]
fn conversion_into_inout_ranks_last() {
    check_errors(
        r#"
RWStructuredBuffer<float> o;
float myF(inout int a, int b) { return a + b; }
float myF(inout uint a, uint b) { return a - b; }
[numthreads(1, 1, 1)]
void main()
{
    int ic = 1;
    uint a = 2;
    o[0] = myF(a, ic);
}
"#,
        expect![""],
    );
}

/// `break` ends a `__target_switch` case.
#[test]
fn break_in_target_switch_case() {
    check_errors(
        r#"
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    __target_switch
    {
    case hlsl:
        break;
    case spirv:
        o[0] = 1.0;
        break;
    }
}
"#,
        expect![""],
    );
}

/// A type nested in a struct may be `private` (only a file-level one may not).
#[test]
fn nested_types_may_be_private() {
    check_errors(
        r#"
struct Outer
{
    private struct Inner
    {
        private int x;
    }
    int y;
}
[numthreads(1, 1, 1)]
void main()
{
}
"#,
        expect![""],
    );
}

/// A user `mul` overloads the core module's: `mul(a.v, v)` inside it is the matrix product.
#[test]
fn user_function_overloads_core_function() {
    check_errors(
        r#"
struct SomeType
{
    float2x2 v;
};
float mul(SomeType a, float2 v) { return mul(a.v, v).x; }
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    SomeType t = { 1, 0, 0, 1 };
    o[0] = mul(t, float2(1, 2));
}
"#,
        expect![""],
    );
}

/// A parameter of type `T` for `each T` takes any number of arguments.
#[test]
fn parameter_of_pack_type_is_variadic() {
    check_errors(
        r#"
void add(inout int a, int b)
{
    a += b;
}
int process<each T>(T v) where T == int
{
    int result = 0;
    expand add(result, each v);
    return result;
}
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    o[0] = process(1, 2, 3);
}
"#,
        expect![""],
    );
}

/// A struct declared in a GLSL `buffer` block is a type name.
#[test]
fn types_declared_in_glsl_blocks_are_global() {
    check_errors(
        r#"
#version 450
layout(local_size_x = 1) in;
buffer Block
{
    struct Item
    {
        int val;
    };
    int count;
    Item first;
} block;
void main()
{
    block.count = block.first.val;
}
"#,
        expect![""],
    );
}

/// `\` separates folders in an `#include` path, as for the reference
/// compiler on every platform.
#[test]
fn include_path_with_backslashes() {
    check_errors(
        r#"
//- /inc_a.h
int helper() { return 1; }
//- /main.slang
#include ".\inc_a.h"
RWStructuredBuffer<int> o;
[numthreads(1, 1, 1)]
void main()
{
    o[0] = helper();
}
"#,
        expect![""],
    );
}

/// A method with a default value meets a requirement with fewer
/// parameters; a requirement taking a pack (`expand each Ts`) meets a
/// method taking the interface's arguments.
#[test]
fn requirements_met_through_defaults_and_packs() {
    check_errors(
        r#"
interface IBase
{
    int getValue();
}
struct Impl : IBase
{
    static int getValue(int a = 3) { return a + 5; }
}
interface IAccumulator<each Ts>
{
    float accumulate(expand each Ts values);
}
struct SumTwo : IAccumulator<float, float>
{
    float accumulate(float a, float b) { return a + b; }
}
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    SumTwo s;
    o[0] = s.accumulate(1.0, 2.0) + Impl.getValue();
}
"#,
        expect![""],
    );
}

/// `where optional T : IThing`: a type argument that does not conform is accepted (the code tests `T is IThing`).
#[test]
fn where_optional_constraint_need_not_hold() {
    check_errors(
        r#"
interface IThing
{
    int thing();
}
struct NotMyThing
{
    int val;
}
RWStructuredBuffer<int> o;
void f<T>(T t) where optional T : IThing
{
    if (T is IThing)
    {
        o[0] = 1;
    }
}
[numthreads(1, 1, 1)]
void main()
{
    NotMyThing n = { 1 };
    f<NotMyThing>(n);
}
"#,
        expect![""],
    );
}

/// `Box<T, 3> as This` in `Box<T, Mode>`: the types may be one once specialized.
#[test]
fn is_as_between_open_generic_instances() {
    check_errors(
        r#"
struct Box<T : __BuiltinFloatingPointType, int Mode>
{
    T v;
    static This make(T x)
    {
        Box<T, 3> b;
        b.v = x;
        return (b as This).value;
    }
}
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    o[0] = Box<float, 3>.make(1.0).v;
}
"#,
        expect![""],
    );
}

/// `first<ITerm>(m)`, `makeArrayFromElement<ITerm, 4>(m)`: a struct converts to the interface written as the generic argument.
#[test]
fn struct_argument_for_an_interface_written_at_the_call() {
    check_errors(
        r#"
interface ITerm
{
    float eval(float x);
}
struct Multiply : ITerm
{
    float k;
    float eval(float x) { return k * x; }
}
T first<T>(T a)
{
    return a;
}
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    Multiply m = { 3.0 };
    ITerm t = first<ITerm>(m);
    Array<ITerm, 4> terms = makeArrayFromElement<ITerm, 4>(m);
    o[0] = t.eval(1.0) + terms[0].eval(1.0);
}
"#,
        expect![""],
    );
}

/// `[BackwardDerivative(sqBwd<float>)]`: a specialization of a generic derivative serves a non-generic function.
#[test]
fn derivative_named_with_generic_arguments() {
    check_errors(
        r#"
void sqBwd<T : __BuiltinFloatingPointType>(inout DifferentialPair<T> x, T.Differential result)
{
    x = diffPair(x.p, result);
}
[BackwardDerivative(sqBwd<float>)]
float sq(float x)
{
    return x * 2;
}
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    o[0] = sq(1.0);
}
"#,
        expect![""],
    );
}

/// `CoopVec<float, 4>` is differentiable: `bwd_diff` takes pairs for it and its derivative (3 arguments).
#[test]
fn coopvec_is_differentiable() {
    check_errors(
        r#"
[Differentiable]
CoopVec<float, 4> scale(CoopVec<float, 4> x, CoopVec<float, 4> y)
{
    return x * y;
}
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    var x = diffPair(CoopVec<float, 4>(1.0));
    var y = diffPair(CoopVec<float, 4>(2.0));
    bwd_diff(scale)(x, y, CoopVec<float, 4>(1.0));
    o[0] = x.d[0];
}
"#,
        expect![""],
    );
}

/// `uniform struct { … } inputBuffer;` and `static const struct { … } s = …;` declare global variables of the struct's type.
#[test]
fn global_struct_declares_its_variable() {
    check_errors(
        r#"
uniform struct
{
    float4 data;
} inputBuffer;
static const struct
{
    int b;
} globalStruct = { 3 };
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    o[0] = inputBuffer.data.x + globalStruct.b;
}
"#,
        expect![""],
    );
}

/// `vk::BufferPointer<T>`: `Get()` returns a reference, which may be assigned through.
#[test]
fn vk_buffer_pointer() {
    check_errors(
        r#"
struct Globals
{
    float4 a;
};
typedef vk::BufferPointer<Globals> GlobalsPtr;
struct Push
{
    GlobalsPtr p;
};
[[vk::push_constant]] Push push;
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    push.p.Get().a = float4(1, 0, 0, 0);
    o[0] = push.p.Get().a.x;
}
"#,
        expect![""],
    );
}

/// `queryFootprintCoarseClamp` and the other `…Clamp` footprint queries (checked with `-stage fragment`).
#[test]
fn footprint_queries_with_a_lod_clamp() {
    check_errors(
        r#"
Texture2D<float4> tex;
SamplerState samp;
RWStructuredBuffer<uint> o;
[shader("fragment")]
float4 main(float2 uv : TEXCOORD) : SV_Target
{
    TextureFootprint2D.Granularity g = 1;
    TextureFootprint2D f = tex.queryFootprintCoarseClamp(g, samp, uv, 0.5);
    o[0] = f.lod;
    return float4(0, 0, 0, 0);
}
"#,
        expect![""],
    );
}

/// `namespace ns { using ns2; }` in an imported module: `using ns;` brings
/// `ns2`'s members in too.
#[test]
fn using_a_namespace_that_uses_another() {
    check_errors(
        r#"
//- /a.slang
module a;
namespace ns2
{
    public int f() { return 1; }
}
namespace ns
{
    using ns2;
}
//- /main.slang
import a;
using ns;
RWStructuredBuffer<int> o;
[numthreads(1, 1, 1)]
void main()
{
    o[0] = f();
}
"#,
        expect![""],
    );
}

/// `DifferentialPair<LS>.Differential` is `DifferentialPair<LS.Differential>` (the alias sees the instance's arguments): the backward derivative of a function returning a pair matches.
#[test]
fn member_alias_of_a_generic_instance() {
    check_errors(
        r#"
struct LS : IDifferentiable
{
    float x0;
};
[BackwardDerivative(d_fwd_load)]
DifferentialPair<LS> fwd_load(uint id)
{
    LS l = { 1.0 };
    return DifferentialPair<LS>(l, LS.dzero());
}
void d_fwd_load(uint id, DifferentialPair<LS>.Differential dp)
{
}
[numthreads(1, 1, 1)]
void main()
{
}
"#,
        expect![""],
    );
}

/// A call of a function whose result is `no_diff` (its parameter too) in a differentiable function: no derivative is lost.
#[test]
fn call_with_a_no_diff_result_loses_nothing() {
    check_errors(
        r#"
no_diff float half_of(no_diff float x)
{
    return x * 0.5;
}
[Differentiable]
float f(no_diff float x, float y)
{
    float r = half_of(x);
    return r * y;
}
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    o[0] = f(1.0, 2.0);
}
"#,
        expect![""],
    );
}

/// `f(expand each x)` with a two-element tuple `x` passes two arguments.
#[test]
fn call_with_an_expanded_tuple() {
    check_errors(
        r#"
#lang 2026
int f(int x, float y)
{
    return x + int(y);
}
RWStructuredBuffer<int> o;
[numthreads(1, 1, 1)]
void main()
{
    Tuple<int, float> x = (2, 3.0f);
    o[0] = f(expand each x);
}
"#,
        expect![""],
    );
}

/// A `__subscript`'s `set` given its derivative by `__func_extension fwd_diff(Grid::__subscript::set)`: storing a derivative-carrying value through it loses nothing (slangc: a warning that `__func_extension` is experimental, no error).
#[test]
fn setter_with_a_func_extension_derivative() {
    check_errors(
        r#"
struct Grid : IDifferentiable
{
    typedef Grid Differential;
    float4 values;
    [Differentiable]
    static Differential dzero() { return Grid(float4(0.0)); }
    [Differentiable]
    static Differential dadd(Differential a, Differential b) { return Grid(a.values + b.values); }
    __subscript(int i) -> float
    {
        get { return values[i]; }
        set { values[i] = newValue; }
    }
}
__func_extension fwd_diff(Grid::__subscript::set)(
    inout DifferentialPair<Grid> self,
    int i,
    DifferentialPair<float> newValue) -> void
{
    var primal = self.p;
    var differential = self.d;
    primal[i] = newValue.p;
    differential[i] = newValue.d;
    self = diffPair(primal, differential);
}
[Differentiable]
Grid write(Grid value, int i, float v)
{
    value[i] = v;
    return value;
}
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main()
{
    Grid g = Grid(float4(0.0));
    o[0] = write(g, 1, 2.0).values.y;
}
"#,
        expect![""],
    );
}
