//! Checkpointing versus recomputation: the pass between
//! [`rev::transcribe`](crate::autodiff::rev::transcribe) and
//! [`rev::extract`](crate::autodiff::rev::extract).
//!
//! Transcription checkpoints every primal value the backward part reads:
//! the primal part stores it (in a loop, into an array slot per
//! iteration) and the backward part loads it. This pass decides, per
//! load, whether to keep reading the saved value or to recompute it
//! there from its operands, and then drops the saves nothing reads any
//! more — what is left is the intermediate context, whose size it
//! returns.
//!
//! * **Recomputed**: arithmetic (unary and binary operators,
//!   constructions, extractions, swizzles, splats, conversions, selects,
//!   built-in functions, `detach`), from operands that are constants,
//!   parameters, or values saved at the same loop level (themselves
//!   recomputed when they can be, read otherwise) or in an enclosing
//!   loop (read). A value is recomputed where the backward part is at
//!   its own loop level: a value of a loop in the reversal of that loop
//!   (from what that iteration saved), a value outside every loop outside
//!   every reversed loop (values from outside a loop are read once
//!   rather than recomputed per iteration). Recomputations are shared
//!   within a block.
//! * **Checkpointed**: everything else — loads (memory may have changed
//!   since), calls and their contexts, block parameters (the state loops
//!   and merges carry), the transcription's own counters and flags — and
//!   every value of a `[PreferCheckpoint]` function.
//!
//! (`[PreferRecompute]` on a callee acts earlier: transcription calls it
//! plainly rather than through its primal-context function, so the
//! caller keeps no context for it and its backward derivative recomputes
//! its primal.)

use std::collections::{HashMap, HashSet};

use crate::autodiff::rev::{Combined, Save};
use crate::ir::{
    AddressSpace, BlockId, Function, FunctionBuilder, Module, Op, Type, TypeId, Types, Value, ValueId, ValueKind,
};

/// Run the pass on a transcribed backward derivative: recompute what is
/// cheap (unless `f` is `[PreferCheckpoint]`), drop the saves no longer
/// read, and return what is left: bytes per thread and values.
pub fn run(module: &mut Module, combined: &mut Combined) -> (u32, u32) {
    let d = combined.derivative.index();
    let mut func =
        std::mem::replace(&mut module.functions[d], FunctionBuilder::new(String::new(), TypeId(0), None).finish());
    let src = &module.functions[combined.primal.index()];
    if !src.prefer_checkpoint {
        Recompute::new(src, &mut func, &mut module.types, combined).run();
    }
    prune(&mut func, &mut combined.saves);
    module.functions[d] = func;
    context_size(&combined.saves)
}

/// Bytes per thread and number of values of a set of saves.
pub fn context_size(saves: &[Save]) -> (u32, u32) {
    saves.iter().fold((0u32, 0u32), |(bytes, n), s| (bytes.saturating_add(s.bytes), n + 1))
}

/// Whether an instruction of `f` may be computed again from its operands.
fn recomputable_op(op: Option<&Op>) -> bool {
    matches!(
        op,
        Some(
            Op::Unary(..)
                | Op::Binary(..)
                | Op::Construct(_)
                | Op::Splat(_)
                | Op::Extract(..)
                | Op::ExtractDynamic(..)
                | Op::Swizzle(..)
                | Op::Convert(_)
                | Op::Select(..)
                | Op::Intrinsic(..)
                | Op::Detach(_)
        )
    )
}

struct Recompute<'a> {
    src: &'a Function,
    func: &'a mut Function,
    types: &'a mut Types,
    combined: &'a Combined,
    /// Save variable → save.
    by_var: HashMap<ValueId, usize>,
    /// Value of `f` → its save.
    by_origin: HashMap<ValueId, usize>,
    /// (value of `f`, block) → its value there, recomputed or read.
    memo: HashMap<(ValueId, BlockId), ValueId>,
    /// Instructions made for the load being replaced, in order.
    pending: Vec<ValueId>,
}

impl<'a> Recompute<'a> {
    fn new(src: &'a Function, func: &'a mut Function, types: &'a mut Types, combined: &'a Combined) -> Self {
        let by_var = combined.saves.iter().enumerate().map(|(i, s)| (s.var, i)).collect();
        let by_origin = combined.saves.iter().enumerate().filter_map(|(i, s)| Some((s.origin?, i))).collect();
        Recompute { src, func, types, combined, by_var, by_origin, memo: HashMap::new(), pending: Vec::new() }
    }

    fn run(&mut self) {
        let in_reversed_loop: HashSet<BlockId> =
            self.combined.loops.iter().flat_map(|l| l.rev_blocks.iter().copied()).collect();
        let mut replaced: HashMap<ValueId, ValueId> = HashMap::new();
        for b in self.combined.rev_start.index()..self.func.blocks.len() {
            let block = BlockId(b as u32);
            let old = std::mem::take(&mut self.func.blocks[b].insts);
            let mut insts = Vec::with_capacity(old.len());
            for v in old {
                if let Some(r) = self.replacement(v, block, in_reversed_loop.contains(&block)) {
                    insts.append(&mut self.pending);
                    replaced.insert(v, r);
                } else {
                    insts.push(v);
                }
            }
            self.func.blocks[b].insts = insts;
        }
        if replaced.is_empty() {
            return;
        }
        let map = |v: ValueId| replaced.get(&v).copied().unwrap_or(v);
        for value in &mut self.func.values {
            if let ValueKind::Inst(op) = &mut value.kind {
                op.map_operands(map);
            }
        }
        for block in &mut self.func.blocks {
            block.term.map_operands(map);
        }
    }

    /// What replaces `v`, when `v` loads a saved value that is better
    /// recomputed here, or that this block has read already.
    fn replacement(&mut self, v: ValueId, block: BlockId, in_loop: bool) -> Option<ValueId> {
        let Some(Op::Load(addr)) = self.func.op(v) else { return None };
        let addr = *addr;
        let (save, index) = match (self.by_var.get(&addr), self.func.op(addr)) {
            (Some(&s), _) => (s, None),
            (None, Some(&Op::ElementAddr(base, i))) => (*self.by_var.get(&base)?, Some(i)),
            _ => return None,
        };
        let Save { origin, lp, .. } = self.combined.saves[save];
        let x = origin?;
        // The slot of the iteration being reversed (not, say, the last
        // iteration's, read after the loop's reversal).
        match lp {
            None if index.is_none() => {}
            Some(l) if index.is_some() && index == self.combined.loops[l].rev_index => {}
            _ => return None,
        }
        if let Some(&r) = self.memo.get(&(x, block)) {
            return Some(r);
        }
        // Recomputed at the value's own loop level only.
        if (lp.is_none() && in_loop) || !self.feasible(x, lp) {
            self.memo.insert((x, block), v);
            return None;
        }
        Some(self.recompute(x, lp, block))
    }

    /// Whether `x` (saved at loop level `lp`) can be recomputed there:
    /// arithmetic whose every operand is a constant, a parameter, or
    /// saved at that level or an enclosing one.
    fn feasible(&self, x: ValueId, lp: Option<usize>) -> bool {
        let Some(op) = self.src.op(x) else { return false };
        recomputable_op(Some(op))
            && op.operands().into_iter().all(|o| {
                matches!(self.src.op(o), Some(Op::Const(_)))
                    || self.combined.params.contains_key(&o)
                    || self.by_origin.get(&o).is_some_and(|&s| self.readable_at(self.combined.saves[s].lp, lp))
            })
    }

    /// Whether a value saved at loop level `saved` can be read at level
    /// `here`: outside every loop, at the same level or in a loop around
    /// it (in the iteration being reversed), or after its loop (the last
    /// iteration's).
    fn readable_at(&self, saved: Option<usize>, here: Option<usize>) -> bool {
        let Some(l) = saved else { return true };
        if self.encloses(l, here) {
            return self.combined.loops[l].rev_index.is_some();
        }
        let lp = &self.combined.loops[l];
        lp.after.and_then(|a| self.by_var.get(&a)).is_some_and(|&s| self.readable_at(self.combined.saves[s].lp, here))
    }

    /// Whether loop `l` is `here` or around it.
    fn encloses(&self, l: usize, here: Option<usize>) -> bool {
        let mut k = here;
        while let Some(i) = k {
            if i == l {
                return true;
            }
            k = self.combined.loops[i].parent;
        }
        false
    }

    /// `x` computed again at loop level `lp` in `block`.
    fn recompute(&mut self, x: ValueId, lp: Option<usize>, block: BlockId) -> ValueId {
        if let Some(&r) = self.memo.get(&(x, block)) {
            return r;
        }
        let mut op = self.src.op(x).expect("an instruction").clone();
        let operands: HashMap<ValueId, ValueId> =
            op.operands().into_iter().map(|o| (o, self.operand(o, lp, block))).collect();
        op.map_operands(|o| operands[&o]);
        let value = self.src.value(x);
        let r = self.push(op, value.ty, value.span);
        self.memo.insert((x, block), r);
        r
    }

    /// The value of `f`'s `o` at loop level `lp` in `block`.
    fn operand(&mut self, o: ValueId, lp: Option<usize>, block: BlockId) -> ValueId {
        if let Some(&r) = self.memo.get(&(o, block)) {
            return r;
        }
        if let Some(Op::Const(c)) = self.src.op(o) {
            let value = self.src.value(o);
            return self.push(Op::Const(*c), value.ty, value.span);
        }
        if let Some(&p) = self.combined.params.get(&o) {
            return p;
        }
        let s = self.combined.saves[self.by_origin[&o]];
        if s.lp == lp && self.feasible(o, lp) {
            return self.recompute(o, lp, block);
        }
        let r = self.read(s, lp);
        self.memo.insert((o, block), r);
        r
    }

    /// Read a save at loop level `here` (see [`Self::readable_at`]).
    fn read(&mut self, s: Save, here: Option<usize>) -> ValueId {
        let span = self.func.span;
        let (at, _) = self.types.pointee(self.func.value(s.var).ty).expect("a variable");
        let Some(l) = s.lp else { return self.push(Op::Load(s.var), at, span) };
        let Type::Array(t, _) = *self.types.get(at) else { unreachable!("saves in loops are arrays") };
        let index = match self.encloses(l, here) {
            true => self.combined.loops[l].rev_index.expect("checked by readable_at"),
            false => {
                let after = self.combined.loops[l].after.expect("checked by readable_at");
                let end = self.read(self.combined.saves[self.by_var[&after]], here);
                let int = self.func.value(end).ty;
                let one = self.push(Op::Const(crate::ir::Const::Int(1)), int, span);
                self.push(Op::Binary(crate::ir::BinaryOp::Sub, end, one), int, span)
            }
        };
        let pt = self.types.intern(Type::Ptr(t, AddressSpace::Function));
        let slot = self.push(Op::ElementAddr(s.var, index), pt, span);
        self.push(Op::Load(slot), t, span)
    }

    fn push(&mut self, op: Op, ty: TypeId, span: Option<slang_analysis::TextRange>) -> ValueId {
        let v = ValueId(self.func.values.len() as u32);
        self.func.values.push(Value { ty, kind: ValueKind::Inst(op), span });
        self.pending.push(v);
        v
    }
}

/// Drop the saves the backward part never reads: their variables, the
/// stores that fill them and the slots they are stored through.
fn prune(func: &mut Function, saves: &mut Vec<Save>) {
    let base = |func: &Function, p: ValueId| match func.op(p) {
        Some(Op::ElementAddr(base, _)) => *base,
        _ => p,
    };
    let mut read = HashSet::new();
    for block in &func.blocks {
        for &i in &block.insts {
            if let Some(Op::Load(p)) = func.op(i) {
                read.insert(base(func, *p));
            }
        }
    }
    let unread: HashSet<ValueId> = saves.iter().map(|s| s.var).filter(|v| !read.contains(v)).collect();
    if unread.is_empty() {
        return;
    }
    let doomed = |func: &Function, i: ValueId| {
        unread.contains(&i)
            || match func.op(i) {
                Some(Op::Store { ptr, .. }) => unread.contains(&base(func, *ptr)),
                Some(Op::ElementAddr(b, _)) => unread.contains(b),
                _ => false,
            }
    };
    for b in 0..func.blocks.len() {
        let gone: HashSet<ValueId> = func.blocks[b].insts.iter().copied().filter(|&i| doomed(func, i)).collect();
        if !gone.is_empty() {
            func.blocks[b].insts.retain(|i| !gone.contains(i));
        }
    }
    saves.retain(|s| !unread.contains(&s.var));
}
