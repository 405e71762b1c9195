//! Dead-code removal: instructions without side effects whose values
//! nothing uses (constants left behind by conversions, loads replaced by
//! SSA construction). A large function most of whose values are gone is
//! then compacted ([`Function::compact`]): the passes after walk and
//! index arrays of all its values, and reverse mode leaves each half of
//! a backward derivative with the values of both.

use crate::ir::{Function, Module, ValueId, ValueKind};

/// Functions with fewer values keep their numbering (IR printed between
/// passes stays comparable); their arrays fit a cache anyway.
const COMPACT_MIN_VALUES: usize = 1 << 12;

/// Remove the dead instructions of every function.
pub fn run(module: &mut Module) {
    for f in &mut module.functions {
        remove_dead(f);
    }
}

/// Counts the uses of each value, then removes the unused instructions
/// from a worklist (each removal may leave its operands unused): linear,
/// where removing rounds until nothing changes would take one pass over
/// the function per link of a dead chain.
fn remove_dead(func: &mut Function) {
    let mut uses = vec![0u32; func.values.len()];
    for block in &func.blocks {
        for &v in &block.insts {
            if let ValueKind::Inst(op) = &func.values[v.index()].kind {
                op.for_each_operand(|o| uses[o.index()] += 1);
            }
        }
        block.term.for_each_operand(|o| uses[o.index()] += 1);
    }
    let removable = |v: ValueId| match &func.values[v.index()].kind {
        ValueKind::Inst(op) => !op.has_side_effects(),
        _ => false,
    };
    let mut in_block = vec![false; func.values.len()];
    let mut work = Vec::new();
    let mut held = 0;
    for block in &func.blocks {
        held += block.params.len() + block.insts.len();
        for &v in &block.insts {
            in_block[v.index()] = true;
            if uses[v.index()] == 0 && removable(v) {
                work.push(v);
            }
        }
    }
    let mut dead = vec![false; func.values.len()];
    let mut removed = 0;
    while let Some(v) = work.pop() {
        if std::mem::replace(&mut dead[v.index()], true) {
            continue;
        }
        removed += 1;
        if let ValueKind::Inst(op) = &func.values[v.index()].kind {
            op.for_each_operand(|o| {
                uses[o.index()] -= 1;
                if uses[o.index()] == 0 && in_block[o.index()] && removable(o) {
                    work.push(o);
                }
            });
        }
    }
    if removed > 0 {
        for block in &mut func.blocks {
            block.insts.retain(|&v| !dead[v.index()]);
        }
    }
    if func.values.len() >= COMPACT_MIN_VALUES && 2 * (held - removed) < func.values.len() {
        func.compact();
    }
}
