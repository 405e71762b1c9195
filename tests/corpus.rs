//! The corpus of real Slang files under `tests/corpus`: every file the
//! reference compiler accepts must parse with no syntax error, every file it
//! rejects for a syntax reason must give at least one, and every tree must
//! reproduce its file byte for byte. (The files were checked with `slangc`,
//! see `tests/corpus/README.md`; the expectations come from it, not from us.)

use std::path::{Path, PathBuf};

fn files(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("slang" | "slangh")) {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus").join(dir);
    let mut out = Vec::new();
    walk(&root, &mut out);
    out.sort();
    out
}

fn read(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned()
}

fn check_valid(dir: &str, min_files: usize) {
    let files = files(dir);
    assert!(files.len() >= min_files, "expected at least {min_files} files in tests/corpus/{dir}");
    let mut failures = Vec::new();
    for path in &files {
        let text = read(path);
        let parse = slang_syntax::parse(&text);
        assert_eq!(parse.syntax_node().text().to_string(), text, "{} is not lossless", path.display());
        if let Some(e) = parse.errors().first() {
            let (line, col) = slang_syntax::line_col(&text, e.range.start());
            failures.push(format!("{}:{line}:{col}: {}", path.display(), e.message));
        }
    }
    let clean = files.len() - failures.len();
    eprintln!("tests/corpus/{dir}: {clean}/{} files without syntax errors", files.len());
    assert!(failures.is_empty(), "files with syntax errors:\n{}", failures.join("\n"));
}

#[test]
fn valid_corpus_parses_without_errors() {
    check_valid("valid", 80);
}

#[test]
fn invalid_corpus_reports_errors() {
    let files = files("invalid");
    assert!(files.len() >= 10);
    for path in &files {
        let text = read(path);
        let parse = slang_syntax::parse(&text);
        assert_eq!(parse.syntax_node().text().to_string(), text, "{} is not lossless", path.display());
        assert!(!parse.errors().is_empty(), "{} should have a syntax error", path.display());
    }
}

#[test]
fn examples_parse_without_errors() {
    check_valid("../examples", 1);
}

#[test]
fn realworld_corpus_parses_without_errors() {
    check_valid("realworld", 60);
}

#[test]
fn files_needing_macro_expansion_are_at_least_lossless() {
    for path in files("needs_macro_expansion") {
        let text = read(&path);
        let parse = slang_syntax::parse(&text);
        assert_eq!(parse.syntax_node().text().to_string(), text, "{} is not lossless", path.display());
    }
}

/// No false errors: `check` finds nothing wrong in any file the reference
/// compiler accepts (imports resolved through the same `-I` folders the
/// corpus scripts give slangc).
#[test]
fn check_reports_no_errors_on_valid_corpora() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    // Files are checked with the defines their `// corpus-slangc-args:` line
    // gives the reference compiler; the rest all together.
    let mut plain = Vec::new();
    let mut with_args = Vec::new();
    for dir in ["valid", "realworld"] {
        for f in files(dir) {
            let text = read(&f);
            match text.lines().find_map(|l| l.trim().strip_prefix("// corpus-slangc-args:")) {
                Some(args) => {
                    with_args.push((f.clone(), args.split_whitespace().map(String::from).collect::<Vec<_>>()))
                }
                // An implementation file (`implementing m;`) is checked as
                // part of its module, through the primary file that
                // `__include`s it: compiled on its own, the reference
                // compiler rejects it (E30102), and so does `check`.
                None if text.lines().any(|l| l.trim_start().starts_with("implementing ")) => {}
                None => plain.push(f),
            }
        }
    }
    let mut runs: Vec<(Vec<String>, Vec<PathBuf>)> = vec![(Vec::new(), plain)];
    for (f, args) in with_args {
        runs.push((args, vec![f]));
    }
    let mut checked = 0;
    for (args, files) in runs {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_slang-analyzer"))
            .arg("check")
            .args(["-I", root.join("valid").to_str().unwrap()])
            .args(["-I", root.join("realworld").to_str().unwrap()])
            .args(["-I", root.join("realworld/falcor").to_str().unwrap()])
            .args(&args)
            .args(&files)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let last = stdout.lines().last().unwrap_or("");
        assert!(out.status.success() && last.contains(" 0 errors"), "false errors ({args:?}):\n{stdout}");
        checked += files.len();
    }
    eprintln!("{checked} valid files checked, no errors");
    assert!(checked >= 170);
}

/// Programs the reference compiler rejects (`rejected/`, each with the
/// line of slangc's first error): `check` must report an error on that
/// line for most of them. The issue's target is 80%; the floor here is set
/// just under what the checks reach today, so that a regression fails.
#[test]
fn check_finds_the_reference_compilers_errors() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/rejected");
    let files = files("rejected");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slang-analyzer"))
        .args(["check", "--json"])
        .args(["-I", root.to_str().unwrap()])
        .args(["-I", root.join("modules").to_str().unwrap()])
        .args(&files)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut error_lines: std::collections::HashMap<String, Vec<u64>> = Default::default();
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("one JSON object per line");
        let file = v["file"].as_str().unwrap().to_string();
        let lines = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .filter_map(|d| d["line"].as_u64())
            .collect();
        error_lines.insert(file, lines);
    }
    let (mut total, mut hit, mut missed) = (0, 0, Vec::new());
    for f in &files {
        let text = read(f);
        let Some(expected) = text
            .lines()
            .next()
            .and_then(|l| l.split("slangc-error-line:").nth(1))
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        total += 1;
        let key = f.to_str().unwrap().to_string();
        if error_lines.get(&key).is_some_and(|l| l.contains(&expected)) {
            hit += 1;
        } else {
            missed.push(f.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    let rate = hit as f64 / total.max(1) as f64;
    eprintln!(
        "{hit}/{total} rejected programs get an error on slangc's line ({:.1}%); missed: {missed:?}",
        rate * 100.0
    );
    assert!(total >= 180, "only {total} rejected programs found");
    assert!(rate >= 0.92, "{hit}/{total} = {:.1}% < 92%; missed: {missed:?}", rate * 100.0);
}
