//! The formatter: snapshots of its style decisions, and properties over every
//! `.slang` file of the corpus (and over random cuts and splices of them):
//! formatting is idempotent, changes only whitespace, and never panics.
//! `UPDATE_EXPECT=1 cargo test -p slang-syntax --test format` rewrites the
//! snapshots.

use std::path::{Path, PathBuf};

use expect_test::{expect, Expect};
use slang_syntax::format::{apply_edits, format, format_edits, FormatOptions};
use slang_syntax::{parse, SyntaxKind, TextRange, TextSize};

fn opts() -> FormatOptions {
    FormatOptions::default()
}

fn check(input: &str, expected: Expect) {
    let out = format(input, &opts());
    expected.assert_eq(&out);
    assert_properties(input, &out, "snapshot");
}

/// The text of every token that is not whitespace (comments, directive
/// parts and disabled text included), in order, as the parser sees them.
fn significant_tokens(text: &str) -> Vec<String> {
    parse(text)
        .syntax_node()
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        // (A newline added at the end of a file that ends in an `#if` branch
        // not taken is disabled text made only of whitespace.)
        .filter(|t| t.kind() != SyntaxKind::WHITESPACE && !t.text().trim().is_empty())
        .map(|t| t.text().to_string())
        .collect()
}

/// Idempotence, only whitespace changed, no trailing whitespace outside
/// comments and directives, one final newline.
fn assert_properties(input: &str, out: &str, what: &str) {
    let again = format(out, &opts());
    if again != out || significant_tokens(input) != significant_tokens(out) {
        // Keep the input of a failure for a closer look.
        let _ = std::fs::write(std::env::temp_dir().join("slang-format-failure.slang"), input);
    }
    if again != out {
        let line = out.lines().zip(again.lines()).position(|(a, b)| a != b).unwrap_or(0);
        let line = line.max(3);
        panic!(
            "{what}: formatting is not idempotent (first difference at line {}):\n--- once\n{}\n--- twice\n{}",
            line + 1,
            out.lines().skip(line.saturating_sub(3)).take(7).collect::<Vec<_>>().join("\n"),
            again.lines().skip(line.saturating_sub(3)).take(7).collect::<Vec<_>>().join("\n"),
        );
    }
    let (before, after) = (significant_tokens(input), significant_tokens(out));
    if before != after {
        let i = before.iter().zip(&after).position(|(a, b)| a != b).unwrap_or(before.len().min(after.len()));
        panic!(
            "{what}: tokens changed at token {i}: {:?} became {:?}",
            &before[i.saturating_sub(3)..(i + 3).min(before.len())],
            &after[i.saturating_sub(3)..(i + 3).min(after.len())]
        );
    }
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    assert_eq!(squeeze(input), squeeze(out), "{what}: non-whitespace text changed");
    // The file ends with one line break (unless it ends inside a comment, a
    // string or an `#if` branch not taken, which a line break would extend).
    let open_ended = |t: &slang_syntax::SyntaxToken| {
        let lex = |s: &str| slang_syntax::lexer::lex(s).tokens.len();
        t.text().ends_with(['\n', '\r'])
            || t.kind() == SyntaxKind::DISABLED_TEXT
            || lex(&format!("{}\n", t.text())) != lex(t.text()) + 1
    };
    let last = parse(out)
        .syntax_node()
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| t.kind() != SyntaxKind::WHITESPACE)
        .last();
    // (Nor after an escaped line break, which is whitespace kept as is.)
    let escaped = |t: &slang_syntax::SyntaxToken| out[usize::from(t.text_range().end())..].contains('\\');
    if last.is_some_and(|t| !open_ended(&t) && !escaped(&t)) {
        let tail = &out[floor_boundary(out, out.len().saturating_sub(200))..];
        assert!(out.ends_with('\n') && !out.ends_with("\n\n"), "{what}: the file must end with one newline: {tail:?}");
    }
}

// ---------------------------------------------------------------------------
// Corpus properties.

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("tests");
    let mut files = Vec::new();
    let mut dirs = vec![root.join("corpus"), root.join("examples")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "slang") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() > 100, "expected the corpus under tests/, found {} files", files.len());
    files
}

fn read(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned()
}

#[test]
fn corpus_is_idempotent_and_only_changes_whitespace() {
    for path in corpus_files() {
        let text = read(&path);
        let out = format(&text, &opts());
        assert_properties(&text, &out, &path.display().to_string());
    }
}

#[test]
fn corpus_range_formatting_edits_only_inside_the_range() {
    for path in corpus_files().into_iter().step_by(7) {
        let text = read(&path);
        let root = parse(&text).syntax_node();
        let full = format_edits(&text, &root, &opts(), None);
        // The middle third of the file, by lines.
        let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        let (a, b) = (starts[starts.len() / 3], starts[2 * starts.len() / 3]);
        let range = TextRange::new(TextSize::from(a as u32), TextSize::from(b as u32));
        let partial = format_edits(&text, &root, &opts(), Some(range));
        for (r, _) in &partial {
            assert!(r.end() >= range.start() && r.start() <= range.end(), "{}: edit {r:?} outside", path.display());
            assert!(full.iter().any(|(f, _)| f == r), "{}: range edit {r:?} not in the full edits", path.display());
        }
        // Edits strictly inside the range are all there.
        for (r, new) in &full {
            if r.start() > range.start() && r.end() < range.end() {
                assert!(partial.contains(&(*r, new.clone())), "{}: missing edit {r:?}", path.display());
            }
        }
        let sorted = full.windows(2).all(|w| w[0].0.end() <= w[1].0.start());
        assert!(sorted, "{}: edits must be sorted and disjoint", path.display());
    }
}

/// A small deterministic generator (xorshift64*), so that failures repeat.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    ">>",
    ">=",
    "-",
    "- -",
    ".",
    "...",
    ";",
    ",",
    ":",
    "::",
    "?",
    "=",
    "\n",
    "\r\n",
    "\r",
    "\t",
    "  ",
    "\\",
    "\\\n",
    " \\ \n",
    "//",
    "/*",
    "*/",
    "\"",
    "'",
    "R\"(",
    "\n#if 0\n",
    "\n#if 1\n",
    "\n#else\n",
    "\n#endif\n",
    "\n#define M(a) a \\\n + 1\n",
    "\n#pragma region r\n",
    "case 1:",
    "default:",
    "else",
    "if (x)",
    "for (;;)",
    "do",
    "while (x);",
    "switch (x) {",
    "__target_switch {",
    "spirv_asm {",
    "[Attr]",
    "[[vk::binding(0)]]",
    "struct S ",
    "void f() ",
    "\nstruct T {",
    "\u{feff}",
    "é",
    "\u{fffd}",
];

/// Random cuts and splices of corpus files: truncated files, a slice of one
/// file pasted into another, a deleted span, whitespace squeezed out or
/// doubled, stray fragments inserted. Every result must format without panicking, idempotently, and
/// with the same tokens.
#[test]
fn spliced_corpus_programs_keep_the_properties() {
    let files: Vec<String> = corpus_files().iter().map(|p| read(p)).collect();
    // `FORMAT_ROUNDS` and `FORMAT_SEED` explore further.
    let rounds = std::env::var("FORMAT_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(600);
    let seed = std::env::var("FORMAT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_f0f0_1234_5678);
    let mut rng = Rng(seed);
    for round in 0..rounds {
        let a = &files[rng.below(files.len())];
        let b = &files[rng.below(files.len())];
        let cut = |rng: &mut Rng, t: &str| floor_boundary(t, rng.below(t.len() + 1));
        let text = match round % 6 {
            0 => a[..cut(&mut rng, a)].to_string(),
            1 => {
                let (i, j) = (cut(&mut rng, a), cut(&mut rng, b));
                let k = floor_boundary(b, j + rng.below(400));
                format!("{}{}{}", &a[..i], &b[j..k], &a[i..])
            }
            2 => {
                let i = cut(&mut rng, a);
                let j = floor_boundary(a, i + rng.below(300));
                format!("{}{}", &a[..i], &a[j..])
            }
            3 => {
                // Squeeze the spaces (not the line breaks) out of a span.
                let i = cut(&mut rng, a);
                let j = floor_boundary(a, i + rng.below(2000));
                format!("{}{}{}", &a[..i], a[i..j].replace([' ', '\t'], ""), &a[j..])
            }
            4 => {
                let i = cut(&mut rng, a);
                let j = floor_boundary(a, i + rng.below(2000));
                format!("{}{}{}", &a[..i], a[i..j].replace(' ', "  \t").replace('\n', " \n\n"), &a[j..])
            }
            _ => {
                // A few stray fragments: brackets, directives, comment and
                // string openers, escaped line breaks.
                let mut t = a.clone();
                for _ in 0..1 + rng.below(4) {
                    let i = cut(&mut rng, &t);
                    t.insert_str(i, FRAGMENTS[rng.below(FRAGMENTS.len())]);
                }
                t
            }
        };
        let out = format(&text, &opts());
        assert_properties(&text, &out, &format!("round {round}"));
    }
}

#[test]
fn edits_are_minimal_and_empty_when_formatted() {
    let text = "void f()\n{\n    int x = 1;\n}\n";
    let root = parse(text).syntax_node();
    assert_eq!(format_edits(text, &root, &opts(), None), vec![]);
    let text = "void f()\n{\nint x=1;\n}";
    let root = parse(text).syntax_node();
    let edits = format_edits(text, &root, &opts(), None);
    expect![[r#"
        [
            (
                11..11,
                "    ",
            ),
            (
                16..16,
                " ",
            ),
            (
                17..17,
                " ",
            ),
            (
                21..21,
                "\n",
            ),
        ]
    "#]]
    .assert_debug_eq(&edits);
    assert_eq!(apply_edits(text, &edits), "void f()\n{\n    int x = 1;\n}\n");
}

// ---------------------------------------------------------------------------
// Style snapshots.

#[test]
fn indents_blocks_by_nesting_and_keeps_brace_lines() {
    check(
        r#"
struct Light{
float3 dir;
  float intensity;
};
float shade(Light l,float3 n)
{
if(dot(n,l.dir)>0){
return 1;
}
        else
    {
            return 0;
    }
}
"#,
        expect![[r#"
            struct Light {
                float3 dir;
                float intensity;
            };
            float shade(Light l, float3 n)
            {
                if (dot(n, l.dir) > 0) {
                    return 1;
                }
                else
                {
                    return 0;
                }
            }
        "#]],
    );
}

#[test]
fn spaces_around_operators_and_after_commas() {
    check(
        "void f(){int x=a+b*c-d/e;x+=1;x<<=2;bool t=x==1&&y!=2||!z;float v=-x+ ~y;int i=x++ + --y;p=s.a[i].b;int q=c?a:b;}\n",
        expect![[r#"
            void f() { int x = a + b * c - d / e; x += 1; x <<= 2; bool t = x == 1 && y != 2 || !z; float v = -x + ~y; int i = x++ + --y; p = s.a[i].b; int q = c ? a : b; }
        "#]],
    );
}

#[test]
fn generics_are_not_comparisons() {
    check(
        "vector<float,3> v;\nRWStructuredBuffer< uint > buf;\nbool c = a<b && c>d;\nT f<T : IFoo>(T x) { return G<int> (x) ; }\nList<List<int> > nested;\nList<List<int>> tight;\n",
        expect![[r#"
            vector<float, 3> v;
            RWStructuredBuffer<uint> buf;
            bool c = a < b && c > d;
            T f<T : IFoo>(T x) { return G<int>(x); }
            List<List<int> > nested;
            List<List<int>> tight;
        "#]],
    );
}

#[test]
fn calls_declarations_and_keywords() {
    check(
        "void main ( uint3 id : SV_DispatchThreadID ) {\n    foo (1 , 2) ;\n    if(x) return ;\n    for(int i=0;i<4;i++) {}\n    while(true) break;\n    switch(x) {}\n    return(x);\n    float s = sizeof (int);\n}\n",
        expect![[r#"
            void main(uint3 id : SV_DispatchThreadID) {
                foo(1, 2);
                if (x) return;
                for (int i = 0; i < 4; i++) {}
                while (true) break;
                switch (x) {}
                return(x);
                float s = sizeof(int);
            }
        "#]],
    );
}

#[test]
fn case_labels_are_indented_inside_switch() {
    check(
        r#"
int f(int x) {
switch (x) {
case 0: return 1;
case 1:
case 2:
x += 1;
break;
case 3:
{
return 2;
}
default:
return 0;
}
}
"#,
        expect![[r#"
            int f(int x) {
                switch (x) {
                    case 0: return 1;
                    case 1:
                    case 2:
                        x += 1;
                        break;
                    case 3:
                        {
                            return 2;
                        }
                    default:
                        return 0;
                }
            }
        "#]],
    );
}

#[test]
fn unbraced_bodies_and_continuation_lines() {
    check(
        r#"
void f() {
if (a)
x = 1;
else if (b)
x = 2;
else
x = 3;
for (int i = 0; i < 4; i++)
for (int j = 0; j < 4; j++)
sum += i *
j;
float r = cond
? a
: b;
do
x--;
while (x > 0);
}
"#,
        expect![[r#"
            void f() {
                if (a)
                    x = 1;
                else if (b)
                    x = 2;
                else
                    x = 3;
                for (int i = 0; i < 4; i++)
                    for (int j = 0; j < 4; j++)
                        sum += i *
                            j;
                float r = cond
                    ? a
                    : b;
                do
                    x--;
                while (x > 0);
            }
        "#]],
    );
}

#[test]
fn brackets_opened_on_one_line_count_once() {
    check(
        r#"
void f() {
float4 c = mix(mix(a,
b, t), float4(1,
2, 3, 4), s);
g.map((float x) => {
return x;
});
int arr[] = {
1, 2,
3
};
}
"#,
        expect![[r#"
            void f() {
                float4 c = mix(mix(a,
                    b, t), float4(1,
                        2, 3, 4), s);
                g.map((float x) => {
                    return x;
                });
                int arr[] = {
                    1, 2,
                    3
                };
            }
        "#]],
    );
}

#[test]
fn attributes_semantics_and_declarations() {
    check(
        r#"
[shader("compute")]
[numthreads( 8,8,1 )]
void main(uint3 id:SV_DispatchThreadID) {}
[Differentiable]
float g(float x) { return x; }
struct V { float4 pos:SV_Position; int flags:3; };
cbuffer C:register(b0) { float4 v; }
struct S:IFoo,IBar {}
enum class E:int { A=1, B }
func h(x: int) -> int { return x; }
void k<T>(T x) where T:IFoo {}
layout(binding=0) uniform int q;
"#,
        expect![[r#"
            [shader("compute")]
            [numthreads( 8,8,1 )]
            void main(uint3 id : SV_DispatchThreadID) {}
            [Differentiable]
            float g(float x) { return x; }
            struct V { float4 pos : SV_Position; int flags : 3; };
            cbuffer C : register(b0) { float4 v; }
            struct S : IFoo, IBar {}
            enum class E : int { A = 1, B }
            func h(x: int) -> int { return x; }
            void k<T>(T x) where T : IFoo {}
            layout(binding = 0) uniform int q;
        "#]],
    );
}

#[test]
fn comments_directives_and_strings_are_untouched() {
    check(
        "#define  MAX(a,b)  ((a)>(b)?(a):(b))   \n  #if  FOO\nint   x ;   // trailing   \n  #endif\n/* block   comment\n     keeps   its   lines */\nstatic const char* s = \"a  ,b\"   ;\nint y;    /* inline */   int z;\n",
        expect![[r##"
            #define  MAX(a,b)  ((a)>(b)?(a):(b))
              #if  FOO
            int   x ;   // trailing   
              #endif
            /* block   comment
                 keeps   its   lines */
            static const char* s = "a  ,b";
            int y;    /* inline */   int z;
        "##]],
    );
}

#[test]
fn disabled_branches_are_untouched() {
    check(
        "#if 0\n  int   x=1;   \n      garbage {{{ \n#else\nint   y=2;\n#endif\nint z;",
        expect![[r#"
            #if 0
              int   x=1;   
                  garbage {{{ 
            #else
            int y = 2;
            #endif
            int z;
        "#]],
    );
}

#[test]
fn blank_lines_are_collapsed_and_file_ends_with_one_newline() {
    check(
        "\n\n\nint a;   \n\n\n\n\nint b;\n\nint c;\n\n\n",
        expect![[r#"
        int a;

        int b;

        int c;
    "#]],
    );
}

#[test]
fn line_comments_never_join_code() {
    check(
        "int a; // one\nint b; // two\n  // three\nint c;",
        expect![[r#"
        int a; // one
        int b; // two
        // three
        int c;
    "#]],
    );
}

#[test]
fn tabs_and_indent_width() {
    let text = "struct S {\nint a;\nvoid f() {\nif (a)\nreturn;\n}\n}\n";
    let tabs = FormatOptions { use_tabs: true, ..FormatOptions::default() };
    expect![[r#"
        struct S {
        	int a;
        	void f() {
        		if (a)
        			return;
        	}
        }
    "#]]
    .assert_eq(&format(text, &tabs));
    let two = FormatOptions { indent_width: 2, ..FormatOptions::default() };
    expect![[r#"
        struct S {
          int a;
          void f() {
            if (a)
              return;
          }
        }
    "#]]
    .assert_eq(&format(text, &two));
}

#[test]
fn crlf_line_endings_are_kept() {
    let out = format("void f()\r\n{\r\nint x;\r\n\r\n\r\n}", &opts());
    assert_eq!(out, "void f()\r\n{\r\n    int x;\r\n\r\n}\r\n");
}

#[test]
fn erroneous_code_is_only_reindented() {
    check(
        r#"
void f() {
int x = ;
  foo(1,,2 ;
  @@ weird   tokens  here
}
void g() {
return   1+2;
}
"#,
        expect![[r#"
            void f() {
                int x =;
                foo(1,,2;
              @@ weird tokens here
            }
            void g() {
                return 1 + 2;
            }
        "#]],
    );
}

#[test]
fn tokens_are_never_glued() {
    // Removing the space would make `--`, `...`, `.5`, `>>` or `>=`.
    check(
        "int a = - -b;\nint c = x - -1;\nint d = 1 . x;\nvector<vector<int> > v;\nbool e = f<int> >= 2;\n",
        expect![[r#"
            int a = - -b;
            int c = x - -1;
            int d = 1 .x;
            vector<vector<int> > v;
            bool e = f<int> >= 2;
        "#]],
    );
}

#[test]
fn range_formatting_edits_only_the_selected_lines() {
    let text = "void f() {\nint a=1;\nint b=2;\nint c=3;\n}\n";
    let root = parse(text).syntax_node();
    let line3 = text.find("int b").unwrap() as u32;
    let range = TextRange::at(TextSize::from(line3 + 2), TextSize::from(1));
    let edits = format_edits(text, &root, &opts(), Some(range));
    expect![[r#"
        void f() {
        int a=1;
            int b = 2;
        int c=3;
        }
    "#]]
    .assert_eq(&apply_edits(text, &edits));
}

#[test]
fn empty_and_whitespace_only_files() {
    assert_eq!(format("", &opts()), "");
    assert_eq!(format("  \n\n \t", &opts()), "");
    assert_eq!(format("\u{feff}int x;", &opts()), "\u{feff}int x;\n");
}

#[test]
fn a_long_file_formats_in_linear_time() {
    let body = "    if (x > 0) {\n        y = f(x, [&](int z) { return z; });\n    }\n";
    let text = format!("void f() {{\n{}}}\n", body.repeat(2000));
    let start = std::time::Instant::now();
    let out = format(&text, &opts());
    assert_eq!(out, text);
    // Generous: this runs in debug builds on a loaded machine.
    assert!(start.elapsed().as_secs() < 10, "took {:?}", start.elapsed());
}
