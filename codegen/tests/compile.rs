//! Compiles small Slang compute programs through the whole pipeline
//! (lowering, IR validation, SSA construction, naga validation) to every
//! target, and snapshots the IR of a few.

use expect_test::{expect, Expect};
use slang_analysis::RootDatabase;
use slang_codegen::{compile, lower_entry_point, print, Output, Target};

const TARGETS: [Target; 5] = [Target::Wgsl, Target::SpirV, Target::Glsl, Target::Hlsl, Target::Msl];

/// Compile `src`'s entry point `computeMain` to every target; returns
/// the WGSL.
fn compile_all(src: &str) -> String {
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let mut wgsl = String::new();
    for target in TARGETS {
        match compile(&db, file, "computeMain", target) {
            Ok(Output::Text(t)) => {
                if target == Target::Wgsl {
                    wgsl = t;
                }
            }
            Ok(Output::Binary(words)) => assert!(words.len() > 5 && words[0] == 0x0723_0203, "not SPIR-V"),
            Err(errors) => {
                let shown: Vec<String> = errors.iter().map(|e| show_error(src, e)).collect();
                panic!("{target:?} failed:\n{}", shown.join("\n"));
            }
        }
    }
    wgsl
}

fn show_error(src: &str, e: &slang_codegen::CodegenError) -> String {
    match e.range {
        Some(r) => format!("{} at `{}`", e.message, &src[r]),
        None => e.message.clone(),
    }
}

fn check_ir(src: &str, expect: Expect) {
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let module = lower_entry_point(&db, file, "computeMain").unwrap_or_else(|e| panic!("{e:?}"));
    expect.assert_eq(&print::print_module(&module));
}

#[test]
fn saxpy() {
    let wgsl = compile_all(
        r#"
RWStructuredBuffer<float> y;
StructuredBuffer<float> x;

float saxpy(float a, float xi, float yi) { return a * xi + yi; }

[numthreads(64, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    uint i = tid.x;
    y[i] = saxpy(2.0, x[i], y[i]);
}
"#,
    );
    println!("{wgsl}");
}

#[test]
fn saxpy_ir() {
    check_ir(
        r#"
RWStructuredBuffer<float> y;
StructuredBuffer<float> x;

float saxpy(float a, float xi, float yi) { return a * xi + yi; }

[numthreads(64, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    uint i = tid.x;
    y[i] = saxpy(2.0, x[i], y[i]);
}
"#,
        expect![[r#"
            global g0 y: float[] [set 0, binding 0, read_write]
            global g1 x: float[] [set 0, binding 1, read]

            [numthreads(64, 1, 1)]
            func computeMain(tid: uint3 : SV_DispatchThreadID) -> void {
            b0(%0: uint3):
              %4: uint = extract %0, 0
              %7: Ptr<float[], storage> = global y
              %9: Ptr<float, storage> = element_addr %7, %4
              %10: float = const 2.0
              %11: Ptr<float[], storage_read> = global x
              %13: Ptr<float, storage_read> = element_addr %11, %4
              %14: float = load %13
              %15: Ptr<float[], storage> = global y
              %17: Ptr<float, storage> = element_addr %15, %4
              %18: float = load %17
              %19: float = call saxpy(%10, %14, %18)
              store %9, %19
              return
            }

            func saxpy(a: float, xi: float, yi: float) -> float {
            b0(%0: float, %3: float, %6: float):
              %11: float = mul %0, %3
              %13: float = add %11, %6
              return %13
            }
        "#]],
    );
}

#[test]
fn loop_ir() {
    check_ir(
        r#"
RWStructuredBuffer<float> out;

[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    float sum = 0;
    for (int i = 0; i < 10; i++)
    {
        if (i == 7)
            break;
        if (i % 2 == 0)
            continue;
        sum += i;
    }
    out[tid.x] = sum;
}
"#,
        expect![[r#"
            global g0 out: float[] [set 0, binding 0, read_write]

            [numthreads(1, 1, 1)]
            func computeMain(tid: uint3 : SV_DispatchThreadID) -> void {
            b0(%0: uint3):
              %4: float = const 0.0
              %7: int = const 0
              loop b1(%7, %4) break b4 continue b3
            b1(%36: int, %37: float):
              %11: int = const 10
              %12: bool = lt %36, %11
              if %12 then b5 else b6 merge b2
            b2:
              %14: int = const 7
              %15: bool = eq %36, %14
              if %15 then b7 else b8 merge b9
            b3(%39: float):
              %27: int = const 1
              %28: int = add %36, %27
              br b1(%28, %39)
            b4:
              %30: Ptr<float[], storage> = global out
              %32: uint = extract %0, 0
              %33: Ptr<float, storage> = element_addr %30, %32
              store %33, %37
              return
            b5:
              br b2
            b6:
              br b4
            b7:
              br b4
            b8:
              br b9
            b9:
              %17: int = const 2
              %18: int = rem %36, %17
              %19: int = const 0
              %20: bool = eq %18, %19
              if %20 then b10 else b11 merge b12
            b10:
              br b3(%37)
            b11:
              br b12
            b12:
              %23: float = convert %36
              %24: float = add %37, %23
              br b3(%24)
            }
        "#]],
    );
}

#[test]
fn loop_with_break_and_continue() {
    compile_all(
        r#"
RWStructuredBuffer<float> out;

[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    float sum = 0;
    for (int i = 0; i < 10; i++)
    {
        if (i == 7)
            break;
        if (i % 2 == 0)
            continue;
        sum += i;
    }
    int j = 0;
    while (j < 4) { sum *= 2; j++; }
    int k = 0;
    do { k += 3; if (k == 6) continue; sum -= k; } while (k < 12);
    out[tid.x] = sum;
}
"#,
    );
}

#[test]
fn struct_returning_function() {
    compile_all(
        r#"
struct Ray { float3 origin; float3 dir; float t; };

Ray makeRay(float3 o, float3 d)
{
    Ray r;
    r.origin = o;
    r.dir = normalize(d);
    r.t = 1.5;
    return r;
}

Ray offset(Ray r, float s) { Ray q = { r.origin + s, r.dir, r.t * s }; return q; }

RWStructuredBuffer<float> out;

[numthreads(4, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    Ray r = offset(makeRay(float3(1, 2, 3), float3(0, 0, 2)), 2.0);
    out[tid.x] = r.origin.x + r.dir.z + r.t;
}
"#,
    );
}

#[test]
fn vector_math_and_swizzles() {
    compile_all(
        r#"
RWStructuredBuffer<float4> out;

[numthreads(8, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    float4 v = float4(1.0, 2.0, 3.0, 4.0);
    float3 w = v.zyx * 2 + v.w;
    v.xy = w.yz;
    v.w += dot(w, float3(1, 1, 1)) + length(v.xy);
    float2 p = float2(tid.xy);
    float4 m = lerp(v, float4(w, 1), 0.25) + float4(p, p.yx);
    out[tid.x] = clamp(m, 0.0, 10.0) + max(abs(v), sqrt(float4(4, 9, 16, 25)));
}
"#,
    );
}

#[test]
fn nested_if_else_and_early_return() {
    compile_all(
        r#"
int classify(float x)
{
    if (x < 0)
    {
        if (x < -10)
            return -2;
        else
            return -1;
    }
    else if (x == 0)
    {
        return 0;
    }
    int r = 1;
    if (x > 10) { r = 2; } else { if (x > 5) r = 3; }
    return r;
}

RWStructuredBuffer<int> out;
StructuredBuffer<float> input;

[numthreads(16, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    out[tid.x] = classify(input[tid.x]);
}
"#,
    );
}

#[test]
fn inout_and_out_parameters() {
    compile_all(
        r#"
void accumulate(inout float acc, float x, out int count)
{
    acc += x * x;
    count = 1;
}

void swap(inout float2 v) { v = v.yx; }

RWStructuredBuffer<float> out;

[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    float acc = 0;
    int n = 0;
    int c;
    for (int i = 0; i < 4; i++) { accumulate(acc, float(i), c); n += c; }
    float2 v = float2(acc, n);
    swap(v);
    accumulate(out[tid.x], v.x, c);
}
"#,
    );
}

#[test]
fn switch_ternary_and_short_circuit() {
    compile_all(
        r#"
RWStructuredBuffer<int> out;

int pick(int x)
{
    int r = 0;
    switch (x)
    {
    case 0:
    case 1:
        r = 10;
        break;
    case 2:
        r = 20;
        break;
    default:
        r = x > 5 ? 1 : -1;
        break;
    }
    return r;
}

[numthreads(4, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    int x = int(tid.x);
    bool ok = x > 0 && pick(x) > 0 || x == 3;
    out[tid.x] = ok ? pick(x) : 0;
}
"#,
    );
}

#[test]
fn matrices_and_arrays() {
    compile_all(
        r#"
RWStructuredBuffer<float> out;

[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    float3x3 m = float3x3(1, 2, 3, 4, 5, 6, 7, 8, 10);
    float3 v = mul(m, float3(1, 0, 1)) + mul(float3(0, 1, 0), m);
    float2x3 a = float2x3(float3(1, 2, 3), float3(4, 5, 6));
    float3x2 t = transpose(a);
    float2x3 b = a * 2.0 + a * a;
    float arr[4] = { 1.0, 2.0, 3.0, 4.0 };
    int i = int(tid.x) % 4;
    arr[i] = m[1][2] + t[2][1] + b[1].z + determinant(m);
    float s = 0;
    for (int k = 0; k < 4; k++) s += arr[k];
    out[tid.x] = s + v.y + m[i % 3].x;
}
"#,
    );
}

#[test]
fn integer_operations_and_intrinsics() {
    compile_all(
        r#"
static const int kCount = 4;
static const float kScale = 0.5;

RWStructuredBuffer<uint> bits;
RWStructuredBuffer<float> values;

[numthreads(kCount, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint x = tid.x;
    uint y = (x << 3) | (x >> 1) ^ 0xF0u;
    int z = -int(x) % 3 + (~int(x) & 7);
    bits[x] = y + uint(z) + gi;
    float f = float(x) * kScale;
    values[x] = sin(f) + cos(f) + exp(f) + log(f + 1) + pow(f, 2) + tan(f * 0.1) + exp2(f) + log2(f + 2)
        + rsqrt(f + 1) + frac(f) + floor(f) + ceil(f) + round(f) + trunc(f) + sign(f) + saturate(f)
        + step(0.5, f) + smoothstep(0.0, 1.0, f) + atan2(f, 1.0) + mad(f, 2.0, 1.0) + min(f, 1) + fmod(f, 2.0);
}
"#,
    );
}

#[test]
fn struct_buffers() {
    compile_all(
        r#"
struct Particle { float3 position; float mass; float3 velocity; };

RWStructuredBuffer<Particle> particles;

[numthreads(32, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    Particle p = particles[tid.x];
    p.velocity += float3(0, -9.8, 0) * 0.01;
    p.position += p.velocity * 0.01;
    particles[tid.x] = p;
    particles[tid.x].mass *= 0.99;
}
"#,
    );
}

/// The conventions the reference compiler uses for WGSL: `floatRxC` is
/// `matRxC` (a Slang row is a WGSL column), `mul(v, m)` is `m * v`.
#[test]
fn matrix_conventions_match_the_reference() {
    let wgsl = compile_all(
        r#"
RWStructuredBuffer<float> out;
[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    float2x3 a = float2x3(float3(1, 2, 3), float3(4, 5, 6));
    float3 v = mul(float2(1, 1), a);
    float2 w = mul(a, float3(1, 0, 0));
    out[tid.x] = v.x + w.y + a[1][2];
}
"#,
    );
    assert!(wgsl.contains("mat2x3<f32>(vec3<f32>(1f, 2f, 3f), vec3<f32>(4f, 5f, 6f))"), "{wgsl}");
    assert!(wgsl.contains("* vec2<f32>(1f, 1f)"), "{wgsl}");
    assert!(wgsl.contains("(vec3<f32>(1f, 0f, 0f) *"), "{wgsl}");
}

fn compile_error(src: &str) -> String {
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    match compile(&db, file, "computeMain", Target::Wgsl) {
        Ok(_) => panic!("compiled"),
        Err(errors) => errors.iter().map(|e| show_error(src, e)).collect::<Vec<_>>().join("\n"),
    }
}

#[test]
fn unsupported_code_is_an_error_at_its_source() {
    let no_conforming = r#"
interface IValue { float get(); };
float read(IValue x) { return x.get(); }
RWStructuredBuffer<float> out;
[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID) { IValue v; out[tid.x] = read(v); }
"#;
    let e = compile_error(no_conforming);
    assert!(e.contains("no type of the program conforms to `IValue`, so no value of it can exist"), "{e}");

    // (A `[mutating]` method cannot satisfy a requirement that is not.)
    let mutating = r#"
interface ICounter { void bump(); float get(); };
struct C : ICounter { float n; [mutating] void bump() { n += 1.0; } float get() { return n; } };
void bumpIt(ICounter c) { c.bump(); }
RWStructuredBuffer<float> out;
[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID) { C c = { 1.0 }; bumpIt(c); out[tid.x] = c.get(); }
"#;
    let e = compile_error(mutating);
    assert!(e.starts_with("`C.bump` is `[mutating]` but `ICounter.bump` is not at `c.bump()`"), "{e}");

    let texture = r#"
Texture2DMS<float4> tex;
RWStructuredBuffer<float4> out;
[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID) { out[tid.x] = tex.Load(int2(0, 0), 0); }
"#;
    expect![["`Texture2DMS` is not supported by code generation yet at `tex`"]].assert_eq(&compile_error(texture));

    let no_format = r#"
RWTexture2D<float3> tex;
RWStructuredBuffer<float3> out;
[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID) { out[tid.x] = tex[int2(0, 0)]; }
"#;
    assert!(
        compile_error(no_format)
            .contains("a writable texture of `float3` has no storage format (1, 2 or 4 components)"),
        "{}",
        compile_error(no_format)
    );

    let unbound = r#"
struct View { RWStructuredBuffer<float> buffer; int offset; };
RWStructuredBuffer<float> out;
[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID) { View v; v.offset = 1; v.buffer[tid.x] = 1.0; }
"#;
    expect![["the buffer held by `buffer` is not known here: assign it a global buffer first at `v.buffer`"]]
        .assert_eq(&compile_error(unbound));

    // Recursion, direct and through another function (slangc: E55201).
    let direct = r#"
RWStructuredBuffer<float> out;
float rec(int n) { if (n > 0) return rec(n - 1); return 1.0; }
[numthreads(1, 1, 1)]
void computeMain() { out[0] = rec(2); }
"#;
    expect![["recursion: `rec` calls itself, and GPU targets do not allow recursion at `rec(n - 1)`"]]
        .assert_eq(&compile_error(direct));
    let indirect = r#"
RWStructuredBuffer<float> out;
float b(int n);
float a(int n) { if (n > 0) return b(n - 1); return 1.0; }
float b(int n) { return a(n) * 2.0; }
[numthreads(1, 1, 1)]
void computeMain() { out[0] = a(2); }
"#;
    expect![["recursion: `b` calls `a`, which leads back to it, and GPU targets do not allow recursion at `a(n)`"]]
        .assert_eq(&compile_error(indirect));

    let no_entry = "void main() {}";
    expect![["no function named `computeMain`"]].assert_eq(&compile_error(no_entry));

    let semantic_error = r#"
[numthreads(1, 1, 1)]
void computeMain() { undefinedThing = 1; }
"#;
    assert!(compile_error(semantic_error).contains("undefinedThing"));

    // (slangc compares element-wise into a `bool2x2`.)
    let matrix_compare = r#"
RWStructuredBuffer<float> out;
[numthreads(1, 1, 1)]
void computeMain() { float2x2 m = float2x2(1, -2, 3, -4); out[0] = all(m > float2x2(0)) ? 1.0 : 0.0; }
"#;
    expect![["comparing matrices (a matrix of `bool`) is not supported by code generation yet at `m > float2x2(0)`"]]
        .assert_eq(&compile_error(matrix_compare));
}

/// Methods (with `this`, `[mutating]`, static, `__init`) and generic
/// functions and structs, specialized per instantiation, through every
/// target.
#[test]
fn methods_and_generics() {
    let wgsl = compile_all(
        r#"
interface IScale { [mutating] void scale(float k); float value(); };
struct Box<T : __BuiltinFloatingPointType> : IScale
{
    T v;
    __init(T x) { v = x; }
    [mutating] void scale(float k) { v = v * T(k); }
    float value() { return float(v); }
    static Box<T> one() { return Box<T>(T(1.0)); }
};
float scaled<S : IScale>(S s, float k) { S t = s; t.scale(k); return t.value(); }
RWStructuredBuffer<float> out;
[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    Box<float> b = Box<float>(2.0);
    out[tid.x] = scaled(b, 3.0) + Box<float>.one().value();
}
"#,
    );
    assert!(wgsl.contains("fn Box_float_scale(this_: ptr<function, Box_float>, k: f32)"), "{wgsl}");
    assert!(wgsl.contains("fn scaled_Box_float(s: Box_float, "), "{wgsl}");
    assert!(wgsl.contains("fn Box_float_init(x: f32) -> Box_float"), "{wgsl}");
}

#[test]
fn function_as_slang() {
    let src = r#"
void accumulate(inout float acc, float x, out int count)
{
    for (int i = 0; i < 3; i++)
    {
        if (x > 1.0 && i > 0)
            acc += x;
        else
            acc -= 1;
    }
    count = 3;
}
"#;
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let module = slang_codegen::lower_function(&db, file, "accumulate").unwrap_or_else(|e| panic!("{e:?}"));
    let f = &module.functions[0];
    expect![[r#"
        void accumulate(inout float acc, float x, out int count)
        {
            int _34;
            bool _14;
            _34 = 0;
            for (;;)
            {
                bool _10 = _34 < 3;
                if (_10)
                {
                }
                else
                {
                    break;
                }
                bool _13 = x > 1.0;
                if (_13)
                {
                    bool _17 = _34 > 0;
                    _14 = _17;
                }
                else
                {
                    _14 = false;
                }
                if (_14)
                {
                    float _19 = acc;
                    float _21 = _19 + x;
                    acc = _21;
                }
                else
                {
                    float _23 = acc;
                    float _26 = _23 - 1.0;
                    acc = _26;
                }
                // continue:
                int _30 = _34 + 1;
                _34 = _30;
            }
            count = 3;
            return;
        }
    "#]]
    .assert_eq(&print::print_function_as_slang(&module, f));
}

/// Reverse mode keeps a callee's intermediate context inside the caller's
/// (its primal-context function runs in the caller's primal part, its
/// backward-propagation function in the backward part), unless the callee
/// is `[PreferRecompute]`: then the caller's backward part calls the
/// callee's whole backward derivative, which recomputes its primal.
#[test]
fn callee_contexts_nest_unless_prefer_recompute() {
    let source = |attr: &str| {
        format!(
            "[Differentiable]{attr}\nfloat sq(float x) {{ return x * x * sin(x); }}\n\
             [Differentiable]\nfloat outer(float x) {{ return sq(x * 2.0) + x; }}\n"
        )
    };
    let backward = |src: &str| {
        let mut db = RootDatabase::new();
        let file = db.set_file("/test.slang", src);
        let def = slang_analysis::autodiff::functions_named(&db, file, "outer")[0];
        slang_codegen::backward_derivative_source(&db, def).unwrap_or_else(|e| panic!("{e:?}"))
    };
    let nested = backward(&source(""));
    assert!(nested.contains("sq_Intermediates"), "{nested}");
    assert!(nested.contains("s_primal_ctx_sq("), "{nested}");
    assert!(nested.contains("s_bwd_prop_sq("), "{nested}");
    let recomputed = backward(&source("\n[PreferRecompute]"));
    let prop = recomputed.split("void s_bwd_prop_outer").nth(1).expect("the backward-propagation function");
    let prop = prop.split("\n}\n").next().expect("its body");
    assert!(prop.contains("s_bwd_sq("), "{recomputed}");
    assert!(!prop.contains("s_bwd_prop_sq("), "{recomputed}");
}

/// The control-flow normalization of reverse mode, before and after, on a
/// function with an early return, a `continue` and a `break`: exits become
/// flags, the rest of each region runs under "no exit yet", the loop
/// leaves at the end of an iteration. (That it computes the same is
/// checked on every compute test: `normalized_control_flow_computes_the_same`
/// in tests/runner.rs.)
#[test]
fn control_flow_normalization_before_and_after() {
    let src = r#"
float f(float x, int n)
{
    if (x < 0.0)
        return 0.0;
    float s = 0.0;
    for (int i = 0; i < n; i++)
    {
        if (i == 1)
            continue;
        s += x;
        if (s > 10.0)
            break;
    }
    return s;
}
"#;
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let mut module = slang_codegen::lower_function(&db, file, "f").unwrap_or_else(|e| panic!("{e:?}"));
    let f = slang_codegen::ir::FuncId(module.functions.iter().position(|g| g.name == "f").unwrap() as u32);
    let before = print::print_function_as_slang(&module, module.function(f));
    slang_codegen::autodiff::rev::normalize(&mut module, f).unwrap();
    slang_codegen::mem2reg::run(&mut module);
    slang_codegen::dce::run(&mut module);
    slang_codegen::validate::validate_module(&module).unwrap();
    let after = print::print_function_as_slang(&module, module.function(f));
    assert!(before.contains("return 0.0;") && before.contains("break;"), "{before}");
    // One `return`, at the end; the only `break` leaves the loop at the
    // end of an iteration.
    assert_eq!(after.matches("return").count(), 1, "{after}");
    assert!(after.trim_end().trim_end_matches('}').trim_end().ends_with(';'), "{after}");
    assert_eq!(after.matches("break;").count(), 1, "{after}");
    expect![[r#"
        float f(float x, int n)
        {
            bool _167;
            float _232;
            float _231;
            int _168;
            int _169;
            float _170;
            bool _174;
            float _194;
            float _225;
            bool _173;
            float _224;
            bool _189;
            float _192;
            float _223;
            bool _180;
            float _196;
            bool _190;
            float _195;
            float _227;
            bool _183;
            float _230;
            float _197;
            int _214;
            float _215;
            bool _9 = x < 0.0;
            if (_9)
            {
                _167 = true;
                _232 = 0.0;
            }
            else
            {
                _167 = false;
                _232 = 0.0;
            }
            bool _20 = !_167;
            if (_20)
            {
                _168 = 0;
                _169 = 0;
                _170 = 0.0;
                _174 = false;
                _194 = 0.0;
                _225 = 0.0;
                for (;;)
                {
                    int _53 = _168 + 1;
                    bool _60 = _169 < n;
                    if (_60)
                    {
                        _173 = _174;
                        _224 = _225;
                    }
                    else
                    {
                        _173 = true;
                        _224 = _170;
                    }
                    bool _75 = _167 || _173;
                    bool _77 = _75 || false;
                    bool _78 = !_77;
                    if (_78)
                    {
                        bool _86 = _169 == 1;
                        if (_86)
                        {
                            _180 = true;
                            _196 = _170;
                        }
                        else
                        {
                            _180 = false;
                            _196 = _194;
                        }
                        bool _101 = _167 || _173;
                        bool _103 = _101 || _180;
                        bool _104 = !_103;
                        if (_104)
                        {
                            float _106 = _170 + x;
                            bool _118 = _106 > 10.0;
                            if (_118)
                            {
                                _183 = true;
                                _230 = _106;
                            }
                            else
                            {
                                _183 = _173;
                                _230 = _224;
                            }
                            bool _130 = _167 || _183;
                            bool _132 = _130 || _180;
                            bool _133 = !_132;
                            if (_133)
                            {
                                _197 = _106;
                            }
                            else
                            {
                                _197 = _196;
                            }
                            _190 = _183;
                            _195 = _197;
                            _227 = _230;
                        }
                        else
                        {
                            _190 = _173;
                            _195 = _196;
                            _227 = _224;
                        }
                        _189 = _190;
                        _192 = _195;
                        _223 = _227;
                    }
                    else
                    {
                        _189 = _173;
                        _192 = _194;
                        _223 = _224;
                    }
                    bool _138 = _167 || _189;
                    bool _139 = !_138;
                    if (_139)
                    {
                        int _148 = _169 + 1;
                        _214 = _148;
                        _215 = _192;
                    }
                    else
                    {
                        _214 = _169;
                        _215 = _170;
                    }
                    bool _159 = _167 || _189;
                    if (_159)
                    {
                        break;
                    }
                    else
                    {
                        continue;
                    }
                    // continue:
                    _168 = _53;
                    _169 = _214;
                    _170 = _215;
                    _174 = _189;
                    _194 = _192;
                    _225 = _223;
                }
                _231 = _223;
            }
            else
            {
                _231 = _232;
            }
            return _231;
        }
    "#]]
    .assert_eq(&after);
}

/// `[ForceUnroll]` as an IR-to-IR pass, before and after: a loop whose
/// count the pass finds from `static const` bounds becomes that many
/// copies of its body, one after the other, with no loop left; the
/// value after the loop is the last copy's.
#[test]
fn force_unroll_before_and_after() {
    let src = r#"
static const int N = 3;
float f(float x)
{
    float s = 1.0;
    for (int i = 0; i < N; i++)
    {
        if (s > 4.0)
            s = s * 0.5;
        s = s * x + float(i);
    }
    return s;
}
"#;
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let mut module = slang_codegen::lower_function(&db, file, "f").unwrap_or_else(|e| panic!("{e:?}"));
    let id = module.functions.iter().position(|g| g.name == "f").unwrap();
    let before = print::print_function_as_slang(&module, &module.functions[id]);
    assert!(before.contains("for (;;)"), "{before}");
    // Mark the loop as `[ForceUnroll]` would.
    let f = &mut module.functions[id];
    let header = f
        .blocks
        .iter()
        .find_map(|b| match b.term {
            slang_codegen::ir::Terminator::Loop { header, .. } => Some(header),
            _ => None,
        })
        .expect("a loop");
    f.force_unroll.push((header, None, false));
    slang_codegen::unroll::unroll_function(f, &module.types).unwrap();
    slang_codegen::dce::run(&mut module);
    slang_codegen::validate::validate_module(&module).unwrap();
    let after = print::print_function_as_slang(&module, &module.functions[id]);
    assert!(!after.contains("for (;;)"), "{after}");
    assert_eq!(after.matches("if (").count(), 3, "{after}");
    expect![[r#"
        float f(float x)
        {
            float _47;
            float _61;
            float _75;
            bool _42 = 1.0 > 4.0;
            if (_42)
            {
                float _46 = 1.0 * 0.5;
                _47 = _46;
            }
            else
            {
                _47 = 1.0;
            }
            float _48 = _47 * x;
            float _49 = float(0);
            float _50 = _48 + _49;
            int _44 = 0 + 1;
            bool _56 = _50 > 4.0;
            if (_56)
            {
                float _60 = _50 * 0.5;
                _61 = _60;
            }
            else
            {
                _61 = _50;
            }
            float _62 = _61 * x;
            float _63 = float(_44);
            float _64 = _62 + _63;
            int _58 = _44 + 1;
            bool _70 = _64 > 4.0;
            if (_70)
            {
                float _74 = _64 * 0.5;
                _75 = _74;
            }
            else
            {
                _75 = _64;
            }
            float _76 = _75 * x;
            float _77 = float(_58);
            float _78 = _76 + _77;
            return _78;
        }
    "#]]
    .assert_eq(&after);
}

/// A `[ForceUnroll]` loop whose count is not a compile-time constant is an
/// error at the loop (as in the reference compiler), unless a bound is
/// written.
#[test]
fn force_unroll_needs_a_constant_count() {
    let src = |attr: &str| {
        format!(
            "RWStructuredBuffer<float> o;\nuniform int n;\n[numthreads(1,1,1)]\nvoid main() {{ float s = 0; {attr}\n    for (int i = 0; i < n; i++) s += 1.0; o[0] = s; }}\n"
        )
    };
    let mut db = RootDatabase::new();
    let text = src("[ForceUnroll]");
    let file = db.set_file("/test.slang", &text);
    let errors = lower_entry_point(&db, file, "main").expect_err("not unrollable");
    assert!(errors[0].message.contains("loop unrolling failed"), "{errors:?}");
    let range = errors[0].range.expect("a range");
    assert!(text[usize::from(range.start())..].starts_with("for (int i = 0; i < n"), "{errors:?}");
    let file = db.set_file("/test.slang", &src("[ForceUnroll(8)]"));
    lower_entry_point(&db, file, "main").unwrap_or_else(|e| panic!("{e:?}"));
}

/// What reverse mode saves for the backward part: cheap values are
/// recomputed from what their iteration (or the function's inputs) gave,
/// unless the function is `[PreferCheckpoint]`; unrolling the inner loop of
/// the paper's long-loop example leaves only the outer loop's state saved.
#[test]
fn recomputation_and_unrolling_shrink_the_context() {
    let size = |src: &str, name: &str| {
        let mut db = RootDatabase::new();
        let file = db.set_file("/test.slang", src);
        let def = slang_analysis::autodiff::functions_named(&db, file, name)[0];
        slang_codegen::backward_context_size(&db, def).unwrap_or_else(|e| panic!("{e:?}"))
    };
    // sin(x*x)*x: everything the backward part needs (x*x, sin and cos of
    // it, x) comes from the input again: nothing is saved; checkpointed:
    // x*x and sin(x*x), two floats.
    let straight = "float f(float x) { float a = x * x; return sin(a) * x; }";
    assert_eq!(size(&format!("[Differentiable]\n{straight}"), "f"), (0, 0));
    assert_eq!(size(&format!("[Differentiable][PreferCheckpoint]\n{straight}"), "f"), (8, 2));
    let taylor = |inner: &str| {
        format!(
            "static const int N = 17;\nstatic const int U = 4;\n[Differentiable]\nfloat t(float x)\n{{\n    float sum = 0;\n    float term = x;\n    [MaxIters(4)]\n    for (int i = 1; i < N; i += U)\n    {{\n        {inner}\n        for (int k = 0; k < U; k++)\n        {{\n            int j = i + k;\n            sum += term;\n            term *= -x * x / ((2.0 * j) * (2.0 * j + 1.0));\n        }}\n    }}\n    return sum;\n}}\n"
        )
    };
    let (unrolled, _) = size(&taylor("[ForceUnroll]"), "t");
    let (looped, _) = size(&taylor("[MaxIters(4)]"), "t");
    // Per outer iteration (5 slots) the unrolled form keeps the counter,
    // `term`, and a few flags; the loop keeps values per inner iteration
    // too (5 × 5 slots).
    assert!(unrolled * 3 < looped, "unrolled {unrolled} B, looped {looped} B");
    assert!(unrolled <= 5 * 4 * 5, "unrolled {unrolled} B");
}

/// Reverse mode pass by pass (`backward_derivative_passes`, also
/// `slang-analyzer derive --passes`): the primal, its normalized control
/// flow, transcription in two passes — unzip (the primal blocks of
/// `s_bwd_f`) and transpose (the differential blocks after them, in
/// reverse) —, checkpointing, and the extracted halves with the wrapper
/// calling them. Each stage's IR validates (the function
/// checks), and `tests/runner.rs` runs the autodiff compute tests with and
/// without the extraction.
#[test]
fn reverse_mode_passes_before_and_after() {
    let src = r#"
[Differentiable]
float f(float x, float y)
{
    float s = x * y;
    if (s > 1.0)
        s = sin(s);
    return s * x;
}
"#;
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let def = slang_analysis::autodiff::functions_named(&db, file, "f")[0];
    let passes = slang_codegen::backward_derivative_passes(&db, def).unwrap_or_else(|e| panic!("{e:?}"));
    let names: Vec<&str> = passes.iter().map(|p| p.0).collect();
    assert_eq!(names, ["primal", "normalize", "linearize", "unzip", "transpose", "checkpoint", "extract"]);
    let ir = |name: &str| passes.iter().find(|p| p.0 == name).unwrap().1.clone();
    // The primal: one `if` merging `s` into a block parameter.
    assert!(ir("primal").contains("sin(") && ir("primal").contains("if "), "{}", ir("primal"));
    // Unzipped: the primal blocks only (sin, no derivative yet), ending in
    // the empty block where the backward part will start; transposition
    // leaves them as they are and appends the differential blocks.
    let u = ir("unzip");
    assert!(u.starts_with("func s_bwd_f(") && u.contains("sin(") && !u.contains("cos("), "{u}");
    let last_block = u.rfind("\nb").unwrap();
    assert_eq!(u[last_block + 1..].lines().nth(1), Some("  return"), "{u}");
    let primal_blocks = &u[u.find("\nb1:").unwrap()..last_block];
    assert!(ir("transpose").contains(primal_blocks), "{u}\n{}", ir("transpose"));
    // Transcribed: one function, `s_bwd_f`, computing the primal (sin)
    // and then the backward part (its derivative cos, the adjoint of the
    // result `dResult` read); every primal value is saved as it is
    // computed: `x * y`, the branch condition, `sin`, `s` after the
    // branch, the result.
    let t = ir("transpose");
    assert!(t.starts_with("// saves 20 bytes per thread (5 values)\nfunc s_bwd_f("), "{t}");
    // Checkpointing: `x * y` and the condition are recomputed from the
    // parameters (for the condition of the reversed `if`, and for `cos`);
    // so is `s` after the branch (a `select` of the two sides' values, as
    // the reference compiler saves nothing for such a merge: its
    // `reverse-checkpoint-2` test); the saves no one reads (`sin`, the
    // result) are dropped.
    let c = ir("checkpoint");
    assert!(c.starts_with("// saves 0 bytes per thread (0 values)\nfunc s_bwd_f("), "{c}");
    let (primal_part, backward_part) = t.split_at(t.find("cos(").expect("the backward part"));
    assert!(primal_part.contains("sin("), "{t}");
    assert!(backward_part.contains("add") && !backward_part.contains("sin("), "{t}");
    assert_eq!(t.matches("\nfunc ").count(), 1, "{t}");
    let (_, backward_part) = c.split_at(c.find("cos(").expect("the backward part"));
    assert!(backward_part.contains("mul %") && !backward_part.contains("sin("), "{c}");
    // Extracted: the primal-context function (writing the context), the
    // backward-propagation function (reading it), the wrapper.
    let e = ir("extract");
    let funcs: Vec<&str> = e.lines().filter(|l| l.starts_with("func ")).map(|l| l.split('(').next().unwrap()).collect();
    assert_eq!(funcs, ["func s_primal_ctx_f", "func s_bwd_prop_f", "func s_bwd_f"], "{e}");
    let wrapper = e.split("func s_bwd_f").nth(1).unwrap();
    assert!(wrapper.contains("call s_primal_ctx_f(") && wrapper.contains("call s_bwd_prop_f("), "{e}");
    let primal_ctx = e.split("func s_bwd_prop_f").next().unwrap();
    assert!(primal_ctx.contains("sin(") && !primal_ctx.contains("cos("), "{e}");
    assert!(primal_ctx.contains("f_Intermediates"), "{e}");
}

/// `legalize`: `sin` on a double — the user's and the one the derivative
/// rules emit (`cos` for d sin) — is computed in `float`, between
/// conversions; `sqrt` (which Vulkan has for doubles) stays.
#[test]
fn double_transcendentals_are_computed_in_float() {
    check_ir(
        r#"
RWStructuredBuffer<float> output;
[Differentiable]
double f(double x) { return sin(x) + sqrt(x); }
[numthreads(1, 1, 1)]
void computeMain()
{
    output[0] = float(fwd_diff(f)(diffPair(0.5lf, 1.0lf)).d);
}
"#,
        expect![[r#"
            global g0 output: float[] [set 0, binding 0, read_write]

            [numthreads(1, 1, 1)]
            func computeMain() -> void {
            b0:
              %0: Ptr<float[], storage> = global output
              %1: int = const 0
              %2: Ptr<float, storage> = element_addr %0, %1
              %3: double = const 0.5
              %4: double = const 1.0
              %5: DiffPair_double = construct %3, %4
              %6: DiffPair_double = call s_fwd_f(%5)
              %7: double = extract %6, 1
              %8: float = convert %7
              store %2, %8
              return
            }

            func f(x: double) -> double {
            b0(%0: double):
              %8: float = convert %0
              %9: float = sin(%8)
              %4: double = convert %9
              %6: double = sqrt(%0)
              %7: double = add %4, %6
              return %7
            }

            func s_fwd_f(x: DiffPair_double) -> DiffPair_double {
            b0(%0: DiffPair_double):
              %1: double = extract %0, 0
              %2: double = extract %0, 1
              %16: float = convert %1
              %17: float = sin(%16)
              %3: double = convert %17
              %18: float = convert %1
              %19: float = cos(%18)
              %4: double = convert %19
              %5: double = mul %4, %2
              %6: double = sqrt(%1)
              %7: double = const 0.5
              %8: double = const 1e-7
              %9: double = max(%8, %1)
              %10: double = sqrt(%9)
              %11: double = div %7, %10
              %12: double = mul %11, %2
              %13: double = add %3, %6
              %14: double = add %5, %12
              %15: DiffPair_double = construct %13, %14
              return %15
            }
        "#]],
    );
}

/// The reverse-mode stages of `def` named `name` in `src`, by pass name.
fn reverse_passes(src: &str, name: &str) -> std::collections::HashMap<&'static str, String> {
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let def = slang_analysis::autodiff::functions_named(&db, file, name)[0];
    slang_codegen::backward_derivative_passes(&db, def).unwrap_or_else(|e| panic!("{e:?}")).into_iter().collect()
}

/// The first line of a stage (what it saves) and its backward part: the
/// blocks from the one where the backward part starts (the first block
/// reading `dResult`, the last parameter) on.
fn backward_part(ir: &str) -> String {
    let first = ir.lines().next().unwrap_or_default();
    let entry = ir.lines().find(|l| l.starts_with("b0(")).expect("an entry block");
    let d_result = entry.rsplit(", ").next().unwrap().split(':').next().unwrap().to_string();
    let mut offset = 0;
    let mut block_start = 0;
    for line in ir.split_inclusive('\n') {
        if line.starts_with('b') {
            block_start = offset;
        } else if !line.starts_with("b0(") && line.split([' ', ',', '(', ')', '\n']).any(|w| w == d_result) {
            return format!("{first}\n{}", &ir[block_start..]);
        }
        offset += line.len();
    }
    panic!("no backward part: {ir}")
}

/// The checkpointing pass, before and after: transcription saves every
/// primal value as it is computed (the buffer read `k`, `a = x * k`,
/// `sin(a)`, the result), and the backward part reads them back; the pass
/// recomputes the arithmetic there (`a` once for its three uses, from the
/// parameter and the saved `k`), keeps the buffer read saved (the buffer
/// may have changed by then) and drops the saves no one reads.
#[test]
fn checkpointing_pass_recomputes_arithmetic_and_keeps_memory_reads() {
    let src = r#"
RWStructuredBuffer<float> w;

[Differentiable]
float f(float x)
{
    float k = w[0];
    float a = x * k;
    return sin(a) * a;
}
"#;
    let passes = reverse_passes(src, "f");
    expect![[r#"
        // saves 16 bytes per thread (4 values)
        b2:
          %31: float = load %28
          %32: float = add %31, %1
          store %28, %32
          %34: float = load %28
          %35: float = load %20
          %36: float = load %17
          %37: float = mul %34, %35
          %38: float = mul %34, %36
          %42: float = load %39
          %43: float = add %42, %38
          store %39, %43
          %48: float = load %45
          %49: float = add %48, %37
          store %45, %49
          %51: float = load %39
          %52: float = load %17
          %53: float = cos(%52)
          %54: float = mul %51, %53
          %55: float = load %45
          %56: float = add %55, %54
          store %45, %56
          %58: float = load %45
          %59: float = load %14
          %60: float = mul %58, %59
          %64: float = load %61
          %65: float = add %64, %60
          store %61, %65
          %67: float = load %61
          %68: Ptr<float> = field_addr %0, 1
          store %68, %67
          return
        }
    "#]]
    .assert_eq(&backward_part(&passes["transpose"]));
    expect![[r#"
        // saves 4 bytes per thread (1 values)
        b2:
          %31: float = load %28
          %32: float = add %31, %1
          store %28, %32
          %34: float = load %28
          %70: float = load %14
          %71: float = mul %3, %70
          %72: float = sin(%71)
          %37: float = mul %34, %72
          %38: float = mul %34, %71
          %42: float = load %39
          %43: float = add %42, %38
          store %39, %43
          %48: float = load %45
          %49: float = add %48, %37
          store %45, %49
          %51: float = load %39
          %53: float = cos(%71)
          %54: float = mul %51, %53
          %55: float = load %45
          %56: float = add %55, %54
          store %45, %56
          %58: float = load %45
          %60: float = mul %58, %70
          %64: float = load %61
          %65: float = add %64, %60
          store %61, %65
          %67: float = load %61
          %68: Ptr<float> = field_addr %0, 1
          store %68, %67
          return
        }
    "#]]
    .assert_eq(&backward_part(&passes["checkpoint"]));
    // The primal part no longer stores what is recomputed: one store of a
    // saved value (`k`) is left before the backward part.
    let c = &passes["checkpoint"];
    let primal_part = &c[c.find("\nb1:").unwrap()..c.find("\nb2:").unwrap()];
    assert!(primal_part.contains("sin(") && primal_part.contains("store %14, %13"), "{c}");
    // `[PreferCheckpoint]`: nothing is recomputed; only the result, which
    // no one reads, is dropped.
    let checkpointed = reverse_passes(&src.replace("[Differentiable]", "[Differentiable][PreferCheckpoint]"), "f");
    assert!(checkpointed["checkpoint"].starts_with("// saves 12 bytes per thread (3 values)\n"));
    assert!(!backward_part(&checkpointed["checkpoint"]).contains("sin("));
}

/// Checkpointing in a loop: transcription saves each iteration's values in
/// arrays indexed by the iteration (`[MaxIters(4)]`: 5 slots); the pass
/// recomputes `t = y * x` in the reversed iteration from that iteration's
/// saved `y` (the state the loop carries, which stays saved), and the loop
/// condition `i < 4` from the saved `i`.
#[test]
fn checkpointing_pass_in_a_loop_recomputes_from_the_iteration_state() {
    let src = r#"
[Differentiable]
float g(float x)
{
    float y = x;
    [MaxIters(4)]
    for (int i = 0; i < 4; i++)
    {
        float t = y * x;
        y = sin(t) + t;
    }
    return y;
}
"#;
    let passes = reverse_passes(src, "g");
    let (before, after) = (&passes["transpose"], &passes["checkpoint"]);
    // Saved per iteration (20 bytes each) before: `i`, `y`, the condition,
    // `t`, `sin(t)`, the new `y`, `i + 1`; and the counter after the loop
    // (before it, in no other loop, it is zero). (Whether the body and the
    // continuing part ran is known from the iteration number: every
    // iteration but the last.) Left: `y` per iteration (`i` is the first
    // value plus the iterations before; the counter after the loop is 5
    // on every call). slangc saves 24 bytes (`y` in 6 slots).
    assert!(before.starts_with("// saves 144 bytes per thread (8 values)\n"), "{before}");
    assert!(after.starts_with("// saves 20 bytes per thread (1 values)\n"), "{after}");
    // In the reversed iteration: `cos` of a product recomputed from a
    // slot of the saved `y` (an element of an array, at the iteration
    // being reversed) and the parameter.
    let back = backward_part(after);
    let cos = back.lines().find(|l| l.contains("cos(")).expect("cos");
    let arg = cos.split("cos(").nth(1).unwrap().trim_end_matches(')');
    let def = back.lines().find(|l| l.trim_start().starts_with(&format!("{arg}:"))).expect("recomputed");
    assert!(def.contains("= mul %"), "{back}");
    let y_slot = def.split("mul ").nth(1).unwrap().split(',').next().unwrap();
    let load = back.lines().find(|l| l.trim_start().starts_with(&format!("{y_slot}:"))).unwrap();
    let ptr = load.split("load ").nth(1).unwrap();
    assert!(
        back.lines().any(|l| l.trim_start().starts_with(&format!("{ptr}:")) && l.contains("element_addr")),
        "{back}"
    );
    // The extracted context is what the pass left.
    assert!(passes["extract"].contains("g_Intermediates"));
}

/// Linearization with tagging, the first pass of transcription: each
/// arithmetic instruction of `f` gets a block of `s_lin_f` holding its
/// Jacobian-vector product by the forward-mode rules — parameters for the
/// operands' primal values, the differentials of those that have one (not
/// the `no_diff` `k`) and the result — with each instruction tagged:
/// `cos` (reading primal values only) primal, the products differential.
/// Transposition then replays the primal part (`cos`, with its operand
/// recomputed or read) and transposes the differential part; `sin` itself
/// is not needed by the backward part.
#[test]
fn linearization_pass_tags_each_instructions_jvp() {
    let passes =
        reverse_passes("[Differentiable]\nfloat f(float x, no_diff float k) { return sin(x * k) + k; }\n", "f");
    expect![[r#"
        func s_lin_f() -> void {
          // f.%8: float = mul f.%0, f.%3
          //   %0 = f.%0, %1 = d(f.%0), %2 = f.%3, %3 = f.%8
        b0(%0: float, %1: float, %2: float, %3: float):
          %4: float = mul %2, %1  [differential]
          return %4
          // f.%9: float = sin(f.%8)
          //   %5 = f.%8, %6 = d(f.%8), %7 = f.%9
        b1(%5: float, %6: float, %7: float):
          %8: float = cos(%5)  [primal]
          %9: float = mul %8, %6  [differential]
          return %9
          // f.%11: float = add f.%9, f.%3
          //   %10 = f.%9, %11 = d(f.%9), %12 = f.%3, %13 = f.%11
        b2(%10: float, %11: float, %12: float, %13: float):
          return %11
        }
    "#]]
    .assert_eq(&passes["linearize"]);
    let back = backward_part(&passes["transpose"]);
    assert!(back.contains("cos(") && !back.contains("sin("), "{back}");
}

/// A pure callee in a loop is called again by the backward pass rather
/// than its context (or result) saved per iteration: what is left is the
/// loop-carried `y` (4 bytes for each of `MaxIters + 1` = 5 slots; the
/// loop runs 4 times on every call, so its count is not saved). slangc
/// saves 24 bytes (`y` in 6 slots).
#[test]
fn checkpointing_recomputes_pure_calls_in_a_loop() {
    let src = r#"
[Differentiable]
float grow(float a, float b) { return a * b + a; }

[Differentiable]
float f(float x)
{
    float y = x;
    [MaxIters(4)]
    for (int i = 0; i < 4; i++)
        y = grow(y, float(i));
    return y;
}
"#;
    let passes = reverse_passes(src, "f");
    let after = &passes["checkpoint"];
    assert!(after.starts_with("// saves 20 bytes per thread (1 values)\n"), "{after}");
    assert!(!passes["extract"].contains("grow_Intermediates"), "{}", passes["extract"]);
}

/// Reverse mode through `[ForceUnroll]` loops reading a struct's array
/// element by element grows linearly: twice the elements, at most ~2.2
/// times the backward derivative (each use of the array does not get an
/// adjoint of the whole array, [`slang_codegen::cse`]).
#[test]
fn unrolled_reverse_mode_grows_linearly() {
    let size = |n: usize| {
        let src = format!(
            r#"
struct Net : IDifferentiable {{ float w[{n}]; }}

[Differentiable]
float f(Net net, float x)
{{
    float y = 0.0;
    [ForceUnroll]
    for (int i = 0; i < {n}; i++)
        y += net.w[i] * x;
    return y;
}}
"#
        );
        reverse_passes(&src, "f")["extract"].len() as f64
    };
    let (small, large) = (size(32), size(64));
    assert!(large / small <= 2.2, "{small} -> {large} bytes of IR");
}

/// A value computed from constants alone outside a loop (`4.0 / 64.0`) is
/// computed again where the loop's reversal uses it, not saved: what is
/// left is the loop-carried `y` (4 bytes for each of 5 slots; slangc: 24
/// bytes, 6 slots).
#[test]
fn checkpointing_recomputes_constant_expressions_in_loops() {
    let src = r#"
[Differentiable]
float f(float x)
{
    const float dt = 4.0 / 64.0;
    float y = x;
    [MaxIters(4)]
    for (int i = 0; i < 4; i++)
        y = y * x + dt * y;
    return y;
}
"#;
    let after = &reverse_passes(src, "f")["checkpoint"];
    assert!(after.starts_with("// saves 20 bytes per thread (1 values)\n"), "{after}");
}

/// The counters of an unrolled loop index a local array with constants in
/// the output (drivers lower a local array indexed otherwise as one read at
/// run time: minutes of pipeline creation on an unrolled MLP).
#[test]
fn unrolled_counters_are_constant_indices() {
    let wgsl = compile_all(
        r#"
RWStructuredBuffer<float> buf;
[numthreads(1, 1, 1)]
void computeMain(uint3 id : SV_DispatchThreadID)
{
    float a[4];
    [ForceUnroll]
    for (int i = 0; i < 4; i++)
        a[i] = buf[i] * 2.0;
    buf[0] = a[0] + a[1] + a[2] + a[3];
}
"#,
    );
    assert!(!wgsl.contains("+ 1i)"), "a counter is still computed:\n{wgsl}");
}
