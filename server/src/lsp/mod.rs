//! The language server: LSP over stdio on tower-lsp-server and tokio.
//!
//! One writer: every edit goes through `State::db` under its lock, in the
//! order the client sent it (notification handlers apply their change
//! before their first `.await`). Requests clone the database (a salsa
//! snapshot) and run on the blocking pool; an edit cancels the snapshots
//! still running (salsa unwinds them with `Cancelled`, answered as
//! "content modified"), and a panic in a feature answers that request with
//! an internal error instead of ending the server.

mod config;
mod framing;
mod line_index;
mod worker;
mod workspace;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use slang_analysis::{ide, RootDatabase, Severity, SourceFile};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::lsp_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server, UriExt};

use config::Config;
use line_index::{Encoding, LineIndex};
use worker::Generator;

/// How long diagnostics wait for more edits before being computed.
const DEBOUNCE: Duration = Duration::from_millis(10);

struct Doc {
    file: SourceFile,
    version: i32,
    text: Arc<String>,
    /// Bumped on every change: a pending diagnostics run publishes only if
    /// it is still the latest.
    generation: u64,
}

/// What the client said it supports (from `initialize`).
#[derive(Debug, Default, Clone, Copy)]
struct ClientFlags {
    configuration: bool,
    work_done_progress: bool,
    watch_files: bool,
    /// The client pulls diagnostics (`textDocument/diagnostic`): they are
    /// not pushed as well (editors would show them twice).
    pull_diagnostics: bool,
    /// The client can be told to pull again (`workspace/diagnostic/refresh`).
    diagnostic_refresh: bool,
}

struct State {
    db: Mutex<RootDatabase>,
    docs: Mutex<HashMap<Uri, Doc>>,
    encoding: OnceLock<Encoding>,
    generation: AtomicU64,
    client: OnceLock<ClientFlags>,
    /// The editor's settings.
    settings: Mutex<Config>,
    /// The settings in effect: the editor's plus the workspace files'.
    config: Mutex<Config>,
    /// Workspace folders.
    roots: Mutex<Vec<PathBuf>>,
    /// Folders holding the workspace's Slang files (search paths when
    /// `searchInAllWorkspaceDirectories` is on).
    workspace_dirs: Mutex<Vec<String>>,
    /// The compile worker's diagnostics per open document.
    compile_diagnostics: Mutex<HashMap<Uri, Vec<tower_lsp_server::lsp_types::Diagnostic>>>,
    generator: Box<dyn Generator>,
    /// The last semantic tokens sent per document (result id, data), for
    /// delta requests.
    tokens: Mutex<HashMap<Uri, (String, Vec<u32>)>>,
    token_ids: AtomicU64,
}

impl Default for State {
    fn default() -> Self {
        State {
            db: Mutex::default(),
            docs: Mutex::default(),
            encoding: OnceLock::new(),
            generation: AtomicU64::new(0),
            client: OnceLock::new(),
            settings: Mutex::default(),
            config: Mutex::default(),
            roots: Mutex::default(),
            workspace_dirs: Mutex::default(),
            compile_diagnostics: Mutex::default(),
            generator: Box::new(worker::Codegen),
            tokens: Mutex::default(),
            token_ids: AtomicU64::new(0),
        }
    }
}

struct Backend {
    client: Client,
    state: Arc<State>,
}

/// The database path of a document: its file path, or the URI itself.
fn uri_path(uri: &Uri) -> String {
    match uri.to_file_path() {
        Some(p) if uri.scheme().is_some_and(|s| s.as_str() == "file") => p.to_string_lossy().replace('\\', "/"),
        _ => uri.as_str().to_string(),
    }
}

impl State {
    fn encoding(&self) -> Encoding {
        *self.encoding.get().unwrap_or(&Encoding::Utf16)
    }

    /// The URI of a database path: the open document's (whatever its
    /// scheme), else a `file:` URI.
    fn uri_of(&self, path: &str) -> Option<Uri> {
        let docs = self.docs.lock().unwrap();
        if let Some(uri) = docs.keys().find(|u| uri_path(u) == path) {
            return Some(uri.clone());
        }
        Uri::from_file_path(path).or_else(|| path.parse().ok())
    }

    /// A snapshot of the database and the document's file and text.
    /// (And the document's generation.)
    fn snapshot(&self, uri: &Uri) -> Option<(RootDatabase, SourceFile, Arc<String>, u64)> {
        let (file, text, generation) = {
            let docs = self.docs.lock().unwrap();
            let d = docs.get(uri)?;
            (d.file, d.text.clone(), d.generation)
        };
        let db = self.db.lock().unwrap().clone();
        Some((db, file, text, generation))
    }

    fn flags(&self) -> ClientFlags {
        self.client.get().copied().unwrap_or_default()
    }

    /// Recomputes the settings in effect (editor settings plus workspace
    /// files) and gives them to the database. Returns problems with the
    /// workspace files.
    fn apply_config(&self) -> Vec<String> {
        let roots = self.roots.lock().unwrap().clone();
        let (cfg, problems) = self.settings.lock().unwrap().with_workspace_files(&roots);
        let mut paths = cfg.additional_search_paths.clone();
        if cfg.search_in_all_workspace_directories {
            paths.extend(self.workspace_dirs.lock().unwrap().iter().cloned());
        }
        {
            let mut db = self.db.lock().unwrap();
            db.set_defines(cfg.predefined_macros.clone());
            db.set_search_paths(paths);
            crate::cli_check::load_imports(&mut db);
        }
        *self.config.lock().unwrap() = cfg;
        problems
    }

    /// Whether a document with this database path is open (the editor's
    /// text wins over the disk's).
    fn is_open(&self, path: &str) -> bool {
        self.docs.lock().unwrap().keys().any(|u| uri_path(u) == path)
    }

    /// Reads files from disk into the database (those not open), in one
    /// write: requests running meanwhile are cancelled (and re-run) once,
    /// not once per file.
    fn load_many_from_disk(&self, paths: &[PathBuf]) {
        let texts: Vec<(String, String)> = paths
            .iter()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .zip(paths)
            .filter(|(key, _)| !self.is_open(key))
            .filter_map(|(key, p)| Some((key, crate::cli_check::read_text(p).ok()?)))
            .collect();
        let mut db = self.db.lock().unwrap();
        for (key, text) in texts {
            // (Opened meanwhile: the editor's text wins.)
            if !self.is_open(&key) {
                db.set_file(&key, &text);
            }
        }
    }

    /// Reads a file from disk into the database (unless it is open).
    fn load_from_disk(&self, path: &std::path::Path) {
        let key = path.to_string_lossy().replace('\\', "/");
        if self.is_open(&key) {
            return;
        }
        if let Ok(text) = crate::cli_check::read_text(path) {
            self.db.lock().unwrap().set_file(&key, &text);
        }
    }

    /// Sets a document's text (the single writer) and returns its new
    /// generation.
    fn set_text(&self, uri: &Uri, version: i32, text: String) -> u64 {
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let path = uri_path(uri);
        let file = {
            let mut db = self.db.lock().unwrap();
            let file = db.set_file(&path, &text);
            crate::cli_check::load_imports(&mut db);
            file
        };
        let mut docs = self.docs.lock().unwrap();
        docs.insert(uri.clone(), Doc { file, version, text: Arc::new(text), generation });
        generation
    }
}

/// Runs `f` on a snapshot on the blocking pool: cancelled by edits of the
/// document (content modified), panics answered as internal errors. A
/// snapshot cancelled by another write (workspace indexing, settings,
/// other documents) is taken again: the client's request is still valid.
async fn on_snapshot<T: Send + 'static>(
    state: &Arc<State>,
    uri: &Uri,
    f: impl Fn(&RootDatabase, SourceFile, &str, Encoding) -> T + Send + Sync + 'static,
) -> Result<Option<T>> {
    let f = Arc::new(f);
    let internal = |what: String| {
        let mut e = Error::internal_error();
        e.message = format!("slang-analyzer: internal error: {what}").into();
        e
    };
    let mut attempts = 0;
    loop {
        let Some((db, file, text, edits)) = state.snapshot(uri) else { return Ok(None) };
        let encoding = state.encoding();
        let g = f.clone();
        let task = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                slang_analysis::Cancelled::catch(AssertUnwindSafe(|| g(&db, file, &text, encoding)))
            }))
        });
        match task.await {
            Ok(Ok(Ok(v))) => return Ok(Some(v)),
            Ok(Ok(Err(_cancelled))) => {
                attempts += 1;
                let now = state.docs.lock().unwrap().get(uri).map(|d| d.generation);
                if now != Some(edits) || attempts >= 20 {
                    return Err(Error::content_modified());
                }
            }
            Ok(Err(panic)) => {
                return Err(internal(
                    panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default(),
                ))
            }
            Err(e) => return Err(internal(e.to_string())),
        }
    }
}

fn lsp_severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
    }
}

fn to_lsp_diagnostics(
    state: &State,
    db: &RootDatabase,
    file: SourceFile,
    text: &str,
    encoding: Encoding,
) -> Vec<tower_lsp_server::lsp_types::Diagnostic> {
    let li = LineIndex::new(text, encoding);
    // Line indexes of the other files related information points into.
    let mut others: HashMap<SourceFile, LineIndex> = HashMap::new();
    slang_analysis::file_diagnostics(db, file)
        .iter()
        .map(|d| {
            let related: Vec<DiagnosticRelatedInformation> = ide::related_information(db, file, d)
                .into_iter()
                .filter_map(|r| {
                    let uri = state.uri_of(r.file.path(db))?;
                    let range = if r.file == file {
                        li.range(r.range)
                    } else {
                        others.entry(r.file).or_insert_with(|| LineIndex::of(db, r.file, encoding)).range(r.range)
                    };
                    Some(DiagnosticRelatedInformation { location: Location { uri, range }, message: r.message })
                })
                .collect();
            tower_lsp_server::lsp_types::Diagnostic {
                range: li.range(d.range),
                severity: Some(lsp_severity(d.severity)),
                code: Some(NumberOrString::String(d.code.to_string())),
                source: Some("slang-analyzer".to_string()),
                message: d.message.clone(),
                related_information: (!related.is_empty()).then_some(related),
                tags: match d.code {
                    "unused-variable" => Some(vec![DiagnosticTag::UNNECESSARY]),
                    "unreachable-code" => Some(vec![DiagnosticTag::UNNECESSARY]),
                    _ => None,
                },
                ..Default::default()
            }
        })
        .collect()
}

/// The analysis's diagnostics of a document followed by the compile
/// worker's last ones.
async fn all_diagnostics(
    state: &Arc<State>,
    uri: &Uri,
) -> Result<Option<Vec<tower_lsp_server::lsp_types::Diagnostic>>> {
    let st = state.clone();
    let diags =
        on_snapshot(state, uri, move |db, file, text, enc| to_lsp_diagnostics(&st, db, file, text, enc)).await?;
    Ok(diags.map(|mut d| {
        d.extend(state.compile_diagnostics.lock().unwrap().get(uri).cloned().unwrap_or_default());
        d
    }))
}

/// How long the compile worker waits after the last edit.
const COMPILE_SETTLE: Duration = Duration::from_millis(300);

impl Backend {
    /// Publishes a document's diagnostics after the debounce, unless it
    /// changed meanwhile.
    fn schedule_diagnostics(&self, uri: Uri, generation: u64) {
        let state = self.state.clone();
        let client = self.client.clone();
        tokio::spawn(async move {
            tokio::time::sleep(DEBOUNCE).await;
            let current = |state: &State| state.docs.lock().unwrap().get(&uri).map(|d| (d.generation, d.version));
            if current(&state).map(|c| c.0) != Some(generation) {
                return;
            }
            let pull = state.flags().pull_diagnostics;
            let Some((_, version)) = current(&state) else { return };
            if !pull {
                let Ok(Some(diags)) = all_diagnostics(&state, &uri).await else { return };
                let Some((g, version)) = current(&state) else { return };
                if g != generation {
                    return;
                }
                client.publish_diagnostics(uri.clone(), diags, Some(version)).await;
            }
            // Then, once edits have settled, the compile worker.
            tokio::time::sleep(COMPILE_SETTLE).await;
            if current(&state).map(|c| c.0) != Some(generation) {
                return;
            }
            let st = state.clone();
            let compiled = on_snapshot(&state, &uri, move |db, file, _text, enc| {
                let li = LineIndex::of(db, file, enc);
                st.generator
                    .check(db, file)
                    .into_iter()
                    .map(|d| tower_lsp_server::lsp_types::Diagnostic {
                        range: li.range(d.range),
                        severity: Some(lsp_severity(d.severity)),
                        code: Some(NumberOrString::String(d.code.to_string())),
                        source: Some(worker::SOURCE.to_string()),
                        message: d.message,
                        ..Default::default()
                    })
                    .collect::<Vec<_>>()
            })
            .await;
            let Ok(Some(compiled)) = compiled else { return };
            let changed = {
                let mut all = state.compile_diagnostics.lock().unwrap();
                let old = all.insert(uri.clone(), compiled);
                old.as_ref() != all.get(&uri)
            };
            if changed && pull {
                // The client pulls: ask it to, now that the worker's
                // diagnostics changed.
                if state.flags().diagnostic_refresh {
                    let _ = client.workspace_diagnostic_refresh().await;
                }
                return;
            }
            if changed && current(&state).map(|c| c.0) == Some(generation) {
                if let Ok(Some(diags)) = all_diagnostics(&state, &uri).await {
                    client.publish_diagnostics(uri, diags, Some(version)).await;
                }
            }
        });
    }

    /// Go to definition / declaration / type definition / implementation.
    async fn navigate(
        &self,
        p: TextDocumentPositionParams,
        f: fn(&dyn slang_analysis::Db, SourceFile, slang_analysis::TextSize) -> Vec<ide::NavTarget>,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let r = on_snapshot(&self.state, &p.text_document.uri, move |db, file, text, enc| {
            // On a macro's name: its `#define` (in the files' own offsets).
            if let Some(t) = ide::macro_definition(db, file, LineIndex::new(text, enc).text_size(p.position)) {
                return vec![(t.file.path(db).clone(), LineIndex::new(t.file.text(db), enc).range(t.focus_range))];
            }
            let li = LineIndex::of(db, file, enc);
            f(db, file, li.text_size(p.position))
                .into_iter()
                .map(|t| (t.file.path(db).clone(), LineIndex::of(db, t.file, enc).range(t.focus_range)))
                .collect::<Vec<_>>()
        })
        .await?;
        let locations: Vec<Location> = r
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(path, range)| Some(Location { uri: self.state.uri_of(&path)?, range }))
            .collect();
        Ok((!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations)))
    }

    /// Semantic tokens of a document (or a range of it), LSP-encoded but
    /// not yet packed.
    async fn token_data(&self, uri: &Uri, range: Option<Range>) -> Result<Option<Vec<SemanticToken>>> {
        on_snapshot(&self.state, uri, move |db, file, text, enc| {
            // (The tokens are given in the file's own offsets.)
            let li = LineIndex::new(text, enc);
            let range = range.map(|r| li.text_range(r));
            let mut out = Vec::new();
            let (mut line, mut col) = (0, 0);
            for t in ide::semantic_tokens(db, file, range) {
                let start = li.position(t.range.start().into());
                let end = li.position(t.range.end().into());
                if end.line != start.line || end.character <= start.character {
                    continue;
                }
                let delta_line = start.line - line;
                let delta_start = if delta_line == 0 { start.character - col } else { start.character };
                out.push(SemanticToken {
                    delta_line,
                    delta_start,
                    length: end.character - start.character,
                    token_type: t.kind as u32,
                    token_modifiers_bitset: t.modifiers,
                });
                (line, col) = (start.line, start.character);
            }
            out
        })
        .await
    }

    /// Stores the tokens sent for `uri` and returns their result id.
    fn remember_tokens(&self, uri: &Uri, data: &[SemanticToken]) -> String {
        let id = self.state.token_ids.fetch_add(1, Ordering::SeqCst).to_string();
        self.state.tokens.lock().unwrap().insert(uri.clone(), (id.clone(), flatten(data)));
        id
    }

    /// Document or range formatting: whitespace edits from the CST
    /// formatter.
    async fn format(
        &self,
        uri: Uri,
        options: FormattingOptions,
        range: Option<Range>,
    ) -> Result<Option<Vec<TextEdit>>> {
        let r = on_snapshot(&self.state, &uri, move |db, file, text, enc| {
            let li = LineIndex::new(text, enc);
            let root = slang_analysis::source_parse(db, file).syntax_node();
            let opts = slang_syntax::format::FormatOptions {
                indent_width: options.tab_size.clamp(1, 16),
                use_tabs: !options.insert_spaces,
                ..Default::default()
            };
            let range = range.map(|r| li.text_range(r));
            slang_syntax::format::format_edits(text, &root, &opts, range)
                .into_iter()
                .map(|(r, new_text)| TextEdit { range: li.range(r), new_text })
                .collect::<Vec<_>>()
        })
        .await?;
        Ok(r)
    }

    /// Re-publishes the diagnostics of every open document (after the
    /// settings or files on disk change).
    fn refresh_all(&self) {
        let open: Vec<(Uri, u64)> =
            self.state.docs.lock().unwrap().iter().map(|(u, d)| (u.clone(), d.generation)).collect();
        for (uri, generation) in open {
            self.schedule_diagnostics(uri, generation);
        }
    }

    /// Reads the editor's settings (`workspace/configuration`, section
    /// `slang`) when the client offers them.
    async fn pull_settings(&self) {
        if !self.state.flags().configuration {
            return;
        }
        let items = vec![ConfigurationItem { scope_uri: None, section: Some("slang".to_string()) }];
        if let Ok(values) = self.client.configuration(items).await {
            if let Some(v) = values.first() {
                self.state.settings.lock().unwrap().update(v);
            }
        }
    }

    /// Applies the settings; reports problems with workspace config files.
    async fn apply_settings(&self) {
        for p in self.state.apply_config() {
            self.client.show_message(MessageType::WARNING, format!("slang-analyzer: cannot read {p}")).await;
        }
    }

    /// Loads the workspace folders' Slang files, reporting `$/progress`.
    async fn index_workspace(&self) {
        let roots = self.state.roots.lock().unwrap().clone();
        if roots.is_empty() {
            return;
        }
        let files = tokio::task::spawn_blocking(move || workspace::slang_files(&roots)).await.unwrap_or_default();
        *self.state.workspace_dirs.lock().unwrap() = workspace::folders_of(&files);
        let progress = if self.state.flags().work_done_progress {
            let token = NumberOrString::String("slang-analyzer/index".to_string());
            let created = self
                .client
                .send_request::<request::WorkDoneProgressCreate>(WorkDoneProgressCreateParams { token: token.clone() })
                .await;
            match created {
                Ok(()) => Some(
                    self.client
                        .progress(token, "Indexing Slang files")
                        .with_percentage(0)
                        .with_message(format!("0/{}", files.len()))
                        .begin()
                        .await,
                ),
                Err(_) => None,
            }
        } else {
            None
        };
        let total = files.len().max(1);
        for (i, chunk) in files.chunks(64).enumerate() {
            let state = self.state.clone();
            let chunk = chunk.to_vec();
            let _ = tokio::task::spawn_blocking(move || state.load_many_from_disk(&chunk)).await;
            if let Some(p) = &progress {
                let done = ((i + 1) * 64).min(files.len());
                p.report_with_message(format!("{done}/{}", files.len()), (done * 100 / total) as u32).await;
            }
        }
        self.apply_settings().await;
        if let Some(p) = progress {
            p.finish_with_message(format!("{} files", files.len())).await;
        }
    }
}

/// Parameters of `slang-analyzer/derivative`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct DerivativeParams {
    text_document: TextDocumentIdentifier,
    position: Position,
    /// `fwd` or `bwd` (default: both), or `passes`: the IR of the backward
    /// derivative after each reverse-mode pass.
    mode: Option<String>,
}

/// Parameters of `slang-analyzer/compile`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct CompileParams {
    text_document: TextDocumentIdentifier,
    /// The entry point (default: the file's first `[shader]` function).
    entry_point: Option<String>,
    /// wgsl, spirv, glsl, hlsl or msl.
    target: String,
}

/// A generated virtual document.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct GeneratedDocument {
    /// A URI for the editor to show it under.
    uri: String,
    language_id: String,
    text: String,
}

impl Backend {
    /// `slang-analyzer/derivative`: the derivative of the function at the
    /// position (named there, or enclosing it): its signatures and the
    /// generated code.
    async fn derivative(&self, params: DerivativeParams) -> Result<GeneratedDocument> {
        let st = self.state.clone();
        let uri = params.text_document.uri.clone();
        let passes = params.mode.as_deref() == Some("passes");
        let modes: Vec<slang_analysis::autodiff::Mode> = match params.mode.as_deref() {
            Some("fwd") => vec![slang_analysis::autodiff::Mode::Forward],
            Some("bwd" | "passes") => vec![slang_analysis::autodiff::Mode::Backward],
            None | Some("both") => {
                vec![slang_analysis::autodiff::Mode::Forward, slang_analysis::autodiff::Mode::Backward]
            }
            Some(m) => return Err(Error::invalid_params(format!("unknown mode `{m}` (fwd, bwd, both or passes)"))),
        };
        let r = on_snapshot(&self.state, &uri, move |db, file, _text, enc| {
            let offset = LineIndex::of(db, file, enc).text_size(params.position);
            let def = ide::function_at(db, file, offset).ok_or_else(|| "no function at this position".to_string())?;
            let name = slang_analysis::infer::item_of(db, def).and_then(|i| i.name.clone()).unwrap_or_default();
            if slang_analysis::autodiff::fn_differentiability(db, file, def)
                == slang_analysis::autodiff::Differentiability::No
            {
                return Err(format!("`{name}` is not differentiable: mark it `[Differentiable]`"));
            }
            if passes {
                // The backward derivative's IR after each reverse-mode pass.
                let mut out = format!("// Reverse-mode passes of `{name}` ({})\n", def.file(db).path(db));
                match slang_codegen::backward_derivative_passes_text(db, def) {
                    Ok(text) => out.push_str(&text),
                    Err(errors) => {
                        for e in errors {
                            out.push_str(&format!("// no reverse-mode passes: {}\n", e.message));
                        }
                    }
                }
                return Ok((name, out));
            }
            let mut out = format!(
                "// Derivatives of `{name}` ({})
",
                def.file(db).path(db)
            );
            for &m in &modes {
                let sig = slang_analysis::autodiff::derivative_signature(db, def, m);
                out.push_str(&format!(
                    "
// {}({name})
{sig};
",
                    m.operator()
                ));
                match st.generator.derivative(db, def, m) {
                    Ok(code) => out.push_str(&code),
                    Err(e) => out.push_str(&format!(
                        "// generated code: {e}
"
                    )),
                }
            }
            Ok((name, out))
        })
        .await?;
        match r {
            Some(Ok((name, text))) => Ok(GeneratedDocument {
                // (The passes in a document of their own, beside the
                // derivative's.)
                uri: format!("slang-analyzer:/{}/{name}.slang", if passes { "passes" } else { "derivative" }),
                language_id: "slang".to_string(),
                text,
            }),
            Some(Err(e)) => Err(Error::invalid_params(e)),
            None => Err(Error::invalid_params("the document is not open".to_string())),
        }
    }

    /// `slang-analyzer/compile`: target code of an entry point.
    async fn compile(&self, params: CompileParams) -> Result<GeneratedDocument> {
        let target = params.target.to_ascii_lowercase();
        if !["wgsl", "spirv", "glsl", "hlsl", "msl"].contains(&target.as_str()) {
            return Err(Error::invalid_params(format!("unknown target `{target}` (wgsl, spirv, glsl, hlsl or msl)")));
        }
        let st = self.state.clone();
        let entry = params.entry_point.clone();
        let t = target.clone();
        let r = on_snapshot(&self.state, &params.text_document.uri, move |db, file, _, _| {
            let entry = match entry.clone() {
                Some(e) => e,
                None => ide::entry_points(db, file)
                    .into_iter()
                    .next()
                    .ok_or_else(|| "this file has no entry point".to_string())?,
            };
            st.generator.compile(db, file, &entry, &t).map(|text| (entry, text))
        })
        .await?;
        match r {
            Some(Ok((entry, text))) => Ok(GeneratedDocument {
                uri: format!("slang-analyzer:/compile/{entry}.{target}"),
                language_id: target,
                text,
            }),
            Some(Err(e)) => Err(Error::invalid_params(e)),
            None => Err(Error::invalid_params("the document is not open".to_string())),
        }
    }
}

fn flatten(data: &[SemanticToken]) -> Vec<u32> {
    data.iter().flat_map(|t| [t.delta_line, t.delta_start, t.length, t.token_type, t.token_modifiers_bitset]).collect()
}

fn symbol_kind(kind: slang_analysis::ItemKind) -> SymbolKind {
    use slang_analysis::ItemKind as I;
    match kind {
        I::Fn => SymbolKind::FUNCTION,
        I::Struct | I::Class => SymbolKind::STRUCT,
        I::Interface => SymbolKind::INTERFACE,
        I::Enum => SymbolKind::ENUM,
        I::Namespace => SymbolKind::NAMESPACE,
        I::Var => SymbolKind::FIELD,
        _ => SymbolKind::OBJECT,
    }
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written out.
fn lsp_symbols(li: &LineIndex, syms: Vec<ide::DocumentSymbol>) -> Vec<DocumentSymbol> {
    syms.into_iter()
        .map(|s| DocumentSymbol {
            name: s.name,
            detail: s.detail.map(|d| d.replace('\n', " ")),
            kind: symbol_kind(s.kind),
            tags: None,
            deprecated: None,
            range: li.range(s.range),
            selection_range: li.range(s.selection_range),
            children: Some(lsp_symbols(li, s.children)),
        })
        .collect()
}

fn completion_kind(k: ide::CompletionKind) -> CompletionItemKind {
    match k {
        ide::CompletionKind::Local => CompletionItemKind::VARIABLE,
        ide::CompletionKind::Function => CompletionItemKind::FUNCTION,
        ide::CompletionKind::Method => CompletionItemKind::METHOD,
        ide::CompletionKind::Field => CompletionItemKind::FIELD,
        ide::CompletionKind::Type => CompletionItemKind::STRUCT,
        ide::CompletionKind::Keyword => CompletionItemKind::KEYWORD,
        ide::CompletionKind::Attribute => CompletionItemKind::PROPERTY,
        ide::CompletionKind::Swizzle => CompletionItemKind::FIELD,
        ide::CompletionKind::Other => CompletionItemKind::TEXT,
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        // UTF-8 positions when the client offers them.
        let offered = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .is_some_and(|e| e.contains(&PositionEncodingKind::UTF8));
        let encoding = if offered { Encoding::Utf8 } else { Encoding::Utf16 };
        let _ = self.state.encoding.set(encoding);
        let caps = &params.capabilities;
        let ws = caps.workspace.as_ref();
        let _ = self.state.client.set(ClientFlags {
            configuration: ws.and_then(|w| w.configuration).unwrap_or(false),
            work_done_progress: caps.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
            watch_files: ws
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            pull_diagnostics: caps.text_document.as_ref().is_some_and(|t| t.diagnostic.is_some()),
            diagnostic_refresh: ws.and_then(|w| w.diagnostic.as_ref()).and_then(|d| d.refresh_support).unwrap_or(false),
        });
        let mut roots: Vec<PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned()))
            .collect();
        #[allow(deprecated)] // Older clients send only `rootUri`.
        if roots.is_empty() {
            roots.extend(params.root_uri.as_ref().and_then(|u| u.to_file_path()).map(|p| p.into_owned()));
        }
        *self.state.roots.lock().unwrap() = roots;
        if let Some(opts) = &params.initialization_options {
            self.state.settings.lock().unwrap().update(opts);
        }
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "slang-analyzer".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            capabilities: ServerCapabilities {
                position_encoding: Some(match encoding {
                    Encoding::Utf8 => PositionEncodingKind::UTF8,
                    Encoding::Utf16 => PositionEncodingKind::UTF16,
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::INCREMENTAL)),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![".".to_string(), "[".to_string(), ":".to_string(), "\"".to_string()]),
                    resolve_provider: Some(true),
                    ..Default::default()
                }),
                code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                    code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::REFACTOR]),
                    ..Default::default()
                })),
                workspace: Some(WorkspaceServerCapabilities {
                    workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                        supported: Some(true),
                        change_notifications: None,
                    }),
                    file_operations: None,
                }),
                definition_provider: Some(OneOf::Left(true)),
                declaration_provider: Some(DeclarationCapability::Simple(true)),
                type_definition_provider: Some(TypeDefinitionProviderCapability::Simple(true)),
                implementation_provider: Some(ImplementationProviderCapability::Simple(true)),
                references_provider: Some(OneOf::Left(true)),
                document_highlight_provider: Some(OneOf::Left(true)),
                rename_provider: Some(OneOf::Right(RenameOptions {
                    prepare_provider: Some(true),
                    work_done_progress_options: Default::default(),
                })),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
                    SemanticTokensOptions {
                        legend: SemanticTokensLegend {
                            token_types: ide::TOKEN_KINDS.iter().map(|k| SemanticTokenType::new(k)).collect(),
                            token_modifiers: ide::TOKEN_MODIFIERS
                                .iter()
                                .map(|m| SemanticTokenModifier::new(m))
                                .collect(),
                        },
                        range: Some(true),
                        full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
                        work_done_progress_options: Default::default(),
                    },
                )),
                inlay_hint_provider: Some(OneOf::Left(true)),
                signature_help_provider: Some(SignatureHelpOptions {
                    trigger_characters: Some(vec!["(".to_string(), ",".to_string()]),
                    retrigger_characters: Some(vec![")".to_string()]),
                    work_done_progress_options: Default::default(),
                }),
                document_formatting_provider: Some(OneOf::Left(true)),
                document_range_formatting_provider: Some(OneOf::Left(true)),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                // Offered to clients that pull (they are not pushed
                // diagnostics); the others are pushed them (and may still
                // ask with `textDocument/diagnostic`).
                diagnostic_provider: self.state.flags().pull_diagnostics.then(|| {
                    DiagnosticServerCapabilities::Options(DiagnosticOptions {
                        identifier: Some("slang-analyzer".to_string()),
                        inter_file_dependencies: true,
                        workspace_diagnostics: false,
                        ..Default::default()
                    })
                }),
                ..Default::default()
            },
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.pull_settings().await;
        self.apply_settings().await;
        if self.state.flags().watch_files {
            let watchers = ["**/*.slang", "**/*.slangh", "**/slang-analyzer.json", "**/slangdconfig.json"]
                .into_iter()
                .map(|g| FileSystemWatcher { glob_pattern: GlobPattern::String(g.to_string()), kind: None })
                .collect();
            let registration = Registration {
                id: "slang-analyzer/watch".to_string(),
                method: "workspace/didChangeWatchedFiles".to_string(),
                register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions { watchers }).ok(),
            };
            let _ = self.client.register_capability(vec![registration]).await;
        }
        self.index_workspace().await;
        self.refresh_all();
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        // Clients send the settings, or nothing and expect a pull.
        if params.settings.is_object() && params.settings.as_object().is_some_and(|o| !o.is_empty()) {
            self.state.settings.lock().unwrap().update(&params.settings);
        } else {
            self.pull_settings().await;
        }
        self.apply_settings().await;
        self.refresh_all();
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let mut config_changed = false;
        for change in params.changes {
            let Some(path) = change.uri.to_file_path().map(|p| p.into_owned()) else { continue };
            if path.file_name().and_then(|n| n.to_str()).is_some_and(|n| config::CONFIG_FILES.contains(&n)) {
                config_changed = true;
                continue;
            }
            if !workspace::is_slang_file(&path) {
                continue;
            }
            let key = path.to_string_lossy().replace('\\', "/");
            if change.typ == FileChangeType::DELETED {
                if !self.state.is_open(&key) {
                    self.state.db.lock().unwrap().remove_file(&key);
                }
            } else {
                self.state.load_from_disk(&path);
            }
        }
        if config_changed {
            self.apply_settings().await;
        } else {
            let mut db = self.state.db.lock().unwrap();
            crate::cli_check::load_imports(&mut db);
        }
        self.refresh_all();
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let generation = self.state.set_text(&doc.uri, doc.version, doc.text);
        self.schedule_diagnostics(doc.uri, generation);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let Some(mut text) = self.state.docs.lock().unwrap().get(&uri).map(|d| d.text.to_string()) else { return };
        for change in params.content_changes {
            match change.range {
                Some(range) => {
                    let li = LineIndex::new(&text, self.state.encoding());
                    let (start, end) = (li.offset(range.start), li.offset(range.end));
                    let (start, end) = (start.min(end), start.max(end));
                    text.replace_range(start..end, &change.text);
                }
                None => text = change.text,
            }
        }
        let generation = self.state.set_text(&uri, params.text_document.version, text);
        self.schedule_diagnostics(uri, generation);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.state.docs.lock().unwrap().remove(&uri);
        self.state.compile_diagnostics.lock().unwrap().remove(&uri);
        self.state.tokens.lock().unwrap().remove(&uri);
        // The file on disk is what other files see now.
        if let Some(path) = uri.to_file_path() {
            self.state.load_from_disk(&path);
        }
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
        self.refresh_all();
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let p = params.text_document_position_params;
        let r = on_snapshot(&self.state, &p.text_document.uri, move |db, file, text, enc| {
            // On a macro's name: its definition (in the file's own offsets).
            let own = LineIndex::new(text, enc);
            if let Some(h) = ide::macro_hover(db, file, own.text_size(p.position)) {
                return Some(Hover {
                    contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: h.markdown }),
                    range: Some(own.range(h.range)),
                });
            }
            let li = LineIndex::of(db, file, enc);
            ide::hover(db, file, li.text_size(p.position)).map(|h| Hover {
                contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: h.markdown }),
                range: Some(li.range(h.range)),
            })
        })
        .await?;
        Ok(r.flatten())
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        self.navigate(params.text_document_position_params, ide::goto_definition).await
    }

    async fn goto_declaration(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        self.navigate(params.text_document_position_params, ide::goto_declaration).await
    }

    async fn goto_type_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        self.navigate(params.text_document_position_params, ide::goto_type_definition).await
    }

    async fn goto_implementation(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        self.navigate(params.text_document_position_params, ide::goto_implementation).await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let p = params.text_document_position;
        let include = params.context.include_declaration;
        let st = self.state.clone();
        let r = on_snapshot(&self.state, &p.text_document.uri.clone(), move |db, file, text, enc| {
            // A macro's uses (in the files' own offsets).
            if let Some(refs) =
                ide::macro_references(db, file, LineIndex::new(text, enc).text_size(p.position), include)
            {
                return refs
                    .into_iter()
                    .filter_map(|r| {
                        let uri = st.uri_of(r.file.path(db))?;
                        Some(Location { uri, range: LineIndex::new(r.file.text(db), enc).range(r.range) })
                    })
                    .collect::<Vec<_>>();
            }
            let li = LineIndex::of(db, file, enc);
            ide::find_references(db, file, li.text_size(p.position), include)
                .into_iter()
                .filter_map(|r| {
                    let uri = st.uri_of(r.file.path(db))?;
                    Some(Location { uri, range: LineIndex::of(db, r.file, enc).range(r.range) })
                })
                .collect::<Vec<_>>()
        })
        .await?;
        Ok(r.filter(|v| !v.is_empty()))
    }

    async fn document_highlight(&self, params: DocumentHighlightParams) -> Result<Option<Vec<DocumentHighlight>>> {
        let p = params.text_document_position_params;
        let r = on_snapshot(&self.state, &p.text_document.uri.clone(), move |db, file, _text, enc| {
            let li = LineIndex::of(db, file, enc);
            ide::document_highlights(db, file, li.text_size(p.position))
                .into_iter()
                .map(|(range, kind)| DocumentHighlight {
                    range: li.range(range),
                    kind: Some(match kind {
                        ide::HighlightKind::Read => DocumentHighlightKind::READ,
                        ide::HighlightKind::Write => DocumentHighlightKind::WRITE,
                        ide::HighlightKind::Text => DocumentHighlightKind::TEXT,
                    }),
                })
                .collect::<Vec<_>>()
        })
        .await?;
        Ok(r.filter(|v| !v.is_empty()))
    }

    async fn prepare_rename(&self, params: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
        let r = on_snapshot(&self.state, &params.text_document.uri.clone(), move |db, file, _text, enc| {
            let li = LineIndex::of(db, file, enc);
            ide::prepare_rename(db, file, li.text_size(params.position)).map(|r| li.range(r))
        })
        .await?;
        match r {
            Some(Ok(range)) => Ok(Some(PrepareRenameResponse::Range(range))),
            Some(Err(why)) => Err(Error::invalid_params(why)),
            None => Ok(None),
        }
    }

    #[allow(clippy::mutable_key_type)] // See `code_action`.
    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let p = params.text_document_position;
        let st = self.state.clone();
        let r = on_snapshot(&self.state, &p.text_document.uri.clone(), move |db, file, _text, enc| {
            let li = LineIndex::of(db, file, enc);
            ide::rename(db, file, li.text_size(p.position), &params.new_name).and_then(|edits| {
                let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
                for (f, range, new_text) in edits {
                    let Some(uri) = st.uri_of(f.path(db)) else { continue };
                    let fli = LineIndex::of(db, f, enc);
                    if !fli.is_exact(range) {
                        // A use spelled inside a macro's body: renaming it
                        // would rewrite the macro's use, not the name.
                        return Err(format!(
                            "cannot rename: a use in {} comes from a macro's expansion",
                            f.path(db).rsplit('/').next().unwrap_or_default()
                        ));
                    }
                    changes.entry(uri).or_default().push(TextEdit { range: fli.range(range), new_text });
                }
                Ok(changes)
            })
        })
        .await?;
        match r {
            Some(Ok(changes)) => Ok(Some(WorkspaceEdit { changes: Some(changes), ..Default::default() })),
            Some(Err(why)) => Err(Error::invalid_params(why)),
            None => Ok(None),
        }
    }

    async fn semantic_tokens_full(&self, params: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
        let uri = params.text_document.uri;
        let Some(data) = self.token_data(&uri, None).await? else { return Ok(None) };
        let id = self.remember_tokens(&uri, &data);
        Ok(Some(SemanticTokensResult::Tokens(SemanticTokens { result_id: Some(id), data })))
    }

    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        let uri = params.text_document.uri;
        let Some(data) = self.token_data(&uri, None).await? else { return Ok(None) };
        let previous = self.state.tokens.lock().unwrap().get(&uri).cloned();
        let id = self.remember_tokens(&uri, &data);
        let flat: Vec<u32> = flatten(&data);
        match previous {
            Some((prev_id, prev)) if prev_id == params.previous_result_id => {
                let prefix = prev.iter().zip(&flat).take_while(|(a, b)| a == b).count() / 5 * 5;
                let suffix =
                    prev[prefix..].iter().rev().zip(flat[prefix..].iter().rev()).take_while(|(a, b)| a == b).count()
                        / 5
                        * 5;
                let edits = if prefix == prev.len() && prefix == flat.len() {
                    Vec::new()
                } else {
                    vec![SemanticTokensEdit {
                        start: prefix as u32,
                        delete_count: (prev.len() - prefix - suffix) as u32,
                        data: Some(data[prefix / 5..data.len() - suffix / 5].to_vec()),
                    }]
                };
                Ok(Some(SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta { result_id: Some(id), edits })))
            }
            _ => Ok(Some(SemanticTokensFullDeltaResult::Tokens(SemanticTokens { result_id: Some(id), data }))),
        }
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        let data = self.token_data(&params.text_document.uri, Some(params.range)).await?;
        Ok(data.map(|data| SemanticTokensRangeResult::Tokens(SemanticTokens { result_id: None, data })))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let cfg = {
            let c = self.state.config.lock().unwrap();
            ide::InlayConfig {
                types: c.inlay_types,
                parameter_names: c.inlay_parameter_names,
                derivative_signatures: c.inlay_derivative_signatures,
            }
        };
        let range = params.range;
        let r = on_snapshot(&self.state, &params.text_document.uri, move |db, file, _text, enc| {
            let li = LineIndex::of(db, file, enc);
            let range = li.text_range(range);
            ide::inlay_hints(db, file, range, &cfg)
                .into_iter()
                // None inside a macro's expansion (it is not on screen).
                .filter(|h| li.is_exact(slang_analysis::TextRange::empty(h.offset)))
                .map(|h| InlayHint {
                    position: li.position(h.offset.into()),
                    label: InlayHintLabel::String(h.label),
                    kind: match h.kind {
                        ide::InlayKind::Type | ide::InlayKind::Derivative => Some(InlayHintKind::TYPE),
                        ide::InlayKind::Parameter => Some(InlayHintKind::PARAMETER),
                    },
                    text_edits: None,
                    tooltip: None,
                    padding_left: Some(h.padding_left),
                    padding_right: Some(h.padding_right),
                    data: None,
                })
                .collect::<Vec<_>>()
        })
        .await?;
        Ok(r)
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        let p = params.text_document_position_params;
        let r = on_snapshot(&self.state, &p.text_document.uri, move |db, file, _text, enc| {
            let li = LineIndex::of(db, file, enc);
            let help = ide::signature_help(db, file, li.text_size(p.position))?;
            let units = |s: &str| match enc {
                Encoding::Utf8 => s.len() as u32,
                Encoding::Utf16 => s.encode_utf16().count() as u32,
            };
            let signatures = help
                .signatures
                .into_iter()
                .map(|sig| {
                    let parameters = sig
                        .params
                        .iter()
                        .map(|&(a, b)| ParameterInformation {
                            label: ParameterLabel::LabelOffsets([
                                units(&sig.label[..a as usize]),
                                units(&sig.label[..b as usize]),
                            ]),
                            documentation: None,
                        })
                        .collect();
                    SignatureInformation {
                        documentation: sig.doc.map(|d| {
                            Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: d })
                        }),
                        label: sig.label,
                        parameters: Some(parameters),
                        active_parameter: None,
                    }
                })
                .collect();
            Some(SignatureHelp {
                signatures,
                active_signature: Some(help.active_signature as u32),
                active_parameter: Some(help.active_parameter as u32),
            })
        })
        .await?;
        Ok(r.flatten())
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.format(params.text_document.uri, params.options, None).await
    }

    async fn range_formatting(&self, params: DocumentRangeFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.format(params.text_document.uri, params.options, Some(params.range)).await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        let r = on_snapshot(&self.state, &params.text_document.uri, |db, file, text, enc| {
            let li = LineIndex::new(text, enc);
            let root = slang_analysis::source_parse(db, file).syntax_node();
            slang_syntax::folding::folding_ranges(&root, text)
                .into_iter()
                .filter_map(|f| {
                    let (start, end) = (li.position(f.range.start().into()), li.position(f.range.end().into()));
                    // Blocks keep the line of their closer (`}`, `#endif`)
                    // visible.
                    let last_line = text[..usize::from(f.range.end())].rsplit('\n').next().unwrap_or("");
                    let closer = last_line.trim_start().starts_with(['}', ')', ']', '#']);
                    let end_line = if closer { end.line.saturating_sub(1) } else { end.line };
                    (end_line > start.line).then_some(FoldingRange {
                        start_line: start.line,
                        start_character: None,
                        end_line,
                        end_character: None,
                        kind: Some(match f.kind {
                            slang_syntax::folding::FoldKind::Region => FoldingRangeKind::Region,
                            slang_syntax::folding::FoldKind::Comment => FoldingRangeKind::Comment,
                            slang_syntax::folding::FoldKind::Imports => FoldingRangeKind::Imports,
                        }),
                        collapsed_text: None,
                    })
                })
                .collect::<Vec<_>>()
        })
        .await?;
        Ok(r)
    }

    async fn selection_range(&self, params: SelectionRangeParams) -> Result<Option<Vec<SelectionRange>>> {
        let positions = params.positions;
        let r = on_snapshot(&self.state, &params.text_document.uri, move |db, file, text, enc| {
            let li = LineIndex::new(text, enc);
            let root = slang_analysis::source_parse(db, file).syntax_node();
            positions
                .iter()
                .map(|&p| {
                    let ranges = slang_syntax::selection::selection_ranges(&root, li.text_size(p));
                    // Outermost first, each the parent of the next.
                    let mut sel: Option<SelectionRange> = None;
                    for r in ranges.iter().rev() {
                        sel = Some(SelectionRange { range: li.range(*r), parent: sel.map(Box::new) });
                    }
                    sel.unwrap_or(SelectionRange { range: Range { start: p, end: p }, parent: None })
                })
                .collect::<Vec<_>>()
        })
        .await?;
        Ok(r)
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<OneOf<Vec<SymbolInformation>, Vec<WorkspaceSymbol>>>> {
        let db = self.state.db.lock().unwrap().clone();
        let enc = self.state.encoding();
        let st = self.state.clone();
        let task = tokio::task::spawn_blocking(move || {
            slang_analysis::Cancelled::catch(AssertUnwindSafe(|| {
                ide::workspace_symbols(&db, &params.query)
                    .into_iter()
                    .filter_map(|s| {
                        let uri = st.uri_of(s.file.path(&db))?;
                        let range = LineIndex::of(&db, s.file, enc).range(s.focus_range);
                        #[allow(deprecated)] // `deprecated` must be written out.
                        Some(SymbolInformation {
                            name: s.name,
                            kind: symbol_kind(s.kind),
                            tags: None,
                            deprecated: None,
                            location: Location { uri, range },
                            container_name: s.container,
                        })
                    })
                    .collect::<Vec<_>>()
            }))
        });
        match task.await {
            Ok(Ok(v)) => Ok(Some(OneOf::Left(v))),
            Ok(Err(_)) => Err(Error::content_modified()),
            Err(e) => Err(Error {
                code: tower_lsp_server::jsonrpc::ErrorCode::InternalError,
                message: e.to_string().into(),
                data: None,
            }),
        }
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        let r = on_snapshot(&self.state, &params.text_document.uri, |db, file, _text, enc| {
            let li = LineIndex::of(db, file, enc);
            lsp_symbols(&li, ide::document_symbols(db, file))
        })
        .await?;
        Ok(r.map(DocumentSymbolResponse::Nested))
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let p = params.text_document_position;
        let uri = p.text_document.uri.clone();
        let r = on_snapshot(&self.state, &uri, move |db, file, _text, enc| {
            let li = LineIndex::of(db, file, enc);
            ide::completions(db, file, li.text_size(p.position))
                .into_iter()
                .map(|c| CompletionItem {
                    sort_text: Some(format!("{}{}", c.rank, c.label)),
                    kind: Some(completion_kind(c.kind)),
                    detail: c.detail,
                    insert_text_format: c.snippet.as_ref().map(|_| InsertTextFormat::SNIPPET),
                    insert_text: c.snippet,
                    label: c.label,
                    // Where the declaration is, for `completionItem/resolve`.
                    data: c.def.map(|d| {
                        serde_json::json!({"path": d.file(db).path(db), "index": d.ast_index(db), "uri": p.text_document.uri.as_str()})
                    }),
                    ..Default::default()
                })
                .collect::<Vec<_>>()
        })
        .await?;
        Ok(r.map(CompletionResponse::Array))
    }

    async fn completion_resolve(&self, mut item: CompletionItem) -> Result<CompletionItem> {
        let data = item.data.clone().unwrap_or_default();
        let (Some(path), Some(index), Some(uri)) = (
            data.get("path").and_then(|v| v.as_str()).map(str::to_string),
            data.get("index").and_then(|v| v.as_u64()),
            data.get("uri").and_then(|v| v.as_str()).and_then(|u| u.parse::<Uri>().ok()),
        ) else {
            return Ok(item);
        };
        let docs = on_snapshot(&self.state, &uri, move |db, _, _, _| {
            let file = db.file_by_path(&path)?;
            let def = slang_analysis::hir::DefId::new(db, file, index as u32);
            ide::completion_docs(db, def)
        })
        .await?
        .flatten();
        if let Some(md) = docs {
            item.documentation =
                Some(Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: md }));
        }
        Ok(item)
    }

    // `Uri` caches its parsed parts inside (clippy's "mutable key"); its
    // hash and equality are the text's.
    #[allow(clippy::mutable_key_type)]
    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri.clone();
        let st = self.state.clone();
        let range = params.range;
        let context = params.context.diagnostics;
        let r = on_snapshot(&self.state, &uri, move |db, file, _text, enc| {
            let li = LineIndex::of(db, file, enc);
            ide::assists(db, file, li.text_range(range))
                .into_iter()
                // No edit of a macro's expansion (it would rewrite the use).
                .filter(|a| a.edits.iter().all(|e| LineIndex::of(db, e.file, enc).is_exact(e.range)))
                .map(|a| {
                    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
                    for e in &a.edits {
                        let Some(uri) = st.uri_of(e.file.path(db)) else { continue };
                        let eli = LineIndex::of(db, e.file, enc);
                        changes
                            .entry(uri)
                            .or_default()
                            .push(TextEdit { range: eli.range(e.range), new_text: e.text.clone() });
                    }
                    let fixed: Vec<tower_lsp_server::lsp_types::Diagnostic> = a
                        .fixes
                        .map(|(r, code)| {
                            let lr = li.range(r);
                            context
                                .iter()
                                .filter(|d| {
                                    d.range == lr && d.code.as_ref() == Some(&NumberOrString::String(code.to_string()))
                                })
                                .cloned()
                                .collect()
                        })
                        .unwrap_or_default();
                    CodeActionOrCommand::CodeAction(CodeAction {
                        title: a.title,
                        kind: Some(match a.kind {
                            ide::AssistKind::QuickFix => CodeActionKind::QUICKFIX,
                            ide::AssistKind::Refactor => CodeActionKind::REFACTOR,
                        }),
                        diagnostics: (!fixed.is_empty()).then_some(fixed),
                        edit: Some(WorkspaceEdit { changes: Some(changes), ..Default::default() }),
                        ..Default::default()
                    })
                })
                .collect::<Vec<_>>()
        })
        .await?;
        Ok(r.filter(|v| !v.is_empty()))
    }

    async fn diagnostic(&self, params: DocumentDiagnosticParams) -> Result<DocumentDiagnosticReportResult> {
        let items = all_diagnostics(&self.state, &params.text_document.uri).await?.unwrap_or_default();
        Ok(DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(
            RelatedFullDocumentDiagnosticReport {
                related_documents: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport { result_id: None, items },
            },
        )))
    }
}

/// `slang-analyzer` / `slang-analyzer lsp`: serve LSP on stdin/stdout.
pub fn run() -> ExitCode {
    // Few blocking threads: each keeps its own allocator heap, and analyses
    // are CPU-bound (more threads than cores only add memory).
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(4)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("slang-analyzer: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    runtime.block_on(async {
        let (service, socket) = LspService::build(|client| Backend { client, state: Arc::new(State::default()) })
            .custom_method("slang-analyzer/derivative", Backend::derivative)
            .custom_method("slang-analyzer/compile", Backend::compile)
            .finish();
        // stdin → filter → service → merge → stdout (see `framing`).
        let (to_service, service_in) = tokio::io::duplex(1 << 20);
        let (service_out, from_service) = tokio::io::duplex(1 << 20);
        let (replies_tx, replies_rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(framing::filter_input(tokio::io::stdin(), to_service, replies_tx));
        let output = tokio::spawn(framing::merge_output(from_service, replies_rx, tokio::io::stdout()));
        Server::new(service_in, service_out, socket).serve(service).await;
        let _ = tokio::time::timeout(Duration::from_secs(2), output).await;
    });
    // Do not wait for a blocked stdin read or running analyses.
    runtime.shutdown_timeout(Duration::from_millis(100));
    ExitCode::SUCCESS
}
