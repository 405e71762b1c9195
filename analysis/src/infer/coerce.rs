//! Conversions between types: whether a value certainly cannot be used
//! where another type is required ([`is_mismatch`]), conversion costs for
//! overload ranking, numeric broadcasting and swizzles.

use super::*;

fn is_user_enum(db: &dyn Db, def: DefId) -> bool {
    !is_core(db, def.file(db)) && item_of(db, def).is_some_and(|i| i.kind == ItemKind::Enum)
}

/// Textures, buffers and samplers (not wrappers like `ConstantBuffer<T>`
/// or `DescriptorHandle<T>`, which stand for their contents).
pub(crate) fn is_resource_name(name: &str) -> bool {
    [
        "Texture",
        "RWTexture",
        "RasterizerOrderedTexture",
        "StructuredBuffer",
        "RWStructuredBuffer",
        "ByteAddressBuffer",
        "RWByteAddressBuffer",
        "Buffer",
        "RWBuffer",
        "AppendStructuredBuffer",
        "ConsumeStructuredBuffer",
        "SamplerState",
        "SamplerComparisonState",
    ]
    .iter()
    .any(|p| name.starts_with(p) && !name.contains("Handle"))
}

pub(super) fn is_plain_user_struct(db: &dyn Db, def: DefId, args: &[Ty]) -> bool {
    args.is_empty()
        && !is_core(db, def.file(db))
        && item_of(db, def)
            .is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class) && i.generic_params.is_empty())
}

/// Whether the struct `derived` inherits from `base`, directly or through
/// its bases (at most `depth` levels: inheritance may be cyclic in code
/// being edited).
pub(super) fn inherits_from(db: &dyn Db, derived: DefId, base: DefId, depth: u32) -> bool {
    let Some(node) = crate::hir::decl_syntax(db, derived) else { return false };
    if depth == 0 {
        return false;
    }
    let mut ctx = DeclCtx::for_def(db, derived);
    node.children()
        .filter(|c| c.kind() == SyntaxKind::INHERITANCE_LIST)
        .flat_map(|l| l.children().filter_map(ast::Type::cast).collect::<Vec<_>>())
        .any(|t| match ctx.resolve(&crate::hir::lower_type(Some(t))) {
            Ty::Adt { def, .. } => def == base || inherits_from(db, def, base, depth - 1),
            _ => false,
        })
}

/// Whether a value of type `actual` certainly cannot be used where
/// `expected` is required (Slang's conversions: any scalar converts to any
/// numeric shape; vectors and matrices need the same size; structs only to
/// themselves).
pub(crate) fn is_mismatch(db: &dyn Db, expected: &Ty, actual: &Ty) -> bool {
    use Ty::*;
    match (expected, actual) {
        (Unknown, _) | (_, Unknown) => false,
        (Void, Void) => false,
        (Void, _) | (_, Void) => true,
        // `DifferentialPair<T>` and plain values do not convert.
        (Adt { def, name, args }, other) | (other, Adt { def, name, args })
            if name == "DifferentialPair" && is_core(db, def.file(db)) =>
        {
            match other {
                Scalar(_) | Vector(..) | Matrix(..) | Array(..) | String => true,
                Adt { def: d2, args: a2, .. } if d2 == def => args.iter().zip(a2).any(|(x, y)| {
                    x != y
                        && (is_concrete(db, x) && is_concrete(db, y) || is_mismatch(db, x, y) || is_mismatch(db, y, x))
                }),
                Adt { def: d2, args: a2, .. } => {
                    is_plain_user_struct(db, *d2, a2)
                        || (a2.is_empty() && item_of(db, *d2).is_some_and(|i| i.kind == ItemKind::Interface))
                }
                _ => false,
            }
        }
        (Scalar(_), Scalar(_)) => false,
        (Vector(_, n), Vector(_, m)) => n != m,
        (Vector(..) | Matrix(..), Scalar(_)) => false,
        (Scalar(_), Vector(..) | Matrix(..)) => true,
        (Matrix(_, r, c), Matrix(_, r2, c2)) => (r, c) != (r2, c2),
        (Matrix(..), Vector(..)) | (Vector(..), Matrix(..)) => true,
        // `float[3]` where `float[4]` is wanted.
        (Array(e1, Some(n1)), Array(e2, Some(n2))) => n1 != n2 || is_mismatch(db, e1, e2),
        (Adt { def: a, args: aa, .. }, Adt { def: b, args: ba, .. }) if a == b => {
            // `Acc<float>` for `Acc<int>`: a user generic with other,
            // fully known arguments.
            !aa.is_empty()
                && aa != ba
                && !is_core(db, a.file(db))
                && item_of(db, *a).is_some_and(|i| matches!(i.kind, ItemKind::Struct | ItemKind::Class))
                && aa.iter().chain(ba).all(|t| is_concrete(db, t) || matches!(t, Const(_)))
        }
        // (A struct converts to a struct it inherits from.)
        (Adt { def: a, args: aa, .. }, Adt { def: b, args: ba, .. }) => {
            is_plain_user_struct(db, *a, aa) && is_plain_user_struct(db, *b, ba) && !inherits_from(db, *b, *a, 8)
        }
        // A number where a user enum is wanted needs a cast (the other way
        // converts implicitly).
        (Adt { def, .. }, Scalar(_) | Vector(..)) if is_user_enum(db, *def) => true,
        // A texture or buffer used as a number.
        (Scalar(_) | Vector(..) | Matrix(..), Adt { name, def, .. })
            if is_core(db, def.file(db)) && is_resource_name(name) =>
        {
            true
        }
        (Adt { def, args, .. }, Scalar(_) | Vector(..) | Matrix(..) | String)
        | (Scalar(_) | Vector(..) | Matrix(..) | String, Adt { def, args, .. }) => is_plain_user_struct(db, *def, args),
        _ => false,
    }
}

const SWIZZLE_SETS: [&str; 2] = ["xyzw", "rgba"];

pub(super) fn swizzle(s: Scalar, width: u8, name: &str) -> Option<Ty> {
    if name.is_empty() || name.len() > 4 {
        return None;
    }
    for set in SWIZZLE_SETS {
        if name.chars().all(|c| set.find(c).is_some_and(|i| i < width as usize)) {
            return Some(if name.len() == 1 { Ty::Scalar(s) } else { Ty::Vector(s, name.len() as u8) });
        }
    }
    None
}

/// A fully known plain value type: numbers, strings and user structs
/// (not resources or core types, which convert in ways not modelled here,
/// like `ConstantBuffer<T>` to `T`).
pub(crate) fn is_concrete(db: &dyn Db, t: &Ty) -> bool {
    match t {
        Ty::Scalar(_) | Ty::Vector(..) | Ty::Matrix(..) | Ty::String => true,
        Ty::Array(e, Some(_)) => is_concrete(db, e),
        Ty::Adt { def, args, .. } => is_plain_user_struct(db, *def, args),
        _ => false,
    }
}

/// How far `actual` is from `expected` (0 = the same type; only for types
/// that convert at all).
pub(super) fn conversion_cost(expected: &Ty, actual: &Ty) -> u32 {
    if expected == actual || expected.is_unknown() || actual.is_unknown() {
        return 0;
    }
    match (expected, actual) {
        // Same shape, another element type.
        (Ty::Scalar(_), Ty::Scalar(_)) | (Ty::Vector(..), Ty::Vector(..)) | (Ty::Matrix(..), Ty::Matrix(..)) => 2,
        // A scalar splatted into a vector or matrix.
        (Ty::Vector(..) | Ty::Matrix(..), Ty::Scalar(_)) => 3,
        _ => 1,
    }
}

pub(super) fn vector_sizes_differ(a: &Ty, b: &Ty) -> bool {
    matches!((a, b), (Ty::Vector(_, n), Ty::Vector(_, m)) if n != m)
}

/// The shape two numeric operands combine to (scalars splat; the larger
/// vector wins, as HLSL truncates the other with a warning).
pub(super) fn broadcast(a: &Ty, b: &Ty) -> Option<Ty> {
    let s = Scalar::promote(a.scalar()?, b.scalar()?);
    Some(match (a, b) {
        (Ty::Matrix(_, r, c), _) | (_, Ty::Matrix(_, r, c)) => Ty::Matrix(s, *r, *c),
        (Ty::Vector(_, n), Ty::Vector(_, m)) => Ty::Vector(s, (*n).min(*m)),
        (Ty::Vector(_, n), _) | (_, Ty::Vector(_, n)) => Ty::Vector(s, *n),
        _ => Ty::Scalar(s),
    })
}

pub(super) fn arith(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        // A matrix and a vector: an element-wise product in HLSL terms, the
        // linear-algebra product (a vector) in GLSL code (`mat4 * vec4`,
        // with `-allow-glsl`), which a file does not say: not known.
        (Ty::Matrix(..), Ty::Vector(..)) | (Ty::Vector(..), Ty::Matrix(..)) => Ty::Unknown,
        // Core types with element-wise arithmetic (`CoopVec<T, N>`, user
        // structs have their operators looked up before): two of the same
        // type, or one and a scalar of its elements (`v * 2.0`).
        (Ty::Adt { .. }, _) if a == b => a.clone(),
        (Ty::Adt { name, .. }, Ty::Scalar(_)) | (Ty::Scalar(_), Ty::Adt { name, .. })
            if matches!(name.as_str(), "CoopVec" | "CoopMat") =>
        {
            if matches!(a, Ty::Adt { .. }) {
                a.clone()
            } else {
                b.clone()
            }
        }
        _ => broadcast(a, b).unwrap_or(Ty::Unknown),
    }
}
