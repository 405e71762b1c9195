//! Compiles small Slang compute programs through the whole pipeline
//! (lowering, IR validation, SSA construction, naga validation) to every
//! target, and snapshots the IR of a few.

use expect_test::{expect, Expect};
use slang_analysis::RootDatabase;
use slang_codegen::{compile, lower_entry_point, print, Output, Target};

const TARGETS: [Target; 5] = [Target::Wgsl, Target::SpirV, Target::Glsl, Target::Hlsl, Target::Msl];

/// Compile `src`'s entry point `computeMain` to every target; returns
/// the WGSL.
fn compile_all(src: &str) -> String {
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let mut wgsl = String::new();
    for target in TARGETS {
        match compile(&db, file, "computeMain", target) {
            Ok(Output::Text(t)) => {
                if target == Target::Wgsl {
                    wgsl = t;
                }
            }
            Ok(Output::Binary(words)) => assert!(words.len() > 5 && words[0] == 0x0723_0203, "not SPIR-V"),
            Err(errors) => {
                let shown: Vec<String> = errors.iter().map(|e| show_error(src, e)).collect();
                panic!("{target:?} failed:\n{}", shown.join("\n"));
            }
        }
    }
    wgsl
}

fn show_error(src: &str, e: &slang_codegen::CodegenError) -> String {
    match e.range {
        Some(r) => format!("{} at `{}`", e.message, &src[r]),
        None => e.message.clone(),
    }
}

fn check_ir(src: &str, expect: Expect) {
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let module = lower_entry_point(&db, file, "computeMain").unwrap_or_else(|e| panic!("{e:?}"));
    expect.assert_eq(&print::print_module(&module));
}

#[test]
fn saxpy() {
    let wgsl = compile_all(
        r#"
RWStructuredBuffer<float> y;
StructuredBuffer<float> x;

float saxpy(float a, float xi, float yi) { return a * xi + yi; }

[numthreads(64, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    uint i = tid.x;
    y[i] = saxpy(2.0, x[i], y[i]);
}
"#,
    );
    println!("{wgsl}");
}
