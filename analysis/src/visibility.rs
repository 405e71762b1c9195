//! Access-control rules on declarations (the user guide's "additional
//! validation rules"): a `public` declaration must not expose a less
//! visible type in its signature (E30604), a member must not be more
//! visible than its type (E30601), and a type cannot be `private`.
//! The access rules themselves (the order of visibilities, whether a
//! member can be used from a function) are `crate::infer::access`'s;
//! inference reports uses of inaccessible members.

use slang_syntax::ast::{self, AstNode};
use slang_syntax::{SyntaxKind, TextRange};

use crate::diagnostic::{Diagnostic, Severity};
use crate::hir::{def_node, lower_type, DefId};
use crate::infer::access::{rank, word};
use crate::infer::{is_core, item_of, DeclCtx};
use crate::item_tree::{item_tree, Item, ItemKind, Visibility};
use crate::ty::{Ty, TypeResolver};
use crate::{Db, SourceFile};

#[salsa::tracked(returns(ref))]
pub fn visibility_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let tree = item_tree(db, file);
    let mut out = Vec::new();
    if !tree.uses_visibility || tree.has_item_macros {
        return out;
    }
    walk(db, file, &tree.items, 2, false, &mut out);
    out
}

/// `parent`: the rank of the enclosing type (2 at file level); `in_type`:
/// whether the items are members of a type (where a nested type may be
/// `private`, as slangc accepts).
fn walk(db: &dyn Db, file: SourceFile, items: &[Item], parent: u8, in_type: bool, out: &mut Vec<Diagnostic>) {
    for item in items {
        let def = DefId::new(db, file, item.ast_index);
        let own = rank(db, file, item.visibility);
        let is_type = matches!(item.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Enum | ItemKind::Interface);
        if item.visibility == Visibility::Private && is_type && !in_type {
            if let Some(node) = def_node(db, def) {
                out.push(Diagnostic {
                    range: name_range(&node),
                    severity: Severity::Error,
                    code: "private-type",
                    message: "a type cannot be `private`; use `internal`".to_string(),
                });
            }
        }
        if item.visibility == Visibility::Public && parent < 2 {
            if let Some(node) = def_node(db, def) {
                out.push(Diagnostic {
                    range: name_range(&node),
                    severity: Severity::Error,
                    code: "visibility-above-parent",
                    message: format!(
                        "`{}` cannot be more visible than its enclosing type, which is {}",
                        item.name.as_deref().unwrap_or("this member"),
                        word(parent)
                    ),
                });
            }
        }
        let effective = own.min(parent);
        if effective == 2 && matches!(item.kind, ItemKind::Fn | ItemKind::Var | ItemKind::Property) {
            check_signature(db, def, item, out);
        }
        match item.kind {
            ItemKind::Struct | ItemKind::Class | ItemKind::Interface => {
                walk(db, file, &item.members, effective, true, out)
            }
            ItemKind::Namespace => walk(db, file, &item.members, parent, in_type, out),
            _ => {}
        }
    }
}

fn name_range(node: &slang_syntax::SyntaxNode) -> TextRange {
    node.children().find(|c| c.kind() == SyntaxKind::NAME).map_or(node.text_range(), |n| n.text_range())
}

/// The types a public declaration's signature mentions, with where.
fn check_signature(db: &dyn Db, def: DefId, item: &Item, out: &mut Vec<Diagnostic>) {
    let Some(node) = def_node(db, def) else { return };
    let mut types: Vec<ast::Type> = Vec::new();
    match node.kind() {
        SyntaxKind::FN => {
            if let Some(f) = ast::Fn::cast(node.clone()) {
                types.extend(f.return_type());
                types.extend(f.param_list().into_iter().flat_map(|l| l.params()).filter_map(|p| p.ty()));
            }
        }
        SyntaxKind::DECLARATOR => {
            // Only explicit `public` fields and globals (a declarator's type
            // sits on its parent declaration).
            types.extend(node.parent().and_then(ast::VarDecl::cast).and_then(|v| v.ty()));
        }
        SyntaxKind::PROPERTY => types.extend(ast::Property::cast(node.clone()).and_then(|p| p.ty())),
        _ => {}
    }
    let mut ctx = DeclCtx::for_def(db, def);
    for t in types {
        let Ty::Adt { def: tdef, name, .. } = ctx.resolve(&lower_type(Some(t.clone()))) else { continue };
        if is_core(db, tdef.file(db)) {
            continue;
        }
        let Some(titem) = item_of(db, tdef) else { continue };
        let trank = rank(db, tdef.file(db), titem.visibility);
        if trank < 2 {
            out.push(Diagnostic {
                range: t.syntax().text_range(),
                severity: Severity::Error,
                code: "exposes-less-visible-type",
                message: format!(
                    "public `{}` exposes `{name}`, which is {}; make `{name}` public or `{}` less visible",
                    item.name.as_deref().unwrap_or("declaration"),
                    word(trank),
                    item.name.as_deref().unwrap_or("the declaration"),
                ),
            });
        }
    }
}
