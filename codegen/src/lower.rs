//! Lowering typed HIR bodies (from `slang-analysis`) to the IR.
//!
//! Locals and `in` parameters become `Var`s read and written through
//! `Load`/`Store` (what the source says, with no analysis needed here);
//! [`crate::mem2reg`] turns them into SSA values afterwards. `&&`, `||`
//! and `?:` on scalars short-circuit, so they lower to control flow whose
//! result is a parameter of the merge block. Implicit conversions are made
//! explicit (`Convert`, `Splat`, truncating `Swizzle`), so instructions see
//! operands of exactly the types they take.
//!
//! `out`/`inout` arguments are passed as pointers to fresh temporaries,
//! copied in before and out after the call (Slang's copy-in/copy-out
//! semantics, and the only form every target accepts).
//!
//! Methods take their receiver as a first parameter `this` (`inout` for
//! `[mutating]` methods); an `__init` is a function returning its `this`.
//! Generic functions and structs are monomorphized: each instantiation
//! (an [`Instance`]: the declaration and its generic arguments, as the
//! arguments' types bind them) is lowered from the body inferred with
//! those arguments ([`infer::infer_specialized`]), so that calls of
//! interface methods on a `T` resolve statically to the concrete type's.
//!
//! What is not supported yet is reported as a [`CodegenError`] at the
//! construct's source range; lowering never panics on user code.

use std::collections::HashMap;
use std::sync::Arc;

use slang_analysis::hir::{
    self, body, body_with_source_map, def_node, expr_range, stmt_range, BinaryOp as HirBinary, Body, DefId, Expr,
    ExprId, LiteralKind, Stmt, StmtId, TypeRef,
};
use slang_analysis::infer::{self, call_bindings, decl_type_ref, fn_sig, item_of, parent_of, DeclCtx, InferenceResult};
use slang_analysis::item_tree::{item_tree, ItemKind};
use slang_analysis::name_res::global_scope;
use slang_analysis::ty::{Scalar, Ty, TypeResolver};
use slang_analysis::{Db, SourceFile, TextRange};
use slang_syntax::ast::{self, AstNode, HasAttributes};
use slang_syntax::{SyntaxKind, SyntaxNode};

use slang_analysis::autodiff::{
    fn_differentiability, functions_named, higher_order_signature, synthesized_differential, Mode,
};

use crate::autodiff::{forward_derivative, Requests};
use crate::ir::{
    AddressSpace, BinaryOp, BlockId, Builtin, Const, Derivative, EntryPoint, FuncId, FunctionBuilder, Global, GlobalId,
    Intrinsic, Module, Op, Param, ParamDir, StructDiff, Terminator, Type, TypeId, UnaryOp, ValueId,
};
use crate::CodegenError;

mod globals;

type R<T> = Result<T, CodegenError>;

fn err<T>(range: Option<TextRange>, message: impl Into<String>) -> R<T> {
    Err(CodegenError { range, message: message.into() })
}

/// One instantiation of a function: its declaration and the generic
/// arguments of it and its enclosing types, by parameter name (sorted;
/// empty for code that is not generic).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Instance {
    def: DefId,
    args: Vec<(String, Ty)>,
    /// Buffer parameters bound to the global buffers the call passes (by
    /// parameter index, and field path for buffers held by a struct
    /// parameter, `""` for the parameter itself): functions are
    /// specialized per buffer, as the reference compiler does, since
    /// buffers are not values on the GPU.
    resources: Vec<(u32, String, GlobalId)>,
    /// The `set` accessor of a property or `__subscript` (rather than its
    /// getter): `this` is `inout`, the stored value a last parameter, and
    /// nothing is returned.
    setter: bool,
}

/// The instance of `g`, a user-written derivative or substitute of `inst`'s
/// function, with `inst`'s generic arguments and the buffers it is
/// specialized to: those `this` holds (when `g` is a method too) and those
/// of the parameters `g` takes at the same place with the same type
/// (`write_bwd` reads the `grad` buffer of the struct `write` was called
/// on).
fn derived_instance(db: &dyn Db, inst: &Instance, g: DefId) -> Instance {
    let mut out = Instance::new(db, g, &inst.bindings());
    let (ours, theirs) = (fn_sig(db, inst.def), fn_sig(db, g));
    let mut ctx_ours = DeclCtx::for_def(db, inst.def);
    let mut ctx_theirs = DeclCtx::for_def(db, g);
    out.resources = inst
        .resources
        .iter()
        .filter(|(i, _, _)| match *i {
            THIS_PARAM => is_instance_method(db, g),
            i => match (ours.params.get(i as usize), theirs.params.get(i as usize)) {
                (Some(a), Some(b)) => ctx_ours.resolve(&a.ty) == ctx_theirs.resolve(&b.ty),
                _ => false,
            },
        })
        .cloned()
        .collect();
    out
}

impl Instance {
    /// `def` with those of `bindings` that name its generic parameters.
    fn new(db: &dyn Db, def: DefId, bindings: &HashMap<String, Ty>) -> Instance {
        let mut args: Vec<(String, Ty)> =
            generic_param_names(db, def).into_iter().filter_map(|n| bindings.get(&n).map(|t| (n, t.clone()))).collect();
        args.sort_by(|a, b| a.0.cmp(&b.0));
        Instance { def, args, resources: Vec::new(), setter: false }
    }

    fn bindings(&self) -> HashMap<String, Ty> {
        self.args.iter().cloned().collect()
    }
}

/// The generic parameters in scope in `def`: its own and its enclosing
/// types'.
fn generic_param_names(db: &dyn Db, def: DefId) -> Vec<String> {
    let mut names = Vec::new();
    let mut cur = Some(def);
    while let Some(d) = cur {
        if let Some(item) = item_of(db, d) {
            names.extend(item.generic_params.iter().filter_map(|g| g.name.clone()));
        }
        cur = parent_of(db, d);
    }
    names
}

/// The field `x` of `[DerivativeMember(D.x)]` on field `def`.
fn derivative_member(db: &dyn Db, def: DefId) -> Option<String> {
    let node = def_node(db, def)?;
    // The attribute sits on the field's declaration (the declarator's
    // parent).
    let holder = if node.kind() == SyntaxKind::DECLARATOR { node.parent()? } else { node };
    let attr =
        holder.children().filter_map(ast::Attribute::cast).find(|a| a.name().as_deref() == Some("DerivativeMember"))?;
    let text = attr.args().next()?.syntax().text().to_string();
    Some(text.rsplit(['.', ':']).next()?.trim().to_string())
}

/// Whether struct `def` names `IDifferentiable` among its supertypes, or
/// an interface of the same file that does (for generic structs, whose
/// conformance the analysis does not decide).
fn declares_differentiable(db: &dyn Db, def: DefId, seen: &mut Vec<DefId>) -> bool {
    if seen.contains(&def) {
        return false;
    }
    seen.push(def);
    let Some(node) = hir::decl_syntax(db, def) else { return false };
    let supers: Vec<String> = node
        .children()
        .filter(|c| c.kind() == SyntaxKind::INHERITANCE_LIST)
        .flat_map(|l| l.children().map(|t| t.text().to_string()).collect::<Vec<_>>())
        .collect();
    supers.iter().any(|s| {
        let s = s.trim();
        s == "IDifferentiable"
            || global_scope(db, def.file(db))
                .lookup(s)
                .and_then(|d| d.first().copied())
                .map(|d| DefId::new(db, d.file, d.ast_index))
                .is_some_and(|i| declares_differentiable(db, i, seen))
    })
}

/// The struct (or class) a method or `__init` belongs to.
fn owner_struct(db: &dyn Db, def: DefId) -> Option<DefId> {
    let parent = parent_of(db, def)?;
    match item_of(db, parent)?.kind {
        ItemKind::Struct | ItemKind::Class => Some(parent),
        // A method an extension adds: the extended struct's.
        ItemKind::Extension => match DeclCtx::for_def(db, parent).this {
            Ty::Adt { def: s, .. }
                if item_of(db, s).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class)) =>
            {
                Some(s)
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether `def` is a method with a receiver (`this`): of a struct, or
/// added by an extension (of a struct or a built-in type).
fn is_instance_method(db: &dyn Db, def: DefId) -> bool {
    item_of(db, def)
        .is_some_and(|i| matches!(i.kind, ItemKind::Fn | ItemKind::Property | ItemKind::Subscript) && !i.is_static)
        && (owner_struct(db, def).is_some() || extension_of_builtin(db, def))
}

/// Whether the declared type `t` of a parameter or result of `def` is a
/// generic parameter whose constraints do not make it differentiable
/// (`T : INorm`): its values carry no derivative even where `T` is bound
/// to a differentiable type, as in the reference compiler.
fn non_differentiable_generic(db: &dyn Db, def: DefId, t: &TypeRef) -> bool {
    let unspecialized = DeclCtx::for_def(db, def).resolve(t);
    matches!(unspecialized, Ty::Param { .. })
        && slang_analysis::autodiff::type_diff(db, def.file(db), &unspecialized)
            == slang_analysis::autodiff::TypeDiff::No
}

/// Whether `def` is declared in an extension of a built-in value type
/// (`extension float { … }`).
fn extension_of_builtin(db: &dyn Db, def: DefId) -> bool {
    parent_of(db, def).is_some_and(|p| {
        item_of(db, p).is_some_and(|i| i.kind == ItemKind::Extension)
            && matches!(DeclCtx::for_def(db, p).this, Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..))
    })
}

/// A readable identifier for a generic argument (`float3` → `float3`,
/// `S<float>` → `S_float`).
fn mangle(t: &Ty) -> String {
    let s: String = t.to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    s.trim_end_matches('_').to_string()
}

/// Builds a [`Module`] from the functions reachable from the roots.
pub(crate) struct ModuleLowerer<'db> {
    db: &'db dyn Db,
    pub module: Module,
    funcs: HashMap<Instance, FuncId>,
    /// Declared functions whose bodies are still to lower.
    queue: Vec<(Instance, FuncId)>,
    /// The parameters (by index) of functions specialized to global
    /// buffers, which calls do not pass.
    buffer_args: HashMap<FuncId, Vec<u32>>,
    globals: HashMap<DefId, GlobalId>,
    /// Structs by declaration and generic arguments.
    structs: HashMap<(DefId, Vec<Ty>), TypeId>,
    /// Forward derivatives asked for by `fwd_diff(f)` calls.
    pub requests: Requests,
    /// Functions wrapping a built-in function, for `fwd_diff(sin)`.
    intrinsic_fns: HashMap<(Intrinsic, Vec<TypeId>), FuncId>,
    /// The shader parameters of the file, once asked for.
    param_layout: Option<globals::ParamLayout>,
    /// `globalParams`, once used.
    default_uniforms: Option<GlobalId>,
    /// The functions computing default parameter values that are not
    /// constants, by function and parameter.
    defaults: HashMap<(DefId, usize), FuncId>,
    /// For functions returning a struct holding buffers: the buffers its
    /// fields hold (by field path), as the function's `return`s bind them.
    returned_resources: HashMap<FuncId, Vec<(String, GlobalId)>>,
    /// The functions whose bodies are being lowered (calls of them are
    /// recursion), and their names.
    lowering: Vec<(FuncId, String)>,
    /// The structs standing for `Tuple<…>` and for `Optional<T>` (by type,
    /// not by name: a user struct may be named `Tuple_x`).
    tuples: std::collections::HashSet<TypeId>,
    optionals: std::collections::HashSet<TypeId>,
    /// The entry point's `uniform` parameters: their constant buffer and
    /// names (its fields, in order).
    entry_uniforms: HashMap<FuncId, (GlobalId, Vec<String>)>,
    /// The file whose code is lowered (the first root's).
    root_file: Option<SourceFile>,
    /// Interface-typed values, by interface: their tagged-union type and
    /// its variants (the conforming structs, in tag order).
    existentials: HashMap<DefId, (TypeId, Vec<(DefId, TypeId)>)>,
    /// The variant types of each tagged-union type.
    existential_variants: HashMap<TypeId, Vec<TypeId>>,
    /// Interfaces whose tagged union is being built (a conforming type
    /// holding a value of its own interface).
    existentials_in_progress: Vec<DefId>,
    /// Dynamic-dispatch functions, by interface requirement.
    dispatchers: HashMap<DefId, FuncId>,
    /// Type conformances given with the program (`createDynamicObject`'s
    /// ids).
    pub conformances: Vec<crate::Conformance>,
    /// `static` globals whose initial value is not a constant, and the
    /// function computing it (run when the entry point starts, in this
    /// order: a global's initializer comes after those it reads).
    dynamic_inits: Vec<(GlobalId, FuncId)>,
    /// Where each field of a `ParameterBlock` global lives, by block.
    block_members: HashMap<DefId, HashMap<String, (GlobalId, Option<u32>)>>,
}

impl<'db> ModuleLowerer<'db> {
    /// The declaration each lowered function instance comes from.
    pub fn function_defs(&self) -> HashMap<FuncId, DefId> {
        self.funcs.iter().map(|(instance, &f)| (f, instance.def)).collect()
    }

    pub fn new(db: &'db dyn Db) -> Self {
        ModuleLowerer {
            db,
            module: Module::default(),
            funcs: HashMap::new(),
            queue: Vec::new(),
            buffer_args: HashMap::new(),
            globals: HashMap::new(),
            structs: HashMap::new(),
            requests: Requests::default(),
            intrinsic_fns: HashMap::new(),
            param_layout: None,
            default_uniforms: None,
            defaults: HashMap::new(),
            returned_resources: HashMap::new(),
            lowering: Vec::new(),
            tuples: Default::default(),
            optionals: Default::default(),
            entry_uniforms: HashMap::new(),
            root_file: None,
            existentials: HashMap::new(),
            conformances: Vec::new(),
            dynamic_inits: Vec::new(),
            existential_variants: HashMap::new(),
            existentials_in_progress: Vec::new(),
            dispatchers: HashMap::new(),
            block_members: HashMap::new(),
        }
    }

    /// Lower `def` (and everything it calls); `entry` makes it a compute
    /// entry point.
    pub fn lower_root(&mut self, def: DefId, entry: bool) -> Result<FuncId, Vec<CodegenError>> {
        self.root_file.get_or_insert(def.file(self.db));
        let mut inst = Instance::new(self.db, def, &HashMap::new());
        if !entry {
            self.stand_in_buffers(&mut inst).map_err(|e| vec![e])?;
        }
        let root = self.declare_function(inst, entry).map_err(|e| vec![e])?;
        let mut errors = Vec::new();
        while let Some((inst, id)) = self.queue.pop() {
            if let Err(e) = self.lower_body(inst, id) {
                errors.push(e);
            }
        }
        errors.extend(recursion(&self.module));
        if !errors.is_empty() {
            return Err(errors);
        }
        // The `static` globals computed at the start (of the root: the
        // entry point, or the function compiled alone).
        use crate::ir::Function;
        let void = self.intern(Type::Void);
        let placeholder = FunctionBuilder::new(String::new(), void, None).finish();
        let mut b = FunctionBuilder { func: std::mem::replace(&mut self.module.functions[root.index()], placeholder) };
        let mut insts = Vec::new();
        for &(g, init) in &self.dynamic_inits {
            let global = &self.module.globals[g.index()];
            let ptr = self.module.types.intern(Type::Ptr(global.ty, global.space));
            let value = b.inst(Function::ENTRY, Op::Call(init, Vec::new()), global.ty, global.span);
            let p = b.inst(Function::ENTRY, Op::Global(g), ptr, global.span);
            let store = b.inst(Function::ENTRY, Op::Store { ptr: p, value }, void, global.span);
            insts.extend([value, p, store]);
        }
        // (Appended above; moved to the start.)
        let f = &mut self.module.functions[root.index()];
        *f = b.finish();
        let entry = &mut f.blocks[Function::ENTRY.index()].insts;
        entry.retain(|i| !insts.contains(i));
        entry.splice(0..0, insts);
        Ok(root)
    }

    /// The function computing the initial value (of type `t`) of the
    /// global variable `def`.
    fn initializer_function(&mut self, def: DefId, t: TypeId, at: Option<TextRange>) -> R<FuncId> {
        let db = self.db;
        let body = body(db, def).clone();
        let Some(Stmt::Expr(e)) = body.root.map(|r| body.stmt(r).clone()) else {
            return err(at, "a `static` global without an initial value");
        };
        let name = item_of(db, def).and_then(|i| i.name.clone()).unwrap_or_default();
        self.expr_function(def, e, t, format!("init_{name}"), at)
    }

    /// The function computing parameter `k`'s default value (of type
    /// `t`) of the function `def`, when it is not a constant (the caller
    /// passes its result).
    fn default_function(&mut self, def: DefId, k: usize, t: TypeId, at: Option<TextRange>) -> R<FuncId> {
        if let Some(&f) = self.defaults.get(&(def, k)) {
            return Ok(f);
        }
        let db = self.db;
        let Some(e) = body(db, def).params.get(k).and_then(|p| p.default) else {
            return err(at, "a parameter without a default value is missing");
        };
        let name = item_of(db, def).and_then(|i| i.name.clone()).unwrap_or_default();
        let f = self.expr_function(def, e, t, format!("default_{name}_{k}"), at)?;
        self.defaults.insert((def, k), f);
        Ok(f)
    }

    /// A function without parameters returning the expression `e` of
    /// `def`'s body (as a `t`).
    fn expr_function(&mut self, def: DefId, e: ExprId, t: TypeId, name: String, at: Option<TextRange>) -> R<FuncId> {
        let db = self.db;
        let body = body(db, def).clone();
        let id = FuncId(self.module.functions.len() as u32);
        self.module.functions.push(FunctionBuilder::new(name, t, at).finish());
        let placeholder = std::mem::replace(
            &mut self.module.functions[id.index()],
            FunctionBuilder::new(String::new(), TypeId(0), None).finish(),
        );
        let mut lower = FnLower {
            ctx: DeclCtx::for_def(db, def),
            is_init: false,
            m: self,
            def,
            file: def.file(db),
            body,
            inferred: infer::infer(db, def).clone(),
            b: FunctionBuilder { func: placeholder },
            cur: None,
            scopes: vec![Vec::new()],
            targets: Vec::new(),
            span: at,
            no_diff: false,
            pending_label: None,
            pending_max_iters: None,
            pending_unroll: None,
            eager_logic: false,
            resource_params: Vec::new(),
            res_fields: HashMap::new(),
            returned: None,
        };
        let entry = lower.b.new_block();
        lower.cur = Some(entry);
        let result = lower.expr_expecting(e, t).map(|v| lower.terminate(Terminator::Return(Some(v))));
        let func = lower.b.finish();
        self.module.functions[id.index()] = func;
        result.map(|_| id)
    }

    fn intern(&mut self, t: Type) -> TypeId {
        self.module.types.intern(t)
    }

    fn def_range(&self, def: DefId) -> Option<TextRange> {
        def_node(self.db, def).map(|n| n.text_range())
    }

    /// The IR type of a semantic type.
    fn lower_ty(&mut self, ty: &Ty, at: Option<TextRange>) -> R<TypeId> {
        let scalar = |s: Scalar| match s {
            Scalar::Bool
            | Scalar::Int32
            | Scalar::UInt32
            | Scalar::Float
            | Scalar::Half
            | Scalar::Double
            | Scalar::Int64
            | Scalar::UInt64 => Ok(s),
            _ => err(at, format!("the scalar type `{}` is not supported by code generation yet", s.name())),
        };
        Ok(match ty {
            Ty::Void => self.intern(Type::Void),
            Ty::Scalar(s) => {
                let s = scalar(*s)?;
                self.intern(Type::Scalar(s))
            }
            Ty::Vector(s, n) => {
                let s = scalar(*s)?;
                self.intern(Type::Vector(s, *n))
            }
            Ty::Matrix(s, r, c) => {
                if *s != Scalar::Float {
                    return err(at, format!("matrices of `{}` are not supported by code generation yet", s.name()));
                }
                if *r < 2 || *c < 2 {
                    return err(at, "matrices with a single row or column are not supported yet");
                }
                self.intern(Type::Matrix { scalar: *s, rows: *r, cols: *c })
            }
            Ty::Array(e, Some(n)) => {
                let e = self.lower_ty(e, at)?;
                self.intern(Type::Array(e, *n))
            }
            Ty::Array(_, None) => return err(at, "arrays without a known size are not supported here"),
            // `DifferentialPair<T>`, `DifferentialPtrPair<T>`.
            Ty::Adt { def, args, name }
                if matches!(name.as_str(), "DifferentialPair" | "DifferentialPtrPair")
                    && args.len() == 1
                    && slang_analysis::core_files(self.db).contains(&def.file(self.db)) =>
            {
                let primal = self.lower_ty(&args[0], at)?;
                let (pair, what) = match name.as_str() {
                    "DifferentialPair" => (self.module.types.pair(primal), "differentiable"),
                    _ => (self.module.types.ptr_pair(primal), "an `IDifferentiablePtrType`"),
                };
                match pair {
                    Some(t) => t,
                    None => return err(at, format!("`{}` is not {what}", args[0])),
                }
            }
            Ty::Adt { def, .. }
                if !slang_analysis::core_files(self.db).contains(&def.file(self.db))
                    && item_of(self.db, *def).is_some_and(|i| i.kind == ItemKind::Enum) =>
            {
                // Enums are their underlying integer type.
                let unsigned = def_node(self.db, *def)
                    .and_then(|n| n.children().find(|c| c.kind() == SyntaxKind::INHERITANCE_LIST))
                    .is_some_and(|l| l.text().to_string().trim().starts_with('u'));
                self.intern(Type::Scalar(if unsigned { Scalar::UInt32 } else { Scalar::Int32 }))
            }
            Ty::Adt { def, args, .. }
                if args.is_empty()
                    && !slang_analysis::core_files(self.db).contains(&def.file(self.db))
                    && item_of(self.db, *def).is_some_and(|i| i.kind == ItemKind::Interface) =>
            {
                self.existential(*def, at)?
            }
            Ty::Tuple(items) => self.tuple_ty(items, at)?,
            Ty::Adt { def, args, name }
                if name == "Optional"
                    && args.len() == 1
                    && slang_analysis::core_files(self.db).contains(&def.file(self.db)) =>
            {
                let value = self.lower_ty(&args[0], at)?;
                self.optional_ty(value)
            }
            Ty::Adt { def, args, name }
                if name == "Tuple" && slang_analysis::core_files(self.db).contains(&def.file(self.db)) =>
            {
                self.tuple_ty(args, at)?
            }
            Ty::Adt { def, args, name } => {
                let is_user_struct = !slang_analysis::core_files(self.db).contains(&def.file(self.db))
                    && item_of(self.db, *def).is_some_and(|i| i.kind == ItemKind::Struct);
                if !is_user_struct {
                    return err(at, format!("values of type `{ty}` are not supported by code generation yet"));
                }
                if args.iter().any(|a| matches!(a, Ty::Param { .. } | Ty::Unknown)) {
                    return err(at, format!("the generic arguments of `{name}` are not known here"));
                }
                self.struct_ty(*def, args, at)?
            }
            Ty::Param { name, .. } => {
                return err(at, format!("the generic parameter `{name}` is not bound to a type here"))
            }
            Ty::Assoc(base, name) if name == "Differential" => {
                let base = self.lower_ty(base, at)?;
                match self.module.types.differential(base) {
                    Some(t) => t,
                    None => return err(at, format!("`{ty}` is not a differentiable type's `Differential`")),
                }
            }
            Ty::Unknown => return err(at, "the type of this is not known"),
            other => return err(at, format!("values of type `{other}` are not supported by code generation yet")),
        })
    }

    /// The paths of the buffers (and other resources) a value of `ty`
    /// holds in its fields and their fields (`["data", "inner.grad"]`):
    /// empty for types that hold none.
    fn resource_fields(&self, ty: &Ty) -> Vec<String> {
        fn walk(db: &dyn Db, ty: &Ty, prefix: &str, depth: usize, out: &mut Vec<String>) {
            let Ty::Adt { def, args, .. } = ty else { return };
            if depth > 8 || slang_analysis::core_files(db).contains(&def.file(db)) {
                return;
            }
            let Some(item) = item_of(db, *def).filter(|i| i.kind == ItemKind::Struct) else { return };
            let bindings: HashMap<String, Ty> =
                item.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
            let mut ctx = DeclCtx::specialized(db, *def, &bindings);
            for m in item.members.iter().filter(|m| m.kind == ItemKind::Var && !m.is_static) {
                let mdef = DefId::new(db, def.file(db), m.ast_index);
                let fty = decl_type_ref(db, mdef).clone().map(|t| ctx.resolve(&t)).unwrap_or(Ty::Unknown);
                let name = m.name.clone().unwrap_or_default();
                let path = join_path(prefix, &name);
                if globals::resource_of(&fty).is_some() {
                    out.push(path);
                } else {
                    walk(db, &fty, &path, depth + 1, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(self.db, ty, "", 0, &mut out);
        out
    }

    /// `Optional<T>`: a struct `{ T value; bool hasValue; }`.
    pub(crate) fn optional_ty(&mut self, value: TypeId) -> TypeId {
        let name = format!("Optional_{}", self.module.types.display(value).replace(['<', '>', ',', ' '], "_"));
        let bool_ty = self.intern(Type::Scalar(Scalar::Bool));
        let t = self.intern(Type::Struct { name, fields: vec![("value".into(), value), ("hasValue".into(), bool_ty)] });
        self.optionals.insert(t);
        t
    }

    /// `Tuple<A, B, …>`: a struct with fields `_0`, `_1`, …, differentiable
    /// when every element is (its differential the tuple of theirs).
    fn tuple_ty(&mut self, items: &[Ty], at: Option<TextRange>) -> R<TypeId> {
        if items.is_empty() {
            return err(at, "an empty tuple is not supported by code generation");
        }
        let elems = items.iter().map(|t| self.lower_ty(t, at)).collect::<R<Vec<_>>>()?;
        let name = |types: &crate::ir::Types, es: &[TypeId]| {
            let parts: Vec<String> = es.iter().map(|&e| types.display(e).replace(['<', '>', ',', ' '], "_")).collect();
            format!("Tuple_{}", parts.join("_"))
        };
        let fields: Vec<(String, TypeId)> = elems.iter().enumerate().map(|(i, &e)| (format!("_{i}"), e)).collect();
        let t = self.intern(Type::Struct { name: name(&self.module.types, &elems), fields });
        self.tuples.insert(t);
        if self.module.types.differential(t).is_none() {
            let diffs: Option<Vec<TypeId>> = elems.iter().map(|&e| self.module.types.differential(e)).collect();
            if let Some(diffs) = diffs {
                let identity: Vec<Option<u32>> = (0..elems.len() as u32).map(Some).collect();
                let d = if diffs == elems {
                    t
                } else {
                    let fields = diffs.iter().enumerate().map(|(i, &e)| (format!("_{i}"), e)).collect();
                    let d = self.intern(Type::Struct { name: name(&self.module.types, &diffs), fields });
                    self.module.types.set_struct_diff(d, StructDiff { ty: d, fields: identity.clone() });
                    d
                };
                self.module.types.set_struct_diff(t, StructDiff { ty: d, fields: identity });
            }
        }
        Ok(t)
    }

    /// The struct `def<args>` (a generic struct is one struct per list of
    /// arguments).
    fn struct_ty(&mut self, def: DefId, args: &[Ty], at: Option<TextRange>) -> R<TypeId> {
        let key = (def, args.to_vec());
        if let Some(&t) = self.structs.get(&key) {
            return Ok(t);
        }
        let db = self.db;
        let Some(item) = item_of(db, def) else { return err(at, "unknown struct") };
        let bindings: HashMap<String, Ty> =
            item.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
        let mut ctx = DeclCtx::specialized(db, def, &bindings);
        let mut fields = Vec::new();
        for m in item.members.iter().filter(|m| m.kind == ItemKind::Var && !m.is_static) {
            let mdef = DefId::new(db, def.file(db), m.ast_index);
            let ty = decl_type_ref(db, mdef).clone().map(|t| ctx.resolve(&t)).unwrap_or(Ty::Unknown);
            // Buffers held by a struct are bound at compile time
            // (`FnLower::res_fields`), not stored.
            if globals::resource_of(&ty).is_some() {
                continue;
            }
            let fty = self.lower_ty(&ty, self.def_range(mdef).or(at))?;
            fields.push((m.name.clone().unwrap_or_default(), fty));
        }
        if fields.is_empty() {
            // Every target needs a member (the reference compiler adds one
            // too).
            let int = self.intern(Type::Scalar(Scalar::Int32));
            fields.push(("_dummy".to_string(), int));
        }
        let mut name = item.name.clone().unwrap_or_default();
        for a in args {
            name = format!("{name}_{}", mangle(a));
        }
        let t = self.intern(Type::Struct { name: name.clone(), fields: fields.clone() });
        self.structs.insert(key, t);
        self.struct_differential(def, t, &name, &fields, args);
        Ok(t)
    }

    /// The type of values of interface `iface` (dynamic dispatch): a
    /// tagged union, `{ int tag; A a; B b; … }` with one field per
    /// conforming struct of the program (declaration order gives the
    /// tags), of which the tag says which holds the value.
    fn existential(&mut self, iface: DefId, at: Option<TextRange>) -> R<TypeId> {
        if let Some(e) = self.existentials.get(&iface) {
            return Ok(e.0);
        }
        let db = self.db;
        let iname = item_of(db, iface).and_then(|i| i.name.clone()).unwrap_or_default();
        if self.existentials_in_progress.contains(&iface) {
            return err(at, format!("a type conforming to `{iname}` holds a `{iname}` value: not supported yet"));
        }
        let file = self.root_file.unwrap_or(iface.file(db));
        let files: Vec<SourceFile> = slang_analysis::module_graph::module_of(db, file)
            .iter()
            .chain(slang_analysis::module_graph::imported_files(db, file).iter())
            .copied()
            .collect();
        let mut variants = Vec::new();
        for f in files {
            for item in item_tree(db, f).walk() {
                if !matches!(item.kind, ItemKind::Struct | ItemKind::Class) || !item.generic_params.is_empty() {
                    continue;
                }
                let def = DefId::new(db, f, item.ast_index);
                let ty = Ty::Adt { def, args: Vec::new(), name: item.name.clone().unwrap_or_default() };
                if slang_analysis::generics::conformance(db, file, &ty, iface) == Some(true) && !variants.contains(&def)
                {
                    variants.push(def);
                }
            }
        }
        if variants.is_empty() {
            return err(at, format!("no type of the program conforms to `{iname}`, so no value of it can exist"));
        }
        self.existentials_in_progress.push(iface);
        let lowered: R<Vec<(DefId, TypeId)>> = variants.iter().map(|&v| Ok((v, self.struct_ty(v, &[], at)?))).collect();
        self.existentials_in_progress.retain(|&i| i != iface);
        let lowered = lowered?;
        let int = self.intern(Type::Scalar(Scalar::Int32));
        let mut fields = vec![("tag".to_string(), int)];
        for (v, t) in &lowered {
            let name = item_of(db, *v).and_then(|i| i.name.clone()).unwrap_or_default();
            fields.push((format!("as_{name}"), *t));
        }
        let t = self.intern(Type::Struct { name: format!("{iname}_Any"), fields });
        // A value of a differentiable interface (`IModel : IDifferentiable`)
        // is differentiable: its derivative holds one for each type it may
        // hold (the tag says which is meant).
        let iface_ty = Ty::Adt { def: iface, args: Vec::new(), name: iname.clone() };
        if slang_analysis::autodiff::type_diff(db, file, &iface_ty) == slang_analysis::autodiff::TypeDiff::Value {
            let diffs: Option<Vec<TypeId>> = lowered.iter().map(|v| self.module.types.differential(v.1)).collect();
            if let Some(diffs) = diffs {
                let fields = lowered
                    .iter()
                    .zip(&diffs)
                    .map(|((v, _), &d)| {
                        (format!("as_{}", item_of(db, *v).and_then(|i| i.name.clone()).unwrap_or_default()), d)
                    })
                    .collect();
                let d = self.intern(Type::Struct { name: format!("{iname}_Any_Differential"), fields });
                let identity = (0..diffs.len() as u32).map(Some).collect();
                self.module.types.set_struct_diff(d, StructDiff { ty: d, fields: identity });
                let map = std::iter::once(None).chain((0..diffs.len() as u32).map(Some)).collect();
                self.module.types.set_struct_diff(t, StructDiff { ty: d, fields: map });
            }
        }
        self.existential_variants.insert(t, lowered.iter().map(|v| v.1).collect());
        self.existentials.insert(iface, (t, lowered));
        Ok(t)
    }

    /// The function calling requirement `req` of interface `iface` on an
    /// interface-typed value: a switch on its tag over the conforming
    /// types' methods. It is differentiable when the requirement is, and
    /// forward mode differentiates it like any other function.
    fn dispatch_function(&mut self, iface: DefId, req: DefId, at: Option<TextRange>) -> R<FuncId> {
        if let Some(&f) = self.dispatchers.get(&req) {
            return Ok(f);
        }
        let db = self.db;
        let (ex, variants) = {
            self.existential(iface, at)?;
            self.existentials[&iface].clone()
        };
        let iname = item_of(db, iface).and_then(|i| i.name.clone()).unwrap_or_default();
        let req_item = item_of(db, req);
        let rname = req_item.as_ref().and_then(|i| i.name.clone()).unwrap_or_default();
        if req_item.as_ref().is_some_and(|i| i.is_static) {
            return err(at, format!("`{iname}.{rname}` is static: it cannot be called on a value"));
        }
        let sig = fn_sig(db, req).clone();
        let mut ctx = DeclCtx::for_def(db, req);
        let ret_ty = ctx.resolve(&sig.ret);
        let ret = self.lower_ty(&ret_ty, at)?;
        let mut params = vec![Param { name: "this".into(), dir: ParamDir::In, ty: ex, builtin: None, no_diff: false }];
        for (i, p) in sig.params.iter().enumerate() {
            let t = ctx.resolve(&p.ty);
            let t = self.lower_ty(&t, at)?;
            let dir = match (p.is_out, p.is_inout) {
                (_, true) => ParamDir::InOut,
                (true, false) => ParamDir::Out,
                _ => ParamDir::In,
            };
            let ty = if dir == ParamDir::In { t } else { self.intern(Type::Ptr(t, AddressSpace::Function)) };
            let name = p.name.clone().unwrap_or_else(|| format!("p{i}"));
            params.push(Param { name, dir, ty, builtin: None, no_diff: p.no_diff });
        }
        // Each conforming type's method.
        let mut methods = Vec::new();
        for (v, _) in &variants {
            let vname = item_of(db, *v).and_then(|i| i.name.clone()).unwrap_or_default();
            let found = item_of(db, *v).and_then(|i| {
                i.members
                    .iter()
                    .filter(|m| m.kind == ItemKind::Fn && m.name.as_deref() == Some(rname.as_str()))
                    .map(|m| DefId::new(db, v.file(db), m.ast_index))
                    .find(|&m| fn_sig(db, m).params.len() == sig.params.len())
            });
            let Some(m) = found else {
                return err(at, format!("`{vname}` has no method `{rname}` to dispatch to (from an extension?)"));
            };
            if item_of(db, m).is_some_and(|i| i.has_attr("mutating") || i.modifiers.contains(&SyntaxKind::MUTATING_KW))
            {
                return err(
                    at,
                    format!("`{vname}.{rname}` is `[mutating]`: dynamic dispatch to it is not supported yet"),
                );
            }
            let f = self.declare_function(Instance::new(db, m, &HashMap::new()), false)?;
            let fparams = &self.module.function(f).params;
            let matches = fparams.len() == params.len()
                && fparams.iter().zip(&params).skip(1).all(|(a, b)| a.ty == b.ty && a.dir == b.dir)
                && self.module.function(f).ret == ret;
            if !matches {
                return err(at, format!("`{vname}.{rname}` does not have the signature of `{iname}.{rname}`"));
            }
            methods.push(f);
        }
        let mut b = FunctionBuilder::new(format!("{iname}_{rname}_dispatch"), ret, at);
        let entry = b.new_block();
        let values: Vec<ValueId> = params.iter().map(|p| b.add_block_param(entry, p.ty, None)).collect();
        b.func.params = params;
        let int = self.intern(Type::Scalar(Scalar::Int32));
        let tag = b.inst(entry, Op::Extract(values[0], 0), int, at);
        let brk = b.new_block();
        let void = matches!(self.module.types.get(ret), Type::Void);
        let result = (!void).then(|| b.add_block_param(brk, ret, None));
        let mut blocks = Vec::new();
        for (k, (f, (_, vt))) in methods.iter().zip(&variants).enumerate() {
            let blk = b.new_block();
            let this = b.inst(blk, Op::Extract(values[0], k as u32 + 1), *vt, at);
            let args = std::iter::once(this).chain(values[1..].iter().copied()).collect();
            let r = b.inst(blk, Op::Call(*f, args), ret, at);
            b.terminate(blk, Terminator::Branch { target: brk, args: result.map(|_| vec![r]).unwrap_or_default() });
            blocks.push(blk);
        }
        let default = *blocks.last().expect("an interface with conforming types");
        let cases = blocks[..blocks.len() - 1].iter().enumerate().map(|(k, &b)| (k as i64, b)).collect();
        b.terminate(entry, Terminator::Switch { value: tag, cases, default, brk });
        b.terminate(brk, Terminator::Return(result));
        b.func.derivative = match fn_differentiability(db, req.file(db), req).allows(Mode::Forward) {
            true => Derivative::Transcribe,
            false => Derivative::None,
        };
        let id = FuncId(self.module.functions.len() as u32);
        self.module.functions.push(b.finish());
        self.dispatchers.insert(req, id);
        Ok(id)
    }

    /// Record the `Differential` of a differentiable struct: the one it
    /// declares (`typedef D Differential;` or a nested struct, its fields
    /// mapped by `[DerivativeMember(D.x)]`), or else the synthesized one:
    /// the struct itself when all its fields are differentiable, or a
    /// struct `S_Differential` of the differentiable fields' derivatives.
    /// Generic structs get theirs per instantiation.
    fn struct_differential(&mut self, def: DefId, t: TypeId, name: &str, fields: &[(String, TypeId)], args: &[Ty]) {
        let db = self.db;
        let Some(item) = item_of(db, def) else { return };
        let file = def.file(db);
        // (The fields lowered: buffer fields are not stored.)
        let field_items: Vec<&slang_analysis::item_tree::Item> = item
            .members
            .iter()
            .filter(|m| m.kind == ItemKind::Var && !m.is_static)
            .filter(|m| fields.iter().any(|f| Some(&f.0) == m.name.as_ref()))
            .collect();
        let this_ty = Ty::Adt { def, args: args.to_vec(), name: item.name.clone().unwrap_or_default() };
        let ptr_like =
            slang_analysis::autodiff::type_diff(db, file, &this_ty) == slang_analysis::autodiff::TypeDiff::Ptr;
        if let Some(m) = item.members.iter().find(|m| m.name.as_deref() == Some("Differential")) {
            let mdef = DefId::new(db, file, m.ast_index);
            let bindings: HashMap<String, Ty> =
                item.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
            let ty = match m.kind {
                ItemKind::Struct => Ty::Adt { def: mdef, args: Vec::new(), name: "Differential".into() },
                _ => match decl_type_ref(db, mdef).clone() {
                    Some(r) => DeclCtx::specialized(db, def, &bindings).resolve(&r),
                    None => return,
                },
            };
            let Ok(d) = self.lower_ty(&ty, None) else { return };
            if ptr_like {
                // `IDifferentiablePtrType`: not a differentiable value;
                // derivatives take it with its derivative location.
                let pair = self.intern(Type::Struct {
                    name: format!("DiffPtrPair_{name}"),
                    fields: vec![("p".into(), t), ("d".into(), d)],
                });
                self.module.types.set_ptr_pair(t, pair);
                return;
            }
            if d == t {
                let identity = (0..fields.len() as u32).map(Some).collect();
                self.module.types.set_struct_diff(t, StructDiff { ty: t, fields: identity });
                return;
            }
            let Type::Struct { fields: dfields, .. } = self.module.types.get(d).clone() else { return };
            let map = field_items
                .iter()
                .map(|f| {
                    let fdef = DefId::new(db, file, f.ast_index);
                    let target = derivative_member(db, fdef)?;
                    dfields.iter().position(|(n, _)| *n == target).map(|i| i as u32)
                })
                .collect();
            self.module.types.set_struct_diff(t, StructDiff { ty: d, fields: map });
            return;
        }
        let differentiable = if item.generic_params.is_empty() {
            synthesized_differential(db, file, def).is_some()
        } else {
            declares_differentiable(db, def, &mut Vec::new())
        };
        if !differentiable {
            return;
        }
        let mut diff_fields = Vec::new();
        let mut map = Vec::new();
        let mut is_self = true;
        for ((fname, fty), f) in fields.iter().zip(&field_items) {
            let fdef = DefId::new(db, file, f.ast_index);
            let no_diff = f.modifiers.contains(&SyntaxKind::NO_DIFF_KW)
                || def_node(db, fdef).is_some_and(|n| {
                    n.parent().is_some_and(|p| p.children_with_tokens().any(|e| e.kind() == SyntaxKind::NO_DIFF_KW))
                });
            match (no_diff, self.module.types.differential(*fty)) {
                (false, Some(d)) => {
                    is_self &= d == *fty;
                    map.push(Some(diff_fields.len() as u32));
                    diff_fields.push((fname.clone(), d));
                }
                _ => {
                    is_self = false;
                    map.push(None);
                }
            }
        }
        if is_self && !diff_fields.is_empty() {
            let identity = (0..fields.len() as u32).map(Some).collect();
            self.module.types.set_struct_diff(t, StructDiff { ty: t, fields: identity });
            return;
        }
        if diff_fields.is_empty() {
            return;
        }
        // The differential is its own differential (as `T.Differential`
        // is in the reference compiler) when its fields are: higher-order
        // derivatives differentiate it again.
        let own = diff_fields.iter().all(|&(_, d)| self.module.types.differential(d) == Some(d));
        let count = diff_fields.len() as u32;
        let ty = self.intern(Type::Struct { name: format!("{name}_Differential"), fields: diff_fields });
        self.module.types.set_struct_diff(t, StructDiff { ty, fields: map });
        if own && self.module.types.struct_diff(ty).is_none() {
            self.module.types.set_struct_diff(ty, StructDiff { ty, fields: (0..count).map(Some).collect() });
        }
    }

    /// Declare an instance of a function (its signature), queueing its
    /// body. A method's receiver is its first parameter, `this`; an
    /// `__init` returns the value it initializes.
    fn declare_function(&mut self, inst: Instance, entry: bool) -> R<FuncId> {
        if let Some(&id) = self.funcs.get(&inst) {
            return Ok(id);
        }
        let db = self.db;
        let def = inst.def;
        let at = self.def_range(def);
        let item = item_of(db, def);
        let unbound: Vec<String> =
            generic_param_names(db, def).into_iter().filter(|n| !inst.args.iter().any(|(a, _)| a == n)).collect();
        if !unbound.is_empty() {
            return err(at, format!("the generic parameters `{}` are not known here", unbound.join("`, `")));
        }
        let owner = owner_struct(db, def);
        if parent_of(db, def).is_some_and(|p| {
            owner != Some(p)
                && item_of(db, p).is_some_and(|i| !matches!(i.kind, ItemKind::Namespace | ItemKind::Extension))
        }) || (owner.is_none()
            && !extension_of_builtin(db, def)
            && parent_of(db, def).and_then(|p| item_of(db, p)).is_some_and(|i| i.kind == ItemKind::Extension))
        {
            return err(
                at,
                "only methods of structs are supported by code generation (not of interfaces or extensions)",
            );
        }
        let is_init = item.as_ref().is_some_and(|i| i.kind == ItemKind::Init);
        let sig = fn_sig(db, def).clone();
        let mut ctx = DeclCtx::specialized(db, def, &inst.bindings());
        let this_ty = match owner {
            Some(_) => {
                let this = ctx.this.clone();
                Some(self.lower_ty(&this, at)?)
            }
            None if extension_of_builtin(db, def) => {
                let this = ctx.this.clone();
                Some(self.lower_ty(&this, at)?)
            }
            None => None,
        };
        let ret = match (is_init, this_ty) {
            (true, Some(t)) => t,
            _ if inst.setter => self.intern(Type::Void),
            _ => {
                let ret_ty = ctx.resolve(&sig.ret);
                self.lower_ty(&ret_ty, at)?
            }
        };
        let syntax_params: Vec<ast::Param> = def_node(db, def)
            .and_then(|n| n.children().find_map(ast::ParamList::cast))
            .map(|l| l.params().collect())
            .unwrap_or_default();
        let mut params = Vec::new();
        let mut uniforms = Vec::new();
        if let (Some(this), true) = (this_ty, is_instance_method(db, def)) {
            let item = item.as_ref().expect("a method is an item");
            let mutating =
                inst.setter || item.has_attr("mutating") || item.modifiers.contains(&SyntaxKind::MUTATING_KW);
            let (dir, ty) = match mutating {
                true => (ParamDir::InOut, self.intern(Type::Ptr(this, AddressSpace::Function))),
                false => (ParamDir::In, this),
            };
            let no_diff = item.has_attr("NoDiffThis");
            params.push(Param { name: "this".into(), dir, ty, builtin: None, no_diff });
        }
        for (i, p) in sig.params.iter().enumerate() {
            if inst.resources.iter().any(|r| r.0 == i as u32 && r.1.is_empty()) {
                continue;
            }
            let prange = syntax_params.get(i).map(|p| p.syntax().text_range()).or(at);
            let is_uniform = syntax_params
                .get(i)
                .is_some_and(|p| p.syntax().children_with_tokens().any(|t| t.kind() == SyntaxKind::UNIFORM_KW));
            if entry && is_uniform {
                let t = ctx.resolve(&p.ty);
                uniforms.push((p.name.clone().unwrap_or_else(|| format!("p{i}")), self.lower_ty(&t, prange)?));
                continue;
            }
            let semantic = syntax_params.get(i).and_then(|p| p.semantics().find_map(|s| s.name()));
            let builtin = semantic.as_ref().and_then(|s| Builtin::from_semantic(s.text()));
            let dir = match (p.is_out, p.is_inout) {
                (_, true) => ParamDir::InOut,
                (true, false) => ParamDir::Out,
                _ => ParamDir::In,
            };
            let ty = if let (true, Some(b)) = (entry, builtin) {
                if dir != ParamDir::In {
                    return err(prange, "a system value is an input");
                }
                let uint = self.intern(Type::Scalar(Scalar::UInt32));
                match b {
                    Builtin::GroupIndex => uint,
                    _ => self.intern(Type::Vector(Scalar::UInt32, 3)),
                }
            } else {
                if entry {
                    let what = semantic.map(|s| format!("the semantic `{}`", s.text())).unwrap_or("no semantic".into());
                    return err(prange, format!("entry-point parameter with {what} is not supported yet"));
                }
                let t = ctx.resolve(&p.ty);
                let t = self.lower_ty(&t, prange)?;
                match dir {
                    ParamDir::In => t,
                    _ => self.intern(Type::Ptr(t, AddressSpace::Function)),
                }
            };
            let name = p.name.clone().unwrap_or_else(|| format!("p{i}"));
            let no_diff = p.no_diff || non_differentiable_generic(db, def, &p.ty);
            params.push(Param { name, dir, ty, builtin: if entry { builtin } else { None }, no_diff });
        }
        if inst.setter {
            let Some(value) = body(db, def).setter.as_ref().map(|s| s.value.clone()) else {
                return err(at, "this has no `set` accessor");
            };
            let t = ctx.resolve(&value.ty);
            let ty = self.lower_ty(&t, at)?;
            let name = value.name.unwrap_or_else(|| "newValue".into());
            params.push(Param { name, dir: ParamDir::In, ty, builtin: None, no_diff: false });
        }
        let mut name = match (is_init, item.as_ref().and_then(|i| i.name.clone())) {
            (true, _) => "init".to_string(),
            (false, Some(n)) if inst.setter => format!("{n}_set"),
            (false, n) => n.unwrap_or_else(|| "f".into()),
        };
        if let Some(this) = this_ty {
            name = format!("{}_{name}", self.module.types.display(this));
        }
        // (The type's generic arguments are in its name already.)
        for (n, a) in &inst.args {
            if sig.generic_params.contains(n) {
                name = format!("{name}_{}", mangle(a));
            }
        }
        for (_, _, g) in &inst.resources {
            name = format!("{name}_{}", self.module.global(*g).name);
        }
        let mut b = FunctionBuilder::new(name, ret, at);
        b.func.params = params;
        b.func.ret_no_diff = hir::decl_syntax(db, def)
            .is_some_and(|n| n.children_with_tokens().any(|e| e.kind() == SyntaxKind::NO_DIFF_KW))
            || non_differentiable_generic(db, def, &sig.ret);
        if entry {
            b.func.entry_point = Some(EntryPoint { workgroup_size: self.numthreads(def)? });
        }
        let id = FuncId(self.module.functions.len() as u32);
        self.module.functions.push(b.finish());
        self.funcs.insert(inst.clone(), id);
        let dropped: Vec<u32> = inst.resources.iter().filter(|r| r.1.is_empty()).map(|r| r.0).collect();
        if !dropped.is_empty() {
            self.buffer_args.insert(id, dropped);
        }
        if !uniforms.is_empty() {
            let names = uniforms.iter().map(|u| u.0.clone()).collect();
            let g = self.entry_point_uniforms(def.file(db), uniforms);
            self.entry_uniforms.insert(id, (g, names));
        }
        self.queue.push((inst.clone(), id));
        // After registering: derivative functions may name this one back.
        let derivative = match inst.setter {
            // (The declaration's derivative attributes are the getter's.)
            true if slang_analysis::autodiff::setter_differentiable(db, def) => Derivative::Transcribe,
            true => Derivative::None,
            false => self.derivative_source(&inst)?,
        };
        self.module.functions[id.index()].derivative = derivative;
        let backward = if inst.setter { None } else { self.backward_source(&inst)? };
        self.module.functions[id.index()].backward = backward;
        self.module.functions[id.index()].prefer_recompute =
            item_of(db, def).is_some_and(|i| i.has_attr("PreferRecompute"));
        self.module.functions[id.index()].prefer_checkpoint =
            item_of(db, def).is_some_and(|i| i.has_attr("PreferCheckpoint"));
        Ok(id)
    }

    /// A differentiable function `T f(A… a) { return i(a…); }`, so that a
    /// built-in function can be the operand of `fwd_diff`.
    fn intrinsic_function(&mut self, i: Intrinsic, params: Vec<TypeId>, ret: TypeId) -> FuncId {
        if let Some(&f) = self.intrinsic_fns.get(&(i, params.clone())) {
            return f;
        }
        let mut b = FunctionBuilder::new(i.name().to_string(), ret, None);
        let entry = b.new_block();
        let args: Vec<ValueId> = params.iter().map(|&t| b.add_block_param(entry, t, None)).collect();
        b.func.params = params
            .iter()
            .enumerate()
            .map(|(k, &ty)| Param { name: format!("x{k}"), dir: ParamDir::In, ty, builtin: None, no_diff: false })
            .collect();
        let r = b.inst(entry, Op::Intrinsic(i, args), ret, None);
        b.terminate(entry, Terminator::Return(Some(r)));
        b.func.derivative = Derivative::Transcribe;
        let f = FuncId(self.module.functions.len() as u32);
        self.module.functions.push(b.finish());
        self.intrinsic_fns.insert((i, params), f);
        f
    }

    /// How forward mode differentiates `def`, from its attributes (and
    /// `[…Of(def)]` attributes on other functions of its file). The
    /// functions named are declared, so they are lowered too.
    fn derivative_source(&mut self, inst: &Instance) -> R<Derivative> {
        let db = self.db;
        let def = inst.def;
        let file = def.file(db);
        if !fn_differentiability(db, file, def).allows(Mode::Forward) {
            return Ok(Derivative::None);
        }
        let name = item_of(db, def).and_then(|i| i.name.clone()).unwrap_or_default();
        let named = |attr: &str, of: &str| {
            attribute_function(db, def, attr).or_else(|| function_with_attribute_naming(db, file, of, &name))
        };
        if let Some(g) = named("ForwardDerivative", "ForwardDerivativeOf") {
            return Ok(Derivative::Custom(self.declare_function(derived_instance(db, inst, g), false)?));
        }
        if let Some(s) = named("PrimalSubstitute", "PrimalSubstituteOf") {
            return Ok(Derivative::Substitute(self.declare_function(derived_instance(db, inst, s), false)?));
        }
        if item_of(db, def).is_some_and(|i| i.has_attr("TreatAsDifferentiable")) {
            return Ok(Derivative::Zero);
        }
        Ok(Derivative::Transcribe)
    }

    /// The user-written backward derivative of `def` (`[BackwardDerivative]`
    /// on it, or `[BackwardDerivativeOf]` naming it), declared.
    fn backward_source(&mut self, inst: &Instance) -> R<Option<FuncId>> {
        let db = self.db;
        let def = inst.def;
        let file = def.file(db);
        let name = item_of(db, def).and_then(|i| i.name.clone()).unwrap_or_default();
        let g = attribute_function(db, def, "BackwardDerivative")
            .or_else(|| function_with_attribute_naming(db, file, "BackwardDerivativeOf", &name));
        match g {
            Some(g) => Ok(Some(self.declare_function(derived_instance(db, inst, g), false)?)),
            None => Ok(None),
        }
    }

    /// `[numthreads(x, y, z)]` (1 where absent).
    fn numthreads(&self, def: DefId) -> R<[u32; 3]> {
        let mut size = [1u32; 3];
        let Some(f) = def_node(self.db, def).and_then(ast::Fn::cast) else { return Ok(size) };
        let Some(attr) = f.attributes().find(|a| a.name().as_deref() == Some("numthreads")) else {
            return Ok(size);
        };
        let mut ctx = DeclCtx::for_def(self.db, def);
        for (i, arg) in attr.args().take(3).enumerate() {
            let value = hir::const_int(&arg).or_else(|| match &arg {
                ast::Expr::PathExpr(p) => ctx.const_value(p.syntax().text().to_string().trim()),
                _ => None,
            });
            match value.and_then(|v| u32::try_from(v).ok()).filter(|&v| v > 0) {
                Some(v) => size[i] = v,
                None => return err(Some(arg.syntax().text_range()), "a thread-group size must be a positive constant"),
            }
        }
        Ok(size)
    }

    fn lower_body(&mut self, inst: Instance, id: FuncId) -> R<()> {
        let db = self.db;
        let def = inst.def;
        let body = body(db, def).clone();
        let bindings = inst.bindings();
        let inferred = match bindings.is_empty() {
            true => infer::infer(db, def).clone(),
            false => Arc::new(infer::infer_specialized(db, def, &bindings)),
        };
        let placeholder = std::mem::replace(
            &mut self.module.functions[id.index()],
            FunctionBuilder::new(String::new(), TypeId(0), None).finish(),
        );
        let mut lower = FnLower {
            ctx: DeclCtx::specialized(db, def, &bindings),
            is_init: item_of(db, def).is_some_and(|i| i.kind == ItemKind::Init),
            m: self,
            def,
            file: def.file(db),
            body,
            inferred,
            b: FunctionBuilder { func: placeholder },
            cur: None,
            scopes: Vec::new(),
            targets: Vec::new(),
            span: None,
            no_diff: false,
            pending_label: None,
            pending_max_iters: None,
            pending_unroll: None,
            eager_logic: false,
            resource_params: inst
                .resources
                .iter()
                .filter_map(|(i, path, g)| {
                    let name = match *i {
                        THIS_PARAM => "this".to_string(),
                        i => fn_sig(db, def).params.get(i as usize)?.name.clone()?,
                    };
                    Some((name, path.clone(), *g))
                })
                .collect(),
            res_fields: HashMap::new(),
            returned: None,
        };
        let name = lower.b.func.name.clone();
        lower.m.lowering.push((id, name));
        let result = lower.function(inst.setter);
        lower.m.lowering.pop();
        let returned = lower.returned.take();
        let func = lower.b.finish();
        self.module.functions[id.index()] = func;
        if let Some(r) = returned {
            self.returned_resources.insert(id, r);
        }
        result
    }

    /// A function compiled alone (`derive`, the editor's derivative view)
    /// whose parameters are buffers, or structs holding buffers: no call
    /// says which global buffers they are, so each gets a global of its
    /// own (named after it, in binding group 7) to be specialized to.
    fn stand_in_buffers(&mut self, inst: &mut Instance) -> R<()> {
        let db = self.db;
        let def = inst.def;
        let at = self.def_range(def);
        let mut ctx = DeclCtx::for_def(db, def);
        let mut wanted: Vec<(u32, String, String, Ty)> = Vec::new();
        let struct_fields = |index: u32, base: &str, ty: &Ty, this: &Self, wanted: &mut Vec<_>| {
            for path in this.resource_fields(ty) {
                // The field's own type, walked down its path.
                let mut t = ty.clone();
                for part in path.split('.') {
                    t = field_type(db, &t, part).unwrap_or(Ty::Unknown);
                }
                wanted.push((index, path.clone(), format!("{base}_{}", path.replace('.', "_")), t));
            }
        };
        for (i, p) in fn_sig(db, def).params.iter().enumerate() {
            let t = ctx.resolve(&p.ty);
            let name = p.name.clone().unwrap_or_else(|| format!("p{i}"));
            if globals::resource_of(&t).is_some() {
                wanted.push((i as u32, String::new(), name, t));
            } else {
                struct_fields(i as u32, &name, &t, self, &mut wanted);
            }
        }
        if is_instance_method(db, def) {
            let this = ctx.this.clone();
            struct_fields(THIS_PARAM, "this", &this, self, &mut wanted);
        }
        for (k, (index, path, name, t)) in wanted.into_iter().enumerate() {
            let Some((resource, elem)) = globals::resource_of(&t) else { continue };
            let (contents, space) = self.resource_contents(resource, elem, at)?;
            let g = self.add_global(Global {
                name,
                ty: contents,
                space,
                binding: Some((7, k as u32)),
                init: None,
                span: at,
            });
            inst.resources.push((index, path, g));
        }
        Ok(())
    }

    /// The buffers held by the struct function `f` returns (its body
    /// lowered now if it is still queued).
    fn returned_resources(&mut self, f: FuncId) -> R<Option<Vec<(String, GlobalId)>>> {
        if let Some(pos) = self.queue.iter().position(|(_, id)| *id == f) {
            let (inst, id) = self.queue.remove(pos);
            self.lower_body(inst, id)?;
        }
        Ok(self.returned_resources.get(&f).cloned())
    }
}

/// `prefix.path` (`path` alone at the top).
fn join_path(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        path.to_string()
    } else {
        format!("{prefix}.{path}")
    }
}

/// The type of field `name` of the user struct `ty` (its generic
/// arguments bound).
fn field_type(db: &dyn Db, ty: &Ty, name: &str) -> Option<Ty> {
    let Ty::Adt { def, args, .. } = ty else { return None };
    let item = item_of(db, *def)?;
    let bindings: HashMap<String, Ty> =
        item.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
    let m = item.members.iter().find(|m| m.kind == ItemKind::Var && !m.is_static && m.name.as_deref() == Some(name))?;
    let r = decl_type_ref(db, DefId::new(db, def.file(db), m.ast_index)).clone()?;
    Some(DeclCtx::specialized(db, *def, &bindings).resolve(&r))
}

/// Calls that close a cycle of calls (recursion through other
/// functions), each an error at the call: GPU targets do not allow
/// recursion.
fn recursion(module: &Module) -> Vec<CodegenError> {
    let calls = |f: usize| -> Vec<(FuncId, ValueId)> {
        let func = &module.functions[f];
        func.blocks
            .iter()
            .flat_map(|b| b.insts.iter())
            .filter_map(|&i| match func.op(i) {
                Some(Op::Call(g, _)) => Some((*g, i)),
                _ => None,
            })
            .collect()
    };
    // Depth-first, with the path on a stack: a call of a function on the
    // path is a back edge.
    let n = module.functions.len();
    let mut state = vec![0u8; n]; // 0 new, 1 on the path, 2 done
    let mut errors = Vec::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        // (Function, its calls, how many of them were followed.)
        type Frame = (usize, Vec<(FuncId, ValueId)>, usize);
        let mut stack: Vec<Frame> = vec![(start, calls(start), 0)];
        state[start] = 1;
        while let Some((f, out, k)) = stack.last_mut() {
            let f = *f;
            let Some(&(g, at)) = out.get(*k) else {
                state[f] = 2;
                stack.pop();
                continue;
            };
            *k += 1;
            match state[g.index()] {
                0 => {
                    state[g.index()] = 1;
                    let next = calls(g.index());
                    stack.push((g.index(), next, 0));
                }
                1 => errors.push(CodegenError {
                    range: module.functions[f].value(at).span.or(module.functions[f].span),
                    message: format!(
                        "recursion: `{}` calls `{}`, which leads back to it, and GPU targets do not allow recursion",
                        module.functions[f].name,
                        module.functions[g.index()].name
                    ),
                }),
                _ => {}
            }
        }
    }
    errors
}

/// A local name: a pointer to its storage.
struct Local {
    name: String,
    ptr: ValueId,
}

/// Where `break` and `continue` go.
struct Targets {
    brk: BlockId,
    cont: Option<BlockId>,
    /// The statement's label (`outer: for …`).
    label: Option<String>,
    /// For a labelled statement broken out of from a nested loop
    /// (`break outer;`): a `bool` variable set before breaking out level
    /// by level (structured control flow has single-level breaks only).
    flag: Option<ValueId>,
}

struct FnLower<'a, 'db> {
    m: &'a mut ModuleLowerer<'db>,
    ctx: DeclCtx<'db>,
    def: DefId,
    file: SourceFile,
    body: Arc<Body>,
    inferred: Arc<InferenceResult>,
    b: FunctionBuilder,
    /// The block being appended to; `None` after a jump (what follows is
    /// unreachable and not lowered).
    cur: Option<BlockId>,
    scopes: Vec<Vec<Local>>,
    targets: Vec<Targets>,
    /// The source range of what is being lowered.
    span: Option<TextRange>,
    /// Inside `no_diff`: what calls write back carries no derivative.
    no_diff: bool,
    /// Lowering an `__init`: `this` is a local, returned at the end.
    is_init: bool,
    /// The label of the statement about to be lowered.
    pending_label: Option<String>,
    /// The iteration bound of the loop about to be lowered.
    pending_max_iters: Option<u32>,
    /// The loop about to be lowered is `[ForceUnroll]`: its range, and
    /// whether a bound was written.
    pending_unroll: Option<(Option<TextRange>, bool)>,
    /// Lowering a `do … while` test: `&&` and `||` evaluate both sides.
    eager_logic: bool,
    /// Buffer parameters (and buffers held by fields of struct
    /// parameters: a path of field names) and the global buffers they
    /// stand for.
    resource_params: Vec<(String, String, GlobalId)>,
    /// The global buffers held by fields of struct locals and parameters
    /// (`p.data = inBuf`), by the local's storage and the field's path
    /// (`"data"`, `"inner.grad"`): buffers are not values on the GPU, so
    /// a struct's buffer fields are bound at compile time.
    res_fields: HashMap<(ValueId, String), GlobalId>,
    /// The buffers the returned struct's fields hold (a function returning
    /// a struct holding buffers), once a `return` said.
    returned: Option<Vec<(String, GlobalId)>>,
}

/// The parameter index standing for `this` in [`Instance::resources`].
const THIS_PARAM: u32 = u32::MAX;

/// An argument of a call.
#[derive(Clone, Copy)]
enum CallArg {
    /// An expression of the source (assigned back for `out`/`inout`).
    Expr(ExprId),
    /// What a pointer points to (stored back for `out`/`inout`): an
    /// implicit `this`.
    Place(ValueId),
    /// A value computed already (never written back).
    Value(ValueId),
}

impl FnLower<'_, '_> {
    fn db(&self) -> &dyn Db {
        self.m.db
    }

    fn t(&mut self, t: Type) -> TypeId {
        self.m.module.types.intern(t)
    }

    fn ty_of(&self, v: ValueId) -> TypeId {
        self.b.func.value(v).ty
    }

    fn ty(&self, t: TypeId) -> &Type {
        self.m.module.types.get(t)
    }

    fn show(&self, t: TypeId) -> String {
        self.m.module.types.display(t)
    }

    fn error<T>(&self, message: impl Into<String>) -> R<T> {
        err(self.span, message)
    }

    fn expr_span(&self, e: ExprId) -> Option<TextRange> {
        expr_range(self.db(), self.def, e).map(|(r, _)| r)
    }

    fn expr_syntax(&self, e: ExprId) -> Option<SyntaxNode> {
        expr_range(self.db(), self.def, e).map(|(_, n)| n)
    }

    /// The IR type inference gave expression `e`.
    fn expr_ty(&mut self, e: ExprId) -> R<TypeId> {
        let ty = self.inferred.expr_types.get(e.0 as usize).cloned().unwrap_or(Ty::Unknown);
        let at = self.expr_span(e);
        self.m.lower_ty(&ty, at)
    }

    /// A type of the analysis, lowered.
    fn expr_ty_of(&mut self, ty: &Ty) -> R<TypeId> {
        let at = self.span;
        self.m.lower_ty(ty, at)
    }

    fn resolve(&mut self, t: &TypeRef) -> R<TypeId> {
        let ty = self.ctx.resolve(t);
        let at = self.span;
        self.m.lower_ty(&ty, at)
    }

    // ---- emitting --------------------------------------------------------

    fn block(&mut self) -> BlockId {
        match self.cur {
            Some(b) => b,
            // Code after a jump inside an expression: give it a block of
            // its own that nothing branches to.
            None => {
                let b = self.b.new_block();
                self.cur = Some(b);
                b
            }
        }
    }

    fn emit(&mut self, op: Op, ty: TypeId) -> ValueId {
        let block = self.block();
        self.b.inst(block, op, ty, self.span)
    }

    fn terminate(&mut self, term: Terminator) {
        if let Some(b) = self.cur.take() {
            self.b.terminate(b, term);
        }
    }

    fn branch(&mut self, target: BlockId, args: Vec<ValueId>) {
        self.terminate(Terminator::Branch { target, args });
    }

    fn has_preds(&self, b: BlockId) -> bool {
        self.b.func.blocks.iter().any(|blk| blk.term.successors().contains(&b))
    }

    /// Continue in `b` if anything branches there.
    fn continue_at(&mut self, b: BlockId) {
        self.cur = self.has_preds(b).then_some(b);
    }

    fn konst(&mut self, c: Const, ty: TypeId) -> ValueId {
        self.emit(Op::Const(c), ty)
    }

    fn void(&mut self) -> TypeId {
        self.t(Type::Void)
    }

    fn bool_ty(&mut self) -> TypeId {
        self.t(Type::Scalar(Scalar::Bool))
    }

    fn var(&mut self, ty: TypeId) -> ValueId {
        let p = self.t(Type::Ptr(ty, AddressSpace::Function));
        self.emit(Op::Var, p)
    }

    fn load(&mut self, ptr: ValueId) -> ValueId {
        let (t, _) = self.m.module.types.pointee(self.ty_of(ptr)).expect("load through a pointer");
        self.emit(Op::Load(ptr), t)
    }

    fn store(&mut self, ptr: ValueId, value: ValueId) {
        let void = self.void();
        self.emit(Op::Store { ptr, value }, void);
    }

    /// A pointer to part `index` of what `ptr` points to.
    fn field_addr(&mut self, ptr: ValueId, index: u32) -> R<ValueId> {
        let types = &self.m.module.types;
        let Some((pt, space)) = types.pointee(self.ty_of(ptr)) else { return self.error("not addressable") };
        let Some(e) = types.element(pt, index) else { return self.error("no such part") };
        let e = self.t(e);
        let p = self.t(Type::Ptr(e, space));
        Ok(self.emit(Op::FieldAddr(ptr, index), p))
    }

    /// The value zero of a type (for missing initializers).
    fn zero(&mut self, ty: TypeId) -> R<ValueId> {
        Ok(match self.ty(ty).clone() {
            Type::Scalar(s) => {
                let c = match s {
                    Scalar::Bool => Const::Bool(false),
                    s if s.is_float() => Const::Float(0.0),
                    _ => Const::Int(0),
                };
                self.konst(c, ty)
            }
            Type::Vector(s, _) | Type::Matrix { scalar: s, .. } => {
                let st = self.t(Type::Scalar(s));
                let z = self.zero(st)?;
                self.emit(Op::Splat(z), ty)
            }
            Type::Array(e, n) => {
                let parts = (0..n).map(|_| self.zero(e)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), ty)
            }
            Type::Struct { fields, .. } => {
                let parts = fields.iter().map(|(_, ft)| self.zero(*ft)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), ty)
            }
            Type::DifferentialPair { primal, diff } => {
                let parts = vec![self.zero(primal)?, self.zero(diff)?];
                self.emit(Op::Construct(parts), ty)
            }
            _ => return self.error(format!("no zero value of `{}`", self.show(ty))),
        })
    }

    /// `v` converted to `to` as Slang's implicit conversions do.
    fn coerce(&mut self, v: ValueId, to: TypeId) -> R<ValueId> {
        let from = self.ty_of(v);
        if from == to {
            return Ok(v);
        }
        if let Some(value) = self.optional_of(to) {
            // A value as an `Optional` holding it.
            let v = self.coerce(v, value)?;
            let bool_ty = self.t(Type::Scalar(Scalar::Bool));
            let yes = self.konst(Const::Bool(true), bool_ty);
            return Ok(self.emit(Op::Construct(vec![v, yes]), to));
        }
        let (f, t) = (self.ty(from).clone(), self.ty(to).clone());
        match (f, t) {
            (Type::Scalar(_), Type::Scalar(s)) => {
                if let Some(Op::Const(c)) = self.b.func.op(v) {
                    return Ok(self.konst(convert_const(*c, s), to));
                }
                Ok(self.emit(Op::Convert(v), to))
            }
            (Type::Scalar(_), Type::Vector(s, _) | Type::Matrix { scalar: s, .. }) => {
                let st = self.t(Type::Scalar(s));
                let x = self.coerce(v, st)?;
                Ok(self.emit(Op::Splat(x), to))
            }
            (Type::Vector(_, n), Type::Vector(s, m)) if n >= m => {
                let v = if n > m {
                    let narrowed = self.ty_of(v);
                    let sc = self.m.module.types.scalar_of(narrowed).unwrap_or(s);
                    let vt = self.t(Type::Vector(sc, m));
                    self.emit(Op::Swizzle(v, (0..m).collect()), vt)
                } else {
                    v
                };
                if self.ty_of(v) == to {
                    Ok(v)
                } else {
                    Ok(self.emit(Op::Convert(v), to))
                }
            }
            (Type::Vector(s0, _), Type::Scalar(_)) => {
                let st = self.t(Type::Scalar(s0));
                let x = self.emit(Op::Extract(v, 0), st);
                self.coerce(x, to)
            }
            (Type::Matrix { rows, cols, .. }, Type::Matrix { rows: r, cols: c, .. }) if rows == r && cols == c => {
                Ok(self.emit(Op::Convert(v), to))
            }
            // `(float3x3)m` of a `float4x4`: the upper-left part.
            (Type::Matrix { scalar: s0, rows, cols }, Type::Matrix { scalar, rows: r, cols: c })
                if r <= rows && c <= cols =>
            {
                let from_row = self.t(Type::Vector(s0, cols));
                let row = self.t(Type::Vector(s0, c));
                let parts = (0..r)
                    .map(|i| {
                        let x = self.emit(Op::Extract(v, i.into()), from_row);
                        self.emit(Op::Swizzle(x, (0..c).collect()), row)
                    })
                    .collect();
                let m = self.t(Type::Matrix { scalar: s0, rows: r, cols: c });
                let m = self.emit(Op::Construct(parts), m);
                if s0 == scalar {
                    Ok(m)
                } else {
                    Ok(self.emit(Op::Convert(m), to))
                }
            }
            (_, Type::Struct { .. }) if self.m.existential_variants.get(&to).is_some_and(|vs| vs.contains(&from)) => {
                // A concrete value as an interface-typed one: its tag and
                // its variant's field set.
                let variants = self.m.existential_variants[&to].clone();
                let k = variants.iter().position(|&t| t == from).expect("a variant");
                let int = self.t(Type::Scalar(Scalar::Int32));
                let mut parts = vec![self.konst(Const::Int(k as i64), int)];
                for (i, &t) in variants.iter().enumerate() {
                    parts.push(if i == k { v } else { self.zero(t)? });
                }
                Ok(self.emit(Op::Construct(parts), to))
            }
            _ => self.error(format!("cannot convert `{}` to `{}`", self.show(from), self.show(to))),
        }
    }

    // ---- functions -------------------------------------------------------

    /// Lower the body (the `set` accessor's, for a setter).
    fn function(&mut self, setter: bool) -> R<()> {
        self.span = self.b.func.span;
        let entry = self.b.new_block();
        self.cur = Some(entry);
        self.scopes.push(Vec::new());
        let params = self.b.func.params.clone();
        for p in &params {
            let v = self.b.add_block_param(entry, p.ty, self.span);
            let ptr = match p.dir {
                ParamDir::In => {
                    // Parameters are mutable locals in Slang.
                    let declared = match p.builtin {
                        Some(_) => {
                            let hir_param = self.body.params.iter().find(|hp| hp.name.as_deref() == Some(&p.name));
                            match hir_param {
                                Some(hp) => {
                                    let t = hp.ty.clone();
                                    self.resolve(&t)?
                                }
                                None => p.ty,
                            }
                        }
                        None => p.ty,
                    };
                    let var = self.var(declared);
                    let value = self.coerce(v, declared)?;
                    self.store(var, value);
                    var
                }
                ParamDir::Out | ParamDir::InOut => v,
            };
            self.scopes.last_mut().unwrap().push(Local { name: p.name.clone(), ptr });
        }
        for (name, path, g) in self.resource_params.clone() {
            if path.is_empty() {
                let ptr = self.global_pointer(g, None)?;
                self.scopes.last_mut().unwrap().push(Local { name, ptr });
            } else if let Some(l) = self.scopes.iter().flatten().find(|l| l.name == name) {
                self.res_fields.insert((l.ptr, path), g);
            }
        }
        self.entry_point_uniforms()?;
        if self.is_init {
            // Fields an `__init` leaves alone are zero.
            let this_ty = self.b.func.ret;
            let this = self.var(this_ty);
            let zero = self.zero(this_ty)?;
            self.store(this, zero);
            self.scopes.last_mut().unwrap().push(Local { name: "this".into(), ptr: this });
        }
        let root = match setter {
            true => self.body.setter.as_ref().map(|s| s.root),
            false => self.body.root,
        };
        match root {
            Some(root) => self.stmt(root)?,
            None => return self.error("the function has no body"),
        }
        if self.cur.is_some() {
            let term = if self.is_init {
                Terminator::Return(Some(self.this_value()?))
            } else if matches!(self.ty(self.b.func.ret), Type::Void) {
                Terminator::Return(None)
            } else {
                Terminator::Unreachable
            };
            self.terminate(term);
        }
        Ok(())
    }

    /// The storage of `this`, in a method or `__init`.
    fn this_ptr(&self) -> Option<ValueId> {
        self.scopes.iter().flatten().find(|l| l.name == "this").map(|l| l.ptr)
    }

    fn this_value(&mut self) -> R<ValueId> {
        match self.this_ptr() {
            Some(p) => Ok(self.load(p)),
            None => self.error("`this` outside a method"),
        }
    }

    /// The index of the field `name` of `this` (a name used without a
    /// receiver in a method), unless a local hides it.
    fn this_field(&self, name: &str) -> Option<u32> {
        if self.scopes.iter().flatten().any(|l| l.name == name) {
            return None;
        }
        let ptr = self.this_ptr()?;
        let (t, _) = self.m.module.types.pointee(self.ty_of(ptr))?;
        match self.ty(t) {
            Type::Struct { fields, .. } => fields.iter().position(|f| f.0 == name).map(|i| i as u32),
            _ => None,
        }
    }

    /// A `static const` integer named by `e` (`K`, `S.K`, `S<2>.K`, `K`
    /// inside `S`), as a constant: its initial value evaluated with the
    /// generic arguments bound here (`static const int P = I * O;`).
    fn static_int_const(&mut self, e: ExprId) -> R<Option<ValueId>> {
        let Some(def) = self.static_var(e) else { return Ok(None) };
        if !item_of(self.db(), def).is_some_and(|i| i.modifiers.contains(&SyntaxKind::CONST_KW)) {
            return Ok(None);
        }
        let t = self.expr_ty(e)?;
        if !self.m.module.types.scalar_of(t).is_some_and(|s| matches!(s, Scalar::Int32 | Scalar::UInt32)) {
            return Ok(None);
        }
        let Some(syntax) = self.expr_syntax(e).and_then(ast::Expr::cast) else { return Ok(None) };
        let mut ctx = self.ctx.clone();
        Ok(ctx.eval_const(&syntax).map(|v| self.konst(Const::Int(v), t)))
    }

    /// The property `name` of `this`'s type, used without a receiver in a
    /// method (unless a local or field hides it).
    fn this_property(&self, name: &str) -> Option<DefId> {
        if self.scopes.iter().flatten().any(|l| l.name == name) || self.this_field(name).is_some() {
            return None;
        }
        self.this_ptr()?;
        property_named(self.db(), &self.ctx.this, name)
    }

    // ---- statements ------------------------------------------------------

    fn stmt(&mut self, s: StmtId) -> R<()> {
        if self.cur.is_none() {
            return Ok(()); // unreachable code
        }
        let saved = self.span;
        self.span = stmt_range(self.db(), self.def, s);
        let r = self.stmt_inner(s);
        self.span = saved;
        r
    }

    /// The syntax node of statement `s`.
    fn stmt_node(&self, s: StmtId) -> Option<SyntaxNode> {
        let (_, map) = body_with_source_map(self.db(), self.def);
        let root = hir::decl_syntax(self.db(), self.def)?;
        Some(map.stmts.get(s.0 as usize)?.to_node(&root))
    }

    /// An upper bound on the iterations of loop statement `s`:
    /// `[MaxIters(n)]` (or `[ForceUnroll(n)]`) on it, or, for `for (i = a;
    /// i < b; …)` with literal `a` and `b`, `|b - a| + 1`.
    fn loop_bound(&self, s: StmtId, init: Option<StmtId>, cond: Option<ExprId>) -> Option<u32> {
        let node = self.stmt_node(s)?;
        let mut holder = node.parent();
        while let Some(h) = holder.clone().filter(|h| matches!(h.kind(), SyntaxKind::LABELED_STMT)) {
            holder = h.parent();
        }
        let attributed = holder
            .filter(|h| h.kind() == SyntaxKind::ATTRIBUTED_STMT)
            .into_iter()
            .flat_map(|h| h.children().filter_map(ast::Attribute::cast).collect::<Vec<_>>());
        for a in attributed {
            if matches!(a.name().as_deref(), Some("MaxIters" | "ForceUnroll" | "unroll")) {
                if let Some(arg) = a.args().next() {
                    if let Some(n) = self.const_arg(&arg, &node) {
                        return u32::try_from(n).ok();
                    }
                }
            }
        }
        let constant =
            |e: ExprId| self.expr_syntax(e).and_then(ast::Expr::cast).and_then(|e| self.const_arg(&e, &node));
        let bound = match self.body.expr(cond?) {
            Expr::Binary { op: HirBinary::Compare(_), lhs, rhs } => constant(*rhs).or_else(|| constant(*lhs))?,
            _ => return None,
        };
        let start = init
            .and_then(|i| self.stmt_node(i))
            .and_then(|n| n.descendants().find_map(ast::Declarator::cast))
            .and_then(|d| d.initializer())
            .and_then(|e| self.const_arg(&e, &node))?;
        u32::try_from((bound - start).abs() + 1).ok()
    }

    /// The value of the constant expression `e` written in the function
    /// before `at`: literals, constants of the scopes (see
    /// `DeclCtx::eval_const`) and the function's `const` locals with
    /// constant initial values.
    fn const_arg(&self, e: &ast::Expr, at: &SyntaxNode) -> Option<i64> {
        let mut ctx = self.ctx.clone();
        if let Some(v) = ctx.eval_const(e) {
            return Some(v);
        }
        let ast::Expr::PathExpr(p) = e else { return None };
        let name = p.syntax().text().to_string();
        let f = at.ancestors().find(|a| a.kind() == SyntaxKind::FN)?;
        let decl = f
            .descendants()
            .filter_map(ast::VarDecl::cast)
            .filter(|d| d.syntax().text_range().end() <= at.text_range().start())
            .filter(|d| d.syntax().children_with_tokens().any(|t| t.kind() == SyntaxKind::CONST_KW))
            .flat_map(|d| d.declarators().collect::<Vec<_>>())
            .filter(|d| ast::HasName::name(d).is_some_and(|n| n.text() == name.trim()))
            .last()?;
        ctx.eval_const(&decl.initializer()?)
    }

    /// `[ForceUnroll]` on loop statement `s`: the statement's range, and
    /// whether an iteration bound is written (`[ForceUnroll(n)]`).
    fn force_unroll(&self, s: StmtId) -> Option<(Option<TextRange>, bool)> {
        let node = self.stmt_node(s)?;
        let mut holder = node.parent();
        while let Some(h) = holder.clone().filter(|h| matches!(h.kind(), SyntaxKind::LABELED_STMT)) {
            holder = h.parent();
        }
        let holder = holder.filter(|h| h.kind() == SyntaxKind::ATTRIBUTED_STMT)?;
        let a =
            holder.children().filter_map(ast::Attribute::cast).find(|a| a.name().as_deref() == Some("ForceUnroll"))?;
        let bounded = a.args().next().is_some();
        Some((stmt_range(self.db(), self.def, s), bounded))
    }

    /// Enter a loop or switch (taking the label written before it).
    fn push_target(&mut self, brk: BlockId, cont: Option<BlockId>) {
        let label = self.pending_label.take();
        let flag = match &label {
            Some(_) => {
                // Declared at the function's entry so that every level can
                // read it.
                let bool_ty = self.bool_ty();
                let ptr_ty = self.t(Type::Ptr(bool_ty, AddressSpace::Function));
                let var = self.b.inst(BlockId(0), Op::Var, ptr_ty, self.span);
                // Cleared at each iteration (it is set only on the way
                // out).
                let f = self.konst(Const::Bool(false), bool_ty);
                self.store(var, f);
                Some(var)
            }
            None => None,
        };
        self.targets.push(Targets { brk, cont, label, flag });
    }

    /// After a loop or switch: if a `break label` inside it was for an
    /// enclosing statement, break out of this level too.
    fn propagate_labelled_break(&mut self) {
        if self.cur.is_none() || self.targets.is_empty() {
            return;
        }
        let flags: Vec<ValueId> = self.targets.iter().filter_map(|t| t.flag).collect();
        let brk = self.targets.last().expect("a target").brk;
        for flag in flags {
            if self.cur.is_none() {
                break;
            }
            let set = self.load(flag);
            let (go, stay, after) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
            self.terminate(Terminator::If { cond: set, then: go, els: stay, merge: after });
            self.b.terminate(go, Terminator::Branch { target: brk, args: Vec::new() });
            self.b.terminate(stay, Terminator::Branch { target: after, args: Vec::new() });
            self.cur = Some(after);
        }
    }

    fn stmt_kind(&self, s: StmtId) -> Option<SyntaxKind> {
        let (_, map) = body_with_source_map(self.db(), self.def);
        map.stmts.get(s.0 as usize).map(|p| p.kind())
    }

    fn stmt_inner(&mut self, s: StmtId) -> R<()> {
        match self.body.stmt(s).clone() {
            Stmt::Expr(e) => {
                self.expr(e)?;
            }
            Stmt::Decl(decls) => {
                for d in decls {
                    let sem = match (&d.ty, d.init) {
                        (Some(t), _) => self.ctx.resolve(t),
                        (None, Some(i)) => self.inferred.expr_types.get(i.0 as usize).cloned().unwrap_or(Ty::Unknown),
                        (None, None) => Ty::Unknown,
                    };
                    if globals::resource_of(&sem).is_some() {
                        // A buffer local names the global buffer it is
                        // initialized with.
                        let Some(init) = d.init else {
                            return self.error(format!("the buffer `{}` needs a value", d.name));
                        };
                        let g = self.resource_global(init)?;
                        let ptr = self.global_pointer(g, None)?;
                        self.scopes.last_mut().unwrap().push(Local { name: d.name.clone(), ptr });
                        continue;
                    }
                    if let (Some(init), false) = (d.init, self.m.resource_fields(&sem).is_empty()) {
                        let ty = self.expr_ty_of(&sem)?;
                        let var = self.var(ty);
                        match self.body.expr(init).clone() {
                            Expr::InitList(items) => {
                                self.init_list_with_resources((var, String::new()), var, &items, &sem)?
                            }
                            _ => {
                                let v = self.expr_expecting(init, ty)?;
                                self.store(var, v);
                                self.copy_resources((var, String::new()), init, &sem, Some(v))?;
                            }
                        }
                        self.scopes.last_mut().unwrap().push(Local { name: d.name.clone(), ptr: var });
                        continue;
                    }
                    let (ty, value) = match (&d.ty, d.init) {
                        (Some(t), init) => {
                            let ty = self.resolve(t)?;
                            (ty, init.map(|i| self.expr_expecting(i, ty)).transpose()?)
                        }
                        // `let`/`var`: the value's type.
                        (None, Some(init)) => {
                            let v = self.expr(init)?;
                            (self.ty_of(v), Some(v))
                        }
                        (None, None) => return self.error(format!("`{}` needs a type or a value", d.name)),
                    };
                    if matches!(self.ty(ty), Type::Void) {
                        // `let r = bwd_diff(f)(…)`: nothing to keep.
                        continue;
                    }
                    let var = self.var(ty);
                    if let Some(v) = value {
                        self.store(var, v);
                    }
                    self.scopes.last_mut().unwrap().push(Local { name: d.name.clone(), ptr: var });
                }
            }
            Stmt::Block(stmts) => {
                self.scopes.push(Vec::new());
                for st in stmts {
                    self.stmt(st)?;
                }
                self.scopes.pop();
            }
            Stmt::If { cond, let_binding, then, els } => {
                // `if (let x = opt)`: runs with `x` the value when there is
                // one.
                let mut bound = None;
                let c = match (&let_binding, cond) {
                    (Some((name, init)), _) => {
                        let opt = self.expr(*init)?;
                        let ot = self.ty_of(opt);
                        let Some(vt) = self.optional_of(ot) else {
                            return self.error(format!("`if (let …)` of a `{}`, not an `Optional`", self.show(ot)));
                        };
                        let bool_ty = self.t(Type::Scalar(Scalar::Bool));
                        let value = self.emit(Op::Extract(opt, 0), vt);
                        bound = Some((name.clone(), value));
                        self.emit(Op::Extract(opt, 1), bool_ty)
                    }
                    (None, Some(cond)) => self.condition(cond)?,
                    (None, None) => return self.error("missing condition"),
                };
                let (tb, eb, merge) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
                self.terminate(Terminator::If { cond: c, then: tb, els: eb, merge });
                for (block, body) in [(tb, then), (eb, els)] {
                    self.cur = Some(block);
                    if let Some(st) = body {
                        self.scopes.push(Vec::new());
                        if let (Some((name, value)), true) = (&bound, block == tb) {
                            let t = self.ty_of(*value);
                            let var = self.var(t);
                            self.store(var, *value);
                            self.scopes.last_mut().unwrap().push(Local { name: name.clone(), ptr: var });
                        }
                        self.stmt(st)?;
                        self.scopes.pop();
                    }
                    self.branch(merge, Vec::new());
                }
                self.continue_at(merge);
            }
            Stmt::Loop { init, cond, step, body } => {
                let kind = self.stmt_kind(s);
                if matches!(kind, Some(SyntaxKind::COMPILE_TIME_FOR_STMT)) {
                    return self.error("`$for` is not supported by code generation yet");
                }
                self.scopes.push(Vec::new());
                if let Some(i) = init {
                    self.stmt(i)?;
                }
                self.pending_max_iters = self.loop_bound(s, init, cond);
                self.pending_unroll = self.force_unroll(s);
                if kind == Some(SyntaxKind::DO_WHILE_STMT) {
                    self.do_while(cond, body)?;
                } else {
                    self.for_loop(cond, step, body)?;
                }
                self.scopes.pop();
            }
            Stmt::Switch { scrutinee, cases } => self.switch(scrutinee, cases)?,
            Stmt::Return(e) => {
                let ret = self.b.func.ret;
                let v = match e {
                    Some(e) => {
                        let v = self.expr_expecting(e, ret)?;
                        self.record_returned_resources(e, v)?;
                        Some(v)
                    }
                    None if self.is_init => Some(self.this_value()?),
                    None => None,
                };
                self.terminate(Terminator::Return(v));
            }
            Stmt::Break => {
                let label = self.stmt_node(s).and_then(|n| {
                    n.children_with_tokens()
                        .filter_map(|e| e.into_token())
                        .find(|t| t.kind() == SyntaxKind::IDENT)
                        .map(|t| t.text().to_string())
                });
                let Some(last) = self.targets.last() else {
                    return self.error("`break` outside a loop or switch");
                };
                let brk = last.brk;
                if let Some(label) = label {
                    let Some(target) = self.targets.iter().rev().find(|t| t.label.as_deref() == Some(label.as_str()))
                    else {
                        return self.error(format!("no enclosing statement is labelled `{label}`"));
                    };
                    if let Some(flag) = target.flag.filter(|_| target.brk != brk) {
                        let t = self.bool_ty();
                        let yes = self.konst(Const::Bool(true), t);
                        self.store(flag, yes);
                    }
                }
                self.branch(brk, Vec::new());
            }
            Stmt::Continue => match self.targets.iter().rev().find_map(|t| t.cont) {
                Some(cont) => self.branch(cont, Vec::new()),
                None => return self.error("`continue` outside a loop"),
            },
            Stmt::Other(inner) => match self.stmt_kind(s) {
                Some(SyntaxKind::LABELED_STMT) => {
                    self.pending_label = self.stmt_node(s).and_then(|n| {
                        n.children().find(|c| c.kind() == SyntaxKind::NAME).map(|c| c.text().to_string())
                    });
                    for st in inner {
                        self.stmt(st)?;
                    }
                    self.pending_label = None;
                }
                Some(SyntaxKind::EMPTY_STMT | SyntaxKind::ATTRIBUTED_STMT) => {
                    for st in inner {
                        self.stmt(st)?;
                    }
                }
                Some(kind) => {
                    let what = format!("{kind:?}").to_lowercase().replace('_', " ");
                    return self.error(format!("this statement ({what}) is not supported by code generation yet"));
                }
                None => return self.error("this statement is not supported by code generation yet"),
            },
        }
        Ok(())
    }

    /// `for`/`while`: the header tests the condition; the continue block
    /// runs the step.
    fn for_loop(&mut self, cond: Option<ExprId>, step: Option<ExprId>, body: Option<StmtId>) -> R<()> {
        let (header, body_block, brk, cont) = self.enter_loop(true);
        match cond {
            Some(c) => {
                let c = self.condition(c)?;
                let (go, stop) = (self.b.new_block(), self.b.new_block());
                self.terminate(Terminator::If { cond: c, then: go, els: stop, merge: body_block });
                self.b.terminate(go, Terminator::Branch { target: body_block, args: Vec::new() });
                self.b.terminate(stop, Terminator::Branch { target: brk, args: Vec::new() });
            }
            None => self.branch(body_block, Vec::new()),
        }
        self.cur = Some(body_block);
        self.loop_body(brk, cont, body)?;
        if self.has_preds(cont) {
            self.cur = Some(cont);
            if let Some(st) = step {
                self.expr(st)?;
            }
            self.branch(header, Vec::new());
        }
        self.continue_at(brk);
        self.propagate_labelled_break();
        Ok(())
    }

    /// Start a loop: its header (where lowering continues), a body block
    /// if asked for, break and continue blocks, with the bound of
    /// `[MaxIters]` recorded.
    fn enter_loop(&mut self, with_body: bool) -> (BlockId, BlockId, BlockId, BlockId) {
        let header = self.b.new_block();
        let body = if with_body { self.b.new_block() } else { header };
        let (cont, brk) = (self.b.new_block(), self.b.new_block());
        self.terminate(Terminator::Loop { header, brk, cont, args: Vec::new() });
        if let Some(n) = self.pending_max_iters.take() {
            self.b.func.max_iters.push((header, n));
        }
        if let Some((range, bounded)) = self.pending_unroll.take() {
            self.b.func.force_unroll.push((header, range, bounded));
        }
        self.cur = Some(header);
        (header, body, brk, cont)
    }

    /// A loop's body, falling through to the continue block.
    fn loop_body(&mut self, brk: BlockId, cont: BlockId, body: Option<StmtId>) -> R<()> {
        self.push_target(brk, Some(cont));
        if let Some(st) = body {
            self.stmt(st)?;
        }
        self.targets.pop();
        self.branch(cont, Vec::new());
        Ok(())
    }

    /// `do … while`: the continue block tests the condition, branching
    /// back to the header or out.
    fn do_while(&mut self, cond: Option<ExprId>, body: Option<StmtId>) -> R<()> {
        let (header, _, brk, cont) = self.enter_loop(false);
        self.loop_body(brk, cont, body)?;
        if self.has_preds(cont) {
            self.cur = Some(cont);
            // The test is the loop's continuing part, which must stay one
            // block: `&&`/`||` are evaluated without short-circuit here.
            self.eager_logic = true;
            let c = match cond {
                Some(c) => self.condition(c),
                None => self.error("missing condition"),
            };
            self.eager_logic = false;
            let c = c?;
            if self.cur != Some(cont) {
                return self.error("this `do … while` condition is not supported yet (it branches)");
            }
            let (again, stop, after) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
            self.terminate(Terminator::If { cond: c, then: again, els: stop, merge: after });
            self.b.terminate(again, Terminator::Branch { target: header, args: Vec::new() });
            self.b.terminate(stop, Terminator::Branch { target: brk, args: Vec::new() });
        }
        self.continue_at(brk);
        self.propagate_labelled_break();
        Ok(())
    }

    fn switch(&mut self, scrutinee: Option<ExprId>, cases: Vec<(Option<ExprId>, Vec<StmtId>)>) -> R<()> {
        let Some(scrutinee) = scrutinee else { return self.error("missing switch value") };
        let v = self.expr(scrutinee)?;
        let vt = self.ty_of(v);
        let v = match self.ty(vt) {
            Type::Scalar(Scalar::Int32 | Scalar::UInt32) => v,
            _ => {
                let int = self.t(Type::Scalar(Scalar::Int32));
                self.coerce(v, int)?
            }
        };
        let brk = self.b.new_block();
        let mut labels = Vec::new();
        let mut default = None;
        // Labels with no statements share the next case's block.
        let mut pending: Vec<Option<ExprId>> = Vec::new();
        let mut bodies: Vec<(BlockId, Vec<StmtId>)> = Vec::new();
        for (label, stmts) in cases {
            pending.push(label);
            if stmts.is_empty() {
                continue;
            }
            let block = self.b.new_block();
            for l in pending.drain(..) {
                match l {
                    None => default = Some(block),
                    Some(e) => labels.push((self.case_value(e)?, block)),
                }
            }
            bodies.push((block, stmts));
        }
        if !pending.is_empty() {
            let block = self.b.new_block();
            self.b.terminate(block, Terminator::Branch { target: brk, args: Vec::new() });
            for l in pending {
                match l {
                    None => default = Some(block),
                    Some(e) => labels.push((self.case_value(e)?, block)),
                }
            }
        }
        let default = match default {
            Some(d) => d,
            None => {
                let d = self.b.new_block();
                self.b.terminate(d, Terminator::Branch { target: brk, args: Vec::new() });
                d
            }
        };
        self.terminate(Terminator::Switch { value: v, cases: labels, default, brk });
        for (i, (block, _)) in bodies.iter().enumerate() {
            self.cur = Some(*block);
            self.push_target(brk, None);
            // A case that does not end (`break`, `return`…) falls into the
            // next one: its statements are lowered again after this one's
            // (structured targets such as WGSL have no fall-through).
            for (_, stmts) in &bodies[i..] {
                if self.cur.is_none() {
                    break;
                }
                self.scopes.push(Vec::new());
                for &st in stmts {
                    self.stmt(st)?;
                }
                self.scopes.pop();
            }
            self.targets.pop();
            if self.cur.is_some() {
                self.branch(brk, Vec::new());
            }
        }
        self.continue_at(brk);
        self.propagate_labelled_break();
        Ok(())
    }

    /// A case label's value: an integer literal, or a constant the
    /// lowering knows (an enum case, a `static const` integer).
    fn case_value(&mut self, e: ExprId) -> R<i64> {
        if let Some(v) = self.expr_syntax(e).and_then(ast::Expr::cast).as_ref().and_then(hir::const_int) {
            return Ok(v);
        }
        let v = self.expr(e)?;
        match self.b.func.op(v) {
            Some(Op::Const(Const::Int(k))) => Ok(*k),
            _ => err(self.expr_span(e), "case labels must be integer constants"),
        }
    }

    // ---- expressions -----------------------------------------------------

    /// A condition as a scalar `bool`.
    fn condition(&mut self, e: ExprId) -> R<ValueId> {
        let v = self.expr(e)?;
        let b = self.bool_ty();
        let saved = self.span;
        self.span = self.expr_span(e);
        let r = self.coerce(v, b);
        self.span = saved;
        r
    }

    /// `e` converted to `ty` (initializer lists take their type from it).
    fn expr_expecting(&mut self, e: ExprId, ty: TypeId) -> R<ValueId> {
        let saved = self.span;
        self.span = self.expr_span(e);
        let r = match self.body.expr(e).clone() {
            Expr::InitList(items) => self.init_list(&items, ty),
            Expr::Literal(LiteralKind::Null) if self.optional_of(ty).is_some() => self.none_of(ty),
            Expr::Path(segs, false)
                if self.optional_of(ty).is_some()
                    && matches!(segs.as_slice(), [seg] if seg.name == "none" && seg.args.is_empty())
                    && !self.scopes.iter().flatten().any(|l| l.name == "none") =>
            {
                self.none_of(ty)
            }
            _ => {
                let v = self.expr(e)?;
                self.span = self.expr_span(e);
                self.coerce(v, ty)
            }
        };
        self.span = saved;
        r
    }

    fn init_list(&mut self, items: &[ExprId], ty: TypeId) -> R<ValueId> {
        let parts: Vec<TypeId> = match self.ty(ty).clone() {
            Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
            Type::Array(e, n) => vec![e; n as usize],
            Type::Vector(s, n) => vec![self.t(Type::Scalar(s)); n as usize],
            Type::Matrix { scalar, rows, cols } => vec![self.t(Type::Vector(scalar, cols)); rows as usize],
            _ => {
                if let [only] = items {
                    return self.expr_expecting(*only, ty);
                }
                return self.error(format!("an initializer list for `{}`", self.show(ty)));
            }
        };
        if items.len() > parts.len() {
            // More items than parts: the braces of inner aggregates are
            // left out (`Feature<3> f = {1.0, 2.0, 3.0}` for a struct
            // holding `float vals[3]`), as in the reference compiler.
            let mut pos = 0;
            let v = self.elided_init(items, &mut pos, ty)?;
            if pos < items.len() {
                return self.error(format!("too many initializers for `{}`", self.show(ty)));
            }
            return Ok(v);
        }
        let mut values = Vec::new();
        for (i, &pt) in parts.iter().enumerate() {
            values.push(match items.get(i) {
                Some(&item) => self.expr_expecting(item, pt)?,
                // A field's default value (`float gain = 2.0;`), else zero.
                None => match self.field_default(ty, i, pt)? {
                    Some(v) => v,
                    None => self.zero(pt)?,
                },
            });
        }
        Ok(self.emit(Op::Construct(values), ty))
    }

    /// A value of `ty` from the items of a flat initializer list from
    /// `*pos` on: an aggregate part takes as many items as it has scalars,
    /// unless its item is itself a list or a value of an aggregate type;
    /// parts left without items are zero.
    fn elided_init(&mut self, items: &[ExprId], pos: &mut usize, ty: TypeId) -> R<ValueId> {
        let parts: Vec<TypeId> = match self.ty(ty).clone() {
            Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
            Type::Array(e, n) => vec![e; n as usize],
            Type::Vector(s, n) => vec![self.t(Type::Scalar(s)); n as usize],
            Type::Matrix { scalar, rows, cols } => vec![self.t(Type::Vector(scalar, cols)); rows as usize],
            _ => {
                let Some(&item) = items.get(*pos) else { return self.zero(ty) };
                *pos += 1;
                return self.expr_expecting(item, ty);
            }
        };
        let mut values = Vec::new();
        for pt in parts {
            let Some(&item) = items.get(*pos) else {
                values.push(self.zero(pt)?);
                continue;
            };
            let scalar_item = !matches!(self.body.expr(item), Expr::InitList(_))
                && matches!(self.inferred.expr_types.get(item.0 as usize), Some(Ty::Scalar(_)));
            let aggregate_part = !matches!(self.ty(pt), Type::Scalar(_));
            values.push(if scalar_item && aggregate_part {
                self.elided_init(items, pos, pt)?
            } else {
                *pos += 1;
                self.expr_expecting(item, pt)?
            });
        }
        Ok(self.emit(Op::Construct(values), ty))
    }

    /// `S v = { … }` for a struct holding buffers: the buffers are bound
    /// to `v`'s fields (`root`: `v`'s storage and the path to the struct
    /// initialized, stored at `var`), the other fields stored.
    fn init_list_with_resources(&mut self, root: (ValueId, String), var: ValueId, items: &[ExprId], sem: &Ty) -> R<()> {
        let Ty::Adt { def, .. } = sem else { return self.error("an initializer list for a struct") };
        let db = self.db();
        let members: Vec<Option<String>> = item_of(db, *def)
            .map(|i| {
                i.members.iter().filter(|m| m.kind == ItemKind::Var && !m.is_static).map(|m| m.name.clone()).collect()
            })
            .unwrap_or_default();
        if items.len() > members.len() {
            return self.error(format!("too many initializers for `{sem}`"));
        }
        let ty = self.expr_ty_of(sem)?;
        let zero = self.zero(ty)?;
        self.store(var, zero);
        for (name, &item) in members.iter().zip(items) {
            let name = name.clone().unwrap_or_default();
            let path = join_path(&root.1, &name);
            if self.is_resource_expr(item) {
                let g = self.resource_global(item)?;
                self.res_fields.insert((root.0, path), g);
                continue;
            }
            let Type::Struct { fields, .. } = self.ty(ty).clone() else { unreachable!("a struct") };
            let Some(i) = fields.iter().position(|f| f.0 == name) else { continue };
            let p = self.field_addr(var, i as u32)?;
            let item_sem = self.inferred.expr_types.get(item.0 as usize).cloned().unwrap_or(Ty::Unknown);
            let field_sem = match sem {
                Ty::Adt { def, args, .. } => {
                    let db = self.db();
                    let bindings: HashMap<String, Ty> = item_of(db, *def)
                        .map(|it| {
                            it.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect()
                        })
                        .unwrap_or_default();
                    let mut ctx = DeclCtx::specialized(db, *def, &bindings);
                    item_of(db, *def)
                        .and_then(|it| {
                            let m = it
                                .members
                                .iter()
                                .find(|m| m.kind == ItemKind::Var && m.name.as_deref() == Some(&name))?;
                            decl_type_ref(db, DefId::new(db, def.file(db), m.ast_index)).clone()
                        })
                        .map(|t| ctx.resolve(&t))
                        .unwrap_or(item_sem.clone())
                }
                _ => item_sem.clone(),
            };
            if !self.m.resource_fields(&field_sem).is_empty() {
                match self.body.expr(item).clone() {
                    Expr::InitList(inner) => self.init_list_with_resources((root.0, path), p, &inner, &field_sem)?,
                    _ => {
                        let v = self.expr_expecting(item, fields[i].1)?;
                        self.store(p, v);
                        self.copy_resources((root.0, path), item, &field_sem, Some(v))?;
                    }
                }
                continue;
            }
            let v = self.expr_expecting(item, fields[i].1)?;
            self.store(p, v);
        }
        // Fields left out take their default values.
        let Type::Struct { fields, .. } = self.ty(ty).clone() else { unreachable!("a struct") };
        for (i, f) in fields.iter().enumerate() {
            let given = members.iter().take(items.len()).any(|m| m.as_deref() == Some(f.0.as_str()));
            if !given {
                if let Some(v) = self.field_default(ty, i, f.1)? {
                    let p = self.field_addr(var, i as u32)?;
                    self.store(p, v);
                }
            }
        }
        Ok(())
    }

    /// The default value written on field `i` of the struct type `ty`
    /// (`struct S { float gain = 2.0; }`), if any.
    fn field_default(&mut self, ty: TypeId, i: usize, field_ty: TypeId) -> R<Option<ValueId>> {
        let Some((def, _)) = self.m.structs.iter().find(|(_, &t)| t == ty).map(|(k, _)| k.clone()) else {
            return Ok(None);
        };
        let Type::Struct { fields, .. } = self.ty(ty) else { return Ok(None) };
        let field = fields[i].0.clone();
        let db = self.db();
        let Some(item) = item_of(db, def) else { return Ok(None) };
        let Some(m) = item
            .members
            .iter()
            .find(|m| m.kind == ItemKind::Var && !m.is_static && m.name.as_deref() == Some(field.as_str()))
        else {
            return Ok(None);
        };
        let mdef = DefId::new(db, def.file(db), m.ast_index);
        let Some(init) = def_node(db, mdef).and_then(ast::Declarator::cast).and_then(|d| d.initializer()) else {
            return Ok(None);
        };
        let value = match self.m.const_value(&init, field_ty) {
            Ok(v) => v,
            Err(_) => {
                return err(
                    Some(init.syntax().text_range()),
                    "a field's default value that is not a constant is not supported by code generation yet",
                )
            }
        };
        Ok(Some(self.const_to_value(&value, field_ty)))
    }

    /// A constant as a value of type `ty`.
    fn const_to_value(&mut self, v: &crate::ir::ConstValue, ty: TypeId) -> ValueId {
        match v {
            crate::ir::ConstValue::Scalar(c) => self.konst(*c, ty),
            crate::ir::ConstValue::Composite(parts) => {
                let types: Vec<TypeId> = match self.ty(ty).clone() {
                    Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
                    Type::Array(e, n) => vec![e; n as usize],
                    Type::Vector(s, n) => vec![self.t(Type::Scalar(s)); n as usize],
                    Type::Matrix { scalar, cols, rows } => vec![self.t(Type::Vector(scalar, cols)); rows as usize],
                    _ => vec![ty; parts.len()],
                };
                let values: Vec<ValueId> = parts.iter().zip(types).map(|(p, t)| self.const_to_value(p, t)).collect();
                self.emit(Op::Construct(values), ty)
            }
        }
    }

    fn expr(&mut self, e: ExprId) -> R<ValueId> {
        let saved = self.span;
        self.span = self.expr_span(e);
        let r = self.expr_inner(e);
        self.span = saved;
        r
    }

    fn expr_inner(&mut self, e: ExprId) -> R<ValueId> {
        match self.body.expr(e).clone() {
            Expr::Literal(kind) => self.literal(e, kind),
            Expr::Path(segs, _) => {
                if let Some(v) = self.static_int_const(e)? {
                    return Ok(v);
                }
                if let Some(p) = self.place(e)? {
                    return Ok(self.load(p));
                }
                if let Some(Ty::TypeValue(t)) = self.inferred.expr_types.get(e.0 as usize) {
                    if let Ty::Const(v) = **t {
                        // A value generic parameter, `N`.
                        let int = self.t(Type::Scalar(Scalar::Int32));
                        return Ok(self.konst(Const::Int(v), int));
                    }
                }
                if let [.., _, last] = segs.as_slice() {
                    let owner = self.ctx.resolve(&TypeRef::Path(segs[..segs.len() - 1].to_vec()));
                    if let Some(v) = self.enum_case(&owner, &last.name)? {
                        return Ok(v);
                    }
                }
                if let [seg] = segs.as_slice() {
                    // A property of `this`: its getter.
                    if let Some(prop) = self.this_property(&seg.name) {
                        let this = self.ctx.this.clone();
                        let f = self.instance_of(prop, &this, &[], &[], 0)?;
                        let this = self.this_ptr().expect("in a method");
                        return self.call_function(f, &[CallArg::Place(this)]);
                    }
                }
                let name = segs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join("::");
                self.global_constant(e, &name)
            }
            Expr::Call { callee, args } => self.call(e, callee, &args),
            // Parts of locals are read from the loaded value, so that the
            // variable stays promotable; parts of buffers through pointers.
            Expr::Member { receiver, name, .. } => {
                if let Some(v) = self.static_int_const(e)? {
                    return Ok(v);
                }
                if !self.rooted_in_local(e) {
                    if let Some(p) = self.place(e)? {
                        return Ok(self.load(p));
                    }
                }
                if let Some(Ty::TypeValue(t)) = self.inferred.expr_types.get(receiver.0 as usize).cloned() {
                    if let Some(v) = self.enum_case(&t, &name)? {
                        return Ok(v);
                    }
                }
                let r = self.expr(receiver)?;
                self.member_value(e, r, &name)
            }
            Expr::Index { base, index } => {
                // `s[i]` of a struct with a `__subscript`: its getter.
                if let Some(f) = self.accessor(e, false)? {
                    return self.call_function(f, &[CallArg::Expr(base), CallArg::Expr(index)]);
                }
                if let Some(v) = self.texture_index(e, base, index)? {
                    return Ok(v);
                }
                if !self.rooted_in_local(e) {
                    if let Some(p) = self.place(e)? {
                        return Ok(self.load(p));
                    }
                }
                let b = self.expr(base)?;
                let i = self.index(index)?;
                let t = self.expr_ty(e)?;
                Ok(match self.b.func.op(i) {
                    Some(Op::Const(Const::Int(k))) if *k >= 0 => self.emit(Op::Extract(b, *k as u32), t),
                    _ => self.emit(Op::ExtractDynamic(b, i), t),
                })
            }
            Expr::Binary { op, lhs, rhs } => self.binary(e, op, lhs, rhs),
            Expr::Prefix { op, expr } => self.prefix(e, op, expr),
            Expr::Postfix { op, expr } => self.inc_dec(expr, op == SyntaxKind::PLUS2, false),
            Expr::Ternary { cond, then, els } => self.ternary(e, cond, then, els),
            Expr::Cast { ty, expr } => {
                let t = self.resolve(&ty)?;
                self.expr_expecting(expr, t)
            }
            Expr::InitList(_) => self.error("an initializer list needs a declared type here"),
            Expr::NoDiff(inner) => {
                let saved = std::mem::replace(&mut self.no_diff, true);
                let v = self.expr(inner);
                self.no_diff = saved;
                let v = v?;
                // On a call of a differentiable function `no_diff` has no
                // effect, as with the reference compiler (the analysis
                // warns).
                let differentiable = match self.b.func.op(v) {
                    Some(Op::Call(f, _)) => {
                        let g = self.m.module.function(*f);
                        g.derivative != Derivative::None || g.backward.is_some()
                    }
                    Some(Op::Intrinsic(i, _)) => i.differentiable(),
                    _ => false,
                };
                if differentiable {
                    return Ok(v);
                }
                Ok(self.detach(v))
            }
            Expr::Missing => self.error("missing expression"),
            Expr::Diff { .. } => self.error("a `fwd_diff`/`bwd_diff` function can only be called here"),
            Expr::This => self.this_value(),
            Expr::Is { expr, ty } => self.is_as(e, expr, &ty, false),
            Expr::As { expr, ty } => self.is_as(e, expr, &ty, true),
            Expr::Other(subs) if self.expr_syntax(e).is_some_and(|n| n.kind() == SyntaxKind::SIZEOF_EXPR) => {
                self.countof(e, &subs)
            }
            _ => self.error("this expression is not supported by code generation yet"),
        }
    }

    fn literal(&mut self, e: ExprId, kind: LiteralKind) -> R<ValueId> {
        let ty = self.expr_ty(e)?;
        let text = self.expr_syntax(e).map(|n| n.text().to_string()).unwrap_or_default();
        let c = match kind {
            LiteralKind::Int { value: Some(v), .. } => Const::Int(v),
            LiteralKind::Int { value: None, .. } => return self.error("integer literal out of range"),
            LiteralKind::Float { .. } => match parse_float(&text) {
                Some(f) => Const::Float(f),
                None => return self.error("malformed floating-point literal"),
            },
            LiteralKind::Bool => Const::Bool(text.trim() == "true"),
            _ => return self.error("this literal is not supported by code generation yet"),
        };
        Ok(self.konst(c, ty))
    }

    /// A global `static const` scalar with a literal value.
    /// `E.Case` / `E::Case` of a user enum: its value (the case's
    /// initializer, or one more than the previous case's).
    fn enum_case(&mut self, owner: &Ty, name: &str) -> R<Option<ValueId>> {
        let db = self.db();
        let Ty::Adt { def, .. } = owner else { return Ok(None) };
        let Some(item) = item_of(db, *def).filter(|i| i.kind == ItemKind::Enum) else { return Ok(None) };
        let mut next = 0i64;
        let mut found = None;
        // The values of the cases before, which later ones may use
        // (`C = A | B`).
        let mut known: HashMap<String, i64> = HashMap::new();
        let flags = item.has_attr("Flags");
        if flags {
            next = 1;
        }
        for case in item.members.iter().filter(|m| m.kind == ItemKind::EnumCase) {
            let cdef = DefId::new(db, def.file(db), case.ast_index);
            let value = def_node(db, cdef).and_then(ast::EnumCase::cast).and_then(|c| c.value());
            if let Some(v) = value {
                match enum_value(&v, &known) {
                    Some(v) => next = v,
                    None => return self.error("enum case values must be integer constant expressions"),
                }
            }
            if let Some(n) = &case.name {
                known.insert(n.clone(), next);
            }
            if case.name.as_deref() == Some(name) {
                found = Some(next);
                break;
            }
            // `[Flags]` enums number their cases 1, 2, 4, …
            next = match (flags, next) {
                (true, 0) => 1,
                (true, v) => v.wrapping_shl(1),
                (false, v) => v + 1,
            };
        }
        let Some(v) = found else { return Ok(None) };
        let at = self.span;
        let ty = self.m.lower_ty(owner, at)?;
        Ok(Some(self.konst(Const::Int(v), ty)))
    }

    fn global_constant(&mut self, e: ExprId, name: &str) -> R<ValueId> {
        let db = self.db();
        let defs = self.ctx.lookup_global(name);
        let Some(d) = defs.iter().find(|d| d.kind == ItemKind::Var) else {
            return self.error(format!("`{name}` is not a value code generation supports"));
        };
        let def = DefId::new(db, d.file, d.ast_index);
        let is_const = item_of(db, def).is_some_and(|i| i.modifiers.contains(&SyntaxKind::CONST_KW));
        let init = def_node(db, def).and_then(ast::Declarator::cast).and_then(|d| d.initializer());
        let ty = self.expr_ty(e)?;
        let value = match (&init, self.ty(ty)) {
            (Some(i), Type::Scalar(s)) if is_const => {
                let text = i.syntax().text().to_string();
                match (hir::const_int(i), parse_float(&text)) {
                    (Some(v), _) => Some(convert_const(Const::Int(v), *s)),
                    (None, Some(f)) => Some(convert_const(Const::Float(f), *s)),
                    _ if text.trim() == "true" || text.trim() == "false" => Some(Const::Bool(text.trim() == "true")),
                    _ => None,
                }
            }
            _ => None,
        };
        match value {
            Some(c) => Ok(self.konst(c, ty)),
            None => self.error(format!("`{name}` is not a value code generation supports (only literal constants)")),
        }
    }

    /// An index as an `int`/`uint`.
    fn index(&mut self, e: ExprId) -> R<ValueId> {
        let i = self.expr(e)?;
        match self.ty(self.ty_of(i)) {
            Type::Scalar(Scalar::Int32 | Scalar::UInt32) => Ok(i),
            _ => {
                let int = self.t(Type::Scalar(Scalar::Int32));
                self.coerce(i, int)
            }
        }
    }

    /// Whether `e` is a local variable or a part of one.
    fn rooted_in_local(&self, e: ExprId) -> bool {
        // (A buffer held by a struct's field is a global buffer.)
        if self.is_resource_expr(e) && matches!(self.body.expr(e), Expr::Member { .. } | Expr::Path(..)) {
            return false;
        }
        match self.body.expr(e) {
            Expr::Path(segs, false) if segs.len() == 1 => {
                // (A buffer parameter names a global buffer.)
                match self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|l| l.name == segs[0].name) {
                    Some(l) => !matches!(self.b.func.op(l.ptr), Some(Op::Global(_))),
                    None => self.this_field(&segs[0].name).is_some(),
                }
            }
            Expr::This => self.this_ptr().is_some(),
            Expr::Member { receiver, .. } => self.rooted_in_local(*receiver),
            Expr::Index { base, .. } => self.rooted_in_local(*base),
            _ => false,
        }
    }

    /// A pointer to the global `g`, or to its field `field`.
    fn global_pointer(&mut self, g: GlobalId, field: Option<u32>) -> R<ValueId> {
        let global = self.m.module.global(g).clone();
        let p = self.t(Type::Ptr(global.ty, global.space));
        let p = self.emit(Op::Global(g), p);
        match field {
            Some(i) => self.field_addr(p, i),
            None => Ok(p),
        }
    }

    /// A pointer to what `e` names, when it names storage.
    fn place(&mut self, e: ExprId) -> R<Option<ValueId>> {
        if let Some(g) = self.bound_resource(e)? {
            return self.global_pointer(g, None).map(Some);
        }
        let is_local_or_field = match self.body.expr(e) {
            Expr::Path(segs, false) if segs.len() == 1 => {
                let name = segs[0].name.clone();
                self.scopes.iter().flatten().any(|l| l.name == name) || self.this_field(&name).is_some()
            }
            _ => false,
        };
        if !is_local_or_field {
            if let Some(def) = self.static_var(e) {
                let (g, field) = self.m.global_place(def, self.span)?;
                return self.global_pointer(g, field).map(Some);
            }
        }
        match self.body.expr(e).clone() {
            Expr::Path(segs, false) if segs.len() == 1 && segs[0].args.is_empty() => {
                let name = &segs[0].name;
                if let Some(l) = self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|l| &l.name == name) {
                    return Ok(Some(l.ptr));
                }
                if let (Some(i), Some(this)) = (self.this_field(name), self.this_ptr()) {
                    return Ok(Some(self.field_addr(this, i)?));
                }
                let db = self.db();
                let defs = self.ctx.lookup_global(name);
                let Some(d) = defs.iter().find(|d| d.kind == ItemKind::Var) else { return Ok(None) };
                let def = DefId::new(db, d.file, d.ast_index);
                if self.is_literal_constant(def, e)? {
                    return Ok(None);
                }
                let (g, field) = self.m.global_place(def, self.span)?;
                self.global_pointer(g, field).map(Some)
            }
            Expr::This => Ok(self.this_ptr()),
            Expr::Member { receiver, name, .. } => {
                if let Some(def) = self.global_var(receiver) {
                    if let Some((g, field)) = self.m.block_member(def, &name, self.span)? {
                        return self.global_pointer(g, field).map(Some);
                    }
                }
                let Some(base) = self.place(receiver)? else { return Ok(None) };
                let (pt, _) = self.m.module.types.pointee(self.ty_of(base)).expect("a place is a pointer");
                let index = match self.ty(pt) {
                    Type::Struct { fields, .. } => fields.iter().position(|f| f.0 == name),
                    Type::DifferentialPair { .. } => pair_part(&name).map(|i| i as usize),
                    Type::Vector(..) if name.len() == 1 => swizzle_components(&name).map(|c| c[0] as usize),
                    _ => None,
                };
                match index {
                    Some(i) => Ok(Some(self.field_addr(base, i as u32)?)),
                    None => Ok(None),
                }
            }
            Expr::Index { base, index } => {
                let texture = self.inferred.expr_types.get(base.0 as usize).is_some_and(|t| {
                    matches!(
                        globals::resource_of(t),
                        Some((globals::Resource::Texture(_) | globals::Resource::RWTexture(_), _))
                    )
                });
                if self.user_subscript(base).is_some() || texture {
                    return Ok(None);
                }
                let Some(b) = self.place(base)? else { return Ok(None) };
                let (pt, space) = self.m.module.types.pointee(self.ty_of(b)).expect("a place is a pointer");
                let Some(elem) = self.m.module.types.element(pt, 0) else {
                    return self.error(format!("`{}` cannot be indexed", self.show(pt)));
                };
                let i = self.index(index)?;
                let elem = self.t(elem);
                let p = self.t(Type::Ptr(elem, space));
                Ok(Some(self.emit(Op::ElementAddr(b, i), p)))
            }
            _ => Ok(None),
        }
    }

    /// The storage a struct-typed expression lives in, and the path of
    /// fields from it (`p` → `(p, "")`, `p.inner` → `(p, "inner")`, a
    /// field of `this` named alone → `(this, "name")`): where the buffers
    /// its fields hold are bound.
    fn struct_root(&mut self, e: ExprId) -> Option<(ValueId, String)> {
        match self.body.expr(e).clone() {
            Expr::Path(segs, false) if segs.len() == 1 && segs[0].args.is_empty() => {
                let name = &segs[0].name;
                if let Some(l) = self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|l| &l.name == name) {
                    return Some((l.ptr, String::new()));
                }
                let this = self.this_ptr()?;
                let db = self.db();
                let Ty::Adt { def, .. } = &self.ctx.this else { return None };
                let is_field = item_of(db, *def)?
                    .members
                    .iter()
                    .any(|m| m.kind == ItemKind::Var && !m.is_static && m.name.as_deref() == Some(name.as_str()));
                is_field.then(|| (this, name.clone()))
            }
            Expr::This => Some((self.this_ptr()?, String::new())),
            Expr::Member { receiver, name, .. } => {
                let (root, prefix) = self.struct_root(receiver)?;
                Some((root, join_path(&prefix, &name)))
            }
            _ => None,
        }
    }

    /// Whether `e` is a buffer (or another resource) by its type.
    fn is_resource_expr(&self, e: ExprId) -> bool {
        self.inferred.expr_types.get(e.0 as usize).is_some_and(|t| globals::resource_of(t).is_some())
    }

    /// The global buffer a buffer-typed field (`p.data`, `this.grad`, or
    /// `grad` in a method) was bound to.
    fn bound_resource(&mut self, e: ExprId) -> R<Option<GlobalId>> {
        if !self.is_resource_expr(e) {
            return Ok(None);
        }
        let Some((root, path)) = self.struct_root(e) else { return Ok(None) };
        if path.is_empty() {
            return Ok(None);
        }
        match self.res_fields.get(&(root, path.clone())) {
            Some(&g) => Ok(Some(g)),
            None => {
                let at = self.expr_span(e).or(self.span);
                err(at, format!("the buffer held by `{path}` is not known here: assign it a global buffer first"))
            }
        }
    }

    /// The global buffer a buffer-typed expression names (a global, a
    /// buffer parameter, or a struct field bound to one).
    fn resource_global(&mut self, e: ExprId) -> R<GlobalId> {
        let global = match self.place(e)? {
            Some(v) => match self.b.func.op(v) {
                Some(Op::Global(g)) => Some(*g),
                _ => None,
            },
            None => None,
        };
        match global {
            Some(g) => Ok(g),
            None => {
                let at = self.expr_span(e).or(self.span);
                err(at, "a buffer stored or passed must name a global buffer (or a parameter or field that does)")
            }
        }
    }

    /// Bind the buffers a struct value holds: `to` (a storage and path)
    /// takes those of the struct expression `from`.
    fn copy_resources(&mut self, to: (ValueId, String), from: ExprId, ty: &Ty, value: Option<ValueId>) -> R<()> {
        let paths = self.m.resource_fields(ty);
        if paths.is_empty() {
            return Ok(());
        }
        for (field, g) in self.struct_resources(from, ty, value, paths)? {
            self.res_fields.insert((to.0, join_path(&to.1, &field)), g);
        }
        Ok(())
    }

    /// The buffers the struct expression `from` (of type `ty`, with buffer
    /// fields `paths`; lowered to `value` if it was) holds, by field path:
    /// a constructor's, a called function's `return`s', or a variable's.
    fn struct_resources(
        &mut self,
        from: ExprId,
        ty: &Ty,
        value: Option<ValueId>,
        paths: Vec<String>,
    ) -> R<Vec<(String, GlobalId)>> {
        if let Some(bound) = self.constructed_resources(from, ty)? {
            return Ok(bound);
        }
        if let Some(&Op::Call(f, _)) = value.and_then(|v| self.b.func.op(v)) {
            if let Some(bound) = self.m.returned_resources(f)? {
                return Ok(bound);
            }
        }
        let Some((root, prefix)) = self.struct_root(from) else {
            let at = self.expr_span(from).or(self.span);
            return err(
                at,
                "a struct holding buffers is copied from a variable, a parameter or a constructor call only, not built here",
            );
        };
        Ok(self.bound_under(root, &prefix, paths))
    }

    /// The buffers bound to the fields `paths` of the struct at `root`'s
    /// field path `prefix`.
    fn bound_under(&self, root: ValueId, prefix: &str, paths: Vec<String>) -> Vec<(String, GlobalId)> {
        paths.into_iter().filter_map(|p| self.res_fields.get(&(root, join_path(prefix, &p))).map(|&g| (p, g))).collect()
    }

    /// At `return e` of a function returning a struct holding buffers:
    /// record the buffers `e`'s fields hold (every `return` must agree).
    fn record_returned_resources(&mut self, e: ExprId, v: ValueId) -> R<()> {
        let sem = self.inferred.expr_types.get(e.0 as usize).cloned().unwrap_or(Ty::Unknown);
        if self.m.resource_fields(&sem).is_empty() {
            return Ok(());
        }
        let paths = self.m.resource_fields(&sem);
        let mut bound = self.struct_resources(e, &sem, Some(v), paths)?;
        bound.sort_by(|a, b| a.0.cmp(&b.0));
        match &self.returned {
            Some(before) if *before != bound => {
                self.error("the `return`s of this function give its struct's buffer fields different buffers")
            }
            _ => {
                self.returned = Some(bound);
                Ok(())
            }
        }
    }

    /// For `S(args)` calling an `__init` of a struct holding buffers: the
    /// buffers its fields hold, from the `__init`'s assignments of buffer
    /// parameters to fields (`buffer = b;`, `this.buffer = b;`).
    fn constructed_resources(&mut self, e: ExprId, ty: &Ty) -> R<Option<Vec<(String, GlobalId)>>> {
        let Expr::Call { callee, args } = self.body.expr(e).clone() else { return Ok(None) };
        if !matches!(self.inferred.expr_types.get(callee.0 as usize), Some(Ty::TypeValue(_))) {
            return Ok(None);
        }
        let Some(init) = self.initializer_def(ty, &args)? else { return Ok(None) };
        let body = body(self.db(), init).clone();
        let params: Vec<Option<String>> = body.params.iter().map(|p| p.name.clone()).collect();
        let mut out = Vec::new();
        for expr in body.exprs.iter() {
            let Expr::Binary { op: HirBinary::Assign(None), lhs, rhs } = expr else { continue };
            let field = match body.expr(*lhs) {
                Expr::Path(segs, false) if segs.len() == 1 => segs[0].name.clone(),
                Expr::Member { receiver, name, .. } if matches!(body.expr(*receiver), Expr::This) => name.clone(),
                _ => continue,
            };
            let Expr::Path(segs, false) = body.expr(*rhs) else { continue };
            let [seg] = segs.as_slice() else { continue };
            let Some(k) = params.iter().position(|p| p.as_deref() == Some(seg.name.as_str())) else { continue };
            let Some(&arg) = args.get(k) else { continue };
            if self.is_resource_expr(arg) {
                let g = self.resource_global(arg)?;
                out.push((field, g));
            }
        }
        Ok(Some(out))
    }

    /// The `static` member or namespaced global `e` names: `S::K`, `S.K`,
    /// `ns::G`, `ns::S::K`, or `K` inside a method of `S`.
    fn static_var(&mut self, e: ExprId) -> Option<DefId> {
        let db = self.db();
        let static_member = |db: &dyn Db, owner: &Ty, name: &str| -> Option<DefId> {
            let Ty::Adt { def, .. } = owner else { return None };
            let item = item_of(db, *def)?;
            let m = item
                .members
                .iter()
                .find(|m| m.kind == ItemKind::Var && m.is_static && m.name.as_deref() == Some(name))?;
            Some(DefId::new(db, def.file(db), m.ast_index))
        };
        match self.body.expr(e).clone() {
            Expr::Path(segs, _) if segs.len() == 1 => {
                let name = &segs[0].name;
                if self.scopes.iter().flatten().any(|l| &l.name == name) {
                    return None;
                }
                static_member(db, &self.ctx.this.clone(), name)
            }
            Expr::Path(segs, _) => {
                let (last, prefix) = segs.split_last()?;
                let owner = self.ctx.resolve(&TypeRef::Path(prefix.to_vec()));
                let db = self.db();
                if let Some(d) = static_member(db, &owner, &last.name) {
                    return Some(d);
                }
                let ns = prefix.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join("::");
                let scope = global_scope(db, self.file);
                let d = scope.namespace(&ns)?.get(&last.name)?.iter().find(|d| d.kind == ItemKind::Var)?;
                Some(DefId::new(db, d.file, d.ast_index))
            }
            Expr::Member { receiver, name, .. } => match self.inferred.expr_types.get(receiver.0 as usize) {
                Some(Ty::TypeValue(t)) => static_member(db, &t.clone(), &name),
                _ => None,
            },
            _ => None,
        }
    }

    /// The global variable `e` names (not shadowed by a local or field).
    fn global_var(&self, e: ExprId) -> Option<DefId> {
        let Expr::Path(segs, false) = self.body.expr(e) else { return None };
        let [seg] = segs.as_slice() else { return None };
        if !seg.args.is_empty()
            || self.scopes.iter().flat_map(|s| s.iter()).any(|l| l.name == seg.name)
            || self.this_field(&seg.name).is_some()
        {
            return None;
        }
        let db = self.db();
        let defs = self.ctx.lookup_global(&seg.name);
        let d = defs.iter().find(|d| d.kind == ItemKind::Var)?;
        Some(DefId::new(db, d.file, d.ast_index))
    }

    /// `r.name` of a value: a field, or a swizzle.
    fn member_value(&mut self, e: ExprId, r: ValueId, name: &str) -> R<ValueId> {
        let rt = self.ty_of(r);
        if let Type::DifferentialPair { primal, diff } = *self.ty(rt) {
            // Typed from the pair (inference may leave `T.Differential`).
            return match pair_part(name) {
                Some(i) => Ok(self.emit(Op::Extract(r, i), if i == 0 { primal } else { diff })),
                None => self.error(format!("`{}` has no member `{name}`", self.show(rt))),
            };
        }
        // Typed from the receiver's IR type (inference may not know the
        // type of a generic call's result).
        match self.ty(rt).clone() {
            Type::Struct { fields, .. } => match fields.iter().position(|f| f.0 == name) {
                Some(i) => Ok(self.emit(Op::Extract(r, i as u32), fields[i].1)),
                // `t._0_0_1`: a tuple of the elements named.
                None if self.m.tuples.contains(&rt) && name.starts_with('_') => {
                    let picked: Option<Vec<usize>> =
                        name[1..].split('_').map(|k| k.parse::<usize>().ok().filter(|&k| k < fields.len())).collect();
                    let Some(picked) = picked else { return self.error(format!("bad tuple swizzle `{name}`")) };
                    let parts = picked.iter().map(|&k| self.emit(Op::Extract(r, k as u32), fields[k].1)).collect();
                    let t = self.expr_ty(e)?;
                    Ok(self.emit(Op::Construct(parts), t))
                }
                None => match self.property_getter(e, name)? {
                    Some(f) => self.call_function(f, &[CallArg::Value(r)]),
                    None => self.error(format!("`{}` has no field `{name}`", self.show(rt))),
                },
            },
            Type::Vector(s, _) => {
                let Some(comps) = swizzle_components(name) else { return self.error(format!("bad swizzle `{name}`")) };
                if comps.len() == 1 {
                    let st = self.t(Type::Scalar(s));
                    Ok(self.emit(Op::Extract(r, comps[0] as u32), st))
                } else {
                    let vt = self.t(Type::Vector(s, comps.len() as u8));
                    Ok(self.emit(Op::Swizzle(r, comps), vt))
                }
            }
            Type::Matrix { scalar, rows, cols } => {
                // `m._m01` (zero-based), `m._12` (one-based), or several
                // (`m._m00_m11`): row, then column.
                let Some(elems) = matrix_elements(name).filter(|es| es.iter().all(|&(r, c)| r < rows && c < cols))
                else {
                    return self.error(format!("bad matrix member `{name}`"));
                };
                let st = self.t(Type::Scalar(scalar));
                let rt = self.t(Type::Vector(scalar, cols));
                let mut parts = Vec::new();
                for (row, col) in elems {
                    let rv = self.emit(Op::Extract(r, row as u32), rt);
                    parts.push(self.emit(Op::Extract(rv, col as u32), st));
                }
                if parts.len() == 1 {
                    return Ok(parts[0]);
                }
                let vt = self.t(Type::Vector(scalar, parts.len() as u8));
                Ok(self.emit(Op::Construct(parts), vt))
            }
            Type::Scalar(_) if swizzle_components(name).is_some_and(|c| c.iter().all(|&x| x == 0)) => {
                let result = self.expr_ty(e)?;
                self.coerce(r, result)
            }
            _ => self.error(format!("member `{name}` of `{}` is not supported by code generation yet", self.show(rt))),
        }
    }

    /// The getter of property `name` of member expression `e`'s receiver.
    fn property_getter(&mut self, e: ExprId, name: &str) -> R<Option<FuncId>> {
        let db = self.db();
        let Expr::Member { receiver, .. } = self.body.expr(e).clone() else { return Ok(None) };
        let owner = self.inferred.expr_types.get(receiver.0 as usize).cloned().unwrap_or(Ty::Unknown);
        let Ty::Adt { def, args, .. } = &owner else { return Ok(None) };
        let Some(slang_analysis::infer::Member::Field(_)) = slang_analysis::infer::lookup_member(db, *def, args, name)
        else {
            return Ok(None);
        };
        match property_named(db, &owner, name) {
            Some(p) => self.instance_of(p, &owner, &[], &[], 0).map(Some),
            None => Ok(None),
        }
    }

    /// The `__subscript` of a user struct that indexing `base` calls.
    fn user_subscript(&self, base: ExprId) -> Option<(DefId, Ty)> {
        let db = self.db();
        let base_ty = self.inferred.expr_types.get(base.0 as usize).cloned().unwrap_or(Ty::Unknown);
        let Ty::Adt { def, .. } = &base_ty else { return None };
        if slang_analysis::core_files(db).contains(&def.file(db)) {
            return None;
        }
        let sub = item_of(db, *def)?
            .members
            .iter()
            .find(|m| m.kind == ItemKind::Subscript)
            .map(|m| DefId::new(db, def.file(db), m.ast_index))?;
        Some((sub, base_ty))
    }

    /// The getter (or, with `set`, the setter) that reading (writing) `e`
    /// calls: `e` is `s.prop` of a property or `s[i]` of a `__subscript`.
    fn accessor(&mut self, e: ExprId, set: bool) -> R<Option<FuncId>> {
        let (def, owner, args) = match self.body.expr(e).clone() {
            Expr::Index { base, index } => match self.user_subscript(base) {
                Some((sub, owner)) => (sub, owner, vec![index]),
                None => return Ok(None),
            },
            Expr::Member { receiver, name, .. } if set => {
                let owner = self.inferred.expr_types.get(receiver.0 as usize).cloned().unwrap_or(Ty::Unknown);
                match property_named(self.db(), &owner, &name) {
                    Some(p) => (p, owner, Vec::new()),
                    None => return Ok(None),
                }
            }
            Expr::Member { name, .. } => return self.property_getter(e, &name),
            _ => return Ok(None),
        };
        match set {
            true => self.setter(def, &owner, &args, e).map(Some),
            false => self.instance_of(def, &owner, &[], &args, 0).map(Some),
        }
    }

    /// The `set` accessor of property or `__subscript` `def` of `owner`
    /// (assigned by expression `e`).
    fn setter(&mut self, def: DefId, owner: &Ty, args: &[ExprId], e: ExprId) -> R<FuncId> {
        if body(self.db(), def).setter.is_none() {
            return err(self.expr_span(e), "this has no `set` accessor: it cannot be assigned");
        }
        let mut inst = self.instance(def, owner, &[], args, 0)?;
        inst.setter = true;
        self.m.declare_function(inst, false)
    }

    /// Store `value` (already of the target's type) into `target`.
    fn assign_to(&mut self, target: ExprId, value: ValueId) -> R<()> {
        if self.texture_store(target, value)?.is_some() {
            return Ok(());
        }
        if let Expr::Path(segs, _) = self.body.expr(target).clone() {
            // A property of `this`: its setter, on `this` in place.
            if let Some(prop) = segs.first().filter(|_| segs.len() == 1).and_then(|s| self.this_property(&s.name)) {
                let this_ty = self.ctx.this.clone();
                let f = self.setter(prop, &this_ty, &[], target)?;
                let this = self.this_ptr().expect("in a method");
                self.call_function(f, &[CallArg::Place(this), CallArg::Value(value)])?;
                return Ok(());
            }
        }
        if let Some(f) = self.accessor(target, true)? {
            // `s.prop = v`, `s[i] = v`: the setter, on `s` in place.
            let args = match self.body.expr(target).clone() {
                Expr::Index { base, index } => vec![CallArg::Expr(base), CallArg::Expr(index), CallArg::Value(value)],
                Expr::Member { receiver, .. } => vec![CallArg::Expr(receiver), CallArg::Value(value)],
                _ => unreachable!("accessors are of members and indexing"),
            };
            self.call_function(f, &args)?;
            return Ok(());
        }
        if let Some(p) = self.place(target)? {
            self.store(p, value);
            return Ok(());
        }
        // `v.zx = …`: one component at a time.
        if let Expr::Member { receiver, name, .. } = self.body.expr(target).clone() {
            // `m._m01 = …`, `m._11_22 = …`: element by element.
            if let (Some(elems), Some(base)) = (matrix_elements(&name), self.place(receiver)?) {
                let (pt, _) = self.m.module.types.pointee(self.ty_of(base)).expect("a place is a pointer");
                if let Type::Matrix { scalar, rows, cols } = *self.ty(pt) {
                    if elems.iter().any(|&(r, c)| r >= rows || c >= cols) {
                        return self.error(format!("bad matrix member `{name}`"));
                    }
                    let st = self.t(Type::Scalar(scalar));
                    for (i, &(r, c)) in elems.iter().enumerate() {
                        let part = if elems.len() == 1 { value } else { self.emit(Op::Extract(value, i as u32), st) };
                        let row = self.field_addr(base, r as u32)?;
                        let p = self.field_addr(row, c as u32)?;
                        self.store(p, part);
                    }
                    return Ok(());
                }
            }
            if let (Some(comps), Some(base)) = (swizzle_components(&name), self.place(receiver)?) {
                let st = self.m.module.types.scalar_of(self.ty_of(value)).map(|s| self.t(Type::Scalar(s)));
                for (i, &c) in comps.iter().enumerate() {
                    let part = self.emit(Op::Extract(value, i as u32), st.expect("a swizzle of a vector"));
                    let p = self.field_addr(base, c as u32)?;
                    self.store(p, part);
                }
                return Ok(());
            }
        }
        err(self.expr_span(target), "cannot assign to this (or it is not supported by code generation yet)")
    }

    /// The common type two operands convert to (HLSL's rules: the wider
    /// scalar, a scalar broadcast to the other's shape, the shorter
    /// vector).
    fn common_type(&mut self, a: TypeId, b: TypeId) -> R<TypeId> {
        let (ta, tb) = (self.ty(a).clone(), self.ty(b).clone());
        let (Some(sa), Some(sb)) = (self.m.module.types.scalar_of(a), self.m.module.types.scalar_of(b)) else {
            return self.error(format!("no operator for `{}` and `{}`", self.show(a), self.show(b)));
        };
        let s = Scalar::promote(sa, sb);
        Ok(match (ta, tb) {
            (Type::Scalar(_), Type::Scalar(_)) => self.t(Type::Scalar(s)),
            (Type::Vector(_, n), Type::Scalar(_)) | (Type::Scalar(_), Type::Vector(_, n)) => self.t(Type::Vector(s, n)),
            (Type::Vector(_, n), Type::Vector(_, m)) => self.t(Type::Vector(s, n.min(m))),
            (Type::Matrix { rows, cols, .. }, Type::Scalar(_)) | (Type::Scalar(_), Type::Matrix { rows, cols, .. }) => {
                self.t(Type::Matrix { scalar: s, rows, cols })
            }
            (Type::Matrix { rows, cols, .. }, Type::Matrix { rows: r, cols: c, .. }) if rows == r && cols == c => {
                self.t(Type::Matrix { scalar: s, rows, cols })
            }
            _ => return self.error(format!("no operator for `{}` and `{}`", self.show(a), self.show(b))),
        })
    }

    fn with_scalar(&mut self, t: TypeId, s: Scalar) -> TypeId {
        match self.ty(t).clone() {
            Type::Vector(_, n) => self.t(Type::Vector(s, n)),
            Type::Matrix { rows, cols, .. } => self.t(Type::Matrix { scalar: s, rows, cols }),
            _ => self.t(Type::Scalar(s)),
        }
    }

    /// Tuples compare element by element, lexicographically (`==`, `!=`,
    /// `<`, `<=`, `>`, `>=`); `None` unless both are tuples of one type.
    fn tuple_compare(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> R<Option<ValueId>> {
        let t = self.ty_of(a);
        let Type::Struct { fields, .. } = self.ty(t).clone() else { return Ok(None) };
        if !self.m.tuples.contains(&t) || self.ty_of(b) != t || !op.is_comparison() {
            return Ok(None);
        }
        let bool_ty = self.t(Type::Scalar(Scalar::Bool));
        let (x, y, op) = match op {
            BinaryOp::Gt => (b, a, BinaryOp::Lt),
            BinaryOp::Ge => (b, a, BinaryOp::Le),
            op => (a, b, op),
        };
        // From the last element back: `lt` = x < y on the elements from
        // here on, `eq` = they are equal.
        let mut lt = self.konst(Const::Bool(false), bool_ty);
        let mut eq = self.konst(Const::Bool(true), bool_ty);
        for (k, f) in fields.iter().enumerate().rev() {
            let xi = self.emit(Op::Extract(x, k as u32), f.1);
            let yi = self.emit(Op::Extract(y, k as u32), f.1);
            let e = self.arith(BinaryOp::Eq, xi, yi)?;
            let e = self.all_of(e)?;
            if matches!(op, BinaryOp::Lt | BinaryOp::Le) {
                let l = match self.m.module.types.scalar_of(f.1) {
                    Some(Scalar::Bool) => {
                        let nx = self.emit(Op::Unary(UnaryOp::Not, xi), f.1);
                        let both = self.arith(BinaryOp::And, nx, yi)?;
                        self.all_of(both)?
                    }
                    _ => {
                        let l = self.arith(BinaryOp::Lt, xi, yi)?;
                        self.all_of(l)?
                    }
                };
                let rest = self.emit(Op::Binary(BinaryOp::And, e, lt), bool_ty);
                lt = self.emit(Op::Binary(BinaryOp::Or, l, rest), bool_ty);
            }
            eq = self.emit(Op::Binary(BinaryOp::And, e, eq), bool_ty);
        }
        Ok(Some(match op {
            BinaryOp::Eq => eq,
            BinaryOp::Ne => self.emit(Op::Unary(UnaryOp::Not, eq), bool_ty),
            BinaryOp::Lt => lt,
            _ => self.emit(Op::Binary(BinaryOp::Or, lt, eq), bool_ty),
        }))
    }

    /// The value type of an `Optional` struct.
    fn optional_of(&self, t: TypeId) -> Option<TypeId> {
        match self.ty(t) {
            Type::Struct { fields, .. } if self.m.optionals.contains(&t) => Some(fields[0].1),
            _ => None,
        }
    }

    /// `none` as the `Optional` type `t`.
    fn none_of(&mut self, t: TypeId) -> R<ValueId> {
        let value = self.optional_of(t).expect("an optional");
        let zero = self.zero(value)?;
        let bool_ty = self.t(Type::Scalar(Scalar::Bool));
        let no = self.konst(Const::Bool(false), bool_ty);
        Ok(self.emit(Op::Construct(vec![zero, no]), t))
    }

    /// `x is T` (`as_optional`: `x as T`, an `Optional<T>`): for a value of
    /// an interface type, whether its tag is `T`'s; for other values,
    /// whether their type is `T`.
    fn is_as(&mut self, e: ExprId, x: ExprId, ty: &TypeRef, as_optional: bool) -> R<ValueId> {
        let v = self.expr(x)?;
        let target = self.resolve(ty)?;
        let from = self.ty_of(v);
        let bool_ty = self.t(Type::Scalar(Scalar::Bool));
        let (is, value) = match self.m.existential_variants.get(&from).cloned() {
            Some(variants) => match variants.iter().position(|&t| t == target) {
                Some(k) => {
                    let int = self.t(Type::Scalar(Scalar::Int32));
                    let tag = self.emit(Op::Extract(v, 0), int);
                    let want = self.konst(Const::Int(k as i64), int);
                    let is = self.emit(Op::Binary(BinaryOp::Eq, tag, want), bool_ty);
                    (is, Some(self.emit(Op::Extract(v, k as u32 + 1), target)))
                }
                None => (self.konst(Const::Bool(false), bool_ty), None),
            },
            None if from == target => (self.konst(Const::Bool(true), bool_ty), Some(v)),
            None => (self.konst(Const::Bool(false), bool_ty), None),
        };
        if !as_optional {
            return Ok(is);
        }
        let t = self.expr_ty(e)?;
        let value = match value {
            Some(v) => v,
            None => self.zero(target)?,
        };
        Ok(self.emit(Op::Construct(vec![value, is]), t))
    }

    /// A comparison's result as one `bool` (`all` of a vector's).
    fn all_of(&mut self, v: ValueId) -> R<ValueId> {
        match *self.ty(self.ty_of(v)) {
            Type::Vector(..) => {
                let bool_ty = self.t(Type::Scalar(Scalar::Bool));
                Ok(self.emit(Op::Intrinsic(Intrinsic::All, vec![v]), bool_ty))
            }
            _ => Ok(v),
        }
    }

    /// `a op b` on values, converting both to their common type.
    fn arith(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> R<ValueId> {
        if let Some(v) = self.tuple_compare(op, a, b)? {
            return Ok(v);
        }
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            let at = self.ty_of(a);
            let amount = self.with_scalar(at, Scalar::UInt32);
            let b = self.coerce(b, amount)?;
            return Ok(self.emit(Op::Binary(op, a, b), at));
        }
        let mut common = self.common_type(self.ty_of(a), self.ty_of(b))?;
        // Arithmetic on bools happens in `int`.
        if !op.is_comparison()
            && !matches!(op, BinaryOp::And | BinaryOp::Or)
            && self.m.module.types.scalar_of(common) == Some(Scalar::Bool)
            && !matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor)
        {
            common = self.with_scalar(common, Scalar::Int32);
        }
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            common = self.with_scalar(common, Scalar::Bool);
        }
        let a = self.coerce(a, common)?;
        let b = self.coerce(b, common)?;
        let result = if op.is_comparison() { self.with_scalar(common, Scalar::Bool) } else { common };
        Ok(self.emit(Op::Binary(op, a, b), result))
    }

    fn binary(&mut self, e: ExprId, op: HirBinary, lhs: ExprId, rhs: ExprId) -> R<ValueId> {
        match op {
            HirBinary::Assign(None) => {
                if self.is_resource_expr(lhs) {
                    // `p.data = inBuf`: the field is bound to the buffer.
                    let g = self.resource_global(rhs)?;
                    let Some(target) = self.struct_root(lhs).filter(|r| !r.1.is_empty()) else {
                        return self.error("a buffer is assigned to a field of a struct variable only");
                    };
                    self.res_fields.insert(target, g);
                    let int = self.t(Type::Scalar(Scalar::Int32));
                    return Ok(self.konst(Const::Int(0), int));
                }
                let t = self.expr_ty(lhs)?;
                // An element's address is taken before the value is
                // computed (`buf[o++] = f(o)` writes where `o` was), as
                // the reference compiler does.
                let plain_index = match self.body.expr(lhs) {
                    Expr::Index { base, .. } => {
                        let texture = self.inferred.expr_types.get(base.0 as usize).is_some_and(|t| {
                            matches!(globals::resource_of(t), Some((globals::Resource::RWTexture(_), _)))
                        });
                        self.user_subscript(*base).is_none() && !texture
                    }
                    _ => false,
                };
                if plain_index {
                    if let Some(p) = self.place(lhs)? {
                        let v = self.expr_expecting(rhs, t)?;
                        self.store(p, v);
                        return Ok(v);
                    }
                }
                let v = self.expr_expecting(rhs, t)?;
                self.assign_to(lhs, v)?;
                let sem = self.inferred.expr_types.get(lhs.0 as usize).cloned().unwrap_or(Ty::Unknown);
                if let Some(target) = self.struct_root(lhs) {
                    self.copy_resources(target, rhs, &sem, Some(v))?;
                }
                Ok(v)
            }
            HirBinary::Assign(Some(k)) => {
                let t = self.expr_ty(lhs)?;
                let Some(op) = binary_op(k) else { return self.error("unsupported compound assignment") };
                if let Some(p) = self.place(lhs)? {
                    let old = self.load(p);
                    let r = self.expr(rhs)?;
                    let v = self.arith(op, old, r)?;
                    let v = self.coerce(v, t)?;
                    self.store(p, v);
                    return Ok(v);
                }
                let old = self.expr(lhs)?;
                let r = self.expr(rhs)?;
                let v = self.arith(op, old, r)?;
                let v = self.coerce(v, t)?;
                self.assign_to(lhs, v)?;
                Ok(v)
            }
            HirBinary::Logic(k) => {
                let result = self.expr_ty(e)?;
                if matches!(self.ty(result), Type::Scalar(_)) && !self.eager_logic {
                    self.short_circuit(k == SyntaxKind::AMP2, lhs, rhs)
                } else {
                    let a = self.expr(lhs)?;
                    let b = self.expr(rhs)?;
                    let (a, b) = (self.coerce(a, result)?, self.coerce(b, result)?);
                    let op = if k == SyntaxKind::AMP2 { BinaryOp::And } else { BinaryOp::Or };
                    Ok(self.emit(Op::Binary(op, a, b), result))
                }
            }
            HirBinary::Arith(k) | HirBinary::Compare(k) | HirBinary::Bit(k) | HirBinary::Shift(k) => {
                if let Some(v) = self.user_operator(k, &[lhs, rhs])? {
                    return Ok(v);
                }
                let Some(op) = binary_op(k) else { return self.error("unsupported operator") };
                let a = self.expr(lhs)?;
                let b = self.expr(rhs)?;
                self.arith(op, a, b)
            }
            HirBinary::Comma => {
                self.expr(lhs)?;
                self.expr(rhs)
            }
        }
    }

    /// `a op b` with a user struct operand: a call of the user's
    /// `operator op` of user structs, binary or unary (`operands`): a free
    /// function taking them all, or a method of the first taking the rest.
    fn user_operator(&mut self, k: SyntaxKind, operands: &[ExprId]) -> R<Option<ValueId>> {
        let db = self.db();
        let tys: Vec<Ty> = operands
            .iter()
            .map(|a| self.inferred.expr_types.get(a.0 as usize).cloned().unwrap_or(Ty::Unknown))
            .collect();
        let core = slang_analysis::core_files(db);
        let user_struct = |t: &Ty| {
            matches!(t, Ty::Adt { def, .. } if !core.contains(&def.file(db))
                && item_of(db, *def).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class)))
        };
        if !tys.iter().any(user_struct) {
            return Ok(None);
        }
        let name = format!("operator{}", k.static_text().unwrap_or("?"));
        let all: Vec<CallArg> = operands.iter().map(|&o| CallArg::Expr(o)).collect();
        let free: Vec<DefId> = global_scope(db, self.file)
            .lookup(&name)
            .into_iter()
            .flatten()
            .filter(|d| d.kind == ItemKind::Fn && !core.contains(&d.file))
            .map(|d| DefId::new(db, d.file, d.ast_index))
            .filter(|&d| fn_sig(db, d).params.len() == operands.len())
            .collect();
        if !free.is_empty() {
            let def = self.pick_overload(&free, operands, &name)?;
            let f = self.instance_of(def, &Ty::Unknown, &[], operands, 0)?;
            return self.call_function(f, &all).map(Some);
        }
        if let Ty::Adt { def: owner, .. } = &tys[0] {
            let methods: Vec<DefId> = item_of(db, *owner)
                .iter()
                .flat_map(|i| i.members.iter())
                .filter(|m| m.kind == ItemKind::Fn && m.name.as_deref() == Some(name.as_str()))
                .map(|m| DefId::new(db, owner.file(db), m.ast_index))
                .filter(|&d| fn_sig(db, d).params.len() + 1 == operands.len())
                .collect();
            if !methods.is_empty() {
                let def = self.pick_overload(&methods, &operands[1..], &name)?;
                let f = self.instance_of(def, &tys[0], &[], &operands[1..], 0)?;
                return self.call_function(f, &all).map(Some);
            }
        }
        self.error(format!("no `{name}` for these operands"))
    }

    /// Scalar `a && b` / `a || b`: `b` runs only when needed.
    fn short_circuit(&mut self, and: bool, lhs: ExprId, rhs: ExprId) -> R<ValueId> {
        let a = self.condition(lhs)?;
        let bool_ty = self.bool_ty();
        let (tb, eb, merge) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
        let result = self.b.add_block_param(merge, bool_ty, self.span);
        self.terminate(Terminator::If { cond: a, then: tb, els: eb, merge });
        let (eval, fixed) = if and { (tb, eb) } else { (eb, tb) };
        self.cur = Some(eval);
        let b = self.condition(rhs)?;
        self.branch(merge, vec![b]);
        self.cur = Some(fixed);
        let c = self.konst(Const::Bool(!and), bool_ty);
        self.branch(merge, vec![c]);
        self.cur = Some(merge);
        Ok(result)
    }

    fn ternary(&mut self, e: ExprId, cond: ExprId, then: ExprId, els: ExprId) -> R<ValueId> {
        let result = self.expr_ty(e)?;
        let cond_ty = self.expr_ty(cond)?;
        if let Type::Vector(_, n) = *self.ty(cond_ty) {
            // Element-wise: both sides are evaluated.
            let c = self.expr(cond)?;
            let bt = self.t(Type::Vector(Scalar::Bool, n));
            let c = self.coerce(c, bt)?;
            let a = self.expr_expecting(then, result)?;
            let b = self.expr_expecting(els, result)?;
            return Ok(self.emit(Op::Select(c, a, b), result));
        }
        let c = self.condition(cond)?;
        let (tb, eb, merge) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
        let value = self.b.add_block_param(merge, result, self.span);
        self.terminate(Terminator::If { cond: c, then: tb, els: eb, merge });
        for (block, arm) in [(tb, then), (eb, els)] {
            self.cur = Some(block);
            let v = self.expr_expecting(arm, result)?;
            self.branch(merge, vec![v]);
        }
        self.cur = Some(merge);
        Ok(value)
    }

    fn prefix(&mut self, e: ExprId, op: SyntaxKind, inner: ExprId) -> R<ValueId> {
        if matches!(op, SyntaxKind::MINUS | SyntaxKind::PLUS | SyntaxKind::BANG | SyntaxKind::TILDE) {
            if let Some(v) = self.user_operator(op, &[inner])? {
                return Ok(v);
            }
        }
        match op {
            SyntaxKind::PLUS2 | SyntaxKind::MINUS2 => self.inc_dec(inner, op == SyntaxKind::PLUS2, true),
            SyntaxKind::PLUS => self.expr(inner),
            SyntaxKind::MINUS => {
                let v = self.expr(inner)?;
                let t = self.expr_ty(e)?;
                let v = self.coerce(v, t)?;
                // A negative literal is a constant (WGSL's constant
                // evaluation cannot convert `-(3i)` to a 64-bit type).
                match self.b.func.op(v) {
                    Some(&Op::Const(Const::Int(i))) if matches!(self.ty(t), Type::Scalar(_)) => {
                        Ok(self.konst(Const::Int(-i), t))
                    }
                    Some(&Op::Const(Const::Float(f))) if matches!(self.ty(t), Type::Scalar(_)) => {
                        Ok(self.konst(Const::Float(-f), t))
                    }
                    _ => Ok(self.emit(Op::Unary(UnaryOp::Neg, v), t)),
                }
            }
            SyntaxKind::BANG => {
                let v = self.expr(inner)?;
                let vt = self.ty_of(v);
                let t = self.with_scalar(vt, Scalar::Bool);
                let v = self.coerce(v, t)?;
                Ok(self.emit(Op::Unary(UnaryOp::Not, v), t))
            }
            SyntaxKind::TILDE => {
                let v = self.expr(inner)?;
                let t = self.ty_of(v);
                Ok(self.emit(Op::Unary(UnaryOp::BitNot, v), t))
            }
            _ => self.error("this operator is not supported by code generation yet"),
        }
    }

    /// `++x`/`x++`/`--x`/`x--`: the new value (prefix) or the old one.
    fn inc_dec(&mut self, target: ExprId, inc: bool, prefix: bool) -> R<ValueId> {
        // A property or `__subscript` (no place): its getter and setter.
        let place = self.place(target)?;
        let old = match place {
            Some(p) => self.load(p),
            None => self.expr(target)?,
        };
        let t = self.ty_of(old);
        let Some(s) = self.m.module.types.scalar_of(t) else { return self.error("cannot increment this") };
        let st = self.t(Type::Scalar(s));
        let one = self.konst(convert_const(Const::Int(1), s), st);
        let one = self.coerce(one, t)?;
        let op = if inc { BinaryOp::Add } else { BinaryOp::Sub };
        let new = self.emit(Op::Binary(op, old, one), t);
        match place {
            Some(p) => self.store(p, new),
            None => self.assign_to(target, new)?,
        }
        Ok(if prefix { new } else { old })
    }

    // ---- calls -----------------------------------------------------------

    fn call(&mut self, e: ExprId, callee: ExprId, args: &[ExprId]) -> R<ValueId> {
        let callee_ty = self.inferred.expr_types.get(callee.0 as usize).cloned().unwrap_or(Ty::Unknown);
        let expr_args: Vec<CallArg> = args.iter().map(|&a| CallArg::Expr(a)).collect();
        let core = slang_analysis::core_files(self.db());
        let user_defs = |defs: &[DefId]| -> Vec<DefId> {
            defs.iter().copied().filter(|d| !core.contains(&d.file(self.db()))).collect()
        };
        match (self.body.expr(callee).clone(), callee_ty) {
            (_, Ty::TypeValue(t)) => {
                if let Some(f) = self.initializer(&t, args)? {
                    let expr_args = self.without_buffer_args(f, expr_args);
                    return self.call_function(f, &expr_args);
                }
                let at = self.span;
                let t = self.m.lower_ty(&t, at)?;
                self.construct(t, args)
            }
            (Expr::Path(segs, _), Ty::Func(defs)) => {
                let name = segs.last().map(|s| s.name.clone()).unwrap_or_default();
                let user = user_defs(&defs);
                if user.is_empty() {
                    if name == "createDynamicObject" {
                        return self.create_dynamic_object(e, args);
                    }
                    return self.intrinsic(e, &name, args);
                }
                let def = self.pick_overload(&user, args, &name)?;
                // `S::f(…)`, or a method of `this`'s type named alone.
                let owner = match segs.split_last() {
                    Some((_, prefix)) if !prefix.is_empty() => self.ctx.resolve(&TypeRef::Path(prefix.to_vec())),
                    _ => self.ctx.this.clone(),
                };
                let explicit = segs.last().map(|s| s.args.clone()).unwrap_or_default();
                let mut inst = self.instance(def, &owner, &explicit, args, 0)?;
                if is_instance_method(self.db(), def) {
                    let root = self.this_ptr().map(|t| (t, String::new()));
                    self.this_resources(&mut inst, root, &owner);
                }
                let f = self.m.declare_function(inst, false)?;
                let expr_args = self.without_buffer_args(f, expr_args);
                let mut all = Vec::new();
                if is_instance_method(self.db(), def) {
                    match self.this_ptr() {
                        Some(this) => all.push(CallArg::Place(this)),
                        None => return self.error(format!("`{name}` needs an instance")),
                    }
                }
                all.extend(expr_args);
                all.extend(self.default_args(def, args.len())?);
                self.call_function(f, &all)
            }
            (_, Ty::DiffFunc { defs, modes }) => self.derivative_call(e, callee, &defs, &modes, args),
            (Expr::Member { receiver, name, generic_args, .. }, Ty::Func(defs)) if !user_defs(&defs).is_empty() => {
                let def = self.pick_overload(&user_defs(&defs), args, &name)?;
                let receiver_ty = self.inferred.expr_types.get(receiver.0 as usize).cloned().unwrap_or(Ty::Unknown);
                if let Ty::Adt { def: iface, .. } = &receiver_ty {
                    if item_of(self.db(), *iface).is_some_and(|i| i.kind == ItemKind::Interface) {
                        // Dynamic dispatch on an interface-typed value.
                        let at = self.span;
                        let f = self.m.dispatch_function(*iface, def, at)?;
                        let all: Vec<CallArg> = std::iter::once(CallArg::Expr(receiver)).chain(expr_args).collect();
                        return self.call_function(f, &all);
                    }
                }
                let (owner, this) = match receiver_ty {
                    // `S.staticMethod(…)`.
                    Ty::TypeValue(t) => ((*t).clone(), None),
                    t => (t, is_instance_method(self.db(), def).then_some(CallArg::Expr(receiver))),
                };
                let mut inst = self.instance(def, &owner, &generic_args, args, 0)?;
                if this.is_some() {
                    let root = self.struct_root(receiver);
                    self.this_resources(&mut inst, root, &owner);
                }
                let f = self.m.declare_function(inst, false)?;
                let expr_args = self.without_buffer_args(f, expr_args);
                let mut all: Vec<CallArg> = this.into_iter().chain(expr_args).collect();
                all.extend(self.default_args(def, args.len())?);
                self.call_function(f, &all)
            }
            (Expr::Member { receiver, name, .. }, _) => self.method_call(e, receiver, &name, args),
            _ => self.error("this call is not supported by code generation yet"),
        }
    }

    /// `createDynamicObject<I>(id, value)`: a value of interface `I` whose
    /// type is the one conforming under `id` (the program's type
    /// conformances, or else declaration order) and whose data are the
    /// bits of `value`, word by word (as the reference compiler packs
    /// them).
    fn create_dynamic_object(&mut self, e: ExprId, args: &[ExprId]) -> R<ValueId> {
        let [id, value] = args else { return self.error("`createDynamicObject` takes a type id and a value") };
        let t = self.expr_ty(e)?;
        let Some((iface, variants)) =
            self.m.existentials.iter().find(|(_, x)| x.0 == t).map(|(&i, x)| (i, x.1.clone()))
        else {
            return self.error("`createDynamicObject` makes a value of an interface type");
        };
        let db = self.m.db;
        let name_of = |d: DefId| item_of(db, d).and_then(|i| i.name.clone()).unwrap_or_default();
        let iname = name_of(iface);
        let int = self.t(Type::Scalar(Scalar::Int32));
        let bool_ty = self.bool_ty();
        let idv = self.expr(*id)?;
        let idv = self.coerce(idv, int)?;
        let conformances: Vec<(usize, u32)> = self
            .m
            .conformances
            .iter()
            .filter(|c| c.interface == iname)
            .filter_map(|c| Some((variants.iter().position(|v| name_of(v.0) == c.ty)?, c.id)))
            .collect();
        let tag = if conformances.is_empty() {
            idv
        } else {
            let mut tag = self.konst(Const::Int(0), int);
            for (k, cid) in conformances {
                let c = self.konst(Const::Int(cid.into()), int);
                let is = self.emit(Op::Binary(BinaryOp::Eq, idv, c), bool_ty);
                let kv = self.konst(Const::Int(k as i64), int);
                tag = self.emit(Op::Select(is, kv, tag), int);
            }
            tag
        };
        let v = self.expr(*value)?;
        let mut words = Vec::new();
        self.words_of(v, &mut words)?;
        let mut parts = vec![tag];
        for (_, vt) in variants {
            let mut next = 0;
            parts.push(self.value_from_words(vt, &words, &mut next)?);
        }
        Ok(self.emit(Op::Construct(parts), t))
    }

    /// The 32-bit words of `v` (as `uint`s), scalars in order.
    fn words_of(&mut self, v: ValueId, out: &mut Vec<ValueId>) -> R<()> {
        let uint = self.t(Type::Scalar(Scalar::UInt32));
        match self.ty(self.ty_of(v)).clone() {
            Type::Scalar(Scalar::Float) => out.push(self.emit(Op::Intrinsic(Intrinsic::AsUint, vec![v]), uint)),
            Type::Scalar(Scalar::Int32 | Scalar::UInt32) => out.push(self.coerce(v, uint)?),
            Type::Scalar(Scalar::Bool) => {
                let (one, zero) = (self.konst(Const::Int(1), uint), self.konst(Const::Int(0), uint));
                out.push(self.emit(Op::Select(v, one, zero), uint));
            }
            Type::Vector(s, n) => {
                let st = self.t(Type::Scalar(s));
                for i in 0..n {
                    let x = self.emit(Op::Extract(v, i.into()), st);
                    self.words_of(x, out)?;
                }
            }
            Type::Matrix { scalar, cols, rows } => {
                let row = self.t(Type::Vector(scalar, cols));
                for i in 0..rows {
                    let x = self.emit(Op::Extract(v, i.into()), row);
                    self.words_of(x, out)?;
                }
            }
            Type::Array(et, n) => {
                for i in 0..n {
                    let x = self.emit(Op::Extract(v, i), et);
                    self.words_of(x, out)?;
                }
            }
            Type::Struct { fields, .. } => {
                for (i, (_, ft)) in fields.iter().enumerate() {
                    let x = self.emit(Op::Extract(v, i as u32), *ft);
                    self.words_of(x, out)?;
                }
            }
            other => return self.error(format!("`createDynamicObject` cannot pack a `{other:?}` value")),
        }
        Ok(())
    }

    /// A value of type `t` from `words` (from `*next` on; zero past the
    /// end).
    fn value_from_words(&mut self, t: TypeId, words: &[ValueId], next: &mut usize) -> R<ValueId> {
        let uint = self.t(Type::Scalar(Scalar::UInt32));
        Ok(match self.ty(t).clone() {
            Type::Scalar(s) => {
                let w = match words.get(*next) {
                    Some(&w) => w,
                    None => self.konst(Const::Int(0), uint),
                };
                *next += 1;
                match s {
                    Scalar::Float => self.emit(Op::Intrinsic(Intrinsic::AsFloat, vec![w]), t),
                    Scalar::Int32 | Scalar::UInt32 => self.coerce(w, t)?,
                    Scalar::Bool => {
                        let zero = self.konst(Const::Int(0), uint);
                        self.emit(Op::Binary(BinaryOp::Ne, w, zero), t)
                    }
                    _ => return self.error(format!("`createDynamicObject` cannot unpack a `{}`", self.show(t))),
                }
            }
            Type::Vector(s, n) => {
                let st = self.t(Type::Scalar(s));
                let parts = (0..n).map(|_| self.value_from_words(st, words, next)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), t)
            }
            Type::Matrix { scalar, cols, rows } => {
                let row = self.t(Type::Vector(scalar, cols));
                let parts = (0..rows).map(|_| self.value_from_words(row, words, next)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), t)
            }
            Type::Array(et, n) => {
                let parts = (0..n).map(|_| self.value_from_words(et, words, next)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), t)
            }
            Type::Struct { fields, .. } => {
                let parts =
                    fields.iter().map(|(_, ft)| self.value_from_words(*ft, words, next)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), t)
            }
            _ => return self.error(format!("`createDynamicObject` cannot unpack a `{}`", self.show(t))),
        })
    }

    /// The instance of `def` a call makes: the generic arguments of its
    /// type from `owner` (the receiver's type), its own from the explicit
    /// ones and the argument types (those of the primal arguments, for a
    /// derivative of order `order`).
    fn instance_of(
        &mut self,
        def: DefId,
        owner: &Ty,
        explicit: &[hir::GenericArgRef],
        args: &[ExprId],
        order: usize,
    ) -> R<FuncId> {
        let inst = self.instance(def, owner, explicit, args, order)?;
        self.m.declare_function(inst, false)
    }

    /// The instance [`Self::instance_of`] declares.
    fn instance(
        &mut self,
        def: DefId,
        owner: &Ty,
        explicit: &[hir::GenericArgRef],
        args: &[ExprId],
        order: usize,
    ) -> R<Instance> {
        let db = self.m.db;
        let mut bindings = HashMap::new();
        if let (Ty::Adt { def: o, args: owner_args, .. }, Some(s)) = (owner, owner_struct(db, def)) {
            if *o == s {
                let names = item_of(db, s).map(|i| i.generic_params.clone()).unwrap_or_default();
                for (g, a) in names.iter().zip(owner_args) {
                    if let Some(n) = &g.name {
                        bindings.insert(n.clone(), a.clone());
                    }
                }
                // `extension<U> S<U>`: `U` is the receiver's argument.
                let parent =
                    parent_of(db, def).filter(|&p| item_of(db, p).is_some_and(|i| i.kind == ItemKind::Extension));
                if let Some(Ty::Adt { args: pattern, .. }) = parent.map(|p| DeclCtx::for_def(db, p).this) {
                    for (p, a) in pattern.iter().zip(owner_args) {
                        if let Ty::Param { name, .. } = p {
                            bindings.insert(name.clone(), a.clone());
                        }
                    }
                }
            }
        }
        if !fn_sig(db, def).generic_params.is_empty() {
            let explicit: Vec<Ty> = explicit
                .iter()
                .map(|a| match a {
                    hir::GenericArgRef::Type(t) => self.ctx.resolve(t),
                    hir::GenericArgRef::Value(Some(v)) => Ty::Const(*v),
                    hir::GenericArgRef::Value(None) => Ty::Unknown,
                })
                .collect();
            let arg_tys: Vec<Ty> = args
                .iter()
                .map(|a| {
                    let mut t = self.inferred.expr_types.get(a.0 as usize).cloned().unwrap_or(Ty::Unknown);
                    for _ in 0..order {
                        match t {
                            Ty::Adt { name, args, .. } if name == "DifferentialPair" && args.len() == 1 => {
                                t = args[0].clone()
                            }
                            _ => break,
                        }
                    }
                    t
                })
                .collect();
            bindings.extend(call_bindings(db, def, &arg_tys, &explicit));
        }
        let mut inst = Instance::new(db, def, &bindings);
        let mut ctx = DeclCtx::specialized(db, def, &bindings);
        for (i, p) in fn_sig(db, def).params.iter().enumerate() {
            let pty = ctx.resolve(&p.ty);
            let Some(&arg) = args.get(i) else { continue };
            if globals::resource_of(&pty).is_some() {
                let g = self.resource_global(arg)?;
                inst.resources.push((i as u32, String::new(), g));
            } else {
                self.struct_resources_of(&mut inst, i as u32, arg, &pty)?;
            }
        }
        Ok(inst)
    }

    /// Specialize the method instance `inst` to the buffers its receiver
    /// (of type `owner`, stored at `root`) holds.
    fn this_resources(&mut self, inst: &mut Instance, root: Option<(ValueId, String)>, owner: &Ty) {
        let Some((root, prefix)) = root else { return };
        let paths = self.m.resource_fields(owner);
        for (p, g) in self.bound_under(root, &prefix, paths) {
            inst.resources.push((THIS_PARAM, p, g));
        }
    }

    /// Specialize `inst` to the buffers the struct argument `arg` (of
    /// parameter `index`, of type `ty`) holds.
    fn struct_resources_of(&mut self, inst: &mut Instance, index: u32, arg: ExprId, ty: &Ty) -> R<()> {
        let paths = self.m.resource_fields(ty);
        if paths.is_empty() {
            return Ok(());
        }
        for (p, g) in self.struct_resources(arg, ty, None, paths)? {
            inst.resources.push((index, p, g));
        }
        Ok(())
    }

    /// The arguments of a call of `f` without those bound to buffers.
    fn without_buffer_args(&self, f: FuncId, args: Vec<CallArg>) -> Vec<CallArg> {
        match self.m.buffer_args.get(&f) {
            Some(dropped) => {
                args.into_iter().enumerate().filter(|(i, _)| !dropped.contains(&(*i as u32))).map(|(_, a)| a).collect()
            }
            None => args,
        }
    }

    /// The `__init` a constructor call `T(args)` of a struct with
    /// initializers runs (`None`: other types, and member-wise
    /// construction).
    fn initializer(&mut self, t: &Ty, args: &[ExprId]) -> R<Option<FuncId>> {
        match self.initializer_def(t, args)? {
            Some(init) => self.instance_of(init, t, &[], args, 0).map(Some),
            None => Ok(None),
        }
    }

    /// The `__init` of the user struct `t` a call `T(args)` calls, if it
    /// has any.
    fn initializer_def(&mut self, t: &Ty, args: &[ExprId]) -> R<Option<DefId>> {
        let db = self.db();
        let Ty::Adt { def, .. } = t else { return Ok(None) };
        if slang_analysis::core_files(db).contains(&def.file(db)) {
            return Ok(None);
        }
        let inits: Vec<DefId> = item_of(db, *def)
            .iter()
            .flat_map(|i| i.members.iter())
            .filter(|m| m.kind == ItemKind::Init)
            .map(|m| DefId::new(db, def.file(db), m.ast_index))
            .collect();
        if inits.is_empty() {
            return Ok(None);
        }
        self.pick_overload(&inits, args, "__init").map(Some)
    }

    fn pick_overload(&mut self, defs: &[DefId], args: &[ExprId], name: &str) -> R<DefId> {
        let db = self.db();
        let mut arity: Vec<DefId> =
            defs.iter().copied().filter(|&d| fn_sig(db, d).params.len() == args.len()).collect();
        if arity.is_empty() {
            // Trailing parameters with default values left out.
            arity = defs
                .iter()
                .copied()
                .filter(|&d| {
                    let sig = fn_sig(db, d);
                    sig.params.len() > args.len() && sig.has_defaults[args.len()..].iter().all(|&h| h)
                })
                .collect();
        }
        let arg_tys: Vec<Ty> =
            args.iter().map(|a| self.inferred.expr_types.get(a.0 as usize).cloned().unwrap_or(Ty::Unknown)).collect();
        // Prefer the overload whose parameter types match the most
        // arguments exactly.
        let score = |d: DefId| {
            let mut ctx = DeclCtx::for_def(db, d);
            fn_sig(db, d).params.iter().zip(&arg_tys).filter(|(p, a)| ctx.resolve(&p.ty) == **a).count()
        };
        let best = arity.iter().copied().max_by_key(|&d| score(d));
        match best {
            Some(d) => Ok(d),
            None => self.error(format!("no overload of `{name}` takes {} arguments", args.len())),
        }
    }

    /// The default values of `def`'s parameters after the first `given`
    /// (constants: literals and constructors of them).
    fn default_args(&mut self, def: DefId, given: usize) -> R<Vec<CallArg>> {
        let db = self.m.db;
        let params: Vec<ast::Param> = def_node(db, def)
            .and_then(|n| n.children().find_map(ast::ParamList::cast))
            .map(|l| l.params().collect())
            .unwrap_or_default();
        let sig = fn_sig(db, def).clone();
        let mut out = Vec::new();
        for (p, hp) in params.iter().zip(&sig.params).skip(given) {
            let Some(value) = p.default_value() else {
                return self.error("a parameter without a default value is missing");
            };
            let pt = DeclCtx::for_def(db, def).resolve(&hp.ty);
            let at = Some(value.syntax().text_range());
            let t = self.m.lower_ty(&pt, at)?;
            match self.m.const_value(&value, t) {
                Ok(c) => out.push(CallArg::Value(self.const_to_value(&c, t))),
                Err(_) => {
                    // Computed by a function of its own, called here.
                    if !sig.generic_params.is_empty() {
                        return err(at, "a default value of a generic function that is not a constant is not supported by code generation yet");
                    }
                    let k = sig.params.iter().position(|q| std::ptr::eq(q, hp)).expect("a parameter of the function");
                    let f = self.m.default_function(def, k, t, at)?;
                    let v = self.emit(Op::Call(f, Vec::new()), t);
                    out.push(CallArg::Value(v));
                }
            }
        }
        Ok(out)
    }

    /// `fwd_diff(f)(args)`, `fwd_diff(fwd_diff(f))(args)`: a call of the
    /// forward derivative (generated on request).
    ///
    /// For a method, `fwd_diff(S.method)` takes the pair of `this` as its
    /// first argument; `fwd_diff(obj.method)` (and a method of `this`
    /// named alone) passes the receiver, with a zero derivative.
    fn derivative_call(
        &mut self,
        e: ExprId,
        callee: ExprId,
        defs: &[DefId],
        modes: &[bool],
        args: &[ExprId],
    ) -> R<ValueId> {
        // (Modes from the innermost operator out.)
        let db = self.db();
        let mut operand = callee;
        while let Expr::Diff { func, .. } = self.body.expr(operand) {
            operand = *func;
        }
        let operand_expr = self.body.expr(operand).clone();
        let (owner, receiver, explicit) = match &operand_expr {
            Expr::Member { receiver, generic_args, .. } => {
                match self.inferred.expr_types.get(receiver.0 as usize).cloned().unwrap_or(Ty::Unknown) {
                    Ty::TypeValue(t) => ((*t).clone(), None, generic_args.clone()),
                    t => (t, Some(CallArg::Expr(*receiver)), generic_args.clone()),
                }
            }
            Expr::Path(segs, _) => {
                let this = self.this_ptr().map(CallArg::Place);
                (self.ctx.this.clone(), this, segs.last().map(|s| s.args.clone()).unwrap_or_default())
            }
            _ => (Ty::Unknown, None, Vec::new()),
        };
        let modes_of: Vec<Mode> = modes.iter().map(|&f| if f { Mode::Forward } else { Mode::Backward }).collect();
        let explicit_this = |d: DefId| receiver.is_none() && is_instance_method(db, d);
        let arg_tys: Vec<Ty> =
            args.iter().map(|a| self.inferred.expr_types.get(a.0 as usize).cloned().unwrap_or(Ty::Unknown)).collect();
        // Among the overloads taking as many arguments, the one whose
        // derivative's parameter types match the most arguments exactly.
        let fit = |d: DefId| {
            let mut sig = higher_order_signature(db, d, &modes_of);
            if explicit_this(d) {
                if let Some(t) = sig.this_param.take() {
                    sig.params.insert(0, t);
                }
            }
            (sig.params.len() == args.len())
                .then(|| sig.params.iter().zip(&arg_tys).filter(|(p, a)| p.ty == **a).count())
        };
        let Some(def) = defs
            .iter()
            .copied()
            .filter_map(|d| fit(d).map(|score| (d, score)))
            .rev()
            .max_by_key(|&(_, score)| score)
            .map(|(d, _)| d)
            .or(defs.first().copied())
        else {
            return self.error("no function to differentiate");
        };
        let implicit_this = is_instance_method(db, def) && receiver.is_some();
        // The arguments of the primal: a `this` passed explicitly is the
        // first argument.
        let primal_args = match (is_instance_method(db, def), implicit_this) {
            (true, false) => args.get(1..).unwrap_or_default(),
            _ => args,
        };
        let mut f = if slang_analysis::core_files(db).contains(&def.file(db)) {
            self.builtin_to_differentiate(def, modes, args, e)?
        } else {
            self.instance_of(def, &owner, &explicit, primal_args, modes.len())?
        };
        // Buffer arguments are bound in the primal, not passed.
        let dropped = self.m.buffer_args.get(&f).cloned().unwrap_or_default();
        let offset = args.len() - primal_args.len();
        for &forward in modes {
            let ModuleLowerer { module, requests, .. } = &mut *self.m;
            f = match forward {
                true => forward_derivative(module, requests, f),
                false => crate::autodiff::rev::backward_derivative(module, requests, f),
            }
            .or_else(|m| self.error(m))?;
        }
        let mut all: Vec<CallArg> = Vec::new();
        if let (true, Some(r)) = (implicit_this, receiver) {
            let this = self.m.module.function(f).params.first().map(|p| (p.ty, p.dir));
            let Some((this_ty, ParamDir::In)) = this else {
                return self.error("`fwd_diff` of a `[mutating]` method needs the type's method and a pair for `this`");
            };
            let v = match *self.ty(this_ty) {
                // The receiver, with a zero derivative.
                Type::DifferentialPair { primal, diff } => {
                    let p = self.arg_value(r, primal)?;
                    let d = self.zero(diff)?;
                    self.emit(Op::Construct(vec![p, d]), this_ty)
                }
                _ => self.arg_value(r, this_ty)?,
            };
            all.push(CallArg::Value(v));
        }
        all.extend(
            args.iter()
                .enumerate()
                .filter(|&(j, _)| j < offset || !dropped.contains(&((j - offset) as u32)))
                .map(|(_, &a)| CallArg::Expr(a)),
        );
        self.call_function(f, &all)
    }

    /// The built-in function `def` as a function to differentiate `order`
    /// times, its types read from the call's (pair) argument types.
    fn builtin_to_differentiate(&mut self, def: DefId, modes: &[bool], args: &[ExprId], e: ExprId) -> R<FuncId> {
        let order = modes.len();
        let name = item_of(self.db(), def).and_then(|i| i.name.clone()).unwrap_or_default();
        // `bwd_diff(f)(x…, dOut)`: the primal's arguments, then the
        // result's derivative (whose type is the result's).
        let backward = modes.contains(&false);
        let (args, d_out) = match (backward, args.split_last()) {
            (true, Some((&d, rest))) => (rest, Some(d)),
            _ => (args, None),
        };
        let Some(i) = Intrinsic::from_name(&name).filter(|i| i.arity() == args.len()) else {
            let operator = if backward { "bwd_diff" } else { "fwd_diff" };
            return self.error(format!("`{operator}` of the built-in function `{name}` is not supported yet"));
        };
        let primal = |this: &mut Self, mut t: TypeId| {
            for _ in 0..order {
                match *this.ty(t) {
                    Type::DifferentialPair { primal, .. } => t = primal,
                    _ => break,
                }
            }
            t
        };
        let mut params = Vec::new();
        for &a in args {
            let t = self.expr_ty(a)?;
            params.push(primal(self, t));
        }
        let result = match d_out {
            Some(d) => self.expr_ty(d),
            None => self.expr_ty(e),
        };
        let ret = match result {
            Ok(t) => primal(self, t),
            // Inference may not know a generic built-in's result: that of
            // the element-wise functions is their argument's type.
            Err(_) => match (i, params.first()) {
                (Intrinsic::Dot | Intrinsic::Length | Intrinsic::Distance | Intrinsic::Determinant, Some(&p)) => {
                    let s = self.m.module.types.scalar_of(p).unwrap_or(Scalar::Float);
                    self.t(Type::Scalar(s))
                }
                (Intrinsic::Mul | Intrinsic::Transpose, _) | (_, None) => {
                    return self.error(format!("the result type of `{name}` here is not known"))
                }
                (_, Some(&p)) => p,
            },
        };
        Ok(self.m.intrinsic_function(i, params, ret))
    }

    /// `a + b` (`T.dadd`) or `a * b` for a scalar `a` (`T.dmul`) on
    /// differentials of type `ty`.
    fn differential_combine(&mut self, op: BinaryOp, a: ValueId, b: ValueId, ty: TypeId) -> R<ValueId> {
        let block = self.block();
        let mut e =
            crate::autodiff::rules::Emit { types: &mut self.m.module.types, b: &mut self.b, block, span: self.span };
        match e.combine(op, a, b, ty) {
            Some(v) => Ok(v),
            None => self.error(format!("`{}` is not a differential type", self.show(ty))),
        }
    }

    /// `pair.getPrimal()`, `pair.getDifferential()`, `T.dzero()`,
    /// `T.dadd(a, b)`, `T.dmul(s, a)`.
    fn method_call(&mut self, e: ExprId, receiver: ExprId, name: &str, args: &[ExprId]) -> R<ValueId> {
        let receiver_ty = self.inferred.expr_types.get(receiver.0 as usize).cloned().unwrap_or(Ty::Unknown);
        // `T.Differential.dzero()`, `.dadd(a, b)`: the differential is its
        // own differential.
        if let (Expr::Member { receiver: of, name: member, .. }, "dzero" | "dadd" | "dmul") =
            (self.body.expr(receiver).clone(), name)
        {
            if let (Some(Ty::TypeValue(t)), "Differential") =
                (self.inferred.expr_types.get(of.0 as usize).cloned(), member.as_str())
            {
                let at = self.span;
                let t = self.m.lower_ty(&t, at)?;
                let Some(d) = self.m.module.types.differential(t) else {
                    return self.error(format!("`{}` is not differentiable", self.show(t)));
                };
                return match (name, args) {
                    ("dzero", []) => self.zero(d),
                    ("dadd", [a, b]) => {
                        let (x, y) = (self.expr_expecting(*a, d)?, self.expr_expecting(*b, d)?);
                        self.differential_combine(BinaryOp::Add, x, y, d)
                    }
                    ("dmul", [a, b]) => {
                        let (s, y) = (self.expr(*a)?, self.expr_expecting(*b, d)?);
                        self.differential_combine(BinaryOp::Mul, s, y, d)
                    }
                    _ => self.error(format!("wrong arguments for `{name}`")),
                };
            }
        }
        match (receiver_ty, name, args) {
            (Ty::TypeValue(t), "dzero", []) => {
                let at = self.span;
                let t = self.m.lower_ty(&t, at)?;
                match self.m.module.types.differential(t) {
                    Some(d) => self.zero(d),
                    None => self.error(format!("`{}` is not differentiable", self.show(t))),
                }
            }
            (Ty::TypeValue(t), "dadd" | "dmul", [a, b]) => {
                let at = self.span;
                let t = self.m.lower_ty(&t, at)?;
                let Some(d) = self.m.module.types.differential(t) else {
                    return self.error(format!("`{}` is not differentiable", self.show(t)));
                };
                let y = self.expr_expecting(*b, d)?;
                if name == "dadd" {
                    let x = self.expr_expecting(*a, d)?;
                    self.differential_combine(BinaryOp::Add, x, y, d)
                } else {
                    let s = self.expr(*a)?;
                    self.differential_combine(BinaryOp::Mul, s, y, d)
                }
            }
            // `T.Differential(…)`: the synthesized differential's
            // memberwise constructor.
            (Ty::TypeValue(t), "Differential", args) => {
                let at = self.span;
                let t = self.m.lower_ty(&t, at)?;
                let Some(d) = self.m.module.types.differential(t) else {
                    return self.error(format!("`{}` is not differentiable", self.show(t)));
                };
                self.construct(d, args)
            }
            (Ty::Adt { name: n, .. }, "getPrimal" | "getDifferential", []) if n == "DifferentialPair" => {
                let pair = self.expr(receiver)?;
                let Type::DifferentialPair { primal, diff } = *self.ty(self.ty_of(pair)) else {
                    return self.error("not a differential pair");
                };
                let (index, t) = if name == "getPrimal" { (0, primal) } else { (1, diff) };
                Ok(self.emit(Op::Extract(pair, index), t))
            }
            // `T.getPi()` of a floating-point type (a generic parameter
            // bound to one).
            (Ty::TypeValue(t), "getPi", []) if matches!(*t, Ty::Scalar(s) if s.is_float()) => {
                let at = self.span;
                let t = self.m.lower_ty(&t, at)?;
                Ok(self.float_like(std::f64::consts::PI, t))
            }
            // `F.Value(…)`: constructing a type named through another
            // (an associated type of a generic parameter, say).
            (Ty::TypeValue(_), _, _) if matches!(self.body.expr(receiver), Expr::Path(..)) => {
                let Expr::Path(mut segs, _) = self.body.expr(receiver).clone() else { unreachable!("a path") };
                segs.push(hir::PathSegment { name: name.to_string(), args: Vec::new() });
                match self.ctx.resolve(&TypeRef::Path(segs)) {
                    Ty::Unknown | Ty::Assoc(..) | Ty::Param { .. } => {
                        self.error(format!("`{name}` is not a type or method that code generation knows here"))
                    }
                    t => {
                        let at = self.span;
                        let t = self.m.lower_ty(&t, at)?;
                        self.construct(t, args)
                    }
                }
            }
            // `arr.getCount()` of a fixed-size array (an `int`).
            (Ty::Array(_, Some(n)), "getCount", []) => {
                let t = self.t(Type::Scalar(Scalar::Int32));
                Ok(self.konst(Const::Int(n as i64), t))
            }
            (Ty::Scalar(_) | Ty::Vector(..), _, _) if self.numeric_method(name, args.len()) => {
                self.numeric_method_call(e, receiver, name, args)
            }
            _ => match self.buffer_method(e, receiver, name, args)? {
                Some(v) => Ok(v),
                None => match self.texture_method(e, receiver, name, args)? {
                    Some(v) => Ok(v),
                    None => self.error("method calls are not supported by code generation yet"),
                },
            },
        }
    }

    /// The methods the core interfaces (`IArithmetic`, `IFloat`,
    /// `IInteger`, `IComparable`) give numbers, which generic code calls.
    fn numeric_method(&self, name: &str, arity: usize) -> bool {
        matches!(
            (name, arity),
            ("toFloat" | "toInt" | "toUInt" | "toInt64" | "toUInt64" | "toHalf" | "toDouble" | "neg", 0)
                | ("add" | "sub" | "mul" | "div" | "mod" | "lessThan" | "lessThanOrEquals" | "equals", 1)
        )
    }

    /// `x.toFloat()`, `x.add(y)`, `x.lessThan(y)` … on a number.
    fn numeric_method_call(&mut self, e: ExprId, receiver: ExprId, name: &str, args: &[ExprId]) -> R<ValueId> {
        let x = self.expr(receiver)?;
        let xt = self.ty_of(x);
        // (The analysis may not type these calls in generic code.)
        let result = match self.expr_ty(e) {
            Ok(t) => t,
            Err(_) => {
                let s = match name {
                    "toFloat" => Some(Scalar::Float),
                    "toHalf" => Some(Scalar::Half),
                    "toDouble" => Some(Scalar::Double),
                    "toInt" => Some(Scalar::Int32),
                    "toUInt" => Some(Scalar::UInt32),
                    "toInt64" => Some(Scalar::Int64),
                    "toUInt64" => Some(Scalar::UInt64),
                    "lessThan" | "lessThanOrEquals" | "equals" => Some(Scalar::Bool),
                    _ => None,
                };
                match s {
                    Some(s) => self.with_scalar(xt, s),
                    None => xt,
                }
            }
        };
        let binary = |op: BinaryOp, this: &mut Self| -> R<ValueId> {
            let y = this.expr_expecting(args[0], xt)?;
            let v = this.arith(op, x, y)?;
            this.coerce(v, result)
        };
        match name {
            "add" => binary(BinaryOp::Add, self),
            "sub" => binary(BinaryOp::Sub, self),
            "mul" => binary(BinaryOp::Mul, self),
            "div" => binary(BinaryOp::Div, self),
            "mod" => binary(BinaryOp::Rem, self),
            "lessThan" => binary(BinaryOp::Lt, self),
            "lessThanOrEquals" => binary(BinaryOp::Le, self),
            "equals" => binary(BinaryOp::Eq, self),
            "neg" => Ok(self.emit(Op::Unary(UnaryOp::Neg, x), xt)),
            // Conversions.
            _ => self.coerce(x, result),
        }
    }

    /// The value `v` with its derivative dropped.
    fn detach(&mut self, v: ValueId) -> ValueId {
        let t = self.ty_of(v);
        if matches!(self.ty(t), Type::Void) {
            return v;
        }
        self.emit(Op::Detach(v), t)
    }

    /// The value of a call argument, as type `t`.
    fn arg_value(&mut self, a: CallArg, t: TypeId) -> R<ValueId> {
        match a {
            CallArg::Expr(e) => self.expr_expecting(e, t),
            CallArg::Place(p) => {
                let v = self.load(p);
                self.coerce(v, t)
            }
            CallArg::Value(v) => self.coerce(v, t),
        }
    }

    fn call_function(&mut self, f: FuncId, args: &[CallArg]) -> R<ValueId> {
        if let Some((_, name)) = self.m.lowering.iter().find(|l| l.0 == f) {
            return self.error(format!("recursion: `{name}` calls itself, and GPU targets do not allow recursion"));
        }
        let params = self.m.module.function(f).params.clone();
        let ret = self.m.module.function(f).ret;
        if params.len() != args.len() {
            return self.error(format!("{} arguments for {} parameters", args.len(), params.len()));
        }
        let mut values = Vec::new();
        // Copy-out after the call: (temporary, argument).
        let mut copy_out = Vec::new();
        for (p, &a) in params.iter().zip(args) {
            match p.dir {
                ParamDir::In => values.push(self.arg_value(a, p.ty)?),
                ParamDir::Out | ParamDir::InOut => {
                    let (t, _) = self.m.module.types.pointee(p.ty).expect("out parameters are pointers");
                    let tmp = self.var(t);
                    if p.dir == ParamDir::InOut {
                        let v = self.arg_value(a, t)?;
                        self.store(tmp, v);
                    }
                    values.push(tmp);
                    copy_out.push((tmp, a));
                }
            }
        }
        let result = self.emit(Op::Call(f, values), ret);
        for (tmp, a) in copy_out {
            let mut v = self.load(tmp);
            if self.no_diff {
                v = self.detach(v);
            }
            match a {
                CallArg::Expr(a) => {
                    let at = self.expr_ty(a)?;
                    let v = self.coerce(v, at)?;
                    self.assign_to(a, v)?;
                }
                CallArg::Place(p) => self.store(p, v),
                CallArg::Value(_) => {}
            }
        }
        Ok(result)
    }

    /// `T(args)`: a conversion or a constructor.
    fn construct(&mut self, t: TypeId, args: &[ExprId]) -> R<ValueId> {
        match self.ty(t).clone() {
            Type::Scalar(_) => match args {
                [a] => self.expr_expecting(*a, t),
                _ => self.error("a scalar conversion takes one value"),
            },
            Type::Vector(s, n) => {
                let mut parts = Vec::new();
                let mut count = 0u8;
                for &a in args {
                    let v = self.expr(a)?;
                    let part_ty = match *self.ty(self.ty_of(v)) {
                        Type::Vector(_, m) => {
                            count += m;
                            self.t(Type::Vector(s, m))
                        }
                        _ => {
                            count += 1;
                            self.t(Type::Scalar(s))
                        }
                    };
                    parts.push(self.coerce(v, part_ty)?);
                }
                match (parts.as_slice(), count) {
                    ([one], 1) if n > 1 => Ok(self.emit(Op::Splat(*one), t)),
                    ([one], _) if count == n => Ok(*one),
                    _ if count == n => Ok(self.emit(Op::Construct(parts), t)),
                    ([one], _) if count > n => self.coerce(*one, t),
                    _ => self.error(format!("{count} components for a `{}`", self.show(t))),
                }
            }
            Type::Matrix { scalar, rows, cols } => {
                let row = self.t(Type::Vector(scalar, cols));
                let st = self.t(Type::Scalar(scalar));
                if args.len() == rows as usize {
                    let parts = args.iter().map(|&a| self.expr_expecting(a, row)).collect::<R<Vec<_>>>()?;
                    Ok(self.emit(Op::Construct(parts), t))
                } else if args.len() == (rows * cols) as usize {
                    let scalars = args.iter().map(|&a| self.expr_expecting(a, st)).collect::<R<Vec<_>>>()?;
                    let rows_v: Vec<ValueId> =
                        scalars.chunks(cols as usize).map(|c| self.emit(Op::Construct(c.to_vec()), row)).collect();
                    Ok(self.emit(Op::Construct(rows_v), t))
                } else if let [one] = args {
                    self.expr_expecting(*one, t)
                } else {
                    self.error(format!("{} values for a `{}`", args.len(), self.show(t)))
                }
            }
            Type::Struct { .. } | Type::Array(..) => self.init_list(args, t),
            Type::DifferentialPair { primal, diff } => self.make_pair(primal, diff, args, t),
            _ => self.error(format!("cannot construct a `{}`", self.show(t))),
        }
    }

    /// `DifferentialPair<T>(p, d)`, `diffPair(p, d)`, `diffPair(p)` (a
    /// zero derivative).
    fn make_pair(&mut self, primal: TypeId, diff: TypeId, args: &[ExprId], t: TypeId) -> R<ValueId> {
        let (p, d) = match args {
            [p] => (self.expr_expecting(*p, primal)?, self.zero(diff)?),
            [p, d] => (self.expr_expecting(*p, primal)?, self.expr_expecting(*d, diff)?),
            _ => return self.error("a differential pair is built from a primal and a derivative"),
        };
        Ok(self.emit(Op::Construct(vec![p, d]), t))
    }

    /// The core module's autodiff functions: `diffPair`, `detach`,
    /// `updatePrimal`, `updateDiff`, `updatePair`.
    fn autodiff_builtin(&mut self, e: ExprId, name: &str, args: &[ExprId]) -> R<Option<ValueId>> {
        Ok(Some(match (name, args) {
            ("diffPair", _) => {
                let t = self.expr_ty(e)?;
                let Type::DifferentialPair { primal, diff } = *self.ty(t) else { return self.error("not a pair") };
                self.make_pair(primal, diff, args, t)?
            }
            ("detach", [x]) => {
                let t = self.expr_ty(e)?;
                let v = self.expr_expecting(*x, t)?;
                self.detach(v)
            }
            ("updatePrimal" | "updateDiff" | "updatePair", [pair, rest @ ..]) => {
                let t = self.expr_ty(*pair)?;
                let Type::DifferentialPair { primal, diff } = *self.ty(t) else { return self.error("not a pair") };
                let old = self.expr(*pair)?;
                let (p, d) = match (name, rest) {
                    ("updatePrimal", [p]) => (self.expr_expecting(*p, primal)?, self.emit(Op::Extract(old, 1), diff)),
                    ("updateDiff", [d]) => (self.emit(Op::Extract(old, 0), primal), self.expr_expecting(*d, diff)?),
                    ("updatePair", [p, d]) => (self.expr_expecting(*p, primal)?, self.expr_expecting(*d, diff)?),
                    _ => return self.error(format!("wrong arguments for `{name}`")),
                };
                let new = self.emit(Op::Construct(vec![p, d]), t);
                self.assign_to(*pair, new)?;
                new
            }
            _ => return Ok(None),
        }))
    }

    /// A float constant of `ty`'s shape (splatted for vectors).
    fn float_like(&mut self, x: f64, ty: TypeId) -> ValueId {
        let s = self.m.module.types.scalar_of(ty).unwrap_or(Scalar::Float);
        let st = self.t(Type::Scalar(s));
        let k = self.konst(Const::Float(x), st);
        if st == ty {
            k
        } else {
            self.emit(Op::Splat(k), ty)
        }
    }

    /// The built-ins with `out` parameters, written with others (so their
    /// derivatives follow): `sincos(x, s, c)`, `modf(x, ip)` (the fraction,
    /// with `x`'s sign; `ip = trunc(x)`), `frexp(x, e)` (`x = m 2^e` with
    /// `0.5 <= |m| < 1`; 0 for 0).
    fn out_param_builtin(&mut self, name: &str, args: &[ExprId]) -> R<Option<ValueId>> {
        use BinaryOp::{Mul, Sub};
        let (x, outs) = match (name, args) {
            ("sincos", [x, s, c]) => (*x, vec![*s, *c]),
            ("modf" | "frexp", [x, o]) => (*x, vec![*o]),
            _ => return Ok(None),
        };
        let v = self.expr(x)?;
        let t = self.ty_of(v);
        let t = match self.m.module.types.scalar_of(t) {
            Some(s) if s.is_float() => t,
            _ => self.with_scalar(t, Scalar::Float),
        };
        let v = self.coerce(v, t)?;
        let store = |this: &mut Self, target: ExprId, value: ValueId| -> R<()> {
            let tt = this.expr_ty(target)?;
            let value = this.coerce(value, tt)?;
            this.assign_to(target, value)
        };
        Ok(Some(match name {
            "sincos" => {
                let sin = self.emit(Op::Intrinsic(Intrinsic::Sin, vec![v]), t);
                let cos = self.emit(Op::Intrinsic(Intrinsic::Cos, vec![v]), t);
                store(self, outs[0], sin)?;
                store(self, outs[1], cos)?;
                // (`void`: nothing reads the call's value.)
                cos
            }
            "modf" => {
                let ip = self.emit(Op::Intrinsic(Intrinsic::Trunc, vec![v]), t);
                store(self, outs[0], ip)?;
                self.emit(Op::Binary(Sub, v, ip), t)
            }
            _ => {
                // e = floor(log2|x|) + 1, m = x 2^-e; x = 0 gives 0 and 0.
                let abs = self.emit(Op::Intrinsic(Intrinsic::Abs, vec![v]), t);
                let l = self.emit(Op::Intrinsic(Intrinsic::Log2, vec![abs]), t);
                let f = self.emit(Op::Intrinsic(Intrinsic::Floor, vec![l]), t);
                let one = self.float_like(1.0, t);
                let e = self.emit(Op::Binary(BinaryOp::Add, f, one), t);
                let zero = self.float_like(0.0, t);
                let bt = self.with_scalar(t, Scalar::Bool);
                let is_zero = self.emit(Op::Binary(BinaryOp::Eq, v, zero), bt);
                let e = self.emit(Op::Select(is_zero, zero, e), t);
                let ne = self.emit(Op::Unary(UnaryOp::Neg, e), t);
                let p = self.emit(Op::Intrinsic(Intrinsic::Exp2, vec![ne]), t);
                let m = self.emit(Op::Binary(Mul, v, p), t);
                store(self, outs[0], e)?;
                m
            }
        }))
    }

    /// `isnan`, `isinf`, `isfinite` (element-wise; written with
    /// comparisons, as WGSL has no such functions).
    fn float_tests(&mut self, e: ExprId, name: &str, args: &[ExprId]) -> R<Option<ValueId>> {
        let ([x], "isnan" | "isinf" | "isfinite") = (args, name) else { return Ok(None) };
        let result = self.expr_ty(e)?;
        let v = self.expr(*x)?;
        let vt = self.ty_of(v);
        let ft = match self.m.module.types.scalar_of(vt) {
            Some(s) if s.is_float() => vt,
            _ => self.with_scalar(vt, Scalar::Float),
        };
        let v = self.coerce(v, ft)?;
        let bt = self.with_scalar(ft, Scalar::Bool);
        // On the bits (a comparison `x != x` may be folded away by drivers
        // that assume no NaN): exponent all ones, and a zero (infinity) or
        // non-zero (NaN) fraction.
        let ut = self.with_scalar(ft, Scalar::UInt32);
        let bits = self.emit(Op::Intrinsic(Intrinsic::AsUint, vec![v]), ut);
        let uconst = |this: &mut Self, k: i64| {
            let st = this.t(Type::Scalar(Scalar::UInt32));
            let c = this.konst(Const::Int(k), st);
            if st == ut {
                c
            } else {
                this.emit(Op::Splat(c), ut)
            }
        };
        let (mask, exp) = (uconst(self, 0x7fff_ffff), uconst(self, 0x7f80_0000));
        let r = match name {
            "isnan" | "isinf" => {
                let m = self.emit(Op::Binary(BinaryOp::BitAnd, bits, mask), ut);
                let op = if name == "isnan" { BinaryOp::Gt } else { BinaryOp::Eq };
                self.emit(Op::Binary(op, m, exp), bt)
            }
            _ => {
                let m = self.emit(Op::Binary(BinaryOp::BitAnd, bits, exp), ut);
                self.emit(Op::Binary(BinaryOp::Ne, m, exp), bt)
            }
        };
        Ok(Some(self.coerce(r, result)?))
    }

    /// Built-in functions written with the ones the backends have (so
    /// their derivatives follow from the parts'): `log10`, `exp10`, `rcp`,
    /// `degrees`, `radians`, `fma`, `fmin`/`fmax`, `asinh`/`acosh`/`atanh`,
    /// `sinpi`/`cospi`/`tanpi`.
    fn expanded_intrinsic(&mut self, e: ExprId, name: &str, args: &[ExprId]) -> R<Option<ValueId>> {
        use BinaryOp::{Add, Div, Mul, Sub};
        use Intrinsic as I;
        let arity = match name {
            "log10" | "exp10" | "rcp" | "degrees" | "radians" | "asinh" | "acosh" | "atanh" | "sinpi" | "cospi"
            | "tanpi" => 1,
            "fmin" | "fmax" | "ldexp" => 2,
            "fma" => 3,
            _ => return Ok(None),
        };
        if args.len() != arity {
            return Ok(None);
        }
        let t = self.expr_ty(e)?;
        if !self.m.module.types.scalar_of(t).is_some_and(|s| s.is_float()) {
            return Ok(None);
        }
        let a = args.iter().map(|&a| self.expr_expecting(a, t)).collect::<R<Vec<_>>>()?;
        let x = a[0];
        let scaled = |this: &mut Self, k: f64, v: ValueId| {
            let k = this.float_like(k, t);
            this.emit(Op::Binary(Mul, v, k), t)
        };
        let pi = std::f64::consts::PI;
        Ok(Some(match name {
            "log10" => {
                let l = self.emit(Op::Intrinsic(I::Log2, vec![x]), t);
                scaled(self, std::f64::consts::LOG10_2, l)
            }
            "exp10" => {
                let y = scaled(self, std::f64::consts::LOG2_10, x);
                self.emit(Op::Intrinsic(I::Exp2, vec![y]), t)
            }
            "rcp" => {
                let one = self.float_like(1.0, t);
                self.emit(Op::Binary(Div, one, x), t)
            }
            "degrees" => scaled(self, 180.0 / pi, x),
            "radians" => scaled(self, pi / 180.0, x),
            "fma" => self.emit(Op::Intrinsic(I::Mad, a), t),
            // `x * 2^e`
            "ldexp" => {
                let p = self.emit(Op::Intrinsic(I::Exp2, vec![a[1]]), t);
                self.emit(Op::Binary(Mul, x, p), t)
            }
            "fmin" => self.emit(Op::Intrinsic(I::Min, a), t),
            "fmax" => self.emit(Op::Intrinsic(I::Max, a), t),
            "asinh" | "acosh" => {
                // log(x + sqrt(x² ± 1))
                let one = self.float_like(1.0, t);
                let sq = self.emit(Op::Binary(Mul, x, x), t);
                let op = if name == "asinh" { Add } else { Sub };
                let r = self.emit(Op::Binary(op, sq, one), t);
                let r = self.emit(Op::Intrinsic(I::Sqrt, vec![r]), t);
                let s = self.emit(Op::Binary(Add, x, r), t);
                self.emit(Op::Intrinsic(I::Log, vec![s]), t)
            }
            "atanh" => {
                // log((1 + x) / (1 - x)) / 2
                let one = self.float_like(1.0, t);
                let n = self.emit(Op::Binary(Add, one, x), t);
                let d = self.emit(Op::Binary(Sub, one, x), t);
                let q = self.emit(Op::Binary(Div, n, d), t);
                let l = self.emit(Op::Intrinsic(I::Log, vec![q]), t);
                scaled(self, 0.5, l)
            }
            _ => {
                let y = scaled(self, pi, x);
                let i = match name {
                    "sinpi" => I::Sin,
                    "cospi" => I::Cos,
                    _ => I::Tan,
                };
                self.emit(Op::Intrinsic(i, vec![y]), t)
            }
        }))
    }

    /// `countof(x)`: the number of elements of a tuple or array (a
    /// constant).
    fn countof(&mut self, e: ExprId, subs: &[ExprId]) -> R<ValueId> {
        let node = self.expr_syntax(e).expect("checked");
        let keyword = node.first_token().map(|t| t.text().to_string()).unwrap_or_default();
        let sem = subs.first().and_then(|s| self.inferred.expr_types.get(s.0 as usize).cloned());
        let sem = match sem {
            Some(Ty::TypeValue(t)) => (*t).clone(),
            Some(t) => t,
            // `countof(Tuple<int, float>)`: a type.
            None => match node.children().find_map(ast::Type::cast) {
                Some(t) => self.ctx.resolve(&slang_analysis::hir::lower_type(Some(t))),
                None => Ty::Unknown,
            },
        };
        let n = match (&*keyword, &sem) {
            ("countof", Ty::Tuple(items)) => items.len() as i64,
            ("countof", Ty::Adt { name, args, .. }) if name == "Tuple" => args.len() as i64,
            ("countof", Ty::Array(_, Some(n))) => i64::from(*n),
            _ => return self.error(format!("`{keyword}` of `{sem}` is not supported by code generation yet")),
        };
        let int = self.t(Type::Scalar(Scalar::Int32));
        Ok(self.konst(Const::Int(n), int))
    }

    /// `makeTuple(a, b, …)`, `concat(t, u)`.
    fn tuple_builtin(&mut self, e: ExprId, name: &str, args: &[ExprId]) -> R<Option<ValueId>> {
        match name {
            "makeTuple" => {
                let t = self.expr_ty(e)?;
                let Type::Struct { fields, .. } = self.ty(t).clone() else { return Ok(None) };
                if fields.len() != args.len() {
                    return self.error("`makeTuple`: one value per element");
                }
                let values =
                    args.iter().zip(&fields).map(|(&a, f)| self.expr_expecting(a, f.1)).collect::<R<Vec<_>>>()?;
                Ok(Some(self.emit(Op::Construct(values), t)))
            }
            "concat" if args.len() == 2 => {
                let t = self.expr_ty(e)?;
                let mut parts = Vec::new();
                for &a in args {
                    let v = self.expr(a)?;
                    let Type::Struct { fields, .. } = self.ty(self.ty_of(v)).clone() else { return Ok(None) };
                    for (i, f) in fields.iter().enumerate() {
                        parts.push(self.emit(Op::Extract(v, i as u32), f.1));
                    }
                }
                Ok(Some(self.emit(Op::Construct(parts), t)))
            }
            _ => Ok(None),
        }
    }

    fn intrinsic(&mut self, e: ExprId, name: &str, args: &[ExprId]) -> R<ValueId> {
        if let Some(v) = self.autodiff_builtin(e, name, args)? {
            return Ok(v);
        }
        if let Some(v) = self.memory_builtin(name, args)? {
            return Ok(v);
        }
        if let Some(v) = self.atomic_builtin(name, args)? {
            return Ok(v);
        }
        if let Some(v) = self.tuple_builtin(e, name, args)? {
            return Ok(v);
        }
        if name == "fmod" && args.len() == 2 {
            // `fmod` truncates, like `%` on floats.
            let result = self.expr_ty(e)?;
            let a = self.expr_expecting(args[0], result)?;
            let b = self.expr_expecting(args[1], result)?;
            return Ok(self.emit(Op::Binary(BinaryOp::Rem, a, b), result));
        }
        if let Some(v) = self.expanded_intrinsic(e, name, args)? {
            return Ok(v);
        }
        if let Some(v) = self.float_tests(e, name, args)? {
            return Ok(v);
        }
        if let Some(v) = self.out_param_builtin(name, args)? {
            return Ok(v);
        }
        if let ("f16tof32" | "f32tof16", [x]) = (name, args) {
            // Element by element; a half's bits are the low 16 of a `uint`.
            let to_float = name == "f16tof32";
            let result = self.expr_ty(e)?;
            let n = match *self.ty(result) {
                Type::Vector(_, n) => n,
                Type::Scalar(_) => 1,
                _ => return self.error(format!("`{name}` takes a scalar or vector")),
            };
            let (from, to) = if to_float { (Scalar::UInt32, Scalar::Float) } else { (Scalar::Float, Scalar::UInt32) };
            let (from_t, to_t) = (self.t(Type::Scalar(from)), self.t(Type::Scalar(to)));
            let arg_ty = if n == 1 { from_t } else { self.t(Type::Vector(from, n)) };
            let v = self.expr_expecting(*x, arg_ty)?;
            let float2 = self.t(Type::Vector(Scalar::Float, 2));
            let mut parts = Vec::new();
            for k in 0..n {
                let elem = if n == 1 { v } else { self.emit(Op::Extract(v, k as u32), from_t) };
                parts.push(if to_float {
                    let pair = self.emit(Op::Intrinsic(Intrinsic::Unpack2x16Float, vec![elem]), float2);
                    self.emit(Op::Extract(pair, 0), to_t)
                } else {
                    let zero = self.konst(Const::Float(0.0), from_t);
                    let pair = self.emit(Op::Construct(vec![elem, zero]), float2);
                    self.emit(Op::Intrinsic(Intrinsic::Pack2x16Float, vec![pair]), to_t)
                });
            }
            let v = match parts.as_slice() {
                [one] => *one,
                _ => {
                    let t = self.t(Type::Vector(to, n));
                    self.emit(Op::Construct(parts), t)
                }
            };
            return self.coerce(v, result);
        }
        if matches!(name, "__realCast" | "__intCast" | "__slang_noop_cast") && args.len() == 1 {
            let result = self.expr_ty(e)?;
            return self.expr_expecting(args[0], result);
        }
        if name == "select" && args.len() == 3 {
            // `select(c, a, b)`: element-wise `c ? a : b`, both evaluated.
            let result = self.expr_ty(e)?;
            let c = self.expr(args[0])?;
            let ct = self.ty_of(c);
            let bt = self.with_scalar(ct, Scalar::Bool);
            let c = self.coerce(c, bt)?;
            let a = self.expr_expecting(args[1], result)?;
            let b = self.expr_expecting(args[2], result)?;
            return Ok(self.emit(Op::Select(c, a, b), result));
        }
        let Some(i) = Intrinsic::from_name(name) else {
            return self.error(format!("the built-in function `{name}` is not supported by code generation yet"));
        };
        if args.len() != i.arity() {
            return self.error(format!("`{name}` takes {} arguments", i.arity()));
        }
        let result = self.expr_ty(e)?;
        let mut values = args.iter().map(|&a| self.expr(a)).collect::<R<Vec<_>>>()?;
        let float = |s: Scalar| if s.is_float() { s } else { Scalar::Float };
        // The type every argument converts to.
        let operand = match i {
            Intrinsic::Dot | Intrinsic::Distance => {
                let (a, b) = (self.ty_of(values[0]), self.ty_of(values[1]));
                Some(self.common_type(a, b)?)
            }
            Intrinsic::Length | Intrinsic::Normalize | Intrinsic::Transpose | Intrinsic::Determinant => {
                let a = self.ty_of(values[0]);
                let s = self.m.module.types.scalar_of(a).map(float).unwrap_or(Scalar::Float);
                Some(self.with_scalar(a, s))
            }
            Intrinsic::Any | Intrinsic::All => {
                let a = self.ty_of(values[0]);
                Some(self.with_scalar(a, Scalar::Bool))
            }
            // Bit casts keep their operand's type.
            Intrinsic::Sign | Intrinsic::AsFloat | Intrinsic::AsInt | Intrinsic::AsUint => {
                let a = self.ty_of(values[0]);
                Some(a)
            }
            // Bit counts and scans: computed in the operand's integer type
            // (naga's result type), then converted to the result's.
            Intrinsic::CountBits | Intrinsic::FirstBitHigh | Intrinsic::FirstBitLow | Intrinsic::ReverseBits => {
                let a = self.ty_of(values[0]);
                let v = self.emit(Op::Intrinsic(i, vec![values[0]]), a);
                return self.coerce(v, result);
            }
            Intrinsic::Mul => None,
            // `refract(i, n, eta)`: a scalar `eta`.
            Intrinsic::Refract => {
                let s = self.m.module.types.scalar_of(result).unwrap_or(Scalar::Float);
                let st = self.t(Type::Scalar(s));
                values[2] = self.coerce(values[2], st)?;
                values[0] = self.coerce(values[0], result)?;
                values[1] = self.coerce(values[1], result)?;
                None
            }
            _ => Some(result),
        };
        match operand {
            Some(t) => {
                for v in &mut values {
                    *v = self.coerce(*v, t)?;
                }
            }
            None => {
                // `mul`: the arguments keep their shapes, in the result's
                // scalar type.
                let s = self.m.module.types.scalar_of(result).unwrap_or(Scalar::Float);
                for v in &mut values {
                    let vt = self.ty_of(*v);
                    let t = self.with_scalar(vt, s);
                    *v = self.coerce(*v, t)?;
                }
            }
        }
        if i == Intrinsic::Mad && self.m.module.types.scalar_of(result).is_some_and(|s| !s.is_float()) {
            // Integer `mad` (naga's `fma` is for floats).
            let product = self.emit(Op::Binary(BinaryOp::Mul, values[0], values[1]), result);
            return Ok(self.emit(Op::Binary(BinaryOp::Add, product, values[2]), result));
        }
        if i == Intrinsic::Sign {
            // `sign` gives an `int` per component; compute in the operand's
            // type and convert.
            let t = self.ty_of(values[0]);
            let v = self.emit(Op::Intrinsic(i, values), t);
            return self.coerce(v, result);
        }
        Ok(self.emit(Op::Intrinsic(i, values), result))
    }
}

fn binary_op(k: SyntaxKind) -> Option<BinaryOp> {
    use SyntaxKind::*;
    Some(match k {
        PLUS => BinaryOp::Add,
        MINUS => BinaryOp::Sub,
        STAR => BinaryOp::Mul,
        SLASH => BinaryOp::Div,
        PERCENT => BinaryOp::Rem,
        EQ2 => BinaryOp::Eq,
        NEQ => BinaryOp::Ne,
        L_ANGLE => BinaryOp::Lt,
        R_ANGLE => BinaryOp::Gt,
        LTEQ => BinaryOp::Le,
        GTEQ => BinaryOp::Ge,
        AMP => BinaryOp::BitAnd,
        PIPE => BinaryOp::BitOr,
        CARET => BinaryOp::BitXor,
        SHL => BinaryOp::Shl,
        SHR => BinaryOp::Shr,
        _ => return None,
    })
}

/// The part of a `DifferentialPair` a member names (`p`/`v`: the primal,
/// `d`: the derivative).
fn pair_part(name: &str) -> Option<u32> {
    match name {
        "p" | "v" => Some(0),
        "d" => Some(1),
        _ => None,
    }
}

/// The function an attribute names (`[ForwardDerivative(g)]` on `def`).
fn attribute_function(db: &dyn Db, def: DefId, attr: &str) -> Option<DefId> {
    let f = def_node(db, def).and_then(ast::Fn::cast)?;
    let a = f.attributes().find(|a| a.name().as_deref() == Some(attr))?;
    let arg = a.args().next()?;
    let text = arg.syntax().text().to_string();
    let name = text.rsplit(['.', ':']).next()?.trim().to_string();
    functions_named(db, def.file(db), &name).into_iter().find(|&g| g != def)
}

/// A function of `file` whose attribute `attr` names `target`
/// (`[ForwardDerivativeOf(target)]`).
fn function_with_attribute_naming(db: &dyn Db, file: SourceFile, attr: &str, target: &str) -> Option<DefId> {
    item_tree(db, file).walk().filter(|i| i.kind == ItemKind::Fn && i.has_attr(attr)).find_map(|i| {
        let def = DefId::new(db, file, i.ast_index);
        let f = def_node(db, def).and_then(ast::Fn::cast)?;
        let a = f.attributes().find(|a| a.name().as_deref() == Some(attr))?;
        let text = a.args().next()?.syntax().text().to_string();
        (text.rsplit(['.', ':']).next()?.trim() == target).then_some(def)
    })
}

/// `xyzw`/`rgba` letters as component indices.
/// The (row, column) elements a matrix member names: `_m01` zero-based,
/// `_12` one-based, several in a row.
fn matrix_elements(name: &str) -> Option<Vec<(u8, u8)>> {
    let mut out = Vec::new();
    for part in name.strip_prefix('_')?.split('_') {
        let (digits, base) = match part.strip_prefix('m') {
            Some(d) => (d, 0),
            None => (part, 1),
        };
        let d: Vec<u8> = digits.bytes().map(|b| b.wrapping_sub(b'0')).collect();
        match d.as_slice() {
            [r, c] if *r < 10 && *c < 10 && *r >= base && *c >= base => out.push((r - base, c - base)),
            _ => return None,
        }
    }
    (!out.is_empty() && out.len() <= 4).then_some(out)
}

fn swizzle_components(name: &str) -> Option<Vec<u8>> {
    if name.is_empty() || name.len() > 4 {
        return None;
    }
    ["xyzw", "rgba"].iter().find_map(|set| name.chars().map(|c| set.find(c).map(|i| i as u8)).collect())
}

/// A floating-point literal's value (`1.5`, `2.f`, `1e-3h`, `0.5lf`).
fn parse_float(text: &str) -> Option<f64> {
    let t = text.trim().to_ascii_lowercase();
    let t = t.trim_end_matches("lf").trim_end_matches(['f', 'h', 'l', 'd']);
    t.parse::<f64>().ok()
}

fn convert_const(c: Const, to: Scalar) -> Const {
    let as_f64 = match c {
        Const::Bool(b) => b as i64 as f64,
        Const::Int(i) => i as f64,
        Const::Float(f) => f,
    };
    match to {
        Scalar::Bool => Const::Bool(as_f64 != 0.0),
        s if s.is_float() => Const::Float(match c {
            // Keep the literal exactly as written.
            Const::Float(f) => f,
            _ => as_f64,
        }),
        Scalar::UInt32 => Const::Int(match c {
            Const::Int(i) => i & 0xffff_ffff,
            _ => as_f64 as u32 as i64,
        }),
        _ => Const::Int(match c {
            Const::Int(i) => i as i32 as i64,
            _ => as_f64 as i32 as i64,
        }),
    }
}

/// The function called `name` declared in `file` (the first, if
/// overloaded).
pub(crate) fn function_named(db: &dyn Db, file: SourceFile, name: &str) -> Option<DefId> {
    let tree = item_tree(db, file);
    tree.walk()
        .find(|i| i.kind == ItemKind::Fn && i.name.as_deref() == Some(name))
        .map(|i| DefId::new(db, file, i.ast_index))
}

/// The value of an enum case's initializer: integer literals, earlier
/// cases (`A`, `E.A`), and `+ - * / % << >> | & ^ ~` of them.
fn enum_value(e: &ast::Expr, known: &HashMap<String, i64>) -> Option<i64> {
    match e {
        ast::Expr::Literal(_) => hir::const_int(e),
        ast::Expr::ParenExpr(p) => enum_value(&p.expr()?, known),
        ast::Expr::PrefixExpr(p) => {
            let v = enum_value(&p.expr()?, known)?;
            match p.op()?.kind() {
                SyntaxKind::MINUS => Some(v.wrapping_neg()),
                SyntaxKind::TILDE => Some(!v),
                SyntaxKind::PLUS => Some(v),
                _ => None,
            }
        }
        ast::Expr::BinExpr(b) => {
            let (l, r) = (enum_value(&b.lhs()?, known)?, enum_value(&b.rhs()?, known)?);
            Some(match b.op_kind()? {
                SyntaxKind::PLUS => l.wrapping_add(r),
                SyntaxKind::MINUS => l.wrapping_sub(r),
                SyntaxKind::STAR => l.wrapping_mul(r),
                SyntaxKind::SLASH => l.checked_div(r)?,
                SyntaxKind::PERCENT => l.checked_rem(r)?,
                SyntaxKind::SHL => l.checked_shl(u32::try_from(r).ok()?)?,
                SyntaxKind::SHR => l.checked_shr(u32::try_from(r).ok()?)?,
                SyntaxKind::PIPE => l | r,
                SyntaxKind::AMP => l & r,
                SyntaxKind::CARET => l ^ r,
                _ => return None,
            })
        }
        // A case named alone or through its type (`A`, `E.A`, `E::A`).
        _ => {
            let text = e.syntax().text().to_string();
            let last = text.rsplit(['.', ':']).next()?.trim();
            known.get(last).copied()
        }
    }
}

/// The property `name` declared in `owner`'s type.
fn property_named(db: &dyn Db, owner: &Ty, name: &str) -> Option<DefId> {
    let Ty::Adt { def, .. } = owner else { return None };
    let m = item_of(db, *def)?
        .members
        .iter()
        .find(|m| m.kind == ItemKind::Property && m.name.as_deref() == Some(name))?
        .ast_index;
    Some(DefId::new(db, def.file(db), m))
}
