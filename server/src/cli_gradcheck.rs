//! `slang-analyzer gradcheck FILE --function NAME`: the function's
//! `fwd_diff` and `bwd_diff` derivatives, evaluated on the Vulkan device at
//! random inputs, against central finite differences of the function
//! itself (also on the device, in f32).
//!
//! One compute kernel does it all: its text is appended to the user's file
//! (so that every name of the file and its imports is in scope and the
//! file's line numbers stay), compiled by our code generator to WGSL as
//! `slang-analyzer test` does ([`Program::from_db`]) and dispatched through
//! [`Gpu`], one thread per sample. Each thread writes, for every input
//! component `i` and result component `j`: the finite differences
//! `(f(x + h·e_i) - f(x - h·e_i)) / (2h)` for several `h` ([`STEPS`],
//! scaled by `max(1, |x_i|)`), `fwd_diff(f)` with the unit tangent `e_i`,
//! and `bwd_diff(f)` with `dResult = e_j`. The comparison happens here: a
//! derivative's error at a sample is its smallest relative error against
//! the finite differences of any step (so that neither the rounding error
//! of a small step nor the truncation error of a large one makes a false
//! alarm), relative to `max(|fd|, FLOOR)`.
//!
//! Parameters and result must be `float` or `floatN`; anything else is a
//! located error saying what is not supported.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use slang_analysis::autodiff::{derivative_signature, fn_differentiability, functions_named, Dir, Mode, TypeDiff};
use slang_analysis::ty::{Scalar, Ty};
use slang_analysis::RootDatabase;

use crate::runner::gpu::{Binding, BufferKind, Dispatch, Gpu};
use crate::runner::program::Program;
use crate::FrontendArgs;

/// The finite-difference steps, relative to `max(1, |x_i|)`. In f32 the
/// best central-difference step is near `eps^(1/3) ≈ 5e-3`; three around
/// it cover functions of larger and smaller curvature.
const STEPS: [f32; 3] = [1e-2, 3e-3, 1e-3];
/// Below this magnitude, errors are absolute (`tolerance · FLOOR`).
const FLOOR: f64 = 0.1;
/// Threads per workgroup of the kernel.
const GROUP: u32 = 64;
/// The runner's exit status when there is no Vulkan adapter.
const NO_DEVICE: u8 = 3;

#[derive(clap::Args, Debug, Clone)]
pub struct GradcheckArgs {
    #[command(flatten)]
    pub options: Options,
    #[command(flatten)]
    pub frontend: FrontendArgs,
    /// The Slang file that declares the function.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// What to check and how: the command line's options, also built by the
/// language server (`slang.checkGradients`).
#[derive(clap::Args, Debug, Clone)]
pub struct Options {
    /// The function (a free function whose parameters and result are
    /// `float` or `floatN`).
    #[arg(long, value_name = "NAME")]
    pub function: String,
    /// How many random inputs to evaluate.
    #[arg(long, default_value_t = 64)]
    pub samples: u32,
    /// The interval a parameter's components are drawn from (every
    /// component of a vector); the default is -1:1. Repeatable.
    #[arg(long = "range", value_name = "PARAM=LO:HI")]
    pub ranges: Vec<String>,
    /// The largest relative error accepted (relative to
    /// max(|finite difference|, 0.1)).
    #[arg(long, default_value_t = 1e-2)]
    pub tolerance: f64,
    /// The seed of the random inputs (printed; the same seed gives the
    /// same inputs).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl Options {
    /// The command line's defaults for `function`.
    pub fn new(function: &str) -> Options {
        Options { function: function.to_string(), samples: 64, ranges: Vec::new(), tolerance: 1e-2, seed: 1 }
    }
}

/// A parameter of the checked function.
#[derive(Debug, Clone)]
struct Param {
    name: String,
    /// 1 for `float`, N for `floatN`.
    width: u32,
    vector: bool,
    lo: f32,
    hi: f32,
}

impl Param {
    fn ty(&self) -> String {
        if self.vector {
            format!("float{}", self.width)
        } else {
            "float".into()
        }
    }
}

/// What the check needs of the function.
#[derive(Debug, Clone)]
struct Spec {
    function: String,
    params: Vec<Param>,
    out_width: u32,
    out_vector: bool,
}

impl Spec {
    fn n_in(&self) -> u32 {
        self.params.iter().map(|p| p.width).sum()
    }
    /// Floats each thread writes.
    fn stride(&self) -> u32 {
        (STEPS.len() as u32 + 2) * self.n_in() * self.out_width
    }
    /// `(parameter, component)` of each input component, in order.
    fn components(&self) -> Vec<(usize, u32)> {
        self.params.iter().enumerate().flat_map(|(p, param)| (0..param.width).map(move |c| (p, c))).collect()
    }
    fn param_label(&self, p: usize, c: u32) -> String {
        let param = &self.params[p];
        if param.vector {
            format!("{}.{}", param.name, SWIZZLE[c as usize])
        } else {
            param.name.clone()
        }
    }
    fn result_label(&self, j: u32) -> String {
        if self.out_vector {
            format!("result.{}", SWIZZLE[j as usize])
        } else {
            "result".into()
        }
    }
}

const SWIZZLE: [&str; 4] = ["x", "y", "z", "w"];

/// The outcome of a check, as plain data: the report's lines and the
/// mismatches (the CLI prints them; the language server shows them).
#[derive(Debug, Clone)]
pub struct Report {
    pub function: String,
    /// The 1-based line and column of the function's name.
    pub line: u32,
    pub col: u32,
    pub lines: Vec<String>,
    /// The mismatches, one sentence each (without the location).
    pub mismatches: Vec<String>,
}

/// A check compiled and ready for the device: what [`prepare`] makes of
/// the analysis (no database in it) for [`execute`].
pub struct Prepared {
    spec: Spec,
    options: Options,
    location: (u32, u32),
    /// `FILE:LINE:COL` of the function, for messages.
    at: String,
    wgsl: String,
    inputs: Vec<f32>,
    /// `(group, binding, read-only)` of the input and output buffers.
    in_buffer: (u32, u32, bool),
    out_buffer: (u32, u32),
}

pub fn run(args: GradcheckArgs) -> ExitCode {
    let gpu = match Gpu::new() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(NO_DEVICE);
        }
    };
    let shown = args.file.display().to_string();
    let report = crate::cli_check::read_text(&args.file)
        .map_err(|e| format!("{shown}: {e}"))
        .and_then(|text| {
            let (db, file) = crate::cli_check::load_text(&args.file, &text, &args.frontend);
            prepare(&db, file, &shown, &args.options)
        })
        .and_then(|prepared| execute(&gpu, &prepared));
    match report {
        Ok(report) => {
            for line in &report.lines {
                println!("{line}");
            }
            for e in &report.mismatches {
                eprintln!("error: {shown}:{}:{}: {e}", report.line, report.col);
            }
            if report.mismatches.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// Whether `function` of `file` is one the check supports (a
/// differentiable free function of `float`/`floatN`s, declared once).
pub fn supported(db: &RootDatabase, file: slang_analysis::SourceFile, function: &str) -> bool {
    spec_of(db, file, "", &Options::new(function)).is_ok()
}

/// The analysis's part of a check of `options.function` in `file` (shown
/// in messages as `shown`): the function's signature, the kernel compiled
/// (on a database of its own: `db` is only read), the random inputs.
/// Errors are located messages.
pub fn prepare(
    db: &RootDatabase,
    file: slang_analysis::SourceFile,
    shown: &str,
    options: &Options,
) -> Result<Prepared, String> {
    let (spec, location) = spec_of(db, file, shown, options)?;
    let at = format!("{shown}:{}:{}", location.0, location.1);
    if options.samples == 0 {
        return Err("--samples must be at least 1".into());
    }
    if options.tolerance.is_nan() || options.tolerance <= 0.0 {
        return Err("--tolerance must be positive".into());
    }

    // The kernel, appended to the file so that its lines keep their numbers.
    let kernel = kernel(&spec, options.samples);
    let full = format!("{}\n{kernel}", file.text(db));
    let (db, file) = db.with_file_text(file, &full);
    let (db, file) = db.with_macros_expanded(file).unwrap_or((db, file));
    let program = Program::from_db(&db, file, "gradcheck_main", &[])
        .map_err(|e| format!("{at}: cannot compile the gradient check of `{}`: {e}", spec.function))?;

    // Inputs: uniform in each parameter's range, from a seeded generator.
    let mut rng = SplitMix(options.seed);
    let mut inputs = Vec::with_capacity((options.samples * spec.n_in()) as usize);
    for _ in 0..options.samples {
        for p in &spec.params {
            for _ in 0..p.width {
                inputs.push(p.lo + (p.hi - p.lo) * rng.unit());
            }
        }
    }
    let buffer =
        |name: &str| program.global(name).ok_or_else(|| format!("the gradient-check kernel lost its buffer `{name}`"));
    let (inb, outb) = (buffer("gradcheck_in")?, buffer("gradcheck_out")?);
    Ok(Prepared {
        in_buffer: (inb.group, inb.binding, inb.read_only),
        out_buffer: (outb.group, outb.binding),
        wgsl: program.wgsl,
        spec,
        options: options.clone(),
        location,
        at,
        inputs,
    })
}

/// Run a prepared check on `gpu` and compare.
pub fn execute(gpu: &Gpu, prepared: &Prepared) -> Result<Report, String> {
    let Prepared { spec, options, at, inputs, .. } = prepared;
    let bindings = [
        Binding {
            group: prepared.in_buffer.0,
            binding: prepared.in_buffer.1,
            kind: BufferKind::Storage { read_only: prepared.in_buffer.2 },
            data: inputs.iter().flat_map(|v| v.to_le_bytes()).collect(),
            read_back: false,
        },
        Binding {
            group: prepared.out_buffer.0,
            binding: prepared.out_buffer.1,
            kind: BufferKind::Storage { read_only: false },
            data: vec![0; (options.samples * spec.stride() * 4) as usize],
            read_back: true,
        },
    ];
    let job = Dispatch {
        wgsl: &prepared.wgsl,
        entry: "gradcheck_main",
        bindings: &bindings,
        textures: &[],
        samplers: &[],
        groups: [options.samples.div_ceil(GROUP), 1, 1],
    };
    let out = gpu
        .run(&job)
        .map_err(|e| format!("{at}: the gradient check of `{}` failed on the device: {e}", spec.function))?;
    let out: Vec<f32> = out[0].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let (lines, mismatches) = compare(spec, options, inputs, &out);
    let (line, col) = prepared.location;
    Ok(Report { function: spec.function.clone(), line, col, lines, mismatches })
}

/// The function's parameters and result, or why they are not supported;
/// and the 1-based line and column of its name.
fn spec_of(
    db: &RootDatabase,
    file: slang_analysis::SourceFile,
    shown: &str,
    args: &Options,
) -> Result<(Spec, (u32, u32)), String> {
    let defs = functions_named(db, file, &args.function);
    let def = match defs.as_slice() {
        [] => return Err(format!("{shown}: no function named `{}`", args.function)),
        [def] => *def,
        _ => {
            return Err(format!(
                "{shown}: `{}` has {} overloads; gradcheck checks a function with one declaration",
                args.function,
                defs.len()
            ))
        }
    };
    let text = file.text(db);
    let location = slang_analysis::hir::def_node(db, def)
        .map(|n| {
            let name = n.children().find(|c| c.kind() == slang_syntax::SyntaxKind::NAME);
            let start = name.map_or(n.text_range().start(), |c| c.text_range().start());
            slang_syntax::line_col(text, start)
        })
        .unwrap_or((1, 1));
    let at = format!("{shown}:{}:{}", location.0, location.1);
    let f = &args.function;
    if !fn_differentiability(db, file, def).allows(Mode::Backward) {
        return Err(format!("{at}: `{f}` is not differentiable (mark it `[Differentiable]`)"));
    }
    let sig = derivative_signature(db, def, Mode::Forward);
    if sig.this_param.is_some() || !sig.generic_params.is_empty() {
        return Err(format!("{at}: gradcheck supports free, non-generic functions; `{f}` is a method or generic"));
    }
    // `fwd_diff`'s signature: the differentiable types are in pairs.
    let primal = |ty: &Ty| match ty {
        Ty::Adt { name, args, .. } if name == "DifferentialPair" && args.len() == 1 => args[0].clone(),
        _ => ty.clone(),
    };
    let float_width = |ty: &Ty| match primal(ty) {
        Ty::Scalar(Scalar::Float) => Some((1, false)),
        Ty::Vector(Scalar::Float, n @ 2..=4) => Some((n as u32, true)),
        _ => None,
    };
    let mut params = Vec::new();
    for p in &sig.params {
        let what = |why: &str| format!("{at}: gradcheck does not support parameter `{}` of `{f}`: {why}", p.name);
        if p.dir != Dir::In {
            return Err(what("only `in` parameters are supported (not `out` or `inout`)"));
        }
        if p.diff == TypeDiff::No {
            return Err(what("it is `no_diff` (only differentiable `float`/`floatN` parameters are supported)"));
        }
        let Some((width, vector)) = float_width(&p.ty) else {
            return Err(what(&format!(
                "its type is `{}`; supported are `float` and `float2`..`float4`",
                primal(&p.ty)
            )));
        };
        params.push(Param { name: p.name.clone(), width, vector, lo: -1.0, hi: 1.0 });
    }
    if params.is_empty() {
        return Err(format!("{at}: `{f}` has no parameters to differentiate"));
    }
    let Some((out_width, out_vector)) = float_width(&sig.ret) else {
        return Err(format!(
            "{at}: gradcheck does not support the result type `{}` of `{f}`; supported are `float` and `float2`..`float4`",
            primal(&sig.ret)
        ));
    };
    for r in &args.ranges {
        let parsed = r.split_once('=').and_then(|(name, range)| {
            let (lo, hi) = range.split_once(':')?;
            Some((name.trim(), lo.trim().parse::<f32>().ok()?, hi.trim().parse::<f32>().ok()?))
        });
        let Some((name, lo, hi)) = parsed.filter(|(_, lo, hi)| lo.is_finite() && hi.is_finite() && lo <= hi) else {
            return Err(format!("--range `{r}`: expected PARAM=LO:HI with finite LO <= HI"));
        };
        let Some(p) = params.iter_mut().find(|p| p.name == name) else {
            let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            return Err(format!(
                "--range `{r}`: `{f}` has no parameter `{name}` (its parameters: {})",
                names.join(", ")
            ));
        };
        (p.lo, p.hi) = (lo, hi);
    }
    Ok((Spec { function: f.clone(), params, out_width, out_vector }, location))
}

/// The Slang text of the kernel `gradcheck_main`.
fn kernel(spec: &Spec, samples: u32) -> String {
    let f = &spec.function;
    let (n_in, n_out) = (spec.n_in(), spec.out_width);
    let mut k = String::new();
    let _ = writeln!(k, "// slang-analyzer gradcheck: the kernel that checks `{f}`.");
    k.push_str("RWStructuredBuffer<float> gradcheck_in;\nRWStructuredBuffer<float> gradcheck_out;\n\n");
    let _ = writeln!(k, "[numthreads({GROUP}, 1, 1)]");
    k.push_str("void gradcheck_main(uint3 gradcheck_tid : SV_DispatchThreadID)\n{\n");
    let _ = writeln!(k, "    uint s = gradcheck_tid.x;\n    if (s >= {samples}) return;");
    let _ = writeln!(k, "    uint ib = s * {n_in};\n    uint ob = s * {};", spec.stride());
    // The sample's arguments.
    let mut offset = 0;
    for (p, param) in spec.params.iter().enumerate() {
        let comps: Vec<String> = (0..param.width).map(|c| format!("gradcheck_in[ib + {}]", offset + c)).collect();
        offset += param.width;
        let _ = writeln!(k, "    {} a{p} = {}({});", param.ty(), param.ty(), comps.join(", "));
    }
    let out_ty = if spec.out_vector { format!("float{n_out}") } else { "float".into() };
    let comp =
        |v: &str, vector: bool, c: u32| if vector { format!("{v}.{}", SWIZZLE[c as usize]) } else { v.to_string() };
    // `e_c` of a parameter's type, times `s`.
    let unit = |param: &Param, c: u32, s: &str| {
        if param.vector {
            let parts: Vec<&str> = (0..param.width).map(|i| if i == c { s } else { "0.0" }).collect();
            format!("{}({})", param.ty(), parts.join(", "))
        } else {
            s.to_string()
        }
    };
    let zero = |param: &Param| unit(param, u32::MAX, "0.0");
    let args_with = |p: usize, replacement: &str| -> String {
        (0..spec.params.len())
            .map(|q| if q == p { replacement.to_string() } else { format!("a{q}") })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let comps = spec.components();
    // Finite differences: index ((k * n_in) + i) * n_out + j.
    for (ks, step) in STEPS.iter().enumerate() {
        for (i, &(p, c)) in comps.iter().enumerate() {
            let param = &spec.params[p];
            let x = comp(&format!("a{p}"), param.vector, c);
            k.push_str("    {\n");
            let _ = writeln!(k, "        float h = {step:e} * max(1.0, abs({x}));");
            let _ = writeln!(k, "        {} xp = a{p} + {};", param.ty(), unit(param, c, "h"));
            let _ = writeln!(k, "        {} xm = a{p} - {};", param.ty(), unit(param, c, "h"));
            let _ =
                writeln!(k, "        float step = {} - {};", comp("xp", param.vector, c), comp("xm", param.vector, c));
            let _ = writeln!(k, "        {out_ty} rp = {f}({});", args_with(p, "xp"));
            let _ = writeln!(k, "        {out_ty} rm = {f}({});", args_with(p, "xm"));
            for j in 0..n_out {
                let index = (ks as u32 * n_in + i as u32) * n_out + j;
                let (rp, rm) = (comp("rp", spec.out_vector, j), comp("rm", spec.out_vector, j));
                let _ = writeln!(k, "        gradcheck_out[ob + {index}] = ({rp} - {rm}) / step;");
            }
            k.push_str("    }\n");
        }
    }
    let base_fwd = STEPS.len() as u32 * n_in * n_out;
    // Forward mode: index base_fwd + i * n_out + j.
    for (i, &(p, c)) in comps.iter().enumerate() {
        let pairs: Vec<String> = spec
            .params
            .iter()
            .enumerate()
            .map(|(q, param)| {
                let tangent = if q == p { unit(param, c, "1.0") } else { zero(param) };
                format!("diffPair(a{q}, {tangent})")
            })
            .collect();
        k.push_str("    {\n");
        let _ = writeln!(k, "        var r = fwd_diff({f})({});", pairs.join(", "));
        for j in 0..n_out {
            let _ = writeln!(
                k,
                "        gradcheck_out[ob + {}] = {};",
                base_fwd + i as u32 * n_out + j,
                comp("r.d", spec.out_vector, j)
            );
        }
        k.push_str("    }\n");
    }
    // Backward mode: index base_bwd + j * n_in + i.
    let base_bwd = base_fwd + n_in * n_out;
    for j in 0..n_out {
        k.push_str("    {\n");
        for q in 0..spec.params.len() {
            let _ = writeln!(k, "        var p{q} = diffPair(a{q});");
        }
        let seed = if spec.out_vector {
            let parts: Vec<&str> = (0..n_out).map(|i| if i == j { "1.0" } else { "0.0" }).collect();
            format!("{out_ty}({})", parts.join(", "))
        } else {
            "1.0".into()
        };
        let pairs: Vec<String> = (0..spec.params.len()).map(|q| format!("p{q}")).collect();
        let _ = writeln!(k, "        bwd_diff({f})({}, {seed});", pairs.join(", "));
        for (i, &(p, c)) in comps.iter().enumerate() {
            let d = comp(&format!("p{p}.d"), spec.params[p].vector, c);
            let _ = writeln!(k, "        gradcheck_out[ob + {}] = {d};", base_bwd + j * n_in + i as u32);
        }
        k.push_str("    }\n");
    }
    k.push_str("}\n");
    k
}

/// The worst error of one derivative of one parameter over the samples.
#[derive(Debug, Clone, Copy, Default)]
struct Worst {
    error: f64,
    sample: usize,
    /// Input component and result component.
    i: usize,
    j: u32,
    derivative: f32,
    fd: f32,
}

/// The report's lines and the mismatches.
fn compare(spec: &Spec, args: &Options, inputs: &[f32], out: &[f32]) -> (Vec<String>, Vec<String>) {
    let (n_in, n_out) = (spec.n_in() as usize, spec.out_width as usize);
    let stride = spec.stride() as usize;
    let comps = spec.components();
    let base_fwd = STEPS.len() * n_in * n_out;
    let base_bwd = base_fwd + n_in * n_out;
    // Per parameter: [fwd, bwd].
    let mut worst = vec![[Worst::default(); 2]; spec.params.len()];
    let mut skipped = 0usize;
    for s in 0..args.samples as usize {
        let row = &out[s * stride..(s + 1) * stride];
        let mut usable = true;
        for (i, &(p, _)) in comps.iter().enumerate() {
            for j in 0..n_out {
                let fds: Vec<f32> =
                    (0..STEPS.len()).map(|k| row[(k * n_in + i) * n_out + j]).filter(|v| v.is_finite()).collect();
                if fds.is_empty() {
                    usable = false;
                    continue;
                }
                let derivatives = [row[base_fwd + i * n_out + j], row[base_bwd + j * n_in + i]];
                for (mode, &d) in derivatives.iter().enumerate() {
                    // The step whose difference is nearest the derivative.
                    let (error, fd) = fds
                        .iter()
                        .map(|&fd| {
                            let e = if d.is_finite() {
                                (d as f64 - fd as f64).abs() / (fd as f64).abs().max(FLOOR)
                            } else {
                                f64::INFINITY
                            };
                            (e, fd)
                        })
                        .fold((f64::INFINITY, fds[0]), |a, b| if b.0 < a.0 { b } else { a });
                    let w = &mut worst[p][mode];
                    if error > w.error {
                        *w = Worst { error, sample: s, i, j: j as u32, derivative: d, fd };
                    }
                }
            }
        }
        if !usable {
            skipped += 1;
        }
    }
    let input_text = |s: usize| -> String {
        let x = &inputs[s * n_in..(s + 1) * n_in];
        let mut offset = 0;
        let parts: Vec<String> = spec
            .params
            .iter()
            .map(|p| {
                let v = &x[offset..offset + p.width as usize];
                offset += p.width as usize;
                if p.vector {
                    let c: Vec<String> = v.iter().map(|c| format!("{c}")).collect();
                    format!("{} = {}({})", p.name, p.ty(), c.join(", "))
                } else {
                    format!("{} = {}", p.name, v[0])
                }
            })
            .collect();
        parts.join(", ")
    };
    let f = &spec.function;
    let mut lines = vec![format!(
        "gradcheck `{f}`: {} samples (seed {}), tolerance {}, finite-difference steps {:?}",
        args.samples, args.seed, args.tolerance, STEPS
    )];
    if skipped > 0 {
        lines.push(format!("  {skipped} samples where the function is not finite were left out"));
    }
    let mut errors = Vec::new();
    for (p, param) in spec.params.iter().enumerate() {
        lines.push(format!("  {} ({}, range {}:{}):", param.name, param.ty(), param.lo, param.hi));
        for (mode, op) in ["fwd_diff", "bwd_diff"].iter().enumerate() {
            let w = worst[p][mode];
            let verdict = if w.error <= args.tolerance { "ok" } else { "MISMATCH" };
            lines.push(format!("    {op}: max relative error {:.2e} at {} ({verdict})", w.error, input_text(w.sample)));
            if w.error > args.tolerance {
                let (cp, cc) = comps[w.i];
                errors.push(format!(
                    "{op}({f}) disagrees with finite differences: d {}/d {} is {} but finite differences give {} \
                     (relative error {:.2e} > tolerance {}) at {}",
                    spec.result_label(w.j),
                    spec.param_label(cp, cc),
                    w.derivative,
                    w.fd,
                    w.error,
                    args.tolerance,
                    input_text(w.sample)
                ));
            }
        }
    }
    if errors.is_empty() {
        lines.push(format!("gradcheck `{f}`: ok"));
    }
    (lines, errors)
}

/// splitmix64: a small, well-mixed generator (the inputs only need to be
/// spread and reproducible).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}
