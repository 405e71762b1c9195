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

use rustc_hash::FxHashMap as HashMap;

use crate::autodiff::linearize::Linearized;
use crate::autodiff::rules::Emit;
use crate::autodiff::Requests;
use crate::ir::{
    AddressSpace, BinaryOp, BlockId, Derivative, FuncId, Function, FunctionBuilder, Intrinsic, Module, Op, Param,
    ParamDir, Terminator, Type, TypeId, UnaryOp, ValueId, ValueKind,
};
use crate::structure::{structure, Node};
use crate::timing::pass;
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
/// `cancel` runs between these passes (the editor's compile worker gives
/// way to an edit there: one transcription of a large unrolled function
/// takes long).
pub fn run(module: &mut Module, requests: &mut Requests, cancel: &dyn Fn()) -> Result<(), CodegenError> {
    while let Some((primal, derivative)) = requests.backward_queue.pop_front() {
        transcribe_and_extract(module, requests, primal, derivative, cancel)?;
    }
    Ok(())
}

/// [`transcribe`], then [`extract`] (also on demand, when a caller's
/// primal part needs the callee's primal-context function), `cancel`
/// between the passes.
fn transcribe_and_extract(
    module: &mut Module,
    requests: &mut Requests,
    primal: FuncId,
    derivative: FuncId,
    cancel: &dyn Fn(),
) -> Result<(), CodegenError> {
    let mut combined = transcribe(module, requests, primal, derivative, cancel)?;
    cancel();
    let saved = pass("checkpoint", || crate::autodiff::checkpoint::run(module, &mut combined));
    requests.context.insert(derivative, saved);
    if !requests.no_extract {
        cancel();
        let split = pass("extract", || extract(module, &combined));
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
    /// Per `inout` parameter of `f`: the value it held on entry (a value
    /// of the prologue, which the backward part may read directly: the
    /// caller passes that value again).
    pub initial: HashMap<ValueId, ValueId>,
    /// For calls with `inout` arguments, by (call, argument): what the
    /// argument pointed to before the call — a value of `f`, or (`Err`)
    /// the variable of the save holding it. The checkpointing pass
    /// recomputes such a call from it.
    pub pre_call: HashMap<(ValueId, usize), Result<ValueId, ValueId>>,
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
    /// Its value when known at compile time (the iteration count after a
    /// loop in no other loop whose trip count is a constant,
    /// [`crate::unroll::exact_trip_count`]): the backward part reads the
    /// constant, so it is never saved.
    pub constant: Option<crate::ir::Const>,
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
    /// The save of the counter before the loop: the number of its first
    /// iteration (`None`: zero, for a loop in no other loop).
    pub before: Option<ValueId>,
    /// The save of the iteration count after the loop (the last
    /// iteration's values are read through it after the loop).
    pub after: Option<ValueId>,
    /// The iterations one run of it numbers (`MaxIters + 1`): in an
    /// enclosing loop, each run's counter starts at the enclosing
    /// iteration's number times this.
    pub stride: u32,
    /// The counter after a run of it, counted from where the run started,
    /// when that is the same on every run (see [`LoopInfo::end`]).
    pub end: Option<u32>,
}

/// Transcribe the backward derivative `derivative` of `primal` into one
/// function: [`linearize`], [`unzip`], [`transpose`]. Every primal value the
/// backward part reads is saved by the primal part (checkpointed);
/// [`crate::autodiff::checkpoint`] then decides which to recompute
/// instead and drops the saves nothing reads. `cancel` runs before each
/// pass.
pub fn transcribe(
    module: &mut Module,
    requests: &mut Requests,
    primal: FuncId,
    derivative: FuncId,
    cancel: &dyn Fn(),
) -> Result<Combined, CodegenError> {
    cancel();
    let lin = pass("linearize", || linearize(module, primal));
    cancel();
    let unzipped = pass("unzip", || unzip(module, requests, primal, derivative, lin))?;
    cancel();
    pass("transpose", || transpose(module, requests, unzipped))
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
    // (Repeated instructions would each get an adjoint: [`crate::cse`].)
    crate::cse::run(&mut module.functions[primal.index()]);
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
            file: None,
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
                before: l.before.map(|a| a.var),
                after: l.after.map(|a| a.var),
                stride: l.bound.saturating_add(1),
                end: l.end,
            })
            .collect();
    let params: HashMap<ValueId, ValueId> = src
        .blocks
        .first()
        .map(|b| b.params.iter().filter_map(|&p| Some((p, t.st.map[p.index()]?))).collect())
        .unwrap_or_default();
    let initial = std::mem::take(&mut t.st.initial);
    let pre_call =
        t.st.pre_call
            .iter()
            .map(|(&key, pre)| {
                let before = match *pre {
                    PreCall::Saved(s) => Err(s.var),
                    PreCall::Value(x) => Ok(x),
                };
                (key, before)
            })
            .collect();
    let (rev_start, ret_var) = (t.st.rev_start, t.st.ret_var);
    module.functions[derivative.index()] = t.st.b.finish();
    result?;
    let rev_start = rev_start.expect("a transcribed backward derivative");
    Ok(Combined { primal, derivative, saves, loops, params, initial, pre_call, rev_start, ret_var })
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
    // (No copies of whole functions but the one each half starts from:
    // on unrolled kernels they are hundreds of thousands of values.)
    let (src_name, src_ret) = (module.function(primal).name.clone(), module.function(primal).ret);
    let whole = std::mem::replace(
        &mut module.functions[derivative.index()],
        FunctionBuilder::new(String::new(), src_ret, None).finish(),
    );
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
        module.types.intern(Type::Struct { name: format!("{}_Intermediates", src_name), fields: fields.clone() });
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
            .intern(Type::Struct { name: format!("{}_Intermediates_Differential", src_name), fields: diff_fields });
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
    p.func.name = format!("s_primal_ctx_{}", src_name);
    p.func.ret = src_ret;
    p.func.params.push(ctx_param("ctx", ParamDir::Out, ctx_ptr));
    let ctx_out = p.add_block_param(PROLOGUE, ctx_ptr, span);
    for (i, &v) in saves.iter().enumerate() {
        p.func.values[v.index()].kind = ValueKind::Inst(Op::FieldAddr(ctx_out, i as u32));
    }
    p.func.blocks[rev_start.index()].insts.clear();
    let result = ret_var.map(|r| p.inst(rev_start, Op::Load(r), src_ret, span));
    p.terminate(rev_start, Terminator::Return(result));
    clear(&mut p.func, rev_start.index() + 1..n_blocks);
    let primal_fn = FuncId(module.functions.len() as u32);
    module.functions.push(p.finish());

    // The backward-propagation function.
    let (name, whole_params, derivative_kind) = (whole.name.clone(), whole.params.clone(), whole.derivative);
    let mut q = FunctionBuilder { func: whole };
    q.func.name = format!("s_bwd_prop_{}", src_name);
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
    let mut w = FunctionBuilder::new(name, void, span);
    let params: Vec<ValueId> = {
        let entry = w.new_block();
        whole_params.iter().map(|p| w.add_block_param(entry, p.ty, span)).collect()
    };
    w.func.params = whole_params;
    w.func.derivative = derivative_kind;
    let entry = Function::ENTRY;
    let ctx = w.inst(entry, Op::Var, ctx_ptr, span);
    let args: Vec<ValueId> = params.iter().copied().chain([ctx]).collect();
    w.inst(entry, Op::Call(primal_fn, args), src_ret, span);
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
    splits: HashMap<*const Node, Flag>,
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
    pre_call: HashMap<(ValueId, usize), PreCall>,
    /// The first block of the backward part.
    rev_start: Option<BlockId>,
    /// Values that depend on a differentiable input (activity analysis):
    /// only these get adjoints.
    active: Vec<bool>,
    /// Calls whose callee's primal-context function ran in the primal
    /// part: the callee's halves and where its context is saved (`None`:
    /// the callee saves nothing, so neither does the caller).
    call_ctx: HashMap<ValueId, (Extracted, Option<Saved>)>,
    /// Only normalize the control flow ([`normalize`]): no saves, no
    /// backward part.
    normalize_only: bool,
    /// The `DifferentialPtrPair` parameter of each `IDifferentiablePtrType`
    /// parameter of `f`.
    ptr_pairs: HashMap<ValueId, ValueId>,
    /// Per `inout` parameter of `f`: the value it held on entry (a value
    /// of the prologue).
    initial: HashMap<ValueId, ValueId>,
    /// `f`'s region tree (the maps above that are keyed by node point
    /// into it).
    tree: Vec<Node>,
    /// The parameters whose derivative the backward part writes at its
    /// end: (pair pointer, where the derivative is).
    write_back: Vec<(ValueId, WriteBack)>,
    /// The linearization of `f`'s arithmetic ([`linearize`]).
    lin: std::rc::Rc<Linearized>,
}

/// What an `inout` argument holds before a call.
#[derive(Clone, Copy)]
enum PreCall {
    /// Saved when the call ran.
    Saved(Saved),
    /// `f`'s value stored to the argument's variable right before the
    /// call (read in the backward part as any other primal value).
    Value(ValueId),
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
    /// The counter before (`None`: zero, in no other loop) and after the
    /// loop.
    before: Option<Saved>,
    after: Option<Saved>,
    /// Whether each iteration ran its continuing part.
    continuing_ran: Option<Flag>,
    /// Whether the loop can end only at its exit test with a `return` or
    /// `break` of its body run before a point (see [`Flag::NotLast`]):
    /// the body's top level, and the first of its nodes after which
    /// nothing exits.
    /// (That node, which the split before it may be in a part of the
    /// body: the rest after an earlier exit.)
    body: Option<*const Node>,
    /// In the backward part: whether the iteration being reversed is not
    /// the last one.
    rev_not_last: Option<ValueId>,
    /// The enclosing loop.
    parent: Option<usize>,
    /// In the backward part: the number of the iteration being reversed,
    /// and the blocks of the reversal.
    rev_index: Option<ValueId>,
    rev_blocks: Vec<BlockId>,
    /// The counter after a run of the loop, counted from where the run
    /// started, when that is the same on every run: a constant trip count
    /// `n` ([`crate::unroll::exact_trip_count`]) plus one (the test that
    /// failed), or one when every iteration that enters the body leaves
    /// the loop ([`always_leaves`]).
    end: Option<u32>,
}

/// A condition of the primal part that the backward part reads: saved,
/// or known from the iteration number.
#[derive(Clone, Copy)]
enum Flag {
    Saved(Saved),
    /// True in every iteration of the loop but its last: an iteration
    /// other than the last has run no `return` or `break` (it would have
    /// been the last), and the last one ran one before this point
    /// (nothing after it exits), nor any `continue` before it.
    NotLast(usize),
    /// `cond == go_when`, for `cond` of `f`: the node before the split is
    /// `if (cond)` with one branch that always exits and one that never
    /// does ([`exit_test`]); no exit ran before it (the region is split
    /// after the first node with one), so whether one ran after it is the
    /// branch taken — which the backward part recomputes from `cond`
    /// rather than saving the flag.
    Cond(ValueId, bool),
    /// True: nothing before this point can have set it false.
    Always,
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
            param_vars: HashMap::default(),
            adj: HashMap::default(),
            adj_mem: HashMap::default(),
            depth: 0,
            span: src.span,
            ret_var: None,
            returned: None,
            ret_adj: None,
            splits: HashMap::default(),
            loops: Vec::new(),
            loop_of_node: HashMap::default(),
            loop_stack: Vec::new(),
            exits: Vec::new(),
            rev_index: HashMap::default(),
            saves: Vec::new(),
            pre_call: HashMap::default(),
            rev_start: None,
            active,
            call_ctx: HashMap::default(),
            normalize_only,
            ptr_pairs: HashMap::default(),
            initial: HashMap::default(),
            tree: Vec::new(),
            write_back: Vec::new(),
            lin: std::rc::Rc::new(Linearized::default()),
        };
        Rev { module, requests, src, st }
    }

    fn error(&self, message: impl Into<String>) -> CodegenError {
        CodegenError { file: None, range: self.st.span.or(self.src.span), message: message.into() }
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
}

mod activity;
mod adjoint;
mod primal;
mod transpose;

use activity::activity;

/// Whether an exit of the enclosing region is inside `node`: a
/// `return`, or a `break`/`continue` of the innermost loop (not of a
/// loop or `switch` inside `node`).
/// When `node` is `if (cond)` with one branch that always exits the
/// region (every path through it runs a `break`, `continue` or `return`
/// of the region) and one with no exit: `cond` and the value it has when
/// no exit ran ([`Flag::Cond`]).
fn exit_test(node: &Node) -> Option<(ValueId, bool)> {
    let Node::If { cond, then, els } = node else { return None };
    fn always_exits(nodes: &[Node]) -> bool {
        nodes.iter().any(|n| match n {
            Node::Break | Node::Continue | Node::Return(_) => true,
            Node::If { then, els, .. } => always_exits(then) && always_exits(els),
            _ => false,
        })
    }
    let never_exits = |nodes: &[Node]| !nodes.iter().any(has_exit);
    if always_exits(then) && never_exits(els) {
        Some((*cond, false))
    } else if always_exits(els) && never_exits(then) {
        Some((*cond, true))
    } else {
        None
    }
}

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

/// Whether `node` (of a loop's body) holds a `return`, or a `break` of
/// that loop: an iteration may stop before its continuing part.
fn breaks_or_returns(node: &Node) -> bool {
    fn walk(node: &Node, nested: bool) -> bool {
        match node {
            Node::Return(_) => true,
            Node::Break => !nested,
            Node::If { then, els, .. } => then.iter().chain(els).any(|n| walk(n, nested)),
            Node::Switch { cases, default, .. } => {
                cases.iter().flat_map(|(_, b)| b).chain(default).any(|n| walk(n, true))
            }
            Node::Loop { body, continuing, .. } => body.iter().chain(continuing).any(|n| walk(n, true)),
            _ => false,
        }
    }
    walk(node, false)
}

/// Whether every path through `nodes` (of a loop's body) runs a `return`
/// or a `break` of that loop (and no `continue` before it).
fn always_leaves(nodes: &[Node]) -> bool {
    for n in nodes {
        let leaves = match n {
            Node::Break | Node::Return(_) => true,
            Node::If { then, els, .. } => always_leaves(then) && always_leaves(els),
            _ => false,
        };
        if leaves {
            return true;
        }
        if has_continue(std::slice::from_ref(n)) {
            return false;
        }
    }
    false
}

/// Whether `nodes` hold a `continue` of the loop they are in (not of a
/// loop inside).
fn has_continue(nodes: &[Node]) -> bool {
    nodes.iter().any(|node| match node {
        Node::Continue => true,
        Node::If { then, els, .. } => has_continue(then) || has_continue(els),
        Node::Switch { cases, default, .. } => cases.iter().any(|(_, b)| has_continue(b)) || has_continue(default),
        _ => false,
    })
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
