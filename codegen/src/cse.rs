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
//!
//! Loads of local variables (and `out`/`inout` parameters) whose address never escapes (used only to
//! load, to store to and to address parts of) are eliminated the same way:
//! a load of the same part of a variable as a dominating load is replaced
//! by it when no store to that variable can run in between — no store
//! after the first load along the dominator path, and no block on that
//! path entered from more than one edge (a merge or a loop header, where
//! a store elsewhere could come in) unless the variable is never stored
//! to. Unrolled code reads a local array once per use of an element; each
//! read would otherwise be a value of its own (saved for the backward
//! part, once per use).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ir::{BlockId, Function, Op, ParamDir, TypeId, ValueId, ValueKind};
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
    let mut table: HashMap<(TypeId, String), ValueId> = HashMap::default();
    let mut replace: HashMap<ValueId, ValueId> = HashMap::default();
    let locals = Locals::new(func);
    let preds = func.predecessors();
    // Per variable, a count of the stores seen so far, and a count of
    // the merges, which count for every variable stored to: a load
    // recorded at older counts is stale.
    let mut generation: HashMap<ValueId, u32> = HashMap::default();
    let mut merges = 0u32;
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
        if preds[b.index()].len() != 1 {
            // (Entered from elsewhere than its dominator alone.)
            merges += 1;
        }
        for &v in &func.blocks[b.index()].insts {
            let value = &mut func.values[v.index()];
            let ValueKind::Inst(op) = &mut value.kind else { continue };
            op.map_operands(|o| replace.get(&o).copied().unwrap_or(o));
            let key = match func.values[v.index()].kind {
                ValueKind::Inst(Op::Store { ptr, .. }) => {
                    if let Some(var) = locals.root(func, ptr) {
                        *generation.entry(var).or_default() += 1;
                    }
                    continue;
                }
                ValueKind::Inst(Op::Load(ptr)) => {
                    let Some(var) = locals.root(func, ptr) else { continue };
                    let g = generation.get(&var).copied().unwrap_or(0);
                    let m = if locals.stored.contains(&var) { merges } else { 0 };
                    (func.values[v.index()].ty, format!("load {} @{g}.{m}", locals.path(func, ptr)))
                }
                ValueKind::Inst(ref op) if pure(op) => (func.values[v.index()].ty, format!("{op:?}")),
                _ => continue,
            };
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
    func.replace_uses(&replace);
    for block in &mut func.blocks {
        block.insts.retain(|v| !replace.contains_key(v));
    }
}

/// The local variables of a function whose address does not escape, and
/// which of them are stored to.
struct Locals {
    tracked: HashSet<ValueId>,
    stored: HashSet<ValueId>,
}

impl Locals {
    fn new(func: &Function) -> Self {
        let mut tracked: HashSet<ValueId> = HashSet::default();
        // (`out` and `inout` parameters too: copied in and out, they alias
        // nothing.)
        if let Some(entry) = func.blocks.first() {
            for (&p, param) in entry.params.iter().zip(&func.params) {
                if param.dir != ParamDir::In {
                    tracked.insert(p);
                }
            }
        }
        for block in &func.blocks {
            for &v in &block.insts {
                if matches!(func.op(v), Some(Op::Var)) {
                    tracked.insert(v);
                }
            }
        }
        // An address of a part of a tracked variable, by its variable.
        let mut root: HashMap<ValueId, ValueId> = tracked.iter().map(|&v| (v, v)).collect();
        let mut escaped: HashSet<ValueId> = HashSet::default();
        let mut stored: HashSet<ValueId> = HashSet::default();
        // Definitions dominate uses: in reverse post-order, an address is
        // seen before what uses it.
        for b in func.reverse_post_order() {
            for &v in &func.block(b).insts {
                let Some(op) = func.op(v) else { continue };
                match op {
                    Op::FieldAddr(base, _) if root.contains_key(base) => {
                        root.insert(v, root[base]);
                    }
                    Op::ElementAddr(base, i) if root.contains_key(base) => {
                        root.insert(v, root[base]);
                        if let Some(&r) = root.get(i) {
                            escaped.insert(r);
                        }
                    }
                    Op::Load(_) => {}
                    Op::Store { ptr, value } => {
                        if let Some(&r) = root.get(ptr) {
                            stored.insert(r);
                        }
                        if let Some(&r) = root.get(value) {
                            escaped.insert(r);
                        }
                    }
                    op => op.for_each_operand(|o| {
                        if let Some(&r) = root.get(&o) {
                            escaped.insert(r);
                        }
                    }),
                }
            }
            func.block(b).term.for_each_operand(|o| {
                if let Some(&r) = root.get(&o) {
                    escaped.insert(r);
                }
            });
        }
        tracked.retain(|v| !escaped.contains(v));
        let stored = stored.into_iter().filter(|v| tracked.contains(v)).collect();
        Locals { tracked, stored }
    }

    /// The tracked variable `ptr` addresses a part of.
    fn root(&self, func: &Function, mut ptr: ValueId) -> Option<ValueId> {
        loop {
            match func.op(ptr) {
                Some(Op::FieldAddr(base, _) | Op::ElementAddr(base, _)) => ptr = *base,
                Some(Op::Var) | None => return self.tracked.contains(&ptr).then_some(ptr),
                _ => return None,
            }
        }
    }

    /// Which part of its variable `ptr` addresses, as text (equal for
    /// equal parts).
    fn path(&self, func: &Function, ptr: ValueId) -> String {
        match func.op(ptr) {
            Some(Op::FieldAddr(base, i)) => format!("{}.{i}", self.path(func, *base)),
            Some(Op::ElementAddr(base, i)) => format!("{}[{}]", self.path(func, *base), i.0),
            _ => format!("{}", ptr.0),
        }
    }
}
