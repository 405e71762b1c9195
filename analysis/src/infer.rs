//! Type inference for function bodies, and the declaration facts it needs
//! (types of variables and fields, function signatures, members).
//!
//! Inference is per function ([`infer`]): it reads the function's
//! position-free [`Body`] and the signatures of what it refers to, so an
//! edit elsewhere does not re-run it. Types that cannot be determined are
//! [`Ty::Unknown`], which never causes a diagnostic: the checks here only
//! speak when the model is sure (see each diagnostic).

use std::collections::HashMap;
use std::sync::Arc;

use slang_syntax::ast::{self, AstNode};
use slang_syntax::SyntaxKind;

use crate::hir::{
    body, def_node, lower_type, BinaryOp, Body, DefId, Expr, ExprId, GenericArgRef, LiteralKind, LocalDecl,
    PathSegment, Stmt, StmtId, TypeRef,
};
use crate::item_tree::{item_tree, Item, ItemKind, Visibility};
use crate::name_res::{global_scope, DefRef};
use crate::ty::{parse_vector_alias, Scalar, Ty, TypeResolver};
use crate::{Db, SourceFile};

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
        SyntaxKind::TYPEALIAS => Some(lower_type(ast::Typealias::cast(node)?.ty())),
        SyntaxKind::TYPEDEF => {
            let t = ast::Typedef::cast(node.clone())?;
            let mut ty = lower_type(t.ty());
            for s in node.children().filter_map(ast::ArraySuffix::cast).collect::<Vec<_>>().into_iter().rev() {
                ty = TypeRef::Array(Box::new(ty), crate::hir::array_len(&s));
            }
            Some(ty)
        }
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
/// instance (`buffer B { ... } b;`) has the block's type.
pub fn global_var_type(db: &dyn Db, def: DefId) -> Ty {
    if let Some(t) = decl_type_ref(db, def) {
        let mut ctx = DeclCtx::for_def(db, def);
        return ctx.resolve(t);
    }
    let block = def.ast_index(db).checked_sub(1).map(|i| DefId::new(db, def.file(db), i));
    match block.and_then(|b| Some((b, item_of(db, b)?))) {
        Some((b, item)) if item.kind == ItemKind::GlslBlock => {
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
    /// `[__elementwise]`: also applies component-wise to vectors/matrices.
    pub elementwise: bool,
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
    let (has_defaults, variadic, generic_params, elementwise) = match &item {
        Some(item) => (
            item.params.iter().map(|p| p.has_default).collect(),
            item.params.iter().any(|p| p.is_variadic),
            item.generic_params.iter().filter_map(|g| g.name.clone()).collect(),
            item.has_attr("__elementwise"),
        ),
        None => (Vec::new(), false, Vec::new(), false),
    };
    Arc::new(FnSig { params: b.params.clone(), has_defaults, variadic, ret, generic_params, elementwise })
}

pub(crate) fn is_core(db: &dyn Db, file: SourceFile) -> bool {
    crate::core_module::is_core_path(file.path(db))
}

// ---------------------------------------------------------------------------
// Resolving type references in a declaration's context.

/// The context of a declaration: its file, the generic parameters in scope
/// (bound to argument types when known) and the enclosing type.
#[derive(Clone)]
pub struct DeclCtx<'db> {
    pub db: &'db dyn Db,
    pub file: SourceFile,
    pub generics: HashMap<String, Ty>,
    pub this: Ty,
    depth: u32,
    /// The namespaces the declaration is in, innermost first (`a::b`,
    /// `a`): names are looked up there before the file's scope.
    namespaces: Vec<String>,
}

impl<'db> DeclCtx<'db> {
    pub fn new(db: &'db dyn Db, file: SourceFile) -> Self {
        DeclCtx { db, file, generics: HashMap::new(), this: Ty::Unknown, depth: 0, namespaces: Vec::new() }
    }

    /// The context inside `def` (a function, a struct …): its generic
    /// parameters and those of its parents, and `This`.
    pub fn for_def(db: &'db dyn Db, def: DefId) -> Self {
        Self::specialized(db, def, &HashMap::new())
    }

    /// The context inside `def` with generic parameters (its own and its
    /// parents') named in `bindings` bound to those types (`Ty::Const`
    /// for value parameters): a specialization, as code generation
    /// monomorphizes generic code.
    pub fn specialized(db: &'db dyn Db, def: DefId, bindings: &HashMap<String, Ty>) -> Self {
        let mut ctx = DeclCtx::new(db, def.file(db));
        let mut cur = Some(def);
        let mut chain = Vec::new();
        while let Some(d) = cur {
            chain.push(d);
            cur = parent_of(db, d);
        }
        let mut path = String::new();
        for d in chain.iter().rev() {
            if let Some(item) = item_of(db, *d) {
                if item.kind == ItemKind::Namespace {
                    let name = item.name.clone().unwrap_or_default();
                    path = if path.is_empty() { name } else { format!("{path}::{name}") };
                    ctx.namespaces.insert(0, path.clone());
                }
                for g in &item.generic_params {
                    if let Some(n) = &g.name {
                        let gdef = DefId::new(db, def.file(db), g.ast_index);
                        let bound = bindings.get(n).cloned();
                        ctx.generics.insert(n.clone(), bound.unwrap_or(Ty::Param { def: gdef, name: n.clone() }));
                    }
                }
                if item.kind == ItemKind::Extension {
                    // Inside `extension S { … }`, `This` is `S`; inside
                    // `extension<T> S<T> { … }`, `S<T>` (not in
                    // `extension<T : I> T`, which extends any type).
                    let target =
                        crate::hir::decl_syntax(db, *d).and_then(ast::Extension::cast).and_then(|e| e.target());
                    if let Some(t) = target {
                        let this = ctx.resolve(&crate::hir::lower_type(Some(t)));
                        if item.generic_params.is_empty() || matches!(this, Ty::Adt { .. }) {
                            ctx.this = this;
                        }
                    }
                }
                if matches!(item.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Interface | ItemKind::Enum) {
                    let args = item
                        .generic_params
                        .iter()
                        .filter_map(|g| g.name.as_ref().and_then(|n| ctx.generics.get(n).cloned()))
                        .collect();
                    ctx.this = Ty::Adt { def: *d, name: item.name.clone().unwrap_or_default(), args };
                }
            }
        }
        ctx
    }

    pub fn lookup_global(&self, name: &str) -> Vec<DefRef> {
        let scope = global_scope(self.db, self.file);
        for ns in &self.namespaces {
            if let Some(defs) = scope.namespace(ns).and_then(|m| m.get(name)) {
                return defs.clone();
            }
        }
        scope.lookup(name).cloned().unwrap_or_default()
    }

    /// The type a declared type name stands for.
    pub fn type_of_type_def(&mut self, d: &DefRef, args: &[GenericArgRef]) -> Ty {
        let db = self.db;
        let def = DefId::new(db, d.file, d.ast_index);
        let Some(item) = item_of(db, def) else { return Ty::Unknown };
        let name = item.name.clone().unwrap_or_default();
        match item.kind {
            ItemKind::Struct | ItemKind::Class | ItemKind::Enum | ItemKind::Interface => {
                if item.has_attr("__BuiltinScalar") {
                    if let Some(s) = Scalar::from_name(&name) {
                        return Ty::Scalar(s);
                    }
                    if name == "void" {
                        return Ty::Void;
                    }
                }
                if let Some(t) = self.builtin_generic(&name, args) {
                    return t;
                }
                // HLSL: a bare `vector` is `float4`, a bare `matrix` `float4x4`.
                match (
                    name.as_str(),
                    args.is_empty(),
                    item.has_attr("__BuiltinVector") || item.has_attr("__BuiltinMatrix"),
                ) {
                    ("vector", true, true) => return Ty::Vector(Scalar::Float, 4),
                    ("matrix", true, true) => return Ty::Matrix(Scalar::Float, 4, 4),
                    _ => {}
                }
                let mut args: Vec<Ty> = args
                    .iter()
                    .map(|a| match a {
                        GenericArgRef::Type(t) => self.resolve(t),
                        GenericArgRef::Value(Some(n)) => Ty::Const(*n),
                        GenericArgRef::Value(None) => Ty::Unknown,
                    })
                    .collect();
                // Defaults of the parameters, when none is given
                // (`Texture2D` is `Texture2D<float4>`; a type written with
                // some arguments keeps its spelling).
                let given = if args.is_empty() { 0 } else { item.generic_params.len() };
                for g in item.generic_params.iter().skip(given) {
                    let node = crate::hir::decl_syntax(db, DefId::new(db, d.file, g.ast_index));
                    let default = node.as_ref().and_then(|n| {
                        n.children_with_tokens().any(|t| t.kind() == SyntaxKind::EQ).then_some(())?;
                        slang_syntax::ast::GenericTypeParam::cast(n.clone())?.types().last()
                    });
                    match default {
                        Some(t) => {
                            let t = crate::hir::lower_type(Some(t));
                            args.push(DeclCtx::for_def(db, def).resolve(&t));
                        }
                        None => break,
                    }
                }
                Ty::Adt { def, name, args }
            }
            ItemKind::Typealias | ItemKind::Typedef => {
                if self.depth > 16 || !item.generic_params.is_empty() {
                    return Ty::Unknown;
                }
                let Some(target) = decl_type_ref(db, def).clone() else { return Ty::Unknown };
                let mut inner = DeclCtx::for_def(db, def);
                inner.depth = self.depth + 1;
                // A member of the generic struct `This` is (`typedef
                // Feature<C> Output` inside `Linear<let C : int>`): its
                // parameters are `This`'s arguments.
                if let Ty::Adt { def: this_def, args, .. } = &self.this {
                    if parent_of(db, def) == Some(*this_def) {
                        let params = item_of(db, *this_def).map(|i| i.generic_params.clone()).unwrap_or_default();
                        for (g, a) in params.iter().zip(args) {
                            if let Some(n) = &g.name {
                                inner.generics.insert(n.clone(), a.clone());
                            }
                        }
                    }
                }
                inner.resolve(&target)
            }
            _ => Ty::Unknown,
        }
    }
}

impl DeclCtx<'_> {
    /// The value of a constant integer expression: literals, generic
    /// value parameters, `static const`/`const` globals and members
    /// (`K`, `S.K`, `S::K`, `K` inside `S`), `int(…)`/`uint(…)`, and
    /// arithmetic and bit operations on those.
    pub fn eval_const(&mut self, e: &ast::Expr) -> Option<i64> {
        if self.depth > 16 {
            return None;
        }
        match e {
            ast::Expr::Literal(l) => crate::hir::parse_int_literal(l.token()?.text()),
            ast::Expr::ParenExpr(p) => self.eval_const(&p.expr()?),
            ast::Expr::PrefixExpr(p) => {
                let v = self.eval_const(&p.expr()?)?;
                match p.op()?.kind() {
                    SyntaxKind::MINUS => v.checked_neg(),
                    SyntaxKind::PLUS => Some(v),
                    SyntaxKind::TILDE => Some(!v),
                    _ => None,
                }
            }
            ast::Expr::BinExpr(b) => {
                let (l, r) = (self.eval_const(&b.lhs()?)?, self.eval_const(&b.rhs()?)?);
                match b.op_kind()? {
                    SyntaxKind::PLUS => l.checked_add(r),
                    SyntaxKind::MINUS => l.checked_sub(r),
                    SyntaxKind::STAR => l.checked_mul(r),
                    SyntaxKind::SLASH => l.checked_div(r),
                    SyntaxKind::PERCENT => l.checked_rem(r),
                    SyntaxKind::SHL => u32::try_from(r).ok().and_then(|r| l.checked_shl(r)),
                    SyntaxKind::SHR => u32::try_from(r).ok().and_then(|r| l.checked_shr(r)),
                    SyntaxKind::AMP => Some(l & r),
                    SyntaxKind::PIPE => Some(l | r),
                    SyntaxKind::CARET => Some(l ^ r),
                    _ => None,
                }
            }
            // `int(N)`, `uint(N)`.
            ast::Expr::CallExpr(c) => {
                let callee = c.callee()?.syntax().text().to_string();
                let [arg] = c.args().collect::<Vec<_>>().try_into().ok()?;
                matches!(callee.trim(), "int" | "uint" | "int64_t" | "uint64_t").then_some(())?;
                self.eval_const(&arg)
            }
            ast::Expr::PathExpr(p) => {
                let text = p.syntax().text().to_string();
                let segs: Vec<&str> = text.split("::").map(str::trim).collect();
                match segs.as_slice() {
                    [name] => {
                        if let Some(Ty::Const(v)) = self.generics.get(*name) {
                            return Some(*v);
                        }
                        self.named_const(None, name)
                    }
                    [owner @ .., name] => {
                        let owner = self.type_named(&owner.join("::"));
                        self.named_const(Some(&owner), name)
                    }
                    [] => None,
                }
            }
            ast::Expr::MemberExpr(m) => {
                let receiver = m.receiver()?.syntax().text().to_string();
                let owner = self.type_named(&receiver);
                self.named_const(Some(&owner), m.name()?.text())
            }
            _ => None,
        }
    }

    /// The type written `text` (`S`, `ns::S`, `Linear<4, 1>`).
    fn type_named(&mut self, text: &str) -> Ty {
        let parse = slang_syntax::parse(&format!("{text} __v;"));
        let ty = parse.syntax_node().descendants().find_map(ast::VarDecl::cast).and_then(|d| d.ty());
        match ty {
            Some(t) if parse.errors().is_empty() => self.resolve(&crate::hir::lower_type(Some(t))),
            _ => Ty::Unknown,
        }
    }

    /// The constant `name`: a `static const` member of `owner` (or of
    /// `This`, when no owner is written), else a global one.
    fn named_const(&mut self, owner: Option<&Ty>, name: &str) -> Option<i64> {
        let db = self.db;
        // The member, and its type's generic arguments by name.
        let member = |t: &Ty| -> Option<(DefId, Vec<(String, Ty)>)> {
            let Ty::Adt { def, args, .. } = t else { return None };
            let item = item_of(db, *def)?;
            let m = item
                .members
                .iter()
                .find(|m| m.kind == ItemKind::Var && m.is_static && m.name.as_deref() == Some(name))?
                .ast_index;
            let bound = item.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
            Some((DefId::new(db, def.file(db), m), bound))
        };
        let (def, bound) = match owner {
            Some(t) => member(t)?,
            None => match member(&self.this.clone()) {
                Some(found) => found,
                None => {
                    let defs = self.lookup_global(name);
                    let [d] = defs.as_slice() else { return None };
                    if d.kind != ItemKind::Var {
                        return None;
                    }
                    (DefId::new(db, d.file, d.ast_index), Vec::new())
                }
            },
        };
        let item = item_of(db, def)?;
        if !item.modifiers.contains(&SyntaxKind::CONST_KW) && !item.is_static {
            return None;
        }
        let decl = crate::hir::decl_syntax(db, def)?;
        let init = ast::Declarator::cast(decl)?.initializer()?;
        // In the constant's own context (its struct's generic arguments
        // as bound here).
        let mut inner = DeclCtx::for_def(db, def);
        inner.generics.extend(self.generics.clone());
        inner.generics.extend(bound.into_iter().filter(|(_, t)| !matches!(t, Ty::Param { .. })));
        inner.depth = self.depth + 1;
        inner.eval_const(&init)
    }
}

impl TypeResolver for DeclCtx<'_> {
    fn this_type(&self) -> Ty {
        self.this.clone()
    }

    /// The value of a constant integer expression written as `name` (an
    /// array size, a generic argument): a generic value parameter, a
    /// `static const` (or `const`) global or member, or arithmetic on
    /// those (the text is parsed as an expression).
    fn const_value(&mut self, name: &str) -> Option<i64> {
        if let Some(Ty::Const(v)) = self.generics.get(name) {
            return Some(*v);
        }
        if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return self.named_const(None, name);
        }
        let parse = slang_syntax::parse(&format!("static const int __e = {name};"));
        let init = parse.syntax_node().descendants().find_map(ast::Declarator::cast)?.initializer()?;
        self.eval_const(&init)
    }

    fn resolve_named(&mut self, segs: &[PathSegment]) -> Ty {
        let Some(first) = segs.first() else { return Ty::Unknown };
        let mut ty = self.resolve_first(first);
        for seg in &segs[1..] {
            ty = match ty {
                Ty::Param { .. } | Ty::Assoc(..) => Ty::Assoc(Arc::new(ty), seg.name.clone()),
                // `float3.Differential`, `S.Differential` (synthesized).
                Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) | Ty::Array(..) if seg.name == "Differential" => {
                    crate::autodiff::differential_of(self.db, &ty)
                }
                Ty::Adt { def, .. }
                    if seg.name == "Differential"
                        && !is_core(self.db, def.file(self.db))
                        && crate::autodiff::synthesized_differential(self.db, self.file, def).is_some() =>
                {
                    crate::autodiff::differential_of(self.db, &ty)
                }
                Ty::Namespace(ns) => {
                    let full = ns.clone();
                    let scope = global_scope(self.db, self.file);
                    match scope.namespace(&full).and_then(|t| t.get(&seg.name)).and_then(|d| d.first()).copied() {
                        Some(d) if d.kind == ItemKind::Namespace => Ty::Namespace(format!("{full}::{}", seg.name)),
                        Some(d) => self.type_of_type_def(&d, &seg.args),
                        None => Ty::Unknown,
                    }
                }
                Ty::Adt { def, .. } => {
                    // A nested type or type alias.
                    let member = item_of(self.db, def).and_then(|i| {
                        i.members
                            .iter()
                            .find(|m| m.name.as_deref() == Some(seg.name.as_str()) && m.kind.is_type())
                            .cloned()
                    });
                    match member {
                        Some(m) => {
                            let d = DefRef { file: def.file(self.db), ast_index: m.ast_index, kind: m.kind };
                            self.type_of_type_def(&d, &seg.args)
                        }
                        None => Ty::Assoc(Arc::new(ty), seg.name.clone()),
                    }
                }
                _ => Ty::Unknown,
            };
        }
        ty
    }
}

impl DeclCtx<'_> {
    fn resolve_first(&mut self, seg: &PathSegment) -> Ty {
        let name = seg.name.as_str();
        if let Some(t) = self.generics.get(name) {
            return t.clone();
        }
        // A type declared inside the enclosing struct (`typedef D
        // Differential;`, a nested struct).
        if let Ty::Adt { def, .. } = &self.this {
            let def = *def;
            let member = item_of(self.db, def)
                .and_then(|i| i.members.iter().find(|m| m.name.as_deref() == Some(name) && m.kind.is_type()).cloned());
            if let Some(m) = member {
                let d = DefRef { file: def.file(self.db), ast_index: m.ast_index, kind: m.kind };
                return self.type_of_type_def(&d, &seg.args);
            }
        }
        let defs = self.lookup_global(name);
        if let Some(d) = defs.iter().find(|d| d.kind.is_type()) {
            return self.type_of_type_def(d, &seg.args);
        }
        if let Some(d) = defs.iter().find(|d| d.kind == ItemKind::Namespace) {
            let _ = d;
            return Ty::Namespace(name.to_string());
        }
        if let Some(s) = Scalar::from_name(name) {
            return Ty::Scalar(s);
        }
        if let Some(t) = self.builtin_generic(name, &seg.args) {
            return t;
        }
        if let Some(t) = parse_vector_alias(name) {
            return t;
        }
        match name {
            "void" => Ty::Void,
            "String" | "string" => Ty::String,
            // A constant as a generic argument (`Vec<N>` with `static
            // const int N`).
            _ if seg.args.is_empty() => self.const_value(name).map_or(Ty::Unknown, Ty::Const),
            _ => Ty::Unknown,
        }
    }
}

// ---------------------------------------------------------------------------
// Members.

/// A member found by name on a type.
#[derive(Debug, Clone)]
pub enum Member {
    Field(Ty),
    Methods(Vec<DefId>),
    /// Known to exist, type not modelled.
    Opaque,
}

/// Whether every member of the type is known to this model (so that "no
/// member named x" can be reported): a user-written struct or class with
/// no supertypes and no extension anywhere in scope.
#[salsa::tracked(returns(copy))]
fn members_fully_known(db: &dyn Db, from: SourceFile, def: DefId) -> bool {
    let Some(item) = item_of(db, def) else { return false };
    if is_core(db, def.file(db)) || !matches!(item.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Enum) {
        return false;
    }
    let Some(node) = crate::hir::decl_syntax(db, def) else { return false };
    // (An enum's inheritance list is its underlying type.)
    if item.kind != ItemKind::Enum && node.children().any(|c| c.kind() == SyntaxKind::INHERITANCE_LIST) {
        return false;
    }
    // Members made by macros (`X(Normal, float3)` in the body) or by
    // directives are not all visible here.
    if node
        .descendants()
        .any(|n| matches!(n.kind(), SyntaxKind::MACRO_CALL | SyntaxKind::MACRO_TYPE | SyntaxKind::PP_INCLUDE))
    {
        return false;
    }
    let name = item.name.clone().unwrap_or_default();
    // Any extension whose target is named like this type.
    let files: Vec<SourceFile> = crate::module_graph::module_of(db, from)
        .iter()
        .chain(crate::module_graph::imported_files(db, from))
        .copied()
        .chain(std::iter::once(def.file(db)))
        .collect();
    !files.into_iter().any(|f| extension_targets(db, f).iter().any(|(target, generic)| *generic || *target == name))
}

/// The extensions of a file: the name of the type each extends, and
/// whether it is generic (`extension<T : I> T` may extend anything).
#[salsa::tracked(returns(ref))]
fn extension_targets(db: &dyn Db, file: SourceFile) -> Vec<(String, bool)> {
    let tree = item_tree(db, file);
    let map = crate::item_tree::item_source_map(db, file);
    let root = crate::parse(db, file).syntax_node();
    tree.walk()
        .filter(|i| i.kind == ItemKind::Extension)
        .filter_map(|i| ast::Extension::cast(map.get(i.ast_index as usize)?.to_node(&root)))
        .map(|ext| {
            let target = ext.target().map(|t| t.syntax().text().to_string()).unwrap_or_default();
            (target.split('<').next().unwrap_or("").trim().to_string(), ext.generic_param_list_exists())
        })
        .collect()
}

/// Names of members that extensions visible from `file` add (core module
/// included), or `None` if macros may add members unseen.
#[salsa::tracked(returns(ref))]
pub fn extension_member_names(db: &dyn Db, file: SourceFile) -> Option<std::collections::HashSet<String>> {
    let mut out = std::collections::HashSet::new();
    let files = crate::module_graph::module_of(db, file)
        .iter()
        .chain(crate::module_graph::imported_files(db, file))
        .chain(crate::base::CoreModule::get(db).files(db))
        .copied()
        .collect::<Vec<_>>();
    for f in files {
        let tree = item_tree(db, f);
        if tree.has_item_macros {
            return None;
        }
        for ext in tree.walk().filter(|i| i.kind == ItemKind::Extension) {
            out.extend(ext.members.iter().filter_map(|m| m.name.clone()));
        }
    }
    Some(out)
}

/// Whether `name` is certainly no member of a built-in value type
/// (scalars, vectors, matrices): no extension anywhere adds it.
fn not_a_builtin_member(db: &dyn Db, file: SourceFile, name: &str) -> bool {
    extension_member_names(db, file).as_ref().is_some_and(|names| !names.contains(name))
}

trait ExtensionExt {
    fn generic_param_list_exists(&self) -> bool;
}

impl ExtensionExt for ast::Extension {
    /// `extension<T : I> T : J` may apply to any type.
    fn generic_param_list_exists(&self) -> bool {
        self.syntax().children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST)
    }
}

/// The methods named `name` that the extensions visible from `file` (not
/// generic ones) add to the type `ty`.
pub fn extension_methods(db: &dyn Db, file: SourceFile, ty: &Ty, name: &str) -> Vec<DefId> {
    if !extension_member_names(db, file).as_ref().is_some_and(|names| names.contains(name)) {
        return Vec::new();
    }
    let files: Vec<SourceFile> = crate::module_graph::module_of(db, file)
        .iter()
        .chain(crate::module_graph::imported_files(db, file))
        .copied()
        .collect();
    let mut out = Vec::new();
    for f in files {
        let tree = item_tree(db, f);
        for ext in tree.walk().filter(|i| i.kind == ItemKind::Extension && i.generic_params.is_empty()) {
            let methods: Vec<&Item> =
                ext.members.iter().filter(|m| m.kind == ItemKind::Fn && m.name.as_deref() == Some(name)).collect();
            if methods.is_empty() || DeclCtx::for_def(db, DefId::new(db, f, ext.ast_index)).this != *ty {
                continue;
            }
            out.extend(methods.into_iter().map(|m| DefId::new(db, f, m.ast_index)));
        }
    }
    out
}

/// Look up `name` on the type `def<args>`.
pub fn lookup_member(db: &dyn Db, def: DefId, args: &[Ty], name: &str) -> Option<Member> {
    let item = item_of(db, def)?;
    let mut methods = Vec::new();
    let mut found_other = false;
    let mut field = None;
    let mut visit = |members: &[Item], file: SourceFile| {
        for m in members {
            if m.name.as_deref() != Some(name) {
                continue;
            }
            let mdef = DefId::new(db, file, m.ast_index);
            match m.kind {
                ItemKind::Fn => methods.push(mdef),
                ItemKind::Var | ItemKind::Property => {
                    if field.is_none() {
                        let mut ctx = DeclCtx::for_def(db, def);
                        for (g, a) in item.generic_params.iter().zip(args) {
                            if let (Some(n), false) = (&g.name, a.is_unknown()) {
                                ctx.generics.insert(n.clone(), a.clone());
                            }
                        }
                        let t = decl_type_ref(db, mdef).clone().map(|t| ctx.resolve(&t)).unwrap_or(Ty::Unknown);
                        field = Some(t);
                    }
                }
                ItemKind::EnumCase => {
                    field = Some(Ty::Adt { def, name: item.name.clone().unwrap_or_default(), args: Vec::new() })
                }
                _ => found_other = true,
            }
        }
    };
    visit(&item.members, def.file(db));
    // Methods that extensions of the type (in its module) add.
    if !is_core(db, def.file(db)) && matches!(item.kind, ItemKind::Struct | ItemKind::Class) {
        let type_name = item.name.clone().unwrap_or_default();
        for f in crate::module_graph::module_of(db, def.file(db)).iter().copied() {
            if !extension_targets(db, f).iter().any(|(t, _)| *t == type_name) {
                continue;
            }
            let tree = item_tree(db, f);
            for ext in tree.walk().filter(|i| i.kind == ItemKind::Extension) {
                // (Its own tree: an edit elsewhere in `f` does not re-run
                // the inference that asks.)
                let target = crate::hir::decl_syntax(db, DefId::new(db, f, ext.ast_index))
                    .and_then(ast::Extension::cast)
                    .and_then(|e| e.target())
                    .map(|t| t.syntax().text().to_string())
                    .unwrap_or_default();
                // `extension S`, `extension S<float>` of `S<float>`, or
                // `extension<T> S<T>` of any `S<…>`.
                let applies = target.trim() == type_name
                    || (target.split('<').next().is_some_and(|b| b.trim() == type_name)
                        && match DeclCtx::for_def(db, DefId::new(db, f, ext.ast_index)).this {
                            Ty::Adt { def: d, args: a, .. } if d == def && a.len() == args.len() => {
                                a.iter().zip(args).all(|(x, y)| matches!(x, Ty::Param { .. }) || x == y)
                            }
                            _ => false,
                        });
                if applies {
                    visit(&ext.members, f);
                }
            }
        }
    }
    if let Some(f) = field {
        return Some(Member::Field(f));
    }
    if !methods.is_empty() {
        return Some(Member::Methods(methods));
    }
    if !found_other && item.kind == ItemKind::Interface {
        // A requirement of an inherited interface (each interface once:
        // inheritance may be cyclic in code being edited).
        let mut all = std::collections::HashSet::new();
        crate::generics::interface_closure(db, def, &mut all);
        all.remove(&def);
        let mut bases: Vec<DefId> = all.into_iter().collect();
        bases.sort_by_key(|d| (d.file(db).path(db).clone(), d.ast_index(db)));
        for base in bases {
            let found = item_of(db, base).and_then(|b| {
                b.members.iter().find(|m| m.name.as_deref() == Some(name) && m.kind == ItemKind::Fn).map(|_| base)
            });
            if let Some(base) = found {
                return lookup_member(db, base, &[], name);
            }
        }
    }
    found_other.then_some(Member::Opaque)
}

/// The return type of the `__subscript` of `def<args>`, if it has one.
fn subscript_type(db: &dyn Db, def: DefId, args: &[Ty]) -> Option<Ty> {
    let item = item_of(db, def)?;
    let sub = item.members.iter().find(|m| m.kind == ItemKind::Subscript)?;
    let sdef = DefId::new(db, def.file(db), sub.ast_index);
    let mut ctx = DeclCtx::for_def(db, sdef);
    for (g, a) in item.generic_params.iter().zip(args) {
        if let (Some(n), false) = (&g.name, a.is_unknown()) {
            ctx.generics.insert(n.clone(), a.clone());
        }
    }
    let ret = fn_sig(db, sdef).ret.clone();
    Some(ctx.resolve(&ret))
}

// ---------------------------------------------------------------------------
// Inference.

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum InferDiagKind {
    /// `s.x` where the struct has no member `x`.
    NoSuchMember {
        ty: String,
        name: String,
    },
    /// `x is T` / `x as T` where `x` has a concrete type other than `T`
    /// (never true; the reference compiler rejects it, E30304).
    UnrelatedIsAs {
        from: String,
        to: String,
    },
    /// `v.xq` on a vector.
    BadSwizzle {
        ty: String,
        name: String,
    },
    /// `f(1, 2)` where every `f` takes another number of arguments.
    ArgCount {
        name: String,
        expected: String,
        found: usize,
    },
    /// Assignment to a `let`/`const` local.
    AssignImmutable {
        name: String,
    },
    /// A value of one type where another is required.
    Mismatch {
        expected: String,
        found: String,
    },
    /// `a * b` with vectors of different sizes, and similar.
    NoOperator {
        op: String,
        lhs: String,
        rhs: String,
    },
    /// `return;` in a function that returns a value.
    ReturnMissingValue {
        ty: String,
    },
    /// `break`/`continue` outside a loop (or switch, for `break`).
    OutsideLoop {
        keyword: &'static str,
    },
    /// A second local of the same name in the same scope.
    Redefinition {
        name: String,
    },
    /// An `out`/`inout` argument that is not a variable.
    NotAnLvalue,
    /// `case 1:` twice in one switch.
    DuplicateCase {
        value: i64,
    },
    DuplicateDefault,
    /// `let x;`
    LetWithoutValue {
        name: String,
    },
    /// `void x;`
    VoidVariable {
        name: String,
    },
    /// The left side of `=` cannot be written.
    NotAssignable {
        why: String,
    },
    /// No overload accepts the arguments.
    NoOverload {
        name: String,
        args: String,
        candidates: Vec<String>,
    },
    /// Several overloads fit, none better than the others for every
    /// argument.
    Ambiguous {
        name: String,
        args: String,
        candidates: Vec<String>,
    },
    /// `S.x` / `ns::x` / `E.X` where the type, namespace or enum has no `x`.
    NoStaticMember {
        owner: String,
        name: String,
    },
    /// A `private` member used outside its type, an `internal` one outside
    /// its module.
    Inaccessible {
        what: String,
        visibility: &'static str,
    },
    /// A `[mutating]` method called on a value that cannot change.
    MutatingOnImmutable {
        name: String,
        why: String,
    },
    /// `Type.field` / `Type.method()` for an instance member, or an
    /// instance member used in a static method.
    InstanceMemberWithoutInstance {
        owner: String,
        name: String,
        in_static_method: bool,
    },
    /// `fwd_diff(f)` / `bwd_diff(f)` of a function that is not
    /// differentiable in that mode.
    NotDifferentiable {
        name: String,
        operator: &'static str,
        forward_only: bool,
    },
    /// `fwd_diff(f)(…)` with another number of arguments than the
    /// derivative takes.
    DerivativeArgCount {
        name: String,
        expected: String,
        found: usize,
        signatures: Vec<String>,
    },
    /// A type with the wrong number of generic arguments.
    GenericArity {
        why: String,
    },
    /// A variable of another type passed to an `out`/`inout` parameter.
    OutArgumentType {
        expected: String,
        found: String,
    },
    /// `switch` on a floating-point value.
    FloatSwitch {
        ty: String,
    },
    /// `f<float, float>(…)` where `f` has one generic parameter.
    TooManyGenericArgs {
        expected: usize,
        found: usize,
    },
    /// A differentiable function calling itself.
    Recursion {
        name: String,
    },
    /// A derivative-carrying value stored into a buffer or a `no_diff`
    /// field.
    DerivativeLostInStore {
        into: String,
    },
    /// `no_diff(x)` on something other than a call or a subscript.
    NoDiffOperand,
    /// A call to a non-differentiable function in a differentiable one,
    /// outside `no_diff`.
    DerivativeLost {
        name: String,
        /// A property read (its getter is the function), not a call.
        property: bool,
    },
    /// A statement after `return`, `break` or `continue` (a warning).
    Unreachable,
    /// A field of a non-differentiable `this` used in a differentiable
    /// method (a warning: its derivative is dropped).
    FieldWithoutDerivative {
        owner: String,
        name: String,
    },
    /// An argument carrying a derivative passed to a parameter whose type
    /// is a generic parameter that is not `IDifferentiable` (a warning:
    /// the derivative is dropped).
    DerivativeLostInGeneric {
        callee: String,
        param: String,
        generic: String,
    },
    /// `no_diff` on a call of a differentiable function (a warning: it
    /// has no effect there; the derivative flows through the call).
    NoDiffOnDifferentiable {
        name: String,
    },
    /// A local that is never used (a warning).
    UnusedVariable {
        name: String,
    },
    /// A generic argument that does not conform to the constraint.
    NotConforming {
        arg: String,
        interface: String,
    },
    /// `x[0]` where `x` is a scalar or a struct without `__subscript`.
    NoSubscript {
        ty: String,
    },
    /// `a[3]` for a `float a[2]` (a literal index past a fixed size).
    IndexOutOfBounds {
        index: i64,
        len: u32,
    },
    /// `x(1)` where `x` is a value, not a function.
    NotCallable {
        ty: String,
    },
    /// `int a[2] = {1, 2, 3};`
    TooManyInitializers {
        expected: usize,
        found: usize,
    },
}

/// Where a diagnostic of inference points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DiagAt {
    Expr(ExprId),
    Stmt(StmtId),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InferDiag {
    pub at: DiagAt,
    pub kind: InferDiagKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InferenceResult {
    pub expr_types: Vec<Ty>,
    pub diagnostics: Vec<InferDiag>,
    /// In a differentiable function: whether each expression carries a
    /// derivative (for semantic highlighting); empty elsewhere.
    pub carries_derivative: Vec<bool>,
}

#[salsa::tracked(returns(ref))]
pub fn infer(db: &dyn Db, def: DefId) -> Arc<InferenceResult> {
    Arc::new(infer_in(db, def, DeclCtx::for_def(db, def)))
}

/// The types of `def`'s body with its generic parameters bound as in
/// `bindings` (see [`DeclCtx::specialized`]): what code generation lowers
/// for one instantiation. Not cached.
pub fn infer_specialized(db: &dyn Db, def: DefId, bindings: &HashMap<String, Ty>) -> InferenceResult {
    infer_in(db, def, DeclCtx::specialized(db, def, bindings))
}

fn infer_in<'db>(db: &'db dyn Db, def: DefId, ctx: DeclCtx<'db>) -> InferenceResult {
    let b = body(db, def);
    let this_immutable = item_of(db, def).is_some_and(|i| {
        i.kind == ItemKind::Fn
            && !i.is_static
            && !i.has_attr("mutating")
            && !i.modifiers.contains(&SyntaxKind::MUTATING_KW)
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

/// Core functions the reference compiler does not differentiate (the
/// rest are differentiable math, constructors, casts, `diffPair` …).
/// Built-in functions with derivatives that are not zero.
pub const CORE_DIFFERENTIABLE: [&str; 39] = [
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "exp",
    "exp2",
    "log",
    "log2",
    "log10",
    "pow",
    "sqrt",
    "rsqrt",
    "rcp",
    "abs",
    "min",
    "max",
    "clamp",
    "lerp",
    "dot",
    "cross",
    "length",
    "distance",
    "normalize",
    "reflect",
    "saturate",
    "frac",
    "fmod",
    "mul",
    "transpose",
    "determinant",
    "fma",
    "mad",
    "sincos",
];

const CORE_NOT_DIFFERENTIABLE: [&str; 13] = [
    "floor",
    "ceil",
    "round",
    "trunc",
    "step",
    "fmin",
    "fmax",
    "ldexp",
    "frexp",
    "modf",
    "exp10",
    "smoothstep",
    "faceforward",
];

/// For a differentiable, non-static method (without `[NoDiffThis]`) of a
/// struct that is not differentiable: the struct's name.
fn non_differentiable_this(db: &dyn Db, def: DefId) -> Option<String> {
    let item = item_of(db, def)?;
    let differentiable =
        crate::autodiff::fn_differentiability(db, def.file(db), def) != crate::autodiff::Differentiability::No;
    if !differentiable || item.is_static || item.has_attr("NoDiffThis") || item.has_attr("TreatAsDifferentiable") {
        return None;
    }
    let parent = parent_of(db, def)?;
    let p = item_of(db, parent)?;
    if !matches!(p.kind, ItemKind::Struct | ItemKind::Class) || is_core(db, parent.file(db)) {
        return None;
    }
    let this = DeclCtx::for_def(db, def).this;
    (crate::autodiff::type_diff(db, def.file(db), &this) == crate::autodiff::TypeDiff::No)
        .then(|| p.name.clone().unwrap_or_default())
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

/// Whether the user-written struct or class `def` is a plain value type:
/// converting anything else to it (or it to anything else) is an error.
/// A type name used with the wrong number of generic arguments:
/// `RWStructuredBuffer` alone, `LightList<float>` for a struct that is not
/// generic. (Inside a generic struct, its bare name is an error too, for
/// the reference compiler.)
pub fn generic_arity_problem(db: &dyn Db, file: SourceFile, segs: &[PathSegment]) -> Option<String> {
    let [seg] = segs else { return None };
    let defs = global_scope(db, file).lookup(&seg.name)?;
    let [d] = defs.as_slice() else { return None };
    if !matches!(d.kind, ItemKind::Struct | ItemKind::Class) {
        return None;
    }
    let def = DefId::new(db, d.file, d.ast_index);
    let item = item_of(db, def)?;
    if is_core(db, d.file) {
        const NEED_ARGS: [&str; 10] = [
            "StructuredBuffer",
            "RWStructuredBuffer",
            "AppendStructuredBuffer",
            "ConsumeStructuredBuffer",
            "RasterizerOrderedStructuredBuffer",
            "ConstantBuffer",
            "ParameterBlock",
            "DifferentialPair",
            "DifferentialPtrPair",
            "Optional",
        ];
        if !(NEED_ARGS.contains(&seg.name.as_str()) && seg.args.is_empty()) {
            return None;
        }
    }
    let required = item
        .generic_params
        .iter()
        .filter(|g| {
            let gdef = DefId::new(db, d.file, g.ast_index);
            !crate::hir::decl_syntax(db, gdef)
                .is_some_and(|n| n.children_with_tokens().any(|e| e.kind() == SyntaxKind::EQ))
        })
        .count();
    // A type where a value parameter (`let N : int`) is expected.
    if !is_core(db, d.file) {
        for (g, a) in item.generic_params.iter().zip(&seg.args) {
            if g.kind != ItemKind::GenericValueParam {
                continue;
            }
            if let GenericArgRef::Type(TypeRef::Path(p)) = a {
                if let [only] = p.as_slice() {
                    let is_type = Scalar::from_name(&only.name).is_some()
                        || parse_vector_alias(&only.name).is_some()
                        || global_scope(db, file)
                            .lookup(&only.name)
                            .is_some_and(|ds| ds.iter().all(|d| d.kind.is_type()));
                    if is_type {
                        return Some(format!(
                            "`{}` expects a value for its parameter `{}`, not the type `{}`",
                            seg.name,
                            g.name.as_deref().unwrap_or("?"),
                            only.name
                        ));
                    }
                }
            }
        }
    }
    if item.generic_params.is_empty() && !seg.args.is_empty() {
        Some(format!("`{}` is not generic, but is given generic arguments", seg.name))
    } else if seg.args.is_empty() && required > 0 {
        Some(format!(
            "`{}` is generic and needs {} generic argument{}: write `{}<…>`",
            seg.name,
            required,
            if required == 1 { "" } else { "s" },
            seg.name
        ))
    } else {
        None
    }
}

/// `name(float a, int b)`: a function's parameter list as written, for
/// candidate lists.
fn signature_text(db: &dyn Db, def: DefId, name: &str) -> String {
    let params = crate::hir::decl_syntax(db, def)
        .and_then(|n| n.children().find(|c| c.kind() == SyntaxKind::PARAM_LIST))
        .map(|p| p.text().to_string().split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "(…)".to_string());
    format!("{name}{params}")
}

/// Whether every member of `def` named `name` is an instance field or
/// method (so that it needs an instance).
fn only_instance_members(db: &dyn Db, def: DefId, name: &str) -> bool {
    let Some(item) = item_of(db, def) else { return false };
    let named: Vec<&Item> = item.members.iter().filter(|m| m.name.as_deref() == Some(name)).collect();
    !named.is_empty()
        && named.iter().all(|m| {
            matches!(m.kind, ItemKind::Var | ItemKind::Fn | ItemKind::Property)
                && !m.is_static
                && !m.modifiers.contains(&SyntaxKind::CONST_KW)
        })
}

fn is_user_enum(db: &dyn Db, def: DefId) -> bool {
    !is_core(db, def.file(db)) && item_of(db, def).is_some_and(|i| i.kind == ItemKind::Enum)
}

/// Textures, buffers and samplers (not wrappers like `ConstantBuffer<T>`
/// or `DescriptorHandle<T>`, which stand for their contents).
pub(crate) fn is_resource_name(name: &str) -> bool {
    [
        "Texture",
        "RWTexture",
        "RasterizerOrderedTexture",
        "StructuredBuffer",
        "RWStructuredBuffer",
        "ByteAddressBuffer",
        "RWByteAddressBuffer",
        "Buffer",
        "RWBuffer",
        "AppendStructuredBuffer",
        "ConsumeStructuredBuffer",
        "SamplerState",
        "SamplerComparisonState",
    ]
    .iter()
    .any(|p| name.starts_with(p) && !name.contains("Handle"))
}

fn is_plain_user_struct(db: &dyn Db, def: DefId, args: &[Ty]) -> bool {
    args.is_empty()
        && !is_core(db, def.file(db))
        && item_of(db, def)
            .is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class) && i.generic_params.is_empty())
}

/// Whether a value of type `actual` certainly cannot be used where
/// `expected` is required (Slang's conversions: any scalar converts to any
/// numeric shape; vectors and matrices need the same size; structs only to
/// themselves).
pub(crate) fn is_mismatch(db: &dyn Db, expected: &Ty, actual: &Ty) -> bool {
    use Ty::*;
    match (expected, actual) {
        (Unknown, _) | (_, Unknown) => false,
        (Void, Void) => false,
        (Void, _) | (_, Void) => true,
        // `DifferentialPair<T>` and plain values do not convert.
        (Adt { def, name, args }, other) | (other, Adt { def, name, args })
            if name == "DifferentialPair" && is_core(db, def.file(db)) =>
        {
            match other {
                Scalar(_) | Vector(..) | Matrix(..) | Array(..) | String => true,
                Adt { def: d2, args: a2, .. } if d2 == def => args.iter().zip(a2).any(|(x, y)| {
                    x != y
                        && (is_concrete(db, x) && is_concrete(db, y) || is_mismatch(db, x, y) || is_mismatch(db, y, x))
                }),
                Adt { def: d2, args: a2, .. } => {
                    is_plain_user_struct(db, *d2, a2)
                        || (a2.is_empty() && item_of(db, *d2).is_some_and(|i| i.kind == ItemKind::Interface))
                }
                _ => false,
            }
        }
        (Scalar(_), Scalar(_)) => false,
        (Vector(_, n), Vector(_, m)) => n != m,
        (Vector(..) | Matrix(..), Scalar(_)) => false,
        (Scalar(_), Vector(..) | Matrix(..)) => true,
        (Matrix(_, r, c), Matrix(_, r2, c2)) => (r, c) != (r2, c2),
        (Matrix(..), Vector(..)) | (Vector(..), Matrix(..)) => true,
        // `float[3]` where `float[4]` is wanted.
        (Array(e1, Some(n1)), Array(e2, Some(n2))) => n1 != n2 || is_mismatch(db, e1, e2),
        (Adt { def: a, args: aa, .. }, Adt { def: b, args: ba, .. }) if a == b => {
            // `Acc<float>` for `Acc<int>`: a user generic with other,
            // fully known arguments.
            !aa.is_empty()
                && aa != ba
                && !is_core(db, a.file(db))
                && item_of(db, *a).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class))
                && aa.iter().chain(ba).all(|t| is_concrete(db, t) || matches!(t, Const(_)))
        }
        (Adt { def: a, args: aa, .. }, Adt { def: b, args: ba, .. }) => {
            is_plain_user_struct(db, *a, aa) && is_plain_user_struct(db, *b, ba)
        }
        // A number where a user enum is wanted needs a cast (the other way
        // converts implicitly).
        (Adt { def, .. }, Scalar(_) | Vector(..)) if is_user_enum(db, *def) => true,
        // A texture or buffer used as a number.
        (Scalar(_) | Vector(..) | Matrix(..), Adt { name, def, .. })
            if is_core(db, def.file(db)) && is_resource_name(name) =>
        {
            true
        }
        (Adt { def, args, .. }, Scalar(_) | Vector(..) | Matrix(..) | String)
        | (Scalar(_) | Vector(..) | Matrix(..) | String, Adt { def, args, .. }) => is_plain_user_struct(db, *def, args),
        _ => false,
    }
}

const SWIZZLE_SETS: [&str; 2] = ["xyzw", "rgba"];

fn swizzle(s: Scalar, width: u8, name: &str) -> Option<Ty> {
    if name.is_empty() || name.len() > 4 {
        return None;
    }
    for set in SWIZZLE_SETS {
        if name.chars().all(|c| set.find(c).is_some_and(|i| i < width as usize)) {
            return Some(if name.len() == 1 { Ty::Scalar(s) } else { Ty::Vector(s, name.len() as u8) });
        }
    }
    None
}

impl<'db> Infer<'_, 'db> {
    fn db(&self) -> &'db dyn Db {
        self.ctx.db
    }

    fn params(&mut self) {
        // Default values first: they do not see the parameters.
        let defaults: Vec<(ExprId, TypeRef)> =
            self.body.params.iter().filter_map(|p| Some((p.default?, p.ty.clone()))).collect();
        for (d, t) in defaults {
            let found = self.expr(d);
            let expected = self.ctx.resolve(&t);
            self.check_mismatch(DiagAt::Expr(d), &expected, &found);
        }
        for p in &self.body.params {
            let ty = self.ctx.resolve(&p.ty);
            if let Some(n) = &p.name {
                self.scopes[0].push(Local::new(n.clone(), ty, p.is_const, None));
            }
        }
    }

    /// The derivative data-flow analysis (see [`crate::activity`]) of
    /// this differentiable function: reports the calls and stores that
    /// lose derivatives, and returns which expressions carry one.
    fn derivative_flow(&mut self) -> Vec<bool> {
        use crate::autodiff::{type_diff, TypeDiff};
        let db = self.db();
        let file = self.ctx.file;
        let diff_type: Vec<bool> =
            self.types.iter().map(|t| matches!(type_diff(db, file, t), TypeDiff::Value | TypeDiff::Unknown)).collect();
        let mut params = Vec::new();
        for p in &self.body.params {
            let Some(name) = &p.name else { continue };
            let ty = self.ctx.resolve(&p.ty);
            let source = (p.is_inout || !p.is_out) && type_diff(db, file, &ty) == TypeDiff::Value;
            params.push((name.clone(), source, p.no_diff));
        }
        let item = item_of(db, self.def);
        let this_source = item.as_ref().is_some_and(|i| !i.is_static && !i.has_attr("NoDiffThis"))
            && matches!(self.ctx.this, Ty::Adt { .. })
            && type_diff(db, file, &self.ctx.this) == TypeDiff::Value;
        let return_expected = type_diff(db, file, &self.ret) == TypeDiff::Value
            && !crate::hir::decl_syntax(db, self.def)
                .is_some_and(|n| n.children_with_tokens().any(|e| e.kind() == SyntaxKind::NO_DIFF_KW));
        let facts = crate::activity::Facts {
            diff_type: &diff_type,
            calls: &self.call_kinds,
            params,
            this_source,
            this_fields: &self.this_fields,
            return_expected,
        };
        let flow = crate::activity::analyze(self.body, &facts);
        for (call, name, property) in std::mem::take(&mut self.lost_candidates) {
            let i = call.0 as usize;
            if flow.inputs_carry[i] && flow.expect[i] {
                self.diags
                    .push(InferDiag { at: DiagAt::Expr(call), kind: InferDiagKind::DerivativeLost { name, property } });
            }
        }
        for (call, at, name) in std::mem::take(&mut self.no_diff_candidates) {
            if flow.inputs_carry[call.0 as usize] {
                self.diags
                    .push(InferDiag { at: DiagAt::Expr(at), kind: InferDiagKind::NoDiffOnDifferentiable { name } });
            }
        }
        for (arg, callee, param, generic) in std::mem::take(&mut self.generic_arg_candidates) {
            if flow.produce[arg.0 as usize] {
                self.diags.push(InferDiag {
                    at: DiagAt::Expr(arg),
                    kind: InferDiagKind::DerivativeLostInGeneric { callee, param, generic },
                });
            }
        }
        for (assign, value, into) in std::mem::take(&mut self.store_candidates) {
            if flow.produce[value.0 as usize] {
                self.diags
                    .push(InferDiag { at: DiagAt::Expr(assign), kind: InferDiagKind::DerivativeLostInStore { into } });
            }
        }
        flow.produce
    }

    /// Arguments of a differentiable call whose parameter's type is a
    /// generic parameter not constrained to be differentiable (`T : INorm`):
    /// the derivative the argument carries is dropped there (the reference
    /// compiler drops it without a word); reported if the data-flow
    /// analysis finds one.
    fn check_generic_arguments(&mut self, callee: ExprId, defs: &[DefId], args: &[ExprId], arg_tys: &[Ty]) {
        use crate::autodiff::{fn_differentiability, type_diff, Differentiability, TypeDiff};
        if !self.differentiable || self.no_diff_depth > 0 {
            return;
        }
        let db = self.db();
        let [def] = defs else { return };
        if is_core(db, def.file(db)) || fn_differentiability(db, self.ctx.file, *def) == Differentiability::No {
            return;
        }
        let sig = fn_sig(db, *def);
        let mut ctx = DeclCtx::for_def(db, *def);
        let callee_name = match self.body.expr(callee) {
            Expr::Path(segs, _) => segs.last().map(|s| s.name.clone()).unwrap_or_default(),
            Expr::Member { name, .. } => name.clone(),
            _ => return,
        };
        for ((p, &a), at) in sig.params.iter().zip(args).zip(arg_tys) {
            if p.no_diff {
                continue;
            }
            let declared = ctx.resolve(&p.ty);
            let Ty::Param { name: generic, .. } = &declared else { continue };
            if type_diff(db, self.ctx.file, &declared) == TypeDiff::No
                && type_diff(db, self.ctx.file, at) == TypeDiff::Value
            {
                self.generic_arg_candidates.push((
                    a,
                    callee_name.clone(),
                    p.name.clone().unwrap_or_default(),
                    generic.clone(),
                ));
            }
        }
    }

    /// Reading property `name` of a value of type `receiver` in a
    /// differentiable function calls its getter: a getter that is not
    /// differentiable stops derivatives like any such call (E41022 when a
    /// derivative is lost).
    fn check_property_derivative(&mut self, id: ExprId, receiver: &Ty, name: &str, t: &Ty) {
        use crate::activity::CallKind;
        use crate::autodiff::{fn_differentiability, type_diff, Differentiability, TypeDiff};
        if !self.differentiable || self.no_diff_depth > 0 {
            return;
        }
        let db = self.db();
        // (The core module's properties — `DifferentialPair.p`/`.d` — are
        // intrinsic.)
        let Ty::Adt { def, .. } = receiver else { return };
        if is_core(db, def.file(db)) {
            return;
        }
        let Some(item) = item_of(db, *def) else { return };
        let Some(m) = item.members.iter().find(|m| m.kind == ItemKind::Property && m.name.as_deref() == Some(name))
        else {
            return;
        };
        let property = DefId::new(db, def.file(db), m.ast_index);
        if fn_differentiability(db, self.ctx.file, property) == Differentiability::Backward
            || type_diff(db, self.ctx.file, t) != TypeDiff::Value
            || self.module_has_item_macros()
        {
            return;
        }
        self.call_kinds.insert(id, CallKind::NotDifferentiable(Vec::new()));
        self.lost_candidates.push((id, name.to_string(), true));
    }

    /// What call `id` does with derivatives, for the data-flow analysis.
    fn record_call_kind(&mut self, id: ExprId, callee_ty: &Ty, n_args: usize) {
        use crate::activity::CallKind;
        use crate::autodiff::{fn_differentiability, type_diff, Differentiability, TypeDiff};
        if !self.differentiable {
            return;
        }
        let db = self.db();
        let kind = match callee_ty {
            Ty::Func(defs) => {
                let def = defs
                    .iter()
                    .copied()
                    .find(|&d| fn_sig(db, d).params.len() == n_args)
                    .or_else(|| defs.first().copied());
                let Some(def) = def else { return };
                let is_core_fn = is_core(db, def.file(db));
                let name = item_of(db, def).and_then(|i| i.name.clone()).unwrap_or_default();
                if is_core_fn && name == "detach" {
                    CallKind::Detach
                } else {
                    let sig = fn_sig(db, def);
                    let mut ctx = DeclCtx::for_def(db, def);
                    let params: Vec<(bool, bool, bool)> = sig
                        .params
                        .iter()
                        .map(|p| {
                            let diff = !p.no_diff
                                && matches!(
                                    type_diff(db, self.ctx.file, &ctx.resolve(&p.ty)),
                                    TypeDiff::Value | TypeDiff::Unknown
                                );
                            (diff, p.is_out, p.is_inout)
                        })
                        .collect();
                    let differentiable = if is_core_fn {
                        !CORE_NOT_DIFFERENTIABLE.contains(&name.as_str())
                    } else {
                        // Backward derivatives are needed here (a forward
                        // derivative alone does not do).
                        defs.iter().any(|&d| fn_differentiability(db, self.ctx.file, d) == Differentiability::Backward)
                    };
                    if differentiable {
                        CallKind::Differentiable(params)
                    } else {
                        CallKind::NotDifferentiable(params)
                    }
                }
            }
            _ => CallKind::PassThrough,
        };
        self.call_kinds.insert(id, kind);
    }

    fn local(&self, name: &str) -> Option<&Local> {
        let l = self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|l| l.name == name)?;
        l.used.set(true);
        Some(l)
    }

    /// Leave a block: its locals that were never used get a warning
    /// (unless named `_…`, or the body has code this model cannot see:
    /// macro calls, disabled `#if` branches).
    fn pop_scope(&mut self) {
        let Some(scope) = self.scopes.pop() else { return };
        if !self.warn_unused {
            return;
        }
        for l in scope {
            if let (Some(stmt), false) = (l.decl, l.used.get()) {
                if !l.name.is_empty() && !l.name.starts_with('_') && !self.attribute_names.contains(&l.name) {
                    self.diags.push(InferDiag {
                        at: DiagAt::Stmt(stmt),
                        kind: InferDiagKind::UnusedVariable { name: l.name },
                    });
                }
            }
        }
    }

    fn stmt(&mut self, id: StmtId) {
        match self.body.stmt(id).clone() {
            Stmt::Expr(e) => {
                self.discarded = Some(e);
                self.expr(e);
            }
            Stmt::Decl(decls) => {
                for d in decls {
                    self.decl(&d, id);
                }
            }
            Stmt::Break => {
                if self.loops == 0 && self.switches == 0 {
                    self.diags.push(InferDiag {
                        at: DiagAt::Stmt(id),
                        kind: InferDiagKind::OutsideLoop { keyword: "break" },
                    });
                }
            }
            Stmt::Continue => {
                if self.loops == 0 {
                    self.diags.push(InferDiag {
                        at: DiagAt::Stmt(id),
                        kind: InferDiagKind::OutsideLoop { keyword: "continue" },
                    });
                }
            }
            Stmt::Block(stmts) => {
                self.scopes.push(Vec::new());
                let mut after_jump = false;
                for s in stmts {
                    if after_jump {
                        self.diags.push(InferDiag { at: DiagAt::Stmt(s), kind: InferDiagKind::Unreachable });
                        after_jump = false;
                    }
                    self.stmt(s);
                    if matches!(self.body.stmt(s), Stmt::Return(_) | Stmt::Break | Stmt::Continue) {
                        after_jump = true;
                    }
                }
                self.pop_scope();
            }
            Stmt::If { cond, let_binding, then, els } => {
                if let Some(c) = cond {
                    self.condition(c);
                }
                self.scopes.push(Vec::new());
                if let Some((name, value)) = let_binding {
                    // `if (let v = optional)`: `v` is the held value.
                    let held = match self.expr(value) {
                        Ty::Adt { name: n, args, def }
                            if n == "Optional" && is_core(self.db(), def.file(self.db())) =>
                        {
                            args.first().cloned().unwrap_or(Ty::Unknown)
                        }
                        _ => Ty::Unknown,
                    };
                    self.scopes.last_mut().unwrap().push(Local::new(name, held, true, None));
                }
                if let Some(t) = then {
                    self.stmt(t);
                }
                self.pop_scope();
                if let Some(e) = els {
                    self.stmt(e);
                }
            }
            Stmt::Loop { init, cond, step, body } => {
                self.loops += 1;
                self.scopes.push(Vec::new());
                if let Some(i) = init {
                    self.stmt(i);
                }
                if let Some(c) = cond {
                    self.condition(c);
                }
                if let Some(s) = step {
                    self.expr(s);
                }
                if let Some(b) = body {
                    self.stmt(b);
                }
                self.pop_scope();
                self.loops -= 1;
            }
            Stmt::Switch { scrutinee, cases } => {
                self.switches += 1;
                let scrutinee_ty = scrutinee.map(|s| self.expr(s));
                // `switch` takes integers (and enums); a floating-point
                // value makes the case labels non-constant for slangc.
                if let Some(Ty::Scalar(s @ (Scalar::Half | Scalar::Float | Scalar::Double))) = scrutinee_ty {
                    if let Some(first) = cases.iter().find_map(|(v, _)| *v) {
                        self.diags.push(InferDiag {
                            at: DiagAt::Expr(first),
                            kind: InferDiagKind::FloatSwitch { ty: Ty::Scalar(s).to_string() },
                        });
                    }
                }
                // Duplicate `case` values and a second `default`.
                let mut seen = Vec::new();
                let mut defaults = 0;
                for (v, _) in &cases {
                    match v {
                        None => {
                            defaults += 1;
                            if defaults == 2 {
                                self.diags
                                    .push(InferDiag { at: DiagAt::Stmt(id), kind: InferDiagKind::DuplicateDefault });
                            }
                        }
                        Some(e) => {
                            if let Expr::Literal(LiteralKind::Int { value: Some(n), .. }) = self.body.expr(*e) {
                                if seen.contains(n) {
                                    self.diags.push(InferDiag {
                                        at: DiagAt::Expr(*e),
                                        kind: InferDiagKind::DuplicateCase { value: *n },
                                    });
                                }
                                seen.push(*n);
                            }
                        }
                    }
                }
                for (v, stmts) in cases {
                    if let Some(v) = v {
                        self.expr(v);
                    }
                    self.scopes.push(Vec::new());
                    for s in stmts {
                        self.stmt(s);
                    }
                    self.pop_scope();
                }
                self.switches -= 1;
            }
            Stmt::Return(e) => match e {
                Some(e) => {
                    let t = self.expr(e);
                    self.check_mismatch(DiagAt::Expr(e), &self.ret.clone(), &t);
                }
                None => {
                    if !matches!(self.ret, Ty::Void | Ty::Unknown) {
                        let ty = self.ret.to_string();
                        self.diags
                            .push(InferDiag { at: DiagAt::Stmt(id), kind: InferDiagKind::ReturnMissingValue { ty } });
                    }
                }
            },
            Stmt::Other(stmts) => {
                for s in stmts {
                    self.stmt(s);
                }
            }
        }
    }

    /// A condition (`if`, loops): a scalar; a struct or a vector is an
    /// error (the reference compiler wants `bool`).
    fn condition(&mut self, c: ExprId) {
        let t = self.expr(c);
        let wrong = match &t {
            Ty::Vector(_, n) => *n > 1,
            Ty::Matrix(..) | Ty::String => true,
            Ty::Adt { def, args, .. } => is_plain_user_struct(self.db(), *def, args),
            _ => false,
        };
        if wrong {
            self.diags.push(InferDiag {
                at: DiagAt::Expr(c),
                kind: InferDiagKind::Mismatch { expected: "bool".to_string(), found: t.to_string() },
            });
        }
    }

    fn check_mismatch(&mut self, at: DiagAt, expected: &Ty, actual: &Ty) {
        if is_mismatch(self.db(), expected, actual) {
            self.diags.push(InferDiag {
                at,
                kind: InferDiagKind::Mismatch { expected: expected.to_string(), found: actual.to_string() },
            });
        }
    }

    fn decl(&mut self, d: &LocalDecl, stmt: StmtId) {
        let declared = d.ty.as_ref().map(|t| self.ctx.resolve(t));
        let init = d.init.map(|e| self.expr(e));
        if let (Some(t), Some(i), Some(e)) = (&declared, &init, d.init) {
            self.check_mismatch(DiagAt::Expr(e), t, i);
        }
        if let (Some(t), Some(e)) = (&declared, d.init) {
            self.check_init_list_len(t, e);
        }
        if let Some(TypeRef::Path(segs)) = &d.ty {
            if let Some(why) = generic_arity_problem(self.db(), self.ctx.file, segs) {
                self.diags.push(InferDiag { at: DiagAt::Stmt(stmt), kind: InferDiagKind::GenericArity { why } });
            }
        }
        // `DifferentialPair<int>`: the argument must be differentiable.
        if let Some(Ty::Adt { def, name, args }) = &declared {
            if name == "DifferentialPair" && is_core(self.db(), def.file(self.db())) {
                if let [arg] = args.as_slice() {
                    if crate::autodiff::type_diff(self.db(), self.ctx.file, arg) == crate::autodiff::TypeDiff::No {
                        self.diags.push(InferDiag {
                            at: DiagAt::Stmt(stmt),
                            kind: InferDiagKind::NotConforming {
                                arg: arg.to_string(),
                                interface: "IDifferentiable".to_string(),
                            },
                        });
                    }
                }
            }
        }
        if d.immutable && d.init.is_none() && d.ty.is_none() {
            self.diags.push(InferDiag {
                at: DiagAt::Stmt(stmt),
                kind: InferDiagKind::LetWithoutValue { name: d.name.clone() },
            });
        }
        if matches!(declared, Some(Ty::Void)) {
            self.diags
                .push(InferDiag { at: DiagAt::Stmt(stmt), kind: InferDiagKind::VoidVariable { name: d.name.clone() } });
        }
        if !d.name.is_empty() && self.scopes.last().is_some_and(|s| s.iter().any(|l| l.name == d.name)) {
            self.diags
                .push(InferDiag { at: DiagAt::Stmt(stmt), kind: InferDiagKind::Redefinition { name: d.name.clone() } });
        }
        let ty = match (declared, init) {
            (Some(t), _) => t,
            (None, Some(t)) => match t {
                Ty::TypeValue(_) | Ty::Func(_) | Ty::Namespace(_) => Ty::Unknown,
                t => t,
            },
            (None, None) => Ty::Unknown,
        };
        self.scopes.last_mut().unwrap().push(Local::new(d.name.clone(), ty, d.immutable, Some(stmt)));
    }

    /// `int a[2] = {1, 2, 3};`, `float2 v = {1, 2, 3};`: more scalars than
    /// the type holds. (Only for scalar elements: nested lists may elide
    /// braces.)
    fn check_init_list_len(&mut self, t: &Ty, e: ExprId) {
        let Expr::InitList(items) = self.body.expr(e) else { return };
        let capacity = match t {
            Ty::Array(el, Some(n)) if matches!(**el, Ty::Scalar(_)) => *n as usize,
            Ty::Vector(_, n) => *n as usize,
            _ => return,
        };
        let scalar_items = items.iter().all(|&i| matches!(self.types[i.0 as usize], Ty::Scalar(_)));
        if scalar_items && items.len() > capacity {
            self.diags.push(InferDiag {
                at: DiagAt::Expr(e),
                kind: InferDiagKind::TooManyInitializers { expected: capacity, found: items.len() },
            });
        }
    }

    fn expr(&mut self, id: ExprId) -> Ty {
        let ty = self.expr_inner(id);
        self.types[id.0 as usize] = ty.clone();
        ty
    }

    fn expr_inner(&mut self, id: ExprId) -> Ty {
        match self.body.expr(id).clone() {
            Expr::Missing => Ty::Unknown,
            Expr::Literal(l) => match l {
                LiteralKind::Int { unsigned, wide, .. } => Ty::Scalar(match (unsigned, wide) {
                    (false, false) => Scalar::Int32,
                    (true, false) => Scalar::UInt32,
                    (false, true) => Scalar::Int64,
                    (true, true) => Scalar::UInt64,
                }),
                LiteralKind::Float { half: true, .. } => Ty::Scalar(Scalar::Half),
                LiteralKind::Float { double: true, .. } => Ty::Scalar(Scalar::Double),
                LiteralKind::Float { .. } => Ty::Scalar(Scalar::Float),
                LiteralKind::Bool => Ty::Scalar(Scalar::Bool),
                LiteralKind::String => Ty::String,
                LiteralKind::Char => Ty::Scalar(Scalar::Int32),
                LiteralKind::Null => Ty::Unknown,
            },
            Expr::Path(segs, global) => self.path(id, &segs, global),
            Expr::Call { callee, args } => {
                let callee_ty = self.expr(callee);
                if let Ty::Func(defs) = &callee_ty {
                    self.check_mutating_call(id, callee, defs);
                }
                let arg_tys: Vec<Ty> = args.iter().map(|&a| self.expr(a)).collect();
                if let Ty::Func(defs) = &callee_ty {
                    self.check_derivative_flow(id, callee, defs, &arg_tys);
                    self.check_generic_arguments(callee, defs, &args, &arg_tys);
                }
                // A constructor call runs an `__init`: a call like any
                // other (slangc's E41022 when it is not differentiable).
                if let Ty::TypeValue(t) = &callee_ty {
                    if let Ty::Adt { def, args: targs, .. } = &**t {
                        let db = self.db();
                        if is_plain_user_struct(db, *def, targs) {
                            let inits: Vec<DefId> = item_of(db, *def)
                                .iter()
                                .flat_map(|i| i.members.iter())
                                .filter(|m| m.kind == ItemKind::Init)
                                .map(|m| DefId::new(db, def.file(db), m.ast_index))
                                .filter(|&d| fn_sig(db, d).params.len() == args.len())
                                .collect();
                            use crate::autodiff::{fn_differentiability, type_diff, Differentiability, TypeDiff};
                            let lost = !inits.is_empty()
                                && self.differentiable
                                && self.no_diff_depth == 0
                                && inits
                                    .iter()
                                    .all(|&d| fn_differentiability(db, self.ctx.file, d) == Differentiability::No)
                                && type_diff(db, self.ctx.file, t) == TypeDiff::Value;
                            if lost {
                                let name = item_of(db, *def).and_then(|i| i.name.clone()).unwrap_or_default();
                                self.lost_candidates.push((id, format!("{name}.__init"), false));
                            }
                        }
                    }
                }
                self.record_call_kind(id, &callee_ty, args.len());
                self.call(id, callee, callee_ty, &arg_tys)
            }
            Expr::Member { receiver, name, .. } => {
                let r = self.expr(receiver);
                let t = self.member(id, &r, &name);
                if matches!(self.body.expr(receiver), Expr::This) {
                    self.warn_field_without_derivative(id, &name, &t);
                }
                self.check_property_derivative(id, &r, &name, &t);
                t
            }
            Expr::Index { base, index } => {
                let b = self.expr(base);
                self.expr(index);
                let no_subscript = match &b {
                    Ty::Scalar(_) | Ty::String => true,
                    Ty::Adt { def, args, .. } => {
                        is_plain_user_struct(self.db(), *def, args)
                            && members_fully_known(self.db(), self.ctx.file, *def)
                            && subscript_type(self.db(), *def, args).is_none()
                    }
                    _ => false,
                };
                if no_subscript {
                    self.diags.push(InferDiag {
                        at: DiagAt::Expr(id),
                        kind: InferDiagKind::NoSubscript { ty: b.to_string() },
                    });
                }
                // A literal index past a fixed size (slangc's E30029).
                let len = match &b {
                    Ty::Array(_, Some(n)) => Some(*n),
                    Ty::Vector(_, n) | Ty::Matrix(_, n, _) => Some(u32::from(*n)),
                    _ => None,
                };
                let literal = |e: ExprId| match self.body.expr(e) {
                    Expr::Literal(LiteralKind::Int { value: Some(k), .. }) => Some(*k),
                    _ => None,
                };
                let k = match self.body.expr(index) {
                    Expr::Prefix { op: SyntaxKind::MINUS, expr } => literal(*expr).map(|k| -k),
                    _ => literal(index),
                };
                if let (Some(len), Some(k)) = (len, k) {
                    if k < 0 || k >= i64::from(len) {
                        self.diags.push(InferDiag {
                            at: DiagAt::Expr(index),
                            kind: InferDiagKind::IndexOutOfBounds { index: k, len },
                        });
                    }
                }
                match b {
                    Ty::Array(e, _) => (*e).clone(),
                    Ty::Vector(s, _) => Ty::Scalar(s),
                    Ty::Matrix(s, _, c) => Ty::Vector(s, c),
                    Ty::Adt { def, args, .. } => subscript_type(self.db(), def, &args).unwrap_or(Ty::Unknown),
                    Ty::Pointer(t) => (*t).clone(),
                    _ => Ty::Unknown,
                }
            }
            Expr::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                match op {
                    BinaryOp::Assign(op) => {
                        self.check_assignable(id, lhs);
                        if self.differentiable && self.no_diff_depth == 0 {
                            self.track_store(id, lhs, rhs, &r);
                        }
                        if op.is_none() {
                            self.check_mismatch(DiagAt::Expr(rhs), &l, &r);
                        }
                        l
                    }
                    BinaryOp::Arith(k) | BinaryOp::Compare(k) | BinaryOp::Bit(k)
                        if self.has_user_struct_operand(&l, &r) =>
                    {
                        self.user_operator(id, k, l, r)
                    }
                    BinaryOp::Arith(k) | BinaryOp::Compare(k) if vector_sizes_differ(&l, &r) => {
                        let op = k.static_text().unwrap_or("?").to_string();
                        self.diags.push(InferDiag {
                            at: DiagAt::Expr(id),
                            kind: InferDiagKind::NoOperator { op, lhs: l.to_string(), rhs: r.to_string() },
                        });
                        Ty::Unknown
                    }
                    BinaryOp::Arith(_) => arith(&l, &r),
                    BinaryOp::Compare(_) | BinaryOp::Logic(_) => match broadcast(&l, &r) {
                        Some(shape) => shape.with_scalar(Scalar::Bool),
                        None => Ty::Scalar(Scalar::Bool),
                    },
                    BinaryOp::Bit(_) => arith(&l, &r),
                    BinaryOp::Shift(_) => l,
                    // The comma operator, or (in language 2026) a tuple.
                    BinaryOp::Comma => Ty::Unknown,
                }
            }
            Expr::Prefix { op, expr } => {
                let t = self.expr(expr);
                if matches!(op, SyntaxKind::MINUS | SyntaxKind::BANG | SyntaxKind::TILDE) {
                    if let Some(r) = self.user_unary_operator(id, op, &t) {
                        return r;
                    }
                }
                match op {
                    SyntaxKind::BANG => {
                        if t.is_numeric() {
                            t.with_scalar(Scalar::Bool)
                        } else {
                            Ty::Scalar(Scalar::Bool)
                        }
                    }
                    SyntaxKind::PLUS2 | SyntaxKind::MINUS2 => {
                        self.check_assignable(id, expr);
                        t
                    }
                    SyntaxKind::STAR => match t {
                        Ty::Pointer(p) => (*p).clone(),
                        _ => Ty::Unknown,
                    },
                    SyntaxKind::AMP => Ty::Pointer(Arc::new(t)),
                    _ => t,
                }
            }
            Expr::Postfix { expr, .. } => {
                let t = self.expr(expr);
                self.check_assignable(id, expr);
                t
            }
            Expr::Ternary { cond, then, els } => {
                self.expr(cond);
                let a = self.expr(then);
                let b = self.expr(els);
                if a.is_numeric() && b.is_numeric() {
                    arith(&a, &b)
                } else if a.is_unknown() {
                    b
                } else {
                    a
                }
            }
            Expr::Cast { ty, expr } => {
                self.expr(expr);
                self.ctx.resolve(&ty)
            }
            Expr::InitList(items) => {
                for i in items {
                    self.expr(i);
                }
                Ty::Unknown
            }
            Expr::This => self.ctx.this.clone(),
            Expr::Diff { func, forward } => {
                self.diff_operand_depth += 1;
                let f = self.expr(func);
                self.diff_operand_depth -= 1;
                self.diff_operator(id, func, f, forward)
            }
            Expr::NoDiff(e) => {
                if !matches!(self.body.expr(e), Expr::Call { .. } | Expr::Index { .. } | Expr::Missing | Expr::Other(_))
                {
                    self.diags.push(InferDiag { at: DiagAt::Expr(id), kind: InferDiagKind::NoDiffOperand });
                }
                self.no_diff_depth += 1;
                let saved = self.no_diff_call.replace((e, id));
                let t = self.expr(e);
                self.no_diff_call = saved;
                self.no_diff_depth -= 1;
                t
            }
            Expr::Is { expr, ty } => {
                let from = self.expr(expr);
                self.check_is_as(id, &from, &ty);
                Ty::Scalar(Scalar::Bool)
            }
            Expr::As { expr, ty } => {
                let from = self.expr(expr);
                self.check_is_as(id, &from, &ty);
                // `x as T`: an `Optional<T>`.
                let t = self.ctx.resolve(&ty);
                match crate::name_res::core_def(self.db(), "Optional") {
                    Some(def) if !t.is_unknown() => Ty::Adt { def, name: "Optional".to_string(), args: vec![t] },
                    _ => Ty::Unknown,
                }
            }
            Expr::Other(subs) => {
                for s in subs {
                    self.expr(s);
                }
                Ty::Unknown
            }
        }
    }

    /// `x is T` on a value of a concrete type other than `T`: never true.
    fn check_is_as(&mut self, id: ExprId, from: &Ty, ty: &TypeRef) {
        let to = self.ctx.resolve(ty);
        let db = self.db();
        let concrete = |t: &Ty| match t {
            Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) | Ty::Array(..) => true,
            Ty::Adt { def, .. } => {
                item_of(db, *def).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Enum))
            }
            _ => false,
        };
        if concrete(from) && concrete(&to) && *from != to {
            self.diags.push(InferDiag {
                at: DiagAt::Expr(id),
                kind: InferDiagKind::UnrelatedIsAs { from: from.to_string(), to: to.to_string() },
            });
        }
    }

    fn check_assignable(&mut self, at: ExprId, target: ExprId) {
        if let Expr::Path(segs, false) = self.body.expr(target) {
            if let [seg] = segs.as_slice() {
                if let Some(l) = self.local(&seg.name) {
                    if l.immutable {
                        let name = l.name.clone();
                        self.diags
                            .push(InferDiag { at: DiagAt::Expr(at), kind: InferDiagKind::AssignImmutable { name } });
                    }
                    return;
                }
            }
        }
        if let Some(why) = self.not_writable(target) {
            self.diags.push(InferDiag { at: DiagAt::Expr(at), kind: InferDiagKind::NotAssignable { why } });
        }
    }

    /// Why `e` certainly cannot be written (the reference compiler's
    /// l-value rules), or `None` if it can or we cannot tell.
    fn not_writable(&self, e: ExprId) -> Option<String> {
        let db = self.db();
        match self.body.expr(e) {
            Expr::Path(segs, false) if segs.len() == 1 => {
                let name = &segs[0].name;
                if self.local(name).is_some() {
                    return None;
                }
                // A field through the implicit `this` (of a method that is
                // not `[mutating]`: not writable).
                if let Ty::Adt { def, args, .. } = &self.ctx.this {
                    if let Some(Member::Field(_)) = lookup_member(db, *def, args, name) {
                        return self.this_immutable.then(|| {
                            format!("`{name}` is a field of `this`, which a method without `[mutating]` cannot change")
                        });
                    }
                }
                let scope = global_scope(db, self.ctx.file);
                let d = scope.lookup(name)?.first().copied()?;
                if d.kind != ItemKind::Var {
                    return None;
                }
                let def = DefId::new(db, d.file, d.ast_index);
                let item = item_of(db, def)?;
                // (GLSL `buffer` and `out` blocks are writable.)
                let in_cbuffer = parent_of(db, def).and_then(|p| item_of(db, p)).is_some_and(|p| {
                    p.kind == ItemKind::Cbuffer
                        || p.kind == ItemKind::GlslBlock && p.modifiers.contains(&SyntaxKind::UNIFORM_KW)
                });
                let m = &item.modifiers;
                if m.contains(&SyntaxKind::CONST_KW) {
                    Some(format!("`{name}` is a constant"))
                } else if m.contains(&SyntaxKind::READONLY_KW) {
                    Some(format!("`{name}` is `readonly`"))
                } else if in_cbuffer {
                    Some(format!("`{name}` is a field of a constant buffer (a read-only shader parameter)"))
                } else if !m.iter().any(|k| {
                    // Per-thread or per-group storage, GLSL outputs and
                    // `buffer` block instances.
                    matches!(
                        k,
                        SyntaxKind::STATIC_KW
                            | SyntaxKind::BUFFER_KW
                            | SyntaxKind::GROUPSHARED_KW
                            | SyntaxKind::SHARED_KW
                            | SyntaxKind::OUT_KW
                            | SyntaxKind::INOUT_KW
                    )
                }) && (m.contains(&SyntaxKind::UNIFORM_KW) || !glsl_mode(db, self.ctx.file))
                {
                    Some(format!("`{name}` is a global shader parameter, which is read-only (declare it `static` for a per-thread global)"))
                } else {
                    None
                }
            }
            Expr::This if self.this_immutable => {
                Some("`this` cannot be changed in a method without `[mutating]`".to_string())
            }
            Expr::Member { receiver, name, .. } => {
                let rt = &self.types[receiver.0 as usize];
                // Through a pointer (`p.field` with `p` a `T*`): the pointee.
                if let Ty::Pointer(_) = rt {
                    return None;
                }
                // A property without `set`.
                if let Ty::Adt { def, name: owner, .. } = rt {
                    if let Some(item) = item_of(db, *def) {
                        if let Some(p) = item.members.iter().find(|m| m.name.as_deref() == Some(name.as_str())) {
                            if p.kind == ItemKind::Property && !p.has_setter {
                                return Some(format!("`{owner}.{name}` is a read-only property (it has no `set`)"));
                            }
                            if item.kind == ItemKind::GlslBlock && p.modifiers.contains(&SyntaxKind::READONLY_KW) {
                                return Some(format!("`{name}` is a `readonly` field of block `{owner}`"));
                            }
                        }
                    }
                }
                if let Ty::Vector(..) | Ty::Scalar(_) = rt {
                    let mut seen = Vec::new();
                    for c in name.chars() {
                        let k = "xyzw".find(c).or_else(|| "rgba".find(c));
                        if seen.contains(&k) {
                            return Some(format!("the swizzle `{name}` repeats a component"));
                        }
                        seen.push(k);
                    }
                }
                self.not_writable(*receiver)
            }
            Expr::Index { base, .. } => match &self.types[base.0 as usize] {
                Ty::Adt { def, name, .. } => {
                    let item = item_of(db, *def)?;
                    let sub = item.members.iter().find(|m| m.kind == ItemKind::Subscript)?;
                    (!sub.has_setter).then(|| format!("the elements of `{name}` are read-only"))
                }
                Ty::Array(..) | Ty::Vector(..) | Ty::Matrix(..) => self.not_writable(*base),
                _ => None,
            },
            Expr::Call { .. } | Expr::Literal(_) => Some("the left side is a temporary value".to_string()),
            _ => None,
        }
    }

    fn path(&mut self, id: ExprId, segs: &[PathSegment], global: bool) -> Ty {
        let Some(first) = segs.first() else { return Ty::Unknown };
        let mut ty = if global { self.global_name(first) } else { self.first_name(id, first) };
        for seg in &segs[1..] {
            ty = self.static_member(id, &ty, seg);
        }
        ty
    }

    /// `c.increment()` where `increment` is `[mutating]` and `c` cannot
    /// change (a `let`, a constant, `this` in a method without
    /// `[mutating]`).
    fn check_mutating_call(&mut self, id: ExprId, callee: ExprId, defs: &[DefId]) {
        let db = self.db();
        let mutating = |d: &DefId| {
            item_of(db, *d).is_some_and(|i| {
                !i.is_static && (i.has_attr("mutating") || i.modifiers.contains(&SyntaxKind::MUTATING_KW))
            })
        };
        if defs.is_empty() || !defs.iter().all(mutating) {
            return;
        }
        let (name, why) = match self.body.expr(callee).clone() {
            // Through a pointer: the pointee can change.
            Expr::Member { receiver, .. } if matches!(self.types[receiver.0 as usize], Ty::Pointer(_)) => return,
            Expr::Member { receiver, name, .. } => {
                let why = match self.body.expr(receiver) {
                    Expr::Path(segs, false) if segs.len() == 1 && self.local(&segs[0].name).is_some() => {
                        self.local(&segs[0].name).filter(|l| l.immutable).map(|l| format!("`{}` is immutable", l.name))
                    }
                    _ => self.not_writable(receiver),
                };
                (name, why)
            }
            Expr::Path(segs, false) if segs.len() == 1 && self.local(&segs[0].name).is_none() => {
                let own = matches!(&self.ctx.this, Ty::Adt { def, .. } if parent_of(db, defs[0]) == Some(*def));
                let why = (own && self.this_immutable)
                    .then(|| "`this` cannot change in a method without `[mutating]`".to_string());
                (segs[0].name.clone(), why)
            }
            _ => return,
        };
        if let Some(why) = why {
            self.diags.push(InferDiag { at: DiagAt::Expr(id), kind: InferDiagKind::MutatingOnImmutable { name, why } });
        }
    }

    /// In a `[Differentiable]` function, a call whose value is used, to a
    /// function that is not differentiable and returns a differentiable
    /// type, outside `no_diff(…)`: the derivative would be silently lost
    /// there (the reference compiler's E41022).
    fn check_derivative_flow(&mut self, id: ExprId, callee: ExprId, defs: &[DefId], arg_tys: &[Ty]) {
        use crate::autodiff::{fn_differentiability, type_diff, Differentiability, TypeDiff};
        let n_args = arg_tys.len();
        // Calls itself: the overload of that arity is this function.
        let same_arity: Vec<&DefId> = defs.iter().filter(|&&d| fn_sig(self.db(), d).params.len() == n_args).collect();
        if self.differentiable && same_arity == [&self.def] {
            let name = item_of(self.db(), self.def).and_then(|i| i.name.clone()).unwrap_or_default();
            self.diags.push(InferDiag { at: DiagAt::Expr(id), kind: InferDiagKind::Recursion { name } });
        }
        if let (true, Some((call, at))) = (self.differentiable, self.no_diff_call) {
            if call == id && !defs.is_empty() && self.callee_differentiable(defs) {
                let name = match self.body.expr(callee) {
                    Expr::Path(segs, _) => segs.last().map(|s| s.name.clone()).unwrap_or_default(),
                    Expr::Member { name, .. } => name.clone(),
                    _ => String::new(),
                };
                self.no_diff_candidates.push((id, at, name));
            }
        }
        if !self.differentiable || self.no_diff_depth > 0 || self.discarded == Some(id) || defs.is_empty() {
            return;
        }
        let db = self.db();
        // A `[Differentiable]` function needs its callees' backward
        // derivatives: a forward derivative alone does not do.
        if defs.iter().any(|&d| fn_differentiability(db, self.ctx.file, d) == Differentiability::Backward) {
            return;
        }
        if defs.iter().any(|&d| {
            is_core(db, d.file(db))
                && !item_of(db, d)
                    .and_then(|i| i.name.clone())
                    .is_some_and(|n| CORE_NOT_DIFFERENTIABLE.contains(&n.as_str()))
        }) {
            return;
        }
        // Functions made by macros may carry attributes this model cannot
        // see.
        let macro_made = self.module_has_item_macros();
        if macro_made {
            return;
        }
        let returns_diff = defs.iter().all(|&d| {
            let sig = fn_sig(db, d);
            let ret = DeclCtx::for_def(db, d).resolve(&sig.ret);
            // Generic built-ins (`T smoothstep<T : __BuiltinFloatingPointType>`)
            // return their floating-point argument type.
            type_diff(db, self.ctx.file, &ret) == TypeDiff::Value
                || (is_core(db, d.file(db)) && matches!(ret, Ty::Param { .. }))
        });
        if !returns_diff {
            return;
        }
        let name = match self.body.expr(callee) {
            Expr::Path(segs, _) => segs.last().map(|s| s.name.clone()).unwrap_or_default(),
            Expr::Member { name, .. } => name.clone(),
            _ => return,
        };
        self.lost_candidates.push((id, name, false));
    }

    /// Whether a call of one of `defs` carries derivatives: a
    /// differentiable user function or a differentiable built-in of a
    /// differentiable type.
    fn callee_differentiable(&self, defs: &[DefId]) -> bool {
        use crate::autodiff::{fn_differentiability, type_diff, Differentiability, TypeDiff};
        let db = self.db();
        let one = |&d: &DefId| {
            let sig = fn_sig(db, d);
            let ret = DeclCtx::for_def(db, d).resolve(&sig.ret);
            let returns_diff = type_diff(db, self.ctx.file, &ret) == TypeDiff::Value
                || (is_core(db, d.file(db)) && matches!(ret, Ty::Param { .. }));
            let differentiable = if is_core(db, d.file(db)) {
                item_of(db, d).and_then(|i| i.name.clone()).is_some_and(|n| CORE_DIFFERENTIABLE.contains(&n.as_str()))
            } else {
                fn_differentiability(db, self.ctx.file, d) != Differentiability::No
            };
            returns_diff && differentiable
        };
        // A built-in is differentiable if one of its overloads is (`exp` of
        // a `float`, whatever its `CoopVec` overload): a call whose inputs
        // carry no derivative is not reported anyway.
        if defs.iter().all(|&d| is_core(db, d.file(db))) {
            defs.iter().any(one)
        } else {
            defs.iter().all(one)
        }
    }

    /// A field of a non-differentiable `this` carrying a differentiable
    /// type, used in a differentiable method (the reference's E31159).
    fn warn_field_without_derivative(&mut self, id: ExprId, name: &str, ty: &Ty) {
        let Some(owner) = self.non_differentiable_this.clone() else { return };
        if self.no_diff_depth > 0
            || crate::autodiff::type_diff(self.db(), self.ctx.file, ty) != crate::autodiff::TypeDiff::Value
        {
            return;
        }
        self.diags.push(InferDiag {
            at: DiagAt::Expr(id),
            kind: InferDiagKind::FieldWithoutDerivative { owner, name: name.to_string() },
        });
    }

    /// `fwd_diff(f)` / `bwd_diff(f)`: the derivative of the overloads of
    /// `f` that are differentiable in that mode, or an error if none is.
    fn diff_operator(&mut self, id: ExprId, func: ExprId, f: Ty, forward: bool) -> Ty {
        use crate::autodiff::{fn_differentiability, Differentiability, Mode};
        let db = self.db();
        // Higher order: a derivative of a derivative.
        if let Ty::DiffFunc { defs, mut modes } = f {
            modes.push(forward);
            return Ty::DiffFunc { defs, modes };
        }
        let Ty::Func(defs) = f else { return Ty::Unknown };
        let mode = if forward { Mode::Forward } else { Mode::Backward };
        let diffs: Vec<Differentiability> = defs.iter().map(|&d| fn_differentiability(db, self.ctx.file, d)).collect();
        let usable: Vec<DefId> = defs.iter().zip(&diffs).filter(|(_, d)| d.allows(mode)).map(|(&def, _)| def).collect();
        if usable.is_empty() {
            // Attributes made by macros are not seen here.
            let macro_made = defs.iter().any(|&d| {
                crate::hir::decl_syntax(db, d).is_some_and(|n| {
                    n.children().any(|c| matches!(c.kind(), SyntaxKind::MACRO_CALL | SyntaxKind::MACRO_TYPE))
                })
            });
            // Nor derivatives given by a `__func_extension` (signatures not
            // modelled: the call is not checked).
            let extended = || {
                let names: Vec<Option<String>> =
                    defs.iter().map(|&d| item_of(db, d).and_then(|i| i.name.clone())).collect();
                crate::module_graph::module_of(db, self.ctx.file)
                    .iter()
                    .copied()
                    .chain(crate::module_graph::imported_files(db, self.ctx.file).iter().copied())
                    .any(|f| item_tree(db, f).func_extension_targets.iter().any(|t| names.contains(&Some(t.clone()))))
            };
            if !defs.is_empty() && !macro_made && !extended() {
                let name = self.callee_name(func);
                self.diags.push(InferDiag {
                    at: DiagAt::Expr(id),
                    kind: InferDiagKind::NotDifferentiable {
                        name,
                        operator: mode.operator(),
                        forward_only: diffs.contains(&Differentiability::Forward),
                    },
                });
            }
            return Ty::Unknown;
        }
        Ty::DiffFunc { defs: usable, modes: vec![forward] }
    }

    /// `fwd_diff(f)(args)`: overload resolution over the derivative
    /// signatures.
    fn call_derivative(&mut self, id: ExprId, callee: ExprId, defs: &[DefId], modes: &[bool], args: &[Ty]) -> Ty {
        use crate::autodiff::{higher_order_signature, Dir, Mode};
        let db = self.db();
        let modes: Vec<Mode> = modes.iter().map(|&f| if f { Mode::Forward } else { Mode::Backward }).collect();
        // `fwd_diff(S.method)`: the derivative of `this` is the first
        // argument.
        let mut operand = callee;
        while let Expr::Diff { func, .. } = self.body.expr(operand) {
            operand = *func;
        }
        let explicit_this = self.through_type.contains(&operand);
        let sigs: Vec<crate::autodiff::DerivSig> = defs
            .iter()
            .map(|&d| {
                let mut s = higher_order_signature(db, d, &modes);
                if explicit_this {
                    if let Some(t) = s.this_param.take() {
                        s.params.insert(0, t);
                    }
                }
                s
            })
            .collect();
        let fits: Vec<&crate::autodiff::DerivSig> = sigs.iter().filter(|s| s.params.len() == args.len()).collect();
        let name = sigs
            .first()
            .map(|s| {
                let mut n = s.function.clone();
                for m in &modes {
                    n = format!("{}({n})", m.operator());
                }
                n
            })
            .unwrap_or_default();
        if fits.is_empty() {
            let mut counts: Vec<usize> = sigs.iter().map(|s| s.params.len()).collect();
            counts.sort();
            counts.dedup();
            let expected = counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" or ");
            self.diags.push(InferDiag {
                at: DiagAt::Expr(id),
                kind: InferDiagKind::DerivativeArgCount {
                    name,
                    expected,
                    found: args.len(),
                    signatures: sigs.iter().map(|s| s.to_string()).collect(),
                },
            });
            return Ty::Unknown;
        }
        let arg_ids: Vec<ExprId> = match self.body.expr(id) {
            Expr::Call { args, .. } => args.clone(),
            _ => Vec::new(),
        };
        if let [only] = fits.as_slice() {
            for ((p, a), &aid) in only.params.iter().zip(args).zip(&arg_ids) {
                self.check_mismatch(DiagAt::Expr(aid), &p.ty, a);
                if p.dir != Dir::In && !self.is_lvalue(aid) {
                    self.diags.push(InferDiag { at: DiagAt::Expr(aid), kind: InferDiagKind::NotAnLvalue });
                }
            }
        }
        let ok: Vec<&&crate::autodiff::DerivSig> =
            fits.iter().filter(|s| !s.params.iter().zip(args).any(|(p, a)| is_mismatch(db, &p.ty, a))).collect();
        match ok.first() {
            Some(first) if ok.iter().all(|s| s.ret == first.ret) && !ty_is_open(&first.ret) => first.ret.clone(),
            _ => Ty::Unknown,
        }
    }

    /// A store into a buffer element or a `no_diff` field (locations
    /// without derivatives): an error when the value carries a derivative
    /// and is not `detach`ed (the reference compiler's E41031), decided by
    /// the data-flow analysis.
    fn track_store(&mut self, id: ExprId, lhs: ExprId, rhs: ExprId, rhs_ty: &Ty) {
        let db = self.db();
        let carries = crate::autodiff::type_diff(db, self.ctx.file, rhs_ty) == crate::autodiff::TypeDiff::Value;
        if let (Some((accessor, what)), true) = (self.user_accessor(lhs), carries) {
            // A setter that is not differentiable.
            if !crate::autodiff::setter_differentiable(db, accessor) && !self.module_has_item_macros() {
                let into =
                    format!("{what} through its `set`, which is not differentiable (mark it `[Differentiable]`)");
                self.store_candidates.push((id, rhs, into));
            }
            return;
        }
        match self.body.expr(lhs).clone() {
            Expr::Index { base, .. } => {
                let into_resource = matches!(&self.types[base.0 as usize],
                    Ty::Adt { def, name, .. } if is_core(db, def.file(db)) && is_resource_name(name));
                let carries = crate::autodiff::type_diff(db, self.ctx.file, rhs_ty) == crate::autodiff::TypeDiff::Value;
                if into_resource && carries {
                    self.store_candidates.push((id, rhs, "a buffer".to_string()));
                }
            }
            // A `no_diff` field.
            Expr::Member { receiver, name, .. } => {
                let Ty::Adt { def, name: owner, .. } = self.types[receiver.0 as usize].clone() else { return };
                let no_diff_field = item_of(db, def).is_some_and(|i| {
                    i.members.iter().any(|m| {
                        m.kind == ItemKind::Var
                            && m.name.as_deref() == Some(name.as_str())
                            && crate::hir::def_node(db, DefId::new(db, def.file(db), m.ast_index)).is_some_and(|n| {
                                n.parent().is_some_and(|p| {
                                    p.children_with_tokens().any(|e| e.kind() == SyntaxKind::NO_DIFF_KW)
                                })
                            })
                    })
                });
                let carries = crate::autodiff::type_diff(db, self.ctx.file, rhs_ty) == crate::autodiff::TypeDiff::Value;
                if no_diff_field && carries {
                    self.store_candidates.push((id, rhs, format!("the `no_diff` field `{owner}.{name}`")));
                }
            }
            _ => {}
        }
        if carries && !self.store_candidates.iter().any(|c| c.0 == id) {
            let local = |n: &str| self.local(n).map(|l| l.decl.is_none());
            let (file, body) = (self.ctx.file, self.body);
            if let Some(into) = crate::autodiff::location_without_derivative(db, file, body, &self.types, lhs, &local) {
                self.store_candidates.push((id, rhs, into));
            }
        }
    }

    /// The property or `__subscript` of a user type that `e` (`s.p`,
    /// `s[i]`) reads or writes through accessors, and how to name it.
    fn user_accessor(&self, e: ExprId) -> Option<(DefId, String)> {
        let db = self.db();
        let (owner, kind, name) = match self.body.expr(e) {
            Expr::Member { receiver, name, .. } => (*receiver, ItemKind::Property, Some(name.as_str())),
            Expr::Index { base, .. } => (*base, ItemKind::Subscript, None),
            _ => return None,
        };
        let Ty::Adt { def, name: ty_name, .. } = &self.types[owner.0 as usize] else { return None };
        if is_core(db, def.file(db)) {
            return None;
        }
        let m = item_of(db, *def)?
            .members
            .iter()
            .find(|m| m.kind == kind && (name.is_none() || m.name.as_deref() == name))?
            .ast_index;
        let what = match name {
            Some(n) => format!("the property `{ty_name}.{n}`"),
            None => format!("`{ty_name}`'s `__subscript`"),
        };
        Some((DefId::new(db, def.file(db), m), what))
    }

    /// Whether a file of this module declares items through macros (then
    /// overloads and members may exist that this model cannot see).
    fn module_has_item_macros(&self) -> bool {
        let db = self.db();
        crate::module_graph::module_of(db, self.ctx.file).iter().any(|&f| item_tree(db, f).has_item_macros)
    }

    /// The name a call is written with (`f` in `f(x)`, `m` in `a.m(x)`).
    fn callee_name(&self, callee: ExprId) -> String {
        match self.body.expr(callee) {
            Expr::Path(segs, _) => segs.last().map(|s| s.name.clone()).unwrap_or_default(),
            Expr::Member { name, .. } => name.clone(),
            _ => String::new(),
        }
    }

    fn has_user_struct_operand(&self, l: &Ty, r: &Ty) -> bool {
        let db = self.db();
        [l, r].iter().any(|t| matches!(t, Ty::Adt { def, args, .. } if is_plain_user_struct(db, *def, args)))
    }

    /// `a * b` with a user struct operand: the user's `operator*`
    /// overloads (free functions and members), or an error if there are
    /// none and nothing unseen could add one.
    fn user_operator(&mut self, id: ExprId, k: SyntaxKind, l: Ty, r: Ty) -> Ty {
        let db = self.db();
        let op = k.static_text().unwrap_or("?");
        let name = format!("operator{op}");
        let mut fns = self.free_operators(&name);
        // (The core module's operators are for numbers and for types that
        // conform to its interfaces, which a struct with fully known
        // members does not.)
        let mut all_known = true;
        for t in [&l, &r] {
            if let Ty::Adt { def, args, .. } = t {
                if is_plain_user_struct(db, *def, args) {
                    all_known &= members_fully_known(db, self.ctx.file, *def);
                    if let Some(Member::Methods(m)) = lookup_member(db, *def, args, &name) {
                        fns.extend(m);
                    }
                }
            }
        }
        if fns.is_empty() {
            let macros = self.module_has_item_macros();
            if all_known && !macros && !l.is_unknown() && !r.is_unknown() {
                self.diags.push(InferDiag {
                    at: DiagAt::Expr(id),
                    kind: InferDiagKind::NoOperator { op: op.to_string(), lhs: l.to_string(), rhs: r.to_string() },
                });
            }
            return Ty::Unknown;
        }
        self.check_operator_derivative(id, &name, &fns);
        // The return type, if every overload that accepts the operands
        // agrees on it.
        let rets: Vec<Ty> =
            fns.iter().filter_map(|&f| self.instantiate(f, &[l.clone(), r.clone()], &[])).map(|(t, _)| t).collect();
        match rets.first() {
            Some(first) if rets.iter().all(|t| t == first) => first.clone(),
            _ => Ty::Unknown,
        }
    }

    /// The user's free functions named `name` (`operator+`).
    fn free_operators(&self, name: &str) -> Vec<DefId> {
        let db = self.db();
        global_scope(db, self.ctx.file)
            .lookup(name)
            .into_iter()
            .flatten()
            .filter(|d| d.kind == ItemKind::Fn && !is_core(db, d.file))
            .map(|d| DefId::new(db, d.file, d.ast_index))
            .collect()
    }

    /// A user-defined operator in a differentiable function: a call like
    /// any other, so one that is not differentiable loses derivatives
    /// (slangc's E41022).
    fn check_operator_derivative(&mut self, id: ExprId, name: &str, fns: &[DefId]) {
        use crate::autodiff::{fn_differentiability, Differentiability};
        if !self.differentiable || self.no_diff_depth > 0 || fns.is_empty() {
            return;
        }
        let db = self.db();
        if fns.iter().all(|&f| fn_differentiability(db, self.ctx.file, f) == Differentiability::No) {
            self.lost_candidates.push((id, name.to_string(), false));
        }
    }

    /// `-s`, `!s`, `~s` of a user struct: its `operator-` (a free function
    /// of one parameter, or a method without one).
    fn user_unary_operator(&mut self, id: ExprId, op: SyntaxKind, t: &Ty) -> Option<Ty> {
        let db = self.db();
        let Ty::Adt { def, args, .. } = t else { return None };
        if is_core(db, def.file(db))
            || !item_of(db, *def).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class))
        {
            return None;
        }
        let name = format!("operator{}", op.static_text().unwrap_or("?"));
        let mut fns: Vec<DefId> =
            self.free_operators(&name).into_iter().filter(|&d| fn_sig(db, d).params.len() == 1).collect();
        if let Some(Member::Methods(m)) = lookup_member(db, *def, args, &name) {
            fns.extend(m.into_iter().filter(|&d| fn_sig(db, d).params.is_empty()));
        }
        if fns.is_empty() {
            return None;
        }
        self.check_operator_derivative(id, &name, &fns);
        Some(t.clone())
    }

    fn no_static_member(&mut self, id: ExprId, owner: String, name: &str) {
        self.diags.push(InferDiag {
            at: DiagAt::Expr(id),
            kind: InferDiagKind::NoStaticMember { owner, name: name.to_string() },
        });
    }

    fn first_name(&mut self, id: ExprId, seg: &PathSegment) -> Ty {
        if seg.args.is_empty() {
            if let Some(l) = self.local(&seg.name) {
                return l.ty.clone();
            }
        }
        // Members of the enclosing type (implicit `this`).
        if let Ty::Adt { def, args, name } = self.ctx.this.clone() {
            if let Some(m) = lookup_member(self.db(), def, &args, &seg.name) {
                let in_static = item_of(self.db(), self.def).is_some_and(|i| i.is_static && i.kind == ItemKind::Fn);
                if in_static && !matches!(m, Member::Opaque) && only_instance_members(self.db(), def, &seg.name) {
                    self.diags.push(InferDiag {
                        at: DiagAt::Expr(id),
                        kind: InferDiagKind::InstanceMemberWithoutInstance {
                            owner: name,
                            name: seg.name.clone(),
                            in_static_method: true,
                        },
                    });
                }
                if let Member::Field(t) = &m {
                    self.warn_field_without_derivative(id, &seg.name, t);
                    self.this_fields.insert(id);
                }
                return match m {
                    Member::Field(t) => t,
                    Member::Methods(defs) => Ty::Func(defs),
                    Member::Opaque => Ty::Unknown,
                };
            }
        }
        if let Some(t) = self.ctx.generics.get(&seg.name) {
            return Ty::TypeValue(Arc::new(t.clone()));
        }
        self.global_name(seg)
    }

    fn global_name(&mut self, seg: &PathSegment) -> Ty {
        let db = self.db();
        let defs = self.ctx.lookup_global(&seg.name);
        if defs.is_empty() {
            let t = self.ctx.resolve_named(std::slice::from_ref(seg));
            return match t {
                Ty::Unknown => Ty::Unknown,
                t => Ty::TypeValue(Arc::new(t)),
            };
        }
        let fns: Vec<DefId> = defs
            .iter()
            .filter(|d| matches!(d.kind, ItemKind::Fn))
            .map(|d| DefId::new(db, d.file, d.ast_index))
            .collect();
        if !fns.is_empty() {
            return Ty::Func(fns);
        }
        let d = defs[0];
        match d.kind {
            ItemKind::Var => global_var_type(db, DefId::new(db, d.file, d.ast_index)),
            ItemKind::Namespace => Ty::Namespace(seg.name.clone()),
            k if k.is_type() => {
                let t = self.ctx.type_of_type_def(&d, &seg.args);
                Ty::TypeValue(Arc::new(t))
            }
            _ => Ty::Unknown,
        }
    }

    /// `A::b` or `A.b` where `A` is a type, namespace or value.
    fn static_member(&mut self, id: ExprId, base: &Ty, seg: &PathSegment) -> Ty {
        let db = self.db();
        match base {
            Ty::Namespace(ns) => {
                let scope = global_scope(db, self.ctx.file);
                let Some(defs) = scope.namespace(ns).and_then(|t| t.get(&seg.name)).cloned() else {
                    // Namespaces are open: say so only when no macro could
                    // have added the name.
                    let macros = crate::module_graph::module_of(db, self.ctx.file)
                        .iter()
                        .chain(crate::module_graph::imported_files(db, self.ctx.file))
                        .any(|&f| item_tree(db, f).has_item_macros || !item_tree(db, f).macro_fragments.is_empty());
                    if scope.namespace(ns).is_some() && !macros {
                        self.no_static_member(id, format!("namespace {ns}"), &seg.name);
                    }
                    return Ty::Unknown;
                };
                let fns: Vec<DefId> = defs
                    .iter()
                    .filter(|d| d.kind == ItemKind::Fn)
                    .map(|d| DefId::new(db, d.file, d.ast_index))
                    .collect();
                if !fns.is_empty() {
                    return Ty::Func(fns);
                }
                match defs.first() {
                    Some(d) if d.kind == ItemKind::Namespace => Ty::Namespace(format!("{ns}::{}", seg.name)),
                    Some(d) if d.kind.is_type() => Ty::TypeValue(Arc::new(self.ctx.type_of_type_def(d, &seg.args))),
                    Some(d) if d.kind == ItemKind::Var => global_var_type(db, DefId::new(db, d.file, d.ast_index)),
                    _ => Ty::Unknown,
                }
            }
            Ty::TypeValue(t) => match &**t {
                Ty::Adt { def, args, name } => match lookup_member(db, *def, args, &seg.name) {
                    found @ Some(Member::Field(_) | Member::Methods(_)) => {
                        let method = matches!(found, Some(Member::Methods(_)));
                        let instance_only = only_instance_members(db, *def, &seg.name);
                        if method && instance_only {
                            self.through_type.insert(id);
                        }
                        if instance_only && !is_core(db, def.file(db)) && !(method && self.diff_operand_depth > 0) {
                            self.diags.push(InferDiag {
                                at: DiagAt::Expr(id),
                                kind: InferDiagKind::InstanceMemberWithoutInstance {
                                    owner: name.clone(),
                                    name: seg.name.clone(),
                                    in_static_method: false,
                                },
                            });
                        }
                        match found {
                            Some(Member::Field(t)) => t,
                            Some(Member::Methods(defs)) => Ty::Func(defs),
                            _ => Ty::Unknown,
                        }
                    }
                    Some(Member::Opaque) => Ty::Unknown,
                    None => {
                        if members_fully_known(db, self.ctx.file, *def) {
                            self.no_static_member(id, name.clone(), &seg.name);
                        }
                        Ty::Unknown
                    }
                },
                // `float.getPi()`, `int.maxValue`: a static member of the
                // core module's declaration of the scalar type.
                Ty::Scalar(s) if seg.args.is_empty() => {
                    match crate::name_res::core_def(db, s.name()).and_then(|d| lookup_member(db, d, &[], &seg.name)) {
                        Some(Member::Field(t)) => t,
                        Some(Member::Methods(defs)) => Ty::Func(defs),
                        _ => self.extension_static_member(t, &seg.name),
                    }
                }
                // `float3.f()`: a static method an extension adds.
                t @ (Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..)) => self.extension_static_member(t, &seg.name),
                _ => Ty::Unknown,
            },
            _ => Ty::Unknown,
        }
    }

    /// The static methods named `name` that extensions add to the built-in
    /// type `t`.
    fn extension_static_member(&self, t: &Ty, name: &str) -> Ty {
        let methods = extension_methods(self.db(), self.ctx.file, t, name);
        if methods.is_empty() {
            Ty::Unknown
        } else {
            Ty::Func(methods)
        }
    }

    /// `t._1` of a tuple with elements `items`: that element; `t._0_0_1`:
    /// a tuple of the elements named (`tuple`: the core `Tuple`).
    fn tuple_member(&mut self, id: ExprId, receiver: &Ty, items: &[Ty], tuple: Option<DefId>, name: &str) -> Ty {
        let picked: Option<Vec<Ty>> = name
            .strip_prefix('_')
            .map(|rest| rest.split('_').map(|k| k.parse::<usize>().ok().and_then(|k| items.get(k).cloned())).collect())
            .unwrap_or(None);
        // (A tuple of a pack, `Tuple<expand each T>`, has unknown elements.)
        if items.iter().any(|t| t.is_unknown()) {
            return match picked {
                Some(mut one) if one.len() == 1 => one.pop().expect("one element"),
                _ => Ty::Unknown,
            };
        }
        match picked {
            Some(mut one) if one.len() == 1 => one.pop().expect("one element"),
            Some(many) => match tuple {
                Some(def) => Ty::Adt { def, name: "Tuple".into(), args: many },
                None => Ty::Tuple(many),
            },
            None => {
                self.diags.push(InferDiag {
                    at: DiagAt::Expr(id),
                    kind: InferDiagKind::NoSuchMember { ty: receiver.to_string(), name: name.to_string() },
                });
                Ty::Unknown
            }
        }
    }

    fn member(&mut self, id: ExprId, receiver: &Ty, name: &str) -> Ty {
        let db = self.db();
        match receiver {
            Ty::Scalar(s) | Ty::Vector(s, _) => {
                let width = match receiver {
                    Ty::Vector(_, n) => *n,
                    _ => 1,
                };
                match swizzle(*s, width, name) {
                    Some(t) => t,
                    // Not swizzle letters: a method from an extension of a
                    // built-in type, perhaps.
                    None if !name.chars().all(|c| "xyzwrgba".contains(c)) => {
                        let methods = extension_methods(db, self.ctx.file, receiver, name);
                        if !methods.is_empty() {
                            return Ty::Func(methods);
                        }
                        if not_a_builtin_member(db, self.ctx.file, name) {
                            self.diags.push(InferDiag {
                                at: DiagAt::Expr(id),
                                kind: InferDiagKind::NoSuchMember { ty: receiver.to_string(), name: name.to_string() },
                            });
                        }
                        Ty::Unknown
                    }
                    None => {
                        self.diags.push(InferDiag {
                            at: DiagAt::Expr(id),
                            kind: InferDiagKind::BadSwizzle { ty: receiver.to_string(), name: name.to_string() },
                        });
                        Ty::Unknown
                    }
                }
            }
            Ty::Matrix(s, _, _) => {
                // `m._m00_m11`, `m._11`: element swizzles.
                if name.starts_with('_') {
                    let n = name.matches('_').count();
                    if n == 1 {
                        Ty::Scalar(*s)
                    } else {
                        Ty::Vector(*s, n.min(4) as u8)
                    }
                } else {
                    if not_a_builtin_member(db, self.ctx.file, name) {
                        self.diags.push(InferDiag {
                            at: DiagAt::Expr(id),
                            kind: InferDiagKind::NoSuchMember { ty: receiver.to_string(), name: name.to_string() },
                        });
                    }
                    Ty::Unknown
                }
            }
            // Tuple elements: `t._1`, and swizzles `t._0_0_1` (a tuple).
            Ty::Tuple(items) => self.tuple_member(id, receiver, items, None, name),
            Ty::Adt { def, args, name: ty_name } if ty_name == "Tuple" && is_core(db, def.file(db)) => {
                self.tuple_member(id, receiver, args, Some(*def), name)
            }
            // `ConstantBuffer<T>`, `ParameterBlock<T>`: `T`'s members.
            Ty::Adt { def, args, name: ty_name }
                if matches!(ty_name.as_str(), "ConstantBuffer" | "ParameterBlock" | "TextureBuffer")
                    && is_core(db, def.file(db))
                    && !args.is_empty()
                    && lookup_member(db, *def, args, name).is_none() =>
            {
                self.member(id, &args[0].clone(), name)
            }
            Ty::Adt { def, args, name: ty_name } => match lookup_member(db, *def, args, name) {
                found @ Some(Member::Field(_) | Member::Methods(_)) => {
                    self.check_access(id, *def, name);
                    match found {
                        Some(Member::Field(t)) => t,
                        Some(Member::Methods(defs)) => Ty::Func(defs),
                        _ => Ty::Unknown,
                    }
                }
                Some(Member::Opaque) => Ty::Unknown,
                None => {
                    // Core types: their declarations list every member, and
                    // extensions may add more.
                    // (Only resources: wrappers like `ConstantBuffer<T>` or
                    // `DescriptorHandle<T>` also expose `T`'s members.)
                    let resource = is_resource_name(ty_name);
                    let core_known = resource
                        && is_core(db, def.file(db))
                        && item_of(db, *def).is_some_and(|i| {
                            matches!(i.kind, ItemKind::Struct | ItemKind::Class) && !i.members.is_empty()
                        })
                        && not_a_builtin_member(db, self.ctx.file, name);
                    if core_known || members_fully_known(db, self.ctx.file, *def) {
                        self.diags.push(InferDiag {
                            at: DiagAt::Expr(id),
                            kind: InferDiagKind::NoSuchMember { ty: receiver.to_string(), name: name.to_string() },
                        });
                    }
                    Ty::Unknown
                }
            },
            Ty::TypeValue(_) | Ty::Namespace(_) => {
                self.static_member(id, receiver, &PathSegment { name: name.to_string(), args: Vec::new() })
            }
            Ty::Pointer(t) => self.member(id, &t.clone(), name),
            Ty::Param { def, name: pname } => self.generic_member(id, *def, pname, name),
            // A member of a synthesized `Differential`.
            Ty::Assoc(base, assoc) if assoc == "Differential" => {
                let Ty::Adt { def, args, .. } = &**base else { return Ty::Unknown };
                let Some(synth) = crate::autodiff::synthesized_differential_of(db, self.ctx.file, *def, args) else {
                    return Ty::Unknown;
                };
                match synth.fields.iter().find(|(n, _)| n == name) {
                    Some((_, t)) => t.clone(),
                    None => {
                        // (`dzero`, `dadd`, `dmul` are static; fields are
                        // all the synthesized type has.)
                        let macro_made = crate::hir::decl_syntax(db, *def).is_some_and(|n| {
                            n.descendants().any(|c| matches!(c.kind(), SyntaxKind::MACRO_CALL | SyntaxKind::MACRO_TYPE))
                        });
                        if !matches!(name, "dzero" | "dadd" | "dmul") && !macro_made {
                            self.diags.push(InferDiag {
                                at: DiagAt::Expr(id),
                                kind: InferDiagKind::NoSuchMember { ty: receiver.to_string(), name: name.to_string() },
                            });
                        }
                        Ty::Unknown
                    }
                }
            }
            _ => Ty::Unknown,
        }
    }

    /// `t.name` where `t : T` and `T` is a generic type parameter: a member
    /// of the interfaces constraining `T`; none when it is unconstrained.
    fn generic_member(&mut self, id: ExprId, gdef: DefId, pname: &str, name: &str) -> Ty {
        let db = self.db();
        if item_of(db, gdef).is_none_or(|i| i.kind != ItemKind::GenericTypeParam) {
            return Ty::Unknown;
        }
        let Some(ifaces) = crate::generics::constraint_interfaces(db, gdef) else { return Ty::Unknown };
        let mut closure = std::collections::HashSet::new();
        let mut complete = true;
        for &i in &ifaces {
            complete &= crate::generics::interface_closure(db, i, &mut closure);
        }
        for &i in &closure {
            match lookup_member(db, i, &[], name) {
                Some(Member::Field(_) | Member::Opaque) => return Ty::Unknown,
                Some(Member::Methods(defs)) => return Ty::Func(defs),
                None => {}
            }
        }
        // Every interface is user-written and seen whole (core interfaces
        // have members this model may not list; extensions may add some).
        let seen_whole = complete
            && closure.iter().all(|&i| !is_core(db, i.file(db)))
            && not_a_builtin_member(db, self.ctx.file, name);
        if seen_whole {
            self.diags.push(InferDiag {
                at: DiagAt::Expr(id),
                kind: InferDiagKind::NoSuchMember { ty: pname.to_string(), name: name.to_string() },
            });
        }
        Ty::Unknown
    }

    /// Report `owner.name` if no member of that name is accessible from
    /// the function being inferred.
    fn check_access(&mut self, id: ExprId, owner: DefId, name: &str) {
        let db = self.db();
        let Some(item) = item_of(db, owner) else { return };
        // Interface members take the interface's visibility.
        if item.kind == ItemKind::Interface {
            return;
        }
        let named: Vec<&Item> = item.members.iter().filter(|m| m.name.as_deref() == Some(name)).collect();
        if named.is_empty() {
            return;
        }
        let ok =
            named.iter().any(|m| accessible(db, self.def, DefId::new(db, owner.file(db), m.ast_index), m.visibility));
        if !ok {
            self.diags.push(InferDiag {
                at: DiagAt::Expr(id),
                kind: InferDiagKind::Inaccessible {
                    what: name.to_string(),
                    visibility: visibility_word(named[0].visibility),
                },
            });
        }
    }

    fn call(&mut self, id: ExprId, callee: ExprId, callee_ty: Ty, args: &[Ty]) -> Ty {
        let db = self.db();
        match callee_ty {
            Ty::TypeValue(t) => {
                // A constructor call: through `__init`s if the struct has
                // any, else member-wise (at most one argument per field).
                if let Ty::Adt { def, args: targs, name } = &*t {
                    if is_plain_user_struct(db, *def, targs) && members_fully_known(db, self.ctx.file, *def) {
                        let item = item_of(db, *def);
                        let inits: Vec<DefId> = item
                            .iter()
                            .flat_map(|i| i.members.iter())
                            .filter(|m| m.kind == ItemKind::Init)
                            .map(|m| DefId::new(db, def.file(db), m.ast_index))
                            .collect();
                        if !inits.is_empty() {
                            let reachable = inits.iter().any(|&i| {
                                let vis = item_of(db, i).map_or(Visibility::Public, |it| it.visibility);
                                accessible(db, self.def, i, vis)
                            });
                            if !reachable {
                                self.diags.push(InferDiag {
                                    at: DiagAt::Expr(callee),
                                    kind: InferDiagKind::Inaccessible {
                                        what: format!("{name}.init"),
                                        visibility: visibility_word(
                                            item_of(db, inits[0]).map_or(Visibility::Public, |it| it.visibility),
                                        ),
                                    },
                                });
                            }
                            self.call(id, callee, Ty::Func(inits), args);
                        } else {
                            let fields = item
                                .iter()
                                .flat_map(|i| i.members.iter())
                                .filter(|m| m.kind == ItemKind::Var && !m.is_static)
                                .count();
                            if args.len() > fields {
                                self.diags.push(InferDiag {
                                    at: DiagAt::Expr(id),
                                    kind: InferDiagKind::ArgCount {
                                        name: name.clone(),
                                        expected: format!("at most {fields}"),
                                        found: args.len(),
                                    },
                                });
                            }
                        }
                    }
                }
                (*t).clone()
            }
            Ty::Func(defs) => {
                let arity_ok = |sig: &FnSig| {
                    let max = sig.params.len();
                    let min = max - sig.has_defaults.iter().filter(|d| **d).count();
                    sig.variadic || (min..=max).contains(&args.len())
                };
                let candidates: Vec<DefId> = defs.iter().copied().filter(|d| arity_ok(fn_sig(db, *d))).collect();
                if let ([only], true) = (candidates.as_slice(), defs.len() == 1) {
                    self.check_args(*only, callee, args);
                }
                let Some(&chosen) = candidates.first() else {
                    // A method's name called unqualified, with arguments
                    // that fit a free function of the same name (the
                    // reference compiler considers both).
                    if let Expr::Path(segs, _) = self.body.expr(callee) {
                        if let [seg] = segs.as_slice() {
                            let free: Vec<DefId> = global_scope(db, self.ctx.file)
                                .lookup(&seg.name)
                                .into_iter()
                                .flatten()
                                .filter(|d| d.kind == ItemKind::Fn)
                                .map(|d| DefId::new(db, d.file, d.ast_index))
                                .filter(|d| !defs.contains(d) && arity_ok(fn_sig(db, *d)))
                                .collect();
                            if !free.is_empty() {
                                return self.call(id, callee, Ty::Func(free), args);
                            }
                        }
                    }
                    // Every overload takes another number of arguments. Only
                    // said for code whose every overload we can see.
                    // The core module's declarations follow the reference
                    // compiler's list, so its functions are checked too.
                    let all_user = true;
                    // Overloads or parameter lists made by macros are not
                    // all visible here.
                    let macro_made = self.module_has_item_macros()
                        || defs.iter().any(|d| {
                            crate::hir::decl_syntax(db, *d)
                                .is_some_and(|n| !n.children().any(|c| c.kind() == SyntaxKind::PARAM_LIST))
                        });
                    if all_user && !defs.is_empty() && !macro_made {
                        let mut counts: Vec<usize> = defs.iter().map(|d| fn_sig(db, *d).params.len()).collect();
                        counts.sort();
                        counts.dedup();
                        let expected = counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" or ");
                        let name = self.callee_name(callee);
                        self.diags.push(InferDiag {
                            at: DiagAt::Expr(id),
                            kind: InferDiagKind::ArgCount { name, expected, found: args.len() },
                        });
                    }
                    return Ty::Unknown;
                };
                let _ = chosen;
                // The return type, if every overload that accepts the
                // arguments agrees on it.
                let explicit = self.explicit_generic_args(callee);
                self.violation = None;
                self.receiver = match self.body.expr(callee) {
                    Expr::Member { receiver, .. } => Some(self.types[receiver.0 as usize].clone()),
                    _ => None,
                };
                // (Variadic generic parameters, `each T`, take any number.)
                let variadic = |d: DefId| {
                    crate::hir::decl_syntax(db, d).is_some_and(|n| {
                        n.children().filter(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST).any(|l| {
                            l.descendants_with_tokens().any(|e| e.as_token().is_some_and(|t| t.text() == "each"))
                        })
                    })
                };
                if !explicit.is_empty()
                    && defs.iter().all(|&d| {
                        !is_core(db, d.file(db)) && fn_sig(db, d).generic_params.len() < explicit.len() && !variadic(d)
                    })
                {
                    let most = defs.iter().map(|&d| fn_sig(db, d).generic_params.len()).max().unwrap_or(0);
                    self.diags.push(InferDiag {
                        at: DiagAt::Expr(callee),
                        kind: InferDiagKind::TooManyGenericArgs { expected: most, found: explicit.len() },
                    });
                    return Ty::Unknown;
                }
                let accepted: Vec<(DefId, (Ty, u32))> =
                    candidates.iter().filter_map(|&c| self.instantiate(c, args, &explicit).map(|r| (c, r))).collect();
                self.receiver = None;
                let rets: Vec<(Ty, u32)> = accepted.iter().map(|(_, r)| r.clone()).collect();
                if accepted.len() >= 2 {
                    self.check_ambiguity(id, callee, &accepted.iter().map(|(d, _)| *d).collect::<Vec<_>>(), args);
                }
                // The cheapest conversions win (Slang's overload ranking, in
                // outline); they must agree on the type.
                let macro_made = self.module_has_item_macros();
                // (With a single overload, `check_args` has said what is wrong.)
                let single = defs.len() == 1 && !is_core(db, defs[0].file(db));
                if let (true, Some((arg, interface))) = (rets.is_empty(), self.violation.take()) {
                    self.diags.push(InferDiag {
                        at: DiagAt::Expr(id),
                        kind: InferDiagKind::NotConforming { arg, interface },
                    });
                } else if rets.is_empty()
                    && !single
                    && !args.is_empty()
                    && !macro_made
                    && args.iter().all(|a| is_concrete(db, a))
                {
                    // No overload accepts these argument types.
                    let name = self.callee_name(callee);
                    let list = args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ");
                    let candidates = defs.iter().map(|&d| signature_text(db, d, &name)).collect();
                    self.diags.push(InferDiag {
                        at: DiagAt::Expr(id),
                        kind: InferDiagKind::NoOverload { name, args: list, candidates },
                    });
                }
                let best = rets.iter().map(|(_, c)| *c).min().unwrap_or(0);
                let mut best_rets = rets.iter().filter(|(_, c)| *c == best).map(|(t, _)| t);
                match best_rets.next() {
                    Some(first) if best_rets.all(|r| r == first) => first.clone(),
                    _ => Ty::Unknown,
                }
            }
            Ty::DiffFunc { defs, modes } => self.call_derivative(id, callee, &defs, &modes, args),
            Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) | Ty::Array(..) => {
                self.diags.push(InferDiag {
                    at: DiagAt::Expr(id),
                    kind: InferDiagKind::NotCallable { ty: callee_ty.to_string() },
                });
                Ty::Unknown
            }
            _ => Ty::Unknown,
        }
    }

    /// `f<float>(x)`, `buf.Load<Record>(0)`: generic arguments written at the
    /// call.
    fn explicit_generic_args(&self, callee: ExprId) -> Vec<GenericArgRef> {
        match self.body.expr(callee) {
            Expr::Path(segs, _) => segs.last().map(|s| s.args.clone()).unwrap_or_default(),
            Expr::Member { generic_args, .. } => generic_args.clone(),
            _ => Vec::new(),
        }
    }

    /// The return type of `def` called with `args`, or `None` if `def`
    /// cannot accept them (a parameter type certainly does not match, or
    /// generic parameters bind inconsistently). Unknown when the return type
    /// depends on what this model cannot work out.
    /// The result of the core module's variadic tuple functions:
    /// `makeTuple(a, b)` is a `Tuple<A, B>`, `concat(t, u)` the tuple of
    /// both's elements (`None`: another function, or unknown elements).
    fn tuple_call(&self, def: DefId, args: &[Ty]) -> Option<Ty> {
        let db = self.db();
        if !is_core(db, def.file(db)) {
            return None;
        }
        let name = item_of(db, def)?.name.clone()?;
        let elems: Vec<Ty> = match name.as_str() {
            "makeTuple" => args.to_vec(),
            "concat" if args.len() == 2 => {
                let mut all = Vec::new();
                for a in args {
                    match a {
                        Ty::Adt { name, args, .. } if name == "Tuple" => all.extend(args.iter().cloned()),
                        Ty::Tuple(items) => all.extend(items.iter().cloned()),
                        _ => return None,
                    }
                }
                all
            }
            _ => return None,
        };
        if elems.iter().any(|e| e.is_unknown()) {
            return None;
        }
        let tuple = self.ctx.lookup_global("Tuple").into_iter().find(|d| d.kind == ItemKind::Struct)?;
        Some(Ty::Adt { def: DefId::new(db, tuple.file, tuple.ast_index), name: "Tuple".into(), args: elems })
    }

    fn instantiate(&mut self, def: DefId, args: &[Ty], explicit: &[GenericArgRef]) -> Option<(Ty, u32)> {
        let db = self.db();
        if let Some(t) = self.tuple_call(def, args) {
            return Some((t, 0));
        }
        let sig = fn_sig(db, def).clone();
        let mut ctx = DeclCtx::for_def(db, def);
        // A method called on `x` of type `S<A…>` (or a static one on
        // `S<A…>` itself): `S`'s generic parameters are `A…`
        // (`pair.getPrimal()` of a `DifferentialPair<float3>`).
        let receiver = match &self.receiver {
            Some(Ty::TypeValue(t)) => Some((**t).clone()),
            r => r.clone(),
        };
        if let Some(Ty::Adt { def: owner, args: owner_args, .. }) = &receiver {
            if parent_of(db, def) == Some(*owner) {
                if let Some(owner_item) = item_of(db, *owner) {
                    for (g, a) in owner_item.generic_params.iter().zip(owner_args) {
                        if let (Some(n), false) = (&g.name, a.is_unknown()) {
                            ctx.generics.insert(n.clone(), a.clone());
                        }
                    }
                }
            }
        }
        let gp = &sig.generic_params;
        let mut bind: HashMap<String, Ty> = HashMap::new();
        // More generic arguments than parameters: not this overload.
        if explicit.len() > gp.len() {
            return None;
        }
        for (name, a) in gp.iter().zip(explicit) {
            let t = match a {
                GenericArgRef::Type(t) => self.ctx.resolve(t),
                GenericArgRef::Value(Some(n)) => Ty::Const(*n),
                GenericArgRef::Value(None) => Ty::Unknown,
            };
            bind.insert(name.clone(), t);
        }
        for (p, a) in sig.params.iter().zip(args) {
            if !unify(&p.ty, a, gp, &mut bind, sig.elementwise) {
                return None;
            }
        }
        // A scalar, vector or matrix given for a generic struct `S<T…>` of
        // the function's generic parameters (`exp(CoopVec<T, N>)` called
        // with a `float`): not this overload.
        for (p, a) in sig.params.iter().zip(args) {
            if let (TypeRef::Path(segs), Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..)) = (&p.ty, a) {
                if let [seg] = segs.as_slice() {
                    let named: Vec<&String> = seg
                        .args
                        .iter()
                        .filter_map(|g| match g {
                            GenericArgRef::Type(TypeRef::Path(s)) if s.len() == 1 && gp.contains(&s[0].name) => {
                                Some(&s[0].name)
                            }
                            _ => None,
                        })
                        .collect();
                    let is_builtin_shape = matches!(seg.name.as_str(), "vector" | "matrix");
                    if !is_builtin_shape && !named.is_empty() && is_struct_type_name(db, def, &seg.name) {
                        return None;
                    }
                }
            }
        }
        if let Some(v) = self.broken_constraint(def, &bind) {
            self.violation = Some(v);
            return None;
        }
        for (k, v) in bind {
            if !v.is_unknown() {
                ctx.generics.insert(k, v);
            }
        }
        let mut cost = 0;
        for (p, a) in sig.params.iter().zip(args) {
            if !type_ref_mentions(&p.ty, gp) {
                let expected = ctx.resolve(&p.ty);
                if is_mismatch(db, &expected, a) && !sig.elementwise {
                    return None;
                }
                cost += conversion_cost(&expected, a);
            } else {
                // Generic parameters match anything they bind to, at a
                // small cost (a concrete overload is preferred).
                cost += 1;
            }
        }
        let ret = ctx.resolve(&sig.ret);
        if ty_is_open(&ret) {
            return Some((Ty::Unknown, cost));
        }
        if sig.elementwise {
            if let Some(s) = ret.scalar() {
                // The shape comes from the arguments of the element type
                // (not from, say, a lane mask).
                let elem_args = sig.params.iter().zip(args).filter_map(|(p, a)| match &p.ty {
                    TypeRef::Path(segs) if segs.len() == 1 && gp.contains(&segs[0].name) => Some(a),
                    _ => None,
                });
                let shape = elem_args.fold(None::<Ty>, |acc, a| match (acc, a) {
                    (None, a) if a.is_numeric() => Some(a.clone()),
                    (Some(acc), a) if a.is_numeric() => broadcast(&acc, a).or(Some(acc)),
                    (acc, _) => acc,
                });
                if let Some(shape) = shape {
                    return Some((shape.with_scalar(s), cost));
                }
            }
        }
        Some((ret, cost))
    }

    /// Report a call whose accepted overloads are each better than another
    /// for some argument (`f(int, float)` and `f(float, int)` for
    /// `(int, int)`). Only for user functions without generic parameters
    /// and fully known argument types.
    fn check_ambiguity(&mut self, id: ExprId, callee: ExprId, accepted: &[DefId], args: &[Ty]) {
        let db = self.db();
        if !args.iter().all(|a| is_concrete(db, a)) {
            return;
        }
        let mut costs: Vec<Vec<u32>> = Vec::new();
        for &d in accepted {
            let sig = fn_sig(db, d);
            if is_core(db, d.file(db)) || !sig.generic_params.is_empty() || sig.variadic {
                return;
            }
            let mut ctx = DeclCtx::for_def(db, d);
            let c: Vec<u32> =
                sig.params.iter().zip(args).map(|(p, a)| conversion_cost(&ctx.resolve(&p.ty), a)).collect();
            costs.push(c);
        }
        let dominates = |a: &[u32], b: &[u32]| a.iter().zip(b).all(|(x, y)| x <= y);
        let has_best = costs.iter().any(|a| costs.iter().all(|b| dominates(a, b)));
        // Equal cost lists may be told apart by finer rules than this
        // model has; only a real cross-over is reported.
        let crossed = costs.iter().any(|a| costs.iter().any(|b| !dominates(a, b) && !dominates(b, a)));
        if has_best || !crossed {
            return;
        }
        let name = self.callee_name(callee);
        let list = args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ");
        let candidates = accepted.iter().map(|&d| signature_text(db, d, &name)).collect();
        self.diags
            .push(InferDiag { at: DiagAt::Expr(id), kind: InferDiagKind::Ambiguous { name, args: list, candidates } });
    }

    /// A generic argument of `def` (as bound) that certainly does not
    /// conform to its parameter's constraint: (argument, interface).
    fn broken_constraint(&self, def: DefId, bind: &HashMap<String, Ty>) -> Option<(String, String)> {
        let db = self.db();
        let item = item_of(db, def)?;
        for g in &item.generic_params {
            let (Some(name), ItemKind::GenericTypeParam) = (&g.name, g.kind) else { continue };
            let Some(bound) = bind.get(name) else { continue };
            let gdef = DefId::new(db, def.file(db), g.ast_index);
            let Some(ifaces) = crate::generics::constraint_interfaces(db, gdef) else { continue };
            for iface in ifaces {
                let iname = item_of(db, iface).and_then(|i| i.name.clone()).unwrap_or_default();
                // Core interfaces a struct must declare to conform to.
                const DECLARED: [&str; 8] = [
                    "IFloat",
                    "IArithmetic",
                    "IInteger",
                    "IDifferentiable",
                    "IComparable",
                    "ILogical",
                    "IRangedValue",
                    "IDifferentiablePtrType",
                ];
                if is_core(db, iface.file(db)) && !DECLARED.contains(&iname.as_str()) {
                    continue;
                }
                if crate::generics::certainly_not_conforming(db, self.ctx.file, bound, iface) {
                    return Some((bound.to_string(), iname));
                }
            }
        }
        None
    }

    /// Arguments against the parameters of the only function a call can
    /// mean: types (for non-generic parameters) and `out` arguments.
    fn check_args(&mut self, def: DefId, callee: ExprId, args: &[Ty]) {
        let db = self.db();
        if is_core(db, def.file(db)) {
            return;
        }
        let arg_ids: Vec<ExprId> =
            match self.body.exprs.iter().find(|e| matches!(e, Expr::Call { callee: c, .. } if *c == callee)) {
                Some(Expr::Call { args, .. }) => args.clone(),
                _ => return,
            };
        let sig = fn_sig(db, def).clone();
        let mut ctx = DeclCtx::for_def(db, def);
        for ((p, a), &aid) in sig.params.iter().zip(args).zip(&arg_ids) {
            let generic = type_ref_mentions(&p.ty, &sig.generic_params) || !ctx.generics.is_empty();
            if !generic {
                let expected = ctx.resolve(&p.ty);
                self.check_mismatch(DiagAt::Expr(aid), &expected, a);
            }
            if p.is_out && !self.is_lvalue(aid) {
                self.diags.push(InferDiag { at: DiagAt::Expr(aid), kind: InferDiagKind::NotAnLvalue });
            } else if p.is_out && !generic {
                // An `out`/`inout` argument is not converted: a variable of
                // another type would be a temporary.
                let expected = ctx.resolve(&p.ty);
                let db = self.db();
                // (slangc lets a signed and an unsigned integer of one
                // width through.)
                let same_width_ints = |x: Scalar, y: Scalar| {
                    use Scalar::*;
                    matches!(
                        (x, y),
                        (Int8 | UInt8, Int8 | UInt8)
                            | (Int16 | UInt16, Int16 | UInt16)
                            | (Int32 | UInt32, Int32 | UInt32)
                            | (Int64 | UInt64, Int64 | UInt64)
                    )
                };
                let compatible = match (&expected, a) {
                    (Ty::Scalar(x), Ty::Scalar(y)) => same_width_ints(*x, *y),
                    (Ty::Vector(x, n), Ty::Vector(y, m)) => n == m && same_width_ints(*x, *y),
                    _ => false,
                };
                if is_concrete(db, &expected) && is_concrete(db, a) && expected != *a && !compatible {
                    self.diags.push(InferDiag {
                        at: DiagAt::Expr(aid),
                        kind: InferDiagKind::OutArgumentType { expected: expected.to_string(), found: a.to_string() },
                    });
                }
            }
        }
    }

    fn is_lvalue(&self, e: ExprId) -> bool {
        match self.body.expr(e) {
            // A `let` or `const` local (or `const` parameter).
            Expr::Path(segs, false) if segs.len() == 1 && self.local(&segs[0].name).is_some_and(|l| l.immutable) => {
                false
            }
            Expr::Path(..) | Expr::This => true,
            Expr::Member { receiver, .. } | Expr::Index { base: receiver, .. } => self.is_lvalue(*receiver),
            Expr::Prefix { op: SyntaxKind::STAR, .. } | Expr::NoDiff(_) | Expr::Missing | Expr::Other(_) => true,
            _ => false,
        }
    }
}

/// A fully known plain value type: numbers, strings and user structs
/// (not resources or core types, which convert in ways not modelled here,
/// like `ConstantBuffer<T>` to `T`).
pub(crate) fn is_concrete(db: &dyn Db, t: &Ty) -> bool {
    match t {
        Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) | Ty::String => true,
        Ty::Array(e, Some(_)) => is_concrete(db, e),
        Ty::Adt { def, args, .. } => is_plain_user_struct(db, *def, args),
        _ => false,
    }
}

/// How far `actual` is from `expected` (0 = the same type; only for types
/// that convert at all).
fn conversion_cost(expected: &Ty, actual: &Ty) -> u32 {
    if expected == actual || expected.is_unknown() || actual.is_unknown() {
        return 0;
    }
    match (expected, actual) {
        // Same shape, another element type.
        (Ty::Scalar(_), Ty::Scalar(_)) | (Ty::Vector(..), Ty::Vector(..)) | (Ty::Matrix(..), Ty::Matrix(..)) => 2,
        // A scalar splatted into a vector or matrix.
        (Ty::Vector(..) | Ty::Matrix(..), Ty::Scalar(_)) => 3,
        _ => 1,
    }
}

fn visibility_word(v: Visibility) -> &'static str {
    match v {
        Visibility::Private => "private",
        Visibility::Public => "public",
        Visibility::Internal | Visibility::Default => "internal",
    }
}

/// Whether member `member` (of visibility `vis`) can be used from inside
/// function `from`: `private` inside its type (and the type's extensions),
/// `internal` (the default outside legacy modules) inside its module.
pub fn accessible(db: &dyn Db, from: DefId, member: DefId, vis: Visibility) -> bool {
    match vis {
        Visibility::Public => true,
        Visibility::Private => {
            let Some(owner) = parent_of(db, member) else { return true };
            let owner_name = item_of(db, owner).and_then(|i| i.name.clone());
            let mut cur = Some(from);
            while let Some(d) = cur {
                if d == owner {
                    return true;
                }
                if let Some(i) = item_of(db, d) {
                    // An extension of the type (by name; resolving the
                    // target is not worth it here).
                    if i.kind == ItemKind::Extension {
                        let target = crate::hir::decl_syntax(db, d)
                            .and_then(ast::Extension::cast)
                            .and_then(|e| e.target())
                            .map(|t| t.syntax().text().to_string())
                            .unwrap_or_default();
                        if Some(target.split('<').next().unwrap_or("").trim().to_string()) == owner_name {
                            return true;
                        }
                    }
                }
                cur = parent_of(db, d);
            }
            false
        }
        Visibility::Internal | Visibility::Default => {
            let file = member.file(db);
            if vis == Visibility::Default && crate::name_res::is_legacy_module(db, file) {
                return true;
            }
            is_core(db, file) || crate::module_graph::module_of(db, from.file(db)).contains(&file)
        }
    }
}

/// Whether a type still mentions unbound generic parameters.
fn ty_is_open(t: &Ty) -> bool {
    match t {
        Ty::Param { .. } | Ty::Assoc(..) => true,
        Ty::Array(e, _) | Ty::Pointer(e) => ty_is_open(e),
        Ty::Adt { args, .. } => args.iter().any(ty_is_open),
        Ty::Tuple(items) => items.iter().any(ty_is_open),
        _ => false,
    }
}

/// Bind generic parameter `name` to `value`; `false` on a certain
/// conflict.
fn bind_one(name: &str, value: Ty, bind: &mut HashMap<String, Ty>) -> bool {
    match bind.get(name) {
        None => {
            bind.insert(name.to_string(), value);
            true
        }
        Some(prev) if *prev == value || prev.is_unknown() => true,
        // Two different scalar types: an implicit conversion joins them.
        Some(Ty::Scalar(p)) => match value {
            Ty::Scalar(v) => {
                let joined = Scalar::promote(*p, v);
                bind.insert(name.to_string(), Ty::Scalar(joined));
                true
            }
            _ => false,
        },
        Some(_) => false,
    }
}

/// How a call of `def` binds `def`'s own generic parameters, given the
/// argument types and the generic arguments written at the call (already
/// resolved): by name, value parameters as `Ty::Const`. Parameters
/// nothing binds are absent.
pub fn call_bindings(db: &dyn Db, def: DefId, args: &[Ty], explicit: &[Ty]) -> HashMap<String, Ty> {
    let sig = fn_sig(db, def);
    let gp = &sig.generic_params;
    let mut bind: HashMap<String, Ty> = gp.iter().cloned().zip(explicit.iter().cloned()).collect();
    for (p, a) in sig.params.iter().zip(args) {
        unify(&p.ty, a, gp, &mut bind, sig.elementwise);
    }
    bind.retain(|_, t| !t.is_unknown());
    bind
}

/// Match a parameter type against an argument type, binding generic
/// parameters; `false` on a certain conflict.
fn unify(p: &TypeRef, a: &Ty, gp: &[String], bind: &mut HashMap<String, Ty>, elementwise: bool) -> bool {
    if a.is_unknown() {
        return true;
    }
    // `T[N]` given an array: its element type and length.
    if let (TypeRef::Array(elem, len), Ty::Array(a_elem, a_len)) = (p, a) {
        let ok_len = match (len, a_len) {
            (crate::hir::ArrayLen::Named(n), Some(l)) if gp.contains(n) => bind_one(n, Ty::Const(*l as i64), bind),
            _ => true,
        };
        return ok_len && unify(elem, a_elem, gp, bind, elementwise);
    }
    let TypeRef::Path(segs) = p else { return true };
    let [seg] = segs.as_slice() else { return true };
    if seg.args.is_empty() && gp.contains(&seg.name) {
        let value = if elementwise { a.scalar().map(Ty::Scalar).unwrap_or_else(|| a.clone()) } else { a.clone() };
        return bind_one(&seg.name, value, bind);
    }
    let arg_name = |x: &GenericArgRef| match x {
        GenericArgRef::Type(TypeRef::Path(s)) if s.len() == 1 && s[0].args.is_empty() && gp.contains(&s[0].name) => {
            Some(s[0].name.clone())
        }
        _ => None,
    };
    match (seg.name.as_str(), seg.args.as_slice(), a) {
        ("vector", [t, n], Ty::Vector(s, len)) => {
            let ok_t = arg_name(t).is_none_or(|name| bind_one(&name, Ty::Scalar(*s), bind));
            let ok_n = arg_name(n).is_none_or(|name| bind_one(&name, Ty::Const(*len as i64), bind));
            ok_t && ok_n
        }
        ("matrix", [t, r, c], Ty::Matrix(s, rows, cols)) => {
            let ok_t = arg_name(t).is_none_or(|name| bind_one(&name, Ty::Scalar(*s), bind));
            let ok_r = arg_name(r).is_none_or(|name| bind_one(&name, Ty::Const(*rows as i64), bind));
            let ok_c = arg_name(c).is_none_or(|name| bind_one(&name, Ty::Const(*cols as i64), bind));
            ok_t && ok_r && ok_c
        }
        // A generic vector or matrix parameter given a struct, a string, or
        // the other shape.
        ("vector" | "matrix", [..], Ty::Adt { .. } | Ty::String) => false,
        ("vector", [..], Ty::Matrix(..)) | ("matrix", [..], Ty::Vector(..) | Ty::Scalar(_)) => false,
        // `S<T>` given an `S<float>`: argument by argument.
        (_, [_, ..], Ty::Adt { name, args, .. }) if *name == seg.name && args.len() == seg.args.len() => {
            seg.args.iter().zip(args).all(|(g, a)| match g {
                GenericArgRef::Type(t) => unify(t, a, gp, bind, false),
                GenericArgRef::Value(_) => true,
            })
        }
        _ => true,
    }
}

fn vector_sizes_differ(a: &Ty, b: &Ty) -> bool {
    matches!((a, b), (Ty::Vector(_, n), Ty::Vector(_, m)) if n != m)
}

/// Whether a type reference names one of `names` anywhere.
fn type_ref_mentions(t: &TypeRef, names: &[String]) -> bool {
    match t {
        TypeRef::Path(segs) => segs.iter().any(|s| {
            names.contains(&s.name)
                || s.args.iter().any(|a| matches!(a, GenericArgRef::Type(t) if type_ref_mentions(t, names)))
        }),
        TypeRef::Array(e, _) | TypeRef::Pointer(e) => type_ref_mentions(e, names),
        TypeRef::Tuple(items) => items.iter().any(|t| type_ref_mentions(t, names)),
        TypeRef::This => true,
        TypeRef::Unknown => true,
    }
}

/// The shape two numeric operands combine to (scalars splat; the larger
/// vector wins, as HLSL truncates the other with a warning).
fn broadcast(a: &Ty, b: &Ty) -> Option<Ty> {
    let s = Scalar::promote(a.scalar()?, b.scalar()?);
    Some(match (a, b) {
        (Ty::Matrix(_, r, c), _) | (_, Ty::Matrix(_, r, c)) => Ty::Matrix(s, *r, *c),
        (Ty::Vector(_, n), Ty::Vector(_, m)) => Ty::Vector(s, (*n).min(*m)),
        (Ty::Vector(_, n), _) | (_, Ty::Vector(_, n)) => Ty::Vector(s, *n),
        _ => Ty::Scalar(s),
    })
}

fn arith(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        // A matrix and a vector: an element-wise product in HLSL terms, the
        // linear-algebra product (a vector) in GLSL code (`mat4 * vec4`,
        // with `-allow-glsl`), which a file does not say: not known.
        (Ty::Matrix(..), Ty::Vector(..)) | (Ty::Vector(..), Ty::Matrix(..)) => Ty::Unknown,
        _ => broadcast(a, b).unwrap_or(Ty::Unknown),
    }
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

/// Whether `name`, seen from `def`'s file, names only structs or classes
/// that no scalar converts to (not an alias, which may stand for a scalar
/// or vector, nor a type with language support such as `Optional<T>`).
fn is_struct_type_name(db: &dyn Db, def: DefId, name: &str) -> bool {
    let Some(defs) = global_scope(db, def.file(db)).lookup(name) else { return false };
    !defs.is_empty()
        && defs.iter().all(|d| {
            item_of(db, DefId::new(db, d.file, d.ast_index)).is_some_and(|i| {
                matches!(i.kind, ItemKind::Struct | ItemKind::Class)
                    && !i.attrs.iter().any(|a| a.starts_with("__Builtin"))
                    && !i
                        .members
                        .iter()
                        .any(|m| m.kind == ItemKind::Init && m.attrs.iter().any(|a| a == "__ImplicitConversion"))
            })
        })
}
