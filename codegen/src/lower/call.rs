//! Calls: resolving the callee (functions, methods, initializers,
//! overloads, generic instances), default arguments, and passing
//! arguments (`out`/`inout` copy-in/copy-out).

use super::*;

impl FnLower<'_, '_> {
    /// A call. One through a requirement of an interface (`T.ladd(a, b)`
    /// in generic code, `obj.f(x)` on an interface value) passes
    /// derivatives as the requirement declares, whatever the conforming
    /// type's method does: its arguments for parameters that are not
    /// differentiable there (`This` of an interface that is not
    /// `IDifferentiable`), and its result when the result's type is not,
    /// carry none; none at all when the requirement is not
    /// differentiable. (Specialization resolves the callee to the
    /// conforming type's method, so the requirement is the one the
    /// function's generic body calls.)
    pub(super) fn call(&mut self, e: ExprId, callee: ExprId, args: &[ExprId]) -> R<ValueId> {
        let Some(req) = self.requirement_called(callee, args.len()) else {
            let v = self.call_resolved(e, callee, args)?;
            self.call_values.insert(e, v);
            return Ok(v);
        };
        let (params, this, ret) = requirement_diff(self.db(), req);
        let receiver = match self.body.expr(callee) {
            Expr::Member { receiver, .. } if !this => Some(*receiver),
            _ => None,
        };
        let detach: Vec<ExprId> = args
            .iter()
            .zip(params.iter().chain(std::iter::repeat(&true)))
            .filter(|(_, &d)| !d)
            .map(|(&a, _)| a)
            .chain(receiver)
            .filter(|a| self.detached.insert(*a))
            .collect();
        let r = self.call_resolved(e, callee, args);
        for a in detach {
            self.detached.remove(&a);
        }
        let v = r?;
        self.call_values.insert(e, v);
        Ok(if ret { v } else { self.detach(v) })
    }

    /// The interface requirement callee `callee` names in the function's
    /// generic body, for a call with `arity` arguments.
    fn requirement_called(&self, callee: ExprId, arity: usize) -> Option<DefId> {
        let db = self.db();
        let generic = infer::infer(db, self.def);
        let Some(Ty::Func(defs)) = generic.expr_types.get(callee.0 as usize) else { return None };
        defs.iter().copied().find(|&d| {
            parent_of(db, d).and_then(|p| item_of(db, p)).is_some_and(|i| i.kind == ItemKind::Interface)
                && fn_sig(db, d).params.len() == arity
        })
    }

    pub(super) fn call_resolved(&mut self, e: ExprId, callee: ExprId, args: &[ExprId]) -> R<ValueId> {
        let callee_ty = self.inferred.type_of(callee);
        let expr_args: Vec<CallArg> = args.iter().map(|&a| CallArg::Expr(a)).collect();
        let core = slang_analysis::core_files(self.db());
        let user_defs = |defs: &[DefId]| -> Vec<DefId> {
            defs.iter().copied().filter(|d| !core.contains(&d.file(self.db()))).collect()
        };
        match (self.body.expr(callee).clone(), callee_ty) {
            (_, Ty::TypeValue(t)) => {
                if let Some(f) = self.initializer(&t, args)? {
                    let expr_args = self.without_buffer_args(f, expr_args);
                    return self.call_function(f, &expr_args);
                }
                let at = self.span;
                let coopvec = coopvec::coopvec_parts(self.db(), &t).is_some();
                let t = self.m.lower_ty(&t, at)?;
                if coopvec {
                    return self.coopvec_construct(t, args);
                }
                self.construct(t, args)
            }
            (Expr::Path(segs, _), Ty::Func(defs)) => {
                let name = segs.last().map(|s| s.name.clone()).unwrap_or_default();
                let user = user_defs(&defs);
                if user.is_empty() {
                    if name == "createDynamicObject" {
                        return self.create_dynamic_object(e, args);
                    }
                    return self.intrinsic(e, &name, args);
                }
                let def = self.pick_overload(&user, args, &name)?;
                // `S::f(…)`, or a method of `this`'s type named alone.
                let owner = match segs.split_last() {
                    Some((_, prefix)) if !prefix.is_empty() => self.ctx.resolve(&TypeRef::Path(prefix.to_vec())),
                    _ => self.ctx.this.clone(),
                };
                let requirement = parent_of(self.db(), def)
                    .and_then(|p| item_of(self.db(), p))
                    .is_some_and(|i| i.kind == ItemKind::Interface);
                if let (true, true, Some(this)) = (requirement, self.is_interface_value(&owner), self.this_ptr()) {
                    // A requirement named alone in a method of a blanket
                    // extension (`extension<T : I> T`) of an interface
                    // value: dispatched on `this`.
                    let generics = match fn_sig(self.db(), def).generic_params.is_empty() {
                        true => Vec::new(),
                        false => self.instance(def, &owner, &[], args, 0)?.args,
                    };
                    let paths = self.m.resource_fields(&owner);
                    let held = self.bound_under(this, "", paths);
                    let f = self.m.dispatch_function(&owner, def, &generics, &held, self.span)?;
                    let all: Vec<CallArg> = std::iter::once(CallArg::Place(this)).chain(expr_args).collect();
                    return self.call_function(f, &all);
                }
                let explicit = segs.last().map(|s| s.args.clone()).unwrap_or_default();
                let mut inst = self.instance(def, &owner, &explicit, args, 0)?;
                if is_instance_method(self.db(), def) {
                    let root = self.this_ptr().map(|t| (t, String::new()));
                    self.this_resources(&mut inst, root, &owner);
                }
                let f = self.m.declare_function(inst, false)?;
                let expr_args = self.without_buffer_args(f, expr_args);
                let mut all = Vec::new();
                if is_instance_method(self.db(), def) {
                    match self.this_ptr() {
                        Some(this) => all.push(CallArg::Place(this)),
                        None => return self.error(format!("`{name}` needs an instance")),
                    }
                }
                all.extend(expr_args);
                all.extend(self.default_args(def, args.len())?);
                self.call_function(f, &all)
            }
            (_, Ty::DiffFunc { defs, modes }) => self.derivative_call(e, callee, &defs, &modes, args),
            (Expr::Member { receiver, name, generic_args, .. }, Ty::Func(defs)) if !user_defs(&defs).is_empty() => {
                self.method_of(receiver, &name, &generic_args, &user_defs(&defs), args)
            }
            // A functor called (`f(x)` of a struct or interface value): its
            // `operator()`.
            (_, Ty::Adt { def, args: targs, .. }) => {
                match slang_analysis::infer::lookup_member(self.db(), def, &targs, "operator()") {
                    Some(slang_analysis::infer::Member::Methods(ops)) => {
                        self.method_of(callee, "operator()", &[], &ops, args)
                    }
                    _ => self.error("this value is not callable (it has no `operator()`)"),
                }
            }
            (Expr::Member { receiver, name, .. }, _) => self.method_call(e, receiver, &name, args),
            _ => self.error("this call is not supported by code generation yet"),
        }
    }

    /// A call of the method `name` (overloads `defs`) on `receiver`: on an
    /// interface value through its dispatch function, else the instance
    /// of the receiver type's method (`S.f(…)` of a static method).
    fn method_of(
        &mut self,
        receiver: ExprId,
        name: &str,
        generic_args: &[hir::GenericArgRef],
        defs: &[DefId],
        args: &[ExprId],
    ) -> R<ValueId> {
        let expr_args: Vec<CallArg> = args.iter().map(|&a| CallArg::Expr(a)).collect();
        let receiver_ty = self.inferred.type_of(receiver);
        let def = self.pick_overload_of(defs, args, name, Some(&receiver_ty))?;
        let requirement = parent_of(self.db(), def)
            .and_then(|p| item_of(self.db(), p))
            .is_some_and(|i| i.kind == ItemKind::Interface);
        if self.is_interface_value(&receiver_ty) && requirement {
            // Dynamic dispatch on an interface-typed value.
            let at = self.span;
            // A generic requirement: its own generic arguments,
            // from the explicit ones and the argument types.
            let generics = if fn_sig(self.db(), def).generic_params.is_empty() {
                Vec::new()
            } else {
                self.instance(def, &receiver_ty, generic_args, args, 0)?.args
            };
            let held = self.receiver_resources(receiver, &receiver_ty);
            let f = self.m.dispatch_function(&receiver_ty, def, &generics, &held, at)?;
            let all: Vec<CallArg> = std::iter::once(CallArg::Expr(receiver)).chain(expr_args).collect();
            return self.call_function(f, &all);
        }
        let (owner, this) = match receiver_ty {
            // `S.staticMethod(…)`.
            Ty::TypeValue(t) => ((*t).clone(), None),
            t => (t, is_instance_method(self.db(), def).then_some(CallArg::Expr(receiver))),
        };
        let mut inst = self.instance(def, &owner, generic_args, args, 0)?;
        if this.is_some() {
            let root = self.struct_root(receiver);
            self.this_resources(&mut inst, root, &owner);
        }
        let f = self.m.declare_function(inst, false)?;
        let expr_args = self.without_buffer_args(f, expr_args);
        let mut all: Vec<CallArg> = this.into_iter().chain(expr_args).collect();
        all.extend(self.default_args(def, args.len())?);
        self.call_function(f, &all)
    }

    /// The instance of `def` a call makes: the generic arguments of its
    /// type from `owner` (the receiver's type), its own from the explicit
    /// ones and the argument types (those of the primal arguments, for a
    /// derivative of order `order`).
    pub(super) fn instance_of(
        &mut self,
        def: DefId,
        owner: &Ty,
        explicit: &[hir::GenericArgRef],
        args: &[ExprId],
        order: usize,
    ) -> R<FuncId> {
        let inst = self.instance(def, owner, explicit, args, order)?;
        self.m.declare_function(inst, false)
    }

    /// The instance [`Self::instance_of`] declares.
    pub(super) fn instance(
        &mut self,
        def: DefId,
        owner: &Ty,
        explicit: &[hir::GenericArgRef],
        args: &[ExprId],
        order: usize,
    ) -> R<Instance> {
        let db = self.m.db;
        let mut bindings = match (owner, owner_struct(db, def)) {
            (Ty::Adt { def: o, .. }, Some(s)) if *o == s => infer::receiver_bindings(db, def, owner),
            // (`extension<T : I> T`: `T` is the receiver's type.)
            _ if blanket_method(db, def) => infer::receiver_bindings(db, def, owner),
            _ => HashMap::new(),
        };
        if !fn_sig(db, def).generic_params.is_empty() {
            let explicit: Vec<Ty> = explicit
                .iter()
                .map(|a| match a {
                    hir::GenericArgRef::Type(t) => self.ctx.resolve(t),
                    hir::GenericArgRef::Value(Some(v)) => Ty::Const(*v),
                    hir::GenericArgRef::Value(None) => Ty::Unknown,
                })
                .collect();
            let arg_tys: Vec<Ty> = args
                .iter()
                .map(|a| {
                    let mut t = self.inferred.type_of(*a);
                    for _ in 0..order {
                        match t {
                            // (A pointer-like argument's pair too.)
                            Ty::Adt { name, args, .. }
                                if (name == "DifferentialPair" || name == "DifferentialPtrPair") && args.len() == 1 =>
                            {
                                t = args[0].clone()
                            }
                            _ => break,
                        }
                    }
                    t
                })
                .collect();
            bindings.extend(call_bindings(db, def, &arg_tys, &explicit));
        }
        let mut inst = Instance::new(db, def, &bindings);
        let mut ctx = DeclCtx::specialized(db, def, &bindings);
        for (i, p) in fn_sig(db, def).params.iter().enumerate() {
            let pty = ctx.resolve(&p.ty);
            let Some(&arg) = args.get(i) else { continue };
            if globals::resource_of(&pty).is_some() {
                let g = self.resource_global(arg)?;
                inst.resources.push((i as u32, String::new(), g));
            } else {
                self.struct_resources_of(&mut inst, i as u32, arg, &pty)?;
            }
        }
        Ok(inst)
    }

    /// The `__init` a constructor call `T(args)` of a struct with
    /// initializers runs (`None`: other types, and member-wise
    /// construction).
    pub(super) fn initializer(&mut self, t: &Ty, args: &[ExprId]) -> R<Option<FuncId>> {
        match self.initializer_def(t, args)? {
            Some(init) => self.instance_of(init, t, &[], args, 0).map(Some),
            None => Ok(None),
        }
    }

    /// The `__init` of the user struct `t` a call `T(args)` calls, if it
    /// has any.
    pub(super) fn initializer_def(&mut self, t: &Ty, args: &[ExprId]) -> R<Option<DefId>> {
        let db = self.db();
        let Ty::Adt { def, .. } = t else { return Ok(None) };
        if slang_analysis::core_files(db).contains(&def.file(db)) {
            return Ok(None);
        }
        let inits: Vec<DefId> = item_of(db, *def)
            .iter()
            .flat_map(|i| i.members.iter())
            .filter(|m| m.kind == ItemKind::Init)
            .map(|m| DefId::new(db, def.file(db), m.ast_index))
            .collect();
        if inits.is_empty() {
            return Ok(None);
        }
        self.pick_overload_of(&inits, args, "__init", Some(t)).map(Some)
    }

    /// The `__init()` without parameters of the user struct `t`, which a
    /// local `T t;` declared without a value runs.
    pub(super) fn default_initializer(&mut self, t: &Ty) -> R<Option<FuncId>> {
        let db = self.db();
        let Ty::Adt { def, .. } = t else { return Ok(None) };
        if slang_analysis::core_files(db).contains(&def.file(db)) {
            return Ok(None);
        }
        let init = item_of(db, *def)
            .iter()
            .flat_map(|i| i.members.iter())
            .filter(|m| m.kind == ItemKind::Init)
            .map(|m| DefId::new(db, def.file(db), m.ast_index))
            .find(|&d| fn_sig(db, d).params.is_empty());
        match init {
            Some(init) => self.instance_of(init, t, &[], &[], 0).map(Some),
            None => Ok(None),
        }
    }

    pub(super) fn pick_overload(&mut self, defs: &[DefId], args: &[ExprId], name: &str) -> R<DefId> {
        self.pick_overload_of(defs, args, name, None)
    }

    /// [`Self::pick_overload`] among the members of `owner` (a type whose
    /// generic arguments bind the members' parameter types: `__init(T[N])`
    /// of `V<float, 3>` takes a `float[3]`).
    pub(super) fn pick_overload_of(
        &mut self,
        defs: &[DefId],
        args: &[ExprId],
        name: &str,
        owner: Option<&Ty>,
    ) -> R<DefId> {
        let db = self.db();
        let mut arity: Vec<DefId> = defs.iter().copied().filter(|&d| fn_sig(db, d).takes(args.len())).collect();
        if arity.is_empty() {
            // Trailing parameters with default values left out.
            arity = defs
                .iter()
                .copied()
                .filter(|&d| {
                    let sig = fn_sig(db, d);
                    sig.params.len() > args.len() && sig.has_defaults[args.len()..].iter().all(|&h| h)
                })
                .collect();
        }
        let arg_tys: Vec<Ty> = args.iter().map(|a| self.inferred.type_of(*a)).collect();
        let bindings = owner.map(|o| generic_bindings(db, o)).unwrap_or_default();
        // Prefer the overload whose parameter types match the most
        // arguments exactly, then the most up to generic parameters.
        let score = |d: DefId| {
            let mut ctx = DeclCtx::specialized(db, d, &bindings);
            let params: Vec<Ty> = fn_sig(db, d).params.iter().map(|p| ctx.resolve(&p.ty)).collect();
            let exact = params.iter().zip(&arg_tys).filter(|(p, a)| *p == *a).count();
            let loose = params.iter().zip(&arg_tys).filter(|(p, a)| loosely_matches(p, a)).count();
            (exact, loose)
        };
        let best = arity.iter().copied().max_by_key(|&d| score(d));
        match best {
            Some(d) => Ok(d),
            None => self.error(format!("no overload of `{name}` takes {} arguments", args.len())),
        }
    }

    /// The default values of `def`'s parameters after the first `given`
    /// (constants: literals and constructors of them).
    pub(super) fn default_args(&mut self, def: DefId, given: usize) -> R<Vec<CallArg>> {
        let db = self.m.db;
        let sig = fn_sig(db, def).clone();
        let mut out = Vec::new();
        // (A pack parameter takes what is left, maybe nothing.)
        let fixed = (0..sig.params.len()).find(|&i| sig.is_pack_param(i)).unwrap_or(sig.params.len());
        for hp in sig.params[..fixed].iter().skip(given) {
            let Some(value) = hp.default else {
                return self.error("a parameter without a default value is missing");
            };
            let pt = DeclCtx::for_def(db, def).resolve(&hp.ty);
            let at = expr_range(db, def, value).map(|r| r.0);
            let t = self.m.lower_ty(&pt, at)?;
            match self.m.const_value(def, value, t) {
                Ok(c) => out.push(CallArg::Value(self.const_to_value(&c, t))),
                Err(_) => {
                    // Computed by a function of its own, called here.
                    if !sig.generic_params.is_empty() {
                        return err(at, "a default value of a generic function that is not a constant is not supported by code generation yet");
                    }
                    let k = sig.params.iter().position(|q| std::ptr::eq(q, hp)).expect("a parameter of the function");
                    let f = self.m.default_function(def, k, t, at)?;
                    let v = self.emit(Op::Call(f, Vec::new()), t);
                    out.push(CallArg::Value(v));
                }
            }
        }
        Ok(out)
    }

    /// `pair.getPrimal()`, `pair.getDifferential()`, `T.dzero()`,
    /// `T.dadd(a, b)`, `T.dmul(s, a)`.
    pub(super) fn method_call(&mut self, e: ExprId, receiver: ExprId, name: &str, args: &[ExprId]) -> R<ValueId> {
        if let Some(v) = self.coopvec_method(e, receiver, name, args)? {
            return Ok(v);
        }
        let receiver_ty = self.inferred.type_of(receiver);
        // `T.Differential.dzero()`, `.dadd(a, b)`: the differential is its
        // own differential.
        if let (Expr::Member { receiver: of, name: member, .. }, "dzero" | "dadd" | "dmul") =
            (self.body.expr(receiver).clone(), name)
        {
            if let (Some(Ty::TypeValue(t)), "Differential") =
                (self.inferred.expr_types.get(of.0 as usize).cloned(), member.as_str())
            {
                let at = self.span;
                let t = self.m.lower_ty(&t, at)?;
                let Some(d) = self.m.module.types.differential(t) else {
                    return self.error(format!("`{}` is not differentiable", self.show(t)));
                };
                return match (name, args) {
                    ("dzero", []) => self.zero(d),
                    ("dadd", [a, b]) => {
                        let (x, y) = (self.expr_expecting(*a, d)?, self.expr_expecting(*b, d)?);
                        self.differential_combine(BinaryOp::Add, x, y, d)
                    }
                    ("dmul", [a, b]) => {
                        let (s, y) = (self.expr(*a)?, self.expr_expecting(*b, d)?);
                        self.differential_combine(BinaryOp::Mul, s, y, d)
                    }
                    _ => self.error(format!("wrong arguments for `{name}`")),
                };
            }
        }
        match (receiver_ty, name, args) {
            (Ty::TypeValue(t), "dzero", []) => {
                let at = self.span;
                let t = self.m.lower_ty(&t, at)?;
                match self.m.module.types.differential(t) {
                    Some(d) => self.zero(d),
                    None => self.error(format!("`{}` is not differentiable", self.show(t))),
                }
            }
            (Ty::TypeValue(t), "dadd" | "dmul", [a, b]) => {
                let at = self.span;
                let t = self.m.lower_ty(&t, at)?;
                let Some(d) = self.m.module.types.differential(t) else {
                    return self.error(format!("`{}` is not differentiable", self.show(t)));
                };
                let y = self.expr_expecting(*b, d)?;
                if name == "dadd" {
                    let x = self.expr_expecting(*a, d)?;
                    self.differential_combine(BinaryOp::Add, x, y, d)
                } else {
                    let s = self.expr(*a)?;
                    self.differential_combine(BinaryOp::Mul, s, y, d)
                }
            }
            // `T.Differential(…)`: the synthesized differential's
            // memberwise constructor.
            (Ty::TypeValue(t), "Differential", args) => {
                let at = self.span;
                let t = self.m.lower_ty(&t, at)?;
                let Some(d) = self.m.module.types.differential(t) else {
                    return self.error(format!("`{}` is not differentiable", self.show(t)));
                };
                self.construct(d, args)
            }
            (Ty::Adt { name: n, .. }, "getPrimal" | "getDifferential", []) if n == "DifferentialPair" => {
                let pair = self.expr(receiver)?;
                let Type::DifferentialPair { primal, diff } = *self.ty(self.ty_of(pair)) else {
                    return self.error("not a differential pair");
                };
                let (index, t) = if name == "getPrimal" { (0, primal) } else { (1, diff) };
                Ok(self.emit(Op::Extract(pair, index), t))
            }
            // `T.getPi()` of a floating-point type (a generic parameter
            // bound to one).
            (Ty::TypeValue(t), "getPi", []) if matches!(*t, Ty::Scalar(s) if s.is_float()) => {
                let at = self.span;
                let t = self.m.lower_ty(&t, at)?;
                Ok(self.float_like(std::f64::consts::PI, t))
            }
            // `F.Value(…)`: constructing a type named through another
            // (an associated type of a generic parameter, say).
            (Ty::TypeValue(_), _, _) if matches!(self.body.expr(receiver), Expr::Path(..)) => {
                let Expr::Path(mut segs, _) = self.body.expr(receiver).clone() else { unreachable!("a path") };
                segs.push(hir::PathSegment { name: name.to_string(), args: Vec::new() });
                match self.ctx.resolve(&TypeRef::Path(segs)) {
                    Ty::Unknown | Ty::Assoc(..) | Ty::Param { .. } => {
                        self.error(format!("`{name}` is not a type or method that code generation knows here"))
                    }
                    t => {
                        let at = self.span;
                        let t = self.m.lower_ty(&t, at)?;
                        self.construct(t, args)
                    }
                }
            }
            // `arr.getCount()` of a fixed-size array (an `int`).
            (Ty::Array(_, Some(n)), "getCount", []) => {
                let t = self.t(Type::Scalar(Scalar::Int32));
                Ok(self.konst(Const::Int(n as i64), t))
            }
            (Ty::Scalar(_) | Ty::Vector(..), _, _) if self.numeric_method(name, args.len()) => {
                self.numeric_method_call(e, receiver, name, args)
            }
            _ => match self.buffer_method(e, receiver, name, args)? {
                Some(v) => Ok(v),
                None => match self.texture_method(e, receiver, name, args)? {
                    Some(v) => Ok(v),
                    None => self.error("method calls are not supported by code generation yet"),
                },
            },
        }
    }

    /// The methods the core interfaces (`IArithmetic`, `IFloat`,
    /// `IInteger`, `IComparable`) give numbers, which generic code calls.
    pub(super) fn numeric_method(&self, name: &str, arity: usize) -> bool {
        matches!(
            (name, arity),
            ("toFloat" | "toInt" | "toUInt" | "toInt64" | "toUInt64" | "toHalf" | "toDouble" | "neg", 0)
                | ("add" | "sub" | "mul" | "div" | "mod" | "lessThan" | "lessThanOrEquals" | "equals", 1)
        )
    }

    /// `x.toFloat()`, `x.add(y)`, `x.lessThan(y)` … on a number.
    pub(super) fn numeric_method_call(
        &mut self,
        e: ExprId,
        receiver: ExprId,
        name: &str,
        args: &[ExprId],
    ) -> R<ValueId> {
        let x = self.expr(receiver)?;
        let xt = self.ty_of(x);
        // (The analysis may not type these calls in generic code.)
        let result = match self.expr_ty(e) {
            Ok(t) => t,
            Err(_) => {
                let s = match name {
                    "toFloat" => Some(Scalar::Float),
                    "toHalf" => Some(Scalar::Half),
                    "toDouble" => Some(Scalar::Double),
                    "toInt" => Some(Scalar::Int32),
                    "toUInt" => Some(Scalar::UInt32),
                    "toInt64" => Some(Scalar::Int64),
                    "toUInt64" => Some(Scalar::UInt64),
                    "lessThan" | "lessThanOrEquals" | "equals" => Some(Scalar::Bool),
                    _ => None,
                };
                match s {
                    Some(s) => self.with_scalar(xt, s),
                    None => xt,
                }
            }
        };
        let binary = |op: BinaryOp, this: &mut Self| -> R<ValueId> {
            let y = this.expr_expecting(args[0], xt)?;
            let v = this.arith(op, x, y)?;
            this.coerce(v, result)
        };
        match name {
            "add" => binary(BinaryOp::Add, self),
            "sub" => binary(BinaryOp::Sub, self),
            "mul" => binary(BinaryOp::Mul, self),
            "div" => binary(BinaryOp::Div, self),
            "mod" => binary(BinaryOp::Rem, self),
            "lessThan" => binary(BinaryOp::Lt, self),
            "lessThanOrEquals" => binary(BinaryOp::Le, self),
            "equals" => binary(BinaryOp::Eq, self),
            "neg" => Ok(self.emit(Op::Unary(UnaryOp::Neg, x), xt)),
            // Conversions.
            _ => self.coerce(x, result),
        }
    }

    /// The value of a call argument, as type `t`.
    pub(super) fn arg_value(&mut self, a: CallArg, t: TypeId) -> R<ValueId> {
        match a {
            CallArg::Expr(e) => self.expr_expecting(e, t),
            CallArg::Place(p) => {
                let v = self.load(p);
                self.coerce(v, t)
            }
            CallArg::Value(v) => self.coerce(v, t),
        }
    }

    pub(super) fn call_function(&mut self, f: FuncId, args: &[CallArg]) -> R<ValueId> {
        if let Some((_, name)) = self.m.lowering.iter().find(|l| l.0 == f) {
            return self.error(format!("recursion: `{name}` calls itself, and GPU targets do not allow recursion"));
        }
        let params = self.m.module.function(f).params.clone();
        let ret = self.m.module.function(f).ret;
        if params.len() != args.len() {
            return self.error(format!("{} arguments for {} parameters", args.len(), params.len()));
        }
        let mut values = Vec::new();
        // Copy-out after the call: (temporary, argument).
        let mut copy_out = Vec::new();
        for (p, &a) in params.iter().zip(args) {
            match p.dir {
                ParamDir::In => values.push(self.arg_value(a, p.ty)?),
                ParamDir::Out | ParamDir::InOut => {
                    let (t, _) = self.m.module.types.pointee(p.ty).expect("out parameters are pointers");
                    let tmp = self.var(t);
                    if p.dir == ParamDir::InOut {
                        let v = self.arg_value(a, t)?;
                        self.store(tmp, v);
                    }
                    values.push(tmp);
                    copy_out.push((tmp, a));
                }
            }
        }
        let result = self.emit(Op::Call(f, values), ret);
        for (tmp, a) in copy_out {
            let mut v = self.load(tmp);
            if self.no_diff {
                v = self.detach(v);
            }
            match a {
                CallArg::Expr(a) => {
                    let at = self.expr_ty(a)?;
                    let v = self.coerce(v, at)?;
                    self.assign_to(a, v)?;
                }
                CallArg::Place(p) => self.store(p, v),
                CallArg::Value(_) => {}
            }
        }
        Ok(result)
    }
}

/// How derivatives pass through interface requirement `req`: per
/// parameter, for the receiver of a method, and for the result (types
/// whose differentiability cannot be told count as differentiable).
fn requirement_diff(db: &dyn Db, req: DefId) -> (Vec<bool>, bool, bool) {
    use slang_analysis::autodiff::{derivative_signature, fn_differentiability, Differentiability, Mode, TypeDiff};
    let file = req.file(db);
    if fn_differentiability(db, file, req) == Differentiability::No {
        return (vec![false; fn_sig(db, req).params.len()], false, false);
    }
    let sig = derivative_signature(db, req, Mode::Forward);
    let params = sig.params.iter().map(|p| p.diff != TypeDiff::No).collect();
    let this = sig.this_param.is_some_and(|p| p.diff != TypeDiff::No);
    let ret_ty = DeclCtx::for_def(db, req).resolve(&fn_sig(db, req).ret);
    let ret = slang_analysis::autodiff::type_diff(db, file, &ret_ty) != TypeDiff::No;
    (params, this, ret)
}

/// The generic parameters of the struct `ty` names, bound to its
/// arguments (empty for other types).
fn generic_bindings(db: &dyn Db, ty: &Ty) -> HashMap<String, Ty> {
    let Ty::Adt { def, args, .. } = ty else { return HashMap::new() };
    let Some(item) = item_of(db, *def) else { return HashMap::new() };
    item.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect()
}

/// Whether an argument of type `arg` fits a parameter of type `param`,
/// generic parameters (and array sizes not known) fitting anything.
fn loosely_matches(param: &Ty, arg: &Ty) -> bool {
    match (param, arg) {
        (Ty::Param { .. } | Ty::Assoc(..) | Ty::Unknown, _) => true,
        (Ty::Array(p, pn), Ty::Array(a, an)) => (pn.is_none() || pn == an) && loosely_matches(p, a),
        (Ty::Adt { def: pd, args: pa, .. }, Ty::Adt { def: ad, args: aa, .. }) => {
            pd == ad && pa.len() == aa.len() && pa.iter().zip(aa).all(|(p, a)| loosely_matches(p, a))
        }
        (Ty::Vector(ps, pn), Ty::Vector(as_, an)) => ps == as_ && pn == an,
        _ => param == arg,
    }
}
