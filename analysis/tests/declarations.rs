//! Checks of declarations that the syntax alone decides: where a
//! declaration may appear and which modifiers it may have there.

mod common;

use common::{fixture, render_diagnostics};
use expect_test::{expect, Expect};

fn check(text: &str, expect: Expect) {
    let fx = fixture(text);
    expect.assert_eq(&render_diagnostics(&fx));
}

#[test]
fn declarations_nested_where_they_cannot_be() {
    check(
        r#"
struct S
{
    namespace N {}
    interface I {}
    extension S {}
    struct Inner { int a; }
    typealias X = int;
    int f() { return 0; }
}
__init() {}
interface IFoo
{
    enum E { A, B }
    struct T {}
    associatedtype A;
    static const int k;
}
extension S
{
    extension S {}
    static int counter;
}
void f()
{
    int g() { return 1; }
    struct Local { int a; } l = { 1 };
    typedef int Int;
}
"#,
        expect![[r#"
            /main.slang:4:15: error[declaration-not-allowed]: a namespace cannot be declared inside a struct; declare it at module or namespace scope
            /main.slang:5:15: error[declaration-not-allowed]: an interface cannot be declared inside a struct; declare it at module or namespace scope
            /main.slang:6:5: error[declaration-not-allowed]: an extension cannot be declared inside a struct; declare it at module or namespace scope
            /main.slang:11:1: error[declaration-not-allowed]: a constructor (`__init`) cannot be declared at module scope; declare constructors inside a struct, class or extension
            /main.slang:14:10: error[declaration-not-allowed]: an enum cannot be declared inside an interface; an interface may only declare requirements; use `associatedtype` for a type requirement
            /main.slang:15:12: error[declaration-not-allowed]: a struct cannot be declared inside an interface; an interface may only declare requirements; use `associatedtype` for a type requirement
            /main.slang:21:5: error[declaration-not-allowed]: an extension cannot be declared inside an extension; declare it at module or namespace scope
            /main.slang:26:9: error[declaration-not-allowed]: a function cannot be declared inside a function; declare it at module or namespace scope
        "#]],
    );
}

#[test]
fn structs_declared_inside_types() {
    check(
        r#"
typedef struct { int y; } TD;
struct G { int x; } g;
void param(struct P { } a) {}
func ret() -> struct { int a; } { return { 1 }; }
struct R { } noReturnType() { return { }; }
void body()
{
    let i : struct L { } = { };
    for (struct S { int a; } s = { 1 }; s.a < 2; s.a++) {}
}
"#,
        expect![[r#"
            /main.slang:4:12: error[declaration-not-allowed]: a struct cannot be declared inside a type here; declare it on its own and use its name
            /main.slang:5:15: error[declaration-not-allowed]: a struct cannot be declared inside a type here; declare it on its own and use its name
            /main.slang:6:1: error[declaration-not-allowed]: a struct cannot be declared as a function's return type; declare it on its own and use its name
            /main.slang:9:13: error[declaration-not-allowed]: a struct cannot be declared inside a type here; declare it on its own and use its name
            /main.slang:10:10: error[declaration-not-allowed]: a struct cannot be declared in a `for` statement's initializer; declare it before the loop
            /main.slang:10:41: error[unresolved-name]: cannot find `s` in this scope
            /main.slang:10:50: error[unresolved-name]: cannot find `s` in this scope
        "#]],
    );
}

#[test]
fn variables_that_need_static_or_no_initializer() {
    check(
        r#"
const int A = 1;
static const int B = 2;
const int C;
namespace N { const int D[2] = { 1, 2 }; }
export const int E = 3;
[SpecializationConstant] const int F = 4;
groupshared int G = 5;
interface I
{
    int field;
    static int notConst;
    static const int withValue = 1;
    static const int fine;
    property int p { get; }
}
struct S { int x; }
extension S
{
    int added;
    let alsoAdded = 1;
    static int fine;
}
"#,
        expect![[r#"
            /main.slang:2:11: error[invalid-initializer]: `A`: a global `const` with an initializer must be declared `static` (`static const`); without `static` it would be a shader parameter
            /main.slang:5:25: error[invalid-initializer]: `D`: a global `const` with an initializer must be declared `static` (`static const`); without `static` it would be a shader parameter
            /main.slang:6:18: error[invalid-initializer]: `E`: an `extern` or `export` constant must be `static const`
            /main.slang:8:17: error[invalid-initializer]: `G` cannot have an initializer because it is `groupshared`; assign it in the entry point instead
            /main.slang:11:9: error[declaration-context]: `field`: a non-static variable cannot be declared inside an interface; declare a property (`property T name { get; }`) or a `static const` requirement
            /main.slang:12:16: error[declaration-context]: `notConst`: a value requirement of an interface must be `static const`
            /main.slang:13:22: error[invalid-initializer]: `withValue` cannot have an initializer because it is an interface requirement; give its value in each conforming type
            /main.slang:20:9: error[declaration-context]: `added`: a non-static variable cannot be declared inside an extension; an extension cannot add storage; make it `static`, or add the field to the type itself
            /main.slang:21:9: error[declaration-context]: `alsoAdded`: a non-static variable cannot be declared inside an extension; an extension cannot add storage; make it `static`, or add the field to the type itself
        "#]],
    );
}
