//! Folding ranges, shown as 1-based line spans with the text of their first
//! line.

use expect_test::{expect, Expect};
use slang_syntax::folding::{folding_ranges, FoldKind};
use slang_syntax::{line_col, parse};

fn check(text: &str, expected: Expect) {
    let root = parse(text).syntax_node();
    let folds = folding_ranges(&root, text);
    let mut out = String::new();
    for f in &folds {
        let (start, _) = line_col(text, f.range.start());
        let (end, _) = line_col(text, f.range.end());
        assert!(end > start, "{f:?} is on one line");
        let first = text[usize::from(f.range.start())..].lines().next().unwrap_or("");
        out.push_str(&format!("{start}-{end} {:?}: {first}\n", f.kind));
    }
    expected.assert_eq(&out);
    // Sorted by start, outer ranges first.
    assert!(folds.windows(2).all(|w| (w[0].range.start(), std::cmp::Reverse(w[0].range.end()))
        <= (w[1].range.start(), std::cmp::Reverse(w[1].range.end()))));
}

#[test]
fn blocks_members_and_lists() {
    check(
        r#"struct Light
{
    float3 dir;
    float intensity;
};

float shade(Light l,
            float3 n)
{
    if (dot(n, l.dir) > 0) {
        return 1;
    }
    switch (x) {
    case 0: break;
    }
    float v = mix(a,
                  b, t);
    int arr[] = {
        1, 2 };
    for (int i = 0; i < 3; i++) { x++; }
    return 0;
}
"#,
        expect![[r#"
            2-5 Region: {
            7-8 Region: (Light l,
            9-22 Region: {
            10-12 Region: {
            13-15 Region: {
            16-17 Region: (a,
            18-19 Region: {
        "#]],
    );
}

#[test]
fn comments_and_imports() {
    check(
        r#"// Header comment
// spanning lines.
import a;
import b.c;
#include "x.slang"

/* a block
   comment */
int x; // trailing
// alone
int y;
/// Doc for f,
/// two lines.
void f() {}
import late;
"#,
        expect![[r#"
            1-2 Comment: // Header comment
            3-5 Imports: import a;
            7-8 Comment: /* a block
            12-13 Comment: /// Doc for f,
        "#]],
    );
}

#[test]
fn preprocessor_branches_and_regions() {
    check(
        r#"#if defined(A)
int a;
#elif B
int b;
int b2;
#else
int c;
#endif
#pragma region Helpers
int h;
#pragma endregion
#ifdef X
#endif
"#,
        expect![[r#"
            1-2 Region: #if defined(A)
            3-5 Region: #elif B
            6-8 Region: #else
            9-11 Region: #pragma region Helpers
            12-13 Region: #ifdef X
        "#]],
    );
}

#[test]
fn single_line_constructs_do_not_fold() {
    check("struct S { int a; };\nvoid f(int a, int b) { g(1, 2); }\n// one comment\nimport a;\n", expect![[r#""#]]);
}

#[test]
fn unterminated_code_does_not_panic() {
    for text in
        ["void f() {\n  int x;\n", "#if A\nint a;\n", "/* open\ncomment", "f(\n1,\n", "#pragma endregion\n#endif\n}"]
    {
        let root = parse(text).syntax_node();
        for f in folding_ranges(&root, text) {
            assert!(usize::from(f.range.end()) <= text.len());
        }
    }
}

#[test]
fn corpus_folds_are_well_formed() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/valid");
    let mut n = 0;
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let tree = parse(&text).syntax_node();
        for f in folding_ranges(&tree, &text) {
            let (start, _) = line_col(&text, f.range.start());
            let (end, _) = line_col(&text, f.range.end());
            assert!(end > start && usize::from(f.range.end()) <= text.len(), "{}: {f:?}", path.display());
            n += usize::from(f.kind == FoldKind::Region);
        }
    }
    assert!(n > 100, "expected many region folds in the corpus, found {n}");
}
