//! Which callees a call of may be computed again: what a function reads
//! and writes ([`effects`]).

use super::*;

/// The functions that `f` calls whose calls are computed again rather
/// than saved, with their parameters' directions: `[PreferRecompute]`
/// ones (as the reference compiler does, whatever they read), and ones
/// that compute from their arguments alone ([`effects`]: pure, or
/// writing nothing but their `inout`/`out` arguments — the backward part
/// calls them again on a copy of what the arguments held before) that
/// are not `[PreferCheckpoint]`; none replaced in differentiated code by
/// a `[PrimalSubstitute]` (recomputing the call would compute the
/// original, not the substitute).
pub(super) fn pure_callees(module: &Module, f: &Function) -> HashMap<FuncId, Vec<ParamDir>> {
    let mut memo = HashMap::default();
    let mut out = HashMap::default();
    for v in &f.values {
        if let ValueKind::Inst(Op::Call(g, _)) = &v.kind {
            let callee = module.function(*g);
            let substituted = matches!(callee.derivative, crate::ir::Derivative::Substitute(_));
            let wanted = callee.prefer_recompute
                || (!callee.prefer_checkpoint && effects(module, *g, &mut memo) != Effects::Memory);
            if !substituted && wanted {
                out.insert(*g, callee.params.iter().map(|p| p.dir).collect());
            }
        }
    }
    out
}

/// Whether a call of `g` may be computed again rather than saved: `g`
/// is pure, not `[PreferCheckpoint]`, and not replaced by a
/// `[PrimalSubstitute]` ([`pure_callees`]).
pub(crate) fn recomputable_callee(module: &Module, g: FuncId) -> bool {
    let callee = module.function(g);
    let substituted = matches!(callee.derivative, crate::ir::Derivative::Substitute(_));
    !callee.prefer_checkpoint && !substituted && effects(module, g, &mut HashMap::default()) == Effects::Pure
}

/// What a function reads and writes besides its own local variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Effects {
    /// Computes from its `in` arguments alone.
    Pure,
    /// Also reads and writes its `inout` and `out` arguments (and nothing
    /// else): computed again from what they held before the call.
    Arguments,
    /// Reads or writes global memory or textures, or synchronizes.
    Memory,
}

/// What `g` touches: nothing but its arguments and its own local
/// variables (no global memory, texture, atomic, barrier or subgroup
/// operation), calling only such functions, is [`Effects::Pure`] when
/// every parameter is an `in` value and [`Effects::Arguments`] when some
/// are `inout` or `out`.
pub(super) fn effects(module: &Module, g: FuncId, memo: &mut HashMap<FuncId, Effects>) -> Effects {
    if let Some(&e) = memo.get(&g) {
        return e;
    }
    // (Recursion: not recomputed.)
    memo.insert(g, Effects::Memory);
    let func = module.function(g);
    let root = |mut p: ValueId| loop {
        match func.op(p) {
            Some(Op::FieldAddr(b, _) | Op::ElementAddr(b, _)) => p = *b,
            other => return other,
        }
    };
    let value_param = |p: &crate::ir::Param| !matches!(module.types.get(p.ty), Type::Ptr(..) | Type::Texture(..));
    let params_ok = func.params.iter().all(|p| match p.dir {
        ParamDir::In => value_param(p),
        ParamDir::Out | ParamDir::InOut => true,
    });
    let by_args = func.params.iter().any(|p| p.dir != ParamDir::In);
    let ok = params_ok
        && func.blocks.iter().flat_map(|b| &b.insts).all(|&i| match func.op(i) {
            // (A pointer that is no local variable's is an `inout` or
            // `out` parameter's.)
            Some(Op::Store { ptr, .. }) => matches!(root(*ptr), Some(Op::Var)) || (by_args && root(*ptr).is_none()),
            Some(
                Op::Global(_)
                | Op::Atomic { .. }
                | Op::Barrier(_)
                | Op::Subgroup(..)
                | Op::Texture(..)
                | Op::ArrayLength(_),
            ) => false,
            // (What a callee writes through its arguments is `g`'s locals
            // or its own arguments.)
            Some(Op::Call(h, _)) => effects(module, *h, memo) != Effects::Memory,
            _ => true,
        });
    let e = match (ok, by_args) {
        (false, _) => Effects::Memory,
        (true, false) => Effects::Pure,
        (true, true) => Effects::Arguments,
    };
    memo.insert(g, e);
    e
}
