//! `slang-analyzer check`: semantic diagnostics for files and folders.
//!
//! Loads the given files, then the files they import or include (found on
//! disk next to the importing file or in the `-I` folders), and prints the
//! diagnostics of the given files: rustc-style with a source excerpt, or one
//! JSON object per file with `--json`.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;
use slang_analysis::{
    compilation_root_diagnostics, file_diagnostics, file_imports, import_candidates, resolved_imports, ImportKind,
    RootDatabase, Severity, SourceFile,
};

use crate::cli_parse::collect_files;
use crate::FrontendArgs;

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Print one JSON object per file, one per line.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub frontend: FrontendArgs,
    /// Files or folders.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// The database path of a file on disk: absolute, `/`-separated.
pub fn db_path(path: &Path) -> String {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or(path.to_path_buf()));
    abs.to_string_lossy().replace('\\', "/")
}

pub fn read_text(path: &Path) -> std::io::Result<String> {
    if let Some(text) = path.to_str().and_then(slang_analysis::standard_module_text) {
        return Ok(text.to_string());
    }
    let bytes = std::fs::read(path)?;
    Ok(slang_syntax::decode_source(&bytes))
}

/// A database holding one file from disk (and what it imports), set up
/// with the `-I`/`-D` options; an error message if it cannot be read.
pub fn load_single(path: &Path, frontend: &FrontendArgs) -> Result<(RootDatabase, SourceFile), String> {
    let text = read_text(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(load_text(path, &text, frontend))
}

/// [`load_single`] with the file's text given (e.g. a file with generated
/// code appended): imports still resolve next to `path`.
pub fn load_text(path: &Path, text: &str, frontend: &FrontendArgs) -> (RootDatabase, SourceFile) {
    let mut db = RootDatabase::new();
    db.set_defines(frontend.parse_options().defines);
    db.set_search_paths(frontend.include_dirs.iter().map(|d| db_path(d)).collect());
    slang_analysis::prewarm_core(&db);
    let file = db.set_file(&db_path(path), text);
    load_imports(&mut db);
    (db, file)
}

/// [`load_single`] for code generation: the file's macro uses expanded
/// (see `RootDatabase::with_macros_expanded`).
pub fn load_for_codegen(path: &Path, frontend: &FrontendArgs) -> Result<(RootDatabase, SourceFile), String> {
    let (db, file) = load_single(path, frontend)?;
    Ok(db.with_macros_expanded(file).unwrap_or((db, file)))
}

/// Add the files that the workspace's files import and that exist on disk,
/// until nothing new is found.
pub fn load_imports(db: &mut RootDatabase) {
    // Every file again until the workspace stops growing: an import that
    // did not resolve while its target's file was not loaded yet is looked
    // at once more.
    for _round in 0..64 {
        let files = slang_analysis::Workspace::get(db).files(db).clone();
        let before = files.len();
        load_imports_of(db, files);
        if slang_analysis::Workspace::get(db).files(db).len() == before {
            return;
        }
    }
}

/// Add the files that `files` import and that exist on disk, then what
/// those import, until nothing new is found. After an edit only the edited
/// file can import something new: the other files' unresolved imports are
/// not looked for on disk again (in a workspace like Falcor's that is
/// thousands of failed opens per keystroke).
pub fn load_imports_of(db: &mut RootDatabase, files: Vec<SourceFile>) {
    let mut tried: std::collections::HashSet<String> = Default::default();
    let mut pending = files;
    while !pending.is_empty() {
        let mut found: Vec<(String, String)> = Vec::new();
        for f in std::mem::take(&mut pending) {
            for (import, target) in file_imports(db, f).iter().zip(resolved_imports(db, f)) {
                if target.is_some() {
                    continue;
                }
                for candidate in import_candidates(db, f, import) {
                    if !tried.insert(candidate.clone()) {
                        continue;
                    }
                    if let Ok(text) = read_text(Path::new(&candidate)) {
                        found.push((candidate, text));
                        break;
                    }
                }
            }
        }
        for (path, text) in found {
            pending.push(db.set_file(&path, &text));
        }
    }
}

pub fn run(args: CheckArgs) -> ExitCode {
    let mut files = Vec::new();
    let mut failed = false;
    // The files named on the command line (not found in a folder): each is
    // the root of a compilation, as the reference compiler compiles each
    // file it is given.
    let mut named: Vec<PathBuf> = Vec::new();
    for p in &args.paths {
        if !p.is_dir() {
            named.push(p.clone());
        }
        if let Err(e) = collect_files(p, &mut files) {
            eprintln!("error: {}: {e}", p.display());
            failed = true;
        }
    }
    let mut db = RootDatabase::new();
    db.set_defines(args.frontend.parse_options().defines);
    db.set_search_paths(args.frontend.include_dirs.iter().map(|d| db_path(d)).collect());

    let mut checked: Vec<(SourceFile, String, usize, bool)> = Vec::new();
    let mut display: HashMap<String, String> = HashMap::new();
    for file in &files {
        match std::fs::read(file) {
            Ok(bytes) => {
                let text = slang_syntax::decode_source(&bytes);
                let path = db_path(file);
                display.insert(path.clone(), file.display().to_string());
                let f = db.set_file(&path, &text);
                checked.push((f, file.display().to_string(), bytes.len(), named.contains(file)));
            }
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                failed = true;
            }
        }
    }
    load_imports(&mut db);
    // A file found in a folder is a root unless a loaded file includes it.
    let included: std::collections::HashSet<SourceFile> = slang_analysis::Workspace::get(&db)
        .files(&db)
        .iter()
        .flat_map(|&f| {
            file_imports(&db, f)
                .iter()
                .zip(resolved_imports(&db, f))
                .filter(|(i, _)| matches!(i.kind, ImportKind::Include | ImportKind::PpInclude))
                .filter_map(|(_, t)| *t)
        })
        .collect();

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (mut n_errors, mut n_warnings) = (0usize, 0usize);
    for (f, name, bytes, named) in &checked {
        let start = Instant::now();
        let mut diags = file_diagnostics(&db, *f).clone();
        if *named || !included.contains(f) {
            diags.extend(compilation_root_diagnostics(&db, *f));
            diags.sort_by_key(|d| (d.range.start(), d.range.end()));
        }
        let diags = &diags;
        let micros = start.elapsed().as_micros() as u64;
        let text = f.text(&db);
        for d in diags {
            match d.severity {
                Severity::Error => n_errors += 1,
                Severity::Warning => n_warnings += 1,
            }
        }
        if args.json {
            let diagnostics: Vec<_> = diags
                .iter()
                .map(|d| {
                    let (line, col) = slang_syntax::line_col(text, d.range.start());
                    json!({
                        "line": line,
                        "col": col,
                        "severity": severity_name(d.severity),
                        "code": d.code,
                        "message": d.message,
                    })
                })
                .collect();
            let obj = json!({
                "file": name,
                "bytes": bytes,
                "micros": micros,
                "lossless": slang_analysis::source_parse(&db, *f).syntax_node().text() == text.as_str(),
                "diagnostics": diagnostics,
            });
            let _ = writeln!(out, "{obj}");
        } else {
            for d in diags {
                let _ = write!(out, "{}", render(name, text, d));
            }
        }
    }
    if !args.json {
        let _ = writeln!(
            out,
            "{} files checked: {n_errors} error{}, {n_warnings} warning{}",
            checked.len(),
            if n_errors == 1 { "" } else { "s" },
            if n_warnings == 1 { "" } else { "s" }
        );
    }
    if failed || n_errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

pub fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// rustc-style: a header, the location, the source line and a caret line.
pub fn render(file: &str, text: &str, d: &slang_analysis::Diagnostic) -> String {
    let (line, col) = slang_syntax::line_col(text, d.range.start());
    let line_text = text.lines().nth(line as usize - 1).unwrap_or("");
    let width = line.to_string().len();
    let pad = " ".repeat(width);
    // Caret under the range (on the first line of it), in chars.
    let start = (col - 1) as usize;
    let range_len = usize::from(d.range.len()).max(1);
    let avail = line_text.chars().count().saturating_sub(start).max(1);
    let carets = "^".repeat(range_len.min(avail));
    let indent: String = line_text.chars().take(start).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    format!(
        "{}[{}]: {}\n{pad}--> {file}:{line}:{col}\n{pad} |\n{line} | {line_text}\n{pad} | {indent}{carets}\n\n",
        severity_name(d.severity),
        d.code,
        d.message
    )
}
