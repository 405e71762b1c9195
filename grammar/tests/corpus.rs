//! Runs the tree tests of `test/corpus/*.txt` (the `tree-sitter test`
//! format) from Rust, so that `cargo test` checks them too.

mod common;

use common::{files_with_extension, parse, read};

/// `(a (b) c: (d))` without field names and with single spaces.
fn normalize(sexp: &str) -> String {
    let mut out = String::new();
    for token in sexp.replace('(', " ( ").replace(')', " ) ").split_whitespace() {
        if token.ends_with(':') {
            continue; // field name
        }
        out.push_str(token);
        out.push(' ');
    }
    out.replace("( ", "(").replace(" )", ")").trim().to_string()
}

struct Case {
    name: String,
    input: String,
    expected: String,
    expect_error: bool,
}

fn cases(text: &str) -> Vec<Case> {
    let lines: Vec<&str> = text.lines().collect();
    let is_rule = |l: &str, c: char| l.len() >= 3 && l.chars().all(|x| x == c);
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !is_rule(lines[i], '=') {
            i += 1;
            continue;
        }
        let name = lines[i + 1].to_string();
        let mut j = i + 2;
        let mut expect_error = false;
        while !is_rule(lines[j], '=') {
            expect_error |= lines[j].trim() == ":error";
            j += 1;
        }
        let start = j + 1;
        let mut k = start;
        while !is_rule(lines[k], '-') {
            k += 1;
        }
        let input = lines[start..k].join("\n").trim().to_string() + "\n";
        let mut m = k + 1;
        while m < lines.len() && !is_rule(lines[m], '=') {
            m += 1;
        }
        let expected = lines[k + 1..m].join("\n");
        out.push(Case { name, input, expected, expect_error });
        i = m;
    }
    out
}

#[test]
fn corpus_trees_match() {
    let dir = common::repo_root().join("grammar/test/corpus");
    let files = files_with_extension(&dir, &["txt"]);
    assert!(files.len() >= 5);
    let mut count = 0;
    let mut failures = Vec::new();
    for file in files {
        for case in cases(&read(&file)) {
            count += 1;
            let tree = parse(&case.input);
            let root = tree.root_node();
            if case.expect_error {
                if !root.has_error() {
                    failures.push(format!("{}: expected an error", case.name));
                }
                continue;
            }
            let got = normalize(&root.to_sexp());
            let expected = normalize(&case.expected);
            if got != expected {
                failures.push(format!("{}:\n  expected {expected}\n  got      {got}", case.name));
            }
        }
    }
    eprintln!("{count} corpus cases");
    assert!(count >= 25);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
