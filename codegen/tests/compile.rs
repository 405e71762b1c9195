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
