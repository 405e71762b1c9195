//! Every query file (the crate's, Neovim's and Helix's) compiles against the
//! grammar, and the highlight queries give the captures editors rely on.

mod common;

use std::path::PathBuf;

use common::{files_with_extension, language, parse, read, repo_root};
use tree_sitter::{Query, QueryCursor, StreamingIterator};

fn query_dirs() -> Vec<(&'static str, PathBuf)> {
    let root = repo_root();
    vec![
        ("grammar", root.join("grammar/queries")),
        ("neovim", root.join("editors/neovim/queries/slang")),
        ("helix", root.join("editors/helix/runtime/queries/slang")),
    ]
}

#[test]
fn every_query_file_compiles() {
    let mut compiled = 0;
    for (editor, dir) in query_dirs() {
        let files = files_with_extension(&dir, &["scm"]);
        let names: Vec<String> = files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
        let expected: &[&str] = match editor {
            "grammar" => {
                &["highlights.scm", "locals.scm", "injections.scm", "folds.scm", "indents.scm", "textobjects.scm"]
            }
            "neovim" => {
                &["highlights.scm", "locals.scm", "injections.scm", "folds.scm", "indents.scm", "textobjects.scm"]
            }
            _ => &["highlights.scm", "locals.scm", "injections.scm", "indents.scm", "textobjects.scm"],
        };
        for e in expected {
            assert!(names.iter().any(|n| n == e), "{editor}: {e} is missing from {}", dir.display());
        }
        for f in &files {
            let source = read(f);
            if let Err(e) = Query::new(&language(), &source) {
                panic!("{}: {e}", f.display());
            }
            compiled += 1;
        }
    }
    eprintln!("{compiled} query files compile");
    assert!(compiled >= 17);
}

#[test]
fn crate_constants_are_the_query_files() {
    let dir = repo_root().join("grammar/queries");
    for (name, text) in [
        ("highlights.scm", tree_sitter_slang::HIGHLIGHTS_QUERY),
        ("locals.scm", tree_sitter_slang::LOCALS_QUERY),
        ("injections.scm", tree_sitter_slang::INJECTIONS_QUERY),
        ("folds.scm", tree_sitter_slang::FOLDS_QUERY),
        ("indents.scm", tree_sitter_slang::INDENTS_QUERY),
        ("textobjects.scm", tree_sitter_slang::TEXTOBJECTS_QUERY),
        ("tags.scm", tree_sitter_slang::TAGS_QUERY),
    ] {
        assert_eq!(read(&dir.join(name)), text, "{name}");
        Query::new(&language(), text).unwrap();
    }
    assert!(tree_sitter_slang::NODE_TYPES.contains("\"differentiate_expression\""));
}

/// Which pattern wins when several capture the same node.
#[derive(Clone, Copy)]
enum Precedence {
    /// Neovim: the last pattern in the file.
    Last,
    /// `tree-sitter highlight` and Helix: the first.
    First,
}

const SAMPLE: &str = r#"#define N 4
import utils;

[Differentiable]
[ForwardDerivative(fwd_sq)]
float sq(no_diff float k, float x)
{
    return detach(x) * x + k;
}

[shader("compute")]
[numthreads(8, 8, 1)]
void main(uint3 tid : SV_DispatchThreadID)
{
    DifferentialPair<float> dp = diffPair(1.0, 2.0);
    let d = fwd_diff(sq)(1.0, dp);
    bwd_diff(sq)(1.0, dp, 1.0);
    for (int i = 0; i < N; i++) { if (i > 2) break; }
    float y = no_diff sq(2.0, 3.0);
    float3 c = float3(y, 0.5, 0.0);
}
"#;

/// Byte offset of the `nth` occurrence of `needle` in `SAMPLE` that is not
/// part of a longer word.
fn find_word(needle: &str, nth: usize) -> usize {
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    SAMPLE
        .match_indices(needle)
        .map(|(i, _)| i)
        .filter(|&i| !is_word(SAMPLE[..i].chars().next_back()) && !is_word(SAMPLE[i + needle.len()..].chars().next()))
        .nth(nth)
        .unwrap_or_else(|| panic!("{needle} (#{nth}) not in the sample"))
}

/// The Neovim query with its `#lua-match?` predicates (Lua patterns, which
/// the `tree-sitter` crate does not evaluate) turned into `#match?`
/// (regular expressions), for the patterns the query uses.
fn nvim_to_regex_predicates(query: &str) -> String {
    query.replace("#lua-match?", "#match?").replace("%.", "\\\\.")
}

/// The winning capture of the node spanning exactly the `nth` occurrence of
/// `needle` in `SAMPLE`.
fn capture_of(query_source: &str, precedence: Precedence, needle: &str, nth: usize) -> Option<String> {
    let start = find_word(needle, nth);
    let end = start + needle.len();
    let tree = parse(SAMPLE);
    assert!(!tree.root_node().has_error(), "{}", tree.root_node().to_sexp());
    let query = Query::new(&language(), query_source).unwrap();
    let mut cursor = QueryCursor::new();
    let mut found: Vec<(usize, String)> = Vec::new();
    let mut matches = cursor.matches(&query, tree.root_node(), SAMPLE.as_bytes());
    while let Some(m) = matches.next() {
        for c in m.captures() {
            if c.node.start_byte() == start && c.node.end_byte() == end {
                found.push((m.pattern_index, query.capture_names()[c.index as usize].to_string()));
            }
        }
    }
    match precedence {
        Precedence::Last => found.into_iter().max_by_key(|(i, _)| *i).map(|(_, c)| c),
        Precedence::First => found.into_iter().min_by_key(|(i, _)| *i).map(|(_, c)| c),
    }
}

fn highlights(editor: &str) -> (String, Precedence) {
    let root = repo_root();
    match editor {
        "neovim" => {
            let query = read(&root.join("editors/neovim/queries/slang/highlights.scm"));
            (nvim_to_regex_predicates(&query), Precedence::Last)
        }
        "helix" => (read(&root.join("editors/helix/runtime/queries/slang/highlights.scm")), Precedence::First),
        _ => (tree_sitter_slang::HIGHLIGHTS_QUERY.to_string(), Precedence::First),
    }
}

fn check(editor: &str, expectations: &[(&str, usize, &str)]) {
    let (query, precedence) = highlights(editor);
    let mut failures = Vec::new();
    for &(needle, nth, expected) in expectations {
        let got = capture_of(&query, precedence, needle, nth);
        if got.as_deref() != Some(expected) {
            failures.push(format!("{needle:?} (#{nth}): expected @{expected}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{editor} highlights:\n{}", failures.join("\n"));
}

#[test]
fn neovim_highlights_mark_autodiff_distinctly() {
    check(
        "neovim",
        &[
            ("fwd_diff", 0, "function.builtin.autodiff"),
            ("bwd_diff", 0, "function.builtin.autodiff"),
            ("detach", 0, "function.builtin.autodiff"),
            ("diffPair", 0, "function.builtin.autodiff"),
            ("no_diff", 0, "keyword.modifier.autodiff"),
            ("no_diff", 1, "keyword.modifier.autodiff"),
            ("Differentiable", 0, "attribute.autodiff"),
            ("ForwardDerivative", 0, "attribute.autodiff"),
            ("DifferentialPair", 0, "type.builtin.autodiff"),
            ("numthreads", 0, "attribute"),
            ("shader", 0, "attribute"),
            ("sq", 0, "function"),
            ("sq", 1, "variable"),
            ("sq", 3, "function.call"),
            ("float", 0, "type.builtin"),
            ("uint3", 0, "type.builtin"),
            ("float3", 0, "type.builtin"),
            ("float3", 1, "type.builtin"),
            ("k", 0, "variable.parameter"),
            ("SV_DispatchThreadID", 0, "attribute.builtin"),
            ("return", 0, "keyword.return"),
            ("for", 0, "keyword.repeat"),
            ("if", 0, "keyword.conditional"),
            ("let", 0, "keyword"),
            ("import", 0, "keyword.import"),
            ("#define", 0, "keyword.directive"),
            ("\"compute\"", 0, "string"),
            ("2.0", 0, "number.float"),
            ("8", 0, "number"),
        ],
    );
}

#[test]
fn helix_highlights_mark_autodiff_distinctly() {
    check(
        "helix",
        &[
            ("fwd_diff", 0, "function.builtin.autodiff"),
            ("detach", 0, "function.builtin.autodiff"),
            ("no_diff", 0, "keyword.storage.modifier.autodiff"),
            ("no_diff", 1, "keyword.storage.modifier.autodiff"),
            ("Differentiable", 0, "attribute.autodiff"),
            ("numthreads", 0, "attribute"),
            ("sq", 0, "function"),
            ("float", 0, "type.builtin"),
            ("k", 0, "variable.parameter"),
            ("return", 0, "keyword.control.return"),
            ("for", 0, "keyword.control.repeat"),
            ("if", 0, "keyword.control.conditional"),
            ("import", 0, "keyword.control.import"),
            ("#define", 0, "keyword.directive"),
            ("2.0", 0, "constant.numeric.float"),
            ("8", 0, "constant.numeric.integer"),
        ],
    );
}

#[test]
fn standard_highlights_mark_autodiff_distinctly() {
    check(
        "grammar",
        &[
            ("fwd_diff", 0, "function.builtin.autodiff"),
            ("bwd_diff", 0, "function.builtin.autodiff"),
            ("no_diff", 1, "keyword.autodiff"),
            ("Differentiable", 0, "attribute.autodiff"),
            ("numthreads", 0, "attribute"),
            ("sq", 0, "function"),
            ("float", 0, "type.builtin"),
            ("return", 0, "keyword"),
        ],
    );
}

#[test]
fn textobjects_find_functions_and_parameters() {
    let tree = parse(SAMPLE);
    for (file, function, parameter) in [
        (repo_root().join("grammar/queries/textobjects.scm"), "function.outer", "parameter.inner"),
        (
            repo_root().join("editors/helix/runtime/queries/slang/textobjects.scm"),
            "function.around",
            "parameter.inside",
        ),
    ] {
        let query = Query::new(&language(), &read(&file)).unwrap();
        let mut cursor = QueryCursor::new();
        let mut counts = std::collections::HashMap::<String, usize>::new();
        let mut matches = cursor.matches(&query, tree.root_node(), SAMPLE.as_bytes());
        while let Some(m) = matches.next() {
            for c in m.captures() {
                *counts.entry(query.capture_names()[c.index as usize].to_string()).or_default() += 1;
            }
        }
        assert_eq!(counts.get(function), Some(&2), "{}: {counts:?}", file.display());
        assert!(counts.get(parameter).copied().unwrap_or(0) >= 3, "{}: {counts:?}", file.display());
    }
}
