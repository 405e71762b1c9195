//! Initializer lists (`{ … }`, with elided braces and fields' default
//! values) and constructor-style expressions (`float3(…)`, `T(…)`).

use super::*;

impl FnLower<'_, '_> {
    pub(super) fn init_list(&mut self, items: &[ExprId], ty: TypeId) -> R<ValueId> {
        // Buffers held by a struct are bound at compile time, not stored
        // (its IR type has no field for them).
        let kept: Vec<ExprId>;
        let items = if matches!(self.ty(ty), Type::Struct { .. }) && items.iter().any(|&i| self.is_resource_expr(i)) {
            kept = items.iter().copied().filter(|&i| !self.is_resource_expr(i)).collect();
            &kept[..]
        } else {
            items
        };
        let parts: Vec<TypeId> = match self.ty(ty).clone() {
            Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
            Type::Array(e, n) => vec![e; n as usize],
            Type::Vector(s, n) => vec![self.t(Type::Scalar(s)); n as usize],
            Type::Matrix { scalar, rows, cols } => vec![self.t(Type::Vector(scalar, cols)); rows as usize],
            _ => {
                if let [only] = items {
                    return self.expr_expecting(*only, ty);
                }
                return self.error(format!("an initializer list for `{}`", self.show(ty)));
            }
        };
        if items.len() > parts.len() {
            // More items than parts: the braces of inner aggregates are
            // left out (`Feature<3> f = {1.0, 2.0, 3.0}` for a struct
            // holding `float vals[3]`), as in the reference compiler.
            let mut pos = 0;
            let v = self.elided_init(items, &mut pos, ty)?;
            if pos < items.len() {
                return self.error(format!("too many initializers for `{}`", self.show(ty)));
            }
            return Ok(v);
        }
        let mut values = Vec::new();
        for (i, &pt) in parts.iter().enumerate() {
            values.push(match items.get(i) {
                Some(&item) => self.expr_expecting(item, pt)?,
                // A field's default value (`float gain = 2.0;`), else zero.
                None => match self.field_default(ty, i, pt)? {
                    Some(v) => v,
                    None => self.zero(pt)?,
                },
            });
        }
        Ok(self.emit(Op::Construct(values), ty))
    }

    /// A value of `ty` from the items of a flat initializer list from
    /// `*pos` on: an aggregate part takes as many items as it has scalars,
    /// unless its item is itself a list or a value of an aggregate type;
    /// parts left without items are zero.
    pub(super) fn elided_init(&mut self, items: &[ExprId], pos: &mut usize, ty: TypeId) -> R<ValueId> {
        let parts: Vec<TypeId> = match self.ty(ty).clone() {
            Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
            Type::Array(e, n) => vec![e; n as usize],
            Type::Vector(s, n) => vec![self.t(Type::Scalar(s)); n as usize],
            Type::Matrix { scalar, rows, cols } => vec![self.t(Type::Vector(scalar, cols)); rows as usize],
            _ => {
                let Some(&item) = items.get(*pos) else { return self.zero(ty) };
                *pos += 1;
                return self.expr_expecting(item, ty);
            }
        };
        let mut values = Vec::new();
        for pt in parts {
            let Some(&item) = items.get(*pos) else {
                values.push(self.zero(pt)?);
                continue;
            };
            let scalar_item = !matches!(self.body.expr(item), Expr::InitList(_))
                && matches!(self.inferred.expr_types.get(item.0 as usize), Some(Ty::Scalar(_)));
            let aggregate_part = !matches!(self.ty(pt), Type::Scalar(_));
            values.push(if scalar_item && aggregate_part {
                self.elided_init(items, pos, pt)?
            } else {
                *pos += 1;
                self.expr_expecting(item, pt)?
            });
        }
        Ok(self.emit(Op::Construct(values), ty))
    }

    /// `S v = { … }` for a struct holding buffers: the buffers are bound
    /// to `v`'s fields (`root`: `v`'s storage and the path to the struct
    /// initialized, stored at `var`), the other fields stored.
    pub(super) fn init_list_with_resources(
        &mut self,
        root: (ValueId, String),
        var: ValueId,
        items: &[ExprId],
        sem: &Ty,
    ) -> R<()> {
        let Ty::Adt { def, .. } = sem else { return self.error("an initializer list for a struct") };
        let db = self.db();
        let members: Vec<Option<String>> = item_of(db, *def)
            .map(|i| {
                i.members.iter().filter(|m| m.kind == ItemKind::Var && !m.is_static).map(|m| m.name.clone()).collect()
            })
            .unwrap_or_default();
        if items.len() > members.len() {
            return self.error(format!("too many initializers for `{sem}`"));
        }
        let ty = self.expr_ty_of(sem)?;
        let zero = self.zero(ty)?;
        self.store(var, zero);
        for (name, &item) in members.iter().zip(items) {
            let name = name.clone().unwrap_or_default();
            let path = join_path(&root.1, &name);
            if self.is_resource_expr(item) {
                let g = self.resource_global(item)?;
                self.res_fields.insert((root.0, path), g);
                continue;
            }
            let Type::Struct { fields, .. } = self.ty(ty).clone() else { unreachable!("a struct") };
            let Some(i) = fields.iter().position(|f| f.0 == name) else { continue };
            let p = self.field_addr(var, i as u32)?;
            let item_sem = self.inferred.type_of(item);
            let field_sem = match sem {
                Ty::Adt { def, args, .. } => {
                    let db = self.db();
                    let bindings: HashMap<String, Ty> = item_of(db, *def)
                        .map(|it| {
                            it.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect()
                        })
                        .unwrap_or_default();
                    let mut ctx = DeclCtx::specialized(db, *def, &bindings);
                    item_of(db, *def)
                        .and_then(|it| {
                            let m = it
                                .members
                                .iter()
                                .find(|m| m.kind == ItemKind::Var && m.name.as_deref() == Some(&name))?;
                            decl_type_ref(db, DefId::new(db, def.file(db), m.ast_index)).clone()
                        })
                        .map(|t| ctx.resolve(&t))
                        .unwrap_or(item_sem.clone())
                }
                _ => item_sem.clone(),
            };
            if !self.m.resource_fields(&field_sem).is_empty() {
                match self.body.expr(item).clone() {
                    Expr::InitList(inner) => self.init_list_with_resources((root.0, path), p, &inner, &field_sem)?,
                    _ => {
                        let v = self.expr_expecting(item, fields[i].1)?;
                        self.store(p, v);
                        self.copy_resources((root.0, path), item, &field_sem, Some(v))?;
                    }
                }
                continue;
            }
            let v = self.expr_expecting(item, fields[i].1)?;
            self.store(p, v);
        }
        // Fields left out take their default values.
        let Type::Struct { fields, .. } = self.ty(ty).clone() else { unreachable!("a struct") };
        for (i, f) in fields.iter().enumerate() {
            let given = members.iter().take(items.len()).any(|m| m.as_deref() == Some(f.0.as_str()));
            if !given {
                if let Some(v) = self.field_default(ty, i, f.1)? {
                    let p = self.field_addr(var, i as u32)?;
                    self.store(p, v);
                }
            }
        }
        Ok(())
    }

    /// The default value written on field `i` of the struct type `ty`
    /// (`struct S { float gain = 2.0; }`), if any.
    pub(super) fn field_default(&mut self, ty: TypeId, i: usize, field_ty: TypeId) -> R<Option<ValueId>> {
        let Some((def, _)) = self.m.structs.iter().find(|(_, &t)| t == ty).map(|(k, _)| k.clone()) else {
            return Ok(None);
        };
        let Type::Struct { fields, .. } = self.ty(ty) else { return Ok(None) };
        let field = fields[i].0.clone();
        let db = self.m.db;
        let Some(item) = item_of(db, def) else { return Ok(None) };
        let Some(m) = item
            .members
            .iter()
            .find(|m| m.kind == ItemKind::Var && !m.is_static && m.name.as_deref() == Some(field.as_str()))
        else {
            return Ok(None);
        };
        let mdef = DefId::new(db, def.file(db), m.ast_index);
        let Some(init) = body(db, mdef).initializer() else {
            return Ok(None);
        };
        let value = match self.m.const_value(mdef, init, field_ty) {
            Ok(v) => v,
            Err(_) => {
                return err(
                    expr_range(db, mdef, init).map(|r| r.0),
                    "a field's default value that is not a constant is not supported by code generation yet",
                )
            }
        };
        Ok(Some(self.const_to_value(&value, field_ty)))
    }

    /// A constant as a value of type `ty`.
    pub(super) fn const_to_value(&mut self, v: &crate::ir::ConstValue, ty: TypeId) -> ValueId {
        match v {
            crate::ir::ConstValue::Scalar(c) => self.konst(*c, ty),
            crate::ir::ConstValue::Composite(parts) => {
                let types: Vec<TypeId> = match self.ty(ty).clone() {
                    Type::Struct { fields, .. } => fields.iter().map(|f| f.1).collect(),
                    Type::Array(e, n) => vec![e; n as usize],
                    Type::Vector(s, n) => vec![self.t(Type::Scalar(s)); n as usize],
                    Type::Matrix { scalar, cols, rows } => vec![self.t(Type::Vector(scalar, cols)); rows as usize],
                    _ => vec![ty; parts.len()],
                };
                let values: Vec<ValueId> = parts.iter().zip(types).map(|(p, t)| self.const_to_value(p, t)).collect();
                self.emit(Op::Construct(values), ty)
            }
        }
    }

    /// `T(args)`: a conversion or a constructor.
    pub(super) fn construct(&mut self, t: TypeId, args: &[ExprId]) -> R<ValueId> {
        match self.ty(t).clone() {
            Type::Scalar(_) => match args {
                [a] => self.expr_expecting(*a, t),
                _ => self.error("a scalar conversion takes one value"),
            },
            Type::Vector(s, n) => {
                let mut parts = Vec::new();
                let mut count = 0u8;
                for &a in args {
                    let v = self.expr(a)?;
                    let part_ty = match *self.ty(self.ty_of(v)) {
                        Type::Vector(_, m) => {
                            count += m;
                            self.t(Type::Vector(s, m))
                        }
                        _ => {
                            count += 1;
                            self.t(Type::Scalar(s))
                        }
                    };
                    parts.push(self.coerce(v, part_ty)?);
                }
                match (parts.as_slice(), count) {
                    ([one], 1) if n > 1 => Ok(self.emit(Op::Splat(*one), t)),
                    ([one], _) if count == n => Ok(*one),
                    _ if count == n => Ok(self.emit(Op::Construct(parts), t)),
                    ([one], _) if count > n => self.coerce(*one, t),
                    _ => self.error(format!("{count} components for a `{}`", self.show(t))),
                }
            }
            Type::Matrix { scalar, rows, cols } => {
                let row = self.t(Type::Vector(scalar, cols));
                let st = self.t(Type::Scalar(scalar));
                if args.len() == rows as usize {
                    let parts = args.iter().map(|&a| self.expr_expecting(a, row)).collect::<R<Vec<_>>>()?;
                    Ok(self.emit(Op::Construct(parts), t))
                } else if args.len() == (rows * cols) as usize {
                    let scalars = args.iter().map(|&a| self.expr_expecting(a, st)).collect::<R<Vec<_>>>()?;
                    let rows_v: Vec<ValueId> =
                        scalars.chunks(cols as usize).map(|c| self.emit(Op::Construct(c.to_vec()), row)).collect();
                    Ok(self.emit(Op::Construct(rows_v), t))
                } else if let [one] = args {
                    self.expr_expecting(*one, t)
                } else {
                    self.error(format!("{} values for a `{}`", args.len(), self.show(t)))
                }
            }
            Type::Struct { .. } | Type::Array(..) => self.init_list(args, t),
            Type::DifferentialPair { primal, diff } => self.make_pair(primal, diff, args, t),
            _ => self.error(format!("cannot construct a `{}`", self.show(t))),
        }
    }
}
