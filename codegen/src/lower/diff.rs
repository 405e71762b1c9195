//! Automatic differentiation at lowering: synthesized `Differential`
//! structs, the sources of derivative functions (`fwd_diff`, `bwd_diff`,
//! user-written derivatives), derivative calls, and the core module's
//! differential-pair functions (`diffPair`, `detach`, `updatePrimal`, …).

use super::*;
use slang_analysis::autodiff::{func_extension_for, ExtensionKind};

impl<'db> ModuleLowerer<'db> {
    /// Record the `Differential` of a differentiable struct: the one it
    /// declares (`typedef D Differential;` or a nested struct, its fields
    /// mapped by `[DerivativeMember(D.x)]`), or else the synthesized one:
    /// the struct itself when all its fields are differentiable, or a
    /// struct `S_Differential` of the differentiable fields' derivatives.
    /// Generic structs get theirs per instantiation.
    pub(super) fn struct_differential(
        &mut self,
        def: DefId,
        t: TypeId,
        name: &str,
        fields: &[(String, TypeId)],
        args: &[Ty],
    ) {
        let db = self.db;
        let Some(item) = item_of(db, def) else { return };
        let file = def.file(db);
        // (The fields lowered: buffer fields are not stored.)
        let field_items: Vec<&slang_analysis::item_tree::Item> = item
            .members
            .iter()
            .filter(|m| m.kind == ItemKind::Var && !m.is_static)
            .filter(|m| fields.iter().any(|f| Some(&f.0) == m.name.as_ref()))
            .collect();
        let this_ty = Ty::Adt { def, args: args.to_vec(), name: item.name.clone().unwrap_or_default() };
        let ptr_like =
            slang_analysis::autodiff::type_diff(db, file, &this_ty) == slang_analysis::autodiff::TypeDiff::Ptr;
        // `Differential`, declared in the struct or in an extension of it
        // that applies to these arguments (`extension<T : I> S<T>`,
        // `extension S<4>`), with the generic parameters there bound.
        let mut declared = item.members.iter().find(|m| m.name.as_deref() == Some("Differential")).map(|m| {
            let bindings: HashMap<String, Ty> =
                item.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
            (DefId::new(db, file, m.ast_index), m.kind, def, bindings)
        });
        if declared.is_none() {
            for ext in slang_analysis::infer::applicable_extensions(db, def, args) {
                let Some(e) = item_of(db, ext) else { continue };
                let Some(m) = e.members.iter().find(|m| m.name.as_deref() == Some("Differential") && m.kind.is_type())
                else {
                    continue;
                };
                let mut bindings = HashMap::new();
                if let Ty::Adt { args: pattern, .. } = DeclCtx::for_def(db, ext).this {
                    for (p, a) in pattern.iter().zip(args) {
                        if let Ty::Param { name, .. } = p {
                            bindings.insert(name.clone(), a.clone());
                        }
                    }
                }
                declared = Some((DefId::new(db, ext.file(db), m.ast_index), m.kind, ext, bindings));
                break;
            }
        }
        if let Some((mdef, kind, owner, bindings)) = declared {
            // Declared by an extension, a differential of another type
            // gets the fields its `[DerivativeMember]`s (on `extern` fields)
            // name. (One that is the type itself is taken field by field,
            // where the reference compiler gives fields without a
            // `[DerivativeMember]` no derivative.)
            let from_extension = owner != def;
            let ext_item = from_extension.then(|| item_of(db, owner)).flatten();
            let member_target = |f: &slang_analysis::item_tree::Item| -> Option<String> {
                match &ext_item {
                    Some(e) => {
                        let m = e.members.iter().find(|m| m.kind == ItemKind::Var && m.name == f.name)?;
                        derivative_member(db, DefId::new(db, owner.file(db), m.ast_index))
                    }
                    None => derivative_member(db, DefId::new(db, file, f.ast_index)),
                }
            };
            let ty = match kind {
                ItemKind::Struct => Ty::Adt { def: mdef, args: Vec::new(), name: "Differential".into() },
                _ => match decl_type_ref(db, mdef).clone() {
                    Some(r) => DeclCtx::specialized(db, owner, &bindings).resolve(&r),
                    None => return,
                },
            };
            let Ok(d) = self.lower_ty(&ty, None) else { return };
            if ptr_like {
                // `IDifferentiablePtrType`: not a differentiable value;
                // derivatives take it with its derivative location.
                let pair = self.intern(Type::Struct {
                    name: format!("DiffPtrPair_{name}"),
                    fields: vec![("p".into(), t), ("d".into(), d)],
                });
                self.module.types.set_ptr_pair(t, pair);
                return;
            }
            if d == t {
                let identity = (0..fields.len() as u32).map(Some).collect();
                self.module.types.set_struct_diff(t, StructDiff { ty: t, fields: identity });
                return;
            }
            let Type::Struct { fields: dfields, .. } = self.module.types.get(d).clone() else { return };
            let map = field_items
                .iter()
                .map(|f| {
                    let target = member_target(f)?;
                    dfields.iter().position(|(n, _)| *n == target).map(|i| i as u32)
                })
                .collect();
            self.module.types.set_struct_diff(t, StructDiff { ty: d, fields: map });
            return;
        }
        let differentiable = if item.generic_params.is_empty() {
            synthesized_differential(db, file, def).is_some()
        } else {
            declares_differentiable(db, def, &mut Vec::new())
        };
        if !differentiable {
            return;
        }
        let mut diff_fields = Vec::new();
        let mut map = Vec::new();
        let mut is_self = true;
        for ((fname, fty), f) in fields.iter().zip(&field_items) {
            let no_diff = slang_analysis::autodiff::field_is_no_diff(f);
            match (no_diff, self.module.types.differential(*fty)) {
                (false, Some(d)) => {
                    is_self &= d == *fty;
                    map.push(Some(diff_fields.len() as u32));
                    diff_fields.push((fname.clone(), d));
                }
                _ => {
                    is_self = false;
                    map.push(None);
                }
            }
        }
        if is_self && !diff_fields.is_empty() {
            let identity = (0..fields.len() as u32).map(Some).collect();
            self.module.types.set_struct_diff(t, StructDiff { ty: t, fields: identity });
            return;
        }
        if diff_fields.is_empty() {
            return;
        }
        // The differential is its own differential (as `T.Differential`
        // is in the reference compiler) when its fields are: higher-order
        // derivatives differentiate it again.
        let own = diff_fields.iter().all(|&(_, d)| self.module.types.differential(d) == Some(d));
        let count = diff_fields.len() as u32;
        let ty = self.intern(Type::Struct { name: format!("{name}_Differential"), fields: diff_fields });
        self.module.types.set_struct_diff(t, StructDiff { ty, fields: map });
        if own && self.module.types.struct_diff(ty).is_none() {
            self.module.types.set_struct_diff(ty, StructDiff { ty, fields: (0..count).map(Some).collect() });
        }
    }

    /// How forward mode differentiates `def`, from its attributes (and
    /// `[…Of(def)]` attributes on other functions of its file). The
    /// functions named are declared, so they are lowered too.
    pub(super) fn derivative_source(&mut self, inst: &Instance) -> R<Derivative> {
        let db = self.db;
        let def = inst.def;
        let file = def.file(db);
        if !fn_differentiability(db, file, def).allows(Mode::Forward) {
            return Ok(Derivative::None);
        }
        let name = item_of(db, def).and_then(|i| i.name.clone()).unwrap_or_default();
        let named = |attr: &str, of: &str| {
            attribute_function(db, def, attr).or_else(|| function_with_attribute_naming(db, file, of, &name))
        };
        if let Some(g) = named("ForwardDerivative", "ForwardDerivativeOf") {
            return Ok(Derivative::Custom(self.declare_function(derived_instance(db, inst, g), false)?));
        }
        if let Some(g) = func_extension_for(db, file, def, ExtensionKind::Forward) {
            return Ok(Derivative::Custom(self.declare_function(derived_instance(db, inst, g), false)?));
        }
        if let Some(s) = named("PrimalSubstitute", "PrimalSubstituteOf") {
            return Ok(Derivative::Substitute(self.declare_function(derived_instance(db, inst, s), false)?));
        }
        if item_of(db, def).is_some_and(|i| i.has_attr("TreatAsDifferentiable")) {
            return Ok(Derivative::Zero);
        }
        Ok(Derivative::Transcribe)
    }

    /// The backward derivative that `__func_extension __apply(f)` gives
    /// `inst`'s function (`f`, declared as `id`): a function of `f`'s
    /// backward signature that runs the extension on the primal values,
    /// then the context it returns (`ctx(out d_x…, dResult)`, its
    /// `operator()`), and sets each differentiable parameter's derivative
    /// to what the context gave.
    pub(super) fn apply_backward(&mut self, inst: &Instance, id: FuncId) -> R<Option<FuncId>> {
        use crate::autodiff::rev::{backward_signature, ParamMap};
        let db = self.db;
        let def = inst.def;
        let Some(ext) = func_extension_for(db, def.file(db), def, ExtensionKind::Apply) else { return Ok(None) };
        let at = def_range(db, ext);
        let apply = self.declare_function(derived_instance(db, inst, ext), false)?;
        // The context's type: the second element of the extension's result.
        let ext_inst = derived_instance(db, inst, ext);
        let ret = slang_analysis::autodiff::func_extension_of(db, ext).map(|e| e.ret).unwrap_or(TypeRef::Unknown);
        let ctx_ty = DeclCtx::specialized(db, ext, &ext_inst.bindings()).resolve(&ret);
        let items = match &ctx_ty {
            Ty::Tuple(items) => items,
            Ty::Adt { name, args, .. } if name == "Tuple" => args,
            _ => return err(at, "`__apply` returns a `Tuple` of the result and the context"),
        };
        let Some(Ty::Adt { def: ctx_def, args: ctx_args, .. }) = items.get(1) else {
            return err(at, "the context `__apply` returns is a struct with an `operator()`");
        };
        let ctx_item = item_of(db, *ctx_def);
        let Some(op) = ctx_item.iter().flat_map(|i| i.members.iter()).find(|m| m.name.as_deref() == Some("operator()"))
        else {
            return err(at, "the context `__apply` returns has no `operator()`");
        };
        let op_def = DefId::new(db, ctx_def.file(db), op.ast_index);
        let bindings: HashMap<String, Ty> = ctx_item
            .iter()
            .flat_map(|i| i.generic_params.iter())
            .filter_map(|g| g.name.clone())
            .zip(ctx_args.iter().cloned())
            .collect();
        let op_fn = self.declare_function(Instance::new(db, op_def, &bindings), false)?;
        let primal = self.module.function(id).clone();
        let (params, map, ret_diff) = backward_signature(&mut self.module.types, &primal);
        let void = self.intern(Type::Void);
        let mut b = FunctionBuilder::new(format!("s_bwd_apply_{}", primal.name), void, at);
        let entry = b.new_block();
        let values: Vec<ValueId> = params.iter().map(|p| b.add_block_param(entry, p.ty, at)).collect();
        b.func.params = params;
        // The primal arguments, and the pairs whose derivatives are set.
        let mut primal_args = Vec::new();
        let mut pairs = Vec::new();
        for (k, m) in map.iter().enumerate() {
            match *m {
                ParamMap::Pair(i) => {
                    let ptr = values[i];
                    let pair_ty = self.module.types.pointee(b.ty(ptr)).map(|(t, _)| t).unwrap_or(b.ty(ptr));
                    let pair = b.inst(entry, Op::Load(ptr), pair_ty, at);
                    let value_ty = self.module.types.pointee(primal.params[k].ty).map(|(t, _)| t);
                    let value_ty = match primal.params[k].dir {
                        ParamDir::In => primal.params[k].ty,
                        _ => value_ty.unwrap_or(primal.params[k].ty),
                    };
                    let p = b.inst(entry, Op::Extract(pair, 0), value_ty, at);
                    primal_args.push(p);
                    pairs.push((ptr, pair_ty, p));
                }
                ParamMap::Value(i) => primal_args.push(values[i]),
                _ => return err(at, "`__apply` of a function with `out` or pointer parameters is not supported yet"),
            }
        }
        let apply_ret = self.module.function(apply).ret;
        let result = b.inst(entry, Op::Call(apply, primal_args), apply_ret, at);
        let ctx_field = match self.module.types.get(apply_ret) {
            Type::Struct { fields, .. } if fields.len() == 2 => fields[1].1,
            _ => return err(at, "`__apply` returns a `Tuple` of the result and the context"),
        };
        let ctx = b.inst(entry, Op::Extract(result, 1), ctx_field, at);
        // `ctx(out d_x…, dResult)`.
        let op_params = self.module.function(op_fn).params.clone();
        let expected = 1 + pairs.len() + usize::from(ret_diff.is_some());
        if op_params.len() != expected {
            return err(
                at,
                format!(
                    "the context's `operator()` takes {} parameters; it is called with the derivatives of {} \
                     differentiable parameters{}",
                    op_params.len() - 1,
                    pairs.len(),
                    if ret_diff.is_some() { " and of the result" } else { "" }
                ),
            );
        }
        let mut op_args = vec![ctx];
        let mut slots = Vec::new();
        for p in &op_params[1..=pairs.len()] {
            let slot = b.inst(entry, Op::Var, p.ty, at);
            op_args.push(slot);
            slots.push(slot);
        }
        if ret_diff.is_some() {
            op_args.push(*values.last().expect("the result's derivative is the last parameter"));
        }
        b.inst(entry, Op::Call(op_fn, op_args), void, at);
        for ((ptr, pair_ty, p), slot) in pairs.into_iter().zip(slots) {
            let d_ty = self.module.types.pointee(b.ty(slot)).map(|(t, _)| t).unwrap_or(b.ty(slot));
            let d = b.inst(entry, Op::Load(slot), d_ty, at);
            let pair = b.inst(entry, Op::Construct(vec![p, d]), pair_ty, at);
            b.inst(entry, Op::Store { ptr, value: pair }, void, at);
        }
        b.terminate(entry, Terminator::Return(None));
        let f = FuncId(self.module.functions.len() as u32);
        self.module.functions.push(b.finish());
        Ok(Some(f))
    }

    /// The user-written backward derivative of `def` (`[BackwardDerivative]`
    /// on it, or `[BackwardDerivativeOf]` naming it), declared.
    pub(super) fn backward_source(&mut self, inst: &Instance) -> R<Option<FuncId>> {
        let db = self.db;
        let def = inst.def;
        let file = def.file(db);
        let name = item_of(db, def).and_then(|i| i.name.clone()).unwrap_or_default();
        let g = attribute_function(db, def, "BackwardDerivative")
            .or_else(|| function_with_attribute_naming(db, file, "BackwardDerivativeOf", &name))
            .or_else(|| func_extension_for(db, file, def, ExtensionKind::Backward));
        match g {
            Some(g) => Ok(Some(self.declare_function(derived_instance(db, inst, g), false)?)),
            None => Ok(None),
        }
    }
}

impl FnLower<'_, '_> {
    /// `fwd_diff(f)(args)`, `fwd_diff(fwd_diff(f))(args)`: a call of the
    /// forward derivative (generated on request).
    ///
    /// For a method, `fwd_diff(S.method)` takes the pair of `this` as its
    /// first argument; `fwd_diff(obj.method)` (and a method of `this`
    /// named alone) passes the receiver, with a zero derivative.
    pub(super) fn derivative_call(
        &mut self,
        e: ExprId,
        callee: ExprId,
        defs: &[DefId],
        modes: &[bool],
        args: &[ExprId],
    ) -> R<ValueId> {
        // (Modes from the innermost operator out.)
        let db = self.db();
        let mut operand = callee;
        while let Expr::Diff { func, .. } = self.body.expr(operand) {
            operand = *func;
        }
        let operand_expr = self.body.expr(operand).clone();
        let (owner, receiver, explicit) = match &operand_expr {
            Expr::Member { receiver, generic_args, .. } => match self.inferred.type_of(*receiver) {
                Ty::TypeValue(t) => ((*t).clone(), None, generic_args.clone()),
                t => (t, Some(CallArg::Expr(*receiver)), generic_args.clone()),
            },
            // `S<float>::f`: a method of the type the path names.
            Expr::Path(segs, _) if segs.len() > 1 => {
                let owner = self.ctx.clone().resolve(&TypeRef::Path(segs[..segs.len() - 1].to_vec()));
                (owner, None, segs.last().map(|s| s.args.clone()).unwrap_or_default())
            }
            Expr::Path(segs, _) => {
                let this = self.this_ptr().map(CallArg::Place);
                (self.ctx.this.clone(), this, segs.last().map(|s| s.args.clone()).unwrap_or_default())
            }
            _ => (Ty::Unknown, None, Vec::new()),
        };
        let modes_of: Vec<Mode> = modes.iter().map(|&f| if f { Mode::Forward } else { Mode::Backward }).collect();
        let explicit_this = |d: DefId| receiver.is_none() && is_instance_method(db, d);
        let arg_tys: Vec<Ty> = args.iter().map(|a| self.inferred.type_of(*a)).collect();
        // Among the overloads taking as many arguments, the one whose
        // derivative's parameter types match the most arguments exactly.
        let fit = |d: DefId| {
            let mut sig = higher_order_signature(db, d, &modes_of);
            if explicit_this(d) {
                if let Some(t) = sig.this_param.take() {
                    sig.params.insert(0, t);
                }
            }
            (sig.params.len() == args.len())
                .then(|| sig.params.iter().zip(&arg_tys).filter(|(p, a)| p.ty == **a).count())
        };
        let Some(def) = defs
            .iter()
            .copied()
            .filter_map(|d| fit(d).map(|score| (d, score)))
            .rev()
            .max_by_key(|&(_, score)| score)
            .map(|(d, _)| d)
            .or(defs.first().copied())
        else {
            return self.error("no function to differentiate");
        };
        let implicit_this = is_instance_method(db, def) && receiver.is_some();
        // The arguments of the primal: a `this` passed explicitly is the
        // first argument.
        let primal_args = match (is_instance_method(db, def), implicit_this) {
            (true, false) => args.get(1..).unwrap_or_default(),
            _ => args,
        };
        let mut f = if slang_analysis::core_files(db).contains(&def.file(db)) {
            self.builtin_to_differentiate(def, modes, args, e)?
        } else {
            self.instance_of(def, &owner, &explicit, primal_args, modes.len())?
        };
        // Buffer arguments are bound in the primal, not passed.
        let dropped = self.m.buffer_args.get(&f).cloned().unwrap_or_default();
        let offset = args.len() - primal_args.len();
        for &forward in modes {
            let ModuleLowerer { module, requests, .. } = &mut *self.m;
            f = match forward {
                true => forward_derivative(module, requests, f),
                false => crate::autodiff::rev::backward_derivative(module, requests, f),
            }
            .or_else(|m| self.error(m))?;
        }
        let mut all: Vec<CallArg> = Vec::new();
        if let (true, Some(r)) = (implicit_this, receiver) {
            let this = self.m.module.function(f).params.first().map(|p| (p.ty, p.dir));
            let Some((this_ty, ParamDir::In)) = this else {
                return self.error("`fwd_diff` of a `[mutating]` method needs the type's method and a pair for `this`");
            };
            let v = match *self.ty(this_ty) {
                // The receiver, with a zero derivative.
                Type::DifferentialPair { primal, diff } => {
                    let p = self.arg_value(r, primal)?;
                    let d = self.zero(diff)?;
                    self.emit(Op::Construct(vec![p, d]), this_ty)
                }
                _ => self.arg_value(r, this_ty)?,
            };
            all.push(CallArg::Value(v));
        }
        all.extend(
            args.iter()
                .enumerate()
                .filter(|&(j, _)| j < offset || !dropped.contains(&((j - offset) as u32)))
                .map(|(_, &a)| CallArg::Expr(a)),
        );
        self.call_function(f, &all)
    }

    /// The built-in function `def` as a function to differentiate `order`
    /// times, its types read from the call's (pair) argument types.
    pub(super) fn builtin_to_differentiate(
        &mut self,
        def: DefId,
        modes: &[bool],
        args: &[ExprId],
        e: ExprId,
    ) -> R<FuncId> {
        let order = modes.len();
        let name = item_of(self.db(), def).and_then(|i| i.name.clone()).unwrap_or_default();
        // `bwd_diff(f)(x…, dOut)`: the primal's arguments, then the
        // result's derivative (whose type is the result's).
        let backward = modes.contains(&false);
        // `sincos(x, out s, out c)`: `void`, so no result derivative (the
        // `out` parameters' come in their place).
        if let ("sincos", [x, _, _]) = (name.as_str(), args) {
            let mut t = self.expr_ty(*x)?;
            for _ in 0..order {
                match *self.ty(t) {
                    Type::DifferentialPair { primal, .. } => t = primal,
                    _ => break,
                }
            }
            return Ok(self.m.sincos_function(t));
        }
        let (args, d_out) = match (backward, args.split_last()) {
            (true, Some((&d, rest))) => (rest, Some(d)),
            _ => (args, None),
        };
        let primal = |this: &mut Self, mut t: TypeId| {
            for _ in 0..order {
                match *this.ty(t) {
                    Type::DifferentialPair { primal, .. } => t = primal,
                    _ => break,
                }
            }
            t
        };
        let Some(i) = Intrinsic::from_name(&name).filter(|i| i.arity() == args.len()) else {
            let operator = if backward { "bwd_diff" } else { "fwd_diff" };
            return self.error(format!("`{operator}` of the built-in function `{name}` is not supported yet"));
        };
        let mut params = Vec::new();
        for &a in args {
            let t = self.expr_ty(a)?;
            params.push(primal(self, t));
        }
        let result = match d_out {
            Some(d) => self.expr_ty(d),
            None => self.expr_ty(e),
        };
        let ret = match result {
            Ok(t) => primal(self, t),
            // Inference may not know a generic built-in's result: that of
            // the element-wise functions is their argument's type.
            Err(_) => match (i, params.first()) {
                (Intrinsic::Dot | Intrinsic::Length | Intrinsic::Distance | Intrinsic::Determinant, Some(&p)) => {
                    let s = self.m.module.types.scalar_of(p).unwrap_or(Scalar::Float);
                    self.t(Type::Scalar(s))
                }
                (Intrinsic::Mul | Intrinsic::Transpose, _) | (_, None) => {
                    return self.error(format!("the result type of `{name}` here is not known"))
                }
                (_, Some(&p)) => p,
            },
        };
        Ok(self.m.intrinsic_function(i, params, ret))
    }

    /// `a + b` (`T.dadd`) or `a * b` for a scalar `a` (`T.dmul`) on
    /// differentials of type `ty`.
    pub(super) fn differential_combine(&mut self, op: BinaryOp, a: ValueId, b: ValueId, ty: TypeId) -> R<ValueId> {
        let block = self.block();
        let mut e =
            crate::autodiff::rules::Emit { types: &mut self.m.module.types, b: &mut self.b, block, span: self.span };
        match e.combine(op, a, b, ty) {
            Some(v) => Ok(v),
            None => self.error(format!("`{}` is not a differential type", self.show(ty))),
        }
    }

    /// The value `v` with its derivative dropped.
    pub(super) fn detach(&mut self, v: ValueId) -> ValueId {
        let t = self.ty_of(v);
        if matches!(self.ty(t), Type::Void) {
            return v;
        }
        self.emit(Op::Detach(v), t)
    }

    /// `DifferentialPair<T>(p, d)`, `diffPair(p, d)`, `diffPair(p)` (a
    /// zero derivative).
    pub(super) fn make_pair(&mut self, primal: TypeId, diff: TypeId, args: &[ExprId], t: TypeId) -> R<ValueId> {
        let (p, d) = match args {
            [p] => (self.expr_expecting(*p, primal)?, self.zero(diff)?),
            [p, d] => (self.expr_expecting(*p, primal)?, self.expr_expecting(*d, diff)?),
            _ => return self.error("a differential pair is built from a primal and a derivative"),
        };
        Ok(self.emit(Op::Construct(vec![p, d]), t))
    }

    /// The core module's autodiff functions: `diffPair`, `detach`,
    /// `updatePrimal`, `updateDiff`, `updatePair`, `__mul_p_d`.
    pub(super) fn autodiff_builtin(&mut self, e: ExprId, name: &str, args: &[ExprId]) -> R<Option<ValueId>> {
        Ok(Some(match (name, args) {
            ("diffPair", _) => {
                let t = self.expr_ty(e)?;
                let Type::DifferentialPair { primal, diff } = *self.ty(t) else { return self.error("not a pair") };
                self.make_pair(primal, diff, args, t)?
            }
            ("__mul_p_d", [a, b]) => {
                // `T.Differential __mul_p_d(T a, T.Differential b)` for a
                // built-in floating-point `T` (its own differential): the
                // product.
                let a = self.expr(*a)?;
                let t = self.ty_of(a);
                let b = self.expr_expecting(*b, t)?;
                self.arith(BinaryOp::Mul, a, b)?
            }
            ("detach", [x]) => {
                let t = self.expr_ty(e)?;
                let v = self.expr_expecting(*x, t)?;
                self.detach(v)
            }
            ("updatePrimal" | "updateDiff" | "updatePair", [pair, rest @ ..]) => {
                let t = self.expr_ty(*pair)?;
                let Type::DifferentialPair { primal, diff } = *self.ty(t) else { return self.error("not a pair") };
                let old = self.expr(*pair)?;
                let (p, d) = match (name, rest) {
                    ("updatePrimal", [p]) => (self.expr_expecting(*p, primal)?, self.emit(Op::Extract(old, 1), diff)),
                    ("updateDiff", [d]) => (self.emit(Op::Extract(old, 0), primal), self.expr_expecting(*d, diff)?),
                    ("updatePair", [p, d]) => (self.expr_expecting(*p, primal)?, self.expr_expecting(*d, diff)?),
                    _ => return self.error(format!("wrong arguments for `{name}`")),
                };
                let new = self.emit(Op::Construct(vec![p, d]), t);
                self.assign_to(*pair, new)?;
                new
            }
            _ => return Ok(None),
        }))
    }
}
