//! Capabilities: what the client offers (read once in `initialize`) and
//! what the server announces.

use tower_lsp_server::lsp_types::*;

use slang_analysis::ide;

use super::global_state::ClientCaps;
use super::line_index::Encoding;

/// What the client supports, from its `initialize` request.
pub fn client_caps(params: &InitializeParams) -> ClientCaps {
    let caps = &params.capabilities;
    // UTF-8 positions when the client offers them.
    let utf8 = caps
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref())
        .is_some_and(|e| e.contains(&PositionEncodingKind::UTF8));
    let ws = caps.workspace.as_ref();
    ClientCaps {
        encoding: if utf8 { Encoding::Utf8 } else { Encoding::Utf16 },
        configuration: ws.and_then(|w| w.configuration).unwrap_or(false),
        work_done_progress: caps.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
        watch_files: ws
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false),
        pull_diagnostics: caps.text_document.as_ref().is_some_and(|t| t.diagnostic.is_some()),
        diagnostic_refresh: ws.and_then(|w| w.diagnostic.as_ref()).and_then(|d| d.refresh_support).unwrap_or(false),
        code_lens_refresh: ws.and_then(|w| w.code_lens.as_ref()).and_then(|c| c.refresh_support).unwrap_or(false),
    }
}

/// What the server offers this client.
pub fn server_capabilities(client: ClientCaps) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match client.encoding {
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
                    token_modifiers: ide::TOKEN_MODIFIERS.iter().map(|m| SemanticTokenModifier::new(m)).collect(),
                },
                range: Some(true),
                full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
                work_done_progress_options: Default::default(),
            },
        )),
        inlay_hint_provider: Some(OneOf::Left(true)),
        code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![super::handlers::requests::CHECK_GRADIENTS.to_string()],
            work_done_progress_options: Default::default(),
        }),
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
        // Offered to clients that pull (they are not pushed diagnostics);
        // the others are pushed them (and may still ask with
        // `textDocument/diagnostic`).
        diagnostic_provider: client.pull_diagnostics.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some("slang-analyzer".to_string()),
                inter_file_dependencies: true,
                workspace_diagnostics: false,
                ..Default::default()
            })
        }),
        ..Default::default()
    }
}

/// The files the server asks the client to watch (when it can register
/// watchers): Slang sources and the workspace configuration files.
pub const WATCHED: &[&str] =
    &["**/*.slang", "**/*.slangh", "**/*.{vfx,hlsl,hlsli,fx}", "**/slang-analyzer.json", "**/slangdconfig.json"];
