//! The `slang-analyzer` binary as scripts use it: exit codes, the
//! `parse --json` format of ARCHITECTURE.md, folders, `-D`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_slang-analyzer"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("run slang-analyzer")
}

/// A scratch directory, removed when the test ends (passing or not).
struct TmpDir(PathBuf);

impl std::ops::Deref for TmpDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TmpDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tmp_dir(name: &str) -> TmpDir {
    let dir = std::env::temp_dir().join(format!("slang-analyzer-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TmpDir(dir)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn parse_valid_file_exits_zero() {
    let out = run(&["parse", "../tests/examples/differentiable_shading.slang"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.trim_end(), "1 files parsed, 1 without syntax errors");
}

#[test]
fn parse_json_reports_located_errors() {
    let dir = tmp_dir("json");
    // Line 3 lacks its `;`: like the reference compiler, the error is at the
    // token found instead (`int` on line 4, col 5); line 5 has a stray `)`
    // at column 5.
    let text = "void f()\n{\n    int a = 1\n    int b = 2;\n    ) return;\n}\n";
    let file = write(&dir, "broken.slang", text);
    let out = run(&["parse", "--json", &file]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one JSON object per file: {stdout}");
    let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(v["file"], file.as_str());
    assert_eq!(v["bytes"], text.len());
    assert_eq!(v["lossless"], true);
    assert!(v["micros"].is_u64());
    let diags = v["diagnostics"].as_array().unwrap();
    let positions: Vec<(u64, u64)> =
        diags.iter().map(|d| (d["line"].as_u64().unwrap(), d["col"].as_u64().unwrap())).collect();
    assert_eq!(positions, vec![(4, 5), (5, 5)], "{diags:?}");
    for d in diags {
        assert_eq!(d["severity"], "error");
        assert_eq!(d["code"], "syntax");
        assert!(!d["message"].as_str().unwrap().is_empty());
    }
    assert_eq!(diags[0]["message"], "expected `;`");
}

#[test]
fn parse_folder_finds_slang_files_recursively() {
    let dir = tmp_dir("folder");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    write(&dir, "a.slang", "float a;\n");
    write(&dir.join("sub"), "b.slang", "float b;\n");
    write(&dir.join("sub"), "c.slangh", "float c;\n");
    write(&dir, "notes.txt", "not slang (((");
    let out = run(&["parse", "--json", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let files: Vec<String> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(files[0].ends_with("a.slang") && files[1].ends_with("b.slang") && files[2].ends_with("c.slangh"));
}

#[test]
fn defines_select_preprocessor_branches() {
    let dir = tmp_dir("defines");
    let file = write(&dir, "d.slang", "#ifdef BROKEN\nint x = ;\n#else\nint x = 1;\n#endif\n");
    assert!(run(&["parse", &file]).status.success());
    let out = run(&["parse", "-D", "BROKEN", &file]);
    assert_eq!(out.status.code(), Some(1));
    let out = run(&["parse", "-DBROKEN=1", &file]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn missing_file_is_a_clear_error() {
    let out = run(&["parse", "/nonexistent/file.slang"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("/nonexistent/file.slang"), "{stderr}");
}

#[test]
fn invalid_utf8_is_reported_not_fatal() {
    let dir = tmp_dir("utf8");
    let path = dir.join("bytes.slang");
    std::fs::write(&path, b"float a = 1.0;\nfloat \xff\xfe b;\n").unwrap();
    let out = run(&["parse", "--json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["diagnostics"][0]["line"], 2);
}

#[test]
fn tree_flag_prints_the_syntax_tree() {
    let dir = tmp_dir("tree");
    let file = write(&dir, "t.slang", "float f() { return 1.0; }\n");
    let out = run(&["parse", "--tree", &file]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("SOURCE_FILE@0..26\n  FN@0..25\n"), "{stdout}");
    assert!(stdout.contains("RETURN_STMT@"));
}

#[test]
fn language_server_stops_at_end_of_input() {
    // `lsp` (and no subcommand) serve LSP on stdin; closed stdin ends it.
    for args in [&["lsp"][..], &[][..]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn help_lists_parse() {
    let out = run(&["--help"]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("parse"), "{stdout}");
}

#[test]
fn error_directives_are_warnings_that_do_not_fail_the_parse() {
    let dir = tmp_dir("errdir");
    let file = write(&dir, "e.slang", "#ifndef MODE\n#error MODE must be defined\n#endif\nint x;\n");
    let out = run(&["parse", "--json", &file]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!((d["line"].as_u64(), d["severity"].as_str()), (Some(2), Some("warning")));
    assert_eq!(d["code"], "error-directive");
    // With the define, the directive is in a branch not taken.
    let out = run(&["parse", "--json", "-D", "MODE=1", &file]);
    let v: serde_json::Value = serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0);
}

#[test]
fn check_reports_rustc_style_diagnostics() {
    let dir = tmp_dir("check");
    let file = write(&dir, "main.slang", "float f(float x)\n{\n    return x + missing;\n}\n");
    let out = run(&["check", &file]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let expected = format!(
        "error[unresolved-name]: cannot find `missing` in this scope\n --> {file}:3:16\n  |\n3 |     return x + missing;\n  |                ^^^^^^^\n\n1 files checked: 1 error, 0 warnings\n"
    );
    assert_eq!(stdout, expected);
}

#[test]
fn check_loads_imports_from_disk_and_search_paths() {
    let dir = tmp_dir("check-imports");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    write(&dir.join("lib"), "helpers.slang", "module helpers;\npublic float helper(float x) { return x; }\n");
    write(&dir.join("inc"), "consts.slangh", "#define SCALE 2.0\n");
    let file = write(
        &dir,
        "main.slang",
        "import lib.helpers;\n#include \"consts.slangh\"\nfloat f(float x) { return helper(x) * SCALE; }\n",
    );
    // Without -I the header is missing.
    let out = run(&["check", "--json", &file]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["diagnostics"][0]["code"], "unresolved-import");
    assert_eq!(v["diagnostics"][0]["line"], 2);
    // With -I it resolves and the file is clean.
    let inc = dir.join("inc");
    let out = run(&["check", "--json", "-I", inc.to_str().unwrap(), &file]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

/// Each file named on the command line is where a compilation starts, as
/// for the reference compiler, which rejects `implementing m;` there
/// (E30102, on that line) and accepts the module's primary file; a file
/// found in a folder and `__include`d by another is checked as part of
/// its module.
#[test]
fn check_rejects_implementing_in_the_file_a_compilation_starts_from() {
    let dir = tmp_dir("check-implementing");
    let primary = write(&dir, "scene.slang", "module scene;\n__include scene_helpers;\nfloat f() { return g(); }\n");
    let part = write(
        &dir,
        "scene_helpers.slang",
        "// Part of scene.\nimplementing scene;\ninternal float g() { return 1.0; }\n",
    );
    let out = run(&["check", "--json", &part]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["diagnostics"][0]["code"], "implementing-in-root");
    assert_eq!(v["diagnostics"][0]["line"], 2);
    assert!(v["diagnostics"][0]["message"].as_str().unwrap().contains("check `scene.slang`"), "{v}");
    let out = run(&["check", "--json", &primary]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let out = run(&["check", "--json", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

/// `derive` prints both signatures by the user guide's rules (the
/// material is `IDifferentiable`, `no_diff` vectors stay plain, the
/// float3 result is paired forward and a final derivative input backward),
/// what the backward derivative saves for its backward pass, then the
/// material's synthesized `Differential` (its `no_diff uint id` has no
/// derivative field).
#[test]
fn derive_prints_derivative_signatures() {
    let out = run(&["derive", "../tests/examples/differentiable_shading.slang", "--function", "shade"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    // (The context size is checked apart: it depends on what the backward
    // pass reads.)
    let mut lines: Vec<&str> = stdout.lines().collect();
    let context = lines.remove(2);
    assert!(
        context.starts_with("// bwd_diff(shade) saves ")
            && context.contains(" bytes per thread for its backward pass ("),
        "{context}"
    );
    let stdout = lines.join("\n") + "\n";
    assert_eq!(
        stdout,
        "DifferentialPair<float3> fwd_diff(shade)(DifferentialPair<Material> m, float3 n, float3 l, float3 v)\n\
         void bwd_diff(shade)(inout DifferentialPair<Material> m, float3 n, float3 l, float3 v, float3 dResult)\n\
         // struct Material.Differential // synthesized\n\
         // {\n\
         //     float3 albedo;\n\
         //     float roughness;\n\
         // }\n"
    );
    let dir = tmp_dir("derive");
    let f = write(&dir, "a.slang", "float plain(float x) { return x; }\n");
    let out = run(&["derive", &f, "--function", "plain", "--mode", "bwd"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("is not backward-differentiable"), "{out:?}");
    let out = run(&["derive", &f, "--function", "missing"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no function named `missing`"), "{out:?}");
}

#[test]
fn compile_writes_validated_target_code_or_located_errors() {
    let dir = tmp_dir("compile");
    let saxpy = write(
        &dir,
        "saxpy.slang",
        "RWStructuredBuffer<float> y;\nStructuredBuffer<float> x;\n[shader(\"compute\")]\n[numthreads(64, 1, 1)]\nvoid computeMain(uint3 id : SV_DispatchThreadID)\n{\n    y[id.x] = 2.0 * x[id.x] + y[id.x];\n}\n",
    );
    let out = run(&["compile", &saxpy, "--target", "wgsl"]);
    assert!(out.status.success(), "{out:?}");
    let wgsl = String::from_utf8(out.stdout).unwrap();
    assert!(wgsl.contains("@compute @workgroup_size(64, 1, 1)") && wgsl.contains("fn computeMain"), "{wgsl}");
    for target in ["glsl", "hlsl", "msl"] {
        let out = run(&["compile", &saxpy, "--target", target, "--entry", "computeMain"]);
        assert!(out.status.success() && !out.stdout.is_empty(), "{target}: {out:?}");
    }
    // SPIR-V: binary, to a file; it starts with the SPIR-V magic number.
    let spv = dir.join("saxpy.spv");
    let out = run(&["compile", &saxpy, "--target", "spirv", "-o", spv.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let bytes = std::fs::read(&spv).unwrap();
    assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes());
    // What code generation cannot do yet: an error at its place.
    let pair = write(
        &dir,
        "pair.slang",
        "RWStructuredBuffer<float> y;\nTexture2DMS<float> t;\nfloat sq(float x) { return x * x; }\n[numthreads(1, 1, 1)]\nvoid computeMain()\n{\n    float p = sq(2.0);\n    p += t.Load(int2(0, 0), 0);\n    y[0] = p;\n}\n",
    );
    let out = run(&["compile", &pair]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("pair.slang:8:"), "{err}");
    let out = run(&["compile", &saxpy, "--target", "dxil"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn derive_prints_the_generated_forward_derivative() {
    let out = run(&[
        "derive",
        "../tests/examples/differentiable_shading.slang",
        "--function",
        "shade",
        "--mode",
        "fwd",
        "--code",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    // The signature, then a function of that signature with a body.
    let sig = text.lines().next().unwrap();
    assert!(sig.starts_with("DifferentialPair<float3> fwd_diff(shade)(DifferentialPair<Material> m"), "{text}");
    assert!(text.contains("DifferentialPair<float3> s_fwd_shade(DifferentialPair<Material> m"), "{text}");
    assert!(text.contains("return"), "{text}");
}

/// A function whose parameters are buffers, or structs holding them, has
/// its derivatives generated when compiled alone (each buffer stands for
/// a global of its own), as the editor's derivative view compiles it.
#[test]
fn derive_generates_derivatives_of_functions_taking_buffers() {
    for (function, name) in [("scaled", "s_bwd_scaled_b"), ("g", "s_bwd_g_p_data_p_inner_grad")] {
        let file = match function {
            "scaled" => "../tests/compute/buffer_params.slang",
            _ => "../tests/compute/struct_buffers.slang",
        };
        let out = run(&["derive", file, "--function", function, "--mode", "bwd", "--code"]);
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("saves 4 bytes per thread"), "{text}");
        assert!(text.contains(&format!("void {name}(")), "{text}");
    }
}

/// `derive --passes` prints the backward derivative's IR after each
/// reverse-mode pass, in pipeline order, with what transcription saves
/// (unzip and transpose: every value) and what is left after checkpointing (the cheap values
/// recomputed: `x * x` and `sin` of it come from the parameter again).
#[test]
fn derive_passes_prints_each_reverse_mode_pass() {
    let dir = tmp_dir("passes");
    let f = write(&dir, "f.slang", "[Differentiable]\nfloat f(float x) { float a = x * x; return sin(a) * x; }\n");
    let out = run(&["derive", &f, "--function", "f", "--mode", "bwd", "--passes"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("// ---- after ")).collect();
    assert_eq!(
        headers,
        [
            "// ---- after primal ----",
            "// ---- after normalize ----",
            "// ---- after linearize ----",
            "// ---- after unzip ----",
            "// ---- after transpose ----",
            "// ---- after checkpoint ----",
            "// ---- after extract ----"
        ],
        "{text}"
    );
    let after = |pass: &str| text.split(&format!("after {pass} ----\n")).nth(1).unwrap().lines().next().unwrap();
    assert_eq!(after("transpose"), "// saves 12 bytes per thread (3 values)", "{text}");
    assert_eq!(after("checkpoint"), "// saves 0 bytes per thread (0 values)", "{text}");
}

/// A file with an error elsewhere: `derive` still prints the signatures,
/// and says why no code is generated, at the error's line and column.
#[test]
fn derive_locates_the_error_that_stops_code_generation() {
    let dir = tmp_dir("derive-error");
    let f = write(
        &dir,
        "f.slang",
        "[Differentiable]\nfloat f(float x) { return x * x; }\nvoid g() { float y = undefinedName; }\n",
    );
    let out = run(&["derive", &f, "--function", "f", "--mode", "bwd"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("void bwd_diff(f)(inout DifferentialPair<float> x, float dResult)"), "{text}");
    assert!(text.contains("// bwd_diff(f) is not generated: 3:22: "), "{text}");
}

/// `--stdio` (which LSP clients such as vscode-languageclient add) starts
/// the language server, alone or after `lsp`.
#[test]
fn stdio_flag_starts_the_language_server() {
    use std::io::{BufRead, Read, Write};
    for args in [&["--stdio"][..], &["lsp", "--stdio"]] {
        let mut child = bin()
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start the server");
        let mut stdin = child.stdin.take().unwrap();
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#;
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
        // The first message: the initialize response (a server that
        // rejected the flag would have exited, closing stdout).
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            assert!(out.read_line(&mut line).unwrap() > 0, "{args:?}: the server exited");
            match line.trim().strip_prefix("Content-Length:") {
                Some(n) => len = n.trim().parse().unwrap(),
                None if line.trim().is_empty() => break,
                None => {}
            }
        }
        let mut reply = vec![0; len];
        out.read_exact(&mut reply).unwrap();
        let reply = String::from_utf8_lossy(&reply);
        assert!(reply.contains(r#""name":"slang-analyzer""#), "{args:?}: {reply}");
        let _ = child.kill();
        let _ = child.wait();
    }
}
