//! Binding a generic function's parameters from a call's arguments: the
//! one unification used by overload resolution ([`Infer::instantiate`])
//! and by code generation ([`call_bindings`]).

use super::*;

/// Whether a type still mentions unbound generic parameters.
pub(super) fn ty_is_open(t: &Ty) -> bool {
    match t {
        Ty::Param { .. } | Ty::Assoc(..) => true,
        Ty::Array(e, _) | Ty::Pointer(e) => ty_is_open(e),
        Ty::Adt { args, .. } => args.iter().any(ty_is_open),
        Ty::Tuple(items) | Ty::Pack(items) => items.iter().any(ty_is_open),
        _ => false,
    }
}

/// Bind generic parameter `name` to `value`; `false` on a certain
/// conflict.
fn bind_one(name: &str, value: Ty, bind: &mut HashMap<String, Ty>) -> bool {
    match bind.get(name) {
        None => {
            bind.insert(name.to_string(), value);
            true
        }
        Some(prev) if *prev == value || prev.is_unknown() => true,
        // Two different scalar types: an implicit conversion joins them.
        Some(Ty::Scalar(p)) => match value {
            Ty::Scalar(v) => {
                let joined = Scalar::promote(*p, v);
                bind.insert(name.to_string(), Ty::Scalar(joined));
                true
            }
            _ => false,
        },
        Some(_) => false,
    }
}

/// The generic parameters of the type method `def` belongs to, bound from
/// the type of the receiver, `owner` (`S<A…>`): `S`'s own parameters, and
/// those of the extension declaring `def` (`extension<U> S<U>`: `U` is the
/// receiver's argument; `extension<T : I> T`: `T` is the receiver's
/// type). Shared by overload resolution and code generation.
pub fn receiver_bindings(db: &dyn Db, def: DefId, owner: &Ty) -> HashMap<String, Ty> {
    let mut out = HashMap::new();
    let Some(parent) = parent_of(db, def) else { return out };
    if let Some((name, _)) = super::generics::blanket_param(db, parent) {
        // `extension<T : I> T`: `T` is the receiver's type.
        out.insert(name.clone(), owner.clone());
        return out;
    }
    let Ty::Adt { def: o, args, .. } = owner else { return out };
    let own = |out: &mut HashMap<String, Ty>| {
        for (g, a) in item_of(db, *o).iter().flat_map(|i| i.generic_params.iter()).zip(args) {
            if let (Some(n), false) = (&g.name, a.is_unknown()) {
                out.insert(n.clone(), a.clone());
            }
        }
    };
    if parent == *o {
        own(&mut out);
    } else if item_of(db, parent).is_some_and(|i| i.kind == ItemKind::Extension) {
        if let Ty::Adt { def: s, args: pattern, .. } = DeclCtx::for_def(db, parent).this {
            if s == *o {
                own(&mut out);
                for (p, a) in pattern.iter().zip(args) {
                    if let (Ty::Param { name, .. }, false) = (p, a.is_unknown()) {
                        out.insert(name.clone(), a.clone());
                    }
                }
            }
        }
    }
    out
}

/// How a call of `def` binds `def`'s own generic parameters, given the
/// argument types and the generic arguments written at the call (already
/// resolved): by name, value parameters as `Ty::Const`. Parameters
/// nothing binds are absent.
pub fn call_bindings(db: &dyn Db, def: DefId, args: &[Ty], explicit: &[Ty]) -> HashMap<String, Ty> {
    let (mut bind, _) = bind_generics(fn_sig(db, def), args, explicit.iter().cloned());
    bind.retain(|_, t| !t.is_unknown());
    bind
}

/// How a call of a function with signature `sig` binds its generic
/// parameters: the generic arguments written at the call (resolved, in
/// order), then each parameter's type matched against its argument's.
/// The flag is `false` on a certain conflict (the call cannot mean this
/// function).
pub(super) fn bind_generics(
    sig: &FnSig,
    args: &[Ty],
    explicit: impl IntoIterator<Item = Ty>,
) -> (HashMap<String, Ty>, bool) {
    let gp = &sig.generic_params;
    let mut explicit: Vec<Ty> = explicit.into_iter().collect();
    // A pack parameter (last) takes the remaining generic arguments.
    if let Some(k) = gp.iter().position(|g| sig.packs.contains(g)) {
        if explicit.len() > k {
            let rest = explicit.split_off(k);
            explicit.push(Ty::Pack(rest.into_iter().flat_map(pack_items).collect()));
        }
    }
    let mut bind: HashMap<String, Ty> = gp.iter().cloned().zip(explicit).collect();
    let written: Vec<String> = bind.keys().cloned().collect();
    let mut ok = true;
    for (i, (p, a)) in sig.params.iter().zip(args).enumerate() {
        if sig.is_pack_param(i) {
            // The pack parameter (last) takes the remaining arguments.
            ok &= bind_pack(&p.ty, &args[i..], gp, &sig.packs, &mut bind);
            break;
        }
        // A parameter of a generic type written at the call as a struct
        // or interface (`f<ITerm>(multiply)`): the argument converts to
        // it (a struct to an interface it conforms to).
        let converts = matches!(&p.ty, TypeRef::Path(segs) if segs.len() == 1
                && segs[0].args.is_empty()
                && written.contains(&segs[0].name)
                && matches!(bind.get(&segs[0].name), Some(Ty::Adt { .. }))
                && matches!(a, Ty::Adt { .. }));
        ok &= unify(&p.ty, a, gp, &mut bind, sig.elementwise) || converts;
    }
    // A pack parameter given no arguments: empty packs.
    if let Some(i) = (args.len()..sig.params.len()).find(|&i| sig.is_pack_param(i)) {
        ok &= bind_pack(&sig.params[i].ty, &[], gp, &sig.packs, &mut bind);
    }
    (bind, ok)
}

/// The elements of a pack, or a lone type.
fn pack_items(t: Ty) -> Vec<Ty> {
    match t {
        Ty::Pack(items) => items,
        t => vec![t],
    }
}

/// Bind the packs a pack parameter's type names from the arguments it
/// takes: `T` (a pack) to their types, and each pack under `each` of
/// `expand P` to what `P` matches in each argument. `false` on a certain
/// conflict.
fn bind_pack(p: &TypeRef, args: &[Ty], gp: &[String], packs: &[String], bind: &mut HashMap<String, Ty>) -> bool {
    let (pattern, names) = match p {
        TypeRef::Path(segs) if segs.len() == 1 && packs.contains(&segs[0].name) => {
            (TypeRef::Each(Box::new(p.clone())), vec![segs[0].name.clone()])
        }
        TypeRef::Expand(pattern) => {
            let mut names = Vec::new();
            crate::hir::packs::type_each_names(pattern, &mut names);
            ((**pattern).clone(), names)
        }
        _ => return true,
    };
    // `P` with `each T` read as `T`, matched per argument.
    let plain = strip_each(&pattern);
    let mut elems: Vec<Vec<Ty>> = vec![Vec::new(); names.len()];
    for a in args {
        let mut one = HashMap::new();
        if !unify(&plain, a, &names, &mut one, false) {
            return false;
        }
        for (k, n) in names.iter().enumerate() {
            elems[k].push(one.remove(n).unwrap_or(Ty::Unknown));
        }
    }
    let mut ok = true;
    for (n, items) in names.into_iter().zip(elems) {
        if gp.contains(&n) {
            let value = Ty::Pack(items);
            ok &= match bind.get(&n) {
                // (Written at the call: the arguments convert.)
                Some(Ty::Pack(prev)) => prev.len() == args.len(),
                _ => bind_one(&n, value, bind),
            };
        }
    }
    ok
}

/// A type reference with `each T` replaced by `T`.
fn strip_each(t: &TypeRef) -> TypeRef {
    match t {
        TypeRef::Each(x) => strip_each(x),
        TypeRef::Path(segs) => TypeRef::Path(
            segs.iter()
                .map(|s| PathSegment {
                    name: s.name.clone(),
                    args: s
                        .args
                        .iter()
                        .map(|a| match a {
                            GenericArgRef::Type(t) => GenericArgRef::Type(strip_each(t)),
                            v => v.clone(),
                        })
                        .collect(),
                })
                .collect(),
        ),
        TypeRef::Array(e, n) => TypeRef::Array(Box::new(strip_each(e)), n.clone()),
        TypeRef::Pointer(e) => TypeRef::Pointer(Box::new(strip_each(e))),
        TypeRef::Tuple(items) => TypeRef::Tuple(items.iter().map(strip_each).collect()),
        other => other.clone(),
    }
}

/// Match a parameter type against an argument type, binding generic
/// parameters; `false` on a certain conflict.
fn unify(p: &TypeRef, a: &Ty, gp: &[String], bind: &mut HashMap<String, Ty>, elementwise: bool) -> bool {
    if a.is_unknown() {
        return true;
    }
    // `T[N]` given an array: its element type and length.
    if let (TypeRef::Array(elem, len), Ty::Array(a_elem, a_len)) = (p, a) {
        let ok_len = match (len, a_len) {
            (crate::hir::ArrayLen::Named(n), Some(l)) if gp.contains(n) => bind_one(n, Ty::Const(*l as i64), bind),
            _ => true,
        };
        return ok_len && unify(elem, a_elem, gp, bind, elementwise);
    }
    let TypeRef::Path(segs) = p else { return true };
    let [seg] = segs.as_slice() else { return true };
    if seg.args.is_empty() && gp.contains(&seg.name) {
        let value = if elementwise { a.scalar().map(Ty::Scalar).unwrap_or_else(|| a.clone()) } else { a.clone() };
        return bind_one(&seg.name, value, bind);
    }
    let arg_name = |x: &GenericArgRef| match x {
        GenericArgRef::Type(TypeRef::Path(s)) if s.len() == 1 && s[0].args.is_empty() && gp.contains(&s[0].name) => {
            Some(s[0].name.clone())
        }
        _ => None,
    };
    match (seg.name.as_str(), seg.args.as_slice(), a) {
        ("vector", [t, n], Ty::Vector(s, len)) => {
            let ok_t = arg_name(t).is_none_or(|name| bind_one(&name, Ty::Scalar(*s), bind));
            let ok_n = arg_name(n).is_none_or(|name| bind_one(&name, Ty::Const(*len as i64), bind));
            ok_t && ok_n
        }
        ("matrix", [t, r, c], Ty::Matrix(s, rows, cols)) => {
            let ok_t = arg_name(t).is_none_or(|name| bind_one(&name, Ty::Scalar(*s), bind));
            let ok_r = arg_name(r).is_none_or(|name| bind_one(&name, Ty::Const(*rows as i64), bind));
            let ok_c = arg_name(c).is_none_or(|name| bind_one(&name, Ty::Const(*cols as i64), bind));
            ok_t && ok_r && ok_c
        }
        // A generic vector or matrix parameter given a struct, a string, or
        // the other shape.
        ("vector" | "matrix", [..], Ty::Adt { .. } | Ty::String) => false,
        ("vector", [..], Ty::Matrix(..)) | ("matrix", [..], Ty::Vector(..) | Ty::Scalar(_)) => false,
        // `S<T>` given an `S<float>`: argument by argument.
        (_, [_, ..], Ty::Adt { name, args, .. }) if *name == seg.name && args.len() == seg.args.len() => {
            seg.args.iter().zip(args).all(|(g, a)| match g {
                GenericArgRef::Type(t) => unify(t, a, gp, bind, false),
                GenericArgRef::Value(_) => true,
            })
        }
        _ => true,
    }
}

/// Whether a type reference names one of `names` anywhere.
pub(super) fn type_ref_mentions(t: &TypeRef, names: &[String]) -> bool {
    match t {
        TypeRef::Path(segs) => segs.iter().any(|s| {
            names.contains(&s.name)
                || s.args.iter().any(|a| matches!(a, GenericArgRef::Type(t) if type_ref_mentions(t, names)))
        }),
        TypeRef::Array(e, _) | TypeRef::Pointer(e) => type_ref_mentions(e, names),
        TypeRef::Tuple(items) => items.iter().any(|t| type_ref_mentions(t, names)),
        TypeRef::Expand(t) | TypeRef::Each(t) | TypeRef::PackElem(t, _) => type_ref_mentions(t, names),
        TypeRef::This => true,
        TypeRef::Unknown => true,
    }
}
