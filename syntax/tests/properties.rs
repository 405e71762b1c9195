//! Property tests: any input parses without panicking, the tree reproduces
//! the input byte for byte, and every error range lies inside the text.

use proptest::prelude::*;

fn check(text: &str) {
    let parse = slang_syntax::parse(text);
    assert_eq!(parse.syntax_node().text().to_string(), text);
    let len = slang_syntax::TextSize::of(text);
    for e in parse.errors() {
        assert!(e.range.end() <= len, "error {e:?} outside the text");
    }
}

/// Fragments of real Slang, so random mixes reach deep into the grammar.
const FRAGMENTS: &[&str] = &[
    "struct",
    "S",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    ";",
    ",",
    ":",
    "::",
    ".",
    "=",
    "==",
    "+",
    "-",
    "*",
    "/",
    "float",
    "int",
    "x",
    "y",
    "return",
    "if",
    "else",
    "for",
    "while",
    "do",
    "switch",
    "case",
    "default",
    "break",
    "[Differentiable]",
    "fwd_diff",
    "bwd_diff",
    "no_diff",
    "detach",
    "let",
    "var",
    "import",
    "interface",
    "extension",
    "__generic",
    "where",
    "each",
    "expand",
    "#if 1\n",
    "#else\n",
    "#endif\n",
    "#define M(a) a\n",
    "\n",
    " ",
    "//c\n",
    "/*",
    "*/",
    "\"s\"",
    "'c'",
    "1.0f",
    "0x1F",
    "__init",
    "__subscript",
    "property",
    "get",
    "set",
    "typealias",
    "namespace",
    "cbuffer",
    "register(b0)",
    ": SV_Target",
    "=>",
    "?",
    "&&",
    "||",
    ">>",
    ">>=",
    "...",
    "$",
    "`",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_round_trips(text in "\\PC{0,200}") {
        check(&text);
    }

    #[test]
    fn arbitrary_bytes_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup_round_trips(parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..120)) {
        check(&parts.join(" "));
    }

    #[test]
    fn token_soup_without_spaces_round_trips(parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..120)) {
        check(&parts.concat());
    }
}

#[test]
fn whitespace_runs_of_every_length_round_trip() {
    // Common whitespace tokens are shared by text; runs of every length,
    // with and without a newline, must keep their own text.
    let mut text = String::new();
    for n in 0..140 {
        text.push('a');
        text.push_str(&" ".repeat(n));
        text.push_str("b\n");
        text.push_str(&" ".repeat(n));
    }
    check(&text);
}

#[test]
fn deep_nesting_does_not_overflow() {
    for open in ["(", "[", "{", "-", "f(", "{{", "if(x)", "a<", "struct S{"] {
        let text = open.repeat(50_000);
        check(&text);
    }
    let long_chain = "x = ".to_string() + &"a + ".repeat(100_000) + "b;";
    check(&long_chain);
    let else_chain = "void f() {".to_string() + &"if (a) {} else ".repeat(5_000) + "{} }";
    check(&else_chain);
}

/// Incremental reparsing gives exactly the full parse: random edits inside
/// the corpus files' function bodies.
#[test]
fn incremental_reparse_equals_full_parse() {
    use proptest::test_runner::{Config, TestRunner};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/valid");
    let mut texts: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "slang"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    texts.sort();
    texts.truncate(40);
    const SNIPPETS: &[&str] = &[
        "x",
        "1",
        ";",
        " ",
        "\n",
        "a = b;",
        "(",
        ")",
        "{",
        "}",
        "float t = 2.0;",
        "//",
        "/*",
        "\"",
        "#",
        "if (c) {",
        "f(",
        "",
    ];
    let mut runner = TestRunner::new(Config { cases: 1500, ..Config::default() });
    let reparsed = std::cell::Cell::new(0usize);
    runner
        .run(&(0..texts.len(), 0.0f64..1.0, 0usize..12, proptest::sample::select(SNIPPETS)), |(t, pos, del, ins)| {
            let old = &texts[t];
            let mut at = (pos * old.len() as f64) as usize;
            while !old.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + del).min(old.len());
            while !old.is_char_boundary(end) {
                end -= 1;
            }
            let new = format!("{}{}{}", &old[..at], ins, &old[end..]);
            let old_parse = slang_syntax::parse(old);
            let full = slang_syntax::parse(&new);
            if let Some(inc) = old_parse.reparse(old, &new) {
                reparsed.set(reparsed.get() + 1);
                assert_eq!(inc.syntax_node().text().to_string(), new);
                assert_eq!(inc.debug_tree(), full.debug_tree(), "edit at {at}..{end} -> {ins:?}");
                assert_eq!(inc.errors(), full.errors());
                assert_eq!(inc.warnings(), full.warnings());
                assert_eq!(inc.conditional_branches(), full.conditional_branches());
            }
            Ok(())
        })
        .unwrap();
    // Most random edits land in bodies and some of them stay valid.
    let reparsed = reparsed.get();
    eprintln!("{reparsed} of 1500 random edits were reparsed incrementally");
    assert!(reparsed > 100, "only {reparsed} edits were reparsed incrementally");
}
