//! Facts about core-module functions inference needs: whether a call of
//! one carries derivatives, and `this` of a differentiable method of a
//! non-differentiable type.

use super::*;

/// Whether a call of the core-module functions `defs` with `n_args`
/// arguments carries derivatives. For the global functions this is what
/// their declarations say (`[Differentiable]` and the derivative
/// attributes on an overload of that arity: `autodiff::fn_differentiability`),
/// the one place that says it — code generation's table of built-ins is
/// checked against it; constructors, methods, operators and operations
/// (`[__intrinsic_op]`: `diffPair`) of the core module pass derivatives
/// through.
pub(super) fn core_call_differentiable(db: &dyn Db, from: SourceFile, defs: &[DefId], n_args: usize) -> bool {
    let global_fns: Vec<DefId> = defs
        .iter()
        .copied()
        .filter(|&d| {
            is_core(db, d.file(db))
                && parent_of(db, d).is_none()
                && item_of(db, d).is_some_and(|i| i.kind == ItemKind::Fn && !i.has_attr("__intrinsic_op"))
                && {
                    let sig = fn_sig(db, d);
                    sig.params.len() == n_args || (sig.variadic && sig.params.len() <= n_args)
                }
        })
        .collect();
    global_fns.is_empty()
        || global_fns
            .iter()
            .any(|&d| crate::autodiff::fn_differentiability(db, from, d) != crate::autodiff::Differentiability::No)
}

/// For a differentiable, non-static method (without `[NoDiffThis]`) of a
/// struct that is not differentiable: the struct's name.
pub(super) fn non_differentiable_this(db: &dyn Db, def: DefId) -> Option<String> {
    let item = item_of(db, def)?;
    let differentiable =
        crate::autodiff::fn_differentiability(db, def.file(db), def) != crate::autodiff::Differentiability::No;
    if !differentiable || item.is_static || item.has_attr("NoDiffThis") || item.has_attr("TreatAsDifferentiable") {
        return None;
    }
    let parent = parent_of(db, def)?;
    let p = item_of(db, parent)?;
    if !matches!(p.kind, ItemKind::Struct | ItemKind::Class) || is_core(db, parent.file(db)) {
        return None;
    }
    let this = DeclCtx::for_def(db, def).this;
    (crate::autodiff::type_diff(db, def.file(db), &this) == crate::autodiff::TypeDiff::No)
        .then(|| p.name.clone().unwrap_or_default())
}
