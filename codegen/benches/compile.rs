//! Compile speed: source to validated SPIR-V and WGSL for a realistic
//! kernel (`shading_kernel.slang`: a differentiable microfacet model with
//! forward-mode derivatives, structs, a loop and intrinsics).
//!
//! * `warm`: the core module already loaded (the language server's and
//!   the test runner's case): check, lower, differentiate, validate and
//!   write the file.
//! * `cold`: everything from a fresh database, core module included (a
//!   command-line compile without process start-up).
//!
//! `tests/tools/compile_side_by_side.py` times whole processes against the
//! reference `slangc`. Run with `cargo bench -p slang-codegen --bench compile`.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use divan::Bencher;
use slang_analysis::RootDatabase;
use slang_codegen::{compile, Output, Target};

const KERNEL: &str = include_str!("shading_kernel.slang");

fn main() {
    divan::main();
}

fn compile_both(db: &RootDatabase, file: slang_analysis::SourceFile) {
    for target in [Target::SpirV, Target::Wgsl] {
        match compile(db, file, "computeMain", target) {
            Ok(Output::Binary(words)) => assert!(!words.is_empty()),
            Ok(Output::Text(text)) => assert!(!text.is_empty()),
            Err(e) => panic!("{e:?}"),
        }
    }
}

#[divan::bench(sample_count = 30)]
fn warm(bencher: Bencher) {
    let mut db = RootDatabase::new();
    let file = db.set_file("/bench/kernel.slang", KERNEL);
    compile_both(&db, file);
    let mut n = 0u32;
    bencher.bench_local(|| {
        // A new text each time, so nothing of the file is reused.
        n += 1;
        let file = db.set_file("/bench/kernel.slang", &format!("{KERNEL}// {n}\n"));
        compile_both(&db, file);
    });
}

#[divan::bench(sample_count = 10)]
fn cold(bencher: Bencher) {
    bencher.bench_local(|| {
        let mut db = RootDatabase::new();
        let file = db.set_file("/bench/kernel.slang", KERNEL);
        compile_both(&db, file);
    });
}
