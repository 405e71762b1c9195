//! Code generation for Slang: typed HIR bodies are lowered to an SSA IR
//! with structured control flow ([`ir`]), checked ([`validate`]), turned
//! into SSA form ([`mem2reg`], [`dce`]), `[ForceUnroll]` loops unrolled
//! ([`unroll`]), differentiated ([`autodiff`]),
//! given the buffers' memory layout ([`layout`]), and written through naga to WGSL, SPIR-V, GLSL, HLSL and MSL
//! ([`naga_out`]).
//!
//! Entry points: [`compile`] for target code, [`lower_entry_point`] and
//! [`lower_function`] for the IR (print it with [`print`]). The IR
//! validator runs after every pass.

pub mod autodiff;
pub mod builtins;
pub mod cse;
pub mod dce;
pub mod fold;
pub mod ir;
pub mod layout;
pub mod legalize;
mod lower;
pub mod mem2reg;
pub mod naga_out;
pub mod narrow;
pub mod print;
pub mod sroa;
pub mod structure;
mod timing;
pub mod unroll;
pub mod validate;

use std::collections::HashMap;

use slang_analysis::{cancellation_point, Db, Severity, SourceFile, TextRange};
use timing::pass;

/// A code generation target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    Wgsl,
    SpirV,
    Glsl,
    Hlsl,
    Msl,
}

impl Target {
    /// `wgsl`, `spirv`, `glsl`, `hlsl`, `msl` (the command line's names).
    pub fn from_name(name: &str) -> Option<Target> {
        Some(match name {
            "wgsl" => Target::Wgsl,
            "spirv" | "spir-v" => Target::SpirV,
            "glsl" => Target::Glsl,
            "hlsl" => Target::Hlsl,
            "msl" | "metal" => Target::Msl,
            _ => return None,
        })
    }
}

/// Generated code: text, or SPIR-V words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    Text(String),
    Binary(Vec<u32>),
}

/// Why code could not be generated, at a range of the file compiled
/// (`None`: no better place is known), or of `file` when that is set (a
/// function of an imported or bundled module).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodegenError {
    /// The file `range` is in, when it is not the file compiled.
    pub file: Option<slang_analysis::SourceFile>,
    pub range: Option<TextRange>,
    pub message: String,
}

impl CodegenError {
    /// `PATH:LINE:COL` of the error when it lies in another file than
    /// `root`, the file compiled (a function of an imported or bundled
    /// module): its range is not one of `root`'s.
    pub fn elsewhere(&self, db: &dyn Db, root: SourceFile) -> Option<String> {
        let file = self.file.filter(|&f| f != root)?;
        let text = file.text(db);
        let at = self.range.map_or(0, |r| usize::from(r.start()).min(text.len()));
        let before = &text.as_bytes()[..at];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let col = before.iter().rev().take_while(|&&c| c != b'\n').count() + 1;
        Some(format!("{}:{line}:{col}", file.path(db)))
    }
}

impl std::fmt::Display for CodegenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.range {
            Some(r) => write!(f, "{}..{}: {}", u32::from(r.start()), u32::from(r.end()), self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

/// Compile the compute entry point `entry` of `file` to `target`.
pub fn compile(db: &dyn Db, file: SourceFile, entry: &str, target: Target) -> Result<Output, Vec<CodegenError>> {
    let mut module = lower_entry_point(db, file, entry)?;
    if target == Target::Glsl {
        // naga's GLSL writer has no 16-bit floats: `half` is `float` there.
        module.types.widen_half();
    }
    cancellation_point(db);
    let naga_module = pass("naga build", || naga_out::build(&module)).map_err(|e| vec![e])?;
    cancellation_point(db);
    let validated = pass("naga validate", || naga_out::validate(naga_module)).map_err(|e| vec![e])?;
    cancellation_point(db);
    pass("naga write", || naga_out::write(&validated, target, entry)).map_err(|e| vec![e])
}

/// The IR of the compute entry point `entry` and everything it calls,
/// validated and in SSA form.
pub fn lower_entry_point(db: &dyn Db, file: SourceFile, entry: &str) -> Result<ir::Module, Vec<CodegenError>> {
    lower(db, file, entry, true, &Options::default())
}

/// [`lower_entry_point`] with options (what a test file's `TEST_INPUT`
/// lines give, such as type conformances).
pub fn lower_entry_point_with(
    db: &dyn Db,
    file: SourceFile,
    entry: &str,
    options: &Options,
) -> Result<ir::Module, Vec<CodegenError>> {
    lower(db, file, entry, true, options)
}

/// Options of code generation.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Type conformances, `Type:Interface = id` (slangc's `-conformance`):
    /// the id `createDynamicObject<Interface>(id, …)` names `Type` by.
    /// Without them, ids are the conforming types' declaration order.
    pub conformances: Vec<Conformance>,
}

/// One type conformance: `ty` conforms to `interface` under `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conformance {
    pub ty: String,
    pub interface: String,
    pub id: u32,
}

/// The IR of the function `name` (not an entry point) and everything it
/// calls, validated and in SSA form.
pub fn lower_function(db: &dyn Db, file: SourceFile, name: &str) -> Result<ir::Module, Vec<CodegenError>> {
    lower(db, file, name, false, &Options::default())
}

/// The generated forward derivative of `def` (and those it needed), as
/// Slang-like code.
pub fn forward_derivative_source(db: &dyn Db, def: slang_analysis::hir::DefId) -> Result<String, Vec<CodegenError>> {
    derivative_source(db, def, true)
}

/// The generated backward derivative of `def` (and those it needed), as
/// Slang-like code.
pub fn backward_derivative_source(db: &dyn Db, def: slang_analysis::hir::DefId) -> Result<String, Vec<CodegenError>> {
    derivative_source(db, def, false)
}

/// What a backward derivative of `def` saves for its backward pass:
/// bytes per thread and values.
pub fn backward_context_size(db: &dyn Db, def: slang_analysis::hir::DefId) -> Result<(u32, u32), Vec<CodegenError>> {
    let (_, derivative, _, requests) = generate_derivative(db, def, false)?;
    Ok(requests.context.get(&derivative).copied().unwrap_or((0, 0)))
}

/// What each backward derivative generated for `bwd_diff(def)` (`def`'s
/// and those of the functions it calls) saves for its backward pass, by
/// the declaration of its primal: bytes per thread and values, the numbers
/// [`backward_derivative_source`] prints (the largest instance of a
/// generic function).
pub fn backward_context_sizes(
    db: &dyn Db,
    def: slang_analysis::hir::DefId,
) -> Result<Vec<(slang_analysis::hir::DefId, u32, u32)>, Vec<CodegenError>> {
    let (_, _, _, requests, defs) = generate_derivative_with_defs(db, def, false)?;
    let mut out: Vec<(slang_analysis::hir::DefId, u32, u32)> = Vec::new();
    for (primal, derivative) in &requests.backward {
        let (Some(&d), Some(&(bytes, values))) = (defs.get(primal), requests.context.get(derivative)) else {
            continue;
        };
        match out.iter_mut().find(|(x, ..)| *x == d) {
            Some(e) if e.1 < bytes => (e.1, e.2) = (bytes, values),
            Some(_) => {}
            None => out.push((d, bytes, values)),
        }
    }
    Ok(out)
}

/// The IR of `def`'s backward derivative after each pass of reverse mode,
/// as `(pass, IR)`: the primal in SSA form (`[ForceUnroll]` loops
/// unrolled), its control flow normalized (`rev::normalize`, shown on its
/// own: transcription copies the primal the same way), the transcription
/// of `s_bwd_f` in three passes — linearize (the Jacobian-vector
/// products of `f`'s arithmetic, each instruction tagged primal or
/// differential), unzip (the primal blocks of `s_bwd_f`, saving every
/// value) and transpose (the differential blocks after the primal ones,
/// emitted in reverse) —, the same after
/// checkpointing (cheap values recomputed by the backward part instead,
/// saves no one reads dropped), and the extracted `s_primal_ctx_f`,
/// `s_bwd_prop_f` and the `s_bwd_f` that calls them.
pub fn backward_derivative_passes(
    db: &dyn Db,
    def: slang_analysis::hir::DefId,
) -> Result<Vec<(&'static str, String)>, Vec<CodegenError>> {
    let (mut module, mut requests, root) = lower_to_differentiate(db, def)?;
    let internal = |message: String| vec![CodegenError { file: None, range: None, message }];
    let mut out = vec![("primal", print::print_function(&module.types, &module, module.function(root)))];
    let mut normalized = module.clone();
    autodiff::rev::normalize(&mut normalized, root).map_err(|e| vec![e])?;
    mem2reg::run(&mut normalized);
    dce::run(&mut normalized);
    check(&normalized, &requests.pending())?;
    out.push(("normalize", print::print_function(&normalized.types, &normalized, normalized.function(root))));
    let derivative = autodiff::rev::backward_derivative(&mut module, &mut requests, root).map_err(internal)?;
    let lin = autodiff::rev::linearize(&mut module, root);
    out.push(("linearize", lin.print(&module, module.function(root))));
    let unzipped = autodiff::rev::unzip(&mut module, &mut requests, root, derivative, lin).map_err(|e| vec![e])?;
    check(&module, &requests.pending())?;
    out.push(("unzip", print::print_function(&module.types, &module, module.function(derivative))));
    let mut combined = autodiff::rev::transpose(&mut module, &mut requests, unzipped).map_err(|e| vec![e])?;
    check(&module, &requests.pending())?;
    let all = autodiff::checkpoint::context_size(&combined.saves);
    let print_with_size = |module: &ir::Module, (bytes, values): (u32, u32)| {
        format!(
            "// saves {bytes} bytes per thread ({values} values)\n{}",
            print::print_function(&module.types, module, module.function(derivative))
        )
    };
    out.push(("transpose", print_with_size(&module, all)));
    let saved = autodiff::checkpoint::run(&mut module, &mut combined);
    requests.context.insert(derivative, saved);
    check(&module, &requests.pending())?;
    out.push(("checkpoint", print_with_size(&module, saved)));
    let split = autodiff::rev::extract(&mut module, &combined);
    requests.extracted.insert(derivative, split);
    check(&module, &requests.pending())?;
    let extracted = [split.primal, split.prop, derivative]
        .iter()
        .map(|&f| print::print_function(&module.types, &module, module.function(f)))
        .collect::<Vec<_>>()
        .join("\n");
    out.push(("extract", extracted));
    Ok(out)
}

/// [`backward_derivative_passes`] as one text: each pass's IR under a
/// `// ---- after PASS ----` line (what `derive --passes` and the editor's
/// passes view show).
pub fn backward_derivative_passes_text(
    db: &dyn Db,
    def: slang_analysis::hir::DefId,
) -> Result<String, Vec<CodegenError>> {
    let passes = backward_derivative_passes(db, def)?;
    Ok(passes.iter().map(|(pass, ir)| format!("\n// ---- after {pass} ----\n{ir}")).collect())
}

/// `def` and what it calls, in SSA form with `[ForceUnroll]` loops
/// unrolled, ready for differentiation: the module, the requests made
/// while lowering, `def`'s function.
fn lower_to_differentiate(
    db: &dyn Db,
    def: slang_analysis::hir::DefId,
) -> Result<(ir::Module, autodiff::Requests, ir::FuncId), Vec<CodegenError>> {
    lower_to_differentiate_with_defs(db, def).map(|(m, r, root, _)| (m, r, root))
}

/// [`lower_to_differentiate`], and the declaration of each function.
#[allow(clippy::type_complexity)]
fn lower_to_differentiate_with_defs(
    db: &dyn Db,
    def: slang_analysis::hir::DefId,
) -> Result<
    (ir::Module, autodiff::Requests, ir::FuncId, HashMap<ir::FuncId, slang_analysis::hir::DefId>),
    Vec<CodegenError>,
> {
    let file = def.file(db);
    file_errors(db, file)?;
    let mut lowerer = lower::ModuleLowerer::new(db);
    let root = lowerer.lower_root(def, false)?;
    let defs = lowerer.function_defs();
    let (mut module, requests) = (lowerer.module, lowerer.requests);
    check(&module, &requests.pending())?;
    prepare(&mut module, &requests.pending())?;
    Ok((module, requests, root, defs))
}

/// The passes between lowering and differentiation: SSA form,
/// `[ForceUnroll]` loops unrolled (the others bounded by their constant
/// iteration counts), then the local arrays unrolling left indexed by
/// constants only split into values (`sroa`: reverse mode recomputes
/// values where it would save loads) and promoted.
fn prepare(module: &mut ir::Module, pending: &[ir::FuncId]) -> Result<(), Vec<CodegenError>> {
    pass("mem2reg", || mem2reg::run(module));
    pass("dce", || dce::run(module));
    check(module, pending)?;
    pass("unroll", || unroll::run(module))?;
    pass("infer_bounds", || unroll::infer_bounds(module));
    pass("dce", || dce::run(module));
    pass("fold", || fold::run(module));
    pass("sroa", || sroa::run(module));
    pass("mem2reg", || mem2reg::run(module));
    pass("dce", || dce::run(module));
    check(module, pending)
}

/// The module with `def`'s derivative generated: the module, the
/// derivative, the first function generated for it, the requests.
fn generate_derivative(
    db: &dyn Db,
    def: slang_analysis::hir::DefId,
    forward: bool,
) -> Result<(ir::Module, ir::FuncId, usize, autodiff::Requests), Vec<CodegenError>> {
    generate_derivative_with_defs(db, def, forward).map(|(m, d, first, r, _)| (m, d, first, r))
}

/// [`generate_derivative`], and the declaration of each function lowered.
#[allow(clippy::type_complexity)]
fn generate_derivative_with_defs(
    db: &dyn Db,
    def: slang_analysis::hir::DefId,
    forward: bool,
) -> Result<
    (ir::Module, ir::FuncId, usize, autodiff::Requests, HashMap<ir::FuncId, slang_analysis::hir::DefId>),
    Vec<CodegenError>,
> {
    let (mut module, mut requests, root, defs) = lower_to_differentiate_with_defs(db, def)?;
    let derivative = match forward {
        true => autodiff::forward_derivative(&mut module, &mut requests, root),
        false => autodiff::rev::backward_derivative(&mut module, &mut requests, root),
    }
    .map_err(|message| vec![CodegenError { file: None, range: None, message }])?;
    let first_generated = module.functions.len();
    differentiate(db, &mut module, &mut requests)?;
    Ok((module, derivative, first_generated, requests, defs))
}

fn derivative_source(db: &dyn Db, def: slang_analysis::hir::DefId, forward: bool) -> Result<String, Vec<CodegenError>> {
    let (module, derivative, first_generated, requests) = generate_derivative(db, def, forward)?;
    // The derivative first, then the other derivatives it needed; for
    // backward ones, what their primal part saves for the backward part.
    let prefixes: &[&str] = if forward { &["s_fwd_"] } else { &["s_primal_ctx_", "s_bwd_"] };
    let context = |id: usize| match requests.context.get(&ir::FuncId(id as u32)) {
        Some(&(bytes, values)) => format!(
            "// {}: {bytes} bytes per thread saved for the backward pass ({values} values)\n",
            module.functions[id].name
        ),
        None => String::new(),
    };
    let mut out = context(derivative.index());
    out.push_str(&print::print_function_as_slang(&module, module.function(derivative)));
    for (i, f) in module.functions.iter().enumerate().skip(first_generated) {
        if i != derivative.index() && prefixes.iter().any(|p| f.name.starts_with(p)) {
            out.push('\n');
            out.push_str(&context(i));
            out.push_str(&print::print_function_as_slang(&module, f));
        }
    }
    Ok(out)
}

/// The file's own errors (code is generated only for valid programs).
fn file_errors(db: &dyn Db, file: SourceFile) -> Result<(), Vec<CodegenError>> {
    let errors: Vec<CodegenError> = slang_analysis::file_diagnostics(db, file)
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| CodegenError { file: None, range: Some(d.range), message: d.message.clone() })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn lower(
    db: &dyn Db,
    file: SourceFile,
    name: &str,
    entry: bool,
    options: &Options,
) -> Result<ir::Module, Vec<CodegenError>> {
    file_errors(db, file)?;
    let Some(def) = lower::function_named(db, file, name) else {
        return Err(vec![CodegenError { file: None, range: None, message: format!("no function named `{name}`") }]);
    };
    let mut lowerer = lower::ModuleLowerer::new(db);
    lowerer.conformances = options.conformances.clone();
    pass("lower", || lowerer.lower_root(def, entry))?;
    cancellation_point(db);
    let (mut module, mut requests) = (lowerer.module, lowerer.requests);
    // For testing the extraction of reverse mode on its own: backward
    // derivatives stay single functions.
    requests.no_extract = std::env::var_os("SLANG_ANALYZER_NO_EXTRACT").is_some();
    let pending = requests.pending();
    validate(&module, &pending)?;
    prepare(&mut module, &pending)?;
    cancellation_point(db);
    if std::env::var_os("SLANG_ANALYZER_NORMALIZE_CFG").is_some() {
        // For testing the control-flow normalization of reverse mode on
        // its own: every function is replaced by its normalized form.
        for i in 0..module.functions.len() {
            if !pending.contains(&ir::FuncId(i as u32)) {
                autodiff::rev::normalize(&mut module, ir::FuncId(i as u32)).map_err(|e| vec![e])?;
            }
        }
        check(&module, &pending)?;
        pass("mem2reg", || mem2reg::run(&mut module));
        pass("dce", || dce::run(&mut module));
        check(&module, &pending)?;
    }
    differentiate(db, &mut module, &mut requests)?;
    cancellation_point(db);
    // Unrolled counters as constants (see `fold`), for the drivers.
    pass("fold", || fold::run(&mut module));
    pass("dce", || dce::run(&mut module));
    pass("pairs", || autodiff::pairs::run(&mut module));
    pass("legalize", || legalize::run(&mut module));
    pass("narrow", || narrow::run(&mut module));
    pass("dce", || dce::run(&mut module));
    check(&module, &[])?;
    pass("layout", || layout::run(&mut module));
    validate(&module, &[])?;
    Ok(module)
}

/// Transcribe every requested derivative: forward mode, then reverse mode,
/// again until none remains (a forward derivative of a backward one waits
/// for reverse mode), validating and cleaning up after each pass.
/// Between passes, gives way to a waiting edit ([`cancellation_point`]).
fn differentiate(
    db: &dyn Db,
    module: &mut ir::Module,
    requests: &mut autodiff::Requests,
) -> Result<(), Vec<CodegenError>> {
    loop {
        let before = requests.pending();
        cancellation_point(db);
        pass("fwd", || autodiff::fwd::run(module, requests)).map_err(|e| vec![e])?;
        let pending = requests.pending();
        check(module, &pending)?;
        pass("mem2reg", || mem2reg::run(module));
        pass("dce", || dce::run(module));
        cancellation_point(db);
        pass("rev", || autodiff::rev::run(module, requests, &|| cancellation_point(db))).map_err(|e| vec![e])?;
        let pending = requests.pending();
        check(module, &pending)?;
        pass("mem2reg", || mem2reg::run(module));
        pass("dce", || dce::run(module));
        check(module, &pending)?;
        if pending.is_empty() {
            return Ok(());
        }
        if pending == before {
            return Err(vec![CodegenError {
                file: None,
                range: None,
                message: "internal: derivatives that never get a body".into(),
            }]);
        }
    }
}

/// Validate the IR between two passes ([`validate`]) where that is asked
/// for: always in debug builds (the tests), and in release builds with
/// `SLANG_ANALYZER_VALIDATE_PASSES` set. Otherwise a release build
/// validates only what lowering made and the finished module: on a large
/// unrolled kernel, validating after every pass was an eighth of the
/// compile time.
fn check(module: &ir::Module, pending: &[ir::FuncId]) -> Result<(), Vec<CodegenError>> {
    static EACH_PASS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let each_pass = *EACH_PASS
        .get_or_init(|| cfg!(debug_assertions) || std::env::var_os("SLANG_ANALYZER_VALIDATE_PASSES").is_some());
    if each_pass {
        validate(module, pending)
    } else {
        Ok(())
    }
}

/// Run the IR validator (on all but the `pending` derivatives); its
/// errors are bugs of the compiler.
fn validate(module: &ir::Module, pending: &[ir::FuncId]) -> Result<(), Vec<CodegenError>> {
    pass("validate", || validate::validate_module_except(module, pending)).map_err(|errors| {
        // For compiler developers: the IR that broke an invariant.
        if std::env::var_os("SLANG_ANALYZER_DUMP_IR").is_some() {
            eprintln!("{}", print::print_module(module));
        }
        errors
            .into_iter()
            .map(|e| CodegenError { file: None, range: None, message: format!("internal IR error: {e}") })
            .collect()
    })
}
