//! Inference of statements: parameters and locals, scopes (with the
//! unused-variable warning), declarations, conditions and control flow.

use super::*;

impl<'db> Infer<'_, 'db> {
    pub(super) fn db(&self) -> &'db dyn Db {
        self.ctx.db
    }

    /// Whether statement `id` is in a case of `__target_switch` (whose
    /// cases end with `break`, as a `switch`'s do).
    fn in_target_switch(&self, id: StmtId) -> bool {
        let (_, map) = crate::hir::body_with_source_map(self.db(), self.def);
        let Some(root) = crate::hir::decl_syntax(self.db(), self.def) else { return false };
        map.stmts.get(id.0 as usize).is_some_and(|ptr| {
            ptr.to_node(&root)
                .ancestors()
                .take_while(|n| !matches!(n.kind(), SyntaxKind::FOR_STMT | SyntaxKind::WHILE_STMT | SyntaxKind::FN))
                .any(|n| n.kind() == SyntaxKind::TARGET_CASE)
        })
    }

    /// Whether the function being inferred is an `__init`.
    fn in_init(&self) -> bool {
        item_of(self.db(), self.def).is_some_and(|i| i.kind == ItemKind::Init)
    }

    pub(super) fn params(&mut self) {
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

    pub(super) fn local(&self, name: &str) -> Option<&Local> {
        let l = self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|l| l.name == name)?;
        l.used.set(true);
        Some(l)
    }

    /// Leave a block: its locals that were never used get a warning
    /// (unless named `_…`, or the body has code this model cannot see:
    /// macro calls, disabled `#if` branches).
    pub(super) fn pop_scope(&mut self) {
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

    pub(super) fn stmt(&mut self, id: StmtId) {
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
            Stmt::Break(_) => {
                if self.loops == 0 && self.switches == 0 && !self.in_target_switch(id) {
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
                    if matches!(self.body.stmt(s), Stmt::Return(_) | Stmt::Break(_) | Stmt::Continue) {
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
            Stmt::Loop { init, cond, step, body, .. } => {
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
                    // In `__init`, `return value;` stands for `this = value;
                    // return;`: the value has the type being constructed.
                    let want = if self.in_init() { self.ctx.this.clone() } else { self.ret.clone() };
                    self.check_mismatch(DiagAt::Expr(e), &want, &t);
                }
                None => {
                    if !matches!(self.ret, Ty::Void | Ty::Unknown) {
                        let ty = self.ret.to_string();
                        self.diags
                            .push(InferDiag { at: DiagAt::Stmt(id), kind: InferDiagKind::ReturnMissingValue { ty } });
                    }
                }
            },
            Stmt::Other(_, stmts) => {
                for s in stmts {
                    self.stmt(s);
                }
            }
            Stmt::TargetSwitch(cases) => {
                for s in cases.into_iter().flat_map(|c| c.stmts) {
                    self.stmt(s);
                }
            }
            Stmt::IntrinsicAsm(_) => {}
            Stmt::Labeled { stmt, .. } | Stmt::Attributed { stmt, .. } => {
                if let Some(s) = stmt {
                    self.stmt(s);
                }
            }
            Stmt::Empty => {}
        }
    }

    /// A condition (`if`, loops): a scalar; a struct or a vector is an
    /// error (the reference compiler wants `bool`).
    pub(super) fn condition(&mut self, c: ExprId) {
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

    pub(super) fn check_mismatch(&mut self, at: DiagAt, expected: &Ty, actual: &Ty) {
        if is_mismatch(self.db(), expected, actual) || self.generic_param_mismatch(expected, actual) {
            self.diags.push(InferDiag {
                at,
                kind: InferDiagKind::Mismatch { expected: expected.to_string(), found: actual.to_string() },
            });
        }
    }

    /// A generic type parameter of the function (or its struct) and a
    /// type that is not it: no implicit conversion either way (`T x = 0;`,
    /// `T` for `U`, `T` for `T.Differential`). Only where no
    /// `where … == …` may make them equal, for parameters the function's
    /// own context binds (not a callee's, not one left open by an unknown
    /// generic argument elsewhere) and that only user interfaces constrain.
    fn generic_param_mismatch(&self, expected: &Ty, actual: &Ty) -> bool {
        // (A parameter constrained by a core interface may convert: the
        // core module declares `__implicit_conversion` initializers from
        // `__EnumType` and `__BuiltinFloatingPointType` values.)
        let own = |t: &Ty| match t {
            Ty::Param { name, def } if self.ctx.generics.get(name) == Some(t) => {
                crate::generics::constraint_interfaces(self.db(), *def)
                    .is_some_and(|ifaces| ifaces.iter().all(|i| !is_core(self.db(), i.file(self.db()))))
            }
            _ => false,
        };
        let known = |t: &Ty| match t {
            Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) => true,
            // (Not one with an `__implicit_conversion` initializer, which
            // may take any type.)
            Ty::Adt { def, args, .. } => {
                is_plain_user_struct(self.db(), *def, args)
                    && !crate::hir::decl_syntax(self.db(), *def)
                        .is_some_and(|n| n.text().to_string().contains("__implicit_conversion"))
            }
            Ty::Param { .. } => own(t),
            Ty::Assoc(base, _) => own(base),
            _ => false,
        };
        let differ = expected != actual
            && (own(expected) && known(actual) || own(actual) && known(expected))
            && !matches!((expected, actual), (Ty::Assoc(..), Ty::Assoc(..)));
        differ && !self.equality_constraints()
    }

    /// Whether the function or a declaration around it states a type
    /// equality (`where T == int`, `where T.A == U`).
    fn equality_constraints(&self) -> bool {
        let db = self.db();
        let mut cur = Some(self.def);
        while let Some(d) = cur {
            if let Some(node) = crate::hir::decl_syntax(db, d) {
                let eq = node
                    .children()
                    .filter(|c| matches!(c.kind(), SyntaxKind::WHERE_CLAUSE | SyntaxKind::GENERIC_PARAM_LIST))
                    .any(|c| c.descendants_with_tokens().any(|e| e.kind() == SyntaxKind::EQ2));
                if eq {
                    return true;
                }
            }
            cur = parent_of(db, d);
        }
        false
    }

    pub(super) fn decl(&mut self, d: &LocalDecl, stmt: StmtId) {
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
    pub(super) fn check_init_list_len(&mut self, t: &Ty, e: ExprId) {
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
}
