//! The Neovim plugin (`editors/neovim`) in a real headless Neovim, attached
//! to the freshly built server: `tests/neovim/check.lua` opens a copy of
//! `tests/examples/differentiable_shading.slang`, records what Neovim sees
//! (hover, completion, diagnostics, semantic tokens, the buffers of
//! `:SlangShowDerivative` and `:SlangShowCompiled`, `:SlangRestartServer`,
//! tree-sitter captures) as JSON, and this file checks it. Once through
//! `vim.lsp.config`/`vim.lsp.enable` (Neovim 0.11+), once through
//! `vim.lsp.start` (the path of Neovim 0.10).
//!
//! Neovim 0.11+: `$SLANG_NVIM`, else `target/editor-tools/bin/nvim` (what
//! `editors/neovim/test/setup.sh` installs), else `nvim` on `PATH`. Without
//! one the tests are skipped, loudly, except under `CI`, where they fail.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

const TIMEOUT: Duration = Duration::from_secs(90);

/// One Neovim (and server) at a time: the machine may be small, and the
/// second run finds the parser the first one built.
static SERIAL: Mutex<()> = Mutex::new(());

/// The first run rebuilds the parser (`:SlangBuildParser!`); the second
/// finds it up to date.
static PARSER_BUILT: AtomicBool = AtomicBool::new(false);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `(major, minor)` of `nvim --version`, if it runs.
fn nvim_version(nvim: &Path) -> Option<(u32, u32)> {
    let out = Command::new(nvim).arg("--version").stdin(Stdio::null()).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v = text.lines().next()?.strip_prefix("NVIM v")?;
    let mut parts = v.split(|c: char| !c.is_ascii_digit());
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

fn recent_enough(nvim: &Path) -> bool {
    nvim_version(nvim).is_some_and(|v| v >= (0, 11))
}

/// The Neovim to test with, or `None` (skip) when there is none outside CI.
fn nvim() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SLANG_NVIM") {
        let p = PathBuf::from(p);
        assert!(recent_enough(&p), "SLANG_NVIM={} is not a Neovim 0.11 or newer", p.display());
        return Some(p);
    }
    let cached = repo().join("target/editor-tools/bin/nvim");
    if recent_enough(&cached) {
        return Some(cached);
    }
    let on_path = PathBuf::from("nvim");
    if recent_enough(&on_path) {
        return Some(on_path);
    }
    let msg = "no Neovim 0.11+ found: run editors/neovim/test/setup.sh (it installs one into \
               target/editor-tools/bin/nvim), or set SLANG_NVIM";
    if std::env::var_os("CI").is_some() {
        panic!("{msg}");
    }
    // Straight to stderr: the test harness would swallow eprintln! of a passing test.
    let _ = writeln!(std::io::stderr(), "\n*** SKIPPED: the Neovim plugin test did not run: {msg} ***\n");
    None
}

/// Runs `tests/neovim/check.lua` with the given LSP API; its JSON report.
fn run(api: &str) -> Option<(Value, PathBuf)> {
    let nvim = nvim()?;
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let repo = repo();
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("neovim-{api}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let ws = tmp.join("workspace");
    std::fs::create_dir_all(&ws).unwrap();
    // The root marker the config names: the workspace root is this folder.
    std::fs::write(ws.join("slang-analyzer.json"), "{}\n").unwrap();
    let file = ws.join("shading.slang");
    std::fs::copy(repo.join("tests/examples/differentiable_shading.slang"), &file).unwrap();
    let out = tmp.join("report.json");
    let parser_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("neovim-parser");
    let build = match (grammar_exists(), PARSER_BUILT.swap(true, Ordering::SeqCst)) {
        (false, _) => "0",
        (true, false) => "force",
        (true, true) => "1",
    };

    let mut cmd = Command::new(&nvim);
    cmd.args(["--clean", "--headless", "--cmd"])
        .arg(format!("set rtp^={}", repo.join("editors/neovim").display()))
        .arg("-c")
        .arg(format!("luafile {}", repo.join("tests/neovim/check.lua").display()))
        .current_dir(&ws)
        .env("SLANG_TEST_API", api)
        .env("SLANG_ANALYZER_BIN", env!("CARGO_BIN_EXE_slang-analyzer"))
        .env("SLANG_TEST_FILE", &file)
        .env("SLANG_TEST_OUT", &out)
        .env("SLANG_TEST_GRAMMAR_DIR", repo.join("grammar"))
        .env("SLANG_TEST_PARSER_DIR", &parser_dir)
        .env("SLANG_TEST_BUILD_PARSER", build)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(tmp.join("stdout")).unwrap())
        .stderr(std::fs::File::create(tmp.join("stderr")).unwrap());
    // Nothing of the user's: configuration, data, state and logs in `tmp`.
    for (var, dir) in [
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ] {
        cmd.env(var, tmp.join(dir));
    }
    cmd.env("NVIM_LOG_FILE", tmp.join("nvim.log"));
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{}: {e}", nvim.display()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Neovim did not finish within {TIMEOUT:?}{}", outputs(&tmp));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let report = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("no report from Neovim ({status}): {e}{}", outputs(&tmp)));
    let report: Value = serde_json::from_str(&report).unwrap();
    assert!(report["error"].is_null(), "the Lua script failed: {}\nlog: {}", report["error"], report["log"]);
    assert!(status.success(), "Neovim exited with {status}{}", outputs(&tmp));
    Some((report, ws))
}

/// Removes a run's folder once its checks passed.
fn clean(ws: &Path) {
    let _ = std::fs::remove_dir_all(ws.parent().unwrap());
}

fn grammar_exists() -> bool {
    repo().join("grammar/src/parser.c").exists()
}

fn outputs(tmp: &Path) -> String {
    let read = |f: &str| std::fs::read_to_string(tmp.join(f)).unwrap_or_default();
    format!("\nstdout: {}\nstderr: {}", read("stdout"), read("stderr"))
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_else(|| panic!("no `{key}` in {v:#}"))
}

fn check(api: &str) {
    let Some((r, ws)) = run(api) else { return };
    let log = &r["log"];
    assert_eq!(r["api_used"], api, "{r:#}");
    for (name, defined) in r["commands"].as_object().unwrap() {
        assert_eq!(defined, true, "command {name} is not defined");
    }
    assert_eq!(r["commands"].as_object().unwrap().len(), 5);
    assert_eq!(r["filetype"], "slang");
    assert_eq!(r["filetype_slangh"], "slang");
    assert_eq!(r["commentstring"], "// %s");
    assert_eq!(r["attached"], true, "the server did not attach: {log}");
    assert_eq!(r["server_name"], "slang-analyzer");
    let client = &r["client"];
    assert_eq!(client["name"], "slang_analyzer");
    assert_eq!(client["cmd"][0], env!("CARGO_BIN_EXE_slang-analyzer"));
    let root = PathBuf::from(text(client, "root_dir"));
    assert_eq!(root.canonicalize().unwrap(), ws.canonicalize().unwrap(), "root_markers");

    // Hover at the declaration of a [Differentiable] function: the
    // declaration and both derivative signatures.
    let hover = text(&r, "hover");
    for want in [
        "float3 shade(Material m, no_diff float3 n, no_diff float3 l, no_diff float3 v)",
        "DifferentialPair<float3> fwd_diff(shade)(DifferentialPair<Material> m, float3 n, float3 l, float3 v)",
        "void bwd_diff(shade)(inout DifferentialPair<Material> m, float3 n, float3 l, float3 v, float3 dResult)",
    ] {
        assert!(hover.contains(want), "hover lacks {want:?}:\n{hover}");
    }

    // Member completion after `m.` typed into the buffer.
    let labels: Vec<&str> = r["completion"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(labels, ["albedo", "roughness", "id"], "{log}");

    // Semantic tokens with the `differentiable` modifier on `m` in `shade`.
    let semantic = r["semantic"].as_array().unwrap();
    assert!(
        semantic
            .iter()
            .any(|t| t["type"] == "parameter"
                && t["modifiers"].as_array().unwrap().iter().any(|m| m == "differentiable")),
        "{semantic:?}"
    );

    // The checkpoint code lens on `loss` (line 24), which `fitRoughness`
    // differentiates with `bwd_diff`: "saves N B/thread (M values)".
    let lenses = r["lenses"].as_array().unwrap();
    let on_loss =
        lenses.iter().find(|l| l["line"] == 23).unwrap_or_else(|| panic!("no lens on `loss`: {lenses:?}\n{log}"));
    let title = text(on_loss, "title");
    assert!(title.starts_with("saves ") && title.contains(" B/thread ("), "{title}");

    // :SlangShowDerivative passes — the IR after each reverse-mode pass, in
    // a buffer of its own (the derivative's stays).
    let p = &r["passes"];
    assert!(p.is_object(), "no passes buffer: {log}");
    assert_eq!(p["uri"], "slang-analyzer:/passes/shade.slang");
    assert_eq!(p["modifiable"], false);
    let ir = text(p, "text");
    for pass in ["primal", "normalize", "linearize", "unzip", "transpose", "checkpoint", "extract"] {
        assert!(ir.contains(&format!("// ---- after {pass} ----")), "{pass}: {ir}");
    }
    assert!(ir.contains("func s_lin_shade(") && ir.contains("func s_bwd_prop_shade("), "{ir}");

    // :SlangShowDerivative bwd — a read-only scratch buffer of generated code.
    let d = &r["derivative"];
    assert!(d.is_object(), "no derivative buffer: {log}");
    assert_eq!(d["uri"], "slang-analyzer:/derivative/shade.slang");
    assert!(text(d, "name").ends_with("slang-analyzer:/derivative/shade.slang"), "{d}");
    assert_eq!(d["filetype"], "slang");
    assert_eq!(d["buftype"], "nofile");
    assert_eq!(d["modifiable"], false);
    assert_eq!(d["shown"], true);
    assert_eq!(d["clients"], 0, "the server must not attach to generated code");
    assert_eq!(d["source_still_attached"], true);
    let code = text(d, "text");
    assert!(
        code.contains(
            "void bwd_diff(shade)(inout DifferentialPair<Material> m, float3 n, float3 l, float3 v, float3 dResult);"
        ),
        "{code}"
    );
    assert!(code.contains("void s_bwd_shade(inout DifferentialPair<Material> m"), "{code}");
    assert!(code.contains("s_bwd_prop_shade("), "{code}");

    // On a function that is not differentiable: the server's error.
    let e = text(&r, "derivative_error");
    assert!(e.starts_with("notify[4]: slang-analyzer: ") && e.contains("`fitRoughness` is not differentiable"), "{e}");

    // :SlangShowCompiled wgsl — the entry point in WGSL.
    let c = &r["compiled"];
    assert!(c.is_object(), "no compiled buffer: {log}");
    assert_eq!(c["uri"], "slang-analyzer:/compile/fitRoughness.wgsl");
    assert_eq!(c["filetype"], "wgsl");
    assert_eq!(c["modifiable"], false);
    assert_eq!(c["clients"], 0);
    let wgsl = text(c, "text");
    assert!(wgsl.contains("@compute @workgroup_size(1, 1, 1)") && wgsl.contains("fn fitRoughness("), "{wgsl}");

    // A deliberate error typed in: its diagnostic on its line, once (pushed
    // only: the plugin does not declare pulling).
    let line = r["error_line"].as_u64().unwrap();
    let diags = r["diagnostics"].as_array().unwrap();
    let undefined: Vec<&Value> =
        diags.iter().filter(|d| d["message"].as_str().unwrap().contains("undefinedScale")).collect();
    assert_eq!(undefined.len(), 1, "{diags:#?}");
    assert_eq!(undefined[0]["lnum"], line, "{diags:#?}");
    assert_eq!(undefined[0]["col"], 14, "{diags:#?}");
    assert_eq!(undefined[0]["severity"], 1, "an error: {diags:#?}");
    assert_eq!(undefined[0]["source"], "slang-analyzer");

    // :SlangRestartServer — a new server, given the edited buffer.
    let rs = &r["restart"];
    assert!(rs["new_id"].is_number() && rs["new_id"] != rs["old_id"], "{rs:#}\n{log}");
    assert_eq!(rs["old_stopped"], true);
    let diags = rs["diagnostics"].as_array().unwrap();
    let undefined: Vec<&Value> =
        diags.iter().filter(|d| d["message"].as_str().unwrap().contains("undefinedScale")).collect();
    assert_eq!(undefined.len(), 1, "{diags:#?}");
    assert_eq!(undefined[0]["lnum"], line);
    assert_eq!(undefined[0]["new_client"], true);
    assert!(text(rs, "hover").contains("void bwd_diff(loss)(inout DifferentialPair<Material> m"), "{rs:#}");

    check_captures(&r);

    // No command reported an error.
    for entry in log.as_array().unwrap() {
        let entry = entry.as_str().unwrap();
        assert!(!entry.starts_with("notify[4]") && !entry.starts_with("timed out"), "{log:#}");
    }
    clean(&ws);
}

/// Tree-sitter: the parser built by `:SlangBuildParser`, highlighting
/// started by the ftplugin, and the capture names at a few positions.
fn check_captures(r: &Value) {
    if !grammar_exists() {
        let _ = writeln!(
            std::io::stderr(),
            "*** grammar/src/parser.c does not exist: tree-sitter captures not checked ***"
        );
        return;
    }
    assert_eq!(r["parser"], true, "SlangBuildParser did not build parser/slang.so: {}", r["log"]);
    // `:SlangBuildParser!` compiles (the second run's `:SlangBuildParser`
    // finds it up to date, unless grammar/src changed in between).
    if r["build_mode"] == "force" {
        let built = r["log"].as_array().unwrap().iter().any(|l| l.as_str().unwrap().contains("slang-analyzer: built "));
        assert!(built, "{}", r["log"]);
    }
    assert_eq!(r["ts_active"], true, "tree-sitter highlighting did not start: {}", r["log"]);
    let caps = &r["captures"];
    let names = |probe: &str| -> Vec<String> {
        caps[probe].as_array().unwrap().iter().filter_map(Value::as_str).map(str::to_string).collect()
    };
    // `want` or one of its refinements (`keyword` covers `keyword.type`).
    let has = |probe: &str, want: &str| {
        let names = names(probe);
        assert!(
            names.iter().any(|n| n == want || n.starts_with(&format!("{want}."))),
            "at `{probe}`: captures {names:?}, expected @{want}"
        );
    };
    has("struct", "keyword");
    has("type_name", "type");
    // The declared function: @function itself, not a builtin.
    let decl = names("function_decl");
    assert!(decl.iter().any(|n| n == "function"), "{decl:?}");
    assert!(!decl.iter().any(|n| n.starts_with("function.builtin")), "{decl:?}");
    has("attribute", "attribute");
    has("bwd_diff", "function.builtin");
    has("return", "keyword.return");
    has("comment", "comment");
    has("number", "number");
    has("builtin_type", "type");
}

#[test]
fn neovim_lsp_config_and_enable() {
    check("config");
}

#[test]
fn neovim_lsp_start() {
    check("start");
}
