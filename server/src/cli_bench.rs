//! `slang-analyzer bench [DIR] [--reference SLANGC] [--runs N] [--only NAME]`:
//! the GPU benchmark suite (`tests/bench/gpu/*.slang`). Each kernel is
//! compiled to WGSL by our code generator (in-process) and by the
//! reference `slangc` (a subprocess), both are dispatched on the same wgpu
//! device with the buffers of the kernel's `//BENCH` header
//! ([`directives::parse_bench`]), and the table compares GPU time, compile
//! time, WGSL size, the backward pass's context size and the outputs.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::runner::directives::{self, BenchHeader};
use crate::runner::gpu::{Binding, BufferKind, Dispatch, Gpu};
use crate::runner::output::ScalarType;
use crate::runner::program::{Compiler, Program};
use crate::FrontendArgs;

/// The exit status when there is no Vulkan device (as `test`'s).
const NO_DEVICE: u8 = 3;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The folder of benchmark kernels (`*.slang`, each with a `//BENCH:`
    /// header).
    #[arg(value_name = "DIR", default_value = "tests/bench/gpu")]
    pub dir: PathBuf,
    /// The reference compiler (`slangc`) to compare with; without it only
    /// our compiler's results are shown.
    #[arg(long, value_name = "PATH")]
    pub reference: Option<PathBuf>,
    /// Timed runs per kernel and compiler, after one warm-up run; the
    /// median is reported.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub runs: usize,
    /// Run only this kernel (its file name without `.slang`); repeatable.
    #[arg(long, value_name = "NAME")]
    pub only: Vec<String>,
    /// Multiply every kernel's thread count (and the buffers sized by it):
    /// e.g. 16 on a discrete GPU, 0.25 for a quick run.
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    pub scale: f64,
    /// Give up on our compiler after this many seconds for one kernel
    /// (reported as a failure; the compilation goes on in the background
    /// until the run ends).
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    pub compile_timeout: u64,
    /// List this many of the output words where ours and the reference's
    /// differ (per kernel, after the table).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub mismatches: usize,
}

/// One compiler's results on one kernel.
struct Side {
    compile_ms: f64,
    /// The WGSL's size, the median GPU time, the context size, and the
    /// `out` buffers (with, per word, whether it is a float).
    result: Result<Measured, String>,
}

struct Measured {
    wgsl_bytes: usize,
    median_ms: f64,
    context: Option<u64>,
    outputs: Vec<(Vec<u8>, Vec<bool>)>,
}

pub fn run(args: BenchArgs) -> ExitCode {
    let mut kernels: Vec<PathBuf> = match std::fs::read_dir(&args.dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "slang"))
            .collect(),
        Err(e) => {
            eprintln!("error: {}: {e}", args.dir.display());
            return ExitCode::from(2);
        }
    };
    kernels.sort();
    let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    for name in &args.only {
        if !kernels.iter().any(|k| &stem(k) == name) {
            eprintln!("error: no kernel `{name}` in {}", args.dir.display());
            return ExitCode::from(2);
        }
    }
    if !args.only.is_empty() {
        kernels.retain(|k| args.only.contains(&stem(k)));
    }
    if let Some(slangc) = &args.reference {
        if !slangc.is_file() {
            eprintln!("error: the reference compiler {} does not exist", slangc.display());
            return ExitCode::from(2);
        }
    }
    let mut gpu = match Gpu::new() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(NO_DEVICE);
        }
    };
    let runs = args.runs.max(1);
    println!("device: {}", gpu.description);
    if gpu.has_timestamps() {
        println!("timing: GPU timestamp queries, median of {runs} runs after a warm-up run");
    } else {
        println!(
            "timing: wall-clock from submission to completion (the adapter has no timestamp queries), \
             median of {runs} runs after a warm-up run"
        );
    }
    let mut rows = Vec::new();
    for path in &kernels {
        let name = stem(path);
        eprintln!("{name}...");
        let row = bench_kernel(&mut gpu, &args, path, runs);
        rows.push((name, row));
    }
    print_table(&rows, args.reference.is_some());
    ExitCode::SUCCESS
}

/// Our side, the reference's (when asked) and whether their outputs
/// agree, or why the kernel could not be run at all.
type Row = Result<Kernel, String>;

struct Kernel {
    ours: Side,
    reference: Option<Side>,
    agree: Option<String>,
    /// The first differing output words, as text.
    mismatches: Vec<String>,
}

fn bench_kernel(gpu: &mut Gpu, args: &BenchArgs, path: &Path, runs: usize) -> Row {
    let source = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut header = directives::parse_bench(&source)?;
    header.threads = ((header.threads as f64 * args.scale).round() as u64).max(1);
    let backward = backward_functions(&source);

    // Ours: in-process, on a thread so that a compilation that does not
    // end is reported instead of stopping the run.
    let (send, receive) = mpsc::channel();
    let owned = path.to_path_buf();
    std::thread::spawn(move || {
        let start = Instant::now();
        let program = Program::compile(&Compiler::Ours, &owned, "main", &FrontendArgs::default(), &[], &[]);
        let _ = send.send((start.elapsed(), program));
    });
    let timeout = Duration::from_secs(args.compile_timeout);
    let ours = match receive.recv_timeout(timeout) {
        Ok((elapsed, program)) => {
            let context = our_context(path, &backward);
            measure(gpu, &header, elapsed, program, context, runs)
        }
        Err(_) => Side {
            compile_ms: timeout.as_secs_f64() * 1e3,
            result: Err(format!("compilation did not finish in {} s", args.compile_timeout)),
        },
    };
    // A shader that lost the device (a driver fault) is reported as such;
    // what follows runs on a new one.
    renew_if_lost(gpu);
    let reference = args.reference.as_ref().map(|slangc| {
        let start = Instant::now();
        let program =
            Program::compile(&Compiler::Slangc(slangc.clone()), path, "main", &FrontendArgs::default(), &[], &[]);
        let elapsed = start.elapsed();
        let context = reference_context(slangc, path, &backward);
        measure(gpu, &header, elapsed, program, context, runs)
    });
    renew_if_lost(gpu);
    let out_names: Vec<&str> = header.buffers.iter().filter(|b| b.out).map(|b| b.name.as_str()).collect();
    let (agree, mismatches) = match (&ours.result, reference.as_ref().map(|r| &r.result)) {
        (Ok(a), Some(Ok(b))) => {
            let (text, first) = agreement(a, b, header.rtol, header.atol, &out_names, args.mismatches);
            (Some(text), first)
        }
        _ => (None, Vec::new()),
    };
    Ok(Kernel { ours, reference, agree, mismatches })
}

/// Replaces a lost device with a new one (keeps it when that fails: the
/// next kernel then reports the loss).
fn renew_if_lost(gpu: &mut Gpu) {
    if gpu.is_lost() {
        if let Ok(fresh) = Gpu::new() {
            *gpu = fresh;
        }
    }
}

/// The functions the kernel calls `bwd_diff` on, each once.
fn backward_functions(source: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (at, _) in source.match_indices("bwd_diff(") {
        let rest = &source[at + "bwd_diff(".len()..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !name.is_empty() && rest[name.len()..].starts_with(')') && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The bytes per thread our backward derivatives of `functions` save (as
/// `derive` prints them), summed; `None` without any.
fn our_context(path: &Path, functions: &[String]) -> Option<u64> {
    if functions.is_empty() {
        return None;
    }
    let (db, file) = crate::cli_check::load_for_codegen(path, &FrontendArgs::default()).ok()?;
    let mut total = 0;
    for name in functions {
        let def = *slang_analysis::autodiff::functions_named(&db, file, name).first()?;
        total += u64::from(slang_codegen::backward_context_size(&db, def).ok()?.0);
    }
    Some(total)
}

/// The reference compiler's context sizes of `functions` (its
/// `-report-checkpoint-intermediates` notes, `checkpointing context of N
/// bytes associated with: 'f'`; a function it does not list saves
/// nothing), summed.
fn reference_context(slangc: &Path, path: &Path, functions: &[String]) -> Option<u64> {
    if functions.is_empty() {
        return None;
    }
    let out = std::env::temp_dir().join(format!("slang-analyzer-bench-{}.wgsl", std::process::id()));
    let mut command = Command::new(slangc);
    command.arg(path).args(["-target", "wgsl", "-stage", "compute", "-entry", "main", "-o"]).arg(&out);
    command.arg("-report-checkpoint-intermediates");
    if let Some(dir) = slangc.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut paths = vec![dir.to_path_buf()];
        paths.extend(std::env::split_paths(&std::env::var_os("LD_LIBRARY_PATH").unwrap_or_default()));
        command.env("LD_LIBRARY_PATH", std::env::join_paths(paths).ok()?);
    }
    let output = command.output().ok()?;
    let _ = std::fs::remove_file(&out);
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stderr) + String::from_utf8_lossy(&output.stdout);
    Some(functions.iter().map(|f| reference_context_of(&text, f)).sum())
}

fn reference_context_of(report: &str, function: &str) -> u64 {
    let tail = format!(" bytes associated with: '{function}'");
    report
        .lines()
        .filter_map(|l| l.trim().strip_suffix(tail.as_str()))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

/// Bind a compiled kernel's buffers by their names and time it.
fn measure(
    gpu: &Gpu,
    header: &BenchHeader,
    compile_time: Duration,
    program: Result<Program, String>,
    context: Option<u64>,
    runs: usize,
) -> Side {
    let compile_ms = compile_time.as_secs_f64() * 1e3;
    let result = program.and_then(|program| {
        let mut bindings = Vec::new();
        let mut kinds = Vec::new();
        for buffer in &header.buffers {
            let Some(global) = program.global(&buffer.name) else {
                if buffer.out {
                    return Err(format!("the program has no `out` buffer `{}`", buffer.name));
                }
                continue;
            };
            if global.uniform {
                return Err(format!("`{}` is a constant buffer (benchmarks bind storage buffers)", buffer.name));
            }
            let layout = global.element.clone();
            let stride = layout.as_ref().map_or(4, |l| l.stride.max(4)) as u64;
            let words = (buffer.elements(header.threads) * stride / 4).max(1) as usize;
            if buffer.out {
                // Per word: whether the scalar there is a float.
                let floats = (0..words)
                    .map(|w| {
                        let offset = (w as u64 * 4 % stride) as u32;
                        layout.as_ref().is_none_or(|l| {
                            l.scalars.iter().find(|s| s.0 == offset).is_none_or(|s| s.1 == ScalarType::F32)
                        })
                    })
                    .collect();
                kinds.push(floats);
            }
            bindings.push(Binding {
                group: global.group,
                binding: global.binding,
                kind: BufferKind::Storage { read_only: global.read_only },
                data: buffer.contents(words),
                read_back: buffer.out,
            });
        }
        for name in program.global_names() {
            if !header.buffers.iter().any(|b| b.name == name) {
                return Err(format!("shader parameter `{name}` has no //BENCH_BUFFER line"));
            }
        }
        let size = program.workgroup_size("main").ok_or("no entry point `main`")?;
        let per_group = u64::from(size[0].max(1));
        let groups = header.threads.div_ceil(per_group);
        let groups = u32::try_from(groups).ok().filter(|g| *g <= 65535).ok_or_else(|| {
            format!("{} threads need {groups} workgroups of {per_group}: more than 65535", header.threads)
        })?;
        let job = Dispatch {
            wgsl: &program.wgsl,
            entry: "main",
            bindings: &bindings,
            textures: &[],
            samplers: &[],
            groups: [groups, 1, 1],
        };
        let timing = gpu.run_timed(&job, runs).map_err(|e| format!("GPU: {e}"))?;
        let mut times = timing.times_ms.clone();
        times.sort_by(f64::total_cmp);
        Ok(Measured {
            wgsl_bytes: program.wgsl.len(),
            median_ms: times[times.len() / 2],
            context,
            outputs: timing.outputs.into_iter().zip(kinds).collect(),
        })
    });
    Side { compile_ms, result }
}

/// Whether two runs' `out` buffers (named `names`) agree: floats within
/// `rtol` of the larger magnitude (or `atol`), other words exactly. Text
/// for the table, and the first `list` differing words (`result[7]: ours
/// 1.5, reference 1.25`).
fn agreement(
    ours: &Measured,
    reference: &Measured,
    rtol: f64,
    atol: f64,
    names: &[&str],
    list: usize,
) -> (String, Vec<String>) {
    let mut mismatches = 0usize;
    let mut total = 0usize;
    let mut worst = 0.0f64;
    let mut first = Vec::new();
    for (buffer, ((a, floats), (b, _))) in ours.outputs.iter().zip(&reference.outputs).enumerate() {
        for (i, is_float) in floats.iter().enumerate() {
            let word = |d: &Vec<u8>| d.get(i * 4..i * 4 + 4).map(|w| u32::from_le_bytes(w.try_into().unwrap()));
            let (Some(x), Some(y)) = (word(a), word(b)) else { continue };
            total += 1;
            let ok = if *is_float {
                let (x, y) = (f64::from(f32::from_bits(x)), f64::from(f32::from_bits(y)));
                let diff = (x - y).abs();
                let scale = x.abs().max(y.abs());
                if scale > 0.0 && diff.is_finite() {
                    worst = worst.max(diff / scale);
                }
                (x.is_nan() && y.is_nan()) || x == y || diff <= atol + rtol * scale
            } else {
                x == y
            };
            mismatches += usize::from(!ok);
            if !ok && first.len() < list {
                let name = names.get(buffer).copied().unwrap_or("?");
                first.push(if *is_float {
                    format!("{name}[{i}]: ours {}, reference {}", f32::from_bits(x), f32::from_bits(y))
                } else {
                    format!("{name}[{i}]: ours {x}, reference {y}")
                });
            }
        }
    }
    let all_zero = ours.outputs.iter().chain(&reference.outputs).all(|(d, _)| d.iter().all(|b| *b == 0));
    let text = if mismatches == 0 && all_zero {
        "yes, but all zero".to_string()
    } else if mismatches == 0 {
        format!("yes (max rel {worst:.1e})")
    } else {
        format!("NO: {mismatches}/{total} differ (max rel {worst:.1e})")
    };
    (text, first)
}

fn print_table(rows: &[(String, Row)], with_reference: bool) {
    let mut table: Vec<Vec<String>> = vec![if with_reference {
        [
            "kernel",
            "GPU ms ours",
            "GPU ms ref",
            "ratio",
            "compile ms ours",
            "compile ms ref",
            "WGSL B ours",
            "WGSL B ref",
            "ctx B ours",
            "ctx B ref",
            "outputs agree",
        ]
        .map(String::from)
        .to_vec()
    } else {
        ["kernel", "GPU ms", "compile ms", "WGSL B", "ctx B"].map(String::from).to_vec()
    }];
    let mut notes = Vec::new();
    let mut ratios = Vec::new();
    let dash = || "-".to_string();
    for (name, row) in rows {
        let Kernel { ours, reference, agree, mismatches } = match row {
            Ok(kernel) => kernel,
            Err(e) => {
                notes.push(format!("{name}: not run: {e}"));
                continue;
            }
        };
        let mut cells = vec![name.clone()];
        let gpu = |s: &Side| s.result.as_ref().map_or("failed".into(), |m| format!("{:.3}", m.median_ms));
        let compile = |s: &Side| format!("{:.0}", s.compile_ms);
        let wgsl = |s: &Side| s.result.as_ref().map_or_else(|_| dash(), |m| m.wgsl_bytes.to_string());
        let context = |s: &Side| s.result.as_ref().ok().and_then(|m| m.context).map_or_else(dash, |c| c.to_string());
        if let Err(e) = &ours.result {
            notes.push(format!("{name}: ours: {e}"));
        }
        notes.extend(mismatches.iter().map(|m| format!("{name}: differs at {m}")));
        match reference {
            None => cells.extend([gpu(ours), compile(ours), wgsl(ours), context(ours)]),
            Some(r) => {
                if let Err(e) = &r.result {
                    notes.push(format!("{name}: reference: {e}"));
                }
                let ratio = match (&ours.result, &r.result) {
                    (Ok(a), Ok(b)) => {
                        let ratio = a.median_ms / b.median_ms;
                        if ratio.is_finite() && ratio > 0.0 {
                            ratios.push(ratio);
                        }
                        format!("{ratio:.2}")
                    }
                    _ => dash(),
                };
                cells.extend([
                    gpu(ours),
                    gpu(r),
                    ratio,
                    compile(ours),
                    compile(r),
                    wgsl(ours),
                    wgsl(r),
                    context(ours),
                    context(r),
                    agree.clone().unwrap_or_else(dash),
                ]);
            }
        }
        table.push(cells);
    }
    let widths: Vec<usize> =
        (0..table[0].len()).map(|c| table.iter().map(|r| r.get(c).map_or(0, String::len)).max().unwrap_or(0)).collect();
    for (i, row) in table.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(
                |(c, cell)| {
                    if c == 0 {
                        format!("{cell:<w$}", w = widths[c])
                    } else {
                        format!("{cell:>w$}", w = widths[c])
                    }
                },
            )
            .collect();
        println!("| {} |", line.join(" | "));
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            println!("|-{}-|", rule.join("-|-"));
        }
    }
    if with_reference {
        if ratios.is_empty() {
            println!("geometric mean of the GPU time ratios (ours/ref): -");
        } else {
            let mean = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
            println!("geometric mean of the GPU time ratios (ours/ref) over {} kernels: {mean:.2}", ratios.len());
        }
    }
    for note in notes {
        println!("{note}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_backward_derivatives_called() {
        let source = "void main() { bwd_diff(f)(x, 1.0); bwd_diff(g)(y, 1.0); bwd_diff(f)(x, 2.0); fwd_diff(h)(z); }";
        assert_eq!(backward_functions(source), ["f", "g"]);
    }

    #[test]
    fn reads_slangc_context_reports() {
        // (As slangc 2025 prints them with -report-checkpoint-intermediates.)
        let report = "note: checkpointing context of 32 bytes associated with: 'encodeLevel'\n \
                      --> hashgrid_mlp.slang:30:8\n\
                      note: checkpointing context of 224 bytes associated with: 'field'\n";
        assert_eq!(reference_context_of(report, "field"), 224);
        assert_eq!(reference_context_of(report, "encodeLevel"), 32);
        assert_eq!(reference_context_of(report, "other"), 0);
    }
}
