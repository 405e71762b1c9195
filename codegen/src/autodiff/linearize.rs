//! Linearization with instruction tagging: the first pass of reverse-mode
//! transcription ([`rev::linearize`](crate::autodiff::rev::linearize)),
//! read by [`rev::transpose`](crate::autodiff::rev::transpose).
//!
//! Every arithmetic instruction of `f` (unary and binary operators,
//! built-in functions) whose result may carry a derivative is linearized
//! with the forward-mode rules ([`rules`]): its Jacobian-vector product is
//! emitted into a block of its own of the function `s_lin_f`, whose
//! parameters stand for the operands' primal values, their
//! differentials (for operands that have one) and the primal result, and
//! which returns the result's differential. Each instruction of the
//! product is then *tagged*: differential when it reads a differential,
//! primal otherwise. Transposition replays an instruction's primal part
//! where the backward part needs it (`cos(x)` for `sin(x)`), transposes
//! its differential part in reverse, and never builds code of its own for
//! arithmetic: one set of rules serves both modes.
//!
//! Other instructions (constructions, extractions, swizzles, conversions,
//! selects, memory, calls) are linear or structural and are transposed
//! directly.

use rustc_hash::FxHashMap as HashMap;
use std::fmt::Write;

use crate::autodiff::rules::{self, Emit};
use crate::ir::{BlockId, Function, FunctionBuilder, Module, Op, Terminator, Type, TypeId, Types, UnaryOp, ValueId};

/// The linearizations of a function's arithmetic instructions.
#[derive(Debug, Clone)]
pub struct Linearized {
    /// `s_lin_f`: one block per linearized instruction.
    pub func: Function,
    /// Per instruction of `f`, in order: its linearization, or (with the
    /// block begun for it) why its derivative cannot be taken, reported if
    /// transposition needs it.
    pub segments: Vec<(ValueId, Linearization)>,
    /// Per value of [`Self::func`]: whether it is differential.
    pub differential: Vec<bool>,
    /// Where each instruction's segment is in [`Self::segments`].
    index: HashMap<ValueId, usize>,
    /// Per value of `f`: whether it depends on a differentiable input
    /// (activity analysis); only these may carry a derivative.
    pub active: Vec<bool>,
}

/// An instruction's linearization, or (with the block begun for it) why
/// its derivative cannot be taken.
pub type Linearization = Result<Segment, (BlockId, String)>;

/// The linearization of one instruction of `f`.
#[derive(Debug, Clone)]
pub struct Segment {
    pub block: BlockId,
    /// The operands' primal values and differentials (`None`: an operand
    /// without a derivative), and the primal result.
    pub primal_operands: Vec<ValueId>,
    pub diff_operands: Vec<Option<ValueId>>,
    pub result: ValueId,
    /// The product's instructions, in order, and its result (`None`: a
    /// derivative that is always zero).
    pub insts: Vec<ValueId>,
    pub out: Option<ValueId>,
}

impl Default for Linearized {
    fn default() -> Self {
        let func = FunctionBuilder::new(String::new(), TypeId(0), None).finish();
        Linearized {
            func,
            segments: Vec::new(),
            differential: Vec::new(),
            index: HashMap::default(),
            active: Vec::new(),
        }
    }
}

impl Linearized {
    pub fn segment(&self, v: ValueId) -> Option<&Linearization> {
        self.index.get(&v).map(|&i| &self.segments[i].1)
    }

    /// `s_lin_f` as text: each block headed by the instruction of `f` it
    /// linearizes, each instruction tagged.
    pub fn print(&self, module: &Module, src: &Function) -> String {
        let text = crate::print::print_function(&module.types, module, &self.func);
        let mut heads: HashMap<String, String> = HashMap::default();
        for (v, seg) in &self.segments {
            let Some(op) = src.op(*v) else { continue };
            let of_f = |text: String| text.replace('%', "f.%");
            let what = format!(
                "  // f.{v}: {} = {}",
                module.types.display(src.value(*v).ty),
                of_f(crate::print::op_text(module, op))
            );
            let (block, detail) = match seg {
                Ok(seg) => {
                    let mut roles = Vec::new();
                    for (k, o) in op.operands().iter().enumerate() {
                        roles.push(format!("{} = f.{o}", seg.primal_operands[k]));
                        if let Some(d) = seg.diff_operands[k] {
                            roles.push(format!("{d} = d(f.{o})"));
                        }
                    }
                    roles.push(format!("{} = f.{v}", seg.result));
                    (seg.block, roles.join(", "))
                }
                Err((block, e)) => (*block, format!("no derivative: {e}")),
            };
            heads.insert(block.to_string(), format!("{what}\n  //   {detail}"));
        }
        let mut out = String::new();
        for line in text.lines() {
            let label = line.split(['(', ':']).next().unwrap_or_default();
            if let Some(head) = heads.get(label).filter(|_| line.starts_with('b')) {
                writeln!(out, "{head}").unwrap();
            }
            let id = line
                .trim_start()
                .strip_prefix('%')
                .and_then(|r| r.split(':').next())
                .and_then(|n| n.parse::<usize>().ok());
            match id {
                Some(i) if line.starts_with("  %") => {
                    let tag =
                        if self.differential.get(i).copied().unwrap_or(false) { "differential" } else { "primal" };
                    writeln!(out, "{line}  [{tag}]").unwrap();
                }
                _ => writeln!(out, "{line}").unwrap(),
            }
        }
        out
    }
}

/// Linearize the arithmetic of `src` (`active`: the values that depend
/// on a differentiable input; only they may carry a derivative).
pub fn linearize(types: &mut Types, src: &Function, active: Vec<bool>) -> Linearized {
    let void = types.intern(Type::Void);
    let mut b = FunctionBuilder::new(format!("s_lin_{}", src.name), void, src.span);
    let mut segments = Vec::new();
    let may_carry = |types: &mut Types, v: ValueId| active[v.index()] && types.differential(src.value(v).ty).is_some();
    for block in &src.blocks {
        for &v in &block.insts {
            let Some(op) = src.op(v) else { continue };
            if !matches!(op, Op::Binary(..) | Op::Unary(..) | Op::Intrinsic(..)) || !may_carry(types, v) {
                continue;
            }
            segments.push((v, segment(types, &mut b, src, v, op, &may_carry)));
        }
    }
    let mut differential = vec![false; b.func.values.len()];
    for seg in segments.iter().filter_map(|s| s.1.as_ref().ok()) {
        for d in seg.diff_operands.iter().flatten() {
            differential[d.index()] = true;
        }
        // Tagging: differential instructions read a differential.
        for &i in &seg.insts {
            if let Some(op) = b.func.op(i) {
                let mut reads = false;
                op.for_each_operand(|o| reads |= differential[o.index()]);
                differential[i.index()] = reads;
            }
        }
    }
    let index = segments.iter().enumerate().map(|(i, s)| (s.0, i)).collect();
    Linearized { func: b.finish(), segments, differential, index, active }
}

fn segment(
    types: &mut Types,
    b: &mut FunctionBuilder,
    src: &Function,
    v: ValueId,
    op: &Op,
    may_carry: &dyn Fn(&mut Types, ValueId) -> bool,
) -> Linearization {
    let span = src.value(v).span;
    let vt: TypeId = src.value(v).ty;
    let block = b.new_block();
    let operands = op.operands();
    let mut primal_operands = Vec::new();
    let mut diff_operands = Vec::new();
    for &o in &operands {
        let t = src.value(o).ty;
        primal_operands.push(b.add_block_param(block, t, span));
        let d = types.differential(t).filter(|_| may_carry(types, o));
        diff_operands.push(d.map(|d| b.add_block_param(block, d, span)));
    }
    let result = b.add_block_param(block, vt, span);
    let first = b.func.values.len();
    let (pp, dp) = (&primal_operands, &diff_operands);
    let out = {
        let mut e = Emit { types, b, block, span };
        match op {
            Op::Binary(bop, ..) => rules::binary(&mut e, *bop, (pp[0], pp[1]), (dp[0], dp[1])),
            Op::Unary(UnaryOp::Neg, _) => e.neg(dp[0]),
            Op::Unary(..) => None,
            Op::Intrinsic(i, _) => match rules::intrinsic(&mut e, *i, pp, dp, result, vt) {
                Ok(out) => out,
                Err(m) => {
                    b.terminate(block, Terminator::Unreachable);
                    return Err((block, m));
                }
            },
            _ => None,
        }
    };
    b.terminate(block, Terminator::Return(out));
    let insts = (first..b.func.values.len()).map(|i| ValueId(i as u32)).collect();
    Ok(Segment { block, primal_operands, diff_operands, result, insts, out })
}
