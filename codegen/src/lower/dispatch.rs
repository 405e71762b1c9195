//! Interfaces as types (dynamic dispatch): the tagged-union existential
//! type of an interface, the dispatch function of each requirement, and
//! `createDynamicObject` (a value packed from and unpacked to 32-bit
//! words).

use super::*;

impl<'db> ModuleLowerer<'db> {
    /// The type of values of interface `iface` (dynamic dispatch): a
    /// tagged union, `{ int tag; A a; B b; … }` with one field per
    /// conforming struct of the program (declaration order gives the
    /// tags), of which the tag says which holds the value.
    pub(super) fn existential(&mut self, iface: DefId, at: Option<TextRange>) -> R<TypeId> {
        if let Some(e) = self.existentials.get(&iface) {
            return Ok(e.0);
        }
        let db = self.db;
        let iname = item_of(db, iface).and_then(|i| i.name.clone()).unwrap_or_default();
        if self.existentials_in_progress.contains(&iface) {
            return err(at, format!("a type conforming to `{iname}` holds a `{iname}` value: not supported yet"));
        }
        let file = self.root_file.unwrap_or(iface.file(db));
        let files: Vec<SourceFile> = slang_analysis::module_graph::module_of(db, file)
            .iter()
            .chain(slang_analysis::module_graph::imported_files(db, file).iter())
            .copied()
            .collect();
        let mut variants = Vec::new();
        for f in files {
            for item in item_tree(db, f).walk() {
                if !matches!(item.kind, ItemKind::Struct | ItemKind::Class) || !item.generic_params.is_empty() {
                    continue;
                }
                let def = DefId::new(db, f, item.ast_index);
                let ty = Ty::Adt { def, args: Vec::new(), name: item.name.clone().unwrap_or_default() };
                if slang_analysis::generics::conformance(db, file, &ty, iface) == Some(true) && !variants.contains(&def)
                {
                    variants.push(def);
                }
            }
        }
        if variants.is_empty() {
            return err(at, format!("no type of the program conforms to `{iname}`, so no value of it can exist"));
        }
        self.existentials_in_progress.push(iface);
        let lowered: R<Vec<(DefId, TypeId)>> = variants.iter().map(|&v| Ok((v, self.struct_ty(v, &[], at)?))).collect();
        self.existentials_in_progress.retain(|&i| i != iface);
        let lowered = lowered?;
        let int = self.intern(Type::Scalar(Scalar::Int32));
        let mut fields = vec![("tag".to_string(), int)];
        for (v, t) in &lowered {
            let name = item_of(db, *v).and_then(|i| i.name.clone()).unwrap_or_default();
            fields.push((format!("as_{name}"), *t));
        }
        let t = self.intern(Type::Struct { name: format!("{iname}_Any"), fields });
        // A value of a differentiable interface (`IModel : IDifferentiable`)
        // is differentiable: its derivative holds one for each type it may
        // hold (the tag says which is meant).
        let iface_ty = Ty::Adt { def: iface, args: Vec::new(), name: iname.clone() };
        if slang_analysis::autodiff::type_diff(db, file, &iface_ty) == slang_analysis::autodiff::TypeDiff::Value {
            let diffs: Option<Vec<TypeId>> = lowered.iter().map(|v| self.module.types.differential(v.1)).collect();
            if let Some(diffs) = diffs {
                let fields = lowered
                    .iter()
                    .zip(&diffs)
                    .map(|((v, _), &d)| {
                        (format!("as_{}", item_of(db, *v).and_then(|i| i.name.clone()).unwrap_or_default()), d)
                    })
                    .collect();
                let d = self.intern(Type::Struct { name: format!("{iname}_Any_Differential"), fields });
                let identity = (0..diffs.len() as u32).map(Some).collect();
                self.module.types.set_struct_diff(d, StructDiff { ty: d, fields: identity });
                let map = std::iter::once(None).chain((0..diffs.len() as u32).map(Some)).collect();
                self.module.types.set_struct_diff(t, StructDiff { ty: d, fields: map });
            }
        }
        self.existential_variants.insert(t, lowered.iter().map(|v| v.1).collect());
        self.existentials.insert(iface, (t, lowered));
        Ok(t)
    }

    /// The function calling requirement `req` of interface `iface` on an
    /// interface-typed value: a switch on its tag over the conforming
    /// types' methods (a static requirement's are called without the
    /// value). It is differentiable when the requirement is, and
    /// forward mode differentiates it like any other function.
    /// A generic requirement has one per list of its own generic
    /// arguments (`generics`, by name), each method's the same by position.
    pub(super) fn dispatch_function(
        &mut self,
        iface: DefId,
        req: DefId,
        generics: &[(String, Ty)],
        at: Option<TextRange>,
    ) -> R<FuncId> {
        let key = (req, generics.to_vec());
        if let Some(&f) = self.dispatchers.get(&key) {
            return Ok(f);
        }
        let bindings: HashMap<String, Ty> = generics.iter().cloned().collect();
        if let Some((n, _)) = generics.iter().find(|(_, t)| matches!(t, Ty::Param { .. } | Ty::Unknown)) {
            return err(at, format!("the generic argument `{n}` of this call is not known here"));
        }
        let db = self.db;
        let (ex, variants) = {
            self.existential(iface, at)?;
            self.existentials[&iface].clone()
        };
        let iname = item_of(db, iface).and_then(|i| i.name.clone()).unwrap_or_default();
        let req_item = item_of(db, req);
        let rname = req_item.as_ref().and_then(|i| i.name.clone()).unwrap_or_default();
        // (A static requirement called on a value: the value's type picks
        // the method, which is not passed the value.)
        let is_static = req_item.as_ref().is_some_and(|i| i.is_static);
        let sig = fn_sig(db, req).clone();
        let mut ctx = DeclCtx::specialized(db, req, &bindings);
        let ret_ty = ctx.resolve(&sig.ret);
        let ret = self.lower_ty(&ret_ty, at)?;
        let mut params = vec![Param { name: "this".into(), dir: ParamDir::In, ty: ex, builtin: None, no_diff: false }];
        for (i, p) in sig.params.iter().enumerate() {
            let t = ctx.resolve(&p.ty);
            let t = self.lower_ty(&t, at)?;
            let dir = match (p.is_out, p.is_inout) {
                (_, true) => ParamDir::InOut,
                (true, false) => ParamDir::Out,
                _ => ParamDir::In,
            };
            let ty = if dir == ParamDir::In { t } else { self.intern(Type::Ptr(t, AddressSpace::Function)) };
            let name = p.name.clone().unwrap_or_else(|| format!("p{i}"));
            params.push(Param { name, dir, ty, builtin: None, no_diff: p.no_diff });
        }
        // Each conforming type's method.
        let mut methods = Vec::new();
        for (v, _) in &variants {
            let vname = item_of(db, *v).and_then(|i| i.name.clone()).unwrap_or_default();
            let found = item_of(db, *v).and_then(|i| {
                i.members
                    .iter()
                    .filter(|m| m.kind == ItemKind::Fn && m.name.as_deref() == Some(rname.as_str()))
                    .map(|m| DefId::new(db, v.file(db), m.ast_index))
                    .find(|&m| {
                        let msig = fn_sig(db, m);
                        msig.params.len() == sig.params.len() && msig.generic_params.len() == sig.generic_params.len()
                    })
            });
            let Some(m) = found else {
                return err(at, format!("`{vname}` has no method `{rname}` to dispatch to (from an extension?)"));
            };
            if item_of(db, m).is_some_and(|i| i.has_attr("mutating") || i.modifiers.contains(&Modifier::Mutating)) {
                return err(
                    at,
                    format!("`{vname}.{rname}` is `[mutating]`: dynamic dispatch to it is not supported yet"),
                );
            }
            // The requirement's generic arguments, by position.
            let mbindings: HashMap<String, Ty> = fn_sig(db, m)
                .generic_params
                .iter()
                .zip(&sig.generic_params)
                .filter_map(|(mine, theirs)| Some((mine.clone(), bindings.get(theirs)?.clone())))
                .collect();
            let f = self.declare_function(Instance::new(db, m, &mbindings), false)?;
            let fparams = &self.module.function(f).params;
            let skip = usize::from(!is_static);
            let matches = fparams.len() + 1 - skip == params.len()
                && fparams.iter().skip(skip).zip(&params[1..]).all(|(a, b)| a.ty == b.ty && a.dir == b.dir)
                && self.module.function(f).ret == ret;
            if !matches {
                return err(at, format!("`{vname}.{rname}` does not have the signature of `{iname}.{rname}`"));
            }
            methods.push(f);
        }
        let suffix: String = generics.iter().map(|(_, t)| format!("_{}", mangle(t))).collect();
        let mut b = FunctionBuilder::new(format!("{iname}_{rname}{suffix}_dispatch"), ret, at);
        let entry = b.new_block();
        let values: Vec<ValueId> = params.iter().map(|p| b.add_block_param(entry, p.ty, None)).collect();
        b.func.params = params;
        let int = self.intern(Type::Scalar(Scalar::Int32));
        let tag = b.inst(entry, Op::Extract(values[0], 0), int, at);
        let brk = b.new_block();
        let void = matches!(self.module.types.get(ret), Type::Void);
        let result = (!void).then(|| b.add_block_param(brk, ret, None));
        let mut blocks = Vec::new();
        for (k, (f, (_, vt))) in methods.iter().zip(&variants).enumerate() {
            let blk = b.new_block();
            let this = (!is_static).then(|| b.inst(blk, Op::Extract(values[0], k as u32 + 1), *vt, at));
            let args = this.into_iter().chain(values[1..].iter().copied()).collect();
            let r = b.inst(blk, Op::Call(*f, args), ret, at);
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
    /// `createDynamicObject<I>(id, value)`: a value of interface `I` whose
    /// type is the one conforming under `id` (the program's type
    /// conformances, or else declaration order) and whose data are the
    /// bits of `value`, word by word (as the reference compiler packs
    /// them).
    pub(super) fn create_dynamic_object(&mut self, e: ExprId, args: &[ExprId]) -> R<ValueId> {
        let [id, value] = args else { return self.error("`createDynamicObject` takes a type id and a value") };
        let t = self.expr_ty(e)?;
        let Some((iface, variants)) =
            self.m.existentials.iter().find(|(_, x)| x.0 == t).map(|(&i, x)| (i, x.1.clone()))
        else {
            return self.error("`createDynamicObject` makes a value of an interface type");
        };
        let db = self.m.db;
        let name_of = |d: DefId| item_of(db, d).and_then(|i| i.name.clone()).unwrap_or_default();
        let iname = name_of(iface);
        let int = self.t(Type::Scalar(Scalar::Int32));
        let bool_ty = self.bool_ty();
        let idv = self.expr(*id)?;
        let idv = self.coerce(idv, int)?;
        let conformances: Vec<(usize, u32)> = self
            .m
            .conformances
            .iter()
            .filter(|c| c.interface == iname)
            .filter_map(|c| Some((variants.iter().position(|v| name_of(v.0) == c.ty)?, c.id)))
            .collect();
        let tag = if conformances.is_empty() {
            idv
        } else {
            let mut tag = self.konst(Const::Int(0), int);
            for (k, cid) in conformances {
                let c = self.konst(Const::Int(cid.into()), int);
                let is = self.emit(Op::Binary(BinaryOp::Eq, idv, c), bool_ty);
                let kv = self.konst(Const::Int(k as i64), int);
                tag = self.emit(Op::Select(is, kv, tag), int);
            }
            tag
        };
        let v = self.expr(*value)?;
        let mut words = Vec::new();
        self.words_of(v, &mut words)?;
        let mut parts = vec![tag];
        for (_, vt) in variants {
            let mut next = 0;
            parts.push(self.value_from_words(vt, &words, &mut next)?);
        }
        Ok(self.emit(Op::Construct(parts), t))
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
