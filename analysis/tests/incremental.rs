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
