//! The database: the [`Db`] trait queries take, [`RootDatabase`] (salsa
//! storage, the inputs' setters, an optional log of query executions for
//! tests that prove incrementality), and the side caches beside salsa
//! ([`ReparseCache`]: the last parse, expansion and per-declaration item
//! facts of each file). The caches' entry types are here; the code that
//! fills and reuses them is with its owner (`expansion.rs`,
//! `item_tree.rs`). `RootDatabase::with_macros_expanded` is in
//! `expansion.rs`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use salsa::{Durability, Setter};

use crate::base::{CoreModule, SourceFile, Workspace};
use crate::core_module;

#[salsa::db]
pub trait Db: salsa::Database {
    /// The last parse of each file, so that the next parse after an edit
    /// inside a block can reparse just that block. Not tracked by salsa:
    /// a reparse gives exactly the tree a full parse would.
    fn reparse_cache(&self) -> &ReparseCache;
}

/// Unwinds with [`salsa::Cancelled`] when a write is waiting for this
/// snapshot: long computations outside queries (code generation's passes)
/// call it between steps, so that an edit never waits for them.
pub fn cancellation_point(db: &dyn Db) {
    db.unwind_if_revision_cancelled();
}

#[salsa::db]
impl Db for RootDatabase {
    fn reparse_cache(&self) -> &ReparseCache {
        &self.reparse_cache
    }
}

/// See [`Db::reparse_cache`]. Holds the last macro expansion of each file
/// too (see [`crate::expansion::expansion`]).
#[derive(Default, Clone)]
pub struct ReparseCache {
    entries: Arc<Mutex<HashMap<(u8, SourceFile), CachedParse>>>,
    pub(crate) expansions: Arc<Mutex<HashMap<SourceFile, CachedExpansion>>>,
    /// The last lowered file's top-level declarations' facts, by green node
    /// (see [`crate::item_tree`]).
    pub(crate) subtree_facts: Arc<Mutex<SubtreeFactsCache>>,
}

/// See [`ReparseCache::subtree_facts`]. Holding the green nodes keeps
/// their addresses, the keys, from being reused.
#[derive(Default)]
pub(crate) struct SubtreeFactsCache {
    pub(crate) macros: Option<(SourceFile, slang_syntax::MacroNames)>,
    pub(crate) entries: HashMap<usize, (rowan::GreenNode, SubtreeFacts)>,
}

/// The last expansion of a file, and what it was made from (kept and
/// reused by [`crate::expansion::expansion`]).
#[derive(Clone)]
pub(crate) struct CachedExpansion {
    pub(crate) text: Arc<str>,
    pub(crate) parse: slang_syntax::Parse,
    pub(crate) options: slang_syntax::ParseOptions,
    pub(crate) expansion: Option<Arc<slang_syntax::Expansion>>,
}

/// What [`crate::item_tree`]'s lowering collects from a top-level
/// declaration (and what it contains), apart from its items.
#[derive(Debug, Clone, Default)]
pub(crate) struct SubtreeFacts {
    pub(crate) usings: Vec<String>,
    pub(crate) namespace_usings: Vec<(String, String)>,
    pub(crate) macro_fragments: Vec<String>,
    pub(crate) has_item_macros: bool,
    pub(crate) func_extension_targets: Vec<String>,
}

#[derive(Clone)]
struct CachedParse {
    text: Arc<str>,
    options: slang_syntax::ParseOptions,
    parse: slang_syntax::Parse,
}

impl ReparseCache {
    /// Parse `text` with `options`, reusing the previous parse of `file`
    /// in the same `slot` (a file has several parses: see
    /// [`crate::expansion`]).
    pub fn parse(
        &self,
        slot: u8,
        file: SourceFile,
        text: &str,
        options: &slang_syntax::ParseOptions,
    ) -> slang_syntax::Parse {
        let previous = self.entries.lock().unwrap().get(&(slot, file)).cloned();
        let parse = previous
            .filter(|p| p.options == *options)
            .and_then(|p| p.parse.reparse(&p.text, text))
            .unwrap_or_else(|| slang_syntax::parse_with(text, options));
        self.entries
            .lock()
            .unwrap()
            .insert((slot, file), CachedParse { text: text.into(), options: options.clone(), parse: parse.clone() });
        parse
    }
}

/// The concrete database used by the server and the CLI.
#[salsa::db]
#[derive(Clone)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    executions: Arc<Mutex<Option<Vec<String>>>>,
    reparse_cache: ReparseCache,
}

#[salsa::db]
impl salsa::Database for RootDatabase {}

impl Default for RootDatabase {
    fn default() -> Self {
        Self::new()
    }
}

impl RootDatabase {
    /// A database holding only the core module.
    pub fn new() -> Self {
        let executions: Arc<Mutex<Option<Vec<String>>>> = Arc::default();
        let log = executions.clone();
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind {
                if let Some(log) = log.lock().unwrap().as_mut() {
                    log.push(format!("{database_key:?}"));
                }
            }
        })));
        let db = RootDatabase { storage, executions, reparse_cache: ReparseCache::default() };
        let core: Vec<SourceFile> = core_module::CORE_FILES
            .iter()
            .map(|(name, text)| {
                SourceFile::builder(core_module::core_path(name), text.to_string())
                    .durability(Durability::HIGH)
                    .new(&db)
            })
            .collect();
        // High durability: the core module and the configuration rarely
        // change, so after an edit of a file what depends only on them is
        // known to be valid without walking its dependencies again.
        let _ = CoreModule::builder(core.clone()).durability(Durability::HIGH).new(&db);
        let _ = Workspace::builder(core, Vec::new(), Vec::new())
            .search_paths_durability(Durability::HIGH)
            .defines_durability(Durability::HIGH)
            .new(&db);
        db
    }

    /// Add a file (or replace the text of the file with this path).
    pub fn set_file(&mut self, path: &str, text: &str) -> SourceFile {
        let ws = Workspace::get(self);
        if let Some(&f) = ws.files(self).iter().find(|f| f.path(self) == path) {
            if f.text(self) != text {
                f.set_text(self).to(text.to_string());
            }
            return f;
        }
        let f = SourceFile::new(self, path.to_string(), text.to_string());
        let mut files = ws.files(self).clone();
        files.push(f);
        ws.set_files(self).to(files);
        f
    }

    /// Forget the file with this path (deleted on disk). Returns whether
    /// it was known.
    pub fn remove_file(&mut self, path: &str) -> bool {
        let ws = Workspace::get(self);
        let files = ws.files(self);
        if !files.iter().any(|f| f.path(self) == path) {
            return false;
        }
        let kept: Vec<SourceFile> = files.iter().copied().filter(|f| f.path(self) != path).collect();
        ws.set_files(self).to(kept);
        true
    }

    /// A database like this one (same files, search paths and defines) in
    /// which `file`'s text is `text`, and the file in it: what an edit
    /// would give, without touching this one (a write here would wait for
    /// every snapshot).
    pub fn with_file_text(&self, file: SourceFile, text: &str) -> (RootDatabase, SourceFile) {
        let ws = Workspace::get(self);
        let mut db = RootDatabase::new();
        db.set_defines(ws.defines(self).clone());
        db.set_search_paths(ws.search_paths(self).clone());
        let core = CoreModule::get(self).files(self).len();
        for &f in ws.files(self).iter().skip(core) {
            if f != file {
                db.set_file(f.path(self), f.text(self));
            }
        }
        let copy = db.set_file(file.path(self), text);
        (db, copy)
    }

    pub fn file_by_path(&self, path: &str) -> Option<SourceFile> {
        Workspace::get(self).files(self).iter().copied().find(|f| f.path(self) == path)
    }

    /// Sets the search paths (nothing is invalidated when they are the
    /// same).
    pub fn set_search_paths(&mut self, paths: Vec<String>) {
        let ws = Workspace::get(self);
        if *ws.search_paths(self) != paths {
            ws.set_search_paths(self).to(paths);
        }
    }

    /// Sets the predefined macros (nothing is invalidated when they are
    /// the same: every parse depends on them).
    pub fn set_defines(&mut self, defines: Vec<(String, String)>) {
        let ws = Workspace::get(self);
        if *ws.defines(self) != defines {
            ws.set_defines(self).to(defines);
        }
    }

    /// Start recording which queries execute.
    pub fn start_logging_executions(&self) {
        *self.executions.lock().unwrap() = Some(Vec::new());
    }

    /// The queries executed since the last call, as `query_name(id)`.
    pub fn take_executions(&self) -> Vec<String> {
        self.executions.lock().unwrap().as_mut().map(std::mem::take).unwrap_or_default()
    }
}
