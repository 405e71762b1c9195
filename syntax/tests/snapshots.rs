//! Snapshot tests of syntax trees: every `test_data/ok/*.slang` must parse
//! without errors, every `test_data/err/*.slang` with errors; the tree and
//! the errors of each are compared with the `.rast` file next to it
//! (`UPDATE_EXPECT=1 cargo test -p slang-syntax` rewrites them — review the
//! diff). All of them must round-trip losslessly.

use std::path::{Path, PathBuf};

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "slang"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", root.display());
    files
}

fn render(text: &str) -> (String, usize) {
    let parse = slang_syntax::parse(text);
    assert_eq!(parse.syntax_node().text().to_string(), text, "tree text must equal input");
    let mut out = parse.debug_tree();
    for e in parse.errors() {
        let (line, col) = slang_syntax::line_col(text, e.range.start());
        out.push_str(&format!("error {line}:{col} {:?}: {}\n", e.range, e.message));
    }
    for w in parse.warnings() {
        let (line, col) = slang_syntax::line_col(text, w.range.start());
        out.push_str(&format!("warning[{}] {line}:{col} {:?}: {}\n", w.code(), w.range, w.message));
    }
    (out, parse.errors().len())
}

fn run(dir: &str, expect_errors: bool) {
    for path in fixtures(dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        let (out, n_errors) = render(&text);
        if expect_errors {
            assert!(n_errors > 0, "{} should have syntax errors", path.display());
        } else {
            assert_eq!(n_errors, 0, "{} should parse without errors:\n{out}", path.display());
        }
        expect_test::expect_file![path.with_extension("rast")].assert_eq(&out);
    }
}

#[test]
fn ok_fixtures() {
    run("ok", false);
}

#[test]
fn err_fixtures() {
    run("err", true);
}
