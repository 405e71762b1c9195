//! `slang-analyzer test PATH...`: run Slang-format compute tests on a
//! Vulkan device and report them, one line each, then `N passed, N failed`
//! (see [`crate::runner`] for how a test runs).
//!
//! Exit status: 0 when every test passed (or was skipped), 1 when any
//! failed, 2 when a PATH does not exist, 3 when there is no Vulkan device
//! to run on.

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use crate::runner::gpu::Gpu;
use crate::runner::program::Compiler;
use crate::runner::{run_file, Outcome, Settings};
use crate::FrontendArgs;

thread_local! {
    /// The message of the last panic on this thread, for the FAIL line.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Exit status when no Vulkan adapter can be opened.
pub const NO_DEVICE_STATUS: u8 = 3;

#[derive(clap::Args, Debug)]
pub struct TestArgs {
    /// Compile with this reference `slangc` (to WGSL) instead of
    /// slang-analyzer's code generator, to see what the reference compiler
    /// reaches on the same device.
    #[arg(long, value_name = "SLANGC")]
    pub slangc: Option<PathBuf>,
    /// Print each test's output buffer (as Slang's runner prints it).
    #[arg(long)]
    pub show_output: bool,
    #[command(flatten)]
    pub frontend: FrontendArgs,
    /// Test files, or folders searched recursively for .slang files.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
}

pub fn run(args: TestArgs) -> ExitCode {
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    for path in &args.paths {
        if path.is_dir() {
            let mut found = Vec::new();
            collect_slang_files(path, &mut found);
            found.sort();
            files.extend(found.into_iter().map(|f| (f, false)));
        } else if path.exists() {
            files.push((path.clone(), true));
        } else {
            eprintln!("error: {}: no such file or folder", path.display());
            return ExitCode::from(2);
        }
    }
    let started = Instant::now();
    let gpu = match Gpu::new() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(NO_DEVICE_STATUS);
        }
    };
    // A bug of the compiler in one test fails that test, with the panic's
    // message and place in its FAIL line instead of a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let message = info.payload_as_str().unwrap_or("unknown panic");
        let place = info.location().map(|l| format!(" ({}:{})", l.file(), l.line())).unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{place}")));
    }));
    let settings = Settings {
        compiler: args.slangc.clone().map_or(Compiler::Ours, Compiler::Slangc),
        frontend: args.frontend.clone(),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = writeln!(out, "device: {}", gpu.description);
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for (file, explicit) in &files {
        let shown = file.display();
        let report = catch_unwind(AssertUnwindSafe(|| run_file(&gpu, &settings, file))).unwrap_or_else(|_| {
            let message = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "unknown panic".into());
            crate::runner::Report { outcome: Outcome::Fail(format!("compiler panic: {message}")), output: None }
        });
        match &report.outcome {
            Outcome::Pass => {
                passed += 1;
                let _ = writeln!(out, "PASS {shown}");
            }
            Outcome::Fail(reason) => {
                failed += 1;
                let _ = writeln!(out, "FAIL {shown}: {reason}");
            }
            Outcome::Skip(reason) => {
                skipped += 1;
                let _ = writeln!(out, "SKIP {shown}: {reason}");
            }
            Outcome::NotATest if *explicit => {
                skipped += 1;
                let _ = writeln!(out, "SKIP {shown}: not a test (no //TEST line, or //TEST_IGNORE_FILE)");
            }
            Outcome::NotATest => {}
        }
        if args.show_output {
            for line in report.output.iter().flatten() {
                let _ = writeln!(out, "    {line}");
            }
        }
        let _ = out.flush();
    }
    let _ = writeln!(out, "time: {:.2} s", started.elapsed().as_secs_f64());
    let skipped = if skipped > 0 { format!(", {skipped} skipped") } else { String::new() };
    let _ = writeln!(out, "{passed} passed, {failed} failed{skipped}");
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn collect_slang_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_slang_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "slang") {
            out.push(path);
        }
    }
}
