//! Every Vulkan compute test of `tests/compute` (the runner's suite) goes
//! through the whole pipeline to every target with naga validation: what
//! the runner checks on the GPU through WGSL must also be valid SPIR-V,
//! GLSL, HLSL and MSL.

use std::path::{Path, PathBuf};

use slang_analysis::RootDatabase;
use slang_codegen::{compile, Target};

const TARGETS: [Target; 5] = [Target::Wgsl, Target::SpirV, Target::Glsl, Target::Hlsl, Target::Msl];

fn slang_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            slang_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "slang") {
            out.push(path);
        }
    }
}

/// The arguments of the first enabled compute `//TEST` line that can run
/// on Vulkan (not only on CUDA or the CPU backend).
fn vulkan_compute_line(text: &str) -> Option<Vec<String>> {
    text.lines().map(str::trim).filter(|l| l.starts_with("//TEST(") || l.starts_with("//TEST:")).find_map(|l| {
        let args: Vec<String> = l.split_whitespace().map(str::to_string).collect();
        let compute = l.contains("COMPARE_COMPUTE");
        let other_backend = args.iter().any(|a| a == "-cpu" || a == "-cuda");
        (compute && !other_backend).then_some(args)
    })
}

#[test]
fn all_compute_tests_validate_for_every_target() {
    let mut files = Vec::new();
    slang_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/compute"), &mut files);
    files.sort();
    let mut compiled = 0;
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let Some(args) = vulkan_compute_line(&text) else { continue };
        // Loading imported modules (from disk, or the bundled standard
        // modules) is the host's job, not this crate's: tests/runner.rs
        // compiles those files through the binary.
        if text.lines().any(|l| l.trim_start().starts_with("import ")) {
            continue;
        }
        let entry = args.windows(2).find(|w| w[0] == "-entry").map_or("computeMain", |w| w[1].as_str());
        let defines = args
            .windows(2)
            .filter(|w| w[0] == "-xslang")
            .filter_map(|w| w[1].strip_prefix("-D"))
            .map(|d| match d.split_once('=') {
                Some((name, value)) => (name.to_string(), value.to_string()),
                None => (d.to_string(), "1".to_string()),
            })
            .collect();
        let mut db = RootDatabase::new();
        db.set_defines(defines);
        let file = db.set_file(&path.to_string_lossy(), &text);
        // What the preprocessor makes of the file, as the CLI compiles.
        let expanded = db.with_macros_expanded(file);
        let (db, file) = match &expanded {
            Some((d, f)) => (d, *f),
            None => (&db, file),
        };
        for target in TARGETS {
            if let Err(errors) = compile(db, file, entry, target) {
                let messages: Vec<String> = errors.iter().map(|e| e.message.clone()).collect();
                // The targets without 64-bit types (GLSL's integers, Metal's
                // floats) say so.
                if matches!(target, Target::Glsl | Target::Msl)
                    && messages.iter().all(|m| m.contains("has no 64-bit"))
                    && (text.contains("int64_t") || text.contains("double"))
                {
                    continue;
                }
                failures.push(format!("{} ({target:?}): {}", path.display(), messages.join("; ")));
            }
        }
        compiled += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compiled >= 70, "only {compiled} compute tests found");
}
