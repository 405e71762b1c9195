//! Reverse mode: the body of `f`'s backward derivative `s_bwd_f`.
//!
//! The derivative runs `f`'s primal code, then propagates adjoints
//! backwards over the same regions in reverse order ("unzip +
//! transpose"): `if`/`switch` regions, and loops, whose
//! iterations are counted and reversed from the last; `return`, `break`
//! and `continue` become flags first (the copied control flow is the
//! normalized one, [`normalize`]). Transcription is three passes:
//! [`unzip`] makes the primal blocks of `s_bwd_f`, [`linearize`] the
//! tagged Jacobian-vector products of `f`'s arithmetic, [`transpose`] the
//! differential blocks after the primal ones;
//! [`crate::autodiff::checkpoint`] and [`extract`] follow.
//!
//! * **Primal part.** `f`'s region tree ([`crate::structure`]) is copied
//!   into the derivative. Block parameters become variables (assigned on
//!   the edges that passed them). Every value the backward part reads is
//!   *checkpointed*: stored to a variable (an array indexed by the
//!   iteration, in a loop) right after its definition, and loaded where
//!   the backward part uses it (which its definition does not dominate).
//!   The next pass, [`crate::autodiff::checkpoint`], replaces the loads of
//!   cheap values by their recomputation and drops the saves no one reads.
//! * **Linearization and transposition, per instruction.** For an
//!   arithmetic instruction, [`crate::autodiff::linearize`] has emitted
//!   its linearization by the forward-mode rules into a block of
//!   `s_lin_f` whose parameters stand for the operands, their
//!   differentials and the result, and *tagged* it (an instruction is
//!   differential when an operand is); transposition replays its primal
//!   instructions in the backward part and transposes its differential
//!   instructions in reverse order (`add` → both operands, `mul` by a
//!   primal → multiply the adjoint, `dot`/`cross`/`mul` of matrices →
//!   their transposes …). One set of derivative rules serves both modes.
//!   Structural instructions (construct, extract, swizzle, splat,
//!   conversions, selects) and memory (`load`/`store` of locals through
//!   field and element addresses) are transposed directly.
//! * **Adjoints** live in variables (one per value or local, zero at the
//!   start), so that accumulation across regions needs no block
//!   parameters; `mem2reg` turns them back into SSA values.
//! * **Calls** of differentiable functions become calls of their backward
//!   derivatives (requested, so transcribed by the same loop), with a
//!   pair per differentiable argument whose derivative is read back.
//!
//! The signature follows the user guide: a differentiable `in` or
//! `inout` parameter becomes `inout DifferentialPair<T>` (its derivative
//! is written on return), a differentiable `out` parameter becomes the
//! incoming `T.Differential`, other `out`s are dropped, other `inout`s
//! become `in`, and a differentiable result adds a last parameter, its
//! derivative.

use std::collections::HashMap;

use crate::autodiff::linearize::Linearized;
use crate::autodiff::rules::Emit;
use crate::autodiff::Requests;
use crate::ir::{
    AddressSpace, BinaryOp, BlockId, Derivative, FuncId, Function, FunctionBuilder, Intrinsic, Module, Op, Param,
    ParamDir, Terminator, Type, TypeId, UnaryOp, ValueId, ValueKind,
};
use crate::structure::{structure, Node};
use crate::CodegenError;

/// How a parameter of `f` appears in `s_bwd_f`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ParamMap {
    /// `inout DifferentialPair<T>` (a differentiable `in`/`inout`).
    Pair(usize),
    /// The same value (not differentiable), or the initial value of a
    /// non-differentiable `inout`.
    Value(usize),
    /// The derivative of a differentiable `out`.
    OutGrad(usize),
    /// A non-differentiable `out`.
    Dropped,
    /// `DifferentialPtrPair<T>` (an `IDifferentiablePtrType` value and its
    /// derivative location, both inputs).
    PtrPair(usize),
}

/// The parameters of a backward derivative and where each primal
/// parameter went; the derivative of the result is the last parameter
/// when the result is differentiable.
pub(crate) fn backward_signature(
    types: &mut crate::ir::Types,
    f: &Function,
) -> (Vec<Param>, Vec<ParamMap>, Option<TypeId>) {
    let mut params = Vec::new();
    let mut map = Vec::new();
    for p in &f.params {
        let value = match p.dir {
            ParamDir::In => p.ty,
            _ => types.pointee(p.ty).map(|(t, _)| t).unwrap_or(p.ty),
        };
        let diff = if p.no_diff { None } else { types.differential(value) };
        match (p.dir, diff) {
            (ParamDir::In | ParamDir::InOut, Some(_)) => {
                let pair = types.pair(value).expect("a differentiable type has pairs");
                let ty = types.intern(Type::Ptr(pair, AddressSpace::Function));
                map.push(ParamMap::Pair(params.len()));
                params.push(Param { dir: ParamDir::InOut, ty, ..p.clone() });
            }
            (ParamDir::Out, Some(d)) => {
                map.push(ParamMap::OutGrad(params.len()));
                params.push(Param { dir: ParamDir::In, ty: d, ..p.clone() });
            }
            (ParamDir::Out, None) => map.push(ParamMap::Dropped),
            (ParamDir::In, None) if !p.no_diff && types.ptr_pair(value).is_some() => {
                let pair = types.ptr_pair(value).expect("checked");
                map.push(ParamMap::PtrPair(params.len()));
                params.push(Param { dir: ParamDir::In, ty: pair, ..p.clone() });
            }
            (ParamDir::In | ParamDir::InOut, None) => {
                map.push(ParamMap::Value(params.len()));
                params.push(Param { dir: ParamDir::In, ty: value, ..p.clone() });
            }
        }
    }
    let ret_diff = if f.ret_no_diff { None } else { types.differential(f.ret) };
    if let Some(d) = ret_diff {
        params.push(Param { name: "dResult".into(), dir: ParamDir::In, ty: d, builtin: None, no_diff: false });
    }
    (params, map, ret_diff)
}

/// The backward derivative of `f` (declared now, its body transcribed by
/// [`run`]).
pub fn backward_derivative(module: &mut Module, requests: &mut Requests, f: FuncId) -> Result<FuncId, String> {
    if let Some(g) = module.function(f).backward {
        return Ok(g);
    }
    match module.function(f).derivative {
        Derivative::None => return Err(format!("`{}` is not differentiable", module.function(f).name)),
        // `[PrimalSubstitute(s)]`: derivatives are those of `s`.
        Derivative::Substitute(s) if s != f => return backward_derivative(module, requests, s),
        // A custom forward derivative only: the body is transcribed in
        // reverse (as the reference compiler does).
        Derivative::Custom(_) | Derivative::Transcribe | Derivative::Zero | Derivative::Substitute(_) => {}
    }
    if let Some(&d) = requests.backward.get(&f) {
        return Ok(d);
    }
    let primal = module.function(f).clone();
    let (params, _, _) = backward_signature(&mut module.types, &primal);
    let void = module.types.intern(Type::Void);
    let mut b = FunctionBuilder::new(format!("s_bwd_{}", primal.name), void, primal.span);
    b.func.params = params;
    // A derivative is differentiable again (`fwd_diff(bwd_diff(f))`).
    b.func.derivative = Derivative::Transcribe;
    let d = FuncId(module.functions.len() as u32);
    module.functions.push(b.finish());
    requests.backward.insert(f, d);
    requests.backward_queue.push_back((f, d));
    Ok(d)
}

/// Transcribe every requested backward derivative, and those they
/// request in turn: each is transcribed ([`transcribe`]) and then split
/// into its primal-context and backward-propagation halves ([`extract`]).
pub fn run(module: &mut Module, requests: &mut Requests) -> Result<(), CodegenError> {
    while let Some((primal, derivative)) = requests.backward_queue.pop_front() {
        transcribe_and_extract(module, requests, primal, derivative)?;
    }
    Ok(())
}

/// [`transcribe`], then [`extract`] (also on demand, when a caller's
/// primal part needs the callee's primal-context function).
fn transcribe_and_extract(
    module: &mut Module,
    requests: &mut Requests,
    primal: FuncId,
    derivative: FuncId,
) -> Result<(), CodegenError> {
    let mut combined = transcribe(module, requests, primal, derivative)?;
    let saved = crate::autodiff::checkpoint::run(module, &mut combined);
    requests.context.insert(derivative, saved);
    if !requests.no_extract {
        let split = extract(module, &combined);
        requests.extracted.insert(derivative, split);
    }
    Ok(())
}

/// A transcribed backward derivative before [`extract`]: one function
/// (`s_bwd_f` itself, runnable as it is) whose primal part saves values
/// into variables of its prologue and whose backward part, from block
/// `rev_start` on, reads them.
pub struct Combined {
    pub primal: FuncId,
    pub derivative: FuncId,
    /// The variables (or arrays, in loops) holding the saved values.
    pub saves: Vec<Save>,
    /// The loops of the primal part, by the index [`Save::lp`] names.
    pub loops: Vec<SavedLoop>,
    /// Where each parameter of `f` is in `s_bwd_f` (values of its
    /// prologue, which the backward part may read directly).
    pub params: HashMap<ValueId, ValueId>,
    pub rev_start: BlockId,
    /// Where the primal part leaves `f`'s result.
    pub ret_var: Option<ValueId>,
}

/// A value the primal part saves for the backward part.
#[derive(Debug, Clone, Copy)]
pub struct Save {
    /// A variable of the prologue (an array indexed by the iteration, in
    /// a loop).
    pub var: ValueId,
    /// Bytes per thread.
    pub bytes: u32,
    /// The value of `f` it holds (`None`: a value of the transcription
    /// itself — a loop counter, a flag, a callee's context).
    pub origin: Option<ValueId>,
    /// The loop whose iterations index it.
    pub lp: Option<usize>,
}

/// A loop of the primal part, as the backward part reverses it.
#[derive(Debug, Clone)]
pub struct SavedLoop {
    pub parent: Option<usize>,
    /// The number of the iteration being reversed (what saves of this
    /// loop are indexed by in its reversal).
    pub rev_index: Option<ValueId>,
    /// The blocks of its reversal.
    pub rev_blocks: Vec<BlockId>,
    /// The save of the iteration count after the loop (the last
    /// iteration's values are read through it after the loop).
    pub after: Option<ValueId>,
}

/// Transcribe the backward derivative `derivative` of `primal` into one
/// function: [`linearize`], [`unzip`], [`transpose`]. Every primal value the
/// backward part reads is saved by the primal part (checkpointed);
/// [`crate::autodiff::checkpoint`] then decides which to recompute
/// instead and drops the saves nothing reads.
pub fn transcribe(
    module: &mut Module,
    requests: &mut Requests,
    primal: FuncId,
    derivative: FuncId,
) -> Result<Combined, CodegenError> {
    let lin = linearize(module, primal);
    let unzipped = unzip(module, requests, primal, derivative, lin)?;
    transpose(module, requests, unzipped)
}

/// A backward derivative after [`unzip`]: its primal blocks, in the
/// module (a function that runs `f`'s primal code, saving what the
/// backward part will read, and returns), and what [`transpose`] needs to
/// know about them.
pub struct Unzipped {
    pub primal: FuncId,
    pub derivative: FuncId,
    src: Function,
    st: State,
}

/// The first pass of transcription: activity analysis (which values of
/// `primal` depend on a differentiable input), then the linearization of
/// its arithmetic, tagged ([`crate::autodiff::linearize`]).
pub fn linearize(module: &mut Module, primal: FuncId) -> Linearized {
    let src = module.function(primal).clone();
    let active = activity(&src, module);
    crate::autodiff::linearize::linearize(&mut module.types, &src, active)
}

/// The second pass of transcription: the primal blocks of `s_bwd_f`. The
/// parameters are unpacked (pairs' primal values, `inout` values into
/// locals, adjoints started from incoming derivatives), `f`'s code is
/// copied with its control flow normalized (see [`normalize`]), every
/// value is saved as it is computed (in a loop, into the slot of its
/// iteration), and calls of differentiable functions run their
/// primal-context functions, whose contexts are saved. The block where
/// the backward part will start ([`Combined::rev_start`]) returns.
pub fn unzip(
    module: &mut Module,
    requests: &mut Requests,
    primal: FuncId,
    derivative: FuncId,
    lin: Linearized,
) -> Result<Unzipped, CodegenError> {
    requests.backward_queue.retain(|&(_, d)| d != derivative);
    let src = module.function(primal).clone();
    if src.blocks.is_empty() {
        return Err(CodegenError {
            range: src.span,
            message: format!("`bwd_diff` of `{}`, which has no body, needs a backward derivative", src.name),
        });
    }
    let target = std::mem::replace(
        &mut module.functions[derivative.index()],
        FunctionBuilder::new(String::new(), TypeId(0), None).finish(),
    );
    let zero = src.derivative == Derivative::Zero;
    let mut t = Rev::new(module, requests, &src, target, lin.active.clone(), zero, false);
    t.st.lin = std::rc::Rc::new(lin);
    let result = t.primal_part();
    let mut st = t.st;
    // (The function is in the module between the passes.)
    module.functions[derivative.index()] =
        std::mem::replace(&mut st.b.func, FunctionBuilder::new(String::new(), TypeId(0), None).finish());
    result?;
    Ok(Unzipped { primal, derivative, src, st })
}

/// The last pass of transcription: the differential blocks of
/// `s_bwd_f`, after its primal blocks, emitted in reverse — `f`'s regions
/// from last to first (`if`/`switch` on their saved conditions, loops
/// from their last iteration down), each instruction linearized with the
/// forward-mode rules ([`linearize`]) transposed (see the module
/// comment), adjoints accumulated in variables; calls become calls
/// of the callees' backward derivatives (requested, so transcribed by the
/// same loop); at the end the parameters' derivatives are written.
pub fn transpose(module: &mut Module, requests: &mut Requests, unzipped: Unzipped) -> Result<Combined, CodegenError> {
    let Unzipped { primal, derivative, src, mut st } = unzipped;
    st.b.func = std::mem::replace(
        &mut module.functions[derivative.index()],
        FunctionBuilder::new(String::new(), TypeId(0), None).finish(),
    );
    let mut t = Rev { module, requests, src: &src, st };
    let result = t.backward_part();
    let saves = std::mem::take(&mut t.st.saves);
    let loops =
        t.st.loops
            .iter()
            .map(|l| SavedLoop {
                parent: l.parent,
                rev_index: l.rev_index,
                rev_blocks: l.rev_blocks.clone(),
                after: l.after.map(|a| a.var),
            })
            .collect();
    let params: HashMap<ValueId, ValueId> = src
        .blocks
        .first()
        .map(|b| b.params.iter().filter_map(|&p| Some((p, t.st.map[p.index()]?))).collect())
        .unwrap_or_default();
    let (rev_start, ret_var) = (t.st.rev_start, t.st.ret_var);
    module.functions[derivative.index()] = t.st.b.finish();
    result?;
    let rev_start = rev_start.expect("a transcribed backward derivative");
    Ok(Combined { primal, derivative, saves, loops, params, rev_start, ret_var })
}

/// Replace `f`'s body by its normalized form — the control flow reverse
/// mode copies as its primal part: `return`, `break` and `continue`
/// become flags guarding the rest of each region, every loop exits at
/// the end of an iteration, block parameters become variables. It
/// computes what `f` computes (tests run every compute test through it);
/// it exists so the normalization can be tested on its own.
pub fn normalize(module: &mut Module, f: FuncId) -> Result<(), CodegenError> {
    let src = module.function(f).clone();
    if src.blocks.is_empty() {
        return Ok(());
    }
    let mut target = FunctionBuilder::new(src.name.clone(), src.ret, src.span).finish();
    target.params = src.params.clone();
    target.entry_point = src.entry_point;
    target.derivative = src.derivative;
    target.backward = src.backward;
    target.prefer_recompute = src.prefer_recompute;
    target.prefer_checkpoint = src.prefer_checkpoint;
    target.ret_no_diff = src.ret_no_diff;
    let mut requests = Requests::default();
    let active = vec![false; src.values.len()];
    let mut t = Rev::new(module, &mut requests, &src, target, active, true, true);
    let result = t.normalized();
    let func = t.st.b.finish();
    result?;
    module.functions[f.index()] = func;
    Ok(())
}

/// Split the transcribed `s_bwd_f` into `s_primal_ctx_f`, which runs the
/// primal part and fills an intermediate-context struct with what it
/// saves (returning `f`'s result), and `s_bwd_prop_f`, which runs the
/// backward part from that context; `s_bwd_f` then calls one and the
/// other. Both take `s_bwd_f`'s parameters (the primal part reads only the
/// pairs' primal values).
pub fn extract(module: &mut Module, combined: &Combined) -> Extracted {
    let Combined { primal, derivative, ref saves, rev_start, ret_var, .. } = *combined;
    let saves: Vec<ValueId> = saves.iter().map(|s| s.var).collect();
    let src = module.function(primal).clone();
    let whole = module.functions[derivative.index()].clone();
    // The context: one field per saved value (or array of them).
    let mut fields: Vec<(String, TypeId)> = saves
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let t = module.types.pointee(whole.value(v).ty).expect("a variable").0;
            (format!("s{i}"), t)
        })
        .collect();
    if fields.is_empty() {
        let int = module.types.intern(Type::Scalar(slang_analysis::ty::Scalar::Int32));
        fields.push(("_dummy".into(), int));
    }
    let ctx_ty =
        module.types.intern(Type::Struct { name: format!("{}_Intermediates", src.name), fields: fields.clone() });
    // The context is differentiable (in its float parts), so that
    // `fwd_diff(bwd_diff(f))` carries the saved values' tangents.
    let mut diff_fields = Vec::new();
    let mut map = Vec::new();
    for (name, t) in &fields {
        match module.types.differential(*t) {
            Some(d) => {
                map.push(Some(diff_fields.len() as u32));
                diff_fields.push((name.clone(), d));
            }
            None => map.push(None),
        }
    }
    if !diff_fields.is_empty() {
        let d = module
            .types
            .intern(Type::Struct { name: format!("{}_Intermediates_Differential", src.name), fields: diff_fields });
        module.types.set_struct_diff(ctx_ty, crate::ir::StructDiff { ty: d, fields: map });
    }
    let ctx_ptr = module.types.intern(Type::Ptr(ctx_ty, AddressSpace::Function));
    let void = module.types.intern(Type::Void);
    let span = whole.span;
    let clear = |f: &mut Function, range: std::ops::Range<usize>| {
        for b in range {
            f.blocks[b].insts.clear();
            f.blocks[b].params.clear();
            f.blocks[b].term = Terminator::Unreachable;
        }
    };
    let n_blocks = whole.blocks.len();
    let ctx_param =
        |name: &str, dir: ParamDir, ty: TypeId| Param { name: name.into(), dir, ty, builtin: None, no_diff: false };

    // The primal-context function.
    let mut p = FunctionBuilder { func: whole.clone() };
    p.func.name = format!("s_primal_ctx_{}", src.name);
    p.func.ret = src.ret;
    p.func.params.push(ctx_param("ctx", ParamDir::Out, ctx_ptr));
    let ctx_out = p.add_block_param(PROLOGUE, ctx_ptr, span);
    for (i, &v) in saves.iter().enumerate() {
        p.func.values[v.index()].kind = ValueKind::Inst(Op::FieldAddr(ctx_out, i as u32));
    }
    p.func.blocks[rev_start.index()].insts.clear();
    let result = ret_var.map(|r| p.inst(rev_start, Op::Load(r), src.ret, span));
    p.terminate(rev_start, Terminator::Return(result));
    clear(&mut p.func, rev_start.index() + 1..n_blocks);
    let primal_fn = FuncId(module.functions.len() as u32);
    module.functions.push(p.finish());

    // The backward-propagation function.
    let mut q = FunctionBuilder { func: whole.clone() };
    q.func.name = format!("s_bwd_prop_{}", src.name);
    q.func.params.push(ctx_param("ctx", ParamDir::In, ctx_ty));
    let ctx_in = q.add_block_param(PROLOGUE, ctx_ty, span);
    let local = q.inst(PROLOGUE, Op::Var, ctx_ptr, span);
    let init = q.inst(PROLOGUE, Op::Store { ptr: local, value: ctx_in }, void, span);
    // (First in the prologue: the saved values' places are in it.)
    let insts = &mut q.func.blocks[PROLOGUE.index()].insts;
    insts.retain(|&i| i != local && i != init);
    insts.splice(0..0, [local, init]);
    for (i, &v) in saves.iter().enumerate() {
        q.func.values[v.index()].kind = ValueKind::Inst(Op::FieldAddr(local, i as u32));
    }
    q.terminate(PROLOGUE, Terminator::Branch { target: rev_start, args: Vec::new() });
    clear(&mut q.func, 1..rev_start.index());
    let prop_fn = FuncId(module.functions.len() as u32);
    module.functions.push(q.finish());

    // `s_bwd_f` calls one, then the other.
    let mut w = FunctionBuilder::new(whole.name.clone(), void, span);
    w.func.params = whole.params.clone();
    w.func.derivative = whole.derivative;
    let entry = w.new_block();
    let params: Vec<ValueId> = whole.params.iter().map(|p| w.add_block_param(entry, p.ty, span)).collect();
    let ctx = w.inst(entry, Op::Var, ctx_ptr, span);
    let args: Vec<ValueId> = params.iter().copied().chain([ctx]).collect();
    w.inst(entry, Op::Call(primal_fn, args), src.ret, span);
    let c = w.inst(entry, Op::Load(ctx), ctx_ty, span);
    let args: Vec<ValueId> = params.iter().copied().chain([c]).collect();
    w.inst(entry, Op::Call(prop_fn, args), void, span);
    w.terminate(entry, Terminator::Return(None));
    module.functions[derivative.index()] = w.finish();
    Extracted { primal: primal_fn, prop: prop_fn, context: ctx_ty }
}

/// The two halves of a backward derivative and its context type.
#[derive(Debug, Clone, Copy)]
pub struct Extracted {
    pub primal: FuncId,
    pub prop: FuncId,
    pub context: TypeId,
}

const PROLOGUE: BlockId = BlockId(0);

struct Rev<'a> {
    module: &'a mut Module,
    requests: &'a mut Requests,
    src: &'a Function,
    st: State,
}

/// What transcription knows about the function it is making: carried from
/// [`unzip`] to [`transpose`].
struct State {
    /// Every derivative is zero (`[TreatAsDifferentiable]`).
    zero: bool,
    b: FunctionBuilder,
    /// The block being appended to (`None` after a jump).
    cur: Option<BlockId>,
    /// The primal copy of each value of `f`.
    map: Vec<Option<ValueId>>,
    /// For values defined inside a branch or guarded region of the
    /// primal copy: a variable holding them, so that uses after the region
    /// (which the flag-guarded form no longer dominates) read it.
    pvar: Vec<Option<ValueId>>,
    /// Where a value defined in a branch or loop is saved for the
    /// backward part.
    ckpt: Vec<Option<Saved>>,
    /// The variable standing for each block parameter of `f`.
    param_vars: HashMap<ValueId, ValueId>,
    /// The adjoint variable of each value of `f`.
    adj: HashMap<ValueId, ValueId>,
    /// The adjoint storage of each local variable (and `out`/`inout`
    /// parameter) of `f`.
    adj_mem: HashMap<ValueId, ValueId>,
    /// How many `if`/`switch` regions the primal copy is inside.
    depth: usize,
    span: Option<slang_analysis::TextRange>,
    /// The result, and whether a `return` ran (early returns set both
    /// and skip the rest of each enclosing region).
    ret_var: Option<ValueId>,
    returned: Option<ValueId>,
    /// The adjoint of the result (the last parameter).
    ret_adj: Option<ValueId>,
    /// For each region node followed by code that an exit inside it
    /// (`return`, `break`, `continue`) skips: "no exit yet" at that point.
    splits: HashMap<*const Node, Saved>,
    /// Every loop met, in order.
    loops: Vec<LoopInfo>,
    /// The loop of each loop node.
    loop_of_node: HashMap<*const Node, usize>,
    /// The loops around the code being emitted (primal or backward).
    loop_stack: Vec<usize>,
    /// What `break` leaves in the primal copy.
    exits: Vec<Exit>,
    /// In the backward part: the iteration being reversed, per loop.
    rev_index: HashMap<usize, ValueId>,
    /// Every save.
    saves: Vec<Save>,
    /// For calls with `inout` arguments: the value each pointed to before
    /// the call, by (call, argument).
    pre_call: HashMap<(ValueId, usize), Saved>,
    /// The first block of the backward part.
    rev_start: Option<BlockId>,
    /// Values that depend on a differentiable input (activity analysis):
    /// only these get adjoints.
    active: Vec<bool>,
    /// Calls whose callee's primal-context function ran in the primal
    /// part: the callee's halves and where its context is saved.
    call_ctx: HashMap<ValueId, (Extracted, Saved)>,
    /// Only normalize the control flow ([`normalize`]): no saves, no
    /// backward part.
    normalize_only: bool,
    /// The `DifferentialPtrPair` parameter of each `IDifferentiablePtrType`
    /// parameter of `f`.
    ptr_pairs: HashMap<ValueId, ValueId>,
    /// `f`'s region tree (the maps above that are keyed by node point
    /// into it).
    tree: Vec<Node>,
    /// The parameters whose derivative the backward part writes at its
    /// end: (pair pointer, where the derivative is).
    write_back: Vec<(ValueId, WriteBack)>,
    /// The linearization of `f`'s arithmetic ([`linearize`]).
    lin: std::rc::Rc<Linearized>,
}

/// A primal value saved for the backward part: in a variable, or (inside
/// a loop) in an array indexed by the iteration.
#[derive(Clone, Copy)]
struct Saved {
    var: ValueId,
    lp: Option<usize>,
}

/// A loop of the primal copy (normalized: `break` and `continue` set
/// flags, the rest of each region is guarded by them, and the loop exits
/// at the end of an iteration when the break flag is set).
struct LoopInfo {
    /// Saved values per value: `(MaxIters + 1)` times the enclosing
    /// loops'.
    cap: u32,
    /// Its own bound on iterations (`MaxIters`).
    bound: u32,
    /// The current iteration's number (in the primal copy).
    index: Option<ValueId>,
    broke: ValueId,
    continued: ValueId,
    /// The counter before and after the loop.
    before: Option<Saved>,
    after: Option<Saved>,
    /// Whether each iteration ran its continuing part.
    continuing_ran: Option<Saved>,
    /// The enclosing loop.
    parent: Option<usize>,
    /// In the backward part: the number of the iteration being reversed,
    /// and the blocks of the reversal.
    rev_index: Option<ValueId>,
    rev_blocks: Vec<BlockId>,
}

#[derive(Clone, Copy, PartialEq)]
enum Exit {
    /// A `switch`, and the flag its `break`s set.
    Switch(ValueId),
    Loop(usize),
}

impl<'a> Rev<'a> {
    fn new(
        module: &'a mut Module,
        requests: &'a mut Requests,
        src: &'a Function,
        target: Function,
        active: Vec<bool>,
        zero: bool,
        normalize_only: bool,
    ) -> Rev<'a> {
        let n = src.values.len();
        let st = State {
            zero,
            b: FunctionBuilder { func: target },
            cur: None,
            map: vec![None; n],
            pvar: vec![None; n],
            ckpt: vec![None; n],
            param_vars: HashMap::new(),
            adj: HashMap::new(),
            adj_mem: HashMap::new(),
            depth: 0,
            span: src.span,
            ret_var: None,
            returned: None,
            ret_adj: None,
            splits: HashMap::new(),
            loops: Vec::new(),
            loop_of_node: HashMap::new(),
            loop_stack: Vec::new(),
            exits: Vec::new(),
            rev_index: HashMap::new(),
            saves: Vec::new(),
            pre_call: HashMap::new(),
            rev_start: None,
            active,
            call_ctx: HashMap::new(),
            normalize_only,
            ptr_pairs: HashMap::new(),
            tree: Vec::new(),
            write_back: Vec::new(),
            lin: std::rc::Rc::new(Linearized::default()),
        };
        Rev { module, requests, src, st }
    }

    fn error(&self, message: impl Into<String>) -> CodegenError {
        CodegenError { range: self.st.span.or(self.src.span), message: message.into() }
    }

    fn block(&self) -> BlockId {
        self.st.cur.expect("appending to a block")
    }

    fn emit_in(&mut self, block: BlockId) -> Emit<'_> {
        Emit { types: &mut self.module.types, b: &mut self.st.b, block, span: self.st.span }
    }

    fn emit(&mut self) -> Emit<'_> {
        let block = self.block();
        self.emit_in(block)
    }

    fn inst(&mut self, op: Op, ty: TypeId) -> ValueId {
        let block = self.block();
        self.st.b.inst(block, op, ty, self.st.span)
    }

    fn ptr_ty(&mut self, t: TypeId) -> TypeId {
        self.module.types.intern(Type::Ptr(t, AddressSpace::Function))
    }

    /// A variable declared in the prologue, holding `init` (zero when
    /// `None`).
    fn var(&mut self, ty: TypeId, init: Option<ValueId>) -> ValueId {
        let pt = self.ptr_ty(ty);
        let v = self.st.b.inst(PROLOGUE, Op::Var, pt, self.st.span);
        let init = match init {
            Some(i) => i,
            None => self.emit_in(PROLOGUE).zero(ty),
        };
        let void = self.module.types.intern(Type::Void);
        self.st.b.inst(PROLOGUE, Op::Store { ptr: v, value: init }, void, self.st.span);
        v
    }

    fn load(&mut self, ptr: ValueId) -> ValueId {
        let t = self.module.types.pointee(self.st.b.ty(ptr)).expect("a pointer").0;
        self.inst(Op::Load(ptr), t)
    }

    fn store(&mut self, ptr: ValueId, value: ValueId) {
        let void = self.module.types.intern(Type::Void);
        self.inst(Op::Store { ptr, value }, void);
    }

    fn src_ty(&self, v: ValueId) -> TypeId {
        self.src.value(v).ty
    }

    fn differential(&mut self, t: TypeId) -> Option<TypeId> {
        self.module.types.differential(t)
    }

    // ---- the function -----------------------------------------------------

    /// The prologue and the primal blocks ([`unzip`]).
    fn primal_part(&mut self) -> Result<(), CodegenError> {
        let tree = structure(self.src).map_err(|e| self.error(format!("internal: {e}")))?;
        let src_params: Vec<ValueId> =
            self.src.blocks.first().map(|b| b.params.clone()).ok_or_else(|| self.error("a function without a body"))?;
        let (_, param_map, ret_diff) = backward_signature(&mut self.module.types, self.src);
        // The prologue: the parameters, variables and adjoints.
        let prologue = self.st.b.new_block();
        debug_assert_eq!(prologue, PROLOGUE);
        let bwd_params: Vec<ValueId> = self
            .st
            .b
            .func
            .params
            .clone()
            .iter()
            .map(|p| self.st.b.add_block_param(PROLOGUE, p.ty, self.st.span))
            .collect();
        self.st.cur = Some(PROLOGUE);
        // (pair pointer, adjoint source) written back at the end.
        let mut write_back: Vec<(ValueId, WriteBack)> = Vec::new();
        let main = self.st.b.new_block();
        for (i, (&sp, pm)) in src_params.iter().zip(&param_map).enumerate() {
            let dir = self.src.params[i].dir;
            let sty = self.src_ty(sp);
            match (*pm, dir) {
                (ParamMap::Pair(k), ParamDir::In) => {
                    let pair = bwd_params[k];
                    let value = self.pair_part(pair, 0);
                    self.st.map[sp.index()] = Some(self.load(value));
                    write_back.push((pair, WriteBack::Value(sp)));
                }
                (ParamMap::Pair(k), _) => {
                    // `inout`: a local holding the primal, an adjoint
                    // starting from the incoming derivative.
                    let pair = bwd_params[k];
                    let (t, _) = self.module.types.pointee(sty).expect("inout parameters are pointers");
                    let p = self.pair_part(pair, 0);
                    let init = self.load(p);
                    let local = self.var(t, Some(init));
                    let d = self.pair_part(pair, 1);
                    let g = self.load(d);
                    let dt = self.st.b.ty(g);
                    let adj = self.var(dt, Some(g));
                    self.st.map[sp.index()] = Some(local);
                    self.st.adj_mem.insert(sp, adj);
                    write_back.push((pair, WriteBack::Memory(adj)));
                }
                (ParamMap::OutGrad(k), _) => {
                    let (t, _) = self.module.types.pointee(sty).expect("out parameters are pointers");
                    let local = self.var(t, None);
                    let g = bwd_params[k];
                    let dt = self.st.b.ty(g);
                    let adj = self.var(dt, Some(g));
                    self.st.map[sp.index()] = Some(local);
                    self.st.adj_mem.insert(sp, adj);
                }
                (ParamMap::Value(k), ParamDir::In) => self.st.map[sp.index()] = Some(bwd_params[k]),
                (ParamMap::Value(k), _) => {
                    let (t, _) = self.module.types.pointee(sty).expect("inout parameters are pointers");
                    let local = self.var(t, Some(bwd_params[k]));
                    self.st.map[sp.index()] = Some(local);
                }
                (ParamMap::Dropped, _) => {
                    let (t, _) = self.module.types.pointee(sty).expect("out parameters are pointers");
                    let local = self.var(t, None);
                    self.st.map[sp.index()] = Some(local);
                }
                (ParamMap::PtrPair(k), _) => {
                    let pair = bwd_params[k];
                    let value = self.inst(Op::Extract(pair, 0), sty);
                    self.st.map[sp.index()] = Some(value);
                    self.st.ptr_pairs.insert(sp, pair);
                }
            }
        }
        // The primal part.
        if !matches!(self.module.types.get(self.src.ret), Type::Void) {
            let rt = self.src.ret;
            self.st.ret_var = Some(self.var(rt, None));
        }
        let bool_ty = self.module.types.intern(Type::Scalar(slang_analysis::ty::Scalar::Bool));
        let no = self.st.b.inst(PROLOGUE, Op::Const(crate::ir::Const::Bool(false)), bool_ty, self.st.span);
        self.st.returned = Some(self.var(bool_ty, Some(no)));
        if ret_diff.is_some() {
            let g = *bwd_params.last().expect("the result's derivative");
            self.st.ret_adj = Some(g);
        }
        self.st.cur = Some(main);
        self.primal_seq(&tree)?;
        let Some(end) = self.st.cur else {
            return Err(self.error("`bwd_diff` of a function that never returns"));
        };
        // The backward part starts in a block of its own (where the
        // functions are split).
        let rev_start = self.st.b.new_block();
        self.st.b.terminate(end, Terminator::Branch { target: rev_start, args: Vec::new() });
        self.st.b.terminate(rev_start, Terminator::Return(None));
        self.st.rev_start = Some(rev_start);
        self.st.b.terminate(PROLOGUE, Terminator::Branch { target: main, args: Vec::new() });
        self.st.tree = tree;
        self.st.write_back = write_back;
        Ok(())
    }

    /// The differential blocks, from the end of the primal part on
    /// ([`transpose`]).
    fn backward_part(&mut self) -> Result<(), CodegenError> {
        let rev_start = self.st.rev_start.expect("unzipped");
        self.st.cur = Some(rev_start);
        // The backward part, seeded with the result's derivative at the
        // `return` that ran.
        let tree = std::mem::take(&mut self.st.tree);
        let reversed = if self.st.zero { Ok(()) } else { self.reverse_seq(&tree) };
        self.st.tree = tree;
        reversed?;
        let write_back = std::mem::take(&mut self.st.write_back);
        for (pair, wb) in write_back {
            let g = match wb {
                WriteBack::Value(sp) => self.adj_value(sp),
                WriteBack::Memory(adj) => Some(self.load(adj)),
            };
            let d = self.pair_part(pair, 1);
            let g = match g {
                Some(g) => g,
                None => {
                    let t = self.module.types.pointee(self.st.b.ty(d)).expect("a pointer").0;
                    self.emit().zero(t)
                }
            };
            self.store(d, g);
        }
        let block = self.block();
        self.st.b.terminate(block, Terminator::Return(None));
        Ok(())
    }

    /// The normalized primal part alone, returning `f`'s result.
    fn normalized(&mut self) -> Result<(), CodegenError> {
        let tree = structure(self.src).map_err(|e| self.error(format!("internal: {e}")))?;
        let prologue = self.st.b.new_block();
        debug_assert_eq!(prologue, PROLOGUE);
        let src_params = self.src.blocks[0].params.clone();
        for &p in &src_params {
            let t = self.src_ty(p);
            self.st.map[p.index()] = Some(self.st.b.add_block_param(PROLOGUE, t, self.st.span));
        }
        if !matches!(self.module.types.get(self.src.ret), Type::Void) {
            let rt = self.src.ret;
            self.st.ret_var = Some(self.var(rt, None));
        }
        let bool_ty = self.bool_ty();
        let no = self.st.b.inst(PROLOGUE, Op::Const(crate::ir::Const::Bool(false)), bool_ty, self.st.span);
        self.st.returned = Some(self.var(bool_ty, Some(no)));
        let main = self.st.b.new_block();
        self.st.cur = Some(main);
        self.primal_seq(&tree)?;
        let Some(end) = self.st.cur else { return Err(self.error("a function that never returns")) };
        let result = self.st.ret_var.map(|r| self.st.b.inst(end, Op::Load(r), self.src.ret, self.st.span));
        self.st.b.terminate(end, Terminator::Return(result));
        self.st.b.terminate(PROLOGUE, Terminator::Branch { target: main, args: Vec::new() });
        Ok(())
    }

    /// A pointer to part `index` (0: primal, 1: derivative) of the pair
    /// `pair` points to.
    fn pair_part(&mut self, pair: ValueId, index: u32) -> ValueId {
        let (pt, _) = self.module.types.pointee(self.st.b.ty(pair)).expect("a pointer to a pair");
        let Type::DifferentialPair { primal, diff } = *self.module.types.get(pt) else { unreachable!("a pair") };
        let t = if index == 0 { primal } else { diff };
        let ptr = self.ptr_ty(t);
        self.inst(Op::FieldAddr(pair, index), ptr)
    }

    // ---- the primal part ----------------------------------------------------

    /// Copy a region. After a node with an exit inside (`return`, or a
    /// `break`/`continue` of the innermost loop), the rest of the region
    /// runs only if no exit ran.
    fn primal_seq(&mut self, nodes: &[Node]) -> Result<(), CodegenError> {
        for (i, node) in nodes.iter().enumerate() {
            if i > 0 && has_exit(&nodes[i - 1]) && self.st.cur.is_some() {
                let go = self.no_exit_yet();
                let saved = self.save(go);
                self.st.splits.insert(&nodes[i - 1] as *const Node, saved);
                let (t, e, merge) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
                let block = self.block();
                self.st.b.terminate(block, Terminator::If { cond: go, then: t, els: e, merge });
                self.st.b.terminate(e, Terminator::Branch { target: merge, args: Vec::new() });
                self.st.depth += 1;
                self.st.cur = Some(t);
                self.primal_seq(&nodes[i..])?;
                if let Some(end) = self.st.cur {
                    self.st.b.terminate(end, Terminator::Branch { target: merge, args: Vec::new() });
                }
                self.st.depth -= 1;
                self.st.cur = Some(merge);
                return Ok(());
            }
            match node {
                Node::Block(b) => self.primal_block(*b)?,
                Node::Assign { target, args } => {
                    let params = self.src.block(*target).params.clone();
                    let values: Vec<ValueId> = args.iter().map(|a| self.use_of(*a)).collect();
                    for (p, v) in params.into_iter().zip(values) {
                        let var = self.param_var(p);
                        self.store(var, v);
                    }
                }
                Node::If { cond, then, els } => {
                    let c = self.use_of(*cond);
                    let (t, e, merge) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
                    let block = self.block();
                    self.st.b.terminate(block, Terminator::If { cond: c, then: t, els: e, merge });
                    self.st.depth += 1;
                    for (start, region) in [(t, then), (e, els)] {
                        self.st.cur = Some(start);
                        self.primal_seq(region)?;
                        if let Some(end) = self.st.cur {
                            self.st.b.terminate(end, Terminator::Branch { target: merge, args: Vec::new() });
                        }
                    }
                    self.st.depth -= 1;
                    self.st.cur = Some(merge);
                }
                Node::Switch { value, cases, default } => {
                    let v = self.use_of(*value);
                    let (bodies, brk) = self.open_switch(v, cases, default);
                    self.st.depth += 1;
                    // `break` sets a flag; the rest of the case after a
                    // node with a `break` inside is guarded by it, and every
                    // case ends at the break block.
                    let bool_ty = self.bool_ty();
                    let no = self.st.b.inst(PROLOGUE, Op::Const(crate::ir::Const::Bool(false)), bool_ty, self.st.span);
                    let flag = self.var(bool_ty, Some(no));
                    self.st.exits.push(Exit::Switch(flag));
                    for (start, body) in bodies {
                        self.st.cur = Some(start);
                        let f = self.inst(Op::Const(crate::ir::Const::Bool(false)), bool_ty);
                        self.store(flag, f);
                        self.primal_seq(body)?;
                        if let Some(end) = self.st.cur {
                            self.st.b.terminate(end, Terminator::Branch { target: brk, args: Vec::new() });
                        }
                    }
                    self.st.exits.pop();
                    self.st.depth -= 1;
                    self.st.cur = Some(brk);
                }
                Node::Break => match self.st.exits.last().copied() {
                    Some(Exit::Loop(l)) => {
                        let flag = self.st.loops[l].broke;
                        self.set_flag(flag);
                    }
                    Some(Exit::Switch(flag)) => self.set_flag(flag),
                    None => return Err(self.error("internal: `break` outside a loop or switch")),
                },
                Node::Continue => {
                    // (Through any `switch` around it.)
                    let Some(Exit::Loop(l)) = self.st.exits.iter().rev().find(|e| matches!(e, Exit::Loop(_))).copied()
                    else {
                        return Err(self.error("internal: `continue` outside a loop"));
                    };
                    let flag = self.st.loops[l].continued;
                    self.set_flag(flag);
                }
                Node::Return(v) => {
                    if let (Some(v), Some(var)) = (v, self.st.ret_var) {
                        let value = self.use_of(*v);
                        self.store(var, value);
                    }
                    let flag = self.st.returned.expect("the return flag");
                    self.set_flag(flag);
                    return Ok(());
                }
                Node::Loop { body, continuing, break_if } => self.primal_loop(node, body, continuing, *break_if)?,
                Node::Unreachable => {
                    let block = self.block();
                    self.st.b.terminate(block, Terminator::Unreachable);
                    self.st.cur = None;
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// End the current block with a `switch` on `v` over the cases'
    /// regions: each region's first block, and the break block.
    fn open_switch<'n>(
        &mut self,
        v: ValueId,
        cases: &'n [(Vec<i64>, Vec<Node>)],
        default: &'n [Node],
    ) -> (Vec<(BlockId, &'n [Node])>, BlockId) {
        let brk = self.st.b.new_block();
        let mut labels = Vec::new();
        let mut bodies = Vec::new();
        for (values, body) in cases {
            let start = self.st.b.new_block();
            labels.extend(values.iter().map(|&k| (k, start)));
            bodies.push((start, body.as_slice()));
        }
        let default_start = self.st.b.new_block();
        bodies.push((default_start, default));
        let block = self.block();
        self.st.b.terminate(block, Terminator::Switch { value: v, cases: labels, default: default_start, brk });
        (bodies, brk)
    }

    fn bool_ty(&mut self) -> TypeId {
        self.module.types.intern(Type::Scalar(slang_analysis::ty::Scalar::Bool))
    }

    fn set_flag(&mut self, flag: ValueId) {
        let t = self.bool_ty();
        let yes = self.inst(Op::Const(crate::ir::Const::Bool(true)), t);
        self.store(flag, yes);
    }

    /// `!(returned || broke || continued)` for the innermost loop.
    fn no_exit_yet(&mut self) -> ValueId {
        let t = self.bool_ty();
        let returned = self.st.returned.expect("the return flag");
        let mut any = self.load(returned);
        if let Some(Exit::Switch(flag)) = self.st.exits.last().copied() {
            let f = self.load(flag);
            any = self.inst(Op::Binary(BinaryOp::Or, any, f), t);
        }
        if let Some(Exit::Loop(l)) = self.st.exits.iter().rev().find(|e| matches!(e, Exit::Loop(_))).copied() {
            for flag in [self.st.loops[l].broke, self.st.loops[l].continued] {
                let f = self.load(flag);
                any = self.inst(Op::Binary(BinaryOp::Or, any, f), t);
            }
        }
        self.inst(Op::Unary(UnaryOp::Not, any), t)
    }

    /// A loop, normalized: the body with exits turned into flags, the
    /// continuing part when no `break`/`return` ran, and the exit test at
    /// the end of each iteration. Each iteration takes the next number of
    /// the loop's counter; values saved inside are indexed by it.
    fn primal_loop(
        &mut self,
        node: &Node,
        body: &[Node],
        continuing: &[Node],
        break_if: Option<(ValueId, bool)>,
    ) -> Result<(), CodegenError> {
        let Some(header_block) = body.iter().find_map(|n| match n {
            Node::Block(b) => Some(*b),
            _ => None,
        }) else {
            return Err(self.error("internal: a loop without a header"));
        };
        let bound = self.src.max_iters.iter().find(|(h, _)| *h == header_block).map(|m| m.1);
        let Some(n) = bound.or(self.st.normalize_only.then_some(0)) else {
            return Err(self.error(
                "this loop needs `[MaxIters(n)]` (or a literal bound) for `bwd_diff` to size what it saves per iteration",
            ));
        };
        let parent_cap = self.st.loop_stack.last().map(|&l| self.st.loops[l].cap).unwrap_or(1);
        let cap = (n + 1).saturating_mul(parent_cap);
        if cap > 1 << 16 {
            return Err(self.error(format!("this loop would save {cap} iterations per value: lower its `[MaxIters]`")));
        }
        let int = self.module.types.intern(Type::Scalar(slang_analysis::ty::Scalar::Int32));
        let bool_ty = self.bool_ty();
        let counter = self.var(int, None);
        let no = self.st.b.inst(PROLOGUE, Op::Const(crate::ir::Const::Bool(false)), bool_ty, self.st.span);
        let broke = self.var(bool_ty, Some(no));
        let continued = self.var(bool_ty, Some(no));
        let l = self.st.loops.len();
        // The counter numbers iterations over the whole run (never reset,
        // so the iterations of a nested loop index saved values uniquely).
        self.st.loops.push(LoopInfo {
            cap,
            bound: n,
            index: None,
            broke,
            continued,
            before: None,
            after: None,
            continuing_ran: None,
            parent: self.st.loop_stack.last().copied(),
            rev_index: None,
            rev_blocks: Vec::new(),
        });
        self.st.loop_of_node.insert(node as *const Node, l);
        let c0 = self.load(counter);
        self.st.loops[l].before = Some(self.save(c0));
        let f = self.inst(Op::Const(crate::ir::Const::Bool(false)), bool_ty);
        self.store(broke, f);
        let (header, brk, cont) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        let block = self.block();
        self.st.b.terminate(block, Terminator::Loop { header, brk, cont, args: Vec::new() });
        if let Some(n) = bound {
            // (The normalized copy keeps the bound.)
            self.st.b.func.max_iters.push((header, n));
        }
        self.st.cur = Some(header);
        self.st.loop_stack.push(l);
        self.st.exits.push(Exit::Loop(l));
        let t = self.load(counter);
        let one = self.inst(Op::Const(crate::ir::Const::Int(1)), int);
        let next = self.inst(Op::Binary(BinaryOp::Add, t, one), int);
        self.store(counter, next);
        self.st.loops[l].index = Some(t);
        let f = self.inst(Op::Const(crate::ir::Const::Bool(false)), bool_ty);
        self.store(continued, f);
        self.st.depth += 1;
        self.primal_seq(body)?;
        if self.st.cur.is_none() {
            return Err(self.error("internal: a loop body that does not end"));
        }
        // The continuing part, unless the iteration broke out or returned
        // (in the body: the loop's own continuing block only jumps back).
        let returned = self.st.returned.expect("the return flag");
        let r = self.load(returned);
        let bk = self.load(broke);
        let stop = self.inst(Op::Binary(BinaryOp::Or, r, bk), bool_ty);
        let go = self.inst(Op::Unary(UnaryOp::Not, stop), bool_ty);
        self.st.loops[l].continuing_ran = Some(self.save(go));
        let (t_b, e_b, merge) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        let here = self.block();
        self.st.b.terminate(here, Terminator::If { cond: go, then: t_b, els: e_b, merge });
        self.st.b.terminate(e_b, Terminator::Branch { target: merge, args: Vec::new() });
        self.st.cur = Some(t_b);
        self.primal_seq(continuing)?;
        if let Some((c, exit_when)) = break_if {
            // The `do … while` test: its exit is a `break`.
            let cv = self.use_of(c);
            let exit = if exit_when { cv } else { self.inst(Op::Unary(UnaryOp::Not, cv), bool_ty) };
            let old = self.load(broke);
            let now = self.inst(Op::Binary(BinaryOp::Or, old, exit), bool_ty);
            self.store(broke, now);
        }
        let end = self.block();
        self.st.b.terminate(end, Terminator::Branch { target: merge, args: Vec::new() });
        self.st.cur = Some(merge);
        self.st.depth -= 1;
        let r = self.load(returned);
        let bk = self.load(broke);
        let leave = self.inst(Op::Binary(BinaryOp::Or, r, bk), bool_ty);
        let (out_b, again_b, after) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        self.st.b.terminate(merge, Terminator::If { cond: leave, then: out_b, els: again_b, merge: after });
        self.st.b.terminate(out_b, Terminator::Branch { target: brk, args: Vec::new() });
        self.st.b.terminate(again_b, Terminator::Branch { target: cont, args: Vec::new() });
        self.st.b.terminate(cont, Terminator::Branch { target: header, args: Vec::new() });
        self.st.loop_stack.pop();
        self.st.exits.pop();
        self.st.cur = Some(brk);
        let c1 = self.load(counter);
        self.st.loops[l].after = Some(self.save(c1));
        Ok(())
    }

    /// Save a value of the primal copy for the backward part.
    fn save(&mut self, v: ValueId) -> Saved {
        if self.st.normalize_only {
            return Saved { var: v, lp: None };
        }
        let t = self.st.b.ty(v);
        let copies = self.st.loop_stack.last().map(|&l| self.st.loops[l].cap).unwrap_or(1);
        let size = crate::layout::size_of(&self.module.types, t, crate::layout::Rules::Std430);
        let bytes = size.saturating_mul(copies);
        match self.st.loop_stack.last().copied() {
            None => {
                let pt = self.ptr_ty(t);
                let var = self.st.b.inst(PROLOGUE, Op::Var, pt, self.st.span);
                self.store(var, v);
                self.st.saves.push(Save { var, bytes, origin: None, lp: None });
                Saved { var, lp: None }
            }
            Some(l) => {
                let at = self.module.types.intern(Type::Array(t, self.st.loops[l].cap));
                let pat = self.ptr_ty(at);
                let var = self.st.b.inst(PROLOGUE, Op::Var, pat, self.st.span);
                let index = self.st.loops[l].index.expect("inside the loop");
                let pt = self.ptr_ty(t);
                let slot = self.inst(Op::ElementAddr(var, index), pt);
                self.store(slot, v);
                self.st.saves.push(Save { var, bytes, origin: None, lp: Some(l) });
                Saved { var, lp: Some(l) }
            }
        }
    }

    /// Save `new`, the primal copy of `f`'s value `v`, for the backward
    /// part (which [`crate::autodiff::checkpoint`] may recompute instead).
    fn save_value(&mut self, v: ValueId, new: ValueId) -> Saved {
        let saved = self.save(new);
        if let Some(last) = self.st.saves.last_mut().filter(|s| s.var == saved.var) {
            last.origin = Some(v);
        }
        saved
    }

    /// A saved value, where the backward part is being emitted.
    fn restore(&mut self, s: Saved) -> ValueId {
        match s.lp {
            None => self.load(s.var),
            Some(l) => {
                // Outside the loop's reverse (a value of the loop's header
                // used after the loop): the last iteration's.
                let index = match self.st.rev_index.get(&l) {
                    Some(&i) => i,
                    None => {
                        let after = self.st.loops[l].after.expect("a copied loop");
                        let end = self.restore(after);
                        let int = self.st.b.ty(end);
                        let one = self.inst(Op::Const(crate::ir::Const::Int(1)), int);
                        self.inst(Op::Binary(BinaryOp::Sub, end, one), int)
                    }
                };
                let (at, _) = self.module.types.pointee(self.st.b.ty(s.var)).expect("a pointer");
                let Type::Array(t, _) = *self.module.types.get(at) else { unreachable!("an array") };
                let pt = self.ptr_ty(t);
                let slot = self.inst(Op::ElementAddr(s.var, index), pt);
                self.load(slot)
            }
        }
    }

    fn param_var(&mut self, p: ValueId) -> ValueId {
        if let Some(&v) = self.st.param_vars.get(&p) {
            return v;
        }
        let t = self.src_ty(p);
        let v = self.var(t, None);
        self.st.param_vars.insert(p, v);
        v
    }

    fn mapped(&self, v: ValueId) -> ValueId {
        self.st.map[v.index()].expect("operands are copied before their uses")
    }

    /// The primal copy of `v` where the primal copy is being emitted.
    fn use_of(&mut self, v: ValueId) -> ValueId {
        if let Some(&var) = self.st.param_vars.get(&v) {
            return self.load(var);
        }
        match self.st.pvar[v.index()] {
            Some(var) => self.load(var),
            None => self.mapped(v),
        }
    }

    fn primal_block(&mut self, b: BlockId) -> Result<(), CodegenError> {
        let block = self.src.block(b).clone();
        // Everything the backward part reads comes from the context (the
        // backward-propagation function does not see the primal part's
        // values); what it does not read is dropped afterwards.
        let keep = true;
        if b != Function::ENTRY {
            for &p in &block.params {
                let var = self.param_var(p);
                let v = self.load(var);
                self.st.map[p.index()] = Some(v);
                if keep {
                    self.st.ckpt[p.index()] = Some(self.save_value(p, v));
                }
            }
        }
        for &v in &block.insts {
            let value = self.src.value(v);
            self.st.span = value.span.or(self.src.span);
            let ValueKind::Inst(op) = &value.kind else { continue };
            let mut op = op.clone();
            // `[PrimalSubstitute(s)]`: differentiated code computes `s` (a
            // plain call: the backward part calls the derivative of the
            // original callee, its own if it has one).
            let mut substituted = false;
            if let (Op::Call(f, _), false) = (&mut op, self.st.normalize_only) {
                if let Derivative::Substitute(s) = self.module.function(*f).derivative {
                    substituted = s != *f;
                    *f = s;
                }
            }
            let operands: HashMap<ValueId, ValueId> = op.operands().into_iter().map(|o| (o, self.use_of(o))).collect();
            if let (Op::Call(f, args), true) =
                (&op, self.st.active[v.index()] && !self.st.normalize_only && !substituted)
            {
                if let Some(new) = self.primal_call_with_context(v, *f, args, &operands, value.ty)? {
                    self.st.map[v.index()] = Some(new);
                    if self.st.depth > 0 {
                        let var = self.var(value.ty, None);
                        self.store(var, new);
                        self.st.pvar[v.index()] = Some(var);
                    }
                    if keep && !matches!(self.module.types.get(value.ty), Type::Void) {
                        self.st.ckpt[v.index()] = Some(self.save_value(v, new));
                    }
                    continue;
                }
            }
            if let (Op::Call(f, args), false) = (&op, self.st.normalize_only) {
                // What `inout` arguments hold before the call: the primal
                // inputs of the callee's backward derivative.
                let dirs: Vec<ParamDir> = self.module.function(*f).params.iter().map(|p| p.dir).collect();
                for (k, (&a, dir)) in args.iter().zip(dirs).enumerate() {
                    if dir == ParamDir::InOut {
                        let before = self.load(operands[&a]);
                        let saved = self.save(before);
                        self.st.pre_call.insert((v, k), saved);
                    }
                }
            }
            op.map_operands(|o| operands[&o]);
            let new = self.inst(op, value.ty);
            self.st.map[v.index()] = Some(new);
            let is_value = !matches!(
                self.module.types.get(value.ty),
                Type::Void | Type::Ptr(..) | Type::Texture(..) | Type::Sampler
            );
            if self.st.depth > 0 && is_value {
                let var = self.var(value.ty, None);
                self.store(var, new);
                self.st.pvar[v.index()] = Some(var);
            }
            // Saved for the backward part when defined in a branch or a
            // loop (the backward part is not dominated by it).
            if keep && is_value && !matches!(self.src.op(v), Some(Op::Const(_))) {
                self.st.ckpt[v.index()] = Some(self.save_value(v, new));
            }
        }
        Ok(())
    }

    /// A call of a differentiable function in the primal part, made as a
    /// call of its primal-context function (transcribed now if need be),
    /// whose context is saved for the backward part (`None`: a plain call
    /// — a `[PreferRecompute]` callee, one with a user-written backward
    /// derivative or `out`/`inout` parameters, whose backward derivative
    /// recomputes its primal).
    fn primal_call_with_context(
        &mut self,
        v: ValueId,
        f: FuncId,
        args: &[ValueId],
        operands: &HashMap<ValueId, ValueId>,
        ret: TypeId,
    ) -> Result<Option<ValueId>, CodegenError> {
        let callee = self.module.function(f).clone();
        if callee.derivative != Derivative::Transcribe
            || callee.backward.is_some()
            || callee.prefer_recompute
            || callee.params.iter().any(|p| p.dir != ParamDir::In)
            || self.requests.in_progress.contains(&f)
            || self.requests.no_extract
        {
            return Ok(None);
        }
        let bwd = backward_derivative(self.module, self.requests, f).map_err(|m| self.error(m))?;
        if !self.requests.extracted.contains_key(&bwd) {
            self.requests.in_progress.push(f);
            let done = transcribe_and_extract(self.module, self.requests, f, bwd);
            self.requests.in_progress.retain(|&g| g != f);
            done?;
        }
        let ext = self.requests.extracted[&bwd];
        let (_, param_map, ret_diff) = backward_signature(&mut self.module.types, &callee);
        let params = self.module.function(ext.primal).params.clone();
        let mut call_args = vec![None; params.len()];
        for (&a, pm) in args.iter().zip(&param_map) {
            match *pm {
                ParamMap::Pair(i) => {
                    let (pair_ty, _) = self.module.types.pointee(params[i].ty).expect("a pair pointer");
                    let Type::DifferentialPair { diff, .. } = *self.module.types.get(pair_ty) else {
                        unreachable!("a pair")
                    };
                    let z = self.emit().zero(diff);
                    let init = self.inst(Op::Construct(vec![operands[&a], z]), pair_ty);
                    let var = self.var(pair_ty, None);
                    self.store(var, init);
                    call_args[i] = Some(var);
                }
                ParamMap::Value(i) => call_args[i] = Some(operands[&a]),
                ParamMap::PtrPair(i) => call_args[i] = Some(self.ptr_pair_arg(a, operands[&a])),
                ParamMap::OutGrad(_) | ParamMap::Dropped => return Ok(None),
            }
        }
        if let Some(d) = ret_diff {
            let z = self.emit().zero(d);
            call_args[params.len() - 2] = Some(z);
        }
        let ctx = self.var(ext.context, None);
        *call_args.last_mut().expect("the context") = Some(ctx);
        let call_args: Vec<ValueId> = call_args.into_iter().map(|a| a.expect("every argument")).collect();
        let r = self.inst(Op::Call(ext.primal, call_args), ret);
        let c = self.load(ctx);
        let saved = self.save(c);
        self.st.call_ctx.insert(v, (ext, saved));
        Ok(Some(r))
    }

    /// The `DifferentialPtrPair` to pass for `f`'s value `a` (primal `v`):
    /// the pair `f` was given for it, or (a pointer-like value made inside
    /// `f`) the value as its own derivative location.
    fn ptr_pair_arg(&mut self, a: ValueId, v: ValueId) -> ValueId {
        if let Some(&pair) = self.st.ptr_pairs.get(&a) {
            return pair;
        }
        let t = self.st.b.ty(v);
        let pair = self.module.types.ptr_pair(t).expect("a pointer-like differentiable type");
        self.inst(Op::Construct(vec![v, v]), pair)
    }

    /// The primal value of `v` where the backward part is being emitted:
    /// constants are emitted again, other values read from where the
    /// primal part saved them (the checkpointing pass then recomputes
    /// the cheap ones instead).
    fn primal(&mut self, v: ValueId) -> ValueId {
        if let Some(Op::Const(c)) = self.src.op(v) {
            let c = *c;
            return self.inst(Op::Const(c), self.src_ty(v));
        }
        if let Some(saved) = self.st.ckpt[v.index()] {
            return self.restore(saved);
        }
        self.mapped(v)
    }

    // ---- adjoints -----------------------------------------------------------

    /// The adjoint variable of `v` (created at zero).
    fn adj_var(&mut self, v: ValueId) -> Option<ValueId> {
        if let Some(&a) = self.st.adj.get(&v) {
            return Some(a);
        }
        let d = self.differential(self.src_ty(v))?;
        let a = self.var(d, None);
        self.st.adj.insert(v, a);
        Some(a)
    }

    /// The current adjoint of `v` (`None`: zero).
    fn adj_value(&mut self, v: ValueId) -> Option<ValueId> {
        let a = *self.st.adj.get(&v)?;
        Some(self.load(a))
    }

    /// `adj[v] += g`.
    fn add_adj(&mut self, v: ValueId, g: ValueId) -> Result<(), CodegenError> {
        if !self.st.active[v.index()] {
            return Ok(());
        }
        let Some(a) = self.adj_var(v) else { return Ok(()) };
        self.accumulate(a, g)
    }

    /// `*ptr += g`.
    fn accumulate(&mut self, ptr: ValueId, g: ValueId) -> Result<(), CodegenError> {
        let old = self.load(ptr);
        let t = self.st.b.ty(old);
        let g = self.coerce_to(g, t)?;
        let sum = self.dadd(old, g, t)?;
        self.store(ptr, sum);
        Ok(())
    }

    /// `g` in the type `t` of the adjoint it is added to (a scalar
    /// broadcast, the same differential type otherwise).
    fn coerce_to(&mut self, g: ValueId, t: TypeId) -> Result<ValueId, CodegenError> {
        let gt = self.st.b.ty(g);
        if gt == t {
            return Ok(g);
        }
        match (self.module.types.get(gt).clone(), self.module.types.get(t).clone()) {
            (Type::Scalar(_), Type::Vector(..) | Type::Matrix { .. }) => Ok(self.inst(Op::Splat(g), t)),
            (Type::Vector(..) | Type::Matrix { .. }, Type::Scalar(_)) => Ok(self.sum(g)),
            (Type::Scalar(_), Type::Scalar(_)) => Ok(self.inst(Op::Convert(g), t)),
            _ => Err(self.error(format!(
                "internal: adjoint of type `{}` added to `{}`",
                self.module.types.display(gt),
                self.module.types.display(t)
            ))),
        }
    }

    /// `a + b` for differentials of type `t`.
    fn dadd(&mut self, a: ValueId, b: ValueId, t: TypeId) -> Result<ValueId, CodegenError> {
        self.emit()
            .combine(BinaryOp::Add, a, b, t)
            .ok_or_else(|| self.error("internal: adding values that are not differentials"))
    }

    /// The sum of the components of a vector or matrix.
    fn sum(&mut self, v: ValueId) -> ValueId {
        let t = self.st.b.ty(v);
        match self.module.types.get(t).clone() {
            Type::Vector(s, n) => {
                let st = self.module.types.intern(Type::Scalar(s));
                let mut acc = self.inst(Op::Extract(v, 0), st);
                for i in 1..n as u32 {
                    let x = self.inst(Op::Extract(v, i), st);
                    acc = self.inst(Op::Binary(BinaryOp::Add, acc, x), st);
                }
                acc
            }
            Type::Matrix { scalar, rows, cols } => {
                let rt = self.module.types.intern(Type::Vector(scalar, cols));
                let st = self.module.types.intern(Type::Scalar(scalar));
                let mut acc = None;
                for i in 0..rows as u32 {
                    let r = self.inst(Op::Extract(v, i), rt);
                    let s = self.sum(r);
                    acc = Some(match acc {
                        Some(a) => self.inst(Op::Binary(BinaryOp::Add, a, s), st),
                        None => s,
                    });
                }
                acc.expect("a matrix has rows")
            }
            _ => v,
        }
    }

    /// The adjoint storage behind a pointer of `f` (`None`: memory whose
    /// derivative is not tracked, such as buffers).
    fn adj_ptr(&mut self, p: ValueId) -> Option<ValueId> {
        if let Some(&a) = self.st.adj_mem.get(&p) {
            return Some(a);
        }
        match self.src.op(p)?.clone() {
            Op::Var => {
                let (t, _) = self.module.types.pointee(self.src_ty(p))?;
                let d = self.differential(t)?;
                let a = self.var(d, None);
                self.st.adj_mem.insert(p, a);
                Some(a)
            }
            Op::FieldAddr(base, i) => {
                let (bt, _) = self.module.types.pointee(self.src_ty(base))?;
                let index = match self.module.types.get(bt) {
                    Type::Struct { .. } => self.module.types.struct_diff(bt)?.fields.get(i as usize).copied()??,
                    _ => i,
                };
                let ab = self.adj_ptr(base)?;
                let (abt, _) = self.module.types.pointee(self.st.b.ty(ab))?;
                let et = self.module.types.element(abt, index)?;
                let et = self.module.types.intern(et);
                let pt = self.ptr_ty(et);
                Some(self.inst(Op::FieldAddr(ab, index), pt))
            }
            Op::ElementAddr(base, idx) => {
                let ab = self.adj_ptr(base)?;
                let (abt, _) = self.module.types.pointee(self.st.b.ty(ab))?;
                let et = self.module.types.element(abt, 0)?;
                let et = self.module.types.intern(et);
                let pt = self.ptr_ty(et);
                let i = self.primal(idx);
                Some(self.inst(Op::ElementAddr(ab, i), pt))
            }
            _ => None,
        }
    }

    /// A pointer to part `index` of the adjoint variable of value `v`
    /// (`index` of the value's type; mapped through a struct's
    /// `Differential`).
    fn adj_part_ptr(&mut self, v: ValueId, index: Part) -> Option<ValueId> {
        let a = self.adj_var(v)?;
        let vt = self.src_ty(v);
        let (at, _) = self.module.types.pointee(self.st.b.ty(a))?;
        match index {
            Part::Const(i) => {
                let i = match self.module.types.get(vt) {
                    Type::Struct { .. } => self.module.types.struct_diff(vt)?.fields.get(i as usize).copied()??,
                    _ => i,
                };
                let et = self.module.types.element(at, i)?;
                let et = self.module.types.intern(et);
                let pt = self.ptr_ty(et);
                Some(self.inst(Op::FieldAddr(a, i), pt))
            }
            Part::Dynamic(idx) => {
                let et = self.module.types.element(at, 0)?;
                let et = self.module.types.intern(et);
                let pt = self.ptr_ty(et);
                Some(self.inst(Op::ElementAddr(a, idx), pt))
            }
        }
    }

    // ---- the backward part --------------------------------------------------

    fn reverse_seq(&mut self, nodes: &[Node]) -> Result<(), CodegenError> {
        // The part after a split ran only if no exit had: reversed under
        // the same condition, first.
        if let Some(i) = nodes.iter().position(|n| self.st.splits.contains_key(&(n as *const Node))) {
            if i + 1 < nodes.len() {
                let saved = self.st.splits[&(&nodes[i] as *const Node)];
                let c = self.restore(saved);
                self.reverse_guarded(c, &nodes[i + 1..])?;
                return self.reverse_seq(&nodes[..=i]);
            }
        }
        for node in nodes.iter().rev() {
            match node {
                Node::Block(b) => self.reverse_block(*b)?,
                Node::Assign { target, args } => {
                    // Parallel assignment: read every adjoint, then clear.
                    let params = self.src.block(*target).params.clone();
                    let mut moves = Vec::new();
                    for (&p, &a) in params.iter().zip(args) {
                        // (Created now if need be: in a loop, the uses that
                        // feed it are reversed after this, in emission order,
                        // but before it at run time.)
                        let Some(var) = self.adj_var(p) else { continue };
                        let g = self.load(var);
                        moves.push((a, g));
                        let t = self.st.b.ty(g);
                        let z = self.emit().zero(t);
                        self.store(var, z);
                    }
                    for (a, g) in moves {
                        self.add_adj(a, g)?;
                    }
                }
                Node::If { cond, then, els } => {
                    let c = self.primal(*cond);
                    let (t, e, merge) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
                    let block = self.block();
                    self.st.b.terminate(block, Terminator::If { cond: c, then: t, els: e, merge });
                    for (start, region) in [(t, then), (e, els)] {
                        self.st.cur = Some(start);
                        self.reverse_seq(region)?;
                        let end = self.block();
                        self.st.b.terminate(end, Terminator::Branch { target: merge, args: Vec::new() });
                    }
                    self.st.cur = Some(merge);
                }
                Node::Switch { value, cases, default } => {
                    let v = self.primal(*value);
                    let (bodies, brk) = self.open_switch(v, cases, default);
                    for (start, body) in bodies {
                        self.st.cur = Some(start);
                        self.reverse_seq(body)?;
                        let end = self.block();
                        self.st.b.terminate(end, Terminator::Branch { target: brk, args: Vec::new() });
                    }
                    self.st.cur = Some(brk);
                }
                Node::Return(Some(v)) => {
                    if let Some(g) = self.st.ret_adj {
                        self.add_adj(*v, g)?;
                    }
                }
                Node::Loop { body, continuing, .. } => {
                    let l = self.st.loop_of_node[&(node as *const Node)];
                    self.reverse_loop(l, body, continuing)?;
                }
                Node::Break | Node::Continue | Node::Return(None) | Node::Unreachable => {}
            }
        }
        Ok(())
    }

    /// `if (c) { reverse of nodes }`.
    fn reverse_guarded(&mut self, c: ValueId, nodes: &[Node]) -> Result<(), CodegenError> {
        let (t, e, merge) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        let block = self.block();
        self.st.b.terminate(block, Terminator::If { cond: c, then: t, els: e, merge });
        self.st.b.terminate(e, Terminator::Branch { target: merge, args: Vec::new() });
        self.st.cur = Some(t);
        self.reverse_seq(nodes)?;
        let end = self.block();
        self.st.b.terminate(end, Terminator::Branch { target: merge, args: Vec::new() });
        self.st.cur = Some(merge);
        Ok(())
    }

    /// The iterations of loop `l` in reverse order: from the last one's
    /// number down to the first's, each reversing the continuing part (if
    /// it ran) and then the body.
    fn reverse_loop(&mut self, l: usize, body: &[Node], continuing: &[Node]) -> Result<(), CodegenError> {
        let int = self.module.types.intern(Type::Scalar(slang_analysis::ty::Scalar::Int32));
        let bool_ty = self.bool_ty();
        let before = self.st.loops[l].before.expect("a copied loop");
        let after = self.st.loops[l].after.expect("a copied loop");
        let first = self.restore(before);
        let end = self.restore(after);
        let one = self.inst(Op::Const(crate::ir::Const::Int(1)), int);
        let last = self.inst(Op::Binary(BinaryOp::Sub, end, one), int);
        let r = self.var(int, None);
        self.store(r, last);
        let (header, brk, cont) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        let block = self.block();
        self.st.b.terminate(block, Terminator::Loop { header, brk, cont, args: Vec::new() });
        // As many iterations as the loop's (its last one included, which
        // only tests the exit: `MaxIters + 1`), so that the derivative can
        // be differentiated in reverse again.
        let bound = self.st.loops[l].bound.saturating_add(1);
        self.st.b.func.max_iters.push((header, bound));
        self.st.cur = Some(header);
        let i = self.load(r);
        let more = self.inst(Op::Binary(BinaryOp::Ge, i, first), bool_ty);
        let (go, stop, body_block) = (self.st.b.new_block(), self.st.b.new_block(), self.st.b.new_block());
        self.st.b.terminate(header, Terminator::If { cond: more, then: go, els: stop, merge: body_block });
        self.st.b.terminate(go, Terminator::Branch { target: body_block, args: Vec::new() });
        self.st.b.terminate(stop, Terminator::Branch { target: brk, args: Vec::new() });
        self.st.cur = Some(body_block);
        self.st.loop_stack.push(l);
        self.st.rev_index.insert(l, i);
        self.st.loops[l].rev_index = Some(i);
        let ran = self.st.loops[l].continuing_ran.expect("a copied loop");
        let c = self.restore(ran);
        self.reverse_guarded(c, continuing)?;
        self.reverse_seq(body)?;
        self.st.loop_stack.pop();
        self.st.rev_index.remove(&l);
        let end_block = self.block();
        self.st.b.terminate(end_block, Terminator::Branch { target: cont, args: Vec::new() });
        self.st.cur = Some(cont);
        let i2 = self.load(r);
        let one = self.inst(Op::Const(crate::ir::Const::Int(1)), int);
        let prev = self.inst(Op::Binary(BinaryOp::Sub, i2, one), int);
        self.store(r, prev);
        self.st.b.terminate(cont, Terminator::Branch { target: header, args: Vec::new() });
        self.st.loops[l].rev_blocks =
            (header.0..self.st.b.func.blocks.len() as u32).map(BlockId).filter(|&b| b != brk).collect();
        self.st.cur = Some(brk);
        Ok(())
    }

    fn reverse_block(&mut self, b: BlockId) -> Result<(), CodegenError> {
        let insts = self.src.block(b).insts.clone();
        for &v in insts.iter().rev() {
            self.st.span = self.src.value(v).span.or(self.src.span);
            self.transpose(v)?;
        }
        Ok(())
    }

    /// Propagate the adjoint of instruction `v` to its operands.
    fn transpose(&mut self, v: ValueId) -> Result<(), CodegenError> {
        let Some(op) = self.src.op(v).cloned() else { return Ok(()) };
        match op {
            Op::Store { ptr, value } => {
                let Some(a) = self.adj_ptr(ptr) else { return Ok(()) };
                let g = self.load(a);
                let t = self.st.b.ty(g);
                let z = self.emit().zero(t);
                self.store(a, z);
                self.add_adj(value, g)
            }
            Op::Call(f, args) => self.transpose_call(v, f, &args),
            _ => {
                let Some(g) = self.adj_value(v) else { return Ok(()) };
                // Consumed: inside a loop, the same value of the previous
                // iteration starts from zero.
                if !self.st.loop_stack.is_empty() {
                    let var = self.st.adj[&v];
                    let t = self.st.b.ty(g);
                    let z = self.emit().zero(t);
                    self.store(var, z);
                }
                self.transpose_value(v, op, g)
            }
        }
    }

    fn transpose_value(&mut self, v: ValueId, op: Op, g: ValueId) -> Result<(), CodegenError> {
        let vt = self.src_ty(v);
        match op {
            Op::Load(p) => {
                if let Some(a) = self.adj_ptr(p) {
                    self.accumulate(a, g)?;
                }
                Ok(())
            }
            Op::Construct(parts) => {
                match self.module.types.get(vt).clone() {
                    Type::Vector(s, _) => {
                        let mut offset = 0u32;
                        for p in parts {
                            let pt = self.src_ty(p);
                            let n = match self.module.types.get(pt) {
                                Type::Vector(_, m) => *m as u32,
                                _ => 1,
                            };
                            let part = if n == 1 {
                                let st = self.module.types.intern(Type::Scalar(s));
                                self.inst(Op::Extract(g, offset), st)
                            } else {
                                let t = self.module.types.intern(Type::Vector(s, n as u8));
                                self.inst(Op::Swizzle(g, (offset as u8..(offset + n) as u8).collect()), t)
                            };
                            self.add_adj(p, part)?;
                            offset += n;
                        }
                    }
                    Type::Struct { .. } => {
                        let map = self.module.types.struct_diff(vt).map(|d| d.fields.clone()).unwrap_or_default();
                        let gt = self.st.b.ty(g);
                        for (i, p) in parts.into_iter().enumerate() {
                            if let Some(Some(j)) = map.get(i) {
                                let et = self.module.types.element(gt, *j).expect("a field");
                                let et = self.module.types.intern(et);
                                let part = self.inst(Op::Extract(g, *j), et);
                                self.add_adj(p, part)?;
                            }
                        }
                    }
                    _ => {
                        let gt = self.st.b.ty(g);
                        for (i, p) in parts.into_iter().enumerate() {
                            let et = self.module.types.element(gt, i as u32).expect("a part");
                            let et = self.module.types.intern(et);
                            let part = self.inst(Op::Extract(g, i as u32), et);
                            self.add_adj(p, part)?;
                        }
                    }
                }
                Ok(())
            }
            Op::Extract(x, i) => {
                if let Some(ptr) = self.adj_part_ptr(x, Part::Const(i)) {
                    self.accumulate(ptr, g)?;
                }
                Ok(())
            }
            Op::ExtractDynamic(x, idx) => {
                let i = self.primal(idx);
                if let Some(ptr) = self.adj_part_ptr(x, Part::Dynamic(i)) {
                    self.accumulate(ptr, g)?;
                }
                Ok(())
            }
            Op::Swizzle(x, comps) => {
                let gt = self.st.b.ty(g);
                let st = match self.module.types.get(gt) {
                    Type::Vector(s, _) => self.module.types.intern(Type::Scalar(*s)),
                    _ => gt,
                };
                for (k, c) in comps.into_iter().enumerate() {
                    let part = self.inst(Op::Extract(g, k as u32), st);
                    if let Some(ptr) = self.adj_part_ptr(x, Part::Const(c as u32)) {
                        self.accumulate(ptr, part)?;
                    }
                }
                Ok(())
            }
            Op::Splat(x) => {
                let s = self.sum(g);
                self.add_adj(x, s)
            }
            Op::Convert(x) => {
                let Some(d) = self.differential(self.src_ty(x)) else { return Ok(()) };
                let c = self.inst(Op::Convert(g), d);
                self.add_adj(x, c)
            }
            Op::Select(c, a, b) => {
                let c = self.primal(c);
                let t = self.st.b.ty(g);
                let z = self.emit().zero(t);
                let ga = self.inst(Op::Select(c, g, z), t);
                let gb = self.inst(Op::Select(c, z, g), t);
                self.add_adj(a, ga)?;
                self.add_adj(b, gb)
            }
            Op::Binary(..) | Op::Unary(..) | Op::Intrinsic(..) => self.transpose_arith(v, op, g),
            // No derivative flows through these.
            _ => Ok(()),
        }
    }

    /// Linearize `v = op(x…)` with the forward rules into a scratch
    /// function, then replay its primal part and transpose its
    /// differential part.
    fn transpose_arith(&mut self, v: ValueId, op: Op, g: ValueId) -> Result<(), CodegenError> {
        let operands = op.operands();
        // The instruction's linearization ([`linearize`]).
        let lin = self.st.lin.clone();
        let seg = match lin.segment(v) {
            None => return Ok(()),
            Some(Err((_, m))) => return Err(self.error(m.clone())),
            Some(Ok(seg)) => seg,
        };
        let (pp, dp, rp, insts) = (&seg.primal_operands, &seg.diff_operands, seg.result, &seg.insts);
        let Some(out) = seg.out else { return Ok(()) };
        let sb = &lin.func;
        let is_diff = &lin.differential;
        // Replay the primal instructions (reading only the primal operands
        // the rule uses, so that nothing else needs saving).
        let used: std::collections::HashSet<ValueId> =
            insts.iter().filter_map(|&i| sb.op(i)).flat_map(|op| op.operands()).collect();
        let mut pmap: HashMap<ValueId, ValueId> = HashMap::new();
        for (k, &o) in operands.iter().enumerate() {
            if used.contains(&pp[k]) {
                let p = self.primal(o);
                pmap.insert(pp[k], p);
            }
        }
        if used.contains(&rp) {
            let r = self.primal(v);
            pmap.insert(rp, r);
        }
        for &i in insts {
            if is_diff[i.index()] {
                continue;
            }
            let mut op = sb.op(i).expect("an instruction").clone();
            op.map_operands(|o| pmap[&o]);
            let t = sb.value(i).ty;
            let new = self.inst(op, t);
            pmap.insert(i, new);
        }
        if !is_diff[out.index()] {
            // A constant derivative (zero): nothing flows back.
            return Ok(());
        }
        // Transpose the differential instructions, last first.
        let mut ladj: HashMap<ValueId, ValueId> = HashMap::new();
        ladj.insert(out, g);
        for &i in insts.iter().rev() {
            if !is_diff[i.index()] {
                continue;
            }
            let Some(a) = ladj.remove(&i) else { continue };
            let op = sb.op(i).expect("an instruction").clone();
            let p = |o: ValueId| pmap.get(&o).copied();
            let contributions: Vec<(ValueId, ValueId)> = match op {
                Op::Binary(BinaryOp::Add, x, y) => {
                    [x, y].into_iter().filter(|o| is_diff[o.index()]).map(|o| (o, a)).collect()
                }
                Op::Binary(BinaryOp::Sub, x, y) => {
                    let mut c = Vec::new();
                    if is_diff[x.index()] {
                        c.push((x, a));
                    }
                    if is_diff[y.index()] {
                        let t = self.st.b.ty(a);
                        c.push((y, self.inst(Op::Unary(UnaryOp::Neg, a), t)));
                    }
                    c
                }
                Op::Binary(BinaryOp::Mul, x, y) => {
                    let (d, k) = if is_diff[x.index()] { (x, y) } else { (y, x) };
                    let k = p(k).ok_or_else(|| self.error("internal: a product of two differentials"))?;
                    vec![(d, self.emit().bin(BinaryOp::Mul, a, k))]
                }
                Op::Binary(BinaryOp::Div, x, y) if is_diff[x.index()] && !is_diff[y.index()] => {
                    let k = p(y).expect("a primal divisor");
                    vec![(x, self.emit().bin(BinaryOp::Div, a, k))]
                }
                Op::Unary(UnaryOp::Neg, x) => {
                    let t = self.st.b.ty(a);
                    vec![(x, self.inst(Op::Unary(UnaryOp::Neg, a), t))]
                }
                Op::Splat(x) => vec![(x, self.sum(a))],
                Op::Select(c, x, y) => {
                    let c = p(c).expect("a primal condition");
                    let t = self.st.b.ty(a);
                    let z = self.emit().zero(t);
                    let mut out = Vec::new();
                    if is_diff[x.index()] {
                        out.push((x, self.inst(Op::Select(c, a, z), t)));
                    }
                    if is_diff[y.index()] {
                        out.push((y, self.inst(Op::Select(c, z, a), t)));
                    }
                    out
                }
                Op::Extract(x, k) => {
                    let xt = sb.value(x).ty;
                    vec![(x, self.one_hot(a, k, xt))]
                }
                Op::Intrinsic(Intrinsic::Dot, args) => {
                    let (d, k) = if is_diff[args[0].index()] { (args[0], args[1]) } else { (args[1], args[0]) };
                    let k = p(k).expect("a primal operand");
                    vec![(d, self.emit().bin(BinaryOp::Mul, a, k))]
                }
                Op::Intrinsic(Intrinsic::Cross, args) => {
                    let t = sb.value(args[0]).ty;
                    if is_diff[args[0].index()] {
                        let y = p(args[1]).expect("a primal operand");
                        vec![(args[0], self.inst(Op::Intrinsic(Intrinsic::Cross, vec![y, a]), t))]
                    } else {
                        let x = p(args[0]).expect("a primal operand");
                        vec![(args[1], self.inst(Op::Intrinsic(Intrinsic::Cross, vec![a, x]), t))]
                    }
                }
                Op::Intrinsic(Intrinsic::Transpose, args) => {
                    let t = sb.value(args[0]).ty;
                    vec![(args[0], self.inst(Op::Intrinsic(Intrinsic::Transpose, vec![a]), t))]
                }
                Op::Intrinsic(Intrinsic::Mul, args) => {
                    let (x, y) = (args[0], args[1]);
                    let (xt, yt) = (sb.value(x).ty, sb.value(y).ty);
                    if is_diff[x.index()] {
                        let yp = p(y).expect("a primal operand");
                        vec![(x, self.mul_adjoint_left(a, yp, xt)?)]
                    } else {
                        let xp = p(x).expect("a primal operand");
                        vec![(y, self.mul_adjoint_right(a, xp, yt)?)]
                    }
                }
                other => {
                    return Err(self.error(format!(
                        "internal: no transpose for the linear instruction {other:?} of a derivative rule"
                    )))
                }
            };
            for (o, c) in contributions {
                let t = sb.value(o).ty;
                let c = self.coerce_to(c, t)?;
                let sum = match ladj.remove(&o) {
                    Some(prev) => self.dadd(prev, c, t)?,
                    None => c,
                };
                ladj.insert(o, sum);
            }
        }
        for (k, &o) in operands.iter().enumerate() {
            if let Some(d) = dp[k] {
                if let Some(a) = ladj.remove(&d) {
                    self.add_adj(o, a)?;
                }
            }
        }
        Ok(())
    }

    /// A value of type `t` that is `a` at part `k` and zero elsewhere.
    fn one_hot(&mut self, a: ValueId, k: u32, t: TypeId) -> ValueId {
        let n = match self.module.types.get(t) {
            Type::Vector(_, n) => *n as u32,
            Type::Matrix { rows, .. } => *rows as u32,
            Type::Array(_, n) => *n,
            _ => return a,
        };
        let at = self.st.b.ty(a);
        let parts = (0..n).map(|i| if i == k { a } else { self.emit().zero(at) }).collect();
        self.inst(Op::Construct(parts), t)
    }

    /// The adjoint of `x` in `mul(x, y)` (`y` primal) given the result's
    /// adjoint `a`.
    fn mul_adjoint_left(&mut self, a: ValueId, y: ValueId, xt: TypeId) -> Result<ValueId, CodegenError> {
        let yt = self.st.b.ty(y);
        match (self.module.types.get(xt).clone(), self.module.types.get(yt).clone()) {
            // mul(M, v): dM = outer(a, v).
            (Type::Matrix { .. }, Type::Vector(..)) => Ok(self.outer(a, y, xt)),
            // mul(v, M) = Mᵀv: dv = mul(M, a).
            (Type::Vector(..), Type::Matrix { .. }) => Ok(self.inst(Op::Intrinsic(Intrinsic::Mul, vec![y, a]), xt)),
            // mul(A, B): dA = mul(a, Bᵀ).
            (Type::Matrix { .. }, Type::Matrix { scalar, rows, cols }) => {
                let bt = self.module.types.intern(Type::Matrix { scalar, rows: cols, cols: rows });
                let yt = self.inst(Op::Intrinsic(Intrinsic::Transpose, vec![y]), bt);
                Ok(self.inst(Op::Intrinsic(Intrinsic::Mul, vec![a, yt]), xt))
            }
            _ => Err(self.error("the backward derivative of this `mul` is not supported yet")),
        }
    }

    /// The adjoint of `y` in `mul(x, y)` (`x` primal).
    fn mul_adjoint_right(&mut self, a: ValueId, x: ValueId, yt: TypeId) -> Result<ValueId, CodegenError> {
        let xt = self.st.b.ty(x);
        match (self.module.types.get(xt).clone(), self.module.types.get(yt).clone()) {
            // mul(M, v): dv = mul(a, M).
            (Type::Matrix { .. }, Type::Vector(..)) => Ok(self.inst(Op::Intrinsic(Intrinsic::Mul, vec![a, x]), yt)),
            // mul(v, M): dM = outer(v, a).
            (Type::Vector(..), Type::Matrix { .. }) => Ok(self.outer(x, a, yt)),
            // mul(A, B): dB = mul(Aᵀ, a).
            (Type::Matrix { scalar, rows, cols }, Type::Matrix { .. }) => {
                let at = self.module.types.intern(Type::Matrix { scalar, rows: cols, cols: rows });
                let xt = self.inst(Op::Intrinsic(Intrinsic::Transpose, vec![x]), at);
                Ok(self.inst(Op::Intrinsic(Intrinsic::Mul, vec![xt, a]), yt))
            }
            _ => Err(self.error("the backward derivative of this `mul` is not supported yet")),
        }
    }

    /// The matrix whose row `i` is `u[i] * v`.
    fn outer(&mut self, u: ValueId, v: ValueId, t: TypeId) -> ValueId {
        let Type::Matrix { scalar, rows, .. } = *self.module.types.get(t) else { unreachable!("a matrix") };
        let st = self.module.types.intern(Type::Scalar(scalar));
        let rows = (0..rows as u32)
            .map(|i| {
                let ui = self.inst(Op::Extract(u, i), st);
                self.emit().bin(BinaryOp::Mul, ui, v)
            })
            .collect();
        self.inst(Op::Construct(rows), t)
    }

    /// A call: of a differentiable function, a call of its backward
    /// derivative with the arguments' primal values (in pairs) and the
    /// result's adjoint; the pairs' derivatives are added to the
    /// arguments'.
    fn transpose_call(&mut self, v: ValueId, f: FuncId, args: &[ValueId]) -> Result<(), CodegenError> {
        let callee = self.module.function(f).clone();
        if callee.backward.is_none() && matches!(callee.derivative, Derivative::None | Derivative::Zero) {
            return Ok(());
        }
        let g = self.adj_value(v);
        if let (Some(g), false) = (g, self.st.loop_stack.is_empty()) {
            // Consumed (see `transpose`).
            let var = self.st.adj[&v];
            let t = self.st.b.ty(g);
            let z = self.emit().zero(t);
            self.store(var, z);
        }
        let any_diff_arg = callee.params.iter().zip(args).any(|(p, &a)| {
            let t = self.src_ty(a);
            let value = self.module.types.pointee(t).map(|(t, _)| t).unwrap_or(t);
            !p.no_diff && self.differential(value).is_some()
        });
        if g.is_none() && !any_diff_arg {
            return Ok(());
        }
        // With the callee's context saved in the primal part: its
        // backward-propagation function, with the context last.
        let nested = self.st.call_ctx.get(&v).copied();
        let bwd = match nested {
            Some((ext, _)) => ext.prop,
            None => backward_derivative(self.module, self.requests, f).map_err(|m| self.error(m))?,
        };
        let (_, param_map, ret_diff) = backward_signature(&mut self.module.types, &callee);
        let mut bwd_params = self.module.function(bwd).params.clone();
        if nested.is_some() {
            bwd_params.pop();
        }
        let mut call_args = vec![None; bwd_params.len()];
        // (argument, pair variable, derivative type, whether the argument
        // is an `inout` pointer whose adjoint storage takes the result).
        let mut pairs = Vec::new();
        for (k, (&a, pm)) in args.iter().zip(&param_map).enumerate() {
            let dir = callee.params[k].dir;
            match (*pm, dir) {
                (ParamMap::Pair(i), ParamDir::In) => {
                    let (pair_ty, _) = self.module.types.pointee(bwd_params[i].ty).expect("a pair pointer");
                    let Type::DifferentialPair { diff, .. } = *self.module.types.get(pair_ty) else {
                        unreachable!("a pair")
                    };
                    let p = self.primal(a);
                    let z = self.emit().zero(diff);
                    let init = self.inst(Op::Construct(vec![p, z]), pair_ty);
                    let var = self.var(pair_ty, None);
                    self.store(var, init);
                    call_args[i] = Some(var);
                    pairs.push((a, var, diff, false));
                }
                (ParamMap::Pair(i), _) => {
                    // `inout`: the value before the call, and the adjoint
                    // of the value after it (taken from the argument's
                    // storage).
                    let (pair_ty, _) = self.module.types.pointee(bwd_params[i].ty).expect("a pair pointer");
                    let Type::DifferentialPair { diff, .. } = *self.module.types.get(pair_ty) else {
                        unreachable!("a pair")
                    };
                    let saved = self.st.pre_call[&(v, k)];
                    let p = self.restore(saved);
                    let d = match self.adj_ptr(a) {
                        Some(ap) => self.load(ap),
                        None => self.emit().zero(diff),
                    };
                    let init = self.inst(Op::Construct(vec![p, d]), pair_ty);
                    let var = self.var(pair_ty, None);
                    self.store(var, init);
                    call_args[i] = Some(var);
                    pairs.push((a, var, diff, true));
                }
                (ParamMap::OutGrad(i), _) => {
                    // The adjoint of what the call wrote; what was there
                    // before is overwritten (its adjoint is zero).
                    let d = bwd_params[i].ty;
                    let g = match self.adj_ptr(a) {
                        Some(ap) => {
                            let g = self.load(ap);
                            let z = self.emit().zero(d);
                            self.store(ap, z);
                            g
                        }
                        None => self.emit().zero(d),
                    };
                    call_args[i] = Some(g);
                }
                (ParamMap::Value(i), ParamDir::In) => call_args[i] = Some(self.primal(a)),
                (ParamMap::PtrPair(i), _) => {
                    let v = self.primal(a);
                    call_args[i] = Some(self.ptr_pair_arg(a, v));
                }
                (ParamMap::Value(i), _) => {
                    let saved = self.st.pre_call[&(v, k)];
                    call_args[i] = Some(self.restore(saved));
                }
                (ParamMap::Dropped, _) => {}
            }
        }
        if let Some(d) = ret_diff {
            let g = match g {
                Some(g) => self.coerce_to(g, d)?,
                None => self.emit().zero(d),
            };
            *call_args.last_mut().expect("the result's derivative") = Some(g);
        }
        let mut call_args: Vec<ValueId> = call_args.into_iter().map(|a| a.expect("every argument")).collect();
        if let Some((_, saved)) = nested {
            call_args.push(self.restore(saved));
        }
        let void = self.module.types.intern(Type::Void);
        self.inst(Op::Call(bwd, call_args), void);
        for (a, var, diff, inout) in pairs {
            let pair = self.load(var);
            let d = self.inst(Op::Extract(pair, 1), diff);
            if inout {
                // The adjoint of the value before the call replaces that
                // of the value after it.
                if let Some(ap) = self.adj_ptr(a) {
                    self.store(ap, d);
                }
            } else {
                self.add_adj(a, d)?;
            }
        }
        Ok(())
    }
}

/// Activity analysis: the values of `f` that depend on a differentiable
/// input (a parameter that is not `no_diff`, through instructions, local
/// memory, calls and block parameters). Others carry no derivative, so
/// the backward part neither propagates into them nor saves what their
/// derivative rules would read. Calls of functions with a user-written
/// backward derivative are active whatever their arguments. Buffers
/// (`Global`) are inactive memory.
fn activity(f: &Function, module: &mut Module) -> Vec<bool> {
    // Functions whose derivatives may come from nothing: those with a
    // user-written backward derivative (one that reads a parameter
    // buffer, say), and differentiable functions calling them.
    let mut custom: std::collections::HashSet<FuncId> = (0..module.functions.len())
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
    let mut active_mem: std::collections::HashSet<ValueId> = std::collections::HashSet::new();
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
    loop {
        let mut changed = false;
        let set = |v: ValueId, active: &mut Vec<bool>, changed: &mut bool| {
            if !active[v.index()] {
                active[v.index()] = true;
                *changed = true;
            }
        };
        for block in &f.blocks {
            for &i in &block.insts {
                let Some(op) = f.op(i) else { continue };
                match op {
                    // (Texture reads and atomics carry no derivative.)
                    Op::Const(_)
                    | Op::Var
                    | Op::Global(_)
                    | Op::Detach(_)
                    | Op::Barrier(_)
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

/// Whether an exit of the enclosing region is inside `node`: a
/// `return`, or a `break`/`continue` of the innermost loop (not of a
/// loop or `switch` inside `node`).
fn has_exit(node: &Node) -> bool {
    fn seq(nodes: &[Node], in_loop: bool, in_switch: bool) -> bool {
        nodes.iter().any(|n| walk(n, in_loop, in_switch))
    }
    fn walk(node: &Node, in_loop: bool, in_switch: bool) -> bool {
        match node {
            Node::Return(_) => true,
            Node::Break => !in_loop && !in_switch,
            Node::Continue => !in_loop,
            Node::If { then, els, .. } => seq(then, in_loop, in_switch) || seq(els, in_loop, in_switch),
            Node::Switch { cases, default, .. } => {
                cases.iter().any(|(_, b)| seq(b, in_loop, true)) || seq(default, in_loop, true)
            }
            Node::Loop { body, continuing, .. } => seq(body, true, false) || seq(continuing, true, false),
            _ => false,
        }
    }
    walk(node, false, false)
}

/// Where a pair parameter's derivative comes from at the end.
enum WriteBack {
    /// The adjoint of an `in` parameter's value.
    Value(ValueId),
    /// The adjoint storage of an `inout` parameter.
    Memory(ValueId),
}

/// Part of a value: a constant index or a dynamic one (a primal value of
/// the derivative).
#[derive(Clone, Copy)]
enum Part {
    Const(u32),
    Dynamic(ValueId),
}
