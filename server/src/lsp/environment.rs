//! The workspace's Python side: slangpy's shader folders, found through
//! the workspace's Python interpreter (`slang.pythonPath`, else `python3`
//! on `PATH`), and the include paths and defines of slangtorch's build
//! caches (`.slangtorch_cache/…/metadata.json`, found by
//! [`super::workspace::scan`]). Both become search paths (and defines) in
//! `GlobalState::apply_config`; what was found, or why not, is logged.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::workspace::SLANGTORCH_CACHE;

/// How long the interpreter may take to answer.
pub const PYTHON_TIME_LIMIT: Duration = Duration::from_secs(3);

/// Finds the package without importing it (`find_spec` of a top-level
/// package reads no native code and runs none of its `__init__`).
const FIND_SLANGPY: &str = "import importlib.util as u\n\
s = u.find_spec('slangpy')\n\
print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')";

/// The folders of a slangpy package that hold its shaders: `slang`
/// (`slangpy.slang`, `tensor.slang`, …: what slangpy passes the compiler as
/// its include path) and `shaders` (the `sgl` modules).
const SHADER_FOLDERS: &[&str] = &["slang", "shaders"];

/// The interpreter used: the setting (a relative path such as
/// `.venv/bin/python` is the first workspace folder's), else `python3`.
pub fn python_of(setting: Option<&str>, roots: &[PathBuf]) -> String {
    let Some(p) = setting else { return "python3".to_string() };
    match roots.first() {
        Some(root) if Path::new(p).is_relative() && p.contains(['/', '\\']) => {
            root.join(p).to_string_lossy().replace('\\', "/")
        }
        _ => p.to_string(),
    }
}

/// slangpy's shader folders in `python`'s environment, or why there are
/// none.
pub fn slangpy_folders(python: &str) -> Result<Vec<String>, String> {
    let out = run_with_limit(python, &["-c", FIND_SLANGPY], PYTHON_TIME_LIMIT)?;
    let package = out.trim();
    if package.is_empty() {
        return Err(format!("slangpy is not installed for {python}"));
    }
    let folders: Vec<String> = SHADER_FOLDERS
        .iter()
        .map(|f| Path::new(package).join(f))
        .filter(|p| p.is_dir())
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .collect();
    if folders.is_empty() {
        return Err(format!("slangpy at {package} has no shader folder"));
    }
    Ok(folders)
}

/// Runs `program args` and returns its standard output, killing it after
/// `limit`.
fn run_with_limit(program: &str, args: &[&str], limit: Duration) -> Result<String, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let mut out = String::new();
                if let Some(mut stdout) = child.stdout.take() {
                    let _ = stdout.read_to_string(&mut out);
                }
                return if status.success() { Ok(out) } else { Err(format!("{program} failed ({status})")) };
            }
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{program} did not answer within {} s", limit.as_secs()));
            }
            Err(e) => return Err(format!("cannot run {program}: {e}")),
        }
    }
}

/// What slangtorch's caches say: include paths and defines (each once).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Slangtorch {
    pub include_paths: Vec<String>,
    pub defines: Vec<(String, String)>,
    /// Unreadable metadata files, as messages.
    pub problems: Vec<String>,
}

/// Reads slangtorch's `metadata.json` files. Each holds, per target
/// (`cpp`, `cuda`), the compiler's `options` (`-DNAME=VALUE`) and
/// `includePaths`; relative paths are taken from the folder of the module
/// (the one holding `.slangtorch_cache`), where slangtorch is usually run.
pub fn read_slangtorch(metadata: &[PathBuf]) -> Slangtorch {
    let mut out = Slangtorch::default();
    for file in metadata {
        let json = std::fs::read_to_string(file)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| e.to_string()));
        let json = match json {
            Ok(v) => v,
            Err(e) => {
                out.problems.push(format!("{}: {e}", file.display()));
                continue;
            }
        };
        let module_dir =
            file.ancestors().find(|a| a.file_name().is_some_and(|n| n == SLANGTORCH_CACHE)).and_then(Path::parent);
        let targets = json.as_object().into_iter().flat_map(|o| o.values()).filter(|v| v.is_object());
        for target in targets {
            for p in target["includePaths"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                let abs = match module_dir {
                    Some(dir) if Path::new(p).is_relative() => dir.join(p),
                    _ => PathBuf::from(p),
                };
                let abs = abs.to_string_lossy().replace('\\', "/");
                if !out.include_paths.contains(&abs) {
                    out.include_paths.push(abs);
                }
            }
            for o in target["options"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                let Some(def) = o.strip_prefix("-D") else { continue };
                let m = match def.split_once('=') {
                    Some((n, v)) => (n.to_string(), v.to_string()),
                    None => (def.to_string(), "1".to_string()),
                };
                if !out.defines.contains(&m) {
                    out.defines.push(m);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slangtorch_metadata() {
        let dir = std::env::temp_dir().join(format!("slang-analyzer-torch-{}", std::process::id()));
        let build = dir.join(".slangtorch_cache/square/0123abcd/0");
        std::fs::create_dir_all(&build).unwrap();
        let meta = serde_json::json!({
            "cpp": {"options": ["-DN=4", "-DUSE_X"], "includePaths": ["lib", "/abs/inc"], "deps": []},
            "cuda": {"options": ["-DN=4"], "includePaths": ["lib"]},
            "moduleName": "_slangtorch_square_0123abcd_0"
        });
        std::fs::write(build.join("metadata.json"), meta.to_string()).unwrap();
        std::fs::write(dir.join("bad.json"), "{").unwrap();
        let t = read_slangtorch(&[build.join("metadata.json"), dir.join("bad.json")]);
        let lib = dir.join("lib").to_string_lossy().replace('\\', "/");
        assert_eq!(t.include_paths, vec![lib, "/abs/inc".to_string()]);
        assert_eq!(t.defines, vec![("N".into(), "4".into()), ("USE_X".into(), "1".into())]);
        assert_eq!(t.problems.len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn interpreter_paths() {
        let roots = [PathBuf::from("/ws")];
        assert_eq!(python_of(None, &roots), "python3");
        assert_eq!(python_of(Some("python3.12"), &roots), "python3.12");
        assert_eq!(python_of(Some(".venv/bin/python"), &roots), "/ws/.venv/bin/python");
        assert_eq!(python_of(Some("/usr/bin/python3"), &roots), "/usr/bin/python3");
    }

    #[test]
    fn missing_interpreter_is_reported() {
        let e = slangpy_folders("/nonexistent/python3").unwrap_err();
        assert!(e.contains("cannot run"), "{e}");
    }
}
