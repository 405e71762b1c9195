//! The compute test runner behind `slang-analyzer test`: Slang's own
//! test-file conventions (`//TEST` and `//TEST_INPUT` lines), run on a real
//! Vulkan device through wgpu.
//!
//! One test file goes through: [`directives`] (which `//TEST` line to run,
//! the `//TEST_INPUT` buffers) → [`program`] (compile the entry point to
//! WGSL with our code generator, or with the reference `slangc`) → [`gpu`]
//! (bind the buffers by the program's bindings, dispatch, read back) →
//! [`output`] (print the `out` buffer as Slang's runner does) → compare
//! with the `.expected.txt` file or the file's `CHECK` lines
//! ([`filecheck`]).
//!
//! Every way a test can go wrong ends in [`Outcome::Fail`] with a reason;
//! the runner itself only stops when there is no device.

pub mod directives;
pub mod filecheck;
pub mod gpu;
pub mod output;
pub mod program;

use std::path::{Path, PathBuf};

use directives::{BufferInput, Input, TestLine};
use gpu::{Binding, BufferKind, Dispatch, Gpu};
use output::{ElementLayout, OutputFormat, ScalarType};
use program::{Compiler, Program};

use crate::FrontendArgs;

/// How a test file ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Pass,
    /// The first mismatch or the error, on one line.
    Fail(String),
    /// Not run, with the reason (e.g. only CUDA lines).
    Skip(String),
    /// Not a test: a helper module (`//TEST_IGNORE_FILE`) or no `//TEST`
    /// line at all.
    NotATest,
}

/// A test's outcome and its printed output buffer (when it got that far).
#[derive(Debug, Clone)]
pub struct Report {
    pub outcome: Outcome,
    pub output: Option<Vec<String>>,
}

/// What every test of a run shares.
pub struct Settings {
    pub compiler: Compiler,
    pub frontend: FrontendArgs,
}

/// Run the test file at `path`.
pub fn run_file(gpu: &Gpu, settings: &Settings, path: &Path) -> Report {
    let mut output = None;
    let outcome = match std::fs::read_to_string(path) {
        Ok(source) => run_source(gpu, settings, path, &source, &mut output).unwrap_or_else(|e| e),
        Err(e) => Outcome::Fail(format!("cannot read the file: {e}")),
    };
    Report { outcome, output }
}

/// `Err` carries the outcome of a test that stopped early.
fn run_source(
    gpu: &Gpu,
    settings: &Settings,
    path: &Path,
    source: &str,
    printed: &mut Option<Vec<String>>,
) -> Result<Outcome, Outcome> {
    let file = directives::parse(source);
    if file.ignore_file || file.tests.is_empty() {
        return Ok(Outcome::NotATest);
    }
    let lines = choose_test_lines(&file.tests)?;
    let several = lines.len() > 1;
    for test in lines {
        match run_line(gpu, settings, path, source, &file, test, printed) {
            Ok(Outcome::Pass) => {}
            // (Which line, when there are several.)
            Ok(Outcome::Fail(e)) | Err(Outcome::Fail(e)) if several => {
                return Ok(Outcome::Fail(format!("TEST line {}: {e}", test.line)))
            }
            other => return other,
        }
    }
    Ok(Outcome::Pass)
}

/// Run one `//TEST` line of a test file.
fn run_line(
    gpu: &Gpu,
    settings: &Settings,
    path: &Path,
    source: &str,
    file: &directives::TestFile,
    test: &TestLine,
    printed: &mut Option<Vec<String>>,
) -> Result<Outcome, Outcome> {
    let fail = |reason: String| Outcome::Fail(reason);
    let mut inputs = Vec::new();
    let mut conformances = Vec::new();
    // `set p = new T{ … }`: one input per field (`p.field`).
    let mut expanded = Vec::new();
    for input in &file.inputs {
        if let Input::Struct { line, name, ty, values } = input {
            let fields = struct_fields(path, &settings.frontend, ty).map_err(|e| fail(format!("line {line}: {e}")))?;
            if values.len() > fields.len() {
                return Err(fail(format!(
                    "line {line}: {} values for the {} fields of `{ty}`",
                    values.len(),
                    fields.len()
                )));
            }
            for (value, field) in values.iter().zip(fields) {
                expanded.push(match value {
                    directives::FieldValue::Buffer(b) => {
                        Input::Buffer(BufferInput { name: format!("{name}.{field}"), ..b.clone() })
                    }
                    directives::FieldValue::Data(b) => {
                        Input::Uniform(BufferInput { name: format!("{name}.{field}"), ..b.clone() })
                    }
                    directives::FieldValue::Texture(t) => {
                        Input::Texture(directives::TextureInput { name: format!("{name}.{field}"), ..t.clone() })
                    }
                    directives::FieldValue::Sampler => Input::Sampler { line: *line, name: format!("{name}.{field}") },
                });
            }
        }
    }
    // Textures and samplers: (name, line, what).
    let mut handles: Vec<(&str, usize, Option<&directives::TextureInput>)> = Vec::new();
    for input in file.inputs.iter().chain(&expanded) {
        match input {
            Input::Struct { .. } => {}
            Input::Texture(t) => handles.push((&t.name, t.line, Some(t))),
            Input::Sampler { line, name } => handles.push((name, *line, None)),
            Input::Buffer(b) => inputs.push((b, false)),
            Input::Uniform(b) => inputs.push((b, true)),
            // The ids `createDynamicObject` names conforming types by
            // (our code generator otherwise tags the conforming structs
            // in declaration order; slangc needs them for any dynamic
            // dispatch).
            Input::TypeConformance { ty, interface, id } => {
                conformances.push(slang_codegen::Conformance { ty: ty.clone(), interface: interface.clone(), id: *id })
            }
            Input::Unsupported { line, reason } => return Err(fail(format!("line {line}: {reason}"))),
        }
    }
    let groups = test.dispatch().map_err(|e| fail(format!("line {}: {e}", test.line)))?;
    let entry = test.entry();
    let program =
        Program::compile(&settings.compiler, path, &entry, &settings.frontend, &test.compiler_args(), &conformances)
            .map_err(fail)?;

    // Bind each input to the global of its name; `out` buffers are read
    // back (an `out` buffer the program does not use keeps its data).
    let mut bindings: Vec<Binding> = Vec::new();
    // Per `out` buffer: its element layout, and its initial data when the
    // program does not have it (else it is read back, in binding order).
    let mut outs: Vec<(Option<ElementLayout>, Option<Vec<u8>>)> = Vec::new();
    for (input, is_uniform) in &inputs {
        let mut data = input.data.clone();
        data.resize(input.size(), 0);
        let Some(global) = program.global(&input.name) else {
            if input.out {
                outs.push((None, Some(data)));
            }
            continue;
        };
        if global.uniform != *is_uniform {
            let (want, got) = if global.uniform { ("a constant", "ubuffer") } else { ("a storage", "cbuffer") };
            return Err(fail(format!(
                "line {}: `{}` is {want} buffer in the shader but its TEST_INPUT is a {got}",
                input.line, input.name
            )));
        }
        // A runtime-sized array needs at least one element bound.
        let stride = global.element.as_ref().map_or(4, |e| e.stride as usize);
        if let Some(size) = input.element_size.filter(|&s| s as usize != stride) {
            return Err(fail(format!(
                "line {}: the values of `{}` give elements of {size} bytes, but the shader's are {stride} bytes \
                 (values with padding between them are not supported yet)",
                input.line, input.name
            )));
        }
        if data.len() < stride {
            data.resize(stride, 0);
        }
        let kind =
            if global.uniform { BufferKind::Uniform } else { BufferKind::Storage { read_only: global.read_only } };
        if input.out {
            outs.push((global.element.clone(), None));
        }
        if global.uniform {
            // The data (as the test gives it, raw) at its member's offset,
            // in the one buffer all the members share.
            let at = global.offset as usize;
            let index = match bindings.iter().position(|b| (b.group, b.binding) == (global.group, global.binding)) {
                Some(i) => i,
                None => {
                    bindings.push(Binding {
                        group: global.group,
                        binding: global.binding,
                        kind,
                        data: Vec::new(),
                        read_back: false,
                    });
                    bindings.len() - 1
                }
            };
            let buffer = &mut bindings[index].data;
            let size = buffer.len().max(global.size as usize).max(at + data.len());
            buffer.resize(size, 0);
            buffer[at..at + data.len()].copy_from_slice(&data);
            continue;
        }
        bindings.push(Binding { group: global.group, binding: global.binding, kind, data, read_back: input.out });
    }
    let mut textures = Vec::new();
    let mut samplers = Vec::new();
    for &(name, line, texture) in &handles {
        let Some((group, binding)) = program.handle(name) else {
            return Err(fail(format!("line {line}: the shader has no texture or sampler `{name}`")));
        };
        match texture {
            Some(t) if t.writable => {
                let Some(format) = program.storage_format(name).and_then(gpu::storage_texture_format) else {
                    return Err(fail(format!(
                        "line {line}: `{name}` is not a writable texture of float, int or uint texels in the shader"
                    )));
                };
                let texels = t.storage_texels(format.components() as usize);
                textures.push(gpu::TextureBinding {
                    group,
                    binding,
                    dim: t.dim,
                    storage: Some(format),
                    layers: t.layers,
                    size: t.size,
                    // (Every layer of an array holds the same.)
                    levels: vec![gpu::storage_bytes(&texels, format).repeat(t.layers.max(1) as usize)],
                })
            }
            Some(t) => textures.push(gpu::TextureBinding {
                group,
                binding,
                dim: t.dim,
                storage: None,
                layers: t.layers,
                size: t.size,
                levels: (0..t.mip_levels).map(|l| t.level_data(l).repeat(t.layers.max(1) as usize)).collect(),
            }),
            None => samplers.push((group, binding)),
        }
    }
    for name in program.global_names() {
        // A parameter block's buffer `p_field` or constant buffer `p` is
        // given by inputs for `p.field`.
        let given = |i: &str| {
            i == name || i.replace('.', "_") == name || i.strip_prefix(&name).is_some_and(|r| r.starts_with('.'))
        };
        if !inputs.iter().any(|(i, _)| given(&i.name)) && !handles.iter().any(|h| given(h.0)) {
            return Err(fail(format!("shader parameter `{name}` has no TEST_INPUT")));
        }
    }
    if outs.is_empty() {
        return Err(fail("no `out` buffer among the TEST_INPUT lines".into()));
    }

    let read = gpu
        .run(&Dispatch {
            wgsl: &program.wgsl,
            entry: &entry,
            bindings: &bindings,
            textures: &textures,
            samplers: &samplers,
            groups,
        })
        .map_err(|e| fail(format!("GPU: {e}")))?;
    let mut read = read.into_iter();
    let expected_path = expected_file(path);
    let mut lines: Vec<String> = Vec::new();
    for (element, initial) in outs {
        let bytes = initial.unwrap_or_else(|| read.next().unwrap_or_default());
        let format = if test.output_using_type() {
            let layout = element.or_else(|| header_type(&expected_path).map(ElementLayout::scalar));
            OutputFormat::Typed(
                layout.ok_or_else(|| fail("cannot print the output buffer's element type".to_string()))?,
            )
        } else {
            OutputFormat::Hex
        };
        let rendered = output::render(&bytes, &format);
        // One `type:` header for the whole print.
        let skip = usize::from(!lines.is_empty() && matches!(format, OutputFormat::Typed(_)));
        lines.extend(rendered.into_iter().skip(skip));
    }
    *printed = Some(lines.clone());

    let verdict = match &test.filecheck_buffer {
        Some(prefix) => {
            let mut text = lines.join("\n");
            text.push('\n');
            filecheck::check(&text, source, prefix)
        }
        None => match std::fs::read_to_string(&expected_path) {
            Ok(expected) => output::compare_expected(&lines, &expected),
            Err(_) => Err(format!("no expected output: {} not found", expected_path.display())),
        },
    };
    Ok(match verdict {
        Ok(()) => Outcome::Pass,
        Err(e) => Outcome::Fail(e),
    })
}

/// The names of the fields of the struct `ty` declared in the test file
/// (or a module it imports), in declaration order.
fn struct_fields(path: &Path, frontend: &FrontendArgs, ty: &str) -> Result<Vec<String>, String> {
    let (db, _) = crate::cli_check::load_single(path, frontend)?;
    for file in slang_analysis::Workspace::get(&db).files(&db).iter() {
        let tree = slang_analysis::item_tree::item_tree(&db, *file);
        let found = tree.walk().find(|i| {
            matches!(i.kind, slang_analysis::ItemKind::Struct | slang_analysis::ItemKind::Class)
                && i.name.as_deref() == Some(ty)
        });
        if let Some(item) = found {
            return Ok(item
                .members
                .iter()
                .filter(|m| m.kind == slang_analysis::ItemKind::Var && !m.is_static)
                .filter_map(|m| m.name.clone())
                .collect());
        }
    }
    Err(format!("`new {ty}{{…}}`: no struct `{ty}` in the test"))
}

/// The compute lines to run: one per distinct set of compiler arguments
/// (`-xslang -DX=1` and `-DX=2` lines compute different things), each
/// time the line meant for Vulkan-like APIs if there is one, else another
/// API's, else a `-cpu` one (the same computation). Lines that need CUDA
/// are not run; a file with only those is skipped.
fn choose_test_lines(tests: &[TestLine]) -> Result<Vec<&TestLine>, Outcome> {
    let compute: Vec<&TestLine> = tests.iter().filter(|t| t.is_compute()).collect();
    if compute.is_empty() {
        let kinds: Vec<&str> = tests.iter().map(|t| t.kind.as_str()).collect();
        return Err(Outcome::Skip(format!("no compute test line ({})", kinds.join(", "))));
    }
    let runnable: Vec<&TestLine> = compute.iter().copied().filter(|t| t.needs_other_backend().is_none()).collect();
    let rank = |t: &TestLine| {
        if t.is_vulkan_like() {
            0
        } else if t.is_cpu() {
            2
        } else {
            1
        }
    };
    let mut chosen: Vec<&TestLine> = Vec::new();
    for t in &runnable {
        let key = (t.compiler_args(), t.filecheck_buffer.clone(), t.entry());
        match chosen.iter().position(|c| (c.compiler_args(), c.filecheck_buffer.clone(), c.entry()) == key) {
            Some(i) if rank(t) < rank(chosen[i]) => chosen[i] = t,
            Some(_) => {}
            None => chosen.push(t),
        }
    }
    if chosen.is_empty() {
        let needs = compute[0].needs_other_backend().unwrap_or("another backend");
        return Err(Outcome::Skip(format!("its compute test lines need {needs}")));
    }
    Ok(chosen)
}

/// `foo.slang` → `foo.slang.expected.txt`.
pub fn expected_file(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".expected.txt");
    PathBuf::from(name)
}

/// The scalar type in the `type:` header of an expected file.
fn header_type(expected: &Path) -> Option<ScalarType> {
    let text = std::fs::read_to_string(expected).ok()?;
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    ScalarType::from_slang_name(first.trim().strip_prefix("type:")?.trim())
}
