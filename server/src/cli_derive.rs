//! `slang-analyzer derive FILE --function NAME [--mode fwd|bwd|both]`:
//! the derivative signatures of a function, by the rules of the user
//! guide (`fwd_diff` / `bwd_diff` reference sections); with `--code`, the
//! generated derivatives too, and with `--passes` the reverse-mode passes
//! (the code generator's text from [`crate::generated`], which the editor's
//! derivative view shows as well).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;
use slang_analysis::autodiff::{derivative_signature, fn_differentiability, functions_named, Mode};

use crate::cli_check::load_for_codegen;
use crate::generated;
use crate::FrontendArgs;
use slang_analysis::{RootDatabase, SourceFile};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    Fwd,
    Bwd,
    Both,
}

#[derive(clap::Args, Debug)]
pub struct DeriveArgs {
    /// The function (`name`, or `Type.method` / `Type::method`).
    #[arg(long, value_name = "NAME")]
    pub function: String,
    /// Which derivatives to print.
    #[arg(long, value_enum, default_value = "both")]
    pub mode: ModeArg,
    /// Print one JSON object per overload.
    #[arg(long)]
    pub json: bool,
    /// Also print the generated forward derivative (Slang-like code from
    /// the code generator).
    #[arg(long)]
    pub code: bool,
    /// Print the IR of the backward derivative after each reverse-mode
    /// pass: primal (SSA, `[ForceUnroll]` loops unrolled), normalize,
    /// linearize (the Jacobian-vector products of the arithmetic, tagged),
    /// unzip (the primal blocks, saving every value), transpose (the
    /// differential blocks after them, in reverse), checkpoint (cheap
    /// values recomputed instead, unread saves dropped), extract
    /// (`s_primal_ctx_f`, `s_bwd_prop_f`, `s_bwd_f`).
    #[arg(long)]
    pub passes: bool,
    #[command(flatten)]
    pub frontend: FrontendArgs,
    /// The Slang file that declares the function.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `LINE:COL: ` of a code-generation error with a range (which may be
/// far from the function, e.g. an error elsewhere in the file).
fn located(db: &RootDatabase, file: SourceFile, e: &slang_codegen::CodegenError) -> String {
    if let Some(at) = e.elsewhere(db, file) {
        return format!("{at}: ");
    }
    let text = file.text(db);
    e.range
        .map(|r| {
            let (line, col) = slang_syntax::line_col(text, r.start());
            format!("{line}:{col}: ")
        })
        .unwrap_or_default()
}

pub fn run(args: DeriveArgs) -> ExitCode {
    let (db, file) = match load_for_codegen(&args.file, &args.frontend) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };

    let defs = functions_named(&db, file, &args.function);
    if defs.is_empty() {
        eprintln!("error: {}: no function named `{}`", args.file.display(), args.function);
        return ExitCode::from(1);
    }
    let modes: &[Mode] = match args.mode {
        ModeArg::Fwd => &[Mode::Forward],
        ModeArg::Bwd => &[Mode::Backward],
        ModeArg::Both => &[Mode::Forward, Mode::Backward],
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = false;
    for def in defs {
        let d = fn_differentiability(&db, file, def);
        let (line, _) = slang_analysis::hir::def_node(&db, def)
            .map(|n| slang_syntax::line_col(file.text(&db), n.text_range().start()))
            .unwrap_or((0, 0));
        for &mode in modes {
            let sig = d.allows(mode).then(|| derivative_signature(&db, def, mode));
            if args.json {
                let obj = json!({
                    "function": args.function,
                    "line": line,
                    "mode": mode.operator(),
                    "signature": sig.as_ref().map(|s| s.to_string()),
                    "error": sig.is_none().then(|| not_differentiable(&args.function, mode)),
                });
                let _ = writeln!(out, "{obj}");
            } else {
                match &sig {
                    Some(s) => {
                        let _ = writeln!(out, "{s}");
                    }
                    None => {
                        let _ = writeln!(
                            out,
                            "error: {}:{line}: {}",
                            args.file.display(),
                            not_differentiable(&args.function, mode)
                        );
                    }
                }
            }
            failed |= sig.is_none();
            // What checkpointing costs: the backward derivative's saved
            // primal values.
            if mode == Mode::Backward && sig.is_some() && !args.json {
                match generated::backward_context_size(&db, def) {
                    Ok((bytes, values)) => {
                        let _ = writeln!(
                            out,
                            "// bwd_diff({}) saves {bytes} bytes per thread for its backward pass ({values} values)",
                            args.function
                        );
                    }
                    Err(errors) => {
                        if let Some(e) = errors.first() {
                            let at = located(&db, file, e);
                            let _ = writeln!(out, "// bwd_diff({}) is not generated: {at}{}", args.function, e.message);
                        }
                    }
                }
            }
        }
        for mode in [Mode::Forward, Mode::Backward] {
            if !(args.code && !args.json && modes.contains(&mode) && d.allows(mode)) {
                continue;
            }
            match generated::derivative_code(&db, def, mode) {
                Ok(code) => {
                    let _ = writeln!(out, "\n{code}");
                }
                Err(errors) => {
                    for e in errors {
                        let at = located(&db, file, &e);
                        let _ = writeln!(out, "// no generated {} code: {at}{}", mode.operator(), e.message);
                    }
                }
            }
        }
        if args.passes && !args.json && d.allows(Mode::Backward) {
            match generated::reverse_mode_passes(&db, def) {
                Ok(text) => {
                    let _ = write!(out, "{text}");
                }
                Err(errors) => {
                    for e in errors {
                        let at = located(&db, file, &e);
                        let _ = writeln!(out, "// no reverse-mode passes: {at}{}", e.message);
                    }
                    failed = true;
                }
            }
        }
        // The `Differential` of each user type the signature mentions.
        if !args.json && d != slang_analysis::autodiff::Differentiability::No {
            for facts in slang_analysis::autodiff::differential_facts_of_signature(&db, file, def) {
                for line in facts.lines() {
                    let _ = writeln!(out, "// {line}");
                }
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn not_differentiable(name: &str, mode: Mode) -> String {
    match mode {
        Mode::Forward => {
            format!("`{name}` is not differentiable (mark it `[Differentiable]` or `[ForwardDifferentiable]`)")
        }
        Mode::Backward => format!("`{name}` is not backward-differentiable (mark it `[Differentiable]`)"),
    }
}
