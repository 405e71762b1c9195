//! Generic constraints: what a generic parameter is required to conform
//! to (`<T : I>`, `where T : I`), and whether a type certainly does not
//! conform to an interface (for E38029 and for member lookup on `T`),
//! through its supertypes, its extensions' and blanket extensions'
//! (`extension<T : I> T : J`, whose methods also belong to every type
//! conforming to `I`).

use std::collections::{HashMap, HashSet};

use slang_syntax::ast::{self, AstNode};
use slang_syntax::{SyntaxKind, SyntaxNode};

use super::{is_core, item_of, parent_of, DeclCtx};
use crate::hir::{lower_type, DefId, TypeRef};
use crate::item_tree::{item_tree, ItemKind};
use crate::ty::{Ty, TypeResolver};
use crate::{Db, SourceFile};

/// The constraints written on generic parameter `gdef`: after its `:` and
/// in `where` clauses of its declaration. (Tracked, like everything here
/// that reads syntax, so that inference depending on it is not re-run by
/// edits elsewhere in the file.)
#[salsa::tracked(returns(ref))]
pub fn param_constraints(db: &dyn Db, gdef: DefId) -> Vec<TypeRef> {
    let Some(node) = crate::hir::decl_syntax(db, gdef) else { return Vec::new() };
    let name = item_of(db, gdef).and_then(|i| i.name.clone()).unwrap_or_default();
    let mut out: Vec<TypeRef> = node.children().filter_map(ast::Type::cast).map(|t| lower_type(Some(t))).collect();
    if let Some(owner) = parent_of(db, gdef).and_then(|p| crate::hir::decl_syntax(db, p)) {
        out.extend(where_constraints(&owner, &name));
    }
    // `typealias IBoth = IA & IB;` as a constraint: both interfaces.
    let scope = crate::name_res::global_scope(db, gdef.file(db));
    out.into_iter()
        .flat_map(|t| {
            let conjunction = match &t {
                TypeRef::Path(segs) if segs.len() == 1 && segs[0].args.is_empty() => scope
                    .lookup(&segs[0].name)
                    .and_then(|d| d.first())
                    .filter(|d| d.kind == ItemKind::Typealias)
                    .and_then(|d| crate::hir::decl_syntax(db, DefId::new(db, d.file, d.ast_index)))
                    .map(|n| n.children().filter_map(ast::Type::cast).map(|t| lower_type(Some(t))).collect::<Vec<_>>())
                    .filter(|parts| parts.len() > 1),
                _ => None,
            };
            conjunction.unwrap_or_else(|| vec![t])
        })
        .collect()
}

/// The constraints of `where optional T : I` clauses on generic parameter
/// `gdef`: the argument need not conform (code tests `T is I`).
#[salsa::tracked(returns(ref))]
pub fn optional_constraints(db: &dyn Db, gdef: DefId) -> Vec<TypeRef> {
    let name = item_of(db, gdef).and_then(|i| i.name.clone()).unwrap_or_default();
    parent_of(db, gdef)
        .and_then(|p| crate::hir::decl_syntax(db, p))
        .map(|owner| where_preds(&owner, &name, true))
        .unwrap_or_default()
}

fn where_constraints(owner: &SyntaxNode, name: &str) -> Vec<TypeRef> {
    where_preds(owner, name, false)
}

/// The constraints of `where` clauses on `name` (all of them, or only the
/// `optional` ones).
fn where_preds(owner: &SyntaxNode, name: &str, only_optional: bool) -> Vec<TypeRef> {
    let mut out = Vec::new();
    for clause in owner.children().filter(|c| c.kind() == SyntaxKind::WHERE_CLAUSE) {
        for pred in clause.children().filter(|c| c.kind() == SyntaxKind::WHERE_PRED) {
            let optional = pred.children_with_tokens().any(|e| e.kind() == SyntaxKind::OPTIONAL_KW);
            if only_optional && !optional {
                continue;
            }
            let types: Vec<ast::Type> = pred.children().filter_map(ast::Type::cast).collect();
            if let [subject, rest @ ..] = types.as_slice() {
                if subject.syntax().text() == name {
                    out.extend(rest.iter().map(|t| lower_type(Some(t.clone()))));
                }
            }
        }
    }
    out
}

/// Whether the generic parameter `gdef` is constrained at all (then its
/// members come from the constraints).
pub fn has_constraints(db: &dyn Db, gdef: DefId) -> bool {
    !param_constraints(db, gdef).is_empty()
}

/// The interfaces (user or core) that constrain `gdef`, resolved; `None`
/// if some constraint does not resolve to an interface.
pub fn constraint_interfaces(db: &dyn Db, gdef: DefId) -> Option<Vec<DefId>> {
    let owner = parent_of(db, gdef)?;
    let mut ctx = DeclCtx::for_def(db, owner);
    param_constraints(db, gdef)
        .iter()
        .map(|t| match ctx.resolve(t) {
            Ty::Adt { def, .. } if item_of(db, def).is_some_and(|i| i.kind == ItemKind::Interface) => Some(def),
            _ => None,
        })
        .collect()
}

/// The interfaces an argument for `gdef` must conform to: its
/// [`constraint_interfaces`] but those of `where optional` clauses.
pub fn required_interfaces(db: &dyn Db, gdef: DefId) -> Option<Vec<DefId>> {
    let optional = optional_constraints(db, gdef);
    if optional.is_empty() {
        return constraint_interfaces(db, gdef);
    }
    let mut ctx = DeclCtx::for_def(db, parent_of(db, gdef)?);
    let skip: Vec<Ty> = optional.iter().map(|t| ctx.resolve(t)).collect();
    let all = constraint_interfaces(db, gdef)?;
    Some(all.into_iter().filter(|d| !skip.iter().any(|t| matches!(t, Ty::Adt { def, .. } if def == d))).collect())
}

/// The interfaces `iface` directly inherits, and whether all of them
/// resolved.
#[salsa::tracked(returns(ref))]
pub fn interface_bases(db: &dyn Db, iface: DefId) -> (Vec<DefId>, bool) {
    let Some(node) = crate::hir::decl_syntax(db, iface) else { return (Vec::new(), false) };
    let mut ctx = DeclCtx::for_def(db, iface);
    let mut ok = true;
    let mut out = Vec::new();
    if let Some(i) = ast::Interface::cast(node) {
        for t in i.supertypes() {
            match ctx.resolve(&lower_type(Some(t))) {
                Ty::Adt { def, .. } if item_of(db, def).is_some_and(|i| i.kind == ItemKind::Interface) => out.push(def),
                _ => ok = false,
            }
        }
    }
    (out, ok)
}

/// Interface `iface` and every interface it inherits.
pub fn interface_closure(db: &dyn Db, iface: DefId, out: &mut HashSet<DefId>) -> bool {
    if !out.insert(iface) {
        return true;
    }
    let (bases, mut ok) = interface_bases(db, iface).clone();
    for b in bases {
        ok &= interface_closure(db, b, out);
    }
    ok
}

/// Whether `ty` certainly does not conform to interface `iface`, as seen
/// from `file`: a user struct whose supertypes (and those its extensions
/// add) all resolve and do not lead to `iface`.
pub fn certainly_not_conforming(db: &dyn Db, file: SourceFile, ty: &Ty, iface: DefId) -> bool {
    matches!(ty, Ty::Adt { args, .. } if args.is_empty()) && conformance(db, file, ty, iface) == Some(false)
}

/// Whether user type `ty` conforms to `iface` (`Some(true)`), certainly
/// does not (`Some(false)`), or cannot be told here (`None`).
pub fn conformance(db: &dyn Db, file: SourceFile, ty: &Ty, iface: DefId) -> Option<bool> {
    let Ty::Adt { def, .. } = ty else { return None };
    type_conformance(db, file, *def, iface)
}

/// The associated type of its interface that requirement `req` returns
/// (`MaterialInstance setup();` in an interface declaring
/// `associatedtype MaterialInstance : IMaterialInstance`): its
/// declaration. Called on an interface-typed value, the result is of the
/// value's associated type ([`Ty::Assoc`] of the interface type).
pub fn associated_result(db: &dyn Db, req: DefId) -> Option<DefId> {
    let iface = parent_of(db, req).filter(|&p| item_of(db, p).is_some_and(|i| i.kind == ItemKind::Interface))?;
    let crate::hir::TypeRef::Path(segs) = &crate::infer::fn_sig(db, req).ret else { return None };
    let [seg] = segs.as_slice() else { return None };
    if !seg.args.is_empty() {
        return None;
    }
    associated_type(db, iface, &seg.name)
}

/// The declaration of associated type `name` of interface `iface` (or of
/// an interface it inherits).
pub fn associated_type(db: &dyn Db, iface: DefId, name: &str) -> Option<DefId> {
    let mut closure = HashSet::new();
    interface_closure(db, iface, &mut closure);
    let mut all: Vec<DefId> = closure.into_iter().collect();
    all.sort_by_key(|d| (d != &iface, d.ast_index(db)));
    all.into_iter().find_map(|i| {
        let item = item_of(db, i)?;
        let m = item.members.iter().find(|m| m.kind == ItemKind::AssociatedType && m.name.as_deref() == Some(name))?;
        Some(DefId::new(db, i.file(db), m.ast_index))
    })
}

/// The supertypes of user struct or class `def` as seen from `file`.
struct Supertypes {
    /// Written on the type and on the non-generic extensions of it, each
    /// with the declaration it is written in.
    direct: Vec<(DefId, TypeRef)>,
    /// Blanket extensions that add conformances to every type conforming
    /// to their parameter's constraints (`extension<T : IFoo> T : IBar`),
    /// as declarations.
    blanket: Vec<DefId>,
}

/// The supertypes written on user struct or class `def`, on the
/// non-generic extensions of it and on blanket extensions that `file`
/// can see; `None` when that cannot be told here (item macros, or a
/// generic extension of the type, or of an alias, that adds supertypes;
/// extensions of an alias count for the type it names). Generic
/// extensions that add members only (`extension<T : IFoo> T { … }`) or
/// extend other types decide nothing.
fn written_supertypes(db: &dyn Db, file: SourceFile, def: DefId) -> Option<Supertypes> {
    let name = &item_of(db, def)?.name.clone().unwrap_or_default();
    let node = crate::hir::decl_syntax(db, def)?;
    let mut supertypes: Vec<(DefId, ast::Type)> = Vec::new();
    let mut blanket = Vec::new();
    if let Some(s) = ast::Struct::cast(node.clone()) {
        supertypes.extend(s.supertypes().map(|t| (def, t)));
    } else if let Some(c) = ast::Class::cast(node.clone()) {
        supertypes.extend(c.supertypes().map(|t| (def, t)));
    }
    // Extensions anywhere the file can see.
    let files: Vec<SourceFile> =
        crate::module_graph::visible_files(db, file).iter().copied().chain([def.file(db)]).collect();
    // (An extension of an alias may extend this type.)
    let scope = crate::name_res::global_scope(db, file);
    let is_alias = |n: &str| {
        scope.lookup(n).is_some_and(|ds| ds.iter().any(|d| matches!(d.kind, ItemKind::Typedef | ItemKind::Typealias)))
    };
    for f in files {
        let tree = item_tree(db, f);
        if tree.has_item_macros {
            return None;
        }
        for ext in tree.walk().filter(|i| i.kind == ItemKind::Extension) {
            let edef = DefId::new(db, f, ext.ast_index);
            let e = crate::hir::decl_syntax(db, edef).and_then(ast::Extension::cast)?;
            let target = e.target().map(|t| t.syntax().text().to_string()).unwrap_or_default();
            let base = target.split('<').next().unwrap_or("").trim();
            let adds_supertypes = e.supertypes().next().is_some();
            if e.syntax().children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST) {
                if !adds_supertypes {
                    continue;
                }
                if blanket_param(db, edef).is_some() {
                    blanket.push(edef);
                } else if base == name || is_alias(base) {
                    return None;
                }
                continue;
            }
            if base != name && adds_supertypes && is_alias(base) {
                // `extension myfloat3 : I` of `typedef myvector<3> myfloat3`.
                match DeclCtx::for_def(db, edef).this {
                    Ty::Adt { def: d, .. } if d == def => supertypes.extend(e.supertypes().map(|t| (edef, t))),
                    Ty::Adt { .. } => {}
                    _ => return None,
                }
                continue;
            }
            if base == name {
                supertypes.extend(e.supertypes().map(|t| (edef, t)));
            }
        }
    }
    let direct = supertypes.into_iter().map(|(d, t)| (d, lower_type(Some(t)))).collect();
    Some(Supertypes { direct, blanket })
}

/// The generic parameter that extension `ext` extends when it is a
/// blanket extension (`extension<T : IFoo> T`, which applies to every
/// type conforming to `T`'s constraints): its name and declaration.
#[salsa::tracked(returns(ref))]
pub fn blanket_param(db: &dyn Db, ext: DefId) -> Option<(String, DefId)> {
    let item = item_of(db, ext).filter(|i| i.kind == ItemKind::Extension)?;
    if item.generic_params.is_empty() {
        return None;
    }
    let e = crate::hir::decl_syntax(db, ext).and_then(ast::Extension::cast)?;
    let target = e.target()?.syntax().text().to_string();
    let g = item.generic_params.iter().find(|g| g.name.as_deref() == Some(target.trim()))?;
    Some((target.trim().to_string(), DefId::new(db, ext.file(db), g.ast_index)))
}

/// The methods named `name` that the blanket extensions visible from
/// `file` add to a type conforming to the interfaces `conforms` accepts
/// (all those constraining the extension's parameter).
pub fn blanket_methods(db: &dyn Db, file: SourceFile, name: &str, conforms: &dyn Fn(DefId) -> bool) -> Vec<DefId> {
    if !crate::infer::extension_member_names(db, file).as_ref().is_some_and(|names| names.contains(name)) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for &f in crate::module_graph::visible_files(db, file).iter() {
        for ext in item_tree(db, f).walk().filter(|i| i.kind == ItemKind::Extension && !i.generic_params.is_empty()) {
            let methods: Vec<DefId> = ext
                .members
                .iter()
                .filter(|m| m.kind == ItemKind::Fn && m.name.as_deref() == Some(name))
                .map(|m| DefId::new(db, f, m.ast_index))
                .collect();
            if methods.is_empty() {
                continue;
            }
            let Some((_, param)) = blanket_param(db, DefId::new(db, f, ext.ast_index)) else { continue };
            if constraint_interfaces(db, *param).is_some_and(|req| req.iter().all(|&i| conforms(i))) {
                out.extend(methods);
            }
        }
    }
    out
}

/// The interfaces that blanket extension `ext` (`extension<T : IFoo> T
/// : IBar`) requires of a type (those constraining `T`) and those it
/// adds (`IBar`); `None` when some do not resolve to interfaces.
fn blanket_conformance(db: &dyn Db, ext: DefId) -> Option<(Vec<DefId>, Vec<DefId>)> {
    let e = crate::hir::decl_syntax(db, ext).and_then(ast::Extension::cast)?;
    let (_, param) = blanket_param(db, ext).as_ref()?;
    let required = constraint_interfaces(db, *param)?;
    let mut ctx = DeclCtx::for_def(db, ext);
    let added = e
        .supertypes()
        .map(|t| match ctx.resolve(&lower_type(Some(t))) {
            Ty::Adt { def, .. } if item_of(db, def).is_some_and(|i| i.kind == ItemKind::Interface) => Some(def),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((required, added))
}

#[salsa::tracked(returns(copy))]
fn type_conformance(db: &dyn Db, file: SourceFile, def: DefId, iface: DefId) -> Option<bool> {
    if is_core(db, def.file(db)) {
        return None;
    }
    let item = item_of(db, def)?;
    if !matches!(item.kind, ItemKind::Struct | ItemKind::Class) {
        return None;
    }
    let supertypes = written_supertypes(db, file, def)?;
    let mut reached = HashSet::new();
    let mut unknown = false;
    for (ctx_def, t) in supertypes.direct {
        let mut ctx = DeclCtx::for_def(db, ctx_def);
        match ctx.resolve(&t) {
            Ty::Adt { def: i, .. } if item_of(db, i).is_some_and(|it| it.kind == ItemKind::Interface) => {
                unknown |= !interface_closure(db, i, &mut reached);
            }
            // A base struct, or something unresolved.
            _ => unknown = true,
        }
    }
    // Blanket extensions whose requirements the type meets, until no
    // more apply (one may meet another's).
    let mut pending: Vec<(Vec<DefId>, Vec<DefId>)> = Vec::new();
    for ext in supertypes.blanket {
        match blanket_conformance(db, ext) {
            Some(c) => pending.push(c),
            None => unknown = true,
        }
    }
    loop {
        let before = pending.len();
        let mut rest = Vec::new();
        for (required, added) in pending {
            if required.iter().all(|r| reached.contains(r)) {
                for i in added {
                    unknown |= !interface_closure(db, i, &mut reached);
                }
            } else {
                rest.push((required, added));
            }
        }
        pending = rest;
        if pending.len() == before {
            break;
        }
    }
    if reached.contains(&iface) {
        Some(true)
    } else if unknown {
        None
    } else {
        Some(false)
    }
}

/// The generic arguments with which user struct or class `def` conforms
/// to the interface type `iface` (`I<float>`), as seen from `file`:
/// its supertypes, and the interfaces they inherit, with generic
/// arguments substituted, matched against `iface`'s (`struct S<T> :
/// I<T>` conforms to `I<float>` as `S<float>`). `None` when it does not
/// (or not for one list of arguments, or that cannot be told).
pub fn conforming_args(db: &dyn Db, file: SourceFile, def: DefId, iface: &Ty) -> Option<Vec<Ty>> {
    let Ty::Adt { def: idef, .. } = iface else { return None };
    if is_core(db, def.file(db)) {
        return None;
    }
    let item = item_of(db, def)?;
    if !matches!(item.kind, ItemKind::Struct | ItemKind::Class) {
        return None;
    }
    // Quick rejection by interface alone.
    if type_conformance(db, file, def, *idef) == Some(false) {
        return None;
    }
    let params: Vec<String> = item.generic_params.iter().filter_map(|g| g.name.clone()).collect();
    for (ctx_def, t) in written_supertypes(db, file, def)?.direct {
        let sup = DeclCtx::for_def(db, ctx_def).resolve(&t);
        let mut seen = HashSet::new();
        let mut bind = HashMap::new();
        if reaches(db, &sup, iface, &params, &mut bind, &mut seen) && params.iter().all(|p| bind.contains_key(p)) {
            return Some(params.iter().map(|p| bind[p].clone()).collect());
        }
    }
    // Through a blanket extension (`extension<T : IFoo> T : IBar`): a
    // non-generic type to a non-generic interface.
    let plain = |t: &Ty| matches!(t, Ty::Adt { args, .. } if args.is_empty());
    (params.is_empty() && plain(iface) && type_conformance(db, file, def, *idef) == Some(true)).then(Vec::new)
}

/// Whether interface type `sup` is or inherits `target`, binding the
/// generic parameters `params` that `sup` mentions.
fn reaches(
    db: &dyn Db,
    sup: &Ty,
    target: &Ty,
    params: &[String],
    bind: &mut HashMap<String, Ty>,
    seen: &mut HashSet<Ty>,
) -> bool {
    let (Ty::Adt { def, args, .. }, Ty::Adt { def: tdef, .. }) = (sup, target) else { return false };
    if !seen.insert(sup.clone()) {
        return false;
    }
    if def == tdef {
        let mut attempt = bind.clone();
        if match_ty(sup, target, params, &mut attempt) {
            *bind = attempt;
            return true;
        }
        return false;
    }
    let Some(iitem) = item_of(db, *def).filter(|i| i.kind == ItemKind::Interface) else { return false };
    let Some(node) = crate::hir::decl_syntax(db, *def) else { return false };
    let Some(i) = ast::Interface::cast(node) else { return false };
    // The base interfaces, with this one's generic arguments.
    let ibind: HashMap<String, Ty> =
        iitem.generic_params.iter().filter_map(|g| g.name.clone()).zip(args.iter().cloned()).collect();
    let mut ctx = DeclCtx::specialized(db, *def, &ibind);
    let bases: Vec<Ty> = i.supertypes().map(|t| ctx.resolve(&lower_type(Some(t)))).collect();
    bases.iter().any(|b| reaches(db, b, target, params, bind, seen))
}

/// Match `pattern` (mentioning generic parameters `params`) against the
/// type `actual`, binding them.
fn match_ty(pattern: &Ty, actual: &Ty, params: &[String], bind: &mut HashMap<String, Ty>) -> bool {
    match (pattern, actual) {
        (Ty::Param { name, .. }, _) if params.contains(name) => match bind.get(name) {
            Some(prev) => prev == actual,
            None => {
                bind.insert(name.clone(), actual.clone());
                true
            }
        },
        (Ty::Adt { def: a, args: xs, .. }, Ty::Adt { def: b, args: ys, .. }) => {
            a == b && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| match_ty(x, y, params, bind))
        }
        (Ty::Array(x, n), Ty::Array(y, m)) => n == m && match_ty(x, y, params, bind),
        (Ty::Tuple(xs), Ty::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| match_ty(x, y, params, bind))
        }
        _ => pattern == actual,
    }
}
