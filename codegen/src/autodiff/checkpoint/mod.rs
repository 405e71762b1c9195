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
//!   rather than recomputed per iteration, unless computed from constants
//!   alone). Recomputations are shared
//!   within a block.
//!   Operands the backward part does not read themselves (so were never
//!   saved) are recomputed the same way from theirs; a value of an
//!   enclosing loop is recomputed at its own level (from that loop's
//!   iteration being reversed).
//! * **Merges recomputed**: a block parameter merging the two sides of an
//!   `if` that branch straight to it, as a `select` on the condition of
//!   the values the sides pass (one per part, for arrays and structs of
//!   scalars and vectors: an existential value, say).
//! * **Recomputed from the iteration number**: an integer induction
//!   variable of a loop (a block parameter entering with a value readable
//!   there and advanced by the same step — added or subtracted, a
//!   constant or a value available around the loop — on every back edge,
//!   or, in the shape normalization gives a `for` loop, on every path but
//!   the one that leaves the loop), as its first value plus (minus) the
//!   step times the iterations before the one being reversed; a value
//!   merged from the sides of an `if` that is another's plus the same
//!   constant on every side, as that value plus the constant.
//! * **Loop counters computed**: where each run of a loop in another loop
//!   starts (the enclosing iteration's number times the loop's stride)
//!   and, for a constant trip count, ends ([`counters`]).
//! * **Saved once rather than per iteration**: a value of a loop in no
//!   other loop that the backward part reads only after the loop's
//!   reversal (the last iteration's) ([`last_only`]).
//! * **Calls recomputed**: a call of a `[PreferRecompute]` function or of
//!   one that computes from its arguments alone ([`pure_callees`],
//!   [`effects`]: reads only its arguments, writes only its own locals
//!   and its `inout`/`out` arguments) from operands as above, unless the
//!   callee is `[PreferCheckpoint]`; an `inout` argument from what it
//!   held before the call (a value of `f`, or the save the callee's
//!   backward derivative reads anyway), on a new local variable. A load
//!   of (a part of) a local variable that such a call wrote before it
//!   (in its block or the ones only it follows) is read from the
//!   recomputed call's variable.
//! * **Parts stored, whole recomputed**: a load of a whole local variable
//!   (an array, say) whose value before it is known — loaded
//!   or stored whole — and then changed by stores at constant positions,
//!   as that value with those parts replaced.
//! * **Known at compile time**: the iteration count after a loop in no
//!   other loop whose trip count is a constant ([`Save::constant`]).
//!   (Transcription itself saves no flag guarding the rest of a region
//!   after `if (c) { … break; }` and the like: the backward part
//!   evaluates `c` again, [`rev`](crate::autodiff::rev)'s `Flag::Cond`.)
//! * **Read from the entry value**: a load of (a part of) an `inout`
//!   parameter that nothing may have written before it, as a part of
//!   the value the parameter held on entry ([`Combined::initial`]).
//! * **Read again**: a load from a constant or read-only buffer, a texture
//!   or sampler handle, a `static` global no function writes, a read of a
//!   texture that is not writable (nothing writes that memory), from
//!   operands as above.
//! * **Checkpointed**: everything else — other loads (memory may have
//!   changed since), other calls and their contexts, block parameters (the state loops
//!   and merges carry), the transcription's own counters and flags — and
//!   every value of a `[PreferCheckpoint]` function.
//!
//! (`[PreferRecompute]` on a callee acts earlier: transcription calls it
//! plainly rather than through its primal-context function, so the
//! caller keeps no context for it and its backward derivative recomputes
//! its primal. So does a pure callee ([`recomputable_callee`]), as the
//! reference compiler recomputes calls of functions that read no memory.)

mod effects;
mod loops;
mod recompute;

use effects::pure_callees;
pub(crate) use effects::recomputable_callee;
use loops::{counters, last_only};
use recompute::Recompute;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::RefCell;

use crate::autodiff::rev::{Combined, Save};
use crate::ir::{
    AddressSpace, BinaryOp, BlockId, Const, FuncId, Function, FunctionBuilder, Module, Op, ParamDir, Terminator,
    TextureOp, Type, TypeId, Types, UnaryOp, Value, ValueId, ValueKind,
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
        let pure = pure_callees(module, src);
        let constant_globals = constant_globals(module, src);
        let src = &module.functions[combined.primal.index()];
        Recompute::new(src, &mut func, &mut module.types, combined, pure, constant_globals).run();
    }
    counters(&mut func, combined);
    prune(&mut func, &mut combined.saves);
    last_only(&mut func, &mut module.types, combined);
    module.functions[d] = func;
    context_size(&combined.saves)
}

/// Per global of the module: whether nothing writes it while `f` runs —
/// constant and read-only buffers, texture and sampler handles, and the
/// `static` globals that `f` reads and no function writes (stores to,
/// or passes a pointer into).
fn constant_globals(module: &Module, f: &Function) -> Vec<bool> {
    let mut constant: Vec<bool> = module
        .globals
        .iter()
        .map(|g| {
            matches!(g.space, AddressSpace::Uniform | AddressSpace::Storage { writable: false } | AddressSpace::Handle)
        })
        .collect();
    let statics: HashSet<usize> = f
        .values
        .iter()
        .filter_map(|v| match v.kind {
            ValueKind::Inst(Op::Global(g)) if module.globals[g.index()].space == AddressSpace::Private => {
                Some(g.index())
            }
            _ => None,
        })
        .collect();
    if statics.is_empty() {
        return constant;
    }
    let mut written: HashSet<usize> = HashSet::default();
    for func in &module.functions {
        let root = |mut p: ValueId| loop {
            match func.op(p) {
                Some(Op::FieldAddr(b, _) | Op::ElementAddr(b, _)) => p = *b,
                Some(Op::Global(g)) => return Some(g.index()),
                _ => return None,
            }
        };
        for v in &func.values {
            let ValueKind::Inst(op) = &v.kind else { continue };
            let pointers = match op {
                Op::Load(_) | Op::FieldAddr(..) | Op::ElementAddr(..) | Op::Global(_) => continue,
                Op::Store { ptr, value } => vec![*ptr, *value],
                other => other.operands(),
            };
            written.extend(pointers.into_iter().filter_map(root));
        }
    }
    for g in statics {
        constant[g] = !written.contains(&g);
    }
    constant
}

/// Bytes per thread of a save of `copies` values of type `t`, as the
/// reference compiler counts them (its natural layout,
/// [`Rules::Scalar`](crate::layout::Rules::Scalar)), so that the two
/// compilers' contexts compare.
pub fn save_bytes(types: &Types, t: TypeId, copies: u32) -> u32 {
    crate::layout::size_of(types, t, crate::layout::Rules::Scalar).saturating_mul(copies)
}

/// Bytes per thread and number of values of a set of saves.
pub fn context_size(saves: &[Save]) -> (u32, u32) {
    saves.iter().fold((0u32, 0u32), |(bytes, n), s| (bytes.saturating_add(s.bytes), n + 1))
}

/// Drop the saves the backward part never reads: their variables, the
/// stores that fill them and the slots they are stored through.
fn prune(func: &mut Function, saves: &mut Vec<Save>) {
    let base = |func: &Function, p: ValueId| match func.op(p) {
        Some(Op::ElementAddr(base, _)) => *base,
        _ => p,
    };
    let mut read = HashSet::default();
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
