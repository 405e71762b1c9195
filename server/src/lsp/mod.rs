//! The language server: LSP over stdio on tower-lsp-server and tokio.
//!
//! One writer: every edit goes through `State::db` under its lock, in the
//! order the client sent it (notification handlers apply their change
//! before their first `.await`). Requests clone the database (a salsa
//! snapshot) and run on the blocking pool; an edit cancels the snapshots
//! still running (salsa unwinds them with `Cancelled`, answered as
//! "content modified"), and a panic in a feature answers that request with
//! an internal error instead of ending the server.

mod framing;
mod line_index;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use slang_analysis::{ide, RootDatabase, Severity, SourceFile};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::lsp_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server, UriExt};

use line_index::{Encoding, LineIndex};

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

#[derive(Default)]
struct State {
    db: Mutex<RootDatabase>,
    docs: Mutex<HashMap<Uri, Doc>>,
    encoding: OnceLock<Encoding>,
    generation: AtomicU64,
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
    fn snapshot(&self, uri: &Uri) -> Option<(RootDatabase, SourceFile, Arc<String>)> {
        let (file, text) = {
            let docs = self.docs.lock().unwrap();
            let d = docs.get(uri)?;
            (d.file, d.text.clone())
        };
        let db = self.db.lock().unwrap().clone();
        Some((db, file, text))
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

/// Runs `f` on a snapshot on the blocking pool: cancelled by edits
/// (content modified), panics answered as internal errors.
async fn on_snapshot<T: Send + 'static>(
    state: &Arc<State>,
    uri: &Uri,
    f: impl FnOnce(&RootDatabase, SourceFile, &str, Encoding) -> T + Send + 'static,
) -> Result<Option<T>> {
    let Some((db, file, text)) = state.snapshot(uri) else { return Ok(None) };
    let encoding = state.encoding();
    let task = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            slang_analysis::Cancelled::catch(AssertUnwindSafe(|| f(&db, file, &text, encoding)))
        }))
    });
    let internal = |what: String| {
        let mut e = Error::internal_error();
        e.message = format!("slang-analyzer: internal error: {what}").into();
        e
    };
    match task.await {
        Ok(Ok(Ok(v))) => Ok(Some(v)),
        Ok(Ok(Err(_cancelled))) => Err(Error::content_modified()),
        Ok(Err(panic)) => Err(internal(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        )),
        Err(e) => Err(internal(e.to_string())),
    }
}

fn to_lsp_diagnostics(
    db: &RootDatabase,
    file: SourceFile,
    text: &str,
    encoding: Encoding,
) -> Vec<tower_lsp_server::lsp_types::Diagnostic> {
    let li = LineIndex::new(text, encoding);
    slang_analysis::file_diagnostics(db, file)
        .iter()
        .map(|d| tower_lsp_server::lsp_types::Diagnostic {
            range: li.range(d.range),
            severity: Some(match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
            }),
            code: Some(NumberOrString::String(d.code.to_string())),
            source: Some("slang-analyzer".to_string()),
            message: d.message.clone(),
            tags: match d.code {
                "unused-variable" => Some(vec![DiagnosticTag::UNNECESSARY]),
                "unreachable-code" => Some(vec![DiagnosticTag::UNNECESSARY]),
                _ => None,
            },
            ..Default::default()
        })
        .collect()
}

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
            let Ok(Some(diags)) = on_snapshot(&state, &uri, to_lsp_diagnostics).await else { return };
            let Some((g, version)) = current(&state) else { return };
            if g == generation {
                client.publish_diagnostics(uri, diags, Some(version)).await;
            }
        });
    }
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
                    trigger_characters: Some(vec![".".to_string(), "[".to_string()]),
                    ..Default::default()
                }),
                definition_provider: Some(OneOf::Left(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                diagnostic_provider: Some(DiagnosticServerCapabilities::Options(DiagnosticOptions {
                    identifier: Some("slang-analyzer".to_string()),
                    inter_file_dependencies: true,
                    workspace_diagnostics: false,
                    ..Default::default()
                })),
                ..Default::default()
            },
        })
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
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
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let p = params.text_document_position_params;
        let r = on_snapshot(&self.state, &p.text_document.uri, move |db, file, text, enc| {
            let li = LineIndex::new(text, enc);
            ide::hover(db, file, li.text_size(p.position)).map(|h| Hover {
                contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: h.markdown }),
                range: Some(li.range(h.range)),
            })
        })
        .await?;
        Ok(r.flatten())
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        let p = params.text_document_position_params;
        let r = on_snapshot(&self.state, &p.text_document.uri, move |db, file, text, enc| {
            let li = LineIndex::new(text, enc);
            let targets = ide::goto_definition(db, file, li.text_size(p.position));
            targets
                .into_iter()
                .map(|t| (t.file.path(db).clone(), LineIndex::new(t.file.text(db), enc).range(t.focus_range)))
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

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        let r = on_snapshot(&self.state, &params.text_document.uri, |db, file, text, enc| {
            let li = LineIndex::new(text, enc);
            lsp_symbols(&li, ide::document_symbols(db, file))
        })
        .await?;
        Ok(r.map(DocumentSymbolResponse::Nested))
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let p = params.text_document_position;
        let r = on_snapshot(&self.state, &p.text_document.uri, move |db, file, text, enc| {
            let li = LineIndex::new(text, enc);
            ide::completions(db, file, li.text_size(p.position))
                .into_iter()
                .map(|c| CompletionItem {
                    sort_text: Some(format!("{}{}", c.rank, c.label)),
                    kind: Some(completion_kind(c.kind)),
                    detail: c.detail,
                    insert_text_format: c.snippet.as_ref().map(|_| InsertTextFormat::SNIPPET),
                    insert_text: c.snippet,
                    label: c.label,
                    ..Default::default()
                })
                .collect::<Vec<_>>()
        })
        .await?;
        Ok(r.map(CompletionResponse::Array))
    }

    async fn diagnostic(&self, params: DocumentDiagnosticParams) -> Result<DocumentDiagnosticReportResult> {
        let items = on_snapshot(&self.state, &params.text_document.uri, to_lsp_diagnostics).await?.unwrap_or_default();
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
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("slang-analyzer: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    runtime.block_on(async {
        let (service, socket) = LspService::new(|client| Backend { client, state: Arc::new(State::default()) });
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
