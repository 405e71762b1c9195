//! Checking speed.
//!
//! * `cold_check`: a workspace of about 60k lines (the corpus under
//!   `tests/corpus`, copied into several folders) checked from scratch —
//!   every file's diagnostics.
//! * `recheck_after_body_edit`: a 5k-line file, checked once, then edited
//!   inside one function body and checked again (what the language server
//!   does on each keystroke).
//!
//! Run with `cargo bench -p slang-analysis --bench check`.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use divan::Bencher;
use slang_analysis::{file_diagnostics, RootDatabase, SourceFile};

fn corpus() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut out = Vec::new();
    for dir in ["valid", "realworld"] {
        collect(&root.join(dir), &root, &mut out);
    }
    out.sort();
    out
}

fn collect(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            collect(&p, root, out);
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("slang" | "slangh")) {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.push((rel, String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned()));
        }
    }
}

fn lines(files: &[(String, String)]) -> usize {
    files.iter().map(|(_, t)| t.lines().count()).sum()
}

fn main() {
    let files = corpus();
    let n = lines(&files);
    let copies = 60_000usize.div_ceil(n.max(1));
    eprintln!("cold_check: {} files × {copies} copies = {} lines", files.len(), n * copies);
    divan::main();
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn cold_check(bencher: Bencher) {
    let files = corpus();
    let copies = 60_000usize.div_ceil(lines(&files).max(1));
    let total_lines = lines(&files) * copies;
    bencher
        .with_inputs(|| {
            let mut db = RootDatabase::new();
            let mut handles = Vec::new();
            for c in 0..copies {
                for (path, text) in &files {
                    handles.push(db.set_file(&format!("/ws{c}/{path}"), text));
                }
            }
            (db, handles)
        })
        .counter(divan::counter::ItemsCount::new(total_lines))
        .bench_local_values(|(db, handles): (RootDatabase, Vec<SourceFile>)| {
            let mut n = 0;
            for f in &handles {
                n += file_diagnostics(&db, *f).len();
            }
            divan::black_box(n);
            db
        });
}

/// About 5k lines of real code in one file: corpus files, concatenated.
fn five_k_lines() -> String {
    let mut text = String::new();
    for (_, t) in &corpus() {
        if text.lines().count() > 5_000 {
            break;
        }
        text.push_str(t);
        text.push('\n');
    }
    text
}

#[divan::bench(sample_count = 30, sample_size = 1)]
fn parse_only_5k(bencher: Bencher) {
    let text = five_k_lines();
    bencher.bench_local(|| divan::black_box(slang_syntax::parse(&text)));
}

#[divan::bench(sample_count = 30, sample_size = 1)]
fn recheck_after_body_edit(bencher: Bencher) {
    let mut text = five_k_lines();
    text.push_str("\nfloat benchEdited(float x)\n{\n    return x;\n}\n");
    let mut db = RootDatabase::new();
    let f = db.set_file("/bench/big.slang", &text);
    file_diagnostics(&db, f);
    let mut counter = 0u32;
    bencher.bench_local(|| {
        counter += 1;
        // Change a literal inside the last function's body.
        let edited = text.replace("    return x;\n}\n", &format!("    return x * {counter}.0;\n}}\n"));
        db.set_file("/bench/big.slang", &edited);
        divan::black_box(file_diagnostics(&db, f).len());
    });
}
