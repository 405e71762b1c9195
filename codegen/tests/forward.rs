//! Forward-mode automatic differentiation: programs using `fwd_diff`
//! compile through every pass (the IR validator runs after each) to all
//! five targets with naga validation; snapshots of generated derivatives
//! (read them: they are the mathematics of the source).

use expect_test::{expect, Expect};
use slang_analysis::RootDatabase;
use slang_codegen::{compile, lower_entry_point, print, Output, Target};

const TARGETS: [Target; 5] = [Target::Wgsl, Target::SpirV, Target::Glsl, Target::Hlsl, Target::Msl];

/// Compile `src`'s entry point `computeMain` to every target.
fn compile_all(src: &str) {
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    for target in TARGETS {
        match compile(&db, file, "computeMain", target) {
            Ok(Output::Text(_)) => {}
            Ok(Output::Binary(words)) => assert!(words.len() > 5 && words[0] == 0x0723_0203, "not SPIR-V"),
            Err(errors) => {
                let shown: Vec<String> = errors
                    .iter()
                    .map(|e| match e.range {
                        Some(r) => {
                            format!("{} at `{}`", e.message, src.get(std::ops::Range::<usize>::from(r)).unwrap_or("?"))
                        }
                        None => e.message.clone(),
                    })
                    .collect();
                panic!("{target:?} failed:\n{}", shown.join("\n"));
            }
        }
    }
}

/// The Slang view of the function `name` of `src`'s compiled module.
fn check_function(src: &str, name: &str, expect: Expect) {
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let module = lower_entry_point(&db, file, "computeMain").unwrap_or_else(|e| panic!("{e:?}"));
    let f = module.functions.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no function {name}"));
    expect.assert_eq(&print::print_function_as_slang(&module, f));
}

/// `src` with `body` as the body of `computeMain`, writing `outputBuffer`.
fn program(decls: &str, body: &str) -> String {
    format!(
        "RWStructuredBuffer<float> outputBuffer;\n{decls}\n[numthreads(1, 1, 1)]\nvoid computeMain(uint3 tid : SV_DispatchThreadID)\n{{\n{body}\n}}\n"
    )
}

#[test]
fn arithmetic_and_intrinsics() {
    compile_all(&program(
        r#"
[Differentiable]
float f(float x, float y)
{
    float a = x * y + x / y - (-x);
    float b = sin(x) + cos(y) + tan(x) + asin(0.5 * x) + acos(0.5 * y) + atan(x) + atan2(y, x);
    float c = sinh(x) + cosh(x) + tanh(x) + exp(x) + exp2(x) + log(y) + log2(y);
    float d = pow(x, y) + sqrt(y) + rsqrt(y) + abs(x) + frac(x) + no_diff floor(x) + no_diff ceil(y) + no_diff round(x);
    float e = min(x, y) + max(x, y) + clamp(x, 0.0, y) + saturate(x) + lerp(x, y, 0.25);
    float g = fmod(x, y) + mad(x, y, x) + no_diff step(x, y) + sign(x) + no_diff trunc(y);
    return a + b + c + d + e + g;
}
"#,
        "let r = fwd_diff(f)(diffPair(0.5, 1.0), diffPair(2.0, 0.5));\noutputBuffer[0] = r.p;\noutputBuffer[1] = r.d;",
    ));
}

#[test]
fn vectors_and_matrices() {
    compile_all(&program(
        r#"
[Differentiable]
float3 f(float3 v, float3 w, float3x3 m, float2x2 n)
{
    float3 a = v * w + v.zyx * 2.0;
    float l = length(v) + distance(v, w) + dot(v, w) + determinant(m) + determinant(n);
    float3 b = normalize(v) + cross(v, w) + reflect(v, normalize(w)) + mul(m, v) + mul(v, m);
    float3x3 t = transpose(m) * 2.0;
    float3 c = float3(a.x, b.y, l) + t[1];
    c.y = c.y * v.x;
    return c;
}
"#,
        r#"
float3x3 m = float3x3(1, 2, 3, 0, 1, 4, 5, 6, 0);
let r = fwd_diff(f)(diffPair(float3(1, 2, 3), float3(1, 0, 0)), diffPair(float3(0, 1, 1), float3(0)),
                    diffPair(m, float3x3(0, 0, 0, 0, 1, 0, 0, 0, 0)), diffPair(float2x2(1, 2, 3, 4), float2x2(1, 0, 0, 1)));
outputBuffer[0] = r.d.x;
outputBuffer[1] = r.d.y + r.d.z + r.p.x;
"#,
    ));
}

#[test]
fn control_flow() {
    compile_all(&program(
        r#"
[Differentiable]
float f(float x, int n)
{
    float y = x;
    [MaxIters(8)]
    for (int i = 0; i < n; i++)
    {
        if (y > 10.0)
            break;
        y = y * x;
    }
    if (x > 0.0)
        y = y + sin(x);
    else
        y = y - x;
    switch (n)
    {
    case 0: y = y * 2.0; break;
    case 1: y = y * x; break;
    default: y = -y; break;
    }
    float z = x > 1.0 ? y : x * x;
    [MaxIters(4)]
    while (z > 100.0) z = z * 0.5;
    return z;
}
"#,
        "let r = fwd_diff(f)(diffPair(1.5, 1.0), 3);\noutputBuffer[0] = r.d;",
    ));
}

#[test]
fn inout_out_and_calls() {
    compile_all(&program(
        r#"
[Differentiable]
float sq(float x) { return x * x; }

[Differentiable]
void g(float x, inout float acc, out float twice)
{
    acc = acc * x + sq(x);
    twice = 2.0 * x;
}

[Differentiable]
float f(float x)
{
    float acc = 1.0;
    float t;
    g(x, acc, t);
    return acc + t + sq(t);
}
"#,
        r#"
outputBuffer[0] = fwd_diff(f)(diffPair(2.0, 1.0)).d;
var acc = diffPair(3.0, 1.0);
DifferentialPair<float> t;
fwd_diff(g)(diffPair(2.0, 1.0), acc, t);
outputBuffer[1] = acc.d + t.d;
"#,
    ));
}

#[test]
fn structs_and_arrays() {
    compile_all(&program(
        r#"
struct Particle : IDifferentiable
{
    float3 position;
    float mass;
    no_diff float id;
    int count;
}

[Differentiable]
Particle step(Particle p, float dt)
{
    Particle q = p;
    q.position = p.position + dt * float3(p.mass, 1.0, 0.0);
    q.mass = p.mass * 0.5;
    return q;
}

[Differentiable]
float sum(float a[4], int k)
{
    float arr[4] = a;
    float s = 0.0;
    for (int i = 0; i < 4; i++)
        s += arr[i] * arr[(i + k) % 4];
    arr[k] = s;
    return arr[k] + arr[0];
}
"#,
        r#"
Particle p = { float3(1, 2, 3), 2.0, 7.0, 1 };
Particle.Differential dp = { float3(1, 0, 0), 1.0 };
let r = fwd_diff(step)(diffPair(p, dp), diffPair(0.1, 0.0));
outputBuffer[0] = r.d.position.x + r.d.mass + r.p.id;
float a[4] = { 1.0, 2.0, 3.0, 4.0 };
float da[4] = { 1.0, 0.0, 0.0, 0.0 };
outputBuffer[1] = fwd_diff(sum)(diffPair(a, da), 1).d;
"#,
    ));
}

#[test]
fn custom_derivatives_substitutes_and_no_diff() {
    compile_all(&program(
        r#"
DifferentialPair<float> cube_fwd(DifferentialPair<float> x)
{
    return diffPair(x.p * x.p * x.p, 3.0 * x.p * x.p * x.d);
}

[ForwardDerivative(cube_fwd)]
float cube(float x) { return x * x * x; }

float square(float x) { return x * x; }

[ForwardDerivativeOf(square)]
DifferentialPair<float> square_fwd(DifferentialPair<float> x)
{
    return diffPair(x.p * x.p, 2.0 * x.p * x.d);
}

[Differentiable]
float twice_reference(float x) { return x + x; }

[PrimalSubstitute(twice_reference)]
float twice(float x) { return 2.0 * x; }

[TreatAsDifferentiable]
float opaque(float x) { return x * 100.0; }

float plain(float x) { return x * 3.0; }

// Forward-differentiable: `cube` and `square` have forward derivatives only.
[ForwardDifferentiable]
float f(float x, no_diff float k)
{
    return cube(x) + square(x) + twice(x) + opaque(x) + no_diff plain(x) + detach(x * k) + k * x;
}
"#,
        r#"
outputBuffer[0] = fwd_diff(f)(diffPair(2.0, 1.0), 3.0).d;
outputBuffer[1] = fwd_diff(cube)(diffPair(2.0, 1.0)).d + fwd_diff(opaque)(diffPair(2.0, 1.0)).d;
"#,
    ));
}

#[test]
fn higher_order() {
    compile_all(&program(
        r#"
[Differentiable]
float f(float x) { return x * x * sin(x); }
"#,
        r#"
let r = fwd_diff(fwd_diff(f))(diffPair(diffPair(1.0, 1.0), diffPair(1.0, 0.0)));
outputBuffer[0] = r.d.d;
let r3 = fwd_diff(fwd_diff(fwd_diff(sin)))(diffPair(diffPair(diffPair(1.0, 1.0), diffPair(1.0, 0.0)),
                                                    diffPair(diffPair(1.0, 0.0), diffPair(0.0, 0.0))));
outputBuffer[1] = r3.d.d.d;
"#,
    ));
}

#[test]
fn pair_api() {
    compile_all(&program(
        "",
        r#"
DifferentialPair<float3> p = DifferentialPair<float3>(float3(1, 2, 3), float3.dzero());
var q = diffPair(2.0);
updateDiff(q, 5.0);
updatePrimal(q, q.getPrimal() + 1.0);
updatePair(p, p.v, float3(1.0));
outputBuffer[0] = q.d + q.p + p.getDifferential().x + detach(p.p.y);
"#,
    ));
}

#[test]
fn derivative_of_a_product_with_a_call() {
    // d(x sin(x) k + x²) = (sin(x) + x cos(x)) k dx + 2 x dx; `k` is no_diff.
    check_function(
        &program(
            r#"
[Differentiable]
float sq(float x) { return x * x; }

[Differentiable]
float f(float x, no_diff float k)
{
    return x * sin(x) * k + sq(x);
}
"#,
            "outputBuffer[0] = fwd_diff(f)(diffPair(2.0, 1.0), 3.0).d;",
        ),
        "s_fwd_f",
        expect![[r#"
            DiffPair_float s_fwd_f(DiffPair_float x, float k)
            {
                float _1 = x.p;
                float _2 = x.d;
                float _4 = sin(_1);
                float _5 = cos(_1);
                float _6 = _5 * _2;
                float _7 = _1 * _4;
                float _8 = _4 * _2;
                float _9 = _1 * _6;
                float _10 = _8 + _9;
                float _11 = _7 * k;
                float _12 = k * _10;
                DiffPair_float _13 = DiffPair_float(_1, _2);
                DiffPair_float _14 = s_fwd_sq(_13);
                float _15 = _14.p;
                float _16 = _14.d;
                float _17 = _11 + _15;
                float _18 = _12 + _16;
                DiffPair_float _19 = DiffPair_float(_17, _18);
                return _19;
            }
        "#]],
    );
}

#[test]
fn derivative_through_a_loop_and_a_branch() {
    // y = x^(n+1) by repeated multiplication; the loop carries y and dy.
    check_function(
        &program(
            r#"
[Differentiable]
float f(float x, int n)
{
    float y = x;
    [MaxIters(8)]
    for (int i = 0; i < n; i++)
        y = y * x;
    if (y > 1.0)
        y = max(y, x);
    return y;
}
"#,
            "outputBuffer[0] = fwd_diff(f)(diffPair(2.0, 1.0), 3).d;",
        ),
        "s_fwd_f",
        expect![[r#"
            DiffPair_float s_fwd_f(DiffPair_float x, int n)
            {
                int _0;
                float _1;
                float _2;
                float _3;
                float _4;
                float _6 = x.p;
                float _7 = x.d;
                _0 = 0;
                _1 = _6;
                _2 = _7;
                for (;;)
                {
                    bool _10 = _0 < n;
                    if (_10)
                    {
                    }
                    else
                    {
                        break;
                    }
                    float _22 = _1 * _6;
                    float _23 = _6 * _2;
                    float _24 = _1 * _7;
                    float _25 = _23 + _24;
                    // continue:
                    int _27 = _0 + 1;
                    _0 = _27;
                    _1 = _22;
                    _2 = _25;
                }
                bool _12 = _1 > 1.0;
                if (_12)
                {
                    float _13 = max(_1, _6);
                    float _14 = _2 + _7;
                    float _16 = 0.5 * _14;
                    bool _17 = _1 < _6;
                    float _18 = select(_17, _7, _16);
                    bool _19 = _1 > _6;
                    float _20 = select(_19, _2, _18);
                    _3 = _13;
                    _4 = _20;
                }
                else
                {
                    _3 = _1;
                    _4 = _2;
                }
                DiffPair_float _21 = DiffPair_float(_3, _4);
                return _21;
            }
        "#]],
    );
}

#[test]
fn derivative_with_inout_and_out_parameters() {
    check_function(
        &program(
            r#"
[Differentiable]
void g(float x, inout float acc, out float twice)
{
    acc = acc * x;
    twice = 2.0 * x;
}
"#,
            "var acc = diffPair(3.0, 1.0);\nDifferentialPair<float> t;\nfwd_diff(g)(diffPair(2.0, 1.0), acc, t);\noutputBuffer[0] = acc.d + t.d;",
        ),
        "s_fwd_g",
        expect![[r#"
            void s_fwd_g(DiffPair_float x, inout DiffPair_float acc, out DiffPair_float twice)
            {
                float _1 = x.p;
                float _2 = x.d;
                twice.d = 0.0;
                float _11 = acc.p;
                float _12 = acc.d;
                float _13 = _11 * _1;
                float _14 = _1 * _12;
                float _15 = _11 * _2;
                float _16 = _14 + _15;
                acc.p = _13;
                acc.d = _16;
                float _20 = 2.0 * _1;
                float _21 = 2.0 * _2;
                twice.p = _20;
                twice.d = _21;
                return;
            }
        "#]],
    );
}

#[test]
fn derivative_of_a_struct_with_a_synthesized_differential() {
    check_function(
        &program(
            r#"
struct P : IDifferentiable { float2 pos; int id; float w; }

[Differentiable]
P scale(P p, float s)
{
    P q = p;
    q.pos = p.pos * s;
    q.w = p.w + s;
    return q;
}
"#,
            "P p = { float2(1, 2), 3, 4.0 };\nP.Differential dp = { float2(1, 0), 0.0 };\noutputBuffer[0] = fwd_diff(scale)(diffPair(p, dp), diffPair(2.0, 1.0)).d.pos.x;",
        ),
        "s_fwd_scale",
        expect![[r#"
            DiffPair_P s_fwd_scale(DiffPair_P p, DiffPair_float s)
            {
                P _1 = p.p;
                P_Differential _2 = p.d;
                float _4 = s.p;
                float _5 = s.d;
                int _6 = _1.id;
                float2 _7 = _1.pos;
                float2 _8 = _2.pos;
                float2 _9 = float2(_4);
                float2 _10 = float2(_5);
                float2 _11 = _7 * _9;
                float2 _12 = _9 * _8;
                float2 _13 = _7 * _10;
                float2 _14 = _12 + _13;
                float _15 = _1.w;
                float _16 = _2.w;
                float _17 = _15 + _4;
                float _18 = _16 + _5;
                P _19 = P(_11, _6, _17);
                P_Differential _20 = P_Differential(_14, _18);
                DiffPair_P _21 = DiffPair_P(_19, _20);
                return _21;
            }
        "#]],
    );
}
