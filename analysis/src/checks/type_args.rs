//! Generic arguments of types that do not conform to their parameter's
//! constraint: `Wrapper<S>` with `struct Wrapper<T : I>` and a struct `S`
//! that certainly does not conform to `I` (its supertypes, and those its
//! extensions add, all resolve and lead elsewhere), a default
//! (`<T : I = S>`) that does not, and a count of arguments other than the
//! generic's (E30441).

use slang_syntax::ast::AstNode;
use slang_syntax::{SyntaxKind, SyntaxNode};

use super::constraints::declared_nearby;
use crate::diagnostic::{Diagnostic, Severity};
use crate::hir::{lower_type, DefId, GenericArgRef, TypeRef};
use crate::infer::{is_core, item_of};
use crate::item_tree::{item_tree, ItemKind};
use crate::ty::Ty;

/// Checks `root` (a top-level declaration) and what it contains.
pub(crate) fn check(cx: &super::Cx, root: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    let (db, file) = (cx.db, cx.file);
    if item_tree(db, file).has_item_macros {
        return;
    }
    let scope = cx.scope;
    // The user struct or class a name means, where nothing nearer hides it.
    let user_struct = |name: &str, at: &SyntaxNode| -> Option<Ty> {
        if scope.macros.contains(name) || declared_nearby(at, name) {
            return None;
        }
        let [d] = scope.names.get(name)?.as_slice() else { return None };
        if !matches!(d.kind, ItemKind::Struct | ItemKind::Class) || is_core(db, d.file) {
            return None;
        }
        let def = DefId::new(db, d.file, d.ast_index);
        if !item_of(db, def)?.generic_params.is_empty() {
            return None;
        }
        Some(Ty::Adt { def, name: name.to_string(), args: Vec::new() })
    };
    // The interface of a constraint the type argument does not satisfy.
    let broken = |gdef: DefId, arg: &Ty| -> Option<String> {
        let ifaces = crate::generics::required_interfaces(db, gdef)?;
        ifaces.into_iter().find_map(|iface| {
            if is_core(db, iface.file(db)) {
                return None;
            }
            crate::generics::certainly_not_conforming(db, file, arg, iface)
                .then(|| item_of(db, iface).and_then(|i| i.name.clone()).unwrap_or_default())
        })
    };
    for node in root.descendants() {
        match node.kind() {
            SyntaxKind::PATH_TYPE => {
                let TypeRef::Path(segs) = lower_type(slang_syntax::ast::Type::cast(node.clone())) else { continue };
                let [seg] = segs.as_slice() else { continue };
                if seg.args.is_empty() || declared_nearby(&node, &seg.name) || scope.macros.contains(&seg.name) {
                    continue;
                }
                let Some([d]) = scope.names.get(&seg.name).map(|v| v.as_slice()) else { continue };
                if !matches!(d.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Typealias) || is_core(db, d.file) {
                    continue;
                }
                let Some(item) = item_of(db, DefId::new(db, d.file, d.ast_index)) else { continue };
                if let Some(problem) = arity_problem(db, d, &item, seg.args.len()) {
                    out.push(Diagnostic {
                        range: node.text_range(),
                        severity: Severity::Error,
                        code: "wrong-generic-arity",
                        message: format!("`{}` {problem}", seg.name),
                    });
                    continue;
                }
                for (g, a) in item.generic_params.iter().zip(&seg.args) {
                    if g.kind != ItemKind::GenericTypeParam {
                        continue;
                    }
                    let GenericArgRef::Type(TypeRef::Path(p)) = a else { continue };
                    let [only] = p.as_slice() else { continue };
                    if !only.args.is_empty() {
                        continue;
                    }
                    let Some(arg) = user_struct(&only.name, &node) else { continue };
                    let gdef = DefId::new(db, d.file, g.ast_index);
                    if let Some(iface) = broken(gdef, &arg) {
                        out.push(Diagnostic {
                            range: node.text_range(),
                            severity: Severity::Error,
                            code: "constraint-not-satisfied",
                            message: format!(
                                "type argument `{}` does not conform to `{iface}`, which `{}` requires of `{}`; \
                                 declare `{}` as `: {iface}` or pass a type that conforms",
                                only.name,
                                seg.name,
                                g.name.as_deref().unwrap_or("?"),
                                only.name
                            ),
                        });
                        break;
                    }
                }
            }
            SyntaxKind::GENERIC_TYPE_PARAM => {
                // `<T : I = S>`: the default must conform too.
                let Some(default) = node
                    .children_with_tokens()
                    .skip_while(|e| e.kind() != SyntaxKind::EQ)
                    .filter_map(|e| e.into_node())
                    .next()
                else {
                    continue;
                };
                let TypeRef::Path(p) = lower_type(slang_syntax::ast::Type::cast(default.clone())) else { continue };
                let [only] = p.as_slice() else { continue };
                if !only.args.is_empty() {
                    continue;
                }
                let Some(owner) = node.parent().and_then(|l| l.parent()) else { continue };
                let Some(arg) = user_struct(&only.name, &owner) else { continue };
                // The constraint: one interface of the module, by name.
                let Some(constraint) = node
                    .children_with_tokens()
                    .skip_while(|e| e.kind() != SyntaxKind::COLON)
                    .take_while(|e| e.kind() != SyntaxKind::EQ)
                    .filter_map(|e| e.into_node())
                    .next()
                else {
                    continue;
                };
                let TypeRef::Path(c) = lower_type(slang_syntax::ast::Type::cast(constraint)) else { continue };
                let [c] = c.as_slice() else { continue };
                if !c.args.is_empty() || declared_nearby(&owner, &c.name) {
                    continue;
                }
                let Some([i]) = scope.names.get(&c.name).map(|v| v.as_slice()) else { continue };
                if i.kind != ItemKind::Interface || is_core(db, i.file) {
                    continue;
                }
                let iface = DefId::new(db, i.file, i.ast_index);
                if crate::generics::certainly_not_conforming(db, file, &arg, iface) {
                    out.push(Diagnostic {
                        range: default.text_range(),
                        severity: Severity::Error,
                        code: "constraint-not-satisfied",
                        message: format!(
                            "the default `{}` does not conform to `{}`, the parameter's constraint",
                            only.name, c.name
                        ),
                    });
                }
            }
            _ => {}
        }
    }
}

/// A wrong count of generic arguments for the user struct, class or type
/// alias `item` (`d`): `Foo<int>` of `struct Foo<T, U>`. Only for generics
/// whose parameters are all required (no defaults, no packs).
fn arity_problem(
    db: &dyn crate::Db,
    d: &crate::name_res::DefRef,
    item: &crate::item_tree::Item,
    given: usize,
) -> Option<String> {
    let expected = item.generic_params.len();
    if expected == 0 || given == expected {
        return None;
    }
    let node = crate::hir::def_node(db, DefId::new(db, d.file, d.ast_index))?;
    let list = node.children().find(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST)?;
    let simple = list
        .descendants_with_tokens()
        .all(|e| !matches!(e.kind(), SyntaxKind::EQ | SyntaxKind::EACH_KW | SyntaxKind::ERROR));
    let params = list
        .children()
        .filter(|c| matches!(c.kind(), SyntaxKind::GENERIC_TYPE_PARAM | SyntaxKind::GENERIC_VALUE_PARAM))
        .count();
    (simple && params == expected).then(|| format!("takes {expected} generic argument(s), but {given} were given"))
}
