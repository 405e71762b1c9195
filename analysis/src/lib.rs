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
//!
//! The public surface is what the host and code generation read: the
//! inputs and the database, the parses ([`expansion`], [`parse`]), item
//! trees, the module graph, global scopes ([`name_res`]), HIR bodies
//! ([`hir`]), types ([`ty`]), inference ([`infer`], with [`autodiff`] and
//! [`generics`]), diagnostics ([`file_diagnostics`]) and the IDE features.
//! The checks are private: their diagnostics come through
//! [`diagnostics`]. The top-level modules import each other without a
//! cycle (`tests/module_graph.rs`; the layers are in `ARCHITECTURE.md`).

mod activity;
mod autodiff_checks;
mod base;
mod checks;
mod conformance;
mod core_module;
mod db;
mod decl_check;
mod diagnostic;
pub mod diagnostics;
pub mod expansion;
pub mod hir;
pub mod ide;
mod import_paths;
pub mod infer;
pub mod item_tree;
pub mod module_graph;
pub mod name_res;
pub mod scalar;
mod standard_modules;
pub mod ty;
mod visibility;

pub use base::{SourceFile, Workspace};
pub use db::{cancellation_point, Db, RootDatabase};
pub use diagnostic::{Diagnostic, Severity};
pub use diagnostics::{compilation_root_diagnostics, file_diagnostics};
pub use expansion::{parse, source_parse, to_expanded_offset, to_expanded_range, to_source_range};
pub use import_paths::{import_candidates, Import, ImportKind};
/// The facts of automatic differentiation (differentiable types and
/// functions, `Differential` types, derivative signatures): part of the
/// type system, so they live with inference, which reads them.
pub use infer::autodiff;
/// Generic constraints and conformance (part of inference; also read by
/// the checks and code generation).
pub use infer::generics;
pub use item_tree::{Item, ItemKind, ItemTree, Visibility};
pub use module_graph::{file_imports, module_of, resolved_imports};
pub use salsa::Cancelled;
pub use slang_syntax::{TextRange, TextSize};
pub use standard_modules::{is_standard_module_file, standard_module_text, STANDARD_MODULE_DIR};

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
