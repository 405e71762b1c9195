//! References, highlights, rename, and workspace-wide navigation (go to
//! implementation, type definition, declaration; workspace symbols) at
//! cursor positions (`$0`).

mod common;

use common::{fixture, Fixture};
use expect_test::{expect, Expect};
use slang_analysis::ide::{self, NavTarget};
use slang_analysis::{SourceFile, TextRange, TextSize};

/// `path:line` and the line with the range bracketed.
fn show_range(fx: &Fixture, file: SourceFile, range: TextRange) -> String {
    let text = file.text(&fx.db);
    let (start, end) = (usize::from(range.start()), usize::from(range.end()));
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let line = text[..start].matches('\n').count() + 1;
    format!(
        "{}:{line} {}[{}]{}",
        file.path(&fx.db),
        text[line_start..start].trim_start(),
        &text[start..end],
        &text[end..line_end]
    )
}

fn cursor(fx: &Fixture) -> (SourceFile, TextSize) {
    let (file, offset) = fx.cursor.expect("fixture needs $0");
    (file, TextSize::from(offset))
}

fn check_refs(text: &str, expect: Expect) {
    let fx = fixture(text);
    let (file, offset) = cursor(&fx);
    let mut out = String::new();
    for r in ide::find_references(&fx.db, file, offset, true) {
        let tags = match (r.is_declaration, r.is_write) {
            (true, true) => " (decl, write)",
            (true, false) => " (decl)",
            (false, true) => " (write)",
            (false, false) => "",
        };
        out.push_str(&format!("{}{tags}\n", show_range(&fx, r.file, r.range)));
    }
    expect.assert_eq(&out);
}

fn check_highlights(text: &str, expect: Expect) {
    let fx = fixture(text);
    let (file, offset) = cursor(&fx);
    let mut out = String::new();
    for (range, kind) in ide::document_highlights(&fx.db, file, offset) {
        out.push_str(&format!("{kind:?} {}\n", show_range(&fx, file, range)));
    }
    expect.assert_eq(&out);
}

/// The changed files after the rename, or the refusal.
fn check_rename(text: &str, new_name: &str, expect: Expect) {
    let fx = fixture(text);
    let (file, offset) = cursor(&fx);
    let out = match ide::rename(&fx.db, file, offset, new_name) {
        Err(e) => format!("error: {e}\n"),
        Ok(edits) => {
            let mut out = String::new();
            for &f in &fx.files {
                let mut mine: Vec<&(SourceFile, TextRange, String)> = edits.iter().filter(|e| e.0 == f).collect();
                if mine.is_empty() {
                    continue;
                }
                mine.sort_by_key(|e| std::cmp::Reverse(e.1.start()));
                let mut text = f.text(&fx.db).clone();
                for (_, range, new) in mine {
                    text.replace_range(usize::from(range.start())..usize::from(range.end()), new);
                }
                out.push_str(&format!("//- {}\n{text}", f.path(&fx.db)));
            }
            out
        }
    };
    expect.assert_eq(&out);
}

fn show_navs(fx: &Fixture, navs: &[NavTarget]) -> String {
    navs.iter()
        .map(|t| {
            let src = t.file.text(&fx.db);
            let line = src[..usize::from(t.focus_range.start())].matches('\n').count() + 1;
            format!(
                "{}:{line} `{}` in `{}`\n",
                t.file.path(&fx.db),
                &src[t.focus_range],
                src[t.full_range].lines().next().unwrap_or("").trim()
            )
        })
        .collect()
}

fn check_nav(text: &str, f: fn(&dyn slang_analysis::Db, SourceFile, TextSize) -> Vec<NavTarget>, expect: Expect) {
    let fx = fixture(text);
    let (file, offset) = cursor(&fx);
    expect.assert_eq(&show_navs(&fx, &f(&fx.db, file, offset)));
}

#[test]
fn references_of_a_parameter_with_reads_and_writes() {
    check_refs(
        r#"
void bump(inout float v) { v += 1.0; }
void reset(out float v) { v = 0.0; }
float twice(float v) { return v * 2.0; }

float f(float a$0, int n)
{
    float acc = a;
    acc = acc * a;
    a = 1.0;
    a++;
    bump(a);
    reset(a);
    acc += twice(a) + (a);
    {
        float a = 3.0;
        acc += a;
    }
    return acc + a;
}
float g(float a) { return a; }
"#,
        expect![[r#"
            /main.slang:6 float f(float [a], int n) (decl)
            /main.slang:8 float acc = [a];
            /main.slang:9 acc = acc * [a];
            /main.slang:10 [a] = 1.0; (write)
            /main.slang:11 [a]++; (write)
            /main.slang:12 bump([a]); (write)
            /main.slang:13 reset([a]); (write)
            /main.slang:14 acc += twice([a]) + (a);
            /main.slang:14 acc += twice(a) + ([a]);
            /main.slang:19 return acc + [a];
        "#]],
    );
}

#[test]
fn references_of_locals_written_through_elements_and_fields() {
    check_refs(
        r#"
struct Ray { float3 origin; float tmax; }
void clip(inout Ray r) { r.tmax = 1.0; }
float f(float3 o)
{
    Ray ray$0s[2];
    rays[0].origin = o;
    rays[1].tmax += 2.0;
    clip(rays[1]);
    return rays[0].tmax + rays[1].origin.x;
}
"#,
        expect![[r#"
            /main.slang:6 Ray [rays][2]; (decl)
            /main.slang:7 [rays][0].origin = o; (write)
            /main.slang:8 [rays][1].tmax += 2.0; (write)
            /main.slang:9 clip([rays][1]); (write)
            /main.slang:10 return [rays][0].tmax + rays[1].origin.x;
            /main.slang:10 return rays[0].tmax + [rays][1].origin.x;
        "#]],
    );
}

#[test]
fn references_of_a_function_across_modules() {
    let text = r#"
//- /lib.slang
module lib;
public float helper(float x) { return x * 2.0; }
public float twice(float x) { return helper(helper(x)); }
//- /main.slang
import lib;
float g(float x) { return hel$0per(x) + twice(x); }
//- /other.slang
float helper(float x) { return x; }
float h(float x) { return helper(x); }
"#;
    check_refs(
        text,
        expect![[r#"
        /lib.slang:2 public float [helper](float x) { return x * 2.0; } (decl)
        /lib.slang:3 public float twice(float x) { return [helper](helper(x)); }
        /lib.slang:3 public float twice(float x) { return helper([helper](x)); }
        /main.slang:2 float g(float x) { return [helper](x) + twice(x); }
    "#]],
    );
}

#[test]
fn references_of_overloads_follow_the_argument_count() {
    check_refs(
        r#"
float blend(float a, float b) { return a + b; }
float ble$0nd(float a, float b, float t) { return a + (b - a) * t; }
float use(float x) { return blend(x, x) + blend(x, x, 0.5); }
"#,
        expect![[r#"
            /main.slang:3 float [blend](float a, float b, float t) { return a + (b - a) * t; } (decl)
            /main.slang:4 float use(float x) { return blend(x, x) + [blend](x, x, 0.5); }
        "#]],
    );
}

const PARTICLE: &str = r#"
struct Particle
{
    float3 pos;
    float3 vel;
    [mutating] void step(float dt) { pos += vel * dt; this.pos.y = max(this.pos.y, 0.0); }
    float3 position() { return pos; }
}
void simulate(inout Particle p, Particle q[2])
{
    p.step(0.1);
    p.pos = q[0].pos;
    float3 x = p.position();
}
"#;

#[test]
fn references_of_fields_and_methods_through_this_and_variables() {
    check_refs(
        &PARTICLE.replace("float3 pos;", "float3 p$0os;"),
        expect![[r#"
        /main.slang:4 float3 [pos]; (decl)
        /main.slang:6 [mutating] void step(float dt) { [pos] += vel * dt; this.pos.y = max(this.pos.y, 0.0); } (write)
        /main.slang:6 [mutating] void step(float dt) { pos += vel * dt; this.[pos].y = max(this.pos.y, 0.0); } (write)
        /main.slang:6 [mutating] void step(float dt) { pos += vel * dt; this.pos.y = max(this.[pos].y, 0.0); }
        /main.slang:7 float3 position() { return [pos]; }
        /main.slang:12 p.[pos] = q[0].pos; (write)
        /main.slang:12 p.pos = q[0].[pos];
    "#]],
    );
    check_refs(
        &PARTICLE.replace("p.step(", "p.st$0ep("),
        expect![[r#"
        /main.slang:6 [mutating] void [step](float dt) { pos += vel * dt; this.pos.y = max(this.pos.y, 0.0); } (decl)
        /main.slang:11 p.[step](0.1);
    "#]],
    );
}

const SHAPES: &str = r#"
namespace shapes
{
    struct Circle { float r; }
    float area(Circle c) { return 3.14 * c.r * c.r; }
    namespace detail { float sq(float x) { return x * x; } }
}
enum Mode { Fast, Precise }
T pick<T>(T a, T b, Mode m) { return m == Mode.Fast ? a : b; }
float main(shapes::Circle c)
{
    shapes::Circle d = c;
    Mode m = Mode::Precise;
    if (m == Mode.Fast) return shapes::detail::sq(c.r);
    return pick<float>(shapes::area(c), shapes::area(d), m);
}
"#;

#[test]
fn references_of_types_enum_cases_namespaces_and_generic_parameters() {
    check_refs(
        &SHAPES.replace("struct Circle", "struct Cir$0cle"),
        expect![[r#"
        /main.slang:4 struct [Circle] { float r; } (decl)
        /main.slang:5 float area([Circle] c) { return 3.14 * c.r * c.r; }
        /main.slang:10 float main(shapes::[Circle] c)
        /main.slang:12 shapes::[Circle] d = c;
    "#]],
    );
    check_refs(
        &SHAPES.replace("Fast, Precise", "Fa$0st, Precise"),
        expect![[r#"
        /main.slang:8 enum Mode { [Fast], Precise } (decl)
        /main.slang:9 T pick<T>(T a, T b, Mode m) { return m == Mode.[Fast] ? a : b; }
        /main.slang:14 if (m == Mode.[Fast]) return shapes::detail::sq(c.r);
    "#]],
    );
    check_refs(
        &SHAPES.replace("Mode::Precise", "Mode::Prec$0ise"),
        expect![[r#"
        /main.slang:8 enum Mode { Fast, [Precise] } (decl)
        /main.slang:13 Mode m = Mode::[Precise];
    "#]],
    );
    check_refs(
        &SHAPES.replace("float main(shapes::", "float main(sha$0pes::"),
        expect![[r#"
        /main.slang:2 namespace [shapes] (decl)
        /main.slang:10 float main([shapes]::Circle c)
        /main.slang:12 [shapes]::Circle d = c;
        /main.slang:14 if (m == Mode.Fast) return [shapes]::detail::sq(c.r);
        /main.slang:15 return pick<float>([shapes]::area(c), shapes::area(d), m);
        /main.slang:15 return pick<float>(shapes::area(c), [shapes]::area(d), m);
    "#]],
    );
    check_refs(
        &SHAPES.replace("shapes::detail::sq", "shapes::det$0ail::sq"),
        expect![[r#"
        /main.slang:6 namespace [detail] { float sq(float x) { return x * x; } } (decl)
        /main.slang:14 if (m == Mode.Fast) return shapes::[detail]::sq(c.r);
    "#]],
    );
    check_refs(
        &SHAPES.replace("T pick<T>(T a", "T pick<T>(T$0 a"),
        expect![[r#"
        /main.slang:9 [T] pick<T>(T a, T b, Mode m) { return m == Mode.Fast ? a : b; }
        /main.slang:9 T pick<[T]>(T a, T b, Mode m) { return m == Mode.Fast ? a : b; } (decl)
        /main.slang:9 T pick<T>([T] a, T b, Mode m) { return m == Mode.Fast ? a : b; }
        /main.slang:9 T pick<T>(T a, [T] b, Mode m) { return m == Mode.Fast ? a : b; }
    "#]],
    );
}

const AUTODIFF: &str = r#"
[Differentiable]
float sq(float x) { return x * x; }

[ForwardDerivative(cubeFwd)]
[BackwardDerivative(cubeBwd)]
float cube(float x) { return x * x * x; }
DifferentialPair<float> cubeFwd(DifferentialPair<float> x)
{
    return diffPair(cube(x.p), 3.0 * x.p * x.p * x.d);
}
void cubeBwd(inout DifferentialPair<float> x, float dOut)
{
    x = diffPair(x.p, 3.0 * x.p * x.p * dOut);
}

[Differentiable]
float loss(float x) { return sq(cube(x)); }

struct Spring
{
    float k;
    [BackwardDerivative(energyBwd)]
    float energy(float x) { return 0.5 * k * x * x; }
    static void energyBwd(inout DifferentialPair<float> x, float d) { }
}

void train(inout float w)
{
    var dp = diffPair(w, 1.0);
    let r = fwd_diff(loss)(dp);
    bwd_diff(loss)(dp, 1.0);
    w -= dp.d;
}
"#;

#[test]
fn references_in_autodiff_code() {
    // `fwd_diff(loss)` and `bwd_diff(loss)` refer to `loss`.
    check_refs(
        &AUTODIFF.replace("float loss(", "float lo$0ss("),
        expect![[r#"
        /main.slang:18 float [loss](float x) { return sq(cube(x)); } (decl)
        /main.slang:31 let r = fwd_diff([loss])(dp);
        /main.slang:32 bwd_diff([loss])(dp, 1.0);
    "#]],
    );
    // Derivative attributes name their functions.
    check_refs(
        &AUTODIFF.replace("void cubeBwd(", "void cube$0Bwd("),
        expect![[r#"
        /main.slang:6 [BackwardDerivative([cubeBwd])]
        /main.slang:12 void [cubeBwd](inout DifferentialPair<float> x, float dOut) (decl)
    "#]],
    );
    check_refs(
        &AUTODIFF.replace("static void energyBwd(", "static void energy$0Bwd("),
        expect![[r#"
        /main.slang:23 [BackwardDerivative([energyBwd])]
        /main.slang:25 static void [energyBwd](inout DifferentialPair<float> x, float d) { } (decl)
    "#]],
    );
    // The pair passed to `bwd_diff(loss)` is `inout`: written.
    check_refs(
        &AUTODIFF.replace("var dp =", "var d$0p ="),
        expect![[r#"
        /main.slang:30 var [dp] = diffPair(w, 1.0); (decl, write)
        /main.slang:31 let r = fwd_diff(loss)([dp]);
        /main.slang:32 bwd_diff(loss)([dp], 1.0); (write)
        /main.slang:33 w -= [dp].d;
    "#]],
    );
}

const CONFORMANCE: &str = r#"
interface IShape
{
    float area();
    associatedtype Scalar;
}
interface IRegion : IShape { float perimeter(); }
struct Square : IShape
{
    float s;
    float area() { return s * s; }
    typealias Scalar = float;
}
struct Disk { float r; }
extension Disk : IShape
{
    float area() { return 3.14 * r * r; }
    typealias Scalar = float;
}
struct Rect : IRegion
{
    float w, h;
    float area() { return w * h; }
    float perimeter() { return 2.0 * (w + h); }
    typealias Scalar = float;
}
struct Tile : Square { }
struct Plain { float area() { return 0.0; } }
float total<T : IShape>(T shape) { return shape.area(); }
float direct(Square s, Disk d) { return s.area() + d.area(); }
"#;

#[test]
fn references_of_an_interface_requirement_are_calls_through_the_interface() {
    check_refs(
        &CONFORMANCE.replace("    float area();", "    float ar$0ea();"),
        expect![[r#"
        /main.slang:4 float [area](); (decl)
        /main.slang:29 float total<T : IShape>(T shape) { return shape.[area](); }
    "#]],
    );
    check_refs(
        &CONFORMANCE.replace("struct Square : IShape", "struct Square : ISh$0ape"),
        expect![[r#"
        /main.slang:2 interface [IShape] (decl)
        /main.slang:7 interface IRegion : [IShape] { float perimeter(); }
        /main.slang:8 struct Square : [IShape]
        /main.slang:15 extension Disk : [IShape]
        /main.slang:29 float total<T : [IShape]>(T shape) { return shape.area(); }
    "#]],
    );
}

#[test]
fn document_highlights_tell_reads_from_writes() {
    let text = r#"
float f(float x)
{
    float y = x;
    y += UNKNOWN;
    return y * UNKNOWN;
}
"#;
    check_highlights(
        &text.replace("float y", "float y$0"),
        expect![[r#"
        Write /main.slang:4 float [y] = x;
        Write /main.slang:5 [y] += UNKNOWN;
        Read /main.slang:6 return [y] * UNKNOWN;
    "#]],
    );
    check_highlights(
        &text.replace("y * UNKNOWN", "y * UNK$0NOWN"),
        expect![[r#"
        Text /main.slang:5 y += [UNKNOWN];
        Text /main.slang:6 return y * [UNKNOWN];
    "#]],
    );
}

#[test]
fn rename_a_parameter_and_a_field() {
    check_rename(
        r#"
float f(float a$0, int n)
{
    float acc = a;
    {
        float b = a;
        acc += b;
    }
    return acc + a;
}
float g(float a) { return a; }
"#,
        "alpha",
        expect![[r#"
            //- /main.slang

            float f(float alpha, int n)
            {
                float acc = alpha;
                {
                    float b = alpha;
                    acc += b;
                }
                return acc + alpha;
            }
            float g(float a) { return a; }
        "#]],
    );
    check_rename(
        &PARTICLE.replace("float3 vel;", "float3 v$0el;"),
        "velocity",
        expect![[r#"
        //- /main.slang

        struct Particle
        {
            float3 pos;
            float3 velocity;
            [mutating] void step(float dt) { pos += velocity * dt; this.pos.y = max(this.pos.y, 0.0); }
            float3 position() { return pos; }
        }
        void simulate(inout Particle p, Particle q[2])
        {
            p.step(0.1);
            p.pos = q[0].pos;
            float3 x = p.position();
        }
    "#]],
    );
}

#[test]
fn rename_a_function_across_modules_with_its_derivative_attributes() {
    let text = r#"
//- /lib.slang
module lib;
[BackwardDerivative(cubeBwd)]
public float cube(float x) { return x * x * x; }
public void cubeBwd(inout DifferentialPair<float> x, float d) { x = diffPair(x.p, 3.0 * x.p * x.p * d); }
//- /main.slang
import lib;
[Differentiable]
float loss(float x) { return cu$0be(x) * 2.0; }
void grad(inout DifferentialPair<float> dp) { bwd_diff(cube)(dp, 1.0); }
"#;
    check_rename(
        text,
        "cubic",
        expect![[r#"
        //- /lib.slang
        module lib;
        [BackwardDerivative(cubeBwd)]
        public float cubic(float x) { return x * x * x; }
        public void cubeBwd(inout DifferentialPair<float> x, float d) { x = diffPair(x.p, 3.0 * x.p * x.p * d); }
        //- /main.slang
        import lib;
        [Differentiable]
        float loss(float x) { return cubic(x) * 2.0; }
        void grad(inout DifferentialPair<float> dp) { bwd_diff(cubic)(dp, 1.0); }
    "#]],
    );
    check_rename(
        &text.replace("public void cubeBwd", "public void cube$0Bwd").replace("cu$0be(x)", "cube(x)"),
        "cubeBackward",
        expect![[r#"
        //- /lib.slang
        module lib;
        [BackwardDerivative(cubeBackward)]
        public float cube(float x) { return x * x * x; }
        public void cubeBackward(inout DifferentialPair<float> x, float d) { x = diffPair(x.p, 3.0 * x.p * x.p * d); }
    "#]],
    );
}

#[test]
fn prepare_rename_gives_the_range_or_why_not() {
    let prepare = |text: &str| {
        let fx = fixture(text);
        let (file, offset) = cursor(&fx);
        match ide::prepare_rename(&fx.db, file, offset) {
            Ok(range) => show_range(&fx, file, range),
            Err(e) => format!("error: {e}"),
        }
    };
    let out = [
        prepare("float f(float x) { return x$0 * 2.0; }"),
        prepare("float f(float3 x) { return dot(x, x$0.xyz); }"),
        prepare("float3 f(float3$0 x) { return x; }"),
        prepare("float f(float x) { return m$0ax(x, 0.0); }"),
        prepare("stru$0ct S { float a; }"),
        prepare("float f(float x) { ret$0urn x; }"),
        prepare("float f(float x) { return nowhere$0(x); }"),
        prepare("float f(float x) { return x + $0 1.0; }"),
    ];
    expect![[r#"
        /main.slang:1 float f(float x) { return [x] * 2.0; }
        /main.slang:1 float f(float3 x) { return dot(x, [x].xyz); }
        error: `float3` is declared in the core module and cannot be renamed
        error: `max` is declared in the core module and cannot be renamed
        error: `struct` is a keyword and cannot be renamed
        error: `return` is a keyword and cannot be renamed
        error: `nowhere` does not resolve to a declaration that can be renamed
        error: there is no name to rename here
    "#]]
    .assert_eq(&(out.join("\n") + "\n"));
}

#[test]
fn rename_refuses_invalid_names_and_conflicts() {
    let local = r#"
float f(float x)
{
    float y$0 = x;
    float z = y;
    {
        float w = 1.0;
        z += y * w;
    }
    return z + x;
}
"#;
    // Not identifiers, keywords.
    check_rename(
        local,
        "1y",
        expect![[r#"
        error: `1y` is not a valid identifier
    "#]],
    );
    check_rename(
        local,
        "a b",
        expect![[r#"
        error: `a b` is not a valid identifier
    "#]],
    );
    check_rename(
        local,
        "struct",
        expect![[r#"
        error: `struct` is a Slang keyword
    "#]],
    );
    check_rename(
        local,
        "out",
        expect![[r#"
        error: `out` is a Slang keyword
    "#]],
    );
    // Another local of the same scope, a parameter, a local that would
    // hide it, a use of another name it would capture.
    check_rename(
        local,
        "z",
        expect![[r#"
        error: cannot rename `y` to `z`: `z` is already declared in the same scope (line 5)
    "#]],
    );
    check_rename(
        local,
        "x",
        expect![[r#"
        error: cannot rename `y` to `x`: `x` is already declared in the same scope (line 2)
    "#]],
    );
    check_rename(
        local,
        "w",
        expect![[r#"
        error: cannot rename `y` to `w`: the local `w` declared at line 7 would hide it at line 8
    "#]],
    );
    // Renamed to `z`, the inner `w` would capture the use of the outer `z`.
    let inner = local.replace("float w = 1.0;", "float w$0 = 1.0;").replace("float y$0", "float y");
    check_rename(
        &inner,
        "z",
        expect![[r#"
        error: cannot rename `w` to `z`: the use of `z` at line 8 would then refer to the renamed local
    "#]],
    );
    // A name declared further out is no conflict.
    check_rename(
        &inner,
        "x2",
        expect![[r#"
        //- /main.slang

        float f(float x)
        {
            float y = x;
            float z = y;
            {
                float x2 = 1.0;
                z += y * x2;
            }
            return z + x;
        }
    "#]],
    );
    // Members, module-scope names and generic parameters.
    check_rename(
        &PARTICLE.replace("float3 pos;", "float3 p$0os;"),
        "position",
        expect![[r#"
        error: cannot rename `pos` to `position`: `Particle` already has a member named `position` (/main.slang:7)
    "#]],
    );
    let globals = r#"
static const int kCount = 4;
float helper(float x) { return x; }
float helper(float x, float y) { return x + y; }
float scale$0(float x) { return x * kCount; }
T first<T, U>(T a, U b) { return a; }
"#;
    check_rename(
        globals,
        "kCount",
        expect![[r#"
        error: cannot rename `scale` to `kCount`: the module scope already has a declaration named `kCount` (/main.slang:2)
    "#]],
    );
    check_rename(
        globals,
        "helper",
        expect![[r#"
        error: cannot rename `scale` to `helper`: the module scope already has a declaration named `helper` (/main.slang:3)
    "#]],
    );
    check_rename(
        &globals
            .replace("float scale$0(float x)", "float scale(float x, float y)")
            .replace("return x * kCount", "return x * y * kCount")
            .replace("float scale(", "float sc$0ale("),
        "helper",
        expect![[r#"
        error: cannot rename `scale` to `helper`: the module scope already has a declaration named `helper` (/main.slang:4)
    "#]],
    );
    check_rename(
        &globals.replace("scale$0", "scale").replace("first<T,", "first<T$0,"),
        "U",
        expect![[r#"
        error: cannot rename `T` to `U`: `first` already has a generic parameter named `U` (/main.slang:6)
    "#]],
    );
}

#[test]
fn goto_implementation_of_interfaces_and_requirements() {
    check_nav(
        &CONFORMANCE.replace("interface IShape", "interface ISh$0ape"),
        ide::goto_implementation,
        expect![[r#"
        /main.slang:8 `Square` in `struct Square : IShape`
        /main.slang:14 `Disk` in `struct Disk { float r; }`
        /main.slang:20 `Rect` in `struct Rect : IRegion`
        /main.slang:27 `Tile` in `struct Tile : Square { }`
    "#]],
    );
    check_nav(
        &CONFORMANCE.replace("    float area();", "    float ar$0ea();"),
        ide::goto_implementation,
        expect![[r#"
        /main.slang:11 `area` in `float area() { return s * s; }`
        /main.slang:17 `area` in `float area() { return 3.14 * r * r; }`
        /main.slang:23 `area` in `float area() { return w * h; }`
    "#]],
    );
    check_nav(
        &CONFORMANCE.replace("associatedtype Scalar", "associatedtype Sca$0lar"),
        ide::goto_implementation,
        expect![[r#"
        /main.slang:12 `Scalar` in `typealias Scalar = float;`
        /main.slang:18 `Scalar` in `typealias Scalar = float;`
        /main.slang:25 `Scalar` in `typealias Scalar = float;`
    "#]],
    );
    check_nav(
        &CONFORMANCE.replace("float perimeter();", "float peri$0meter();"),
        ide::goto_implementation,
        expect![[r#"
        /main.slang:24 `perimeter` in `float perimeter() { return 2.0 * (w + h); }`
    "#]],
    );
}

#[test]
fn goto_declaration_of_implementations_and_forward_declarations() {
    check_nav(
        &CONFORMANCE.replace("return s.area()", "return s.ar$0ea()"),
        ide::goto_declaration,
        expect![[r#"
        /main.slang:4 `area` in `float area();`
    "#]],
    );
    check_nav(
        &CONFORMANCE.replace("    float area() { return 3.14", "    float ar$0ea() { return 3.14"),
        ide::goto_declaration,
        expect![[r#"
        /main.slang:4 `area` in `float area();`
    "#]],
    );
    check_nav(
        &CONFORMANCE.replace("float perimeter() {", "float peri$0meter() {"),
        ide::goto_declaration,
        expect![[r#"
        /main.slang:7 `perimeter` in `float perimeter();`
    "#]],
    );
    check_nav(
        &CONFORMANCE.replace("struct Plain { float area()", "struct Plain { float ar$0ea()"),
        ide::goto_declaration,
        expect![[r#"
        /main.slang:28 `area` in `float area() { return 0.0; }`
    "#]],
    );
    check_nav(
        r#"
float falloff(float d);
float shade(float d) { return falloff$0(d) * 0.5; }
float falloff(float d) { return 1.0 / (d * d); }
"#,
        ide::goto_declaration,
        expect![[r#"
            /main.slang:2 `falloff` in `float falloff(float d);`
        "#]],
    );
}

#[test]
fn goto_type_definition_of_expressions_variables_and_fields() {
    let text = r#"
struct Light { float3 dir; float intensity; }
struct Scene
{
    Light lights[4];
    int count;
    Light first() { return this.lights[0]; }
}
T identity<T>(T v) { return v; }
float shade(Scene scene, float3 n, DifferentialPair<Light> dp)
{
    let l = scene.lights[0];
    return l.intensity * dot(l.dir, n) + identity(1.0);
}
"#;
    let at = |from: &str, to: &str| text.replacen(from, to, 1);
    check_nav(
        &at("let l = scene.", "let l = sce$0ne."),
        ide::goto_type_definition,
        expect![[r#"
        /main.slang:3 `Scene` in `struct Scene`
    "#]],
    );
    check_nav(
        &at("scene.lights[0]", "scene.lig$0hts[0]"),
        ide::goto_type_definition,
        expect![[r#"
        /main.slang:2 `Light` in `struct Light { float3 dir; float intensity; }`
    "#]],
    );
    check_nav(
        &at("return l.intensity", "return l$0.intensity"),
        ide::goto_type_definition,
        expect![[r#"
        /main.slang:2 `Light` in `struct Light { float3 dir; float intensity; }`
    "#]],
    );
    check_nav(
        &at("let l =", "let l$0 ="),
        ide::goto_type_definition,
        expect![[r#"
        /main.slang:2 `Light` in `struct Light { float3 dir; float intensity; }`
    "#]],
    );
    check_nav(
        &at("dot(l.dir", "dot(l.di$0r"),
        ide::goto_type_definition,
        expect![[r#"
            <builtin>/types.slang:512 `float3` in `typealias float3 = vector<float, 3>;`
        "#]],
    );
    check_nav(
        &at("this.lights", "th$0is.lights"),
        ide::goto_type_definition,
        expect![[r#"
        /main.slang:3 `Scene` in `struct Scene`
    "#]],
    );
    check_nav(
        &at("(T v) { return v; }", "(T v) { return v$0; }"),
        ide::goto_type_definition,
        expect![[r#"
        /main.slang:9 `T` in `T`
    "#]],
    );
    check_nav(
        &at("DifferentialPair<Light> dp", "DifferentialPair<Light> d$0p"),
        ide::goto_type_definition,
        expect![[r#"
        <builtin>/autodiff.slang:57 `DifferentialPair` in `/// A value of `T` together with a derivative of type `T.Differential`: the`
        /main.slang:2 `Light` in `struct Light { float3 dir; float intensity; }`
    "#]],
    );
    check_nav(
        &at("float shade(Scene", "float shade(Sc$0ene"),
        ide::goto_type_definition,
        expect![[r#"
        /main.slang:3 `Scene` in `struct Scene`
    "#]],
    );
}

#[test]
fn workspace_symbols_match_fuzzily_across_files() {
    let fx = fixture(
        r#"
//- /shapes.slang
module shapes;
namespace geo { public struct Square { float side; float area() { return side * side; } } }
public interface IShape { float area(); }
public enum ShapeKind { Round, Angular }
//- /main.slang
import shapes;
extension geo::Square : IShape { }
static const float kSquareTolerance = 0.01;
float squareArea(float s) { return s * s; }
"#,
    );
    let show = |q: &str| {
        ide::workspace_symbols(&fx.db, q)
            .iter()
            .map(|s| {
                format!(
                    "{:?} {}{} {}\n",
                    s.kind,
                    s.container.as_ref().map(|c| format!("{c}.")).unwrap_or_default(),
                    s.name,
                    show_range(&fx, s.file, s.focus_range)
                )
            })
            .collect::<String>()
    };
    expect![[r#"
        Struct geo.Square /shapes.slang:2 namespace geo { public struct [Square] { float side; float area() { return side * side; } } }
        Fn squareArea /main.slang:4 float [squareArea](float s) { return s * s; }
        Var kSquareTolerance /main.slang:3 static const float [kSquareTolerance] = 0.01;
    "#]].assert_eq(&show("square"));
    expect![[r#"
        Enum ShapeKind /shapes.slang:4 public enum [ShapeKind] { Round, Angular }
    "#]]
    .assert_eq(&show("SHK"));
    expect![[r#"
        Fn Square.area /shapes.slang:2 namespace geo { public struct Square { float side; float [area]() { return side * side; } } }
        Fn IShape.area /shapes.slang:3 public interface IShape { float [area](); }
        Fn squareArea /main.slang:4 float [squareArea](float s) { return s * s; }
        Var kSquareTolerance /main.slang:3 static const float [kSquareTolerance] = 0.01;
    "#]].assert_eq(&show("area"));
    expect![[r#"
        EnumCase ShapeKind.Angular /shapes.slang:4 public enum ShapeKind { Round, [Angular] }
        Fn Square.area /shapes.slang:2 namespace geo { public struct Square { float side; float [area]() { return side * side; } } }
        Fn IShape.area /shapes.slang:3 public interface IShape { float [area](); }
        Namespace geo /shapes.slang:2 namespace [geo] { public struct Square { float side; float area() { return side * side; } } }
        Interface IShape /shapes.slang:3 public interface [IShape] { float area(); }
        Var kSquareTolerance /main.slang:3 static const float [kSquareTolerance] = 0.01;
        EnumCase ShapeKind.Round /shapes.slang:4 public enum ShapeKind { [Round], Angular }
        Enum ShapeKind /shapes.slang:4 public enum [ShapeKind] { Round, Angular }
        Var Square.side /shapes.slang:2 namespace geo { public struct Square { float [side]; float area() { return side * side; } } }
        Struct geo.Square /shapes.slang:2 namespace geo { public struct [Square] { float side; float area() { return side * side; } } }
        Fn squareArea /main.slang:4 float [squareArea](float s) { return s * s; }
    "#]].assert_eq(&show(""));
}

#[test]
fn references_of_extension_members_aliases_and_implementations() {
    // A member added by an extension, used through a variable.
    check_refs(
        &CONFORMANCE.replace("d.area()", "d.ar$0ea()"),
        expect![[r#"
        /main.slang:17 float [area]() { return 3.14 * r * r; } (decl)
        /main.slang:30 float direct(Square s, Disk d) { return s.area() + d.[area](); }
    "#]],
    );
    // An implementing method: its own calls, not those through the interface.
    check_refs(
        &CONFORMANCE.replace("s.area()", "s.ar$0ea()"),
        expect![[r#"
        /main.slang:11 float [area]() { return s * s; } (decl)
        /main.slang:30 float direct(Square s, Disk d) { return s.[area]() + d.area(); }
    "#]],
    );
    check_refs(
        r#"
//- /color.slang
module color;
public typealias Color3 = float3;
public Color3 tint(Color3 c) { return c * 0.5; }
//- /main.slang
import color;
Color$03 grade(Color3 c) { Color3 t = tint(c); return t; }
"#,
        expect![[r#"
            /color.slang:2 public typealias [Color3] = float3; (decl)
            /color.slang:3 public [Color3] tint(Color3 c) { return c * 0.5; }
            /color.slang:3 public Color3 tint([Color3] c) { return c * 0.5; }
            /main.slang:2 [Color3] grade(Color3 c) { Color3 t = tint(c); return t; }
            /main.slang:2 Color3 grade([Color3] c) { Color3 t = tint(c); return t; }
            /main.slang:2 Color3 grade(Color3 c) { [Color3] t = tint(c); return t; }
        "#]],
    );
}

/// A 5,000-line file: a struct, a helper, and 250 functions using both.
fn big_file() -> String {
    let mut text = String::from(
        "struct Material { float3 albedo; float roughness; float metal; }\n\
         float helper(float x) { return x * 0.5; }\n",
    );
    for i in 0..250 {
        text.push_str(&format!("[Differentiable]\nfloat shade{i}(Material m, float3 n, float3 l)\n{{\n"));
        text.push_str("    float acc = helper(m.roughness);\n");
        for j in 0..14 {
            text.push_str(&format!("    float t{j} = dot(n, l) * m.albedo.x + helper(acc) * m.metal;\n"));
        }
        text.push_str("    acc += t3 * m.roughness;\n    return acc;\n}\n");
    }
    text
}

#[test]
fn find_references_is_fast_on_a_large_file() {
    let text = big_file();
    assert!(text.lines().count() >= 5000);
    let mut db = slang_analysis::RootDatabase::new();
    let file = db.set_file("/big.slang", &text);
    // The cursor on the last letter of each declared name; the declaration
    // and 15 calls per function, the declaration and 2 uses per function,
    // a local of the first function.
    for (needle, count) in [("float helper", 3751), ("float roughness", 501), ("float acc", 17)] {
        let offset = TextSize::from((text.find(needle).unwrap() + needle.len() - 1) as u32);
        let name = &needle[6..];
        let cold = std::time::Instant::now();
        let refs = ide::find_references(&db, file, offset, true);
        let cold = cold.elapsed();
        let warm = std::time::Instant::now();
        let again = ide::find_references(&db, file, offset, true);
        let warm = warm.elapsed();
        eprintln!("{name}: {} references, cold {cold:?}, warm {warm:?}", refs.len());
        assert_eq!(refs, again);
        assert_eq!(refs.len(), count, "{name}");
        // Generous: debug-profile builds on a loaded machine.
        assert!(warm.as_millis() < 2000, "{name}: {warm:?}");
    }
}
