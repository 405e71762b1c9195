//! Dead-code removal: instructions without side effects whose values
//! nothing uses (constants left behind by conversions, loads replaced by
//! SSA construction).

use crate::ir::{Function, Module, ValueKind};

/// Remove the dead instructions of every function.
pub fn run(module: &mut Module) {
    for f in &mut module.functions {
        remove_dead(f);
    }
}

fn remove_dead(func: &mut Function) {
    loop {
        let mut used = vec![false; func.values.len()];
        for block in &func.blocks {
            for &v in &block.insts {
                if let ValueKind::Inst(op) = &func.values[v.index()].kind {
                    for o in op.operands() {
                        used[o.index()] = true;
                    }
                }
            }
            for o in block.term.operands() {
                used[o.index()] = true;
            }
        }
        let mut changed = false;
        for b in 0..func.blocks.len() {
            let before = func.blocks[b].insts.len();
            let values = &func.values;
            func.blocks[b].insts.retain(|&v| {
                used[v.index()] || matches!(&values[v.index()].kind, ValueKind::Inst(op) if op.has_side_effects())
            });
            changed |= func.blocks[b].insts.len() != before;
        }
        if !changed {
            return;
        }
    }
}
