//! Protocol tests of workspaces on disk, through the real binary over
//! stdio: a Falcor-like workspace (the latency bench's, smaller), imports
//! found on disk after an edit, and a SlangPy project whose package is
//! found by a real Python interpreter.

mod lsp_client;

#[path = "bench_workspace.rs"]
mod bench_workspace;

use lsp_client::Client;
use serde_json::{json, Value};

/// The position of the first `marker` in `text` (UTF-16 columns).
fn pos(text: &str, marker: &str) -> Value {
    let i = text.find(marker).unwrap_or_else(|| panic!("{marker} not in text"));
    let line = text[..i].matches('\n').count();
    let col = text[..i].rsplit('\n').next().unwrap().encode_utf16().count();
    json!({"line": line, "character": col})
}

/// A fresh folder under the system temp dir.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("slang-analyzer-ws-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn uri_of(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

/// Falcor's imports name modules from `Source/Falcor`, a folder with no
/// Slang file of its own: the workspace's search paths are its folders
/// and their ancestors, as the reference server's are. Indexed with
/// progress, the workspace answers symbols, references and rename across
/// its files.
#[test]
fn a_falcor_like_workspace_resolves_imports_and_navigates_across_files() {
    let dir = temp_dir("falcor");
    let ws = bench_workspace::falcor_like(&dir, 3, true);
    let caps = json!({"window": {"workDoneProgress": true}});
    let mut c = Client::start_in(caps, Some(ws.root.to_str().unwrap()), Value::Null);
    c.wait_for(&|v| v["method"] == "$/progress" && v["params"]["value"]["kind"] == "begin");
    let end = c.wait_for(&|v| v["method"] == "$/progress" && v["params"]["value"]["kind"] == "end");
    assert_eq!(end["params"]["value"]["message"], format!("{} files", ws.modules), "{end}");
    let uri = uri_of(&ws.main);
    let text = &ws.main_text;
    c.open(&uri, text);
    assert_eq!(c.diagnostics(&uri, 1), Vec::<Value>::new());

    // Hover and definition of a function of an imported module.
    let call = text.find("float w = ").unwrap() + "float w = ".len();
    let name: String = text[call..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    let at = pos(text, &format!("{name}("));
    let r = c.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": at}));
    assert!(r["result"]["contents"]["value"].as_str().unwrap().contains(&format!("{name}(float x, float3 v)")), "{r}");
    let r = c.request("textDocument/definition", json!({"textDocument": {"uri": uri}, "position": at}));
    let def = r["result"].as_array().and_then(|a| a.first()).unwrap_or(&r["result"]);
    assert!(def["uri"].as_str().unwrap().contains("/Source/Falcor/"), "{r}");

    // A struct of `Rendering/Lights/Lights2.slang`: references and rename
    // reach the module and the importing file.
    let module = ws.root.join("Falcor/Rendering/Lights/Lights2.slang");
    let at = pos(text, "Lights2Data data");
    let r = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": uri}, "position": at, "context": {"includeDeclaration": true}}),
    );
    let mut files: Vec<String> =
        r["result"].as_array().unwrap().iter().map(|l| l["uri"].as_str().unwrap().to_string()).collect();
    files.dedup();
    assert_eq!(files.len(), 2, "{r}");
    assert!(files.contains(&uri_of(&module)), "{r}");
    let r = c.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri}, "position": at, "newName": "LightSample"}),
    );
    let changes = r["result"]["changes"].as_object().unwrap_or_else(|| panic!("{r}"));
    assert!(changes.contains_key(&uri_of(&module)) && changes.contains_key(&uri), "{r}");

    // Workspace symbols: a declaration in a file that no open file
    // imports.
    let r = c.request("workspace/symbol", json!({"query": "Camera0Eval"}));
    let found = r["result"].as_array().unwrap();
    assert!(
        found.iter().any(|s| s["location"]["uri"] == uri_of(&ws.root.join("Falcor/Scene/Camera/Camera0.slang"))),
        "{r}"
    );

    // An edit that breaks the file, then its undoing.
    let line = text.lines().position(|l| l.trim_start().starts_with("return y + pt.shade0")).unwrap();
    let at = json!({"line": line, "character": 4});
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": at, "end": at}, "text": "@"}]}),
    );
    assert!(!c.diagnostics(&uri, 2).is_empty());
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3},
               "contentChanges": [{"range": {"start": at, "end": {"line": line, "character": 5}}, "text": ""}]}),
    );
    assert_eq!(c.diagnostics(&uri, 3), Vec::<Value>::new());
    c.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// An edit that adds an import loads the module from disk, and what that
/// module imports in turn.
#[test]
fn an_edit_loads_the_new_import_and_what_it_imports() {
    let dir = temp_dir("edit-import");
    std::fs::write(dir.join("a.slang"), "__exported import b;\npublic float fa() { return 1.0; }\n").unwrap();
    std::fs::write(dir.join("b.slang"), "public float fb() { return 2.0; }\n").unwrap();
    // No workspace folder: nothing is indexed.
    let mut c = Client::start();
    let uri = uri_of(&dir.join("main.slang"));
    c.open(&uri, "float f() { return 1.0; }\n");
    assert_eq!(c.diagnostics(&uri, 1), Vec::<Value>::new());
    let text = "import a;\nfloat f() { return fa() + fb(); }\n";
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text}]}),
    );
    assert_eq!(c.diagnostics(&uri, 2), Vec::<Value>::new());
    let r = c.request("textDocument/definition", json!({"textDocument": {"uri": uri}, "position": pos(text, "fb()")}));
    let def = r["result"].as_array().and_then(|a| a.first()).unwrap_or(&r["result"]);
    assert_eq!(def["uri"], uri_of(&dir.join("b.slang")), "{r}");
    c.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A SlangPy project: `slang.pythonPath` names an interpreter (here
/// `python3` with the test's site folder on `PYTHONPATH`), which finds the
/// package laid out as slangpy's wheel installs it (`slangpy/__init__.py`,
/// `slangpy/slang/slangpy.slang` including its parts). `import slangpy;`
/// resolves; its tensor types get hovers and member completions.
#[cfg(unix)]
#[test]
fn a_slangpy_project_resolves_through_the_python_environment() {
    use std::os::unix::fs::PermissionsExt;
    if std::process::Command::new("python3").arg("-c").arg("pass").status().map(|s| !s.success()).unwrap_or(true) {
        eprintln!("skipped: no python3 on PATH");
        return;
    }
    let dir = temp_dir("slangpy");
    let package = dir.join("site/slangpy");
    std::fs::create_dir_all(package.join("slang")).unwrap();
    // Never run (`find_spec` does not import the package).
    std::fs::write(package.join("__init__.py"), "raise ImportError('native part missing')\n").unwrap();
    std::fs::write(
        package.join("slang/slangpy.slang"),
        "module slangpy;\n__include \"tensor.slang\";\n__include \"difftensor.slang\";\n",
    )
    .unwrap();
    std::fs::write(
        package.join("slang/tensor.slang"),
        "implementing slangpy;\n/// Read-write tensor.\npublic struct RWTensor<T, let D : int>\n{\n    \
         public T load(int i) { return T(); }\n    public void store(int i, T value) {}\n}\n",
    )
    .unwrap();
    std::fs::write(
        package.join("slang/difftensor.slang"),
        "implementing slangpy;\n/// A read only differentiable tensor.\n\
         public struct DiffTensor<T : IDifferentiable, let D : int>\n{\n    public T load(int i) { return T(); }\n}\n",
    )
    .unwrap();
    let python = dir.join("python");
    std::fs::write(&python, format!("#!/bin/sh\nPYTHONPATH={} exec python3 \"$@\"\n", dir.join("site").display()))
        .unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let mut c = Client::start_in(
        json!({"workspace": {"configuration": true}}),
        Some(project.to_str().unwrap()),
        json!({"slang": {"pythonPath": python.to_str().unwrap()}}),
    );
    let log = c.wait_for(&|v| {
        v["method"] == "window/logMessage" && v["params"]["message"].as_str().unwrap().contains("slangpy")
    });
    let shown = format!("searching {}", package.join("slang").display());
    assert!(log["params"]["message"].as_str().unwrap().contains(&shown), "{log}");
    let uri = uri_of(&project.join("brdf.slang"));
    let text = "import slangpy;\n\
                void copy(DiffTensor<float, 1> grads, RWTensor<float, 1> result, int i)\n\
                {\n    result.store(i, grads.load(i));\n}\n";
    c.open(&uri, text);
    let mut d = c.diagnostics(&uri, 1);
    // (Published before the interpreter answered: the next is after.)
    if !d.is_empty() {
        d = c.diagnostics(&uri, 1);
    }
    assert_eq!(d, Vec::<Value>::new());
    let r = c.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": pos(text, "DiffTensor")}));
    assert!(r["result"]["contents"]["value"].as_str().unwrap().contains("read only differentiable tensor"), "{r}");
    let at = pos(text, "store(i");
    let r = c.request("textDocument/completion", json!({"textDocument": {"uri": uri}, "position": at}));
    let items = r["result"].as_array().cloned().or_else(|| r["result"]["items"].as_array().cloned()).unwrap();
    let labels: Vec<&str> = items.iter().filter_map(|i| i["label"].as_str()).collect();
    assert!(labels.contains(&"load") && labels.contains(&"store"), "{labels:?}");
    c.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}
