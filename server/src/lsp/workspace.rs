//! The workspace on disk: finding the Slang files of the workspace folders
//! (indexed on start), the folders that hold them (search paths when
//! `slang.searchInAllWorkspaceDirectories` is on) and slangtorch's build
//! caches (see [`super::environment`]).

use std::path::{Path, PathBuf};

/// At most this many files are indexed (a workspace that is mostly
/// something else must not stall the server).
pub const MAX_FILES: usize = 20_000;

/// Whether `path` names a source file of the workspace: its extension is
/// one of `exts` (the flavor's, `config::Flavor::extensions`).
pub fn is_source_file(path: &Path, exts: &[&str]) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// The folder slangtorch writes its builds to, beside the module's source.
pub const SLANGTORCH_CACHE: &str = ".slangtorch_cache";

/// What a walk of the workspace found.
#[derive(Debug, Default)]
pub struct Scan {
    /// The source files (sorted, at most [`MAX_FILES`]).
    pub files: Vec<PathBuf>,
    /// The `metadata.json` files of slangtorch caches.
    pub slangtorch_metadata: Vec<PathBuf>,
}

/// Folders never searched: hidden ones and build/dependency output.
fn skipped(name: &str) -> bool {
    name.starts_with('.') || matches!(name, "target" | "node_modules" | "build" | "out" | "__pycache__")
}

/// The source files under `roots` with one of `exts`, and slangtorch's
/// cache metadata.
pub fn scan(roots: &[PathBuf], exts: &[&str]) -> Scan {
    let mut out = Scan::default();
    let mut stack: Vec<PathBuf> = roots.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                if e.file_name() == SLANGTORCH_CACHE {
                    out.slangtorch_metadata.extend(metadata_files(&path));
                } else if !e.file_name().to_str().is_some_and(skipped) {
                    stack.push(path);
                }
            } else if kind.is_file() && out.files.len() < MAX_FILES && is_source_file(&path, exts) {
                out.files.push(path);
            }
        }
    }
    out.files.sort();
    out.slangtorch_metadata.sort();
    out
}

/// The `metadata.json` files in a slangtorch cache
/// (`<module>/<options hash>/<build>/metadata.json`; searched a few levels
/// deep, whatever the version's layout).
fn metadata_files(cache: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(cache.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let path = e.path();
            match e.file_type() {
                Ok(k) if k.is_dir() && depth < 4 => stack.push((path, depth + 1)),
                Ok(k) if k.is_file() && e.file_name() == "metadata.json" => out.push(path),
                _ => {}
            }
        }
    }
    out
}

/// The search paths of the workspace: the folders holding `files` and
/// each of their ancestors inside the workspace folder that holds them
/// (`roots`), each once, in the order found. As the reference server does:
/// Falcor's `import Rendering.Lights.LightHelpers;` resolves from
/// `Source/Falcor`, a folder with no Slang file of its own.
pub fn folders_of(files: &[PathBuf], roots: &[PathBuf]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut dirs = Vec::new();
    for file in files {
        let Some(root) = roots.iter().find(|r| file.starts_with(r)) else { continue };
        let mut dir = file.parent();
        while let Some(d) = dir.filter(|d| d.starts_with(root)) {
            if !seen.insert(d.to_path_buf()) {
                break;
            }
            dirs.push(d.to_string_lossy().replace('\\', "/"));
            dir = d.parent();
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_paths_are_the_folders_of_files_and_their_ancestors_in_the_workspace() {
        let roots = [PathBuf::from("/ws/Source")];
        let files = [
            PathBuf::from("/ws/Source/Falcor/Rendering/Lights/LightHelpers.slang"),
            PathBuf::from("/ws/Source/Falcor/Rendering/Lights/EnvMap.slang"),
            PathBuf::from("/ws/Source/RenderPasses/PathTracer/PathTracer.slang"),
            PathBuf::from("/elsewhere/x.slang"),
        ];
        assert_eq!(
            folders_of(&files, &roots),
            [
                "/ws/Source/Falcor/Rendering/Lights",
                "/ws/Source/Falcor/Rendering",
                "/ws/Source/Falcor",
                "/ws/Source",
                "/ws/Source/RenderPasses/PathTracer",
                "/ws/Source/RenderPasses",
            ]
        );
    }
}
