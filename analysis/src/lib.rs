//! The semantic model of Slang programs: a salsa database over file texts.
//!
//! Inputs are file texts keyed by opaque [`SourceFile`] ids and the
//! [`Workspace`] configuration (files, search paths, predefined macros);
//! everything else is a derived query. This crate does no IO: the host (the
//! server or the CLI) reads files and sets inputs.
//!
//! Parsing as queries (the source and its macro expansion, [`expansion`]),
//! per-file item trees, the module graph (`import`, `__include`,
//! `implementing`, `#include`), the core module, scopes and name
//! resolution, type inference, declaration and autodiff checks, and the IDE
//! features ([`ide`]) as plain functions.

mod activity;
pub mod autodiff;
mod autodiff_checks;
mod base;
pub mod checks;
pub mod conformance;
mod core_module;
mod db;
pub mod decl_check;
pub mod diagnostics;
pub mod expansion;
mod func_extension;
pub mod hir;
pub mod ide;
pub mod infer;
pub mod item_tree;
pub mod module_graph;
pub mod name_res;
pub mod ty;
pub mod visibility;

pub use base::{SourceFile, Workspace};
pub use db::{Db, RootDatabase};
pub use diagnostics::{compilation_root_diagnostics, file_diagnostics, Diagnostic, Severity};
pub use expansion::{source_parse, to_expanded_offset, to_expanded_range, to_source_range};
/// Generic constraints and conformance (part of inference; also read by
/// the checks and code generation).
pub use infer::generics;
pub use item_tree::{Item, ItemKind, ItemTree, Visibility};
pub use module_graph::{file_imports, import_candidates, module_of, resolved_imports, Import, ImportKind};
pub use salsa::Cancelled;
pub use slang_syntax::{TextRange, TextSize};

/// The core-module files (declarations of the built-in types and
/// functions): `(name, text)`.
pub fn core_module_files() -> &'static [(&'static str, &'static str)] {
    core_module::CORE_FILES
}

/// The core-module files of the database.
pub fn core_files(db: &dyn Db) -> Vec<SourceFile> {
    base::CoreModule::get(db).files(db).clone()
}

/// Computes the core module's per-file facts (parse, item tree) on two
/// threads, so that a command-line run's start-up uses both cores; the
/// results land in `db`'s shared storage.
pub fn prewarm_core(db: &RootDatabase) {
    let files = core_files(db);
    std::thread::scope(|s| {
        for half in [0, 1] {
            let db = db.clone();
            let files = &files;
            s.spawn(move || {
                for f in files.iter().skip(half).step_by(2) {
                    let _ = item_tree::item_tree(&db, *f);
                }
            });
        }
    });
}

/// The tree the semantic model reads: the file with its macros expanded
/// (see [`expansion`]; for a file that uses no macro, the tree of its
/// text). A query: re-parses only when the text, the predefined macros or
/// the macros of included files change.
// `no_eq`: a new text always gives a new tree, and comparing trees
// walks them (most of the file, for an edit near its end).
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse(db: &dyn Db, file: SourceFile) -> slang_syntax::Parse {
    expansion::expanded_parse(db, file)
}
