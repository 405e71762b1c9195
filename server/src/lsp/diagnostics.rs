//! Diagnostics: the analysis's, pushed [`DEBOUNCE`] after the last edit
//! (unless the client pulls them), then, once edits have settled for
//! [`COMPILE_SETTLE`], the compile worker's: code generation of the file's
//! entry points on a snapshot ([`crate::generated::codegen_problems`]),
//! published under a source of their own ([`WORKER_SOURCE`]) after the
//! analysis's. A client that pulls is asked to pull again
//! (`workspace/diagnostic/refresh`) when the worker's diagnostics change.
//! The same run computes the code lenses of what each function's backward
//! derivative saves ([`crate::checkpoints::checkpoints`]); the client is
//! asked for them again (`workspace/codeLens/refresh`) when they change.

use std::sync::Arc;
use std::time::Duration;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::lsp_types::{Diagnostic, Uri};
use tower_lsp_server::Client;

use super::global_state::{on_snapshot, GlobalState};
use super::line_index::LineIndex;
use super::to_proto;

/// How long diagnostics wait for more edits before being computed.
const DEBOUNCE: Duration = Duration::from_millis(10);

/// How long the compile worker waits after the last edit.
const COMPILE_SETTLE: Duration = Duration::from_millis(300);

/// The source name of the compile worker's diagnostics.
pub const WORKER_SOURCE: &str = "slang-analyzer (codegen)";

/// The analysis's diagnostics of a document followed by the compile
/// worker's last ones.
pub async fn all(state: &Arc<GlobalState>, uri: &Uri) -> Result<Option<Vec<Diagnostic>>> {
    let st = state.clone();
    let diags =
        on_snapshot(state, uri, move |s| to_proto::file_diagnostics(&st, &s.db, s.file, &s.text, s.encoding)).await?;
    Ok(diags.map(|mut d| {
        d.extend(state.docs().open.get(uri).and_then(|d| d.compile_diagnostics.clone()).unwrap_or_default());
        d
    }))
}

/// Publishes a document's diagnostics after the debounce, unless it
/// changed meanwhile; then runs the compile worker.
pub fn schedule(client: &Client, state: &Arc<GlobalState>, uri: Uri, generation: u64) {
    let state = state.clone();
    let client = client.clone();
    tokio::spawn(async move {
        tokio::time::sleep(DEBOUNCE).await;
        let current = |state: &GlobalState| state.docs().current(&uri);
        if current(&state).map(|c| c.0) != Some(generation) {
            return;
        }
        let pull = state.client().pull_diagnostics;
        let Some((_, version)) = current(&state) else { return };
        if !pull {
            let Ok(Some(diags)) = all(&state, &uri).await else { return };
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
        let lens_uri = uri.clone();
        let compiled = on_snapshot(&state, &uri, move |s| {
            let li = LineIndex::of(&s.db, s.file, s.encoding);
            let diagnostics = crate::generated::codegen_problems(&s.db, s.file)
                .iter()
                .map(|d| to_proto::diagnostic(&li, d, WORKER_SOURCE, Vec::new()))
                .collect::<Vec<_>>();
            let lenses = crate::checkpoints::checkpoints(&s.db, s.file)
                .iter()
                .map(|c| to_proto::checkpoint_lens(&li, &lens_uri, c))
                .collect::<Vec<_>>();
            (diagnostics, lenses)
        })
        .await;
        let Ok(Some((compiled, lenses))) = compiled else { return };
        let (changed, lenses_changed) = match state.docs().open.get_mut(&uri) {
            Some(doc) => {
                let lenses_changed = doc.code_lenses != lenses;
                doc.code_lenses = lenses;
                let changed = doc.compile_diagnostics.as_ref() != Some(&compiled);
                doc.compile_diagnostics = Some(compiled);
                (changed, lenses_changed)
            }
            None => (false, false),
        };
        if lenses_changed && state.client().code_lens_refresh {
            let _ = client.code_lens_refresh().await;
        }
        if changed && pull {
            // The client pulls: ask it to, now that the worker's
            // diagnostics changed.
            if state.client().diagnostic_refresh {
                let _ = client.workspace_diagnostic_refresh().await;
            }
            return;
        }
        if changed && current(&state).map(|c| c.0) == Some(generation) {
            if let Ok(Some(diags)) = all(&state, &uri).await {
                client.publish_diagnostics(uri, diags, Some(version)).await;
            }
        }
    });
}

/// Re-publishes the diagnostics of every open document (after the
/// settings or files on disk change).
pub fn refresh_all(client: &Client, state: &Arc<GlobalState>) {
    let open: Vec<(Uri, u64)> = state.docs().open.iter().map(|(u, d)| (u.clone(), d.generation)).collect();
    for (uri, generation) in open {
        schedule(client, state, uri, generation);
    }
}
