//! Aggregate loads are narrowed to the parts used (`narrow`) exactly when
//! no write can come between the load and the use.

use slang_analysis::RootDatabase;
use slang_codegen::{lower_entry_point, print};

fn ir(src: &str) -> String {
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let module = lower_entry_point(&db, file, "computeMain").unwrap_or_else(|e| panic!("{e:?}"));
    print::print_module(&module)
}

/// Whether some part of an array of type `ty` loaded whole is extracted
/// from the loaded value (rather than loaded on its own).
fn extracts_from_loaded(ir: &str, ty: &str) -> bool {
    let loaded: Vec<&str> =
        ir.lines().filter_map(|l| l.trim().split_once(&format!(": {ty} = load ")).map(|(v, _)| v)).collect();
    ir.lines().any(|l| loaded.iter().any(|v| l.contains(&format!("extract {v},"))))
}

/// The kernel: `a` lives in memory (a call takes it `inout`), is copied
/// to `b`, then `WRITE` runs, then `b` is read at a dynamic index.
fn kernel(write: &str) -> String {
    format!(
        r#"
RWStructuredBuffer<float> out;
void bump(inout float a[8]) {{ a[1] += 1.0; }}
[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{{
    float a[8];
    for (int i = 0; i < 8; i++) a[i] = float(i);
    bump(a);
    float b[8] = a;
    {write}
    float s = 0.0;
    for (int i = 0; i < int(tid.x); i++) s += b[i];
    out[0] = s;
}}
"#
    )
}

#[test]
fn a_part_is_loaded_where_nothing_writes_in_between() {
    let ir = ir(&kernel(""));
    assert!(!extracts_from_loaded(&ir, "float[8]"), "read from a copy of the whole array:\n{ir}");
}

#[test]
fn a_write_in_between_keeps_the_copy() {
    for write in ["bump(a);", "a[3] = 0.0;", "a[int(tid.y)] = 0.0;"] {
        let ir = ir(&kernel(write));
        assert!(extracts_from_loaded(&ir, "float[8]"), "narrowed across `{write}`:\n{ir}");
    }
}

#[test]
fn a_write_to_another_part_does_not() {
    let src = r#"
RWStructuredBuffer<float> out;
struct P { float x[4]; float y[4]; }
float f(inout P p, int k)
{
    float c[4] = p.x;
    p.y[k] = 1.0;
    return c[k];
}
[numthreads(1, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID)
{
    P p;
    p.x = { 1.0, 2.0, 3.0, 4.0 };
    p.y = p.x;
    out[0] = f(p, int(tid.x));
}
"#;
    let ir = ir(src);
    let f = &ir[ir.find("func f(").expect("f is kept")..];
    assert!(!extracts_from_loaded(f, "float[4]"), "p.x is read from a copy:\n{f}");
}
