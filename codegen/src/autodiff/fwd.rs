//! Forward-mode transcription: the body of `f`'s derivative `s_fwd_f`,
//! built instruction by instruction from `f`'s (as the Slang compiler's
//! `ForwardDiffTranscriber` does).
//!
//! Every value `v` of `f` maps to its primal `P[v]` in the derivative and
//! its differential `D[v]` (`None`: zero, or `v` is not differentiable).
//! Pointers map to a primal pointer and a pointer to the derivative
//! storage, so locals that SSA construction left in memory, and
//! `out`/`inout` parameters (pointers to pairs, split with `FieldAddr`),
//! are differentiated by their loads and stores. Block parameters of a
//! differentiable type get a companion parameter for their differential
//! (after the primal ones), and every edge passes both.
//!
//! Calls of differentiable functions become calls of their forward
//! derivatives (requested, so transcribed later by the same loop), with
//! arguments paired and results split; calls of functions that are not
//! differentiable keep their primal and give zero derivatives. A
//! `[TreatAsDifferentiable]` function's derivative is its body with every
//! derivative zero.
//!
//! Example (`float f(float x) { return x * x; }`):
//! ```text
//! func s_fwd_f(x: DifferentialPair<float>) -> DifferentialPair<float> {
//! b0(%0: DifferentialPair<float>):
//!   %1: float = extract %0, 0
//!   %2: float = extract %0, 1
//!   %3: float = mul %1, %1
//!   %4: float = mul %1, %2
//!   %5: float = mul %1, %2
//!   %6: float = add %4, %5
//!   %7: DifferentialPair<float> = construct %3, %6
//!   return %7
//! }
//! ```

use crate::autodiff::rules::{self, Emit};
use crate::autodiff::{diff_ptr_type, forward_derivative, Requests};
use crate::ir::{
    BlockId, Derivative, FuncId, Function, FunctionBuilder, Module, Op, ParamDir, Terminator, Type, TypeId, ValueId,
    ValueKind,
};
use crate::CodegenError;

/// Transcribe every requested derivative, and those they request in
/// turn, until none remain.
pub fn run(module: &mut Module, requests: &mut Requests) -> Result<(), CodegenError> {
    // Derivatives of functions not transcribed yet (`fwd_diff(bwd_diff(f))`:
    // the backward derivative comes from reverse mode) wait for a later
    // round.
    let mut waiting = Vec::new();
    while let Some((primal, derivative)) = requests.pop() {
        if module.function(primal).blocks.is_empty() {
            waiting.push((primal, derivative));
            continue;
        }
        let src = module.function(primal).clone();
        let target = std::mem::replace(
            &mut module.functions[derivative.index()],
            FunctionBuilder::new(String::new(), TypeId(0), None).finish(),
        );
        let mut t = Transcriber {
            module: &mut *module,
            requests: &mut *requests,
            zero: src.derivative == Derivative::Zero,
            src: &src,
            b: FunctionBuilder { func: target },
            primal: vec![None; src.values.len()],
            diff: vec![None; src.values.len()],
            ptr_diffs: rustc_hash::FxHashMap::default(),
            block: BlockId(0),
            span: src.span,
        };
        let result = t.function();
        module.functions[derivative.index()] = t.b.finish();
        result?;
    }
    for w in waiting {
        requests.defer(w);
    }
    Ok(())
}

struct Transcriber<'a> {
    module: &'a mut Module,
    requests: &'a mut Requests,
    src: &'a Function,
    /// Every derivative is zero (`[TreatAsDifferentiable]`).
    zero: bool,
    b: FunctionBuilder,
    /// `P[v]`.
    primal: Vec<Option<ValueId>>,
    /// `D[v]`.
    diff: Vec<Option<ValueId>>,
    /// The derivative location of each `IDifferentiablePtrType` parameter.
    ptr_diffs: rustc_hash::FxHashMap<ValueId, ValueId>,
    /// The block being appended to.
    block: BlockId,
    span: Option<slang_analysis::TextRange>,
}

impl Transcriber<'_> {
    fn emit(&mut self) -> Emit<'_> {
        Emit { types: &mut self.module.types, b: &mut self.b, block: self.block, span: self.span }
    }

    fn inst(&mut self, op: Op, ty: TypeId) -> ValueId {
        self.b.inst(self.block, op, ty, self.span)
    }

    fn error(&self, message: impl Into<String>) -> CodegenError {
        CodegenError { file: None, range: self.span.or(self.src.span), message: message.into() }
    }

    fn p(&self, v: ValueId) -> ValueId {
        self.primal[v.index()].expect("operands are transcribed before their uses")
    }

    fn d(&self, v: ValueId) -> Option<ValueId> {
        self.diff[v.index()]
    }

    fn src_ty(&self, v: ValueId) -> TypeId {
        self.src.value(v).ty
    }

    /// `T.Differential` of a type of the primal function.
    fn differential(&mut self, t: TypeId) -> Option<TypeId> {
        self.module.types.differential(t)
    }

    /// `D[v]`, or a zero of its type.
    fn d_or_zero(&mut self, v: ValueId) -> ValueId {
        match self.d(v) {
            Some(d) => d,
            None => {
                let t = self.differential(self.src_ty(v)).expect("a differentiable value");
                self.emit().zero(t)
            }
        }
    }

    /// Whether a block parameter of type `t` gets a differential companion.
    fn has_companion(&mut self, t: TypeId) -> bool {
        !self.zero && self.differential(t).is_some()
    }

    fn function(&mut self) -> Result<(), CodegenError> {
        let src = self.src;
        // Same block ids as the primal (so loop bounds carry over).
        self.b.func.max_iters = src.max_iters.clone();
        for b in src.block_ids() {
            let nb = self.b.new_block();
            debug_assert_eq!(nb, b);
            if b == Function::ENTRY {
                continue;
            }
            let params = src.block(b).params.clone();
            for &p in &params {
                let t = self.src_ty(p);
                self.primal[p.index()] = Some(self.b.add_block_param(b, t, src.value(p).span));
            }
            for &p in &params {
                let t = self.src_ty(p);
                if self.has_companion(t) {
                    let dt = self.differential(t).expect("checked");
                    self.diff[p.index()] = Some(self.b.add_block_param(b, dt, src.value(p).span));
                }
            }
        }
        self.entry_params();
        let mut reachable = vec![false; src.blocks.len()];
        for b in src.reverse_post_order() {
            reachable[b.index()] = true;
            self.block = b;
            for &v in &src.block(b).insts {
                self.span = src.value(v).span;
                let ValueKind::Inst(op) = &src.value(v).kind else { continue };
                self.inst_of(v, op)?;
                if self.zero && self.module.types.pointee(self.src_ty(v)).is_none() {
                    self.diff[v.index()] = None;
                }
            }
            self.span = src.span;
            let term = self.terminator(&src.block(b).term);
            self.b.terminate(b, term);
        }
        // Blocks nothing reaches keep no code.
        for b in src.block_ids().filter(|b| !reachable[b.index()]) {
            self.b.terminate(b, Terminator::Unreachable);
        }
        Ok(())
    }

    /// The function's parameters: pairs split into primal and
    /// differential; pointers to pairs into pointers to each part.
    fn entry_params(&mut self) {
        self.block = Function::ENTRY;
        let params = self.b.func.params.clone();
        let src_params = self.src.block(Function::ENTRY).params.clone();
        for ((param, src_param), &v) in params.iter().zip(&self.src.params).zip(&src_params) {
            let np = self.b.add_block_param(Function::ENTRY, param.ty, self.src.span);
            if param.ty == src_param.ty {
                self.primal[v.index()] = Some(np);
                continue;
            }
            let (pointee, ptr_space) = match self.module.types.pointee(param.ty) {
                Some((t, space)) => (t, Some(space)),
                None => (param.ty, None),
            };
            if ptr_space.is_none() && self.module.types.ptr_pair(src_param.ty) == Some(param.ty) {
                // A pointer-like value and its derivative location.
                let d_ty = match self.module.types.get(param.ty) {
                    Type::Struct { fields, .. } => fields[1].1,
                    _ => unreachable!("a pointer pair is a struct"),
                };
                self.primal[v.index()] = Some(self.inst(Op::Extract(np, 0), src_param.ty));
                let d = self.inst(Op::Extract(np, 1), d_ty);
                self.ptr_diffs.insert(v, d);
                continue;
            }
            let Type::DifferentialPair { primal, diff } = *self.module.types.get(pointee) else {
                unreachable!("derivative parameters differ from the primal's only by pairs")
            };
            match ptr_space {
                None => {
                    self.primal[v.index()] = Some(self.inst(Op::Extract(np, 0), primal));
                    if !self.zero {
                        self.diff[v.index()] = Some(self.inst(Op::Extract(np, 1), diff));
                    }
                }
                Some(space) => {
                    let pt = self.module.types.intern(Type::Ptr(primal, space));
                    let dt = self.module.types.intern(Type::Ptr(diff, space));
                    self.primal[v.index()] = Some(self.inst(Op::FieldAddr(np, 0), pt));
                    let dp = self.inst(Op::FieldAddr(np, 1), dt);
                    self.diff[v.index()] = Some(dp);
                    if self.zero || src_param.dir == ParamDir::Out {
                        // Nothing flows in (zero derivatives; or the
                        // parameter is only written).
                        let z = self.emit().zero(diff);
                        let void = self.void();
                        self.inst(Op::Store { ptr: dp, value: z }, void);
                    }
                }
            }
        }
    }

    fn void(&mut self) -> TypeId {
        self.module.types.intern(Type::Void)
    }

    /// Transcribe one instruction: set `P[v]` and `D[v]`.
    fn inst_of(&mut self, v: ValueId, op: &Op) -> Result<(), CodegenError> {
        let ty = self.src_ty(v);
        let dty = self.differential(ty);
        let mut primal_op = op.clone();
        primal_op.map_operands(|o| self.primal[o.index()].expect("operands are transcribed before their uses"));
        let (p, d) = match op {
            // (An atomic's old value is read from shared memory: no derivative.)
            // (Texture reads are not differentiable: custom derivatives
            // say what they mean.)
            Op::Const(_)
            | Op::Global(_)
            | Op::ArrayLength(_)
            | Op::Barrier(_)
            | Op::Subgroup(..)
            | Op::Atomic { .. }
            | Op::Texture(..) => (self.inst(primal_op, ty), None),
            Op::Unary(u, a) => {
                let p = self.inst(primal_op, ty);
                let d = match u {
                    crate::ir::UnaryOp::Neg => {
                        let da = self.d(*a);
                        self.emit().neg(da)
                    }
                    _ => None,
                };
                (p, d)
            }
            Op::Binary(bop, a, b) => {
                let p = self.inst(primal_op, ty);
                let d = match dty {
                    Some(_) => {
                        let (pa, pb, da, db) = (self.p(*a), self.p(*b), self.d(*a), self.d(*b));
                        rules::binary(&mut self.emit(), *bop, (pa, pb), (da, db))
                    }
                    None => None,
                };
                (p, d)
            }
            Op::Construct(args) => {
                let p = self.inst(primal_op, ty);
                let d = match dty {
                    Some(dt) => self.construct_diff(ty, dt, args),
                    None => None,
                };
                (p, d)
            }
            Op::Splat(a) => {
                let p = self.inst(primal_op, ty);
                let d = match (dty, self.d(*a)) {
                    (Some(dt), Some(da)) => Some(self.inst(Op::Splat(da), dt)),
                    _ => None,
                };
                (p, d)
            }
            Op::Extract(a, i) => {
                let p = self.inst(primal_op, ty);
                let index = self.part_index(self.src_ty(*a), *i);
                let d = match (dty, self.d(*a), index) {
                    (Some(dt), Some(da), Some(j)) => Some(self.inst(Op::Extract(da, j), dt)),
                    _ => None,
                };
                (p, d)
            }
            Op::ExtractDynamic(a, i) => {
                let p = self.inst(primal_op, ty);
                let d = match (dty, self.d(*a)) {
                    (Some(dt), Some(da)) => Some(self.inst(Op::ExtractDynamic(da, self.p(*i)), dt)),
                    _ => None,
                };
                (p, d)
            }
            Op::Swizzle(a, comps) => {
                let p = self.inst(primal_op, ty);
                let d = match (dty, self.d(*a)) {
                    (Some(dt), Some(da)) => Some(self.inst(Op::Swizzle(da, comps.clone()), dt)),
                    _ => None,
                };
                (p, d)
            }
            Op::Convert(a) => {
                let p = self.inst(primal_op, ty);
                let from = self.differential(self.src_ty(*a));
                let d = match (dty, from, self.d(*a)) {
                    (Some(dt), Some(_), Some(da)) if self.b.ty(da) == dt => Some(da),
                    (Some(dt), Some(_), Some(da)) => Some(self.inst(Op::Convert(da), dt)),
                    _ => None,
                };
                (p, d)
            }
            Op::Select(c, a, b) => {
                let p = self.inst(primal_op, ty);
                let d = match dty {
                    Some(dt) => {
                        let (pc, da, db) = (self.p(*c), self.d(*a), self.d(*b));
                        self.emit().select(pc, da, db, dt)
                    }
                    None => None,
                };
                (p, d)
            }
            Op::Intrinsic(i, args) => {
                let p = self.inst(primal_op, ty);
                let d = match dty {
                    Some(_) => {
                        let x: Vec<ValueId> = args.iter().map(|&a| self.p(a)).collect();
                        let dx: Vec<Option<ValueId>> = args.iter().map(|&a| self.d(a)).collect();
                        rules::intrinsic(&mut self.emit(), *i, &x, &dx, p, ty).map_err(|m| self.error(m))?
                    }
                    None => None,
                };
                (p, d)
            }
            Op::Call(f, args) => self.call(*f, args, ty)?,
            Op::Var => {
                let p = self.inst(Op::Var, ty);
                let (pointee, _) = self.module.types.pointee(ty).expect("a variable is a pointer");
                let d = match (self.zero, diff_ptr_type(&mut self.module.types, pointee)) {
                    (false, Some(dpt)) => Some(self.inst(Op::Var, dpt)),
                    _ => None,
                };
                (p, d)
            }
            Op::Load(ptr) => {
                let p = self.inst(primal_op, ty);
                let d = match (dty, self.d(*ptr)) {
                    (Some(dt), Some(dp)) => Some(self.inst(Op::Load(dp), dt)),
                    _ => None,
                };
                (p, d)
            }
            Op::Store { ptr, value } => {
                let p = self.inst(primal_op, ty);
                if let Some(dp) = self.d(*ptr) {
                    let dv = self.d_or_zero(*value);
                    let void = self.void();
                    self.inst(Op::Store { ptr: dp, value: dv }, void);
                }
                (p, None)
            }
            Op::FieldAddr(ptr, i) => {
                let p = self.inst(primal_op, ty);
                let (pointee, _) = self.module.types.pointee(self.src_ty(*ptr)).expect("field_addr of a pointer");
                let index = self.part_index(pointee, *i);
                let d = match (self.d(*ptr), index) {
                    (Some(dp), Some(j)) => {
                        let (elem, _) = self.module.types.pointee(ty).expect("a pointer");
                        let dpt = diff_ptr_type(&mut self.module.types, elem);
                        dpt.map(|t| self.inst(Op::FieldAddr(dp, j), t))
                    }
                    _ => None,
                };
                (p, d)
            }
            Op::ElementAddr(ptr, i) => {
                let p = self.inst(primal_op, ty);
                let d = match self.d(*ptr) {
                    Some(dp) => {
                        let (elem, _) = self.module.types.pointee(ty).expect("a pointer");
                        let dpt = diff_ptr_type(&mut self.module.types, elem);
                        let pi = self.p(*i);
                        dpt.map(|t| self.inst(Op::ElementAddr(dp, pi), t))
                    }
                    None => None,
                };
                (p, d)
            }
            // The primal computation keeps the `detach`: a derivative of
            // this derivative (higher order) sees it too.
            Op::Detach(a) => {
                let pa = self.p(*a);
                (self.inst(Op::Detach(pa), ty), None)
            }
        };
        self.primal[v.index()] = Some(p);
        self.diff[v.index()] = d;
        Ok(())
    }

    /// Where part `i` of a value of type `t` has its derivative in the
    /// differential (`None`: a part that is not differentiable).
    fn part_index(&self, t: TypeId, i: u32) -> Option<u32> {
        match self.module.types.get(t) {
            Type::Struct { .. } => self.module.types.struct_diff(t)?.fields.get(i as usize).copied().flatten(),
            _ => Some(i),
        }
    }

    /// The differential of an aggregate built from `args`.
    fn construct_diff(&mut self, ty: TypeId, dt: TypeId, args: &[ValueId]) -> Option<ValueId> {
        let parts: Vec<ValueId> = match self.module.types.get(ty) {
            Type::Struct { .. } => {
                let fields = self.module.types.struct_diff(ty)?.fields.clone();
                args.iter().zip(fields).filter(|(_, f)| f.is_some()).map(|(&a, _)| a).collect()
            }
            _ => args.to_vec(),
        };
        if parts.iter().all(|&a| self.d(a).is_none()) {
            return None;
        }
        let values = parts.iter().map(|&a| self.d_or_zero(a)).collect();
        Some(self.inst(Op::Construct(values), dt))
    }

    /// A call: of the callee's forward derivative when it has one.
    fn call(&mut self, f: FuncId, args: &[ValueId], ty: TypeId) -> Result<(ValueId, Option<ValueId>), CodegenError> {
        let callee = self.module.function(f);
        let differentiable = !self.zero && !matches!(callee.derivative, Derivative::None | Derivative::Zero);
        if !differentiable {
            let values = args.iter().map(|&a| self.p(a)).collect();
            let p = self.inst(Op::Call(f, values), ty);
            // What the callee writes through pointers has no derivative.
            for &a in args {
                let pointee = self.module.types.pointee(self.b.ty(self.p(a)));
                if let (Some(dp), Some(_)) = (self.d(a), pointee) {
                    let (dt, _) = self.module.types.pointee(self.b.ty(dp)).expect("a pointer");
                    let z = self.emit().zero(dt);
                    let void = self.void();
                    self.inst(Op::Store { ptr: dp, value: z }, void);
                }
            }
            return Ok((p, None));
        }
        let g = forward_derivative(self.module, self.requests, f).map_err(|m| self.error(m))?;
        let params = self.module.function(g).params.clone();
        let ret = self.module.function(g).ret;
        if params.len() != args.len() {
            let name = self.module.function(g).name.clone();
            return Err(self.error(format!("the derivative `{name}` does not take the primal's arguments")));
        }
        let mut values = Vec::new();
        // (temporary pair, primal pointer argument): copied out after.
        let mut copy_out = Vec::new();
        for (param, &a) in params.iter().zip(args) {
            let src_ty = self.src_ty(a);
            if param.ty == src_ty {
                values.push(self.p(a));
                continue;
            }
            if param.dir == ParamDir::In && self.module.types.ptr_pair(src_ty) == Some(param.ty) {
                let pa = self.p(a);
                let da = self.ptr_diffs.get(&a).copied().unwrap_or(pa);
                values.push(self.inst(Op::Construct(vec![pa, da]), param.ty));
                continue;
            }
            match param.dir {
                ParamDir::In => {
                    let (pa, da) = (self.p(a), self.d_or_zero(a));
                    values.push(self.inst(Op::Construct(vec![pa, da]), param.ty));
                }
                ParamDir::Out | ParamDir::InOut => {
                    let (pair, _) = self.module.types.pointee(param.ty).expect("a pointer");
                    let tmp = self.inst(Op::Var, param.ty);
                    if param.dir == ParamDir::InOut {
                        let (pt, _) = self.module.types.pointee(src_ty).expect("a pointer");
                        let pv = self.inst(Op::Load(self.p(a)), pt);
                        let dv = match self.d(a) {
                            Some(dp) => {
                                let dt = self.differential(pt).expect("differentiable");
                                self.inst(Op::Load(dp), dt)
                            }
                            None => {
                                let dt = self.differential(pt).expect("differentiable");
                                self.emit().zero(dt)
                            }
                        };
                        let init = self.inst(Op::Construct(vec![pv, dv]), pair);
                        let void = self.void();
                        self.inst(Op::Store { ptr: tmp, value: init }, void);
                    }
                    values.push(tmp);
                    copy_out.push((tmp, pair, a));
                }
            }
        }
        let result = self.inst(Op::Call(g, values), ret);
        for (tmp, pair, a) in copy_out {
            let Type::DifferentialPair { primal, diff } = *self.module.types.get(pair) else { unreachable!() };
            let v = self.inst(Op::Load(tmp), pair);
            let pv = self.inst(Op::Extract(v, 0), primal);
            let void = self.void();
            self.inst(Op::Store { ptr: self.p(a), value: pv }, void);
            if let Some(dp) = self.d(a) {
                let dv = self.inst(Op::Extract(v, 1), diff);
                self.inst(Op::Store { ptr: dp, value: dv }, void);
            }
        }
        if ret == ty {
            return Ok((result, None));
        }
        // (The pair's second half: a derivative, or for a pointer-like
        // type the location of the derivatives.)
        let dt = match *self.module.types.get(ret) {
            Type::DifferentialPair { diff, .. } => diff,
            _ => match self.differential(ty) {
                Some(dt) => dt,
                None => return Err(self.error("the forward derivative of this call returns no pair of its result")),
            },
        };
        let p = self.inst(Op::Extract(result, 0), ty);
        let d = self.inst(Op::Extract(result, 1), dt);
        Ok((p, Some(d)))
    }

    /// Branch arguments: the primals, then the differentials of the
    /// parameters that have companions.
    fn edge_args(&mut self, target: BlockId, args: &[ValueId]) -> Vec<ValueId> {
        let mut out: Vec<ValueId> = args.iter().map(|&a| self.p(a)).collect();
        let params = self.src.block(target).params.clone();
        for (&p, &a) in params.iter().zip(args) {
            if self.diff[p.index()].is_some() {
                out.push(self.d_or_zero(a));
            }
        }
        out
    }

    fn terminator(&mut self, term: &Terminator) -> Terminator {
        match term {
            Terminator::Return(None) => Terminator::Return(None),
            Terminator::Return(Some(v)) => {
                let ret = self.b.func.ret;
                if ret == self.src.ret {
                    return Terminator::Return(Some(self.p(*v)));
                }
                let (p, d) = (self.p(*v), self.d_or_zero(*v));
                Terminator::Return(Some(self.inst(Op::Construct(vec![p, d]), ret)))
            }
            Terminator::Branch { target, args } => {
                Terminator::Branch { target: *target, args: self.edge_args(*target, args) }
            }
            Terminator::Loop { header, brk, cont, args } => {
                Terminator::Loop { header: *header, brk: *brk, cont: *cont, args: self.edge_args(*header, args) }
            }
            Terminator::If { cond, then, els, merge } => {
                Terminator::If { cond: self.p(*cond), then: *then, els: *els, merge: *merge }
            }
            Terminator::Switch { value, cases, default, brk } => {
                Terminator::Switch { value: self.p(*value), cases: cases.clone(), default: *default, brk: *brk }
            }
            Terminator::Unreachable => Terminator::Unreachable,
        }
    }
}
