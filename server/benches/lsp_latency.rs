//! Language-server latency on a large file, measured through the real
//! binary over stdio (as an editor sees it): edit → diagnostics,
//! completion and hover, as medians and 95th percentiles, and the
//! server's peak resident memory.
//!
//! Run with `cargo bench -p slang-analyzer --bench lsp_latency`.
//! Targets (issue 5): on a ≥ 2,000-line file, edit → diagnostics p95 ≤
//! 50 ms, completion p95 ≤ 20 ms, hover p95 ≤ 10 ms, peak RSS ≤ 100 MB.

#[path = "../../tests/lsp_client.rs"]
mod lsp_client;

use std::time::{Duration, Instant};

use lsp_client::Client;
use serde_json::json;

#[path = "../../tests/bench_file.rs"]
mod bench_file;

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
