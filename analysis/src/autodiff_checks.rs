//! Autodiff rules the reference compiler enforces on declarations, beside
//! those of [`crate::autodiff::autodiff_diagnostics`] (which calls these):
//!
//! * a differentiable function cannot take a differentiable parameter by
//!   `__constref` (E38034) nor call `bwd_diff(f)`, whose code is not itself
//!   differentiable (E38037);
//! * `[PrimalSubstituteOf(f)]` of a backward-differentiable `f` must be
//!   differentiable itself (E31158);
//! * a struct that names its own `Differential` needs, for each
//!   differentiable field, a `[DerivativeMember(…)]` or `no_diff`
//!   (E30121), and that `Differential`'s own `Differential` must be
//!   itself (E30096);
//! * a loop needs a bound the compiler can infer (E30510): a `for` whose
//!   condition or step uses another variable than it initializes has none
//!   ([`one_induction_variable`]).

use slang_syntax::{SyntaxKind as K, SyntaxNode, TextRange, TextSize};

use crate::autodiff::{differential_of, type_diff, TypeDiff};
use crate::diagnostics::{Diagnostic, Severity};
use crate::hir::DefId;
use crate::infer::{fn_sig, is_core, item_of, DeclCtx};
use crate::item_tree::{Item, ItemKind};
use crate::ty::{Ty, TypeResolver};
use crate::{Db, SourceFile};

fn error(range: TextRange, code: &'static str, message: String) -> Diagnostic {
    Diagnostic { range, severity: Severity::Error, code, message }
}

/// Rules on a function `def` marked differentiable (`item`'s attributes),
/// whose own syntax is `local`, starting at `start` in the file.
pub(crate) fn differentiable_fn(
    db: &dyn Db,
    file: SourceFile,
    def: DefId,
    local: &SyntaxNode,
    start: TextSize,
    out: &mut Vec<Diagnostic>,
) {
    // Parameters by `__constref`.
    let params: Vec<SyntaxNode> = local
        .children()
        .find(|c| c.kind() == K::PARAM_LIST)
        .map(|l| l.children().filter(|c| c.kind() == K::PARAM).collect())
        .unwrap_or_default();
    let sig = fn_sig(db, def);
    let mut ctx = DeclCtx::for_def(db, def);
    for (p, ast_p) in sig.params.iter().zip(&params) {
        let has = |k: K| ast_p.children_with_tokens().any(|e| e.kind() == k);
        if !(has(K::UNDERSCORE_CONSTREF_KW) || has(K::CONSTREF_KW)) || has(K::NO_DIFF_KW) {
            continue;
        }
        if type_diff(db, file, &ctx.resolve(&p.ty)) == TypeDiff::Value {
            out.push(error(
                ast_p.text_range() + start,
                "constref-differentiable-param",
                "a differentiable parameter cannot be passed by `__constref`: pass it by value, or mark it `no_diff`"
                    .to_string(),
            ));
        }
    }
    // A differentiable CUDA kernel takes its derivatives through
    // `DiffTensorView`s, not through differentiable parameters.
    let kernel = item_of(db, def).is_some_and(|i| i.has_attr("CudaKernel"));
    for (p, ast_p) in sig.params.iter().zip(&params).filter(|_| kernel) {
        if p.no_diff || ast_p.children_with_tokens().any(|e| e.kind() == K::NO_DIFF_KW) {
            continue;
        }
        if type_diff(db, file, &ctx.resolve(&p.ty)) == TypeDiff::Value {
            let range = ast_p.children().find(|c| c.kind() == K::NAME).map_or(ast_p.text_range(), |n| n.text_range());
            out.push(error(
                range + start,
                "differentiable-kernel-param",
                "a differentiable `[CudaKernel]` cannot have differentiable parameters: pass derivatives through a \
                 `DiffTensorView`, or mark the parameter `no_diff`"
                    .to_string(),
            ));
        }
    }
    // `bwd_diff(f)(…)` calls (not inside a lambda, a function of its own).
    for call in local.descendants().filter(|n| n.kind() == K::CALL_EXPR) {
        let Some(callee) = call.children().next().filter(|c| c.kind() == K::DIFF_EXPR) else { continue };
        let backward = callee.children_with_tokens().any(|e| matches!(e.kind(), K::BWD_DIFF_KW | K::BWD_DIFF2_KW));
        if !backward || call.ancestors().any(|a| a.kind() == K::LAMBDA_EXPR) {
            continue;
        }
        out.push(error(
            call.text_range() + start,
            "bwd-diff-in-differentiable",
            "the code `bwd_diff` produces is not itself differentiable, so a differentiable function cannot call \
             it; for a higher-order derivative, nest `fwd_diff` inside `bwd_diff` instead"
                .to_string(),
        ));
    }
}

/// `[PrimalSubstituteOf(f)]` on `def` (not differentiable itself) where
/// `f` is backward-differentiable.
pub(crate) fn primal_substitute(
    db: &dyn Db,
    def: DefId,
    item: &Item,
    local: &SyntaxNode,
    start: TextSize,
    out: &mut Vec<Diagnostic>,
) {
    let differentiable = ["Differentiable", "BackwardDifferentiable", "TreatAsDifferentiable"];
    if differentiable.iter().any(|a| item.has_attr(a)) {
        return;
    }
    for attr in local.children().filter(|c| c.kind() == K::ATTRIBUTE) {
        let Some(path) = attr.children().find(|c| c.kind() == K::PATH && c.text() == "PrimalSubstituteOf") else {
            continue;
        };
        let Some(args) = attr.children().find(|c| c.kind() == K::ATTRIBUTE_ARGS) else { continue };
        let target =
            crate::autodiff::parse_deriv_target(args.text().to_string().trim_matches(|c| c == '(' || c == ')'));
        let Some(candidates) = crate::autodiff::derivative_candidates(db, def, &target) else { continue };
        let backward = |d: &DefId| {
            item_of(db, *d).is_some_and(|i| i.has_attr("Differentiable") || i.has_attr("BackwardDifferentiable"))
        };
        if !candidates.is_empty() && candidates.iter().all(backward) {
            out.push(error(
                path.text_range() + start,
                "primal-substitute-not-differentiable",
                format!(
                    "`{}` is differentiable, so its primal substitute must be too: mark this function \
                     `[Differentiable]` or `[TreatAsDifferentiable]`",
                    target.name
                ),
            ));
        }
    }
}

/// A differentiable struct `item` with a written `typealias Differential
/// = D` other than itself.
pub(crate) fn written_differential(db: &dyn Db, file: SourceFile, item: &Item, out: &mut Vec<Diagnostic>) {
    if !item.generic_params.is_empty()
        || !item.members.iter().any(|m| m.kind.is_type() && m.name.as_deref() == Some("Differential"))
    {
        return;
    }
    let def = DefId::new(db, file, item.ast_index);
    let name = item.name.clone().unwrap_or_default();
    let this = Ty::Adt { def, name: name.clone(), args: Vec::new() };
    if type_diff(db, file, &this) != TypeDiff::Value {
        return;
    }
    let diff = differential_of(db, &this);
    if diff == this || diff.is_unknown() || matches!(diff, Ty::Assoc(..) | Ty::Param { .. }) {
        return;
    }
    let shown = diff.to_string();
    // The `Differential`'s own `Differential` (only a written one can
    // differ from itself).
    if let Ty::Adt { def: ddef, .. } = &diff {
        let writes = !is_core(db, ddef.file(db))
            && item_of(db, *ddef).is_some_and(|i| {
                i.members.iter().any(|m| m.kind.is_type() && m.name.as_deref() == Some("Differential"))
            });
        let its = differential_of(db, &diff);
        if writes && its != diff && !its.is_unknown() && !matches!(its, Ty::Assoc(..)) {
            let node = crate::hir::def_node(db, def);
            let range = node.as_ref().map(|n| {
                n.children()
                    .find(|c| c.kind() == K::INHERITANCE_LIST)
                    .and_then(|l| l.children().find(|c| c.text() == "IDifferentiable"))
                    .or_else(|| n.children().find(|c| c.kind() == K::NAME))
                    .map_or(n.text_range(), |c| c.text_range())
            });
            if let Some(range) = range {
                out.push(error(
                    range,
                    "invalid-differential",
                    format!(
                        "`{shown}` cannot be the `Differential` of `{name}`: a `Differential` type's own \
                         `Differential` must be itself, but that of `{shown}` is `{its}`"
                    ),
                ));
            }
        }
    }
    for m in item.members.iter().filter(|m| m.kind == ItemKind::Var && !m.is_static) {
        let mdef = DefId::new(db, file, m.ast_index);
        if m.has_attr("DerivativeMember") || crate::autodiff::field_is_no_diff(db, m, mdef) {
            continue;
        }
        let Some(t) = crate::infer::decl_type_ref(db, mdef).clone() else { continue };
        if type_diff(db, file, &DeclCtx::for_def(db, mdef).resolve(&t)) != TypeDiff::Value {
            continue;
        }
        let Some(node) = crate::hir::def_node(db, mdef) else { continue };
        let range = node.children().find(|c| c.kind() == K::NAME).map_or(node.text_range(), |n| n.text_range());
        let field = m.name.clone().unwrap_or_default();
        out.push(error(
            range,
            "missing-differential-field",
            format!(
                "the differentiable field `{field}` needs a field of `{shown}` (the `Differential` of `{name}`) to \
                 hold its derivative: name it with `[DerivativeMember(…)]`, or mark the field `no_diff`"
            ),
        ));
    }
}

/// Whether a variable that the `for` initializes is also the one its
/// condition tests and its step changes (`for (int i = 0; j < 5; i++)`
/// has no iteration count the reference compiler can infer). True when
/// one of the three names no variable we can see.
pub(crate) fn one_induction_variable(lp: &SyntaxNode, cond: &SyntaxNode) -> bool {
    fn name_of(e: &SyntaxNode) -> Option<String> {
        let e = if e.kind() == K::PAREN_EXPR { e.children().next()? } else { e.clone() };
        (e.kind() == K::PATH_EXPR).then(|| e.text().to_string().trim().to_string())
    }
    // Assigned (`=`, `+=`, `++`) names in an expression list.
    fn changed(e: &SyntaxNode, out: &mut Vec<String>) {
        match e.kind() {
            K::BIN_EXPR => {
                let ops: Vec<_> = e.children_with_tokens().filter_map(|t| t.into_token()).collect();
                if ops.iter().any(|t| t.kind() == K::COMMA) {
                    for c in e.children() {
                        changed(&c, out);
                    }
                } else if ops.iter().any(|t| t.text().ends_with('=') && !matches!(t.text(), "==" | "!=" | "<=" | ">="))
                {
                    out.extend(e.children().next().and_then(|l| name_of(&l)));
                }
            }
            K::PREFIX_EXPR | K::POSTFIX_EXPR
                if e.children_with_tokens().any(|t| matches!(t.kind(), K::PLUS2 | K::MINUS2)) =>
            {
                out.extend(e.children().next().and_then(|o| name_of(&o)));
            }
            K::EXPR_STMT | K::PAREN_EXPR => {
                for c in e.children() {
                    changed(&c, out);
                }
            }
            _ => {}
        }
    }
    let mut init = Vec::new();
    let mut step = Vec::new();
    // Before the condition, after it, past the `)`.
    let mut part = 0;
    for e in lp.children_with_tokens() {
        match e {
            slang_syntax::NodeOrToken::Token(t) if t.kind() == K::R_PAREN => part = 2,
            slang_syntax::NodeOrToken::Node(n) if n == *cond => part = 1,
            slang_syntax::NodeOrToken::Node(n) => match (part, n.kind()) {
                (0, K::VAR_DECL) => init.extend(
                    n.children()
                        .filter(|d| d.kind() == K::DECLARATOR)
                        .filter_map(|d| d.children().find(|c| c.kind() == K::NAME).map(|n| n.text().to_string())),
                ),
                (0, _) => changed(&n, &mut init),
                (1, _) => changed(&n, &mut step),
                _ => {}
            },
            _ => {}
        }
    }
    let tested: Vec<String> = cond.children().filter_map(|o| name_of(&o)).collect();
    if init.is_empty() || step.is_empty() || tested.is_empty() {
        return true;
    }
    init.iter().any(|v| tested.contains(v) && step.contains(v))
}
