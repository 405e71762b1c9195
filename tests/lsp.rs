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
