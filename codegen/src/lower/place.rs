//! Places: what can be assigned to or taken the address of (locals,
//! globals, fields, swizzles, elements, properties and subscripts with
//! their accessors), member reads, and assignment.

use super::*;

impl FnLower<'_, '_> {
    /// Whether `e` is a local variable or a part of one.
    pub(super) fn rooted_in_local(&self, e: ExprId) -> bool {
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
    pub(super) fn global_pointer(&mut self, g: GlobalId, field: Option<u32>) -> R<ValueId> {
        let global = self.m.module.global(g).clone();
        let p = self.t(Type::Ptr(global.ty, global.space));
        let p = self.emit(Op::Global(g), p);
        match field {
            Some(i) => self.field_addr(p, i),
            None => Ok(p),
        }
    }

    /// A pointer to what `e` names, when it names storage.
    pub(super) fn place(&mut self, e: ExprId) -> R<Option<ValueId>> {
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
            // An element of a pack parameter: its local (see
            // `FnLower::function`).
            Expr::PackElem { pack, index } => match self.body.expr(pack) {
                Expr::Path(segs, false) if segs.len() == 1 => {
                    let name = pack_local(&segs[0].name, index);
                    Ok(self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|l| l.name == name).map(|l| l.ptr))
                }
                _ => Ok(None),
            },
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
    pub(super) fn struct_root(&mut self, e: ExprId) -> Option<(ValueId, String)> {
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

    /// The `static` member or namespaced global `e` names: `S::K`, `S.K`,
    /// `ns::G`, `ns::S::K`, or `K` inside a method of `S`.
    pub(super) fn static_var(&mut self, e: ExprId) -> Option<DefId> {
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
    pub(super) fn global_var(&self, e: ExprId) -> Option<DefId> {
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
    pub(super) fn member_value(&mut self, e: ExprId, r: ValueId, name: &str) -> R<ValueId> {
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
    pub(super) fn property_getter(&mut self, e: ExprId, name: &str) -> R<Option<FuncId>> {
        let db = self.db();
        let Expr::Member { receiver, .. } = self.body.expr(e).clone() else { return Ok(None) };
        let owner = self.inferred.type_of(receiver);
        let Ty::Adt { def, args, .. } = &owner else { return Ok(None) };
        let Some(slang_analysis::infer::Member::Field(_)) = slang_analysis::infer::lookup_member(db, *def, args, name)
        else {
            return Ok(None);
        };
        match property_named(db, &owner, name) {
            Some(p) if self.is_interface_value(&owner) => {
                let held = self.receiver_resources(receiver, &owner);
                self.m.dispatch_function(&owner, p, &[], &held, self.expr_span(e)).map(Some)
            }
            Some(p) => {
                let mut inst = self.instance(p, &owner, &[], &[], 0)?;
                let root = self.struct_root(receiver);
                self.this_resources(&mut inst, root, &owner);
                self.m.declare_function(inst, false).map(Some)
            }
            None => Ok(None),
        }
    }

    /// The `__subscript` of a user struct that indexing `base` calls.
    pub(super) fn user_subscript(&self, base: ExprId) -> Option<(DefId, Ty)> {
        let db = self.db();
        let base_ty = self.inferred.type_of(base);
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

    /// The indices of `s[i, j]` (a comma expression in the body), each an
    /// argument of a `__subscript`'s accessors.
    pub(super) fn subscript_indices(&self, index: ExprId) -> Vec<ExprId> {
        match self.body.expr(index) {
            Expr::Binary { op: HirBinary::Comma, lhs, rhs } => {
                let mut out = self.subscript_indices(*lhs);
                out.push(*rhs);
                out
            }
            _ => vec![index],
        }
    }

    /// The `__subscript` of user struct `owner` taking `n` indices.
    fn subscript_of_arity(&self, owner: &Ty, n: usize) -> Option<DefId> {
        let db = self.db();
        let Ty::Adt { def, .. } = owner else { return None };
        item_of(db, *def)?
            .members
            .iter()
            .filter(|m| m.kind == ItemKind::Subscript)
            .map(|m| DefId::new(db, def.file(db), m.ast_index))
            .find(|&d| fn_sig(db, d).params.len() == n)
    }

    /// The getter (or, with `set`, the setter) that reading (writing) `e`
    /// calls: `e` is `s.prop` of a property or `s[i]` of a `__subscript`.
    pub(super) fn accessor(&mut self, e: ExprId, set: bool) -> R<Option<FuncId>> {
        let (def, owner, args) = match self.body.expr(e).clone() {
            Expr::Index { base, index } => match self.user_subscript(base) {
                Some((sub, owner)) => {
                    let indices = self.subscript_indices(index);
                    let sub = self.subscript_of_arity(&owner, indices.len()).unwrap_or(sub);
                    (sub, owner, indices)
                }
                None => return Ok(None),
            },
            Expr::Member { receiver, name, .. } if set => {
                let owner = self.inferred.type_of(receiver);
                match property_named(self.db(), &owner, &name) {
                    Some(p) => (p, owner, Vec::new()),
                    None => return Ok(None),
                }
            }
            Expr::Member { name, .. } => return self.property_getter(e, &name),
            _ => return Ok(None),
        };
        if self.is_interface_value(&owner) {
            // A requirement of an interface-typed value: dispatched.
            if set {
                return err(self.expr_span(e), "assigning through an interface's accessor is not supported yet");
            }
            let generics = if fn_sig(self.db(), def).generic_params.is_empty() {
                Vec::new()
            } else {
                self.instance(def, &owner, &[], &args, 0)?.args
            };
            let held = match self.body.expr(e).clone() {
                Expr::Index { base, .. } => self.receiver_resources(base, &owner),
                _ => Vec::new(),
            };
            return self.m.dispatch_function(&owner, def, &generics, &held, self.expr_span(e)).map(Some);
        }
        let mut inst = self.instance(def, &owner, &[], &args, 0)?;
        // (Specialized to the buffers the receiver holds.)
        let receiver = match self.body.expr(e) {
            Expr::Index { base, .. } => Some(*base),
            Expr::Member { receiver, .. } => Some(*receiver),
            _ => None,
        };
        let root = receiver.and_then(|r| self.struct_root(r));
        self.this_resources(&mut inst, root, &owner);
        if set {
            if body(self.db(), def).setter.is_none() {
                return err(self.expr_span(e), "this has no `set` accessor: it cannot be assigned");
            }
            inst.setter = true;
        }
        self.m.declare_function(inst, false).map(Some)
    }

    /// The `set` accessor of property `def` of `this`'s type `owner`
    /// (assigned by expression `e`).
    pub(super) fn setter(&mut self, def: DefId, owner: &Ty, args: &[ExprId], e: ExprId) -> R<FuncId> {
        if body(self.db(), def).setter.is_none() {
            return err(self.expr_span(e), "this has no `set` accessor: it cannot be assigned");
        }
        let mut inst = self.instance(def, owner, &[], args, 0)?;
        inst.setter = true;
        let root = self.this_ptr().map(|t| (t, String::new()));
        self.this_resources(&mut inst, root, owner);
        self.m.declare_function(inst, false)
    }

    /// Store `value` (already of the target's type) into `target`.
    pub(super) fn assign_to(&mut self, target: ExprId, value: ValueId) -> R<()> {
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
                Expr::Index { base, index } => std::iter::once(base)
                    .chain(self.subscript_indices(index))
                    .map(CallArg::Expr)
                    .chain([CallArg::Value(value)])
                    .collect(),
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
}
