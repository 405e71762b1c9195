//! Code actions: quick fixes for the derivative diagnostics (wrap a call
//! in `no_diff`, `detach(…)` a stored value, mark a callee
//! `[Differentiable]`, bound a loop with `[MaxIters]`, make a type
//! differentiable) and autodiff refactorings (a `[ForwardDerivative]` /
//! `[BackwardDerivative]` stub with the exact expected signature, a manual
//! `IDifferentiable` implementation of a struct), and the edits that may
//! make a backward derivative save less ([`checkpoint_fixes`], which the
//! host measures before offering them).

use slang_syntax::{SyntaxKind as K, SyntaxNode, TextRange, TextSize};

use crate::autodiff::{self, derivative_signature, type_diff, Dir, Mode, TypeDiff};
use crate::hir::{def_node, DefId};
use crate::infer::{item_of, DeclCtx};
use crate::item_tree::ItemKind;
use crate::ty::{Ty, TypeResolver};
use crate::{file_diagnostics, parse, Db, SourceFile};

use super::{decl_name, item_def_of_node, resolve_at, Definition};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssistKind {
    QuickFix,
    /// Generates new code.
    Refactor,
}

/// One text replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    pub file: SourceFile,
    pub range: TextRange,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assist {
    pub title: String,
    pub kind: AssistKind,
    pub edits: Vec<FileEdit>,
    /// For quick fixes: the range and code of the diagnostic it fixes.
    pub fixes: Option<(TextRange, &'static str)>,
}

/// The code actions available for `range` of `file`: quick fixes of the
/// diagnostics it touches, then refactorings of the declaration at it.
pub fn assists(db: &dyn Db, file: SourceFile, range: TextRange) -> Vec<Assist> {
    let root = parse(db, file).syntax_node();
    let mut out = Vec::new();
    for d in file_diagnostics(db, file) {
        if d.range.intersect(range).is_none() && !d.range.contains_inclusive(range.start()) {
            continue;
        }
        let mut fixes = Vec::new();
        quick_fixes(db, file, &root, d.code, d.range, &mut fixes);
        out.extend(fixes.into_iter().map(|mut a: Assist| {
            a.fixes = Some((d.range, d.code));
            a
        }));
    }
    if let Some(f) = header_of(&root, range.start(), K::FN) {
        derivative_stubs(db, file, &f, &mut out);
    }
    if let Some(s) = header_of(&root, range.start(), K::STRUCT) {
        manual_idifferentiable(db, file, &s, &mut out);
    }
    out
}

/// The declaration of `kind` whose header (before its body) holds
/// `offset`.
fn header_of(root: &SyntaxNode, offset: TextSize, kind: K) -> Option<SyntaxNode> {
    let tok = root.token_at_offset(offset).right_biased()?;
    let node = tok.parent_ancestors().find(|n| n.kind() == kind)?;
    let body = node.children().find(|c| matches!(c.kind(), K::BLOCK | K::MEMBER_LIST));
    let header_end = body.map(|b| b.text_range().start()).unwrap_or(node.text_range().end());
    (offset < header_end).then_some(node)
}

/// The node of exactly `range` (the outermost one).
fn node_at(root: &SyntaxNode, range: TextRange) -> Option<SyntaxNode> {
    let el = root.covering_element(range);
    let start = match el {
        slang_syntax::NodeOrToken::Node(n) => n,
        slang_syntax::NodeOrToken::Token(t) => t.parent()?,
    };
    start.ancestors().take_while(|n| n.text_range() == range).last()
}

/// The whitespace before `offset` on its line (the indentation of a
/// declaration starting there).
fn indent_at(text: &str, offset: TextSize) -> String {
    let at = usize::from(offset);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at].chars().take_while(|c| c.is_whitespace()).collect()
}

fn insert(file: SourceFile, at: TextSize, text: String) -> FileEdit {
    FileEdit { file, range: TextRange::empty(at), text }
}

fn quick_fix(title: String, edits: Vec<FileEdit>) -> Assist {
    Assist { title, kind: AssistKind::QuickFix, edits, fixes: None }
}

/// An edit putting `[attr]` on its own line before the declaration `decl`.
fn add_attribute(db: &dyn Db, def_file: SourceFile, decl: &SyntaxNode, attr: &str) -> FileEdit {
    let start = decl.text_range().start();
    let indent = indent_at(crate::expansion::semantic_text(db, def_file), start);
    insert(def_file, start, format!("[{attr}]\n{indent}"))
}

/// "Mark `f` [Differentiable]" for the user function the identifier
/// ending at or containing `ident_at` names.
fn mark_differentiable(db: &dyn Db, file: SourceFile, ident_at: TextSize, out: &mut Vec<Assist>) {
    for def in resolve_at(db, file, ident_at) {
        let Definition::Item(def) = def else { continue };
        let Some(item) = item_of(db, def) else { continue };
        if item.kind != ItemKind::Fn || def.file(db).path(db).starts_with("<builtin>") {
            continue;
        }
        let Some(node) = def_node(db, def) else { continue };
        out.push(quick_fix(
            format!("Mark `{}` `[Differentiable]`", item.name.as_deref().unwrap_or("")),
            vec![add_attribute(db, def.file(db), &node, "Differentiable")],
        ));
        return;
    }
}

/// The identifier naming the callee of a call (`f` in `f(x)`, `g` in
/// `a.g(x)`).
fn callee_name(call: &SyntaxNode) -> Option<slang_syntax::SyntaxToken> {
    let callee = call.children().next()?;
    callee.descendants_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == K::IDENT).last()
}

fn quick_fixes(db: &dyn Db, file: SourceFile, root: &SyntaxNode, code: &str, range: TextRange, out: &mut Vec<Assist>) {
    let Some(node) = node_at(root, range).or_else(|| root.token_at_offset(range.start()).right_biased()?.parent())
    else {
        return;
    };
    match code {
        "derivative-lost" if node.kind() == K::CALL_EXPR => {
            out.push(quick_fix(
                "Wrap the call in `no_diff` (no derivative flows through it)".to_string(),
                vec![insert(file, range.start(), "no_diff ".to_string())],
            ));
            if let Some(name) = callee_name(&node) {
                mark_differentiable(db, file, name.text_range().start(), out);
            }
        }
        "derivative-lost" if node.kind() == K::MEMBER_EXPR => {
            // A property read: mark its getter.
            let Some(name) =
                node.descendants_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == K::IDENT).last()
            else {
                return;
            };
            for def in resolve_at(db, file, name.text_range().start()) {
                let Definition::Item(def) = def else { continue };
                let Some(item) = item_of(db, def).filter(|i| i.kind == ItemKind::Property) else { continue };
                let Some(getter) = def_node(db, def).and_then(|n| {
                    n.descendants()
                        .find(|a| a.kind() == K::ACCESSOR && a.children_with_tokens().any(|t| t.kind() == K::GET_KW))
                }) else {
                    continue;
                };
                let Some(get) = getter.children_with_tokens().find(|t| t.kind() == K::GET_KW) else { continue };
                out.push(quick_fix(
                    format!("Mark the getter of `{}` `[Differentiable]`", item.name.as_deref().unwrap_or("")),
                    vec![insert(def.file(db), get.text_range().start(), "[Differentiable] ".to_string())],
                ));
                return;
            }
        }
        "derivative-lost" if node.kind() == K::BIN_EXPR => {
            let Some(value) = node.children().last() else { return };
            let r = value.text_range();
            out.push(quick_fix(
                "Wrap the stored value in `detach(…)`".to_string(),
                vec![insert(file, r.start(), "detach(".to_string()), insert(file, r.end(), ")".to_string())],
            ));
        }
        "not-differentiable" => {
            // `fwd_diff(f)`: the operand; a `dzero`/`dadd` method: its name.
            let name = match node.descendants().find(|n| n.kind() == K::DIFF_EXPR) {
                Some(diff) => diff
                    .descendants_with_tokens()
                    .filter_map(|e| e.into_token())
                    .filter(|t| t.kind() == K::IDENT)
                    .last(),
                None => node.first_token().filter(|t| t.kind() == K::IDENT),
            };
            if let Some(name) = name {
                mark_differentiable(db, file, name.text_range().start(), out);
            }
        }
        "unbounded-loop" => {
            let Some(lp) =
                node.ancestors().find(|n| matches!(n.kind(), K::FOR_STMT | K::WHILE_STMT | K::DO_WHILE_STMT))
            else {
                return;
            };
            let bound = loop_bound_guess(&lp);
            out.push(quick_fix(
                format!("Add `[MaxIters({bound})]` before the loop"),
                vec![add_attribute(db, file, &lp, &format!("MaxIters({bound})"))],
            ));
        }
        "field-without-derivative" => {
            let Some(f) = node.ancestors().find(|n| n.kind() == K::FN) else { return };
            let Some(owner) = f.ancestors().find(|n| matches!(n.kind(), K::STRUCT | K::CLASS)) else { return };
            if let Some(edit) = add_conformance(file, &owner, "IDifferentiable") {
                let name = decl_name(&owner).map(|n| n.text().to_string()).unwrap_or_default();
                out.push(quick_fix(format!("Make `{name}` conform to `IDifferentiable`"), vec![edit]));
            }
            out.push(quick_fix(
                "Mark the method `[NoDiffThis]`".to_string(),
                vec![add_attribute(db, file, &f, "NoDiffThis")],
            ));
        }
        _ => {}
    }
}

/// A `[MaxIters]` bound for a loop: the integer literal its condition
/// compares with, else 16.
fn loop_bound_guess(lp: &SyntaxNode) -> i64 {
    literal_bound(lp).unwrap_or(16)
}

/// The positive integer literal a loop's condition compares with.
fn literal_bound(lp: &SyntaxNode) -> Option<i64> {
    lp.children()
        .filter(|c| c.kind() == K::BIN_EXPR)
        .flat_map(|c| c.descendants())
        .filter(|n| n.kind() == K::LITERAL)
        .find_map(|l| crate::hir::parse_int_literal(&l.text().to_string()))
        .filter(|n| *n > 0)
}

/// An edit that may make the backward derivative of `function` save less
/// for its backward pass. The host measures it (code generation of the
/// edited text) and offers it titled with the size it gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointFix {
    /// What the edit does (``Add `[ForceUnroll]` to the loop``).
    pub what: String,
    pub edit: FileEdit,
    /// The function at the range, whose backward derivative changes.
    pub function: DefId,
}

/// The checkpoint edits at `range` of a differentiable function: on a
/// loop's header (or its attributes), `[ForceUnroll]` (the loop's values
/// are then saved once each, not per iteration of a bound) and a
/// `[MaxIters(n)]` tightened to the literal the condition compares with;
/// on the name of a called user function that is differentiable,
/// `[PreferRecompute]` on it (its primal is recomputed instead of its
/// context kept).
pub fn checkpoint_fixes(db: &dyn Db, file: SourceFile, range: TextRange) -> Vec<CheckpointFix> {
    let root = parse(db, file).syntax_node();
    let mut out = Vec::new();
    let at = range.start();
    let Some(token) = root.token_at_offset(at).right_biased() else { return out };
    let Some(f_node) = token.parent_ancestors().find(|n| n.kind() == K::FN) else { return out };
    let Some(function) = item_def_of_node(db, file, &f_node) else { return out };
    if autodiff::fn_differentiability(db, file, function) == autodiff::Differentiability::No {
        return out;
    }
    let fix = |what: String, edit: FileEdit| CheckpointFix { what, edit, function };
    // A loop whose header (before its body: `for (…)`, `while (…)`, `do`)
    // or attribute list holds the position.
    let lp = token.parent_ancestors().take_while(|n| n != &f_node).find(|n| {
        matches!(n.kind(), K::FOR_STMT | K::WHILE_STMT | K::DO_WHILE_STMT)
            && at < n.children().find(|c| c.kind() == K::BLOCK).map_or(n.text_range().end(), |b| b.text_range().start())
    });
    let lp = lp.or_else(|| {
        let attributed = token.parent_ancestors().find(|n| n.kind() == K::ATTRIBUTE)?.parent()?;
        (attributed.kind() == K::ATTRIBUTED_STMT).then_some(())?;
        attributed.children().find(|c| matches!(c.kind(), K::FOR_STMT | K::WHILE_STMT | K::DO_WHILE_STMT))
    });
    if let Some(lp) = lp {
        let attrs: Vec<SyntaxNode> = lp
            .parent()
            .filter(|p| p.kind() == K::ATTRIBUTED_STMT)
            .map(|p| p.children().filter(|c| c.kind() == K::ATTRIBUTE).collect())
            .unwrap_or_default();
        let named = |name: &str| attrs.iter().find(|a| attribute_name(a).as_deref() == Some(name));
        if named("ForceUnroll").is_none() {
            out.push(fix("Add `[ForceUnroll]` to the loop".to_string(), add_attribute(db, file, &lp, "ForceUnroll")));
        }
        let max_iters = named("MaxIters").and_then(|a| a.descendants().find(|n| n.kind() == K::LITERAL));
        if let (Some(lit), Some(bound)) = (max_iters, literal_bound(&lp)) {
            let written = crate::hir::parse_int_literal(&lit.text().to_string());
            if written.is_some_and(|w| w > bound) {
                out.push(fix(
                    format!("Tighten to `[MaxIters({bound})]`"),
                    FileEdit { file, range: lit.text_range(), text: bound.to_string() },
                ));
            }
        }
    }
    // The name of a called differentiable user function.
    let call = token.parent_ancestors().find(|n| n.kind() == K::CALL_EXPR);
    if call.is_some_and(|c| callee_name(&c).as_ref() == Some(&token)) {
        for def in resolve_at(db, file, token.text_range().start()) {
            let Definition::Item(callee) = def else { continue };
            let Some(item) = item_of(db, callee) else { continue };
            let callee_file = callee.file(db);
            if item.kind != ItemKind::Fn
                || callee_file.path(db).starts_with("<builtin>")
                || item.has_attr("PreferRecompute")
                || autodiff::fn_differentiability(db, callee_file, callee) == autodiff::Differentiability::No
            {
                continue;
            }
            let Some(node) = def_node(db, callee) else { continue };
            let name = item.name.as_deref().unwrap_or("");
            out.push(fix(
                format!("Recompute `{name}` instead of saving its context (`[PreferRecompute]`)"),
                add_attribute(db, callee_file, &node, "PreferRecompute"),
            ));
            break;
        }
    }
    out
}

/// The name of an attribute (`MaxIters` in `[MaxIters(8)]`).
fn attribute_name(attr: &SyntaxNode) -> Option<String> {
    attr.descendants_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == K::IDENT).map(|t| t.to_string())
}

/// An edit adding `interface` to the inheritance list of `ty` (`None` if
/// it lists it already).
fn add_conformance(file: SourceFile, ty: &SyntaxNode, interface: &str) -> Option<FileEdit> {
    match ty.children().find(|c| c.kind() == K::INHERITANCE_LIST) {
        Some(list) => {
            if list.children().any(|c| c.text() == interface) {
                return None;
            }
            Some(insert(file, list.text_range().end(), format!(", {interface}")))
        }
        None => {
            let name = decl_name(ty)?;
            let after = ty.children().find(|c| c.kind() == K::GENERIC_PARAM_LIST).unwrap_or(name);
            Some(insert(file, after.text_range().end(), format!(" : {interface}")))
        }
    }
}

/// A name not yet declared in `file`: `base`, else `base2`, `base3` ….
fn fresh_name(db: &dyn Db, file: SourceFile, base: &str) -> String {
    let scope = crate::name_res::global_scope(db, file);
    let taken = |n: &str| scope.lookup(n).is_some() || !autodiff::functions_named(db, file, n).is_empty();
    if !taken(base) {
        return base.to_string();
    }
    (2..).map(|i| format!("{base}{i}")).find(|n| !taken(n)).unwrap_or_default()
}

/// "Generate a `[ForwardDerivative]` / `[BackwardDerivative]` stub": the
/// attribute on `f` and, after it, a function of exactly the signature
/// the attribute expects. The forward stub computes the primal result
/// with a zero derivative; the backward stub leaves the derivatives
/// unchanged. Both are left for the user to fill in.
fn derivative_stubs(db: &dyn Db, file: SourceFile, f: &SyntaxNode, out: &mut Vec<Assist>) {
    let Some(def) = item_def_of_node(db, file, f) else { return };
    let Some(item) = item_of(db, def) else { return };
    let Some(name) = item.name.clone() else { return };
    if f.children().all(|c| c.kind() != K::BLOCK) {
        return;
    }
    let sig = crate::infer::fn_sig(db, def);
    let mut ctx = DeclCtx::for_def(db, def);
    let param_tys: Vec<Ty> = sig.params.iter().map(|p| ctx.resolve(&p.ty)).collect();
    let ret = ctx.resolve(&sig.ret);
    let generics = f.children().find(|c| c.kind() == K::GENERIC_PARAM_LIST).map(|g| g.text().to_string());
    let in_type = f.parent().is_some_and(|p| p.kind() == K::MEMBER_LIST);
    let text = crate::expansion::semantic_text(db, file);
    let indent = indent_at(text, f.text_range().start());
    for (mode, attr, suffix) in
        [(Mode::Forward, "ForwardDerivative", "fwd"), (Mode::Backward, "BackwardDerivative", "bwd")]
    {
        if item.has_attr(attr) {
            continue;
        }
        let dsig = derivative_signature(db, def, mode);
        let all: Vec<&autodiff::DerivParam> = dsig.this_param.iter().chain(&dsig.params).collect();
        // Nothing to differentiate, types that cannot be told, or pointer
        // pairs: no stub.
        if all.iter().any(|p| matches!(p.diff, TypeDiff::Unknown | TypeDiff::Ptr))
            || (!all.iter().any(|p| p.diff == TypeDiff::Value)
                && (mode == Mode::Backward
                    || !matches!(dsig.ret, Ty::Adt { ref name, .. } if name == "DifferentialPair")))
        {
            continue;
        }
        let stub_name = fresh_name(db, file, &format!("{name}_{suffix}"));
        let param_text = |p: &autodiff::DerivParam| {
            let pname = if p.name == "this" { "self" } else { p.name.as_str() };
            format!("{}{} {pname}", p.dir.keyword(), p.ty)
        };
        let params: Vec<String> = all.iter().map(|p| param_text(p)).collect();
        let is_static = item.is_static || dsig.this_param.is_some();
        let mut stub = format!(
            "\n\n{indent}{}{} {stub_name}{}({})\n{indent}{{\n",
            if is_static && in_type { "static " } else { "" },
            dsig.ret,
            generics.as_deref().unwrap_or(""),
            params.join(", ")
        );
        let body_indent = format!("{indent}    ");
        match mode {
            Mode::Forward => {
                stub.push_str(&format!(
                    "{body_indent}// TODO: the derivative of `{name}`; this computes `{name}` with a zero derivative.\n"
                ));
                let mut args = Vec::new();
                let mut after = Vec::new();
                for (p, (dp, ty)) in sig.params.iter().zip(dsig.params.iter().zip(&param_tys)) {
                    let pname = p.name.clone().unwrap_or_default();
                    if dp.diff != TypeDiff::Value {
                        args.push(pname);
                        continue;
                    }
                    match dp.dir {
                        Dir::In => args.push(format!("{pname}.p")),
                        Dir::Out => {
                            stub.push_str(&format!("{body_indent}{ty} {pname}_p;\n"));
                            args.push(format!("{pname}_p"));
                            after.push(format!("{pname} = diffPair({pname}_p, {ty}.dzero());"));
                        }
                        Dir::InOut => {
                            stub.push_str(&format!("{body_indent}var {pname}_p = {pname}.p;\n"));
                            args.push(format!("{pname}_p"));
                            after.push(format!("{pname} = diffPair({pname}_p, {pname}.d);"));
                        }
                    }
                }
                let receiver = if dsig.this_param.is_some() { "self.p." } else { "" };
                let call = format!("{receiver}{name}({})", args.join(", "));
                let ret_is_pair = matches!(&dsig.ret, Ty::Adt { name, .. } if name == "DifferentialPair")
                    && !matches!(&ret, Ty::Adt { name, .. } if name == "DifferentialPair");
                let result = match &ret {
                    Ty::Void => {
                        stub.push_str(&format!("{body_indent}{call};\n"));
                        None
                    }
                    _ => {
                        stub.push_str(&format!("{body_indent}let result = {call};\n"));
                        Some(if ret_is_pair {
                            format!("diffPair(result, {ret}.dzero())")
                        } else {
                            "result".to_string()
                        })
                    }
                };
                for a in after {
                    stub.push_str(&format!("{body_indent}{a}\n"));
                }
                if let Some(r) = result {
                    stub.push_str(&format!("{body_indent}return {r};\n"));
                }
            }
            Mode::Backward => {
                stub.push_str(&format!(
                    "{body_indent}// TODO: accumulate the derivatives of `{name}`'s inputs into the `.d` of their pairs.\n"
                ));
            }
        }
        stub.push_str(&format!("{indent}}}"));
        out.push(Assist {
            title: format!("Generate a `[{attr}]` function for `{name}`"),
            kind: AssistKind::Refactor,
            edits: vec![
                add_attribute(db, file, f, &format!("{attr}({stub_name})")),
                insert(file, f.text_range().end(), stub),
            ],
            fixes: None,
        });
    }
}

/// "Implement `IDifferentiable` manually": a `Differential` struct of the
/// differentiable fields, `typealias Differential`, `[DerivativeMember]`
/// on each such field, and `[Differentiable]` `dzero` / `dadd`.
fn manual_idifferentiable(db: &dyn Db, file: SourceFile, s: &SyntaxNode, out: &mut Vec<Assist>) {
    let Some(def) = item_def_of_node(db, file, s) else { return };
    let Some(item) = item_of(db, def) else { return };
    let Some(name) = item.name.clone() else { return };
    if item.members.iter().any(|m| m.name.as_deref() == Some("Differential")) {
        return;
    }
    let Some(members) = s.children().find(|c| c.kind() == K::MEMBER_LIST) else { return };
    let Some(l_curly) = members.first_token().filter(|t| t.kind() == K::L_CURLY) else { return };
    let Some(r_curly) = members.last_token().filter(|t| t.kind() == K::R_CURLY) else { return };
    let text = crate::expansion::semantic_text(db, file);
    let indent = indent_at(text, s.text_range().start());
    let inner = format!("{indent}    ");
    let mut ctx = DeclCtx::for_def(db, def);
    // (field name, primal type, its VAR_DECL) of the differentiable fields.
    let mut fields: Vec<(String, Ty, SyntaxNode)> = Vec::new();
    for m in item.members.iter().filter(|m| m.kind == ItemKind::Var && !m.is_static) {
        let mdef = DefId::new(db, file, m.ast_index);
        let Some(node) = def_node(db, mdef) else { continue };
        let decl = if node.kind() == K::DECLARATOR { node.parent() } else { Some(node.clone()) };
        let Some(decl) = decl.filter(|d| d.kind() == K::VAR_DECL) else { continue };
        if decl.children_with_tokens().any(|e| e.kind() == K::NO_DIFF_KW) {
            continue;
        }
        let Some(tref) = crate::infer::decl_type_ref(db, mdef) else { continue };
        let ty = ctx.resolve(tref);
        match type_diff(db, file, &ty) {
            TypeDiff::Value => fields.push((m.name.clone().unwrap_or_default(), ty, decl)),
            TypeDiff::No => {}
            // Types that cannot be told (or pointers): leave it to the
            // compiler's synthesis.
            TypeDiff::Unknown | TypeDiff::Ptr => return,
        }
    }
    // One declaration per declarator is needed for `[DerivativeMember]`.
    if fields.is_empty()
        || fields.iter().any(|(_, _, d)| d.children().filter(|c| c.kind() == K::DECLARATOR).count() > 1)
    {
        return;
    }
    let generics = s.children().find(|c| c.kind() == K::GENERIC_PARAM_LIST);
    let generic_args = generics.as_ref().map(|g| {
        let names: Vec<String> = g
            .children()
            .filter(|c| matches!(c.kind(), K::GENERIC_TYPE_PARAM | K::GENERIC_VALUE_PARAM))
            .filter_map(|c| decl_name(&c).map(|n| n.text().to_string()))
            .collect();
        format!("<{}>", names.join(", "))
    });
    let diff_name = fresh_name(db, file, &format!("{name}Differential"));
    let mut diff_struct = format!(
        "{indent}struct {diff_name}{} : IDifferentiable\n{indent}{{\n",
        generics.as_ref().map(|g| g.text().to_string()).unwrap_or_default()
    );
    for (fname, ty, _) in &fields {
        let dty = match autodiff::differential_of(db, ty) {
            Ty::Unknown => format!("{ty}.Differential"),
            d => d.to_string(),
        };
        diff_struct.push_str(&format!("{inner}{dty} {fname};\n"));
    }
    diff_struct.push_str(&format!("{indent}}}\n\n"));
    let s_start = s.text_range().start();
    let mut edits = vec![insert(file, s_start, format!("{}{indent}", diff_struct.trim_start()))];
    if let Some(e) = add_conformance(file, s, "IDifferentiable") {
        edits.push(e);
    }
    edits.push(insert(
        file,
        l_curly.text_range().end(),
        format!("\n{inner}typealias Differential = {diff_name}{};\n", generic_args.unwrap_or_default()),
    ));
    for (fname, _, decl) in &fields {
        edits.push(add_attribute(db, file, decl, &format!("DerivativeMember(Differential.{fname})")));
    }
    let zeros: Vec<String> = fields.iter().map(|(_, ty, _)| format!("{ty}.dzero()")).collect();
    let sums: Vec<String> = fields.iter().map(|(f, ty, _)| format!("{ty}.dadd(a.{f}, b.{f})")).collect();
    let methods = format!(
        "\n{inner}[Differentiable]\n{inner}static Differential dzero()\n{inner}{{\n{inner}    return {{ {} }};\n{inner}}}\n\n\
         {inner}[Differentiable]\n{inner}static Differential dadd(Differential a, Differential b)\n{inner}{{\n\
         {inner}    return {{ {} }};\n{inner}}}\n{indent}",
        zeros.join(", "),
        sums.join(", ")
    );
    // Before the closing brace, after the last member's line.
    let before_close = text[..usize::from(r_curly.text_range().start())].trim_end_matches([' ', '\t']);
    let at = TextSize::from(before_close.len() as u32);
    let methods = if before_close.ends_with('\n') { methods } else { format!("\n{methods}") };
    edits.push(FileEdit { file, range: TextRange::new(at, r_curly.text_range().start()), text: methods });
    out.push(Assist {
        title: format!("Implement `IDifferentiable` for `{name}` by hand"),
        kind: AssistKind::Refactor,
        edits,
        fixes: None,
    });
}
