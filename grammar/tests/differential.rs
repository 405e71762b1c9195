//! Differential test against the Rust parser (`slang-syntax`): over every
//! `.slang`/`.slangh` file in the repository, the tree-sitter tree has an
//! error exactly when the Rust parser reports a syntax error. Prints, per
//! folder, how many files parse without errors.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{files_with_extension, parse, read, repo_root};

/// Files where the two parsers disagree, with the reason. The test fails if
/// one of them starts to agree, so that the list stays accurate.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "tests/corpus/realworld/misc/engine_macro_layer.slang",
        "`BEGIN_COMPUTE_PASS(...)` is a macro whose body opens a function body that `END_PASS` closes; \
         the Rust parser knows this from the `#define`, tree-sitter only sees a call followed by statements",
    ),
    (
        "tests/compute/macros.slang",
        "`float FIELD(0);` declares a field whose name a pasting macro makes; the Rust parser knows `FIELD` \
         is a function-like macro from the `#define`, tree-sitter sees a method with a literal for a parameter",
    ),
    (
        "syntax/test_data/ok/func_extension_constraints.slang",
        "`attribute_syntax [Name(p : T)] : Class;` is not in the grammar (one test of the Slang suite uses it)",
    ),
    (
        "syntax/test_data/ok/glsl_qualifiers_macros.slang",
        "`Texture2D t R(: register(t2));`: the Rust parser takes a one-letter capital word before `(` after a \
         declared name as a macro standing for a semantic; the grammar only knows the file's own macros",
    ),
    (
        "syntax/test_data/ok/keyword_names.slang",
        "keywords used as declared names (`int struct = 42;`, `Buffer cbuffer`) and `var` as a name: the \
         Rust parser decides by the next token, the grammar's reserved words are never names",
    ),
    (
        "syntax/test_data/ok/lenient_statements.slang",
        "a `typedef` without `;` at the end of its line, `throw e` without `;`, `try f(x);` and other forms the \
         reference compiler takes and the Rust parser follows; not in the grammar",
    ),
    (
        "syntax/test_data/ok/packs_type_calls.slang",
        "type-level pack functions (`__first(T)::Nested`, `__first(T).Element x;`, `each __trimFirst(T)`) are \
         only in the grammar as a whole typealias value",
    ),
];

fn folder_of(rel: &str) -> String {
    let parts: Vec<&str> = rel.split('/').collect();
    let depth = 3;
    parts[..parts.len().saturating_sub(1).min(depth)].join("/")
}

/// A short description of the first error node of a tree.
fn first_error(tree: &tree_sitter::Tree) -> Option<String> {
    let mut cursor = tree.walk();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            let p = node.start_position();
            let kind = if node.is_missing() { format!("MISSING {}", node.kind()) } else { "ERROR".to_string() };
            return Some(format!("{kind} at {}:{}", p.row + 1, p.column + 1));
        }
        if node.has_error() {
            let children: Vec<_> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    None
}

#[test]
fn tree_sitter_agrees_with_the_rust_parser() {
    let root = repo_root();
    let files = files_with_extension(&root, &["slang", "slangh"]);
    assert!(files.len() >= 600, "only {} Slang files found", files.len());

    // folder -> (files, files without tree-sitter errors)
    let mut per_folder: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut agreeing_exceptions = Vec::new();
    let mut agree = 0;
    for path in &files {
        let rel = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        let text = read(path);
        let rust_error = slang_syntax::parse(&text).errors().first().map(|e| {
            let (line, col) = slang_syntax::line_col(&text, e.range.start());
            format!("{line}:{col}: {}", e.message)
        });
        let tree = parse(&text);
        let ts_error = first_error(&tree);
        assert_eq!(ts_error.is_some(), tree.root_node().has_error());

        let entry = per_folder.entry(folder_of(&rel)).or_default();
        entry.0 += 1;
        if ts_error.is_none() {
            entry.1 += 1;
        }
        let is_exception = EXCEPTIONS.iter().any(|(f, _)| *f == rel);
        if rust_error.is_some() == ts_error.is_some() {
            agree += 1;
            if is_exception {
                agreeing_exceptions.push(rel.clone());
            }
        } else if !is_exception {
            disagreements.push(format!(
                "{rel}: Rust parser: {}; tree-sitter: {}",
                rust_error.as_deref().unwrap_or("no error"),
                ts_error.as_deref().unwrap_or("no error"),
            ));
        }
    }

    eprintln!("files without tree-sitter errors, per folder:");
    for (folder, (total, clean)) in &per_folder {
        eprintln!("  {folder:45} {clean:4}/{total:<4}");
    }
    eprintln!(
        "agreement with the Rust parser: {agree}/{} files ({:.2}%), {} listed exception(s)",
        files.len(),
        100.0 * agree as f64 / files.len() as f64,
        EXCEPTIONS.len()
    );
    assert!(disagreements.is_empty(), "tree-sitter and the Rust parser disagree:\n{}", disagreements.join("\n"));
    assert!(agreeing_exceptions.is_empty(), "these exceptions now agree, remove them: {agreeing_exceptions:?}");
}

/// Files the reference compiler accepts (the corpus of real code, the
/// compute tests, the core module): tree-sitter parses at least 99% of them
/// without an error node (the issue asks for 97% on real code).
#[test]
fn real_code_parses_without_errors() {
    let root = repo_root();
    let mut total = 0;
    let mut clean = 0;
    let mut failures = Vec::new();
    for dir in ["tests/corpus/valid", "tests/corpus/realworld", "tests/compute", "analysis/src/core_module"] {
        for path in files_with_extension(&root.join(dir), &["slang", "slangh"]) {
            total += 1;
            let tree = parse(&read(&path));
            if tree.root_node().has_error() {
                failures.push(path.strip_prefix(&root).unwrap_or(Path::new("")).display().to_string());
            } else {
                clean += 1;
            }
        }
    }
    let rate = clean as f64 / total as f64;
    eprintln!("real code: {clean}/{total} files without errors ({:.2}%); failing: {failures:?}", rate * 100.0);
    assert!(total >= 300);
    assert!(rate >= 0.99, "{clean}/{total}; failing: {failures:?}");
}

/// Files with syntax errors give an error node, like the Rust parser.
#[test]
fn invalid_files_have_errors() {
    let root = repo_root();
    let files: Vec<_> = files_with_extension(&root.join("tests/corpus/invalid"), &["slang"])
        .into_iter()
        .chain(files_with_extension(&root.join("syntax/test_data/err"), &["slang"]))
        .collect();
    assert!(files.len() >= 20);
    for path in files {
        let tree = parse(&read(&path));
        assert!(tree.root_node().has_error(), "{} should have an error", path.display());
    }
}
