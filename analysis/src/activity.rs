//! The derivative data-flow analysis of a differentiable function, on the
//! typed body.
//!
//! Values are graph nodes: every expression, and every version of a local
//! (a declaration, an assignment, an `out` argument, a merge after
//! branches, a loop head). Edges go from operands to results.
//!
//! * *produce*: values that carry a derivative — reachable from the
//!   differentiable inputs (parameters and `this`) through values of
//!   differentiable type, not through `no_diff` or `detach`;
//! * *expect*: values whose derivative is needed — the differentiable
//!   arguments of differentiable calls and the returned value, and,
//!   backwards, every differentiable operand of those.
//!
//! A call to a non-differentiable function produces no derivative; when
//! its result is expected to have one and one of its operands carries
//! one, it loses a derivative silently: the reference compiler's E41022. Versions of
//! locals make the analysis flow-sensitive (`y = f(x); y = x;` does not
//! need `f`'s derivative).

use std::collections::HashMap;

use crate::hir::{BinaryOp, Body, Expr, ExprId, Stmt, StmtId};

/// What a call does with derivatives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallKind {
    /// A differentiable function: the arguments of its differentiable
    /// parameters need derivatives. Per argument (receiver first for a
    /// method call): (differentiable, `out`/`inout`, `inout`).
    Differentiable(Vec<(bool, bool, bool)>),
    /// Not differentiable: derivatives stop here (what is checked).
    NotDifferentiable(Vec<(bool, bool, bool)>),
    /// Constructors, casts, swizzle-like built-ins: values pass through.
    PassThrough,
    /// `detach(x)`: no derivative.
    Detach,
}

/// What the analysis needs to know beyond the body.
pub(crate) struct Facts<'a> {
    /// Whether each expression's type can carry a derivative (a
    /// differentiable type, or one not known).
    pub diff_type: &'a [bool],
    pub calls: &'a HashMap<ExprId, CallKind>,
    /// Parameters by name: (a differentiable input, written `no_diff`).
    pub params: Vec<(String, bool, bool)>,
    /// `this` carries derivatives (a differentiable type, not
    /// `[NoDiffThis]`, not static).
    pub this_source: bool,
    /// Paths that name fields of `this` (implicit `this`).
    pub this_fields: &'a std::collections::HashSet<ExprId>,
    /// The return value needs a derivative.
    pub return_expected: bool,
}

pub(crate) struct Activity {
    /// Per expression: carries a derivative.
    pub produce: Vec<bool>,
    /// Per expression: its derivative is needed.
    pub expect: Vec<bool>,
    /// Per expression: one of its operands carries a derivative.
    pub inputs_carry: Vec<bool>,
}

struct Graph<'a> {
    body: &'a Body,
    facts: &'a Facts<'a>,
    /// Predecessors (operands) of each node.
    preds: Vec<Vec<usize>>,
    /// Per node: may carry a derivative at all.
    can_carry: Vec<bool>,
    /// Per node: produces no derivative even from operands that carry
    /// one (calls of functions that are not differentiable).
    stops: Vec<bool>,
    /// `detach(…)` calls.
    detach: Vec<bool>,
    /// Sources of derivatives (`no_diff` parameters apart).
    sources: Vec<usize>,
    no_diff_sources: Vec<usize>,
    /// Roots of the expect set.
    roots: Vec<usize>,
    /// Current version of each local.
    env: HashMap<String, usize>,
    /// Versions of locals at `break`/`continue`/end of loop bodies, to
    /// merge at loop heads and exits.
    loop_exits: Vec<Vec<HashMap<String, usize>>>,
    this_node: usize,
}

impl<'a> Graph<'a> {
    fn node(&mut self, can_carry: bool) -> usize {
        self.preds.push(Vec::new());
        self.can_carry.push(can_carry);
        self.stops.push(false);
        self.detach.push(false);
        self.preds.len() - 1
    }

    fn edge(&mut self, from: usize, to: usize) {
        self.preds[to].push(from);
    }

    fn merge(&mut self, envs: &[HashMap<String, usize>]) -> HashMap<String, usize> {
        let mut out = HashMap::new();
        let mut names: Vec<&String> = envs.iter().flat_map(|e| e.keys()).collect();
        names.sort();
        names.dedup();
        for name in names {
            let versions: Vec<usize> = envs.iter().filter_map(|e| e.get(name).copied()).collect();
            if versions.windows(2).all(|w| w[0] == w[1]) {
                out.insert(name.clone(), versions[0]);
                continue;
            }
            let phi = self.node(true);
            for v in versions {
                self.edge(v, phi);
            }
            out.insert(name.clone(), phi);
        }
        out
    }

    fn stmt(&mut self, id: StmtId) {
        match self.body.stmt(id).clone() {
            Stmt::Expr(e) => self.expr(e),
            Stmt::Decl(decls) => {
                for d in decls {
                    let v = self.node(true);
                    if let Some(init) = d.init {
                        self.expr(init);
                        self.edge(init.0 as usize, v);
                    }
                    self.env.insert(d.name.clone(), v);
                }
            }
            Stmt::Block(stmts) => {
                for s in stmts {
                    self.stmt(s);
                }
            }
            Stmt::If { cond, let_binding, then, els } => {
                if let Some(c) = cond {
                    self.expr(c);
                }
                if let Some((name, e)) = let_binding {
                    self.expr(e);
                    let v = self.node(true);
                    self.edge(e.0 as usize, v);
                    self.env.insert(name, v);
                }
                let before = self.env.clone();
                if let Some(t) = then {
                    self.stmt(t);
                }
                let after_then = std::mem::replace(&mut self.env, before);
                if let Some(e) = els {
                    self.stmt(e);
                }
                let after_else = std::mem::take(&mut self.env);
                self.env = self.merge(&[after_then, after_else]);
            }
            Stmt::Loop { init, cond, step, body, .. } => {
                if let Some(i) = init {
                    self.stmt(i);
                }
                // Loop head: a version of every local, fed by the entry
                // and by the end of each iteration.
                let entry = self.env.clone();
                let mut head = HashMap::new();
                for (name, &v) in &entry {
                    let phi = self.node(true);
                    self.edge(v, phi);
                    head.insert(name.clone(), phi);
                }
                self.env = head.clone();
                if let Some(c) = cond {
                    self.expr(c);
                }
                self.loop_exits.push(Vec::new());
                if let Some(b) = body {
                    self.stmt(b);
                }
                if let Some(s) = step {
                    self.expr(s);
                }
                let mut ends = self.loop_exits.pop().unwrap_or_default();
                ends.push(std::mem::take(&mut self.env));
                for end in &ends {
                    for (name, &phi) in &head {
                        if let Some(&v) = end.get(name) {
                            if v != phi {
                                self.edge(v, phi);
                            }
                        }
                    }
                }
                // After the loop: the head's versions (the condition
                // failed there) and those at `break`s.
                let mut exits = vec![head];
                exits.extend(ends);
                self.env = self.merge(&exits);
            }
            Stmt::Switch { scrutinee, cases } => {
                if let Some(s) = scrutinee {
                    self.expr(s);
                }
                let before = self.env.clone();
                let mut outs = vec![before.clone()];
                for (label, stmts) in cases {
                    self.env = before.clone();
                    if let Some(l) = label {
                        self.expr(l);
                    }
                    for s in stmts {
                        self.stmt(s);
                    }
                    outs.push(std::mem::take(&mut self.env));
                }
                self.env = self.merge(&outs);
            }
            Stmt::Return(e) => {
                if let Some(e) = e {
                    self.expr(e);
                    if self.facts.return_expected {
                        self.roots.push(e.0 as usize);
                    }
                }
            }
            Stmt::Break(_) | Stmt::Continue => {
                let env = self.env.clone();
                if let Some(l) = self.loop_exits.last_mut() {
                    l.push(env);
                }
            }
            Stmt::Other(_, stmts) => {
                for s in stmts {
                    self.stmt(s);
                }
            }
            Stmt::TargetSwitch(cases) => {
                for s in cases.into_iter().flat_map(|c| c.stmts) {
                    self.stmt(s);
                }
            }
            Stmt::IntrinsicAsm(_) => {}
            Stmt::Labeled { stmt, .. } | Stmt::Attributed { stmt, .. } => {
                if let Some(s) = stmt {
                    self.stmt(s);
                }
            }
            Stmt::Empty => {}
        }
    }

    /// The local a place expression writes (`x`, `x.f`, `x[i]`, `x.f[i]`).
    fn place_local(&self, e: ExprId) -> Option<String> {
        match self.body.expr(e) {
            Expr::Path(segs, false) if segs.len() == 1 && self.env.contains_key(&segs[0].name) => {
                Some(segs[0].name.clone())
            }
            Expr::Member { receiver, .. } => self.place_local(*receiver),
            Expr::Index { base, .. } => self.place_local(*base),
            _ => None,
        }
    }

    /// A write of `value` (a node) into place `place`: a new version of
    /// the local written (partial writes keep the old version's flow).
    fn write(&mut self, place: ExprId, value: usize, whole: bool) {
        let Some(name) = self.place_local(place) else { return };
        let v = self.node(true);
        self.edge(value, v);
        let partial = !matches!(self.body.expr(place), Expr::Path(..));
        if partial || !whole {
            if let Some(&old) = self.env.get(&name) {
                self.edge(old, v);
            }
        }
        self.env.insert(name, v);
    }

    fn expr(&mut self, id: ExprId) {
        let n = id.0 as usize;
        match self.body.expr(id).clone() {
            Expr::Path(segs, false) if segs.len() == 1 => {
                if let Some(&v) = self.env.get(&segs[0].name) {
                    self.edge(v, n);
                } else if self.facts.this_fields.contains(&id) {
                    self.edge(self.this_node, n);
                }
            }
            Expr::This => self.edge(self.this_node, n),
            Expr::Member { receiver, .. } => {
                self.expr(receiver);
                self.edge(receiver.0 as usize, n);
                // A property whose getter is not differentiable.
                if matches!(self.facts.calls.get(&id), Some(CallKind::NotDifferentiable(_))) {
                    self.stops[n] = true;
                }
            }
            Expr::Index { base, index } => {
                self.expr(base);
                self.expr(index);
                self.edge(base.0 as usize, n);
            }
            Expr::Binary { op, lhs, rhs } => match op {
                BinaryOp::Assign(compound) => {
                    self.expr(rhs);
                    self.expr(lhs);
                    let value = rhs.0 as usize;
                    self.edge(value, n);
                    self.write(lhs, value, compound.is_none());
                }
                BinaryOp::Comma => {
                    self.expr(lhs);
                    self.expr(rhs);
                    self.edge(rhs.0 as usize, n);
                }
                BinaryOp::Compare(_) | BinaryOp::Logic(_) => {
                    self.expr(lhs);
                    self.expr(rhs);
                }
                _ => {
                    self.expr(lhs);
                    self.expr(rhs);
                    self.edge(lhs.0 as usize, n);
                    self.edge(rhs.0 as usize, n);
                }
            },
            Expr::Prefix { expr, .. } | Expr::Postfix { expr, .. } => {
                self.expr(expr);
                self.edge(expr.0 as usize, n);
            }
            Expr::Cast { expr, .. } | Expr::As { expr, .. } => {
                self.expr(expr);
                self.edge(expr.0 as usize, n);
            }
            Expr::Is { expr, .. } => self.expr(expr),
            Expr::Ternary { cond, then, els } => {
                self.expr(cond);
                self.expr(then);
                self.expr(els);
                self.edge(then.0 as usize, n);
                self.edge(els.0 as usize, n);
            }
            Expr::InitList(items) | Expr::Other(items) | Expr::SizeOf { subs: items, .. } => {
                for i in items {
                    self.expr(i);
                    self.edge(i.0 as usize, n);
                }
            }
            Expr::NoDiff(e) => {
                self.expr(e);
                // No derivative comes out; none is asked of the operand.
                self.can_carry[n] = false;
            }
            Expr::Call { callee, args } => self.call(id, callee, &args),
            Expr::Diff { func, .. } => self.expr(func),
            _ => {}
        }
    }

    fn call(&mut self, id: ExprId, callee: ExprId, args: &[ExprId]) {
        let n = id.0 as usize;
        // A method call's receiver is its first operand.
        let receiver = match self.body.expr(callee) {
            Expr::Member { receiver, .. } => {
                let r = *receiver;
                self.expr(r);
                Some(r)
            }
            _ => {
                self.expr(callee);
                None
            }
        };
        for &a in args {
            self.expr(a);
        }
        let operands: Vec<ExprId> = receiver.into_iter().chain(args.iter().copied()).collect();
        let kind = self.facts.calls.get(&id).cloned();
        let params = match &kind {
            Some(CallKind::Differentiable(p)) | Some(CallKind::NotDifferentiable(p)) => p.clone(),
            _ => Vec::new(),
        };
        // Per-parameter facts are for the explicit arguments; a receiver
        // (when the list is one shorter) is an input.
        let offset = operands.len().saturating_sub(params.len());
        for (i, &a) in operands.iter().enumerate() {
            let p = if i >= offset { params.get(i - offset).copied() } else { None };
            let (diff, out, inout) = p.unwrap_or((true, false, false));
            match &kind {
                Some(CallKind::Detach) => self.edge(a.0 as usize, n),
                Some(CallKind::Differentiable(_)) => {
                    if diff && (!out || inout) {
                        self.roots.push(a.0 as usize);
                    }
                    if !out || inout {
                        self.edge(a.0 as usize, n);
                    }
                }
                _ => {
                    if !out || inout {
                        self.edge(a.0 as usize, n);
                    }
                }
            }
            if out {
                // The callee writes the argument: from the call.
                self.write(a, n, !inout);
            }
        }
        match kind {
            Some(CallKind::Detach) => self.detach[n] = true,
            Some(CallKind::NotDifferentiable(_)) => self.stops[n] = true,
            _ => {}
        }
    }
}

/// Runs the analysis on `body`.
pub(crate) fn analyze(body: &Body, facts: &Facts<'_>) -> Activity {
    let n_exprs = body.exprs.len();
    let mut g = Graph {
        body,
        facts,
        preds: vec![Vec::new(); n_exprs],
        can_carry: facts.diff_type.to_vec(),
        stops: vec![false; n_exprs],
        detach: vec![false; n_exprs],
        sources: Vec::new(),
        no_diff_sources: Vec::new(),
        roots: Vec::new(),
        env: HashMap::new(),
        loop_exits: Vec::new(),
        this_node: 0,
    };
    g.can_carry.resize(n_exprs, true);
    g.this_node = g.node(true);
    if facts.this_source {
        g.sources.push(g.this_node);
    }
    for (name, source, no_diff) in &facts.params {
        let v = g.node(true);
        match (source, no_diff) {
            (true, false) => g.sources.push(v),
            (true, true) => g.no_diff_sources.push(v),
            _ => {}
        }
        g.env.insert(name.clone(), v);
    }
    if let Some(root) = body.root {
        g.stmt(root);
    }
    let total = g.preds.len();
    // Forward: successors from predecessors.
    let mut succs = vec![Vec::new(); total];
    for (to, ps) in g.preds.iter().enumerate() {
        for &p in ps {
            succs[p].push(to);
        }
    }
    let reach = |sources: &[usize], through_detach: bool| {
        let mut produce = vec![false; total];
        let mut stack: Vec<usize> = sources.to_vec();
        for &s in &stack {
            produce[s] = true;
        }
        while let Some(x) = stack.pop() {
            for &y in &succs[x] {
                if !produce[y] && g.can_carry[y] && !g.stops[y] && (through_detach || !g.detach[y]) {
                    produce[y] = true;
                    stack.push(y);
                }
            }
        }
        produce
    };
    let mut produce = reach(&g.sources, false);
    // Calls are checked with `no_diff` parameters as sources too, and
    // through `detach` (the reference compiler reports `f(w)` for a
    // `no_diff w` and `floor(detach(t))`, but not stores of those).
    let all_sources: Vec<usize> = g.sources.iter().chain(&g.no_diff_sources).copied().collect();
    let produce_with_no_diff = reach(&all_sources, true);
    let mut expect = vec![false; total];
    let mut stack: Vec<usize> = g.roots.iter().copied().filter(|&r| g.can_carry[r]).collect();
    for &s in &stack {
        expect[s] = true;
    }
    while let Some(x) = stack.pop() {
        for &y in &g.preds[x] {
            if !expect[y] && g.can_carry[y] {
                expect[y] = true;
                stack.push(y);
            }
        }
    }
    let inputs_carry = (0..n_exprs).map(|e| g.preds[e].iter().any(|&p| produce_with_no_diff[p])).collect();
    produce.truncate(n_exprs);
    expect.truncate(n_exprs);
    Activity { produce, expect, inputs_carry }
}
