//! Settings: the reference extension's (`slang.predefinedMacros`,
//! `slang.additionalSearchPaths`, `slang.searchInAllWorkspaceDirectories`,
//! `slang.inlayHints.*`), read from `workspace/configuration`,
//! `didChangeConfiguration` and initialization options, and a workspace
//! file (`slang-analyzer.json`, or the reference server's
//! `slangdconfig.json`) whose entries are added to the editor's.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Names of the workspace configuration files, in the order read.
pub const CONFIG_FILES: &[&str] = &["slang-analyzer.json", "slangdconfig.json"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `NAME` or `NAME=VALUE`, split.
    pub predefined_macros: Vec<(String, String)>,
    pub additional_search_paths: Vec<String>,
    /// Every workspace folder holding Slang files is a search path.
    pub search_in_all_workspace_directories: bool,
    pub inlay_types: bool,
    pub inlay_parameter_names: bool,
    pub inlay_derivative_signatures: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            predefined_macros: Vec::new(),
            additional_search_paths: Vec::new(),
            search_in_all_workspace_directories: true,
            inlay_types: true,
            inlay_parameter_names: true,
            inlay_derivative_signatures: true,
        }
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect(),
        Some(Value::String(s)) => {
            s.split([';', ',']).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
        }
        _ => Vec::new(),
    }
}

fn macro_of(s: &str) -> (String, String) {
    match s.split_once('=') {
        Some((n, v)) => (n.trim().to_string(), v.trim().to_string()),
        None => (s.trim().to_string(), "1".to_string()),
    }
}

/// `key` in `v`, whether written nested (`{"inlayHints": {"deducedTypes":
/// …}}`) or dotted (`{"inlayHints.deducedTypes": …}`).
fn get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    if let Some(x) = v.get(key) {
        return Some(x);
    }
    let (head, rest) = key.split_once('.')?;
    get(v.get(head)?, rest)
}

impl Config {
    /// Applies a settings object: either the `slang` section itself or an
    /// object holding it (`{"slang": {…}}`, as `didChangeConfiguration`
    /// sends). Keys not given keep their value.
    pub fn update(&mut self, settings: &Value) {
        let s = settings.get("slang").unwrap_or(settings);
        if !s.is_object() {
            return;
        }
        if let Some(v) = get(s, "predefinedMacros") {
            self.predefined_macros = strings(Some(v)).iter().map(|m| macro_of(m)).collect();
        }
        if let Some(v) = get(s, "additionalSearchPaths") {
            self.additional_search_paths = strings(Some(v));
        }
        let flag = |key: &str, slot: &mut bool| {
            if let Some(b) = get(s, key).and_then(Value::as_bool) {
                *slot = b;
            }
        };
        flag("searchInAllWorkspaceDirectories", &mut self.search_in_all_workspace_directories);
        flag("inlayHints.deducedTypes", &mut self.inlay_types);
        flag("inlayHints.parameterNames", &mut self.inlay_parameter_names);
        flag("inlayHints.derivativeSignatures", &mut self.inlay_derivative_signatures);
    }

    /// Adds a workspace configuration file's entries (macros and search
    /// paths relative to `root`) and flags.
    pub fn merge_file(&mut self, root: &Path, file: &Value) {
        let s = file.get("slang").unwrap_or(file);
        for m in strings(get(s, "predefinedMacros")) {
            let m = macro_of(&m);
            if !self.predefined_macros.contains(&m) {
                self.predefined_macros.push(m);
            }
        }
        for p in strings(get(s, "additionalSearchPaths")) {
            let abs = if Path::new(&p).is_absolute() { PathBuf::from(&p) } else { root.join(&p) };
            let abs = abs.to_string_lossy().replace('\\', "/");
            if !self.additional_search_paths.contains(&abs) {
                self.additional_search_paths.push(abs);
            }
        }
        let mut rest = self.clone();
        let flags_only = serde_json::json!({
            "searchInAllWorkspaceDirectories": get(s, "searchInAllWorkspaceDirectories"),
            "inlayHints": get(s, "inlayHints"),
        });
        rest.update(&flags_only);
        *self = rest;
    }

    /// Reads the workspace configuration files of `roots`: the merged
    /// config, and the problems found (unreadable JSON), as messages.
    pub fn with_workspace_files(&self, roots: &[PathBuf]) -> (Config, Vec<String>) {
        let mut cfg = self.clone();
        let mut problems = Vec::new();
        for root in roots {
            for name in CONFIG_FILES {
                let path = root.join(name);
                let Ok(text) = std::fs::read_to_string(&path) else { continue };
                match serde_json::from_str::<Value>(&text) {
                    Ok(v) => cfg.merge_file(root, &v),
                    Err(e) => problems.push(format!("{}: {e}", path.display())),
                }
            }
        }
        (cfg, problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_in_both_shapes() {
        let mut c = Config::default();
        c.update(&serde_json::json!({"slang": {
            "predefinedMacros": ["A=1", "B"],
            "additionalSearchPaths": ["/inc"],
            "inlayHints.deducedTypes": false,
            "inlayHints": {"parameterNames": false},
            "searchInAllWorkspaceDirectories": false
        }}));
        assert_eq!(c.predefined_macros, vec![("A".into(), "1".into()), ("B".into(), "1".into())]);
        assert_eq!(c.additional_search_paths, vec!["/inc".to_string()]);
        assert!(!c.inlay_types && !c.inlay_parameter_names && c.inlay_derivative_signatures);
        assert!(!c.search_in_all_workspace_directories);
        // A file adds to the editor's settings; relative paths are the
        // root's.
        c.merge_file(
            Path::new("/ws"),
            &serde_json::json!({"predefinedMacros": ["C=2"], "additionalSearchPaths": ["lib"]}),
        );
        assert_eq!(c.predefined_macros.len(), 3);
        assert_eq!(c.additional_search_paths, vec!["/inc".to_string(), "/ws/lib".to_string()]);
        assert!(!c.inlay_types);
    }
}
