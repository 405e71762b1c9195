//! `slang-analyzer compile FILE --target T [--entry NAME] [-o OUT] [--ir]`:
//! target code for a compute entry point, through the code generator
//! (lowering to SSA IR, validation, naga). Errors are reported at their
//! source location.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use slang_codegen::{Output, Target};

use crate::cli_check::{load_for_codegen, render, severity_name};
use crate::FrontendArgs;

#[derive(clap::Args, Debug)]
pub struct CompileArgs {
    /// wgsl, spirv, glsl, hlsl or msl.
    #[arg(long, value_name = "TARGET", default_value = "wgsl")]
    pub target: String,
    /// The entry point (default: the file's first `[shader]`/`[numthreads]`
    /// function).
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// Write the output here instead of stdout (SPIR-V is binary: required).
    #[arg(short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Print the SSA IR instead of target code.
    #[arg(long)]
    pub ir: bool,
    #[command(flatten)]
    pub frontend: FrontendArgs,
    /// The Slang file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

pub fn run(args: CompileArgs) -> ExitCode {
    let Some(target) = Target::from_name(&args.target.to_ascii_lowercase()) else {
        eprintln!("error: unknown target `{}` (wgsl, spirv, glsl, hlsl or msl)", args.target);
        return ExitCode::from(2);
    };
    let (db, file) = match load_for_codegen(&args.file, &args.frontend) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    // The process ends after this command: the database (the whole core
    // module's trees and queries) is left to the operating system rather
    // than freed piece by piece.
    let db = &*Box::leak(Box::new(db));
    let Some(entry) = args.entry.clone().or_else(|| slang_analysis::ide::entry_points(db, file).into_iter().next())
    else {
        eprintln!("error: {}: no entry point (give one with --entry)", args.file.display());
        return ExitCode::from(1);
    };
    let name = args.file.display().to_string();
    let text = file.text(db);
    let result = if args.ir {
        slang_codegen::lower_entry_point(db, file, &entry).map(|m| Output::Text(slang_codegen::print::print_module(&m)))
    } else {
        slang_codegen::compile(db, file, &entry, target)
    };
    let out = match result {
        Ok(out) => out,
        Err(errors) => {
            let stderr = std::io::stderr();
            let mut err = stderr.lock();
            for e in &errors {
                match e.range {
                    _ if e.file.is_some_and(|f| f != file) => {
                        let at = e.elsewhere(db, file).unwrap_or_default();
                        let _ =
                            writeln!(err, "{}: {at}: {}", severity_name(slang_analysis::Severity::Error), e.message);
                    }
                    Some(range) => {
                        let d = slang_analysis::Diagnostic {
                            range,
                            severity: slang_analysis::Severity::Error,
                            code: "codegen",
                            message: e.message.clone(),
                        };
                        let _ = write!(err, "{}", render(&name, text, &d));
                    }
                    None => {
                        let _ =
                            writeln!(err, "{}: {name}: {}", severity_name(slang_analysis::Severity::Error), e.message);
                    }
                }
            }
            return ExitCode::from(1);
        }
    };
    let bytes: Vec<u8> = match out {
        Output::Text(t) => t.into_bytes(),
        Output::Binary(words) => {
            if args.output.is_none() {
                eprintln!("error: SPIR-V is binary: give an output file with -o");
                return ExitCode::from(2);
            }
            words.iter().flat_map(|w| w.to_le_bytes()).collect()
        }
    };
    let written = match &args.output {
        Some(path) => std::fs::write(path, &bytes).map_err(|e| format!("{}: {e}", path.display())),
        None => std::io::stdout().write_all(&bytes).map_err(|e| e.to_string()),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
