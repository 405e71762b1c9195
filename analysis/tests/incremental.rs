//! Incrementality: an edit inside a function body re-runs only what reads
//! that body. Proven by counting query executions.

use slang_analysis::{file_diagnostics, RootDatabase};

/// The query names (without ids) executed since the last call.
fn executed(db: &RootDatabase) -> Vec<String> {
    let mut names: Vec<String> =
        db.take_executions().into_iter().map(|e| e.split('(').next().unwrap_or("").to_string()).collect();
    names.sort();
    names
}

#[test]
fn editing_a_function_body_reruns_only_that_file() {
    let mut db = RootDatabase::new();
    let a = db.set_file(
        "/a.slang",
        "import b;\nfloat f(float x)\n{\n    return helper(x) + 1.0;\n}\nfloat g(float y) { return y; }\n",
    );
    let b = db.set_file("/b.slang", "float helper(float x) { return x * 2.0; }\n");
    assert!(file_diagnostics(&db, a).is_empty(), "{:?}", file_diagnostics(&db, a));
    assert!(file_diagnostics(&db, b).is_empty());

    db.start_logging_executions();
    // Type inside f's body.
    db.set_file(
        "/a.slang",
        "import b;\nfloat f(float x)\n{\n    return helper(x) + 2.0 * x;\n}\nfloat g(float y) { return y; }\n",
    );
    assert!(file_diagnostics(&db, a).is_empty());
    assert!(file_diagnostics(&db, b).is_empty());
    let ran = executed(&db);
    // The edited file is re-parsed and its name check re-run; its item
    // tree re-runs but is unchanged, so scopes and everything of b stay.
    for q in ["global_scope", "imported_files", "module_of", "resolved_imports"] {
        assert!(!ran.iter().any(|r| r == q), "{q} re-ran: {ran:?}");
    }
    assert_eq!(ran.iter().filter(|r| *r == "item_tree").count(), 1, "{ran:?}");
    assert_eq!(ran.iter().filter(|r| *r == "parse").count(), 1, "{ran:?}");
    assert_eq!(ran.iter().filter(|r| *r == "unresolved_names").count(), 1, "{ran:?}");
    // Inference re-runs for f only: g's body lowers to the same HIR (its
    // text moved, but bodies hold no positions).
    assert_eq!(ran.iter().filter(|r| *r == "infer").count(), 1, "{ran:?}");
    // Only f's signature is looked at again (its parameters are read from
    // the same lowering as its body).
    assert!(ran.iter().filter(|r| *r == "fn_sig").count() <= 1, "{ran:?}");
    // Incremental reparsing kept g's syntax, so its body is not even
    // lowered again.
    assert_eq!(ran.iter().filter(|r| *r == "body_with_source_map").count(), 1, "{ran:?}");
    // The declaration checks, too, re-run for f only (g's are kept, and
    // so are the file's facts they read).
    assert_eq!(ran.iter().filter(|r| *r == "decl_checks").count(), 1, "{ran:?}");
    assert_eq!(ran.iter().filter(|r| *r == "decl_structs").count(), 1, "{ran:?}");
    assert_eq!(ran.iter().filter(|r| *r == "unresolved_in_item").count(), 1, "{ran:?}");
    // The local scopes the name check reads are rebuilt for f only.
    assert_eq!(ran.iter().filter(|r| *r == "expr_scopes").count(), 1, "{ran:?}");
}

#[test]
fn the_checks_of_a_declaration_rerun_only_when_it_changes() {
    let mut db = RootDatabase::new();
    let text = "struct Holder { ParameterBlock<float4> p; };\nstruct S { float v; };\n\
                float e() { return 1.0; }\nfloat f(float x)\n{\n    Holder hs[2];\n    return x + 1.0;\n}\n\
                [shader(\"vertex\")]\nfloat4 vs(float4 p : POSITION) : SV_Position { return p; }\n\
                float g(float y) { return y; }\n";
    let a = db.set_file("/a.slang", text);
    let before: Vec<_> = file_diagnostics(&db, a).iter().map(|d| (d.code, d.range)).collect();
    assert!(before.iter().any(|(c, _)| *c == "non-addressable-array"), "{before:?}");

    db.start_logging_executions();
    // Inside g: every other declaration's checks are kept, and its
    // diagnostics keep their places.
    db.set_file("/a.slang", &text.replace("return y;", "return y * 2.0;"));
    let after: Vec<_> = file_diagnostics(&db, a).iter().map(|d| (d.code, d.range)).collect();
    assert_eq!(before, after);
    let ran = executed(&db);
    assert_eq!(ran.iter().filter(|r| *r == "decl_checks").count(), 1, "{ran:?}");
    assert_eq!(ran.iter().filter(|r| *r == "infer").count(), 1, "{ran:?}");

    // Before f (in e): f's checks are kept, its diagnostic moves with it.
    let at = text.find("return 1.0").unwrap();
    db.set_file("/a.slang", &text.replace("return 1.0", "return 10.0").replace("return y;", "return y * 2.0;"));
    let moved: Vec<_> = file_diagnostics(&db, a).iter().map(|d| (d.code, d.range)).collect();
    let expected: Vec<_> = before
        .iter()
        .map(|&(c, r)| (c, if usize::from(r.start()) > at { r + slang_analysis::TextSize::from(1) } else { r }))
        .collect();
    assert_eq!(moved, expected);
    let ran = executed(&db);
    assert_eq!(ran.iter().filter(|r| *r == "decl_checks").count(), 1, "{ran:?}");
}

#[test]
fn an_edit_copied_into_the_expansion_gives_the_expansion_of_the_text() {
    // Edits in code near macro uses, names, directives, comments and
    // parentheses: some are copied into the previous expansion, the others
    // expand the file again; either way the expansion must be that of the
    // new text.
    let base = "#define SQ(x) ((x) * (x))\n#define K 2.0\n#define F(a) a\nfloat f(float x)\n{\n    float k = 1.0;\n    \
                return SQ(x) + K * k; // note\n}\nfloat g(float y) { return F (y) + 1.0; }\nfloat h() { return 3.0 / 2.0; }\n";
    let inserts = ["", "1", "x", "K", "SQ", "F", "(", ")", ",", " ", "\n", "/", "*", "#", "\"", "+", "ab"];
    let mut db = RootDatabase::new();
    let f = db.set_file("/m.slang", base);
    let _ = slang_analysis::expansion::expansion(&db, f);
    let mut text = base.to_string();
    let mut n = 0;
    for at in 0..base.len() {
        for ins in inserts {
            for delete in [0, 1, 2] {
                if at + delete > text.len() || !text.is_char_boundary(at) || !text.is_char_boundary(at + delete) {
                    continue;
                }
                n += 1;
                if n % 2 != 0 {
                    continue;
                }
                text.replace_range(at..at + delete, ins);
                db.set_file("/m.slang", &text);
                let incremental = slang_analysis::expansion::expansion(&db, f).clone();
                let full = slang_syntax::macro_expand::expand_file(
                    &text,
                    slang_analysis::source_parse(&db, f),
                    slang_analysis::expansion::parse_options(&db, f),
                );
                assert_eq!(incremental.as_deref(), full.as_ref(), "after editing at {at}: {text:?}");
                if n % 3 == 0 {
                    text = base.to_string();
                }
            }
        }
    }
}

#[test]
fn editing_a_declaration_reruns_scopes() {
    let mut db = RootDatabase::new();
    let a = db.set_file("/a.slang", "float f() { return g(); }\n");
    assert_eq!(file_diagnostics(&db, a).len(), 1);
    db.start_logging_executions();
    db.set_file("/a.slang", "float f() { return g(); }\nfloat g() { return 1.0; }\n");
    assert!(file_diagnostics(&db, a).is_empty());
    let ran = executed(&db);
    assert!(ran.iter().any(|r| r == "global_scope"), "{ran:?}");
}

#[test]
fn editing_a_function_body_in_a_file_with_macros_reruns_only_that_function() {
    let mut db = RootDatabase::new();
    let before = "#define SQ(x) ((x) * (x))\n#define SETTER [mutating]\nstruct S { float v; SETTER void set(float a) { v = SQ(a); } };\nfloat f(float x)\n{\n    return SQ(x) + 1.0;\n}\nfloat g(float y) { return SQ(y); }\n";
    let a = db.set_file("/a.slang", before);
    assert!(file_diagnostics(&db, a).is_empty(), "{:?}", file_diagnostics(&db, a));

    db.start_logging_executions();
    db.set_file("/a.slang", &before.replace("SQ(x) + 1.0", "SQ(x) + 2.0 * x"));
    assert!(file_diagnostics(&db, a).is_empty());
    let ran = executed(&db);
    for q in ["global_scope", "imported_files", "module_of", "parse_options"] {
        assert!(!ran.iter().any(|r| r == q), "{q} re-ran: {ran:?}");
    }
    assert_eq!(ran.iter().filter(|r| *r == "infer").count(), 1, "{ran:?}");
    assert_eq!(ran.iter().filter(|r| *r == "body_with_source_map").count(), 1, "{ran:?}");
}
