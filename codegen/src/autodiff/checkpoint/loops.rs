//! Loop bookkeeping after recomputation: counters of inner loops
//! computed from the enclosing iteration ([`counters`]), values saved
//! once rather than per iteration ([`last_only`]).

use super::*;

/// Where a loop in another loop starts and ends, computed from the
/// enclosing iteration's number rather than read: the counter of each
/// run of loop `l` starts at that number times [`SavedLoop::stride`]
/// (`crate::autodiff::rev::SavedLoop`), and ends [`SavedLoop::end`]
/// later when that is known.
pub(super) fn counters(func: &mut Function, combined: &Combined) {
    let mut known: HashMap<ValueId, (i64, Option<i64>)> = HashMap::default();
    for l in &combined.loops {
        let stride = i64::from(l.stride);
        if let Some(b) = l.before {
            known.insert(b, (stride, Some(0)));
        }
        if let (Some(a), Some(e), Some(_)) = (l.after, l.end, l.parent) {
            known.insert(a, (stride, Some(i64::from(e))));
        }
    }
    if known.is_empty() {
        return;
    }
    let mut replaced: HashMap<ValueId, ValueId> = HashMap::default();
    for b in 0..func.blocks.len() {
        let old = std::mem::take(&mut func.blocks[b].insts);
        let mut insts = Vec::with_capacity(old.len());
        for v in old {
            let hit = match func.op(v) {
                Some(&Op::Load(addr)) => match func.op(addr) {
                    Some(&Op::ElementAddr(base, idx)) => known.get(&base).map(|&k| (idx, k)),
                    _ => None,
                },
                _ => None,
            };
            let Some((idx, (stride, offset))) = hit else {
                insts.push(v);
                continue;
            };
            let (ty, span) = (func.value(v).ty, func.value(v).span);
            let mut push = |func: &mut Function, op: Op| {
                let r = ValueId(func.values.len() as u32);
                func.values.push(Value { ty, kind: ValueKind::Inst(op), span });
                insts.push(r);
                r
            };
            let s = push(func, Op::Const(Const::Int(stride)));
            let mut r = push(func, Op::Binary(BinaryOp::Mul, idx, s));
            if let Some(o) = offset.filter(|&o| o != 0) {
                let o = push(func, Op::Const(Const::Int(o)));
                r = push(func, Op::Binary(BinaryOp::Add, r, o));
            }
            replaced.insert(v, r);
        }
        func.blocks[b].insts = insts;
    }
    if replaced.is_empty() {
        return;
    }
    func.replace_uses(&replaced);
}

/// A value of a loop in no other loop that the backward part reads only
/// after the loop's reversal (the last iteration's, as a value of the
/// loop's header used after the loop) is saved in one variable that every
/// iteration overwrites, rather than in a slot per iteration.
pub(super) fn last_only(func: &mut Function, types: &mut Types, combined: &mut Combined) {
    let mut slots: HashMap<ValueId, Vec<ValueId>> = HashMap::default();
    let mut in_reversal: HashSet<ValueId> = HashSet::default();
    let rev_index: HashMap<usize, ValueId> =
        combined.loops.iter().enumerate().filter_map(|(l, lp)| Some((l, lp.rev_index?))).collect();
    let by_var: HashMap<ValueId, usize> = combined
        .saves
        .iter()
        .enumerate()
        .filter(|(_, s)| s.lp.is_some_and(|l| combined.loops[l].parent.is_none()))
        .map(|(i, s)| (s.var, i))
        .collect();
    for block in &func.blocks {
        for &i in &block.insts {
            let Some(&Op::ElementAddr(base, idx)) = func.op(i) else { continue };
            let Some(&s) = by_var.get(&base) else { continue };
            slots.entry(base).or_default().push(i);
            let l = combined.saves[s].lp.expect("in a loop");
            if rev_index.get(&l) == Some(&idx) {
                in_reversal.insert(base);
            }
        }
    }
    // Every slot address must be a plain load or store's.
    let mut used_otherwise: HashSet<ValueId> = HashSet::default();
    for value in &func.values {
        if let ValueKind::Inst(op) = &value.kind {
            match op {
                Op::Load(_) => {}
                Op::Store { value, .. } => {
                    used_otherwise.insert(*value);
                }
                other => used_otherwise.extend(other.operands()),
            }
        }
    }
    for block in &func.blocks {
        used_otherwise.extend(block.term.operands());
    }
    let mut replaced: HashMap<ValueId, ValueId> = HashMap::default();
    for (&var, addrs) in &slots {
        if in_reversal.contains(&var) || addrs.iter().any(|a| used_otherwise.contains(a)) {
            continue;
        }
        let s = by_var[&var];
        let (at, space) = types.pointee(func.value(var).ty).expect("a variable");
        let Type::Array(t, _) = *types.get(at) else { continue };
        func.values[var.index()].ty = types.intern(Type::Ptr(t, space));
        for &a in addrs {
            replaced.insert(a, var);
        }
        let save = &mut combined.saves[s];
        save.lp = None;
        save.bytes = save_bytes(types, t, 1);
    }
    if replaced.is_empty() {
        return;
    }
    for block in &mut func.blocks {
        block.insts.retain(|i| !replaced.contains_key(i));
    }
    let map = |v: ValueId| replaced.get(&v).copied().unwrap_or(v);
    for value in &mut func.values {
        if let ValueKind::Inst(op) = &mut value.kind {
            op.map_operands(map);
        }
    }
}
