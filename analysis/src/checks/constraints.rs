//! Generic constraints that name a type that is not an interface:
//! `<T : Foo>` or `where T : int` with `Foo` a struct, class or enum, or
//! a built-in scalar (often meant as a value parameter, `let N : int`).

use slang_syntax::{SyntaxKind, SyntaxNode};

use crate::diagnostic::{Diagnostic, Severity};
use crate::item_tree::ItemKind;

/// Checks `root` (a top-level declaration) and what it contains.
pub(crate) fn check(cx: &super::Cx, root: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if cx.glsl {
        return;
    }
    let scope = cx.scope;
    let core = scope.core.clone();
    for node in root.descendants() {
        let (param, constraint) = match node.kind() {
            SyntaxKind::GENERIC_TYPE_PARAM => {
                // `T : I` (a value parameter has `let`; `T = D` a default).
                let mut after_colon = false;
                let mut ty = None;
                for e in node.children_with_tokens() {
                    match e.kind() {
                        SyntaxKind::COLON => after_colon = true,
                        SyntaxKind::EQ => break,
                        _ if after_colon && ty.is_none() => {
                            if let Some(n) = e.into_node() {
                                ty = Some(n);
                            }
                        }
                        _ => {}
                    }
                }
                (Some(node.clone()), ty)
            }
            SyntaxKind::WHERE_PRED => {
                if let Some(d) = nonempty_target(&node, &scope.macros) {
                    out.push(d);
                    continue;
                }
                if !node.children_with_tokens().any(|e| e.kind() == SyntaxKind::COLON) {
                    continue;
                }
                (None, node.children().filter(|c| c.kind() == SyntaxKind::PATH_TYPE).nth(1))
            }
            _ => continue,
        };
        let Some(ty) = constraint else { continue };
        let Some(name) = simple_name(&ty) else { continue };
        if scope.macros.contains(&name) || declared_nearby(&node, &name) {
            continue;
        }
        let (defs, is_core) = match scope.names.get(&name) {
            Some(d) => (d, false),
            None => match core.as_ref().and_then(|c| c.names.get(&name)) {
                Some(d) => (d, true),
                None => continue,
            },
        };
        if defs.is_empty()
            || !defs.iter().all(|d| matches!(d.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Enum))
        {
            continue;
        }
        let scalar = is_core
            && matches!(
                name.as_str(),
                "int" | "uint" | "bool" | "int8_t" | "uint8_t" | "int16_t" | "uint16_t" | "int64_t" | "uint64_t"
            );
        let what = if is_core { "a built-in type" } else { "not an interface" };
        let mut message = format!("type `{name}` cannot be used as a constraint: it is {what}");
        if let (true, Some(p)) = (scalar, &param) {
            let pname = p.children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| n.text().to_string());
            let each = p.children_with_tokens().any(|e| e.kind() == SyntaxKind::EACH_KW);
            if let Some(pname) = pname {
                let kw = if each { "let each" } else { "let" };
                message.push_str(&format!("; to declare a generic value parameter, write `{kw} {pname} : {name}`"));
            }
        } else {
            message.push_str("; constrain by an interface the type conforms to");
        }
        out.push(Diagnostic { range: ty.text_range(), severity: Severity::Error, code: "invalid-constraint", message });
    }
}

/// `where nonempty(P)`: `P` must be a pack parameter (`each T`, `let each
/// D : int`) of the declaration the clause belongs to.
fn nonempty_target(pred: &SyntaxNode, macros: &std::collections::HashSet<String>) -> Option<Diagnostic> {
    let call = pred.children().find(|c| c.kind() == SyntaxKind::CALL_EXPR)?;
    let callee = call.children().find(|c| c.kind() == SyntaxKind::PATH_EXPR)?;
    if callee.text() != "nonempty" {
        return None;
    }
    let args: Vec<SyntaxNode> = call.children().find(|c| c.kind() == SyntaxKind::ARG_LIST)?.children().collect();
    let [arg] = args.as_slice() else { return None };
    let name = arg.text().to_string();
    let is_name = arg.kind() == SyntaxKind::PATH_EXPR && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if is_name && macros.contains(&name) {
        return None;
    }
    let decl = pred.parent().filter(|c| c.kind() == SyntaxKind::WHERE_CLAUSE)?.parent()?;
    let pack_of = |d: &SyntaxNode| {
        d.children().filter(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST).flat_map(|l| l.children()).any(|p| {
            p.children_with_tokens().any(|e| e.kind() == SyntaxKind::EACH_KW)
                && p.children().any(|n| n.kind() == SyntaxKind::NAME && n.text() == name.as_str())
        })
    };
    if is_name && pack_of(&decl) {
        return None;
    }
    let message = if is_name && decl.ancestors().skip(1).any(|a| pack_of(&a)) {
        "`nonempty(...)` target must be a generic pack parameter declared in the current generic"
    } else {
        "`nonempty(...)` requires a generic type pack or value pack parameter"
    };
    Some(Diagnostic {
        range: arg.text_range(),
        severity: Severity::Error,
        code: "invalid-constraint",
        message: message.to_string(),
    })
}

/// The name of a path type that is one identifier (`Foo`, not `A.B`,
/// `A::B` or `G<T>`).
fn simple_name(ty: &SyntaxNode) -> Option<String> {
    if ty.kind() != SyntaxKind::PATH_TYPE {
        return None;
    }
    let mut toks = ty.descendants_with_tokens().filter_map(|e| e.into_token()).filter(|t| !t.kind().is_trivia());
    let first = toks.next()?;
    if first.kind() != SyntaxKind::IDENT || toks.next().is_some() {
        return None;
    }
    Some(first.text().to_string())
}

/// Whether an enclosing declaration has a generic parameter or a member
/// of that name (it would hide the module's declaration).
pub(crate) fn declared_nearby(at: &SyntaxNode, name: &str) -> bool {
    at.ancestors().any(|a| {
        a.children().any(|c| match c.kind() {
            SyntaxKind::GENERIC_PARAM_LIST => {
                c.children().any(|p| p.children().any(|n| n.kind() == SyntaxKind::NAME && n.text() == name))
            }
            SyntaxKind::MEMBER_LIST | SyntaxKind::BLOCK => {
                c.children().any(|m| m.children().any(|n| n.kind() == SyntaxKind::NAME && n.text() == name))
            }
            _ => false,
        })
    })
}
