//! [`DeclCtx`]: a declaration's context (file, generic parameters in
//! scope, enclosing type and namespaces) and the resolution of type
//! references in it ([`TypeResolver`]).

use super::*;
use crate::hir::consteval::{self, ConstEnv, ConstValue};

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
        // `__func_extension __apply(S::method)`: `this` is the method's
        // receiver.
        if item_of(db, def).is_some_and(|i| i.kind == ItemKind::Fn && i.name.is_none()) {
            let ext = crate::infer::func_extension::func_extension_of(db, def)
                .filter(|e| e.kind == crate::infer::func_extension::ExtensionKind::Apply);
            if let Some(owner) = ext.as_ref().and_then(|e| e.owner.as_ref().map(|o| (o, &e.target))) {
                let this = ctx.resolve(owner.0);
                let is_method = match &this {
                    Ty::Adt { def: s, .. } => item_of(db, *s).is_some_and(|i| {
                        i.members
                            .iter()
                            .any(|m| m.kind == ItemKind::Fn && !m.is_static && m.name.as_deref() == Some(owner.1))
                    }),
                    _ => false,
                };
                if is_method {
                    ctx.this = this;
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
                // A pack parameter (last) after others takes the remaining
                // arguments, packs among them spliced (`IFunc<R, expand
                // each P>`). (A type whose one parameter is a pack has its
                // elements as arguments: `Tuple<A, B>`, `Tuple<expand each
                // T>`.)
                if let Some(k) = item.generic_params.iter().position(|g| g.is_pack()) {
                    if args.len() >= k {
                        let rest = args.split_off(k);
                        let flat: Vec<Ty> = rest
                            .into_iter()
                            .flat_map(|a| match a {
                                Ty::Pack(items) => items,
                                a => vec![a],
                            })
                            .collect();
                        match k {
                            0 => args = flat,
                            _ => args.push(Ty::Pack(flat)),
                        }
                    }
                }
                // Defaults of the parameters, when none is given
                // (`Texture2D` is `Texture2D<float4>`; a core type written
                // with some arguments keeps its spelling). A user type's
                // omitted trailing parameters take their defaults, computed
                // from the arguments before them (`S<int N, int M = N - 1>`).
                let given =
                    if !args.is_empty() && is_core(db, d.file) { item.generic_params.len() } else { args.len() };
                let mut inner = DeclCtx::for_def(db, def);
                for (g, a) in item.generic_params.iter().zip(&args) {
                    if let (Some(n), false) = (&g.name, a.is_unknown()) {
                        inner.generics.insert(n.clone(), a.clone());
                    }
                }
                for g in item.generic_params.iter().skip(given) {
                    let node = crate::hir::decl_syntax(db, DefId::new(db, d.file, g.ast_index));
                    let has_default =
                        node.as_ref().is_some_and(|n| n.children_with_tokens().any(|t| t.kind() == SyntaxKind::EQ));
                    let type_default =
                        node.clone().and_then(slang_syntax::ast::GenericTypeParam::cast).and_then(|p| p.types().last());
                    let value_default =
                        node.and_then(slang_syntax::ast::GenericValueParam::cast).and_then(|p| p.default_value());
                    let arg = match (has_default, type_default, value_default) {
                        (false, _, _) => break,
                        (true, Some(t), _) => inner.resolve(&crate::hir::lower_type(Some(t))),
                        (true, None, Some(e)) => match inner.eval_const(&e) {
                            Some(v) => Ty::Const(v),
                            None => break,
                        },
                        _ => break,
                    };
                    if let (Some(n), false) = (&g.name, arg.is_unknown()) {
                        inner.generics.insert(n.clone(), arg.clone());
                    }
                    args.push(arg);
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
    /// The value of the constant expression `e` of `body` (see
    /// [`consteval`]), its names read in this context: generic value
    /// parameters, `static const`/`const` globals and members (`K`, `S.K`,
    /// `S::K`, `K` inside `S`) and enum cases (`E.A`).
    pub fn eval(&mut self, body: &Body, e: ExprId) -> Option<ConstValue> {
        if self.depth > 16 {
            return None;
        }
        consteval::eval(body, e, self)
    }

    /// [`Self::eval`] of an integer.
    pub fn eval_int(&mut self, body: &Body, e: ExprId) -> Option<i64> {
        self.eval(body, e)?.as_int()
    }

    /// The value of a constant integer expression written outside a body
    /// (an array length, an attribute's argument).
    pub fn eval_const(&mut self, e: &ast::Expr) -> Option<i64> {
        let (body, id) = crate::hir::lower_expr(e);
        self.eval_int(&body, id)
    }

    /// The constant `name`: a `static const` member of `owner` (or of
    /// `This`, when no owner is written), a case of enum `owner`, else a
    /// global constant.
    fn named_const(&mut self, owner: Option<&Ty>, name: &str) -> Option<ConstValue> {
        let db = self.db;
        if let Some(Ty::Adt { def, .. }) = owner {
            if item_of(db, *def).is_some_and(|i| i.kind == ItemKind::Enum) {
                return self.enum_case_value(*def, name)?.map(ConstValue::Int);
            }
        }
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
        if !item.modifiers.contains(&crate::item_tree::Modifier::Const) && !item.is_static {
            return None;
        }
        let init = crate::hir::body(db, def).clone();
        let e = init.initializer()?;
        // In the constant's own context (its struct's generic arguments
        // as bound here).
        let mut inner = DeclCtx::for_def(db, def);
        inner.generics.extend(self.generics.clone());
        inner.generics.extend(bound.into_iter().filter(|(_, t)| !matches!(t, Ty::Param { .. })));
        inner.depth = self.depth + 1;
        inner.eval(&init, e)
    }

    /// The value of the case `name` of enum `def` (its initializer, or one
    /// more than the previous case's; `[Flags]` enums number their cases
    /// 1, 2, 4, …). `None`: no such case; `Some(None)`: its value is not a
    /// constant.
    pub fn enum_case_value(&mut self, def: DefId, name: &str) -> Option<Option<i64>> {
        let db = self.db;
        let item = item_of(db, def).filter(|i| i.kind == ItemKind::Enum)?;
        item.members.iter().find(|m| m.kind == ItemKind::EnumCase && m.name.as_deref() == Some(name))?;
        let flags = item.has_attr("Flags");
        let mut next = i64::from(flags);
        // The values of the cases before, which later ones may use
        // (`C = A | B`).
        let mut known: HashMap<String, i64> = HashMap::new();
        let mut inner = DeclCtx::for_def(db, def);
        inner.depth = self.depth + 1;
        for case in item.members.iter().filter(|m| m.kind == ItemKind::EnumCase) {
            let body = crate::hir::body(db, DefId::new(db, def.file(db), case.ast_index)).clone();
            if let Some(e) = body.initializer() {
                let mut env = EnumCases { ctx: &mut inner, known: &known };
                match consteval::eval(&body, e, &mut env).and_then(|v| v.as_int()) {
                    Some(v) => next = v,
                    None => return Some(None),
                }
            }
            if case.name.as_deref() == Some(name) {
                return Some(Some(next));
            }
            if let Some(n) = &case.name {
                known.insert(n.clone(), next);
            }
            next = match (flags, next) {
                (true, 0) => 1,
                (true, v) => v.wrapping_shl(1),
                (false, v) => v.wrapping_add(1),
            };
        }
        None
    }
}

/// Names in an enum case's value: the cases before it (`A`, `E.A`,
/// `E::A`), then the enum's context.
struct EnumCases<'a, 'db> {
    ctx: &'a mut DeclCtx<'db>,
    known: &'a HashMap<String, i64>,
}

impl ConstEnv for EnumCases<'_, '_> {
    fn name(&mut self, body: &Body, e: ExprId) -> Option<ConstValue> {
        let last = consteval::name_path(body, e)?.pop()?;
        match self.known.get(&last.name) {
            Some(&v) => Some(ConstValue::Int(v)),
            None => self.ctx.name(body, e),
        }
    }
}

impl ConstEnv for DeclCtx<'_> {
    fn name(&mut self, body: &Body, e: ExprId) -> Option<ConstValue> {
        let mut segs = consteval::name_path(body, e)?;
        let last = segs.pop()?;
        if !last.args.is_empty() {
            return None;
        }
        if segs.is_empty() {
            if let Some(Ty::Const(v)) = self.generics.get(&last.name) {
                return Some(ConstValue::Int(*v));
            }
            return self.named_const(None, &last.name);
        }
        let owner = self.resolve(&TypeRef::Path(segs));
        self.named_const(Some(&owner), &last.name)
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
        if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
        {
            return self.named_const(None, name)?.as_int();
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
                // `T.Element` of a scalar, vector or matrix (`ITexelElement`,
                // `IArray`): the scalar.
                Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) if seg.name == "Element" => {
                    ty.scalar().map_or(Ty::Unknown, Ty::Scalar)
                }
                // (`DifferentialPair<T>.Differential` is the pair of
                // `T.Differential`; a user struct's is synthesized, or
                // declared in it or in an extension that applies.)
                Ty::Adt { def, ref name, .. }
                    if seg.name == "Differential"
                        && (!is_core(self.db, def.file(self.db)) || name == "DifferentialPair") =>
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
                            // (Of `S<A…>`: the alias sees `S`'s parameters
                            // as `A…`, as it would inside `S<A…>`.)
                            let d = DefRef { file: def.file(self.db), ast_index: m.ast_index, kind: m.kind };
                            let outer = std::mem::replace(&mut self.this, ty.clone());
                            let t = self.type_of_type_def(&d, &seg.args);
                            self.this = outer;
                            t
                        }
                        // A case of an enum, as a generic value argument
                        // (`S<TargetEnum.CUDA>`): its value. (The core
                        // module's enums stay symbolic: its members of types
                        // with such arguments, `MapElement` of a tuple of
                        // `CoopMat`s, are not all declared yet.)
                        None if item_of(self.db, def).is_some_and(|i| i.kind == ItemKind::Enum)
                            && !is_core(self.db, def.file(self.db)) =>
                        {
                            match self.named_const(Some(&ty), &seg.name).and_then(|v| v.as_int()) {
                                Some(v) => Ty::Const(v),
                                None => Ty::Assoc(Arc::new(ty), seg.name.clone()),
                            }
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
            // `Differential` inside a struct whose differential is
            // synthesized.
            if name == "Differential"
                && seg.args.is_empty()
                && !is_core(self.db, def.file(self.db))
                && crate::autodiff::synthesized_differential(self.db, self.file, def).is_some()
            {
                return crate::autodiff::differential_of(self.db, &self.this.clone());
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
