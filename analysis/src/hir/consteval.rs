//! The constant evaluator: the value of a constant expression of a
//! [`Body`] (integers, floats, bools, and lists of them for initializer
//! lists and vector/matrix/struct constructors).
//!
//! The one evaluator of the analyzer. What a name means is the caller's
//! answer ([`ConstEnv`]): type resolution (`DeclCtx`) knows generic value
//! arguments, `static const` globals and members and enum cases; code
//! generation adds the function's `const` locals. Lowering syntax to HIR
//! uses it without names ([`NoNames`]) for literal array lengths.

use super::{BinOp, BinaryOp, Body, Expr, ExprId, LiteralKind, PathSegment, PrefixOp, TypeRef};
use crate::scalar::Scalar;

/// A constant value.
#[derive(Debug, Clone, PartialEq)]
pub enum ConstValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    /// An initializer list or a constructor's arguments.
    List(Vec<ConstValue>),
}

impl ConstValue {
    /// An integer (or `bool`) value.
    pub fn as_int(&self) -> Option<i64> {
        match *self {
            ConstValue::Int(v) => Some(v),
            ConstValue::Bool(b) => Some(i64::from(b)),
            _ => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match *self {
            ConstValue::Int(v) => Some(v as f64),
            ConstValue::Float(f) => Some(f),
            ConstValue::Bool(b) => Some(f64::from(u8::from(b))),
            ConstValue::List(_) => None,
        }
    }

    fn truthy(&self) -> Option<bool> {
        match *self {
            ConstValue::Bool(b) => Some(b),
            ConstValue::Int(v) => Some(v != 0),
            ConstValue::Float(f) => Some(f != 0.0),
            ConstValue::List(_) => None,
        }
    }
}

/// What names mean to the evaluator.
pub trait ConstEnv {
    /// The value of the name `e` of `body`: a `Path` (`K`, `S::K`), or a
    /// `Member` whose receiver names a type (`S.K`, `E.A`).
    fn name(&mut self, body: &Body, e: ExprId) -> Option<ConstValue>;

    /// Whether `callee` (of a call) names a user type whose constructor,
    /// given constants, is a constant (a struct's fields in order).
    fn constructs(&mut self, _body: &Body, _callee: ExprId) -> bool {
        false
    }
}

/// No names are constants: literals and operators only.
pub struct NoNames;

impl ConstEnv for NoNames {
    fn name(&mut self, _: &Body, _: ExprId) -> Option<ConstValue> {
        None
    }
}

/// The name `e` as path segments: `K`, `S::K`, `S<2>.K`, `E.A`.
pub fn name_path(body: &Body, e: ExprId) -> Option<Vec<PathSegment>> {
    match body.expr(e) {
        Expr::Path(segs, _) => Some(segs.clone()),
        Expr::Member { receiver, name, arrow: false, generic_args } => {
            let mut segs = name_path(body, *receiver)?;
            segs.push(PathSegment { name: name.clone(), args: generic_args.clone() });
            Some(segs)
        }
        _ => None,
    }
}

/// The value of `e`, if it is a constant expression.
pub fn eval(body: &Body, e: ExprId, env: &mut dyn ConstEnv) -> Option<ConstValue> {
    Eval { body, env, depth: 0 }.expr(e)
}

/// The value of `e` as an integer.
pub fn eval_int(body: &Body, e: ExprId, env: &mut dyn ConstEnv) -> Option<i64> {
    eval(body, e, env)?.as_int()
}

struct Eval<'a> {
    body: &'a Body,
    env: &'a mut dyn ConstEnv,
    depth: u32,
}

impl Eval<'_> {
    fn expr(&mut self, e: ExprId) -> Option<ConstValue> {
        if self.depth > 64 {
            return None;
        }
        self.depth += 1;
        let v = self.expr_inner(e);
        self.depth -= 1;
        v
    }

    fn expr_inner(&mut self, e: ExprId) -> Option<ConstValue> {
        let body = self.body;
        match body.expr(e) {
            Expr::Literal(l) => match *l {
                LiteralKind::Int { value, .. } => value.map(ConstValue::Int),
                LiteralKind::Float { value, .. } => value.map(|b| ConstValue::Float(f64::from_bits(b))),
                LiteralKind::Bool(b) => Some(ConstValue::Bool(b)),
                _ => None,
            },
            Expr::Path(..) | Expr::Member { .. } => self.env.name(body, e),
            Expr::Prefix { op, expr } => {
                let v = self.expr(*expr)?;
                match (op, v) {
                    (PrefixOp::Plus, v @ (ConstValue::Int(_) | ConstValue::Float(_))) => Some(v),
                    (PrefixOp::Neg, ConstValue::Int(v)) => Some(ConstValue::Int(v.wrapping_neg())),
                    (PrefixOp::Neg, ConstValue::Float(f)) => Some(ConstValue::Float(-f)),
                    (PrefixOp::BitNot, ConstValue::Int(v)) => Some(ConstValue::Int(!v)),
                    (PrefixOp::Not, v) => Some(ConstValue::Bool(!v.truthy()?)),
                    _ => None,
                }
            }
            Expr::Binary { op, lhs, rhs } => {
                let op = match *op {
                    BinaryOp::Arith(op)
                    | BinaryOp::Compare(op)
                    | BinaryOp::Logic(op)
                    | BinaryOp::Bit(op)
                    | BinaryOp::Shift(op) => op,
                    BinaryOp::Assign(_) | BinaryOp::Comma => return None,
                };
                let l = self.expr(*lhs)?;
                let r = self.expr(*rhs)?;
                binary(op, &l, &r)
            }
            Expr::Ternary { cond, then, els } => {
                let c = self.expr(*cond)?.truthy()?;
                self.expr(if c { *then } else { *els })
            }
            Expr::Cast { ty: TypeRef::Path(segs), expr } => {
                let [seg] = segs.as_slice() else { return None };
                let v = self.expr(*expr)?;
                convert(Scalar::from_name(&seg.name)?, v)
            }
            Expr::InitList(items) => items.iter().map(|&i| self.expr(i)).collect::<Option<_>>().map(ConstValue::List),
            Expr::Call { callee, args } => {
                let name = match body.expr(*callee) {
                    Expr::Path(segs, _) => segs.last().map(|s| (s.name.as_str(), segs.len() == 1 && s.args.is_empty())),
                    _ => None,
                };
                if let Some((name, plain)) = name {
                    if let (Some(s), true, [arg]) = (Scalar::from_name(name), plain, args.as_slice()) {
                        let v = self.expr(*arg)?;
                        return convert(s, v);
                    }
                    let builtin = (plain && Scalar::parse_alias(name).is_some()) || matches!(name, "vector" | "matrix");
                    if !builtin && !self.env.constructs(body, *callee) {
                        return None;
                    }
                } else if !self.env.constructs(body, *callee) {
                    return None;
                }
                args.iter().map(|&a| self.expr(a)).collect::<Option<_>>().map(ConstValue::List)
            }
            _ => None,
        }
    }
}

/// A scalar conversion (`int(x)`, `(float)x`).
fn convert(to: Scalar, v: ConstValue) -> Option<ConstValue> {
    Some(match v {
        ConstValue::List(_) => return None,
        _ if to == Scalar::Bool => ConstValue::Bool(v.truthy()?),
        _ if to.is_float() => ConstValue::Float(v.as_f64()?),
        ConstValue::Float(f) => ConstValue::Int(f as i64),
        v => ConstValue::Int(v.as_int()?),
    })
}

fn binary(op: BinOp, l: &ConstValue, r: &ConstValue) -> Option<ConstValue> {
    use BinOp::*;
    if let (And | Or, Some(a), Some(b)) = (op, l.truthy(), r.truthy()) {
        return Some(ConstValue::Bool(if op == And { a && b } else { a || b }));
    }
    let float = matches!(l, ConstValue::Float(_)) || matches!(r, ConstValue::Float(_));
    if float {
        let (a, b) = (l.as_f64()?, r.as_f64()?);
        return Some(match op {
            Add => ConstValue::Float(a + b),
            Sub => ConstValue::Float(a - b),
            Mul => ConstValue::Float(a * b),
            Div => ConstValue::Float(a / b),
            Rem => ConstValue::Float(a % b),
            Eq => ConstValue::Bool(a == b),
            Ne => ConstValue::Bool(a != b),
            Lt => ConstValue::Bool(a < b),
            Gt => ConstValue::Bool(a > b),
            Le => ConstValue::Bool(a <= b),
            Ge => ConstValue::Bool(a >= b),
            _ => return None,
        });
    }
    let (a, b) = (l.as_int()?, r.as_int()?);
    Some(match op {
        Add => ConstValue::Int(a.wrapping_add(b)),
        Sub => ConstValue::Int(a.wrapping_sub(b)),
        Mul => ConstValue::Int(a.wrapping_mul(b)),
        Div => ConstValue::Int(a.checked_div(b)?),
        Rem => ConstValue::Int(a.checked_rem(b)?),
        Shl => ConstValue::Int(a.checked_shl(u32::try_from(b).ok()?)?),
        Shr => ConstValue::Int(a.checked_shr(u32::try_from(b).ok()?)?),
        BitAnd => ConstValue::Int(a & b),
        BitOr => ConstValue::Int(a | b),
        BitXor => ConstValue::Int(a ^ b),
        Eq => ConstValue::Bool(a == b),
        Ne => ConstValue::Bool(a != b),
        Lt => ConstValue::Bool(a < b),
        Gt => ConstValue::Bool(a > b),
        Le => ConstValue::Bool(a <= b),
        Ge => ConstValue::Bool(a >= b),
        And | Or => return None,
    })
}
