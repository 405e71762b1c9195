//! Checks of declarations that need no types: names declared twice in one
//! scope (types, fields and globals, enum cases, parameters, functions
//! with the same parameters), and unknown system-value semantics.

use std::collections::HashMap;

use slang_syntax::ast::{self, AstNode, HasName};
use slang_syntax::{SyntaxKind, SyntaxNode, TextRange};

use crate::diagnostic::{Diagnostic, Severity};
use crate::item_tree::{item_source_map, item_tree, Item, ItemKind};
use crate::{parse, Db, SourceFile};

#[salsa::tracked(returns(ref))]
pub fn decl_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let tree = item_tree(db, file);
    let map = item_source_map(db, file);
    let root = parse(db, file).syntax_node();
    let node_of = |item: &Item| map.get(item.ast_index as usize).map(|p| p.to_node(&root));
    let mut out = Vec::new();
    check_scope(&tree.items, &node_of, &mut out);
    for item in tree.walk() {
        if item.kind.has_member_scope() || item.kind == ItemKind::Enum {
            check_scope(&item.members, &node_of, &mut out);
        }
        if matches!(item.kind, ItemKind::Fn | ItemKind::Init | ItemKind::Subscript) {
            if let Some(node) = node_of(item) {
                check_params(&node, &mut out);
            }
        }
    }
    // Semantics sit on declarations, never inside function bodies: skip
    // those (most of a file).
    let mut walk = root.preorder();
    while let Some(event) = walk.next() {
        if let slang_syntax::WalkEvent::Enter(node) = event {
            match node.kind() {
                SyntaxKind::BLOCK => walk.skip_subtree(),
                SyntaxKind::SEMANTIC => check_semantic(&node, &mut out),
                SyntaxKind::PATH_TYPE if !tree.has_item_macros => {
                    if let crate::hir::TypeRef::Path(segs) =
                        crate::hir::lower_type(slang_syntax::ast::Type::cast(node.clone()))
                    {
                        if let Some(why) = crate::infer::generic_arity_problem(db, file, &segs) {
                            out.push(Diagnostic {
                                range: node.text_range(),
                                severity: Severity::Error,
                                code: "generic-arguments",
                                message: why,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

fn name_range(node: &SyntaxNode) -> TextRange {
    node.children().find(|c| c.kind() == SyntaxKind::NAME).map_or(node.text_range(), |n| n.text_range())
}

/// Whether a declaration is a definition (has a body), so that a second
/// one with the same name conflicts (a prototype or forward declaration
/// does not).
fn is_definition(node: &SyntaxNode) -> bool {
    node.children().any(|c| matches!(c.kind(), SyntaxKind::BLOCK | SyntaxKind::MEMBER_LIST | SyntaxKind::ENUM_BODY))
        || matches!(
            node.kind(),
            SyntaxKind::TYPEALIAS | SyntaxKind::TYPEDEF | SyntaxKind::DECLARATOR | SyntaxKind::ENUM_CASE
        )
}

/// The parameter types of a function, as written.
fn param_types(node: &SyntaxNode) -> Vec<String> {
    node.children()
        .find_map(ast::ParamList::cast)
        .map(|l| {
            l.params()
                .map(|p| p.ty().map(|t| t.syntax().text().to_string().split_whitespace().collect()).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}

/// A definition already met: its kind class, and a function's parameter
/// types.
type Seen = (u8, Option<Vec<String>>);

fn check_scope(items: &[Item], node_of: &dyn Fn(&Item) -> Option<SyntaxNode>, out: &mut Vec<Diagnostic>) {
    // name → (kind class, function parameter types) of the definitions seen.
    let mut seen: HashMap<(&str, u32), Vec<Seen>> = HashMap::new();
    for item in items {
        let Some(name) = item.name.as_deref() else { continue };
        let class = match item.kind {
            ItemKind::Struct
            | ItemKind::Class
            | ItemKind::Enum
            | ItemKind::Interface
            | ItemKind::Typealias
            | ItemKind::Typedef => 0,
            ItemKind::Var | ItemKind::EnumCase => 1,
            ItemKind::Fn => 2,
            _ => continue,
        };
        let Some(node) = node_of(item) else { continue };
        if !is_definition(&node) {
            continue;
        }
        // (Overloads may differ in their generic parameters only:
        // `float read()` and `vector<float, N> read<let N : int>()`, or
        // in their constraints, `where` clauses included; and versions
        // `__specialized_for_target` different targets are not
        // redefinitions.)
        let params = (class == 2).then(|| {
            let mut p = param_types(&node);
            for c in node.children() {
                if matches!(
                    c.kind(),
                    SyntaxKind::GENERIC_PARAM_LIST | SyntaxKind::WHERE_CLAUSE | SyntaxKind::MODIFIER_CALL
                ) {
                    p.push(c.text().to_string().split_whitespace().collect());
                }
            }
            p
        });
        let entry = seen.entry((name, item.file_decl)).or_default();
        let conflict = entry.iter().any(|(c, p)| match (class, *c) {
            // Overloads differ in their parameters.
            (2, 2) => p.as_ref() == params.as_ref(),
            (a, b) => a == b || (a != 2 && b != 2),
        });
        if conflict {
            let message = if class == 2 {
                format!("`{name}` is already defined with the same parameters")
            } else {
                format!("`{name}` is already declared in this scope")
            };
            out.push(Diagnostic { range: name_range(&node), severity: Severity::Error, code: "redefinition", message });
        }
        entry.push((class, params));
    }
}

fn check_params(node: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    let Some(list) = node.children().find_map(ast::ParamList::cast) else { return };
    let mut names: Vec<String> = Vec::new();
    for p in list.params() {
        let Some(n) = p.name() else { continue };
        let name = n.text();
        if names.contains(&name) {
            out.push(Diagnostic {
                range: n.syntax().text_range(),
                severity: Severity::Error,
                code: "redefinition",
                message: format!("parameter `{name}` is declared twice"),
            });
        }
        names.push(name);
    }
}

/// System-value semantics the reference compiler knows (lower case, digits
/// stripped).
const SYSTEM_VALUES: &[&str] = &[
    "sv_position",
    "sv_target",
    "sv_depth",
    "sv_depthgreaterequal",
    "sv_depthlessequal",
    "sv_coverage",
    "sv_innercoverage",
    "sv_stencilref",
    "sv_dispatchthreadid",
    "sv_groupid",
    "sv_groupthreadid",
    "sv_groupindex",
    "sv_vertexid",
    "sv_instanceid",
    "sv_primitiveid",
    "sv_isfrontface",
    "sv_sampleindex",
    "sv_clipdistance",
    "sv_culldistance",
    "sv_rendertargetarrayindex",
    "sv_viewportarrayindex",
    "sv_tessfactor",
    "sv_insidetessfactor",
    "sv_raypayload",
    "sv_intersectionattributes",
    "sv_domainlocation",
    "sv_outputcontrolpointid",
    "sv_gsinstanceid",
    "sv_barycentrics",
    "sv_shadingrate",
    "sv_viewid",
    "sv_cullprimitive",
    "sv_pointsize",
    "sv_pointcoord",
    "sv_drawindex",
    "sv_startvertexlocation",
    "sv_startinstancelocation",
    "sv_vulkanvertexid",
    "sv_vulkaninstanceid",
    "sv_vulkansamplepositions",
    "sv_fragsize",
    "sv_fraginvocationcount",
    "sv_devicedindex",
    "sv_deviceindex",
    "sv_instancecount",
    "sv_baseinstance",
    "sv_basevertex",
    "sv_viewportmaskarray",
    "sv_workgroupsize",
];

fn check_semantic(node: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    let Some(tok) = node.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == SyntaxKind::IDENT)
    else {
        return;
    };
    let text = tok.text().to_ascii_lowercase();
    if !text.starts_with("sv_") {
        return;
    }
    let base = text.trim_end_matches(|c: char| c.is_ascii_digit());
    if !SYSTEM_VALUES.contains(&base) {
        out.push(Diagnostic {
            range: tok.text_range(),
            severity: Severity::Error,
            code: "unknown-semantic",
            message: format!("unknown system-value semantic `{}`", tok.text()),
        });
    }
}

/// Local arrays whose length reads a runtime value (a parameter, a
/// non-constant local or global, a constant-buffer field): the reference
/// compiler needs a compile-time constant. Ranges are relative to the
/// function's start; tracked per function.
#[salsa::tracked(returns(ref))]
pub fn runtime_array_lengths(db: &dyn Db, def: crate::hir::DefId) -> Vec<(TextRange, String)> {
    let mut out = Vec::new();
    let Some(local) = crate::hir::decl_syntax(db, def) else { return out };
    let Some(body) = local.children().find(|c| c.kind() == SyntaxKind::BLOCK) else { return out };
    let file = def.file(db);
    let tree = item_tree(db, file);
    let params: Vec<String> = crate::infer::fn_sig(db, def).params.iter().filter_map(|p| p.name.clone()).collect();
    // Locals that may change (not `const`/`static const`; `constexpr`,
    // which the reference compiler warns about, is taken as `const`).
    let mutable_locals: Vec<String> = body
        .descendants()
        .filter(|n| n.kind() == SyntaxKind::VAR_DECL)
        .filter(|v| {
            !v.children_with_tokens().any(|e| matches!(e.kind(), SyntaxKind::CONST_KW | SyntaxKind::CONSTEXPR_KW))
        })
        .flat_map(|v| v.children().filter(|c| c.kind() == SyntaxKind::DECLARATOR).collect::<Vec<_>>())
        .filter_map(|d| d.children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| n.text().to_string()))
        .collect();
    let scope = crate::name_res::global_scope(db, file);
    for suffix in body.descendants().filter(|n| n.kind() == SyntaxKind::ARRAY_SUFFIX) {
        let Some(size) = suffix.children().find(|c| ast::Expr::can_cast(c.kind())) else { continue };
        for tok in size.descendants_with_tokens().filter_map(|e| e.into_token()) {
            if tok.kind() != SyntaxKind::IDENT || tree.macros.iter().any(|m| m == tok.text()) {
                continue;
            }
            // `sizeof(a)` reads only the type of `a`.
            if tok.parent_ancestors().any(|n| n.kind() == SyntaxKind::SIZEOF_EXPR) {
                continue;
            }
            let name = tok.text();
            let runtime = params.iter().any(|p| p == name)
                || mutable_locals.iter().any(|l| l == name)
                || scope.lookup(name).and_then(|d| d.first()).is_some_and(|d| {
                    d.kind == ItemKind::Var
                        && crate::infer::item_of(db, crate::hir::DefId::new(db, d.file, d.ast_index))
                            .is_some_and(|i| !i.modifiers.contains(&crate::item_tree::Modifier::Const))
                });
            if runtime {
                out.push((
                    size.text_range(),
                    format!("an array length must be a compile-time constant, but `{name}` is only known at run time"),
                ));
                break;
            }
        }
    }
    out
}
