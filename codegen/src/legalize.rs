//! Target legalization after differentiation, of the built-in calls the
//! user wrote and those the derivative rules emitted: component-wise
//! built-ins on matrices (`sqrt(float2x2)`; the targets take scalars and
//! vectors) are computed row by row; the transcendental built-ins on
//! `double` (Vulkan's GLSL.std.450 has `sin`, `exp`, `pow` … for 16- and
//! 32-bit floats only) are computed in `float` and converted back.

use slang_analysis::ty::Scalar;

use crate::ir::{Module, Op, Type, TypeId, Value, ValueId, ValueKind};
use slang_analysis::TextRange;

/// Legalize every function of `module`.
pub fn run(module: &mut Module) {
    split_matrices(module);
    narrow_doubles(module);
}

/// `f(m, …)` of a component-wise built-in on matrices: the matrix of
/// `f(m[i], …)` for each row `i` (scalar arguments are passed to each).
fn split_matrices(module: &mut Module) {
    for fi in 0..module.functions.len() {
        for b in 0..module.functions[fi].blocks.len() {
            let insts = std::mem::take(&mut module.functions[fi].blocks[b].insts);
            let mut out = Vec::with_capacity(insts.len());
            for v in insts {
                let value = module.functions[fi].value(v).clone();
                let ValueKind::Inst(Op::Intrinsic(i, args)) = &value.kind else {
                    out.push(v);
                    continue;
                };
                let Type::Matrix { scalar, rows, cols } = *module.types.get(value.ty) else {
                    out.push(v);
                    continue;
                };
                if !i.is_componentwise() {
                    out.push(v);
                    continue;
                }
                let (i, args) = (*i, args.clone());
                let row_ty = module.types.intern(Type::Vector(scalar, cols));
                let mut parts = Vec::new();
                for r in 0..rows {
                    let mut row_args = Vec::new();
                    for &a in &args {
                        let matrix = matches!(module.types.get(module.functions[fi].value(a).ty), Type::Matrix { .. });
                        row_args.push(match matrix {
                            true => push(module, fi, &mut out, Op::Extract(a, r as u32), row_ty, value.span),
                            false => a,
                        });
                    }
                    parts.push(push(module, fi, &mut out, Op::Intrinsic(i, row_args), row_ty, value.span));
                }
                // `v` itself becomes the matrix of the rows (its uses stay).
                module.functions[fi].values[v.index()].kind = ValueKind::Inst(Op::Construct(parts));
                out.push(v);
            }
            module.functions[fi].blocks[b].insts = out;
        }
    }
}

/// The transcendental built-ins on `double`, computed in `float`.
fn narrow_doubles(module: &mut Module) {
    for fi in 0..module.functions.len() {
        for b in 0..module.functions[fi].blocks.len() {
            let insts = std::mem::take(&mut module.functions[fi].blocks[b].insts);
            let mut out = Vec::with_capacity(insts.len());
            for v in insts {
                let f = &module.functions[fi];
                let value = f.value(v).clone();
                let ValueKind::Inst(Op::Intrinsic(i, args)) = &value.kind else {
                    out.push(v);
                    continue;
                };
                if !i.is_32_bit_only() || module.types.scalar_of(value.ty) != Some(Scalar::Double) {
                    out.push(v);
                    continue;
                }
                let (i, args) = (*i, args.clone());
                let mut narrowed = Vec::new();
                for a in args {
                    let t = to_float(module, module.functions[fi].value(a).ty);
                    narrowed.push(push(module, fi, &mut out, Op::Convert(a), t, value.span));
                }
                let t = to_float(module, value.ty);
                let r = push(module, fi, &mut out, Op::Intrinsic(i, narrowed), t, value.span);
                // `v` itself becomes the conversion back (its uses stay).
                module.functions[fi].values[v.index()].kind = ValueKind::Inst(Op::Convert(r));
                out.push(v);
            }
            module.functions[fi].blocks[b].insts = out;
        }
    }
}

/// `t` with `float` for its scalar type.
fn to_float(module: &mut Module, t: TypeId) -> TypeId {
    let narrowed = match module.types.get(t).clone() {
        Type::Vector(_, n) => Type::Vector(Scalar::Float, n),
        Type::Matrix { rows, cols, .. } => Type::Matrix { scalar: Scalar::Float, rows, cols },
        _ => Type::Scalar(Scalar::Float),
    };
    module.types.intern(narrowed)
}

/// A new instruction of function `fi`, appended to `out`.
fn push(
    module: &mut Module,
    fi: usize,
    out: &mut Vec<ValueId>,
    op: Op,
    ty: TypeId,
    span: Option<TextRange>,
) -> ValueId {
    let f = &mut module.functions[fi];
    let v = ValueId(f.values.len() as u32);
    f.values.push(Value { ty, kind: ValueKind::Inst(op), span });
    out.push(v);
    v
}
