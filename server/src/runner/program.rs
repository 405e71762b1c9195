//! A test's shader as the GPU runs it: WGSL text plus what the runner
//! needs to bind it (the naga module it was written from, for the names,
//! bindings and element types of the global buffers).
//!
//! Two compilers make one: slang-analyzer's own code generator, or the
//! reference `slangc` (`-target wgsl`), so the reference compiler's results
//! on the same device can be compared with ours.

use std::path::{Path, PathBuf};
use std::process::Command;

use naga::proc::Layouter;

use super::output::{ElementLayout, ScalarType};
use crate::FrontendArgs;

/// The compiler that turns a test into WGSL.
#[derive(Debug, Clone)]
pub enum Compiler {
    /// slang-analyzer's code generator (through naga).
    Ours,
    /// The reference compiler at this path.
    Slangc(PathBuf),
}

/// The constant buffers the compilers pack `uniform` globals and entry-point
/// parameters into.
const DEFAULT_BUFFERS: [&str; 2] = ["globalParams", "entryPointParams"];

/// A compiled test shader.
pub struct Program {
    pub wgsl: String,
    module: naga::Module,
    /// Whether global names carry slangc's `_<n>` suffixes.
    mangled_names: bool,
}

/// A global buffer of the program.
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalBuffer {
    pub group: u32,
    pub binding: u32,
    /// A constant buffer (else a storage buffer).
    pub uniform: bool,
    /// A storage buffer the shader does not write.
    pub read_only: bool,
    /// The element layout of a runtime-sized array (or of the whole
    /// contents, for other types); `None` when it has no scalars this
    /// runner prints.
    pub element: Option<ElementLayout>,
    /// Where the input's data goes in the buffer: 0 for a buffer of its
    /// own, the member's offset for a member of a constant buffer (a
    /// `uniform` global or entry-point parameter, in the program's
    /// `globalParams` or `entryPointParams`).
    pub offset: u32,
    /// The size of the buffer's contents (0 for a runtime-sized array).
    pub size: u32,
}

impl Program {
    /// Compile the entry point `entry` of the test file at `path`;
    /// `extra_args` are the test line's `-xslang` words (our compiler takes
    /// the `-D` ones).
    pub fn compile(
        compiler: &Compiler,
        path: &Path,
        entry: &str,
        frontend: &FrontendArgs,
        extra_args: &[String],
        conformances: &[slang_codegen::Conformance],
    ) -> Result<Program, String> {
        match compiler {
            Compiler::Ours => {
                let mut frontend = frontend.clone();
                frontend.defines.extend(extra_args.iter().filter_map(|a| a.strip_prefix("-D")).map(str::to_string));
                compile_ours(path, entry, &frontend, conformances)
            }
            Compiler::Slangc(slangc) => {
                let mut args = extra_args.to_vec();
                for c in conformances {
                    args.push("-conformance".into());
                    args.push(format!("{}:{}={}", c.ty, c.interface, c.id));
                }
                compile_slangc(slangc, path, entry, frontend, &args)
            }
        }
    }

    /// Whether `name` (in the program) is `source_name` (in the source).
    fn names(&self, name: Option<&str>, source_name: &str) -> bool {
        name.is_some_and(|n| n == source_name || (self.mangled_names && demangle(n) == source_name))
    }

    /// The global buffer named `name` in the source, or the constant
    /// buffer with a member of that name, if the program has it.
    pub fn global(&self, name: &str) -> Option<GlobalBuffer> {
        let mut layouter = Layouter::default();
        layouter.update(self.module.to_ctx()).ok()?;
        let types = &self.module.types;
        // `block.field`: the parameter `block_field` (a buffer in a
        // parameter block), or the member `field` of the constant buffer
        // `block`.
        if let Some((block, field)) = name.rsplit_once('.') {
            let flat = name.replace('.', "_");
            let found = self.module.global_variables.iter().find(|(_, v)| self.names(v.name.as_deref(), &flat));
            let (var, offset, ty) = match found {
                Some((_, var)) => (var, 0, var.ty),
                None => {
                    let (_, var) = self.module.global_variables.iter().find(|(_, v)| {
                        v.space == naga::AddressSpace::Uniform
                            && self.names(v.name.as_deref(), &block.replace('.', "_"))
                    })?;
                    let naga::TypeInner::Struct { members, .. } = &types[var.ty].inner else { return None };
                    let m = members.iter().find(|m| self.names(m.name.as_deref(), field))?;
                    (var, m.offset, m.ty)
                }
            };
            return self.buffer(var, offset, ty, &layouter);
        }
        let (var, offset, ty) =
            match self.module.global_variables.iter().find(|(_, v)| self.names(v.name.as_deref(), name)) {
                Some((_, var)) => (var, 0, var.ty),
                None => self
                    .module
                    .global_variables
                    .iter()
                    .filter(|(_, v)| v.space == naga::AddressSpace::Uniform)
                    .find_map(|(_, var)| match &types[var.ty].inner {
                        naga::TypeInner::Struct { members, .. } => {
                            members.iter().find(|m| self.names(m.name.as_deref(), name)).map(|m| (var, m.offset, m.ty))
                        }
                        _ => None,
                    })?,
            };
        self.buffer(var, offset, ty, &layouter)
    }

    /// The workgroup size of the entry point `entry` (or of the only one).
    pub fn workgroup_size(&self, entry: &str) -> Option<[u32; 3]> {
        let points = &self.module.entry_points;
        let point =
            points.iter().find(|e| e.name == entry).or(if points.len() == 1 { points.first() } else { None })?;
        Some(point.workgroup_size)
    }

    /// `(group, binding)` of the texture or sampler global named `name`.
    pub fn handle(&self, name: &str) -> Option<(u32, u32)> {
        let var = self.handle_var(name)?;
        let b = var.binding.as_ref()?;
        Some((b.group, b.binding))
    }

    fn handle_var(&self, name: &str) -> Option<&naga::GlobalVariable> {
        let flat = name.replace('.', "_");
        let (_, var) = self
            .module
            .global_variables
            .iter()
            .find(|(_, v)| v.space == naga::AddressSpace::Handle && self.names(v.name.as_deref(), &flat))?;
        Some(var)
    }

    /// The texel format of the writable texture `name` (`None`: not a
    /// writable texture).
    pub fn storage_format(&self, name: &str) -> Option<naga::StorageFormat> {
        let var = self.handle_var(name)?;
        match self.module.types[var.ty].inner {
            naga::TypeInner::Image { class: naga::ImageClass::Storage { format, .. }, .. } => Some(format),
            _ => None,
        }
    }

    /// The buffer `var` (its part of type `ty` at `offset`).
    fn buffer(
        &self,
        var: &naga::GlobalVariable,
        offset: u32,
        ty: naga::Handle<naga::Type>,
        layouter: &Layouter,
    ) -> Option<GlobalBuffer> {
        let binding = var.binding.as_ref()?;
        let (uniform, read_only) = match var.space {
            naga::AddressSpace::Storage { access } => (false, !access.contains(naga::StorageAccess::STORE)),
            naga::AddressSpace::Uniform => (true, true),
            _ => return None,
        };
        Some(GlobalBuffer {
            group: binding.group,
            binding: binding.binding,
            uniform,
            read_only,
            element: self.element_layout(ty),
            offset,
            size: layouter[var.ty].size,
        })
    }

    /// Every bound global of the program, by source name: for the default
    /// constant buffers of `uniform` globals and entry-point parameters,
    /// the names of their members.
    pub fn global_names(&self) -> Vec<String> {
        let source_name = |n: &str| if self.mangled_names { demangle(n).to_string() } else { n.to_string() };
        let mut names = Vec::new();
        for (_, v) in self.module.global_variables.iter().filter(|(_, v)| v.binding.is_some()) {
            let Some(name) = v.name.as_deref().map(source_name) else { continue };
            match &self.module.types[v.ty].inner {
                naga::TypeInner::Struct { members, .. } if DEFAULT_BUFFERS.contains(&name.as_str()) => {
                    names.extend(members.iter().filter_map(|m| m.name.as_deref()).map(source_name));
                }
                _ => names.push(name),
            }
        }
        names
    }

    fn element_layout(&self, ty: naga::Handle<naga::Type>) -> Option<ElementLayout> {
        let mut layouter = Layouter::default();
        layouter.update(self.module.to_ctx()).ok()?;
        let types = &self.module.types;
        let element = match types[ty].inner {
            naga::TypeInner::Array { base, size: naga::ArraySize::Dynamic, .. } => base,
            _ => ty,
        };
        let mut scalars = Vec::new();
        flatten(types, element, 0, &mut scalars);
        if scalars.is_empty() {
            return None;
        }
        let stride = layouter[element].to_stride();
        Some(ElementLayout { stride, scalars })
    }
}

/// The scalars of a naga type, by byte offset.
fn flatten(
    types: &naga::UniqueArena<naga::Type>,
    ty: naga::Handle<naga::Type>,
    offset: u32,
    out: &mut Vec<(u32, ScalarType)>,
) {
    match types[ty].inner {
        naga::TypeInner::Scalar(s) => out.extend(scalar_type(s).map(|t| (offset, t))),
        naga::TypeInner::Atomic(s) => out.extend(scalar_type(s).map(|t| (offset, t))),
        naga::TypeInner::Vector { size, scalar } => {
            if let Some(t) = scalar_type(scalar) {
                out.extend((0..size as u32).map(|i| (offset + i * scalar.width as u32, t)));
            }
        }
        naga::TypeInner::Matrix { columns, rows, scalar } => {
            // Column after column, in memory order (how the words are
            // printed; both compilers store Slang matrices by column).
            let Some(t) = scalar_type(scalar) else { return };
            let width = scalar.width as u32;
            let column_stride = if rows as u32 == 3 { 4 * width } else { rows as u32 * width };
            for c in 0..columns as u32 {
                for r in 0..rows as u32 {
                    out.push((offset + c * column_stride + r * width, t));
                }
            }
        }
        naga::TypeInner::Array { base, size: naga::ArraySize::Constant(n), stride } => {
            for i in 0..n.get() {
                flatten(types, base, offset + i * stride, out);
            }
        }
        naga::TypeInner::Struct { ref members, .. } => {
            for m in members {
                flatten(types, m.ty, offset + m.offset, out);
            }
        }
        _ => {}
    }
}

fn scalar_type(s: naga::Scalar) -> Option<ScalarType> {
    Some(match (s.kind, s.width) {
        (naga::ScalarKind::Float, 4) => ScalarType::F32,
        (naga::ScalarKind::Float, 8) => ScalarType::F64,
        (naga::ScalarKind::Sint, 4) => ScalarType::I32,
        (naga::ScalarKind::Uint, 4) => ScalarType::U32,
        (naga::ScalarKind::Sint, 8) => ScalarType::I64,
        (naga::ScalarKind::Uint, 8) => ScalarType::U64,
        _ => return None,
    })
}

/// `outputBuffer_0` → `outputBuffer` (slangc's WGSL names).
fn demangle(name: &str) -> &str {
    match name.rsplit_once('_') {
        Some((base, digits))
            if !base.is_empty() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            base
        }
        _ => name,
    }
}

fn compile_ours(
    path: &Path,
    entry: &str,
    frontend: &FrontendArgs,
    conformances: &[slang_codegen::Conformance],
) -> Result<Program, String> {
    let (db, file) = crate::cli_check::load_for_codegen(path, frontend)?;
    Program::from_db(&db, file, entry, conformances)
}

impl Program {
    /// Compile the entry point `entry` of `file` (loaded with its macro
    /// uses expanded) with our code generator.
    pub fn from_db(
        db: &slang_analysis::RootDatabase,
        file: slang_analysis::SourceFile,
        entry: &str,
        conformances: &[slang_codegen::Conformance],
    ) -> Result<Program, String> {
        let text = file.text(db);
        let describe = |errors: Vec<slang_codegen::CodegenError>| -> String {
            let shown: Vec<String> = errors
                .iter()
                .take(3)
                .map(|e| match e.range {
                    _ if e.file.is_some_and(|f| f != file) => {
                        format!("{}: {}", e.elsewhere(db, file).unwrap_or_default(), e.message)
                    }
                    Some(range) => {
                        let (line, col) = line_col(text, u32::from(range.start()) as usize);
                        format!("{line}:{col}: {}", e.message)
                    }
                    None => e.message.clone(),
                })
                .collect();
            let more = if errors.len() > 3 { format!(" (and {} more)", errors.len() - 3) } else { String::new() };
            format!("code generation: {}{more}", shown.join("; "))
        };
        let options = slang_codegen::Options { conformances: conformances.to_vec() };
        let ir = slang_codegen::lower_entry_point_with(db, file, entry, &options).map_err(describe)?;
        let module = slang_codegen::naga_out::build(&ir).map_err(|e| describe(vec![e]))?;
        let validated = slang_codegen::naga_out::validate(module).map_err(|e| describe(vec![e]))?;
        let wgsl = match slang_codegen::naga_out::write(&validated, slang_codegen::Target::Wgsl, entry) {
            Ok(slang_codegen::Output::Text(text)) => text,
            Ok(slang_codegen::Output::Binary(_)) => return Err("code generation: WGSL came out binary".into()),
            Err(e) => return Err(describe(vec![e])),
        };
        Ok(Program { wgsl, module: validated.module, mangled_names: false })
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

fn compile_slangc(
    slangc: &Path,
    path: &Path,
    entry: &str,
    frontend: &FrontendArgs,
    extra_args: &[String],
) -> Result<Program, String> {
    let out = std::env::temp_dir().join(format!("slang-analyzer-test-{}.wgsl", std::process::id()));
    let mut command = Command::new(slangc);
    command.arg(path).args(["-target", "wgsl", "-stage", "compute", "-entry", entry, "-o"]).arg(&out);
    for dir in &frontend.include_dirs {
        command.arg("-I").arg(dir);
    }
    for define in &frontend.defines {
        command.arg(format!("-D{define}"));
    }
    command.args(extra_args);
    // The wheel's slangc finds its libraries next to itself.
    if let Some(dir) = slangc.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut paths = vec![dir.to_path_buf()];
        paths.extend(std::env::split_paths(&std::env::var_os("LD_LIBRARY_PATH").unwrap_or_default()));
        command.env("LD_LIBRARY_PATH", std::env::join_paths(paths).map_err(|e| e.to_string())?);
    }
    let output = command.output().map_err(|e| format!("cannot run {}: {e}", slangc.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr.lines().find(|l| l.contains("error")).unwrap_or(stderr.trim());
        return Err(format!("slangc failed: {first}"));
    }
    let wgsl = std::fs::read_to_string(&out).map_err(|e| format!("reading slangc's output: {e}"));
    let _ = std::fs::remove_file(&out);
    let wgsl = wgsl?;
    let module = naga::front::wgsl::parse_str(&wgsl).map_err(|e| format!("slangc's WGSL: {}", e.message()))?;
    Ok(Program { wgsl, module, mangled_names: true })
}

#[cfg(test)]
mod tests {
    use super::demangle;

    #[test]
    fn demangles_slangc_names() {
        assert_eq!(demangle("outputBuffer_0"), "outputBuffer");
        assert_eq!(demangle("buf_1_0"), "buf_1");
        assert_eq!(demangle("plain"), "plain");
        assert_eq!(demangle("_0"), "_0");
    }
}
