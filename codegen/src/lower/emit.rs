//! The basics of [`FnLower`]: the types of values and expressions,
//! emitting instructions and blocks, locals' storage, zero values and
//! implicit conversions ([`FnLower::coerce`]).

use super::*;

impl FnLower<'_, '_> {
    pub(super) fn db(&self) -> &dyn Db {
        self.m.db
    }

    pub(super) fn t(&mut self, t: Type) -> TypeId {
        self.m.module.types.intern(t)
    }

    pub(super) fn ty_of(&self, v: ValueId) -> TypeId {
        self.b.func.value(v).ty
    }

    pub(super) fn ty(&self, t: TypeId) -> &Type {
        self.m.module.types.get(t)
    }

    pub(super) fn show(&self, t: TypeId) -> String {
        self.m.module.types.display(t)
    }

    pub(super) fn error<T>(&self, message: impl Into<String>) -> R<T> {
        err(self.span, message)
    }

    pub(super) fn expr_span(&self, e: ExprId) -> Option<TextRange> {
        expr_range(self.db(), self.def, e).map(|(r, _)| r)
    }

    /// The IR type inference gave expression `e`.
    pub(super) fn expr_ty(&mut self, e: ExprId) -> R<TypeId> {
        let ty = self.inferred.type_of(e);
        let at = self.expr_span(e);
        self.m.lower_ty(&ty, at)
    }

    /// A type of the analysis, lowered.
    pub(super) fn expr_ty_of(&mut self, ty: &Ty) -> R<TypeId> {
        let at = self.span;
        self.m.lower_ty(ty, at)
    }

    pub(super) fn resolve(&mut self, t: &TypeRef) -> R<TypeId> {
        let ty = self.ctx.resolve(t);
        let at = self.span;
        self.m.lower_ty(&ty, at)
    }

    pub(super) fn block(&mut self) -> BlockId {
        match self.cur {
            Some(b) => b,
            // Code after a jump inside an expression: give it a block of
            // its own that nothing branches to.
            None => {
                let b = self.b.new_block();
                self.cur = Some(b);
                b
            }
        }
    }

    pub(super) fn emit(&mut self, op: Op, ty: TypeId) -> ValueId {
        let block = self.block();
        self.b.inst(block, op, ty, self.span)
    }

    pub(super) fn terminate(&mut self, term: Terminator) {
        if let Some(b) = self.cur.take() {
            self.b.terminate(b, term);
        }
    }

    pub(super) fn branch(&mut self, target: BlockId, args: Vec<ValueId>) {
        self.terminate(Terminator::Branch { target, args });
    }

    pub(super) fn has_preds(&self, b: BlockId) -> bool {
        self.b.func.blocks.iter().any(|blk| blk.term.successors().contains(&b))
    }

    /// Continue in `b` if anything branches there.
    pub(super) fn continue_at(&mut self, b: BlockId) {
        self.cur = self.has_preds(b).then_some(b);
    }

    pub(super) fn konst(&mut self, c: Const, ty: TypeId) -> ValueId {
        self.emit(Op::Const(c), ty)
    }

    pub(super) fn void(&mut self) -> TypeId {
        self.t(Type::Void)
    }

    pub(super) fn bool_ty(&mut self) -> TypeId {
        self.t(Type::Scalar(Scalar::Bool))
    }

    pub(super) fn var(&mut self, ty: TypeId) -> ValueId {
        let p = self.t(Type::Ptr(ty, AddressSpace::Function));
        self.emit(Op::Var, p)
    }

    pub(super) fn load(&mut self, ptr: ValueId) -> ValueId {
        let (t, _) = self.m.module.types.pointee(self.ty_of(ptr)).expect("load through a pointer");
        self.emit(Op::Load(ptr), t)
    }

    pub(super) fn store(&mut self, ptr: ValueId, value: ValueId) {
        let void = self.void();
        self.emit(Op::Store { ptr, value }, void);
    }

    /// A pointer to part `index` of what `ptr` points to.
    pub(super) fn field_addr(&mut self, ptr: ValueId, index: u32) -> R<ValueId> {
        let types = &self.m.module.types;
        let Some((pt, space)) = types.pointee(self.ty_of(ptr)) else { return self.error("not addressable") };
        let Some(e) = types.element(pt, index) else { return self.error("no such part") };
        let e = self.t(e);
        let p = self.t(Type::Ptr(e, space));
        Ok(self.emit(Op::FieldAddr(ptr, index), p))
    }

    /// The value zero of a type (for missing initializers).
    pub(super) fn zero(&mut self, ty: TypeId) -> R<ValueId> {
        Ok(match self.ty(ty).clone() {
            Type::Scalar(s) => {
                let c = match s {
                    Scalar::Bool => Const::Bool(false),
                    s if s.is_float() => Const::Float(0.0),
                    _ => Const::Int(0),
                };
                self.konst(c, ty)
            }
            Type::Vector(s, _) | Type::Matrix { scalar: s, .. } => {
                let st = self.t(Type::Scalar(s));
                let z = self.zero(st)?;
                self.emit(Op::Splat(z), ty)
            }
            Type::Array(e, n) => {
                let parts = (0..n).map(|_| self.zero(e)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), ty)
            }
            Type::Struct { fields, .. } => {
                let parts = fields.iter().map(|(_, ft)| self.zero(*ft)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), ty)
            }
            Type::DifferentialPair { primal, diff } => {
                let parts = vec![self.zero(primal)?, self.zero(diff)?];
                self.emit(Op::Construct(parts), ty)
            }
            _ => return self.error(format!("no zero value of `{}`", self.show(ty))),
        })
    }

    /// `v` converted to `to` as Slang's implicit conversions do.
    pub(super) fn coerce(&mut self, v: ValueId, to: TypeId) -> R<ValueId> {
        let from = self.ty_of(v);
        if from == to {
            return Ok(v);
        }
        if let Some(value) = self.optional_of(to) {
            // A value as an `Optional` holding it.
            let v = self.coerce(v, value)?;
            let bool_ty = self.t(Type::Scalar(Scalar::Bool));
            let yes = self.konst(Const::Bool(true), bool_ty);
            return Ok(self.emit(Op::Construct(vec![v, yes]), to));
        }
        let (f, t) = (self.ty(from).clone(), self.ty(to).clone());
        match (f, t) {
            (Type::Scalar(_), Type::Scalar(s)) => {
                if let Some(Op::Const(c)) = self.b.func.op(v) {
                    return Ok(self.konst(convert_const(*c, s), to));
                }
                Ok(self.emit(Op::Convert(v), to))
            }
            (Type::Scalar(_), Type::Vector(s, _) | Type::Matrix { scalar: s, .. }) => {
                let st = self.t(Type::Scalar(s));
                let x = self.coerce(v, st)?;
                Ok(self.emit(Op::Splat(x), to))
            }
            (Type::Vector(_, n), Type::Vector(s, m)) if n >= m => {
                let v = if n > m {
                    let narrowed = self.ty_of(v);
                    let sc = self.m.module.types.scalar_of(narrowed).unwrap_or(s);
                    let vt = self.t(Type::Vector(sc, m));
                    self.emit(Op::Swizzle(v, (0..m).collect()), vt)
                } else {
                    v
                };
                if self.ty_of(v) == to {
                    Ok(v)
                } else {
                    Ok(self.emit(Op::Convert(v), to))
                }
            }
            // Cooperative vectors (arrays): a scalar for every element, or
            // each element converted.
            (Type::Scalar(_), Type::Array(e, n)) => {
                let x = self.coerce(v, e)?;
                Ok(self.emit(Op::Construct(vec![x; n as usize]), to))
            }
            (Type::Array(_, n), Type::Array(_, m)) if n == m => {
                self.elementwise(to, &[v], |s, p, et| s.coerce(p[0], et))
            }
            (Type::Vector(s0, _), Type::Scalar(_)) => {
                let st = self.t(Type::Scalar(s0));
                let x = self.emit(Op::Extract(v, 0), st);
                self.coerce(x, to)
            }
            (Type::Matrix { rows, cols, .. }, Type::Matrix { rows: r, cols: c, .. }) if rows == r && cols == c => {
                Ok(self.emit(Op::Convert(v), to))
            }
            // `(float3x3)m` of a `float4x4`: the upper-left part.
            (Type::Matrix { scalar: s0, rows, cols }, Type::Matrix { scalar, rows: r, cols: c })
                if r <= rows && c <= cols =>
            {
                let from_row = self.t(Type::Vector(s0, cols));
                let row = self.t(Type::Vector(s0, c));
                let parts = (0..r)
                    .map(|i| {
                        let x = self.emit(Op::Extract(v, i.into()), from_row);
                        self.emit(Op::Swizzle(x, (0..c).collect()), row)
                    })
                    .collect();
                let m = self.t(Type::Matrix { scalar: s0, rows: r, cols: c });
                let m = self.emit(Op::Construct(parts), m);
                if s0 == scalar {
                    Ok(m)
                } else {
                    Ok(self.emit(Op::Convert(m), to))
                }
            }
            (Type::Struct { .. }, _) if self.m.packed_existentials.get(&from) == Some(&to) => {
                self.unpack_existential(v, to)
            }
            (Type::Struct { .. }, Type::Struct { .. })
                if self
                    .m
                    .existential_variants
                    .get(&from)
                    .zip(self.m.existential_variants.get(&to))
                    .is_some_and(|(f, t)| f.iter().all(|v| t.contains(v))) =>
            {
                self.retag_existential(v, to)
            }
            (_, Type::Struct { .. }) if self.m.existential_variants.get(&to).is_some_and(|vs| vs.contains(&from)) => {
                // A concrete value as an interface-typed one: its tag and
                // its variant's field set.
                let variants = self.m.existential_variants[&to].clone();
                let k = variants.iter().position(|&t| t == from).expect("a variant");
                let int = self.t(Type::Scalar(Scalar::Int32));
                let mut parts = vec![self.konst(Const::Int(k as i64), int)];
                for (i, &t) in variants.iter().enumerate() {
                    parts.push(if i == k { v } else { self.zero(t)? });
                }
                Ok(self.emit(Op::Construct(parts), to))
            }
            _ => self.error(format!("cannot convert `{}` to `{}`", self.show(from), self.show(to))),
        }
    }
}
