//! The item tree: a file's declarations without their bodies and without
//! text positions.
//!
//! An edit inside a function body re-runs [`item_tree`] for that file but
//! yields an equal tree, so nothing that depends only on declarations
//! (scopes, signatures, other functions' inference) runs again. Positions
//! live in [`item_source_map`], which maps an item's `ast_index` back to
//! its syntax node.

use std::sync::Arc;

use slang_syntax::ast::{self, AstNode, HasAttributes, HasName};
use slang_syntax::{SyntaxKind, SyntaxNode, SyntaxNodePtr};

use crate::db::{SubtreeFacts, SubtreeFactsCache};
use crate::{parse, Db, SourceFile};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemKind {
    Struct,
    Class,
    Enum,
    EnumCase,
    Interface,
    Extension,
    Typealias,
    Typedef,
    Namespace,
    AssociatedType,
    Property,
    Subscript,
    Init,
    Fn,
    Var,
    Cbuffer,
    GlslBlock,
    GenericTypeParam,
    GenericValueParam,
}

impl ItemKind {
    pub fn is_type(self) -> bool {
        matches!(
            self,
            ItemKind::Struct
                | ItemKind::Class
                | ItemKind::Enum
                | ItemKind::Interface
                | ItemKind::Typealias
                | ItemKind::Typedef
                | ItemKind::AssociatedType
                | ItemKind::GenericTypeParam
        )
    }

    /// Items whose members are looked up by name (`S.member`, `ns::x`).
    pub fn has_member_scope(self) -> bool {
        matches!(
            self,
            ItemKind::Struct
                | ItemKind::Class
                | ItemKind::Enum
                | ItemKind::Interface
                | ItemKind::Extension
                | ItemKind::Namespace
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Visibility {
    /// No modifier: the module's default (internal, or public in a legacy
    /// module).
    Default,
    Public,
    Internal,
    Private,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Param {
    pub name: Option<String>,
    pub has_default: bool,
    pub is_variadic: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Item {
    pub kind: ItemKind,
    pub name: Option<String>,
    pub visibility: Visibility,
    pub is_static: bool,
    /// Attributes (`Differentiable`, `numthreads(8, 8, 1)`).
    pub attrs: Vec<Attr>,
    /// Index of the item's node in [`item_source_map`].
    pub ast_index: u32,
    /// Members (struct fields and methods, namespace items, enum cases).
    pub members: Vec<Item>,
    /// Generic parameters (types and values) as items of their own.
    pub generic_params: Vec<Item>,
    /// Parameters of functions, `__init` and `__subscript`.
    pub params: Vec<Param>,
    /// Modifier keywords (`static`, `const`, `groupshared` …).
    pub modifiers: Vec<Modifier>,
    /// For subscripts and properties: a `set` or `ref` accessor exists.
    pub has_setter: bool,
    /// The `__file_decl { }` block the item is in (0: none); each block is
    /// a scope of its own.
    pub file_decl: u32,
}

impl Item {
    /// Whether the attribute `name` (as written: `vk::binding`) is on the
    /// item.
    pub fn has_attr(&self, name: &str) -> bool {
        self.attrs.iter().any(|a| a.path == name)
    }

    /// Whether the item is a pack generic parameter (`each T`).
    pub fn is_pack(&self) -> bool {
        self.modifiers.contains(&Modifier::Each)
    }

    /// The attributes' names as written.
    pub fn attr_names(&self) -> impl Iterator<Item = &String> {
        self.attrs.iter().map(|a| &a.path)
    }

    /// The first attribute whose name's last segment is `name` (`binding`
    /// finds `vk::binding`).
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.name() == name)
    }

    pub fn has_modifier(&self, m: Modifier) -> bool {
        self.modifiers.contains(&m)
    }
}

/// An attribute of a declaration: its name and arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Attr {
    /// The name as written (`vk::binding`).
    pub path: String,
    /// The arguments as written (`8`, `kGroupSize`, `D.x`): constants
    /// and names, evaluated or resolved where they are used.
    pub args: Vec<String>,
}

impl Attr {
    /// The last segment of the name (`binding`).
    pub fn name(&self) -> &str {
        self.path.rsplit("::").next().unwrap_or(&self.path).trim()
    }
}

/// A declaration's modifier keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Modifier {
    Const,
    Static,
    NoDiff,
    Mutating,
    Groupshared,
    Uniform,
    Readonly,
    /// `enum class`
    Class,
    /// GLSL `buffer` blocks
    Buffer,
    /// GLSL `shared`
    Shared,
    Out,
    Inout,
    /// `each`: a pack generic parameter (`each T`).
    Each,
    /// Another keyword (`inline`, `precise` …).
    Other,
}

impl Modifier {
    fn of(k: SyntaxKind) -> Modifier {
        match k {
            SyntaxKind::CONST_KW => Modifier::Const,
            SyntaxKind::STATIC_KW => Modifier::Static,
            SyntaxKind::NO_DIFF_KW => Modifier::NoDiff,
            SyntaxKind::MUTATING_KW => Modifier::Mutating,
            SyntaxKind::GROUPSHARED_KW => Modifier::Groupshared,
            SyntaxKind::UNIFORM_KW => Modifier::Uniform,
            SyntaxKind::READONLY_KW => Modifier::Readonly,
            SyntaxKind::CLASS_KW => Modifier::Class,
            SyntaxKind::EACH_KW => Modifier::Each,
            SyntaxKind::BUFFER_KW => Modifier::Buffer,
            SyntaxKind::SHARED_KW => Modifier::Shared,
            SyntaxKind::OUT_KW => Modifier::Out,
            SyntaxKind::INOUT_KW => Modifier::Inout,
            _ => Modifier::Other,
        }
    }
}

/// The attributes of an attribute list node (`[A, B(x)]` holds two).
pub(crate) fn lower_attrs(attr: &SyntaxNode) -> Vec<Attr> {
    let mut out: Vec<Attr> = Vec::new();
    for c in attr.children() {
        match c.kind() {
            SyntaxKind::PATH => out.push(Attr { path: c.text().to_string(), args: Vec::new() }),
            SyntaxKind::ATTRIBUTE_ARGS => {
                if let Some(last) = out.last_mut() {
                    last.args = c
                        .children()
                        .filter_map(ast::Expr::cast)
                        .map(|e| e.syntax().text().to_string().trim().to_string())
                        .collect();
                }
            }
            _ => {}
        }
    }
    out
}

/// The declarations of one file, plus the facts about the file that name
/// resolution needs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ItemTree {
    pub items: Vec<Item>,
    /// The file's `module NAME;` declaration.
    pub module_name: Option<String>,
    /// Whether the file uses `public`/`internal`/`private` anywhere.
    pub uses_visibility: bool,
    /// Names of macros the file defines (active `#define`s).
    pub macros: Vec<String>,
    /// `using namespace a::b;` — namespaces whose members are in scope.
    pub usings: Vec<String>,
    /// `namespace n { using m; }`: (`n`, `m`) — `m`'s members are also
    /// found through `n` (by a `using n;` elsewhere, imports included).
    pub namespace_usings: Vec<(String, String)>,
    /// Whether macros are invoked where declarations go (they may declare
    /// anything).
    pub has_item_macros: bool,
    /// Identifiers passed to macro invocations that may declare names
    /// (macros defined elsewhere, or pasting with `##`): a name that
    /// contains one of them may have been made by the macro.
    pub macro_fragments: Vec<String>,
    /// The names of the functions that `__func_extension fwd_diff(f)`,
    /// `bwd_diff(f)` or `__apply(f)` give derivatives to (last segment).
    pub func_extension_targets: Vec<String>,
}

impl ItemTree {
    /// Every item, depth first.
    pub fn walk(&self) -> impl Iterator<Item = &Item> {
        let mut stack: Vec<&Item> = self.items.iter().rev().collect();
        std::iter::from_fn(move || {
            let item = stack.pop()?;
            stack.extend(item.members.iter().rev());
            stack.extend(item.generic_params.iter().rev());
            Some(item)
        })
    }
}

/// The item tree and its source map, from one lowering of the file (the
/// two queries below project it; the tree stays equal, and so does not
/// invalidate its readers, when only offsets move).
#[salsa::tracked(returns(ref))]
fn lowered_items(db: &dyn Db, file: SourceFile) -> (Arc<ItemTree>, Arc<Vec<SyntaxNodePtr>>) {
    let parse = parse(db, file);
    let mut lower =
        Lower { file_decl: 0, file_decl_count: 0, next_index: 0, ptrs: Some(Vec::new()), uses_visibility: false };
    let root = parse.tree();
    let items = lower.items(root.syntax());
    let mut module_name = None;
    for item in root.items() {
        if let ast::Item::ModuleDecl(m) = item {
            module_name = m.name().map(|n| n.text());
        }
    }
    let mut macros: Vec<String> =
        parse.macros().function_like.iter().chain(parse.macros().object_like.iter()).cloned().collect();
    macros.sort();
    let mut usings = Vec::new();
    let mut namespace_usings = Vec::new();
    let mut macro_fragments = Vec::new();
    let mut has_item_macros = false;
    let mut func_extension_targets = Vec::new();
    // Each top-level declaration's facts, kept from the last lowering of
    // the file while its syntax is the same (incremental reparsing keeps
    // it): after an edit only the edited declaration is walked.
    let cache = &db.reparse_cache().subtree_facts;
    let mut previous = std::mem::take(&mut *cache.lock().unwrap());
    let same_macros = previous.macros.as_ref().is_some_and(|(f, m)| *f == file && m == parse.macros());
    let mut kept = SubtreeFactsCache { macros: Some((file, parse.macros().clone())), ..Default::default() };
    for child in root.syntax().children() {
        let green = child.green().into_owned();
        let key = &*green as *const rowan::GreenNodeData as usize;
        let facts = match previous.entries.remove(&key).filter(|_| same_macros) {
            Some((_, facts)) => facts,
            None => subtree_facts(&child, parse),
        };
        usings.extend(facts.usings.iter().cloned());
        namespace_usings.extend(facts.namespace_usings.iter().cloned());
        macro_fragments.extend(facts.macro_fragments.iter().cloned());
        func_extension_targets.extend(facts.func_extension_targets.iter().cloned());
        has_item_macros |= facts.has_item_macros;
        kept.entries.insert(key, (green, facts));
    }
    *cache.lock().unwrap() = kept;
    macro_fragments.sort();
    macro_fragments.dedup();
    let tree = Arc::new(ItemTree {
        items,
        module_name,
        uses_visibility: lower.uses_visibility,
        macros,
        usings,
        namespace_usings,
        has_item_macros,
        macro_fragments,
        func_extension_targets,
    });
    (tree, Arc::new(lower.ptrs.unwrap_or_default()))
}

fn subtree_facts(node: &SyntaxNode, parse: &slang_syntax::Parse) -> SubtreeFacts {
    let mut facts = SubtreeFacts::default();
    for node in node.descendants() {
        if node.kind() == SyntaxKind::MACRO_CALL
            && node.parent().is_some_and(|p| matches!(p.kind(), SyntaxKind::SOURCE_FILE | SyntaxKind::MEMBER_LIST))
        {
            facts.has_item_macros = true;
        }
        match node.kind() {
            SyntaxKind::FUNC_EXTENSION => {
                // `fwd_diff(a::f)` or `__apply(a::f)`: the last path's last name.
                let operator = node.children().find(|c| ast::Expr::can_cast(c.kind()));
                let path =
                    operator.iter().flat_map(|o| o.descendants()).filter(|n| n.kind() == SyntaxKind::PATH_EXPR).last();
                let name = path.and_then(|p| {
                    p.children_with_tokens()
                        .filter_map(|e| e.into_token())
                        .filter(|t| t.kind() == SyntaxKind::IDENT)
                        .last()
                });
                facts.func_extension_targets.extend(name.map(|t| t.text().to_string()));
            }
            SyntaxKind::USING_DECL => {
                if let Some(path) = node.children().find(|c| c.kind() == SyntaxKind::PATH) {
                    let parts: Vec<String> = path
                        .children_with_tokens()
                        .filter_map(|e| e.into_token())
                        .filter(|t| t.kind() == SyntaxKind::IDENT)
                        .map(|t| t.text().to_string())
                        .collect();
                    let target = parts.join("::");
                    // Inside `namespace a::b { … }`: also a using of that
                    // namespace.
                    let mut outer: Vec<String> = node
                        .ancestors()
                        .filter(|n| n.kind() == SyntaxKind::NAMESPACE)
                        .map(|n| {
                            n.children()
                                .filter(|c| c.kind() == SyntaxKind::NAME)
                                .map(|c| c.text().to_string())
                                .collect::<Vec<_>>()
                                .join("::")
                        })
                        .collect();
                    outer.reverse();
                    if !outer.is_empty() {
                        facts.namespace_usings.push((outer.join("::"), target.clone()));
                    }
                    facts.usings.push(target);
                }
            }
            SyntaxKind::MACRO_CALL | SyntaxKind::MACRO_TYPE => {
                let name = node
                    .children_with_tokens()
                    .filter_map(|e| e.into_token())
                    .find(|t| t.kind() == SyntaxKind::IDENT)
                    .map(|t| t.text().to_string())
                    .unwrap_or_default();
                let known = parse.macros().is_function_like(&name) || parse.macros().is_object_like(&name);
                if !known || parse.macros().pastes(&name) {
                    for t in node.descendants_with_tokens().filter_map(|e| e.into_token()) {
                        if t.kind() == SyntaxKind::IDENT && t.text() != name && t.text().len() >= 2 {
                            facts.macro_fragments.push(t.text().to_string());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    facts
}

#[salsa::tracked(returns(ref))]
pub fn item_tree(db: &dyn Db, file: SourceFile) -> Arc<ItemTree> {
    lowered_items(db, file).0.clone()
}

/// Syntax pointers of the items of [`item_tree`], by `ast_index`.
#[salsa::tracked(returns(ref))]
pub fn item_source_map(db: &dyn Db, file: SourceFile) -> Vec<SyntaxNodePtr> {
    lowered_items(db, file).1.to_vec()
}

/// The modifier keywords written directly on a declaration.
fn modifier_kinds(node: &SyntaxNode) -> Vec<Modifier> {
    node.children_with_tokens()
        .take_while(|e| {
            e.kind().is_keyword()
                || e.kind().is_trivia()
                || matches!(e.kind(), SyntaxKind::ATTRIBUTE | SyntaxKind::LAYOUT_MODIFIER | SyntaxKind::MODIFIER_CALL)
        })
        .filter_map(|e| e.into_token())
        .map(|t| t.kind())
        .filter(|k| k.is_keyword())
        .map(Modifier::of)
        .collect()
}

struct Lower {
    file_decl: u32,
    file_decl_count: u32,
    next_index: u32,
    /// Collected only by `item_source_map`.
    ptrs: Option<Vec<SyntaxNodePtr>>,
    uses_visibility: bool,
}

impl Lower {
    fn index(&mut self, node: &SyntaxNode) -> u32 {
        let i = self.next_index;
        self.next_index += 1;
        if let Some(ptrs) = &mut self.ptrs {
            ptrs.push(SyntaxNodePtr::new(node));
        }
        i
    }

    /// The items directly inside `parent` (a file, a member list …).
    fn items(&mut self, parent: &SyntaxNode) -> Vec<Item> {
        let mut out = Vec::new();
        for child in parent.children() {
            self.item(&child, &mut out);
        }
        out
    }

    fn item(&mut self, node: &SyntaxNode, out: &mut Vec<Item>) {
        use SyntaxKind::*;
        let kind = match node.kind() {
            STRUCT => ItemKind::Struct,
            CLASS => ItemKind::Class,
            ENUM => ItemKind::Enum,
            INTERFACE => ItemKind::Interface,
            EXTENSION => ItemKind::Extension,
            TYPEALIAS => ItemKind::Typealias,
            TYPEDEF => ItemKind::Typedef,
            NAMESPACE => ItemKind::Namespace,
            ASSOCIATED_TYPE => ItemKind::AssociatedType,
            PROPERTY => ItemKind::Property,
            SUBSCRIPT => ItemKind::Subscript,
            INIT => ItemKind::Init,
            // `__func_extension fwd_diff(f)(…) { … }`: a function without a
            // name (`autodiff::func_extensions` says what it extends).
            FN | FUNC_EXTENSION => ItemKind::Fn,
            CBUFFER => ItemKind::Cbuffer,
            GLSL_BLOCK => ItemKind::GlslBlock,
            VAR_DECL => {
                let decl = ast::VarDecl::cast(node.clone()).unwrap();
                let (visibility, is_static, attrs) = self.modifiers(&decl);
                for d in decl.declarators() {
                    let ast_index = self.index(d.syntax());
                    out.push(Item {
                        kind: ItemKind::Var,
                        name: d.name().map(|n| n.text()),
                        visibility,
                        is_static,
                        attrs: attrs.clone(),
                        ast_index,
                        members: Vec::new(),
                        generic_params: Vec::new(),
                        params: Vec::new(),
                        modifiers: modifier_kinds(decl.syntax()),
                        has_setter: false,
                        file_decl: self.file_decl,
                    });
                }
                return;
            }
            // Blocks whose members belong to the enclosing scope.
            TRANSPARENT_BLOCK | FILE_DECL_BLOCK => {
                let outer = self.file_decl;
                if node.kind() == FILE_DECL_BLOCK {
                    self.file_decl_count += 1;
                    self.file_decl = self.file_decl_count;
                }
                if let Some(list) = node.children().find(|c| c.kind() == MEMBER_LIST) {
                    for child in list.children() {
                        self.item(&child, out);
                    }
                }
                self.file_decl = outer;
                return;
            }
            _ => return,
        };
        let ast_index = self.index(node);
        // A GLSL block's instance (`buffer B { ... } b;`), or the variable
        // a struct declares (`uniform struct { ... } s;`): a variable of the
        // block's or struct's type, indexed right after it
        // (`infer::global_var_type`).
        let instance = matches!(kind, ItemKind::GlslBlock | ItemKind::Struct)
            .then(|| node.children().find_map(ast::Declarator::cast))
            .flatten()
            .map(|d| (self.index(d.syntax()), d.name().map(|n| n.text())));
        let name = match kind {
            ItemKind::Namespace => {
                // `namespace a::b { }` declares `a` containing `b`; keep the
                // dotted name and let the scope builder split it.
                let names: Vec<String> =
                    node.children().filter(|c| c.kind() == NAME).map(|n| n.text().to_string()).collect();
                (!names.is_empty()).then(|| names.join("::"))
            }
            ItemKind::Fn if node.children().any(|c| c.kind() == OPERATOR_NAME) => node
                .children()
                .find(|c| c.kind() == OPERATOR_NAME)
                .map(|n| n.text().to_string().split_whitespace().collect::<String>()),
            _ => node.children().find(|c| c.kind() == NAME).map(|n| slang_syntax::ast::unsplice(&n.text().to_string())),
        };
        let (visibility, is_static, mut attrs) = match ast::Item::cast(node.clone()) {
            Some(item) => self.item_modifiers(&item),
            None => (Visibility::Default, false, Vec::new()),
        };
        if matches!(kind, ItemKind::Property | ItemKind::Subscript) {
            // A property's (or `__subscript`'s) function is its getter: its
            // attributes (`get` marked `[Differentiable]`) are the item's.
            let getter = node
                .children()
                .filter(|c| c.kind() == ACCESSOR_LIST)
                .flat_map(|l| l.children().filter(|a| a.kind() == ACCESSOR).collect::<Vec<_>>())
                .find(|a| a.children_with_tokens().any(|t| t.kind() == GET_KW));
            for attr in getter.iter().flat_map(|g| g.children().filter(|c| c.kind() == ATTRIBUTE)) {
                attrs.extend(lower_attrs(&attr));
            }
        }
        let mut members = Vec::new();
        if kind == ItemKind::Enum {
            if let Some(body) = node.children().find(|c| c.kind() == ENUM_BODY) {
                for case in body.children().filter(|c| c.kind() == ENUM_CASE) {
                    let ast_index = self.index(&case);
                    members.push(Item {
                        kind: ItemKind::EnumCase,
                        name: ast::EnumCase::cast(case.clone()).and_then(|c| c.name()).map(|n| n.text()),
                        visibility: Visibility::Default,
                        is_static: true,
                        attrs: Vec::new(),
                        ast_index,
                        members: Vec::new(),
                        generic_params: Vec::new(),
                        params: Vec::new(),
                        modifiers: Vec::new(),
                        has_setter: false,
                        file_decl: self.file_decl,
                    });
                }
            }
        } else if let Some(list) = node.children().find(|c| c.kind() == MEMBER_LIST) {
            members = self.items(&list);
        } else if let Some(list) = node.children().find(|c| c.kind() == ACCESSOR_LIST) {
            // Accessors have no names; nothing to record.
            let _ = list;
        }
        let mut generic_params = Vec::new();
        if let Some(gpl) = node.children().find(|c| c.kind() == GENERIC_PARAM_LIST) {
            for gp in gpl.children() {
                let kind = match gp.kind() {
                    GENERIC_TYPE_PARAM => ItemKind::GenericTypeParam,
                    GENERIC_VALUE_PARAM => ItemKind::GenericValueParam,
                    _ => continue,
                };
                let ast_index = self.index(&gp);
                generic_params.push(Item {
                    kind,
                    name: gp.children().find(|c| c.kind() == NAME).map(|n| n.text().to_string()),
                    visibility: Visibility::Default,
                    is_static: false,
                    attrs: Vec::new(),
                    ast_index,
                    members: Vec::new(),
                    generic_params: Vec::new(),
                    params: Vec::new(),
                    modifiers: match gp.children_with_tokens().any(|e| e.kind() == EACH_KW) {
                        true => vec![Modifier::Each],
                        false => Vec::new(),
                    },
                    has_setter: false,
                    file_decl: self.file_decl,
                });
            }
        }
        // `each T` generic parameters: a parameter of type `T` is a pack.
        let packs: Vec<String> = node
            .children()
            .filter(|c| c.kind() == GENERIC_PARAM_LIST)
            .flat_map(|l| l.children())
            .filter(|gp| gp.children_with_tokens().any(|e| e.kind() == EACH_KW))
            .filter_map(|gp| gp.children().find(|c| c.kind() == NAME).map(|n| n.text().to_string()))
            .collect();
        let params = node
            .children()
            .find(|c| c.kind() == PARAM_LIST)
            .and_then(ast::ParamList::cast)
            .map(|list| {
                list.params()
                    .map(|p| Param {
                        name: p.name().map(|n| n.text()),
                        has_default: p.default_value().is_some(),
                        is_variadic: p
                            .syntax()
                            .children_with_tokens()
                            .any(|e| e.kind() == DOT3 || e.kind() == EXPAND_TYPE)
                            || p.ty().is_some_and(|t| packs.iter().any(|n| *n == t.syntax().text().to_string())),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let has_setter = node
            .children()
            .find(|c| c.kind() == ACCESSOR_LIST)
            .is_some_and(|l| l.descendants_with_tokens().any(|e| matches!(e.kind(), SET_KW | REF_KW | MODIFY_KW)));
        let modifiers = modifier_kinds(node);
        if let Some((index, name)) = instance {
            out.push(Item {
                kind: ItemKind::Var,
                name,
                visibility,
                is_static: kind == ItemKind::Struct && is_static,
                attrs: Vec::new(),
                ast_index: index,
                members: Vec::new(),
                generic_params: Vec::new(),
                params: Vec::new(),
                modifiers: modifiers.clone(),
                has_setter: false,
                file_decl: self.file_decl,
            });
        }
        out.push(Item {
            kind,
            name,
            visibility,
            is_static,
            attrs,
            ast_index,
            members,
            generic_params,
            params,
            modifiers,
            has_setter,
            file_decl: self.file_decl,
        });
    }

    fn item_modifiers(&mut self, item: &ast::Item) -> (Visibility, bool, Vec<Attr>) {
        macro_rules! with {
            ($($variant:ident),*) => {
                match item {
                    $(ast::Item::$variant(it) => self.modifiers(it),)*
                    _ => (Visibility::Default, false, Vec::new()),
                }
            };
        }
        with!(
            Struct,
            Class,
            Enum,
            Interface,
            Extension,
            Typealias,
            Typedef,
            Namespace,
            AssociatedType,
            Property,
            Subscript,
            Init,
            Fn,
            VarDecl,
            Cbuffer,
            GlslBlock,
            ImportDecl
        )
    }

    fn modifiers<N: HasAttributes>(&mut self, node: &N) -> (Visibility, bool, Vec<Attr>) {
        let mut visibility = Visibility::Default;
        let mut is_static = false;
        for m in node.modifiers() {
            match m.kind() {
                SyntaxKind::PUBLIC_KW => visibility = Visibility::Public,
                SyntaxKind::INTERNAL_KW => visibility = Visibility::Internal,
                SyntaxKind::PRIVATE_KW => visibility = Visibility::Private,
                SyntaxKind::STATIC_KW => is_static = true,
                _ => {}
            }
        }
        if visibility != Visibility::Default {
            self.uses_visibility = true;
        }
        // `[A, B(x)]` holds several attributes.
        let attrs = node.attributes().flat_map(|a| lower_attrs(a.syntax())).collect();
        (visibility, is_static, attrs)
    }
}
