//! `__func_extension fwd_diff(f)` / `bwd_diff(f)` / `__apply(f)`: the
//! declarations that give an existing function (or method) a derivative or
//! a backward-pass primal, and which of them applies to a function.

use slang_syntax::ast::AstNode;

use crate::autodiff::{derivative_signature, is_instance_method, Mode};
use crate::hir::{DefId, TypeRef};
use crate::infer::{fn_sig, item_of, DeclCtx};
use crate::item_tree::ItemKind;
use crate::ty::{Ty, TypeResolver};
use crate::{Db, SourceFile};

/// What a `__func_extension` gives the function it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExtensionKind {
    /// `fwd_diff(f)`: its forward derivative.
    Forward,
    /// `bwd_diff(f)`: its backward derivative.
    Backward,
    /// `__apply(f)`: its primal computation for the backward pass, which
    /// returns the result and a context whose `operator()` propagates the
    /// result's derivative back to the differentiable parameters.
    Apply,
}

/// A `__func_extension` declaration (a function without a name).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FuncExtension {
    pub def: DefId,
    pub kind: ExtensionKind,
    /// The extended function's name (the path's last name).
    pub target: String,
    /// The type the path names it in (`S` of `S::f`, `S<T>::f`).
    pub owner: Option<TypeRef>,
    /// The declared result (`-> R`).
    pub ret: TypeRef,
}

/// The `__func_extension`s declared in `file`.
#[salsa::tracked(returns(ref))]
pub fn func_extensions(db: &dyn Db, file: SourceFile) -> Vec<FuncExtension> {
    use slang_syntax::SyntaxKind;
    let tree = crate::item_tree::item_tree(db, file);
    let mut out = Vec::new();
    for item in tree.walk().filter(|i| i.kind == ItemKind::Fn && i.name.is_none()) {
        let def = DefId::new(db, file, item.ast_index);
        let Some(node) = crate::hir::decl_syntax(db, def).filter(|n| n.kind() == SyntaxKind::FUNC_EXTENSION) else {
            continue;
        };
        // `fwd_diff(path)` (a DIFF_EXPR) or `__apply(path)` (a call).
        let Some(operator) = node.children().find(|c| slang_syntax::ast::Expr::can_cast(c.kind())) else { continue };
        let kind = match operator.kind() {
            SyntaxKind::DIFF_EXPR if operator.children_with_tokens().any(|t| t.kind() == SyntaxKind::FWD_DIFF_KW) => {
                ExtensionKind::Forward
            }
            SyntaxKind::DIFF_EXPR => ExtensionKind::Backward,
            SyntaxKind::CALL_EXPR
                if operator.first_child().is_some_and(|c| c.text().to_string().trim() == "__apply") =>
            {
                ExtensionKind::Apply
            }
            _ => continue,
        };
        let path = operator.descendants().filter(|n| n.kind() == SyntaxKind::PATH_EXPR).last();
        // The path's names, each with its generic arguments.
        let mut segs: Vec<crate::hir::PathSegment> = Vec::new();
        for e in path.iter().flat_map(|p| p.children_with_tokens()) {
            match e {
                rowan::NodeOrToken::Token(t) if t.kind() == SyntaxKind::IDENT => {
                    segs.push(crate::hir::PathSegment { name: t.text().to_string(), args: Vec::new() })
                }
                rowan::NodeOrToken::Node(n) if n.kind() == SyntaxKind::GENERIC_ARG_LIST => {
                    if let (Some(last), Some(list)) = (segs.last_mut(), slang_syntax::ast::GenericArgList::cast(n)) {
                        last.args = list
                            .args()
                            .filter_map(|a| a.ty())
                            .map(|t| crate::hir::GenericArgRef::Type(crate::hir::lower_type(Some(t))))
                            .collect();
                    }
                }
                _ => {}
            }
        }
        let Some(target) = segs.pop() else { continue };
        let ret = crate::hir::lower_type(
            node.children()
                .find(|c| c.kind() == SyntaxKind::RETURN_TYPE)
                .and_then(|r| r.children().find_map(slang_syntax::ast::Type::cast)),
        );
        let owner = (!segs.is_empty()).then_some(TypeRef::Path(segs));
        out.push(FuncExtension { def, kind, target: target.name, owner, ret });
    }
    out
}

/// The `__func_extension` that `def` is, if it is one.
pub fn func_extension_of(db: &dyn Db, def: DefId) -> Option<FuncExtension> {
    func_extensions(db, def.file(db)).iter().find(|e| e.def == def).cloned()
}

/// The `__func_extension` of kind `kind` that code in `from` sees for
/// `def`: one naming it (and its type, when the path names one) whose
/// parameters are as many as that kind of function of `def` takes (so
/// that overloads each get their own).
pub fn func_extension_for(db: &dyn Db, from: SourceFile, def: DefId, kind: ExtensionKind) -> Option<DefId> {
    let item = item_of(db, def)?;
    if item.kind == ItemKind::Subscript {
        // (The declaration stands for its getter.)
        return accessor_func_extension(db, def, false, kind);
    }
    let name = item.name.as_deref()?;
    let files: Vec<SourceFile> = crate::module_graph::visible_files(db, from)
        .iter()
        .chain(crate::module_graph::module_of(db, def.file(db)))
        .copied()
        .collect();
    let arity = match kind {
        ExtensionKind::Apply => fn_sig(db, def).params.len(),
        ExtensionKind::Forward | ExtensionKind::Backward => {
            let mode = if kind == ExtensionKind::Forward { Mode::Forward } else { Mode::Backward };
            // (A method's extension takes `this` as its first parameter.)
            derivative_signature(db, def, mode).params.len() + usize::from(is_instance_method(db, def))
        }
    };
    let this = DeclCtx::for_def(db, def).this;
    let same_type = |a: &Ty, b: &Ty| match (a, b) {
        (Ty::Adt { def: x, .. }, Ty::Adt { def: y, .. }) => x == y,
        _ => a == b,
    };
    let mut seen = std::collections::HashSet::new();
    files.into_iter().filter(|f| seen.insert(*f)).find_map(|f| {
        func_extensions(db, f).iter().find_map(|e| {
            let owner_ok = match &e.owner {
                Some(o) => same_type(&DeclCtx::for_def(db, e.def).resolve(o), &this),
                None => this == Ty::Unknown,
            };
            (e.kind == kind && e.target == name && owner_ok && fn_sig(db, e.def).params.len() == arity).then_some(e.def)
        })
    })
}

/// The `__func_extension` of kind `kind` that names accessor `get` (or,
/// with `setter`, `set`) of `__subscript` `def` of type `S`:
/// `fwd_diff(S::__subscript::get)`, `bwd_diff(S::__subscript::set)`
/// (declared in `def`'s module). (The reference compiler takes
/// `S::prop::get` for a member of the property's value, so properties
/// have none.)
pub fn accessor_func_extension(db: &dyn Db, def: DefId, setter: bool, kind: ExtensionKind) -> Option<DefId> {
    if item_of(db, def)?.kind != ItemKind::Subscript {
        return None;
    }
    let member = "__subscript";
    let accessor = if setter { "set" } else { "get" };
    let owner_def = |t: &Ty| match t {
        Ty::Adt { def, .. } => Some(*def),
        _ => None,
    };
    let this = owner_def(&DeclCtx::for_def(db, def).this)?;
    crate::module_graph::module_of(db, def.file(db)).iter().find_map(|&f| {
        func_extensions(db, f).iter().find_map(|e| {
            let Some(TypeRef::Path(segs)) = &e.owner else { return None };
            let (last, prefix) = segs.split_last()?;
            let owner = DeclCtx::for_def(db, e.def).resolve(&TypeRef::Path(prefix.to_vec()));
            (e.kind == kind && e.target == accessor && last.name == member && owner_def(&owner) == Some(this))
                .then_some(e.def)
        })
    })
}

/// Whether a `__func_extension fwd_diff(S::__subscript::set)` (or
/// `bwd_diff`) gives the setter of `__subscript` `def` of `S` its
/// derivative.
pub fn setter_has_func_extension(db: &dyn Db, def: DefId) -> bool {
    [ExtensionKind::Forward, ExtensionKind::Backward]
        .into_iter()
        .any(|k| accessor_func_extension(db, def, true, k).is_some())
}
