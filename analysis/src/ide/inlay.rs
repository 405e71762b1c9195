//! Inlay hints: the inferred types of `let`/`var` declarations, parameter
//! names before call arguments (through `fwd_diff`/`bwd_diff`, with the
//! transformed signature's parameters), and the derivative signatures of
//! differentiable functions after their parameter lists.

use slang_syntax::ast::{self, AstNode, HasName};
use slang_syntax::{SyntaxKind as K, SyntaxNode, SyntaxNodePtr, TextRange, TextSize};

use crate::autodiff::{self, Differentiability, Mode};
use crate::hir::{BodySourceMap, DefId};
use crate::infer::{fn_sig, InferenceResult};
use crate::ty::Ty;
use crate::{Db, SourceFile};

/// Which hints to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InlayConfig {
    pub types: bool,
    pub parameter_names: bool,
    pub derivative_signatures: bool,
}

impl Default for InlayConfig {
    fn default() -> Self {
        InlayConfig { types: true, parameter_names: true, derivative_signatures: true }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InlayKind {
    /// `: float3` after a declared name.
    Type,
    /// `name:` before an argument.
    Parameter,
    /// A derivative signature after a differentiable function's parameters.
    Derivative,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlayHint {
    pub offset: TextSize,
    pub label: String,
    pub kind: InlayKind,
    pub padding_left: bool,
    pub padding_right: bool,
}

/// The hints of the functions overlapping `range`, at offsets in `range`.
pub fn inlay_hints(db: &dyn Db, file: SourceFile, range: TextRange, cfg: &InlayConfig) -> Vec<InlayHint> {
    let mut out = Vec::new();
    for &(fn_range, def) in crate::infer::function_spans(db, file) {
        if fn_range.end() < range.start() || range.end() < fn_range.start() {
            continue;
        }
        let Some(root) = crate::hir::decl_syntax(db, def) else { continue };
        let facts = Facts {
            db,
            infer: crate::infer::infer(db, def),
            map: &crate::hir::body_with_source_map(db, def).1,
            start: fn_range.start(),
        };
        let mut hints = Vec::new();
        if cfg.derivative_signatures {
            derivative_hints(db, file, def, &root, &facts, &mut hints);
        }
        for node in root.descendants() {
            match node.kind() {
                K::VAR_DECL if cfg.types => type_hints(&node, &facts, &mut hints),
                K::CALL_EXPR if cfg.parameter_names => parameter_hints(&node, &facts, &mut hints),
                _ => {}
            }
        }
        out.extend(hints.into_iter().filter(|h| range.contains_inclusive(h.offset)));
    }
    out.sort_by_key(|h| h.offset);
    out
}

/// One function's inference, read through its declaration tree.
struct Facts<'a> {
    db: &'a dyn Db,
    infer: &'a InferenceResult,
    map: &'a BodySourceMap,
    /// The function's offset in the file.
    start: TextSize,
}

impl Facts<'_> {
    fn ty(&self, node: &SyntaxNode) -> Option<&Ty> {
        let id = self.map.expr_by_ptr.get(&SyntaxNodePtr::new(&skip_parens(node)))?;
        self.infer.expr_types.get(id.0 as usize)
    }
}

/// `((e))` is `e` (parentheses are not lowered).
fn skip_parens(node: &SyntaxNode) -> SyntaxNode {
    let mut n = node.clone();
    while n.kind() == K::PAREN_EXPR {
        match n.children().find(|c| ast::Expr::can_cast(c.kind())) {
            Some(inner) => n = inner,
            None => break,
        }
    }
    n
}

fn derivative_hints(db: &dyn Db, file: SourceFile, def: DefId, root: &SyntaxNode, f: &Facts, out: &mut Vec<InlayHint>) {
    let d = autodiff::fn_differentiability(db, file, def);
    let Some(params) = root.children().find(|c| c.kind() == K::PARAM_LIST) else { return };
    if d == Differentiability::No {
        return;
    }
    for mode in [Mode::Forward, Mode::Backward].into_iter().filter(|&m| d.allows(m)) {
        out.push(InlayHint {
            offset: params.text_range().end() + f.start,
            label: autodiff::derivative_signature(db, def, mode).to_string(),
            kind: InlayKind::Derivative,
            padding_left: true,
            padding_right: false,
        });
    }
}

/// `let x = …` / `var x = …` without a written type: `: T` after `x`.
fn type_hints(decl: &SyntaxNode, f: &Facts, out: &mut Vec<InlayHint>) {
    let Some(var) = ast::VarDecl::cast(decl.clone()) else { return };
    let inferred = decl.children_with_tokens().any(|e| matches!(e.kind(), K::LET_KW | K::VAR_KW));
    if !inferred || var.ty().is_some() {
        return;
    }
    for d in var.declarators() {
        let (Some(name), Some(init), None) = (d.name(), d.initializer(), d.ty()) else { continue };
        let Some(ty) = f.ty(init.syntax()) else { continue };
        if !is_value_type(ty) || names_type(init.syntax(), ty, f) {
            continue;
        }
        out.push(InlayHint {
            offset: name.syntax().text_range().end() + f.start,
            label: format!(": {ty}"),
            kind: InlayKind::Type,
            padding_left: false,
            padding_right: false,
        });
    }
}

fn is_value_type(ty: &Ty) -> bool {
    !matches!(ty, Ty::Unknown | Ty::Func(_) | Ty::DiffFunc { .. } | Ty::TypeValue(_) | Ty::Namespace(_))
}

/// Whether the initializer already says its type: `float3(…)`, `(T)x`.
fn names_type(init: &SyntaxNode, ty: &Ty, f: &Facts) -> bool {
    let init = skip_parens(init);
    match init.kind() {
        K::CAST_EXPR => true,
        K::CALL_EXPR => init
            .first_child()
            .and_then(|c| f.ty(&c).cloned())
            .is_some_and(|t| matches!(t, Ty::TypeValue(t) if *t == *ty)),
        _ => false,
    }
}

/// `name:` before each argument of a call whose parameters are known.
fn parameter_hints(call: &SyntaxNode, f: &Facts, out: &mut Vec<InlayHint>) {
    let Some(call) = ast::CallExpr::cast(call.clone()) else { return };
    let Some(callee) = call.callee() else { return };
    let args: Vec<ast::Expr> = call.args().collect();
    if args.is_empty() {
        return;
    }
    let (names, is_diff) = match f.ty(callee.syntax()) {
        Some(Ty::Func(defs)) => (overload_param_names(f.db, defs, args.len()), false),
        Some(Ty::DiffFunc { defs, modes }) => {
            let modes: Vec<Mode> = modes.iter().map(|&fwd| if fwd { Mode::Forward } else { Mode::Backward }).collect();
            let sigs: Vec<Vec<String>> = defs
                .iter()
                .map(|&d| {
                    autodiff::higher_order_signature(f.db, d, &modes).params.into_iter().map(|p| p.name).collect()
                })
                .filter(|p: &Vec<String>| p.len() == args.len())
                .collect();
            (agreed_names(&sigs, args.len()), true)
        }
        _ => return,
    };
    let fn_name = arg_name(callee.syntax()).to_ascii_lowercase();
    for (arg, name) in args.iter().zip(names) {
        let Some(name) = name else { continue };
        let hide = name.is_empty()
            || (!is_diff && name.chars().count() == 1)
            || similar(&arg_name(arg.syntax()), &name)
            || (args.len() == 1 && fn_name.ends_with(&name.to_ascii_lowercase()));
        if hide {
            continue;
        }
        out.push(InlayHint {
            offset: arg.syntax().text_range().start() + f.start,
            label: format!("{name}:"),
            kind: InlayKind::Parameter,
            padding_left: false,
            padding_right: true,
        });
    }
}

/// The parameter names of the overloads taking `n` arguments, where they
/// agree.
fn overload_param_names(db: &dyn Db, defs: &[DefId], n: usize) -> Vec<Option<String>> {
    let sigs: Vec<Vec<String>> = defs
        .iter()
        .map(|&d| fn_sig(db, d))
        .filter(|s| {
            let required = s.params.len() - s.has_defaults.iter().filter(|&&d| d).count();
            (required..=s.params.len()).contains(&n)
        })
        .map(|s| s.params.iter().map(|p| p.name.clone().unwrap_or_default()).collect())
        .collect();
    agreed_names(&sigs, n)
}

fn agreed_names(sigs: &[Vec<String>], n: usize) -> Vec<Option<String>> {
    (0..n)
        .map(|i| {
            let first = sigs.first()?.get(i)?;
            sigs.iter().all(|s| s.get(i) == Some(first)).then(|| first.clone())
        })
        .collect()
}

/// The name an argument reads as: `lightDir` for `light.lightDir`,
/// `getNormal` for `getNormal()`.
fn arg_name(arg: &SyntaxNode) -> String {
    let arg = skip_parens(arg);
    match arg.kind() {
        K::PATH_EXPR | K::MEMBER_EXPR => arg
            .children_with_tokens()
            .filter_map(|e| e.into_token())
            .filter(|t| t.kind() == K::IDENT)
            .last()
            .map(|t| t.text().to_string())
            .unwrap_or_default(),
        K::CALL_EXPR | K::PREFIX_EXPR => arg.first_child().map(|c| arg_name(&c)).unwrap_or_default(),
        _ => String::new(),
    }
}

/// `dir` and `lightDir`, `normal` and `normal`: the argument says it.
fn similar(arg: &str, param: &str) -> bool {
    let norm = |s: &str| s.chars().filter(|&c| c != '_').collect::<String>().to_ascii_lowercase();
    let (a, p) = (norm(arg), norm(param));
    !a.is_empty() && !p.is_empty() && a.ends_with(&p)
}
