//! Inferred types (at a `$0` cursor) and the diagnostics of inference.

mod common;

use common::{fixture, render_diagnostics};
use expect_test::{expect, Expect};
use slang_analysis::infer::type_of_node;

fn check_type(text: &str, expect: Expect) {
    let fx = fixture(text);
    let (file, offset) = fx.cursor.expect("fixture needs $0");
    let root = slang_analysis::parse(&fx.db, file).syntax_node();
    // The largest expression starting at the cursor: `$0a.b(c)` is the call.
    let token = root.token_at_offset(offset.into()).right_biased().unwrap();
    let node = token
        .parent_ancestors()
        .take_while(|n| n.text_range().start() == token.text_range().start())
        .filter(|n| slang_syntax::ast::Expr::can_cast(n.kind()))
        .last()
        .expect("no expression at cursor");
    let ty = type_of_node(&fx.db, file, &node).map(|t| t.to_string()).unwrap_or_else(|| "<none>".into());
    expect.assert_eq(&ty);
}

use slang_syntax::ast::AstNode;

fn check_diags(text: &str, expect: Expect) {
    expect.assert_eq(&render_diagnostics(&fixture(text)));
}

#[test]
fn literals_and_locals() {
    check_type("void f() { let x = 1.0; $0x; }", expect!["float"]);
    check_type("void f() { $01u; }", expect!["uint"]);
    check_type("void f() { $02.0h; }", expect!["half"]);
    check_type("void f() { $0true; }", expect!["bool"]);
    check_type("void f() { int3 v; $0v; }", expect!["int3"]);
    check_type("void f() { float a[4]; $0a; }", expect!["float[4]"]);
}

#[test]
fn swizzles_and_vectors() {
    check_type("void f(float4 v) { $0v.xyz; }", expect!["float3"]);
    check_type("void f(float4 v) { $0v.r; }", expect!["float"]);
    check_type("void f(float3 v) { $0v * 2; }", expect!["float3"]);
    check_type("void f(int3 v) { $0v + 1.5; }", expect!["float3"]);
    check_type("void f(float3 v) { $0v < 1.0; }", expect!["bool3"]);
    check_type("void f(float4x4 m) { $0m[1]; }", expect!["float4"]);
    check_type("void f() { $0float3(1, 2, 3); }", expect!["float3"]);
    check_type("void f() { $0vector<half, 2>(1, 2); }", expect!["half2"]);
}

#[test]
fn structs_fields_methods_and_generics() {
    let s = "struct Light { float3 dir; float intensity; float3 scaled() { return dir * intensity; } }\n";
    check_type(&format!("{s}void f(Light l) {{ $0l.dir; }}"), expect!["float3"]);
    check_type(&format!("{s}void f(Light l) {{ $0l.scaled(); }}"), expect!["float3"]);
    check_type(&format!("{s}void f(Light l) {{ $0l.dir.x; }}"), expect!["float"]);
    check_type("struct Box<T> { T value; }\nvoid f(Box<int2> b) { $0b.value; }", expect!["int2"]);
    check_type("T id<T>(T x) { return x; }\nvoid f() { $0id(3.0); }", expect!["float"]);
}

#[test]
fn calls_of_user_functions() {
    check_type("float3 g(float x) { return x; }\nvoid f() { $0g(1.0); }", expect!["float3"]);
    check_type("namespace ns { int k() { return 1; } }\nvoid f() { $0ns::k(); }", expect!["int"]);
    check_type("struct S { static float make() { return 1.0; } }\nvoid f() { $0S.make(); }", expect!["float"]);
}

#[test]
fn member_errors_only_where_members_are_known() {
    check_diags(
        r#"
struct Plain { float a; }
interface IThing { float b(); }
struct WithIface : IThing { float a; float b() { return a; } }
void f(Plain p, WithIface w, float3 v)
{
    float x = p.a + p.missing;
    float y = w.fromAnExtensionMaybe;
    float z = v.xw + v.z + v.rx;
}
"#,
        expect![[r#"
            /main.slang:7:23: error[no-such-member]: no member named `missing` in `Plain`
            /main.slang:9:17: error[invalid-swizzle]: `xw` is not a valid swizzle of `float3`
            /main.slang:9:30: error[invalid-swizzle]: `rx` is not a valid swizzle of `float3`
        "#]],
    );
}

#[test]
fn extensions_make_members_unknown() {
    check_diags(
        r#"
struct P { float a; }
extension P { float twice() { return a * 2.0; } }
void f(P p) { float x = p.twice() + p.other; }
"#,
        expect![[""]],
    );
}

#[test]
fn argument_counts_and_immutability() {
    check_diags(
        r#"
float g(float a, float b = 1.0) { return a + b; }
void f()
{
    g(1.0);
    g(1.0, 2.0);
    g();
    g(1.0, 2.0, 3.0);
    let k = 1;
    k = 2;
    var m = 1;
    m = 2;
}
"#,
        expect![[r#"
            /main.slang:7:5: error[argument-count]: `g` takes 2 arguments but 0 were given
            /main.slang:8:5: error[argument-count]: `g` takes 2 arguments but 3 were given
            /main.slang:10:5: error[assign-to-immutable]: cannot assign to `k`: it is declared with `let` or `const`
        "#]],
    );
}
