//! Scalar replacement of aggregates: a local array or struct variable
//! whose parts are only ever addressed by constant indices becomes one
//! variable per part, which [`mem2reg`](crate::mem2reg) then promotes.
//!
//! After `[ForceUnroll]` every access to a local array of an unrolled
//! loop (`h[j] = tanh(s)`, `… h[i] …`) is at a constant index. Left as an
//! array in memory, each element read is a load, and reverse mode
//! checkpoints loads (memory may have changed): an unrolled MLP saved
//! its hidden layers for the backward pass where the reference compiler,
//! seeing values, recomputes them. Split, the elements are SSA values
//! like any other.
//!
//! A variable is split when every use of its pointer is a load or a
//! store of the whole (not storing the pointer itself), or a
//! `FieldAddr`, or an `ElementAddr` at a constant index within bounds.
//! The part addresses become the parts' variables; a whole load becomes
//! a construction of the parts' loads, a whole store stores each part.
//! Parts that are aggregates themselves are split by the next round.
//! Arrays of more than [`MAX_ELEMENTS`] elements are left alone.

use rustc_hash::FxHashMap as HashMap;

use crate::ir::{Function, Module, Op, Type, TypeId, Types, Value, ValueId, ValueKind};

/// The largest array split into variables.
const MAX_ELEMENTS: u32 = 64;

/// Split the aggregate variables of every function, to a fixed point.
pub fn run(module: &mut Module) {
    for f in &mut module.functions {
        while split(&mut module.types, f) {}
    }
}

/// The parts of an aggregate type, when it is split: their types.
fn parts(types: &Types, ty: TypeId) -> Option<Vec<TypeId>> {
    match types.get(ty) {
        Type::Array(e, n) if *n >= 1 && *n <= MAX_ELEMENTS => Some(vec![*e; *n as usize]),
        Type::Struct { fields, .. } if !fields.is_empty() => Some(fields.iter().map(|f| f.1).collect()),
        _ => None,
    }
}

/// One round: split the variables that qualify. Whether any was.
fn split(types: &mut Types, func: &mut Function) -> bool {
    // Candidate variables, by pointer: their parts' types.
    let mut candidates: HashMap<ValueId, Option<Vec<TypeId>>> = HashMap::default();
    for block in &func.blocks {
        for &v in &block.insts {
            if let Some(Op::Var) = func.op(v) {
                let pointee = types.pointee(func.value(v).ty).map(|(t, _)| t);
                candidates.insert(v, pointee.and_then(|t| parts(types, t)));
            }
        }
    }
    candidates.retain(|_, p| p.is_some());
    if candidates.is_empty() {
        return false;
    }
    let reject = |c: &mut HashMap<ValueId, Option<Vec<TypeId>>>, v: &ValueId| {
        c.remove(v);
    };
    for block in &func.blocks {
        for &v in &block.insts {
            let Some(op) = func.op(v) else { continue };
            match op {
                Op::Load(_) | Op::FieldAddr(..) => {}
                Op::Store { value, .. } => reject(&mut candidates, value),
                Op::ElementAddr(base, i) => {
                    let n = candidates.get(base).and_then(|p| p.as_ref()).map(|p| p.len() as u32);
                    if let Some(n) = n {
                        if func.const_index(*i).is_none_or(|k| k >= n) {
                            reject(&mut candidates, base);
                        }
                    }
                    reject(&mut candidates, i);
                }
                op => op.for_each_operand(|o| reject(&mut candidates, &o)),
            }
        }
        block.term.for_each_operand(|o| reject(&mut candidates, &o));
    }
    if candidates.is_empty() {
        return false;
    }
    // The parts' variables, made right after the variable.
    let mut part_vars: HashMap<ValueId, Vec<ValueId>> = HashMap::default();
    let mut vars: Vec<ValueId> = candidates.keys().copied().collect();
    vars.sort_by_key(|v| v.0);
    for &var in &vars {
        let space = types.pointee(func.value(var).ty).expect("a variable is a pointer").1;
        let span = func.value(var).span;
        let tys = candidates[&var].clone().expect("kept candidates have parts");
        let ids = tys
            .into_iter()
            .map(|t| {
                let ty = types.intern(Type::Ptr(t, space));
                push(func, ty, Op::Var, span)
            })
            .collect();
        part_vars.insert(var, ids);
    }
    // Rewrite the uses; new instructions go before the one they replace.
    let mut redirect: HashMap<ValueId, ValueId> = HashMap::default();
    let mut before: HashMap<ValueId, Vec<ValueId>> = HashMap::default();
    let mut dropped: rustc_hash::FxHashSet<ValueId> = vars.iter().copied().collect();
    let void = types.intern(Type::Void);
    for b in 0..func.blocks.len() {
        for pos in 0..func.blocks[b].insts.len() {
            let v = func.blocks[b].insts[pos];
            let Some(op) = func.op(v).cloned() else { continue };
            let span = func.value(v).span;
            match op {
                Op::FieldAddr(base, k) if part_vars.contains_key(&base) => {
                    redirect.insert(v, part_vars[&base][k as usize]);
                    dropped.insert(v);
                }
                Op::ElementAddr(base, i) if part_vars.contains_key(&base) => {
                    let k = func.const_index(i).expect("a checked constant index");
                    redirect.insert(v, part_vars[&base][k as usize]);
                    dropped.insert(v);
                }
                Op::Load(p) if part_vars.contains_key(&p) => {
                    let mut loads = Vec::new();
                    for &part in &part_vars[&p] {
                        let t = types.pointee(func.value(part).ty).expect("a pointer").0;
                        loads.push(push(func, t, Op::Load(part), span));
                    }
                    before.entry(v).or_default().extend(loads.iter().copied());
                    func.values[v.index()].kind = ValueKind::Inst(Op::Construct(loads));
                }
                Op::Store { ptr, value } if part_vars.contains_key(&ptr) => {
                    let mut insts = Vec::new();
                    for (k, &part) in part_vars[&ptr].clone().iter().enumerate() {
                        let t = types.pointee(func.value(part).ty).expect("a pointer").0;
                        let x = push(func, t, Op::Extract(value, k as u32), span);
                        let s = push(func, void, Op::Store { ptr: part, value: x }, span);
                        insts.extend([x, s]);
                    }
                    before.entry(v).or_default().extend(insts);
                    dropped.insert(v);
                }
                _ => {}
            }
        }
    }
    func.replace_uses(&redirect);
    for block in &mut func.blocks {
        let mut insts = Vec::with_capacity(block.insts.len());
        for &v in &block.insts {
            if let Some(parts) = part_vars.get(&v) {
                insts.extend(parts.iter().copied());
            }
            if let Some(new) = before.get(&v) {
                insts.extend(new.iter().copied());
            }
            if !dropped.contains(&v) {
                insts.push(v);
            }
        }
        block.insts = insts;
    }
    true
}

fn push(func: &mut Function, ty: TypeId, op: Op, span: Option<slang_analysis::TextRange>) -> ValueId {
    let id = ValueId(func.values.len() as u32);
    func.values.push(Value { ty, kind: ValueKind::Inst(op), span });
    id
}
