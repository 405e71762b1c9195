//! Ray payload access qualifiers (`float4 color : read(caller) :
//! write(closesthit, miss);`): in a `[raypayload]` struct each names a
//! ray-tracing stage among `anyhit`, `closesthit`, `miss` and `caller`
//! (the reference compiler's E40001, case-sensitive); in a struct without
//! `[raypayload]` the qualifiers are not allowed at all (E31201).

use slang_syntax::{SyntaxKind, SyntaxNode};

use crate::diagnostic::{Diagnostic, Severity};

const STAGES: &[&str] = &["anyhit", "closesthit", "miss", "caller"];

/// Checks the structs in `root` (a top-level declaration).
pub(crate) fn check(cx: &super::Cx, root: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if cx.glsl {
        return;
    }
    for s in root.descendants().filter(|n| n.kind() == SyntaxKind::STRUCT) {
        let attributes: Vec<String> = s
            .children()
            .filter(|c| c.kind() == SyntaxKind::ATTRIBUTE)
            .map(|a| a.text().to_string().trim_start_matches('[').trim_end_matches(']').trim().to_string())
            .collect();
        let payload = attributes.iter().any(|a| a == "raypayload");
        let Some(members) = s.children().find(|c| c.kind() == SyntaxKind::MEMBER_LIST) else { continue };
        for field in members.children().filter(|c| c.kind() == SyntaxKind::VAR_DECL) {
            for d in field.children().filter(|c| c.kind() == SyntaxKind::DECLARATOR) {
                for semantic in d.children().filter(|c| c.kind() == SyntaxKind::SEMANTIC) {
                    qualifier(&semantic, payload, attributes.is_empty(), out);
                }
            }
        }
    }
}

/// `: read(…)` or `: write(…)`.
fn qualifier(semantic: &SyntaxNode, payload: bool, plain: bool, out: &mut Vec<Diagnostic>) {
    let tokens: Vec<_> = semantic
        .children_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| !t.kind().is_trivia() && t.kind() != SyntaxKind::COLON)
        .collect();
    let Some(head) = tokens.first() else { return };
    if !matches!(head.text(), "read" | "write") || tokens.get(1).map(|t| t.kind()) != Some(SyntaxKind::L_PAREN) {
        return;
    }
    if payload {
        for t in tokens.iter().skip(2).filter(|t| t.kind() == SyntaxKind::IDENT) {
            if !STAGES.contains(&t.text()) {
                out.push(Diagnostic {
                    range: t.text_range(),
                    severity: Severity::Error,
                    code: "invalid-access-qualifier",
                    message: format!(
                        "`{}` is not a stage a ray payload access qualifier can name; \
                         valid stages are `anyhit`, `closesthit`, `miss` and `caller`",
                        t.text()
                    ),
                });
            }
        }
    } else if plain {
        out.push(Diagnostic {
            range: head.text_range(),
            severity: Severity::Error,
            code: "modifier-not-allowed",
            message: format!(
                "the access qualifier `{}(…)` is only allowed on a field of a `[raypayload]` struct; \
                 add `[raypayload]` to the struct or remove the qualifier",
                head.text()
            ),
        });
    }
}
