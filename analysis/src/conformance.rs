//! Interface conformance: a struct, class or extension that lists an
//! interface must provide each of its requirements (methods without a
//! default body, properties, associated types, static constants), with a
//! matching signature, as the reference compiler's E38100/E38105/E38106.
//!
//! The check is conservative: it says nothing when members may come from
//! places this model cannot see (a base struct, a generic extension,
//! macros), and it compares types only where both are fully known.

use std::collections::HashSet;

use slang_syntax::ast::{self, AstNode};
use slang_syntax::{SyntaxKind, SyntaxNode, TextRange};

use crate::diagnostic::{Diagnostic, Severity};
use crate::hir::{def_node, lower_type, DefId};
use crate::infer::{fn_sig, is_concrete, is_core, is_mismatch, item_of, DeclCtx};
use crate::item_tree::{item_tree, Item, ItemKind};
use crate::ty::{Ty, TypeResolver};
use crate::{Db, SourceFile};

#[salsa::tracked(returns(ref))]
pub fn conformance_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let tree = item_tree(db, file);
    let mut out = Vec::new();
    if tree.has_item_macros {
        return out;
    }
    for item in tree.walk() {
        if matches!(item.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Extension) {
            check_type(db, file, item, &mut out);
        }
    }
    out
}

fn made_by_macros(node: &SyntaxNode) -> bool {
    node.descendants()
        .any(|n| matches!(n.kind(), SyntaxKind::MACRO_CALL | SyntaxKind::MACRO_TYPE | SyntaxKind::PP_INCLUDE))
}

/// The interface a type reference names, if it is a user interface.
fn resolve_interface(db: &dyn Db, ctx: &mut DeclCtx, t: &ast::Type) -> Result<Option<DefId>, ()> {
    match ctx.resolve(&lower_type(Some(t.clone()))) {
        Ty::Adt { def, .. } => match item_of(db, def) {
            Some(i) if i.kind == ItemKind::Interface => Ok((!is_core(db, def.file(db))).then_some(def)),
            // A base struct or class: its members count too.
            _ => Err(()),
        },
        _ => Err(()),
    }
}

/// A requirement and the range it is reported at when missing.
struct Requirement {
    interface: String,
    item: Item,
    def: DefId,
    at: TextRange,
}

fn check_type(db: &dyn Db, file: SourceFile, item: &Item, out: &mut Vec<Diagnostic>) {
    let def = DefId::new(db, file, item.ast_index);
    let Some(node) = def_node(db, def) else { return };
    let supertypes: Vec<ast::Type> = match node.kind() {
        SyntaxKind::STRUCT => ast::Struct::cast(node.clone()).map(|s| s.supertypes().collect()),
        SyntaxKind::CLASS => ast::Class::cast(node.clone()).map(|s| s.supertypes().collect()),
        SyntaxKind::EXTENSION => ast::Extension::cast(node.clone()).map(|s| s.supertypes().collect()),
        _ => None,
    }
    .unwrap_or_default();
    if supertypes.is_empty() || made_by_macros(&node) {
        return;
    }
    // `extern struct S : I;` and `struct S : I = Impl;` (link-time types)
    // take their members from elsewhere.
    let is_link_time = node.children_with_tokens().any(|e| e.kind() == SyntaxKind::EQ)
        || node.children_with_tokens().any(|e| e.kind() == SyntaxKind::EXTERN_KW)
        || !node.children().any(|c| c.kind() == SyntaxKind::MEMBER_LIST);
    if is_link_time {
        return;
    }
    let mut ctx = DeclCtx::for_def(db, def);
    // The type that conforms: the struct itself, or an extension's target.
    let (target, target_name) = if item.kind == ItemKind::Extension {
        if node.children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST) {
            return;
        }
        let Some(t) = ast::Extension::cast(node.clone()).and_then(|e| e.target()) else { return };
        match ctx.resolve(&lower_type(Some(t))) {
            Ty::Adt { def, name, .. } if !is_core(db, def.file(db)) => (def, name),
            _ => return,
        }
    } else {
        (def, item.name.clone().unwrap_or_default())
    };
    // A type cannot be both a value and a pointer differentiable type.
    if item.kind != ItemKind::Extension {
        let this = Ty::Adt { def, name: target_name.clone(), args: Vec::new() };
        let core = |n: &str| crate::name_res::core_def(db, n);
        if let (Some(v), Some(p)) = (core("IDifferentiable"), core("IDifferentiablePtrType")) {
            let both = crate::generics::conformance(db, file, &this, v) == Some(true)
                && crate::generics::conformance(db, file, &this, p) == Some(true);
            if both {
                out.push(Diagnostic {
                    range: name_range(&node),
                    severity: Severity::Error,
                    code: "both-differentiable-interfaces",
                    message: format!(
                        "`{target_name}` cannot conform to both `IDifferentiable` and `IDifferentiablePtrType`; \
                         keep one"
                    ),
                });
            }
        }
    }
    let mut requirements = Vec::new();
    let mut seen = HashSet::new();
    for t in &supertypes {
        match resolve_interface(db, &mut ctx, t) {
            Ok(Some(iface)) => collect(db, iface, t.syntax().text_range(), file, &mut requirements, &mut seen),
            Ok(None) => {}
            Err(()) => return,
        }
    }
    if requirements.is_empty() {
        return;
    }
    let Some(members) = members_with_extensions(db, file, target, &target_name) else { return };
    let type_name = match item_of(db, target) {
        Some(t) if !t.generic_params.is_empty() => {
            let params: Vec<String> = t.generic_params.iter().filter_map(|g| g.name.clone()).collect();
            format!("{target_name}<{}>", params.join(", "))
        }
        _ => target_name.clone(),
    };
    for req in &requirements {
        let name = req.item.name.as_deref().unwrap_or_default();
        let same_name: Vec<&(SourceFile, Item)> =
            members.iter().filter(|(_, m)| m.name.as_deref() == Some(name)).collect();
        let ok_kind = |m: &Item| match req.item.kind {
            ItemKind::Fn => m.kind == ItemKind::Fn,
            ItemKind::Property => matches!(m.kind, ItemKind::Property | ItemKind::Var),
            ItemKind::AssociatedType => m.kind.is_type(),
            _ => true,
        };
        let candidates: Vec<&(SourceFile, Item)> = same_name.iter().copied().filter(|(_, m)| ok_kind(m)).collect();
        // (A generic parameter of the same name does not count, for the
        // reference compiler.)
        if candidates.is_empty() {
            let what = match req.item.kind {
                ItemKind::Fn => "method",
                ItemKind::Property => "property",
                ItemKind::AssociatedType => "associated type",
                _ => "member",
            };
            out.push(Diagnostic {
                range: req.at,
                severity: Severity::Error,
                code: "missing-requirement",
                message: format!(
                    "`{type_name}` does not provide the {what} `{name}` required by interface `{}`",
                    req.interface
                ),
            });
            continue;
        }
        if req.item.kind != ItemKind::Fn {
            continue;
        }
        // Some candidate must match: static-ness, parameter count, and
        // types where both sides are fully known.
        let req_sig = fn_sig(db, req.def);
        let mut req_ctx = DeclCtx::for_def(db, req.def);
        let req_params: Vec<Ty> = req_sig.params.iter().map(|p| req_ctx.resolve(&p.ty)).collect();
        let req_ret = req_ctx.resolve(&req_sig.ret);
        let mut problem = None;
        let matched = candidates.iter().any(|(mfile, m)| {
            let mdef = DefId::new(db, *mfile, m.ast_index);
            let sig = fn_sig(db, mdef);
            // (A static method may satisfy an instance requirement.)
            if req.item.is_static && !m.is_static {
                problem.get_or_insert((mdef, "the requirement is `static`, this method is not".to_string()));
                return false;
            }
            // A differentiable requirement needs a differentiable method.
            let req_diff = crate::autodiff::fn_differentiability(db, file, req.def);
            let m_diff = crate::autodiff::fn_differentiability(db, file, mdef);
            if req_diff != crate::autodiff::Differentiability::No && m_diff == crate::autodiff::Differentiability::No {
                problem.get_or_insert((
                    mdef,
                    "the requirement is `[Differentiable]` and this method is not; mark it `[Differentiable]` \
                     (or `[TreatAsDifferentiable]`)"
                        .to_string(),
                ));
                return false;
            }
            // (Defaults may fill parameters the requirement lacks; a
            // requirement with a pack, `expand each Ts`, takes any number
            // once the interface's arguments are given.)
            let required = sig.params.len() - sig.has_defaults.iter().filter(|d| **d).count();
            let count_fits = (required..=sig.params.len()).contains(&req_sig.params.len());
            if req_sig.variadic {
                return true;
            }
            if !count_fits || sig.variadic {
                problem.get_or_insert((
                    mdef,
                    format!(
                        "it takes {} parameter{}, the requirement {}",
                        sig.params.len(),
                        if sig.params.len() == 1 { "" } else { "s" },
                        req_sig.params.len()
                    ),
                ));
                return false;
            }
            if !sig.generic_params.is_empty() || !req_sig.generic_params.is_empty() {
                return true;
            }
            let mut mctx = DeclCtx::for_def(db, mdef);
            let known = |t: &Ty| is_concrete(db, t);
            for (i, (p, rp)) in sig.params.iter().zip(&req_params).enumerate() {
                let pt = mctx.resolve(&p.ty);
                if known(&pt) && known(rp) && is_mismatch(db, &pt, rp) {
                    problem
                        .get_or_insert((mdef, format!("parameter {} has type `{pt}`, the requirement `{rp}`", i + 1)));
                    return false;
                }
            }
            let ret = mctx.resolve(&sig.ret);
            let void = matches!(ret, Ty::Void) || matches!(req_ret, Ty::Void);
            let ret_known =
                (known(&ret) || matches!(ret, Ty::Void)) && (known(&req_ret) || matches!(req_ret, Ty::Void));
            if ret_known && ret != req_ret && (void || is_mismatch(db, &req_ret, &ret)) {
                problem.get_or_insert((mdef, format!("it returns `{ret}`, the requirement `{req_ret}`")));
                return false;
            }
            true
        });
        if matched {
            continue;
        }
        let Some((mdef, why)) = problem else { continue };
        let range =
            if mdef.file(db) == file { def_node(db, mdef).map(|n| name_range(&n)).unwrap_or(req.at) } else { req.at };
        out.push(Diagnostic {
            range,
            severity: Severity::Error,
            code: "requirement-mismatch",
            message: format!(
                "`{type_name}.{name}` does not match the requirement of interface `{}`: {why}",
                req.interface
            ),
        });
    }
}

fn name_range(node: &SyntaxNode) -> TextRange {
    node.children().find(|c| c.kind() == SyntaxKind::NAME).map_or(node.text_range(), |n| n.text_range())
}

/// The requirements of interface `iface` and of the interfaces it
/// inherits. `at` is where a missing one is reported: the reference in the
/// conforming type, or, for inherited interfaces declared in `file`, the
/// reference in the inheriting interface (as the reference compiler does).
fn collect(
    db: &dyn Db,
    iface: DefId,
    at: TextRange,
    file: SourceFile,
    out: &mut Vec<Requirement>,
    seen: &mut HashSet<DefId>,
) {
    if !seen.insert(iface) {
        return;
    }
    let Some(item) = item_of(db, iface) else { return };
    let Some(node) = def_node(db, iface) else { return };
    if made_by_macros(&node) {
        return;
    }
    let name = item.name.clone().unwrap_or_default();
    for m in &item.members {
        let mdef = DefId::new(db, iface.file(db), m.ast_index);
        let required = match m.kind {
            ItemKind::Fn => def_node(db, mdef).is_some_and(|n| ast::Fn::cast(n).is_some_and(|f| f.body().is_none())),
            ItemKind::Property | ItemKind::AssociatedType => true,
            _ => false,
        };
        if required && m.name.is_some() {
            out.push(Requirement { interface: name.clone(), item: m.clone(), def: mdef, at });
        }
    }
    let mut ctx = DeclCtx::for_def(db, iface);
    if let Some(i) = ast::Interface::cast(node) {
        for t in i.supertypes() {
            if let Ok(Some(base)) = resolve_interface(db, &mut ctx, &t) {
                let here = if iface.file(db) == file { t.syntax().text_range() } else { at };
                collect(db, base, here, file, out, seen);
            }
        }
    }
}

/// The members of user type `target` plus those its extensions add
/// anywhere the current module can see; `None` if some may be invisible
/// here (a generic extension, macros).
fn members_with_extensions(
    db: &dyn Db,
    from: SourceFile,
    target: DefId,
    name: &str,
) -> Option<Vec<(SourceFile, Item)>> {
    let item = item_of(db, target)?;
    if def_node(db, target).is_some_and(|n| made_by_macros(&n)) {
        return None;
    }
    let mut out: Vec<(SourceFile, Item)> = item.members.iter().map(|m| (target.file(db), m.clone())).collect();
    let mut files: Vec<SourceFile> =
        crate::module_graph::visible_files(db, from).iter().copied().chain([target.file(db)]).collect();
    files.sort_by_key(|f| f.path(db).to_string());
    files.dedup();
    for f in files {
        let tree = item_tree(db, f);
        if tree.has_item_macros {
            return None;
        }
        for ext in tree.walk().filter(|i| i.kind == ItemKind::Extension) {
            let edef = DefId::new(db, f, ext.ast_index);
            let node = def_node(db, edef)?;
            if node.children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST) {
                return None;
            }
            let target_text = ast::Extension::cast(node)?.target()?.syntax().text().to_string();
            if target_text.split('<').next().unwrap_or("").trim() == name {
                out.extend(ext.members.iter().map(|m| (f, m.clone())));
            }
        }
    }
    Some(out)
}
