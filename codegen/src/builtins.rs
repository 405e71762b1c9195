//! The one table of the built-in functions code generation knows: per
//! function its Slang name, arity, the shapes it takes, whether it is
//! differentiable, and how it is lowered — an IR [`Intrinsic`] with its
//! naga mapping, or [`Expanded`] into other instructions by
//! `lower/builtins.rs` (whose derivatives then follow from the parts').
//!
//! Everything else reads rows: the IR's arity check and the predicates
//! the passes use (`legalize`: component-wise on matrices, transcendental
//! in `float` only), the backend (`naga_out`: [`Lowering`]), `no_diff`
//! (whether a call carries derivatives), autodiff (`autodiff::rules`):
//! each differentiable intrinsic's row holds its forward
//! (Jacobian-vector product) [`Rule`], which reverse mode transposes —
//! the partial derivatives as data where they are a formula, otherwise a
//! named function of `autodiff::rules`. Adding a built-in is adding a row.
//! Differentiability agrees with the core module's declarations
//! (`[Differentiable]` on the overload over floats, read by the analysis):
//! `codegen/tests/builtins.rs` checks every row against them, that every
//! differentiable core-module math function has a row, and that exactly
//! the differentiable intrinsics have a rule.

use naga::MathFunction as M;

use crate::autodiff::rules;

/// The arguments and results a built-in takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Scalars, and vectors and matrices component by component (a
    /// scalar argument broadcast): the core module's `[__elementwise]`.
    /// The targets have these for scalars and vectors only; matrices are
    /// computed row by row (`legalize`).
    Elementwise,
    /// Vectors (`dot`, `cross`, `length`, `reflect`, …).
    Vector,
    /// Matrices (`transpose`, `determinant`).
    Matrix,
    /// `mul`: the products of linear algebra between scalars, vectors and
    /// matrices.
    Product,
    /// Each its own (bit casts, bit counts, `any`/`all`, packing).
    Other,
}

/// What the backend writes for an [`Intrinsic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lowering {
    /// A naga math function of the arguments.
    Math(M),
    /// `any`/`all`.
    Relational(naga::RelationalFunction),
    /// A bit cast to a scalar kind of the same width.
    Bitcast(naga::ScalarKind),
    /// `mul(a, b)`: naga's `b * a` (Slang rows are naga columns).
    MatrixProduct,
}

/// The forward derivative (Jacobian-vector product) of an [`Intrinsic`]:
/// emitted by `autodiff::rules::intrinsic`, transposed by reverse mode
/// (every rule is linear in the differentials).
#[derive(Debug, Clone, Copy)]
pub enum Rule {
    /// The sum over the arguments of a partial derivative times the
    /// argument's differential (`d sin(x) = cos(x) dx`), each partial
    /// derivative an expression of the arguments and the result, of the
    /// shape of the arguments (element-wise functions).
    Partials(&'static [Expr]),
    /// The function of the differential (`transpose(dx)`).
    Linear,
    /// Linear in each argument: `f(da, b) + f(a, db)` (`dot`, `mul`).
    Bilinear,
    /// A named function of `autodiff::rules`, for what selects or reduces
    /// (`max`, `normalize`, `determinant`).
    Custom(crate::autodiff::rules::RuleFn),
}

/// A partial derivative in a [`Rule::Partials`]: an expression of the
/// arguments and the result, element-wise (a scalar constant broadcast).
#[derive(Debug, Clone, Copy)]
pub enum Expr {
    /// The argument of this index.
    Arg(usize),
    /// The primal result.
    Ret,
    /// A constant.
    K(f64),
    Neg(&'static Expr),
    Add(&'static Expr, &'static Expr),
    Sub(&'static Expr, &'static Expr),
    Mul(&'static Expr, &'static Expr),
    Div(&'static Expr, &'static Expr),
    /// A built-in function of these.
    Call(Intrinsic, &'static [Expr]),
}

/// One built-in function.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The Slang name (`__`-prefixed names are internal: no core-module
    /// declaration).
    pub name: &'static str,
    pub arity: usize,
    pub shape: Shape,
    /// Calls carry derivatives (the core module declares the overload
    /// over floats `[Differentiable]`).
    pub differentiable: bool,
    /// Vulkan (GLSL.std.450) has it for 16- and 32-bit floats only: on
    /// `double` it is computed in `float` (`legalize`).
    pub float32_only: bool,
    /// The forward derivative of a differentiable [`Intrinsic`] (an
    /// [`Expanded`] function's follows from its parts').
    pub rule: Option<Rule>,
}

macro_rules! table {
    (
        $(#[$meta:meta])* $enum:ident;
        $($variant:ident = $name:literal / $arity:literal, $shape:ident $(, $flag:ident)* $(=> $lowering:expr)? $(, d = $rule:expr)?;)*
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $enum {
            $($variant,)*
        }

        impl $enum {
            /// Every row, in the table's order.
            pub const ALL: &'static [$enum] = &[$($enum::$variant,)*];

            pub fn from_name(name: &str) -> Option<$enum> {
                Some(match name {
                    $($name => $enum::$variant,)*
                    _ => return None,
                })
            }

            pub fn row(self) -> Row {
                match self {
                    $($enum::$variant => {
                        #[allow(unused_mut)]
                        let mut row = Row {
                            name: $name,
                            arity: $arity,
                            shape: Shape::$shape,
                            differentiable: false,
                            float32_only: false,
                            rule: None,
                        };
                        $(table!(@flag row, $flag);)*
                        $(row.rule = Some({
                            #[allow(unused_imports)]
                            use {Rule::*, Expr::*, Intrinsic as I};
                            $rule
                        });)?
                        row
                    })*
                }
            }

            pub fn name(self) -> &'static str {
                self.row().name
            }

            pub fn arity(self) -> usize {
                self.row().arity
            }

            /// Whether a call carries derivatives.
            pub fn differentiable(self) -> bool {
                self.row().differentiable
            }
        }

        table!(@lowering $enum; $($variant $(=> $lowering)?;)*);
    };
    (@flag $row:ident, diff) => { $row.differentiable = true; };
    (@flag $row:ident, f32) => { $row.float32_only = true; };
    (@lowering Intrinsic; $($variant:ident => $lowering:expr;)*) => {
        impl Intrinsic {
            /// What the backend writes.
            pub fn lowering(self) -> Lowering {
                use Lowering::*;
                match self {
                    $(Intrinsic::$variant => $lowering,)*
                }
            }
        }
    };
    (@lowering Expanded; $($variant:ident;)*) => {};
}

impl Intrinsic {
    /// The transcendental functions Vulkan (GLSL.std.450) has only for
    /// 16- and 32-bit floats.
    pub fn is_32_bit_only(self) -> bool {
        self.row().float32_only
    }

    /// The functions that act on each component alone (and so on a
    /// matrix row by row, which the targets do not do themselves).
    pub fn is_componentwise(self) -> bool {
        self.row().shape == Shape::Elementwise
    }
}

// The arguments, the result and 1 in the rules' partial derivatives.
const X: Expr = Expr::Arg(0);
const Y: Expr = Expr::Arg(1);
const Z: Expr = Expr::Arg(2);
const R: Expr = Expr::Ret;
const ONE: Expr = Expr::K(1.0);

table! {
    /// Built-in functions that are IR instructions ([`crate::ir::Op::Intrinsic`]).
    /// Arguments are already converted to the types the function takes.
    Intrinsic;
    Sin = "sin" / 1, Elementwise, diff, f32 => Math(M::Sin),
        d = Partials(&[Call(I::Cos, &[X])]);
    Cos = "cos" / 1, Elementwise, diff, f32 => Math(M::Cos),
        d = Partials(&[Neg(&Call(I::Sin, &[X]))]);
    Tan = "tan" / 1, Elementwise, diff, f32 => Math(M::Tan),
        d = Partials(&[Div(&ONE, &Mul(&Call(I::Cos, &[X]), &Call(I::Cos, &[X])))]);
    Asin = "asin" / 1, Elementwise, diff, f32 => Math(M::Asin),
        d = Partials(&[Call(I::Rsqrt, &[Sub(&ONE, &Mul(&X, &X))])]);
    Acos = "acos" / 1, Elementwise, diff, f32 => Math(M::Acos),
        d = Partials(&[Neg(&Call(I::Rsqrt, &[Sub(&ONE, &Mul(&X, &X))]))]);
    Atan = "atan" / 1, Elementwise, diff, f32 => Math(M::Atan),
        d = Partials(&[Div(&ONE, &Add(&ONE, &Mul(&X, &X)))]);
    Atan2 = "atan2" / 2, Elementwise, diff, f32 => Math(M::Atan2),
        d = Partials(&[Div(&Y, &Add(&Mul(&X, &X), &Mul(&Y, &Y))), Neg(&Div(&X, &Add(&Mul(&X, &X), &Mul(&Y, &Y))))]);
    Sinh = "sinh" / 1, Elementwise, diff, f32 => Math(M::Sinh),
        d = Partials(&[Call(I::Cosh, &[X])]);
    Cosh = "cosh" / 1, Elementwise, diff, f32 => Math(M::Cosh),
        d = Partials(&[Call(I::Sinh, &[X])]);
    Tanh = "tanh" / 1, Elementwise, diff, f32 => Math(M::Tanh),
        d = Partials(&[Sub(&ONE, &Mul(&R, &R))]);
    Exp = "exp" / 1, Elementwise, diff, f32 => Math(M::Exp),
        d = Partials(&[R]);
    Exp2 = "exp2" / 1, Elementwise, diff, f32 => Math(M::Exp2),
        d = Partials(&[Mul(&R, &K(std::f64::consts::LN_2))]);
    Log = "log" / 1, Elementwise, diff, f32 => Math(M::Log),
        d = Partials(&[Div(&ONE, &X)]);
    Log2 = "log2" / 1, Elementwise, diff, f32 => Math(M::Log2),
        d = Partials(&[Div(&K(1.0 / std::f64::consts::LN_2), &X)]);
    Sqrt = "sqrt" / 1, Elementwise, diff => Math(M::Sqrt),
        d = Partials(&[Div(&K(0.5), &Call(I::Sqrt, &[Call(I::Max, &[K(1e-7), X])]))]);
    Rsqrt = "rsqrt" / 1, Elementwise, diff => Math(M::InverseSqrt),
        d = Partials(&[Mul(&K(-0.5), &Div(&R, &X))]);
    Pow = "pow" / 2, Elementwise, diff, f32 => Math(M::Pow),
        d = Custom(rules::pow);
    Abs = "abs" / 1, Elementwise, diff => Math(M::Abs),
        d = Partials(&[Call(I::Sign, &[X])]);
    Sign = "sign" / 1, Elementwise => Math(M::Sign);
    Floor = "floor" / 1, Elementwise => Math(M::Floor);
    Ceil = "ceil" / 1, Elementwise => Math(M::Ceil);
    Round = "round" / 1, Elementwise => Math(M::Round);
    Trunc = "trunc" / 1, Elementwise => Math(M::Trunc);
    Frac = "frac" / 1, Elementwise, diff => Math(M::Fract),
        d = Partials(&[ONE]);
    Min = "min" / 2, Elementwise, diff => Math(M::Min),
        d = Custom(rules::min_max);
    Max = "max" / 2, Elementwise, diff => Math(M::Max),
        d = Custom(rules::min_max);
    Clamp = "clamp" / 3, Elementwise, diff => Math(M::Clamp),
        d = Custom(rules::clamp);
    Saturate = "saturate" / 1, Elementwise, diff => Math(M::Saturate),
        d = Custom(rules::saturate);
    Lerp = "lerp" / 3, Elementwise, diff => Math(M::Mix),
        d = Partials(&[Sub(&ONE, &Z), Z, Sub(&Y, &X)]);
    Step = "step" / 2, Elementwise => Math(M::Step);
    Smoothstep = "smoothstep" / 3, Elementwise => Math(M::SmoothStep);
    Mad = "mad" / 3, Elementwise, diff => Math(M::Fma),
        d = Partials(&[Y, X, ONE]);
    Dot = "dot" / 2, Vector, diff => Math(M::Dot),
        d = Bilinear;
    Cross = "cross" / 2, Vector, diff => Math(M::Cross),
        d = Bilinear;
    Length = "length" / 1, Vector, diff => Math(M::Length),
        d = Custom(rules::length);
    Distance = "distance" / 2, Vector, diff => Math(M::Distance),
        d = Custom(rules::distance);
    Normalize = "normalize" / 1, Vector, diff => Math(M::Normalize),
        d = Custom(rules::normalize);
    Reflect = "reflect" / 2, Vector, diff => Math(M::Reflect),
        d = Custom(rules::reflect);
    Refract = "refract" / 3, Vector, diff => Math(M::Refract),
        d = Custom(rules::refract);
    FaceForward = "faceforward" / 3, Vector => Math(M::FaceForward);
    Transpose = "transpose" / 1, Matrix, diff => Math(M::Transpose),
        d = Linear;
    Determinant = "determinant" / 1, Matrix, diff => Math(M::Determinant),
        d = Custom(rules::determinant);
    Mul = "mul" / 2, Product, diff => MatrixProduct,
        d = Bilinear;
    Any = "any" / 1, Other => Relational(naga::RelationalFunction::Any);
    All = "all" / 1, Other => Relational(naga::RelationalFunction::All);
    AsFloat = "asfloat" / 1, Other => Bitcast(naga::ScalarKind::Float);
    AsInt = "asint" / 1, Other => Bitcast(naga::ScalarKind::Sint);
    AsUint = "asuint" / 1, Other => Bitcast(naga::ScalarKind::Uint);
    CountBits = "countbits" / 1, Other => Math(M::CountOneBits);
    FirstBitHigh = "firstbithigh" / 1, Other => Math(M::FirstLeadingBit);
    FirstBitLow = "firstbitlow" / 1, Other => Math(M::FirstTrailingBit);
    ReverseBits = "reversebits" / 1, Other => Math(M::ReverseBits);
    // `f16tof32`'s work: the two halves of a `uint` as `float2`; and
    // `f32tof16`'s: a `float2` as two halves in a `uint`.
    Unpack2x16Float = "__unpack2x16float" / 1, Other => Math(M::Unpack2x16float);
    Pack2x16Float = "__pack2x16float" / 1, Other => Math(M::Pack2x16float);
}

table! {
    /// Built-in functions written with other instructions (intrinsics,
    /// arithmetic, stores to `out` arguments) by `lower/builtins.rs`, so
    /// that their derivatives follow from the parts'.
    Expanded;
    Log10 = "log10" / 1, Elementwise, diff;
    Exp10 = "exp10" / 1, Elementwise;
    Rcp = "rcp" / 1, Elementwise, diff;
    Degrees = "degrees" / 1, Elementwise, diff;
    Radians = "radians" / 1, Elementwise, diff;
    Fma = "fma" / 3, Elementwise, diff;
    Fmod = "fmod" / 2, Elementwise, diff;
    Fmin = "fmin" / 2, Elementwise;
    Fmax = "fmax" / 2, Elementwise;
    Ldexp = "ldexp" / 2, Elementwise;
    Asinh = "asinh" / 1, Elementwise, diff;
    Acosh = "acosh" / 1, Elementwise, diff;
    Atanh = "atanh" / 1, Elementwise, diff;
    Sinpi = "sinpi" / 1, Elementwise;
    Cospi = "cospi" / 1, Elementwise;
    Tanpi = "tanpi" / 1, Elementwise;
    Copysign = "copysign" / 2, Elementwise, diff;
    Sincos = "sincos" / 3, Elementwise, diff;
    Dst = "dst" / 2, Vector, diff;
    Lit = "lit" / 3, Vector, diff;
    Modf = "modf" / 2, Elementwise;
    Frexp = "frexp" / 2, Elementwise;
    IsNan = "isnan" / 1, Elementwise;
    IsInf = "isinf" / 1, Elementwise;
    IsFinite = "isfinite" / 1, Elementwise;
}

/// Whether a call of the built-in `name` with `arity` arguments carries
/// derivatives (`None`: not a built-in of this table).
pub fn differentiable(name: &str, arity: usize) -> Option<bool> {
    if let Some(i) = Intrinsic::from_name(name).filter(|i| i.arity() == arity) {
        return Some(i.differentiable());
    }
    Expanded::from_name(name).filter(|x| x.arity() == arity).map(Expanded::differentiable)
}
