//! Signature help inside a call's argument list: every overload of the
//! callee (functions, methods, constructors), and inside
//! `fwd_diff(f)(…)` / `bwd_diff(f)(…)` (at any order) the transformed
//! signatures.

use slang_syntax::{SyntaxKind as K, SyntaxNode, SyntaxToken, TextSize};

use crate::autodiff::{self, DerivSig, Mode};
use crate::hir::{def_node, DefId};
use crate::infer::{fn_sig, item_of, type_of_node};
use crate::item_tree::ItemKind;
use crate::ty::Ty;
use crate::{parse, Db, SourceFile};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureHelp {
    pub signatures: Vec<SignatureInfo>,
    pub active_signature: usize,
    pub active_parameter: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureInfo {
    pub label: String,
    /// Each explicit parameter as a `[start, end)` byte range of `label`.
    pub params: Vec<(u32, u32)>,
    pub doc: Option<String>,
    /// Whether it takes any number of further arguments.
    pub variadic: bool,
}

/// Signature help at `offset`, if it is inside a call's argument list.
pub fn signature_help(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<SignatureHelp> {
    let root = parse(db, file).syntax_node();
    let mut tok = root.token_at_offset(offset).left_biased()?;
    // After `f(a, ` at the end of a file, the whitespace is outside the call.
    while tok.kind().is_trivia() {
        tok = tok.prev_token()?;
    }
    let args = tok.parent_ancestors().find(|a| a.kind() == K::ARG_LIST && inside(a, offset))?;
    let commas: Vec<SyntaxToken> =
        args.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == K::COMMA).collect();
    let active_parameter = commas.iter().filter(|c| c.text_range().start() < offset).count();
    let written = if commas.is_empty() && args.children().next().is_none() { 0 } else { commas.len() + 1 };
    let holder = args.parent()?;
    let signatures = match holder.kind() {
        K::CALL_EXPR => callee_signatures(db, file, &holder.first_child()?),
        // An unfinished call outside a function parses as a macro call.
        _ => {
            let name = holder.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == K::IDENT)?;
            functions_named(db, file, name.text()).into_iter().filter_map(|d| fn_signature(db, d, None)).collect()
        }
    };
    if signatures.is_empty() {
        return None;
    }
    let needed = written.max(active_parameter + 1);
    let active_signature = signatures.iter().position(|s| s.variadic || s.params.len() >= needed).unwrap_or(0);
    Some(SignatureHelp { signatures, active_signature, active_parameter })
}

/// Whether `offset` is after the `(` of `args` and not after its `)`.
fn inside(args: &SyntaxNode, offset: TextSize) -> bool {
    let tokens = || args.children_with_tokens().filter_map(|e| e.into_token());
    let open = tokens().find(|t| t.kind() == K::L_PAREN).is_some_and(|t| t.text_range().end() <= offset);
    let close = tokens().find(|t| t.kind() == K::R_PAREN);
    open && close.is_none_or(|c| offset <= c.text_range().start())
}

fn callee_signatures(db: &dyn Db, file: SourceFile, callee: &SyntaxNode) -> Vec<SignatureInfo> {
    let mut callee = callee.clone();
    while callee.kind() == K::PAREN_EXPR {
        match callee.first_child() {
            Some(c) => callee = c,
            None => break,
        }
    }
    if callee.kind() == K::DIFF_EXPR {
        let (defs, modes) = match type_of_node(db, file, &callee) {
            Some(Ty::DiffFunc { defs, modes }) => {
                (defs, modes.iter().map(|&fwd| if fwd { Mode::Forward } else { Mode::Backward }).collect())
            }
            _ => diff_operand(db, file, &callee),
        };
        return defs
            .iter()
            .map(|&d| deriv_signature(&autodiff::higher_order_signature(db, d, &modes), doc(db, d)))
            .collect();
    }
    match type_of_node(db, file, &callee) {
        Some(Ty::Func(defs)) => defs.iter().filter_map(|&d| fn_signature(db, d, None)).collect(),
        Some(Ty::TypeValue(t)) => match &*t {
            Ty::Adt { def, name, .. } => constructors(db, *def, name),
            _ => Vec::new(),
        },
        // Not typed (unfinished code): the functions of that name.
        _ if callee.kind() == K::PATH_EXPR => {
            let name =
                callee.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == K::IDENT).last();
            name.map(|n| functions_named(db, file, n.text()))
                .unwrap_or_default()
                .into_iter()
                .filter_map(|d| fn_signature(db, d, None))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The functions of `fwd_diff(bwd_diff(f))` and its operators, innermost
/// first, read from the syntax (when inference has no type for it).
fn diff_operand(db: &dyn Db, file: SourceFile, diff: &SyntaxNode) -> (Vec<DefId>, Vec<Mode>) {
    let mut modes = Vec::new();
    let mut node = diff.clone();
    while node.kind() == K::DIFF_EXPR {
        let forward = node.children_with_tokens().any(|e| matches!(e.kind(), K::FWD_DIFF_KW | K::FWD_DIFF2_KW));
        modes.push(if forward { Mode::Forward } else { Mode::Backward });
        let Some(inner) = node.children().find(|c| c.kind() != K::ERROR) else { break };
        node = inner;
    }
    modes.reverse();
    let defs = match type_of_node(db, file, &node) {
        Some(Ty::Func(defs)) => defs,
        _ => node
            .children_with_tokens()
            .filter_map(|e| e.into_token())
            .filter(|t| t.kind() == K::IDENT)
            .last()
            .map(|n| functions_named(db, file, n.text()))
            .unwrap_or_default(),
    };
    (defs, modes)
}

/// The functions a name refers to in the file's scope.
fn functions_named(db: &dyn Db, file: SourceFile, name: &str) -> Vec<DefId> {
    let scope = crate::name_res::global_scope(db, file);
    scope
        .lookup(name)
        .map(|defs| {
            defs.iter().filter(|d| d.kind == ItemKind::Fn).map(|d| DefId::new(db, d.file, d.ast_index)).collect()
        })
        .unwrap_or_default()
}

fn doc(db: &dyn Db, def: DefId) -> Option<String> {
    def_node(db, def).and_then(|n| super::doc_comment(&n))
}

/// One line of text without its runs of whitespace.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A function's or constructor's signature as written: `float f(float x)`;
/// `name` replaces the written head (for constructors).
fn fn_signature(db: &dyn Db, def: DefId, name: Option<&str>) -> Option<SignatureInfo> {
    let node = def_node(db, def)?;
    let list = node.children().find(|c| c.kind() == K::PARAM_LIST)?;
    let mut label = match name {
        Some(n) => n.to_string(),
        None => {
            // Modifiers, return type, name and generic parameters.
            let mut head = String::new();
            for e in node.children_with_tokens() {
                if e.kind() == K::PARAM_LIST {
                    break;
                }
                if !matches!(e.kind(), K::ATTRIBUTE | K::COMMENT) {
                    head.push_str(&e.to_string());
                }
            }
            squeeze(&head)
        }
    };
    label.push('(');
    let mut params = Vec::new();
    for (i, p) in list.children().filter(|c| c.kind() == K::PARAM).enumerate() {
        if i > 0 {
            label.push_str(", ");
        }
        let start = label.len() as u32;
        label.push_str(&squeeze(&p.to_string()));
        params.push((start, label.len() as u32));
    }
    label.push(')');
    Some(SignatureInfo { label, params, doc: super::doc_comment(&node), variadic: fn_sig(db, def).variadic })
}

/// `bwd_diff(f)(inout DifferentialPair<float> x, float dResult)`, as in
/// hover; `this` is shown but is no argument.
fn deriv_signature(sig: &DerivSig, doc: Option<String>) -> SignatureInfo {
    let full = sig.to_string();
    let open = full.len() - render_params(sig).len() - 2;
    let mut label = full[..=open].to_string();
    let mut params = Vec::new();
    for (i, p) in sig.this_param.iter().chain(&sig.params).enumerate() {
        if i > 0 {
            label.push_str(", ");
        }
        let start = label.len() as u32;
        label.push_str(&param_text(p));
        if i > 0 || sig.this_param.is_none() {
            params.push((start, label.len() as u32));
        }
    }
    label.push(')');
    debug_assert_eq!(label, full);
    SignatureInfo { label, params, doc, variadic: false }
}

fn param_text(p: &autodiff::DerivParam) -> String {
    format!("{}{} {}", p.dir.keyword(), p.ty, p.name)
}

fn render_params(sig: &DerivSig) -> String {
    sig.this_param.iter().chain(&sig.params).map(param_text).collect::<Vec<_>>().join(", ")
}

/// The `__init`s of a type, labelled with the type's name.
fn constructors(db: &dyn Db, def: DefId, name: &str) -> Vec<SignatureInfo> {
    let Some(item) = item_of(db, def) else { return Vec::new() };
    item.members
        .iter()
        .filter(|m| m.kind == ItemKind::Init)
        .filter_map(|m| fn_signature(db, DefId::new(db, def.file(db), m.ast_index), Some(name)))
        .collect()
}
