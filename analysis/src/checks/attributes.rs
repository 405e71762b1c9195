//! Attributes and signatures the reference compiler rejects on their own:
//! `[numthreads]` given twice or with a count below 1, `[WaveSize]` not a
//! power of two in 4..=128, `[UnscopedEnum]` on an `enum class`, a mesh
//! shader without `[outputtopology]`, a parameter without a default after
//! one with a default, a generic value parameter of a floating-point
//! type, a parameterless constructor in an extension of a struct,
//! `[NoDiscard]` on a function returning `void`, `[COM]` interfaces (their
//! GUID, associated types, struct conformances), `[anyValueSize]` over its
//! limit, an anonymous `enum class`, a generic parameter after a pack, and
//! `try` in a `defer` block.

use slang_syntax::{SyntaxKind, SyntaxNode, TextRange};

use super::placement::{has_token, is_type_kind};
use crate::diagnostic::{Diagnostic, Severity};

/// Checks `root` (a top-level declaration) and what it contains.
pub(crate) fn check(cx: &super::Cx, root: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if cx.glsl {
        return;
    }
    let scope = cx.scope;
    let is_macro = |name: &str| scope.macros.contains(name);
    let error = |range: TextRange, code: &'static str, message: String| Diagnostic {
        range,
        severity: Severity::Error,
        code,
        message,
    };
    for node in root.descendants() {
        match node.kind() {
            SyntaxKind::FN => {
                let attrs: Vec<(String, SyntaxNode)> = attributes(&node);
                let numthreads: Vec<&SyntaxNode> =
                    attrs.iter().filter(|(n, _)| n.eq_ignore_ascii_case("numthreads")).map(|(_, a)| a).collect();
                if let Some(second) = numthreads.get(1) {
                    out.push(error(
                        second.text_range(),
                        "duplicate-attribute",
                        "`[numthreads]` is given more than once; keep one".to_string(),
                    ));
                }
                for a in &numthreads {
                    for arg in int_args(a) {
                        if let Some(v) = arg.1.filter(|v| *v < 1) {
                            out.push(error(
                                arg.0,
                                "invalid-attribute-value",
                                format!("a `[numthreads]` count must be a positive integer, not {v}"),
                            ));
                        }
                    }
                }
                for (_, a) in attrs.iter().filter(|(n, _)| n == "WaveSize") {
                    for arg in int_args(a) {
                        if let Some(v) = arg.1.filter(|v| !(4..=128).contains(v) || (v & (v - 1)) != 0) {
                            out.push(error(
                                arg.0,
                                "invalid-attribute-value",
                                format!("a `[WaveSize]` must be a power of 2 from 4 to 128, not {v}"),
                            ));
                        }
                    }
                }
                let stage = attrs.iter().find(|(n, _)| n == "shader").and_then(|(_, a)| string_arg(a));
                if stage.as_deref() == Some("mesh")
                    && !attrs.iter().any(|(n, _)| n.eq_ignore_ascii_case("outputtopology"))
                {
                    if let Some(name) = node.children().find(|c| c.kind() == SyntaxKind::NAME) {
                        out.push(error(
                            name.text_range(),
                            "missing-attribute",
                            format!(
                                "mesh shader `{}` needs an `[outputtopology(\"triangle\")]` attribute \
                                 (or \"point\" or \"line\")",
                                name.text()
                            ),
                        ));
                    }
                }
                check_default_order(&node, out);
                let returns_void = node.children().find(|c| is_type_kind(c.kind())).is_some_and(|t| t.text() == "void");
                if returns_void && attrs.iter().any(|(n, _)| n == "NoDiscard") && !scope.names.contains_key("void") {
                    if let Some(name) = node.children().find(|c| c.kind() == SyntaxKind::NAME) {
                        out.push(error(
                            name.text_range(),
                            "invalid-attribute",
                            format!(
                                "`[NoDiscard]` on `{}`, which returns `void`: there is no result to discard; \
                                 remove the attribute",
                                name.text()
                            ),
                        ));
                    }
                }
            }
            SyntaxKind::ENUM => {
                if has_token(&node, SyntaxKind::CLASS_KW) && !node.children().any(|c| c.kind() == SyntaxKind::NAME) {
                    if let Some(class) = node.children_with_tokens().find(|e| e.kind() == SyntaxKind::CLASS_KW) {
                        out.push(error(
                            class.text_range(),
                            "anonymous-scoped-enum",
                            "an `enum class` needs a name: its cases are reached through it".to_string(),
                        ));
                    }
                }
                let attrs = attributes(&node);
                if let Some((_, a)) = attrs.iter().find(|(n, _)| n == "UnscopedEnum") {
                    if has_token(&node, SyntaxKind::CLASS_KW) {
                        out.push(error(
                            a.text_range(),
                            "duplicate-attribute",
                            "`[UnscopedEnum]` conflicts with `enum class`, which scopes its cases; remove one"
                                .to_string(),
                        ));
                    }
                }
            }
            SyntaxKind::GENERIC_VALUE_PARAM => {
                let Some(ty) = node.children().find(|c| is_type_kind(c.kind())) else { continue };
                let text = ty.text().to_string();
                let text = text.trim();
                if matches!(text, "float" | "half" | "double") && !scope.names.contains_key(text) && !is_macro(text) {
                    out.push(error(
                        ty.text_range(),
                        "invalid-generic-value-type",
                        format!(
                            "a generic value parameter cannot have type `{text}`: only integer, `bool` and enum \
                             types are allowed"
                        ),
                    ));
                }
            }
            SyntaxKind::EXTENSION => check_extension_init(cx, &node, out),
            SyntaxKind::INTERFACE => check_interface_attributes(&node, out),
            SyntaxKind::STRUCT => check_com_struct(cx, &node, out),
            SyntaxKind::GENERIC_PARAM_LIST => {
                // Nothing may follow a pack (`<each T, U>`).
                let params: Vec<SyntaxNode> = node
                    .children()
                    .filter(|c| matches!(c.kind(), SyntaxKind::GENERIC_TYPE_PARAM | SyntaxKind::GENERIC_VALUE_PARAM))
                    .collect();
                if let Some(i) = params.iter().position(|p| has_token(p, SyntaxKind::EACH_KW)) {
                    if let Some(next) = params.get(i + 1).filter(|p| !has_token(p, SyntaxKind::EACH_KW)) {
                        out.push(error(
                            next.text_range(),
                            "generic-param-order",
                            "a generic parameter cannot follow a pack parameter (`each …`); put the pack last"
                                .to_string(),
                        ));
                    }
                }
            }
            SyntaxKind::TRY_EXPR => {
                // In a `defer` block, `try` needs a `catch` there too.
                let inside = node
                    .ancestors()
                    .take_while(|a| !matches!(a.kind(), SyntaxKind::FN | SyntaxKind::LAMBDA_EXPR))
                    .find(|a| matches!(a.kind(), SyntaxKind::DEFER_STMT | SyntaxKind::TRY_STMT));
                if inside.is_some_and(|a| a.kind() == SyntaxKind::DEFER_STMT) {
                    out.push(error(
                        node.text_range(),
                        "try-in-defer",
                        "`try` inside a `defer` block needs a `catch` there too: an error cannot leave a `defer`"
                            .to_string(),
                    ));
                }
            }
            _ => {}
        }
    }
}

/// The attributes of a declaration: name and node.
fn attributes(node: &SyntaxNode) -> Vec<(String, SyntaxNode)> {
    node.children()
        .filter(|c| c.kind() == SyntaxKind::ATTRIBUTE)
        .filter_map(|a| {
            let path = a.children().find(|c| c.kind() == SyntaxKind::PATH)?;
            Some((path.text().to_string(), a))
        })
        .collect()
}

/// Each argument of an attribute, with its value when it is an integer
/// literal (`-1` included).
fn int_args(a: &SyntaxNode) -> Vec<(TextRange, Option<i64>)> {
    let Some(args) = a.children().find(|c| c.kind() == SyntaxKind::ATTRIBUTE_ARGS) else { return Vec::new() };
    args.children().map(|e| (e.text_range(), int_value(&e))).collect()
}

fn int_value(e: &SyntaxNode) -> Option<i64> {
    let text: String = e.text().to_string().split_whitespace().collect();
    let (neg, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let v: i64 = digits.parse().ok()?;
    Some(if neg { -v } else { v })
}

fn string_arg(a: &SyntaxNode) -> Option<String> {
    let args = a.children().find(|c| c.kind() == SyntaxKind::ATTRIBUTE_ARGS)?;
    let text = args.text().to_string();
    let inner = text.trim().trim_start_matches('(').trim_end_matches(')').trim();
    Some(inner.strip_prefix('"')?.strip_suffix('"')?.to_ascii_lowercase())
}

/// `f(int a = 1, int b)`: a parameter without a default after one with.
fn check_default_order(f: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    let Some(list) = f.children().find(|c| c.kind() == SyntaxKind::PARAM_LIST) else { return };
    let mut defaulted = false;
    for p in list.children().filter(|c| c.kind() == SyntaxKind::PARAM) {
        let has_default = has_token(&p, SyntaxKind::EQ);
        if defaulted && !has_default {
            let Some(name) = p.children().find(|c| c.kind() == SyntaxKind::NAME) else { return };
            out.push(Diagnostic {
                range: name.text_range(),
                severity: Severity::Error,
                code: "default-argument-order",
                message: format!(
                    "parameter `{}` has no default value but follows one that does; give it a default or move it \
                     before the defaulted parameters",
                    name.text()
                ),
            });
            return;
        }
        defaulted |= has_default;
    }
}

/// `extension S { __init() {} }` with `S` a struct of this file.
fn check_extension_init(cx: &super::Cx, ext: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    let (scope, file) = (cx.scope, cx.file);
    if ext.children().any(|c| matches!(c.kind(), SyntaxKind::GENERIC_PARAM_LIST | SyntaxKind::WHERE_CLAUSE)) {
        return;
    }
    if super::parent_kind(ext) != SyntaxKind::SOURCE_FILE {
        return;
    }
    let Some(target) = ext.children().find(|c| c.kind() == SyntaxKind::PATH_TYPE) else { return };
    let name = target.text().to_string().trim().to_string();
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || scope.macros.contains(&name) {
        return;
    }
    let Some([d]) = scope.names.get(&name).map(|v| v.as_slice()) else { return };
    if d.kind != crate::item_tree::ItemKind::Struct || d.file != file {
        return;
    }
    // The struct's syntax, found by name among the file's top-level structs.
    let Some(s) = super::top_level_structs(cx.db, file)
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, green)| green.0.clone().map(SyntaxNode::new_root))
    else {
        return;
    };
    if s.children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST) {
        return;
    }
    let Some(ext_members) = ext.children().find(|c| c.kind() == SyntaxKind::MEMBER_LIST) else { return };
    let parameterless = |init: &SyntaxNode| {
        init.children().find(|c| c.kind() == SyntaxKind::PARAM_LIST).is_some_and(|l| {
            !l.children().any(|p| p.kind() == SyntaxKind::PARAM) && l.text().to_string().trim() == "()"
        })
    };
    if let Some(init) = ext_members.children().find(|m| m.kind() == SyntaxKind::INIT && parameterless(m)) {
        let range = init.first_token().map_or(init.text_range(), |t| t.text_range());
        out.push(Diagnostic {
            range,
            severity: Severity::Error,
            code: "init-in-extension",
            message: format!(
                "a parameterless `__init()` cannot be declared in an extension (of `{name}`): it would replace \
                 the default initialization; declare it inside `{name}`"
            ),
        });
    }
}

/// `[COM("guid")]` interfaces: a GUID of the form 8-4-4-4-12 hex digits,
/// and no associated types (E31123, E31122); `[anyValueSize(n)]` at most
/// 32767 (E31121).
fn check_interface_attributes(node: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    let error = |range: TextRange, code: &'static str, message: String| Diagnostic {
        range,
        severity: Severity::Error,
        code,
        message,
    };
    for (name, a) in attributes(node) {
        match name.as_str() {
            "COM" => {
                let Some(args) = a.children().find(|c| c.kind() == SyntaxKind::ATTRIBUTE_ARGS) else { continue };
                let text = args.text().to_string();
                let inner = text.trim().trim_start_matches('(').trim_end_matches(')').trim();
                if let Some(guid) = inner.strip_prefix('"').and_then(|g| g.strip_suffix('"')) {
                    let groups: Vec<&str> = guid.split('-').collect();
                    let lens: Vec<usize> = groups.iter().map(|g| g.len()).collect();
                    let hex = groups.iter().all(|g| g.chars().all(|c| c.is_ascii_hexdigit()));
                    if lens != [8, 4, 4, 4, 12] || !hex {
                        out.push(error(
                            a.text_range(),
                            "invalid-attribute-value",
                            format!("`{guid}` is not a GUID: write 8-4-4-4-12 hexadecimal digits"),
                        ));
                    }
                }
                let members = node.children().find(|c| c.kind() == SyntaxKind::MEMBER_LIST);
                for assoc in
                    members.iter().flat_map(|m| m.children()).filter(|c| c.kind() == SyntaxKind::ASSOCIATED_TYPE)
                {
                    out.push(error(
                        assoc.text_range(),
                        "declaration-not-allowed",
                        "a `[COM]` interface cannot have associated types: its methods are called through a fixed \
                         table"
                            .to_string(),
                    ));
                }
            }
            "anyValueSize" => {
                for (range, v) in int_args(&a) {
                    if let Some(v) = v.filter(|v| *v > 32767) {
                        out.push(error(
                            range,
                            "invalid-attribute-value",
                            format!("`[anyValueSize]` cannot exceed 32767, not {v}"),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
}

/// A struct conforming to a `[COM]` interface (E31124): only classes can.
fn check_com_struct(cx: &super::Cx, node: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    let Some(list) = node.children().find(|c| c.kind() == SyntaxKind::INHERITANCE_LIST) else { return };
    for ty in list.children().filter(|c| c.kind() == SyntaxKind::PATH_TYPE) {
        let name = ty.text().to_string();
        let Some(defs) = cx.scope.lookup(name.trim()) else { continue };
        let [d] = defs.as_slice() else { continue };
        if d.kind != crate::item_tree::ItemKind::Interface || cx.scope.macros.contains(name.trim()) {
            continue;
        }
        let item = crate::infer::item_of(cx.db, crate::hir::DefId::new(cx.db, d.file, d.ast_index));
        if item.is_some_and(|i| i.has_attr("COM")) {
            out.push(Diagnostic {
                range: ty.text_range(),
                severity: Severity::Error,
                code: "com-struct",
                message: format!(
                    "a struct cannot conform to the `[COM]` interface `{}`; declare a `class`",
                    name.trim()
                ),
            });
        }
    }
}
