//! The reverse-mode passes, stage by stage, on small programs: callee
//! contexts, control-flow normalization, unrolling, the checkpointing
//! and linearization passes, and what each saves per thread.

use expect_test::expect;
use slang_analysis::RootDatabase;
use slang_codegen::{lower_entry_point, print};

/// Reverse mode keeps a callee's intermediate context inside the caller's
/// (its primal-context function runs in the caller's primal part, its
/// backward-propagation function in the backward part), unless the callee
/// is `[PreferRecompute]`: then the caller's backward part calls the
/// callee's whole backward derivative, which recomputes its primal.
#[test]
fn callee_contexts_nest_unless_prefer_recompute() {
    let source = |attr: &str| {
        format!(
            "[Differentiable]{attr}\nfloat sq(float x) {{ return x * x * sin(x); }}\n\
             [Differentiable]\nfloat outer(float x) {{ return sq(x * 2.0) + x; }}\n"
        )
    };
    let backward = |src: &str| {
        let mut db = RootDatabase::new();
        let file = db.set_file("/test.slang", src);
        let def = slang_analysis::autodiff::functions_named(&db, file, "outer")[0];
        slang_codegen::backward_derivative_source(&db, def).unwrap_or_else(|e| panic!("{e:?}"))
    };
    let nested = backward(&source(""));
    assert!(nested.contains("sq_Intermediates"), "{nested}");
    assert!(nested.contains("s_primal_ctx_sq("), "{nested}");
    assert!(nested.contains("s_bwd_prop_sq("), "{nested}");
    let recomputed = backward(&source("\n[PreferRecompute]"));
    let prop = recomputed.split("void s_bwd_prop_outer").nth(1).expect("the backward-propagation function");
    let prop = prop.split("\n}\n").next().expect("its body");
    assert!(prop.contains("s_bwd_sq("), "{recomputed}");
    assert!(!prop.contains("s_bwd_prop_sq("), "{recomputed}");
}

/// The control-flow normalization of reverse mode, before and after, on a
/// function with an early return, a `continue` and a `break`: exits become
/// flags, the rest of each region runs under "no exit yet", the loop
/// leaves at the end of an iteration. (That it computes the same is
/// checked on every compute test: `normalized_control_flow_computes_the_same`
/// in tests/runner.rs.)
#[test]
fn control_flow_normalization_before_and_after() {
    let src = r#"
float f(float x, int n)
{
    if (x < 0.0)
        return 0.0;
    float s = 0.0;
    for (int i = 0; i < n; i++)
    {
        if (i == 1)
            continue;
        s += x;
        if (s > 10.0)
            break;
    }
    return s;
}
"#;
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let mut module = slang_codegen::lower_function(&db, file, "f").unwrap_or_else(|e| panic!("{e:?}"));
    let f = slang_codegen::ir::FuncId(module.functions.iter().position(|g| g.name == "f").unwrap() as u32);
    let before = print::print_function_as_slang(&module, module.function(f));
    slang_codegen::autodiff::rev::normalize(&mut module, f).unwrap();
    slang_codegen::mem2reg::run(&mut module);
    slang_codegen::dce::run(&mut module);
    slang_codegen::validate::validate_module(&module).unwrap();
    let after = print::print_function_as_slang(&module, module.function(f));
    assert!(before.contains("return 0.0;") && before.contains("break;"), "{before}");
    // One `return`, at the end; the only `break` leaves the loop at the
    // end of an iteration.
    assert_eq!(after.matches("return").count(), 1, "{after}");
    assert!(after.trim_end().trim_end_matches('}').trim_end().ends_with(';'), "{after}");
    assert_eq!(after.matches("break;").count(), 1, "{after}");
    expect![[r#"
        float f(float x, int n)
        {
            bool _167;
            float _232;
            float _231;
            int _168;
            int _169;
            float _170;
            bool _174;
            float _194;
            float _225;
            bool _173;
            float _224;
            bool _189;
            float _192;
            float _223;
            bool _180;
            float _196;
            bool _190;
            float _195;
            float _227;
            bool _183;
            float _230;
            float _197;
            int _214;
            float _215;
            bool _9 = x < 0.0;
            if (_9)
            {
                _167 = true;
                _232 = 0.0;
            }
            else
            {
                _167 = false;
                _232 = 0.0;
            }
            bool _20 = !_167;
            if (_20)
            {
                _168 = 0;
                _169 = 0;
                _170 = 0.0;
                _174 = false;
                _194 = 0.0;
                _225 = 0.0;
                for (;;)
                {
                    int _53 = _168 + 1;
                    bool _60 = _169 < n;
                    if (_60)
                    {
                        _173 = _174;
                        _224 = _225;
                    }
                    else
                    {
                        _173 = true;
                        _224 = _170;
                    }
                    bool _75 = _167 || _173;
                    bool _77 = _75 || false;
                    bool _78 = !_77;
                    if (_78)
                    {
                        bool _86 = _169 == 1;
                        if (_86)
                        {
                            _180 = true;
                            _196 = _170;
                        }
                        else
                        {
                            _180 = false;
                            _196 = _194;
                        }
                        bool _101 = _167 || _173;
                        bool _103 = _101 || _180;
                        bool _104 = !_103;
                        if (_104)
                        {
                            float _106 = _170 + x;
                            bool _118 = _106 > 10.0;
                            if (_118)
                            {
                                _183 = true;
                                _230 = _106;
                            }
                            else
                            {
                                _183 = _173;
                                _230 = _224;
                            }
                            bool _130 = _167 || _183;
                            bool _132 = _130 || _180;
                            bool _133 = !_132;
                            if (_133)
                            {
                                _197 = _106;
                            }
                            else
                            {
                                _197 = _196;
                            }
                            _190 = _183;
                            _195 = _197;
                            _227 = _230;
                        }
                        else
                        {
                            _190 = _173;
                            _195 = _196;
                            _227 = _224;
                        }
                        _189 = _190;
                        _192 = _195;
                        _223 = _227;
                    }
                    else
                    {
                        _189 = _173;
                        _192 = _194;
                        _223 = _224;
                    }
                    bool _138 = _167 || _189;
                    bool _139 = !_138;
                    if (_139)
                    {
                        int _148 = _169 + 1;
                        _214 = _148;
                        _215 = _192;
                    }
                    else
                    {
                        _214 = _169;
                        _215 = _170;
                    }
                    bool _159 = _167 || _189;
                    if (_159)
                    {
                        break;
                    }
                    else
                    {
                        continue;
                    }
                    // continue:
                    _168 = _53;
                    _169 = _214;
                    _170 = _215;
                    _174 = _189;
                    _194 = _192;
                    _225 = _223;
                }
                _231 = _223;
            }
            else
            {
                _231 = _232;
            }
            return _231;
        }
    "#]]
    .assert_eq(&after);
}

/// `[ForceUnroll]` as an IR-to-IR pass, before and after: a loop whose
/// count the pass finds from `static const` bounds becomes that many
/// copies of its body, one after the other, with no loop left; the
/// value after the loop is the last copy's.
#[test]
fn force_unroll_before_and_after() {
    let src = r#"
static const int N = 3;
float f(float x)
{
    float s = 1.0;
    for (int i = 0; i < N; i++)
    {
        if (s > 4.0)
            s = s * 0.5;
        s = s * x + float(i);
    }
    return s;
}
"#;
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let mut module = slang_codegen::lower_function(&db, file, "f").unwrap_or_else(|e| panic!("{e:?}"));
    let id = module.functions.iter().position(|g| g.name == "f").unwrap();
    let before = print::print_function_as_slang(&module, &module.functions[id]);
    assert!(before.contains("for (;;)"), "{before}");
    // Mark the loop as `[ForceUnroll]` would.
    let f = &mut module.functions[id];
    let header = f
        .blocks
        .iter()
        .find_map(|b| match b.term {
            slang_codegen::ir::Terminator::Loop { header, .. } => Some(header),
            _ => None,
        })
        .expect("a loop");
    f.force_unroll.push((header, None, false));
    slang_codegen::unroll::unroll_function(f, &module.types).unwrap();
    slang_codegen::dce::run(&mut module);
    slang_codegen::validate::validate_module(&module).unwrap();
    let after = print::print_function_as_slang(&module, &module.functions[id]);
    assert!(!after.contains("for (;;)"), "{after}");
    assert_eq!(after.matches("if (").count(), 3, "{after}");
    expect![[r#"
        float f(float x)
        {
            float _47;
            float _61;
            float _75;
            bool _42 = 1.0 > 4.0;
            if (_42)
            {
                float _46 = 1.0 * 0.5;
                _47 = _46;
            }
            else
            {
                _47 = 1.0;
            }
            float _48 = _47 * x;
            float _49 = float(0);
            float _50 = _48 + _49;
            int _44 = 0 + 1;
            bool _56 = _50 > 4.0;
            if (_56)
            {
                float _60 = _50 * 0.5;
                _61 = _60;
            }
            else
            {
                _61 = _50;
            }
            float _62 = _61 * x;
            float _63 = float(_44);
            float _64 = _62 + _63;
            int _58 = _44 + 1;
            bool _70 = _64 > 4.0;
            if (_70)
            {
                float _74 = _64 * 0.5;
                _75 = _74;
            }
            else
            {
                _75 = _64;
            }
            float _76 = _75 * x;
            float _77 = float(_58);
            float _78 = _76 + _77;
            return _78;
        }
    "#]]
    .assert_eq(&after);
}

/// A `[ForceUnroll]` loop whose count is not a compile-time constant is an
/// error at the loop (as in the reference compiler), unless a bound is
/// written.
#[test]
fn force_unroll_needs_a_constant_count() {
    let src = |attr: &str| {
        format!(
            "RWStructuredBuffer<float> o;\nuniform int n;\n[numthreads(1,1,1)]\nvoid main() {{ float s = 0; {attr}\n    for (int i = 0; i < n; i++) s += 1.0; o[0] = s; }}\n"
        )
    };
    let mut db = RootDatabase::new();
    let text = src("[ForceUnroll]");
    let file = db.set_file("/test.slang", &text);
    let errors = lower_entry_point(&db, file, "main").expect_err("not unrollable");
    assert!(errors[0].message.contains("loop unrolling failed"), "{errors:?}");
    let range = errors[0].range.expect("a range");
    assert!(text[usize::from(range.start())..].starts_with("for (int i = 0; i < n"), "{errors:?}");
    let file = db.set_file("/test.slang", &src("[ForceUnroll(8)]"));
    lower_entry_point(&db, file, "main").unwrap_or_else(|e| panic!("{e:?}"));
}

/// What reverse mode saves for the backward part: cheap values are
/// recomputed from what their iteration (or the function's inputs) gave,
/// unless the function is `[PreferCheckpoint]`; unrolling the inner loop of
/// the paper's long-loop example leaves only the outer loop's state saved.
#[test]
fn recomputation_and_unrolling_shrink_the_context() {
    let size = |src: &str, name: &str| {
        let mut db = RootDatabase::new();
        let file = db.set_file("/test.slang", src);
        let def = slang_analysis::autodiff::functions_named(&db, file, name)[0];
        slang_codegen::backward_context_size(&db, def).unwrap_or_else(|e| panic!("{e:?}"))
    };
    // sin(x*x)*x: everything the backward part needs (x*x, sin and cos of
    // it, x) comes from the input again: nothing is saved; checkpointed:
    // x*x and sin(x*x), two floats.
    let straight = "float f(float x) { float a = x * x; return sin(a) * x; }";
    assert_eq!(size(&format!("[Differentiable]\n{straight}"), "f"), (0, 0));
    assert_eq!(size(&format!("[Differentiable][PreferCheckpoint]\n{straight}"), "f"), (8, 2));
    let taylor = |inner: &str| {
        format!(
            "static const int N = 17;\nstatic const int U = 4;\n[Differentiable]\nfloat t(float x)\n{{\n    float sum = 0;\n    float term = x;\n    [MaxIters(4)]\n    for (int i = 1; i < N; i += U)\n    {{\n        {inner}\n        for (int k = 0; k < U; k++)\n        {{\n            int j = i + k;\n            sum += term;\n            term *= -x * x / ((2.0 * j) * (2.0 * j + 1.0));\n        }}\n    }}\n    return sum;\n}}\n"
        )
    };
    let (unrolled, _) = size(&taylor("[ForceUnroll]"), "t");
    let (looped, _) = size(&taylor("[MaxIters(4)]"), "t");
    // Per outer iteration (5 slots) the unrolled form keeps the counter,
    // `term`, and a few flags; the loop keeps values per inner iteration
    // too (5 × 5 slots).
    assert!(unrolled * 3 < looped, "unrolled {unrolled} B, looped {looped} B");
    assert!(unrolled <= 5 * 4 * 5, "unrolled {unrolled} B");
}

/// Reverse mode pass by pass (`backward_derivative_passes`, also
/// `slang-analyzer derive --passes`): the primal, its normalized control
/// flow, transcription in two passes — unzip (the primal blocks of
/// `s_bwd_f`) and transpose (the differential blocks after them, in
/// reverse) —, checkpointing, and the extracted halves with the wrapper
/// calling them. Each stage's IR validates (the function
/// checks), and `tests/runner.rs` runs the autodiff compute tests with and
/// without the extraction.
#[test]
fn reverse_mode_passes_before_and_after() {
    let src = r#"
[Differentiable]
float f(float x, float y)
{
    float s = x * y;
    if (s > 1.0)
        s = sin(s);
    return s * x;
}
"#;
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let def = slang_analysis::autodiff::functions_named(&db, file, "f")[0];
    let passes = slang_codegen::backward_derivative_passes(&db, def).unwrap_or_else(|e| panic!("{e:?}"));
    let names: Vec<&str> = passes.iter().map(|p| p.0).collect();
    assert_eq!(names, ["primal", "normalize", "linearize", "unzip", "transpose", "checkpoint", "extract"]);
    let ir = |name: &str| passes.iter().find(|p| p.0 == name).unwrap().1.clone();
    // The primal: one `if` merging `s` into a block parameter.
    assert!(ir("primal").contains("sin(") && ir("primal").contains("if "), "{}", ir("primal"));
    // Unzipped: the primal blocks only (sin, no derivative yet), ending in
    // the empty block where the backward part will start; transposition
    // leaves them as they are and appends the differential blocks.
    let u = ir("unzip");
    assert!(u.starts_with("func s_bwd_f(") && u.contains("sin(") && !u.contains("cos("), "{u}");
    let last_block = u.rfind("\nb").unwrap();
    assert_eq!(u[last_block + 1..].lines().nth(1), Some("  return"), "{u}");
    let primal_blocks = &u[u.find("\nb1:").unwrap()..last_block];
    assert!(ir("transpose").contains(primal_blocks), "{u}\n{}", ir("transpose"));
    // Transcribed: one function, `s_bwd_f`, computing the primal (sin)
    // and then the backward part (its derivative cos, the adjoint of the
    // result `dResult` read); every primal value is saved as it is
    // computed: `x * y`, the branch condition, `sin`, `s` after the
    // branch, the result.
    let t = ir("transpose");
    assert!(t.starts_with("// saves 20 bytes per thread (5 values)\nfunc s_bwd_f("), "{t}");
    // Checkpointing: `x * y` and the condition are recomputed from the
    // parameters (for the condition of the reversed `if`, and for `cos`);
    // so is `s` after the branch (a `select` of the two sides' values, as
    // the reference compiler saves nothing for such a merge: its
    // `reverse-checkpoint-2` test); the saves no one reads (`sin`, the
    // result) are dropped.
    let c = ir("checkpoint");
    assert!(c.starts_with("// saves 0 bytes per thread (0 values)\nfunc s_bwd_f("), "{c}");
    let (primal_part, backward_part) = t.split_at(t.find("cos(").expect("the backward part"));
    assert!(primal_part.contains("sin("), "{t}");
    assert!(backward_part.contains("add") && !backward_part.contains("sin("), "{t}");
    assert_eq!(t.matches("\nfunc ").count(), 1, "{t}");
    let (_, backward_part) = c.split_at(c.find("cos(").expect("the backward part"));
    assert!(backward_part.contains("mul %") && !backward_part.contains("sin("), "{c}");
    // Extracted: the primal-context function (writing the context), the
    // backward-propagation function (reading it), the wrapper.
    let e = ir("extract");
    let funcs: Vec<&str> = e.lines().filter(|l| l.starts_with("func ")).map(|l| l.split('(').next().unwrap()).collect();
    assert_eq!(funcs, ["func s_primal_ctx_f", "func s_bwd_prop_f", "func s_bwd_f"], "{e}");
    let wrapper = e.split("func s_bwd_f").nth(1).unwrap();
    assert!(wrapper.contains("call s_primal_ctx_f(") && wrapper.contains("call s_bwd_prop_f("), "{e}");
    let primal_ctx = e.split("func s_bwd_prop_f").next().unwrap();
    assert!(primal_ctx.contains("sin(") && !primal_ctx.contains("cos("), "{e}");
    assert!(primal_ctx.contains("f_Intermediates"), "{e}");
}

/// The reverse-mode stages of `def` named `name` in `src`, by pass name.
fn reverse_passes(src: &str, name: &str) -> std::collections::HashMap<&'static str, String> {
    let mut db = RootDatabase::new();
    let file = db.set_file("/test.slang", src);
    let def = slang_analysis::autodiff::functions_named(&db, file, name)[0];
    slang_codegen::backward_derivative_passes(&db, def).unwrap_or_else(|e| panic!("{e:?}")).into_iter().collect()
}

/// The first line of a stage (what it saves) and its backward part: the
/// blocks from the one where the backward part starts (the first block
/// reading `dResult`, the last parameter) on.
fn backward_part(ir: &str) -> String {
    let first = ir.lines().next().unwrap_or_default();
    let entry = ir.lines().find(|l| l.starts_with("b0(")).expect("an entry block");
    let d_result = entry.rsplit(", ").next().unwrap().split(':').next().unwrap().to_string();
    let mut offset = 0;
    let mut block_start = 0;
    for line in ir.split_inclusive('\n') {
        if line.starts_with('b') {
            block_start = offset;
        } else if !line.starts_with("b0(") && line.split([' ', ',', '(', ')', '\n']).any(|w| w == d_result) {
            return format!("{first}\n{}", &ir[block_start..]);
        }
        offset += line.len();
    }
    panic!("no backward part: {ir}")
}

/// The checkpointing pass, before and after: transcription saves every
/// primal value as it is computed (the buffer read `k`, `a = x * k`,
/// `sin(a)`, the result), and the backward part reads them back; the pass
/// recomputes the arithmetic there (`a` once for its three uses, from the
/// parameter and the saved `k`), keeps the buffer read saved (the buffer
/// may have changed by then) and drops the saves no one reads.
#[test]
fn checkpointing_pass_recomputes_arithmetic_and_keeps_memory_reads() {
    let src = r#"
RWStructuredBuffer<float> w;

[Differentiable]
float f(float x)
{
    float k = w[0];
    float a = x * k;
    return sin(a) * a;
}
"#;
    let passes = reverse_passes(src, "f");
    expect![[r#"
        // saves 16 bytes per thread (4 values)
        b2:
          %31: float = load %28
          %32: float = add %31, %1
          store %28, %32
          %34: float = load %28
          %35: float = load %20
          %36: float = load %17
          %37: float = mul %34, %35
          %38: float = mul %34, %36
          %42: float = load %39
          %43: float = add %42, %38
          store %39, %43
          %48: float = load %45
          %49: float = add %48, %37
          store %45, %49
          %51: float = load %39
          %52: float = load %17
          %53: float = cos(%52)
          %54: float = mul %51, %53
          %55: float = load %45
          %56: float = add %55, %54
          store %45, %56
          %58: float = load %45
          %59: float = load %14
          %60: float = mul %58, %59
          %64: float = load %61
          %65: float = add %64, %60
          store %61, %65
          %67: float = load %61
          %68: Ptr<float> = field_addr %0, 1
          store %68, %67
          return
        }
    "#]]
    .assert_eq(&backward_part(&passes["transpose"]));
    expect![[r#"
        // saves 4 bytes per thread (1 values)
        b2:
          %31: float = load %28
          %32: float = add %31, %1
          store %28, %32
          %34: float = load %28
          %70: float = load %14
          %71: float = mul %3, %70
          %72: float = sin(%71)
          %37: float = mul %34, %72
          %38: float = mul %34, %71
          %42: float = load %39
          %43: float = add %42, %38
          store %39, %43
          %48: float = load %45
          %49: float = add %48, %37
          store %45, %49
          %51: float = load %39
          %53: float = cos(%71)
          %54: float = mul %51, %53
          %55: float = load %45
          %56: float = add %55, %54
          store %45, %56
          %58: float = load %45
          %60: float = mul %58, %70
          %64: float = load %61
          %65: float = add %64, %60
          store %61, %65
          %67: float = load %61
          %68: Ptr<float> = field_addr %0, 1
          store %68, %67
          return
        }
    "#]]
    .assert_eq(&backward_part(&passes["checkpoint"]));
    // The primal part no longer stores what is recomputed: one store of a
    // saved value (`k`) is left before the backward part.
    let c = &passes["checkpoint"];
    let primal_part = &c[c.find("\nb1:").unwrap()..c.find("\nb2:").unwrap()];
    assert!(primal_part.contains("sin(") && primal_part.contains("store %14, %13"), "{c}");
    // `[PreferCheckpoint]`: nothing is recomputed; only the result, which
    // no one reads, is dropped.
    let checkpointed = reverse_passes(&src.replace("[Differentiable]", "[Differentiable][PreferCheckpoint]"), "f");
    assert!(checkpointed["checkpoint"].starts_with("// saves 12 bytes per thread (3 values)\n"));
    assert!(!backward_part(&checkpointed["checkpoint"]).contains("sin("));
}

/// Checkpointing in a loop: transcription saves each iteration's values in
/// arrays indexed by the iteration (`[MaxIters(4)]`: 5 slots); the pass
/// recomputes `t = y * x` in the reversed iteration from that iteration's
/// saved `y` (the state the loop carries, which stays saved), and the loop
/// condition `i < 4` from the saved `i`.
#[test]
fn checkpointing_pass_in_a_loop_recomputes_from_the_iteration_state() {
    let src = r#"
[Differentiable]
float g(float x)
{
    float y = x;
    [MaxIters(4)]
    for (int i = 0; i < 4; i++)
    {
        float t = y * x;
        y = sin(t) + t;
    }
    return y;
}
"#;
    let passes = reverse_passes(src, "g");
    let (before, after) = (&passes["transpose"], &passes["checkpoint"]);
    // Saved per iteration (20 bytes each) before: `i`, `y`, the condition,
    // `t`, `sin(t)`, the new `y`, `i + 1`; and the counter after the loop
    // (before it, in no other loop, it is zero). (Whether the body and the
    // continuing part ran is known from the iteration number: every
    // iteration but the last.) Left: `y` per iteration (`i` is the first
    // value plus the iterations before; the counter after the loop is 5
    // on every call). slangc saves 24 bytes (`y` in 6 slots).
    assert!(before.starts_with("// saves 144 bytes per thread (8 values)\n"), "{before}");
    assert!(after.starts_with("// saves 20 bytes per thread (1 values)\n"), "{after}");
    // In the reversed iteration: `cos` of a product recomputed from a
    // slot of the saved `y` (an element of an array, at the iteration
    // being reversed) and the parameter.
    let back = backward_part(after);
    let cos = back.lines().find(|l| l.contains("cos(")).expect("cos");
    let arg = cos.split("cos(").nth(1).unwrap().trim_end_matches(')');
    let def = back.lines().find(|l| l.trim_start().starts_with(&format!("{arg}:"))).expect("recomputed");
    assert!(def.contains("= mul %"), "{back}");
    let y_slot = def.split("mul ").nth(1).unwrap().split(',').next().unwrap();
    let load = back.lines().find(|l| l.trim_start().starts_with(&format!("{y_slot}:"))).unwrap();
    let ptr = load.split("load ").nth(1).unwrap();
    assert!(
        back.lines().any(|l| l.trim_start().starts_with(&format!("{ptr}:")) && l.contains("element_addr")),
        "{back}"
    );
    // The extracted context is what the pass left.
    assert!(passes["extract"].contains("g_Intermediates"));
}

/// Linearization with tagging, the first pass of transcription: each
/// arithmetic instruction of `f` gets a block of `s_lin_f` holding its
/// Jacobian-vector product by the forward-mode rules — parameters for the
/// operands' primal values, the differentials of those that have one (not
/// the `no_diff` `k`) and the result — with each instruction tagged:
/// `cos` (reading primal values only) primal, the products differential.
/// Transposition then replays the primal part (`cos`, with its operand
/// recomputed or read) and transposes the differential part; `sin` itself
/// is not needed by the backward part.
#[test]
fn linearization_pass_tags_each_instructions_jvp() {
    let passes =
        reverse_passes("[Differentiable]\nfloat f(float x, no_diff float k) { return sin(x * k) + k; }\n", "f");
    expect![[r#"
        func s_lin_f() -> void {
          // f.%8: float = mul f.%0, f.%3
          //   %0 = f.%0, %1 = d(f.%0), %2 = f.%3, %3 = f.%8
        b0(%0: float, %1: float, %2: float, %3: float):
          %4: float = mul %2, %1  [differential]
          return %4
          // f.%9: float = sin(f.%8)
          //   %5 = f.%8, %6 = d(f.%8), %7 = f.%9
        b1(%5: float, %6: float, %7: float):
          %8: float = cos(%5)  [primal]
          %9: float = mul %8, %6  [differential]
          return %9
          // f.%11: float = add f.%9, f.%3
          //   %10 = f.%9, %11 = d(f.%9), %12 = f.%3, %13 = f.%11
        b2(%10: float, %11: float, %12: float, %13: float):
          return %11
        }
    "#]]
    .assert_eq(&passes["linearize"]);
    let back = backward_part(&passes["transpose"]);
    assert!(back.contains("cos(") && !back.contains("sin("), "{back}");
}

/// A pure callee in a loop is called again by the backward pass rather
/// than its context (or result) saved per iteration: what is left is the
/// loop-carried `y` (4 bytes for each of `MaxIters + 1` = 5 slots; the
/// loop runs 4 times on every call, so its count is not saved). slangc
/// saves 24 bytes (`y` in 6 slots).
#[test]
fn checkpointing_recomputes_pure_calls_in_a_loop() {
    let src = r#"
[Differentiable]
float grow(float a, float b) { return a * b + a; }

[Differentiable]
float f(float x)
{
    float y = x;
    [MaxIters(4)]
    for (int i = 0; i < 4; i++)
        y = grow(y, float(i));
    return y;
}
"#;
    let passes = reverse_passes(src, "f");
    let after = &passes["checkpoint"];
    assert!(after.starts_with("// saves 20 bytes per thread (1 values)\n"), "{after}");
    assert!(!passes["extract"].contains("grow_Intermediates"), "{}", passes["extract"]);
}

/// Reverse mode through `[ForceUnroll]` loops reading a struct's array
/// element by element grows linearly: twice the elements, at most ~2.2
/// times the backward derivative (each use of the array does not get an
/// adjoint of the whole array, [`slang_codegen::cse`]).
#[test]
fn unrolled_reverse_mode_grows_linearly() {
    let size = |n: usize| {
        let src = format!(
            r#"
struct Net : IDifferentiable {{ float w[{n}]; }}

[Differentiable]
float f(Net net, float x)
{{
    float y = 0.0;
    [ForceUnroll]
    for (int i = 0; i < {n}; i++)
        y += net.w[i] * x;
    return y;
}}
"#
        );
        reverse_passes(&src, "f")["extract"].len() as f64
    };
    let (small, large) = (size(32), size(64));
    assert!(large / small <= 2.2, "{small} -> {large} bytes of IR");
}

/// A value computed from constants alone outside a loop (`4.0 / 64.0`) is
/// computed again where the loop's reversal uses it, not saved: what is
/// left is the loop-carried `y` (4 bytes for each of 5 slots; slangc: 24
/// bytes, 6 slots).
#[test]
fn checkpointing_recomputes_constant_expressions_in_loops() {
    let src = r#"
[Differentiable]
float f(float x)
{
    const float dt = 4.0 / 64.0;
    float y = x;
    [MaxIters(4)]
    for (int i = 0; i < 4; i++)
        y = y * x + dt * y;
    return y;
}
"#;
    let after = &reverse_passes(src, "f")["checkpoint"];
    assert!(after.starts_with("// saves 20 bytes per thread (1 values)\n"), "{after}");
}
