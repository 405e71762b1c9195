#![allow(dead_code)] // Each test binary uses a different part of the fixture helpers.
//! Fixtures: one string holding several files, each introduced by a line
//! `//- /path/file.slang` (a fixture without such a line is one file,
//! `/main.slang`). `$0` marks a cursor position.

use slang_analysis::{RootDatabase, SourceFile};

pub struct Fixture {
    pub db: RootDatabase,
    pub files: Vec<SourceFile>,
    /// File and offset of `$0`, if any.
    pub cursor: Option<(SourceFile, u32)>,
}

pub fn fixture(text: &str) -> Fixture {
    let mut db = RootDatabase::new();
    let mut files = Vec::new();
    let mut cursor = None;
    let mut chunks: Vec<(String, String)> = Vec::new();
    let multi_file = text.lines().any(|l| l.trim_start().starts_with("//- "));
    for line in text.lines() {
        if let Some(path) = line.trim_start().strip_prefix("//- ") {
            chunks.push((path.trim().to_string(), String::new()));
            continue;
        }
        if chunks.is_empty() {
            if multi_file {
                continue;
            }
            chunks.push(("/main.slang".to_string(), String::new()));
        }
        let text = &mut chunks.last_mut().unwrap().1;
        text.push_str(line);
        text.push('\n');
    }
    for (path, mut text) in chunks {
        let marker = text.find("$0");
        if let Some(i) = marker {
            text.replace_range(i..i + 2, "");
        }
        let f = db.set_file(&path, &text);
        if let Some(i) = marker {
            cursor = Some((f, i as u32));
        }
        files.push(f);
    }
    Fixture { db, files, cursor }
}

/// Diagnostics of every fixture file as `path:line:col: code: message`,
/// but for unused-variable warnings (fixtures are full of them; see
/// [`render_all_diagnostics`]).
pub fn render_diagnostics(fx: &Fixture) -> String {
    render(fx, false)
}

pub fn render_all_diagnostics(fx: &Fixture) -> String {
    render(fx, true)
}

fn render(fx: &Fixture, unused: bool) -> String {
    let mut out = String::new();
    for &f in &fx.files {
        let text = f.text(&fx.db);
        for d in slang_analysis::file_diagnostics(&fx.db, f) {
            if d.code == "unused-variable" && !unused {
                continue;
            }
            let (line, col) = slang_syntax::line_col(text, d.range.start());
            let sev = match d.severity {
                slang_analysis::Severity::Error => "error",
                slang_analysis::Severity::Warning => "warning",
            };
            out.push_str(&format!("{}:{line}:{col}: {sev}[{}]: {}\n", f.path(&fx.db), d.code, d.message));
        }
    }
    out
}
