//! The derivative of one instruction: given the primal operands (already
//! in the function being built) and their differentials (`None`: zero),
//! emit the differential of the result — the Jacobian-vector product of
//! the instruction (linearization per instruction).
//!
//! A built-in function's derivative is the rule of its row in
//! `crate::builtins` (partial derivatives written as data there, linear,
//! bilinear, or one of the named rules here: `pow`, `min_max`, `clamp`,
//! `saturate`, `length`, `distance`, `normalize`, `reflect`, `refract`,
//! `determinant`). They follow the core module's derivative helpers
//! (`math.slang`): the same formulas and the same choices at kinks and
//! ties (`max`/`min` average on a tie, `clamp` takes the bound's
//! derivative outside the range, `length`/`normalize` are zero at the
//! origin). Built-ins that are not differentiable (rounding, `sign`,
//! `step`, `smoothstep`, …) have no rule and no derivative.

use slang_analysis::ty::Scalar;
use slang_analysis::TextRange;

use crate::builtins::{Expr, Rule};
use crate::ir::{BinaryOp, BlockId, Const, FunctionBuilder, Intrinsic, Op, Type, TypeId, Types, UnaryOp, ValueId};

/// Appends instructions to one block of a function under construction.
pub struct Emit<'a> {
    pub types: &'a mut Types,
    pub b: &'a mut FunctionBuilder,
    pub block: BlockId,
    pub span: Option<TextRange>,
}

impl Emit<'_> {
    pub fn inst(&mut self, op: Op, ty: TypeId) -> ValueId {
        self.b.inst(self.block, op, ty, self.span)
    }

    pub fn ty(&self, v: ValueId) -> TypeId {
        self.b.ty(v)
    }

    /// The float `c` in the shape of `ty` (a scalar, vector or matrix).
    pub fn konst(&mut self, c: f64, ty: TypeId) -> ValueId {
        let s = self.types.scalar_of(ty).unwrap_or(Scalar::Float);
        let st = self.types.intern(Type::Scalar(s));
        let k = self.inst(Op::Const(Const::Float(c)), st);
        if st == ty {
            k
        } else {
            self.inst(Op::Splat(k), ty)
        }
    }

    /// The zero value of any value type.
    pub fn zero(&mut self, ty: TypeId) -> ValueId {
        match self.types.get(ty).clone() {
            Type::Scalar(s) => {
                let c = match s {
                    Scalar::Bool => Const::Bool(false),
                    s if s.is_float() => Const::Float(0.0),
                    _ => Const::Int(0),
                };
                self.inst(Op::Const(c), ty)
            }
            Type::Vector(s, _) | Type::Matrix { scalar: s, .. } => {
                let st = self.types.intern(Type::Scalar(s));
                let z = self.zero(st);
                self.inst(Op::Splat(z), ty)
            }
            Type::Array(e, n) => {
                let parts = (0..n).map(|_| self.zero(e)).collect();
                self.inst(Op::Construct(parts), ty)
            }
            Type::Struct { fields, .. } => {
                let parts = fields.iter().map(|f| self.zero(f.1)).collect();
                self.inst(Op::Construct(parts), ty)
            }
            Type::DifferentialPair { primal, diff } => {
                let parts = vec![self.zero(primal), self.zero(diff)];
                self.inst(Op::Construct(parts), ty)
            }
            Type::Void | Type::RuntimeArray(_) | Type::Ptr(..) | Type::Texture(..) | Type::Sampler => {
                unreachable!("no zero of a non-value type")
            }
        }
    }

    /// `v` broadcast to the shape of `ty` (a scalar to a vector).
    pub fn shape(&mut self, v: ValueId, ty: TypeId) -> ValueId {
        if self.ty(v) == ty {
            v
        } else {
            self.inst(Op::Splat(v), ty)
        }
    }

    /// `a op b`, broadcasting a scalar operand to the other's shape.
    pub fn bin(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> ValueId {
        let (ta, tb) = (self.ty(a), self.ty(b));
        let ty = if matches!(self.types.get(ta), Type::Scalar(_)) { tb } else { ta };
        let (a, b) = (self.shape(a, ty), self.shape(b, ty));
        let result = if op.is_comparison() {
            match *self.types.get(ty) {
                Type::Vector(_, n) => self.types.intern(Type::Vector(Scalar::Bool, n)),
                _ => self.types.intern(Type::Scalar(Scalar::Bool)),
            }
        } else {
            ty
        };
        self.inst(Op::Binary(op, a, b), result)
    }

    pub fn intrinsic(&mut self, i: Intrinsic, args: Vec<ValueId>, ty: TypeId) -> ValueId {
        self.inst(Op::Intrinsic(i, args), ty)
    }

    /// `cond ? a : b` with optional sides (`None` on both: zero).
    pub fn select(&mut self, cond: ValueId, a: Option<ValueId>, b: Option<ValueId>, ty: TypeId) -> Option<ValueId> {
        if a.is_none() && b.is_none() {
            return None;
        }
        let a = a.unwrap_or_else(|| self.zero(ty));
        let b = b.unwrap_or_else(|| self.zero(ty));
        Some(self.inst(Op::Select(cond, a, b), ty))
    }

    pub fn add(&mut self, a: Option<ValueId>, b: Option<ValueId>) -> Option<ValueId> {
        match (a, b) {
            (Some(a), Some(b)) => Some(self.bin(BinaryOp::Add, a, b)),
            (x, None) | (None, x) => x,
        }
    }

    pub fn sub(&mut self, a: Option<ValueId>, b: Option<ValueId>) -> Option<ValueId> {
        match (a, b) {
            (Some(a), Some(b)) => Some(self.bin(BinaryOp::Sub, a, b)),
            (a, None) => a,
            (None, b) => self.neg(b),
        }
    }

    pub fn neg(&mut self, a: Option<ValueId>) -> Option<ValueId> {
        let a = a?;
        let t = self.ty(a);
        Some(self.inst(Op::Unary(UnaryOp::Neg, a), t))
    }

    /// `k * d` (either may be a scalar when the other is a vector).
    pub fn scale(&mut self, k: ValueId, d: Option<ValueId>) -> Option<ValueId> {
        Some(self.bin(BinaryOp::Mul, k, d?))
    }

    /// `c * d` for a constant `c`.
    pub fn scale_const(&mut self, c: f64, d: Option<ValueId>) -> Option<ValueId> {
        let d = d?;
        let t = self.ty(d);
        let k = self.konst(c, t);
        Some(self.bin(BinaryOp::Mul, k, d))
    }

    /// `d / k`.
    pub fn div(&mut self, d: Option<ValueId>, k: ValueId) -> Option<ValueId> {
        Some(self.bin(BinaryOp::Div, d?, k))
    }
}

impl Emit<'_> {
    /// `a + b` for differentials of type `ty` (`T.dadd`), or, for `Mul`,
    /// the scalar `a` times every part of `b` (`T.dmul`): component-wise,
    /// through arrays, struct fields and pairs. `None` for a type that is
    /// not a differential.
    pub fn combine(&mut self, op: BinaryOp, a: ValueId, b: ValueId, ty: TypeId) -> Option<ValueId> {
        let parts: Vec<TypeId> = match self.types.get(ty).clone() {
            Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix { scalar: s, .. } => {
                let a = match op {
                    BinaryOp::Mul => {
                        let st = self.types.intern(Type::Scalar(s));
                        let a = if self.ty(a) == st { a } else { self.inst(Op::Convert(a), st) };
                        self.shape(a, ty)
                    }
                    _ => a,
                };
                return Some(self.inst(Op::Binary(op, a, b), ty));
            }
            Type::Array(e, n) => vec![e; n as usize],
            Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
            Type::DifferentialPair { primal, diff } => vec![primal, diff],
            Type::Void | Type::RuntimeArray(_) | Type::Ptr(..) | Type::Texture(..) | Type::Sampler => return None,
        };
        let mut out = Vec::new();
        for (k, pt) in parts.into_iter().enumerate() {
            let pb = self.inst(Op::Extract(b, k as u32), pt);
            let pa = if op == BinaryOp::Mul { a } else { self.inst(Op::Extract(a, k as u32), pt) };
            out.push(self.combine(op, pa, pb, pt)?);
        }
        Some(self.inst(Op::Construct(out), ty))
    }
}

/// The differential of `a op b` (`ty`: the result's type).
pub fn binary(
    e: &mut Emit,
    op: BinaryOp,
    (a, b): (ValueId, ValueId),
    (da, db): (Option<ValueId>, Option<ValueId>),
) -> Option<ValueId> {
    match op {
        BinaryOp::Add => e.add(da, db),
        BinaryOp::Sub => e.sub(da, db),
        // d(ab) = da b + a db
        BinaryOp::Mul => {
            let x = e.scale(b, da);
            let y = e.scale(a, db);
            e.add(x, y)
        }
        // d(a/b) = (da b - a db) / b²
        BinaryOp::Div => {
            if da.is_some() && db.is_none() {
                return e.div(da, b);
            }
            let x = e.scale(b, da);
            let y = e.scale(a, db);
            let n = e.sub(x, y);
            let bb = e.bin(BinaryOp::Mul, b, b);
            e.div(n, bb)
        }
        // fmod: d = da - trunc(a / b) db
        BinaryOp::Rem => {
            let q = e.bin(BinaryOp::Div, a, b);
            let t = e.ty(q);
            let q = e.intrinsic(Intrinsic::Trunc, vec![q], t);
            let y = e.scale(q, db);
            e.sub(da, y)
        }
        _ => None,
    }
}

/// A named forward rule of the table (`builtins::Rule::Custom`): the
/// intrinsic, the primal arguments, their differentials (`None`: zero),
/// the primal result and its type.
pub type RuleFn =
    fn(&mut Emit, Intrinsic, &[ValueId], &[Option<ValueId>], ValueId, TypeId) -> Result<Option<ValueId>, String>;

/// The differential of the built-in function `i` applied to `x` (with
/// differentials `dx`), whose primal result is `r` of type `ty`: the rule
/// of `i`'s row in `crate::builtins`.
pub fn intrinsic(
    e: &mut Emit,
    i: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    r: ValueId,
    ty: TypeId,
) -> Result<Option<ValueId>, String> {
    // (Not differentiable: as in the reference compiler, calls carry no
    // derivative; differentiable code needs `no_diff` around them.)
    let Some(rule) = i.row().rule.filter(|_| i.differentiable()) else { return Ok(None) };
    if dx.iter().all(Option::is_none) {
        return Ok(None);
    }
    if i.is_componentwise() {
        if let Type::Matrix { scalar, rows, cols } = *e.types.get(ty) {
            return componentwise_on_rows(e, i, x, dx, r, (scalar, rows, cols), ty);
        }
    }
    Ok(match rule {
        Rule::Partials(partials) => {
            let mut sum = None;
            for (k, p) in partials.iter().enumerate() {
                let Some(d) = dx[k] else { continue };
                let term = match p {
                    Expr::K(c) if *c == 1.0 => d,
                    p => {
                        let v = eval(e, p, x, r);
                        e.bin(BinaryOp::Mul, v, d)
                    }
                };
                sum = e.add(sum, Some(term));
            }
            sum
        }
        Rule::Linear => dx[0].map(|d| e.intrinsic(i, vec![d], ty)),
        Rule::Bilinear => {
            let p = dx[0].map(|d| e.intrinsic(i, vec![d, x[1]], ty));
            let q = dx[1].map(|d| e.intrinsic(i, vec![x[0], d], ty));
            e.add(p, q)
        }
        Rule::Custom(f) => f(e, i, x, dx, r, ty)?,
    })
}

/// The value of a partial derivative of the table (`builtins::Expr`):
/// element-wise, a scalar broadcast to the other operand's shape.
fn eval(e: &mut Emit, p: &Expr, x: &[ValueId], r: ValueId) -> ValueId {
    match *p {
        Expr::Arg(k) => x[k],
        Expr::Ret => r,
        Expr::K(c) => {
            let st = e.types.intern(Type::Scalar(e.types.scalar_of(e.ty(x[0])).unwrap_or(Scalar::Float)));
            e.konst(c, st)
        }
        Expr::Neg(a) => {
            let a = eval(e, a, x, r);
            e.neg(Some(a)).expect("a value")
        }
        Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) | Expr::Div(a, b) => {
            let op = match *p {
                Expr::Add(..) => BinaryOp::Add,
                Expr::Sub(..) => BinaryOp::Sub,
                Expr::Mul(..) => BinaryOp::Mul,
                _ => BinaryOp::Div,
            };
            let (a, b) = (eval(e, a, x, r), eval(e, b, x, r));
            e.bin(op, a, b)
        }
        Expr::Call(f, args) => {
            let args: Vec<ValueId> = args.iter().map(|a| eval(e, a, x, r)).collect();
            // (Arguments of one shape: the first that is not a scalar.)
            let ty = args.iter().map(|&a| e.ty(a)).find(|&t| !matches!(e.types.get(t), Type::Scalar(_)));
            let ty = ty.unwrap_or_else(|| e.ty(args[0]));
            let args = args.into_iter().map(|a| e.shape(a, ty)).collect();
            e.intrinsic(f, args, ty)
        }
    }
}

/// `x^y`: y x^(y-1) dx + x^y ln(x) dy, the second term zero where the
/// base is not positive (as x^y is there for y > 0).
pub fn pow(
    e: &mut Emit,
    _: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    r: ValueId,
    ty: TypeId,
) -> Result<Option<ValueId>, String> {
    let (b, p) = (x[0], x[1]);
    let t0 = e.ty(b);
    let a = match dx[0] {
        Some(_) => {
            let o = e.konst(1.0, t0);
            let pm1 = e.bin(BinaryOp::Sub, p, o);
            let q = e.intrinsic(Intrinsic::Pow, vec![b, pm1], t0);
            let k = e.bin(BinaryOp::Mul, p, q);
            e.scale(k, dx[0])
        }
        None => None,
    };
    let c = match dx[1] {
        Some(_) => {
            let (positive, safe) = safe_divisor(e, b, t0);
            let l = e.intrinsic(Intrinsic::Log, vec![safe], t0);
            let k = e.bin(BinaryOp::Mul, r, l);
            let d = e.scale(k, dx[1]);
            e.select(positive, d, None, ty)
        }
        None => None,
    };
    Ok(e.add(a, c))
}

/// The larger (`max`) or smaller (`min`) argument's derivative; the
/// average on a tie.
pub fn min_max(
    e: &mut Emit,
    i: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    _: ValueId,
    ty: TypeId,
) -> Result<Option<ValueId>, String> {
    let (a, b) = (x[0], x[1]);
    let (first, second) = if i == Intrinsic::Max { (BinaryOp::Gt, BinaryOp::Lt) } else { (BinaryOp::Lt, BinaryOp::Gt) };
    let sum = e.add(dx[0], dx[1]);
    let avg = e.scale_const(0.5, sum);
    let c2 = e.bin(second, a, b);
    let tie = e.select(c2, dx[1], avg, ty);
    let c1 = e.bin(first, a, b);
    Ok(e.select(c1, dx[0], tie, ty))
}

/// The bound's derivative outside [lo, hi], x's inside.
pub fn clamp(
    e: &mut Emit,
    _: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    _: ValueId,
    ty: TypeId,
) -> Result<Option<ValueId>, String> {
    let (xv, lo, hi) = (x[0], x[1], x[2]);
    let above = e.bin(BinaryOp::Gt, xv, hi);
    let inner = e.select(above, dx[2], dx[0], ty);
    let below = e.bin(BinaryOp::Lt, xv, lo);
    Ok(e.select(below, dx[1], inner, ty))
}

/// dx inside [0, 1], zero outside.
pub fn saturate(
    e: &mut Emit,
    _: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    _: ValueId,
    ty: TypeId,
) -> Result<Option<ValueId>, String> {
    let t0 = e.ty(x[0]);
    let z = e.konst(0.0, t0);
    let o = e.konst(1.0, t0);
    let ge = e.bin(BinaryOp::Ge, x[0], z);
    let le = e.bin(BinaryOp::Le, x[0], o);
    let inside = e.bin(BinaryOp::And, ge, le);
    Ok(e.select(inside, dx[0], None, ty))
}

/// dot(x, dx) / max(sqrt(1e-7), length(x)): the core module defines
/// `length(x)` as `sqrt(dot(x, x))` for differentiation, and `sqrt`'s
/// derivative `0.5 / sqrt(max(1e-7, s))` bounds the slope near the origin
/// (within 3.2e-4 of it the derivative is damped by |x| / 3.2e-4, as the
/// reference compiler's; zero at the origin).
pub fn length(
    e: &mut Emit,
    _: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    r: ValueId,
    ty: TypeId,
) -> Result<Option<ValueId>, String> {
    let d = dx[0].map(|d| e.intrinsic(Intrinsic::Dot, vec![x[0], d], ty));
    Ok(length_derivative(e, r, d, ty))
}

/// dot(a - b, da - db) / max(sqrt(1e-7), distance(a, b)) (`distance` is
/// `length(a - b)`: see [`length`]); zero where a = b.
pub fn distance(
    e: &mut Emit,
    _: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    r: ValueId,
    ty: TypeId,
) -> Result<Option<ValueId>, String> {
    let v = e.bin(BinaryOp::Sub, x[0], x[1]);
    let dv = e.sub(dx[0], dx[1]);
    let d = dv.map(|dv| e.intrinsic(Intrinsic::Dot, vec![v, dv], ty));
    Ok(length_derivative(e, r, d, ty))
}

/// (dx - n dot(n, dx) k) / length(x) with k = length(x) / max(sqrt(1e-7),
/// length(x)): the core module differentiates `normalize(x)` as
/// `x * (1 / length(x))` with `length`'s bounded slope ([`length`]), so
/// k is 1 except within 3.2e-4 of the origin; zero at the origin.
pub fn normalize(
    e: &mut Emit,
    _: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    r: ValueId,
    ty: TypeId,
) -> Result<Option<ValueId>, String> {
    let Some(d) = dx[0] else { return Ok(None) };
    let x0 = x[0];
    let st = e.types.intern(Type::Scalar(e.types.scalar_of(e.ty(x0)).unwrap_or(Scalar::Float)));
    let len = e.intrinsic(Intrinsic::Length, vec![x0], st);
    let nd = e.intrinsic(Intrinsic::Dot, vec![r, d], st);
    let floor = e.konst(1e-7f64.sqrt(), st);
    let bounded = e.intrinsic(Intrinsic::Max, vec![floor, len], st);
    let k = e.bin(BinaryOp::Div, len, bounded);
    let ndk = e.bin(BinaryOp::Mul, nd, k);
    let proj = e.bin(BinaryOp::Mul, r, ndk);
    let diff = e.bin(BinaryOp::Sub, d, proj);
    let (nonzero, safe) = safe_divisor(e, len, st);
    let q = e.bin(BinaryOp::Div, diff, safe);
    Ok(e.select(nonzero, Some(q), None, ty))
}

/// reflect(i, n) = i - 2 dot(n, i) n:
/// di - 2 (dot(dn, i) + dot(n, di)) n - 2 dot(n, i) dn.
pub fn reflect(
    e: &mut Emit,
    _: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    _: ValueId,
    _: TypeId,
) -> Result<Option<ValueId>, String> {
    let (iv, n) = (x[0], x[1]);
    let st = e.types.intern(Type::Scalar(e.types.scalar_of(e.ty(iv)).unwrap_or(Scalar::Float)));
    let a = dx[1].map(|dn| e.intrinsic(Intrinsic::Dot, vec![dn, iv], st));
    let b = dx[0].map(|di| e.intrinsic(Intrinsic::Dot, vec![n, di], st));
    let dni = e.add(a, b);
    let m = e.scale(n, dni);
    let m = e.scale_const(2.0, m);
    let ni = e.intrinsic(Intrinsic::Dot, vec![n, iv], st);
    let k = e.scale(ni, dx[1]);
    let k = e.scale_const(2.0, k);
    let s = e.sub(dx[0], m);
    Ok(e.sub(s, k))
}

/// refract(i, n, eta) = eta i - (eta c + sqrt(k)) n with c = dot(n, i) and
/// k = 1 - eta² (1 - c²): with dc = dot(dn, i) + dot(n, di) and
/// dk = -2 eta (1 - c²) deta + 2 eta² c dc, the differential
/// deta i + eta di - (deta c + eta dc + dk / (2 sqrt(k))) n - (eta c + sqrt(k)) dn,
/// zero where k <= 0 (total internal reflection, where the result is 0).
pub fn refract(
    e: &mut Emit,
    _: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    _: ValueId,
    ty: TypeId,
) -> Result<Option<ValueId>, String> {
    let (iv, n, eta) = (x[0], x[1], x[2]);
    let st = e.ty(eta);
    let c = e.intrinsic(Intrinsic::Dot, vec![n, iv], st);
    let a = dx[1].map(|dn| e.intrinsic(Intrinsic::Dot, vec![dn, iv], st));
    let b = dx[0].map(|di| e.intrinsic(Intrinsic::Dot, vec![n, di], st));
    let dc = e.add(a, b);
    let o = e.konst(1.0, st);
    let cc = e.bin(BinaryOp::Mul, c, c);
    let omc = e.bin(BinaryOp::Sub, o, cc);
    let ee = e.bin(BinaryOp::Mul, eta, eta);
    let q = e.bin(BinaryOp::Mul, ee, omc);
    let k = e.bin(BinaryOp::Sub, o, q);
    let (positive, safe) = safe_divisor(e, k, st);
    let s = e.intrinsic(Intrinsic::Sqrt, vec![safe], st);
    // dk = -2 eta (1 - c²) deta + 2 eta² c dc
    let k1 = e.bin(BinaryOp::Mul, eta, omc);
    let t1 = e.scale(k1, dx[2]);
    let t1 = e.scale_const(-2.0, t1);
    let k2 = e.bin(BinaryOp::Mul, ee, c);
    let t2 = e.scale(k2, dc);
    let t2 = e.scale_const(2.0, t2);
    let dk = e.add(t1, t2);
    let ds = e.div(dk, s);
    let ds = e.scale_const(0.5, ds);
    // The scalar factor of n: deta c + eta dc + ds.
    let f1 = e.scale(c, dx[2]);
    let f2 = e.scale(eta, dc);
    let f = e.add(f1, f2);
    let f = e.add(f, ds);
    let ec = e.bin(BinaryOp::Mul, eta, c);
    let m = e.bin(BinaryOp::Add, ec, s);
    let p1 = e.scale(iv, dx[2]);
    let p2 = e.scale(eta, dx[0]);
    let p3 = e.scale(n, f);
    let p4 = e.scale(m, dx[1]);
    let d = e.add(p1, p2);
    let d = e.sub(d, p3);
    let d = e.sub(d, p4);
    let Some(d) = d else { return Ok(None) };
    Ok(e.select(positive, Some(d), None, ty))
}

/// An element-wise built-in's differential on a matrix, row by row (its
/// rules compare and select, which the IR does on scalars and vectors).
fn componentwise_on_rows(
    e: &mut Emit,
    i: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    r: ValueId,
    (scalar, rows, cols): (Scalar, u8, u8),
    ty: TypeId,
) -> Result<Option<ValueId>, String> {
    let row_ty = e.types.intern(Type::Vector(scalar, cols));
    let row = |e: &mut Emit, v: ValueId, k: u32| {
        if matches!(e.types.get(e.ty(v)), Type::Matrix { .. }) {
            e.inst(Op::Extract(v, k), row_ty)
        } else {
            v
        }
    };
    let mut parts = Vec::new();
    for k in 0..rows {
        let k = u32::from(k);
        let xr: Vec<ValueId> = x.iter().map(|&v| row(e, v, k)).collect();
        let dxr: Vec<Option<ValueId>> = dx.iter().map(|d| d.map(|d| row(e, d, k))).collect();
        let rr = row(e, r, k);
        let d = intrinsic(e, i, &xr, &dxr, rr, row_ty)?;
        parts.push(d.unwrap_or_else(|| e.zero(row_ty)));
    }
    Ok(Some(e.inst(Op::Construct(parts), ty)))
}

/// `d / max(sqrt(1e-7), len)`: `sqrt`'s derivative rule (its row in
/// `builtins.rs`, `0.5 / sqrt(max(1e-7, s))`) applied to `s = len²`, with
/// `ds = 2 d`.
fn length_derivative(e: &mut Emit, len: ValueId, d: Option<ValueId>, ty: TypeId) -> Option<ValueId> {
    d?;
    let floor = e.konst(1e-7f64.sqrt(), ty);
    let divisor = e.intrinsic(Intrinsic::Max, vec![floor, len], ty);
    e.div(d, divisor)
}

/// `x > 0`, and `x` where it is, 1 elsewhere: a divisor whose quotient
/// the caller discards (by a select on the condition) where `x` is 0, so
/// that neither the quotient nor its transpose (reverse mode divides the
/// adjoint by the same divisor) is 0/0.
fn safe_divisor(e: &mut Emit, x: ValueId, ty: TypeId) -> (ValueId, ValueId) {
    let z = e.konst(0.0, ty);
    let nonzero = e.bin(BinaryOp::Gt, x, z);
    let o = e.konst(1.0, ty);
    let safe = e.select(nonzero, Some(x), Some(o), ty).expect("both sides given");
    (nonzero, safe)
}

/// Jacobi's formula, `sum(cofactor(m) * dm)`.
pub fn determinant(
    e: &mut Emit,
    _: Intrinsic,
    x: &[ValueId],
    dx: &[Option<ValueId>],
    _: ValueId,
    ty: TypeId,
) -> Result<Option<ValueId>, String> {
    let (m, Some(dm)) = (x[0], dx[0]) else { return Ok(None) };
    let Type::Matrix { scalar, rows, .. } = *e.types.get(e.ty(m)) else {
        return Err("the derivative of `determinant` needs a matrix".into());
    };
    let row_ty = e.types.intern(Type::Vector(scalar, rows));
    let row = |e: &mut Emit, v: ValueId, i: u32| e.inst(Op::Extract(v, i), row_ty);
    match rows {
        2 => {
            // det = a d - b c
            let st = ty;
            let el = |e: &mut Emit, v: ValueId, i: u32, j: u32| {
                let r = row(e, v, i);
                e.inst(Op::Extract(r, j), st)
            };
            let (a, b, c, d) = (el(e, m, 0, 0), el(e, m, 0, 1), el(e, m, 1, 0), el(e, m, 1, 1));
            let (da, db, dc, dd) = (el(e, dm, 0, 0), el(e, dm, 0, 1), el(e, dm, 1, 0), el(e, dm, 1, 1));
            let t1 = binary(e, BinaryOp::Mul, (a, d), (Some(da), Some(dd)));
            let t2 = binary(e, BinaryOp::Mul, (b, c), (Some(db), Some(dc)));
            Ok(e.sub(t1, t2))
        }
        3 => {
            // The cofactor rows are cross products of the other two rows.
            let r: Vec<ValueId> = (0..3).map(|i| row(e, m, i)).collect();
            let mut sum = None;
            for i in 0..3u32 {
                let (j, k) = ((i + 1) % 3, (i + 2) % 3);
                let cof = e.intrinsic(Intrinsic::Cross, vec![r[j as usize], r[k as usize]], row_ty);
                let dr = row(e, dm, i);
                let term = e.intrinsic(Intrinsic::Dot, vec![cof, dr], ty);
                sum = e.add(sum, Some(term));
            }
            Ok(sum)
        }
        n => {
            // Row i of the cofactor matrix: the determinant with row i
            // replaced by each unit vector (the determinant is linear in
            // each row).
            let r: Vec<ValueId> = (0..u32::from(n)).map(|i| row(e, m, i)).collect();
            let st = ty;
            let zero = e.konst(0.0, st);
            let one = e.konst(1.0, st);
            let mut sum = None;
            for i in 0..usize::from(n) {
                let mut cof = Vec::new();
                for j in 0..n {
                    let unit = (0..n).map(|k| if k == j { one } else { zero }).collect();
                    let unit = e.inst(Op::Construct(unit), row_ty);
                    let mut rows = r.clone();
                    rows[i] = unit;
                    let mj = e.inst(Op::Construct(rows), e.ty(m));
                    cof.push(e.intrinsic(Intrinsic::Determinant, vec![mj], st));
                }
                let cof = e.inst(Op::Construct(cof), row_ty);
                let dr = row(e, dm, i as u32);
                let term = e.intrinsic(Intrinsic::Dot, vec![cof, dr], ty);
                sum = e.add(sum, Some(term));
            }
            Ok(sum)
        }
    }
}
