//! The IDE features' plain results as LSP types: offsets to positions
//! (through [`LineIndex`]), kinds to LSP kinds, files to URIs.

use std::collections::HashMap;

use slang_analysis::{ide, Db, Severity, SourceFile, TextRange};
use slang_syntax::folding::{Fold, FoldKind};
use tower_lsp_server::lsp_types::*;

use super::global_state::GlobalState;
use super::line_index::{Encoding, LineIndex};

pub fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
    }
}

/// A diagnostic of the analysis or of the compile worker (`source`).
pub fn diagnostic(
    li: &LineIndex,
    d: &slang_analysis::Diagnostic,
    source: &str,
    related: Vec<DiagnosticRelatedInformation>,
) -> Diagnostic {
    Diagnostic {
        range: li.range(d.range),
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some(source.to_string()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        tags: match d.code {
            "unused-variable" | "unreachable-code" => Some(vec![DiagnosticTag::UNNECESSARY]),
            _ => None,
        },
        ..Default::default()
    }
}

/// The command a checkpoint lens runs: the editor's "show backward
/// derivative" at the function (VS Code's `slang.showBackwardDerivative`
/// takes the document and position).
pub const SHOW_BACKWARD_DERIVATIVE: &str = "slang.showBackwardDerivative";

/// A code lens on a function: what its backward derivative saves per
/// thread.
pub fn checkpoint_lens(li: &LineIndex, uri: &Uri, c: &crate::checkpoints::Checkpoint) -> CodeLens {
    let range = li.range(c.name_range);
    let title = format!("saves {} B/thread ({} values)", c.bytes, c.values);
    CodeLens {
        range,
        command: Some(Command {
            title,
            command: SHOW_BACKWARD_DERIVATIVE.to_string(),
            arguments: Some(vec![serde_json::json!(uri.as_str()), serde_json::json!(range.start)]),
        }),
        data: None,
    }
}

/// The analysis's diagnostics of a file, with related information.
pub fn file_diagnostics(
    state: &GlobalState,
    db: &dyn Db,
    file: SourceFile,
    text: &str,
    encoding: Encoding,
) -> Vec<Diagnostic> {
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
            diagnostic(&li, d, "slang-analyzer", related)
        })
        .collect()
}

/// A range of `file` (its semantic tree's, or with `own_text` its text's
/// own offsets, as the macro features give) as a location.
pub fn location(
    state: &GlobalState,
    db: &dyn Db,
    file: SourceFile,
    range: TextRange,
    enc: Encoding,
    own_text: bool,
) -> Option<Location> {
    let uri = state.uri_of(file.path(db))?;
    let li = if own_text { LineIndex::new(file.text(db), enc) } else { LineIndex::of(db, file, enc) };
    Some(Location { uri, range: li.range(range) })
}

pub fn markdown(value: String) -> MarkupContent {
    MarkupContent { kind: MarkupKind::Markdown, value }
}

pub fn hover(li: &LineIndex, h: ide::HoverResult) -> Hover {
    Hover { contents: HoverContents::Markup(markdown(h.markdown)), range: Some(li.range(h.range)) }
}

pub fn symbol_kind(kind: slang_analysis::ItemKind) -> SymbolKind {
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
pub fn document_symbols(li: &LineIndex, syms: Vec<ide::DocumentSymbol>) -> Vec<DocumentSymbol> {
    syms.into_iter()
        .map(|s| DocumentSymbol {
            name: s.name,
            detail: s.detail.map(|d| d.replace('\n', " ")),
            kind: symbol_kind(s.kind),
            tags: None,
            deprecated: None,
            range: li.range(s.range),
            selection_range: li.range(s.selection_range),
            children: Some(document_symbols(li, s.children)),
        })
        .collect()
}

#[allow(deprecated)] // `SymbolInformation::deprecated` must be written out.
pub fn workspace_symbol(
    state: &GlobalState,
    db: &dyn Db,
    s: ide::WorkspaceSymbol,
    enc: Encoding,
) -> Option<SymbolInformation> {
    Some(SymbolInformation {
        location: location(state, db, s.file, s.focus_range, enc, false)?,
        name: s.name,
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        container_name: s.container,
    })
}

pub fn completion_kind(k: ide::CompletionKind) -> CompletionItemKind {
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

/// A completion; its `data` says where the declaration is, for
/// `completionItem/resolve` (read back by `from_proto::completion_def`).
pub fn completion_item(db: &dyn Db, c: ide::CompletionEntry, uri: &Uri) -> CompletionItem {
    CompletionItem {
        sort_text: Some(format!("{}{}", c.rank, c.label)),
        kind: Some(completion_kind(c.kind)),
        detail: c.detail,
        insert_text_format: c.snippet.as_ref().map(|_| InsertTextFormat::SNIPPET),
        insert_text: c.snippet,
        label: c.label,
        data: c
            .def
            .map(|d| serde_json::json!({"path": d.file(db).path(db), "index": d.ast_index(db), "uri": uri.as_str()})),
        ..Default::default()
    }
}

pub fn highlight(li: &LineIndex, (range, kind): (TextRange, ide::HighlightKind)) -> DocumentHighlight {
    DocumentHighlight {
        range: li.range(range),
        kind: Some(match kind {
            ide::HighlightKind::Read => DocumentHighlightKind::READ,
            ide::HighlightKind::Write => DocumentHighlightKind::WRITE,
            ide::HighlightKind::Text => DocumentHighlightKind::TEXT,
        }),
    }
}

/// Semantic tokens (of the file's own text: the tokens are given in its
/// offsets), relative-encoded; tokens spanning lines are left out.
pub fn semantic_tokens(li: &LineIndex, tokens: Vec<ide::SemanticToken>) -> Vec<SemanticToken> {
    let mut out = Vec::new();
    let (mut line, mut col) = (0, 0);
    for t in tokens {
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
}

/// Semantic tokens as the integers they are sent as (five per token).
pub fn flatten_tokens(data: &[SemanticToken]) -> Vec<u32> {
    data.iter().flat_map(|t| [t.delta_line, t.delta_start, t.length, t.token_type, t.token_modifiers_bitset]).collect()
}

/// The edit from the tokens last sent (`prev`, flattened) to `data`: one
/// replacement of what lies between their common prefix and suffix.
pub fn semantic_tokens_edits(prev: &[u32], data: &[SemanticToken]) -> Vec<SemanticTokensEdit> {
    let flat = flatten_tokens(data);
    let prefix = prev.iter().zip(&flat).take_while(|(a, b)| a == b).count() / 5 * 5;
    let suffix =
        prev[prefix..].iter().rev().zip(flat[prefix..].iter().rev()).take_while(|(a, b)| a == b).count() / 5 * 5;
    if prefix == prev.len() && prefix == flat.len() {
        return Vec::new();
    }
    vec![SemanticTokensEdit {
        start: prefix as u32,
        delete_count: (prev.len() - prefix - suffix) as u32,
        data: Some(data[prefix / 5..data.len() - suffix / 5].to_vec()),
    }]
}

pub fn inlay_hint(li: &LineIndex, h: ide::InlayHint) -> InlayHint {
    InlayHint {
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
    }
}

pub fn signature_help(help: ide::SignatureHelp, enc: Encoding) -> SignatureHelp {
    // Parameter labels are offsets into the signature's label, in the
    // client's units.
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
                documentation: sig.doc.map(|d| Documentation::MarkupContent(markdown(d))),
                label: sig.label,
                parameters: Some(parameters),
                active_parameter: None,
            }
        })
        .collect();
    SignatureHelp {
        signatures,
        active_signature: Some(help.active_signature as u32),
        active_parameter: Some(help.active_parameter as u32),
    }
}

/// A folding range of the file's text; `None` for one that would fold
/// nothing. Blocks keep the line of their closer (`}`, `#endif`) visible.
pub fn folding_range(li: &LineIndex, text: &str, f: Fold) -> Option<FoldingRange> {
    let (start, end) = (li.position(f.range.start().into()), li.position(f.range.end().into()));
    let last_line = text[..usize::from(f.range.end())].rsplit('\n').next().unwrap_or("");
    let closer = last_line.trim_start().starts_with(['}', ')', ']', '#']);
    let end_line = if closer { end.line.saturating_sub(1) } else { end.line };
    (end_line > start.line).then_some(FoldingRange {
        start_line: start.line,
        start_character: None,
        end_line,
        end_character: None,
        kind: Some(match f.kind {
            FoldKind::Region => FoldingRangeKind::Region,
            FoldKind::Comment => FoldingRangeKind::Comment,
            FoldKind::Imports => FoldingRangeKind::Imports,
        }),
        collapsed_text: None,
    })
}

/// Nested selection ranges, innermost first in `ranges`; an empty range at
/// `at` when there are none.
pub fn selection_range(li: &LineIndex, ranges: &[TextRange], at: Position) -> SelectionRange {
    // Outermost first, each the parent of the next.
    let mut sel: Option<SelectionRange> = None;
    for r in ranges.iter().rev() {
        sel = Some(SelectionRange { range: li.range(*r), parent: sel.map(Box::new) });
    }
    sel.unwrap_or(SelectionRange { range: Range { start: at, end: at }, parent: None })
}

/// An assist as a code action, with the client's diagnostics it fixes
/// (`context`).
// `Uri` caches its parsed parts inside (clippy's "mutable key"); its hash
// and equality are the text's.
#[allow(clippy::mutable_key_type)]
pub fn code_action(
    state: &GlobalState,
    db: &dyn Db,
    li: &LineIndex,
    a: ide::Assist,
    context: &[Diagnostic],
    enc: Encoding,
) -> CodeActionOrCommand {
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for e in &a.edits {
        let Some(uri) = state.uri_of(e.file.path(db)) else { continue };
        let eli = LineIndex::of(db, e.file, enc);
        changes.entry(uri).or_default().push(TextEdit { range: eli.range(e.range), new_text: e.text.clone() });
    }
    let fixed: Vec<Diagnostic> = a
        .fixes
        .map(|(r, code)| {
            let lr = li.range(r);
            context
                .iter()
                .filter(|d| d.range == lr && d.code.as_ref() == Some(&NumberOrString::String(code.to_string())))
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
}

/// Rename's edits as a workspace edit; refused when a use is spelled
/// inside a macro's body (renaming it would rewrite the macro's use, not
/// the name).
#[allow(clippy::mutable_key_type)] // See `code_action`.
pub fn rename_edit(
    state: &GlobalState,
    db: &dyn Db,
    edits: Vec<(SourceFile, TextRange, String)>,
    enc: Encoding,
) -> Result<HashMap<Uri, Vec<TextEdit>>, String> {
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for (f, range, new_text) in edits {
        let Some(uri) = state.uri_of(f.path(db)) else { continue };
        let fli = LineIndex::of(db, f, enc);
        if !fli.is_exact(range) {
            return Err(format!(
                "cannot rename: a use in {} comes from a macro's expansion",
                f.path(db).rsplit('/').next().unwrap_or_default()
            ));
        }
        changes.entry(uri).or_default().push(TextEdit { range: fli.range(range), new_text });
    }
    Ok(changes)
}
