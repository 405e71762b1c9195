//! The file the latency benches edit: about 5,000 lines of real code (the
//! valid corpus concatenated, files that import or include others left
//! out), then a differentiable function used for hover and completion.
//! Shared by `server/benches/lsp_latency.rs`, `analysis/benches/ide.rs` and
//! `analysis/examples/edit_phases.rs` (included with `#[path]`).

/// The text of the bench file.
pub fn big_file() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/valid");
    let mut paths: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    let mut text = String::new();
    for p in paths.iter().cycle() {
        if text.lines().count() > 5_000 {
            break;
        }
        if p.extension().and_then(|e| e.to_str()) == Some("slang") {
            let body = std::fs::read_to_string(p).unwrap();
            if body.contains("import ") || body.contains("#include") || body.contains("module ") {
                continue;
            }
            text.push_str(&body);
            text.push('\n');
        }
    }
    text.push_str(
        "struct BenchLight : IDifferentiable { float3 dir; float intensity; }\n\
         [Differentiable]\nfloat benchShade(BenchLight light, float3 n)\n{\n    float k = 1.0;\n    return dot(light.dir, n) * light.intensity * k;\n}\n",
    );
    text
}
