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
            "unsupported_buffer_in_struct.slang",
            "24:5: the `return`s of this function give its struct's buffer fields different buffers",
        ),
        ("unsupported_multisampled.slang", "line 4: TEST_INPUT `Texture2DMS` is not supported"),
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
    let Some((_, stdout)) = run_on_gpu(&["--slangc", &slangc, "../tests/compute"]) else { return };
    // Where the reference compiler is known to fail (README): it crashes
    // on two, does not accept `fwd_diff(bwd_diff(f))`,
    // `bwd_diff(bwd_diff(f))` or `T.dmul`, and
    // gives 0 for d fmod(x, y)/dy (finite differences: -trunc(x / y)),
    // cannot unroll a `[ForceUnroll]` loop whose count depends on an
    // enclosing unrolled loop's counter, fails on a switch falling from a
    // case into the next in a differentiable function, and crashes on an
    // enum with `uint8_t` underlying type and on a `[Differentiable]`
    // property getter, and writes WGSL that naga rejects for a negated
    // matrix. Its WGSL has no 64-bit types and no atomics on plain buffers
    // or floats, and it rejects differentiable setters. It compares bools
    // with `<` in tuple comparisons (naga rejects that) and gives 4 for
    // `countof` of any tuple.
    let known = [
        "tuples.slang",
        "atomics.slang",
        "double_int64.slang",
        "differentiable-setter.slang",
        "matrix-negation.slang",
        "bwd-force-unroll.slang",
        "bwd-switch-fallthrough.slang",
        "bwd-property-getter.slang",
        "enum_flags_switch_fallthrough.slang",
        "bwd-loops.slang",
        "bwd-higher-order.slang",
        "bwd-fwd-of-bwd.slang",
        "rev-bwd-of-bwd.slang",
        "rev-bwd-of-bwd-cases.slang",
        "rev-third-order.slang",
        "bwd-builtin-fmod.slang",
        "bwd-intrinsics.slang",
        "fwd-dmul.slang",
    ];
    let unexpected: Vec<&str> =
        stdout.lines().filter(|l| l.starts_with("FAIL ") && !known.iter().any(|k| l.contains(k))).collect();
    assert!(unexpected.is_empty(), "{stdout}");
}

/// Reverse mode's control-flow normalization on its own: with every
/// function of every compute test replaced by its normalized form
/// (`SLANG_ANALYZER_NORMALIZE_CFG`: returns, breaks and continues turned
/// into flags, loops exiting at the end of an iteration), all of them
/// still compute their expected values.
#[test]
fn normalized_control_flow_computes_the_same() {
    suite_passes_with("../tests/compute", "SLANG_ANALYZER_NORMALIZE_CFG");
}

/// The compute tests of `folder` all pass with the environment variable
/// `hook` (a test hook of the code generator) set.
fn suite_passes_with(folder: &str, hook: &str) {
    if std::env::var_os("SLANG_ANALYZER_NO_GPU").is_some_and(|v| v == "1") {
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_slang-analyzer"))
        .args(["test", folder])
        .env(hook, "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run slang-analyzer test");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.lines().last().is_some_and(|l| l.ends_with(" passed, 0 failed")), "{stdout}");
}

/// Reverse mode's extraction on its own: with `SLANG_ANALYZER_NO_EXTRACT`,
/// backward derivatives stay the single functions transcription makes
/// (primal part, then backward part; callees called whole instead of
/// through nested contexts), and every autodiff compute test still
/// computes its expected values — so splitting them into
/// `s_primal_ctx_f` and `s_bwd_prop_f` (as normally done) is checked
/// against the same results.
#[test]
fn unextracted_backward_derivatives_compute_the_same() {
    suite_passes_with("../tests/compute/autodiff", "SLANG_ANALYZER_NO_EXTRACT");
}

/// Reverse mode against finite differences: random straight-line,
/// branching and looping programs of three inputs are differentiated with `bwd_diff`
/// on the GPU; the gradient is compared with central differences of the
/// same program evaluated here in f64.
#[test]
fn reverse_mode_matches_finite_differences_on_random_programs() {
    let dir = std::env::temp_dir().join(format!("slang-analyzer-ad-property-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Lcg(0x5eed_1234_abcd);
    let mut expected = Vec::new();
    for case in 0..32 {
        let program = RandomProgram::generate(&mut rng, 5 + case % 6);
        let inputs = [0.6 + rng.unit(), 0.6 + rng.unit(), 0.6 + rng.unit()];
        let grad = program.gradient(inputs);
        let path = dir.join(format!("case{case:02}.slang"));
        std::fs::write(&path, program.slang(inputs)).unwrap();
        // (The runner's own comparison is stricter than float32 allows
        // for long chains; the values are compared below.)
        let mut exp = String::from("type: float\n");
        for g in grad {
            exp.push_str(&format!("{g:.6}\n"));
        }
        std::fs::write(path.with_extension("slang.expected.txt"), exp).unwrap();
        expected.push((path, program, grad));
    }
    let dir_arg = dir.to_string_lossy().to_string();
    let Some((_, stdout)) = run_on_gpu(&[&dir_arg, "--show-output"]) else { return };
    let mut checked = 0;
    for (path, program, grad) in &expected {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let line = line_of(&stdout, &name);
        assert!(!line.contains("code generation") && !line.contains("error"), "{line}\n{}", program.body);
        let start = stdout.find(line).unwrap() + line.len();
        let got: Vec<f64> =
            stdout[start..].lines().skip(2).take(3).map(|l| l.trim().parse::<f64>().unwrap_or(f64::NAN)).collect();
        for (g, e) in got.iter().zip(grad) {
            let tol = 2e-3 * e.abs().max(1.0);
            assert!((g - e).abs() <= tol, "{name}: got {got:?}, finite differences {grad:?}\n{}", program.body);
        }
        checked += 1;
    }
    assert_eq!(checked, 32);
    // Both kinds of loop were differentiated.
    let loops = |unrolled: bool| {
        expected.iter().flat_map(|e| &e.1.steps).filter(|s| matches!(s, Step::Loop(.., u) if *u == unrolled)).count()
    };
    assert!(loops(true) > 0 && loops(false) > 0, "{} unrolled, {} kept", loops(true), loops(false));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small deterministic generator (no dependency needed for this).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() % 10_000) as f64 / 10_000.0
    }
}

/// `t_k = op(a, b)` over the inputs and earlier temporaries.
#[derive(Debug, Clone, Copy)]
enum Step {
    Add(usize, usize),
    Sub(usize, usize),
    Mul(usize, usize),
    Sin(usize),
    Cos(usize),
    Exp(usize),
    Square(usize),
    Hypot(usize, usize),
    Lerp(usize, usize),
    Tanh(usize),
    /// `a > b ? a * b : a + b` written as an `if`.
    Branch(usize, usize),
    /// `t = a; for n times: t = 0.7 t + 0.3 h(t, b)` with `h(a, b) = sin(a
    /// b)` a differentiable function (with `[MaxIters]`, or `[ForceUnroll]`:
    /// unrolled, its iterations recomputed by the backward part).
    Loop(usize, usize, usize, bool),
}

struct RandomProgram {
    steps: Vec<Step>,
    body: String,
}

impl RandomProgram {
    fn generate(rng: &mut Lcg, n: usize) -> RandomProgram {
        let mut steps = Vec::new();
        for k in 0..n {
            let avail = 3 + k;
            let (a, b) = (rng.below(avail as u64), rng.below(avail as u64));
            steps.push(match rng.below(13) {
                0 => Step::Add(a, b),
                1 => Step::Sub(a, b),
                2 => Step::Mul(a, b),
                3 => Step::Sin(a),
                4 => Step::Cos(a),
                5 => Step::Exp(a),
                6 => Step::Square(a),
                7 => Step::Hypot(a, b),
                8 => Step::Lerp(a, b),
                9 => Step::Tanh(a),
                10 => Step::Branch(a, b),
                _ => Step::Loop(a, b, 1 + rng.below(4), rng.below(2) == 0),
            });
        }
        let mut body = String::new();
        let name = |i: usize| if i < 3 { format!("x{i}") } else { format!("t{}", i - 3) };
        for (k, s) in steps.iter().enumerate() {
            let t = format!("t{k}");
            let line = match *s {
                Step::Add(a, b) => format!("    float {t} = {} + {};\n", name(a), name(b)),
                Step::Sub(a, b) => format!("    float {t} = {} - {};\n", name(a), name(b)),
                Step::Mul(a, b) => format!("    float {t} = {} * {};\n", name(a), name(b)),
                Step::Sin(a) => format!("    float {t} = sin({});\n", name(a)),
                Step::Cos(a) => format!("    float {t} = cos({});\n", name(a)),
                Step::Exp(a) => format!("    float {t} = exp(0.3 * {});\n", name(a)),
                Step::Square(a) => format!("    float {t} = {0} * {0};\n", name(a)),
                Step::Hypot(a, b) => format!("    float {t} = sqrt({0} * {0} + {1} * {1} + 1.0);\n", name(a), name(b)),
                Step::Lerp(a, b) => format!("    float {t} = lerp({}, {}, 0.3);\n", name(a), name(b)),
                Step::Tanh(a) => format!("    float {t} = tanh({});\n", name(a)),
                Step::Branch(a, b) => format!(
                    "    float {t};\n    if ({0} > {1})\n        {t} = {0} * {1};\n    else\n        {t} = {0} + {1};\n",
                    name(a),
                    name(b)
                ),
                Step::Loop(a, b, n, unroll) => format!(
                    "    float {t} = {0};\n    {2}\n    for (int i{k} = 0; i{k} < {n}; i{k}++)\n        \
                     {t} = {t} * 0.7 + h({t}, {1}) * 0.3;\n",
                    name(a),
                    name(b),
                    if unroll { "[ForceUnroll]" } else { "[MaxIters(4)]" }
                ),
            };
            body.push_str(&line);
        }
        body.push_str(&format!("    return t{} + 0.5 * t{};\n", steps.len() - 1, steps.len() / 2));
        RandomProgram { steps, body }
    }

    fn eval(&self, x: [f64; 3]) -> f64 {
        let mut v: Vec<f64> = x.to_vec();
        for s in &self.steps {
            let r = match *s {
                Step::Add(a, b) => v[a] + v[b],
                Step::Sub(a, b) => v[a] - v[b],
                Step::Mul(a, b) => v[a] * v[b],
                Step::Sin(a) => v[a].sin(),
                Step::Cos(a) => v[a].cos(),
                Step::Exp(a) => (0.3 * v[a]).exp(),
                Step::Square(a) => v[a] * v[a],
                Step::Hypot(a, b) => (v[a] * v[a] + v[b] * v[b] + 1.0).sqrt(),
                Step::Lerp(a, b) => v[a] + (v[b] - v[a]) * 0.3,
                Step::Tanh(a) => v[a].tanh(),
                Step::Branch(a, b) => {
                    if v[a] > v[b] {
                        v[a] * v[b]
                    } else {
                        v[a] + v[b]
                    }
                }
                Step::Loop(a, b, n, _) => {
                    let mut t = v[a];
                    for _ in 0..n {
                        t = t * 0.7 + (t * v[b]).sin() * 0.3;
                    }
                    t
                }
            };
            v.push(r);
        }
        let n = self.steps.len();
        v[3 + n - 1] + 0.5 * v[3 + n / 2]
    }

    fn gradient(&self, x: [f64; 3]) -> [f64; 3] {
        let h = 1e-6;
        let mut g = [0.0; 3];
        for (i, gi) in g.iter_mut().enumerate() {
            let (mut p, mut m) = (x, x);
            p[i] += h;
            m[i] -= h;
            *gi = (self.eval(p) - self.eval(m)) / (2.0 * h);
        }
        g
    }

    fn slang(&self, x: [f64; 3]) -> String {
        format!(
            "//TEST(compute, vulkan):COMPARE_COMPUTE_EX:-vk -compute -shaderobj -output-using-type\n\
             //TEST_INPUT:ubuffer(data=[0 0 0], stride=4):out,name=outputBuffer\n\
             RWStructuredBuffer<float> outputBuffer;\n\n\
             [Differentiable]\nfloat h(float a, float b) {{ return sin(a * b); }}\n\n\
             [Differentiable]\nfloat f(float x0, float x1, float x2)\n{{\n{}}}\n\n\
             [numthreads(1, 1, 1)]\nvoid computeMain(uint3 tid : SV_DispatchThreadID)\n{{\n\
             \x20   var a = diffPair({:.6});\n    var b = diffPair({:.6});\n    var c = diffPair({:.6});\n\
             \x20   bwd_diff(f)(a, b, c, 1.0);\n\
             \x20   outputBuffer[0] = a.d;\n    outputBuffer[1] = b.d;\n    outputBuffer[2] = c.d;\n}}\n",
            self.body, x[0], x[1], x[2]
        )
    }
}

/// A test that crashes the process (a fault in the GPU driver, say) or runs
/// past the time limit fails alone: the runner reports it and goes on with
/// the next test in a new worker process.
#[test]
fn a_crash_or_a_hang_fails_only_that_test() {
    if std::env::var_os("SLANG_ANALYZER_NO_GPU").is_some_and(|v| v == "1") {
        return;
    }
    for (hook, args, why) in [
        ("SLANG_ANALYZER_TEST_ABORT_ON", vec!["test", "runner"], "crashed during this test"),
        ("SLANG_ANALYZER_TEST_HANG_ON", vec!["test", "--timeout", "3", "runner"], "took longer than 3 s"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_slang-analyzer"))
            .args(&args)
            .env(hook, "wrong_check.slang")
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests"))
            .output()
            .expect("run slang-analyzer test");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(line_of(&stdout, "wrong_check.slang").contains(why), "{stdout}");
        // The tests after it still ran, and the total counts every test once.
        assert!(line_of(&stdout, "wrong_expected.slang").starts_with("FAIL"), "{stdout}");
        assert!(stdout.lines().last().is_some_and(|l| l == "0 passed, 5 failed, 1 skipped"), "{stdout}");
    }
}

/// `// TEST` with a space counts; a `-cpu`-only line runs on the Vulkan
/// device; lines with different `-xslang -D` flags each run.
#[test]
fn spaced_cpu_only_and_several_test_lines_run() {
    let dir = std::env::temp_dir().join(format!("slang-analyzer-runner-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = "//TEST_INPUT:ubuffer(data=[0 0], stride=4):out,name=outputBuffer\nRWStructuredBuffer<float> outputBuffer;\n[numthreads(1, 1, 1)]\nvoid computeMain()\n{\n    outputBuffer[0] = K * 2.0;\n    outputBuffer[1] = 1.0;\n}\n";
    let write = |name: &str, header: &str, expected: &str| {
        std::fs::write(dir.join(name), format!("{header}{body}")).unwrap();
        std::fs::write(dir.join(format!("{name}.expected.txt")), expected).unwrap();
    };
    let typed = "-compute -output-using-type";
    write(
        "spaced.slang",
        &format!("// TEST(compute):COMPARE_COMPUTE_EX:-vk {typed} -xslang -DK=3.0\n"),
        "type: float\n6.0\n1.0\n",
    );
    write(
        "cpu_only.slang",
        &format!("//TEST(compute):COMPARE_COMPUTE_EX:-cpu {typed} -xslang -DK=1.5\n"),
        "type: float\n3.0\n1.0\n",
    );
    // The expected output holds for K=2 only: the second line must fail.
    write(
        "two_lines.slang",
        &format!("//TEST(compute):COMPARE_COMPUTE_EX:-vk {typed} -xslang -DK=2.0\n//TEST(compute):COMPARE_COMPUTE_EX:-vk {typed} -xslang -DK=5.0\n"),
        "type: float\n4.0\n1.0\n",
    );
    let Some((status, stdout)) = run_on_gpu(&[dir.to_str().unwrap()]) else { return };
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(status, Some(1), "{stdout}");
    assert!(line_of(&stdout, "spaced.slang").starts_with("PASS"), "{stdout}");
    assert!(line_of(&stdout, "cpu_only.slang").starts_with("PASS"), "{stdout}");
    let two = line_of(&stdout, "two_lines.slang");
    assert!(two.starts_with("FAIL") && two.contains("TEST line 2:"), "{stdout}");
}

/// `slang-analyzer bench` on one small kernel of `tests/bench/gpu/`, with
/// one timed run at a twentieth of its size: the table has its row, with
/// our GPU time; with `SLANGC` set, slangc's too, and the outputs agree.
#[test]
fn bench_runs_one_kernel() {
    let mut args = vec!["bench", "../tests/bench/gpu", "--only", "taylor_sin", "--runs", "1", "--scale", "0.05"];
    let slangc = std::env::var("SLANGC").ok().filter(|s| std::path::Path::new(s).is_file());
    if let Some(s) = &slangc {
        args.extend(["--reference", s.as_str()]);
    }
    if std::env::var_os("SLANG_ANALYZER_NO_GPU").is_some_and(|v| v == "1") {
        eprintln!("!!! SLANG_ANALYZER_NO_GPU=1: skipping `slang-analyzer bench` (needs a Vulkan device)");
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_slang-analyzer"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run slang-analyzer bench");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_ne!(out.status.code(), Some(NO_DEVICE), "no Vulkan device (see compute_suite_passes)\n{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let row = line_of(&stdout, "| taylor_sin ");
    let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
    // kernel, GPU ms (ours), ...: a time, not `failed`.
    assert!(cells[1].parse::<f64>().is_ok_and(|ms| ms >= 0.0), "{stdout}");
    if slangc.is_some() {
        assert!(cells[2].parse::<f64>().is_ok(), "{stdout}");
        assert!(cells.last().unwrap().starts_with("yes ("), "outputs must agree:\n{stdout}");
        assert!(stdout.contains("geometric mean of the GPU time ratios"), "{stdout}");
    }
    // A kernel that does not exist is an error before any device is opened.
    let out = Command::new(env!("CARGO_BIN_EXE_slang-analyzer"))
        .args(["bench", "../tests/bench/gpu", "--only", "no_such_kernel"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
