//! Facts about core-module functions inference needs by name: which are
//! differentiable, which the reference compiler does not differentiate,
//! and `this` of a differentiable method of a non-differentiable type.

use super::*;

/// Core functions the reference compiler does not differentiate (the
/// rest are differentiable math, constructors, casts, `diffPair` …).
/// Built-in functions with derivatives that are not zero.
pub const CORE_DIFFERENTIABLE: [&str; 39] = [
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "exp",
    "exp2",
    "log",
    "log2",
    "log10",
    "pow",
    "sqrt",
    "rsqrt",
    "rcp",
    "abs",
    "min",
    "max",
    "clamp",
    "lerp",
    "dot",
    "cross",
    "length",
    "distance",
    "normalize",
    "reflect",
    "saturate",
    "frac",
    "fmod",
    "mul",
    "transpose",
    "determinant",
    "fma",
    "mad",
    "sincos",
];

pub(super) const CORE_NOT_DIFFERENTIABLE: [&str; 13] = [
    "floor",
    "ceil",
    "round",
    "trunc",
    "step",
    "fmin",
    "fmax",
    "ldexp",
    "frexp",
    "modf",
    "exp10",
    "smoothstep",
    "faceforward",
];

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
