//! Semantic tokens, inlay hints and signature help.

mod common;

use common::fixture;
use expect_test::{expect, Expect};
use slang_analysis::ide::{self, SemanticToken, TOKEN_MODIFIERS};
use slang_analysis::{TextRange, TextSize};

/// Tokens as `line:col text kind [modifiers]`, one per line.
fn render_tokens(text: &str, tokens: &[SemanticToken]) -> String {
    let mut out = String::new();
    for t in tokens {
        let (line, col) = slang_syntax::line_col(text, t.range.start());
        let mods: Vec<&str> =
            TOKEN_MODIFIERS.iter().enumerate().filter(|(i, _)| t.modifiers & (1 << i) != 0).map(|(_, m)| *m).collect();
        let mods = if mods.is_empty() { String::new() } else { format!(" [{}]", mods.join(", ")) };
        out.push_str(&format!("{line}:{col} {} {}{mods}\n", &text[t.range], t.kind.name()));
    }
    out
}

/// The tokens of the fixture's file: all but keywords, operators, numbers
/// and comments unless `all`.
fn check_tokens(text: &str, all: bool, expect: Expect) {
    let fx = fixture(text);
    let file = *fx.files.last().unwrap();
    let src = file.text(&fx.db);
    let tokens = ide::semantic_tokens(&fx.db, file, None);
    assert_well_formed(src, &tokens);
    let shown: Vec<SemanticToken> = tokens
        .into_iter()
        .filter(|t| {
            all || !matches!(
                t.kind,
                ide::TokenKind::Keyword | ide::TokenKind::Operator | ide::TokenKind::Number | ide::TokenKind::Comment
            ) || t.modifiers != 0
        })
        .collect();
    expect.assert_eq(&render_tokens(src, &shown));
}

/// Sorted, not overlapping, each on one line and not empty.
fn assert_well_formed(text: &str, tokens: &[SemanticToken]) {
    for w in tokens.windows(2) {
        assert!(w[0].range.end() <= w[1].range.start(), "overlap or disorder: {:?} {:?}", w[0], w[1]);
    }
    for t in tokens {
        assert!(!t.range.is_empty());
        assert!(!text[t.range].contains('\n'), "multi-line token {:?}", t);
    }
}

#[test]
fn tokens_show_derivative_flow_in_a_differentiable_function() {
    check_tokens(
        r#"
[Differentiable]
float g(float v) { return v * v; }
float h(float v) { return v; }

[Differentiable]
float f(float x, no_diff float w, out float y)
{
    float scaled = w * 2.0;
    float sq = g(x);
    var frozen = detach(x);
    float acc = 0.0;
    for (int i = 0; i < 3; i++)
        acc += sq * float(i);
    y = acc + no_diff h(x);
    let s = sin(x) * scaled;
    return acc + frozen + s;
}
"#,
        false,
        expect![[r#"
            2:2 Differentiable decorator
            3:1 float type [defaultLibrary]
            3:7 g function [declaration, differentiable]
            3:9 float type [defaultLibrary]
            3:15 v parameter [declaration, differentiable]
            3:27 v parameter [differentiable]
            3:31 v parameter [differentiable]
            4:1 float type [defaultLibrary]
            4:7 h function [declaration]
            4:9 float type [defaultLibrary]
            4:15 v parameter [declaration]
            4:27 v parameter
            6:2 Differentiable decorator
            7:1 float type [defaultLibrary]
            7:7 f function [declaration, differentiable]
            7:9 float type [defaultLibrary]
            7:15 x parameter [declaration, differentiable]
            7:18 no_diff keyword [noDiff]
            7:26 float type [defaultLibrary]
            7:32 w parameter [declaration, noDiff]
            7:39 float type [defaultLibrary]
            7:45 y parameter [declaration, differentiable]
            9:5 float type [defaultLibrary]
            9:11 scaled variable [declaration]
            9:20 w parameter [noDiff]
            10:5 float type [defaultLibrary]
            10:11 sq variable [declaration, differentiable]
            10:16 g function [differentiable]
            10:18 x parameter [differentiable]
            11:9 frozen variable [declaration]
            11:18 detach function [defaultLibrary, noDiff]
            11:25 x parameter [differentiable]
            12:5 float type [defaultLibrary]
            12:11 acc variable [declaration, differentiable]
            13:10 int type [defaultLibrary]
            13:14 i variable [declaration]
            13:21 i variable
            13:28 i variable
            14:9 acc variable [differentiable]
            14:16 sq variable [differentiable]
            14:21 float type [defaultLibrary]
            14:27 i variable
            15:5 y parameter [differentiable]
            15:9 acc variable [differentiable]
            15:15 no_diff keyword [noDiff]
            15:23 h function
            15:25 x parameter [differentiable]
            16:9 s variable [declaration, readonly, differentiable]
            16:13 sin function [defaultLibrary, differentiable]
            16:17 x parameter [differentiable]
            16:22 scaled variable
            17:12 acc variable [differentiable]
            17:18 frozen variable
            17:27 s variable [readonly, differentiable]
        "#]],
    );
}

#[test]
fn tokens_of_types_members_generics_and_namespaces() {
    check_tokens(
        r#"
#define SCALE 2.0
#define MUL(a, b) ((a) * (b))
namespace util { float twice(float v) { return MUL(v, SCALE); } }
enum Mode { Fast, Exact = 2 }
interface IShape { float area(); }
struct Circle : IShape, IDifferentiable
{
    float r;
    no_diff int id;
    static const int kSides = 0;
    [Differentiable] float area() { return 3.14 * r * r; }
    [mutating] void grow(float by) { r += by; }
}
T pick<T : IShape, let N : int>(T a, T b) { return N > 0 ? a : b; }
/* block
   comment */
void main(uint3 tid : SV_DispatchThreadID)
{
    Circle c = { 1.0, 0 };
    c.grow(util::twice(c.r));
    Mode m = Mode.Fast;
    m = Mode::Exact;
    int k = Circle.kSides + Circle::kSides;
    float a = pick<Circle, 2>(c, c).area();
    float4 v = float4(1.0, 2.0, 3.0, 4.0);
    float2 s = v.xy;
}
"#,
        true,
        expect![[r#"
            2:1 # keyword
            2:2 define keyword
            2:9 SCALE macro [declaration]
            2:15 2.0 number
            3:1 # keyword
            3:2 define keyword
            3:9 MUL macro [declaration]
            3:13 a parameter [declaration]
            3:16 b parameter [declaration]
            4:1 namespace keyword
            4:11 util namespace [declaration]
            4:18 float type [defaultLibrary]
            4:24 twice function [declaration]
            4:30 float type [defaultLibrary]
            4:36 v parameter [declaration]
            4:41 return keyword
            4:48 MUL macro
            4:52 v parameter
            4:55 SCALE macro
            5:1 enum keyword
            5:6 Mode enum [declaration]
            5:13 Fast enumMember [declaration]
            5:19 Exact enumMember [declaration]
            5:27 2 number
            6:1 interface keyword
            6:11 IShape interface [declaration]
            6:20 float type [defaultLibrary]
            6:26 area method [declaration]
            7:1 struct keyword
            7:8 Circle struct [declaration]
            7:17 IShape interface
            7:25 IDifferentiable interface [defaultLibrary]
            9:5 float type [defaultLibrary]
            9:11 r property [declaration]
            10:5 no_diff keyword [noDiff]
            10:13 int type [defaultLibrary]
            10:17 id property [declaration, noDiff]
            11:5 static keyword
            11:12 const keyword
            11:18 int type [defaultLibrary]
            11:22 kSides property [declaration, readonly, static]
            11:29 = operator
            11:31 0 number
            12:6 Differentiable decorator
            12:22 float type [defaultLibrary]
            12:28 area method [declaration, differentiable]
            12:37 return keyword
            12:44 3.14 number
            12:49 * operator
            12:51 r property [differentiable]
            12:53 * operator
            12:55 r property [differentiable]
            13:6 mutating decorator
            13:16 void type [defaultLibrary]
            13:21 grow method [declaration]
            13:26 float type [defaultLibrary]
            13:32 by parameter [declaration]
            13:38 r property
            13:40 += operator
            13:43 by parameter
            15:1 T typeParameter
            15:3 pick function [declaration]
            15:8 T typeParameter [declaration]
            15:12 IShape interface
            15:20 let keyword
            15:24 N typeParameter [declaration, readonly]
            15:28 int type [defaultLibrary]
            15:33 T typeParameter
            15:35 a parameter [declaration]
            15:38 T typeParameter
            15:40 b parameter [declaration]
            15:45 return keyword
            15:52 N typeParameter [readonly]
            15:54 > operator
            15:56 0 number
            15:58 ? operator
            15:60 a parameter
            15:62 : operator
            15:64 b parameter
            16:1 /* block comment
            17:1    comment */ comment
            18:1 void type [defaultLibrary]
            18:6 main function [declaration]
            18:11 uint3 type [defaultLibrary]
            18:17 tid parameter [declaration]
            18:23 SV_DispatchThreadID decorator
            20:5 Circle struct
            20:12 c variable [declaration]
            20:14 = operator
            20:18 1.0 number
            20:23 0 number
            21:5 c variable
            21:7 grow method
            21:12 util namespace
            21:18 twice function
            21:24 c variable
            21:26 r property
            22:5 Mode enum
            22:10 m variable [declaration]
            22:12 = operator
            22:14 Mode enum
            22:19 Fast enumMember
            23:5 m variable
            23:7 = operator
            23:9 Mode enum
            23:15 Exact enumMember
            24:5 int type [defaultLibrary]
            24:9 k variable [declaration]
            24:11 = operator
            24:13 Circle struct
            24:20 kSides property [readonly, static]
            24:27 + operator
            24:29 Circle struct
            24:37 kSides property [readonly, static]
            25:5 float type [defaultLibrary]
            25:11 a variable [declaration]
            25:13 = operator
            25:15 pick function
            25:20 Circle struct
            25:28 2 number
            25:31 c variable
            25:34 c variable
            25:37 area method [differentiable]
            26:5 float4 type [defaultLibrary]
            26:12 v variable [declaration]
            26:14 = operator
            26:16 float4 type [defaultLibrary]
            26:23 1.0 number
            26:28 2.0 number
            26:33 3.0 number
            26:38 4.0 number
            27:5 float2 type [defaultLibrary]
            27:12 s variable [declaration]
            27:14 = operator
            27:16 v variable
            27:18 xy property
        "#]],
    );
}

#[test]
fn range_requests_only_return_tokens_in_the_range() {
    let text = r#"
float first(float a) { return a; }
[Differentiable]
float second(float x)
{
    float y = x * 2.0;
    return y;
}
float third(float b) { return b; }
"#;
    let fx = fixture(text);
    let file = fx.files[0];
    let src = file.text(&fx.db);
    let start = src.find("    float y").unwrap() as u32;
    let end = src.find("    return y").unwrap() as u32;
    let range = TextRange::new(TextSize::from(start), TextSize::from(end));
    let tokens = ide::semantic_tokens(&fx.db, file, Some(range));
    assert_well_formed(src, &tokens);
    // The same tokens as a full request, restricted to the range.
    let full: Vec<SemanticToken> = ide::semantic_tokens(&fx.db, file, None)
        .into_iter()
        .filter(|t| t.range.start() < range.end() && range.start() < t.range.end())
        .collect();
    assert_eq!(tokens, full);
    expect![[r#"
        6:5 float type [defaultLibrary]
        6:11 y variable [declaration, differentiable]
        6:13 = operator
        6:15 x parameter [differentiable]
        6:17 * operator
        6:19 2.0 number
    "#]]
    .assert_eq(&render_tokens(src, &tokens));
}

/// Inlay hints of the whole file, as `line:col kind label` with the hint
/// placed in the line's text.
fn check_inlay(text: &str, cfg: &ide::InlayConfig, expect: Expect) {
    let fx = fixture(text);
    let file = fx.files[0];
    let src = file.text(&fx.db);
    let range = TextRange::up_to(TextSize::of(src));
    let mut out = String::new();
    for h in ide::inlay_hints(&fx.db, file, range, cfg) {
        let (line, col) = slang_syntax::line_col(src, h.offset);
        out.push_str(&format!("{line}:{col} {:?} {}\n", h.kind, h.label));
    }
    expect.assert_eq(&out);
}

#[test]
fn inlay_hints_for_types_parameters_and_derivatives() {
    check_inlay(
        r#"
struct Ray { float3 origin; float3 dir; }
float shade(float3 normal, float3 lightDir, float roughness) { return dot(normal, lightDir) * roughness; }
float setScale(float scale) { return scale; }

[Differentiable]
float f(float x, no_diff float w) { return x * x * w; }

void main(Ray ray, float3 normal)
{
    let d = dot(ray.dir, normal);
    var s = shade(normal, ray.dir, 0.5);
    let v = float3(1.0, 2.0, 3.0);
    let t = setScale(2.0);
    var p = diffPair(1.0, 1.0);
    let r = fwd_diff(f)(p, 2.0);
    var dp = diffPair(3.0, 0.0);
    bwd_diff(f)(dp, 2.0, 1.0);
    for (var i = 0; i < 3; i++) {}
}
"#,
        &ide::InlayConfig::default(),
        expect![[r#"
            7:34 Derivative DifferentialPair<float> fwd_diff(f)(DifferentialPair<float> x, float w)
            7:34 Derivative void bwd_diff(f)(inout DifferentialPair<float> x, float w, float dResult)
            11:10 Type : float
            12:10 Type : float
            12:27 Parameter lightDir:
            12:36 Parameter roughness:
            14:10 Type : float
            15:10 Type : DifferentialPair<float>
            15:22 Parameter primal:
            15:27 Parameter differential:
            16:10 Type : DifferentialPair<float>
            16:25 Parameter x:
            16:28 Parameter w:
            17:11 Type : DifferentialPair<float>
            17:23 Parameter primal:
            17:28 Parameter differential:
            18:17 Parameter x:
            18:21 Parameter w:
            18:26 Parameter dResult:
            19:15 Type : int
        "#]],
    );
}

#[test]
fn inlay_hints_follow_the_config_and_the_range() {
    let text = r#"
struct Light : IDifferentiable
{
    float v;
    [Differentiable] float scaled(float k) { return v * k; }
}
[ForwardDifferentiable]
float half(float x) { return x * 0.5; }
void main(Light light)
{
    let a = light.scaled(2.0);
    var b = half(a);
}
"#;
    let no_types = ide::InlayConfig { types: false, ..Default::default() };
    check_inlay(
        text,
        &no_types,
        expect![[r#"
            5:43 Derivative DifferentialPair<float> fwd_diff(scaled)(DifferentialPair<Light> this, DifferentialPair<float> k)
            5:43 Derivative void bwd_diff(scaled)(inout DifferentialPair<Light> this, inout DifferentialPair<float> k, float dResult)
            8:20 Derivative DifferentialPair<float> fwd_diff(half)(DifferentialPair<float> x)
        "#]],
    );
    let fx = fixture(text);
    let file = fx.files[0];
    let src = file.text(&fx.db);
    let start = TextSize::from(src.find("void main").unwrap() as u32);
    let hints = ide::inlay_hints(&fx.db, file, TextRange::new(start, TextSize::of(src)), &Default::default());
    let labels: Vec<String> = hints.iter().map(|h| h.label.clone()).collect();
    assert_eq!(labels, [": float", ": float"]);
}

/// Signature help at `$0`: one line per signature (`>` the active one),
/// the active parameter in `[…]`, the others in `‹…›`.
fn check_signature(text: &str, expect: Expect) {
    let fx = fixture(text);
    let (file, offset) = fx.cursor.expect("fixture needs $0");
    let out = match ide::signature_help(&fx.db, file, TextSize::from(offset)) {
        None => "no signature help\n".to_string(),
        Some(help) => {
            let mut out = String::new();
            for (i, s) in help.signatures.iter().enumerate() {
                let mut label = String::new();
                let mut at = 0;
                for (j, &(start, end)) in s.params.iter().enumerate() {
                    let (open, close) = if j == help.active_parameter { ("[", "]") } else { ("‹", "›") };
                    label.push_str(&s.label[at..start as usize]);
                    label.push_str(open);
                    label.push_str(&s.label[start as usize..end as usize]);
                    label.push_str(close);
                    at = end as usize;
                }
                label.push_str(&s.label[at..]);
                let marker = if i == help.active_signature { ">" } else { " " };
                out.push_str(&format!("{marker} {label}\n"));
                if let Some(doc) = &s.doc {
                    out.push_str(&format!("    {}\n", doc.replace('\n', " ")));
                }
            }
            out
        }
    };
    expect.assert_eq(&out);
}

const OVERLOADS: &str = r#"
/// Mixes two values.
float mix(float a, float b) { return a + b; }
/// Mixes with a weight.
float mix(float a, float b, float t) { return a * t + b; }
struct Acc
{
    float sum;
    [mutating] void add(float v, float weight = 1.0) { sum += v * weight; }
    __init(float start) { sum = start; }
}
[Differentiable]
float sq(float x, no_diff float k) { return x * x * k; }
"#;

#[test]
fn signature_help_for_overloads_methods_and_constructors() {
    check_signature(
        &format!("{OVERLOADS}\nfloat use(float x) {{ return mix(x, $0); }}"),
        expect![[r#"
            > float mix(‹float a›, [float b])
                Mixes two values.
              float mix(‹float a›, [float b], ‹float t›)
                Mixes with a weight.
        "#]],
    );
    check_signature(
        &format!("{OVERLOADS}\nfloat use(float x) {{ return mix(x, x, $0); }}"),
        expect![[r#"
              float mix(‹float a›, ‹float b›)
                Mixes two values.
            > float mix(‹float a›, ‹float b›, [float t])
                Mixes with a weight.
        "#]],
    );
    check_signature(
        &format!("{OVERLOADS}\nvoid use(Acc acc) {{ acc.add(1.0, $0); }}"),
        expect![[r#"
            > void add(‹float v›, [float weight = 1.0])
        "#]],
    );
    check_signature(
        &format!("{OVERLOADS}\nvoid use() {{ Acc acc = Acc($0); }}"),
        expect![[r#"
            > Acc([float start])
        "#]],
    );
    // Nested calls and generic arguments: the innermost call; commas
    // inside inner parentheses do not count.
    check_signature(
        &format!("{OVERLOADS}\nfloat use(float x) {{ return mix(mix(x, x), max(x, x), $0); }}"),
        expect![[r#"
              float mix(‹float a›, ‹float b›)
                Mixes two values.
            > float mix(‹float a›, ‹float b›, [float t])
                Mixes with a weight.
        "#]],
    );
    check_signature(
        &format!("{OVERLOADS}\nfloat use(float x) {{ return mix(x, mix(x, $0)); }}"),
        expect![[r#"
            > float mix(‹float a›, [float b])
                Mixes two values.
              float mix(‹float a›, [float b], ‹float t›)
                Mixes with a weight.
        "#]],
    );
    check_signature(
        &format!("{OVERLOADS}\nfloat use(float x) {{ return mix(x, x)$0; }}"),
        expect![[r#"
        no signature help
    "#]],
    );
}

#[test]
fn signature_help_in_unfinished_code() {
    check_signature(
        &format!("{OVERLOADS}\nfloat use(float x) {{ return mix(x, $0"),
        expect![[r#"
        > float mix(‹float a›, [float b])
            Mixes two values.
          float mix(‹float a›, [float b], ‹float t›)
            Mixes with a weight.
    "#]],
    );
    check_signature(
        &format!("{OVERLOADS}\nmix(1.0, $0"),
        expect![[r#"
        > float mix(‹float a›, [float b])
            Mixes two values.
          float mix(‹float a›, [float b], ‹float t›)
            Mixes with a weight.
    "#]],
    );
    check_signature(
        &format!("{OVERLOADS}\nfloat use(float x) {{ return sq(x, mix($0"),
        expect![[r#"
        > float mix([float a], ‹float b›)
            Mixes two values.
          float mix([float a], ‹float b›, ‹float t›)
            Mixes with a weight.
    "#]],
    );
}

#[test]
fn signature_help_shows_derivative_signatures() {
    check_signature(
        &format!("{OVERLOADS}\nvoid use(float x) {{ let r = fwd_diff(sq)(diffPair(x, 1.0), $0); }}"),
        expect![[r#"
            > DifferentialPair<float> fwd_diff(sq)(‹DifferentialPair<float> x›, [float k])
        "#]],
    );
    check_signature(
        &format!("{OVERLOADS}\nvoid use(float x) {{ var p = diffPair(x, 0.0); bwd_diff(sq)(p, 2.0, $0); }}"),
        expect![[r#"
            > void bwd_diff(sq)(‹inout DifferentialPair<float> x›, ‹float k›, [float dResult])
        "#]],
    );
    check_signature(
        &format!("{OVERLOADS}\nvoid use(float x) {{ fwd_diff(fwd_diff(sq))($0); }}"),
        expect![[r#"
            > DifferentialPair<DifferentialPair<float>> fwd_diff(fwd_diff(sq))([DifferentialPair<DifferentialPair<float>> x], ‹float k›)
        "#]],
    );
    check_signature(
        &format!("{OVERLOADS}\nvoid use(float x) {{ bwd_diff(fwd_diff(sq))($0 }}"),
        expect![[r#"
            > void bwd_diff(fwd_diff(sq))([inout DifferentialPair<DifferentialPair<float>> x], ‹float k›, ‹DifferentialPair<float> dResult›)
        "#]],
    );
}

#[test]
fn tokens_of_core_module_calls_pairs_and_custom_derivatives() {
    check_tokens(
        r#"
struct Light : IDifferentiable
{
    float3 dir;
    float intensity;
    [Differentiable] float power() { return this.intensity * length(dir); }
}

DifferentialPair<float> cube_fwd(DifferentialPair<float> x)
{
    let p = x.p;
    return diffPair(p * p * p, 3.0 * p * p * x.d);
}

[ForwardDerivative(cube_fwd)]
float cube(float x) { return x * x * x; }

[Differentiable]
float render(Light l, float t)
{
    float3 n = normalize(l.dir);
    float e = exp(t) + cube(t) + l.power();
    uint count = countbits(7u);
    return e * n.x + float(count);
}
"#,
        false,
        expect![[r#"
            2:8 Light struct [declaration]
            2:16 IDifferentiable interface [defaultLibrary]
            4:5 float3 type [defaultLibrary]
            4:12 dir property [declaration]
            5:5 float type [defaultLibrary]
            5:11 intensity property [declaration]
            6:6 Differentiable decorator
            6:22 float type [defaultLibrary]
            6:28 power method [declaration, differentiable]
            6:45 this keyword [differentiable]
            6:50 intensity property [differentiable]
            6:62 length function [defaultLibrary, differentiable]
            6:69 dir property [differentiable]
            9:1 DifferentialPair struct [defaultLibrary]
            9:18 float type [defaultLibrary]
            9:25 cube_fwd function [declaration]
            9:34 DifferentialPair struct [defaultLibrary]
            9:51 float type [defaultLibrary]
            9:58 x parameter [declaration]
            11:9 p variable [declaration, readonly]
            11:13 x parameter
            11:15 p property [defaultLibrary]
            12:12 diffPair function [defaultLibrary]
            12:21 p variable [readonly]
            12:25 p variable [readonly]
            12:29 p variable [readonly]
            12:38 p variable [readonly]
            12:42 p variable [readonly]
            12:46 x parameter
            12:48 d property [defaultLibrary]
            15:2 ForwardDerivative decorator
            15:20 cube_fwd function
            16:1 float type [defaultLibrary]
            16:7 cube function [declaration, differentiable]
            16:12 float type [defaultLibrary]
            16:18 x parameter [declaration]
            16:30 x parameter
            16:34 x parameter
            16:38 x parameter
            18:2 Differentiable decorator
            19:1 float type [defaultLibrary]
            19:7 render function [declaration, differentiable]
            19:14 Light struct
            19:20 l parameter [declaration, differentiable]
            19:23 float type [defaultLibrary]
            19:29 t parameter [declaration, differentiable]
            21:5 float3 type [defaultLibrary]
            21:12 n variable [declaration, differentiable]
            21:16 normalize function [defaultLibrary, differentiable]
            21:26 l parameter [differentiable]
            21:28 dir property [differentiable]
            22:5 float type [defaultLibrary]
            22:11 e variable [declaration, differentiable]
            22:15 exp function [defaultLibrary, differentiable]
            22:19 t parameter [differentiable]
            22:24 cube function [differentiable]
            22:29 t parameter [differentiable]
            22:34 l parameter [differentiable]
            22:36 power method [differentiable]
            23:5 uint type [defaultLibrary]
            23:10 count variable [declaration]
            23:18 countbits function [defaultLibrary]
            24:12 e variable [differentiable]
            24:16 n variable [differentiable]
            24:18 x property [differentiable]
            24:22 float type [defaultLibrary]
            24:28 count variable
        "#]],
    );
}

/// The corpus programs (valid and rejected), whole and cut short.
fn corpus() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut out = Vec::new();
    for dir in ["valid", "rejected"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for p in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "slang")) {
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            for cut in [text.len() / 3, text.len() * 2 / 3] {
                let cut = (0..=cut).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
                out.push(text[..cut].to_string());
            }
            out.push(text);
        }
    }
    out
}

/// On every corpus program (one after the other in one database, as
/// edits): tokens are well formed and a range request gives the full
/// request's tokens in the range; inlay hints and signature help (after
/// every `(` and `,`, and at the end) do not panic.
#[test]
fn ide_features_hold_on_the_corpus() {
    let mut db = slang_analysis::RootDatabase::new();
    for text in corpus() {
        let file = db.set_file("/main.slang", &text);
        let src = file.text(&db);
        let full = ide::semantic_tokens(&db, file, None);
        assert_well_formed(src, &full);
        let len = TextSize::of(src);
        let third = |k: usize| TextSize::from((src.len() * k / 3) as u32);
        let range = TextRange::new(third(1), third(2));
        let part = ide::semantic_tokens(&db, file, Some(range));
        let expected: Vec<SemanticToken> =
            full.into_iter().filter(|t| t.range.start() < range.end() && range.start() < t.range.end()).collect();
        assert_eq!(part, expected);
        // (Other features take offsets of the semantic tree: the
        // macro-expanded text.)
        let at = |o: TextSize| slang_analysis::to_expanded_offset(&db, file, o);
        let _ = ide::inlay_hints(&db, file, TextRange::up_to(at(len)), &Default::default());
        for (i, c) in src.char_indices() {
            if c == '(' || c == ',' {
                let _ = ide::signature_help(&db, file, at(TextSize::from(i as u32 + 1)));
            }
        }
        let _ = ide::signature_help(&db, file, at(len));
    }
}
