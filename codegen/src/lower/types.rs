//! Lowering types: analysis [`Ty`]s to interned IR [`Type`]s (scalars,
//! vectors, matrices, arrays, tuples, optionals, monomorphized structs;
//! cooperative vectors are arrays).

use super::*;

impl<'db> ModuleLowerer<'db> {
    pub(super) fn intern(&mut self, t: Type) -> TypeId {
        self.module.types.intern(t)
    }

    /// The IR type of a semantic type.
    pub(super) fn lower_ty(&mut self, ty: &Ty, at: Option<TextRange>) -> R<TypeId> {
        let scalar = |s: Scalar| match s {
            Scalar::Bool
            | Scalar::Int32
            | Scalar::UInt32
            | Scalar::Float
            | Scalar::Half
            | Scalar::Double
            | Scalar::Int64
            | Scalar::UInt64 => Ok(s),
            _ => err(at, format!("the scalar type `{}` is not supported by code generation yet", s.name())),
        };
        Ok(match ty {
            Ty::Void => self.intern(Type::Void),
            Ty::Scalar(s) => {
                let s = scalar(*s)?;
                self.intern(Type::Scalar(s))
            }
            Ty::Vector(s, n) => {
                let s = scalar(*s)?;
                self.intern(Type::Vector(s, *n))
            }
            Ty::Matrix(s, r, c) => {
                if !s.is_float() {
                    return err(at, format!("matrices of `{}` are not supported by code generation yet", s.name()));
                }
                if *r < 2 || *c < 2 {
                    return err(at, "matrices with a single row or column are not supported yet");
                }
                self.intern(Type::Matrix { scalar: *s, rows: *r, cols: *c })
            }
            Ty::Array(e, Some(n)) => {
                let e = self.lower_ty(e, at)?;
                self.intern(Type::Array(e, *n))
            }
            Ty::Array(_, None) => return err(at, "arrays without a known size are not supported here"),
            // `DifferentialPair<T>`, `DifferentialPtrPair<T>`.
            Ty::Adt { def, args, name }
                if matches!(name.as_str(), "DifferentialPair" | "DifferentialPtrPair")
                    && args.len() == 1
                    && slang_analysis::core_files(self.db).contains(&def.file(self.db)) =>
            {
                let primal = self.lower_ty(&args[0], at)?;
                let (pair, what) = match name.as_str() {
                    "DifferentialPair" => (self.module.types.pair(primal), "differentiable"),
                    _ => (self.module.types.ptr_pair(primal), "an `IDifferentiablePtrType`"),
                };
                match pair {
                    Some(t) => t,
                    None => return err(at, format!("`{}` is not {what}", args[0])),
                }
            }
            Ty::Adt { def, .. }
                if !slang_analysis::core_files(self.db).contains(&def.file(self.db))
                    && item_of(self.db, *def).is_some_and(|i| i.kind == ItemKind::Enum) =>
            {
                // Enums are their underlying integer type.
                let unsigned = match hir::supertypes(self.db, *def).first() {
                    Some(TypeRef::Path(segs)) => segs.first().is_some_and(|s| s.name.starts_with('u')),
                    _ => false,
                };
                self.intern(Type::Scalar(if unsigned { Scalar::UInt32 } else { Scalar::Int32 }))
            }
            Ty::Adt { def, args, name }
                if (!slang_analysis::core_files(self.db).contains(&def.file(self.db))
                    || is_functor_interface(name))
                    && item_of(self.db, *def).is_some_and(|i| i.kind == ItemKind::Interface) =>
            {
                if args.iter().any(|a| matches!(a, Ty::Param { .. } | Ty::Unknown)) {
                    return err(at, format!("the generic arguments of `{ty}` are not known here"));
                }
                self.existential(ty, at)?
            }
            Ty::Tuple(items) => self.tuple_ty(items, at)?,
            Ty::Adt { def, args, name }
                if name == "Optional"
                    && args.len() == 1
                    && slang_analysis::core_files(self.db).contains(&def.file(self.db)) =>
            {
                let value = self.lower_ty(&args[0], at)?;
                self.optional_ty(value)
            }
            Ty::Adt { def, args, name }
                if name == "Tuple" && slang_analysis::core_files(self.db).contains(&def.file(self.db)) =>
            {
                self.tuple_ty(args, at)?
            }
            // `CoopVec<T, N>`: an array, operated on element by element.
            Ty::Adt { .. } if coopvec::coopvec_parts(self.db, ty).is_some() => {
                let (elem, n) = coopvec::coopvec_parts(self.db, ty).expect("checked");
                let e = self.lower_ty(&elem, at)?;
                self.intern(Type::Array(e, n))
            }
            Ty::Adt { def, args, name } => {
                let is_user_struct = !slang_analysis::core_files(self.db).contains(&def.file(self.db))
                    && item_of(self.db, *def).is_some_and(|i| i.kind == ItemKind::Struct);
                if name == "DescriptorHandle" && !is_user_struct {
                    // (Bindless resources: WGSL has none; a handle would
                    // be an index into a binding array of buffers, which
                    // the WGSL backend and the runner do not make yet.)
                    return err(
                        at,
                        format!(
                            "descriptor handles (`{ty}`) are not supported by code generation yet: they are bindless resources, which WGSL lacks (binding arrays of buffers indexed by the handle are not made yet)"
                        ),
                    );
                }
                if !is_user_struct {
                    return err(at, format!("values of type `{ty}` are not supported by code generation yet"));
                }
                if args.iter().any(|a| matches!(a, Ty::Param { .. } | Ty::Unknown)) {
                    return err(at, format!("the generic arguments of `{name}` are not known here"));
                }
                self.struct_ty(*def, args, at)?
            }
            Ty::Param { name, .. } => {
                return err(at, format!("the generic parameter `{name}` is not bound to a type here"))
            }
            // An interface-typed value's associated type: a tagged union of
            // those of the types it may hold.
            Ty::Assoc(base, name)
                if name != "Differential"
                    && matches!(&**base, Ty::Adt { def, .. }
                        if item_of(self.db, *def).is_some_and(|i| i.kind == ItemKind::Interface)) =>
            {
                self.existential(ty, at)?
            }
            Ty::Assoc(base, name) if name == "Differential" => {
                let base = self.lower_ty(base, at)?;
                match self.module.types.differential(base) {
                    Some(t) => t,
                    None => return err(at, format!("`{ty}` is not a differentiable type's `Differential`")),
                }
            }
            Ty::Unknown => return err(at, "the type of this is not known"),
            other => return err(at, format!("values of type `{other}` are not supported by code generation yet")),
        })
    }

    /// `Optional<T>`: a struct `{ T value; bool hasValue; }`.
    pub(crate) fn optional_ty(&mut self, value: TypeId) -> TypeId {
        let name = format!("Optional_{}", self.module.types.display(value).replace(['<', '>', ',', ' '], "_"));
        let bool_ty = self.intern(Type::Scalar(Scalar::Bool));
        let t = self.intern(Type::Struct { name, fields: vec![("value".into(), value), ("hasValue".into(), bool_ty)] });
        self.optionals.insert(t);
        t
    }

    /// `Tuple<A, B, …>`: a struct with fields `_0`, `_1`, …, differentiable
    /// when every element is (its differential the tuple of theirs).
    pub(super) fn tuple_ty(&mut self, items: &[Ty], at: Option<TextRange>) -> R<TypeId> {
        if items.is_empty() {
            return err(at, "an empty tuple is not supported by code generation");
        }
        let elems = items.iter().map(|t| self.lower_ty(t, at)).collect::<R<Vec<_>>>()?;
        let name = |types: &crate::ir::Types, es: &[TypeId]| {
            let parts: Vec<String> = es.iter().map(|&e| types.display(e).replace(['<', '>', ',', ' '], "_")).collect();
            format!("Tuple_{}", parts.join("_"))
        };
        let fields: Vec<(String, TypeId)> = elems.iter().enumerate().map(|(i, &e)| (format!("_{i}"), e)).collect();
        let t = self.intern(Type::Struct { name: name(&self.module.types, &elems), fields });
        self.tuples.insert(t);
        if self.module.types.differential(t).is_none() {
            let diffs: Option<Vec<TypeId>> = elems.iter().map(|&e| self.module.types.differential(e)).collect();
            if let Some(diffs) = diffs {
                let identity: Vec<Option<u32>> = (0..elems.len() as u32).map(Some).collect();
                let d = if diffs == elems {
                    t
                } else {
                    let fields = diffs.iter().enumerate().map(|(i, &e)| (format!("_{i}"), e)).collect();
                    let d = self.intern(Type::Struct { name: name(&self.module.types, &diffs), fields });
                    self.module.types.set_struct_diff(d, StructDiff { ty: d, fields: identity.clone() });
                    d
                };
                self.module.types.set_struct_diff(t, StructDiff { ty: d, fields: identity });
            }
        }
        Ok(t)
    }

    /// The struct `def<args>` (a generic struct is one struct per list of
    /// arguments).
    pub(super) fn struct_ty(&mut self, def: DefId, args: &[Ty], at: Option<TextRange>) -> R<TypeId> {
        let key = (def, args.to_vec());
        if let Some(&t) = self.structs.get(&key) {
            return Ok(t);
        }
        let db = self.db;
        let Some(item) = item_of(db, def) else { return err(at, "unknown struct") };
        let bindings: HashMap<String, Ty> =
            item.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
        let mut ctx = DeclCtx::specialized(db, def, &bindings);
        let mut fields = Vec::new();
        for m in item.members.iter().filter(|m| m.kind == ItemKind::Var && !m.is_static) {
            let mdef = DefId::new(db, def.file(db), m.ast_index);
            let ty = decl_type_ref(db, mdef).clone().map(|t| ctx.resolve(&t)).unwrap_or(Ty::Unknown);
            // Buffers held by a struct are bound at compile time
            // (`FnLower::res_fields`), not stored.
            if globals::resource_of(&ty).is_some() {
                continue;
            }
            let fty = self.lower_ty(&ty, self.def_range(mdef).or(at))?;
            fields.push((m.name.clone().unwrap_or_default(), fty));
        }
        if fields.is_empty() {
            // Every target needs a member (the reference compiler adds one
            // too).
            let int = self.intern(Type::Scalar(Scalar::Int32));
            fields.push(("_dummy".to_string(), int));
        }
        let mut name = item.name.clone().unwrap_or_default();
        for a in args {
            name = format!("{name}_{}", mangle(a));
        }
        let t = self.intern(Type::Struct { name: name.clone(), fields: fields.clone() });
        self.structs.insert(key, t);
        self.struct_differential(def, t, &name, &fields, args);
        Ok(t)
    }
}

/// The core module's interfaces of callable values (`IFunc<R, P…>` and
/// its mutating and differentiable kinds), which only the program's
/// structs conform to: their values are tagged unions as those of the
/// program's interfaces are.
fn is_functor_interface(name: &str) -> bool {
    matches!(name, "IFunc" | "IMutatingFunc" | "IDifferentiableFunc" | "IDifferentiableMutatingFunc")
}
