//! `[ForceUnroll]`: loops unrolled before differentiation, so that reverse
//! mode treats their iterations as straight-line code (nothing saved per
//! iteration; what the backward part needs of them is recomputed from
//! the values saved for the enclosing code).
//!
//! Runs on SSA form. The iteration count is found as the reference
//! compiler finds it: by evaluating the loop's exit test, iteration after
//! iteration, from the constant initial values of the loop state
//! (constants, `static const` values, and the counters of enclosing loops
//! unrolled before, since loops are unrolled outermost first). A loop
//! whose count is known is replaced by that many copies of its body, one
//! after the other, then the exit test's block once more (where the
//! values live that the code after the loop reads).
//!
//! Only loops whose single exit is the test at the top (`for`, `while`)
//! and that have no `continue` are unrolled; others stay loops, bounded
//! by their iteration count. A count that cannot be found is an error,
//! unless a bound is written (`[ForceUnroll(n)]`), which then bounds the
//! loop.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use slang_analysis::ty::Scalar;

use crate::ir::{BinaryOp, BlockId, Const, Function, Module, Op, Terminator, Type, Types, UnaryOp, ValueId, ValueKind};
use crate::CodegenError;

/// The most iterations a loop is unrolled to.
pub const MAX_UNROLL: u32 = 1024;

/// Unroll the `[ForceUnroll]` loops of every function.
pub fn run(module: &mut Module) -> Result<(), Vec<CodegenError>> {
    let mut errors = Vec::new();
    for f in &mut module.functions {
        if let Err(e) = unroll_function(f, &module.types) {
            errors.push(e);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Unroll the `[ForceUnroll]` loops of `f`, outermost first.
///
/// In one pass over a worklist, with the predecessors and the readers of
/// each value kept up to date as loops are replaced: unrolled code has
/// thousands of loops (every copy of an inner loop is one), and
/// recomputing an analysis of the whole function per loop would make
/// unrolling quadratic.
pub fn unroll_function(f: &mut Function, types: &Types) -> Result<(), CodegenError> {
    if f.force_unroll.is_empty() {
        return Ok(());
    }
    let mut uses = Uses::of(f);
    let mut preds = f.predecessors();
    // The marked loops (the block entering each, its header) in reverse
    // post-order: an outer loop comes before the loops inside it, and
    // the copies of the inner loops made by unrolling it take its place.
    let mut queue: VecDeque<(BlockId, BlockId)> =
        f.reverse_post_order().into_iter().filter_map(|b| marked_loop(f, b)).collect();
    while let Some((pre, header)) = queue.pop_front() {
        // (Gone: inside a loop unrolled before, whose copies are queued.)
        if marked_loop(f, pre) != Some((pre, header)) {
            continue;
        }
        let (_, range, bounded) = f.force_unroll.iter().find(|u| u.0 == header).copied().expect("a marked loop");
        f.force_unroll.retain(|u| u.0 != header);
        let Some(shape) = shape_of(f, pre, &preds) else {
            continue;
        };
        match trip_count(f, types, &shape) {
            Some(n) if n <= MAX_UNROLL => {
                // The marked loops inside, in the queue's order: their
                // copies, copy after copy, come next.
                // (A set of the loop's blocks, not a flag per block of the
                // function: unrolled code has thousands of loops and
                // blocks.)
                let inside: HashSet<BlockId> = shape.blocks.iter().copied().collect();
                let inner: Vec<(BlockId, BlockId)> = queue.iter().copied().filter(|(p, _)| inside.contains(p)).collect();
                let copies = unroll(f, &mut uses, &mut preds, &shape, n);
                for bmap in copies.iter().rev() {
                    for &(p, h) in inner.iter().rev() {
                        queue.push_front((bmap[&p], bmap[&h]));
                    }
                }
            }
            Some(n) if !bounded => {
                return Err(CodegenError {
                    file: None,
                    range,
                    message: format!(
                        "loop unrolling failed: this `[ForceUnroll]` loop runs {n} times, more than the {MAX_UNROLL} it can be unrolled to"
                    ),
                })
            }
            None if !bounded => {
                return Err(CodegenError {
                    file: None,
                    range,
                    message: "loop unrolling failed: the number of iterations of this `[ForceUnroll]` loop is not a compile-time constant (write `[ForceUnroll(n)]` or `[MaxIters(n)]` to bound it instead)".into(),
                })
            }
            _ => {}
        }
    }
    Ok(())
}

/// Bound the loops that have no written bound (`[MaxIters(n)]`, a literal
/// test) by their iteration count when the exit test's count from the
/// constant initial state is known (`i < N` for a `static const N`, say):
/// reverse mode sizes what it saves per iteration by it, as the reference
/// compiler does. Exits other than the test only end a loop sooner.
pub fn infer_bounds(module: &mut Module) {
    let types = &module.types;
    for f in &mut module.functions {
        let loops: Vec<(BlockId, BlockId)> = (0..f.blocks.len())
            .map(|i| BlockId(i as u32))
            .filter_map(|b| match f.block(b).term {
                Terminator::Loop { header, .. } if !f.max_iters.iter().any(|m| m.0 == header) => Some((b, header)),
                _ => None,
            })
            .collect();
        let preds = f.predecessors();
        for (pre, header) in loops {
            let count = shape_with(f, pre, true, true, &preds).and_then(|shape| trip_count(f, types, &shape));
            if let Some(n) = count.filter(|&n| n <= MAX_UNROLL) {
                f.max_iters.push((header, n));
            }
        }
    }
}

/// How many times the body of the loop entered from `pre` runs, when
/// that is the same on every run: its only exit is the test at the top
/// (no `break` or `return`; a `continue` only skips to the continuing
/// part), evaluated from constant initial state ([`trip_count`]).
pub fn exact_trip_count(f: &Function, types: &Types, pre: BlockId) -> Option<u32> {
    let shape = shape_with(f, pre, false, true, &f.predecessors())?;
    if shape.blocks.iter().any(|&b| matches!(f.block(b).term, Terminator::Return(_))) {
        return None;
    }
    trip_count(f, types, &shape).filter(|&n| n <= MAX_UNROLL)
}

/// The `[ForceUnroll]` loop entered from `b`, if any: `b`, its header.
fn marked_loop(f: &Function, b: BlockId) -> Option<(BlockId, BlockId)> {
    match f.block(b).term {
        Terminator::Loop { header, .. } if f.force_unroll.iter().any(|u| u.0 == header) => Some((b, header)),
        _ => None,
    }
}

/// A loop of the form unrolling handles.
struct Shape {
    pre: BlockId,
    header: BlockId,
    cont: BlockId,
    brk: BlockId,
    /// The header's test: true to run the body.
    cond: ValueId,
    /// The body's first block (the test's merge).
    body: BlockId,
    /// The blocks of the loop copied per iteration: every block from the
    /// header to the back edge, but not the exit test's two arms.
    blocks: Vec<BlockId>,
    init: Vec<ValueId>,
    /// The arguments of the back edge.
    next: Vec<ValueId>,
}

/// The shape of the loop entered from `pre`, given the function's
/// predecessors ([`Function::predecessors`]).
fn shape_of(f: &Function, pre: BlockId, preds: &[Vec<BlockId>]) -> Option<Shape> {
    shape_with(f, pre, false, false, preds)
}

/// [`shape_of`], also for loops with other exits (`break`, `return`) when
/// `other_exits` (the test's count is then an upper bound), and with
/// `continue`s when `continues` (a shape only counted, never copied: the
/// state the back edge passes may then be the continuing block's
/// parameters, which [`eval`] does not know).
fn shape_with(f: &Function, pre: BlockId, other_exits: bool, continues: bool, preds: &[Vec<BlockId>]) -> Option<Shape> {
    let Terminator::Loop { header, brk, cont, ref args } = f.block(pre).term else { return None };
    let Terminator::If { cond, then, els, merge } = f.block(header).term else { return None };
    let jumps_to = |b: BlockId, to: BlockId| {
        let block = f.block(b);
        block.insts.is_empty()
            && block.params.is_empty()
            && matches!(&block.term, Terminator::Branch { target, args } if *target == to && args.is_empty())
    };
    let go_ok = |b: BlockId| b == merge || jumps_to(b, merge);
    // The test's "stay" arm goes on to the body, the other leaves.
    if !(go_ok(then) && jumps_to(els, brk)) {
        return None;
    }
    // The only way out is the test; the only way to the back edge is the
    // end of the body (no `continue`).
    if (preds[brk.index()] != [els] && !other_exits)
        || !f.block(brk).params.is_empty()
        || (preds[cont.index()].len() != 1 && !continues)
    {
        return None;
    }
    let Terminator::Branch { target, args: ref next } = f.block(cont).term else { return None };
    if target != header {
        return None;
    }
    let mut arms = vec![els];
    if then != merge {
        arms.push(then);
    }
    // The loop's blocks: reachable from the header without leaving
    // through the exit, including blocks structured constructs name but
    // control never reaches (a merge after two returns).
    let mut seen = vec![false; f.blocks.len()];
    let mut blocks = Vec::new();
    let mut stack = vec![header];
    seen[brk.index()] = true;
    for &a in &arms {
        seen[a.index()] = true;
    }
    seen[header.index()] = true;
    while let Some(b) = stack.pop() {
        blocks.push(b);
        let mut next_blocks = f.block(b).term.successors().to_vec();
        match f.block(b).term {
            Terminator::If { merge, .. } => next_blocks.push(merge),
            Terminator::Loop { brk, cont, .. } => next_blocks.extend([brk, cont]),
            Terminator::Switch { brk, .. } => next_blocks.push(brk),
            _ => {}
        }
        for s in next_blocks {
            if !seen[s.index()] {
                seen[s.index()] = true;
                stack.push(s);
            }
        }
    }
    blocks.sort();
    Some(Shape { pre, header, cont, brk, cond, body: merge, blocks, init: args.clone(), next: next.clone() })
}

/// How many times the body runs: the header's test evaluated from the
/// loop state's initial values (`None`: not a constant).
fn trip_count(f: &Function, types: &Types, shape: &Shape) -> Option<u32> {
    let params = f.block(shape.header).params.clone();
    let mut state: Vec<Option<Const>> = shape.init.iter().map(|&v| eval(f, types, v, &HashMap::default(), 0)).collect();
    for n in 0..=MAX_UNROLL {
        let env: HashMap<ValueId, Option<Const>> = params.iter().copied().zip(state.iter().copied()).collect();
        match eval(f, types, shape.cond, &env, 0)? {
            Const::Bool(false) => return Some(n),
            Const::Bool(true) => {}
            _ => return None,
        }
        state = shape.next.iter().map(|&v| eval(f, types, v, &env, 0)).collect();
    }
    Some(MAX_UNROLL + 1)
}

/// The constant value of `v` given the values of some block parameters
/// (`None` in `env`: not a constant).
fn eval(f: &Function, types: &Types, v: ValueId, env: &HashMap<ValueId, Option<Const>>, depth: u32) -> Option<Const> {
    if depth > 64 {
        return None;
    }
    if let Some(c) = env.get(&v) {
        return *c;
    }
    let scalar = || match types.get(f.value(v).ty) {
        Type::Scalar(s) => Some(*s),
        _ => None,
    };
    let go = |o: ValueId| eval(f, types, o, env, depth + 1);
    match &f.value(v).kind {
        ValueKind::Param { block, index } => {
            // A parameter of a block entered from one place only (the
            // state of a copy of an unrolled loop): the value passed.
            let preds: Vec<BlockId> =
                f.block_ids().filter(|&b| f.block(b).term.successors().contains(block)).take(2).collect();
            match preds.as_slice() {
                [p] => match &f.block(*p).term {
                    Terminator::Branch { args, .. } => go(*args.get(*index as usize)?),
                    _ => None,
                },
                _ => None,
            }
        }
        ValueKind::Inst(op) => match op {
            Op::Const(c) => Some(*c),
            Op::Convert(a) => convert(go(*a)?, scalar()?),
            Op::Unary(u, a) => match (u, go(*a)?) {
                (UnaryOp::Neg, Const::Int(i)) => Some(Const::Int(i.wrapping_neg())),
                (UnaryOp::Neg, Const::Float(x)) => Some(Const::Float(-x)),
                (UnaryOp::Not, Const::Bool(b)) => Some(Const::Bool(!b)),
                (UnaryOp::BitNot, Const::Int(i)) => convert(Const::Int(!i), scalar()?),
                _ => None,
            },
            Op::Binary(op, a, b) => {
                let (a, b) = (go(*a)?, go(*b)?);
                let r = binary(*op, a, b)?;
                match r {
                    Const::Bool(_) => Some(r),
                    _ => convert(r, scalar()?),
                }
            }
            Op::Select(c, a, b) => match go(*c)? {
                Const::Bool(true) => go(*a),
                Const::Bool(false) => go(*b),
                _ => None,
            },
            _ => None,
        },
    }
}

fn binary(op: BinaryOp, a: Const, b: Const) -> Option<Const> {
    use BinaryOp::*;
    Some(match (a, b) {
        (Const::Int(x), Const::Int(y)) => match op {
            Add => Const::Int(x.wrapping_add(y)),
            Sub => Const::Int(x.wrapping_sub(y)),
            Mul => Const::Int(x.wrapping_mul(y)),
            Div => Const::Int(x.checked_div(y)?),
            Rem => Const::Int(x.checked_rem(y)?),
            Eq | Ne | Lt | Le | Gt | Ge => Const::Bool(compare(op, x.partial_cmp(&y))?),
            BitAnd => Const::Int(x & y),
            BitOr => Const::Int(x | y),
            BitXor => Const::Int(x ^ y),
            Shl => Const::Int(x.checked_shl(u32::try_from(y).ok()?)?),
            Shr => Const::Int(x.checked_shr(u32::try_from(y).ok()?)?),
            And | Or => return None,
        },
        (Const::Float(x), Const::Float(y)) => match op {
            Add => Const::Float(x + y),
            Sub => Const::Float(x - y),
            Mul => Const::Float(x * y),
            Div => Const::Float(x / y),
            Eq | Ne | Lt | Le | Gt | Ge => Const::Bool(compare(op, x.partial_cmp(&y))?),
            _ => return None,
        },
        (Const::Bool(x), Const::Bool(y)) => match op {
            And | BitAnd => Const::Bool(x && y),
            Or | BitOr => Const::Bool(x || y),
            Eq => Const::Bool(x == y),
            Ne | BitXor => Const::Bool(x != y),
            _ => return None,
        },
        _ => return None,
    })
}

/// A comparison's result from the operands' order (`None`: unordered,
/// a NaN — only `!=` holds).
fn compare(op: BinaryOp, order: Option<std::cmp::Ordering>) -> Option<bool> {
    use std::cmp::Ordering::*;
    Some(match (op, order) {
        (BinaryOp::Ne, None) => true,
        (_, None) => false,
        (BinaryOp::Eq, Some(o)) => o == Equal,
        (BinaryOp::Ne, Some(o)) => o != Equal,
        (BinaryOp::Lt, Some(o)) => o == Less,
        (BinaryOp::Le, Some(o)) => o != Greater,
        (BinaryOp::Gt, Some(o)) => o == Greater,
        (BinaryOp::Ge, Some(o)) => o != Less,
        _ => return None,
    })
}

/// `c` as a value of scalar type `s` (integers wrap to their width).
fn convert(c: Const, s: Scalar) -> Option<Const> {
    let int = |i: i64| -> i64 {
        match s {
            Scalar::Int8 => i as i8 as i64,
            Scalar::Int16 => i as i16 as i64,
            Scalar::Int32 => i as i32 as i64,
            Scalar::UInt8 => i as u8 as i64,
            Scalar::UInt16 => i as u16 as i64,
            Scalar::UInt32 => i as u32 as i64,
            _ => i,
        }
    };
    Some(match (c, s) {
        (Const::Bool(b), Scalar::Bool) => Const::Bool(b),
        (Const::Int(i), Scalar::Bool) => Const::Bool(i != 0),
        (Const::Float(x), Scalar::Bool) => Const::Bool(x != 0.0),
        (Const::Bool(b), s) if !s.is_float() => Const::Int(b as i64),
        (Const::Int(i), s) if !s.is_float() => Const::Int(int(i)),
        (Const::Float(x), s) if !s.is_float() => Const::Int(int(x as i64)),
        (Const::Bool(b), _) => Const::Float(b as i64 as f64),
        (Const::Int(i), _) => Const::Float(i as f64),
        (Const::Float(x), _) => Const::Float(x),
    })
}

/// Replace the loop by `n` copies of its blocks, each copy's back edge
/// entering the next copy's header, and a last copy of the header alone
/// that goes on after the loop; `uses` and `preds` follow. Returns each
/// copy's blocks by the blocks they copy (the last copy's not).
fn unroll(
    f: &mut Function,
    uses: &mut Uses,
    preds: &mut Vec<Vec<BlockId>>,
    shape: &Shape,
    n: u32,
) -> Vec<HashMap<BlockId, BlockId>> {
    // The original loop is gone at the end.
    let mut dead = shape.blocks.clone();
    if let Terminator::If { then, els, .. } = f.block(shape.header).term {
        dead.extend([then, els].into_iter().filter(|&b| b != shape.body));
    }
    // Edges change from the block before the loop and from the dead
    // blocks (to none); the copies' edges are new.
    for &b in dead.iter().chain([&shape.pre]) {
        for s in f.block(b).term.successors() {
            if let Some(i) = preds[s.index()].iter().position(|&p| p == b) {
                preds[s.index()].swap_remove(i);
            }
        }
    }
    let first_new = f.blocks.len();
    let mut copies = Vec::new();
    let header_values: Vec<ValueId> = {
        let h = f.block(shape.header);
        h.params.iter().chain(&h.insts).copied().collect()
    };
    // Each copy's header with the block that enters it (`None`: the block
    // before the loop, passing the initial state).
    let mut headers: Vec<(BlockId, Option<BlockId>)> = Vec::new();
    // The back edge of the previous copy, waiting for the next header.
    let mut pending_back_edge: Option<BlockId> = None;
    // What the code after the loop reads of the loop state: the last
    // test's copies.
    let mut last_map = HashMap::default();
    for k in 0..=n {
        let last = k == n;
        let blocks: Vec<BlockId> = if last { vec![shape.header] } else { shape.blocks.clone() };
        let (bmap, vmap) = clone_blocks(f, &blocks);
        for &b in bmap.values() {
            uses.add_block(f, b);
        }
        let h = bmap[&shape.header];
        if let Some(prev) = pending_back_edge.take() {
            if let Terminator::Branch { target, .. } = &mut f.blocks[prev.index()].term {
                *target = h;
            }
            headers.push((h, Some(prev)));
        } else {
            headers.push((h, None));
        }
        if last {
            f.blocks[h.index()].term = Terminator::Branch { target: shape.brk, args: Vec::new() };
            last_map = header_values.iter().filter_map(|v| Some((*v, *vmap.get(v)?))).collect();
        } else {
            f.blocks[h.index()].term = Terminator::Branch { target: bmap[&shape.body], args: Vec::new() };
            pending_back_edge = Some(bmap[&shape.cont]);
        }
        // Loops inside the copy keep their bounds and marks.
        let copied = |b: BlockId| bmap.get(&b).copied().filter(|_| b != shape.header);
        let max_iters: Vec<_> = f.max_iters.iter().filter_map(|&(b, m)| Some((copied(b)?, m))).collect();
        f.max_iters.extend(max_iters);
        let marks: Vec<_> = f.force_unroll.iter().filter_map(|&(b, r, d)| Some((copied(b)?, r, d))).collect();
        f.force_unroll.extend(marks);
        if !last {
            copies.push(bmap);
        }
    }
    f.blocks[shape.pre.index()].term = Terminator::Branch { target: headers[0].0, args: Vec::new() };
    // The code after the loop reads the loop state of the last test.
    for (from, to) in last_map {
        uses.replace(f, from, to);
    }
    // Each copy's header is entered from one place: its parameters are
    // the values passed (so that reverse mode sees the copies as one
    // straight-line computation, recomputable from the loop's inputs).
    // In order: the values a copy passes on may be the parameters of the
    // one before, replaced already.
    for &(h, pred) in &headers {
        let args = match pred {
            None => shape.init.clone(),
            Some(p) => match &mut f.blocks[p.index()].term {
                Terminator::Branch { args, .. } => std::mem::take(args),
                _ => Vec::new(),
            },
        };
        let params = std::mem::take(&mut f.blocks[h.index()].params);
        for (param, arg) in params.into_iter().zip(args) {
            uses.replace(f, param, arg);
        }
    }
    // The original loop is gone.
    let is_dead: HashSet<BlockId> = dead.iter().copied().collect();
    for &b in &dead {
        let block = &mut f.blocks[b.index()];
        block.params.clear();
        block.insts.clear();
        block.term = Terminator::Unreachable;
    }
    f.max_iters.retain(|m| !is_dead.contains(&m.0));
    f.force_unroll.retain(|u| !is_dead.contains(&u.0));
    preds.resize(f.blocks.len(), Vec::new());
    for b in (first_new..f.blocks.len()).map(|b| BlockId(b as u32)).chain([shape.pre]) {
        for s in f.block(b).term.successors() {
            preds[s.index()].push(b);
        }
    }
    copies
}

/// Who reads each value (instructions and terminators), so that replacing
/// a value visits its readers only: unrolling replaces loop state
/// hundreds of times in large functions, and a pass over the whole
/// function each time would make unrolling quadratic. Readers are only
/// ever added; one that no longer reads the value (a cleared block, a
/// replaced terminator) is visited harmlessly, since a replaced value is
/// replaced everywhere.
struct Uses(Vec<Vec<Reader>>);

#[derive(Clone, Copy)]
enum Reader {
    Inst(ValueId),
    Term(BlockId),
}

impl Uses {
    fn of(f: &Function) -> Uses {
        let mut uses = Uses(Vec::new());
        for b in f.block_ids() {
            uses.add_block(f, b);
        }
        uses
    }

    fn add_block(&mut self, f: &Function, b: BlockId) {
        if self.0.len() < f.values.len() {
            self.0.resize(f.values.len(), Vec::new());
        }
        for &i in &f.block(b).insts {
            if let ValueKind::Inst(op) = &f.value(i).kind {
                op.for_each_operand(|v| self.0[v.index()].push(Reader::Inst(i)));
            }
        }
        f.block(b).term.for_each_operand(|v| self.0[v.index()].push(Reader::Term(b)));
    }

    /// Every read of `from` reads `to` instead.
    fn replace(&mut self, f: &mut Function, from: ValueId, to: ValueId) {
        if from == to {
            return;
        }
        let readers = std::mem::take(&mut self.0[from.index()]);
        let rename = |v: ValueId| if v == from { to } else { v };
        for &r in &readers {
            match r {
                Reader::Inst(i) => {
                    if let ValueKind::Inst(op) = &mut f.values[i.index()].kind {
                        op.map_operands(rename);
                    }
                }
                Reader::Term(b) => f.blocks[b.index()].term.map_operands(rename),
            }
        }
        self.0[to.index()].extend(readers);
    }
}

/// Copies of `blocks` with fresh blocks and values; operands defined in
/// them are renamed, others kept; jumps to blocks outside stay.
fn clone_blocks(f: &mut Function, blocks: &[BlockId]) -> (HashMap<BlockId, BlockId>, HashMap<ValueId, ValueId>) {
    let mut bmap = HashMap::default();
    let mut vmap = HashMap::default();
    for &b in blocks {
        let nb = BlockId(f.blocks.len() as u32);
        f.blocks.push(crate::ir::Block { params: Vec::new(), insts: Vec::new(), term: Terminator::Unreachable });
        bmap.insert(b, nb);
    }
    for &b in blocks {
        let nb = bmap[&b];
        let block = f.block(b).clone();
        for &p in &block.params {
            let mut value = f.value(p).clone();
            if let ValueKind::Param { block, .. } = &mut value.kind {
                *block = nb;
            }
            let nv = ValueId(f.values.len() as u32);
            f.values.push(value);
            f.blocks[nb.index()].params.push(nv);
            vmap.insert(p, nv);
        }
        for &i in &block.insts {
            let nv = ValueId(f.values.len() as u32);
            f.values.push(f.value(i).clone());
            f.blocks[nb.index()].insts.push(nv);
            vmap.insert(i, nv);
        }
    }
    let rename = |v: ValueId| vmap.get(&v).copied().unwrap_or(v);
    let rename_block = |b: BlockId| bmap.get(&b).copied().unwrap_or(b);
    for &b in blocks {
        let nb = bmap[&b];
        for i in f.blocks[nb.index()].insts.clone() {
            if let ValueKind::Inst(op) = &mut f.values[i.index()].kind {
                op.map_operands(rename);
            }
        }
        let mut term = f.block(b).term.clone();
        term.map_operands(rename);
        term = match term {
            Terminator::Branch { target, args } => Terminator::Branch { target: rename_block(target), args },
            Terminator::If { cond, then, els, merge } => {
                Terminator::If { cond, then: rename_block(then), els: rename_block(els), merge: rename_block(merge) }
            }
            Terminator::Loop { header, brk, cont, args } => Terminator::Loop {
                header: rename_block(header),
                brk: rename_block(brk),
                cont: rename_block(cont),
                args,
            },
            Terminator::Switch { value, cases, default, brk } => Terminator::Switch {
                value,
                cases: cases.into_iter().map(|(c, t)| (c, rename_block(t))).collect(),
                default: rename_block(default),
                brk: rename_block(brk),
            },
            t @ (Terminator::Return(_) | Terminator::Unreachable) => t,
        };
        f.blocks[nb.index()].term = term;
    }
    (bmap, vmap)
}
