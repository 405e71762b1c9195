//! Types that cannot cross an entry point's varying interface (its
//! non-`uniform` parameters and its result): automatic-differentiation
//! pairs and atomics (also inside a field of a struct), matrices with
//! more than 4 rows or columns, geometry-shader streams outside a
//! geometry shader, mesh-shader outputs outside a mesh shader, and index
//! outputs of a type other than `uint`, `uint2` or `uint3`; and resource
//! and array results of an entry point of any stage. Also what a stage
//! requires of its entry point's signature: a geometry shader's output
//! stream and `[maxvertexcount]`, a mesh shader's vertex and index
//! outputs.

use std::collections::HashMap;

use slang_syntax::{SyntaxKind, SyntaxNode};

use super::placement::{has_token, is_type_kind};
use crate::diagnostic::{Diagnostic, Severity};

/// Checks `f` when it is a top-level function (the entry points are).
pub(crate) fn check(cx: &super::Cx, f: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if f.kind() != SyntaxKind::FN || super::parent_kind(f) != SyntaxKind::SOURCE_FILE {
        return;
    }
    let Some(stage) = shader_stage(f) else { return };
    resource_result(cx, f, out);
    stage_requirements(f, &stage, out);
    // Compute and ray-tracing parameters without a semantic are
    // uniform: only the graphics stages have varying parameters.
    if !matches!(stage.as_str(), "vertex" | "fragment" | "pixel" | "geometry" | "hull" | "domain" | "mesh") {
        return;
    }
    if f.children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST) {
        return;
    }
    let scope = cx.scope;
    let is_core = |name: &str| scope.means_core(name);
    // The file's non-generic structs, by a name that means only them.
    let mut structs: HashMap<String, SyntaxNode> = HashMap::new();
    for (name, green) in super::top_level_structs(cx.db, cx.file) {
        let Some(node) = green.0.clone().map(SyntaxNode::new_root) else { continue };
        if node.children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST) {
            continue;
        }
        if scope.names.get(name).is_some_and(|d| d.len() == 1 && d[0].file == cx.file) {
            structs.insert(name.clone(), node);
        }
    }
    let ctx = Ctx { structs: &structs, is_core: &is_core };
    let fn_name = f.children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| n.text().to_string());
    let fn_name = fn_name.unwrap_or_default();
    if let Some(list) = f.children().find(|c| c.kind() == SyntaxKind::PARAM_LIST) {
        for p in list.children().filter(|c| c.kind() == SyntaxKind::PARAM) {
            if has_token(&p, SyntaxKind::UNIFORM_KW) {
                continue;
            }
            let Some(ty) = p.children().find(|c| is_type_kind(c.kind())) else { continue };
            let name = p.children().find(|c| c.kind() == SyntaxKind::NAME);
            let pname = name.as_ref().map(|n| n.text().to_string()).unwrap_or_default();
            if let Some((shown, why)) = ctx.problem(&ty, &stage, 0) {
                out.push(Diagnostic {
                    range: name.map_or(ty.text_range(), |n| n.text_range()),
                    severity: Severity::Error,
                    code: "invalid-varying-type",
                    message: format!(
                        "type `{shown}` cannot be used as parameter `{pname}` of entry point `{fn_name}`: {why}"
                    ),
                });
            }
        }
    }
    // `T f()` or `func f() -> T`.
    let ret = f.children().find(|c| is_type_kind(c.kind())).or_else(|| {
        f.children()
            .find(|c| c.kind() == SyntaxKind::RETURN_TYPE)
            .and_then(|r| r.children().find(|c| is_type_kind(c.kind())))
    });
    if let Some(ty) = ret {
        if let Some((shown, why)) = ctx.problem(&ty, &stage, 0) {
            out.push(Diagnostic {
                range: ty.text_range(),
                severity: Severity::Error,
                code: "invalid-varying-type",
                message: format!("type `{shown}` cannot be the result of entry point `{fn_name}`: {why}"),
            });
        }
    }
}

struct Ctx<'a> {
    structs: &'a HashMap<String, SyntaxNode>,
    is_core: &'a dyn Fn(&str) -> bool,
}

impl Ctx<'_> {
    /// The type as written and why it cannot be varying, if it cannot.
    fn problem(&self, ty: &SyntaxNode, stage: &str, depth: u32) -> Option<(String, String)> {
        if ty.kind() != SyntaxKind::PATH_TYPE || depth > 8 {
            return None;
        }
        let shown: String = ty.text().to_string().split_whitespace().collect::<Vec<_>>().join(" ");
        let head = shown.split('<').next().unwrap_or("").trim().to_string();
        let args = generic_args(ty);
        let core = |n: &str| head == n && (self.is_core)(n);
        let why = if core("DifferentialPair") || core("DifferentialPtrPair") {
            Some(
                "a differential pair is not a valid varying type; pass the primal value and its derivative \
                 separately"
                    .to_string(),
            )
        } else if core("Atomic") {
            Some("an `Atomic` is not a valid varying type; use a plain value".to_string())
        } else if (core("PointStream") || core("LineStream") || core("TriangleStream")) && stage != "geometry" {
            Some("stream output types are only valid on a geometry shader entry point".to_string())
        } else if (core("OutputVertices") || core("OutputIndices") || core("OutputPrimitives")) && stage != "mesh" {
            Some("mesh output types are only valid on a mesh shader entry point".to_string())
        } else if core("OutputIndices")
            && args.first().is_some_and(|a| !matches!(a.trim(), "uint" | "uint2" | "uint3") && is_builtin_numeric(a))
        {
            Some("the element type of `OutputIndices` must be `uint`, `uint2` or `uint3`".to_string())
        } else if core("matrix")
            && args.len() == 3
            && args[1..].iter().any(|a| a.trim().parse::<i64>().is_ok_and(|n| !(1..=4).contains(&n)))
        {
            Some("a matrix's row and column counts must be between 1 and 4".to_string())
        } else if !shown.contains('<') {
            // A struct of the file: its fields are varying too.
            let node = self.structs.get(&head)?;
            let members = node.children().find(|c| c.kind() == SyntaxKind::MEMBER_LIST)?;
            members
                .children()
                .filter(|c| c.kind() == SyntaxKind::VAR_DECL && !has_token(c, SyntaxKind::STATIC_KW))
                .filter_map(|field| field.children().find(|c| is_type_kind(c.kind())))
                .find_map(|fty| self.problem(&fty, stage, depth + 1))
                .map(|(inner, why)| format!("its field of type `{inner}` is invalid: {why}"))
        } else {
            None
        };
        why.map(|w| (shown, w))
    }
}

/// An entry point cannot return an array (E38012), and a geometry shader
/// needs an output stream parameter (E38045) and `[maxvertexcount]`
/// (E38046), a mesh shader both vertex and index outputs (E38048).
fn stage_requirements(f: &SyntaxNode, stage: &str, out: &mut Vec<Diagnostic>) {
    let Some(name) = f.children().find(|c| c.kind() == SyntaxKind::NAME) else { return };
    let fn_name = name.text().to_string();
    let mut error = |code: &'static str, message: String| {
        out.push(Diagnostic { range: name.text_range(), severity: Severity::Error, code, message });
    };
    if let Some(ty) = f.children().find(|c| c.kind() == SyntaxKind::PATH_TYPE) {
        if ty.text().to_string().split('<').next().is_some_and(|h| h.trim() == "Array") {
            error(
                "invalid-varying-type",
                format!(
                    "entry point `{fn_name}` cannot return an array; return a struct with the array as a field, \
                     or write the elements to `out` parameters"
                ),
            );
        }
    }
    let params: Vec<SyntaxNode> = f
        .children()
        .find(|c| c.kind() == SyntaxKind::PARAM_LIST)
        .map(|l| l.children().filter(|c| c.kind() == SyntaxKind::PARAM).collect())
        .unwrap_or_default();
    let type_head = |p: &SyntaxNode| {
        p.children()
            .find(|c| is_type_kind(c.kind()))
            .map(|t| t.text().to_string().split('<').next().unwrap_or("").trim().to_string())
            .unwrap_or_default()
    };
    let attribute = |name: &str| {
        f.children().filter(|c| c.kind() == SyntaxKind::ATTRIBUTE).any(|a| {
            let text = a.text().to_string();
            let inner = text.trim_start_matches('[').trim();
            inner.get(..name.len()).is_some_and(|h| h.eq_ignore_ascii_case(name))
        })
    };
    match stage {
        "geometry" => {
            // (Any `inout` parameter may be a stream under another name.)
            let stream = params.iter().any(|p| {
                has_token(p, SyntaxKind::INOUT_KW)
                    || matches!(type_head(p).as_str(), "PointStream" | "LineStream" | "TriangleStream")
            });
            if !stream {
                error(
                    "missing-stage-parameter",
                    format!(
                        "geometry shader entry point `{fn_name}` needs an output stream parameter: \
                         add `inout TriangleStream<T> stream` (or `PointStream<T>`, `LineStream<T>`)"
                    ),
                );
            } else if !attribute("maxvertexcount") {
                error(
                    "missing-stage-parameter",
                    format!(
                        "geometry shader entry point `{fn_name}` needs `[maxvertexcount(N)]`: \
                         the most vertices one invocation emits"
                    ),
                );
            }
        }
        "mesh" => {
            let has =
                |keyword: SyntaxKind, ty: &str| params.iter().any(|p| has_token(p, keyword) || type_head(p) == ty);
            if !has(SyntaxKind::VERTICES_KW, "OutputVertices") || !has(SyntaxKind::INDICES_KW, "OutputIndices") {
                error(
                    "missing-stage-parameter",
                    format!(
                        "mesh shader entry point `{fn_name}` must declare both an `OutputVertices` and an \
                         `OutputIndices` output parameter (`out vertices`/`out indices` arrays)"
                    ),
                );
            }
        }
        _ => {}
    }
}

/// The stage of `[shader("…")]`, lower case.
/// An entry point cannot return a resource (`Texture2D<int> main()`,
/// E38011).
fn resource_result(cx: &super::Cx, f: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    let Some(ty) = f.children().find(|c| c.kind() == SyntaxKind::PATH_TYPE) else { return };
    let text = ty.text().to_string();
    let name = text.split('<').next().unwrap_or("").trim();
    if crate::infer::is_resource_name(name) && cx.scope.means_core(name) {
        out.push(Diagnostic {
            range: ty.text_range(),
            severity: Severity::Error,
            code: "invalid-varying-type",
            message: format!(
                "an entry point cannot return the resource type `{}`; write the result to a buffer parameter instead",
                text.trim()
            ),
        });
    }
}

pub(crate) fn shader_stage(f: &SyntaxNode) -> Option<String> {
    f.children().filter(|c| c.kind() == SyntaxKind::ATTRIBUTE).find_map(|a| {
        let text = a.text().to_string();
        let inner = text.trim_start_matches('[').trim_end_matches(']').trim();
        let arg = inner.strip_prefix("shader")?.trim().strip_prefix('(')?.strip_suffix(')')?.trim();
        let stage = arg.strip_prefix('"')?.strip_suffix('"')?;
        Some(stage.to_ascii_lowercase())
    })
}

/// The generic arguments of a path type, as written.
fn generic_args(ty: &SyntaxNode) -> Vec<String> {
    let text = ty.text().to_string();
    let Some((_, rest)) = text.split_once('<') else { return Vec::new() };
    let Some(inner) = rest.trim_end().strip_suffix('>') else { return Vec::new() };
    let mut args = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for c in inner.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                args.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    args.push(cur);
    args
}

/// `int`, `float3`, `uint16_t` …: a built-in scalar or vector name.
fn is_builtin_numeric(s: &str) -> bool {
    let base = s.trim().trim_end_matches(|c: char| ('1'..='4').contains(&c));
    matches!(
        base,
        "int"
            | "uint"
            | "float"
            | "half"
            | "double"
            | "bool"
            | "int16_t"
            | "uint16_t"
            | "int64_t"
            | "uint64_t"
            | "int8_t"
            | "uint8_t"
    )
}
