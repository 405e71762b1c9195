//! Protocol tests: the real `slang-analyzer` binary over stdio, driven by
//! a minimal LSP client (JSON-RPC framing by hand).

#[path = "lsp_client.rs"]
mod lsp_client;

use lsp_client::Client;
use serde_json::{json, Value};

fn pos(text: &str, marker: &str) -> Value {
    let i = text.find(marker).unwrap_or_else(|| panic!("{marker} not in text"));
    let line = text[..i].matches('\n').count();
    let col = text[..i].rsplit('\n').next().unwrap().encode_utf16().count();
    json!({"line": line, "character": col})
}

const SHADER: &str = r#"/// Lambertian shading.
[Differentiable]
float shade(float3 n, float3 l, no_diff float albedo)
{
    float d = max(dot(n, l), 0.0);
    return albedo * d;
}

struct Light : IDifferentiable
{
    float3 dir;
    float intensity;
}

float use(DifferentialPair<Light> pl, float3 n)
{
    var r = fwd_diff(shade)(diffPair(n, n), diffPair(n, n), 1.0);
    return shade(n, pl.p.dir, 1.0) + r.d;
}
"#;

#[test]
fn diagnostics_are_pushed_after_edits_and_cleared() {
    let mut c = Client::start();
    // (Pull is offered only to clients that pull: the others are pushed.)
    assert!(c.initialize_result["capabilities"].get("diagnosticProvider").is_none());
    let uri = "file:///tmp/slang-analyzer-test/diag.slang";
    let text = "float f(float x)\n{\n    return y;\n}\n";
    c.open(uri, text);
    let d = c.diagnostics(uri, 1);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "unresolved-name");
    assert_eq!(d[0]["severity"], 1);
    assert_eq!(d[0]["range"]["start"], json!({"line": 2, "character": 11}));
    // An incremental edit fixes it: the diagnostics are cleared.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 2, "character": 11}, "end": {"line": 2, "character": 12}}, "text": "x"}]}),
    );
    assert_eq!(c.diagnostics(uri, 2), Vec::<Value>::new());
    // A full-text change breaks it again; pull diagnostics agree.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": "float f() { return 1 + true_; }\n"}]}),
    );
    let pushed = c.diagnostics(uri, 3);
    assert_eq!(pushed.len(), 1);
    let pulled = c.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri}}));
    assert_eq!(pulled["result"]["kind"], "full");
    assert_eq!(pulled["result"]["items"], json!(pushed));
    c.shutdown();
}

/// A client that pulls diagnostics gets them by pulling only (pushing as
/// well makes editors such as Neovim show each twice), and is asked to
/// pull again when the compile worker's diagnostics change.
#[test]
fn clients_that_pull_diagnostics_are_not_pushed_them() {
    let mut c = Client::start_with(json!({
        "textDocument": {"diagnostic": {"dynamicRegistration": false}},
        "workspace": {"diagnostic": {"refreshSupport": true}}
    }));
    assert_eq!(c.initialize_result["capabilities"]["diagnosticProvider"]["identifier"], "slang-analyzer");
    let uri = "file:///tmp/slang-analyzer-test/pull.slang";
    let text = "RWStructuredBuffer<float> result;\nTexture2DMS<float> tex;\n[numthreads(1, 1, 1)]\nvoid computeMain()\n{\n    result[0] = tex.Load(int2(0, 0), 0) + y;\n}\n";
    c.open(uri, text);
    let pulled = c.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri}}));
    let items = pulled["result"]["items"].as_array().cloned().unwrap_or_default();
    // (The compile worker's diagnostic may be there too, if it finished
    // before the pull was answered: on a loaded machine it can.)
    let analysis: Vec<&Value> = items.iter().filter(|d| d["source"] == "slang-analyzer").collect();
    assert_eq!(analysis.len(), 1, "{pulled}");
    assert_eq!(analysis[0]["code"], "unresolved-name");
    assert!(
        items.iter().all(|d| d["source"] == "slang-analyzer" || d["source"] == "slang-analyzer (codegen)"),
        "{pulled}"
    );
    // Fixed: the compile worker now finds what it cannot compile, and asks
    // for a pull.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 5, "character": 42}, "end": {"line": 5, "character": 43}}, "text": "1.0"}]}),
    );
    // (A refresh asked for by the worker's run on the first text may come
    // first: pull after each refresh until the worker has seen the fix.)
    let mut items = Vec::new();
    for _ in 0..10 {
        c.wait_for(&|v| v["method"] == "workspace/diagnostic/refresh");
        let pulled = c.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri}}));
        items = pulled["result"]["items"].as_array().cloned().unwrap_or_default();
        if items.iter().all(|d| d["source"] == "slang-analyzer (codegen)") && !items.is_empty() {
            break;
        }
    }
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["source"], "slang-analyzer (codegen)");
    assert!(
        !c.backlog.iter().any(|m| m["method"] == "textDocument/publishDiagnostics"),
        "pushed as well: {:#?}",
        c.backlog
    );
    c.shutdown();
}

/// What stops reverse mode reaches the editor through the compile worker:
/// a `[ForceUnroll]` loop whose count is not a compile-time constant, at
/// the loop.
#[test]
fn reverse_mode_errors_reach_the_editor() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/unroll.slang";
    let text = "RWStructuredBuffer<float> result;\nuniform int n;\n[Differentiable]\nfloat f(float x)\n{\n    float s = x;\n    [ForceUnroll]\n    for (int i = 0; i < n; i++)\n        s = s * x;\n    return s;\n}\n[numthreads(1, 1, 1)]\nvoid computeMain()\n{\n    var p = diffPair(2.0, 0.0);\n    bwd_diff(f)(p, 1.0);\n    result[0] = p.d;\n}\n";
    c.open(uri, text);
    assert_eq!(c.diagnostics(uri, 1), Vec::<Value>::new());
    let d = c.diagnostics(uri, 1);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["source"], "slang-analyzer (codegen)");
    assert!(d[0]["message"].as_str().unwrap().contains("loop unrolling failed"), "{d:?}");
    assert_eq!(d[0]["range"]["start"], json!({"line": 7, "character": 4}), "{d:?}");
    c.shutdown();
}

#[test]
fn hover_shows_derivative_signatures_and_transformed_calls() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/hover.slang";
    c.open(uri, SHADER);
    let at = pos(SHADER, "shade(n, pl");
    let h = c.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": at}));
    let md = h["result"]["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(md.contains("float shade(float3 n, float3 l, no_diff float albedo)"), "{md}");
    assert!(md.contains("Lambertian shading."), "{md}");
    assert!(
        md.contains(
            "DifferentialPair<float> fwd_diff(shade)(DifferentialPair<float3> n, DifferentialPair<float3> l, float albedo)"
        ),
        "{md}"
    );
    assert!(
        md.contains("void bwd_diff(shade)(inout DifferentialPair<float3> n, inout DifferentialPair<float3> l, float albedo, float dResult)"),
        "{md}"
    );
    // On `fwd_diff`: the transformed signature.
    let at = pos(SHADER, "fwd_diff(shade)");
    let h = c.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": at}));
    let md = h["result"]["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(md.starts_with("```slang\nDifferentialPair<float> fwd_diff(shade)("), "{md}");
    // On a differentiable struct: its synthesized Differential.
    let at = pos(SHADER, "Light : IDiff");
    let h = c.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": at}));
    let md = h["result"]["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(md.contains("typealias Light.Differential = Light; // synthesized"), "{md}");
    c.shutdown();
}

#[test]
fn completion_definition_and_symbols() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/nav.slang";
    let text = SHADER.replace("pl.p.dir", "pl.");
    c.open(uri, &text);
    let mut at = pos(&text, "pl.");
    at["character"] = json!(at["character"].as_u64().unwrap() + 3);
    let r = c.request("textDocument/completion", json!({"textDocument": {"uri": uri}, "position": at}));
    let labels: Vec<&str> = r["result"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    for want in ["p", "d", "getPrimal", "getDifferential"] {
        assert!(labels.contains(&want), "{labels:?}");
    }
    c.shutdown();

    let mut c = Client::start();
    c.open(uri, SHADER);
    let at = pos(SHADER, "shade(n, pl");
    let r = c.request("textDocument/definition", json!({"textDocument": {"uri": uri}, "position": at}));
    let loc = &r["result"][0];
    assert_eq!(loc["uri"], uri);
    assert_eq!(loc["range"]["start"], json!({"line": 2, "character": 6}));
    let r = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    let syms = r["result"].as_array().unwrap();
    let names: Vec<&str> = syms.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["shade", "Light", "use"]);
    let fields: Vec<&str> =
        syms[1]["children"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(fields, ["dir", "intensity"]);
    c.shutdown();
}

#[test]
fn bad_input_gets_errors_not_crashes() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/bad.slang";
    c.open(uri, SHADER);
    // Malformed JSON: a parse error (id null), and the server lives on.
    c.send_raw("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ");
    let e = c.wait_for(&|v| v["error"]["code"] == json!(-32700));
    assert!(e["error"]["message"].is_string());
    // An unknown method: "method not found".
    let r = c.request("slang/noSuchMethod", json!({}));
    assert_eq!(r["error"]["code"], -32601);
    // Positions out of range and unknown documents: empty answers.
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 9999, "character": 9999}}),
    );
    assert!(r.get("error").is_none(), "{r}");
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///nowhere.slang"}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(r["result"], Value::Null);
    // Wrong parameter types: "invalid params".
    let r = c.request("textDocument/hover", json!({"textDocument": 5}));
    assert_eq!(r["error"]["code"], -32602);
    // Still serving.
    let at = pos(SHADER, "shade(n, pl");
    let h = c.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": at}));
    assert!(h["result"]["contents"]["value"].as_str().unwrap().contains("fwd_diff(shade)"));
    c.shutdown();
}

/// A burst of 1,000 incremental edits (inserts and deletes at varying
/// places, with requests in between): the server's text ends equal to
/// the client's, seen through the function name it reports.
#[test]
fn a_thousand_rapid_edits_keep_the_text_in_sync() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/burst.slang";
    let prefix = "// ü comment 😀\nfloat f";
    let suffix = "(float x) { return x; }\n";
    let mut name = String::from("_");
    c.open(uri, &format!("{prefix}{name}{suffix}"));
    let mut seed = 12345u64;
    let mut rand = move |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((seed >> 33) as usize) % n.max(1)
    };
    let col0 = "float f".len();
    for version in 2..1002 {
        let at = rand(name.len() + 1);
        let change = if name.len() > 1 && rand(3) == 0 {
            // Delete one character (never the first, keeping an identifier).
            let at = at.clamp(1, name.len() - 1);
            name.remove(at);
            json!({"range": {"start": {"line": 1, "character": col0 + at}, "end": {"line": 1, "character": col0 + at + 1}}, "text": ""})
        } else {
            let ch = (b'a' + rand(26) as u8) as char;
            let at = at.max(1);
            name.insert(at, ch);
            json!({"range": {"start": {"line": 1, "character": col0 + at}, "end": {"line": 1, "character": col0 + at}}, "text": ch.to_string()})
        };
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
        );
        if version % 100 == 0 {
            c.send_request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 8}}),
            );
        }
    }
    // Diagnostics of the last version arrive (and say nothing is wrong).
    assert_eq!(c.diagnostics(uri, 1001), Vec::<Value>::new());
    let r = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    assert_eq!(r["result"][0]["name"].as_str().unwrap(), format!("f{name}"));
    c.shutdown();
}

#[test]
fn utf8_positions_when_the_client_offers_them() {
    // Non-ASCII before the error on its line: UTF-8 and UTF-16 columns differ.
    let text = "float f(float x) { /* é😀 */ return y; }\n";
    let y = text.find("y;").unwrap();
    let utf8_col = y;
    let utf16_col = text[..y].encode_utf16().count();
    assert_ne!(utf8_col, utf16_col);
    for (caps, encoding, col) in [
        (json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}), "utf-8", utf8_col),
        (json!({}), "utf-16", utf16_col),
    ] {
        let mut c = Client::start_with(caps);
        assert_eq!(c.initialize_result["capabilities"]["positionEncoding"], encoding);
        let uri = "file:///tmp/slang-analyzer-test/enc.slang";
        c.open(uri, text);
        let d = c.diagnostics(uri, 1);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0]["range"]["start"], json!({"line": 0, "character": col}), "{encoding}");
        c.shutdown();
    }
}

#[test]
fn code_actions_fix_derivative_loss_and_generate_stubs() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/actions.slang";
    let text = "float scale(float x) { return x * 2.0; }\n\n[Differentiable]\nfloat f(float x)\n{\n    return scale(x) + x;\n}\n";
    c.open(uri, text);
    let diags = c.diagnostics(uri, 1);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "derivative-lost");
    // The diagnostic links to the callee.
    let related = &diags[0]["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], uri);
    assert_eq!(related["location"]["range"]["start"], json!({"line": 0, "character": 6}));
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": diags[0]["range"], "context": {"diagnostics": diags}}),
    );
    let actions = r["result"].as_array().unwrap_or_else(|| panic!("{r}")).clone();
    let titles: Vec<&str> = actions.iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert!(titles.iter().any(|t| t.contains("no_diff")), "{titles:?}");
    let wrap = actions.iter().find(|a| a["title"].as_str().unwrap().contains("no_diff")).unwrap();
    assert_eq!(wrap["kind"], "quickfix");
    assert_eq!(wrap["diagnostics"][0]["code"], "derivative-lost");
    let edit = &wrap["edit"]["changes"][uri][0];
    assert_eq!(edit["range"]["start"], json!({"line": 5, "character": 11}));
    assert_eq!(edit["newText"], "no_diff ");
    // On the function's name: derivative stubs (refactorings).
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(text, "f(float"), "end": pos(text, "f(float")},
               "context": {"diagnostics": []}}),
    );
    let actions = r["result"].as_array().unwrap().clone();
    let fwd = actions.iter().find(|a| a["title"].as_str().unwrap().contains("ForwardDerivative")).unwrap();
    assert_eq!(fwd["kind"], "refactor");
    let inserted: String =
        fwd["edit"]["changes"][uri].as_array().unwrap().iter().map(|e| e["newText"].as_str().unwrap()).collect();
    assert!(inserted.contains("DifferentialPair<float> f_fwd(DifferentialPair<float> x)"), "{inserted}");
    c.shutdown();
}

#[test]
fn completion_items_resolve_to_documentation() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/resolve.slang";
    let text = "/// Doubles a value.\nfloat twice(float x) { return 2.0 * x; }\nfloat g() { return tw }\n";
    c.open(uri, text);
    let r = c.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": 2, "character": 21}}),
    );
    let item = r["result"].as_array().unwrap().iter().find(|i| i["label"] == "twice").unwrap().clone();
    assert!(item.get("documentation").is_none());
    let resolved = c.request("completionItem/resolve", item);
    let doc = resolved["result"]["documentation"]["value"].as_str().unwrap_or_else(|| panic!("{resolved}"));
    assert!(doc.contains("float twice(float x)") && doc.contains("Doubles a value."), "{doc}");
    c.shutdown();
}

#[test]
fn derivative_and_compile_requests() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/derive.slang";
    c.open(uri, SHADER);
    c.diagnostics(uri, 1);
    let r = c.request(
        "slang-analyzer/derivative",
        json!({"textDocument": {"uri": uri}, "position": pos(SHADER, "shade(float3"), "mode": "bwd"}),
    );
    let text = r["result"]["text"].as_str().unwrap_or_else(|| panic!("{r}"));
    assert!(
        text.contains("void bwd_diff(shade)(inout DifferentialPair<float3> n, inout DifferentialPair<float3> l, float albedo, float dResult);"),
        "{text}"
    );
    assert_eq!(r["result"]["languageId"], "slang");
    // The generated backward derivative.
    assert!(
        text.contains("void s_bwd_shade(inout DifferentialPair<float3> n, inout DifferentialPair<float3> l, float albedo, float dResult)"),
        "{text}"
    );
    // Forward mode: the generated derivative.
    let r = c.request(
        "slang-analyzer/derivative",
        json!({"textDocument": {"uri": uri}, "position": pos(SHADER, "shade(float3"), "mode": "fwd"}),
    );
    let text = r["result"]["text"].as_str().unwrap_or_else(|| panic!("{r}"));
    assert!(text.contains("DifferentialPair<float> s_fwd_shade(DifferentialPair<float3> n"), "{text}");
    assert!(text.contains("dot(") && text.contains("return"), "{text}");
    // `passes`: the backward derivative's IR after each reverse-mode pass.
    let r = c.request(
        "slang-analyzer/derivative",
        json!({"textDocument": {"uri": uri}, "position": pos(SHADER, "shade(float3"), "mode": "passes"}),
    );
    let text = r["result"]["text"].as_str().unwrap_or_else(|| panic!("{r}"));
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
    assert!(text.contains("func s_lin_shade(") && text.contains("func s_bwd_prop_shade("), "{text}");
    assert_eq!(r["result"]["uri"], "slang-analyzer:/passes/shade.slang");
    // Not a differentiable function: an error saying so.
    let r = c.request(
        "slang-analyzer/derivative",
        json!({"textDocument": {"uri": uri}, "position": pos(SHADER, "use(Diff")}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("not differentiable"), "{r}");
    let r = c.request("slang-analyzer/compile", json!({"textDocument": {"uri": uri}, "target": "wgsl"}));
    assert!(r["error"]["message"].as_str().unwrap().contains("entry point"), "{r}");
    let r = c.request("slang-analyzer/compile", json!({"textDocument": {"uri": uri}, "target": "dxil"}));
    assert!(r["error"]["message"].as_str().unwrap().contains("unknown target"), "{r}");
    c.shutdown();
}

/// A fresh folder under the system temp dir.
fn temp_workspace(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("slang-analyzer-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn settings_macros_and_search_paths() {
    let ws = temp_workspace("settings");
    std::fs::create_dir_all(ws.join("shared")).unwrap();
    std::fs::write(ws.join("shared/noise.slang"), "module noise;\npublic float noise(float x) { return x; }\n")
        .unwrap();
    let caps = json!({"workspace": {"configuration": true}});
    // `predefinedMacros` from the initialization options / configuration.
    let mut c = Client::start_in(
        caps,
        Some(ws.to_str().unwrap()),
        json!({"slang": {"predefinedMacros": ["USE_FAST=1"], "searchInAllWorkspaceDirectories": false}}),
    );
    let uri = format!("file://{}/main.slang", ws.display());
    let text =
        "import noise;\n#if USE_FAST\nfloat f() { return noise(1.0); }\n#else\nfloat f() { return missing; }\n#endif\n";
    c.open(&uri, text);
    let d = c.diagnostics(&uri, 1);
    // The macro is on (the #else branch is not checked); `noise` is not
    // found: its folder is not searched.
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "unresolved-import", "{d:?}");
    // Settings change: search every workspace folder, macro off.
    c.settings = json!({"predefinedMacros": [], "searchInAllWorkspaceDirectories": true});
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"slang": c.settings.clone()}}));
    let d = c.diagnostics(&uri, 1);
    let d = if d.iter().any(|d| d["code"] == "unresolved-import") { c.diagnostics(&uri, 1) } else { d };
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "unresolved-name", "{d:?}");
    assert_eq!(d[0]["range"]["start"]["line"], 4);
    c.shutdown();
    let _ = std::fs::remove_dir_all(&ws);
}

/// Requests made while the workspace is being indexed are answered: the
/// indexer's writes are not edits of the document, so the request is run
/// again on a fresh snapshot instead of failing with "content modified".
#[test]
fn requests_during_indexing_are_answered() {
    let ws = temp_workspace("index-race");
    for i in 0..300 {
        let body: String = (0..20).map(|k| format!("float f{i}_{k}(float x) {{ return x * {k}.0; }}\n")).collect();
        std::fs::write(ws.join(format!("m{i}.slang")), body).unwrap();
    }
    let mut c = Client::start_in(json!({}), Some(ws.to_str().unwrap()), Value::Null);
    let uri = format!("file://{}/main.slang", ws.display());
    c.open(&uri, "[Differentiable]\nfloat sq(float x) { return x * x; }\n");
    let ids: Vec<i64> = (0..40)
        .map(|_| {
            c.send_request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 7}}),
            )
        })
        .collect();
    for id in ids {
        let r = c.response(id);
        assert!(r.get("error").is_none(), "{r}");
        assert!(r["result"]["contents"]["value"].as_str().unwrap_or("").contains("sq"), "{r}");
    }
    c.shutdown();
    let _ = std::fs::remove_dir_all(&ws);
}

#[test]
fn workspace_is_indexed_with_progress_and_follows_the_disk() {
    let ws = temp_workspace("index");
    std::fs::create_dir_all(ws.join("lib")).unwrap();
    std::fs::write(ws.join("lib/brdf.slang"), "module brdf;\npublic float ggx(float r) { return r * r; }\n").unwrap();
    std::fs::write(ws.join("slang-analyzer.json"), r#"{"additionalSearchPaths": ["lib"]}"#).unwrap();
    let caps = json!({"window": {"workDoneProgress": true},
                      "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut c = Client::start_in(caps, Some(ws.to_str().unwrap()), Value::Null);
    // Progress: created, begun, ended.
    c.wait_for(&|v| v["method"] == "window/workDoneProgress/create");
    c.wait_for(&|v| v["method"] == "$/progress" && v["params"]["value"]["kind"] == "begin");
    let end = c.wait_for(&|v| v["method"] == "$/progress" && v["params"]["value"]["kind"] == "end");
    assert_eq!(end["params"]["value"]["message"], "1 files");
    c.wait_for(&|v| v["method"] == "client/registerCapability");
    // Indexed files are searchable: workspace symbols see `ggx`.
    let uri = format!("file://{}/main.slang", ws.display());
    let text = "import brdf;\nimport extra;\nfloat f() { return ggx(0.5) + more(); }\n";
    c.open(&uri, text);
    let d = c.diagnostics(&uri, 1);
    let codes: Vec<&str> = d.iter().map(|d| d["code"].as_str().unwrap()).collect();
    // (Names are not reported while an import is missing: they may be
    // its.)
    assert_eq!(codes, ["unresolved-import"], "{d:?}");
    // A module created on disk is picked up.
    std::fs::write(ws.join("lib/extra.slang"), "module extra;\npublic float more() { return 1.0; }\n").unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": format!("file://{}/lib/extra.slang", ws.display()), "type": 1}]}),
    );
    assert_eq!(c.diagnostics(&uri, 1), Vec::<Value>::new());
    // Deleted: the error is back.
    std::fs::remove_file(ws.join("lib/extra.slang")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": format!("file://{}/lib/extra.slang", ws.display()), "type": 3}]}),
    );
    let d = c.diagnostics(&uri, 1);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0]["message"].as_str().unwrap().contains("`extra`"), "{d:?}");
    c.shutdown();
    let _ = std::fs::remove_dir_all(&ws);
}

#[test]
fn references_rename_navigation_and_workspace_symbols() {
    let mut c = Client::start();
    let lib = "file:///tmp/slang-analyzer-test/nav/lib.slang";
    let main = "file:///tmp/slang-analyzer-test/nav/main.slang";
    let lib_text = "module lib;\npublic interface IShape { float area(); }\npublic struct Disk : IShape { float r; float area() { return 3.14 * r * r; } }\n[Differentiable]\npublic float sq(float x) { return x * x; }\n";
    let main_text = "import lib;\n[Differentiable]\nfloat f(float x)\n{\n    Disk d = { x };\n    float y = sq(x);\n    y = y + d.area();\n    return y + fwd_diff(sq)(diffPair(x, 1.0)).d;\n}\n";
    c.open(lib, lib_text);
    c.open(main, main_text);
    c.diagnostics(main, 1);
    // References of `sq` across both files (declaration included).
    let r = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": main}, "position": pos(main_text, "sq(x)"), "context": {"includeDeclaration": true}}),
    );
    let locs = r["result"].as_array().unwrap_or_else(|| panic!("{r}"));
    let mut seen: Vec<(String, i64)> = locs
        .iter()
        .map(|l| (l["uri"].as_str().unwrap().to_string(), l["range"]["start"]["line"].as_i64().unwrap()))
        .collect();
    seen.sort();
    assert_eq!(seen, [(lib.to_string(), 4), (main.to_string(), 5), (main.to_string(), 7)], "{r}");
    // Highlights of `y`: writes and reads.
    let r = c.request(
        "textDocument/documentHighlight",
        json!({"textDocument": {"uri": main}, "position": pos(main_text, "y = sq")}),
    );
    let kinds: Vec<i64> = r["result"].as_array().unwrap().iter().map(|h| h["kind"].as_i64().unwrap()).collect();
    assert_eq!(kinds, [3, 3, 2, 2], "{r}"); // write, write, read, read
                                            // Rename `sq` everywhere; renaming a builtin is refused.
    let r = c.request(
        "textDocument/prepareRename",
        json!({"textDocument": {"uri": main}, "position": pos(main_text, "sq(x)")}),
    );
    assert_eq!(r["result"]["start"], pos(main_text, "sq(x)"), "{r}");
    let r = c.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": main}, "position": pos(main_text, "sq(x)"), "newName": "square"}),
    );
    let changes = &r["result"]["changes"];
    assert_eq!(changes[lib].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(changes[main].as_array().unwrap().len(), 2, "{r}");
    assert!(changes[main].as_array().unwrap().iter().all(|e| e["newText"] == "square"));
    let r = c.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": main}, "position": pos(main_text, "diffPair"), "newName": "dp"}),
    );
    assert!(r["error"]["message"].as_str().is_some(), "{r}");
    // Implementation of the interface requirement; type definition of `d`.
    let r = c.request(
        "textDocument/implementation",
        json!({"textDocument": {"uri": lib}, "position": pos(lib_text, "area();")}),
    );
    assert_eq!(r["result"][0]["range"]["start"]["line"], 2, "{r}");
    let r = c.request(
        "textDocument/typeDefinition",
        json!({"textDocument": {"uri": main}, "position": pos(main_text, "d.area")}),
    );
    assert_eq!(r["result"][0]["uri"], lib, "{r}");
    assert_eq!(r["result"][0]["range"]["start"]["line"], 2, "{r}");
    let r = c.request(
        "textDocument/declaration",
        json!({"textDocument": {"uri": main}, "position": pos(main_text, "area()")}),
    );
    assert_eq!(r["result"][0]["range"]["start"]["line"], 1, "{r}");
    // Workspace symbols.
    let r = c.request("workspace/symbol", json!({"query": "dsk"}));
    let names: Vec<&str> = r["result"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Disk"], "{r}");
    c.shutdown();
}

/// Decodes semantic tokens: (line, column, length, type, modifiers).
fn decode_tokens(data: &[Value], legend: &Value) -> Vec<(u64, u64, u64, String, Vec<String>)> {
    let types: Vec<&str> = legend["tokenTypes"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    let mods: Vec<&str> = legend["tokenModifiers"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    let n: Vec<u64> = data.iter().map(|v| v.as_u64().unwrap()).collect();
    let (mut line, mut col) = (0, 0);
    n.chunks(5)
        .map(|t| {
            if t[0] > 0 {
                line += t[0];
                col = t[1];
            } else {
                col += t[1];
            }
            let m = (0..mods.len()).filter(|i| t[4] & (1 << i) != 0).map(|i| mods[i].to_string()).collect();
            (line, col, t[2], types[t[3] as usize].to_string(), m)
        })
        .collect()
}

#[test]
fn semantic_tokens_mark_derivative_flow_with_deltas_and_ranges() {
    let mut c = Client::start();
    let legend = c.initialize_result["capabilities"]["semanticTokensProvider"]["legend"].clone();
    assert!(legend["tokenModifiers"].as_array().unwrap().contains(&json!("differentiable")));
    let uri = "file:///tmp/slang-analyzer-test/tokens.slang";
    let text = "[Differentiable]\nfloat f(float x, no_diff float k)\n{\n    float y = x * x;\n    int n = 3;\n    return y * k + detach(x);\n}\n";
    c.open(uri, text);
    let r = c.request("textDocument/semanticTokens/full", json!({"textDocument": {"uri": uri}}));
    let id = r["result"]["resultId"].as_str().unwrap().to_string();
    let first_data = r["result"]["data"].as_array().unwrap().clone();
    let toks = decode_tokens(&first_data, &legend);
    let find = |line: u64, col: u64| {
        toks.iter().find(|t| t.0 == line && t.1 == col).unwrap_or_else(|| panic!("{line}:{col} in {toks:?}")).clone()
    };
    // `x` (parameter) and `y` carry derivatives; `k` is no_diff; `n` is an int.
    assert_eq!(find(1, 14).3, "parameter");
    assert!(find(1, 14).4.contains(&"differentiable".to_string()), "{toks:?}");
    assert!(find(1, 31).4.contains(&"noDiff".to_string()), "{toks:?}");
    assert!(find(3, 10).4.contains(&"differentiable".to_string()), "{toks:?}");
    assert!(!find(4, 8).4.contains(&"differentiable".to_string()), "{toks:?}");
    // An edit, then a delta against the previous result.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 4, "character": 4}, "end": {"line": 4, "character": 14}}, "text": "float m = 3.0;"}]}),
    );
    let r = c.request(
        "textDocument/semanticTokens/full/delta",
        json!({"textDocument": {"uri": uri}, "previousResultId": id}),
    );
    let edits = r["result"]["edits"].as_array().unwrap_or_else(|| panic!("{r}"));
    assert_eq!(edits.len(), 1, "{r}");
    assert!(edits[0]["deleteCount"].as_u64().unwrap() > 0);
    // Applying the delta to the first result gives a full request's.
    let mut data = first_data.clone();
    let start = edits[0]["start"].as_u64().unwrap() as usize;
    let delete = edits[0]["deleteCount"].as_u64().unwrap() as usize;
    data.splice(start..start + delete, edits[0]["data"].as_array().unwrap().iter().cloned());
    let full = c.request("textDocument/semanticTokens/full", json!({"textDocument": {"uri": uri}}));
    assert_eq!(&data, full["result"]["data"].as_array().unwrap());
    // A range request: only line 3's tokens.
    let r = c.request(
        "textDocument/semanticTokens/range",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 3, "character": 0}, "end": {"line": 4, "character": 0}}}),
    );
    let toks = decode_tokens(r["result"]["data"].as_array().unwrap(), &legend);
    assert!(!toks.is_empty() && toks.iter().all(|t| t.0 == 3), "{toks:?}");
    c.shutdown();
}

#[test]
fn inlay_hints_signature_help_and_configuration_toggles() {
    let mut c = Client::start_in(json!({}), None, json!({"slang": {"inlayHints": {"parameterNames": false}}}));
    let uri = "file:///tmp/slang-analyzer-test/inlay.slang";
    let text = "[Differentiable]\nfloat sq(float value, float scale) { return value * value * scale; }\nvoid main()\n{\n    let d = fwd_diff(sq)(diffPair(2.0, 1.0), diffPair(1.0, 0.0));\n    float r = sq(1.0, \n}\n";
    c.open(uri, text);
    let r = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 7, "character": 0}}}),
    );
    let hints = r["result"].as_array().unwrap_or_else(|| panic!("{r}"));
    let labels: Vec<String> = hints.iter().map(|h| h["label"].as_str().unwrap().to_string()).collect();
    // The deduced type of `d` and the derivative signatures of `sq`; no
    // parameter names (turned off by the settings).
    assert!(labels.iter().any(|l| l.contains("DifferentialPair<float>") && !l.contains("fwd_diff")), "{labels:?}");
    assert!(labels.iter().any(|l| l.contains("fwd_diff(sq)")), "{labels:?}");
    assert!(!hints.iter().any(|h| h["kind"] == 2), "{labels:?}");
    // Signature help inside `fwd_diff(sq)(`: the transformed parameters.
    let r = c.request(
        "textDocument/signatureHelp",
        json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 45}}),
    );
    let sig = &r["result"]["signatures"][0];
    assert!(sig["label"].as_str().unwrap().contains("DifferentialPair<float> scale"), "{r}");
    assert_eq!(r["result"]["activeParameter"], 1, "{r}");
    let [a, b] =
        [sig["parameters"][1]["label"][0].as_u64().unwrap(), sig["parameters"][1]["label"][1].as_u64().unwrap()];
    let label: Vec<u16> = sig["label"].as_str().unwrap().encode_utf16().collect();
    assert_eq!(String::from_utf16(&label[a as usize..b as usize]).unwrap(), "DifferentialPair<float> scale");
    // In unfinished code: the plain signature, second parameter active.
    let r = c.request(
        "textDocument/signatureHelp",
        json!({"textDocument": {"uri": uri}, "position": {"line": 5, "character": 22}}),
    );
    assert_eq!(r["result"]["signatures"][0]["label"], "float sq(float value, float scale)", "{r}");
    assert_eq!(r["result"]["activeParameter"], 1, "{r}");
    c.shutdown();
}

#[test]
fn formatting_folding_and_selection() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/format.slang";
    let text = "// A comment\n// more\nstruct S {\nfloat a;\n  float b;\n}\nfloat f(float x){\nif(x>0){\nreturn x*2;\n}\nreturn -x;\n}\n";
    c.open(uri, text);
    let r = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    let mut edits = r["result"].as_array().unwrap_or_else(|| panic!("{r}")).clone();
    // Apply (last first) and compare with the expected text.
    let offset = |p: &Value| {
        let (l, ch) = (p["line"].as_u64().unwrap() as usize, p["character"].as_u64().unwrap() as usize);
        text.split_inclusive('\n').take(l).map(str::len).sum::<usize>() + ch
    };
    edits.sort_by_key(|e| std::cmp::Reverse(offset(&e["range"]["start"])));
    let mut out = text.to_string();
    for e in &edits {
        out.replace_range(offset(&e["range"]["start"])..offset(&e["range"]["end"]), e["newText"].as_str().unwrap());
    }
    assert_eq!(
        out,
        "// A comment\n// more\nstruct S {\n    float a;\n    float b;\n}\nfloat f(float x) {\n    if (x > 0) {\n        return x * 2;\n    }\n    return -x;\n}\n"
    );
    // Range formatting touches only the selected lines.
    let r = c.request(
        "textDocument/rangeFormatting",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 3, "character": 0}, "end": {"line": 4, "character": 0}},
               "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    let lines: Vec<u64> =
        r["result"].as_array().unwrap().iter().map(|e| e["range"]["start"]["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [3], "{r}");
    // Folding: the comment run, the struct, the function and the if.
    let r = c.request("textDocument/foldingRange", json!({"textDocument": {"uri": uri}}));
    let mut folds: Vec<(u64, u64)> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["startLine"].as_u64().unwrap(), f["endLine"].as_u64().unwrap()))
        .collect();
    folds.sort();
    assert_eq!(folds, [(0, 1), (2, 4), (6, 10), (7, 8)], "{r}");
    // Selection: `x` in `x*2` grows to the expression, the statement …
    let r = c.request(
        "textDocument/selectionRange",
        json!({"textDocument": {"uri": uri}, "positions": [{"line": 8, "character": 7}]}),
    );
    let mut sel = &r["result"][0];
    let mut widths = Vec::new();
    while sel.is_object() {
        widths.push((sel["range"]["start"].clone(), sel["range"]["end"].clone()));
        sel = &sel["parent"];
    }
    assert_eq!(widths[0], (json!({"line": 8, "character": 7}), json!({"line": 8, "character": 8})), "{r}");
    assert_eq!(widths[1], (json!({"line": 8, "character": 7}), json!({"line": 8, "character": 10})), "{r}");
    assert!(widths.len() >= 5, "{r}");
    c.shutdown();
}

#[test]
fn the_compile_worker_reports_and_compile_requests_return_target_code() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/kernel.slang";
    let text = "RWStructuredBuffer<float> result;\nTexture2DMS<float> tex;\n[Differentiable]\nfloat sq(float x) { return x * x; }\n\n[shader(\"compute\")]\n[numthreads(64, 1, 1)]\nvoid computeMain(uint3 id : SV_DispatchThreadID)\n{\n    result[id.x] = sq(float(id.x));\n}\n";
    c.open(uri, text);
    assert_eq!(c.diagnostics(uri, 1), Vec::<Value>::new());
    let r = c.request("slang-analyzer/compile", json!({"textDocument": {"uri": uri}, "target": "wgsl"}));
    let wgsl = r["result"]["text"].as_str().unwrap_or_else(|| panic!("{r}"));
    assert!(wgsl.contains("@compute @workgroup_size(64, 1, 1)"), "{wgsl}");
    assert_eq!(r["result"]["languageId"], "wgsl");
    let r = c.request(
        "slang-analyzer/compile",
        json!({"textDocument": {"uri": uri}, "target": "hlsl", "entryPoint": "computeMain"}),
    );
    assert!(r["result"]["text"].as_str().unwrap().contains("numthreads(64, 1, 1)"), "{r}");
    // Code the generator cannot compile yet: its own diagnostics, after
    // the analysis's (which find nothing wrong).
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 9, "character": 0}, "end": {"line": 9, "character": 35}},
                                   "text": "    result[id.x] = sq(float(id.x)) + tex.Load(int2(0, 0), 0);"}]}),
    );
    assert_eq!(c.diagnostics(uri, 2), Vec::<Value>::new());
    let d = c.diagnostics(uri, 2);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["source"], "slang-analyzer (codegen)");
    assert_eq!(d[0]["severity"], 2);
    assert_eq!(d[0]["range"]["start"]["line"], 9, "{d:?}");
    c.shutdown();
}

/// The compile worker compiles what the preprocessor makes of the file:
/// macro uses expanded, no codegen diagnostic, and the target code has
/// the expansion.
#[test]
fn the_compile_worker_expands_macros() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/macros.slang";
    let text = "#define K 3.5\n#define SQ(x) ((x) * (x))\nRWStructuredBuffer<float> result;\n[numthreads(1, 1, 1)]\nvoid computeMain(uint3 id : SV_DispatchThreadID)\n{\n    result[id.x] = SQ(K);\n}\n";
    c.open(uri, text);
    assert_eq!(c.diagnostics(uri, 1), Vec::<Value>::new());
    let r = c.request("slang-analyzer/compile", json!({"textDocument": {"uri": uri}, "target": "wgsl"}));
    let wgsl = r["result"]["text"].as_str().unwrap_or_else(|| panic!("{r}"));
    assert!(wgsl.contains("3.5"), "{wgsl}");
    // After the worker ran: still nothing to report.
    assert_eq!(c.diagnostics(uri, 1), Vec::<Value>::new());
    c.shutdown();
}

#[test]
fn cancelled_and_raced_requests_are_answered_and_the_server_goes_on() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/race.slang";
    // A big enough file that requests take a moment.
    let mut text = String::new();
    for i in 0..400 {
        text.push_str(&format!("[Differentiable]\nfloat f{i}(float x) {{ float y = x * {i}.0; return y * y; }}\n"));
    }
    c.open(uri, &text);
    c.diagnostics(uri, 1);
    // `$/cancelRequest` right after a request: it is answered, with its
    // result or "request cancelled".
    for _ in 0..5 {
        let id = c.send_request("textDocument/semanticTokens/full", json!({"textDocument": {"uri": uri}}));
        c.notify("$/cancelRequest", json!({"id": id}));
        let r = c.response(id);
        assert!(r.get("result").is_some() || r["error"]["code"] == -32800, "{r}");
    }
    // Edits racing requests: each request gets its result or "content
    // modified", in any interleaving.
    let mut ids = Vec::new();
    for version in 2..40 {
        ids.push(c.send_request(
            "textDocument/references",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 26}, "context": {"includeDeclaration": true}}),
        ));
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"range": {"start": {"line": 1, "character": 45}, "end": {"line": 1, "character": 46}}, "text": if version % 2 == 0 { "z" } else { "y" }}]}),
        );
    }
    for id in ids {
        let r = c.response(id);
        assert!(r.get("result").is_some() || r["error"]["code"] == -32801, "{r}");
    }
    // And afterwards the server answers as usual.
    let r =
        c.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 7}}));
    assert!(r["result"]["contents"]["value"].as_str().unwrap().contains("float f0(float x)"), "{r}");
    c.shutdown();
}

/// Protocol fuzzing: random frames, random JSON, and real methods with
/// random, mutated or missing parameters (a fixed seed, so failures
/// reproduce). Every request with an id gets an answer, and the server is
/// alive and correct afterwards.
#[test]
fn random_messages_never_stop_the_server() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/fuzz.slang";
    c.open(uri, SHADER);
    c.diagnostics(uri, 1);
    let methods = [
        "textDocument/hover",
        "textDocument/completion",
        "textDocument/definition",
        "textDocument/references",
        "textDocument/rename",
        "textDocument/prepareRename",
        "textDocument/signatureHelp",
        "textDocument/semanticTokens/full",
        "textDocument/semanticTokens/range",
        "textDocument/inlayHint",
        "textDocument/codeAction",
        "textDocument/codeLens",
        "textDocument/formatting",
        "textDocument/rangeFormatting",
        "textDocument/foldingRange",
        "textDocument/selectionRange",
        "textDocument/documentHighlight",
        "textDocument/implementation",
        "textDocument/typeDefinition",
        "textDocument/diagnostic",
        "completionItem/resolve",
        "workspace/symbol",
        "slang-analyzer/derivative",
        "slang-analyzer/compile",
        "textDocument/didChange",
        "no/such/method",
    ];
    let mut seed = 0x5eed_u64;
    let mut rand = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n.max(1)
    };
    let mut ids = Vec::new();
    for _ in 0..2000 {
        let pos = || json!({"line": 0, "character": 0});
        let new_name = ["x", "", "1bad", "return", "renamed"][rand(5) as usize];
        let target = ["wgsl", "spirv", "bogus"][rand(3) as usize];
        let inserted = ["", "(", "}", "x", "\u{1F600}"][rand(5) as usize];
        let mut p = json!({
            "textDocument": {"uri": uri, "version": 1},
            "position": {"line": rand(40), "character": rand(80)},
            "range": {"start": {"line": rand(40), "character": rand(80)}, "end": {"line": rand(40), "character": rand(80)}},
            "context": {"includeDeclaration": true, "diagnostics": []},
            "newName": new_name,
            "options": {"tabSize": rand(9), "insertSpaces": rand(2) == 0},
            "positions": [pos()],
            "query": "sh",
            "target": target,
            "contentChanges": [{"range": {"start": {"line": rand(30), "character": rand(50)}, "end": {"line": rand(30), "character": rand(50)}}, "text": inserted}],
        });
        // Mutations: drop a field, break a type, or send nonsense.
        match rand(6) {
            0 => {
                p.as_object_mut().unwrap().remove(["position", "textDocument", "range", "context"][rand(4) as usize]);
            }
            1 => p["position"] = json!("nowhere"),
            2 => p = json!([1, 2, 3]),
            _ => {}
        }
        let method = methods[rand(methods.len() as u64) as usize];
        match rand(10) {
            0 => c.send_raw("{not json"),
            1 => c.send_raw(r#"{"jsonrpc":"2.0","id":"s","method":5}"#),
            _ if method == "textDocument/didChange" => c.notify(method, p),
            _ => ids.push(c.send_request(method, p)),
        }
    }
    for id in ids {
        let r = c.response(id);
        assert!(r.get("result").is_some() || r.get("error").is_some(), "{r}");
    }
    // Still serving: the document can be replaced and checked.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 500}, "contentChanges": [{"text": "float g() { return h; }\n"}]}),
    );
    let d = c.diagnostics(uri, 500);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "unresolved-name");
    c.shutdown();
}

/// Macros through the protocol: a diagnostic inside an expansion at the
/// argument it comes from (naming the macro); hover through a macro's
/// argument; hover, go to definition and references on a macro's name;
/// semantic tokens in the text the user wrote.
#[test]
fn macros_are_expanded_for_the_editor() {
    let mut c = Client::start();
    let uri = "file:///tmp/slang-analyzer-test/macros.slang";
    let text = "#define SETTER_DECL [mutating]\n#define TWICE(e) ((e) + (e))\nstruct Light { float intensity; SETTER_DECL void set(float v) { intensity = v; } };\nfloat f(Light gLight) { return TWICE(gLight.intensity) + TWICE(missing); }\n";
    c.open(uri, text);
    let d = c.diagnostics(uri, 1);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "unresolved-name");
    assert_eq!(d[0]["range"]["start"], pos(text, "missing"));
    assert!(d[0]["message"].as_str().unwrap().contains("in the expansion of macro `TWICE`"), "{d:?}");
    let hover = |c: &mut Client, at: Value| {
        let h = c.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": at}));
        (h["result"]["contents"]["value"].as_str().unwrap_or_default().to_string(), h["result"]["range"].clone())
    };
    let (md, range) = hover(&mut c, pos(text, "intensity) +"));
    assert!(md.contains("float intensity"), "{md}");
    assert_eq!(range["start"], pos(text, "intensity) +"));
    let (md, range) = hover(&mut c, pos(text, "TWICE(gLight"));
    assert!(
        md.contains("#define TWICE(e) ((e) + (e))") && md.contains("((gLight.intensity) + (gLight.intensity))"),
        "{md}"
    );
    assert_eq!(range["start"], pos(text, "TWICE(gLight"));
    let g = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": pos(text, "TWICE(missing")}),
    );
    assert_eq!(g["result"][0]["range"]["start"], pos(text, "TWICE(e)"), "{g}");
    let r = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": uri}, "position": pos(text, "TWICE(e)"), "context": {"includeDeclaration": true}}),
    );
    assert_eq!(r["result"].as_array().map(Vec::len), Some(3), "{r}");
    c.shutdown();
}

/// The diagnostics of `uri` once `done` holds (publications made before a
/// settings change took effect are skipped).
fn diagnostics_when(c: &mut Client, uri: &str, done: &dyn Fn(&[Value]) -> bool) -> Vec<Value> {
    for _ in 0..10 {
        let d = c.diagnostics(uri, 1);
        if done(&d) {
            return d;
        }
    }
    panic!("diagnostics of {uri} never satisfied the condition");
}

/// Waits for the end of the workspace indexing (`$/progress`).
fn wait_indexed(c: &mut Client) -> Value {
    c.wait_for(&|v| v["method"] == "$/progress" && v["params"]["value"]["kind"] == "end")
}

#[test]
fn vfx_flavor_indexes_effect_files_and_predefines_effect_sections() {
    let ws = temp_workspace("vfx");
    std::fs::write(ws.join("tonemap.hlsl"), "float3 tonemap(float3 c) { return c / (c + 1.0); }\n").unwrap();
    let caps = json!({"window": {"workDoneProgress": true}, "workspace": {"configuration": true}});
    let mut c = Client::start_in(caps, Some(ws.to_str().unwrap()), json!({"slang": {"workspaceFlavor": "vfx"}}));
    let end = wait_indexed(&mut c);
    assert_eq!(end["params"]["value"]["message"], "1 files");
    let r = c.request("workspace/symbol", json!({"query": "tonemap"}));
    assert_eq!(r["result"][0]["location"]["uri"], format!("file://{}/tonemap.hlsl", ws.display()), "{r}");
    // The reference's effect sections: `HEADER` skipped, `COMMON` shared,
    // `PS` a file-private scope.
    let uri = format!("file://{}/main.vfx", ws.display());
    let text = "HEADER { Description = \"demo\"; }\n\
                COMMON { float twice(float x) { return x * 2.0; } }\n\
                PS { float4 MainPs() : SV_Target { return float4(twice(0.5), 0.0, 0.0, 1.0); } }\n";
    c.open(&uri, text);
    assert_eq!(c.diagnostics(&uri, 1), Vec::<Value>::new());
    // Standard flavor: the sections are unknown names.
    c.settings = json!({"workspaceFlavor": "standard"});
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"slang": c.settings.clone()}}));
    diagnostics_when(&mut c, &uri, &|d| !d.is_empty());
    c.shutdown();
    let _ = std::fs::remove_dir_all(&ws);
}

/// slangpy's shader folder comes from the workspace's Python interpreter
/// (`slang.pythonPath`): a stand-in interpreter answers with the folder of
/// a package laid out as slangpy's wheel is (`slangpy/slang/slangpy.slang`).
#[cfg(unix)]
#[test]
fn slangpy_is_found_through_the_python_interpreter() {
    use std::os::unix::fs::PermissionsExt;
    let ws = temp_workspace("slangpy");
    let package = ws.join("site-packages/slangpy");
    std::fs::create_dir_all(package.join("slang")).unwrap();
    std::fs::write(
        package.join("slang/slangpy.slang"),
        "module slangpy;\n/// An N-dimensional tensor.\npublic struct Tensor<T, let D : int> { public int dims() { return D; } }\n",
    )
    .unwrap();
    let python = ws.join("python");
    std::fs::write(&python, format!("#!/bin/sh\necho {}\n", package.display())).unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    let src = ws.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let caps = json!({"workspace": {"configuration": true}});
    let missing = ws.join("no-python");
    let mut c = Client::start_in(
        caps,
        Some(src.to_str().unwrap()),
        json!({"slang": {"pythonPath": missing.to_str().unwrap()}}),
    );
    let log = c.wait_for(&|v| {
        v["method"] == "window/logMessage" && v["params"]["message"].as_str().unwrap().contains("slangpy")
    });
    assert!(log["params"]["message"].as_str().unwrap().contains("not found (cannot run"), "{log}");
    let uri = format!("file://{}/main.slang", src.display());
    let text = "import slangpy;\nfloat f(Tensor<float, 2> t) { return float(t.dims()); }\n";
    c.open(&uri, text);
    diagnostics_when(&mut c, &uri, &|d| d.iter().any(|d| d["code"] == "unresolved-import"));
    // The setting names the interpreter: the import resolves.
    c.settings = json!({"pythonPath": python.to_str().unwrap()});
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"slang": c.settings.clone()}}));
    let log = c.wait_for(&|v| {
        v["method"] == "window/logMessage" && v["params"]["message"].as_str().unwrap().contains("slangpy: searching")
    });
    let shown = format!("{}/slang", package.display());
    assert!(log["params"]["message"].as_str().unwrap().contains(&shown), "{log}");
    diagnostics_when(&mut c, &uri, &|d| d.is_empty());
    let r = c.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": pos(text, "Tensor<")}));
    assert!(r["result"]["contents"]["value"].as_str().unwrap().contains("N-dimensional tensor"), "{r}");
    c.shutdown();
    let _ = std::fs::remove_dir_all(&ws);
}

/// slangtorch's build cache beside a module gives its include paths and
/// defines.
#[test]
fn slangtorch_cache_gives_include_paths_and_defines() {
    let ws = temp_workspace("slangtorch");
    std::fs::create_dir_all(ws.join("inc")).unwrap();
    std::fs::write(ws.join("inc/helpers.slang"), "module helpers;\npublic float helper() { return 1.0; }\n").unwrap();
    let build = ws.join("kernels/.slangtorch_cache/square/0123456789abcdef/0");
    std::fs::create_dir_all(&build).unwrap();
    let meta = json!({"cpp": {"options": ["-DBLOCK=1"], "includePaths": ["../inc"], "deps": [], "version": 1},
                      "cuda": {"options": ["-DBLOCK=1"], "includePaths": ["../inc"]},
                      "moduleName": "_slangtorch_square_0123456789abcdef_0"});
    std::fs::write(build.join("metadata.json"), meta.to_string()).unwrap();
    let caps = json!({"window": {"workDoneProgress": true}});
    let mut c = Client::start_in(
        caps,
        Some(ws.to_str().unwrap()),
        json!({"slang": {"searchInAllWorkspaceDirectories": false}}),
    );
    let log = c.wait_for(&|v| {
        v["method"] == "window/logMessage" && v["params"]["message"].as_str().unwrap().contains("slangtorch")
    });
    assert!(log["params"]["message"].as_str().unwrap().contains("BLOCK=1"), "{log}");
    wait_indexed(&mut c);
    let uri = format!("file://{}/kernels/square.slang", ws.display());
    let text =
        "import helpers;\n#if BLOCK\nfloat f() { return helper(); }\n#else\nfloat f() { return missing; }\n#endif\n";
    c.open(&uri, text);
    assert_eq!(c.diagnostics(&uri, 1), Vec::<Value>::new());
    c.shutdown();
    let _ = std::fs::remove_dir_all(&ws);
}

/// A function differentiated in reverse mode (and a callee).
const CHECKPOINTED: &str = "[Differentiable]
float sq(float x) { return sin(x) * x; }

[Differentiable]
float f(float x) {
    float acc = x;
    for (int i = 0; i < 4; i++) {
        acc = sq(acc) + x;
    }
    return acc;
}

RWStructuredBuffer<float> output;

[numthreads(1, 1, 1)]
void main() {
    var p = diffPair(1.0);
    bwd_diff(f)(p, 1.0);
    output[0] = p.d;
}
";

/// A callee called outside the loop that reads a buffer (so it is not
/// recomputed as a pure call): its context is saved.
const CALLEE_SAVED: &str = "RWStructuredBuffer<float> w;

[Differentiable]
float sq(float x) { return sin(x) * x * w[0]; }

[Differentiable]
float f(float x) {
    float acc = x;
    for (int i = 0; i < 4; i++) {
        acc = acc * x;
    }
    return sq(acc) + x;
}

RWStructuredBuffer<float> output;

[numthreads(1, 1, 1)]
void main() {
    var p = diffPair(1.0);
    bwd_diff(f)(p, 1.0);
    output[0] = p.d;
}
";

/// The code lenses of `uri`: (line, title).
fn lenses(c: &mut Client, uri: &str) -> Vec<(u64, String)> {
    let r = c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
    let lenses = r["result"].as_array().cloned().unwrap_or_default();
    lenses
        .iter()
        .map(|l| (l["range"]["start"]["line"].as_u64().unwrap(), l["command"]["title"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn code_lenses_show_what_backward_derivatives_save() {
    let caps = json!({"workspace": {"codeLens": {"refreshSupport": true}}});
    let mut c = Client::start_with(caps);
    let uri = "file:///tmp/checkpoint-lens.slang";
    c.open(uri, CHECKPOINTED);
    // The compile worker computes them, then asks the client to refresh.
    c.wait_for(&|v| v["method"] == "workspace/codeLens/refresh");
    // The numbers of `derive --mode bwd --code` for the same file.
    let expected =
        vec![(1, "saves 0 B/thread (0 values)".to_string()), (4, "saves 24 B/thread (1 values)".to_string())];
    assert_eq!(lenses(&mut c, uri), expected);
    let r = c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
    assert_eq!(r["result"][1]["command"]["command"], "slang.showBackwardDerivative", "{r}");
    assert_eq!(r["result"][1]["command"]["arguments"], json!([uri, {"line": 4, "character": 6}]), "{r}");
    // `[ForceUnroll]` on the loop: the worker recomputes them.
    let text = CHECKPOINTED.replace("    for (int i", "    [ForceUnroll]\n    for (int i");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text}]}),
    );
    c.wait_for(&|v| v["method"] == "workspace/codeLens/refresh");
    // (Unrolled, every value is recomputed from `x`: slangc reports no
    // context for it either.)
    assert_eq!(lenses(&mut c, uri)[1], (4, "saves 0 B/thread (0 values)".to_string()));
    // No `bwd_diff` use: no lenses.
    let text = CHECKPOINTED.replace("bwd_diff(f)(p, 1.0);", "");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": text}]}),
    );
    c.wait_for(&|v| v["method"] == "workspace/codeLens/refresh");
    assert_eq!(lenses(&mut c, uri), vec![]);
    c.shutdown();
}

/// The titles of the code actions at `marker` in `text`.
fn action_titles(c: &mut Client, uri: &str, text: &str, marker: &str) -> Vec<String> {
    let p = pos(text, marker);
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": p, "end": p}, "context": {"diagnostics": []}}),
    );
    r["result"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|a| a["title"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn checkpoint_quick_fixes_are_titled_with_the_size_they_give() {
    let mut c = Client::start();
    let uri = "file:///tmp/checkpoint-fixes.slang";
    c.open(uri, CHECKPOINTED);
    // On the loop's header: unrolled, nothing is saved instead of 24
    // bytes (the size `derive` gives the edited file; slangc reports no
    // context for it either).
    let titles = action_titles(&mut c, uri, CHECKPOINTED, "for (int i");
    assert!(
        titles.contains(&"Add `[ForceUnroll]` to the loop: `f` saves 0 B/thread (now 24)".to_string()),
        "{titles:?}"
    );
    // Inside the loop's body, nothing of the loop.
    let titles = action_titles(&mut c, uri, CHECKPOINTED, "+ x;");
    assert!(titles.iter().all(|t| !t.contains("ForceUnroll")), "{titles:?}");
    // A pure callee inside the loop is recomputed already: no fix.
    let titles = action_titles(&mut c, uri, CHECKPOINTED, "sq(acc)");
    assert!(titles.iter().all(|t| !t.contains("PreferRecompute")), "{titles:?}");
    // On the name of a callee whose context is saved (it reads a buffer,
    // outside the loop): recompute it.
    let saved = "file:///tmp/checkpoint-fixes-callee.slang";
    c.open(saved, CALLEE_SAVED);
    let titles = action_titles(&mut c, saved, CALLEE_SAVED, "sq(acc)");
    let recompute =
        "Recompute `sq` instead of saving its context (`[PreferRecompute]`): `f` saves 24 B/thread (now 28)";
    assert!(titles.contains(&recompute.to_string()), "{titles:?}");
    // The edit puts the attribute on the callee (before its others).
    let p = pos(CALLEE_SAVED, "sq(acc)");
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": saved}, "range": {"start": p, "end": p}, "context": {"diagnostics": []}}),
    );
    let action = r["result"].as_array().unwrap().iter().find(|a| a["title"] == recompute).unwrap().clone();
    let edit = &action["edit"]["changes"][saved][0];
    assert_eq!(edit["newText"], "[PreferRecompute]\n", "{action}");
    assert_eq!(edit["range"]["start"], json!({"line": 2, "character": 0}), "{action}");
    // A loose `[MaxIters]` tightened to the literal bound (20 bytes:
    // `derive` on the edited file).
    let loose = CHECKPOINTED.replace("    for (int i", "    [MaxIters(16)]\n    for (int i");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": loose}]}),
    );
    let titles = action_titles(&mut c, uri, &loose, "MaxIters(16)");
    assert!(titles.contains(&"Tighten to `[MaxIters(4)]`: `f` saves 20 B/thread (now 68)".to_string()), "{titles:?}");
    // Where nothing is differentiated in reverse mode, none.
    let plain = CHECKPOINTED.replace("bwd_diff(f)(p, 1.0);", "");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": plain}]}),
    );
    let titles = action_titles(&mut c, uri, &plain, "for (int i");
    assert!(titles.iter().all(|t| !t.contains("B/thread")), "{titles:?}");
    c.shutdown();
}

const GRADIENTS: &str = "[Differentiable]
float poly(float x, float2 y)
{
    return x * x * y.x + 3.0 * y.y;
}

// The derivative of x * x is 2x: this one has the wrong sign.
void sq_bwd(inout DifferentialPair<float> x, float dOut)
{
    x = diffPair(x.p, -2.0 * x.p * dOut);
}

[Differentiable]
[BackwardDerivative(sq_bwd)]
float sq_custom(float x)
{
    return x * x;
}

[Differentiable]
int rounded(float x) { return int(x); }

float plain(float x) { return x; }
";

/// `slang.checkGradients` with `at` (a position or a name): the result and
/// the messages shown (type, text).
fn check_gradients(c: &mut Client, uri: &str, at: Value, messages: usize) -> (Value, Vec<(u64, String)>) {
    let r = c.request("workspace/executeCommand", json!({"command": "slang.checkGradients", "arguments": [uri, at]}));
    let shown = (0..messages)
        .map(|_| {
            let m = c.wait_for(&|v| v["method"] == "window/showMessage");
            (m["params"]["type"].as_u64().unwrap(), m["params"]["message"].as_str().unwrap().to_string())
        })
        .collect();
    (r["result"].clone(), shown)
}

#[test]
fn check_gradients_runs_gradcheck_from_the_editor() {
    let mut c = Client::start();
    let commands = &c.initialize_result["capabilities"]["executeCommandProvider"]["commands"];
    assert_eq!(commands, &json!(["slang.checkGradients"]), "{}", c.initialize_result);
    let uri = "file:///tmp/check-gradients.slang";
    c.open(uri, GRADIENTS);
    // Offered as a code action on functions of `float`/`floatN`s that are
    // differentiable, and only there.
    let titles = action_titles(&mut c, uri, GRADIENTS, "poly(");
    assert!(titles.contains(&"Check gradients of `poly`".to_string()), "{titles:?}");
    let p = pos(GRADIENTS, "+ 3.0");
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": p, "end": p}, "context": {"diagnostics": []}}),
    );
    let action = r["result"].as_array().unwrap().iter().find(|a| a["title"] == "Check gradients of `poly`").cloned();
    let action = action.unwrap_or_else(|| panic!("{r}"));
    assert_eq!(action["command"]["command"], "slang.checkGradients", "{action}");
    assert_eq!(action["command"]["arguments"], json!([uri, "poly"]), "{action}");
    for marker in ["rounded(", "plain(", "return x; }"] {
        let titles = action_titles(&mut c, uri, GRADIENTS, marker);
        assert!(titles.iter().all(|t| !t.starts_with("Check gradients")), "{marker}: {titles:?}");
    }
    // Not what the check supports: an error, shown, without the device.
    let (r, shown) = check_gradients(&mut c, uri, json!("rounded"), 1);
    assert_eq!(r["ok"], false, "{r}");
    assert!(r["error"].as_str().unwrap().contains("the result type `int`"), "{r}");
    assert_eq!(shown[0].0, 1, "an error: {shown:?}");
    if std::env::var_os("SLANG_ANALYZER_NO_GPU").is_some_and(|v| v == "1") {
        eprintln!("!!! SLANG_ANALYZER_NO_GPU=1: skipping slang.checkGradients on the device");
        c.shutdown();
        return;
    }
    // At a position in the function's body: it passes.
    let (r, shown) = check_gradients(&mut c, uri, pos(GRADIENTS, "+ 3.0"), 1);
    assert_eq!(r["ok"], true, "no Vulkan device? set SLANG_ANALYZER_NO_GPU=1 to skip: {r}");
    assert_eq!(r["function"], "poly", "{r}");
    assert!(r["lines"].as_array().unwrap().iter().any(|l| l == "gradcheck `poly`: ok"), "{r}");
    assert_eq!(shown, vec![(3, "gradcheck `poly`: ok (fwd_diff and bwd_diff agree with finite differences)".into())]);
    // By name, the wrong custom derivative: a warning at the function.
    let (r, shown) = check_gradients(&mut c, uri, json!("sq_custom"), 1);
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["location"]["range"]["start"], json!({"line": 14, "character": 6}), "{r}");
    assert_eq!(shown[0].0, 2, "a warning: {shown:?}");
    assert!(
        shown[0]
            .1
            .starts_with("/tmp/check-gradients.slang:15:7: bwd_diff(sq_custom) disagrees with finite differences"),
        "{shown:?}"
    );
    // Bad arguments are invalid parameters.
    let r = c.request("workspace/executeCommand", json!({"command": "slang.checkGradients", "arguments": [uri]}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    c.shutdown();
}
