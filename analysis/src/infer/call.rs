//! Calls: overload resolution over the candidates ([`Infer::instantiate`]
//! binds generic parameters and ranks conversions), ambiguity, constraint
//! violations, argument checks (`out` arguments need l-values) and calls of
//! `[mutating]` methods on values that cannot change.

use super::*;

/// `name(float a, int b)`: a function's parameter list as written, for
/// candidate lists.
/// The cost of passing `actual` to parameter `p` of type `expected`: a
/// conversion into an `out`/`inout` parameter (a copy in and back out)
/// ranks below any conversion of a value (slangc picks
/// `f(inout uint, uint)` over `f(inout int, int)` for `(uint, int)`).
fn param_cost(p: &crate::hir::Param, expected: &Ty, actual: &Ty) -> u32 {
    let c = conversion_cost(expected, actual);
    if p.is_out {
        c * 10
    } else {
        c
    }
}

fn signature_text(db: &dyn Db, def: DefId, name: &str) -> String {
    let params = crate::hir::decl_syntax(db, def)
        .and_then(|n| n.children().find(|c| c.kind() == SyntaxKind::PARAM_LIST))
        .map(|p| p.text().to_string().split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "(…)".to_string());
    format!("{name}{params}")
}

/// Whether `name`, seen from `def`'s file, names only structs or classes
/// that no scalar converts to (not an alias, which may stand for a scalar
/// or vector, nor a type with language support such as `Optional<T>`).
fn is_struct_type_name(db: &dyn Db, def: DefId, name: &str) -> bool {
    let Some(defs) = global_scope(db, def.file(db)).lookup(name) else { return false };
    !defs.is_empty()
        && defs.iter().all(|d| {
            item_of(db, DefId::new(db, d.file, d.ast_index)).is_some_and(|i| {
                matches!(i.kind, ItemKind::Struct | ItemKind::Class)
                    && !i.attr_names().any(|a| a.starts_with("__Builtin"))
                    && !i
                        .members
                        .iter()
                        .any(|m| m.kind == ItemKind::Init && m.attr_names().any(|a| a == "__ImplicitConversion"))
            })
        })
}

impl<'db> Infer<'_, 'db> {
    /// Whether a file of this module declares items through macros (then
    /// overloads and members may exist that this model cannot see).
    pub(super) fn module_has_item_macros(&self) -> bool {
        let db = self.db();
        crate::module_graph::module_of(db, self.ctx.file).iter().any(|&f| item_tree(db, f).has_item_macros)
    }

    /// The core module's functions named like `defs`, user functions
    /// called by a plain name, which shadow them: those that take `count`
    /// arguments (so that a call retried with them does not fall back to
    /// the user's again).
    fn shadowed_core_overloads(&self, callee: ExprId, defs: &[DefId], count: usize) -> Vec<DefId> {
        let db = self.db();
        let Expr::Path(segs, _) = self.body.expr(callee) else { return Vec::new() };
        let [seg] = segs.as_slice() else { return Vec::new() };
        if defs.is_empty() || defs.iter().any(|d| is_core(db, d.file(db))) {
            return Vec::new();
        }
        let scope = global_scope(db, self.ctx.file);
        let core = scope.core.as_ref().and_then(|c| c.names.get(&seg.name));
        core.into_iter()
            .flatten()
            .filter(|d| d.kind == ItemKind::Fn)
            .map(|d| DefId::new(db, d.file, d.ast_index))
            .filter(|&d| {
                let sig = fn_sig(db, d);
                let min = sig.params.len() - sig.has_defaults.iter().filter(|x| **x).count();
                sig.variadic || (min..=sig.params.len()).contains(&count)
            })
            .collect()
    }

    /// Whether a call's arguments include `expand …`.
    fn has_expanded_arg(&self, call: ExprId) -> bool {
        let Expr::Call { args, .. } = self.body.expr(call) else { return false };
        args.iter().any(|a| matches!(self.body.expr(*a), Expr::Expand(_)))
    }

    /// The name a call is written with (`f` in `f(x)`, `m` in `a.m(x)`).
    pub(super) fn callee_name(&self, callee: ExprId) -> String {
        match self.body.expr(callee) {
            Expr::Path(segs, _) => segs.last().map(|s| s.name.clone()).unwrap_or_default(),
            Expr::Member { name, .. } => name.clone(),
            _ => String::new(),
        }
    }

    /// `c.increment()` where `increment` is `[mutating]` and `c` cannot
    /// change (a `let`, a constant, `this` in a method without
    /// `[mutating]`).
    pub(super) fn check_mutating_call(&mut self, id: ExprId, callee: ExprId, defs: &[DefId]) {
        let db = self.db();
        let mutating = |d: &DefId| {
            item_of(db, *d).is_some_and(|i| {
                !i.is_static && (i.has_attr("mutating") || i.modifiers.contains(&crate::item_tree::Modifier::Mutating))
            })
        };
        if defs.is_empty() || !defs.iter().all(mutating) {
            return;
        }
        let (name, why) = match self.body.expr(callee).clone() {
            // Through a pointer: the pointee can change.
            Expr::Member { receiver, .. } if matches!(self.types[receiver.0 as usize], Ty::Pointer(_)) => return,
            Expr::Member { receiver, name, .. } => {
                let why = match self.body.expr(receiver) {
                    Expr::Path(segs, false) if segs.len() == 1 && self.local(&segs[0].name).is_some() => {
                        self.local(&segs[0].name).filter(|l| l.immutable).map(|l| format!("`{}` is immutable", l.name))
                    }
                    _ => self.not_writable(receiver),
                };
                (name, why)
            }
            Expr::Path(segs, false) if segs.len() == 1 && self.local(&segs[0].name).is_none() => {
                let own = matches!(&self.ctx.this, Ty::Adt { def, .. } if parent_of(db, defs[0]) == Some(*def));
                let why = (own && self.this_immutable)
                    .then(|| "`this` cannot change in a method without `[mutating]`".to_string());
                (segs[0].name.clone(), why)
            }
            _ => return,
        };
        if let Some(why) = why {
            self.diags.push(InferDiag { at: DiagAt::Expr(id), kind: InferDiagKind::MutatingOnImmutable { name, why } });
        }
    }

    pub(super) fn call(&mut self, id: ExprId, callee: ExprId, callee_ty: Ty, args: &[Ty]) -> Ty {
        let db = self.db();
        match callee_ty {
            Ty::TypeValue(t) => {
                // A constructor call: through `__init`s if the struct has
                // any, else member-wise (at most one argument per field).
                if let Ty::Adt { def, args: targs, name } = &*t {
                    if is_plain_user_struct(db, *def, targs) && members_fully_known(db, self.ctx.file, *def) {
                        let item = item_of(db, *def);
                        let inits: Vec<DefId> = item
                            .iter()
                            .flat_map(|i| i.members.iter())
                            .filter(|m| m.kind == ItemKind::Init)
                            .map(|m| DefId::new(db, def.file(db), m.ast_index))
                            .collect();
                        if !inits.is_empty() {
                            let reachable = inits.iter().any(|&i| {
                                let vis = item_of(db, i).map_or(Visibility::Public, |it| it.visibility);
                                accessible(db, self.def, i, vis)
                            });
                            if !reachable {
                                self.diags.push(InferDiag {
                                    at: DiagAt::Expr(callee),
                                    kind: InferDiagKind::Inaccessible {
                                        what: format!("{name}.init"),
                                        visibility: visibility_word(
                                            db,
                                            def.file(db),
                                            item_of(db, inits[0]).map_or(Visibility::Public, |it| it.visibility),
                                        ),
                                    },
                                });
                            }
                            self.call(id, callee, Ty::Func(inits), args);
                        } else {
                            let fields = item
                                .iter()
                                .flat_map(|i| i.members.iter())
                                .filter(|m| m.kind == ItemKind::Var && !m.is_static)
                                .count();
                            if args.len() > fields {
                                self.diags.push(InferDiag {
                                    at: DiagAt::Expr(id),
                                    kind: InferDiagKind::ArgCount {
                                        name: name.clone(),
                                        expected: format!("at most {fields}"),
                                        found: args.len(),
                                    },
                                });
                            }
                        }
                    }
                }
                (*t).clone()
            }
            // `f(expand each t)` with a tuple `t`: as many arguments as
            // `t` has elements (not modelled).
            Ty::Func(_) if self.has_expanded_arg(id) => Ty::Unknown,
            Ty::Func(defs) => {
                let arity_ok = |sig: &FnSig| {
                    let max = sig.params.len();
                    let min = max - sig.has_defaults.iter().filter(|d| **d).count();
                    sig.variadic || (min..=max).contains(&args.len())
                };
                let candidates: Vec<DefId> = defs.iter().copied().filter(|d| arity_ok(fn_sig(db, *d))).collect();
                // A user function named like a core-module one overloads
                // it (`float mul(S a, float2 v)` calling `mul(a.v, v)`):
                // when no user overload takes the arguments, the core ones.
                let core = self.shadowed_core_overloads(callee, &defs, args.len());
                if let ([only], true, true) = (candidates.as_slice(), defs.len() == 1, core.is_empty()) {
                    self.check_args(*only, callee, args);
                }
                let Some(&chosen) = candidates.first() else {
                    if !core.is_empty() {
                        return self.call(id, callee, Ty::Func(core), args);
                    }
                    // A method's name called unqualified, with arguments
                    // that fit a free function of the same name (the
                    // reference compiler considers both).
                    if let Expr::Path(segs, _) = self.body.expr(callee) {
                        if let [seg] = segs.as_slice() {
                            let free: Vec<DefId> = global_scope(db, self.ctx.file)
                                .lookup(&seg.name)
                                .into_iter()
                                .flatten()
                                .filter(|d| d.kind == ItemKind::Fn)
                                .map(|d| DefId::new(db, d.file, d.ast_index))
                                .filter(|d| !defs.contains(d) && arity_ok(fn_sig(db, *d)))
                                .collect();
                            if !free.is_empty() {
                                return self.call(id, callee, Ty::Func(free), args);
                            }
                        }
                    }
                    // Every overload takes another number of arguments. Only
                    // said for code whose every overload we can see.
                    // The core module's declarations follow the reference
                    // compiler's list, so its functions are checked too.
                    let all_user = true;
                    // Overloads or parameter lists made by macros are not
                    // all visible here.
                    let macro_made = self.module_has_item_macros()
                        || defs.iter().any(|d| {
                            crate::hir::decl_syntax(db, *d)
                                .is_some_and(|n| !n.children().any(|c| c.kind() == SyntaxKind::PARAM_LIST))
                        });
                    if all_user && !defs.is_empty() && !macro_made {
                        let mut counts: Vec<usize> = defs.iter().map(|d| fn_sig(db, *d).params.len()).collect();
                        counts.sort();
                        counts.dedup();
                        let expected = counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" or ");
                        let name = self.callee_name(callee);
                        self.diags.push(InferDiag {
                            at: DiagAt::Expr(id),
                            kind: InferDiagKind::ArgCount { name, expected, found: args.len() },
                        });
                    }
                    return Ty::Unknown;
                };
                let _ = chosen;
                // The return type, if every overload that accepts the
                // arguments agrees on it.
                let explicit = self.explicit_generic_args(callee);
                self.violation = None;
                self.receiver = match self.body.expr(callee) {
                    Expr::Member { receiver, .. } => Some(self.types[receiver.0 as usize].clone()),
                    // (A functor called: itself.)
                    _ => Some(self.types[callee.0 as usize].clone()).filter(|t| matches!(t, Ty::Adt { .. })),
                };
                // (Variadic generic parameters, `each T`, take any number.)
                let variadic = |d: DefId| {
                    crate::hir::decl_syntax(db, d).is_some_and(|n| {
                        n.children().filter(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST).any(|l| {
                            l.descendants_with_tokens().any(|e| e.as_token().is_some_and(|t| t.text() == "each"))
                        })
                    })
                };
                if !explicit.is_empty()
                    && defs.iter().all(|&d| {
                        !is_core(db, d.file(db)) && fn_sig(db, d).generic_params.len() < explicit.len() && !variadic(d)
                    })
                {
                    let most = defs.iter().map(|&d| fn_sig(db, d).generic_params.len()).max().unwrap_or(0);
                    self.diags.push(InferDiag {
                        at: DiagAt::Expr(callee),
                        kind: InferDiagKind::TooManyGenericArgs { expected: most, found: explicit.len() },
                    });
                    return Ty::Unknown;
                }
                let accepted: Vec<(DefId, (Ty, u32))> =
                    candidates.iter().filter_map(|&c| self.instantiate(c, args, &explicit).map(|r| (c, r))).collect();
                self.receiver = None;
                if accepted.is_empty() && !core.is_empty() {
                    return self.call(id, callee, Ty::Func(core), args);
                }
                let rets: Vec<(Ty, u32)> = accepted.iter().map(|(_, r)| r.clone()).collect();
                if accepted.len() >= 2 {
                    self.check_ambiguity(id, callee, &accepted.iter().map(|(d, _)| *d).collect::<Vec<_>>(), args);
                }
                // The cheapest conversions win (Slang's overload ranking, in
                // outline); they must agree on the type.
                let macro_made = self.module_has_item_macros();
                // (With a single overload, `check_args` has said what is wrong.)
                let single = defs.len() == 1 && !is_core(db, defs[0].file(db));
                if let (true, Some((arg, interface))) = (rets.is_empty(), self.violation.take()) {
                    self.diags.push(InferDiag {
                        at: DiagAt::Expr(id),
                        kind: InferDiagKind::NotConforming { arg, interface },
                    });
                } else if rets.is_empty()
                    && !single
                    && !args.is_empty()
                    && !macro_made
                    && args.iter().all(|a| is_concrete(db, a))
                {
                    // No overload accepts these argument types.
                    let name = self.callee_name(callee);
                    let list = args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ");
                    let candidates = defs.iter().map(|&d| signature_text(db, d, &name)).collect();
                    self.diags.push(InferDiag {
                        at: DiagAt::Expr(id),
                        kind: InferDiagKind::NoOverload { name, args: list, candidates },
                    });
                }
                let best = rets.iter().map(|(_, c)| *c).min().unwrap_or(0);
                let mut best_rets = rets.iter().filter(|(_, c)| *c == best).map(|(t, _)| t);
                match best_rets.next() {
                    Some(first) if best_rets.all(|r| r == first) => first.clone(),
                    _ => Ty::Unknown,
                }
            }
            Ty::DiffFunc { defs, modes } => self.call_derivative(id, callee, &defs, &modes, args),
            // A functor (`f(x)` of a struct or interface value, `IFunc`):
            // its `operator()`, with the value as receiver.
            Ty::Adt { def, args: targs, .. } => match lookup_member(db, def, &targs, "operator()") {
                Some(Member::Methods(ops)) => self.call(id, callee, Ty::Func(ops), args),
                _ => Ty::Unknown,
            },
            Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) | Ty::Array(..) => {
                self.diags.push(InferDiag {
                    at: DiagAt::Expr(id),
                    kind: InferDiagKind::NotCallable { ty: callee_ty.to_string() },
                });
                Ty::Unknown
            }
            _ => Ty::Unknown,
        }
    }

    /// `f<float>(x)`, `buf.Load<Record>(0)`: generic arguments written at the
    /// call.
    pub(super) fn explicit_generic_args(&self, callee: ExprId) -> Vec<GenericArgRef> {
        match self.body.expr(callee) {
            Expr::Path(segs, _) => segs.last().map(|s| s.args.clone()).unwrap_or_default(),
            Expr::Member { generic_args, .. } => generic_args.clone(),
            _ => Vec::new(),
        }
    }

    /// The return type of `def` called with `args`, or `None` if `def`
    /// cannot accept them (a parameter type certainly does not match, or
    /// generic parameters bind inconsistently). Unknown when the return type
    /// depends on what this model cannot work out.
    /// The result of the core module's variadic tuple functions:
    /// `makeTuple(a, b)` is a `Tuple<A, B>`, `concat(t, u)` the tuple of
    /// both's elements (`None`: another function, or unknown elements).
    pub(super) fn tuple_call(&self, def: DefId, args: &[Ty]) -> Option<Ty> {
        let db = self.db();
        if !is_core(db, def.file(db)) {
            return None;
        }
        let name = item_of(db, def)?.name.clone()?;
        let elems: Vec<Ty> = match name.as_str() {
            "makeTuple" => args.to_vec(),
            "concat" if args.len() == 2 => {
                let mut all = Vec::new();
                for a in args {
                    match a {
                        Ty::Adt { name, args, .. } if name == "Tuple" => all.extend(args.iter().cloned()),
                        Ty::Tuple(items) => all.extend(items.iter().cloned()),
                        _ => return None,
                    }
                }
                all
            }
            _ => return None,
        };
        if elems.iter().any(|e| e.is_unknown()) {
            return None;
        }
        let tuple = self.ctx.lookup_global("Tuple").into_iter().find(|d| d.kind == ItemKind::Struct)?;
        Some(Ty::Adt { def: DefId::new(db, tuple.file, tuple.ast_index), name: "Tuple".into(), args: elems })
    }

    pub(super) fn instantiate(&mut self, def: DefId, args: &[Ty], explicit: &[GenericArgRef]) -> Option<(Ty, u32)> {
        let db = self.db();
        if let Some(t) = self.tuple_call(def, args) {
            return Some((t, 0));
        }
        let sig = fn_sig(db, def).clone();
        // (`[__elementwise(vector)]`: no matrix form.)
        if sig.no_matrices && args.iter().any(|a| matches!(a, Ty::Matrix(..))) {
            return None;
        }
        let mut ctx = DeclCtx::for_def(db, def);
        // A method called on `x` of type `S<A…>` (or a static one on
        // `S<A…>` itself): `S`'s generic parameters are `A…`
        // (`pair.getPrimal()` of a `DifferentialPair<float3>`).
        let receiver = match &self.receiver {
            Some(Ty::TypeValue(t)) => Some((**t).clone()),
            r => r.clone(),
        };
        if let Some(owner) = &receiver {
            ctx.generics.extend(receiver_bindings(db, def, owner));
            // `This` of a method of generic struct `S<T>` called on an
            // `S<float>`: `S<float>`.
            if matches!((&ctx.this, owner), (Ty::Adt { def: a, .. }, Ty::Adt { def: b, .. }) if a == b) {
                ctx.this = owner.clone();
            }
        }
        let gp = &sig.generic_params;
        // More generic arguments than parameters: not this overload.
        if explicit.len() > gp.len() {
            return None;
        }
        let explicit = explicit.iter().map(|a| match a {
            GenericArgRef::Type(t) => self.ctx.resolve(t),
            GenericArgRef::Value(Some(n)) => Ty::Const(*n),
            GenericArgRef::Value(None) => Ty::Unknown,
        });
        let (bind, ok) = bind_generics(&sig, args, explicit);
        if !ok {
            return None;
        }
        // (An argument for a parameter of a generic type written at the
        // call must convert to that type: `bind_generics` let it through.)
        for (p, a) in sig.params.iter().zip(args) {
            if let TypeRef::Path(segs) = &p.ty {
                if let ([seg], Some(bound @ Ty::Adt { .. })) = (segs.as_slice(), bind.get(&segs[0].name)) {
                    if seg.args.is_empty() && gp.contains(&seg.name) && is_mismatch(db, bound, a) {
                        return None;
                    }
                }
            }
        }
        // A scalar, vector or matrix given for a generic struct `S<T…>` of
        // the function's generic parameters (`exp(CoopVec<T, N>)` called
        // with a `float`): not this overload.
        for (p, a) in sig.params.iter().zip(args) {
            if let (TypeRef::Path(segs), Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..)) = (&p.ty, a) {
                if let [seg] = segs.as_slice() {
                    let named: Vec<&String> = seg
                        .args
                        .iter()
                        .filter_map(|g| match g {
                            GenericArgRef::Type(TypeRef::Path(s)) if s.len() == 1 && gp.contains(&s[0].name) => {
                                Some(&s[0].name)
                            }
                            _ => None,
                        })
                        .collect();
                    let is_builtin_shape = matches!(seg.name.as_str(), "vector" | "matrix");
                    if !is_builtin_shape && !named.is_empty() && is_struct_type_name(db, def, &seg.name) {
                        return None;
                    }
                }
            }
        }
        if let Some(v) = self.broken_constraint(def, &bind) {
            self.violation = Some(v);
            return None;
        }
        for (k, v) in bind {
            if !v.is_unknown() {
                ctx.generics.insert(k, v);
            }
        }
        // A generic struct parameter given a different struct
        // (`Sampler1DArray<T>` given a `Sampler2D<float4>`): not this
        // overload. Aliases resolve first; an interface, or a base the
        // argument's struct inherits from, accepts it.
        for (p, a) in sig.params.iter().zip(args) {
            let Ty::Adt { def: ad, .. } = a else { continue };
            if !type_ref_mentions(&p.ty, gp) {
                continue;
            }
            let Ty::Adt { def: pd, name: pname, .. } = ctx.resolve(&p.ty) else { continue };
            let is_struct = |d: DefId| item_of(db, d).is_some_and(|i| matches!(i.kind, ItemKind::Struct));
            let inherits = crate::hir::decl_syntax(db, *ad).is_some_and(|n| {
                n.children()
                    .filter(|c| c.kind() == SyntaxKind::INHERITANCE_LIST)
                    .any(|l| l.descendants_with_tokens().any(|e| e.as_token().is_some_and(|t| t.text() == pname)))
            });
            if pd != *ad && is_struct(pd) && is_struct(*ad) && !inherits {
                return None;
            }
        }
        let mut cost = 0;
        for (p, a) in sig.params.iter().zip(args) {
            if !type_ref_mentions(&p.ty, gp) {
                let expected = ctx.resolve(&p.ty);
                if is_mismatch(db, &expected, a) && !sig.elementwise {
                    return None;
                }
                // (An element-wise parameter compares with the argument's
                // elements: `int3` for `int` is exact, for `uint` a conversion.)
                let elem = match (sig.elementwise, a) {
                    (true, Ty::Vector(s, _) | Ty::Matrix(s, ..)) if matches!(expected, Ty::Scalar(_)) => Ty::Scalar(*s),
                    _ => a.clone(),
                };
                cost += param_cost(p, &expected, &elem);
            } else {
                // Generic parameters match anything they bind to, at a
                // small cost (a concrete overload is preferred); a scalar
                // promoted to a generic vector or matrix (`dot(v, 1.0)`)
                // is a conversion, so `mul(v, 2.0)` is `mul(vector, T)`.
                cost += 1;
                let promoted = matches!(&p.ty, TypeRef::Path(segs) if segs.len() == 1
                    && matches!(segs[0].name.as_str(), "vector" | "matrix"));
                if promoted && matches!(a, Ty::Scalar(_)) {
                    cost += 1;
                }
            }
        }
        let mut ret = ctx.resolve(&sig.ret);
        // A requirement returning an associated type, called on an
        // interface-typed value: the value's associated type (a type:
        // each value has one).
        let mut dynamic = false;
        if let Some(r @ Ty::Adt { def: owner, .. }) = &receiver {
            if item_of(db, *owner).is_some_and(|i| i.kind == ItemKind::Interface) {
                if let Some(assoc) = super::generics::associated_result(db, def) {
                    let name = item_of(db, assoc).and_then(|i| i.name.clone()).unwrap_or_default();
                    ret = Ty::Assoc(std::sync::Arc::new(r.clone()), name);
                    dynamic = true;
                }
            }
        }
        if ty_is_open(&ret) && !dynamic {
            return Some((Ty::Unknown, cost));
        }
        if sig.elementwise {
            if let Some(s) = ret.scalar() {
                // The shape comes from the arguments of the element type
                // (not from, say, a lane mask); without generic parameters
                // (`asuint(float x)`), from every argument.
                let elem_args = sig.params.iter().zip(args).filter_map(|(p, a)| match &p.ty {
                    TypeRef::Path(segs) if segs.len() == 1 && gp.contains(&segs[0].name) => Some(a),
                    _ if gp.is_empty() => Some(a),
                    _ => None,
                });
                let shape = elem_args.fold(None::<Ty>, |acc, a| match (acc, a) {
                    (None, a) if a.is_numeric() => Some(a.clone()),
                    (Some(acc), a) if a.is_numeric() => broadcast(&acc, a).or(Some(acc)),
                    (acc, _) => acc,
                });
                if let Some(shape) = shape {
                    return Some((shape.with_scalar(s), cost));
                }
            }
        }
        Some((ret, cost))
    }

    /// Report a call whose accepted overloads are each better than another
    /// for some argument (`f(int, float)` and `f(float, int)` for
    /// `(int, int)`). Only for user functions without generic parameters
    /// and fully known argument types.
    pub(super) fn check_ambiguity(&mut self, id: ExprId, callee: ExprId, accepted: &[DefId], args: &[Ty]) {
        let db = self.db();
        if !args.iter().all(|a| is_concrete(db, a)) {
            return;
        }
        let mut costs: Vec<Vec<u32>> = Vec::new();
        for &d in accepted {
            let sig = fn_sig(db, d);
            if is_core(db, d.file(db)) || !sig.generic_params.is_empty() || sig.variadic {
                return;
            }
            let mut ctx = DeclCtx::for_def(db, d);
            let c: Vec<u32> = sig.params.iter().zip(args).map(|(p, a)| param_cost(p, &ctx.resolve(&p.ty), a)).collect();
            costs.push(c);
        }
        // The lowest total cost wins (slangc's `conversionCostSum`); only
        // candidates that tie on it can be ambiguous.
        let least = costs.iter().map(|c| c.iter().sum::<u32>()).min().unwrap_or(0);
        costs.retain(|c| c.iter().sum::<u32>() == least);
        let dominates = |a: &[u32], b: &[u32]| a.iter().zip(b).all(|(x, y)| x <= y);
        let has_best = costs.iter().any(|a| costs.iter().all(|b| dominates(a, b)));
        // Equal cost lists may be told apart by finer rules than this
        // model has; only a real cross-over is reported.
        let crossed = costs.iter().any(|a| costs.iter().any(|b| !dominates(a, b) && !dominates(b, a)));
        if has_best || !crossed {
            return;
        }
        let name = self.callee_name(callee);
        let list = args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ");
        let candidates = accepted.iter().map(|&d| signature_text(db, d, &name)).collect();
        self.diags
            .push(InferDiag { at: DiagAt::Expr(id), kind: InferDiagKind::Ambiguous { name, args: list, candidates } });
    }

    /// A generic argument of `def` (as bound) that certainly does not
    /// conform to its parameter's constraint: (argument, interface).
    pub(super) fn broken_constraint(&self, def: DefId, bind: &HashMap<String, Ty>) -> Option<(String, String)> {
        let db = self.db();
        let item = item_of(db, def)?;
        for g in &item.generic_params {
            let (Some(name), ItemKind::GenericTypeParam) = (&g.name, g.kind) else { continue };
            let Some(bound) = bind.get(name) else { continue };
            let gdef = DefId::new(db, def.file(db), g.ast_index);
            let Some(ifaces) = super::generics::required_interfaces(db, gdef) else { continue };
            for iface in ifaces {
                let iname = item_of(db, iface).and_then(|i| i.name.clone()).unwrap_or_default();
                // Core interfaces a struct must declare to conform to.
                const DECLARED: [&str; 8] = [
                    "IFloat",
                    "IArithmetic",
                    "IInteger",
                    "IDifferentiable",
                    "IComparable",
                    "ILogical",
                    "IRangedValue",
                    "IDifferentiablePtrType",
                ];
                if is_core(db, iface.file(db)) && !DECLARED.contains(&iname.as_str()) {
                    continue;
                }
                if super::generics::certainly_not_conforming(db, self.ctx.file, bound, iface) {
                    return Some((bound.to_string(), iname));
                }
            }
        }
        None
    }

    /// Arguments against the parameters of the only function a call can
    /// mean: types (for non-generic parameters) and `out` arguments.
    pub(super) fn check_args(&mut self, def: DefId, callee: ExprId, args: &[Ty]) {
        let db = self.db();
        if is_core(db, def.file(db)) {
            return;
        }
        let arg_ids: Vec<ExprId> =
            match self.body.exprs.iter().find(|e| matches!(e, Expr::Call { callee: c, .. } if *c == callee)) {
                Some(Expr::Call { args, .. }) => args.clone(),
                _ => return,
            };
        let sig = fn_sig(db, def).clone();
        let mut ctx = DeclCtx::for_def(db, def);
        for ((p, a), &aid) in sig.params.iter().zip(args).zip(&arg_ids) {
            let generic = type_ref_mentions(&p.ty, &sig.generic_params) || !ctx.generics.is_empty();
            if !generic {
                let expected = ctx.resolve(&p.ty);
                self.check_mismatch(DiagAt::Expr(aid), &expected, a);
            }
            if p.is_out && !self.is_lvalue(aid) {
                self.diags.push(InferDiag { at: DiagAt::Expr(aid), kind: InferDiagKind::NotAnLvalue });
            } else if p.is_out && !generic {
                // An `out`/`inout` argument is not converted: a variable of
                // another type would be a temporary.
                let expected = ctx.resolve(&p.ty);
                let db = self.db();
                // (slangc lets a signed and an unsigned integer of one
                // width through.)
                let same_width_ints = |x: Scalar, y: Scalar| {
                    use Scalar::*;
                    matches!(
                        (x, y),
                        (Int8 | UInt8, Int8 | UInt8)
                            | (Int16 | UInt16, Int16 | UInt16)
                            | (Int32 | UInt32, Int32 | UInt32)
                            | (Int64 | UInt64, Int64 | UInt64)
                    )
                };
                let compatible = match (&expected, a) {
                    (Ty::Scalar(x), Ty::Scalar(y)) => same_width_ints(*x, *y),
                    (Ty::Vector(x, n), Ty::Vector(y, m)) => n == m && same_width_ints(*x, *y),
                    _ => false,
                };
                if is_concrete(db, &expected) && is_concrete(db, a) && expected != *a && !compatible {
                    self.diags.push(InferDiag {
                        at: DiagAt::Expr(aid),
                        kind: InferDiagKind::OutArgumentType { expected: expected.to_string(), found: a.to_string() },
                    });
                }
            }
        }
    }

    pub(super) fn is_lvalue(&self, e: ExprId) -> bool {
        match self.body.expr(e) {
            // A `let` or `const` local (or `const` parameter).
            Expr::Path(segs, false) if segs.len() == 1 && self.local(&segs[0].name).is_some_and(|l| l.immutable) => {
                false
            }
            Expr::Path(..) | Expr::This => true,
            Expr::Member { receiver, .. } | Expr::Index { base: receiver, .. } => self.is_lvalue(*receiver),
            Expr::Prefix { op: crate::hir::PrefixOp::Deref, .. }
            | Expr::NoDiff(_)
            | Expr::Missing
            | Expr::Other(_)
            | Expr::SizeOf { .. } => true,
            _ => false,
        }
    }
}
