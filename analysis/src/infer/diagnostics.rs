//! What inference reports: [`InferDiagKind`] and where it points
//! ([`DiagAt`]). `crate::diagnostics` turns these into user messages.

use super::*;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum InferDiagKind {
    /// `s.x` where the struct has no member `x`.
    NoSuchMember {
        ty: String,
        name: String,
    },
    /// `x is T` / `x as T` where `x` has a concrete type other than `T`
    /// (never true; the reference compiler rejects it, E30304).
    UnrelatedIsAs {
        from: String,
        to: String,
    },
    /// `v.xq` on a vector.
    BadSwizzle {
        ty: String,
        name: String,
    },
    /// `f(1, 2)` where every `f` takes another number of arguments.
    ArgCount {
        name: String,
        expected: String,
        found: usize,
    },
    /// Assignment to a `let`/`const` local.
    AssignImmutable {
        name: String,
    },
    /// A value of one type where another is required.
    Mismatch {
        expected: String,
        found: String,
    },
    /// `a * b` with vectors of different sizes, and similar.
    NoOperator {
        op: String,
        lhs: String,
        rhs: String,
    },
    /// `return;` in a function that returns a value.
    ReturnMissingValue {
        ty: String,
    },
    /// `break`/`continue` outside a loop (or switch, for `break`).
    OutsideLoop {
        keyword: &'static str,
    },
    /// A second local of the same name in the same scope.
    Redefinition {
        name: String,
    },
    /// An `out`/`inout` argument that is not a variable.
    NotAnLvalue,
    /// `case 1:` twice in one switch.
    DuplicateCase {
        value: i64,
    },
    DuplicateDefault,
    /// `let x;`
    LetWithoutValue {
        name: String,
    },
    /// `void x;`
    VoidVariable {
        name: String,
    },
    /// The left side of `=` cannot be written.
    NotAssignable {
        why: String,
    },
    /// No overload accepts the arguments.
    NoOverload {
        name: String,
        args: String,
        candidates: Vec<String>,
    },
    /// Several overloads fit, none better than the others for every
    /// argument.
    Ambiguous {
        name: String,
        args: String,
        candidates: Vec<String>,
    },
    /// `S.x` / `ns::x` / `E.X` where the type, namespace or enum has no `x`.
    NoStaticMember {
        owner: String,
        name: String,
    },
    /// A `private` member used outside its type, an `internal` one outside
    /// its module.
    Inaccessible {
        what: String,
        visibility: &'static str,
    },
    /// A `[mutating]` method called on a value that cannot change.
    MutatingOnImmutable {
        name: String,
        why: String,
    },
    /// `Type.field` / `Type.method()` for an instance member, or an
    /// instance member used in a static method.
    InstanceMemberWithoutInstance {
        owner: String,
        name: String,
        in_static_method: bool,
    },
    /// `fwd_diff(f)` / `bwd_diff(f)` of a function that is not
    /// differentiable in that mode.
    NotDifferentiable {
        name: String,
        operator: &'static str,
        forward_only: bool,
    },
    /// `fwd_diff(f)(…)` with another number of arguments than the
    /// derivative takes.
    DerivativeArgCount {
        name: String,
        expected: String,
        found: usize,
        signatures: Vec<String>,
    },
    /// A type with the wrong number of generic arguments.
    GenericArity {
        why: String,
    },
    /// A variable of another type passed to an `out`/`inout` parameter.
    OutArgumentType {
        expected: String,
        found: String,
    },
    /// `switch` on a floating-point value.
    FloatSwitch {
        ty: String,
    },
    /// `f<float, float>(…)` where `f` has one generic parameter.
    TooManyGenericArgs {
        expected: usize,
        found: usize,
    },
    /// A differentiable function calling itself.
    Recursion {
        name: String,
    },
    /// A derivative-carrying value stored into a buffer or a `no_diff`
    /// field.
    DerivativeLostInStore {
        into: String,
    },
    /// `no_diff(x)` on something other than a call or a subscript.
    NoDiffOperand,
    /// A call to a non-differentiable function in a differentiable one,
    /// outside `no_diff`.
    DerivativeLost {
        name: String,
        /// A property read (its getter is the function), not a call.
        property: bool,
    },
    /// A statement after `return`, `break` or `continue` (a warning).
    Unreachable,
    /// A field of a non-differentiable `this` used in a differentiable
    /// method (a warning: its derivative is dropped).
    FieldWithoutDerivative {
        owner: String,
        name: String,
    },
    /// An argument carrying a derivative passed to a parameter whose type
    /// is a generic parameter that is not `IDifferentiable` (a warning:
    /// the derivative is dropped).
    DerivativeLostInGeneric {
        callee: String,
        param: String,
        generic: String,
    },
    /// `no_diff` on a call of a differentiable function (a warning: it
    /// has no effect there; the derivative flows through the call).
    NoDiffOnDifferentiable {
        name: String,
    },
    /// A local that is never used (a warning).
    UnusedVariable {
        name: String,
    },
    /// A generic argument that does not conform to the constraint.
    NotConforming {
        arg: String,
        interface: String,
    },
    /// `x[0]` where `x` is a scalar or a struct without `__subscript`.
    NoSubscript {
        ty: String,
    },
    /// `a[3]` for a `float a[2]` (a literal index past a fixed size).
    /// An error for arrays (slangc's E30029, found when generating code); a
    /// warning for vectors and matrix rows, which slangc accepts.
    IndexOutOfBounds {
        index: i64,
        len: u32,
        array: bool,
    },
    /// `x(1)` where `x` is a value, not a function.
    /// `let f = __apply(g);`: an `__apply(…)` that is not called
    /// (slangc's E30130, with `-experimental-feature`).
    ApplyNotInvoked,
    NotCallable {
        ty: String,
    },
    /// `int a[2] = {1, 2, 3};`
    TooManyInitializers {
        expected: usize,
        found: usize,
    },
}

/// Where a diagnostic of inference points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DiagAt {
    Expr(ExprId),
    Stmt(StmtId),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InferDiag {
    pub at: DiagAt,
    pub kind: InferDiagKind,
}
