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
