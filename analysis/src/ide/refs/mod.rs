//! References and what builds on them: document highlights here, rename
//! (`rename.rs`), and the navigation that needs the whole workspace (go to
//! implementation, type definition and declaration; workspace symbols:
//! `navigation.rs`). This module resolves names ([`FileCtx`]) for all of
//! them.
//!
//! Names resolve here by scopes where scopes decide (locals, generic
//! parameters, members of enclosing types, namespaces, module and imported
//! names, the functions derivative attributes name) and through inference
//! where types do (`a.f`, `this.f`, `t.f` for `t : T`). Finding the
//! references of a declaration resolves only the identifier tokens spelled
//! like its name, in the files that can see it; a local is looked for in
//! its function only. Inference runs per function and is memoized, so each
//! candidate costs a lookup, not a re-inference.

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use slang_syntax::ast::{self, AstNode};
use slang_syntax::{NodeOrToken, SyntaxKind as K, SyntaxNode, SyntaxNodePtr, SyntaxToken, TextRange, TextSize};

use super::{ident_at, nav_target, Definition, NavTarget};
use crate::autodiff::{Dir, Mode};
use crate::hir::scope::BindingKind;
use crate::hir::{def_node, lower_type, DefId};
use crate::infer::{decl_type_ref, fn_sig, is_core, item_of, parent_of, DeclCtx};
use crate::item_tree::{item_source_map, item_tree, Item, ItemKind};
use crate::module_graph::{imported_files, module_of};
use crate::name_res::{global_scope, DefRef, GlobalScope};
use crate::ty::{Ty, TypeResolver};
use crate::{parse, Db, SourceFile, Workspace};

mod navigation;
mod rename;

pub use self::navigation::{
    goto_declaration, goto_implementation, goto_type_definition, workspace_symbols, WorkspaceSymbol,
};
pub use self::rename::{prepare_rename, rename};

/// A use or the declaration of a symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub file: SourceFile,
    /// The name's range.
    pub range: TextRange,
    /// The declaration itself (its name).
    pub is_declaration: bool,
    /// An assignment target, a `++`/`--` operand or an `out`/`inout`
    /// argument (also through `a[i]` and `a.f`), or a declaration with an
    /// initializer.
    pub is_write: bool,
}

/// How a document highlight is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HighlightKind {
    Read,
    Write,
    /// A name that resolves to nothing: its occurrences by spelling.
    Text,
}

/// The references of the symbol at `offset` in every file that can see it
/// (the core module's files are not searched), in workspace order.
pub fn find_references(db: &dyn Db, file: SourceFile, offset: TextSize, include_declaration: bool) -> Vec<Reference> {
    let ctx = FileCtx::new(db, file);
    let Some(tok) = ident_at(&ctx.root, offset) else { return Vec::new() };
    let mut refs = references(db, &ctx.resolve(&tok), tok.text(), None);
    if !include_declaration {
        refs.retain(|r| !r.is_declaration);
    }
    refs
}

/// The references in this file of the symbol at `offset`; for a name that
/// resolves to nothing, the identifiers spelled like it.
pub fn document_highlights(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<(TextRange, HighlightKind)> {
    let ctx = FileCtx::new(db, file);
    let Some(tok) = ident_at(&ctx.root, offset) else { return Vec::new() };
    let targets = ctx.resolve(&tok);
    if targets.is_empty() {
        if tok.kind() != K::IDENT {
            return Vec::new();
        }
        return ctx
            .tokens_named(tok.text(), ctx.root.text_range())
            .into_iter()
            .map(|t| (t.text_range(), HighlightKind::Text))
            .collect();
    }
    references(db, &targets, tok.text(), Some(file))
        .into_iter()
        .map(|r| (r.range, if r.is_write { HighlightKind::Write } else { HighlightKind::Read }))
        .collect()
}

/// What a name refers to, comparable across files.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Symbol {
    Item(DefId),
    /// A local or parameter, by the range of its declared name.
    Local {
        file: SourceFile,
        name: TextRange,
    },
    /// A namespace by its full path (it may be declared in many places).
    Namespace(String),
}

/// Where the next segment of a qualified name is looked up.
enum Scope {
    Namespace(String),
    Type(DefId),
}

/// The workspace's files but the core module's.
fn user_files(db: &dyn Db) -> Vec<SourceFile> {
    Workspace::get(db).files(db).iter().copied().filter(|&f| !is_core(db, f)).collect()
}

/// Whether `file` can refer to any of `targets`.
fn sees(db: &dyn Db, file: SourceFile, targets: &[Symbol]) -> bool {
    targets.iter().any(|t| match t {
        Symbol::Item(d) => {
            let df = d.file(db);
            df == file || is_core(db, df) || module_of(db, file).contains(&df) || imported_files(db, file).contains(&df)
        }
        Symbol::Local { file: f, .. } => *f == file,
        Symbol::Namespace(_) => true,
    })
}

/// The references (declarations included) of `targets`, spelled `name`,
/// in `only` or in every file that can see them.
fn references(db: &dyn Db, targets: &[Symbol], name: &str, only: Option<SourceFile>) -> Vec<Reference> {
    if targets.is_empty() {
        return Vec::new();
    }
    let local = targets.iter().find_map(|t| match t {
        Symbol::Local { file, name } => Some((*file, *name)),
        _ => None,
    });
    let files = match local {
        Some((f, _)) => vec![f],
        None => user_files(db),
    };
    let mut out = Vec::new();
    for f in files {
        if only.is_some_and(|o| o != f)
            || !crate::expansion::semantic_text(db, f).contains(name)
            || !sees(db, f, targets)
        {
            continue;
        }
        let ctx = FileCtx::new(db, f);
        let within = match local {
            Some((_, decl)) => ctx.local_range(decl),
            None => ctx.root.text_range(),
        };
        for tok in ctx.tokens_named(name, within) {
            if !ctx.resolve(&tok).iter().any(|s| targets.contains(s)) {
                continue;
            }
            let is_declaration = tok.parent().is_some_and(|p| p.kind() == K::NAME);
            let is_write = if is_declaration { declares_with_value(&tok) } else { ctx.is_write(&tok) };
            out.push(Reference { file: f, range: tok.text_range(), is_declaration, is_write });
        }
    }
    out
}

/// Whether the declared name `tok` has an initializer (`float x = 1`).
fn declares_with_value(tok: &SyntaxToken) -> bool {
    tok.parent().and_then(|n| n.parent()).and_then(ast::Declarator::cast).is_some_and(|d| d.initializer().is_some())
}

/// The node of `kind` covering exactly `range`.
fn node_at(root: &SyntaxNode, range: TextRange, kind: K) -> Option<SyntaxNode> {
    let start = match root.covering_element(range) {
        NodeOrToken::Node(n) => n,
        NodeOrToken::Token(t) => t.parent()?,
    };
    start.ancestors().find(|n| n.kind() == kind && n.text_range() == range)
}

/// The full path of the namespace declared by `ns`, up to its name `upto`
/// (`namespace a::b` declares `a` and `a::b`).
fn namespace_path(ns: &SyntaxNode, upto: Option<&SyntaxNode>) -> String {
    let names = |n: &SyntaxNode| -> Vec<SyntaxNode> { n.children().filter(|c| c.kind() == K::NAME).collect() };
    let mut parts: Vec<String> = Vec::new();
    for outer in ns.ancestors().skip(1).filter(|a| a.kind() == K::NAMESPACE) {
        let outer_names: Vec<String> = names(&outer).iter().map(|n| n.text().to_string()).collect();
        parts.splice(0..0, outer_names);
    }
    for n in names(ns) {
        parts.push(n.text().to_string());
        if upto == Some(&n) {
            break;
        }
    }
    parts.join("::")
}

/// Whether `at` is inside the body (members) of the type declaration `ty`.
fn in_body(ty: &SyntaxNode, at: &SyntaxNode) -> bool {
    ty.children()
        .find(|c| matches!(c.kind(), K::MEMBER_LIST | K::ENUM_BODY))
        .is_some_and(|l| l.text_range().contains_range(at.text_range()))
}

/// Whether declarations of this kind can have generic parameters (the
/// others, blocks and files, are not searched for them).
fn has_generics(kind: K) -> bool {
    matches!(
        kind,
        K::FN
            | K::INIT
            | K::SUBSCRIPT
            | K::STRUCT
            | K::CLASS
            | K::INTERFACE
            | K::ENUM
            | K::EXTENSION
            | K::TYPEALIAS
            | K::ASSOCIATED_TYPE
            | K::PROPERTY
    )
}

/// Whether `node` has a token of one of `kinds` as a child.
fn has_token(node: &SyntaxNode, kinds: &[K]) -> bool {
    node.children_with_tokens().filter_map(|e| e.into_token()).any(|t| kinds.contains(&t.kind()))
}

/// The assignment operators (plain and compound).
const ASSIGN_OPS: [K; 11] = [
    K::EQ,
    K::PLUSEQ,
    K::MINUSEQ,
    K::STAREQ,
    K::SLASHEQ,
    K::PERCENTEQ,
    K::AMPEQ,
    K::PIPEEQ,
    K::CARETEQ,
    K::SHLEQ,
    K::SHREQ,
];

/// The last identifier among the direct children of `node`.
fn last_ident(node: &SyntaxNode) -> Option<SyntaxToken> {
    node.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == K::IDENT).last()
}

/// Whether function `def` can take `n` arguments.
fn accepts(db: &dyn Db, def: DefId, n: usize) -> bool {
    if item_of(db, def).is_none_or(|i| !matches!(i.kind, ItemKind::Fn | ItemKind::Init)) {
        return false;
    }
    let sig = fn_sig(db, def);
    let max = sig.params.len();
    let min = max - sig.has_defaults.iter().filter(|d| **d).count();
    sig.variadic || (min..=max).contains(&n)
}

/// The user type an extension extends.
fn extension_target(db: &dyn Db, ext: DefId) -> Option<DefId> {
    let target = def_node(db, ext).and_then(ast::Extension::cast)?.target()?;
    match DeclCtx::for_def(db, ext).resolve(&lower_type(Some(target))) {
        Ty::Adt { def, .. } => Some(def),
        _ => None,
    }
}

/// The types `holder` (a type or an extension) lists after `:`.
fn supertypes(db: &dyn Db, holder: DefId) -> Vec<DefId> {
    let Some(node) = def_node(db, holder) else { return Vec::new() };
    let Some(list) = node.children().find(|c| c.kind() == K::INHERITANCE_LIST) else { return Vec::new() };
    let mut ctx = DeclCtx::for_def(db, holder);
    list.children()
        .filter_map(ast::Type::cast)
        .filter_map(|t| match ctx.resolve(&lower_type(Some(t))) {
            Ty::Adt { def, .. } => Some(def),
            _ => None,
        })
        .collect()
}

/// The members of `holder` itself named `name`.
fn own_members(db: &dyn Db, holder: DefId, name: &str) -> Vec<DefId> {
    item_of(db, holder)
        .map(|i| {
            i.members
                .iter()
                .filter(|m| m.name.as_deref() == Some(name))
                .map(|m| DefId::new(db, holder.file(db), m.ast_index))
                .collect()
        })
        .unwrap_or_default()
}

/// Where declaration `def` is.
fn item_nav(db: &dyn Db, def: DefId) -> Option<NavTarget> {
    nav_target(db, &Definition::Item(def))
}

/// Keep the first of equal targets.
fn dedup(navs: Vec<NavTarget>) -> Vec<NavTarget> {
    let mut out: Vec<NavTarget> = Vec::new();
    for n in navs {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// A file's tree with what resolving its names needs.
struct FileCtx<'db> {
    db: &'db dyn Db,
    file: SourceFile,
    root: SyntaxNode,
    scope: &'db GlobalScope,
    /// The file's items by syntax pointer.
    items: HashMap<SyntaxNodePtr, u32>,
    /// The file's functions with their ranges.
    fns: Vec<(TextRange, DefId)>,
    /// The extensions this file can see, by extended type name (built on
    /// first use).
    extensions: OnceCell<HashMap<String, Vec<DefId>>>,
}

impl<'db> FileCtx<'db> {
    fn new(db: &'db dyn Db, file: SourceFile) -> Self {
        let map = item_source_map(db, file);
        let fns = crate::infer::function_spans(db, file).clone();
        FileCtx {
            db,
            file,
            root: parse(db, file).syntax_node(),
            scope: global_scope(db, file),
            items: map.iter().enumerate().map(|(i, p)| (*p, i as u32)).collect(),
            fns,
            extensions: OnceCell::new(),
        }
    }

    /// The declared name of the local or parameter `name` visible at
    /// `offset` (the closest one).
    fn local_named(&self, name: &str, offset: TextSize) -> Option<TextRange> {
        crate::hir::scope::resolve_local(self.db, self.file, name, offset, |k| {
            !matches!(k, BindingKind::GenericParam | BindingKind::SetterValue)
        })?
        .name_range
    }

    /// Where the local whose name is at `decl` can be named: from its
    /// declaration to the end of its scope (the file if it is not one).
    fn local_range(&self, decl: TextRange) -> TextRange {
        crate::hir::scope::binding_declared_at(self.db, self.file, decl)
            .map_or(self.root.text_range(), |b| b.visible.cover(decl))
    }

    /// The item whose syntax is `node`.
    fn item_at(&self, node: &SyntaxNode) -> Option<DefId> {
        self.items.get(&SyntaxNodePtr::new(node)).map(|&i| DefId::new(self.db, self.file, i))
    }

    /// The identifier tokens spelled `name` within `range`.
    fn tokens_named(&self, name: &str, range: TextRange) -> Vec<SyntaxToken> {
        let text = self.file.text(self.db);
        let is_ident = |c: char| c.is_alphanumeric() || c == '_';
        let (start, end) = (usize::from(range.start()), usize::from(range.end()).min(text.len()));
        text[start..end]
            .match_indices(name)
            .filter_map(|(i, _)| {
                let at = start + i;
                if text[..at].chars().next_back().is_some_and(is_ident)
                    || text[at + name.len()..].chars().next().is_some_and(is_ident)
                {
                    return None;
                }
                let at = TextSize::from(at as u32);
                let tok = self.root.token_at_offset(at).right_biased()?;
                (tok.kind() == K::IDENT && tok.text() == name && tok.text_range().start() == at).then_some(tok)
            })
            .collect()
    }

    /// The type inference gave expression `node`, if it is in a body and
    /// known.
    fn type_of(&self, node: &SyntaxNode) -> Option<Ty> {
        let range = node.text_range();
        let &(_, f) = self.fns.iter().filter(|(r, _)| r.contains_range(range)).min_by_key(|(r, _)| r.len())?;
        let e = crate::hir::expr_of_node(self.db, f, node)?;
        crate::infer::infer(self.db, f).expr_types.get(e.0 as usize).cloned().filter(|t| !t.is_unknown())
    }

    /// What the identifier `tok` refers to.
    fn resolve(&self, tok: &SyntaxToken) -> Vec<Symbol> {
        if tok.kind() != K::IDENT {
            return Vec::new();
        }
        let Some(parent) = tok.parent() else { return Vec::new() };
        if let Some(found) = self.derivative_target(tok) {
            return found;
        }
        let found = match parent.kind() {
            K::NAME => self.declared(&parent),
            K::MEMBER_EXPR => self.member(&parent, tok.text()),
            K::PATH_EXPR | K::PATH_TYPE | K::PATH => self.path_segment(&parent, tok),
            _ => Vec::new(),
        };
        self.by_arity(&parent, found)
    }

    /// What the declared name `name` declares.
    fn declared(&self, name: &SyntaxNode) -> Vec<Symbol> {
        let Some(decl) = name.parent() else { return Vec::new() };
        if decl.kind() == K::NAMESPACE {
            return vec![Symbol::Namespace(namespace_path(&decl, Some(name)))];
        }
        if let Some(def) = self.item_at(&decl) {
            return vec![Symbol::Item(def)];
        }
        match decl.kind() {
            K::DECLARATOR | K::PARAM | K::LET_CONDITION | K::COMPILE_TIME_FOR_STMT | K::CATCH_CLAUSE => {
                vec![Symbol::Local { file: self.file, name: name.text_range() }]
            }
            // A local type alias (not an item).
            K::TYPEDEF | K::TYPEALIAS
                if crate::hir::scope::binding_declared_at(self.db, self.file, name.text_range()).is_some() =>
            {
                vec![Symbol::Local { file: self.file, name: name.text_range() }]
            }
            _ => Vec::new(),
        }
    }

    /// In `[ForwardDerivative(g)]` and the other derivative attributes: the
    /// functions `g` names (as the attribute check resolves them).
    fn derivative_target(&self, tok: &SyntaxToken) -> Option<Vec<Symbol>> {
        let args =
            tok.parent_ancestors().take_while(|a| a.kind() != K::ATTRIBUTE).find(|a| a.kind() == K::ATTRIBUTE_ARGS)?;
        let attr = args.parent().filter(|a| a.kind() == K::ATTRIBUTE)?;
        let attr_name = attr.children().find(|c| c.kind() == K::PATH)?.text().to_string();
        if !crate::autodiff::DERIVATIVE_ATTRIBUTES.contains(&attr_name.as_str()) {
            return None;
        }
        let target =
            crate::autodiff::parse_deriv_target(args.text().to_string().trim_matches(|c| c == '(' || c == ')'));
        let name_tok = args
            .descendants_with_tokens()
            .filter_map(|e| e.into_token())
            .filter(|t| t.kind() == K::IDENT && t.text() == target.name)
            .last()?;
        if name_tok != *tok {
            // A qualifier (`S` in `S.g`): an ordinary name.
            return None;
        }
        let holder = self.item_at(&attr.parent()?)?;
        let candidates = crate::autodiff::derivative_candidates(self.db, holder, &target)?;
        Some(candidates.into_iter().map(Symbol::Item).collect())
    }

    /// A segment of a path (`a::b::c`, `T`, `float3`).
    fn path_segment(&self, path: &SyntaxNode, tok: &SyntaxToken) -> Vec<Symbol> {
        let owner = path.parent().map(|p| p.kind());
        if matches!(
            owner,
            Some(K::ATTRIBUTE | K::IMPORT_DECL | K::INCLUDE_DECL | K::MODULE_DECL | K::IMPLEMENTING_DECL)
        ) {
            return Vec::new();
        }
        let segs: Vec<SyntaxToken> = path
            .children_with_tokens()
            .filter_map(|e| e.into_token())
            .filter(|t| matches!(t.kind(), K::IDENT | K::THIS_TYPE_KW))
            .collect();
        let Some(i) = segs.iter().position(|t| t == tok) else { return Vec::new() };
        if owner == Some(K::USING_DECL) {
            let parts: Vec<&str> = segs[..=i].iter().map(|t| t.text()).collect();
            return vec![Symbol::Namespace(parts.join("::"))];
        }
        let value = path.kind() == K::PATH_EXPR;
        let global = path.children_with_tokens().find(|e| !e.kind().is_trivia()).is_some_and(|e| e.kind() == K::COLON2);
        let mut scope = None;
        for (j, seg) in segs[..=i].iter().enumerate() {
            let value = value && j + 1 == segs.len();
            let found = if j == 0 && seg.kind() == K::THIS_TYPE_KW {
                scope = self.enclosing_type(path).map(Scope::Type);
                continue;
            } else if j == 0 && global {
                self.global(seg.text(), value)
            } else if j == 0 {
                self.first(path, seg.text(), value)
            } else {
                match &scope {
                    Some(s) => self.lookup_in(s, seg.text(), value),
                    None => return Vec::new(),
                }
            };
            if j == i {
                return found;
            }
            scope = found.iter().find_map(|s| self.scope_of(s));
        }
        Vec::new()
    }

    /// A name looked up from `at` outwards: locals (for values; local type
    /// aliases for types), generic
    /// parameters, members of enclosing types, enclosing namespaces, then
    /// the module, its imports and the core module.
    fn first(&self, at: &SyntaxNode, name: &str, value: bool) -> Vec<Symbol> {
        if value {
            if let Some(n) = self.local_named(name, at.text_range().start()) {
                return vec![Symbol::Local { file: self.file, name: n }];
            }
        } else {
            // A local type alias.
            let alias = crate::hir::scope::resolve_local(self.db, self.file, name, at.text_range().start(), |k| {
                k == BindingKind::TypeAlias
            });
            if let Some(n) = alias.and_then(|b| b.name_range) {
                return vec![Symbol::Local { file: self.file, name: n }];
            }
        }
        for anc in at.ancestors() {
            let generic = has_generics(anc.kind())
                .then(|| {
                    anc.children()
                        .filter(|c| c.kind() == K::GENERIC_PARAM_LIST)
                        .flat_map(|l| l.children())
                        .find(|g| g.children().any(|n| n.kind() == K::NAME && n.text() == name))
                })
                .flatten();
            if let Some(def) = generic.and_then(|g| self.item_at(&g)) {
                return vec![Symbol::Item(def)];
            }
            match anc.kind() {
                K::STRUCT | K::CLASS | K::INTERFACE | K::ENUM | K::EXTENSION if in_body(&anc, at) => {
                    if let Some(ty) = self.type_def_of(&anc) {
                        let found = self.members_named(ty, name, value);
                        if !found.is_empty() {
                            return found;
                        }
                    }
                }
                K::NAMESPACE => {
                    // `namespace a::b`: the members of `a::b`, then of `a`.
                    let path = namespace_path(&anc, None);
                    let mut p = path.as_str();
                    loop {
                        if let Some(defs) = self.scope.namespace(p).and_then(|t| t.get(name)) {
                            return self.symbols(defs, p, name, value);
                        }
                        match p.rsplit_once("::") {
                            Some((outer, _)) => p = outer,
                            None => break,
                        }
                    }
                }
                _ => {}
            }
        }
        self.global(name, value)
    }

    /// A name of the module scope (with imports and the core module).
    fn global(&self, name: &str, value: bool) -> Vec<Symbol> {
        self.scope.lookup(name).map(|defs| self.symbols(defs, "", name, value)).unwrap_or_default()
    }

    /// The declarations `defs` of `name` in namespace `ns` ("" for the top
    /// level), as symbols: in values the functions if there are any, in
    /// types the types and namespaces if there are any.
    fn symbols(&self, defs: &[DefRef], ns: &str, name: &str, value: bool) -> Vec<Symbol> {
        let preferred = |d: &&DefRef| {
            if value {
                d.kind == ItemKind::Fn
            } else {
                d.kind.is_type() || d.kind == ItemKind::Namespace
            }
        };
        let mut chosen: Vec<&DefRef> = defs.iter().filter(preferred).collect();
        if chosen.is_empty() {
            chosen = defs.iter().collect();
        }
        let mut out = Vec::new();
        for d in chosen {
            let sym = if d.kind == ItemKind::Namespace {
                Symbol::Namespace(if ns.is_empty() { name.to_string() } else { format!("{ns}::{name}") })
            } else {
                Symbol::Item(DefId::new(self.db, d.file, d.ast_index))
            };
            if !out.contains(&sym) {
                out.push(sym);
            }
        }
        out
    }

    /// Members of type `ty` named `name` (only types where a type is
    /// expected).
    fn members_named(&self, ty: DefId, name: &str, value: bool) -> Vec<Symbol> {
        self.type_members(ty, name)
            .into_iter()
            .filter(|&m| value || item_of(self.db, m).is_some_and(|i| i.kind.is_type()))
            .map(Symbol::Item)
            .collect()
    }

    /// `name` in a namespace or type.
    fn lookup_in(&self, scope: &Scope, name: &str, value: bool) -> Vec<Symbol> {
        match scope {
            Scope::Namespace(p) => self
                .scope
                .namespace(p)
                .and_then(|t| t.get(name))
                .map(|d| self.symbols(d, p, name, value))
                .unwrap_or_default(),
            Scope::Type(ty) => {
                let found = self.members_named(*ty, name, value);
                if found.is_empty() {
                    self.members_named(*ty, name, true)
                } else {
                    found
                }
            }
        }
    }

    /// What names after `sym::` are looked up in.
    fn scope_of(&self, sym: &Symbol) -> Option<Scope> {
        match sym {
            Symbol::Namespace(p) => Some(Scope::Namespace(p.clone())),
            Symbol::Local { .. } => None,
            Symbol::Item(def) => match item_of(self.db, *def)?.kind {
                ItemKind::Struct | ItemKind::Class | ItemKind::Enum | ItemKind::Interface => Some(Scope::Type(*def)),
                ItemKind::Typealias | ItemKind::Typedef => {
                    let t = decl_type_ref(self.db, *def).clone()?;
                    match DeclCtx::for_def(self.db, *def).resolve(&t) {
                        Ty::Adt { def, .. } => Some(Scope::Type(def)),
                        _ => None,
                    }
                }
                _ => None,
            },
        }
    }

    /// The type a type declaration node declares (an extension: the type
    /// it extends).
    fn type_def_of(&self, node: &SyntaxNode) -> Option<DefId> {
        let def = self.item_at(node)?;
        if node.kind() == K::EXTENSION {
            extension_target(self.db, def)
        } else {
            Some(def)
        }
    }

    /// The type whose members `at` is among.
    fn enclosing_type(&self, at: &SyntaxNode) -> Option<DefId> {
        at.ancestors()
            .find(|a| {
                matches!(a.kind(), K::STRUCT | K::CLASS | K::INTERFACE | K::ENUM | K::EXTENSION) && in_body(a, at)
            })
            .and_then(|a| self.type_def_of(&a))
    }

    /// The members of `ty` named `name`: its own and its extensions'; if
    /// none, those of its supertypes.
    fn type_members(&self, ty: DefId, name: &str) -> Vec<DefId> {
        let mut out = Vec::new();
        self.collect_members(ty, name, &mut out, &mut HashSet::new());
        out
    }

    /// See [`Self::type_members`]; `seen` breaks inheritance cycles.
    fn collect_members(&self, ty: DefId, name: &str, out: &mut Vec<DefId>, seen: &mut HashSet<DefId>) {
        if !seen.insert(ty) {
            return;
        }
        let holders: Vec<DefId> = std::iter::once(ty).chain(self.extensions_of(ty)).collect();
        for &h in &holders {
            out.extend(own_members(self.db, h, name));
        }
        for h in holders {
            for sup in supertypes(self.db, h) {
                if !out.is_empty() {
                    return;
                }
                self.collect_members(sup, name, out, seen);
            }
        }
    }

    /// The extensions of user type `ty` this file can see.
    fn extensions_of(&self, ty: DefId) -> Vec<DefId> {
        let db = self.db;
        let Some(name) = item_of(db, ty).and_then(|i| i.name.clone()) else { return Vec::new() };
        let by_name = self.extensions.get_or_init(|| {
            let mut map: HashMap<String, Vec<DefId>> = HashMap::new();
            for &f in crate::module_graph::visible_files(db, self.file) {
                for ext in item_tree(db, f).walk().filter(|i| i.kind == ItemKind::Extension) {
                    let def = DefId::new(db, f, ext.ast_index);
                    let Some(target) = def_node(db, def).and_then(ast::Extension::cast).and_then(|e| e.target()) else {
                        continue;
                    };
                    let text = target.syntax().text().to_string();
                    let base = text.split('<').next().unwrap_or("").trim();
                    let base = base.rsplit(['.', ':']).next().unwrap_or(base).to_string();
                    map.entry(base).or_default().push(def);
                }
            }
            map
        });
        by_name
            .get(&name)
            .map(|exts| exts.iter().copied().filter(|&e| extension_target(db, e) == Some(ty)).collect())
            .unwrap_or_default()
    }

    /// `a.name`: a member of the receiver's type (or of the namespace or
    /// type the receiver names, outside bodies).
    fn member(&self, node: &SyntaxNode, name: &str) -> Vec<Symbol> {
        let Some(receiver) = node.children().next() else { return Vec::new() };
        if let Some(ty) = self.type_of(&receiver) {
            return self.members_of_ty(&ty, name);
        }
        let scope = match receiver.kind() {
            K::THIS_EXPR => self.enclosing_type(node).map(Scope::Type),
            K::PATH_EXPR => last_ident(&receiver)
                .map(|t| self.resolve(&t))
                .unwrap_or_default()
                .iter()
                .find_map(|s| self.scope_of(s)),
            _ => None,
        };
        scope.map(|s| self.lookup_in(&s, name, true)).unwrap_or_default()
    }

    /// Members of a value's (or a type value's) type named `name`.
    fn members_of_ty(&self, ty: &Ty, name: &str) -> Vec<Symbol> {
        match ty {
            Ty::TypeValue(t) | Ty::Pointer(t) => self.members_of_ty(t, name),
            Ty::Adt { def, .. } => self.type_members(*def, name).into_iter().map(Symbol::Item).collect(),
            Ty::Namespace(p) => self.lookup_in(&Scope::Namespace(p.clone()), name, true),
            Ty::Param { def, .. } => crate::generics::constraint_interfaces(self.db, *def)
                .unwrap_or_default()
                .into_iter()
                .map(|i| self.type_members(i, name))
                .find(|m| !m.is_empty())
                .map(|m| m.into_iter().map(Symbol::Item).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// At a call, the overloads that can take its number of arguments (all
    /// of them if none can).
    fn by_arity(&self, parent: &SyntaxNode, found: Vec<Symbol>) -> Vec<Symbol> {
        if found.len() < 2 || !matches!(parent.kind(), K::PATH_EXPR | K::MEMBER_EXPR) {
            return found;
        }
        let Some(call) =
            parent.parent().filter(|c| c.kind() == K::CALL_EXPR && c.first_child().as_ref() == Some(parent))
        else {
            return found;
        };
        let n = call.children().find(|c| c.kind() == K::ARG_LIST).map_or(0, |l| l.children().count());
        let fits: Vec<Symbol> =
            found.iter().filter(|s| matches!(s, Symbol::Item(d) if accepts(self.db, *d, n))).cloned().collect();
        if fits.is_empty() {
            found
        } else {
            fits
        }
    }

    /// Whether the use `tok` writes what it names.
    fn is_write(&self, tok: &SyntaxToken) -> bool {
        let Some(mut expr) = tok.parent() else { return false };
        let is_last = match expr.kind() {
            K::PATH_EXPR | K::MEMBER_EXPR => last_ident(&expr).as_ref() == Some(tok),
            _ => false,
        };
        if !is_last {
            return false;
        }
        loop {
            let Some(parent) = expr.parent() else { return false };
            let first = parent.first_child().as_ref() == Some(&expr);
            match parent.kind() {
                K::PAREN_EXPR => {}
                K::INDEX_EXPR | K::MEMBER_EXPR if first => {}
                K::BIN_EXPR => return first && has_token(&parent, &ASSIGN_OPS),
                K::PREFIX_EXPR | K::POSTFIX_EXPR => return has_token(&parent, &[K::PLUS2, K::MINUS2]),
                K::ARG_LIST => return self.is_out_arg(&parent, &expr),
                _ => return false,
            }
            expr = parent;
        }
    }

    /// Whether `arg` of the call with arguments `args` is passed to an
    /// `out`/`inout` parameter (of the function or of its derivative).
    fn is_out_arg(&self, args: &SyntaxNode, arg: &SyntaxNode) -> bool {
        let Some(i) = args.children().position(|c| &c == arg) else { return false };
        let Some(mut callee) = args.parent().and_then(|c| c.first_child()) else { return false };
        // `bwd_diff(fwd_diff(f))`: the operators from the outside in.
        let mut modes = Vec::new();
        while callee.kind() == K::DIFF_EXPR {
            let forward = has_token(&callee, &[K::FWD_DIFF_KW, K::FWD_DIFF2_KW]);
            modes.push(if forward { Mode::Forward } else { Mode::Backward });
            let Some(inner) = callee.first_child() else { return false };
            callee = inner;
        }
        modes.reverse();
        let Some(name) = last_ident(&callee) else { return false };
        self.resolve(&name).iter().any(|s| match s {
            Symbol::Item(d) if modes.is_empty() => fn_sig(self.db, *d).params.get(i).is_some_and(|p| p.is_out),
            Symbol::Item(d) => crate::autodiff::higher_order_signature(self.db, *d, &modes)
                .params
                .get(i)
                .is_some_and(|p| p.dir != Dir::In),
            _ => false,
        })
    }
}
