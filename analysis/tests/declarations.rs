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

/// (The `for` statement's struct still declares `s`: slangc reports no
/// unknown name there.)
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

/// E30702 where slangc reports it (its lines are one less: the fixture
/// starts with an empty line), and a program with the same semantics in
/// their stages that slangc accepts.
#[test]
fn system_values_outside_their_stage_or_direction() {
    check(
        r#"
struct VOut { float4 pos : SV_Position; uint id : SV_VertexID; };
struct FIn { float4 pos : SV_Position; float depth : SV_Depth; };
[shader("vertex")]
VOut vs(uint id : SV_VertexID) { VOut o; o.pos = float4(0); o.id = id; return o; }
[shader("fragment")]
float4 fs(FIn i, uint vid : SV_VertexID) : SV_Target { return i.pos; }
[shader("compute")]
[numthreads(1, 1, 1)]
void cs(out float depth : SV_Depth, uint3 tid : SV_DispatchThreadID) { depth = 0; }
[shader("vertex")]
float4 front(out bool frontFace : SV_IsFrontFace) : SV_Position { frontFace = true; return float4(0); }
[shader("fragment")]
float4 gid(uint3 g : SV_GroupID) : SV_Target0 { return float4(0); }
"#,
        expect![[r#"
            /main.slang:2:46: error[invalid-system-value]: system value semantic `SV_VertexID` cannot be used as output in a vertex shader: no stage has it as output
            /main.slang:3:46: error[invalid-system-value]: system value semantic `SV_Depth` cannot be used as input in a pixel shader: no stage has it as input
            /main.slang:7:23: error[invalid-system-value]: system value semantic `SV_VertexID` cannot be used as input in a pixel shader: it is input in vertex shaders
            /main.slang:10:19: error[invalid-system-value]: system value semantic `SV_Depth` cannot be used as output in a compute shader: it is output in fragment shaders
            /main.slang:12:23: error[invalid-system-value]: system value semantic `SV_IsFrontFace` cannot be used as output in a vertex shader: it is output in geometry shaders
            /main.slang:14:18: error[invalid-system-value]: system value semantic `SV_GroupID` cannot be used as input in a pixel shader: it is input in compute, mesh, amplification shaders
        "#]],
    );
    check(
        r#"
struct VOut { float4 pos : SV_Position; float4 color : COLOR; };
[shader("vertex")]
VOut vs(float4 p : POSITION, uint id : SV_VertexID, uint inst : SV_InstanceID) { VOut o; o.pos = p; o.color = float4(id); return o; }
[shader("fragment")]
float4 fs(VOut i, bool ff : SV_IsFrontFace, out float d : SV_Depth) : SV_Target { d = 0; return i.color; }
[shader("compute")]
[numthreads(1, 1, 1)]
void cs(uint3 tid : SV_DispatchThreadID, uint gi : SV_GroupIndex) {}
"#,
        expect![[""]],
    );
    // `[numthreads]` alone makes a compute shader (slangc: E30702 at
    // 3:14, E38024 at 7:16; it accepts `c2`'s parameters and `meshLike`).
    check(
        r#"
[numthreads(4, 1, 1)]
void c1(uint vid : SV_VertexID) {}
[numthreads(4, 1, 1)]
void c2(uint2 t : SV_DispatchThreadID, int3 gt : SV_GroupThreadID, uint16_t gi : SV_GroupIndex) {}
[numthreads(4, 1, 1)]
void c3(float3 g : SV_DispatchThreadID) {}
struct VertexOutput { float4 position : SV_Position; };
[outputtopology("triangle")]
[numthreads(1, 1, 1)]
void meshLike(out vertices VertexOutput verts[3], out indices uint3 tris[1]) {}
"#,
        expect![[r#"
            /main.slang:3:14: error[invalid-system-value]: system value semantic `SV_VertexID` cannot be used as input in a compute shader: it is input in vertex shaders
            /main.slang:7:16: error[invalid-system-value]: a parameter with `SV_DispatchThreadID` must be an `int` or `uint` scalar or vector of 1 to 3, not `float3`; use `uint3`
        "#]],
    );
}

/// What a stage requires of its entry point: slangc reports E38012 (4:13),
/// E38048 (8:6), E38045 (11:6), E38046 (13:6) and E30705 (15:64) here
/// (given without the fixture's first, empty line), and accepts the
/// complete entry points of the second fixture.
#[test]
fn what_a_stage_requires_of_its_entry_point() {
    check(
        r#"
struct V { float4 pos : SV_Position; };
struct S { int a; };
[shader("vertex")]
Array<S, 1> arr() { return Array<S, 1>(); }
[shader("mesh")]
[outputtopology("triangle")]
[numthreads(1, 1, 1)]
void onlyVerts(out vertices V verts[3]) {}
[shader("geometry")]
[maxvertexcount(3)]
void gsNoStream(triangle float4 input[3]) {}
[shader("geometry")]
void gsNoMax(triangle float4 input[3], inout TriangleStream<V> stream) {}
[shader("fragment")]
float4 depth(out float a : SV_DepthGreaterEqual, out float b : SV_Depth) : SV_Target { a = 0; b = 0; return 0; }
"#,
        expect![[r#"
            /main.slang:5:13: error[invalid-varying-type]: entry point `arr` cannot return an array; return a struct with the array as a field, or write the elements to `out` parameters
            /main.slang:9:6: error[missing-stage-parameter]: mesh shader entry point `onlyVerts` must declare both an `OutputVertices` and an `OutputIndices` output parameter (`out vertices`/`out indices` arrays)
            /main.slang:12:6: error[missing-stage-parameter]: geometry shader entry point `gsNoStream` needs an output stream parameter: add `inout TriangleStream<T> stream` (or `PointStream<T>`, `LineStream<T>`)
            /main.slang:14:6: error[missing-stage-parameter]: geometry shader entry point `gsNoMax` needs `[maxvertexcount(N)]`: the most vertices one invocation emits
            /main.slang:16:64: error[invalid-system-value]: a fragment shader can write one depth output, but `SV_Depth` comes after `SV_DepthGreaterEqual`; keep one
        "#]],
    );
    check(
        r#"
struct V { float4 pos : SV_Position; };
[shader("mesh")]
[outputtopology("triangle")]
[numthreads(1, 1, 1)]
void hlslStyle(out vertices V verts[3], out indices uint3 tris[1]) { SetMeshOutputCounts(3, 1); }
[shader("mesh")]
[outputtopology("triangle")]
[numthreads(1, 1, 1)]
void slangStyle(OutputVertices<V, 3> verts, OutputIndices<uint3, 1> tris) { SetMeshOutputCounts(3, 1); }
[shader("geometry")]
[maxvertexcount(3)]
void gs(triangle float4 input[3], inout TriangleStream<V> stream) {}
"#,
        expect![[""]],
    );
}

/// slangc: E31201 on `read`/`write` in a plain struct (3:20, 3:34), E40001
/// on each stage name that is not one (6:40, 6:56; the names are
/// case-sensitive), nothing for the valid payload `Q` (lines given without
/// the fixture's first, empty line).
#[test]
fn ray_payload_access_qualifiers() {
    check(
        r#"
struct P
{
    float4 color : read(anyht) : write(caller);
};
struct [raypayload] Q { float v : read(caller, anyhit) : write(closesthit, miss, caller); }
[raypayload] struct R { float v : read(Caller) : write(MISS); }
"#,
        expect![[r#"
            /main.slang:4:20: error[modifier-not-allowed]: the access qualifier `read(…)` is only allowed on a field of a `[raypayload]` struct; add `[raypayload]` to the struct or remove the qualifier
            /main.slang:4:34: error[modifier-not-allowed]: the access qualifier `write(…)` is only allowed on a field of a `[raypayload]` struct; add `[raypayload]` to the struct or remove the qualifier
            /main.slang:7:40: error[invalid-access-qualifier]: `Caller` is not a stage a ray payload access qualifier can name; valid stages are `anyhit`, `closesthit`, `miss` and `caller`
            /main.slang:7:56: error[invalid-access-qualifier]: `MISS` is not a stage a ray payload access qualifier can name; valid stages are `anyhit`, `closesthit`, `miss` and `caller`
        "#]],
    );
}

/// slangc: E30102 on a `__constraint` in a struct (line 3 without the
/// fixture's first, empty line), none in the interface.
#[test]
fn constraint_declarations_outside_an_interface() {
    check(
        r#"
interface IFoo { int f(); }
interface IBar { __constraint int : IFoo; }
struct Bad { __constraint int : IFoo; }
"#,
        expect![[r#"
            /main.slang:4:14: error[declaration-not-allowed]: a `__constraint` cannot be declared inside a struct; it is a requirement of an interface; declare it inside one, or write a generic's `where` clause
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
            /main.slang:17:6: error[missing-stage-parameter]: mesh shader entry point `meshMain` must declare both an `OutputVertices` and an `OutputIndices` output parameter (`out vertices`/`out indices` arrays)
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

/// slangc: E31225 on lines 2, 3 and 8 (a `static const` without a value in a
/// struct, at module scope and in a function); `extern`, initialized and
/// non-static constants are fine.
#[test]
fn static_const_without_value() {
    check(
        r#"
struct S { static const int x; int y; }
static const int g;
extern static const int e;
static const int ok = 1;
const int nonStatic;
[numthreads(1,1,1)]
void main() { static const int loc; }
"#,
        expect![[r#"
            /main.slang:2:29: error[missing-initializer]: the `static const` `x` needs a value: write `static const … x = …;`
            /main.slang:3:18: error[missing-initializer]: the `static const` `g` needs a value: write `static const … g = …;`
            /main.slang:8:32: error[missing-initializer]: the `static const` `loc` needs a value: write `static const … loc = …;`
        "#]],
    );
}

/// slangc: E30069 on lines 3 and 6; E31201 on line 7 at the first local
/// only (`static groupshared` is fine).
#[test]
fn no_discard_void_and_groupshared_locals() {
    check(
        r#"
[NoDiscard]
void a() {}
[NoDiscard]
int b() { return 0; }
struct S { [NoDiscard] void c() {} }
void g() { groupshared int x; static groupshared int y; }
"#,
        expect![[r#"
            /main.slang:3:6: error[invalid-attribute]: `[NoDiscard]` on `a`, which returns `void`: there is no result to discard; remove the attribute
            /main.slang:6:29: error[invalid-attribute]: `[NoDiscard]` on `c`, which returns `void`: there is no result to discard; remove the attribute
            /main.slang:7:12: error[modifier-not-allowed]: a local variable cannot be `groupshared`; declare it at module scope
        "#]],
    );
}

/// slangc: E30852 on line 5 only: a generic extension of the interface's
/// conforming types is fine.
#[test]
fn extension_of_an_interface() {
    check(
        r#"
interface IFoo { int f(); }
struct Parent { int a; }
struct Child : Parent { int b; }
extension IFoo { int g() { return 0; } }
extension<T : IFoo> T { int h() { return 1; } }
"#,
        expect![[r#"
            /main.slang:5:11: error[declaration-not-allowed]: an interface (`IFoo`) cannot be extended; write a generic extension: `extension<T : IFoo> T { … }`
        "#]],
    );
}

/// slangc: E30057 on lines 5, 6 and 7; none for a parenthesized
/// assignment, a ternary, or an assignment inside `&&`.
#[test]
fn assignment_as_condition() {
    check(
        r#"
void f() {
    int a = 1;
    int b;
    while (a = 0) {}
    for (; a = 0;) {}
    if (b = a) {}
    bool c = (a = 1) ? true : false;
    if (a == 0 && (b = 1)) {}
}
"#,
        expect![[r#"
            /main.slang:5:12: error[assignment-in-condition]: an assignment cannot be a condition: write `==` to compare, or put the assignment in parentheses (`if ((a = b))`) if it is meant
            /main.slang:6:12: error[assignment-in-condition]: an assignment cannot be a condition: write `==` to compare, or put the assignment in parentheses (`if ((a = b))`) if it is meant
            /main.slang:7:9: error[assignment-in-condition]: an assignment cannot be a condition: write `==` to compare, or put the assignment in parentheses (`if ((a = b))`) if it is meant
        "#]],
    );
}

/// slangc: E30057 on line 5 only (`+=` and a comma expression are fine).
#[test]
fn assignment_as_condition_2() {
    check(
        r#"
void f() {
    int a = 1;
    if (a += 1) {}
    do {} while (a = 2);
    if (a = 0, true) {}
}
"#,
        expect![[r#"
            /main.slang:5:18: error[assignment-in-condition]: an assignment cannot be a condition: write `==` to compare, or put the assignment in parentheses (`if ((a = b))`) if it is meant
        "#]],
    );
}

/// slangc: E30605 on lines 3, 4, 5, 6 and 10 (cases equal by value: `0x1`
/// and `1`, `'a'` and `97`, `1u` and `1`; the same enum case). Line 4
/// (`1 + 1` and `2`) is not reported here: only literals and names are
/// compared.
#[test]
fn duplicate_switch_cases() {
    check(
        r#"
void f(int c) {
    switch (c) { case 1: break; case 0x1: break; }
    switch (c) { case 1 + 1: break; case 2: break; }
    switch (c) { case 'a': break; case 97: break; }
    switch (c) { case 1: break; default: break; case 1u: break; }
}

enum class Cases { A, B }
void g(Cases c) { switch (c) { case Cases::A: break; case Cases::B: break; case Cases::A: break; } }
"#,
        expect![[r#"
            /main.slang:3:38: error[duplicate-case]: `case 1` appears twice in this `switch`
            /main.slang:5:40: error[duplicate-case]: `case 97` is given twice in this `switch`; remove one
            /main.slang:6:54: error[duplicate-case]: `case 1` appears twice in this `switch`
            /main.slang:10:81: error[duplicate-case]: `case Cases::A` is given twice in this `switch`; remove one
        "#]],
    );
}

/// slangc: E38011 on lines 5 and 7 (entry points of two stages returning
/// resources); none for a function that is not an entry point.
#[test]
fn entry_points_returning_resources() {
    check(
        r#"
RWStructuredBuffer<float> buf;
[shader("compute")]
[numthreads(1,1,1)]
Texture2D<float> a(uint3 t : SV_DispatchThreadID) { Texture2D<float> x; return x; }
[shader("fragment")]
SamplerState b() : SV_Target { SamplerState s; return s; }
[shader("fragment")]
float4 c() : SV_Target { return 0; }
Texture2D<float> notEntry() { Texture2D<float> x; return x; }
"#,
        expect![[r#"
            /main.slang:5:1: error[invalid-varying-type]: an entry point cannot return the resource type `Texture2D<float>`; write the result to a buffer parameter instead
            /main.slang:7:1: error[invalid-varying-type]: an entry point cannot return the resource type `SamplerState`; write the result to a buffer parameter instead
        "#]],
    );
}

/// slangc: E30441 on lines 8, 10 and 13 (too few arguments, through a type
/// alias too), E39999 on line 12 (too many); none with a default.
#[test]
fn generic_argument_counts() {
    check(
        r#"
struct Foo<T, U> { T a; U b; }
struct Bar<T, let N : int> { T a[N]; }
struct Def<T, U = int> { T a; }
typealias Al<T, U> = Foo<T, U>;
void main()
{
    Foo<int> a;
    Foo<int, float> b;
    Bar<float> c;
    Def<int> d;
    Foo<int, int, int> e;
    Al<int> f;
}
"#,
        expect![[r#"
            /main.slang:8:5: error[wrong-generic-arity]: `Foo` takes 2 generic argument(s), but 1 were given
            /main.slang:10:5: error[wrong-generic-arity]: `Bar` takes 2 generic argument(s), but 1 were given
            /main.slang:12:5: error[wrong-generic-arity]: `Foo` takes 2 generic argument(s), but 3 were given
            /main.slang:13:5: error[wrong-generic-arity]: `Al` takes 2 generic argument(s), but 1 were given
        "#]],
    );
}

/// slangc: E31123 on line 2 (the GUID), E31122 on 5 (an associated type),
/// E31124 on 8 (a struct, not a class, conforming), E31121 on 10.
#[test]
fn com_interfaces_and_any_value_size() {
    check(
        r#"
[COM("not-a-valid-guid")]
interface IBad { float get(); }
[COM("00000000-0000-0000-0000-000000000001")]
interface ICom { associatedtype E; float get(); }
[COM("00000000-0000-0000-0000-000000000002")]
interface ICom2 { float get(); }
struct S : ICom2 { float get() { return 0; } }
class C : ICom2 { float get() { return 0; } }
[anyValueSize(32768)]
interface IBig { int get(); }
[anyValueSize(32767)]
interface IOk { int get(); }
"#,
        expect![[r#"
            /main.slang:2:1: error[invalid-attribute-value]: `not-a-valid-guid` is not a GUID: write 8-4-4-4-12 hexadecimal digits
            /main.slang:5:18: error[declaration-not-allowed]: a `[COM]` interface cannot have associated types: its methods are called through a fixed table
            /main.slang:8:12: error[com-struct]: a struct cannot conform to the `[COM]` interface `ICom2`; declare a `class`
            /main.slang:10:15: error[invalid-attribute-value]: `[anyValueSize]` cannot exceed 32767, not 32768
        "#]],
    );
}

/// slangc: E30114 on line 6 only (`try` in a `defer` block; the one
/// outside is fine).
#[test]
fn try_in_defer() {
    check(
        r#"
enum MyError { Fail }
int g() throws MyError { throw MyError.Fail; }
void f() throws MyError
{
    defer { let n = try g(); }
    let m = try g();
}
"#,
        expect![[r#"
            /main.slang:6:21: error[try-in-defer]: `try` inside a `defer` block needs a `catch` there too: an error cannot leave a `defer`
        "#]],
    );
}

/// slangc: E30522 on lines 2 and 3; a pack last is fine.
#[test]
fn generic_parameter_after_pack() {
    check(
        r#"
struct Bad1<each T, U> {}
struct Bad2<let each D : int, let N : int> {}
struct Ok<U, each T> {}
"#,
        expect![[r#"
            /main.slang:2:21: error[generic-param-order]: a generic parameter cannot follow a pack parameter (`each …`); put the pack last
            /main.slang:3:31: error[generic-param-order]: a generic parameter cannot follow a pack parameter (`each …`); put the pack last
        "#]],
    );
}

/// slangc: E32001 on line 3 only (an anonymous plain enum is fine).
#[test]
fn anonymous_enum_class() {
    check(
        r#"
enum { B, }
enum class { A, }
"#,
        expect![[r#"
            /main.slang:3:6: error[anonymous-scoped-enum]: an `enum class` needs a name: its cases are reached through it
        "#]],
    );
}
