//! `slang-analyzer gradcheck` on a real Vulkan device: correct derivatives
//! pass, and a wrong custom derivative and a loop bound that truncates the
//! loop fail with the function's location. The expected derivatives come
//! from finite differences of the functions themselves; the planted errors
//! are off by far more than the tolerance.
//!
//! Needs a Vulkan device (lavapipe in CI); `SLANG_ANALYZER_NO_GPU=1` skips
//! these tests, as it does those of `tests/runner.rs`.

use std::process::Command;

/// The exit status when there is no Vulkan adapter.
const NO_DEVICE: i32 = 3;

/// `(exit status, stdout, stderr)` of `gradcheck FILE --function F ARGS`,
/// `None` when `SLANG_ANALYZER_NO_GPU=1`.
fn gradcheck(file: &str, function: &str, args: &[&str]) -> Option<(Option<i32>, String, String)> {
    if std::env::var_os("SLANG_ANALYZER_NO_GPU").is_some_and(|v| v == "1") {
        eprintln!("!!! SLANG_ANALYZER_NO_GPU=1: skipping gradcheck of `{function}` (needs a Vulkan device)");
        return None;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_slang-analyzer"))
        .args(["gradcheck", &format!("../tests/gradcheck/{file}"), "--function", function])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run slang-analyzer gradcheck");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_ne!(
        out.status.code(),
        Some(NO_DEVICE),
        "no Vulkan device: install lavapipe (apt-get install mesa-vulkan-drivers libvulkan1), \
         or set SLANG_ANALYZER_NO_GPU=1 to skip\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "gradcheck must not crash:\n{stderr}");
    Some((out.status.code(), stdout, stderr))
}

fn passes(function: &str, args: &[&str]) {
    let Some((status, stdout, stderr)) = gradcheck("correct.slang", function, args) else { return };
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains(&format!("gradcheck `{function}`: ok")), "{stdout}");
    // Both modes of every parameter are reported.
    assert_eq!(stdout.matches("fwd_diff: max relative error").count(), stdout.matches("bwd_diff: max").count());
    assert!(stdout.contains("(seed 1)"), "{stdout}");
}

#[test]
fn a_polynomial_passes() {
    passes("poly", &[]);
}

#[test]
fn a_composition_of_sin_and_exp_passes() {
    passes("comp", &["--range", "x=-2:1.5", "--samples", "200"]);
}

#[test]
fn a_vector_function_passes() {
    passes("vecf", &[]);
}

#[test]
fn loops_within_their_bound_pass() {
    passes("loopy", &[]);
    passes("bounded", &["--range", "n=-0.25:0"]);
}

#[test]
fn a_wrong_custom_derivative_fails_at_the_function() {
    let Some((status, stdout, stderr)) = gradcheck("wrong.slang", "wrapper", &[]) else { return };
    assert_eq!(status, Some(1), "{stdout}\n{stderr}");
    // Only the backward derivative uses the custom one.
    assert!(stdout.contains("fwd_diff: max relative error") && stdout.contains("(ok)"), "{stdout}");
    assert!(stdout.contains("(MISMATCH)"), "{stdout}");
    assert!(
        stderr.contains(
            "error: ../tests/gradcheck/wrong.slang:22:7: bwd_diff(wrapper) disagrees with finite differences"
        ),
        "{stderr}"
    );
}

#[test]
fn a_loop_bound_that_truncates_the_loop_fails_at_the_function() {
    let Some((status, stdout, stderr)) = gradcheck("wrong.slang", "truncated", &["--range", "n=-0.25:0"]) else {
        return;
    };
    assert_eq!(status, Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("error: ../tests/gradcheck/wrong.slang:30:7: bwd_diff(truncated) disagrees with finite differences: d result/d x"),
        "{stderr}"
    );
}

#[test]
fn the_seed_makes_the_inputs() {
    let Some((_, a, _)) = gradcheck("correct.slang", "poly", &["--seed", "7"]) else { return };
    let Some((_, b, _)) = gradcheck("correct.slang", "poly", &["--seed", "7"]) else { return };
    let Some((_, c, _)) = gradcheck("correct.slang", "poly", &["--seed", "8"]) else { return };
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(a.contains("(seed 7)"), "{a}");
}

#[test]
fn unsupported_functions_and_options_are_located_errors() {
    let cases: [(&str, &str, &[&str], &str); 4] = [
        (
            "correct.slang",
            "mat",
            &[],
            "correct.slang:44:7: gradcheck does not support parameter `m` of `mat`: its type is `float2x2`",
        ),
        ("correct.slang", "nothere", &[], "no function named `nothere`"),
        ("correct.slang", "poly", &["--range", "z=0:1"], "`poly` has no parameter `z` (its parameters: x, y)"),
        ("correct.slang", "poly", &["--range", "x=1:0"], "expected PARAM=LO:HI with finite LO <= HI"),
    ];
    for (file, function, args, expected) in cases {
        let Some((status, stdout, stderr)) = gradcheck(file, function, args) else { return };
        assert_eq!(status, Some(1), "{function}: {stdout}\n{stderr}");
        assert!(stderr.contains(expected), "{function}: {stderr}");
    }
}
