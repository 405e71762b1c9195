//! Parse throughput on a large input assembled from the corpus of real
//! Slang files in `tests/corpus/valid` (repeated to about 8 MiB).
//!
//! Run with `cargo bench -p slang-syntax --bench parse`; divan prints the
//! median time and throughput in bytes per second.

// The same allocator as the `slang-analyzer` binary: parsing allocates one
// small object per node and token, so the allocator is part of the cost.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use divan::counter::BytesCount;
use divan::Bencher;

fn corpus_text() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/valid");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut one = String::new();
    for f in &files {
        one.push_str(&std::fs::read_to_string(f).unwrap());
        one.push('\n');
    }
    assert!(!one.is_empty(), "no corpus files in {}", root.display());
    let mut text = String::new();
    while text.len() < 8 << 20 {
        text.push_str(&one);
    }
    text
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "slang") {
            out.push(p);
        }
    }
}

fn main() {
    divan::main();
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn parse_corpus(bencher: Bencher) {
    let text = corpus_text();
    bencher.counter(BytesCount::of_str(&text)).bench(|| slang_syntax::parse(divan::black_box(&text)));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn lex_corpus(bencher: Bencher) {
    let text = corpus_text();
    bencher.counter(BytesCount::of_str(&text)).bench(|| slang_syntax::lexer::lex(divan::black_box(&text)));
}
