//! Settings: the reference extension's (`slang.predefinedMacros`,
//! `slang.additionalSearchPaths`, `slang.searchInAllWorkspaceDirectories`,
//! `slang.inlayHints.*`, `slang.workspaceFlavor`,
//! `slang.predefinedLanguageVersion`) and `slang.pythonPath`, read from `workspace/configuration`,
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
    pub workspace_flavor: Flavor,
    /// The `#language slang <version>` of files without one (`legacy`,
    /// `2025`, `2026`, `latest`, …). Kept and reported; nothing in the
    /// analysis differs between language versions yet.
    pub predefined_language_version: Option<String>,
    /// The Python interpreter whose packages (slangpy) are searched;
    /// `python3` on `PATH` when not set.
    pub python_path: Option<String>,
}

/// `slang.workspaceFlavor`: the reference server's `standard` (also
/// accepted as `slang`), or `vfx`, where effect files (`.vfx`, `.hlsl`,
/// `.hlsli`, `.fx`) are workspace files too and the reference's effect
/// macros are predefined ([`Flavor::defines`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flavor {
    #[default]
    Standard,
    Vfx,
}

impl Flavor {
    /// The extensions of the workspace's source files.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Flavor::Standard => &["slang", "slangh"],
            Flavor::Vfx => &["slang", "slangh", "vfx", "hlsl", "hlsli", "fx"],
        }
    }

    /// The macros the reference server predefines for effect files: shader
    /// stage sections are file-private scopes, the effect header sections
    /// are skipped, `COMMON` is shared.
    pub fn defines(self) -> Vec<(String, String)> {
        if self == Flavor::Standard {
            return Vec::new();
        }
        let stages = ["VS", "CS", "GS", "PS", "MS", "RTX", "PS_RTX", "VS_RTX", "VS_MS_RTX"];
        let ignored = ["HEADER", "MODES", "PS_RENDER_STATE", "FEATURES"];
        let mut out: Vec<(String, String)> =
            stages.iter().map(|s| (s.to_string(), "__file_decl".to_string())).collect();
        out.extend(ignored.iter().map(|s| (s.to_string(), "__ignored_block".to_string())));
        out.push(("COMMON".to_string(), "__transparent_block".to_string()));
        out.push(("FRAGMENT_ANNOTATION".to_string(), String::new()));
        out
    }
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
            workspace_flavor: Flavor::Standard,
            predefined_language_version: None,
            python_path: None,
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

/// The `slang` section of a settings object: `{"slang": {…}}`, the
/// section itself, or top-level dotted keys (`{"slang.predefinedMacros":
/// …}`, as the reference's `slangdconfig.json` writes them).
fn section(settings: &Value) -> Value {
    let mut out = match settings.get("slang") {
        Some(Value::Object(o)) => o.clone(),
        _ => match settings {
            Value::Object(o) => o.clone(),
            _ => return Value::Null,
        },
    };
    if let Value::Object(top) = settings {
        for (k, v) in top {
            if let Some(rest) = k.strip_prefix("slang.") {
                out.insert(rest.to_string(), v.clone());
            }
        }
    }
    Value::Object(out)
}

impl Config {
    /// Applies a settings object: either the `slang` section itself or an
    /// object holding it (`{"slang": {…}}`, as `didChangeConfiguration`
    /// sends). Keys not given keep their value.
    pub fn update(&mut self, settings: &Value) {
        let s = &section(settings);
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
        if let Some(v) = get(s, "workspaceFlavor").and_then(Value::as_str) {
            self.workspace_flavor = if v.eq_ignore_ascii_case("vfx") { Flavor::Vfx } else { Flavor::Standard };
        }
        let text = |key: &str, slot: &mut Option<String>| {
            if let Some(v) = get(s, key) {
                *slot = v.as_str().map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
            }
        };
        text("predefinedLanguageVersion", &mut self.predefined_language_version);
        text("pythonPath", &mut self.python_path);
    }

    /// Adds a workspace configuration file's entries (macros and search
    /// paths relative to `root`) and flags.
    pub fn merge_file(&mut self, root: &Path, file: &Value) {
        let s = &section(file);
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
        let keys = ["searchInAllWorkspaceDirectories", "inlayHints", "workspaceFlavor", "predefinedLanguageVersion"];
        let flags_only: serde_json::Map<String, Value> =
            keys.iter().filter_map(|k| Some((k.to_string(), get(s, k)?.clone()))).collect();
        self.update(&Value::Object(flags_only));
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

    #[test]
    fn flavor_language_version_and_python() {
        let mut c = Config::default();
        assert_eq!(c.workspace_flavor, Flavor::Standard);
        assert!(c.workspace_flavor.defines().is_empty());
        // The reference's `slangdconfig.json` form: top-level dotted keys.
        c.merge_file(
            Path::new("/ws"),
            &serde_json::json!({"slang.workspaceFlavor": "vfx", "slang.predefinedLanguageVersion": "2026"}),
        );
        assert_eq!(c.workspace_flavor, Flavor::Vfx);
        assert!(c.workspace_flavor.extensions().contains(&"hlsl"));
        assert!(c.workspace_flavor.defines().contains(&("COMMON".into(), "__transparent_block".into())));
        assert_eq!(c.predefined_language_version.as_deref(), Some("2026"));
        // A file without the keys keeps them.
        c.merge_file(Path::new("/ws"), &serde_json::json!({"predefinedMacros": []}));
        assert_eq!(c.workspace_flavor, Flavor::Vfx);
        assert_eq!(c.predefined_language_version.as_deref(), Some("2026"));
        c.update(&serde_json::json!({"slang": {"workspaceFlavor": "standard", "pythonPath": "/venv/bin/python"}}));
        assert_eq!(c.workspace_flavor, Flavor::Standard);
        assert_eq!(c.python_path.as_deref(), Some("/venv/bin/python"));
    }
}
