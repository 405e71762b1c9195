//! The autodiff diagnostics, over the facts of [`crate::autodiff`]:
//! [`autodiff_diagnostics`] per file (derivative attributes that name no
//! function or a wrong one, loops without a bound in backward-
//! differentiable code, manual `IDifferentiable` parts) and
//! [`function_attribute_problems`] per function (attribute arity and
//! placement), with the rules the reference compiler enforces on
//! declarations:
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

use std::collections::HashMap;

use slang_syntax::ast::AstNode;
use slang_syntax::{SyntaxKind as K, SyntaxNode, TextRange, TextSize};

use crate::autodiff::{
    derivative_candidates, derivative_signature, differential_of, fn_differentiability, is_instance_method,
    parse_deriv_target, type_diff, DerivParam, Differentiability, Dir, Mode, TypeDiff, DERIVATIVE_ATTRIBUTES,
};
use crate::diagnostic::{Diagnostic, Severity};
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
        if m.has_attr("DerivativeMember") || crate::autodiff::field_is_no_diff(m) {
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

/// Autodiff checks that read declarations: loops in backward-
/// differentiable functions without an iteration bound the compiler can
/// see (E30510), and derivative attributes naming functions that do not
/// exist.
#[salsa::tracked(returns(ref))]
pub fn autodiff_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<crate::diagnostic::Diagnostic> {
    use slang_syntax::SyntaxKind as K;
    let tree = crate::item_tree::item_tree(db, file);
    let mut out = Vec::new();
    if tree.has_item_macros {
        return out;
    }
    let scope = crate::name_res::global_scope(db, file);
    for item in tree.walk().filter(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class)) {
        check_manual_differential(db, file, item, &mut out);
        written_differential(db, file, item, &mut out);
    }
    // Function and loop attributes on types and variables.
    let restricted = |a: &String| function_only(a) || LOOP_ATTRIBUTES.contains(&a.as_str()) || a == "DerivativeMember";
    for item in tree.walk().filter(|i| {
        matches!(i.kind, ItemKind::Struct | ItemKind::Class | ItemKind::Enum | ItemKind::Var)
            && i.attr_names().any(restricted)
    }) {
        let def = DefId::new(db, file, item.ast_index);
        let Some(node) = crate::hir::def_node(db, def) else { continue };
        let holder = if node.kind() == K::DECLARATOR { node.parent() } else { Some(node) };
        let Some(holder) = holder else { continue };
        for attr in holder.children().filter(|c| c.kind() == K::ATTRIBUTE) {
            for path in attr.children().filter(|c| c.kind() == K::PATH) {
                if let Some(message) = misplaced_attribute(&path.text().to_string(), &holder) {
                    out.push(crate::diagnostic::Diagnostic {
                        range: path.text_range(),
                        severity: crate::diagnostic::Severity::Error,
                        code: "attribute-placement",
                        message,
                    });
                }
            }
        }
    }
    for item in tree.walk().filter(|i| i.kind == ItemKind::Fn) {
        let def = DefId::new(db, file, item.ast_index);
        let derivative_attrs = DERIVATIVE_ATTRIBUTES;
        let backward = item.has_attr("Differentiable") || item.has_attr("BackwardDifferentiable");
        let forward = item.has_attr("ForwardDifferentiable");
        if !backward && !forward && !item.attr_names().any(|a| derivative_attrs.contains(&a.as_str())) {
            continue;
        }
        let Some(node) = crate::hir::def_node(db, def) else { continue };
        let start = node.text_range().start();
        let Some(local) = crate::hir::decl_syntax(db, def) else { continue };
        // Derivative attributes: the named function must exist.
        for attr in local.children().filter(|c| c.kind() == K::ATTRIBUTE) {
            let name = attr.children().find(|c| c.kind() == K::PATH).map(|p| p.text().to_string()).unwrap_or_default();
            if !derivative_attrs.contains(&name.as_str()) {
                continue;
            }
            let Some(args) = attr.children().find(|c| c.kind() == K::ATTRIBUTE_ARGS) else { continue };
            let idents: Vec<_> = args
                .descendants_with_tokens()
                .filter_map(|e| e.into_token())
                .filter(|t| t.kind() == K::IDENT)
                .collect();
            let Some(first) = idents.first() else { continue };
            let target = parse_deriv_target(args.text().to_string().trim_matches(|c| c == '(' || c == ')'));
            let name_tok = idents.iter().find(|t| t.text() == target.name).unwrap_or(first);
            let range = name_tok.text_range() + start;
            let candidates = derivative_candidates(db, def, &target);
            // (Named with a concrete generic argument, `d_f<float>`: a
            // specialization, whose signature is not compared here; `d_f<T>`
            // with the function's own `T` is compared.)
            let specialized = target.generic_args.iter().any(|a| {
                let seg = crate::hir::PathSegment { name: a.clone(), args: Vec::new() };
                !matches!(
                    DeclCtx::for_def(db, def).resolve(&crate::hir::TypeRef::Path(vec![seg])),
                    Ty::Unknown | Ty::Param { .. }
                )
            });
            let compared = candidates.as_deref().filter(|_| !specialized);
            if let Some(problem) = compared.and_then(|c| derivative_mismatch(db, def, &name, c)) {
                out.push(crate::diagnostic::Diagnostic {
                    range,
                    severity: crate::diagnostic::Severity::Error,
                    code: "derivative-signature",
                    message: problem,
                });
            }
            let macro_named = tree.macro_fragments.contains(&target.name);
            match (&target.qualifier, &candidates) {
                (None, Some(c)) if c.is_empty() && scope.lookup(&target.name).is_none() && !macro_named => {
                    out.push(crate::diagnostic::Diagnostic {
                        range,
                        severity: crate::diagnostic::Severity::Error,
                        code: "unresolved-name",
                        message: format!("cannot find `{}` (named by `[{name}]`) in this scope", target.name),
                    })
                }
                (Some(q), Some(c)) if c.is_empty() && !macro_named => out.push(crate::diagnostic::Diagnostic {
                    range,
                    severity: crate::diagnostic::Severity::Error,
                    code: "unresolved-name",
                    message: format!("`{q}` has no method `{}` (named by `[{name}]`)", target.name),
                }),
                (Some(q), Some(c)) if q != "This" && !c.is_empty() && c.iter().all(|d| is_instance_method(db, *d)) => {
                    out.push(crate::diagnostic::Diagnostic {
                        range,
                        severity: crate::diagnostic::Severity::Error,
                        code: "non-static-through-type",
                        message: format!(
                            "`{q}.{n}` names a non-static method through its type: write `{n}` (or make it `static`)",
                            n = target.name
                        ),
                    })
                }
                _ => {}
            }
        }
        if backward || forward {
            differentiable_fn(db, file, def, &local, start, &mut out);
        }
        if item.has_attr("PrimalSubstituteOf") {
            primal_substitute(db, def, item, &local, start, &mut out);
        }
        // Loops (the reference compiler asks for a bound in forward-only
        // functions too).
        for lp in local.descendants().filter(|n| matches!(n.kind(), K::FOR_STMT | K::WHILE_STMT | K::DO_WHILE_STMT)) {
            let attributed = lp.parent().is_some_and(|p| {
                p.kind() == K::ATTRIBUTED_STMT
                    && p.children().filter(|c| c.kind() == K::ATTRIBUTE).any(|a| {
                        let t = a.text().to_string();
                        t.contains("MaxIters") || t.contains("ForceUnroll") || t.contains("unroll")
                    })
            });
            if attributed || (lp.kind() == K::FOR_STMT && for_is_bounded(db, file, &lp)) {
                continue;
            }
            let keyword = lp.first_token().map(|t| t.text_range()).unwrap_or(lp.text_range());
            out.push(crate::diagnostic::Diagnostic {
                range: keyword + start,
                severity: crate::diagnostic::Severity::Error,
                code: "unbounded-loop",
                message: format!(
                    "this loop in the differentiable function `{}` has no iteration bound the compiler can see: \
                     add `[MaxIters(n)]` (or `[ForceUnroll]`) before it",
                    item.name.as_deref().unwrap_or("")
                ),
            });
        }
        if !backward {
            continue;
        }
        // `IDifferentiablePtrType` values only as inputs (the user guide:
        // "will result in a compile-time diagnostic error"; the reference
        // compiler does not report it yet, hence a warning).
        let sig = fn_sig(db, def);
        let mut ctx = DeclCtx::for_def(db, def);
        let fn_node = ast_fn(&local);
        let ptr_at = |what: &str, range: slang_syntax::TextRange| crate::diagnostic::Diagnostic {
            range: range + start,
            severity: crate::diagnostic::Severity::Warning,
            code: "differentiable-ptr-output",
            message: format!(
                "{what} of an `IDifferentiablePtrType` type in a differentiable function: such values can only be \
                 inputs"
            ),
        };
        if let Some(f) = &fn_node {
            let params: Vec<_> = f.param_list().map(|l| l.params().collect()).unwrap_or_default();
            for (p, ast_p) in sig.params.iter().zip(params) {
                if p.is_out && type_diff(db, file, &ctx.resolve(&p.ty)) == TypeDiff::Ptr {
                    out.push(ptr_at("an `out`/`inout` parameter", ast_p.syntax().text_range()));
                }
            }
            if type_diff(db, file, &ctx.resolve(&sig.ret)) == TypeDiff::Ptr {
                if let Some(t) = f.return_type() {
                    out.push(ptr_at("a return value", t.syntax().text_range()));
                }
            }
        }
    }
    out
}

/// A struct that writes its own `IDifferentiable` parts: `dzero`, `dadd`
/// and `dmul` must be `[Differentiable]` (E38110), and each
/// `[DerivativeMember(Differential.x)]` must name a field of the
/// `Differential` (E30027).
fn check_manual_differential(
    db: &dyn Db,
    file: SourceFile,
    item: &crate::item_tree::Item,
    out: &mut Vec<crate::diagnostic::Diagnostic>,
) {
    use slang_syntax::SyntaxKind as K;
    // Only types that write such parts (most do not; this runs on every
    // edit of the file).
    let writes_parts = item
        .members
        .iter()
        .any(|m| matches!(m.name.as_deref(), Some("dzero" | "dadd" | "dmul")) || m.has_attr("DerivativeMember"));
    if !writes_parts {
        return;
    }
    let def = DefId::new(db, file, item.ast_index);
    let this = Ty::Adt { def, name: item.name.clone().unwrap_or_default(), args: Vec::new() };
    if type_diff(db, file, &this) != TypeDiff::Value {
        return;
    }
    for m in &item.members {
        let mdef = DefId::new(db, file, m.ast_index);
        let Some(node) = crate::hir::def_node(db, mdef) else { continue };
        let start = node.text_range().start();
        let Some(local) = crate::hir::decl_syntax(db, mdef) else { continue };
        let name_range = || {
            local.children().find(|c| c.kind() == K::NAME).map(|n| n.text_range() + start).unwrap_or(node.text_range())
        };
        if m.kind == ItemKind::Fn
            && matches!(m.name.as_deref(), Some("dzero" | "dadd" | "dmul"))
            && fn_differentiability(db, file, mdef) == Differentiability::No
        {
            out.push(crate::diagnostic::Diagnostic {
                range: name_range(),
                severity: crate::diagnostic::Severity::Error,
                code: "not-differentiable",
                message: format!(
                    "`{}` implements `IDifferentiable` for `{}` and must be `[Differentiable]`",
                    m.name.as_deref().unwrap_or(""),
                    item.name.as_deref().unwrap_or("")
                ),
            });
        }
        if m.kind != ItemKind::Var || !m.has_attr("DerivativeMember") {
            continue;
        }
        // The attribute sits on the declaration around the declarator.
        let holder = local.clone();
        let attrs: Vec<_> = node
            .parent()
            .filter(|p| p.kind() == K::VAR_DECL)
            .map(|p| p.children().filter(|c| c.kind() == K::ATTRIBUTE).collect())
            .unwrap_or_else(|| holder.children().filter(|c| c.kind() == K::ATTRIBUTE).collect());
        for attr in attrs {
            if !attr.children().any(|c| c.kind() == K::PATH && c.text() == "DerivativeMember") {
                continue;
            }
            let Some(field) =
                attr.descendants_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == K::IDENT).last()
            else {
                continue;
            };
            let diff = differential_of(db, &this);
            let Ty::Adt { def: ddef, name: dname, .. } = &diff else { continue };
            if is_core(db, ddef.file(db)) {
                continue;
            }
            let Some(ditem) = item_of(db, *ddef) else { continue };
            if !ditem.members.iter().any(|f| f.name.as_deref() == Some(field.text())) {
                out.push(crate::diagnostic::Diagnostic {
                    range: field.text_range(),
                    severity: crate::diagnostic::Severity::Error,
                    code: "no-such-member",
                    message: format!("`[DerivativeMember]`: no member named `{}` in `{dname}`", field.text()),
                });
            }
        }
    }
}

/// `T.Differential` of a concrete `T` written out; the rest unchanged.
fn normalize_differentials(db: &dyn Db, t: &Ty) -> Ty {
    use std::sync::Arc;
    match t {
        Ty::Assoc(base, n) if n == "Differential" => {
            let base = normalize_differentials(db, base);
            if matches!(base, Ty::Param { .. } | Ty::Assoc(..)) {
                Ty::Assoc(Arc::new(base), n.clone())
            } else {
                differential_of(db, &base)
            }
        }
        Ty::Adt { def, name, args } => Ty::Adt {
            def: *def,
            name: name.clone(),
            args: args.iter().map(|a| normalize_differentials(db, a)).collect(),
        },
        Ty::Array(e, n) => Ty::Array(Arc::new(normalize_differentials(db, e)), *n),
        Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|a| normalize_differentials(db, a)).collect()),
        _ => t.clone(),
    }
}

/// Whether a derivative's declared type `actual` is the `expected` one
/// (generic parameters matched by position through `rename`). Types we
/// cannot tell (unknown, associated types of concrete types) match.
fn same_deriv_type(expected: &Ty, actual: &Ty, rename: &HashMap<String, String>) -> bool {
    match (expected, actual) {
        (Ty::Unknown, _) | (_, Ty::Unknown) => true,
        (Ty::Assoc(b, _), _) | (_, Ty::Assoc(b, _)) if !matches!(**b, Ty::Param { .. } | Ty::Assoc(..)) => true,
        (Ty::Param { name: e, .. }, Ty::Param { name: a, .. }) => rename.get(a).unwrap_or(a) == e,
        (Ty::Assoc(eb, en), Ty::Assoc(ab, an)) => en == an && same_deriv_type(eb, ab, rename),
        (Ty::Adt { def: ed, args: ea, .. }, Ty::Adt { def: ad, args: aa, .. }) => {
            ed == ad && ea.len() == aa.len() && ea.iter().zip(aa).all(|(e, a)| same_deriv_type(e, a, rename))
        }
        (Ty::Array(e, en), Ty::Array(a, an)) => {
            (en.is_none() || an.is_none() || en == an) && same_deriv_type(e, a, rename)
        }
        (Ty::Tuple(e), Ty::Tuple(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(e, a)| same_deriv_type(e, a, rename))
        }
        (Ty::Const(_), _) | (_, Ty::Const(_)) => true,
        (e, a) => e == a,
    }
}

/// Why function `deriv` cannot be the `mode` derivative of `primal`, if
/// it cannot: a message naming the expected signature.
fn derivative_pair_problem(db: &dyn Db, primal: DefId, deriv: DefId, mode: Mode) -> Option<String> {
    let psig = fn_sig(db, primal);
    let dsig = fn_sig(db, deriv);
    let pname = item_of(db, primal).and_then(|i| i.name.clone()).unwrap_or_default();
    let dname = item_of(db, deriv).and_then(|i| i.name.clone()).unwrap_or_default();
    // A derivative has the generic parameters of its function.
    if psig.generic_params.len() != dsig.generic_params.len() {
        let count = |n: usize| match n {
            0 => "no generic parameters".to_string(),
            1 => "1 generic parameter".to_string(),
            n => format!("{n} generic parameters"),
        };
        return Some(format!(
            "`{dname}` has {} but `{pname}` has {}; a derivative takes the same generic parameters as its function",
            count(dsig.generic_params.len()),
            count(psig.generic_params.len())
        ));
    }
    let expected = derivative_signature(db, primal, mode);
    let instance_primal = is_instance_method(db, primal);
    let instance_deriv = is_instance_method(db, deriv);
    if expected.this_param.is_some() && instance_deriv {
        return Some(format!(
            "`{dname}` must be `static` and take the derivative of `this` as its first parameter: expected \
             `static {expected}`"
        ));
    }
    if expected.this_param.is_none() && instance_primal && !instance_deriv {
        return Some(format!(
            "`{pname}` is a method without a differentiable `this`, so `{dname}` must be a non-static method of the \
             same type: expected `{expected}`"
        ));
    }
    let rename: HashMap<String, String> =
        dsig.generic_params.iter().cloned().zip(psig.generic_params.iter().cloned()).collect();
    let mut ctx = DeclCtx::for_def(db, deriv);
    let actual: Vec<(Dir, Ty)> =
        dsig.params.iter().map(|p| (Dir::of(p), normalize_differentials(db, &ctx.resolve(&p.ty)))).collect();
    let ret = normalize_differentials(db, &ctx.resolve(&dsig.ret));
    let wanted: Vec<&DerivParam> = expected.this_param.iter().chain(&expected.params).collect();
    let fits = actual.len() == wanted.len()
        && actual
            .iter()
            .zip(&wanted)
            .all(|((dir, ty), e)| *dir == e.dir && same_deriv_type(&normalize_differentials(db, &e.ty), ty, &rename))
        && same_deriv_type(&normalize_differentials(db, &expected.ret), &ret, &rename);
    // (A type this model cannot work out, say `vector<float, N>` of a
    // `__generic<let N : int>` function: nothing to compare with.)
    let open = |t: &Ty| t.to_string().contains("{unknown}");
    let unsure = wanted.iter().any(|e| open(&e.ty)) || open(&expected.ret);
    if fits || unsure {
        return None;
    }
    let shown = if expected.this_param.is_some() { format!("static {expected}") } else { expected.to_string() };
    Some(format!("`{dname}` does not have the signature of `{}({pname})`: expected `{shown}`", mode.operator()))
}

/// For `[ForwardDerivative(g)]` on `f` (or `[ForwardDerivativeOf(f)]` on
/// `g`, and the backward forms): a message if no function that `g` names
/// has the signature that `fwd_diff(f)` / `bwd_diff(f)` would have.
fn derivative_mismatch(db: &dyn Db, def: DefId, attr: &str, named: &[DefId]) -> Option<String> {
    let (mode, of) = match attr {
        "ForwardDerivative" => (Mode::Forward, false),
        "BackwardDerivative" => (Mode::Backward, false),
        "ForwardDerivativeOf" => (Mode::Forward, true),
        "BackwardDerivativeOf" => (Mode::Backward, true),
        _ => return None,
    };
    let mut first_problem = None;
    for &other in named {
        let (primal, deriv) = if of { (other, def) } else { (def, other) };
        match derivative_pair_problem(db, primal, deriv, mode) {
            None => return None,
            Some(p) => {
                first_problem.get_or_insert(p);
            }
        }
    }
    first_problem
}

fn ast_fn(node: &slang_syntax::SyntaxNode) -> Option<slang_syntax::ast::Fn> {
    slang_syntax::ast::Fn::cast(node.clone())
}

/// `for (int i = …; i < 8; …)`: a loop the compiler bounds by itself (the
/// bound a literal, a constant or a generic value parameter).
fn for_is_bounded(db: &dyn Db, file: SourceFile, lp: &slang_syntax::SyntaxNode) -> bool {
    use slang_syntax::SyntaxKind as K;
    let Some(cond) = lp.children().find(|c| c.kind() == K::BIN_EXPR) else { return false };
    let is_cmp = cond.children_with_tokens().any(|e| {
        matches!(e.kind(), K::L_ANGLE | K::R_ANGLE | K::LTEQ | K::GTEQ | K::NEQ)
            || e.as_token().is_some_and(|t| matches!(t.text(), ">=" | "<=" | "<" | ">" | "!="))
    });
    if !is_cmp || !one_induction_variable(lp, &cond) {
        return false;
    }
    let operands: Vec<_> = cond.children().collect();
    operands.iter().any(|o| is_constant_expr(db, file, lp, o))
}

/// Whether `o` (in loop `lp`) is a constant the compiler can evaluate:
/// literals, `const` globals and locals, generic value parameters, and
/// arithmetic of them.
fn is_constant_expr(
    db: &dyn Db,
    file: SourceFile,
    lp: &slang_syntax::SyntaxNode,
    o: &slang_syntax::SyntaxNode,
) -> bool {
    use slang_syntax::SyntaxKind as K;
    let evaluates = |o: &slang_syntax::SyntaxNode| evaluates_in(db, file, o);
    match o.kind() {
        K::LITERAL => true,
        K::PAREN_EXPR | K::BIN_EXPR | K::PREFIX_EXPR => {
            let parts: Vec<_> = o.children().collect();
            !parts.is_empty() && parts.iter().all(|p| is_constant_expr(db, file, lp, p))
        }
        K::PATH_EXPR => {
            let name = o.text().to_string();
            let name = name.trim();
            let scope = crate::name_res::global_scope(db, file);
            let global_const = scope.lookup(name).and_then(|d| d.first()).is_some_and(|d| {
                let def = DefId::new(db, d.file, d.ast_index);
                item_of(db, def).is_some_and(|i| {
                    i.kind == ItemKind::Var && i.modifiers.contains(&crate::item_tree::Modifier::Const)
                })
            });
            // A generic value parameter (`let N : int`) of an enclosing
            // declaration: its text is a short capitalized name, looked up
            // among the function's ancestors' generic parameters.
            let generic_value = lp.ancestors().any(|a| {
                a.children()
                    .filter(|c| c.kind() == K::GENERIC_PARAM_LIST)
                    .any(|l| l.descendants().filter(|n| n.kind() == K::NAME).any(|n| n.text() == name))
            });
            // A `const` local of the function.
            let local_const = {
                let body = lp.ancestors().find(|a| a.kind() == K::FN);
                body.is_some_and(|b| {
                    b.descendants().filter(|n| n.kind() == K::VAR_DECL).any(|d| {
                        d.children_with_tokens().any(|t| t.kind() == K::CONST_KW)
                            && d.descendants()
                                .filter(|n| n.kind() == K::NAME)
                                .any(|n| n.text() == name && n.text_range().end() <= lp.text_range().start())
                    })
                })
            };
            global_const || generic_value || local_const || evaluates(o)
        }
        // `S.K`: a `static const` member.
        K::MEMBER_EXPR | K::CALL_EXPR => evaluates(o),
        _ => false,
    }
}

/// Whether `o` is a constant integer expression of globals and type
/// members (see [`DeclCtx::eval_const`]).
fn evaluates_in(db: &dyn Db, file: SourceFile, o: &slang_syntax::SyntaxNode) -> bool {
    slang_syntax::ast::Expr::cast(o.clone()).is_some_and(|e| DeclCtx::new(db, file).eval_const(&e).is_some())
}

/// Attributes that take exactly one argument, checked wherever they are
/// written (the reference compiler's E31001).
const ONE_ARGUMENT_ATTRIBUTES: [&str; 8] = [
    "MaxIters",
    "ForwardDerivative",
    "BackwardDerivative",
    "ForwardDerivativeOf",
    "BackwardDerivativeOf",
    "PrimalSubstitute",
    "PrimalSubstituteOf",
    "DerivativeMember",
];

/// Attributes that only functions take (besides the derivative ones).
const FUNCTION_ATTRIBUTES: [&str; 6] = [
    "Differentiable",
    "ForwardDifferentiable",
    "BackwardDifferentiable",
    "PreferRecompute",
    "PreferCheckpoint",
    "NoDiffThis",
];

fn function_only(name: &str) -> bool {
    FUNCTION_ATTRIBUTES.contains(&name) || DERIVATIVE_ATTRIBUTES.contains(&name)
}

/// Attributes that only loops take.
const LOOP_ATTRIBUTES: [&str; 2] = ["MaxIters", "ForceUnroll"];

/// Where an attribute may not stand (the reference compiler's E31002):
/// a message, or `None` when `name` is fine on what `holder` declares.
fn misplaced_attribute(name: &str, holder: &slang_syntax::SyntaxNode) -> Option<String> {
    use slang_syntax::SyntaxKind as K;
    let target = if holder.kind() == K::ATTRIBUTED_STMT {
        holder.children().find(|c| c.kind() != K::ATTRIBUTE).map(|c| c.kind())?
    } else {
        holder.kind()
    };
    let is_loop = matches!(target, K::FOR_STMT | K::WHILE_STMT | K::DO_WHILE_STMT);
    let is_fn = target == K::FN;
    let what = match target {
        K::FN => "a function",
        K::STRUCT | K::CLASS => "a type",
        K::ENUM => "an enum",
        K::VAR_DECL => "a variable",
        K::IF_STMT => "an `if` statement",
        K::SWITCH_STMT => "a `switch` statement",
        _ if is_loop => "a loop",
        _ => return None,
    };
    if LOOP_ATTRIBUTES.contains(&name) && !is_loop {
        return Some(format!("`[{name}]` applies to loops (`for`, `while`, `do`), not to {what}"));
    }
    if function_only(name) && !is_fn {
        return Some(format!("`[{name}]` applies to functions, not to {what}"));
    }
    if name == "DerivativeMember" && target != K::VAR_DECL {
        return Some(format!("`[DerivativeMember]` applies to fields, not to {what}"));
    }
    if name == "DerivativeMember" && holder.parent().is_none_or(|p| p.kind() != K::MEMBER_LIST) {
        return Some("`[DerivativeMember]` applies to fields of a struct, not to other variables".to_string());
    }
    None
}

/// Attribute argument counts and placements in one declaration (a
/// function's own attributes and those of its statements; a type's or
/// variable's own), relative to the declaration's start. Tracked per
/// declaration, so an edit re-checks only the edited one.
#[salsa::tracked(returns(ref))]
pub fn function_attribute_problems(db: &dyn Db, def: DefId) -> Vec<(slang_syntax::TextRange, &'static str, String)> {
    use slang_syntax::SyntaxKind as K;
    let mut out = Vec::new();
    let Some(local) = crate::hir::decl_syntax(db, def) else { return out };
    // A type's members are declarations of their own.
    let attrs: Vec<_> = if matches!(local.kind(), K::FN) {
        local.descendants().filter(|n| n.kind() == K::ATTRIBUTE).collect()
    } else {
        local.children().filter(|n| n.kind() == K::ATTRIBUTE).collect()
    };
    for attr in attrs {
        // `[A, B(x)]`: each path with the arguments that follow it.
        let children: Vec<_> = attr.children().collect();
        for (i, c) in children.iter().enumerate() {
            if c.kind() != K::PATH {
                continue;
            }
            let name = c.text().to_string();
            if let Some(problem) = attr.parent().and_then(|h| misplaced_attribute(&name, &h)) {
                out.push((c.text_range(), "attribute-placement", problem));
            }
            if !ONE_ARGUMENT_ATTRIBUTES.contains(&name.as_str()) {
                continue;
            }
            let args = children.get(i + 1).filter(|n| n.kind() == K::ATTRIBUTE_ARGS);
            let count = args.map_or(0, |a| {
                let commas = a.children_with_tokens().filter(|e| e.kind() == K::COMMA).count();
                let empty = a.children().next().is_none();
                if empty {
                    0
                } else {
                    commas + 1
                }
            });
            if count != 1 {
                out.push((
                    c.text_range(),
                    "attribute-arguments",
                    format!("`[{name}]` takes one argument, {count} given (write `[{name}(…)]`)"),
                ));
            }
        }
    }
    out
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
