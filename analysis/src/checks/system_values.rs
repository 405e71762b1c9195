//! System-value semantics used in a stage or direction that does not
//! have them (the reference compiler's E30702): `uint id : SV_VertexID` as
//! a fragment shader's input, `out float d : SV_Depth` from a compute
//! shader, `SV_IsFrontFace` written by a vertex shader; and two depth
//! outputs of one fragment shader (E30705).
//!
//! Checked on the parameters and result of a `[shader("…")]` entry point
//! of a vertex, fragment, compute, mesh or amplification shader, and on
//! the fields of a struct of the file that such a parameter or result has
//! as its type (no semantic of its own). Other stages (geometry, hull,
//! domain, ray tracing) pass their varyings through wrappers whose rules
//! this check does not know, and stay unchecked, as do `inout` parameters
//! and semantics the table below does not list (which semantics exist at
//! all is `decl_check`'s list).

use std::collections::HashMap;

use slang_syntax::{SyntaxKind, SyntaxNode};

use super::placement::{has_token, is_type_kind};
use crate::diagnostic::{Diagnostic, Severity};

/// A system value (lower case, without its index), the stages where an
/// entry point may read it (input) and those where it may write it
/// (output). From the reference compiler's core module (the `semantic`
/// declarations' getters and setters and their `[require(stage)]`).
const STAGES: &[(&str, &[&str], &[&str])] = &[
    ("sv_position", &["fragment", "geometry"], &["vertex", "geometry", "hull", "domain", "mesh"]),
    ("sv_depth", &[], &["fragment"]),
    ("sv_depthgreaterequal", &[], &["fragment"]),
    ("sv_depthlessequal", &[], &["fragment"]),
    ("sv_clipdistance", &["fragment"], &["vertex", "geometry", "hull", "domain", "mesh"]),
    ("sv_culldistance", &["fragment"], &["vertex", "geometry", "hull", "domain", "mesh"]),
    ("sv_stencilref", &[], &["fragment"]),
    ("sv_coverage", &["fragment"], &["fragment"]),
    ("sv_innercoverage", &["fragment"], &[]),
    ("sv_dispatchthreadid", &["compute", "mesh", "amplification"], &[]),
    ("sv_groupid", &["compute", "mesh", "amplification"], &[]),
    ("sv_groupindex", &["compute", "mesh", "amplification"], &[]),
    ("sv_groupthreadid", &["compute", "mesh", "amplification"], &[]),
    ("sv_vertexid", &["vertex"], &[]),
    ("sv_instanceid", &["vertex", "fragment"], &["vertex"]),
    ("sv_isfrontface", &["fragment"], &["geometry"]),
    ("sv_sampleindex", &["fragment"], &[]),
    ("sv_pointcoord", &["fragment"], &[]),
    ("sv_primitiveid", &["fragment", "geometry", "hull", "domain"], &["geometry", "mesh"]),
    ("sv_viewportarrayindex", &["fragment"], &["vertex", "geometry", "hull", "domain", "mesh"]),
    ("sv_rendertargetarrayindex", &["fragment"], &["vertex", "geometry", "hull", "domain", "mesh"]),
    ("sv_domainlocation", &["domain"], &[]),
    ("sv_outputcontrolpointid", &["hull"], &[]),
    ("sv_tessfactor", &["domain"], &["hull"]),
    ("sv_insidetessfactor", &["domain"], &["hull"]),
    ("sv_gsinstanceid", &["geometry"], &[]),
    ("sv_pointsize", &[], &["vertex", "geometry", "mesh"]),
    ("sv_drawindex", &["vertex", "mesh", "amplification"], &[]),
    ("sv_waveindex", &["compute"], &[]),
    ("sv_barycentrics", &["fragment"], &[]),
    ("sv_startvertexlocation", &["vertex"], &[]),
    ("sv_startinstancelocation", &["vertex"], &[]),
    ("sv_cullprimitive", &[], &["mesh"]),
    ("sv_fragsize", &["fragment"], &[]),
    ("sv_fraginvocationcount", &["fragment"], &[]),
    ("sv_shadingrate", &["fragment"], &["vertex", "geometry", "mesh"]),
    ("sv_vulkanvertexid", &["vertex"], &[]),
    ("sv_vulkaninstanceid", &["vertex"], &[]),
    ("sv_vulkansampleposition", &["fragment"], &[]),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Input,
    Output,
}

/// Checks the parameters and result of `f` when it is an entry point.
pub(crate) fn check(cx: &super::Cx, f: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if cx.glsl {
        return;
    }
    let Some(stage) = checked_stage(f, true) else { return };
    let mut outputs = Vec::new();
    for (p, direction) in params(f) {
        if let Some(semantic) = p.children().find(|c| c.kind() == SyntaxKind::SEMANTIC) {
            let name = p.children().find(|c| c.kind() == SyntaxKind::NAME);
            check_semantic(&semantic, name.as_ref(), stage, direction, out);
            if direction == Direction::Output {
                outputs.push(semantic);
            }
        }
    }
    if let Some(semantic) = f.children().find(|c| c.kind() == SyntaxKind::SEMANTIC) {
        check_semantic(&semantic, None, stage, Direction::Output, out);
        outputs.push(semantic);
    }
    if stage == "fragment" {
        one_depth_output(&outputs, out);
    }
    for (p, _) in params(f) {
        dispatch_thread_id_type(&p, out);
    }
}

/// `SV_DispatchThreadID` is an `int` or `uint` scalar or vector of 1 to 3
/// (E38024): a floating-point, `bool` or 4-element type is not.
fn dispatch_thread_id_type(p: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    let Some(tok) = p.children().find(|c| c.kind() == SyntaxKind::SEMANTIC).and_then(|s| semantic_token(&s)) else {
        return;
    };
    if !tok.text().eq_ignore_ascii_case("sv_dispatchthreadid") {
        return;
    }
    let Some(ty) = p.children().find(|c| c.kind() == SyntaxKind::PATH_TYPE) else { return };
    let text = ty.text().to_string();
    let text = text.trim();
    let base = text.trim_end_matches(|c: char| c.is_ascii_digit());
    let width = &text[base.len()..];
    let wrong_element = matches!(base, "float" | "half" | "double" | "bool");
    let wrong_width = matches!(base, "int" | "uint") && width == "4";
    if (wrong_element && matches!(width, "" | "1" | "2" | "3" | "4")) || wrong_width {
        let name = p.children().find(|c| c.kind() == SyntaxKind::NAME);
        out.push(Diagnostic {
            range: name.map_or(ty.text_range(), |n| n.text_range()),
            severity: Severity::Error,
            code: "invalid-system-value",
            message: format!(
                "a parameter with `SV_DispatchThreadID` must be an `int` or `uint` scalar or vector of 1 to 3, \
                 not `{text}`; use `uint3`"
            ),
        });
    }
}

/// A fragment shader writes at most one of `SV_Depth`,
/// `SV_DepthGreaterEqual` and `SV_DepthLessEqual` (E30705): the second is
/// reported.
fn one_depth_output(outputs: &[SyntaxNode], out: &mut Vec<Diagnostic>) {
    let mut first: Option<String> = None;
    for semantic in outputs {
        let Some(tok) = semantic_token(semantic) else { continue };
        let lower = tok.text().to_ascii_lowercase();
        if !matches!(lower.as_str(), "sv_depth" | "sv_depthgreaterequal" | "sv_depthlessequal") {
            continue;
        }
        match &first {
            None => first = Some(tok.text().to_string()),
            Some(earlier) => out.push(Diagnostic {
                range: tok.text_range(),
                severity: Severity::Error,
                code: "invalid-system-value",
                message: format!(
                    "a fragment shader can write one depth output, but `{}` comes after `{earlier}`; keep one",
                    tok.text()
                ),
            }),
        }
    }
}

fn semantic_token(semantic: &SyntaxNode) -> Option<slang_syntax::SyntaxToken> {
    semantic.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == SyntaxKind::IDENT)
}

/// The fields of the file's structs that an entry point of `root` (the
/// file) reads or writes through a parameter or its result: these
/// diagnostics sit in the struct, not in the entry point, so they are
/// found over the file.
pub(crate) fn check_struct_fields(cx: &super::Cx, root: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if cx.glsl {
        return;
    }
    // The file's non-generic structs, by a name that means only them.
    let mut structs: HashMap<String, SyntaxNode> = HashMap::new();
    for s in root.children().filter(|c| c.kind() == SyntaxKind::STRUCT) {
        if s.children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST) {
            continue;
        }
        let Some(name) = s.children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| n.text().to_string()) else {
            continue;
        };
        if cx.scope.names.get(&name).is_some_and(|d| d.len() == 1 && d[0].file == cx.file)
            && !cx.scope.macros.contains(&name)
        {
            structs.insert(name, s);
        }
    }
    if structs.is_empty() {
        return;
    }
    let mut seen: Vec<(SyntaxNode, Direction, &str)> = Vec::new();
    for f in root.children().filter(|c| c.kind() == SyntaxKind::FN) {
        let Some(stage) = checked_stage(&f, false) else { continue };
        let mut types: Vec<(SyntaxNode, Direction)> = params(&f)
            .into_iter()
            .filter(|(p, _)| !p.children().any(|c| c.kind() == SyntaxKind::SEMANTIC))
            .filter_map(|(p, d)| Some((p.children().find(|c| is_type_kind(c.kind()))?, d)))
            .collect();
        if !f.children().any(|c| c.kind() == SyntaxKind::SEMANTIC) {
            let ret = f.children().find(|c| is_type_kind(c.kind())).or_else(|| {
                f.children()
                    .find(|c| c.kind() == SyntaxKind::RETURN_TYPE)
                    .and_then(|r| r.children().find(|c| is_type_kind(c.kind())))
            });
            types.extend(ret.map(|t| (t, Direction::Output)));
        }
        for (ty, direction) in types {
            struct_fields(&structs, &ty, stage, direction, 0, &mut seen, out);
        }
    }
}

fn struct_fields<'s>(
    structs: &HashMap<String, SyntaxNode>,
    ty: &SyntaxNode,
    stage: &'s str,
    direction: Direction,
    depth: u32,
    seen: &mut Vec<(SyntaxNode, Direction, &'s str)>,
    out: &mut Vec<Diagnostic>,
) {
    if ty.kind() != SyntaxKind::PATH_TYPE || depth > 8 {
        return;
    }
    let Some(node) = structs.get(ty.text().to_string().trim()) else { return };
    // (Each struct once per stage and direction: two entry points of a
    // stage share it.)
    if seen.iter().any(|(n, d, s)| n == node && *d == direction && *s == stage) {
        return;
    }
    seen.push((node.clone(), direction, stage));
    let Some(members) = node.children().find(|c| c.kind() == SyntaxKind::MEMBER_LIST) else { return };
    for field in members.children().filter(|c| c.kind() == SyntaxKind::VAR_DECL) {
        if has_token(&field, SyntaxKind::STATIC_KW) {
            continue;
        }
        for d in field.children().filter(|c| c.kind() == SyntaxKind::DECLARATOR) {
            match d.children().find(|c| c.kind() == SyntaxKind::SEMANTIC) {
                Some(semantic) => {
                    let name = d.children().find(|c| c.kind() == SyntaxKind::NAME);
                    check_semantic(&semantic, name.as_ref(), stage, direction, out);
                }
                None => {
                    if let Some(fty) = field.children().find(|c| is_type_kind(c.kind())) {
                        struct_fields(structs, &fty, stage, direction, depth + 1, seen, out);
                    }
                }
            }
        }
    }
}

/// The stage of `f`'s `[shader("…")]` when this check knows its
/// varyings, by the reference compiler's name for it; with `numthreads`,
/// also a compute shader marked by `[numthreads]` alone (not one with
/// `[outputtopology]`, a mesh shader's).
fn checked_stage(f: &SyntaxNode, numthreads: bool) -> Option<&'static str> {
    if f.kind() != SyntaxKind::FN || super::parent_kind(f) != SyntaxKind::SOURCE_FILE {
        return None;
    }
    if f.children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST) {
        return None;
    }
    // (Without `[shader]`, `[numthreads]` makes a compute shader.)
    let attribute = |name: &str| {
        f.children()
            .filter(|c| c.kind() == SyntaxKind::ATTRIBUTE)
            .any(|a| a.text().to_string().trim_start_matches('[').trim_start().starts_with(name))
    };
    let stage = super::entry_points::shader_stage(f).or_else(|| {
        (numthreads && attribute("numthreads") && !attribute("outputtopology")).then(|| "compute".to_string())
    })?;
    match stage.as_str() {
        "vertex" => Some("vertex"),
        "fragment" | "pixel" => Some("fragment"),
        "compute" => Some("compute"),
        "mesh" => Some("mesh"),
        "amplification" => Some("amplification"),
        _ => None,
    }
}

/// The parameters of `f` that carry a value one way (`inout` and
/// `uniform` ones are left out).
fn params(f: &SyntaxNode) -> Vec<(SyntaxNode, Direction)> {
    let Some(list) = f.children().find(|c| c.kind() == SyntaxKind::PARAM_LIST) else { return Vec::new() };
    list.children()
        .filter(|c| c.kind() == SyntaxKind::PARAM)
        .filter(|p| !has_token(p, SyntaxKind::INOUT_KW) && !has_token(p, SyntaxKind::UNIFORM_KW))
        .filter(|p| !(has_token(p, SyntaxKind::IN_KW) && has_token(p, SyntaxKind::OUT_KW)))
        .map(|p| {
            let d = if has_token(&p, SyntaxKind::OUT_KW) { Direction::Output } else { Direction::Input };
            (p, d)
        })
        .collect()
}

fn check_semantic(
    semantic: &SyntaxNode,
    name: Option<&SyntaxNode>,
    stage: &str,
    direction: Direction,
    out: &mut Vec<Diagnostic>,
) {
    let Some(tok) = semantic_token(semantic) else { return };
    let text = tok.text().to_ascii_lowercase();
    let base = text.trim_end_matches(|c: char| c.is_ascii_digit());
    let Some((_, inputs, outputs)) = STAGES.iter().find(|(n, _, _)| *n == base) else { return };
    let (allowed, dir) = match direction {
        Direction::Input => (inputs, "input"),
        Direction::Output => (outputs, "output"),
    };
    if allowed.contains(&stage) {
        return;
    }
    let shown = tok.text().trim_end_matches(|c: char| c.is_ascii_digit());
    let stage_name = if stage == "fragment" { "pixel" } else { stage };
    let fix = if allowed.is_empty() {
        format!("no stage has it as {dir}")
    } else {
        format!("it is {dir} in {} shaders", allowed.join(", "))
    };
    out.push(Diagnostic {
        range: name.map_or(tok.text_range(), |n| n.text_range()),
        severity: Severity::Error,
        code: "invalid-system-value",
        message: format!("system value semantic `{shown}` cannot be used as {dir} in a {stage_name} shader: {fix}"),
    });
}
