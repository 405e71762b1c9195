//! What reverse mode saves for the backward part, against the reference
//! compiler: each bound is the context size `slangc
//! -report-checkpoint-intermediates` reports for the same function, and
//! ours must not be larger.

use slang_analysis::RootDatabase;

/// Bytes per thread and values `bwd_diff(name)` saves.
fn context(src: &str, name: &str) -> (u32, u32) {
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let def = slang_analysis::autodiff::functions_named(&db, file, name)[0];
    slang_codegen::backward_context_size(&db, def).unwrap_or_else(|e| panic!("{e:?}"))
}

/// A compositing loop with a `continue` and a `break` on conditions of
/// the iteration's values (the shape of a Gaussian-splat rasterizer): the
/// flags that guard the rest of the iteration are not saved, the backward
/// part evaluates the conditions again (from the saved buffer read and
/// the carried transmittance). slangc: 84 bytes (`t` and `data[i]` in 10
/// slots each, the iteration count).
#[test]
fn exit_flags_of_a_loop_are_recomputed_from_their_conditions() {
    let src = r#"
RWStructuredBuffer<float> data;

[Differentiable]
float composite(float x)
{
    float acc = 0.0;
    float t = 1.0;
    [MaxIters(8)]
    for (int i = 0; i < 8; i++)
    {
        float a = min(0.9, x * no_diff data[i]);
        if (a < 0.1)
            continue;
        acc += a * t;
        t *= 1.0 - a;
        if (t < 0.01)
            break;
    }
    return acc;
}
"#;
    let (bytes, _) = context(src, "composite");
    assert!(bytes <= 84, "{bytes} B");
    // Two floats per iteration (9 slots) and the count: no flags.
    assert_eq!(bytes, 2 * 9 * 4 + 4);
}

/// A local array filled in a loop and read element by element in
/// unrolled loops (a feature encoding followed by a small layer): the
/// reads of the array between two stores are one load, saved once, not
/// one array per use; the loop filling it runs 4 times on every call,
/// so its iteration count is not saved either. slangc: 40 bytes (`enc`,
/// 16, and `data[l]` in 6 slots).
#[test]
fn repeated_reads_of_a_local_array_are_saved_once() {
    let src = r#"
RWStructuredBuffer<float> data;

[Differentiable]
float mix(float x, float w[4])
{
    float enc[4];
    for (uint l = 0; l < 4; l++)
        enc[l] = x * no_diff data[l];
    float y = 0.0;
    [ForceUnroll]
    for (int j = 0; j < 4; j++)
    {
        float s = 0.0;
        [ForceUnroll]
        for (int i = 0; i < 4; i++)
            s += w[i] * enc[i];
        y += max(s, 0.0) * enc[j];
    }
    return y;
}
"#;
    let (bytes, _) = context(src, "mix");
    assert!(bytes <= 40, "{bytes} B");
}

/// A hidden layer held in a local array that `[ForceUnroll]` loops write
/// and read at constant indices only: its elements are values
/// (`sroa`), so the backward part recomputes the layer (`tanh` of the
/// weighted sums) instead of saving the array. slangc: no context
/// ("no checkpoint contexts to report").
#[test]
fn an_unrolled_local_array_is_recomputed_not_saved() {
    let src = r#"
[Differentiable]
float layers(float w[16], float x[4])
{
    float h[4];
    [ForceUnroll]
    for (int j = 0; j < 4; j++)
    {
        float s = 0.0;
        [ForceUnroll]
        for (int i = 0; i < 4; i++)
            s += w[j * 4 + i] * x[i];
        h[j] = tanh(s);
    }
    float y = 0.0;
    [ForceUnroll]
    for (int j = 0; j < 4; j++)
        y += h[j] * h[j];
    return y;
}
"#;
    let (bytes, _) = context(src, "layers");
    assert_eq!(bytes, 0);
}

/// Counters recomputed from the iteration number however they advance:
/// down by a step from a start computed at run time, and by the same
/// amount on both sides of an `if` (one side adding twice). slangc: 4
/// bytes (the iteration count) for `down`, 148 for `series` (`s` and `p`
/// in 18 slots each, the count); the `do … while` that never breaks
/// saves no flag for its continuing part either.
#[test]
fn counters_going_down_or_advanced_in_branches_are_recomputed() {
    let src = r#"
[Differentiable]
float down(float x, no_diff int n)
{
    float r = 0.0;
    [MaxIters(10)]
    for (int i = 2 * n + 3; i >= n; i -= 3)
        r += x * float(i) * x;
    return r;
}

[Differentiable]
float series(float x, no_diff int n)
{
    float s = 0.0;
    float p = x;
    int k = 0;
    [MaxIters(16)]
    do
    {
        s += p / float(k + 1);
        p *= x;
        if (s > 10.0) { k += 2; k -= 1; } else { k += 1; }
    } while (k < n);
    return s;
}
"#;
    assert_eq!(context(src, "down").0, 4);
    let (bytes, _) = context(src, "series");
    assert!(bytes <= 148, "{bytes} B");
    // `s` (for the test) and `p` in 17 slots, the count: no counter.
    assert_eq!(bytes, 2 * 17 * 4 + 4);
}

/// Iteration counts known without saving them: a loop of constant trip
/// count with a `continue`, a loop whose every iteration breaks (it ends
/// one past its start); and the split after a `break` in a nested `if`
/// known from the iteration number. slangc: 32 bytes for `skip` (`t`),
/// nothing for `once`, 60 for `path` (`thp`, `depth`, the count).
#[test]
fn iteration_counts_of_loops_with_continue_or_always_breaking_are_not_saved() {
    let src = r#"
[Differentiable]
float skip(float x)
{
    float t = x;
    for (int i = 0; i < 6; i++)
    {
        if (i % 3 == 1)
            continue;
        t = sin(t) * float(i + 1);
    }
    return t;
}

[Differentiable]
float once(float x)
{
    float y = 0.0;
    for (int i = 0; i < 4; i++)
    {
        if (x > 1.0)
        {
            y = x * x;
            break;
        }
        y = x * 3.0;
        break;
    }
    return y;
}

[Differentiable]
float path(float x)
{
    float thp = 1.0;
    float L = 0.0;
    uint depth = 0;
    for (int i = 0; i < 5; i++)
    {
        if (depth < 3)
        {
            thp *= x;
            L += thp;
            if (thp > 8.0)
                break;
            depth++;
        }
        else
        {
            L += 1.0;
        }
    }
    return L;
}
"#;
    let (skip, _) = context(src, "skip");
    assert!(skip <= 32, "{skip} B");
    assert_eq!(context(src, "once").0, 0);
    let (path, _) = context(src, "path");
    assert!(path <= 60, "{path} B");
}

/// Reads of memory nothing writes (a read-only buffer, a texture) are
/// read again rather than saved, and so is a `[PreferRecompute]` callee
/// whatever it reads. slangc: 24 bytes for `weighted` (`weights[i]` per
/// iteration), nothing for `scaled`.
#[test]
fn constant_memory_and_prefer_recompute_calls_are_read_again() {
    let src = r#"
StructuredBuffer<float> weights;
Texture2D<float> tex;
SamplerState samp;
RWStructuredBuffer<float> table;

[Differentiable]
float weighted(float x)
{
    float s = 0.0;
    for (int i = 0; i < 4; i++)
    {
        float w = no_diff weights[i] + (no_diff tex.SampleLevel(samp, float2(0.5), 0)).x;
        s += w * x * x;
    }
    return s;
}

[PreferRecompute]
float lookup(int i) { return table[i]; }

[Differentiable]
float scaled(float x)
{
    float a = no_diff lookup(1);
    return sin(x * a);
}
"#;
    // (The loop runs 4 times on every call: not even its count.)
    assert_eq!(context(src, "weighted").0, 0);
    assert_eq!(context(src, "scaled").0, 0);
}

/// The reads of an `inout` struct before anything writes it (past an
/// early `return` that does) come from the value it held on entry, which
/// the backward part has again; and an array filled at unrolled indices
/// computed as `4 + i` of a `uint` counter is split into values. slangc:
/// 24 bytes for `bounce` (the struct), nothing for `spread`.
#[test]
fn entry_values_of_inout_structs_and_unrolled_arrays_are_not_saved() {
    let src = r#"
struct Ray : IDifferentiable
{
    float3 w;
    float scale;
    uint bounces;
    bool done;
}

[Differentiable]
void bounce(inout Ray r, float k)
{
    if (r.bounces >= 3)
    {
        r.done = true;
        return;
    }
    float s = r.scale;
    float3 w = r.w;
    r.w = w * sin(s * k);
    r.scale = s * k;
    r.bounces++;
}

[Differentiable]
float spread(float x, no_diff float offsets[4])
{
    float v[8];
    v[0] = x;
    v[1] = x * x;
    v[2] = 1.0;
    v[3] = 2.0;
    [ForceUnroll]
    for (uint i = 0; i < 4; i++)
        v[4 + i] = offsets[i] * x;
    float s = 0.0;
    [ForceUnroll]
    for (int j = 0; j < 8; j++)
        s += sin(v[j]);
    return s;
}
"#;
    assert_eq!(context(src, "bounce").0, 0);
    assert_eq!(context(src, "spread").0, 0);
}

/// A call that writes only its `inout` argument (and reads nothing else)
/// is computed again in the backward part from what the argument held
/// before, as are the loads of what it wrote: neither its result (the
/// condition of an `if`) nor the variable after it is saved. slangc: 4
/// bytes (a float).
#[test]
fn calls_writing_only_their_inout_arguments_are_recomputed() {
    let src = r#"
[Differentiable]
bool scaleAndTest(no_diff float a, inout float x)
{
    x = x * a;
    return x > 1.0;
}

[Differentiable]
float pick(no_diff float a, float x)
{
    if (scaleAndTest(a, x))
        return x * x;
    return 2.0 * x;
}
"#;
    let (bytes, _) = context(src, "pick");
    assert!(bytes <= 4, "{bytes} B");
}

/// A struct updated in a loop by a call that writes only its `inout`
/// argument (a path tracer's bounce): the struct after the call is
/// recomputed from the one before it, saved once per iteration. slangc:
/// 124 bytes (the struct, 20 bytes, in 6 slots, and the iteration count).
#[test]
fn a_struct_updated_through_inout_in_a_loop_is_saved_once_per_iteration() {
    let src = r#"
struct Ray : IDifferentiable
{
    float3 thp;
    float t;
    int bounces;
}

[Differentiable]
void bounce(inout Ray r, float3 albedo)
{
    r.thp = r.thp * albedo;
    r.t = r.t + 1.0;
    r.bounces = r.bounces + 1;
}

[Differentiable]
float3 trace(float3 albedo)
{
    Ray r = { float3(1.0), 0.0, 0 };
    [MaxIters(4)]
    for (int i = 0; i < 4; i++)
    {
        bounce(r, albedo);
        if (r.t > 2.5)
            break;
    }
    return r.thp;
}
"#;
    let (bytes, values) = context(src, "trace");
    assert!(bytes <= 124, "{bytes} B");
    // The struct before each call, and the iteration count.
    assert_eq!(values, 2);
}

/// Arrays of saved vectors count as the reference compiler counts them
/// (a `float3` is 12 bytes in an array too). slangc: 72 bytes (a
/// `float3` in 6 slots).
#[test]
fn saved_arrays_of_vectors_count_as_the_reference_counts_them() {
    let src = r#"
[Differentiable]
float3 pw(float3 x)
{
    float3 y = x;
    [MaxIters(4)]
    for (int i = 0; i < 4; i++)
        y = sin(y) * x;
    return y;
}
"#;
    let (bytes, _) = context(src, "pw");
    assert!(bytes <= 72, "{bytes} B");
}

/// A local array written at a dynamic index in a loop, then element by
/// element at constant indices, each time passed whole to a call with a
/// user-written backward derivative (a gradient buffer's scatter): the
/// array is saved once, the later values recomputed from it with the
/// element replaced. slangc: 8 bytes (the array).
#[test]
fn an_array_updated_element_by_element_is_saved_once() {
    let src = r#"
RWStructuredBuffer<float> primal;
StructuredBuffer<float> grad;

int flat(int idx[2]) { return idx[0] * 3 + idx[1]; }

[Differentiable]
void put(int idx[2], float v) { primal[flat(idx)] = detach(v); }

[BackwardDerivativeOf(put)]
void put_bwd(int idx[2], inout DifferentialPair<float> d) { d = diffPair(d.p, grad[flat(idx)]); }

[Differentiable]
void scatter(int row[1], float value[3])
{
    int idx[2];
    [MaxIters(2)]
    for (int i = 0; i < 1; ++i)
        idx[i] = row[i];
    [ForceUnroll]
    for (int i = 0; i < 3; i++)
    {
        idx[1] = i;
        put(idx, value[i]);
    }
}
"#;
    let (bytes, _) = context(src, "scatter");
    assert!(bytes <= 8, "{bytes} B");
}

/// An interface value picked per iteration by an `if … else if … else`
/// chain (a path tracer's material) from the function's parameters and
/// the iteration number: the value the nested `if`s merge is recomputed
/// as `select`s, not saved per iteration. slangc: 24 bytes (`sum` in 6
/// slots).
#[test]
fn values_merged_by_else_if_chains_are_recomputed() {
    let src = r#"
interface IShape : IDifferentiable
{
    [Differentiable]
    float eval(float x);
}
struct Line : IShape
{
    float slope;
    [Differentiable]
    float eval(float x) { return slope * x; }
}
struct Square : IShape
{
    float scale;
    float offset;
    [Differentiable]
    float eval(float x) { return scale * x * x + offset; }
}
struct Sine : IShape
{
    float freq;
    [Differentiable]
    float eval(float x) { return sin(freq * x); }
}

[Differentiable]
float total(no_diff uint k, float a, float b, float x)
{
    float sum = 0.0;
    for (int i = 0; i < 4; i++)
    {
        uint kind = (k + uint(i)) % 3u;
        IShape s;
        if (kind == 0u)
        {
            Line l;
            l.slope = a;
            s = l;
        }
        else if (kind == 1u)
        {
            Square q;
            q.scale = a;
            q.offset = b;
            s = q;
        }
        else
        {
            Sine n;
            n.freq = b * 2.0;
            s = n;
        }
        sum += s.eval(x + sum);
    }
    return sum;
}
"#;
    let (bytes, _) = context(src, "total");
    assert!(bytes <= 24, "{bytes} B");
}
