//! Generated code as text, shared by the `derive` and `compile` commands
//! and the language server (its `slang-analyzer/derivative` and
//! `slang-analyzer/compile` views and its compile worker; what backward
//! derivatives save is in [`crate::checkpoints`]).
//!
//! Code generation compiles what the preprocessor makes of a file: every
//! function here first takes the file's macros expanded
//! ([`RootDatabase::with_macros_expanded`]; a database already expanded,
//! as the CLI loads it, is used as it is).

use slang_analysis::autodiff::{self, Differentiability, Mode};
use slang_analysis::hir::DefId;
use slang_analysis::{Diagnostic, RootDatabase, Severity, SourceFile, TextSize};
use slang_codegen::{CodegenError, Output, Target};

/// `f` on the database in which `file`'s macros are expanded, and the
/// file there.
pub(crate) fn expanded<T>(db: &RootDatabase, file: SourceFile, f: impl FnOnce(&RootDatabase, SourceFile) -> T) -> T {
    match db.with_macros_expanded(file) {
        Some((db, file)) => f(&db, file),
        None => f(db, file),
    }
}

/// `f` on the database in which `def`'s file has its macros expanded, and
/// the same declaration there.
fn expanded_def<T>(db: &RootDatabase, def: DefId, f: impl FnOnce(&RootDatabase, DefId) -> T) -> T {
    let index = def.ast_index(db);
    expanded(db, def.file(db), |db, file| f(db, if file == def.file(db) { def } else { DefId::new(db, file, index) }))
}

/// The generated forward or backward derivative of `def` (and those it
/// needed), as Slang-like code.
pub fn derivative_code(db: &RootDatabase, def: DefId, mode: Mode) -> Result<String, Vec<CodegenError>> {
    expanded_def(db, def, |db, def| match mode {
        Mode::Forward => slang_codegen::forward_derivative_source(db, def),
        Mode::Backward => slang_codegen::backward_derivative_source(db, def),
    })
}

/// The IR of `def`'s backward derivative after each reverse-mode pass.
pub fn reverse_mode_passes(db: &RootDatabase, def: DefId) -> Result<String, Vec<CodegenError>> {
    expanded_def(db, def, |db, def| slang_codegen::backward_derivative_passes_text(db, def))
}

/// What `def`'s backward derivative saves for its backward pass: bytes
/// per thread and values.
pub fn backward_context_size(db: &RootDatabase, def: DefId) -> Result<(u32, u32), Vec<CodegenError>> {
    expanded_def(db, def, |db, def| slang_codegen::backward_context_size(db, def))
}

/// The target code of an entry point as text (SPIR-V as one hex word per
/// line).
pub fn target_code(
    db: &RootDatabase,
    file: SourceFile,
    entry: &str,
    target: Target,
) -> Result<String, Vec<CodegenError>> {
    expanded(db, file, |db, file| match slang_codegen::compile(db, file, entry, target)? {
        Output::Text(text) => Ok(text),
        Output::Binary(words) => Ok(words.iter().map(|w| format!("{w:#010x}\n")).collect()),
    })
}

/// What stops code generation of `file`'s entry points (compiled to WGSL:
/// lowering, IR validation, naga validation), as warnings with the code
/// `codegen`: the analysis reports the program's own errors, so what is
/// left are limits of code generation.
pub fn codegen_problems(db: &RootDatabase, file: SourceFile) -> Vec<Diagnostic> {
    expanded(db, file, |db, file| {
        let mut out = Vec::new();
        for entry in slang_analysis::ide::entry_points(db, file) {
            let Err(errors) = slang_codegen::compile(db, file, &entry, Target::Wgsl) else { continue };
            for e in errors {
                // (An error in an imported module: said where, at the
                // file's start.)
                let (range, message) = match e.elsewhere(db, file) {
                    Some(at) => (Default::default(), format!("{at}: {}", e.message)),
                    None => (e.range.unwrap_or_default(), e.message),
                };
                let d = Diagnostic {
                    range,
                    severity: Severity::Warning,
                    code: "codegen",
                    message: format!("`{entry}` cannot be compiled: {message}"),
                };
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
        out
    })
}

/// The code generator's errors as one line.
fn messages(errors: &[CodegenError]) -> String {
    errors.iter().map(|e| e.message.clone()).collect::<Vec<_>>().join("; ")
}

/// What a derivative document shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DerivativeView {
    /// The signatures and generated code of these modes.
    Derivatives { forward: bool, backward: bool },
    /// The backward derivative's IR after each reverse-mode pass.
    Passes,
}

impl DerivativeView {
    /// `fwd`, `bwd`, `both` (the default) or `passes`.
    pub fn from_name(name: Option<&str>) -> Result<Self, String> {
        Ok(match name {
            Some("fwd") => DerivativeView::Derivatives { forward: true, backward: false },
            Some("bwd") => DerivativeView::Derivatives { forward: false, backward: true },
            None | Some("both") => DerivativeView::Derivatives { forward: true, backward: true },
            Some("passes") => DerivativeView::Passes,
            Some(m) => return Err(format!("unknown mode `{m}` (fwd, bwd, both or passes)")),
        })
    }
}

/// A generated document: a name for it (the function's or the entry
/// point's) and its text.
pub struct Document {
    pub name: String,
    pub text: String,
}

/// The derivative document of the function at `offset` of `file` (a
/// semantic-tree offset; named there, or enclosing it): its derivative
/// signatures and generated code, or the reverse-mode passes.
pub fn derivative_document(
    db: &RootDatabase,
    file: SourceFile,
    offset: TextSize,
    view: DerivativeView,
) -> Result<Document, String> {
    let def =
        slang_analysis::ide::function_at(db, file, offset).ok_or_else(|| "no function at this position".to_string())?;
    let name = slang_analysis::infer::item_of(db, def).and_then(|i| i.name.clone()).unwrap_or_default();
    if autodiff::fn_differentiability(db, file, def) == Differentiability::No {
        return Err(format!("`{name}` is not differentiable: mark it `[Differentiable]`"));
    }
    let path = def.file(db).path(db);
    let modes = match view {
        DerivativeView::Passes => {
            let mut text = format!("// Reverse-mode passes of `{name}` ({path})\n");
            match reverse_mode_passes(db, def) {
                Ok(passes) => text.push_str(&passes),
                Err(errors) => {
                    for e in errors {
                        text.push_str(&format!("// no reverse-mode passes: {}\n", e.message));
                    }
                }
            }
            return Ok(Document { name, text });
        }
        DerivativeView::Derivatives { forward, backward } => {
            [forward.then_some(Mode::Forward), backward.then_some(Mode::Backward)]
        }
    };
    let mut text = format!("// Derivatives of `{name}` ({path})\n");
    for m in modes.into_iter().flatten() {
        let sig = autodiff::derivative_signature(db, def, m);
        text.push_str(&format!("\n// {}({name})\n{sig};\n", m.operator()));
        match derivative_code(db, def, m) {
            Ok(code) => text.push_str(&code),
            Err(errors) => text.push_str(&format!("// generated code: {}\n", messages(&errors))),
        }
    }
    Ok(Document { name, text })
}

/// The target code of `file`'s entry point `entry` (default: its first)
/// for `target` (wgsl, spirv, glsl, hlsl or msl); named after the entry
/// point.
pub fn compile_document(
    db: &RootDatabase,
    file: SourceFile,
    entry: Option<&str>,
    target: &str,
) -> Result<Document, String> {
    let t = Target::from_name(target).ok_or_else(|| format!("unknown target `{target}`"))?;
    let entry = match entry {
        Some(e) => e.to_string(),
        None => slang_analysis::ide::entry_points(db, file)
            .into_iter()
            .next()
            .ok_or_else(|| "this file has no entry point".to_string())?,
    };
    let text = target_code(db, file, &entry, t).map_err(|errors| messages(&errors))?;
    Ok(Document { name: entry, text })
}
