//! The public API at its edges: error recovery (one error, the rest of the
//! file intact), the preprocessor's active regions, doc comments and the
//! typed AST getters.

use slang_syntax::ast::{self, AstNode, HasAttributes, HasDocComments, HasName, HasPath};
use slang_syntax::{parse, parse_with, ParseOptions, SyntaxKind, TextSize};

/// Names of the top-level functions, in order.
fn fn_names(text: &str) -> Vec<String> {
    parse(text)
        .tree()
        .items()
        .filter_map(|i| match i {
            ast::Item::Fn(f) => f.name().map(|n| n.text()),
            _ => None,
        })
        .collect()
}

fn error_messages(text: &str) -> Vec<String> {
    parse(text).errors().iter().map(|e| e.message.clone()).collect()
}

#[test]
fn missing_semicolon_is_one_error() {
    let text = "void f()\n{\n    int a = 1\n    a = 2;\n}\nvoid g() {}\n";
    assert_eq!(error_messages(text), vec!["expected `;`"]);
    assert_eq!(fn_names(text), vec!["f", "g"]);
}

#[test]
fn missing_paren_is_one_error() {
    let text = "void f()\n{\n    foo(1, 2;\n    bar();\n}\nvoid g() {}\n";
    assert_eq!(error_messages(text), vec!["expected `)`"]);
    assert_eq!(fn_names(text), vec!["f", "g"]);
    let text = "void f()\n{\n    if (a { b(); }\n}\nvoid g() {}\n";
    assert_eq!(error_messages(text), vec!["expected `)`"]);
    assert_eq!(fn_names(text), vec!["f", "g"]);
}

#[test]
fn missing_brace_is_one_error() {
    // The body of f is not closed; g, at column 0, is still a function.
    let text = "void f()\n{\n    if (x) {\n        a();\n    }\n\nvoid g() { b(); }\nvoid h() {}\n";
    assert_eq!(error_messages(text), vec!["expected `}`"]);
    assert_eq!(fn_names(text), vec!["f", "g", "h"]);
    // At the end of the file.
    let text = "void f()\n{\n    a();\n";
    assert_eq!(error_messages(text), vec!["expected `}`"]);
}

#[test]
fn error_ranges_point_at_the_problem() {
    let text = "int a = 1\nint b;\n";
    let p = parse(text);
    assert_eq!(p.errors().len(), 1);
    // Zero-width, at the token found instead of `;` (`int` on line 2), as
    // the reference compiler reports it.
    assert_eq!(p.errors()[0].range.start(), TextSize::new(10));
    assert!(p.errors()[0].range.is_empty());
}

#[test]
fn conditional_branches_and_active_regions() {
    let text = "#if defined(A)\nint a;\n#elif B > 1\nint b;\n#else\nint c;\n#endif\nint d;\n";
    let offset = |s: &str| TextSize::new(text.find(s).unwrap() as u32);

    let p = parse(text);
    assert!(p.errors().is_empty());
    let active: Vec<bool> = p.conditional_branches().iter().map(|b| b.active).collect();
    assert_eq!(active, vec![false, false, true]);
    assert!(!p.is_active(offset("int a")));
    assert!(!p.is_active(offset("int b")));
    assert!(p.is_active(offset("int c")));
    assert!(p.is_active(offset("int d")));

    let p = parse_with(text, &ParseOptions { defines: vec![("B".into(), "2".into())], ..Default::default() });
    let active: Vec<bool> = p.conditional_branches().iter().map(|b| b.active).collect();
    assert_eq!(active, vec![false, true, false]);
    assert!(p.is_active(offset("int b")));

    let p = parse_with(text, &ParseOptions { defines: vec![("A".into(), String::new())], ..Default::default() });
    let active: Vec<bool> = p.conditional_branches().iter().map(|b| b.active).collect();
    assert_eq!(active, vec![true, false, false]);

    // Only the active declaration is in the tree as a declaration.
    let names: Vec<String> = p
        .tree()
        .items()
        .filter_map(|i| match i {
            ast::Item::VarDecl(v) => v.declarators().next().and_then(|d| d.name()).map(|n| n.text()),
            _ => None,
        })
        .collect();
    assert_eq!(names, vec!["a", "d"]);
}

#[test]
fn file_defines_drive_later_conditions() {
    let text = "#define LEVEL 3\n#if LEVEL >= 2\nint on;\n#else\nint off(;\n#endif\n";
    assert!(parse(text).errors().is_empty());
    let text = "#ifndef GUARD\n#define GUARD\nint once;\n#endif\n#ifndef GUARD\nint twice(;\n#endif\n";
    assert!(parse(text).errors().is_empty());
}

#[test]
fn doc_comments_attach_to_declarations() {
    let text = "// file header\n\n/// Shades a point.\n/// Second line.\nfloat shade();\n/** Block doc\n * for S. */\nstruct S {}\n";
    let items: Vec<ast::Item> = parse(text).tree().items().collect();
    let ast::Item::Fn(f) = &items[0] else { panic!("{items:?}") };
    assert_eq!(f.doc_comment().as_deref(), Some("Shades a point.\nSecond line."));
    let ast::Item::Struct(s) = &items[1] else { panic!() };
    assert_eq!(s.doc_comment().as_deref(), Some("Block doc\nfor S."));
    // The header comment, separated by a blank line, is not a doc comment.
    assert!(!f.syntax().text().to_string().contains("file header"));
}

#[test]
fn typed_ast_reads_a_differentiable_function() {
    let text = "[Differentiable]\n[BackwardDerivative(bwd_f)]\nstatic float f<T : IFloat>(float x, no_diff float y, inout T z) : SV_Target\n{\n    return fwd_diff(g)(x).d;\n}\n";
    let ast::Item::Fn(f) = parse(text).tree().items().next().unwrap() else { panic!() };
    assert_eq!(f.name().unwrap().text(), "f");
    assert!(f.has_attribute("Differentiable"));
    assert!(f.has_attribute("BackwardDerivative"));
    assert!(f.has_modifier(SyntaxKind::STATIC_KW));
    let attr = f.attributes().nth(1).unwrap();
    let arg = attr.args().next().unwrap();
    let ast::Expr::PathExpr(arg) = arg else { panic!() };
    assert_eq!(arg.last_name().as_deref(), Some("bwd_f"));
    let params: Vec<ast::Param> = f.param_list().unwrap().params().collect();
    assert_eq!(params.len(), 3);
    assert!(params[1].has_modifier(SyntaxKind::NO_DIFF_KW));
    assert!(params[2].has_modifier(SyntaxKind::INOUT_KW));
    assert_eq!(params[2].name().unwrap().text(), "z");
    let ast::Type::PathType(ret) = f.return_type().unwrap() else { panic!() };
    assert_eq!(ret.last_name().as_deref(), Some("float"));
    assert_eq!(f.semantics().next().unwrap().name().unwrap().text(), "SV_Target");
    let stmt = f.body().unwrap().stmts().next().unwrap();
    let ast::Stmt::ReturnStmt(ret) = stmt else { panic!() };
    let ast::Expr::MemberExpr(member) = ret.expr().unwrap() else { panic!() };
    assert_eq!(member.name().unwrap().text(), "d");
    let ast::Expr::CallExpr(call) = member.receiver().unwrap() else { panic!() };
    let ast::Expr::DiffExpr(diff) = call.callee().unwrap() else { panic!() };
    assert!(diff.is_forward());
    let ast::Expr::PathExpr(g) = diff.function().unwrap() else { panic!() };
    assert_eq!(g.last_name().as_deref(), Some("g"));
}

#[test]
fn typed_ast_reads_generic_paths_and_structs() {
    let text = "struct P<T : IDifferentiable> : IDifferentiable where T.Differential == T\n{\n    no_diff int n;\n    vector<float, 3> v, w[2];\n}\n";
    let ast::Item::Struct(s) = parse(text).tree().items().next().unwrap() else { panic!() };
    assert_eq!(s.name().unwrap().text(), "P");
    use slang_syntax::ast::HasGenericParams;
    assert_eq!(s.generic_param_list().unwrap().params().count(), 1);
    let pred = s.where_clauses().next().unwrap().predicates().next().unwrap();
    assert!(pred.is_equality());
    let lhs = pred.types().next().unwrap();
    let ast::Type::PathType(lhs) = lhs else { panic!() };
    let segs: Vec<String> = lhs.segments().iter().map(|s| s.text().to_string()).collect();
    assert_eq!(segs, vec!["T", "Differential"]);
    let members: Vec<ast::Item> = s.members().collect();
    let ast::Item::VarDecl(n) = &members[0] else { panic!() };
    assert!(n.has_modifier(SyntaxKind::NO_DIFF_KW));
    let ast::Item::VarDecl(v) = &members[1] else { panic!() };
    let ast::Type::PathType(vt) = v.ty().unwrap() else { panic!() };
    let seg = &vt.segments()[0];
    assert_eq!(seg.text(), "vector");
    assert_eq!(seg.generic_arg_list.as_ref().unwrap().args().count(), 2);
    let decls: Vec<ast::Declarator> = v.declarators().collect();
    assert_eq!(decls.len(), 2);
    assert_eq!(decls[1].array_suffixes().count(), 1);
}

#[test]
fn text_in_branches_not_taken_need_not_lex() {
    let text =
        "#if 0\nDon't do this, it's \"broken\n#endif\n#pragma message(\"it's fine\n#warning can't stop\nint x;\n";
    let p = parse(text);
    assert!(p.errors().is_empty(), "{:?}", p.errors());
    assert_eq!(p.warnings().len(), 1);
    // The same text in active code is an error.
    assert!(!parse("int a = 'x;\n").errors().is_empty());
}

#[test]
fn utf16_sources_are_decoded() {
    let text = "\u{feff}void main() {}\r\n";
    let le: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_be_bytes()).collect();
    for bytes in [le, be] {
        let decoded = slang_syntax::decode_source(&bytes);
        assert_eq!(decoded, text);
        assert!(parse(&decoded).errors().is_empty());
    }
    // UTF-8 stays as it is; invalid bytes are replaced.
    assert_eq!(slang_syntax::decode_source(b"int x;"), "int x;");
    assert_eq!(slang_syntax::decode_source(b"int \xffx;"), "int \u{fffd}x;");
}

#[test]
fn lang_directive_is_known() {
    assert!(error_messages("#lang slang 2026\nvoid f() {}\n").is_empty());
    assert!(error_messages("#language slang 2026\nvoid f() {}\n").is_empty());
}
