//! Cooperative vectors (`CoopVec<T, N>`) without cooperative-vector
//! hardware: a value is an array of `N` elements, and every operation on
//! it (arithmetic, negation, the element-wise math functions,
//! conversions) is lowered element by element, so the IR — and automatic
//! differentiation, which sees only scalar operations — needs nothing of
//! its own. Subscripts are array indexing; `store`/`load` write and read
//! `N` consecutive elements of a buffer at a byte offset.

use super::*;

/// `CoopVec<T, N>` of the core module: its element type and length.
pub(super) fn coopvec_parts(db: &dyn Db, ty: &Ty) -> Option<(Ty, u32)> {
    match ty {
        Ty::Adt { def, name, args }
            if name == "CoopVec" && args.len() == 2 && slang_analysis::core_files(db).contains(&def.file(db)) =>
        {
            match &args[1] {
                Ty::Const(n) if *n > 0 => Some((args[0].clone(), *n as u32)),
                _ => None,
            }
        }
        _ => None,
    }
}

impl FnLower<'_, '_> {
    /// The length of an array type (a lowered `CoopVec`), if `t` is one.
    pub(super) fn array_len(&self, t: TypeId) -> Option<u32> {
        match *self.ty(t) {
            Type::Array(_, n) => Some(n),
            _ => None,
        }
    }

    /// `f` applied to each element of `operands` (arrays of `result`'s
    /// length; a scalar operand is used for every element), gathered into
    /// an array of type `result`.
    pub(super) fn elementwise(
        &mut self,
        result: TypeId,
        operands: &[ValueId],
        mut f: impl FnMut(&mut Self, &[ValueId], TypeId) -> R<ValueId>,
    ) -> R<ValueId> {
        let Type::Array(elem, n) = *self.ty(result) else {
            return self.error(format!("`{}` is not an element-wise result", self.show(result)));
        };
        let mut values = Vec::with_capacity(n as usize);
        for k in 0..n {
            let mut parts = Vec::with_capacity(operands.len());
            for &v in operands {
                let vt = self.ty_of(v);
                parts.push(match *self.ty(vt) {
                    Type::Array(e, m) if m == n => self.emit(Op::Extract(v, k), e),
                    Type::Array(..) => return self.error("cooperative vectors of different lengths"),
                    _ => v,
                });
            }
            let x = f(self, &parts, elem)?;
            values.push(self.coerce(x, elem)?);
        }
        Ok(self.emit(Op::Construct(values), result))
    }

    /// `CoopVec<T, N>(…)`: no value (zero), one scalar (every element),
    /// another cooperative vector (converted element-wise), or one value
    /// per element.
    pub(super) fn coopvec_construct(&mut self, t: TypeId, args: &[ExprId]) -> R<ValueId> {
        let Type::Array(elem, n) = *self.ty(t) else { return self.error("not a cooperative vector") };
        match args {
            [] => self.zero(t),
            [one] => {
                let v = self.expr(*one)?;
                let vt = self.ty_of(v);
                if self.array_len(vt).is_some() {
                    return self.coerce(v, t);
                }
                let x = self.coerce(v, elem)?;
                Ok(self.emit(Op::Construct(vec![x; n as usize]), t))
            }
            _ if args.len() == n as usize => {
                let parts = args.iter().map(|&a| self.expr_expecting(a, elem)).collect::<R<Vec<_>>>()?;
                Ok(self.emit(Op::Construct(parts), t))
            }
            _ => self.error(format!("{} values for a cooperative vector of {n}", args.len())),
        }
    }

    /// A method of a cooperative vector (`receiver`), or a static one
    /// (`CoopVec<T, N>.load(…)`): `None` when `receiver` is neither.
    pub(super) fn coopvec_method(
        &mut self,
        e: ExprId,
        receiver: ExprId,
        name: &str,
        args: &[ExprId],
    ) -> R<Option<ValueId>> {
        let receiver_ty = self.inferred.type_of(receiver);
        if let Ty::TypeValue(t) = &receiver_ty {
            if coopvec_parts(self.db(), t).is_none() {
                return Ok(None);
            }
            let at = self.span;
            let t = self.m.lower_ty(t, at)?;
            return match (name, args) {
                ("load" | "loadAny", [buffer, rest @ ..]) => {
                    self.coopvec_load(t, *buffer, rest.first().copied()).map(Some)
                }
                ("replicate", [x]) => self.coopvec_construct(t, &[*x]).map(Some),
                _ => self.error(format!("`CoopVec.{name}` is not supported by code generation yet")),
            };
        }
        let Some((_, n)) = coopvec_parts(self.db(), &receiver_ty) else { return Ok(None) };
        let binary = |name: &str| match name {
            "add" => Some(BinaryOp::Add),
            "sub" => Some(BinaryOp::Sub),
            "mul" => Some(BinaryOp::Mul),
            "div" => Some(BinaryOp::Div),
            "mod" => Some(BinaryOp::Rem),
            _ => None,
        };
        Ok(Some(match (name, args) {
            ("getCount", []) => {
                let int = self.t(Type::Scalar(Scalar::Int32));
                self.konst(Const::Int(n as i64), int)
            }
            ("store" | "storeAny", [buffer, rest @ ..]) => {
                let v = self.expr(receiver)?;
                self.coopvec_store(v, *buffer, rest.first().copied())?;
                let int = self.t(Type::Scalar(Scalar::Int32));
                self.konst(Const::Int(0), int)
            }
            ("fill" | "copyFrom", [x]) => {
                let t = self.expr_ty(receiver)?;
                let v = self.coopvec_construct(t, &[*x])?;
                self.assign_to(receiver, v)?;
                v
            }
            ("neg", []) => {
                let t = self.expr_ty(e)?;
                let v = self.expr(receiver)?;
                self.elementwise(t, &[v], |s, p, et| Ok(s.emit(Op::Unary(UnaryOp::Neg, p[0]), et)))?
            }
            (op, [other]) if binary(op).is_some() => {
                let a = self.expr(receiver)?;
                let b = self.expr(*other)?;
                self.arith(binary(op).expect("checked"), a, b)?
            }
            _ => return self.error(format!("`CoopVec.{name}` is not supported by code generation yet")),
        }))
    }

    /// The element pointer of buffer `buffer` at byte offset `offset` (an
    /// expression, 0 if absent) plus `k` elements, and the element type.
    fn coopvec_element_at(&mut self, buffer: ExprId, offset: Option<ExprId>) -> R<(ValueId, TypeId, ValueId)> {
        let Some(b) = self.place(buffer)? else {
            return self.error("a cooperative vector is loaded from or stored to a structured buffer");
        };
        let (pt, space) = self.m.module.types.pointee(self.ty_of(b)).expect("a place is a pointer");
        let Some(elem) = self.m.module.types.element(pt, 0) else {
            return self.error(format!("`{}` is not a buffer of elements", self.show(pt)));
        };
        let elem = self.t(elem);
        let size = crate::layout::size_of(&self.m.module.types, elem, crate::layout::Rules::Std430);
        let int = self.t(Type::Scalar(Scalar::Int32));
        let offset = match offset {
            Some(o) => self.expr_expecting(o, int)?,
            None => self.konst(Const::Int(0), int),
        };
        let size = self.konst(Const::Int(size as i64), int);
        let first = self.emit(Op::Binary(BinaryOp::Div, offset, size), int);
        let p = self.t(Type::Ptr(elem, space));
        Ok((b, p, first))
    }

    /// `v.store(buffer, byteOffset)`: the elements written one after
    /// another from the byte offset on.
    fn coopvec_store(&mut self, v: ValueId, buffer: ExprId, offset: Option<ExprId>) -> R<()> {
        let (b, p, first) = self.coopvec_element_at(buffer, offset)?;
        let (elem, _) = self.m.module.types.pointee(p).expect("a pointer");
        let Some(n) = self.array_len(self.ty_of(v)) else { return self.error("not a cooperative vector") };
        let Type::Array(ve, _) = *self.ty(self.ty_of(v)) else { unreachable!("an array") };
        let int = self.ty_of(first);
        for k in 0..n {
            let kk = self.konst(Const::Int(k as i64), int);
            let i = self.emit(Op::Binary(BinaryOp::Add, first, kk), int);
            let at = self.emit(Op::ElementAddr(b, i), p);
            let x = self.emit(Op::Extract(v, k), ve);
            let x = self.coerce(x, elem)?;
            self.store(at, x);
        }
        Ok(())
    }

    /// `CoopVec<T, N>.load(buffer, byteOffset)`: `N` elements read from
    /// the byte offset on.
    pub(super) fn coopvec_load(&mut self, t: TypeId, buffer: ExprId, offset: Option<ExprId>) -> R<ValueId> {
        let Type::Array(ve, n) = *self.ty(t) else { return self.error("not a cooperative vector") };
        let (b, p, first) = self.coopvec_element_at(buffer, offset)?;
        let int = self.ty_of(first);
        let mut parts = Vec::new();
        for k in 0..n {
            let kk = self.konst(Const::Int(k as i64), int);
            let i = self.emit(Op::Binary(BinaryOp::Add, first, kk), int);
            let at = self.emit(Op::ElementAddr(b, i), p);
            let x = self.load(at);
            parts.push(self.coerce(x, ve)?);
        }
        Ok(self.emit(Op::Construct(parts), t))
    }

    /// A built-in function returning a cooperative vector: `coopVecLoad`,
    /// or element-wise math (`exp`, `min`, `fma`, …) element by element.
    pub(super) fn coopvec_builtin(&mut self, e: ExprId, name: &str, args: &[ExprId]) -> R<Option<ValueId>> {
        let sem = self.inferred.type_of(e);
        if coopvec_parts(self.db(), &sem).is_none() {
            return Ok(None);
        }
        let result = self.expr_ty(e)?;
        if name == "coopVecLoad" && !args.is_empty() {
            return self.coopvec_load(result, args[0], args.get(1).copied()).map(Some);
        }
        let Some(i) = Intrinsic::from_name(if name == "fma" { "mad" } else { name }) else {
            return self.error(format!("`{name}` of cooperative vectors is not supported by code generation yet"));
        };
        if args.len() != i.arity() {
            return self.error(format!("`{name}` takes {} arguments", i.arity()));
        }
        let values = args.iter().map(|&a| self.expr(a)).collect::<R<Vec<_>>>()?;
        self.elementwise(result, &values, |s, p, et| {
            let p = p.iter().map(|&x| s.coerce(x, et)).collect::<R<Vec<_>>>()?;
            Ok(s.emit(Op::Intrinsic(i, p), et))
        })
        .map(Some)
    }
}
