//! The core module against Slang's core-module reference: every type,
//! interface and global declaration the reference documents resolves.
//!
//! The reference (Slang's `stdlib-reference` pages) is not in this
//! repository; `src/core_module/reference_names.txt` holds the names it
//! documents, extracted by `src/core_module/gen_reference_names.py`.

mod common;

use common::{fixture, render_diagnostics};

const NAMES: &str = include_str!("../src/core_module/reference_names.txt");

/// Documented names the core module deliberately does not declare, and why.
const LEFT_OUT: &[(&str, &str)] = &[
    // Slang's textures are one generic struct, `_Texture<T, Shape, isArray,
    // isMS, sampleCount, access, isShadow, isCombined, format>`, with shape
    // types and typealiases (`Texture2D<T>` = `_Texture<T, __Shape2D, ...>`).
    // Here every texture type is a struct of its own (gen_textures.py), so
    // the internal generic and its shape parameters have no counterpart.
    ("_Texture", "textures are separate structs here, not aliases of one generic"),
    ("__ITextureShape", "shape parameter of `_Texture` (internal)"),
    ("__ITextureShape1D2D3D", "shape parameter of `_Texture` (internal)"),
    ("__Shape1D", "shape parameter of `_Texture` (internal)"),
    ("__Shape2D", "shape parameter of `_Texture` (internal)"),
    ("__Shape3D", "shape parameter of `_Texture` (internal)"),
    ("__ShapeCube", "shape parameter of `_Texture` (internal)"),
    ("__ShapeBuffer", "shape parameter of `_Texture` (internal)"),
];

fn documented() -> Vec<(&'static str, &'static str)> {
    NAMES.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).filter_map(|l| l.split_once(' ')).collect()
}

#[test]
fn every_documented_name_resolves_in_the_core_module() {
    // `linalg::CoopMat` and the enums it uses are documented by their short
    // names too; `using namespace linalg` makes both spellings resolve.
    let mut src = String::from("using namespace linalg;\n");
    let mut count = 0;
    for (i, (kind, name)) in documented().into_iter().enumerate() {
        if LEFT_OUT.iter().any(|(n, _)| *n == name) {
            continue;
        }
        match kind {
            "type" | "interface" => src.push_str(&format!("void t{i}({name} *p) {{}}\n")),
            "decl" => src.push_str(&format!("void d{i}() {{ {name}; }}\n")),
            _ => continue,
        }
        count += 1;
    }
    assert!(count > 500, "reference_names.txt lists too few names ({count})");
    let fx = fixture(&src);
    let diags = render_diagnostics(&fx);
    let missing: Vec<&str> = diags.lines().filter(|l| l.contains("cannot find")).collect();
    assert!(
        missing.is_empty(),
        "{} documented names do not resolve in the core module:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn left_out_names_are_documented_and_really_missing() {
    let names = documented();
    for (name, why) in LEFT_OUT {
        assert!(names.iter().any(|(_, n)| n == name), "`{name}` is in LEFT_OUT ({why}) but not in reference_names.txt");
        let fx = fixture(&format!("void f() {{ {name} *p; }}\n"));
        let diags = render_diagnostics(&fx);
        assert!(diags.contains("cannot find"), "`{name}` is in LEFT_OUT ({why}) but resolves: remove it from the list");
    }
}
