//! Related information for diagnostics: the declarations a diagnostic is
//! about (the callee that is not differentiable, the custom derivative
//! whose signature is wrong, the earlier declaration of a redefined name,
//! the interface of a missing requirement …), shown by editors as links.

use slang_syntax::{SyntaxKind as K, TextRange};

use super::{nav_target, resolve_at, Definition};
use crate::diagnostic::Diagnostic;
use crate::infer::{item_of, parent_of};
use crate::{parse, Db, SourceFile};

/// A place related to a diagnostic, with what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub file: SourceFile,
    pub range: TextRange,
    pub message: String,
}

/// Codes whose diagnostics are about the declarations of names they
/// mention.
const ABOUT_DECLARATIONS: &[&str] = &[
    "derivative-lost",
    "not-differentiable",
    "derivative-signature",
    "wrong-argument-count",
    "no-matching-overload",
    "ambiguous-call",
    "argument-count",
    "type-mismatch",
    "missing-requirement",
    "requirement-mismatch",
    "non-static-through-type",
    "field-without-derivative",
    "inaccessible",
    "private-type",
];

/// The related places of `diag` (a diagnostic of `file`, as
/// [`crate::file_diagnostics`] gives it: in the file's own offsets). The
/// places are in semantic-tree offsets ([`crate::parse`]).
pub fn related_information(db: &dyn Db, file: SourceFile, diag: &Diagnostic) -> Vec<Related> {
    let mut diag = diag.clone();
    diag.range = crate::expansion::to_expanded_range(db, file, diag.range);
    let diag = &diag;
    let root = parse(db, file).syntax_node();
    let mut out: Vec<Related> = Vec::new();
    // Only the subtree covering the diagnostic is walked.
    let covering = match root.covering_element(diag.range) {
        slang_syntax::NodeOrToken::Node(n) => n,
        slang_syntax::NodeOrToken::Token(t) => t.parent().unwrap_or(root),
    };
    let idents = covering
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| t.kind() == K::IDENT && diag.range.contains_range(t.text_range()));
    if diag.code == "redefinition" {
        // The earlier declarations of the name.
        let Some(name) = idents.last() else { return out };
        let scope = crate::name_res::global_scope(db, file);
        // The first declaration (the scope lists them in order).
        for d in scope.lookup(name.text()).into_iter().flatten() {
            let def = crate::hir::DefId::new(db, d.file, d.ast_index);
            if let Some(t) = nav_target(db, &Definition::Item(def)) {
                if !(t.file == file && t.focus_range == diag.range) {
                    out.push(Related {
                        file: t.file,
                        range: t.focus_range,
                        message: format!("`{}` is first declared here", name.text()),
                    });
                }
                break;
            }
        }
        return out;
    }
    if !ABOUT_DECLARATIONS.contains(&diag.code) {
        return out;
    }
    for tok in idents {
        for def in resolve_at(db, file, tok.text_range().start()) {
            let Definition::Item(d) = def else { continue };
            if d.file(db).path(db).starts_with("<builtin>") {
                continue;
            }
            // For a field, the type that owns it.
            let shown = if diag.code == "field-without-derivative" { parent_of(db, d).unwrap_or(d) } else { d };
            let Some(t) = nav_target(db, &Definition::Item(shown)) else { continue };
            if shown == d && t.file == file && t.full_range.contains_range(diag.range) {
                continue;
            }
            let name = item_of(db, shown).and_then(|i| i.name.clone()).unwrap_or_else(|| tok.text().to_string());
            if out.iter().any(|r| r.file == t.file && r.range == t.focus_range) {
                continue;
            }
            out.push(Related { file: t.file, range: t.focus_range, message: format!("`{name}` is declared here") });
        }
    }
    out
}
