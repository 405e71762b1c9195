//! Adjoint storage (a variable per value and per local) and the backward
//! part's regions: sequences, guarded parts and loops reversed from the
//! last iteration ([`super::transpose`]).

use super::*;

impl Rev<'_> {
    // ---- adjoints -----------------------------------------------------------

    /// The adjoint variable of `v` (created at zero).
    pub(super) fn adj_var(&mut self, v: ValueId) -> Option<ValueId> {
        if let Some(&a) = self.st.adj.get(&v) {
            return Some(a);
        }
        let d = self.differential(self.src_ty(v))?;
        let a = self.var(d, None);
        self.st.adj.insert(v, a);
        Some(a)
    }

    /// The current adjoint of `v` (`None`: zero).
    pub(super) fn adj_value(&mut self, v: ValueId) -> Option<ValueId> {
        let a = *self.st.adj.get(&v)?;
        Some(self.load(a))
    }

    /// `adj[v] += g`.
    pub(super) fn add_adj(&mut self, v: ValueId, g: ValueId) -> Result<(), CodegenError> {
        if !self.st.active[v.index()] {
            return Ok(());
        }
        let Some(a) = self.adj_var(v) else { return Ok(()) };
        self.accumulate(a, g)
    }

    /// `*ptr += g`.
    pub(super) fn accumulate(&mut self, ptr: ValueId, g: ValueId) -> Result<(), CodegenError> {
        let old = self.load(ptr);
        let t = self.st.b.ty(old);
        let g = self.coerce_to(g, t)?;
        let sum = self.dadd(old, g, t)?;
        self.store(ptr, sum);
        Ok(())
    }

    /// `g` in the type `t` of the adjoint it is added to (a scalar
    /// broadcast, the same differential type otherwise).
    pub(super) fn coerce_to(&mut self, g: ValueId, t: TypeId) -> Result<ValueId, CodegenError> {
        let gt = self.st.b.ty(g);
        if gt == t {
            return Ok(g);
        }
        match (self.module.types.get(gt).clone(), self.module.types.get(t).clone()) {
            (Type::Scalar(_), Type::Vector(..) | Type::Matrix { .. }) => Ok(self.inst(Op::Splat(g), t)),
            (Type::Vector(..) | Type::Matrix { .. }, Type::Scalar(_)) => Ok(self.sum(g)),
            (Type::Scalar(_), Type::Scalar(_)) => Ok(self.inst(Op::Convert(g), t)),
            _ => Err(self.error(format!(
                "internal: adjoint of type `{}` added to `{}`",
                self.module.types.display(gt),
                self.module.types.display(t)
            ))),
        }
    }

    /// `a + b` for differentials of type `t`.
    pub(super) fn dadd(&mut self, a: ValueId, b: ValueId, t: TypeId) -> Result<ValueId, CodegenError> {
        self.emit()
            .combine(BinaryOp::Add, a, b, t)
            .ok_or_else(|| self.error("internal: adding values that are not differentials"))
    }

    /// The sum of the components of a vector or matrix.
    pub(super) fn sum(&mut self, v: ValueId) -> ValueId {
        let t = self.st.b.ty(v);
        match self.module.types.get(t).clone() {
            Type::Vector(s, n) => {
                let st = self.module.types.intern(Type::Scalar(s));
                let mut acc = self.inst(Op::Extract(v, 0), st);
                for i in 1..n as u32 {
                    let x = self.inst(Op::Extract(v, i), st);
                    acc = self.inst(Op::Binary(BinaryOp::Add, acc, x), st);
                }
                acc
            }
            Type::Matrix { scalar, rows, cols } => {
                let rt = self.module.types.intern(Type::Vector(scalar, cols));
                let st = self.module.types.intern(Type::Scalar(scalar));
                let mut acc = None;
                for i in 0..rows as u32 {
                    let r = self.inst(Op::Extract(v, i), rt);
                    let s = self.sum(r);
                    acc = Some(match acc {
                        Some(a) => self.inst(Op::Binary(BinaryOp::Add, a, s), st),
                        None => s,
                    });
                }
                acc.expect("a matrix has rows")
            }
            _ => v,
        }
    }

    /// The adjoint storage behind a pointer of `f` (`None`: memory whose
    /// derivative is not tracked, such as buffers).
    pub(super) fn adj_ptr(&mut self, p: ValueId) -> Option<ValueId> {
        if let Some(&a) = self.st.adj_mem.get(&p) {
            return Some(a);
        }
        match self.src.op(p)?.clone() {
            Op::Var => {
                let (t, _) = self.module.types.pointee(self.src_ty(p))?;
                let d = self.differential(t)?;
                let a = self.var(d, None);
                self.st.adj_mem.insert(p, a);
                Some(a)
            }
            Op::FieldAddr(base, i) => {
                let (bt, _) = self.module.types.pointee(self.src_ty(base))?;
                let index = match self.module.types.get(bt) {
                    Type::Struct { .. } => self.module.types.struct_diff(bt)?.fields.get(i as usize).copied()??,
                    _ => i,
                };
                let ab = self.adj_ptr(base)?;
                let (abt, _) = self.module.types.pointee(self.st.b.ty(ab))?;
                let et = self.module.types.element(abt, index)?;
                let et = self.module.types.intern(et);
                let pt = self.ptr_ty(et);
                Some(self.inst(Op::FieldAddr(ab, index), pt))
            }
            Op::ElementAddr(base, idx) => {
                let ab = self.adj_ptr(base)?;
                let (abt, _) = self.module.types.pointee(self.st.b.ty(ab))?;
                let et = self.module.types.element(abt, 0)?;
                let et = self.module.types.intern(et);
                let pt = self.ptr_ty(et);
                let i = self.primal(idx);
                Some(self.inst(Op::ElementAddr(ab, i), pt))
            }
            _ => None,
        }
    }

    /// A pointer to part `index` of the adjoint variable of value `v`
    /// (`index` of the value's type; mapped through a struct's
    /// `Differential`).
    pub(super) fn adj_part_ptr(&mut self, v: ValueId, index: Part) -> Option<ValueId> {
        let a = self.adj_var(v)?;
        let vt = self.src_ty(v);
        let (at, _) = self.module.types.pointee(self.st.b.ty(a))?;
        match index {
            Part::Const(i) => {
                let i = match self.module.types.get(vt) {
                    Type::Struct { .. } => self.module.types.struct_diff(vt)?.fields.get(i as usize).copied()??,
                    _ => i,
                };
                let et = self.module.types.element(at, i)?;
                let et = self.module.types.intern(et);
                let pt = self.ptr_ty(et);
                Some(self.inst(Op::FieldAddr(a, i), pt))
            }
            Part::Dynamic(idx) => {
                let et = self.module.types.element(at, 0)?;
                let et = self.module.types.intern(et);
                let pt = self.ptr_ty(et);
                Some(self.inst(Op::ElementAddr(a, idx), pt))
            }
        }
    }

    // ---- the backward part --------------------------------------------------

    pub(super) fn reverse_seq(&mut self, nodes: &[Node]) -> Result<(), CodegenError> {
        // The part after a split ran only if no exit had: reversed under
        // the same condition, first.
        if let Some(i) = nodes.iter().position(|n| self.st.splits.contains_key(&(n as *const Node))) {
            if i + 1 < nodes.len() {
                let flag = self.st.splits[&(&nodes[i] as *const Node)];
                let c = self.restore_flag(flag);
                self.reverse_guarded(c, &nodes[i + 1..])?;
                return self.reverse_seq(&nodes[..=i]);
            }
        }
        for node in nodes.iter().rev() {
            match node {
                Node::Block(b) => self.reverse_block(*b)?,
                Node::Assign { target, args } => {
                    // Parallel assignment: read every adjoint, then clear.
                    let params = self.src.block(*target).params.clone();
                    let mut moves = Vec::new();
                    for (&p, &a) in params.iter().zip(args) {
                        // (Created now if need be: in a loop, the uses that
                        // feed it are reversed after this, in emission order,
                        // but before it at run time.)
                        let Some(var) = self.adj_var(p) else { continue };
                        let g = self.load(var);
                        moves.push((a, g));
                        let t = self.st.b.ty(g);
                        let z = self.emit().zero(t);
                        self.store(var, z);
                    }
                    for (a, g) in moves {
                        self.add_adj(a, g)?;
                    }
                }
                Node::If { cond, then, els } => {
                    let c = self.primal(*cond);
                    let (t, e, merge) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
                    let block = self.block();
                    self.st.b.terminate(block, Terminator::If { cond: c, then: t, els: e, merge });
                    for (start, region) in [(t, then), (e, els)] {
                        self.st.cur = Some(start);
                        self.reverse_seq(region)?;
                        let end = self.block();
                        self.st.b.terminate(end, Terminator::Branch { target: merge, args: Vec::new() });
                    }
                    self.st.cur = Some(merge);
                }
                Node::Switch { value, cases, default } => {
                    let v = self.primal(*value);
                    let (bodies, brk) = self.open_switch(v, cases, default);
                    for (start, body) in bodies {
                        self.st.cur = Some(start);
                        self.reverse_seq(body)?;
                        let end = self.block();
                        self.st.b.terminate(end, Terminator::Branch { target: brk, args: Vec::new() });
                    }
                    self.st.cur = Some(brk);
                }
                Node::Return(Some(v)) => {
                    if let Some(g) = self.st.ret_adj {
                        self.add_adj(*v, g)?;
                    }
                }
                Node::Loop { body, continuing, .. } => {
                    let l = self.st.loop_of_node[&(node as *const Node)];
                    self.reverse_loop(l, body, continuing)?;
                }
                Node::Break | Node::Continue | Node::Return(None) | Node::Unreachable => {}
            }
        }
        Ok(())
    }

    /// A condition of the primal part, where the backward part is being
    /// emitted (in the reversal of its loop, for [`Flag::NotLast`]).
    fn restore_flag(&mut self, flag: Flag) -> ValueId {
        match flag {
            Flag::Saved(s) => self.restore(s),
            Flag::NotLast(l) => self.st.loops[l].rev_not_last.expect("in the loop's reversal"),
            Flag::Always => {
                let t = self.bool_ty();
                self.inst(Op::Const(crate::ir::Const::Bool(true)), t)
            }
            Flag::Cond(cond, go_when) => {
                let c = self.primal(cond);
                match go_when {
                    true => c,
                    false => {
                        let t = self.st.b.ty(c);
                        self.inst(Op::Unary(UnaryOp::Not, c), t)
                    }
                }
            }
        }
    }

    /// `if (c) { reverse of nodes }`.
    pub(super) fn reverse_guarded(&mut self, c: ValueId, nodes: &[Node]) -> Result<(), CodegenError> {
        let (t, e, merge) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        let block = self.block();
        self.st.b.terminate(block, Terminator::If { cond: c, then: t, els: e, merge });
        self.st.b.terminate(e, Terminator::Branch { target: merge, args: Vec::new() });
        self.st.cur = Some(t);
        self.reverse_seq(nodes)?;
        let end = self.block();
        self.st.b.terminate(end, Terminator::Branch { target: merge, args: Vec::new() });
        self.st.cur = Some(merge);
        Ok(())
    }

    /// The iterations of loop `l` in reverse order: from the last one's
    /// number down to the first's, each reversing the continuing part (if
    /// it ran) and then the body.
    pub(super) fn reverse_loop(&mut self, l: usize, body: &[Node], continuing: &[Node]) -> Result<(), CodegenError> {
        let int = self.module.types.intern(Type::Scalar(slang_analysis::ty::Scalar::Int32));
        let bool_ty = self.bool_ty();
        let after = self.st.loops[l].after.expect("a copied loop");
        let first = match self.st.loops[l].before {
            Some(before) => self.restore(before),
            None => self.inst(Op::Const(crate::ir::Const::Int(0)), int),
        };
        let end = self.restore(after);
        let one = self.inst(Op::Const(crate::ir::Const::Int(1)), int);
        let last = self.inst(Op::Binary(BinaryOp::Sub, end, one), int);
        let r = self.var(int, None);
        self.store(r, last);
        let (header, brk, cont) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        let block = self.block();
        self.st.b.terminate(block, Terminator::Loop { header, brk, cont, args: Vec::new() });
        // As many iterations as the loop's (its last one included, which
        // only tests the exit: `MaxIters + 1`), so that the derivative can
        // be differentiated in reverse again.
        let bound = self.st.loops[l].bound.saturating_add(1);
        self.st.b.func.max_iters.push((header, bound));
        self.st.cur = Some(header);
        let i = self.load(r);
        let more = self.inst(Op::Binary(BinaryOp::Ge, i, first), bool_ty);
        let (go, stop, body_block) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        self.st.b.terminate(header, Terminator::If { cond: more, then: go, els: stop, merge: body_block });
        self.st.b.terminate(go, Terminator::Branch { target: body_block, args: Vec::new() });
        self.st.b.terminate(stop, Terminator::Branch { target: brk, args: Vec::new() });
        self.st.cur = Some(body_block);
        self.st.loop_stack.push(l);
        self.st.rev_index.insert(l, i);
        self.st.loops[l].rev_index = Some(i);
        let not_last = self.inst(Op::Binary(BinaryOp::Lt, i, last), bool_ty);
        self.st.loops[l].rev_not_last = Some(not_last);
        let ran = self.st.loops[l].continuing_ran.expect("a copied loop");
        let c = self.restore_flag(ran);
        self.reverse_guarded(c, continuing)?;
        self.reverse_seq(body)?;
        self.st.loop_stack.pop();
        self.st.rev_index.remove(&l);
        let end_block = self.block();
        self.st.b.terminate(end_block, Terminator::Branch { target: cont, args: Vec::new() });
        self.st.cur = Some(cont);
        let i2 = self.load(r);
        let one = self.inst(Op::Const(crate::ir::Const::Int(1)), int);
        let prev = self.inst(Op::Binary(BinaryOp::Sub, i2, one), int);
        self.store(r, prev);
        self.st.b.terminate(cont, Terminator::Branch { target: header, args: Vec::new() });
        self.st.loops[l].rev_blocks =
            (header.0..self.st.b.func.blocks.len() as u32).map(BlockId).filter(|&b| b != brk).collect();
        self.st.cur = Some(brk);
        Ok(())
    }

    pub(super) fn reverse_block(&mut self, b: BlockId) -> Result<(), CodegenError> {
        let insts = self.src.block(b).insts.clone();
        for &v in insts.iter().rev() {
            self.st.span = self.src.value(v).span.or(self.src.span);
            self.transpose(v)?;
        }
        Ok(())
    }
}
