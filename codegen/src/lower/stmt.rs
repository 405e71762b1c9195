//! Lowering statements: blocks, declarations, `if`, the loops (with
//! their labels, bounds and `[ForceUnroll]`), `switch`, `break`,
//! `continue` and `return`.

use super::*;

impl FnLower<'_, '_> {
    pub(super) fn stmt(&mut self, s: StmtId) -> R<()> {
        if self.cur.is_none() {
            return Ok(()); // unreachable code
        }
        let saved = self.span;
        self.span = stmt_range(self.db(), self.def, s);
        let r = self.stmt_inner(s);
        self.span = saved;
        r
    }

    /// The attributes written on loop statement `s` (`[MaxIters(n)]
    /// outer: for (…)`): those of the attributed statement holding it,
    /// through labels.
    pub(super) fn loop_attrs(&self, s: StmtId) -> Vec<StmtAttr> {
        let holder = |c: StmtId| {
            self.body.stmts.iter().position(|st| {
                matches!(st, Stmt::Labeled { stmt: Some(x), .. } | Stmt::Attributed { stmt: Some(x), .. } if *x == c)
            })
        };
        let mut cur = s;
        while let Some(p) = holder(cur) {
            match &self.body.stmts[p] {
                Stmt::Attributed { attrs, .. } => return attrs.clone(),
                _ => cur = StmtId(p as u32),
            }
        }
        Vec::new()
    }

    /// An upper bound on the iterations of loop statement `s`:
    /// `[MaxIters(n)]` (or `[ForceUnroll(n)]`) on it, or, for `for (i = a;
    /// i < b; …)` with constant `a` and `b`, `|b - a| + 1`.
    pub(super) fn loop_bound(&self, s: StmtId, init: Option<StmtId>, cond: Option<ExprId>) -> Option<u32> {
        for a in self.loop_attrs(s) {
            if matches!(a.name.as_str(), "MaxIters" | "ForceUnroll" | "unroll") {
                if let Some(n) = a.args.first().and_then(|&arg| self.const_arg(arg)) {
                    return u32::try_from(n).ok();
                }
            }
        }
        let bound = match self.body.expr(cond?) {
            Expr::Binary { op: HirBinary::Compare(_), lhs, rhs } => {
                self.const_arg(*rhs).or_else(|| self.const_arg(*lhs))?
            }
            _ => return None,
        };
        let start = match self.body.stmt(init?) {
            Stmt::Decl(decls) => self.const_arg(decls.first()?.init?)?,
            _ => return None,
        };
        u32::try_from((bound - start).abs() + 1).ok()
    }

    /// The value of the constant integer expression `e` of the function:
    /// literals, constants of the scopes and the function's `const`
    /// locals declared before it.
    pub(super) fn const_arg(&self, e: ExprId) -> Option<i64> {
        let mut env = globals::Constants { ctx: self.ctx.clone(), locals: Some(e) };
        consteval::eval_int(&self.body, e, &mut env)
    }

    /// `[ForceUnroll]` on loop statement `s`: the statement's range, and
    /// whether an iteration bound is written (`[ForceUnroll(n)]`).
    pub(super) fn force_unroll(&self, s: StmtId) -> Option<(Option<TextRange>, bool)> {
        let a = self.loop_attrs(s).into_iter().find(|a| a.name == "ForceUnroll")?;
        Some((stmt_range(self.db(), self.def, s), !a.args.is_empty()))
    }

    /// Enter a loop or switch (taking the label written before it).
    pub(super) fn push_target(&mut self, brk: BlockId, cont: Option<BlockId>) {
        let label = self.pending_label.take();
        let flag = match &label {
            Some(_) => {
                // Declared at the function's entry so that every level can
                // read it.
                let bool_ty = self.bool_ty();
                let ptr_ty = self.t(Type::Ptr(bool_ty, AddressSpace::Function));
                let var = self.b.inst(BlockId(0), Op::Var, ptr_ty, self.span);
                // Cleared at each iteration (it is set only on the way
                // out).
                let f = self.konst(Const::Bool(false), bool_ty);
                self.store(var, f);
                Some(var)
            }
            None => None,
        };
        self.targets.push(Targets { brk, cont, label, flag });
    }

    /// After a loop or switch: if a `break label` inside it was for an
    /// enclosing statement, break out of this level too.
    pub(super) fn propagate_labelled_break(&mut self) {
        if self.cur.is_none() || self.targets.is_empty() {
            return;
        }
        let flags: Vec<ValueId> = self.targets.iter().filter_map(|t| t.flag).collect();
        let brk = self.targets.last().expect("a target").brk;
        for flag in flags {
            if self.cur.is_none() {
                break;
            }
            let set = self.load(flag);
            let (go, stay, after) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
            self.terminate(Terminator::If { cond: set, then: go, els: stay, merge: after });
            self.b.terminate(go, Terminator::Branch { target: brk, args: Vec::new() });
            self.b.terminate(stay, Terminator::Branch { target: after, args: Vec::new() });
            self.cur = Some(after);
        }
    }

    pub(super) fn stmt_inner(&mut self, s: StmtId) -> R<()> {
        match self.body.stmt(s).clone() {
            Stmt::Expr(e) => {
                self.expr(e)?;
            }
            Stmt::Decl(decls) => {
                for d in decls {
                    let sem = match (&d.ty, d.init) {
                        (Some(t), _) => self.ctx.resolve(t),
                        (None, Some(i)) => self.inferred.type_of(i),
                        (None, None) => Ty::Unknown,
                    };
                    if globals::resource_of(&sem).is_some() {
                        // A buffer local names the global buffer it is
                        // initialized with.
                        let Some(init) = d.init else {
                            return self.error(format!("the buffer `{}` needs a value", d.name));
                        };
                        let g = self.resource_global(init)?;
                        let ptr = self.global_pointer(g, None)?;
                        self.scopes.last_mut().unwrap().push(Local { name: d.name.clone(), ptr });
                        continue;
                    }
                    if let (Some(init), false) = (d.init, self.m.resource_fields(&sem).is_empty()) {
                        let ty = self.expr_ty_of(&sem)?;
                        let var = self.var(ty);
                        match self.body.expr(init).clone() {
                            Expr::InitList(items) => {
                                self.init_list_with_resources((var, String::new()), var, &items, &sem)?
                            }
                            _ => {
                                let v = self.expr_expecting(init, ty)?;
                                self.store(var, v);
                                self.copy_resources((var, String::new()), init, &sem, Some(v))?;
                            }
                        }
                        self.scopes.last_mut().unwrap().push(Local { name: d.name.clone(), ptr: var });
                        continue;
                    }
                    let (ty, value) = match (&d.ty, d.init) {
                        (Some(t), init) => {
                            let ty = self.resolve(t)?;
                            (ty, init.map(|i| self.expr_expecting(i, ty)).transpose()?)
                        }
                        // `let`/`var`: the value's type.
                        (None, Some(init)) => {
                            let v = self.expr(init)?;
                            (self.ty_of(v), Some(v))
                        }
                        (None, None) => return self.error(format!("`{}` needs a type or a value", d.name)),
                    };
                    if matches!(self.ty(ty), Type::Void) {
                        // `let r = bwd_diff(f)(…)`: nothing to keep.
                        continue;
                    }
                    let var = self.var(ty);
                    // `S s;` of a struct with an `__init()` runs it (as the
                    // reference compiler does; field defaults and arrays
                    // are left alone).
                    let value = match value {
                        Some(v) => Some(v),
                        None => match self.default_initializer(&sem)? {
                            Some(f) => Some(self.call_function(f, &[])?),
                            None => None,
                        },
                    };
                    if let Some(v) = value {
                        self.store(var, v);
                    }
                    self.scopes.last_mut().unwrap().push(Local { name: d.name.clone(), ptr: var });
                }
            }
            Stmt::Block(stmts) => {
                self.scopes.push(Vec::new());
                for st in stmts {
                    self.stmt(st)?;
                }
                self.scopes.pop();
            }
            Stmt::If { cond, let_binding, then, els } => {
                // `if (let x = opt)`: runs with `x` the value when there is
                // one.
                let mut bound = None;
                let c = match (&let_binding, cond) {
                    (Some((name, init)), _) => {
                        let opt = self.expr(*init)?;
                        let ot = self.ty_of(opt);
                        let Some(vt) = self.optional_of(ot) else {
                            return self.error(format!("`if (let …)` of a `{}`, not an `Optional`", self.show(ot)));
                        };
                        let bool_ty = self.t(Type::Scalar(Scalar::Bool));
                        let value = self.emit(Op::Extract(opt, 0), vt);
                        bound = Some((name.clone(), value));
                        self.emit(Op::Extract(opt, 1), bool_ty)
                    }
                    (None, Some(cond)) => self.condition(cond)?,
                    (None, None) => return self.error("missing condition"),
                };
                let (tb, eb, merge) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
                self.terminate(Terminator::If { cond: c, then: tb, els: eb, merge });
                for (block, body) in [(tb, then), (eb, els)] {
                    self.cur = Some(block);
                    if let Some(st) = body {
                        self.scopes.push(Vec::new());
                        if let (Some((name, value)), true) = (&bound, block == tb) {
                            let t = self.ty_of(*value);
                            let var = self.var(t);
                            self.store(var, *value);
                            self.scopes.last_mut().unwrap().push(Local { name: name.clone(), ptr: var });
                        }
                        self.stmt(st)?;
                        self.scopes.pop();
                    }
                    self.branch(merge, Vec::new());
                }
                self.continue_at(merge);
            }
            Stmt::Loop { init, cond, step, body, kind } => {
                if kind == LoopKind::CompileTimeFor {
                    return self.error("`$for` is not supported by code generation yet");
                }
                self.scopes.push(Vec::new());
                if let Some(i) = init {
                    self.stmt(i)?;
                }
                self.pending_max_iters = self.loop_bound(s, init, cond);
                self.pending_unroll = self.force_unroll(s);
                if kind == LoopKind::DoWhile {
                    self.do_while(cond, body)?;
                } else {
                    self.for_loop(cond, step, body)?;
                }
                self.scopes.pop();
            }
            Stmt::Switch { scrutinee, cases } => self.switch(scrutinee, cases)?,
            Stmt::Return(e) => {
                let ret = self.b.func.ret;
                let v = match e {
                    // `return f(…);` of a `void` call in a `void`
                    // function: the call, then a plain return.
                    Some(e) if matches!(self.ty(ret), Type::Void) => {
                        self.expr(e)?;
                        None
                    }
                    Some(e) => {
                        let v = self.expr_expecting(e, ret)?;
                        self.record_returned_resources(e, v)?;
                        Some(v)
                    }
                    None if self.is_init => Some(self.this_value()?),
                    None => None,
                };
                self.terminate(Terminator::Return(v));
            }
            Stmt::Break(label) => {
                let Some(last) = self.targets.last() else {
                    return self.error("`break` outside a loop or switch");
                };
                let brk = last.brk;
                if let Some(label) = label {
                    let Some(target) = self.targets.iter().rev().find(|t| t.label.as_deref() == Some(label.as_str()))
                    else {
                        return self.error(format!("no enclosing statement is labelled `{label}`"));
                    };
                    if let Some(flag) = target.flag.filter(|_| target.brk != brk) {
                        let t = self.bool_ty();
                        let yes = self.konst(Const::Bool(true), t);
                        self.store(flag, yes);
                    }
                }
                self.branch(brk, Vec::new());
            }
            Stmt::Continue => match self.targets.iter().rev().find_map(|t| t.cont) {
                Some(cont) => self.branch(cont, Vec::new()),
                None => return self.error("`continue` outside a loop"),
            },
            Stmt::Labeled { label, stmt } => {
                self.pending_label = Some(label);
                if let Some(st) = stmt {
                    self.stmt(st)?;
                }
                self.pending_label = None;
            }
            Stmt::Attributed { stmt, .. } => {
                if let Some(st) = stmt {
                    self.stmt(st)?;
                }
            }
            Stmt::Empty => {}
            Stmt::TargetSwitch(cases) => self.target_switch(&cases)?,
            Stmt::IntrinsicAsm(text) => self.intrinsic_asm(&text)?,
            Stmt::Other(what, _) => {
                return self.error(format!("this statement ({what}) is not supported by code generation yet"));
            }
        }
        Ok(())
    }

    /// `for`/`while`: the header tests the condition; the continue block
    /// runs the step.
    pub(super) fn for_loop(&mut self, cond: Option<ExprId>, step: Option<ExprId>, body: Option<StmtId>) -> R<()> {
        let (header, body_block, brk, cont) = self.enter_loop(true);
        match cond {
            Some(c) => {
                let c = self.condition(c)?;
                let (go, stop) = (self.b.new_block(), self.b.new_block());
                self.terminate(Terminator::If { cond: c, then: go, els: stop, merge: body_block });
                self.b.terminate(go, Terminator::Branch { target: body_block, args: Vec::new() });
                self.b.terminate(stop, Terminator::Branch { target: brk, args: Vec::new() });
            }
            None => self.branch(body_block, Vec::new()),
        }
        self.cur = Some(body_block);
        self.loop_body(brk, cont, body)?;
        if self.has_preds(cont) {
            self.cur = Some(cont);
            if let Some(st) = step {
                self.expr(st)?;
            }
            self.branch(header, Vec::new());
        }
        self.continue_at(brk);
        self.propagate_labelled_break();
        Ok(())
    }

    /// Start a loop: its header (where lowering continues), a body block
    /// if asked for, break and continue blocks, with the bound of
    /// `[MaxIters]` recorded.
    pub(super) fn enter_loop(&mut self, with_body: bool) -> (BlockId, BlockId, BlockId, BlockId) {
        let header = self.b.new_block();
        let body = if with_body { self.b.new_block() } else { header };
        let (cont, brk) = (self.b.new_block(), self.b.new_block());
        self.terminate(Terminator::Loop { header, brk, cont, args: Vec::new() });
        if let Some(n) = self.pending_max_iters.take() {
            self.b.func.max_iters.push((header, n));
        }
        if let Some((range, bounded)) = self.pending_unroll.take() {
            self.b.func.force_unroll.push((header, range, bounded));
        }
        self.cur = Some(header);
        (header, body, brk, cont)
    }

    /// A loop's body, falling through to the continue block.
    pub(super) fn loop_body(&mut self, brk: BlockId, cont: BlockId, body: Option<StmtId>) -> R<()> {
        self.push_target(brk, Some(cont));
        if let Some(st) = body {
            self.stmt(st)?;
        }
        self.targets.pop();
        self.branch(cont, Vec::new());
        Ok(())
    }

    /// `do … while`: the continue block tests the condition, branching
    /// back to the header or out.
    pub(super) fn do_while(&mut self, cond: Option<ExprId>, body: Option<StmtId>) -> R<()> {
        let (header, _, brk, cont) = self.enter_loop(false);
        self.loop_body(brk, cont, body)?;
        if self.has_preds(cont) {
            self.cur = Some(cont);
            // The test is the loop's continuing part, which must stay one
            // block: `&&`/`||` are evaluated without short-circuit here.
            self.eager_logic = true;
            let c = match cond {
                Some(c) => self.condition(c),
                None => self.error("missing condition"),
            };
            self.eager_logic = false;
            let c = c?;
            if self.cur != Some(cont) {
                return self.error("this `do … while` condition is not supported yet (it branches)");
            }
            let (again, stop, after) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
            self.terminate(Terminator::If { cond: c, then: again, els: stop, merge: after });
            self.b.terminate(again, Terminator::Branch { target: header, args: Vec::new() });
            self.b.terminate(stop, Terminator::Branch { target: brk, args: Vec::new() });
        }
        self.continue_at(brk);
        self.propagate_labelled_break();
        Ok(())
    }

    pub(super) fn switch(&mut self, scrutinee: Option<ExprId>, cases: Vec<(Option<ExprId>, Vec<StmtId>)>) -> R<()> {
        let Some(scrutinee) = scrutinee else { return self.error("missing switch value") };
        let v = self.expr(scrutinee)?;
        let vt = self.ty_of(v);
        let v = match self.ty(vt) {
            Type::Scalar(Scalar::Int32 | Scalar::UInt32) => v,
            _ => {
                let int = self.t(Type::Scalar(Scalar::Int32));
                self.coerce(v, int)?
            }
        };
        let brk = self.b.new_block();
        let mut labels = Vec::new();
        let mut default = None;
        // Labels with no statements share the next case's block.
        let mut pending: Vec<Option<ExprId>> = Vec::new();
        let mut bodies: Vec<(BlockId, Vec<StmtId>)> = Vec::new();
        for (label, stmts) in cases {
            pending.push(label);
            if stmts.is_empty() {
                continue;
            }
            let block = self.b.new_block();
            for l in pending.drain(..) {
                match l {
                    None => default = Some(block),
                    Some(e) => labels.push((self.case_value(e)?, block)),
                }
            }
            bodies.push((block, stmts));
        }
        if !pending.is_empty() {
            let block = self.b.new_block();
            self.b.terminate(block, Terminator::Branch { target: brk, args: Vec::new() });
            for l in pending {
                match l {
                    None => default = Some(block),
                    Some(e) => labels.push((self.case_value(e)?, block)),
                }
            }
        }
        let default = match default {
            Some(d) => d,
            None => {
                let d = self.b.new_block();
                self.b.terminate(d, Terminator::Branch { target: brk, args: Vec::new() });
                d
            }
        };
        self.terminate(Terminator::Switch { value: v, cases: labels, default, brk });
        for (i, (block, _)) in bodies.iter().enumerate() {
            self.cur = Some(*block);
            self.push_target(brk, None);
            // A case that does not end (`break`, `return`…) falls into the
            // next one: its statements are lowered again after this one's
            // (structured targets such as WGSL have no fall-through).
            for (_, stmts) in &bodies[i..] {
                if self.cur.is_none() {
                    break;
                }
                self.scopes.push(Vec::new());
                for &st in stmts {
                    self.stmt(st)?;
                }
                self.scopes.pop();
            }
            self.targets.pop();
            if self.cur.is_some() {
                self.branch(brk, Vec::new());
            }
        }
        self.continue_at(brk);
        self.propagate_labelled_break();
        Ok(())
    }

    /// A case label's value: an integer literal, or a constant the
    /// lowering knows (an enum case, a `static const` integer).
    pub(super) fn case_value(&mut self, e: ExprId) -> R<i64> {
        if let Some(v) = consteval::eval_int(&self.body, e, &mut consteval::NoNames) {
            return Ok(v);
        }
        let v = self.expr(e)?;
        match self.b.func.op(v) {
            Some(Op::Const(Const::Int(k))) => Ok(*k),
            _ => err(self.expr_span(e), "case labels must be integer constants"),
        }
    }
}
