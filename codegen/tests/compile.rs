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

#[test]
fn saxpy_ir() {
    check_ir(
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
        expect![[r#"
            global g0 x: float[] [set 0, binding 1, read]
            global g1 y: float[] [set 0, binding 0, read_write]

            [numthreads(64, 1, 1)]
            func computeMain(tid: uint3 : SV_DispatchThreadID) -> void {
            b0(%0: uint3):
              %5: uint = extract %0, 0
              %7: float = const 2.0
              %8: Ptr<float[], storage_read> = global x
              %10: Ptr<float, storage_read> = element_addr %8, %5
              %11: float = load %10
              %12: Ptr<float[], storage> = global y
              %14: Ptr<float, storage> = element_addr %12, %5
              %15: float = load %14
              %16: float = call saxpy(%7, %11, %15)
              %17: Ptr<float[], storage> = global y
              %19: Ptr<float, storage> = element_addr %17, %5
              store %19, %16
              return
            }

            func saxpy(a: float, xi: float, yi: float) -> float {
            b0(%0: float, %3: float, %6: float):
              %11: float = mul %0, %3
              %13: float = add %11, %6
              return %13
            }
        "#]],
    );
}

#[test]
fn loop_ir() {
    check_ir(
        r#"
RWStructuredBuffer<float> out;

[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    float sum = 0;
    for (int i = 0; i < 10; i++)
    {
        if (i == 7)
            break;
        if (i % 2 == 0)
            continue;
        sum += i;
    }
    out[tid.x] = sum;
}
"#,
        expect![[r#"
            global g0 out: float[] [set 0, binding 0, read_write]

            [numthreads(1, 1, 1)]
            func computeMain(tid: uint3 : SV_DispatchThreadID) -> void {
            b0(%0: uint3):
              %5: float = const 0.0
              %8: int = const 0
              loop b1(%8, %5) break b4 continue b3
            b1(%36: int, %37: float):
              %11: int = const 10
              %12: bool = lt %36, %11
              if %12 then b5 else b6 merge b2
            b2:
              %14: int = const 7
              %15: bool = eq %36, %14
              if %15 then b7 else b8 merge b9
            b3(%39: float):
              %27: int = const 1
              %28: int = add %36, %27
              br b1(%28, %39)
            b4:
              %31: Ptr<float[], storage> = global out
              %33: uint = extract %0, 0
              %34: Ptr<float, storage> = element_addr %31, %33
              store %34, %37
              return
            b5:
              br b2
            b6:
              br b4
            b7:
              br b4
            b8:
              br b9
            b9:
              %17: int = const 2
              %18: int = rem %36, %17
              %19: int = const 0
              %20: bool = eq %18, %19
              if %20 then b10 else b11 merge b12
            b10:
              br b3(%37)
            b11:
              br b12
            b12:
              %23: float = convert %36
              %24: float = add %37, %23
              br b3(%24)
            }
        "#]],
    );
}
