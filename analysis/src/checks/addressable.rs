//! Arrays of types that have no address: a `ParameterBlock`, an unbounded
//! array (`int a[]`), and a struct that holds one of them (directly or in
//! a field's struct). The reference compiler rejects an array of such a
//! type, and a `StructuredBuffer` of one.

use std::collections::HashMap;

use slang_syntax::{SyntaxKind, SyntaxNode};

use crate::diagnostics::{Diagnostic, Severity};
use crate::name_res::global_scope;
use crate::{parse, Db, SourceFile};

#[salsa::tracked(returns(ref))]
pub fn addressable_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let parse = parse(db, file);
    let root = parse.syntax_node();
    if *crate::name_res::is_glsl_file(db, file) {
        return out;
    }
    let scope = global_scope(db, file);
    // A name that means the core module's declaration (not the file's own
    // or a macro).
    let is_core = |name: &str| scope.means_core(name);
    // The file's non-generic structs whose name means only them.
    let mut structs: HashMap<String, SyntaxNode> = HashMap::new();
    for node in root.descendants().filter(|n| n.kind() == SyntaxKind::STRUCT) {
        let top = node.parent().is_some_and(|p| {
            p.kind() == SyntaxKind::SOURCE_FILE
                || (p.kind() == SyntaxKind::MEMBER_LIST
                    && p.parent().is_some_and(|g| g.kind() == SyntaxKind::NAMESPACE))
        });
        if !top || node.children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST) {
            continue;
        }
        let Some(name) = node.children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| n.text().to_string()) else {
            continue;
        };
        let unique = scope.names.get(&name).is_some_and(|d| d.len() == 1 && d[0].file == file);
        if unique && !scope.macros.contains(&name) {
            structs.insert(name, node);
        }
    }
    // Why each struct has no address, to a fixed point.
    let mut why: HashMap<String, String> = HashMap::new();
    loop {
        let mut changed = false;
        for (name, node) in &structs {
            if why.contains_key(name) {
                continue;
            }
            let Some(members) = node.children().find(|c| c.kind() == SyntaxKind::MEMBER_LIST) else { continue };
            for field in members.children().filter(|c| c.kind() == SyntaxKind::VAR_DECL) {
                if has_token(&field, SyntaxKind::STATIC_KW) {
                    continue;
                }
                let Some(ty) = field.children().find(|c| is_type_kind(c.kind())) else { continue };
                for d in field.children().filter(|c| c.kind() == SyntaxKind::DECLARATOR) {
                    let suffixes = array_suffixes(&d);
                    let field_name = d.children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| n.text().to_string());
                    let field_name = field_name.unwrap_or_default();
                    let held = if suffixes.iter().any(|s| s.is_none()) {
                        Some("an unbounded array".to_string())
                    } else {
                        non_addressable(&ty, &structs, &why, &is_core).map(|_| format!("`{}`", ty.text()))
                    };
                    if let Some(held) = held {
                        why.insert(name.clone(), format!("holds {held} in field `{field_name}`"));
                        changed = true;
                        break;
                    }
                }
                if why.contains_key(name) {
                    break;
                }
            }
        }
        if !changed {
            break;
        }
    }
    for decl in root.descendants().filter(|n| n.kind() == SyntaxKind::VAR_DECL) {
        // Variables and fields, not parameters or type aliases.
        let Some(ty) = decl.children().find(|c| is_type_kind(c.kind())) else { continue };
        if generic_param_in_scope(&decl, &ty) {
            continue;
        }
        for d in decl.children().filter(|c| c.kind() == SyntaxKind::DECLARATOR) {
            let suffixes = array_suffixes(&d);
            if suffixes.is_empty() {
                continue;
            }
            // `T a[2][]`: an array of `T[]`.
            let reason = if suffixes[1..].iter().any(|s| s.is_none()) {
                Some(format!("its elements are unbounded arrays (`{}[]`)", ty.text()))
            } else {
                non_addressable(&ty, &structs, &why, &is_core)
            };
            let Some(reason) = reason else { continue };
            let Some(name) = d.children().find(|c| c.kind() == SyntaxKind::NAME) else { continue };
            out.push(Diagnostic {
                range: name.text_range(),
                severity: Severity::Error,
                code: "non-addressable-array",
                message: format!(
                    "`{}` cannot be an array: {reason}, which has no address; \
                     declare separate variables, or keep the parameter block or unbounded array out of the struct",
                    name.text()
                ),
            });
        }
    }
    // `StructuredBuffer<S>` of such a struct.
    for ty in root.descendants().filter(|n| n.kind() == SyntaxKind::PATH_TYPE) {
        let text = ty.text().to_string();
        let Some((head, rest)) = text.split_once('<') else { continue };
        let head = head.trim();
        if !matches!(head, "StructuredBuffer" | "RWStructuredBuffer") || !is_core(head) {
            continue;
        }
        let arg = rest.trim_end().trim_end_matches('>').trim();
        let Some(reason) = why.get(arg) else { continue };
        if generic_param_in_scope(&ty, &ty) {
            continue;
        }
        out.push(Diagnostic {
            range: ty.text_range(),
            severity: Severity::Error,
            code: "non-addressable-array",
            message: format!(
                "`{arg}` cannot be the element of a `{head}`: it {reason}, which has no address; \
                 keep the parameter block or unbounded array out of the struct"
            ),
        });
    }
    out
}

/// Why a field or variable type has no address, if it has none.
fn non_addressable(
    ty: &SyntaxNode,
    structs: &HashMap<String, SyntaxNode>,
    why: &HashMap<String, String>,
    is_core: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let text = ty.text().to_string();
    let head = text.split('<').next().unwrap_or("").trim();
    if head == "ParameterBlock" && text.contains('<') && is_core("ParameterBlock") {
        return Some(format!("its elements are parameter blocks (`{}`)", text.split_whitespace().collect::<String>()));
    }
    if text.contains('<') || !structs.contains_key(head) {
        return None;
    }
    why.get(head).map(|r| format!("its element type, struct `{head}`, {r}"))
}

/// Each `[N]` of a declarator: `Some(())` with a length, `None` unbounded.
fn array_suffixes(d: &SyntaxNode) -> Vec<Option<()>> {
    d.children().filter(|c| c.kind() == SyntaxKind::ARRAY_SUFFIX).map(|s| s.children().next().map(|_| ())).collect()
}

/// Whether a generic parameter of an enclosing declaration has the
/// type's name (then it is not the struct of that name).
fn generic_param_in_scope(at: &SyntaxNode, ty: &SyntaxNode) -> bool {
    let text = ty.text().to_string();
    let head = text.split('<').next().unwrap_or("").trim().to_string();
    at.ancestors().any(|a| {
        a.children()
            .filter(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST)
            .any(|l| l.descendants().filter(|n| n.kind() == SyntaxKind::NAME).any(|n| n.text() == head.as_str()))
    })
}

fn has_token(node: &SyntaxNode, kind: SyntaxKind) -> bool {
    node.children_with_tokens().any(|e| e.kind() == kind)
}

fn is_type_kind(kind: SyntaxKind) -> bool {
    <slang_syntax::ast::Type as slang_syntax::ast::AstNode>::can_cast(kind)
}
