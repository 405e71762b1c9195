//! Which files a file refers to (`import`, `__include`, `implementing`,
//! `#include`, found in its semantic tree), how those references resolve
//! to known files (by [`crate::import_paths`]' rules), and which files form
//! a module. The host loads candidate files from disk; this module only
//! looks among the files the workspace already has.

use slang_syntax::ast::{self, AstNode, HasPath};
use slang_syntax::{SyntaxKind, TextRange};

use crate::import_paths::{files_by_path, import_candidates, Import, ImportKind};
use crate::{parse, Db, SourceFile};

/// The references a file makes, in source order.
#[salsa::tracked(returns(ref))]
pub fn file_imports(db: &dyn Db, file: SourceFile) -> Vec<Import> {
    // The core module imports nothing (and is large to walk).
    if crate::core_module::is_core_path(file.path(db)) {
        return Vec::new();
    }
    // Each kind needs its keyword (`import`, `__include`, `implementing`,
    // `#include`) in the text: most files have none, and walking a large
    // file after every edit is not free.
    let text = crate::expansion::semantic_text(db, file);
    if !text.contains("import") && !text.contains("include") && !text.contains("implementing") {
        return Vec::new();
    }
    let parse = parse(db, file);
    let root = parse.syntax_node();
    let mut out = Vec::new();
    for node in root.descendants() {
        let (kind, path, string, exported) = match node.kind() {
            SyntaxKind::IMPORT_DECL => {
                let d = ast::ImportDecl::cast(node.clone()).unwrap();
                (ImportKind::Import, d.path(), d.string(), d.is_exported())
            }
            SyntaxKind::INCLUDE_DECL => {
                let d = ast::IncludeDecl::cast(node.clone()).unwrap();
                (ImportKind::Include, d.path(), d.string(), false)
            }
            SyntaxKind::IMPLEMENTING_DECL => {
                let d = ast::ImplementingDecl::cast(node.clone()).unwrap();
                (ImportKind::Implementing, d.path(), d.string(), false)
            }
            SyntaxKind::PP_INCLUDE => {
                if !parse.is_active(node.text_range().start()) {
                    continue;
                }
                let d = ast::PpInclude::cast(node.clone()).unwrap();
                if let Some(target) = d.target() {
                    out.push(Import {
                        kind: ImportKind::PpInclude,
                        target,
                        is_path: true,
                        exported: false,
                        range: node.text_range(),
                    });
                }
                continue;
            }
            _ => continue,
        };
        // From the keyword on (the node may start with attached comments).
        let start = node
            .children_with_tokens()
            .find(|e| !e.kind().is_trivia())
            .map_or(node.text_range().start(), |e| e.text_range().start());
        let range = TextRange::new(start, node.text_range().end());
        if let Some(s) = string.and_then(|l| l.token()) {
            let text = s.text();
            let target = text.trim_start_matches('"').trim_end_matches('"').to_string();
            out.push(Import { kind, target, is_path: true, exported, range });
        } else if let Some(path) = path {
            let target = path.segments().iter().map(|s| s.text().to_string()).collect::<Vec<_>>().join(".");
            out.push(Import { kind, target, is_path: false, exported, range });
        }
    }
    out
}

/// What each of [`file_imports`] resolves to (`None`: no such file).
#[salsa::tracked(returns(ref))]
pub fn resolved_imports(db: &dyn Db, file: SourceFile) -> Vec<Option<SourceFile>> {
    let by_path = files_by_path(db);
    file_imports(db, file)
        .iter()
        .map(|import| import_candidates(db, file, import).iter().find_map(|p| by_path.get(p).copied()))
        .collect()
}

/// The files that make up `file`'s module: for a primary module file, the
/// files it pulls in with `__include` and `#include`, transitively; for a
/// file `implementing m`, those of `m`'s primary file (found by path, or
/// else the file named `m` that `__include`s it: a part kept in a folder
/// below its module's file). Always contains `file` itself, first.
#[salsa::tracked(returns(ref))]
pub fn module_of(db: &dyn Db, file: SourceFile) -> Vec<SourceFile> {
    let imports = file_imports(db, file);
    let resolved = resolved_imports(db, file);
    let primary = match imports.iter().zip(resolved).find(|(i, _)| i.kind == ImportKind::Implementing) {
        Some((_, Some(r))) => *r,
        Some((i, None)) => including_module_file(db, file, &i.target).unwrap_or(file),
        None => file,
    };
    let mut out = vec![file];
    let mut stack = vec![primary];
    while let Some(f) = stack.pop() {
        if !out.contains(&f) {
            out.push(f);
        }
        for (import, target) in file_imports(db, f).iter().zip(resolved_imports(db, f)) {
            if let (ImportKind::Include | ImportKind::PpInclude, Some(t)) = (import.kind, target) {
                if !out.contains(t) && !stack.contains(t) {
                    stack.push(*t);
                }
            }
        }
    }
    out
}

/// The file named after module `name` (`a.b` or `"a/b.slang"`: its last
/// part) that `__include`s `file`.
fn including_module_file(db: &dyn Db, file: SourceFile, name: &str) -> Option<SourceFile> {
    let last = name.rsplit(['.', '/']).find(|s| !s.is_empty() && *s != "slang")?;
    let suffix = format!("{last}.slang");
    files_by_path(db).values().copied().find(|&f| {
        f != file
            && f.path(db).rsplit('/').next() == Some(suffix.as_str())
            && file_imports(db, f)
                .iter()
                .zip(resolved_imports(db, f))
                .any(|(i, t)| i.kind == ImportKind::Include && *t == Some(file))
    })
}

/// Every file whose declarations `file` can see: its own module's files,
/// then the files of the modules it imports ([`imported_files`]).
#[salsa::tracked(returns(ref))]
pub fn visible_files(db: &dyn Db, file: SourceFile) -> Vec<SourceFile> {
    module_of(db, file).iter().chain(imported_files(db, file)).copied().collect()
}

/// Files of other modules whose declarations `file` can see through
/// `import` (following `__exported import` transitively).
#[salsa::tracked(returns(ref))]
pub fn imported_files(db: &dyn Db, file: SourceFile) -> Vec<SourceFile> {
    let own = module_of(db, file);
    let mut out: Vec<SourceFile> = Vec::new();
    let mut queue: Vec<SourceFile> = Vec::new();
    for &f in own {
        for (import, target) in file_imports(db, f).iter().zip(resolved_imports(db, f)) {
            if let (ImportKind::Import, Some(t)) = (import.kind, target) {
                queue.push(*t);
            }
        }
    }
    while let Some(m) = queue.pop() {
        for &f in module_of(db, m) {
            if own.contains(&f) || out.contains(&f) {
                continue;
            }
            out.push(f);
            for (import, target) in file_imports(db, f).iter().zip(resolved_imports(db, f)) {
                if let (ImportKind::Import, true, Some(t)) = (import.kind, import.exported, target) {
                    queue.push(*t);
                }
            }
        }
    }
    out
}

/// The `import`s of `file` that lead back to its own module (directly or
/// through other modules' imports): the index of each in
/// [`file_imports`]. The reference compiler rejects such an import
/// (E38200): a module cannot import itself.
#[salsa::tracked(returns(ref))]
pub fn cyclic_imports(db: &dyn Db, file: SourceFile) -> Vec<usize> {
    let own = module_of(db, file);
    let mut out = Vec::new();
    for (i, (import, target)) in file_imports(db, file).iter().zip(resolved_imports(db, file)).enumerate() {
        let (ImportKind::Import, Some(start)) = (import.kind, target) else { continue };
        let mut seen: Vec<SourceFile> = Vec::new();
        let mut queue = vec![*start];
        let mut cyclic = false;
        while let Some(m) = queue.pop() {
            if own.contains(&m) {
                cyclic = true;
                break;
            }
            for &f in module_of(db, m) {
                if seen.contains(&f) {
                    continue;
                }
                seen.push(f);
                for (import, target) in file_imports(db, f).iter().zip(resolved_imports(db, f)) {
                    if let (ImportKind::Import, Some(t)) = (import.kind, target) {
                        if !seen.contains(t) {
                            queue.push(*t);
                        }
                    }
                }
            }
        }
        if cyclic {
            out.push(i);
        }
    }
    out
}
