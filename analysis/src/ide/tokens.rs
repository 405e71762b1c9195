//! Semantic tokens: identifiers classified by what they resolve to, plus
//! keywords, literals, comments, operators and attributes.
//!
//! Two autodiff modifiers go beyond LSP's standard ones: `differentiable`
//! marks values that carry a derivative where they are used (inference's
//! derivative data flow) and differentiable functions; `noDiff` marks what
//! is explicitly excluded (`no_diff`, `no_diff` parameters and fields,
//! `detach`).
//!
//! One pass over the syntax: each function is walked once, in its own
//! declaration tree, with its inference result and source map at hand;
//! which local binding a name means comes from `crate::hir::scope` (the class
//! of each local is recorded where its declaration is classified), types
//! and namespaces around a name live in a stack of frames, other names come
//! from the file's global scope.

use std::collections::HashMap;
use std::sync::Arc;

use slang_syntax::{
    MacroNames, NodeOrToken, SyntaxKind as K, SyntaxNode, SyntaxNodePtr, SyntaxToken, TextRange, TextSize, WalkEvent,
};

use crate::autodiff::{self, Differentiability, Mode, TypeDiff};
use crate::hir::scope::{BindingKind, ExprScopes};
use crate::hir::{BodySourceMap, DefId};
use crate::infer::{is_core, items_by_index, InferenceResult};
use crate::item_tree::{Item, ItemKind};
use crate::name_res::{DefRef, GlobalScope};
use crate::ty::{parse_vector_alias, Scalar, Ty};
use crate::{parse, Db, SourceFile};

/// The token types, by [`TokenKind`] index (LSP's standard names).
pub const TOKEN_KINDS: &[&str] = &[
    "namespace",
    "type",
    "struct",
    "interface",
    "enum",
    "enumMember",
    "typeParameter",
    "parameter",
    "variable",
    "property",
    "function",
    "method",
    "macro",
    "keyword",
    "comment",
    "string",
    "number",
    "operator",
    "decorator",
];

/// The token modifiers, by bit (see [`modifier`]).
pub const TOKEN_MODIFIERS: &[&str] =
    &["declaration", "readonly", "static", "defaultLibrary", "differentiable", "noDiff"];

/// What a token is; `kind as usize` indexes [`TOKEN_KINDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    Namespace,
    Type,
    Struct,
    Interface,
    Enum,
    EnumMember,
    TypeParameter,
    Parameter,
    Variable,
    Property,
    Function,
    Method,
    Macro,
    Keyword,
    Comment,
    String,
    Number,
    Operator,
    Decorator,
}

impl TokenKind {
    /// The LSP name (an entry of [`TOKEN_KINDS`]).
    pub fn name(self) -> &'static str {
        TOKEN_KINDS[self as usize]
    }
}

/// Bits of [`SemanticToken::modifiers`], in the order of [`TOKEN_MODIFIERS`].
pub mod modifier {
    pub const DECLARATION: u32 = 1 << 0;
    /// `let` and `const` values.
    pub const READONLY: u32 = 1 << 1;
    pub const STATIC: u32 = 1 << 2;
    /// Declared in the core module.
    pub const DEFAULT_LIBRARY: u32 = 1 << 3;
    /// A value that carries a derivative here, or a differentiable function.
    pub const DIFFERENTIABLE: u32 = 1 << 4;
    /// `no_diff`, parameters and fields declared `no_diff`, `detach`.
    pub const NO_DIFF: u32 = 1 << 5;
}

use modifier::*;

/// A classified token: on one line, sorted, not overlapping others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SemanticToken {
    pub range: TextRange,
    pub kind: TokenKind,
    pub modifiers: u32,
}

/// The semantic tokens of `file`, or of those overlapping `range`, in the
/// file's own offsets (not the semantic tree's, unlike the other IDE
/// features: tokens cover what the user wrote). In a macro's use, its name
/// is a macro and the tokens of its arguments are classified as they are
/// used in the expansion.
pub fn semantic_tokens(db: &dyn Db, file: SourceFile, range: Option<TextRange>) -> Vec<SemanticToken> {
    let Some(e) = crate::expansion::expansion(db, file) else { return expanded_tokens(db, file, range) };
    let text = file.text(db);
    let exp_range = range.map(|r| crate::expansion::to_expanded_range(db, file, r));
    let mut out: Vec<SemanticToken> = expanded_tokens(db, file, exp_range)
        .into_iter()
        .filter_map(|mut t| {
            let r = e.to_source(text, t.range);
            if e.use_at_expanded(t.range).is_some_and(|u| u.source == r) {
                return None;
            }
            t.range = r;
            Some(t)
        })
        .collect();
    // Macros' names: of each use, and of macros passed as arguments.
    let names = crate::source_parse(db, file).macros();
    let defines = crate::Workspace::get(db).defines(db);
    let is_macro = |n: &str| names.is_object_like(n) || names.is_function_like(n) || defines.iter().any(|d| d.0 == n);
    for u in &e.uses {
        let args = u.arg_tokens.iter().filter(|&&r| is_macro(&text[r]));
        for &r in std::iter::once(&u.name_range).chain(args) {
            if range.is_none_or(|range| range.intersect(r).is_some()) {
                out.push(SemanticToken { range: r, kind: TokenKind::Macro, modifiers: 0 });
            }
        }
    }
    out.sort_by_key(|t| (t.range.start(), t.range.end()));
    out.dedup_by_key(|t| t.range.start());
    out
}

fn expanded_tokens(db: &dyn Db, file: SourceFile, range: Option<TextRange>) -> Vec<SemanticToken> {
    let parse = parse(db, file);
    let root = parse.syntax_node();
    let mut defs = HashMap::new();
    let map = crate::item_tree::item_source_map(db, file);
    for item in crate::item_tree::item_tree(db, file).walk() {
        let holds_code = matches!(
            item.kind,
            ItemKind::Fn
                | ItemKind::Init
                | ItemKind::Struct
                | ItemKind::Class
                | ItemKind::Interface
                | ItemKind::Extension
                | ItemKind::Enum
        );
        if let Some(ptr) = map.get(item.ast_index as usize).filter(|_| holds_code) {
            defs.insert((ptr.text_range(), ptr.kind()), (DefId::new(db, file, item.ast_index), item.kind));
        }
    }
    let mut w = Walker {
        db,
        file,
        range: range.unwrap_or(root.text_range()),
        scope: crate::name_res::global_scope(db, file),
        macros: parse.macros(),
        defs,
        out: Vec::new(),
        frames: Vec::new(),
        locals: HashMap::new(),
        scopes: None,
        offset: TextSize::from(0),
        bodies: Vec::new(),
        pending: HashMap::new(),
        diff_cache: HashMap::new(),
    };
    w.walk(&root, TextSize::from(0));
    w.out
}

/// How a local or parameter is shown (recorded at its declaration).
#[derive(Clone, Copy)]
struct Local {
    kind: TokenKind,
    mods: u32,
    /// Its declaration's token, to mark `differentiable` when a use carries.
    decl: Option<usize>,
}

/// A block, a statement that declares, a declaration with parameters or
/// generic parameters, a type or a namespace.
struct Frame {
    node: SyntaxNode,
    /// For a type declaration: the type (whose members are in scope).
    this_def: Option<DefId>,
    /// For an extension: the extended type (whose members are in scope too).
    extended: Option<DefId>,
    /// For a namespace: its full path (`a::b`).
    namespace: Option<String>,
}

/// The function whose declaration tree is being walked.
struct FnBody {
    infer: Arc<InferenceResult>,
    map: Arc<BodySourceMap>,
    /// Parameters that take part in differentiation, by name.
    diff_params: Vec<String>,
}

/// What the segments of a path so far name.
enum Res {
    Namespace(String),
    Type(DefId),
    Other,
}

struct Walker<'db> {
    db: &'db dyn Db,
    file: SourceFile,
    range: TextRange,
    scope: &'db GlobalScope,
    macros: &'db MacroNames,
    /// Functions and types of the file by (range, kind).
    defs: HashMap<(TextRange, K), (DefId, ItemKind)>,
    out: Vec<SemanticToken>,
    frames: Vec<Frame>,
    /// The locals and parameters declared so far, by declared name.
    locals: HashMap<TextRange, Local>,
    /// The local scopes of the top-level declaration being walked.
    scopes: Option<(TextRange, Arc<ExprScopes>)>,
    /// The offset of the tree being walked in the file.
    offset: TextSize,
    bodies: Vec<FnBody>,
    /// Classes of identifiers decided at their enclosing path or member
    /// expression, by start offset.
    pending: HashMap<TextSize, (TokenKind, u32)>,
    diff_cache: HashMap<DefId, bool>,
}

fn overlaps(a: TextRange, b: TextRange) -> bool {
    a.start() < b.end() && b.start() < a.end()
}

fn has_token(node: &SyntaxNode, kind: K) -> bool {
    node.children_with_tokens().any(|e| e.kind() == kind && e.as_token().is_some())
}

/// Built-in value types (`float`, `int3`, `vector`…): `type`, not `struct`.
fn is_builtin_type_name(name: &str) -> bool {
    Scalar::from_name(name).is_some()
        || parse_vector_alias(name).is_some()
        || matches!(name, "void" | "vector" | "matrix")
}

impl<'db> Walker<'db> {
    fn walk(&mut self, root: &SyntaxNode, offset: TextSize) {
        self.offset = offset;
        let mut events = root.preorder_with_tokens();
        while let Some(ev) = events.next() {
            match ev {
                WalkEvent::Enter(NodeOrToken::Node(n)) => {
                    if n.parent().is_some() {
                        let abs = n.text_range() + offset;
                        if self.bodies.is_empty() && !overlaps(abs, self.range) {
                            events.skip_subtree();
                            continue;
                        }
                        if let Some(&(def, ItemKind::Fn | ItemKind::Init)) = self.defs.get(&(abs, n.kind())) {
                            events.skip_subtree();
                            self.function(def, abs.start());
                            self.offset = offset;
                            continue;
                        }
                    }
                    self.enter(&n, offset);
                }
                WalkEvent::Leave(NodeOrToken::Node(n)) => {
                    if self.frames.last().is_some_and(|f| f.node == n) {
                        self.frames.pop();
                    }
                }
                WalkEvent::Enter(NodeOrToken::Token(t)) => self.token(&t, offset),
                WalkEvent::Leave(NodeOrToken::Token(_)) => {}
            }
        }
    }

    /// Walks a function in its declaration tree (where the source map's
    /// pointers are).
    fn function(&mut self, def: DefId, start: TextSize) {
        let Some(root) = crate::hir::decl_syntax(self.db, def) else { return };
        let infer = crate::infer::infer(self.db, def).clone();
        // Parameters are marked where the body is differentiated (where
        // inference follows derivatives), like the values in it.
        let diff_params = if !infer.carries_derivative.is_empty() {
            autodiff::derivative_signature(self.db, def, Mode::Forward)
                .params
                .into_iter()
                .filter(|p| p.diff == TypeDiff::Value)
                .map(|p| p.name)
                .collect()
        } else {
            Vec::new()
        };
        self.bodies.push(FnBody { infer, map: crate::hir::body_with_source_map(self.db, def).1.clone(), diff_params });
        self.walk(&root, start);
        self.bodies.pop();
    }

    fn is_differentiable(&mut self, def: DefId) -> bool {
        let (db, file) = (self.db, self.file);
        *self
            .diff_cache
            .entry(def)
            .or_insert_with(|| autodiff::fn_differentiability(db, file, def) != Differentiability::No)
    }

    fn emit(&mut self, range: TextRange, kind: TokenKind, modifiers: u32) -> Option<usize> {
        if !overlaps(range, self.range) {
            return None;
        }
        self.out.push(SemanticToken { range, kind, modifiers });
        Some(self.out.len() - 1)
    }

    /// A token that may span lines (comments, inactive code): one per line.
    fn emit_lines(&mut self, range: TextRange, text: &str, kind: TokenKind) {
        let mut start = range.start();
        for line in text.split('\n') {
            let len = TextSize::of(line);
            let trimmed = line.trim_end_matches('\r');
            if !trimmed.trim().is_empty() {
                self.emit(TextRange::at(start, TextSize::of(trimmed)), kind, 0);
            }
            start += len + TextSize::of('\n');
        }
    }

    // -- Scopes ------------------------------------------------------------

    fn enter(&mut self, n: &SyntaxNode, offset: TextSize) {
        match n.kind() {
            K::BLOCK | K::FOR_STMT | K::IF_STMT | K::COMPILE_TIME_FOR_STMT => {
                self.frames.push(Frame { node: n.clone(), this_def: None, extended: None, namespace: None })
            }
            K::NAMESPACE => {
                let mut path: Vec<String> = self.namespaces().next().map(|p| vec![p.to_string()]).unwrap_or_default();
                path.extend(n.children().filter(|c| c.kind() == K::NAME).map(|c| c.text().to_string()));
                let namespace = Some(path.join("::"));
                self.frames.push(Frame { node: n.clone(), this_def: None, extended: None, namespace })
            }
            K::FN
            | K::INIT
            | K::SUBSCRIPT
            | K::PROPERTY
            | K::ACCESSOR
            | K::STRUCT
            | K::CLASS
            | K::INTERFACE
            | K::EXTENSION
            | K::ENUM
            | K::TYPEALIAS => {
                let abs = n.text_range() + offset;
                let this_def = self
                    .defs
                    .get(&(abs, n.kind()))
                    .filter(|(_, k)| {
                        matches!(
                            k,
                            ItemKind::Struct
                                | ItemKind::Class
                                | ItemKind::Interface
                                | ItemKind::Extension
                                | ItemKind::Enum
                        )
                    })
                    .map(|(d, _)| *d);
                let extended = if n.kind() == K::EXTENSION { self.extended_type(n) } else { None };
                self.frames.push(Frame { node: n.clone(), this_def, extended, namespace: None });
            }
            K::PATH_EXPR | K::PATH_TYPE => self.classify_path(n, offset),
            K::MEMBER_EXPR => self.classify_member(n, offset),
            _ => {}
        }
    }

    fn add_local(&mut self, name: TextRange, kind: TokenKind, mods: u32, decl: Option<usize>) {
        self.locals.insert(name, Local { kind, mods, decl });
    }

    /// The local, parameter or generic parameter (only these, in types)
    /// that `name` at `offset` of the file means, and how it is shown.
    fn find_local(&mut self, name: &str, offset: TextSize, types_only: bool) -> Option<Local> {
        if self.scopes.as_ref().is_none_or(|(r, _)| !r.contains(offset)) {
            self.scopes = crate::hir::scope::top_level_at(self.db, self.file, offset)
                .map(|(def, range)| (range, crate::hir::scope::expr_scopes(self.db, def).clone()));
        }
        let (range, scopes) = self.scopes.as_ref()?;
        let b = scopes.resolve(name, offset - range.start(), |b| {
            !types_only || matches!(b.kind, BindingKind::GenericParam | BindingKind::TypeAlias)
        })?;
        Some(match b.kind {
            BindingKind::TypeAlias => Local { kind: TokenKind::Type, mods: 0, decl: None },
            BindingKind::GenericParam => Local {
                kind: TokenKind::TypeParameter,
                mods: if b.decl_kind == K::GENERIC_VALUE_PARAM { READONLY } else { 0 },
                decl: None,
            },
            BindingKind::SetterValue => Local { kind: TokenKind::Parameter, mods: 0, decl: None },
            kind => {
                let name = b.name_range.map(|r| r + range.start());
                name.and_then(|n| self.locals.get(&n).copied()).unwrap_or(Local {
                    kind: if matches!(kind, BindingKind::Param | BindingKind::LambdaParam) {
                        TokenKind::Parameter
                    } else {
                        TokenKind::Variable
                    },
                    mods: 0,
                    decl: None,
                })
            }
        })
    }

    /// The enclosing type, and the type it extends if it is an extension.
    fn this_def(&self) -> Option<(DefId, Option<DefId>)> {
        self.frames.iter().rev().find_map(|f| Some((f.this_def?, f.extended)))
    }

    /// The type an extension extends, if it is declared by name.
    fn extended_type(&self, ext: &SyntaxNode) -> Option<DefId> {
        let target = ext.children().find(|c| c.kind() == K::PATH_TYPE)?;
        let name = target.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == K::IDENT)?;
        let d = self.scope.lookup(name.text())?.iter().find(|d| d.kind.is_type())?;
        Some(DefId::new(self.db, d.file, d.ast_index))
    }

    /// The enclosing namespaces, innermost first.
    fn namespaces(&self) -> impl Iterator<Item = &str> {
        self.frames.iter().rev().filter_map(|f| f.namespace.as_deref())
    }

    // -- Facts of the current function ---------------------------------------

    fn expr_id(&self, node: &SyntaxNode) -> Option<(&FnBody, usize)> {
        let b = self.bodies.last()?;
        let id = b.map.expr_by_ptr.get(&SyntaxNodePtr::new(node))?;
        Some((b, id.0 as usize))
    }

    fn carries(&self, node: &SyntaxNode) -> bool {
        self.expr_id(node).is_some_and(|(b, i)| b.infer.carries_derivative.get(i).copied().unwrap_or(false))
    }

    fn expr_type(&self, node: &SyntaxNode) -> Option<&Ty> {
        let (b, i) = self.expr_id(node)?;
        b.infer.expr_types.get(i)
    }

    // -- Tokens --------------------------------------------------------------

    fn token(&mut self, t: &SyntaxToken, offset: TextSize) {
        let range = t.text_range() + offset;
        if !overlaps(range, self.range) && t.kind() != K::IDENT {
            return;
        }
        match t.kind() {
            K::COMMENT | K::DISABLED_TEXT => self.emit_lines(range, t.text(), TokenKind::Comment),
            K::STRING | K::CHAR => self.emit_lines(range, t.text(), TokenKind::String),
            K::INT_NUMBER | K::FLOAT_NUMBER => {
                self.emit(range, TokenKind::Number, 0);
            }
            K::IDENT => {
                if let Some((kind, mods)) = self.pending.remove(&range.start()) {
                    self.emit(range, kind, mods);
                } else {
                    self.ident(t, range, offset);
                }
            }
            K::NO_DIFF_KW => {
                self.emit(range, TokenKind::Keyword, NO_DIFF);
            }
            K::THIS_KW => {
                let carries = t.parent().is_some_and(|p| p.kind() == K::THIS_EXPR && self.carries(&p));
                self.emit(range, TokenKind::Keyword, if carries { DIFFERENTIABLE } else { 0 });
            }
            K::POUND if t.parent().is_some_and(|p| p.kind().is_pp_directive()) => {
                self.emit(range, TokenKind::Keyword, 0);
            }
            k if k.is_keyword() => {
                self.emit(range, TokenKind::Keyword, 0);
            }
            k if k.is_punct() => {
                let operator = t.parent().is_some_and(|p| match p.kind() {
                    K::BIN_EXPR | K::PREFIX_EXPR | K::POSTFIX_EXPR | K::TERNARY_EXPR => true,
                    K::DECLARATOR | K::LET_CONDITION => k == K::EQ,
                    _ => false,
                });
                if operator {
                    self.emit(range, TokenKind::Operator, 0);
                }
            }
            _ => {}
        }
    }

    /// An identifier not classified by its path or member expression.
    fn ident(&mut self, t: &SyntaxToken, range: TextRange, offset: TextSize) {
        let Some(parent) = t.parent() else { return };
        let class = match parent.kind() {
            K::NAME => return self.declaration(&parent, t.text(), range, offset),
            K::PATH => match parent.parent().map(|g| g.kind()) {
                Some(K::ATTRIBUTE) => Some((TokenKind::Decorator, 0)),
                Some(K::IMPORT_DECL | K::IMPLEMENTING_DECL | K::USING_DECL) => Some((TokenKind::Namespace, 0)),
                _ => None,
            },
            K::MACRO_CALL | K::MACRO_TYPE => Some((TokenKind::Macro, 0)),
            K::PP_CONDITION if t.text() == "defined" => Some((TokenKind::Keyword, 0)),
            K::PP_CONDITION => Some((TokenKind::Macro, 0)),
            K::SEMANTIC => Some((TokenKind::Decorator, 0)),
            K::PP_MACRO_PARAMS => Some((TokenKind::Parameter, DECLARATION)),
            K::PP_BODY if self.is_macro(t.text()) => Some((TokenKind::Macro, 0)),
            // The directive's name (`#define`, `#endif`).
            k if k.is_pp_directive() => {
                let prev =
                    std::iter::successors(t.prev_token(), |p| p.prev_token()).find(|p| p.kind() != K::WHITESPACE);
                match parent.kind() {
                    _ if prev.is_some_and(|p| p.kind() == K::POUND) => Some((TokenKind::Keyword, 0)),
                    K::PP_IFDEF | K::PP_IFNDEF | K::PP_UNDEF => Some((TokenKind::Macro, 0)),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some((kind, mods)) = class {
            self.emit(range, kind, mods);
        }
    }

    fn is_macro(&self, name: &str) -> bool {
        self.macros.is_object_like(name) || self.macros.is_function_like(name)
    }

    /// The name of a declaration.
    fn declaration(&mut self, name: &SyntaxNode, text: &str, range: TextRange, offset: TextSize) {
        let Some(decl) = name.parent() else { return };
        let in_type = |d: &SyntaxNode| {
            d.parent()
                .filter(|p| p.kind() == K::MEMBER_LIST)
                .and_then(|p| p.parent())
                .is_some_and(|g| matches!(g.kind(), K::STRUCT | K::CLASS | K::INTERFACE | K::EXTENSION))
        };
        let (kind, mut mods) = match decl.kind() {
            K::FN => {
                let def = self.defs.get(&(decl.text_range() + offset, K::FN)).map(|&(d, _)| d);
                let diff = match def {
                    Some(def) if self.is_differentiable(def) => DIFFERENTIABLE,
                    _ => 0,
                };
                let stat = if has_token(&decl, K::STATIC_KW) { STATIC } else { 0 };
                // (A function is walked in its own tree: its parent is the item's.)
                let method = match def.and_then(|d| crate::infer::parent_of(self.db, d)) {
                    Some(p) => self.item(p).is_some_and(|i| {
                        matches!(i.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Interface | ItemKind::Extension)
                    }),
                    None => in_type(&decl),
                };
                let kind = if method { TokenKind::Method } else { TokenKind::Function };
                (kind, diff | stat)
            }
            K::STRUCT | K::CLASS => (TokenKind::Struct, 0),
            K::INTERFACE => (TokenKind::Interface, 0),
            K::ENUM => (TokenKind::Enum, 0),
            K::ENUM_CASE => (TokenKind::EnumMember, 0),
            K::NAMESPACE | K::MODULE_DECL => (TokenKind::Namespace, 0),
            K::TYPEALIAS | K::TYPEDEF | K::ASSOCIATED_TYPE => (TokenKind::Type, 0),
            K::GENERIC_TYPE_PARAM => (TokenKind::TypeParameter, 0),
            K::GENERIC_VALUE_PARAM => (TokenKind::TypeParameter, READONLY),
            K::PROPERTY => (TokenKind::Property, 0),
            K::PP_DEFINE => (TokenKind::Macro, 0),
            K::PARAM => {
                let mut mods = 0;
                if has_token(&decl, K::CONST_KW) {
                    mods |= READONLY;
                }
                if has_token(&decl, K::NO_DIFF_KW) {
                    mods |= NO_DIFF;
                }
                let diff = self.bodies.last().is_some_and(|b| b.diff_params.iter().any(|p| p == text));
                let idx =
                    self.emit(range, TokenKind::Parameter, DECLARATION | mods | if diff { DIFFERENTIABLE } else { 0 });
                self.add_local(range, TokenKind::Parameter, mods, idx);
                return;
            }
            K::LET_CONDITION => {
                let idx = self.emit(range, TokenKind::Variable, DECLARATION | READONLY);
                self.add_local(range, TokenKind::Variable, READONLY, idx);
                return;
            }
            K::DECLARATOR => {
                let Some(var) = decl.parent() else { return };
                let mut mods = 0;
                if has_token(&var, K::CONST_KW) || has_token(&var, K::LET_KW) {
                    mods |= READONLY;
                }
                if has_token(&var, K::STATIC_KW) {
                    mods |= STATIC;
                }
                if has_token(&var, K::NO_DIFF_KW) {
                    mods |= NO_DIFF;
                }
                if in_type(&var) {
                    (TokenKind::Property, mods)
                } else if self.frames.iter().any(|f| matches!(f.node.kind(), K::BLOCK | K::FOR_STMT)) {
                    let idx = self.emit(range, TokenKind::Variable, DECLARATION | mods);
                    self.add_local(range, TokenKind::Variable, mods, idx);
                    return;
                } else {
                    (TokenKind::Variable, mods)
                }
            }
            _ => (TokenKind::Variable, 0),
        };
        mods |= DECLARATION;
        self.emit(range, kind, mods);
    }

    // -- Resolution ----------------------------------------------------------

    fn item(&self, def: DefId) -> Option<&'db Item> {
        items_by_index(self.db, def.file(self.db)).get(&def.ast_index(self.db)).map(|(i, _)| &**i)
    }

    /// How a declaration of the item tree is shown.
    fn item_class(&mut self, file: SourceFile, item: &Item, in_type: bool) -> (TokenKind, u32, Res) {
        let db = self.db;
        let def = DefId::new(db, file, item.ast_index);
        let core = is_core(db, file);
        let mut mods = if core { DEFAULT_LIBRARY } else { 0 };
        if item.is_static {
            mods |= STATIC;
        }
        let name = item.name.as_deref().unwrap_or("");
        let kind = match item.kind {
            ItemKind::Fn => {
                // `detach` is differentiable only to stop derivatives.
                if core && name == "detach" {
                    mods |= NO_DIFF;
                } else if self.is_differentiable(def) {
                    mods |= DIFFERENTIABLE;
                }
                if in_type {
                    TokenKind::Method
                } else {
                    TokenKind::Function
                }
            }
            ItemKind::Struct | ItemKind::Class if core && is_builtin_type_name(name) => TokenKind::Type,
            ItemKind::Struct | ItemKind::Class => TokenKind::Struct,
            ItemKind::Interface => TokenKind::Interface,
            ItemKind::Enum => TokenKind::Enum,
            ItemKind::EnumCase => {
                mods &= !STATIC;
                TokenKind::EnumMember
            }
            ItemKind::Typealias | ItemKind::Typedef | ItemKind::AssociatedType => TokenKind::Type,
            ItemKind::GenericTypeParam | ItemKind::GenericValueParam => TokenKind::TypeParameter,
            ItemKind::Namespace => TokenKind::Namespace,
            ItemKind::Var | ItemKind::Property | ItemKind::Subscript => {
                if item.modifiers.contains(&crate::item_tree::Modifier::Const) {
                    mods |= READONLY;
                }
                if item.modifiers.contains(&crate::item_tree::Modifier::NoDiff) {
                    mods |= NO_DIFF;
                }
                if in_type {
                    TokenKind::Property
                } else {
                    TokenKind::Variable
                }
            }
            ItemKind::Init | ItemKind::Extension | ItemKind::Cbuffer | ItemKind::GlslBlock => TokenKind::Variable,
        };
        let res = if item.kind.is_type() { Res::Type(def) } else { Res::Other };
        (kind, mods, res)
    }

    /// Declarations found by name (overloads: a function if any is one).
    fn defs_class(&mut self, defs: &[DefRef], namespace: String) -> Option<(TokenKind, u32, Res)> {
        let first = defs.iter().find(|d| d.kind == ItemKind::Fn).or(defs.first())?;
        if first.kind == ItemKind::Namespace {
            return Some((TokenKind::Namespace, 0, Res::Namespace(namespace)));
        }
        let item = self.item(DefId::new(self.db, first.file, first.ast_index))?;
        let mut class = self.item_class(first.file, item, false);
        if first.kind == ItemKind::Fn && class.1 & NO_DIFF == 0 {
            for d in defs.iter().filter(|d| d.kind == ItemKind::Fn) {
                if self.is_differentiable(DefId::new(self.db, d.file, d.ast_index)) {
                    class.1 |= DIFFERENTIABLE;
                }
            }
        }
        Some(class)
    }

    /// An overload set that inference found.
    fn funcs_class(&mut self, defs: &[DefId]) -> Option<(TokenKind, u32)> {
        let db = self.db;
        let first = *defs.first()?;
        let in_type = crate::infer::parent_of(db, first).and_then(|p| self.item(p)).is_some_and(|p| {
            matches!(p.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Interface | ItemKind::Extension)
        });
        let (kind, mut mods, _) = self.item_class(first.file(db), self.item(first)?, in_type);
        if mods & NO_DIFF == 0 && defs[1..].iter().any(|&d| self.is_differentiable(d)) {
            mods |= DIFFERENTIABLE;
        }
        Some((kind, mods))
    }

    /// The member `name` of the type `def`, declared in it.
    fn member_class(&mut self, def: DefId, name: &str) -> Option<(TokenKind, u32, Res)> {
        let item = self.item(def)?;
        let members: Vec<&Item> = item.members.iter().filter(|m| m.name.as_deref() == Some(name)).collect();
        let first = members.iter().find(|m| m.kind == ItemKind::Fn).or(members.first())?;
        let file = def.file(self.db);
        let mut class = self.item_class(file, first, true);
        for m in members.iter().filter(|m| m.kind == ItemKind::Fn) {
            if self.is_differentiable(DefId::new(self.db, file, m.ast_index)) {
                class.1 |= DIFFERENTIABLE;
            }
        }
        Some(class)
    }

    fn type_class(&mut self, ty: &Ty) -> (TokenKind, u32) {
        match ty {
            Ty::Adt { def, .. } => match self.item(*def) {
                Some(item) => {
                    let (k, m, _) = self.item_class(def.file(self.db), item, false);
                    (k, m)
                }
                None => (TokenKind::Type, 0),
            },
            Ty::Param { .. } => (TokenKind::TypeParameter, 0),
            Ty::Void | Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) => (TokenKind::Type, DEFAULT_LIBRARY),
            _ => (TokenKind::Type, 0),
        }
    }

    /// The first segment of a path.
    fn first_segment(&mut self, tok: &SyntaxToken, is_type: bool, path: &SyntaxNode) -> Option<(TokenKind, u32, Res)> {
        let name = tok.text();
        if self.is_macro(name) || matches!(name, "__LINE__" | "__FILE__") {
            return Some((TokenKind::Macro, 0, Res::Other));
        }
        let at = tok.text_range().start() + self.offset;
        if let Some(l) = self.find_local(name, at, is_type) {
            let (kind, mut mods, decl) = (l.kind, l.mods, l.decl);
            if !is_type && self.use_carries(path) {
                mods |= DIFFERENTIABLE;
                if let Some(d) = decl {
                    self.out[d].modifiers |= DIFFERENTIABLE;
                }
            }
            return Some((kind, mods, Res::Other));
        }
        // Members of the enclosing type (in types: its member types).
        if let Some((this, extended)) = self.this_def() {
            let found = self.member_class(this, name).or_else(|| self.member_class(extended?, name));
            if let Some((kind, mut mods, res)) = found {
                if !is_type || matches!(res, Res::Type(_)) {
                    if kind == TokenKind::Property && self.use_carries(path) {
                        mods |= DIFFERENTIABLE;
                    }
                    return Some((kind, mods, res));
                }
            }
        }
        // Members of the enclosing namespaces (`a::b` is in `a` too).
        let mut namespaces: Vec<String> = Vec::new();
        for ns in self.namespaces() {
            let mut path = ns;
            namespaces.push(path.to_string());
            while let Some((outer, _)) = path.rsplit_once("::") {
                namespaces.push(outer.to_string());
                path = outer;
            }
        }
        for ns in namespaces {
            if let Some(defs) = self.scope.namespace(&ns).and_then(|t| t.get(name)).cloned() {
                return self.defs_class(&defs, format!("{ns}::{name}"));
            }
        }
        if let Some(defs) = self.scope.lookup(name) {
            return self.defs_class(defs, name.to_string());
        }
        is_builtin_type_name(name).then_some((TokenKind::Type, DEFAULT_LIBRARY, Res::Other))
    }

    /// Whether a use of a value carries a derivative: an assignment's
    /// target by the assigned value.
    fn use_carries(&self, path: &SyntaxNode) -> bool {
        let assigned = path.parent().filter(|p| {
            p.kind() == K::BIN_EXPR
                && p.first_child().as_ref() == Some(path)
                && p.children_with_tokens().any(|e| {
                    matches!(
                        e.kind(),
                        K::EQ
                            | K::PLUSEQ
                            | K::MINUSEQ
                            | K::STAREQ
                            | K::SLASHEQ
                            | K::PERCENTEQ
                            | K::AMPEQ
                            | K::PIPEEQ
                            | K::CARETEQ
                            | K::SHLEQ
                            | K::SHREQ
                    )
                })
        });
        match assigned {
            Some(bin) => self.carries(&bin) || (!has_token(&bin, K::EQ) && self.carries(path)),
            None => self.carries(path),
        }
    }

    /// A later segment of a path, after what `prev` names.
    fn next_segment(&mut self, prev: &Res, name: &str, is_type: bool) -> Option<(TokenKind, u32, Res)> {
        let found = match prev {
            Res::Namespace(ns) => {
                let path = format!("{ns}::{name}");
                let defs = self.scope.namespace(ns).and_then(|t| t.get(name)).cloned();
                defs.and_then(|d| self.defs_class(&d, path))
            }
            Res::Type(def) => self.member_class(*def, name),
            Res::Other => None,
        };
        found.or_else(|| is_type.then_some((TokenKind::Type, 0, Res::Other)))
    }

    /// Classifies the segments of a path (`a::b::C`, `T.Differential`).
    fn classify_path(&mut self, path: &SyntaxNode, offset: TextSize) {
        let idents: Vec<SyntaxToken> =
            path.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == K::IDENT).collect();
        // (`sizeof(x)` takes a value or a type.)
        let is_type = path.kind() == K::PATH_TYPE && path.parent().is_none_or(|p| p.kind() != K::SIZEOF_EXPR);
        let mut res = Res::Other;
        for (i, tok) in idents.iter().enumerate() {
            let range = tok.text_range() + offset;
            let found = if i == 0 {
                self.first_segment(tok, is_type, path)
            } else {
                self.next_segment(&res, tok.text(), is_type)
            };
            let class = match found {
                Some((kind, mods, next)) => {
                    res = next;
                    Some((kind, mods))
                }
                None => {
                    res = Res::Other;
                    // The last segment of a value path: what inference found.
                    let last = i + 1 == idents.len();
                    match self.expr_type(path).cloned().filter(|_| last && !is_type) {
                        Some(Ty::Func(defs)) => self.funcs_class(&defs),
                        Some(Ty::TypeValue(t)) => Some(self.type_class(&t)),
                        Some(Ty::Unknown) | None => None,
                        Some(_) if i > 0 => Some((TokenKind::Property, STATIC)),
                        // Neither local nor global: a member of `this` (one
                        // an extension or a base declares).
                        Some(_) if self.this_def().is_some() => {
                            let diff = if self.use_carries(path) { DIFFERENTIABLE } else { 0 };
                            Some((TokenKind::Property, diff))
                        }
                        Some(_) => None,
                    }
                }
            };
            if let Some(c) = class {
                self.pending.insert(range.start(), c);
            }
        }
    }

    /// What a value path names, if a namespace or a type.
    fn path_res(&mut self, path: &SyntaxNode) -> Res {
        let mut res = Res::Other;
        let idents = path.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == K::IDENT);
        for (i, tok) in idents.enumerate() {
            let found =
                if i == 0 { self.first_segment(&tok, false, path) } else { self.next_segment(&res, tok.text(), false) };
            res = found.map_or(Res::Other, |(_, _, r)| r);
        }
        res
    }

    /// Classifies the member name of `a.b`.
    fn classify_member(&mut self, member: &SyntaxNode, offset: TextSize) {
        let Some(name) =
            member.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == K::IDENT).last()
        else {
            return;
        };
        let range = name.text_range() + offset;
        if !overlaps(range, self.range) {
            return;
        }
        let is_callee =
            member.parent().is_some_and(|p| p.kind() == K::CALL_EXPR && p.first_child().as_ref() == Some(member));
        let receiver = member.first_child().and_then(|r| self.expr_type(&r).cloned());
        let (recv_def, is_static) = match &receiver {
            Some(Ty::TypeValue(t)) => match &**t {
                Ty::Adt { def, .. } => (Some(*def), true),
                _ => (None, true),
            },
            Some(Ty::Adt { def, .. }) => (Some(*def), false),
            _ => (None, false),
        };
        let funcs = match self.expr_type(member).cloned() {
            Some(Ty::Func(defs)) => self.funcs_class(&defs),
            _ => None,
        };
        let class = match funcs {
            Some((kind, mods)) => (kind, mods | if is_static { STATIC } else { 0 }),
            None => {
                let found = match recv_def {
                    Some(d) => self.member_class(d, name.text()),
                    // `ns.f` and `Type.member` that inference did not type.
                    None => match member.first_child().filter(|r| r.kind() == K::PATH_EXPR) {
                        Some(r) => {
                            let res = self.path_res(&r);
                            self.next_segment(&res, name.text(), false)
                        }
                        None => None,
                    },
                };
                let (kind, mut mods) = match found {
                    Some((kind, mods, _)) => (kind, mods),
                    None if is_callee => (TokenKind::Method, 0),
                    None => (TokenKind::Property, 0),
                };
                if is_static && kind == TokenKind::Property {
                    mods |= STATIC;
                }
                if kind == TokenKind::Property && self.carries(member) {
                    mods |= DIFFERENTIABLE;
                }
                (kind, mods)
            }
        };
        self.pending.insert(range.start(), class);
    }
}
