//! A function's body as a whole ([`FnLower::function`]: parameters as
//! locals, then the body), and what `this` gives (its pointer, value,
//! fields and properties).

use super::*;

impl FnLower<'_, '_> {
    /// Lower the body (the `set` accessor's, for a setter).
    pub(super) fn function(&mut self, setter: bool) -> R<()> {
        self.span = self.b.func.span;
        let entry = self.b.new_block();
        self.cur = Some(entry);
        self.scopes.push(Vec::new());
        let params = self.b.func.params.clone();
        for p in &params {
            let v = self.b.add_block_param(entry, p.ty, self.span);
            let ptr = match p.dir {
                ParamDir::In => {
                    // Parameters are mutable locals in Slang.
                    let declared = match p.builtin {
                        Some(_) => {
                            let hir_param = self.body.params.iter().find(|hp| hp.name.as_deref() == Some(&p.name));
                            match hir_param {
                                Some(hp) => {
                                    let t = hp.ty.clone();
                                    self.resolve(&t)?
                                }
                                None => p.ty,
                            }
                        }
                        None => p.ty,
                    };
                    let var = self.var(declared);
                    let value = self.coerce(v, declared)?;
                    self.store(var, value);
                    var
                }
                ParamDir::Out | ParamDir::InOut => v,
            };
            self.scopes.last_mut().unwrap().push(Local { name: p.name.clone(), ptr });
        }
        // A pack parameter is one parameter per element (`declare_function`),
        // each a local its elements name (`each p` at element `k`).
        for hp in self.body.params.clone() {
            let Some(name) = hp.name.clone() else { continue };
            if let Ty::Pack(items) = self.ctx.resolve(&hp.ty) {
                for k in 0..items.len() {
                    let ptr = self.scopes[0].iter().find(|l| l.name == format!("{name}_{k}")).map(|l| l.ptr);
                    if let Some(ptr) = ptr {
                        self.scopes[0].push(Local { name: pack_local(&name, k as u32), ptr });
                    }
                }
            }
        }
        for (name, path, g) in self.resource_params.clone() {
            if path.is_empty() {
                let ptr = self.global_pointer(g, None)?;
                self.scopes.last_mut().unwrap().push(Local { name, ptr });
            } else if let Some(l) = self.scopes.iter().flatten().find(|l| l.name == name) {
                self.res_fields.insert((l.ptr, path), g);
            }
        }
        self.entry_point_uniforms()?;
        if self.is_init {
            // Fields an `__init` leaves alone are zero.
            let this_ty = self.b.func.ret;
            let this = self.var(this_ty);
            let zero = self.zero(this_ty)?;
            self.store(this, zero);
            self.scopes.last_mut().unwrap().push(Local { name: "this".into(), ptr: this });
        }
        let root = match setter {
            true => self.body.setter.as_ref().map(|s| s.root),
            false => self.body.root,
        };
        match (root, self.b.func.derivative) {
            (Some(root), _) => self.stmt(root)?,
            (None, Derivative::Custom(g)) if !setter => return self.body_from_derivative(g),
            (None, _) => return self.error("the function has no body"),
        }
        if self.cur.is_some() {
            let term = if self.is_init {
                Terminator::Return(Some(self.this_value()?))
            } else if matches!(self.ty(self.b.func.ret), Type::Void) {
                Terminator::Return(None)
            } else {
                Terminator::Unreachable
            };
            self.terminate(term);
        }
        Ok(())
    }

    /// A function declared without a body but with a forward derivative
    /// `g` (`[ForwardDerivative(g)] float f(float);`): its value is the
    /// primal part of `g` at the arguments with zero derivatives.
    fn body_from_derivative(&mut self, g: FuncId) -> R<()> {
        let params = self.b.func.params.clone();
        let g_params = self.m.module.function(g).params.clone();
        if params.len() != g_params.len() || params.iter().any(|p| p.dir != ParamDir::In) {
            return self.error("the function has no body (and its forward derivative does not take its parameters)");
        }
        let mut args = Vec::new();
        for (p, gp) in params.iter().zip(&g_params) {
            let ptr = self.scopes.iter().flatten().find(|l| l.name == p.name).map(|l| l.ptr);
            let Some(ptr) = ptr else { return self.error("the function has no body") };
            let v = self.load(ptr);
            let arg = match *self.ty(gp.ty) {
                Type::DifferentialPair { diff, .. } if gp.ty != p.ty => {
                    let zero = self.zero(diff)?;
                    self.emit(Op::Construct(vec![v, zero]), gp.ty)
                }
                _ => v,
            };
            args.push(CallArg::Value(arg));
        }
        let r = self.call_function(g, &args)?;
        let ret = self.b.func.ret;
        if matches!(self.ty(ret), Type::Void) {
            self.terminate(Terminator::Return(None));
            return Ok(());
        }
        let value = match *self.ty(self.ty_of(r)) {
            Type::DifferentialPair { .. } if self.ty_of(r) != ret => self.emit(Op::Extract(r, 0), ret),
            _ => r,
        };
        self.terminate(Terminator::Return(Some(value)));
        Ok(())
    }

    /// The storage of `this`, in a method or `__init`.
    pub(super) fn this_ptr(&self) -> Option<ValueId> {
        self.scopes.iter().flatten().find(|l| l.name == "this").map(|l| l.ptr)
    }

    pub(super) fn this_value(&mut self) -> R<ValueId> {
        match self.this_ptr() {
            Some(p) => Ok(self.load(p)),
            None => self.error("`this` outside a method"),
        }
    }

    /// The index of the field `name` of `this` (a name used without a
    /// receiver in a method), unless a local hides it.
    pub(super) fn this_field(&self, name: &str) -> Option<u32> {
        if self.scopes.iter().flatten().any(|l| l.name == name) {
            return None;
        }
        let ptr = self.this_ptr()?;
        let (t, _) = self.m.module.types.pointee(self.ty_of(ptr))?;
        match self.ty(t) {
            Type::Struct { fields, .. } => fields.iter().position(|f| f.0 == name).map(|i| i as u32),
            _ => None,
        }
    }

    /// A `static const` integer named by `e` (`K`, `S.K`, `S<2>.K`, `K`
    /// inside `S`), as a constant: its initial value evaluated with the
    /// generic arguments bound here (`static const int P = I * O;`).
    pub(super) fn static_int_const(&mut self, e: ExprId) -> R<Option<ValueId>> {
        let Some(def) = self.static_var(e) else { return Ok(None) };
        if !item_of(self.db(), def).is_some_and(|i| i.modifiers.contains(&Modifier::Const)) {
            return Ok(None);
        }
        let t = self.expr_ty(e)?;
        if !self.m.module.types.scalar_of(t).is_some_and(|s| matches!(s, Scalar::Int32 | Scalar::UInt32)) {
            return Ok(None);
        }
        let body = self.body.clone();
        let mut ctx = self.ctx.clone();
        Ok(ctx.eval_int(&body, e).map(|v| self.konst(Const::Int(v), t)))
    }

    /// The property `name` of `this`'s type, used without a receiver in a
    /// method (unless a local or field hides it).
    pub(super) fn this_property(&self, name: &str) -> Option<DefId> {
        if self.scopes.iter().flatten().any(|l| l.name == name) || self.this_field(name).is_some() {
            return None;
        }
        self.this_ptr()?;
        property_named(self.db(), &self.ctx.this, name)
    }
}
