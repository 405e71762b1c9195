//! Type inference for function bodies, and the declaration facts it needs
//! (types of variables and fields, function signatures, members).
//!
//! Inference is per function ([`infer`]): it reads the function's
//! position-free [`Body`] and the signatures of what it refers to, so an
//! edit elsewhere does not re-run it. Types that cannot be determined are
//! [`Ty::Unknown`], which never causes a diagnostic: the checks here only
//! speak when the model is sure (see each diagnostic).
//!
//! This module holds the declaration facts (item lookups, declared types,
//! [`FnSig`]), the [`infer`] query and its [`InferenceResult`], and the
//! inference state ([`Infer`]); the engine is split by concept:
//! [`decl_ctx`] (type references in a declaration's context), [`members`]
//! (member lookup), [`stmt`], [`expr`], [`path`] (names and members in
//! expressions), [`call`] (overload resolution), [`unify`] (generic
//! parameter binding), [`coerce`] (conversions), [`diff`] (derivative
//! checks), [`builtins`] (core functions by name) and [`diagnostics`]
//! (what it reports), [`access`] (access control) and [`generics`]
//! (constraints on generic parameters, conformance). The facts of
//! automatic differentiation are part of this type system ([`autodiff`],
//! named `crate::autodiff` too, with the `__func_extension`s in
//! `func_extension`): resolving `T.Differential` needs them, and they need
//! declarations' types.

use std::collections::HashMap;
use std::sync::Arc;

use slang_syntax::ast::{self, AstNode};
use slang_syntax::SyntaxKind;

use crate::hir::consteval;
use crate::hir::{
    body, def_node, lower_type, BinOp, BinaryOp, Body, DefId, Expr, ExprId, GenericArgRef, LiteralKind, LocalDecl,
    PathSegment, PrefixOp, Stmt, StmtId, TypeRef,
};
use crate::item_tree::{item_tree, Item, ItemKind, Visibility};
use crate::name_res::{global_scope, DefRef};
use crate::ty::{parse_vector_alias, Scalar, Ty, TypeResolver};
use crate::{Db, SourceFile};

pub(crate) mod access;
pub mod autodiff;
mod builtins;
mod call;
mod coerce;
mod decl_ctx;
mod diagnostics;
mod diff;
mod expr;
mod func_extension;
pub mod generics;
mod members;
mod path;
mod stmt;
mod unify;

use self::access::{accessible, visibility_word};
use self::builtins::{core_call_differentiable, non_differentiable_this};
use self::coerce::{arith, broadcast, conversion_cost, is_plain_user_struct, swizzle, vector_sizes_differ};
pub(crate) use self::coerce::{is_concrete, is_mismatch, is_resource_name};
pub use self::decl_ctx::DeclCtx;
pub use self::diagnostics::{DiagAt, InferDiag, InferDiagKind};
pub use self::members::{applicable_extensions, extension_member_names, extension_methods, lookup_member, Member};
use self::members::{members_fully_known, not_a_builtin_member, subscript_type};
pub use self::path::generic_arity_problem;
use self::unify::{bind_generics, ty_is_open, type_ref_mentions};
pub use self::unify::{call_bindings, receiver_bindings};

// ---------------------------------------------------------------------------
// Declaration facts.

/// Items by `ast_index`, each with the index of its parent item.
pub type ItemIndex = HashMap<u32, (Arc<Item>, Option<u32>)>;

/// Every item of a file by `ast_index`, with the index of its parent item.
#[salsa::tracked(returns(ref))]
pub fn items_by_index(db: &dyn Db, file: SourceFile) -> Arc<ItemIndex> {
    let mut map = HashMap::new();
    fn add(map: &mut ItemIndex, items: &[Item], parent: Option<u32>) {
        for item in items {
            map.insert(item.ast_index, (Arc::new(item.clone()), parent));
            add(map, &item.members, Some(item.ast_index));
            add(map, &item.generic_params, Some(item.ast_index));
        }
    }
    add(&mut map, &item_tree(db, file).items, None);
    Arc::new(map)
}

/// The item of a declaration (shared: cloning it is cheap).
pub fn item_of(db: &dyn Db, def: DefId) -> Option<Arc<Item>> {
    items_by_index(db, def.file(db)).get(&def.ast_index(db)).map(|(i, _)| i.clone())
}

pub fn parent_of(db: &dyn Db, def: DefId) -> Option<DefId> {
    let parent = items_by_index(db, def.file(db)).get(&def.ast_index(db))?.1?;
    Some(DefId::new(db, def.file(db), parent))
}

/// The declared type of a variable, field or parameter-like declaration.
#[salsa::tracked(returns(ref))]
pub fn decl_type_ref(db: &dyn Db, def: DefId) -> Option<TypeRef> {
    let node = def_node(db, def)?;
    match node.kind() {
        SyntaxKind::DECLARATOR => {
            let d = ast::Declarator::cast(node.clone())?;
            let mut ty = match d.ty() {
                Some(t) => lower_type(Some(t)),
                None => lower_type(node.parent().and_then(ast::VarDecl::cast)?.ty()),
            };
            for s in d.array_suffixes().collect::<Vec<_>>().into_iter().rev() {
                ty = TypeRef::Array(Box::new(ty), crate::hir::array_len(&s));
            }
            Some(ty)
        }
        SyntaxKind::TYPEALIAS | SyntaxKind::TYPEDEF => crate::hir::alias_target(&node),
        SyntaxKind::PROPERTY => Some(lower_type(ast::Property::cast(node)?.ty())),
        _ => None,
    }
}

/// Whether `file` is compiled as GLSL (`#version`, or a GLSL block, which
/// only GLSL mode parses): there, globals not marked `uniform` are
/// writable.
fn glsl_mode(db: &dyn Db, file: SourceFile) -> bool {
    *crate::name_res::is_glsl_file(db, file) || item_tree(db, file).items.iter().any(|i| i.kind == ItemKind::GlslBlock)
}

/// The type of a global (or namespace-level) variable; a GLSL block's
/// instance (`buffer B { ... } b;`) has the block's type, the variable of
/// `struct { ... } s;` the struct's.
pub fn global_var_type(db: &dyn Db, def: DefId) -> Ty {
    if let Some(t) = decl_type_ref(db, def) {
        let mut ctx = DeclCtx::for_def(db, def);
        return ctx.resolve(t);
    }
    let block = def.ast_index(db).checked_sub(1).map(|i| DefId::new(db, def.file(db), i));
    match block.and_then(|b| Some((b, item_of(db, b)?))) {
        Some((b, item)) if matches!(item.kind, ItemKind::GlslBlock | ItemKind::Struct) => {
            Ty::Adt { def: b, name: item.name.clone().unwrap_or_default(), args: Vec::new() }
        }
        _ => Ty::Unknown,
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FnSig {
    pub params: Vec<crate::hir::Param>,
    pub has_defaults: Vec<bool>,
    pub variadic: bool,
    pub ret: TypeRef,
    pub generic_params: Vec<String>,
    /// The pack generic parameters (`each T`; the last of
    /// `generic_params`).
    pub packs: Vec<String>,
    /// `[__elementwise]`: also applies component-wise to vectors/matrices.
    pub elementwise: bool,
    /// `[__elementwise(vector)]`: to vectors, not matrices.
    pub no_matrices: bool,
}

impl FnSig {
    /// Whether a call with `n` arguments passes every parameter (a pack
    /// parameter, last, takes what is left).
    pub fn takes(&self, n: usize) -> bool {
        match (0..self.params.len()).find(|&i| self.is_pack_param(i)) {
            Some(k) => n >= k,
            None => self.params.len() == n,
        }
    }

    /// Whether parameter `i` is a pack (`expand each T p`, or `T p` with
    /// `T` a pack): it takes the remaining arguments.
    pub fn is_pack_param(&self, i: usize) -> bool {
        match self.params.get(i).map(|p| &p.ty) {
            Some(TypeRef::Expand(_)) => true,
            Some(TypeRef::Path(segs)) => segs.len() == 1 && self.packs.contains(&segs[0].name),
            _ => false,
        }
    }
}

/// The signature of a function, `__init` or `__subscript`.
#[salsa::tracked(returns(ref))]
pub fn fn_sig(db: &dyn Db, def: DefId) -> Arc<FnSig> {
    let b = body(db, def);
    let item = item_of(db, def);
    let node = crate::hir::decl_syntax(db, def);
    let ret = match &node {
        Some(n) if n.kind() == SyntaxKind::FN => lower_type(ast::Fn::cast(n.clone()).and_then(|f| f.return_type())),
        Some(n) if n.kind() == SyntaxKind::PROPERTY => lower_type(ast::Property::cast(n.clone()).and_then(|p| p.ty())),
        Some(n) if n.kind() == SyntaxKind::SUBSCRIPT => {
            lower_type(ast::Subscript::cast(n.clone()).and_then(|s| s.return_type()))
        }
        _ => TypeRef::Unknown,
    };
    let no_matrices =
        item.as_ref().and_then(|i| i.attr("__elementwise")).is_some_and(|a| a.args.iter().any(|x| x == "vector"));
    let (has_defaults, variadic, generic_params, packs, elementwise) = match &item {
        Some(item) => (
            item.params.iter().map(|p| p.has_default).collect(),
            item.params.iter().any(|p| p.is_variadic),
            item.generic_params.iter().filter_map(|g| g.name.clone()).collect(),
            item.generic_params.iter().filter(|g| g.is_pack()).filter_map(|g| g.name.clone()).collect(),
            item.has_attr("__elementwise"),
        ),
        None => (Vec::new(), false, Vec::new(), Vec::new(), false),
    };
    Arc::new(FnSig {
        params: b.params.clone(),
        has_defaults,
        variadic,
        ret,
        generic_params,
        packs,
        elementwise,
        no_matrices,
    })
}

pub(crate) fn is_core(db: &dyn Db, file: SourceFile) -> bool {
    crate::core_module::is_core_path(file.path(db))
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InferenceResult {
    pub expr_types: Vec<Ty>,
    pub diagnostics: Vec<InferDiag>,
    /// In a differentiable function: whether each expression carries a
    /// derivative (for semantic highlighting); empty elsewhere.
    pub carries_derivative: Vec<bool>,
}

impl InferenceResult {
    /// The type of the expression `e` (`Unknown` when none was inferred).
    pub fn type_of(&self, e: ExprId) -> Ty {
        self.expr_types.get(e.0 as usize).cloned().unwrap_or(Ty::Unknown)
    }
}

#[salsa::tracked(returns(ref))]
pub fn infer(db: &dyn Db, def: DefId) -> Arc<InferenceResult> {
    Arc::new(infer_in(db, def, DeclCtx::for_def(db, def)))
}

/// The types of `def`'s body with its generic parameters bound as in
/// `bindings` (see [`DeclCtx::specialized`]): what code generation lowers
/// for one instantiation. Not cached.
pub fn infer_specialized(db: &dyn Db, def: DefId, bindings: &HashMap<String, Ty>) -> InferenceResult {
    infer_specialized_body(db, def, bindings, body(db, def))
}

/// [`infer_specialized`] of `b`, a body of `def` (its
/// [`specialized_body`]).
pub fn infer_specialized_body(db: &dyn Db, def: DefId, bindings: &HashMap<String, Ty>, b: &Body) -> InferenceResult {
    infer_body(db, def, DeclCtx::specialized(db, def, bindings), b)
}

/// The body of `def` with the generic parameters bound as in `bindings`:
/// its `expand` expressions unrolled by the lengths of the packs
/// (`hir::packs`), when it has any.
pub fn specialized_body(db: &dyn Db, def: DefId, bindings: &HashMap<String, Ty>) -> Arc<Body> {
    let b = body(db, def);
    if !bindings.values().any(|t| matches!(t, Ty::Pack(_))) {
        return b.clone();
    }
    let mut ctx = DeclCtx::specialized(db, def, bindings);
    let mut lens: HashMap<String, usize> = HashMap::new();
    for (n, t) in bindings {
        if let Ty::Pack(items) = t {
            lens.insert(n.clone(), items.len());
        }
    }
    for p in &b.params {
        if let (Some(n), Ty::Pack(items)) = (&p.name, ctx.resolve(&p.ty)) {
            lens.insert(n.clone(), items.len());
        }
    }
    match crate::hir::packs::expand_packs(b, &|n| lens.get(n).copied()) {
        Some(expanded) => Arc::new(expanded),
        None => b.clone(),
    }
}

fn infer_in<'db>(db: &'db dyn Db, def: DefId, ctx: DeclCtx<'db>) -> InferenceResult {
    infer_body(db, def, ctx, body(db, def))
}

fn infer_body<'db>(db: &'db dyn Db, def: DefId, ctx: DeclCtx<'db>, b: &Body) -> InferenceResult {
    let this_immutable = item_of(db, def).is_some_and(|i| {
        i.kind == ItemKind::Fn
            && !i.is_static
            && !i.has_attr("mutating")
            && !i.modifiers.contains(&crate::item_tree::Modifier::Mutating)
            && parent_of(db, def)
                .and_then(|p| item_of(db, p))
                .is_some_and(|p| matches!(p.kind, ItemKind::Struct | ItemKind::Class))
    });
    let ret = match item_of(db, def).map(|i| i.kind) {
        Some(ItemKind::Fn) => {
            let mut c = ctx.clone();
            c.resolve(&fn_sig(db, def).ret)
        }
        Some(ItemKind::Init) => Ty::Void,
        _ => Ty::Unknown,
    };
    let mut inf = Infer {
        def,
        ctx,
        body: b,
        types: vec![Ty::Unknown; b.exprs.len()],
        diags: Vec::new(),
        scopes: vec![Vec::new()],
        ret,
        this_immutable,
        loops: 0,
        switches: 0,
        violation: None,
        receiver: None,
        no_diff_depth: 0,
        no_diff_call: None,
        discarded: None,
        call_kinds: HashMap::new(),
        lost_candidates: Vec::new(),
        no_diff_candidates: Vec::new(),
        generic_arg_candidates: Vec::new(),
        store_candidates: Vec::new(),
        this_fields: Default::default(),
        diff_operand_depth: 0,
        non_differentiable_this: non_differentiable_this(db, def),
        through_type: Default::default(),
        differentiable: item_of(db, def).is_some_and(|i| {
            (i.has_attr("Differentiable") || i.has_attr("BackwardDifferentiable"))
                && !i.has_attr("TreatAsDifferentiable")
                && !is_core(db, def.file(db))
        }),
        // Names used in attribute arguments (`[MaxIters(M)]`), which the
        // body does not hold.
        attribute_names: crate::hir::decl_syntax(db, def)
            .map(|n| {
                n.descendants()
                    .filter(|a| a.kind() == SyntaxKind::ATTRIBUTE)
                    .flat_map(|a| a.descendants_with_tokens().filter_map(|t| t.into_token()))
                    .filter(|t| t.kind() == SyntaxKind::IDENT)
                    .map(|t| t.text().to_string())
                    .collect()
            })
            .unwrap_or_default(),
        warn_unused: crate::hir::decl_syntax(db, def).is_some_and(|n| {
            !n.descendants_with_tokens().any(|e| {
                matches!(
                    e.kind(),
                    SyntaxKind::MACRO_CALL | SyntaxKind::MACRO_TYPE | SyntaxKind::DISABLED_TEXT | SyntaxKind::PP_DEFINE
                )
            })
        }),
    };
    inf.params();
    if let Some(root) = b.root {
        inf.stmt(root);
    }
    if let Some(setter) = &b.setter {
        // The setter: the stored value in scope, nothing returned.
        let ty = inf.ctx.resolve(&setter.value.ty);
        inf.scopes.push(vec![Local::new(setter.value.name.clone().unwrap_or_default(), ty, false, None)]);
        let getter_ret = std::mem::replace(&mut inf.ret, Ty::Void);
        inf.stmt(setter.root);
        inf.ret = getter_ret;
        inf.scopes.pop();
    }
    let carries_derivative = if inf.differentiable { inf.derivative_flow() } else { Vec::new() };
    InferenceResult { expr_types: inf.types, diagnostics: inf.diags, carries_derivative }
}

/// The functions (with bodies) declared in a file, members included.
#[salsa::tracked(returns(ref))]
pub fn file_functions(db: &dyn Db, file: SourceFile) -> Vec<DefId> {
    item_tree(db, file)
        .walk()
        .filter(|i| matches!(i.kind, ItemKind::Fn | ItemKind::Init))
        .map(|i| DefId::new(db, file, i.ast_index))
        .collect()
}

/// The ranges of the file's functions (with bodies), for finding the
/// function around a position without building syntax nodes.
#[salsa::tracked(returns(ref))]
pub fn function_spans(db: &dyn Db, file: SourceFile) -> Vec<(slang_syntax::TextRange, DefId)> {
    let map = crate::item_tree::item_source_map(db, file);
    file_functions(db, file)
        .iter()
        .filter_map(|&f| Some((map.get(f.ast_index(db) as usize)?.text_range(), f)))
        .collect()
}

/// The innermost function of `file` whose declaration contains `range`.
pub fn function_containing(db: &dyn Db, file: SourceFile, range: slang_syntax::TextRange) -> Option<DefId> {
    function_spans(db, file)
        .iter()
        .filter(|(r, _)| r.contains_range(range))
        .min_by_key(|(r, _)| r.len())
        .map(|&(_, f)| f)
}

struct Local {
    name: String,
    ty: Ty,
    immutable: bool,
    /// The declaring statement, for locals of the body (not parameters).
    decl: Option<StmtId>,
    used: std::cell::Cell<bool>,
}

impl Local {
    fn new(name: String, ty: Ty, immutable: bool, decl: Option<StmtId>) -> Local {
        Local { name, ty, immutable, decl, used: std::cell::Cell::new(false) }
    }
}

struct Infer<'a, 'db> {
    /// The function being inferred.
    def: DefId,
    ctx: DeclCtx<'db>,
    body: &'a Body,
    types: Vec<Ty>,
    diags: Vec<InferDiag>,
    scopes: Vec<Vec<Local>>,
    /// The declared return type (`Unknown` when not known).
    ret: Ty,
    /// In a method of a struct or class without `[mutating]`: `this` and
    /// its fields are read-only.
    this_immutable: bool,
    loops: u32,
    switches: u32,
    /// The receiver's type of the method call being resolved.
    receiver: Option<Ty>,
    /// Inside `no_diff(…)`.
    no_diff_depth: u32,
    /// The operand of the innermost `no_diff(…)`, and that expression.
    no_diff_call: Option<(ExprId, ExprId)>,
    /// The expression of the current expression statement (its value is
    /// not used).
    discarded: Option<ExprId>,
    /// Whether the function being inferred is backward-differentiable.
    differentiable: bool,
    /// What each call does with derivatives (for the data-flow analysis).
    call_kinds: HashMap<ExprId, crate::activity::CallKind>,
    /// Calls to non-differentiable functions in differentiable code,
    /// reported when the data-flow analysis says a derivative is lost.
    lost_candidates: Vec<(ExprId, String, bool)>,
    /// Differentiable calls under `no_diff`: (call, `no_diff` expression,
    /// callee).
    no_diff_candidates: Vec<(ExprId, ExprId, String)>,
    /// Arguments passed to parameters of non-differentiable generic type:
    /// (argument, callee, parameter, generic parameter).
    generic_arg_candidates: Vec<(ExprId, String, String, String)>,
    /// Stores into locations without derivatives: (assignment, value,
    /// what the location is), reported when the value carries one.
    store_candidates: Vec<(ExprId, ExprId, String)>,
    /// Names of fields of `this` used without `this.`.
    this_fields: std::collections::HashSet<ExprId>,
    /// A differentiable method of a type that is not differentiable: its
    /// fields get no derivatives (the type's name; a warning on use).
    non_differentiable_this: Option<String>,
    /// Inside the operand of `fwd_diff`/`bwd_diff`, where `S.method`
    /// names an instance method whose `this` is passed explicitly.
    diff_operand_depth: u32,
    /// `S.method` expressions naming instance methods through their type.
    through_type: std::collections::HashSet<ExprId>,
    /// Whether unused locals are reported (see `pop_scope`).
    warn_unused: bool,
    attribute_names: Vec<String>,
    /// Set by `instantiate` when a generic argument breaks a constraint:
    /// (argument type, interface).
    violation: Option<(String, String)>,
}

/// The function and expression of the syntax node `node`, if it is an
/// expression inside a function body.
fn expr_at(db: &dyn Db, file: SourceFile, node: &slang_syntax::SyntaxNode) -> Option<(DefId, ExprId)> {
    let f = function_containing(db, file, node.text_range())?;
    crate::hir::expr_of_node(db, f, node).map(|e| (f, e))
}

/// Whether the expression whose syntax node is `node` carries a derivative
/// (`None` outside differentiable functions).
pub fn carries_derivative(db: &dyn Db, file: SourceFile, node: &slang_syntax::SyntaxNode) -> Option<bool> {
    let (f, e) = expr_at(db, file, node)?;
    infer(db, f).carries_derivative.get(e.0 as usize).copied()
}

/// The type of the expression whose syntax node is `node` (for hover and
/// tests), if it is inside a function body.
pub fn type_of_node(db: &dyn Db, file: SourceFile, node: &slang_syntax::SyntaxNode) -> Option<Ty> {
    let (f, e) = expr_at(db, file, node)?;
    infer(db, f).expr_types.get(e.0 as usize).cloned()
}
