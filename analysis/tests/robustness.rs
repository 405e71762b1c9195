//! Bad and half-typed code yields diagnostics, never a panic: every check
//! runs on corpus programs cut and spliced at random places (the states an
//! editor passes through while typing).

use proptest::prelude::*;
use slang_analysis::{file_diagnostics, RootDatabase};

fn corpus() -> &'static [String] {
    static CORPUS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(read_corpus)
}

fn read_corpus() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut out = Vec::new();
    for dir in ["valid", "rejected"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.extension().is_some_and(|e| e == "slang") {
                out.push(String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned());
            }
        }
    }
    out
}

fn floor_char(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Delete a range, then paste a piece of another program somewhere:
    /// all diagnostics of the result can be computed.
    #[test]
    fn edited_programs_check_without_panics(
        a in any::<prop::sample::Index>(),
        b in any::<prop::sample::Index>(),
        cut_at in any::<prop::sample::Index>(),
        cut_len in 0usize..200,
        paste_at in any::<prop::sample::Index>(),
        piece_at in any::<prop::sample::Index>(),
        piece_len in 0usize..120,
    ) {
        let files = corpus();
        let base = &files[a.index(files.len())];
        let other = &files[b.index(files.len())];
        let start = floor_char(base, cut_at.index(base.len() + 1));
        let end = floor_char(base, start + cut_len);
        let mut text = format!("{}{}", &base[..start], &base[end..]);
        let p0 = floor_char(other, piece_at.index(other.len() + 1));
        let p1 = floor_char(other, p0 + piece_len);
        let at = floor_char(&text, paste_at.index(text.len() + 1));
        text.insert_str(at, &other[p0..p1]);
        let mut db = RootDatabase::new();
        let f = db.set_file("/main.slang", &text);
        let _ = file_diagnostics(&db, f);
    }
}

/// A struct with a field of its own type (only broken code has one) made
/// the synthesized `Differential` depend on itself (found by the property
/// test above).
#[test]
fn a_struct_containing_itself_does_not_cycle() {
    let mut db = RootDatabase::new();
    let f = db.set_file(
        "/main.slang",
        "struct Spring : IDifferentiable { float k; Spring s; }\n[Differentiable]\nfloat e(Spring s) { return s.k; }\n",
    );
    let _ = file_diagnostics(&db, f);
    let _ = slang_analysis::autodiff::hover_facts(&db, f, slang_analysis::hir::DefId::new(&db, f, 0));
}
