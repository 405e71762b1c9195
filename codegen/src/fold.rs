//! Constant folding of 32-bit integer arithmetic: an `Add`, `Sub` or
//! `Mul` of two integer constants becomes a constant, and so does a
//! conversion of one between `int` and `uint`.
//!
//! Unrolled loops compute their counters as chains (`i1 = 0 + 1`,
//! `i2 = i1 + 1`, …) that index local arrays. Left as instructions, the
//! indices are not constants to a driver's shader compiler until it folds
//! them itself, and some (lavapipe's, NVIDIA's) first lower every access
//! to a local array through such an index as a dynamic one: on an
//! unrolled MLP that made pipeline creation run for minutes. Folded, the
//! accesses are to constant elements, which drivers keep in registers.
//! Floating-point arithmetic is left alone (`0.0 + x` is not `x` when `x`
//! is `-0.0`).

use slang_analysis::ty::Scalar;

use crate::ir::{BinaryOp, Const, Function, Module, Op, Type, Types, ValueKind};

/// Fold the integer constant arithmetic of every function.
pub fn run(module: &mut Module) {
    let types = &module.types;
    for f in &mut module.functions {
        fold(types, f);
    }
}

fn fold(types: &Types, func: &mut Function) {
    // Operands usually come before their uses; repeat for the others.
    loop {
        let mut changed = false;
        for i in 0..func.values.len() {
            let constant = |v: crate::ir::ValueId| match &func.values[v.index()].kind {
                ValueKind::Inst(Op::Const(Const::Int(x))) => Some(*x),
                _ => None,
            };
            let Type::Scalar(scalar) = types.get(func.values[i].ty) else { continue };
            let value = match &func.values[i].kind {
                ValueKind::Inst(Op::Binary(op, a, b)) => match (constant(*a), constant(*b)) {
                    (Some(x), Some(y)) => evaluate(*scalar, *op, x, y),
                    _ => None,
                },
                // (`int` to `uint` and back: `6 + uint(i)` of an unrolled
                // counter.)
                ValueKind::Inst(Op::Convert(a)) => match (constant(*a), types.get(func.values[a.index()].ty)) {
                    (Some(x), Type::Scalar(Scalar::Int32 | Scalar::UInt32)) => match scalar {
                        Scalar::Int32 => Some(i64::from(x as i32)),
                        Scalar::UInt32 => Some(i64::from(x as u32)),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            };
            let Some(value) = value else { continue };
            func.values[i].kind = ValueKind::Inst(Op::Const(Const::Int(value)));
            changed = true;
        }
        if !changed {
            return;
        }
    }
}

/// `x op y` in the 32-bit integer type `scalar`, wrapping as the GPU does.
fn evaluate(scalar: Scalar, op: BinaryOp, x: i64, y: i64) -> Option<i64> {
    match scalar {
        Scalar::Int32 => {
            let (x, y) = (i32::try_from(x).ok()?, i32::try_from(y).ok()?);
            Some(i64::from(match op {
                BinaryOp::Add => x.wrapping_add(y),
                BinaryOp::Sub => x.wrapping_sub(y),
                BinaryOp::Mul => x.wrapping_mul(y),
                _ => return None,
            }))
        }
        Scalar::UInt32 => {
            let (x, y) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
            Some(i64::from(match op {
                BinaryOp::Add => x.wrapping_add(y),
                BinaryOp::Sub => x.wrapping_sub(y),
                BinaryOp::Mul => x.wrapping_mul(y),
                _ => return None,
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_as_32_bit_integers() {
        assert_eq!(evaluate(Scalar::Int32, BinaryOp::Add, 1, 2), Some(3));
        assert_eq!(evaluate(Scalar::Int32, BinaryOp::Add, i64::from(i32::MAX), 1), Some(i64::from(i32::MIN)));
        assert_eq!(evaluate(Scalar::UInt32, BinaryOp::Sub, 0, 1), Some(i64::from(u32::MAX)));
        assert_eq!(evaluate(Scalar::Int32, BinaryOp::Mul, -3, 7), Some(-21));
        assert_eq!(evaluate(Scalar::Int32, BinaryOp::Div, 6, 3), None);
        assert_eq!(evaluate(Scalar::Float, BinaryOp::Add, 1, 2), None);
        // A constant out of the type's range is left alone.
        assert_eq!(evaluate(Scalar::UInt32, BinaryOp::Add, -1, 1), None);
    }
}
