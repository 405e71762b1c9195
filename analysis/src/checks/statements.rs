//! Statements the reference compiler rejects on their own: an assignment
//! used as the condition of an `if` or a loop without parentheses around
//! it (E30057), and a `switch` with two `case`s of the same name or
//! character (E30605).

use std::collections::HashMap;

use slang_syntax::{NodeOrToken, SyntaxKind, SyntaxNode};

use crate::diagnostic::{Diagnostic, Severity};

/// Checks `root` (a top-level declaration) and what it contains.
pub(crate) fn check(cx: &super::Cx, root: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if cx.glsl {
        return;
    }
    for node in root.descendants() {
        match node.kind() {
            SyntaxKind::IF_STMT | SyntaxKind::WHILE_STMT | SyntaxKind::DO_WHILE_STMT | SyntaxKind::FOR_STMT => {
                if let Some(cond) = condition(&node).filter(is_plain_assignment) {
                    out.push(Diagnostic {
                        range: cond.text_range(),
                        severity: Severity::Error,
                        code: "assignment-in-condition",
                        message: "an assignment cannot be a condition: write `==` to compare, or put the \
                                  assignment in parentheses (`if ((a = b))`) if it is meant"
                            .to_string(),
                    });
                }
            }
            SyntaxKind::SWITCH_BODY => duplicate_cases(&node, out),
            _ => {}
        }
    }
}

/// The condition of an `if`, `while`, `do … while` or `for` statement.
fn condition(stmt: &SyntaxNode) -> Option<SyntaxNode> {
    let is_expr = |n: &SyntaxNode| <slang_syntax::ast::Expr as slang_syntax::ast::AstNode>::can_cast(n.kind());
    match stmt.kind() {
        SyntaxKind::IF_STMT | SyntaxKind::WHILE_STMT => stmt.children().find(is_expr),
        SyntaxKind::DO_WHILE_STMT => stmt.children().filter(is_expr).last(),
        // `for (init; COND; step)`: the expression between the first `;`
        // (or the declaration that holds it) and the next `;`.
        _ => {
            let parts: Vec<_> = stmt
                .children_with_tokens()
                .filter(|e| !e.kind().is_trivia() && !matches!(e.kind(), SyntaxKind::L_PAREN | SyntaxKind::FOR_KW))
                .collect();
            let first = parts.iter().position(|e| {
                e.kind() == SyntaxKind::SEMICOLON
                    || matches!(e.kind(), SyntaxKind::VAR_DECL | SyntaxKind::DECL_STMT | SyntaxKind::EXPR_STMT)
            })?;
            match (parts.get(first + 1), parts.get(first + 2)) {
                (Some(NodeOrToken::Node(n)), Some(next)) if next.kind() == SyntaxKind::SEMICOLON && is_expr(n) => {
                    Some(n.clone())
                }
                _ => None,
            }
        }
    }
}

/// `a = b` (not `a += b`, not `(a = b)`).
fn is_plain_assignment(e: &SyntaxNode) -> bool {
    e.kind() == SyntaxKind::BIN_EXPR
        && e.children_with_tokens().filter(|t| t.as_token().is_some()).any(|t| t.kind() == SyntaxKind::EQ)
}

/// `case` values given twice in one `switch`: character literals (by
/// value, also against integer literals) and names (by their text). Two
/// integer literals are inference's to report (`DuplicateCase`).
fn duplicate_cases(body: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    let int_literal = |v: &SyntaxNode| v.first_token().is_some_and(|t| t.kind() == SyntaxKind::INT_NUMBER);
    let mut seen: HashMap<String, bool> = HashMap::new();
    for clause in body.children().filter(|c| c.kind() == SyntaxKind::CASE_CLAUSE) {
        let is_case = clause.children_with_tokens().any(|e| e.kind() == SyntaxKind::CASE_KW);
        let Some(value) = clause.children().next().filter(|_| is_case) else { continue };
        let Some(key) = case_key(&value) else { continue };
        let int = int_literal(&value);
        if seen.insert(key, int).is_some_and(|earlier_int| !(earlier_int && int)) {
            out.push(Diagnostic {
                range: value.text_range(),
                severity: Severity::Error,
                code: "duplicate-case",
                message: format!("`case {}` is given twice in this `switch`; remove one", value.text()),
            });
        }
    }
}

fn case_key(value: &SyntaxNode) -> Option<String> {
    let text: String = value.text().to_string().split_whitespace().collect();
    match value.kind() {
        SyntaxKind::LITERAL => {
            let token = value.first_token()?;
            match token.kind() {
                SyntaxKind::INT_NUMBER => {
                    // (Octal literals are not read here.)
                    if text.len() > 1 && text.starts_with('0') && text.as_bytes()[1].is_ascii_digit() {
                        return None;
                    }
                    crate::hir::parse_int_literal(&text).map(|v| format!("#{v}"))
                }
                SyntaxKind::CHAR => {
                    let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
                    let mut chars = inner.chars();
                    let c = chars.next().filter(|c| *c != '\\')?;
                    chars.next().is_none().then(|| format!("#{}", c as u32))
                }
                _ => None,
            }
        }
        SyntaxKind::PATH_EXPR => Some(text),
        _ => None,
    }
}
