//! The constant evaluator (`hir::consteval`), through `DeclCtx`: the value
//! of a global's initial value. Expected values are the arithmetic's.

mod common;

use common::fixture;
use expect_test::{expect, Expect};
use slang_analysis::hir::{body, DefId};
use slang_analysis::infer::DeclCtx;
use slang_analysis::item_tree::item_tree;

/// The value of the initializer of the global `V` in `text`.
fn check(text: &str, expect: Expect) {
    let fx = fixture(text);
    let db = &fx.db;
    let file = fx.files[0];
    let item = item_tree(db, file).items.iter().find(|i| i.name.as_deref() == Some("V")).expect("a global `V`").clone();
    let def = DefId::new(db, file, item.ast_index);
    let b = body(db, def).clone();
    let value = b.initializer().and_then(|e| DeclCtx::for_def(db, def).eval(&b, e));
    expect.assert_eq(&format!("{value:?}"));
}

#[test]
fn integer_arithmetic() {
    check("static const int V = (3 + 4) * 2 - 10 / 3 % 2;", expect!["Some(Int(13))"]);
    check("static const int V = 1 << 4 | 3 & ~1 ^ 0x10;", expect!["Some(Int(18))"]);
    check("static const int V = -(2 - 5);", expect!["Some(Int(3))"]);
    // (No value: division by zero.)
    check("static const int V = 7 / 0;", expect!["None"]);
}

#[test]
fn floats_bools_and_conversions() {
    check("static const float V = -1.5 * 2.0 + 1;", expect!["Some(Float(-2.0))"]);
    check("static const int V = int(2.75) + int(true);", expect!["Some(Int(3))"]);
    check("static const bool V = 2 < 3 && !(1 == 2);", expect!["Some(Bool(true))"]);
    check("static const int V = 1 > 2 ? 10 : 20;", expect!["Some(Int(20))"]);
}

#[test]
fn lists_and_constructors() {
    check("static const float3 V = float3(1, 2.5, -3);", expect!["Some(List([Int(1), Float(2.5), Int(-3)]))"]);
    check("static const int V[2] = { 4 * 2, 1 };", expect!["Some(List([Int(8), Int(1)]))"]);
    // A function call is not a constant.
    check("float f() { return 1.0; } static const float V = f();", expect!["None"]);
}

#[test]
fn names() {
    check("static const int K = 3; static const int V = K * K;", expect!["Some(Int(9))"]);
    check("struct S { static const int N = 4; } static const int V = S.N + S::N;", expect!["Some(Int(8))"]);
    // Enum cases: one more than the previous, `[Flags]` doubling.
    check("enum E { A = 2, B, C = A | 8 } static const int V = E.C + E.B;", expect!["Some(Int(13))"]);
    check("[Flags] enum F { X, Y, Z } static const int V = F.Z;", expect!["Some(Int(4))"]);
}
