//! The region tree of a function: its structured terminators read back as
//! nested `if`/`loop`/`switch` statements.
//!
//! Both the naga backend and the Slang-like printer walk this tree instead
//! of the block graph. Block parameters become assignments on the edges
//! that pass them ([`Node::Assign`]). Every block appears at most once.
//! The walk relies on the invariants [`crate::validate`] checks; on a
//! graph that breaks them it returns an error instead of looping.

use crate::ir::{BlockId, Function, Terminator, ValueId};

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// The instructions of a block (not its terminator).
    Block(BlockId),
    /// The parameters of `target` take `args` (a parallel assignment).
    Assign {
        target: BlockId,
        args: Vec<ValueId>,
    },
    If {
        cond: ValueId,
        then: Vec<Node>,
        els: Vec<Node>,
    },
    /// `loop { body; continuing { continuing; break if break_if } }`.
    /// `break_if` is `(cond, exit_when)`: leave when `cond == exit_when`.
    Loop {
        body: Vec<Node>,
        continuing: Vec<Node>,
        break_if: Option<(ValueId, bool)>,
    },
    Switch {
        value: ValueId,
        cases: Vec<(Vec<i64>, Vec<Node>)>,
        default: Vec<Node>,
    },
    Break,
    Continue,
    Return(Option<ValueId>),
    Unreachable,
}

/// A loop's continuing part and its exit test (see [`Node::Loop`]).
type Continuing = (Vec<Node>, Option<(ValueId, bool)>);

/// Where a branch to a block stops the current region.
#[derive(Clone, Copy, Default)]
struct Ctx {
    merge: Option<BlockId>,
    loop_brk: Option<BlockId>,
    loop_cont: Option<BlockId>,
    switch_brk: Option<BlockId>,
}

/// The region tree of `func`, or a description of why its control flow
/// is not structured.
pub fn structure(func: &Function) -> Result<Vec<Node>, String> {
    let preds = func.predecessors();
    let mut s = Structurer { func, preds, visited: vec![false; func.blocks.len()] };
    s.region(Function::ENTRY, Ctx::default())
}

struct Structurer<'f> {
    func: &'f Function,
    preds: Vec<Vec<BlockId>>,
    visited: Vec<bool>,
}

impl Structurer<'_> {
    fn reachable(&self, b: BlockId) -> bool {
        b == Function::ENTRY || !self.preds[b.index()].is_empty()
    }

    fn region(&mut self, start: BlockId, ctx: Ctx) -> Result<Vec<Node>, String> {
        let mut out = Vec::new();
        let mut b = start;
        loop {
            if std::mem::replace(&mut self.visited[b.index()], true) {
                return Err(format!("block {b} is entered from two places that are not a merge"));
            }
            out.push(Node::Block(b));
            match &self.func.block(b).term {
                Terminator::Return(v) => {
                    out.push(Node::Return(*v));
                    return Ok(out);
                }
                Terminator::Unreachable => {
                    out.push(Node::Unreachable);
                    return Ok(out);
                }
                Terminator::Branch { target, args } => {
                    let target = *target;
                    if !args.is_empty() {
                        out.push(Node::Assign { target, args: args.clone() });
                    }
                    if Some(target) == ctx.merge {
                        return Ok(out);
                    } else if Some(target) == ctx.switch_brk {
                        out.push(Node::Break);
                        return Ok(out);
                    } else if Some(target) == ctx.loop_cont {
                        out.push(Node::Continue);
                        return Ok(out);
                    } else if Some(target) == ctx.loop_brk {
                        out.push(Node::Break);
                        return Ok(out);
                    }
                    b = target;
                }
                &Terminator::If { cond, then, els, merge } => {
                    let inner = Ctx { merge: Some(merge), ..ctx };
                    let then = self.region(then, inner)?;
                    let els = self.region(els, inner)?;
                    out.push(Node::If { cond, then, els });
                    if !self.reachable(merge) {
                        return Ok(out);
                    }
                    b = merge;
                }
                Terminator::Loop { header, brk, cont, args } => {
                    let (header, brk, cont) = (*header, *brk, *cont);
                    if !args.is_empty() {
                        out.push(Node::Assign { target: header, args: args.clone() });
                    }
                    let inner = Ctx { merge: None, loop_brk: Some(brk), loop_cont: Some(cont), switch_brk: None };
                    let mut body = self.region(header, inner)?;
                    // Falling off the body runs the continuing block anyway.
                    if body.last() == Some(&Node::Continue) {
                        body.pop();
                    }
                    let (continuing, break_if) =
                        if self.reachable(cont) { self.continuing(header, brk, cont)? } else { (Vec::new(), None) };
                    out.push(Node::Loop { body, continuing, break_if });
                    if !self.reachable(brk) {
                        return Ok(out);
                    }
                    b = brk;
                }
                Terminator::Switch { value, cases, default, brk } => {
                    let (value, brk, default) = (*value, *brk, *default);
                    let inner = Ctx { switch_brk: Some(brk), merge: None, ..ctx };
                    // Labels that share a block share a case.
                    let mut groups: Vec<(Vec<i64>, BlockId)> = Vec::new();
                    for &(v, target) in cases {
                        if target == default {
                            continue;
                        }
                        match groups.iter_mut().find(|g| g.1 == target) {
                            Some(g) => g.0.push(v),
                            None => groups.push((vec![v], target)),
                        }
                    }
                    let mut case_nodes = Vec::new();
                    for (values, target) in groups {
                        case_nodes.push((values, self.region(target, inner)?));
                    }
                    let default = self.region(default, inner)?;
                    out.push(Node::Switch { value, cases: case_nodes, default });
                    if !self.reachable(brk) {
                        return Ok(out);
                    }
                    b = brk;
                }
            }
        }
    }

    /// The continuing part of a loop: straight-line code back to the
    /// header, or ending in the `do … while` test.
    fn continuing(&mut self, header: BlockId, brk: BlockId, cont: BlockId) -> Result<Continuing, String> {
        let mut out = Vec::new();
        let mut b = cont;
        loop {
            if std::mem::replace(&mut self.visited[b.index()], true) {
                return Err(format!("block {b} is entered twice in a loop's continuing part"));
            }
            out.push(Node::Block(b));
            match &self.func.block(b).term {
                Terminator::Branch { target, args } => {
                    if !args.is_empty() {
                        out.push(Node::Assign { target: *target, args: args.clone() });
                    }
                    if *target == header {
                        return Ok((out, None));
                    }
                    if self.preds[target.index()].len() != 1 {
                        return Err(format!("the continuing part of a loop branches to {target}"));
                    }
                    b = *target;
                }
                &Terminator::If { cond, then, els, .. } => {
                    let arm = |s: &mut Self, arm: BlockId| -> Result<(BlockId, Vec<ValueId>), String> {
                        s.visited[arm.index()] = true;
                        match &s.func.block(arm).term {
                            Terminator::Branch { target, args } if s.func.block(arm).insts.is_empty() => {
                                Ok((*target, args.clone()))
                            }
                            _ => Err(format!("the loop test in {b} must branch to the header or the exit")),
                        }
                    };
                    let (t_target, t_args) = arm(self, then)?;
                    let (e_target, e_args) = arm(self, els)?;
                    let exit_when = match (t_target, e_target) {
                        (t, e) if t == header && e == brk => false,
                        (t, e) if t == brk && e == header => true,
                        _ => return Err(format!("the loop test in {b} must branch to the header and the exit")),
                    };
                    if !t_args.is_empty() || !e_args.is_empty() {
                        let assign = |target, args: Vec<ValueId>| {
                            if args.is_empty() {
                                Vec::new()
                            } else {
                                vec![Node::Assign { target, args }]
                            }
                        };
                        out.push(Node::If { cond, then: assign(t_target, t_args), els: assign(e_target, e_args) });
                    }
                    return Ok((out, Some((cond, exit_when))));
                }
                _ => return Err(format!("the continuing part of a loop must end by branching back (in {b})")),
            }
        }
    }
}
