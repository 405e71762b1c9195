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
//!
//! The module root holds the shared types ([`ModuleLowerer`], `FnLower`,
//! [`Instance`]), declaring and queueing functions, and small helpers;
//! the submodules hold the rest by what they lower: [`types`], [`globals`],
//! [`resources`] (buffers held by fields and parameters), [`dispatch`]
//! (interfaces as types), [`diff`] (autodiff), [`emit`] (instruction
//! emission and conversions), [`func`], [`stmt`], [`expr`], [`init`]
//! (initializer lists and constructors), [`place`] (assignable places),
//! [`call`], [`builtins`], [`coopvec`] (cooperative vectors as arrays) and [`target`] (`__target_switch`, `__intrinsic_asm`).

use std::collections::HashMap;
use std::sync::Arc;

use slang_analysis::hir::consteval::{self, ConstEnv, ConstValue as HirConst};
use slang_analysis::hir::{
    self, body, def_range, expr_range, param_range, stmt_range, BinOp, BinaryOp as HirBinary, Body, DefId, Expr,
    ExprId, LiteralKind, LoopKind, PostfixOp, PrefixOp, Stmt, StmtAttr, StmtId, TargetCase, TypeRef,
};
use slang_analysis::infer::{self, call_bindings, decl_type_ref, fn_sig, item_of, parent_of, DeclCtx, InferenceResult};
use slang_analysis::item_tree::{item_tree, ItemKind, Modifier};
use slang_analysis::name_res::global_scope;
use slang_analysis::ty::{Scalar, Ty, TypeResolver};
use slang_analysis::{Db, SourceFile, TextRange};

use slang_analysis::autodiff::{
    fn_differentiability, functions_named, higher_order_signature, synthesized_differential, Mode,
};

use crate::autodiff::{forward_derivative, Requests};
use crate::ir::{
    AddressSpace, BinaryOp, BlockId, Builtin, Const, Derivative, EntryPoint, FuncId, FunctionBuilder, Global, GlobalId,
    Intrinsic, Module, Op, Param, ParamDir, StructDiff, Terminator, Type, TypeId, UnaryOp, ValueId,
};
use crate::CodegenError;

mod builtins;
mod call;
mod coopvec;
mod diff;
mod dispatch;
mod emit;
mod expr;
mod func;
mod globals;
mod init;
mod place;
mod resources;
mod stmt;
mod target;
mod types;

type R<T> = Result<T, CodegenError>;

fn err<T>(range: Option<TextRange>, message: impl Into<String>) -> R<T> {
    Err(CodegenError { file: None, range, message: message.into() })
}

/// `e`, located in `file` unless a file was said already.
fn in_file(mut e: CodegenError, file: SourceFile) -> CodegenError {
    e.file.get_or_insert(file);
    e
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
/// specialized to: those `this` holds (when `g` is a method too; a static
/// `g` takes `this` as its first parameter) and those of the parameters
/// `g` takes at the same place with the same type (`write_bwd` reads the
/// `grad` buffer of the struct `write` was called on). A
/// `DifferentialPtrPair<T>` for a `T` holds the primal's buffers in `p`
/// and the differential's (`∂` paths, else the primal's) in `d`.
fn derived_instance(db: &dyn Db, inst: &Instance, g: DefId) -> Instance {
    let bindings = inst.bindings();
    let mut out = Instance::new(db, g, &bindings);
    let (ours, theirs) = (fn_sig(db, inst.def), fn_sig(db, g));
    // (Types compared as instantiated: generic parameters of the two
    // functions are distinct types.)
    let mut ctx_ours = DeclCtx::specialized(db, inst.def, &bindings);
    let mut ctx_theirs = DeclCtx::specialized(db, g, &bindings);
    let diff_prefix = format!("{}.", resources::DIFF_SEGMENT);
    // `this` of a method passed to a static derivative as its first
    // parameter: `g`'s parameters are shifted by one.
    let this_first = is_instance_method(db, inst.def) && !is_instance_method(db, g);
    let shift = u32::from(this_first && theirs.params.len() > ours.params.len());
    let ours_ty = |k: u32, ctx: &mut DeclCtx| match k {
        THIS_PARAM => Some(ctx.this.clone()),
        k => ours.params.get(k as usize).map(|p| ctx.resolve(&p.ty)),
    };
    for (i, path, gl) in &inst.resources {
        let theirs_k = match *i {
            THIS_PARAM if is_instance_method(db, g) => {
                out.resources.push((*i, path.clone(), *gl));
                continue;
            }
            THIS_PARAM if shift == 1 => 0,
            THIS_PARAM => continue,
            k => k + shift,
        };
        let (Some(a), Some(b)) = (ours_ty(*i, &mut ctx_ours), theirs.params.get(theirs_k as usize)) else { continue };
        let b = ctx_theirs.resolve(&b.ty);
        if a == b {
            out.resources.push((theirs_k, path.clone(), *gl));
        } else if matches!(&b, Ty::Adt { name, args, .. } if name == "DifferentialPtrPair" && args.first() == Some(&a))
        {
            // `DifferentialPtrPair<T>` for a `T`.
            match path.strip_prefix(&diff_prefix) {
                Some(rest) => out.resources.push((theirs_k, join_path("d", rest), *gl)),
                None => {
                    out.resources.push((theirs_k, join_path("p", path), *gl));
                    let diff = format!("{diff_prefix}{path}");
                    if !inst.resources.iter().any(|r| r.0 == *i && r.1 == diff) {
                        out.resources.push((theirs_k, join_path("d", path), *gl));
                    }
                }
            }
        }
    }
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
    let text = item_of(db, def)?.attr("DerivativeMember")?.args.first()?.clone();
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
    let supers: Vec<String> = hir::supertypes(db, def)
        .into_iter()
        .filter_map(|t| match t {
            TypeRef::Path(segs) => segs.last().map(|s| s.name.clone()),
            _ => None,
        })
        .collect();
    supers.iter().any(|s| {
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
        && (owner_struct(db, def).is_some()
            || extension_of_builtin(db, def)
            || blanket_method(db, def)
            || apply_of_method(db, def))
}

/// Whether `def` is a `__func_extension __apply(S::method)` of a method:
/// its `this` is the method's receiver, passed first as the method's is.
fn apply_of_method(db: &dyn Db, def: DefId) -> bool {
    item_of(db, def).is_some_and(|i| i.kind == ItemKind::Fn && i.name.is_none())
        && slang_analysis::autodiff::func_extension_of(db, def)
            .is_some_and(|e| e.kind == slang_analysis::autodiff::ExtensionKind::Apply)
        && !matches!(DeclCtx::for_def(db, def).this, Ty::Unknown)
}

/// Whether the declared type `t` of a parameter or result of `def` is a
/// generic parameter (or an associated type of one) whose constraints do
/// not make it differentiable (`T : INorm`, `T::Params : IParams`): its
/// values carry no derivative even where `T` is bound to a differentiable
/// type, as in the reference compiler (unless a `__func_extension` alone
/// gives `def` its derivatives).
fn non_differentiable_generic(db: &dyn Db, def: DefId, t: &TypeRef) -> bool {
    if slang_analysis::autodiff::differentiable_by_extension_only(db, def) {
        return false;
    }
    let unspecialized = DeclCtx::for_def(db, def).resolve(t);
    matches!(unspecialized, Ty::Param { .. } | Ty::Assoc(..))
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

/// Whether `def` is a method of a blanket extension (`extension<T : I> T`),
/// a method of every type conforming to `I`: its instances bind `T` to
/// the receiver's type (a struct, or an interface value's).
fn blanket_method(db: &dyn Db, def: DefId) -> bool {
    parent_of(db, def).is_some_and(|p| slang_analysis::generics::blanket_param(db, p).is_some())
}

/// A readable identifier for a generic argument (`float3` → `float3`,
/// `S<float>` → `S_float`).
fn mangle(t: &Ty) -> String {
    let s: String = t.to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    s.trim_end_matches('_').to_string()
}

/// A dispatch function's interface type, requirement and the
/// requirement's own generic arguments.
type DispatchKey = (Ty, DefId, Vec<(String, Ty)>, Vec<(String, GlobalId)>);

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
    /// Interface-typed values, by interface type (with its generic
    /// arguments): their tagged-union type and its variants (the
    /// conforming struct types, in tag order).
    existentials: HashMap<Ty, (TypeId, Vec<(Ty, TypeId)>)>,
    /// The variant types of each tagged-union type.
    existential_variants: HashMap<TypeId, Vec<TypeId>>,
    /// Interface-typed values as buffers hold them (the reference
    /// compiler's layout, `{ uint2 rtti; uint2 id; uint words[N] }`), and
    /// their tagged-union type.
    packed_existentials: HashMap<TypeId, TypeId>,
    /// Interfaces whose tagged union is being built (a conforming type
    /// holding a value of its own interface).
    existentials_in_progress: Vec<Ty>,
    /// Dynamic-dispatch functions, by interface type, requirement and the
    /// requirement's own generic arguments.
    dispatchers: HashMap<DispatchKey, FuncId>,
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
            packed_existentials: HashMap::new(),
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
            detached: std::collections::HashSet::new(),
            pending_label: None,
            pending_max_iters: None,
            pending_unroll: None,
            eager_logic: false,
            resource_params: Vec::new(),
            res_fields: HashMap::new(),
            call_values: HashMap::new(),
            returned: None,
        };
        let entry = lower.b.new_block();
        lower.cur = Some(entry);
        let result = lower.expr_expecting(e, t).map(|v| lower.terminate(Terminator::Return(Some(v))));
        let func = lower.b.finish();
        self.module.functions[id.index()] = func;
        result.map(|_| id)
    }

    fn def_range(&self, def: DefId) -> Option<TextRange> {
        def_range(self.db, def)
    }

    /// Declare an instance of a function (its signature), queueing its
    /// body. A method's receiver is its first parameter, `this`; an
    /// `__init` returns the value it initializes.
    fn declare_function(&mut self, inst: Instance, entry: bool) -> R<FuncId> {
        if let Some(&id) = self.funcs.get(&inst) {
            return Ok(id);
        }
        // A differential holding its primal's buffers says nothing.
        let mut inst = inst;
        let own = inst.resources.clone();
        inst.resources.retain(|(k, p, g)| match resources::primal_path(p) {
            Some(primal) => !own.iter().any(|o| o.0 == *k && o.1 == primal && o.2 == *g),
            None => true,
        });
        if let Some(&id) = self.funcs.get(&inst) {
            return Ok(id);
        }
        // (Its errors are at ranges of `def`'s file.)
        let file = inst.def.file(self.db);
        self.declare_function_in(inst, entry).map_err(|e| in_file(e, file))
    }

    fn declare_function_in(&mut self, inst: Instance, entry: bool) -> R<FuncId> {
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
            && !blanket_method(db, def)
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
            None if extension_of_builtin(db, def) || blanket_method(db, def) || apply_of_method(db, def) => {
                let this = ctx.this.clone();
                Some(self.lower_ty(&this, at)?)
            }
            None => None,
        };
        let ret = match (is_init, this_ty) {
            (true, Some(t)) => t,
            _ if inst.setter => self.intern(Type::Void),
            _ => {
                // (A `__func_extension` declares its result after `->`.)
                let ret = match slang_analysis::autodiff::func_extension_of(db, def) {
                    Some(ext) => ext.ret,
                    None => sig.ret.clone(),
                };
                let ret_ty = ctx.resolve(&ret);
                self.lower_ty(&ret_ty, at)?
            }
        };
        let mut params = Vec::new();
        let mut uniforms = Vec::new();
        if let (Some(this), true) = (this_ty, is_instance_method(db, def)) {
            let item = item.as_ref().expect("a method is an item");
            let mutating = inst.setter || item.has_attr("mutating") || item.modifiers.contains(&Modifier::Mutating);
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
            let prange = param_range(db, def, i).or(at);
            if entry && p.uniform {
                let t = ctx.resolve(&p.ty);
                uniforms.push((p.name.clone().unwrap_or_else(|| format!("p{i}")), self.lower_ty(&t, prange)?));
                continue;
            }
            let builtin = p.semantic.as_deref().and_then(Builtin::from_semantic);
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
                    let what =
                        p.semantic.as_ref().map(|s| format!("the semantic `{s}`")).unwrap_or("no semantic".into());
                    return err(prange, format!("entry-point parameter with {what} is not supported yet"));
                }
                let t = ctx.resolve(&p.ty);
                if let Ty::Pack(items) = t {
                    // A pack: one parameter per element.
                    let name = p.name.clone().unwrap_or_else(|| format!("p{i}"));
                    let no_diff = p.no_diff;
                    for (k, t) in items.iter().enumerate() {
                        let t = self.lower_ty(t, prange)?;
                        let ty = match dir {
                            ParamDir::In => t,
                            _ => self.intern(Type::Ptr(t, AddressSpace::Function)),
                        };
                        params.push(Param { name: format!("{name}_{k}"), dir, ty, builtin: None, no_diff });
                    }
                    continue;
                }
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
        b.func.ret_no_diff = item_of(db, def).is_some_and(|i| i.has_modifier(Modifier::NoDiff))
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
        use slang_analysis::autodiff::{accessor_func_extension, ExtensionKind};
        // `__func_extension fwd_diff(S::__subscript::set)`.
        let setter_ext = inst.setter.then(|| accessor_func_extension(db, def, true, ExtensionKind::Forward)).flatten();
        let derivative = match inst.setter {
            true if setter_ext.is_some() => {
                let g = setter_ext.expect("checked");
                Derivative::Custom(self.declare_function(derived_instance(db, &inst, g), false)?)
            }
            // (The declaration's derivative attributes are the getter's.)
            true if slang_analysis::autodiff::setter_differentiable(db, def) => Derivative::Transcribe,
            true => Derivative::None,
            false => self.derivative_source(&inst)?,
        };
        self.module.functions[id.index()].derivative = derivative;
        let backward = match inst.setter {
            true => match accessor_func_extension(db, def, true, ExtensionKind::Backward) {
                Some(g) => Some(self.declare_function(derived_instance(db, &inst, g), false)?),
                None => None,
            },
            false => match self.backward_source(&inst)? {
                Some(g) => Some(g),
                None => self.apply_backward(&inst, id)?,
            },
        };
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

    /// `sincos(x, out s, out c)` on `t` as a function of its own, to
    /// differentiate (`bwd_diff(sincos)`): the same expansion as a call
    /// (`FnLower::out_param_builtin`), stores of `sin(x)` and `cos(x)`.
    fn sincos_function(&mut self, t: TypeId) -> FuncId {
        let pt = self.intern(Type::Ptr(t, AddressSpace::Function));
        // (Keyed as `sin` of three parameters, which no call makes.)
        let key = (Intrinsic::Sin, vec![t, pt, pt]);
        if let Some(&f) = self.intrinsic_fns.get(&key) {
            return f;
        }
        let void = self.intern(Type::Void);
        let mut b = FunctionBuilder::new("sincos".to_string(), void, None);
        let entry = b.new_block();
        let x = b.add_block_param(entry, t, None);
        let s = b.add_block_param(entry, pt, None);
        let c = b.add_block_param(entry, pt, None);
        b.func.params = vec![
            Param { name: "x".into(), dir: ParamDir::In, ty: t, builtin: None, no_diff: false },
            Param { name: "s".into(), dir: ParamDir::Out, ty: pt, builtin: None, no_diff: false },
            Param { name: "c".into(), dir: ParamDir::Out, ty: pt, builtin: None, no_diff: false },
        ];
        let sin = b.inst(entry, Op::Intrinsic(Intrinsic::Sin, vec![x]), t, None);
        let cos = b.inst(entry, Op::Intrinsic(Intrinsic::Cos, vec![x]), t, None);
        b.inst(entry, Op::Store { ptr: s, value: sin }, void, None);
        b.inst(entry, Op::Store { ptr: c, value: cos }, void, None);
        b.terminate(entry, Terminator::Return(None));
        b.func.derivative = Derivative::Transcribe;
        let f = FuncId(self.module.functions.len() as u32);
        self.module.functions.push(b.finish());
        self.intrinsic_fns.insert(key, f);
        f
    }

    /// `[numthreads(x, y, z)]` (1 where absent).
    fn numthreads(&self, def: DefId) -> R<[u32; 3]> {
        let mut size = [1u32; 3];
        let Some(attr) = item_of(self.db, def).and_then(|i| i.attr("numthreads").cloned()) else {
            return Ok(size);
        };
        let mut ctx = DeclCtx::for_def(self.db, def);
        for (i, arg) in attr.args.iter().take(3).enumerate() {
            let value = ctx.const_value(arg);
            match value.and_then(|v| u32::try_from(v).ok()).filter(|&v| v > 0) {
                Some(v) => size[i] = v,
                None => return err(self.def_range(def), "a thread-group size must be a positive constant"),
            }
        }
        Ok(size)
    }

    fn lower_body(&mut self, inst: Instance, id: FuncId) -> R<()> {
        // (Its errors are at ranges of `def`'s file.)
        let file = inst.def.file(self.db);
        self.lower_body_in(inst, id).map_err(|e| in_file(e, file))
    }

    fn lower_body_in(&mut self, inst: Instance, id: FuncId) -> R<()> {
        let db = self.db;
        let def = inst.def;
        let bindings = inst.bindings();
        let body = infer::specialized_body(db, def, &bindings);
        let inferred = match bindings.is_empty() {
            true => infer::infer(db, def).clone(),
            false => Arc::new(infer::infer_specialized_body(db, def, &bindings, &body)),
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
            detached: std::collections::HashSet::new(),
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
            call_values: HashMap::new(),
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
                    file: None,
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
    /// Expressions whose values carry no derivative: the arguments of a
    /// call through an interface requirement whose parameter is not
    /// differentiable there ([`FnLower::call`]).
    detached: std::collections::HashSet<ExprId>,
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
    /// The value each call expression lowered to (the buffers a struct
    /// built from calls' results holds are those the callees return).
    call_values: HashMap<ExprId, ValueId>,
}

/// The name of the local holding element `index` of the pack parameter
/// `name` (not a name the source can write).
fn pack_local(name: &str, index: u32) -> String {
    format!("{name}#{index}")
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

fn binary_op(k: BinOp) -> Option<BinaryOp> {
    Some(match k {
        BinOp::Add => BinaryOp::Add,
        BinOp::Sub => BinaryOp::Sub,
        BinOp::Mul => BinaryOp::Mul,
        BinOp::Div => BinaryOp::Div,
        BinOp::Rem => BinaryOp::Rem,
        BinOp::Eq => BinaryOp::Eq,
        BinOp::Ne => BinaryOp::Ne,
        BinOp::Lt => BinaryOp::Lt,
        BinOp::Gt => BinaryOp::Gt,
        BinOp::Le => BinaryOp::Le,
        BinOp::Ge => BinaryOp::Ge,
        BinOp::BitAnd => BinaryOp::BitAnd,
        BinOp::BitOr => BinaryOp::BitOr,
        BinOp::BitXor => BinaryOp::BitXor,
        BinOp::Shl => BinaryOp::Shl,
        BinOp::Shr => BinaryOp::Shr,
        BinOp::And | BinOp::Or => return None,
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
    let arg = item_of(db, def)?.attr(attr)?.args.first()?.clone();
    let name = attribute_target_name(&arg);
    let candidates: Vec<DefId> = functions_named(db, def.file(db), &name).into_iter().filter(|&g| g != def).collect();
    if candidates.len() < 2 {
        return candidates.first().copied();
    }
    // Overloads: the one whose parameter types are those the derivative
    // (or, for a substitute, the function) takes, most of them.
    let expected: Vec<Ty> = match attr {
        "ForwardDerivative" | "BackwardDerivative" => {
            let mode = if attr == "ForwardDerivative" { Mode::Forward } else { Mode::Backward };
            higher_order_signature(db, def, &[mode]).params.into_iter().map(|p| p.ty).collect()
        }
        _ => {
            let mut ctx = DeclCtx::for_def(db, def);
            fn_sig(db, def).params.iter().map(|p| ctx.resolve(&p.ty)).collect()
        }
    };
    let score = |g: DefId| {
        let mut ctx = DeclCtx::for_def(db, g);
        let params = &fn_sig(db, g).params;
        let same = params.iter().zip(&expected).filter(|(p, t)| ctx.resolve(&p.ty) == **t).count();
        (params.len() == expected.len(), same)
    };
    candidates.iter().copied().rev().max_by_key(|&g| score(g))
}

/// A function of `file` whose attribute `attr` names `target`
/// (`[ForwardDerivativeOf(target)]`).
fn function_with_attribute_naming(db: &dyn Db, file: SourceFile, attr: &str, target: &str) -> Option<DefId> {
    item_tree(db, file).walk().filter(|i| i.kind == ItemKind::Fn && i.has_attr(attr)).find_map(|i| {
        let def = DefId::new(db, file, i.ast_index);
        let text = i.attr(attr)?.args.first()?.clone();
        (attribute_target_name(&text) == target).then_some(def)
    })
}

/// The function name an attribute's argument names: the last name of
/// `a::b.f<T>` (generic arguments dropped: instances follow the caller's).
fn attribute_target_name(text: &str) -> String {
    let plain = text.split('<').next().unwrap_or(text);
    plain.rsplit(['.', ':']).next().unwrap_or(plain).trim().to_string()
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
