//! Declarations where the language does not allow them, and modifiers a
//! declaration cannot have there: what the syntax alone decides (a
//! namespace inside a struct, a function inside a function, a struct
//! declared in a parameter's type, a field in an interface or extension,
//! a global `const` with an initializer but no `static`, an initializer
//! on a `groupshared` variable or an interface requirement, an attribute
//! given twice, a `static const` without a value, a `groupshared` local,
//! an extension of an interface, a `__func_extension` target other than
//! `fwd_diff`/`bwd_diff`/`__apply`, a `__constraint` outside an interface).

use slang_syntax::{SyntaxKind, SyntaxNode, SyntaxToken, TextRange};

use super::parent_kind;
use crate::diagnostic::{Diagnostic, Severity};

/// Where a declaration sits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// The file or a namespace.
    Module,
    Struct,
    Interface,
    Extension,
    /// A function body (any block).
    Block,
}

/// Checks `root` (a top-level declaration) and what it contains.
pub(crate) fn check(cx: &super::Cx, root: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if cx.glsl {
        return;
    }
    for node in root.descendants() {
        match node.kind() {
            // `typedef struct { … } S;` is the one place a struct may be
            // declared inside a type.
            SyntaxKind::ANON_STRUCT_TYPE if parent_kind(&node) != SyntaxKind::TYPEDEF => {
                out.push(not_allowed(
                    keyword_range(&node, SyntaxKind::STRUCT_KW),
                    "a struct cannot be declared inside a type here; declare it on its own and use its name",
                ));
            }
            // `for (struct S { … } s = …; …)`.
            SyntaxKind::STRUCT | SyntaxKind::CLASS if parent_kind(&node) == SyntaxKind::FOR_STMT => {
                out.push(not_allowed(
                    keyword_range(&node, node.first_token().map_or(SyntaxKind::STRUCT_KW, |t| t.kind())),
                    "a struct cannot be declared in a `for` statement's initializer; declare it before the loop",
                ));
            }
            SyntaxKind::FUNC_EXTENSION => func_extension_target(&node, out),
            SyntaxKind::EXTENSION => extension_of_interface(cx, &node, out),
            _ => {}
        }
        let Some(context) = context_of(&node) else { continue };
        check_decl(&node, context, out);
    }
}

/// What [`check`] cannot see from a top-level declaration's own tree: a
/// struct followed by a function (`node` in the file's tree).
pub(crate) fn check_top_level(cx: &super::Cx, node: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if !cx.glsl && node.kind() == SyntaxKind::STRUCT {
        struct_as_return_type(node, out);
    }
}

/// The context of a declaration node, when it is one whose rules we know.
fn context_of(node: &SyntaxNode) -> Option<Context> {
    // The root of a top-level declaration's own tree is in the file.
    let Some(parent) = node.parent() else { return Some(Context::Module) };
    match parent.kind() {
        SyntaxKind::SOURCE_FILE => Some(Context::Module),
        SyntaxKind::BLOCK => {
            // A function body or a block statement, not a property
            // accessor's or other declaration's body at member level.
            let mut up = parent.parent();
            while let Some(p) = up {
                if matches!(p.kind(), SyntaxKind::FN | SyntaxKind::INIT | SyntaxKind::LAMBDA_EXPR) {
                    return Some(Context::Block);
                }
                if !is_statement(p.kind()) {
                    return None;
                }
                up = p.parent();
            }
            None
        }
        SyntaxKind::MEMBER_LIST => match parent.parent()?.kind() {
            SyntaxKind::NAMESPACE => Some(Context::Module),
            SyntaxKind::STRUCT | SyntaxKind::CLASS => Some(Context::Struct),
            SyntaxKind::INTERFACE => Some(Context::Interface),
            SyntaxKind::EXTENSION => Some(Context::Extension),
            _ => None,
        },
        _ => None,
    }
}

fn is_statement(kind: SyntaxKind) -> bool {
    use SyntaxKind::*;
    matches!(
        kind,
        BLOCK
            | IF_STMT
            | ELSE_BRANCH
            | FOR_STMT
            | COMPILE_TIME_FOR_STMT
            | WHILE_STMT
            | DO_WHILE_STMT
            | SWITCH_STMT
            | SWITCH_BODY
            | CASE_CLAUSE
            | DEFER_STMT
            | TRY_STMT
            | CATCH_CLAUSE
            | LABELED_STMT
            | TARGET_SWITCH_STMT
            | TARGET_CASE
            | ATTRIBUTED_STMT
            | DECL_STMT
    )
}

fn check_decl(node: &SyntaxNode, context: Context, out: &mut Vec<Diagnostic>) {
    use Context::*;
    let kind = node.kind();
    let what = match kind {
        SyntaxKind::NAMESPACE => "a namespace",
        SyntaxKind::INTERFACE => "an interface",
        SyntaxKind::EXTENSION => "an extension",
        SyntaxKind::STRUCT => "a struct",
        SyntaxKind::CLASS => "a class",
        SyntaxKind::ENUM => "an enum",
        SyntaxKind::FN => "a function",
        SyntaxKind::INIT => "a constructor (`__init`)",
        SyntaxKind::TYPEALIAS => "a type alias",
        SyntaxKind::CONSTRAINT_DECL => "a `__constraint`",
        _ => "",
    };
    let (forbidden, fix) = match (context, kind) {
        // (E30102: the reference compiler allows it under an interface only.)
        (Module | Struct | Extension | Block, SyntaxKind::CONSTRAINT_DECL) => {
            (true, "it is a requirement of an interface; declare it inside one, or write a generic's `where` clause")
        }
        (Module, SyntaxKind::INIT) => (true, "declare constructors inside a struct, class or extension"),
        (Struct, SyntaxKind::NAMESPACE | SyntaxKind::INTERFACE | SyntaxKind::EXTENSION) => {
            (true, "declare it at module or namespace scope")
        }
        (
            Interface,
            SyntaxKind::NAMESPACE
            | SyntaxKind::INTERFACE
            | SyntaxKind::EXTENSION
            | SyntaxKind::STRUCT
            | SyntaxKind::CLASS
            | SyntaxKind::ENUM
            | SyntaxKind::TYPEALIAS,
        ) => (true, "an interface may only declare requirements; use `associatedtype` for a type requirement"),
        (Extension, SyntaxKind::NAMESPACE | SyntaxKind::INTERFACE | SyntaxKind::EXTENSION) => {
            (true, "declare it at module or namespace scope")
        }
        (Block, SyntaxKind::NAMESPACE | SyntaxKind::EXTENSION | SyntaxKind::ENUM | SyntaxKind::FN) => {
            (true, "declare it at module or namespace scope")
        }
        (Block, SyntaxKind::INTERFACE | SyntaxKind::CLASS) => (true, "declare it at module or namespace scope"),
        _ => (false, ""),
    };
    if forbidden {
        let place = match context {
            Module => "at module scope",
            Struct => "inside a struct",
            Interface => "inside an interface",
            Extension => "inside an extension",
            Block => "inside a function",
        };
        out.push(not_allowed(name_or_start(node), &format!("{what} cannot be declared {place}; {fix}")));
        return;
    }
    match kind {
        // (A top-level declaration's own tree has no sibling: see
        // `check_top_level`.)
        SyntaxKind::STRUCT if context != Interface => struct_as_return_type(node, out),
        SyntaxKind::VAR_DECL => check_var(node, context, out),
        _ => {}
    }
}

/// `struct S { … } f() { … }`: a struct as a function's return type (the
/// function then has no type of its own).
fn struct_as_return_type(node: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if let Some(next) = node.next_sibling() {
        if next.kind() == SyntaxKind::FN
            && !has_token(node, SyntaxKind::SEMICOLON)
            && !next.children().any(|c| is_type_kind(c.kind()) || c.kind() == SyntaxKind::RETURN_TYPE)
            && !has_token(&next, SyntaxKind::FUNC_KW)
            && !next.children().any(|c| c.kind() == SyntaxKind::ATTRIBUTE)
            && !next.children_with_tokens().any(|e| e.kind().is_keyword())
        {
            out.push(not_allowed(
                keyword_range(node, SyntaxKind::STRUCT_KW),
                "a struct cannot be declared as a function's return type; declare it on its own and use its name",
            ));
        }
    }
}

fn check_var(node: &SyntaxNode, context: Context, out: &mut Vec<Diagnostic>) {
    // Only a well-formed plain variable declaration: `property` and
    // other forms the parser does not know end elsewhere.
    let well_formed = node.last_token().is_some_and(|t| t.kind() == SyntaxKind::SEMICOLON)
        && !node.children().any(|c| c.kind() == SyntaxKind::ERROR)
        && !has_token(node, SyntaxKind::PROPERTY_KW)
        // `__constraint X : I;` and other `__` forms read as a type.
        && !node.children().find(|c| is_type_kind(c.kind())).is_some_and(|t| t.text().to_string().starts_with("__"));
    if !well_formed {
        return;
    }
    // `extern` fields of extensions (`[DerivativeMember]` ones), and
    // attributes that make a global constant a specialization constant.
    if has_token(node, SyntaxKind::EXTERN_KW) && context == Context::Extension {
        return;
    }
    // Attributes and layout qualifiers may make a global constant a
    // specialization constant.
    let has_attributes = node.children().any(|c| c.kind() != SyntaxKind::DECLARATOR && !is_type_kind(c.kind()));
    let is_static = has_token(node, SyntaxKind::STATIC_KW);
    let is_const = has_token(node, SyntaxKind::CONST_KW);
    let is_let = has_token(node, SyntaxKind::LET_KW);
    let declarators: Vec<SyntaxNode> = node.children().filter(|c| c.kind() == SyntaxKind::DECLARATOR).collect();
    let init = |d: &SyntaxNode| d.children_with_tokens().any(|e| e.kind() == SyntaxKind::EQ);
    let name = |d: &SyntaxNode| {
        d.children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| (n.text_range(), n.text().to_string()))
    };
    // `static const` needs a value (but where it is a requirement, or
    // defined elsewhere).
    let external = has_token(node, SyntaxKind::EXTERN_KW) || has_token(node, SyntaxKind::EXPORT_KW);
    if is_static && is_const && context != Context::Interface && !external && !has_attributes {
        for d in declarators.iter().filter(|d| !init(d)) {
            let Some((range, n)) = name(d) else { continue };
            out.push(Diagnostic {
                range,
                severity: Severity::Error,
                code: "missing-initializer",
                message: format!("the `static const` `{n}` needs a value: write `static const … {n} = …;`"),
            });
        }
    }
    // (`static groupshared` is a function's own group-shared array.)
    if context == Context::Block && !is_static {
        if let Some(t) = node.children_with_tokens().find(|e| e.kind() == SyntaxKind::GROUPSHARED_KW) {
            out.push(Diagnostic {
                range: t.text_range(),
                severity: Severity::Error,
                code: "modifier-not-allowed",
                message: "a local variable cannot be `groupshared`; declare it at module scope".to_string(),
            });
        }
    }
    match context {
        Context::Interface | Context::Extension if !is_static => {
            let place = if context == Context::Interface { "an interface" } else { "an extension" };
            let fix = if context == Context::Interface {
                "declare a property (`property T name { get; }`) or a `static const` requirement"
            } else {
                "an extension cannot add storage; make it `static`, or add the field to the type itself"
            };
            if let Some((range, n)) = declarators.first().and_then(name) {
                out.push(Diagnostic {
                    range,
                    severity: Severity::Error,
                    code: "declaration-context",
                    message: format!("`{n}`: a non-static variable cannot be declared inside {place}; {fix}"),
                });
            }
        }
        Context::Interface if !is_const && !is_let => {
            if let Some((range, n)) = declarators.first().and_then(name) {
                out.push(Diagnostic {
                    range,
                    severity: Severity::Error,
                    code: "declaration-context",
                    message: format!("`{n}`: a value requirement of an interface must be `static const`"),
                });
            }
        }
        Context::Interface => {
            for d in declarators.iter().filter(|d| init(d)) {
                if let Some((range, n)) = name(d) {
                    out.push(Diagnostic {
                        range,
                        severity: Severity::Error,
                        code: "invalid-initializer",
                        message: format!(
                            "`{n}` cannot have an initializer because it is an interface requirement; \
                             give its value in each conforming type"
                        ),
                    });
                }
            }
        }
        Context::Module => {
            let groupshared = has_token(node, SyntaxKind::GROUPSHARED_KW);
            for d in declarators.iter().filter(|d| init(d)) {
                let Some((range, n)) = name(d) else { continue };
                let message = if groupshared {
                    format!(
                        "`{n}` cannot have an initializer because it is `groupshared`; \
                         assign it in the entry point instead"
                    )
                } else if has_attributes {
                    continue;
                } else if is_const && !is_static && external {
                    format!("`{n}`: an `extern` or `export` constant must be `static const`")
                } else if is_const && !is_static {
                    format!(
                        "`{n}`: a global `const` with an initializer must be declared `static` \
                         (`static const`); without `static` it would be a shader parameter"
                    )
                } else {
                    continue;
                };
                out.push(Diagnostic { range, severity: Severity::Error, code: "invalid-initializer", message });
            }
        }
        _ => {}
    }
}

/// `__func_extension TARGET(params) -> R { … }`: the target must be
/// `fwd_diff(f)`, `bwd_diff(f)` or `__apply(f)` (the reference compiler's
/// E30126 and E30127).
fn func_extension_target(node: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    let Some(target) =
        node.children().find(|c| !matches!(c.kind(), SyntaxKind::GENERIC_PARAM_LIST | SyntaxKind::ATTRIBUTE))
    else {
        return;
    };
    let ok = match target.kind() {
        SyntaxKind::DIFF_EXPR => true,
        SyntaxKind::CALL_EXPR => target.children().next().is_some_and(|c| c.text() == "__apply"),
        // (Recovery from a syntax error.)
        SyntaxKind::PARAM_LIST | SyntaxKind::RETURN_TYPE | SyntaxKind::BLOCK | SyntaxKind::ERROR => true,
        _ => false,
    };
    if !ok {
        out.push(Diagnostic {
            range: target.text_range(),
            severity: Severity::Error,
            code: "invalid-func-extension",
            message: "a `__func_extension` target must be `fwd_diff(f)`, `bwd_diff(f)` or `__apply(f)`".to_string(),
        });
    }
}

/// `extension IFoo { … }` of an interface `IFoo` (E30852): only a generic
/// extension (`extension<T : IFoo> T`) adds to the types that conform.
fn extension_of_interface(cx: &super::Cx, node: &SyntaxNode, out: &mut Vec<Diagnostic>) {
    if node.children().any(|c| c.kind() == SyntaxKind::GENERIC_PARAM_LIST) {
        return;
    }
    let Some(target) = node.children().find(|c| is_type_kind(c.kind())) else { return };
    let name = target.text().to_string();
    if target.kind() != SyntaxKind::PATH_TYPE || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return;
    }
    let interface = cx
        .scope
        .lookup(&name)
        .is_some_and(|defs| !defs.is_empty() && defs.iter().all(|d| d.kind == crate::item_tree::ItemKind::Interface));
    if interface && !cx.scope.macros.contains(&name) {
        out.push(not_allowed(
            target.text_range(),
            &format!("an interface (`{name}`) cannot be extended; write a generic extension: `extension<T : {name}> T {{ … }}`"),
        ));
    }
}

fn not_allowed(range: TextRange, message: &str) -> Diagnostic {
    Diagnostic { range, severity: Severity::Error, code: "declaration-not-allowed", message: message.to_string() }
}

pub(crate) fn has_token(node: &SyntaxNode, kind: SyntaxKind) -> bool {
    node.children_with_tokens().any(|e| e.kind() == kind)
}

pub(crate) fn is_type_kind(kind: SyntaxKind) -> bool {
    <slang_syntax::ast::Type as slang_syntax::ast::AstNode>::can_cast(kind)
}

fn keyword_range(node: &SyntaxNode, kw: SyntaxKind) -> TextRange {
    node.children_with_tokens()
        .filter_map(|e| e.into_token())
        .find(|t: &SyntaxToken| t.kind() == kw)
        .map_or(node.text_range(), |t| t.text_range())
}

/// The declaration's name, or its first token that is not trivia or an
/// attribute.
fn name_or_start(node: &SyntaxNode) -> TextRange {
    if let Some(n) = node.children().find(|c| c.kind() == SyntaxKind::NAME) {
        return n.text_range();
    }
    node.children_with_tokens()
        .filter_map(|e| e.into_token())
        .find(|t| !t.kind().is_trivia())
        .map_or(node.text_range(), |t| t.text_range())
}
