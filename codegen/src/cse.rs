//! Common-subexpression elimination over the dominator tree: an
//! instruction computing what one in a dominating block (or earlier in its
//! own block) already computes — the same pure operation of the same
//! operands, of the same type — is replaced by that one.
//!
//! Reverse mode runs it on the function it differentiates: unrolled code
//! repeats such instructions (`net.w2` extracted once per use of an
//! element), and each copy would get its own adjoint, so that the adjoint
//! of a large aggregate would be accumulated once per use — quadratic in
//! the unrolled program.

use std::collections::HashMap;

use crate::ir::{BlockId, Function, Op, TypeId, ValueId, ValueKind};
use crate::validate::dominators;

/// Whether two instructions with this operation and the same operands
/// always compute the same value (no memory, calls or built-ins).
fn pure(op: &Op) -> bool {
    matches!(op, Op::Const(_)) || op.is_value_arithmetic()
}

/// Replace the repeated pure instructions of `func` by their first
/// (dominating) occurrence and drop them.
pub fn run(func: &mut Function) {
    let idom = dominators(func);
    let n = func.blocks.len();
    let mut children: Vec<Vec<BlockId>> = vec![Vec::new(); n];
    for (b, d) in idom.iter().enumerate() {
        if let Some(d) = d.filter(|d| d.index() != b) {
            children[d.index()].push(BlockId(b as u32));
        }
    }
    if idom.first().copied().flatten().is_none() {
        return;
    }
    let mut table: HashMap<(TypeId, String), ValueId> = HashMap::new();
    let mut replace: HashMap<ValueId, ValueId> = HashMap::new();
    // Depth-first over the dominator tree; each block's keys leave the
    // table when its subtree is done.
    enum Step {
        Enter(BlockId),
        Leave(Vec<(TypeId, String)>),
    }
    let mut stack = vec![Step::Enter(Function::ENTRY)];
    while let Some(step) = stack.pop() {
        let b = match step {
            Step::Leave(keys) => {
                for k in keys {
                    table.remove(&k);
                }
                continue;
            }
            Step::Enter(b) => b,
        };
        let mut added = Vec::new();
        for &v in &func.blocks[b.index()].insts {
            let value = &mut func.values[v.index()];
            let ValueKind::Inst(op) = &mut value.kind else { continue };
            op.map_operands(|o| replace.get(&o).copied().unwrap_or(o));
            if !pure(op) {
                continue;
            }
            let key = (value.ty, format!("{op:?}"));
            match table.get(&key) {
                Some(&first) => {
                    replace.insert(v, first);
                }
                None => {
                    table.insert(key.clone(), v);
                    added.push(key);
                }
            }
        }
        stack.push(Step::Leave(added));
        stack.extend(children[b.index()].iter().rev().map(|&c| Step::Enter(c)));
    }
    if replace.is_empty() {
        return;
    }
    let map = |v: ValueId| replace.get(&v).copied().unwrap_or(v);
    for value in &mut func.values {
        if let ValueKind::Inst(op) = &mut value.kind {
            op.map_operands(map);
        }
    }
    for block in &mut func.blocks {
        block.term.map_operands(map);
        block.insts.retain(|v| !replace.contains_key(v));
    }
}
