//! The live compile worker's seam: what the server asks of a code
//! generator. After edits settle, the server runs [`Generator::check`] on
//! each open file on a snapshot (cancelled by newer edits) and publishes
//! its diagnostics beside the analysis's, under their own source; the
//! `slang-analyzer/derivative` and `slang-analyzer/compile` requests ask
//! for generated code.
//!
//! The code generator (the `codegen` crate) is not built yet, so the
//! generator in use, [`NotBuilt`], reports nothing from `check` and
//! answers code requests with an error saying so.

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

/// The generator until the code generator exists.
pub struct NotBuilt;

const NOT_BUILT: &str = "code generation is not available in this build of slang-analyzer yet";

impl Generator for NotBuilt {
    fn check(&self, _: &RootDatabase, _: SourceFile) -> Vec<Diagnostic> {
        Vec::new()
    }

    fn derivative(&self, _: &RootDatabase, _: DefId, _: Mode) -> Result<String, String> {
        Err(NOT_BUILT.to_string())
    }

    fn compile(&self, _: &RootDatabase, _: SourceFile, _: &str, _: &str) -> Result<String, String> {
        Err(NOT_BUILT.to_string())
    }
}
