//! Checks of declarations that the syntax alone decides: where a
//! declaration may appear and which modifiers it may have there.

mod common;

use common::{fixture, render_diagnostics};
use expect_test::{expect, Expect};

fn check(text: &str, expect: Expect) {
    let fx = fixture(text);
    expect.assert_eq(&render_diagnostics(&fx));
}

#[test]
fn declarations_nested_where_they_cannot_be() {
    check(
        r#"
struct S
{
    namespace N {}
    interface I {}
    extension S {}
    struct Inner { int a; }
    typealias X = int;
    int f() { return 0; }
}
__init() {}
interface IFoo
{
    enum E { A, B }
    struct T {}
    associatedtype A;
    static const int k;
}
extension S
{
    extension S {}
    static int counter;
}
void f()
{
    int g() { return 1; }
    struct Local { int a; } l = { 1 };
    typedef int Int;
}
"#,
        expect![[r#"
            /main.slang:4:15: error[declaration-not-allowed]: a namespace cannot be declared inside a struct; declare it at module or namespace scope
            /main.slang:5:15: error[declaration-not-allowed]: an interface cannot be declared inside a struct; declare it at module or namespace scope
            /main.slang:6:5: error[declaration-not-allowed]: an extension cannot be declared inside a struct; declare it at module or namespace scope
            /main.slang:11:1: error[declaration-not-allowed]: a constructor (`__init`) cannot be declared at module scope; declare constructors inside a struct, class or extension
            /main.slang:14:10: error[declaration-not-allowed]: an enum cannot be declared inside an interface; an interface may only declare requirements; use `associatedtype` for a type requirement
            /main.slang:15:12: error[declaration-not-allowed]: a struct cannot be declared inside an interface; an interface may only declare requirements; use `associatedtype` for a type requirement
            /main.slang:21:5: error[declaration-not-allowed]: an extension cannot be declared inside an extension; declare it at module or namespace scope
            /main.slang:26:9: error[declaration-not-allowed]: a function cannot be declared inside a function; declare it at module or namespace scope
        "#]],
    );
}

#[test]
fn structs_declared_inside_types() {
    check(
        r#"
typedef struct { int y; } TD;
struct G { int x; } g;
void param(struct P { } a) {}
func ret() -> struct { int a; } { return { 1 }; }
struct R { } noReturnType() { return { }; }
void body()
{
    let i : struct L { } = { };
    for (struct S { int a; } s = { 1 }; s.a < 2; s.a++) {}
}
"#,
        expect![[r#"
            /main.slang:4:12: error[declaration-not-allowed]: a struct cannot be declared inside a type here; declare it on its own and use its name
            /main.slang:5:15: error[declaration-not-allowed]: a struct cannot be declared inside a type here; declare it on its own and use its name
            /main.slang:6:1: error[declaration-not-allowed]: a struct cannot be declared as a function's return type; declare it on its own and use its name
            /main.slang:9:13: error[declaration-not-allowed]: a struct cannot be declared inside a type here; declare it on its own and use its name
            /main.slang:10:10: error[declaration-not-allowed]: a struct cannot be declared in a `for` statement's initializer; declare it before the loop
            /main.slang:10:41: error[unresolved-name]: cannot find `s` in this scope
            /main.slang:10:50: error[unresolved-name]: cannot find `s` in this scope
        "#]],
    );
}

#[test]
fn variables_that_need_static_or_no_initializer() {
    check(
        r#"
const int A = 1;
static const int B = 2;
const int C;
namespace N { const int D[2] = { 1, 2 }; }
export const int E = 3;
[SpecializationConstant] const int F = 4;
groupshared int G = 5;
interface I
{
    int field;
    static int notConst;
    static const int withValue = 1;
    static const int fine;
    property int p { get; }
}
struct S { int x; }
extension S
{
    int added;
    let alsoAdded = 1;
    static int fine;
}
"#,
        expect![[r#"
            /main.slang:2:11: error[invalid-initializer]: `A`: a global `const` with an initializer must be declared `static` (`static const`); without `static` it would be a shader parameter
            /main.slang:5:25: error[invalid-initializer]: `D`: a global `const` with an initializer must be declared `static` (`static const`); without `static` it would be a shader parameter
            /main.slang:6:18: error[invalid-initializer]: `E`: an `extern` or `export` constant must be `static const`
            /main.slang:8:17: error[invalid-initializer]: `G` cannot have an initializer because it is `groupshared`; assign it in the entry point instead
            /main.slang:11:9: error[declaration-context]: `field`: a non-static variable cannot be declared inside an interface; declare a property (`property T name { get; }`) or a `static const` requirement
            /main.slang:12:16: error[declaration-context]: `notConst`: a value requirement of an interface must be `static const`
            /main.slang:13:22: error[invalid-initializer]: `withValue` cannot have an initializer because it is an interface requirement; give its value in each conforming type
            /main.slang:20:9: error[declaration-context]: `added`: a non-static variable cannot be declared inside an extension; an extension cannot add storage; make it `static`, or add the field to the type itself
            /main.slang:21:9: error[declaration-context]: `alsoAdded`: a non-static variable cannot be declared inside an extension; an extension cannot add storage; make it `static`, or add the field to the type itself
        "#]],
    );
}

#[test]
fn arrays_of_types_without_an_address() {
    check(
        r#"
struct HasBlock { ParameterBlock<float4> pb; int data; }
struct HasUnbounded { float value; int data[]; }
struct Nested { int id; HasUnbounded inner; }
struct Plain { int a; }
ParameterBlock<float> blocks[2];
HasBlock a[2];
Nested n[3];
int unbounded[];
int arrayOfUnbounded[3][];
int unboundedOfArrays[][3];
Plain fine[4];
Texture2D textures[4];
StructuredBuffer<HasUnbounded> buffer;
void f<HasBlock>() { HasBlock shadowed[2]; }
"#,
        expect![[r#"
            /main.slang:6:23: error[non-addressable-array]: `blocks` cannot be an array: its elements are parameter blocks (`ParameterBlock<float>`), which has no address; declare separate variables, or keep the parameter block or unbounded array out of the struct
            /main.slang:7:10: error[non-addressable-array]: `a` cannot be an array: its element type, struct `HasBlock`, holds `ParameterBlock<float4>` in field `pb`, which has no address; declare separate variables, or keep the parameter block or unbounded array out of the struct
            /main.slang:8:8: error[non-addressable-array]: `n` cannot be an array: its element type, struct `Nested`, holds `HasUnbounded` in field `inner`, which has no address; declare separate variables, or keep the parameter block or unbounded array out of the struct
            /main.slang:10:5: error[non-addressable-array]: `arrayOfUnbounded` cannot be an array: its elements are unbounded arrays (`int[]`), which has no address; declare separate variables, or keep the parameter block or unbounded array out of the struct
            /main.slang:14:1: error[non-addressable-array]: `HasUnbounded` cannot be the element of a `StructuredBuffer`: it holds an unbounded array in field `data`, which has no address; keep the parameter block or unbounded array out of the struct
        "#]],
    );
}

#[test]
fn types_an_entry_point_cannot_pass_between_stages() {
    check(
        r#"
struct BadField { float a; DifferentialPair<float> bad; }
struct V { float4 pos : SV_Position; }
[shader("vertex")]
float4 pair(DifferentialPair<float> dp : A) : SV_Position { return float4(0); }
[shader("vertex")]
float4 field(BadField b : A) : SV_Position { return float4(0); }
[shader("vertex")]
float4 mat(matrix<float, 4, 5> m : A) : SV_Position { return float4(0); }
[shader("vertex")]
void stream(LineStream<int> s) {}
[shader("vertex")]
OutputVertices<V, 3> meshOut() { return {}; }
[shader("mesh")]
[outputtopology("point")]
[numthreads(1, 1, 1)]
void mesh(out vertices V verts[1], out OutputIndices<int, 0> indices) {}
[shader("fragment")]
float4 fine(uniform DifferentialPair<float> dp, float4 p : SV_Position) : SV_Target { return p; }
[shader("compute")]
[numthreads(1, 1, 1)]
void compute(DifferentialPair<float> dp) {}
"#,
        expect![[r#"
            /main.slang:5:37: error[invalid-varying-type]: type `DifferentialPair<float>` cannot be used as parameter `dp` of entry point `pair`: a differential pair is not a valid varying type; pass the primal value and its derivative separately
            /main.slang:7:23: error[invalid-varying-type]: type `BadField` cannot be used as parameter `b` of entry point `field`: its field of type `DifferentialPair<float>` is invalid: a differential pair is not a valid varying type; pass the primal value and its derivative separately
            /main.slang:9:32: error[invalid-varying-type]: type `matrix<float, 4, 5>` cannot be used as parameter `m` of entry point `mat`: a matrix's row and column counts must be between 1 and 4
            /main.slang:11:29: error[invalid-varying-type]: type `LineStream<int>` cannot be used as parameter `s` of entry point `stream`: stream output types are only valid on a geometry shader entry point
            /main.slang:13:1: error[invalid-varying-type]: type `OutputVertices<V, 3>` cannot be the result of entry point `meshOut`: mesh output types are only valid on a mesh shader entry point
            /main.slang:17:62: error[invalid-varying-type]: type `OutputIndices<int, 0>` cannot be used as parameter `indices` of entry point `mesh`: the element type of `OutputIndices` must be `uint`, `uint2` or `uint3`
        "#]],
    );
}

#[test]
fn constraints_that_are_not_interfaces() {
    check(
        r#"
interface IFoo { int f(); }
struct Foo : IFoo { int f() { return 0; } }
enum E { A }
struct S1<D : int> {}
struct S2<each D : int> {}
struct S3<D> where D : int {}
float g<T : Foo>(T t) { return 0; }
__generic<T : E> void h(T t) {}
void fine<T : IFoo, let N : int>(T t) {}
struct Outer { struct Foo {} void m<U : Foo>() {} }
"#,
        expect![[r#"
            /main.slang:5:15: error[invalid-constraint]: type `int` cannot be used as a constraint: it is a built-in type; to declare a generic value parameter, write `let D : int`
            /main.slang:6:20: error[invalid-constraint]: type `int` cannot be used as a constraint: it is a built-in type; to declare a generic value parameter, write `let each D : int`
            /main.slang:7:24: error[invalid-constraint]: type `int` cannot be used as a constraint: it is a built-in type; constrain by an interface the type conforms to
            /main.slang:8:13: error[invalid-constraint]: type `Foo` cannot be used as a constraint: it is not an interface; constrain by an interface the type conforms to
            /main.slang:9:15: error[invalid-constraint]: type `E` cannot be used as a constraint: it is not an interface; constrain by an interface the type conforms to
        "#]],
    );
}

#[test]
fn type_arguments_that_do_not_conform() {
    check(
        r#"
interface IValue { int getValue(); }
struct Good : IValue { int getValue() { return 1; } }
struct Bad { int data; }
struct Later {}
extension Later : IValue { int getValue() { return 2; } }
struct Wrapper<T : IValue> { T v; }
typealias Alias<T : IValue> = Wrapper<T>;
__generic<T : IValue = Bad>
struct WithDefault { T v; }
void test()
{
    Wrapper<Good> a;
    Wrapper<Bad> b;
    Alias<Bad> c;
    Wrapper<Later> d;
}
"#,
        expect![[r#"
            /main.slang:9:24: error[constraint-not-satisfied]: the default `Bad` does not conform to `IValue`, the parameter's constraint
            /main.slang:14:5: error[constraint-not-satisfied]: type argument `Bad` does not conform to `IValue`, which `Wrapper` requires of `T`; declare `Bad` as `: IValue` or pass a type that conforms
            /main.slang:15:5: error[constraint-not-satisfied]: type argument `Bad` does not conform to `IValue`, which `Alias` requires of `T`; declare `Bad` as `: IValue` or pass a type that conforms
        "#]],
    );
}

#[test]
fn attributes_and_signatures_rejected_on_their_own() {
    check(
        r#"
[numthreads(2, 3, 4)]
[numthreads(5, 6, 7)]
void twice() {}
[numthreads(-1, 0, 1)]
void negative() {}
[shader("compute")]
[numthreads(1, 1, 1)]
[WaveSize(5)]
void wave() {}
[UnscopedEnum]
enum class Scoped { A }
[UnscopedEnum]
enum Unscoped { B }
[shader("mesh")]
[numthreads(1, 1, 1)]
void meshMain() {}
float later(float a, float b = 1.0, float c) { return a; }
struct Scaled<let S : float> {}
struct Sized<let N : int, let B : bool> {}
struct NoInit { int a; }
extension NoInit { __init() { a = 0; } }
struct HasInit { int a; __init() { a = 0; } }
extension HasInit { __init(int x) { a = x; } }
extension NoInit { __init(int x) { a = x; } }
"#,
        expect![[r#"
            /main.slang:3:1: error[duplicate-attribute]: `[numthreads]` is given more than once; keep one
            /main.slang:5:13: error[invalid-attribute-value]: a `[numthreads]` count must be a positive integer, not -1
            /main.slang:5:17: error[invalid-attribute-value]: a `[numthreads]` count must be a positive integer, not 0
            /main.slang:9:11: error[invalid-attribute-value]: a `[WaveSize]` must be a power of 2 from 4 to 128, not 5
            /main.slang:11:1: error[duplicate-attribute]: `[UnscopedEnum]` conflicts with `enum class`, which scopes its cases; remove one
            /main.slang:17:6: error[missing-attribute]: mesh shader `meshMain` needs an `[outputtopology("triangle")]` attribute (or "point" or "line")
            /main.slang:18:43: error[default-argument-order]: parameter `c` has no default value but follows one that does; give it a default or move it before the defaulted parameters
            /main.slang:19:23: error[invalid-generic-value-type]: a generic value parameter cannot have type `float`: only integer, `bool` and enum types are allowed
            /main.slang:22:20: error[init-in-extension]: a parameterless `__init()` cannot be declared in an extension (of `NoInit`): it would replace the default initialization; declare it inside `NoInit`
        "#]],
    );
}

/// Overloads that differ only in their generic constraints, their `where`
/// clauses or the target they are specialized for are not redefinitions
/// (slangc 2026.14.1 accepts the first five pairs and rejects the last:
/// renaming a parameter does not make an overload). `nonempty(P)` takes a
/// pack parameter of its own declaration.
#[test]
fn overloads_by_constraint_where_clause_and_target() {
    check(
        r#"
interface IBase { float get(); }
float process<T>(T v) { return 0.0; }
float process<T : IBase>(T v) { return v.get(); }
__generic<T : __BuiltinLogicalType> bool test1() { return true; }
__generic<T : __BuiltinFloatingPointType> bool test1() { return false; }
void packs<each T>() {}
void packs<each T>() where nonempty(T) {}
__specialized_for_target(hlsl) int a(int x) { return x; }
__specialized_for_target(glsl) int a(int x) { return x; }
int b(int x) { return x; }
int b(int y) { return y; }
struct Bad<each T> where nonempty(int) {}
struct Outer<let each D : int>
{
    struct Inner<let each E : int> where nonempty(D) {}
}
"#,
        expect![[r#"
            /main.slang:12:5: error[redefinition]: `b` is already defined with the same parameters
            /main.slang:13:35: error[invalid-constraint]: `nonempty(...)` requires a generic type pack or value pack parameter
            /main.slang:16:51: error[invalid-constraint]: `nonempty(...)` target must be a generic pack parameter declared in the current generic
        "#]],
    );
}

/// Ray-tracing system values (slangc 2026.14.1 accepts these; a made-up
/// `SV_` name it rejects).
#[test]
fn ray_tracing_system_values() {
    check(
        r#"
struct Payload { float4 color; }
[shader("closesthit")]
void hit(inout Payload p : SV_RayPayload, BuiltInTriangleIntersectionAttributes a : SV_IntersectionAttributes)
{
    p.color = float4(a.barycentrics, 0, 1);
}
[shader("fragment")]
float4 frag(float4 p : SV_NoSuchValue) : SV_Target { return p; }
"#,
        expect![[r#"
            /main.slang:9:24: error[unknown-semantic]: unknown system-value semantic `SV_NoSuchValue`
        "#]],
    );
}
