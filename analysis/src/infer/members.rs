//! Members of types: [`lookup_member`] (fields, methods, properties and
//! subscripts of user and core types), extension methods, and whether a
//! type's members are all known to this model (for "no member" errors).

use super::*;

/// A member found by name on a type.
#[derive(Debug, Clone)]
pub enum Member {
    Field(Ty),
    Methods(Vec<DefId>),
    /// Known to exist, type not modelled.
    Opaque,
}

impl Member {
    /// The type of a use of the member (a method: its overloads).
    pub fn into_ty(self) -> Ty {
        match self {
            Member::Field(t) => t,
            Member::Methods(defs) => Ty::Func(defs),
            Member::Opaque => Ty::Unknown,
        }
    }
}

/// Whether every member of the type is known to this model (so that "no
/// member named x" can be reported): a user-written struct or class with
/// no supertypes and no extension anywhere in scope.
#[salsa::tracked(returns(copy))]
pub(super) fn members_fully_known(db: &dyn Db, from: SourceFile, def: DefId) -> bool {
    let Some(item) = item_of(db, def) else { return false };
    if is_core(db, def.file(db)) || !matches!(item.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Enum) {
        return false;
    }
    let Some(node) = crate::hir::decl_syntax(db, def) else { return false };
    // (An enum's inheritance list is its underlying type.)
    if item.kind != ItemKind::Enum && node.children().any(|c| c.kind() == SyntaxKind::INHERITANCE_LIST) {
        return false;
    }
    // Members made by macros (`X(Normal, float3)` in the body) or by
    // directives are not all visible here.
    if node
        .descendants()
        .any(|n| matches!(n.kind(), SyntaxKind::MACRO_CALL | SyntaxKind::MACRO_TYPE | SyntaxKind::PP_INCLUDE))
    {
        return false;
    }
    let name = item.name.clone().unwrap_or_default();
    // Any extension whose target is named like this type.
    let files: Vec<SourceFile> =
        crate::module_graph::visible_files(db, from).iter().copied().chain([def.file(db)]).collect();
    !files.into_iter().any(|f| extension_targets(db, f).iter().any(|(target, generic)| *generic || *target == name))
}

/// The extensions of a file: the name of the type each extends, and
/// whether it is generic (`extension<T : I> T` may extend anything).
#[salsa::tracked(returns(ref))]
fn extension_targets(db: &dyn Db, file: SourceFile) -> Vec<(String, bool)> {
    let tree = item_tree(db, file);
    let map = crate::item_tree::item_source_map(db, file);
    let root = crate::parse(db, file).syntax_node();
    tree.walk()
        .filter(|i| i.kind == ItemKind::Extension)
        .filter_map(|i| ast::Extension::cast(map.get(i.ast_index as usize)?.to_node(&root)))
        .map(|ext| {
            let target = ext.target().map(|t| t.syntax().text().to_string()).unwrap_or_default();
            (target.split('<').next().unwrap_or("").trim().to_string(), ext.generic_param_list_exists())
        })
        .collect()
}

/// Names of members that extensions visible from `file` add (core module
/// included), or `None` if macros may add members unseen.
#[salsa::tracked(returns(ref))]
pub fn extension_member_names(db: &dyn Db, file: SourceFile) -> Option<std::collections::HashSet<String>> {
    let mut out = std::collections::HashSet::new();
    let files = crate::module_graph::visible_files(db, file)
        .iter()
        .chain(crate::base::CoreModule::get(db).files(db))
        .copied()
        .collect::<Vec<_>>();
    for f in files {
        let tree = item_tree(db, f);
        if tree.has_item_macros {
            return None;
        }
        for ext in tree.walk().filter(|i| i.kind == ItemKind::Extension) {
            out.extend(ext.members.iter().filter_map(|m| m.name.clone()));
        }
    }
    Some(out)
}

/// Whether `name` is certainly no member of a built-in value type
/// (scalars, vectors, matrices): no extension anywhere adds it.
pub(super) fn not_a_builtin_member(db: &dyn Db, file: SourceFile, name: &str) -> bool {
    extension_member_names(db, file).as_ref().is_some_and(|names| !names.contains(name))
}

trait ExtensionExt {
    fn generic_param_list_exists(&self) -> bool;
}

impl ExtensionExt for ast::Extension {
    /// `extension<T : I> T : J` may apply to any type.
    fn generic_param_list_exists(&self) -> bool {
        self.syntax().children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST)
    }
}

/// The methods named `name` that the extensions visible from `file` (not
/// generic ones) add to the type `ty`.
pub fn extension_methods(db: &dyn Db, file: SourceFile, ty: &Ty, name: &str) -> Vec<DefId> {
    if !extension_member_names(db, file).as_ref().is_some_and(|names| names.contains(name)) {
        return Vec::new();
    }
    let files: Vec<SourceFile> = crate::module_graph::visible_files(db, file).clone();
    let mut out = Vec::new();
    for f in files {
        let tree = item_tree(db, f);
        for ext in tree.walk().filter(|i| i.kind == ItemKind::Extension && i.generic_params.is_empty()) {
            let methods: Vec<&Item> =
                ext.members.iter().filter(|m| m.kind == ItemKind::Fn && m.name.as_deref() == Some(name)).collect();
            if methods.is_empty() || DeclCtx::for_def(db, DefId::new(db, f, ext.ast_index)).this != *ty {
                continue;
            }
            out.extend(methods.into_iter().map(|m| DefId::new(db, f, m.ast_index)));
        }
    }
    out
}

/// Look up `name` on the type `def<args>`.
pub fn lookup_member(db: &dyn Db, def: DefId, args: &[Ty], name: &str) -> Option<Member> {
    let item = item_of(db, def)?;
    let mut methods = Vec::new();
    let mut found_other = false;
    let mut field = None;
    let mut visit = |members: &[Item], file: SourceFile| {
        for m in members {
            if m.name.as_deref() != Some(name) {
                continue;
            }
            let mdef = DefId::new(db, file, m.ast_index);
            match m.kind {
                ItemKind::Fn => methods.push(mdef),
                ItemKind::Var | ItemKind::Property => {
                    if field.is_none() {
                        let mut ctx = DeclCtx::for_def(db, def);
                        for (g, a) in item.generic_params.iter().zip(args) {
                            if let (Some(n), false) = (&g.name, a.is_unknown()) {
                                ctx.generics.insert(n.clone(), a.clone());
                            }
                        }
                        let t = decl_type_ref(db, mdef).clone().map(|t| ctx.resolve(&t)).unwrap_or(Ty::Unknown);
                        field = Some(t);
                    }
                }
                ItemKind::EnumCase => {
                    field = Some(Ty::Adt { def, name: item.name.clone().unwrap_or_default(), args: Vec::new() })
                }
                _ => found_other = true,
            }
        }
    };
    visit(&item.members, def.file(db));
    // Methods that extensions of the type (in its module) add.
    for ext in applicable_extensions(db, def, args) {
        if let Some(e) = item_of(db, ext) {
            visit(&e.members, ext.file(db));
        }
    }
    if let Some(f) = field {
        return Some(Member::Field(f));
    }
    if !methods.is_empty() {
        return Some(Member::Methods(methods));
    }
    if !found_other && item.kind == ItemKind::Interface {
        // A requirement of an inherited interface (each interface once:
        // inheritance may be cyclic in code being edited).
        let mut all = std::collections::HashSet::new();
        super::generics::interface_closure(db, def, &mut all);
        all.remove(&def);
        let mut bases: Vec<DefId> = all.into_iter().collect();
        bases.sort_by_key(|d| (d.file(db).path(db).clone(), d.ast_index(db)));
        for base in bases {
            let found = item_of(db, base).and_then(|b| {
                b.members.iter().find(|m| m.name.as_deref() == Some(name) && m.kind == ItemKind::Fn).map(|_| base)
            });
            if let Some(base) = found {
                return lookup_member(db, base, &[], name);
            }
        }
    }
    found_other.then_some(Member::Opaque)
}

/// The extensions in the module of the struct `def` that apply to
/// `def<args>`: `extension S`, `extension S<float>` of `S<float>`, or
/// `extension<T> S<T>` of any `S<…>`.
pub fn applicable_extensions(db: &dyn Db, def: DefId, args: &[Ty]) -> Vec<DefId> {
    let Some(item) = item_of(db, def) else { return Vec::new() };
    let mut out = Vec::new();
    if is_core(db, def.file(db)) || !matches!(item.kind, ItemKind::Struct | ItemKind::Class) {
        return out;
    }
    let type_name = item.name.clone().unwrap_or_default();
    for f in crate::module_graph::module_of(db, def.file(db)).iter().copied() {
        let tree = item_tree(db, f);
        // (`extension myfloat4` of `typedef myvector<4> myfloat4`.)
        let is_alias = |name: &str| {
            tree.walk()
                .any(|i| matches!(i.kind, ItemKind::Typedef | ItemKind::Typealias) && i.name.as_deref() == Some(name))
        };
        let targets = extension_targets(db, f);
        if !targets.iter().any(|(t, _)| *t == type_name || is_alias(t)) {
            continue;
        }
        for ext in tree.walk().filter(|i| i.kind == ItemKind::Extension) {
            // (Its own tree: an edit elsewhere in `f` does not re-run
            // the inference that asks.)
            let ext_def = DefId::new(db, f, ext.ast_index);
            let target = crate::hir::decl_syntax(db, ext_def)
                .and_then(ast::Extension::cast)
                .and_then(|e| e.target())
                .map(|t| t.syntax().text().to_string())
                .unwrap_or_default();
            let base = target.split('<').next().unwrap_or("").trim();
            let applies = target.trim() == type_name
                || ((base == type_name || is_alias(base))
                    && match DeclCtx::for_def(db, ext_def).this {
                        Ty::Adt { def: d, args: a, .. } if d == def && a.len() == args.len() => {
                            a.iter().zip(args).all(|(x, y)| matches!(x, Ty::Param { .. }) || x == y)
                        }
                        _ => false,
                    });
            if applies {
                out.push(ext_def);
            }
        }
    }
    out
}

/// The return type of the `__subscript` of `def<args>`, if it has one.
pub(super) fn subscript_type(db: &dyn Db, def: DefId, args: &[Ty]) -> Option<Ty> {
    let item = item_of(db, def)?;
    // A descriptor handle indexes as its resource (`T.Handle h; h[i]`).
    if item.has_attr("__BuiltinDescriptorHandle") {
        let Some(Ty::Adt { def, args, .. }) = args.first() else { return None };
        return subscript_type(db, *def, args);
    }
    let sub = item.members.iter().find(|m| m.kind == ItemKind::Subscript)?;
    let sdef = DefId::new(db, def.file(db), sub.ast_index);
    let mut ctx = DeclCtx::for_def(db, sdef);
    for (g, a) in item.generic_params.iter().zip(args) {
        if let (Some(n), false) = (&g.name, a.is_unknown()) {
            ctx.generics.insert(n.clone(), a.clone());
        }
    }
    let ret = fn_sig(db, sdef).ret.clone();
    Some(ctx.resolve(&ret))
}
