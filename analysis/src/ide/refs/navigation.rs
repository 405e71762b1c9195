//! The navigation that needs the whole workspace: go to implementation,
//! type definition and declaration, and workspace symbols.

use super::*;

/// A declaration found by [`workspace_symbols`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceSymbol {
    pub name: String,
    pub kind: ItemKind,
    /// The enclosing type, namespace or extended type.
    pub container: Option<String>,
    pub file: SourceFile,
    pub range: TextRange,
    pub focus_range: TextRange,
}

/// At most this many workspace symbols are returned.
const MAX_WORKSPACE_SYMBOLS: usize = 512;

/// On an interface: the types that conform to it (directly, through
/// interfaces that inherit it, base types or extensions). On an interface
/// requirement: the members of those types that implement it.
pub fn goto_implementation(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<NavTarget> {
    let ctx = FileCtx::new(db, file);
    let Some(tok) = ident_at(&ctx.root, offset) else { return Vec::new() };
    let mut out = Vec::new();
    for sym in ctx.resolve(&tok) {
        let Symbol::Item(def) = sym else { continue };
        let Some(item) = item_of(db, def) else { continue };
        if item.kind == ItemKind::Interface {
            out.extend(conforming_types(db, def).iter().filter_map(|(ty, _)| item_nav(db, *ty)));
            continue;
        }
        let (Some(iface), Some(name)) = (parent_of(db, def), item.name.as_deref()) else { continue };
        if item_of(db, iface).is_none_or(|i| i.kind != ItemKind::Interface) {
            continue;
        }
        for (ty, sites) in conforming_types(db, iface) {
            let mut members = FileCtx::new(db, ty.file(db)).type_members(ty, name);
            for &site in &sites {
                members.extend(own_members(db, site, name));
            }
            let mut seen = HashSet::new();
            for m in members {
                if seen.insert(m) && item_of(db, m).is_some_and(|mi| implements(item.kind, mi.kind)) {
                    out.extend(item_nav(db, m));
                }
            }
        }
    }
    dedup(out)
}

/// The declaration of the type of the expression, variable, parameter or
/// field at `offset` (through arrays and pointers; with its generic
/// arguments' types). Built-in types lead to the core module.
pub fn goto_type_definition(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<NavTarget> {
    let ctx = FileCtx::new(db, file);
    let Some(tok) = ident_at(&ctx.root, offset) else { return Vec::new() };
    let Some(ty) = ctx.type_at(&tok) else { return Vec::new() };
    let mut out = Vec::new();
    type_navs(db, &ty, &mut out);
    dedup(out)
}

/// Like go to definition, except that a member implementing an interface
/// requirement leads to the requirement, and a function with forward
/// declarations (without a body) to those.
pub fn goto_declaration(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<NavTarget> {
    let ctx = FileCtx::new(db, file);
    let Some(tok) = ident_at(&ctx.root, offset) else { return Vec::new() };
    let mut out = Vec::new();
    for sym in ctx.resolve(&tok) {
        if let Symbol::Item(def) = sym {
            let mut decls = requirements_implemented(db, def);
            if decls.is_empty() {
                decls = forward_declarations(db, def);
            }
            if !decls.is_empty() {
                out.extend(decls.into_iter().filter_map(|d| item_nav(db, d)));
                continue;
            }
        }
        out.extend(ctx.symbol_navs(&sym));
    }
    dedup(out)
}

/// Declarations of the workspace (not the core module) whose name matches
/// `query`: top-level items and their members, best matches first (exact,
/// prefix, substring, then subsequence; case-insensitive), then by name.
pub fn workspace_symbols(db: &dyn Db, query: &str) -> Vec<WorkspaceSymbol> {
    let query: Vec<char> = query.to_lowercase().chars().filter(|c| !c.is_whitespace()).collect();
    /// A match, with its sort key first.
    struct Hit {
        score: u8,
        lower: String,
        name: String,
        file_index: usize,
        ast_index: u32,
        file: SourceFile,
        kind: ItemKind,
        container: Option<String>,
    }
    /// The matches among `items` and their members.
    fn collect(
        db: &dyn Db,
        (file, file_index): (SourceFile, usize),
        items: &[Item],
        container: Option<&str>,
        query: &[char],
        out: &mut Vec<Hit>,
    ) {
        for item in items {
            let Some(name) = &item.name else {
                // Extensions: their members, under the extended type.
                let target = (item.kind == ItemKind::Extension)
                    .then(|| def_node(db, DefId::new(db, file, item.ast_index)))
                    .flatten()
                    .and_then(ast::Extension::cast)
                    .and_then(|e| e.target())
                    .map(|t| t.syntax().text().to_string());
                collect(db, (file, file_index), &item.members, target.as_deref().or(container), query, out);
                continue;
            };
            if let Some(score) = match_score(query, name) {
                out.push(Hit {
                    score,
                    lower: name.to_lowercase(),
                    name: name.clone(),
                    file_index,
                    ast_index: item.ast_index,
                    file,
                    kind: item.kind,
                    container: container.map(str::to_string),
                });
            }
            collect(db, (file, file_index), &item.members, Some(name), query, out);
        }
    }
    let mut hits = Vec::new();
    for (i, f) in user_files(db).into_iter().enumerate() {
        collect(db, (f, i), &item_tree(db, f).items, None, &query, &mut hits);
    }
    hits.sort_by(|a, b| {
        (a.score, &a.lower, &a.name, a.file_index, a.ast_index).cmp(&(
            b.score,
            &b.lower,
            &b.name,
            b.file_index,
            b.ast_index,
        ))
    });
    hits.truncate(MAX_WORKSPACE_SYMBOLS);
    hits.into_iter()
        .filter_map(|h| {
            let nav = item_nav(db, DefId::new(db, h.file, h.ast_index))?;
            Some(WorkspaceSymbol {
                name: h.name,
                kind: h.kind,
                container: h.container,
                file: nav.file,
                range: nav.full_range,
                focus_range: nav.focus_range,
            })
        })
        .collect()
}

/// How well `name` matches the lowercased `query`: 0 exact, 1 prefix, 2
/// substring, 3 subsequence (`None`: no match). An empty query matches
/// everything.
fn match_score(query: &[char], name: &str) -> Option<u8> {
    if query.is_empty() {
        return Some(0);
    }
    let lower: Vec<char> = name.to_lowercase().chars().collect();
    if lower == query {
        return Some(0);
    }
    if lower.starts_with(query) {
        return Some(1);
    }
    if lower.windows(query.len()).any(|w| w == query) {
        return Some(2);
    }
    let mut rest = lower.iter();
    query.iter().all(|q| rest.any(|c| c == q)).then_some(3)
}

/// Whether a member of kind `member` can implement a requirement of kind
/// `requirement`.
fn implements(requirement: ItemKind, member: ItemKind) -> bool {
    match requirement {
        ItemKind::Fn => member == ItemKind::Fn,
        ItemKind::Property => matches!(member, ItemKind::Property | ItemKind::Var),
        ItemKind::AssociatedType => member.is_type(),
        k => k == member,
    }
}

/// Every user type conforming to interface `iface`, with the declarations
/// (the type, its extensions) that say so.
fn conforming_types(db: &dyn Db, iface: DefId) -> Vec<(DefId, Vec<DefId>)> {
    let mut out: Vec<(DefId, Vec<DefId>)> = Vec::new();
    for f in user_files(db) {
        let tree = item_tree(db, f);
        let sites: Vec<&Item> = tree
            .walk()
            .filter(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Extension))
            .collect();
        if sites.is_empty() {
            continue;
        }
        let ctx = FileCtx::new(db, f);
        for site in sites {
            let def = DefId::new(db, f, site.ast_index);
            let mut ifaces = Vec::new();
            let ty = if site.kind == ItemKind::Extension {
                let Some(ty) = extension_target(db, def) else { continue };
                ctx.holder_interfaces(def, &mut ifaces, &mut HashSet::new());
                ty
            } else {
                ctx.collect_interfaces(def, &mut ifaces, &mut HashSet::new());
                def
            };
            if !ifaces.contains(&iface) {
                continue;
            }
            match out.iter_mut().find(|(t, _)| *t == ty) {
                Some((_, sites)) => sites.push(def),
                None => out.push((ty, vec![def])),
            }
        }
    }
    out
}

/// The interface requirements that member `def` of a struct, class or
/// extension implements.
fn requirements_implemented(db: &dyn Db, def: DefId) -> Vec<DefId> {
    let Some(item) = item_of(db, def) else { return Vec::new() };
    let Some(name) = item.name.as_deref() else { return Vec::new() };
    let Some(parent) = parent_of(db, def) else { return Vec::new() };
    let ty = match item_of(db, parent).map(|p| p.kind) {
        Some(ItemKind::Struct | ItemKind::Class) => parent,
        Some(ItemKind::Extension) => match extension_target(db, parent) {
            Some(t) => t,
            None => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    let ctx = FileCtx::new(db, def.file(db));
    let mut ifaces = Vec::new();
    ctx.collect_interfaces(ty, &mut ifaces, &mut HashSet::new());
    // (An extension may add the conformance itself.)
    ctx.holder_interfaces(parent, &mut ifaces, &mut HashSet::new());
    let mut out = Vec::new();
    for i in ifaces {
        for r in own_members(db, i, name) {
            if !out.contains(&r) && item_of(db, r).is_some_and(|ri| implements(ri.kind, item.kind)) {
                out.push(r);
            }
        }
    }
    out
}

/// The declarations without a body of function `def` (same scope, name
/// and parameter count), when `def` has a body.
fn forward_declarations(db: &dyn Db, def: DefId) -> Vec<DefId> {
    let has_body = |d: DefId| def_node(db, d).and_then(ast::Fn::cast).is_some_and(|f| f.body().is_some());
    let Some(item) = item_of(db, def) else { return Vec::new() };
    let Some(name) = item.name.as_deref() else { return Vec::new() };
    if item.kind != ItemKind::Fn || !has_body(def) {
        return Vec::new();
    }
    let siblings: Vec<DefId> = match parent_of(db, def) {
        Some(p) => own_members(db, p, name),
        None => global_scope(db, def.file(db))
            .names
            .get(name)
            .map(|defs| defs.iter().map(|d| DefId::new(db, d.file, d.ast_index)).collect())
            .unwrap_or_default(),
    };
    let arity = fn_sig(db, def).params.len();
    siblings
        .into_iter()
        .filter(|&d| {
            d != def
                && item_of(db, d).is_some_and(|i| i.kind == ItemKind::Fn)
                && !has_body(d)
                && fn_sig(db, d).params.len() == arity
        })
        .collect()
}

/// The declarations of type `ty` and of its generic arguments.
fn type_navs(db: &dyn Db, ty: &Ty, out: &mut Vec<NavTarget>) {
    match ty {
        Ty::Array(t, _) | Ty::Pointer(t) | Ty::TypeValue(t) => type_navs(db, t, out),
        Ty::Adt { def, args, .. } => {
            out.extend(item_nav(db, *def));
            for a in args {
                type_navs(db, a, out);
            }
        }
        Ty::Param { def, .. } => out.extend(item_nav(db, *def)),
        Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) => {
            out.extend(crate::name_res::core_def(db, &ty.to_string()).and_then(|d| item_nav(db, d)))
        }
        _ => {}
    }
}

impl FileCtx<'_> {
    /// The interfaces type `ty` conforms to, in order of declaration
    /// (inherited ones after those that inherit them).
    fn collect_interfaces(&self, ty: DefId, out: &mut Vec<DefId>, seen: &mut HashSet<DefId>) {
        if !seen.insert(ty) {
            return;
        }
        for holder in std::iter::once(ty).chain(self.extensions_of(ty)) {
            self.holder_interfaces(holder, out, seen);
        }
    }

    /// The interfaces the supertypes `holder` lists lead to.
    fn holder_interfaces(&self, holder: DefId, out: &mut Vec<DefId>, seen: &mut HashSet<DefId>) {
        for sup in supertypes(self.db, holder) {
            match item_of(self.db, sup).map(|i| i.kind) {
                Some(ItemKind::Interface) => {
                    if !out.contains(&sup) {
                        out.push(sup);
                    }
                    self.collect_interfaces(sup, out, seen);
                }
                Some(ItemKind::Struct | ItemKind::Class) => self.collect_interfaces(sup, out, seen),
                _ => {}
            }
        }
    }

    /// The navigation targets of a symbol (a namespace: its declarations).
    fn symbol_navs(&self, sym: &Symbol) -> Vec<NavTarget> {
        let db = self.db;
        match sym {
            Symbol::Item(d) => item_nav(db, *d).into_iter().collect(),
            Symbol::Local { file, name } => {
                let root = parse(db, *file).syntax_node();
                let Some(n) = node_at(&root, *name, K::NAME) else { return Vec::new() };
                let decl = n.parent().unwrap_or_else(|| n.clone());
                vec![NavTarget {
                    file: *file,
                    full_range: decl.text_range(),
                    focus_range: *name,
                    name: n.text().to_string(),
                }]
            }
            Symbol::Namespace(p) => {
                let (outer, last) = p.rsplit_once("::").unwrap_or(("", p));
                let table = if outer.is_empty() { Some(&self.scope.names) } else { self.scope.namespace(outer) };
                table
                    .and_then(|t| t.get(last))
                    .into_iter()
                    .flatten()
                    .filter(|d| d.kind == ItemKind::Namespace)
                    .filter_map(|d| item_nav(db, DefId::new(db, d.file, d.ast_index)))
                    .collect()
            }
        }
    }

    /// The type of what `tok` names or is part of.
    fn type_at(&self, tok: &SyntaxToken) -> Option<Ty> {
        let db = self.db;
        let parent = tok.parent()?;
        let expr = match parent.kind() {
            K::THIS_EXPR => true,
            K::PATH_EXPR | K::MEMBER_EXPR => last_ident(&parent).as_ref() == Some(tok),
            _ => false,
        };
        if let Some(t) = expr.then(|| self.type_of(&parent)).flatten() {
            if !matches!(t, Ty::Func(_) | Ty::DiffFunc { .. } | Ty::Namespace(_)) {
                return Some(t);
            }
        }
        match self.resolve(tok).into_iter().next()? {
            Symbol::Item(def) => {
                let item = item_of(db, def)?;
                let name = item.name.clone().unwrap_or_default();
                match item.kind {
                    ItemKind::Struct
                    | ItemKind::Class
                    | ItemKind::Enum
                    | ItemKind::Interface
                    | ItemKind::AssociatedType => Some(Ty::Adt { def, name, args: Vec::new() }),
                    ItemKind::GenericTypeParam => Some(Ty::Param { def, name }),
                    ItemKind::EnumCase => {
                        parent_of(db, def).map(|p| Ty::Adt { def: p, name: String::new(), args: Vec::new() })
                    }
                    ItemKind::Typealias | ItemKind::Typedef | ItemKind::Var | ItemKind::Property => {
                        let t = decl_type_ref(db, def).clone()?;
                        Some(DeclCtx::for_def(db, def).resolve(&t))
                    }
                    _ => None,
                }
            }
            Symbol::Local { name, .. } => self.local_type(name),
            Symbol::Namespace(_) => None,
        }
    }

    /// The type of the local declared by the name at `name`: as written, or
    /// that of its initializer.
    fn local_type(&self, name: TextRange) -> Option<Ty> {
        let decl = node_at(&self.root, name, K::NAME)?.parent()?;
        let written = match decl.kind() {
            K::DECLARATOR => {
                let d = ast::Declarator::cast(decl.clone())?;
                match d.ty().or_else(|| decl.parent().and_then(ast::VarDecl::cast).and_then(|v| v.ty())) {
                    Some(t) => Some(t),
                    None => return self.type_of(d.initializer()?.syntax()),
                }
            }
            K::PARAM => ast::Param::cast(decl.clone())?.ty(),
            _ => None,
        }?;
        let range = decl.text_range();
        let &(_, f) = self.fns.iter().filter(|(r, _)| r.contains_range(range)).min_by_key(|(r, _)| r.len())?;
        Some(DeclCtx::for_def(self.db, f).resolve(&lower_type(Some(written))))
    }
}
