//! Rename: the new name's checks, the references to edit, and the
//! refusals (a clash with a declaration or a local the new name would
//! take).

use super::*;

/// The range of the name at `offset` if it can be renamed, or why not.
pub fn prepare_rename(db: &dyn Db, file: SourceFile, offset: TextSize) -> Result<TextRange, String> {
    let ctx = FileCtx::new(db, file);
    ctx.rename_target(offset).map(|(tok, _)| tok.text_range())
}

/// Rename the symbol at `offset` to `new_name` everywhere (its
/// declarations included): the edits, or why the rename is refused.
pub fn rename(
    db: &dyn Db,
    file: SourceFile,
    offset: TextSize,
    new_name: &str,
) -> Result<Vec<(SourceFile, TextRange, String)>, String> {
    let ctx = FileCtx::new(db, file);
    let (tok, targets) = ctx.rename_target(offset)?;
    check_new_name(new_name)?;
    let old = tok.text();
    let refs = references(db, &targets, old, None);
    if new_name != old {
        if let Some(why) = conflict(db, &ctx, &targets, &refs, old, new_name) {
            return Err(format!("cannot rename `{old}` to `{new_name}`: {why}"));
        }
    }
    Ok(refs.into_iter().map(|r| (r.file, r.range, new_name.to_string())).collect())
}

/// Words that lex as identifiers but are keywords where a name would go.
const SOFT_KEYWORDS: [&str; 14] = [
    "in",
    "out",
    "inout",
    "is",
    "as",
    "new",
    "none",
    "where",
    "module",
    "implementing",
    "using",
    "fwd_diff",
    "bwd_diff",
    "property",
];

/// Whether `name` can be a declaration's name.
fn check_new_name(name: &str) -> Result<(), String> {
    let lexed = slang_syntax::lexer::lex(name);
    match lexed.tokens.as_slice() {
        [t] if t.kind.is_keyword() => Err(format!("`{name}` is a Slang keyword")),
        [t] if t.kind == K::IDENT && t.len as usize == name.len() && lexed.errors.is_empty() => {
            if SOFT_KEYWORDS.contains(&name) {
                Err(format!("`{name}` is a Slang keyword"))
            } else {
                Ok(())
            }
        }
        _ => Err(format!("`{name}` is not a valid identifier")),
    }
}

/// `path:line` of a declaration.
fn location(db: &dyn Db, def: DefId) -> String {
    match item_nav(db, def) {
        Some(nav) => format!("{}:{}", nav.file.path(db), line_of(db, nav.file, nav.focus_range.start())),
        None => def.file(db).path(db).clone(),
    }
}

/// The 1-based line of `offset` in `file`.
fn line_of(db: &dyn Db, file: SourceFile, offset: TextSize) -> usize {
    let text = crate::expansion::semantic_text(db, file);
    text[..usize::from(offset).min(text.len())].matches('\n').count() + 1
}

/// Why renaming `targets` (with references `refs`) from `old` to `new`
/// would change what some name means, if it would.
fn conflict(
    db: &dyn Db,
    ctx: &FileCtx,
    targets: &[Symbol],
    refs: &[Reference],
    old: &str,
    new: &str,
) -> Option<String> {
    targets.iter().find_map(|t| match t {
        Symbol::Item(def) => item_conflict(db, *def, targets, new),
        Symbol::Local { name, .. } => ctx.local_conflict(*name, refs, old, new),
        Symbol::Namespace(path) => {
            let (outer, table) = match path.rsplit_once("::") {
                Some((outer, _)) => (format!("namespace `{outer}`"), ctx.scope.namespace(outer)),
                None => ("the module scope".to_string(), Some(&ctx.scope.names)),
            };
            let clash = table.and_then(|t| t.get(new)).and_then(|defs| defs.first())?;
            Some(format!(
                "{outer} already declares `{new}` ({})",
                location(db, DefId::new(db, clash.file, clash.ast_index))
            ))
        }
    })
}

/// A declaration named `new` in the scope of item `def` (its type's
/// members, its namespace, the module scope, its owner's generic
/// parameters). Functions may overload one another with other parameter
/// counts.
fn item_conflict(db: &dyn Db, def: DefId, targets: &[Symbol], new: &str) -> Option<String> {
    let item = item_of(db, def)?;
    let ctx = FileCtx::new(db, def.file(db));
    let to_defs = |defs: Option<&Vec<DefRef>>| -> Vec<DefId> {
        defs.map(|d| d.iter().map(|d| DefId::new(db, d.file, d.ast_index)).collect()).unwrap_or_default()
    };
    let (clashes, scope) = match parent_of(db, def) {
        Some(p) => {
            let owner = item_of(db, p)?;
            let owner_name = owner.name.clone().unwrap_or_default();
            if matches!(item.kind, ItemKind::GenericTypeParam | ItemKind::GenericValueParam) {
                let params = owner
                    .generic_params
                    .iter()
                    .filter(|g| g.name.as_deref() == Some(new))
                    .map(|g| DefId::new(db, p.file(db), g.ast_index))
                    .collect();
                (params, format!("`{owner_name}` already has a generic parameter named `{new}`"))
            } else if owner.kind == ItemKind::Namespace {
                let path = def_node(db, p).map(|n| namespace_path(&n, None)).unwrap_or_default();
                (
                    to_defs(ctx.scope.namespace(&path).and_then(|t| t.get(new))),
                    format!("namespace `{path}` already declares `{new}`"),
                )
            } else {
                let ty = if owner.kind == ItemKind::Extension { extension_target(db, p)? } else { p };
                let ty_name = item_of(db, ty).and_then(|i| i.name.clone()).unwrap_or_default();
                (ctx.type_members(ty, new), format!("`{ty_name}` already has a member named `{new}`"))
            }
        }
        None => {
            (to_defs(ctx.scope.names.get(new)), format!("the module scope already has a declaration named `{new}`"))
        }
    };
    let is_fn = |d: DefId| item_of(db, d).is_some_and(|i| i.kind == ItemKind::Fn);
    let overloads = |c: DefId| is_fn(def) && is_fn(c) && fn_sig(db, def).params.len() != fn_sig(db, c).params.len();
    let clash = clashes.into_iter().find(|&c| !targets.contains(&Symbol::Item(c)) && !overloads(c))?;
    Some(format!("{scope} ({})", location(db, clash)))
}

impl FileCtx<'_> {
    /// The name at `offset` if it can be renamed, with what it refers to.
    fn rename_target(&self, offset: TextSize) -> Result<(SyntaxToken, Vec<Symbol>), String> {
        let at = self.root.token_at_offset(offset);
        let Some(tok) = at.clone().find(|t| t.kind() == K::IDENT) else {
            return Err(match at.into_iter().find(|t| t.kind().is_keyword()) {
                Some(k) => format!("`{}` is a keyword and cannot be renamed", k.text()),
                None => "there is no name to rename here".to_string(),
            });
        };
        let targets = self.resolve(&tok);
        if targets.is_empty() {
            return Err(format!("`{}` does not resolve to a declaration that can be renamed", tok.text()));
        }
        let core = targets.iter().any(|t| match t {
            Symbol::Item(d) => is_core(self.db, d.file(self.db)),
            Symbol::Namespace(p) => self.scope.core.as_ref().is_some_and(|c| c.namespaces.contains_key(p)),
            Symbol::Local { .. } => false,
        });
        if core {
            return Err(format!("`{}` is declared in the core module and cannot be renamed", tok.text()));
        }
        Ok((tok, targets))
    }

    /// Why renaming the local declared at `decl` from `old` to `new` would
    /// change what a name means: another declaration of `new` in its scope,
    /// a local `new` hiding it at a use, or a use of another `new` it would
    /// capture.
    fn local_conflict(&self, decl: TextRange, refs: &[Reference], old: &str, new: &str) -> Option<String> {
        let db = self.db;
        node_at(&self.root, decl, K::NAME)?;
        let line = |o: TextSize| line_of(db, self.file, o);
        let same_scope = crate::hir::scope::same_scope_bindings(db, self.file, decl);
        if let Some(other) = same_scope.iter().find(|b| b.name == new).and_then(|b| b.name_range) {
            return Some(format!("`{new}` is already declared in the same scope (line {})", line(other.start())));
        }
        for r in refs.iter().filter(|r| !r.is_declaration && r.file == self.file) {
            // (A `new` declared before the renamed local is further out: the
            // renamed one wins there.)
            let hider = self.local_named(new, r.range.start()).filter(|n| n.start() > decl.start());
            if let Some(hider) = hider {
                return Some(format!(
                    "the local `{new}` declared at line {} would hide it at line {}",
                    line(hider.start()),
                    line(r.range.start())
                ));
            }
        }
        for tok in self.tokens_named(new, self.local_range(decl)) {
            let Some(p) = tok.parent().filter(|p| matches!(p.kind(), K::PATH_EXPR | K::PATH_TYPE)) else { continue };
            let first = p.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == K::IDENT);
            if first.as_ref() != Some(&tok) {
                continue;
            }
            let start = tok.text_range().start();
            let ours_visible = self.local_named(old, start) == Some(decl);
            // (A local `new` declared inside the renamed one's scope still wins.)
            let closer = self.local_named(new, start).is_some_and(|n| n.start() > decl.start());
            if ours_visible && !closer {
                return Some(format!(
                    "the use of `{new}` at line {} would then refer to the renamed local",
                    line(start)
                ));
            }
        }
        None
    }
}
