//! Scopes and name resolution.
//!
//! [`global_scope`] holds the names a file can see at its top level: the
//! declarations of every file of its module, the visible declarations of
//! the modules it imports, and the core module. [`unresolved_names`] walks a
//! file and reports names that resolve nowhere: locals, parameters and
//! generic parameters come from [`crate::hir::scope`], the names of types,
//! namespaces and local declarations from a stack of scopes here. It errs on the side of silence: a false "cannot find" is worse
//! than a missed one, so it stays quiet where the reference compiler could
//! find a name that this model does not see (members inherited through
//! interfaces or extensions, files that could not be loaded, GLSL-mode
//! files, names that are macros).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use slang_syntax::{SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize};

use crate::hir::scope::ExprScopes;
use crate::item_tree::{item_tree, Item, ItemKind, Visibility};
use crate::module_graph::{imported_files, module_of, resolved_imports};
use crate::{parse, Db, SourceFile, Workspace};

/// A declaration: the file and the item's `ast_index` in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DefRef {
    pub file: SourceFile,
    pub ast_index: u32,
    pub kind: ItemKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GlobalScope {
    /// Top-level names of the module and what it imports.
    pub names: HashMap<String, Vec<DefRef>>,
    /// The core module's names, shared by every file's scope.
    pub core: Option<Arc<GlobalScope>>,
    /// Members of each namespace, by full path (`a::b`).
    pub namespaces: HashMap<String, HashMap<String, Vec<DefRef>>>,
    /// Macro names from the module's files and the predefined macros.
    pub macros: HashSet<String>,
    /// See [`crate::ItemTree::macro_fragments`].
    pub macro_fragments: Vec<String>,
    /// The cases of the enums declared at any level: with the reference
    /// compiler's `-unscoped-enum` (or `[UnscopedEnum]`) they are names in
    /// the enclosing scope, so a bare one is not reported as unknown.
    pub enum_cases: HashSet<String>,
}

impl GlobalScope {
    /// Whether `name` means only a core-module declaration here (not one
    /// of the module's own, nor a macro).
    pub fn means_core(&self, name: &str) -> bool {
        !self.names.contains_key(name)
            && !self.macros.contains(name)
            && self.core.as_ref().is_some_and(|c| c.names.contains_key(name))
    }

    /// The declarations a top-level name refers to (module and imports
    /// first, then the core module).
    pub fn lookup(&self, name: &str) -> Option<&Vec<DefRef>> {
        self.names.get(name).or_else(|| self.core.as_ref()?.names.get(name))
    }

    /// The members of a namespace.
    pub fn namespace(&self, path: &str) -> Option<&HashMap<String, Vec<DefRef>>> {
        self.namespaces.get(path).or_else(|| self.core.as_ref()?.namespaces.get(path))
    }

    fn add_items(&mut self, file: SourceFile, items: &[Item], namespace: &str, visible: &dyn Fn(&Item) -> bool) {
        for item in items {
            if !visible(item) {
                continue;
            }
            let Some(name) = &item.name else { continue };
            if item.kind == ItemKind::Namespace {
                // `namespace a::b` declares `a`, and `b` inside it.
                let mut path = namespace.to_string();
                for part in name.split("::") {
                    let table = if path.is_empty() {
                        &mut self.names
                    } else {
                        self.namespaces.entry(path.clone()).or_default()
                    };
                    table.entry(part.to_string()).or_default().push(DefRef {
                        file,
                        ast_index: item.ast_index,
                        kind: ItemKind::Namespace,
                    });
                    path = if path.is_empty() { part.to_string() } else { format!("{path}::{part}") };
                }
                self.add_items(file, &item.members, &path, visible);
                continue;
            }
            if item.kind == ItemKind::Extension {
                continue;
            }
            // (`enum class` is always scoped.)
            if item.kind == ItemKind::Enum && !item.modifiers.contains(&crate::item_tree::Modifier::Class) {
                self.enum_cases.extend(item.members.iter().filter_map(|m| m.name.clone()));
            }
            let table = if namespace.is_empty() {
                &mut self.names
            } else {
                self.namespaces.entry(namespace.to_string()).or_default()
            };
            table.entry(name.clone()).or_default().push(DefRef { file, ast_index: item.ast_index, kind: item.kind });
            // A cbuffer's fields are global names (a GLSL block's, unless
            // it names an instance); types declared in either are always.
            let has_instance = || items.iter().any(|i| i.kind == ItemKind::Var && i.ast_index == item.ast_index + 1);
            if matches!(item.kind, ItemKind::Cbuffer | ItemKind::GlslBlock) {
                let all = item.kind == ItemKind::Cbuffer || !has_instance();
                for m in item.members.iter().filter(|m| all || matches!(m.kind, ItemKind::Struct | ItemKind::Enum)) {
                    if let Some(n) = &m.name {
                        self.names.entry(n.clone()).or_default().push(DefRef {
                            file,
                            ast_index: m.ast_index,
                            kind: m.kind,
                        });
                    }
                }
            }
        }
    }
}

/// Whether the module of `file` is a legacy module (no `module`, no
/// `__include`, no visibility modifiers): then everything is public.
pub(crate) fn is_legacy_module(db: &dyn Db, file: SourceFile) -> bool {
    module_of(db, file).iter().all(|&f| {
        let tree = item_tree(db, f);
        tree.module_name.is_none()
            && !tree.uses_visibility
            && !crate::module_graph::file_imports(db, f)
                .iter()
                .any(|i| i.kind == crate::import_paths::ImportKind::Include)
    })
}

/// A declaration of the core module by name (`IDifferentiable`,
/// `DifferentialPair`, `Optional` …).
pub fn core_def(db: &dyn Db, name: &str) -> Option<crate::hir::DefId> {
    let scope = core_scope(db, crate::base::CoreModule::get(db));
    let d = scope.lookup(name)?.first()?;
    Some(crate::hir::DefId::new(db, d.file, d.ast_index))
}

#[salsa::tracked(returns(ref))]
pub fn core_scope(db: &dyn Db, core: crate::base::CoreModule) -> Arc<GlobalScope> {
    let mut scope = GlobalScope::default();
    for &f in core.files(db) {
        scope.add_items(f, &item_tree(db, f).items, "", &|_| true);
    }
    Arc::new(scope)
}

#[salsa::tracked(returns(ref))]
pub fn global_scope(db: &dyn Db, file: SourceFile) -> Arc<GlobalScope> {
    let mut scope =
        GlobalScope { core: Some(core_scope(db, crate::base::CoreModule::get(db)).clone()), ..Default::default() };
    let mut usings = Vec::new();
    let mut namespace_usings = Vec::new();
    for &f in module_of(db, file) {
        let tree = item_tree(db, f);
        scope.add_items(f, &tree.items, "", &|_| true);
        scope.macros.extend(tree.macros.iter().cloned());
        scope.macro_fragments.extend(tree.macro_fragments.iter().cloned());
        usings.extend(tree.usings.iter().cloned());
        namespace_usings.extend(tree.namespace_usings.iter().cloned());
    }
    for &f in imported_files(db, file) {
        let legacy = is_legacy_module(db, f);
        let tree = item_tree(db, f);
        scope.add_items(f, &tree.items, "", &|item: &Item| {
            legacy || item.visibility == Visibility::Public || item.kind == ItemKind::Namespace
        });
        namespace_usings.extend(tree.namespace_usings.iter().cloned());
        // Macros of an imported module do not leak, but `#include`d headers
        // of this module were handled with the module's files.
    }
    // `namespace n { using m; }`: `m`'s members are found through `n`.
    for (ns, target) in namespace_usings {
        let Some(members) = scope.namespaces.get(&target).cloned() else { continue };
        let table = scope.namespaces.entry(ns).or_default();
        for (name, defs) in members {
            table.entry(name).or_default().extend(defs);
        }
    }
    // `using namespace a::b;` brings the namespace's members in.
    // The namespace may be declared by the module, by the core module
    // (`linalg`), or by both.
    for path in usings {
        let core_table = scope.core.as_ref().and_then(|c| c.namespaces.get(&path).cloned());
        let tables = [scope.namespaces.get(&path).cloned(), core_table];
        for (name, defs) in tables.into_iter().flatten().flatten() {
            scope.names.entry(name).or_default().extend(defs);
        }
    }
    for (name, _) in Workspace::get(db).defines(db) {
        scope.macros.insert(name.clone());
    }
    // Predefined macros, and `none` (the empty `Optional`).
    for builtin in [
        "__LINE__",
        "__FILE__",
        "__SLANG__",
        "__SLANG_COMPILER__",
        "__HLSL_VERSION",
        "SLANG_VERSION_MAJOR",
        "none",
        "Range",
    ] {
        scope.macros.insert(builtin.to_string());
    }
    Arc::new(scope)
}

/// A name that resolves nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    pub range: TextRange,
    pub name: String,
    /// A type position (`Foo x;`) rather than a value (`foo(1)`).
    pub is_type: bool,
}

/// Names in `file` that resolve to nothing (see the module docs for where
/// this stays silent).
#[salsa::tracked(returns(ref))]
pub fn unresolved_names(db: &dyn Db, file: SourceFile) -> Vec<Unresolved> {
    // Files we could not load may declare anything.
    if resolved_imports(db, file).iter().any(|r| r.is_none()) {
        return Vec::new();
    }
    if module_of(db, file).iter().any(|&f| resolved_imports(db, f).iter().any(|r| r.is_none())) {
        return Vec::new();
    }
    let parse = parse(db, file);
    let root = parse.syntax_node();
    // GLSL-flavoured files use a separate built-in module we do not model.
    if *is_glsl_file(db, file) {
        return Vec::new();
    }
    // Each top-level declaration on its own (a query: after an edit only
    // the edited declaration is walked again), the rest here.
    let map = crate::item_tree::item_source_map(db, file);
    let top: HashMap<TextRange, u32> = crate::item_tree::item_tree(db, file)
        .items
        .iter()
        .filter_map(|i| Some((map.get(i.ast_index as usize)?.text_range(), i.ast_index)))
        .collect();
    let global = global_scope(db, file);
    let mut walker = Walker { global, locals: None, scopes: Vec::new(), out: Vec::new(), lenient: 0 };
    for child in root.children() {
        match top.get(&child.text_range()) {
            Some(&index) => {
                let def = crate::hir::DefId::new(db, file, index);
                let start = child.text_range().start();
                walker.out.extend(
                    unresolved_in_item(db, def).iter().map(|u| Unresolved { range: u.range + start, ..u.clone() }),
                );
            }
            None => {
                walker.locals = Some((child.text_range().start(), Arc::new(ExprScopes::build(&child))));
                walker.walk(&child)
            }
        }
    }
    walker.out
}

/// The unresolved names of one top-level declaration, at offsets from its
/// start.
#[salsa::tracked(returns(ref))]
fn unresolved_in_item(db: &dyn Db, def: crate::hir::DefId) -> Vec<Unresolved> {
    let Some(node) = crate::hir::decl_syntax(db, def) else { return Vec::new() };
    let global = global_scope(db, def.file(db));
    let locals = Some((0.into(), crate::hir::scope::expr_scopes(db, def).clone()));
    let mut walker = Walker { global, locals, scopes: Vec::new(), out: Vec::new(), lenient: 0 };
    walker.walk(&node);
    walker.out
}

struct Walker<'a> {
    global: &'a GlobalScope,
    /// The local bindings of the declaration being walked, and its start.
    locals: Option<(TextSize, Arc<ExprScopes>)>,
    /// Names declared other than as local bindings (local types and
    /// functions, members of enclosing types and namespaces), innermost
    /// last.
    scopes: Vec<HashSet<String>>,
    out: Vec<Unresolved>,
    /// Inside code whose scope may hold names we cannot see (members of an
    /// extension's target or inherited from interfaces): no reports.
    lenient: u32,
}

fn name_of(node: &SyntaxNode) -> Option<String> {
    node.children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| slang_syntax::ast::unsplice(&n.text().to_string()))
}

fn first_ident(node: &SyntaxNode) -> Option<SyntaxToken> {
    node.children_with_tokens()
        .filter_map(|e| e.into_token())
        .find(|t| !t.kind().is_trivia())
        .filter(|t| t.kind() == SyntaxKind::IDENT)
}

impl Walker<'_> {
    fn declare(&mut self, name: String) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name);
        }
    }

    fn is_known(&self, name: &str, at: TextSize) -> bool {
        self.locals.as_ref().is_some_and(|(base, l)| l.resolve(name, at - *base, |_| true).is_some())
            || self.scopes.iter().rev().any(|s| s.contains(name))
            || self.global.lookup(name).is_some()
            || self.global.macros.contains(name)
            || self.global.macro_fragments.iter().any(|f| name.contains(f.as_str()))
            || self.global.enum_cases.contains(name)
            // The value a function returns, as a variable (non-copyable
            // return types).
            || name == "__return_val"
            // Expressions the reference compiler's parser reads as
            // operators: `__apply(f)`, `__dispatch_kernel(k, …)(args)`.
            || matches!(name, "__apply" | "__dispatch_kernel")
    }

    fn check_ref(&mut self, node: &SyntaxNode, is_type: bool) {
        if self.lenient > 0 {
            return;
        }
        // Only the first name of a path: the rest are members.
        let Some(tok) = first_ident(node) else { return };
        let name = slang_syntax::ast::unsplice(tok.text());
        let name = name.as_str();
        if self.is_known(name, tok.text_range().start()) {
            return;
        }
        self.out.push(Unresolved { range: tok.text_range(), name: name.to_string(), is_type });
    }

    fn member_names(node: &SyntaxNode) -> HashSet<String> {
        use SyntaxKind::*;
        let mut names = HashSet::new();
        if let Some(body) = node.children().find(|c| c.kind() == ENUM_BODY) {
            names.extend(body.children().filter_map(|c| name_of(&c)));
        }
        let Some(list) = node.children().find(|c| c.kind() == MEMBER_LIST) else { return names };
        let mut stack: Vec<SyntaxNode> = list.children().collect();
        while let Some(m) = stack.pop() {
            match m.kind() {
                VAR_DECL => {
                    for d in m.children().filter(|c| c.kind() == DECLARATOR) {
                        if let Some(n) = name_of(&d) {
                            names.insert(n);
                        }
                    }
                }
                TRANSPARENT_BLOCK | FILE_DECL_BLOCK => {
                    if let Some(l) = m.children().find(|c| c.kind() == MEMBER_LIST) {
                        stack.extend(l.children());
                    }
                }
                _ => {
                    if let Some(n) = name_of(&m) {
                        names.insert(n);
                    }
                }
            }
        }
        names
    }

    fn walk(&mut self, node: &SyntaxNode) {
        use SyntaxKind::*;
        match node.kind() {
            // Not name references, or not ones we model.
            ATTRIBUTE | SEMANTIC | REGISTER_BINDING | PACKOFFSET | LAYOUT_MODIFIER | MODIFIER_CALL | MACRO_CALL
            | SPIRV_ASM_EXPR | ASM_STMT | FN_BODY_ASM | IGNORED_BLOCK | IMPORT_DECL | INCLUDE_DECL | MODULE_DECL
            | IMPLEMENTING_DECL | USING_DECL | STATIC_ASSERT | ERROR | MACRO_TYPE
            // `__func_extension`s, `__constraint`s, `attribute_syntax` and
            // type-level pack functions are not modelled yet.
            | FUNC_EXTENSION | CONSTRAINT_DECL | ATTRIBUTE_SYNTAX_DECL | TYPE_CALL => return,
            PATH_TYPE if node.first_child().is_some_and(|c| c.kind() == TYPE_CALL) => return,
            // Capability names: `__requireCapability(sm_5_0)` (any other
            // name is reported as unknown).
            PATH_EXPR
                if is_capability(&node.text().to_string())
                    && node.parent().filter(|l| l.kind() == ARG_LIST).and_then(|l| l.parent()).is_some_and(|c| {
                        c.kind() == CALL_EXPR && c.first_child().is_some_and(|f| f.text() == "__requireCapability")
                    }) =>
            {
                return
            }
            // `where nonempty(P)`: a constraint on a pack, not a function.
            PATH_EXPR
                if node.text() == "nonempty"
                    && node.parent().and_then(|c| c.parent()).is_some_and(|p| p.kind() == WHERE_PRED) =>
            {
                return
            }
            // The pack intrinsics in expressions: `__first(t)`.
            PATH_EXPR
                if node.first_token().is_some_and(|t| {
                    matches!(t.text(), "__first" | "__last" | "__trimFirst" | "__trimLast" | "__packBranch")
                }) =>
            {
                return
            }
            k if k.is_pp_directive() => return,
            PATH_EXPR => {
                self.check_ref(node, false);
                self.walk_children(node);
                return;
            }
            PATH_TYPE => {
                self.check_ref(node, true);
                self.walk_children(node);
                return;
            }
            // `x.member`: only the receiver is resolved here.
            MEMBER_EXPR => {
                if let Some(receiver) = node.children().next() {
                    self.walk(&receiver);
                }
                for c in node.children().skip(1) {
                    self.walk(&c);
                }
                return;
            }
            STRUCT | CLASS | INTERFACE | EXTENSION | ENUM => {
                // A local type is visible after its declaration.
                if let Some(n) = name_of(node) {
                    self.declare(n);
                }
                let lenient = matches!(node.kind(), INTERFACE | EXTENSION)
                    || node.children().any(|c| c.kind() == INHERITANCE_LIST);
                self.scopes.push(Self::member_names(node));
                if lenient {
                    self.lenient += 1;
                }
                self.walk_children(node);
                if lenient {
                    self.lenient -= 1;
                }
                self.scopes.pop();
                return;
            }
            NAMESPACE => {
                let path =
                    node.children().filter(|c| c.kind() == NAME).map(|n| n.text().to_string()).collect::<Vec<_>>();
                // Members of this namespace (and its parents), from every
                // file of the module.
                let mut names = HashSet::new();
                let mut full = String::new();
                for part in &path {
                    full = if full.is_empty() { part.clone() } else { format!("{full}::{part}") };
                    if let Some(table) = self.global.namespace(&full) {
                        names.extend(table.keys().cloned());
                    }
                }
                self.scopes.push(names);
                self.walk_children(node);
                self.scopes.pop();
                return;
            }
            FN | INIT | SUBSCRIPT | PROPERTY | LAMBDA_EXPR => {
                if let Some(n) = name_of(node) {
                    self.declare(n);
                }
                // Parameters made by a macro (`f PARAMS(float a)`) are not
                // visible to us.
                let macro_params = node.kind() == FN && !node.children().any(|c| c.kind() == PARAM_LIST);
                if macro_params {
                    self.lenient += 1;
                }
                self.scopes.push(HashSet::new());
                self.walk_children(node);
                self.scopes.pop();
                if macro_params {
                    self.lenient -= 1;
                }
                return;
            }
            CALL_EXPR => {
                // Arguments of a function-like macro may be stringified,
                // pasted or declared (`LOCAL(float, x, 1)`): not checked, and
                // bare names among them may be new locals.
                let callee = node.children().next();
                let macro_name = callee
                    .as_ref()
                    .filter(|c| c.kind() == PATH_EXPR)
                    .and_then(first_ident)
                    .map(|t| t.text().to_string())
                    .filter(|n| self.global.macros.contains(n));
                if macro_name.is_some() {
                    if let Some(args) = node.children().find(|c| c.kind() == ARG_LIST) {
                        for arg in args.children() {
                            if arg.kind() == PATH_EXPR {
                                if let Some(t) = first_ident(&arg) {
                                    self.declare(t.text().to_string());
                                }
                            }
                        }
                    }
                    return;
                }
            }
            ACCESSOR => {
                self.scopes.push(HashSet::new());
                self.walk_children(node);
                self.scopes.pop();
                return;
            }
            BLOCK | FOR_STMT | COMPILE_TIME_FOR_STMT | IF_STMT | CATCH_CLAUSE | SWITCH_BODY | CASE_CLAUSE => {
                self.scopes.push(HashSet::new());
                self.walk_children(node);
                self.scopes.pop();
                return;
            }
            VAR_DECL => {
                // Types and initializers first; each name is visible after
                // its declarator (and in the later ones). Locals are
                // `crate::hir::scope`'s; fields and globals are declared here.
                let local = node.parent().is_some_and(|p| crate::hir::scope::is_local_scope(p.kind()));
                for c in node.children() {
                    self.walk(&c);
                    if c.kind() == DECLARATOR && !local {
                        if let Some(n) = name_of(&c) {
                            self.declare(n);
                        }
                    }
                }
                return;
            }
            TYPEDEF | TYPEALIAS | ASSOCIATED_TYPE => {
                // (A local alias is `crate::hir::scope`'s, visible after
                // its statement.)
                let local = node.parent().is_some_and(|p| crate::hir::scope::is_local_scope(p.kind()));
                if let Some(n) = name_of(node).filter(|_| !local) {
                    self.declare(n);
                }
                // `typealias Grid<T> = StructuredBuffer<T>;`
                self.scopes.push(HashSet::new());
                self.walk_children(node);
                self.scopes.pop();
                return;
            }
            LABELED_STMT | BREAK_STMT | CONTINUE_STMT => {}
            _ => {}
        }
        self.walk_children(node);
    }

    fn walk_children(&mut self, node: &SyntaxNode) {
        for c in node.children() {
            self.walk(&c);
        }
    }
}

/// Whether `name` is a capability atom of the reference compiler
/// (`core_module/capabilities.txt`, from its user guide).
fn is_capability(name: &str) -> bool {
    static NAMES: std::sync::OnceLock<HashSet<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| include_str!("core_module/capabilities.txt").lines().collect()).contains(name)
}

/// Whether `file` is written in GLSL syntax (a `#version` directive): checks
/// that do not model GLSL's built-ins stay quiet there.
#[salsa::tracked]
pub fn is_glsl_file(db: &dyn Db, file: SourceFile) -> bool {
    file.text(db).contains("#version")
        && parse(db, file).syntax_node().descendants().any(|n| n.kind() == SyntaxKind::PP_VERSION)
}
