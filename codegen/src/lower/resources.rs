//! Buffers held by struct fields and parameters. Buffers are not values
//! on the GPU, so which global buffer a parameter or a struct's field
//! holds is bound at compile time: function instances are specialized to
//! the buffers their arguments hold, and returned structs report theirs.
//! An interface value holds those of the struct it was given, under its
//! variant's name (`as_Data_float_1.buffer`): functions taking it and
//! the dispatch functions of its methods are specialized to them.
//!
//! A pointer-like value (`IDifferentiablePtrType`) also carries, under the
//! path segment [`DIFF_SEGMENT`] (`∂.handle`), the buffers its
//! *differential* holds, when a derivative was given a
//! `DifferentialPtrPair` whose differential holds other buffers than its
//! primal (values in `params`, gradients in `grads`). They travel as the
//! primal's do: a function instance is specialized per (primal buffers,
//! differential buffers) of its pointer-like parameters, copies and
//! returns carry both, and the user-written derivatives of an instance
//! (`derived_instance`) take the `∂` buffers as their pair's `d` half.
//! A result of a call whose callee has a user-written forward derivative
//! (`getOffset`'s) has the differential buffers that derivative's pair
//! returns in `d`. Primal code ignores `∂` paths; an instance whose
//! differential buffers are its primal's has none (the common case keeps
//! one instance).

use super::*;

impl<'db> ModuleLowerer<'db> {
    /// The paths of the buffers (and other resources) a value of `ty`
    /// holds in its fields and their fields (`["data", "inner.grad"]`):
    /// empty for types that hold none. A value of interface type holds
    /// those of each type it may hold, under the name of its variant
    /// ([`variant_segment`]: `as_Data_float_1.buffer`).
    pub(super) fn resource_fields(&self, ty: &Ty) -> Vec<String> {
        fn walk(m: &ModuleLowerer, ty: &Ty, prefix: &str, depth: usize, out: &mut Vec<String>) {
            let db = m.db;
            let Ty::Adt { def, args, name } = ty else { return };
            if depth > 8 {
                return;
            }
            if slang_analysis::core_files(db).contains(&def.file(db)) {
                // `DifferentialPtrPair<T>`: fields `p` and `d` of type `T`.
                if let ("DifferentialPtrPair", [t]) = (name.as_str(), args.as_slice()) {
                    walk(m, t, &join_path(prefix, "p"), depth + 1, out);
                    walk(m, t, &join_path(prefix, "d"), depth + 1, out);
                }
                return;
            }
            let Some(item) = item_of(db, *def) else { return };
            if item.kind == ItemKind::Interface {
                let variants = match m.existentials.get(ty) {
                    Some((_, vs)) => vs.iter().map(|v| v.0.clone()).collect(),
                    None => m.conforming_types(ty),
                };
                for v in variants {
                    walk(m, &v, &join_path(prefix, &variant_segment(&v)), depth + 1, out);
                }
                return;
            }
            if item.kind != ItemKind::Struct {
                return;
            }
            // A pointer-like value: its differential's buffers too (one
            // level: not those of a differential's differential).
            if !prefix.split('.').any(|s| s == DIFF_SEGMENT)
                && slang_analysis::autodiff::type_diff(db, def.file(db), ty) == slang_analysis::autodiff::TypeDiff::Ptr
            {
                let d = slang_analysis::autodiff::differential_of(db, ty);
                walk(m, &d, &join_path(prefix, DIFF_SEGMENT), depth + 1, out);
            }
            let bindings: HashMap<String, Ty> =
                item.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
            let mut ctx = DeclCtx::specialized(db, *def, &bindings);
            for f in item.members.iter().filter(|m| m.kind == ItemKind::Var && !m.is_static) {
                let mdef = DefId::new(db, def.file(db), f.ast_index);
                let fty = decl_type_ref(db, mdef).clone().map(|t| ctx.resolve(&t)).unwrap_or(Ty::Unknown);
                let name = f.name.clone().unwrap_or_default();
                let path = join_path(prefix, &name);
                if globals::resource_of(&fty).is_some() {
                    out.push(path);
                } else {
                    walk(m, &fty, &path, depth + 1, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(self, ty, "", 0, &mut out);
        out
    }

    /// A function compiled alone (`derive`, the editor's derivative view)
    /// whose parameters are buffers, or structs holding buffers: no call
    /// says which global buffers they are, so each gets a global of its
    /// own (named after it, in binding group 7) to be specialized to.
    pub(super) fn stand_in_buffers(&mut self, inst: &mut Instance) -> R<()> {
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
    pub(super) fn returned_resources(&mut self, f: FuncId) -> R<Option<Vec<(String, GlobalId)>>> {
        if let Some(pos) = self.queue.iter().position(|(_, id)| *id == f) {
            let (inst, id) = self.queue.remove(pos);
            self.lower_body(inst, id)?;
        }
        Ok(self.returned_resources.get(&f).cloned())
    }
}

impl FnLower<'_, '_> {
    /// Whether `e` is a buffer (or another resource) by its type.
    pub(super) fn is_resource_expr(&self, e: ExprId) -> bool {
        self.inferred.expr_types.get(e.0 as usize).is_some_and(|t| globals::resource_of(t).is_some())
    }

    /// The global buffer a buffer-typed field (`p.data`, `this.grad`, or
    /// `grad` in a method) was bound to.
    pub(super) fn bound_resource(&mut self, e: ExprId) -> R<Option<GlobalId>> {
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
    pub(super) fn resource_global(&mut self, e: ExprId) -> R<GlobalId> {
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
    pub(super) fn copy_resources(
        &mut self,
        to: (ValueId, String),
        from: ExprId,
        ty: &Ty,
        value: Option<ValueId>,
    ) -> R<()> {
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
    pub(super) fn struct_resources(
        &mut self,
        from: ExprId,
        ty: &Ty,
        value: Option<ValueId>,
        paths: Vec<String>,
    ) -> R<Vec<(String, GlobalId)>> {
        let from_ty = self.inferred.type_of(from);
        if from_ty != *ty && self.is_interface_value(ty) && !self.is_interface_value(&from_ty) {
            // A struct value as an interface value: its buffers under its
            // variant.
            let seg = variant_segment(&from_ty);
            let inner = self.value_resources(from, &from_ty)?;
            return Ok(inner.into_iter().map(|(p, g)| (join_path(&seg, &p), g)).collect());
        }
        if let Some(bound) = self.constructed_resources(from, ty)? {
            return Ok(bound);
        }
        let value = value.or_else(|| self.call_values.get(&from).copied());
        if let Some(&Op::Call(f, _)) = value.and_then(|v| self.b.func.op(v)) {
            if let Some(bound) = self.m.returned_resources(f)? {
                return self.with_derivative_result(f, bound);
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

    /// The buffers `bound` a call of `f` returns, with those of the
    /// differential (under [`DIFF_SEGMENT`]) that `f`'s user-written
    /// forward derivative returns in its pair's `d` (`getOffset`'s
    /// derivative offsets the differential's location), where `f`'s body
    /// did not say.
    fn with_derivative_result(&mut self, f: FuncId, mut bound: Vec<(String, GlobalId)>) -> R<Vec<(String, GlobalId)>> {
        let diff_prefix = format!("{DIFF_SEGMENT}.");
        if bound.iter().any(|(p, _)| p.starts_with(&diff_prefix)) {
            return Ok(bound);
        }
        let Derivative::Custom(g) = self.m.module.function(f).derivative else { return Ok(bound) };
        if let Some(pair) = self.m.returned_resources(g)? {
            for (p, gl) in pair {
                if let Some(rest) = p.strip_prefix("d.") {
                    if !rest.split('.').any(|s| s == DIFF_SEGMENT) {
                        bound.push((join_path(DIFF_SEGMENT, rest), gl));
                    }
                }
            }
        }
        Ok(bound)
    }

    /// The buffers bound to the fields `paths` of the struct at `root`'s
    /// field path `prefix`.
    pub(super) fn bound_under(&self, root: ValueId, prefix: &str, paths: Vec<String>) -> Vec<(String, GlobalId)> {
        paths.into_iter().filter_map(|p| self.res_fields.get(&(root, join_path(prefix, &p))).map(|&g| (p, g))).collect()
    }

    /// At `return e` of a function returning a struct holding buffers:
    /// record the buffers `e`'s fields hold (every `return` must agree).
    pub(super) fn record_returned_resources(&mut self, e: ExprId, v: ValueId) -> R<()> {
        let sem = self.inferred.type_of(e);
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
    pub(super) fn constructed_resources(&mut self, e: ExprId, ty: &Ty) -> R<Option<Vec<(String, GlobalId)>>> {
        let Expr::Call { callee, args } = self.body.expr(e).clone() else { return Ok(None) };
        if !matches!(self.inferred.expr_types.get(callee.0 as usize), Some(Ty::TypeValue(_))) {
            return Ok(None);
        }
        if let (Ty::Adt { name, args: targs, .. }, [p, d]) = (ty, args.as_slice()) {
            if let ("DifferentialPtrPair", [t]) = (name.as_str(), targs.as_slice()) {
                // `DifferentialPtrPair<T>(p, d)`: the buffers of each.
                let mut out = Vec::new();
                for (field, arg) in [("p", *p), ("d", *d)] {
                    for (path, g) in self.value_resources(arg, t)? {
                        out.push((join_path(field, &path), g));
                    }
                }
                return Ok(Some(out));
            }
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

    /// The buffers a value `e` of struct type `ty` holds, by field path: an
    /// initializer list's buffer items (`{ buffer, 0 }`), or what
    /// [`Self::struct_resources`] finds.
    pub(super) fn value_resources(&mut self, e: ExprId, ty: &Ty) -> R<Vec<(String, GlobalId)>> {
        let paths = self.m.resource_fields(ty);
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let Expr::InitList(items) = self.body.expr(e).clone() else {
            return self.struct_resources(e, ty, None, paths);
        };
        let Ty::Adt { def, .. } = ty else { return Ok(Vec::new()) };
        let db = self.db();
        let members: Vec<String> = item_of(db, *def)
            .map(|i| {
                i.members
                    .iter()
                    .filter(|m| m.kind == ItemKind::Var && !m.is_static)
                    .map(|m| m.name.clone().unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default();
        let mut out = Vec::new();
        for (name, &item) in members.iter().zip(&items) {
            if self.is_resource_expr(item) {
                let g = self.resource_global(item)?;
                out.push((name.clone(), g));
            }
        }
        Ok(out)
    }

    /// The buffers the receiver `e` (of type `ty`, an interface value or
    /// a struct) holds, by field path.
    pub(super) fn receiver_resources(&mut self, e: ExprId, ty: &Ty) -> Vec<(String, GlobalId)> {
        let paths = self.m.resource_fields(ty);
        if paths.is_empty() {
            return Vec::new();
        }
        match self.struct_root(e) {
            Some((root, prefix)) => self.bound_under(root, &prefix, paths),
            None => Vec::new(),
        }
    }

    /// Specialize the method instance `inst` to the buffers its receiver
    /// (of type `owner`, stored at `root`) holds.
    pub(super) fn this_resources(&mut self, inst: &mut Instance, root: Option<(ValueId, String)>, owner: &Ty) {
        let Some((root, prefix)) = root else { return };
        let paths = self.m.resource_fields(owner);
        for (p, g) in self.bound_under(root, &prefix, paths) {
            inst.resources.push((THIS_PARAM, p, g));
        }
    }

    /// Specialize `inst` to the buffers the struct argument `arg` (of
    /// parameter `index`, of type `ty`) holds.
    pub(super) fn struct_resources_of(&mut self, inst: &mut Instance, index: u32, arg: ExprId, ty: &Ty) -> R<()> {
        let paths = self.m.resource_fields(ty);
        if paths.is_empty() {
            return Ok(());
        }
        let arg_ty = self.inferred.type_of(arg);
        if let Some(bound) = self.ptr_pair_resources(arg, &arg_ty, ty, &paths)? {
            // A derivative's pair for a primal parameter.
            for (p, g) in bound {
                inst.resources.push((index, p, g));
            }
            return Ok(());
        }
        for (p, g) in self.struct_resources(arg, ty, None, paths)? {
            inst.resources.push((index, p, g));
        }
        Ok(())
    }

    /// For `arg`, a `DifferentialPtrPair<T>` (`arg_ty`) passed for a `T`
    /// (`ty`, with buffer fields `paths`) of the primal function a
    /// derivative is made of: the buffers its primal holds, and those of
    /// its differential under [`DIFF_SEGMENT`] (the primal instance is
    /// specialized to both; its derivative's pair takes them).
    fn ptr_pair_resources(
        &mut self,
        arg: ExprId,
        arg_ty: &Ty,
        ty: &Ty,
        paths: &[String],
    ) -> R<Option<Vec<(String, GlobalId)>>> {
        let Ty::Adt { name, args, .. } = arg_ty else { return Ok(None) };
        if name != "DifferentialPtrPair" || args.first() != Some(ty) {
            return Ok(None);
        }
        let Some((root, prefix)) = self.struct_root(arg) else {
            let at = self.expr_span(arg).or(self.span);
            return err(
                at,
                "a pair of pointer-like values holding buffers is passed from a variable or parameter only",
            );
        };
        // The primal's buffers, and the differential's under `∂`.
        let own: Vec<String> = paths.iter().filter(|p| !p.split('.').any(|s| s == DIFF_SEGMENT)).cloned().collect();
        let mut bound = self.bound_under(root, &join_path(&prefix, "p"), own.clone());
        for (p, g) in self.bound_under(root, &join_path(&prefix, "d"), own) {
            bound.push((join_path(DIFF_SEGMENT, &p), g));
        }
        Ok(Some(bound))
    }

    /// The arguments of a call of `f` without those bound to buffers.
    pub(super) fn without_buffer_args(&self, f: FuncId, args: Vec<CallArg>) -> Vec<CallArg> {
        match self.m.buffer_args.get(&f) {
            Some(dropped) => {
                args.into_iter().enumerate().filter(|(i, _)| !dropped.contains(&(*i as u32))).map(|(_, a)| a).collect()
            }
            None => args,
        }
    }
}

/// The field path segment under which the buffers a pointer-like value's
/// differential holds are found (not a name a field can have).
pub(super) const DIFF_SEGMENT: &str = "∂";

/// For the path of a buffer a differential holds (`∂.handle`,
/// `inner.∂.handle`): the path of the primal's (`handle`).
pub(super) fn primal_path(path: &str) -> Option<String> {
    let segs: Vec<&str> = path.split('.').collect();
    let k = segs.iter().position(|s| *s == DIFF_SEGMENT)?;
    Some(segs[..k].iter().chain(&segs[k + 1..]).copied().collect::<Vec<_>>().join("."))
}

/// The field path segment under which the buffers of a value of struct
/// type `v` held by an interface value are found (the name of its
/// variant's field in the tagged union).
pub(super) fn variant_segment(v: &Ty) -> String {
    format!("as_{}", mangle(v))
}

/// The buffers of `bound` (by field path) held by an interface value's
/// variant of type `v`, by their paths within `v`.
pub(super) fn variant_resources(bound: &[(String, GlobalId)], v: &Ty) -> Vec<(String, GlobalId)> {
    let seg = format!("{}.", variant_segment(v));
    bound.iter().filter_map(|(p, g)| Some((p.strip_prefix(&seg)?.to_string(), *g))).collect()
}
