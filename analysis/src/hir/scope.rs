//! Local scopes: which local bindings (locals, parameters, `for`
//! initializers, `if (let …)`, switch-case locals, compile-time `for`
//! variables, `catch` names, lambda parameters, generic parameters, local
//! type aliases) are visible at a position of a declaration, innermost
//! first.
//!
//! [`expr_scopes`] is built once per top-level declaration from its own
//! syntax tree (offsets from the declaration's start, so that an edit
//! elsewhere in the file does not rebuild it), and it is the one answer to
//! "which local does this name mean" for every feature: hover, go to
//! definition and completion (`ide`), references, rename and highlights
//! (`ide::refs`), semantic tokens (`ide::tokens`) and the unresolved-name
//! check (`name_res`). Names that no binding here declares are items
//! (`name_res::global_scope`, members, namespaces).

use std::sync::Arc;

use slang_syntax::{SyntaxKind as K, SyntaxNode, TextRange, TextSize};

use crate::hir::DefId;
use crate::{Db, SourceFile};

/// What declares a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BindingKind {
    /// A declarator of a local variable (blocks, `for` initializers, switch
    /// cases).
    Local,
    /// A parameter of a function, initializer, subscript or accessor.
    Param,
    /// A parameter of a lambda expression.
    LambdaParam,
    /// A generic (type or value) parameter of the enclosing declarations.
    GenericParam,
    /// `if (let x = …)`.
    LetCondition,
    /// `$for (i in Range(…))`.
    CompileTimeFor,
    /// `catch (e)`.
    Catch,
    /// The implicit `newValue` of a `set` accessor without parameters.
    SetterValue,
    /// A type alias in a function body (`typedef T Name;`, `typealias
    /// Name = T;`): a type name, visible in its whole block, before its
    /// statement too (the reference compiler's rule for local types; HIR
    /// lowering writes its target where it is named).
    TypeAlias,
}

/// One binding, with offsets from the start of its top-level declaration.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Binding {
    pub name: String,
    pub kind: BindingKind,
    /// The declared name (`None` for the implicit `newValue`).
    pub name_range: Option<TextRange>,
    /// The declaring node: declarator, parameter, let condition, generic
    /// parameter, loop or catch clause, type alias (for `newValue`: its
    /// accessor).
    pub decl: TextRange,
    pub decl_kind: K,
    /// The node the binding is visible in: from `from` to its end.
    pub scope: TextRange,
    pub from: TextSize,
}

impl Binding {
    fn visible_at(&self, offset: TextSize) -> bool {
        self.from <= offset && offset < self.scope.end()
    }
}

/// The bindings of one declaration.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExprScopes {
    /// In tree order.
    bindings: Vec<Binding>,
    /// The body block of each function-like declaration: (declaration,
    /// body) ranges (its parameters and the locals at the top of its body
    /// share a scope for redeclarations).
    bodies: Vec<(TextRange, TextRange)>,
}

impl ExprScopes {
    /// The bindings declared in `root`, at offsets from its start.
    pub fn build(root: &SyntaxNode) -> ExprScopes {
        let base = root.text_range().start();
        let mut s = ExprScopes::default();
        for n in root.descendants() {
            s.scan(&n, base);
        }
        s
    }

    fn push(
        &mut self,
        base: TextSize,
        name: &SyntaxNode,
        kind: BindingKind,
        decl: &SyntaxNode,
        scope: &SyntaxNode,
        from: TextSize,
    ) {
        self.bindings.push(Binding {
            name: slang_syntax::ast::unsplice(&name.text().to_string()),
            kind,
            name_range: Some(name.text_range() - base),
            decl: decl.text_range() - base,
            decl_kind: decl.kind(),
            scope: scope.text_range() - base,
            from: from - base,
        });
    }

    fn scan(&mut self, n: &SyntaxNode, base: TextSize) {
        let name_of = |n: &SyntaxNode| n.children().find(|c| c.kind() == K::NAME);
        // Generic parameters and parameters: visible in their whole
        // declaration.
        let start = n.text_range().start();
        for list in n.children().filter(|c| c.kind() == K::GENERIC_PARAM_LIST) {
            for g in list.children() {
                if let Some(name) = name_of(&g) {
                    self.push(base, &name, BindingKind::GenericParam, &g, n, start);
                }
            }
        }
        let param = if n.kind() == K::LAMBDA_EXPR { BindingKind::LambdaParam } else { BindingKind::Param };
        for list in n.children().filter(|c| c.kind() == K::PARAM_LIST) {
            for p in list.children().filter(|c| c.kind() == K::PARAM) {
                if let Some(name) = name_of(&p) {
                    self.push(base, &name, param, &p, n, start);
                }
            }
        }
        let implicit_value = n.kind() == K::ACCESSOR
            && n.children_with_tokens().any(|e| e.kind() == K::SET_KW)
            && !n.children().any(|c| c.kind() == K::PARAM_LIST);
        if implicit_value {
            self.bindings.push(Binding {
                name: "newValue".to_string(),
                kind: BindingKind::SetterValue,
                name_range: None,
                decl: n.text_range() - base,
                decl_kind: n.kind(),
                scope: n.text_range() - base,
                from: start - base,
            });
        }
        if matches!(n.kind(), K::FN | K::INIT | K::SUBSCRIPT | K::ACCESSOR | K::LAMBDA_EXPR) {
            if let Some(body) = n.children().find(|c| c.kind() == K::BLOCK) {
                self.bodies.push((n.text_range() - base, body.text_range() - base));
            }
        }
        match n.kind() {
            // (A local `struct { … } s;` declares `s` too.)
            K::VAR_DECL | K::STRUCT => {
                let Some(scope) = n.parent().filter(|p| is_local_scope(p.kind())) else { return };
                for d in n.children().filter(|c| c.kind() == K::DECLARATOR) {
                    if let Some(name) = name_of(&d) {
                        // Visible after its declarator: not in its own initializer
                        // (the reference compiler's rule).
                        self.push(base, &name, BindingKind::Local, &d, &scope, d.text_range().end());
                    }
                }
            }
            K::TYPEDEF | K::TYPEALIAS => {
                let Some(scope) = n.parent().filter(|p| is_local_scope(p.kind())) else { return };
                if let Some(name) = name_of(n) {
                    self.push(base, &name, BindingKind::TypeAlias, n, &scope, scope.text_range().start());
                }
            }
            K::LET_CONDITION => {
                let Some(scope) = n.parent().filter(|p| p.kind() == K::IF_STMT) else { return };
                if let Some(name) = name_of(n) {
                    self.push(base, &name, BindingKind::LetCondition, n, &scope, n.text_range().end());
                }
            }
            K::COMPILE_TIME_FOR_STMT | K::CATCH_CLAUSE => {
                if let Some(name) = name_of(n) {
                    let kind =
                        if n.kind() == K::CATCH_CLAUSE { BindingKind::Catch } else { BindingKind::CompileTimeFor };
                    self.push(base, &name, kind, n, n, name.text_range().end());
                }
            }
            _ => {}
        }
    }

    /// The bindings visible at `offset`, innermost first (the closest
    /// declaration of a shadowed name comes first).
    pub fn visible_at(&self, offset: TextSize) -> Vec<&Binding> {
        let mut out: Vec<&Binding> = self.bindings.iter().filter(|b| b.visible_at(offset)).collect();
        out.sort_by_key(|b| std::cmp::Reverse(closeness(b)));
        out
    }

    /// The binding `name` means at `offset`, among those `accept` takes.
    pub fn resolve(&self, name: &str, offset: TextSize, accept: impl Fn(&Binding) -> bool) -> Option<&Binding> {
        self.bindings
            .iter()
            .filter(|b| b.name == name && b.visible_at(offset) && accept(b))
            .max_by_key(|b| closeness(b))
    }

    /// The binding declared by the name at `name_range`.
    pub fn declared_by(&self, name_range: TextRange) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.name_range == Some(name_range))
    }

    /// The locals and parameters declared in the same scope as `b` (its
    /// block's other declarators; for a parameter, the other parameters
    /// and the locals at the top of the body), `b` excepted.
    pub fn same_scope(&self, b: &Binding) -> Vec<&Binding> {
        let is_param = |k: BindingKind| matches!(k, BindingKind::Param | BindingKind::LambdaParam);
        let plain = |x: &&Binding| x.kind == BindingKind::Local || is_param(x.kind);
        let mut scopes = vec![b.scope];
        for &(owner, body) in &self.bodies {
            if is_param(b.kind) && owner == b.scope {
                scopes.push(body);
            }
            if b.kind == BindingKind::Local && body == b.scope {
                scopes.push(owner);
            }
        }
        self.bindings.iter().filter(plain).filter(|x| *x != b && scopes.contains(&x.scope)).collect()
    }
}

/// How close a binding visible at some position is to it (greater is
/// closer): inner scopes start later (or at the same place and end
/// sooner); in one scope, later declarations are closer.
fn closeness(b: &Binding) -> (TextSize, std::cmp::Reverse<TextSize>, TextSize, TextSize) {
    (b.scope.start(), std::cmp::Reverse(b.scope.len()), b.from, b.decl.start())
}

/// Statements whose variable declarations are locals.
pub(crate) fn is_local_scope(k: K) -> bool {
    matches!(k, K::BLOCK | K::FOR_STMT | K::CASE_CLAUSE | K::SWITCH_BODY)
}

/// The bindings of top-level declaration `def`, at offsets from its start.
#[salsa::tracked(returns(ref))]
pub fn expr_scopes(db: &dyn Db, def: DefId) -> Arc<ExprScopes> {
    Arc::new(crate::hir::decl_syntax(db, def).map(|n| ExprScopes::build(&n)).unwrap_or_default())
}

/// The ranges of `file`'s top-level declarations, in order.
#[salsa::tracked(returns(ref))]
pub fn top_level_spans(db: &dyn Db, file: SourceFile) -> Vec<(TextRange, DefId)> {
    let map = crate::item_tree::item_source_map(db, file);
    let mut out: Vec<(TextRange, DefId)> = crate::item_tree::item_tree(db, file)
        .items
        .iter()
        .filter_map(|i| Some((map.get(i.ast_index as usize)?.text_range(), DefId::new(db, file, i.ast_index))))
        .collect();
    out.sort_by_key(|(r, _)| r.start());
    out
}

/// The top-level declaration of `file` containing `offset`, with its range.
pub fn top_level_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<(DefId, TextRange)> {
    let spans = top_level_spans(db, file);
    let i = spans.partition_point(|(r, _)| r.start() <= offset).checked_sub(1)?;
    let (r, def) = spans[i];
    (offset < r.end()).then_some((def, r))
}

/// A binding at file offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalBinding {
    pub name: String,
    pub kind: BindingKind,
    pub name_range: Option<TextRange>,
    pub decl: TextRange,
    pub decl_kind: K,
    /// Where it is visible (from its declaration to the end of its scope).
    pub visible: TextRange,
}

impl LocalBinding {
    fn at(b: &Binding, base: TextSize) -> LocalBinding {
        LocalBinding {
            name: b.name.clone(),
            kind: b.kind,
            name_range: b.name_range.map(|r| r + base),
            decl: b.decl + base,
            decl_kind: b.decl_kind,
            visible: TextRange::new(b.from, b.scope.end()) + base,
        }
    }
}

/// The scopes of the top-level declaration around `offset` of `file`
/// (offsets of `file`'s semantic tree), and that declaration's start.
pub fn scopes_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<(&Arc<ExprScopes>, TextSize)> {
    let (def, range) = top_level_at(db, file, offset)?;
    Some((expr_scopes(db, def), range.start()))
}

/// The bindings visible at `offset` of `file`, innermost first.
pub fn visible_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<LocalBinding> {
    let Some((scopes, base)) = scopes_at(db, file, offset) else { return Vec::new() };
    scopes.visible_at(offset - base).into_iter().map(|b| LocalBinding::at(b, base)).collect()
}

/// The local binding `name` means at `offset` of `file`, among those
/// `accept` takes.
pub fn resolve_local(
    db: &dyn Db,
    file: SourceFile,
    name: &str,
    offset: TextSize,
    accept: impl Fn(BindingKind) -> bool,
) -> Option<LocalBinding> {
    let (scopes, base) = scopes_at(db, file, offset)?;
    scopes.resolve(name, offset - base, |b| accept(b.kind)).map(|b| LocalBinding::at(b, base))
}

/// The binding whose declared name is at `name_range` of `file`.
pub fn binding_declared_at(db: &dyn Db, file: SourceFile, name_range: TextRange) -> Option<LocalBinding> {
    let (scopes, base) = scopes_at(db, file, name_range.start())?;
    scopes.declared_by(name_range - base).map(|b| LocalBinding::at(b, base))
}

/// The locals and parameters declared in the same scope as the binding
/// whose name is at `name_range` (see [`ExprScopes::same_scope`]).
pub fn same_scope_bindings(db: &dyn Db, file: SourceFile, name_range: TextRange) -> Vec<LocalBinding> {
    let Some((scopes, base)) = scopes_at(db, file, name_range.start()) else { return Vec::new() };
    let Some(b) = scopes.declared_by(name_range - base) else { return Vec::new() };
    scopes.same_scope(b).into_iter().map(|x| LocalBinding::at(x, base)).collect()
}
