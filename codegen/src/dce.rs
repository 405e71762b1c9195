//! Dead-code removal: instructions without side effects whose values
//! nothing uses (constants left behind by conversions, loads replaced by
//! SSA construction).

use crate::ir::{Function, Module, ValueId, ValueKind};

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
                for o in op.operands() {
                    uses[o.index()] += 1;
                }
            }
        }
        for o in block.term.operands() {
            uses[o.index()] += 1;
        }
    }
    let removable = |v: ValueId| match &func.values[v.index()].kind {
        ValueKind::Inst(op) => !op.has_side_effects(),
        _ => false,
    };
    let mut in_block = vec![false; func.values.len()];
    let mut work = Vec::new();
    for block in &func.blocks {
        for &v in &block.insts {
            in_block[v.index()] = true;
            if uses[v.index()] == 0 && removable(v) {
                work.push(v);
            }
        }
    }
    let mut dead = vec![false; func.values.len()];
    let mut any = false;
    while let Some(v) = work.pop() {
        if std::mem::replace(&mut dead[v.index()], true) {
            continue;
        }
        any = true;
        if let ValueKind::Inst(op) = &func.values[v.index()].kind {
            for o in op.operands() {
                uses[o.index()] -= 1;
                if uses[o.index()] == 0 && in_block[o.index()] && removable(o) {
                    work.push(o);
                }
            }
        }
    }
    if any {
        for block in &mut func.blocks {
            block.insts.retain(|&v| !dead[v.index()]);
        }
    }
}
