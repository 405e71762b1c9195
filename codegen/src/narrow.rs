//! Narrowing of aggregate loads: a part taken out of an array or struct
//! loaded from memory (`let a = *p; … a.w[i]`) is loaded on its own
//! (`(*p).w[i]`) when nothing can write to that part of memory between
//! the load and the use.
//!
//! A dynamic index into a value is not something SPIR-V can express
//! without memory: naga copies the whole aggregate into a fresh local
//! variable at every such access, so a loop summing the elements of a
//! loaded 256-element array copied the array once per iteration. Drivers
//! do not reliably undo that (lavapipe ran the MLP benchmark 30× slower
//! than the reference compiler's code, which indexes through the
//! variable; NVIDIA's driver 1.5× slower). Constant-index extracts from a
//! large loaded aggregate are narrowed too: the whole value would
//! otherwise be live at once.
//!
//! Memory considered: local variables, pointer parameters (`out`,
//! `inout`), and read-only globals (constant buffers, read-only storage
//! buffers), which nothing writes. A write is a store, an atomic, or a
//! call given a pointer into the same root; two accesses conflict unless
//! their paths of constant indices differ at some level. A write
//! conflicts with a load when it can run after it: later in the same
//! block, or in a block reachable from the load's block.

use rustc_hash::FxHashMap as HashMap;

use crate::ir::{AddressSpace, BlockId, Function, Module, Op, Type, Types, Value, ValueId, ValueKind};

/// Narrow the aggregate loads of every function.
pub fn run(module: &mut Module) {
    let Module { functions, types, globals, .. } = module;
    let read_only: Vec<bool> = globals
        .iter()
        .map(|g| matches!(g.space, AddressSpace::Uniform | AddressSpace::Storage { writable: false }))
        .collect();
    for f in functions.iter_mut() {
        narrow(types, &read_only, f);
    }
}

/// Where memory an access touches lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Root {
    /// A local variable (the `Var` instruction).
    Var(ValueId),
    /// Any pointer parameter: two of them may point to the same variable.
    Param,
    /// A global nothing writes.
    ReadOnly,
    /// Another global: no local variable or parameter.
    Global,
}

/// An access path below its root: constant indices, `None` for a dynamic
/// one.
type Path = Vec<Option<u32>>;

/// The writes to one root, as a tree of their paths: finding those that
/// overlap an access visits the writes along its path (and below where
/// it ends or indexes dynamically), not every write to the root. An
/// unrolled kernel writes thousands of elements of one array, and reads
/// as many: a list of writes made narrowing quadratic.
#[derive(Default)]
struct Writes {
    /// The writes whose path ends here: (block, position).
    here: Vec<(BlockId, usize)>,
    /// Deeper writes by the constant index at this level.
    by_index: HashMap<u32, Writes>,
    /// Deeper writes at a dynamic index at this level.
    dynamic: Option<Box<Writes>>,
}

impl Writes {
    fn add(&mut self, path: &[Option<u32>], at: (BlockId, usize)) {
        match path.split_first() {
            None => self.here.push(at),
            Some((Some(i), rest)) => self.by_index.entry(*i).or_default().add(rest, at),
            Some((None, rest)) => self.dynamic.get_or_insert_with(Default::default).add(rest, at),
        }
    }

    /// Whether a write that may touch what `path` reaches satisfies `f`.
    /// Two paths overlap unless they differ in a constant index at some
    /// level (a dynamic index may be any; a shorter path covers all
    /// below it).
    fn any_overlapping(&self, path: &[Option<u32>], f: &mut dyn FnMut((BlockId, usize)) -> bool) -> bool {
        if self.here.iter().any(|&w| f(w)) {
            return true;
        }
        let rest = path.get(1..).unwrap_or(&[]);
        if self.dynamic.as_deref().is_some_and(|w| w.any_overlapping(rest, f)) {
            return true;
        }
        match path.first() {
            Some(Some(i)) => self.by_index.get(i).is_some_and(|w| w.any_overlapping(rest, f)),
            // The access covers every index here.
            Some(None) | None => self.by_index.values().any(|w| w.any_overlapping(rest, f)),
        }
    }
}

/// The root and path of the pointer `ptr`, when its memory is tracked.
fn root_of(func: &Function, read_only: &[bool], mut ptr: ValueId) -> Option<(Root, Path)> {
    let mut path = Vec::new();
    loop {
        match &func.value(ptr).kind {
            ValueKind::Inst(Op::FieldAddr(base, i)) => {
                path.push(Some(*i));
                ptr = *base;
            }
            ValueKind::Inst(Op::ElementAddr(base, i)) => {
                path.push(func.const_index(*i));
                ptr = *base;
            }
            ValueKind::Inst(Op::Var) => {
                path.reverse();
                return Some((Root::Var(ptr), path));
            }
            ValueKind::Inst(Op::Global(g)) => {
                path.reverse();
                let read_only = read_only.get(g.index()).copied().unwrap_or(false);
                return Some((if read_only { Root::ReadOnly } else { Root::Global }, path));
            }
            ValueKind::Param { block, .. } if *block == Function::ENTRY => {
                path.reverse();
                return Some((Root::Param, path));
            }
            _ => return None,
        }
    }
}

/// The pointer, if any, an instruction writes through; a call's every
/// pointer argument.
fn written(types: &Types, func: &Function, op: &Op) -> Vec<ValueId> {
    match op {
        Op::Store { ptr, .. } | Op::Atomic { ptr, .. } => vec![*ptr],
        Op::Call(_, args) => args.iter().copied().filter(|&a| types.pointee(func.value(a).ty).is_some()).collect(),
        _ => Vec::new(),
    }
}

fn narrow(types: &mut Types, read_only: &[bool], func: &mut Function) {
    // Every write, by root and path: its block and position.
    let mut writes: HashMap<Root, Writes> = HashMap::default();
    let mut any_load = false;
    for b in func.block_ids() {
        for (pos, &v) in func.block(b).insts.iter().enumerate() {
            let Some(op) = func.op(v) else { continue };
            any_load |= matches!(op, Op::Load(_));
            for ptr in written(types, func, op) {
                match root_of(func, read_only, ptr) {
                    Some((root, path)) => writes.entry(root).or_default().add(&path, (b, pos)),
                    // A write through a pointer chosen at run time (a
                    // block parameter): anything may change.
                    None => return,
                }
            }
        }
    }
    if !any_load {
        return;
    }
    let mut reach: HashMap<BlockId, Vec<bool>> = HashMap::default();
    // Where each original instruction is.
    let mut position: Vec<Option<(BlockId, usize)>> = vec![None; func.values.len()];
    for b in func.block_ids() {
        for (pos, &v) in func.block(b).insts.iter().enumerate() {
            position[v.index()] = Some((b, pos));
        }
    }
    // New address instructions, to go right before the instruction
    // (now a load) that uses them.
    let mut before: HashMap<ValueId, ValueId> = HashMap::default();
    for b in func.reverse_post_order() {
        for pos in 0..func.block(b).insts.len() {
            let u = func.block(b).insts[pos];
            let (base, index) = match func.op(u) {
                Some(Op::Extract(a, i)) => (*a, Err(*i)),
                Some(Op::ExtractDynamic(a, i)) => (*a, Ok(*i)),
                _ => continue,
            };
            let Some(&Op::Load(ptr)) = func.op(base) else { continue };
            let loaded = func.value(base).ty;
            let aggregate = matches!(types.get(loaded), Type::Array(..) | Type::Struct { .. });
            if !(aggregate || index.is_ok()) {
                continue;
            }
            let Some((root, mut path)) = root_of(func, read_only, ptr).filter(|(r, _)| *r != Root::Global) else {
                continue;
            };
            path.push(match index {
                Err(i) => Some(i),
                Ok(i) => func.const_index(i),
            });
            let Some((load_block, load_pos)) = position.get(base.index()).copied().flatten() else { continue };
            let conflict = writes.get(&root).is_some_and(|ws| {
                ws.any_overlapping(&path, &mut |(wb, wpos)| {
                    (wb == load_block && wpos > load_pos) || reachable(func, &mut reach, load_block)[wb.index()]
                })
            });
            if conflict {
                continue;
            }
            let (pointee, space) = types.pointee(func.value(ptr).ty).expect("a load's operand is a pointer");
            let Some(part) = (match index {
                Err(i) => types.element(pointee, i),
                Ok(_) => types.element(pointee, 0),
            }) else {
                continue;
            };
            let part_ty = types.intern(part);
            let addr_ty = types.intern(Type::Ptr(part_ty, space));
            let addr = ValueId(func.values.len() as u32);
            let span = func.value(u).span;
            func.values.push(Value {
                ty: addr_ty,
                kind: ValueKind::Inst(match index {
                    Err(i) => Op::FieldAddr(ptr, i),
                    Ok(i) => Op::ElementAddr(ptr, i),
                }),
                span,
            });
            func.values[u.index()].kind = ValueKind::Inst(Op::Load(addr));
            before.insert(u, addr);
            // The new load stands where the extract stood.
            position[u.index()] = Some((b, pos));
        }
    }
    if before.is_empty() {
        return;
    }
    for block in &mut func.blocks {
        if !block.insts.iter().any(|v| before.contains_key(v)) {
            continue;
        }
        let mut insts = Vec::with_capacity(block.insts.len() + before.len());
        for &v in &block.insts {
            if let Some(&a) = before.get(&v) {
                insts.push(a);
            }
            insts.push(v);
        }
        block.insts = insts;
    }
}

/// The blocks reachable from `from` by one or more edges.
fn reachable<'a>(func: &Function, cache: &'a mut HashMap<BlockId, Vec<bool>>, from: BlockId) -> &'a [bool] {
    cache.entry(from).or_insert_with(|| {
        let mut seen = vec![false; func.blocks.len()];
        let mut stack = func.block(from).term.successors().to_vec();
        while let Some(b) = stack.pop() {
            if b.index() < seen.len() && !seen[b.index()] {
                seen[b.index()] = true;
                stack.extend(func.block(b).term.successors());
            }
        }
        seen
    })
}
