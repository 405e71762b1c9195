//! Inference of expressions: literals, operators (built-in and user
//! `operator` overloads), casts, `is`/`as`, assignments and what cannot
//! be written (l-values).

use super::*;

impl<'db> Infer<'_, 'db> {
    pub(super) fn expr(&mut self, id: ExprId) -> Ty {
        let ty = self.expr_inner(id);
        self.types[id.0 as usize] = ty.clone();
        ty
    }

    pub(super) fn expr_inner(&mut self, id: ExprId) -> Ty {
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
                LiteralKind::Bool(_) => Ty::Scalar(Scalar::Bool),
                LiteralKind::String => Ty::String,
                LiteralKind::Char => Ty::Scalar(Scalar::Int32),
                LiteralKind::Null => Ty::Unknown,
            },
            Expr::Path(segs, global) => self.path(id, &segs, global),
            Expr::Call { callee, args } => {
                // `__apply(f)` stands for a function to call: a value that
                // is used (not a discarded statement) must be a callee.
                if matches!(self.body.expr(callee), Expr::Path(segs, _) if segs.len() == 1 && segs[0].name == "__apply")
                    && self.discarded != Some(id)
                    && !self.body.exprs.iter().any(|e| matches!(e, Expr::Call { callee: c, .. } if *c == id))
                {
                    self.diags.push(InferDiag { at: DiagAt::Expr(id), kind: InferDiagKind::ApplyNotInvoked });
                }
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
                // A literal index past a fixed size (slangc's E30029 for
                // arrays; a warning for vectors and matrices).
                let array = matches!(b, Ty::Array(..));
                let len = match &b {
                    Ty::Array(_, Some(n)) => Some(*n),
                    Ty::Vector(_, n) | Ty::Matrix(_, n, _) => Some(u32::from(*n)),
                    _ => None,
                };
                // (A constant written with literals: `2`, `-1`, `1 + 1`.)
                let k = match consteval::eval(self.body, index, &mut consteval::NoNames) {
                    Some(consteval::ConstValue::Int(k)) => Some(k),
                    _ => None,
                };
                if let (Some(len), Some(k)) = (len, k) {
                    if k < 0 || k >= i64::from(len) {
                        self.diags.push(InferDiag {
                            at: DiagAt::Expr(index),
                            kind: InferDiagKind::IndexOutOfBounds { index: k, len, array },
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
                let l = value_of_generic(self.expr(lhs));
                let r = value_of_generic(self.expr(rhs));
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
                        let op = k.text().to_string();
                        self.diags.push(InferDiag {
                            at: DiagAt::Expr(id),
                            kind: InferDiagKind::NoOperator { op, lhs: l.to_string(), rhs: r.to_string() },
                        });
                        Ty::Unknown
                    }
                    BinaryOp::Arith(_) => arith(&l, &r),
                    // GLSL's `==`/`!=` compare whole vectors and matrices:
                    // one `bool` (in GLSL files, and in files that
                    // `import glsl;`, whose operators it declares).
                    BinaryOp::Compare(BinOp::Eq | BinOp::Ne)
                        if matches!(l, Ty::Vector(..) | Ty::Matrix(..))
                            && (glsl_mode(self.db(), self.ctx.file) || self.imports_glsl()) =>
                    {
                        Ty::Scalar(Scalar::Bool)
                    }
                    BinaryOp::Compare(_) | BinaryOp::Logic(_) => match broadcast(&l, &r) {
                        Some(shape) => shape.with_scalar(Scalar::Bool),
                        // (`vector<T, N>` with a generic `N` is unknown: so
                        // is whether the result is one `bool` or a vector.)
                        None if l.is_unknown() || r.is_unknown() => Ty::Unknown,
                        None => Ty::Scalar(Scalar::Bool),
                    },
                    BinaryOp::Bit(_) => arith(&l, &r),
                    BinaryOp::Shift(_) => l,
                    // The comma operator, or (in language 2026) a tuple.
                    BinaryOp::Comma => Ty::Unknown,
                }
            }
            Expr::Prefix { op, expr } => {
                let t = value_of_generic(self.expr(expr));
                if matches!(op, PrefixOp::Neg | PrefixOp::Not | PrefixOp::BitNot) {
                    if let Some(r) = self.user_unary_operator(id, op, &t) {
                        return r;
                    }
                }
                match op {
                    PrefixOp::Not => {
                        if t.is_numeric() {
                            t.with_scalar(Scalar::Bool)
                        } else {
                            Ty::Scalar(Scalar::Bool)
                        }
                    }
                    PrefixOp::Inc | PrefixOp::Dec => {
                        self.check_assignable(id, expr);
                        t
                    }
                    PrefixOp::Deref => match t {
                        Ty::Pointer(p) => (*p).clone(),
                        _ => Ty::Unknown,
                    },
                    PrefixOp::AddrOf => Ty::Pointer(Arc::new(t)),
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
                if !matches!(
                    self.body.expr(e),
                    Expr::Call { .. } | Expr::Index { .. } | Expr::Missing | Expr::Other(_) | Expr::SizeOf { .. }
                ) {
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
            // A pack's elements are typed once `expand` is unrolled
            // (`hir::packs`), per element.
            Expr::Expand(x) | Expr::Each(x) => {
                self.expr(x);
                Ty::Unknown
            }
            Expr::PackElem { pack, index } => match self.expr(pack) {
                Ty::Pack(items) => items.get(index as usize).cloned().unwrap_or(Ty::Unknown),
                _ => Ty::Unknown,
            },
            Expr::Other(subs) | Expr::SizeOf { subs, .. } => {
                for s in subs {
                    self.expr(s);
                }
                Ty::Unknown
            }
        }
    }

    /// `x is T` on a value of a concrete type other than `T`: never true.
    pub(super) fn check_is_as(&mut self, id: ExprId, from: &Ty, ty: &TypeRef) {
        let to = self.ctx.resolve(ty);
        let db = self.db();
        let concrete = |t: &Ty| match t {
            Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) | Ty::Array(..) => true,
            // (With generic arguments still open, `S<T, 259>` may be
            // `S<T, Mode>` once specialized.)
            Ty::Adt { def, args, .. } => {
                item_of(db, *def).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Enum))
                    && args.iter().all(|a| is_concrete(db, a) || matches!(a, Ty::Const(_)))
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

    pub(super) fn check_assignable(&mut self, at: ExprId, target: ExprId) {
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
    pub(super) fn not_writable(&self, e: ExprId) -> Option<String> {
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
                        || p.kind == ItemKind::GlslBlock && p.modifiers.contains(&crate::item_tree::Modifier::Uniform)
                });
                use crate::item_tree::Modifier;
                let m = &item.modifiers;
                if m.contains(&Modifier::Const) {
                    Some(format!("`{name}` is a constant"))
                } else if m.contains(&Modifier::Readonly) {
                    Some(format!("`{name}` is `readonly`"))
                } else if in_cbuffer {
                    Some(format!("`{name}` is a field of a constant buffer (a read-only shader parameter)"))
                } else if !m.iter().any(|k| {
                    // Per-thread or per-group storage, GLSL outputs and
                    // `buffer` block instances.
                    matches!(
                        k,
                        Modifier::Static
                            | Modifier::Buffer
                            | Modifier::Groupshared
                            | Modifier::Shared
                            | Modifier::Out
                            | Modifier::Inout
                    )
                }) && (m.contains(&Modifier::Uniform) || !glsl_mode(db, self.ctx.file))
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
                            if item.kind == ItemKind::GlslBlock
                                && p.modifiers.contains(&crate::item_tree::Modifier::Readonly)
                            {
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
            // A call of a function that returns `Ref<T>` names a location.
            Expr::Call { callee, .. } if self.returns_ref(*callee) => None,
            Expr::Call { .. } | Expr::Literal(_) => Some("the left side is a temporary value".to_string()),
            _ => None,
        }
    }

    /// Whether this function's file says `import glsl;`.
    fn imports_glsl(&self) -> bool {
        crate::module_graph::file_imports(self.db(), self.ctx.file).iter().any(crate::import_paths::is_builtin_module)
    }

    /// Whether every function a call's callee names returns `Ref<T>` (a
    /// reference: the call is a location).
    fn returns_ref(&self, callee: ExprId) -> bool {
        let db = self.db();
        let Ty::Func(defs) = &self.types[callee.0 as usize] else { return false };
        !defs.is_empty()
            && defs
                .iter()
                .all(|&d| matches!(&fn_sig(db, d).ret, TypeRef::Path(segs) if segs.len() == 1 && segs[0].name == "Ref"))
    }

    pub(super) fn has_user_struct_operand(&self, l: &Ty, r: &Ty) -> bool {
        let db = self.db();
        [l, r].iter().any(|t| matches!(t, Ty::Adt { def, args, .. } if is_plain_user_struct(db, *def, args)))
    }

    /// `a * b` with a user struct operand: the user's `operator*`
    /// overloads (free functions and members), or an error if there are
    /// none and nothing unseen could add one.
    pub(super) fn user_operator(&mut self, id: ExprId, k: BinOp, l: Ty, r: Ty) -> Ty {
        let db = self.db();
        let op = k.text();
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
    pub(super) fn free_operators(&self, name: &str) -> Vec<DefId> {
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
    pub(super) fn check_operator_derivative(&mut self, id: ExprId, name: &str, fns: &[DefId]) {
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
    pub(super) fn user_unary_operator(&mut self, id: ExprId, op: PrefixOp, t: &Ty) -> Option<Ty> {
        let db = self.db();
        let Ty::Adt { def, args, .. } = t else { return None };
        if is_core(db, def.file(db))
            || !item_of(db, *def).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class))
        {
            return None;
        }
        let name = format!("operator{}", op.text());
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
}

/// An operand naming a generic value parameter bound to a value (`N` in
/// an instance of `S<int N>`) is an `int`.
fn value_of_generic(t: Ty) -> Ty {
    match t {
        Ty::TypeValue(c) if matches!(*c, Ty::Const(_)) => Ty::Scalar(Scalar::Int32),
        t => t,
    }
}
