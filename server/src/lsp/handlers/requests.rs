//! Request handlers: each converts the position or range in (through
//! [`LineIndex`]), calls its IDE function on a snapshot
//! ([`on_snapshot`]) and converts the plain result out ([`to_proto`]).
//!
//! Offsets: [`LineIndex::of`] for the semantic tree's (the macro-expanded
//! text's) offsets, which almost every feature takes; [`LineIndex::new`]
//! on the document's text for the syntax-level features (formatting,
//! folding, selection, semantic tokens) and the macro features
//! (`ide::macro_*`), which work in the file's own offsets.

use std::sync::Arc;

use slang_analysis::{ide, RootDatabase, SourceFile, TextSize};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::lsp_types::*;
use tower_lsp_server::UriExt;

use crate::generated::{self, DerivativeView};
use crate::lsp::diagnostics;
use crate::lsp::from_proto::{CompileParams, CompletionData, DerivativeParams};
use crate::lsp::global_state::{on_database, on_snapshot, GlobalState};
use crate::lsp::line_index::LineIndex;
use crate::lsp::to_proto;

type State = Arc<GlobalState>;

pub async fn hover(state: &State, params: HoverParams) -> Result<Option<Hover>> {
    let p = params.text_document_position_params;
    let r = on_snapshot(state, &p.text_document.uri, move |s| {
        // On a macro's name: its definition (in the file's own offsets).
        let own = LineIndex::new(&s.text, s.encoding);
        if let Some(h) = ide::macro_hover(&s.db, s.file, own.text_size(p.position)) {
            return Some(to_proto::hover(&own, h));
        }
        let li = LineIndex::of(&s.db, s.file, s.encoding);
        ide::hover(&s.db, s.file, li.text_size(p.position)).map(|h| to_proto::hover(&li, h))
    })
    .await?;
    Ok(r.flatten())
}

/// An IDE navigation function: definition, declaration, type definition
/// or implementation.
pub type NavFn = fn(&dyn slang_analysis::Db, SourceFile, TextSize) -> Vec<ide::NavTarget>;

/// Go to definition / declaration / type definition / implementation.
pub async fn navigate(
    state: &State,
    p: TextDocumentPositionParams,
    f: NavFn,
) -> Result<Option<GotoDefinitionResponse>> {
    let st = state.clone();
    let r = on_snapshot(state, &p.text_document.uri, move |s| {
        let (db, enc) = (&s.db, s.encoding);
        // On a macro's name: its `#define` (in the files' own offsets).
        if let Some(t) = ide::macro_definition(db, s.file, LineIndex::new(&s.text, enc).text_size(p.position)) {
            return to_proto::location(&st, db, t.file, t.focus_range, enc, true).into_iter().collect();
        }
        let li = LineIndex::of(db, s.file, enc);
        f(db, s.file, li.text_size(p.position))
            .into_iter()
            .filter_map(|t| to_proto::location(&st, db, t.file, t.focus_range, enc, false))
            .collect::<Vec<_>>()
    })
    .await?;
    let locations = r.unwrap_or_default();
    Ok((!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations)))
}

pub async fn references(state: &State, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
    let p = params.text_document_position;
    let include = params.context.include_declaration;
    let st = state.clone();
    let r = on_snapshot(state, &p.text_document.uri.clone(), move |s| {
        let (db, enc) = (&s.db, s.encoding);
        // A macro's uses (in the files' own offsets).
        if let Some(refs) =
            ide::macro_references(db, s.file, LineIndex::new(&s.text, enc).text_size(p.position), include)
        {
            return refs.into_iter().filter_map(|r| to_proto::location(&st, db, r.file, r.range, enc, true)).collect();
        }
        let li = LineIndex::of(db, s.file, enc);
        ide::find_references(db, s.file, li.text_size(p.position), include)
            .into_iter()
            .filter_map(|r| to_proto::location(&st, db, r.file, r.range, enc, false))
            .collect::<Vec<_>>()
    })
    .await?;
    Ok(r.filter(|v| !v.is_empty()))
}

pub async fn document_highlight(
    state: &State,
    params: DocumentHighlightParams,
) -> Result<Option<Vec<DocumentHighlight>>> {
    let p = params.text_document_position_params;
    let r = on_snapshot(state, &p.text_document.uri.clone(), move |s| {
        let li = LineIndex::of(&s.db, s.file, s.encoding);
        ide::document_highlights(&s.db, s.file, li.text_size(p.position))
            .into_iter()
            .map(|h| to_proto::highlight(&li, h))
            .collect::<Vec<_>>()
    })
    .await?;
    Ok(r.filter(|v| !v.is_empty()))
}

pub async fn prepare_rename(
    state: &State,
    params: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>> {
    let r = on_snapshot(state, &params.text_document.uri.clone(), move |s| {
        let li = LineIndex::of(&s.db, s.file, s.encoding);
        ide::prepare_rename(&s.db, s.file, li.text_size(params.position)).map(|r| li.range(r))
    })
    .await?;
    match r {
        Some(Ok(range)) => Ok(Some(PrepareRenameResponse::Range(range))),
        Some(Err(why)) => Err(Error::invalid_params(why)),
        None => Ok(None),
    }
}

pub async fn rename(state: &State, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let p = params.text_document_position;
    let st = state.clone();
    let r = on_snapshot(state, &p.text_document.uri.clone(), move |s| {
        let li = LineIndex::of(&s.db, s.file, s.encoding);
        ide::rename(&s.db, s.file, li.text_size(p.position), &params.new_name)
            .and_then(|edits| to_proto::rename_edit(&st, &s.db, edits, s.encoding))
    })
    .await?;
    match r {
        Some(Ok(changes)) => Ok(Some(WorkspaceEdit { changes: Some(changes), ..Default::default() })),
        Some(Err(why)) => Err(Error::invalid_params(why)),
        None => Ok(None),
    }
}

/// Semantic tokens of a document (or a range of it), LSP-encoded.
async fn token_data(state: &State, uri: &Uri, range: Option<Range>) -> Result<Option<Vec<SemanticToken>>> {
    on_snapshot(state, uri, move |s| {
        // (The tokens are given in the file's own offsets.)
        let li = LineIndex::new(&s.text, s.encoding);
        let range = range.map(|r| li.text_range(r));
        to_proto::semantic_tokens(&li, ide::semantic_tokens(&s.db, s.file, range))
    })
    .await
}

/// Remembers the tokens sent for `uri` (for deltas); returns their result
/// id and the tokens sent before.
fn remember_tokens(state: &State, uri: &Uri, data: &[SemanticToken]) -> (String, Option<(String, Vec<u32>)>) {
    let mut docs = state.docs();
    let id = docs.next_token_id();
    let previous = docs.open.get_mut(uri).and_then(|d| d.tokens.replace((id.clone(), to_proto::flatten_tokens(data))));
    (id, previous)
}

pub async fn semantic_tokens_full(state: &State, params: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
    let uri = params.text_document.uri;
    let Some(data) = token_data(state, &uri, None).await? else { return Ok(None) };
    let (id, _) = remember_tokens(state, &uri, &data);
    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens { result_id: Some(id), data })))
}

pub async fn semantic_tokens_full_delta(
    state: &State,
    params: SemanticTokensDeltaParams,
) -> Result<Option<SemanticTokensFullDeltaResult>> {
    let uri = params.text_document.uri;
    let Some(data) = token_data(state, &uri, None).await? else { return Ok(None) };
    let (id, previous) = remember_tokens(state, &uri, &data);
    Ok(Some(match previous {
        Some((prev_id, prev)) if prev_id == params.previous_result_id => {
            let edits = to_proto::semantic_tokens_edits(&prev, &data);
            SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta { result_id: Some(id), edits })
        }
        _ => SemanticTokensFullDeltaResult::Tokens(SemanticTokens { result_id: Some(id), data }),
    }))
}

pub async fn semantic_tokens_range(
    state: &State,
    params: SemanticTokensRangeParams,
) -> Result<Option<SemanticTokensRangeResult>> {
    let data = token_data(state, &params.text_document.uri, Some(params.range)).await?;
    Ok(data.map(|data| SemanticTokensRangeResult::Tokens(SemanticTokens { result_id: None, data })))
}

pub async fn inlay_hint(state: &State, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
    let cfg = {
        let c = &state.settings().effective;
        ide::InlayConfig {
            types: c.inlay_types,
            parameter_names: c.inlay_parameter_names,
            derivative_signatures: c.inlay_derivative_signatures,
        }
    };
    let range = params.range;
    on_snapshot(state, &params.text_document.uri, move |s| {
        let li = LineIndex::of(&s.db, s.file, s.encoding);
        ide::inlay_hints(&s.db, s.file, li.text_range(range), &cfg)
            .into_iter()
            // None inside a macro's expansion (it is not on screen).
            .filter(|h| li.is_exact(slang_analysis::TextRange::empty(h.offset)))
            .map(|h| to_proto::inlay_hint(&li, h))
            .collect::<Vec<_>>()
    })
    .await
}

pub async fn signature_help(state: &State, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
    let p = params.text_document_position_params;
    let r = on_snapshot(state, &p.text_document.uri, move |s| {
        let li = LineIndex::of(&s.db, s.file, s.encoding);
        let help = ide::signature_help(&s.db, s.file, li.text_size(p.position))?;
        Some(to_proto::signature_help(help, s.encoding))
    })
    .await?;
    Ok(r.flatten())
}

/// Document or range formatting: whitespace edits from the CST formatter.
pub async fn format(
    state: &State,
    uri: Uri,
    options: FormattingOptions,
    range: Option<Range>,
) -> Result<Option<Vec<TextEdit>>> {
    on_snapshot(state, &uri, move |s| {
        let li = LineIndex::new(&s.text, s.encoding);
        let root = slang_analysis::source_parse(&s.db, s.file).syntax_node();
        let opts = slang_syntax::format::FormatOptions {
            indent_width: options.tab_size.clamp(1, 16),
            use_tabs: !options.insert_spaces,
            ..Default::default()
        };
        let range = range.map(|r| li.text_range(r));
        slang_syntax::format::format_edits(&s.text, &root, &opts, range)
            .into_iter()
            .map(|(r, new_text)| TextEdit { range: li.range(r), new_text })
            .collect::<Vec<_>>()
    })
    .await
}

pub async fn folding_range(state: &State, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
    on_snapshot(state, &params.text_document.uri, |s| {
        let li = LineIndex::new(&s.text, s.encoding);
        let root = slang_analysis::source_parse(&s.db, s.file).syntax_node();
        slang_syntax::folding::folding_ranges(&root, &s.text)
            .into_iter()
            .filter_map(|f| to_proto::folding_range(&li, &s.text, f))
            .collect::<Vec<_>>()
    })
    .await
}

pub async fn selection_range(state: &State, params: SelectionRangeParams) -> Result<Option<Vec<SelectionRange>>> {
    let positions = params.positions;
    on_snapshot(state, &params.text_document.uri, move |s| {
        let li = LineIndex::new(&s.text, s.encoding);
        let root = slang_analysis::source_parse(&s.db, s.file).syntax_node();
        positions
            .iter()
            .map(|&p| {
                to_proto::selection_range(&li, &slang_syntax::selection::selection_ranges(&root, li.text_size(p)), p)
            })
            .collect::<Vec<_>>()
    })
    .await
}

pub async fn workspace_symbol(
    state: &State,
    params: WorkspaceSymbolParams,
) -> Result<Option<OneOf<Vec<SymbolInformation>, Vec<WorkspaceSymbol>>>> {
    let st = state.clone();
    let symbols = on_database(state, move |db, enc| {
        ide::workspace_symbols(db, &params.query)
            .into_iter()
            .filter_map(|s| to_proto::workspace_symbol(&st, db, s, enc))
            .collect::<Vec<_>>()
    })
    .await?;
    Ok(Some(OneOf::Left(symbols)))
}

pub async fn document_symbol(state: &State, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
    let r = on_snapshot(state, &params.text_document.uri, |s| {
        let li = LineIndex::of(&s.db, s.file, s.encoding);
        to_proto::document_symbols(&li, ide::document_symbols(&s.db, s.file))
    })
    .await?;
    Ok(r.map(DocumentSymbolResponse::Nested))
}

pub async fn completion(state: &State, params: CompletionParams) -> Result<Option<CompletionResponse>> {
    let p = params.text_document_position;
    let uri = p.text_document.uri.clone();
    let r = on_snapshot(state, &uri, move |s| {
        let li = LineIndex::of(&s.db, s.file, s.encoding);
        ide::completions(&s.db, s.file, li.text_size(p.position))
            .into_iter()
            .map(|c| to_proto::completion_item(&s.db, c, &p.text_document.uri))
            .collect::<Vec<_>>()
    })
    .await?;
    Ok(r.map(CompletionResponse::Array))
}

/// The documentation of a completion's declaration.
pub async fn completion_resolve(state: &State, mut item: CompletionItem) -> Result<CompletionItem> {
    let Some(data) = CompletionData::of(&item) else { return Ok(item) };
    let uri = data.uri.clone();
    let docs = on_snapshot(state, &uri, move |s| ide::completion_docs(&s.db, data.def(&s.db)?)).await?.flatten();
    if let Some(md) = docs {
        item.documentation = Some(Documentation::MarkupContent(to_proto::markdown(md)));
    }
    Ok(item)
}

pub async fn code_action(state: &State, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
    let st = state.clone();
    let range = params.range;
    let context = params.context.diagnostics;
    let uri = params.text_document.uri.clone();
    let r = on_snapshot(state, &params.text_document.uri, move |s| {
        let (db, enc) = (&s.db, s.encoding);
        let li = LineIndex::of(db, s.file, enc);
        let at = li.text_range(range);
        ide::assists(db, s.file, at)
            .into_iter()
            .chain(crate::checkpoints::measured_fixes(db, s.file, at))
            // No edit of a macro's expansion (it would rewrite the use).
            .filter(|a| a.edits.iter().all(|e| LineIndex::of(db, e.file, enc).is_exact(e.range)))
            .map(|a| to_proto::code_action(&st, db, &li, a, &context, enc))
            .chain(check_gradients_action(db, s.file, at.start(), &uri).map(CodeActionOrCommand::CodeAction))
            .collect::<Vec<_>>()
    })
    .await?;
    Ok(r.filter(|v| !v.is_empty()))
}

pub async fn diagnostic(state: &State, params: DocumentDiagnosticParams) -> Result<DocumentDiagnosticReportResult> {
    let items = diagnostics::all(state, &params.text_document.uri).await?.unwrap_or_default();
    Ok(DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
        related_documents: None,
        full_document_diagnostic_report: FullDocumentDiagnosticReport { result_id: None, items },
    })))
}

/// A generated virtual document (`slang-analyzer/derivative` and
/// `slang-analyzer/compile`).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GeneratedDocument {
    /// A URI for the editor to show it under.
    uri: String,
    language_id: String,
    text: String,
}

/// `slang-analyzer/derivative`: the derivative of the function at the
/// position (named there, or enclosing it): its signatures and the
/// generated code, or the reverse-mode passes.
pub async fn derivative(state: &State, params: DerivativeParams) -> Result<GeneratedDocument> {
    let view = DerivativeView::from_name(params.mode.as_deref()).map_err(Error::invalid_params)?;
    let r = on_snapshot(state, &params.text_document.uri, move |s| {
        let offset = LineIndex::of(&s.db, s.file, s.encoding).text_size(params.position);
        generated::derivative_document(&s.db, s.file, offset, view)
    })
    .await?;
    // (The passes in a document of their own, beside the derivative's.)
    let folder = if view == DerivativeView::Passes { "passes" } else { "derivative" };
    match r {
        Some(Ok(doc)) => Ok(GeneratedDocument {
            uri: format!("slang-analyzer:/{folder}/{}.slang", doc.name),
            language_id: "slang".to_string(),
            text: doc.text,
        }),
        Some(Err(e)) => Err(Error::invalid_params(e)),
        None => Err(Error::invalid_params("the document is not open".to_string())),
    }
}

/// `slang-analyzer/compile`: target code of an entry point.
pub async fn compile(state: &State, params: CompileParams) -> Result<GeneratedDocument> {
    let target = params.target.to_ascii_lowercase();
    if !["wgsl", "spirv", "glsl", "hlsl", "msl"].contains(&target.as_str()) {
        return Err(Error::invalid_params(format!("unknown target `{target}` (wgsl, spirv, glsl, hlsl or msl)")));
    }
    let (entry, t) = (params.entry_point, target.clone());
    let r = on_snapshot(state, &params.text_document.uri, move |s| {
        generated::compile_document(&s.db, s.file, entry.as_deref(), &t)
    })
    .await?;
    match r {
        Some(Ok(doc)) => Ok(GeneratedDocument {
            uri: format!("slang-analyzer:/compile/{}.{target}", doc.name),
            language_id: target,
            text: doc.text,
        }),
        Some(Err(e)) => Err(Error::invalid_params(e)),
        None => Err(Error::invalid_params("the document is not open".to_string())),
    }
}

/// The compile worker's last code lenses of the document.
pub async fn code_lens(state: &Arc<GlobalState>, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    Ok(state.docs().open.get(&params.text_document.uri).map(|d| d.code_lenses.clone()))
}

/// The command that checks a function's derivatives on the GPU
/// (`workspace/executeCommand`; arguments: the document's URI, then a
/// position in or on the function or its name).
pub const CHECK_GRADIENTS: &str = "slang.checkGradients";

/// The name of the function declared around `offset` (semantic-tree
/// offsets).
fn enclosing_function(db: &RootDatabase, file: SourceFile, offset: TextSize) -> Option<String> {
    use slang_syntax::SyntaxKind as K;
    let root = slang_analysis::parse(db, file).syntax_node();
    let token = root.token_at_offset(offset).right_biased()?;
    let f = token.parent_ancestors().find(|n| n.kind() == K::FN)?;
    let name = f.children().find(|c| c.kind() == K::NAME)?;
    Some(name.text().to_string().trim().to_string())
}

/// "Check gradients of `f`" on a function the check supports.
pub fn check_gradients_action(db: &RootDatabase, file: SourceFile, offset: TextSize, uri: &Uri) -> Option<CodeAction> {
    let name = enclosing_function(db, file, offset)?;
    if !crate::cli_gradcheck::supported(db, file, &name) {
        return None;
    }
    let title = format!("Check gradients of `{name}`");
    Some(CodeAction {
        title: title.clone(),
        command: Some(Command {
            title,
            command: CHECK_GRADIENTS.to_string(),
            arguments: Some(vec![serde_json::json!(uri.as_str()), serde_json::json!(name)]),
        }),
        ..Default::default()
    })
}

/// `workspace/executeCommand` [`CHECK_GRADIENTS`]: the check of
/// `slang-analyzer gradcheck` (its defaults) on the open document's text:
/// the analysis on a snapshot, the device's part on the blocking pool
/// (after the snapshot is dropped: edits do not wait for the GPU). The
/// outcome is shown (`window/showMessage`: a summary, or each mismatch at
/// the function's `FILE:LINE:COL`), the full report logged
/// (`window/logMessage`), and returned: `{function, ok, lines,
/// mismatches, location}` or `{ok: false, error}`.
pub async fn execute_command(
    state: &State,
    client: &tower_lsp_server::Client,
    params: ExecuteCommandParams,
) -> Result<Option<serde_json::Value>> {
    use serde_json::{json, Value};
    if params.command != CHECK_GRADIENTS {
        return Err(Error::invalid_params(format!("unknown command `{}`", params.command)));
    }
    let usage = || Error::invalid_params(format!("{CHECK_GRADIENTS}: expected arguments [uri, position or name]"));
    let args = params.arguments;
    let uri: Uri = args.first().and_then(Value::as_str).and_then(|u| u.parse().ok()).ok_or_else(usage)?;
    let at = args.get(1).cloned().ok_or_else(usage)?;
    let name = at.as_str().map(str::to_string);
    let position: Option<Position> = serde_json::from_value(at).ok();
    if name.is_none() && position.is_none() {
        return Err(usage());
    }
    let shown = uri.to_file_path().map_or_else(|| uri.as_str().to_string(), |p| p.display().to_string());
    let shown2 = shown.clone();
    let prepared = on_snapshot(state, &uri, move |s| {
        let function = match (&name, position) {
            (Some(n), _) => n.clone(),
            (None, p) => {
                let offset = LineIndex::of(&s.db, s.file, s.encoding).text_size(p.unwrap_or_default());
                enclosing_function(&s.db, s.file, offset)
                    .ok_or_else(|| format!("{shown2}: no function at the cursor to check"))?
            }
        };
        crate::cli_gradcheck::prepare(&s.db, s.file, &shown2, &crate::cli_gradcheck::Options::new(&function))
            .map_err(|e| e.to_string())
    })
    .await?
    .ok_or_else(|| Error::invalid_params("the document is not open".to_string()))?;
    let report = match prepared {
        Ok(prepared) => tokio::task::spawn_blocking(move || {
            crate::runner::gpu::Gpu::new().and_then(|gpu| crate::cli_gradcheck::execute(&gpu, &prepared))
        })
        .await
        .unwrap_or_else(|e| Err(format!("the gradient check stopped: {e}"))),
        Err(e) => Err(e),
    };
    let report = match report {
        Ok(report) => report,
        Err(error) => {
            client.show_message(MessageType::ERROR, format!("Check gradients: {error}")).await;
            return Ok(Some(json!({"ok": false, "error": error})));
        }
    };
    client.log_message(MessageType::INFO, report.lines.join("\n")).await;
    let ok = report.mismatches.is_empty();
    let f = &report.function;
    if ok {
        client
            .show_message(
                MessageType::INFO,
                format!("gradcheck `{f}`: ok (fwd_diff and bwd_diff agree with finite differences)"),
            )
            .await;
    } else {
        for m in &report.mismatches {
            client.show_message(MessageType::WARNING, format!("{shown}:{}:{}: {m}", report.line, report.col)).await;
        }
    }
    // (Lines and columns of the message are 1-based, the protocol's 0-based.)
    let start = json!({"line": report.line.saturating_sub(1), "character": report.col.saturating_sub(1)});
    Ok(Some(json!({
        "function": f,
        "ok": ok,
        "lines": report.lines,
        "mismatches": report.mismatches,
        "location": {"uri": uri.as_str(), "range": {"start": start, "end": start}},
    })))
}
