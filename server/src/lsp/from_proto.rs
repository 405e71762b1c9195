//! What the client sends, as the analysis takes it: document changes
//! applied to a text, completion data read back, the custom requests'
//! parameters. (Positions are converted by [`LineIndex`].)

use slang_analysis::hir::DefId;
use slang_analysis::RootDatabase;
use tower_lsp_server::lsp_types::{
    CompletionItem, Position, TextDocumentContentChangeEvent, TextDocumentIdentifier, Uri,
};

use super::line_index::{Encoding, LineIndex};

/// `text` after the client's changes (ranges, or the whole text), in order.
pub fn apply_changes(mut text: String, changes: Vec<TextDocumentContentChangeEvent>, enc: Encoding) -> String {
    for change in changes {
        match change.range {
            Some(range) => {
                let li = LineIndex::new(&text, enc);
                let (start, end) = (li.offset(range.start), li.offset(range.end));
                let (start, end) = (start.min(end), start.max(end));
                text.replace_range(start..end, &change.text);
            }
            None => text = change.text,
        }
    }
    text
}

/// Where a completion's declaration is (its `data`, written by
/// `to_proto::completion_item`): the file's path and the declaration's
/// index, and the document the completion was asked in.
pub struct CompletionData {
    pub uri: Uri,
    path: String,
    index: u32,
}

impl CompletionData {
    pub fn of(item: &CompletionItem) -> Option<CompletionData> {
        let data = item.data.as_ref()?;
        Some(CompletionData {
            path: data.get("path")?.as_str()?.to_string(),
            index: u32::try_from(data.get("index")?.as_u64()?).ok()?,
            uri: data.get("uri")?.as_str()?.parse().ok()?,
        })
    }

    /// The declaration, in this database.
    pub fn def(&self, db: &RootDatabase) -> Option<DefId> {
        let file = db.file_by_path(&self.path)?;
        Some(DefId::new(db, file, self.index))
    }
}

/// Parameters of `slang-analyzer/derivative`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DerivativeParams {
    pub text_document: TextDocumentIdentifier,
    pub position: Position,
    /// `fwd` or `bwd` (default: both), or `passes`: the IR of the backward
    /// derivative after each reverse-mode pass.
    pub mode: Option<String>,
}

/// Parameters of `slang-analyzer/compile`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompileParams {
    pub text_document: TextDocumentIdentifier,
    /// The entry point (default: the file's first `[shader]` function).
    pub entry_point: Option<String>,
    /// wgsl, spirv, glsl, hlsl or msl.
    pub target: String,
}
