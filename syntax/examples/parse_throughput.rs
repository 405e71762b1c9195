//! Parse throughput over a corpus of many small files, timed per file the
//! way `slang-analyzer parse --json` times them (the sum of each
//! `parse_with` call, so per-call fixed costs count):
//!
//! ```text
//! cargo run --release -p slang-syntax --example parse_throughput -- [--rounds N] PATH...
//! ```
//!
//! PATHs are folders (searched for `.slang`/`.slangh` files) or files.
//! Prints MB/s for each round (every file parsed once per round) and the
//! median.

// The same allocator as the `slang-analyzer` binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::time::Instant;

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(path).unwrap().filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                collect(&e, out);
            } else if matches!(e.extension().and_then(|x| x.to_str()), Some("slang" | "slangh")) {
                out.push(e);
            }
        }
    } else {
        out.push(path.to_path_buf());
    }
}

fn main() {
    let mut rounds = 5usize;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--rounds" {
            rounds = args.next().and_then(|n| n.parse().ok()).expect("--rounds N");
        } else {
            paths.push(PathBuf::from(a));
        }
    }
    if paths.is_empty() {
        eprintln!("usage: parse_throughput [--rounds N] PATH...");
        std::process::exit(2);
    }
    let mut files = Vec::new();
    for p in &paths {
        collect(p, &mut files);
    }
    let options = slang_syntax::ParseOptions::default();
    let mut rates = Vec::new();
    let mut last = (0, 0);
    for round in 0..rounds {
        let (mut secs, mut bytes, mut n) = (0.0, 0usize, 0usize);
        for f in &files {
            // Read each file right before parsing it, as the CLI does (the
            // text is then in cache, as it is there).
            let Ok(raw) = std::fs::read(f) else { continue };
            let text = slang_syntax::decode_source(&raw);
            let start = Instant::now();
            let parse = slang_syntax::parse_with(&text, &options);
            secs += start.elapsed().as_secs_f64();
            bytes += raw.len();
            n += 1;
            drop(std::hint::black_box(parse));
        }
        let rate = bytes as f64 / secs / 1e6;
        println!("round {round}: {rate:.1} MB/s");
        rates.push(rate);
        last = (n, bytes);
    }
    rates.sort_by(|a, b| a.total_cmp(b));
    println!("{} files, {} bytes; median {:.1} MB/s", last.0, last.1, rates[rates.len() / 2]);
}
