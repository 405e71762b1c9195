//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use tree_sitter::{Language, Parser, Tree};

pub fn language() -> Language {
    tree_sitter_slang::LANGUAGE.into()
}

pub fn parse(text: &str) -> Tree {
    let mut parser = Parser::new();
    parser.set_language(&language()).unwrap();
    parser.parse(text, None).unwrap()
}

/// The root of the repository.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Every file with one of `extensions` under `dir`, sorted, skipping build
/// output and VCS folders.
pub fn files_with_extension(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries {
            let p = e.unwrap().path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                if !matches!(name, "target" | ".git" | "node_modules") {
                    walk(&p, extensions, out);
                }
            } else if p.extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e)) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, extensions, &mut out);
    out.sort();
    out
}

pub fn read(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned()
}
