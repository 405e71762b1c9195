//! Interfaces as types (dynamic dispatch): the tagged-union existential
//! type of an interface type (generic arguments included; also of an
//! interface value's associated type, tagged as the value is), the
//! dispatch function of each requirement (methods, properties,
//! subscripts), conversions between tagged unions, and values packed
//! from and unpacked to 32-bit words (`createDynamicObject`, buffers of
//! interface values in the reference compiler's layout).

use super::*;

impl<'db> ModuleLowerer<'db> {
    /// The type of values of interface type `iface` (dynamic dispatch,
    /// `I` or `I<float>`): a tagged union, `{ int tag; A a; B b; … }`
    /// with one field per conforming struct type of the program
    /// (declaration order gives the tags; a generic struct conforms with
    /// the generic arguments that make its supertypes reach `iface`), of
    /// which the tag says which holds the value.
    pub(super) fn existential(&mut self, iface_ty: &Ty, at: Option<TextRange>) -> R<TypeId> {
        if let Some(e) = self.existentials.get(iface_ty) {
            return Ok(e.0);
        }
        let db = self.db;
        let shown = iface_ty.to_string();
        if self.existentials_in_progress.contains(iface_ty) {
            return err(at, format!("a type conforming to `{shown}` holds a `{shown}` value: not supported yet"));
        }
        let iface = match iface_ty {
            Ty::Adt { def, .. } => *def,
            Ty::Assoc(base, _) => match &**base {
                Ty::Adt { def, .. } => *def,
                _ => return err(at, format!("`{iface_ty}` is not an interface's associated type")),
            },
            _ => return err(at, format!("`{iface_ty}` is not an interface")),
        };
        let file = self.root_file.unwrap_or(iface.file(db));
        let mut variants: Vec<Ty> = Vec::new();
        if let Ty::Assoc(base, name) = iface_ty {
            // An associated type: that of each type the interface value
            // may hold, under the same tag.
            self.existential(base, at)?;
            for (v, _) in self.existentials[&**base].1.clone() {
                let Ty::Adt { def, args, .. } = &v else { unreachable!("variants are struct types") };
                let params = item_of(db, *def).map(|i| i.generic_params.clone()).unwrap_or_default();
                let bindings: HashMap<String, Ty> =
                    params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
                let path = TypeRef::Path(vec![hir::PathSegment { name: name.clone(), args: Vec::new() }]);
                let t = DeclCtx::specialized(db, *def, &bindings).resolve(&path);
                if !matches!(&t, Ty::Adt { def, .. } if item_of(db, *def).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class)))
                {
                    return err(at, format!("`{v}.{name}` is not a struct type (`{t}`)"));
                }
                variants.push(t);
            }
        }
        if let Ty::Adt { .. } = iface_ty {
            variants = self.conforming_types(iface_ty);
        }
        if variants.is_empty() {
            return err(at, format!("no type of the program conforms to `{shown}`, so no value of it can exist"));
        }
        self.existentials_in_progress.push(iface_ty.clone());
        let lowered: R<Vec<(Ty, TypeId)>> = variants
            .iter()
            .map(|v| match v {
                Ty::Adt { def, args, .. } => Ok((v.clone(), self.struct_ty(*def, args, at)?)),
                _ => unreachable!("variants are struct types"),
            })
            .collect();
        self.existentials_in_progress.retain(|i| i != iface_ty);
        let lowered = lowered?;
        let int = self.intern(Type::Scalar(Scalar::Int32));
        let mut fields = vec![("tag".to_string(), int)];
        for (v, t) in &lowered {
            fields.push((super::resources::variant_segment(v), *t));
        }
        let iname = mangle(iface_ty);
        let t = self.intern(Type::Struct { name: format!("{iname}_Any"), fields });
        // A value of a differentiable interface (`IModel : IDifferentiable`)
        // is differentiable: its derivative holds one for each type it may
        // hold (the tag says which is meant).
        // (An associated type's values are when an interface it is
        // constrained to is.)
        let diff_tys: Vec<Ty> = match iface_ty {
            Ty::Assoc(_, name) => slang_analysis::generics::associated_type(db, iface, name)
                .and_then(|a| slang_analysis::generics::constraint_interfaces(db, a))
                .unwrap_or_default()
                .into_iter()
                .map(|d| Ty::Adt {
                    def: d,
                    args: Vec::new(),
                    name: item_of(db, d).and_then(|i| i.name.clone()).unwrap_or_default(),
                })
                .collect(),
            _ => vec![iface_ty.clone()],
        };
        if diff_tys
            .iter()
            .any(|t| slang_analysis::autodiff::type_diff(db, file, t) == slang_analysis::autodiff::TypeDiff::Value)
        {
            let diffs: Option<Vec<TypeId>> = lowered.iter().map(|v| self.module.types.differential(v.1)).collect();
            if let Some(diffs) = diffs {
                let fields =
                    lowered.iter().zip(&diffs).map(|((v, _), &d)| (super::resources::variant_segment(v), d)).collect();
                let d = self.intern(Type::Struct { name: format!("{iname}_Any_Differential"), fields });
                let identity = (0..diffs.len() as u32).map(Some).collect();
                self.module.types.set_struct_diff(d, StructDiff { ty: d, fields: identity });
                let map = std::iter::once(None).chain((0..diffs.len() as u32).map(Some)).collect();
                self.module.types.set_struct_diff(t, StructDiff { ty: d, fields: map });
            }
        }
        self.existential_variants.insert(t, lowered.iter().map(|v| v.1).collect());
        self.existentials.insert(iface_ty.clone(), (t, lowered));
        Ok(t)
    }

    /// The struct types of the program conforming to interface type
    /// `iface_ty` (`I` or `I<float>`), in declaration order: those an
    /// interface value may hold (a generic struct with the generic
    /// arguments that make its supertypes reach `iface_ty`).
    pub(super) fn conforming_types(&self, iface_ty: &Ty) -> Vec<Ty> {
        let db = self.db;
        let Ty::Adt { def: iface, .. } = iface_ty else { return Vec::new() };
        let file = self.root_file.unwrap_or(iface.file(db));
        let mut out: Vec<Ty> = Vec::new();
        for &f in slang_analysis::module_graph::visible_files(db, file).iter() {
            for item in item_tree(db, f).walk() {
                if !matches!(item.kind, ItemKind::Struct | ItemKind::Class) {
                    continue;
                }
                let def = DefId::new(db, f, item.ast_index);
                let Some(args) = slang_analysis::generics::conforming_args(db, file, def, iface_ty) else { continue };
                let ty = Ty::Adt { def, args, name: item.name.clone().unwrap_or_default() };
                if !out.contains(&ty) {
                    out.push(ty);
                }
            }
        }
        out
    }

    /// The IR type of a buffer's elements of type `ty`: an interface
    /// type's values packed as the reference compiler lays them out
    /// (`{ uint2 rtti; uint2 id; uint words[N] }`, the conformance id in
    /// `id.x`, `N` from `[anyValueSize(bytes)]` or else the largest
    /// conforming type), other types' as they are.
    pub(super) fn buffer_element_ty(&mut self, ty: &Ty, at: Option<TextRange>) -> R<TypeId> {
        let t = self.lower_ty(ty, at)?;
        let Some(variants) = self.existential_variants.get(&t).cloned() else { return Ok(t) };
        let Ty::Adt { def, .. } = ty else { return Ok(t) };
        let written =
            item_of(self.db, *def).and_then(|i| i.attr("anyValueSize")?.args.first()?.trim().parse::<u32>().ok());
        let words = match written {
            Some(bytes) => bytes.div_ceil(4),
            None => variants
                .iter()
                .map(|&v| crate::layout::size_of(&self.module.types, v, crate::layout::Rules::Std430).div_ceil(4))
                .max()
                .unwrap_or(0),
        };
        let uint = self.intern(Type::Scalar(Scalar::UInt32));
        let uint2 = self.intern(Type::Vector(Scalar::UInt32, 2));
        let mut fields = vec![("rtti".to_string(), uint2), ("id".to_string(), uint2)];
        if words > 0 {
            fields.push(("words".to_string(), self.intern(Type::Array(uint, words))));
        }
        let name = format!("{}_Packed", mangle(ty));
        let packed = self.intern(Type::Struct { name, fields });
        self.packed_existentials.insert(packed, t);
        Ok(packed)
    }

    /// The function calling requirement `req` of interface `iface` on an
    /// interface-typed value: a switch on its tag over the conforming
    /// types' methods (a static requirement's are called without the
    /// value). It is differentiable when the requirement is, and
    /// forward mode differentiates it like any other function.
    /// A generic requirement has one per list of its own generic
    /// arguments (`generics`, by name), each method's the same by position.
    /// One is made per set of buffers the value holds (`resources`, by
    /// field path under each variant, as [`Self::resource_fields`] names
    /// them): each method is specialized to those of its variant.
    pub(super) fn dispatch_function(
        &mut self,
        iface_ty: &Ty,
        req: DefId,
        generics: &[(String, Ty)],
        resources: &[(String, GlobalId)],
        at: Option<TextRange>,
    ) -> R<FuncId> {
        let key = (iface_ty.clone(), req, generics.to_vec(), resources.to_vec());
        if let Some(&f) = self.dispatchers.get(&key) {
            return Ok(f);
        }
        if let Some((n, _)) = generics.iter().find(|(_, t)| matches!(t, Ty::Param { .. } | Ty::Unknown)) {
            return err(at, format!("the generic argument `{n}` of this call is not known here"));
        }
        let db = self.db;
        // (Of an associated type: the interface it is constrained to,
        // which declares `req`.)
        let (iface, iface_args): (DefId, Vec<Ty>) = match iface_ty {
            Ty::Adt { def, args, .. } => (*def, args.clone()),
            Ty::Assoc(..) => match parent_of(db, req) {
                Some(p) => (p, Vec::new()),
                None => return err(at, "a requirement outside an interface"),
            },
            _ => return err(at, format!("`{iface_ty}` is not an interface")),
        };
        // The requirement's generic arguments, and the interface's.
        let mut bindings: HashMap<String, Ty> = generics.iter().cloned().collect();
        let iparams = item_of(db, iface).map(|i| i.generic_params.clone()).unwrap_or_default();
        for (g, a) in iparams.iter().zip(&iface_args) {
            if let Some(n) = &g.name {
                bindings.entry(n.clone()).or_insert_with(|| a.clone());
            }
        }
        let (ex, variants) = {
            self.existential(iface_ty, at)?;
            self.existentials[iface_ty].clone()
        };
        let iname = item_of(db, iface).and_then(|i| i.name.clone()).unwrap_or_default();
        let req_item = item_of(db, req);
        let rname = req_item.as_ref().and_then(|i| i.name.clone()).unwrap_or_default();
        // (A static requirement called on a value: the value's type picks
        // the method, which is not passed the value.)
        let is_static = req_item.as_ref().is_some_and(|i| i.is_static);
        let sig = fn_sig(db, req).clone();
        let mut ctx = DeclCtx::specialized(db, req, &bindings);
        let mut ret_ty = ctx.resolve(&sig.ret);
        // A requirement returning an associated type: the value's, a
        // tagged union tagged as the value is (each method's result is
        // put under the tag of its type).
        let assoc_ret = slang_analysis::generics::associated_result(db, req).is_some();
        if assoc_ret {
            let name = match &sig.ret {
                TypeRef::Path(segs) => segs[0].name.clone(),
                _ => unreachable!("an associated type is named"),
            };
            ret_ty = Ty::Assoc(std::sync::Arc::new(iface_ty.clone()), name);
        }
        let ret = self.lower_ty(&ret_ty, at)?;
        let assoc_variants = match assoc_ret {
            true => Some(self.existential_variants[&ret].clone()),
            false => None,
        };
        // (A `[mutating]` requirement's methods change the value in place:
        // `this` is `inout`, each method given its variant's field.)
        let mutating =
            |d: DefId| item_of(db, d).is_some_and(|i| i.has_attr("mutating") || i.has_modifier(Modifier::Mutating));
        let is_mutating = mutating(req);
        let (this_dir, this_ty) = match is_mutating {
            true => (ParamDir::InOut, self.intern(Type::Ptr(ex, AddressSpace::Function))),
            false => (ParamDir::In, ex),
        };
        let mut params = vec![Param { name: "this".into(), dir: this_dir, ty: this_ty, builtin: None, no_diff: false }];
        for (i, p) in sig.params.iter().enumerate() {
            let dir = match (p.is_out, p.is_inout) {
                (_, true) => ParamDir::InOut,
                (true, false) => ParamDir::Out,
                _ => ParamDir::In,
            };
            let name = p.name.clone().unwrap_or_else(|| format!("p{i}"));
            // (A pack, `expand each P p`: one parameter per element.)
            let (names, tys) = match ctx.resolve(&p.ty) {
                Ty::Pack(items) => ((0..items.len()).map(|k| format!("{name}_{k}")).collect(), items),
                t => (vec![name], vec![t]),
            };
            for (name, t) in names.into_iter().zip(tys) {
                let t = self.lower_ty(&t, at)?;
                let ty = if dir == ParamDir::In { t } else { self.intern(Type::Ptr(t, AddressSpace::Function)) };
                params.push(Param { name, dir, ty, builtin: None, no_diff: p.no_diff });
            }
        }
        // Each conforming type's method.
        let mut methods = Vec::new();
        let mut methods_defs = Vec::new();
        for (vty, _) in &variants {
            let Ty::Adt { def: v, args: vargs, .. } = vty else { unreachable!("variants are struct types") };
            let vname = vty.to_string();
            // (A method by name, a property by name, a `__subscript` by
            // its parameters.)
            // (The struct's own, or one an extension of it adds, or a
            // blanket extension, `extension<T : I> T`, of which `T` is
            // then the struct.)
            let kind = req_item.as_ref().map_or(ItemKind::Fn, |i| i.kind);
            let file = self.root_file.unwrap_or(v.file(db));
            let fits = |m: &DefId| {
                let msig = fn_sig(db, *m);
                // (`params` has `this` and one parameter per pack element.)
                msig.params.len() == params.len() - 1 && msig.generic_params.len() == sig.generic_params.len()
            };
            let mut owners = vec![*v];
            owners.extend(slang_analysis::infer::applicable_extensions(db, *v, vargs));
            let own = owners.iter().find_map(|o| {
                item_of(db, *o)?
                    .members
                    .iter()
                    .filter(|m| {
                        m.kind == kind && (kind == ItemKind::Subscript || m.name.as_deref() == Some(rname.as_str()))
                    })
                    .map(|m| DefId::new(db, o.file(db), m.ast_index))
                    .find(fits)
            });
            let found = own.or_else(|| {
                let conforms = |i: DefId| slang_analysis::generics::conformance(db, file, vty, i) == Some(true);
                let blanket = match kind {
                    ItemKind::Fn => slang_analysis::generics::blanket_methods(db, file, &rname, &conforms),
                    _ => Vec::new(),
                };
                blanket.into_iter().find(fits)
            });
            let Some(m) = found else {
                return err(at, format!("`{vname}` has no method `{rname}` to dispatch to"));
            };
            if mutating(m) && !is_mutating {
                return err(at, format!("`{vname}.{rname}` is `[mutating]` but `{iname}.{rname}` is not"));
            }
            // The struct's generic arguments, and the requirement's by
            // position.
            let vparams = item_of(db, *v).map(|i| i.generic_params.clone()).unwrap_or_default();
            let mut mbindings: HashMap<String, Ty> = slang_analysis::infer::receiver_bindings(db, m, vty);
            mbindings.extend(vparams.iter().filter_map(|g| g.name.clone()).zip(vargs.iter().cloned()));
            mbindings.extend(fn_sig(db, m).generic_params.iter().zip(&sig.generic_params).filter_map(
                |(mine, theirs)| Some((mine.clone(), generics.iter().find(|g| &g.0 == theirs)?.1.clone())),
            ));
            let mut inst = Instance::new(db, m, &mbindings);
            if !is_static {
                let held = super::resources::variant_resources(resources, vty);
                if held.is_empty() && !self.resource_fields(vty).is_empty() {
                    // A type holding buffers, none of them bound: the
                    // value does not hold one (it would have been given
                    // its buffers), and this branch is never taken.
                    methods.push(None);
                    methods_defs.push(m);
                    continue;
                }
                inst.resources.extend(held.into_iter().map(|(p, g)| (THIS_PARAM, p, g)));
            }
            let f = self.declare_function(inst, false)?;
            let fparams = &self.module.function(f).params;
            let skip = usize::from(!is_static);
            let matches = fparams.len() + 1 - skip == params.len()
                && fparams.iter().skip(skip).zip(&params[1..]).all(|(a, b)| a.ty == b.ty && a.dir == b.dir)
                && self.module.function(f).ret == assoc_variants.as_ref().map_or(ret, |vs| vs[methods.len()]);
            if !matches {
                return err(at, format!("`{vname}.{rname}` does not have the signature of `{iname}.{rname}`"));
            }
            methods.push(Some(f));
            methods_defs.push(m);
        }
        if methods.iter().all(Option::is_none) {
            return err(
                at,
                format!("the buffers held by this `{iname}` value are not known here: assign it a value holding global buffers first"),
            );
        }
        let mut suffix: String = generics.iter().map(|(_, t)| format!("_{}", mangle(t))).collect();
        for (_, g) in resources {
            suffix = format!("{suffix}_{}", self.module.global(*g).name);
        }
        let fname = mangle(iface_ty);
        let mut b = FunctionBuilder::new(format!("{fname}_{rname}{suffix}_dispatch"), ret, at);
        let entry = b.new_block();
        let values: Vec<ValueId> = params.iter().map(|p| b.add_block_param(entry, p.ty, None)).collect();
        b.func.params = params;
        let int = self.intern(Type::Scalar(Scalar::Int32));
        let void_ty = self.intern(Type::Void);
        let this_value = match is_mutating {
            true => b.inst(entry, Op::Load(values[0]), ex, at),
            false => values[0],
        };
        let tag = b.inst(entry, Op::Extract(this_value, 0), int, at);
        let brk = b.new_block();
        let void = matches!(self.module.types.get(ret), Type::Void);
        let result = (!void).then(|| b.add_block_param(brk, ret, None));
        let mut blocks = Vec::new();
        for (k, (f, (_, vt))) in methods.iter().zip(&variants).enumerate() {
            let blk = b.new_block();
            let Some(f) = f else {
                // (Never taken: see above.)
                let r = (!void).then(|| {
                    let mut e =
                        crate::autodiff::rules::Emit { types: &mut self.module.types, b: &mut b, block: blk, span: at };
                    e.zero(ret)
                });
                b.terminate(blk, Terminator::Branch { target: brk, args: r.into_iter().collect() });
                blocks.push(blk);
                continue;
            };
            let this = match (is_static, is_mutating) {
                (true, _) => None,
                (false, false) => Some(b.inst(blk, Op::Extract(values[0], k as u32 + 1), *vt, at)),
                // (A method that does not change the value, for a
                // `[mutating]` requirement: given the value.)
                (false, true) if !mutating(methods_defs[k]) => {
                    Some(b.inst(blk, Op::Extract(this_value, k as u32 + 1), *vt, at))
                }
                (false, true) => {
                    // (Through a local: targets pass pointers to whole
                    // variables only.)
                    let p = self.intern(Type::Ptr(*vt, AddressSpace::Function));
                    let local = b.inst(blk, Op::Var, p, at);
                    let held = b.inst(blk, Op::Extract(this_value, k as u32 + 1), *vt, at);
                    b.inst(blk, Op::Store { ptr: local, value: held }, void_ty, at);
                    Some(local)
                }
            };
            let args = this.into_iter().chain(values[1..].iter().copied()).collect();
            let r = match &assoc_variants {
                Some(vs) => {
                    let r = b.inst(blk, Op::Call(*f, args), vs[k], at);
                    let mut e =
                        crate::autodiff::rules::Emit { types: &mut self.module.types, b: &mut b, block: blk, span: at };
                    let mut parts = vec![e.inst(Op::Const(Const::Int(k as i64)), int)];
                    for (j, &vt) in vs.iter().enumerate() {
                        parts.push(if j == k { r } else { e.zero(vt) });
                    }
                    e.inst(Op::Construct(parts), ret)
                }
                None => b.inst(blk, Op::Call(*f, args), ret, at),
            };
            if let (Some(local), true) = (this, is_mutating && mutating(methods_defs[k])) {
                // The changed variant, back in place.
                let changed = b.inst(blk, Op::Load(local), *vt, at);
                let p = self.intern(Type::Ptr(*vt, AddressSpace::Function));
                let field = b.inst(blk, Op::FieldAddr(values[0], k as u32 + 1), p, at);
                b.inst(blk, Op::Store { ptr: field, value: changed }, void_ty, at);
            }
            b.terminate(blk, Terminator::Branch { target: brk, args: result.map(|_| vec![r]).unwrap_or_default() });
            blocks.push(blk);
        }
        let default = *blocks.last().expect("an interface with conforming types");
        let cases = blocks[..blocks.len() - 1].iter().enumerate().map(|(k, &b)| (k as i64, b)).collect();
        b.terminate(entry, Terminator::Switch { value: tag, cases, default, brk });
        b.terminate(brk, Terminator::Return(result));
        b.func.derivative = match fn_differentiability(db, req.file(db), req).allows(Mode::Forward) {
            true => Derivative::Transcribe,
            false => Derivative::None,
        };
        let id = FuncId(self.module.functions.len() as u32);
        self.module.functions.push(b.finish());
        self.dispatchers.insert(key, id);
        Ok(id)
    }
}

impl FnLower<'_, '_> {
    /// Whether values of type `ty` are interface-typed (their methods,
    /// properties and subscripts dispatched).
    pub(super) fn is_interface_value(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Adt { def, .. } => item_of(self.db(), *def).is_some_and(|i| i.kind == ItemKind::Interface),
            Ty::Assoc(base, name) => name != "Differential" && self.is_interface_value(base),
            _ => false,
        }
    }

    /// `createDynamicObject<I>(id, value)`: a value of interface `I` whose
    /// type is the one conforming under `id` (the program's type
    /// conformances, or else declaration order) and whose data are the
    /// bits of `value`, word by word (as the reference compiler packs
    /// them).
    pub(super) fn create_dynamic_object(&mut self, e: ExprId, args: &[ExprId]) -> R<ValueId> {
        let [id, value] = args else { return self.error("`createDynamicObject` takes a type id and a value") };
        let t = self.expr_ty(e)?;
        if !self.m.existential_variants.contains_key(&t) {
            return self.error("`createDynamicObject` makes a value of an interface type");
        }
        let int = self.t(Type::Scalar(Scalar::Int32));
        let idv = self.expr(*id)?;
        let idv = self.coerce(idv, int)?;
        let tag = self.tag_of_id(t, idv);
        let v = self.expr(*value)?;
        let mut words = Vec::new();
        self.words_of(v, &mut words)?;
        self.existential_from_words(t, tag, &words)
    }

    /// An interface-typed value read from a buffer (`packed`, of a type
    /// [`ModuleLowerer::buffer_element_ty`] made) as a value of its
    /// tagged-union type `t`.
    pub(super) fn unpack_existential(&mut self, packed: ValueId, t: TypeId) -> R<ValueId> {
        let uint = self.t(Type::Scalar(Scalar::UInt32));
        let uint2 = self.t(Type::Vector(Scalar::UInt32, 2));
        let int = self.t(Type::Scalar(Scalar::Int32));
        let id = self.emit(Op::Extract(packed, 1), uint2);
        let id = self.emit(Op::Extract(id, 0), uint);
        let id = self.coerce(id, int)?;
        let tag = self.tag_of_id(t, id);
        let mut words = Vec::new();
        if let Type::Struct { fields, .. } = self.ty(self.ty_of(packed)).clone() {
            if let Some((_, at)) = fields.get(2) {
                let array = self.emit(Op::Extract(packed, 2), *at);
                self.words_of(array, &mut words)?;
            }
        }
        self.existential_from_words(t, tag, &words)
    }

    /// A value of one tagged-union type as one of `to`, which has a variant
    /// of each of its variants' types (an associated type's value as one
    /// of the interface it is constrained to): the tag mapped, each
    /// variant moved to its place.
    pub(super) fn retag_existential(&mut self, v: ValueId, to: TypeId) -> R<ValueId> {
        let from = self.m.existential_variants[&self.ty_of(v)].clone();
        let target = self.m.existential_variants[&to].clone();
        let int = self.t(Type::Scalar(Scalar::Int32));
        let bool_ty = self.bool_ty();
        let old_tag = self.emit(Op::Extract(v, 0), int);
        let mut tag = self.konst(Const::Int(0), int);
        let mut is_k = Vec::new();
        for (k, vt) in from.iter().enumerate() {
            let kc = self.konst(Const::Int(k as i64), int);
            let is = self.emit(Op::Binary(BinaryOp::Eq, old_tag, kc), bool_ty);
            let j = target.iter().position(|t| t == vt).expect("a variant of the target");
            let jc = self.konst(Const::Int(j as i64), int);
            tag = self.emit(Op::Select(is, jc, tag), int);
            is_k.push(is);
        }
        let mut parts = vec![tag];
        for &tt in &target {
            // (Only the variant the tag names is ever read.)
            let mut value = None;
            for (k, vt) in from.iter().enumerate() {
                if *vt == tt {
                    let x = self.emit(Op::Extract(v, k as u32 + 1), tt);
                    value = Some(match value {
                        Some(other) => self.select_value(is_k[k], x, other)?,
                        None => x,
                    });
                }
            }
            parts.push(match value {
                Some(x) => x,
                None => self.zero(tt)?,
            });
        }
        Ok(self.emit(Op::Construct(parts), to))
    }

    /// `cond ? a : b` of values of any value type (selected part by part:
    /// targets select scalars and vectors only).
    fn select_value(&mut self, cond: ValueId, a: ValueId, b: ValueId) -> R<ValueId> {
        let t = self.ty_of(a);
        let parts: Vec<TypeId> = match self.ty(t).clone() {
            Type::Scalar(_) | Type::Vector(..) => return Ok(self.emit(Op::Select(cond, a, b), t)),
            Type::Matrix { scalar, cols, rows } => vec![self.t(Type::Vector(scalar, cols)); rows as usize],
            Type::Array(e, n) => vec![e; n as usize],
            Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
            _ => return self.error(format!("cannot select between values of `{}`", self.show(t))),
        };
        let mut out = Vec::new();
        for (i, pt) in parts.into_iter().enumerate() {
            let x = self.emit(Op::Extract(a, i as u32), pt);
            let y = self.emit(Op::Extract(b, i as u32), pt);
            out.push(self.select_value(cond, x, y)?);
        }
        Ok(self.emit(Op::Construct(out), t))
    }

    /// The value of tagged-union type `t` (an interface's) with tag `tag`
    /// whose data are `words` (each variant's, from the first word on).
    pub(super) fn existential_from_words(&mut self, t: TypeId, tag: ValueId, words: &[ValueId]) -> R<ValueId> {
        let variants = self.m.existential_variants[&t].clone();
        let mut parts = vec![tag];
        for vt in variants {
            let mut next = 0;
            parts.push(self.value_from_words(vt, words, &mut next)?);
        }
        Ok(self.emit(Op::Construct(parts), t))
    }

    /// The tag, in tagged-union type `t` (an interface's), of the type
    /// the program's type conformances give id `id` (an `int`; without
    /// conformances for the interface, ids are tags).
    pub(super) fn tag_of_id(&mut self, t: TypeId, id: ValueId) -> ValueId {
        let Some((iface, variants)) =
            self.m.existentials.iter().find(|(_, x)| x.0 == t).map(|(i, x)| (i.clone(), x.1.clone()))
        else {
            return id;
        };
        let same = |written: &str, ty: &Ty| {
            written.chars().filter(|c| !c.is_whitespace()).eq(ty.to_string().chars().filter(|c| !c.is_whitespace()))
        };
        let conformances: Vec<(usize, u32)> = self
            .m
            .conformances
            .iter()
            .filter(|c| same(&c.interface, &iface))
            .filter_map(|c| Some((variants.iter().position(|v| same(&c.ty, &v.0))?, c.id)))
            .collect();
        if conformances.is_empty() {
            return id;
        }
        let int = self.t(Type::Scalar(Scalar::Int32));
        let bool_ty = self.bool_ty();
        let mut tag = self.konst(Const::Int(0), int);
        for (k, cid) in conformances {
            let c = self.konst(Const::Int(cid.into()), int);
            let is = self.emit(Op::Binary(BinaryOp::Eq, id, c), bool_ty);
            let kv = self.konst(Const::Int(k as i64), int);
            tag = self.emit(Op::Select(is, kv, tag), int);
        }
        tag
    }

    /// The 32-bit words of `v` (as `uint`s), scalars in order.
    pub(super) fn words_of(&mut self, v: ValueId, out: &mut Vec<ValueId>) -> R<()> {
        let uint = self.t(Type::Scalar(Scalar::UInt32));
        match self.ty(self.ty_of(v)).clone() {
            Type::Scalar(Scalar::Float) => out.push(self.emit(Op::Intrinsic(Intrinsic::AsUint, vec![v]), uint)),
            Type::Scalar(Scalar::Int32 | Scalar::UInt32) => out.push(self.coerce(v, uint)?),
            Type::Scalar(Scalar::Bool) => {
                let (one, zero) = (self.konst(Const::Int(1), uint), self.konst(Const::Int(0), uint));
                out.push(self.emit(Op::Select(v, one, zero), uint));
            }
            Type::Vector(s, n) => {
                let st = self.t(Type::Scalar(s));
                for i in 0..n {
                    let x = self.emit(Op::Extract(v, i.into()), st);
                    self.words_of(x, out)?;
                }
            }
            Type::Matrix { scalar, cols, rows } => {
                let row = self.t(Type::Vector(scalar, cols));
                for i in 0..rows {
                    let x = self.emit(Op::Extract(v, i.into()), row);
                    self.words_of(x, out)?;
                }
            }
            Type::Array(et, n) => {
                for i in 0..n {
                    let x = self.emit(Op::Extract(v, i), et);
                    self.words_of(x, out)?;
                }
            }
            Type::Struct { fields, .. } => {
                for (i, (_, ft)) in fields.iter().enumerate() {
                    let x = self.emit(Op::Extract(v, i as u32), *ft);
                    self.words_of(x, out)?;
                }
            }
            other => return self.error(format!("`createDynamicObject` cannot pack a `{other:?}` value")),
        }
        Ok(())
    }

    /// A value of type `t` from `words` (from `*next` on; zero past the
    /// end).
    pub(super) fn value_from_words(&mut self, t: TypeId, words: &[ValueId], next: &mut usize) -> R<ValueId> {
        let uint = self.t(Type::Scalar(Scalar::UInt32));
        Ok(match self.ty(t).clone() {
            Type::Scalar(s) => {
                let w = match words.get(*next) {
                    Some(&w) => w,
                    None => self.konst(Const::Int(0), uint),
                };
                *next += 1;
                match s {
                    Scalar::Float => self.emit(Op::Intrinsic(Intrinsic::AsFloat, vec![w]), t),
                    Scalar::Int32 | Scalar::UInt32 => self.coerce(w, t)?,
                    Scalar::Bool => {
                        let zero = self.konst(Const::Int(0), uint);
                        self.emit(Op::Binary(BinaryOp::Ne, w, zero), t)
                    }
                    _ => return self.error(format!("`createDynamicObject` cannot unpack a `{}`", self.show(t))),
                }
            }
            Type::Vector(s, n) => {
                let st = self.t(Type::Scalar(s));
                let parts = (0..n).map(|_| self.value_from_words(st, words, next)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), t)
            }
            Type::Matrix { scalar, cols, rows } => {
                let row = self.t(Type::Vector(scalar, cols));
                let parts = (0..rows).map(|_| self.value_from_words(row, words, next)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), t)
            }
            Type::Array(et, n) => {
                let parts = (0..n).map(|_| self.value_from_words(et, words, next)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), t)
            }
            Type::Struct { fields, .. } => {
                let parts =
                    fields.iter().map(|(_, ft)| self.value_from_words(*ft, words, next)).collect::<R<Vec<_>>>()?;
                self.emit(Op::Construct(parts), t)
            }
            _ => return self.error(format!("`createDynamicObject` cannot unpack a `{}`", self.show(t))),
        })
    }
}
