//! Variadic generics: a body with its packs' lengths known, its
//! `expand` expressions unrolled ([`expand_packs`]).
//!
//! A generic function with a pack parameter (`each T`) is lowered per
//! instance, where each pack has a length: an argument `expand e` of a call
//! (or an element of an initializer list, or a statement `expand e;`)
//! becomes `e` once per element,
//! with each `each x` (and `each T` in the types `e` names) replaced by
//! that element ([`Expr::PackElem`], [`TypeRef::PackElem`]). Inference of
//! the instance then types each copy on its own, so a pack of different
//! types (`each T` bound to `float, half`) gives each copy its element's
//! type.

use super::{Body, Expr, ExprId, GenericArgRef, PathSegment, Stmt, StmtId, TypeRef};

/// `body` with the `expand` arguments unrolled, where `len` gives the
/// length of a pack by name (a type pack parameter, or a parameter
/// holding a value pack); `None` when the body has no `expand` whose
/// length is known.
pub fn expand_packs(body: &Body, len: &dyn Fn(&str) -> Option<usize>) -> Option<Body> {
    let mut out = body.clone();
    let mut changed = false;
    // `expand f(each x);` as a statement: one statement per element.
    for i in 0..out.stmts.len() {
        let Stmt::Expr(e) = out.stmts[i] else { continue };
        let Expr::Expand(pattern) = *out.expr(e) else { continue };
        let Some(n) = pack_len(&out, pattern, len) else { continue };
        let mut block = Vec::new();
        for k in 0..n {
            let copy = copy_at(&mut out, pattern, k as u32);
            out.stmts.push(Stmt::Expr(copy));
            block.push(StmtId(out.stmts.len() as u32 - 1));
        }
        out.stmts[i] = Stmt::Block(block);
        changed = true;
    }
    // (Copies are appended and visited in turn, so `expand` nested in an
    // argument is unrolled too.)
    let mut i = 0;
    while i < out.exprs.len() {
        let items = match &out.exprs[i] {
            Expr::Call { args, .. } => args.clone(),
            Expr::InitList(items) => items.clone(),
            _ => Vec::new(),
        };
        if items.iter().any(|&a| matches!(out.expr(a), Expr::Expand(_))) {
            let mut flat = Vec::new();
            let mut known = true;
            for a in items {
                let Expr::Expand(pattern) = *out.expr(a) else {
                    flat.push(a);
                    continue;
                };
                match pack_len(&out, pattern, len) {
                    Some(n) => {
                        for k in 0..n {
                            flat.push(copy_at(&mut out, pattern, k as u32));
                        }
                    }
                    None => {
                        known = false;
                        flat.push(a);
                    }
                }
            }
            if known {
                changed = true;
                match &mut out.exprs[i] {
                    Expr::Call { args, .. } => *args = flat,
                    Expr::InitList(items) => *items = flat,
                    _ => {}
                }
            }
        }
        i += 1;
    }
    changed.then_some(out)
}

/// The length of the packs `expand e` names in `e` (through `each x` or
/// `each T`), if one of them is known.
fn pack_len(body: &Body, e: ExprId, len: &dyn Fn(&str) -> Option<usize>) -> Option<usize> {
    let mut names = Vec::new();
    each_names(body, e, &mut names);
    names.iter().find_map(|n| len(n))
}

/// The names under `each` in the expression `e` (not inside a nested
/// `expand`).
fn each_names(body: &Body, e: ExprId, out: &mut Vec<String>) {
    match body.expr(e) {
        Expr::Each(x) => match body.expr(*x) {
            Expr::Path(segs, _) if segs.len() == 1 => out.push(segs[0].name.clone()),
            _ => each_names(body, *x, out),
        },
        Expr::Expand(_) => {}
        other => {
            for t in types_of(other) {
                type_each_names(t, out);
            }
            for c in children(other) {
                each_names(body, c, out);
            }
        }
    }
}

/// The names under `each` in a type reference.
pub fn type_each_names(t: &TypeRef, out: &mut Vec<String>) {
    match t {
        TypeRef::Each(x) => match &**x {
            TypeRef::Path(segs) if segs.len() == 1 => out.push(segs[0].name.clone()),
            x => type_each_names(x, out),
        },
        TypeRef::Path(segs) => segs.iter().for_each(|s| args_each_names(&s.args, out)),
        TypeRef::Array(e, _) | TypeRef::Pointer(e) | TypeRef::PackElem(e, _) => type_each_names(e, out),
        TypeRef::Tuple(items) => items.iter().for_each(|t| type_each_names(t, out)),
        TypeRef::Expand(_) | TypeRef::This | TypeRef::Unknown => {}
    }
}

fn args_each_names(args: &[GenericArgRef], out: &mut Vec<String>) {
    for a in args {
        if let GenericArgRef::Type(t) = a {
            type_each_names(t, out);
        }
    }
}

/// `t` at element `index` of its packs: each `each T` (not inside a
/// nested `expand`) becomes [`TypeRef::PackElem`].
pub fn type_at(t: &TypeRef, index: u32) -> TypeRef {
    match t {
        TypeRef::Each(x) => TypeRef::PackElem(x.clone(), index),
        TypeRef::Path(segs) => TypeRef::Path(segs_at(segs, index)),
        TypeRef::Array(e, n) => TypeRef::Array(Box::new(type_at(e, index)), n.clone()),
        TypeRef::Pointer(e) => TypeRef::Pointer(Box::new(type_at(e, index))),
        TypeRef::Tuple(items) => TypeRef::Tuple(items.iter().map(|t| type_at(t, index)).collect()),
        other => other.clone(),
    }
}

fn segs_at(segs: &[PathSegment], index: u32) -> Vec<PathSegment> {
    segs.iter()
        .map(|s| PathSegment {
            name: s.name.clone(),
            args: s
                .args
                .iter()
                .map(|a| match a {
                    GenericArgRef::Type(t) => GenericArgRef::Type(type_at(t, index)),
                    v => v.clone(),
                })
                .collect(),
        })
        .collect()
}

/// A copy of the expression `e` at element `index` of its packs,
/// appended to `body`.
fn copy_at(body: &mut Body, e: ExprId, index: u32) -> ExprId {
    let expr = body.expr(e).clone();
    let c = |body: &mut Body, x: ExprId| copy_at(body, x, index);
    let copied = match expr {
        Expr::Each(x) => {
            let pack = c(body, x);
            Expr::PackElem { pack, index }
        }
        // (A nested `expand` is unrolled when its call is visited.)
        Expr::Expand(_) => return e,
        Expr::Missing | Expr::Literal(_) | Expr::This | Expr::PackElem { .. } => expr,
        Expr::Path(segs, global) => Expr::Path(segs_at(&segs, index), global),
        Expr::Call { callee, args } => {
            let callee = c(body, callee);
            let args = args.into_iter().map(|a| c(body, a)).collect();
            Expr::Call { callee, args }
        }
        Expr::Member { receiver, name, arrow, generic_args } => {
            let receiver = c(body, receiver);
            let generic_args = segs_at(&[PathSegment { name: String::new(), args: generic_args }], index)
                .pop()
                .map(|s| s.args)
                .unwrap_or_default();
            Expr::Member { receiver, name, arrow, generic_args }
        }
        Expr::Index { base, index: i } => {
            let base = c(body, base);
            Expr::Index { base, index: c(body, i) }
        }
        Expr::Binary { op, lhs, rhs } => {
            let lhs = c(body, lhs);
            Expr::Binary { op, lhs, rhs: c(body, rhs) }
        }
        Expr::Prefix { op, expr } => Expr::Prefix { op, expr: c(body, expr) },
        Expr::Postfix { op, expr } => Expr::Postfix { op, expr: c(body, expr) },
        Expr::Ternary { cond, then, els } => {
            let cond = c(body, cond);
            let then = c(body, then);
            Expr::Ternary { cond, then, els: c(body, els) }
        }
        Expr::Cast { ty, expr } => Expr::Cast { ty: type_at(&ty, index), expr: c(body, expr) },
        Expr::InitList(items) => Expr::InitList(items.into_iter().map(|a| c(body, a)).collect()),
        Expr::Diff { forward, func } => Expr::Diff { forward, func: c(body, func) },
        Expr::NoDiff(x) => Expr::NoDiff(c(body, x)),
        Expr::Is { expr, ty } => Expr::Is { expr: c(body, expr), ty: type_at(&ty, index) },
        Expr::As { expr, ty } => Expr::As { expr: c(body, expr), ty: type_at(&ty, index) },
        Expr::SizeOf { keyword, subs, ty } => Expr::SizeOf {
            keyword,
            subs: subs.into_iter().map(|a| c(body, a)).collect(),
            ty: ty.map(|t| type_at(&t, index)),
        },
        Expr::Other(subs) => Expr::Other(subs.into_iter().map(|a| c(body, a)).collect()),
    };
    body.exprs.push(copied);
    ExprId(body.exprs.len() as u32 - 1)
}

/// The type references written in an expression (not its
/// sub-expressions').
fn types_of(e: &Expr) -> Vec<&TypeRef> {
    match e {
        Expr::Path(segs, _) => segs.iter().flat_map(|s| generic_types(&s.args)).collect(),
        Expr::Member { generic_args, .. } => generic_types(generic_args),
        Expr::Cast { ty, .. } | Expr::Is { ty, .. } | Expr::As { ty, .. } => vec![ty],
        Expr::SizeOf { ty: Some(ty), .. } => vec![ty],
        _ => Vec::new(),
    }
}

fn generic_types(args: &[GenericArgRef]) -> Vec<&TypeRef> {
    args.iter()
        .filter_map(|a| match a {
            GenericArgRef::Type(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// The direct sub-expressions of an expression.
fn children(e: &Expr) -> Vec<ExprId> {
    match e {
        Expr::Missing | Expr::Literal(_) | Expr::Path(..) | Expr::This => Vec::new(),
        Expr::Call { callee, args } => std::iter::once(*callee).chain(args.iter().copied()).collect(),
        Expr::Member { receiver, .. } => vec![*receiver],
        Expr::Index { base, index } => vec![*base, *index],
        Expr::Binary { lhs, rhs, .. } => vec![*lhs, *rhs],
        Expr::Prefix { expr, .. }
        | Expr::Postfix { expr, .. }
        | Expr::Cast { expr, .. }
        | Expr::Is { expr, .. }
        | Expr::As { expr, .. }
        | Expr::NoDiff(expr)
        | Expr::Expand(expr)
        | Expr::Each(expr) => vec![*expr],
        Expr::PackElem { pack, .. } => vec![*pack],
        Expr::Ternary { cond, then, els } => vec![*cond, *then, *els],
        Expr::InitList(items) | Expr::Other(items) | Expr::SizeOf { subs: items, .. } => items.clone(),
        Expr::Diff { func, .. } => vec![*func],
    }
}
