//! Promotion of local variables to SSA values: loads become the value
//! last stored, and where control flow merges, block parameters carry it.
//!
//! A `Var` is promoted when its pointer is only ever loaded from and
//! stored to directly (not passed to a call, nor addressed in part with
//! `FieldAddr`/`ElementAddr`), and only in reachable blocks. The
//! construction is Braun et al.'s "Simple and Efficient Construction of
//! SSA Form" (2013) over the finished graph: blocks are visited in reverse
//! post-order; a block is sealed once all its predecessors are visited;
//! a read in a block with several predecessors makes a block parameter
//! (a phi), which is removed again when all its incoming values are the
//! same. Reads of a variable that was never written give the type's zero.
//! Values are kept per straight-line run of blocks (a block whose one
//! predecessor has it as its one successor continues that predecessor's
//! run), so that a read late in an unrolled loop does not walk back
//! block by block.
//!
//! A variable that is only ever *read* in part — loads through
//! `FieldAddr`s and constant-index `ElementAddr`s, written only whole —
//! is promoted too: each such load first becomes a load of the whole
//! variable and `Extract`s of the part ([`whole_loads`]), so that reverse
//! mode sees a field of a local copy of a parameter (`this.a`) as an
//! extraction it can recompute rather than a load it must save.
//!
//! Before:
//! ```text
//! b0:  %1 = var; store %1, %0; loop b1 break b3 continue b2
//! b1:  %2 = load %1; ... br b2
//! b2:  %3 = load %1; %4 = add %3, %c; store %1, %4; br b1
//! ```
//! After: `b1(%5)` takes `%0` from `b0` and `%4` from `b2`, and the loads
//! are replaced by `%5`.

use rustc_hash::FxHashMap as HashMap;

use crate::ir::{BlockId, Const, Function, Module, Op, Terminator, Type, TypeId, Types, Value, ValueId, ValueKind};

/// Promote the variables of every function.
pub fn run(module: &mut Module) {
    for f in &mut module.functions {
        promote(&mut module.types, f);
    }
}

fn promote(types: &mut Types, func: &mut Function) {
    whole_loads(types, func);
    let rpo = func.reverse_post_order();
    let mut reachable = vec![false; func.blocks.len()];
    for b in &rpo {
        reachable[b.index()] = true;
    }
    let vars = promotable(func, &reachable);
    if vars.is_empty() {
        return;
    }
    let preds = func.predecessors();
    // Straight-line runs of blocks share their variables' values: a block
    // whose one predecessor has it as its one successor is that
    // predecessor's run (RPO visits a predecessor first).
    let mut run_of: Vec<BlockId> = func.block_ids().collect();
    for &b in &rpo {
        if let [p] = preds[b.index()][..] {
            if p != b && func.block(p).term.successors().len() == 1 {
                run_of[b.index()] = run_of[p.index()];
            }
        }
    }
    let mut ssa = Ssa {
        types,
        func,
        vars,
        preds,
        run_of,
        sealed: vec![false; 0],
        visited: Vec::new(),
        defs: HashMap::default(),
        incomplete: HashMap::default(),
        phi_args: HashMap::default(),
        phi_users: HashMap::default(),
        new_params: HashMap::default(),
        replaced: HashMap::default(),
        zeros: HashMap::default(),
        zero_insts: Vec::new(),
    };
    ssa.sealed = vec![false; ssa.func.blocks.len()];
    ssa.visited = vec![false; ssa.func.blocks.len()];
    ssa.sealed[Function::ENTRY.index()] = true;
    for &b in &rpo {
        ssa.visit(b);
        ssa.visited[b.index()] = true;
        for s in ssa.func.block(b).term.successors() {
            ssa.try_seal(s);
        }
    }
    ssa.finish();
}

/// Rewrite `load(field_addr(var, i))` (and chains of field and
/// constant-index element addresses) as `extract(load(var), i)` for each
/// variable whose part addresses are only loaded from (not stored
/// through, passed on, or indexed dynamically).
fn whole_loads(types: &Types, func: &mut Function) {
    // Part address → (its variable, the path of indices).
    let mut parts: HashMap<ValueId, (ValueId, Vec<u32>)> = HashMap::default();
    let mut ok: HashMap<ValueId, bool> = HashMap::default();
    for (i, v) in func.values.iter().enumerate() {
        if let ValueKind::Inst(Op::Var) = v.kind {
            // (Only plain data: no handles, pointers or runtime arrays.)
            ok.insert(ValueId(i as u32), types.pointee(v.ty).is_some_and(|(t, _)| plain(types, t)));
        }
    }
    if ok.is_empty() {
        return;
    }
    // (Instructions in order of blocks: an address's base is defined
    // before it.)
    let order: Vec<ValueId> = func.block_ids().flat_map(|b| func.block(b).insts.clone()).collect();
    let root = |parts: &HashMap<ValueId, (ValueId, Vec<u32>)>, p: ValueId| match parts.get(&p) {
        Some((r, path)) => Some((*r, path.clone())),
        None => ok.contains_key(&p).then(|| (p, Vec::new())),
    };
    for &v in &order {
        let part = match func.op(v) {
            Some(&Op::FieldAddr(b, i)) => Some((b, Some(i))),
            Some(&Op::ElementAddr(b, i)) => Some((
                b,
                match func.op(i) {
                    Some(&Op::Const(Const::Int(k))) if k >= 0 => Some(k as u32),
                    _ => None,
                },
            )),
            _ => None,
        };
        if let Some((b, Some(i))) = part {
            if let Some((r, mut path)) = root(&parts, b) {
                path.push(i);
                parts.insert(v, (r, path));
            }
        }
    }
    let spoil = |ok: &mut HashMap<ValueId, bool>, p: ValueId| {
        let r = parts.get(&p).map(|(r, _)| *r).or_else(|| ok.contains_key(&p).then_some(p));
        if let Some(r) = r {
            ok.insert(r, false);
        }
    };
    for &v in &order {
        match func.op(v) {
            Some(Op::Load(_)) => {}
            Some(&Op::Store { ptr, value }) => {
                if parts.contains_key(&ptr) {
                    spoil(&mut ok, ptr);
                }
                spoil(&mut ok, value);
            }
            Some(op) if parts.contains_key(&v) => {
                // (Its base is accounted for by the address itself.)
                let mut first = true;
                op.for_each_operand(|o| {
                    if !std::mem::take(&mut first) {
                        spoil(&mut ok, o);
                    }
                });
            }
            Some(op) => op.for_each_operand(|o| spoil(&mut ok, o)),
            None => {}
        }
    }
    for block in &func.blocks {
        block.term.for_each_operand(|o| spoil(&mut ok, o));
    }
    let mut changed = false;
    for b in func.block_ids().collect::<Vec<_>>() {
        let old = std::mem::take(&mut func.blocks[b.index()].insts);
        let mut insts = Vec::with_capacity(old.len());
        for v in old {
            let hit = match func.op(v) {
                Some(Op::Load(p)) => parts.get(p).filter(|(r, _)| ok[r]).map(|(r, path)| (*p, *r, path.clone())),
                _ => None,
            };
            let Some((p, r, path)) = hit else {
                insts.push(v);
                continue;
            };
            // The types along the path: those the addresses point to.
            let mut tys = Vec::with_capacity(path.len());
            let mut a = p;
            while a != r {
                tys.push(types.pointee(func.value(a).ty).expect("an address").0);
                a = match func.op(a) {
                    Some(&(Op::FieldAddr(b, _) | Op::ElementAddr(b, _))) => b,
                    _ => unreachable!("a part address"),
                };
            }
            tys.reverse();
            let span = func.value(v).span;
            let whole_ty = types.pointee(func.value(r).ty).expect("a variable").0;
            let mut cur = ValueId(func.values.len() as u32);
            func.values.push(Value { ty: whole_ty, kind: ValueKind::Inst(Op::Load(r)), span });
            insts.push(cur);
            for (k, (&i, &t)) in path.iter().zip(&tys).enumerate() {
                if k + 1 == path.len() {
                    func.values[v.index()].kind = ValueKind::Inst(Op::Extract(cur, i));
                    insts.push(v);
                } else {
                    let e = ValueId(func.values.len() as u32);
                    func.values.push(Value { ty: t, kind: ValueKind::Inst(Op::Extract(cur, i)), span });
                    insts.push(e);
                    cur = e;
                }
            }
            changed = true;
        }
        func.blocks[b.index()].insts = insts;
    }
    if changed {
        // The part addresses are no longer used.
        let dead: rustc_hash::FxHashSet<ValueId> = parts.iter().filter(|(_, (r, _))| ok[r]).map(|(&a, _)| a).collect();
        for block in &mut func.blocks {
            block.insts.retain(|i| !dead.contains(i));
        }
    }
}

/// Whether values of type `t` are plain data (scalars and aggregates of
/// them).
fn plain(types: &Types, t: TypeId) -> bool {
    match types.get(t) {
        Type::Scalar(_) | Type::Vector(..) | Type::Matrix { .. } => true,
        Type::Array(e, _) => plain(types, *e),
        Type::Struct { fields, .. } => fields.iter().all(|f| plain(types, f.1)),
        Type::DifferentialPair { primal, diff } => plain(types, *primal) && plain(types, *diff),
        _ => false,
    }
}

/// The variables to promote, with their value types.
fn promotable(func: &Function, reachable: &[bool]) -> HashMap<ValueId, TypeId> {
    let def_blocks = func.def_blocks();
    let mut candidates: HashMap<ValueId, bool> = HashMap::default();
    for (i, v) in func.values.iter().enumerate() {
        if let ValueKind::Inst(Op::Var) = v.kind {
            let b = def_blocks[i];
            candidates.insert(ValueId(i as u32), b.is_some_and(|b| reachable[b.index()]));
        }
    }
    for b in func.block_ids() {
        let block = func.block(b);
        for &v in &block.insts {
            let Some(op) = func.op(v) else { continue };
            let direct = match op {
                Op::Load(p) => Some(*p),
                Op::Store { ptr, value } => {
                    // A variable's address stored elsewhere escapes.
                    if let Some(ok) = candidates.get_mut(value) {
                        *ok = false;
                    }
                    Some(*ptr)
                }
                _ => {
                    op.for_each_operand(|o| {
                        if let Some(ok) = candidates.get_mut(&o) {
                            *ok = false;
                        }
                    });
                    None
                }
            };
            if !reachable[b.index()] {
                if let Some(ok) = direct.and_then(|p| candidates.get_mut(&p)) {
                    *ok = false;
                }
            }
        }
        block.term.for_each_operand(|o| {
            if let Some(ok) = candidates.get_mut(&o) {
                *ok = false;
            }
        });
    }
    candidates.into_iter().filter(|&(_, ok)| ok).map(|(v, _)| (v, func.value(v).ty)).collect()
}

struct Ssa<'a> {
    types: &'a mut Types,
    func: &'a mut Function,
    /// Promoted variable → its pointer type.
    vars: HashMap<ValueId, TypeId>,
    preds: Vec<Vec<BlockId>>,
    /// The first block of each block's straight-line run: the block the
    /// run's variable values are kept for. (Unrolled loops are long runs
    /// of blocks; keeping values per block walked every variable read
    /// late in a run back through the run, and kept a value per block
    /// and variable: quadratic in the width of an unrolled layer.)
    run_of: Vec<BlockId>,
    sealed: Vec<bool>,
    visited: Vec<bool>,
    /// The value of a variable at the end of a run of blocks (so far).
    defs: HashMap<(BlockId, ValueId), ValueId>,
    /// Parameters made in blocks not yet sealed: (variable, parameter).
    incomplete: HashMap<BlockId, Vec<(ValueId, ValueId)>>,
    /// Incoming values of each new parameter, one per predecessor edge.
    phi_args: HashMap<ValueId, Vec<ValueId>>,
    /// The new parameters each value is an incoming value of (also
    /// through parameters replaced by it): those to revisit when it turns
    /// out trivial, without scanning every parameter (unrolled code with
    /// branches has thousands).
    phi_users: HashMap<ValueId, Vec<ValueId>>,
    /// New parameters of each block, in creation order (removed ones
    /// are dropped at the end).
    new_params: HashMap<BlockId, Vec<ValueId>>,
    /// Loads and trivial parameters replaced by other values.
    replaced: HashMap<ValueId, ValueId>,
    zeros: HashMap<TypeId, ValueId>,
    /// Zero values, to go at the start of the entry block.
    zero_insts: Vec<ValueId>,
}

impl Ssa<'_> {
    fn resolve(&self, mut v: ValueId) -> ValueId {
        while let Some(&r) = self.replaced.get(&v) {
            v = r;
        }
        v
    }

    fn value_ty(&self, var: ValueId) -> TypeId {
        self.types.pointee(self.vars[&var]).expect("a variable is a pointer").0
    }

    fn visit(&mut self, b: BlockId) {
        // (Reads add values and parameters, never instructions.)
        for k in 0..self.func.block(b).insts.len() {
            let v = self.func.block(b).insts[k];
            match self.func.op(v) {
                Some(&Op::Load(p)) if self.vars.contains_key(&p) => {
                    let value = self.read(p, b);
                    self.replaced.insert(v, value);
                }
                Some(&Op::Store { ptr, value }) if self.vars.contains_key(&ptr) => {
                    let value = self.resolve(value);
                    self.defs.insert((self.run_of[b.index()], ptr), value);
                }
                _ => {}
            }
        }
    }

    fn try_seal(&mut self, b: BlockId) {
        if self.sealed[b.index()] || !self.preds[b.index()].iter().all(|p| self.visited[p.index()]) {
            return;
        }
        self.sealed[b.index()] = true;
        for (var, param) in self.incomplete.remove(&b).unwrap_or_default() {
            self.add_phi_operands(var, param, b);
        }
    }

    fn read(&mut self, var: ValueId, b: BlockId) -> ValueId {
        let b = self.run_of[b.index()];
        if let Some(&v) = self.defs.get(&(b, var)) {
            return self.resolve(v);
        }
        let preds = self.preds[b.index()].clone();
        let value = if !self.sealed[b.index()] {
            let param = self.new_param(b, var);
            self.incomplete.entry(b).or_default().push((var, param));
            param
        } else if preds.is_empty() {
            let t = self.value_ty(var);
            self.zero(t)
        } else if let [p] = preds.as_slice() {
            self.read(var, *p)
        } else {
            let param = self.new_param(b, var);
            self.defs.insert((b, var), param);
            self.add_phi_operands(var, param, b)
        };
        self.defs.insert((b, var), value);
        value
    }

    fn new_param(&mut self, b: BlockId, var: ValueId) -> ValueId {
        let ty = self.value_ty(var);
        let span = self.func.value(var).span;
        let v = ValueId(self.func.values.len() as u32);
        // The index is set when the parameters are final.
        self.func.values.push(Value { ty, kind: ValueKind::Param { block: b, index: 0 }, span });
        self.new_params.entry(b).or_default().push(v);
        v
    }

    fn add_phi_operands(&mut self, var: ValueId, param: ValueId, b: BlockId) -> ValueId {
        let preds = self.preds[b.index()].clone();
        let args: Vec<ValueId> = preds.iter().map(|&p| self.read(var, p)).collect();
        for &a in &args {
            let a = self.resolve(a);
            if a != param {
                self.phi_users.entry(a).or_default().push(param);
            }
        }
        self.phi_args.insert(param, args);
        self.remove_trivial(param)
    }

    /// A parameter whose incoming values are all one value (or itself)
    /// is that value.
    fn remove_trivial(&mut self, param: ValueId) -> ValueId {
        let Some(args) = self.phi_args.get(&param) else { return param };
        let mut same = None;
        for &a in args {
            let a = self.resolve(a);
            if a == param || Some(a) == same {
                continue;
            }
            if same.is_some() {
                return param; // merges different values
            }
            same = Some(a);
        }
        let same = match same {
            Some(s) => s,
            None => {
                let t = self.func.value(param).ty;
                self.zero(t)
            }
        };
        self.replaced.insert(param, same);
        self.phi_args.remove(&param);
        // Parameters that took this one take `same` now, and may have
        // become trivial too.
        let users = self.phi_users.remove(&param).unwrap_or_default();
        self.phi_users.entry(same).or_default().extend(users.iter().copied().filter(|&u| u != same));
        for u in users {
            if u != param && !self.replaced.contains_key(&u) {
                self.remove_trivial(u);
            }
        }
        same
    }

    /// The zero of a type, made once at the start of the entry block.
    fn zero(&mut self, ty: TypeId) -> ValueId {
        if let Some(&z) = self.zeros.get(&ty) {
            return z;
        }
        let op = match self.types.get(ty).clone() {
            Type::Scalar(s) => Op::Const(match s {
                slang_analysis::ty::Scalar::Bool => Const::Bool(false),
                s if s.is_float() => Const::Float(0.0),
                _ => Const::Int(0),
            }),
            Type::Vector(s, _) | Type::Matrix { scalar: s, .. } => {
                let st = self.types.intern(Type::Scalar(s));
                Op::Splat(self.zero(st))
            }
            Type::Array(e, n) => Op::Construct((0..n).map(|_| self.zero(e)).collect()),
            Type::Struct { fields, .. } => Op::Construct(fields.iter().map(|f| self.zero(f.1)).collect()),
            Type::DifferentialPair { primal, diff } => Op::Construct(vec![self.zero(primal), self.zero(diff)]),
            // Only value types are promoted.
            _ => Op::Construct(Vec::new()),
        };
        let v = ValueId(self.func.values.len() as u32);
        self.func.values.push(Value { ty, kind: ValueKind::Inst(op), span: None });
        self.zero_insts.push(v);
        self.zeros.insert(ty, v);
        v
    }

    /// Rewrite the function: drop the promoted variables and their loads
    /// and stores, use the values they stood for, and add the parameters
    /// and branch arguments.
    fn finish(mut self) {
        let vars = std::mem::take(&mut self.vars);
        for b in 0..self.func.blocks.len() {
            let insts = std::mem::take(&mut self.func.blocks[b].insts);
            let kept: Vec<ValueId> = insts
                .into_iter()
                .filter(|&v| match self.func.op(v) {
                    Some(Op::Var) => !vars.contains_key(&v),
                    Some(Op::Load(p)) | Some(Op::Store { ptr: p, .. }) => !vars.contains_key(p),
                    _ => true,
                })
                .collect();
            self.func.blocks[b].insts = kept;
        }
        let mut entry = std::mem::take(&mut self.zero_insts);
        entry.append(&mut self.func.blocks[Function::ENTRY.index()].insts);
        self.func.blocks[Function::ENTRY.index()].insts = entry;
        // New parameters that survived, and their arguments on each edge.
        let mut blocks: Vec<BlockId> = self.new_params.keys().copied().collect();
        blocks.sort();
        for b in blocks {
            let params: Vec<ValueId> =
                self.new_params[&b].iter().copied().filter(|p| !self.replaced.contains_key(p)).collect();
            for &p in &params {
                let index = self.func.blocks[b.index()].params.len() as u32;
                self.func.values[p.index()].kind = ValueKind::Param { block: b, index };
                self.func.blocks[b.index()].params.push(p);
            }
            let preds = self.preds[b.index()].clone();
            // One pass per edge (a block may be a target of several edges
            // of the same predecessor only through distinct terminators).
            for (edge, &pred) in preds.iter().enumerate() {
                let args: Vec<ValueId> = params.iter().map(|p| self.resolve(self.phi_args[p][edge])).collect();
                let term = &mut self.func.blocks[pred.index()].term;
                match term {
                    Terminator::Branch { target, args: a } | Terminator::Loop { header: target, args: a, .. }
                        if *target == b =>
                    {
                        a.extend(args)
                    }
                    _ => unreachable!("a block with several predecessors is entered by branches"),
                }
            }
        }
        // Use the values the loads stood for.
        let replaced = std::mem::take(&mut self.replaced);
        let resolve = |mut v: ValueId| {
            while let Some(&r) = replaced.get(&v) {
                v = r;
            }
            v
        };
        for b in 0..self.func.blocks.len() {
            for i in 0..self.func.blocks[b].insts.len() {
                let v = self.func.blocks[b].insts[i];
                if let ValueKind::Inst(op) = &mut self.func.values[v.index()].kind {
                    op.map_operands(resolve);
                }
            }
            self.func.blocks[b].term.map_operands(resolve);
        }
    }
}
