//! `slang-analyzer test` on a real Vulkan device: the compute suite in
//! `tests/compute/` passes, and the fixtures in `tests/runner/` show that
//! the runner can fail (wrong values, wrong CHECK lines), reports
//! unsupported inputs and compiler bugs clearly, skips what it cannot run,
//! and says when there is no device.
//!
//! CI installs lavapipe (Mesa's CPU Vulkan driver, see `.ci/run`). On a
//! machine without any Vulkan driver set `SLANG_ANALYZER_NO_GPU=1` to skip
//! the tests that need a device (they say so loudly); without it they fail.

use std::process::{Command, Output};

/// The runner's exit status when there is no Vulkan adapter.
const NO_DEVICE: i32 = 3;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slang-analyzer"))
        .arg("test")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run slang-analyzer test")
}

/// Run the tests at `args`; `None` when the machine has no GPU and
/// `SLANG_ANALYZER_NO_GPU=1` says that is expected.
fn run_on_gpu(args: &[&str]) -> Option<(Option<i32>, String)> {
    if std::env::var_os("SLANG_ANALYZER_NO_GPU").is_some_and(|v| v == "1") {
        eprintln!(
            "!!! SLANG_ANALYZER_NO_GPU=1: skipping `slang-analyzer test {}` (needs a Vulkan device)",
            args.join(" ")
        );
        return None;
    }
    let out = run(args);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_ne!(
        out.status.code(),
        Some(NO_DEVICE),
        "no Vulkan device: install lavapipe (apt-get install mesa-vulkan-drivers libvulkan1), \
         or set SLANG_ANALYZER_NO_GPU=1 to skip\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "the runner must not crash:\n{stderr}");
    Some((out.status.code(), stdout))
}

/// The report line of `file`.
fn line_of<'a>(stdout: &'a str, file: &str) -> &'a str {
    stdout.lines().find(|l| l.contains(file)).unwrap_or_else(|| panic!("no line for {file} in:\n{stdout}"))
}

#[test]
fn compute_suite_passes() {
    let Some((status, stdout)) = run_on_gpu(&["../tests/compute"]) else { return };
    // Every `.slang` file under tests/compute (its folders included).
    fn count(dir: &std::path::Path) -> usize {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| if p.is_dir() { count(&p) } else { usize::from(p.extension().is_some_and(|x| x == "slang")) })
            .sum()
    }
    let tests = count(std::path::Path::new("../tests/compute"));
    assert!(tests >= 30, "{tests} tests");
    let passes = stdout.lines().filter(|l| l.starts_with("PASS ")).count();
    assert_eq!(passes, tests, "{stdout}");
    assert_eq!(stdout.lines().last(), Some(format!("{tests} passed, 0 failed").as_str()), "{stdout}");
    assert_eq!(status, Some(0), "{stdout}");
}

#[test]
fn wrong_results_fail_with_the_first_mismatch() {
    let Some((status, stdout)) =
        run_on_gpu(&["../tests/runner/wrong_expected.slang", "../tests/runner/wrong_check.slang"])
    else {
        return;
    };
    assert_eq!(status, Some(1), "{stdout}");
    assert_eq!(
        line_of(&stdout, "wrong_expected.slang"),
        "FAIL ../tests/runner/wrong_expected.slang: index 2: expected 5.000000, got 4.000000"
    );
    let check = line_of(&stdout, "wrong_check.slang");
    assert!(check.starts_with("FAIL ") && check.contains("CHECK-NEXT: 4") && check.contains("`3`"), "{check}");
    assert_eq!(stdout.lines().last(), Some("0 passed, 2 failed"));
}

#[test]
fn unsupported_inputs_fail_with_a_reason() {
    let Some((status, stdout)) = run_on_gpu(&["../tests/runner"]) else { return };
    assert_eq!(status, Some(1), "{stdout}");
    let expect = [
        (
            "unsupported_parameter_block.slang",
            "of type `ParameterBlock<Params>` is not supported by code generation yet",
        ),
        ("unsupported_texture.slang", "line 3: TEST_INPUT `Texture2D`"),
        ("missing_expected.slang", "no expected output"),
    ];
    for (file, reason) in expect {
        let line = line_of(&stdout, file);
        assert!(line.starts_with("FAIL ") && line.contains(reason), "{file}: {line}");
    }
    assert!(line_of(&stdout, "cuda_only.slang").starts_with("SKIP "), "{stdout}");
    assert!(!stdout.contains("helper_module"), "a //TEST_IGNORE_FILE module is not a test:\n{stdout}");
    assert_eq!(stdout.lines().last(), Some("0 passed, 5 failed, 1 skipped"), "{stdout}");
}

#[test]
fn no_device_is_a_distinct_failure() {
    // The Vulkan loader finds no driver when pointed at a file that does
    // not exist: the runner must say so and exit with its own status.
    let out = Command::new(env!("CARGO_BIN_EXE_slang-analyzer"))
        .args(["test", "../tests/compute/arith_float.slang"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(NO_DEVICE), "{stderr}");
    assert!(stderr.contains("no Vulkan adapter found"), "{stderr}");
}

#[test]
fn missing_path_is_a_usage_error() {
    let out = run(&["../tests/compute/no_such_test.slang"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("no such file"));
}

/// The expected values of `tests/compute/` come from mathematics; the
/// reference compiler's WGSL, run on the same device, must agree with every
/// one. Runs when `SLANGC` names the reference `slangc` (from the PyPI
/// package `slangtorch`), as `tests/tools/verify_signatures.py` does.
#[test]
fn reference_compiler_agrees_with_the_expected_values() {
    let Some(slangc) = std::env::var_os("SLANGC") else {
        eprintln!("SLANGC is not set: not checking tests/compute against the reference compiler");
        return;
    };
    let slangc = slangc.into_string().unwrap();
    let Some((status, stdout)) = run_on_gpu(&["--slangc", &slangc, "../tests/compute"]) else { return };
    assert_eq!(status, Some(0), "{stdout}");
    assert!(stdout.lines().last().is_some_and(|l| l.ends_with(" passed, 0 failed")), "{stdout}");
}
