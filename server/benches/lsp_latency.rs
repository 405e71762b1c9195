//! Language-server latency, measured through the real binary over stdio
//! (as an editor sees it), as medians and 95th percentiles, and the
//! server's peak resident memory:
//!
//! * on a large file (5,000 lines, no imports): edit → diagnostics,
//!   completion and hover. Targets (issue 5): edit → diagnostics p95 ≤
//!   50 ms, completion p95 ≤ 20 ms, hover p95 ≤ 10 ms, peak RSS ≤ 100 MB;
//! * in a workspace shaped like Falcor's `Source/` (`bench_workspace.rs`:
//!   401 modules, 58,000 lines, import chains, a 1,200-line file importing
//!   20 modules): indexing, edit → diagnostics and edit → hover of the
//!   large file. Targets (issue 22): both p95 ≤ 50 ms, peak RSS ≤ 200 MB;
//! * on the heaviest GPU benchmark kernel (`tests/bench/gpu/mlp.slang`, a
//!   backward derivative through unrolled layers): edit → diagnostics and
//!   edit → hover while the compile worker is compiling it, next to the
//!   same with the worker idle. The worker compiles in the background and
//!   must not hold edits up (issue 21: the editor stays responsive).
//!
//! Run with `cargo bench -p slang-analyzer --bench lsp_latency`
//! (`-- workspace`, `-- file` or `-- kernel` for one part). `SLANG_ANALYZER_BIN`
//! measures another build; `SLANG_ANALYZER_BENCH_WORKSPACE=DIR` writes the
//! generated workspace there and keeps it (for other servers, e.g.
//! `lspbench.py --root DIR/Source --file
//! DIR/Source/RenderPasses/PathTracerLike/PathTracerLike.slang`).

#[path = "../../tests/lsp_client.rs"]
mod lsp_client;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use lsp_client::Client;
use serde_json::{json, Value};

#[path = "../../tests/bench_file.rs"]
mod bench_file;

#[path = "../../tests/bench_workspace.rs"]
mod bench_workspace;

fn percentile(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn report(name: &str, v: &mut [Duration]) {
    let p50 = percentile(v, 0.5);
    let p95 = percentile(v, 0.95);
    println!("{name:<24} median {:>8.2} ms   p95 {:>8.2} ms   ({} samples)", ms(p50), ms(p95), v.len());
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn peak_rss_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() {
    // `cargo test --benches` runs benches with `--bench`-less args: skip.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let wanted = |part: &str| only.is_empty() || only.iter().any(|a| a == part);
    if wanted("file") {
        large_file();
    }
    if wanted("workspace") {
        workspace();
    }
    if wanted("kernel") {
        kernel();
    }
}

/// Edits of the heaviest benchmark kernel, each followed by a hover: with
/// the compile worker idle (edits 20 ms apart, inside its settle time), then
/// with an edit landing while the worker compiles the previous version
/// (edits 320–900 ms apart: the worker starts 310 ms after an edit).
fn kernel() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/bench/gpu/mlp.slang");
    let text = std::fs::read_to_string(&path).unwrap();
    println!("\nkernel: {} ({} lines)", path.file_name().unwrap().to_string_lossy(), text.lines().count());
    let mut c = Client::start();
    let uri = "file:///bench/mlp.slang";
    c.open(uri, &text);
    let first = c.diagnostics(uri, 1);
    assert!(first.is_empty(), "{first:?}");
    let lines: Vec<&str> = text.lines().collect();
    let line = lines.iter().position(|l| l.contains("float y = net.b3;")).unwrap() as u64;
    let col = lines[line as usize].find("net.b3").unwrap() as u64;
    let hover_line = lines.iter().position(|l| l.contains("float evalMLP(")).unwrap() as u64;
    let mut version = 1;
    let mut round = |c: &mut Client, gap: Duration, edits: &mut Vec<Duration>, hovers: &mut Vec<Duration>| {
        for insert in [true, false] {
            version += 1;
            let at = json!({"line": line, "character": col});
            let change = if insert {
                json!({"range": {"start": at, "end": at}, "text": "0.5 + "})
            } else {
                json!({"range": {"start": at, "end": {"line": line, "character": col + 6}}, "text": ""})
            };
            std::thread::sleep(gap);
            let t = Instant::now();
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
            );
            let d = c.diagnostics(uri, version);
            edits.push(t.elapsed());
            assert!(d.is_empty(), "{d:?}");
            let t = Instant::now();
            let r = c.request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": {"line": hover_line, "character": 8}}),
            );
            hovers.push(t.elapsed());
            assert!(r["result"]["contents"]["value"].as_str().is_some_and(|s| s.contains("fwd_diff")), "{r}");
        }
    };
    let (mut edits, mut hovers) = (Vec::new(), Vec::new());
    for _ in 0..20 {
        round(&mut c, Duration::from_millis(20), &mut edits, &mut hovers);
    }
    report("edit → diagnostics, idle", &mut edits);
    report("edit → hover, idle", &mut hovers);
    let (mut edits, mut hovers) = (Vec::new(), Vec::new());
    for i in 0..20u64 {
        round(&mut c, Duration::from_millis(320 + i * 29), &mut edits, &mut hovers);
    }
    report("edit → diagnostics, busy", &mut edits);
    report("edit → hover, busy", &mut hovers);
    c.shutdown();
}

/// The 5,000-line file.
fn large_file() {
    let text = bench_file::big_file();
    let lines = text.lines().count();
    println!("file: {lines} lines");
    let mut c = Client::start();
    let uri = "file:///bench/big.slang";
    c.open(uri, &text);
    let t = Instant::now();
    let first = c.diagnostics(uri, 1);
    println!("{:<24} {:>8.2} ms ({} diagnostics)", "open → diagnostics", ms(t.elapsed()), first.len());

    let k_line = text.lines().position(|l| l.contains("float k = 1.0;")).unwrap() as u64;
    let k_col = text.lines().nth(k_line as usize).unwrap().find("1.0").unwrap() as u64;
    let mut edits = Vec::new();
    let mut current = "1.0".to_string();
    for i in 0..60u64 {
        let version = 2 + i as i64;
        let new = format!("{}.5", i % 10);
        let change = json!({"range": {"start": {"line": k_line, "character": k_col},
                                      "end": {"line": k_line, "character": k_col + current.len() as u64}},
                            "text": new});
        current = new;
        let t = Instant::now();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
        );
        c.diagnostics(uri, version);
        edits.push(t.elapsed());
        std::thread::sleep(Duration::from_millis(20));
    }
    report("edit → diagnostics", &mut edits);

    let ret_line = k_line + 1;
    let dot_col = text.lines().nth(ret_line as usize).unwrap().find("light.dir").unwrap() as u64 + 6;
    let mut completion = Vec::new();
    for _ in 0..60 {
        let t = Instant::now();
        let r = c.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": ret_line, "character": dot_col}}),
        );
        completion.push(t.elapsed());
        assert!(r["result"].as_array().is_some_and(|a| !a.is_empty()), "{r}");
    }
    report("completion (members)", &mut completion);
    let mut scope_completion = Vec::new();
    for _ in 0..60 {
        let t = Instant::now();
        let r = c.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": ret_line, "character": 11}}),
        );
        scope_completion.push(t.elapsed());
        assert!(r["result"].as_array().is_some_and(|a| !a.is_empty()), "{r}");
    }
    report("completion (scope)", &mut scope_completion);

    let fn_line = k_line - 2;
    let mut hover = Vec::new();
    for _ in 0..60 {
        let t = Instant::now();
        let r = c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": fn_line, "character": 8}}),
        );
        hover.push(t.elapsed());
        assert!(r["result"]["contents"]["value"].as_str().is_some_and(|s| s.contains("fwd_diff")), "{r}");
    }
    report("hover (autodiff)", &mut hover);
    if let Some(mb) = peak_rss_mb(c.child.id()) {
        println!("{:<24} {mb:>8.1} MB", "peak RSS");
    }
    c.shutdown();
}

/// The Falcor-like workspace: the large importing file edited in its last
/// function (a character that breaks it inserted, then removed, as
/// `lspbench.py` does), hovers after an edit.
fn workspace() {
    let keep = std::env::var_os("SLANG_ANALYZER_BENCH_WORKSPACE").map(PathBuf::from);
    let dir = keep
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("slang-analyzer-bench-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(dir.join("Source"));
    let ws = bench_workspace::falcor_like(&dir, 40, true);
    println!(
        "\nworkspace: {} modules, {} lines; the edited file {} lines",
        ws.modules,
        ws.lines,
        ws.main_text.lines().count()
    );
    let t = Instant::now();
    let mut c =
        Client::start_in(json!({"window": {"workDoneProgress": true}}), Some(ws.root.to_str().unwrap()), Value::Null);
    c.wait_for(&|v| v["method"] == "$/progress" && v["params"]["value"]["kind"] == "end");
    println!("{:<24} {:>8.2} ms", "start → indexed", ms(t.elapsed()));
    let uri = format!("file://{}", ws.main.display());
    let t = Instant::now();
    c.open(&uri, &ws.main_text);
    let first = c.diagnostics(&uri, 1);
    println!("{:<24} {:>8.2} ms ({} diagnostics)", "open → diagnostics", ms(t.elapsed()), first.len());
    assert!(first.is_empty(), "{first:?}");

    let lines: Vec<&str> = ws.main_text.lines().collect();
    let line = lines.iter().rposition(|l| l.trim_start().starts_with("return y + pt.shade0")).unwrap() as u64;
    let at = json!({"line": line, "character": 4});
    let after = json!({"line": line, "character": 5});
    let mut version = 1;
    let mut change = |c: &mut Client, insert: bool| {
        version += 1;
        let change = if insert {
            json!({"range": {"start": at, "end": at}, "text": "@"})
        } else {
            json!({"range": {"start": at, "end": after}, "text": ""})
        };
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
        );
        version
    };
    let mut edits = Vec::new();
    for _ in 0..30 {
        for insert in [true, false] {
            let t = Instant::now();
            let v = change(&mut c, insert);
            let d = c.diagnostics(&uri, v);
            edits.push(t.elapsed());
            assert_eq!(d.is_empty(), !insert, "{d:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    report("edit → diagnostics", &mut edits);

    // A call of an imported function in the middle of the file.
    let hover_line = lines.len() / 2 + lines[lines.len() / 2..].iter().position(|l| l.contains("float w = ")).unwrap();
    let col = lines[hover_line].find("= ").unwrap() + 4;
    let mut hovers = Vec::new();
    for _ in 0..60 {
        change(&mut c, true);
        change(&mut c, false);
        let t = Instant::now();
        let r = c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": hover_line, "character": col}}),
        );
        hovers.push(t.elapsed());
        assert!(r["result"]["contents"]["value"].as_str().is_some_and(|s| s.contains("float x, float3 v")), "{r}");
        c.backlog.clear();
        std::thread::sleep(Duration::from_millis(20));
    }
    report("edit → hover", &mut hovers);
    if let Some(mb) = peak_rss_mb(c.child.id()) {
        println!("{:<24} {mb:>8.1} MB", "peak RSS");
    }
    c.shutdown();
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
