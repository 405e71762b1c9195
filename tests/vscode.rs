//! The VS Code extension (`editors/vscode/`).
//!
//! Static checks that always run: `package.json`'s contributions agree with
//! the source (every command has a handler, every setting the server reads
//! is declared and documented), the semantic-token contributions name the
//! server's modifiers, the language configuration parses, and the TextMate
//! grammar, run by a small TextMate tokenizer below, gives autodiff
//! constructs their own scopes.
//!
//! The end-to-end test packages the extension, installs it into code-server
//! and drives it with headless Chromium (`editors/vscode/test/e2e.mjs`). It
//! needs the tools that `editors/vscode/test/setup.sh` installs: without
//! them it fails under CI (`CI` set) and is skipped elsewhere.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use regex_lite::Regex;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn ext() -> PathBuf {
    root().join("editors/vscode")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn manifest() -> Value {
    json(&ext().join("package.json"))
}

/// The extension's TypeScript sources, concatenated.
fn sources() -> String {
    let mut out = String::new();
    let mut files: Vec<_> = std::fs::read_dir(ext().join("src")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files {
        if f.extension().is_some_and(|x| x == "ts") {
            out.push_str(&read(&f));
        }
    }
    assert!(!out.is_empty(), "no TypeScript sources in editors/vscode/src");
    out
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_string)).collect()
}

#[test]
fn commands_are_declared_handled_and_documented() {
    let m = manifest();
    let src = sources();
    let readme = read(&ext().join("README.md"));
    let declared: BTreeSet<String> = m["contributes"]["commands"]
        .as_array()
        .expect("contributes.commands")
        .iter()
        .map(|c| c["command"].as_str().unwrap().to_string())
        .collect();
    for want in [
        "slang.showForwardDerivative",
        "slang.showBackwardDerivative",
        "slang.showCompiledOutput",
        "slang.restartServer",
    ] {
        assert!(declared.contains(want), "package.json does not declare {want}");
    }
    for c in m["contributes"]["commands"].as_array().unwrap() {
        let id = c["command"].as_str().unwrap();
        // The server's commands (`executeCommandProvider`) are registered
        // by the language client; the extension's middleware fills in
        // their arguments.
        let server_command = id == "slang.checkGradients" && src.contains(&format!("command === '{id}'"));
        assert!(
            server_command || src.contains(&format!("registerCommand('{id}'")),
            "{id} is declared but has no handler in src/"
        );
        let title = format!("{}: {}", c["category"].as_str().unwrap_or("Slang"), c["title"].as_str().unwrap());
        assert!(readme.contains(&title), "README.md does not document the command \"{title}\"");
    }
    // Handlers of commands that are not declared: only the status bar's menu.
    let handled = Regex::new(r"registerCommand\('([^']+)'").unwrap();
    for cap in handled.captures_iter(&src) {
        let id = &cap[1];
        assert!(declared.contains(id) || id == "slang.statusMenu", "{id} has a handler but is not declared");
    }
    assert!(src.contains("status.command = 'slang.statusMenu'"), "the status bar item has no command");
    for (_, entries) in m["contributes"]["menus"].as_object().unwrap() {
        for e in entries.as_array().unwrap() {
            let id = e["command"].as_str().unwrap();
            assert!(declared.contains(id), "a menu names the undeclared command {id}");
        }
    }
}

#[test]
fn settings_are_declared_passed_to_the_server_and_documented() {
    let m = manifest();
    let props = m["contributes"]["configuration"]["properties"].as_object().expect("configuration.properties");
    let readme = read(&ext().join("README.md"));
    let src = sources();
    for key in [
        "slang.server.path",
        "slang.server.extraArgs",
        "slang.trace.server",
        "slang.compile.target",
        "slang.predefinedMacros",
        "slang.additionalSearchPaths",
        "slang.searchInAllWorkspaceDirectories",
        "slang.inlayHints.deducedTypes",
        "slang.inlayHints.parameterNames",
        "slang.inlayHints.derivativeSignatures",
        "slang.workspaceFlavor",
        "slang.predefinedLanguageVersion",
        "slang.pythonPath",
    ] {
        assert!(props.contains_key(key), "package.json does not declare the setting {key}");
    }
    for key in props.keys() {
        assert!(readme.contains(&format!("`{key}`")), "README.md does not document the setting {key}");
    }
    assert_eq!(strs(&props["slang.compile.target"]["enum"]), ["wgsl", "spirv", "glsl", "hlsl", "msl"]);
    // What the server reads (server/src/lsp/config.rs) goes into the
    // initialization options, and the section is synchronized.
    let config_rs = read(&root().join("server/src/lsp/config.rs"));
    for key in [
        "predefinedMacros",
        "additionalSearchPaths",
        "searchInAllWorkspaceDirectories",
        "workspaceFlavor",
        "predefinedLanguageVersion",
        "pythonPath",
    ] {
        assert!(config_rs.contains(&format!("\"{key}\"")), "the server no longer reads {key}");
        assert!(src.contains(&format!("{key}: c.get")), "serverSettings() does not pass {key}");
    }
    for key in ["deducedTypes", "parameterNames", "derivativeSignatures"] {
        assert!(config_rs.contains(&format!("\"inlayHints.{key}\"")), "the server no longer reads inlayHints.{key}");
        assert!(
            src.contains(&format!("{key}: c.get<boolean>('inlayHints.{key}'")),
            "serverSettings() does not pass {key}"
        );
    }
    assert!(src.contains("configurationSection: 'slang'"), "the `slang` section is not synchronized");
    assert!(src.contains("initializationOptions: serverSettings()"));
}

#[test]
fn manifest_files_versions_and_ignores_are_consistent() {
    let m = manifest();
    let e = ext();
    let lang = &m["contributes"]["languages"][0];
    assert_eq!(lang["id"], "slang");
    assert_eq!(strs(&lang["extensions"]), [".slang", ".slangh", ".vfx"]);
    let config = json(&e.join(lang["configuration"].as_str().unwrap()));
    assert_eq!(config["comments"]["lineComment"], "//");
    assert_eq!(config["comments"]["blockComment"], serde_json::json!(["/*", "*/"]));
    for key in ["brackets", "autoClosingPairs", "surroundingPairs", "indentationRules", "folding", "onEnterRules"] {
        assert!(config.get(key).is_some(), "language-configuration.json has no {key}");
    }
    // The language configuration's patterns are JavaScript regexes with
    // look-arounds; at least check that the folding markers find regions.
    let start = Regex::new(&config["folding"]["markers"]["start"].as_str().unwrap().replace("\\b", "")).unwrap();
    assert!(start.is_match("  // #region lights") && start.is_match("#pragma region x"));
    let grammar = &m["contributes"]["grammars"][0];
    assert_eq!(grammar["language"], "slang");
    let g = json(&e.join(grammar["path"].as_str().unwrap()));
    assert_eq!(g["scopeName"], grammar["scopeName"]);
    // The bundle esbuild writes is the extension's `main`.
    let main = m["main"].as_str().unwrap().trim_start_matches("./");
    assert!(m["scripts"]["build"].as_str().unwrap().contains(&format!("--outfile={main}")), "main is not the bundle");
    let vscodeignore = read(&e.join(".vscodeignore"));
    assert!(vscodeignore.lines().any(|l| l == format!("!{main}")), ".vscodeignore drops {main}");
    assert!(vscodeignore.lines().any(|l| l == "!server/**"), ".vscodeignore drops bundled servers");
    // engines.vscode and @types/vscode name the same minimum, and the
    // code-server the test installs (VS Code 1.100) satisfies it.
    let engine = m["engines"]["vscode"].as_str().unwrap();
    let types = m["devDependencies"]["@types/vscode"].as_str().unwrap();
    assert_eq!(engine.trim_start_matches('^'), types.trim_start_matches('~'), "engines.vscode vs @types/vscode");
    let minor: u32 = engine.trim_start_matches("^1.").split('.').next().unwrap().parse().unwrap();
    assert!(minor <= 100, "engines.vscode {engine} is newer than code-server 4.100's VS Code");
    assert!(read(&e.join("test/setup.sh")).contains("CODE_SERVER_VERSION=4.100."));
    assert_eq!(m["dependencies"].as_object().unwrap().keys().collect::<Vec<_>>(), ["vscode-languageclient"]);
    let tsconfig = json(&e.join("tsconfig.json"));
    assert_eq!(tsconfig["compilerOptions"]["strict"], true);
    assert!(e.join("package-lock.json").is_file(), "package-lock.json is missing");
    let gitignore = read(&e.join(".gitignore"));
    for want in ["node_modules/", "out/", "*.vsix"] {
        assert!(gitignore.lines().any(|l| l == want), ".gitignore lacks {want}");
    }
}

#[test]
fn semantic_token_contributions_name_the_server_legend() {
    let m = manifest();
    let standard = [
        "declaration",
        "definition",
        "readonly",
        "static",
        "deprecated",
        "abstract",
        "async",
        "modification",
        "documentation",
        "defaultLibrary",
    ];
    let contributed: Vec<String> = m["contributes"]["semanticTokenModifiers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap().to_string())
        .collect();
    for modifier in slang_analysis::ide::TOKEN_MODIFIERS {
        if !standard.contains(modifier) {
            assert!(contributed.iter().any(|c| c == modifier), "the server's modifier {modifier} is not contributed");
        }
    }
    let scopes = m["contributes"]["semanticTokenScopes"][0]["scopes"].as_object().unwrap();
    for selector in scopes.keys() {
        let mut parts = selector.split('.');
        let ty = parts.next().unwrap();
        assert!(ty == "*" || slang_analysis::ide::TOKEN_KINDS.contains(&ty), "{selector}: unknown token type");
        for modifier in parts {
            assert!(slang_analysis::ide::TOKEN_MODIFIERS.contains(&modifier), "{selector}: unknown modifier");
        }
    }
    assert!(scopes.contains_key("*.differentiable") && scopes.contains_key("*.noDiff"));
    assert_ne!(scopes["*.differentiable"], scopes["*.noDiff"]);
}

// A small TextMate tokenizer: `match` and `begin`/`end` rules with
// captures, `include`s of the repository, first match wins (the `end` of
// the open rule before its patterns). The grammar keeps to the regex syntax
// that Oniguruma and regex-lite share, which this checks as well.

enum Rule {
    Match {
        re: Regex,
        name: Option<String>,
        captures: Vec<(usize, String)>,
    },
    Begin {
        begin: Regex,
        end: String,
        name: Option<String>,
        begin_captures: Vec<(usize, String)>,
        end_captures: Vec<(usize, String)>,
        patterns: Vec<Rule>,
    },
}

fn captures(v: &Value) -> Vec<(usize, String)> {
    v.as_object()
        .into_iter()
        .flatten()
        .map(|(k, c)| (k.parse().unwrap(), c["name"].as_str().unwrap().to_string()))
        .collect()
}

fn compile(re: &str) -> Regex {
    Regex::new(re).unwrap_or_else(|e| panic!("the grammar's regex {re:?} is outside the common syntax: {e}"))
}

fn rules(patterns: &Value, repo: &serde_json::Map<String, Value>, depth: usize) -> Vec<Rule> {
    assert!(depth < 16, "include cycle in the grammar");
    let mut out = Vec::new();
    for p in patterns.as_array().unwrap() {
        let name = p["name"].as_str().map(str::to_string);
        if let Some(inc) = p["include"].as_str() {
            let key = inc.strip_prefix('#').unwrap_or_else(|| panic!("unsupported include {inc}"));
            let entry = repo.get(key).unwrap_or_else(|| panic!("include of a missing repository entry {inc}"));
            let wrapped = if entry.get("patterns").is_some() && entry.get("begin").is_none() {
                entry["patterns"].clone()
            } else {
                Value::Array(vec![entry.clone()])
            };
            out.extend(rules(&wrapped, repo, depth + 1));
        } else if let Some(re) = p["match"].as_str() {
            let mut caps = captures(&p["captures"]);
            caps.sort();
            out.push(Rule::Match { re: compile(re), name, captures: caps });
        } else if let Some(begin) = p["begin"].as_str() {
            let end = p["end"].as_str().expect("begin without end").to_string();
            compile(&end);
            let inner = if p.get("patterns").is_some() { rules(&p["patterns"], repo, depth + 1) } else { Vec::new() };
            let bc = if p.get("beginCaptures").is_some() { &p["beginCaptures"] } else { &p["captures"] };
            let ec = if p.get("endCaptures").is_some() { &p["endCaptures"] } else { &p["captures"] };
            out.push(Rule::Begin {
                begin: compile(begin),
                end,
                name,
                begin_captures: captures(bc),
                end_captures: captures(ec),
                patterns: inner,
            });
        } else {
            panic!("unsupported grammar rule {p}");
        }
    }
    out
}

/// The scopes of each byte of `text`, joined with spaces.
fn tokenize(grammar: &Value, text: &str) -> Vec<String> {
    let repo = grammar["repository"].as_object().unwrap();
    let top = rules(&grammar["patterns"], repo, 0);
    // The open begin/end rules: (scope, end regex, the rule).
    let mut stack: Vec<(Option<String>, Regex, &Rule)> = Vec::new();
    let mut out = vec![String::new(); text.len()];
    let mut line_start = 0;
    // Lines without their `\n`: TextMate's `$` is the end of the line.
    for line in text.split('\n') {
        let mut pos = 0;
        let scope_of = |stack: &Vec<(Option<String>, Regex, &Rule)>| -> Vec<String> {
            stack.iter().filter_map(|(n, _, _)| n.clone()).collect()
        };
        let paint = |out: &mut Vec<String>, from: usize, to: usize, scopes: &[String]| {
            for o in &mut out[line_start + from..line_start + to] {
                *o = scopes.join(" ");
            }
        };
        let paint_captures =
            |out: &mut Vec<String>, caps: &regex_lite::Captures, names: &[(usize, String)], base: &[String]| {
                for (i, n) in names {
                    if let Some(m) = caps.get(*i) {
                        let mut s = base.to_vec();
                        s.push(n.clone());
                        paint(out, m.start(), m.end(), &s);
                    }
                }
            };
        while pos < line.len() {
            let patterns: &[Rule] = match stack.last() {
                Some((_, _, Rule::Begin { patterns, .. })) => patterns,
                _ => &top,
            };
            // The earliest match; the open rule's end wins ties.
            let mut best: Option<(usize, Option<&Rule>, regex_lite::Captures)> = None;
            if let Some((_, end, _)) = stack.last() {
                if let Some(c) = end.captures_at(line, pos) {
                    best = Some((c.get(0).unwrap().start(), None, c));
                }
            }
            for r in patterns {
                let re = match r {
                    Rule::Match { re, .. } => re,
                    Rule::Begin { begin, .. } => begin,
                };
                if let Some(c) = re.captures_at(line, pos) {
                    let m = c.get(0).unwrap();
                    if m.is_empty() {
                        continue;
                    }
                    if best.as_ref().is_none_or(|(s, _, _)| m.start() < *s) {
                        best = Some((m.start(), Some(r), c));
                    }
                }
            }
            let Some((start, rule, caps)) = best else {
                let s = scope_of(&stack);
                paint(&mut out, pos, line.len(), &s);
                break;
            };
            let base = scope_of(&stack);
            paint(&mut out, pos, start, &base);
            let end = caps.get(0).unwrap().end();
            match rule {
                None => {
                    let (_, _, r) = stack.pop().unwrap();
                    let Rule::Begin { end_captures, .. } = r else { unreachable!() };
                    paint(&mut out, start, end, &base);
                    paint_captures(&mut out, &caps, end_captures, &base);
                }
                Some(Rule::Match { name, captures, .. }) => {
                    let mut s = base.clone();
                    s.extend(name.clone());
                    paint(&mut out, start, end, &s);
                    paint_captures(&mut out, &caps, captures, &s);
                }
                Some(r @ Rule::Begin { name, begin_captures, end, .. }) => {
                    let mut s = base.clone();
                    s.extend(name.clone());
                    paint(&mut out, start, end_of(&caps), &s);
                    paint_captures(&mut out, &caps, begin_captures, &s);
                    stack.push((name.clone(), compile(end), r));
                }
            }
            pos = end.max(pos + 1).min(line.len());
            if end == start {
                pos = start + 1;
            }
        }
        line_start += line.len() + 1;
    }
    out
}

fn end_of(c: &regex_lite::Captures) -> usize {
    c.get(0).unwrap().end()
}

/// The scopes at the `nth` occurrence of `needle` in `text`.
fn scopes_at<'a>(scopes: &'a [String], text: &str, needle: &str, nth: usize) -> &'a str {
    let at = text.match_indices(needle).nth(nth).unwrap_or_else(|| panic!("no {needle:?} #{nth} in the sample")).0;
    &scopes[at]
}

#[test]
fn grammar_gives_autodiff_constructs_their_own_scopes() {
    let g = json(&ext().join("syntaxes/slang.tmLanguage.json"));
    let text = r#"#include "common.slangh"
import lighting;
// fwd_diff in a comment
/* a block comment
   over bwd_diff lines */
struct Material : IDifferentiable
{
    float3 albedo;
    no_diff uint id;
};

[Differentiable]
float3 shade(Material m, no_diff float3 n)
{
    let s = "fwd_diff in a string";
    return m.albedo * n[0] + float3(1.0, 2, 0x1F);
}

[shader("compute")]
[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID)
{
    var dp = diffPair(1.0, 1.0);
    DifferentialPair<float3> r = fwd_diff(shade)(dp, n);
    bwd_diff(shade)(dp, n, float3(1.0));
    if (tid.x > 0) { detach(r.p); }
}
"#;
    let s = tokenize(&g, text);
    let at = |needle: &str, nth: usize| scopes_at(&s, text, needle, nth).to_string();
    let has = |needle: &str, nth: usize, scope: &str| {
        let got = at(needle, nth);
        assert!(got.split(' ').any(|x| x == scope), "{needle:?} #{nth}: expected {scope}, got {got:?}");
    };
    has("Differentiable]", 0, "entity.other.attribute-name.autodiff.slang");
    has("shader(", 0, "entity.other.attribute-name.slang");
    has("numthreads", 0, "entity.other.attribute-name.slang");
    has("fwd_diff", 2, "keyword.other.autodiff.slang");
    has("bwd_diff", 1, "keyword.other.autodiff.slang");
    has("no_diff", 0, "storage.modifier.autodiff.slang");
    has("DifferentialPair", 0, "support.type.autodiff.slang");
    has("IDifferentiable", 0, "support.type.autodiff.slang");
    has("diffPair", 0, "support.function.autodiff.slang");
    has("detach", 0, "support.function.autodiff.slang");
    has("fwd_diff", 0, "comment.line.double-slash.slang");
    has("bwd_diff", 0, "comment.block.slang");
    has("fwd_diff", 1, "string.quoted.double.slang");
    has("#include", 0, "keyword.control.directive.include.slang");
    has("lighting", 0, "entity.name.namespace.slang");
    has("Material", 0, "entity.name.type.slang");
    has("float3", 0, "storage.type.builtin.slang");
    has("shade(", 0, "entity.name.function.slang");
    has("return", 0, "keyword.control.slang");
    has("1.0", 0, "constant.numeric.float.slang");
    has("0x1F", 0, "constant.numeric.hex.slang");
    has("SV_DispatchThreadID", 0, "variable.other.semantic.slang");
    has("\"compute\"", 0, "string.quoted.double.slang");
    // `n[0]` is an index, not an attribute; `shade` inside `fwd_diff(…)` is
    // a plain name.
    assert!(!at("0]", 0).contains("attribute"), "{}", at("0]", 0));
    assert!(!at("shade)(", 0).contains("autodiff"), "{}", at("shade)(", 0));
    // The autodiff attribute, operator and plain attribute are told apart.
    let distinct: BTreeSet<String> =
        [at("Differentiable]", 0), at("fwd_diff", 2), at("shader(", 0), at("shade(", 0)].into();
    assert_eq!(distinct.len(), 4, "{distinct:?}");
    // After the block comment, code is code again.
    has("struct", 0, "storage.type.slang");
}

#[test]
fn tokenizer_rejects_what_it_should() {
    // The checks above can fail: a grammar without the autodiff rules gives
    // `fwd_diff` the scope of a function call.
    let mut g = json(&ext().join("syntaxes/slang.tmLanguage.json"));
    g["repository"]["autodiff"]["patterns"] = serde_json::json!([]);
    let text = "x = fwd_diff(f)(dp);\n";
    let s = tokenize(&g, text);
    assert_eq!(scopes_at(&s, text, "fwd_diff", 0), "entity.name.function.slang");
}

/// The end-to-end test's tools, or what is missing.
fn e2e_tools() -> Result<HashMap<&'static str, PathBuf>, Vec<String>> {
    let tools_dir =
        std::env::var_os("SLANG_EDITOR_TOOLS").map(PathBuf::from).unwrap_or_else(|| root().join("target/editor-tools"));
    let mut tools = HashMap::new();
    let mut missing = Vec::new();
    let node_ok = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !node_ok {
        missing.push("node".to_string());
    }
    let candidates = [
        (
            "code-server",
            std::env::var_os("CODE_SERVER")
                .map(PathBuf::from)
                .unwrap_or_else(|| tools_dir.join("code-server/node_modules/.bin/code-server")),
        ),
        (
            "chromium",
            std::env::var_os("CHROMIUM").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/bin/chromium")),
        ),
        ("playwright-core", ext().join("node_modules/playwright-core")),
        ("vsce", ext().join("node_modules/@vscode/vsce")),
    ];
    for (name, path) in candidates {
        if path.exists() {
            tools.insert(name, path);
        } else {
            missing.push(format!("{name} ({})", path.display()));
        }
    }
    if missing.is_empty() {
        Ok(tools)
    } else {
        Err(missing)
    }
}

#[test]
fn vscode_extension_end_to_end_in_code_server() {
    let tools = match e2e_tools() {
        Ok(t) => t,
        Err(missing) => {
            let msg =
                format!("the VS Code end-to-end test needs {}: run editors/vscode/test/setup.sh", missing.join(", "));
            if std::env::var_os("CI").is_some() {
                panic!("{msg}");
            }
            // Straight to stderr: the test harness does not capture it.
            let _ =
                writeln!(std::io::stderr(), "\n*** SKIPPED vscode_extension_end_to_end_in_code_server: {msg} ***\n");
            return;
        }
    };
    let screenshot = root().join("target/editor-tests/vscode.png");
    let _ = std::fs::remove_file(&screenshot);
    let mut child = Command::new("node")
        .arg(ext().join("test/e2e.mjs"))
        .current_dir(ext())
        .env("SLANG_ANALYZER", env!("CARGO_BIN_EXE_slang-analyzer"))
        .env("CODE_SERVER", &tools["code-server"])
        .env("CHROMIUM", &tools["chromium"])
        .env("E2E_SCREENSHOT", &screenshot)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run node");
    // e2e.mjs stops itself after 300 s; this is the backstop.
    let deadline = Instant::now() + Duration::from_secs(420);
    let out_pipe = child.stdout.take().unwrap();
    let err_pipe = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || std::io::read_to_string(out_pipe).unwrap_or_default());
    let err_reader = std::thread::spawn(move || std::io::read_to_string(err_pipe).unwrap_or_default());
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if Instant::now() > deadline {
            // SIGTERM lets the driver close Chromium and code-server.
            let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
            std::thread::sleep(Duration::from_secs(10));
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let stdout = out_reader.join().unwrap();
    let stderr = err_reader.join().unwrap();
    eprintln!("{stdout}{stderr}");
    let status = status.expect("the VS Code end-to-end test did not finish in 420 s");
    assert!(status.success(), "the VS Code end-to-end test failed ({status}):\n{stderr}");
    assert!(stdout.contains("e2e: all checks passed"), "{stdout}");
    let size = std::fs::metadata(&screenshot).map(|m| m.len()).unwrap_or(0);
    assert!(size > 10_000, "no screenshot at {}", screenshot.display());
    eprintln!("screenshot: {}", screenshot.display());
}

/// How the extension finds the server (`src/server.ts`: the setting, the
/// bundled binary, `PATH`, and the message when there is none), run with
/// node on the real source (`test/server.test.mjs`, bundled with esbuild).
#[test]
fn server_binary_is_found_as_documented() {
    if !ext().join("node_modules/esbuild").is_dir() {
        let msg = "the server-resolution test needs the extension's npm dependencies: run editors/vscode/test/setup.sh";
        if std::env::var_os("CI").is_some() {
            panic!("{msg}");
        }
        let _ = writeln!(std::io::stderr(), "\n*** SKIPPED server_binary_is_found_as_documented: {msg} ***\n");
        return;
    }
    let out = Command::new("node").arg("test/server.test.mjs").current_dir(ext()).output().expect("cannot run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("server resolution: 5 checks passed"), "{stdout}");
}
