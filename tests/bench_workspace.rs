//! A generated workspace shaped like Falcor's `Source/` (the repository
//! must not carry Falcor): modules in nested folders under `Falcor/`,
//! imported by dotted paths that resolve only from `Falcor/` itself (a
//! folder with no Slang file, found because the workspace's folders and
//! their ancestors are searched), import chains as deep as a folder has
//! modules, a few imports of modules a host program would generate (never
//! found), and one large file importing many of them, like
//! `RenderPasses/PathTracer/PathTracer.slang`. Shared by
//! `server/benches/lsp_latency.rs` and `tests/lsp_workspace.rs` (included
//! with `#[path]`).
#![allow(dead_code)]

use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The folders of modules under `Falcor/`.
const AREAS: [&str; 10] = [
    "Utils/Math",
    "Utils/Sampling",
    "Utils/Color",
    "Rendering/Lights",
    "Rendering/Materials",
    "Rendering/Volumes",
    "Scene/Material",
    "Scene/Camera",
    "Scene/LightCollection",
    "Scene/Curves",
];

/// Functions per module.
const FUNCTIONS: usize = 14;

/// The generated workspace.
pub struct Workspace {
    /// The workspace folder (`Source`).
    pub root: PathBuf,
    /// The large importing file.
    pub main: PathBuf,
    pub main_text: String,
    /// How many modules and lines were written.
    pub modules: usize,
    pub lines: usize,
}

/// The module `i` of area `a`: its file name's stem.
fn module_name(a: usize, i: usize) -> String {
    let last = AREAS[a].rsplit('/').next().unwrap();
    format!("{last}{i}")
}

/// Its import path (`Rendering.Lights.Lights3`).
fn import_path(a: usize, i: usize) -> String {
    format!("{}.{}", AREAS[a].replace('/', "."), module_name(a, i))
}

/// The prefix of its functions' names (`a3m7_`: unique per module).
fn fn_prefix(a: usize, i: usize) -> String {
    format!("a{a}m{i}_")
}

/// Writes the workspace under `dir/Source` (`per_area` modules in each of
/// the ten folders: 40 gives 400 modules and 58,000 lines, Falcor has 416 and 61,000) with
/// `missing` imports (modules a host would generate) in every eighth
/// module when set. The large file has no diagnostics.
pub fn falcor_like(dir: &Path, per_area: usize, missing: bool) -> Workspace {
    let root = dir.join("Source");
    let mut modules = 0;
    let mut lines = 0;
    for (a, area) in AREAS.iter().enumerate() {
        let folder = root.join("Falcor").join(area);
        std::fs::create_dir_all(&folder).unwrap();
        for i in 0..per_area {
            let text = module_text(a, i, missing);
            lines += text.lines().count();
            modules += 1;
            std::fs::write(folder.join(format!("{}.slang", module_name(a, i))), text).unwrap();
        }
    }
    let main_dir = root.join("RenderPasses/PathTracerLike");
    std::fs::create_dir_all(&main_dir).unwrap();
    let main = main_dir.join("PathTracerLike.slang");
    let main_text = main_text(per_area);
    lines += main_text.lines().count();
    std::fs::write(&main, &main_text).unwrap();
    Workspace { root, main, main_text, modules: modules + 1, lines }
}

fn module_text(a: usize, i: usize, missing: bool) -> String {
    let name = module_name(a, i);
    let p = fn_prefix(a, i);
    let mut t = format!("/** Generated module {name}. */\n");
    // A chain within the folder, and a link to the folder before.
    let callee = if i > 0 {
        Some((a, i - 1))
    } else if a > 0 {
        Some((a - 1, 0))
    } else {
        None
    };
    if let Some((ca, ci)) = callee {
        writeln!(t, "import {};", import_path(ca, ci)).unwrap();
    }
    if a > 0 && i > 0 {
        writeln!(t, "import {};", import_path(a - 1, i / 2)).unwrap();
    }
    if missing && (a * 40 + i) % 8 == 7 {
        writeln!(t, "import Generated.HostDefines{a}x{i};").unwrap();
    }
    write!(
        t,
        "
/** Data of {name}. */
public struct {name}Data
{{
    public float3 pos;
    public float3 dir;
    public float weight;
    public uint flags;

    public float3 at(float t) {{ return pos + dir * t; }}
}};

/** Something {name} evaluates. */
public interface I{name}Eval
{{
    float eval(float x);
}};

public struct {name}Eval : I{name}Eval
{{
    public float k;
    public float eval(float x) {{ return x * k + 1.0; }}
}};
"
    )
    .unwrap();
    for j in 0..FUNCTIONS {
        // One in four differentiable (the reference compiler takes four
        // times longer to check this workspace when all are).
        let attr = if j % 4 == 0 { "[Differentiable]\n" } else { "" };
        let call = match callee {
            Some((ca, ci)) => format!("{}f{j}(x, v)", fn_prefix(ca, ci)),
            None => format!("x * {j}.0"),
        };
        write!(
            t,
            "
/** Function {j} of {name}. */
{attr}public float {p}f{j}(float x, float3 v)
{{
    float y = x * {j}.5 + v.x;
    y = y + {call};
    return y * y;
}}
"
        )
        .unwrap();
    }
    t
}

/// The large importing file: imports of the last and a middle module of
/// every folder, a struct with methods and free functions using them
/// (about 1,200 lines). Its last function is `traceLast`.
fn main_text(per_area: usize) -> String {
    let mut imported = Vec::new();
    for a in 0..AREAS.len() {
        imported.push((a, per_area - 1));
        if per_area > 2 {
            imported.push((a, per_area / 2));
        }
    }
    let mut t = String::from(
        "/** Generated like Falcor's PathTracer.slang: one large file importing much of the workspace. */\n",
    );
    for &(a, i) in &imported {
        writeln!(t, "import {};", import_path(a, i)).unwrap();
    }
    t.push_str("\nstruct PathTracerLike\n{\n");
    for (k, &(a, i)) in imported.iter().enumerate() {
        writeln!(t, "    {}Data data{k};", module_name(a, i)).unwrap();
    }
    let mut k = 0;
    while t.lines().count() < 600 {
        let (a, i) = imported[k % imported.len()];
        let (b, l) = imported[(k * 7 + 3) % imported.len()];
        let (pa, pb) = (fn_prefix(a, i), fn_prefix(b, l));
        let (j, j2) = (k % FUNCTIONS, (k * 3 + 1) % FUNCTIONS);
        let n = k % imported.len();
        write!(
            t,
            "
    /** Shades sample {k}. */
    float shade{k}(float x, float3 v)
    {{
        float a = {pa}f{j}(x, v);
        float b = {pb}f{j2}(a, data{n}.pos);
        float3 p = data{n}.at(a);
        {name}Eval e;
        e.k = b;
        if (data{n}.flags != 0)
            a = a + e.eval(p.y);
        return a + b * data{n}.weight;
    }}
",
            name = module_name(a, i),
        )
        .unwrap();
        k += 1;
    }
    t.push_str("};\n");
    while t.lines().count() < 1_180 {
        let (a, i) = imported[k % imported.len()];
        let pa = fn_prefix(a, i);
        let j = k % FUNCTIONS;
        write!(
            t,
            "
/** Traces path {k}. */
float trace{k}(PathTracerLike pt, float x, float3 v)
{{
    float sum = 0.0;
    for (int s = 0; s < 4; s++)
    {{
        float w = {pa}f{j}(x + float(s), v);
        sum += pt.shade{m}(w, v) * 0.25;
    }}
    return sum;
}}
",
            m = k % 20,
        )
        .unwrap();
        k += 1;
    }
    let (a, i) = imported[0];
    write!(
        t,
        "
float traceLast(PathTracerLike pt, float x, float3 v)
{{
    float y = {p}f1(x, v);
    return y + pt.shade0(x, v);
}}
",
        p = fn_prefix(a, i)
    )
    .unwrap();
    t
}
