//! Names and paths in expressions: the first segment of a path (locals,
//! `this` fields, globals), static members (`S.x`, `E.A`, `T.f`), members
//! of values (`v.xyz`, `s.f`, tuple elements), generic parameters' members,
//! access control, and the generic arity of type names.

use super::*;

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

/// Whether every member of `def` named `name` is an instance field or
/// method (so that it needs an instance).
fn only_instance_members(db: &dyn Db, def: DefId, name: &str) -> bool {
    let Some(item) = item_of(db, def) else { return false };
    let named: Vec<&Item> = item.members.iter().filter(|m| m.name.as_deref() == Some(name)).collect();
    !named.is_empty()
        && named.iter().all(|m| {
            matches!(m.kind, ItemKind::Var | ItemKind::Fn | ItemKind::Property)
                && !m.is_static
                && !m.modifiers.contains(&crate::item_tree::Modifier::Const)
        })
}

impl<'db> Infer<'_, 'db> {
    pub(super) fn path(&mut self, id: ExprId, segs: &[PathSegment], global: bool) -> Ty {
        let Some(first) = segs.first() else { return Ty::Unknown };
        let mut ty = if global { self.global_name(first) } else { self.first_name(id, first) };
        for seg in &segs[1..] {
            ty = self.static_member(id, &ty, seg);
        }
        ty
    }

    pub(super) fn no_static_member(&mut self, id: ExprId, owner: String, name: &str) {
        self.diags.push(InferDiag {
            at: DiagAt::Expr(id),
            kind: InferDiagKind::NoStaticMember { owner, name: name.to_string() },
        });
    }

    pub(super) fn first_name(&mut self, id: ExprId, seg: &PathSegment) -> Ty {
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
        // `This(…)` in a struct: the struct's type.
        if let (Ty::Adt { def, .. }, "This", true) = (&self.ctx.this, seg.name.as_str(), seg.args.is_empty()) {
            if item_of(self.db(), *def).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class)) {
                return Ty::TypeValue(Arc::new(self.ctx.this.clone()));
            }
        }
        self.global_name(seg)
    }

    pub(super) fn global_name(&mut self, seg: &PathSegment) -> Ty {
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
    pub(super) fn static_member(&mut self, id: ExprId, base: &Ty, seg: &PathSegment) -> Ty {
        let db = self.db();
        match base {
            Ty::Namespace(ns) => {
                let scope = global_scope(db, self.ctx.file);
                let Some(defs) = scope.namespace(ns).and_then(|t| t.get(&seg.name)).cloned() else {
                    // Namespaces are open: say so only when no macro could
                    // have added the name.
                    let macros = crate::module_graph::visible_files(db, self.ctx.file)
                        .iter()
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
                        found.map_or(Ty::Unknown, Member::into_ty)
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
                // `T.f()`: a requirement of the interfaces constraining `T`
                // (anything else, associated types say, is left unknown).
                Ty::Param { def, .. } => match self.requirement_of(*def, &seg.name) {
                    Some(defs) => Ty::Func(defs),
                    None => Ty::Unknown,
                },
                _ => Ty::Unknown,
            },
            _ => Ty::Unknown,
        }
    }

    /// The static methods named `name` that extensions add to the built-in
    /// type `t`.
    pub(super) fn extension_static_member(&self, t: &Ty, name: &str) -> Ty {
        let methods = extension_methods(self.db(), self.ctx.file, t, name);
        if methods.is_empty() {
            Ty::Unknown
        } else {
            Ty::Func(methods)
        }
    }

    /// `t._1` of a tuple with elements `items`: that element; `t._0_0_1`:
    /// a tuple of the elements named (`tuple`: the core `Tuple`).
    pub(super) fn tuple_member(
        &mut self,
        id: ExprId,
        receiver: &Ty,
        items: &[Ty],
        tuple: Option<DefId>,
        name: &str,
    ) -> Ty {
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

    pub(super) fn member(&mut self, id: ExprId, receiver: &Ty, name: &str) -> Ty {
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
                Some(Member::Field(t)) => {
                    self.check_access(id, *def, name);
                    t
                }
                // Overloads that blanket extensions add join the type's
                // own (`extension<T, X : ITensor<T, 2>> X { T load(int,
                // int) }` next to `ITensor`'s `load(int[D])`).
                Some(Member::Methods(mut defs)) => {
                    self.check_access(id, *def, name);
                    for m in self.blanket_methods_of(receiver, name, true) {
                        if !defs.contains(&m) {
                            defs.push(m);
                        }
                    }
                    Ty::Func(defs)
                }
                Some(Member::Opaque) => Ty::Unknown,
                None => {
                    // A method a blanket extension (`extension<T : I> T`)
                    // adds to the types conforming to `I`.
                    let blanket = self.blanket_methods_of(receiver, name, false);
                    if !blanket.is_empty() {
                        return Ty::Func(blanket);
                    }
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
            // A member of an interface-typed value's associated type: of
            // the interfaces the associated type is constrained to.
            Ty::Assoc(base, assoc) if matches!(&**base, Ty::Adt { def, .. } if item_of(db, *def).is_some_and(|i| i.kind == ItemKind::Interface)) =>
            {
                let Ty::Adt { def: iface, .. } = &**base else { return Ty::Unknown };
                match super::generics::associated_type(db, *iface, assoc) {
                    Some(adef) => self.generic_member(id, adef, &receiver.to_string(), name),
                    None => Ty::Unknown,
                }
            }
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

    /// The methods named `name` that the interfaces constraining generic
    /// type parameter `gdef` require (`T.f` in `f<T : I>`).
    pub(super) fn requirement_of(&self, gdef: DefId, name: &str) -> Option<Vec<DefId>> {
        let db = self.db();
        if item_of(db, gdef).is_none_or(|i| i.kind != ItemKind::GenericTypeParam) {
            return None;
        }
        let ifaces = super::generics::constraint_interfaces(db, gdef)?;
        let mut closure = std::collections::HashSet::new();
        for &i in &ifaces {
            super::generics::interface_closure(db, i, &mut closure);
        }
        let mut closure: Vec<DefId> = closure.into_iter().collect();
        closure.sort_by_key(|d| (d.file(db).path(db).clone(), d.ast_index(db)));
        closure.iter().find_map(|&i| match lookup_member(db, i, &[], name) {
            Some(Member::Methods(defs)) => Some(defs),
            _ => None,
        })
    }

    /// `t.name` where `t : T` and `T` is a generic type parameter: a member
    /// of the interfaces constraining `T`; none when it is unconstrained.
    pub(super) fn generic_member(&mut self, id: ExprId, gdef: DefId, pname: &str, name: &str) -> Ty {
        let db = self.db();
        if item_of(db, gdef).is_none_or(|i| !matches!(i.kind, ItemKind::GenericTypeParam | ItemKind::AssociatedType)) {
            return Ty::Unknown;
        }
        let Some(ifaces) = super::generics::constraint_interfaces(db, gdef) else { return Ty::Unknown };
        let mut closure = std::collections::HashSet::new();
        let mut complete = true;
        for &i in &ifaces {
            complete &= super::generics::interface_closure(db, i, &mut closure);
        }
        let blanket = super::generics::blanket_methods(db, self.ctx.file, name, &|i| closure.contains(&i));
        for &i in &closure {
            match lookup_member(db, i, &[], name) {
                Some(Member::Field(_) | Member::Opaque) => return Ty::Unknown,
                Some(Member::Methods(mut defs)) => {
                    defs.extend(blanket.iter().filter(|m| !defs.contains(m)).copied().collect::<Vec<_>>());
                    return Ty::Func(defs);
                }
                None => {}
            }
        }
        if !blanket.is_empty() {
            return Ty::Func(blanket);
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

    /// The methods named `name` that blanket extensions (`extension<T :
    /// I> T`) add to `receiver`, a user struct or an interface value:
    /// those of extensions whose constraints it conforms to, or (`maybe`)
    /// may conform to.
    fn blanket_methods_of(&self, receiver: &Ty, name: &str, maybe: bool) -> Vec<DefId> {
        let db = self.db();
        let Ty::Adt { def, .. } = receiver else { return Vec::new() };
        let file = self.ctx.file;
        match item_of(db, *def).map(|i| i.kind) {
            Some(ItemKind::Interface) => {
                let mut closure = std::collections::HashSet::new();
                super::generics::interface_closure(db, *def, &mut closure);
                super::generics::blanket_methods(db, file, name, &|i| closure.contains(&i))
            }
            // (With `maybe`, also where conformance cannot be told here,
            // item macros for instance: extra overload candidates.)
            Some(ItemKind::Struct | ItemKind::Class) => super::generics::blanket_methods(db, file, name, &|i| {
                super::generics::conformance(db, file, receiver, i).unwrap_or(maybe)
            }),
            _ => Vec::new(),
        }
    }

    /// Report `owner.name` if no member of that name is accessible from
    /// the function being inferred.
    pub(super) fn check_access(&mut self, id: ExprId, owner: DefId, name: &str) {
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
                    visibility: visibility_word(db, owner.file(db), named[0].visibility),
                },
            });
        }
    }
}
