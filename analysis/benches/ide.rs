//! Speed of the whole-file IDE features the editor asks for on every
//! screen: semantic tokens (full and a 100-line range) and inlay hints, on
//! a file of about 5,000 lines (the valid corpus concatenated), with
//! inference already done (as after the diagnostics of an edit).
//!
//! Run with `cargo bench -p slang-analysis --bench ide`.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use divan::Bencher;
use slang_analysis::ide::{inlay_hints, semantic_tokens, InlayConfig};
use slang_analysis::{file_diagnostics, RootDatabase, SourceFile, TextRange, TextSize};

#[path = "../../tests/bench_file.rs"]
mod bench_file;

fn main() {
    divan::main();
}

/// About 5,000 lines of real code, checked once.
fn big_file() -> (RootDatabase, SourceFile, usize) {
    let text = bench_file::big_file();
    let mut db = RootDatabase::new();
    let file = db.set_file("/bench/big.slang", &text);
    let _ = file_diagnostics(&db, file);
    (db, file, text.len())
}

#[divan::bench(sample_count = 20)]
fn semantic_tokens_full(bencher: Bencher) {
    let (db, file, _) = big_file();
    bencher.bench_local(|| semantic_tokens(&db, file, None).len());
}

#[divan::bench(sample_count = 50)]
fn semantic_tokens_100_lines(bencher: Bencher) {
    let (db, file, len) = big_file();
    let range = TextRange::at(TextSize::from((len / 2) as u32), TextSize::from(100 * 40));
    bencher.bench_local(|| semantic_tokens(&db, file, Some(range)).len());
}

#[divan::bench(sample_count = 20)]
fn inlay_hints_whole_file(bencher: Bencher) {
    let (db, file, len) = big_file();
    let range = TextRange::up_to(TextSize::from(len as u32));
    bencher.bench_local(|| inlay_hints(&db, file, range, &InlayConfig::default()).len());
}
