//! Derivative checks of differentiable functions: the data-flow analysis
//! of which values carry derivatives ([`crate::activity`]), and the
//! diagnostics for derivatives lost in calls, stores and property getters,
//! `fwd_diff`/`bwd_diff` operators and their calls.

use super::*;

impl<'db> Infer<'_, 'db> {
    /// The derivative data-flow analysis (see [`crate::activity`]) of
    /// this differentiable function: reports the calls and stores that
    /// lose derivatives, and returns which expressions carry one.
    pub(super) fn derivative_flow(&mut self) -> Vec<bool> {
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
    pub(super) fn check_generic_arguments(&mut self, callee: ExprId, defs: &[DefId], args: &[ExprId], arg_tys: &[Ty]) {
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
    pub(super) fn check_property_derivative(&mut self, id: ExprId, receiver: &Ty, name: &str, t: &Ty) {
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
    pub(super) fn record_call_kind(&mut self, id: ExprId, callee_ty: &Ty, n_args: usize) {
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
                        core_call_differentiable(db, self.ctx.file, defs, n_args)
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

    /// In a `[Differentiable]` function, a call whose value is used, to a
    /// function that is not differentiable and returns a differentiable
    /// type, outside `no_diff(…)`: the derivative would be silently lost
    /// there (the reference compiler's E41022).
    pub(super) fn check_derivative_flow(&mut self, id: ExprId, callee: ExprId, defs: &[DefId], arg_tys: &[Ty]) {
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
        let core: Vec<DefId> = defs.iter().copied().filter(|&d| is_core(db, d.file(db))).collect();
        if !core.is_empty() && core_call_differentiable(db, self.ctx.file, &core, n_args) {
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
            // (A `no_diff` result carries none.)
            let no_diff_result = crate::hir::decl_syntax(db, d)
                .is_some_and(|n| n.children_with_tokens().any(|e| e.kind() == SyntaxKind::NO_DIFF_KW));
            !no_diff_result
                && (type_diff(db, self.ctx.file, &ret) == TypeDiff::Value
                    || (is_core(db, d.file(db)) && matches!(ret, Ty::Param { .. })))
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
    pub(super) fn callee_differentiable(&self, defs: &[DefId]) -> bool {
        use crate::autodiff::{fn_differentiability, type_diff, Differentiability, TypeDiff};
        let db = self.db();
        let one = |&d: &DefId| {
            let sig = fn_sig(db, d);
            let ret = DeclCtx::for_def(db, d).resolve(&sig.ret);
            let returns_diff = type_diff(db, self.ctx.file, &ret) == TypeDiff::Value
                || (is_core(db, d.file(db)) && matches!(ret, Ty::Param { .. }));
            returns_diff && fn_differentiability(db, self.ctx.file, d) != Differentiability::No
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
    pub(super) fn warn_field_without_derivative(&mut self, id: ExprId, name: &str, ty: &Ty) {
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
    pub(super) fn diff_operator(&mut self, id: ExprId, func: ExprId, f: Ty, forward: bool) -> Ty {
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
                crate::module_graph::visible_files(db, self.ctx.file)
                    .iter()
                    .copied()
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
    pub(super) fn call_derivative(
        &mut self,
        id: ExprId,
        callee: ExprId,
        defs: &[DefId],
        modes: &[bool],
        args: &[Ty],
    ) -> Ty {
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
        // `fwd_diff(f<float>)`: the generic arguments written on the
        // operand bind the derivative's result type.
        let explicit: Vec<Ty> = match self.body.expr(operand) {
            Expr::Path(segs, _) => segs
                .last()
                .map(|s| {
                    s.args
                        .iter()
                        .map(|a| match a {
                            GenericArgRef::Type(t) => self.ctx.resolve(t),
                            GenericArgRef::Value(Some(n)) => Ty::Const(*n),
                            GenericArgRef::Value(None) => Ty::Unknown,
                        })
                        .collect()
                })
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let ok: Vec<Ty> = ok
            .iter()
            .map(|s| {
                if explicit.is_empty() || !ty_is_open(&s.ret) {
                    return s.ret.clone();
                }
                let bind: HashMap<String, Ty> =
                    s.generic_params.iter().cloned().zip(explicit.iter().cloned()).collect();
                substitute_params(&s.ret, &bind)
            })
            .collect();
        match ok.first() {
            Some(first) if ok.iter().all(|r| r == first) && !ty_is_open(first) => first.clone(),
            _ => Ty::Unknown,
        }
    }

    /// A store into a buffer element or a `no_diff` field (locations
    /// without derivatives): an error when the value carries a derivative
    /// and is not `detach`ed (the reference compiler's E41031), decided by
    /// the data-flow analysis.
    pub(super) fn track_store(&mut self, id: ExprId, lhs: ExprId, rhs: ExprId, rhs_ty: &Ty) {
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
    pub(super) fn user_accessor(&self, e: ExprId) -> Option<(DefId, String)> {
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
}

/// `t` with the generic parameters `bind` names replaced by their
/// arguments (`DifferentialPair<T>` with `T = float`).
fn substitute_params(t: &Ty, bind: &HashMap<String, Ty>) -> Ty {
    match t {
        Ty::Param { name, .. } => bind.get(name).cloned().unwrap_or_else(|| t.clone()),
        Ty::Array(e, n) => Ty::Array(Arc::new(substitute_params(e, bind)), *n),
        Ty::Pointer(e) => Ty::Pointer(Arc::new(substitute_params(e, bind))),
        Ty::Adt { def, name, args } => {
            Ty::Adt { def: *def, name: name.clone(), args: args.iter().map(|a| substitute_params(a, bind)).collect() }
        }
        Ty::Tuple(items) => Ty::Tuple(items.iter().map(|a| substitute_params(a, bind)).collect()),
        // A built-in scalar, vector or matrix is its own differential.
        Ty::Assoc(base, name) if name == "Differential" => match substitute_params(base, bind) {
            b @ (Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..)) => b,
            b => Ty::Assoc(Arc::new(b), name.clone()),
        },
        _ => t.clone(),
    }
}
