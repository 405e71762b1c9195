//! Arrays of types that have no address: a `ParameterBlock`, an unbounded
//! array (`int a[]`), and a struct that holds one of them (directly or in
//! a field's struct). The reference compiler rejects an array of such a
//! type, and a `StructuredBuffer` of one.

use std::collections::HashMap;

use slang_syntax::{SyntaxKind, SyntaxNode};

use crate::diagnostic::{Diagnostic, Severity};
use crate::hir::DefId;
use crate::name_res::global_scope;
use crate::{parse, Db, SourceFile};

/// A struct that may hold something without an address: its name, and
/// for each non-static field declaration with a type, the type as written
/// and each declarator's name and whether it is an unbounded array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructFields {
    name: String,
    fields: Vec<(String, Vec<(String, bool)>)>,
}

/// The non-generic structs at module or namespace scope in `root` (a
/// top-level declaration) with their fields.
fn collect_structs(root: &SyntaxNode, out: &mut Vec<StructFields>) {
    for node in root.descendants().filter(|n| n.kind() == SyntaxKind::STRUCT) {
        let top = match node.parent() {
            // The root of a top-level declaration's own tree.
            None => true,
            Some(p) => {
                p.kind() == SyntaxKind::SOURCE_FILE
                    || (p.kind() == SyntaxKind::MEMBER_LIST
                        && p.parent().is_some_and(|g| g.kind() == SyntaxKind::NAMESPACE))
            }
        };
        if !top || node.children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST) {
            continue;
        }
        let Some(name) = node.children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| n.text().to_string()) else {
            continue;
        };
        let mut fields = Vec::new();
        if let Some(members) = node.children().find(|c| c.kind() == SyntaxKind::MEMBER_LIST) {
            for field in members.children().filter(|c| c.kind() == SyntaxKind::VAR_DECL) {
                if has_token(&field, SyntaxKind::STATIC_KW) {
                    continue;
                }
                let Some(ty) = field.children().find(|c| is_type_kind(c.kind())) else { continue };
                let declarators = field
                    .children()
                    .filter(|c| c.kind() == SyntaxKind::DECLARATOR)
                    .map(|d| {
                        let field_name =
                            d.children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| n.text().to_string());
                        (field_name.unwrap_or_default(), array_suffixes(&d).iter().any(|s| s.is_none()))
                    })
                    .collect();
                fields.push((ty.text().to_string(), declarators));
            }
        }
        out.push(StructFields { name, fields });
    }
}

/// The structs of one top-level declaration (see [`collect_structs`]).
#[salsa::tracked(returns(ref))]
fn decl_structs(db: &dyn Db, def: DefId) -> Vec<StructFields> {
    let mut out = Vec::new();
    if let Some(node) = crate::hir::decl_syntax(db, def) {
        collect_structs(&node, &mut out);
    }
    out
}

/// Why each of the file's structs (whose name means only it) has no
/// address, for those that have none.
#[salsa::tracked(returns(ref))]
pub fn non_addressable_structs(db: &dyn Db, file: SourceFile) -> HashMap<String, String> {
    let root = parse(db, file).syntax_node();
    let top = super::top_level_decls(db, file);
    let mut all = Vec::new();
    for child in root.children() {
        match top.as_ref().and_then(|t| t.get(&child.text_range())).filter(|(kind, _)| *kind == child.kind()) {
            Some(&(_, index)) => all.extend(decl_structs(db, DefId::new(db, file, index)).iter().cloned()),
            None => collect_structs(&child, &mut all),
        }
    }
    let scope = global_scope(db, file);
    let is_core = |name: &str| scope.means_core(name);
    // By name (the last of a name wins), in the order of the file.
    let mut structs: Vec<StructFields> = Vec::new();
    for s in all {
        let unique = scope.names.get(&s.name).is_some_and(|d| d.len() == 1 && d[0].file == file);
        if !unique || scope.macros.contains(&s.name) {
            continue;
        }
        match structs.iter_mut().find(|t| t.name == s.name) {
            Some(t) => *t = s,
            None => structs.push(s),
        }
    }
    // Why each struct has no address, to a fixed point.
    let mut why: HashMap<String, String> = HashMap::new();
    loop {
        let mut changed = false;
        for s in &structs {
            if why.contains_key(&s.name) {
                continue;
            }
            for (ty, declarators) in &s.fields {
                for (field_name, unbounded) in declarators {
                    let held = if *unbounded {
                        Some("an unbounded array".to_string())
                    } else {
                        non_addressable(ty, &why, &is_core).map(|_| format!("`{ty}`"))
                    };
                    if let Some(held) = held {
                        why.insert(s.name.clone(), format!("holds {held} in field `{field_name}`"));
                        changed = true;
                        break;
                    }
                }
                if why.contains_key(&s.name) {
                    break;
                }
            }
        }
        if !changed {
            break;
        }
    }
    why
}

/// Checks `root` (a top-level declaration) and what it contains.
pub(crate) fn check(cx: &super::Cx, root: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if cx.glsl {
        return;
    }
    let why = non_addressable_structs(cx.db, cx.file);
    // A name that means the core module's declaration (not the file's own
    // or a macro).
    let is_core = |name: &str| cx.scope.means_core(name);
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
                non_addressable(&ty.text().to_string(), why, &is_core)
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
    if why.is_empty() {
        return;
    }
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
}

/// Why a field or variable type (as written) has no address, if it has
/// none.
fn non_addressable(text: &str, why: &HashMap<String, String>, is_core: &dyn Fn(&str) -> bool) -> Option<String> {
    let head = text.split('<').next().unwrap_or("").trim();
    if head == "ParameterBlock" && text.contains('<') && is_core("ParameterBlock") {
        return Some(format!("its elements are parameter blocks (`{}`)", text.split_whitespace().collect::<String>()));
    }
    if text.contains('<') {
        return None;
    }
    // (Only the file's structs have a reason.)
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
