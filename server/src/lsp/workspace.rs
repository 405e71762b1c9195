//! The workspace on disk: finding the Slang files of the workspace folders
//! (indexed on start) and the folders that hold them (search paths when
//! `slang.searchInAllWorkspaceDirectories` is on).

use std::path::{Path, PathBuf};

/// At most this many files are indexed (a workspace that is mostly
/// something else must not stall the server).
pub const MAX_FILES: usize = 20_000;

/// Whether `path` names a Slang source file.
pub fn is_slang_file(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("slang" | "slangh"))
}

/// Folders never searched: hidden ones and build/dependency output.
fn skipped(name: &str) -> bool {
    name.starts_with('.') || matches!(name, "target" | "node_modules" | "build" | "out" | "__pycache__")
}

/// The Slang files under `roots` (sorted, at most [`MAX_FILES`]).
pub fn slang_files(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = roots.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                if !e.file_name().to_str().is_some_and(skipped) {
                    stack.push(path);
                }
            } else if kind.is_file() && is_slang_file(&path) {
                out.push(path);
                if out.len() >= MAX_FILES {
                    out.sort();
                    return out;
                }
            }
        }
    }
    out.sort();
    out
}

/// The folders holding `files`, each once.
pub fn folders_of(files: &[PathBuf]) -> Vec<String> {
    let mut dirs: Vec<String> =
        files.iter().filter_map(|f| f.parent()).map(|d| d.to_string_lossy().replace('\\', "/")).collect();
    dirs.sort();
    dirs.dedup();
    dirs
}
