//! The recomputation of what the backward part reads ([`Recompute`]):
//! arithmetic, merges, induction variables, calls, parts of variables,
//! entry values and memory nothing writes (the module doc lists the
//! rules).

use super::*;

/// Whether an instruction of `f` may be computed again from its operands.
pub(super) fn recomputable_op(op: Option<&Op>) -> bool {
    op.is_some_and(|op| matches!(op, Op::Intrinsic(..)) || op.is_value_arithmetic())
}

pub(super) struct Recompute<'a> {
    src: &'a Function,
    func: &'a mut Function,
    types: &'a mut Types,
    combined: &'a Combined,
    /// Save variable → save.
    by_var: HashMap<ValueId, usize>,
    /// Value of `f` → its save.
    by_origin: HashMap<ValueId, usize>,
    /// (value of `f`, block) → its value there, recomputed or read.
    memo: HashMap<(ValueId, BlockId), ValueId>,
    /// Instructions made for the load being replaced, in order.
    pending: Vec<ValueId>,
    /// The functions `f` calls that are computed again, with their
    /// parameters' directions ([`pure_callees`]).
    pure: HashMap<FuncId, Vec<ParamDir>>,
    /// (call of `f`, argument, block) → the variable holding what a
    /// recomputed call left in its `inout`/`out` argument there.
    after_call: HashMap<(ValueId, usize, BlockId), ValueId>,
    /// The saves the backward part reads before this pass (a save read
    /// anyway costs nothing more to recompute from).
    read_saves: HashSet<ValueId>,
    /// What [`Self::feasible`] found, per value and loop level.
    feasible_memo: RefCell<HashMap<(ValueId, Option<usize>), bool>>,
    /// The predecessors of `f`'s blocks.
    preds: Vec<Vec<BlockId>>,
    /// Per global: whether nothing writes it (constant and read-only
    /// buffers, texture and sampler handles).
    constant_globals: Vec<bool>,
    /// Per `inout` parameter of `f` whose initial value the backward part
    /// has ([`Combined::initial`]): where writes to it may have run.
    writes: HashMap<ValueId, Writes>,
    /// Where each instruction of `f` is: its block and position.
    position: HashMap<ValueId, (BlockId, usize)>,
}

/// Where writes to an `inout` parameter of `f` (through any pointer into
/// it) may have run: the blocks a path from one reaches, and the first
/// write of each block holding one.
pub(super) struct Writes {
    reached: Vec<bool>,
    first: HashMap<BlockId, usize>,
}

impl Writes {
    fn of(src: &Function, q: ValueId) -> Writes {
        let mut rooted: HashSet<ValueId> = [q].into_iter().collect();
        loop {
            let before = rooted.len();
            for (i, v) in src.values.iter().enumerate() {
                if let ValueKind::Inst(Op::FieldAddr(b, _) | Op::ElementAddr(b, _)) = &v.kind {
                    if rooted.contains(b) {
                        rooted.insert(ValueId(i as u32));
                    }
                }
            }
            if rooted.len() == before {
                break;
            }
        }
        let mut first = HashMap::default();
        for b in src.block_ids() {
            for (pos, &i) in src.block(b).insts.iter().enumerate() {
                // (Any use of a pointer into it but a load or an address
                // computation may write it.)
                let writes = match src.op(i) {
                    Some(Op::Load(_) | Op::FieldAddr(..) | Op::ElementAddr(..)) | None => false,
                    Some(op) => op.operands().iter().any(|o| rooted.contains(o)),
                };
                if writes {
                    first.entry(b).or_insert(pos);
                }
            }
        }
        let mut reached = vec![false; src.blocks.len()];
        let mut stack: Vec<BlockId> = first.keys().flat_map(|&b| src.block(b).term.successors()).collect();
        while let Some(b) = stack.pop() {
            if !std::mem::replace(&mut reached[b.index()], true) {
                stack.extend(src.block(b).term.successors());
            }
        }
        Writes { reached, first }
    }
}

impl<'a> Recompute<'a> {
    pub(super) fn new(
        src: &'a Function,
        func: &'a mut Function,
        types: &'a mut Types,
        combined: &'a Combined,
        pure: HashMap<FuncId, Vec<ParamDir>>,
        constant_globals: Vec<bool>,
    ) -> Self {
        let mut read_saves = HashSet::default();
        for b in &func.blocks[combined.rev_start.index()..] {
            for &i in &b.insts {
                if let Some(&Op::Load(p)) = func.op(i) {
                    let base = match func.op(p) {
                        Some(&Op::ElementAddr(base, _)) => base,
                        _ => p,
                    };
                    read_saves.insert(base);
                }
            }
        }
        let by_var = combined.saves.iter().enumerate().map(|(i, s)| (s.var, i)).collect();
        let by_origin = combined.saves.iter().enumerate().filter_map(|(i, s)| Some((s.origin?, i))).collect();
        Recompute {
            src,
            func,
            types,
            combined,
            by_var,
            by_origin,
            memo: HashMap::default(),
            pending: Vec::new(),
            pure,
            after_call: HashMap::default(),
            read_saves,
            feasible_memo: RefCell::default(),
            writes: HashMap::default(),
            position: HashMap::default(),
            preds: src.predecessors(),
            constant_globals,
        }
        .with_writes()
    }

    /// [`Self::writes`] and [`Self::position`], when `f` has `inout`
    /// parameters.
    fn with_writes(mut self) -> Self {
        for b in self.src.block_ids() {
            for (pos, &i) in self.src.block(b).insts.iter().enumerate() {
                self.position.insert(i, (b, pos));
            }
        }
        for &q in self.combined.initial.keys() {
            self.writes.insert(q, Writes::of(self.src, q));
        }
        self
    }

    /// When load `x` of `f` reads an `inout` parameter (or a part of it)
    /// before anything may have written it: the parameter, and the
    /// addresses from it to the loaded part (outermost first).
    fn initial_load(&self, x: ValueId) -> Option<(ValueId, Vec<ValueId>)> {
        let Some(&Op::Load(mut p)) = self.src.op(x) else { return None };
        let mut path = Vec::new();
        while let Some(Op::FieldAddr(b, _) | Op::ElementAddr(b, _)) = self.src.op(p) {
            path.push(p);
            p = *b;
        }
        let writes = self.writes.get(&p)?;
        let &(block, pos) = self.position.get(&x)?;
        if writes.reached[block.index()] || writes.first.get(&block).is_some_and(|&w| w < pos) {
            return None;
        }
        path.reverse();
        Some((p, path))
    }

    pub(super) fn run(&mut self) {
        let in_reversed_loop: HashSet<BlockId> =
            self.combined.loops.iter().flat_map(|l| l.rev_blocks.iter().copied()).collect();
        let mut replaced: HashMap<ValueId, ValueId> = HashMap::default();
        for b in self.combined.rev_start.index()..self.func.blocks.len() {
            let block = BlockId(b as u32);
            let old = std::mem::take(&mut self.func.blocks[b].insts);
            let mut insts = Vec::with_capacity(old.len());
            for v in old {
                if let Some(r) = self.replacement(v, block, in_reversed_loop.contains(&block)) {
                    insts.append(&mut self.pending);
                    replaced.insert(v, r);
                } else {
                    insts.push(v);
                }
            }
            self.func.blocks[b].insts = insts;
        }
        if replaced.is_empty() {
            return;
        }
        let map = |v: ValueId| replaced.get(&v).copied().unwrap_or(v);
        for value in &mut self.func.values {
            if let ValueKind::Inst(op) = &mut value.kind {
                op.map_operands(map);
            }
        }
        for block in &mut self.func.blocks {
            block.term.map_operands(map);
        }
    }

    /// What replaces `v`, when `v` loads a saved value that is better
    /// recomputed here, or that this block has read already.
    fn replacement(&mut self, v: ValueId, block: BlockId, in_loop: bool) -> Option<ValueId> {
        let Some(Op::Load(addr)) = self.func.op(v) else { return None };
        let addr = *addr;
        let (save, index) = match (self.by_var.get(&addr), self.func.op(addr)) {
            (Some(&s), _) => (s, None),
            (None, Some(&Op::ElementAddr(base, i))) => (*self.by_var.get(&base)?, Some(i)),
            _ => return None,
        };
        let Save { origin, lp, constant, .. } = self.combined.saves[save];
        if let (Some(c), None, None) = (constant, lp, index) {
            let value = self.func.value(v);
            let (ty, span) = (value.ty, value.span);
            return Some(self.push(Op::Const(c), ty, span));
        }
        let x = origin?;
        // The slot of the iteration being reversed (not, say, the last
        // iteration's, read after the loop's reversal).
        match lp {
            None if index.is_none() => {}
            Some(l) if index.is_some() && index == self.combined.loops[l].rev_index => {}
            _ => return None,
        }
        if let Some(&r) = self.memo.get(&(x, block)) {
            return Some(r);
        }
        // Recomputed at the value's own loop level only (or anywhere, when
        // it is computed from constants alone).
        if (lp.is_none() && in_loop && !self.constant(x)) || !self.feasible(x, lp) {
            self.memo.insert((x, block), v);
            return None;
        }
        Some(self.recompute(x, lp, block))
    }

    /// Whether `x` (saved at loop level `lp`) can be recomputed there:
    /// arithmetic whose every operand is a constant, a parameter, or
    /// saved at that level or an enclosing one.
    fn feasible(&self, x: ValueId, lp: Option<usize>) -> bool {
        if let Some(&known) = self.feasible_memo.borrow().get(&(x, lp)) {
            return known;
        }
        // (Cycles, through block parameters: not feasible.)
        self.feasible_memo.borrow_mut().insert((x, lp), false);
        let ok = match self.src.op(x) {
            None => {
                self.induction(x, lp).is_some()
                    || self.shift(x, lp).is_some()
                    || self.phi(x).is_some_and(|p| p.into_iter().all(|o| self.available(o, lp)))
            }
            Some(_) if self.initial_load(x).is_some() => {
                let (_, path) = self.initial_load(x).expect("checked");
                path.iter().all(|&a| match self.src.op(a) {
                    Some(&Op::ElementAddr(_, i)) => self.available(i, lp),
                    _ => true,
                })
            }
            Some(Op::Call(g, args)) => match self.pure.get(g) {
                Some(dirs) => args.iter().zip(dirs).enumerate().all(|(k, (&a, dir))| match dir {
                    ParamDir::In => self.available(a, lp),
                    ParamDir::Out => true,
                    ParamDir::InOut => self.before_call(x, k, lp),
                }),
                None => false,
            },
            Some(_) if self.after_call_load(x).is_some() => {
                let (call, _, path) = self.after_call_load(x).expect("checked");
                self.feasible(call, lp)
                    && path.iter().all(|&a| match self.src.op(a) {
                        Some(&Op::ElementAddr(_, i)) => self.available(i, lp),
                        _ => true,
                    })
            }
            Some(_) if self.after_store_load(x).is_some() => {
                let (base, stores) = self.after_store_load(x).expect("checked");
                self.available(base, lp) && stores.iter().all(|&(_, v)| self.available(v, lp))
            }
            Some(op) => {
                (recomputable_op(Some(op)) || self.reads_constant_memory(op))
                    && op.operands().into_iter().all(|o| self.available(o, lp))
            }
        };
        self.feasible_memo.borrow_mut().insert((x, lp), ok);
        ok
    }

    /// Whether what `inout` argument `k` of call `x` held before the call
    /// can be had at loop level `lp`: a value of `f` available there, or
    /// a save readable there that the backward part reads anyway (the
    /// callee's backward derivative takes it).
    fn before_call(&self, x: ValueId, k: usize, lp: Option<usize>) -> bool {
        match self.combined.pre_call.get(&(x, k)) {
            Some(&Ok(v)) => self.available(v, lp),
            Some(&Err(var)) => {
                self.read_saves.contains(&var)
                    && self.by_var.get(&var).is_some_and(|&s| self.readable_at(self.combined.saves[s].lp, lp))
            }
            None => false,
        }
    }

    /// The instructions of `f` that run right before `x`, last first:
    /// earlier in its block, then, while a block has a single predecessor
    /// (up to [`MAX_BLOCKS_BACK`] blocks), in that one.
    fn before(&self, x: ValueId) -> impl Iterator<Item = ValueId> + '_ {
        let mut at = self.position.get(&x).copied();
        let mut blocks = 0;
        std::iter::from_fn(move || loop {
            let (b, pos) = at?;
            if pos > 0 {
                at = Some((b, pos - 1));
                return Some(self.src.block(b).insts[pos - 1]);
            }
            blocks += 1;
            match self.preds[b.index()].as_slice() {
                &[p] if blocks < MAX_BLOCKS_BACK => at = Some((p, self.src.block(p).insts.len())),
                _ => return None,
            }
        })
    }

    /// When load `x` of `f` reads (a part of) a local variable that a
    /// call that ran before it ([`Self::before`]) wrote as its
    /// `inout`/`out` argument `k`, nothing touching the variable in between: the call, `k`, and the
    /// addresses from the variable to the loaded part (outermost first).
    fn after_call_load(&self, x: ValueId) -> Option<(ValueId, usize, Vec<ValueId>)> {
        let Some(&Op::Load(mut p)) = self.src.op(x) else { return None };
        let mut path = Vec::new();
        while let Some(Op::FieldAddr(b, _) | Op::ElementAddr(b, _)) = self.src.op(p) {
            path.push(p);
            p = *b;
        }
        if !matches!(self.src.op(p), Some(Op::Var)) {
            return None;
        }
        path.reverse();
        let root = |mut q: ValueId| loop {
            match self.src.op(q) {
                Some(Op::FieldAddr(b, _) | Op::ElementAddr(b, _)) => q = *b,
                _ => return q,
            }
        };
        for w in self.before(x) {
            match self.src.op(w)? {
                Op::Load(_) | Op::FieldAddr(..) | Op::ElementAddr(..) => {}
                Op::Call(g, args) if args.iter().any(|&a| root(a) == p) => {
                    let dirs = self.pure.get(g)?;
                    let mut at = args.iter().enumerate().filter(|&(_, &a)| root(a) == p);
                    let (k, &a) = at.next()?;
                    let written = dirs.get(k).is_some_and(|&d| d != ParamDir::In);
                    return (a == p && written && at.next().is_none()).then_some((w, k, path));
                }
                op => {
                    if op.operands().into_iter().any(|o| root(o) == p) {
                        return None;
                    }
                }
            }
        }
        None
    }

    /// When load `x` of `f` reads a whole local variable whose value is
    /// known from before it ([`Self::before`]) — a load of the whole
    /// variable or a store to it — followed by stores to parts of it at constant
    /// indices, nothing else touching it in between: that value, and the
    /// stores (the parts' positions and values, first to last). The load
    /// is that value with the parts replaced (an array updated element
    /// by element is a value, not memory to save again).
    fn after_store_load(&self, x: ValueId) -> Option<(ValueId, Vec<PartStore>)> {
        let Some(&Op::Load(var)) = self.src.op(x) else { return None };
        if !matches!(self.src.op(var), Some(Op::Var)) || leaves(self.types, self.src.value(x).ty)? > MAX_SELECT_LEAVES {
            return None;
        }
        // The constant positions from `var` to `p`, when `p` is in it.
        let path = |mut p: ValueId| -> Option<Option<Vec<u32>>> {
            let mut path = Vec::new();
            loop {
                match self.src.op(p) {
                    _ if p == var => {
                        path.reverse();
                        return Some(Some(path));
                    }
                    Some(&Op::FieldAddr(b, k)) => {
                        path.push(k);
                        p = b;
                    }
                    Some(&Op::ElementAddr(b, i)) => {
                        match self.src.const_index(i) {
                            Some(k) => path.push(k),
                            None => return Some(None),
                        }
                        p = b;
                    }
                    _ => return None,
                }
            }
        };
        let mut stores = Vec::new();
        for w in self.before(x) {
            match self.src.op(w)? {
                &Op::Load(q) if q == var => {
                    stores.reverse();
                    return Some((w, stores));
                }
                Op::Load(_) | Op::FieldAddr(..) | Op::ElementAddr(..) => {}
                &Op::Store { ptr, value } => match path(ptr) {
                    Some(Some(at)) if at.is_empty() => {
                        stores.reverse();
                        return Some((value, stores));
                    }
                    Some(Some(at)) => stores.push((at, value)),
                    Some(None) => return None,
                    None if path(value).is_some() => return None,
                    None => {}
                },
                op => {
                    if op.operands().into_iter().any(|o| path(o).is_some()) {
                        return None;
                    }
                }
            }
        }
        None
    }

    /// Whether `op` reads memory that nothing writes (so reads the same
    /// again): the address of a global or of a part of one, a load from
    /// a constant or read-only buffer or of a texture's or sampler's
    /// handle, a read of a texture that is not writable.
    fn reads_constant_memory(&self, op: &Op) -> bool {
        let constant_root = |mut p: ValueId| loop {
            match self.src.op(p) {
                Some(Op::FieldAddr(b, _) | Op::ElementAddr(b, _)) => p = *b,
                Some(Op::Global(g)) => break self.constant_globals.get(g.index()).copied().unwrap_or(false),
                _ => break false,
            }
        };
        match op {
            Op::Global(g) => self.constant_globals.get(g.index()).copied().unwrap_or(false),
            Op::FieldAddr(b, _) | Op::ElementAddr(b, _) => constant_root(*b),
            Op::Load(p) => constant_root(*p),
            Op::Texture(
                TextureOp::SampleLevel | TextureOp::Load | TextureOp::Size | TextureOp::Levels | TextureOp::Layers,
                args,
            ) => {
                args.first().is_some_and(|&t| matches!(self.types.get(self.src.value(t).ty), Type::Texture(_, _, None)))
            }
            _ => false,
        }
    }

    /// When block parameter `x` of `f` is another value available at loop
    /// level `lp` plus a constant ([`Self::shifted`]): that value and
    /// the constant.
    fn shift(&self, x: ValueId, lp: Option<usize>) -> Option<(ValueId, i64)> {
        let (base, k) = self.shifted(x, 0);
        (base != x && self.available(base, lp)).then_some((base, k))
    }

    /// When block parameter `x` of `f` is the merge of an `if` whose two
    /// sides reach it through straight-line blocks and the merges of
    /// nested `if`s (`if … else if … else`): the condition and the value
    /// each side passes (recomputed as a `select`; a value a nested `if`
    /// merges is itself such a merge).
    fn phi(&self, x: ValueId) -> Option<[ValueId; 3]> {
        let ValueKind::Param { block, index } = self.src.value(x).kind else { return None };
        // (`select` takes scalars and vectors: arrays and structs of them
        // are selected per part, [`Self::select`].)
        if leaves(self.types, self.src.value(x).ty).is_none_or(|n| n > MAX_SELECT_LEAVES) {
            return None;
        }
        let (cond, then, els) = self.src.blocks.iter().find_map(|b| match b.term {
            Terminator::If { cond, then, els, merge } if merge == block => Some((cond, then, els)),
            _ => None,
        })?;
        let preds_of = |b: BlockId| self.src.blocks.iter().filter(|p| p.term.successors().contains(&b)).count();
        let arg = |side: BlockId| {
            let mut b = side;
            for _ in 0..MAX_BLOCKS_BACK {
                match &self.src.block(b).term {
                    Terminator::Branch { target, args } if *target == block => {
                        return args.get(index as usize).copied()
                    }
                    // (Only into a block nothing else enters: never a
                    // loop's header or exit.)
                    Terminator::Branch { target, args } if args.is_empty() && preds_of(*target) == 1 => b = *target,
                    Terminator::If { merge, .. } => b = *merge,
                    _ => return None,
                }
            }
            None
        };
        let preds = self.src.blocks.iter().filter(|b| b.term.successors().contains(&block)).count();
        (preds == 2).then_some(())?;
        Some([cond, arg(then)?, arg(els)?])
    }

    /// Whether `x` is arithmetic of constants alone (as cheap to compute
    /// again as to read).
    fn constant(&self, x: ValueId) -> bool {
        let op = self.src.op(x);
        matches!(op, Some(Op::Const(_)))
            || (recomputable_op(op) && op.is_some_and(|op| op.operands().into_iter().all(|o| self.constant(o))))
    }

    /// Whether `f`'s `o` can be had at loop level `lp`: a constant, a
    /// parameter, or saved at that level or an enclosing one.
    fn available(&self, o: ValueId, lp: Option<usize>) -> bool {
        matches!(self.src.op(o), Some(Op::Const(_)))
            || self.combined.params.contains_key(&o)
            || match self.by_origin.get(&o) {
                Some(&s) => self.readable_at(self.combined.saves[s].lp, lp),
                // Not saved (the backward part reads it only through
                // what is computed from it): computed again from
                // operands that are.
                None => self.feasible(o, lp),
            }
    }

    /// When block parameter `x` of `f` is an integer induction variable of
    /// loop `lp` (saved per iteration of it): its first value and its
    /// step (negated when the loop subtracts it). Every edge into its
    /// block passes either the same first value (available around `lp`)
    /// or `x + step` / `x - step` (`step` a constant or a value available
    /// around the loop, the same on every back edge); every iteration but
    /// the last runs the back edge.
    fn induction(&self, x: ValueId, lp: Option<usize>) -> Option<(ValueId, Step)> {
        let ValueKind::Param { block, index } = self.src.value(x).kind else { return None };
        let l = lp?;
        self.combined.loops[l].rev_index?;
        let ty = self.src.value(x).ty;
        use slang_analysis::ty::Scalar;
        if !matches!(self.types.get(ty), Type::Scalar(Scalar::Int32 | Scalar::UInt32)) {
            return None;
        }
        let parent = self.combined.loops[l].parent;
        let invariant = |c: ValueId| self.src.value(c).ty == ty && self.available(c, parent);
        let advanced = |a: ValueId| match self.src.op(a) {
            _ if a == x => None,
            Some(Op::Binary(BinaryOp::Add, p, c)) | Some(Op::Binary(BinaryOp::Add, c, p))
                if *p == x && !self.is_const(*c) && invariant(*c) =>
            {
                Some(Step::Value { by: *c, down: false })
            }
            Some(Op::Binary(BinaryOp::Sub, p, c)) if *p == x && !self.is_const(*c) && invariant(*c) => {
                Some(Step::Value { by: *c, down: true })
            }
            _ => match self.shifted(a, 0) {
                (b, k) if b == x => Some(Step::Const(k)),
                _ => None,
            },
        };
        let (mut first, mut step): (Option<ValueId>, Option<Step>) = (None, None);
        for b in &self.src.blocks {
            let args = match &b.term {
                Terminator::Branch { target, args } | Terminator::Loop { header: target, args, .. }
                    if *target == block =>
                {
                    args
                }
                _ => continue,
            };
            let a = *args.get(index as usize)?;
            let this_step = advanced(a).map(|c| vec![c]).or_else(|| self.advanced_unless_last(x, a, block, &advanced));
            match this_step {
                Some(cs) => {
                    for c in cs {
                        if step.is_some_and(|s| !self.same_step(s, c)) {
                            return None;
                        }
                        step = Some(c);
                    }
                }
                None => {
                    if first.is_some_and(|f| f != a) || !self.available(a, parent) {
                        return None;
                    }
                    first = Some(a);
                }
            }
        }
        Some((first?, step?))
    }

    fn is_const(&self, v: ValueId) -> bool {
        matches!(self.src.op(v), Some(Op::Const(Const::Int(_))))
    }

    /// Whether two steps of an induction variable are the same.
    fn same_step(&self, a: Step, b: Step) -> bool {
        match (a, b) {
            (Step::Const(a), Step::Const(b)) => a == b,
            (Step::Value { by: a, down: da }, Step::Value { by: b, down: db }) => a == b && da == db,
            _ => false,
        }
    }

    /// Integer `v` as `base + k` for a constant `k` on every path that
    /// reaches it: through additions and subtractions of constants and
    /// the parameters of merge blocks (every edge passing the same base
    /// plus the same constant), as a counter advanced differently on the
    /// sides of an `if` is. The base is `v` itself when nothing else is
    /// found; a parameter of a loop's header is a base.
    fn shifted(&self, v: ValueId, depth: u32) -> (ValueId, i64) {
        let int = |c: ValueId| match self.src.op(c) {
            Some(Op::Const(Const::Int(k))) => Some(*k),
            _ => None,
        };
        use slang_analysis::ty::Scalar;
        let ty = self.types.get(self.src.value(v).ty);
        if depth > 32 || !matches!(ty, Type::Scalar(Scalar::Int32 | Scalar::UInt32)) {
            return (v, 0);
        }
        let add = |(b, k): (ValueId, i64), d: i64| Some((b, k.checked_add(d)?));
        let found = match &self.src.value(v).kind {
            ValueKind::Inst(Op::Binary(BinaryOp::Add, a, b)) => match (int(*a), int(*b)) {
                (_, Some(k)) => add(self.shifted(*a, depth + 1), k),
                (Some(k), _) => add(self.shifted(*b, depth + 1), k),
                _ => None,
            },
            ValueKind::Inst(Op::Binary(BinaryOp::Sub, a, b)) => {
                int(*b).and_then(|k| add(self.shifted(*a, depth + 1), k.checked_neg()?))
            }
            &ValueKind::Param { block, index } => {
                let mut incoming = self.preds[block.index()].iter().map(|&p| match &self.src.block(p).term {
                    Terminator::Branch { args, .. } => Some(self.shifted(*args.get(index as usize)?, depth + 1)),
                    _ => None,
                });
                let first = incoming.next().flatten();
                first.filter(|&o| incoming.all(|p| p == Some(o)))
            }
            _ => None,
        };
        found.unwrap_or((v, 0))
    }

    /// The steps of `x` when the back edge of its loop (header `header`)
    /// passes `a`, a parameter of a merge block that receives `x + step`
    /// or `x` itself, the latter only on paths where the condition on
    /// which the merge block then leaves the loop holds (the shape
    /// [`normalize`](crate::autodiff::rev::normalize) gives a `for`
    /// loop's continuing part: skipped in the iteration that exits).
    fn advanced_unless_last(
        &self,
        x: ValueId,
        a: ValueId,
        header: BlockId,
        advanced: &dyn Fn(ValueId) -> Option<Step>,
    ) -> Option<Vec<Step>> {
        let ValueKind::Param { block: merge, index } = self.src.value(a).kind else { return None };
        let brk = self.src.blocks.iter().find_map(|b| match b.term {
            Terminator::Loop { header: h, brk, .. } if h == header => Some(brk),
            _ => None,
        })?;
        // The merge block: `if e then (leave the loop) else …`.
        let Terminator::If { cond: e, then, .. } = self.src.block(merge).term else { return None };
        if !matches!(&self.src.block(then).term, Terminator::Branch { target, .. } if *target == brk) {
            return None;
        }
        let same = |c: ValueId| c == e || (self.src.op(c).is_some() && self.src.op(c) == self.src.op(e));
        let mut steps = Vec::new();
        for (i, b) in self.src.blocks.iter().enumerate() {
            let Terminator::Branch { target, args } = &b.term else { continue };
            if *target != merge {
                continue;
            }
            let v = *args.get(index as usize)?;
            if let Some(c) = advanced(v) {
                steps.push(c);
                continue;
            }
            if v != x {
                return None;
            }
            // Reached only when `e` holds: the `then` side of `if e`, or
            // the `else` side of `if !e`.
            let p = BlockId(i as u32);
            let guarded = self.src.blocks.iter().any(|g| match g.term {
                Terminator::If { cond, then, els, .. } => {
                    (then == p && same(cond))
                        || (els == p && matches!(self.src.op(cond), Some(Op::Unary(UnaryOp::Not, n)) if same(*n)))
                }
                _ => false,
            });
            if !guarded {
                return None;
            }
        }
        (!steps.is_empty()).then_some(steps)
    }

    /// Whether a value saved at loop level `saved` can be read at level
    /// `here`: outside every loop, at the same level or in a loop around
    /// it (in the iteration being reversed), or after its loop (the last
    /// iteration's).
    fn readable_at(&self, saved: Option<usize>, here: Option<usize>) -> bool {
        let Some(l) = saved else { return true };
        if self.encloses(l, here) {
            return self.combined.loops[l].rev_index.is_some();
        }
        let lp = &self.combined.loops[l];
        lp.after.and_then(|a| self.by_var.get(&a)).is_some_and(|&s| self.readable_at(self.combined.saves[s].lp, here))
    }

    /// Whether loop `l` is `here` or around it.
    fn encloses(&self, l: usize, here: Option<usize>) -> bool {
        let mut k = here;
        while let Some(i) = k {
            if i == l {
                return true;
            }
            k = self.combined.loops[i].parent;
        }
        false
    }

    /// `x` computed again at loop level `lp` in `block`.
    fn recompute(&mut self, x: ValueId, lp: Option<usize>, block: BlockId) -> ValueId {
        if let Some(&r) = self.memo.get(&(x, block)) {
            return r;
        }
        let Some(op) = self.src.op(x) else {
            if self.induction(x, lp).is_none() {
                if let Some((base, k)) = self.shift(x, lp) {
                    let value = self.src.value(x);
                    let (ty, span) = (value.ty, value.span);
                    let mut r = self.operand(base, lp, block);
                    if k != 0 {
                        let by = self.push(Op::Const(Const::Int(k.unsigned_abs() as i64)), ty, span);
                        let op = if k < 0 { BinaryOp::Sub } else { BinaryOp::Add };
                        r = self.push(Op::Binary(op, r, by), ty, span);
                    }
                    self.memo.insert((x, block), r);
                    return r;
                }
                if let Some([c, a, b]) = self.phi(x) {
                    let ops = [c, a, b].map(|o| self.operand(o, lp, block));
                    let value = self.src.value(x);
                    let r = self.select(ops, value.ty, value.span);
                    self.memo.insert((x, block), r);
                    return r;
                }
            }
            return self.recompute_induction(x, lp, block);
        };
        if let Some((q, path)) = self.initial_load(x) {
            let span = self.src.value(x).span;
            let mut r = self.combined.initial[&q];
            for a in path {
                let (t, _) = self.types.pointee(self.src.value(a).ty).expect("an address");
                let op = match self.src.op(a) {
                    Some(&Op::FieldAddr(_, k)) => Op::Extract(r, k),
                    Some(&Op::ElementAddr(_, i)) => match self.src.const_index(i) {
                        Some(k) => Op::Extract(r, k),
                        None => Op::ExtractDynamic(r, self.operand(i, lp, block)),
                    },
                    _ => unreachable!("a path of addresses"),
                };
                r = self.push(op, t, span);
            }
            self.memo.insert((x, block), r);
            return r;
        }
        if let Some((call, k, path)) = self.after_call_load(x) {
            let mut r = self.recompute_call(call, lp, block)[k].expect("a written argument");
            for a in path {
                let op = match self.src.op(a) {
                    Some(&Op::FieldAddr(_, f)) => Op::FieldAddr(r, f),
                    Some(&Op::ElementAddr(_, i)) => Op::ElementAddr(r, self.operand(i, lp, block)),
                    _ => unreachable!("a path of addresses"),
                };
                r = self.push(op, self.src.value(a).ty, self.src.value(a).span);
            }
            let value = self.src.value(x);
            let r = self.push(Op::Load(r), value.ty, value.span);
            self.memo.insert((x, block), r);
            return r;
        }
        if let Some((base, stores)) = self.after_store_load(x) {
            let value = self.src.value(x);
            let (ty, span) = (value.ty, value.span);
            let mut r = self.operand(base, lp, block);
            for (at, v) in stores {
                let v = self.operand(v, lp, block);
                r = self.replace_part(r, &at, v, ty, span);
            }
            self.memo.insert((x, block), r);
            return r;
        }
        if let Some(Op::Call(g, _)) = self.src.op(x) {
            if self.pure[g].iter().any(|&d| d != ParamDir::In) {
                self.recompute_call(x, lp, block);
                return self.memo[&(x, block)];
            }
        }
        let mut op = op.clone();
        let operands: HashMap<ValueId, ValueId> =
            op.operands().into_iter().map(|o| (o, self.operand(o, lp, block))).collect();
        op.map_operands(|o| operands[&o]);
        let value = self.src.value(x);
        let r = self.push(op, value.ty, value.span);
        self.memo.insert((x, block), r);
        r
    }

    /// Call `x` of `f` (whose callee writes its `inout`/`out` arguments)
    /// made again at loop level `lp` in `block`, once per block: on new
    /// local variables, the `inout` ones holding what the arguments held
    /// before the call. The variables, per argument.
    fn recompute_call(&mut self, x: ValueId, lp: Option<usize>, block: BlockId) -> Vec<Option<ValueId>> {
        let Some(Op::Call(g, args)) = self.src.op(x) else { unreachable!("a call") };
        let (g, args) = (*g, args.clone());
        let dirs = self.pure[&g].clone();
        let vars: Vec<Option<ValueId>> =
            (0..args.len()).map(|k| self.after_call.get(&(x, k, block)).copied()).collect();
        if dirs.iter().zip(&vars).any(|(&d, v)| d != ParamDir::In && v.is_some()) {
            return vars;
        }
        let span = self.src.value(x).span;
        let void = self.types.intern(Type::Void);
        let mut new_args = Vec::with_capacity(args.len());
        let mut vars = vec![None; args.len()];
        for (k, (&a, &dir)) in args.iter().zip(&dirs).enumerate() {
            if dir == ParamDir::In {
                new_args.push(self.operand(a, lp, block));
                continue;
            }
            // (A variable of the prologue, as every variable.)
            let var = ValueId(self.func.values.len() as u32);
            self.func.values.push(Value { ty: self.src.value(a).ty, kind: ValueKind::Inst(Op::Var), span });
            self.func.blocks[0].insts.insert(0, var);
            if dir == ParamDir::InOut {
                let before = match self.combined.pre_call[&(x, k)] {
                    Ok(v) => self.operand(v, lp, block),
                    Err(save) => self.read(self.combined.saves[self.by_var[&save]], lp),
                };
                self.push(Op::Store { ptr: var, value: before }, void, span);
            }
            self.after_call.insert((x, k, block), var);
            vars[k] = Some(var);
            new_args.push(var);
        }
        let r = self.push(Op::Call(g, new_args), self.src.value(x).ty, span);
        self.memo.insert((x, block), r);
        vars
    }

    /// `whole` (of type `ty`) with its part at constant positions `at`
    /// replaced by `v`.
    fn replace_part(
        &mut self,
        whole: ValueId,
        at: &[u32],
        v: ValueId,
        ty: TypeId,
        span: Option<slang_analysis::TextRange>,
    ) -> ValueId {
        let Some((&first, rest)) = at.split_first() else { return v };
        let parts: Vec<TypeId> = match self.types.get(ty).clone() {
            Type::Array(e, n) => vec![e; n as usize],
            Type::Vector(s, n) => vec![self.types.intern(Type::Scalar(s)); n as usize],
            Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
            _ => unreachable!("constant positions are in arrays, vectors and structs"),
        };
        let mut out = Vec::with_capacity(parts.len());
        for (i, t) in parts.into_iter().enumerate() {
            let part = self.push(Op::Extract(whole, i as u32), t, span);
            out.push(if i as u32 == first { self.replace_part(part, rest, v, t, span) } else { part });
        }
        self.push(Op::Construct(out), ty, span)
    }

    /// `c ? a : b` for `[c, a, b]` of type `ty`: a `select` of scalars or
    /// vectors, one per part of arrays and structs ([`leaves`]).
    fn select(&mut self, [c, a, b]: [ValueId; 3], ty: TypeId, span: Option<slang_analysis::TextRange>) -> ValueId {
        let parts: Vec<TypeId> = match self.types.get(ty) {
            Type::Array(e, n) => vec![*e; *n as usize],
            Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
            _ => return self.push(Op::Select(c, a, b), ty, span),
        };
        let mut out = Vec::with_capacity(parts.len());
        for (i, t) in parts.into_iter().enumerate() {
            let pa = self.push(Op::Extract(a, i as u32), t, span);
            let pb = self.push(Op::Extract(b, i as u32), t, span);
            out.push(self.select([c, pa, pb], t, span));
        }
        self.push(Op::Construct(out), ty, span)
    }

    /// Induction variable `x` ([`Self::induction`]) in the reversal of its
    /// loop: `first + (iteration - first iteration) * step`.
    fn recompute_induction(&mut self, x: ValueId, lp: Option<usize>, block: BlockId) -> ValueId {
        let (first, step) = self.induction(x, lp).expect("checked by feasible");
        let l = lp.expect("checked by induction");
        let lp_info = &self.combined.loops[l];
        let (k, before) = (lp_info.rev_index.expect("checked"), lp_info.before);
        let parent = lp_info.parent;
        let span = self.src.value(x).span;
        let ty = self.src.value(x).ty;
        let first = self.operand(first, parent, block);
        let int = self.func.value(k).ty;
        let k0 = match before {
            Some(before) => self.read(self.combined.saves[self.by_var[&before]], lp),
            None => self.push(Op::Const(Const::Int(0)), int, span),
        };
        let mut n = self.push(Op::Binary(BinaryOp::Sub, k, k0), int, span);
        if ty != int {
            n = self.push(Op::Convert(n), ty, span);
        }
        let (by, down) = match step {
            Step::Const(k) => (self.push(Op::Const(Const::Int(k.unsigned_abs() as i64)), ty, span), k < 0),
            Step::Value { by, down } => (self.operand(by, parent, block), down),
        };
        let offset = self.push(Op::Binary(BinaryOp::Mul, n, by), ty, span);
        let towards = if down { BinaryOp::Sub } else { BinaryOp::Add };
        let r = self.push(Op::Binary(towards, first, offset), ty, span);
        self.memo.insert((x, block), r);
        r
    }

    /// The value of `f`'s `o` at loop level `lp` in `block`.
    fn operand(&mut self, o: ValueId, lp: Option<usize>, block: BlockId) -> ValueId {
        if let Some(&r) = self.memo.get(&(o, block)) {
            return r;
        }
        if let Some(Op::Const(c)) = self.src.op(o) {
            let value = self.src.value(o);
            return self.push(Op::Const(*c), value.ty, value.span);
        }
        if let Some(&p) = self.combined.params.get(&o) {
            return p;
        }
        let Some(&s) = self.by_origin.get(&o) else { return self.recompute(o, lp, block) };
        let s = self.combined.saves[s];
        // (Arithmetic of constants alone is computed again at any level;
        // a value of an enclosing loop at its own level, from that loop's
        // iteration being reversed.)
        let own_level = s.lp == lp || s.lp.is_some_and(|l| self.encloses(l, lp));
        if (own_level && self.feasible(o, s.lp)) || self.constant(o) {
            return self.recompute(o, s.lp, block);
        }
        let r = self.read(s, lp);
        self.memo.insert((o, block), r);
        r
    }

    /// Read a save at loop level `here` (see [`Self::readable_at`]).
    fn read(&mut self, s: Save, here: Option<usize>) -> ValueId {
        let span = self.func.span;
        let (at, _) = self.types.pointee(self.func.value(s.var).ty).expect("a variable");
        let Some(l) = s.lp else {
            let op = s.constant.map_or(Op::Load(s.var), Op::Const);
            return self.push(op, at, span);
        };
        let Type::Array(t, _) = *self.types.get(at) else { unreachable!("saves in loops are arrays") };
        let index = match self.encloses(l, here) {
            true => self.combined.loops[l].rev_index.expect("checked by readable_at"),
            false => {
                let after = self.combined.loops[l].after.expect("checked by readable_at");
                let end = self.read(self.combined.saves[self.by_var[&after]], here);
                let int = self.func.value(end).ty;
                let one = self.push(Op::Const(crate::ir::Const::Int(1)), int, span);
                self.push(Op::Binary(crate::ir::BinaryOp::Sub, end, one), int, span)
            }
        };
        let pt = self.types.intern(Type::Ptr(t, AddressSpace::Function));
        let slot = self.push(Op::ElementAddr(s.var, index), pt, span);
        self.push(Op::Load(slot), t, span)
    }

    fn push(&mut self, op: Op, ty: TypeId, span: Option<slang_analysis::TextRange>) -> ValueId {
        let v = ValueId(self.func.values.len() as u32);
        self.func.values.push(Value { ty, kind: ValueKind::Inst(op), span });
        self.pending.push(v);
        v
    }
}

/// A store to a part of a local variable at constant positions (from
/// the variable inward) of a value of `f` ([`Recompute::after_store_load`]).
pub(super) type PartStore = (Vec<u32>, ValueId);

/// How an induction variable advances per iteration
/// ([`Recompute::induction`]).
#[derive(Debug, Clone, Copy)]
pub(super) enum Step {
    /// By a constant.
    Const(i64),
    /// By a loop-invariant value, subtracted when `down`.
    Value { by: ValueId, down: bool },
}

/// The most blocks [`Recompute::before`] goes back through.
pub(super) const MAX_BLOCKS_BACK: u32 = 64;

/// The most `select`s a merge of an `if` is recomputed with.
pub(super) const MAX_SELECT_LEAVES: u32 = 16;

/// How many scalars and vectors make up a value of type `t` (`None`: a
/// type with other parts, which a merge is not recomputed for).
pub(super) fn leaves(types: &Types, t: TypeId) -> Option<u32> {
    match types.get(t) {
        Type::Scalar(_) | Type::Vector(..) => Some(1),
        Type::Array(e, n) => leaves(types, *e)?.checked_mul(*n),
        Type::Struct { fields, .. } => fields.iter().try_fold(0u32, |n, f| n.checked_add(leaves(types, f.1)?)),
        _ => None,
    }
}
