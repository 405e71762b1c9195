//! What a file refers to (`import`, `__include`, `implementing`,
//! `#include`: an [`Import`]) and where its target may be: the paths
//! [`import_candidates`] lists and the known files by path.
//!
//! Resolution follows the reference compiler: a name `a.b_c` is the file
//! `a/b_c.slang` (or `a/b-c.slang`), a string names a path (`.slang` may be
//! left out), looked up first next to the importing file, then in each
//! search path. Below the macro expansion (which resolves `#include`s with
//! it) and the module graph (which finds a file's references in its tree).

use std::collections::HashMap;

use slang_syntax::TextRange;

use crate::standard_modules::STANDARD_MODULE_DIR;
use crate::{Db, SourceFile, Workspace};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImportKind {
    /// `import m;` — another module's public declarations.
    Import,
    /// `__include f;` — a file that becomes part of this module.
    Include,
    /// `implementing m;` — this file is part of module `m`.
    Implementing,
    /// `#include "f"` — textual inclusion.
    PpInclude,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Import {
    pub kind: ImportKind,
    /// The module name (`a.b`) or the string (`"a/b.slang"`).
    pub target: String,
    /// The string form rather than the dotted-name form.
    pub is_path: bool,
    /// `__exported import`.
    pub exported: bool,
    pub range: TextRange,
}

/// The folder part of a `/`-separated path.
pub fn parent_dir(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) => "/",
        Some(i) => &path[..i],
        None => "",
    }
}

/// Join and normalize (`.`/`..`) `/`-separated paths.
pub fn join_path(dir: &str, rel: &str) -> String {
    let full = if rel.starts_with('/') || dir.is_empty() { rel.to_string() } else { format!("{dir}/{rel}") };
    let absolute = full.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in full.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// The relative file names an import may refer to, most likely first.
fn relative_candidates(import: &Import) -> Vec<String> {
    if import.is_path {
        // `\` separates folders too (`#include ".\a.h"`), as for the
        // reference compiler on every platform.
        let target = import.target.replace('\\', "/");
        let mut v = vec![target.clone()];
        if import.kind != ImportKind::PpInclude && !target.ends_with(".slang") {
            v.push(format!("{target}.slang"));
        }
        return v;
    }
    let base = import.target.replace('.', "/");
    let mut v = vec![format!("{base}.slang")];
    if base.contains('_') {
        v.push(format!("{}.slang", base.replace('_', "-")));
    }
    v
}

/// Every path, in search order, where the target of `import` may be:
/// next to `file`, then in each search path, then among the standard
/// modules (`import slang.neural;`, see `standard_modules`). The host
/// loads the first that exists (on disk, or bundled for the last).
pub fn import_candidates(db: &dyn Db, file: SourceFile, import: &Import) -> Vec<String> {
    let dir = parent_dir(file.path(db)).to_string();
    let mut out = Vec::new();
    let rels = relative_candidates(import);
    for rel in &rels {
        out.push(join_path(&dir, rel));
    }
    for sp in Workspace::get(db).search_paths(db) {
        for rel in &rels {
            out.push(join_path(sp, rel));
        }
    }
    if import.kind != ImportKind::PpInclude && !import.is_path {
        for rel in &rels {
            out.push(join_path(STANDARD_MODULE_DIR, rel));
        }
    }
    out
}

#[salsa::tracked(returns(ref))]
pub(crate) fn files_by_path(db: &dyn Db) -> HashMap<String, SourceFile> {
    Workspace::get(db).files(db).iter().map(|&f| (f.path(db).clone(), f)).collect()
}

/// Whether `import` names a module built into the reference compiler
/// (`import glsl;`), whose declarations are part of the core module here.
pub fn is_builtin_module(import: &Import) -> bool {
    import.kind == ImportKind::Import && import.target == "glsl"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(join_path("/a/b", "c.slang"), "/a/b/c.slang");
        assert_eq!(join_path("/a/b", "../c.slang"), "/a/c.slang");
        assert_eq!(join_path("a", "./x/../y.slang"), "a/y.slang");
        assert_eq!(join_path("", "y.slang"), "y.slang");
        assert_eq!(join_path("/a", "/abs/z.slang"), "/abs/z.slang");
        assert_eq!(parent_dir("/a/b/c.slang"), "/a/b");
        assert_eq!(parent_dir("/c.slang"), "/");
        assert_eq!(join_path("/", "c.slang"), "/c.slang");
    }
}
