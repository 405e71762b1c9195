//! Activity analysis for reverse mode.

use super::*;

/// Activity analysis: the values of `f` that depend on a differentiable
/// input (a parameter that is not `no_diff`, through instructions, local
/// memory, calls and block parameters). Others carry no derivative, so
/// the backward part neither propagates into them nor saves what their
/// derivative rules would read. Calls of functions with a user-written
/// backward derivative are active whatever their arguments. Buffers
/// (`Global`) are inactive memory.
pub(super) fn activity(f: &Function, module: &mut Module) -> Vec<bool> {
    // Functions whose derivatives may come from nothing: those with a
    // user-written backward derivative (one that reads a parameter
    // buffer, say), and differentiable functions calling them.
    let mut custom: rustc_hash::FxHashSet<FuncId> = (0..module.functions.len())
        .map(|i| FuncId(i as u32))
        .filter(|&g| module.function(g).backward.is_some())
        .collect();
    loop {
        let before = custom.len();
        for (i, g) in module.functions.iter().enumerate() {
            let differentiable = matches!(g.derivative, Derivative::Transcribe | Derivative::Substitute(_));
            if differentiable && !custom.contains(&FuncId(i as u32)) {
                let calls_custom = g.blocks.iter().flat_map(|b| &b.insts).any(|&v| match g.op(v) {
                    Some(Op::Call(h, _)) => custom.contains(h),
                    _ => false,
                });
                if calls_custom {
                    custom.insert(FuncId(i as u32));
                }
            }
        }
        if custom.len() == before {
            break;
        }
    }
    let types = &mut module.types;
    let mut active = vec![false; f.values.len()];
    let base = |mut p: ValueId| loop {
        match f.op(p) {
            Some(Op::FieldAddr(b, _)) | Some(Op::ElementAddr(b, _)) => p = *b,
            _ => return p,
        }
    };
    let mut active_mem: rustc_hash::FxHashSet<ValueId> = rustc_hash::FxHashSet::default();
    if let Some(entry) = f.blocks.first() {
        for (p, &v) in f.params.iter().zip(&entry.params) {
            let value = types.pointee(p.ty).map(|(t, _)| t).unwrap_or(p.ty);
            let differentiable = !p.no_diff && types.differential(value).is_some();
            match p.dir {
                ParamDir::In => active[v.index()] = differentiable,
                ParamDir::InOut => {
                    if differentiable {
                        active_mem.insert(v);
                    }
                }
                ParamDir::Out => {}
            }
        }
    }
    // Until nothing changes, in reverse post-order (definitions before
    // their uses, so that a pass or two suffices however long the
    // function is), then the unreachable blocks.
    let mut order = f.reverse_post_order();
    let mut listed = vec![false; f.blocks.len()];
    for b in &order {
        listed[b.index()] = true;
    }
    order.extend(f.block_ids().filter(|b| !listed[b.index()]));
    loop {
        let mut changed = false;
        let set = |v: ValueId, active: &mut Vec<bool>, changed: &mut bool| {
            if !active[v.index()] {
                active[v.index()] = true;
                *changed = true;
            }
        };
        for &b in &order {
            let block = f.block(b);
            for &i in &block.insts {
                let Some(op) = f.op(i) else { continue };
                match op {
                    // (Texture reads and atomics carry no derivative.)
                    Op::Const(_)
                    | Op::Var
                    | Op::Global(_)
                    | Op::Detach(_)
                    | Op::Barrier(_)
                    | Op::Subgroup(..)
                    | Op::Texture(..)
                    | Op::Atomic { .. } => {}
                    Op::FieldAddr(..) | Op::ElementAddr(..) | Op::ArrayLength(_) => {}
                    Op::Load(p) => {
                        let b = base(*p);
                        let is_buffer = matches!(f.op(b), Some(Op::Global(_)));
                        if !is_buffer && active_mem.contains(&b) {
                            set(i, &mut active, &mut changed);
                        }
                    }
                    Op::Store { ptr, value } => {
                        if active[value.index()] && active_mem.insert(base(*ptr)) {
                            changed = true;
                        }
                    }
                    Op::Call(g, args) => {
                        // (A user-written backward derivative may produce
                        // derivatives from nothing: one that reads a
                        // parameter buffer, say.)
                        let any = custom.contains(g)
                            || args.iter().any(|a| active[a.index()] || active_mem.contains(&base(*a)));
                        if any {
                            set(i, &mut active, &mut changed);
                            // What the callee writes through pointers.
                            for a in args {
                                if types.pointee(f.value(*a).ty).is_some() && active_mem.insert(base(*a)) {
                                    changed = true;
                                }
                            }
                        }
                    }
                    op => {
                        if op.operands().iter().any(|o| active[o.index()]) {
                            set(i, &mut active, &mut changed);
                        }
                    }
                }
            }
            let edges: Vec<(BlockId, &Vec<ValueId>)> = match &block.term {
                Terminator::Branch { target, args } => vec![(*target, args)],
                Terminator::Loop { header, args, .. } => vec![(*header, args)],
                _ => Vec::new(),
            };
            for (target, args) in edges {
                for (&p, a) in f.block(target).params.iter().zip(args) {
                    if active[a.index()] {
                        set(p, &mut active, &mut changed);
                    }
                }
            }
        }
        if !changed {
            return active;
        }
    }
}
