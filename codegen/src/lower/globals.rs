//! Global variables and what acts on them.
//!
//! Shader parameters follow the reference compiler's layout for Vulkan:
//! the `uniform` globals of the file (any global of plain data type that
//! is not `static`, `const` or `groupshared`) are packed, in declaration
//! order, into one default constant buffer `globalParams` at binding 0
//! (when there are any); every other parameter (structured, byte-address
//! and constant buffers, `cbuffer` blocks) takes the next binding in
//! declaration order, unless `[[vk::binding]]` says otherwise; the
//! `uniform` parameters of the entry point are packed into a constant
//! buffer `entryPointParams` at the binding after all of those. A
//! `cbuffer` block is one constant buffer whose fields are global names.
//! `static` globals are per-thread variables with a constant initial
//! value; `groupshared` ones live in workgroup memory.
//!
//! The types here are logical; [`crate::layout`] gives buffers their
//! memory layout later.

use super::*;
use crate::ir::{AtomicOp, Barrier, ConstValue, TextureOp, TextureShape};
use crate::layout::{self, Rules};

/// The shader parameters of a file, in binding order.
pub(super) struct ParamLayout {
    /// The `uniform` globals packed into `globalParams`.
    uniforms: Vec<DefId>,
    /// `(set, binding)` of each buffer parameter and `cbuffer` block.
    bindings: HashMap<DefId, (u32, u32)>,
    /// The binding after the last one given automatically.
    next: u32,
    /// The descriptor set of each `ParameterBlock` (1, 2, … in declaration
    /// order; set 0 holds the other parameters).
    blocks: HashMap<DefId, u32>,
}

/// `ParameterBlock<T>`: its `T`.
pub(super) fn param_block_of(ty: &Ty) -> Option<&Ty> {
    match ty {
        Ty::Adt { name, args, .. } if name == "ParameterBlock" => args.first(),
        _ => None,
    }
}

/// The resource types (buffers, textures, samplers), by the name of the
/// resource type.
#[derive(Clone, Copy)]
pub(super) enum Resource {
    Structured {
        writable: bool,
    },
    ByteAddress {
        writable: bool,
    },
    Constant,
    Texture(TextureShape),
    /// `RWTexture1D/2D/3D<T>`.
    RWTexture(TextureShape),
    Sampler,
}

pub(super) fn resource_of(ty: &Ty) -> Option<(Resource, Option<&Ty>)> {
    let Ty::Adt { name, args, .. } = ty else { return None };
    Some(match name.as_str() {
        // A descriptor handle (`T.Handle`) stands for its resource, bound
        // at compile time as resources are (each handle's value is known
        // where it is used).
        "DescriptorHandle" => return resource_of(args.first()?),
        "RWStructuredBuffer" => (Resource::Structured { writable: true }, args.first()),
        "StructuredBuffer" => (Resource::Structured { writable: false }, args.first()),
        "RWByteAddressBuffer" => (Resource::ByteAddress { writable: true }, None),
        "ByteAddressBuffer" => (Resource::ByteAddress { writable: false }, None),
        "ConstantBuffer" => (Resource::Constant, args.first()),
        "Texture1D" => (Resource::Texture(TextureShape::D1), args.first()),
        "Texture2D" => (Resource::Texture(TextureShape::D2), args.first()),
        "Texture3D" => (Resource::Texture(TextureShape::D3), args.first()),
        "TextureCube" => (Resource::Texture(TextureShape::Cube), args.first()),
        "RWTexture1D" => (Resource::RWTexture(TextureShape::D1), args.first()),
        "RWTexture2D" => (Resource::RWTexture(TextureShape::D2), args.first()),
        "RWTexture3D" => (Resource::RWTexture(TextureShape::D3), args.first()),
        "Texture2DArray" => (Resource::Texture(TextureShape::D2Array), args.first()),
        "TextureCubeArray" => (Resource::Texture(TextureShape::CubeArray), args.first()),
        "RWTexture2DArray" => (Resource::RWTexture(TextureShape::D2Array), args.first()),
        "SamplerState" => (Resource::Sampler, None),
        _ => return None,
    })
}

impl ModuleLowerer<'_> {
    /// The declared type of a variable.
    fn var_ty(&self, def: DefId) -> Ty {
        let db = self.db;
        decl_type_ref(db, def).clone().map(|t| DeclCtx::for_def(db, def).resolve(&t)).unwrap_or(Ty::Unknown)
    }

    /// The shader parameters of `file` (computed once).
    fn param_layout(&mut self, file: SourceFile) -> &ParamLayout {
        if self.param_layout.is_none() {
            let db = self.db;
            let mut uniforms = Vec::new();
            let mut params = Vec::new();
            let mut blocks = HashMap::new();
            for item in &item_tree(db, file).items {
                let def = DefId::new(db, file, item.ast_index);
                match item.kind {
                    ItemKind::Cbuffer => params.push(def),
                    ItemKind::Var
                        if !item.is_static
                            && !item.has_modifier(Modifier::Const)
                            && !item.has_modifier(Modifier::Groupshared) =>
                    {
                        let ty = self.var_ty(def);
                        if param_block_of(&ty).is_some() {
                            blocks.insert(def, blocks.len() as u32 + 1);
                            continue;
                        }
                        // Resources of every kind take a binding (the
                        // ones not supported fail where they are used).
                        let is_resource = match ty {
                            Ty::Adt { def: d, .. } => slang_analysis::core_files(db).contains(&d.file(db)),
                            _ => false,
                        };
                        if is_resource {
                            params.push(def);
                        } else {
                            uniforms.push(def);
                        }
                    }
                    _ => {}
                }
            }
            let first = u32::from(!uniforms.is_empty());
            let mut bindings = HashMap::new();
            for (i, &def) in params.iter().enumerate() {
                let binding = explicit_binding(db, def).unwrap_or((0, first + i as u32));
                bindings.insert(def, binding);
            }
            let next = first + params.len() as u32;
            self.param_layout = Some(ParamLayout { uniforms, bindings, next, blocks });
        }
        self.param_layout.as_ref().expect("computed above")
    }

    pub(super) fn add_global(&mut self, global: Global) -> GlobalId {
        let id = GlobalId(self.module.globals.len() as u32);
        self.module.globals.push(global);
        id
    }

    /// Where the global variable `def` lives: a global, or a field of one
    /// (the members of `cbuffer` blocks and the `uniform` globals).
    pub(super) fn global_place(&mut self, def: DefId, at: Option<TextRange>) -> R<(GlobalId, Option<u32>)> {
        let db = self.db;
        let Some(item) = item_of(db, def) else { return err(at, "unknown global") };
        let name = item.name.clone().unwrap_or_default();
        if let Some(parent) =
            infer::parent_of(db, def).filter(|&p| item_of(db, p).is_some_and(|p| p.kind == ItemKind::Cbuffer))
        {
            let members = item_of(db, parent).map(|p| p.members.clone()).unwrap_or_default();
            let index = members.iter().filter(|m| m.kind == ItemKind::Var).position(|m| m.ast_index == item.ast_index);
            return Ok((self.cbuffer(parent, at)?, index.map(|i| i as u32)));
        }
        if let Some(&g) = self.globals.get(&def) {
            return Ok((g, None));
        }
        let span = self.def_range(def);
        let ty = self.var_ty(def);
        let is_static = item.is_static || item.has_modifier(Modifier::Const);
        let global = if is_static || item.has_modifier(Modifier::Groupshared) {
            let t = self.lower_ty(&ty, at)?;
            let (space, init) = if is_static {
                let init = body(db, def).initializer();
                match init.map(|e| self.const_value(def, e, t)).transpose() {
                    Ok(init) => (AddressSpace::Private, init),
                    // Not a constant (`normalize(…)`, `2.0 * PI`): computed
                    // when the entry point starts.
                    Err(_) => {
                        let g = self.add_global(Global {
                            name,
                            ty: t,
                            space: AddressSpace::Private,
                            binding: None,
                            init: None,
                            span,
                        });
                        self.globals.insert(def, g);
                        let f = self.initializer_function(def, t, at)?;
                        self.dynamic_inits.push((g, f));
                        return Ok((g, None));
                    }
                }
            } else {
                (AddressSpace::Workgroup, None)
            };
            Global { name, ty: t, space, binding: None, init, span }
        } else if let Some((resource, elem)) = resource_of(&ty) {
            let binding = self.param_layout(def.file(db)).bindings.get(&def).copied();
            let (contents, space) = self.resource_contents(resource, elem, at)?;
            Global { name, ty: contents, space, binding, init: None, span }
        } else {
            let layout = self.param_layout(def.file(db));
            let index = layout.uniforms.iter().position(|&u| u == def);
            let uniforms = layout.uniforms.clone();
            let Some(index) = index else {
                return err(at, format!("global `{name}` of type `{ty}` is not supported by code generation yet"));
            };
            return Ok((self.default_uniforms(&uniforms, at)?, Some(index as u32)));
        };
        let g = self.add_global(global);
        self.globals.insert(def, g);
        Ok((g, None))
    }

    /// Where the field `field` of the `ParameterBlock` global `def` lives
    /// (as the reference compiler lays blocks out for Vulkan): the block
    /// has a descriptor set of its own; its fields of plain data are one
    /// constant buffer, named as the block, at binding 0 (when there are
    /// any), and each resource field is a parameter `<block>_<field>` at
    /// the next binding. `None` when `def` is not a parameter block.
    pub(super) fn block_member(
        &mut self,
        def: DefId,
        field: &str,
        at: Option<TextRange>,
    ) -> R<Option<(GlobalId, Option<u32>)>> {
        let db = self.db;
        let Some(set) = self.param_layout(def.file(db)).blocks.get(&def).copied() else { return Ok(None) };
        if !self.block_members.contains_key(&def) {
            let ty = self.var_ty(def);
            let Some(Ty::Adt { def: sdef, args, .. }) = param_block_of(&ty).cloned() else {
                return err(at, format!("`ParameterBlock` of `{ty}` is not supported by code generation yet"));
            };
            let Some(item) = item_of(db, sdef).filter(|i| i.kind == ItemKind::Struct) else {
                return err(at, format!("`ParameterBlock` of `{ty}` is not supported by code generation yet"));
            };
            let block = item_of(db, def).and_then(|i| i.name.clone()).unwrap_or_default();
            let bindings: HashMap<String, Ty> =
                item.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
            let mut ctx = DeclCtx::specialized(db, sdef, &bindings);
            let mut data = Vec::new();
            let mut resources = Vec::new();
            for m in item.members.iter().filter(|m| m.kind == ItemKind::Var && !m.is_static) {
                let mdef = DefId::new(db, sdef.file(db), m.ast_index);
                let fty = decl_type_ref(db, mdef).clone().map(|t| ctx.resolve(&t)).unwrap_or(Ty::Unknown);
                let name = m.name.clone().unwrap_or_default();
                let fat = self.def_range(mdef).or(at);
                match resource_of(&fty) {
                    Some(r) => resources.push((name, r.0, r.1.cloned(), fat)),
                    None => {
                        let t = self.lower_ty(&fty, fat)?;
                        data.push((name, t));
                    }
                }
            }
            let span = self.def_range(def);
            let mut places = HashMap::new();
            if !data.is_empty() {
                let sname = format!("{}_Block", item.name.clone().unwrap_or_default());
                let sty = self.intern(Type::Struct { name: sname, fields: data.clone() });
                let g = self.add_global(Global {
                    name: block.clone(),
                    ty: sty,
                    space: AddressSpace::Uniform,
                    binding: Some((set, 0)),
                    init: None,
                    span,
                });
                for (i, (name, _)) in data.iter().enumerate() {
                    places.insert(name.clone(), (g, Some(i as u32)));
                }
            }
            let first = u32::from(!data.is_empty());
            for (k, (name, resource, elem, fat)) in resources.into_iter().enumerate() {
                let (contents, space) = self.resource_contents(resource, elem.as_ref(), fat)?;
                let g = self.add_global(Global {
                    name: format!("{block}_{name}"),
                    ty: contents,
                    space,
                    binding: Some((set, first + k as u32)),
                    init: None,
                    span: fat,
                });
                places.insert(name, (g, None));
            }
            self.block_members.insert(def, places);
        }
        match self.block_members[&def].get(field) {
            Some(&place) => Ok(Some(place)),
            None => err(at, format!("the parameter block has no field `{field}`")),
        }
    }

    /// The contents and address space of a buffer of kind `resource`.
    pub(super) fn resource_contents(
        &mut self,
        resource: Resource,
        elem: Option<&Ty>,
        at: Option<TextRange>,
    ) -> R<(TypeId, AddressSpace)> {
        Ok(match (resource, elem) {
            (Resource::Structured { writable }, Some(e)) => {
                let e = self.buffer_element_ty(e, at)?;
                (self.intern(Type::RuntimeArray(e)), AddressSpace::Storage { writable })
            }
            (Resource::ByteAddress { writable }, _) => {
                let word = self.intern(Type::Scalar(Scalar::UInt32));
                (self.intern(Type::RuntimeArray(word)), AddressSpace::Storage { writable })
            }
            (Resource::Constant, Some(t)) => (self.lower_ty(t, at)?, AddressSpace::Uniform),
            (Resource::Texture(shape) | Resource::RWTexture(shape), texel) => {
                // (`Texture2D` alone holds `float4`s.)
                let texel = match texel {
                    Some(t) => self.lower_ty(t, at)?,
                    None => self.intern(Type::Vector(Scalar::Float, 4)),
                };
                let (scalar, n) = match self.module.types.get(texel) {
                    Type::Scalar(s) => (*s, 1),
                    Type::Vector(s, n) => (*s, *n),
                    _ => (Scalar::Bool, 0),
                };
                if !matches!(scalar, Scalar::Float | Scalar::Int32 | Scalar::UInt32) {
                    let shown = self.module.types.display(texel);
                    return err(at, format!("textures of `{shown}` are not supported (float, int or uint texels)"));
                }
                let storage = match resource {
                    Resource::RWTexture(_) if n == 3 => {
                        let shown = self.module.types.display(texel);
                        return err(
                            at,
                            format!("a writable texture of `{shown}` has no storage format (1, 2 or 4 components)"),
                        );
                    }
                    Resource::RWTexture(_) => Some(n),
                    _ => None,
                };
                (self.intern(Type::Texture(shape, scalar, storage)), AddressSpace::Handle)
            }
            (Resource::Sampler, _) => (self.intern(Type::Sampler), AddressSpace::Handle),
            _ => return err(at, "a buffer without an element type"),
        })
    }

    /// The constant buffer of a `cbuffer` block.
    fn cbuffer(&mut self, def: DefId, at: Option<TextRange>) -> R<GlobalId> {
        if let Some(&g) = self.globals.get(&def) {
            return Ok(g);
        }
        let db = self.db;
        let Some(item) = item_of(db, def) else { return err(at, "unknown cbuffer") };
        let name = item.name.clone().unwrap_or_default();
        let mut fields = Vec::new();
        for m in item.members.iter().filter(|m| m.kind == ItemKind::Var) {
            let mdef = DefId::new(db, def.file(db), m.ast_index);
            let ty = self.var_ty(mdef);
            let t = self.lower_ty(&ty, self.def_range(mdef).or(at))?;
            fields.push((m.name.clone().unwrap_or_default(), t));
        }
        let ty = self.intern(Type::Struct { name: format!("SLANG_ParameterGroup_{name}"), fields });
        let binding = self.param_layout(def.file(db)).bindings.get(&def).copied();
        let span = self.def_range(def);
        let g = self.add_global(Global { name, ty, space: AddressSpace::Uniform, binding, init: None, span });
        self.globals.insert(def, g);
        Ok(g)
    }

    /// `globalParams`, the constant buffer of the file's `uniform` globals.
    fn default_uniforms(&mut self, uniforms: &[DefId], at: Option<TextRange>) -> R<GlobalId> {
        if let Some(g) = self.default_uniforms {
            return Ok(g);
        }
        let mut fields = Vec::new();
        for &def in uniforms {
            let ty = self.var_ty(def);
            let t = self.lower_ty(&ty, self.def_range(def).or(at))?;
            let name = item_of(self.db, def).and_then(|i| i.name.clone()).unwrap_or_default();
            fields.push((name, t));
        }
        let ty = self.intern(Type::Struct { name: "GlobalParams".into(), fields });
        let g = self.add_global(Global {
            name: "globalParams".into(),
            ty,
            space: AddressSpace::Uniform,
            binding: Some((0, 0)),
            init: None,
            span: None,
        });
        self.default_uniforms = Some(g);
        Ok(g)
    }

    /// `entryPointParams`, the constant buffer of the entry point's
    /// `uniform` parameters (`(name, type)`), after the file's parameters.
    pub(super) fn entry_point_uniforms(&mut self, file: SourceFile, fields: Vec<(String, TypeId)>) -> GlobalId {
        let binding = (0, self.param_layout(file).next);
        let ty = self.intern(Type::Struct { name: "EntryPointParams".into(), fields });
        self.add_global(Global {
            name: "entryPointParams".into(),
            ty,
            space: AddressSpace::Uniform,
            binding: Some(binding),
            init: None,
            span: None,
        })
    }

    /// The constant value of expression `e` of `def`'s body (a `static`
    /// global's initial value, a field's or parameter's default) as a
    /// value of type `ty`: literals, constants, initializer lists and
    /// constructors of them (the constant evaluator's value, fitted to
    /// the type).
    pub(super) fn const_value(&mut self, def: DefId, e: ExprId, ty: TypeId) -> R<ConstValue> {
        let db = self.db;
        let at = expr_range(db, def, e).map(|r| r.0);
        let body = body(db, def).clone();
        let mut env = Constants { ctx: DeclCtx::for_def(db, def), locals: None };
        match consteval::eval(&body, e, &mut env) {
            Some(v) => self.fit_const(&v, ty, at),
            None => err(at, "a `static` global's initial value must be a constant"),
        }
    }

    /// A constant as a value of type `ty` (a scalar for every part:
    /// `float3 v = 0;`; missing parts are zero).
    fn fit_const(&mut self, v: &HirConst, ty: TypeId, at: Option<TextRange>) -> R<ConstValue> {
        let parts: Vec<HirConst> = match v {
            HirConst::List(items) => items.clone(),
            other => vec![other.clone()],
        };
        let part_types: Vec<TypeId> = match self.module.types.get(ty).clone() {
            Type::Scalar(s) => {
                let [only] = parts.as_slice() else { return err(at, "one value for a scalar") };
                let c = match only {
                    HirConst::Int(i) => Const::Int(*i),
                    HirConst::Float(f) => Const::Float(*f),
                    HirConst::Bool(b) => Const::Bool(*b),
                    HirConst::List(_) => return self.fit_const(only, ty, at),
                };
                return Ok(ConstValue::Scalar(convert_const(c, s)));
            }
            Type::Vector(s, n) => vec![self.intern(Type::Scalar(s)); n as usize],
            Type::Matrix { scalar, rows, cols } => {
                let row = self.intern(Type::Vector(scalar, cols));
                if parts.len() == (rows * cols) as usize {
                    // Scalars, row after row.
                    let st = self.intern(Type::Scalar(scalar));
                    let scalars = parts.iter().map(|p| self.fit_const(p, st, at)).collect::<R<Vec<_>>>()?;
                    let rows = scalars.chunks(cols as usize).map(|c| ConstValue::Composite(c.to_vec())).collect();
                    return Ok(ConstValue::Composite(rows));
                }
                vec![row; rows as usize]
            }
            Type::Array(e, n) => vec![e; n as usize],
            Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
            _ => return err(at, "a `static` global of this type is not supported by code generation yet"),
        };
        if let ([only], true) = (parts.as_slice(), part_types.len() > 1) {
            if !matches!(v, HirConst::List(_)) {
                // A scalar for every part (`float3 v = 0;`).
                let value = self.fit_const(only, part_types[0], at)?;
                return Ok(ConstValue::Composite(vec![value; part_types.len()]));
            }
        }
        if parts.len() > part_types.len() {
            return err(at, "too many values in this initializer");
        }
        let mut values = Vec::new();
        for (i, &pt) in part_types.iter().enumerate() {
            values.push(match parts.get(i) {
                Some(p) => self.fit_const(p, pt, at)?,
                None => self.zero_const(pt, at)?,
            });
        }
        Ok(ConstValue::Composite(values))
    }

    fn zero_const(&mut self, ty: TypeId, at: Option<TextRange>) -> R<ConstValue> {
        let parts = match self.module.types.get(ty).clone() {
            Type::Scalar(s) => {
                return Ok(ConstValue::Scalar(convert_const(Const::Int(0), s)));
            }
            Type::Vector(s, n) => vec![self.intern(Type::Scalar(s)); n as usize],
            Type::Matrix { scalar, rows, cols } => vec![self.intern(Type::Vector(scalar, cols)); rows as usize],
            Type::Array(e, n) => vec![e; n as usize],
            Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
            _ => return err(at, "no zero value of this type"),
        };
        Ok(ConstValue::Composite(parts.into_iter().map(|p| self.zero_const(p, at)).collect::<R<Vec<_>>>()?))
    }
}

/// `[[vk::binding(b, s)]]` on a global's declaration.
fn explicit_binding(db: &dyn Db, def: DefId) -> Option<(u32, u32)> {
    let attr = item_of(db, def)?.attr("binding")?.clone();
    let mut ctx = DeclCtx::for_def(db, def);
    let args: Vec<Option<u32>> =
        attr.args.iter().map(|a| ctx.const_value(a).and_then(|v| u32::try_from(v).ok())).collect();
    match args.as_slice() {
        [Some(b)] => Some((0, *b)),
        [Some(b), Some(s)] => Some((*s, *b)),
        _ => None,
    }
}

/// The value of global `def`'s initial value when it is a constant
/// written with literals (`2`, `-1.5`, `true`, `1 << 4`).
pub(super) fn literal_value(db: &dyn Db, def: DefId) -> Option<Const> {
    let body = body(db, def);
    match consteval::eval(body, body.initializer()?, &mut consteval::NoNames)? {
        HirConst::Int(v) => Some(Const::Int(v)),
        HirConst::Float(f) => Some(Const::Float(f)),
        HirConst::Bool(b) => Some(Const::Bool(b)),
        HirConst::List(_) => None,
    }
}

/// What names mean in constants that code generation evaluates: those of
/// the declaration's context (generic value arguments, constants, enum
/// cases), the function's `const` locals declared before (when in a
/// function), and struct constructors (fields in order).
pub(super) struct Constants<'db> {
    pub(super) ctx: DeclCtx<'db>,
    /// The body's `const` locals are constants before this expression.
    pub(super) locals: Option<ExprId>,
}

impl ConstEnv for Constants<'_> {
    fn name(&mut self, body: &Body, e: ExprId) -> Option<HirConst> {
        if let (Some(before), Expr::Path(segs, false)) = (self.locals, body.expr(e)) {
            if let [seg] = segs.as_slice() {
                let locals: Vec<_> = body
                    .stmts
                    .iter()
                    .filter_map(|s| match s {
                        Stmt::Decl(decls) => Some(decls),
                        _ => None,
                    })
                    .flatten()
                    .filter(|d| d.name == seg.name)
                    .collect();
                // A parameter or variable of that name is not a constant
                // (whatever it hides).
                if body.params.iter().any(|p| p.name.as_deref() == Some(seg.name.as_str()))
                    || locals.iter().any(|d| !d.immutable)
                {
                    return None;
                }
                // The last `let`/`const` local of that name declared before.
                let init = locals.iter().filter_map(|d| d.init).filter(|&i| i < before && i != e).max();
                if let Some(i) = init {
                    return consteval::eval(body, i, self);
                }
            }
        }
        self.ctx.name(body, e)
    }

    fn constructs(&mut self, body: &Body, callee: ExprId) -> bool {
        let Expr::Path(segs, _) = body.expr(callee) else { return false };
        let [seg] = segs.as_slice() else { return false };
        let db = self.ctx.db;
        self.ctx.lookup_global(&seg.name).iter().any(|d| {
            d.kind == ItemKind::Struct
                && item_of(db, DefId::new(db, d.file, d.ast_index))
                    .is_some_and(|i| !i.members.iter().any(|m| m.kind == ItemKind::Init))
        })
    }
}

impl FnLower<'_, '_> {
    /// Whether the global `def`, read by `e`, is a `const` scalar with a
    /// literal value (used as the value itself).
    pub(super) fn is_literal_constant(&mut self, def: DefId, e: ExprId) -> R<bool> {
        let db = self.db();
        if !item_of(db, def).is_some_and(|i| i.modifiers.contains(&Modifier::Const)) {
            return Ok(false);
        }
        let literal = literal_value(db, def).is_some();
        let t = self.expr_ty(e)?;
        Ok(literal && matches!(self.ty(t), Type::Scalar(_)))
    }

    /// The entry point's `uniform` parameters as locals, read from their
    /// constant buffer.
    pub(super) fn entry_point_uniforms(&mut self) -> R<()> {
        // Entry points are not generic: the instance without arguments.
        let Some(id) = self.m.funcs.iter().find(|(i, _)| i.def == self.def && i.args.is_empty()).map(|(_, &id)| id)
        else {
            return Ok(());
        };
        let Some((g, names)) = self.m.entry_uniforms.get(&id).cloned() else { return Ok(()) };
        let global = self.m.module.global(g).clone();
        let p = self.t(Type::Ptr(global.ty, global.space));
        let buffer = self.emit(Op::Global(g), p);
        for (i, name) in names.into_iter().enumerate() {
            let field = self.field_addr(buffer, i as u32)?;
            let value = self.load(field);
            let var = self.var(self.ty_of(value));
            self.store(var, value);
            self.scopes.last_mut().expect("the function's scope").push(Local { name, ptr: var });
        }
        Ok(())
    }

    /// The built-in functions about memory: the thread-group and subgroup
    /// barriers.
    pub(super) fn memory_builtin(&mut self, name: &str, args: &[ExprId]) -> R<Option<ValueId>> {
        let barrier = match (name, args) {
            ("GroupMemoryBarrierWithGroupSync", []) => Barrier::Group,
            ("DeviceMemoryBarrierWithGroupSync", []) => Barrier::Device,
            ("AllMemoryBarrierWithGroupSync", []) => Barrier::All,
            ("GroupMemoryBarrierWithWaveSync", []) => Barrier::Wave,
            _ => return Ok(None),
        };
        let void = self.void();
        Ok(Some(self.emit(Op::Barrier(barrier), void)))
    }

    /// The subgroup (wave) operations over the active threads:
    /// `WaveActiveAllTrue(b)`, `WaveActiveSum(x)`, `WavePrefixSum(x)`, ….
    pub(super) fn subgroup_builtin(&mut self, name: &str, args: &[ExprId]) -> R<Option<ValueId>> {
        use crate::ir::{SubgroupOp as S, SubgroupScope};
        let (scope, op) = if let Some(rest) = name.strip_prefix("WaveActive") {
            (SubgroupScope::Reduce, rest)
        } else if let Some(rest) = name.strip_prefix("WavePrefix") {
            (SubgroupScope::ExclusivePrefix, rest)
        } else {
            return Ok(None);
        };
        let op = match (scope, op) {
            (SubgroupScope::Reduce, "AllTrue") => S::All,
            (SubgroupScope::Reduce, "AnyTrue") => S::Any,
            (_, "Sum") => S::Sum,
            (_, "Product") => S::Product,
            (SubgroupScope::Reduce, "Min") => S::Min,
            (SubgroupScope::Reduce, "Max") => S::Max,
            (SubgroupScope::Reduce, "BitAnd") => S::BitAnd,
            (SubgroupScope::Reduce, "BitOr") => S::BitOr,
            (SubgroupScope::Reduce, "BitXor") => S::BitXor,
            _ => return Ok(None),
        };
        let [arg] = args else { return Ok(None) };
        let v = self.expr(*arg)?;
        let t = self.ty_of(v);
        Ok(Some(self.emit(Op::Subgroup(op, scope, v), t)))
    }

    /// `InterlockedAdd(dest, value[, original])` and the other atomics, on
    /// a buffer element or a `groupshared` variable.
    pub(super) fn atomic_builtin(&mut self, name: &str, args: &[ExprId]) -> R<Option<ValueId>> {
        let (Some(op), Some((&dest, rest))) =
            (name.strip_prefix("Interlocked").and_then(atomic_op), args.split_first())
        else {
            return Ok(None);
        };
        let ptr = match self.place(dest)? {
            Some(p) => p,
            None => {
                return err(
                    self.expr_span(dest),
                    format!("`{name}` needs a buffer element or a `groupshared` variable"),
                )
            }
        };
        match self.m.module.types.pointee(self.ty_of(ptr)) {
            Some((_, AddressSpace::Storage { writable: true } | AddressSpace::Workgroup)) => {}
            _ => {
                return err(
                    self.expr_span(dest),
                    format!("`{name}` needs an element of a writable buffer or a `groupshared` variable"),
                )
            }
        }
        self.atomic(name, op, ptr, rest).map(Some)
    }

    /// The atomic `op` on what `ptr` points to, with the value (the
    /// comparand first, for a compare-exchange) and the optional output
    /// of the old value in `args`; the old value.
    fn atomic(&mut self, name: &str, op: (AtomicOp, bool), ptr: ValueId, args: &[ExprId]) -> R<ValueId> {
        let (op, returns_old) = op;
        let (t, _) = self.m.module.types.pointee(self.ty_of(ptr)).expect("a place is a pointer");
        let (compare, value, original) = match (op, args) {
            (AtomicOp::CompareExchange, [c, v]) if !returns_old => (Some(*c), *v, None),
            (AtomicOp::CompareExchange, [c, v, o]) => (Some(*c), *v, Some(*o)),
            (AtomicOp::Exchange, [v, o]) => (None, *v, Some(*o)),
            (AtomicOp::CompareExchange | AtomicOp::Exchange, _) => {
                return self.error(format!("wrong number of arguments for `{name}`"))
            }
            (_, [v]) => (None, *v, None),
            (_, [v, o]) => (None, *v, Some(*o)),
            _ => return self.error(format!("wrong number of arguments for `{name}`")),
        };
        match self.m.module.types.get(t) {
            Type::Scalar(Scalar::Int32 | Scalar::UInt32) => {}
            Type::Scalar(Scalar::Float) if matches!(op, AtomicOp::Add | AtomicOp::Exchange) => {}
            Type::Scalar(Scalar::Float) => {
                return self.error(format!(
                    "`{name}` on a `float` is not supported (only `InterlockedAdd` and `InterlockedExchange` are)"
                ))
            }
            _ => return self.error(format!("`{name}` works on `int`, `uint` and `float`, not `{}`", self.show(t))),
        }
        let compare = compare.map(|c| self.expr_expecting(c, t)).transpose()?;
        let value = self.expr_expecting(value, t)?;
        let old = self.emit(Op::Atomic { op, ptr, value, compare }, t);
        if let Some(o) = original {
            let ot = self.expr_ty(o)?;
            let v = self.coerce(old, ot)?;
            self.assign_to(o, v)?;
        }
        Ok(old)
    }

    /// Methods of buffers: `Load`/`Store` (and the 2, 3, 4 forms) of
    /// byte-address buffers, `Load` of structured buffers,
    /// `GetDimensions`, `getCount`.
    pub(super) fn buffer_method(
        &mut self,
        e: ExprId,
        receiver: ExprId,
        name: &str,
        args: &[ExprId],
    ) -> R<Option<ValueId>> {
        let receiver_ty = self.inferred.type_of(receiver);
        let Some((resource, _)) = resource_of(&receiver_ty) else { return Ok(None) };
        let Some(buffer) = self.place(receiver)? else { return Ok(None) };
        let Some((contents, space)) = self.m.module.types.pointee(self.ty_of(buffer)) else { return Ok(None) };
        let Type::RuntimeArray(elem) = *self.ty(contents) else { return Ok(None) };
        let uint = self.t(Type::Scalar(Scalar::UInt32));
        let words = |n: &str| match n {
            "Load" | "Store" => Some(1u8),
            "Load2" | "Store2" => Some(2),
            "Load3" | "Store3" => Some(3),
            "Load4" | "Store4" => Some(4),
            _ => None,
        };
        Ok(Some(match (resource, name, args) {
            (_, "GetDimensions", [count, rest @ ..]) => {
                let length = self.emit(Op::ArrayLength(buffer), uint);
                let (count_value, stride) = match (resource, rest) {
                    (Resource::ByteAddress { .. }, []) => {
                        let four = self.konst(Const::Int(4), uint);
                        (self.emit(Op::Binary(BinaryOp::Mul, length, four), uint), None)
                    }
                    (Resource::Structured { .. }, [stride]) => {
                        let size = layout::size_of(&self.m.module.types, elem, Rules::Std430);
                        (length, Some((*stride, self.konst(Const::Int(size.into()), uint))))
                    }
                    _ => return self.error("wrong arguments for `GetDimensions`"),
                };
                for (target, value) in [(*count, count_value)].into_iter().chain(stride) {
                    let t = self.expr_ty(target)?;
                    let v = self.coerce(value, t)?;
                    self.assign_to(target, v)?;
                }
                // `void`: nothing uses the value.
                length
            }
            (_, "getCount", []) => {
                let length = self.emit(Op::ArrayLength(buffer), uint);
                let t = self.expr_ty(e)?;
                self.coerce(length, t)?
            }
            (Resource::Structured { .. }, "Load", [index]) => {
                let i = self.index(*index)?;
                let p = self.t(Type::Ptr(elem, space));
                let p = self.emit(Op::ElementAddr(buffer, i), p);
                self.load(p)
            }
            (Resource::ByteAddress { .. }, n, [address]) if n.starts_with("Load") && words(n).is_some() => {
                let count = words(n).unwrap_or(1);
                let a = self.expr_expecting(*address, uint)?;
                let parts: Vec<ValueId> = (0..count)
                    .map(|k| {
                        let p = self.word(buffer, a, k);
                        self.load(p)
                    })
                    .collect();
                match parts.as_slice() {
                    [one] => *one,
                    _ => {
                        let t = self.t(Type::Vector(Scalar::UInt32, count));
                        self.emit(Op::Construct(parts), t)
                    }
                }
            }
            (Resource::ByteAddress { writable: true }, n, [address, rest @ ..])
                if n.strip_prefix("Interlocked").and_then(atomic_op).is_some() =>
            {
                // On the 32-bit word at a byte address.
                let op = n.strip_prefix("Interlocked").and_then(atomic_op).expect("matched");
                let a = self.expr_expecting(*address, uint)?;
                let p = self.word(buffer, a, 0);
                self.atomic(n, op, p, rest)?
            }
            (Resource::ByteAddress { writable: true }, n, [address, value])
                if n.starts_with("Store") && words(n).is_some() =>
            {
                let count = words(n).unwrap_or(1);
                let t = if count == 1 { uint } else { self.t(Type::Vector(Scalar::UInt32, count)) };
                let a = self.expr_expecting(*address, uint)?;
                let v = self.expr_expecting(*value, t)?;
                for k in 0..count {
                    let part = if count == 1 { v } else { self.emit(Op::Extract(v, k as u32), uint) };
                    let p = self.word(buffer, a, k);
                    self.store(p, part);
                }
                v
            }
            _ => return Ok(None),
        }))
    }

    /// Methods of textures (read-only, writable, arrays): `SampleLevel`,
    /// `Sample` (level 0: compute shaders have no implicit level of
    /// detail), `Load`, `GetDimensions`; `None` when `receiver` is not a
    /// texture.
    pub(super) fn texture_method(
        &mut self,
        e: ExprId,
        receiver: ExprId,
        name: &str,
        args: &[ExprId],
    ) -> R<Option<ValueId>> {
        let Some((texture, shape)) = self.texture_value(receiver)? else { return Ok(None) };
        let n = shape.coordinate_size();
        // (An array's coordinates end with the layer.)
        let layer = u8::from(shape.is_array());
        let (float, int, uint) = (Scalar::Float, Scalar::Int32, Scalar::UInt32);
        Ok(Some(match (name, args) {
            ("SampleLevel", [s, uv, _]) | ("Sample", [s, uv]) => {
                let coord_ty = self.vector_of(float, n + layer);
                let (s, uv) = (self.expr(*s)?, self.expr_expecting(*uv, coord_ty)?);
                let ft = self.t(Type::Scalar(float));
                let lod = match args.get(2) {
                    Some(&lod) => self.expr_expecting(lod, ft)?,
                    None => self.konst(Const::Float(0.0), ft),
                };
                let (uv, layer) = self.split_coordinate(uv, n, shape.is_array(), float);
                // (The layer of a float coordinate is the nearest.)
                let layer = match layer {
                    Some(l) => {
                        let rounded = self.emit(Op::Intrinsic(crate::ir::Intrinsic::Round, vec![l]), ft);
                        let it = self.t(Type::Scalar(int));
                        Some(self.emit(Op::Convert(rounded), it))
                    }
                    None => None,
                };
                let mut operands = vec![texture, s, uv, lod];
                operands.extend(layer);
                self.texel(e, TextureOp::SampleLevel, operands)?
            }
            ("Load", [location]) if self.writable_texture(texture) => {
                // (No mip levels.)
                let ct = self.vector_of(int, n + layer);
                let l = self.expr_expecting(*location, ct)?;
                let (coord, layer) = self.split_coordinate(l, n, shape.is_array(), int);
                let it = self.t(Type::Scalar(int));
                let level = self.konst(Const::Int(0), it);
                let mut operands = vec![texture, coord, level];
                operands.extend(layer);
                self.texel(e, TextureOp::Load, operands)?
            }
            ("Load", [location]) if !shape.is_cube() => {
                // The coordinates (and layer), then the mip level.
                let lt = self.vector_of(int, n + layer + 1);
                let l = self.expr_expecting(*location, lt)?;
                let (coord, _) = self.split_coordinate(l, n, false, int);
                let it = self.t(Type::Scalar(int));
                let level = self.emit(Op::Extract(l, (n + layer) as u32), it);
                let mut operands = vec![texture, coord, level];
                if shape.is_array() {
                    operands.push(self.emit(Op::Extract(l, n as u32), it));
                }
                self.texel(e, TextureOp::Load, operands)?
            }
            ("GetDimensions", outs) => {
                // `([mip,] out width[, out height[, out depth]][, out
                // elements][, out levels])`.
                let dims = shape.size_dims();
                let (level, outs) = match outs.len() as u8 {
                    k if k == dims + layer => (None, outs),
                    k if k == dims + layer + 2 && !self.writable_texture(texture) => (Some(outs[0]), &outs[1..]),
                    _ => {
                        return self
                            .error(format!("wrong number of arguments for `GetDimensions` of a {}", shape.name()))
                    }
                };
                let it = self.t(Type::Scalar(int));
                let level = match level {
                    Some(l) => self.expr_expecting(l, it)?,
                    None => self.konst(Const::Int(0), it),
                };
                let st = self.vector_of(uint, dims);
                let size = self.emit(Op::Texture(TextureOp::Size, vec![texture, level]), st);
                let ut = self.t(Type::Scalar(uint));
                for (k, &target) in outs.iter().enumerate() {
                    let v = match k as u8 {
                        k if k < dims && dims == 1 => size,
                        k if k < dims => self.emit(Op::Extract(size, k as u32), ut),
                        k if k == dims && layer == 1 => self.emit(Op::Texture(TextureOp::Layers, vec![texture]), ut),
                        _ => self.emit(Op::Texture(TextureOp::Levels, vec![texture]), ut),
                    };
                    let tt = self.expr_ty(target)?;
                    let v = self.coerce(v, tt)?;
                    self.assign_to(target, v)?;
                }
                size
            }
            _ => return self.error(format!("`{}.{name}` with these arguments is not supported yet", shape.name())),
        }))
    }

    /// The first `n` components of the coordinate `v` (of `scalar`s), and
    /// the next one when `layer` (an array's layer).
    fn split_coordinate(&mut self, v: ValueId, n: u8, layer: bool, scalar: Scalar) -> (ValueId, Option<ValueId>) {
        let total = match *self.ty(self.ty_of(v)) {
            Type::Vector(_, k) => k,
            _ => 1,
        };
        let ct = self.vector_of(scalar, n);
        let coord = match (n, total) {
            (a, b) if a == b => v,
            (1, _) => self.emit(Op::Extract(v, 0), ct),
            _ => self.emit(Op::Swizzle(v, (0..n).collect()), ct),
        };
        let st = self.t(Type::Scalar(scalar));
        (coord, layer.then(|| self.emit(Op::Extract(v, n as u32), st)))
    }

    /// Whether the texture value `t` is writable (`RWTexture2D` …).
    fn writable_texture(&self, t: ValueId) -> bool {
        matches!(self.ty(self.ty_of(t)), Type::Texture(_, _, Some(_)))
    }

    /// `t[i] = value` of a writable texture (`None`: `target` is not an
    /// element of a texture).
    pub(super) fn texture_store(&mut self, target: ExprId, value: ValueId) -> R<Option<()>> {
        let Expr::Index { base, index } = self.body.expr(target).clone() else { return Ok(None) };
        let Some((texture, shape)) = self.texture_value(base)? else { return Ok(None) };
        let Type::Texture(_, scalar, Some(n)) = *self.ty(self.ty_of(texture)) else {
            return self.error(format!("a `{}` is read-only", shape.name()));
        };
        let dims = shape.coordinate_size();
        let ct = self.vector_of(Scalar::Int32, dims + u8::from(shape.is_array()));
        let coord = self.expr_expecting(index, ct)?;
        let (coord, layer) = self.split_coordinate(coord, dims, shape.is_array(), Scalar::Int32);
        // The texel as four components (the rest zero).
        let texel_ty = self.vector_of(scalar, n);
        let v = self.coerce(value, texel_ty)?;
        let st = self.t(Type::Scalar(scalar));
        let mut parts: Vec<ValueId> = match n {
            1 => vec![v],
            _ => (0..n).map(|k| self.emit(Op::Extract(v, k as u32), st)).collect(),
        };
        while parts.len() < 4 {
            let z = self.zero(st)?;
            parts.push(z);
        }
        let t4 = self.vector_of(scalar, 4);
        let v4 = self.emit(Op::Construct(parts), t4);
        let void = self.t(Type::Void);
        let mut operands = vec![texture, coord, v4];
        operands.extend(layer);
        self.emit(Op::Texture(TextureOp::Store, operands), void);
        Ok(Some(()))
    }

    /// `t[i]` of a texture: the texel at integer coordinates, level 0.
    pub(super) fn texture_index(&mut self, e: ExprId, base: ExprId, index: ExprId) -> R<Option<ValueId>> {
        let Some((texture, shape)) = self.texture_value(base)? else { return Ok(None) };
        let int = Scalar::Int32;
        let n = shape.coordinate_size();
        let ct = self.vector_of(int, n + u8::from(shape.is_array()));
        let coord = self.expr_expecting(index, ct)?;
        let (coord, layer) = self.split_coordinate(coord, n, shape.is_array(), int);
        let it = self.t(Type::Scalar(int));
        let level = self.konst(Const::Int(0), it);
        let mut operands = vec![texture, coord, level];
        operands.extend(layer);
        self.texel(e, TextureOp::Load, operands).map(Some)
    }

    /// The texture `e` names (a texture global, or a parameter bound to
    /// one), and its shape.
    fn texture_value(&mut self, e: ExprId) -> R<Option<(ValueId, TextureShape)>> {
        let ty = self.inferred.type_of(e);
        if let Ty::Adt { name, .. } = &ty {
            let other_texture = name.contains("Texture") && name.ends_with("MS");
            if other_texture || (name.contains("Texture") && resource_of(&ty).is_none()) {
                return err(self.expr_span(e), format!("`{name}` is not supported by code generation yet"));
            }
        }
        if !matches!(resource_of(&ty), Some((Resource::Texture(_) | Resource::RWTexture(_), _))) {
            return Ok(None);
        }
        let v = self.expr(e)?;
        match *self.ty(self.ty_of(v)) {
            Type::Texture(shape, _, _) => Ok(Some((v, shape))),
            _ => self.error("a texture that code generation cannot reach"),
        }
    }

    /// A four-component texel read, as the type of expression `e` (the
    /// texture's texel type).
    fn texel(&mut self, e: ExprId, op: TextureOp, args: Vec<ValueId>) -> R<ValueId> {
        let Type::Texture(_, scalar, _) = *self.ty(self.ty_of(args[0])) else { unreachable!("checked by the caller") };
        let t4 = self.vector_of(scalar, 4);
        let texel = self.emit(Op::Texture(op, args), t4);
        let result = self.expr_ty(e)?;
        let st = self.t(Type::Scalar(scalar));
        match *self.ty(result) {
            Type::Vector(_, 4) => self.coerce(texel, result),
            Type::Vector(_, k) => {
                let vt = self.vector_of(scalar, k);
                let v = self.emit(Op::Swizzle(texel, (0..k).collect()), vt);
                self.coerce(v, result)
            }
            _ => {
                let v = self.emit(Op::Extract(texel, 0), st);
                self.coerce(v, result)
            }
        }
    }

    /// `scalar` or a vector of `n` of them.
    fn vector_of(&mut self, scalar: Scalar, n: u8) -> TypeId {
        match n {
            1 => self.t(Type::Scalar(scalar)),
            _ => self.t(Type::Vector(scalar, n)),
        }
    }

    /// A pointer to the `k`th 32-bit word from the byte address `a` (a
    /// `uint`) of a byte-address buffer.
    fn word(&mut self, buffer: ValueId, a: ValueId, k: u8) -> ValueId {
        let uint = self.t(Type::Scalar(Scalar::UInt32));
        let two = self.konst(Const::Int(2), uint);
        let mut index = self.emit(Op::Binary(BinaryOp::Shr, a, two), uint);
        if k > 0 {
            let offset = self.konst(Const::Int(k.into()), uint);
            index = self.emit(Op::Binary(BinaryOp::Add, index, offset), uint);
        }
        let space = self.m.module.types.pointee(self.ty_of(buffer)).map(|(_, s)| s).unwrap_or(AddressSpace::Function);
        let p = self.t(Type::Ptr(uint, space));
        self.emit(Op::ElementAddr(buffer, index), p)
    }
}

/// The atomic operation `Interlocked<name>` does, and whether it can
/// write the old value out (`InterlockedCompareStore` cannot).
fn atomic_op(name: &str) -> Option<(AtomicOp, bool)> {
    Some(match name {
        "Add" => (AtomicOp::Add, true),
        "And" => (AtomicOp::And, true),
        "Or" => (AtomicOp::Or, true),
        "Xor" => (AtomicOp::Xor, true),
        "Min" => (AtomicOp::Min, true),
        "Max" => (AtomicOp::Max, true),
        "Exchange" => (AtomicOp::Exchange, true),
        "CompareExchange" => (AtomicOp::CompareExchange, true),
        "CompareStore" => (AtomicOp::CompareExchange, false),
        _ => return None,
    })
}
