//! The built-in functions: intrinsics mapped to IR instructions, and
//! those expanded into several (the table's [`Expanded`] rows: `sincos`,
//! `modf`, `frexp`, `isnan`, `log10`, …; and `countof`, tuple functions).

use super::*;
use crate::builtins::Expanded;

impl FnLower<'_, '_> {
    /// A float constant of `ty`'s shape (splatted for vectors).
    pub(super) fn float_like(&mut self, x: f64, ty: TypeId) -> ValueId {
        let s = self.m.module.types.scalar_of(ty).unwrap_or(Scalar::Float);
        let st = self.t(Type::Scalar(s));
        let k = self.konst(Const::Float(x), st);
        if st == ty {
            k
        } else {
            self.emit(Op::Splat(k), ty)
        }
    }

    /// The built-ins with `out` parameters, written with others (so their
    /// derivatives follow): `sincos(x, s, c)`, `modf(x, ip)` (the fraction,
    /// with `x`'s sign; `ip = trunc(x)`), `frexp(x, e)` (`x = m 2^e` with
    /// `0.5 <= |m| < 1`; 0 for 0).
    fn out_param_builtin(&mut self, which: Expanded, args: &[ExprId]) -> R<ValueId> {
        use BinaryOp::{Mul, Sub};
        let (x, outs) = match args {
            [x, s, c] => (*x, vec![*s, *c]),
            [x, o] => (*x, vec![*o]),
            _ => return self.error(format!("`{}` takes {} arguments", which.name(), which.arity())),
        };
        let v = self.expr(x)?;
        let t = self.ty_of(v);
        let t = match self.m.module.types.scalar_of(t) {
            Some(s) if s.is_float() => t,
            _ => self.with_scalar(t, Scalar::Float),
        };
        let v = self.coerce(v, t)?;
        let store = |this: &mut Self, target: ExprId, value: ValueId| -> R<()> {
            let tt = this.expr_ty(target)?;
            let value = this.coerce(value, tt)?;
            this.assign_to(target, value)
        };
        Ok(match which {
            Expanded::Sincos => {
                let sin = self.emit(Op::Intrinsic(Intrinsic::Sin, vec![v]), t);
                let cos = self.emit(Op::Intrinsic(Intrinsic::Cos, vec![v]), t);
                store(self, outs[0], sin)?;
                store(self, outs[1], cos)?;
                // (`void`: nothing reads the call's value.)
                cos
            }
            Expanded::Modf => {
                let ip = self.emit(Op::Intrinsic(Intrinsic::Trunc, vec![v]), t);
                store(self, outs[0], ip)?;
                self.emit(Op::Binary(Sub, v, ip), t)
            }
            _ => {
                // e = floor(log2|x|) + 1, m = x 2^-e; x = 0 gives 0 and 0.
                let abs = self.emit(Op::Intrinsic(Intrinsic::Abs, vec![v]), t);
                let l = self.emit(Op::Intrinsic(Intrinsic::Log2, vec![abs]), t);
                let f = self.emit(Op::Intrinsic(Intrinsic::Floor, vec![l]), t);
                let one = self.float_like(1.0, t);
                let e = self.emit(Op::Binary(BinaryOp::Add, f, one), t);
                let zero = self.float_like(0.0, t);
                let bt = self.with_scalar(t, Scalar::Bool);
                let is_zero = self.emit(Op::Binary(BinaryOp::Eq, v, zero), bt);
                let e = self.emit(Op::Select(is_zero, zero, e), t);
                let ne = self.emit(Op::Unary(UnaryOp::Neg, e), t);
                let p = self.emit(Op::Intrinsic(Intrinsic::Exp2, vec![ne]), t);
                let m = self.emit(Op::Binary(Mul, v, p), t);
                store(self, outs[0], e)?;
                m
            }
        })
    }

    /// `isnan`, `isinf`, `isfinite` (element-wise; written with
    /// comparisons, as WGSL has no such functions).
    fn float_tests(&mut self, e: ExprId, which: Expanded, args: &[ExprId]) -> R<ValueId> {
        let [x] = args else { return self.error(format!("`{}` takes one argument", which.name())) };
        let result = self.expr_ty(e)?;
        let v = self.expr(*x)?;
        let vt = self.ty_of(v);
        let ft = match self.m.module.types.scalar_of(vt) {
            Some(s) if s.is_float() => vt,
            _ => self.with_scalar(vt, Scalar::Float),
        };
        let v = self.coerce(v, ft)?;
        let bt = self.with_scalar(ft, Scalar::Bool);
        // On the bits (a comparison `x != x` may be folded away by drivers
        // that assume no NaN): exponent all ones, and a zero (infinity) or
        // non-zero (NaN) fraction.
        let ut = self.with_scalar(ft, Scalar::UInt32);
        let bits = self.emit(Op::Intrinsic(Intrinsic::AsUint, vec![v]), ut);
        let uconst = |this: &mut Self, k: i64| {
            let st = this.t(Type::Scalar(Scalar::UInt32));
            let c = this.konst(Const::Int(k), st);
            if st == ut {
                c
            } else {
                this.emit(Op::Splat(c), ut)
            }
        };
        let (mask, exp) = (uconst(self, 0x7fff_ffff), uconst(self, 0x7f80_0000));
        let r = match which {
            Expanded::IsNan | Expanded::IsInf => {
                let m = self.emit(Op::Binary(BinaryOp::BitAnd, bits, mask), ut);
                let op = if which == Expanded::IsNan { BinaryOp::Gt } else { BinaryOp::Eq };
                self.emit(Op::Binary(op, m, exp), bt)
            }
            _ => {
                let m = self.emit(Op::Binary(BinaryOp::BitAnd, bits, exp), ut);
                self.emit(Op::Binary(BinaryOp::Ne, m, exp), bt)
            }
        };
        self.coerce(r, result)
    }

    /// The table's [`Expanded`] built-ins: written with the ones the
    /// backends have, so that their derivatives follow from the parts'
    /// (`None`: not on these arguments, an integer `fma`, say).
    fn expanded(&mut self, e: ExprId, which: Expanded, args: &[ExprId]) -> R<Option<ValueId>> {
        match which {
            Expanded::Sincos | Expanded::Modf | Expanded::Frexp => {
                return self.out_param_builtin(which, args).map(Some)
            }
            Expanded::IsNan | Expanded::IsInf | Expanded::IsFinite => {
                return self.float_tests(e, which, args).map(Some)
            }
            Expanded::Fmod => {
                // `fmod` truncates, like `%` on floats.
                let result = self.expr_ty(e)?;
                let a = self.expr_expecting(args[0], result)?;
                let b = self.expr_expecting(args[1], result)?;
                return Ok(Some(self.emit(Op::Binary(BinaryOp::Rem, a, b), result)));
            }
            Expanded::Dst | Expanded::Lit => return self.lighting(e, which, args).map(Some),
            _ => {}
        }
        let t = self.expr_ty(e)?;
        if !self.m.module.types.scalar_of(t).is_some_and(|s| s.is_float()) {
            return Ok(None);
        }
        let a = args.iter().map(|&a| self.expr_expecting(a, t)).collect::<R<Vec<_>>>()?;
        if let Type::Matrix { scalar, rows, cols } = *self.ty(t) {
            // Row by row (the expansions compare and select, which the IR
            // does on scalars and vectors).
            let row_t = self.t(Type::Vector(scalar, cols));
            let mut parts = Vec::new();
            for k in 0..u32::from(rows) {
                let row_args: Vec<ValueId> = a.iter().map(|&v| self.emit(Op::Extract(v, k), row_t)).collect();
                parts.push(self.expand_elementwise(which, &row_args, row_t));
            }
            return Ok(Some(self.emit(Op::Construct(parts), t)));
        }
        Ok(Some(self.expand_elementwise(which, &a, t)))
    }

    /// An element-wise [`Expanded`] built-in of arguments of type `t` (a
    /// scalar or vector of floats).
    fn expand_elementwise(&mut self, which: Expanded, a: &[ValueId], t: TypeId) -> ValueId {
        use BinaryOp::{Add, Div, Mul, Sub};
        use Intrinsic as I;
        let x = a[0];
        let scaled = |this: &mut Self, k: f64, v: ValueId| {
            let k = this.float_like(k, t);
            this.emit(Op::Binary(Mul, v, k), t)
        };
        let pi = std::f64::consts::PI;
        match which {
            Expanded::Log10 => {
                let l = self.emit(Op::Intrinsic(I::Log2, vec![x]), t);
                scaled(self, std::f64::consts::LOG10_2, l)
            }
            Expanded::Exp10 => {
                let y = scaled(self, std::f64::consts::LOG2_10, x);
                self.emit(Op::Intrinsic(I::Exp2, vec![y]), t)
            }
            Expanded::Rcp => {
                let one = self.float_like(1.0, t);
                self.emit(Op::Binary(Div, one, x), t)
            }
            Expanded::Degrees => scaled(self, 180.0 / pi, x),
            Expanded::Radians => scaled(self, pi / 180.0, x),
            Expanded::Fma => self.emit(Op::Intrinsic(I::Mad, a.to_vec()), t),
            // `x * 2^e`
            Expanded::Ldexp => {
                let p = self.emit(Op::Intrinsic(I::Exp2, vec![a[1]]), t);
                self.emit(Op::Binary(Mul, x, p), t)
            }
            Expanded::Fmin => self.emit(Op::Intrinsic(I::Min, a.to_vec()), t),
            Expanded::Fmax => self.emit(Op::Intrinsic(I::Max, a.to_vec()), t),
            Expanded::Asinh | Expanded::Acosh => {
                // log(x + sqrt(x² ± 1))
                let one = self.float_like(1.0, t);
                let sq = self.emit(Op::Binary(Mul, x, x), t);
                let op = if which == Expanded::Asinh { Add } else { Sub };
                let r = self.emit(Op::Binary(op, sq, one), t);
                let r = self.emit(Op::Intrinsic(I::Sqrt, vec![r]), t);
                let s = self.emit(Op::Binary(Add, x, r), t);
                self.emit(Op::Intrinsic(I::Log, vec![s]), t)
            }
            Expanded::Atanh => {
                // log((1 + x) / (1 - x)) / 2
                let one = self.float_like(1.0, t);
                let n = self.emit(Op::Binary(Add, one, x), t);
                let d = self.emit(Op::Binary(Sub, one, x), t);
                let q = self.emit(Op::Binary(Div, n, d), t);
                let l = self.emit(Op::Intrinsic(I::Log, vec![q]), t);
                scaled(self, 0.5, l)
            }
            Expanded::Sinpi | Expanded::Cospi | Expanded::Tanpi => {
                let y = scaled(self, pi, x);
                let i = match which {
                    Expanded::Sinpi => I::Sin,
                    Expanded::Cospi => I::Cos,
                    _ => I::Tan,
                };
                self.emit(Op::Intrinsic(i, vec![y]), t)
            }
            // |x| with the sign of y (its sign bit for a `float`, so that
            // -0 counts as negative).
            Expanded::Copysign => {
                let y = a[1];
                let abs = self.emit(Op::Intrinsic(I::Abs, vec![x]), t);
                let neg = self.emit(Op::Unary(UnaryOp::Neg, abs), t);
                let bt = self.with_scalar(t, Scalar::Bool);
                let negative = if self.m.module.types.scalar_of(t) == Some(Scalar::Float) {
                    let ut = self.with_scalar(t, Scalar::UInt32);
                    let bits = self.emit(Op::Intrinsic(I::AsUint, vec![y]), ut);
                    let st = self.t(Type::Scalar(Scalar::UInt32));
                    let (sign, zero) = (self.konst(Const::Int(0x8000_0000), st), self.konst(Const::Int(0), st));
                    let (sign, zero) = if st == ut {
                        (sign, zero)
                    } else {
                        (self.emit(Op::Splat(sign), ut), self.emit(Op::Splat(zero), ut))
                    };
                    let m = self.emit(Op::Binary(BinaryOp::BitAnd, bits, sign), ut);
                    self.emit(Op::Binary(BinaryOp::Ne, m, zero), bt)
                } else {
                    let zero = self.float_like(0.0, t);
                    self.emit(Op::Binary(BinaryOp::Lt, y, zero), bt)
                };
                self.emit(Op::Select(negative, neg, abs), t)
            }
            Expanded::Sincos
            | Expanded::Modf
            | Expanded::Frexp
            | Expanded::IsNan
            | Expanded::IsInf
            | Expanded::IsFinite
            | Expanded::Fmod
            | Expanded::Dst
            | Expanded::Lit => unreachable!("handled by `expanded`"),
        }
    }

    /// The legacy lighting functions, of 4-vectors: `dst(x, y)` is
    /// `(1, x.y y.y, x.z, y.w)`; `lit(l, h, m)` is `(1, diffuse, specular, 1)`
    /// with diffuse `l` (0 if `l < 0`) and specular `h^m` (0 if `l < 0` or
    /// `h < 0`).
    fn lighting(&mut self, e: ExprId, which: Expanded, args: &[ExprId]) -> R<ValueId> {
        let result = self.expr_ty(e)?;
        let s = self.m.module.types.scalar_of(result).filter(|s| s.is_float()).unwrap_or(Scalar::Float);
        let st = self.t(Type::Scalar(s));
        let one = self.float_like(1.0, st);
        let zero = self.float_like(0.0, st);
        let parts = match which {
            Expanded::Dst => {
                let v4 = self.t(Type::Vector(s, 4));
                let x = self.expr_expecting(args[0], v4)?;
                let y = self.expr_expecting(args[1], v4)?;
                let el = |this: &mut Self, v: ValueId, k: u32| this.emit(Op::Extract(v, k), st);
                let (xy, yy, xz, yw) = (el(self, x, 1), el(self, y, 1), el(self, x, 2), el(self, y, 3));
                let p = self.emit(Op::Binary(BinaryOp::Mul, xy, yy), st);
                vec![one, p, xz, yw]
            }
            _ => {
                let l = self.expr_expecting(args[0], st)?;
                let h = self.expr_expecting(args[1], st)?;
                let m = self.expr_expecting(args[2], st)?;
                let bt = self.t(Type::Scalar(Scalar::Bool));
                let l_neg = self.emit(Op::Binary(BinaryOp::Lt, l, zero), bt);
                let h_neg = self.emit(Op::Binary(BinaryOp::Lt, h, zero), bt);
                let diffuse = self.emit(Op::Select(l_neg, zero, l), st);
                let either = self.emit(Op::Binary(BinaryOp::Or, l_neg, h_neg), bt);
                let p = self.emit(Op::Intrinsic(Intrinsic::Pow, vec![h, m]), st);
                let specular = self.emit(Op::Select(either, zero, p), st);
                vec![one, diffuse, specular, one]
            }
        };
        let v4 = self.t(Type::Vector(s, 4));
        let v = self.emit(Op::Construct(parts), v4);
        self.coerce(v, result)
    }

    /// `countof(x)`: the number of elements of a tuple or array (a
    /// constant).
    pub(super) fn countof(&mut self, keyword: &str, subs: &[ExprId], ty: Option<&TypeRef>) -> R<ValueId> {
        let sem = subs.first().and_then(|s| self.inferred.expr_types.get(s.0 as usize).cloned());
        let sem = match sem {
            Some(Ty::TypeValue(t)) => (*t).clone(),
            Some(t) => t,
            // `countof(Tuple<int, float>)`: a type.
            None => match ty {
                Some(t) => self.ctx.resolve(t),
                None => Ty::Unknown,
            },
        };
        let n = match (keyword, &sem) {
            ("countof", Ty::Tuple(items) | Ty::Pack(items)) => items.len() as i64,
            ("countof", Ty::Adt { name, args, .. }) if name == "Tuple" => args.len() as i64,
            ("countof", Ty::Array(_, Some(n))) => i64::from(*n),
            _ => return self.error(format!("`{keyword}` of `{sem}` is not supported by code generation yet")),
        };
        let int = self.t(Type::Scalar(Scalar::Int32));
        Ok(self.konst(Const::Int(n), int))
    }

    /// `makeTuple(a, b, …)`, `concat(t, u)`.
    pub(super) fn tuple_builtin(&mut self, e: ExprId, name: &str, args: &[ExprId]) -> R<Option<ValueId>> {
        match name {
            "makeTuple" => {
                let t = self.expr_ty(e)?;
                let Type::Struct { fields, .. } = self.ty(t).clone() else { return Ok(None) };
                if fields.len() != args.len() {
                    return self.error("`makeTuple`: one value per element");
                }
                let values =
                    args.iter().zip(&fields).map(|(&a, f)| self.expr_expecting(a, f.1)).collect::<R<Vec<_>>>()?;
                Ok(Some(self.emit(Op::Construct(values), t)))
            }
            "concat" if args.len() == 2 => {
                let t = self.expr_ty(e)?;
                let mut parts = Vec::new();
                for &a in args {
                    let v = self.expr(a)?;
                    let Type::Struct { fields, .. } = self.ty(self.ty_of(v)).clone() else { return Ok(None) };
                    for (i, f) in fields.iter().enumerate() {
                        parts.push(self.emit(Op::Extract(v, i as u32), f.1));
                    }
                }
                Ok(Some(self.emit(Op::Construct(parts), t)))
            }
            _ => Ok(None),
        }
    }

    pub(super) fn intrinsic(&mut self, e: ExprId, name: &str, args: &[ExprId]) -> R<ValueId> {
        if let Some(v) = self.autodiff_builtin(e, name, args)? {
            return Ok(v);
        }
        if let Some(v) = self.subgroup_builtin(name, args)? {
            return Ok(v);
        }
        if let Some(v) = self.memory_builtin(name, args)? {
            return Ok(v);
        }
        if let Some(v) = self.atomic_builtin(name, args)? {
            return Ok(v);
        }
        if let Some(v) = self.tuple_builtin(e, name, args)? {
            return Ok(v);
        }
        if let Some(which) = Expanded::from_name(name).filter(|x| x.arity() == args.len()) {
            if let Some(v) = self.expanded(e, which, args)? {
                return Ok(v);
            }
        }
        if let ("f16tof32" | "f32tof16", [x]) = (name, args) {
            // Element by element; a half's bits are the low 16 of a `uint`.
            let to_float = name == "f16tof32";
            let result = self.expr_ty(e)?;
            let n = match *self.ty(result) {
                Type::Vector(_, n) => n,
                Type::Scalar(_) => 1,
                _ => return self.error(format!("`{name}` takes a scalar or vector")),
            };
            let (from, to) = if to_float { (Scalar::UInt32, Scalar::Float) } else { (Scalar::Float, Scalar::UInt32) };
            let (from_t, to_t) = (self.t(Type::Scalar(from)), self.t(Type::Scalar(to)));
            let arg_ty = if n == 1 { from_t } else { self.t(Type::Vector(from, n)) };
            let v = self.expr_expecting(*x, arg_ty)?;
            let float2 = self.t(Type::Vector(Scalar::Float, 2));
            let mut parts = Vec::new();
            for k in 0..n {
                let elem = if n == 1 { v } else { self.emit(Op::Extract(v, k as u32), from_t) };
                parts.push(if to_float {
                    let pair = self.emit(Op::Intrinsic(Intrinsic::Unpack2x16Float, vec![elem]), float2);
                    self.emit(Op::Extract(pair, 0), to_t)
                } else {
                    let zero = self.konst(Const::Float(0.0), from_t);
                    let pair = self.emit(Op::Construct(vec![elem, zero]), float2);
                    self.emit(Op::Intrinsic(Intrinsic::Pack2x16Float, vec![pair]), to_t)
                });
            }
            let v = match parts.as_slice() {
                [one] => *one,
                _ => {
                    let t = self.t(Type::Vector(to, n));
                    self.emit(Op::Construct(parts), t)
                }
            };
            return self.coerce(v, result);
        }
        if matches!(name, "__realCast" | "__intCast" | "__slang_noop_cast") && args.len() == 1 {
            let result = self.expr_ty(e)?;
            return self.expr_expecting(args[0], result);
        }
        if let ("unused", [x]) = (name, args) {
            // Marks `x` as left alone on purpose (an `out` parameter, say):
            // nothing to compute. (Its address stands for the `void` value
            // nobody reads.)
            return match self.place(*x)? {
                Some(p) => Ok(p),
                None => self.expr(*x),
            };
        }
        if name == "select" && args.len() == 3 {
            // `select(c, a, b)`: element-wise `c ? a : b`, both evaluated.
            let result = self.expr_ty(e)?;
            let c = self.expr(args[0])?;
            let ct = self.ty_of(c);
            let bt = self.with_scalar(ct, Scalar::Bool);
            let c = self.coerce(c, bt)?;
            let a = self.expr_expecting(args[1], result)?;
            let b = self.expr_expecting(args[2], result)?;
            return Ok(self.emit(Op::Select(c, a, b), result));
        }
        if let Some(v) = self.coopvec_builtin(e, name, args)? {
            return Ok(v);
        }
        let Some(i) = Intrinsic::from_name(name) else {
            return self.error(format!("the built-in function `{name}` is not supported by code generation yet"));
        };
        if args.len() != i.arity() {
            return self.error(format!("`{name}` takes {} arguments", i.arity()));
        }
        let result = self.expr_ty(e)?;
        let mut values = args.iter().map(|&a| self.expr(a)).collect::<R<Vec<_>>>()?;
        let float = |s: Scalar| if s.is_float() { s } else { Scalar::Float };
        // The type every argument converts to.
        let operand = match i {
            Intrinsic::Dot | Intrinsic::Distance => {
                let (a, b) = (self.ty_of(values[0]), self.ty_of(values[1]));
                Some(self.common_type(a, b)?)
            }
            Intrinsic::Length | Intrinsic::Normalize | Intrinsic::Transpose | Intrinsic::Determinant => {
                let a = self.ty_of(values[0]);
                let s = self.m.module.types.scalar_of(a).map(float).unwrap_or(Scalar::Float);
                Some(self.with_scalar(a, s))
            }
            Intrinsic::Any | Intrinsic::All => {
                let a = self.ty_of(values[0]);
                Some(self.with_scalar(a, Scalar::Bool))
            }
            // Bit casts keep their operand's type.
            Intrinsic::Sign | Intrinsic::AsFloat | Intrinsic::AsInt | Intrinsic::AsUint => {
                let a = self.ty_of(values[0]);
                Some(a)
            }
            // Bit counts and scans: computed in the operand's integer type
            // (naga's result type), then converted to the result's.
            Intrinsic::CountBits | Intrinsic::FirstBitHigh | Intrinsic::FirstBitLow | Intrinsic::ReverseBits => {
                let a = self.ty_of(values[0]);
                let v = self.emit(Op::Intrinsic(i, vec![values[0]]), a);
                return self.coerce(v, result);
            }
            Intrinsic::Mul => None,
            // `refract(i, n, eta)`: a scalar `eta`.
            Intrinsic::Refract => {
                let s = self.m.module.types.scalar_of(result).unwrap_or(Scalar::Float);
                let st = self.t(Type::Scalar(s));
                values[2] = self.coerce(values[2], st)?;
                values[0] = self.coerce(values[0], result)?;
                values[1] = self.coerce(values[1], result)?;
                None
            }
            _ => Some(result),
        };
        match operand {
            Some(t) => {
                for v in &mut values {
                    *v = self.coerce(*v, t)?;
                }
            }
            None => {
                // `mul`: the arguments keep their shapes, in the result's
                // scalar type.
                let s = self.m.module.types.scalar_of(result).unwrap_or(Scalar::Float);
                for v in &mut values {
                    let vt = self.ty_of(*v);
                    let t = self.with_scalar(vt, s);
                    *v = self.coerce(*v, t)?;
                }
            }
        }
        if i == Intrinsic::Mul {
            // A scalar operand: the product of each component with it
            // (slangc's `__intrinsic_op(Mul)`), arithmetic whose
            // derivatives are the product rule's in both modes.
            let scalar = |this: &Self, v: ValueId| matches!(this.ty(this.ty_of(v)), Type::Scalar(_));
            if scalar(self, values[0]) || scalar(self, values[1]) {
                for v in &mut values {
                    if self.ty_of(*v) != result {
                        *v = self.emit(Op::Splat(*v), result);
                    }
                }
                return Ok(self.emit(Op::Binary(BinaryOp::Mul, values[0], values[1]), result));
            }
        }
        if i == Intrinsic::Mad && self.m.module.types.scalar_of(result).is_some_and(|s| !s.is_float()) {
            // Integer `mad` (naga's `fma` is for floats).
            let product = self.emit(Op::Binary(BinaryOp::Mul, values[0], values[1]), result);
            return Ok(self.emit(Op::Binary(BinaryOp::Add, product, values[2]), result));
        }
        if i == Intrinsic::Sign {
            // `sign` gives an `int` per component; compute in the operand's
            // type and convert.
            let t = self.ty_of(values[0]);
            let v = self.emit(Op::Intrinsic(i, values), t);
            return self.coerce(v, result);
        }
        Ok(self.emit(Op::Intrinsic(i, values), result))
    }
}
