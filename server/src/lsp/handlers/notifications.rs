//! Notification handlers: documents, settings and files on disk. Each
//! applies its change to the database before its first `.await` (so edits
//! land in the order the client sent them), then schedules diagnostics.

use tower_lsp_server::lsp_types::*;
use tower_lsp_server::UriExt;

use crate::lsp::capabilities::WATCHED;
use crate::lsp::{config, diagnostics, environment, from_proto, workspace, Backend};

pub async fn initialized(b: &Backend) {
    pull_settings(b).await;
    apply_settings(b).await;
    find_slangpy(b);
    if b.state.client().watch_files {
        let watchers = WATCHED
            .iter()
            .map(|g| FileSystemWatcher { glob_pattern: GlobPattern::String(g.to_string()), kind: None })
            .collect();
        let registration = Registration {
            id: "slang-analyzer/watch".to_string(),
            method: "workspace/didChangeWatchedFiles".to_string(),
            register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions { watchers }).ok(),
        };
        let _ = b.client.register_capability(vec![registration]).await;
    }
    index_workspace(b).await;
    diagnostics::refresh_all(&b.client, &b.state);
}

pub async fn did_change_configuration(b: &Backend, params: DidChangeConfigurationParams) {
    // Clients send the settings, or nothing and expect a pull.
    if params.settings.as_object().is_some_and(|o| !o.is_empty()) {
        b.state.settings().editor.update(&params.settings);
    } else {
        pull_settings(b).await;
    }
    let flavor = b.state.settings().effective.workspace_flavor;
    apply_settings(b).await;
    find_slangpy(b);
    if b.state.settings().effective.workspace_flavor != flavor {
        index_workspace(b).await;
    }
    diagnostics::refresh_all(&b.client, &b.state);
}

pub async fn did_change_watched_files(b: &Backend, params: DidChangeWatchedFilesParams) {
    let mut config_changed = false;
    let exts = b.state.settings().effective.workspace_flavor.extensions();
    for change in params.changes {
        let Some(path) = change.uri.to_file_path().map(|p| p.into_owned()) else { continue };
        if path.file_name().and_then(|n| n.to_str()).is_some_and(|n| config::CONFIG_FILES.contains(&n)) {
            config_changed = true;
            continue;
        }
        if !workspace::is_source_file(&path, exts) {
            continue;
        }
        if change.typ == FileChangeType::DELETED {
            b.state.remove_from_disk(&path);
        } else {
            b.state.load_from_disk(&path);
        }
    }
    if config_changed {
        apply_settings(b).await;
    } else {
        b.state.load_imports();
    }
    diagnostics::refresh_all(&b.client, &b.state);
}

pub async fn did_open(b: &Backend, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    let generation = b.state.set_text(&doc.uri, doc.version, doc.text);
    diagnostics::schedule(&b.client, &b.state, doc.uri, generation);
}

pub async fn did_change(b: &Backend, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri;
    let Some(text) = b.state.docs().open.get(&uri).map(|d| d.text.to_string()) else { return };
    let text = from_proto::apply_changes(text, params.content_changes, b.state.encoding());
    let generation = b.state.set_text(&uri, params.text_document.version, text);
    diagnostics::schedule(&b.client, &b.state, uri, generation);
}

pub async fn did_close(b: &Backend, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    b.state.close(&uri);
    b.client.publish_diagnostics(uri, Vec::new(), None).await;
    diagnostics::refresh_all(&b.client, &b.state);
}

/// Reads the editor's settings (`workspace/configuration`, section
/// `slang`) when the client offers them.
async fn pull_settings(b: &Backend) {
    if !b.state.client().configuration {
        return;
    }
    let items = vec![ConfigurationItem { scope_uri: None, section: Some("slang".to_string()) }];
    if let Ok(values) = b.client.configuration(items).await {
        if let Some(v) = values.first() {
            b.state.settings().editor.update(v);
        }
    }
}

/// Asks the workspace's Python interpreter for slangpy's shader folders
/// (unless already asked of this interpreter), in the background: the
/// other settings apply without waiting for it. Logs the answer; when the
/// folders changed, applies the settings again and refreshes the
/// diagnostics.
fn find_slangpy(b: &Backend) {
    let python = {
        let s = b.state.settings();
        environment::python_of(s.editor.python_path.as_deref(), &s.roots)
    };
    if b.state.settings().slangpy.as_ref().is_some_and(|(p, _)| *p == python) {
        return;
    }
    let (client, state) = (b.client.clone(), b.state.clone());
    tokio::spawn(async move {
        let asked = python.clone();
        let found = tokio::task::spawn_blocking(move || environment::slangpy_folders(&asked))
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
        let (message, folders) = match found {
            Ok(folders) => (format!("slangpy: searching {}", folders.join(", ")), folders),
            Err(why) => (format!("slangpy: not found ({why})"), Vec::new()),
        };
        let changed = {
            let mut s = state.settings();
            let changed = s.slangpy.as_ref().map_or(!folders.is_empty(), |(_, old)| *old != folders);
            s.slangpy = Some((python, folders));
            changed
        };
        client.log_message(MessageType::INFO, format!("slang-analyzer: {message}")).await;
        if changed {
            let st = state.clone();
            let _ = tokio::task::spawn_blocking(move || st.apply_config()).await;
            diagnostics::refresh_all(&client, &state);
        }
    });
}

/// Applies the settings; reports problems with workspace config files.
async fn apply_settings(b: &Backend) {
    for p in b.state.apply_config() {
        b.client.show_message(MessageType::WARNING, format!("slang-analyzer: cannot read {p}")).await;
    }
}

/// Loads the workspace folders' source files (the flavor's extensions),
/// reporting `$/progress`, and reads slangtorch's caches.
async fn index_workspace(b: &Backend) {
    let (roots, exts) = {
        let s = b.state.settings();
        (s.roots.clone(), s.effective.workspace_flavor.extensions())
    };
    if roots.is_empty() {
        return;
    }
    let scan = tokio::task::spawn_blocking(move || {
        let scan = workspace::scan(&roots, exts);
        let torch = environment::read_slangtorch(&scan.slangtorch_metadata);
        (scan, torch)
    });
    let (scan, torch) = scan.await.unwrap_or_default();
    let files = scan.files;
    if !scan.slangtorch_metadata.is_empty() {
        let message = format!(
            "slang-analyzer: slangtorch: {} cache(s), include paths [{}], defines [{}]",
            scan.slangtorch_metadata.len(),
            torch.include_paths.join(", "),
            torch.defines.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(", ")
        );
        b.client.log_message(MessageType::INFO, message).await;
        for p in &torch.problems {
            b.client.log_message(MessageType::WARNING, format!("slang-analyzer: cannot read {p}")).await;
        }
    }
    {
        let mut s = b.state.settings();
        s.workspace_dirs = workspace::folders_of(&files, &s.roots);
        s.slangtorch = torch;
    }
    let progress = if b.state.client().work_done_progress {
        let token = NumberOrString::String("slang-analyzer/index".to_string());
        let created = b
            .client
            .send_request::<request::WorkDoneProgressCreate>(WorkDoneProgressCreateParams { token: token.clone() })
            .await;
        match created {
            Ok(()) => Some(
                b.client
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
        let state = b.state.clone();
        let chunk = chunk.to_vec();
        let _ = tokio::task::spawn_blocking(move || state.load_many_from_disk(&chunk)).await;
        if let Some(p) = &progress {
            let done = ((i + 1) * 64).min(files.len());
            p.report_with_message(format!("{done}/{}", files.len()), (done * 100 / total) as u32).await;
        }
    }
    apply_settings(b).await;
    if let Some(p) = progress {
        p.finish_with_message(format!("{} files", files.len())).await;
    }
}
