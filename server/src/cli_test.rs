//! `slang-analyzer test PATH...`: run Slang-format compute tests on a
//! Vulkan device and report them, one line each, then `N passed, N failed`
//! (see [`crate::runner`] for how a test runs).
//!
//! The tests run in a worker process (this binary with `--worker`) that
//! this one watches: a test that crashes the process (a fault in the GPU
//! driver, say) or runs past the time limit fails alone — the worker is
//! ended and a new one goes on with the next test.
//!
//! Exit status: 0 when every test passed (or was skipped), 1 when any
//! failed, 2 when a PATH does not exist, 3 when there is no Vulkan device
//! to run on.

use std::io::{BufRead, BufReader, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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
    /// Seconds one test may take (compiling and running) before it fails.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub timeout: u64,
    /// Run the tests in this process (what the watched worker does).
    #[arg(long, hide = true)]
    pub worker: bool,
    /// (Worker) start after this many of the test files.
    #[arg(long, hide = true, default_value_t = 0)]
    pub skip: usize,
    #[command(flatten)]
    pub frontend: FrontendArgs,
    /// Test files, or folders searched recursively for .slang files.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
}

/// What the worker prints before it starts a test (then the test's line).
const START: &str = "START ";

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
    if !args.worker {
        return supervise(&args, &files);
    }
    files.drain(..args.skip.min(files.len()));
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
        let _ = writeln!(out, "{START}{shown}");
        let _ = out.flush();
        test_hooks(file);
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

/// Test hooks of the runner's own tests: the worker aborts (as on a fault
/// in the GPU driver) or hangs on the test file whose name is given.
fn test_hooks(file: &Path) {
    let named = |var: &str| std::env::var_os(var).is_some_and(|n| file.file_name().is_some_and(|f| f == n.as_os_str()));
    if named("SLANG_ANALYZER_TEST_ABORT_ON") {
        std::process::abort();
    }
    if named("SLANG_ANALYZER_TEST_HANG_ON") {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// Runs the tests in worker processes, one after another, and reports them.
fn supervise(args: &TestArgs, files: &[(PathBuf, bool)]) -> ExitCode {
    let started = Instant::now();
    let limit = Duration::from_secs(args.timeout.max(1));
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut next = 0;
    let mut device_shown = false;
    while next < files.len() {
        let Ok(exe) = std::env::current_exe() else {
            eprintln!("error: cannot find this program to start a worker");
            return ExitCode::from(2);
        };
        let mut cmd = Command::new(exe);
        cmd.arg("test").arg("--worker");
        if let Some(s) = &args.slangc {
            cmd.arg("--slangc").arg(s);
        }
        if args.show_output {
            cmd.arg("--show-output");
        }
        for d in &args.frontend.include_dirs {
            cmd.arg("-I").arg(d);
        }
        for d in &args.frontend.defines {
            cmd.arg("-D").arg(d);
        }
        // The same paths (the worker finds the same files) from file `next`.
        cmd.arg("--skip").arg(next.to_string()).arg("--").args(&args.paths);
        let base = next;
        let rest = &files[base..];
        let mut child = match cmd.stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn() {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: cannot start a test worker: {e}");
                return ExitCode::from(2);
            }
        };
        let (tx, rx) = mpsc::channel();
        let reader = BufReader::new(child.stdout.take().expect("piped"));
        std::thread::spawn(move || {
            for line in reader.lines() {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut current: Option<usize> = None;
        let mut since = Instant::now();
        let ended = loop {
            let wait = match current {
                Some(_) => limit.saturating_sub(since.elapsed()),
                None => limit.max(Duration::from_secs(60)),
            };
            match rx.recv_timeout(wait) {
                Ok(Ok(line)) => {
                    if let Some(path) = line.strip_prefix(START) {
                        current = rest.iter().position(|f| f.0.display().to_string() == path).map(|i| base + i);
                        since = Instant::now();
                        continue;
                    }
                    if line.starts_with("device: ") {
                        if !device_shown {
                            let _ = writeln!(out, "{line}");
                            device_shown = true;
                        }
                        continue;
                    }
                    if line.starts_with("time: ") || line.ends_with(" failed") || line.contains(" failed, ") {
                        continue;
                    }
                    let mut head = line.split_whitespace();
                    match head.next() {
                        Some("PASS") => passed += 1,
                        Some("FAIL") => failed += 1,
                        Some("SKIP") => skipped += 1,
                        _ => {}
                    }
                    if matches!(line.split_whitespace().next(), Some("PASS" | "FAIL" | "SKIP")) {
                        current = None;
                    }
                    let _ = writeln!(out, "{line}");
                    let _ = out.flush();
                }
                Ok(Err(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => break None,
                Err(mpsc::RecvTimeoutError::Timeout) => break Some(()),
            }
        };
        if ended.is_some() {
            let _ = child.kill();
        }
        let status = child.wait();
        if let Some(i) = current {
            // The worker stopped (or was stopped) inside this test.
            failed += 1;
            let why = match (ended, status.as_ref().ok().and_then(|s| s.code())) {
                (Some(()), _) => format!("took longer than {} s (stopped)", limit.as_secs()),
                (None, Some(code)) => format!("the test process exited with status {code} during this test"),
                (None, None) => {
                    #[cfg(unix)]
                    let signal = status.as_ref().ok().and_then(std::os::unix::process::ExitStatusExt::signal);
                    #[cfg(not(unix))]
                    let signal: Option<i32> = None;
                    format!(
                        "the test process crashed during this test (signal {}), in the GPU driver or the compiler",
                        signal.map_or("?".to_string(), |s| s.to_string())
                    )
                }
            };
            let _ = writeln!(out, "FAIL {}: {why}", files[i].0.display());
            let _ = out.flush();
            next = i + 1;
            continue;
        }
        match status.ok().and_then(|s| s.code()) {
            Some(0 | 1) => break,
            Some(code) if code == NO_DEVICE_STATUS as i32 => return ExitCode::from(NO_DEVICE_STATUS),
            Some(code) => {
                eprintln!("error: the test worker exited with status {code}");
                return ExitCode::from(2);
            }
            None => {
                eprintln!("error: the test worker crashed between tests");
                return ExitCode::from(2);
            }
        }
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
