//! Diagnostics of a file: syntax errors, unresolved and cyclic imports and
//! names, and what the checks and inference report, gathered in one list
//! ([`expanded_diagnostics`]) and mapped to the user's text
//! ([`file_diagnostics`]); and what is wrong only where a compilation
//! starts ([`compilation_root_diagnostics`]). Plain data in editor terms
//! (ranges, messages, codes).

use slang_syntax::TextRange;

use crate::diagnostic::{Diagnostic, Severity};
use crate::import_paths::{import_candidates, is_builtin_module, ImportKind};
use crate::infer::{DiagAt, InferDiagKind};
use crate::module_graph::{file_imports, resolved_imports};
use crate::name_res::unresolved_names;
use crate::{parse, Db, SourceFile};

/// All diagnostics of `file`, sorted by position, with ranges in the
/// file's text: a diagnostic inside a macro's expansion points at the
/// macro's use and says which macro.
///
/// An `#error` line reached with the configured defines stops the compile
/// (as in the reference compiler): then only it and the syntax errors are
/// reported, not what follows from the missing defines.
#[salsa::tracked(returns(ref))]
pub fn file_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let all = expanded_diagnostics(db, file);
    let stopped = all.iter().any(|d| d.code == "error-directive");
    let mut out: Vec<Diagnostic> = all
        .iter()
        .filter(|d| !stopped || matches!(d.code, "error-directive" | "syntax" | "lex" | "preprocessor"))
        .map(|d| {
            let mut d = d.clone();
            if let Some(u) = crate::expansion::macro_use_at(db, file, d.range) {
                d.message.push_str(&format!(" (in the expansion of macro `{}`)", u.name));
            }
            d.range = crate::expansion::to_source_range(db, file, d.range);
            d
        })
        .collect();
    out.sort_by_key(|d| (d.range.start(), d.range.end()));
    // (An argument used twice in a macro's body gives the same diagnostic
    // twice.)
    out.dedup();
    out
}

/// A check of a whole file.
pub type FileCheck = fn(&dyn Db, SourceFile) -> Vec<Diagnostic>;

/// The per-file checks [`expanded_diagnostics`] gathers, by name, in its
/// order (`examples/edit_phases.rs` times each).
pub const FILE_CHECKS: [(&str, FileCheck); 5] = [
    ("decl_diagnostics", |db, file| crate::decl_check::decl_diagnostics(db, file).clone()),
    ("checks", |db, file| crate::checks::check_diagnostics(db, file).collect()),
    ("conformance", |db, file| crate::conformance::conformance_diagnostics(db, file).clone()),
    ("visibility", |db, file| crate::visibility::visibility_diagnostics(db, file).clone()),
    ("autodiff_diagnostics", |db, file| crate::autodiff_checks::autodiff_diagnostics(db, file).clone()),
];

/// What is wrong with `file` only when a compilation starts from it (the
/// command line's `check FILE`, as the reference compiler compiles each
/// file it is given), beyond [`file_diagnostics`]: an `implementing m;`
/// file is part of module `m` and is compiled when `m`'s primary file
/// `__include`s it, never on its own (the reference compiler's E30102).
/// The language server checks such a file in its module's context
/// ([`crate::module_graph::module_of`]) and never asks this.
pub fn compilation_root_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (import, target) in file_imports(db, file).iter().zip(resolved_imports(db, file)) {
        if import.kind != ImportKind::Implementing {
            continue;
        }
        let module = &import.target;
        let fix = match target {
            Some(primary) => {
                let path = primary.path(db);
                let name = path.rsplit('/').next().unwrap_or(path);
                let includes = file_imports(db, *primary)
                    .iter()
                    .zip(resolved_imports(db, *primary))
                    .any(|(i, t)| i.kind == ImportKind::Include && *t == Some(file));
                if includes {
                    format!("check `{name}` (the file that `__include`s it) instead")
                } else {
                    format!("`{name}` must `__include` it, and is the file to check")
                }
            }
            None => format!("check module `{module}`'s primary file (the one that `__include`s it) instead"),
        };
        out.push(Diagnostic {
            range: crate::expansion::to_source_range(db, file, import.range),
            severity: Severity::Error,
            code: "implementing-in-root",
            message: format!(
                "`implementing {module}` is not allowed in the file a compilation starts from: \
                 this file is part of module `{module}`; {fix}"
            ),
        });
    }
    out
}

/// [`file_diagnostics`] with the ranges of the semantic tree
/// ([`crate::parse`], the expanded text).
#[salsa::tracked(returns(ref))]
pub fn expanded_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let parse = parse(db, file);
    let mut out = Vec::new();
    for e in parse.errors() {
        out.push(Diagnostic { range: e.range, severity: Severity::Error, code: e.code(), message: e.message.clone() });
    }
    for w in parse.warnings() {
        // An `#error` reached with the configured defines stops the
        // compile: for `check` it is an error.
        // A malformed numeric literal is an error too (not a syntax error:
        // the reference compiler reports it when checking).
        let severity =
            if matches!(w.code(), "error-directive" | "invalid-literal") { Severity::Error } else { Severity::Warning };
        out.push(Diagnostic { range: w.range, severity, code: w.code(), message: w.message.clone() });
    }
    let imports = file_imports(db, file);
    for &i in crate::module_graph::cyclic_imports(db, file) {
        let target = &imports[i].target;
        out.push(Diagnostic {
            range: imports[i].range,
            severity: Severity::Error,
            code: "recursive-import",
            message: format!(
                "module `{target}` imports this module back: modules cannot import each other; \
                 move what both need into a third module that both import"
            ),
        });
    }
    for (import, target) in imports.iter().zip(resolved_imports(db, file)) {
        if target.is_some() || is_builtin_module(import) {
            continue;
        }
        let what = match import.kind {
            ImportKind::Import => "module",
            ImportKind::Include | ImportKind::Implementing | ImportKind::PpInclude => "file",
        };
        // (On disk: the standard modules' folder is no place the user
        // can look in.)
        let tried: Vec<String> = import_candidates(db, file, import)
            .into_iter()
            .filter(|p| !p.starts_with(crate::standard_modules::STANDARD_MODULE_DIR))
            .collect();
        let mut message = format!("cannot find {what} `{}`", import.target);
        if let Some(first) = tried.first() {
            message.push_str(&format!(" (looked for {first}"));
            if tried.len() > 1 {
                message.push_str(&format!(
                    " and {} other place{}",
                    tried.len() - 1,
                    if tried.len() > 2 { "s" } else { "" }
                ));
            }
            message.push(')');
        }
        out.push(Diagnostic { range: import.range, severity: Severity::Error, code: "unresolved-import", message });
    }
    for (_, check) in FILE_CHECKS {
        out.extend(check(db, file));
    }
    for u in unresolved_names(db, file) {
        let (code, message) = if u.is_type {
            ("unresolved-type", format!("cannot find type `{}` in this scope", u.name))
        } else {
            ("unresolved-name", format!("cannot find `{}` in this scope", u.name))
        };
        out.push(Diagnostic { range: u.range, severity: Severity::Error, code, message });
    }
    for &f in crate::infer::file_functions(db, file) {
        let problems = crate::autodiff_checks::function_attribute_problems(db, f);
        let lengths = crate::decl_check::runtime_array_lengths(db, f);
        if !problems.is_empty() || !lengths.is_empty() {
            if let Some(start) = crate::hir::def_node(db, f).map(|n| n.text_range().start()) {
                let found = problems
                    .iter()
                    .map(|(r, c, m)| (*c, r, m))
                    .chain(lengths.iter().map(|(r, m)| ("non-constant-array-length", r, m)));
                for (code, range, message) in found {
                    out.push(Diagnostic {
                        range: *range + start,
                        severity: Severity::Error,
                        code,
                        message: message.clone(),
                    });
                }
            }
        }
        let result = crate::infer::infer(db, f);
        if result.diagnostics.is_empty() {
            continue;
        }
        for d in &result.diagnostics {
            let (abs, node, shift) = match d.at {
                DiagAt::Expr(e) => {
                    let Some((abs, local)) = crate::hir::expr_range(db, f, e) else { continue };
                    let shift = abs.start() - local.text_range().start();
                    (abs, Some(local), shift)
                }
                DiagAt::Stmt(s) => {
                    let Some(abs) = crate::hir::stmt_range(db, f, s) else { continue };
                    (abs, None, 0.into())
                }
            };
            let member = |node: &Option<slang_syntax::SyntaxNode>| match node {
                Some(n) => member_name_range(n) + shift,
                None => abs,
            };
            let mut severity = Severity::Error;
            let (code, message, range) = match &d.kind {
                InferDiagKind::UnusedVariable { name } => {
                    severity = Severity::Warning;
                    // Point at the name in the declaration.
                    let root = parse.syntax_node();
                    let range = match root.covering_element(abs) {
                        slang_syntax::NodeOrToken::Node(n) => n
                            .descendants()
                            .filter(|c| c.kind() == slang_syntax::SyntaxKind::NAME)
                            .find(|c| c.text() == name.as_str())
                            .map(|c| c.text_range())
                            .unwrap_or(abs),
                        slang_syntax::NodeOrToken::Token(_) => abs,
                    };
                    (
                        "unused-variable",
                        format!("`{name}` is never used (remove it, or name it `_{name}` to keep it)"),
                        range,
                    )
                }
                InferDiagKind::NotDifferentiable { name, operator, forward_only } => (
                    "not-differentiable",
                    if *forward_only {
                        format!(
                            "`{operator}({name})`: `{name}` is only forward-differentiable; mark it `[Differentiable]` \
                             (or give it a `[BackwardDerivative]`)"
                        )
                    } else {
                        format!(
                            "`{operator}({name})`: `{name}` is not differentiable; mark it `[Differentiable]` \
                             (or give it a `[{}Derivative]`)",
                            if *operator == "fwd_diff" { "Forward" } else { "Backward" }
                        )
                    },
                    abs,
                ),
                InferDiagKind::DerivativeArgCount { name, expected, found, signatures } => (
                    "wrong-argument-count",
                    format!(
                        "`{name}` takes {expected} argument{}, but {found} {} given; {}",
                        if expected == "1" { "" } else { "s" },
                        if *found == 1 { "was" } else { "were" },
                        match signatures.as_slice() {
                            [one] => format!("its signature is `{one}`"),
                            many => format!(
                                "its signatures are {}",
                                many.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
                            ),
                        }
                    ),
                    abs,
                ),
                InferDiagKind::GenericArity { why } => ("generic-arguments", why.clone(), abs),
                InferDiagKind::TooManyGenericArgs { expected, found } => (
                    "too-many-generic-arguments",
                    format!(
                        "too many generic arguments: {found} given, but it takes {}",
                        match expected {
                            0 => "none".to_string(),
                            n => format!("at most {n}"),
                        }
                    ),
                    abs,
                ),
                InferDiagKind::Recursion { name } => (
                    "recursion",
                    format!("`{name}` is differentiable and calls itself; recursion is not allowed (use a loop)"),
                    abs,
                ),
                InferDiagKind::DerivativeLostInStore { into } => (
                    "derivative-lost",
                    format!(
                        "the value carries a derivative that is lost when it is stored in {into}; write \
                         `detach(…)` around it to say so"
                    ),
                    abs,
                ),
                InferDiagKind::NoDiffOperand => (
                    "invalid-no-diff",
                    "`no_diff` applies to a call or a subscript (`no_diff f(x)`, `no_diff a[i]`); for a value, \
                     use `detach(x)`"
                        .to_string(),
                    abs,
                ),
                InferDiagKind::DerivativeLost { name, property: false } if name.ends_with(".__init") => {
                    let ty = name.trim_end_matches(".__init");
                    (
                        "derivative-lost",
                        format!(
                            "derivatives cannot flow through this `{ty}` constructor, whose `__init` is not \
                             differentiable: mark the `__init` `[Differentiable]`, or write `no_diff {ty}(…)` if \
                             none should"
                        ),
                        abs,
                    )
                }
                InferDiagKind::DerivativeLost { name, property: false } => (
                    "derivative-lost",
                    format!(
                        "derivatives cannot flow through `{name}`, which is not differentiable: mark it \
                         `[Differentiable]`, or write `no_diff {name}(…)` if none should"
                    ),
                    abs,
                ),
                InferDiagKind::DerivativeLost { name, property: true } => (
                    "derivative-lost",
                    format!(
                        "derivatives cannot flow through the property `{name}`, whose getter is not \
                         differentiable: mark its `get` `[Differentiable]`"
                    ),
                    abs,
                ),
                InferDiagKind::FieldWithoutDerivative { owner, name } => {
                    severity = Severity::Warning;
                    (
                        "field-without-derivative",
                        format!(
                            "`{name}` gets no derivative: `{owner}` is not differentiable; make `{owner}` conform to \
                             `IDifferentiable`, or mark the method `[NoDiffThis]` if that is intended"
                        ),
                        member(&node),
                    )
                }
                InferDiagKind::DerivativeLostInGeneric { callee, param, generic } => {
                    severity = Severity::Warning;
                    (
                        "derivative-lost-generic",
                        format!(
                            "the derivative of this argument is dropped: parameter `{param}` of `{callee}` has type \
                             `{generic}`, which is not constrained to be `IDifferentiable`; add `IDifferentiable` to \
                             `{generic}`'s constraints to differentiate through it"
                        ),
                        abs,
                    )
                }
                InferDiagKind::NoDiffOnDifferentiable { name } => {
                    severity = Severity::Warning;
                    (
                        "no-diff-no-effect",
                        format!(
                            "`no_diff` has no effect here: `{name}` is differentiable, so the derivative still \
                             flows through the call; use `detach(…)` to stop it"
                        ),
                        abs,
                    )
                }
                InferDiagKind::Unreachable => {
                    severity = Severity::Warning;
                    ("unreachable-code", "this code is never reached".to_string(), abs)
                }
                InferDiagKind::NoSuchMember { ty, name } => {
                    ("no-such-member", format!("no member named `{name}` in `{ty}`"), member(&node))
                }
                InferDiagKind::UnrelatedIsAs { from, to } => (
                    "unrelated-is-as",
                    format!(
                        "a `{from}` is never a `{to}`: `is`/`as` test the type held by a value of an interface type"
                    ),
                    abs,
                ),
                InferDiagKind::BadSwizzle { ty, name } => {
                    ("invalid-swizzle", format!("`{name}` is not a valid swizzle of `{ty}`"), member(&node))
                }
                InferDiagKind::ArgCount { name, expected, found } => (
                    "argument-count",
                    format!(
                        "`{name}` takes {expected} argument{} but {found} {} given",
                        if expected == "1" { "" } else { "s" },
                        if *found == 1 { "was" } else { "were" }
                    ),
                    abs,
                ),
                InferDiagKind::AssignImmutable { name } => (
                    "assign-to-immutable",
                    format!("cannot assign to `{name}`: it is declared with `let` or `const`"),
                    abs,
                ),
                InferDiagKind::Mismatch { expected, found } => {
                    ("type-mismatch", format!("mismatched types: expected `{expected}`, found `{found}`"), abs)
                }
                InferDiagKind::NoOperator { op, lhs, rhs } => {
                    ("no-matching-operator", format!("no `{op}` for operands of type `{lhs}` and `{rhs}`"), abs)
                }
                InferDiagKind::ReturnMissingValue { ty } => {
                    ("return-missing-value", format!("`return` needs a value of type `{ty}`"), abs)
                }
                InferDiagKind::OutsideLoop { keyword } => (
                    "outside-loop",
                    if *keyword == "break" {
                        "`break` outside of a loop or `switch`".to_string()
                    } else {
                        "`continue` outside of a loop".to_string()
                    },
                    abs,
                ),
                InferDiagKind::Redefinition { name } => {
                    ("redefinition", format!("`{name}` is already declared in this scope"), abs)
                }
                InferDiagKind::NotAnLvalue => {
                    ("not-an-lvalue", "an `out` or `inout` argument must be a variable".to_string(), abs)
                }
                InferDiagKind::DuplicateCase { value } => {
                    ("duplicate-case", format!("`case {value}` appears twice in this `switch`"), abs)
                }
                InferDiagKind::DuplicateDefault => {
                    // At the second `default` label.
                    let second = match parse.syntax_node().covering_element(abs) {
                        slang_syntax::NodeOrToken::Node(n) => n
                            .descendants_with_tokens()
                            .filter(|e| e.kind() == slang_syntax::SyntaxKind::DEFAULT_KW)
                            .nth(1)
                            .map(|e| e.text_range()),
                        slang_syntax::NodeOrToken::Token(_) => None,
                    };
                    ("duplicate-case", "this `switch` has more than one `default`".to_string(), second.unwrap_or(abs))
                }
                InferDiagKind::OutArgumentType { expected, found } => (
                    "out-argument-type",
                    format!(
                        "an `out`/`inout` argument must have the parameter's exact type `{expected}`, not `{found}` \
                         (a converted value would be a temporary)"
                    ),
                    abs,
                ),
                InferDiagKind::FloatSwitch { ty } => (
                    "non-integer-switch",
                    format!("`switch` needs an integer or enum value, not `{ty}`: convert it, e.g. `switch (int(x))`"),
                    abs,
                ),
                InferDiagKind::LetWithoutValue { name } => {
                    ("let-without-value", format!("`{name}` is immutable, so it needs an initial value"), abs)
                }
                InferDiagKind::VoidVariable { name } => {
                    ("void-variable", format!("`{name}` cannot have type `void`"), abs)
                }
                InferDiagKind::NotAssignable { why } => ("not-assignable", format!("cannot assign: {why}"), abs),
                InferDiagKind::NoOverload { name, args, candidates } => (
                    "no-matching-overload",
                    format!("no overload of `{name}` takes arguments of type ({args}){}", candidate_list(candidates)),
                    abs,
                ),
                InferDiagKind::Ambiguous { name, args, candidates } => (
                    "ambiguous-call",
                    format!(
                        "ambiguous call to `{name}` with arguments of type ({args}): no overload fits better than \
                         the others; add a cast to pick one{}",
                        candidate_list(candidates)
                    ),
                    abs,
                ),
                InferDiagKind::NoStaticMember { owner, name } => {
                    ("no-such-member", format!("no member named `{name}` in `{owner}`"), member(&node))
                }
                InferDiagKind::Inaccessible { what, visibility } => {
                    ("inaccessible", format!("`{what}` is {visibility} and cannot be used here"), member(&node))
                }
                InferDiagKind::MutatingOnImmutable { name, why } => {
                    ("mutating-on-immutable", format!("`{name}` is `[mutating]` and cannot be called here: {why}"), abs)
                }
                InferDiagKind::InstanceMemberWithoutInstance { owner, name, in_static_method } => {
                    (
                        "needs-instance",
                        if *in_static_method {
                            format!("`{name}` is an instance member of `{owner}`; a `static` method has no `this` to use it on")
                        } else {
                            format!("`{name}` is an instance member of `{owner}` and needs a value of that type, not the type")
                        },
                        member(&node),
                    )
                }
                InferDiagKind::NotConforming { arg, interface } => (
                    "not-conforming",
                    format!("`{arg}` does not conform to `{interface}`, which the generic parameter requires"),
                    abs,
                ),
                InferDiagKind::NoSubscript { ty } => {
                    ("no-subscript", format!("a value of type `{ty}` cannot be subscripted"), abs)
                }
                InferDiagKind::IndexOutOfBounds { index, len, array } => {
                    if !array {
                        severity = Severity::Warning;
                    }
                    (
                        "index-out-of-bounds",
                        format!("index {index} is out of bounds: the value has {len} elements"),
                        abs,
                    )
                }
                InferDiagKind::ApplyNotInvoked => {
                    ("apply-not-invoked", "`__apply(…)` must be called directly (`__apply(f)(args)`)".to_string(), abs)
                }
                InferDiagKind::NotCallable { ty } => {
                    ("not-callable", format!("a value of type `{ty}` cannot be called"), abs)
                }
                InferDiagKind::TooManyInitializers { expected, found } => (
                    "too-many-initializers",
                    format!("too many initializers: expected at most {expected}, found {found}"),
                    abs,
                ),
            };
            out.push(Diagnostic { range, severity, code, message });
        }
    }
    out.sort_by_key(|d| (d.range.start(), d.range.end()));
    out
}

/// `; candidates: f(int a), f(float a)` (at most five shown).
fn candidate_list(candidates: &[String]) -> String {
    if candidates.is_empty() {
        return String::new();
    }
    let shown: Vec<&str> = candidates.iter().take(5).map(String::as_str).collect();
    let more = candidates.len().saturating_sub(5);
    let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!("; candidates: {}{tail}", shown.join(", "))
}

/// The name of `a.name` (the last identifier of a member expression).
fn member_name_range(node: &slang_syntax::SyntaxNode) -> TextRange {
    node.children_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| t.kind() == slang_syntax::SyntaxKind::IDENT)
        .last()
        .map(|t| t.text_range())
        .unwrap_or_else(|| node.text_range())
}
