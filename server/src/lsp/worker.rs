//! The live compile worker's seam: what the server asks of a code
//! generator. After edits settle, the server runs [`Generator::check`] on
//! each open file on a snapshot (cancelled by newer edits) and publishes
//! its diagnostics beside the analysis's, under their own source; the
//! `slang-analyzer/derivative` and `slang-analyzer/compile` requests ask
//! for generated code.
//!
//! [`Codegen`] is the code generator of the `codegen` crate: `check`
//! compiles each entry point of the file to WGSL (lowering, IR
//! validation, naga validation) and reports what stops it as warnings
//! (the analysis reports the program's own errors; what is left are
//! limits of code generation). `derivative` prints the generated forward
//! or backward derivative as Slang-like code.

use slang_analysis::autodiff::Mode;
use slang_analysis::hir::DefId;
use slang_analysis::{Diagnostic, RootDatabase, SourceFile};

/// The source name of the worker's diagnostics.
pub const SOURCE: &str = "slang-analyzer (codegen)";

pub trait Generator: Send + Sync {
    /// Problems code generation finds in `file` (its entry points and
    /// `fwd_diff`/`bwd_diff` uses).
    fn check(&self, db: &RootDatabase, file: SourceFile) -> Vec<Diagnostic>;
    /// The generated derivative of `def`, as Slang-like text.
    fn derivative(&self, db: &RootDatabase, def: DefId, mode: Mode) -> Result<String, String>;
    /// The target code of an entry point (`target`: wgsl, spirv, glsl,
    /// hlsl, msl).
    fn compile(&self, db: &RootDatabase, file: SourceFile, entry: &str, target: &str) -> Result<String, String>;
}

/// The `codegen` crate's generator.
pub struct Codegen;

impl Generator for Codegen {
    fn check(&self, db: &RootDatabase, file: SourceFile) -> Vec<Diagnostic> {
        // Code generation compiles what the preprocessor makes of the file.
        let expanded = db.with_macros_expanded(file);
        let (db, file) = match &expanded {
            Some((d, f)) => (d, *f),
            None => (db, file),
        };
        let mut out = Vec::new();
        for entry in slang_analysis::ide::entry_points(db, file) {
            let Err(errors) = slang_codegen::compile(db, file, &entry, slang_codegen::Target::Wgsl) else { continue };
            for e in errors {
                let range = e.range.unwrap_or_default();
                let d = Diagnostic {
                    range,
                    severity: slang_analysis::Severity::Warning,
                    code: "codegen",
                    message: format!("`{entry}` cannot be compiled: {}", e.message),
                };
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
        out
    }

    fn derivative(&self, db: &RootDatabase, def: DefId, mode: Mode) -> Result<String, String> {
        let expanded = db.with_macros_expanded(def.file(db));
        let (db, def) = match &expanded {
            Some((d, f)) => (d, DefId::new(d, *f, def.ast_index(db))),
            None => (db, def),
        };
        match mode {
            Mode::Forward => slang_codegen::forward_derivative_source(db, def)
                .map_err(|errors| errors.iter().map(|e| e.message.clone()).collect::<Vec<_>>().join("; ")),
            Mode::Backward => slang_codegen::backward_derivative_source(db, def)
                .map_err(|errors| errors.iter().map(|e| e.message.clone()).collect::<Vec<_>>().join("; ")),
        }
    }

    fn compile(&self, db: &RootDatabase, file: SourceFile, entry: &str, target: &str) -> Result<String, String> {
        let t = slang_codegen::Target::from_name(target).ok_or_else(|| format!("unknown target `{target}`"))?;
        let expanded = db.with_macros_expanded(file);
        let (db, file) = match &expanded {
            Some((d, f)) => (d, *f),
            None => (db, file),
        };
        match slang_codegen::compile(db, file, entry, t) {
            Ok(slang_codegen::Output::Text(text)) => Ok(text),
            Ok(slang_codegen::Output::Binary(words)) => {
                // SPIR-V words as a readable listing: one hex word per line.
                Ok(words.iter().map(|w| format!("{w:#010x}\n")).collect())
            }
            Err(errors) => Err(errors.iter().map(|e| e.message.clone()).collect::<Vec<_>>().join("; ")),
        }
    }
}
