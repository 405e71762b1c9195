//! The IR validator: states every invariant of [`crate::ir`] and checks
//! it. Tests run it after every pass.
//!
//! * every value is defined once, in one block, and every use is
//!   dominated by its definition (in the same block: after it);
//! * branch arguments match the target's parameters in number and type;
//!   the targets of `If` and `Switch` take no parameters and have no
//!   other predecessor;
//! * operand and result types agree for every instruction and
//!   terminator;
//! * the control flow reads back as nested regions
//!   ([`crate::structure`]).

use std::fmt;

use slang_analysis::ty::Scalar;

use crate::ir::{
    AddressSpace, BinaryOp, BlockId, FuncId, Function, Module, Op, ParamDir, Terminator, TextureOp, Type, TypeId,
    ValueId, ValueKind,
};
use crate::structure::structure;

/// [`Validator::check`]'s block of a value not defined anywhere.
const UNDEFINED: u32 = u32::MAX;
/// Its position of a block parameter.
const PARAM: u32 = u32::MAX;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    pub function: String,
    pub block: Option<BlockId>,
    pub value: Option<ValueId>,
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in {}", self.function)?;
        if let Some(b) = self.block {
            write!(f, ", {b}")?;
        }
        if let Some(v) = self.value {
            write!(f, ", {v}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Check every function of the module.
pub fn validate_module(module: &Module) -> Result<(), Vec<ValidationError>> {
    validate_module_except(module, &[])
}

/// Check every function of the module but those in `pending` (requested
/// derivatives whose bodies are not transcribed yet).
pub fn validate_module_except(module: &Module, pending: &[FuncId]) -> Result<(), Vec<ValidationError>> {
    let mut errors = Vec::new();
    for (i, f) in module.functions.iter().enumerate() {
        if !pending.contains(&FuncId(i as u32)) {
            validate_function(module, f, &mut errors);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn validate_function(module: &Module, func: &Function, errors: &mut Vec<ValidationError>) {
    let mut v = Validator { module, func, errors, block: None, value: None };
    v.check();
}

struct Validator<'a> {
    module: &'a Module,
    func: &'a Function,
    errors: &'a mut Vec<ValidationError>,
    block: Option<BlockId>,
    value: Option<ValueId>,
}

impl Validator<'_> {
    fn error(&mut self, message: impl Into<String>) {
        self.errors.push(ValidationError {
            function: self.func.name.clone(),
            block: self.block,
            value: self.value,
            message: message.into(),
        });
    }

    fn ty(&self, v: ValueId) -> TypeId {
        self.func.value(v).ty
    }

    fn show(&self, t: TypeId) -> String {
        self.module.types.display(t)
    }

    fn check(&mut self) {
        let func = self.func;
        if func.blocks.is_empty() {
            self.error("the function has no blocks");
            return;
        }
        let entry = func.block(Function::ENTRY);
        if entry.params.len() != func.params.len() {
            self.error("the entry block's parameters are not the function's");
        }
        for (p, &v) in func.params.iter().zip(&entry.params) {
            if self.ty(v) != p.ty {
                self.error(format!("parameter {} has type {} in the entry block", p.name, self.show(self.ty(v))));
            }
            let is_ptr = self.module.types.pointee(p.ty).is_some();
            if is_ptr != (p.dir != ParamDir::In) {
                self.error(format!("parameter {}: out and inout parameters (only) are pointers", p.name));
            }
        }
        // Each value defined once, where its kind says: where, by value
        // (block, and position in it or `PARAM`), one array that the
        // dominance checks read too (unrolled kernels have hundreds of
        // thousands of values: each walk over them costs).
        let mut def: Vec<(u32, u32)> = vec![(UNDEFINED, 0); func.values.len()];
        let mut twice = Vec::new();
        for b in func.block_ids() {
            self.block = Some(b);
            let block = func.block(b);
            for (i, &p) in block.params.iter().enumerate() {
                if p.index() >= func.values.len() {
                    self.error(format!("parameter {p} does not exist"));
                    continue;
                }
                if def[p.index()].0 != UNDEFINED {
                    twice.push(p);
                }
                def[p.index()] = (b.0, PARAM);
                if func.value(p).kind != (ValueKind::Param { block: b, index: i as u32 }) {
                    self.error(format!("{p} is listed as parameter {i} but is not one"));
                }
            }
            for (i, &v) in block.insts.iter().enumerate() {
                if v.index() >= func.values.len() {
                    self.error(format!("instruction {v} does not exist"));
                    continue;
                }
                if def[v.index()].0 != UNDEFINED {
                    twice.push(v);
                }
                def[v.index()] = (b.0, i as u32);
                if !matches!(func.value(v).kind, ValueKind::Inst(_)) {
                    self.error(format!("{v} is listed as an instruction but is a parameter"));
                }
            }
        }
        self.block = None;
        twice.sort();
        twice.dedup();
        for v in twice {
            self.value = Some(v);
            self.error("defined more than once");
        }
        self.value = None;
        if !self.errors.is_empty() {
            return;
        }
        self.check_edges();
        self.check_uses(&def);
        self.block = None;
        if let Err(why) = structure(func) {
            self.error(why);
        }
    }

    /// Every use dominated by its definition, and the types of every
    /// instruction and terminator: one walk over the instructions.
    fn check_uses(&mut self, def: &[(u32, u32)]) {
        let func = self.func;
        let idom = dominators(func);
        // Constant-time tests (unrolled code is long chains of blocks and
        // long blocks): each block's interval in a depth-first numbering of
        // the dominator tree, each instruction's place in its block.
        let n = func.blocks.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (b, d) in idom.iter().enumerate() {
            if let Some(d) = d.filter(|d| d.index() != b) {
                children[d.index()].push(b);
            }
        }
        let (mut enter, mut leave) = (vec![0usize; n], vec![0usize; n]);
        let mut clock = 0;
        let mut stack: Vec<(usize, bool)> =
            (0..n).filter(|&b| idom[b].is_some_and(|d| d.index() == b)).map(|b| (b, false)).collect();
        while let Some((b, done)) = stack.pop() {
            clock += 1;
            if done {
                leave[b] = clock;
                continue;
            }
            enter[b] = clock;
            stack.push((b, true));
            stack.extend(children[b].iter().map(|&c| (c, false)));
        }
        let dominates = |a: usize, b: usize| a == b || (enter[a] <= enter[b] && leave[b] <= leave[a]);
        for b in func.block_ids() {
            self.block = Some(b);
            // (Unreachable: nothing runs there, any use is fine.)
            let reachable = idom[b.index()].is_some();
            let check_use = |this: &mut Self, user: Option<usize>, operand: ValueId| {
                if !reachable {
                    return;
                }
                let (d, place) = def.get(operand.index()).copied().unwrap_or((UNDEFINED, 0));
                if d == UNDEFINED {
                    this.error(format!("uses {operand}, which is not defined"));
                    return;
                }
                let ok = if d == b.0 {
                    match user {
                        // (A parameter of this block is `PARAM`, before all.)
                        Some(u) => place == PARAM || (place as usize) < u,
                        None => true, // used by the terminator
                    }
                } else {
                    dominates(d as usize, b.index())
                };
                if !ok {
                    this.error(format!("uses {operand}, whose definition does not dominate the use"));
                }
            };
            let block = func.block(b);
            for (i, &v) in block.insts.iter().enumerate() {
                if let ValueKind::Inst(op) = &func.value(v).kind {
                    self.value = Some(v);
                    op.for_each_operand(|o| check_use(self, Some(i), o));
                    self.check_op(v, op);
                }
            }
            self.value = None;
            block.term.for_each_operand(|o| check_use(self, None, o));
            self.check_terminator(&block.term);
        }
    }

    fn check_edges(&mut self) {
        let func = self.func;
        let preds = func.predecessors();
        for b in func.block_ids() {
            self.block = Some(b);
            let term = &func.block(b).term;
            let check_args = |this: &mut Self, target: BlockId, args: &[ValueId]| {
                let Some(t) = func.blocks.get(target.index()) else {
                    this.error(format!("branches to {target}, which does not exist"));
                    return;
                };
                if target == Function::ENTRY {
                    this.error("branches to the entry block");
                }
                if t.params.len() != args.len() {
                    this.error(format!("passes {} arguments to {target}, which takes {}", args.len(), t.params.len()));
                    return;
                }
                for (&p, &a) in t.params.iter().zip(args) {
                    if this.ty(p) != this.ty(a) {
                        let (pt, at) = (this.show(this.ty(p)), this.show(this.ty(a)));
                        this.error(format!("passes {a}: {at} to {target}'s parameter {p}: {pt}"));
                    }
                }
            };
            match term {
                Terminator::Branch { target, args } => check_args(self, *target, args),
                Terminator::Loop { header, brk, cont, args } => {
                    check_args(self, *header, args);
                    for x in [brk, cont] {
                        if x.index() >= func.blocks.len() {
                            self.error(format!("names {x}, which does not exist"));
                        }
                    }
                }
                Terminator::If { then, els, merge, .. } => {
                    if then == els {
                        self.error("both sides of the if go to the same block");
                    }
                    if merge.index() >= func.blocks.len() {
                        self.error(format!("merges at {merge}, which does not exist"));
                    }
                    for t in [then, els] {
                        self.check_structured_target(*t, &preds);
                    }
                }
                Terminator::Switch { cases, default, brk, .. } => {
                    if brk.index() >= func.blocks.len() {
                        self.error(format!("breaks to {brk}, which does not exist"));
                    }
                    let mut targets: Vec<BlockId> = cases.iter().map(|c| c.1).collect();
                    targets.push(*default);
                    targets.sort();
                    targets.dedup();
                    for t in targets {
                        if t.index() >= func.blocks.len() || !func.block(t).params.is_empty() {
                            self.error(format!("switch target {t} must exist and take no parameters"));
                        } else if preds[t.index()].iter().any(|&p| p != b) {
                            self.error(format!("switch target {t} has another predecessor"));
                        }
                    }
                }
                Terminator::Return(_) | Terminator::Unreachable => {}
            }
        }
        self.block = None;
    }

    /// A target of `If`: no parameters, this block its only predecessor.
    fn check_structured_target(&mut self, t: BlockId, preds: &[Vec<BlockId>]) {
        let Some(block) = self.func.blocks.get(t.index()) else {
            self.error(format!("branches to {t}, which does not exist"));
            return;
        };
        if !block.params.is_empty() {
            self.error(format!("if target {t} takes parameters"));
        }
        if preds[t.index()].len() != 1 {
            self.error(format!("if target {t} has {} predecessors", preds[t.index()].len()));
        }
    }

    fn check_terminator(&mut self, term: &Terminator) {
        let types = &self.module.types;
        match term {
            Terminator::Return(v) => {
                let found = v.map(|v| self.ty(v));
                let ok = match found {
                    None => matches!(types.get(self.func.ret), Type::Void),
                    Some(t) => t == self.func.ret,
                };
                if !ok {
                    self.error(format!("returns a value that is not a {}", self.show(self.func.ret)));
                }
            }
            Terminator::If { cond, .. } if !matches!(types.get(self.ty(*cond)), Type::Scalar(Scalar::Bool)) => {
                self.error(format!("the condition {cond} is not a bool"));
            }
            Terminator::Switch { value, .. } if !matches!(types.get(self.ty(*value)), Type::Scalar(s) if is_integer(*s)) =>
            {
                self.error(format!("the switch value {value} is not an integer"));
            }
            _ => {}
        }
    }

    fn check_op(&mut self, v: ValueId, op: &Op) {
        let types = &self.module.types;
        let result = self.ty(v);
        let t = |x: ValueId| self.func.value(x).ty;
        let problem: Option<String> = match op {
            Op::Const(_) => {
                (!matches!(types.get(result), Type::Scalar(_))).then(|| "a constant must be a scalar".into())
            }
            Op::Unary(_, a) => (t(*a) != result).then(|| "the operand's type is not the result's".into()),
            Op::Binary(b, x, y) => {
                if matches!(b, BinaryOp::Shl | BinaryOp::Shr) {
                    (t(*x) != result).then(|| "a shift's result is its left operand's type".into())
                } else if t(*x) != t(*y) {
                    Some(format!("operands of different types {} and {}", self.show(t(*x)), self.show(t(*y))))
                } else if b.is_comparison() {
                    let bool_shaped = match (types.get(t(*x)), types.get(result)) {
                        (Type::Scalar(_), Type::Scalar(s)) => *s == Scalar::Bool,
                        (Type::Vector(_, n), Type::Vector(s, m)) => n == m && *s == Scalar::Bool,
                        _ => false,
                    };
                    (!bool_shaped).then(|| "a comparison gives bools of its operands' shape".into())
                } else {
                    (t(*x) != result).then(|| "the operands' type is not the result's".into())
                }
            }
            Op::Load(p) => match types.pointee(t(*p)) {
                Some((pt, _)) if pt == result => None,
                _ => Some(format!("loads {} from {p}, which does not point to one", self.show(result))),
            },
            Op::Store { ptr, value } => match types.pointee(t(*ptr)) {
                Some((_, AddressSpace::Uniform | AddressSpace::Storage { writable: false })) => {
                    Some(format!("stores through {ptr}, which points to read-only memory"))
                }
                Some((pt, _)) if pt == t(*value) => None,
                _ => Some(format!("stores {} through {ptr}, which does not point to one", self.show(t(*value)))),
            },
            Op::FieldAddr(p, i) => {
                let expected = types.pointee(t(*p)).and_then(|(pt, space)| {
                    let e = types.find(&types.element(pt, *i)?)?;
                    Some(Type::Ptr(e, space))
                });
                (expected.as_ref() != Some(types.get(result)))
                    .then(|| format!("field_addr {i} of {p} does not give {}", self.show(result)))
            }
            Op::ElementAddr(p, i) => {
                let expected = types.pointee(t(*p)).and_then(|(pt, space)| {
                    let e = types.find(&types.element(pt, 0)?)?;
                    Some(Type::Ptr(e, space))
                });
                if !is_integer_type(types.get(t(*i))) {
                    Some(format!("the index {i} is not an integer"))
                } else {
                    (expected.as_ref() != Some(types.get(result)))
                        .then(|| format!("element_addr of {p} does not give {}", self.show(result)))
                }
            }
            Op::ExtractDynamic(a, i) => {
                if !is_integer_type(types.get(t(*i))) {
                    Some(format!("the index {i} is not an integer"))
                } else {
                    (types.element(t(*a), 0).as_ref() != Some(types.get(result)))
                        .then(|| format!("extract from {a} does not give {}", self.show(result)))
                }
            }
            Op::Call(f, args) => match self.module.functions.get(f.index()) {
                None => Some(format!("calls {f}, which does not exist")),
                Some(callee) => {
                    if callee.params.len() != args.len() {
                        Some(format!("passes {} arguments to {}", args.len(), callee.name))
                    } else if let Some((p, _)) = callee.params.iter().zip(args).find(|(p, &a)| p.ty != t(a)) {
                        Some(format!("argument for {} of {} has the wrong type", p.name, callee.name))
                    } else {
                        (callee.ret != result).then(|| format!("{} does not return {}", callee.name, self.show(result)))
                    }
                }
            },
            Op::Select(c, a, b) => {
                let cond_ok = match types.get(t(*c)) {
                    Type::Scalar(s) => *s == Scalar::Bool,
                    Type::Vector(s, n) => {
                        *s == Scalar::Bool && matches!(types.get(result), Type::Vector(_, m) if m == n)
                    }
                    _ => false,
                };
                (!cond_ok || t(*a) != result || t(*b) != result).then(|| "select of mismatched types".into())
            }
            Op::Convert(a) => {
                let same_shape = match (types.get(t(*a)), types.get(result)) {
                    (Type::Scalar(_), Type::Scalar(_)) => true,
                    (Type::Vector(_, n), Type::Vector(_, m)) => n == m,
                    (Type::Matrix { rows: r, cols: c, .. }, Type::Matrix { rows, cols, .. }) => r == rows && c == cols,
                    _ => false,
                };
                (!same_shape).then(|| "convert changes the shape".into())
            }
            Op::Splat(a) => (!matches!(types.get(t(*a)), Type::Scalar(_))
                || types.scalar_of(t(*a)) != types.scalar_of(result))
            .then(|| "splat takes a scalar of the result's element type".into()),
            Op::Var => match types.get(result) {
                Type::Ptr(v, AddressSpace::Function) if types.get(*v) == &Type::Void => {
                    Some("a variable of type `void`".into())
                }
                Type::Ptr(_, AddressSpace::Function) => None,
                _ => Some("a variable is a function-space pointer".into()),
            },
            Op::Global(g) => match self.module.globals.get(g.index()) {
                Some(global) if types.get(result) == &Type::Ptr(global.ty, global.space) => None,
                _ => Some(format!("{g} does not exist or has another type")),
            },
            Op::Construct(args) => self.check_construct(result, args),
            Op::Extract(a, i) => (types.element(t(*a), *i).as_ref() != Some(types.get(result)))
                .then(|| format!("extract {i} of {a} does not give {}", self.show(result))),
            Op::Swizzle(a, comps) => match (types.get(t(*a)), types.get(result)) {
                (Type::Vector(s, n), r) => {
                    let shape_ok = match r {
                        Type::Vector(s2, m) => s2 == s && *m as usize == comps.len(),
                        Type::Scalar(s2) => s2 == s && comps.len() == 1,
                        _ => false,
                    };
                    (!shape_ok || comps.iter().any(|&c| c >= *n)).then(|| "bad swizzle".into())
                }
                _ => Some("swizzle of a non-vector".into()),
            },
            Op::Intrinsic(i, args) => {
                (args.len() != i.arity()).then(|| format!("{} takes {} arguments", i.name(), i.arity()))
            }
            Op::Detach(a) => (t(*a) != result).then(|| "detach changes the type".into()),
            Op::ArrayLength(p) => {
                let runtime_array = types.pointee(t(*p)).is_some_and(|(pt, space)| {
                    space.is_host_shared() && matches!(types.get(pt), Type::RuntimeArray(_))
                });
                (!runtime_array || types.get(result) != &Type::Scalar(Scalar::UInt32))
                    .then(|| format!("array_length of {p}, which is not a buffer's runtime array"))
            }
            Op::Barrier(_) => (!matches!(types.get(result), Type::Void)).then(|| "a barrier has no value".into()),
            Op::Subgroup(_, _, a) => (t(*a) != result)
                .then(|| format!("a subgroup operation on {} gives {}", types.display(t(*a)), types.display(result))),
            Op::Texture(op, args) => {
                let shape = args.first().and_then(|&a| match types.get(t(a)) {
                    Type::Texture(shape, _, _) => Some(*shape),
                    _ => None,
                });
                let scalar = |x: ValueId| types.scalar_of(t(x));
                let size = |x: ValueId| match types.get(t(x)) {
                    Type::Scalar(_) => 1,
                    Type::Vector(_, n) => *n,
                    _ => 0,
                };
                let result_size = size(v);
                // (An array's operations take a layer last.)
                let args = match shape {
                    Some(s)
                        if s.is_array() && !matches!(op, TextureOp::Size | TextureOp::Levels | TextureOp::Layers) =>
                    {
                        match args.split_last() {
                            Some((&layer, rest)) if scalar(layer) == Some(Scalar::Int32) && size(layer) == 1 => {
                                rest.to_vec()
                            }
                            _ => {
                                self.error("an operation on a texture array without an int layer".to_string());
                                return;
                            }
                        }
                    }
                    _ => args.clone(),
                };
                match (op, shape, args.as_slice()) {
                    (_, None, _) => Some("a texture operation on something that is not a texture".into()),
                    (TextureOp::SampleLevel, Some(s), &[_, sampler, c, l]) => (types.get(t(sampler)) != &Type::Sampler
                        || scalar(c) != Some(Scalar::Float)
                        || size(c) != s.coordinate_size()
                        || scalar(l) != Some(Scalar::Float)
                        || result_size != 4)
                        .then(|| "SampleLevel takes a sampler, float coordinates and a float level".into()),
                    (TextureOp::Load, Some(s), &[_, c, l]) => (!matches!(scalar(c), Some(Scalar::Int32))
                        || size(c) != s.coordinate_size()
                        || scalar(l) != Some(Scalar::Int32)
                        || result_size != 4)
                        .then(|| "Load takes int coordinates and an int level".into()),
                    (TextureOp::Size, Some(s), &[_, l]) => (scalar(l) != Some(Scalar::Int32)
                        || scalar(v) != Some(Scalar::UInt32)
                        || result_size != s.size_dims())
                    .then(|| "a size query gives uints".into()),
                    (TextureOp::Store, Some(s), &[tex, c, x]) => {
                        (!matches!(types.get(t(tex)), Type::Texture(_, _, Some(_)))
                            || !matches!(scalar(c), Some(Scalar::Int32))
                            || size(c) != s.coordinate_size()
                            || size(x) != 4
                            || types.get(result) != &Type::Void)
                            .then(|| "Store writes four components at int coordinates of a writable texture".into())
                    }
                    (TextureOp::Layers, Some(s), &[_]) => (!s.is_array()
                        || types.get(result) != &Type::Scalar(Scalar::UInt32))
                        .then(|| "a layer count is a uint, of an array".into()),
                    (TextureOp::Levels, Some(_), &[_]) => {
                        (types.get(result) != &Type::Scalar(Scalar::UInt32)).then(|| "a level count is a uint".into())
                    }
                    _ => Some("wrong operands for a texture operation".into()),
                }
            }
            Op::Atomic { ptr, value, compare, .. } => match types.pointee(t(*ptr)) {
                Some((
                    _,
                    AddressSpace::Function | AddressSpace::Uniform | AddressSpace::Storage { writable: false },
                )) => Some(format!("an atomic operation through {ptr}, which is not writable shared memory")),
                Some((pt, _))
                    if pt == t(*value)
                        && pt == result
                        && compare.is_none_or(|c| t(c) == pt)
                        && matches!(types.get(pt), Type::Scalar(_)) =>
                {
                    None
                }
                _ => Some(format!(
                    "an atomic operation on {}, through {ptr}, which does not point to one",
                    self.show(t(*value))
                )),
            },
        };
        if let Some(p) = problem {
            self.error(p);
        }
    }

    fn check_construct(&self, result: TypeId, args: &[ValueId]) -> Option<String> {
        let types = &self.module.types;
        let arg_types: Vec<&Type> = args.iter().map(|&a| types.get(self.ty(a))).collect();
        match types.get(result) {
            Type::Vector(s, n) => {
                let mut count = 0;
                for a in &arg_types {
                    match a {
                        Type::Scalar(x) if x == s => count += 1,
                        Type::Vector(x, m) if x == s => count += *m as usize,
                        _ => return Some("a vector is built from its scalars and vectors".into()),
                    }
                }
                (count != *n as usize).then(|| format!("{count} components for a vector of {n}"))
            }
            Type::Matrix { scalar, rows, cols } => {
                let row = Type::Vector(*scalar, *cols);
                (args.len() != *rows as usize || arg_types.iter().any(|a| **a != row))
                    .then(|| "a matrix is built from its rows".into())
            }
            Type::Array(e, n) => (args.len() != *n as usize || args.iter().any(|&a| self.ty(a) != *e))
                .then(|| "an array is built from its elements".into()),
            Type::Struct { fields, .. } => (fields.len() != args.len()
                || fields.iter().zip(args).any(|((_, ft), &a)| *ft != self.ty(a)))
            .then(|| "a struct is built from its fields".into()),
            Type::DifferentialPair { primal, diff } => {
                (args.iter().map(|&a| self.ty(a)).ne([*primal, *diff])).then(|| "a pair is built from its parts".into())
            }
            _ => Some("construct of a type without parts".into()),
        }
    }
}

fn is_integer_type(t: &Type) -> bool {
    matches!(t, Type::Scalar(s) if is_integer(*s))
}

fn is_integer(s: Scalar) -> bool {
    !s.is_float() && s != Scalar::Bool
}

/// The immediate dominator of each block reachable from the entry (the
/// entry is its own), by the Cooper–Harvey–Kennedy iteration.
pub fn dominators(func: &Function) -> Vec<Option<BlockId>> {
    let rpo = func.reverse_post_order();
    let mut order = vec![usize::MAX; func.blocks.len()];
    for (i, b) in rpo.iter().enumerate() {
        order[b.index()] = i;
    }
    let preds = func.predecessors();
    let mut idom: Vec<Option<BlockId>> = vec![None; func.blocks.len()];
    if rpo.is_empty() {
        return idom;
    }
    idom[Function::ENTRY.index()] = Some(Function::ENTRY);
    let intersect = |idom: &[Option<BlockId>], mut a: BlockId, mut b: BlockId| {
        while a != b {
            while order[a.index()] > order[b.index()] {
                a = idom[a.index()].unwrap();
            }
            while order[b.index()] > order[a.index()] {
                b = idom[b.index()].unwrap();
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new = None;
            for &p in &preds[b.index()] {
                if idom[p.index()].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(n) => intersect(&idom, p, n),
                });
            }
            if new.is_some() && idom[b.index()] != new {
                idom[b.index()] = new;
                changed = true;
            }
        }
    }
    idom
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Const, FunctionBuilder, Module, Type};

    /// `f(c: bool) -> float`: an if/else whose merge takes a parameter;
    /// `mutate` breaks it before validation.
    fn check(mutate: impl FnOnce(&mut Function, &mut Module)) -> Vec<String> {
        let mut m = Module::default();
        let float = m.types.intern(Type::Scalar(Scalar::Float));
        let boolean = m.types.intern(Type::Scalar(Scalar::Bool));
        let mut b = FunctionBuilder::new("f".into(), float, None);
        b.func.params.push(crate::ir::Param {
            name: "c".into(),
            dir: ParamDir::In,
            ty: boolean,
            builtin: None,
            no_diff: false,
        });
        let (entry, then, els, merge) = (b.new_block(), b.new_block(), b.new_block(), b.new_block());
        let c = b.add_block_param(entry, boolean, None);
        let result = b.add_block_param(merge, float, None);
        b.terminate(entry, Terminator::If { cond: c, then, els, merge });
        let one = b.inst(then, Op::Const(Const::Float(1.0)), float, None);
        b.terminate(then, Terminator::Branch { target: merge, args: vec![one] });
        let two = b.inst(els, Op::Const(Const::Float(2.0)), float, None);
        b.terminate(els, Terminator::Branch { target: merge, args: vec![two] });
        let sum = b.inst(merge, Op::Binary(BinaryOp::Add, result, result), float, None);
        b.terminate(merge, Terminator::Return(Some(sum)));
        let mut f = b.finish();
        mutate(&mut f, &mut m);
        m.functions.push(f);
        match validate_module(&m) {
            Ok(()) => Vec::new(),
            Err(errors) => errors.iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn well_formed_function_passes() {
        assert_eq!(check(|_, _| {}), Vec::<String>::new());
    }

    #[test]
    fn use_not_dominated_by_its_definition() {
        // The merge block returns the constant defined in `then`.
        let errors = check(|f, _| f.blocks[3].term = Terminator::Return(Some(ValueId(2))));
        assert_eq!(errors, ["in f, b3: uses %2, whose definition does not dominate the use"]);
    }

    #[test]
    fn branch_arguments_must_match_parameters() {
        let errors = check(|f, _| f.blocks[2].term = Terminator::Branch { target: BlockId(3), args: vec![] });
        assert_eq!(errors, ["in f, b2: passes 0 arguments to b3, which takes 1"]);
    }

    #[test]
    fn operand_types_must_agree() {
        let errors = check(|f, m| {
            let int = m.types.intern(Type::Scalar(Scalar::Int32));
            f.values[2].ty = int;
        });
        assert!(errors.contains(&"in f, b1: passes %2: int to b3's parameter %1: float".to_string()), "{errors:?}");
    }

    #[test]
    fn if_targets_have_one_predecessor() {
        // `els` also reached from `then`: not a structured region.
        let errors = check(|f, _| f.blocks[1].term = Terminator::Branch { target: BlockId(2), args: vec![] });
        assert!(errors.iter().any(|e| e.contains("if target b2 has 2 predecessors")), "{errors:?}");
    }
}
