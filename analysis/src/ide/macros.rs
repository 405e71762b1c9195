//! Hover and go-to-definition on a macro's use: both land on its
//! `#define`. Unlike the other IDE features these take and give offsets of
//! the files' own text (a macro's name is not in the expanded text).

use slang_syntax::ast::AstNode;
use slang_syntax::{SyntaxKind, SyntaxNode, TextRange, TextSize};

use super::{HoverResult, NavTarget, Reference};
use crate::{Db, SourceFile};

/// The `#define` of the macro used at `offset` (of `file`'s text): in the
/// file before the use, else in the files of its module (`#include`d).
pub fn macro_definition(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<NavTarget> {
    let (name, _) = macro_use_at(db, file, offset)?;
    find_define(db, file, &name, Some(offset))
        .or_else(|| {
            crate::module_graph::module_of(db, file)
                .iter()
                .filter(|&&f| f != file)
                .find_map(|&f| find_define(db, f, &name, None))
        })
        .map(|(f, node, focus)| NavTarget { file: f, full_range: node.text_range(), focus_range: focus, name })
}

/// The macro's definition and what this use expands to.
pub fn macro_hover(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<HoverResult> {
    let (name, range) = macro_use_at(db, file, offset)?;
    let e = crate::expansion::expansion(db, file).clone()?;
    let u = e.use_at_source(offset)?;
    let mut md = String::new();
    if let Some(t) = macro_definition(db, file, offset) {
        let def = t.file.text(db)[t.full_range].trim_end().to_string();
        md.push_str(&format!("```slang\n{def}\n```\n"));
    } else {
        md.push_str(&format!("macro `{name}` (predefined)\n"));
    }
    let expanded = e.text[u.expanded].trim();
    if !expanded.is_empty() {
        md.push_str(&format!("\nExpands to:\n```slang\n{expanded}\n```\n"));
    } else {
        md.push_str("\nExpands to nothing.\n");
    }
    Some(HoverResult { range, markdown: md })
}

/// The uses of the macro named at `offset` (a use, or the name in its
/// `#define`) in every file of the workspace, and its definitions when
/// `include_declaration`: each in its file's own offsets.
pub fn macro_references(
    db: &dyn Db,
    file: SourceFile,
    offset: TextSize,
    include_declaration: bool,
) -> Option<Vec<Reference>> {
    let name = match macro_use_at(db, file, offset) {
        Some((name, _)) => name,
        None => define_name_at(db, file, offset)?,
    };
    let mut out = Vec::new();
    for &f in crate::Workspace::get(db).files(db).iter() {
        if crate::core_module::is_core_path(f.path(db)) {
            continue;
        }
        if include_declaration {
            for (range, _) in defines_named(db, f, &name) {
                out.push(Reference { file: f, range, is_declaration: true, is_write: false });
            }
        }
        if let Some(e) = crate::expansion::expansion(db, f) {
            for u in e.uses.iter().filter(|u| u.name == name) {
                out.push(Reference { file: f, range: u.name_range, is_declaration: false, is_write: false });
            }
        }
    }
    Some(out)
}

/// The macro's name when `offset` is on the name of a `#define`.
fn define_name_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<String> {
    let root = crate::source_parse(db, file).syntax_node();
    let token = root.token_at_offset(offset.min(root.text_range().end())).find(|t| t.kind() == SyntaxKind::IDENT)?;
    let name = token.parent().filter(|n| n.kind() == SyntaxKind::NAME)?;
    name.parent().filter(|d| d.kind() == SyntaxKind::PP_DEFINE)?;
    Some(token.text().to_string())
}

/// The `#define`s of `name` in `file` (active ones): the name's range and
/// the directive.
fn defines_named(db: &dyn Db, file: SourceFile, name: &str) -> Vec<(TextRange, SyntaxNode)> {
    let parse = crate::source_parse(db, file);
    parse
        .syntax_node()
        .descendants()
        .filter(|n| n.kind() == SyntaxKind::PP_DEFINE && parse.is_active(n.text_range().start()))
        .filter_map(|node| {
            let n = slang_syntax::ast::PpDefine::cast(node.clone())?.name()?;
            (n.syntax().text() == name).then(|| (n.syntax().text_range(), node))
        })
        .collect()
}

/// The name and its range, when `offset` is on the name of a macro's use.
fn macro_use_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<(String, TextRange)> {
    let e = crate::expansion::expansion(db, file).as_ref()?;
    let i = e.uses.partition_point(|u| u.name_range.end() < offset);
    let u = e.uses.get(i).filter(|u| u.name_range.contains_inclusive(offset))?;
    Some((u.name.clone(), u.name_range))
}

/// The last active `#define NAME` of `file` (before `before`).
fn find_define(
    db: &dyn Db,
    file: SourceFile,
    name: &str,
    before: Option<TextSize>,
) -> Option<(SourceFile, SyntaxNode, TextRange)> {
    defines_named(db, file, name)
        .into_iter()
        .filter(|(_, node)| before.is_none_or(|b| node.text_range().start() <= b))
        .last()
        .map(|(range, node)| (file, node, range))
}
