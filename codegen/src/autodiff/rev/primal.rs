//! The primal part of `s_bwd_f` ([`super::unzip`]): `f`'s regions copied,
//! loops counted, exits turned into flags, and every value the backward
//! part reads saved (checkpointed) where it is defined.

use rustc_hash::FxHashMap as HashMap;

use super::*;

impl Rev<'_> {
    /// The prologue and the primal blocks ([`unzip`]).
    pub(super) fn primal_part(&mut self) -> Result<(), CodegenError> {
        let tree = structure(self.src).map_err(|e| self.error(format!("internal: {e}")))?;
        let src_params: Vec<ValueId> =
            self.src.blocks.first().map(|b| b.params.clone()).ok_or_else(|| self.error("a function without a body"))?;
        let (_, param_map, ret_diff) = backward_signature(&mut self.module.types, self.src);
        // The prologue: the parameters, variables and adjoints.
        let prologue = self.st.b.new_block();
        debug_assert_eq!(prologue, PROLOGUE);
        let bwd_params: Vec<ValueId> = self
            .st
            .b
            .func
            .params
            .clone()
            .iter()
            .map(|p| self.st.b.add_block_param(PROLOGUE, p.ty, self.st.span))
            .collect();
        self.st.cur = Some(PROLOGUE);
        // (pair pointer, adjoint source) written back at the end.
        let mut write_back: Vec<(ValueId, WriteBack)> = Vec::new();
        let main = self.st.b.new_block();
        for (i, (&sp, pm)) in src_params.iter().zip(&param_map).enumerate() {
            let dir = self.src.params[i].dir;
            let sty = self.src_ty(sp);
            match (*pm, dir) {
                (ParamMap::Pair(k), ParamDir::In) => {
                    let pair = bwd_params[k];
                    let value = self.pair_part(pair, 0);
                    self.st.map[sp.index()] = Some(self.load(value));
                    write_back.push((pair, WriteBack::Value(sp)));
                }
                (ParamMap::Pair(k), _) => {
                    // `inout`: a local holding the primal, an adjoint
                    // starting from the incoming derivative.
                    let pair = bwd_params[k];
                    let (t, _) = self.module.types.pointee(sty).expect("inout parameters are pointers");
                    let p = self.pair_part(pair, 0);
                    let init = self.load(p);
                    self.st.initial.insert(sp, init);
                    let local = self.var(t, Some(init));
                    let d = self.pair_part(pair, 1);
                    let g = self.load(d);
                    let dt = self.st.b.ty(g);
                    let adj = self.var(dt, Some(g));
                    self.st.map[sp.index()] = Some(local);
                    self.st.adj_mem.insert(sp, adj);
                    write_back.push((pair, WriteBack::Memory(adj)));
                }
                (ParamMap::OutGrad(k), _) => {
                    let (t, _) = self.module.types.pointee(sty).expect("out parameters are pointers");
                    let local = self.var(t, None);
                    let g = bwd_params[k];
                    let dt = self.st.b.ty(g);
                    let adj = self.var(dt, Some(g));
                    self.st.map[sp.index()] = Some(local);
                    self.st.adj_mem.insert(sp, adj);
                }
                (ParamMap::Value(k), ParamDir::In) => self.st.map[sp.index()] = Some(bwd_params[k]),
                (ParamMap::Value(k), _) => {
                    let (t, _) = self.module.types.pointee(sty).expect("inout parameters are pointers");
                    let local = self.var(t, Some(bwd_params[k]));
                    self.st.initial.insert(sp, bwd_params[k]);
                    self.st.map[sp.index()] = Some(local);
                }
                (ParamMap::Dropped, _) => {
                    let (t, _) = self.module.types.pointee(sty).expect("out parameters are pointers");
                    let local = self.var(t, None);
                    self.st.map[sp.index()] = Some(local);
                }
                (ParamMap::PtrPair(k), _) => {
                    let pair = bwd_params[k];
                    let value = self.inst(Op::Extract(pair, 0), sty);
                    self.st.map[sp.index()] = Some(value);
                    self.st.ptr_pairs.insert(sp, pair);
                }
            }
        }
        // The primal part.
        if !matches!(self.module.types.get(self.src.ret), Type::Void) {
            let rt = self.src.ret;
            self.st.ret_var = Some(self.var(rt, None));
        }
        let bool_ty = self.module.types.intern(Type::Scalar(slang_analysis::ty::Scalar::Bool));
        let no = self.st.b.inst(PROLOGUE, Op::Const(crate::ir::Const::Bool(false)), bool_ty, self.st.span);
        self.st.returned = Some(self.var(bool_ty, Some(no)));
        if ret_diff.is_some() {
            let g = *bwd_params.last().expect("the result's derivative");
            self.st.ret_adj = Some(g);
        }
        self.st.cur = Some(main);
        self.primal_seq(&tree)?;
        let Some(end) = self.st.cur else {
            return Err(self.error("`bwd_diff` of a function that never returns"));
        };
        // The backward part starts in a block of its own (where the
        // functions are split).
        let rev_start = self.st.b.new_block();
        self.st.b.terminate(end, Terminator::Branch { target: rev_start, args: Vec::new() });
        self.st.b.terminate(rev_start, Terminator::Return(None));
        self.st.rev_start = Some(rev_start);
        self.st.b.terminate(PROLOGUE, Terminator::Branch { target: main, args: Vec::new() });
        self.st.tree = tree;
        self.st.write_back = write_back;
        Ok(())
    }

    /// The differential blocks, from the end of the primal part on
    /// ([`transpose`]).
    pub(super) fn backward_part(&mut self) -> Result<(), CodegenError> {
        let rev_start = self.st.rev_start.expect("unzipped");
        self.st.cur = Some(rev_start);
        // The backward part, seeded with the result's derivative at the
        // `return` that ran.
        let tree = std::mem::take(&mut self.st.tree);
        let reversed = if self.st.zero { Ok(()) } else { self.reverse_seq(&tree) };
        self.st.tree = tree;
        reversed?;
        let write_back = std::mem::take(&mut self.st.write_back);
        for (pair, wb) in write_back {
            let g = match wb {
                WriteBack::Value(sp) => self.adj_value(sp),
                WriteBack::Memory(adj) => Some(self.load(adj)),
            };
            let d = self.pair_part(pair, 1);
            let g = match g {
                Some(g) => g,
                None => {
                    let t = self.module.types.pointee(self.st.b.ty(d)).expect("a pointer").0;
                    self.emit().zero(t)
                }
            };
            self.store(d, g);
        }
        let block = self.block();
        self.st.b.terminate(block, Terminator::Return(None));
        Ok(())
    }

    /// The normalized primal part alone, returning `f`'s result.
    pub(super) fn normalized(&mut self) -> Result<(), CodegenError> {
        let tree = structure(self.src).map_err(|e| self.error(format!("internal: {e}")))?;
        let prologue = self.st.b.new_block();
        debug_assert_eq!(prologue, PROLOGUE);
        let src_params = self.src.blocks[0].params.clone();
        for &p in &src_params {
            let t = self.src_ty(p);
            self.st.map[p.index()] = Some(self.st.b.add_block_param(PROLOGUE, t, self.st.span));
        }
        if !matches!(self.module.types.get(self.src.ret), Type::Void) {
            let rt = self.src.ret;
            self.st.ret_var = Some(self.var(rt, None));
        }
        let bool_ty = self.bool_ty();
        let no = self.st.b.inst(PROLOGUE, Op::Const(crate::ir::Const::Bool(false)), bool_ty, self.st.span);
        self.st.returned = Some(self.var(bool_ty, Some(no)));
        let main = self.st.b.new_block();
        self.st.cur = Some(main);
        self.primal_seq(&tree)?;
        let Some(end) = self.st.cur else { return Err(self.error("a function that never returns")) };
        let result = self.st.ret_var.map(|r| self.st.b.inst(end, Op::Load(r), self.src.ret, self.st.span));
        self.st.b.terminate(end, Terminator::Return(result));
        self.st.b.terminate(PROLOGUE, Terminator::Branch { target: main, args: Vec::new() });
        Ok(())
    }

    /// A pointer to part `index` (0: primal, 1: derivative) of the pair
    /// `pair` points to.
    pub(super) fn pair_part(&mut self, pair: ValueId, index: u32) -> ValueId {
        let (pt, _) = self.module.types.pointee(self.st.b.ty(pair)).expect("a pointer to a pair");
        let Type::DifferentialPair { primal, diff } = *self.module.types.get(pt) else { unreachable!("a pair") };
        let t = if index == 0 { primal } else { diff };
        let ptr = self.ptr_ty(t);
        self.inst(Op::FieldAddr(pair, index), ptr)
    }

    // ---- the primal part ----------------------------------------------------

    /// Copy a region. After a node with an exit inside (`return`, or a
    /// `break`/`continue` of the innermost loop), the rest of the region
    /// runs only if no exit ran.
    pub(super) fn primal_seq(&mut self, nodes: &[Node]) -> Result<(), CodegenError> {
        for (i, node) in nodes.iter().enumerate() {
            if i > 0 && has_exit(&nodes[i - 1]) && self.st.cur.is_some() {
                let go = self.no_exit_yet();
                let flag = match self.st.loop_stack.last().copied() {
                    Some(l) if self.st.loops[l].body == Some(&nodes[i] as *const Node) => Flag::NotLast(l),
                    _ => match exit_test(&nodes[i - 1]) {
                        Some((cond, go_when)) => Flag::Cond(cond, go_when),
                        None => Flag::Saved(self.save(go)),
                    },
                };
                self.st.splits.insert(&nodes[i - 1] as *const Node, flag);
                let (t, e, merge) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
                let block = self.block();
                self.st.b.terminate(block, Terminator::If { cond: go, then: t, els: e, merge });
                self.st.b.terminate(e, Terminator::Branch { target: merge, args: Vec::new() });
                self.st.depth += 1;
                self.st.cur = Some(t);
                self.primal_seq(&nodes[i..])?;
                if let Some(end) = self.st.cur {
                    self.st.b.terminate(end, Terminator::Branch { target: merge, args: Vec::new() });
                }
                self.st.depth -= 1;
                self.st.cur = Some(merge);
                return Ok(());
            }
            match node {
                Node::Block(b) => self.primal_block(*b)?,
                Node::Assign { target, args } => {
                    let params = self.src.block(*target).params.clone();
                    let values: Vec<ValueId> = args.iter().map(|a| self.use_of(*a)).collect();
                    for (p, v) in params.into_iter().zip(values) {
                        let var = self.param_var(p);
                        self.store(var, v);
                    }
                }
                Node::If { cond, then, els } => {
                    let c = self.use_of(*cond);
                    let (t, e, merge) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
                    let block = self.block();
                    self.st.b.terminate(block, Terminator::If { cond: c, then: t, els: e, merge });
                    self.st.depth += 1;
                    for (start, region) in [(t, then), (e, els)] {
                        self.st.cur = Some(start);
                        self.primal_seq(region)?;
                        if let Some(end) = self.st.cur {
                            self.st.b.terminate(end, Terminator::Branch { target: merge, args: Vec::new() });
                        }
                    }
                    self.st.depth -= 1;
                    self.st.cur = Some(merge);
                }
                Node::Switch { value, cases, default } => {
                    let v = self.use_of(*value);
                    let (bodies, brk) = self.open_switch(v, cases, default);
                    self.st.depth += 1;
                    // `break` sets a flag; the rest of the case after a
                    // node with a `break` inside is guarded by it, and every
                    // case ends at the break block.
                    let bool_ty = self.bool_ty();
                    let no = self.st.b.inst(PROLOGUE, Op::Const(crate::ir::Const::Bool(false)), bool_ty, self.st.span);
                    let flag = self.var(bool_ty, Some(no));
                    self.st.exits.push(Exit::Switch(flag));
                    for (start, body) in bodies {
                        self.st.cur = Some(start);
                        let f = self.inst(Op::Const(crate::ir::Const::Bool(false)), bool_ty);
                        self.store(flag, f);
                        self.primal_seq(body)?;
                        if let Some(end) = self.st.cur {
                            self.st.b.terminate(end, Terminator::Branch { target: brk, args: Vec::new() });
                        }
                    }
                    self.st.exits.pop();
                    self.st.depth -= 1;
                    self.st.cur = Some(brk);
                }
                Node::Break => match self.st.exits.last().copied() {
                    Some(Exit::Loop(l)) => {
                        let flag = self.st.loops[l].broke;
                        self.set_flag(flag);
                    }
                    Some(Exit::Switch(flag)) => self.set_flag(flag),
                    None => return Err(self.error("internal: `break` outside a loop or switch")),
                },
                Node::Continue => {
                    // (Through any `switch` around it.)
                    let Some(Exit::Loop(l)) = self.st.exits.iter().rev().find(|e| matches!(e, Exit::Loop(_))).copied()
                    else {
                        return Err(self.error("internal: `continue` outside a loop"));
                    };
                    let flag = self.st.loops[l].continued;
                    self.set_flag(flag);
                }
                Node::Return(v) => {
                    if let (Some(v), Some(var)) = (v, self.st.ret_var) {
                        let value = self.use_of(*v);
                        self.store(var, value);
                    }
                    let flag = self.st.returned.expect("the return flag");
                    self.set_flag(flag);
                    return Ok(());
                }
                Node::Loop { body, continuing, break_if } => self.primal_loop(node, body, continuing, *break_if)?,
                Node::Unreachable => {
                    let block = self.block();
                    self.st.b.terminate(block, Terminator::Unreachable);
                    self.st.cur = None;
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// End the current block with a `switch` on `v` over the cases'
    /// regions: each region's first block, and the break block.
    pub(super) fn open_switch<'n>(
        &mut self,
        v: ValueId,
        cases: &'n [(Vec<i64>, Vec<Node>)],
        default: &'n [Node],
    ) -> (Vec<(BlockId, &'n [Node])>, BlockId) {
        let brk = self.st.b.new_block();
        let mut labels = Vec::new();
        let mut bodies = Vec::new();
        for (values, body) in cases {
            let start = self.st.b.new_block();
            labels.extend(values.iter().map(|&k| (k, start)));
            bodies.push((start, body.as_slice()));
        }
        let default_start = self.st.b.new_block();
        bodies.push((default_start, default));
        let block = self.block();
        self.st.b.terminate(block, Terminator::Switch { value: v, cases: labels, default: default_start, brk });
        (bodies, brk)
    }

    pub(super) fn bool_ty(&mut self) -> TypeId {
        self.module.types.intern(Type::Scalar(slang_analysis::ty::Scalar::Bool))
    }

    pub(super) fn set_flag(&mut self, flag: ValueId) {
        let t = self.bool_ty();
        let yes = self.inst(Op::Const(crate::ir::Const::Bool(true)), t);
        self.store(flag, yes);
    }

    /// `!(returned || broke || continued)` for the innermost loop.
    pub(super) fn no_exit_yet(&mut self) -> ValueId {
        let t = self.bool_ty();
        let returned = self.st.returned.expect("the return flag");
        let mut any = self.load(returned);
        if let Some(Exit::Switch(flag)) = self.st.exits.last().copied() {
            let f = self.load(flag);
            any = self.inst(Op::Binary(BinaryOp::Or, any, f), t);
        }
        if let Some(Exit::Loop(l)) = self.st.exits.iter().rev().find(|e| matches!(e, Exit::Loop(_))).copied() {
            for flag in [self.st.loops[l].broke, self.st.loops[l].continued] {
                let f = self.load(flag);
                any = self.inst(Op::Binary(BinaryOp::Or, any, f), t);
            }
        }
        self.inst(Op::Unary(UnaryOp::Not, any), t)
    }

    /// A loop, normalized: the body with exits turned into flags, the
    /// continuing part when no `break`/`return` ran, and the exit test at
    /// the end of each iteration. Each iteration takes the next number of
    /// the loop's counter; values saved inside are indexed by it.
    pub(super) fn primal_loop(
        &mut self,
        node: &Node,
        body: &[Node],
        continuing: &[Node],
        break_if: Option<(ValueId, bool)>,
    ) -> Result<(), CodegenError> {
        let Some(header_block) = body.iter().find_map(|n| match n {
            Node::Block(b) => Some(*b),
            _ => None,
        }) else {
            return Err(self.error("internal: a loop without a header"));
        };
        let bound = self.src.max_iters.iter().find(|(h, _)| *h == header_block).map(|m| m.1);
        let Some(n) = bound.or(self.st.normalize_only.then_some(0)) else {
            return Err(self.error(
                "this loop needs `[MaxIters(n)]` (or a literal bound) for `bwd_diff` to size what it saves per iteration",
            ));
        };
        let parent_cap = self.st.loop_stack.last().map(|&l| self.st.loops[l].cap).unwrap_or(1);
        let cap = (n + 1).saturating_mul(parent_cap);
        if cap > 1 << 16 {
            return Err(self.error(format!("this loop would save {cap} iterations per value: lower its `[MaxIters]`")));
        }
        let int = self.module.types.intern(Type::Scalar(slang_analysis::ty::Scalar::Int32));
        let bool_ty = self.bool_ty();
        let counter = self.var(int, None);
        let no = self.st.b.inst(PROLOGUE, Op::Const(crate::ir::Const::Bool(false)), bool_ty, self.st.span);
        let broke = self.var(bool_ty, Some(no));
        let continued = self.var(bool_ty, Some(no));
        let l = self.st.loops.len();
        // The counter numbers the iterations of the loop: from zero in no
        // other loop, and from `stride` times the enclosing iteration's
        // number in one (so that the iterations of a nested loop index
        // saved values uniquely, and where each run of it starts is known
        // from the enclosing iteration's number rather than saved).
        self.st.loops.push(LoopInfo {
            cap,
            bound: n,
            index: None,
            broke,
            continued,
            before: None,
            after: None,
            continuing_ran: None,
            body: None,
            rev_not_last: None,
            parent: self.st.loop_stack.last().copied(),
            rev_index: None,
            rev_blocks: Vec::new(),
            end: None,
        });
        self.st.loop_of_node.insert(node as *const Node, l);
        // (A loop in no other one is reached at most once, with the
        // counter at zero: nothing to save. In one, `checkpoint` reads
        // the start from the enclosing iteration's number.)
        if let Some(&p) = self.st.loop_stack.last() {
            let outer = self.st.loops[p].index.expect("inside the enclosing loop");
            let stride = self.inst(Op::Const(crate::ir::Const::Int(i64::from(n) + 1)), int);
            let c0 = self.inst(Op::Binary(BinaryOp::Mul, outer, stride), int);
            self.store(counter, c0);
            self.st.loops[l].before = Some(self.save(c0));
        }
        let f = self.inst(Op::Const(crate::ir::Const::Bool(false)), bool_ty);
        self.store(broke, f);
        let (header, brk, cont) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        let block = self.block();
        self.st.b.terminate(block, Terminator::Loop { header, brk, cont, args: Vec::new() });
        if let Some(n) = bound {
            // (The normalized copy keeps the bound.)
            self.st.b.func.max_iters.push((header, n));
        }
        self.st.cur = Some(header);
        self.st.loop_stack.push(l);
        self.st.exits.push(Exit::Loop(l));
        let t = self.load(counter);
        let one = self.inst(Op::Const(crate::ir::Const::Int(1)), int);
        let next = self.inst(Op::Binary(BinaryOp::Add, t, one), int);
        self.store(counter, next);
        self.st.loops[l].index = Some(t);
        let f = self.inst(Op::Const(crate::ir::Const::Bool(false)), bool_ty);
        self.store(continued, f);
        // Whether the loop ends only at its exit test, with every exit of
        // its body before the first point after which nothing exits
        // ([`Flag::NotLast`]).
        let ends_at_test = break_if.is_none() && !continuing.iter().any(has_exit);
        if ends_at_test {
            let from = body.iter().rposition(has_exit).map_or(0, |i| i + 1);
            if !has_continue(&body[..from]) {
                self.st.loops[l].body = body.get(from).map(|n| n as *const Node);
            }
        }
        self.st.depth += 1;
        self.primal_seq(body)?;
        if self.st.cur.is_none() {
            return Err(self.error("internal: a loop body that does not end"));
        }
        // The continuing part, unless the iteration broke out or returned
        // (in the body: the loop's own continuing block only jumps back).
        let returned = self.st.returned.expect("the return flag");
        let r = self.load(returned);
        let bk = self.load(broke);
        let stop = self.inst(Op::Binary(BinaryOp::Or, r, bk), bool_ty);
        let go = self.inst(Op::Unary(UnaryOp::Not, stop), bool_ty);
        self.st.loops[l].continuing_ran = Some(match ends_at_test {
            true => Flag::NotLast(l),
            // (A `do … while` whose body neither breaks nor returns.)
            false if !body.iter().any(breaks_or_returns) => Flag::Always,
            false => Flag::Saved(self.save(go)),
        });
        let (t_b, e_b, merge) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        let here = self.block();
        self.st.b.terminate(here, Terminator::If { cond: go, then: t_b, els: e_b, merge });
        self.st.b.terminate(e_b, Terminator::Branch { target: merge, args: Vec::new() });
        self.st.cur = Some(t_b);
        self.primal_seq(continuing)?;
        if let Some((c, exit_when)) = break_if {
            // The `do … while` test: its exit is a `break`.
            let cv = self.use_of(c);
            let exit = if exit_when { cv } else { self.inst(Op::Unary(UnaryOp::Not, cv), bool_ty) };
            let old = self.load(broke);
            let now = self.inst(Op::Binary(BinaryOp::Or, old, exit), bool_ty);
            self.store(broke, now);
        }
        let end = self.block();
        self.st.b.terminate(end, Terminator::Branch { target: merge, args: Vec::new() });
        self.st.cur = Some(merge);
        self.st.depth -= 1;
        let r = self.load(returned);
        let bk = self.load(broke);
        let leave = self.inst(Op::Binary(BinaryOp::Or, r, bk), bool_ty);
        let (out_b, again_b, after) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        self.st.b.terminate(merge, Terminator::If { cond: leave, then: out_b, els: again_b, merge: after });
        self.st.b.terminate(out_b, Terminator::Branch { target: brk, args: Vec::new() });
        self.st.b.terminate(again_b, Terminator::Branch { target: cont, args: Vec::new() });
        self.st.b.terminate(cont, Terminator::Branch { target: header, args: Vec::new() });
        self.st.loop_stack.pop();
        self.st.exits.pop();
        self.st.cur = Some(brk);
        let c1 = self.load(counter);
        self.st.loops[l].after = Some(self.save(c1));
        // (After a loop whose body runs `n` times, the counter has counted
        // `n + 1` tests from its start; after one whose every iteration
        // leaves, one; in no other loop, from zero.)
        if !self.st.normalize_only {
            let pre = self
                .src
                .block_ids()
                .find(|&b| matches!(self.src.block(b).term, Terminator::Loop { header, .. } if header == header_block));
            let trip = pre.and_then(|pre| crate::unroll::exact_trip_count(self.src, &self.module.types, pre));
            let end = match always_leaves(body) {
                true => Some(1),
                false => trip.map(|n| n.saturating_add(1)),
            };
            self.st.loops[l].end = end;
            if let (Some(n), None) = (end, self.st.loops[l].parent) {
                if let Some(last) = self.st.saves.last_mut() {
                    last.constant = Some(crate::ir::Const::Int(i64::from(n)));
                }
            }
        }
        Ok(())
    }

    /// Save a value of the primal copy for the backward part.
    pub(super) fn save(&mut self, v: ValueId) -> Saved {
        if self.st.normalize_only {
            return Saved { var: v, lp: None };
        }
        let t = self.st.b.ty(v);
        let copies = self.st.loop_stack.last().map(|&l| self.st.loops[l].cap).unwrap_or(1);
        let bytes = crate::autodiff::checkpoint::save_bytes(&self.module.types, t, copies);
        match self.st.loop_stack.last().copied() {
            None => {
                let pt = self.ptr_ty(t);
                let var = self.st.b.inst(PROLOGUE, Op::Var, pt, self.st.span);
                self.store(var, v);
                self.st.saves.push(Save { var, bytes, origin: None, lp: None, constant: None });
                Saved { var, lp: None }
            }
            Some(l) => {
                let at = self.module.types.intern(Type::Array(t, self.st.loops[l].cap));
                let pat = self.ptr_ty(at);
                let var = self.st.b.inst(PROLOGUE, Op::Var, pat, self.st.span);
                let index = self.st.loops[l].index.expect("inside the loop");
                let pt = self.ptr_ty(t);
                let slot = self.inst(Op::ElementAddr(var, index), pt);
                self.store(slot, v);
                self.st.saves.push(Save { var, bytes, origin: None, lp: Some(l), constant: None });
                Saved { var, lp: Some(l) }
            }
        }
    }

    /// Save `new`, the primal copy of `f`'s value `v`, for the backward
    /// part (which [`crate::autodiff::checkpoint`] may recompute instead).
    pub(super) fn save_value(&mut self, v: ValueId, new: ValueId) -> Saved {
        let saved = self.save(new);
        if let Some(last) = self.st.saves.last_mut().filter(|s| s.var == saved.var) {
            last.origin = Some(v);
        }
        saved
    }

    /// What `inout` argument `k` of call `v` held before the call, where
    /// the backward part is being emitted.
    pub(super) fn pre_call(&mut self, v: ValueId, k: usize) -> ValueId {
        match self.st.pre_call[&(v, k)] {
            PreCall::Saved(s) => self.restore(s),
            PreCall::Value(x) => self.primal(x),
        }
    }

    /// A saved value, where the backward part is being emitted.
    pub(super) fn restore(&mut self, s: Saved) -> ValueId {
        match s.lp {
            None => self.load(s.var),
            Some(l) => {
                // Outside the loop's reverse (a value of the loop's header
                // used after the loop): the last iteration's.
                let index = match self.st.rev_index.get(&l) {
                    Some(&i) => i,
                    None => {
                        let after = self.st.loops[l].after.expect("a copied loop");
                        let end = self.restore(after);
                        let int = self.st.b.ty(end);
                        let one = self.inst(Op::Const(crate::ir::Const::Int(1)), int);
                        self.inst(Op::Binary(BinaryOp::Sub, end, one), int)
                    }
                };
                let (at, _) = self.module.types.pointee(self.st.b.ty(s.var)).expect("a pointer");
                let Type::Array(t, _) = *self.module.types.get(at) else { unreachable!("an array") };
                let pt = self.ptr_ty(t);
                let slot = self.inst(Op::ElementAddr(s.var, index), pt);
                self.load(slot)
            }
        }
    }

    pub(super) fn param_var(&mut self, p: ValueId) -> ValueId {
        if let Some(&v) = self.st.param_vars.get(&p) {
            return v;
        }
        let t = self.src_ty(p);
        let v = self.var(t, None);
        self.st.param_vars.insert(p, v);
        v
    }

    pub(super) fn mapped(&self, v: ValueId) -> ValueId {
        self.st.map[v.index()].expect("operands are copied before their uses")
    }

    /// The primal copy of `v` where the primal copy is being emitted.
    pub(super) fn use_of(&mut self, v: ValueId) -> ValueId {
        if let Some(&var) = self.st.param_vars.get(&v) {
            return self.load(var);
        }
        match self.st.pvar[v.index()] {
            Some(var) => self.load(var),
            None => self.mapped(v),
        }
    }

    pub(super) fn primal_block(&mut self, b: BlockId) -> Result<(), CodegenError> {
        let block = self.src.block(b).clone();
        // Everything the backward part reads comes from the context (the
        // backward-propagation function does not see the primal part's
        // values); what it does not read is dropped afterwards.
        let keep = true;
        if b != Function::ENTRY {
            for &p in &block.params {
                let var = self.param_var(p);
                let v = self.load(var);
                self.st.map[p.index()] = Some(v);
                if keep {
                    self.st.ckpt[p.index()] = Some(self.save_value(p, v));
                }
            }
        }
        for &v in &block.insts {
            let value = self.src.value(v);
            self.st.span = value.span.or(self.src.span);
            let ValueKind::Inst(op) = &value.kind else { continue };
            let mut op = op.clone();
            // `[PrimalSubstitute(s)]`: differentiated code computes `s` (a
            // plain call: the backward part calls the derivative of the
            // original callee, its own if it has one).
            let mut substituted = false;
            if let (Op::Call(f, _), false) = (&mut op, self.st.normalize_only) {
                if let Derivative::Substitute(s) = self.module.function(*f).derivative {
                    substituted = s != *f;
                    *f = s;
                }
            }
            let operands: HashMap<ValueId, ValueId> = op.operands().into_iter().map(|o| (o, self.use_of(o))).collect();
            if let (Op::Call(f, args), true) =
                (&op, self.st.active[v.index()] && !self.st.normalize_only && !substituted)
            {
                if let Some(new) = self.primal_call_with_context(v, *f, args, &operands, value.ty)? {
                    self.st.map[v.index()] = Some(new);
                    if self.st.depth > 0 {
                        let var = self.var(value.ty, None);
                        self.store(var, new);
                        self.st.pvar[v.index()] = Some(var);
                    }
                    if keep && !matches!(self.module.types.get(value.ty), Type::Void) {
                        self.st.ckpt[v.index()] = Some(self.save_value(v, new));
                    }
                    continue;
                }
            }
            if let (Op::Call(f, args), false) = (&op, self.st.normalize_only) {
                // What `inout` arguments hold before the call: the primal
                // inputs of the callee's backward derivative.
                let dirs: Vec<ParamDir> = self.module.function(*f).params.iter().map(|p| p.dir).collect();
                for (k, (&a, dir)) in args.iter().zip(dirs).enumerate() {
                    if dir == ParamDir::InOut {
                        let pre = match stored_before(self.src, v, a) {
                            Some(x) => PreCall::Value(x),
                            None => {
                                let before = self.load(operands[&a]);
                                PreCall::Saved(self.save(before))
                            }
                        };
                        self.st.pre_call.insert((v, k), pre);
                    }
                }
            }
            op.map_operands(|o| operands[&o]);
            let new = self.inst(op, value.ty);
            self.st.map[v.index()] = Some(new);
            let is_value = !matches!(
                self.module.types.get(value.ty),
                Type::Void | Type::Ptr(..) | Type::Texture(..) | Type::Sampler
            );
            if self.st.depth > 0 && is_value {
                let var = self.var(value.ty, None);
                self.store(var, new);
                self.st.pvar[v.index()] = Some(var);
            }
            // Saved for the backward part when defined in a branch or a
            // loop (the backward part is not dominated by it).
            if keep && is_value && !matches!(self.src.op(v), Some(Op::Const(_))) {
                self.st.ckpt[v.index()] = Some(self.save_value(v, new));
            }
        }
        Ok(())
    }

    /// A call of a differentiable function in the primal part, made as a
    /// call of its primal-context function (transcribed now if need be),
    /// whose context is saved for the backward part (`None`: a plain call
    /// — a `[PreferRecompute]` callee, a pure one (computing from its
    /// arguments alone, [`crate::autodiff::checkpoint::recomputable_callee`],
    /// as the reference compiler recomputes calls of functions that read
    /// no memory), one called in a loop (a context per iteration would be
    /// saved; unless `[PreferCheckpoint]`), one with a user-written
    /// backward derivative or `out`/`inout` parameters, whose backward
    /// derivative recomputes its primal).
    pub(super) fn primal_call_with_context(
        &mut self,
        v: ValueId,
        f: FuncId,
        args: &[ValueId],
        operands: &HashMap<ValueId, ValueId>,
        ret: TypeId,
    ) -> Result<Option<ValueId>, CodegenError> {
        let callee = self.module.function(f).clone();
        if callee.derivative != Derivative::Transcribe
            || callee.backward.is_some()
            || callee.prefer_recompute
            || (!self.st.loop_stack.is_empty() && !callee.prefer_checkpoint)
            || callee.params.iter().any(|p| p.dir != ParamDir::In)
            || crate::autodiff::checkpoint::recomputable_callee(self.module, f)
            || self.requests.in_progress.contains(&f)
            || self.requests.no_extract
        {
            return Ok(None);
        }
        let bwd = backward_derivative(self.module, self.requests, f).map_err(|m| self.error(m))?;
        if !self.requests.extracted.contains_key(&bwd) {
            self.requests.in_progress.push(f);
            // (Within the caller's transcription: no cancellation here.)
            let done = transcribe_and_extract(self.module, self.requests, f, bwd, &|| {});
            self.requests.in_progress.retain(|&g| g != f);
            done?;
        }
        let ext = self.requests.extracted[&bwd];
        let (_, param_map, ret_diff) = backward_signature(&mut self.module.types, &callee);
        let params = self.module.function(ext.primal).params.clone();
        let mut call_args = vec![None; params.len()];
        for (&a, pm) in args.iter().zip(&param_map) {
            match *pm {
                ParamMap::Pair(i) => {
                    let (pair_ty, _) = self.module.types.pointee(params[i].ty).expect("a pair pointer");
                    let Type::DifferentialPair { diff, .. } = *self.module.types.get(pair_ty) else {
                        unreachable!("a pair")
                    };
                    let z = self.emit().zero(diff);
                    let init = self.inst(Op::Construct(vec![operands[&a], z]), pair_ty);
                    let var = self.var(pair_ty, None);
                    self.store(var, init);
                    call_args[i] = Some(var);
                }
                ParamMap::Value(i) => call_args[i] = Some(operands[&a]),
                ParamMap::PtrPair(i) => call_args[i] = Some(self.ptr_pair_arg(a, operands[&a])),
                ParamMap::OutGrad(_) | ParamMap::Dropped => return Ok(None),
            }
        }
        if let Some(d) = ret_diff {
            let z = self.emit().zero(d);
            call_args[params.len() - 2] = Some(z);
        }
        let ctx = self.var(ext.context, None);
        *call_args.last_mut().expect("the context") = Some(ctx);
        let call_args: Vec<ValueId> = call_args.into_iter().map(|a| a.expect("every argument")).collect();
        let r = self.inst(Op::Call(ext.primal, call_args), ret);
        // (An empty context — the callee saves nothing — is not saved:
        // the backward part passes an empty one.)
        let saved = match self.requests.context.get(&bwd) {
            Some(&(_, 0)) => None,
            _ => {
                let c = self.load(ctx);
                Some(self.save(c))
            }
        };
        self.st.call_ctx.insert(v, (ext, saved));
        Ok(Some(r))
    }

    /// The `DifferentialPtrPair` to pass for `f`'s value `a` (primal `v`):
    /// the pair `f` was given for it, or (a pointer-like value made inside
    /// `f`) the value as its own derivative location.
    pub(super) fn ptr_pair_arg(&mut self, a: ValueId, v: ValueId) -> ValueId {
        if let Some(&pair) = self.st.ptr_pairs.get(&a) {
            return pair;
        }
        let t = self.st.b.ty(v);
        let pair = self.module.types.ptr_pair(t).expect("a pointer-like differentiable type");
        self.inst(Op::Construct(vec![v, v]), pair)
    }

    /// The primal value of `v` where the backward part is being emitted:
    /// constants are emitted again, other values read from where the
    /// primal part saved them (the checkpointing pass then recomputes
    /// the cheap ones instead).
    pub(super) fn primal(&mut self, v: ValueId) -> ValueId {
        if let Some(Op::Const(c)) = self.src.op(v) {
            let c = *c;
            return self.inst(Op::Const(c), self.src_ty(v));
        }
        if let Some(saved) = self.st.ckpt[v.index()] {
            return self.restore(saved);
        }
        self.mapped(v)
    }
}

/// The value of `f` that local variable `a` holds when call `v` runs, when
/// `store a, x` precedes the call in its block with nothing in between
/// that may write the variable (a store into it or a part of it, a call or
/// other instruction given its address): `x`, which the backward part
/// reads (or recomputes) rather than a copy saved at the call.
fn stored_before(src: &Function, v: ValueId, a: ValueId) -> Option<ValueId> {
    if !matches!(src.op(a), Some(Op::Var)) {
        return None;
    }
    let root = |mut p: ValueId| loop {
        match src.op(p) {
            Some(&(Op::FieldAddr(b, _) | Op::ElementAddr(b, _))) => p = b,
            _ => return p,
        }
    };
    let block = src.blocks.iter().find(|b| b.insts.contains(&v))?;
    let at = block.insts.iter().position(|&i| i == v)?;
    for &w in block.insts[..at].iter().rev() {
        match src.op(w)? {
            &Op::Store { ptr, value } if ptr == a => return Some(value),
            &Op::Store { ptr, value } => {
                if root(ptr) == a || root(value) == a {
                    return None;
                }
            }
            Op::Load(_) | Op::FieldAddr(..) | Op::ElementAddr(..) => {}
            op => {
                if op.operands().into_iter().any(|o| root(o) == a) {
                    return None;
                }
            }
        }
    }
    None
}
