//! Transposition of single instructions: memory, structural and
//! arithmetic instructions (through their linearization) and calls
//! of differentiable functions (through their backward derivatives).

use rustc_hash::FxHashMap as HashMap;

use super::*;

impl Rev<'_> {
    /// Propagate the adjoint of instruction `v` to its operands.
    pub(super) fn transpose(&mut self, v: ValueId) -> Result<(), CodegenError> {
        let Some(op) = self.src.op(v).cloned() else { return Ok(()) };
        match op {
            Op::Store { ptr, value } => {
                let Some(a) = self.adj_ptr(ptr) else { return Ok(()) };
                let g = self.load(a);
                let t = self.st.b.ty(g);
                let z = self.emit().zero(t);
                self.store(a, z);
                self.add_adj(value, g)
            }
            Op::Call(f, args) => self.transpose_call(v, f, &args),
            _ => {
                let Some(g) = self.adj_value(v) else { return Ok(()) };
                // Consumed: inside a loop, the same value of the previous
                // iteration starts from zero.
                if !self.st.loop_stack.is_empty() {
                    let var = self.st.adj[&v];
                    let t = self.st.b.ty(g);
                    let z = self.emit().zero(t);
                    self.store(var, z);
                }
                self.transpose_value(v, op, g)
            }
        }
    }

    pub(super) fn transpose_value(&mut self, v: ValueId, op: Op, g: ValueId) -> Result<(), CodegenError> {
        let vt = self.src_ty(v);
        match op {
            Op::Load(p) => {
                if let Some(a) = self.adj_ptr(p) {
                    self.accumulate(a, g)?;
                }
                Ok(())
            }
            Op::Construct(parts) => {
                match self.module.types.get(vt).clone() {
                    Type::Vector(s, _) => {
                        let mut offset = 0u32;
                        for p in parts {
                            let pt = self.src_ty(p);
                            let n = match self.module.types.get(pt) {
                                Type::Vector(_, m) => *m as u32,
                                _ => 1,
                            };
                            let part = if n == 1 {
                                let st = self.module.types.intern(Type::Scalar(s));
                                self.inst(Op::Extract(g, offset), st)
                            } else {
                                let t = self.module.types.intern(Type::Vector(s, n as u8));
                                self.inst(Op::Swizzle(g, (offset as u8..(offset + n) as u8).collect()), t)
                            };
                            self.add_adj(p, part)?;
                            offset += n;
                        }
                    }
                    Type::Struct { .. } => {
                        let map = self.module.types.struct_diff(vt).map(|d| d.fields.clone()).unwrap_or_default();
                        let gt = self.st.b.ty(g);
                        for (i, p) in parts.into_iter().enumerate() {
                            if let Some(Some(j)) = map.get(i) {
                                let et = self.module.types.element(gt, *j).expect("a field");
                                let et = self.module.types.intern(et);
                                let part = self.inst(Op::Extract(g, *j), et);
                                self.add_adj(p, part)?;
                            }
                        }
                    }
                    _ => {
                        let gt = self.st.b.ty(g);
                        for (i, p) in parts.into_iter().enumerate() {
                            let et = self.module.types.element(gt, i as u32).expect("a part");
                            let et = self.module.types.intern(et);
                            let part = self.inst(Op::Extract(g, i as u32), et);
                            self.add_adj(p, part)?;
                        }
                    }
                }
                Ok(())
            }
            Op::Extract(x, i) => {
                if let Some(ptr) = self.adj_part_ptr(x, Part::Const(i)) {
                    self.accumulate(ptr, g)?;
                }
                Ok(())
            }
            Op::ExtractDynamic(x, idx) => {
                let i = self.primal(idx);
                if let Some(ptr) = self.adj_part_ptr(x, Part::Dynamic(i)) {
                    self.accumulate(ptr, g)?;
                }
                Ok(())
            }
            Op::Swizzle(x, comps) => {
                let gt = self.st.b.ty(g);
                let st = match self.module.types.get(gt) {
                    Type::Vector(s, _) => self.module.types.intern(Type::Scalar(*s)),
                    _ => gt,
                };
                for (k, c) in comps.into_iter().enumerate() {
                    let part = self.inst(Op::Extract(g, k as u32), st);
                    if let Some(ptr) = self.adj_part_ptr(x, Part::Const(c as u32)) {
                        self.accumulate(ptr, part)?;
                    }
                }
                Ok(())
            }
            Op::Splat(x) => {
                let s = self.sum(g);
                self.add_adj(x, s)
            }
            Op::Convert(x) => {
                let Some(d) = self.differential(self.src_ty(x)) else { return Ok(()) };
                let c = self.inst(Op::Convert(g), d);
                self.add_adj(x, c)
            }
            Op::Select(c, a, b) => {
                let c = self.primal(c);
                let t = self.st.b.ty(g);
                let z = self.emit().zero(t);
                let ga = self.inst(Op::Select(c, g, z), t);
                let gb = self.inst(Op::Select(c, z, g), t);
                self.add_adj(a, ga)?;
                self.add_adj(b, gb)
            }
            Op::Binary(..) | Op::Unary(..) | Op::Intrinsic(..) => self.transpose_arith(v, op, g),
            // No derivative flows through these.
            _ => Ok(()),
        }
    }

    /// Linearize `v = op(x…)` with the forward rules into a scratch
    /// function, then replay its primal part and transpose its
    /// differential part.
    pub(super) fn transpose_arith(&mut self, v: ValueId, op: Op, g: ValueId) -> Result<(), CodegenError> {
        let operands = op.operands();
        // The instruction's linearization ([`linearize`]).
        let lin = self.st.lin.clone();
        let seg = match lin.segment(v) {
            None => return Ok(()),
            Some(Err((_, m))) => return Err(self.error(m.clone())),
            Some(Ok(seg)) => seg,
        };
        let (pp, dp, rp, insts) = (&seg.primal_operands, &seg.diff_operands, seg.result, &seg.insts);
        let Some(out) = seg.out else { return Ok(()) };
        let sb = &lin.func;
        let is_diff = &lin.differential;
        // Replay the primal instructions (reading only the primal operands
        // the rule uses, so that nothing else needs saving).
        let used: rustc_hash::FxHashSet<ValueId> =
            insts.iter().filter_map(|&i| sb.op(i)).flat_map(|op| op.operands()).collect();
        let mut pmap: HashMap<ValueId, ValueId> = HashMap::default();
        for (k, &o) in operands.iter().enumerate() {
            if used.contains(&pp[k]) {
                let p = self.primal(o);
                pmap.insert(pp[k], p);
            }
        }
        if used.contains(&rp) {
            let r = self.primal(v);
            pmap.insert(rp, r);
        }
        for &i in insts {
            if is_diff[i.index()] {
                continue;
            }
            let mut op = sb.op(i).expect("an instruction").clone();
            op.map_operands(|o| pmap[&o]);
            let t = sb.value(i).ty;
            let new = self.inst(op, t);
            pmap.insert(i, new);
        }
        if !is_diff[out.index()] {
            // A constant derivative (zero): nothing flows back.
            return Ok(());
        }
        // Transpose the differential instructions, last first.
        let mut ladj: HashMap<ValueId, ValueId> = HashMap::default();
        ladj.insert(out, g);
        for &i in insts.iter().rev() {
            if !is_diff[i.index()] {
                continue;
            }
            let Some(a) = ladj.remove(&i) else { continue };
            let op = sb.op(i).expect("an instruction").clone();
            let p = |o: ValueId| pmap.get(&o).copied();
            let contributions: Vec<(ValueId, ValueId)> = match op {
                Op::Binary(BinaryOp::Add, x, y) => {
                    [x, y].into_iter().filter(|o| is_diff[o.index()]).map(|o| (o, a)).collect()
                }
                Op::Binary(BinaryOp::Sub, x, y) => {
                    let mut c = Vec::new();
                    if is_diff[x.index()] {
                        c.push((x, a));
                    }
                    if is_diff[y.index()] {
                        let t = self.st.b.ty(a);
                        c.push((y, self.inst(Op::Unary(UnaryOp::Neg, a), t)));
                    }
                    c
                }
                Op::Binary(BinaryOp::Mul, x, y) => {
                    let (d, k) = if is_diff[x.index()] { (x, y) } else { (y, x) };
                    let k = p(k).ok_or_else(|| self.error("internal: a product of two differentials"))?;
                    vec![(d, self.emit().bin(BinaryOp::Mul, a, k))]
                }
                Op::Binary(BinaryOp::Div, x, y) if is_diff[x.index()] && !is_diff[y.index()] => {
                    let k = p(y).expect("a primal divisor");
                    vec![(x, self.emit().bin(BinaryOp::Div, a, k))]
                }
                Op::Unary(UnaryOp::Neg, x) => {
                    let t = self.st.b.ty(a);
                    vec![(x, self.inst(Op::Unary(UnaryOp::Neg, a), t))]
                }
                Op::Splat(x) => vec![(x, self.sum(a))],
                Op::Select(c, x, y) => {
                    let c = p(c).expect("a primal condition");
                    let t = self.st.b.ty(a);
                    let z = self.emit().zero(t);
                    let mut out = Vec::new();
                    if is_diff[x.index()] {
                        out.push((x, self.inst(Op::Select(c, a, z), t)));
                    }
                    if is_diff[y.index()] {
                        out.push((y, self.inst(Op::Select(c, z, a), t)));
                    }
                    out
                }
                Op::Extract(x, k) => {
                    let xt = sb.value(x).ty;
                    vec![(x, self.one_hot(a, k, xt))]
                }
                // (A rule that works row by row, on a matrix.)
                Op::Construct(parts) => {
                    let mut out = Vec::new();
                    for (k, part) in parts.into_iter().enumerate() {
                        if is_diff[part.index()] {
                            let t = sb.value(part).ty;
                            out.push((part, self.inst(Op::Extract(a, k as u32), t)));
                        }
                    }
                    out
                }
                Op::Intrinsic(Intrinsic::Dot, args) => {
                    let (d, k) = if is_diff[args[0].index()] { (args[0], args[1]) } else { (args[1], args[0]) };
                    let k = p(k).expect("a primal operand");
                    vec![(d, self.emit().bin(BinaryOp::Mul, a, k))]
                }
                Op::Intrinsic(Intrinsic::Cross, args) => {
                    let t = sb.value(args[0]).ty;
                    if is_diff[args[0].index()] {
                        let y = p(args[1]).expect("a primal operand");
                        vec![(args[0], self.inst(Op::Intrinsic(Intrinsic::Cross, vec![y, a]), t))]
                    } else {
                        let x = p(args[0]).expect("a primal operand");
                        vec![(args[1], self.inst(Op::Intrinsic(Intrinsic::Cross, vec![a, x]), t))]
                    }
                }
                Op::Intrinsic(Intrinsic::Transpose, args) => {
                    let t = sb.value(args[0]).ty;
                    vec![(args[0], self.inst(Op::Intrinsic(Intrinsic::Transpose, vec![a]), t))]
                }
                Op::Intrinsic(Intrinsic::Mul, args) => {
                    let (x, y) = (args[0], args[1]);
                    let (xt, yt) = (sb.value(x).ty, sb.value(y).ty);
                    if is_diff[x.index()] {
                        let yp = p(y).expect("a primal operand");
                        vec![(x, self.mul_adjoint_left(a, yp, xt)?)]
                    } else {
                        let xp = p(x).expect("a primal operand");
                        vec![(y, self.mul_adjoint_right(a, xp, yt)?)]
                    }
                }
                other => {
                    return Err(self.error(format!(
                        "internal: no transpose for the linear instruction {other:?} of a derivative rule"
                    )))
                }
            };
            for (o, c) in contributions {
                let t = sb.value(o).ty;
                let c = self.coerce_to(c, t)?;
                let sum = match ladj.remove(&o) {
                    Some(prev) => self.dadd(prev, c, t)?,
                    None => c,
                };
                ladj.insert(o, sum);
            }
        }
        for (k, &o) in operands.iter().enumerate() {
            if let Some(d) = dp[k] {
                if let Some(a) = ladj.remove(&d) {
                    self.add_adj(o, a)?;
                }
            }
        }
        Ok(())
    }

    /// A value of type `t` that is `a` at part `k` and zero elsewhere.
    pub(super) fn one_hot(&mut self, a: ValueId, k: u32, t: TypeId) -> ValueId {
        let n = match self.module.types.get(t) {
            Type::Vector(_, n) => *n as u32,
            Type::Matrix { rows, .. } => *rows as u32,
            Type::Array(_, n) => *n,
            _ => return a,
        };
        let at = self.st.b.ty(a);
        let parts = (0..n).map(|i| if i == k { a } else { self.emit().zero(at) }).collect();
        self.inst(Op::Construct(parts), t)
    }

    /// The adjoint of `x` in `mul(x, y)` (`y` primal) given the result's
    /// adjoint `a`.
    pub(super) fn mul_adjoint_left(&mut self, a: ValueId, y: ValueId, xt: TypeId) -> Result<ValueId, CodegenError> {
        let yt = self.st.b.ty(y);
        match (self.module.types.get(xt).clone(), self.module.types.get(yt).clone()) {
            // mul(M, v): dM = outer(a, v).
            (Type::Matrix { .. }, Type::Vector(..)) => Ok(self.outer(a, y, xt)),
            // mul(v, M) = Mᵀv: dv = mul(M, a).
            (Type::Vector(..), Type::Matrix { .. }) => Ok(self.inst(Op::Intrinsic(Intrinsic::Mul, vec![y, a]), xt)),
            // mul(A, B): dA = mul(a, Bᵀ).
            (Type::Matrix { .. }, Type::Matrix { scalar, rows, cols }) => {
                let bt = self.module.types.intern(Type::Matrix { scalar, rows: cols, cols: rows });
                let yt = self.inst(Op::Intrinsic(Intrinsic::Transpose, vec![y]), bt);
                Ok(self.inst(Op::Intrinsic(Intrinsic::Mul, vec![a, yt]), xt))
            }
            _ => Err(self.error("the backward derivative of this `mul` is not supported yet")),
        }
    }

    /// The adjoint of `y` in `mul(x, y)` (`x` primal).
    pub(super) fn mul_adjoint_right(&mut self, a: ValueId, x: ValueId, yt: TypeId) -> Result<ValueId, CodegenError> {
        let xt = self.st.b.ty(x);
        match (self.module.types.get(xt).clone(), self.module.types.get(yt).clone()) {
            // mul(M, v): dv = mul(a, M).
            (Type::Matrix { .. }, Type::Vector(..)) => Ok(self.inst(Op::Intrinsic(Intrinsic::Mul, vec![a, x]), yt)),
            // mul(v, M): dM = outer(v, a).
            (Type::Vector(..), Type::Matrix { .. }) => Ok(self.outer(x, a, yt)),
            // mul(A, B): dB = mul(Aᵀ, a).
            (Type::Matrix { scalar, rows, cols }, Type::Matrix { .. }) => {
                let at = self.module.types.intern(Type::Matrix { scalar, rows: cols, cols: rows });
                let xt = self.inst(Op::Intrinsic(Intrinsic::Transpose, vec![x]), at);
                Ok(self.inst(Op::Intrinsic(Intrinsic::Mul, vec![xt, a]), yt))
            }
            _ => Err(self.error("the backward derivative of this `mul` is not supported yet")),
        }
    }

    /// The matrix whose row `i` is `u[i] * v`.
    pub(super) fn outer(&mut self, u: ValueId, v: ValueId, t: TypeId) -> ValueId {
        let Type::Matrix { scalar, rows, .. } = *self.module.types.get(t) else { unreachable!("a matrix") };
        let st = self.module.types.intern(Type::Scalar(scalar));
        let rows = (0..rows as u32)
            .map(|i| {
                let ui = self.inst(Op::Extract(u, i), st);
                self.emit().bin(BinaryOp::Mul, ui, v)
            })
            .collect();
        self.inst(Op::Construct(rows), t)
    }

    /// A call: of a differentiable function, a call of its backward
    /// derivative with the arguments' primal values (in pairs) and the
    /// result's adjoint; the pairs' derivatives are added to the
    /// arguments'.
    pub(super) fn transpose_call(&mut self, v: ValueId, f: FuncId, args: &[ValueId]) -> Result<(), CodegenError> {
        let callee = self.module.function(f).clone();
        if callee.backward.is_none() && matches!(callee.derivative, Derivative::None | Derivative::Zero) {
            return Ok(());
        }
        let g = self.adj_value(v);
        if let (Some(g), false) = (g, self.st.loop_stack.is_empty()) {
            // Consumed (see `transpose`).
            let var = self.st.adj[&v];
            let t = self.st.b.ty(g);
            let z = self.emit().zero(t);
            self.store(var, z);
        }
        let any_diff_arg = callee.params.iter().zip(args).any(|(p, &a)| {
            let t = self.src_ty(a);
            let value = self.module.types.pointee(t).map(|(t, _)| t).unwrap_or(t);
            !p.no_diff && self.differential(value).is_some()
        });
        if g.is_none() && !any_diff_arg {
            return Ok(());
        }
        // With the callee's context saved in the primal part: its
        // backward-propagation function, with the context last.
        let nested = self.st.call_ctx.get(&v).copied();
        let bwd = match nested {
            Some((ext, _)) => ext.prop,
            None => backward_derivative(self.module, self.requests, f).map_err(|m| self.error(m))?,
        };
        let (_, param_map, ret_diff) = backward_signature(&mut self.module.types, &callee);
        let mut bwd_params = self.module.function(bwd).params.clone();
        if nested.is_some() {
            bwd_params.pop();
        }
        let mut call_args = vec![None; bwd_params.len()];
        // (argument, pair variable, derivative type, whether the argument
        // is an `inout` pointer whose adjoint storage takes the result).
        let mut pairs = Vec::new();
        for (k, (&a, pm)) in args.iter().zip(&param_map).enumerate() {
            let dir = callee.params[k].dir;
            match (*pm, dir) {
                (ParamMap::Pair(i), ParamDir::In) => {
                    let (pair_ty, _) = self.module.types.pointee(bwd_params[i].ty).expect("a pair pointer");
                    let Type::DifferentialPair { diff, .. } = *self.module.types.get(pair_ty) else {
                        unreachable!("a pair")
                    };
                    let p = self.primal(a);
                    let z = self.emit().zero(diff);
                    let init = self.inst(Op::Construct(vec![p, z]), pair_ty);
                    let var = self.var(pair_ty, None);
                    self.store(var, init);
                    call_args[i] = Some(var);
                    pairs.push((a, var, diff, false));
                }
                (ParamMap::Pair(i), _) => {
                    // `inout`: the value before the call, and the adjoint
                    // of the value after it (taken from the argument's
                    // storage).
                    let (pair_ty, _) = self.module.types.pointee(bwd_params[i].ty).expect("a pair pointer");
                    let Type::DifferentialPair { diff, .. } = *self.module.types.get(pair_ty) else {
                        unreachable!("a pair")
                    };
                    let p = self.pre_call(v, k);
                    let d = match self.adj_ptr(a) {
                        Some(ap) => self.load(ap),
                        None => self.emit().zero(diff),
                    };
                    let init = self.inst(Op::Construct(vec![p, d]), pair_ty);
                    let var = self.var(pair_ty, None);
                    self.store(var, init);
                    call_args[i] = Some(var);
                    pairs.push((a, var, diff, true));
                }
                (ParamMap::OutGrad(i), _) => {
                    // The adjoint of what the call wrote; what was there
                    // before is overwritten (its adjoint is zero).
                    let d = bwd_params[i].ty;
                    let g = match self.adj_ptr(a) {
                        Some(ap) => {
                            let g = self.load(ap);
                            let z = self.emit().zero(d);
                            self.store(ap, z);
                            g
                        }
                        None => self.emit().zero(d),
                    };
                    call_args[i] = Some(g);
                }
                (ParamMap::Value(i), ParamDir::In) => call_args[i] = Some(self.primal(a)),
                (ParamMap::PtrPair(i), _) => {
                    let v = self.primal(a);
                    call_args[i] = Some(self.ptr_pair_arg(a, v));
                }
                (ParamMap::Value(i), _) => {
                    call_args[i] = Some(self.pre_call(v, k));
                }
                (ParamMap::Dropped, _) => {}
            }
        }
        if let Some(d) = ret_diff {
            let g = match g {
                Some(g) => self.coerce_to(g, d)?,
                None => self.emit().zero(d),
            };
            *call_args.last_mut().expect("the result's derivative") = Some(g);
        }
        let mut call_args: Vec<ValueId> = call_args.into_iter().map(|a| a.expect("every argument")).collect();
        match nested {
            Some((_, Some(saved))) => call_args.push(self.restore(saved)),
            Some((ext, None)) => call_args.push(self.emit().zero(ext.context)),
            None => {}
        }
        let void = self.module.types.intern(Type::Void);
        self.inst(Op::Call(bwd, call_args), void);
        for (a, var, diff, inout) in pairs {
            let pair = self.load(var);
            let d = self.inst(Op::Extract(pair, 1), diff);
            if inout {
                // The adjoint of the value before the call replaces that
                // of the value after it.
                if let Some(ap) = self.adj_ptr(a) {
                    self.store(ap, d);
                }
            } else {
                self.add_adj(a, d)?;
            }
        }
        Ok(())
    }
}
