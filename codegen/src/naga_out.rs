//! The naga backend: builds a [`naga::Module`] from the IR, validates it,
//! and writes the target languages. It only reads the IR.
//!
//! Control flow comes from the region tree ([`crate::structure`]):
//! `If`/`Loop`/`Switch` statements nest as the regions do. SSA values
//! become naga expressions where naga's scoping allows their uses (an
//! expression is visible in the block that emits it and the blocks nested
//! in it; a loop's `continuing` sees its body); a value used outside that
//! scope is stored into a local variable where it is defined and loaded
//! where it is used. Block parameters are local variables assigned on the
//! edges that pass them.
//!
//! Matrices: Slang's `float3x4` (3 rows of 4) is naga's `mat3x4` (3
//! columns of 4 rows), so a Slang row is a naga column, `m[i]` indexes the
//! same vector, and `mul(a, b)` is naga's `b * a`.
//!
//! Every expression and statement carries the span of the IR value it
//! comes from, so naga's validation errors point at Slang source.

use rustc_hash::FxHashMap as HashMap;
use std::num::NonZeroU32;

use naga::{Handle, Span};
use slang_analysis::ty::Scalar;
use slang_analysis::{TextRange, TextSize};

use crate::ir::{
    self, AddressSpace, BinaryOp, BlockId, Builtin, Const, FuncId, Function, GlobalId, Intrinsic, Module, Op,
    TextureOp, Type, TypeId, UnaryOp, ValueId, ValueKind,
};
use crate::structure::{structure, Node};
use crate::{CodegenError, Target};

/// A validated naga module.
pub struct Validated {
    pub module: naga::Module,
    pub info: naga::valid::ModuleInfo,
}

/// Build the naga module of `ir`.
pub fn build(ir: &Module) -> Result<naga::Module, CodegenError> {
    let mut b =
        ModuleBuilder { ir, out: naga::Module::default(), types: HashMap::default(), functions: HashMap::default() };
    let written = call_order(ir);
    b.types(&used_types(ir, &written))?;
    let globals = b.globals()?;
    b.atomic_results();
    for f in written {
        let func = ir.function(f);
        let built = FnBuilder::new(&b, &globals, func).build()?;
        match func.entry_point {
            Some(ep) => b.out.entry_points.push(naga::EntryPoint {
                name: func.name.clone(),
                stage: naga::ShaderStage::Compute,
                early_depth_test: None,
                workgroup_size: ep.workgroup_size,
                workgroup_size_overrides: None,
                function: built,
                mesh_info: None,
                task_payload: None,
                incoming_ray_payload: None,
            }),
            None => {
                let h = b.out.functions.append(built, span_of(func.span));
                b.functions.insert(f, h);
            }
        }
    }
    Ok(b.out)
}

/// The globals that atomic operations reach (through element and field
/// addresses).
fn atomic_globals(ir: &Module) -> rustc_hash::FxHashSet<GlobalId> {
    let mut out = rustc_hash::FxHashSet::default();
    for f in &ir.functions {
        for v in &f.values {
            let ValueKind::Inst(Op::Atomic { ptr, .. }) = &v.kind else { continue };
            let mut p = *ptr;
            loop {
                match f.op(p) {
                    Some(Op::ElementAddr(base, _) | Op::FieldAddr(base, _)) => p = *base,
                    Some(Op::Global(g)) => {
                        out.insert(*g);
                        break;
                    }
                    _ => break,
                }
            }
        }
    }
    out
}

/// Validate with naga's validator; errors point at the Slang source.
pub fn validate(module: naga::Module) -> Result<Validated, CodegenError> {
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::SHADER_FLOAT16
            | naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32
            | naga::valid::Capabilities::SHADER_FLOAT32_ATOMIC
            | naga::valid::Capabilities::FLOAT64
            | naga::valid::Capabilities::SHADER_INT64
            | naga::valid::Capabilities::CUBE_ARRAY_TEXTURES
            | naga::valid::Capabilities::SUBGROUP
            | naga::valid::Capabilities::SUBGROUP_BARRIER,
    );
    validator
        .subgroup_stages(naga::valid::ShaderStages::all())
        .subgroup_operations(naga::valid::SubgroupOperationSet::all());
    match validator.validate(&module) {
        Ok(info) => Ok(Validated { module, info }),
        Err(e) => {
            let range = e.spans().find_map(|(span, _)| range_of(*span));
            let mut message = format!("naga validation: {}", e.as_inner());
            let mut source = std::error::Error::source(e.as_inner());
            while let Some(s) = source {
                message.push_str(&format!(": {s}"));
                source = s.source();
            }
            Err(CodegenError { file: None, range, message })
        }
    }
}

/// The target code of a validated module, for the entry point `entry`.
pub fn write(v: &Validated, target: Target, entry: &str) -> Result<crate::Output, CodegenError> {
    // A backend that panics on a module naga validated (a backend bug) is
    // an error, not a crash.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write_unchecked(v, target, entry))).unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(CodegenError {
            file: None,
            range: None,
            message: format!("the {target:?} writer failed on this module: {what}"),
        })
    })
}

fn write_unchecked(v: &Validated, target: Target, entry: &str) -> Result<crate::Output, CodegenError> {
    let fail = |what: &str, e: &dyn std::fmt::Display| CodegenError {
        file: None,
        range: None,
        message: format!("{what}: {e}"),
    };
    let stage = naga::ShaderStage::Compute;
    Ok(match target {
        Target::Wgsl => crate::Output::Text(
            naga::back::wgsl::write_string(&v.module, &v.info, naga::back::wgsl::WriterFlags::empty())
                .map_err(|e| fail("WGSL", &e))?,
        ),
        Target::SpirV => {
            let options = naga::back::spv::Options::default();
            let pipeline = naga::back::spv::PipelineOptions { shader_stage: stage, entry_point: entry.to_string() };
            crate::Output::Binary(
                naga::back::spv::write_vec(&v.module, &v.info, &options, Some(&pipeline))
                    .map_err(|e| fail("SPIR-V", &e))?,
            )
        }
        Target::Glsl => {
            let mut text = String::new();
            let options =
                naga::back::glsl::Options { version: naga::back::glsl::Version::Desktop(450), ..Default::default() };
            let pipeline = naga::back::glsl::PipelineOptions {
                shader_stage: stage,
                entry_point: entry.to_string(),
                multiview: None,
            };
            naga::back::glsl::Writer::new(
                &mut text,
                &v.module,
                &v.info,
                &options,
                &pipeline,
                naga::proc::BoundsCheckPolicies::default(),
            )
            .and_then(|mut w| w.write())
            .map_err(|e| fail("GLSL", &e))?;
            crate::Output::Text(text)
        }
        Target::Hlsl => {
            let mut text = String::new();
            let options = naga::back::hlsl::Options::default();
            let pipeline = naga::back::hlsl::PipelineOptions { entry_point: Some((stage, entry.to_string())) };
            naga::back::hlsl::Writer::new(&mut text, &options, &pipeline)
                .write(&v.module, &v.info, None)
                .map_err(|e| fail("HLSL", &e))?;
            crate::Output::Text(text)
        }
        Target::Msl => {
            if v.module.types.iter().any(|(_, t)| {
                matches!(t.inner, naga::TypeInner::Scalar(s) | naga::TypeInner::Vector { scalar: s, .. }
                    if s.kind == naga::ScalarKind::Float && s.width == 8)
            }) {
                return Err(CodegenError {
                    file: None,
                    range: None,
                    message: "MSL: Metal has no 64-bit float type".into(),
                });
            }
            // Metal 2.1 (macOS 10.14, iOS 12): `reverse_bits` and other
            // built-ins need it.
            let options = naga::back::msl::Options { lang_version: (2, 1), ..Default::default() };
            let pipeline = naga::back::msl::PipelineOptions {
                entry_point: Some((stage, entry.to_string())),
                ..Default::default()
            };
            let (text, _) =
                naga::back::msl::write_string(&v.module, &v.info, &options, &pipeline).map_err(|e| fail("MSL", &e))?;
            crate::Output::Text(text)
        }
    })
}

fn span_of(range: Option<TextRange>) -> Span {
    range.map_or(Span::UNDEFINED, |r| Span::new(r.start().into(), r.end().into()))
}

fn range_of(span: Span) -> Option<TextRange> {
    let r = span.to_range()?;
    Some(TextRange::new(TextSize::from(r.start as u32), TextSize::from(r.end as u32)))
}

/// The functions to write, in an order where callees come before their
/// callers (naga requires it): those the entry points reach (the primal
/// of a function only differentiated, a derivative only another one
/// needed, are not written), or all of a module without entry points.
fn call_order(ir: &Module) -> Vec<FuncId> {
    fn visit(ir: &Module, f: FuncId, seen: &mut Vec<bool>, out: &mut Vec<FuncId>) {
        if std::mem::replace(&mut seen[f.index()], true) {
            return;
        }
        for v in &ir.function(f).values {
            if let ValueKind::Inst(Op::Call(callee, _)) = &v.kind {
                visit(ir, *callee, seen, out);
            }
        }
        out.push(f);
    }
    let mut seen = vec![false; ir.functions.len()];
    let mut out = Vec::new();
    let has_entry = ir.functions.iter().any(|f| f.entry_point.is_some());
    for (i, f) in ir.functions.iter().enumerate() {
        if !has_entry || f.entry_point.is_some() {
            visit(ir, FuncId(i as u32), &mut seen, &mut out);
        }
    }
    out
}

/// Per type, whether the module's globals or the functions in `written`
/// use it (the types of their parameters, results and values, and the
/// parts of those): the others (the contexts of derivatives not written,
/// their pairs) are not declared.
fn used_types(ir: &Module, written: &[FuncId]) -> Vec<bool> {
    let mut used = vec![false; ir.types.iter().count()];
    let mut mark = |t: TypeId| used[t.index()] = true;
    ir.globals.iter().for_each(|g| mark(g.ty));
    for &f in written {
        let f = ir.function(f);
        f.params.iter().for_each(|p| mark(p.ty));
        mark(f.ret);
        f.values.iter().for_each(|v| mark(v.ty));
    }
    // A type's parts come before it: one pass from the last type marks
    // the parts of every used type (and the element types a constant of a
    // vector or a matrix is written with).
    for (id, ty) in ir.types.iter().collect::<Vec<_>>().into_iter().rev() {
        if !used[id.index()] {
            continue;
        }
        let mut parts: Vec<TypeId> = match ty {
            Type::Array(e, _) | Type::RuntimeArray(e) | Type::Ptr(e, _) => vec![*e],
            Type::Struct { fields, .. } => fields.iter().map(|(_, t)| *t).collect(),
            Type::DifferentialPair { primal, diff } => vec![*primal, *diff],
            _ => Vec::new(),
        };
        parts.extend(ir.types.element(id, 0).and_then(|t| ir.types.find(&t)));
        for p in parts {
            used[p.index()] = true;
        }
    }
    used
}

/// The format of a writable texture of `n`-component `s` texels.
fn storage_format(s: Scalar, n: u8) -> Option<naga::StorageFormat> {
    use naga::StorageFormat as F;
    Some(match (s, n) {
        (Scalar::Float, 1) => F::R32Float,
        (Scalar::Float, 2) => F::Rg32Float,
        (Scalar::Float, 4) => F::Rgba32Float,
        (Scalar::Int32, 1) => F::R32Sint,
        (Scalar::Int32, 2) => F::Rg32Sint,
        (Scalar::Int32, 4) => F::Rgba32Sint,
        (Scalar::UInt32, 1) => F::R32Uint,
        (Scalar::UInt32, 2) => F::Rg32Uint,
        (Scalar::UInt32, 4) => F::Rgba32Uint,
        _ => return None,
    })
}

fn naga_scalar(s: Scalar) -> naga::Scalar {
    match s {
        Scalar::Bool => naga::Scalar::BOOL,
        Scalar::Int32 => naga::Scalar::I32,
        Scalar::UInt32 => naga::Scalar::U32,
        Scalar::Half => naga::Scalar::F16,
        Scalar::Double => naga::Scalar::F64,
        Scalar::Int64 => naga::Scalar::I64,
        Scalar::UInt64 => naga::Scalar::U64,
        _ => naga::Scalar::F32,
    }
}

fn vector_size(n: u8) -> naga::VectorSize {
    match n {
        2 => naga::VectorSize::Bi,
        3 => naga::VectorSize::Tri,
        _ => naga::VectorSize::Quad,
    }
}

struct ModuleBuilder<'a> {
    ir: &'a Module,
    out: naga::Module,
    types: HashMap<TypeId, Handle<naga::Type>>,
    functions: HashMap<FuncId, Handle<naga::Function>>,
}

impl ModuleBuilder<'_> {
    /// Every IR type as a naga type (types are interned parts first).
    /// Declare the `used` types.
    fn types(&mut self, used: &[bool]) -> Result<(), CodegenError> {
        let mut layouter = naga::proc::Layouter::default();
        for (id, ty) in self.ir.types.iter() {
            if !used[id.index()] {
                continue;
            }
            let inner = match ty {
                // (A texture or sampler global is its handle: no pointer.)
                Type::Void | Type::Ptr(_, AddressSpace::Handle) => continue,
                Type::Ptr(t, _) if matches!(self.ir.types.get(*t), Type::Texture(..) | Type::Sampler) => continue,
                Type::Scalar(s) => naga::TypeInner::Scalar(naga_scalar(*s)),
                Type::Vector(s, n) => naga::TypeInner::Vector { size: vector_size(*n), scalar: naga_scalar(*s) },
                Type::Matrix { scalar, rows, cols } => naga::TypeInner::Matrix {
                    columns: vector_size(*rows),
                    rows: vector_size(*cols),
                    scalar: naga_scalar(*scalar),
                },
                Type::Array(e, _) | Type::RuntimeArray(e) => {
                    let base = self.types[e];
                    layouter.update(self.out.to_ctx()).map_err(layout_error)?;
                    let size = match ty {
                        Type::Array(_, n) => match NonZeroU32::new(*n) {
                            Some(n) => naga::ArraySize::Constant(n),
                            None => {
                                return Err(CodegenError {
                                    file: None,
                                    range: None,
                                    message: "zero-length array".into(),
                                })
                            }
                        },
                        _ => naga::ArraySize::Dynamic,
                    };
                    naga::TypeInner::Array { base, size, stride: layouter[base].to_stride() }
                }
                Type::Struct { fields, .. } => {
                    layouter.update(self.out.to_ctx()).map_err(layout_error)?;
                    let mut offset = 0;
                    let mut align = naga::proc::Alignment::ONE;
                    let mut members = Vec::new();
                    for (name, ft) in fields {
                        let t = self.types[ft];
                        let layout = layouter[t];
                        offset = layout.alignment.round_up(offset);
                        align = align.max(layout.alignment);
                        // Padding (see `layout`) has no name.
                        let name = (!name.is_empty()).then(|| name.clone());
                        members.push(naga::StructMember { name, ty: t, binding: None, offset });
                        offset += layout.size;
                    }
                    naga::TypeInner::Struct { members, span: align.round_up(offset.max(1)) }
                }
                Type::Texture(shape, s, storage) => naga::TypeInner::Image {
                    dim: match shape {
                        ir::TextureShape::D1 => naga::ImageDimension::D1,
                        ir::TextureShape::D2 => naga::ImageDimension::D2,
                        ir::TextureShape::D3 => naga::ImageDimension::D3,
                        ir::TextureShape::Cube | ir::TextureShape::CubeArray => naga::ImageDimension::Cube,
                        ir::TextureShape::D2Array => naga::ImageDimension::D2,
                    },
                    arrayed: shape.is_array(),
                    class: match storage {
                        None => naga::ImageClass::Sampled { kind: naga_scalar(*s).kind, multi: false },
                        Some(n) => naga::ImageClass::Storage {
                            format: storage_format(*s, *n).ok_or_else(|| CodegenError {
                                file: None,
                                range: None,
                                message: format!("writable textures of {n} `{}` components have no format", s.name()),
                            })?,
                            access: naga::StorageAccess::LOAD | naga::StorageAccess::STORE,
                        },
                    },
                },
                Type::Sampler => naga::TypeInner::Sampler { comparison: false },
                Type::Ptr(t, space) => match self.types.get(t) {
                    Some(&base) => naga::TypeInner::Pointer { base, space: naga_space(*space) },
                    None => {
                        return Err(CodegenError {
                            file: None,
                            range: None,
                            message: format!(
                                "internal: a pointer to `{}`, which has no target type",
                                self.ir.types.display(*t)
                            ),
                        })
                    }
                },
                Type::DifferentialPair { .. } => {
                    return Err(CodegenError {
                        file: None,
                        range: None,
                        message: "internal: DifferentialPair must be lowered before code generation".into(),
                    })
                }
            };
            let name = match ty {
                Type::Struct { name, .. } => Some(name.clone()),
                _ => None,
            };
            let h = self.out.types.insert(naga::Type { name, inner }, Span::UNDEFINED);
            self.types.insert(id, h);
        }
        Ok(())
    }

    fn globals(&mut self) -> Result<Vec<Handle<naga::GlobalVariable>>, CodegenError> {
        let atomic = atomic_globals(self.ir);
        let mut out = Vec::new();
        for (i, g) in self.ir.globals.iter().enumerate() {
            let init = g.init.as_ref().map(|c| self.constant(c, g.ty, span_of(g.span)));
            // Memory that atomic operations reach holds atomic scalars
            // (loads and stores of them are atomic too).
            let ty = match atomic.contains(&GlobalId(i as u32)) {
                true => {
                    self.atomic_type(g.ty).map_err(|message| CodegenError { file: None, range: g.span, message })?
                }
                false => self.types[&g.ty],
            };
            let var = naga::GlobalVariable {
                name: Some(g.name.clone()),
                space: naga_space(g.space),
                binding: g.binding.map(|(group, binding)| naga::ResourceBinding { group, binding }),
                ty,
                init,
                memory_decorations: naga::MemoryDecorations::empty(),
            };
            out.push(self.out.global_variables.append(var, span_of(g.span)));
        }
        Ok(out)
    }

    /// `t` with its scalars atomic (a scalar, or an array of them).
    fn atomic_type(&mut self, t: TypeId) -> Result<Handle<naga::Type>, String> {
        let inner = match self.ir.types.get(t) {
            Type::Scalar(s) => naga::TypeInner::Atomic(naga_scalar(*s)),
            Type::Array(e, _) | Type::RuntimeArray(e) => {
                let base = self.atomic_type(*e)?;
                let naga::TypeInner::Array { size, stride, .. } = self.out.types[self.types[&t]].inner else {
                    unreachable!("arrays are naga arrays")
                };
                naga::TypeInner::Array { base, size, stride }
            }
            _ => {
                return Err(format!(
                    "atomic operations on `{}` (not a scalar or an array of scalars) are not supported yet",
                    self.ir.types.display(t)
                ))
            }
        };
        Ok(self.out.types.insert(naga::Type { name: None, inner }, Span::UNDEFINED))
    }

    /// The result types of the module's compare-exchange operations.
    fn atomic_results(&mut self) {
        for f in &self.ir.functions {
            for v in &f.values {
                if let ValueKind::Inst(Op::Atomic { op: ir::AtomicOp::CompareExchange, value, .. }) = &v.kind {
                    if let Some(s) = self.ir.types.scalar_of(f.value(*value).ty) {
                        self.out.generate_predeclared_type(naga::PredeclaredType::AtomicCompareExchangeWeakResult(
                            naga_scalar(s),
                        ));
                    }
                }
            }
        }
    }

    /// A constant of type `ty` as a global expression.
    fn constant(&mut self, c: &ir::ConstValue, ty: TypeId, span: Span) -> Handle<naga::Expression> {
        let e = match c {
            ir::ConstValue::Scalar(k) => naga::Expression::Literal(literal(*k, self.ir.types.scalar_of(ty))),
            ir::ConstValue::Composite(parts) => {
                let components = parts
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let part_ty = self.ir.types.element(ty, i as u32).and_then(|t| self.ir.types.find(&t));
                        self.constant(p, part_ty.unwrap_or(ty), span)
                    })
                    .collect();
                naga::Expression::Compose { ty: self.types[&ty], components }
            }
        };
        self.out.global_expressions.append(e, span)
    }
}

/// A scalar constant of the scalar type `s`.
fn literal(c: Const, s: Option<Scalar>) -> naga::Literal {
    match (c, s.unwrap_or(Scalar::Float)) {
        (Const::Bool(b), _) => naga::Literal::Bool(b),
        (Const::Float(f), Scalar::Half) => naga::Literal::F16(half::f16::from_f64(f)),
        (Const::Float(f), Scalar::Double) => naga::Literal::F64(f),
        (Const::Float(f), _) => naga::Literal::F32(f as f32),
        (Const::Int(i), Scalar::UInt32) => naga::Literal::U32(i as u32),
        (Const::Int(i), Scalar::Int64) => naga::Literal::I64(i),
        (Const::Int(i), Scalar::UInt64) => naga::Literal::U64(i as u64),
        (Const::Int(i), _) => naga::Literal::I32(i as i32),
    }
}

fn layout_error(e: naga::proc::LayoutError) -> CodegenError {
    CodegenError { file: None, range: None, message: format!("type layout: {e}") }
}

fn naga_space(space: AddressSpace) -> naga::AddressSpace {
    match space {
        AddressSpace::Function => naga::AddressSpace::Function,
        AddressSpace::Storage { writable } => naga::AddressSpace::Storage {
            access: if writable {
                naga::StorageAccess::LOAD | naga::StorageAccess::STORE
            } else {
                naga::StorageAccess::LOAD
            },
        },
        AddressSpace::Uniform => naga::AddressSpace::Uniform,
        AddressSpace::Workgroup => naga::AddressSpace::WorkGroup,
        AddressSpace::Private => naga::AddressSpace::Private,
        AddressSpace::Handle => naga::AddressSpace::Handle,
    }
}

/// How a value is reached from where it is used.
#[derive(Clone, Copy)]
enum Slot {
    /// Not emitted yet.
    Pending,
    Expr(Handle<naga::Expression>),
    /// Stored in a local variable (block parameters, and values used
    /// outside the scope of their definition).
    Local(Handle<naga::LocalVariable>),
}

struct FnBuilder<'a> {
    mb: &'a ModuleBuilder<'a>,
    globals: &'a [Handle<naga::GlobalVariable>],
    ir: &'a Function,
    f: naga::Function,
    slots: Vec<Slot>,
    /// Values used outside the naga block that defines them.
    spilled: Vec<bool>,
    /// Start of the expressions not yet covered by an `Emit`.
    emit_start: usize,
}

impl<'a> FnBuilder<'a> {
    fn new(mb: &'a ModuleBuilder<'a>, globals: &'a [Handle<naga::GlobalVariable>], ir: &'a Function) -> Self {
        FnBuilder {
            mb,
            globals,
            ir,
            f: naga::Function::default(),
            slots: vec![Slot::Pending; ir.values.len()],
            spilled: vec![false; ir.values.len()],
            emit_start: 0,
        }
    }

    fn error(&self, v: Option<ValueId>, message: impl Into<String>) -> CodegenError {
        let range = v.and_then(|v| self.ir.value(v).span).or(self.ir.span);
        CodegenError { file: None, range, message: message.into() }
    }

    fn ty(&self, t: TypeId) -> Handle<naga::Type> {
        self.mb.types[&t]
    }

    fn ir_ty(&self, v: ValueId) -> &Type {
        self.mb.ir.types.get(self.ir.value(v).ty)
    }

    /// Whether `v` is a writable texture (a storage image).
    fn storage_image(&self, v: ValueId) -> bool {
        matches!(self.ir_ty(v), Type::Texture(_, _, Some(_)))
    }

    fn build(mut self) -> Result<naga::Function, CodegenError> {
        let nodes = structure(self.ir).map_err(|why| self.error(None, format!("internal: {why}")))?;
        self.f.name = Some(self.ir.name.clone());
        let entry_params = self.ir.block(Function::ENTRY).params.clone();
        for (i, (p, &v)) in self.ir.params.iter().zip(&entry_params).enumerate() {
            let binding = p.builtin.map(|b| {
                naga::Binding::BuiltIn(match b {
                    Builtin::DispatchThreadId => naga::BuiltIn::GlobalInvocationId,
                    Builtin::GroupThreadId => naga::BuiltIn::LocalInvocationId,
                    Builtin::GroupId => naga::BuiltIn::WorkGroupId,
                    Builtin::GroupIndex => naga::BuiltIn::LocalInvocationIndex,
                })
            });
            self.f.arguments.push(naga::FunctionArgument { name: Some(p.name.clone()), ty: self.ty(p.ty), binding });
            let h = self.f.expressions.append(naga::Expression::FunctionArgument(i as u32), span_of(self.ir.span));
            self.slots[v.index()] = Slot::Expr(h);
        }
        if !matches!(self.mb.ir.types.get(self.ir.ret), Type::Void) {
            self.f.result = Some(naga::FunctionResult { ty: self.ty(self.ir.ret), binding: None });
        }
        for b in self.ir.block_ids().skip(1) {
            for &p in &self.ir.block(b).params {
                let local = self.f.local_variables.append(
                    naga::LocalVariable { name: None, ty: self.ty(self.ir.value(p).ty), init: None },
                    span_of(self.ir.value(p).span),
                );
                self.slots[p.index()] = Slot::Local(local);
            }
        }
        self.find_spills(&nodes);
        self.emit_start = self.f.expressions.len();
        let mut body = naga::Block::new();
        self.nodes(&nodes, &mut body)?;
        self.flush(&mut body);
        self.f.body = body;
        Ok(self.f)
    }

    // ---- scopes ----------------------------------------------------------

    /// Mark the values used outside the naga block that emits them.
    fn find_spills(&mut self, nodes: &[Node]) {
        let mut scopes = Scopes { parent: vec![0], block_scope: vec![0; self.ir.blocks.len()], uses: Vec::new() };
        scopes.walk(self.ir, nodes, 0);
        let def_blocks = self.ir.def_blocks();
        for &(v, scope) in &scopes.uses {
            let always_valid = match &self.ir.value(v).kind {
                ValueKind::Param { .. } => true,
                ValueKind::Inst(op) => matches!(op, Op::Const(_) | Op::Var | Op::Global(_)),
            };
            if always_valid {
                continue;
            }
            let Some(def) = def_blocks[v.index()] else { continue };
            if !scopes.is_ancestor(scopes.block_scope[def.index()], scope) {
                self.spilled[v.index()] = true;
            }
        }
    }

    // ---- emitting --------------------------------------------------------

    fn flush(&mut self, block: &mut naga::Block) {
        let len = self.f.expressions.len();
        if self.emit_start < len {
            let range = self.f.expressions.range_from(self.emit_start);
            block.push(naga::Statement::Emit(range), Span::UNDEFINED);
        }
        self.emit_start = len;
    }

    fn expr(&mut self, e: naga::Expression, span: Span, block: &mut naga::Block) -> Handle<naga::Expression> {
        if e.needs_pre_emit() {
            self.flush(block);
            let h = self.f.expressions.append(e, span);
            self.emit_start = self.f.expressions.len();
            h
        } else {
            self.f.expressions.append(e, span)
        }
    }

    fn stmt(&mut self, s: naga::Statement, span: Span, block: &mut naga::Block) {
        self.flush(block);
        block.push(s, span);
    }

    /// The expression of a value at a use.
    fn use_value(&mut self, v: ValueId, block: &mut naga::Block) -> Result<Handle<naga::Expression>, CodegenError> {
        let span = span_of(self.ir.value(v).span);
        match self.slots[v.index()] {
            Slot::Expr(h) => Ok(h),
            Slot::Local(local) => {
                let ptr = self.expr(naga::Expression::LocalVariable(local), span, block);
                Ok(self.expr(naga::Expression::Load { pointer: ptr }, span, block))
            }
            Slot::Pending => Err(self.error(Some(v), format!("internal: {v} is used before it is defined"))),
        }
    }

    fn nodes(&mut self, nodes: &[Node], block: &mut naga::Block) -> Result<(), CodegenError> {
        for n in nodes {
            self.node(n, block)?;
        }
        Ok(())
    }

    fn node(&mut self, node: &Node, block: &mut naga::Block) -> Result<(), CodegenError> {
        match node {
            Node::Block(b) => {
                for &v in &self.ir.block(*b).insts {
                    self.inst(v, block)?;
                }
            }
            Node::Assign { target, args } => self.assign(*target, args, block)?,
            Node::If { cond, then, els } => {
                let condition = self.use_value(*cond, block)?;
                self.flush(block);
                let accept = self.sub_block(then)?;
                let reject = self.sub_block(els)?;
                self.stmt(naga::Statement::If { condition, accept, reject }, span_of(self.ir.value(*cond).span), block);
            }
            Node::Loop { body, continuing, break_if } => {
                self.flush(block);
                let body = self.sub_block(body)?;
                let mut cont = naga::Block::new();
                self.nodes(continuing, &mut cont)?;
                let break_if = match break_if {
                    Some((c, exit_when)) => {
                        let span = span_of(self.ir.value(*c).span);
                        let mut h = self.use_value(*c, &mut cont)?;
                        if !exit_when {
                            h = self.expr(
                                naga::Expression::Unary { op: naga::UnaryOperator::LogicalNot, expr: h },
                                span,
                                &mut cont,
                            );
                        }
                        Some(h)
                    }
                    None => None,
                };
                self.flush(&mut cont);
                self.stmt(naga::Statement::Loop { body, continuing: cont, break_if }, Span::UNDEFINED, block);
            }
            Node::Switch { value, cases, default } => {
                let selector = self.use_value(*value, block)?;
                self.flush(block);
                let signed = matches!(self.ir_ty(*value), Type::Scalar(Scalar::Int32));
                let mut out = Vec::new();
                for (values, body) in cases {
                    let body = self.sub_block(body)?;
                    for (i, &v) in values.iter().enumerate() {
                        let value =
                            if signed { naga::SwitchValue::I32(v as i32) } else { naga::SwitchValue::U32(v as u32) };
                        let last = i + 1 == values.len();
                        out.push(naga::SwitchCase {
                            value,
                            body: if last { body.clone() } else { naga::Block::new() },
                            fall_through: !last,
                        });
                    }
                }
                let body = self.sub_block(default)?;
                out.push(naga::SwitchCase { value: naga::SwitchValue::Default, body, fall_through: false });
                self.stmt(naga::Statement::Switch { selector, cases: out }, span_of(self.ir.value(*value).span), block);
            }
            Node::Break => self.stmt(naga::Statement::Break, Span::UNDEFINED, block),
            Node::Continue => self.stmt(naga::Statement::Continue, Span::UNDEFINED, block),
            Node::Return(v) => {
                let value = match v {
                    Some(v) => Some(self.use_value(*v, block)?),
                    None => None,
                };
                self.stmt(naga::Statement::Return { value }, Span::UNDEFINED, block);
            }
            Node::Unreachable => {}
        }
        Ok(())
    }

    fn sub_block(&mut self, nodes: &[Node]) -> Result<naga::Block, CodegenError> {
        let mut b = naga::Block::new();
        self.nodes(nodes, &mut b)?;
        self.flush(&mut b);
        Ok(b)
    }

    /// Block parameters take the edge's arguments (all read first).
    fn assign(&mut self, target: BlockId, args: &[ValueId], block: &mut naga::Block) -> Result<(), CodegenError> {
        let values = args.iter().map(|&a| self.use_value(a, block)).collect::<Result<Vec<_>, _>>()?;
        let params = &self.ir.block(target).params;
        for (&p, value) in params.iter().zip(values) {
            let Slot::Local(local) = self.slots[p.index()] else {
                return Err(self.error(Some(p), "internal: a block parameter without a variable"));
            };
            let span = span_of(self.ir.value(p).span);
            let pointer = self.expr(naga::Expression::LocalVariable(local), span, block);
            self.stmt(naga::Statement::Store { pointer, value }, span, block);
        }
        Ok(())
    }

    /// Emit one instruction and record how its value is reached.
    fn inst(&mut self, v: ValueId, block: &mut naga::Block) -> Result<(), CodegenError> {
        let value = self.ir.value(v);
        let ValueKind::Inst(op) = &value.kind else { return Ok(()) };
        let span = span_of(value.span);
        let h = match op {
            Op::Store { ptr, value } => {
                let pointer = self.use_value(*ptr, block)?;
                let value = self.use_value(*value, block)?;
                self.stmt(naga::Statement::Store { pointer, value }, span, block);
                return Ok(());
            }
            Op::Texture(TextureOp::Store, args) => {
                let a = args.iter().map(|&x| self.use_value(x, block)).collect::<Result<Vec<_>, _>>()?;
                let store = naga::Statement::ImageStore {
                    image: a[0],
                    coordinate: a[1],
                    array_index: a.get(3).copied(),
                    value: a[2],
                };
                self.stmt(store, span, block);
                return Ok(());
            }
            Op::Barrier(kind) => {
                let flags = match kind {
                    ir::Barrier::Group => naga::Barrier::WORK_GROUP,
                    ir::Barrier::Device => naga::Barrier::STORAGE,
                    ir::Barrier::All => naga::Barrier::WORK_GROUP | naga::Barrier::STORAGE,
                    // (SPIR-V: subgroup execution and memory scopes,
                    // workgroup memory semantics, as the reference
                    // compiler's `OpControlBarrier Subgroup Subgroup`;
                    // WGSL has no such barrier: naga writes
                    // `workgroupBarrier(); subgroupBarrier();`.)
                    ir::Barrier::Wave => naga::Barrier::SUB_GROUP | naga::Barrier::WORK_GROUP,
                };
                self.stmt(naga::Statement::ControlBarrier(flags), span, block);
                return Ok(());
            }
            Op::Subgroup(op, scope, operand) => {
                let argument = self.use_value(*operand, block)?;
                self.flush(block);
                let op = match op {
                    ir::SubgroupOp::All => naga::SubgroupOperation::All,
                    ir::SubgroupOp::Any => naga::SubgroupOperation::Any,
                    ir::SubgroupOp::Sum => naga::SubgroupOperation::Add,
                    ir::SubgroupOp::Product => naga::SubgroupOperation::Mul,
                    ir::SubgroupOp::Min => naga::SubgroupOperation::Min,
                    ir::SubgroupOp::Max => naga::SubgroupOperation::Max,
                    ir::SubgroupOp::BitAnd => naga::SubgroupOperation::And,
                    ir::SubgroupOp::BitOr => naga::SubgroupOperation::Or,
                    ir::SubgroupOp::BitXor => naga::SubgroupOperation::Xor,
                };
                let collective_op = match scope {
                    ir::SubgroupScope::Reduce => naga::CollectiveOperation::Reduce,
                    ir::SubgroupScope::ExclusivePrefix => naga::CollectiveOperation::ExclusiveScan,
                };
                let ty = self.ty(value.ty);
                let result = self.f.expressions.append(naga::Expression::SubgroupOperationResult { ty }, span);
                self.emit_start = self.f.expressions.len();
                block.push(naga::Statement::SubgroupCollectiveOperation { op, collective_op, argument, result }, span);
                result
            }
            Op::Atomic { op, ptr, value: operand, compare } => {
                let pointer = self.use_value(*ptr, block)?;
                let operand = self.use_value(*operand, block)?;
                let compare = compare.map(|c| self.use_value(c, block)).transpose()?;
                self.flush(block);
                let fun = match op {
                    ir::AtomicOp::Add => naga::AtomicFunction::Add,
                    ir::AtomicOp::And => naga::AtomicFunction::And,
                    ir::AtomicOp::Or => naga::AtomicFunction::InclusiveOr,
                    ir::AtomicOp::Xor => naga::AtomicFunction::ExclusiveOr,
                    ir::AtomicOp::Min => naga::AtomicFunction::Min,
                    ir::AtomicOp::Max => naga::AtomicFunction::Max,
                    ir::AtomicOp::Exchange | ir::AtomicOp::CompareExchange => {
                        naga::AtomicFunction::Exchange { compare }
                    }
                };
                let ty = match compare {
                    Some(_) => {
                        let s = self.mb.ir.types.scalar_of(value.ty).expect("atomics are on scalars");
                        let key = naga::PredeclaredType::AtomicCompareExchangeWeakResult(naga_scalar(s));
                        *self.mb.out.special_types.predeclared_types.get(&key).expect("generated by `atomic_results`")
                    }
                    None => self.ty(value.ty),
                };
                let result = self
                    .f
                    .expressions
                    .append(naga::Expression::AtomicResult { ty, comparison: compare.is_some() }, span);
                self.emit_start = self.f.expressions.len();
                block.push(naga::Statement::Atomic { pointer, fun, value: operand, result: Some(result) }, span);
                match compare {
                    // `{ old_value, exchanged }`: the old value.
                    Some(_) => self.expr(naga::Expression::AccessIndex { base: result, index: 0 }, span, block),
                    None => result,
                }
            }
            Op::Call(f, args) => {
                let arguments = args.iter().map(|&a| self.use_value(a, block)).collect::<Result<Vec<_>, _>>()?;
                let Some(&function) = self.mb.functions.get(f) else {
                    return Err(self.error(Some(v), "calling an entry point is not supported"));
                };
                self.flush(block);
                let result = (!matches!(self.mb.ir.types.get(value.ty), Type::Void))
                    .then(|| self.f.expressions.append(naga::Expression::CallResult(function), span));
                self.emit_start = self.f.expressions.len();
                block.push(naga::Statement::Call { function, arguments, result }, span);
                match result {
                    Some(h) => h,
                    None => return Ok(()),
                }
            }
            _ => self.value_expr(v, op, span, block)?,
        };
        if self.spilled[v.index()] {
            let local = self
                .f
                .local_variables
                .append(naga::LocalVariable { name: None, ty: self.ty(value.ty), init: None }, span);
            let pointer = self.expr(naga::Expression::LocalVariable(local), span, block);
            self.stmt(naga::Statement::Store { pointer, value: h }, span, block);
            self.slots[v.index()] = Slot::Local(local);
        } else {
            self.slots[v.index()] = Slot::Expr(h);
        }
        Ok(())
    }

    fn value_expr(
        &mut self,
        v: ValueId,
        op: &Op,
        span: Span,
        block: &mut naga::Block,
    ) -> Result<Handle<naga::Expression>, CodegenError> {
        use naga::Expression as E;
        let ty = self.ir.value(v).ty;
        let ir_ty = self.mb.ir.types.get(ty).clone();
        let e = match op {
            Op::Const(c) => E::Literal(literal(*c, self.mb.ir.types.scalar_of(ty))),
            Op::Var => {
                let (pointee, _) = self.mb.ir.types.pointee(ty).expect("a variable is a pointer");
                let local = self
                    .f
                    .local_variables
                    .append(naga::LocalVariable { name: None, ty: self.ty(pointee), init: None }, span);
                E::LocalVariable(local)
            }
            Op::Global(g) => E::GlobalVariable(self.globals[g.index()]),
            Op::ArrayLength(p) => E::ArrayLength(self.use_value(*p, block)?),
            // A texture or sampler global is its handle.
            Op::Load(p) if matches!(self.ir_ty(*p), Type::Ptr(_, AddressSpace::Handle)) => {
                return self.use_value(*p, block)
            }
            Op::Load(p) => E::Load { pointer: self.use_value(*p, block)? },
            Op::Texture(op, args) => {
                let a = args.iter().map(|&x| self.use_value(x, block)).collect::<Result<Vec<_>, _>>()?;
                match op {
                    TextureOp::SampleLevel => E::ImageSample {
                        image: a[0],
                        sampler: a[1],
                        gather: None,
                        coordinate: a[2],
                        array_index: a.get(4).copied(),
                        offset: None,
                        level: naga::SampleLevel::Exact(a[3]),
                        depth_ref: None,
                        clamp_to_edge: false,
                    },
                    TextureOp::Load => E::ImageLoad {
                        image: a[0],
                        coordinate: a[1],
                        array_index: a.get(3).copied(),
                        sample: None,
                        // (Storage images have no mip levels here.)
                        level: (!self.storage_image(args[0])).then_some(a[2]),
                    },
                    TextureOp::Store => unreachable!("a texture store is a statement"),
                    TextureOp::Size => {
                        let level = (!self.storage_image(args[0])).then_some(a[1]);
                        E::ImageQuery { image: a[0], query: naga::ImageQuery::Size { level } }
                    }
                    TextureOp::Levels => E::ImageQuery { image: a[0], query: naga::ImageQuery::NumLevels },
                    TextureOp::Layers => E::ImageQuery { image: a[0], query: naga::ImageQuery::NumLayers },
                }
            }
            Op::FieldAddr(p, i) | Op::Extract(p, i) => E::AccessIndex { base: self.use_value(*p, block)?, index: *i },
            Op::ElementAddr(p, i) => E::Access { base: self.use_value(*p, block)?, index: self.use_value(*i, block)? },
            Op::ExtractDynamic(a, i) => {
                let base = self.use_value(*a, block)?;
                let index = self.use_value(*i, block)?;
                if matches!(self.ir_ty(*a), Type::Matrix { .. }) {
                    // naga indexes matrices dynamically only behind a pointer.
                    let local = self.f.local_variables.append(
                        naga::LocalVariable { name: None, ty: self.ty(self.ir.value(*a).ty), init: None },
                        span,
                    );
                    let pointer = self.expr(E::LocalVariable(local), span, block);
                    self.stmt(naga::Statement::Store { pointer, value: base }, span, block);
                    let row = self.expr(E::Access { base: pointer, index }, span, block);
                    E::Load { pointer: row }
                } else {
                    E::Access { base, index }
                }
            }
            // naga negates no matrices: times -1.
            Op::Unary(UnaryOp::Neg, a) if matches!(ir_ty, Type::Matrix { .. }) => {
                let m = self.use_value(*a, block)?;
                let minus_one = match ir_ty {
                    Type::Matrix { scalar: slang_analysis::ty::Scalar::Half, .. } => {
                        naga::Literal::F16(half::f16::from_f32(-1.0))
                    }
                    Type::Matrix { scalar: slang_analysis::ty::Scalar::Double, .. } => naga::Literal::F64(-1.0),
                    _ => naga::Literal::F32(-1.0),
                };
                let k = self.expr(E::Literal(minus_one), span, block);
                E::Binary { op: naga::BinaryOperator::Multiply, left: m, right: k }
            }
            Op::Unary(u, a) => E::Unary {
                op: match u {
                    UnaryOp::Neg => naga::UnaryOperator::Negate,
                    UnaryOp::Not => naga::UnaryOperator::LogicalNot,
                    UnaryOp::BitNot => naga::UnaryOperator::BitwiseNot,
                },
                expr: self.use_value(*a, block)?,
            },
            Op::Binary(b, x, y) => {
                let (l, r) = (self.use_value(*x, block)?, self.use_value(*y, block)?);
                if let Type::Matrix { rows, .. } = ir_ty {
                    if matches!(b, BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem) {
                        // Element-wise, one row at a time.
                        let op = binary_operator(*b, false);
                        let mut rows_e = Vec::new();
                        for i in 0..rows as u32 {
                            let a = self.expr(E::AccessIndex { base: l, index: i }, span, block);
                            let c = self.expr(E::AccessIndex { base: r, index: i }, span, block);
                            rows_e.push(self.expr(E::Binary { op, left: a, right: c }, span, block));
                        }
                        return Ok(self.expr(E::Compose { ty: self.ty(ty), components: rows_e }, span, block));
                    }
                }
                let scalar_bool = matches!(self.ir_ty(*x), Type::Scalar(_));
                E::Binary { op: binary_operator(*b, scalar_bool), left: l, right: r }
            }
            Op::Construct(args) => {
                let components = args.iter().map(|&a| self.use_value(a, block)).collect::<Result<Vec<_>, _>>()?;
                E::Compose { ty: self.ty(ty), components }
            }
            Op::Splat(a) => {
                let value = self.use_value(*a, block)?;
                match ir_ty {
                    Type::Vector(_, n) => E::Splat { size: vector_size(n), value },
                    Type::Matrix { rows, cols, .. } => {
                        let row = self.expr(E::Splat { size: vector_size(cols), value }, span, block);
                        E::Compose { ty: self.ty(ty), components: vec![row; rows as usize] }
                    }
                    _ => return Err(self.error(Some(v), "internal: splat to a non-vector")),
                }
            }
            Op::Swizzle(a, comps) => {
                let vector = self.use_value(*a, block)?;
                let mut pattern = [naga::SwizzleComponent::X; 4];
                for (i, &c) in comps.iter().enumerate() {
                    pattern[i] = [
                        naga::SwizzleComponent::X,
                        naga::SwizzleComponent::Y,
                        naga::SwizzleComponent::Z,
                        naga::SwizzleComponent::W,
                    ][c as usize & 3];
                }
                E::Swizzle { size: vector_size(comps.len() as u8), vector, pattern }
            }
            Op::Convert(a) => {
                let s = naga_scalar(self.mb.ir.types.scalar_of(ty).unwrap_or(Scalar::Float));
                E::As { expr: self.use_value(*a, block)?, kind: s.kind, convert: Some(s.width) }
            }
            Op::Select(c, a, b) => E::Select {
                condition: self.use_value(*c, block)?,
                accept: self.use_value(*a, block)?,
                reject: self.use_value(*b, block)?,
            },
            Op::Intrinsic(i, args) => {
                let args = args.iter().map(|&a| self.use_value(a, block)).collect::<Result<Vec<_>, _>>()?;
                self.intrinsic(*i, &args)
            }
            Op::Detach(_) => {
                return Err(self.error(Some(v), "internal: `detach` must be removed before code generation"))
            }
            Op::Store { .. } | Op::Call(..) | Op::Barrier(_) | Op::Subgroup(..) | Op::Atomic { .. } => {
                unreachable!("statements are emitted by `inst`")
            }
        };
        Ok(self.expr(e, span, block))
    }

    fn intrinsic(&self, i: Intrinsic, args: &[Handle<naga::Expression>]) -> naga::Expression {
        use crate::builtins::Lowering;
        match i.lowering() {
            Lowering::Math(fun) => naga::Expression::Math {
                fun,
                arg: args[0],
                arg1: args.get(1).copied(),
                arg2: args.get(2).copied(),
                arg3: None,
            },
            Lowering::Relational(fun) => naga::Expression::Relational { fun, argument: args[0] },
            Lowering::Bitcast(kind) => naga::Expression::As { expr: args[0], kind, convert: None },
            // Slang rows are naga columns: `mul(a, b)` is `b * a`.
            Lowering::MatrixProduct => {
                naga::Expression::Binary { op: naga::BinaryOperator::Multiply, left: args[1], right: args[0] }
            }
        }
    }
}

fn binary_operator(b: BinaryOp, scalar: bool) -> naga::BinaryOperator {
    use naga::BinaryOperator as B;
    match b {
        BinaryOp::Add => B::Add,
        BinaryOp::Sub => B::Subtract,
        BinaryOp::Mul => B::Multiply,
        BinaryOp::Div => B::Divide,
        BinaryOp::Rem => B::Modulo,
        BinaryOp::Eq => B::Equal,
        BinaryOp::Ne => B::NotEqual,
        BinaryOp::Lt => B::Less,
        BinaryOp::Le => B::LessEqual,
        BinaryOp::Gt => B::Greater,
        BinaryOp::Ge => B::GreaterEqual,
        BinaryOp::And if scalar => B::LogicalAnd,
        BinaryOp::Or if scalar => B::LogicalOr,
        BinaryOp::And | BinaryOp::BitAnd => B::And,
        BinaryOp::Or | BinaryOp::BitOr => B::InclusiveOr,
        BinaryOp::BitXor => B::ExclusiveOr,
        BinaryOp::Shl => B::ShiftLeft,
        BinaryOp::Shr => B::ShiftRight,
    }
}

/// The naga-block scopes of a region tree: which block each IR block is
/// emitted in, and where each value is used.
struct Scopes {
    parent: Vec<usize>,
    block_scope: Vec<usize>,
    uses: Vec<(ValueId, usize)>,
}

impl Scopes {
    fn child(&mut self, of: usize) -> usize {
        self.parent.push(of);
        self.parent.len() - 1
    }

    fn is_ancestor(&self, a: usize, mut b: usize) -> bool {
        loop {
            if a == b {
                return true;
            }
            if b == 0 {
                return false;
            }
            b = self.parent[b];
        }
    }

    fn walk(&mut self, func: &ir::Function, nodes: &[Node], scope: usize) {
        for n in nodes {
            match n {
                Node::Block(b) => {
                    self.block_scope[b.index()] = scope;
                    for &v in &func.block(*b).insts {
                        if let ValueKind::Inst(op) = &func.value(v).kind {
                            op.for_each_operand(|o| self.uses.push((o, scope)));
                        }
                    }
                }
                Node::Assign { args, .. } => self.uses.extend(args.iter().map(|&a| (a, scope))),
                Node::If { cond, then, els } => {
                    self.uses.push((*cond, scope));
                    let t = self.child(scope);
                    self.walk(func, then, t);
                    let e = self.child(scope);
                    self.walk(func, els, e);
                }
                Node::Loop { body, continuing, break_if } => {
                    let b = self.child(scope);
                    self.walk(func, body, b);
                    // The continuing part does not see the body's values:
                    // WGSL would allow it, but naga's GLSL writer emits the
                    // continuing part before the body.
                    let c = self.child(scope);
                    self.walk(func, continuing, c);
                    if let Some((cond, _)) = break_if {
                        self.uses.push((*cond, c));
                    }
                }
                Node::Switch { value, cases, default } => {
                    self.uses.push((*value, scope));
                    for (_, body) in cases {
                        let c = self.child(scope);
                        self.walk(func, body, c);
                    }
                    let d = self.child(scope);
                    self.walk(func, default, d);
                }
                Node::Return(Some(v)) => self.uses.push((*v, scope)),
                Node::Break | Node::Continue | Node::Return(None) | Node::Unreachable => {}
            }
        }
    }
}
