//! `slang-analyzer`: the command-line entry point.
//!
//! Subcommands (README.md, "Command line"): the language
//! server (no subcommand, or `lsp`), `parse`, `check`, `derive`, `compile`,
//! `test`, `gradcheck` and `bench`.

mod checkpoints;
mod cli_bench;
mod cli_check;
mod cli_compile;
mod cli_derive;
mod cli_gradcheck;
mod cli_parse;
mod cli_test;
mod generated;
mod lsp;
mod runner;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

// Trees are made of many small allocations; mimalloc parses about 1.5x
// faster than the system allocator (see syntax/benches/parse.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "slang-analyzer",
    version,
    about = "Language server and toolchain for Slang and its automatic differentiation"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Serve LSP over stdin/stdout (the default; accepted because LSP
    /// clients such as vscode-languageclient pass it).
    #[arg(long, global = true)]
    stdio: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Parse Slang files and report syntax errors.
    ///
    /// PATH may be a file or a folder (searched recursively for .slang and
    /// .slangh files). Exit status 1 when any error is reported.
    Parse(cli_parse::ParseArgs),
    /// Check Slang files: syntax, imports, names, types and autodiff calls.
    ///
    /// Imported and included files are loaded from disk (next to the
    /// importing file, then the -I folders). Exit status 1 when any error is
    /// reported.
    Check(cli_check::CheckArgs),
    /// Print the derivative signatures of a function.
    ///
    /// `fwd_diff(f)` and `bwd_diff(f)` as the user guide's rules transform
    /// the signature of each overload of NAME. Exit status 1 when the
    /// function is not found or not differentiable in a requested mode.
    Derive(cli_derive::DeriveArgs),
    /// Compile a compute entry point to WGSL, SPIR-V, GLSL, HLSL or MSL.
    ///
    /// Lowers the entry point and what it calls to the SSA IR, validates
    /// it, and writes target code through naga (validated). Errors are
    /// reported at their source location; exit status 1 then.
    Compile(cli_compile::CompileArgs),
    /// Run Slang-format compute tests on a Vulkan device.
    ///
    /// Reads Slang's test-file conventions: one enabled
    /// `//TEST(...):COMPARE_COMPUTE...` line (a `-vk` one if there is one;
    /// files with only CUDA/CPU lines are skipped) with its `-entry`,
    /// `-compute-dispatch` and `-output-using-type`, the `//TEST_INPUT`
    /// buffers and textures, and the `FILE.expected.txt` file or the `// CHECK:` lines of
    /// `filecheck-buffer`. Each test is compiled to WGSL, dispatched through
    /// wgpu (lavapipe on machines without a GPU), and its `out` buffer
    /// compared. Prints `PASS`/`FAIL`/`SKIP` per test and ends with `N passed,
    /// N failed`. Exit status 1 when any test failed, 2 for a missing PATH,
    /// 3 when there is no Vulkan device.
    Test(cli_test::TestArgs),
    /// Check a function's derivatives against finite differences on a
    /// Vulkan device.
    ///
    /// Evaluates `fwd_diff` (unit tangents) and `bwd_diff` (dResult = 1 per
    /// result component) of NAME at --samples random inputs (drawn with
    /// --seed, uniform in each parameter's --range, -1:1 by default) and
    /// compares them with central finite differences of NAME itself, also
    /// computed on the device in f32 (three steps, the closest one counts).
    /// Prints, per parameter and mode, the largest relative error
    /// (relative to max(|finite difference|, 0.1)) and the input where it
    /// occurs. Parameters and result must be float or floatN. Exit status 1
    /// when a derivative is off by more than --tolerance (the error names
    /// the function's FILE:LINE:COL) or the function is not supported, 3
    /// when there is no Vulkan device.
    Gradcheck(cli_gradcheck::GradcheckArgs),
    /// Benchmark the code generator on GPU kernels against the reference.
    ///
    /// For each `*.slang` kernel of DIR (default `tests/bench/gpu`): its
    /// `//BENCH:` header gives the thread count and `//BENCH_BUFFER:` lines
    /// the buffers (size, deterministic pseudo-random fill, `out`). The
    /// kernel's `main` is compiled to WGSL by our code generator
    /// (in-process) and, with --reference, by `slangc` (a subprocess);
    /// both are bound by buffer name and dispatched on the same Vulkan
    /// device, timed with GPU timestamp queries (wall-clock when the
    /// adapter has none). Prints per kernel: median GPU time of each
    /// compiler and their ratio, compile times, WGSL sizes, the bytes per
    /// thread the backward derivatives of `bwd_diff(f)` calls save (ours as
    /// `derive` reports it, slangc's from `-report-checkpoint-intermediates`),
    /// whether the `out` buffers agree within the header's tolerance; then
    /// the geometric mean of the time ratios. A kernel a compiler fails on
    /// is reported with its error. Exit status 2 for a bad DIR, --only or
    /// --reference, 3 when there is no Vulkan device.
    Bench(cli_bench::BenchArgs),
    /// Run the language server over stdio (also the default with no subcommand).
    Lsp,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Parse(args)) => cli_parse::run(args),
        Some(Command::Check(args)) => cli_check::run(args),
        Some(Command::Derive(args)) => cli_derive::run(args),
        Some(Command::Compile(args)) => cli_compile::run(args),
        Some(Command::Test(args)) => cli_test::run(args),
        Some(Command::Gradcheck(args)) => cli_gradcheck::run(args),
        Some(Command::Bench(args)) => cli_bench::run(args),
        Some(Command::Lsp) | None => lsp::run(),
    }
}

/// Options shared by the compiler-like subcommands (`-I`, `-D`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FrontendArgs {
    /// Add a folder to the include/import search path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Predefine a macro: NAME or NAME=VALUE.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
}

impl FrontendArgs {
    pub fn parse_options(&self) -> slang_syntax::ParseOptions {
        let defines = self
            .defines
            .iter()
            .map(|d| match d.split_once('=') {
                Some((n, v)) => (n.to_string(), v.to_string()),
                None => (d.clone(), "1".to_string()),
            })
            .collect();
        slang_syntax::ParseOptions::with_defines(defines)
    }
}
