//! IDE features as plain functions returning plain data (no LSP types):
//! what a name at a position refers to, hover text, definitions,
//! document symbols and completions. The server maps them to LSP.

use slang_syntax::{SyntaxKind as K, SyntaxNode, SyntaxToken, TextRange, TextSize};

use crate::autodiff::{self, Mode};
use crate::hir::scope::BindingKind;
use crate::hir::{def_node, DefId};
use crate::infer::{item_of, lookup_member, parent_of, Member};
use crate::item_tree::{Item, ItemKind};
use crate::ty::Ty;
use crate::{parse, Db, SourceFile};

mod assists;
pub mod inlay;
mod macros;
mod refs;
mod related;
pub mod signature_help;
pub mod tokens;

pub use assists::{assists, checkpoint_fixes, Assist, AssistKind, CheckpointFix, FileEdit};
pub use inlay::{inlay_hints, InlayConfig, InlayHint, InlayKind};
pub use macros::{macro_definition, macro_hover, macro_references};
pub use refs::*;
pub use related::{related_information, Related};
pub use signature_help::{signature_help, SignatureHelp, SignatureInfo};
pub use tokens::{semantic_tokens, SemanticToken, TokenKind, TOKEN_KINDS, TOKEN_MODIFIERS};

/// A place to navigate to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NavTarget {
    pub file: SourceFile,
    /// The whole declaration.
    pub full_range: TextRange,
    /// Its name.
    pub focus_range: TextRange,
    pub name: String,
}

/// What a name at a position refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Definition {
    /// A declaration of the item tree (function, type, field, global …).
    Item(DefId),
    /// A local variable or parameter: its name in this file.
    Local { file: SourceFile, name_range: TextRange, decl: TextRange, name: String },
}

/// The identifier token at `offset` (or just before it).
pub(crate) fn ident_at(root: &SyntaxNode, offset: TextSize) -> Option<SyntaxToken> {
    // The tokens touching `offset` are inside the node covering the
    // characters on both sides of it, found by binary search: a search
    // from the root scans every top-level declaration.
    let range = root.text_range();
    if !range.contains_inclusive(offset) {
        return None;
    }
    let around = TextRange::new(
        offset.checked_sub(1.into()).unwrap_or(offset).max(range.start()),
        (offset + TextSize::from(1)).min(range.end()),
    );
    let near = match root.covering_element(around) {
        slang_syntax::NodeOrToken::Node(n) => n,
        slang_syntax::NodeOrToken::Token(t) => t.parent().unwrap_or_else(|| root.clone()),
    };
    let tokens = near.token_at_offset(offset);
    let mut best = None;
    for t in tokens {
        if t.kind() == K::IDENT || t.kind().is_keyword() {
            best = Some(t);
            if best.as_ref().is_some_and(|t: &SyntaxToken| t.kind() == K::IDENT) {
                break;
            }
        }
    }
    best.filter(|t| t.kind() == K::IDENT || t.text() == "this")
}

/// The name declared by `decl` (a `NAME` child, or that of its first
/// declarator).
fn decl_name(decl: &SyntaxNode) -> Option<SyntaxNode> {
    decl.children().find(|c| c.kind() == K::NAME).or_else(|| {
        decl.children().find(|c| c.kind() == K::DECLARATOR).and_then(|d| d.children().find(|c| c.kind() == K::NAME))
    })
}

/// The node of the semantic tree whose range is exactly `range` (the
/// declaring node of a local binding).
pub(crate) fn node_with_range(root: &SyntaxNode, range: TextRange) -> Option<SyntaxNode> {
    let start = match root.covering_element(range) {
        slang_syntax::NodeOrToken::Node(n) => n,
        slang_syntax::NodeOrToken::Token(t) => t.parent()?,
    };
    start.ancestors().find(|n| n.text_range() == range)
}

/// A local binding as a definition (the implicit `newValue` has no name to
/// go to).
fn local_definition(file: SourceFile, b: crate::hir::scope::LocalBinding) -> Option<Definition> {
    Some(Definition::Local { file, name_range: b.name_range?, decl: b.decl, name: b.name })
}

/// The declaration in the item tree whose syntax is `node` (by range).
fn item_def_of_node(db: &dyn Db, file: SourceFile, node: &SyntaxNode) -> Option<DefId> {
    let tree = crate::item_tree::item_tree(db, file);
    let map = crate::item_tree::item_source_map(db, file);
    let range = node.text_range();
    tree.walk().find_map(|i| {
        let ptr = map.get(i.ast_index as usize)?;
        (ptr.text_range() == range).then(|| DefId::new(db, file, i.ast_index))
    })
}

fn first_def(db: &dyn Db, defs: &[crate::name_res::DefRef]) -> Option<DefId> {
    defs.first().map(|d| DefId::new(db, d.file, d.ast_index))
}

/// The member `name` of the type `ty` as a declaration.
fn member_def(db: &dyn Db, ty: &Ty, name: &str) -> Vec<DefId> {
    let Ty::Adt { def, args, .. } = ty else { return Vec::new() };
    match lookup_member(db, *def, args, name) {
        Some(Member::Methods(defs)) => defs,
        _ => item_of(db, *def)
            .map(|i| {
                i.members
                    .iter()
                    .filter(|m| m.name.as_deref() == Some(name))
                    .map(|m| DefId::new(db, def.file(db), m.ast_index))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// What the identifier at `offset` refers to: a local binding (from
/// [`crate::hir::scope`], the one local resolver) or declarations. Hover, go to
/// definition, assists and related information go through this.
pub fn resolve_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<Definition> {
    let root = parse(db, file).syntax_node();
    let Some(tok) = ident_at(&root, offset) else { return Vec::new() };
    let Some(parent) = tok.parent() else { return Vec::new() };
    let name = tok.text().to_string();
    match parent.kind() {
        // The name of a declaration: itself.
        K::NAME => {
            let decl = parent.parent();
            let decl = match decl {
                Some(d) if d.kind() == K::DECLARATOR => Some(d),
                other => other,
            };
            let Some(decl) = decl else { return Vec::new() };
            if let Some(def) = item_def_of_node(db, file, &decl) {
                return vec![Definition::Item(def)];
            }
            vec![Definition::Local { file, name_range: parent.text_range(), decl: decl.text_range(), name }]
        }
        K::MEMBER_EXPR => {
            let Some(receiver) = parent.children().next() else { return Vec::new() };
            let Some(rty) = crate::infer::type_of_node(db, file, &receiver) else { return Vec::new() };
            let rty = match rty {
                Ty::TypeValue(t) => (*t).clone(),
                t => t,
            };
            member_def(db, &rty, &name).into_iter().map(Definition::Item).collect()
        }
        K::PATH_EXPR | K::PATH | K::PATH_TYPE => {
            let first_segment = parent
                .children_with_tokens()
                .filter_map(|e| e.into_token())
                .find(|t| t.kind() == K::IDENT)
                .is_some_and(|t| t == tok);
            if first_segment {
                let local = crate::hir::scope::resolve_local(db, file, &name, tok.text_range().start(), |k| {
                    !matches!(k, BindingKind::GenericParam | BindingKind::SetterValue)
                });
                if let Some(d) = local.and_then(|b| local_definition(file, b)) {
                    return vec![d];
                }
            }
            // Typed paths: what inference resolved.
            let expr = parent.ancestors().find(|a| a.kind() == K::PATH_EXPR);
            if let Some(e) = &expr {
                match crate::infer::type_of_node(db, file, e) {
                    Some(Ty::Func(defs)) => return defs.into_iter().map(Definition::Item).collect(),
                    Some(Ty::TypeValue(t)) => {
                        if let Ty::Adt { def, .. } = &*t {
                            return vec![Definition::Item(*def)];
                        }
                    }
                    _ => {}
                }
                // Fields of `this`.
                if let Some(f) = enclosing_item(db, file, tok.text_range().start()) {
                    if let Some(p) = parent_of(db, f) {
                        let this = Ty::Adt { def: p, name: String::new(), args: Vec::new() };
                        let m = member_def(db, &this, &name);
                        if !m.is_empty() {
                            return m.into_iter().map(Definition::Item).collect();
                        }
                    }
                }
            }
            // Generic parameters of enclosing declarations.
            let generic = crate::hir::scope::resolve_local(db, file, &name, tok.text_range().start(), |k| {
                k == BindingKind::GenericParam
            });
            if let Some(d) = generic.and_then(|b| local_definition(file, b)) {
                return vec![d];
            }
            let scope = crate::name_res::global_scope(db, file);
            scope
                .lookup(&name)
                .map(|defs| defs.iter().map(|d| Definition::Item(DefId::new(db, d.file, d.ast_index))).collect())
                .unwrap_or_default()
        }
        _ => {
            let scope = crate::name_res::global_scope(db, file);
            scope.lookup(&name).and_then(|d| first_def(db, d)).map(Definition::Item).into_iter().collect()
        }
    }
}

/// The innermost function (with a body) containing `offset`.
fn enclosing_item(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<DefId> {
    crate::infer::function_containing(db, file, TextRange::empty(offset))
}

/// The function named at `offset`, else the one containing it.
pub fn function_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<DefId> {
    resolve_at(db, file, offset)
        .into_iter()
        .find_map(|d| match d {
            Definition::Item(d) if item_of(db, d).is_some_and(|i| i.kind == ItemKind::Fn) => Some(d),
            _ => None,
        })
        .or_else(|| enclosing_item(db, file, offset))
}

/// The names of the file's entry points (`[shader(…)]` or
/// `[numthreads(…)]` functions), in order.
pub fn entry_points(db: &dyn Db, file: SourceFile) -> Vec<String> {
    crate::item_tree::item_tree(db, file)
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Fn && (i.has_attr("shader") || i.has_attr("numthreads")))
        .filter_map(|i| i.name.clone())
        .collect()
}

/// The functions the file differentiates in reverse mode: the `f` of each
/// first-order `bwd_diff(f)` in its bodies (wherever `f` is declared),
/// each once, in order.
pub fn backward_roots(db: &dyn Db, file: SourceFile) -> Vec<DefId> {
    let mut out = Vec::new();
    for &(_, def) in crate::infer::function_spans(db, file) {
        for ty in &crate::infer::infer(db, def).expr_types {
            let Ty::DiffFunc { defs, modes } = ty else { continue };
            if modes.as_slice() == [false] {
                for d in defs {
                    if !out.contains(d) {
                        out.push(*d);
                    }
                }
            }
        }
    }
    out
}

/// Where a definition is.
pub fn nav_target(db: &dyn Db, def: &Definition) -> Option<NavTarget> {
    match def {
        Definition::Item(d) => {
            let node = def_node(db, *d)?;
            let name = decl_name(&node).or_else(|| node.parent().and_then(|p| decl_name(&p)));
            let full = match node.kind() {
                K::DECLARATOR => node.parent().map(|p| p.text_range()).unwrap_or(node.text_range()),
                _ => node.text_range(),
            };
            Some(NavTarget {
                file: d.file(db),
                full_range: full,
                focus_range: name.as_ref().map(|n| n.text_range()).unwrap_or(full),
                name: item_of(db, *d).and_then(|i| i.name.clone()).unwrap_or_default(),
            })
        }
        Definition::Local { file, name_range, decl, name } => {
            Some(NavTarget { file: *file, full_range: *decl, focus_range: *name_range, name: name.clone() })
        }
    }
}

/// Go to definition.
pub fn goto_definition(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<NavTarget> {
    resolve_at(db, file, offset).iter().filter_map(|d| nav_target(db, d)).collect()
}

/// Hover: a Slang code block with the declaration (or the expression's
/// type), its documentation, and the autodiff facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoverResult {
    pub range: TextRange,
    pub markdown: String,
}

/// The declaration's header as written (up to its body), on one line.
fn declaration_text(node: &SyntaxNode) -> String {
    let mut out = String::new();
    let holder = if node.kind() == K::DECLARATOR { node.parent().unwrap_or(node.clone()) } else { node.clone() };
    for e in holder.children_with_tokens() {
        if matches!(e.kind(), K::BLOCK | K::MEMBER_LIST | K::SEMICOLON) {
            break;
        }
        if e.kind() == K::COMMENT {
            continue;
        }
        if e.kind() == K::ATTRIBUTE {
            // Attributes on a line of their own.
            out.push_str(&e.to_string());
            out.push('\u{1}');
            continue;
        }
        if node.kind() == K::DECLARATOR && e.kind() == K::DECLARATOR {
            // Only this declarator, without its initializer.
            if let Some(n) = node.children().find(|c| c.kind() == K::NAME) {
                out.push_str(&n.text().to_string());
            }
            break;
        }
        out.push_str(&e.to_string());
    }
    out.split('\u{1}')
        .map(|part| part.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Comments right before a declaration (`//`, `///`, `/* */`), as
/// markdown.
fn doc_comment(node: &SyntaxNode) -> Option<String> {
    let holder = if node.kind() == K::DECLARATOR { node.parent()? } else { node.clone() };
    let mut lines = Vec::new();
    // Comments the parser put at the start of the declaration.
    let mut inner = Vec::new();
    for e in holder.children_with_tokens() {
        match e.kind() {
            K::COMMENT => inner.push(comment_body(e.as_token()?.text())),
            K::WHITESPACE => {}
            _ => break,
        }
    }
    if !inner.is_empty() {
        let text = inner.join("\n").trim().to_string();
        return (!text.is_empty()).then_some(text);
    }
    let mut tok = holder.first_token()?.prev_token();
    let mut newlines = 0;
    while let Some(t) = tok {
        match t.kind() {
            K::WHITESPACE => {
                newlines += t.text().matches('\n').count();
                if newlines > 1 {
                    break;
                }
            }
            K::COMMENT => {
                newlines = 0;
                lines.push(comment_body(t.text()));
            }
            _ => break,
        }
        tok = t.prev_token();
    }
    lines.reverse();
    let text = lines.join("\n").trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// A comment's text without its markers.
fn comment_body(text: &str) -> String {
    if let Some(b) = text.strip_prefix("/*") {
        b.trim_end_matches("*/").lines().map(|l| l.trim().trim_start_matches('*').trim()).collect::<Vec<_>>().join("\n")
    } else {
        text.trim_start_matches('/').trim_start_matches('!').trim().to_string()
    }
}

fn item_hover(db: &dyn Db, file: SourceFile, def: DefId) -> Option<String> {
    let node = def_node(db, def)?;
    let item = item_of(db, def)?;
    let mut code = declaration_text(&node);
    if let Some(parent) = parent_of(db, def).and_then(|p| item_of(db, p)) {
        if let Some(pn) = &parent.name {
            code = format!("// in {} {pn}\n{code}", kind_word(parent.kind));
        }
    }
    let mut md = format!("```slang\n{code}\n```");
    if let Some(doc) = doc_comment(&node) {
        md.push_str("\n\n");
        md.push_str(&doc);
    }
    if let Some(facts) = autodiff::hover_facts(db, file, def) {
        md.push_str("\n\n---\n\n**Autodiff**\n```slang\n");
        md.push_str(&facts);
        md.push_str("\n```");
        if item.kind == ItemKind::Fn {
            let attached: Vec<String> = item
                .attr_names()
                .filter(|a| {
                    matches!(
                        a.as_str(),
                        "ForwardDerivative" | "BackwardDerivative" | "PrimalSubstitute" | "TreatAsDifferentiable"
                    )
                })
                .cloned()
                .collect();
            if !attached.is_empty() {
                md.push_str(&format!("\n\nCustom: `[{}]`", attached.join("]`, `[")));
            }
        }
    }
    Some(md)
}

fn kind_word(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Struct => "struct",
        ItemKind::Class => "class",
        ItemKind::Interface => "interface",
        ItemKind::Enum => "enum",
        ItemKind::Namespace => "namespace",
        ItemKind::Extension => "extension",
        _ => "",
    }
}

/// Hover at `offset`.
pub fn hover(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<HoverResult> {
    let root = parse(db, file).syntax_node();
    // `fwd_diff(f)` / `bwd_diff(f)`: the transformed signatures.
    let diff_kw = root
        .token_at_offset(offset)
        .find(|t| matches!(t.text(), "fwd_diff" | "bwd_diff" | "__fwd_diff" | "__bwd_diff"));
    if let Some(kw) = diff_kw {
        let range = kw.text_range();
        let diff = kw.parent_ancestors().find(|a| a.kind() == K::DIFF_EXPR)?;
        let ty = crate::infer::type_of_node(db, file, &diff)?;
        if let Ty::DiffFunc { defs, modes } = ty {
            let modes: Vec<Mode> = modes.iter().map(|&f| if f { Mode::Forward } else { Mode::Backward }).collect();
            let sigs: Vec<String> =
                defs.iter().map(|&d| autodiff::higher_order_signature(db, d, &modes).to_string()).collect();
            return Some(HoverResult { range, markdown: format!("```slang\n{}\n```", sigs.join("\n")) });
        }
        return None;
    }
    let tok = ident_at(&root, offset)?;
    let range = tok.text_range();
    let defs = resolve_at(db, file, offset);
    let mut parts = Vec::new();
    for d in defs.iter().take(4) {
        match d {
            Definition::Item(def) => parts.extend(item_hover(db, file, *def)),
            Definition::Local { decl, name, .. } => {
                // The local's type, from its use or its declaration.
                let use_ty = tok
                    .parent()
                    .filter(|p| p.kind() == K::PATH_EXPR)
                    .and_then(|p| crate::infer::type_of_node(db, file, &p))
                    .filter(|t| !t.is_unknown());
                let decl_node = root.covering_element(*decl);
                let written = decl_node.as_node().map(declaration_text).unwrap_or_default();
                // (A local type alias: its declaration.)
                let is_alias = matches!(decl_node.kind(), K::TYPEDEF | K::TYPEALIAS);
                let text = match use_ty.filter(|_| !is_alias) {
                    Some(t) => format!("{t} {name}"),
                    None if !written.is_empty() => written,
                    None => name.clone(),
                };
                let mut md = format!("```slang\n{text}\n```");
                if let Some(carries) = tok
                    .parent()
                    .filter(|p| p.kind() == K::PATH_EXPR)
                    .and_then(|p| crate::infer::carries_derivative(db, file, &p))
                {
                    if carries {
                        md.push_str("\n\ncarries a derivative here");
                    }
                }
                parts.push(md);
            }
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(HoverResult { range, markdown: parts.join("\n\n---\n\n") })
}

/// A symbol of a document outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentSymbol {
    pub name: String,
    pub kind: ItemKind,
    /// A short description (a function's parameters, a field's type).
    pub detail: Option<String>,
    pub range: TextRange,
    pub selection_range: TextRange,
    pub children: Vec<DocumentSymbol>,
}

/// The outline of a file: its declarations, nested.
pub fn document_symbols(db: &dyn Db, file: SourceFile) -> Vec<DocumentSymbol> {
    let tree = crate::item_tree::item_tree(db, file);
    fn build(db: &dyn Db, file: SourceFile, items: &[Item]) -> Vec<DocumentSymbol> {
        let mut out = Vec::new();
        for i in items {
            let def = DefId::new(db, file, i.ast_index);
            let Some(nav) = nav_target(db, &Definition::Item(def)) else { continue };
            let Some(name) = i.name.clone() else {
                // Extensions and other unnamed holders: their members.
                out.extend(build(db, file, &i.members));
                continue;
            };
            let detail = def_node(db, def).map(|n| declaration_text(&n)).filter(|t| !t.is_empty());
            out.push(DocumentSymbol {
                name,
                kind: i.kind,
                detail,
                range: nav.full_range,
                selection_range: nav.focus_range,
                children: build(db, file, &i.members),
            });
        }
        out
    }
    build(db, file, &tree.items)
}

/// What a completion inserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionKind {
    Local,
    Function,
    Method,
    Field,
    Type,
    Keyword,
    Attribute,
    Swizzle,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionEntry {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    /// A snippet (`$1` placeholders) to insert instead of the label.
    pub snippet: Option<String>,
    /// Lower sorts first.
    pub rank: u8,
    /// The declaration, for documentation on demand ([`completion_docs`]).
    pub def: Option<DefId>,
}

impl CompletionEntry {
    fn new(label: impl Into<String>, kind: CompletionKind, rank: u8) -> Self {
        CompletionEntry { label: label.into(), kind, detail: None, snippet: None, rank, def: None }
    }
}

/// The documentation of a completion item's declaration (for
/// `completionItem/resolve`): the hover text.
pub fn completion_docs(db: &dyn Db, def: DefId) -> Option<String> {
    item_hover(db, def.file(db), def)
}

/// Keywords that start statements or appear in expressions.
const STMT_KEYWORDS: &[&str] = &[
    "if", "else", "for", "while", "do", "return", "break", "continue", "switch", "case", "default", "discard", "let",
    "var", "const", "static", "no_diff", "fwd_diff", "bwd_diff", "detach", "true", "false", "this", "This", "is", "as",
];

/// Keywords that start or qualify declarations.
const DECL_KEYWORDS: &[&str] = &[
    "struct",
    "interface",
    "extension",
    "enum",
    "namespace",
    "typealias",
    "typedef",
    "associatedtype",
    "property",
    "__init",
    "__subscript",
    "const",
    "static",
    "uniform",
    "groupshared",
    "in",
    "out",
    "inout",
    "no_diff",
    "public",
    "internal",
    "private",
    "export",
    "extern",
    "override",
];

/// Keywords only at the top of a file.
const FILE_KEYWORDS: &[&str] = &["import", "module", "implementing", "__include", "cbuffer"];

/// Type names offered wherever a type may start.
const TYPE_KEYWORDS: &[&str] = &[
    "void", "bool", "int", "uint", "half", "float", "double", "int64_t", "uint64_t", "float2", "float3", "float4",
    "int2", "int3", "int4", "uint2", "uint3", "uint4", "float2x2", "float3x3", "float4x4",
];

/// System-value semantics (after `:` on parameters, fields and return
/// types): name and meaning.
const SEMANTICS: &[(&str, &str)] = &[
    ("SV_Position", "clip-space position (vertex output) / pixel position (fragment input)"),
    ("SV_Target", "render-target output of a fragment shader"),
    ("SV_Depth", "depth output of a fragment shader"),
    ("SV_DispatchThreadID", "thread index in the whole dispatch (uint3)"),
    ("SV_GroupID", "index of the thread group (uint3)"),
    ("SV_GroupThreadID", "thread index in its group (uint3)"),
    ("SV_GroupIndex", "flattened thread index in its group (uint)"),
    ("SV_VertexID", "index of the vertex (uint)"),
    ("SV_InstanceID", "index of the instance (uint)"),
    ("SV_PrimitiveID", "index of the primitive (uint)"),
    ("SV_IsFrontFace", "whether the primitive faces the viewer (bool)"),
    ("SV_SampleIndex", "sample index (uint)"),
    ("SV_Coverage", "sample coverage mask (uint)"),
    ("SV_ClipDistance", "clip distance (float)"),
    ("SV_CullDistance", "cull distance (float)"),
    ("SV_RenderTargetArrayIndex", "render-target array slice (uint)"),
    ("SV_ViewportArrayIndex", "viewport index (uint)"),
    ("SV_DomainLocation", "tessellation domain location"),
    ("SV_TessFactor", "tessellation edge factors"),
    ("SV_InsideTessFactor", "tessellation inside factors"),
    ("SV_OutputControlPointID", "hull-shader control point index (uint)"),
    ("SV_GSInstanceID", "geometry-shader instance (uint)"),
    ("SV_ViewID", "multiview view index (uint)"),
    ("SV_ShadingRate", "variable shading rate (uint)"),
    ("SV_StencilRef", "stencil reference output (uint)"),
    ("SV_Barycentrics", "barycentric coordinates (float3)"),
    ("SV_DrawIndex", "draw index (uint)"),
];

const ATTRIBUTES: &[(&str, Option<&str>)] = &[
    ("Differentiable", None),
    ("ForwardDifferentiable", None),
    ("BackwardDifferentiable", None),
    ("ForwardDerivative", Some("ForwardDerivative(${1:fn})")),
    ("BackwardDerivative", Some("BackwardDerivative(${1:fn})")),
    ("ForwardDerivativeOf", Some("ForwardDerivativeOf(${1:fn})")),
    ("BackwardDerivativeOf", Some("BackwardDerivativeOf(${1:fn})")),
    ("PrimalSubstitute", Some("PrimalSubstitute(${1:fn})")),
    ("PrimalSubstituteOf", Some("PrimalSubstituteOf(${1:fn})")),
    ("TreatAsDifferentiable", None),
    ("NoDiffThis", None),
    ("DerivativeMember", Some("DerivativeMember(${1:Differential.field})")),
    ("MaxIters", Some("MaxIters(${1:8})")),
    ("ForceUnroll", None),
    ("PreferRecompute", None),
    ("PreferCheckpoint", None),
    ("shader", Some("shader(\"${1:compute}\")")),
    ("numthreads", Some("numthreads(${1:8}, ${2:8}, ${3:1})")),
    ("mutating", None),
    ("unroll", None),
    ("loop", None),
];

fn kind_of_item(kind: ItemKind) -> CompletionKind {
    match kind {
        ItemKind::Fn => CompletionKind::Function,
        ItemKind::Var | ItemKind::Property => CompletionKind::Field,
        k if k.is_type() => CompletionKind::Type,
        _ => CompletionKind::Other,
    }
}

/// Members of a type, for completion after `.`.
fn member_completions(db: &dyn Db, file: SourceFile, ty: &Ty, out: &mut Vec<CompletionEntry>) {
    let entry =
        |label: &str, kind, detail: Option<String>| CompletionEntry { detail, ..CompletionEntry::new(label, kind, 0) };
    match ty {
        Ty::Vector(s, n) => {
            let sets: [&str; 2] = ["xyzw", "rgba"];
            for set in sets {
                for c in set.chars().take(*n as usize) {
                    out.push(entry(&c.to_string(), CompletionKind::Swizzle, Some(s.name().to_string())));
                }
                let all: String = set.chars().take(*n as usize).collect();
                out.push(entry(&all, CompletionKind::Swizzle, Some(format!("{}{}", s.name(), n))));
            }
        }
        Ty::Adt { def, name, args } if name == "DifferentialPair" => {
            let _ = def;
            let p = args.first().cloned().unwrap_or(Ty::Unknown);
            let d = autodiff::differential_of(db, &p);
            out.push(entry("p", CompletionKind::Field, Some(format!("{p} (primal)"))));
            out.push(entry("d", CompletionKind::Field, Some(format!("{d} (differential)"))));
            out.push(entry("getPrimal", CompletionKind::Method, Some(format!("{p} getPrimal()"))));
            out.push(entry("getDifferential", CompletionKind::Method, Some(format!("{d} getDifferential()"))));
        }
        // Tuple elements `_0`, `_1`, … (a tuple of a pack has none known).
        Ty::Tuple(items) => tuple_completions(items, out),
        Ty::Adt { def, name, args } if name == "Tuple" && crate::infer::is_core(db, def.file(db)) => {
            tuple_completions(args, out)
        }
        Ty::Adt { def, .. } => {
            if let Some(item) = item_of(db, *def) {
                for m in &item.members {
                    let Some(n) = &m.name else { continue };
                    let mdef = DefId::new(db, def.file(db), m.ast_index);
                    let detail = def_node(db, mdef).map(|n| declaration_text(&n));
                    let kind = match m.kind {
                        ItemKind::Fn => CompletionKind::Method,
                        k => kind_of_item(k),
                    };
                    out.push(CompletionEntry { def: Some(mdef), ..entry(n, kind, detail) });
                }
            }
        }
        Ty::Assoc(base, n) if n == "Differential" => {
            if let Ty::Adt { def, .. } = &**base {
                if let Some(s) = autodiff::synthesized_differential(db, file, *def) {
                    for (name, t) in &s.fields {
                        out.push(entry(name, CompletionKind::Field, Some(format!("{t} {name} (synthesized)"))));
                    }
                }
            }
        }
        _ => {}
    }
}

fn tuple_completions(items: &[Ty], out: &mut Vec<CompletionEntry>) {
    if items.iter().any(|t| t.is_unknown()) {
        return;
    }
    for (i, t) in items.iter().enumerate() {
        let label = format!("_{i}");
        out.push(CompletionEntry {
            detail: Some(t.to_string()),
            ..CompletionEntry::new(&label, CompletionKind::Field, 0)
        });
    }
}

/// Completions at `offset`.
pub fn completions(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<CompletionEntry> {
    let root = parse(db, file).syntax_node();
    let text = crate::expansion::semantic_text(db, file);
    let upto = &text[..usize::from(offset).min(text.len())];
    let before_word = upto.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
    let line_start = before_word.rfind('\n').map_or(0, |i| i + 1);
    let line = before_word[line_start..].trim_start();
    let mut out = Vec::new();
    // After `.`: members of the receiver's type.
    if before_word.ends_with('.') && !line.starts_with("import") {
        let dot = TextSize::from((before_word.len() - 1) as u32);
        let receiver = root
            .token_at_offset(dot)
            .find(|t| t.kind() == K::DOT)
            .and_then(|t| t.parent())
            .filter(|p| p.kind() == K::MEMBER_EXPR)
            .and_then(|p| p.children().next());
        if let Some(r) = receiver {
            if let Some(ty) = crate::infer::type_of_node(db, file, &r) {
                member_completions(db, file, &ty, &mut out);
            }
        }
        return out;
    }
    // `import a.b`, `__include`, `implementing`, `#include "…"`: modules
    // and files the workspace knows.
    if let Some(paths) = path_completions(db, file, line, &upto[line_start..]) {
        return paths;
    }
    // Inside `[…]` before a declaration or statement: attributes.
    if line.starts_with('[') && !line.contains(']') && !line.contains('(') {
        for (name, snippet) in ATTRIBUTES {
            out.push(CompletionEntry {
                snippet: snippet.map(|s| s.to_string()),
                ..CompletionEntry::new(*name, CompletionKind::Attribute, 0)
            });
        }
        return out;
    }
    // After `:` on a parameter, field or function: semantics.
    if before_word.trim_end().ends_with(':') && after_semantic_colon(&root, before_word.trim_end().len()) {
        for (name, meaning) in SEMANTICS {
            out.push(CompletionEntry {
                detail: Some(meaning.to_string()),
                ..CompletionEntry::new(*name, CompletionKind::Other, 0)
            });
        }
        return out;
    }
    let at = root.token_at_offset(offset).left_biased().and_then(|t| t.parent());
    // The last token before the cursor (incomplete code leaves the cursor
    // between nodes).
    let mut prev = root.token_at_offset(offset).left_biased();
    while let Some(t) = prev.clone().filter(|t| t.kind().is_trivia() || t.text_range().start() >= offset) {
        prev = t.prev_token();
    }
    let expected = prev.as_ref().and_then(|t| t.parent()).and_then(|n| expected_type_text(&n, offset));
    let prev_at = prev.map_or(offset, |t| t.text_range().start());
    // Locals and parameters in scope (closest first); those of the
    // expected type first.
    if at.is_some() {
        let mut seen = std::collections::HashSet::new();
        for b in crate::hir::scope::visible_at(db, file, offset) {
            if matches!(b.kind, BindingKind::GenericParam | BindingKind::SetterValue) {
                continue;
            }
            let Some(decl) = node_with_range(&root, b.decl) else { continue };
            let name = b.name;
            // Not the variable being declared.
            if decl.kind() == K::DECLARATOR && decl.text_range().contains_inclusive(prev_at) {
                continue;
            }
            if seen.insert(name.clone()) {
                let detail = match decl.kind() {
                    K::PARAM => decl.text().to_string().split_whitespace().collect::<Vec<_>>().join(" "),
                    _ => declaration_text(&decl),
                };
                let rank = match &expected {
                    Some(t) if declared_type_text(&decl).as_deref() == Some(t.as_str()) => 0,
                    Some(_) => 1,
                    None => 0,
                };
                out.push(CompletionEntry {
                    detail: Some(detail),
                    ..CompletionEntry::new(name, CompletionKind::Local, rank)
                });
            }
        }
    }
    // Members of the enclosing type (implicit `this`).
    let in_function = enclosing_item(db, file, offset);
    if let Some(f) = in_function {
        if let Some(p) = parent_of(db, f) {
            let this = Ty::Adt { def: p, name: String::new(), args: Vec::new() };
            let mut members = Vec::new();
            member_completions(db, file, &this, &mut members);
            for mut m in members {
                m.rank = 2;
                out.push(m);
            }
        }
    }
    // Module and imported names, then the core module's.
    let scope = crate::name_res::global_scope(db, file);
    let core = scope.core.as_ref().map(|c| &c.names);
    for (names, rank) in [(Some(&scope.names), 3), (core, 4)] {
        for (name, defs) in names.into_iter().flatten() {
            // The core module's internal names (`__…`) are not offered.
            let Some(d) = defs.first().filter(|_| rank == 3 || !name.starts_with('_')) else { continue };
            out.push(CompletionEntry {
                def: Some(DefId::new(db, d.file, d.ast_index)),
                ..CompletionEntry::new(name.clone(), kind_of_item(d.kind), rank)
            });
        }
    }
    // Keywords by context: statements inside bodies, declarations
    // elsewhere (file-level ones only outside types).
    let in_body = in_function.is_some()
        && at.as_ref().is_some_and(|n| n.ancestors().take_while(|a| a.kind() != K::FN).any(|a| a.kind() == K::BLOCK));
    let in_type = at.as_ref().is_some_and(|n| n.ancestors().any(|a| a.kind() == K::MEMBER_LIST));
    let keywords: Vec<&[&str]> = if in_body {
        vec![STMT_KEYWORDS, TYPE_KEYWORDS]
    } else if in_type {
        vec![DECL_KEYWORDS, TYPE_KEYWORDS]
    } else {
        vec![DECL_KEYWORDS, FILE_KEYWORDS, TYPE_KEYWORDS]
    };
    let mut seen = std::collections::HashSet::new();
    for k in keywords.into_iter().flatten() {
        if seen.insert(*k) {
            out.push(CompletionEntry::new(*k, CompletionKind::Keyword, 5));
        }
    }
    out
}

/// Whether the `:` ending at `colon_end` introduces a semantic (on a
/// parameter, a field or a function's return) rather than a base type, a
/// label or `?:`.
fn after_semantic_colon(root: &SyntaxNode, colon_end: usize) -> bool {
    let Some(colon) = root.token_at_offset(TextSize::from(colon_end as u32 - 1)).find(|t| t.kind() == K::COLON) else {
        return false;
    };
    colon.parent_ancestors().next().is_some_and(|p| matches!(p.kind(), K::SEMANTIC | K::PARAM | K::DECLARATOR | K::FN))
}

/// The type the expression at `offset` should have, as written: the
/// declared type of the variable it initializes or the return type of the
/// function it is returned from.
fn expected_type_text(at: &SyntaxNode, offset: TextSize) -> Option<String> {
    for a in at.ancestors() {
        match a.kind() {
            K::DECLARATOR => {
                let eq = a.descendants_with_tokens().find(|e| e.kind() == K::EQ)?;
                return (eq.text_range().end() <= offset).then(|| declared_type_text(&a)).flatten();
            }
            K::RETURN_STMT => {
                let f = a.ancestors().find(|f| f.kind() == K::FN)?;
                return f.children().find(|c| is_type_kind(c.kind())).map(|t| t.text().to_string());
            }
            K::BLOCK | K::FN => return None,
            _ => {}
        }
    }
    None
}

fn is_type_kind(k: K) -> bool {
    matches!(k, K::PATH_TYPE | K::ARRAY_TYPE | K::POINTER_TYPE | K::MODIFIED_TYPE | K::FUNC_TYPE | K::TUPLE_TYPE)
}

/// The type written on a local's or parameter's declaration.
fn declared_type_text(decl: &SyntaxNode) -> Option<String> {
    let holder = if decl.kind() == K::DECLARATOR { decl.parent()? } else { decl.clone() };
    holder.children().find(|c| is_type_kind(c.kind())).map(|t| t.text().to_string().trim().to_string())
}

/// Completions of module names and include paths, when `line` (the line
/// up to the word being typed, trimmed) is an `import`-like declaration.
fn path_completions(db: &dyn Db, file: SourceFile, line: &str, typed: &str) -> Option<Vec<CompletionEntry>> {
    let typed = typed.trim_start();
    let as_module = if let Some(rest) = line.strip_prefix("#include") {
        if !rest.trim_start().starts_with('"') {
            return None;
        }
        false
    } else {
        let word = ["import", "__include", "implementing"].into_iter().find(|k| line.starts_with(k))?;
        !typed[word.len()..].trim_start().starts_with('"')
    };
    let here = file.path(db);
    let dir = here.rfind('/').map_or("", |i| &here[..i]);
    let ws = crate::Workspace::get(db);
    let mut roots: Vec<String> = vec![dir.to_string()];
    roots.extend(ws.search_paths(db).iter().map(|p| p.trim_end_matches('/').to_string()));
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for f in ws.files(db) {
        let path = f.path(db);
        if path == here || path.starts_with("<builtin>") {
            continue;
        }
        for root in &roots {
            let Some(rel) = path.strip_prefix(root.as_str()).and_then(|r| r.strip_prefix('/')) else { continue };
            let label = if as_module {
                let Some(stem) = rel.strip_suffix(".slang") else { continue };
                stem.replace('/', ".")
            } else {
                rel.to_string()
            };
            if seen.insert(label.clone()) {
                out.push(CompletionEntry {
                    detail: Some(path.clone()),
                    ..CompletionEntry::new(label, CompletionKind::Other, 0)
                });
            }
            break;
        }
    }
    Some(out)
}
