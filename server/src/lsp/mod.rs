//! The language server: LSP over stdio on tower-lsp-server and tokio.
//!
//! * [`global_state`]: the state ([`GlobalState`]: the database, the open
//!   documents, the settings) and [`global_state::on_snapshot`], which runs
//!   a feature on a database snapshot on the blocking pool.
//! * [`handlers`]: one function per request and notification; the
//!   [`LanguageServer`] implementation below only dispatches to them.
//! * [`capabilities`], [`from_proto`], [`to_proto`], [`line_index`]: the
//!   protocol's side (what is announced; LSP types to and from the IDE
//!   features' plain data; positions).
//! * [`diagnostics`]: pushed or pulled diagnostics and the compile worker.
//! * [`config`], [`workspace`], [`environment`]: settings, the workspace
//!   on disk and its Python packages (slangpy, slangtorch);
//!   [`framing`]: the guard between stdio and the service.
//!
//! One writer: every edit goes through the database lock, in the order the
//! client sent it (notification handlers apply their change before their
//! first `.await`). Requests clone the database (a salsa snapshot) and run
//! on the blocking pool; an edit cancels the snapshots still running
//! (salsa unwinds them with `Cancelled`, answered as "content modified"),
//! and a panic in a feature answers that request with an internal error
//! instead of ending the server.

mod capabilities;
mod config;
mod diagnostics;
mod environment;
mod framing;
mod from_proto;
mod global_state;
mod handlers;
mod line_index;
mod to_proto;
mod workspace;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use slang_analysis::ide;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::lsp_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server, UriExt};

use global_state::GlobalState;
use handlers::{notifications, requests};

pub struct Backend {
    client: Client,
    state: Arc<GlobalState>,
}

impl Backend {
    async fn derivative(&self, params: from_proto::DerivativeParams) -> Result<requests::GeneratedDocument> {
        requests::derivative(&self.state, params).await
    }

    async fn compile(&self, params: from_proto::CompileParams) -> Result<requests::GeneratedDocument> {
        requests::compile(&self.state, params).await
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let client = capabilities::client_caps(&params);
        self.state.set_client(client);
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
        {
            let mut settings = self.state.settings();
            settings.roots = roots;
            if let Some(opts) = &params.initialization_options {
                settings.editor.update(opts);
            }
        }
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "slang-analyzer".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            capabilities: capabilities::server_capabilities(self.state.client()),
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        notifications::initialized(self).await
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        notifications::did_change_configuration(self, params).await
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        notifications::did_change_watched_files(self, params).await
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        notifications::did_open(self, params).await
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        notifications::did_change(self, params).await
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        notifications::did_close(self, params).await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        requests::hover(&self.state, params).await
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        requests::navigate(&self.state, params.text_document_position_params, ide::goto_definition).await
    }

    async fn goto_declaration(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        requests::navigate(&self.state, params.text_document_position_params, ide::goto_declaration).await
    }

    async fn goto_type_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        requests::navigate(&self.state, params.text_document_position_params, ide::goto_type_definition).await
    }

    async fn goto_implementation(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        requests::navigate(&self.state, params.text_document_position_params, ide::goto_implementation).await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        requests::references(&self.state, params).await
    }

    async fn document_highlight(&self, params: DocumentHighlightParams) -> Result<Option<Vec<DocumentHighlight>>> {
        requests::document_highlight(&self.state, params).await
    }

    async fn prepare_rename(&self, params: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
        requests::prepare_rename(&self.state, params).await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        requests::rename(&self.state, params).await
    }

    async fn semantic_tokens_full(&self, params: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
        requests::semantic_tokens_full(&self.state, params).await
    }

    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        requests::semantic_tokens_full_delta(&self.state, params).await
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        requests::semantic_tokens_range(&self.state, params).await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        requests::inlay_hint(&self.state, params).await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        requests::code_lens(&self.state, params).await
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        requests::signature_help(&self.state, params).await
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        requests::format(&self.state, params.text_document.uri, params.options, None).await
    }

    async fn range_formatting(&self, params: DocumentRangeFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        requests::format(&self.state, params.text_document.uri, params.options, Some(params.range)).await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        requests::folding_range(&self.state, params).await
    }

    async fn selection_range(&self, params: SelectionRangeParams) -> Result<Option<Vec<SelectionRange>>> {
        requests::selection_range(&self.state, params).await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<OneOf<Vec<SymbolInformation>, Vec<WorkspaceSymbol>>>> {
        requests::workspace_symbol(&self.state, params).await
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        requests::document_symbol(&self.state, params).await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        requests::completion(&self.state, params).await
    }

    async fn completion_resolve(&self, item: CompletionItem) -> Result<CompletionItem> {
        requests::completion_resolve(&self.state, item).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        requests::code_action(&self.state, params).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        requests::execute_command(&self.state, &self.client, params).await
    }

    async fn diagnostic(&self, params: DocumentDiagnosticParams) -> Result<DocumentDiagnosticReportResult> {
        requests::diagnostic(&self.state, params).await
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
        let (service, socket) = LspService::build(|client| Backend { client, state: Arc::new(GlobalState::default()) })
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
