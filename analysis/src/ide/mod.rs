//! IDE features as plain functions returning plain data (no LSP types):
//! what a name at a position refers to, hover text, definitions,
//! document symbols and completions. The server maps them to LSP.

use slang_syntax::{SyntaxKind as K, SyntaxNode, SyntaxToken, TextRange, TextSize};

use crate::autodiff::{self, Mode};
use crate::hir::{def_node, DefId};
use crate::infer::{item_of, lookup_member, parent_of, Member};
use crate::item_tree::{Item, ItemKind};
use crate::ty::Ty;
use crate::{parse, Db, SourceFile};

pub mod inlay;
pub mod signature_help;
pub mod tokens;

pub use inlay::{inlay_hints, InlayConfig, InlayHint, InlayKind};
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
fn ident_at(root: &SyntaxNode, offset: TextSize) -> Option<SyntaxToken> {
    let tokens = root.token_at_offset(offset);
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

/// The locals and parameters visible at `offset` inside `at`, closest
/// first (syntactically: declarations earlier in enclosing blocks, `for`
/// initializers, the enclosing function's parameters): (name, declaration)
/// nodes. Shadowed names appear more than once; the first wins.
fn visible_locals(at: &SyntaxNode, offset: TextSize) -> Vec<(SyntaxNode, SyntaxNode)> {
    let mut out = Vec::new();
    for anc in at.ancestors() {
        match anc.kind() {
            K::BLOCK | K::FOR_STMT => {
                let stmts: Vec<SyntaxNode> =
                    anc.children().filter(|s| s.kind() == K::VAR_DECL && s.text_range().start() < offset).collect();
                for stmt in stmts.iter().rev() {
                    let decls: Vec<SyntaxNode> = stmt.children().filter(|c| c.kind() == K::DECLARATOR).collect();
                    for d in decls.iter().rev() {
                        if let Some(n) = d.children().find(|c| c.kind() == K::NAME) {
                            if n.text_range().end() <= offset {
                                out.push((n, d.clone()));
                            }
                        }
                    }
                }
            }
            K::FN => {
                if let Some(params) = anc.children().find(|c| c.kind() == K::PARAM_LIST) {
                    for p in params.children().filter(|c| c.kind() == K::PARAM) {
                        if let Some(n) = p.children().find(|c| c.kind() == K::NAME) {
                            out.push((n, p.clone()));
                        }
                    }
                }
                break;
            }
            _ => {}
        }
    }
    out
}

/// The local or parameter named `name` visible at `at`.
fn find_local(at: &SyntaxNode, name: &str, offset: TextSize) -> Option<(SyntaxNode, SyntaxNode)> {
    visible_locals(at, offset).into_iter().find(|(n, _)| n.text() == name)
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

/// What the identifier at `offset` refers to.
pub fn definitions_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<Definition> {
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
                if let Some((n, decl)) = find_local(&parent, &name, tok.text_range().start()) {
                    return vec![Definition::Local { file, name_range: n.text_range(), decl: decl.text_range(), name }];
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
            for anc in parent.ancestors() {
                if let Some(list) = anc.children().find(|c| c.kind() == K::GENERIC_PARAM_LIST) {
                    for g in list.children() {
                        if let Some(n) = g.children().find(|c| c.kind() == K::NAME) {
                            if n.text() == name.as_str() {
                                return vec![Definition::Local {
                                    file,
                                    name_range: n.text_range(),
                                    decl: g.text_range(),
                                    name,
                                }];
                            }
                        }
                    }
                }
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
    crate::infer::file_functions(db, file)
        .iter()
        .copied()
        .filter(|&f| def_node(db, f).is_some_and(|n| n.text_range().contains(offset)))
        .min_by_key(|&f| def_node(db, f).map(|n| n.text_range().len()))
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
                name: item_of(db, *d).and_then(|i| i.name).unwrap_or_default(),
            })
        }
        Definition::Local { file, name_range, decl, name } => {
            Some(NavTarget { file: *file, full_range: *decl, focus_range: *name_range, name: name.clone() })
        }
    }
}

/// Go to definition.
pub fn goto_definition(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<NavTarget> {
    definitions_at(db, file, offset).iter().filter_map(|d| nav_target(db, d)).collect()
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
        if let Some(pn) = parent.name {
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
                .attrs
                .iter()
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
    let defs = definitions_at(db, file, offset);
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
                let text = match use_ty {
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
}

const KEYWORDS: &[&str] = &[
    "if",
    "else",
    "for",
    "while",
    "do",
    "return",
    "break",
    "continue",
    "switch",
    "case",
    "default",
    "struct",
    "interface",
    "extension",
    "import",
    "module",
    "implementing",
    "typealias",
    "let",
    "var",
    "const",
    "static",
    "in",
    "out",
    "inout",
    "uniform",
    "no_diff",
    "fwd_diff",
    "bwd_diff",
    "detach",
    "public",
    "internal",
    "private",
    "namespace",
    "enum",
    "true",
    "false",
    "this",
    "This",
    "void",
    "float",
    "int",
    "uint",
    "bool",
    "half",
    "double",
    "float2",
    "float3",
    "float4",
    "float4x4",
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
        ItemKind::Var => CompletionKind::Field,
        k if k.is_type() => CompletionKind::Type,
        _ => CompletionKind::Other,
    }
}

/// Members of a type, for completion after `.`.
fn member_completions(db: &dyn Db, file: SourceFile, ty: &Ty, out: &mut Vec<CompletionEntry>) {
    let entry = |label: &str, kind, detail: Option<String>| CompletionEntry {
        label: label.to_string(),
        kind,
        detail,
        snippet: None,
        rank: 0,
    };
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
                    out.push(entry(n, kind, detail));
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

/// Completions at `offset`.
pub fn completions(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<CompletionEntry> {
    let root = parse(db, file).syntax_node();
    let text = file.text(db);
    let upto = &text[..usize::from(offset).min(text.len())];
    let before_word = upto.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
    let mut out = Vec::new();
    // After `.`: members of the receiver's type.
    if before_word.ends_with('.') {
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
    // Inside `[…]` before a declaration or statement: attributes.
    let line_start = before_word.rfind('\n').map_or(0, |i| i + 1);
    let line = before_word[line_start..].trim_start();
    if line.starts_with('[') && !line.contains(']') && !line.contains('(') {
        for (name, snippet) in ATTRIBUTES {
            out.push(CompletionEntry {
                label: name.to_string(),
                kind: CompletionKind::Attribute,
                detail: None,
                snippet: snippet.map(|s| s.to_string()),
                rank: 0,
            });
        }
        return out;
    }
    // Locals and parameters in scope (closest first).
    if let Some(at) = root.token_at_offset(offset).left_biased().and_then(|t| t.parent()) {
        let mut seen = std::collections::HashSet::new();
        for (n, decl) in visible_locals(&at, offset) {
            let name = n.text().to_string();
            if seen.insert(name.clone()) {
                let detail = match decl.kind() {
                    K::PARAM => decl.text().to_string().split_whitespace().collect::<Vec<_>>().join(" "),
                    _ => declaration_text(&decl),
                };
                out.push(CompletionEntry {
                    label: name,
                    kind: CompletionKind::Local,
                    detail: Some(detail),
                    snippet: None,
                    rank: 0,
                });
            }
        }
    }
    // Members of the enclosing type (implicit `this`).
    if let Some(f) = enclosing_item(db, file, offset) {
        if let Some(p) = parent_of(db, f) {
            let this = Ty::Adt { def: p, name: String::new(), args: Vec::new() };
            let mut members = Vec::new();
            member_completions(db, file, &this, &mut members);
            for mut m in members {
                m.rank = 1;
                out.push(m);
            }
        }
    }
    // Module and imported names, then the core module's.
    let scope = crate::name_res::global_scope(db, file);
    let core = scope.core.as_ref().map(|c| &c.names);
    for (names, rank) in [(Some(&scope.names), 2), (core, 3)] {
        for (name, defs) in names.into_iter().flatten() {
            // The core module's internal names (`__…`) are not offered.
            let Some(d) = defs.first().filter(|_| rank == 2 || !name.starts_with('_')) else { continue };
            out.push(CompletionEntry {
                label: name.clone(),
                kind: kind_of_item(d.kind),
                detail: None,
                snippet: None,
                rank,
            });
        }
    }
    for k in KEYWORDS {
        out.push(CompletionEntry {
            label: k.to_string(),
            kind: CompletionKind::Keyword,
            detail: None,
            snippet: None,
            rank: 4,
        });
    }
    out
}
