//! Automatic differentiation over the IR: forward mode ([`fwd`]) and
//! reverse mode ([`rev`], with [`linearize`] and [`checkpoint`]).
//!
//! * `fwd_diff(f)` in user code, and calls of differentiable functions
//!   inside a function being differentiated, *request* the forward
//!   derivative of a function ([`forward_derivative`]): the request
//!   declares a function with the transformed signature (every
//!   differentiable, non-`no_diff` parameter and result becomes a
//!   `DifferentialPair`; directions are unchanged) and queues it.
//!   Functions with a user-written derivative (`[ForwardDerivative]`)
//!   resolve to it directly; `[PrimalSubstitute]` functions to the
//!   derivative of the substitute.
//! * [`fwd::run`] fills in the queued functions until none remain, so the
//!   derivative of a derivative (`fwd_diff(fwd_diff(f))`) works: the inner
//!   request is always queued, and so transcribed, first.
//! * The derivative of each instruction — its Jacobian-vector product —
//!   is in [`rules`], apart from the walk over a function in [`fwd`], so
//!   that the reverse mode can linearize with the same rules and then
//!   transpose.
//! * [`pairs::run`] finally turns `DifferentialPair<T>` into plain
//!   structs `{ p: T, d: T.Differential }` and drops `detach` markers, so
//!   the backend never sees either.
//!
//! Differentials are optional values during transcription: `None` is a
//! derivative known to be zero, which keeps generated code free of
//! multiplications by zero; zeros are materialized only where a value is
//! needed (pair construction, branch arguments, stores).

pub mod checkpoint;
pub mod fwd;
pub mod linearize;
pub mod pairs;
pub mod rev;
pub mod rules;

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;

use crate::ir::{AddressSpace, Derivative, FuncId, FunctionBuilder, Module, Param, ParamDir, Type, TypeId, Types};

/// Forward derivatives asked for, and those still to transcribe.
#[derive(Debug, Default)]
pub struct Requests {
    /// Primal function → its generated derivative.
    generated: HashMap<FuncId, FuncId>,
    /// `(primal, derivative)` pairs whose body is still to transcribe, in
    /// the order they were asked for.
    queue: VecDeque<(FuncId, FuncId)>,
    /// Primal function → its generated backward derivative.
    pub(crate) backward: HashMap<FuncId, FuncId>,
    /// Backward derivatives still to transcribe ([`rev::run`]).
    pub(crate) backward_queue: VecDeque<(FuncId, FuncId)>,
    /// What each transcribed backward derivative saves from its primal
    /// part for its backward part: bytes per thread and values.
    pub context: HashMap<FuncId, (u32, u32)>,
    /// The primal-context and backward-propagation halves of each
    /// transcribed backward derivative.
    pub(crate) extracted: HashMap<FuncId, rev::Extracted>,
    /// Primal functions whose backward derivative is being transcribed
    /// (on demand, for a caller): their calls are not nested again.
    pub(crate) in_progress: Vec<FuncId>,
    /// Leave backward derivatives in their transcribed, single-function
    /// form (no [`rev::extract`]; callers call them whole rather than
    /// nesting contexts): a test hook, `SLANG_ANALYZER_NO_EXTRACT`.
    pub no_extract: bool,
}

impl Requests {
    /// The next derivative to transcribe.
    pub fn pop(&mut self) -> Option<(FuncId, FuncId)> {
        self.queue.pop_front()
    }

    /// Put back a forward derivative whose primal is not transcribed yet.
    pub fn defer(&mut self, request: (FuncId, FuncId)) {
        self.queue.push_back(request);
    }

    /// The derivatives declared but not transcribed yet.
    pub fn pending(&self) -> Vec<FuncId> {
        self.queue.iter().chain(&self.backward_queue).map(|&(_, d)| d).collect()
    }
}

/// The forward derivative of `f`: its `[ForwardDerivative]` function, or a
/// generated one (declared now, its body transcribed by [`fwd::run`]).
/// Errors name what is not differentiable.
pub fn forward_derivative(module: &mut Module, requests: &mut Requests, f: FuncId) -> Result<FuncId, String> {
    match module.function(f).derivative {
        Derivative::None => Err(format!("`{}` is not differentiable", module.function(f).name)),
        Derivative::Custom(g) => Ok(g),
        Derivative::Substitute(s) if s != f => forward_derivative(module, requests, s),
        Derivative::Transcribe | Derivative::Zero | Derivative::Substitute(_) => {
            if let Some(&d) = requests.generated.get(&f) {
                return Ok(d);
            }
            let primal = module.function(f);
            let (name, span, ret_no_diff) = (format!("s_fwd_{}", primal.name), primal.span, primal.ret_no_diff);
            let (primal_params, primal_ret) = (primal.params.clone(), primal.ret);
            let (params, ret) = forward_signature(&mut module.types, &primal_params, primal_ret, ret_no_diff);
            let mut b = FunctionBuilder::new(name, ret, span);
            b.func.params = params;
            // A derivative is differentiable again (higher orders).
            b.func.derivative = Derivative::Transcribe;
            b.func.ret_no_diff = ret_no_diff;
            let d = FuncId(module.functions.len() as u32);
            module.functions.push(b.finish());
            requests.generated.insert(f, d);
            requests.queue.push_back((f, d));
            Ok(d)
        }
    }
}

/// The parameters and result type of a forward derivative: differentiable
/// `T` (not `no_diff`) becomes `DifferentialPair<T>`, behind a pointer for
/// `out`/`inout`.
fn forward_signature(types: &mut Types, params: &[Param], ret: TypeId, ret_no_diff: bool) -> (Vec<Param>, TypeId) {
    let params = params
        .iter()
        .map(|p| {
            let (value, space) = match p.dir {
                ParamDir::In => (p.ty, None),
                ParamDir::Out | ParamDir::InOut => {
                    let (t, space) = types.pointee(p.ty).expect("out parameters are pointers");
                    (t, Some(space))
                }
            };
            let pair = if p.no_diff {
                None
            } else if p.dir == ParamDir::In && types.pair(value).is_none() {
                // `IDifferentiablePtrType`: with its derivative location.
                types.ptr_pair(value)
            } else {
                types.pair(value)
            };
            let ty = match (pair, space) {
                (None, _) => p.ty,
                (Some(pair), None) => pair,
                (Some(pair), Some(space)) => types.intern(Type::Ptr(pair, space)),
            };
            Param { ty, ..p.clone() }
        })
        .collect();
    let ret = if ret_no_diff { ret } else { types.pair(ret).unwrap_or(ret) };
    (params, ret)
}

/// A pointer to the derivative storage of a local of type `pointee`.
fn diff_ptr_type(types: &mut Types, pointee: TypeId) -> Option<TypeId> {
    let d = types.differential(pointee)?;
    Some(types.intern(Type::Ptr(d, AddressSpace::Function)))
}
