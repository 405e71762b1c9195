//! `slang-analyzer parse`: syntax errors for files and folders.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use crate::FrontendArgs;

#[derive(clap::Args, Debug)]
pub struct ParseArgs {
    /// Print one JSON object per file, one per line.
    #[arg(long)]
    pub json: bool,
    /// Print each file's syntax tree (for debugging the parser).
    #[arg(long, conflicts_with = "json")]
    pub tree: bool,
    #[command(flatten)]
    pub frontend: FrontendArgs,
    /// Files or folders.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// Every `.slang`/`.slangh` file under `path` (or `path` itself), sorted.
pub fn collect_files(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                collect_files(&e, out)?;
            } else if matches!(e.extension().and_then(|x| x.to_str()), Some("slang" | "slangh")) {
                out.push(e);
            }
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

pub fn run(args: ParseArgs) -> ExitCode {
    let options = args.frontend.parse_options();
    let mut files = Vec::new();
    let mut failed = false;
    for p in &args.paths {
        if let Err(e) = collect_files(p, &mut files) {
            eprintln!("error: {}: {e}", p.display());
            failed = true;
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (mut n_files, mut n_clean) = (0usize, 0usize);
    for file in &files {
        let bytes = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                failed = true;
                continue;
            }
        };
        // UTF-16 is decoded; invalid UTF-8 is replaced rather than rejected,
        // so a stray byte gives a located error instead of an unreadable file.
        let text = slang_syntax::decode_source(&bytes);
        let start = Instant::now();
        let parse = slang_syntax::parse_with(&text, &options);
        let micros = start.elapsed().as_micros() as u64;
        let lossless = parse.syntax_node().text() == text.as_str();
        let errors = parse.errors();
        n_files += 1;
        if errors.is_empty() {
            n_clean += 1;
        } else {
            failed = true;
        }
        if !lossless {
            failed = true;
        }
        let name = file.display().to_string();
        let mut all: Vec<(&slang_syntax::SyntaxError, &str)> = errors.iter().map(|e| (e, "error")).collect();
        all.extend(parse.warnings().iter().map(|w| (w, "warning")));
        all.sort_by_key(|(e, _)| e.range.start());
        if args.json {
            let diagnostics: Vec<_> = all
                .iter()
                .map(|(e, severity)| {
                    let (line, col) = slang_syntax::line_col(&text, e.range.start());
                    json!({"line": line, "col": col, "severity": severity, "code": e.code(), "message": e.message})
                })
                .collect();
            let obj = json!({
                "file": name,
                "bytes": bytes.len(),
                "micros": micros,
                "lossless": lossless,
                "diagnostics": diagnostics,
            });
            let _ = writeln!(out, "{obj}");
        } else {
            if args.tree {
                let _ = write!(out, "{}", parse.debug_tree());
            }
            for (e, severity) in &all {
                let (line, col) = slang_syntax::line_col(&text, e.range.start());
                let _ = writeln!(out, "{name}:{line}:{col}: {severity}[{}]: {}", e.code(), e.message);
            }
            if !lossless {
                let _ = writeln!(out, "{name}: internal error: the syntax tree does not reproduce the file");
            }
        }
    }
    if !args.json {
        let _ = writeln!(out, "{n_files} files parsed, {n_clean} without syntax errors");
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
