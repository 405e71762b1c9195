//! Selection ranges: each step shown as the text it selects (long steps
//! abbreviated).

use expect_test::{expect, Expect};
use slang_syntax::selection::selection_ranges;
use slang_syntax::{parse, TextSize};

/// `$0` marks the offset.
fn check(text: &str, expected: Expect) {
    let offset = text.find("$0").expect("no $0 marker");
    let text = text.replace("$0", "");
    let root = parse(&text).syntax_node();
    let ranges = selection_ranges(&root, TextSize::from(offset as u32));
    let mut out = String::new();
    for r in &ranges {
        let s = text[usize::from(r.start())..usize::from(r.end())].replace('\n', "⏎");
        let s = if s.chars().count() > 60 {
            let head: String = s.chars().take(28).collect();
            let tail: String = s.chars().rev().take(28).collect::<Vec<_>>().into_iter().rev().collect();
            format!("{head} … {tail}")
        } else {
            s
        };
        out.push_str(&format!("{:?} {s}\n", r));
    }
    expected.assert_eq(&out);
    assert!(ranges.windows(2).all(|w| w[1].contains_range(w[0]) && w[1] != w[0]), "ranges must strictly grow");
    assert_eq!(ranges.last().map(|r| r.len()), Some(TextSize::of(text.as_str())), "the last step is the file");
}

#[test]
fn from_an_identifier_in_an_expression_out_to_the_file() {
    check(
        r#"struct S { int a; }
float f(float x, float y)
{
    float z = x * (y$0 + 1.0);
    return z;
}
"#,
        expect![[r#"
            67..68 y
            67..74 y + 1.0
            66..75 (y + 1.0)
            62..75 x * (y + 1.0)
            58..75 z = x * (y + 1.0)
            52..76 float z = x * (y + 1.0);
            52..90 float z = x * (y + 1.0);⏎    return z;
            46..92 {⏎    float z = x * (y + 1.0);⏎    return z;⏎}
            20..92 float f(float x, float y)⏎{⏎ … * (y + 1.0);⏎    return z;⏎}
            0..93 struct S { int a; }⏎float f( …  (y + 1.0);⏎    return z;⏎}⏎
        "#]],
    );
}

#[test]
fn inside_of_braces_and_argument_lists() {
    check(
        r#"void main()
{
    foo(1, b$0ar, 3);
}
"#,
        expect![[r#"
            25..28 bar
            22..31 1, bar, 3
            21..32 (1, bar, 3)
            18..32 foo(1, bar, 3)
            18..33 foo(1, bar, 3);
            12..35 {⏎    foo(1, bar, 3);⏎}
            0..35 void main()⏎{⏎    foo(1, bar, 3);⏎}
            0..36 void main()⏎{⏎    foo(1, bar, 3);⏎}⏎
        "#]],
    );
}

#[test]
fn documented_declarations_select_without_their_comment_first() {
    check(
        r#"/// Adds one.
int inc(int x) { return x$0 + 1; }
"#,
        expect![[r#"
            38..39 x
            38..43 x + 1
            31..44 return x + 1;
            29..46 { return x + 1; }
            14..46 int inc(int x) { return x + 1; }
            0..46 /// Adds one.⏎int inc(int x) { return x + 1; }
            0..47 /// Adds one.⏎int inc(int x) { return x + 1; }⏎
        "#]],
    );
}

#[test]
fn string_contents_then_the_string() {
    check(
        "import \"a/b$0.slang\";\n",
        expect![[r#"
        8..17 a/b.slang
        7..18 "a/b.slang"
        0..19 import "a/b.slang";
        0..20 import "a/b.slang";⏎
    "#]],
    );
}

#[test]
fn between_tokens_prefers_the_word() {
    check(
        "int f() { return a$0+b; }\n",
        expect![[r#"
        17..18 a
        17..20 a+b
        10..21 return a+b;
        8..23 { return a+b; }
        0..23 int f() { return a+b; }
        0..24 int f() { return a+b; }⏎
    "#]],
    );
}

#[test]
fn offsets_at_the_edges() {
    let text = "int x;\n";
    let root = parse(text).syntax_node();
    assert!(!selection_ranges(&root, TextSize::from(0)).is_empty());
    assert!(!selection_ranges(&root, TextSize::of(text)).is_empty());
    assert!(selection_ranges(&root, TextSize::of(text) + TextSize::from(1)).is_empty());
    let empty = parse("").syntax_node();
    assert!(selection_ranges(&empty, TextSize::from(0)).len() <= 1);
}

#[test]
fn every_offset_of_a_corpus_file_grows_strictly() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/valid/statements_switch.slang");
    let text = std::fs::read_to_string(path).unwrap();
    let root = parse(&text).syntax_node();
    for offset in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
        let ranges = selection_ranges(&root, TextSize::from(offset as u32));
        assert!(!ranges.is_empty());
        assert!(ranges[0].contains_inclusive(TextSize::from(offset as u32)), "offset {offset}: {:?}", ranges[0]);
        assert!(ranges.windows(2).all(|w| w[1].contains_range(w[0]) && w[1] != w[0]), "offset {offset}");
        assert_eq!(ranges.last().unwrap().len(), TextSize::of(text.as_str()));
    }
}
