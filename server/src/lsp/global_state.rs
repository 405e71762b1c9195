//! The server's state, [`GlobalState`], and running features on
//! snapshots of it ([`on_snapshot`]).
//!
//! Three locks, never held across an `.await`:
//! * the database: the single writer's. A write waits until the snapshots
//!   still running are cancelled and dropped, so nothing that a snapshot
//!   task may wait for is held while taking it, except the document lock
//!   taken briefly inside (never the other way round);
//! * the open documents, with what the server remembers per document (the
//!   compile worker's diagnostics, the semantic tokens last sent) and the
//!   edit counter;
//! * the settings: the editor's, the effective ones and the workspace
//!   folders they read.
//!
//! What the client said it supports is set once, in `initialize`.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use slang_analysis::{RootDatabase, SourceFile};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::lsp_types::{CodeLens, Diagnostic, Uri};
use tower_lsp_server::UriExt;

use super::config::Config;
use super::environment::Slangtorch;
use super::line_index::Encoding;

/// An open document.
pub struct Doc {
    pub file: SourceFile,
    pub version: i32,
    pub text: Arc<String>,
    /// The edit counter's value at its last change: a pending diagnostics
    /// run publishes only if it is still the latest.
    pub generation: u64,
    /// The compile worker's last diagnostics (`None` before it first ran).
    pub compile_diagnostics: Option<Vec<Diagnostic>>,
    /// The compile worker's last code lenses: what each function's
    /// backward derivative saves.
    pub code_lenses: Vec<CodeLens>,
    /// The semantic tokens last sent (result id, data), for delta requests.
    pub tokens: Option<(String, Vec<u32>)>,
}

/// The open documents.
#[derive(Default)]
pub struct Docs {
    pub open: HashMap<Uri, Doc>,
    /// Counts edits (every document's).
    generation: u64,
    /// Counts semantic-token results sent.
    token_ids: u64,
}

impl Docs {
    /// The next semantic-tokens result id.
    pub fn next_token_id(&mut self) -> String {
        self.token_ids += 1;
        self.token_ids.to_string()
    }

    /// The document's generation and version.
    pub fn current(&self, uri: &Uri) -> Option<(u64, i32)> {
        self.open.get(uri).map(|d| (d.generation, d.version))
    }
}

/// The settings and what they are computed from.
#[derive(Default)]
pub struct Settings {
    /// The editor's settings.
    pub editor: Config,
    /// The settings in effect: the editor's plus the workspace files'.
    pub effective: Config,
    /// Workspace folders.
    pub roots: Vec<PathBuf>,
    /// Folders holding the workspace's Slang files and their ancestors in
    /// the workspace (search paths when `searchInAllWorkspaceDirectories`
    /// is on; `workspace::folders_of`).
    pub workspace_dirs: Vec<String>,
    /// slangpy's shader folders and the interpreter they were asked of
    /// (`None` before the first look).
    pub slangpy: Option<(String, Vec<String>)>,
    /// What slangtorch's caches in the workspace say.
    pub slangtorch: Slangtorch,
}

/// What the client said it supports (from `initialize`).
#[derive(Debug, Default, Clone, Copy)]
pub struct ClientCaps {
    /// Positions in UTF-8 (offered by the client) or UTF-16.
    pub encoding: Encoding,
    pub configuration: bool,
    pub work_done_progress: bool,
    pub watch_files: bool,
    /// The client pulls diagnostics (`textDocument/diagnostic`): they are
    /// not pushed as well (editors would show them twice).
    pub pull_diagnostics: bool,
    /// The client can be told to pull again (`workspace/diagnostic/refresh`).
    pub diagnostic_refresh: bool,
    /// The client can be told to ask for code lenses again
    /// (`workspace/codeLens/refresh`).
    pub code_lens_refresh: bool,
}

#[derive(Default)]
pub struct GlobalState {
    db: Mutex<RootDatabase>,
    docs: Mutex<Docs>,
    settings: Mutex<Settings>,
    client: OnceLock<ClientCaps>,
}

/// A lock, also after a panic elsewhere (features run under
/// `catch_unwind`; the state they leave is consistent).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The database path of a document: its file path, or the URI itself.
pub fn uri_path(uri: &Uri) -> String {
    match uri.to_file_path() {
        Some(p) if uri.scheme().is_some_and(|s| s.as_str() == "file") => p.to_string_lossy().replace('\\', "/"),
        _ => uri.as_str().to_string(),
    }
}

/// The database path of a file on disk.
pub fn disk_path(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// What a feature runs on: a database snapshot and the document.
pub struct Snapshot {
    pub db: RootDatabase,
    pub file: SourceFile,
    pub text: Arc<String>,
    pub encoding: Encoding,
    generation: u64,
}

impl GlobalState {
    pub fn docs(&self) -> MutexGuard<'_, Docs> {
        lock(&self.docs)
    }

    pub fn settings(&self) -> MutexGuard<'_, Settings> {
        lock(&self.settings)
    }

    /// The database, for the single writer (see the module's comment).
    pub fn db(&self) -> MutexGuard<'_, RootDatabase> {
        lock(&self.db)
    }

    pub fn set_client(&self, caps: ClientCaps) {
        let _ = self.client.set(caps);
    }

    pub fn client(&self) -> ClientCaps {
        self.client.get().copied().unwrap_or_default()
    }

    pub fn encoding(&self) -> Encoding {
        self.client().encoding
    }

    /// The URI of a database path: the open document's (whatever its
    /// scheme), else a `file:` URI.
    pub fn uri_of(&self, path: &str) -> Option<Uri> {
        if let Some(uri) = self.docs().open.keys().find(|u| uri_path(u) == path) {
            return Some(uri.clone());
        }
        Uri::from_file_path(path).or_else(|| path.parse().ok())
    }

    /// A snapshot of the database with the document's file and text.
    pub fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        let (file, text, generation) = {
            let docs = self.docs();
            let d = docs.open.get(uri)?;
            (d.file, d.text.clone(), d.generation)
        };
        let db = self.db().clone();
        Some(Snapshot { db, file, text, encoding: self.encoding(), generation })
    }

    /// Recomputes the settings in effect (editor settings plus workspace
    /// files) and gives them to the database, with what the environment
    /// adds: search paths (the settings', slangpy's, slangtorch's, the
    /// workspace's folders, in this order) and defines (the flavor's,
    /// slangtorch's, the settings', later ones winning). Returns problems with the
    /// workspace files.
    pub fn apply_config(&self) -> Vec<String> {
        let (cfg, problems, paths, defines) = {
            let s = self.settings();
            let (cfg, problems) = s.editor.with_workspace_files(&s.roots);
            let mut paths = cfg.additional_search_paths.clone();
            paths.extend(s.slangpy.iter().flat_map(|(_, dirs)| dirs.iter().cloned()));
            paths.extend(s.slangtorch.include_paths.iter().cloned());
            if cfg.search_in_all_workspace_directories {
                paths.extend(s.workspace_dirs.iter().cloned());
            }
            let mut defines = cfg.workspace_flavor.defines();
            defines.extend(s.slangtorch.defines.iter().cloned());
            defines.extend(cfg.predefined_macros.iter().cloned());
            (cfg, problems, paths, defines)
        };
        {
            let mut db = self.db();
            db.set_defines(defines);
            db.set_search_paths(paths);
            crate::cli_check::load_imports(&mut db);
        }
        self.settings().effective = cfg;
        problems
    }

    /// Whether a document with this database path is open (the editor's
    /// text wins over the disk's).
    pub fn is_open(&self, path: &str) -> bool {
        self.docs().open.keys().any(|u| uri_path(u) == path)
    }

    /// Reads files from disk into the database (those not open), in one
    /// write: requests running meanwhile are cancelled (and re-run) once,
    /// not once per file.
    pub fn load_many_from_disk(&self, paths: &[PathBuf]) {
        let texts: Vec<(String, String)> = paths
            .iter()
            .map(|p| disk_path(p))
            .zip(paths)
            .filter(|(key, _)| !self.is_open(key))
            .filter_map(|(key, p)| Some((key, crate::cli_check::read_text(p).ok()?)))
            .collect();
        let mut db = self.db();
        for (key, text) in texts {
            // (Opened meanwhile: the editor's text wins.)
            if !self.is_open(&key) {
                db.set_file(&key, &text);
            }
        }
    }

    /// Reads a file from disk into the database (unless it is open).
    pub fn load_from_disk(&self, path: &Path) {
        let key = disk_path(path);
        if self.is_open(&key) {
            return;
        }
        if let Ok(text) = crate::cli_check::read_text(path) {
            self.db().set_file(&key, &text);
        }
    }

    /// Forgets a file deleted on disk (unless it is open).
    pub fn remove_from_disk(&self, path: &Path) {
        let key = disk_path(path);
        if !self.is_open(&key) {
            self.db().remove_file(&key);
        }
    }

    /// Loads what the workspace's files import (after files changed).
    pub fn load_imports(&self) {
        crate::cli_check::load_imports(&mut self.db());
    }

    /// Sets a document's text (the single writer) and returns its new
    /// generation.
    pub fn set_text(&self, uri: &Uri, version: i32, text: String) -> u64 {
        let generation = {
            let mut docs = self.docs();
            docs.generation += 1;
            docs.generation
        };
        let file = {
            let mut db = self.db();
            let file = db.set_file(&uri_path(uri), &text);
            crate::cli_check::load_imports_of(&mut db, vec![file]);
            file
        };
        let mut docs = self.docs();
        let text = Arc::new(text);
        match docs.open.get_mut(uri) {
            Some(d) => (d.file, d.version, d.text, d.generation) = (file, version, text, generation),
            None => {
                let doc = Doc {
                    file,
                    version,
                    text,
                    generation,
                    compile_diagnostics: None,
                    code_lenses: Vec::new(),
                    tokens: None,
                };
                docs.open.insert(uri.clone(), doc);
            }
        }
        generation
    }

    /// Forgets an open document (closed): the file on disk is what other
    /// files see now.
    pub fn close(&self, uri: &Uri) {
        self.docs().open.remove(uri);
        if let Some(path) = uri.to_file_path() {
            self.load_from_disk(&path);
        }
    }
}

/// Runs `f` on a snapshot on the blocking pool: cancelled by edits of the
/// document (content modified), panics answered as internal errors. A
/// snapshot cancelled by another write (workspace indexing, settings,
/// other documents) is taken again: the client's request is still valid.
/// `None` when the document is not open.
pub async fn on_snapshot<T: Send + 'static>(
    state: &Arc<GlobalState>,
    uri: &Uri,
    f: impl Fn(&Snapshot) -> T + Send + Sync + 'static,
) -> Result<Option<T>> {
    let f = Arc::new(f);
    let mut attempts = 0;
    loop {
        let Some(snap) = state.snapshot(uri) else { return Ok(None) };
        let generation = snap.generation;
        let g = f.clone();
        let task = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                slang_analysis::Cancelled::catch(AssertUnwindSafe(|| g(&snap)))
            }))
        });
        match task.await {
            Ok(Ok(Ok(v))) => return Ok(Some(v)),
            Ok(Ok(Err(_cancelled))) => {
                attempts += 1;
                let now = state.docs().open.get(uri).map(|d| d.generation);
                if now != Some(generation) || attempts >= 20 {
                    return Err(Error::content_modified());
                }
            }
            Ok(Err(panic)) => {
                return Err(internal_error(
                    panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default(),
                ))
            }
            Err(e) => return Err(internal_error(e.to_string())),
        }
    }
}

/// Runs `f` on a snapshot of the database alone (workspace-wide requests),
/// like [`on_snapshot`] but not retried.
pub async fn on_database<T: Send + 'static>(
    state: &Arc<GlobalState>,
    f: impl FnOnce(&RootDatabase, Encoding) -> T + Send + 'static,
) -> Result<T> {
    let db = state.db().clone();
    let enc = state.encoding();
    let task = tokio::task::spawn_blocking(move || slang_analysis::Cancelled::catch(AssertUnwindSafe(|| f(&db, enc))));
    match task.await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(_)) => Err(Error::content_modified()),
        Err(e) => Err(Error {
            code: tower_lsp_server::jsonrpc::ErrorCode::InternalError,
            message: e.to_string().into(),
            data: None,
        }),
    }
}

fn internal_error(what: String) -> Error {
    let mut e = Error::internal_error();
    e.message = format!("slang-analyzer: internal error: {what}").into();
    e
}
