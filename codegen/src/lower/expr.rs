//! Lowering expressions to values: literals, names, enum cases,
//! indexing, and the operators (arithmetic, comparison, `&&`/`||`/`?:`
//! as control flow, `is`/`as`, prefix and postfix `++`/`--`, user-defined
//! operators).

use super::*;

impl FnLower<'_, '_> {
    /// A condition as a scalar `bool`.
    pub(super) fn condition(&mut self, e: ExprId) -> R<ValueId> {
        let v = self.expr(e)?;
        let b = self.bool_ty();
        let saved = self.span;
        self.span = self.expr_span(e);
        let r = self.coerce(v, b);
        self.span = saved;
        r
    }

    /// `e` converted to `ty` (initializer lists take their type from it).
    pub(super) fn expr_expecting(&mut self, e: ExprId, ty: TypeId) -> R<ValueId> {
        let saved = self.span;
        self.span = self.expr_span(e);
        let r = match self.body.expr(e).clone() {
            Expr::InitList(items) => self.init_list(&items, ty),
            Expr::Literal(LiteralKind::Null) if self.optional_of(ty).is_some() => self.none_of(ty),
            Expr::Path(segs, false)
                if self.optional_of(ty).is_some()
                    && matches!(segs.as_slice(), [seg] if seg.name == "none" && seg.args.is_empty())
                    && !self.scopes.iter().flatten().any(|l| l.name == "none") =>
            {
                self.none_of(ty)
            }
            _ => {
                let v = self.expr(e)?;
                self.span = self.expr_span(e);
                self.coerce(v, ty)
            }
        };
        self.span = saved;
        r
    }

    pub(super) fn expr(&mut self, e: ExprId) -> R<ValueId> {
        let saved = self.span;
        self.span = self.expr_span(e);
        let mut r = self.expr_inner(e);
        if self.detached.contains(&e) {
            r = r.map(|v| self.detach(v));
        }
        self.span = saved;
        r
    }

    pub(super) fn expr_inner(&mut self, e: ExprId) -> R<ValueId> {
        match self.body.expr(e).clone() {
            Expr::Literal(kind) => self.literal(e, kind),
            Expr::Path(segs, _) => {
                if let Some(v) = self.static_int_const(e)? {
                    return Ok(v);
                }
                if let Some(p) = self.place(e)? {
                    return Ok(self.load(p));
                }
                if let Some(Ty::TypeValue(t)) = self.inferred.expr_types.get(e.0 as usize) {
                    if let Ty::Const(v) = **t {
                        // A value generic parameter, `N`.
                        let int = self.t(Type::Scalar(Scalar::Int32));
                        return Ok(self.konst(Const::Int(v), int));
                    }
                }
                if let [.., _, last] = segs.as_slice() {
                    let owner = self.ctx.resolve(&TypeRef::Path(segs[..segs.len() - 1].to_vec()));
                    if let Some(v) = self.enum_case(&owner, &last.name)? {
                        return Ok(v);
                    }
                }
                if let [seg] = segs.as_slice() {
                    // A property of `this`: its getter.
                    if let Some(prop) = self.this_property(&seg.name) {
                        let this = self.ctx.this.clone();
                        let f = self.instance_of(prop, &this, &[], &[], 0)?;
                        let this = self.this_ptr().expect("in a method");
                        return self.call_function(f, &[CallArg::Place(this)]);
                    }
                }
                let name = segs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join("::");
                self.global_constant(e, &name)
            }
            Expr::Call { callee, args } => self.call(e, callee, &args),
            // Parts of locals are read from the loaded value, so that the
            // variable stays promotable; parts of buffers through pointers.
            Expr::Member { receiver, name, .. } => {
                if let Some(v) = self.static_int_const(e)? {
                    return Ok(v);
                }
                if !self.rooted_in_local(e) {
                    if let Some(p) = self.place(e)? {
                        return Ok(self.load(p));
                    }
                }
                if let Some(Ty::TypeValue(t)) = self.inferred.expr_types.get(receiver.0 as usize).cloned() {
                    if let Some(v) = self.enum_case(&t, &name)? {
                        return Ok(v);
                    }
                }
                let r = self.expr(receiver)?;
                self.member_value(e, r, &name)
            }
            Expr::Index { base, index } => {
                // `s[i]` of a struct with a `__subscript`: its getter.
                if let Some(f) = self.accessor(e, false)? {
                    let args: Vec<CallArg> =
                        std::iter::once(base).chain(self.subscript_indices(index)).map(CallArg::Expr).collect();
                    return self.call_function(f, &args);
                }
                if let Some(v) = self.texture_index(e, base, index)? {
                    return Ok(v);
                }
                if !self.rooted_in_local(e) {
                    if let Some(p) = self.place(e)? {
                        return Ok(self.load(p));
                    }
                }
                let b = self.expr(base)?;
                let i = self.index(index)?;
                let t = self.expr_ty(e)?;
                Ok(match self.b.func.op(i) {
                    Some(Op::Const(Const::Int(k))) if *k >= 0 => self.emit(Op::Extract(b, *k as u32), t),
                    _ => self.emit(Op::ExtractDynamic(b, i), t),
                })
            }
            Expr::Binary { op, lhs, rhs } => self.binary(e, op, lhs, rhs),
            Expr::Prefix { op, expr } => self.prefix(e, op, expr),
            Expr::Postfix { op, expr } => self.inc_dec(expr, op == PostfixOp::Inc, false),
            Expr::Ternary { cond, then, els } => self.ternary(e, cond, then, els),
            Expr::Cast { ty, expr } => {
                let t = self.resolve(&ty)?;
                self.expr_expecting(expr, t)
            }
            Expr::InitList(_) => self.error("an initializer list needs a declared type here"),
            Expr::NoDiff(inner) => {
                let saved = std::mem::replace(&mut self.no_diff, true);
                let v = self.expr(inner);
                self.no_diff = saved;
                let v = v?;
                // On a call of a differentiable function `no_diff` has no
                // effect, as with the reference compiler (the analysis
                // warns).
                let differentiable = match self.b.func.op(v) {
                    Some(Op::Call(f, _)) => {
                        let g = self.m.module.function(*f);
                        g.derivative != Derivative::None || g.backward.is_some()
                    }
                    // A built-in: as its row says (an expanded one, `exp10`
                    // or `fmin`, may be an intrinsic that is differentiable).
                    _ => match self.body.expr(inner) {
                        Expr::Call { callee, args } => match self.body.expr(*callee) {
                            Expr::Path(segs, _) => segs
                                .last()
                                .is_some_and(|s| crate::builtins::differentiable(&s.name, args.len()).unwrap_or(false)),
                            _ => false,
                        },
                        _ => false,
                    },
                };
                if differentiable {
                    return Ok(v);
                }
                Ok(self.detach(v))
            }
            Expr::Missing => self.error("missing expression"),
            Expr::Diff { .. } => self.error("a `fwd_diff`/`bwd_diff` function can only be called here"),
            Expr::This => self.this_value(),
            Expr::Is { expr, ty } => self.is_as(e, expr, &ty, false),
            Expr::As { expr, ty } => self.is_as(e, expr, &ty, true),
            Expr::SizeOf { keyword, subs, ty } => self.countof(&keyword, &subs, ty.as_ref()),
            Expr::PackElem { .. } => match self.place(e)? {
                Some(p) => Ok(self.load(p)),
                None => self.error("only a parameter's pack is supported by code generation here"),
            },
            Expr::Expand(_) | Expr::Each(_) => {
                self.error("`expand` is supported by code generation only as an argument of a call")
            }
            _ => self.error("this expression is not supported by code generation yet"),
        }
    }

    pub(super) fn literal(&mut self, e: ExprId, kind: LiteralKind) -> R<ValueId> {
        let ty = self.expr_ty(e)?;
        let c = match kind {
            LiteralKind::Int { value: Some(v), .. } => Const::Int(v),
            LiteralKind::Int { value: None, .. } => return self.error("integer literal out of range"),
            LiteralKind::Float { value: Some(bits), .. } => Const::Float(f64::from_bits(bits)),
            LiteralKind::Float { value: None, .. } => return self.error("malformed floating-point literal"),
            LiteralKind::Bool(b) => Const::Bool(b),
            _ => return self.error("this literal is not supported by code generation yet"),
        };
        Ok(self.konst(c, ty))
    }

    /// A global `static const` scalar with a literal value.
    /// `E.Case` / `E::Case` of a user enum: its value (the case's
    /// initializer, or one more than the previous case's).
    pub(super) fn enum_case(&mut self, owner: &Ty, name: &str) -> R<Option<ValueId>> {
        let db = self.db();
        let Ty::Adt { def, .. } = owner else { return Ok(None) };
        let found = match DeclCtx::for_def(db, *def).enum_case_value(*def, name) {
            None => None,
            Some(Some(v)) => Some(v),
            Some(None) => return self.error("enum case values must be integer constant expressions"),
        };
        let Some(v) = found else { return Ok(None) };
        let at = self.span;
        let ty = self.m.lower_ty(owner, at)?;
        Ok(Some(self.konst(Const::Int(v), ty)))
    }

    pub(super) fn global_constant(&mut self, e: ExprId, name: &str) -> R<ValueId> {
        let db = self.db();
        let defs = self.ctx.lookup_global(name);
        let Some(d) = defs.iter().find(|d| d.kind == ItemKind::Var) else {
            return self.error(format!("`{name}` is not a value code generation supports"));
        };
        let def = DefId::new(db, d.file, d.ast_index);
        let is_const = item_of(db, def).is_some_and(|i| i.modifiers.contains(&Modifier::Const));
        let literal = if is_const { globals::literal_value(db, def) } else { None };
        let ty = self.expr_ty(e)?;
        let value = match (self.ty(ty), literal) {
            (Type::Scalar(s), Some(c)) => Some(convert_const(c, *s)),
            _ => None,
        };
        match value {
            Some(c) => Ok(self.konst(c, ty)),
            None => self.error(format!("`{name}` is not a value code generation supports (only literal constants)")),
        }
    }

    /// An index as an `int`/`uint`.
    pub(super) fn index(&mut self, e: ExprId) -> R<ValueId> {
        let i = self.expr(e)?;
        match self.ty(self.ty_of(i)) {
            Type::Scalar(Scalar::Int32 | Scalar::UInt32) => Ok(i),
            _ => {
                let int = self.t(Type::Scalar(Scalar::Int32));
                self.coerce(i, int)
            }
        }
    }

    /// The common type two operands convert to (HLSL's rules: the wider
    /// scalar, a scalar broadcast to the other's shape, the shorter
    /// vector).
    pub(super) fn common_type(&mut self, a: TypeId, b: TypeId) -> R<TypeId> {
        let (ta, tb) = (self.ty(a).clone(), self.ty(b).clone());
        let (Some(sa), Some(sb)) = (self.m.module.types.scalar_of(a), self.m.module.types.scalar_of(b)) else {
            return self.error(format!("no operator for `{}` and `{}`", self.show(a), self.show(b)));
        };
        let s = Scalar::promote(sa, sb);
        Ok(match (ta, tb) {
            (Type::Scalar(_), Type::Scalar(_)) => self.t(Type::Scalar(s)),
            (Type::Vector(_, n), Type::Scalar(_)) | (Type::Scalar(_), Type::Vector(_, n)) => self.t(Type::Vector(s, n)),
            (Type::Vector(_, n), Type::Vector(_, m)) => self.t(Type::Vector(s, n.min(m))),
            (Type::Matrix { rows, cols, .. }, Type::Scalar(_)) | (Type::Scalar(_), Type::Matrix { rows, cols, .. }) => {
                self.t(Type::Matrix { scalar: s, rows, cols })
            }
            (Type::Matrix { rows, cols, .. }, Type::Matrix { rows: r, cols: c, .. }) if rows == r && cols == c => {
                self.t(Type::Matrix { scalar: s, rows, cols })
            }
            _ => return self.error(format!("no operator for `{}` and `{}`", self.show(a), self.show(b))),
        })
    }

    pub(super) fn with_scalar(&mut self, t: TypeId, s: Scalar) -> TypeId {
        match self.ty(t).clone() {
            Type::Vector(_, n) => self.t(Type::Vector(s, n)),
            Type::Matrix { rows, cols, .. } => self.t(Type::Matrix { scalar: s, rows, cols }),
            _ => self.t(Type::Scalar(s)),
        }
    }

    /// Tuples compare element by element, lexicographically (`==`, `!=`,
    /// `<`, `<=`, `>`, `>=`); `None` unless both are tuples of one type.
    pub(super) fn tuple_compare(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> R<Option<ValueId>> {
        let t = self.ty_of(a);
        let Type::Struct { fields, .. } = self.ty(t).clone() else { return Ok(None) };
        if !self.m.tuples.contains(&t) || self.ty_of(b) != t || !op.is_comparison() {
            return Ok(None);
        }
        let bool_ty = self.t(Type::Scalar(Scalar::Bool));
        let (x, y, op) = match op {
            BinaryOp::Gt => (b, a, BinaryOp::Lt),
            BinaryOp::Ge => (b, a, BinaryOp::Le),
            op => (a, b, op),
        };
        // From the last element back: `lt` = x < y on the elements from
        // here on, `eq` = they are equal.
        let mut lt = self.konst(Const::Bool(false), bool_ty);
        let mut eq = self.konst(Const::Bool(true), bool_ty);
        for (k, f) in fields.iter().enumerate().rev() {
            let xi = self.emit(Op::Extract(x, k as u32), f.1);
            let yi = self.emit(Op::Extract(y, k as u32), f.1);
            let e = self.arith(BinaryOp::Eq, xi, yi)?;
            let e = self.all_of(e)?;
            if matches!(op, BinaryOp::Lt | BinaryOp::Le) {
                let l = match self.m.module.types.scalar_of(f.1) {
                    Some(Scalar::Bool) => {
                        let nx = self.emit(Op::Unary(UnaryOp::Not, xi), f.1);
                        let both = self.arith(BinaryOp::And, nx, yi)?;
                        self.all_of(both)?
                    }
                    _ => {
                        let l = self.arith(BinaryOp::Lt, xi, yi)?;
                        self.all_of(l)?
                    }
                };
                let rest = self.emit(Op::Binary(BinaryOp::And, e, lt), bool_ty);
                lt = self.emit(Op::Binary(BinaryOp::Or, l, rest), bool_ty);
            }
            eq = self.emit(Op::Binary(BinaryOp::And, e, eq), bool_ty);
        }
        Ok(Some(match op {
            BinaryOp::Eq => eq,
            BinaryOp::Ne => self.emit(Op::Unary(UnaryOp::Not, eq), bool_ty),
            BinaryOp::Lt => lt,
            _ => self.emit(Op::Binary(BinaryOp::Or, lt, eq), bool_ty),
        }))
    }

    /// The value type of an `Optional` struct.
    pub(super) fn optional_of(&self, t: TypeId) -> Option<TypeId> {
        match self.ty(t) {
            Type::Struct { fields, .. } if self.m.optionals.contains(&t) => Some(fields[0].1),
            _ => None,
        }
    }

    /// `none` as the `Optional` type `t`.
    pub(super) fn none_of(&mut self, t: TypeId) -> R<ValueId> {
        let value = self.optional_of(t).expect("an optional");
        let zero = self.zero(value)?;
        let bool_ty = self.t(Type::Scalar(Scalar::Bool));
        let no = self.konst(Const::Bool(false), bool_ty);
        Ok(self.emit(Op::Construct(vec![zero, no]), t))
    }

    /// `x is T` (`as_optional`: `x as T`, an `Optional<T>`): for a value of
    /// an interface type, whether its tag is `T`'s; for other values,
    /// whether their type is `T`.
    pub(super) fn is_as(&mut self, e: ExprId, x: ExprId, ty: &TypeRef, as_optional: bool) -> R<ValueId> {
        let v = self.expr(x)?;
        let target = self.resolve(ty)?;
        let from = self.ty_of(v);
        let bool_ty = self.t(Type::Scalar(Scalar::Bool));
        let (is, value) = match self.m.existential_variants.get(&from).cloned() {
            Some(variants) => match variants.iter().position(|&t| t == target) {
                Some(k) => {
                    let int = self.t(Type::Scalar(Scalar::Int32));
                    let tag = self.emit(Op::Extract(v, 0), int);
                    let want = self.konst(Const::Int(k as i64), int);
                    let is = self.emit(Op::Binary(BinaryOp::Eq, tag, want), bool_ty);
                    (is, Some(self.emit(Op::Extract(v, k as u32 + 1), target)))
                }
                None => (self.konst(Const::Bool(false), bool_ty), None),
            },
            None if from == target => (self.konst(Const::Bool(true), bool_ty), Some(v)),
            None => (self.konst(Const::Bool(false), bool_ty), None),
        };
        if !as_optional {
            return Ok(is);
        }
        let t = self.expr_ty(e)?;
        let value = match value {
            Some(v) => v,
            None => self.zero(target)?,
        };
        Ok(self.emit(Op::Construct(vec![value, is]), t))
    }

    /// A comparison's result as one `bool` (`all` of a vector's).
    pub(super) fn all_of(&mut self, v: ValueId) -> R<ValueId> {
        match *self.ty(self.ty_of(v)) {
            Type::Vector(..) => {
                let bool_ty = self.t(Type::Scalar(Scalar::Bool));
                Ok(self.emit(Op::Intrinsic(Intrinsic::All, vec![v]), bool_ty))
            }
            _ => Ok(v),
        }
    }

    /// `a op b` on values, converting both to their common type.
    pub(super) fn arith(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> R<ValueId> {
        if let Some(v) = self.tuple_compare(op, a, b)? {
            return Ok(v);
        }
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            let at = self.ty_of(a);
            let amount = self.with_scalar(at, Scalar::UInt32);
            let b = self.coerce(b, amount)?;
            return Ok(self.emit(Op::Binary(op, a, b), at));
        }
        if let Some(result) = [a, b].iter().map(|&v| self.ty_of(v)).find(|&t| self.array_len(t).is_some()) {
            // Cooperative vectors (arrays): element by element.
            if op.is_comparison() {
                return self.error("comparing cooperative vectors is not supported by code generation yet");
            }
            return self.elementwise(result, &[a, b], |s, p, _| s.arith(op, p[0], p[1]));
        }
        let mut common = self.common_type(self.ty_of(a), self.ty_of(b))?;
        // Arithmetic on bools happens in `int`.
        if !op.is_comparison()
            && !matches!(op, BinaryOp::And | BinaryOp::Or)
            && self.m.module.types.scalar_of(common) == Some(Scalar::Bool)
            && !matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor)
        {
            common = self.with_scalar(common, Scalar::Int32);
        }
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            common = self.with_scalar(common, Scalar::Bool);
        }
        if op.is_comparison() && matches!(self.ty(common), Type::Matrix { .. }) {
            // (The targets have no matrices of `bool`; the reference
            // compiler writes them as arrays of rows.)
            return self.error("comparing matrices (a matrix of `bool`) is not supported by code generation yet");
        }
        let a = self.coerce(a, common)?;
        let b = self.coerce(b, common)?;
        let result = if op.is_comparison() { self.with_scalar(common, Scalar::Bool) } else { common };
        Ok(self.emit(Op::Binary(op, a, b), result))
    }

    pub(super) fn binary(&mut self, e: ExprId, op: HirBinary, lhs: ExprId, rhs: ExprId) -> R<ValueId> {
        match op {
            HirBinary::Assign(None) => {
                if self.is_resource_expr(lhs) {
                    // `p.data = inBuf`: the field is bound to the buffer.
                    let g = self.resource_global(rhs)?;
                    let Some(target) = self.struct_root(lhs).filter(|r| !r.1.is_empty()) else {
                        return self.error("a buffer is assigned to a field of a struct variable only");
                    };
                    self.res_fields.insert(target, g);
                    let int = self.t(Type::Scalar(Scalar::Int32));
                    return Ok(self.konst(Const::Int(0), int));
                }
                let t = self.expr_ty(lhs)?;
                // An element's address is taken before the value is
                // computed (`buf[o++] = f(o)` writes where `o` was), as
                // the reference compiler does.
                let plain_index = match self.body.expr(lhs) {
                    Expr::Index { base, .. } => {
                        let texture = self.inferred.expr_types.get(base.0 as usize).is_some_and(|t| {
                            matches!(globals::resource_of(t), Some((globals::Resource::RWTexture(_), _)))
                        });
                        self.user_subscript(*base).is_none() && !texture
                    }
                    _ => false,
                };
                if plain_index {
                    if let Some(p) = self.place(lhs)? {
                        let v = self.expr_expecting(rhs, t)?;
                        self.store(p, v);
                        return Ok(v);
                    }
                }
                let v = self.expr_expecting(rhs, t)?;
                self.assign_to(lhs, v)?;
                let sem = self.inferred.type_of(lhs);
                if let Some(target) = self.struct_root(lhs) {
                    self.copy_resources(target, rhs, &sem, Some(v))?;
                }
                Ok(v)
            }
            HirBinary::Assign(Some(k)) => {
                let t = self.expr_ty(lhs)?;
                let Some(op) = binary_op(k) else { return self.error("unsupported compound assignment") };
                if let Some(p) = self.place(lhs)? {
                    let old = self.load(p);
                    let r = self.expr(rhs)?;
                    let v = self.arith(op, old, r)?;
                    let v = self.coerce(v, t)?;
                    self.store(p, v);
                    return Ok(v);
                }
                let old = self.expr(lhs)?;
                let r = self.expr(rhs)?;
                let v = self.arith(op, old, r)?;
                let v = self.coerce(v, t)?;
                self.assign_to(lhs, v)?;
                Ok(v)
            }
            HirBinary::Logic(k) => {
                let result = self.expr_ty(e)?;
                if matches!(self.ty(result), Type::Scalar(_)) && !self.eager_logic {
                    self.short_circuit(k == BinOp::And, lhs, rhs)
                } else {
                    let a = self.expr(lhs)?;
                    let b = self.expr(rhs)?;
                    let (a, b) = (self.coerce(a, result)?, self.coerce(b, result)?);
                    let op = if k == BinOp::And { BinaryOp::And } else { BinaryOp::Or };
                    Ok(self.emit(Op::Binary(op, a, b), result))
                }
            }
            HirBinary::Arith(k) | HirBinary::Compare(k) | HirBinary::Bit(k) | HirBinary::Shift(k) => {
                if let Some(v) = self.user_operator(k.text(), &[lhs, rhs])? {
                    return Ok(v);
                }
                let Some(op) = binary_op(k) else { return self.error("unsupported operator") };
                let a = self.expr(lhs)?;
                let b = self.expr(rhs)?;
                self.arith(op, a, b)
            }
            HirBinary::Comma => {
                self.expr(lhs)?;
                self.expr(rhs)
            }
        }
    }

    /// `a op b` with a user struct operand: a call of the user's
    /// `operator op` of user structs, binary or unary (`operands`): a free
    /// function taking them all, or a method of the first taking the rest.
    pub(super) fn user_operator(&mut self, op: &str, operands: &[ExprId]) -> R<Option<ValueId>> {
        let db = self.db();
        let tys: Vec<Ty> = operands.iter().map(|a| self.inferred.type_of(*a)).collect();
        let core = slang_analysis::core_files(db);
        let user_struct = |t: &Ty| {
            matches!(t, Ty::Adt { def, .. } if !core.contains(&def.file(db))
                && item_of(db, *def).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class)))
        };
        // (In generic code, operands of a type parameter that no core
        // interface makes a number call the user's operator, whatever
        // type the instance binds it to.)
        let generic = infer::infer(db, self.def);
        let user_param = |a: &ExprId| match generic.expr_types.get(a.0 as usize) {
            Some(Ty::Param { def, .. }) => user_constrained(db, *def),
            _ => false,
        };
        if !tys.iter().any(user_struct) && !operands.iter().any(user_param) {
            return Ok(None);
        }
        let name = format!("operator{op}");
        let all: Vec<CallArg> = operands.iter().map(|&o| CallArg::Expr(o)).collect();
        let free: Vec<DefId> = global_scope(db, self.file)
            .lookup(&name)
            .into_iter()
            .flatten()
            .filter(|d| d.kind == ItemKind::Fn && !core.contains(&d.file))
            .map(|d| DefId::new(db, d.file, d.ast_index))
            .filter(|&d| fn_sig(db, d).params.len() == operands.len())
            .collect();
        if !free.is_empty() {
            let def = self.pick_overload(&free, operands, &name)?;
            let f = self.instance_of(def, &Ty::Unknown, &[], operands, 0)?;
            return self.call_function(f, &all).map(Some);
        }
        if let Ty::Adt { def: owner, .. } = &tys[0] {
            let methods: Vec<DefId> = item_of(db, *owner)
                .iter()
                .flat_map(|i| i.members.iter())
                .filter(|m| m.kind == ItemKind::Fn && m.name.as_deref() == Some(name.as_str()))
                .map(|m| DefId::new(db, owner.file(db), m.ast_index))
                .filter(|&d| fn_sig(db, d).params.len() + 1 == operands.len())
                .collect();
            if !methods.is_empty() {
                let def = self.pick_overload(&methods, &operands[1..], &name)?;
                let f = self.instance_of(def, &tys[0], &[], &operands[1..], 0)?;
                return self.call_function(f, &all).map(Some);
            }
        }
        self.error(format!("no `{name}` for these operands"))
    }

    /// Scalar `a && b` / `a || b`: `b` runs only when needed.
    pub(super) fn short_circuit(&mut self, and: bool, lhs: ExprId, rhs: ExprId) -> R<ValueId> {
        let a = self.condition(lhs)?;
        let bool_ty = self.bool_ty();
        let (tb, eb, merge) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
        let result = self.b.add_block_param(merge, bool_ty, self.span);
        self.terminate(Terminator::If { cond: a, then: tb, els: eb, merge });
        let (eval, fixed) = if and { (tb, eb) } else { (eb, tb) };
        self.cur = Some(eval);
        let b = self.condition(rhs)?;
        self.branch(merge, vec![b]);
        self.cur = Some(fixed);
        let c = self.konst(Const::Bool(!and), bool_ty);
        self.branch(merge, vec![c]);
        self.cur = Some(merge);
        Ok(result)
    }

    pub(super) fn ternary(&mut self, e: ExprId, cond: ExprId, then: ExprId, els: ExprId) -> R<ValueId> {
        let result = self.expr_ty(e)?;
        let cond_ty = self.expr_ty(cond)?;
        if let Type::Vector(_, n) = *self.ty(cond_ty) {
            // Element-wise: both sides are evaluated.
            let c = self.expr(cond)?;
            let bt = self.t(Type::Vector(Scalar::Bool, n));
            let c = self.coerce(c, bt)?;
            let a = self.expr_expecting(then, result)?;
            let b = self.expr_expecting(els, result)?;
            return Ok(self.emit(Op::Select(c, a, b), result));
        }
        let c = self.condition(cond)?;
        let (tb, eb, merge) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
        let value = self.b.add_block_param(merge, result, self.span);
        self.terminate(Terminator::If { cond: c, then: tb, els: eb, merge });
        for (block, arm) in [(tb, then), (eb, els)] {
            self.cur = Some(block);
            let v = self.expr_expecting(arm, result)?;
            self.branch(merge, vec![v]);
        }
        self.cur = Some(merge);
        Ok(value)
    }

    pub(super) fn prefix(&mut self, e: ExprId, op: PrefixOp, inner: ExprId) -> R<ValueId> {
        if matches!(op, PrefixOp::Neg | PrefixOp::Plus | PrefixOp::Not | PrefixOp::BitNot) {
            if let Some(v) = self.user_operator(op.text(), &[inner])? {
                return Ok(v);
            }
        }
        match op {
            PrefixOp::Inc | PrefixOp::Dec => self.inc_dec(inner, op == PrefixOp::Inc, true),
            PrefixOp::Plus => self.expr(inner),
            PrefixOp::Neg => {
                let v = self.expr(inner)?;
                let t = self.expr_ty(e)?;
                let v = self.coerce(v, t)?;
                if self.array_len(t).is_some() {
                    return self.elementwise(t, &[v], |s, p, et| Ok(s.emit(Op::Unary(UnaryOp::Neg, p[0]), et)));
                }
                // A negative literal is a constant (WGSL's constant
                // evaluation cannot convert `-(3i)` to a 64-bit type).
                match self.b.func.op(v) {
                    Some(&Op::Const(Const::Int(i))) if matches!(self.ty(t), Type::Scalar(_)) => {
                        Ok(self.konst(Const::Int(-i), t))
                    }
                    Some(&Op::Const(Const::Float(f))) if matches!(self.ty(t), Type::Scalar(_)) => {
                        Ok(self.konst(Const::Float(-f), t))
                    }
                    _ => Ok(self.emit(Op::Unary(UnaryOp::Neg, v), t)),
                }
            }
            PrefixOp::Not => {
                let v = self.expr(inner)?;
                let vt = self.ty_of(v);
                let t = self.with_scalar(vt, Scalar::Bool);
                let v = self.coerce(v, t)?;
                Ok(self.emit(Op::Unary(UnaryOp::Not, v), t))
            }
            PrefixOp::BitNot => {
                let v = self.expr(inner)?;
                let t = self.ty_of(v);
                Ok(self.emit(Op::Unary(UnaryOp::BitNot, v), t))
            }
            _ => self.error("this operator is not supported by code generation yet"),
        }
    }

    /// `++x`/`x++`/`--x`/`x--`: the new value (prefix) or the old one.
    pub(super) fn inc_dec(&mut self, target: ExprId, inc: bool, prefix: bool) -> R<ValueId> {
        // A property or `__subscript` (no place): its getter and setter.
        let place = self.place(target)?;
        let old = match place {
            Some(p) => self.load(p),
            None => self.expr(target)?,
        };
        let t = self.ty_of(old);
        let Some(s) = self.m.module.types.scalar_of(t) else { return self.error("cannot increment this") };
        let st = self.t(Type::Scalar(s));
        let one = self.konst(convert_const(Const::Int(1), s), st);
        let one = self.coerce(one, t)?;
        let op = if inc { BinaryOp::Add } else { BinaryOp::Sub };
        let new = self.emit(Op::Binary(op, old, one), t);
        match place {
            Some(p) => self.store(p, new),
            None => self.assign_to(target, new)?,
        }
        Ok(if prefix { new } else { old })
    }
}

/// Whether generic type parameter `gdef` is constrained by user
/// interfaces only (besides `IDifferentiable`): no core interface lets
/// the core module's operators apply to it.
fn user_constrained(db: &dyn Db, gdef: DefId) -> bool {
    let Some(ifaces) = slang_analysis::generics::constraint_interfaces(db, gdef) else { return false };
    let mut closure = std::collections::HashSet::new();
    for i in ifaces {
        slang_analysis::generics::interface_closure(db, i, &mut closure);
    }
    let core = slang_analysis::core_files(db);
    let diff: Vec<DefId> = ["IDifferentiable", "IDifferentiablePtrType"]
        .iter()
        .filter_map(|n| slang_analysis::name_res::core_def(db, n))
        .collect();
    closure.iter().any(|d| !core.contains(&d.file(db)))
        && closure.iter().all(|d| !core.contains(&d.file(db)) || diff.contains(d))
}
